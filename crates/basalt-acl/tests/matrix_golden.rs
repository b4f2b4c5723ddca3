//! The ACL matrix, printed row by row as HBase's reference guide writes it, compared with
//! `tests/golden/matrix.txt` (run with `BLESS=1` to rewrite it, then review the diff).

use basalt_acl::matrix::render;
use basalt_acl::Op;

#[test]
fn the_matrix_reads_as_the_golden_file() {
    let mut text = String::from("# operation: who may run it (HBase's Access Control Matrix)\n");
    for op in Op::ALL {
        text.push_str(&format!("{}: {}\n", op.name(), render(*op)));
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/matrix.txt");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &text).expect("write golden");
    }
    let golden = std::fs::read_to_string(&path).expect("golden file");
    assert_eq!(
        text, golden,
        "the matrix changed: rerun with BLESS=1 and review"
    );
}
