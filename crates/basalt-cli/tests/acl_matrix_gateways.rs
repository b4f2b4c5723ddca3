//! The ACL matrix through the gateways, as their own clients reach them: `basalt
//! standalone --auth`, every row of the matrix that REST or Thrift1 can express, run over
//! real sockets, REST with HTTP Basic and Thrift with happybase's client over SASL PLAIN.
//! For each scope that allows the operation, user `yes` granted exactly that permission
//! there is not refused, and user `no`, granted every other permission there, is refused
//! with HBase's `AccessDeniedException` naming him (403 on REST). Rows everyone may run
//! are run by `no` holding nothing. The same cases (objects, fixture) as the embedded and
//! gRPC matrix tests (`crates/basalt-acl/tests/support/cases.rs`), through `support::acl_matrix`.

use crate::support;
use basalt_acl::Op;
use basalt_client::{ClientConfig, Credentials, RemoteConnection};
use basalt_rest::repr::b64;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use support::acl_matrix::{run_matrix, Gateway, Outcome};
use support::http::request;
use support::{start_with, stop, user};

const PASSWORDS: [(&str, &str); 3] = [("admin", "adminpw"), ("yes", "yespw"), ("no", "nopw")];

struct Rest {
    addr: String,
    made: usize,
}

fn cell_set(row: &str, cells: &[(&str, &str)]) -> String {
    let cells: Vec<String> = cells
        .iter()
        .map(|(column, value)| {
            format!(
                "{{\"column\":\"{}\",\"$\":\"{}\"}}",
                b64::encode(column.as_bytes()),
                b64::encode(value.as_bytes())
            )
        })
        .collect();
    format!(
        "{{\"Row\":[{{\"key\":\"{}\",\"Cell\":[{}]}}]}}",
        b64::encode(row.as_bytes()),
        cells.join(",")
    )
}

impl Gateway for Rest {
    fn name(&self) -> &'static str {
        "REST"
    }

    fn run(&mut self, user: &str, op: Op) -> Option<Outcome> {
        let json = "application/json";
        let (method, path, body, kind) = match op {
            Op::Get => ("GET", "/ns:t/r1/f:a".to_string(), String::new(), json),
            Op::Scan => ("GET", "/ns:t/r*".into(), String::new(), json),
            Op::Put => (
                "PUT",
                "/ns:t/r2/f:a".into(),
                "x".into(),
                "application/octet-stream",
            ),
            Op::Delete => ("DELETE", "/ns:t/r2/f:a".into(), String::new(), json),
            Op::CheckAndMutate => (
                "PUT",
                "/ns:t/r1?check=put".into(),
                cell_set("r1", &[("f:a", "1"), ("f:a", "1")]),
                json,
            ),
            Op::Increment => (
                "POST",
                "/ns:t/r1?check=increment".into(),
                cell_set("r1", &[("f:n", "1")]),
                json,
            ),
            Op::Append => (
                "POST",
                "/ns:t/r2?check=append".into(),
                cell_set("r2", &[("f:a", "y")]),
                json,
            ),
            Op::CreateNamespace => {
                self.made += 1;
                (
                    "POST",
                    format!("/namespaces/made_rest{}", self.made),
                    String::new(),
                    json,
                )
            }
            Op::DeleteNamespace => ("DELETE", "/namespaces/nothere".into(), String::new(), json),
            Op::ModifyNamespace => ("PUT", "/namespaces/ns".into(), "{}".into(), json),
            Op::DescribeNamespace => ("GET", "/namespaces/ns".into(), String::new(), json),
            Op::ListNamespaces => ("GET", "/namespaces".into(), String::new(), json),
            Op::CreateTable => {
                self.made += 1;
                let schema = format!(
                    "{{\"name\":\"ns:made_rest{}\",\"ColumnSchema\":[{{\"name\":\"f\"}}]}}",
                    self.made
                );
                (
                    "PUT",
                    format!("/ns:made_rest{}/schema", self.made),
                    schema,
                    json,
                )
            }
            Op::DeleteTable => ("DELETE", "/ns:t/schema".into(), String::new(), json),
            Op::DescribeTable => ("GET", "/ns:t/schema".into(), String::new(), json),
            Op::TableExists => ("GET", "/ns:t/exists".into(), String::new(), json),
            Op::ListTables => ("GET", "/".into(), String::new(), json),
            Op::ListRegions => ("GET", "/ns:t/regions".into(), String::new(), json),
            Op::ClusterStatus => ("GET", "/status/cluster".into(), String::new(), json),
            _ => return None,
        };
        let password = PASSWORDS.iter().find(|(u, _)| *u == user)?.1;
        let basic = Credentials::Password {
            user: user.into(),
            password: password.into(),
        }
        .header_value();
        let headers = [
            ("Authorization", basic.as_str()),
            ("Accept", json),
            ("Content-Type", kind),
        ];
        let answer = request(&self.addr, method, &path, &headers, &body);
        Some(match answer.status {
            200..=299 | 304 | 404 => Outcome::Ok,
            403 => Outcome::Denied(answer.body),
            _ => Outcome::Failed(format!("{method} {path}: {answer:?}")),
        })
    }
}

