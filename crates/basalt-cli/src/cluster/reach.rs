//! How a cluster process reaches its coordinator and its store: etcd's URL (`etcd://`,
//! or `etcds://` over TLS with etcd's CA and a client certificate), the store's URL
//! (`file://` a shared folder, `s3://` an object store, with server-side encryption when
//! asked), each checked at start so that a mistake is named before anything registers.

use super::{cluster_error, ClusterArgs};
use crate::CliError;
use basalt_coord::etcd::EtcdCoordinator;
use basalt_coord::Coordinator;
use basalt_storage::fs::{FileSystem, LocalFs};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The shared folder of a `file://` store URL.
pub fn store_root(url: &str) -> Result<PathBuf, CliError> {
    match url.strip_prefix("file://") {
        Some(path) if path.starts_with('/') => Ok(PathBuf::from(path)),
        Some(_) => Err(cluster_error(format!(
            "store URL {url}: a file URL needs an absolute path (file:///dir)"
        ))),
        None => Err(cluster_error(format!(
            "store URL {url}: not a file URL (file:///dir)"
        ))),
    }
}

/// Checks the shared folder is there and writable before anything registers.
fn probe_store(root: &std::path::Path) -> Result<(), CliError> {
    std::fs::create_dir_all(root)
        .map_err(|e| cluster_error(format!("store {}: cannot create it: {e}", root.display())))?;
    let probe = root.join(format!(".probe-{}", std::process::id()));
    std::fs::write(&probe, b"probe")
        .and_then(|()| std::fs::read(&probe))
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|e| cluster_error(format!("store {}: not writable: {e}", root.display())))
}

/// The etcd endpoints of an `etcd://` URL (`host:port`), or of an `etcds://` one
/// (`https://host:port`: over TLS).
pub fn etcd_endpoints(url: &str) -> Result<Vec<String>, CliError> {
    let (rest, scheme) = match (url.strip_prefix("etcd://"), url.strip_prefix("etcds://")) {
        (Some(rest), _) => (rest, ""),
        (_, Some(rest)) => (rest, "https://"),
        _ => {
            return Err(cluster_error(format!(
                "coordinator {url}: expected etcd://HOST:PORT[,HOST:PORT…] (etcds:// over TLS)"
            )))
        }
    };
    let endpoints: Vec<String> = rest
        .split(',')
        .map(|e| e.trim().trim_end_matches('/'))
        .filter(|e| !e.is_empty())
        .map(|e| format!("{scheme}{e}"))
        .collect();
    if endpoints.is_empty() {
        return Err(cluster_error(format!("coordinator {url}: no endpoint")));
    }
    Ok(endpoints)
}

/// The TLS settings for an `etcds://` coordinator (none for `etcd://`); the files are
/// read now, so a missing or broken one is named at start.
fn etcd_tls(args: &ClusterArgs) -> Result<Option<basalt_net::tls::ClientTls>, CliError> {
    let over_tls = args.coordinator.starts_with("etcds://");
    match (&args.coordinator_ca, over_tls) {
        (None, false) if args.coordinator_cert.is_none() => Ok(None),
        (_, false) => Err(cluster_error(
            "--coordinator-ca/--coordinator-cert are for etcds:// (etcd over TLS)",
        )),
        (None, true) => Err(cluster_error(
            "etcds:// needs the CA to check etcd's certificate: --coordinator-ca FILE (or BASALT_ETCD_CA)",
        )),
        (Some(ca), true) => {
            let cert = args.coordinator_cert.as_deref().zip(args.coordinator_key.as_deref());
            basalt_net::tls::ClientTls::load(ca, cert)
                .map(Some)
                .map_err(|e| cluster_error(format!("etcd TLS: {e}")))
        }
    }
}

/// Connects to etcd, retrying with back-off until `--coordinator-timeout`.
pub(crate) async fn connect_coordinator(
    args: &ClusterArgs,
) -> Result<Arc<dyn Coordinator>, CliError> {
    let endpoints = etcd_endpoints(&args.coordinator)?;
    let tls = etcd_tls(args)?;
    let deadline = Instant::now() + Duration::from_secs(args.coordinator_timeout);
    let mut pause = Duration::from_millis(200);
    loop {
        let attempt = async {
            let coord = EtcdCoordinator::connect_tls(
                &endpoints,
                &args.cluster_prefix,
                Duration::from_secs(5),
                tls.clone(),
            )
            .await?;
            coord.list(b"cluster-id").await?;
            Ok::<_, basalt_coord::CoordError>(coord)
        };
        match attempt.await {
            Ok(coord) => return Ok(Arc::new(coord)),
            Err(e) if Instant::now() < deadline => {
                tracing::warn!(endpoints = %endpoints.join(","), error = %e, retry_in = ?pause, "etcd does not answer yet");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(5));
            }
            Err(e) => {
                return Err(cluster_error(format!(
                    "etcd at {} did not answer within {} s: {e}",
                    endpoints.join(","),
                    args.coordinator_timeout
                )))
            }
        }
    }
}

