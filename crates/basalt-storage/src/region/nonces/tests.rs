use super::*;
use crate::fs::LocalFs;

fn n(x: u64) -> Nonce {
    Nonce { group: 1, nonce: x }
}

const WINDOW: i64 = 30 * 60 * 1000;

#[test]
fn only_flushed_edits_nonces_reach_the_file_and_a_reopen_knows_them() {
    let dir = tempfile::tempdir().expect("ok");
    let fs = LocalFs;
    let nonces = RecentNonces::load(&fs, dir.path(), WINDOW, 100, 0);
    nonces.record(n(1), 10, 0);
    nonces.record(n(2), 20, 0);
    nonces.persist(&fs, dir.path(), 15).expect("ok");
    let reopened = RecentNonces::load(&fs, dir.path(), WINDOW, 100, 1);
    assert!(reopened.contains(&n(1)));
    assert!(
        !reopened.contains(&n(2)),
        "edit 20 was not flushed: its log has it"
    );
}

#[test]
fn nonces_age_out_of_the_window_and_past_the_cap() {
    let dir = tempfile::tempdir().expect("ok");
    let fs = LocalFs;
    let nonces = RecentNonces::load(&fs, dir.path(), 1000, 3, 0);
    for i in 1..=4 {
        nonces.record(n(i), i, 0);
    }
    assert!(!nonces.contains(&n(1)), "the oldest went past the cap");
    assert_eq!(nonces.len(), 3);
    nonces.persist(&fs, dir.path(), 10).expect("ok");
    assert_eq!(RecentNonces::load(&fs, dir.path(), 1000, 3, 999).len(), 3);
    assert!(RecentNonces::load(&fs, dir.path(), 1000, 3, 1001).is_empty());
    nonces.record(n(9), 11, 2000);
    assert_eq!(nonces.len(), 1, "recording ages out the old ones");
}

#[test]
fn a_damaged_file_opens_without_nonces() {
    let dir = tempfile::tempdir().expect("ok");
    std::fs::write(dir.path().join(file::FILE_NAME), b"BSNC junk").expect("ok");
    assert!(RecentNonces::load(&LocalFs, dir.path(), WINDOW, 10, 0).is_empty());
}

#[test]
fn a_flush_without_new_nonces_writes_nothing() {
    let dir = tempfile::tempdir().expect("ok");
    let fs = LocalFs;
    let nonces = RecentNonces::load(&fs, dir.path(), WINDOW, 10, 0);
    nonces.persist(&fs, dir.path(), 5).expect("ok");
    assert!(!dir.path().join(file::FILE_NAME).exists());
    nonces.record(n(1), 3, 0);
    nonces.persist(&fs, dir.path(), 5).expect("ok");
    let written = std::fs::metadata(dir.path().join(file::FILE_NAME)).expect("ok");
    std::fs::remove_file(dir.path().join(file::FILE_NAME)).expect("ok");
    nonces.persist(&fs, dir.path(), 6).expect("ok");
    assert!(written.len() > 0);
    assert!(
        !dir.path().join(file::FILE_NAME).exists(),
        "already persisted"
    );
}
