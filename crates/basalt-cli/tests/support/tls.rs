//! A test CA and a `basalt.toml` putting TLS on every listener: the server's certificate
//! (for 127.0.0.1 and localhost), the CA its own clients trust, and, when asked, client
//! certificates verified against the same CA.

use basalt_net::certs::TestCa;
use std::path::{Path, PathBuf};

pub struct TlsFiles {
    pub ca: TestCa,
    /// The server's certificate and key (a test may replace them: they are reloaded).
    pub cert: PathBuf,
    pub key: PathBuf,
    /// `basalt.toml` with its `[security]` TLS settings.
    pub config: PathBuf,
}

impl TlsFiles {
    /// The CA, the server's pair and `basalt.toml` in `dir`; `client_certificates` asks
    /// clients for certificates of the CA (`tls_client_ca_file`). `extra` is appended to
    /// the `[security]` section.
    pub fn new(dir: &Path, client_certificates: bool, extra: &str) -> Self {
        let ca = TestCa::new(dir);
        let (cert, key) = ca.server("server", 1);
        let mut security = format!(
            "[security]\ntls_cert_file = {cert:?}\ntls_key_file = {key:?}\ntls_ca_file = {:?}\n",
            ca.cert
        );
        if client_certificates {
            security.push_str(&format!("tls_client_ca_file = {:?}\n", ca.cert));
        }
        security.push_str(extra);
        let config = dir.join("basalt.toml");
        std::fs::write(&config, security).expect("write the config");
        Self {
            ca,
            cert,
            key,
            config,
        }
    }

    /// The config's path, for `--config`.
    pub fn config_arg(&self) -> &str {
        self.config.to_str().expect("a UTF-8 path")
    }
}
