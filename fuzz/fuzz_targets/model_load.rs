//! Any bytes given to the model loader: refused with an error, or a model that can predict.
//!
//! Random bytes rarely pass the magic bytes and the checksum, so inputs whose first byte is odd
//! are framed first (magic, this build's format version and feature-schema hash, lengths and a
//! correct checksum around the fuzzed header and payload): that reaches the decoding of the
//! header and the model and the checks made after it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use textsift::model::Model;
use textsift::Extractor;

fn framed(data: &[u8]) -> Vec<u8> {
    let (split, rest) = match data {
        [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])), rest),
        _ => (0, data),
    };
    let split = split.min(rest.len());
    let (header, payload) = rest.split_at(split);
    let mut out = Vec::with_capacity(data.len() + 40);
    out.extend_from_slice(textsift::serial::MAGIC);
    out.extend_from_slice(&textsift::serial::FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&textsift::features::schema_hash().to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(header);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fuzz_target!(|data: &[u8]| {
    let bytes = match data.split_first() {
        Some((mode, rest)) if mode & 1 == 1 => framed(rest),
        Some((_, rest)) => rest.to_vec(),
        None => Vec::new(),
    };
    if let Ok(model) = Model::from_bytes(&bytes) {
        // A model that loads must predict without panicking.
        let ex = Extractor::with_model(model);
        let page = b"<title>T</title><nav><a href=/>Home</a> <a href=/b>Blog</a></nav>\
            <article><h1>Heading</h1><p>A paragraph of text, long enough to be a block of \
            content with several words in it.</p></article><footer>(c) 2024</footer>";
        if let Ok(e) = ex.extract(page) {
            assert!(e.blocks.iter().all(|b| (0.0..=1.0).contains(&b.score)));
        }
    }
});
