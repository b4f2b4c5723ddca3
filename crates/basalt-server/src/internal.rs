//! The cluster's own services behind the ACLs. The table and admin services reach the
//! database through the checked connection ([`crate::authorize`]); a master's
//! `MasterService` and a region server's `RegionServerService` do not, so with
//! authorization on every call to them is decided here, by method, before it runs:
//!
//! | method                                        | who may call                      |
//! |-----------------------------------------------|-----------------------------------|
//! | `MasterService/GetClusterInfo`, `GetClusterStatus` | everyone (clients find the active master) |
//! | `MasterService/MoveRegion`, `Balance`         | HBase's matrix: `move`, `balance` (global A) |
//! | any other `MasterService` method, every `RegionServerService` method | superusers: the cluster's servers (cluster secret) and admins |
//! | `UserService/AddUser`, `Passwd`, `RemoveUser`, `ListUsers`, `IssueToken`, `RevokeTokens` | every authenticated user here; the service then decides by caller and target ([`crate::users::rules`]) |
//! | any other `UserService` method                | superusers                        |
//!
//! An unknown method of those services counts as the servers' own, so a method added
//! later is closed until it is listed. (`AddUser` with the bootstrap token is the one call
//! that comes without a principal: [`crate::auth`] checks the token and skips this gate.)

use basalt_acl::{Checker, GrantSource, Object, Op};
use basalt_api::{Principal, Result};
use std::sync::Arc;

const MASTER: &str = "/basalt.v1.MasterService/";
const REGION_SERVER: &str = "/basalt.v1.RegionServerService/";
const USERS: &str = "/basalt.v1.UserService/";

/// Who may call a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Not decided here (the table and admin services check each call themselves).
    Checked,
    Everyone,
    /// Allowed by the operation's row of the ACL matrix.
    Op(Op),
    /// Superusers only.
    Servers,
    /// Every authenticated user; the user service decides by caller and target
    /// ([`crate::users::rules`]).
    UserRules,
}

/// The rule for the gRPC method at `path` (`/package.Service/Method`).
pub fn access(path: &str) -> Access {
    if let Some(method) = path.strip_prefix(MASTER) {
        return match method {
            "GetClusterInfo" | "GetClusterStatus" => Access::Everyone,
            "MoveRegion" => Access::Op(Op::MoveRegion),
            "Balance" => Access::Op(Op::Balance),
            _ => Access::Servers,
        };
    }
    if path.starts_with(REGION_SERVER) {
        return Access::Servers;
    }
    if let Some(method) = path.strip_prefix(USERS) {
        return match method {
            "AddUser" | "Passwd" | "RemoveUser" | "ListUsers" | "IssueToken" | "RevokeTokens" => {
                Access::UserRules
            }
            _ => Access::Servers,
        };
    }
    Access::Checked
}

/// The superusers and grants the internal methods are decided with.
#[derive(Clone)]
pub struct Gate {
    pub checker: Arc<Checker>,
    pub grants: Arc<dyn GrantSource>,
}

impl Gate {
    /// Allowed, or HBase's `AccessDeniedException` naming the user and the method (logged
    /// to the audit target).
    pub fn admit(&self, principal: &Principal, path: &str) -> Result<()> {
        let decided = match access(path) {
            Access::Checked | Access::Everyone | Access::UserRules => return Ok(()),
            Access::Servers if self.checker.is_superuser(principal) => return Ok(()),
            Access::Servers => Err(format!(
                "Insufficient permissions for user '{}' (method {path} is the cluster's own: \
                 superusers and the cluster's servers only)",
                principal.name()
            )),
            Access::Op(op) => {
                let grants = self.grants.grants()?;
                self.checker
                    .check(&grants, principal, op, &Object::Global)
                    .map_err(|d| d.to_string())
            }
        };
        decided.map_err(|message| {
            tracing::warn!(target: "basalt_acl::audit", user = %principal, method = path,
                "access denied");
            basalt_api::acl::access_denied(message)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_api::{Actions, AuthMethod, Grants, Scope, UserPermission};

    #[test]
    fn every_method_has_its_rule() {
        let golden = [
            ("/basalt.v1.MasterService/GetClusterInfo", Access::Everyone),
            (
                "/basalt.v1.MasterService/GetClusterStatus",
                Access::Everyone,
            ),
            (
                "/basalt.v1.MasterService/MoveRegion",
                Access::Op(Op::MoveRegion),
            ),
            ("/basalt.v1.MasterService/Balance", Access::Op(Op::Balance)),
            (
                "/basalt.v1.MasterService/RegionServerStartup",
                Access::Servers,
            ),
            ("/basalt.v1.MasterService/ReportStopping", Access::Servers),
            ("/basalt.v1.MasterService/RequestSplit", Access::Servers),
            ("/basalt.v1.MasterService/SomethingNew", Access::Servers),
            ("/basalt.v1.RegionServerService/OpenRegion", Access::Servers),
            (
                "/basalt.v1.RegionServerService/GetServerReport",
                Access::Servers,
            ),
            ("/basalt.v1.UserService/AddUser", Access::UserRules),
            ("/basalt.v1.UserService/Passwd", Access::UserRules),
            ("/basalt.v1.UserService/RemoveUser", Access::UserRules),
            ("/basalt.v1.UserService/ListUsers", Access::UserRules),
            ("/basalt.v1.UserService/IssueToken", Access::UserRules),
            ("/basalt.v1.UserService/RevokeTokens", Access::UserRules),
            ("/basalt.v1.UserService/SomethingNew", Access::Servers),
            ("/basalt.v1.TableService/Get", Access::Checked),
            ("/basalt.v1.AdminService/CreateTable", Access::Checked),
        ];
        for (path, rule) in golden {
            assert_eq!(access(path), rule, "{path}");
        }
    }

    #[test]
    fn servers_and_global_admins_pass_others_are_denied_by_name() {
        let mut grants = Grants::new();
        grants.grant(&UserPermission::new(
            "ann",
            Scope::Global,
            Actions::parse("A").expect("A"),
        ));
        let gate = Gate {
            checker: Arc::new(Checker::new(["@supergroup".to_string()])),
            grants: Arc::new(grants),
        };
        let server = Principal::new("rs", AuthMethod::Simple).with_groups(["supergroup".into()]);
        let ann = Principal::new("ann", AuthMethod::Simple);
        let bob = Principal::new("bob", AuthMethod::Simple);
        let open = "/basalt.v1.RegionServerService/OpenRegion";
        let balance = "/basalt.v1.MasterService/Balance";
        assert!(gate.admit(&server, open).is_ok());
        assert!(gate.admit(&server, balance).is_ok());
        assert!(gate.admit(&ann, balance).is_ok());
        let denied = gate.admit(&ann, open).expect_err("ann is no server");
        assert!(denied.message.contains("'ann'"), "{denied:?}");
        let denied = gate.admit(&bob, balance).expect_err("bob holds nothing");
        assert!(denied.message.contains("bob"), "{denied:?}");
        assert!(gate
            .admit(&bob, "/basalt.v1.MasterService/GetClusterInfo")
            .is_ok());
        assert!(gate.admit(&bob, "/basalt.v1.TableService/Get").is_ok());
    }
}
