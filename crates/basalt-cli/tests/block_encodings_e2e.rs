//! `DATA_BLOCK_ENCODING => 'DIFF' | 'FAST_DIFF' | 'ROW_INDEX_V1'` as a user meets them:
//! tables created in `basalt shell` against a real `basalt standalone`, written (versions,
//! deletes, empty values), flushed, written again, major-compacted and read back; described
//! by the shell (native protocol) and by the REST gateway; the store files on disk carry the
//! encoding (format version 2). `COMPRESSION => 'LZO'` is refused naming what to use.

use crate::support;

use std::io::{Read, Write};
use std::path::Path;

const ENCODINGS: [(&str, &str, u8); 3] = [
    ("enc_diff", "DIFF", 2),
    ("enc_fast", "FAST_DIFF", 3),
    ("enc_row", "ROW_INDEX_V1", 4),
];

fn script() -> String {
    let mut s = String::new();
    for (table, encoding, _) in ENCODINGS {
        s += &format!(
            "create '{table}', {{NAME => 'f', DATA_BLOCK_ENCODING => '{encoding}', VERSIONS => 5}}
for i in 1..300 do put '{table}', \"row#{{i}}\", 'f:a', \"value#{{i}}\" end
for v in 1..3 do put '{table}', 'many', 'f:q', \"v#{{v}}\", v end
put '{table}', 'empty', 'f:e', ''
put '{table}', \"{long}\", 'f:l', 'long'
flush '{table}'
for i in 1..300 do put '{table}', \"row#{{i}}\", 'f:b', 'same' end
delete '{table}', 'row7', 'f:a'
deleteall '{table}', 'row8'
flush '{table}'
major_compact '{table}'
count '{table}'
get '{table}', 'many', {{COLUMN => 'f:q', VERSIONS => 5}}
get '{table}', 'row7'
get '{table}', 'row150', 'f:a'
get '{table}', 'empty'
describe '{table}'
",
            long = "k".repeat(2000)
        );
    }
    s += "create 'lzo', {NAME => 'f', COMPRESSION => 'LZO'}\n";
    s
}

fn shell(addr: &str, script: &str) -> String {
    support::shell::run_script(&["--connect", addr, "--timestamp-format-epoch"], script)
}

fn rest_get(addr: &str, path: &str) -> String {
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAccept: application/json\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    response
}

/// Every store file under `dir`, with its trailer's format version and encoding code.
fn store_files(dir: &Path, out: &mut Vec<(String, u32, u8)>) {
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            store_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "hfile") {
            let bytes = std::fs::read(&path).expect("read store file");
            let trailer = &bytes[bytes.len() - 108..];
            let version = u32::from_be_bytes(trailer[8..12].try_into().expect("4 bytes"));
            out.push((path.display().to_string(), version, trailer[13]));
        }
    }
}

#[test]
fn each_encoding_writes_flushes_compacts_reads_back_and_describes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(dir.path());
    let rest = server.sidecar_addr("rest").expect("rest sidecar");
    let text = shell(&server.addr, &script());
    let schemas: Vec<String> = ENCODINGS
        .iter()
        .map(|(table, _, _)| rest_get(&rest, &format!("/{table}/schema")))
        .collect();
    let mut files = Vec::new();
    store_files(&dir.path().join("data"), &mut files);
    support::stop(server);

    let sections: Vec<&str> = text.split("Took ").collect();
    assert!(
        !text.contains("ERROR: ") || text.matches("ERROR: ").count() == 1,
        "{text}"
    );
    for (i, (table, encoding, code)) in ENCODINGS.iter().enumerate() {
        let described = format!("DATA_BLOCK_ENCODING => '{encoding}'");
        assert!(
            text.matches(&described).count() >= 1,
            "{table}: {described} in\n{text}"
        );
        // 299 rows + many + empty + the long row, less the row deleteall removed.
        assert!(
            text.contains("302 row(s)"),
            "{table}: count after compaction in\n{text}"
        );
        let json = &schemas[i];
        assert!(
            json.contains(&format!("\"DATA_BLOCK_ENCODING\":\"{encoding}\"")),
            "{table}: REST schema {json}"
        );
        let ours: Vec<_> = files
            .iter()
            .filter(|(path, _, _)| path.contains(&format!("/{table}/")))
            .collect();
        assert!(!ours.is_empty(), "{table}: no store files in {files:?}");
        for (path, version, got) in ours {
            assert_eq!((*version, *got), (2, *code), "{path}");
        }
    }
    assert!(sections.len() > 10, "{text}");
    for want in [
        " f:q timestamp=3, value=v3",
        " f:q timestamp=1, value=v1",
        " f:b timestamp=",
        "value=value150",
        " f:e timestamp=",
    ] {
        assert_eq!(
            text.matches(want).count(),
            3,
            "{want} once per table in\n{text}"
        );
    }
    assert!(
        !text.contains("value=value7"),
        "deleted cell read back:\n{text}"
    );
    assert!(
        text.contains("COMPRESSION 'LZO' is not supported")
            && text.contains("use LZ4 (closest to LZO in speed), SNAPPY, ZSTD or GZ"),
        "{text}"
    );
}
