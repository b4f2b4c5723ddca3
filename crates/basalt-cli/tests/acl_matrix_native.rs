//! The ACL matrix through HBase's native RPC, as an unmodified HBase client reaches it:
//! `basalt standalone --auth` with TLS and verified client certificates (HBase 2.6's
//! native TLS), each user a certificate of its own name. Every matrix row the native
//! protocol's ClientService, MasterService and AdminService express is run as protobuf
//! calls over real sockets (`support::acl_matrix`): user `yes` granted exactly what one
//! scope needs is not refused, user `no` granted everything else there is refused with
//! `AccessDeniedException` naming him — as a call's exception, or a Multi action's.
//! 32 rows: 120 calls allowed, 115 refused.

use crate::support;
use basalt_acl::Op;
use basalt_client::{ClientConfig, Credentials, RemoteConnection};
use basalt_hbase::client::{CallError, RpcClient};
use basalt_hbase::pb;
use basalt_net::tls::ClientTls;
use bytes::Bytes;
use prost::Message;
use std::collections::HashMap;
use std::net::SocketAddr;
use support::acl_matrix::{run_matrix, Gateway, Outcome};
use support::tls::TlsFiles;
use support::{start_with, stop, user};

struct Native {
    addr: SocketAddr,
    /// Each user's TLS settings: its own certificate.
    tls: HashMap<String, ClientTls>,
    made: usize,
}

fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

fn ns_t() -> pb::TableName {
    pb::TableName {
        namespace: b("ns"),
        qualifier: b("t"),
    }
}

fn region(name: Bytes) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
        value: name,
    }
}

fn family(name: &str) -> pb::ColumnFamilySchema {
    pb::ColumnFamilySchema {
        name: b(name),
        ..Default::default()
    }
}

/// A mutation of one cell `f:q` of `row`.
fn mutation(
    kind: pb::mutation_proto::MutationType,
    row: &str,
    q: &str,
    v: &[u8],
) -> pb::MutationProto {
    let delete = kind == pb::mutation_proto::MutationType::Delete;
    pb::MutationProto {
        row: Some(b(row)),
        mutate_type: Some(kind as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: b("f"),
            qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                qualifier: Some(b(q)),
                value: (!delete).then(|| Bytes::copy_from_slice(v)),
                timestamp: None,
                delete_type: delete
                    .then_some(pb::mutation_proto::DeleteType::DeleteMultipleVersions as i32),
            }],
        }],
        ..Default::default()
    }
}

/// `f:a` of r1 equals "1".
fn condition() -> pb::Condition {
    let comparator = pb::BinaryComparator {
        comparable: pb::ByteArrayComparable {
            value: Some(b("1")),
        },
    };
    pb::Condition {
        row: b("r1"),
        family: Some(b("f")),
        qualifier: Some(b("a")),
        compare_type: Some(pb::CompareType::Equal as i32),
        comparator: Some(pb::Comparator {
            name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
            serialized_comparator: Some(comparator.encode_to_vec().into()),
        }),
        ..Default::default()
    }
}

