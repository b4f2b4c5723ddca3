//! The load per region server, for a master's page: each server's regions (as last
//! sampled), its read and write rates over the hot-spot window (the sum of its regions'),
//! and the hot regions it holds, from every table's hot-spot findings. A master samples its
//! region servers' reports (see `remote::master`), so this is the cluster's load by server.

use super::metrics::{findings, rates};
use super::Heat;
use basalt_api::hotspot::Finding;
use basalt_types::TableName;
use bytes::Bytes;
use std::collections::{BTreeMap, HashMap};

/// One server's load over the window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerLoad {
    pub server: String,
    pub regions: usize,
    pub reads_per_second: f64,
    pub writes_per_second: f64,
    pub hot: Vec<HotRegion>,
}

/// A hot region a server holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotRegion {
    pub table: TableName,
    pub encoded_name: String,
    pub start_key: Bytes,
    pub percent: u32,
    pub cause: &'static str,
}

/// Every server holding a region now, by name.
pub fn server_loads(heat: &Heat) -> Vec<ServerLoad> {
    let (servers, current): (HashMap<String, String>, Vec<String>) = heat.with_ring(|ring| {
        let servers = ring
            .regions()
            .map(|e| (e.reading.encoded_name.clone(), e.reading.server.clone()))
            .collect();
        let current = ring
            .regions()
            .filter(|e| e.current)
            .map(|e| e.reading.server.clone())
            .collect();
        (servers, current)
    });
    let mut loads: BTreeMap<String, ServerLoad> = BTreeMap::new();
    for server in current {
        let load = loads.entry(server.clone()).or_insert_with(|| ServerLoad {
            server,
            ..ServerLoad::default()
        });
        load.regions += 1;
    }
    // A split parent's past counts for the server that held it, if it holds regions now.
    for (_, encoded, rates) in rates(heat) {
        if let Some(load) = servers.get(&encoded).and_then(|s| loads.get_mut(s)) {
            load.reads_per_second += rates[0];
            load.writes_per_second += rates[1];
        }
    }
    for (table, found) in findings(heat) {
        for finding in found {
            let Finding::HotRegion {
                encoded_name,
                start_key,
                percent,
                cause,
            } = finding
            else {
                continue;
            };
            if let Some(load) = servers.get(&encoded_name).and_then(|s| loads.get_mut(s)) {
                load.hot.push(HotRegion {
                    table: table.clone(),
                    encoded_name,
                    start_key,
                    percent,
                    cause: cause.name(),
                });
            }
        }
    }
    loads.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heat::ring::RegionReading;
    use crate::heat::HeatConfig;
    use std::time::{Duration, SystemTime};

    fn reading(name: &str, start: &str, server: &str, writes: u64, reads: u64) -> RegionReading {
        RegionReading {
            start_key: Bytes::copy_from_slice(start.as_bytes()),
            writes,
            reads,
            server: server.to_string(),
            ..RegionReading::new(TableName::parse("t").expect("valid"), name)
        }
    }

    #[test]
    fn each_server_sums_its_regions_and_names_its_hot_ones() {
        let heat = Heat::new(HeatConfig::default());
        let at = |s| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
        let t = |w: u64| {
            vec![
                reading("a", "", "rs1", 0, 10 * w),
                reading("b", "g", "rs1", 0, 0),
                reading("c", "p", "rs2", 200 * w, 0),
            ]
        };
        heat.record(at(0), t(0));
        heat.record(at(10), t(1));
        let loads = server_loads(&heat);
        assert_eq!(loads.len(), 2);
        assert_eq!((loads[0].server.as_str(), loads[0].regions), ("rs1", 2));
        assert_eq!(loads[0].reads_per_second, 1.0);
        assert!(loads[0].hot.is_empty());
        assert_eq!((loads[1].server.as_str(), loads[1].regions), ("rs2", 1));
        assert_eq!(loads[1].writes_per_second, 20.0);
        assert_eq!(loads[1].hot.len(), 1);
        assert_eq!(loads[1].hot[0].encoded_name, "c");
        assert_eq!(loads[1].hot[0].percent, 100);
    }
}
