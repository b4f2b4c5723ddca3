//! What the master keeps describing on the store besides the catalog, so that a lost
//! catalog can be rebuilt from the store alone (`basalt hbck rebuild-meta`): a namespace's
//! file (`namespaces/<name>.nsinfo`) as it is created, changed or deleted, and a split or
//! merged parent's `.regioninfo` marked `SPLIT` / `MERGED` once the change is committed,
//! and a disabled table's [`DISABLED_MARKER`] in its folder while it is disabled.
//! (Region servers write `.tableinfo` and `.regioninfo` as regions open.) All best effort:
//! a failure is logged and changes nothing else.

use crate::master::Master;
use basalt_db::meta::{folder_info, namespace_info, record::RegionRecord};
use basalt_types::NamespaceDescriptor;

/// In a table's folder while the table is disabled, so that `rebuild-meta` brings it back
/// disabled (its state otherwise lives only in the catalog).
pub const DISABLED_MARKER: &str = ".disabled";

impl Master {
    /// Marks a disabled table's folder, or clears the mark once it is enabled again.
    pub async fn describe_table_state(&self, table: &basalt_types::TableName, enabled: bool) {
        let dir = self.table_dir(table);
        self.on_store(move |fs, _| {
            let marker = dir.join(DISABLED_MARKER);
            let done = match enabled {
                true => match fs.remove_file(&marker) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                    other => other,
                },
                false => basalt_storage::fs::write_atomic(fs, &marker, b"disabled\n"),
            };
            if let Err(e) = done {
                tracing::warn!(file = %marker.display(), error = %e,
                    "could not record the table's state on the store (rebuild-meta would bring it back enabled)");
            }
        })
        .await;
    }

    /// Runs `write` on the store off the async threads; a failure to run it is logged.
    async fn on_store(
        &self,
        write: impl FnOnce(&dyn basalt_storage::fs::FileSystem, &std::path::Path) + Send + 'static,
    ) {
        let (fs, root) = (self.fs.clone(), self.config.store_root.clone());
        if let Err(e) = tokio::task::spawn_blocking(move || write(fs.as_ref(), &root)).await {
            tracing::warn!(error = %e, "could not describe a catalog change on the store");
        }
    }

    /// Writes (or rewrites) the namespaces' files.
    pub async fn describe_namespaces(&self, namespaces: Vec<NamespaceDescriptor>) {
        self.on_store(move |fs, root| {
            for ns in &namespaces {
                namespace_info::ensure_on(fs, root, ns);
            }
        })
        .await;
    }

    /// Removes a deleted namespace's file.
    pub async fn forget_namespace(&self, name: &str) {
        let name = name.to_string();
        self.on_store(move |fs, root| namespace_info::remove_on(fs, root, &name))
            .await;
    }

    /// Rewrites the `.regioninfo` of regions whose state changed (retired parents).
    pub async fn describe_regions(&self, records: Vec<RegionRecord>) {
        let dirs: Vec<_> = records
            .iter()
            .map(|r| self.table_dir(&r.table).join(&r.encoded_name))
            .collect();
        self.on_store(move |fs, _| {
            for (dir, record) in dirs.iter().zip(&records) {
                folder_info::ensure_record_on(fs, dir, record);
            }
        })
        .await;
    }
}
