//! Who a verified client certificate names: its first DNS subject alternative name, else
//! its first URI one, else its subject's common name (CN) — the order HBase's and most TLS
//! servers' certificate authentication use. What that name means as a user is the
//! authentication's business (`basalt_auth::tls_user`), not the transport's.

use rustls::pki_types::CertificateDer;

/// The name `cert` (DER) gives its holder, if any.
pub fn of(cert: &CertificateDer<'_>) -> Option<String> {
    let parsed = webpki::EndEntityCert::try_from(cert).ok()?;
    if let Some(dns) = parsed.valid_dns_names().next() {
        return Some(dns.to_string());
    }
    if let Some(uri) = parsed.valid_uri_names().next() {
        return Some(uri.to_string());
    }
    common_name(parsed.subject())
}

/// The CN (OID 2.5.4.3) of a DER `Name`'s contents (its RDNs, without the outer SEQUENCE).
pub fn common_name(mut rdns: &[u8]) -> Option<String> {
    const CN: &[u8] = &[0x55, 0x04, 0x03];
    while !rdns.is_empty() {
        let (set, rest) = element(rdns, 0x31)?;
        rdns = rest;
        let mut attributes = set;
        while !attributes.is_empty() {
            let (pair, rest) = element(attributes, 0x30)?;
            attributes = rest;
            let (oid, value) = element(pair, 0x06)?;
            if oid == CN {
                let (tag, text, _) = any(value)?;
                // UTF8String, PrintableString, IA5String, T61String.
                if matches!(tag, 0x0c | 0x13 | 0x16 | 0x14) {
                    return String::from_utf8(text.to_vec()).ok();
                }
            }
        }
    }
    None
}

/// One DER element of tag `tag` at the start of `bytes`: its contents and what follows.
fn element(bytes: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (found, contents, rest) = any(bytes)?;
    (found == tag).then_some((contents, rest))
}

/// The tag, contents and rest of the first DER element of `bytes` (definite lengths only).
fn any(bytes: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, bytes) = bytes.split_first()?;
    let (&first, mut bytes) = bytes.split_first()?;
    let len = if first < 0x80 {
        usize::from(first)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || bytes.len() < n {
            return None;
        }
        let len = bytes[..n]
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        bytes = &bytes[n..];
        len
    };
    (bytes.len() >= len).then(|| (tag, &bytes[..len], &bytes[len..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `C=NL, CN=alice` as DER RDNs.
    const NAME: &[u8] = &[
        0x31, 0x0b, 0x30, 0x09, 0x06, 0x03, 0x55, 0x04, 0x06, 0x13, 0x02, b'N', b'L', 0x31, 0x0e,
        0x30, 0x0c, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x05, b'a', b'l', b'i', b'c', b'e',
    ];

    #[test]
    fn the_common_name_is_found_among_the_rdns() {
        assert_eq!(common_name(NAME), Some("alice".to_string()));
        assert_eq!(common_name(&NAME[..13]), None);
    }

    #[test]
    fn truncated_or_odd_der_is_no_name_not_a_panic() {
        for end in 0..NAME.len() {
            let _ = common_name(&NAME[..end]);
        }
        assert_eq!(common_name(&[0x31, 0x84, 0xff, 0xff, 0xff, 0xff]), None);
        assert_eq!(common_name(&[0x31, 0x80]), None);
    }
}
