//! The export's manifest and job: text, one `key value…` per line, binary values in hex,
//! the last line `end CRC` (CRC-32C of the lines before it, 8 hex digits). The job (what
//! was asked: table, rows, times, versions, families, raw) is written first as `JOB`, so a
//! re-run can check it resumes the same export; the manifest repeats it and adds the
//! table's descriptor and split points, the totals and every part's checksum, and is
//! written last. Pure, golden-tested.

use super::format::{MANIFEST_MAGIC, MANIFEST_VERSION};
use basalt_types::{TableDescriptor, TimeRange};
use bytes::Bytes;

/// What an export was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub table: String,
    pub start_row: Bytes,
    pub stop_row: Bytes,
    pub time_range: TimeRange,
    pub versions: u32,
    pub families: Vec<Bytes>,
    pub raw: bool,
}

/// One part as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartEntry {
    pub name: String,
    pub cells: u64,
    pub bytes: u64,
    pub crc: u32,
}

/// A complete export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub job: Job,
    pub descriptor: TableDescriptor,
    pub splits: Vec<Bytes>,
    pub parts: Vec<PartEntry>,
}

impl Manifest {
    pub fn cells(&self) -> u64 {
        self.parts.iter().map(|p| p.cells).sum()
    }
    pub fn bytes(&self) -> u64 {
        self.parts.iter().map(|p| p.bytes).sum()
    }
}

pub fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(text: &str) -> Result<Bytes, String> {
    if text == "-" {
        return Ok(Bytes::new());
    }
    if !text.len().is_multiple_of(2) {
        return Err(format!("odd-length hex {text:?}"));
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|_| format!("bad hex {text:?}")))
        .collect::<Result<Vec<u8>, _>>()
        .map(Bytes::from)
}

pub fn sealed(mut text: String) -> String {
    let crc = crc32c::crc32c(text.as_bytes());
    text.push_str(&format!("end {crc:08x}\n"));
    text
}

