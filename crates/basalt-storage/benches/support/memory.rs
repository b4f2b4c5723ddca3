//! What the memstore holds after a write phase: the bytes it counts per cell (what flushes
//! and the global limit see) and the process's resident growth per cell (what the machine
//! sees). Resident memory is read from `/proc/self/statm` (Linux); elsewhere only the
//! counted figure is printed.

use basalt_storage::Region;

/// Resident bytes of this process (pages of 4 KiB), `None` off Linux.
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// A note for the phase's line: memstore cells, counted bytes per cell, and resident
/// growth per cell since `resident_before` (taken with an empty memstore).
pub fn memstore_note(region: &Region, resident_before: Option<u64>) -> String {
    let cells = region.memstore_cell_count().max(1) as f64;
    let counted = region.memstore_size_bytes() as f64;
    let mut note = format!(
        "memstore {} cells, {:.0} B/cell counted",
        region.memstore_cell_count(),
        counted / cells
    );
    if let (Some(before), Some(now)) = (resident_before, resident_bytes()) {
        let grown = now.saturating_sub(before) as f64;
        note.push_str(&format!(
            ", resident +{:.1} MiB = {:.0} B/cell",
            grown / 1048576.0,
            grown / cells
        ));
    }
    note
}
