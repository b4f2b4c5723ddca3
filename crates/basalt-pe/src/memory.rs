//! The process's peak resident memory (`VmHWM` of `/proc/self/status`).

/// Peak resident set size in bytes; `None` where `/proc` does not say (not Linux).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_hwm(&status)
}

/// The `VmHWM:   1234 kB` line of a `/proc/<pid>/status` text, in bytes.
fn parse_vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let mut words = line["VmHWM:".len()..].split_whitespace();
    let kib: u64 = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then_some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_high_water_mark_line() {
        let status = "Name:\tbasalt\nVmPeak:\t  999 kB\nVmHWM:\t   2048 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(2048 * 1024));
        assert_eq!(parse_vm_hwm("VmRSS: 1 kB\n"), None);
        assert_eq!(parse_vm_hwm("VmHWM: lots\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_a_peak() {
        let peak = peak_rss_bytes().expect("Linux has /proc/self/status");
        assert!(
            peak > 1024 * 1024,
            "a test binary uses more than 1 MiB: {peak}"
        );
    }
}
