//! A network namespace for one process of a test cluster, joined to the root namespace by
//! two veth pairs: one to reach etcd, one for clients and masters. Setting a pair's
//! root-side link down cuts that path alone (packets are dropped: no reset, as a real
//! partition), and setting it up heals it.
//!
//! Needs root and `ip` (iproute2): [`Netns::create`] says why when it cannot, and a test
//! then returns early rather than fail. Names and addresses are unique per process and
//! call (tests run in parallel), and dropping a [`Netns`] deletes the namespace and the
//! links, also when a test panics.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// One veth pair: its root-side device and the two ends' addresses (a /30).
#[derive(Debug, Clone)]
pub struct Pair {
    pub root_dev: String,
    pub ns_dev: String,
    /// The root side's address.
    pub root_addr: String,
    /// The namespace side's address.
    pub ns_addr: String,
}

#[derive(Debug)]
pub struct Netns {
    pub name: String,
    /// The path to etcd.
    pub etcd: Pair,
    /// The path for clients and masters.
    pub clients: Pair,
}

/// Runs `ip args…`; its stderr when it fails.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `ip`: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "`ip {}` failed ({}): {}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

impl Netns {
    /// A fresh namespace with both pairs up, or why there cannot be one here.
    pub fn create() -> Result<Self, String> {
        static CALLS: AtomicU32 = AtomicU32::new(0);
        if !is_root() {
            return Err("not running as root".to_string());
        }
        let call = CALLS.fetch_add(1, Ordering::Relaxed);
        let pid = std::process::id();
        let tag = format!("{pid}{call}");
        // Two /30 blocks in 10.213.0.0/16, spread by process id and call.
        let block = (pid.wrapping_mul(64).wrapping_add(call * 2)) % 16_384;
        let addr = |block: u32, host: u32| {
            let n = block * 4 + host;
            format!("10.213.{}.{}", n >> 8, n & 255)
        };
        let pair = |block: u32, kind: char| Pair {
            root_dev: format!("b{tag}{kind}r"),
            ns_dev: format!("b{tag}{kind}n"),
            root_addr: addr(block, 1),
            ns_addr: addr(block, 2),
        };
        let netns = Netns {
            name: format!("basalt-test-{tag}"),
            etcd: pair(block, 'e'),
            clients: pair(block + 1, 'c'),
        };
        if netns.etcd.root_dev.len() > 15 {
            return Err(format!("device name {} too long", netns.etcd.root_dev));
        }
        ip(&["netns", "add", &netns.name])?;
        // From here on, dropping `netns` cleans up whatever was made.
        ip(&["-n", &netns.name, "link", "set", "lo", "up"])?;
        for pair in [&netns.etcd, &netns.clients] {
            ip(&[
                "link",
                "add",
                &pair.root_dev,
                "type",
                "veth",
                "peer",
                "name",
                &pair.ns_dev,
                "netns",
                &netns.name,
            ])?;
            ip(&[
                "addr",
                "add",
                &format!("{}/30", pair.root_addr),
                "dev",
                &pair.root_dev,
            ])?;
            ip(&["link", "set", &pair.root_dev, "up"])?;
            let ns_addr = format!("{}/30", pair.ns_addr);
            ip(&[
                "-n",
                &netns.name,
                "addr",
                "add",
                &ns_addr,
                "dev",
                &pair.ns_dev,
            ])?;
            ip(&["-n", &netns.name, "link", "set", &pair.ns_dev, "up"])?;
        }
        Ok(netns)
    }

    /// Sets `pair`'s root-side link up or down.
    pub fn set_link(&self, pair: &Pair, up: bool) {
        let state = if up { "up" } else { "down" };
        ip(&["link", "set", &pair.root_dev, state]).expect("set the link");
    }

    /// The prefix that runs a program inside the namespace.
    pub fn exec_prefix(&self) -> Vec<String> {
        vec![
            "ip".to_string(),
            "netns".to_string(),
            "exec".to_string(),
            self.name.clone(),
        ]
    }
}

impl Drop for Netns {
    /// Deletes the links and the namespace (a process still inside keeps the namespace
    /// alive, without its name, until it exits: stop the processes first).
    fn drop(&mut self) {
        for pair in [&self.etcd, &self.clients] {
            let _ = ip(&["link", "del", &pair.root_dev]);
        }
        if let Err(e) = ip(&["netns", "del", &self.name]) {
            eprintln!("cleaning up network namespace {}: {e}", self.name);
        }
    }
}
