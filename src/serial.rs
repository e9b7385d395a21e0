//! The model file format: the one place that knows about bincode.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `TEXTSIFT` |
//! | 4 | format version |
//! | 8 | feature-schema hash |
//! | 4 | header length H |
//! | H | header: bincode (serde, standard config) of the model kind and training metadata |
//! | 8 | payload length P |
//! | P | payload: bincode of the model itself |
//! | 4 | CRC-32 of everything before it |
//!
//! Every version keeps the magic bytes, the version and the closing checksum where they are,
//! so that a file of another version is told apart from a damaged one.
//!
//! Loading checks the magic bytes, the version, the length, the checksum and the schema hash
//! before decoding anything, so a foreign, truncated, corrupt or stale file is refused with an
//! error that names the problem.

use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// First bytes of every model file.
pub const MAGIC: &[u8; 8] = b"TEXTSIFT";
/// Version of the layout and of the payload types; bumped when either changes.
pub const FORMAT_VERSION: u32 = 7;

const FIXED: usize = 8 + 4 + 8 + 4 + 8 + 4;

fn config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Most bytes that decoding a model may allocate: lengths inside a file are not trusted, and a
/// string or list claiming more is refused before anything is allocated for it. Far above
/// any real model (the shipped one is about 1 MB).
pub const MAX_DECODED_BYTES: usize = 512 << 20;

fn decode_config() -> bincode::config::Configuration<
    bincode::config::LittleEndian,
    bincode::config::Varint,
    bincode::config::Limit<MAX_DECODED_BYTES>,
> {
    bincode::config::standard().with_limit::<MAX_DECODED_BYTES>()
}

/// Encode a header and a payload into model-file bytes.
pub fn encode<H: Serialize, P: Serialize>(
    schema_hash: u64,
    header: &H,
    payload: &P,
) -> Result<Vec<u8>> {
    let h = bincode::serde::encode_to_vec(header, config())
        .map_err(|e| Error::Model(format!("cannot encode the header: {e}")))?;
    let p = bincode::serde::encode_to_vec(payload, config())
        .map_err(|e| Error::Model(format!("cannot encode the model: {e}")))?;
    let header_len = u32::try_from(h.len()).map_err(|_| Error::Model("header too large".into()))?;
    let mut out = Vec::with_capacity(FIXED + h.len() + p.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&schema_hash.to_le_bytes());
    out.extend_from_slice(&header_len.to_le_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(&(p.len() as u64).to_le_bytes());
    out.extend_from_slice(&p);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(out)
}

fn le_u32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    u32::from_le_bytes(a)
}

fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

/// Check the framing of model-file bytes and return (schema hash, header bytes, payload bytes).
fn frame(bytes: &[u8]) -> Result<(u64, &[u8], &[u8])> {
    if bytes.is_empty() {
        return Err(Error::Model("the model file is empty".into()));
    }
    // A short file that starts like a model was cut off; anything else is another kind of file.
    if bytes.len() < 8 && MAGIC.starts_with(bytes) {
        return Err(Error::Model("truncated model file".into()));
    }
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(Error::Model(
            "not a textsift model file (wrong magic bytes)".into(),
        ));
    }
    if bytes.len() < 12 {
        return Err(Error::Model("truncated model file".into()));
    }
    let version = le_u32(&bytes[8..]);
    // Every version so far ends with the checksum of the rest: a version field that a
    // damaged byte changed is told apart from a file of another version.
    let checked = || {
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        crc32fast::hash(body) == le_u32(crc)
    };
    if version != FORMAT_VERSION && !checked() {
        return Err(Error::Model(format!(
            "corrupt model file (checksum mismatch; its format version reads {version}, this \
             textsift reads version {FORMAT_VERSION})"
        )));
    }
    if version != FORMAT_VERSION {
        // An older file is retrained; a newer one was written by a newer textsift.
        let fix = if version < FORMAT_VERSION {
            "retrain the model with this version"
        } else {
            "read it with the newer textsift that wrote it, or retrain the model with this one"
        };
        return Err(Error::Model(format!(
            "model file format version {version}, this textsift reads version {FORMAT_VERSION}: {fix}"
        )));
    }
    if bytes.len() < FIXED {
        return Err(Error::Model("truncated model file".into()));
    }
    let header_len = le_u32(&bytes[20..]) as usize;
    let payload_at = 24usize.checked_add(header_len);
    let payload_len = payload_at
        .filter(|&at| at + 8 <= bytes.len())
        .map(|at| le_u64(&bytes[at..]));
    let total = match (payload_at, payload_len) {
        (Some(at), Some(len)) => usize::try_from(len)
            .ok()
            .and_then(|len| (at + 8).checked_add(len))
            .and_then(|t| t.checked_add(4)),
        _ => None,
    };
    match total {
        Some(t) if t == bytes.len() => {}
        // Cut short, or a length field damaged: the bytes cannot tell which.
        Some(t) if t > bytes.len() => {
            return Err(Error::Model(format!(
                "truncated or corrupt model file ({} bytes where its lengths say {t})",
                bytes.len()
            )))
        }
        None => return Err(Error::Model("truncated or corrupt model file".into())),
        Some(t) => {
            return Err(Error::Model(format!(
                "corrupt model file ({} bytes where its lengths say {t})",
                bytes.len()
            )))
        }
    }
    let body = &bytes[..bytes.len() - 4];
    if crc32fast::hash(body) != le_u32(&bytes[bytes.len() - 4..]) {
        return Err(Error::Model(
            "corrupt model file (checksum mismatch)".into(),
        ));
    }
    let schema = le_u64(&bytes[12..]);
    let at = 24 + header_len;
    Ok((schema, &bytes[24..at], &bytes[at + 8..body.len()]))
}

