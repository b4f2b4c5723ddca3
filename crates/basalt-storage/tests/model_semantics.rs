//! Model-based test: random puts (explicit and server timestamps), every delete kind,
//! increments, appends, check-and-mutates, gets and scans (versions, time ranges, raw,
//! reversed, limits), interleaved with flushes, minor and major compactions, reopen and
//! clock ticks — the engine's answers compared with the model in `model/`.
//!
//! 256 cases by default; `BASALT_MODEL_CASES` raises the count.

use crate::model;

use basalt_storage::clock::ManualClock;
use basalt_storage::fs::LocalFs;
use basalt_storage::{Engine, Region, RegionInfo, StorageConfig};
use basalt_types::{
    Append, Cell, CellType, CheckAndMutate, CompareOp, Delete, DeleteSpec, FamilyDescriptor, Get,
    Increment, KeepDeletedCells, Mutation, Put, RowResult, Scan, TableDescriptor, TableName,
    TimeRange, LATEST_TIMESTAMP,
};
use bytes::Bytes;
use model::Model;
use proptest::prelude::*;
use std::sync::Arc;

const START_MS: i64 = 1_000_000;
const ROWS: u8 = 4;
const FAMILIES: [&str; 2] = ["f1", "f2"];

fn families() -> Vec<FamilyDescriptor> {
    let mut f1 = FamilyDescriptor::new("f1").expect("valid");
    f1.max_versions = 3;
    let mut f2 = FamilyDescriptor::new("f2").expect("valid");
    f2.max_versions = 2;
    f2.min_versions = 1;
    f2.ttl_secs = 30;
    f2.keep_deleted_cells = KeepDeletedCells::True;
    vec![f1, f2]
}

fn descriptor() -> TableDescriptor {
    let mut t = TableDescriptor::new(TableName::parse("model").expect("valid"), families());
    t.compaction_enabled = false; // the test decides when files are compacted
    t
}

/// An explicit timestamp from a small index: around the start, some older than f2's TTL.
fn ts(index: Option<u8>) -> i64 {
    index.map_or(LATEST_TIMESTAMP, |i| {
        START_MS - 40_000 + i64::from(i) * 2_000
    })
}

fn row(i: u8) -> Bytes {
    Bytes::from(format!("r{i}"))
}

fn family(i: u8) -> Bytes {
    Bytes::from_static(FAMILIES[usize::from(i) % 2].as_bytes())
}

fn qualifier(i: u8) -> Bytes {
    Bytes::from(format!("q{}", i % 3))
}

