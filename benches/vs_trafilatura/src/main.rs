//! textsift beside rs-trafilatura on the same pages, one thread: pages are read and gunzipped
//! into memory first, then each extractor runs over all of them in turn, for several rounds
//! (best round kept). With a WCXB folder (`html/` and `ground-truth/` inside), also the word F1
//! of each against the gold text, by WCXB's metric (`textsift::eval`).
//!
//! `cargo run --release --manifest-path benches/vs_trafilatura/Cargo.toml -- DIR [ROUNDS]`
//!
//! textsift's F1 here is that of the shipped model, which was trained on WCXB's development
//! pages: on them it is a training score, not a fair comparison (cross-validated figures are in
//! `training/REPORT.md`). rs-trafilatura's F1 checks that the metric matches published figures.

use std::path::PathBuf;
use std::time::Instant;
use textsift::eval::{Evaluation, PageScore};

/// The CLI's allocator, so that textsift runs as `textsift extract` does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Page {
    id: String,
    html: Vec<u8>,
    /// Gold main text and page type, for a WCXB folder.
    gold: Option<(String, Option<String>)>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1).map(PathBuf::from) else {
        eprintln!("usage: vs-trafilatura DIR [ROUNDS] (DIR: a WCXB split, or a folder of pages)");
        std::process::exit(2);
    };
    let rounds: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);
    // A WCXB folder is read as training reads it (`textsift::annotate::read_wcxb`); any
    // other folder is a folder of pages without gold text.
    let sources: Vec<(String, PathBuf, Option<(String, Option<String>)>)> =
        if dir.join("ground-truth").is_dir() {
            textsift::annotate::read_wcxb(&dir)
                .expect("a readable WCXB folder")
                .into_iter()
                .map(|p| (p.id, p.html, Some((p.gold, p.page_type))))
                .collect()
        } else {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .expect("readable folder")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect();
            files.sort();
            files
                .into_iter()
                .map(|f| (f.display().to_string(), f, None))
                .collect()
        };
    let pages: Vec<Page> = sources
        .into_iter()
        .filter_map(|(id, path, gold)| {
            let bytes = std::fs::read(path).ok()?;
            let html = textsift::input::gunzip_if_gzip(bytes, u64::MAX).ok()?;
            Some(Page { id, html, gold })
        })
        .collect();
    let mb = pages.iter().map(|p| p.html.len()).sum::<usize>() as f64 / 1e6;
    println!(
        "{} pages, {mb:.1} MB of HTML, best of {rounds} rounds, one thread",
        pages.len()
    );

    let extractor = textsift::Extractor::new().expect("embedded model");
    let sift = |p: &Page| {
        extractor
            .extract(&p.html)
            .map(|e| e.text)
            .unwrap_or_default()
    };
    let trafilatura = |p: &Page| {
        rs_trafilatura::extract_bytes(&p.html)
            .map(|r| r.content_text)
            .unwrap_or_default()
    };
    let mut best = [f64::INFINITY; 2];
    for round in 1..=rounds {
        for (k, (name, run)) in [
            ("textsift", &sift as &dyn Fn(&Page) -> String),
            ("rs-trafilatura", &trafilatura),
        ]
        .into_iter()
        .enumerate()
        {
            let start = Instant::now();
            let chars: usize = pages.iter().map(|p| run(p).len()).sum();
            let s = start.elapsed().as_secs_f64();
            best[k] = best[k].min(s);
            println!(
                "round {round} {name:15} {s:6.2} s {:8.1} pages/s ({chars} bytes of text)",
                pages.len() as f64 / s
            );
        }
    }
    let rate = |s: f64| pages.len() as f64 / s;
    println!(
        "best: textsift {:.1} pages/s, rs-trafilatura {:.1} pages/s: textsift {:.2}x",
        rate(best[0]),
        rate(best[1]),
        best[1] / best[0]
    );

    if pages.iter().any(|p| p.gold.is_some()) {
        for (name, run) in [
            (
                "textsift (trained on these pages)",
                &sift as &dyn Fn(&Page) -> String,
            ),
            ("rs-trafilatura", &trafilatura),
        ] {
            let scores: Vec<PageScore> = pages
                .iter()
                .filter_map(|p| {
                    let (gold, kind) = p.gold.as_ref()?;
                    Some(PageScore::new(&p.id, kind.as_deref(), &run(p), gold))
                })
                .collect();
            let e = Evaluation {
                pages: scores,
                ..Default::default()
            };
            println!("\n{name}:\n\n{}", e.pages_markdown());
        }
    }
}
