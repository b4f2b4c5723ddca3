//! What a command returns, and how the shell prints it in HBase 1.x or 2.x style.
//!
//! A command answers with an [`Outcome`]: body lines, an optional row count, and an optional
//! return value IRB echoes. The [`Style`] decides the frame around it:
//!
//! | part | [`Style::Hbase2`] (default) | [`Style::Hbase1`] (the seed transcripts) |
//! |------|-----------------------------|-------------------------------------------|
//! | prompt | `hbase:001:0> ` | `hbase(main):001:0> ` |
//! | row count | `N row(s)` (only when counted) | `N row(s) in 0.0123 seconds` (always; 0 when not counted) |
//! | timing | `Took 0.0123 seconds` | in the row-count line |
//! | after the footer | — | an empty line |
//! | return value | `=> true` | `=> true` |
//! | error | `\nERROR: msg\n\nFor usage try 'help "cmd"'\n\nTook …` | `\nERROR: msg\n\nHere is some help for this command:\n<help>\n\n` |
//! | Ctrl-C | `\nInterrupted after N row(s)\nTook …` (no usage hint) | `\nInterrupted after N row(s)\n\n` |

use crate::parse::Value;
use std::time::{Duration, Instant};

/// Which HBase shell's output to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// HBase 1.x (`0 row(s) in 0.0130 seconds`), as in the seed transcripts.
    Hbase1,
    /// HBase 2.x (`Took 0.0130 seconds`).
    #[default]
    Hbase2,
}

impl Style {
    /// The prompt for input line `line` (1-based); `depth` > 0 marks a continuation line.
    pub fn prompt(self, line: usize, depth: usize) -> String {
        let mark = if depth > 0 { '*' } else { '>' };
        match self {
            Style::Hbase1 => format!("hbase(main):{line:03}:{depth}{mark} "),
            Style::Hbase2 => format!("hbase:{line:03}:{depth}{mark} "),
        }
    }
}

/// Where elapsed times come from; tests pin them with [`FixedClock`].
pub trait Clock: Send + Sync {
    /// A monotonic reading; only differences matter.
    fn now(&self) -> Duration;

    /// Waits `duration` for a script's `sleep`, returning early once `interrupt` is set
    /// (Ctrl-C). Clocks that never move return at once, so tests do not wait.
    fn sleep(&self, duration: Duration, interrupt: &std::sync::atomic::AtomicBool) {
        let _ = (duration, interrupt);
    }
}

/// The process's monotonic clock.
#[derive(Debug)]
pub struct SystemClock {
    origin: Instant,
}

impl Default for SystemClock {
    fn default() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn sleep(&self, duration: Duration, interrupt: &std::sync::atomic::AtomicBool) {
        // The user asked to wait (`sleep 5` between compactions); wake every 50 ms to
        // notice Ctrl-C.
        let until = Instant::now() + duration;
        while !interrupt.load(std::sync::atomic::Ordering::Relaxed) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            std::thread::sleep(left.min(Duration::from_millis(50)));
        }
    }
}

/// A clock that never moves: every command takes `0.0000 seconds`.
#[derive(Debug, Default, Clone, Copy)]
pub struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> Duration {
        Duration::ZERO
    }
}

/// A command's answer, before the style frames it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub lines: Vec<String>,
    /// The `N row(s)` count, when the command counts rows.
    pub rows: Option<u64>,
    /// Lines after the row count (2.x `describe`'s `Quota is disabled`).
    pub after_rows: Vec<String>,
    /// What IRB echoes as `=> ...`.
    pub value: Option<Value>,
    /// Printed without the row-count and timing frame (`help`).
    pub bare: bool,
}

impl Outcome {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn line(mut self, line: impl Into<String>) -> Self {
        self.lines.push(line.into());
        self
    }

    pub fn rows(mut self, rows: u64) -> Self {
        self.rows = Some(rows);
        self
    }

    pub fn value(mut self, value: Value) -> Self {
        self.value = Some(value);
        self
    }
}

/// Prints a successful command.
pub fn render_success(style: Style, outcome: &Outcome, elapsed: Duration) -> String {
    let mut out = String::new();
    for line in &outcome.lines {
        out.push_str(line);
        out.push('\n');
    }
    let secs = elapsed.as_secs_f64();
    if outcome.bare {
        return out;
    }
    match style {
        Style::Hbase1 => {
            let rows = outcome.rows.unwrap_or(0);
            out.push_str(&format!("{rows} row(s) in {secs:.4} seconds\n\n"));
        }
        Style::Hbase2 => {
            if let Some(rows) = outcome.rows {
                out.push_str(&format!("{rows} row(s)\n"));
            }
            for line in &outcome.after_rows {
                out.push_str(line);
                out.push('\n');
            }
            out.push_str(&format!("Took {secs:.4} seconds\n"));
        }
    }
    if let Some(value) = &outcome.value {
        out.push_str(&format!("=> {}\n", value.inspect()));
    }
    out
}

