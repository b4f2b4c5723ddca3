//! Headless Chromium for the browser tests: installed by `scripts/install-chromium.sh`
//! when missing, run on one URL at a time and killed if it hangs.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A cold Chromium start on a busy machine can take a while.
pub const CHROMIUM_TIMEOUT: Duration = Duration::from_secs(180);

/// Installs Chromium if it is missing (the project's script, idempotent); its path.
pub fn install_chromium() -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/install-chromium.sh");
    let status = Command::new("sh")
        .arg(&script)
        .status()
        .expect("run scripts/install-chromium.sh");
    assert!(status.success(), "installing chromium failed: {status}");
    let chromium = PathBuf::from("/usr/bin/chromium");
    assert!(chromium.exists(), "the script left no /usr/bin/chromium");
    chromium
}

/// Runs headless Chromium with `args` then `url`, returning its stdout; killed on timeout.
pub fn chromium(binary: &Path, profile: &Path, args: &[&str], url: &str) -> String {
    let mut child = Command::new(binary)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn chromium");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        out
    });
    let deadline = Instant::now() + CHROMIUM_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish {url} within {CHROMIUM_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "chromium failed on {url}: {status}");
    reader.join().expect("stdout reader")
}
