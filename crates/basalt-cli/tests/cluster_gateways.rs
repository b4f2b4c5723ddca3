//! The gateways and the shell in front of a cluster, driven by other people's clients:
//! happybase through `basalt thrift --connect`, the npm `hbase` client through
//! `basalt rest --connect`, and the HBase shell through `basalt shell --connect`, each
//! given the two masters' addresses.

mod support;

use std::io::Write;
use std::process::{Command, Stdio};
use support::cluster::{terminate, Cluster};
use support::gateways;

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
                      balancer\n";
        let mut shell = Command::new(env!("CARGO_BIN_EXE_basalt"))
            .args(["shell", "--connect", &masters])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the shell");
        shell
            .stdin
            .take()
            .expect("stdin")
            .write_all(script.as_bytes())
            .expect("script");
        let out = shell.wait_with_output().expect("the shell runs");
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{printed}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(printed.contains("value=two"), "{printed}");
        assert!(printed.contains("3 row(s)"), "{printed}");
        for row in ["a", "m", "x"] {
            assert!(
                printed.contains(&format!(" {row}  ")) || printed.contains(&format!(" {row} ")),
                "{row} in {printed}"
            );
        }
    });
    if let Err(panic) = outcome {
        eprintln!("{}", cluster.logs());
        std::panic::resume_unwind(panic);
    }
}
