//! ZooKeeper's client protocol (jute encoding, big-endian) as pure functions: a request
//! frame's bytes in, a reply frame's bytes out.
//!
//! A session opens with a `ConnectRequest` (protocol version, last zxid, timeout, session
//! id, password, read-only flag) answered by a `ConnectResponse` with no reply header.
//! Every later frame is a request header (xid, op code) and a body; every reply is a
//! reply header (xid, zxid, error code) and, when the error is 0, a body. Reads are
//! answered from the [`Tree`]; writes get `NOTREADONLY` (this server is read-only), and
//! unknown operations `UNIMPLEMENTED`. Watches are accepted and never fire: the tree
//! never changes while the server runs.

use super::znodes::Tree;

pub const OP_NOTIFICATION: i32 = 0;
pub const OP_CREATE: i32 = 1;
pub const OP_DELETE: i32 = 2;
pub const OP_EXISTS: i32 = 3;
pub const OP_GET_DATA: i32 = 4;
pub const OP_SET_DATA: i32 = 5;
pub const OP_GET_ACL: i32 = 6;
pub const OP_GET_CHILDREN: i32 = 8;
pub const OP_SYNC: i32 = 9;
pub const OP_PING: i32 = 11;
pub const OP_GET_CHILDREN2: i32 = 12;
pub const OP_CHECK: i32 = 13;
pub const OP_MULTI: i32 = 14;
pub const OP_CREATE2: i32 = 15;
pub const OP_AUTH: i32 = 100;
pub const OP_SET_WATCHES: i32 = 101;
pub const OP_CLOSE: i32 = -11;

pub const ERR_OK: i32 = 0;
pub const ERR_UNIMPLEMENTED: i32 = -6;
pub const ERR_MARSHALLING: i32 = -5;
pub const ERR_NO_NODE: i32 = -101;
pub const ERR_NOT_READ_ONLY: i32 = -119;

/// The zxid every reply carries: the tree was written once.
pub const ZXID: i64 = 1;

/// A session timeout is clamped to ZooKeeper's defaults (2 and 20 ticks of 2 s).
pub const SESSION_TIMEOUT_MIN_MS: i32 = 4_000;
pub const SESSION_TIMEOUT_MAX_MS: i32 = 40_000;

