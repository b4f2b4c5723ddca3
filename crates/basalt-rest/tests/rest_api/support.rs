//! A gateway over a fresh embedded database on a free port, and a raw HTTP/1.1 client.

use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_rest::{start, RestConfig, RestServer};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

pub struct Gateway {
    pub addr: SocketAddr,
    db: Arc<Database>,
    server: Option<RestServer>,
    runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl Gateway {
    pub fn start() -> Self {
        Self::start_with(|_| {})
    }

    /// A gateway on port 0 with `tune` applied to the default settings.
    pub fn start_with(tune: impl FnOnce(&mut RestConfig)) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Database::open(dir.path(), DbConfig::default()).expect("open database");
        let conn = Arc::new(EmbeddedConnection::new(db.clone()));
        let mut config = RestConfig {
            port: 0,
            ..RestConfig::default()
        };
        tune(&mut config);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let server = runtime
            .block_on(async { start(conn, config) })
            .expect("start the gateway");
        Self {
            addr: server.local_addr(),
            db,
            server: Some(server),
            runtime,
            _dir: dir,
        }
    }

    /// Runs `work` on the gateway's runtime.
    pub fn block_on<F: std::future::Future>(&self, work: F) -> F::Output {
        self.runtime.block_on(work)
    }

    /// Closes the database under the gateway, as a failing server would go away.
    pub fn close_database(&self) {
        self.db.close().expect("close the database");
    }

    pub fn open_scanners(&self) -> usize {
        self.server.as_ref().map_or(0, RestServer::open_scanners)
    }

    pub fn get(&self, path: &str, accept: &str) -> Response {
        self.call("GET", path, &[("Accept", accept)], b"")
    }

    /// Sends a body of `content_type`.
    pub fn send(&self, method: &str, path: &str, content_type: &str, body: &[u8]) -> Response {
        self.call(
            method,
            path,
            &[
                ("Content-Type", content_type),
                ("Accept", "application/json"),
            ],
            body,
        )
    }

    pub fn call(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let mut raw = head.into_bytes();
        raw.extend_from_slice(body);
        raw_exchange(self.addr, &raw)
    }

    /// Creates table `name` with families `families` through the REST API.
    pub fn create_table(&self, name: &str, families: &[&str]) {
        let columns: Vec<serde_json::Value> = families
            .iter()
            .map(|f| serde_json::json!({"name": f, "VERSIONS": "5"}))
            .collect();
        let body = serde_json::json!({"name": name, "ColumnSchema": columns}).to_string();
        let r = self.send(
            "PUT",
            &format!("/{name}/schema"),
            "application/json",
            body.as_bytes(),
        );
        assert_eq!(r.status, 201, "create {name}: {}", r.text());
    }

    /// Puts one cell through the JSON cell-set body.
    pub fn put_cell(&self, table: &str, row: &str, column: &str, value: &str) {
        let body = cell_set_json(&[(row, &[(column, value)])]);
        let r = self.send(
            "PUT",
            &format!("/{table}/{row}"),
            "application/json",
            body.as_bytes(),
        );
        assert_eq!(r.status, 200, "put {row}/{column}: {}", r.text());
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            self.runtime.block_on(server.shutdown());
        }
    }
}

/// Sends raw bytes, reads the answer until the server closes.
pub fn raw_exchange(addr: SocketAddr, raw: &[u8]) -> Response {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    stream.write_all(raw).expect("write request");
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).expect("read response");
    Response::parse(&bytes)
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    fn parse(bytes: &[u8]) -> Self {
        let split = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(bytes)));
        let head = String::from_utf8_lossy(&bytes[..split]).into_owned();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().expect("status line");
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {status_line}"));
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let mut body = bytes[split + 4..].to_vec();
        if headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v == "chunked")
        {
            body = dechunk(&body);
        }
        Self {
            status,
            headers,
            body,
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = body.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(std::str::from_utf8(&body[..end]).expect("hex"), 16)
            .expect("chunk size");
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[end + 2..end + 2 + size]);
        body = &body[end + 2 + size + 2..];
    }
}

pub fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

pub fn unb64(text: &serde_json::Value) -> Vec<u8> {
    STANDARD
        .decode(text.as_str().expect("a base64 string"))
        .expect("valid base64")
}

/// A JSON cell set: rows of `(column, value)` cells.
pub fn cell_set_json(rows: &[(&str, &[(&str, &str)])]) -> String {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|(key, cells)| {
            let cells: Vec<serde_json::Value> = cells
                .iter()
                .map(|(c, v)| serde_json::json!({"column": b64(c.as_bytes()), "$": b64(v.as_bytes())}))
                .collect();
            serde_json::json!({"key": b64(key.as_bytes()), "Cell": cells})
        })
        .collect();
    serde_json::json!({ "Row": rows }).to_string()
}

/// `(row, column, value)` of every cell of a JSON cell set.
pub fn cells_of(set: &serde_json::Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for row in set["Row"].as_array().expect("Row array") {
        let key = String::from_utf8(unb64(&row["key"])).expect("utf8");
        for cell in row["Cell"].as_array().expect("Cell array") {
            out.push((
                key.clone(),
                String::from_utf8(unb64(&cell["column"])).expect("utf8"),
                String::from_utf8(unb64(&cell["$"])).expect("utf8"),
            ));
        }
    }
    out
}

/// Owned triples for comparisons.
pub fn triples(cells: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    cells
        .iter()
        .map(|(r, c, v)| (r.to_string(), c.to_string(), v.to_string()))
        .collect()
}
