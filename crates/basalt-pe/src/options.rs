//! The options of `basalt pe`: parsed by clap ([`PeArgs`]), then checked against each other
//! and their limits ([`PeArgs::validate`] → [`PeOptions`]).
//!
//! Names follow HBase's PE (`--rows`, `--presplit`, …); PE's camel-case spellings
//! (`--valueSize`, `--autoFlush`, `--multiGet`, `--bloomFilter`, `--blockEncoding`,
//! `--inmemory`) are accepted as aliases. Every limit exists so that a typo cannot ask for
//! terabytes or a million threads: the memory a run uses is bounded by these options.

use crate::command::Command;
use crate::error::{PeError, Result};
use basalt_types::{BloomType, Compression, DataBlockEncoding, Durability, TableName};
use clap::{ArgAction, Parser};

/// HBase PE's default rows per client (`ONE_GB / DEFAULT_VALUE_LENGTH`).
pub const DEFAULT_ROWS: u64 = 1_048_576;
/// PE's default value size.
pub const DEFAULT_VALUE_SIZE_BYTES: usize = 1024;
/// PE keeps its total row count in a Java `int`; so do we.
pub const TOTAL_ROWS_MAX: u64 = i32::MAX as u64;
/// Each client is a thread.
pub const CLIENTS_MAX: u32 = 256;
/// Below the server's default cell limit (10 MiB) with room for the key.
pub const VALUE_SIZE_MAX_BYTES: usize = 8 * 1024 * 1024;
pub const FAMILIES_MAX: u32 = 64;
pub const COLUMNS_MAX: u32 = 1024;
/// One row (families × columns × value size) is built in memory per client at a time.
pub const ROW_MAX_BYTES: u64 = 64 * 1024 * 1024;
pub const PRESPLIT_MAX: u32 = 1000;
pub const MULTI_GET_MAX: u32 = 10_000;
/// `multiGet`'s batch when `--multi-get` is not given.
pub const DEFAULT_MULTI_GET: u32 = 10;
/// PE's default table.
pub const PE_TABLE: &str = "TestTable";
/// YCSB's default table.
pub const YCSB_TABLE: &str = "usertable";

const COMMANDS_HELP: &str = "\
Commands (HBase PE names; each client runs --rows operations):
  sequentialWrite   put the client's rows in key order
  randomWrite       put random rows of the whole table
  sequentialRead    get the client's rows in key order
  randomRead        get random rows (batches of --multi-get N when N > 1)
  randomSeekScan    scan up to 120 rows from a random row
  scan              read the client's rows through one scanner (an operation per row)
  scanRange10       scan a 10-row key range from a random row
  scanRange100      scan a 100-row key range from a random row
  scanRange1000     scan a 1000-row key range from a random row
  increment         add 1 to IncrementTest (every family) of rows 0..rows, shared by all clients
  append            append the row key to AppendTest (every family) of rows 0..rows, shared
  checkAndPut       put info0:CheckAndPutTest, then check-and-put the same value (rows shared)
  filterScan        full-table scans with a SingleColumnValueFilter (--rows / 100 of them)
  multiGet          batches of --multi-get N random gets (default 10)
  ycsbLoad          insert YCSB records: user<fnv64> keys, 10 fields x 100 bytes
  ycsbA             50% read, 50% update, zipfian
  ycsbB             95% read, 5% update, zipfian
  ycsbC             100% read, zipfian
  ycsbD             95% read, 5% insert, latest
  ycsbE             95% scan (1..100 rows), 5% insert, zipfian
  ycsbF             50% read, 50% read-modify-write, zipfian
ycsbA..ycsbF first load the table (as ycsbLoad) when it is missing or empty; the table
then holds --rows x --clients records, which later runs should repeat.";

fn parse_command(text: &str) -> std::result::Result<Command, String> {
    Command::parse(text).map_err(|e| e.to_string())
}

fn parse_durability(text: &str) -> std::result::Result<Durability, String> {
    Durability::parse(text).map_err(|e| e.to_string())
}

fn parse_compression(text: &str) -> std::result::Result<Compression, String> {
    Compression::parse(text).map_err(|e| e.to_string())
}

fn parse_bloom(text: &str) -> std::result::Result<BloomType, String> {
    BloomType::parse(text).map_err(|e| e.to_string())
}

fn parse_encoding(text: &str) -> std::result::Result<DataBlockEncoding, String> {
    DataBlockEncoding::parse(text).map_err(|e| e.to_string())
}