/// `tests/thrift_sasl/acl_ops.py`, one operation per line.
struct Thrift {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

const THRIFT_OPS: &[Op] = &[
    Op::Get,
    Op::Scan,
    Op::Put,
    Op::Delete,
    Op::Increment,
    Op::Append,
    Op::CheckAndMutate,
    Op::CreateTable,
    Op::DeleteTable,
    Op::EnableTable,
    Op::DisableTable,
    Op::IsTableEnabled,
    Op::ListTables,
    Op::DescribeTable,
    Op::ListRegions,
    Op::Compact,
];

impl Thrift {
    fn start(addr: &str) -> Self {
        let (host, port) = addr.rsplit_once(':').expect("host:port");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/thrift_sasl/acl_ops.py");
        let users: Vec<String> = PASSWORDS.iter().map(|(u, p)| format!("{u}:{p}")).collect();
        let mut child = Command::new(support::gateways::python())
            .arg(script)
            .args([host, port])
            .args(&users)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run the Python driver");
        let input = child.stdin.take().expect("piped stdin");
        let output = BufReader::new(child.stdout.take().expect("piped stdout"));
        Thrift {
            child,
            input,
            output,
        }
    }
}

impl Drop for Thrift {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Gateway for Thrift {
    fn name(&self) -> &'static str {
        "Thrift"
    }

    fn run(&mut self, user: &str, op: Op) -> Option<Outcome> {
        if !THRIFT_OPS.contains(&op) {
            return None;
        }
        writeln!(self.input, "{user} {op:?}").expect("to the driver");
        self.input.flush().expect("flush");
        let mut line = String::new();
        self.output.read_line(&mut line).expect("from the driver");
        let v: serde_json::Value =
            serde_json::from_str(line.trim()).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        if v["ok"].as_bool() == Some(true) {
            return Some(Outcome::Ok);
        }
        let message = v["message"].as_str().unwrap_or_default().to_string();
        Some(match message.contains("AccessDeniedException") {
            true => Outcome::Denied(message),
            false => Outcome::Failed(format!("{op:?}: {v}")),
        })
    }
}

#[test]
fn every_matrix_row_rest_and_thrift_express_allows_each_scope_and_refuses_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    user(dir.path(), &["add", "admin", "--superuser"], "adminpw\n");
    user(dir.path(), &["add", "yes"], "yespw\n");
    user(dir.path(), &["add", "no"], "nopw\n");
    let running = start_with(dir.path(), &["--auth"]);
    let config = ClientConfig::default().with_credentials(Credentials::Password {
        user: "admin".into(),
        password: "adminpw".into(),
    });
    let admin = RemoteConnection::connect_with(&running.addr, config).expect("connect as admin");

    let rest = running.sidecar_addr("rest").expect("REST runs");
    let thrift = running.sidecar_addr("thrift").expect("Thrift runs");
    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut rest = Rest {
            addr: rest,
            made: 0,
        };
        let (allowed, refused, succeeded, failed) = run_matrix(&admin, &mut rest);
        assert!(
            allowed >= 55 && refused >= 50 && succeeded * 10 >= allowed * 9,
            "REST: {allowed} allowed ({succeeded} succeeded), {refused} refused; failed: {failed:#?}"
        );
        let mut thrift = Thrift::start(&thrift);
        let (allowed, refused, succeeded, failed) = run_matrix(&admin, &mut thrift);
        assert!(
            allowed >= 50 && refused >= 40 && succeeded * 10 >= allowed * 9,
            "Thrift: {allowed} allowed ({succeeded} succeeded), {refused} refused; failed: {failed:#?}"
        );
    }));
    stop(running);
    if let Err(panic) = checked {
        std::panic::resume_unwind(panic);
    }
}
