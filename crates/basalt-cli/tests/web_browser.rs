//! The web UI in a real browser: headless Chromium (Debian's `chromium`, installed by
//! `scripts/install-chromium.sh` when missing) loads the home, table and region server
//! pages of a running `basalt standalone` holding a pre-split table whose keys are HTML,
//! and the test checks what the browser built: the table name, the region count, the keys
//! as text, and no element injected. Screenshots are kept in `target/artefacts/`.

use crate::support;

use support::browser::{chromium, install_chromium};

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::path::Path;

const TABLE: &str = "browser_t";
const SPLITS: [&[u8]; 3] = [b"<script>alert(1)</script>", b"k&\"q", b"x<img src=x>"];

/// A standalone server killed when the test ends, however it ends.
struct Server {
    running: Option<support::Running>,
    web: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut running) = self.running.take() {
            if std::thread::panicking() {
                let _ = running.child.kill();
                let _ = running.child.wait();
            } else {
                support::stop(running);
            }
        }
    }
}

fn start_standalone(dir: &Path) -> Server {
    let running = support::start(dir);
    let web = running
        .sidecar_addr("web")
        .expect("standalone prints the web address");
    Server {
        running: Some(running),
        web,
    }
}

fn create_table(addr: &str) {
    let conn = RemoteConnection::connect(addr).expect("connect over gRPC");
    let name = TableName::parse(TABLE).expect("valid name");
    let family = FamilyDescriptor::new("f").expect("valid family");
    let splits = SPLITS.iter().map(|k| Bytes::from_static(k)).collect();
    conn.admin()
        .create_table(
            &TableDescriptor::new(name.clone(), vec![family]),
            &PreSplit::Keys(splits),
        )
        .expect("create the pre-split table");
    conn.table(&name)
        .expect("table")
        .put(&Put::new("<b>row</b>").add("f", "q", "<i>value</i>"))
        .expect("put");
}

/// What the browser built holds no element that came from data.
fn assert_no_injected_element(dom: &str, page: &str) {
    for tag in ["<script", "<img", "<b>", "<i>"] {
        assert!(!dom.contains(tag), "{page}: the DOM has an injected {tag}");
    }
}

#[test]
fn chromium_shows_the_pages_with_keys_as_text() {
    let chromium_binary = install_chromium();
    let data = tempfile::tempdir().expect("temp dir");
    let profile = tempfile::tempdir().expect("chromium profile dir");
    let server = start_standalone(data.path());
    let grpc = server.running.as_ref().expect("running").addr.clone();
    create_table(&grpc);
    let artefacts = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target dir")
        .join("artefacts");
    std::fs::create_dir_all(&artefacts).expect("create target/artefacts");

    let pages = [
        ("home", "/master-status".to_string()),
        ("table", format!("/table.jsp?name={TABLE}")),
        ("rs", "/rs-status".to_string()),
    ];
    for (page, path) in &pages {
        let url = format!("http://{}{path}", server.web);
        let dom = chromium(&chromium_binary, profile.path(), &["--dump-dom"], &url);
        assert!(dom.contains("</html>"), "{page}: a whole document: {dom}");
        assert_no_injected_element(&dom, page);
        match *page {
            "home" => {
                assert!(
                    dom.contains(&format!(">{TABLE}</a>")),
                    "home lists the table"
                );
                let at = dom.find(&format!(">{TABLE}</a>")).expect("table row");
                let row_end = at + dom[at..].find("</tr>").expect("row end");
                assert!(
                    dom[at..row_end].contains(">4</td>"),
                    "4 regions: {}",
                    &dom[at..row_end]
                );
            }
            "table" => {
                assert!(dom.contains(&format!("Table {TABLE}")));
                assert!(dom.contains("Regions (4)"));
                assert!(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
                assert!(
                    dom.contains("k&amp;\"q"),
                    "the quote is text in a text node"
                );
                assert!(dom.contains("x&lt;img src=x&gt;"));
                assert!(
                    dom.contains("&lt;b&gt;row&lt;/b&gt;"),
                    "the row key as text"
                );
                assert!(
                    dom.contains("&lt;i&gt;value&lt;/i&gt;"),
                    "the value as text"
                );
            }
            _ => {
                // The catalog is in the coordinator, not a region: the table's 4.
                assert!(dom.contains("Regions (4)"), "the table's 4 regions");
                assert!(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
            }
        }
        let shot = artefacts.join(format!("web-{page}.png"));
        let _ = std::fs::remove_file(&shot);
        let shot_arg = format!("--screenshot={}", shot.display());
        chromium(
            &chromium_binary,
            profile.path(),
            &[&shot_arg, "--window-size=1280,900", "--hide-scrollbars"],
            &url,
        );
        let png = std::fs::read(&shot).expect("the screenshot was written");
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{page}: a PNG");
        assert!(
            png.len() > 10_000,
            "{page}: a real picture, {} bytes",
            png.len()
        );
    }
}
