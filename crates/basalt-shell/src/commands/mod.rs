//! Every command, one file each: the syntax in the file's doc comment, then parsing,
//! running and rendering together, and the help text.
//!
//! Shared pieces: [`schema`] (family and table options of `create` / `alter`) and
//! [`read`] (the options of `get` / `scan` and the cell tables they print), [`convert`]
//! (value converters such as `'f:q:toInt'`), [`hotspots`] (the hot spots `status
//! 'detailed'` prints), [`security`] (the scope words `grant`, `revoke` and
//! `user_permission` share), [`snapshots`] (the snapshot commands' table and confirmation).

use crate::command::Command;

pub mod convert;
pub mod hotspots;
pub mod read;
pub mod schema;
pub mod unsupported;

pub mod help;
pub mod status;
pub mod table_help;
pub mod version;
pub mod whoami;

pub mod grant;
pub mod list_security_capabilities;
pub mod revoke;
pub mod security;
pub mod user_permission;

pub mod alter;
pub mod alter_async;
pub mod alter_status;
pub mod clone_table_schema;
pub mod create;
pub mod describe;
pub mod disable;
pub mod disable_all;
pub mod drop;
pub mod drop_all;
pub mod enable;
pub mod enable_all;
pub mod exists;
pub mod get_slowlog_responses;
pub mod get_splits;
pub mod get_table;
pub mod is_disabled;
pub mod is_enabled;
pub mod list;
pub mod list_disabled_tables;
pub mod list_enabled_tables;
pub mod list_regions;
pub mod locate_region;
pub mod show_filters;
pub mod truncate;
pub mod truncate_preserve;

pub mod alter_namespace;
pub mod create_namespace;
pub mod describe_namespace;
pub mod drop_namespace;
pub mod list_namespace;
pub mod list_namespace_tables;

pub mod append;
pub mod count;
pub mod delete;
pub mod deleteall;
pub mod get;
pub mod get_counter;
pub mod incr;
pub mod put;
pub mod scan;

pub mod assign;
pub mod balance_switch;
pub mod balancer;
pub mod balancer_enabled;
pub mod catalogjanitor_run;
pub mod clear_deadservers;
pub mod clear_slowlog_responses;
pub mod close_region;
pub mod compact;
pub mod compact_rs;
pub mod compaction_state;
pub mod decommission_regionservers;
pub mod flush;
pub mod list_deadservers;
pub mod list_decommissioned_regionservers;
pub mod list_liveservers;
pub mod major_compact;
pub mod merge_region;
pub mod move_region;
pub mod recommission_regionserver;
pub mod split;
pub mod unassign;

pub mod clone_snapshot;
pub mod delete_all_snapshot;
pub mod delete_snapshot;
pub mod delete_table_snapshots;
pub mod list_snapshots;
pub mod list_table_snapshots;
pub mod restore_snapshot;
pub mod snapshot;
pub mod snapshots;

/// Every command, grouped as `help` lists them.
pub static ALL: &[&Command] = &[
    &status::COMMAND,
    &version::COMMAND,
    &whoami::COMMAND,
    &table_help::COMMAND,
    &help::COMMAND,
    &create::COMMAND,
    &alter::COMMAND,
    &alter_async::COMMAND,
    &alter_status::COMMAND,
    &clone_table_schema::COMMAND,
    &describe::COMMAND,
    &describe::DESC,
    &disable::COMMAND,
    &enable::COMMAND,
    &drop::COMMAND,
    &exists::COMMAND,
    &list::COMMAND,
    &list_enabled_tables::COMMAND,
    &list_disabled_tables::COMMAND,
    &is_enabled::COMMAND,
    &is_disabled::COMMAND,
    &truncate::COMMAND,
    &truncate_preserve::COMMAND,
    &list_regions::COMMAND,
    &locate_region::COMMAND,
    &get_splits::COMMAND,
    &disable_all::COMMAND,
    &enable_all::COMMAND,
    &drop_all::COMMAND,
    &get_table::COMMAND,
    &show_filters::COMMAND,
    &create_namespace::COMMAND,
    &drop_namespace::COMMAND,
    &alter_namespace::COMMAND,
    &describe_namespace::COMMAND,
    &list_namespace::COMMAND,
    &list_namespace_tables::COMMAND,
    &put::COMMAND,
    &get::COMMAND,
    &scan::COMMAND,
    &delete::COMMAND,
    &deleteall::COMMAND,
    &incr::COMMAND,
    &get_counter::COMMAND,
    &append::COMMAND,
    &count::COMMAND,
    &flush::COMMAND,
    &compact::COMMAND,
    &major_compact::COMMAND,
    &split::COMMAND,
    &merge_region::COMMAND,
    &catalogjanitor_run::COMMAND,
    &assign::COMMAND,
    &balancer::COMMAND,
    &balance_switch::COMMAND,
    &balancer_enabled::COMMAND,
    &close_region::COMMAND,
    &move_region::COMMAND,
    &unassign::COMMAND,
    &compact_rs::COMMAND,
    &compaction_state::COMMAND,
    &list_deadservers::COMMAND,
    &list_liveservers::COMMAND,
    &clear_deadservers::COMMAND,
    &clear_slowlog_responses::COMMAND,
    &get_slowlog_responses::COMMAND,
    &decommission_regionservers::COMMAND,
    &list_decommissioned_regionservers::COMMAND,
    &recommission_regionserver::COMMAND,
    &snapshot::COMMAND,
    &clone_snapshot::COMMAND,
    &restore_snapshot::COMMAND,
    &delete_snapshot::COMMAND,
    &delete_all_snapshot::COMMAND,
    &delete_table_snapshots::COMMAND,
    &list_snapshots::COMMAND,
    &list_table_snapshots::COMMAND,
    &grant::COMMAND,
    &revoke::COMMAND,
    &user_permission::COMMAND,
    &list_security_capabilities::COMMAND,
];

/// The command called `name`.
pub fn find(name: &str) -> Option<&'static Command> {
    ALL.iter().copied().find(|c| c.name == name)
}
