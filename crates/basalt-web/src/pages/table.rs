//! The table page (`/table.jsp?name=NS:T`, `/table?name=`): attributes, every option of
//! every family, the regions with their keys and load, and a browser of the first rows.

use super::{browser, cards, region_grid};
use crate::html::Html;
use crate::layout::{facts, grid, page, section, Section};
use crate::query::Query;
use crate::server::AppState;
use crate::{units, WebError};
use basalt_types::descriptor::TTL_FOREVER_SECS;
use basalt_types::{FamilyDescriptor, TableDescriptor, TableName};
use std::collections::BTreeMap;

/// The longest table name parameter looked at.
const NAME_MAX_BYTES: usize = 512;

pub fn render(state: &AppState, query: &Query) -> Result<String, WebError> {
    let name = table_name(query)?;
    let request = browser::Request::from_query(query)?;
    let admin = state.conn.admin();
    let descriptor = admin.describe_table(&name)?;
    let enabled = admin.is_table_enabled(&name)?;
    let regions = admin.list_regions(&name)?;
    let rows = if enabled {
        Some(browser::read(state, &name, &request))
    } else {
        None
    };
    let title = format!("Table {name}");
    Ok(page(&title, Section::Table, |h| {
        let files: usize = regions.iter().map(|r| r.store_files).sum();
        let size: u64 = regions
            .iter()
            .map(|r| r.store_file_bytes + r.memstore_bytes)
            .sum();
        cards(
            h,
            &[
                (
                    "State",
                    if enabled { "enabled" } else { "disabled" }.to_string(),
                ),
                ("Regions", regions.len().to_string()),
                ("Families", descriptor.families.len().to_string()),
                ("Store files", files.to_string()),
                ("Size", units::bytes(size)),
            ],
        );
        section(h, "Table attributes", |h| attributes(h, &descriptor));
        section(h, "Column families", |h| families(h, &descriptor.families));
        let heading = format!("Regions ({})", regions.len());
        section(h, &heading, |h| region_grid(h, &regions, false));
        section(h, "Data browser", |h| {
            browser::form(h, &name, &request);
            match &rows {
                Some(rows) => browser::results(h, &name, &request, rows),
                None => crate::layout::note(h, "The table is disabled: no rows to show."),
            }
        });
    }))
}

fn table_name(query: &Query) -> Result<TableName, WebError> {
    let raw = query
        .get("name")
        .filter(|n| !n.is_empty())
        .ok_or_else(|| WebError::BadRequest("the name parameter is required".to_string()))?;
    if raw.len() > NAME_MAX_BYTES {
        return Err(WebError::BadRequest(format!(
            "the table name is {} bytes; at most {NAME_MAX_BYTES} are accepted",
            raw.len()
        )));
    }
    TableName::parse(raw).map_err(|e| WebError::BadRequest(format!("bad table name '{raw}': {e}")))
}

fn attributes(h: &mut Html, d: &TableDescriptor) {
    facts(
        h,
        &[
            ("MAX_FILESIZE", d.max_file_size_bytes.to_string()),
            (
                "MEMSTORE_FLUSHSIZE",
                d.memstore_flush_size_bytes.to_string(),
            ),
            ("READONLY", d.read_only.to_string()),
            ("DURABILITY", d.durability.name().to_string()),
            ("COMPACTION_ENABLED", d.compaction_enabled.to_string()),
            ("SPLIT_ENABLED", d.split_enabled.to_string()),
            ("MERGE_ENABLED", d.merge_enabled.to_string()),
            ("CONFIGURATION", map_text(&d.configuration)),
            ("METADATA", map_text(&d.metadata)),
        ],
    );
}

fn families(h: &mut Html, families: &[FamilyDescriptor]) {
    let headers = [
        "NAME",
        "VERSIONS",
        "MIN_VERSIONS",
        "TTL",
        "KEEP_DELETED_CELLS",
        "BLOOMFILTER",
        "BLOCKSIZE",
        "BLOCKCACHE",
        "IN_MEMORY",
        "COMPRESSION",
        "DATA_BLOCK_ENCODING",
        "REPLICATION_SCOPE",
        "CONFIGURATION",
        "METADATA",
    ];
    grid(h, "families", &headers, |h| {
        for f in families {
            let ttl = if f.ttl_secs == TTL_FOREVER_SECS {
                "FOREVER".to_string()
            } else {
                format!("{} s", f.ttl_secs)
            };
            let cells = [
                crate::layout::key(&f.name),
                f.max_versions.to_string(),
                f.min_versions.to_string(),
                ttl,
                f.keep_deleted_cells.name().to_string(),
                f.bloom_filter.name().to_string(),
                f.block_size_bytes.to_string(),
                f.block_cache.to_string(),
                f.in_memory.to_string(),
                f.compression.name().to_string(),
                f.data_block_encoding.name().to_string(),
                f.replication_scope.to_string(),
                map_text(&f.configuration),
                map_text(&f.metadata),
            ];
            h.el("tr", &[], |h| {
                for cell in &cells {
                    h.el_text("td", &[("class", "mono")], cell);
                }
            });
        }
    });
}

/// `{'k' => 'v', ...}` as the shell prints maps; `{}` when empty.
fn map_text(map: &BTreeMap<String, String>) -> String {
    let parts: Vec<String> = map.iter().map(|(k, v)| format!("'{k}' => '{v}'")).collect();
    format!("{{{}}}", parts.join(", "))
}