/// HBase's PerformanceEvaluation and YCSB's core workloads.
///
/// Prints a progress bar on a terminal, then ops/s, MB/s and latency percentiles per
/// command (and per operation type for YCSB), and the peak resident memory of this process.
#[derive(Debug, Clone, Parser)]
#[command(name = "basalt pe", after_help = COMMANDS_HELP, args_override_self = true)]
pub struct PeArgs {
    /// Operations each client runs; for writes and ycsbLoad, rows each client writes.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_ROWS, allow_negative_numbers = true)]
    pub rows: u64,
    /// Concurrent clients, each a thread with its own table handle.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        allow_negative_numbers = true
    )]
    pub clients: u32,
    /// Bytes of each value PE writes (YCSB records always have 10 fields of 100 bytes).
    #[arg(long, alias = "valueSize", value_name = "BYTES", default_value_t = DEFAULT_VALUE_SIZE_BYTES, allow_negative_numbers = true)]
    pub value_size: usize,
    /// Regions to create a new table with (0: one region), split evenly over the key space.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    pub presplit: u32,
    /// Column families of a new PE table (info0, info1, …).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        allow_negative_numbers = true
    )]
    pub families: u32,
    /// Columns PE writes per family in each row (0, 1, …).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        allow_negative_numbers = true
    )]
    pub columns: u32,
    /// Compression of a new table's families: NONE, GZ, SNAPPY, LZ4, ZSTD.
    #[arg(long, value_name = "ALGO", default_value = "NONE", value_parser = parse_compression)]
    pub compress: Compression,
    /// Bloom filter of a new table's families: NONE, ROW, ROWCOL.
    #[arg(long, alias = "bloomFilter", value_name = "TYPE", default_value = "ROW", value_parser = parse_bloom)]
    pub bloom: BloomType,
    /// Data block encoding of a new table's families: NONE, PREFIX.
    #[arg(long, alias = "blockEncoding", value_name = "ENCODING", default_value = "NONE", value_parser = parse_encoding)]
    pub block_encoding: DataBlockEncoding,
    /// Give a new table's families in-memory priority in the block cache.
    #[arg(long, alias = "inmemory", value_name = "BOOL", num_args = 0..=1, default_value_t = false, default_missing_value = "true", action = ArgAction::Set)]
    pub in_memory: bool,
    /// Durability of every write: USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL.
    #[arg(long, value_name = "LEVEL", default_value = "USE_DEFAULT", value_parser = parse_durability)]
    pub durability: Durability,
    /// true: send each write on its own; false (PE's default): buffer writes per client in a
    /// 2 MiB BufferedMutator.
    #[arg(long, alias = "autoFlush", value_name = "BOOL", num_args = 0..=1, default_value_t = false, default_missing_value = "true", action = ArgAction::Set)]
    pub auto_flush: bool,
    /// Gets per batch for randomRead (0 or 1: single gets) and multiGet (default 10).
    #[arg(
        long,
        alias = "multiGet",
        value_name = "N",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    pub multi_get: u32,
    /// The table [default: TestTable, or usertable for YCSB commands].
    #[arg(long, value_name = "NAME")]
    pub table: Option<String>,
    /// Seed of every random choice; the report prints it so a run can be repeated
    /// [default: from the clock].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// Print the report as JSON on standard output.
    #[arg(long)]
    pub json: bool,
    /// What to run (see the list below).
    #[arg(value_name = "COMMAND", value_parser = parse_command)]
    pub command: Command,
}

/// Checked options of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeOptions {
    pub command: Command,
    pub table: TableName,
    pub rows_per_client: u64,
    pub clients: u32,
    pub value_size_bytes: usize,
    pub presplit_regions: u32,
    pub families: u32,
    pub columns: u32,
    pub compression: Compression,
    pub bloom: BloomType,
    pub block_encoding: DataBlockEncoding,
    pub in_memory: bool,
    pub durability: Durability,
    pub auto_flush: bool,
    /// Gets per batch (1: single gets).
    pub multi_get: u32,
    pub seed: u64,
    pub json: bool,
}

impl PeOptions {
    /// Rows of the whole table: each client owns `rows_per_client` of them.
    pub fn total_rows(&self) -> u64 {
        self.rows_per_client * u64::from(self.clients)
    }
}

fn bad(option: &'static str, message: String) -> PeError {
    PeError::Option { option, message }
}

fn check_range(option: &'static str, value: u64, min: u64, max: u64) -> Result<()> {
    if value < min || value > max {
        return Err(bad(
            option,
            format!("{value} is out of range: expected {min} to {max}"),
        ));
    }
    Ok(())
}

