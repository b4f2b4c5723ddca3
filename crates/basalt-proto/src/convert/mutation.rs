//! Put, Delete, Increment, Append, row mutations and check-and-mutate.

use super::cell::{
    decode_cell, decode_compare_op, decode_durability, decode_time_range, encode_cell,
    encode_compare_op, encode_durability, encode_time_range,
};
use super::read::{decode_filter, encode_filter};
use super::{enum_value, required, ConvertError};
use crate::pb;
use basalt_types::{
    Append, CellType, CheckAndMutate, Condition, Delete, DeleteSpec, Increment, Mutation, Put,
    RowMutations,
};

impl From<&Put> for pb::Put {
    fn from(p: &Put) -> Self {
        pb::Put {
            row: p.row.clone(),
            cells: p.cells.iter().map(|c| encode_cell(c, &p.row)).collect(),
            durability: encode_durability(p.durability),
            ttl_ms: p.ttl_ms,
        }
    }
}

impl TryFrom<pb::Put> for Put {
    type Error = ConvertError;

    fn try_from(p: pb::Put) -> Result<Self, ConvertError> {
        let cells = p
            .cells
            .into_iter()
            .map(|c| decode_cell(c, &p.row))
            .collect::<Result<Vec<_>, _>>()?;
        if cells.iter().any(|c| c.cell_type() != CellType::Put) {
            return Err(ConvertError::Invalid("a put holds only Put cells".into()));
        }
        Ok(Put {
            row: p.row,
            cells,
            durability: decode_durability(p.durability)?,
            ttl_ms: p.ttl_ms,
        })
    }
}

fn encode_delete_spec(spec: &DeleteSpec) -> pb::DeleteSpec {
    use pb::delete_spec::Kind;
    let (kind, family, qualifier, timestamp) = match spec {
        DeleteSpec::Family { family, timestamp } => (Kind::Family, family, None, timestamp),
        DeleteSpec::FamilyVersion { family, timestamp } => {
            (Kind::FamilyVersion, family, None, timestamp)
        }
        DeleteSpec::Columns {
            family,
            qualifier,
            timestamp,
        } => (Kind::Columns, family, Some(qualifier), timestamp),
        DeleteSpec::Version {
            family,
            qualifier,
            timestamp,
        } => (Kind::Version, family, Some(qualifier), timestamp),
    };
    pb::DeleteSpec {
        kind: kind as i32,
        family: family.clone(),
        qualifier: qualifier.cloned().unwrap_or_default(),
        timestamp: *timestamp,
    }
}

fn decode_delete_spec(spec: pb::DeleteSpec) -> Result<DeleteSpec, ConvertError> {
    use pb::delete_spec::Kind;
    let (family, qualifier, timestamp) = (spec.family, spec.qualifier, spec.timestamp);
    Ok(match enum_value(spec.kind, "DeleteSpec.kind")? {
        Kind::Family => DeleteSpec::Family { family, timestamp },
        Kind::FamilyVersion => DeleteSpec::FamilyVersion { family, timestamp },
        Kind::Columns => DeleteSpec::Columns {
            family,
            qualifier,
            timestamp,
        },
        Kind::Version => DeleteSpec::Version {
            family,
            qualifier,
            timestamp,
        },
    })
}

impl From<&Delete> for pb::Delete {
    fn from(d: &Delete) -> Self {
        pb::Delete {
            row: d.row.clone(),
            timestamp: d.timestamp,
            specs: d.specs.iter().map(encode_delete_spec).collect(),
            durability: encode_durability(d.durability),
        }
    }
}

impl TryFrom<pb::Delete> for Delete {
    type Error = ConvertError;

    fn try_from(d: pb::Delete) -> Result<Self, ConvertError> {
        Ok(Delete {
            row: d.row,
            timestamp: d.timestamp,
            specs: d
                .specs
                .into_iter()
                .map(decode_delete_spec)
                .collect::<Result<_, _>>()?,
            durability: decode_durability(d.durability)?,
        })
    }
}

impl From<&Increment> for pb::Increment {
    fn from(i: &Increment) -> Self {
        pb::Increment {
            row: i.row.clone(),
            columns: i
                .columns
                .iter()
                .map(|(family, qualifier, delta)| pb::ColumnDelta {
                    family: family.clone(),
                    qualifier: qualifier.clone(),
                    delta: *delta,
                })
                .collect(),
            time_range: encode_time_range(&i.time_range),
            return_results: i.return_results,
            durability: encode_durability(i.durability),
            ttl_ms: i.ttl_ms,
        }
    }
}

impl TryFrom<pb::Increment> for Increment {
    type Error = ConvertError;

    fn try_from(i: pb::Increment) -> Result<Self, ConvertError> {
        Ok(Increment {
            row: i.row,
            columns: i
                .columns
                .into_iter()
                .map(|c| (c.family, c.qualifier, c.delta))
                .collect(),
            time_range: decode_time_range(i.time_range)?,
            return_results: i.return_results,
            durability: decode_durability(i.durability)?,
            ttl_ms: i.ttl_ms,
        })
    }
}

impl From<&Append> for pb::Append {
    fn from(a: &Append) -> Self {
        pb::Append {
            row: a.row.clone(),
            columns: a
                .columns
                .iter()
                .map(|(family, qualifier, suffix)| pb::ColumnSuffix {
                    family: family.clone(),
                    qualifier: qualifier.clone(),
                    suffix: suffix.clone(),
                })
                .collect(),
            time_range: encode_time_range(&a.time_range),
            return_results: a.return_results,
            durability: encode_durability(a.durability),
            ttl_ms: a.ttl_ms,
        }
    }
}

