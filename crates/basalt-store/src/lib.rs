//! Basalt's files on shared storage.
//!
//! In cluster mode no file lives on a region server's own disk: every region server and
//! master reads and writes one shared store, so a region moves by closing here and opening
//! there, and a dead server's log is readable by whoever takes its regions. The store is a
//! shared folder (`file:///dir`), any S3-compatible service (`s3://bucket/prefix`), or
//! memory (`memory://`, for tests).
//!
//! The engine does not change: it speaks to a
//! [`FileSystem`](basalt_storage::fs::FileSystem), and [`StoreFs`] is one over a
//! [`Store`]. Files are written to a local spool and published as whole objects when
//! synced; a log file (one under a `wal/` folder) is a series of immutable chunk objects,
//! one per sync, each created with put-if-absent so that two writers of one log can never
//! both succeed; reads of other files go by aligned ranges through a bounded local
//! [`DiskCache`]. The object layout is drawn in `docs/format.md` ("Files on an object
//! store").
//!
//! Before a server registers, [`probe`] checks that its store is reachable, writable, and
//! that put-if-absent is atomic there.
//!
//! This crate is not the log's fencing nor the cluster's metadata: those are the master's
//! and the coordinator's; it gives them the primitives (put-if-absent, immutable chunks).
//!
//! # Layout
//! - [`store`]: the [`Store`] trait, object shaped (put, put-if-absent, ranged get, head,
//!   list, delete, copy, uploads in parts).
//! - `object`: [`ObjectStoreStore`], the trait over the `object_store` crate.
//! - `url`: store URLs and [`StoreOptions`] to a store.
//! - `bridge`: the engine's blocking calls onto the store's own runtime.
//! - [`fs`]: [`StoreFs`], the engine's `FileSystem` on a store.
//! - `cache`: [`DiskCache`], read ranges kept on local disk.
//! - `probe`: [`probe`], the start-up check of a store.
//! - `testing` (feature `testing`): [`testing::MotoServer`], an S3-compatible server for
//!   tests.

mod bridge;
mod cache;
mod error;
pub mod fs;
mod object;
mod probe;
pub mod store;
#[cfg(feature = "testing")]
pub mod testing;
mod url;

pub use bridge::blocking;
pub use cache::{CacheStats, DiskCache};
pub use error::{Result, StoreError};
pub use fs::StoreFs;
pub use object::ObjectStoreStore;
pub use probe::{probe, probe_blocking, ProbeError, ProbeReport};
pub use store::{Created, ListMode, Listing, ObjectInfo, Store};
pub use url::open_store;

use basalt_storage::fs::FileSystem;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How to reach a store and how to use it. `Default` suits a store on this machine.
#[derive(Clone)]
pub struct StoreOptions {
    /// For `s3://`: the endpoint of an S3-compatible service (`--store-endpoint`); plain
    /// `http://` is allowed. Without it, AWS itself (or `AWS_ENDPOINT` from the environment).
    pub endpoint: Option<String>,
    /// For `s3://`: the region, over `AWS_REGION` / `AWS_DEFAULT_REGION`.
    pub region: Option<String>,
    /// For `s3://`: an access key id and secret, over the `AWS_*` environment variables.
    pub credentials: Option<(String, String)>,
    /// Where read ranges are cached on local disk; `None` reads every range from the store.
    pub cache_dir: Option<PathBuf>,
    /// The most the disk cache holds.
    pub cache_bytes: u64,
    /// Reads fetch and cache aligned ranges of this size.
    pub cache_block_bytes: u64,
    /// Where files being written are spooled until synced (default: `<cache_dir>/spool`,
    /// or the system's temporary folder).
    pub spool_dir: Option<PathBuf>,
    /// Files with a folder of this name on their path are logs, written as chunks.
    pub log_folder: String,
    /// Files larger than this are uploaded in parts of this size.
    pub upload_part_bytes: u64,
    /// A request to a remote store that takes longer fails.
    pub request_timeout: Duration,
    /// How often a failed request to a remote store is tried again.
    pub retries_max: usize,
    /// Accept a store whose put-if-absent is not atomic (the probe only warns): the log's
    /// storage fencing is then void and only the region servers' leases protect the data.
    pub unsafe_lease_only_fencing: bool,
    /// How long a log sync keeps trying a chunk the store failed or answered too slowly
    /// (each attempt bounded by what is left); after it the sync fails and the log stops.
    /// A region server sets it to its lease's TTL: past its lease it acknowledges nothing
    /// anyway, and a failed log makes it stop, so its regions recover elsewhere.
    pub log_retry_for: Duration,
    /// For `s3://`: the service's server-side encryption of every object written
    /// (encryption at rest), over `AWS_SERVER_SIDE_ENCRYPTION` and its companions.
    pub encryption: Option<Encryption>,
}

