//! [`EtcdCluster`]: a real 3-member etcd cluster on 127.0.0.1 for tests (feature
//! `testing`).
//!
//! It runs `scripts/etcd.sh` (installing Debian's etcd first when it is missing), with the
//! data directories in a fresh temporary directory on tmpfs (`/dev/shm`) when there is
//! one: each member preallocates about 120 MB of WAL. Ports are picked so that clusters of
//! several test processes do not collide. Dropping the cluster kills its members (by the
//! pids the script recorded) and removes the directory.
//!
//! [`TlsEtcd`]: one member serving clients over TLS only and requiring client
//! certificates (`--client-cert-auth`), for the coordinator's TLS.

use std::io;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// Ports a cluster takes: client and peer for each of three members.
const PORTS_PER_CLUSTER: u16 = 6;
/// Base ports are picked in [PORT_FLOOR, PORT_FLOOR + PORT_SLOTS * 6).
const PORT_FLOOR: u16 = 20_000;
const PORT_SLOTS: u32 = 1_500;
const START_TRIES_MAX: usize = 5;

/// A running 3-member etcd cluster.
#[derive(Debug)]
pub struct EtcdCluster {
    dir: tempfile::TempDir,
    endpoints: Vec<String>,
    /// The extra address each member also takes clients on ([`EtcdCluster::start_also_on`]).
    host: Option<String>,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/etcd.sh")
}

