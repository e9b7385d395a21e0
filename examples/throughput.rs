//! Single-thread throughput of the first stages on a directory of real pages: kuchikiki parse
//! alone, parse + blocks, and parse + blocks + features. Pages are read and decoded first, so
//! that only these stages are timed.
//!
//! `cargo run --release --example throughput -- ../shared/data/wcxb/dev/html [ROUNDS] [STAGE]`
//! with STAGE one of `parse`, `blocks`, `features` (default: all three).

use kuchikiki::traits::TendrilSink;
use std::time::Instant;

fn run(stage: &str, pages: &[String]) -> usize {
    let mut n = 0;
    for p in pages {
        n += match stage {
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
            _ => {
                let page = textsift::blocks::segment(p, Default::default()).expect("segment");
                textsift::features::compute(&page).rows()
            }
        };
    }
    n
}

/// Pages timed together, each stage in turn.
const SLICE: usize = 25;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: throughput DIR [ROUNDS] [STAGE]");
    let rounds: usize = args.next().map_or(3, |r| r.parse().expect("rounds"));
    let stages: Vec<String> = match args.next() {
        Some(s) => vec![s],
        None => ["parse", "blocks", "features"].map(String::from).to_vec(),
    };
    let mut pages = Vec::new();
    for (_, path) in textsift::input::expand(&[dir]) {
        let Ok(bytes) = textsift::input::read(path.as_deref(), u64::MAX) else {
            continue;
        };
        if let Ok(d) = textsift::html::decode(&bytes) {
            pages.push(d.text);
        }
    }
    let mb = pages.iter().map(String::len).sum::<usize>() as f64 / 1e6;
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
                assert!(run(stage, slice) > 0);
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
    if times.len() == 3 {
        println!(
            "parse + blocks + features keeps {:.1}% of parse-only throughput",
            100.0 * times[0] / times[2]
        );
    }
}
