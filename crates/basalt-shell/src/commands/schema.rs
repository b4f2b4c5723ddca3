//! Family and table options as `create` and `alter` take them (reference §2.1, §2.2).
//!
//! Family hash: `{NAME => 'f', VERSIONS => 3, MIN_VERSIONS, TTL => 86400 | 'FOREVER' |
//! '1 DAY', KEEP_DELETED_CELLS => true | 'TTL', NEW_VERSION_BEHAVIOR => true, BLOOMFILTER, BLOCKSIZE, BLOCKCACHE,
//! IN_MEMORY, COMPRESSION, DATA_BLOCK_ENCODING, REPLICATION_SCOPE, CONFIGURATION => {..},
//! METADATA => {..}}`.
//!
//! Table options: `MAX_FILESIZE, MEMSTORE_FLUSHSIZE, READONLY, DURABILITY,
//! COMPACTION_ENABLED, SPLIT_ENABLED, MERGE_ENABLED, METADATA => {..}, CONFIGURATION => {..}`,
//! Basalt's `LOAD_SPLIT_ENABLED => true` (load-based split, kept in the table's
//! metadata: `basalt_api::load_split`), and, beyond HBase, `WAL_RETENTION_SECS` (kept in
//! the table's metadata too; point-in-time restore).

use crate::args;
use crate::command::CmdError;
use crate::parse::Value;
use basalt_types::descriptor::TTL_FOREVER_SECS;
use basalt_types::{
    BloomType, Compression, DataBlockEncoding, Durability, FamilyDescriptor, KeepDeletedCells,
    TableDescriptor,
};
use std::collections::BTreeMap;

fn types_err(e: basalt_types::Error) -> CmdError {
    CmdError::new(e.to_string())
}

fn count<T: TryFrom<i64>>(v: &Value, key: &str) -> Result<T, CmdError> {
    let n = args::int(v, key)?;
    T::try_from(n).map_err(|_| CmdError::new(format!("{key} out of range: {n}")))
}

