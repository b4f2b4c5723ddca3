//! Running scripts and the REPL: `-n` stops at the first error with status 1, the
//! interactive mode carries on; statements span lines; `exit` ends the session.

use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_shell::{repl, FixedClock, Shell, ShellError, ShellOptions};
use std::sync::Arc;

fn shell(dir: &tempfile::TempDir, non_interactive: bool) -> (Shell, Arc<Database>) {
    let db = Database::open(dir.path(), DbConfig::default()).expect("database opens");
    let options = ShellOptions {
        non_interactive,
        clock: Arc::new(FixedClock),
        ..ShellOptions::default()
    };
    (
        Shell::new(Arc::new(EmbeddedConnection::new(db.clone())), options),
        db,
    )
}

const SCRIPT: &str = "create 't', 'f'\nput 't', 'r', 'nofamily:q', 'v'\nput 't', 'r', 'f:q', 'v'\n";

#[test]
fn non_interactive_script_stops_at_the_first_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, _db) = shell(&dir, true);
    let mut out = Vec::new();
    let status = sh.run_script(SCRIPT, &mut out);
    assert_eq!(status.code, 1);
    let text = String::from_utf8(out).expect("utf-8");
    assert!(text.contains("ERROR: Unknown column family!"), "{text}");
    let scan = sh.run_line("scan 't'").expect("scan runs");
    assert!(scan.text.contains("0 row(s)"), "{}", scan.text);
}

#[test]
fn interactive_script_carries_on_after_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, _db) = shell(&dir, false);
    let status = sh.run_script(SCRIPT, &mut Vec::new());
    assert!(status.success());
    let scan = sh.run_line("scan 't'").expect("scan runs");
    assert!(scan.text.contains(" r column=f:q"), "{}", scan.text);
}

#[test]
fn run_line_reports_what_failed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, _db) = shell(&dir, false);
    let failure = sh.run_line("drop 'missing'").expect_err("no such table");
    assert_eq!(
        failure.error,
        ShellError::Command {
            command: "drop".into(),
            message: "Table missing does not exist.".into()
        }
    );
    assert!(failure.text.contains("For usage try 'help \"drop\"'"));
    let failure = sh.run_line("put 't', 'r'\n  , ]").expect_err("syntax");
    match failure.error {
        ShellError::Syntax(e) => assert_eq!((e.line, e.column), (2, 3)),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        sh.run_line("nosuch").expect_err("undefined").error,
        ShellError::Name(_)
    ));
    assert!(sh.run_line("exit").expect("exits").exit);
}

#[test]
fn repl_reads_multi_line_statements_until_exit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, _db) = shell(&dir, false);
    let mut input: &[u8] = b"create 't',\n  'f'\nexists 't'\nexit\nlist\n";
    let mut out = Vec::new();
    let status = repl::run(&mut sh, &mut input, &mut out);
    assert_eq!(status, 0);
    let text = String::from_utf8(out).expect("utf-8");
    assert!(
        text.starts_with("hbase:001:0> hbase:002:1* Created table t\n"),
        "{text}"
    );
    assert!(
        text.contains("Table t does exist\nTook 0.0000 seconds\n=> true\n"),
        "{text}"
    );
    assert!(!text.contains("TABLE"), "list ran after exit: {text}");
}

#[test]
fn merge_region_takes_encoded_or_full_names() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, db) = shell(&dir, true);
    sh.run_line("create 'm', 'f', SPLITS => ['g', 'p']")
        .expect("create runs");
    let conn = EmbeddedConnection::new(db);
    let admin = basalt_api::Connection::admin(&conn);
    let name = basalt_types::TableName::parse("m").expect("valid");
    let regions = admin.list_regions(&name).expect("regions");
    let line = format!(
        "merge_region '{}', '{}'",
        regions[0].encoded_name, regions[1].region_name
    );
    sh.run_line(&line).expect("merge runs");
    sh.run_line("catalogjanitor_run").expect("janitor runs");
    let splits = sh.run_line("get_splits 'm'").expect("get_splits runs");
    assert!(
        splits.text.starts_with("Total number of splits = 2\np\n"),
        "{}",
        splits.text
    );
    let located = sh.run_line("locate_region 'm', 'c'").expect("locate runs");
    assert!(
        located.text.contains("STARTKEY => '', ENDKEY => 'p'"),
        "{}",
        located.text
    );
}

