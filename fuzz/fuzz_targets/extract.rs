//! Any bytes given to `Extractor::extract` with the embedded model: an error or a result,
//! never a panic, and a result whose blocks are consistent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use textsift::Extractor;

fn extractor() -> &'static Extractor {
    static EX: OnceLock<Extractor> = OnceLock::new();
    EX.get_or_init(|| Extractor::new().expect("the embedded model loads"))
}

fuzz_target!(|data: &[u8]| {
    if let Ok(e) = extractor().extract(data) {
        assert_eq!(e.features.rows(), e.blocks.len());
        for (i, b) in e.blocks.iter().enumerate() {
            assert_eq!(b.index, i);
            assert!((0.0..=1.0).contains(&b.score), "score {}", b.score);
            assert!(!b.text.is_empty());
        }
    }
});
