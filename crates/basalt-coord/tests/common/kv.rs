//! Keys, listings and transactions: etcd's bookkeeping, on both coordinators.

use super::put;
use basalt_coord::{Compare, CompareOp, Coordinator, Op, Target, Txn};

pub async fn put_get_and_list(coord: &dyn Coordinator) {
    let first = put(coord, "a", "1").await;
    let a = coord.get(b"a").await.expect("get").expect("a exists");
    assert_eq!(a.value, b"1");
    assert_eq!(
        (a.create_revision, a.mod_revision, a.version, a.lease),
        (first, first, 1, 0)
    );

    let second = put(coord, "a", "2").await;
    assert!(second > first, "every change takes a new revision");
    let a = coord.get(b"a").await.expect("get").expect("a exists");
    assert_eq!(
        (
            a.value.as_slice(),
            a.create_revision,
            a.mod_revision,
            a.version
        ),
        (&b"2"[..], first, second, 2)
    );

    for key in ["b/2", "b/1", "c"] {
        put(coord, key, key).await;
    }
    assert_eq!(coord.get(b"missing").await.expect("get"), None);

    let listing = coord.list(b"b/").await.expect("list");
    let keys: Vec<&[u8]> = listing.kvs.iter().map(|kv| kv.key.as_slice()).collect();
    assert_eq!(
        keys,
        vec![&b"b/1"[..], b"b/2"],
        "sorted by key, the prefix only"
    );
    assert!(listing.revision > second);
    let everything = coord.list(b"").await.expect("list all");
    let keys: Vec<&[u8]> = everything.kvs.iter().map(|kv| kv.key.as_slice()).collect();
    assert_eq!(keys, vec![&b"a"[..], b"b/1", b"b/2", b"c"]);

    let wipe = Txn {
        success: vec![Op::DeletePrefix {
            prefix: b"b/".to_vec(),
        }],
        ..Txn::default()
    };
    coord.txn(wipe).await.expect("delete prefix");
    assert!(coord.list(b"b/").await.expect("list").kvs.is_empty());
    assert!(
        coord.get(b"a").await.expect("get").is_some(),
        "outside the prefix"
    );
}

/// Runs `compares` with a success and a failure branch; which one ran.
async fn branch(coord: &dyn Coordinator, compares: Vec<Compare>) -> bool {
    let txn = Txn {
        compares,
        success: vec![Op::put("branch", "success")],
        failure: vec![Op::put("branch", "failure")],
    };
    let result = coord.txn(txn).await.expect("txn");
    let written = coord
        .get(b"branch")
        .await
        .expect("get")
        .expect("a branch wrote");
    assert_eq!(
        written.value,
        if result.succeeded {
            &b"success"[..]
        } else {
            b"failure"
        }
    );
    assert_eq!(written.mod_revision, result.revision);
    result.succeeded
}

pub async fn txn_compares_choose_the_branch(coord: &dyn Coordinator) {
    // Absent (version 0): holds once, then the key exists.
    assert!(branch(coord, vec![Compare::absent("k")]).await);
    put(coord, "k", "v1").await;
    assert!(!branch(coord, vec![Compare::absent("k")]).await);

    let k = coord.get(b"k").await.expect("get").expect("k");
    assert!(branch(coord, vec![Compare::mod_revision("k", k.mod_revision)]).await);
    put(coord, "k", "v2").await;
    assert!(
        !branch(coord, vec![Compare::mod_revision("k", k.mod_revision)]).await,
        "stale mod revision"
    );
    assert!(
        branch(
            coord,
            vec![Compare::create_revision("k", k.create_revision)]
        )
        .await,
        "same key, same creation"
    );

    assert!(branch(coord, vec![Compare::value("k", "v2")]).await);
    assert!(!branch(coord, vec![Compare::value("k", "v1")]).await);
    let not_v1 = Compare {
        key: b"k".to_vec(),
        op: CompareOp::NotEqual,
        target: Target::Value(b"v1".to_vec()),
    };
    assert!(branch(coord, vec![not_v1]).await);
    let greater = Compare {
        key: b"k".to_vec(),
        op: CompareOp::Greater,
        target: Target::Version(1),
    };
    assert!(branch(coord, vec![greater]).await, "version 2 > 1");
    let less = Compare {
        key: b"k".to_vec(),
        op: CompareOp::Less,
        target: Target::ModRevision(1),
    };
    assert!(!branch(coord, vec![less]).await);

    // A value compare on a missing key fails whatever its operator.
    let missing = Compare {
        key: b"nope".to_vec(),
        op: CompareOp::NotEqual,
        target: Target::Value(b"x".to_vec()),
    };
    assert!(!branch(coord, vec![missing]).await);
    // A missing key's create revision is 0.
    assert!(branch(coord, vec![Compare::create_revision("nope", 0)]).await);

    // Recreated: a new create revision, so the old one no longer matches.
    coord
        .txn(Txn {
            success: vec![Op::delete("k")],
            ..Txn::default()
        })
        .await
        .expect("delete");
    put(coord, "k", "v3").await;
    assert!(
        !branch(
            coord,
            vec![Compare::create_revision("k", k.create_revision)]
        )
        .await
    );

    // All compares must hold.
    let both = vec![Compare::value("k", "v3"), Compare::absent("k")];
    assert!(!branch(coord, both).await);

    // A failed transaction with nothing to do changes nothing.
    let before = coord.list(b"").await.expect("list").revision;
    let idle = Txn {
        compares: vec![Compare::absent("k")],
        success: vec![Op::put("k", "x")],
        failure: vec![],
    };
    let result = coord.txn(idle).await.expect("txn");
    assert!(!result.succeeded);
    assert_eq!(result.revision, before);
    assert_eq!(coord.get(b"k").await.expect("get").expect("k").value, b"v3");
}
