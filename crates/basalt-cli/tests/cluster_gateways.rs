//! The gateways and the shell in front of a cluster, driven by other people's clients:
//! happybase through `basalt thrift --connect`, the npm `hbase` client through
//! `basalt rest --connect`, and the HBase shell through `basalt shell --connect`, each
//! given the two masters' addresses.

use crate::support;

use std::io::Write;
use support::cluster::{terminate, Cluster};
use support::gateways;

/// One HTTP/1.1 GET (JSON); the body.
fn http_get(addr: &str, path: &str) -> String {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    response
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_string()
}

#[test]
fn happybase_the_npm_client_and_the_shell_work_against_a_cluster() {
    let cluster = Cluster::start(2, 3);
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(|| {
        let (mut thrift, addr) = gateways::start_gateway(
            &[
                "thrift",
                "--port",
                "0",
                "--log",
                "warn",
                "--connect",
                &masters,
            ],
            "thrift",
        );
        let thrift_outcome =
            std::panic::catch_unwind(|| gateways::happybase(&addr, "buffered", "binary"));
        assert!(
            terminate(&mut thrift).success(),
            "basalt thrift stops cleanly"
        );
        if let Err(panic) = thrift_outcome {
            std::panic::resume_unwind(panic);
        }

        let (mut rest, addr) = gateways::start_gateway(
            &[
                "rest",
                "--port",
                "0",
                "--log",
                "warn",
                "--connect",
                &masters,
            ],
            "rest",
        );
        let rest_outcome = std::panic::catch_unwind(|| gateways::node_hbase(&addr));
        assert!(terminate(&mut rest).success(), "basalt rest stops cleanly");
        if let Err(panic) = rest_outcome {
            std::panic::resume_unwind(panic);
        }

        let script = "create 'shelled', 'f', SPLITS => ['g', 'p']\n\
                      put 'shelled', 'a', 'f:q', 'one'\n\
                      put 'shelled', 'm', 'f:q', 'two'\n\
                      put 'shelled', 'x', 'f:q', 'three'\n\
                      get 'shelled', 'm'\n\
                      scan 'shelled'\n\
                      count 'shelled'\n\
                      balancer\n\
                      status\n\
                      status 'detailed'\n";
        let printed = support::shell(&masters, script);
        assert!(printed.contains("value=two"), "{printed}");
        assert!(printed.contains("3 row(s)"), "{printed}");
        assert!(
            printed.contains("1 active master, 1 backup masters, 3 servers, 0 dead"),
            "{printed}"
        );
        assert!(printed.contains("3 live servers"), "{printed}");
        assert!(
            printed.contains("\"shelled,g,"),
            "detailed names the regions: {printed}"
        );
        for row in ["a", "m", "x"] {
            assert!(
                printed.contains(&format!(" {row}  ")) || printed.contains(&format!(" {row} ")),
                "{row} in {printed}"
            );
        }

        // REST's /<table>/regions names each region's server as host:port, as HBase's does.
        let (mut rest, addr) = gateways::start_gateway(
            &[
                "rest",
                "--port",
                "0",
                "--log",
                "warn",
                "--connect",
                &masters,
            ],
            "rest",
        );
        let regions = http_get(&addr, "/shelled/regions");
        assert!(terminate(&mut rest).success());
        let locations: Vec<&str> = regions
            .split("\"location\":\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert_eq!(locations.len(), 3, "{regions}");
        for location in locations {
            let (host, port) = location.rsplit_once(':').expect("host:port");
            assert!(
                host.starts_with("127.0.0.") && port.parse::<u16>().is_ok_and(|p| p > 0),
                "{location}"
            );
        }
    });
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
