//! Damaged files on purpose and plain HTTP: the region folders of a table, flipping a
//! byte inside a store file's trailer, index or bloom (found from its trailer, as
//! docs/format.md draws it) or a manifest, and one HTTP/1.1 GET.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to damage in a region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Trailer,
    Index,
    Bloom,
    Manifest,
}

fn be_u64(b: &[u8]) -> usize {
    u64::from_be_bytes(b[..8].try_into().expect("8 bytes")) as usize
}

/// The file of `region_dir` that `part` lives in, with one byte inside that part flipped;
/// returns the file.
pub fn damage(region_dir: &Path, family: &str, part: Part) -> PathBuf {
    let file = if part == Part::Manifest {
        region_dir.join("MANIFEST")
    } else {
        std::fs::read_dir(region_dir.join(family))
            .expect("family folder")
            .map(|e| e.expect("entry").path())
            .find(|p| p.extension().is_some_and(|e| e == "hfile"))
            .expect("a store file")
    };
    let mut bytes = std::fs::read(&file).expect("read");
    let trailer = bytes.len().saturating_sub(108);
    let offset = match part {
        Part::Trailer => trailer + 20,
        Part::Index => be_u64(&bytes[trailer + 56..]) + 20,
        Part::Bloom => be_u64(&bytes[trailer + 72..]) + 20,
        Part::Manifest => bytes.len() / 2,
    };
    bytes[offset] ^= 0xff;
    std::fs::write(&file, bytes).expect("write");
    if part == Part::Manifest {
        // A manifest is kept twice; the region fails only when both copies are damaged.
        let second = region_dir.join("MANIFEST.2");
        let mut bytes = std::fs::read(&second).expect("read the second copy");
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0xff;
        std::fs::write(&second, bytes).expect("write");
    }
    file
}

/// One HTTP/1.1 GET; the whole response, headers and body.
pub fn http_get(addr: &str, path: &str, accept: &str) -> String {
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: {accept}\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    response
}
