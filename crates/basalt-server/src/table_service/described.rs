//! What the slow log says of each data call, taken from its request before it runs: the
//! table, the region the client named, a row (to locate the region when it named none)
//! and a short `param` in HBase's spirit (`Get row=r1`, `Multi actions=120 (put row=r7 …)`).
//! Rows are printed as the HBase shell prints them (`\x00`).

use basalt_proto::pb;
use basalt_proto::pb::{action, mutation};
use bytes::Bytes;

/// The parts of a call the slow log keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Described {
    pub table: String,
    pub region: String,
    pub row: Option<Bytes>,
    pub param: String,
}

fn table(t: Option<&pb::TableName>) -> String {
    match t {
        Some(t) if t.namespace.is_empty() || t.namespace == "default" => t.qualifier.clone(),
        Some(t) => format!("{}:{}", t.namespace, t.qualifier),
        None => String::new(),
    }
}

fn row(r: &[u8]) -> String {
    basalt_types::escape::to_string_binary(r)
}

fn mutation(m: Option<&pb::Mutation>) -> (&'static str, Bytes) {
    match m.and_then(|m| m.kind.as_ref()) {
        Some(mutation::Kind::Put(p)) => ("put", p.row.clone()),
        Some(mutation::Kind::Delete(d)) => ("delete", d.row.clone()),
        Some(mutation::Kind::Increment(i)) => ("increment", i.row.clone()),
        Some(mutation::Kind::Append(a)) => ("append", a.row.clone()),
        None => ("none", Bytes::new()),
    }
}

fn action(a: &pb::Action) -> (&'static str, Bytes) {
    match a.kind.as_ref() {
        Some(action::Kind::Get(g)) => ("get", g.row.clone()),
        Some(action::Kind::Put(p)) => ("put", p.row.clone()),
        Some(action::Kind::Delete(d)) => ("delete", d.row.clone()),
        Some(action::Kind::Increment(i)) => ("increment", i.row.clone()),
        Some(action::Kind::Append(x)) => ("append", x.row.clone()),
        Some(action::Kind::RowMutations(m)) => ("row_mutations", m.row.clone()),
        Some(action::Kind::CheckAndMutate(c)) => ("check_and_mutate", c.row.clone()),
        None => ("none", Bytes::new()),
    }
}

pub fn get(r: &pb::GetRequest) -> Described {
    let key = r.get.as_ref().map(|g| g.row.clone()).unwrap_or_default();
    Described {
        table: table(r.table.as_ref()),
        region: r.region.clone(),
        param: format!("get row={}", row(&key)),
        row: Some(key),
    }
}

pub fn multi_get(r: &pb::MultiGetRequest) -> Described {
    let first = r.gets.first().map(|g| g.row.clone());
    Described {
        table: table(r.table.as_ref()),
        region: String::new(),
        param: format!(
            "gets={} first row={}",
            r.gets.len(),
            row(first.as_deref().unwrap_or_default())
        ),
        row: first,
    }
}

pub fn mutate(r: &pb::MutateRequest) -> Described {
    let (kind, key) = mutation(r.mutation.as_ref());
    Described {
        table: table(r.table.as_ref()),
        region: r.region.clone(),
        param: format!("{kind} row={}", row(&key)),
        row: Some(key),
    }
}

pub fn mutate_many(r: &pb::MutateManyRequest) -> Described {
    let (kind, count, first) = match r.puts.first() {
        Some(p) => ("puts", r.puts.len(), p.row.clone()),
        None => (
            "deletes",
            r.deletes.len(),
            r.deletes.first().map(|d| d.row.clone()).unwrap_or_default(),
        ),
    };
    Described {
        table: table(r.table.as_ref()),
        region: String::new(),
        param: format!("{kind}={count} first row={}", row(&first)),
        row: Some(first),
    }
}

pub fn check_and_mutate(r: &pb::CheckAndMutateRequest) -> Described {
    let key = r.check.as_ref().map(|c| c.row.clone()).unwrap_or_default();
    Described {
        table: table(r.table.as_ref()),
        region: r.region.clone(),
        param: format!("check_and_mutate row={}", row(&key)),
        row: Some(key),
    }
}

pub fn mutate_row(r: &pb::MutateRowRequest) -> Described {
    let key = r
        .mutations
        .as_ref()
        .map(|m| m.row.clone())
        .unwrap_or_default();
    let count = r.mutations.as_ref().map_or(0, |m| m.mutations.len());
    Described {
        table: table(r.table.as_ref()),
        region: r.region.clone(),
        param: format!("mutate_row row={} mutations={count}", row(&key)),
        row: Some(key),
    }
}

pub fn batch(r: &pb::BatchRequest) -> Described {
    let first = r.actions.first().map(action);
    let mut param = format!("actions={}", r.actions.len());
    if let Some((kind, key)) = &first {
        param.push_str(&format!(" first {kind} row={}", row(key)));
    }
    Described {
        table: table(r.table.as_ref()),
        region: String::new(),
        param,
        row: first.map(|(_, key)| key),
    }
}

pub fn open_scanner(r: &pb::OpenScannerRequest) -> Described {
    let (start, stop) = r
        .scan
        .as_ref()
        .map(|s| (s.start_row.clone(), s.stop_row.clone()))
        .unwrap_or_default();
    Described {
        table: table(r.table.as_ref()),
        region: r.region.clone(),
        param: format!("scan start_row={} stop_row={}", row(&start), row(&stop)),
        row: Some(start),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(ns: &str, q: &str) -> Option<pb::TableName> {
        Some(pb::TableName {
            namespace: ns.into(),
            qualifier: q.into(),
        })
    }

    #[test]
    fn a_get_names_its_table_region_and_row() {
        let d = get(&pb::GetRequest {
            table: name("default", "t1"),
            get: Some(pb::Get {
                row: Bytes::from_static(b"r\x001"),
                ..pb::Get::default()
            }),
            region: "abc".into(),
        });
        assert_eq!(d.table, "t1");
        assert_eq!(d.region, "abc");
        assert_eq!(d.param, "get row=r\\x001");
    }

    #[test]
    fn a_batch_counts_its_actions_and_names_the_first() {
        let put = pb::Action {
            kind: Some(action::Kind::Put(pb::Put {
                row: Bytes::from_static(b"r7"),
                ..pb::Put::default()
            })),
            nonce: 0,
        };
        let d = batch(&pb::BatchRequest {
            table: name("ns", "t"),
            actions: vec![put.clone(), put],
            nonce_group: 0,
        });
        assert_eq!(d.table, "ns:t");
        assert_eq!(d.param, "actions=2 first put row=r7");
        assert_eq!(d.row.as_deref(), Some(&b"r7"[..]));
    }
}
