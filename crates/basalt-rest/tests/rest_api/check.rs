//! `?check=put|delete|increment|append`.

use crate::support::{cell_set_json, cells_of, triples, Gateway};

#[test]
fn check_and_put_applies_only_when_the_value_matches() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    gw.put_cell("t", "r", "cf:a", "old");
    // Cells to put, then the expected value of cf:a last.
    let wrong = cell_set_json(&[("r", &[("cf:a", "new"), ("cf:b", "x"), ("cf:a", "nope")])]);
    let r = gw.send(
        "PUT",
        "/t/r?check=put",
        "application/json",
        wrong.as_bytes(),
    );
    assert_eq!(r.status, 304);
    assert_eq!(
        cells_of(&gw.get("/t/r", "application/json").json()),
        triples(&[("r", "cf:a", "old")])
    );
    let right = cell_set_json(&[("r", &[("cf:a", "new"), ("cf:b", "x"), ("cf:a", "old")])]);
    let r = gw.send(
        "PUT",
        "/t/r?check=put",
        "application/json",
        right.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        cells_of(&gw.get("/t/r", "application/json").json()),
        triples(&[("r", "cf:a", "new"), ("r", "cf:b", "x")])
    );
    let unrelated = cell_set_json(&[("r", &[("cf:b", "y"), ("cf:a", "new")])]);
    let r = gw.send(
        "PUT",
        "/t/r?check=put",
        "application/json",
        unrelated.as_bytes(),
    );
    assert_eq!(
        r.status,
        400,
        "the checked column must be put: {}",
        r.text()
    );
}

#[test]
fn check_and_delete_deletes_only_when_the_value_matches() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    gw.put_cell("t", "r", "cf:a", "1");
    gw.put_cell("t", "r", "cf:b", "2");
    let wrong = cell_set_json(&[("r", &[("cf:b", ""), ("cf:a", "9")])]);
    let r = gw.send(
        "POST",
        "/t/r?check=delete",
        "application/json",
        wrong.as_bytes(),
    );
    assert_eq!(r.status, 304);
    let right = cell_set_json(&[("r", &[("cf:b", ""), ("cf:a", "1")])]);
    let r = gw.send(
        "POST",
        "/t/r?check=delete",
        "application/json",
        right.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        cells_of(&gw.get("/t/r", "application/json").json()),
        triples(&[("r", "cf:a", "1")])
    );
    let only_check = cell_set_json(&[("r", &[("cf:a", "1")])]);
    let r = gw.send(
        "POST",
        "/t/r?check=delete",
        "application/json",
        only_check.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(gw.get("/t/r", "application/json").status, 404);
}

#[test]
fn increments_and_appends_return_their_results() {
    let gw = Gateway::start();
    gw.create_table("t", &["cf"]);
    let inc = cell_set_json(&[("r", &[("cf:n", "5")])]);
    let r = gw.send(
        "POST",
        "/t/r?check=increment",
        "application/json",
        inc.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let inc = cell_set_json(&[("r", &[("cf:n", "-2")])]);
    let r = gw.send(
        "POST",
        "/t/r?check=increment&returnResult=true",
        "application/json",
        inc.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let cells = cells_of(&r.json());
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].2.as_bytes(), 3i64.to_be_bytes());
    let raw = gw.get("/t/r/cf:n", "application/octet-stream");
    assert_eq!(raw.body, 3i64.to_be_bytes());

    let bad = cell_set_json(&[("r", &[("cf:n", "five")])]);
    let r = gw.send(
        "POST",
        "/t/r?check=increment",
        "application/json",
        bad.as_bytes(),
    );
    assert_eq!(r.status, 400);
    assert!(r.text().contains("five"), "{}", r.text());

    let app = cell_set_json(&[("r", &[("cf:s", "ab")])]);
    assert_eq!(
        gw.send(
            "POST",
            "/t/r?check=append",
            "application/json",
            app.as_bytes()
        )
        .status,
        200
    );
    let app = cell_set_json(&[("r", &[("cf:s", "cd")])]);
    let r = gw.send(
        "POST",
        "/t/r?check=append&returnResult=true",
        "application/json",
        app.as_bytes(),
    );
    assert_eq!(cells_of(&r.json()), triples(&[("r", "cf:s", "abcd")]));

    let r = gw.send(
        "POST",
        "/t/r?check=sideways",
        "application/json",
        app.as_bytes(),
    );
    assert_eq!(r.status, 400);
}
