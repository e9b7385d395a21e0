//! The parse alone against segmentation and segmentation + features, on generated article pages
//! of about 20 KB, 200 KB and 1 MB; and loading the shipped model.
//!
//! `cargo bench --bench pipeline` runs the generated pages; `TEXTSIFT_BENCH_DIR=DIR cargo bench
//! --bench pipeline` also runs over every page of a directory (files or gzip, decoded as
//! textsift decodes them). A filter picks one group, e.g. `cargo bench --bench pipeline -- 20KB`;
//! `-- model` times loading the shipped model and scoring the blocks of a generated page.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kuchikiki::traits::TendrilSink;
use std::fmt::Write;
use std::hint::black_box;
use std::time::Duration;
use textsift::SegmentLimits;

const WORDS: &[&str] = &[
    "the",
    "council",
    "river",
    "bridge",
    "engineers",
    "said",
    "that",
    "work",
    "would",
    "take",
    "two",
    "years",
    "residents",
    "asked",
    "about",
    "traffic",
    "noise",
    "and",
    "cost",
    "of",
    "new",
    "plan",
    "which",
    "includes",
    "a",
    "cycle",
    "lane",
    "along",
    "north",
    "bank",
    "while",
    "local",
    "shops",
    "expect",
    "more",
    "visitors",
    "during",
    "summer",
    "festival",
    "season",
    "in",
    "town",
];

/// Deterministic pseudo-random numbers, so that every run benches the same pages.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }

    fn sentence(&mut self, out: &mut String) {
        let len = 8 + self.next(14);
        for i in 0..len {
            let w = WORDS[self.next(WORDS.len())];
            if i == 0 {
                let mut c = w.chars();
                if let Some(f) = c.next() {
                    out.extend(f.to_uppercase());
                    out.push_str(c.as_str());
                }
            } else {
                out.push(' ');
                out.push_str(w);
            }
        }
        out.push_str(". ");
    }
}

/// One article paragraph with inline markup, and now and then a heading, figure, quote or list.
fn article_part(rng: &mut Lcg, i: usize, out: &mut String) {
    match i % 12 {
        5 => {
            let _ = write!(out, "<h2 id='part-{i}'>Part {i}: ");
            rng.sentence(out);
            out.push_str("</h2>");
        }
        8 => {
            let _ = write!(
                out,
                "<figure class='image'><img src='/img/{i}.jpg' alt='photo {i}'><figcaption>"
            );
            rng.sentence(out);
            out.push_str("</figcaption></figure>");
        }
        10 => {
            out.push_str("<blockquote><p>");
            rng.sentence(out);
            out.push_str("</p></blockquote><ul>");
            for _ in 0..3 {
                out.push_str("<li>");
                rng.sentence(out);
                out.push_str("</li>");
            }
            out.push_str("</ul>");
        }
        _ => {}
    }
    out.push_str("<p>");
    for s in 0..3 + rng.next(4) {
        match (s + i) % 4 {
            0 => {
                let _ = write!(out, "<a href='/story/{i}-{s}'>");
                rng.sentence(out);
                out.push_str("</a>");
            }
            1 => {
                out.push_str("<b>");
                rng.sentence(out);
                out.push_str("</b>");
            }
            2 => {
                let _ = write!(
                    out,
                    "Published on May {}, 2024 at 10:{:02} am. ",
                    i % 28 + 1,
                    i % 60
                );
                rng.sentence(out);
            }
            _ => {
                out.push_str("<span class='t'>");
                rng.sentence(out);
                out.push_str("</span>");
            }
        }
    }
    out.push_str("</p>\n");
}

/// A news article page of at least `target` bytes: head with styles and scripts, a header
/// with a menu, a breadcrumb, the article, a sidebar, a cookie banner and a footer.
fn article_page(target: usize) -> String {
    let mut rng = Lcg(42);
    let mut s = String::with_capacity(target + 16_384);
    s.push_str(
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\
         <title>Council approves the new river bridge | Example News</title>\
         <meta name='viewport' content='width=device-width'>\
         <link rel='stylesheet' href='/site.css'>\
         <style>body{font:16px sans-serif}.menu li{display:inline}</style>\
         <script>window.dataLayer=[];function track(e){dataLayer.push(e)}</script>\
         </head><body class='article-page'>\n\
         <header class='site-header'><a class='logo' href='/'>Example News</a>\
         <nav class='main-menu' role='navigation'><ul>",
    );
    for (i, section) in [
        "Home", "World", "Business", "Politics", "Tech", "Science", "Health", "Sport", "Culture",
        "Travel", "Opinion", "Video",
    ]
    .iter()
    .enumerate()
    {
        let _ = write!(s, "<li><a href='/s/{i}'>{section}</a></li>");
    }
    s.push_str(
        "</ul></nav><form class='search' role='search'><input name='q'>\
         <button>Search</button></form></header>\n\
         <div class='breadcrumb'><a href='/'>Home</a> &raquo; <a href='/local'>Local</a> &raquo; \
         <span>Bridge</span></div>\n\
         <main><article class='post'><h1>Council approves the new river bridge</h1>\
         <div class='byline'>By <a href='/a/1'>A. Reporter</a> &middot; \
         <time datetime='2024-05-01'>1 May 2024</time></div>\n",
    );
    let sidebar_and_footer = sidebar_and_footer();
    let mut i = 0;
    while s.len() + sidebar_and_footer.len() < target {
        article_part(&mut rng, i, &mut s);
        i += 1;
    }
    s.push_str(&sidebar_and_footer);
    s
}

