//! Numbers as people read them: sizes, durations, timestamps, ratios.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `1536` → `1.5 KiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `3725 s` → `1h 2m 5s`.
pub fn duration(d: Duration) -> String {
    let s = d.as_secs();
    let (days, hours, minutes, seconds) = (s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60);
    match (days, hours, minutes) {
        (0, 0, 0) => format!("{seconds}s"),
        (0, 0, _) => format!("{minutes}m {seconds}s"),
        (0, _, _) => format!("{hours}h {minutes}m {seconds}s"),
        _ => format!("{days}d {hours}h {minutes}m"),
    }
}

/// A moment as `2026-11-21 10:04:02 UTC`.
pub fn timestamp(at: SystemTime) -> String {
    let ms = at
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    timestamp_ms(ms)
}

/// Milliseconds since the epoch as `2026-11-21 10:04:02 UTC`.
pub fn timestamp_ms(ms: u64) -> String {
    let secs = ms / 1000;
    let (year, month, day) = civil_date(secs / 86_400);
    let t = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

/// A moment's time of day as `10:04:02` (UTC).
pub fn time_of_day(at: SystemTime) -> String {
    let secs = at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) % 86_400;
    format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// The calendar date of a day count since 1970-01-01 (proleptic Gregorian).
fn civil_date(days: u64) -> (u64, u64, u64) {
    // Howard Hinnant's days-to-civil, on eras of 400 years (146 097 days).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// `hits / (hits + misses)` as a percentage, `-` before any lookup.
pub fn ratio(hits: u64, misses: u64) -> String {
    let total = hits.saturating_add(misses);
    if total == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", hits as f64 * 100.0 / total as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_durations_and_ratios() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(10 * 1024 * 1024 * 1024), "10.0 GiB");
        assert_eq!(duration(Duration::from_secs(59)), "59s");
        assert_eq!(duration(Duration::from_secs(3725)), "1h 2m 5s");
        assert_eq!(duration(Duration::from_secs(90_061)), "1d 1h 1m");
        assert_eq!(ratio(0, 0), "-");
        assert_eq!(ratio(3, 1), "75.0%");
    }

    #[test]
    fn timestamps_in_utc() {
        assert_eq!(timestamp_ms(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(timestamp_ms(951_782_400_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(timestamp_ms(1_795_255_442_000), "2026-11-21 10:04:02 UTC");
    }
}
