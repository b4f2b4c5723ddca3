//! `basalt shell` as a user pipes a script into it.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `script` through `basalt shell ARGS` on its standard input; what it printed.
pub fn run_script(args: &[&str], script: &str) -> String {
    run_script_with_env(args, script, &[])
}

/// As [`run_script`], with `env` set for the shell (`BASALT_PASSWORD`, say).
pub fn run_script_with_env(args: &[&str], script: &str, env: &[(&str, &str)]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("shell")
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn basalt shell");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(script.as_bytes())
        .expect("write script");
    let out = child.wait_with_output().expect("shell runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}
