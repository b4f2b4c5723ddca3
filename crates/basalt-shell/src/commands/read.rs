//! The options `get` and `scan` share, and the cell tables they print.
//!
//! | key | get | scan | meaning |
//! |-----|-----|------|---------|
//! | `COLUMN` / `COLUMNS` | ✓ | ✓ | `'f'`, `'f:q'` or an array of them |
//! | `TIMESTAMP` | ✓ | ✓ | exactly this timestamp |
//! | `TIMERANGE => [min, max]` | ✓ | ✓ | `min <= ts < max` |
//! | `VERSIONS` | ✓ | ✓ | versions per column (default 1) |
//! | `FILTER => "..."` | ✓ | ✓ | HBase filter language |
//! | `MAXLENGTH` | ✓ | ✓ | cut each cell's text to this many characters |
//! | `FORMATTER => 'toString'` | ✓ | ✓ | print every value with this `Bytes` method ([`super::convert`]) |
//! | `STARTROW`, `STOPROW` (`ENDROW`), `ROWPREFIXFILTER`, `LIMIT`, `REVERSED`, `RAW`, `CACHE`, `BATCH`, `MAX_RESULT_SIZE`, `CACHE_BLOCKS` | | ✓ | as in HBase's `Scan` |

use super::convert::{split_qualifier, Converter, Converters};
use crate::args;
use crate::command::CmdError;
use crate::format;
use crate::output::Table as Console;
use crate::parse::Value;
use basalt_types::{Cell, ColumnSelection, FilterSpec, RowResult, TimeRange};

/// How a read prints its cells.
#[derive(Debug, Clone, Default)]
pub struct Render {
    pub timestamps: format::TimestampFormat,
    pub max_length: Option<usize>,
    pub converters: Converters,
}

impl Render {
    pub fn new(ctx: &crate::command::Ctx) -> Self {
        Self {
            timestamps: ctx.timestamps,
            ..Self::default()
        }
    }

    /// `timestamp=..., value=...` of a cell, converted and cut.
    pub fn cell(&self, cell: &Cell) -> String {
        let value =
            self.converters
                .value(&cell.family_bytes(), &cell.qualifier_bytes(), cell.value());
        format::cell_text_with(cell, &value, self.timestamps, self.max_length)
    }

    /// Reads `MAXLENGTH` and `FORMATTER` from a hash.
    pub fn options(&mut self, pairs: &[(Value, Value)]) -> Result<(), CmdError> {
        if let Some(v) = args::get(pairs, "MAXLENGTH").or_else(|| args::get(pairs, "MAX_LENGTH")) {
            self.max_length = usize::try_from(args::int(v, "MAXLENGTH")?).ok();
        }
        if let Some(v) = args::get(pairs, "FORMATTER") {
            let name = args::text(v, "FORMATTER")?;
            let converter = Converter::parse(&name)
                .ok_or_else(|| CmdError::new(format!("Unknown FORMATTER method: {name}")))?;
            self.converters.default = Some(converter);
        }
        Ok(())
    }
}

/// Adds `'f'` / `'f:q'` / `'f:q:toInt'` specs (one or an array) to a selection, noting
/// converters.
pub fn add_columns(
    sel: &mut ColumnSelection,
    render: &mut Render,
    v: &Value,
) -> Result<(), CmdError> {
    for item in args::list(v) {
        let spec = args::bytes(&item, "COLUMNS")?;
        match args::column(&spec) {
            (family, Some(q)) => {
                let (q, converter) = split_qualifier(&q);
                if let Some(c) = converter {
                    render
                        .converters
                        .columns
                        .insert((family.clone(), q.clone()), c);
                }
                sel.add_column(family, q)
            }
            (family, None) => sel.add_family(family),
        }
    }
    Ok(())
}

/// A `FILTER` value: a filter-language string or a Java filter object. The string is parsed
/// as bytes, as HBase's `table.rb` hands `ParseFilter` the Ruby string's `to_java_bytes`: so
/// `"ValueFilter(=, 'binary:\x82')"` in double quotes compares with the byte 0x82.
pub fn filter(v: &Value) -> Result<FilterSpec, CmdError> {
    let text = match v {
        Value::Str(b) => b.clone(),
        Value::Java(j) => j.filter_bytes().ok_or_else(|| {
            CmdError::new(format!("FILTER must be a filter, got {}", v.inspect()))
        })?,
        other => args::text(other, "FILTER")?.into_bytes(),
    };
    basalt_filter::parse(&text).map_err(|e| CmdError::new(e.to_string()))
}

pub fn time_range(v: &Value) -> Result<TimeRange, CmdError> {
    let items = match v {
        Value::Array(items) if items.len() == 2 => items,
        other => {
            return Err(CmdError::new(format!(
                "TIMERANGE must be [min, max], got {}",
                other.inspect()
            )))
        }
    };
    let min = args::int(&items[0], "TIMERANGE")?;
    let max = args::int(&items[1], "TIMERANGE")?;
    TimeRange::new(min, max).map_err(|e| CmdError::new(e.to_string()))
}

pub fn timestamp(v: &Value) -> Result<TimeRange, CmdError> {
    let ts = args::int(v, "TIMESTAMP")?;
    TimeRange::at(ts).map_err(|e| CmdError::new(e.to_string()))
}

pub fn versions(v: &Value) -> Result<u32, CmdError> {
    let n = args::int(v, "VERSIONS")?;
    u32::try_from(n)
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| CmdError::new(format!("VERSIONS must be positive, got {n}")))
}

/// `get`'s table: `COLUMN  CELL`, then ` f:q timestamp=..., value=...` per cell.
pub fn get_table(console: Console, result: &RowResult, render: &Render) -> Vec<String> {
    let mut lines = console.header("COLUMN", "CELL");
    for cell in &result.cells {
        lines.extend(console.row(&format::column(cell), &render.cell(cell)));
    }
    lines
}

/// One `scan` line per cell: ` row column=f:q, timestamp=..., value=...`.
pub fn scan_rows(console: Console, cells: &[Cell], render: &Render) -> Vec<String> {
    let mut lines = Vec::new();
    for cell in cells {
        let text = format!("column={}, {}", format::column(cell), render.cell(cell));
        lines.extend(console.row(&format::bin(cell.row()), &text));
    }
    lines
}