/// The lines before `end`, once their checksum is verified.
pub fn unsealed(text: &str) -> Result<&str, String> {
    let body_len = text
        .trim_end_matches('\n')
        .rfind('\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    let (body, last) = text.split_at(body_len);
    let crc = last
        .trim_end()
        .strip_prefix("end ")
        .and_then(|c| u32::from_str_radix(c, 16).ok())
        .ok_or("no `end CRC` line (cut short?)")?;
    let actual = crc32c::crc32c(body.as_bytes());
    if crc != actual {
        return Err(format!(
            "checksum mismatch: it says {crc:08x}, its lines give {actual:08x}"
        ));
    }
    Ok(body)
}

impl Job {
    fn lines(&self) -> String {
        let families: Vec<String> = self.families.iter().map(|f| hex(f)).collect();
        format!(
            "table {}\nrows {} {}\ntime-range {} {}\nversions {}\nfamilies {}\nraw {}\n",
            self.table,
            hex(&self.start_row),
            hex(&self.stop_row),
            self.time_range.min,
            self.time_range.max,
            self.versions,
            if families.is_empty() {
                "-".into()
            } else {
                families.join(",")
            },
            self.raw
        )
    }

    /// The `JOB` object.
    pub fn encode(&self) -> String {
        sealed(format!(
            "{MANIFEST_MAGIC}-job {MANIFEST_VERSION}\n{}",
            self.lines()
        ))
    }

    pub fn decode(text: &str) -> Result<Job, String> {
        let body = unsealed(text)?;
        let lines = Lines::parse(body, &format!("{MANIFEST_MAGIC}-job"))?;
        lines.job()
    }
}

impl Manifest {
    /// The `MANIFEST` object.
    pub fn encode(&self) -> String {
        let mut text = format!("{MANIFEST_MAGIC} {MANIFEST_VERSION}\n{}", self.job.lines());
        let descriptor = basalt_db::meta::codec::encode_table(&self.descriptor);
        text.push_str(&format!("descriptor {}\n", hex(&descriptor)));
        for split in &self.splits {
            text.push_str(&format!("split {}\n", hex(split)));
        }
        text.push_str(&format!("cells {}\nbytes {}\n", self.cells(), self.bytes()));
        for p in &self.parts {
            text.push_str(&format!(
                "part {} {} {} {:08x}\n",
                p.name, p.cells, p.bytes, p.crc
            ));
        }
        sealed(text)
    }

    pub fn decode(text: &str) -> Result<Manifest, String> {
        let body = unsealed(text)?;
        let lines = Lines::parse(body, MANIFEST_MAGIC)?;
        let job = lines.job()?;
        let descriptor = unhex(lines.one("descriptor")?)?;
        let descriptor = basalt_db::meta::codec::decode_table(&descriptor)
            .map_err(|e| format!("descriptor: {e}"))?;
        let splits = lines
            .all("split")
            .map(unhex)
            .collect::<Result<Vec<_>, _>>()?;
        let parts = lines
            .all("part")
            .map(|value| {
                let f: Vec<&str> = value.split(' ').collect();
                let num = |s: &str| s.parse::<u64>().map_err(|_| format!("part line {value:?}"));
                match f.as_slice() {
                    [name, cells, bytes, crc] => Ok(PartEntry {
                        name: name.to_string(),
                        cells: num(cells)?,
                        bytes: num(bytes)?,
                        crc: u32::from_str_radix(crc, 16)
                            .map_err(|_| format!("part line {value:?}"))?,
                    }),
                    _ => Err(format!("part line {value:?}")),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let manifest = Manifest {
            job,
            descriptor,
            splits,
            parts,
        };
        let cells = lines.number("cells")?;
        if cells != manifest.cells() {
            return Err(format!(
                "counts {cells} cells, its parts {}",
                manifest.cells()
            ));
        }
        Ok(manifest)
    }
}

/// `key value` lines after a `magic version` line.
struct Lines<'a>(Vec<(&'a str, &'a str)>);

impl<'a> Lines<'a> {
    fn parse(body: &'a str, magic: &str) -> Result<Self, String> {
        let mut lines = body.lines();
        let first = lines.next().unwrap_or_default();
        let version = first
            .strip_prefix(magic)
            .and_then(|v| v.trim().parse::<u32>().ok())
            .ok_or_else(|| format!("does not start with `{magic} VERSION`"))?;
        if version != MANIFEST_VERSION {
            return Err(format!(
                "format version {version}; this build reads {MANIFEST_VERSION}"
            ));
        }
        Ok(Self(
            lines
                .map(|l| l.split_once(' ').unwrap_or((l, "")))
                .collect(),
        ))
    }
    fn all(&self, key: &'a str) -> impl Iterator<Item = &'a str> + '_ {
        self.0
            .iter()
            .filter(move |(k, _)| *k == key)
            .map(|(_, v)| *v)
    }
    fn one(&self, key: &str) -> Result<&'a str, String> {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .ok_or_else(|| format!("no `{key}` line"))
    }
    fn number(&self, key: &str) -> Result<u64, String> {
        let v = self.one(key)?;
        v.parse()
            .map_err(|_| format!("`{key} {v}` is not a number"))
    }
    fn job(&self) -> Result<Job, String> {
        let pair = |key: &str| -> Result<(&'a str, &'a str), String> {
            let v = self.one(key)?;
            v.split_once(' ').ok_or_else(|| format!("`{key} {v}`"))
        };
        let (start, stop) = pair("rows")?;
        let (min, max) = pair("time-range")?;
        let time = |t: &str| t.parse::<i64>().map_err(|_| format!("time {t:?}"));
        let families = match self.one("families")? {
            "-" => Vec::new(),
            list => list.split(',').map(unhex).collect::<Result<_, _>>()?,
        };
        Ok(Job {
            table: self.one("table")?.to_string(),
            start_row: unhex(start)?,
            stop_row: unhex(stop)?,
            time_range: TimeRange::new(time(min)?, time(max)?).map_err(|e| e.to_string())?,
            versions: self.number("versions")? as u32,
            families,
            raw: self.one("raw")? == "true",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::{FamilyDescriptor, TableName};

    fn job() -> Job {
        Job {
            table: "default:t".into(),
            start_row: Bytes::from_static(b"a"),
            stop_row: Bytes::new(),
            time_range: TimeRange::new(10, 20).expect("range"),
            versions: 3,
            families: vec![Bytes::from_static(b"f")],
            raw: true,
        }
    }

    #[test]
    fn a_job_has_a_stable_text_and_reads_back() {
        let text = job().encode();
        let body = "basalt-export-job 1\ntable default:t\nrows 61 -\ntime-range 10 20\n\
                    versions 3\nfamilies 66\nraw true\n";
        assert_eq!(
            text,
            format!("{body}end {:08x}\n", crc32c::crc32c(body.as_bytes()))
        );
        assert_eq!(Job::decode(&text).expect("valid"), job());
    }

    #[test]
    fn a_manifest_reads_back_and_refuses_an_edit() {
        let name = TableName::parse("t").expect("name");
        let family = FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family");
        let manifest = Manifest {
            job: job(),
            descriptor: TableDescriptor::new(name, vec![family]),
            splits: vec![Bytes::from_static(b"m")],
            parts: vec![PartEntry {
                name: "part-00000".into(),
                cells: 4,
                bytes: 99,
                crc: 0xdead_beef,
            }],
        };
        let text = manifest.encode();
        assert!(text.contains("\nsplit 6d\ncells 4\nbytes 99\npart part-00000 4 99 deadbeef\nend "));
        assert_eq!(Manifest::decode(&text).expect("valid"), manifest);
        let edited = text.replace("cells 4", "cells 5");
        assert!(Manifest::decode(&edited)
            .expect_err("edited")
            .contains("checksum mismatch"));
        assert!(Manifest::decode(&text[..text.len() - 15]).is_err());
    }

    #[test]
    fn hex_round_trips_with_a_dash_for_empty() {
        assert_eq!(hex(b""), "-");
        assert_eq!(hex(b"\x00\xff"), "00ff");
        assert_eq!(unhex("00ff").expect("hex").as_ref(), b"\x00\xff");
        assert!(unhex("0").is_err());
    }
}
