//! Cells and descriptors as the HBase shell prints them.
//!
//! Bytes print with `Bytes.toStringBinary` ([`bin`]); timestamps as epoch milliseconds
//! (HBase's `hbase.shell.timestamp.format.epoch = true`, and every 1.x shell).

use crate::output::Style;
use basalt_types::escape::to_string_binary;
use basalt_types::{Cell, FamilyDescriptor, TableDescriptor, TableName};
use std::collections::BTreeMap;

/// `Bytes.toStringBinary`.
pub fn bin(bytes: &[u8]) -> String {
    to_string_binary(bytes)
}

/// `f:q` of a cell.
pub fn column(cell: &Cell) -> String {
    format!("{}:{}", bin(&cell.family), bin(&cell.qualifier))
}

/// `timestamp=14, value=v` or, for a delete marker, `timestamp=11, type=DeleteColumn`;
/// cut to `max_length` characters (ending in `...`) when given.
pub fn cell_text(cell: &Cell, max_length: Option<usize>) -> String {
    cell_text_with(cell, &bin(&cell.value), max_length)
}

/// As [`cell_text`], with the value already rendered (by a converter).
pub fn cell_text_with(cell: &Cell, value: &str, max_length: Option<usize>) -> String {
    let text = if cell.is_delete() {
        format!(
            "timestamp={}, type={}",
            cell.timestamp,
            cell.cell_type.name()
        )
    } else {
        format!("timestamp={}, value={value}", cell.timestamp)
    };
    match max_length {
        Some(max) if text.chars().count() > max => {
            let keep: String = text.chars().take(max.saturating_sub(3)).collect();
            format!("{keep}...")
        }
        _ => text,
    }
}

/// `FOREVER`, `59 SECONDS`, `86400 SECONDS (1 DAY)`, `90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)`.
pub fn human_ttl(secs: u64) -> String {
    if secs >= basalt_types::descriptor::TTL_FOREVER_SECS {
        return "FOREVER".to_string();
    }
    if secs < 60 {
        return format!("{secs} SECOND{}", plural(secs));
    }
    let parts = [
        (secs / 86400, "DAY"),
        (secs % 86400 / 3600, "HOUR"),
        (secs % 3600 / 60, "MINUTE"),
        (secs % 60, "SECOND"),
    ];
    let named: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n} {unit}{}", plural(*n)))
        .collect();
    format!("{secs} SECONDS ({})", named.join(" "))
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "S"
    }
}

/// `65536 B (64KB)` (2.4+ style) or `65536` (1.x style).
fn block_size(style: Style, bytes: u32) -> String {
    match style {
        Style::Hbase1 => bytes.to_string(),
        Style::Hbase2 => {
            let human = if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
                format!("{}MB", bytes >> 20)
            } else if bytes >= 1 << 10 {
                let kb = f64::from(bytes) / 1024.0;
                if bytes.is_multiple_of(1024) {
                    format!("{}KB", bytes >> 10)
                } else {
                    format!("{kb:.2}KB")
                }
            } else {
                format!("{bytes}B")
            };
            format!("{bytes} B ({human})")
        }
    }
}

fn quoted_map(map: &BTreeMap<String, String>) -> String {
    let parts: Vec<String> = map.iter().map(|(k, v)| format!("'{k}' => '{v}'")).collect();
    format!("{{{}}}", parts.join(", "))
}

