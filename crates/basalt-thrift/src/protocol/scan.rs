//! Where a buffered message ends, found while its bytes are still arriving.
//!
//! The buffered transport does not say how long a message is: it ends where its struct
//! does. [`Scanner`] walks the bytes received so far without allocating or decoding —
//! resuming where it stopped each time more arrive, so a large message is walked once —
//! and answers `Incomplete`, `Complete(len)` or `Invalid`. Only a complete message goes to
//! the decoder ([`super::read_message`]), on a worker thread; an invalid one goes too, so
//! that the decoder names what is wrong (and the client gets its `TApplicationException`).
//!
//! It applies every check the decoder applies, at the same byte: header, names, type
//! codes, varints, lengths, the value count, nesting and message size. So bytes the
//! decoder would refuse are refused as soon as they arrive, not after a header timeout; a
//! test holds the two to the same verdict on random input.

use super::binary::{self, name_byte, NAME_MAX_BYTES, VERSION_1, VERSION_MASK};
use super::compact::{self, from_compact_code, zigzag_decode};
use super::limits::checked_len;
use super::{Limits, MessageType, ProtocolKind, TType};

/// What the bytes so far are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// A prefix of a valid message: more bytes are needed.
    Incomplete,
    /// A whole message: its first `len` bytes.
    Complete(usize),
    /// Not a valid message (or one over a limit).
    Invalid,
}

/// The bytes break a rule.
struct Bad;

/// `Ok(None)`: more bytes are needed.
type Need<T> = Result<Option<T>, Bad>;

/// What a step did.
enum Outcome {
    Done,
    /// Needs more bytes; the task is put back unchanged.
    Wait,
}

/// What is left to walk, innermost last.
#[derive(Debug, Clone, Copy)]
enum Task {
    /// The fields of a struct at `depth`, up to its STOP; `last` is the previous field id
    /// (compact field-id deltas).
    Fields { depth: usize, last: i16 },
    /// One value.
    Value { ttype: TType, depth: usize },
    /// A list's or set's elements (`key` = `value`), or a map's keys and values
    /// alternating; `left` to go.
    Items {
        key: TType,
        value: TType,
        left: usize,
        depth: usize,
    },
    /// The rest of a string.
    Skip(usize),
}

/// Finds the end of one message after another (see the module).
#[derive(Debug)]
pub struct Scanner {
    kind: ProtocolKind,
    limits: Limits,
    started: bool,
    /// Bytes walked.
    pos: usize,
    values: usize,
    stack: Vec<Task>,
}

/// Unwraps a [`Need`], or returns [`Outcome::Wait`].
macro_rules! need {
    ($e:expr) => {
        match $e? {
            Some(v) => v,
            None => return Ok(Outcome::Wait),
        }
    };
}

impl Scanner {
    pub fn new(kind: ProtocolKind, limits: Limits) -> Self {
        Self {
            kind,
            limits,
            started: false,
            pos: 0,
            values: 0,
            stack: Vec::new(),
        }
    }

    /// Starts over, for the message after a complete one.
    pub fn reset(&mut self) {
        self.started = false;
        self.pos = 0;
        self.values = 0;
        self.stack = Vec::new();
    }

    /// Looks at `buf`: the bytes received since the message began, those of earlier calls
    /// included.
    pub fn scan(&mut self, buf: &[u8]) -> Scan {
        match self.walk(buf) {
            Ok(Some(len)) => Scan::Complete(len),
            Ok(None) => Scan::Incomplete,
            Err(Bad) => Scan::Invalid,
        }
    }

