//! Representations (reference §6.2): which media type a request speaks and wants, and the
//! encoders every model uses.
//!
//! # Layout
//! - [`xml`]: an escaping XML writer and a bounded reader into a small element tree.
//! - [`proto`]: HBase REST's protobuf messages, hand-written with HBase's field numbers.
//! - [`b64`]: base64 for keys, columns and values, with errors naming the field.

pub mod b64;
pub mod proto;
pub mod xml;

use crate::error::{RestError, Result};
use axum::http::{header, HeaderMap};

/// A media type the gateway reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    Text,
    Xml,
    Json,
    Protobuf,
    Octet,
}

impl Media {
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Text => "text/plain",
            Self::Xml => "text/xml",
            Self::Json => "application/json",
            Self::Protobuf => "application/x-protobuf",
            Self::Octet => "application/octet-stream",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "text/plain" => Some(Self::Text),
            "text/xml" | "application/xml" => Some(Self::Xml),
            "application/json" => Some(Self::Json),
            "application/x-protobuf" | "application/protobuf" => Some(Self::Protobuf),
            "application/octet-stream" => Some(Self::Octet),
            _ => None,
        }
    }
}

/// What the resource can produce, first = default.
pub const MODELS_TEXT_FIRST: &[Media] = &[Media::Text, Media::Xml, Media::Json, Media::Protobuf];
/// Cell sets: no plain text; octet-stream for single cells.
pub const CELLS: &[Media] = &[Media::Xml, Media::Json, Media::Protobuf, Media::Octet];
/// Models without a text form.
pub const MODELS: &[Media] = &[Media::Xml, Media::Json, Media::Protobuf];

/// Picks the representation from `Accept`: the highest-quality type the resource offers,
/// the resource's default for none or `*/*`, 406 when nothing offered is acceptable.
pub fn negotiate(headers: &HeaderMap, offered: &[Media]) -> Result<Media> {
    let Some(accept) = headers.get(header::ACCEPT) else {
        return Ok(offered[0]);
    };
    let accept = accept
        .to_str()
        .map_err(|_| RestError::bad("the Accept header is not ASCII"))?;
    let mut best: Option<(f32, Media)> = None;
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let quality = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if quality <= 0.0 {
            continue;
        }
        let media = match name.as_str() {
            "*/*" | "" => Some(offered[0]),
            "text/*" => offered
                .iter()
                .copied()
                .find(|m| matches!(m, Media::Text | Media::Xml)),
            "application/*" => offered
                .iter()
                .copied()
                .find(|m| !matches!(m, Media::Text | Media::Xml)),
            other => Media::from_name(other).filter(|m| offered.contains(m)),
        };
        if let Some(media) = media {
            if best.is_none_or(|(q, _)| quality > q) {
                best = Some((quality, media));
            }
        }
    }
    best.map(|(_, m)| m).ok_or_else(|| {
        RestError::NotAcceptable(format!(
            "'{accept}' names none of {}",
            offered
                .iter()
                .map(|m| m.content_type())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// The media type of a request body, which must be one of `accepted`.
pub fn body_media(headers: &HeaderMap, accepted: &[Media]) -> Result<Media> {
    let raw = headers
        .get(header::CONTENT_TYPE)
        .ok_or_else(|| RestError::UnsupportedMediaType("the request has no Content-Type".into()))?
        .to_str()
        .map_err(|_| RestError::bad("the Content-Type header is not ASCII"))?;
    let name = raw
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    Media::from_name(&name)
        .filter(|m| accepted.contains(m))
        .ok_or_else(|| {
            RestError::UnsupportedMediaType(format!(
                "cannot read '{raw}' here; send one of {}",
                accepted
                    .iter()
                    .map(|m| m.content_type())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

/// Parses a JSON body, naming the model on failure.
pub fn parse_json(body: &[u8], model: &str) -> Result<serde_json::Value> {
    serde_json::from_slice(body).map_err(|e| RestError::bad(format!("malformed JSON {model}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_str(value).expect("ascii"));
        h
    }

    #[test]
    fn negotiation_prefers_quality_then_order() {
        assert_eq!(
            negotiate(&HeaderMap::new(), CELLS).expect("default"),
            Media::Xml
        );
        assert_eq!(
            negotiate(&accept("*/*"), MODELS_TEXT_FIRST).expect("any"),
            Media::Text
        );
        assert_eq!(
            negotiate(&accept("text/xml;q=0.5, application/json"), CELLS).expect("json"),
            Media::Json
        );
        assert_eq!(
            negotiate(&accept("application/protobuf"), CELLS).expect("ietf"),
            Media::Protobuf
        );
        assert!(matches!(
            negotiate(&accept("text/plain"), CELLS),
            Err(RestError::NotAcceptable(_))
        ));
    }
}
