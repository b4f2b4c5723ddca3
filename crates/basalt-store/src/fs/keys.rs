//! From the engine's paths to object keys, and which files are logs.
//!
//! A path's normal components, joined with `/`, are its key: `/db/wal/wal-1.log` is
//! `db/wal/wal-1.log` (a leading `/` and `.` components mean nothing on a store; `..`
//! and names that are not UTF-8 are refused). A file with a folder named like the log
//! folder (`wal`) on its path is a **log**: it is stored as chunk objects
//! `<key>/<chunk, 10 digits>`, numbered from 0 without gaps, one per sync.

use std::io;
use std::path::{Component, Path};

/// Digits of a chunk number in its object's name.
pub const CHUNK_DIGITS: usize = 10;

/// The object key of `path`.
pub fn key_of(path: &Path) -> io::Result<String> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => parts.push(name.to_str().ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{}: a name that is not UTF-8 cannot be stored",
                        path.display()
                    ),
                )
            })?),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{}: `..` cannot be stored", path.display()),
                ))
            }
        }
    }
    Ok(parts.join("/"))
}

/// Whether the file at `key` is a log (a folder named `log_folder` holds it, at any depth).
pub fn is_log(key: &str, log_folder: &str) -> bool {
    let mut segments: Vec<&str> = key.split('/').collect();
    segments.pop();
    segments.contains(&log_folder)
}

/// The key of chunk `n` of the log at `key`.
pub fn chunk_key(key: &str, n: u64) -> String {
    format!("{key}/{n:0width$}", width = CHUNK_DIGITS)
}

/// The number of a chunk object's name, `None` for any other name.
pub fn parse_chunk(name: &str) -> Option<u64> {
    if name.len() != CHUNK_DIGITS || !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    name.parse().ok()
}

/// The last segment of a key.
pub fn name_of(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or(key)
}

/// `prefix/rest`, or `rest` under the root.
pub fn join(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}/{rest}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_keys() {
        assert_eq!(
            key_of(Path::new("/db/wal/wal-1.log")).expect("key"),
            "db/wal/wal-1.log"
        );
        assert_eq!(key_of(Path::new("db/./x")).expect("key"), "db/x");
        assert_eq!(key_of(Path::new("/")).expect("key"), "");
        let error = key_of(Path::new("/db/../x")).expect_err("refused");
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn logs_are_files_under_a_log_folder() {
        assert!(is_log("db/wal/wal-1.log", "wal"));
        assert!(is_log("db/wal/corrupt/wal-1.log.tail-at-9", "wal"));
        assert!(!is_log("db/wal", "wal"), "the folder itself is not a log");
        assert!(!is_log("db/data/ns/t/r/cf/1.hfile", "wal"));
        assert!(!is_log("db/walrus/x", "wal"));
    }

    #[test]
    fn chunk_names_sort_in_order_and_parse_back() {
        let names: Vec<String> = [0u64, 9, 10, 12_345]
            .iter()
            .map(|&n| chunk_key("f", n))
            .collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert_eq!(parse_chunk(name_of(&names[3])), Some(12_345));
        assert_eq!(parse_chunk("123"), None);
        assert_eq!(parse_chunk("000000000x"), None);
    }
}
