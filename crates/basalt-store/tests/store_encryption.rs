//! Encryption at rest on an S3 store: with `StoreOptions::encryption` every object the
//! store writes asks the service to encrypt it (`x-amz-server-side-encryption`), which
//! moto records and answers on a plain `HEAD` of the object; settings that do not go
//! together are refused at open, naming what is wrong.

use crate::common;

use basalt_store::testing::MotoServer;
use basalt_store::{Encryption, StoreFs};
use common::*;
use std::process::Command;

/// The server-side encryption S3 reports for `key` (`HeadObject` through boto3), or
/// "none".
fn encryption_of(moto: &MotoServer, key: &str) -> String {
    let script = "import boto3, sys\n\
        s3 = boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1',\n\
            aws_access_key_id='testing', aws_secret_access_key='testing')\n\
        head = s3.head_object(Bucket=sys.argv[2], Key=sys.argv[3])\n\
        print(head.get('ServerSideEncryption', 'none'))\n";
    let python = basalt_store::testing::python().expect("moto's python");
    let out = Command::new(python)
        .args(["-c", script, &moto.endpoint(), moto.bucket(), key])
        .output()
        .expect("run boto3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn encryption(mode: &str) -> Encryption {
    Encryption {
        mode: mode.into(),
        kms_key_id: None,
        customer_key_base64: None,
    }
}

#[test]
fn objects_written_with_sse_are_stored_encrypted_by_the_service() {
    let moto = MotoServer::start().expect("moto starts");
    let plain = StoreFs::open(&moto.url("plain"), moto.options()).expect("a plain store");
    write_file(&plain, "t/f/1.hfile", b"cells");
    let options = basalt_store::StoreOptions {
        encryption: Some(encryption("AES256")),
        ..moto.options()
    };
    let sealed = StoreFs::open(&moto.url("sealed"), options).expect("an encrypted store");
    write_file(&sealed, "t/f/1.hfile", b"cells");
    assert_eq!(read_file(&sealed, "t/f/1.hfile"), b"cells");

    assert_eq!(encryption_of(&moto, "sealed/t/f/1.hfile"), "AES256");
    assert_eq!(encryption_of(&moto, "plain/t/f/1.hfile"), "none");
}

#[test]
fn encryption_settings_that_do_not_go_together_are_refused_by_name() {
    let moto = MotoServer::start().expect("moto starts");
    let open = |e: Encryption| {
        let options = basalt_store::StoreOptions {
            encryption: Some(e),
            ..moto.options()
        };
        StoreFs::open(&moto.url("x"), options)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(open(encryption("DES")).contains("unknown server-side encryption \"DES\""));
    assert!(open(encryption("sse-c")).contains("sse-c needs the customer key"));
    let kms_on_s3 = Encryption {
        kms_key_id: Some("k".into()),
        ..encryption("AES256")
    };
    assert!(open(kms_on_s3).contains("a KMS key id needs aws:kms"));
}
