//! Certificates and keys from PEM files, every error naming the file and what it lacks.

use super::TlsError;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::path::Path;

fn failed(path: &Path, why: impl std::fmt::Display) -> TlsError {
    TlsError(format!("{}: {why}", path.display()))
}

/// The certificates of `path`, at least one.
pub fn certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| failed(path, pem_why(e)))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| failed(path, pem_why(e)))?;
    if certs.is_empty() {
        return Err(failed(path, "no PEM certificate (BEGIN CERTIFICATE) in it"));
    }
    Ok(certs)
}

/// The private key of `path`.
pub fn key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    PrivateKeyDer::from_pem_file(path).map_err(|e| match e {
        rustls::pki_types::pem::Error::NoItemsFound => failed(
            path,
            "no PEM private key (BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY) in it",
        ),
        e => failed(path, pem_why(e)),
    })
}

/// The trust anchors of the CA file `path`.
pub fn roots(path: &Path) -> Result<rustls::RootCertStore, TlsError> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in certs(path)? {
        roots
            .add(cert)
            .map_err(|e| failed(path, format!("not a usable CA certificate: {e}")))?;
    }
    Ok(roots)
}

fn pem_why(e: rustls::pki_types::pem::Error) -> String {
    match e {
        rustls::pki_types::pem::Error::Io(e) => format!("cannot read it: {e}"),
        e => format!("not valid PEM: {e:?}"),
    }
}