/// One family as `describe` prints it: `{NAME => 'f', VERSIONS => '1', ...}`, in the key
/// order of the chosen HBase version.
pub fn family(style: Style, f: &FamilyDescriptor) -> String {
    let name = bin(&f.name);
    let b = |v: bool| v.to_string();
    let entries: Vec<(&str, String)> = match style {
        Style::Hbase2 => vec![
            ("NAME", name),
            ("INDEX_BLOCK_ENCODING", "NONE".into()),
            ("VERSIONS", f.max_versions.to_string()),
            ("KEEP_DELETED_CELLS", f.keep_deleted_cells.name().into()),
            ("DATA_BLOCK_ENCODING", f.data_block_encoding.name().into()),
            ("TTL", human_ttl(f.ttl_secs)),
            ("MIN_VERSIONS", f.min_versions.to_string()),
            ("REPLICATION_SCOPE", f.replication_scope.to_string()),
            ("BLOOMFILTER", f.bloom_filter.name().into()),
            ("IN_MEMORY", b(f.in_memory)),
            ("COMPRESSION", f.compression.name().into()),
            ("BLOCKCACHE", b(f.block_cache)),
            ("BLOCKSIZE", block_size(style, f.block_size_bytes)),
        ],
        Style::Hbase1 => vec![
            ("NAME", name),
            ("BLOOMFILTER", f.bloom_filter.name().into()),
            ("VERSIONS", f.max_versions.to_string()),
            ("IN_MEMORY", b(f.in_memory)),
            ("KEEP_DELETED_CELLS", f.keep_deleted_cells.name().into()),
            ("DATA_BLOCK_ENCODING", f.data_block_encoding.name().into()),
            ("TTL", human_ttl(f.ttl_secs)),
            ("COMPRESSION", f.compression.name().into()),
            ("MIN_VERSIONS", f.min_versions.to_string()),
            ("BLOCKCACHE", b(f.block_cache)),
            ("BLOCKSIZE", block_size(style, f.block_size_bytes)),
            ("REPLICATION_SCOPE", f.replication_scope.to_string()),
        ],
    };
    let mut parts: Vec<String> = entries
        .into_iter()
        .map(|(k, v)| format!("{k} => '{v}'"))
        .collect();
    if !f.configuration.is_empty() {
        parts.push(format!("CONFIGURATION => {}", quoted_map(&f.configuration)));
    }
    if !f.metadata.is_empty() {
        parts.push(format!("METADATA => {}", quoted_map(&f.metadata)));
    }
    format!("{{{}}}", parts.join(", "))
}

/// The table line of `describe`: `t` or `t, {TABLE_ATTRIBUTES => {...}}` listing the
/// options that differ from the defaults.
pub fn table_line(d: &TableDescriptor) -> String {
    let mut attrs: Vec<String> = Vec::new();
    if d.max_file_size_bytes != TableDescriptor::DEFAULT_MAX_FILE_SIZE_BYTES {
        attrs.push(format!("MAX_FILESIZE => '{}'", d.max_file_size_bytes));
    }
    if d.memstore_flush_size_bytes != TableDescriptor::DEFAULT_MEMSTORE_FLUSH_SIZE_BYTES {
        attrs.push(format!(
            "MEMSTORE_FLUSHSIZE => '{}'",
            d.memstore_flush_size_bytes
        ));
    }
    if d.read_only {
        attrs.push("READONLY => 'true'".into());
    }
    if d.durability != basalt_types::Durability::UseDefault {
        attrs.push(format!("DURABILITY => '{}'", d.durability.name()));
    }
    for (key, on) in [
        ("COMPACTION_ENABLED", d.compaction_enabled),
        ("SPLIT_ENABLED", d.split_enabled),
        ("MERGE_ENABLED", d.merge_enabled),
    ] {
        if !on {
            attrs.push(format!("{key} => 'false'"));
        }
    }
    if !d.metadata.is_empty() {
        attrs.push(format!("METADATA => {}", quoted_map(&d.metadata)));
    }
    if !d.configuration.is_empty() {
        attrs.push(format!("CONFIGURATION => {}", quoted_map(&d.configuration)));
    }
    if attrs.is_empty() {
        d.name.to_string()
    } else {
        format!(
            "{}, {{TABLE_ATTRIBUTES => {{{}}}}}",
            d.name,
            attrs.join(", ")
        )
    }
}

/// A table name as `list` shows it.
pub fn table_name(name: &TableName) -> String {
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_like_hbase() {
        assert_eq!(human_ttl(i32::MAX as u64), "FOREVER");
        assert_eq!(human_ttl(1), "1 SECOND");
        assert_eq!(human_ttl(59), "59 SECONDS");
        assert_eq!(human_ttl(86400), "86400 SECONDS (1 DAY)");
        assert_eq!(
            human_ttl(2 * 86400 + 3600 + 60 + 1),
            "176461 SECONDS (2 DAYS 1 HOUR 1 MINUTE 1 SECOND)"
        );
    }

    #[test]
    fn cells_and_markers() {
        let put = Cell::put("r", "c", "1", 14, vec![0, 0, 0, 0, 0, 0, 0, 100]);
        assert_eq!(
            cell_text(&put, None),
            "timestamp=14, value=\\x00\\x00\\x00\\x00\\x00\\x00\\x00d"
        );
        let marker = Cell::marker("r", "e", "c1", 11, basalt_types::CellType::DeleteColumn);
        assert_eq!(cell_text(&marker, None), "timestamp=11, type=DeleteColumn");
        assert_eq!(cell_text(&put, Some(12)), "timestamp...");
    }
}