/// Runs the script with `args`; its stdout, or an error carrying its stderr.
fn run(args: &[&str]) -> io::Result<String> {
    let output = Command::new("bash").arg(script()).args(args).output()?;
    if !output.status.success() {
        return Err(io::Error::other(format!(
            "scripts/etcd.sh {}: {}: {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Installs etcd once per process.
fn install() -> io::Result<()> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| run(&["install"]).map(|_| ()).map_err(|e| e.to_string()))
        .clone()
        .map_err(io::Error::other)
}

/// A base port whose six ports are free right now, different for each call in a process
/// and spread by process id across processes.
fn free_base_port() -> io::Result<u16> {
    static CALLS: AtomicU32 = AtomicU32::new(0);
    let seed = std::process::id().wrapping_mul(7919);
    for _ in 0..PORT_SLOTS {
        let call = CALLS.fetch_add(1, Ordering::Relaxed);
        let slot = seed.wrapping_add(call.wrapping_mul(104_729)) % PORT_SLOTS;
        // Below 20_000 + 1_500 * 6 = 29_000: fits in u16.
        let base = PORT_FLOOR + (slot as u16) * PORTS_PER_CLUSTER;
        let free =
            (0..PORTS_PER_CLUSTER).all(|i| TcpListener::bind(("127.0.0.1", base + i)).is_ok());
        if free {
            return Ok(base);
        }
    }
    Err(io::Error::other(format!(
        "no six free ports in a row between {PORT_FLOOR} and {} on 127.0.0.1",
        u32::from(PORT_FLOOR) + PORT_SLOTS * u32::from(PORTS_PER_CLUSTER)
    )))
}

impl EtcdCluster {
    /// Starts a new cluster (and installs etcd when it is missing).
    pub fn start() -> io::Result<Self> {
        Self::start_with(None)
    }

    /// As [`EtcdCluster::start`], each member also taking clients on `host` (an address of
    /// this machine, such as one end of a veth pair into a network namespace) at its client
    /// port: see [`EtcdCluster::endpoints_on`].
    pub fn start_also_on(host: &str) -> io::Result<Self> {
        Self::start_with(Some(host))
    }

    fn start_with(host: Option<&str>) -> io::Result<Self> {
        install()?;
        let parent = Path::new("/dev/shm");
        let mut last = None;
        for _ in 0..START_TRIES_MAX {
            let dir = if parent.is_dir() {
                tempfile::Builder::new()
                    .prefix("basalt-etcd-")
                    .tempdir_in(parent)?
            } else {
                tempfile::Builder::new().prefix("basalt-etcd-").tempdir()?
            };
            let base = free_base_port()?.to_string();
            let path = dir.path().to_string_lossy().to_string();
            let mut args = vec!["start", &path, &base];
            args.extend(host);
            match run(&args) {
                Ok(out) => {
                    let endpoints = out.split(',').map(str::to_string).collect();
                    tracing::info!(dir = %path, %out, "etcd cluster started");
                    return Ok(Self {
                        dir,
                        endpoints,
                        host: host.map(str::to_string),
                    });
                }
                Err(error) => {
                    // Most likely a port taken between the check and the start.
                    let _ = run(&["stop", &path]);
                    last = Some(error);
                }
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("etcd did not start")))
    }

    /// A cluster shared by the tests of this process that run at the same time: the first
    /// caller starts it, the last holder to drop it stops it. For tests that leave every
    /// member running (tests that kill members start their own).
    pub fn shared() -> io::Result<Arc<Self>> {
        static SHARED: Mutex<Weak<EtcdCluster>> = Mutex::new(Weak::new());
        // Held while starting, so that concurrent callers get the same cluster.
        let mut shared = SHARED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(cluster) = shared.upgrade() {
            return Ok(cluster);
        }
        let cluster = Arc::new(Self::start()?);
        *shared = Arc::downgrade(&cluster);
        Ok(cluster)
    }

    /// The client endpoints (`http://127.0.0.1:PORT`), member 1 first.
    pub fn endpoints(&self) -> &[String] {
        &self.endpoints
    }

    /// The client endpoints on the extra address given to [`EtcdCluster::start_also_on`]
    /// (`http://HOST:PORT`), member 1 first; the loopback ones when none was.
    pub fn endpoints_on(&self) -> Vec<String> {
        match &self.host {
            None => self.endpoints.clone(),
            Some(host) => self
                .endpoints
                .iter()
                .map(|e| match e.rsplit_once(':') {
                    Some((_, port)) => format!("http://{host}:{port}"),
                    None => e.clone(),
                })
                .collect(),
        }
    }

    /// Where the members keep their data, logs and pids.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    fn path(&self) -> String {
        self.dir.path().to_string_lossy().to_string()
    }

    /// The member (1..=3) that leads now.
    pub fn leader(&self) -> io::Result<usize> {
        let out = run(&["leader", &self.path()])?;
        out.parse()
            .map_err(|_| io::Error::other(format!("etcd.sh leader printed '{out}'")))
    }

    /// The process id of member `member` (1..=3), as the script recorded it.
    pub fn pid(&self, member: usize) -> io::Result<u32> {
        let file = self.dir.path().join(format!("e{member}.pid"));
        let text = std::fs::read_to_string(&file)?;
        text.trim().parse().map_err(|_| {
            io::Error::other(format!(
                "{}: not a process id: '{}'",
                file.display(),
                text.trim()
            ))
        })
    }

    /// Kills member `member` (1..=3) with SIGKILL: a crash, no goodbye to its peers. A
    /// member not running is left alone.
    pub fn kill(&self, member: usize) -> io::Result<()> {
        let pid = self.pid(member)?;
        // The pid file may outlive the process: only an etcd of this cluster is killed.
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let expected = format!("etcd\0--name\0e{member}\0");
        if !cmdline.starts_with(expected.as_bytes()) {
            return Ok(());
        }
        let status = Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()?;
        if !status.success() {
            return Err(io::Error::other(format!(
                "kill -9 {pid} (member e{member}) failed: {status}"
            )));
        }
        Ok(())
    }

    /// Starts the members that are not running again, on their old data, and waits until
    /// the cluster is healthy.
    pub fn restart_stopped(&self) -> io::Result<()> {
        run(&["start", &self.path()]).map(|_| ())
    }
}

impl Drop for EtcdCluster {
    /// Kills the members (their data is about to go: no need for a graceful stop, which
    /// takes etcd seconds); the temporary directory then removes itself.
    fn drop(&mut self) {
        for member in 1..=3 {
            if let Err(error) = self.kill(member) {
                tracing::warn!(%error, member, "stopping an etcd member failed");
            }
        }
    }
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

/// One etcd member serving clients on `https://127.0.0.1:port` only, requiring client
/// certificates of `ca`.
pub struct TlsEtcd {
    child: Child,
    /// `https://127.0.0.1:PORT`.
    pub endpoint: String,
}

impl TlsEtcd {
    /// Starts the member, its data and log (`etcd.log`) in `dir`, its certificate issued
    /// by `ca`; it may take a moment to answer.
    pub fn start(dir: &Path, ca: &basalt_net::certs::TestCa) -> Self {
        install().expect("etcd is installed");
        let (cert, key) = ca.server("etcd", 1);
        let (client, peer) = (free_port(), free_port());
        let endpoint = format!("https://127.0.0.1:{client}");
        let peer_url = format!("http://127.0.0.1:{peer}");
        let log = std::fs::File::create(dir.join("etcd.log")).expect("log");
        let child = Command::new("etcd")
            .args(["--name", "tls1", "--data-dir"])
            .arg(dir.join("data"))
            .args(["--listen-client-urls", &endpoint])
            .args(["--advertise-client-urls", &endpoint])
            .args(["--listen-peer-urls", &peer_url])
            .args(["--initial-advertise-peer-urls", &peer_url])
            .args(["--initial-cluster", &format!("tls1={peer_url}")])
            .arg("--cert-file")
            .arg(&cert)
            .arg("--key-file")
            .arg(&key)
            .arg("--trusted-ca-file")
            .arg(&ca.cert)
            .arg("--client-cert-auth")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("etcd runs");
        Self { child, endpoint }
    }
}

impl Drop for TlsEtcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
