//! A real cluster for tests: 3 etcd members, masters on 127.0.0.1 and region servers on
//! 127.0.0.2…, all `basalt` processes over one shared store folder.

use basalt_coord::testing::EtcdCluster;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Proc {
    pub child: Child,
    /// `host:port` of its RPC.
    pub addr: String,
    /// A region server's name `host,port,startcode`.
    pub name: String,
    /// What it printed before its ready line (`basalt hbase listening on …`).
    pub printed: Vec<String>,
    pub log: PathBuf,
    /// `host:port` of its web UI (every process gets `--web-port 0`).
    pub web: Option<String>,
}

pub struct Cluster {
    pub etcd: EtcdCluster,
    pub store: tempfile::TempDir,
    /// The `--store` flags (and environment) every process gets: the shared folder, or an
    /// S3-compatible server ([`Cluster::start_on_s3`]).
    store_args: Vec<String>,
    store_env: Vec<(String, String)>,
    _moto: Option<basalt_store::testing::MotoServer>,
    pub logs: tempfile::TempDir,
    pub masters: Vec<Proc>,
    pub servers: Vec<Proc>,
    started: usize,
    /// Where masters listen: 127.0.0.1, or an address a network namespace reaches
    /// ([`Cluster::start_beside`]).
    master_host: String,
    /// Arguments every process gets besides the usual ones (`--config FILE`).
    extra_args: Vec<String>,
    /// Arguments masters alone get (`--hbase-port 0`).
    pub master_args: Vec<String>,
    /// Arguments region servers alone get.
    pub server_args: Vec<String>,
    /// What the harness's own client presents (with authentication required).
    credentials: Option<basalt_client::Credentials>,
}

