//! An S3-compatible server for tests: [`MotoServer`] runs moto's server (through
//! `scripts/moto.sh`, which installs it into the project's venv once) on a free loopback
//! port with a bucket, and stops it when dropped.
//!
//! ```no_run
//! let moto = basalt_store::testing::MotoServer::start().expect("moto starts");
//! let fs = basalt_store::StoreFs::open(&moto.url("t1"), moto.options()).expect("fs");
//! ```

use crate::StoreOptions;
use std::io;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// A running moto server; stopped on drop.
#[derive(Debug)]
pub struct MotoServer {
    port: u16,
    bucket: String,
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/moto.sh")
}

fn run_script(args: &[&str]) -> io::Result<String> {
    let output = Command::new("bash").arg(script()).args(args).output()?;
    if !output.status.success() {
        return Err(io::Error::other(format!(
            "scripts/moto.sh {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Installs moto once per process (the script itself is idempotent and serialised);
/// the path of `moto_server`.
fn install() -> io::Result<PathBuf> {
    static INSTALLED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            run_script(&["install"])
                .map(|out| PathBuf::from(out.lines().last().unwrap_or_default()))
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(io::Error::other)
}

/// The Python of moto's venv (which has boto3, moto's own dependency): tests ask S3
/// through it what Basalt's client does not show (an object's encryption).
pub fn python() -> io::Result<PathBuf> {
    Ok(install()?.with_file_name("python"))
}

impl MotoServer {
    /// A server with a bucket named `basalt`.
    pub fn start() -> io::Result<Self> {
        Self::start_with_bucket("basalt")
    }

    pub fn start_with_bucket(bucket: &str) -> io::Result<Self> {
        install()?;
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let port_text = port.to_string();
        run_script(&["start", &port_text, bucket])?;
        Ok(Self {
            port,
            bucket: bucket.to_owned(),
        })
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// `s3://<bucket>/<prefix>`.
    pub fn url(&self, prefix: &str) -> String {
        format!("s3://{}/{prefix}", self.bucket)
    }

    /// Options reaching this server: its endpoint, moto's dummy credentials, short timeouts.
    pub fn options(&self) -> StoreOptions {
        StoreOptions {
            endpoint: Some(self.endpoint()),
            region: Some("us-east-1".into()),
            credentials: Some(("testing".into(), "testing".into())),
            request_timeout: Duration::from_secs(10),
            retries_max: 2,
            ..StoreOptions::default()
        }
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        if let Err(e) = run_script(&["stop", &self.port.to_string()]) {
            tracing::warn!(port = self.port, error = %e, "could not stop moto");
        }
    }
}
