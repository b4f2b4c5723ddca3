//! Store URLs: which service, where, and how to reach it.
//!
//! | URL | store |
//! |-----|-------|
//! | `file:///dir` | the folder `dir` (a shared mount in a cluster), every write fsynced with its folder; the folder must exist |
//! | `s3://bucket/prefix` | an S3-compatible service; endpoint, region and credentials from `AWS_*` variables, overridden by [`StoreOptions`] |
//! | `memory://` | a new empty store in this process (tests) |
//!
//! A missing shared folder is refused rather than created: a share that failed to mount
//! would otherwise turn into a folder on one machine's own disk. With an explicit endpoint
//! and no credentials anywhere, the URL is refused too, rather than let the client ask the
//! cloud's instance metadata service for some.

use crate::error::{Result, StoreError};
use crate::object::ObjectStoreStore;
use crate::store::Store;
use crate::StoreOptions;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::{BackoffConfig, ClientOptions, RetryConfig};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The store at `url`.
pub fn open_store(url: &str, options: &StoreOptions) -> Result<Arc<dyn Store>> {
    let config = |reason: String| StoreError::Config {
        url: url.to_owned(),
        reason,
    };
    if let Some(dir) = url.strip_prefix("file://") {
        return Ok(Arc::new(folder(url, dir)?));
    }
    if let Some(rest) = url.strip_prefix("s3://") {
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(config("no bucket named (s3://bucket/prefix)".into()));
        }
        return Ok(Arc::new(s3(url, bucket, prefix, options)?));
    }
    if url == "memory://" || url == "memory:" {
        return Ok(Arc::new(ObjectStoreStore::new(
            Arc::new(InMemory::new()),
            "",
            url,
        )));
    }
    Err(config(
        "unknown kind of store: use file:///dir, s3://bucket/prefix or memory://".into(),
    ))
}

fn folder(url: &str, dir: &str) -> Result<ObjectStoreStore> {
    let config = |reason: String| StoreError::Config {
        url: url.to_owned(),
        reason,
    };
    let path = Path::new(dir);
    if !path.is_absolute() {
        return Err(config(format!(
            "{dir:?} is not an absolute folder (file:///absolute/dir)"
        )));
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(config(format!("{dir} is not a folder"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(config(format!(
                "folder {dir} does not exist (mount the shared folder, or create it)"
            )))
        }
        Err(e) => return Err(config(format!("cannot use folder {dir}: {e}"))),
    }
    let local = LocalFileSystem::new_with_prefix(path)
        .map_err(|e| config(format!("cannot use folder {dir}: {e}")))?
        .with_fsync(true)
        .with_automatic_cleanup(true);
    Ok(ObjectStoreStore::new(Arc::new(local), "", url))
}

fn s3(url: &str, bucket: &str, prefix: &str, options: &StoreOptions) -> Result<ObjectStoreStore> {
    let config = |reason: String| StoreError::Config {
        url: url.to_owned(),
        reason,
    };
    let client = ClientOptions::new()
        .with_timeout(options.request_timeout)
        .with_connect_timeout(options.request_timeout.min(Duration::from_secs(5)));
    let retry = RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: options.retries_max,
        retry_timeout: options.request_timeout,
    };
    let mut builder = AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .with_client_options(client)
        .with_retry(retry);
    if let Some(endpoint) = &options.endpoint {
        builder = builder
            .with_endpoint(endpoint)
            .with_allow_http(endpoint.starts_with("http://"));
    }
    if let Some(region) = &options.region {
        builder = builder.with_region(region);
    }
    if let Some((id, secret)) = &options.credentials {
        builder = builder
            .with_access_key_id(id)
            .with_secret_access_key(secret);
    }
    if let Some(encryption) = &options.encryption {
        encryption.check().map_err(config)?;
        let settings = [
            ("aws_server_side_encryption", Some(&encryption.mode)),
            ("aws_sse_kms_key_id", encryption.kms_key_id.as_ref()),
            (
                "aws_sse_customer_key_base64",
                encryption.customer_key_base64.as_ref(),
            ),
        ];
        for (key, value) in settings {
            if let Some(value) = value {
                let key: AmazonS3ConfigKey =
                    key.parse().map_err(|e| config(crate::error::chain(&e)))?;
                builder = builder.with_config(key, value);
            }
        }
    }
    let has_keys = builder
        .get_config_value(&AmazonS3ConfigKey::AccessKeyId)
        .is_some();
    let has_other_credentials = [
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    ]
    .iter()
    .any(|var| std::env::var_os(var).is_some());
    let endpoint = builder.get_config_value(&AmazonS3ConfigKey::Endpoint);
    if let (Some(endpoint), false, false) = (&endpoint, has_keys, has_other_credentials) {
        return Err(config(format!(
            "no credentials for the service at {endpoint}: set AWS_ACCESS_KEY_ID and \
             AWS_SECRET_ACCESS_KEY"
        )));
    }
    let s3 = builder
        .build()
        .map_err(|e| config(crate::error::chain(&e)))?;
    Ok(ObjectStoreStore::new(Arc::new(s3), prefix, url))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(url: &str, options: &StoreOptions) -> String {
        open_store(url, options).expect_err("refused").to_string()
    }

    #[test]
    fn urls_that_cannot_work_are_refused_naming_the_cause() {
        let options = StoreOptions::default();
        let text = refused("ftp://host/x", &options);
        assert!(
            text.contains("ftp://host/x") && text.contains("unknown kind"),
            "{text}"
        );
        let text = refused("file:///no/such/basalt/folder", &options);
        assert!(text.contains("does not exist"), "{text}");
        let text = refused("file://relative/dir", &options);
        assert!(text.contains("not an absolute folder"), "{text}");
        let text = refused("s3:///prefix", &options);
        assert!(text.contains("no bucket"), "{text}");
    }

    #[test]
    fn an_endpoint_without_credentials_is_refused_before_any_request() {
        if std::env::var_os("AWS_ACCESS_KEY_ID").is_some() {
            return; // the environment gives credentials: nothing to refuse
        }
        let options = StoreOptions {
            endpoint: Some("http://127.0.0.1:9".into()),
            ..StoreOptions::default()
        };
        let text = refused("s3://bucket/p", &options);
        assert!(
            text.contains("no credentials") && text.contains("127.0.0.1:9"),
            "{text}"
        );
    }

    #[test]
    fn a_file_that_is_not_a_folder_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").expect("write");
        let url = format!("file://{}", file.display());
        let text = refused(&url, &StoreOptions::default());
        assert!(text.contains("is not a folder"), "{text}");
    }
}
