//! Failpoints: named steps where a test can make the process die, to prove that a crash at
//! that step recovers. `BASALT_FAILPOINT=<name>` aborts the process when the step is
//! reached; unset (always, outside tests) a failpoint costs one load of a cached value.

use std::sync::OnceLock;

fn armed() -> Option<&'static str> {
    static ARMED: OnceLock<Option<String>> = OnceLock::new();
    ARMED
        .get_or_init(|| std::env::var("BASALT_FAILPOINT").ok())
        .as_deref()
}

/// Dies here if the failpoint `name` is armed.
pub fn hit(name: &str) {
    if armed() == Some(name) {
        tracing::error!(failpoint = name, "failpoint reached: aborting");
        std::process::abort();
    }
}
