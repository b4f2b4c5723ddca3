//! One rule for every listener of every command: loopback unless told, and never open to
//! the network unauthenticated by accident.
//!
//! A pure decision over the listeners a command is about to open. A listener that does
//! not authenticate its callers (or one that could, with authentication off) may bind a
//! non-loopback address only with `--insecure`, which is then warned about on every start:
//!
//! | address | listener authenticates and auth required | --insecure | decision |
//! |---|---|---|---|
//! | loopback (`127.x`, `::1`, `localhost`) | any | any | open |
//! | other | yes | any | open |
//! | other | no | no | refuse, naming the setting |
//! | other | no | yes | open, with a warning |

/// One listener a command is about to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listener {
    /// What it is ("gRPC", "Thrift", "web UI").
    pub name: &'static str,
    /// The flag or file setting that placed it ("--bind", "[thrift] bind").
    pub setting: &'static str,
    pub addr: String,
    /// Whether it checks credentials when authentication is required (gRPC, REST, web UI,
    /// Thrift; the separate `basalt rest`/`basalt thrift` too, passing them to their server).
    pub authenticates: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Open,
    /// Open, warning of these listeners (reachable without authentication).
    Warn(Vec<String>),
    /// Refused: the message names each listener and its setting.
    Refuse(String),
}

pub fn is_loopback(addr: &str) -> bool {
    let host = addr.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Decides whether `listeners` may open.
pub fn decide(listeners: &[Listener], auth_required: bool, insecure: bool) -> Decision {
    let exposed: Vec<String> = listeners
        .iter()
        .filter(|l| {
            let checked = l.authenticates && auth_required;
            !(is_loopback(&l.addr) || checked)
        })
        .map(|l| format!("{} on {} ({})", l.name, l.addr, l.setting))
        .collect();
    match (exposed.is_empty(), insecure) {
        (true, _) => Decision::Open,
        (false, true) => Decision::Warn(exposed),
        (false, false) => {
            let hint = match auth_required {
                true => "these listeners do not authenticate yet: keep them on loopback, turn them off, or pass --insecure",
                false => "turn authentication on (--auth, or [security] auth = \"required\" in the config file), keep them on loopback, or pass --insecure",
            };
            Decision::Refuse(format!(
                "refusing to listen beyond loopback without authentication: {}; anyone who reaches them could read and change every table. {hint}",
                exposed.join(", ")
            ))
        }
    }
}

/// The authenticating listeners beyond loopback whose passwords would travel in clear
/// (authentication required, no TLS): they still open, with a warning each.
pub fn clear_passwords(listeners: &[Listener], auth_required: bool, tls: bool) -> Vec<String> {
    if !auth_required || tls {
        return Vec::new();
    }
    listeners
        .iter()
        .filter(|l| l.authenticates && !is_loopback(&l.addr))
        .map(|l| format!("{} on {} ({})", l.name, l.addr, l.setting))
        .collect()
}

/// Logs [`clear_passwords`]'s listeners.
pub fn warn_clear_passwords(listeners: &[Listener], auth_required: bool, tls: bool) {
    for l in clear_passwords(listeners, auth_required, tls) {
        tracing::warn!(listener = %l, "listening beyond loopback with authentication but WITHOUT TLS: passwords and tokens travel in clear; set [security] tls_cert_file and tls_key_file");
    }
}

/// Carries out [`decide`]: an error to exit with, or warnings logged.
pub fn enforce(
    listeners: &[Listener],
    auth_required: bool,
    insecure: bool,
) -> Result<(), crate::CliError> {
    match decide(listeners, auth_required, insecure) {
        Decision::Open => Ok(()),
        Decision::Warn(exposed) => {
            for l in exposed {
                tracing::warn!(listener = %l, "listening beyond loopback WITHOUT authentication (--insecure): anyone who reaches it can read and change every table");
            }
            Ok(())
        }
        Decision::Refuse(message) => Err(crate::CliError::Cluster(message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(name: &'static str, addr: &str, authenticates: bool) -> Listener {
        Listener {
            name,
            setting: "--bind",
            addr: addr.into(),
            authenticates,
        }
    }

    #[test]
    fn passwords_in_clear_are_warned_of_beyond_loopback_without_tls() {
        let ls = [
            l("gRPC", "0.0.0.0", true),
            l("REST", "127.0.0.1", true),
            l("Thrift", "10.0.0.1", false),
        ];
        assert_eq!(
            clear_passwords(&ls, true, false),
            vec!["gRPC on 0.0.0.0 (--bind)".to_string()]
        );
        assert!(clear_passwords(&ls, true, true).is_empty(), "TLS");
        assert!(clear_passwords(&ls, false, false).is_empty(), "no auth");
    }

    /// The table of the module doc, row by row.
    #[test]
    fn decisions_follow_the_table() {
        let grpc_lo = [l("gRPC", "127.0.0.1", true)];
        let grpc_any = [l("gRPC", "0.0.0.0", true)];
        let thrift_any = [l("Thrift", "0.0.0.0", false)];
        for (listeners, auth, insecure, open) in [
            (&grpc_lo[..], false, false, true),
            (&[l("x", "::1", false)][..], false, false, true),
            (&[l("x", "localhost", false)][..], false, false, true),
            (&grpc_any[..], true, false, true),
            (&grpc_any[..], false, false, false),
            (&thrift_any[..], true, false, false),
            (&thrift_any[..], true, true, true),
            (&grpc_any[..], false, true, true),
        ] {
            let d = decide(listeners, auth, insecure);
            assert_eq!(
                !matches!(d, Decision::Refuse(_)),
                open,
                "{listeners:?} auth={auth} insecure={insecure}: {d:?}"
            );
        }
        assert!(matches!(decide(&grpc_any, false, true), Decision::Warn(w) if w.len() == 1));
    }

    #[test]
    fn a_refusal_names_each_exposed_listener_and_the_settings() {
        let listeners = [
            l("gRPC", "0.0.0.0", true),
            Listener {
                name: "REST",
                setting: "[rest] bind",
                addr: "10.1.2.3".into(),
                authenticates: false,
            },
            l("web UI", "127.0.0.1", false),
        ];
        let Decision::Refuse(message) = decide(&listeners, false, false) else {
            panic!("refused")
        };
        assert!(message.contains("gRPC on 0.0.0.0 (--bind)"), "{message}");
        assert!(
            message.contains("REST on 10.1.2.3 ([rest] bind)"),
            "{message}"
        );
        assert!(!message.contains("web UI"), "{message}");
        assert!(message.contains("--auth"), "{message}");
        assert!(message.contains("--insecure"), "{message}");
    }
}
