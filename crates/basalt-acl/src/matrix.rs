//! HBase's Access Control Matrix as data: for each operation Basalt has, the scopes and
//! permissions any one of which allows it (a superuser is always allowed).
//!
//! Read a row as HBase's reference guide (appendix "Access Control Matrix") writes it:
//! `createTable: superuser|global(C)|NS(C)` is `[(Global, "C"), (Namespace, "C")]`. `A/C`
//! is two alternatives; `RW` is one alternative needing both. A scope counts only when the
//! object has it: a family alternative for an operation on a whole table never applies.
//! Permissions at a wider scope dominate: `global(R)` allows reading every table.
//!
//! | operation        | allowed by                                              |
//! |------------------|---------------------------------------------------------|
//! | `get`, `scan`    | R at global, NS, table, CF or CQ (CF/CQ grants filter)  |
//! | `put`, `delete`  | W likewise, for every column written                    |
//! | `checkAndPut`    | R and W                                                 |
//! | `createTable`    | C at global or NS                                       |
//! | `deleteTable`    | A or C at global, NS or table                           |
//! | `balance`        | A at global                                             |
//!
//! `tests/golden/matrix.txt` prints every row; [`Everyone`] rows need no grant at all
//! (`hbase:meta` is readable by everyone, and so are the calls that only read it).

use basalt_api::{Actions, Permission};

/// A scope level of the data model, widest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Global,
    Namespace,
    Table,
    Family,
    Qualifier,
}

impl Level {
    /// The matrix's abbreviation.
    pub fn abbrev(self) -> &'static str {
        match self {
            Level::Global => "global",
            Level::Namespace => "NS",
            Level::Table => "table",
            Level::Family => "CF",
            Level::Qualifier => "CQ",
        }
    }
}

/// Who may run an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Superusers, and anyone holding the permissions at one of these scopes.
    AnyOf(&'static [(Level, &'static str)]),
    /// Every user (calls that read only the catalog, which HBase lets everyone read).
    Everyone,
    /// Every user, each seeing only what it holds some permission on (listings).
    EveryoneFiltered,
}

pub use Rule::Everyone;

const R_ANY: &[(Level, &str)] = &[
    (Level::Global, "R"),
    (Level::Namespace, "R"),
    (Level::Table, "R"),
    (Level::Family, "R"),
    (Level::Qualifier, "R"),
];
const W_ANY: &[(Level, &str)] = &[
    (Level::Global, "W"),
    (Level::Namespace, "W"),
    (Level::Table, "W"),
    (Level::Family, "W"),
    (Level::Qualifier, "W"),
];
const RW_ANY: &[(Level, &str)] = &[
    (Level::Global, "RW"),
    (Level::Namespace, "RW"),
    (Level::Table, "RW"),
    (Level::Family, "RW"),
    (Level::Qualifier, "RW"),
];
const GLOBAL_A: &[(Level, &str)] = &[(Level::Global, "A")];
const GLOBAL_AC: &[(Level, &str)] = &[(Level::Global, "A"), (Level::Global, "C")];
const NS_A: &[(Level, &str)] = &[(Level::Global, "A"), (Level::Namespace, "A")];
const TABLE_A: &[(Level, &str)] = &[
    (Level::Global, "A"),
    (Level::Namespace, "A"),
    (Level::Table, "A"),
];
const TABLE_AC: &[(Level, &str)] = &[
    (Level::Global, "A"),
    (Level::Global, "C"),
    (Level::Namespace, "A"),
    (Level::Namespace, "C"),
    (Level::Table, "A"),
    (Level::Table, "C"),
];
const FAMILY_AC: &[(Level, &str)] = &[
    (Level::Global, "A"),
    (Level::Global, "C"),
    (Level::Namespace, "A"),
    (Level::Namespace, "C"),
    (Level::Table, "A"),
    (Level::Table, "C"),
    (Level::Family, "A"),
    (Level::Family, "C"),
];
const GRANT_A: &[(Level, &str)] = &[
    (Level::Global, "A"),
    (Level::Namespace, "A"),
    (Level::Table, "A"),
    (Level::Family, "A"),
    (Level::Qualifier, "A"),
];
const CREATE_C: &[(Level, &str)] = &[(Level::Global, "C"), (Level::Namespace, "C")];

macro_rules! ops {
    ($($op:ident $name:literal $rule:expr;)*) => {
        /// Every operation Basalt checks: each method of `Table` and `Admin`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Op { $($op,)* }

        impl Op {
            pub const ALL: &'static [Op] = &[$(Op::$op,)*];

            /// HBase's name for it (the `AccessController` hook or shell command).
            pub fn name(self) -> &'static str {
                match self { $(Op::$op => $name,)* }
            }

            /// Its row of the matrix.
            pub fn rule(self) -> Rule {
                match self { $(Op::$op => $rule,)* }
            }
        }
    };
}