    fn walk(&mut self, buf: &[u8]) -> Need<usize> {
        if !self.started {
            let header = match self.kind {
                ProtocolKind::Binary => binary_header(buf, &self.limits)?,
                ProtocolKind::Compact => compact_header(buf, &self.limits)?,
            };
            let Some(len) = header else {
                return Ok(None);
            };
            self.started = true;
            self.pos = len;
            self.stack.push(Task::Fields { depth: 1, last: 0 });
        }
        while let Some(task) = self.stack.pop() {
            if let Task::Skip(left) = task {
                let n = left.min(buf.len() - self.pos);
                self.pos += n;
                if n < left {
                    self.stack.push(Task::Skip(left - n));
                    return Ok(None);
                }
                continue;
            }
            let mut cur = Cursor {
                buf,
                at: self.pos,
                max: self.limits.message_max_bytes,
            };
            let outcome = match self.kind {
                ProtocolKind::Binary => self.binary_step(task, &mut cur)?,
                ProtocolKind::Compact => self.compact_step(task, &mut cur)?,
            };
            match outcome {
                Outcome::Done => self.pos = cur.at,
                Outcome::Wait => {
                    self.stack.push(task);
                    return Ok(None);
                }
            }
        }
        Ok(Some(self.pos))
    }

    fn binary_step(&mut self, task: Task, cur: &mut Cursor) -> Result<Outcome, Bad> {
        match task {
            Task::Fields { depth, last } => {
                let code = need!(cur.u8());
                if code == 0 {
                    return Ok(Outcome::Done);
                }
                let ttype = TType::from_code(code).ok_or(Bad)?;
                need!(cur.take(2));
                self.stack.push(Task::Fields { depth, last });
                self.stack.push(Task::Value { ttype, depth });
            }
            Task::Value { ttype, depth } => {
                self.check_value()?;
                match ttype {
                    TType::Bool | TType::Byte => {
                        need!(cur.take(1));
                    }
                    TType::I16 => {
                        need!(cur.take(2));
                    }
                    TType::I32 => {
                        need!(cur.take(4));
                    }
                    TType::I64 | TType::Double => {
                        need!(cur.take(8));
                    }
                    TType::Binary => {
                        let len = i64::from(need!(cur.i32()));
                        self.string(len, cur)?;
                    }
                    TType::Struct => self.nest(depth)?,
                    TType::List | TType::Set => {
                        let inner = deeper(depth, &self.limits)?;
                        let element = binary_type(need!(cur.u8()))?;
                        let len = container(i64::from(need!(cur.i32())), &self.limits)?;
                        self.items(element, element, len, inner);
                    }
                    TType::Map => {
                        let inner = deeper(depth, &self.limits)?;
                        let key = binary_type(need!(cur.u8()))?;
                        let value = binary_type(need!(cur.u8()))?;
                        let len = container(i64::from(need!(cur.i32())), &self.limits)?;
                        self.items(key, value, len.saturating_mul(2), inner);
                    }
                }
                self.values += 1;
            }
            Task::Items { .. } => self.next_item(task),
            Task::Skip(_) => {}
        }
        Ok(Outcome::Done)
    }