#[test]
fn exit_sets_the_status() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, _db) = shell(&dir, false);
    let status = sh.run_script("list\nexit 3\nlist\n", &mut Vec::new());
    assert_eq!(status.code, 3);
    let status = sh.run_script("exit\n", &mut Vec::new());
    assert_eq!(status.code, 0);
}

/// A terminal stand-in: counts the scan's row lines as they arrive and "presses Ctrl-C"
/// (sets the shell's interrupt flag) after `after` of them.
struct InterruptingOutput {
    flag: Arc<std::sync::atomic::AtomicBool>,
    text: Vec<u8>,
    after: usize,
}

impl std::io::Write for InterruptingOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.text.extend_from_slice(buf);
        let rows = String::from_utf8_lossy(&self.text)
            .matches(" column=")
            .count();
        if rows >= self.after {
            self.flag.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn ctrl_c_stops_a_running_scan_and_the_next_command_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, _db) = shell(&dir, false);
    let mut script = String::from("create 't', 'f'\n");
    for i in 0..200 {
        script.push_str(&format!("put 't', 'r{i:03}', 'f:q', 'v'\n"));
    }
    assert!(sh.run_script(&script, &mut Vec::new()).success());
    let mut out = InterruptingOutput {
        flag: sh.interrupt_flag(),
        text: Vec::new(),
        after: 10,
    };
    let stopped = sh.run_line_to("scan 't'", &mut out);
    assert!(stopped.is_err(), "the scan was interrupted");
    let text = String::from_utf8(out.text).expect("utf-8");
    assert!(text.contains("Interrupted after 10 row(s)"), "{text}");
    assert!(!text.contains("r199"), "the scan stopped early: {text}");
    // Not an error of use: HBase prints no usage hint after Ctrl-C.
    assert!(!text.contains("For usage try"), "{text}");
    assert!(!text.contains("ERROR:"), "{text}");
    // The flag is cleared for the next command, which runs to the end.
    let count = sh.run_line("count 't'").expect("count runs");
    assert!(count.text.contains("200 row(s)"), "{}", count.text);
}

#[test]
fn two_column_tables_wrap_to_the_width_set_at_run_time() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, _db) = shell(&dir, false);
    let long = "x".repeat(120);
    let script = format!("create 't', 'f'\nput 't', 'r', 'f:q', '{long}'\n");
    assert!(sh.run_script(&script, &mut Vec::new()).success());
    let unwrapped = sh.run_line("scan 't'").expect("scan").text;
    let longest = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest(&unwrapped) > 120, "{unwrapped}");
    sh.set_width(80);
    let wrapped = sh.run_line("scan 't'").expect("scan").text;
    assert!(longest(&wrapped) <= 80, "{wrapped}");
    assert!(
        wrapped.matches('x').count() == 120,
        "nothing lost in wrapping: {wrapped}"
    );
}

#[test]
fn the_debug_switch_is_refused_by_name() {
    // Runbooks start with `debug` (cnblogs yyy-blog/p/12781650, section 7); Basalt has no
    // backtraces to show, and says so instead of "undefined method".
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, _db) = shell(&dir, false);
    for name in ["debug", "debug?"] {
        let failure = sh.run_line(name).expect_err("refused");
        assert!(
            failure
                .text
                .contains(&format!("ERROR: {name} is not supported by Basalt")),
            "{}",
            failure.text
        );
    }
}