/// Server-side encryption of an S3 store's objects: `AES256` (SSE-S3: keys the service
/// holds), `aws:kms` or `aws:kms:dsse` (SSE-KMS, with `kms_key_id`), or `sse-c` (the key is
/// the caller's, sent with every request and kept by nobody: `customer_key_base64`, 256
/// bits). The service encrypts what it stores; anyone holding the store's credentials (and,
/// for SSE-KMS, the key's permissions; for SSE-C, the key) still reads everything.
#[derive(Clone, PartialEq, Eq)]
pub struct Encryption {
    pub mode: String,
    pub kms_key_id: Option<String>,
    pub customer_key_base64: Option<String>,
}

impl std::fmt::Debug for Encryption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encryption")
            .field("mode", &self.mode)
            .field("kms_key_id", &self.kms_key_id)
            .field(
                "customer_key",
                &self.customer_key_base64.as_ref().map(|_| "…"),
            )
            .finish()
    }
}

impl Encryption {
    /// The modes S3 knows.
    pub const MODES: [&'static str; 4] = ["AES256", "aws:kms", "aws:kms:dsse", "sse-c"];

    /// Checks that the settings go together; the error says what is wrong.
    pub fn check(&self) -> std::result::Result<(), String> {
        if !Self::MODES.contains(&self.mode.as_str()) {
            return Err(format!(
                "unknown server-side encryption {:?}: use one of {}",
                self.mode,
                Self::MODES.join(", ")
            ));
        }
        let kms = self.mode.starts_with("aws:kms");
        if self.kms_key_id.is_some() && !kms {
            return Err(format!(
                "a KMS key id needs aws:kms or aws:kms:dsse, not {}",
                self.mode
            ));
        }
        match (self.mode == "sse-c", &self.customer_key_base64) {
            (true, None) => Err("sse-c needs the customer key (256 bits, base64)".into()),
            (false, Some(_)) => Err(format!("a customer key needs sse-c, not {}", self.mode)),
            _ => Ok(()),
        }
    }
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            endpoint: None,
            region: None,
            credentials: None,
            cache_dir: None,
            cache_bytes: 1 << 30,
            cache_block_bytes: 1 << 20,
            spool_dir: None,
            log_folder: "wal".into(),
            upload_part_bytes: 8 << 20,
            request_timeout: Duration::from_secs(30),
            retries_max: 3,
            unsafe_lease_only_fencing: false,
            log_retry_for: Duration::from_secs(6),
            encryption: None,
        }
    }
}

impl std::fmt::Debug for StoreOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreOptions")
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field(
                "credentials",
                &self.credentials.as_ref().map(|(id, _)| (id, "…")),
            )
            .field("cache_dir", &self.cache_dir)
            .field("cache_bytes", &self.cache_bytes)
            .field("cache_block_bytes", &self.cache_block_bytes)
            .field("spool_dir", &self.spool_dir)
            .field("log_folder", &self.log_folder)
            .field("upload_part_bytes", &self.upload_part_bytes)
            .field("request_timeout", &self.request_timeout)
            .field("retries_max", &self.retries_max)
            .field("unsafe_lease_only_fencing", &self.unsafe_lease_only_fencing)
            .field("log_retry_for", &self.log_retry_for)
            .field("encryption", &self.encryption)
            .finish()
    }
}

/// The engine's file system on the store at `url` (`file:///dir`, `s3://bucket/prefix`,
/// `memory://`). Does not probe the store: call [`probe`] before registering a server.
pub fn open_fs(url: &str, options: StoreOptions) -> Result<Arc<dyn FileSystem>> {
    Ok(Arc::new(StoreFs::open(url, options)?))
}
