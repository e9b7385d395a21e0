//! Segmentation and features against the parse alone, on generated pages of three sizes.
//! `TEXTSIFT_BENCH_DIR=DIR cargo bench` also runs over the pages of a directory.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kuchikiki::traits::TendrilSink;

/// An article page with a header, menu, sidebar, footer and `paragraphs` paragraphs.
fn page(paragraphs: usize) -> String {
    let mut s = String::from(
        "<!DOCTYPE html><html><head><title>Bench page</title><style>p{}</style></head><body>\
         <header class='site-header'><nav class='menu'><ul>",
    );
    for i in 0..20 {
        s.push_str(&format!("<li><a href='/s{i}'>Section {i}</a></li>"));
    }
    s.push_str("</ul></nav></header><main><article class='post'><h1>A headline</h1>");
    for i in 0..paragraphs {
        s.push_str(&format!(
            "<p>Paragraph {i} has <b>some</b> text with <a href='/x{i}'>a link</a> and more words \
             about the topic, published on May {} 2024 at 10:{:02} am.</p>",
            i % 28 + 1,
            i % 60
        ));
        if i % 10 == 9 {
            s.push_str(&format!(
                "<h2>Part {i}</h2><div class='ad-slot'>Advertisement</div>"
            ));
        }
    }
    s.push_str("</article><aside class='sidebar related'><ul>");
    for i in 0..15 {
        s.push_str(&format!(
            "<li><a href='/r{i}'>Related story number {i}</a></li>"
        ));
    }
    s.push_str("</ul></aside></main><footer id='footer'><p>Copyright 2026. All rights reserved.</p></footer></body></html>");
    s
}

fn bench_pages(c: &mut Criterion, name: &str, pages: &[String]) {
    let bytes: usize = pages.iter().map(String::len).sum();
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(3));
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("parse", |b| {
        b.iter(|| {
            for p in pages {
                // The parse textsift itself does: as by a client without scripts.
                let mut opts = kuchikiki::ParseOpts::default();
                opts.tree_builder.scripting_enabled = false;
                let doc = kuchikiki::parse_html_with_options(opts)
                    .one(p.as_str())
                    .document_node;
                criterion::black_box(doc);
            }
        })
    });
    g.bench_function("parse+blocks", |b| {
        b.iter(|| {
            for p in pages {
                criterion::black_box(textsift::blocks::segment(p, Default::default()).ok());
            }
        })
    });
    g.bench_function("parse+blocks+features", |b| {
        b.iter(|| {
            for p in pages {
                let page = textsift::blocks::segment(p, Default::default()).expect("segment");
                criterion::black_box(textsift::features::compute(&page));
            }
        })
    });
    g.finish();
}

fn generated(c: &mut Criterion) {
    for (name, paragraphs) in [("20KB", 60), ("200KB", 600), ("1MB", 3000)] {
        bench_pages(c, &format!("generated-{name}"), &[page(paragraphs)]);
    }
}

fn directory(c: &mut Criterion) {
    let Ok(dir) = std::env::var("TEXTSIFT_BENCH_DIR") else {
        return;
    };
    let pages: Vec<String> = textsift::input::expand(&[dir])
        .into_iter()
        .filter_map(|(_, p)| textsift::input::read(p.as_deref(), u64::MAX).ok())
        .filter_map(|b| textsift::html::decode(&b).ok().map(|d| d.text))
        .collect();
    bench_pages(c, "directory", &pages);
}

criterion_group!(benches, generated, directory);
criterion_main!(benches);
