//! Malformed and hostile requests: bad query strings, unknown pages, huge parameters,
//! garbage bytes. Each gets a 4xx (or a closed connection, for what is not HTTP) and the
//! server keeps serving.

use crate::support;

use support::Fixture;

fn assert_still_serving(f: &Fixture, after: &str) {
    let r = f.get("/");
    assert_eq!(r.status, 200, "the home page after {after}");
}

#[test]
fn bad_queries_and_unknown_pages_get_4xx_with_security_headers() {
    let f = Fixture::start();
    let long_query = format!("/?x={}", "a".repeat(5000));
    let long_start = format!("/table.jsp?name=web_t&start={}", "z".repeat(2000));
    let long_name = format!("/table.jsp?name={}", "n".repeat(600));
    let many_params = format!("/rs-status?{}", vec!["a=1"; 40].join("&"));
    let cases: Vec<(&str, u16)> = vec![
        ("/nope", 404),
        ("/static/../../etc/passwd", 404),
        ("/%ff%fe", 404),
        ("/table.jsp?name=%zz", 400),
        ("/table.jsp?name=%", 400),
        ("/table.jsp?name=%ff", 400),
        ("/table.jsp?name=", 400),
        ("/table.jsp?name=a:b:c", 400),
        ("/table.jsp?name=web_t&rows=abc", 400),
        ("/table.jsp?name=web_t&rows=-5", 400),
        ("/table.jsp?name=web_t&rows=99999999999999999999999", 400),
        ("/logs?level=%3Cscript%3E", 400),
        (&long_query, 414),
        (&long_start, 400),
        (&long_name, 400),
        (&many_params, 400),
    ];
    for (target, status) in cases {
        let r = f.get(target);
        let shown: String = target.chars().take(60).collect();
        assert_eq!(r.status, status, "{shown}: {}", r.body);
        r.assert_security_headers(&shown);
        assert!(!r.body.contains("<script"), "{shown}: escaped");
        assert_still_serving(&f, &shown);
    }
}

#[test]
fn wrong_methods_and_garbage_bytes_do_not_stop_the_server() {
    let f = Fixture::start();
    let post = f
        .raw(b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")
        .expect("a response");
    assert_eq!(post.status, 405);
    post.assert_security_headers("POST");
    let answered = |request: &[u8]| -> Option<u16> {
        let mut stream = std::net::TcpStream::connect(f.addr).expect("connect");
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(2)))
            .expect("timeout");
        use std::io::{Read, Write};
        let _ = stream.write_all(request);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let text = String::from_utf8_lossy(&answer);
        text.split(' ').nth(1).and_then(|s| s.parse::<u16>().ok())
    };
    let big_header = format!(
        "GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: {}\r\n\r\n",
        "h".repeat(200_000)
    );
    assert_eq!(answered(big_header.as_bytes()), Some(431));
    assert_still_serving(&f, "a 200 KB header");
    let long_path = format!(
        "GET /{} HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "p".repeat(100_000)
    );
    assert_eq!(answered(long_path.as_bytes()), Some(414));
    assert_still_serving(&f, "a 100 KB path");
    let garbage: [&[u8]; 5] = [
        b"\x00\x01\x02 garbage\r\n\r\n",
        b"GET\r\n\r\n",
        b"GET / HTTP/9.9\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: nope\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: localhost\r\n", // never finished: the client gives up
    ];
    for (i, request) in garbage.iter().enumerate() {
        // Not HTTP: a 4xx or a closed connection, never a page.
        if let Some(status) = answered(request) {
            assert!((400..500).contains(&status), "garbage {i}: {status}");
        }
        assert_still_serving(&f, &format!("garbage {i}"));
    }
}

#[test]
fn many_clients_at_once_are_all_answered() {
    let f = Fixture::start();
    let addr = f.addr;
    let clients: Vec<_> = (0..16)
        .map(|i| {
            std::thread::spawn(move || {
                let path = ["/", "/rs-status", "/table.jsp?name=web_t", "/metrics"][i % 4];
                let request =
                    format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
                support::send(addr, request.as_bytes()).map(|r| r.status)
            })
        })
        .collect();
    for client in clients {
        assert_eq!(client.join().expect("client thread"), Some(200));
    }
}
