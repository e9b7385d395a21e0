//! Any bytes given to `Extractor::extract` with the embedded model: an error or a result,
//! never a panic, and a result whose blocks are consistent and that every output format
//! writes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use textsift::{output, Extractor};

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
        let text = output::to_text(&e);
        assert!(text.ends_with('\n'));
        let _ = output::to_markdown(&e);
        let record = output::json(&output::to_json("fuzz", None, &e, true), false);
        assert!(!record.contains('\n'), "a JSON Lines record is one line");
        let view = output::to_html("fuzz", &e);
        assert!(view.ends_with(output::HTML_FOOTER));
    }
});