#[derive(Debug, Clone)]
enum Op {
    Put {
        row: u8,
        family: u8,
        qualifier: u8,
        ts: Option<u8>,
        value: u8,
    },
    DeleteVersion {
        row: u8,
        family: u8,
        qualifier: u8,
        ts: Option<u8>,
    },
    DeleteColumns {
        row: u8,
        family: u8,
        qualifier: u8,
        ts: Option<u8>,
    },
    DeleteFamily {
        row: u8,
        family: u8,
        ts: Option<u8>,
    },
    DeleteFamilyVersion {
        row: u8,
        family: u8,
        ts: u8,
    },
    DeleteRow {
        row: u8,
        ts: Option<u8>,
    },
    Increment {
        row: u8,
        family: u8,
        delta: i8,
    },
    Append {
        row: u8,
        family: u8,
        suffix: u8,
    },
    CheckAndPut {
        row: u8,
        family: u8,
        qualifier: u8,
        op: u8,
        expected: Option<u8>,
        value: u8,
    },
    Get {
        row: u8,
        family: Option<u8>,
        versions: u8,
        range: Option<(u8, u8)>,
    },
    Scan {
        start: Option<u8>,
        stop: Option<u8>,
        reversed: bool,
        limit: Option<u8>,
        versions: u8,
        range: Option<(u8, u8)>,
        raw: bool,
    },
    Flush,
    MinorCompact,
    MajorCompact,
    Reopen,
    Tick {
        seconds: u8,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let r = 0..ROWS;
    let ts = proptest::option::weighted(0.7, 0u8..30);
    prop_oneof![
        6 => (r.clone(), any::<u8>(), any::<u8>(), ts.clone(), any::<u8>())
            .prop_map(|(row, family, qualifier, ts, value)| Op::Put { row, family, qualifier, ts, value }),
        1 => (r.clone(), any::<u8>(), any::<u8>(), ts.clone()).prop_map(|(row, family, qualifier, ts)| Op::DeleteVersion { row, family, qualifier, ts }),
        1 => (r.clone(), any::<u8>(), any::<u8>(), ts.clone()).prop_map(|(row, family, qualifier, ts)| Op::DeleteColumns { row, family, qualifier, ts }),
        1 => (r.clone(), any::<u8>(), ts.clone()).prop_map(|(row, family, ts)| Op::DeleteFamily { row, family, ts }),
        1 => (r.clone(), any::<u8>(), 0u8..30).prop_map(|(row, family, ts)| Op::DeleteFamilyVersion { row, family, ts }),
        1 => (r.clone(), ts.clone()).prop_map(|(row, ts)| Op::DeleteRow { row, ts }),
        2 => (r.clone(), any::<u8>(), any::<i8>()).prop_map(|(row, family, delta)| Op::Increment { row, family, delta }),
        1 => (r.clone(), any::<u8>(), any::<u8>()).prop_map(|(row, family, suffix)| Op::Append { row, family, suffix }),
        2 => (r.clone(), any::<u8>(), any::<u8>(), 0u8..7, proptest::option::of(0u8..4), any::<u8>())
            .prop_map(|(row, family, qualifier, op, expected, value)| Op::CheckAndPut { row, family, qualifier, op, expected, value }),
        3 => (r.clone(), proptest::option::of(any::<u8>()), 1u8..5, proptest::option::of((0u8..32, 0u8..32)))
            .prop_map(|(row, family, versions, range)| Op::Get { row, family, versions, range }),
        3 => (proptest::option::of(0..ROWS + 1), proptest::option::of(0..ROWS + 1), any::<bool>(), proptest::option::of(1u8..4),
              1u8..5, proptest::option::of((0u8..32, 0u8..32)), proptest::bool::weighted(0.3))
            .prop_map(|(start, stop, reversed, limit, versions, range, raw)| Op::Scan { start, stop, reversed, limit, versions, range, raw }),
        2 => Just(Op::Flush),
        1 => Just(Op::MinorCompact),
        1 => Just(Op::MajorCompact),
        1 => Just(Op::Reopen),
        1 => (1u8..20).prop_map(|seconds| Op::Tick { seconds }),
    ]
}

struct Harness {
    dir: tempfile::TempDir,
    clock: Arc<ManualClock>,
    /// The open engine and its region; `None` only while reopening.
    open: Option<(Arc<Engine>, Arc<Region>)>,
    model: Model,
}

fn temp_dir() -> tempfile::TempDir {
    // fsyncs are free on tmpfs; the crash test covers durability on a real disk.
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(dir) = tempfile::tempdir_in(shm) {
            return dir;
        }
    }
    tempfile::tempdir().expect("temp dir")
}

fn open(dir: &std::path::Path, clock: &Arc<ManualClock>) -> (Arc<Engine>, Arc<Region>) {
    let config = StorageConfig {
        compaction_min_files: 2,
        ..StorageConfig::default()
    };
    let engine = Engine::open(Arc::new(LocalFs), dir, config, clock.clone()).expect("engine opens");
    let region = engine
        .open_region(RegionInfo::whole("model-region"), descriptor())
        .expect("region opens");
    (engine, region)
}

fn key(cell: &Cell) -> (Bytes, Bytes, Bytes, i64, CellType, Bytes) {
    (
        cell.row_bytes(),
        cell.family_bytes(),
        cell.qualifier_bytes(),
        cell.timestamp(),
        cell.cell_type(),
        cell.value_bytes(),
    )
}

