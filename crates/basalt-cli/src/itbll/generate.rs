//! `basalt itbll generate`: the table, then the generations.
//!
//! The run keeps three generations' keys in memory at most (the first, the one before and
//! the one being written: `3 × width × 16` bytes), never the whole run. Writes go through
//! a [`BufferedMutator`] (HBase's client write buffer); each generation is sent whole and
//! the table flushed before the next begins, so a generation's nodes sit in store files
//! of their own. The random keys come from a seeded generator (`--seed`), printed in the
//! summary: the same seed writes the same keys again.
//!
//! Each generation is written in key order (node `i` is the generation's `i`-th smallest
//! key, which changes nothing of the lists' shape: the keys are random either way). The
//! server applies a batch's consecutive puts to one region with one log sync; in random
//! order, consecutive puts fall in different regions and each costs a sync of its own —
//! about fifty times slower on a table pre-split into four regions.

use super::{fail, hex, open_table, progress, GenerateArgs, Key, CLIENT, COUNT, FAMILY, PREV};
use crate::CliError;
use basalt_api::{Admin, BufferedMutator, Connection, ErrorKind, PreSplit, Table};
use basalt_pe::rng::Rng;
use basalt_types::{FamilyDescriptor, Mutation, Put, SplitAlgorithm, TableDescriptor, TableName};
use bytes::Bytes;
use indicatif::ProgressBar;
use std::sync::Arc;
use std::time::Instant;

/// Writes the generations and prints a line per generation and a summary.
pub fn run(args: &GenerateArgs) -> Result<(), CliError> {
    if args.generations == 0 {
        return Err(fail("--generations must be at least 1"));
    }
    if args.width == 0 {
        return Err(fail("--width must be at least 1"));
    }
    if args.regions == 0 {
        return Err(fail("--regions must be at least 1"));
    }
    let width = usize::try_from(args.width)
        .map_err(|_| fail(format!("--width {} is too large", args.width)))?;
    let total = args
        .generations
        .checked_mul(args.width)
        .ok_or_else(|| fail("--generations × --width is too large"))?;
    let (conn, table) = super::connect(&args.target)?;
    let admin = conn.admin();
    let created = ensure_table(admin.as_ref(), &table, args.regions)?;
    let handle = open_table(&conn, &table)?;

    let seed = args.seed.unwrap_or_else(fresh_seed);
    let mut rng = Rng::new(seed);
    let run_id = hex(&rng.next_u64().to_be_bytes());
    println!(
        "basalt itbll generate: table {table}{}, {} generations x {width} nodes, seed {seed}, run {run_id}",
        if created { " (created)" } else { "" },
        args.generations
    );
    let began = Instant::now();
    let bar = progress("generate", Some(total));
    let writer = Writer {
        table: &handle,
        admin: admin.as_ref(),
        name: &table,
        run_id: &run_id,
        bar: &bar,
    };
    let mut first: Vec<Key> = Vec::new();
    let mut previous: Vec<Key> = Vec::new();
    for generation in 0..args.generations {
        let started = Instant::now();
        let keys = draw(&mut rng, width);
        // The first generation points nowhere until the last one exists.
        let links = (generation > 0).then_some(previous.as_slice());
        writer.generation(generation * args.width, &keys, links)?;
        writer.flush(&format!("generation {}", generation + 1))?;
        bar.suspend(|| {
            println!(
                "generation {}/{}: {width} nodes written, flushed ({:.1} s)",
                generation + 1,
                args.generations,
                started.elapsed().as_secs_f64()
            );
        });
        if generation == 0 {
            first.clone_from(&keys);
        }
        previous = keys;
    }
    // Close the circle: node i of the first generation points at node i + 1 of the last.
    let shifted: Vec<Key> = (0..width).map(|i| previous[(i + 1) % width]).collect();
    writer.link(&first, &shifted)?;
    writer.flush("the first generation's links")?;
    bar.finish_and_clear();
    let seconds = began.elapsed().as_secs_f64();
    println!(
        "linked generation 1 to generation {}: one circle of {total} nodes, each referenced once",
        args.generations
    );
    println!(
        "wrote {total} nodes in {} generations in {seconds:.1} s ({:.0} nodes/s); check with: basalt itbll verify --table {table}",
        args.generations,
        total as f64 / seconds.max(1e-9)
    );
    Ok(())
}

