//! A cluster's web UI over TLS: a master (etcd, a shared folder) started with `[security]
//! tls_cert_file` serves its pages over HTTPS with that certificate (curl trusting the
//! test CA), and a plain-HTTP request is answered `400`, told to use https; the listener
//! goes on serving.

use crate::support;

use support::cluster::Cluster;
use support::http::curl;
use support::tls::TlsFiles;

#[test]
fn a_cluster_web_ui_serves_https_with_the_certificate_and_refuses_plain_http() {
    let files = tempfile::tempdir().expect("tempdir");
    let tls = TlsFiles::new(files.path(), false, "");
    let ca = &tls.ca;
    let cluster = Cluster::start_with_args(1, 0, &["--config", tls.config_arg()]);
    let web = cluster.masters[0].web.clone().expect("the master's web UI");
    let ca_arg = ca.cert.to_str().expect("utf-8 path");

    let status = |answer: &str| answer.lines().next().unwrap_or_default().to_string();
    let https = curl(&["--cacert", ca_arg, &format!("https://{web}/master-status")]);
    assert!(status(&https).contains(" 200"), "{https}");
    assert!(https.contains("Region servers"), "{https}");
    let plain = curl(&[&format!("http://{web}/master-status")]);
    assert!(status(&plain).contains(" 400"), "{plain}");
    assert!(plain.contains("use https://"), "{plain}");
    let untrusted = curl(&[&format!("https://{web}/master-status")]);
    assert!(!untrusted.contains("Region servers"), "{untrusted}");
    let again = curl(&["--cacert", ca_arg, &format!("https://{web}/metrics")]);
    assert!(status(&again).contains(" 200"), "still serving: {again}");
}
