//! A running web UI over an embedded database on a temporary folder, holding a pre-split
//! table whose keys and values are full of HTML, and a raw HTTP/1.1 client.

#![allow(dead_code)]

use basalt_api::{Connection, PreSplit};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Put, TableDescriptor, TableName};
use basalt_web::{ServerInfo, WebConfig, WebServer};
use bytes::Bytes;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

pub const TABLE: &str = "web_t";
/// The split keys: 3 keys, 4 regions.
pub const SPLITS: [&[u8]; 3] = [b"<script>alert(1)</script>", b"m&\"q", b"x\x00\xff"];
pub const HTML_ROW: &[u8] = b"<img src=x onerror=alert(1)>";
pub const HTML_VALUE: &[u8] = b"\"&<b>bold</b>";
pub const GRPC_ADDR: &str = "127.0.0.1:16999";
pub const CONFIG_TEXT: &str = "[web]\nport = 0 # <i>not a tag</i>\n";

pub struct Fixture {
    pub runtime: tokio::runtime::Runtime,
    server: Option<WebServer>,
    pub addr: SocketAddr,
    pub db: Arc<Database>,
    pub conn: Arc<dyn Connection>,
    pub info: ServerInfo,
    _dir: tempfile::TempDir,
}

impl Fixture {
    pub fn start() -> Fixture {
        Self::start_with(WebConfig {
            port: 0,
            ..WebConfig::default()
        })
    }

    /// As [`Fixture::start`] with these web settings (use port 0).
    pub fn start_with(config: WebConfig) -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::open(dir.path(), DbConfig::default()).expect("open database");
        let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(db.clone()));
        let name = TableName::parse(TABLE).expect("valid name");
        let family = FamilyDescriptor::new("f").expect("valid family");
        let splits = SPLITS.iter().map(|k| Bytes::from_static(k)).collect();
        conn.admin()
            .create_table(
                &TableDescriptor::new(name.clone(), vec![family]),
                &PreSplit::Keys(splits),
            )
            .expect("create the pre-split table");
        let table = conn.table(&name).expect("table");
        table
            .put(&Put::new(HTML_ROW).add("f", "q", HTML_VALUE))
            .expect("put");
        table
            .put(&Put::new("plain").add("f", "q", "v"))
            .expect("put");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let mut info = ServerInfo::new("0.1.0-test", dir.path().to_path_buf());
        info.grpc_addr.get_or_init(|| GRPC_ADDR.to_string());
        info.config_text = CONFIG_TEXT.to_string();
        let server = {
            let _entered = runtime.enter();
            basalt_web::start(db.clone(), conn.clone(), info.clone(), config)
                .expect("start the web UI")
        };
        Fixture {
            addr: server.local_addr(),
            server: Some(server),
            runtime,
            db,
            conn,
            info,
            _dir: dir,
        }
    }

    /// `GET target` on a fresh connection.
    pub fn get(&self, target: &str) -> Response {
        self.raw(
            format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .expect("a response")
    }

    /// Sends raw bytes and reads the response until the server closes; `None` when the
    /// server closed without a parsable response.
    pub fn raw(&self, request: &[u8]) -> Option<Response> {
        send(self.addr, request)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            self.runtime.block_on(server.shutdown());
        }
        let _ = self.db.close();
    }
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The security headers every response must carry.
    pub fn assert_security_headers(&self, what: &str) {
        let csp = self.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("default-src 'none'"), "{what}: CSP is {csp:?}");
        assert!(
            csp.contains("frame-ancestors 'none'"),
            "{what}: CSP is {csp:?}"
        );
        assert!(
            !csp.contains("script-src"),
            "{what}: no script source is allowed"
        );
        assert_eq!(self.header("x-frame-options"), Some("DENY"), "{what}");
        assert_eq!(
            self.header("x-content-type-options"),
            Some("nosniff"),
            "{what}"
        );
    }

    /// The `<tr>` holding `needle`.
    pub fn row_with(&self, needle: &str) -> &str {
        let at = self
            .body
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} not in the page"));
        let start = self.body[..at].rfind("<tr>").expect("inside a table row");
        let end = at + self.body[at..].find("</tr>").expect("row ends");
        &self.body[start..end]
    }
}

pub fn send(addr: SocketAddr, request: &[u8]) -> Option<Response> {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    // The server may answer and close before reading everything we send.
    let _ = stream.write_all(request);
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    parse(&bytes)
}

fn parse(bytes: &[u8]) -> Option<Response> {
    let head_end = bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&bytes[..head_end]).ok()?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    let status = status_line.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = bytes[head_end + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body)?;
    }
    Some(Response {
        status,
        headers,
        body: String::from_utf8(body).ok()?,
    })
}

fn dechunk(mut bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = bytes.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&bytes[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        bytes = &bytes[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(bytes.get(..size)?);
        bytes = bytes.get(size + 2..)?;
    }
}
