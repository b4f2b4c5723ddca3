//! A cluster in one process speaks HBase's native protocol: `basalt master
//! --with-regionserver --hbase-port` serves the master's services (DDL, `hbase:meta`) on
//! that port and the region server's `ClientService` on a port of its own, which
//! `hbase:meta` names. Driven as a native client would: the real binary, over sockets,
//! with Basalt's own RPC client.

use crate::support;

use basalt_hbase::client::RpcClient;
use basalt_hbase::pb;
use bytes::Bytes;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::cluster::terminate;

fn table_name() -> pb::TableName {
    pb::TableName {
        namespace: Bytes::from_static(b"default"),
        qualifier: Bytes::from_static(b"native1"),
    }
}

fn region(name: Bytes) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
        value: name,
    }
}

/// The table's region name and the native address `hbase:meta` names for it, once it has one.
fn located(master: &mut RpcClient) -> Option<(Bytes, SocketAddr)> {
    let request = pb::ScanRequest {
        region: Some(region(Bytes::from_static(b"hbase:meta,,1"))),
        scan: Some(pb::Scan {
            start_row: Some(Bytes::from_static(b"native1,")),
            stop_row: Some(Bytes::from_static(b"native1,\x7f")),
            ..Default::default()
        }),
        number_of_rows: Some(10),
        close_scanner: Some(true),
        ..Default::default()
    };
    let response: pb::ScanResponse = master.ask("Scan", &request).ok()?;
    let result = response.results.first()?;
    let server = result
        .cell
        .iter()
        .find(|c| c.qualifier.as_deref() == Some(&b"server"[..]))?;
    let address = std::str::from_utf8(server.value.as_deref()?).ok()?;
    let address = address.replace("localhost", "127.0.0.1").parse().ok()?;
    Some((result.cell[0].row.clone()?, address))
}

#[test]
fn a_cluster_in_one_process_serves_the_native_protocol_on_both_servers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(["master", "--with-regionserver", "--coordinator"])
        .arg(format!("local://{}", dir.path().join("coord").display()))
        .arg("--store")
        .arg(format!("file://{}", dir.path().join("store").display()))
        .args(["--port", "0", "--regionserver-port", "0", "--web-port", "0"])
        .args(["--hbase-port", "0", "--zookeeper-port", "0"])
        .args(["--lease-ttl", "5", "--log", "warn"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn basalt master");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let (mut native, mut server) = (None, false);
    while native.is_none() || !server {
        let line = lines.next().expect("ready lines").expect("utf8");
        if let Some(addr) = line.strip_prefix("basalt hbase listening on ") {
            native = Some(addr.parse::<SocketAddr>().expect("an address"));
        }
        server |= line.starts_with("basalt regionserver ");
    }
    let native = native.expect("the master's native address");

    let mut master = RpcClient::connect(native, "MasterService").expect("connect");
    let create = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(table_name()),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"cf"),
                ..Default::default()
            }],
            ..Default::default()
        },
        split_keys: vec![],
        nonce_group: None,
        nonce: None,
    };
    let _: pb::ProcedureResponse = master.ask("CreateTable", &create).expect("created");

    let mut meta = RpcClient::connect(native, "ClientService").expect("connect");
    let deadline = Instant::now() + Duration::from_secs(30);
    let (name, address) = loop {
        if let Some(found) = located(&mut meta) {
            break found;
        }
        assert!(
            Instant::now() < deadline,
            "hbase:meta names a server for the region"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_ne!(address, native, "the region server has a port of its own");

    let mut data = RpcClient::connect(address, "ClientService").expect("connect");
    let put = pb::MutateRequest {
        region: region(name.clone()),
        mutation: pb::MutationProto {
            row: Some(Bytes::from_static(b"r1")),
            mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
            column_value: vec![pb::mutation_proto::ColumnValue {
                family: Bytes::from_static(b"cf"),
                qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                    qualifier: Some(Bytes::from_static(b"q")),
                    value: Some(Bytes::from_static(b"one")),
                    timestamp: None,
                    delete_type: None,
                }],
            }],
            ..Default::default()
        },
        condition: None,
        nonce_group: None,
    };
    let _: pb::MutateResponse = data.ask("Mutate", &put).expect("put");
    let get = pb::GetRequest {
        region: region(name),
        get: pb::Get {
            row: Bytes::from_static(b"r1"),
            ..Default::default()
        },
    };
    let got: pb::GetResponse = data.ask("Get", &get).expect("get");
    let value = got
        .result
        .and_then(|r| r.cell.first().and_then(|c| c.value.clone()));
    assert_eq!(value.as_deref(), Some(&b"one"[..]));
    terminate(&mut child);
}
