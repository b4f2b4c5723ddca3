//! The planner's input and output, both plain data.
//!
//! A [`ClusterView`] lists the live region servers and every region with the server it is
//! open on. A region whose server is not in `servers` is on a dead (or unknown) server.
//! Names identify: a server is `host,port,startcode`, a region its encoded name. When a
//! name appears twice the first entry counts and the others are ignored.
//!
//! Request counts are the load of the last period. A server's load is its own count, which
//! includes its regions'; the part not explained by the regions it holds in the view stays
//! with it when regions move ([`ClusterView::apply`] moves each region's count with it).

use std::fmt;

/// A live region server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerView {
    /// `host,port,startcode`.
    pub name: String,
    /// False while the server drains or stops: it gets no region.
    pub accepting: bool,
    /// Requests served in the last period.
    pub requests: u64,
}

/// A region and where it is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionView {
    /// The encoded region name.
    pub encoded: String,
    /// The table's name (with its namespace when not `default`).
    pub table: String,
    /// The server it is open on; `None` when it is on none.
    pub server: Option<String>,
    /// Requests served in the last period.
    pub requests: u64,
}

/// What the planner knows of the cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterView {
    pub servers: Vec<ServerView>,
    pub regions: Vec<RegionView>,
}

/// One thing the master should do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Open `region`, which no live server holds, on `server`.
    Assign { region: String, server: String },
    /// Close `region` on `from` and open it on `to`.
    Move {
        region: String,
        from: String,
        to: String,
    },
}

impl Decision {
    /// The encoded name of the region the decision is about.
    pub fn region(&self) -> &str {
        match self {
            Self::Assign { region, .. } | Self::Move { region, .. } => region,
        }
    }

    /// The server the region ends on.
    pub fn target(&self) -> &str {
        match self {
            Self::Assign { server, .. } => server,
            Self::Move { to, .. } => to,
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Assign { region, server } => write!(f, "assign {region} -> {server}"),
            Self::Move { region, from, to } => write!(f, "move {region}: {from} -> {to}"),
        }
    }
}

impl ClusterView {
    /// The live server named `name`, if any.
    pub fn server(&self, name: &str) -> Option<&ServerView> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// Plays `decisions` on the view as if the master had carried them out: each region
    /// named ends on the decision's target, and its request count moves with it from the
    /// server it leaves (if live) to the one it joins. A decision naming an unknown region
    /// or a server not in the view changes nothing.
    pub fn apply(&mut self, decisions: &[Decision]) {
        for decision in decisions {
            let target = decision.target();
            if self.server(target).is_none() {
                continue;
            }
            let Some(region) = self
                .regions
                .iter_mut()
                .find(|r| r.encoded == decision.region())
            else {
                continue;
            };
            let requests = region.requests;
            let from = region.server.replace(target.to_string());
            if let Some(server) = self
                .servers
                .iter_mut()
                .find(|s| Some(&s.name) == from.as_ref())
            {
                server.requests = server.requests.saturating_sub(requests);
            }
            if let Some(server) = self.servers.iter_mut().find(|s| s.name == target) {
                server.requests = server.requests.saturating_add(requests);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, requests: u64) -> ServerView {
        ServerView {
            name: name.to_string(),
            accepting: true,
            requests,
        }
    }

    fn region(encoded: &str, server: Option<&str>, requests: u64) -> RegionView {
        RegionView {
            encoded: encoded.to_string(),
            table: "t".to_string(),
            server: server.map(str::to_string),
            requests,
        }
    }

    #[test]
    fn apply_moves_regions_and_their_requests() {
        let mut view = ClusterView {
            servers: vec![server("a", 100), server("b", 5)],
            regions: vec![region("r1", Some("a"), 60), region("r2", None, 7)],
        };
        view.apply(&[
            Decision::Move {
                region: "r1".into(),
                from: "a".into(),
                to: "b".into(),
            },
            Decision::Assign {
                region: "r2".into(),
                server: "a".into(),
            },
            // Unknown region, unknown server: nothing happens.
            Decision::Assign {
                region: "r9".into(),
                server: "a".into(),
            },
            Decision::Assign {
                region: "r2".into(),
                server: "gone".into(),
            },
        ]);
        assert_eq!(view.regions[0].server.as_deref(), Some("b"));
        assert_eq!(view.regions[1].server.as_deref(), Some("a"));
        assert_eq!(
            (view.servers[0].requests, view.servers[1].requests),
            (47, 65)
        );
    }

    #[test]
    fn decisions_read_as_the_golden_files_write_them() {
        let assign = Decision::Assign {
            region: "r1".into(),
            server: "a,1,1".into(),
        };
        let moved = Decision::Move {
            region: "r2".into(),
            from: "a,1,1".into(),
            to: "b,1,1".into(),
        };
        assert_eq!(assign.to_string(), "assign r1 -> a,1,1");
        assert_eq!(moved.to_string(), "move r2: a,1,1 -> b,1,1");
        assert_eq!((moved.region(), moved.target()), ("r2", "b,1,1"));
    }
}
