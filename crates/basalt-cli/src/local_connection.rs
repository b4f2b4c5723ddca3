//! The connection standalone's gateways (Thrift, REST, the native protocol) and web UI use:
//! in the same process as the master and the region server, it reaches them without a
//! network hop where that is safe.
//!
//! - **Rows** (get, exists, put, delete, increment, append, check-and-mutate, row
//!   mutations, multi-gets) go straight to the region server's database. When it does not
//!   serve the row right now (the region is moving, splitting or closed:
//!   `RetryElsewhere`, and nothing was done), the call goes through a client of the
//!   master instead, which locates and retries as against a cluster.
//! - **Batches and multi-row writes** go to the database as one batch, which answers per
//!   action; only the actions it did not apply for that reason go through the client, as
//!   HBase's client retries the failed actions of a batch (never the whole batch: an
//!   action applied twice could add a version).
//! - **Scans** read the database too, across the regions open here (a split's daughters are
//!   found as they open); one that cannot start here goes through the client. A region
//!   closed on purpose while a scan reaches it ends that scan with its error, as the
//!   client's would once its retries ran out.
//! - **Admin** calls go to the master in process ([`basalt_master::admin::MasterAdmin`]).

use basalt_api::{
    Admin, ApiError, CheckAndMutateResult, Connection, ErrorKind, OpenedScan, Result,
    ResultScanner, Table,
};
use basalt_db::EmbeddedConnection;
use basalt_types::{
    Action, ActionResult, Append, CheckAndMutate, Delete, Get, Increment, Nonce, Put, RowMutations,
    RowResult, Scan, TableName,
};
use std::sync::{Arc, OnceLock};

/// Connects the client of the master.
type Connect = Box<dyn Fn() -> Result<Arc<dyn Connection>> + Send + Sync>;

/// The client of the master, connected at its first use (a start does not wait for it).
pub struct Remote {
    connect: Connect,
    conn: std::sync::Mutex<Option<Arc<dyn Connection>>>,
}

impl Remote {
    /// A client `connect` makes when first needed.
    pub fn new(connect: Connect) -> Arc<Remote> {
        Arc::new(Remote {
            connect,
            conn: std::sync::Mutex::new(None),
        })
    }

    /// A client already connected.
    pub fn connected(conn: Arc<dyn Connection>) -> Arc<Remote> {
        Arc::new(Remote {
            connect: Box::new(|| Err(ApiError::invalid("already connected".to_string()))),
            conn: std::sync::Mutex::new(Some(conn)),
        })
    }

    fn get(&self) -> Result<Arc<dyn Connection>> {
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(conn) = conn.as_ref() {
            return Ok(conn.clone());
        }
        let made = (self.connect)()?;
        *conn = Some(made.clone());
        Ok(made)
    }
}

/// Standalone's in-process connection (see the module's story).
pub struct LocalConnection {
    host: EmbeddedConnection,
    remote: Arc<Remote>,
    admin: Arc<dyn Admin>,
}

impl LocalConnection {
    /// `host` over the region server's database, `remote` the client of the master,
    /// `admin` the master's admin in process.
    pub fn new(host: EmbeddedConnection, remote: Arc<Remote>, admin: Arc<dyn Admin>) -> Self {
        Self {
            host,
            remote,
            admin,
        }
    }
}

impl Connection for LocalConnection {
    fn table(&self, name: &TableName) -> Result<Arc<dyn Table>> {
        match self.host.table(name) {
            Ok(host) => Ok(Arc::new(LocalTable {
                name: name.clone(),
                host,
                remote: self.remote.clone(),
                remote_table: OnceLock::new(),
            })),
            // No region of it is open here (yet, or any more): the master knows.
            Err(e) => {
                tracing::debug!(table = %name, error = %e, "no region of it open here: through the master's client");
                self.remote.get()?.table(name)
            }
        }
    }

    fn admin(&self) -> Arc<dyn Admin> {
        self.admin.clone()
    }
}

/// A table of the region server's database, with the master's client behind it.
struct LocalTable {
    name: TableName,
    host: Arc<dyn Table>,
    remote: Arc<Remote>,
    remote_table: OnceLock<Arc<dyn Table>>,
}

impl LocalTable {
    fn remote(&self) -> Result<Arc<dyn Table>> {
        if let Some(table) = self.remote_table.get() {
            return Ok(table.clone());
        }
        let table = self.remote.get()?.table(&self.name)?;
        Ok(self.remote_table.get_or_init(|| table).clone())
    }