impl TryFrom<pb::Append> for Append {
    type Error = ConvertError;

    fn try_from(a: pb::Append) -> Result<Self, ConvertError> {
        Ok(Append {
            row: a.row,
            columns: a
                .columns
                .into_iter()
                .map(|c| (c.family, c.qualifier, c.suffix))
                .collect(),
            time_range: decode_time_range(a.time_range)?,
            return_results: a.return_results,
            durability: decode_durability(a.durability)?,
            ttl_ms: a.ttl_ms,
        })
    }
}

impl From<&Mutation> for pb::Mutation {
    fn from(m: &Mutation) -> Self {
        use pb::mutation::Kind;
        let kind = match m {
            Mutation::Put(p) => Kind::Put(p.into()),
            Mutation::Delete(d) => Kind::Delete(d.into()),
            Mutation::Increment(i) => Kind::Increment(i.into()),
            Mutation::Append(a) => Kind::Append(a.into()),
        };
        pb::Mutation { kind: Some(kind) }
    }
}

impl TryFrom<pb::Mutation> for Mutation {
    type Error = ConvertError;

    fn try_from(m: pb::Mutation) -> Result<Self, ConvertError> {
        use pb::mutation::Kind;
        Ok(match required(m.kind, "Mutation.kind")? {
            Kind::Put(p) => Mutation::Put(p.try_into()?),
            Kind::Delete(d) => Mutation::Delete(d.try_into()?),
            Kind::Increment(i) => Mutation::Increment(i.try_into()?),
            Kind::Append(a) => Mutation::Append(a.try_into()?),
        })
    }
}

impl From<&RowMutations> for pb::RowMutations {
    fn from(r: &RowMutations) -> Self {
        pb::RowMutations {
            row: r.row.clone(),
            mutations: r.mutations.iter().map(Into::into).collect(),
        }
    }
}

impl TryFrom<pb::RowMutations> for RowMutations {
    type Error = ConvertError;

    fn try_from(r: pb::RowMutations) -> Result<Self, ConvertError> {
        let mutations = r
            .mutations
            .into_iter()
            .map(Mutation::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RowMutations::new(r.row, mutations)?)
    }
}

impl From<&CheckAndMutate> for pb::CheckAndMutate {
    fn from(c: &CheckAndMutate) -> Self {
        use pb::check_and_mutate::Condition as Wire;
        let condition = match &c.condition {
            Condition::Column {
                family,
                qualifier,
                op,
                expected,
            } => Wire::Column(pb::ColumnCondition {
                family: family.clone(),
                qualifier: qualifier.clone(),
                op: encode_compare_op(*op),
                expected: expected.clone(),
            }),
            Condition::Filter(spec) => Wire::Filter(encode_filter(spec)),
        };
        pb::CheckAndMutate {
            row: c.row.clone(),
            condition: Some(condition),
            time_range: encode_time_range(&c.time_range),
            mutations: Some((&c.mutations).into()),
        }
    }
}

impl TryFrom<pb::CheckAndMutate> for CheckAndMutate {
    type Error = ConvertError;

    fn try_from(c: pb::CheckAndMutate) -> Result<Self, ConvertError> {
        use pb::check_and_mutate::Condition as Wire;
        let condition = match required(c.condition, "CheckAndMutate.condition")? {
            Wire::Column(col) => Condition::Column {
                family: col.family,
                qualifier: col.qualifier,
                op: decode_compare_op(col.op)?,
                expected: col.expected,
            },
            Wire::Filter(bytes) => Condition::Filter(decode_filter(&bytes)?),
        };
        let mutations: RowMutations =
            required(c.mutations, "CheckAndMutate.mutations")?.try_into()?;
        if mutations.row != c.row {
            return Err(ConvertError::Invalid(
                "check-and-mutate: the mutations name another row".into(),
            ));
        }
        Ok(CheckAndMutate {
            row: c.row,
            condition,
            time_range: decode_time_range(c.time_range)?,
            mutations,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::{CompareOp, Durability};
    use bytes::Bytes;

    #[test]
    fn mutations_round_trip() {
        let put = Put::new("r")
            .add_at("f", "q", 5, "v")
            .durability(Durability::SyncWal);
        let delete = Delete::new("r").at(7).columns("f", "q").family("g");
        let inc = Increment::new("r").add("f", "c", -3);
        let app = Append::new("r").add("f", "s", "xy");
        let all = vec![
            Mutation::Put(put),
            Mutation::Delete(delete),
            Mutation::Increment(inc),
            Mutation::Append(app),
        ];
        let rm = RowMutations::new("r", all).expect("one row");
        assert_eq!(
            RowMutations::try_from(pb::RowMutations::from(&rm)).expect("valid"),
            rm
        );
        let cam = CheckAndMutate::column(
            "r",
            "f",
            "q",
            CompareOp::Equal,
            Some(Bytes::from_static(b"v")),
            Mutation::Put(Put::new("r").add("f", "q", "w")),
        )
        .expect("one row");
        assert_eq!(
            CheckAndMutate::try_from(pb::CheckAndMutate::from(&cam)).expect("valid"),
            cam
        );
    }

    #[test]
    fn a_put_of_another_row_or_with_markers_is_refused() {
        let mut wire = pb::Put::from(&Put::new("r").add("f", "q", "v"));
        wire.cells[0].row = Bytes::from_static(b"other");
        assert!(Put::try_from(wire.clone()).is_err());
        wire.cells[0].row = Bytes::new();
        wire.cells[0].cell_type = 14;
        assert!(Put::try_from(wire).is_err());
    }
}
