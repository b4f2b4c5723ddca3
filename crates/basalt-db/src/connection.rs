//! The embedded connection: `Table`s and an `Admin` over a [`Database`] in this process.

use crate::admin::DbAdmin;
use crate::database::Database;
use crate::table::DbTable;
use basalt_api::{Admin, Connection, Result, Table};
use basalt_types::TableName;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct EmbeddedConnection {
    db: Arc<Database>,
}

impl EmbeddedConnection {
    pub fn new(db: Arc<Database>) -> Self {
        Self { db }
    }

    pub fn database(&self) -> &Arc<Database> {
        &self.db
    }
}

impl Connection for EmbeddedConnection {
    fn table(&self, name: &TableName) -> Result<Arc<dyn Table>> {
        self.db.catalog.read().table(name)?;
        Ok(Arc::new(DbTable::new(self.db.clone(), name.clone())))
    }

    fn admin(&self) -> Arc<dyn Admin> {
        Arc::new(DbAdmin::new(self.db.clone()))
    }
}
