//! Data calls against a cluster that span regions: batches grouped per region server, and
//! scans that walk a table region by region.
//!
//! A batch's actions are located (location cache, else the master), grouped by server and
//! sent as one call per server; an action answered "retry elsewhere" (its region moved or
//! split) or whose server could not be reached is located again and sent again, alone
//! with the others in the same case, until the retries run out. Increments and appends
//! keep the nonce they were first sent with, so a resend is not applied twice.
//!
//! A scan reads one region at a time from the server holding it; when the region is done
//! it continues from the region's end (or, reversed, its start), as the standalone server
//! does across its regions. A region that moves mid-scan is found again and the scan goes
//! on after the last row returned, at the MVCC read point the region's first scanner was
//! opened at (HBase's `mvcc_read_point`): rows written meanwhile stay invisible to it.
//! The point is given only to a region inside the one that told it (itself, or a
//! daughter, which continues its parent's sequence ids); a merged region, or the next
//! region, reads at its own current point.

use crate::connection::Inner;
use crate::scanner::RemoteScanner;
use crate::table::{bad_response, RemoteTable};
use basalt_api::{Admin, ApiError, ErrorKind, RegionLocation, Result, Table};
use basalt_proto::convert::batch::{action_needs_nonce, decode_action_result, encode_action};
use basalt_proto::convert::ConvertError;
use basalt_proto::pb;
use basalt_types::{Action, ActionResult, RowResult, Scan, SeqId};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Whether an action failing with `e` may succeed when located again.
fn relocatable(e: &ApiError) -> bool {
    matches!(
        e.kind,
        ErrorKind::RetryElsewhere | ErrorKind::Unavailable | ErrorKind::Busy
    )
}

/// The first error of `results`, if any.
pub(crate) fn first_error(results: Vec<Result<ActionResult>>) -> Result<()> {
    results
        .into_iter()
        .find_map(Result::err)
        .map_or(Ok(()), Err)
}

/// Every action run once, each with its own result, in the order given.
pub(crate) fn batch(table: &RemoteTable, actions: &[Action]) -> Vec<Result<ActionResult>> {
    let inner = table.inner();
    let nonces: Vec<u64> = actions
        .iter()
        .map(|a| {
            if action_needs_nonce(a) {
                inner.next_nonce()
            } else {
                0
            }
        })
        .collect();
    let mut results: Vec<Option<Result<ActionResult>>> = vec![None; actions.len()];
    let mut pending: Vec<(usize, Option<ApiError>)> =
        (0..actions.len()).map(|i| (i, None)).collect();
    let mut tries = 0;
    while !pending.is_empty() {
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut again = Vec::new();
        for (i, failed) in pending.drain(..) {
            match table.locate(Action::row(&actions[i]), failed.as_ref()) {
                Ok(location) => groups.entry(location.server).or_default().push(i),
                Err(e) if relocatable(&e) && tries < inner.config.retries_max => {
                    again.push((i, Some(e)))
                }
                Err(e) => results[i] = Some(Err(e)),
            }
        }
        for (server, indexes) in groups {
            for chunk in indexes.chunks(inner.config.chunk_max.max(1)) {
                for (i, result) in chunk
                    .iter()
                    .zip(send(inner, table, &server, actions, &nonces, chunk))
                {
                    match result {
                        Err(e) if relocatable(&e) && tries < inner.config.retries_max => {
                            again.push((*i, Some(e)))
                        }
                        other => results[*i] = Some(other),
                    }
                }
            }
        }
        if !again.is_empty() {
            if tries > 0 {
                std::thread::sleep(inner.config.backoff(tries));
            }
            tries += 1;
        }
        pending = again;
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(bad_response(ConvertError::Missing("result")))))
        .collect()
}

