//! Get and Scan. Filters travel as `basalt_filter::encode` bytes.

use super::cell::{decode_columns, decode_time_range, encode_columns, encode_time_range};
use super::ConvertError;
use crate::pb;
use basalt_types::{FilterSpec, Get, Scan};
use bytes::Bytes;

pub fn encode_filter(filter: &FilterSpec) -> Bytes {
    Bytes::from(basalt_filter::encode(filter))
}

pub fn decode_filter(bytes: &[u8]) -> Result<FilterSpec, ConvertError> {
    Ok(basalt_filter::decode(bytes)?)
}

fn decode_optional_filter(bytes: Option<Bytes>) -> Result<Option<FilterSpec>, ConvertError> {
    bytes.map(|b| decode_filter(&b)).transpose()
}

impl From<&Get> for pb::Get {
    fn from(g: &Get) -> Self {
        pb::Get {
            row: g.row.clone(),
            columns: encode_columns(&g.columns),
            max_versions: g.max_versions,
            time_range: encode_time_range(&g.time_range),
            filter: g.filter.as_ref().map(encode_filter),
            max_results_per_family: g.max_results_per_family,
            row_offset_per_family: g.row_offset_per_family,
            check_existence_only: g.check_existence_only,
        }
    }
}

impl TryFrom<pb::Get> for Get {
    type Error = ConvertError;

    fn try_from(g: pb::Get) -> Result<Self, ConvertError> {
        if g.max_versions == 0 {
            return Err(ConvertError::Invalid(
                "Get.max_versions must be positive".into(),
            ));
        }
        Ok(Get {
            row: g.row,
            columns: decode_columns(g.columns)?,
            max_versions: g.max_versions,
            time_range: decode_time_range(g.time_range)?,
            filter: decode_optional_filter(g.filter)?,
            max_results_per_family: g.max_results_per_family,
            row_offset_per_family: g.row_offset_per_family,
            check_existence_only: g.check_existence_only,
        })
    }
}

impl From<&Scan> for pb::Scan {
    fn from(s: &Scan) -> Self {
        pb::Scan {
            start_row: s.start_row.clone(),
            start_inclusive: s.start_inclusive,
            stop_row: s.stop_row.clone(),
            stop_inclusive: s.stop_inclusive,
            reversed: s.reversed,
            limit: s.limit,
            batch: s.batch,
            max_result_size_bytes: s.max_result_size_bytes,
            caching: s.caching,
            raw: s.raw,
            max_versions: s.max_versions,
            time_range: encode_time_range(&s.time_range),
            columns: encode_columns(&s.columns),
            filter: s.filter.as_ref().map(encode_filter),
            max_results_per_family: s.max_results_per_family,
            row_offset_per_family: s.row_offset_per_family,
            cache_blocks: s.cache_blocks,
            read_point: s.read_point.map(basalt_types::SeqId::get),
        }
    }
}

impl TryFrom<pb::Scan> for Scan {
    type Error = ConvertError;

    fn try_from(s: pb::Scan) -> Result<Self, ConvertError> {
        if s.max_versions == 0 {
            return Err(ConvertError::Invalid(
                "Scan.max_versions must be positive".into(),
            ));
        }
        if s.batch == Some(0) {
            return Err(ConvertError::Invalid("Scan.batch must be positive".into()));
        }
        Ok(Scan {
            start_row: s.start_row,
            start_inclusive: s.start_inclusive,
            stop_row: s.stop_row,
            stop_inclusive: s.stop_inclusive,
            reversed: s.reversed,
            limit: s.limit,
            batch: s.batch,
            max_result_size_bytes: s.max_result_size_bytes,
            caching: s.caching,
            raw: s.raw,
            max_versions: s.max_versions,
            time_range: decode_time_range(s.time_range)?,
            columns: decode_columns(s.columns)?,
            filter: decode_optional_filter(s.filter)?,
            max_results_per_family: s.max_results_per_family,
            row_offset_per_family: s.row_offset_per_family,
            cache_blocks: s.cache_blocks,
            read_point: basalt_types::SeqId::from_wire(s.read_point),
            cancel: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::TimeRange;

    #[test]
    fn scans_round_trip() {
        let scan = Scan::new()
            .start("a")
            .stop("m")
            .reversed(true)
            .limit(3)
            .batch(2)
            .versions(4)
            .column("f", "q")
            .time_range(TimeRange::new(1, 9).expect("valid"))
            .filter(FilterSpec::Prefix(Bytes::from_static(b"ab")));
        assert_eq!(Scan::try_from(pb::Scan::from(&scan)).expect("valid"), scan);
    }

    #[test]
    fn gets_round_trip_and_garbage_filters_fail() {
        let get = Get::new("r").family("f").versions(2);
        assert_eq!(Get::try_from(pb::Get::from(&get)).expect("valid"), get);
        let mut wire = pb::Get::from(&get);
        wire.filter = Some(Bytes::from_static(b"\x01\xff\xff"));
        assert!(Get::try_from(wire).is_err());
    }
}