    fn compact_step(&mut self, task: Task, cur: &mut Cursor) -> Result<Outcome, Bad> {
        match task {
            Task::Fields { depth, last } => {
                let byte = need!(cur.u8());
                if byte == 0 {
                    return Ok(Outcome::Done);
                }
                let ttype = from_compact_code(byte & 0x0f).map_err(|_| Bad)?;
                let delta = byte >> 4;
                let id = if delta == 0 {
                    let raw = zigzag_decode(need!(cur.varint()));
                    i16::try_from(raw).map_err(|_| Bad)?
                } else {
                    last.wrapping_add(i16::from(delta))
                };
                if ttype == TType::Bool {
                    // The value is in the field header.
                    self.check_value()?;
                    self.values += 1;
                    self.stack.push(Task::Fields { depth, last: id });
                } else {
                    self.stack.push(Task::Fields { depth, last: id });
                    self.stack.push(Task::Value { ttype, depth });
                }
            }
            Task::Value { ttype, depth } => {
                self.check_value()?;
                match ttype {
                    TType::Bool | TType::Byte => {
                        need!(cur.take(1));
                    }
                    TType::I16 => {
                        let v = zigzag_decode(need!(cur.varint()));
                        i16::try_from(v).map_err(|_| Bad)?;
                    }
                    TType::I32 => {
                        let v = zigzag_decode(need!(cur.varint()));
                        i32::try_from(v).map_err(|_| Bad)?;
                    }
                    TType::I64 => {
                        need!(cur.varint());
                    }
                    TType::Double => {
                        need!(cur.take(8));
                    }
                    TType::Binary => {
                        let len = need!(cur.varint());
                        self.string(i64::try_from(len).unwrap_or(i64::MAX), cur)?;
                    }
                    TType::Struct => self.nest(depth)?,
                    TType::List | TType::Set => {
                        let inner = deeper(depth, &self.limits)?;
                        let byte = need!(cur.u8());
                        let element = from_compact_code(byte & 0x0f).map_err(|_| Bad)?;
                        let len = match byte >> 4 {
                            15 => i64::try_from(need!(cur.varint())).unwrap_or(i64::MAX),
                            short => i64::from(short),
                        };
                        let len = container(len, &self.limits)?;
                        self.items(element, element, len, inner);
                    }
                    TType::Map => {
                        let inner = deeper(depth, &self.limits)?;
                        let len = i64::try_from(need!(cur.varint())).unwrap_or(i64::MAX);
                        let len = container(len, &self.limits)?;
                        if len > 0 {
                            let types = need!(cur.u8());
                            let key = from_compact_code(types >> 4).map_err(|_| Bad)?;
                            let value = from_compact_code(types & 0x0f).map_err(|_| Bad)?;
                            self.items(key, value, len.saturating_mul(2), inner);
                        }
                    }
                }
                self.values += 1;
            }
            Task::Items { .. } => self.next_item(task),
            Task::Skip(_) => {}
        }
        Ok(Outcome::Done)
    }

    /// The value about to be read must fit in the value budget.
    fn check_value(&self) -> Result<(), Bad> {
        match self.values < self.limits.values_max {
            true => Ok(()),
            false => Err(Bad),
        }
    }

    /// A string of `len` bytes follows the cursor.
    fn string(&mut self, len: i64, cur: &Cursor) -> Result<(), Bad> {
        let len =
            checked_len("string length", len, self.limits.string_max_bytes).map_err(|_| Bad)?;
        if cur.at.saturating_add(len) > self.limits.message_max_bytes {
            return Err(Bad);
        }
        self.stack.push(Task::Skip(len));
        Ok(())
    }

    /// A struct value inside something at `depth`.
    fn nest(&mut self, depth: usize) -> Result<(), Bad> {
        let depth = deeper(depth, &self.limits)?;
        self.stack.push(Task::Fields { depth, last: 0 });
        Ok(())
    }

    fn items(&mut self, key: TType, value: TType, left: usize, depth: usize) {
        self.stack.push(Task::Items {
            key,
            value,
            left,
            depth,
        });
    }

    /// The next element of a container, or its end.
    fn next_item(&mut self, task: Task) {
        let Task::Items {
            key,
            value,
            left,
            depth,
        } = task
        else {
            return;
        };
        if left == 0 {
            return;
        }
        // Map items alternate from the key: an even count left means a key is next.
        let ttype = if left.is_multiple_of(2) { key } else { value };
        self.items(key, value, left - 1, depth);
        self.stack.push(Task::Value { ttype, depth });
    }
}

fn deeper(depth: usize, limits: &Limits) -> Result<usize, Bad> {
    match depth + 1 > limits.depth_max {
        true => Err(Bad),
        false => Ok(depth + 1),
    }
}

fn container(len: i64, limits: &Limits) -> Result<usize, Bad> {
    checked_len("container length", len, limits.container_max_len).map_err(|_| Bad)
}

fn binary_type(code: u8) -> Result<TType, Bad> {
    TType::from_code(code).ok_or(Bad)
}