/// Creates `table` (family `meta`, `regions` even regions over the key space) unless it
/// exists; returns whether it created it. An existing table must have family `meta`.
fn ensure_table(admin: &dyn Admin, table: &TableName, regions: u32) -> Result<bool, CliError> {
    let api = |e: basalt_api::ApiError| fail(format!("table {table}: {e}"));
    if admin.table_exists(table).map_err(api)? {
        let descriptor = admin.describe_table(table).map_err(api)?;
        if descriptor.family(FAMILY).is_none() {
            return Err(fail(format!(
                "table {table} exists without the family 'meta'; name another --table"
            )));
        }
        return Ok(false);
    }
    let family =
        FamilyDescriptor::new(Bytes::from_static(FAMILY)).map_err(|e| fail(e.to_string()))?;
    let descriptor = TableDescriptor::new(table.clone(), vec![family]);
    let split = match regions {
        0 | 1 => PreSplit::None,
        regions => PreSplit::Count {
            regions,
            algorithm: SplitAlgorithm::Uniform,
        },
    };
    match admin.create_table(&descriptor, &split) {
        Ok(()) => Ok(true),
        // Another generator created it meanwhile.
        Err(e) if e.kind == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(api(e)),
    }
}

/// What every generation writes through.
struct Writer<'a> {
    table: &'a Arc<dyn Table>,
    admin: &'a dyn Admin,
    name: &'a TableName,
    run_id: &'a str,
    bar: &'a ProgressBar,
}

impl Writer<'_> {
    /// Writes one generation: node `i` is `keys[i]`, numbered `first_count + i`, pointing
    /// at `links[i]` when given.
    fn generation(
        &self,
        first_count: u64,
        keys: &[Key],
        links: Option<&[Key]>,
    ) -> Result<(), CliError> {
        let mut mutator = BufferedMutator::new(Arc::clone(self.table));
        let failed = |e: basalt_api::ApiError| fail(format!("writing to {}: {e}", self.name));
        for (count, (i, key)) in (first_count..).zip(keys.iter().enumerate()) {
            let mut put = Put::new(Bytes::copy_from_slice(key))
                .add(FAMILY, COUNT, count.to_string())
                .add(FAMILY, CLIENT, self.run_id);
            if let Some(prev) = links.and_then(|links| links.get(i)) {
                put = put.add(FAMILY, PREV, Bytes::copy_from_slice(prev));
            }
            mutator.mutate(Mutation::Put(put)).map_err(failed)?;
            self.bar.inc(1);
        }
        mutator.close().map_err(failed)
    }

    /// Points each of `keys` at the matching node of `targets` (only `meta:prev` changes).
    fn link(&self, keys: &[Key], targets: &[Key]) -> Result<(), CliError> {
        let mut mutator = BufferedMutator::new(Arc::clone(self.table));
        let failed = |e: basalt_api::ApiError| fail(format!("linking the circle: {e}"));
        for (key, target) in keys.iter().zip(targets) {
            let put = Put::new(Bytes::copy_from_slice(key)).add(
                FAMILY,
                PREV,
                Bytes::copy_from_slice(target),
            );
            mutator.mutate(Mutation::Put(put)).map_err(failed)?;
        }
        mutator.close().map_err(failed)
    }

    /// Asks the table to flush its memstores, so the next writes land in new files.
    fn flush(&self, after: &str) -> Result<(), CliError> {
        self.admin
            .flush(self.name)
            .map_err(|e| fail(format!("flushing {} after {after}: {e}", self.name)))
    }
}

/// `width` random keys, sorted.
fn draw(rng: &mut Rng, width: usize) -> Vec<Key> {
    let mut keys: Vec<Key> = (0..width)
        .map(|_| {
            let mut key = [0u8; super::KEY_LEN];
            key[..8].copy_from_slice(&rng.next_u64().to_be_bytes());
            key[8..].copy_from_slice(&rng.next_u64().to_be_bytes());
            key
        })
        .collect();
    keys.sort_unstable();
    keys
}

/// A seed for a run given none: the clock and the process id, mixed.
fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut mixer = Rng::new(nanos ^ (u64::from(std::process::id()) << 32));
    mixer.next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_repeatable_from_the_seed_and_distinct() {
        let a = draw(&mut Rng::new(9), 100);
        let b = draw(&mut Rng::new(9), 100);
        assert_eq!(a, b);
        assert!(a.windows(2).all(|w| w[0] < w[1]), "sorted and distinct");
        let unique: std::collections::HashSet<_> = a.iter().collect();
        assert_eq!(unique.len(), 100);
        assert_ne!(draw(&mut Rng::new(10), 1), a[..1]);
    }
}
