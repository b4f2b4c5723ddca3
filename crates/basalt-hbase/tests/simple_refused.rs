//! With authentication required (`refuse_simple`), a connection whose preamble names
//! SIMPLE — what every unmodified HBase client sends, a user name merely asserted — gets
//! HBase's `AccessDeniedException: Authentication is required` as a fatal answer (call id
//! -1) and is closed, over a real socket, before any call is read; without it nothing
//! changes.

use crate::support;

use basalt_hbase::HbaseConfig;
use std::io::{Read, Write};
use std::time::Duration;
use support::{create_table, Client};

#[test]
fn with_authentication_required_a_simple_preamble_is_refused_and_closed() {
    let s = support::server(HbaseConfig {
        refuse_simple: true,
        ..HbaseConfig::default()
    });
    let mut stream = Client::raw(&s.server);
    // The preamble, then a connection header and a call the server must never read.
    stream
        .write_all(b"HBas\x00\x50")
        .expect("send the preamble");
    let (header, _) = Client::read_answer(&mut stream).expect("a fatal answer");
    let exception = header.exception.expect("an exception");
    assert_eq!(
        exception.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    assert_eq!(
        exception
            .stack_trace
            .as_deref()
            .map(|t| t.contains("Authentication is required")),
        Some(true),
        "{exception:?}"
    );
    assert_eq!(header.call_id, Some(u32::MAX), "call id -1");
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .expect("timeout");
    let mut rest = Vec::new();
    let read = stream.read_to_end(&mut rest);
    assert!(
        matches!(read, Ok(0)) || read.is_err(),
        "closed after the answer: {read:?}"
    );
}

#[test]
fn without_authentication_required_simple_is_served() {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[]);
    let mut client = Client::connect(&s.server, "ClientService");
    assert_eq!(support::regions(&mut client, "t").len(), 1);
}