/// Reading ahead in the buffer; nothing is kept until a step is done.
struct Cursor<'a> {
    buf: &'a [u8],
    at: usize,
    /// The message size limit: reading past it is refused before waiting for the bytes.
    max: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Need<&'a [u8]> {
        if self.at + n > self.max {
            return Err(Bad);
        }
        let Some(bytes) = self.buf.get(self.at..self.at + n) else {
            return Ok(None);
        };
        self.at += n;
        Ok(Some(bytes))
    }

    fn u8(&mut self) -> Need<u8> {
        Ok(self.take(1)?.map(|b| b[0]))
    }

    fn i32(&mut self) -> Need<i32> {
        Ok(self
            .take(4)?
            .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]])))
    }

    /// A varint of at most 10 bytes.
    fn varint(&mut self) -> Need<u64> {
        let mut result = 0u64;
        for shift in (0..70).step_by(7) {
            let Some(byte) = self.u8()? else {
                return Ok(None);
            };
            result |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(Some(result));
            }
        }
        Err(Bad)
    }
}

/// The length of a binary-protocol message head (strict or old-style), if whole.
fn binary_header(buf: &[u8], limits: &Limits) -> Need<usize> {
    let mut cur = Cursor {
        buf,
        at: 0,
        max: limits.message_max_bytes,
    };
    let Some(first) = cur.i32()? else {
        return Ok(None);
    };
    let first = first as u32;
    if first & 0x8000_0000 != 0 {
        if first & VERSION_MASK != VERSION_1 {
            return Err(Bad);
        }
        let Some(len) = cur.i32()? else {
            return Ok(None);
        };
        if !name(&mut cur, binary::checked_name_len(len).map_err(|_| Bad)?)? {
            return Ok(None);
        }
        MessageType::from_code((first & 0xff) as u8).ok_or(Bad)?;
    } else {
        if !name(
            &mut cur,
            binary::checked_name_len(first as i32).map_err(|_| Bad)?,
        )? {
            return Ok(None);
        }
        let Some(kind) = cur.u8()? else {
            return Ok(None);
        };
        MessageType::from_code(kind).ok_or(Bad)?;
    }
    Ok(cur.take(4)?.map(|_| cur.at))
}

/// The length of a compact-protocol message head, if whole.
fn compact_header(buf: &[u8], limits: &Limits) -> Need<usize> {
    let mut cur = Cursor {
        buf,
        at: 0,
        max: limits.message_max_bytes,
    };
    let Some(id) = cur.u8()? else {
        return Ok(None);
    };
    if id != compact::PROTOCOL_ID {
        return Err(Bad);
    }
    let Some(version_and_type) = cur.u8()? else {
        return Ok(None);
    };
    if version_and_type & 0x1f != compact::VERSION {
        return Err(Bad);
    }
    MessageType::from_code(version_and_type >> 5).ok_or(Bad)?;
    if cur.varint()?.is_none() {
        return Ok(None);
    }
    let Some(len) = cur.varint()? else {
        return Ok(None);
    };
    let len = usize::try_from(len)
        .ok()
        .filter(|n| *n <= NAME_MAX_BYTES && i64::try_from(*n).is_ok())
        .ok_or(Bad)?;
    Ok(name(&mut cur, len)?.then_some(cur.at))
}

/// Walks a method name of `len` bytes: whether it is whole. The bytes present are checked
/// as they come.
fn name(cur: &mut Cursor, len: usize) -> Result<bool, Bad> {
    if len == 0 {
        return Err(Bad);
    }
    let available = cur.buf.len().saturating_sub(cur.at).min(len);
    if cur.at + len > cur.max {
        return Err(Bad);
    }
    if !cur.buf[cur.at..cur.at + available]
        .iter()
        .all(|b| name_byte(*b))
    {
        return Err(Bad);
    }
    Ok(cur.take(len)?.is_some())
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
