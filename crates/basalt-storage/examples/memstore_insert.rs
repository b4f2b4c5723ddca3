//! Inserts into one memstore segment, alone: prints nanoseconds per insert (one thread
//! and four), per cell read back, and bytes per cell counted. A figure printer for
//! comparing memstore designs (build it on both sides of a change), asserting nothing.
//!
//! ```text
//! cargo run --release -p basalt-storage --example memstore_insert [-- CELLS [VALUE_BYTES [ordered]]]
//! ```
//!
//! Cells have the engine bench's shape: a 16-byte row `user%012d` in random order, `f:q0`,
//! a 100-byte value (or VALUE_BYTES); `ordered` inserts them in key order, as a load does. Each figure is the median of three rounds.

use basalt_storage::memstore::Segment;
use basalt_types::Cell;
use std::sync::Arc;
use std::time::Instant;

fn cells(count: u64, value_bytes: usize) -> Vec<Cell> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let row = format!("user{:012}", state % 1_000_000_000_000);
            Cell::put(row, "f", "q0", 1, vec![b'v'; value_bytes]).with_seq(1)
        })
        .collect()
}

/// This thread's time on a CPU so far, in ns (Linux; 0 elsewhere): the machine is shared,
/// and wall time counts the neighbours' turns too.
fn cpu_ns() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

fn median(mut runs: Vec<f64>) -> f64 {
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(300_000);
    let value_bytes: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100);
    let mut cells = cells(count, value_bytes);
    if std::env::args().nth(3).as_deref() == Some("ordered") {
        cells.sort_by(basalt_types::cell::compare_keys);
    }
    let cells = Arc::new(cells);
    let (mut one, mut one_cpu, mut four, mut read, mut bytes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), 0);
    for _ in 0..3 {
        let segment = Segment::default();
        let (start, cpu) = (Instant::now(), cpu_ns());
        for cell in cells.iter() {
            segment.insert(cell.clone());
        }
        one.push(start.elapsed().as_nanos() as f64 / count as f64);
        one_cpu.push((cpu_ns() - cpu) / count as f64);
        bytes = segment.size_bytes() / count;

        let start = Instant::now();
        let mut seen = 0;
        segment
            .try_for_each(|_| {
                seen += 1;
                Ok::<_, ()>(())
            })
            .expect("never fails");
        read.push(start.elapsed().as_nanos() as f64 / seen as f64);

        let segment = Arc::new(Segment::default());
        let start = Instant::now();
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let (segment, cells) = (segment.clone(), cells.clone());
                std::thread::spawn(move || {
                    for cell in cells.iter().skip(t).step_by(4) {
                        segment.insert(cell.clone());
                    }
                })
            })
            .collect();
        threads
            .into_iter()
            .for_each(|t| t.join().expect("inserter"));
        four.push(start.elapsed().as_nanos() as f64 / count as f64);
    }
    println!(
        "{count} cells: insert {:.0} ns ({:.0} ns CPU; 1 thread), {:.0} ns wall (4 threads); read back {:.0} ns/cell; {bytes} B/cell counted",
        median(one),
        median(one_cpu),
        median(four),
        median(read)
    );
}
