//! Thrift2's mutations: `TPut`, `TDelete`, `TIncrement`, `TAppend` and `TRowMutations` to
//! Basalt's (field ids in [`super::convert`]'s table).
//!
//! A `TPut`'s timestamp is the default of its column values; a `TDelete` without columns
//! deletes the whole row; `TDeleteType` picks the marker (`DELETE_COLUMNS` by default).

use super::convert::{required, structs};
use crate::protocol::Struct;
use crate::service::Failure;
use basalt_types::{
    Append, Delete, DeleteSpec, Durability, Increment, Mutation, Put, RowMutations,
    LATEST_TIMESTAMP,
};

pub fn durability(s: &Struct, id: i16) -> Result<Durability, Failure> {
    Ok(match s.i32(id) {
        None | Some(0) => Durability::UseDefault,
        Some(1) => Durability::SkipWal,
        Some(2) => Durability::AsyncWal,
        Some(3) => Durability::SyncWal,
        Some(4) => Durability::FsyncWal,
        Some(other) => return Err(Failure::io(format!("unknown TDurability {other}"))),
    })
}

pub fn put(s: &Struct) -> Result<Put, Failure> {
    let mut put = Put::new(required(s, 1, "TPut.row")?.clone());
    let default_ts = s.i64(3).unwrap_or(LATEST_TIMESTAMP);
    for value in structs(s, 2, "columnValues")? {
        put = put.add_at(
            required(value, 1, "TColumnValue.family")?.clone(),
            required(value, 2, "TColumnValue.qualifier")?.clone(),
            value.i64(4).unwrap_or(default_ts),
            value.binary(3).cloned().unwrap_or_default(),
        );
    }
    if put.cells.is_empty() {
        return Err(Failure::illegal("a TPut needs at least one column value"));
    }
    put.durability = durability(s, 6)?;
    Ok(put)
}

/// `TDeleteType`: `DELETE_COLUMN` (one version), `DELETE_COLUMNS` (the default: every
/// version up to the timestamp), `DELETE_FAMILY`, `DELETE_FAMILY_VERSION`.
pub fn delete(s: &Struct) -> Result<Delete, Failure> {
    let ts = s.i64(3).unwrap_or(LATEST_TIMESTAMP);
    let kind = s.i32(4).unwrap_or(1);
    if !(0..=3).contains(&kind) {
        return Err(Failure::io(format!("unknown TDeleteType {kind}")));
    }
    let mut delete = Delete::new(required(s, 1, "TDelete.row")?.clone()).at(ts);
    for column in structs(s, 2, "columns")? {
        let family = required(column, 1, "TColumn.family")?.clone();
        let timestamp = column.i64(3).unwrap_or(ts);
        let spec = match (column.binary(2).cloned(), kind) {
            (Some(qualifier), 0) => DeleteSpec::Version {
                family,
                qualifier,
                timestamp,
            },
            (Some(qualifier), _) => DeleteSpec::Columns {
                family,
                qualifier,
                timestamp,
            },
            (None, 3) => DeleteSpec::FamilyVersion { family, timestamp },
            (None, _) => DeleteSpec::Family { family, timestamp },
        };
        delete = delete.spec(spec);
    }
    delete.durability = durability(s, 7)?;
    Ok(delete)
}

pub fn increment(s: &Struct) -> Result<Increment, Failure> {
    let mut increment = Increment::new(required(s, 1, "TIncrement.row")?.clone());
    for column in structs(s, 2, "columns")? {
        increment = increment.add(
            required(column, 1, "TColumnIncrement.family")?.clone(),
            required(column, 2, "TColumnIncrement.qualifier")?.clone(),
            column.i64(3).unwrap_or(1),
        );
    }
    increment.durability = durability(s, 5)?;
    increment.return_results = s.bool(7).unwrap_or(true);
    Ok(increment)
}

pub fn append(s: &Struct) -> Result<Append, Failure> {
    let mut append = Append::new(required(s, 1, "TAppend.row")?.clone());
    for column in structs(s, 2, "columns")? {
        append = append.add(
            required(column, 1, "TColumnValue.family")?.clone(),
            required(column, 2, "TColumnValue.qualifier")?.clone(),
            column.binary(3).cloned().unwrap_or_default(),
        );
    }
    append.durability = durability(s, 4)?;
    append.return_results = s.bool(6).unwrap_or(true);
    Ok(append)
}

pub fn row_mutations(s: &Struct) -> Result<RowMutations, Failure> {
    let row = required(s, 1, "TRowMutations.row")?.clone();
    let mut mutations = Vec::new();
    for mutation in structs(s, 2, "mutations")? {
        if let Some(p) = mutation.structure(1) {
            mutations.push(Mutation::Put(put(p)?));
        } else if let Some(d) = mutation.structure(2) {
            mutations.push(Mutation::Delete(delete(d)?));
        } else {
            return Err(Failure::illegal("a TMutation must set put or deleteSingle"));
        }
    }
    Ok(RowMutations::new(row, mutations)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{TType, Value};

    fn column(family: &'static str, qualifier: Option<&'static str>) -> Value {
        let mut s = Struct::new().with(1, Value::binary(family));
        if let Some(q) = qualifier {
            s = s.with(2, Value::binary(q));
        }
        Value::Struct(s)
    }

    #[test]
    fn delete_types_pick_the_marker() {
        let cols = Value::List(
            TType::Struct,
            vec![column("f", Some("a")), column("g", None)],
        );
        let d = delete(
            &Struct::new()
                .with(1, Value::binary("r"))
                .with(2, cols.clone()),
        )
        .expect("valid");
        assert!(
            matches!(d.specs[0], DeleteSpec::Columns { .. }),
            "DELETE_COLUMNS by default"
        );
        assert!(matches!(d.specs[1], DeleteSpec::Family { .. }));
        let d = delete(
            &Struct::new()
                .with(1, Value::binary("r"))
                .with(2, cols)
                .with(4, Value::I32(0)),
        )
        .expect("valid");
        assert!(matches!(d.specs[0], DeleteSpec::Version { .. }));
        let whole = delete(&Struct::new().with(1, Value::binary("r"))).expect("valid");
        assert!(whole.is_whole_row());
        let bad = Struct::new()
            .with(1, Value::binary("r"))
            .with(4, Value::I32(9));
        assert!(delete(&bad).is_err());
    }

    #[test]
    fn a_put_takes_its_timestamp_unless_a_value_has_one() {
        let value = |ts: Option<i64>| {
            let mut s = Struct::new()
                .with(1, Value::binary("f"))
                .with(2, Value::binary("q"))
                .with(3, Value::binary("v"));
            if let Some(ts) = ts {
                s = s.with(4, Value::I64(ts));
            }
            Value::Struct(s)
        };
        let p = put(&Struct::new()
            .with(1, Value::binary("r"))
            .with(
                2,
                Value::List(TType::Struct, vec![value(None), value(Some(7))]),
            )
            .with(3, Value::I64(3))
            .with(6, Value::I32(1)))
        .expect("valid");
        let stamps: Vec<i64> = p.cells.iter().map(|c| c.timestamp()).collect();
        assert_eq!(stamps, vec![3, 7]);
        assert_eq!(p.durability, Durability::SkipWal);
        let empty = Struct::new().with(1, Value::binary("r"));
        assert!(matches!(put(&empty), Err(Failure::IllegalArgument(_))));
    }
}
