//! `basalt shell` end to end: the seed documents' sessions (counters, the KEEP_DELETED_CELLS
//! sequence with flush and major_compact, a pre-split create) typed into `basalt shell`
//! against a real `basalt standalone` over its socket, and into `basalt shell --data-dir`
//! in process — the two print the same, and print what the seeds print.

use crate::support;

const SCRIPT: &str = "\
create 'test', {NAME=>'e', VERSIONS=>2147483647}
put 'test', 'r1', 'e:c1', 'value', 10
put 'test', 'r1', 'e:c1', 'value', 12
put 'test', 'r1', 'e:c1', 'value', 14
delete 'test', 'r1', 'e:c1', 11
scan 'test', {RAW=>true, VERSIONS=>1000}
flush 'test'
scan 'test', {RAW=>true, VERSIONS=>1000}
major_compact 'test'
scan 'test', {RAW=>true, VERSIONS=>1000}
create 'counters', 'c'
incr 'counters', '20150101', 'c:1', 1
incr 'counters', '20150101', 'c:1', 1
get_counter 'counters', '20150101', 'c:1'
create 'access-logs', 't', {SPLITS => ['1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f']}
get_splits 'access-logs'
get_counter 'nope', 'r', 'c:1'
";

/// Runs the script through `basalt shell` with `args`; returns what it printed, with the
/// timing lines (the only part that differs between runs) removed.
fn shell(args: &[&str]) -> String {
    let text = support::shell::run_script(args, SCRIPT);
    text.lines()
        .filter(|l| !l.starts_with("Took "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn raw_scans(output: &str) -> Vec<Vec<&str>> {
    let mut scans = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in output.lines() {
        if line.starts_with("ROW") {
            current = Some(Vec::new());
        } else if let Some(rows) = current.as_mut() {
            if line.contains("column=e:c1") {
                rows.push(line.trim());
            } else if line.ends_with("row(s)") {
                scans.extend(current.take());
            }
        }
    }
    scans
}

#[test]
fn seed_sessions_print_the_same_over_the_socket_and_in_process() {
    let remote_dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(remote_dir.path());
    // The seeds are 1.x transcripts: epoch-millisecond timestamps, asked for by the flag
    // over the socket and by the configuration file's `[shell]` key in process.
    let remote = shell(&["--connect", &server.addr, "--timestamp-format-epoch"]);
    support::stop(server);
    let local_dir = tempfile::tempdir().expect("temp dir");
    let config = local_dir.path().join("basalt.toml");
    std::fs::write(&config, "[shell]\ntimestamp_format_epoch = true\n").expect("write config");
    let data = local_dir.path().join("data");
    let local = shell(&[
        "--data-dir",
        data.to_str().expect("utf-8 path"),
        "--config",
        config.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(remote, local, "remote:\n{remote}\nembedded:\n{local}");

    let scans = raw_scans(&remote);
    let all = [
        "r1 column=e:c1, timestamp=14, value=value",
        "r1 column=e:c1, timestamp=12, value=value",
        "r1 column=e:c1, timestamp=11, type=DeleteColumn",
        "r1 column=e:c1, timestamp=10, value=value",
    ];
    assert_eq!(
        scans,
        [all.to_vec(), all[..3].to_vec(), all[..2].to_vec()],
        "{remote}"
    );
    assert_eq!(remote.matches("COUNTER VALUE = 2").count(), 2, "{remote}");
    assert!(remote.contains("Total number of splits = 16"), "{remote}");
    assert!(remote.contains("ERROR: Unknown table nope!"), "{remote}");
}

/// A runbook-style Ruby script piped into the real `basalt shell` process: a load loop,
/// a filter object, a cleanup loop over `list`, and an unsupported construct named.
#[test]
fn ruby_scripts_run_through_the_real_shell_process() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = "\
create 'load', 'f'
for i in 1..5 do put 'load', \"r#{i}\", 'f:n', i.to_s end
count 'load'
scan 'load', FILTER => SingleColumnValueFilter.new(Bytes.toBytes('f'), Bytes.toBytes('n'), CompareOperator::EQUAL, Bytes.toBytes('3'))
list('lo.*').each do |t|
  disable t
  drop t
end
puts \"left: #{list.size}\"
def helper; end
";
    let dir_arg = dir.path().to_str().expect("utf-8 path");
    let text = support::shell::run_script(&["--data-dir", dir_arg], script);
    assert!(text.contains("5 row(s)"), "{text}");
    // HBase 2.4+ prints ISO local date-times unless told epoch (HBASE-23930, HBASE-26512).
    let (_, after) = text
        .split_once(" r3 column=f:n, timestamp=")
        .unwrap_or_else(|| panic!("{text}"));
    let date: Vec<char> = after.chars().take(11).collect();
    assert!(
        date[4] == '-' && date[7] == '-' && date[10] == 'T',
        "an ISO date-time: {text}"
    );
    assert!(
        !text.contains(" r2 column=f:n"),
        "the filter object filtered: {text}"
    );
    assert!(text.contains("left: 0"), "{text}");
    assert!(
        text.contains("method definitions (def) is not supported by Basalt's shell"),
        "{text}"
    );
}