/// The ready line's rest after `prefix`, the web UI's address when printed before it,
/// and every line printed before it.
fn wait_ready(
    child: &mut Child,
    prefix: &str,
    log: &std::path::Path,
) -> (String, Option<String>, Vec<String>) {
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut web = None;
    let mut printed = Vec::new();
    loop {
        match lines.next() {
            Some(Ok(line)) => {
                if let Some(addr) = line.strip_prefix("basalt web listening on ") {
                    web = Some(addr.to_string());
                } else if let Some(rest) = line.strip_prefix(prefix) {
                    return (rest.to_string(), web, printed);
                }
                printed.push(line);
            }
            _ => panic!(
                "the process exited before it was ready; its log:\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            ),
        }
    }
}

impl Cluster {
    /// Starts etcd, `masters` masters and `servers` region servers (on 127.0.0.2…).
    pub fn start(masters: usize, servers: usize) -> Self {
        Self::start_with(masters, servers, None, &[])
    }

    /// As [`Cluster::start`], every process also given `extra` (`--config FILE`).
    pub fn start_with_args(masters: usize, servers: usize, extra: &[&str]) -> Self {
        Self::start_with(masters, servers, None, extra)
    }

    /// As [`Cluster::start`], every file on an S3-compatible server (moto) instead.
    pub fn start_on_s3(masters: usize, servers: usize) -> Self {
        let moto = basalt_store::testing::MotoServer::start().expect("moto starts");
        Self::start_with(masters, servers, Some(moto), &[])
    }

    /// As [`Cluster::start`], reachable from inside `netns` as well: etcd also takes clients
    /// on the root side of its etcd pair, and the masters listen on the root side of its
    /// client pair (with `--insecure`: not loopback). Start a server inside it with
    /// [`Cluster::start_server_in`].
    pub fn start_beside(netns: &super::netns::Netns, masters: usize, servers: usize) -> Self {
        let etcd = EtcdCluster::start_also_on(&netns.etcd.root_addr).expect("etcd starts");
        Self::start_on_etcd(etcd, &netns.clients.root_addr, masters, servers, None, &[])
    }

    fn start_with(
        masters: usize,
        servers: usize,
        moto: Option<basalt_store::testing::MotoServer>,
        extra: &[&str],
    ) -> Self {
        let etcd = EtcdCluster::start().expect("etcd starts");
        Self::start_on_etcd(etcd, "127.0.0.1", masters, servers, moto, extra)
    }

    /// As [`Cluster::start`] with authentication required: every process reads `config`
    /// (its `[security]` has `auth = "required"` and the cluster secret `secret`, which the
    /// harness's own client presents).
    pub fn start_secured(
        masters: usize,
        servers: usize,
        config: &std::path::Path,
        secret: &str,
    ) -> Self {
        let etcd = EtcdCluster::start().expect("etcd starts");
        let config = config.to_str().expect("utf-8 path");
        let credentials = basalt_client::Credentials::ClusterSecret(secret.to_string());
        Self::start_as(
            etcd,
            "127.0.0.1",
            (masters, servers),
            None,
            &["--config", config],
            Some(credentials),
        )
    }

    fn start_on_etcd(
        etcd: EtcdCluster,
        master_host: &str,
        masters: usize,
        servers: usize,
        moto: Option<basalt_store::testing::MotoServer>,
        extra: &[&str],
    ) -> Self {
        Self::start_as(etcd, master_host, (masters, servers), moto, extra, None)
    }

    fn start_as(
        etcd: EtcdCluster,
        master_host: &str,
        (masters, servers): (usize, usize),
        moto: Option<basalt_store::testing::MotoServer>,
        extra: &[&str],
        credentials: Option<basalt_client::Credentials>,
    ) -> Self {
        let store = tempfile::tempdir().expect("store dir");
        let (store_args, store_env) = match &moto {
            None => (
                vec![
                    "--store".to_string(),
                    format!("file://{}", store.path().display()),
                ],
                vec![],
            ),
            Some(moto) => (
                vec![
                    "--store".to_string(),
                    moto.url("cluster"),
                    "--store-endpoint".to_string(),
                    moto.endpoint(),
                ],
                vec![
                    ("AWS_ACCESS_KEY_ID".to_string(), "testing".to_string()),
                    ("AWS_SECRET_ACCESS_KEY".to_string(), "testing".to_string()),
                    ("AWS_REGION".to_string(), "us-east-1".to_string()),
                ],
            ),
        };
        let mut cluster = Self {
            etcd,
            store,
            store_args,
            store_env,
            _moto: moto,
            logs: tempfile::tempdir().expect("log dir"),
            masters: Vec::new(),
            servers: Vec::new(),
            started: 0,
            master_host: master_host.to_string(),
            extra_args: extra.iter().map(|a| a.to_string()).collect(),
            master_args: Vec::new(),
            server_args: Vec::new(),
            credentials,
        };
        for _ in 0..masters {
            cluster.start_master();
        }
        for i in 0..servers {
            cluster.start_server(&format!("127.0.0.{}", i + 2));
        }
        cluster
    }

    pub fn coordinator(&self) -> String {
        let endpoints: Vec<String> = self
            .etcd
            .endpoints()
            .iter()
            .map(|e| e.trim_start_matches("http://").to_string())
            .collect();
        format!("etcd://{}", endpoints.join(","))
    }

    /// The `--store` URL every process gets.
    pub fn store_url(&self) -> String {
        self.store_args[1].clone()
    }

    /// The `--store` flags every process gets (with `--store-endpoint` on S3).
    pub fn store_args(&self) -> &[String] {
        &self.store_args
    }

    /// The environment every process gets (the S3 credentials on S3).
    pub fn store_env(&self) -> &[(String, String)] {
        &self.store_env
    }

    /// The S3-compatible server of a cluster started with [`Cluster::start_on_s3`].
    pub fn moto(&self) -> Option<&basalt_store::testing::MotoServer> {
        self._moto.as_ref()
    }

    fn spawn(&mut self, args: &[&str], ready: &str) -> Proc {
        let coordinator = self.coordinator();
        self.spawn_via(&[], &coordinator, args, ready)
    }

    /// Runs `prefix… basalt args…` (a prefix such as `ip netns exec NAME`: it must exec the
    /// binary, so that the child is the server itself).
    fn spawn_via(
        &mut self,
        prefix: &[String],
        coordinator: &str,
        args: &[&str],
        ready: &str,
    ) -> Proc {
        self.started += 1;
        let log = self
            .logs
            .path()
            .join(format!("{}-{}.log", args[0], self.started));
        let mut command = match prefix.split_first() {
            None => Command::new(env!("CARGO_BIN_EXE_basalt")),
            Some((program, rest)) => {
                let mut command = Command::new(program);
                command.args(rest).arg(env!("CARGO_BIN_EXE_basalt"));
                command
            }
        };
        let lease = match self.extra_args.iter().any(|a| a == "--lease-ttl") {
            true => vec![],
            false => vec!["--lease-ttl", "5"],
        };
        let mut child = command
            .args(args)
            .args(["--coordinator", coordinator])
            .args(&self.store_args)
            .envs(self.store_env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .args(["--log", "info,basalt=debug"])
            .args(lease)
            .args(&self.extra_args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("spawn basalt");
        let (line, web, printed) = wait_ready(&mut child, ready, &log);
        let (name, addr) = match line.split_once(" listening on ") {
            Some((name, addr)) => (name.to_string(), addr.to_string()),
            None => (String::new(), line),
        };
        Proc {
            child,
            addr,
            name,
            printed,
            log,
            web,
        }
    }

    pub fn start_master(&mut self) -> &Proc {
        self.start_master_balancing_every(3600)
    }

    /// A master started with `env` added to its environment (test knobs such as
    /// `BASALT_TEST_MASTER_CRASH_AT`).
    pub fn start_master_with_env(&mut self, env: &[(&str, &str)]) -> &Proc {
        let added = env.len();
        self.store_env
            .extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        self.start_master_on("127.0.0.1:0", 3600);
        let kept = self.store_env.len() - added;
        self.store_env.truncate(kept);
        self.masters.last().expect("started")
    }

    /// As [`Cluster::start_master_with_env`], also given `args` (`--lease-ttl 3`: a
    /// standby takes over from it sooner).
    pub fn start_master_with_env_and_args(&mut self, env: &[(&str, &str)], args: &[&str]) -> &Proc {
        let added = args.len();
        self.extra_args.extend(args.iter().map(|a| a.to_string()));
        self.start_master_with_env(env);
        let kept = self.extra_args.len() - added;
        self.extra_args.truncate(kept);
        self.masters.last().expect("started")
    }

    /// A master whose periodic balancer runs every `seconds`.
    pub fn start_master_balancing_every(&mut self, seconds: u64) -> &Proc {
        let addr = format!("{}:0", self.master_host);
        self.start_master_on(&addr, seconds)
    }

    /// A master again at `addr` (`host:port`), where clients were told to look: one that
    /// died, started anew.
    pub fn restart_master_at(&mut self, addr: &str) -> &Proc {
        self.start_master_on(addr, 3600)
    }

    fn start_master_on(&mut self, addr: &str, balance_every: u64) -> &Proc {
        let (host, port) = addr.rsplit_once(':').expect("host:port");
        let period = balance_every.to_string();
        let mut args = vec![
            "master",
            "--bind",
            host,
            "--port",
            port,
            "--web-port",
            "0",
            "--balancer-period",
            &period,
            "--split-check-period",
            "1",
        ];
        if !host.starts_with("127.") {
            args.push("--insecure");
        }
        let own = self.master_args.clone();
        args.extend(own.iter().map(String::as_str));
        let proc = self.spawn(&args, "basalt master listening on ");
        self.masters.push(proc);
        self.masters.last().expect("pushed")
    }

    pub fn start_server(&mut self, host: &str) -> &Proc {
        self.start_server_at(&format!("{host}:0"))
    }

    /// A region server on `addr` (`host:port`; port 0 for any).
    pub fn start_server_at(&mut self, addr: &str) -> &Proc {
        let (host, port) = addr.rsplit_once(':').expect("host:port");
        let mut args = vec![
            "regionserver",
            "--bind",
            host,
            "--port",
            port,
            "--web-port",
            "0",
        ];
        let own = self.server_args.clone();
        args.extend(own.iter().map(String::as_str));
        let proc = self.spawn(&args, "basalt regionserver ");
        let name = proc.name.clone();
        self.servers.push(proc);
        self.wait_live(&name);
        self.servers.last().expect("pushed")
    }

    /// A region server inside `netns`, listening on its client pair's address and reaching
    /// etcd through its etcd pair only.
    pub fn start_server_in(&mut self, netns: &super::netns::Netns) -> &Proc {
        let endpoints: Vec<String> = self
            .etcd
            .endpoints_on()
            .iter()
            .map(|e| e.trim_start_matches("http://").to_string())
            .collect();
        let coordinator = format!("etcd://{}", endpoints.join(","));
        let proc = self.spawn_via(
            &netns.exec_prefix(),
            &coordinator,
            &[
                "regionserver",
                "--bind",
                &netns.clients.ns_addr,
                "--insecure",
                "--port",
                "0",
                "--web-port",
                "0",
            ],
            "basalt regionserver ",
        );
        let name = proc.name.clone();
        self.servers.push(proc);
        self.wait_live(&name);
        self.servers.last().expect("pushed")
    }

    /// Waits until the active master counts `name` among its live servers: a server
    /// registers before the master's watch hears of it, and a table created in between
    /// would not be spread over it.
    pub fn wait_live(&self, name: &str) {
        use basalt_api::Connection;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let config = basalt_client::ClientConfig {
            credentials: self.credentials.clone(),
            ..Default::default()
        };
        let conn = basalt_client::RemoteConnection::connect_with(&self.masters_arg(), config)
            .expect("connect to the masters");
        loop {
            let status = conn.admin().cluster_status();
            if let Ok(Some(status)) = &status {
                if status.servers.iter().any(|s| s.name == name) {
                    return;
                }
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the master never listed {name}: {status:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// The masters' addresses, as a client is given them.
    pub fn masters_arg(&self) -> String {
        self.masters
            .iter()
            .map(|m| m.addr.clone())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// SIGTERM to region server `i` and wait for it to exit (it drains first).
    pub fn stop_server(&mut self, i: usize) -> std::process::ExitStatus {
        let mut proc = self.servers.remove(i);
        terminate(&mut proc.child)
    }

    /// Prints every process's log, then the panic's message again (so that the tail of
    /// a failed run names what failed), and goes on panicking.
    pub fn fail_with_logs(&self, panic: Box<dyn std::any::Any + Send>) -> ! {
        eprintln!("{}", self.logs());
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("(a panic without a message)");
        eprintln!("==== the test failed (its logs are above): {message}");
        // Also straight to the process's stderr, past the harness's capture: the reason
        // then shows beside the test's FAILED line in a long run's output, not only in the
        // failures section at its end.
        let short: String = message.chars().take(2000).collect();
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("==== a cluster test failed: {short}\n").as_bytes(),
        );
        std::panic::resume_unwind(panic)
    }

    /// Every process's log, for a failure message: those running now and those killed or
    /// stopped along the way (a chaos run's culprit is often one that died since).
    pub fn logs(&self) -> String {
        let live: Vec<&std::path::Path> = self
            .masters
            .iter()
            .chain(&self.servers)
            .map(|p| p.log.as_path())
            .collect();
        let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(self.logs.path())
            .map(|dir| dir.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.retain(|f| f.extension().is_some_and(|x| x == "log"));
        files.sort();
        let mut out = String::new();
        for file in files {
            let state = if live.contains(&file.as_path()) {
                "running"
            } else {
                "ended"
            };
            out.push_str(&format!("==== {} ({state})\n", file.display()));
            out.push_str(&std::fs::read_to_string(&file).unwrap_or_default());
        }
        out
    }
}

/// SIGTERM, then wait (up to a minute) for the exit.
pub fn terminate(child: &mut Child) -> std::process::ExitStatus {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "process {} did not stop within a minute of SIGTERM",
                child.id()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sends `signal` (`STOP`, `CONT`, …) to `child`.
pub fn signal(child: &Child, signal: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success(), "kill -{signal} {}", child.id());
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for proc in self.servers.iter_mut().chain(self.masters.iter_mut()) {
            let _ = proc.child.kill();
            let _ = proc.child.wait();
        }
    }
}
