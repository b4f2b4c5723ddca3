//! Reading the store alone: what `rebuild-meta` knows of the cluster without its catalog.
//!
//! ```text
//! namespaces/<name>.nsinfo                   a namespace and its properties
//! data/<ns>/<table>/.tableinfo               a table's descriptor
//! data/<ns>/<table>/<region>/.regioninfo     a region: table, id, key range, state
//! wal/<server>/                              a region server's log (edits maybe unflushed)
//! ```
//! Nothing is changed on the store; what cannot be read is returned as such, for the plan
//! to report.

use basalt_db::meta::{folder_info, namespace_info, record::RegionRecord};
use basalt_storage::fs::FileSystem;
use basalt_types::{NamespaceDescriptor, TableDescriptor, TableName};
use std::path::Path;

/// A region folder and what its `.regioninfo` says (or why it cannot be read).
#[derive(Debug, Clone)]
pub struct FoundRegion {
    pub folder: String,
    pub record: Result<RegionRecord, String>,
}

/// A table folder: its descriptor (or why it cannot be read) and its region folders.
#[derive(Debug, Clone)]
pub struct FoundTable {
    pub name: TableName,
    pub descriptor: Result<TableDescriptor, String>,
    pub regions: Vec<FoundRegion>,
    /// Its folder holds the master's disabled marker.
    pub disabled: bool,
}

/// Everything read from the store.
#[derive(Debug, Clone, Default)]
pub struct StoreScan {
    pub namespaces: Vec<NamespaceDescriptor>,
    pub tables: Vec<FoundTable>,
    /// Region servers whose log folder (`wal/<server>/`) holds logs.
    pub logs: Vec<String>,
    /// What could not be read or understood, for the report.
    pub unreadable: Vec<String>,
}

fn list(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<String>, String> {
    fs.list(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))
}

/// Whether `name` is a region server's name (`host,port,startcode`) a log can be read for.
pub fn is_server_name(name: &str) -> bool {
    name.contains(',') && !name.contains(['/', '\\']) && !name.starts_with('.')
}

/// Reads the store under `root`; `progress` hears of each table as it is read. Fails only
/// when `data/` itself cannot be listed.
pub fn scan(
    fs: &dyn FileSystem,
    root: &Path,
    progress: &mut dyn FnMut(&FoundTable),
) -> Result<StoreScan, String> {
    let mut out = StoreScan::default();
    match namespace_info::read_all_on(fs, root) {
        Ok(found) => {
            for ns in found {
                match ns {
                    Ok(ns) => out.namespaces.push(ns),
                    Err(e) => out.unreadable.push(e.to_string()),
                }
            }
        }
        Err(e) => out.unreadable.push(e.to_string()),
    }
    let data = root.join("data");
    for ns in list(fs, &data)? {
        for table in list(fs, &data.join(&ns))? {
            if ns == "hbase" && table == "meta" {
                continue;
            }
            let dir = data.join(&ns).join(&table);
            let Ok(name) = TableName::parse(&format!("{ns}:{table}")) else {
                out.unreadable
                    .push(format!("{}: not a table folder name", dir.display()));
                continue;
            };
            let found = read_table(fs, &dir, name)?;
            progress(&found);
            out.tables.push(found);
        }
    }
    let wal = root.join("wal");
    for server in list(fs, &wal)? {
        let held = list(fs, &wal.join(&server))?;
        if !held.iter().any(|n| n != "corrupt") {
            continue;
        }
        if is_server_name(&server) {
            out.logs.push(server);
        } else {
            out.unreadable.push(format!(
                "{}: not a region server's log folder (host,port,startcode); not replayed",
                wal.join(&server).display()
            ));
        }
    }
    Ok(out)
}

fn read_table(fs: &dyn FileSystem, dir: &Path, name: TableName) -> Result<FoundTable, String> {
    let descriptor = folder_info::read_table_info_on(fs, dir).map_err(|e| e.to_string());
    let mut regions = Vec::new();
    for folder in list(fs, dir)?.into_iter().filter(|n| !n.starts_with('.')) {
        let record =
            folder_info::read_region_info_on(fs, &dir.join(&folder)).map_err(|e| e.to_string());
        regions.push(FoundRegion { folder, record });
    }
    let disabled = fs
        .exists(&dir.join(crate::store_info::DISABLED_MARKER))
        .unwrap_or(false);
    Ok(FoundTable {
        name,
        descriptor,
        regions,
        disabled,
    })
}
