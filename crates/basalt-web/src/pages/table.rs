//! The table page (`/table.jsp?name=NS:T`, `/table?name=`): attributes, every option of
//! every family, the heat map and hot spots, the regions with their keys and load, and a
//! browser of the first rows.

use super::{browser, cards, region_grid, TableColumn};
use crate::html::Html;
use crate::layout::{facts, grid, key, page_in, section, Section};
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
    let metric = super::heat::metric(query);
    let conn = state.source.conn()?;
    let admin = conn.admin();
    let descriptor = admin.describe_table(&name)?;
    let enabled = admin.is_table_enabled(&name)?;
    let regions = admin.list_regions(&name)?;
    let rows = if enabled {
        Some(browser::read(state, &name, &request))
    } else {
        None
    };
    let title = format!("Table {name}");
    Ok(page_in(state.role(), &title, Section::Table, |h| {
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
        h.el("div", &[("class", "pair")], |h| {
            section(h, "Table attributes", |h| attributes(h, &descriptor));
            section(h, "Column families", |h| families(h, &descriptor.families));
        });
        super::heat::sections(h, &state.heat, &name, metric);
        let heading = format!("Regions ({})", regions.len());
        section(h, &heading, |h| region_grid(h, &regions, TableColumn::None));
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

/// How one family option is shown.
type FamilyOption = fn(&FamilyDescriptor) -> String;

/// Every option of every family: one row per option, one column per family (tables
/// rarely have more than a few families, and there are many options).
fn families(h: &mut Html, families: &[FamilyDescriptor]) {
    let names: Vec<String> = families.iter().map(|f| key(&f.name)).collect();
    let mut headers = vec!["Option"];
    headers.extend(names.iter().map(String::as_str));
    let options: [(&str, FamilyOption); 13] = [
        ("VERSIONS", |f| f.max_versions.to_string()),
        ("MIN_VERSIONS", |f| f.min_versions.to_string()),
        ("TTL", |f| {
            if f.ttl_secs == TTL_FOREVER_SECS {
                "FOREVER".to_string()
            } else {
                format!("{} s", f.ttl_secs)
            }
        }),
        ("KEEP_DELETED_CELLS", |f| {
            f.keep_deleted_cells.name().to_string()
        }),
        ("BLOOMFILTER", |f| f.bloom_filter.name().to_string()),
        ("BLOCKSIZE", |f| f.block_size_bytes.to_string()),
        ("BLOCKCACHE", |f| f.block_cache.to_string()),
        ("IN_MEMORY", |f| f.in_memory.to_string()),
        ("COMPRESSION", |f| f.compression.name().to_string()),
        ("DATA_BLOCK_ENCODING", |f| {
            f.data_block_encoding.name().to_string()
        }),
        ("REPLICATION_SCOPE", |f| f.replication_scope.to_string()),
        ("CONFIGURATION", |f| map_text(&f.configuration)),
        ("METADATA", |f| map_text(&f.metadata)),
    ];
    grid(h, "families", &headers, |h| {
        for (option, value) in options {
            h.el("tr", &[], |h| {
                h.el_text("th", &[("scope", "row")], option);
                for family in families {
                    h.el_text("td", &[("class", "mono")], &value(family));
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
