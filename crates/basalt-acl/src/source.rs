//! Where the enforcing wrapper reads the grants from: whatever keeps the catalog. Each
//! check reads them afresh, so a grant or revoke applies to the next call.

use basalt_api::{Admin, Grants, PermissionQuery, Result};
use std::sync::Arc;

/// The current grants.
pub trait GrantSource: Send + Sync {
    fn grants(&self) -> Result<Arc<Grants>>;
}

/// Grants read through an (unchecked) admin: the embedded database's, or the master's.
pub struct AdminGrants(pub Arc<dyn Admin>);

impl GrantSource for AdminGrants {
    fn grants(&self) -> Result<Arc<Grants>> {
        let all = self.0.get_user_permissions(&PermissionQuery::default())?;
        Ok(Arc::new(Grants::from_permissions(all)))
    }
}

/// A fixed set of grants (tests, and tools that load them once).
impl GrantSource for Grants {
    fn grants(&self) -> Result<Arc<Grants>> {
        Ok(Arc::new(self.clone()))
    }
}
