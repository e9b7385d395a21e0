//! Single-thread throughput of each stage on a directory of real pages, every stage including
//! the ones before it: `gunzip` (the `.gz` file bytes to HTML bytes), `decode` (HTML bytes to
//! text), `parse` (kuchikiki alone), `blocks` (parse + segmentation), `features`
//! (+ features), `scores` (+ the model's block scores), `extract` (the whole
//! `Extractor::extract` from HTML bytes: decode, blocks, features, model, decoder), `jsonl`
//! (+ the page's JSON Lines record, as `textsift extract --format jsonl` writes it). Pages are
//! read into memory first, so that only the stages are timed; differences between lines are
//! what one stage costs (`extract` − `scores` is the decoder, plus the character decoding).
//!
//! `cargo run --release --example throughput -- ../shared/data/wcxb/dev/html [ROUNDS] [STAGE]`
//! with STAGE one of those names (default: all).

use kuchikiki::traits::TendrilSink;
use std::time::Instant;

/// The CLI's allocator, so that the stages cost what they cost in `textsift extract`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One page in the three forms the stages start from.
struct Page {
    file: Vec<u8>,
    raw: Vec<u8>,
    text: String,
}

/// A page's blocks and their features, class/id ones included, as extraction computes them.
fn features(
    html: &str,
    extractor: &textsift::Extractor,
) -> (textsift::Page, textsift::FeatureMatrix) {
    let page = textsift::blocks::segment(html, Default::default()).expect("segment");
    let mut features = textsift::features::compute(&page);
    extractor.model().fill_classes_of_page(&mut features, &page);
    (page, features)
}

fn run(stage: &str, pages: &[Page], extractor: &textsift::Extractor) -> usize {
    let mut n = 0;
    for page in pages {
        let p = &page.text;
        n += match stage {
            "gunzip" => textsift::input::gunzip_if_gzip(page.file.clone(), u64::MAX)
                .expect("gunzip")
                .len(),
            "decode" => textsift::html::decode(&page.raw)
                .expect("decode")
                .text
                .len(),
            "extract" => extractor.extract(&page.raw).expect("extract").blocks.len(),
            "jsonl" => {
                let e = extractor.extract(&page.raw).expect("extract");
                let v = textsift::output::to_json("page", None, &e, false);
                serde_json::to_string(&v).expect("json").len()
            }
            "parse" => {
                // The parse textsift itself does: as by a client without scripts.
                let mut opts = kuchikiki::ParseOpts::default();
                opts.tree_builder.scripting_enabled = false;
                let doc = kuchikiki::parse_html_with_options(opts)
                    .one(p.as_str())
                    .document_node;
                usize::from(doc.first_child().is_some())
            }
            "blocks" => textsift::blocks::segment(p, Default::default())
                .expect("segment")
                .blocks
                .len(),
            "features" => features(p, extractor).1.rows(),
            "scores" => {
                let (page, features) = features(p, extractor);
                let texts: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
                extractor
                    .model()
                    .scores(&features, &texts)
                    .expect("scores")
                    .len()
            }
            other => panic!("unknown stage {other}; one of {STAGES:?}"),
        };
    }
    n
}

/// The stages, in pipeline order.
const STAGES: [&str; 8] = [
    "gunzip", "decode", "parse", "blocks", "features", "scores", "extract", "jsonl",
];

/// Pages timed together, each stage in turn.
const SLICE: usize = 25;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: throughput DIR [ROUNDS] [STAGE]");
    let rounds: usize = args.next().map_or(3, |r| r.parse().expect("rounds"));
    let stages: Vec<String> = match args.next() {
        Some(s) => vec![s],
        None => STAGES.map(String::from).to_vec(),
    };
    let extractor = textsift::Extractor::new().expect("embedded model");
    let mut pages = Vec::new();
    for (_, path) in textsift::input::expand(&[dir]) {
        let Some(path) = path else { continue };
        let Ok(file) = std::fs::read(&path) else {
            continue;
        };
        let Ok(raw) = textsift::input::gunzip_if_gzip(file.clone(), u64::MAX) else {
            continue;
        };
        if let Ok(text) = textsift::html::decode(&raw).map(|d| d.text.into_owned()) {
            pages.push(Page { file, raw, text });
        }
    }
    let mb = pages.iter().map(|p| p.text.len()).sum::<usize>() as f64 / 1e6;
    let n = pages.len() as f64;
    println!(
        "{} pages, {mb:.1} MB of decoded HTML, best of {rounds} rounds per slice of {SLICE} pages, one thread",
        pages.len()
    );
    // The pages are timed a slice at a time, each stage in turn, and each stage keeps its best
    // round of every slice: a slower spell of the machine (another job, a busy neighbour) then
    // falls on all stages alike and is mostly left out, where whole-run rounds would keep it.
    let mut times = vec![0.0f64; stages.len()];
    for slice in pages.chunks(SLICE) {
        let mut best = vec![f64::MAX; stages.len()];
        for _ in 0..rounds {
            for (stage, b) in stages.iter().zip(&mut best) {
                let t = Instant::now();
                assert!(run(stage, slice, &extractor) > 0);
                *b = b.min(t.elapsed().as_secs_f64());
            }
        }
        for (t, b) in times.iter_mut().zip(best) {
            *t += b;
        }
    }
    for (stage, best) in stages.iter().zip(&times) {
        println!(
            "{stage:<10} {best:7.2} s  {:7.1} pages/s  {:6.1} MB/s",
            n / best,
            mb / best
        );
    }
}