fn sidebar_and_footer() -> String {
    let mut s = String::from(
        "<div class='share-buttons'><a href='#'>Share</a> <a href='#'>Tweet</a></div>\
         </article>\n<aside class='sidebar'><section class='widget related'><h3>Related</h3><ul>",
    );
    for i in 0..10 {
        let _ = write!(
            s,
            "<li><a href='/r/{i}'>Related story number {i} about the river</a></li>"
        );
    }
    s.push_str(
        "</ul></section><section class='widget newsletter'><h3>Newsletter</h3>\
         <form><input type='email'><button>Subscribe</button></form></section>\
         <div class='ad-slot'>Advertisement</div></aside></main>\n\
         <div class='cookie-banner' role='dialog'><p>We use cookies to improve your \
         experience.</p><button>Accept</button></div>\n<footer class='site-footer'>",
    );
    for col in 0..4 {
        s.push_str("<ul class='footer-links'>");
        for i in 0..6 {
            let _ = write!(
                s,
                "<li><a href='/f/{col}/{i}'>Footer link {col}.{i}</a></li>"
            );
        }
        s.push_str("</ul>");
    }
    s.push_str(
        "<p class='copyright'>&copy; 2026 Example News. All rights reserved.</p></footer>\
         <script>track({page:'article'})</script></body></html>\n",
    );
    s
}

/// The parse textsift does (as by a client without scripts), and nothing else.
fn parse_only(html: &str) -> kuchikiki::NodeRef {
    let mut opts = kuchikiki::ParseOpts::default();
    opts.tree_builder.scripting_enabled = false;
    kuchikiki::parse_html_with_options(opts)
        .one(html)
        .document_node
}

fn bench_pages(c: &mut Criterion, name: &str, pages: &[String]) {
    let bytes: usize = pages.iter().map(String::len).sum();
    let limits = SegmentLimits::default();
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("parse", |b| {
        b.iter(|| {
            for p in pages {
                black_box(parse_only(p));
            }
        })
    });
    g.bench_function("segment", |b| {
        b.iter(|| {
            for p in pages {
                let _ = black_box(textsift::blocks::segment(p, limits));
            }
        })
    });
    g.bench_function("segment+features", |b| {
        b.iter(|| {
            for p in pages {
                if let Ok(page) = textsift::blocks::segment(p, limits) {
                    black_box(textsift::features::compute(&page));
                }
            }
        })
    });
    g.finish();
}

fn generated(c: &mut Criterion) {
    for (name, target) in [("20KB", 20_000), ("200KB", 200_000), ("1MB", 1_000_000)] {
        let page = article_page(target);
        // Every page must segment, or the benchmark would time the error path.
        let blocks = textsift::blocks::segment(&page, SegmentLimits::default())
            .map(|p| p.blocks.len())
            .unwrap_or(0);
        assert!(blocks > 20, "the {name} page has {blocks} blocks");
        bench_pages(c, &format!("generated-{name}"), &[page]);
    }
}

fn directory(c: &mut Criterion) {
    let Ok(dir) = std::env::var("TEXTSIFT_BENCH_DIR") else {
        return;
    };
    let pages: Vec<String> = textsift::input::expand(&[dir])
        .filter_map(|(_, path)| {
            textsift::input::read(path.as_deref(), textsift::input::DEFAULT_MAX_BYTES).ok()
        })
        .filter_map(|bytes| {
            textsift::html::decode(&bytes)
                .ok()
                .map(|d| d.text.into_owned())
        })
        .collect();
    if pages.is_empty() {
        eprintln!("TEXTSIFT_BENCH_DIR holds no readable page");
        return;
    }
    bench_pages(c, "directory", &pages);
}

/// Loading the model shipped in the binary (the budget is 20 ms), and a file from outside,
/// which is also checked tree by tree; scoring the blocks of a page with it.
fn model(c: &mut Criterion) {
    let mut g = c.benchmark_group("model");
    g.sample_size(20);
    g.bench_function("load embedded", |b| {
        b.iter(|| black_box(textsift::model::Model::embedded()))
    });
    let Ok(model) = textsift::model::Model::embedded() else {
        return;
    };
    if let Ok(bytes) = model.to_bytes() {
        g.bench_function("load file bytes", |b| {
            b.iter(|| black_box(textsift::model::Model::from_bytes(&bytes)))
        });
    }
    if let Ok(page) = textsift::blocks::segment(&article_page(200_000), SegmentLimits::default()) {
        let mut features = textsift::features::compute(&page);
        model.fill_classes_of_page(&mut features, &page);
        let texts: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
        g.throughput(Throughput::Elements(texts.len() as u64));
        g.bench_function("score 200KB page", |b| {
            b.iter(|| black_box(model.scores(&features, &texts)))
        });
    }
    g.finish();
}

criterion_group!(benches, generated, directory, model);
criterion_main!(benches);
