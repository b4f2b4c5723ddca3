//! The commands of `basalt pe`, with HBase PE's and YCSB's names.
//!
//! | command | each operation (per client, `--rows` of them) |
//! |---------|-------------------------------------------|
//! | `sequentialWrite` | put the client's next row |
//! | `randomWrite` | put a random row of the whole table |
//! | `sequentialRead` | get the client's next row |
//! | `randomRead` | get a random row (batches of `--multi-get N` when N > 1) |
//! | `randomSeekScan` | scan up to 120 rows from a random row |
//! | `scan` | the next row of one scanner over the client's rows |
//! | `scanRange10`/`100`/`1000` | scan 10/100/1000 rows' key range from a random row |
//! | `increment` | add 1 to `IncrementTest` in every family of the next row of `0..rows` (all clients share these rows) |
//! | `append` | append the row key to `AppendTest` in every family of the next row of `0..rows` (shared) |
//! | `checkAndPut` | put `info0:CheckAndPutTest`, then check-and-put the same value (rows `0..rows`, shared) |
//! | `filterScan` | a full-table scan with a value filter (`--rows / 100` of them) |
//! | `multiGet` | a batch of `--multi-get N` (default 10) random gets |
//! | `ycsbLoad` | insert the client's next YCSB record (10 fields × 100 bytes) |
//! | `ycsbA`…`ycsbF` | one YCSB operation of the workload's mix (see `workload::ycsb`) |

use crate::error::PeError;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Command {
    SequentialWrite,
    RandomWrite,
    SequentialRead,
    RandomRead,
    RandomSeekScan,
    Scan,
    ScanRange10,
    ScanRange100,
    ScanRange1000,
    Increment,
    Append,
    CheckAndPut,
    FilterScan,
    MultiGet,
    YcsbLoad,
    YcsbA,
    YcsbB,
    YcsbC,
    YcsbD,
    YcsbE,
    YcsbF,
}

impl Command {
    pub const ALL: [Command; 21] = [
        Self::SequentialWrite,
        Self::RandomWrite,
        Self::SequentialRead,
        Self::RandomRead,
        Self::RandomSeekScan,
        Self::Scan,
        Self::ScanRange10,
        Self::ScanRange100,
        Self::ScanRange1000,
        Self::Increment,
        Self::Append,
        Self::CheckAndPut,
        Self::FilterScan,
        Self::MultiGet,
        Self::YcsbLoad,
        Self::YcsbA,
        Self::YcsbB,
        Self::YcsbC,
        Self::YcsbD,
        Self::YcsbE,
        Self::YcsbF,
    ];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::SequentialWrite => "sequentialWrite",
            Self::RandomWrite => "randomWrite",
            Self::SequentialRead => "sequentialRead",
            Self::RandomRead => "randomRead",
            Self::RandomSeekScan => "randomSeekScan",
            Self::Scan => "scan",
            Self::ScanRange10 => "scanRange10",
            Self::ScanRange100 => "scanRange100",
            Self::ScanRange1000 => "scanRange1000",
            Self::Increment => "increment",
            Self::Append => "append",
            Self::CheckAndPut => "checkAndPut",
            Self::FilterScan => "filterScan",
            Self::MultiGet => "multiGet",
            Self::YcsbLoad => "ycsbLoad",
            Self::YcsbA => "ycsbA",
            Self::YcsbB => "ycsbB",
            Self::YcsbC => "ycsbC",
            Self::YcsbD => "ycsbD",
            Self::YcsbE => "ycsbE",
            Self::YcsbF => "ycsbF",
        }
    }

    /// Parses a command name, case-insensitively; an unknown name lists the known ones.
    pub fn parse(text: &str) -> Result<Self, PeError> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| PeError::UnknownCommand {
                given: text.to_string(),
                known: Self::ALL.map(Command::name).join(", "),
            })
    }

    /// YCSB commands work on YCSB records (`usertable`, `user<hash>` keys, 10 fields).
    pub fn is_ycsb(self) -> bool {
        self >= Self::YcsbLoad
    }

    /// A YCSB transaction workload, which needs loaded records.
    pub fn is_ycsb_transactions(self) -> bool {
        self > Self::YcsbLoad
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_case_insensitively() {
        for c in Command::ALL {
            assert_eq!(Command::parse(c.name()).expect("known"), c);
            assert_eq!(Command::parse(&c.name().to_uppercase()).expect("known"), c);
            assert_eq!(c.to_string(), c.name());
        }
    }

    #[test]
    fn unknown_command_lists_the_known_ones() {
        let e = Command::parse("randomWalk").expect_err("unknown");
        let text = e.to_string();
        assert!(text.starts_with("unknown command 'randomWalk'"), "{text}");
        for c in Command::ALL {
            assert!(text.contains(c.name()), "{text} lacks {c}");
        }
    }

    #[test]
    fn ycsb_commands_are_marked() {
        assert!(!Command::MultiGet.is_ycsb());
        assert!(Command::YcsbLoad.is_ycsb() && !Command::YcsbLoad.is_ycsb_transactions());
        assert!(Command::YcsbF.is_ycsb_transactions());
    }
}