fn outcome(answer: Result<Bytes, CallError>) -> Outcome {
    match answer {
        Ok(_) => Outcome::Ok,
        Err(CallError::Remote(e)) if e.class.ends_with("AccessDeniedException") => {
            Outcome::Denied(e.message)
        }
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// A Multi answer: the first action's or region's exception decides.
fn multi_outcome(answer: Result<Bytes, CallError>) -> Outcome {
    let bytes = match answer {
        Ok(bytes) => bytes,
        other => return outcome(other),
    };
    let response = pb::MultiResponse::decode(bytes).expect("a MultiResponse");
    let exception = response.region_action_result.iter().find_map(|r| {
        r.exception.clone().or_else(|| {
            r.result_or_exception
                .iter()
                .find_map(|a| a.exception.clone())
        })
    });
    match exception {
        None => Outcome::Ok,
        Some(e) => {
            let message = String::from_utf8_lossy(e.value.as_deref().unwrap_or_default());
            match e.name.ends_with("AccessDeniedException") {
                true => Outcome::Denied(message.into_owned()),
                false => Outcome::Failed(format!("{}: {message}", e.name)),
            }
        }
    }
}

impl Native {
    fn client(&self, user: &str, service: &str) -> RpcClient {
        RpcClient::connect_tls(self.addr, service, &self.tls[user]).expect("connect")
    }

    /// The name of `ns:t`'s first region, from `hbase:meta` (it changes when the fixture
    /// is rebuilt).
    fn region_of_t(&self) -> Bytes {
        let request = pb::ScanRequest {
            region: Some(region(b("hbase:meta,,1"))),
            scan: Some(pb::Scan {
                start_row: Some(b("ns:t,")),
                stop_row: Some(b("ns:t,\x7f")),
                ..Default::default()
            }),
            number_of_rows: Some(1),
            close_scanner: Some(true),
            ..Default::default()
        };
        let mut meta = self.client("admin", "ClientService");
        let response: pb::ScanResponse = meta.ask("Scan", &request).expect("a meta scan");
        response.results[0].cell[0]
            .row
            .clone()
            .expect("a region name")
    }

    fn data_call(&self, user: &str, op: Op) -> Option<Outcome> {
        use pb::mutation_proto::MutationType::{Append, Delete, Increment, Put};
        let name = self.region_of_t();
        let mut client = self.client(user, "ClientService");
        let get = |existence_only| pb::GetRequest {
            region: region(name.clone()),
            get: pb::Get {
                row: b("r1"),
                column: vec![pb::Column {
                    family: b("f"),
                    qualifier: vec![b("a")],
                }],
                existence_only: Some(existence_only),
                ..Default::default()
            },
        };
        let mutate = |mutation, condition| pb::MutateRequest {
            region: region(name.clone()),
            mutation,
            condition,
            nonce_group: None,
        };
        let answer = match op {
            Op::Get => client.call("Get", &get(false)),
            Op::Exists => client.call("Get", &get(true)),
            Op::Scan => client.call(
                "Scan",
                &pb::ScanRequest {
                    region: Some(region(name.clone())),
                    scan: Some(pb::Scan {
                        column: vec![pb::Column {
                            family: b("f"),
                            qualifier: vec![b("a")],
                        }],
                        ..Default::default()
                    }),
                    number_of_rows: Some(10),
                    close_scanner: Some(true),
                    ..Default::default()
                },
            ),
            Op::Put => client.call("Mutate", &mutate(mutation(Put, "r2", "a", b"x"), None)),
            Op::Delete => client.call("Mutate", &mutate(mutation(Delete, "r2", "a", b""), None)),
            Op::Increment => client.call(
                "Mutate",
                &mutate(mutation(Increment, "r1", "n", &1i64.to_be_bytes()), None),
            ),
            Op::Append => client.call("Mutate", &mutate(mutation(Append, "r2", "a", b"y"), None)),
            Op::CheckAndMutate => client.call(
                "Mutate",
                &mutate(mutation(Put, "r1", "a", b"1"), Some(condition())),
            ),
            Op::MutateRow => {
                let request = pb::MultiRequest {
                    region_action: vec![pb::RegionAction {
                        region: region(name.clone()),
                        atomic: Some(true),
                        action: vec![pb::Action {
                            index: Some(0),
                            mutation: Some(mutation(Put, "r3", "a", b"z")),
                            get: None,
                        }],
                        condition: None,
                    }],
                    ..Default::default()
                };
                return Some(multi_outcome(client.call("Multi", &request)));
            }
            _ => return None,
        };
        Some(outcome(answer))
    }

    fn master_call(&mut self, user: &str, op: Op) -> Option<Outcome> {
        let table = || pb::TableNameRequest { table_name: ns_t() };
        let namespace = |name: &str| pb::CreateNamespaceRequest {
            namespace_descriptor: pb::NamespaceDescriptor {
                name: b(name),
                configuration: Vec::new(),
            },
        };
        // What the embedded cases' own calls do first, done here as admin: a table is
        // disabled before it is deleted or truncated, the family to add is not there yet,
        // the family to delete is.
        match op {
            Op::DeleteTable | Op::TruncateTable => {
                self.as_admin("DisableTable", table().encode_to_vec())
            }
            Op::AddFamily => {
                let drop_x = pb::DeleteColumnRequest {
                    table_name: ns_t(),
                    column_name: b("x"),
                };
                self.as_admin("DeleteColumn", drop_x.encode_to_vec())
            }
            Op::DeleteFamily => {
                let add_h = pb::AddColumnRequest {
                    table_name: ns_t(),
                    column_families: family("h"),
                };
                self.as_admin("AddColumn", add_h.encode_to_vec())
            }
            _ => {}
        }
        let (method, request): (&str, Vec<u8>) = match op {
            Op::CreateTable => {
                let made = self.next();
                let schema = pb::TableSchema {
                    table_name: Some(pb::TableName {
                        namespace: b("ns"),
                        qualifier: b(&format!("made_native{made}")),
                    }),
                    column_families: vec![family("f")],
                    ..Default::default()
                };
                let request = pb::CreateTableRequest {
                    table_schema: schema,
                    ..Default::default()
                };
                ("CreateTable", request.encode_to_vec())
            }
            Op::DeleteTable => ("DeleteTable", table().encode_to_vec()),
            Op::EnableTable => ("EnableTable", table().encode_to_vec()),
            Op::DisableTable => ("DisableTable", table().encode_to_vec()),
            Op::IsTableEnabled => ("GetTableState", table().encode_to_vec()),
            Op::TruncateTable => {
                let request = pb::TruncateTableRequest {
                    table_name: ns_t(),
                    preserve_splits: Some(true),
                };
                ("truncateTable", request.encode_to_vec())
            }
            Op::DescribeTable => {
                let request = pb::GetTableDescriptorsRequest {
                    table_names: vec![ns_t()],
                    ..Default::default()
                };
                ("GetTableDescriptors", request.encode_to_vec())
            }
            Op::ListTables => (
                "GetTableNames",
                pb::GetTableNamesRequest::default().encode_to_vec(),
            ),
            Op::CreateNamespace => {
                let name = format!("made_native{}", self.next());
                ("CreateNamespace", namespace(&name).encode_to_vec())
            }
            Op::DeleteNamespace => {
                let request = pb::DeleteNamespaceRequest {
                    namespace_name: "nothere".into(),
                };
                ("DeleteNamespace", request.encode_to_vec())
            }
            Op::ModifyNamespace => ("ModifyNamespace", namespace("ns").encode_to_vec()),
            Op::DescribeNamespace => {
                let request = pb::GetNamespaceDescriptorRequest {
                    namespace_name: "ns".into(),
                };
                ("GetNamespaceDescriptor", request.encode_to_vec())
            }
            Op::ListNamespaces => ("ListNamespaceDescriptors", Vec::new()),
            Op::AddFamily | Op::ModifyFamily => {
                let request = pb::AddColumnRequest {
                    table_name: ns_t(),
                    column_families: family(if op == Op::AddFamily { "x" } else { "g" }),
                };
                let method = if op == Op::AddFamily {
                    "AddColumn"
                } else {
                    "ModifyColumn"
                };
                (method, request.encode_to_vec())
            }
            Op::DeleteFamily => {
                let request = pb::DeleteColumnRequest {
                    table_name: ns_t(),
                    column_name: b("h"),
                };
                ("DeleteColumn", request.encode_to_vec())
            }
            Op::BalancerEnabled => ("IsBalancerEnabled", Vec::new()),
            Op::BalanceSwitch => {
                let request = pb::SetBalancerRunningRequest {
                    on: true,
                    synchronous: None,
                };
                ("SetBalancerRunning", request.encode_to_vec())
            }
            Op::Balance => ("Balance", Vec::new()),
            Op::ClusterStatus => ("GetClusterStatus", Vec::new()),
            Op::Split => {
                let request = pb::SplitTableRegionRequest {
                    region_info: pb::RegionInfo {
                        region_id: 0,
                        table_name: ns_t(),
                        ..Default::default()
                    },
                    // A new key each time, inside the last region.
                    split_row: Some(b(&format!("r5{}", self.next()))),
                };
                ("SplitRegion", request.encode_to_vec())
            }
            _ => return None,
        };
        let mut client = self.client(user, "MasterService");
        Some(outcome(client.call(method, &Raw(request))))
    }

    fn next(&mut self) -> usize {
        self.made += 1;
        self.made
    }

    /// A MasterService call as admin whose outcome does not matter (a set-up step).
    fn as_admin(&self, method: &str, request: Vec<u8>) {
        let _ = self
            .client("admin", "MasterService")
            .call(method, &Raw(request));
    }

    fn admin_call(&self, user: &str, op: Op) -> Option<Outcome> {
        let name = self.region_of_t();
        let mut client = self.client(user, "AdminService");
        let answer = match op {
            Op::FlushRegion => client.call(
                "FlushRegion",
                &pb::FlushRegionRequest {
                    region: region(name),
                    ..Default::default()
                },
            ),
            Op::CompactRegion => client.call(
                "CompactRegion",
                &pb::CompactRegionRequest {
                    region: region(name),
                    ..Default::default()
                },
            ),
            _ => return None,
        };
        Some(outcome(answer))
    }
}

/// An already encoded request message.
#[derive(Debug, Default, Clone, PartialEq)]
struct Raw(Vec<u8>);

impl Message for Raw {
    fn encode_raw(&self, buf: &mut impl bytes::BufMut) {
        buf.put_slice(&self.0);
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: prost::encoding::WireType,
        buf: &mut impl bytes::Buf,
        ctx: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        // Only ever sent; a decode keeps nothing.
        prost::encoding::skip_field(wire_type, tag, buf, ctx)
    }
    fn encoded_len(&self) -> usize {
        self.0.len()
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

impl Gateway for Native {
    fn name(&self) -> &'static str {
        "native"
    }

    fn run(&mut self, user: &str, op: Op) -> Option<Outcome> {
        self.data_call(user, op)
            .or_else(|| self.admin_call(user, op))
            .or_else(|| self.master_call(user, op))
    }
}

#[test]
fn every_matrix_row_the_native_protocol_expresses_allows_each_scope_and_refuses_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir");
    let tls_files = TlsFiles::new(files.path(), true, "");
    let ca = &tls_files.ca;
    user(dir.path(), &["add", "admin", "--superuser"], "adminpw\n");
    let mut tls = HashMap::new();
    for (serial, who) in ["admin", "yes", "no"].into_iter().enumerate() {
        let (cert, key) = ca.issue(who, who, "", 2 + serial as u64);
        let loaded = ClientTls::load(&ca.cert, Some((&cert, &key))).expect("client TLS");
        tls.insert(who.to_string(), loaded);
    }
    let running = start_with(dir.path(), &["--auth", "--config", tls_files.config_arg()]);
    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let client = ClientConfig::default()
            .with_tls(ClientTls::load(&ca.cert, None).expect("TLS"))
            .with_credentials(Credentials::Password {
                user: "admin".into(),
                password: "adminpw".into(),
            });
        let admin = RemoteConnection::connect_with(&running.addr, client).expect("connect");
        let addr = running
            .sidecar_addr("hbase")
            .expect("native RPC runs with client certificates")
            .parse()
            .expect("an address");
        let mut native = Native { addr, tls, made: 0 };
        let (allowed, refused, succeeded, failed) = run_matrix(&admin, &mut native);
        eprintln!("native: {allowed} allowed ({succeeded} succeeded), {refused} refused");
        assert!(
            allowed >= 110 && refused >= 105 && succeeded * 10 >= allowed * 9,
            "native: {allowed} allowed ({succeeded} succeeded), {refused} refused; failed: {failed:#?}"
        );
    }));
    stop(running);
    if let Err(panic) = checked {
        std::panic::resume_unwind(panic);
    }
}
