//! Writers insert into one segment at once (a region's handlers do): four threads, each
//! with its own cells in a random order interleaved with the others', plus keys every
//! thread writes, while a reader walks the segment. Afterwards every cell is there
//! exactly once, in cell order, none lost; an identical key written by several threads
//! holds one of their values; and every walk the reader made during the inserts was in
//! strict cell order.

use crate::support::segment_cells;
use basalt_storage::memstore::Segment;
use basalt_types::cell::compare_keys;
use basalt_types::Cell;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const THREADS: u64 = 4;
const PER_THREAD: u64 = 6_000;
/// Keys every thread writes (its own value each time).
const SHARED: u64 = 500;

fn row(n: u64) -> String {
    // Rows share a 16-byte prefix in runs, so full comparisons happen too.
    format!(
        "user{:012}{:06}",
        n / 64,
        n.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 1_000_000
    )
}

fn shuffled(mut items: Vec<u64>, seed: u64) -> Vec<u64> {
    let mut state = seed | 1;
    for i in (1..items.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        items.swap(i, (state % (i as u64 + 1)) as usize);
    }
    items
}

fn strictly_ordered(cells: &[Cell]) -> bool {
    cells.windows(2).all(|w| compare_keys(&w[0], &w[1]).is_lt())
}

#[test]
fn concurrent_writers_lose_no_cell_and_keep_the_order() {
    let segment = Arc::new(Segment::default());
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (segment, done) = (segment.clone(), done.clone());
        std::thread::spawn(move || {
            let mut walks = 0;
            while !done.load(Ordering::Relaxed) || walks == 0 {
                // As a cursor walks: batches of 64 from the last cell taken.
                let mut last = Cell::first_on_row("");
                let mut inclusive = true;
                loop {
                    let mut batch = vec![last.clone()];
                    segment.read_from(&last, inclusive, 64, &mut batch);
                    let tail = if inclusive { &batch[1..] } else { &batch[..] };
                    assert!(
                        strictly_ordered(tail),
                        "a walk during inserts was out of order"
                    );
                    match batch.last() {
                        Some(cell) if batch.len() > 1 => last = cell.clone(),
                        _ => break,
                    }
                    inclusive = false;
                }
                walks += 1;
            }
            walks
        })
    };
    let writers: Vec<_> = (0..THREADS)
        .map(|t| {
            let segment = segment.clone();
            std::thread::spawn(move || {
                let own = (0..PER_THREAD).map(|i| i * THREADS + t).collect();
                let shared = (0..SHARED).map(|i| u64::MAX - i);
                let mut order: Vec<u64> = shuffled(own, t + 1);
                order.extend(shared);
                for n in shuffled(order, t + 101) {
                    let (row, value) = if n > u64::MAX - SHARED {
                        (format!("shared{}", u64::MAX - n), format!("thread{t}"))
                    } else {
                        (row(n), format!("v{n}"))
                    };
                    segment.insert(Cell::put(row, "f", "q", 1, value).with_seq(1));
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().expect("writer");
    }
    done.store(true, Ordering::Relaxed);
    assert!(reader.join().expect("reader") >= 1);

    let cells = segment_cells(&segment);
    let total = (THREADS * PER_THREAD + SHARED) as usize;
    assert_eq!(cells.len(), total, "every key exactly once");
    assert_eq!(segment.len(), total);
    assert!(strictly_ordered(&cells));
    let mut own: BTreeSet<u64> = (0..THREADS * PER_THREAD).collect();
    for cell in &cells {
        let row = String::from_utf8_lossy(cell.row()).into_owned();
        if row.starts_with("shared") {
            let value = String::from_utf8_lossy(cell.value()).into_owned();
            assert!(
                (0..THREADS).any(|t| value == format!("thread{t}")),
                "{row} holds {value}"
            );
        } else {
            let n: u64 = String::from_utf8_lossy(&cell.value()[1..])
                .parse()
                .expect("v<n>");
            assert_eq!(row, self::row(n), "the value {n} under its own row");
            assert!(own.remove(&n), "{n} seen twice");
        }
    }
    assert!(
        own.is_empty(),
        "lost: {:?}",
        own.iter().take(5).collect::<Vec<_>>()
    );
}
