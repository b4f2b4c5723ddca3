//! The server's certificate, reloaded without a restart.
//!
//! Handshakes ask [`Reloading`] for the certificate; at most once a second one of them looks
//! at the two files' stamps (length, modification time, inode). When a stamp changed, the
//! pair is loaded again: a pair that loads and matches (the key is the certificate's) is
//! served from the next handshake on, and logged; one that does not keeps the old pair and
//! logs a warning naming the file — once per change, not once a second. Connections already
//! open keep the certificate they were made with.

use super::{pem, TlsError};
use parking_lot::Mutex;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// How often, at most, the files are looked at.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// What identifies a version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    pub modified: Option<SystemTime>,
    pub inode: u64,
}

impl Stamp {
    /// The stamp of `path`, `None` when it cannot be read.
    pub fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Self {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode,
        })
    }
}

/// The pure rule: whether a look is due at `now`, and whether the stamps seen call for a
/// load (they differ from those of the last load or failed attempt).
pub fn due(last_look: Instant, now: Instant) -> bool {
    now.saturating_duration_since(last_look) >= CHECK_EVERY
}

pub fn changed(seen: [Option<Stamp>; 2], known: [Option<Stamp>; 2]) -> bool {
    seen != known
}

struct State {
    current: Arc<CertifiedKey>,
    /// The stamps of the files when last loaded (or last failed to load).
    known: [Option<Stamp>; 2],
    last_look: Instant,
}

/// A certificate resolver serving the pair of `cert_file` and `key_file`, reloaded when
/// they change.
pub struct Reloading {
    cert_file: PathBuf,
    key_file: PathBuf,
    state: Mutex<State>,
}

impl std::fmt::Debug for Reloading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reloading")
            .field("cert_file", &self.cert_file)
            .field("key_file", &self.key_file)
            .finish()
    }
}

/// Loads the pair, checking that the key belongs to the certificate.
pub fn load_pair(cert_file: &Path, key_file: &Path) -> Result<Arc<CertifiedKey>, TlsError> {
    let certs = pem::certs(cert_file)?;
    let key = pem::key(key_file)?;
    let signer = rustls::crypto::aws_lc_rs::sign::any_supported_type(&key).map_err(|e| {
        TlsError(format!(
            "{}: not a usable private key: {e}",
            key_file.display()
        ))
    })?;
    let pair = CertifiedKey::new(certs, signer);
    pair.keys_match().map_err(|e| {
        TlsError(format!(
            "{}: the key is not the one of the certificate in {} ({e})",
            key_file.display(),
            cert_file.display()
        ))
    })?;
    Ok(Arc::new(pair))
}

impl Reloading {
    /// Loads the pair now (an error names the file).
    pub fn load(cert_file: PathBuf, key_file: PathBuf) -> Result<Self, TlsError> {
        let known = [Stamp::of(&cert_file), Stamp::of(&key_file)];
        let current = load_pair(&cert_file, &key_file)?;
        Ok(Self {
            cert_file,
            key_file,
            state: Mutex::new(State {
                current,
                known,
                last_look: Instant::now(),
            }),
        })
    }

    pub fn cert_file(&self) -> &Path {
        &self.cert_file
    }

    /// The pair to serve, looking at the files first if a look is due.
    fn current(&self) -> Arc<CertifiedKey> {
        let now = Instant::now();
        let due = due(self.state.lock().last_look, now);
        if due {
            self.check(now);
        }
        self.state.lock().current.clone()
    }

    /// Looks at the files now; whether a new pair was loaded.
    pub fn check(&self, now: Instant) -> bool {
        let seen = [Stamp::of(&self.cert_file), Stamp::of(&self.key_file)];
        {
            let mut state = self.state.lock();
            state.last_look = now;
            if !changed(seen, state.known) {
                return false;
            }
            state.known = seen;
        }
        // Loaded outside the lock: handshakes meanwhile serve the old pair.
        match load_pair(&self.cert_file, &self.key_file) {
            Ok(pair) => {
                self.state.lock().current = pair;
                tracing::info!(cert_file = %self.cert_file.display(), "TLS certificate reloaded");
                true
            }
            Err(e) => {
                tracing::warn!(
                    "TLS certificate not reloaded, the previous one is still served: {e}"
                );
                false
            }
        }
    }
}

impl ResolvesServerCert for Reloading {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_at_most_once_a_second() {
        let t0 = Instant::now();
        assert!(!due(t0, t0));
        assert!(!due(t0, t0 + Duration::from_millis(999)));
        assert!(due(t0, t0 + Duration::from_secs(1)));
        // A clock that went backwards is not a reason to look.
        assert!(!due(t0 + Duration::from_secs(5), t0));
    }

    #[test]
    fn loads_when_either_file_changed_or_appeared() {
        let a = Some(Stamp {
            len: 10,
            modified: None,
            inode: 1,
        });
        let b = Some(Stamp {
            len: 11,
            modified: None,
            inode: 1,
        });
        assert!(!changed([a, a], [a, a]));
        assert!(changed([b, a], [a, a]));
        assert!(changed([a, b], [a, a]));
        // A file gone (mid-replacement) is a change; its failed load is remembered.
        assert!(changed([None, a], [a, a]));
        assert!(!changed([None, a], [None, a]));
    }
}
