//! The cluster health report `basalt hbck --connect` reads: failed-to-open regions,
//! quarantined items and catalog inconsistencies. Optional texts travel as empty strings;
//! an inconsistency kind travels by its name.

use super::schema::decode_table;
use super::ConvertError;
use crate::pb;
use basalt_api::{ClusterHealth, FailedRegion, Inconsistency, InconsistencyKind, QuarantinedItem};

const KINDS: [InconsistencyKind; 5] = [
    InconsistencyKind::MissingFolder,
    InconsistencyKind::UnknownFolder,
    InconsistencyKind::Hole,
    InconsistencyKind::Overlap,
    InconsistencyKind::OrphanRow,
];

impl From<&ClusterHealth> for pb::ClusterHealthReport {
    fn from(h: &ClusterHealth) -> Self {
        pb::ClusterHealthReport {
            failed_regions: h
                .failed_regions
                .iter()
                .map(|f| pb::FailedRegion {
                    table: Some((&f.table).into()),
                    region_name: f.region_name.clone(),
                    encoded_name: f.encoded_name.clone(),
                    file: f.file.clone().unwrap_or_default(),
                    cause: f.cause.clone(),
                })
                .collect(),
            quarantined: h
                .quarantined
                .iter()
                .map(|q| pb::QuarantinedItem {
                    path: q.path.clone(),
                    original: q.original.clone(),
                    reason: q.reason.clone(),
                    bytes: q.bytes,
                    quarantined_at_ms: q.quarantined_at_ms,
                })
                .collect(),
            inconsistencies: h
                .inconsistencies
                .iter()
                .map(|i| pb::Inconsistency {
                    kind: i.kind.name().to_string(),
                    table: i.table.clone(),
                    detail: i.detail.clone(),
                })
                .collect(),
        }
    }
}

impl TryFrom<pb::ClusterHealthReport> for ClusterHealth {
    type Error = ConvertError;

    fn try_from(h: pb::ClusterHealthReport) -> Result<Self, ConvertError> {
        let failed_regions = h
            .failed_regions
            .into_iter()
            .map(|f| {
                Ok(FailedRegion {
                    table: decode_table(f.table)?,
                    region_name: f.region_name,
                    encoded_name: f.encoded_name,
                    file: (!f.file.is_empty()).then_some(f.file),
                    cause: f.cause,
                })
            })
            .collect::<Result<_, ConvertError>>()?;
        let inconsistencies = h
            .inconsistencies
            .into_iter()
            .map(|i| {
                let kind = KINDS
                    .into_iter()
                    .find(|k| k.name() == i.kind)
                    .ok_or_else(|| {
                        ConvertError::Invalid(format!("unknown inconsistency kind {}", i.kind))
                    })?;
                Ok(Inconsistency {
                    kind,
                    table: i.table,
                    detail: i.detail,
                })
            })
            .collect::<Result<_, ConvertError>>()?;
        Ok(ClusterHealth {
            failed_regions,
            quarantined: h
                .quarantined
                .into_iter()
                .map(|q| QuarantinedItem {
                    path: q.path,
                    original: q.original,
                    reason: q.reason,
                    bytes: q.bytes,
                    quarantined_at_ms: q.quarantined_at_ms,
                })
                .collect(),
            inconsistencies,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::TableName;

    #[test]
    fn a_report_round_trips() {
        let health = ClusterHealth {
            failed_regions: vec![FailedRegion {
                table: TableName::parse("ns:t").expect("valid"),
                region_name: "ns:t,,1.abc.".into(),
                encoded_name: "abc".into(),
                file: Some("/d/data/ns/t/abc/cf/1.hfile".into()),
                cause: "corrupt".into(),
            }],
            quarantined: vec![QuarantinedItem {
                path: "quarantine/data/ns/t/def".into(),
                original: "data/ns/t/def".into(),
                reason: "unnamed".into(),
                bytes: 12,
                quarantined_at_ms: 34,
            }],
            inconsistencies: KINDS
                .iter()
                .map(|&kind| Inconsistency {
                    kind,
                    table: "t".into(),
                    detail: kind.name().into(),
                })
                .collect(),
        };
        let back = ClusterHealth::try_from(pb::ClusterHealthReport::from(&health)).expect("valid");
        assert_eq!(back, health);
    }
}
