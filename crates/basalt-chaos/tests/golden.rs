//! Small histories with a known answer: linearizable ones pass, each classic anomaly is
//! caught and explained.

use basalt_chaos::{
    check_history, check_key, CheckOptions, OpKind, Operation, Outcome, Ret, Verdict, Violation,
};

fn v(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

fn long(n: i64) -> Vec<u8> {
    n.to_be_bytes().to_vec()
}

fn op(client: u32, span: (u64, u64), kind: OpKind, ret: Ret) -> Operation {
    Operation::new(client, "k", kind, span.0, span.1, Outcome::Ok(ret))
}

fn put(client: u32, span: (u64, u64), value: &str) -> Operation {
    op(client, span, OpKind::Put(v(value)), Ret::Done)
}

fn get(client: u32, span: (u64, u64), value: Option<&str>) -> Operation {
    op(client, span, OpKind::Get, Ret::Read(value.map(v)))
}

fn get_long(client: u32, span: (u64, u64), n: i64) -> Operation {
    op(client, span, OpKind::Get, Ret::Read(Some(long(n))))
}

fn inc(client: u32, span: (u64, u64), delta: i64, now: i64) -> Operation {
    op(
        client,
        span,
        OpKind::Increment(delta),
        Ret::Incremented(now),
    )
}

fn cas(client: u32, span: (u64, u64), expected: Option<&str>, new: &str, ok: bool) -> Operation {
    let kind = OpKind::CheckAndPut {
        expected: expected.map(v),
        new: v(new),
    };
    op(client, span, kind, Ret::Applied(ok))
}

fn unknown(mut op: Operation) -> Operation {
    op.outcome = Outcome::Unknown;
    op
}

fn failed(mut op: Operation) -> Operation {
    op.outcome = Outcome::Failed;
    op
}

fn verdict(history: &[Operation]) -> Verdict {
    check_key(b"k", history, &CheckOptions::default()).verdict
}

fn assert_linearizable(history: &[Operation]) {
    let verdict = verdict(history);
    assert_eq!(verdict, Verdict::Linearizable, "{history:#?}");
}

fn violation(history: &[Operation]) -> Violation {
    match verdict(history) {
        Verdict::Violation(v) => *v,
        other => panic!("expected a violation, got {other:?}"),
    }
}

#[test]
fn sequential_history_passes() {
    assert_linearizable(&[
        get(0, (0, 1), None),
        put(0, (2, 3), "a"),
        get(1, (4, 5), Some("a")),
        put(1, (6, 7), "b"),
        get(0, (8, 9), Some("b")),
        cas(0, (10, 11), Some("a"), "c", false),
        cas(1, (12, 13), Some("b"), "c", true),
        get(0, (14, 15), Some("c")),
        op(0, (16, 17), OpKind::Delete, Ret::Done),
        get(1, (18, 19), None),
        inc(1, (20, 21), 5, 5),
        inc(0, (22, 23), -2, 3),
        get_long(1, (24, 25), 3),
    ]);
}

#[test]
fn empty_history_passes() {
    assert_linearizable(&[]);
}

#[test]
fn overlapping_puts_may_land_in_either_order() {
    for last in ["a", "b"] {
        assert_linearizable(&[
            put(0, (0, 10), "a"),
            put(1, (5, 15), "b"),
            get(2, (20, 30), Some(last)),
            get(3, (31, 40), Some(last)),
        ]);
    }
}

#[test]
fn a_read_overlapping_a_put_sees_old_or_new() {
    for seen in [None, Some("a")] {
        assert_linearizable(&[put(0, (10, 20), "a"), get(1, (5, 25), seen)]);
    }
}

#[test]
fn equal_times_count_as_concurrent() {
    assert_linearizable(&[put(0, (0, 10), "a"), get(1, (10, 20), None)]);
}

#[test]
fn an_unknown_put_may_be_read_later() {
    assert_linearizable(&[
        put(0, (0, 10), "a"),
        unknown(put(1, (15, 20), "b")),
        get(2, (30, 40), Some("a")),
        // It took effect after its client gave up.
        get(2, (100, 110), Some("b")),
    ]);
}

#[test]
fn an_unknown_put_may_never_happen() {
    assert_linearizable(&[
        put(0, (0, 10), "a"),
        unknown(put(1, (15, 20), "b")),
        get(2, (100, 110), Some("a")),
        get(0, (120, 130), Some("a")),
    ]);
}

#[test]
fn an_unknown_increment_counts_once_or_not_at_all() {
    for last in [2, 3] {
        assert_linearizable(&[
            inc(0, (0, 10), 1, 1),
            unknown(inc(1, (11, 12), 1, 0)),
            inc(0, (20, 30), 1, last),
        ]);
    }
    let twice = [
        inc(0, (0, 10), 1, 1),
        unknown(inc(1, (11, 12), 1, 0)),
        inc(0, (20, 30), 1, 4),
    ];
    assert!(matches!(verdict(&twice), Verdict::Violation(_)));
}

#[test]
fn failed_operations_had_no_effect() {
    let history = [
        put(0, (0, 10), "a"),
        failed(put(1, (15, 20), "b")),
        get(2, (30, 40), Some("a")),
    ];
    assert_linearizable(&history);
    let read_failed = [
        put(0, (0, 10), "a"),
        failed(put(1, (15, 20), "b")),
        get(2, (30, 40), Some("b")),
    ];
    assert!(matches!(verdict(&read_failed), Verdict::Violation(_)));
}

#[test]
fn a_stale_read_is_caught_and_explained() {
    let history = [
        put(0, (0, 10), "a"),
        put(1, (20, 30), "b"),
        get(2, (40, 50), Some("a")),
    ];
    let found = violation(&history);
    assert_eq!(found.key, b"k");
    assert_eq!(found.culprit.as_ref(), Some(&history[2]));
    assert_eq!(found.prefix, history.to_vec());
    assert_eq!(found.linearized, history[..2].to_vec());
    assert_eq!(found.state, Some(v("b")));
    assert_eq!(found.pending, vec![history[2].clone()]);
    assert_eq!(found.writers, vec![history[0].clone()]);
    let line = found.to_string();
    assert_eq!(
        line,
        "key \"k\": not linearizable: client 2: get -> \"a\" [40, 50]; no order of the 3 \
         operations invoked before it completed explains it; longest valid order (2 ops): \
         client 0: put \"a\" -> ok [0, 10] client 1: put \"b\" -> ok [20, 30]; register then \
         holds \"b\"; none of these fits next (1 ops): client 2: get -> \"a\" [40, 50]; the \
         value read was written by: client 0: put \"a\" -> ok [0, 10]"
    );
    assert!(!line.contains('\n'));
    assert!(format!("{found:#}").lines().count() > 3);
}

#[test]
fn a_read_of_a_value_never_written_is_caught() {
    let history = [put(0, (0, 10), "a"), get(1, (5, 15), Some("z"))];
    let found = violation(&history);
    assert_eq!(found.culprit.as_ref(), Some(&history[1]));
}

#[test]
fn a_lost_increment_is_caught() {
    let history = [inc(0, (0, 10), 1, 1), inc(1, (20, 30), 1, 1)];
    let found = violation(&history);
    assert_eq!(found.culprit.as_ref(), Some(&history[1]));
    assert_eq!(found.state, Some(long(1)));
}

#[test]
fn concurrent_increments_may_not_both_answer_the_same() {
    let history = [inc(0, (0, 10), 1, 1), inc(1, (5, 15), 1, 1)];
    assert!(matches!(verdict(&history), Verdict::Violation(_)));
    assert_linearizable(&[inc(0, (0, 10), 1, 2), inc(1, (5, 15), 1, 1)]);
}

#[test]
fn a_double_applied_increment_is_caught() {
    let skipped = [inc(0, (0, 10), 1, 1), inc(1, (20, 30), 1, 3)];
    assert!(matches!(verdict(&skipped), Verdict::Violation(_)));
    let read_twice = [inc(0, (0, 10), 1, 1), get_long(1, (20, 30), 2)];
    let found = violation(&read_twice);
    assert_eq!(found.culprit.as_ref(), Some(&read_twice[1]));
}

#[test]
fn two_check_and_puts_on_the_same_expectation_cannot_both_apply() {
    let both = [
        put(0, (0, 5), "a"),
        cas(1, (10, 20), Some("a"), "b", true),
        cas(2, (12, 22), Some("a"), "c", true),
    ];
    assert!(matches!(verdict(&both), Verdict::Violation(_)));
    let one = [
        put(0, (0, 5), "a"),
        cas(1, (10, 20), Some("a"), "b", true),
        cas(2, (12, 22), Some("a"), "c", false),
        get(0, (30, 31), Some("b")),
    ];
    assert_linearizable(&one);
    let absent = [
        cas(1, (0, 10), None, "b", true),
        cas(2, (0, 10), None, "c", true),
    ];
    assert!(matches!(verdict(&absent), Verdict::Violation(_)));
}

#[test]
fn a_read_going_back_in_time_is_caught() {
    // Each read alone could be explained: the put of "b" overlaps both.
    let history = [
        put(0, (0, 10), "a"),
        put(1, (20, 100), "b"),
        get(2, (30, 40), Some("b")),
        get(3, (50, 60), Some("a")),
    ];
    let found = violation(&history);
    assert_eq!(found.culprit.as_ref(), Some(&history[3]));
    assert_eq!(found.prefix.len(), 4);
    assert_linearizable(&history[..3]);
    assert_linearizable(&[history[0].clone(), history[1].clone(), history[3].clone()]);
}

#[test]
fn the_smallest_failing_prefix_is_reported() {
    let mut history = vec![
        put(0, (0, 10), "a"),
        get(1, (20, 30), Some("a")),
        put(0, (40, 50), "b"),
        get(1, (60, 70), Some("a")), // stale
    ];
    for i in 0..50 {
        let t = 100 + i * 10;
        history.push(put(0, (t, t + 5), "c"));
        history.push(get(1, (t + 6, t + 9), Some("c")));
    }
    let found = violation(&history);
    assert_eq!(found.culprit.as_ref(), Some(&history[3]));
    assert_eq!(found.prefix, history[..4].to_vec());
    assert_eq!(found.linearized, history[..3].to_vec());
}

#[test]
fn malformed_operations_are_reported_not_searched() {
    let history = [put(0, (10, 5), "a"), op(1, (0, 1), OpKind::Get, Ret::Done)];
    let Verdict::Malformed(found) = verdict(&history) else {
        panic!("expected malformed")
    };
    assert_eq!(found.len(), 2);
    assert!(found[0]
        .to_string()
        .contains("completed before it was invoked"));
}

#[test]
fn a_spent_budget_is_undecided() {
    let mut history = Vec::new();
    for c in 0..6u32 {
        history.push(put(c, (0, 100), &c.to_string()));
    }
    history.push(get(7, (200, 210), Some("z")));
    let check = check_key(b"k", &history, &CheckOptions { max_steps: 10 });
    assert_eq!(check.verdict, Verdict::Undecided);
    assert_eq!(check.steps, 10);
    assert!(matches!(verdict(&history), Verdict::Violation(_)));
}

#[test]
fn a_history_report_has_a_line_per_finding() {
    let mut history = vec![
        put(0, (0, 10), "a"),
        put(1, (20, 30), "b"),
        get(2, (40, 50), Some("a")),
    ];
    let other = |key: &str, op: Operation| Operation { key: v(key), ..op };
    history.push(other("fine", put(0, (0, 1), "x")));
    history.push(other("fine", get(1, (2, 3), Some("x"))));
    history.push(other("bad\n", inc(0, (0, 1), 1, 7)));
    let report = check_history(&history, &CheckOptions::default());
    assert_eq!(report.keys_checked, 3);
    assert_eq!(report.ops, 6);
    assert_eq!(report.violations.len(), 2);
    assert!(!report.is_valid());
    let text = report.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("linearizability: 3 keys, 6 operations"));
    assert!(lines[1].starts_with("key \"bad\\x0A\": not linearizable: client 0: increment +1 -> 7"));
    assert!(lines[2].starts_with("key \"k\": not linearizable: client 2: get -> \"a\""));
}