    /// `local`, or, when the row is not served here right now, `remote`.
    fn either<T>(
        &self,
        local: impl FnOnce(&dyn Table) -> Result<T>,
        remote: impl FnOnce(&dyn Table) -> Result<T>,
    ) -> Result<T> {
        match local(self.host.as_ref()) {
            Err(e) if moved(&e) => {
                tracing::debug!(table = %self.name, error = %e, "not served here now: through the master's client");
                remote(self.remote()?.as_ref())
            }
            done => done,
        }
    }
}

/// Whether the region server's database did nothing because the row's region is not
/// open there now.
fn moved(e: &ApiError) -> bool {
    e.kind == ErrorKind::RetryElsewhere
}

impl Table for LocalTable {
    fn name(&self) -> &TableName {
        &self.name
    }
    fn get(&self, get: &Get) -> Result<RowResult> {
        self.either(|t| t.get(get), |t| t.get(get))
    }
    fn get_many(&self, gets: &[Get]) -> Result<Vec<RowResult>> {
        self.either(|t| t.get_many(gets), |t| t.get_many(gets))
    }
    fn exists(&self, get: &Get) -> Result<bool> {
        self.either(|t| t.exists(get), |t| t.exists(get))
    }
    fn put(&self, put: &Put) -> Result<()> {
        self.either(|t| t.put(put), |t| t.put(put))
    }
    fn put_many(&self, puts: &[Put]) -> Result<()> {
        let actions: Vec<Action> = puts.iter().cloned().map(Action::Put).collect();
        first_error(self.batch(&actions))
    }
    fn delete(&self, delete: &Delete) -> Result<()> {
        self.either(|t| t.delete(delete), |t| t.delete(delete))
    }
    fn delete_many(&self, deletes: &[Delete]) -> Result<()> {
        let actions: Vec<Action> = deletes.iter().cloned().map(Action::Delete).collect();
        first_error(self.batch(&actions))
    }
    fn increment(&self, increment: &Increment) -> Result<RowResult> {
        self.either(|t| t.increment(increment), |t| t.increment(increment))
    }
    fn append(&self, append: &Append) -> Result<RowResult> {
        self.either(|t| t.append(append), |t| t.append(append))
    }
    fn check_and_mutate(&self, check: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        self.either(|t| t.check_and_mutate(check), |t| t.check_and_mutate(check))
    }
    fn mutate_row(&self, mutations: &RowMutations) -> Result<RowResult> {
        self.either(|t| t.mutate_row(mutations), |t| t.mutate_row(mutations))
    }
    fn apply_once(&self, action: &Action, nonce: Nonce) -> Result<ActionResult> {
        self.either(
            |t| t.apply_once(action, nonce),
            |t| t.apply_once(action, nonce),
        )
    }
    fn batch(&self, actions: &[Action]) -> Vec<Result<ActionResult>> {
        let mut results = self.host.batch(actions);
        let again: Vec<usize> = results
            .iter()
            .enumerate()
            .filter(|(_, r)| matches!(r, Err(e) if moved(e)))
            .map(|(i, _)| i)
            .collect();
        if again.is_empty() {
            return results;
        }
        let retried: Vec<Action> = again.iter().map(|&i| actions[i].clone()).collect();
        let answers = match self.remote() {
            Ok(table) => table.batch(&retried),
            Err(e) => retried.iter().map(|_| Err(e.clone())).collect(),
        };
        for (i, answer) in again.into_iter().zip(answers) {
            results[i] = answer;
        }
        results
    }
    fn scan(&self, scan: &Scan) -> Result<Box<dyn ResultScanner>> {
        self.either(|t| t.scan(scan), |t| t.scan(scan))
    }
    fn scan_region(&self, scan: &Scan, region: &str) -> Result<Box<dyn ResultScanner>> {
        self.remote()?.scan_region(scan, region)
    }
    fn open_scan(&self, scan: &Scan, region: Option<&str>) -> Result<OpenedScan> {
        match region {
            None => self.either(|t| t.open_scan(scan, None), |t| t.open_scan(scan, None)),
            Some(region) => self.remote()?.open_scan(scan, Some(region)),
        }
    }
}

/// The first failure of a batch, or success.
fn first_error(results: Vec<Result<ActionResult>>) -> Result<()> {
    results
        .into_iter()
        .find_map(Result::err)
        .map_or(Ok(()), Err)
}
