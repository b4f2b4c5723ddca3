//! HBase's server name: `host,port,startcode`, the start code being the server's start time
//! in ms, so a restarted server on the same address is a new server.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServerName {
    pub host: String,
    pub port: u16,
    pub start_code: i64,
}

impl ServerName {
    /// `host,port,startcode`; `None` when it is not one.
    pub fn parse(name: &str) -> Option<Self> {
        let mut parts = name.split(',');
        let host = parts.next()?.to_string();
        let port = parts.next()?.parse().ok()?;
        let start_code = parts.next()?.parse().ok()?;
        if parts.next().is_some() || host.is_empty() {
            return None;
        }
        Some(Self {
            host,
            port,
            start_code,
        })
    }

    /// `host:port`, where its RPC listens.
    pub fn address(&self) -> String {
        match self.host.contains(':') {
            true => format!("[{}]:{}", self.host, self.port),
            false => format!("{}:{}", self.host, self.port),
        }
    }
}

impl fmt::Display for ServerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.host, self.port, self.start_code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_ones_are_refused() {
        let name = ServerName::parse("127.0.0.2,16020,1700000000000").expect("parses");
        assert_eq!(name.address(), "127.0.0.2:16020");
        assert_eq!(name.to_string(), "127.0.0.2,16020,1700000000000");
        for bad in ["", "h", "h,1", "h,x,1", "h,1,2,3", ",1,2"] {
            assert_eq!(ServerName::parse(bad), None, "{bad}");
        }
    }
}