/// The engine's root and file system for `--store`: a shared folder as it is, or an object
/// store through `basalt_store` (checked reachable, writable and with an atomic
/// put-if-absent before anything registers).
pub(crate) fn open_store(args: &ClusterArgs) -> Result<(PathBuf, Arc<dyn FileSystem>), CliError> {
    if args.store.starts_with("file://") {
        let root = store_root(&args.store)?;
        probe_store(&root)?;
        return Ok((root, Arc::new(LocalFs)));
    }
    if !args.store.starts_with("s3://") {
        return Err(cluster_error(format!(
            "store URL {}: expected file:///dir or s3://bucket/prefix",
            args.store
        )));
    }
    let cache_dir = args.store_cache_dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("basalt-cache-{}", std::process::id()))
    });
    let options = basalt_store::StoreOptions {
        encryption: store_encryption(args)?,
        endpoint: args.store_endpoint.clone(),
        cache_dir: Some(cache_dir),
        cache_bytes: args.store_cache_mb.saturating_mul(1 << 20),
        ..basalt_store::StoreOptions::default()
    };
    let fs = basalt_store::StoreFs::open(&args.store, options)
        .map_err(|e| cluster_error(format!("store {}: {e}", args.store)))?;
    let report = fs.probe().map_err(|e| cluster_error(e.to_string()))?;
    tracing::info!(store = %args.store, ?report, "the store is reachable and writable");
    Ok((PathBuf::from("/"), Arc::new(fs)))
}

/// `--store-encryption` and its companions (the customer key read from its file).
fn store_encryption(args: &ClusterArgs) -> Result<Option<basalt_store::Encryption>, CliError> {
    let Some(mode) = &args.store_encryption else {
        if args.store_kms_key_id.is_some() || args.store_customer_key_file.is_some() {
            return Err(cluster_error(
                "--store-kms-key-id and --store-customer-key-file need --store-encryption",
            ));
        }
        return Ok(None);
    };
    let customer_key_base64 = match &args.store_customer_key_file {
        None => None,
        Some(file) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| {
                    cluster_error(format!("--store-customer-key-file {}: {e}", file.display()))
                })?
                .trim()
                .to_string(),
        ),
    };
    let encryption = basalt_store::Encryption {
        mode: mode.clone(),
        kms_key_id: args.store_kms_key_id.clone(),
        customer_key_base64,
    };
    encryption
        .check()
        .map_err(|e| cluster_error(format!("--store-encryption: {e}")))?;
    tracing::info!(mode = %mode, "the store encrypts every object at rest (server-side)");
    Ok(Some(encryption))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_parsed_or_refused_with_the_reason() {
        assert_eq!(
            store_root("file:///srv/basalt").expect("ok"),
            PathBuf::from("/srv/basalt")
        );
        assert!(store_root("file://relative").is_err());
        assert!(store_root("/srv/basalt").is_err());
        assert_eq!(
            etcd_endpoints("etcd://127.0.0.1:2379,127.0.0.1:22379").expect("ok"),
            vec!["127.0.0.1:2379".to_string(), "127.0.0.1:22379".to_string()]
        );
        assert!(etcd_endpoints("http://127.0.0.1:2379").is_err());
        assert!(etcd_endpoints("etcd://").is_err());
        assert_eq!(
            etcd_endpoints("etcds://h1:2379,h2:2379").expect("ok"),
            vec!["https://h1:2379".to_string(), "https://h2:2379".to_string()]
        );
    }

    #[test]
    fn the_coordinators_and_the_stores_settings_are_checked_and_mistakes_named() {
        let mut args = ClusterArgs::for_coordinator("etcd://127.0.0.1:2379", "/basalt/");
        args.coordinator_ca = None;
        args.coordinator_cert = None;
        args.coordinator_key = None;
        // etcd's TLS settings go with etcds:// only, and etcds:// needs a CA.
        assert!(etcd_tls(&args).expect("plain etcd").is_none());
        args.coordinator_ca = Some("/nonexistent/ca.pem".into());
        let stray = etcd_tls(&args).expect_err("a CA for plain etcd://");
        assert!(stray.to_string().contains("are for etcds://"), "{stray}");
        args.coordinator = "etcds://127.0.0.1:2379".into();
        let missing = etcd_tls(&args).expect_err("an unreadable CA");
        assert!(
            missing.to_string().contains("/nonexistent/ca.pem"),
            "{missing}"
        );
        args.coordinator_ca = None;
        let no_ca = etcd_tls(&args).expect_err("etcds:// without a CA");
        assert!(no_ca.to_string().contains("--coordinator-ca"), "{no_ca}");

        // The store's encryption flags: checked at start, each mistake named.
        assert_eq!(store_encryption(&args).expect("none asked"), None);
        args.store_kms_key_id = Some("k".into());
        let alone = store_encryption(&args).expect_err("a key id without a mode");
        assert!(
            alone.to_string().contains("need --store-encryption"),
            "{alone}"
        );
        args.store_encryption = Some("AES256".into());
        let wrong = store_encryption(&args).expect_err("a KMS key with SSE-S3");
        assert!(
            wrong.to_string().contains("a KMS key id needs aws:kms"),
            "{wrong}"
        );
        args.store_encryption = Some("aws:kms".into());
        let kms = store_encryption(&args)
            .expect("SSE-KMS with its key")
            .expect("some");
        assert_eq!(
            (kms.mode.as_str(), kms.kms_key_id.as_deref()),
            ("aws:kms", Some("k"))
        );
        args.store_kms_key_id = None;
        args.store_encryption = Some("sse-c".into());
        args.store_customer_key_file = Some("/nonexistent/key".into());
        let missing = store_encryption(&args).expect_err("an unreadable key file");
        assert!(
            missing.to_string().contains("/nonexistent/key"),
            "{missing}"
        );
    }
}