/// One batch call to `server` for the actions at `indexes` (no retry here: the caller
/// locates the failed ones again).
fn send(
    inner: &Arc<Inner>,
    table: &RemoteTable,
    server: &str,
    actions: &[Action],
    nonces: &[u64],
    indexes: &[usize],
) -> Vec<Result<ActionResult>> {
    let client = match inner.tables_on(server) {
        Ok(client) => client,
        Err(e) => return indexes.iter().map(|_| Err(e.clone())).collect(),
    };
    let req = pb::BatchRequest {
        table: Some(table.wire_name().clone()),
        actions: indexes
            .iter()
            .map(|&i| encode_action(&actions[i], nonces[i]))
            .collect(),
        nonce_group: inner.nonce_group,
    };
    let mut c = client;
    match inner.once(async move { c.batch(req).await }) {
        Ok(r) if r.results.len() == indexes.len() => {
            r.results.into_iter().map(decode_action_result).collect()
        }
        Ok(r) => {
            let e = bad_response(ConvertError::Invalid(format!(
                "{} results for {} actions",
                r.results.len(),
                indexes.len()
            )));
            indexes.iter().map(|_| Err(e.clone())).collect()
        }
        Err(e) => indexes.iter().map(|_| Err(e.clone())).collect(),
    }
}

/// A scan walking a cluster's table region by region.
pub(crate) struct RegionWalker {
    table: RemoteTable,
    /// The scan still to do: its start moves past each finished region.
    scan: Scan,
    current: Option<(RegionLocation, RemoteScanner)>,
    rows_left: Option<u64>,
    /// The last whole row handed out: a scan resumes after it when its region moved.
    last_row: Option<Bytes>,
    /// The read point a region's scanner was opened at, with that region's key range.
    read_point: Option<(SeqId, Bytes, Bytes)>,
    done: bool,
}

impl RegionWalker {
    pub(crate) fn open(table: &RemoteTable, scan: &Scan) -> Result<Self> {
        let table = RemoteTable::new(table.inner().clone(), table.name().clone());
        let mut walker = Self {
            table,
            scan: scan.clone(),
            current: None,
            rows_left: scan.limit,
            last_row: None,
            read_point: None,
            done: false,
        };
        walker.open_next()?;
        Ok(walker)
    }

    /// The read point the current region's scanner reads at (the first region's, right
    /// after [`RegionWalker::open`]), when its server told one.
    pub(crate) fn read_point(&self) -> Option<SeqId> {
        self.read_point.as_ref().map(|(point, _, _)| *point)
    }

    /// The region where the remaining scan starts.
    fn first_region(&self, failed: Option<&ApiError>) -> Result<RegionLocation> {
        if !self.scan.reversed {
            return self.table.locate(&self.scan.start_row, failed);
        }
        let exclusive_at_start = !self.scan.start_inclusive && !self.scan.start_row.is_empty();
        if !self.scan.start_row.is_empty() {
            let found = self.table.locate(&self.scan.start_row, failed)?;
            if !(exclusive_at_start && found.start_key == self.scan.start_row) {
                return Ok(found);
            }
        }
        // From the table's end, or from just before a region's first key: the region
        // ending there, found among the table's regions.
        let regions = crate::admin::RemoteAdmin::new(self.table.inner().clone())
            .list_regions(self.table.name())?;
        let wanted_end: &[u8] = &self.scan.start_row;
        let found = regions
            .into_iter()
            .find(|r| r.end_key.as_ref() == wanted_end)
            .ok_or_else(|| {
                ApiError::new(
                    ErrorKind::RetryElsewhere,
                    "org.apache.hadoop.hbase.NotServingRegionException",
                    "no region ends where the reversed scan starts".to_string(),
                )
            })?;
        Ok(RegionLocation {
            region_name: found.region_name,
            start_key: found.start_key,
            end_key: found.end_key,
            server: found.server,
        })
    }

