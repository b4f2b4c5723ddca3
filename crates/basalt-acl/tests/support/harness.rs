//! Runs every matrix case against a connection factory: for each alternative of the
//! operation's rule, a user granted exactly that (allowed: the call is not refused by
//! authorization — it may still fail for its own reasons, e.g. a region that does not
//! exist) and a user granted every other permission at the same scope (refused with
//! HBase's `AccessDeniedException`, naming the user). Rows everyone may run are run by a
//! user with no grant at all.

#![allow(dead_code)]

use super::cases::{cases, fixture, Case};
use basalt_acl::matrix::alternatives;
use basalt_acl::{Op, Rule};
use basalt_api::acl::ACCESS_DENIED;
use basalt_api::{Actions, Connection, Result, UserPermission};
use std::collections::BTreeSet;

/// How the harness reaches the database: as the superuser, or as a named user.
pub trait Connect {
    fn superuser(&self) -> &dyn Connection;
    fn as_user(&self, user: &str) -> Box<dyn Connection>;
    /// Operations this connection answers itself without reaching the database (a
    /// remote client's `move` against one server, which has nothing to move): nothing
    /// happens, so there is nothing to refuse.
    fn local_noops(&self) -> &[Op] {
        &[]
    }
}

fn denied(r: &Result<()>) -> bool {
    matches!(r, Err(e) if e.exception == ACCESS_DENIED)
}

/// Runs every case; answers how many (allowed, denied) checks ran.
pub fn run_matrix(connect: &dyn Connect) -> (usize, usize) {
    let all = cases();
    let covered: BTreeSet<Op> = all.iter().map(|c| c.op).collect();
    let missing: Vec<_> = Op::ALL.iter().filter(|o| !covered.contains(o)).collect();
    assert!(
        missing.is_empty(),
        "matrix rows without a case: {missing:?}"
    );
    let (mut allowed, mut refused) = (0, 0);
    for (n, case) in all.iter().enumerate() {
        let (a, r) = run_case(connect, n, case);
        allowed += a;
        refused += r;
    }
    (allowed, refused)
}

fn run_case(connect: &dyn Connect, n: usize, case: &Case) -> (usize, usize) {
    let su = connect.superuser();
    let alts = alternatives(case.op.rule());
    if matches!(case.op.rule(), Rule::Everyone | Rule::EveryoneFiltered) {
        fixture(su).expect("fixture");
        let user = format!("nobody{n}");
        let r = (case.run)(connect.as_user(&user).as_ref());
        assert!(
            !denied(&r),
            "{:?}: everyone may, yet {user} got {r:?}",
            case.op
        );
        return (1, 0);
    }
    let letters = alts.iter().fold(Actions::NONE, |s, (_, a)| s.union(*a));
    let (mut allowed, mut refused) = (0, 0);
    for (i, (level, want)) in alts.iter().enumerate() {
        let Some(scope) = case.object.scope_at(*level) else {
            continue;
        };
        fixture(su).expect("fixture");
        let yes = format!("u{n}a{i}");
        let no = format!("u{n}d{i}");
        let admin = su.admin();
        admin
            .grant(&UserPermission::new(&yes, scope.clone(), *want))
            .expect("grant");
        let others = Actions::ALL.without(letters);
        if !others.is_empty() {
            admin
                .grant(&UserPermission::new(&no, scope.clone(), others))
                .expect("grant");
        }
        let r = (case.run)(connect.as_user(&no).as_ref());
        if connect.local_noops().contains(&case.op) {
            assert_eq!(r, Ok(()), "{:?} is a local no-op", case.op);
            continue;
        }
        assert!(
            denied(&r),
            "{:?} at {scope} with {others}: {no} got {r:?}",
            case.op
        );
        let e = r.as_ref().expect_err("refused");
        assert!(e.message.contains(&format!("user '{no}'")), "{}", e.message);
        refused += 1;
        let r = (case.run)(connect.as_user(&yes).as_ref());
        assert!(
            !denied(&r),
            "{:?} at {scope} with {want}: {yes} got {r:?}",
            case.op
        );
        allowed += 1;
    }
    (allowed, refused)
}
