//! An exported snapshot's `CHECKSUMS`, written last: the snapshot's name, then one line
//! per file (its manifest `SNAPSHOT` first, then every store file) with its path under
//! the snapshot's folder, its size and its CRC-32C, and the export's sealing line `end
//! CRC` (see [`crate::export::manifest`]). An export without it did not finish. Pure,
//! golden-tested.
//!
//! ```text
//! snapshot s1
//! file SNAPSHOT 311 1a2b3c4d
//! file 0f3a…/f/00000000000000000001.hfile 65536 99aa00ff
//! end 5e6f7a8b
//! ```

use crate::export::manifest::{sealed, unsealed};

/// The name of the file in an exported snapshot's folder.
pub const CHECKSUMS: &str = "CHECKSUMS";

/// One file of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSum {
    /// Its path under the snapshot's folder, `/`-separated.
    pub path: String,
    pub size: u64,
    pub crc: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checksums {
    pub snapshot: String,
    pub files: Vec<FileSum>,
}

impl Checksums {
    pub fn encode(&self) -> String {
        let mut text = format!("snapshot {}\n", self.snapshot);
        for f in &self.files {
            text.push_str(&format!("file {} {} {:08x}\n", f.path, f.size, f.crc));
        }
        sealed(text)
    }

    pub fn decode(text: &str) -> Result<Self, String> {
        let body = unsealed(text)?;
        let mut lines = body.lines();
        let snapshot = lines
            .next()
            .and_then(|l| l.strip_prefix("snapshot "))
            .ok_or("the first line is not `snapshot NAME`")?
            .to_owned();
        let mut files = Vec::new();
        for line in lines {
            let bad = || format!("malformed line {line:?}");
            let fields: Vec<&str> = line.split(' ').collect();
            let ["file", path, size, crc] = fields[..] else {
                return Err(bad());
            };
            check_path(path)?;
            files.push(FileSum {
                path: path.to_owned(),
                size: size.parse().map_err(|_| bad())?,
                crc: u32::from_str_radix(crc, 16).map_err(|_| bad())?,
            });
        }
        Ok(Self { snapshot, files })
    }

    pub fn get(&self, path: &str) -> Option<&FileSum> {
        self.files.iter().find(|f| f.path == path)
    }

    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

/// Refuses a path that could leave the snapshot's folder: only plain names joined by `/`.
pub fn check_path(path: &str) -> Result<(), String> {
    let plain = |s: &str| !s.is_empty() && s != "." && s != ".." && !s.contains('\\');
    if path.split('/').all(plain) {
        Ok(())
    } else {
        Err(format!(
            "refused path {path:?}: only plain names joined by '/'"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checksums {
        Checksums {
            snapshot: "s1".into(),
            files: vec![
                FileSum {
                    path: "SNAPSHOT".into(),
                    size: 311,
                    crc: 0x1a2b_3c4d,
                },
                FileSum {
                    path: "abc/f/00000000000000000001.hfile".into(),
                    size: 65_536,
                    crc: 0x99aa_00ff,
                },
            ],
        }
    }

    #[test]
    fn the_text_is_one_line_per_file_then_its_seal() {
        let text = sample().encode();
        let golden = "snapshot s1\n\
                      file SNAPSHOT 311 1a2b3c4d\n\
                      file abc/f/00000000000000000001.hfile 65536 99aa00ff\n";
        assert!(text.starts_with(golden), "{text}");
        let crc = crc32c::crc32c(golden.as_bytes());
        assert_eq!(&text[golden.len()..], format!("end {crc:08x}\n"));
        assert_eq!(Checksums::decode(&text), Ok(sample()));
    }

    #[test]
    fn a_changed_line_or_a_missing_seal_is_refused() {
        let text = sample().encode().replace("65536", "65537");
        assert!(Checksums::decode(&text)
            .expect_err("changed")
            .contains("checksum mismatch"));
        let cut: String = sample()
            .encode()
            .lines()
            .take(2)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(Checksums::decode(&cut).is_err());
    }

    #[test]
    fn paths_cannot_leave_the_snapshot_folder() {
        assert!(check_path("r/f/1.hfile").is_ok());
        for bad in ["../x", "r//f", "/abs", "r/./f", "a\\b", ""] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }
}
