//! Golden tests of the rebuild's decisions.

use super::plan::{plan, Plan, Severity};
use super::scan::{FoundRegion, FoundTable, StoreScan};
use basalt_db::meta::record::{RegionRecord, RegionState};
use basalt_types::{FamilyDescriptor, NamespaceDescriptor, TableDescriptor, TableName};
use bytes::Bytes;

fn name(t: &str) -> TableName {
    TableName::parse(t).expect("valid")
}

fn region(t: &str, id: u64, start: &str, end: &str) -> RegionRecord {
    RegionRecord::new(
        name(t),
        id,
        Bytes::from(start.to_string()),
        Bytes::from(end.to_string()),
        RegionState::Open,
    )
}

fn table(t: &str, regions: &[RegionRecord]) -> FoundTable {
    FoundTable {
        name: name(t),
        descriptor: Ok(TableDescriptor::new(
            name(t),
            vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
        )),
        regions: regions
            .iter()
            .map(|r| FoundRegion {
                folder: r.encoded_name.clone(),
                record: Ok(r.clone()),
            })
            .collect(),
        disabled: false,
    }
}

fn scan(tables: Vec<FoundTable>) -> StoreScan {
    StoreScan {
        tables,
        ..StoreScan::default()
    }
}

/// Each region's start key and state, in key order then id.
fn states(plan: &Plan) -> Vec<String> {
    let mut regions: Vec<&RegionRecord> = plan.regions.iter().collect();
    regions.sort_by(|a, b| (&a.start_key, a.region_id).cmp(&(&b.start_key, b.region_id)));
    regions
        .iter()
        .map(|r| {
            let state = match &r.state {
                RegionState::Open | RegionState::Splitting => "live",
                RegionState::Split { .. } => "split",
                RegionState::Merged { .. } => "merged",
            };
            format!(
                "{}@{}:{state}",
                String::from_utf8_lossy(&r.start_key),
                r.region_id
            )
        })
        .collect()
}

fn severities(plan: &Plan) -> Vec<Severity> {
    plan.findings.iter().map(|f| f.severity).collect()
}

#[test]
fn a_pre_split_table_comes_back_live_with_every_dead_log_to_replay() {
    let regions = [region("ns:t", 1, "", "m"), region("ns:t", 1, "m", "")];
    let mut found = scan(vec![table("ns:t", &regions)]);
    found.logs = vec!["h,1,5".into()];
    found.namespaces = vec![NamespaceDescriptor::new("ns").expect("valid")];
    let plan = plan(&found);
    assert_eq!(states(&plan), ["@1:live", "m@1:live"]);
    assert_eq!(plan.recover_from, ["h,1,5"]);
    assert_eq!(plan.namespaces.len(), 1);
    assert!(plan.findings.is_empty(), "{:?}", plan.findings);
}

#[test]
fn an_unmarked_parent_whose_daughters_cover_it_is_retired_as_split() {
    let regions = [
        region("t", 1, "", ""),
        region("t", 2, "", "k"),
        region("t", 2, "k", ""),
    ];
    let plan = plan(&scan(vec![table("t", &regions)]));
    assert_eq!(states(&plan), ["@1:split", "@2:live", "k@2:live"]);
    // The namespace without a file, and the inferred split: notes, nothing inconsistent.
    assert_eq!(severities(&plan), [Severity::Note, Severity::Note]);
    assert_eq!(plan.inconsistent(), 0);
}

#[test]
fn a_split_of_a_daughter_retires_both_generations() {
    let regions = [
        region("t", 1, "", ""),
        region("t", 2, "", "k"),
        region("t", 2, "k", ""),
        region("t", 3, "", "c"),
        region("t", 3, "c", "k"),
    ];
    let plan = plan(&scan(vec![table("t", &regions)]));
    assert_eq!(
        states(&plan),
        ["@1:split", "@2:split", "@3:live", "c@3:live", "k@2:live"]
    );
    assert_eq!(plan.inconsistent(), 0);
}

#[test]
fn merged_parents_are_retired_and_a_marked_parent_stays_retired() {
    let mut low = region("t", 1, "", "k");
    let high = region("t", 1, "k", "");
    let merged = region("t", 2, "", "");
    low.state = RegionState::Merged {
        into: merged.encoded_name.clone(),
    };
    let plan = plan(&scan(vec![table("t", &[low, high, merged])]));
    assert_eq!(states(&plan), ["@1:merged", "@2:live", "k@1:merged"]);
    assert_eq!(plan.inconsistent(), 0);
}

#[test]
fn a_parent_marked_split_whose_daughter_is_gone_comes_back_live_and_overlaps_are_reported() {
    let bottom = region("t", 2, "", "k");
    let top = region("t", 2, "k", "");
    let mut parent = region("t", 1, "", "");
    parent.state = RegionState::Split {
        daughters: (bottom.encoded_name.clone(), top.encoded_name.clone()),
    };
    let plan = plan(&scan(vec![table("t", &[parent, bottom])]));
    assert_eq!(states(&plan), ["@1:live", "@2:live"]);
    let text: Vec<&str> = plan.findings.iter().map(|f| f.what.as_str()).collect();
    assert!(
        text.iter().any(|t| t.contains("comes back live")),
        "{text:?}"
    );
    assert!(text.iter().any(|t| t.contains("OVERLAP")), "{text:?}");
    assert!(plan.inconsistent() >= 1);
}

#[test]
fn holes_and_unreadable_folders_are_inconsistent_and_nothing_is_dropped_silently() {
    let mut found = scan(vec![table("t", &[region("t", 1, "", "k")])]);
    found.tables[0].regions.push(FoundRegion {
        folder: "0123".into(),
        record: Err("reading .regioninfo: not found".into()),
    });
    let mut other = table("u", &[region("u", 1, "", "")]);
    other.descriptor = Err("no .tableinfo".into());
    found.tables.push(other);
    let plan = plan(&found);
    let inconsistent: Vec<&str> = plan
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Inconsistent)
        .map(|f| f.what.as_str())
        .collect();
    assert_eq!(inconsistent.len(), 3, "{inconsistent:?}");
    assert!(inconsistent[0].contains("folder 0123"), "{inconsistent:?}");
    assert!(inconsistent[1].contains("HOLE"), "{inconsistent:?}");
    assert!(
        inconsistent[2].contains("table u: no readable descriptor"),
        "{inconsistent:?}"
    );
    assert_eq!(
        plan.tables.len(),
        1,
        "the table without descriptor is not rebuilt"
    );
}
