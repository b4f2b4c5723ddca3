//! The server's CPU time around each `basalt pe --connect` phase, so a run reports
//! operations per server CPU-second (the client's CPU excluded) beside operations per
//! second.
//!
//! It is read from the server's Prometheus `/metrics` (`process_cpu_seconds_total`, which
//! every Basalt server's web port exposes): `--server-metrics URL`, else port 16010 (the web
//! port's default) on the host of the first `--connect` address. A plain HTTP/1.0 GET on a
//! socket: no HTTP client crate for one line of text. A server whose metrics cannot be read
//! leaves the figure out of the report, with the reason.
//!
//! | `--connect`               | `--server-metrics`          | read from                          |
//! |---------------------------|-----------------------------|------------------------------------|
//! | `db1:16000`               | none                        | `http://db1:16010/metrics`         |
//! | `db1:16000,db2:16000`     | none                        | `http://db1:16010/metrics`         |
//! | `[::1]:16000`             | none                        | `http://[::1]:16010/metrics`       |
//! | any                       | `http://127.0.0.1:9/metrics`| `http://127.0.0.1:9/metrics`       |

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The web port a server's `/metrics` is on when not told.
const WEB_PORT_DEFAULT: u16 = 16010;
/// How long one read of the metrics may take.
const TIMEOUT: Duration = Duration::from_secs(5);
/// The most of a metrics page read.
const BODY_MAX_BYTES: u64 = 16 << 20;
const SAMPLE: &str = "process_cpu_seconds_total";

/// Where the server's metrics are read (see the module's table).
pub fn metrics_url(connect: &str, asked: Option<&str>) -> String {
    if let Some(url) = asked {
        return url.to_string();
    }
    let first = connect.split(',').next().unwrap_or(connect).trim();
    let host = match first.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => first,
    };
    format!("http://{host}:{WEB_PORT_DEFAULT}/metrics")
}

/// The server's CPU seconds so far, read from its metrics at `url`.
pub fn read(url: &str) -> Result<f64, String> {
    let (authority, path) = split_url(url)?;
    let addr = authority
        .to_socket_addrs()
        .map_err(|e| format!("{url}: cannot resolve {authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{url}: {authority} has no address"))?;
    let mut stream = TcpStream::connect_timeout(&addr, TIMEOUT)
        .map_err(|e| format!("{url}: cannot connect: {e}"))?;
    let io = |e: std::io::Error| format!("{url}: {e}");
    stream.set_read_timeout(Some(TIMEOUT)).map_err(io)?;
    stream.set_write_timeout(Some(TIMEOUT)).map_err(io)?;
    let request = format!("GET {path} HTTP/1.0\r\nHost: {authority}\r\nAccept: text/plain\r\n\r\n");
    stream.write_all(request.as_bytes()).map_err(io)?;
    let mut response = String::new();
    stream
        .take(BODY_MAX_BYTES)
        .read_to_string(&mut response)
        .map_err(io)?;
    cpu_seconds_in(&response).map_err(|why| format!("{url}: {why}"))
}

/// `(host:port, path)` of an `http://` URL.
fn split_url(url: &str) -> Result<(&str, &str), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: only http:// metrics URLs are read"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/metrics"),
    };
    if authority.is_empty() {
        return Err(format!("{url}: no host"));
    }
    Ok((authority, path))
}

/// The `process_cpu_seconds_total` sample of an HTTP response holding a metrics page.
fn cpu_seconds_in(response: &str) -> Result<f64, String> {
    let status = response.lines().next().unwrap_or_default();
    if status.split_whitespace().nth(1) != Some("200") {
        return Err(format!("answered {status:?}"));
    }
    let (_, body) = response
        .split_once("\r\n\r\n")
        .ok_or("the response has no body")?;
    let value = body
        .lines()
        .find_map(|line| line.strip_prefix(SAMPLE)?.strip_prefix(' '))
        .ok_or_else(|| format!("no {SAMPLE} in the metrics (a server older than this client?)"))?;
    value
        .trim()
        .parse()
        .map_err(|_| format!("{SAMPLE} is not a number: {value:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metrics_url_follows_the_module_table() {
        let cases = [
            ("db1:16000", None, "http://db1:16010/metrics"),
            ("db1:16000,db2:16000", None, "http://db1:16010/metrics"),
            ("[::1]:16000", None, "http://[::1]:16010/metrics"),
            ("db1", None, "http://db1:16010/metrics"),
            (
                "x:1",
                Some("http://127.0.0.1:9/metrics"),
                "http://127.0.0.1:9/metrics",
            ),
        ];
        for (connect, asked, expected) in cases {
            assert_eq!(metrics_url(connect, asked), expected, "{connect}");
        }
    }

    #[test]
    fn urls_split_into_authority_and_path() {
        assert_eq!(split_url("http://h:1/metrics"), Ok(("h:1", "/metrics")));
        assert_eq!(split_url("http://h:1"), Ok(("h:1", "/metrics")));
        assert!(split_url("https://h:1/metrics").is_err());
        assert!(split_url("http:///metrics").is_err());
    }

    #[test]
    fn the_cpu_sample_is_found_in_a_metrics_page() {
        let page = "HTTP/1.0 200 OK\r\ncontent-type: text/plain\r\n\r\n\
                    # TYPE process_cpu_seconds_total counter\n\
                    process_cpu_seconds_total_other 9\n\
                    process_cpu_seconds_total 12.5\n";
        assert_eq!(cpu_seconds_in(page), Ok(12.5));
    }

    #[test]
    fn a_refusal_or_a_page_without_the_sample_says_why() {
        let denied = cpu_seconds_in("HTTP/1.0 401 Unauthorized\r\n\r\n").expect_err("401");
        assert!(denied.contains("401"), "{denied}");
        let old = cpu_seconds_in("HTTP/1.0 200 OK\r\n\r\nbasalt_uptime_seconds 3\n")
            .expect_err("no sample");
        assert!(old.contains("no process_cpu_seconds_total"), "{old}");
    }
}