impl PeArgs {
    /// Checks every value and their combinations; the error names the option at fault.
    pub fn validate(self) -> Result<PeOptions> {
        check_range("--rows", self.rows, 1, TOTAL_ROWS_MAX)?;
        check_range("--clients", self.clients.into(), 1, CLIENTS_MAX.into())?;
        let total = self.rows * u64::from(self.clients);
        if total > TOTAL_ROWS_MAX {
            return Err(bad(
                "--rows",
                format!(
                    "{} rows x {} clients = {total} rows; the limit is {TOTAL_ROWS_MAX}",
                    self.rows, self.clients
                ),
            ));
        }
        check_range(
            "--value-size",
            self.value_size as u64,
            1,
            VALUE_SIZE_MAX_BYTES as u64,
        )?;
        check_range("--families", self.families.into(), 1, FAMILIES_MAX.into())?;
        check_range("--columns", self.columns.into(), 1, COLUMNS_MAX.into())?;
        let row_bytes = self.value_size as u64 * u64::from(self.columns) * u64::from(self.families);
        if row_bytes > ROW_MAX_BYTES {
            return Err(bad(
                "--value-size",
                format!(
                    "{} bytes x {} columns x {} families = {row_bytes} bytes per row; the limit is {ROW_MAX_BYTES}",
                    self.value_size, self.columns, self.families
                ),
            ));
        }
        check_range("--presplit", self.presplit.into(), 0, PRESPLIT_MAX.into())?;
        if u64::from(self.presplit) > total {
            return Err(bad(
                "--presplit",
                format!(
                    "{} regions for {total} rows: at most one region per row",
                    self.presplit
                ),
            ));
        }
        check_range(
            "--multi-get",
            self.multi_get.into(),
            0,
            MULTI_GET_MAX.into(),
        )?;
        let default_table = if self.command.is_ycsb() {
            YCSB_TABLE
        } else {
            PE_TABLE
        };
        let table_text = self.table.as_deref().unwrap_or(default_table);
        let table = TableName::parse(table_text)
            .map_err(|e| bad("--table", format!("'{table_text}': {e}")))?;
        let multi_get = match (self.command, self.multi_get) {
            (Command::MultiGet, 0) => DEFAULT_MULTI_GET,
            (_, 0) => 1,
            (_, n) => n,
        };
        Ok(PeOptions {
            command: self.command,
            table,
            rows_per_client: self.rows,
            clients: self.clients,
            value_size_bytes: self.value_size,
            presplit_regions: self.presplit,
            families: self.families,
            columns: self.columns,
            compression: self.compress,
            bloom: self.bloom,
            block_encoding: self.block_encoding,
            in_memory: self.in_memory,
            durability: self.durability,
            auto_flush: self.auto_flush,
            multi_get,
            seed: self.seed.unwrap_or_else(seed_from_clock),
            json: self.json,
        })
    }
}

