//! Cells and descriptors as the HBase shell prints them.
//!
//! Bytes print with `Bytes.toStringBinary` ([`bin`]); timestamps, as HBase 2.4+ prints them
//! (HBASE-23930), as Java's `LocalDateTime.toString()` in this machine's time zone
//! ([`TimestampFormat::Local`], the default) or in UTC ([`TimestampFormat::Iso`]), or as
//! epoch milliseconds (HBASE-26512's `hbase.shell.timestamp.format.epoch = true`, and every
//! 1.x shell).

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
    format!("{}:{}", bin(cell.family()), bin(cell.qualifier()))
}

/// How cell timestamps print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimestampFormat {
    /// Epoch milliseconds: `timestamp=1446726973017`
    /// (`hbase.shell.timestamp.format.epoch = true`).
    Epoch,
    /// `LocalDateTime.toString()` in UTC: `timestamp=2015-11-05T12:36:13.017`.
    Iso,
    /// `LocalDateTime.toString()` in this machine's time zone, as HBase 2.4+ prints by
    /// default (`hbase.shell.timestamp.format.epoch = false`).
    #[default]
    Local,
}

impl TimestampFormat {
    /// The format `hbase.shell.timestamp.format.epoch` selects.
    pub fn from_epoch_flag(epoch: bool) -> Self {
        if epoch {
            TimestampFormat::Epoch
        } else {
            TimestampFormat::Local
        }
    }

    pub fn render(self, ts: i64) -> String {
        match self {
            TimestampFormat::Epoch => ts.to_string(),
            TimestampFormat::Iso => iso_utc(ts),
            TimestampFormat::Local => iso_utc(ts.saturating_add(local_offset_ms(ts))),
        }
    }
}

/// This machine's UTC offset at `ts_ms`, in milliseconds (0 when the time is out of range).
fn local_offset_ms(ts_ms: i64) -> i64 {
    use chrono::{Local, Offset, TimeZone};
    chrono::DateTime::from_timestamp_millis(ts_ms)
        .map(|t| {
            let offset = Local.offset_from_utc_datetime(&t.naive_utc()).fix();
            i64::from(offset.local_minus_utc()) * 1000
        })
        .unwrap_or(0)
}

/// Java's `LocalDateTime.toString()` of an epoch-millisecond time in UTC: seconds are
/// left out when seconds and milliseconds are 0, milliseconds when they are 0.
pub fn iso_utc(ts_ms: i64) -> String {
    let days = ts_ms.div_euclid(86_400_000);
    let ms_of_day = ts_ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    let (h, m) = (ms_of_day / 3_600_000, ms_of_day / 60_000 % 60);
    let (s, ms) = (ms_of_day / 1000 % 60, ms_of_day % 1000);
    let year = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else if year > 9999 {
        format!("+{year}")
    } else {
        format!("-{:04}", -year)
    };
    let mut out = format!("{year}-{month:02}-{day:02}T{h:02}:{m:02}");
    if s != 0 || ms != 0 {
        out.push_str(&format!(":{s:02}"));
    }
    if ms != 0 {
        out.push_str(&format!(".{ms:03}"));
    }
    out
}

/// The proleptic Gregorian date `days` after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Shift to an era-based calendar starting on 0000-03-01 so leap days end each year.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `timestamp=14, value=v` or, for a delete marker, `timestamp=11, type=DeleteColumn`;
/// cut to its first `max_length` characters when given, as `table.rb`'s `to_string` does
/// (`val[0, maxlength]`: the whole text, timestamp included, and no ellipsis).
pub fn cell_text(cell: &Cell, max_length: Option<usize>) -> String {
    cell_text_with(cell, &bin(cell.value()), TimestampFormat::Epoch, max_length)
}

/// As [`cell_text`], with the value already rendered (by a converter).
pub fn cell_text_with(
    cell: &Cell,
    value: &str,
    timestamps: TimestampFormat,
    max_length: Option<usize>,
) -> String {
    let ts = timestamps.render(cell.timestamp());
    let text = if cell.is_delete() {
        format!("timestamp={ts}, type={}", cell.cell_type().name())
    } else {
        format!("timestamp={ts}, value={value}")
    };
    match max_length {
        Some(max) => text.chars().take(max).collect(),
        None => text,
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
    if f.new_version_behavior {
        // Printed only when set (HBase 2.5 leaves the default out too), after
        // KEEP_DELETED_CELLS.
        let at = parts
            .iter()
            .position(|p| p.starts_with("KEEP_DELETED_CELLS"))
            .map_or(parts.len(), |i| i + 1);
        parts.insert(at, "NEW_VERSION_BEHAVIOR => 'true'".to_string());
    }
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
    let mut metadata = d.metadata.clone();
    if let Some(secs) = metadata.remove(TableDescriptor::WAL_RETENTION_SECS) {
        attrs.push(format!("WAL_RETENTION_SECS => '{secs}'"));
    }
    if !metadata.is_empty() {
        attrs.push(format!("METADATA => {}", quoted_map(&metadata)));
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
    fn iso_timestamps_like_local_date_time() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00");
        assert_eq!(iso_utc(10), "1970-01-01T00:00:00.010");
        assert_eq!(iso_utc(1_446_726_973_017), "2015-11-05T12:36:13.017");
        assert_eq!(iso_utc(1_616_060_767_000), "2021-03-18T09:46:07");
        assert_eq!(iso_utc(951_782_400_000), "2000-02-29T00:00");
        assert_eq!(iso_utc(-1), "1969-12-31T23:59:59.999");
    }

    #[test]
    fn the_epoch_flag_picks_epoch_or_local_date_times() {
        let ts = 1_446_726_973_017;
        assert_eq!(
            TimestampFormat::from_epoch_flag(true).render(ts),
            ts.to_string()
        );
        let local = TimestampFormat::from_epoch_flag(false).render(ts);
        let expected = {
            use chrono::TimeZone;
            let t = chrono::Local
                .timestamp_millis_opt(ts)
                .single()
                .expect("valid");
            t.naive_local().and_utc().timestamp_millis()
        };
        assert_eq!(local, iso_utc(expected), "the machine's wall-clock time");
        assert_eq!(TimestampFormat::default(), TimestampFormat::Local);
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
        assert_eq!(cell_text(&put, Some(12)), "timestamp=14");
    }
}