fn same(engine: &[RowResult], model: &[RowResult]) -> bool {
    let flat = |rows: &[RowResult]| {
        rows.iter()
            .map(|r| r.cells.iter().map(key).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    flat(engine) == flat(model)
}

fn time_range(range: Option<(u8, u8)>) -> TimeRange {
    match range {
        None => TimeRange::ALL,
        Some((a, b)) => {
            let (lo, hi) = (ts(Some(a.min(b))), ts(Some(a.max(b))));
            TimeRange::new(lo, hi).expect("ordered")
        }
    }
}

impl Harness {
    fn new() -> Self {
        let dir = temp_dir();
        let clock = Arc::new(ManualClock::new(START_MS));
        let open = Some(open(dir.path(), &clock));
        Self {
            dir,
            clock,
            open,
            model: Model::new(families()),
        }
    }

    fn region(&self) -> &Region {
        &self.open.as_ref().expect("engine is open").1
    }

    fn now(&self) -> i64 {
        use basalt_storage::clock::Clock;
        self.clock.now_ms()
    }

    fn read(&self, scan: &Scan) -> Result<(), TestCaseError> {
        let engine: Vec<RowResult> = self
            .region()
            .scanner(scan)
            .expect("scanner")
            .map(|r| r.expect("scan"))
            .collect();
        let model = self.model.scan(scan, self.now());
        prop_assert!(
            same(&engine, &model),
            "scan {:?}\nengine {:#?}\nmodel {:#?}",
            scan,
            engine,
            model
        );
        Ok(())
    }

    fn resolve(&self, ts_index: Option<u8>) -> i64 {
        match ts(ts_index) {
            LATEST_TIMESTAMP => self.now(),
            t => t,
        }
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let now = self.now();
        match op.clone() {
            Op::Put {
                row: r,
                family: f,
                qualifier: q,
                ts: t,
                value,
            } => {
                let put = Put::new(row(r)).add_at(family(f), qualifier(q), ts(t), vec![value]);
                self.region().put(&put).expect("put");
                self.model.write(vec![Cell::put(
                    row(r),
                    family(f),
                    qualifier(q),
                    self.resolve(t),
                    vec![value],
                )]);
            }
            Op::DeleteVersion {
                row: r,
                family: f,
                qualifier: q,
                ts: t,
            } => {
                let spec = DeleteSpec::Version {
                    family: family(f),
                    qualifier: qualifier(q),
                    timestamp: ts(t),
                };
                self.region()
                    .delete(&Delete::new(row(r)).spec(spec))
                    .expect("delete");
                let marker_ts = match t {
                    Some(_) => ts(t),
                    None => self
                        .model
                        .latest(&row(r), &family(f), &qualifier(q), now)
                        .map_or(now, |c| c.timestamp()),
                };
                self.model.write(vec![Cell::marker(
                    row(r),
                    family(f),
                    qualifier(q),
                    marker_ts,
                    CellType::Delete,
                )]);
            }
            Op::DeleteColumns {
                row: r,
                family: f,
                qualifier: q,
                ts: t,
            } => {
                let spec = DeleteSpec::Columns {
                    family: family(f),
                    qualifier: qualifier(q),
                    timestamp: ts(t),
                };
                self.region()
                    .delete(&Delete::new(row(r)).spec(spec))
                    .expect("delete");
                self.model.write(vec![Cell::marker(
                    row(r),
                    family(f),
                    qualifier(q),
                    self.resolve(t),
                    CellType::DeleteColumn,
                )]);
            }
            Op::DeleteFamily {
                row: r,
                family: f,
                ts: t,
            } => {
                self.region()
                    .delete(&Delete::new(row(r)).spec(DeleteSpec::Family {
                        family: family(f),
                        timestamp: ts(t),
                    }))
                    .expect("delete");
                self.model.write(vec![Cell::marker(
                    row(r),
                    family(f),
                    Bytes::new(),
                    self.resolve(t),
                    CellType::DeleteFamily,
                )]);
            }
            Op::DeleteFamilyVersion {
                row: r,
                family: f,
                ts: t,
            } => {
                let spec = DeleteSpec::FamilyVersion {
                    family: family(f),
                    timestamp: ts(Some(t)),
                };
                self.region()
                    .delete(&Delete::new(row(r)).spec(spec))
                    .expect("delete");
                self.model.write(vec![Cell::marker(
                    row(r),
                    family(f),
                    Bytes::new(),
                    ts(Some(t)),
                    CellType::DeleteFamilyVersion,
                )]);
            }
            Op::DeleteRow { row: r, ts: t } => {
                self.region()
                    .delete(&Delete::new(row(r)).at(ts(t)))
                    .expect("delete row");
                let markers = FAMILIES
                    .iter()
                    .map(|f| {
                        Cell::marker(
                            row(r),
                            f,
                            Bytes::new(),
                            self.resolve(t),
                            CellType::DeleteFamily,
                        )
                    })
                    .collect();
                self.model.write(markers);
            }
            Op::Increment {
                row: r,
                family: f,
                delta,
            } => {
                let q = Bytes::from_static(b"n");
                let got = self
                    .region()
                    .increment(&Increment::new(row(r)).add(family(f), q.clone(), i64::from(delta)))
                    .expect("increment");
                let current = self.model.latest(&row(r), &family(f), &q, now);
                // An increment by 0 of an existing cell answers it and writes nothing
                // (HBASE-10252); of a missing cell it writes 0 (HBASE-17318).
                if let (0, Some(c)) = (delta, &current) {
                    prop_assert_eq!(got.cells.iter().map(key).collect::<Vec<_>>(), vec![key(c)]);
                    return Ok(());
                }
                let (old, new_ts) = match &current {
                    None => (0, now),
                    Some(c) => (
                        i64::from_be_bytes(c.value().as_ref().try_into().expect("8 bytes")),
                        now.max(c.timestamp() + 1),
                    ),
                };
                let cell = Cell::put(
                    row(r),
                    family(f),
                    q,
                    new_ts,
                    (old + i64::from(delta)).to_be_bytes(),
                );
                prop_assert_eq!(
                    got.cells.iter().map(key).collect::<Vec<_>>(),
                    vec![key(&cell)]
                );
                self.model.write(vec![cell]);
            }
            Op::Append {
                row: r,
                family: f,
                suffix,
            } => {
                let q = Bytes::from_static(b"s");
                let got = self
                    .region()
                    .append(&Append::new(row(r)).add(family(f), q.clone(), vec![suffix]))
                    .expect("append");
                let current = self.model.latest(&row(r), &family(f), &q, now);
                let (mut value, new_ts) = match &current {
                    None => (Vec::new(), now),
                    Some(c) => (c.value().to_vec(), now.max(c.timestamp() + 1)),
                };
                value.push(suffix);
                let cell = Cell::put(row(r), family(f), q, new_ts, value);
                prop_assert_eq!(
                    got.cells.iter().map(key).collect::<Vec<_>>(),
                    vec![key(&cell)]
                );
                self.model.write(vec![cell]);
            }
            Op::CheckAndPut {
                row: r,
                family: f,
                qualifier: q,
                op,
                expected,
                value,
            } => {
                let ops = [
                    CompareOp::Less,
                    CompareOp::LessOrEqual,
                    CompareOp::Equal,
                    CompareOp::NotEqual,
                    CompareOp::GreaterOrEqual,
                    CompareOp::Greater,
                    CompareOp::NoOp,
                ];
                let op = ops[usize::from(op) % ops.len()];
                let expected = expected.map(|e| Bytes::from(vec![e * 64]));
                let put = Put::new(row(r)).add(family(f), qualifier(q), vec![value]);
                let cam = CheckAndMutate::column(
                    row(r),
                    family(f),
                    qualifier(q),
                    op,
                    expected.clone(),
                    Mutation::Put(put),
                )
                .expect("valid");
                let (succeeded, _) = self
                    .region()
                    .check_and_mutate(&cam)
                    .expect("check and mutate");
                let current = self.model.latest(&row(r), &family(f), &qualifier(q), now);
                let holds = match (&expected, &current) {
                    (None, None) => op != CompareOp::NotEqual,
                    (None, Some(c)) => c.value().is_empty() == (op != CompareOp::NotEqual),
                    (Some(_), None) => op == CompareOp::NotEqual,
                    (Some(e), Some(c)) => op.holds(e.as_ref().cmp(c.value().as_ref())),
                };
                prop_assert_eq!(
                    succeeded,
                    holds,
                    "condition {:?} {:?} against {:?}",
                    op,
                    expected,
                    current
                );
                if holds {
                    self.model.write(vec![Cell::put(
                        row(r),
                        family(f),
                        qualifier(q),
                        now,
                        vec![value],
                    )]);
                }
            }
            Op::Get {
                row: r,
                family: f,
                versions,
                range,
            } => {
                let mut get = Get::new(row(r))
                    .versions(u32::from(versions))
                    .time_range(time_range(range));
                if let Some(f) = f {
                    get = get.family(family(f));
                }
                let engine = self.region().get(&get).expect("get");
                let model: Vec<Cell> = self
                    .model
                    .scan(&Scan::from_get(&get), now)
                    .into_iter()
                    .flat_map(|r| r.cells)
                    .collect();
                prop_assert_eq!(
                    engine.cells.iter().map(key).collect::<Vec<_>>(),
                    model.iter().map(key).collect::<Vec<_>>(),
                    "get {:?}",
                    get
                );
            }
            Op::Scan {
                start,
                stop,
                reversed,
                limit,
                versions,
                range,
                raw,
            } => {
                let mut scan = Scan::new()
                    .reversed(reversed)
                    .versions(u32::from(versions))
                    .time_range(time_range(range))
                    .raw(raw);
                if let Some(s) = start {
                    scan = scan.start(row(s));
                }
                if let Some(s) = stop {
                    scan = scan.stop(row(s));
                }
                if let Some(l) = limit {
                    scan = scan.limit(u64::from(l));
                }
                self.read(&scan)?;
            }
            Op::Flush => {
                let files = self.region().flush().expect("flush");
                for f in FAMILIES {
                    let id = files
                        .iter()
                        .find(|(name, _)| name.as_ref() == f.as_bytes())
                        .map(|(_, id)| *id);
                    self.model
                        .flush(f.as_bytes(), id, now)
                        .map_err(TestCaseError::fail)?;
                }
            }
            Op::MinorCompact | Op::MajorCompact => {
                let major = matches!(op, Op::MajorCompact);
                for outcome in self.region().compact(major).expect("compact") {
                    self.model
                        .compact(&outcome.family, &outcome.inputs, outcome.output, major, now)
                        .map_err(TestCaseError::fail)?;
                }
            }
            Op::Reopen => {
                // Dropped without a flush: the memstore comes back from the log.
                self.open = None;
                self.open = Some(open(self.dir.path(), &self.clock));
            }
            Op::Tick { seconds } => self.clock.advance(i64::from(seconds) * 1000),
        }
        Ok(())
    }
}

fn cases() -> u32 {
    std::env::var("BASALT_MODEL_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_shrink_iters: 4096, ..ProptestConfig::default() })]

    #[test]
    fn engine_matches_the_model(ops in proptest::collection::vec(op(), 1..60)) {
        let mut harness = Harness::new();
        for op in &ops {
            harness.apply(op)?;
        }
        harness.read(&Scan::new().versions(10))?;
        harness.read(&Scan::new().raw(true).versions(10))?;
    }
}
