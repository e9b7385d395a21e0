//! Any bytes given to `Extractor::extract_fetched` with the embedded model, keeping links or
//! not, from a URL or not, favouring precision, recall or neither: an error or a result, never
//! a panic, and a result whose blocks are consistent and that every output format writes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use textsift::{output, Extractor, Favor};

/// The extractor, keeping the links' targets (`links`) or not, with a favour.
fn extractor(links: bool, favor: Favor) -> &'static Extractor {
    static EX: [OnceLock<Extractor>; 6] = [const { OnceLock::new() }; 6];
    let k = usize::from(links) * 3 + favor as usize;
    EX[k].get_or_init(|| {
        Extractor::new()
            .expect("the embedded model loads")
            .links(links)
            .favor(favor)
            .expect("the embedded model's decoder can favour")
    })
}

fuzz_target!(|data: &[u8]| {
    // Half of the inputs keep their links, by the last bit of the first byte, and half of
    // those come from a URL that their links resolve against, by the next bit; the next two
    // bits pick a favour.
    let first = data.first().copied().unwrap_or(0);
    let links = first & 1 == 1;
    let url = (first & 2 == 2).then_some("https://fuzz.example/a/b.html?q=1");
    let favor = match first >> 2 & 3 {
        1 => Favor::Precision,
        2 => Favor::Recall,
        _ => Favor::Balance,
    };
    if let Ok(e) = extractor(links, favor).extract_fetched(data, None, url) {
        assert_eq!(e.features.rows(), e.blocks.len());
        for (i, b) in e.blocks.iter().enumerate() {
            assert_eq!(b.index, i);
            assert!((0.0..=1.0).contains(&b.score), "score {}", b.score);
            assert!(!b.text.is_empty());
            // Links in order, apart, on characters of the text; none unless asked for.
            assert!(links || b.links.is_empty());
            let mut at = 0;
            for l in &b.links {
                let (start, end) = (l.span.0 as usize, l.span.1 as usize);
                assert!(
                    at <= start && start < end && end <= b.text.len(),
                    "{:?}",
                    l.span
                );
                assert!(b.text.is_char_boundary(start) && b.text.is_char_boundary(end));
                at = end;
            }
        }
        let text = output::to_text(&e);
        // A line per piece, or nothing when there is neither title nor kept text.
        assert_eq!(
            text.ends_with('\n'),
            !(e.title.is_empty() && e.text.is_empty()),
            "{text:?}"
        );
        let _ = output::to_markdown(&e);
        let record = output::json(&output::to_json("fuzz", None, &e, true), false);
        assert!(!record.contains('\n'), "a JSON Lines record is one line");
        let view = output::to_html("fuzz", &e);
        assert!(view.ends_with(output::HTML_FOOTER));
    }
});
