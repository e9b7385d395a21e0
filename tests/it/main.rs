//! The integration tests, as one test binary: each file is a module, so that the crate is
//! linked once for all of them instead of once per file.

mod blocks_features;
mod cli;
mod extract_cli;
mod features_exact;
mod hostile;
mod hostile_cli;
mod model_files;
mod training;

/// `data` as one gzip member.
pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Reproducible noise bytes (splitmix64), for binary and broken inputs.
pub(crate) fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut s = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}
