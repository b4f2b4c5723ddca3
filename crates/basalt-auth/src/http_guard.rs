//! What an HTTP listener (REST, the web UI) decides about a request before reading it: is
//! it addressed to a name this server serves (DNS rebinding), may a state-changing request
//! come from the page that sent it (cross-site requests), may it present a password over
//! this transport. Pure decisions over header text; the servers carry them out.
//!
//! | header | accepted when | otherwise |
//! |---|---|---|
//! | `Host` | absent (HTTP/1.0), an IP literal, or a served name | 421 |
//! | `Origin` on PUT/POST/DELETE/PATCH | absent, or `scheme://served-name[:our port]` | 403 |
//! | `Authorization: Basic` | the client is on loopback, or the transport is TLS | 401 |
//!
//! Served names: the bind address, `localhost`, `127.0.0.1`, `::1`, and the configured
//! `hosts`. A listener bound to every address (`0.0.0.0`, `::`) serves whatever name the
//! machine is reached by, so it takes any `Host`, and a state-changing request from a page
//! of the very origin the request is addressed to (its `Origin` naming the `Host` and this
//! port); such a bind needs authentication or `--insecure`, and a browser sends the
//! session cookie or password of a site only to that site, so a rebinding page holds none. A DNS-rebinding page reaches a loopback server under its own DNS name, so a
//! Host that is an IP literal is never a rebinding; an `Origin`, though, names the page
//! that sent a request, and an attacker's page may sit on any address, so an origin must
//! be one of the served names and this server's port.

use std::net::IpAddr;

/// The challenge a 401 carries.
pub const WWW_AUTHENTICATE: &str = "Basic realm=\"basalt\"";

/// The names a listener serves, lowercased, without ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedNames {
    names: Vec<String>,
    port: u16,
    /// Bound to every address: any name reaches it.
    any_host: bool,
}

/// Why a request was refused before it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The `Host` header names a server this is not (421 Misdirected Request).
    WrongHost(String),
    /// A state-changing request sent by a page of another site (403).
    CrossOrigin(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::WrongHost(host) => write!(
                f,
                "this server does not serve the host '{host}'; add it to the listener's hosts setting if it is one of this server's names"
            ),
            Refusal::CrossOrigin(origin) => write!(
                f,
                "a state-changing request from the page at '{origin}' is refused: it is not one of this server's origins"
            ),
        }
    }
}

/// The host part of `host[:port]` or `[v6]:port`, lowercased.
fn host_of(authority: &str) -> String {
    let authority = authority.trim();
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(rest),
        None if authority.matches(':').count() > 1 => authority,
        None => authority.split(':').next().unwrap_or(authority),
    };
    host.trim_end_matches('.').to_ascii_lowercase()
}

fn port_of(authority: &str) -> Option<u16> {
    let after = match authority.rfind(']') {
        Some(i) => &authority[i + 1..],
        None if authority.matches(':').count() > 1 => return None,
        None => authority,
    };
    after.rsplit_once(':').and_then(|(_, p)| p.parse().ok())
}

impl ServedNames {
    /// The names of a listener bound to `bind` on `port`, plus `hosts`.
    pub fn new(bind: &str, port: u16, hosts: &[String]) -> Self {
        let mut names: Vec<String> = ["localhost", "127.0.0.1", "::1"]
            .iter()
            .map(|s| s.to_string())
            .chain(std::iter::once(host_of(bind)))
            .chain(hosts.iter().map(|h| host_of(h)))
            .filter(|n| !n.is_empty())
            .collect();
        names.sort();
        names.dedup();
        let any_host = host_of(bind)
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_unspecified());
        Self {
            names,
            port,
            any_host,
        }
    }

    fn serves(&self, host: &str) -> bool {
        self.names.iter().any(|n| n == host)
    }

    /// Whether a request with this `Host` header is addressed to us.
    pub fn host(&self, header: Option<&str>) -> Result<(), Refusal> {
        let Some(header) = header else {
            return Ok(());
        };
        let host = host_of(header);
        if self.any_host && !host.is_empty() || host.parse::<IpAddr>().is_ok() || self.serves(&host)
        {
            Ok(())
        } else {
            Err(Refusal::WrongHost(header.to_string()))
        }
    }

    /// Whether a request of `method` with this `Origin` header (addressed to `host`, its
    /// `Host` header) may change state here.
    pub fn origin(
        &self,
        method: &str,
        header: Option<&str>,
        host: Option<&str>,
    ) -> Result<(), Refusal> {
        let safe = matches!(method, "GET" | "HEAD" | "OPTIONS");
        let Some(origin) = header.filter(|_| !safe) else {
            return Ok(());
        };
        let refused = || Refusal::CrossOrigin(origin.to_string());
        let (scheme, authority) = origin.split_once("://").ok_or_else(refused)?;
        let default_port = match scheme.to_ascii_lowercase().as_str() {
            "http" => 80,
            "https" => 443,
            _ => return Err(refused()),
        };
        let port = port_of(authority).unwrap_or(default_port);
        let named = host_of(authority);
        let same_origin = self.any_host && host.is_some_and(|h| host_of(h) == named);
        match (same_origin || self.serves(&named)) && port == self.port {
            true => Ok(()),
            false => Err(refused()),
        }
    }
}

