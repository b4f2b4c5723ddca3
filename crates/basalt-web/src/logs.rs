//! The last log lines in memory, for the logs page and the home page's recent errors: a
//! `tracing` layer installed beside the usual output.
//!
//! Two bounded rings: every event at the layer's level, and warnings and errors alone (so
//! a burst of info lines does not push the last error out of sight). Each line is capped
//! at [`LINE_MAX_CHARS`].

use parking_lot::Mutex;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// The longest message kept; longer ones are cut with `…`.
pub const LINE_MAX_CHARS: usize = 2000;

/// One log event as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    pub time_ms: u64,
    pub level: Level,
    pub target: String,
    /// The message, then the event's fields as `key=value`.
    pub message: String,
}

/// The rings of recent lines; share it between the layer and the web UI.
#[derive(Debug)]
pub struct LogBuffer {
    lines: Mutex<VecDeque<LogLine>>,
    problems: Mutex<VecDeque<LogLine>>,
    lines_max: usize,
    problems_max: usize,
}

impl LogBuffer {
    /// Keeps the last `lines_max` lines and the last `problems_max` warnings and errors.
    pub fn new(lines_max: usize, problems_max: usize) -> Arc<Self> {
        Arc::new(Self {
            lines: Mutex::new(VecDeque::new()),
            problems: Mutex::new(VecDeque::new()),
            lines_max,
            problems_max,
        })
    }

    /// A layer feeding this buffer.
    pub fn layer(self: &Arc<Self>) -> LogLayer {
        LogLayer {
            buffer: self.clone(),
        }
    }

    pub fn push(&self, line: LogLine) {
        if line.level <= Level::WARN {
            push_bounded(&mut self.problems.lock(), line.clone(), self.problems_max);
        }
        push_bounded(&mut self.lines.lock(), line, self.lines_max);
    }

    /// Recent lines, oldest first.
    pub fn lines(&self) -> Vec<LogLine> {
        self.lines.lock().iter().cloned().collect()
    }

    /// Recent warnings and errors, oldest first.
    pub fn problems(&self) -> Vec<LogLine> {
        self.problems.lock().iter().cloned().collect()
    }
}

impl Default for LogBuffer {
    fn default() -> Self {
        Self {
            lines: Mutex::new(VecDeque::new()),
            problems: Mutex::new(VecDeque::new()),
            lines_max: 1000,
            problems_max: 100,
        }
    }
}

fn push_bounded(ring: &mut VecDeque<LogLine>, line: LogLine, max: usize) {
    if max == 0 {
        return;
    }
    while ring.len() >= max {
        ring.pop_front();
    }
    ring.push_back(line);
}

/// The `tracing` layer writing into a [`LogBuffer`].
#[derive(Debug, Clone)]
pub struct LogLayer {
    buffer: Arc<LogBuffer>,
}

impl<S: Subscriber> Layer<S> for LogLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut visitor = MessageVisitor::default();
        event.record(&mut visitor);
        let mut message = visitor.message;
        if !visitor.fields.is_empty() {
            if !message.is_empty() {
                message.push(' ');
            }
            message.push_str(&visitor.fields);
        }
        if message.chars().count() > LINE_MAX_CHARS {
            message = message.chars().take(LINE_MAX_CHARS).collect();
            message.push('…');
        }
        let time_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        self.buffer.push(LogLine {
            time_ms,
            level: *event.metadata().level(),
            target: event.metadata().target().to_string(),
            message,
        });
    }
}

#[derive(Default)]
struct MessageVisitor {
    message: String,
    fields: String,
}

impl Visit for MessageVisitor {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.record(field, format_args!("{value}"));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.record(field, format_args!("{value:?}"));
    }
}

impl MessageVisitor {
    fn record(&mut self, field: &Field, value: std::fmt::Arguments<'_>) {
        // Stop growing past the cap: a huge field must not take memory.
        if self.message.len() + self.fields.len() > LINE_MAX_CHARS * 4 {
            return;
        }
        if field.name() == "message" {
            let _ = write!(self.message, "{value}");
        } else {
            if !self.fields.is_empty() {
                self.fields.push(' ');
            }
            let _ = write!(self.fields, "{}={value}", field.name());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn keeps_the_last_lines_and_warnings_apart() {
        let buffer = LogBuffer::new(3, 2);
        let subscriber = tracing_subscriber::registry().with(buffer.layer());
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(region = "r1", "first warning");
            for i in 0..5 {
                tracing::info!(i, "line");
            }
            tracing::error!("{}", "x".repeat(LINE_MAX_CHARS + 10));
        });
        let lines = buffer.lines();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].message, "line i=3");
        assert_eq!(lines[2].level, Level::ERROR);
        assert_eq!(lines[2].message.chars().count(), LINE_MAX_CHARS + 1);
        let problems = buffer.problems();
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[0].message, "first warning region=r1");
        assert!(problems[0].target.contains("logs"));
    }
}
