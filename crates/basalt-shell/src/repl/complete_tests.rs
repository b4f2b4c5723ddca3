//! Golden cases of [`super::complete`]: a line, the cursor, and what Tab offers.

use super::complete::{complete, target, Completion, TableCache, Target};

fn tables() -> Vec<String> {
    ["users", "users_v2", "events", "ns1:orders"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Completes with the cursor at the end of `line`.
fn at_end(line: &str) -> Completion {
    complete(line, line.len(), tables)
}

fn list(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_word_at_a_statement_start_completes_to_command_names() {
    assert_eq!(
        at_end("disable_a"),
        Completion {
            start: 0,
            candidates: list(&["disable_all"])
        }
    );
    assert_eq!(
        at_end("list_namespace").candidates,
        list(&["list_namespace", "list_namespace_tables"])
    );
    assert_eq!(at_end("ex").candidates, list(&["exists", "exit"]));
    assert_eq!(at_end("  who"), complete("  who", 5, tables));
    assert_eq!(at_end("  who").start, 2);
}

#[test]
fn statement_starts_inside_scripts_complete_too() {
    for line in [
        "create 't', 'f'; desc",
        "list.each { |t| desc",
        "list.each do |t| desc",
        "x = desc",
        "if true then desc",
        "(desc",
    ] {
        let done = at_end(line);
        assert_eq!(done.start, line.len() - 4, "{line}");
        assert_eq!(
            done.candidates,
            list(&["desc", "describe", "describe_namespace"]),
            "{line}"
        );
    }
}

#[test]
fn methods_constants_numbers_and_arguments_complete_to_nothing() {
    for line in [
        "t.sca",
        "Bytes.toB",
        "Byt",
        "3.tim",
        "put 't', sca",
        "scan 't', {FIL",
    ] {
        assert_eq!(at_end(line).candidates, Vec::<String>::new(), "{line}");
    }
}

#[test]
fn a_commands_first_quoted_argument_completes_to_table_names_closed_with_its_quote() {
    assert_eq!(
        at_end("scan 'us"),
        Completion {
            start: 6,
            candidates: list(&["users'", "users_v2'"])
        }
    );
    assert_eq!(at_end("describe(\"ev").candidates, list(&["events\""]));
    assert_eq!(
        at_end("t = get_table 'ns1:").candidates,
        list(&["ns1:orders'"])
    );
    assert_eq!(at_end("count '").candidates.len(), 4);
    // Already closed: the name alone.
    assert_eq!(
        complete("drop 'eve'", 9, tables).candidates,
        list(&["events"])
    );
}

#[test]
fn other_strings_and_namespace_commands_get_no_table_names() {
    let asked = std::cell::Cell::new(false);
    for line in [
        "put 't', 'us",
        "puts 'us",
        "list_namespace_tables 'ns",
        "drop_namespace 'ns",
    ] {
        let done = complete(line, line.len(), || {
            asked.set(true);
            tables()
        });
        assert_eq!(done.candidates, Vec::<String>::new(), "{line}");
    }
    assert!(
        !asked.get(),
        "table names are fetched only for a table name"
    );
}

#[test]
fn the_target_names_the_word_and_where_it_starts() {
    assert_eq!(
        target("scan 'us', {}", 8),
        Some(Target::Table {
            start: 6,
            prefix: "us".to_string(),
            quote: '\''
        })
    );
    assert_eq!(
        target("flu", 3),
        Some(Target::Command {
            start: 0,
            prefix: "flu".to_string()
        })
    );
    // A cursor inside a multi-byte character is not a place to complete.
    assert_eq!(target("é", 1), None);
}

#[test]
fn table_names_are_fetched_once_and_again_after_ddl() {
    let mut cache = TableCache::default();
    let fetches = std::cell::Cell::new(0);
    let fetch = |names: &[&str]| {
        fetches.set(fetches.get() + 1);
        Ok::<_, ()>(list(names))
    };
    assert_eq!(cache.names(0, || fetch(&["a"])), list(&["a"]));
    assert_eq!(cache.names(0, || fetch(&["b"])), list(&["a"]), "cached");
    assert_eq!(fetches.get(), 1);
    assert_eq!(
        cache.names(1, || fetch(&["a", "b"])),
        list(&["a", "b"]),
        "DDL ran"
    );
    assert_eq!(fetches.get(), 2);
}

#[test]
fn a_failed_fetch_offers_nothing_and_is_retried() {
    let mut cache = TableCache::default();
    assert_eq!(cache.names(0, || Err("down")), Vec::<String>::new());
    assert_eq!(cache.names(0, || Ok::<_, &str>(list(&["a"]))), list(&["a"]));
}