/// Whether a password (`Basic`) may be accepted from `client`: only from loopback unless
/// the transport is encrypted, so a password never crosses a network in clear.
pub fn basic_allowed(client: IpAddr, encrypted: bool) -> bool {
    encrypted || client.is_loopback()
}

/// The refusal of a password sent in clear from another machine.
pub const BASIC_IN_CLEAR: &str = "a password (Basic) over plain HTTP is accepted only from loopback: use a token (Authorization: Bearer, from `basalt user token`), or TLS";

#[cfg(test)]
mod tests {
    use super::*;

    fn served() -> ServedNames {
        ServedNames::new("10.0.0.5", 8080, &["db.example.com".to_string()])
    }

    #[test]
    fn hosts_table() {
        let s = served();
        for (host, ok) in [
            (None, true),
            (Some("127.0.0.1:8080"), true),
            (Some("localhost:8080"), true),
            (Some("LOCALHOST"), true),
            (Some("[::1]:8080"), true),
            (Some("10.0.0.5:8080"), true),
            (Some("192.168.1.9:8080"), true),
            (Some("db.example.com:8080"), true),
            (Some("db.example.com."), true),
            (Some("evil.example:8080"), false),
            (Some("localhost.evil.example"), false),
            (Some(""), false),
        ] {
            assert_eq!(s.host(host).is_ok(), ok, "{host:?}");
        }
    }

    #[test]
    fn origins_table() {
        let s = served();
        for (method, origin, ok) in [
            ("PUT", None, true),
            ("GET", Some("http://evil.example"), true),
            ("PUT", Some("http://127.0.0.1:8080"), true),
            ("POST", Some("http://localhost:8080"), true),
            ("DELETE", Some("https://db.example.com:8080"), true),
            ("PUT", Some("http://127.0.0.1:3000"), false),
            ("PUT", Some("http://127.0.0.1"), false),
            ("PUT", Some("http://evil.example:8080"), false),
            ("POST", Some("http://192.168.1.9:8080"), false),
            ("POST", Some("null"), false),
            ("DELETE", Some("file://localhost:8080"), false),
        ] {
            let host = Some("evil.example:8080");
            assert_eq!(
                s.origin(method, origin, host).is_ok(),
                ok,
                "{method} {origin:?}"
            );
        }
        let on_80 = ServedNames::new("127.0.0.1", 80, &[]);
        assert!(on_80.origin("PUT", Some("http://localhost"), None).is_ok());
    }

    /// Bound to every address: any name reaches it, and a page of the origin a request is
    /// addressed to may change state; another origin may not.
    #[test]
    fn a_wildcard_bind_serves_any_name_and_its_own_origin() {
        for bind in ["0.0.0.0", "::", "[::]"] {
            let s = ServedNames::new(bind, 16010, &[]);
            assert!(s.host(Some("node7.example:16010")).is_ok(), "{bind}");
            assert!(s.host(Some("")).is_err(), "{bind}");
            let host = Some("node7.example:16010");
            assert!(s
                .origin("POST", Some("http://node7.example:16010"), host)
                .is_ok());
            assert!(s
                .origin("POST", Some("http://evil.example:16010"), host)
                .is_err());
            assert!(s
                .origin("POST", Some("http://node7.example:3000"), host)
                .is_err());
            assert!(s
                .origin("POST", Some("http://localhost:16010"), host)
                .is_ok());
        }
        let strict = ServedNames::new("127.0.0.1", 16010, &[]);
        assert!(strict.host(Some("node7.example:16010")).is_err());
        let host = Some("node7.example:16010");
        assert!(strict
            .origin("POST", Some("http://node7.example:16010"), host)
            .is_err());
    }

    #[test]
    fn passwords_in_clear_only_from_loopback() {
        let lo: IpAddr = "127.0.0.1".parse().expect("ip");
        let far: IpAddr = "10.1.2.3".parse().expect("ip");
        assert!(basic_allowed(lo, false));
        assert!(!basic_allowed(far, false));
        assert!(basic_allowed(far, true));
    }

    #[test]
    fn refusals_name_what_was_wrong() {
        let e = served().host(Some("evil.example")).expect_err("refused");
        assert!(e.to_string().contains("'evil.example'"), "{e}");
        let e = served()
            .origin("PUT", Some("http://evil.example"), None)
            .expect_err("refused");
        assert!(e.to_string().contains("http://evil.example"), "{e}");
    }
}
