//! How a data call's cells travel back: inline in the protobuf `Result`s, or, when the
//! connection header named a cell-block codec, in one cell block after the answer's
//! message, as HBase's region servers answer.
//!
//! With a block, each `Result` carries `associated_cell_count` (its cells are the next
//! that many of the block, in the order the results appear in the message) and no
//! `cell`; a scan's answer lists no `results` at all but `cells_per_result` and
//! `partial_flag_per_result`, which is how HBase's client reads a scan's block.
//! An existence-only Get has no cells either way.

use super::convert;
use crate::cellblock::{self, Codec};
use crate::pb;
use basalt_types::RowResult;
use prost::Message;

/// A call's answer: the response message's bytes and its cell block (empty for none).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reply {
    pub message: Vec<u8>,
    pub cell_block: Vec<u8>,
}

impl Reply {
    /// An answer with no cell block.
    pub fn inline(message: Vec<u8>) -> Self {
        Self {
            message,
            cell_block: Vec::new(),
        }
    }
}

/// Where a call's result cells go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Results {
    /// In the `Result` messages (a connection that named no codec).
    Inline,
    /// In the cell block being built.
    Block(Vec<u8>),
}

impl Results {
    /// Where the cells go on a connection that named `codec` (its tags variant is
    /// answered without tags, which it reads).
    pub fn for_codec(codec: Option<Codec>) -> Self {
        match codec {
            None => Self::Inline,
            Some(Codec::KeyValue | Codec::KeyValueWithTags) => Self::Block(Vec::new()),
        }
    }

    pub fn is_block(&self) -> bool {
        matches!(self, Self::Block(_))
    }

    /// `row` as a protobuf `Result`, its cells inline or appended to the block.
    pub fn result(&mut self, row: &RowResult) -> pb::Result {
        match self {
            Self::Inline => convert::result(row),
            Self::Block(block) => {
                cellblock::encode_into(block, &row.cells);
                pb::Result {
                    cell: Vec::new(),
                    associated_cell_count: Some(row.cells.len() as i32),
                    exists: row.exists,
                    stale: Some(false),
                    partial: Some(row.partial),
                }
            }
        }
    }

    /// A scan's results as its answer lists them: `(results, cells_per_result)`.
    pub fn scan_results(&self, results: Vec<pb::Result>) -> (Vec<pb::Result>, Vec<u32>) {
        match self {
            Self::Inline => (results, Vec::new()),
            Self::Block(_) => {
                let counts = results
                    .iter()
                    .map(|r| r.associated_cell_count.unwrap_or(0).max(0) as u32)
                    .collect();
                (Vec::new(), counts)
            }
        }
    }

    /// The answer: `message` and the block built so far.
    pub fn reply(self, message: impl Message) -> Reply {
        Reply {
            message: message.encode_to_vec(),
            cell_block: match self {
                Self::Inline => Vec::new(),
                Self::Block(block) => block,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::Cell;
    use bytes::Bytes;

    fn row(name: &'static [u8], values: &[&'static [u8]]) -> RowResult {
        RowResult::new(
            values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    Cell::put(
                        Bytes::from_static(name),
                        Bytes::from_static(b"cf"),
                        Bytes::from(format!("q{i}")),
                        7,
                        Bytes::from_static(v),
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn inline_results_carry_their_cells_and_no_block() {
        let mut out = Results::for_codec(None);
        let result = out.result(&row(b"r", &[b"a", b"b"]));
        assert_eq!(result.cell.len(), 2);
        assert_eq!(result.associated_cell_count, None);
        let reply = out.reply(pb::GetResponse {
            result: Some(result),
        });
        assert!(reply.cell_block.is_empty());
    }

    #[test]
    fn block_results_count_their_cells_and_the_block_holds_them_in_order() {
        let mut out = Results::for_codec(Some(Codec::KeyValue));
        let (first, second) = (row(b"r1", &[b"a", b"b"]), row(b"r2", &[b"c"]));
        let results = vec![out.result(&first), out.result(&second)];
        assert!(results.iter().all(|r| r.cell.is_empty()));
        assert_eq!(results[0].associated_cell_count, Some(2));
        let (listed, counts) = out.scan_results(results);
        assert!(listed.is_empty());
        assert_eq!(counts, vec![2, 1]);
        let reply = out.reply(pb::ScanResponse::default());
        let cells = cellblock::decode(&Bytes::from(reply.cell_block), Codec::KeyValue)
            .expect("the block decodes");
        let want: Vec<Cell> = first.cells.iter().chain(&second.cells).cloned().collect();
        assert_eq!(cells, want);
    }
}
