//! `create 't', 'f1' [, 'f2', ...]`, `create 't', {NAME => 'f', VERSIONS => 3, ...} [, ...]`
//! with table options in a hash without `NAME`: `SPLITS => ['a', 'b']`,
//! `SPLITS_FILE => 'splits.txt'`, `NUMREGIONS => 16, SPLITALGO => 'HexStringSplit'`,
//! `MAX_FILESIZE`, `READONLY`, `DURABILITY`, `METADATA`, ... (see [`super::schema`]).
//!
//! 2.x prints `Created table t`; both styles echo `=> Hbase::Table - t`.

use super::schema;
use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::{Outcome, Style};
use crate::parse::Value;
use basalt_api::PreSplit;
use basalt_types::{FamilyDescriptor, SplitAlgorithm, TableDescriptor};
use bytes::Bytes;

pub static COMMAND: Command = Command {
    name: "create",
    group: Group::Ddl,
    help: HELP,
    run,
};

const HELP: &str = "Creates a table. Pass a table name, and a set of column family
specifications (at least one), and, optionally, table configuration.
Column specification can be a simple string (name), or a dictionary
(dictionaries are described below in main help output), necessarily
including NAME attribute.
Examples:

Create a table with namespace=ns1 and table qualifier=t1
  hbase> create 'ns1:t1', {NAME => 'f1', VERSIONS => 5}

Create a table with namespace=default and table qualifier=t1
  hbase> create 't1', {NAME => 'f1'}, {NAME => 'f2'}, {NAME => 'f3'}
  hbase> # The above in shorthand would be the following:
  hbase> create 't1', 'f1', 'f2', 'f3'
  hbase> create 't1', {NAME => 'f1', VERSIONS => 1, TTL => 2592000, BLOCKCACHE => true}
  hbase> create 't1', {NAME => 'f1', CONFIGURATION => {'hbase.hstore.blockingStoreFiles' => '10'}}

Table configuration options can be put at the end.
Examples:

  hbase> create 'ns1:t1', 'f1', SPLITS => ['10', '20', '30', '40']
  hbase> create 't1', 'f1', SPLITS => ['10', '20', '30', '40']
  hbase> create 't1', 'f1', SPLITS_FILE => 'splits.txt', OWNER => 'johndoe'
  hbase> create 't1', {NAME => 'f1', VERSIONS => 5}, METADATA => { 'mykey' => 'myvalue' }
  hbase> # Optionally pre-split the table into NUMREGIONS, using
  hbase> # SPLITALGO (\"HexStringSplit\", \"UniformSplit\" or classname)
  hbase> create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit'}
  hbase> create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit', REGION_REPLICATION => 2, CONFIGURATION => {'hbase.hregion.scan.loadColumnFamiliesOnDemand' => 'true'}}
";

/// Keys of a table-options hash that are about splitting, handled here.
const SPLIT_KEYS: [&str; 4] = ["SPLITS", "SPLITS_FILE", "NUMREGIONS", "SPLITALGO"];

/// Keys accepted and ignored (meaningless for one process).
const IGNORED_KEYS: [&str; 4] = [
    "OWNER",
    "REGION_REPLICATION",
    "PRIORITY",
    "NORMALIZATION_ENABLED",
];

fn pre_split(pairs: &[(Value, Value)]) -> Result<PreSplit, CmdError> {
    if let Some(v) = args::get(pairs, "SPLITS") {
        let keys = args::list(v)
            .iter()
            .map(|k| args::bytes(k, "SPLITS"))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(PreSplit::Keys(keys));
    }
    if let Some(v) = args::get(pairs, "SPLITS_FILE") {
        let path = args::text(v, "SPLITS_FILE")?;
        let text = std::fs::read_to_string(&path)
            .map_err(|e| CmdError::new(format!("Splits file {path} could not be read: {e}")))?;
        let keys = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| Bytes::from(l.to_string()))
            .collect();
        return Ok(PreSplit::Keys(keys));
    }
    match (
        args::get(pairs, "NUMREGIONS"),
        args::get(pairs, "SPLITALGO"),
    ) {
        (None, None) => Ok(PreSplit::None),
        (Some(n), Some(algo)) => {
            let regions = u32::try_from(args::int(n, "NUMREGIONS")?)
                .map_err(|_| CmdError::new("NUMREGIONS must be positive"))?;
            let algorithm = SplitAlgorithm::parse(&args::text(algo, "SPLITALGO")?)
                .map_err(|e| CmdError::new(e.to_string()))?;
            Ok(PreSplit::Count { regions, algorithm })
        }
        _ => Err(CmdError::new(
            "Number of regions must be specified together with the split algorithm",
        )),
    }
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, usize::MAX)?;
    let name = args::table_name(&a[0])?;
    let mut table = TableDescriptor::new(name.clone(), Vec::new());
    let mut split = PreSplit::None;
    let mut out = Outcome::new();
    for arg in &a[1..] {
        match args::hash(arg) {
            Some(pairs) if args::get(pairs, "NAME").is_some() => {
                let (family, notices) = schema::family_from_hash(pairs, None)?;
                out.lines.extend(notices);
                table.families.push(family);
            }
            Some(pairs) => {
                if let PreSplit::None = split {
                    split = pre_split(pairs)?;
                }
                for (k, v) in pairs {
                    let key = args::text(k, "option")?;
                    if SPLIT_KEYS.contains(&key.as_str()) || IGNORED_KEYS.contains(&key.as_str()) {
                        continue;
                    }
                    if !schema::apply_table_option(&mut table, &key, v)? {
                        out.lines.push(format!(
                            "An argument ignored (unknown or overridden): {key}"
                        ));
                    }
                }
            }
            None => {
                let family = FamilyDescriptor::new(args::bytes(arg, "column family")?)
                    .map_err(|e| CmdError::new(e.to_string()))?;
                table.families.push(family);
            }
        }
    }
    if table.families.is_empty() {
        return Err(CmdError::new("Table must have at least one column family"));
    }
    ctx.admin().create_table(&table, &split)?;
    if ctx.style == Style::Hbase2 {
        out.lines.push(format!("Created table {name}"));
    }
    Ok(out.value(Value::Table(name.to_string())))
}
