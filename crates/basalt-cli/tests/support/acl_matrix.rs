//! The ACL matrix run through a gateway as its own clients reach it: for each row, each
//! scope that allows the operation gets user `yes` granted exactly that permission there
//! (who must not be refused) and user `no` granted every other permission there (who must
//! be refused with HBase's `AccessDeniedException` naming him). Rows everyone may run are
//! run by `no` holding nothing. The cases (objects, fixture) are the embedded and gRPC
//! matrix tests' own (`crates/basalt-acl/tests/support/cases.rs`); each gateway says which
//! operations it can express and how.

#[path = "../../../basalt-acl/tests/support/cases.rs"]
pub mod cases;

use basalt_acl::matrix::alternatives;
use basalt_acl::{Op, Rule};
use basalt_api::{Actions, Connection, PermissionQuery, UserPermission};

/// What a call through a gateway came to.
#[derive(Debug)]
pub enum Outcome {
    Ok,
    Denied(String),
    Failed(String),
}

pub trait Gateway {
    fn name(&self) -> &'static str;
    /// Runs `op` as `user`; None when this gateway cannot express it.
    fn run(&mut self, user: &str, op: Op) -> Option<Outcome>;
}

/// Removes every grant of `yes` and `no`.
pub fn clear(admin: &dyn Connection) {
    let admin = admin.admin();
    for who in ["yes", "no"] {
        let query = PermissionQuery {
            scope: None,
            user: Some(who.to_string()),
        };
        for p in admin.get_user_permissions(&query).expect("permissions") {
            let all = UserPermission::new(who, p.scope.clone(), Actions::NONE);
            admin.revoke(&all).expect("revoke");
        }
    }
}

/// Runs every case `gateway` can express; how many (allowed, refused, succeeded) checks,
/// and what the allowed calls that failed (for reasons other than authorization) said.
pub fn run_matrix(
    admin: &dyn Connection,
    gateway: &mut dyn Gateway,
) -> (usize, usize, usize, Vec<String>) {
    let (mut allowed, mut refused, mut succeeded) = (0, 0, 0);
    let mut failed = Vec::new();
    let mut allowed_as = |gateway: &mut dyn Gateway, user: &str, op: Op, what: &str| -> bool {
        match gateway.run(user, op) {
            None => return false,
            Some(Outcome::Denied(m)) => {
                panic!("{}: {op:?} {what}: {user} was refused: {m}", gateway.name())
            }
            Some(Outcome::Ok) => succeeded += 1,
            Some(Outcome::Failed(m)) => failed.push(m),
        }
        allowed += 1;
        true
    };
    for case in cases::cases() {
        let op = case.op;
        let name = gateway.name();
        if matches!(op.rule(), Rule::Everyone | Rule::EveryoneFiltered) {
            cases::fixture(admin).expect("fixture");
            clear(admin);
            allowed_as(gateway, "no", op, "(everyone may)");
            continue;
        }
        let alts = alternatives(op.rule());
        let letters = alts.iter().fold(Actions::NONE, |s, (_, a)| s.union(*a));
        for (level, want) in &alts {
            let Some(scope) = case.object.scope_at(*level) else {
                continue;
            };
            cases::fixture(admin).expect("fixture");
            clear(admin);
            let grants = admin.admin();
            grants
                .grant(&UserPermission::new("yes", scope.clone(), *want))
                .expect("grant");
            let others = Actions::ALL.without(letters);
            if !others.is_empty() {
                grants
                    .grant(&UserPermission::new("no", scope.clone(), others))
                    .expect("grant");
            }
            let what = format!("with {want} at {scope}");
            if !allowed_as(gateway, "yes", op, &what) {
                break;
            }
            cases::fixture(admin).expect("fixture");
            match gateway.run("no", op) {
                Some(Outcome::Denied(m)) => {
                    assert!(m.contains("'no'"), "{name}: {op:?} names the user: {m}");
                    refused += 1;
                }
                other => panic!("{name}: {op:?} as no, holding {others} at {scope}: {other:?}"),
            }
        }
    }
    (allowed, refused, succeeded, failed)
}
