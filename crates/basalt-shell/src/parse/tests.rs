use super::*;

fn call(src: &str) -> (String, Vec<Value>) {
    let mut stmts = parse_program(src).expect("parses");
    assert_eq!(stmts.len(), 1, "{src}");
    match stmts.remove(0) {
        Statement::Call { name, args, .. } => (name, args),
        other => panic!("not a call: {other:?}"),
    }
}

fn s(text: &str) -> Value {
    Value::Str(text.as_bytes().to_vec())
}

#[test]
fn single_quotes_only_escape_quote_and_backslash() {
    let (_, args) = call(r"put 'a\'b', 'c\\d', 'e\nf', 'x\x00'");
    assert_eq!(args, vec![s("a'b"), s("c\\d"), s("e\\nf"), s("x\\x00")]);
}

#[test]
fn double_quotes_process_ruby_escapes() {
    let (_, args) = call(r#"put "\x00\x01\xff", "a\tb\n", "q\"\\", "\003\1", "\u00e9\e""#);
    assert_eq!(
        args,
        vec![
            Value::Str(vec![0, 1, 0xff]),
            s("a\tb\n"),
            s("q\"\\"),
            Value::Str(vec![3, 1]),
            Value::Str(vec![0xc3, 0xa9, 0x1b]),
        ]
    );
}

#[test]
fn hashes_arrays_numbers_and_constants() {
    let (name, args) = call(
        "create 'access-logs', 't', {SPLITS => ['1', '2'], NUMREGIONS => -15, X => 1_000, F => 1.5, B => true, N => nil}",
    );
    assert_eq!(name, "create");
    assert_eq!(
        args[2],
        Value::Hash(vec![
            (
                Value::Const("SPLITS".into()),
                Value::Array(vec![s("1"), s("2")])
            ),
            (Value::Const("NUMREGIONS".into()), Value::Int(-15)),
            (Value::Const("X".into()), Value::Int(1000)),
            (Value::Const("F".into()), Value::Float(1.5)),
            (Value::Const("B".into()), Value::Bool(true)),
            (Value::Const("N".into()), Value::Nil),
        ])
    );
}

#[test]
fn trailing_pairs_form_one_hash() {
    let (_, args) = call("alter 't1', NAME => 'f1', VERSIONS => 5");
    assert_eq!(
        args,
        vec![
            s("t1"),
            Value::Hash(vec![
                (Value::Const("NAME".into()), s("f1")),
                (Value::Const("VERSIONS".into()), Value::Int(5)),
            ])
        ]
    );
}

#[test]
fn parentheses_receivers_assignments_comments() {
    let (name, args) = call("scan('t', {LIMIT => 2}) # comment");
    assert_eq!(name, "scan");
    assert_eq!(args.len(), 2);
    let stmts = parse_program("t = get_table 't'\nt.put 'r', 'f:q', 'v'; list").expect("parses");
    assert_eq!(stmts.len(), 3);
    match &stmts[1] {
        Statement::Call { receiver, name, .. } => {
            assert_eq!(receiver.as_deref(), Some("t"));
            assert_eq!(name, "put");
        }
        other => panic!("{other:?}"),
    }
    match &stmts[0] {
        Statement::Call { assign, .. } => assert_eq!(assign.as_deref(), Some("t")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn multi_line_input() {
    assert!(is_incomplete("create 't', {NAME => 'f',"));
    assert!(is_incomplete("put 't', 'r', 'f:q', 'unterminated"));
    assert!(is_incomplete("scan 't',"));
    assert!(is_incomplete("scan 't', {FILTER =>"));
    assert!(!is_incomplete("scan 't'"));
    assert!(!is_incomplete("scan 't' # {"));
    let (_, args) = call("create 't',\n  {NAME => 'f',\n   VERSIONS => 3}\n");
    assert_eq!(args.len(), 2);
}

#[test]
fn errors_name_the_position() {
    let e = parse_program("put 't', 'r',, 'x'").expect_err("bad");
    assert_eq!((e.line, e.column), (1, 14));
    assert!(e.to_string().contains("unexpected ','"), "{e}");
    let e = parse_program("get 't'\nscan 't', {LIMIT 2}").expect_err("bad");
    assert_eq!((e.line, e.column), (2, 18));
    let e = parse_program("put 't', 'abc").expect_err("bad");
    assert!(e.incomplete);
    assert_eq!(e.column, 10);
    let e = parse_program("put 't' @").expect_err("bad");
    assert_eq!(e.column, 9);
}

#[test]
fn bare_values_are_expressions() {
    let stmts = parse_program("'x'\n42\n").expect("parses");
    assert_eq!(
        stmts,
        vec![Statement::Expr(s("x")), Statement::Expr(Value::Int(42))]
    );
    assert_eq!(
        Value::Array(vec![s("a\"b"), Value::Int(1)]).inspect(),
        r#"["a\"b", 1]"#
    );
}