    fn open_next(&mut self) -> Result<()> {
        let inner = self.table.inner().clone();
        let mut failed: Option<ApiError> = None;
        let mut tries = 0;
        loop {
            let attempt = self.first_region(failed.as_ref()).and_then(|location| {
                let client = inner.tables_on(&location.server)?;
                let mut scan = self.scan.clone();
                scan.limit = self.rows_left;
                // A point the caller gave (a gateway reopening a client's scan) holds in
                // the first region; after it, each region's own.
                scan.read_point = self
                    .read_point
                    .as_ref()
                    .filter(|(_, start, end)| within(&location, start, end))
                    .map(|(point, _, _)| *point)
                    .or(self.scan.read_point);
                let scanner = RemoteScanner::open(
                    inner.clone(),
                    client,
                    self.table.wire_name().clone(),
                    &scan,
                    basalt_types::name::encoded_region_name(&location.region_name).to_string(),
                )?;
                Ok((location, scanner))
            });
            match attempt {
                Ok((location, scanner)) => {
                    let kept = self
                        .read_point
                        .as_ref()
                        .is_some_and(|(_, start, end)| within(&location, start, end));
                    self.scan.read_point = None;
                    if !kept {
                        self.read_point = scanner.read_point().map(|point| {
                            (point, location.start_key.clone(), location.end_key.clone())
                        });
                    }
                    self.current = Some((location, scanner));
                    return Ok(());
                }
                Err(e) if relocatable(&e) && tries < inner.config.retries_max => {
                    if tries > 0 {
                        std::thread::sleep(inner.config.backoff(tries));
                    }
                    tries += 1;
                    failed = Some(e);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Moves the scan's start past the finished region; false when nothing is left.
    fn advance_past(&mut self, region: &RegionLocation) -> bool {
        if self.scan.reversed {
            let start = &region.start_key;
            if start.is_empty() || (!self.scan.stop_row.is_empty() && *start <= self.scan.stop_row)
            {
                return false;
            }
            self.scan.start_row = start.clone();
            self.scan.start_inclusive = false;
        } else {
            let end = &region.end_key;
            if end.is_empty() || self.scan.past_stop(end) {
                return false;
            }
            self.scan.start_row = end.clone();
            self.scan.start_inclusive = true;
        }
        true
    }

    fn next_row(&mut self) -> Result<Option<RowResult>> {
        let mut resumes = 0;
        while !self.done {
            if self.rows_left == Some(0) {
                self.done = true;
                break;
            }
            if self.current.is_none() {
                self.open_next()?;
            }
            let Some((location, scanner)) = self.current.as_mut() else {
                continue;
            };
            match scanner.next() {
                Some(Ok(row)) => {
                    if !row.partial {
                        if let Some(left) = self.rows_left.as_mut() {
                            *left -= 1;
                        }
                        self.last_row = row.row_bytes();
                    }
                    return Ok(Some(row));
                }
                Some(Err(e))
                    if relocatable(&e) && resumes < self.table.inner().config.retries_max =>
                {
                    // The region moved mid-scan: go on after the last row handed out.
                    resumes += 1;
                    tracing::debug!(region = %location.region_name, error = %e, "a region moved under a scan: resuming");
                    if let Some(last) = self.last_row.clone() {
                        self.scan.start_row = last;
                        self.scan.start_inclusive = false;
                    }
                    self.current = None;
                }
                Some(Err(e)) => return Err(e),
                None => {
                    let location = location.clone();
                    self.current = None;
                    if !self.advance_past(&location) {
                        self.done = true;
                    }
                }
            }
        }
        Ok(None)
    }
}

/// Whether `region` lies inside the key range `[start, end)` (an empty end: the table's).
fn within(region: &RegionLocation, start: &Bytes, end: &Bytes) -> bool {
    let starts_inside = region.start_key >= *start;
    let ends_inside = end.is_empty() || (!region.end_key.is_empty() && region.end_key <= *end);
    starts_inside && ends_inside
}

impl basalt_api::ResultScanner for RegionWalker {}

impl Iterator for RegionWalker {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_row().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(start: &'static str, end: &'static str) -> RegionLocation {
        RegionLocation {
            region_name: String::new(),
            start_key: Bytes::from_static(start.as_bytes()),
            end_key: Bytes::from_static(end.as_bytes()),
            server: String::new(),
        }
    }

    #[test]
    fn a_read_point_goes_to_the_region_that_told_it_and_its_daughters_only() {
        let (start, end) = (Bytes::from_static(b"m"), Bytes::from_static(b"t"));
        let cases = [
            (region("m", "t"), true, "the region itself, moved"),
            (region("m", "p"), true, "its lower daughter"),
            (region("p", "t"), true, "its upper daughter"),
            (region("a", "t"), false, "merged with the region before"),
            (region("m", "z"), false, "merged with the region after"),
            (region("t", "z"), false, "the next region"),
            (region("m", ""), false, "merged up to the table's end"),
        ];
        for (location, expected, case) in cases {
            assert_eq!(within(&location, &start, &end), expected, "{case}");
        }
        assert!(within(
            &region("x", ""),
            &Bytes::from_static(b"m"),
            &Bytes::new()
        ));
    }
}