/// A seed for runs that name none: the clock's nanoseconds.
fn seed_from_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> std::result::Result<PeArgs, String> {
        PeArgs::try_parse_from(std::iter::once("pe").chain(args.iter().copied()))
            .map_err(|e| e.to_string())
    }

    fn options(args: &[&str]) -> PeOptions {
        parse(args).expect("parses").validate().expect("valid")
    }

    fn rejected(args: &[&str]) -> String {
        match parse(args) {
            Err(message) => message,
            Ok(parsed) => parsed.validate().expect_err("invalid").to_string(),
        }
    }

    #[test]
    fn defaults_are_hbase_pes() {
        let o = options(&["randomRead", "--seed", "1"]);
        assert_eq!(o.command, Command::RandomRead);
        assert_eq!(o.table.to_string(), "TestTable");
        assert_eq!(o.rows_per_client, 1_048_576);
        assert_eq!(
            (o.clients, o.value_size_bytes, o.families, o.columns),
            (1, 1024, 1, 1)
        );
        assert_eq!(o.presplit_regions, 0);
        assert_eq!(
            (o.compression, o.bloom, o.block_encoding),
            (Compression::None, BloomType::Row, DataBlockEncoding::None)
        );
        assert!(!o.in_memory && !o.auto_flush && !o.json);
        assert_eq!(o.durability, Durability::UseDefault);
        assert_eq!(o.multi_get, 1);
        assert_eq!(o.seed, 1);
        assert_eq!(options(&["ycsbA"]).table.to_string(), "usertable");
        assert_eq!(options(&["multiGet"]).multi_get, DEFAULT_MULTI_GET);
    }

    #[test]
    fn every_option_is_parsed() {
        let o = options(&[
            "--rows",
            "500",
            "--clients",
            "2",
            "--value-size",
            "100",
            "--presplit",
            "4",
            "--families",
            "3",
            "--columns",
            "5",
            "--compress",
            "zstd",
            "--bloom",
            "ROWCOL",
            "--block-encoding",
            "PREFIX",
            "--in-memory",
            "--durability",
            "SKIP_WAL",
            "--auto-flush=true",
            "--multi-get",
            "7",
            "--table",
            "ns:bench",
            "--seed",
            "42",
            "--json",
            "scanRange100",
        ]);
        let expected = PeOptions {
            command: Command::ScanRange100,
            table: TableName::parse("ns:bench").expect("valid name"),
            rows_per_client: 500,
            clients: 2,
            value_size_bytes: 100,
            presplit_regions: 4,
            families: 3,
            columns: 5,
            compression: Compression::Zstd,
            bloom: BloomType::RowCol,
            block_encoding: DataBlockEncoding::Prefix,
            in_memory: true,
            durability: Durability::SkipWal,
            auto_flush: true,
            multi_get: 7,
            seed: 42,
            json: true,
        };
        assert_eq!(o, expected);
        assert_eq!(o.total_rows(), 1000);
    }

    #[test]
    fn hbase_spellings_and_boolean_values_are_accepted() {
        let o = options(&[
            "--valueSize=10",
            "--autoFlush",
            "--multiGet=3",
            "--bloomFilter=NONE",
            "--blockEncoding=NONE",
            "--inmemory=false",
            "randomRead",
        ]);
        assert_eq!(
            (o.value_size_bytes, o.auto_flush, o.multi_get, o.in_memory),
            (10, true, 3, false)
        );
        assert_eq!(o.bloom, BloomType::None);
        assert!(!options(&["--auto-flush=false", "sequentialWrite"]).auto_flush);
    }

    #[test]
    fn bad_values_name_their_option() {
        let cases: &[(&[&str], &str)] = &[
            (&["--rows", "0", "scan"], "--rows"),
            (&["--rows", "-5", "scan"], "--rows"),
            (&["--rows", "lots", "scan"], "--rows"),
            (
                &["--rows", "2000000000", "--clients", "2", "scan"],
                "--rows",
            ),
            (&["--clients", "0", "scan"], "--clients"),
            (&["--clients", "100000", "scan"], "--clients"),
            (&["--value-size", "0", "scan"], "--value-size"),
            (&["--value-size", "9000000", "scan"], "--value-size"),
            (
                &["--value-size", "1000000", "--columns", "100", "scan"],
                "--value-size",
            ),
            (&["--families", "0", "scan"], "--families"),
            (&["--columns", "5000", "scan"], "--columns"),
            (&["--presplit", "5000", "scan"], "--presplit"),
            (&["--rows", "3", "--presplit", "4", "scan"], "--presplit"),
            (&["--compress", "LZMA", "scan"], "--compress"),
            (&["--bloom", "MAYBE", "scan"], "--bloom"),
            (
                &["--block-encoding", "PREFIX_TREE", "scan"],
                "--block-encoding",
            ),
            (&["--durability", "ALWAYS", "scan"], "--durability"),
            (&["--auto-flush=sometimes", "scan"], "--auto-flush"),
            (&["--multi-get", "20000", "multiGet"], "--multi-get"),
            (&["--table", "bad table!", "scan"], "--table"),
            (&["--seed", "x", "scan"], "--seed"),
            (&["--no-such-option", "scan"], "--no-such-option"),
        ];
        for (args, option) in cases {
            let message = rejected(args);
            assert!(
                message.contains(option),
                "{args:?}: '{message}' does not name {option}"
            );
        }
        assert!(
            rejected(&["--compress", "LZMA", "scan"]).contains("ZSTD"),
            "lists the choices"
        );
    }

    #[test]
    fn unknown_or_missing_commands_are_refused_with_the_list() {
        let message = rejected(&["randomWalk"]);
        assert!(
            message.contains("unknown command 'randomWalk'"),
            "{message}"
        );
        for c in Command::ALL {
            assert!(message.contains(c.name()), "{message} lacks {c}");
        }
        assert!(rejected(&["--rows", "5"]).contains("<COMMAND>"));
    }

    #[test]
    fn help_documents_every_option_and_command() {
        use clap::CommandFactory;
        let help = PeArgs::command().render_long_help().to_string();
        for option in [
            "--rows",
            "--clients",
            "--value-size",
            "--presplit",
            "--families",
            "--columns",
            "--compress",
            "--bloom",
            "--block-encoding",
            "--in-memory",
            "--durability",
            "--auto-flush",
            "--multi-get",
            "--table",
            "--seed",
            "--json",
        ] {
            assert!(help.contains(option), "help lacks {option}");
        }
        for c in Command::ALL {
            assert!(help.contains(c.name()), "help lacks {c}");
        }
    }
}
