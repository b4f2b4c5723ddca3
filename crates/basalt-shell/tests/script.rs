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