/// Decode and check model-file bytes made by [`encode`]. `schema_hash` is the feature schema
/// of this build: a file made for another schema is refused as stale.
pub fn decode<H: DeserializeOwned, P: DeserializeOwned>(
    bytes: &[u8],
    schema_hash: u64,
) -> Result<(H, P)> {
    let (schema, h, p) = frame(bytes)?;
    if schema != schema_hash {
        return Err(Error::Model(format!(
            "stale model: trained on feature schema {schema:016x}, this textsift computes schema {schema_hash:016x}; retrain it"
        )));
    }
    let (header, used) = bincode::serde::decode_from_slice(h, decode_config())
        .map_err(|e| Error::Model(format!("corrupt model header: {}", reason(&e))))?;
    if used != h.len() {
        return Err(Error::Model("corrupt model header (trailing bytes)".into()));
    }
    let (payload, used) = bincode::serde::decode_from_slice(p, decode_config())
        .map_err(|e| Error::Model(format!("corrupt model payload: {}", reason(&e))))?;
    if used != p.len() {
        return Err(Error::Model(
            "corrupt model payload (trailing bytes)".into(),
        ));
    }
    Ok((header, payload))
}

/// Why bytes did not decode, in words: bincode's own message is its error's debug text.
fn reason(e: &bincode::error::DecodeError) -> String {
    use bincode::error::DecodeError as E;
    match e {
        E::UnexpectedEnd { .. } | E::Io { .. } => "it ends inside a value".into(),
        E::LimitExceeded => format!("a length past the limit of {MAX_DECODED_BYTES} bytes"),
        E::UnexpectedVariant {
            type_name, found, ..
        } => format!("unknown variant {found} of {type_name}"),
        E::Utf8 { .. } | E::InvalidCharEncoding(_) => "text that is not UTF-8".into(),
        E::InvalidBooleanValue(b) => format!("{b} where a yes or no is stored"),
        E::ArrayLengthMismatch { required, found } => {
            format!("a list of {found} values where {required} are stored")
        }
        E::OutsideUsizeRange(n) => format!("a length of {n}, too large for this machine"),
        // serde's own messages ("invalid length 3, expected …") read as they are.
        E::OtherString(s) => s.clone(),
        E::Other(s) => (*s).into(),
        _ => "a value of another type".into(),
    }
}

