//! The cluster secret, rotated without a restart.
//!
//! A cluster's servers prove to each other that they belong with a shared secret. Given
//! inline (`[security] cluster_secret`, `BASALT_CLUSTER_SECRET`) it is fixed for the life
//! of the process. Given as a file (`cluster_secret_file`), it holds one secret per line
//! (blank lines and `#` comments skipped): the **first** is the one this server presents,
//! **every** line is accepted. The file is looked at again at most once a second, when a
//! secret is checked or presented (length, modification time and inode, as the TLS
//! certificate is), so a rotation needs no restart and no thread:
//!
//! 1. on every server, add the new secret as a second line (accepted everywhere);
//! 2. on every server, move it first (presented everywhere);
//! 3. on every server, remove the old line.
//!
//! A file that cannot be read, or holds no secret, keeps the secrets last loaded, with a
//! warning once per change of the file.

use basalt_net::tls::reload::{due, Stamp};
use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The secrets of a file's text: one per line, blank lines and `#` comments skipped.
pub fn parse(text: &str) -> Result<Vec<String>, String> {
    let secrets: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    if secrets.is_empty() {
        return Err("it holds no secret (one per line; the first is presented)".into());
    }
    if let Some(bad) = secrets.iter().find(|s| s.chars().any(char::is_control)) {
        return Err(format!(
            "a secret holds a control character (line starting {:?})",
            bad.chars().take(4).collect::<String>()
        ));
    }
    Ok(secrets)
}

struct FileState {
    secrets: Arc<Vec<String>>,
    known: Option<Stamp>,
    last_look: Instant,
}

enum Source {
    Fixed(Arc<Vec<String>>),
    File {
        path: PathBuf,
        state: Mutex<FileState>,
    },
}

/// The secrets a server accepts, and the one it presents.
#[derive(Clone)]
pub struct ClusterSecrets(Arc<Source>);

impl std::fmt::Debug for ClusterSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &*self.0 {
            Source::Fixed(_) => f.write_str("ClusterSecrets(fixed, ***)"),
            Source::File { path, .. } => write!(f, "ClusterSecrets({}, ***)", path.display()),
        }
    }
}

/// Two settings are equal when they name the same source (a file's path, or the same
/// fixed secrets).
impl PartialEq for ClusterSecrets {
    fn eq(&self, other: &Self) -> bool {
        match (&*self.0, &*other.0) {
            (Source::Fixed(a), Source::Fixed(b)) => a == b,
            (Source::File { path: a, .. }, Source::File { path: b, .. }) => a == b,
            _ => false,
        }
    }
}

impl Eq for ClusterSecrets {}

impl ClusterSecrets {
    /// One secret, for the life of the process.
    pub fn fixed(secret: impl Into<String>) -> Self {
        Self(Arc::new(Source::Fixed(Arc::new(vec![secret.into()]))))
    }

    /// The secrets of `path`, loaded now (an error names the file and what is wrong) and
    /// again whenever it changes.
    pub fn from_file(path: &Path) -> Result<Self, String> {
        let known = Stamp::of(path);
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cluster_secret_file {}: {e}", path.display()))?;
        let secrets =
            parse(&text).map_err(|e| format!("cluster_secret_file {}: {e}", path.display()))?;
        Ok(Self(Arc::new(Source::File {
            path: path.to_path_buf(),
            state: Mutex::new(FileState {
                secrets: Arc::new(secrets),
                known,
                last_look: Instant::now(),
            }),
        })))
    }

    /// The secrets in force: the file's, looked at again if a second has passed.
    pub fn current(&self) -> Arc<Vec<String>> {
        match &*self.0 {
            Source::Fixed(secrets) => secrets.clone(),
            Source::File { path, state } => {
                let mut state = state.lock();
                let now = Instant::now();
                if due(state.last_look, now) {
                    state.last_look = now;
                    refresh(path, &mut state);
                }
                state.secrets.clone()
            }
        }
    }

    /// The secret this server presents.
    pub fn presented(&self) -> String {
        self.current()[0].clone()
    }

    /// Whether `offered` is one of the secrets in force (compared in constant time).
    pub fn accepts(&self, offered: &str) -> bool {
        self.current().iter().fold(false, |hit, s| {
            crate::password::constant_time_eq(s.as_bytes(), offered.as_bytes()) | hit
        })
    }
}

fn refresh(path: &Path, state: &mut FileState) {
    let seen = Stamp::of(path);
    if seen == state.known {
        return;
    }
    state.known = seen;
    let loaded = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| parse(&text));
    match loaded {
        Ok(secrets) => {
            tracing::info!(
                file = %path.display(),
                secrets = secrets.len(),
                "cluster secrets reloaded"
            );
            state.secrets = Arc::new(secrets);
        }
        Err(why) => tracing::warn!(
            file = %path.display(),
            "cluster secrets not reloaded, the previous ones stay in force: {why}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_comments_and_empty_files() {
        assert_eq!(
            parse("a\n\n# old one below\n b \n").expect("works"),
            ["a", "b"]
        );
        assert!(parse("\n# nothing\n")
            .expect_err("refused")
            .contains("no secret"));
        assert!(parse("a\u{7}b\n").expect_err("refused").contains("control"));
    }

    #[test]
    fn a_rewritten_file_is_followed_and_a_broken_one_keeps_the_last() {
        let dir = std::env::temp_dir().join(format!("basalt-secret-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("works");
        let path = dir.join("secret");
        std::fs::write(&path, "old\n").expect("works");
        let secrets = ClusterSecrets::from_file(&path).expect("works");
        assert!(secrets.accepts("old") && !secrets.accepts("new"));
        let rewrite = |text: &str| {
            let next = dir.join("next");
            std::fs::write(&next, text).expect("works");
            std::fs::rename(&next, &path).expect("works");
            // The next look is due a second after the last.
            if let Source::File { state, .. } = &*secrets.0 {
                state.lock().last_look -= std::time::Duration::from_secs(2);
            }
        };
        rewrite("old\nnew\n");
        assert!(secrets.accepts("old") && secrets.accepts("new"));
        assert_eq!(secrets.presented(), "old");
        rewrite("new\nold\n");
        assert_eq!(secrets.presented(), "new");
        rewrite("new\n");
        assert!(!secrets.accepts("old") && secrets.accepts("new"));
        rewrite("# emptied by mistake\n");
        assert!(
            secrets.accepts("new"),
            "a file without a secret changes nothing"
        );
        assert!(ClusterSecrets::from_file(&dir.join("absent")).is_err());
        std::fs::remove_dir_all(&dir).expect("works");
    }
}
