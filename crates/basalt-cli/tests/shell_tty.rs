//! `basalt shell` on a real terminal (tmux), as a person uses it: the prompt, Ctrl-C
//! stopping a long scan without leaving the shell (and without the usage hint), tables
//! wrapped to the terminal's width, and Tab completing command and table names. tmux is
//! installed by `scripts/apt-install.sh` when missing.

use basalt_api::{Connection, PreSplit};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{Durability, FamilyDescriptor, Put, TableDescriptor, TableName};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const WIDTH: usize = 100;

fn ensure_tmux() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/apt-install.sh");
    let status = Command::new("bash")
        .arg(script)
        .arg("tmux")
        .status()
        .expect("run scripts/apt-install.sh");
    assert!(status.success(), "tmux could not be installed");
}

/// A tmux session on its own server socket, killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `command` in a session of its own; `name` keeps the tests of this binary,
    /// which run in parallel, on separate tmux servers.
    fn start(name: &str, command: &str) -> Self {
        let socket = format!("basalt-test-{}-{name}", std::process::id());
        let tmux = Self { socket };
        let width = WIDTH.to_string();
        tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &width,
            "-y",
            "40",
            command,
        ]);
        tmux
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("run tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t", "-S", "-2000"])
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    fn wait_for(&self, what: &str, condition: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let screen = self.screen();
            if condition(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn load(dir: &Path, rows: usize) {
    let db = Database::open(dir, DbConfig::default()).expect("open");
    let conn = EmbeddedConnection::new(db.clone());
    let name = TableName::parse("t").expect("name");
    let family = FamilyDescriptor::new("f").expect("family");
    conn.admin()
        .create_table(
            &TableDescriptor::new(name.clone(), vec![family]),
            &PreSplit::None,
        )
        .expect("create");
    let table = conn.table(&name).expect("table");
    let puts: Vec<Put> = (0..rows)
        .map(|i| {
            Put::new(format!("row{i:07}"))
                .add("f", "q", "v")
                .durability(Durability::SkipWal)
        })
        .collect();
    table.put_many(&puts).expect("load");
    let long = "x".repeat(150);
    table
        .put(&Put::new("a-long-one").add("f", "q", long))
        .expect("put");
    db.close().expect("close");
}

#[test]
fn ctrl_c_stops_a_scan_and_output_fits_the_terminal() {
    ensure_tmux();
    let dir = tempfile::tempdir().expect("temp dir");
    load(dir.path(), 200_000);
    let command = format!(
        "{} shell --data-dir {}",
        env!("CARGO_BIN_EXE_basalt"),
        dir.path().display()
    );
    let tmux = Tmux::start("ctrl-c", &command);
    let prompt = |s: &str| s.lines().filter(|l| l.starts_with("hbase:")).count();
    tmux.wait_for("the prompt", |s| prompt(s) == 1);

    // Wrapped to the terminal: the 150-byte value spans lines no wider than the pane.
    tmux.keys(&["get 't', 'a-long-one'", "Enter"]);
    let screen = tmux.wait_for("the get", |s| s.contains("1 row(s)"));
    assert!(
        screen.lines().all(|l| l.chars().count() <= WIDTH),
        "{screen}"
    );
    assert_eq!(
        screen.matches('x').count(),
        150,
        "the value wraps, whole:\n{screen}"
    );

    tmux.keys(&["scan 't'", "Enter"]);
    tmux.wait_for("the scan to print rows", |s| s.contains("row00"));
    tmux.keys(&["C-c"]);
    // Rows already in flight may scroll the earlier prompts away: look for a prompt after
    // the interruption.
    let screen = tmux.wait_for("the interrupted scan and a new prompt", |s| {
        s.rfind("Interrupted after")
            .is_some_and(|at| s[at..].lines().any(|l| l.starts_with("hbase:")))
    });
    assert!(!screen.contains("200001 row(s)"), "{screen}");
    // HBase's shell prints no usage hint after Ctrl-C: the command was not misused.
    assert!(!screen.contains("For usage try"), "{screen}");

    // The shell is still there and answers.
    tmux.keys(&["exists 't'", "Enter"]);
    tmux.wait_for("the next command", |s| s.contains("Table t does exist"));
    tmux.keys(&["exit", "Enter"]);
}

fn create_tables(dir: &Path, names: &[&str]) {
    let db = Database::open(dir, DbConfig::default()).expect("open");
    let conn = EmbeddedConnection::new(db.clone());
    for name in names {
        let family = FamilyDescriptor::new("f").expect("family");
        conn.admin()
            .create_table(
                &TableDescriptor::new(TableName::parse(name).expect("name"), vec![family]),
                &PreSplit::None,
            )
            .expect("create");
    }
    db.close().expect("close");
}

/// The last line that starts with a prompt: the one being edited.
fn edited_line(screen: &str) -> String {
    screen
        .lines()
        .rfind(|l| l.starts_with("hbase:"))
        .unwrap_or_default()
        .trim_end()
        .to_string()
}

#[test]
fn tab_completes_command_names_and_table_names_refreshed_after_ddl() {
    ensure_tmux();
    let dir = tempfile::tempdir().expect("temp dir");
    create_tables(dir.path(), &["users_tab", "events"]);
    let command = format!(
        "{} shell --data-dir {}",
        env!("CARGO_BIN_EXE_basalt"),
        dir.path().display()
    );
    let tmux = Tmux::start("tab", &command);
    // Keys go out only once the shell waits at prompt `n`: typed while a command runs,
    // the terminal would echo them before the line editor takes over.
    let prompt = |n: usize| {
        let mark = format!("hbase:{n:03}:0>");
        tmux.wait_for(&format!("prompt {n}"), |s| {
            s.lines().any(|l| l.starts_with(&mark))
        });
    };
    prompt(1);

    // A command name.
    tmux.keys(&["disable_a", "Tab"]);
    tmux.wait_for("the completed command", |s| {
        edited_line(s).ends_with("> disable_all")
    });
    tmux.keys(&["C-c"]);
    prompt(2);

    // A table name, closed with its quote, then run.
    tmux.keys(&["scan 'us", "Tab"]);
    tmux.wait_for("the completed table name", |s| {
        edited_line(s).ends_with("> scan 'users_tab'")
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("the scan", |s| s.contains("0 row(s)"));
    prompt(3);

    // A table created in this session is offered after the DDL, though the names were
    // already fetched for the first completion.
    tmux.keys(&["create 'zebra', 'f'", "Enter"]);
    tmux.wait_for("the create", |s| s.contains("Created table zebra"));
    prompt(4);
    tmux.keys(&["describe 'zeb", "Tab"]);
    tmux.wait_for("the new table completed", |s| {
        edited_line(s).ends_with("> describe 'zebra'")
    });
    tmux.keys(&["C-c"]);
    prompt(5);
    tmux.keys(&["exit", "Enter"]);
}