/// Decode only the header, for `textsift model-info`-style inspection.
pub fn decode_header<H: DeserializeOwned>(bytes: &[u8]) -> Result<(u64, H)> {
    let (schema, h, _) = frame(bytes)?;
    let (header, _) = bincode::serde::decode_from_slice(h, decode_config())
        .map_err(|e| Error::Model(format!("corrupt model header: {}", reason(&e))))?;
    Ok((schema, header))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        encode(7, &("forest".to_string(), 3u32), &vec![1.5f32, 2.5, -1.0]).unwrap()
    }

    #[test]
    fn round_trip() {
        let (h, p): ((String, u32), Vec<f32>) = decode(&sample(), 7).unwrap();
        assert_eq!(h, ("forest".to_string(), 3));
        assert_eq!(p, vec![1.5, 2.5, -1.0]);
    }

    fn refusal(bytes: &[u8]) -> String {
        decode::<(String, u32), Vec<f32>>(bytes, 7)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn every_corrupted_byte_is_refused() {
        let good = sample();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x41;
            let msg = refusal(&bad);
            assert!(msg.starts_with("model refused:"), "byte {i}: {msg}");
        }
    }

    #[test]
    fn every_truncation_is_refused() {
        let good = sample();
        for len in 0..good.len() {
            let msg = refusal(&good[..len]);
            assert!(
                msg.contains("truncated") || msg.contains("corrupt") || msg.contains("empty"),
                "len {len}: {msg}"
            );
        }
    }

    #[test]
    fn specific_problems_are_named() {
        let good = sample();
        assert!(refusal(b"<html>not a model</html>").contains("wrong magic"));
        assert!(refusal(b"").contains("the model file is empty"));
        assert!(refusal(&good[..5]).contains("truncated"));
        assert!(refusal(b"TEXT").contains("truncated"));
        assert!(refusal(b"TEXTile").contains("wrong magic"));
        // A file of another version, older or newer, against one whose version a damaged
        // byte changed.
        for version in [
            FORMAT_VERSION - 1,
            FORMAT_VERSION + 1,
            FORMAT_VERSION ^ 1 << 16,
        ] {
            let mut other = good.clone();
            other[8..12].copy_from_slice(&version.to_le_bytes());
            let damaged = refusal(&other);
            assert!(
                damaged.contains("corrupt model file (checksum mismatch")
                    && damaged.contains(&format!("version reads {version}")),
                "{damaged}"
            );
            let body = other.len() - 4;
            let crc = crc32fast::hash(&other[..body]);
            other[body..].copy_from_slice(&crc.to_le_bytes());
            let msg = refusal(&other);
            assert!(
                msg.contains(&format!("format version {version}, this textsift reads")),
                "{msg}"
            );
        }
        let stale = encode(8, &("forest".to_string(), 3u32), &vec![1.0f32]).unwrap();
        assert!(refusal(&stale).contains("stale model"));
        assert!(refusal(&good[..good.len() - 1]).contains("truncated"));
        let mut flipped = good.clone();
        let mid = good.len() - 8;
        flipped[mid] ^= 1;
        assert!(refusal(&flipped).contains("checksum"));
        let mut longer = good;
        longer.push(0);
        assert!(refusal(&longer).contains("corrupt"));
    }

    #[test]
    fn a_payload_that_does_not_decode_is_told_in_words() {
        #[derive(Debug, serde::Deserialize)]
        enum Kind {
            _Tree,
            _Forest,
        }
        let header = ("forest".to_string(), 3u32);
        // Framed whole, with a good checksum, but not the payload that is read.
        let short = encode(7, &header, &vec![1.5f32]).unwrap();
        let not_utf8 = encode(7, &header, &vec![b'a', 0xff]).unwrap();
        let variant = encode(7, &header, &5u32).unwrap();
        let why = |e: Error| e.to_string();
        assert_eq!(
            why(decode::<(String, u32), (Vec<f32>, u32)>(&short, 7).unwrap_err()),
            "model refused: corrupt model payload: it ends inside a value"
        );
        assert_eq!(
            why(decode::<(String, u32), String>(&not_utf8, 7).unwrap_err()),
            "model refused: corrupt model payload: text that is not UTF-8"
        );
        assert_eq!(
            why(decode::<(String, u32), Kind>(&variant, 7).unwrap_err()),
            "model refused: corrupt model payload: invalid value: integer `5`, expected \
             variant index 0 <= i < 2"
        );
    }
}