ops! {
    Get "get" Rule::AnyOf(R_ANY);
    Exists "exists" Rule::AnyOf(R_ANY);
    Scan "scan" Rule::AnyOf(R_ANY);
    Put "put" Rule::AnyOf(W_ANY);
    Delete "delete" Rule::AnyOf(W_ANY);
    Increment "increment" Rule::AnyOf(W_ANY);
    Append "append" Rule::AnyOf(W_ANY);
    MutateRow "mutateRow" Rule::AnyOf(W_ANY);
    CheckAndMutate "checkAndMutate" Rule::AnyOf(RW_ANY);
    CreateNamespace "createNamespace" Rule::AnyOf(GLOBAL_A);
    DeleteNamespace "deleteNamespace" Rule::AnyOf(GLOBAL_A);
    ModifyNamespace "modifyNamespace" Rule::AnyOf(GLOBAL_A);
    DescribeNamespace "getNamespaceDescriptor" Rule::AnyOf(NS_A);
    ListNamespaces "listNamespaceDescriptors" Rule::EveryoneFiltered;
    CreateTable "createTable" Rule::AnyOf(CREATE_C);
    DeleteTable "deleteTable" Rule::AnyOf(TABLE_AC);
    TruncateTable "truncateTable" Rule::AnyOf(TABLE_AC);
    ModifyTable "modifyTable" Rule::AnyOf(TABLE_AC);
    EnableTable "enableTable" Rule::AnyOf(TABLE_AC);
    DisableTable "disableTable" Rule::AnyOf(TABLE_AC);
    DescribeTable "getTableDescriptors" Rule::AnyOf(TABLE_AC);
    TableExists "tableExists" Rule::Everyone;
    IsTableEnabled "isTableEnabled" Rule::Everyone;
    ListTables "getTableNames" Rule::EveryoneFiltered;
    AddFamily "addColumn" Rule::AnyOf(FAMILY_AC);
    ModifyFamily "modifyColumn" Rule::AnyOf(FAMILY_AC);
    DeleteFamily "deleteColumn" Rule::AnyOf(FAMILY_AC);
    ListRegions "listRegions" Rule::Everyone;
    LocateRegion "locateRegion" Rule::Everyone;
    Flush "flushTable" Rule::AnyOf(TABLE_AC);
    Compact "compact" Rule::AnyOf(TABLE_AC);
    FlushRegion "flushRegion" Rule::AnyOf(GLOBAL_AC);
    CompactRegion "compactRegion" Rule::AnyOf(GLOBAL_AC);
    Split "split" Rule::AnyOf(TABLE_A);
    MergeRegions "mergeRegions" Rule::AnyOf(GLOBAL_A);
    CatalogJanitor "runCatalogJanitor" Rule::AnyOf(GLOBAL_A);
    ClusterHealth "hbck" Rule::AnyOf(GLOBAL_A);
    MoveRegion "move" Rule::AnyOf(GLOBAL_A);
    Balance "balance" Rule::AnyOf(GLOBAL_A);
    Assign "assign" Rule::AnyOf(GLOBAL_A);
    Unassign "unassign" Rule::AnyOf(GLOBAL_A);
    BalanceSwitch "balanceSwitch" Rule::AnyOf(GLOBAL_A);
    BalancerEnabled "isBalancerEnabled" Rule::Everyone;
    ClusterStatus "getClusterMetrics" Rule::Everyone;
    Decommission "decommissionRegionServers" Rule::AnyOf(GLOBAL_A);
    ListDecommissioned "listDecommissionedRegionServers" Rule::AnyOf(GLOBAL_A);
    Recommission "recommissionRegionServer" Rule::AnyOf(GLOBAL_A);
    ClearDeadServers "clearDeadServers" Rule::AnyOf(GLOBAL_A);
    SlowLog "getSlowLogResponses" Rule::AnyOf(GLOBAL_A);
    ClearSlowLog "clearSlowLogResponses" Rule::AnyOf(GLOBAL_A);
    Snapshot "snapshot" Rule::AnyOf(TABLE_A);
    ListSnapshots "listSnapshots" Rule::AnyOf(GLOBAL_A);
    DeleteSnapshot "deleteSnapshot" Rule::AnyOf(GLOBAL_A);
    CloneSnapshot "cloneSnapshot" Rule::AnyOf(GLOBAL_A);
    RestoreSnapshot "restoreSnapshot" Rule::AnyOf(GLOBAL_A);
    Grant "grant" Rule::AnyOf(GRANT_A);
    Revoke "revoke" Rule::AnyOf(GRANT_A);
    GetUserPermissions "getUserPermissions" Rule::AnyOf(GRANT_A);
}

/// The alternatives of a rule with their letters read (the letters are checked by a
/// test over every row, so reading them here cannot fail).
pub fn alternatives(rule: Rule) -> Vec<(Level, Actions)> {
    match rule {
        Rule::AnyOf(list) => list
            .iter()
            .map(|(l, letters)| (*l, Actions::parse(letters).unwrap_or(Actions::ALL)))
            .collect(),
        Rule::Everyone | Rule::EveryoneFiltered => Vec::new(),
    }
}

/// The action a denial names: the first letter of the rule's first alternative.
pub fn named_action(rule: Rule) -> Permission {
    alternatives(rule)
        .first()
        .and_then(|(_, a)| a.iter().next())
        .unwrap_or(Permission::Admin)
}

/// One row as the reference guide writes it: `superuser|global(C)|NS(C)`.
pub fn render(op: Op) -> String {
    match op.rule() {
        Rule::Everyone => "everyone".to_string(),
        Rule::EveryoneFiltered => {
            "everyone (filtered to what the user holds a permission on)".to_string()
        }
        Rule::AnyOf(list) => std::iter::once("superuser".to_string())
            .chain(list.iter().map(|(l, a)| format!("{}({a})", l.abbrev())))
            .collect::<Vec<_>>()
            .join("|"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_reads_as_valid_permissions_and_names_are_unique() {
        let mut names = std::collections::BTreeSet::new();
        for op in Op::ALL {
            assert!(names.insert(op.name()), "{} twice", op.name());
            if let Rule::AnyOf(list) = op.rule() {
                assert!(!list.is_empty(), "{op:?}");
                for (_, letters) in list {
                    assert!(
                        Actions::parse(letters).is_ok_and(|a| !a.is_empty()),
                        "{op:?}"
                    );
                }
            }
        }
    }
}