/// Bytes that do not decode as the request they claim to be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ZooKeeper {what} is malformed at offset {offset}")]
pub struct Malformed {
    pub what: &'static str,
    pub offset: usize,
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        if n > self.buf.len() - self.pos {
            return Err(Malformed {
                what: self.what,
                offset: self.pos,
            });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn int(&mut self) -> Result<i32, Malformed> {
        let b = self.bytes(4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn long(&mut self) -> Result<i64, Malformed> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    /// A length-prefixed buffer (-1: none).
    fn buffer(&mut self) -> Result<&'a [u8], Malformed> {
        let at = self.pos;
        match self.int()? {
            -1 => Ok(&[]),
            n if n < 0 => Err(Malformed {
                what: self.what,
                offset: at,
            }),
            n => self.bytes(n as usize),
        }
    }

    fn string(&mut self) -> Result<String, Malformed> {
        let at = self.pos;
        let bytes = self.buffer()?;
        String::from_utf8(bytes.to_vec()).map_err(|_| Malformed {
            what: self.what,
            offset: at,
        })
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn new() -> Self {
        Self(vec![0; 4])
    }
    fn int(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn long(&mut self, v: i64) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn buffer(&mut self, b: &[u8]) -> &mut Self {
        self.int(b.len() as i32);
        self.0.extend_from_slice(b);
        self
    }
    fn finish(mut self) -> Vec<u8> {
        let len = (self.0.len() - 4) as u32;
        self.0[..4].copy_from_slice(&len.to_be_bytes());
        self.0
    }
}

/// What a session's `ConnectRequest` asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connect {
    pub timeout_ms: i32,
    pub session_id: i64,
}

pub fn decode_connect(frame: &[u8]) -> Result<Connect, Malformed> {
    let mut r = Reader {
        buf: frame,
        pos: 0,
        what: "connect request",
    };
    let _protocol_version = r.int()?;
    let _last_zxid = r.long()?;
    let timeout_ms = r.int()?;
    let session_id = r.long()?;
    let _password = r.buffer()?;
    // The read-only flag is optional (older clients leave it out).
    Ok(Connect {
        timeout_ms,
        session_id,
    })
}

/// The `ConnectResponse` for a new session `session_id` (with its password).
pub fn connect_response(request: &Connect, session_id: i64, password: &[u8; 16]) -> Vec<u8> {
    let timeout = request
        .timeout_ms
        .clamp(SESSION_TIMEOUT_MIN_MS, SESSION_TIMEOUT_MAX_MS);
    let mut w = Writer::new();
    w.int(0).int(timeout).long(session_id).buffer(password);
    w.0.push(0); // not a read-only server in ZooKeeper's sense: clients need not probe
    w.finish()
}

/// What the session does after answering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    Continue,
    /// The client closed its session: close the connection once the reply is sent.
    Close,
}

fn stat(w: &mut Writer, tree: &Tree, data_len: usize, children: usize) {
    w.long(ZXID) // czxid
        .long(ZXID) // mzxid
        .long(tree.created_ms) // ctime
        .long(tree.created_ms) // mtime
        .int(0) // version
        .int(0) // cversion
        .int(0) // aversion
        .long(0) // ephemeralOwner
        .int(data_len as i32)
        .int(children as i32)
        .long(ZXID); // pzxid
}

fn header(xid: i32, err: i32) -> Writer {
    let mut w = Writer::new();
    w.int(xid).long(ZXID).int(err);
    w
}

/// Answers one request frame (after its four-byte length).
pub fn answer(tree: &Tree, frame: &[u8]) -> Result<(Vec<u8>, Next), Malformed> {
    let mut r = Reader {
        buf: frame,
        pos: 0,
        what: "request",
    };
    let xid = r.int()?;
    let op = r.int()?;
    let reply = match op {
        OP_PING | OP_AUTH | OP_SET_WATCHES => header(xid, ERR_OK),
        OP_CLOSE => return Ok((header(xid, ERR_OK).finish(), Next::Close)),
        OP_EXISTS | OP_GET_DATA | OP_GET_CHILDREN | OP_GET_CHILDREN2 | OP_SYNC => {
            let path = r.string()?;
            read(tree, xid, op, &path)
        }
        OP_CREATE | OP_DELETE | OP_SET_DATA | OP_CREATE2 | OP_CHECK | OP_MULTI => {
            header(xid, ERR_NOT_READ_ONLY)
        }
        OP_GET_ACL | OP_NOTIFICATION => header(xid, ERR_UNIMPLEMENTED),
        _ => header(xid, ERR_UNIMPLEMENTED),
    };
    Ok((reply.finish(), Next::Continue))
}

fn read(tree: &Tree, xid: i32, op: i32, path: &str) -> Writer {
    if !path.starts_with('/') {
        return header(xid, ERR_MARSHALLING);
    }
    if !tree.exists(path) {
        return header(xid, ERR_NO_NODE);
    }
    let data = tree.data(path).unwrap_or_default();
    let children = tree.children(path).unwrap_or_default();
    let mut w = header(xid, ERR_OK);
    match op {
        OP_SYNC => {
            w.buffer(path.as_bytes());
        }
        OP_EXISTS => stat(&mut w, tree, data.len(), children.len()),
        OP_GET_DATA => {
            w.buffer(data);
            stat(&mut w, tree, data.len(), children.len());
        }
        _ => {
            w.int(children.len() as i32);
            for child in &children {
                w.buffer(child.as_bytes());
            }
            if op == OP_GET_CHILDREN2 {
                stat(&mut w, tree, data.len(), children.len());
            }
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::ServerIdentity;

    fn tree() -> Tree {
        let me = ServerIdentity {
            host: "h".into(),
            port: 1,
            start_code: 2,
        };
        Tree::for_server("/hbase", &me, "cid", 0)
    }

    fn request(xid: i32, op: i32, path: &str) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&xid.to_be_bytes());
        out.extend_from_slice(&op.to_be_bytes());
        out.extend_from_slice(&(path.len() as i32).to_be_bytes());
        out.extend_from_slice(path.as_bytes());
        out.push(0);
        out
    }

    fn error_of(reply: &[u8]) -> i32 {
        i32::from_be_bytes([reply[16], reply[17], reply[18], reply[19]])
    }

    #[test]
    fn get_data_answers_the_znode_and_a_missing_one_is_no_node() {
        let tree = tree();
        let (reply, next) = answer(&tree, &request(5, OP_GET_DATA, "/hbase/master")).expect("ok");
        assert_eq!(next, Next::Continue);
        assert_eq!(&reply[4..8], &5i32.to_be_bytes());
        assert_eq!(error_of(&reply), ERR_OK);
        let data_len = i32::from_be_bytes([reply[20], reply[21], reply[22], reply[23]]) as usize;
        assert_eq!(
            &reply[24..24 + data_len],
            tree.data("/hbase/master").expect("znode")
        );
        assert_eq!(reply.len(), 24 + data_len + 68, "data and a 68-byte stat");
        let (missing, _) = answer(&tree, &request(6, OP_GET_DATA, "/hbase/nope")).expect("ok");
        assert_eq!(error_of(&missing), ERR_NO_NODE);
    }

    #[test]
    fn writes_are_refused_and_close_ends_the_session() {
        let tree = tree();
        let (reply, _) = answer(&tree, &request(1, OP_CREATE, "/x")).expect("ok");
        assert_eq!(error_of(&reply), ERR_NOT_READ_ONLY);
        let (_, next) = answer(&tree, &[0, 0, 0, 9, 0xff, 0xff, 0xff, 0xf5]).expect("ok");
        assert_eq!(next, Next::Close);
    }

    #[test]
    fn a_connect_gets_a_clamped_timeout() {
        let mut req = Vec::new();
        req.extend_from_slice(&0i32.to_be_bytes());
        req.extend_from_slice(&0i64.to_be_bytes());
        req.extend_from_slice(&100_000i32.to_be_bytes());
        req.extend_from_slice(&0i64.to_be_bytes());
        req.extend_from_slice(&16i32.to_be_bytes());
        req.extend_from_slice(&[0; 16]);
        let connect = decode_connect(&req).expect("decodes");
        let reply = connect_response(&connect, 7, &[1; 16]);
        assert_eq!(&reply[8..12], &SESSION_TIMEOUT_MAX_MS.to_be_bytes());
        assert!(decode_connect(&req[..10]).is_err());
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn random_requests_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
                let _ = answer(&tree(), &bytes);
                let _ = decode_connect(&bytes);
            }
        }
    }
}