/// `TTL` in seconds: a number, `FOREVER`, or words like `'1 DAY 2 HOURS'`.
pub fn ttl_secs(v: &Value) -> Result<u64, CmdError> {
    if let Value::Int(_) = v {
        return count(v, "TTL");
    }
    let text = args::text(v, "TTL")?;
    let text = text.trim();
    if text.eq_ignore_ascii_case("FOREVER") {
        return Ok(TTL_FOREVER_SECS);
    }
    if let Ok(n) = text.parse::<u64>() {
        return Ok(n);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut total = 0u64;
    for pair in words.chunks(2) {
        let (Some(n), Some(unit)) = (pair.first(), pair.get(1)) else {
            return Err(CmdError::new(format!("Malformed TTL string: {text}")));
        };
        let n: u64 = n
            .parse()
            .map_err(|_| CmdError::new(format!("Malformed TTL string: {text}")))?;
        let unit = unit.to_ascii_uppercase();
        let secs = match unit.trim_end_matches('S') {
            "SECOND" => 1,
            "MINUTE" => 60,
            "HOUR" => 3600,
            "DAY" => 86400,
            _ => return Err(CmdError::new(format!("Malformed TTL string: {text}"))),
        };
        total = total.saturating_add(n.saturating_mul(secs));
    }
    Ok(total)
}

fn string_map(v: &Value, key: &str) -> Result<BTreeMap<String, String>, CmdError> {
    let pairs = args::hash(v).ok_or_else(|| CmdError::new(format!("{key} must be a hash")))?;
    pairs
        .iter()
        .map(|(k, v)| Ok((args::text(k, key)?, args::text(v, key)?)))
        .collect()
}

/// Applies one family option; false when the key is not a family option.
pub fn apply_family_option(
    f: &mut FamilyDescriptor,
    key: &str,
    v: &Value,
) -> Result<bool, CmdError> {
    match key {
        "VERSIONS" => f.max_versions = count(v, key)?,
        "MIN_VERSIONS" => f.min_versions = count(v, key)?,
        "TTL" => f.ttl_secs = ttl_secs(v)?,
        "KEEP_DELETED_CELLS" => {
            f.keep_deleted_cells = match v {
                Value::Bool(true) => KeepDeletedCells::True,
                Value::Bool(false) => KeepDeletedCells::False,
                other => KeepDeletedCells::parse(&args::text(other, key)?).map_err(types_err)?,
            }
        }
        "NEW_VERSION_BEHAVIOR" => f.new_version_behavior = args::boolean(v, key)?,
        "BLOOMFILTER" => {
            f.bloom_filter = BloomType::parse(&args::text(v, key)?).map_err(types_err)?
        }
        "BLOCKSIZE" => f.block_size_bytes = count(v, key)?,
        "BLOCKCACHE" => f.block_cache = args::boolean(v, key)?,
        "IN_MEMORY" => f.in_memory = args::boolean(v, key)?,
        "COMPRESSION" => {
            f.compression = Compression::parse(&args::text(v, key)?).map_err(types_err)?
        }
        "DATA_BLOCK_ENCODING" => {
            f.data_block_encoding =
                DataBlockEncoding::parse(&args::text(v, key)?).map_err(types_err)?
        }
        "REPLICATION_SCOPE" => f.replication_scope = count(v, key)?,
        "CONFIGURATION" => f.configuration.extend(string_map(v, key)?),
        "METADATA" => f.metadata.extend(string_map(v, key)?),
        _ => return Ok(false),
    }
    Ok(true)
}

/// A family from `{NAME => 'f', ...}` on top of `base` (HBase defaults when `None`).
/// Returns the notices for keys it ignored.
pub fn family_from_hash(
    pairs: &[(Value, Value)],
    base: Option<FamilyDescriptor>,
) -> Result<(FamilyDescriptor, Vec<String>), CmdError> {
    let name_value = args::get(pairs, "NAME")
        .ok_or_else(|| CmdError::new("Column family name must be given with NAME"))?;
    let name = args::bytes(name_value, "NAME")?;
    let mut family = match base {
        Some(f) => f,
        None => FamilyDescriptor::new(name).map_err(types_err)?,
    };
    let mut notices = Vec::new();
    for (k, v) in pairs {
        let key = args::text(k, "option")?;
        if key == "NAME" || key == "METHOD" {
            continue;
        }
        if !apply_family_option(&mut family, &key, v)? {
            notices.push(format!(
                "An argument ignored (unknown or overridden): {key}"
            ));
        }
    }
    Ok((family, notices))
}

/// Applies one table option; false when the key is not a table option.
pub fn apply_table_option(t: &mut TableDescriptor, key: &str, v: &Value) -> Result<bool, CmdError> {
    match key {
        "MAX_FILESIZE" => t.max_file_size_bytes = count(v, key)?,
        "MEMSTORE_FLUSHSIZE" => t.memstore_flush_size_bytes = count(v, key)?,
        "READONLY" => t.read_only = args::boolean(v, key)?,
        "DURABILITY" => {
            t.durability = Durability::parse(&args::text(v, key)?).map_err(types_err)?
        }
        "COMPACTION_ENABLED" => t.compaction_enabled = args::boolean(v, key)?,
        "SPLIT_ENABLED" => t.split_enabled = args::boolean(v, key)?,
        "MERGE_ENABLED" => t.merge_enabled = args::boolean(v, key)?,
        // Beyond HBase: keep the table's logs for point-in-time restore.
        "WAL_RETENTION_SECS" => {
            let secs: u64 = count(v, key)?;
            t.metadata.insert(key.to_string(), secs.to_string());
        }
        basalt_api::load_split::LOAD_SPLIT_ENABLED => {
            let on = args::boolean(v, key)?;
            t.metadata.insert(key.to_string(), on.to_string());
        }
        "METADATA" => t.metadata.extend(string_map(v, key)?),
        "CONFIGURATION" => t.configuration.extend(string_map(v, key)?),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Resets a table option to its default (`METHOD => 'table_att_unset'`); false when unknown.
pub fn unset_table_option(t: &mut TableDescriptor, key: &str) -> bool {
    let defaults = TableDescriptor::new(t.name.clone(), Vec::new());
    match key {
        "MAX_FILESIZE" => t.max_file_size_bytes = defaults.max_file_size_bytes,
        "MEMSTORE_FLUSHSIZE" => t.memstore_flush_size_bytes = defaults.memstore_flush_size_bytes,
        "READONLY" => t.read_only = false,
        "DURABILITY" => t.durability = Durability::UseDefault,
        "COMPACTION_ENABLED" => t.compaction_enabled = true,
        "SPLIT_ENABLED" => t.split_enabled = true,
        "MERGE_ENABLED" => t.merge_enabled = true,
        other => return t.metadata.remove(other).is_some(),
    }
    true
}
