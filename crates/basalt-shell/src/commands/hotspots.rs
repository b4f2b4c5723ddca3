//! The hot spots `status 'detailed'` prints: per enabled table, the regions' write counts
//! (since each region opened: the shell reads what `list_regions` reports) judged by
//! `basalt_api::hotspot`. Without the region servers' sample of written rows, a hot last
//! region is taken for monotonic keys; the web UI's table page judges the latest window
//! with the sample.

use basalt_api::hotspot::{detect, HotspotConfig, RegionWrites};
use basalt_api::{Admin, RegionState};
use basalt_types::escape::to_string_binary;

/// `hot spots:` then one line per finding (`    TABLE [cause] ...`); nothing when none. A
/// table that cannot be listed now (being dropped, its catalog failed) is passed over:
/// the rest of `status` says what is wrong.
pub fn lines(admin: &dyn Admin) -> Vec<String> {
    let mut out = Vec::new();
    for table in admin.list_tables(None).unwrap_or_default() {
        if !admin.is_table_enabled(&table).unwrap_or(false) {
            continue;
        }
        let regions: Vec<RegionWrites> = admin
            .list_regions(&table)
            .unwrap_or_default()
            .into_iter()
            .filter(|r| r.state == RegionState::Open)
            .map(|r| RegionWrites {
                encoded_name: r.encoded_name,
                start_key: r.start_key,
                end_key: r.end_key,
                writes: r.write_requests,
                ..RegionWrites::default()
            })
            .collect();
        for finding in detect(&regions, &HotspotConfig::default()) {
            let remedies: Vec<&str> = finding
                .cause()
                .remedies()
                .iter()
                .map(|r| r.name())
                .collect();
            out.push(format!(
                "    {table} [{}] {}; remedies: {}",
                finding.cause().name(),
                finding.describe(to_string_binary),
                remedies.join(", ")
            ));
        }
    }
    if !out.is_empty() {
        out.insert(
            0,
            "hot spots (writes since each region opened):".to_string(),
        );
    }
    out
}
