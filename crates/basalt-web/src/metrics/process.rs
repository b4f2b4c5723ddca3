//! The server process's own figures on `/metrics`, under Prometheus's standard names:
//! `process_cpu_seconds_total`, the CPU time (user and system, every thread) this process
//! has used, read from `/proc/self/stat` on Linux (absent elsewhere).
//!
//! `basalt pe --connect` reads it before and after a run to report operations per server
//! CPU-second.
//!
//! ```text
//! # HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
//! # TYPE process_cpu_seconds_total counter
//! process_cpu_seconds_total 12.34
//! ```

use super::prometheus::Exposition;

/// Clock ticks per second of `/proc`'s CPU times (`sysconf(_SC_CLK_TCK)`, 100 on every
/// Linux port Basalt builds for).
const TICKS_PER_SEC: f64 = 100.0;

/// The process's CPU figures in the exposition format; empty where they cannot be read.
pub fn exposition() -> String {
    let mut out = Exposition::default();
    let stat = std::fs::read_to_string("/proc/self/stat");
    if let Some(secs) = stat.ok().as_deref().and_then(cpu_seconds) {
        let name = "process_cpu_seconds_total";
        out.family(
            name,
            "counter",
            "Total user and system CPU time spent in seconds.",
        );
        out.sample(name, &[], secs);
    }
    out.text
}

/// User plus system CPU seconds from the text of `/proc/<pid>/stat`: fields 14 and 15
/// (`utime`, `stime`), counted after the command name, which is in parentheses and may
/// hold spaces and parentheses itself. None when the text is not of that shape.
pub fn cpu_seconds(stat: &str) -> Option<f64> {
    let (_, after_name) = stat.rsplit_once(')')?;
    // After the name: field 3 (state) is the first, so utime (14) is the twelfth.
    let mut fields = after_name.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) as f64 / TICKS_PER_SEC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_seconds_add_user_and_system_ticks() {
        let stat = "4242 (basalt) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 9 0";
        assert_eq!(cpu_seconds(stat), Some(3.25));
    }

    #[test]
    fn a_command_name_with_spaces_and_parentheses_is_skipped_whole() {
        let stat = "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0";
        assert_eq!(cpu_seconds(stat), Some(0.03));
    }

    #[test]
    fn text_of_another_shape_reads_as_nothing() {
        assert_eq!(cpu_seconds("no parentheses here"), None);
        assert_eq!(cpu_seconds("1 (x) S 1 2"), None, "too few fields");
        assert_eq!(cpu_seconds("1 (x) S 1 1 1 0 -1 0 0 0 0 0 u s"), None);
    }

    #[test]
    fn this_process_has_used_some_cpu() {
        let text = exposition();
        assert!(
            text.contains("# TYPE process_cpu_seconds_total counter"),
            "{text}"
        );
        let value: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix("process_cpu_seconds_total "))
            .expect("a sample")
            .parse()
            .expect("a number");
        assert!(value >= 0.0);
    }
}
