//! Certificates for tests, made with the `openssl` command (Debian's): a CA, server
//! certificates for 127.0.0.1 and localhost, and client certificates naming a user.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A test CA in `dir`.
pub struct TestCa {
    pub dir: PathBuf,
    pub cert: PathBuf,
    key: PathBuf,
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the openssl command");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl TestCa {
    /// A new CA (`ca.pem`, `ca.key`) in `dir`.
    pub fn new(dir: &Path) -> Self {
        openssl(
            dir,
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "2",
                "-subj",
                "/CN=Basalt test CA",
            ],
        );
        Self {
            dir: dir.to_path_buf(),
            cert: dir.join("ca.pem"),
            key: dir.join("ca.key"),
        }
    }

    /// A certificate `NAME.pem` with key `NAME.key`, subject CN `cn`, the given SAN
    /// (`IP:127.0.0.1,DNS:localhost`, or empty for none) and serial; its two paths.
    pub fn issue(&self, name: &str, cn: &str, san: &str, serial: u64) -> (PathBuf, PathBuf) {
        let (key, csr, pem, ext) = (
            format!("{name}.key"),
            format!("{name}.csr"),
            format!("{name}.pem"),
            format!("{name}.ext"),
        );
        openssl(
            &self.dir,
            &[
                "req",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                &key,
                "-out",
                &csr,
                "-subj",
                &format!("/CN={cn}"),
            ],
        );
        let mut extensions = String::from("basicConstraints=CA:FALSE\n");
        if !san.is_empty() {
            extensions.push_str(&format!("subjectAltName={san}\n"));
        }
        std::fs::write(self.dir.join(&ext), extensions).expect("write the extensions");
        openssl(
            &self.dir,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                &self.cert.to_string_lossy(),
                "-CAkey",
                &self.key.to_string_lossy(),
                "-set_serial",
                &serial.to_string(),
                "-days",
                "2",
                "-extfile",
                &ext,
                "-out",
                &pem,
            ],
        );
        (self.dir.join(pem), self.dir.join(key))
    }

    /// A server certificate for 127.0.0.1 and localhost.
    pub fn server(&self, name: &str, serial: u64) -> (PathBuf, PathBuf) {
        self.issue(name, "basalt", "IP:127.0.0.1,DNS:localhost", serial)
    }
}