/// Prints a failed command: `partial` is what it printed before failing.
pub fn render_error(
    style: Style,
    command: &str,
    help: &str,
    partial: &[String],
    message: &str,
    elapsed: Duration,
) -> String {
    let mut out = String::new();
    for line in partial {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!("\nERROR: {message}\n\n"));
    match style {
        Style::Hbase1 => {
            out.push_str("Here is some help for this command:\n");
            out.push_str(help.trim_end_matches('\n'));
            out.push_str("\n\n\n");
        }
        Style::Hbase2 => {
            out.push_str(&format!("For usage try 'help \"{command}\"'\n\n"));
            out.push_str(&format!("Took {:.4} seconds\n", elapsed.as_secs_f64()));
        }
    }
    out
}

/// Prints a command stopped by Ctrl-C: what it printed, then how far it got. Unlike
/// [`render_error`] there is no `ERROR:` and no usage hint: the command was not misused
/// (HBase's `command_safe` rescues `StandardError`, and JRuby's `Interrupt` is not one).
pub fn render_interrupted(
    style: Style,
    partial: &[String],
    message: &str,
    elapsed: Duration,
) -> String {
    let mut out = String::new();
    for line in partial {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!("\n{message}\n"));
    match style {
        Style::Hbase1 => out.push('\n'),
        Style::Hbase2 => out.push_str(&format!("Took {:.4} seconds\n", elapsed.as_secs_f64())),
    }
    out
}

/// HBase's console table of one or two columns. With `width` 0 (not a terminal) nothing
/// is padded; otherwise the first column gets a quarter of the width and long text wraps.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    pub width: usize,
}

impl Table {
    /// The header row: not inset.
    pub fn header(&self, col1: &str, col2: &str) -> Vec<String> {
        self.row_lines(col1, col2, false)
    }

    /// A data row: inset by one space.
    pub fn row(&self, col1: &str, col2: &str) -> Vec<String> {
        self.row_lines(col1, col2, true)
    }

    fn row_lines(&self, col1: &str, col2: &str, inset: bool) -> Vec<String> {
        let w1 = self.width / 4;
        let w2 = self.width.saturating_sub(w1 + 2);
        let a = chunks(col1, w1);
        let b = chunks(col2, w2);
        let n = a.len().max(b.len());
        (0..n)
            .map(|i| {
                let mut line = String::new();
                if inset {
                    line.push(' ');
                }
                pad_into(&mut line, a.get(i).map_or("", |s| s.as_str()), w1);
                if !inset {
                    line.push(' ');
                }
                line.push(' ');
                pad_into(&mut line, b.get(i).map_or("", |s| s.as_str()), w2);
                line
            })
            .collect()
    }
}

fn pad_into(line: &mut String, text: &str, width: usize) {
    line.push_str(text);
    let len = text.chars().count();
    if width > len {
        line.extend(std::iter::repeat_n(' ', width - len));
    }
}

/// `text` cut into pieces of `width` characters (whole when `width` is 0).
fn chunks(text: &str, width: usize) -> Vec<String> {
    if width == 0 || text.chars().count() <= width {
        return vec![text.to_string()];
    }
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(width).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_by_style() {
        let o = Outcome::new().line("x").rows(2).value(Value::Bool(true));
        let t = Duration::from_millis(12);
        assert_eq!(
            render_success(Style::Hbase2, &o, t),
            "x\n2 row(s)\nTook 0.0120 seconds\n=> true\n"
        );
        assert_eq!(
            render_success(Style::Hbase1, &o, t),
            "x\n2 row(s) in 0.0120 seconds\n\n=> true\n"
        );
    }

    #[test]
    fn an_interrupted_command_prints_no_usage_hint() {
        let t = Duration::from_millis(12);
        let rows = ["ROW  COLUMN+CELL".to_string(), " r1 column=f:q".to_string()];
        assert_eq!(
            render_interrupted(Style::Hbase2, &rows, "Interrupted after 1 row(s)", t),
            "ROW  COLUMN+CELL\n r1 column=f:q\n\nInterrupted after 1 row(s)\nTook 0.0120 seconds\n"
        );
        assert_eq!(
            render_interrupted(Style::Hbase1, &[], "Interrupted after 0 row(s)", t),
            "\nInterrupted after 0 row(s)\n\n"
        );
    }

    #[test]
    fn tables_pad_only_on_a_terminal() {
        let plain = Table { width: 0 };
        assert_eq!(plain.header("ROW", "COLUMN+CELL"), ["ROW  COLUMN+CELL"]);
        assert_eq!(plain.row("r1", "column=f:q"), [" r1 column=f:q"]);
        let tty = Table { width: 20 };
        assert_eq!(tty.header("ROW", "C"), ["ROW    C            "]);
        assert_eq!(
            tty.row("r1", "0123456789abcdefghij"),
            [" r1    0123456789abc", "       defghij      "]
        );
    }
}
