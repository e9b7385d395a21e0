//! Blocks and features of small hand-written pages through the library, with every expected
//! value worked out by hand from the definitions in `textsift::features::SCHEMA`.

use std::collections::HashSet;
use textsift::blocks::{segment, MAX_NESTING};
use textsift::features::{schema_hash, FeatureMatrix, F, N_FEATURES, SCHEMA};
use textsift::{analyze, Analysis, Error, SegmentLimits};

/// The one-hot tag features.
pub(crate) const TAGS: [F; 12] = [
    F::TagH1,
    F::TagH2,
    F::TagH3,
    F::TagH4to6,
    F::TagP,
    F::TagLi,
    F::TagTd,
    F::TagAOnly,
    F::TagDiv,
    F::TagPre,
    F::TagBlockquote,
    F::TagOther,
];

fn run(html: &str) -> Analysis {
    run_bytes(html.as_bytes())
}

fn run_bytes(bytes: &[u8]) -> Analysis {
    let a = analyze(bytes, SegmentLimits::default()).expect("page is analysed");
    assert_eq!(a.features.rows(), a.page.blocks.len());
    assert_eq!(a.features.data.len(), a.page.blocks.len() * N_FEATURES);
    a
}

fn texts(a: &Analysis) -> Vec<&str> {
    a.page.blocks.iter().map(|b| b.text.as_str()).collect()
}

fn tags(a: &Analysis) -> Vec<&str> {
    a.page.blocks.iter().map(|b| a.page.tag_of(b)).collect()
}

fn name(f: F) -> &'static str {
    SCHEMA[f as usize].name
}

/// Assert several features of one row.
fn expect(m: &FeatureMatrix, row: usize, want: &[(F, f32)]) {
    for &(f, v) in want {
        let got = m.get(row, f);
        assert!(
            (got - v).abs() <= 1e-5 * v.abs().max(1.0),
            "row {row} `{}`: got {got}, want {v}",
            name(f)
        );
    }
}

/// Assert one feature over all rows.
fn column(m: &FeatureMatrix, f: F, want: &[f32]) {
    assert_eq!(m.rows(), want.len(), "rows for `{}`", name(f));
    for (row, &v) in want.iter().enumerate() {
        expect(m, row, &[(f, v)]);
    }
}

/// The tag feature that is set in a row; fails unless exactly one is 1 and the others 0.
fn one_hot_tag(m: &FeatureMatrix, row: usize) -> F {
    let set: Vec<F> = TAGS
        .iter()
        .copied()
        .filter(|&t| m.get(row, t) == 1.0)
        .collect();
    for &t in &TAGS {
        let v = m.get(row, t);
        assert!(v == 0.0 || v == 1.0, "row {row} `{}` = {v}", name(t));
    }
    assert_eq!(set.len(), 1, "row {row}: tag features set: {set:?}");
    set[0]
}

// ---------------------------------------------------------------------------------------------
// Segmentation

const MIXED_PAGE: &str = "<!DOCTYPE html><html><head><title> Mixed \n Page </title>\
    <style>p { color: red }</style><script>var inHead = 1;</script></head><body>\n\
    <nav><ul><li><a href=\"/\">Home</a></li><li><a href=\"/about\">About us</a></li></ul></nav>\n\
    <h1>Main heading</h1>\n\
    <p>Some <b>bold</b>, <i>italic</i> and <a href=\"/x\">linked</a> <span>words</span>.</p>\n\
    <div>Direct text<p>Nested paragraph</p>tail text</div>\n\
    <p>Line one<br>Line two</p>\n\
    <table><tr><td>Cell one</td><td>Cell two</td></tr></table>\n\
    <pre>\nlet x = 1;\n    let y = 2;\n</pre>\n\
    <blockquote>A quoted remark</blockquote>\n\
    <script>document.write('script text')</script>\n\
    <noscript>Enable scripts</noscript>\n\
    <template><p>Template text</p></template>\n\
    <svg><text>Svg text</text><title>Svg title</title></svg>\n\
    <select><option>Option text</option></select>\n\
    <style>.late { color: blue }</style>\n\
    </body></html>";

#[test]
fn blocks_of_a_mixed_page() {
    let a = run(MIXED_PAGE);
    assert_eq!(a.page.title, "Mixed Page");
    assert_eq!(a.encoding, "UTF-8");
    let got: Vec<(&str, &str)> = texts(&a).into_iter().zip(tags(&a)).collect();
    assert_eq!(
        got,
        [
            ("Home", "li"),
            ("About us", "li"),
            ("Main heading", "h1"),
            ("Some bold, italic and linked words.", "p"),
            ("Direct text", "div"),
            ("Nested paragraph", "p"),
            ("tail text", "div"),
            ("Line one", "p"),
            ("Line two", "p"),
            ("Cell one", "td"),
            ("Cell two", "td"),
            ("let x = 1; let y = 2;", "pre"),
            ("A quoted remark", "blockquote"),
            // Parsed as by a client without scripts: noscript content is kept, and flagged.
            ("Enable scripts", "noscript"),
        ]
    );
    for (i, b) in a.page.blocks.iter().enumerate() {
        assert_eq!(b.index, i);
    }
    // Inline elements opened inside the block: b, i, a, span.
    assert_eq!(a.page.blocks[3].inline_tags, 4);
    let anchors: Vec<&str> = a.page.blocks[3]
        .anchor_spans
        .iter()
        .map(|&(s, e)| &a.page.blocks[3].text[s as usize..e as usize])
        .collect();
    assert_eq!(anchors, ["linked"]);
    let m = &a.features;
    let want_tags = [
        F::TagAOnly,
        F::TagAOnly,
        F::TagH1,
        F::TagP,
        F::TagDiv,
        F::TagP,
        F::TagDiv,
        F::TagP,
        F::TagP,
        F::TagTd,
        F::TagTd,
        F::TagPre,
        F::TagBlockquote,
        F::TagOther,
    ];
    for (row, &t) in want_tags.iter().enumerate() {
        assert_eq!(one_hot_tag(m, row), t, "row {row}");
    }
    // "Some bold, italic and linked words.": six words, one of them a link, one sentence end,
    // 35 characters, four inline elements.
    expect(
        m,
        3,
        &[
            (F::Words, 6.0),
            (F::AnchorWords, 1.0),
            (F::LinkDensity, 1.0 / 6.0),
            (F::Sentences, 1.0),
            (F::EndsWithPunct, 1.0),
            (F::Chars, 35.0),
            (F::TextToTag, 6.0 / 5.0),
            (F::InAnchor, 0.0),
        ],
    );
    // "let x = 1; let y = 2;": "=" has no letter or digit, so 6 words of 8 tokens; "1;" and
    // "2;" are digit words.
    expect(
        m,
        11,
        &[
            (F::Words, 6.0),
            (F::DigitRatio, 2.0 / 6.0),
            (F::SeparatorRatio, 0.0),
        ],
    );
    column(
        m,
        F::InNav,
        &[1., 1., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],
    );
    column(
        m,
        F::InList,
        &[1., 1., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],
    );
    column(
        m,
        F::InTable,
        &[0., 0., 0., 0., 0., 0., 0., 0., 0., 1., 1., 0., 0., 0.],
    );
    column(
        m,
        F::InBlockquote,
        &[0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 1., 0.],
    );
    column(
        m,
        F::InNoscript,
        &[0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 1.],
    );
    column(
        m,
        F::HasH1,
        &[1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.],
    );
}

#[test]
fn segment_matches_analyze_and_whitespace_is_collapsed() {
    let html = "<p>  Leading\t and \n trailing  </p><p>a<b>b</b> c<i> d </i>e</p>";
    let page = segment(html, SegmentLimits::default()).unwrap();
    let t: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(t, ["Leading and trailing", "ab c d e"]);
    assert_eq!(run(html).page, page);
}

#[test]
fn title_is_the_first_non_empty_title() {
    let a = run("<title></title><title>Second</title><p>Body words</p>");
    assert_eq!(a.page.title, "Second");
    let a = run("<title>First</title><title>Second</title><p>Body words</p>");
    assert_eq!(a.page.title, "First");
    assert_eq!(texts(&a), ["Body words"]);
}

#[test]
fn block_limits() {
    let five = "<p>one</p><p>two</p><p>three</p><p>four</p><p>five</p>";
    let limits = SegmentLimits {
        max_blocks: 2,
        ..SegmentLimits::default()
    };
    let a = analyze(five.as_bytes(), limits).unwrap();
    assert_eq!(texts(&a), ["one", "two"]);
    assert!(a.page.truncated);
    column(&a.features, F::PageBlocks, &[2.0, 2.0]);
    // As many blocks as the limit, or more elements without words after them: nothing lost.
    for html in [
        "<p>one</p><p>two</p>",
        "<p>one</p><p>two</p><p> </p><img src=x>",
    ] {
        let a = analyze(html.as_bytes(), limits).unwrap();
        assert_eq!(texts(&a), ["one", "two"]);
        assert!(!a.page.truncated, "{html}");
    }
    let limits = SegmentLimits {
        max_nodes: 10,
        ..SegmentLimits::default()
    };
    assert!(matches!(
        analyze(five.repeat(4).as_bytes(), limits),
        Err(Error::TooLarge(_))
    ));
}

// ---------------------------------------------------------------------------------------------
// Text features

#[test]
fn link_density_and_anchor_words() {
    let a = run("<p>One two three <a href=/a>four five six</a></p>\
         <p><a href=/b>all of it linked</a></p>\
         <a href=/c><div>Card title text</div></a>\
         <h2><a href=/e>Linked heading</a></h2>");
    assert_eq!(
        texts(&a),
        [
            "One two three four five six",
            "all of it linked",
            "Card title text",
            "Linked heading"
        ]
    );
    let m = &a.features;
    column(m, F::Words, &[6.0, 4.0, 3.0, 2.0]);
    column(m, F::AnchorWords, &[3.0, 4.0, 3.0, 2.0]);
    column(m, F::LinkDensity, &[0.5, 1.0, 1.0, 1.0]);
    // Only the card's block lies inside an <a>; the others hold one.
    column(m, F::InAnchor, &[0.0, 0.0, 1.0, 0.0]);
    // A block that is all link text is tag_a_only, unless it is a heading.
    let t: Vec<F> = (0..4).map(|r| one_hot_tag(m, r)).collect();
    assert_eq!(t, [F::TagP, F::TagAOnly, F::TagAOnly, F::TagH2]);
    // Page: 12 anchor words of 15.
    column(m, F::PageLinkDensity, &[0.8; 4]);
    column(
        m,
        F::LinkDensityRel,
        &[0.5 - 0.8, 1.0 - 0.8, 1.0 - 0.8, 1.0 - 0.8],
    );
}

#[test]
fn text_density_wraps_at_80_columns() {
    let t = |c: &str, n: usize| c.repeat(n);
    // Block 0, columns per line:
    //   line 1: a×40 + b×39 = 40 + 1 + 39 = 80 (a line may be exactly 80 wide)
    //   line 2: c, |, d×76    = 1 + 1 + 1 + 1 + 76 = 80 (c would have made line 1 82 wide)
    //   line 3: seven tokens of 10 = 7 × 10 + 6 = 76 (an eighth would make it 87)
    //   line 4: two tokens of 10, the last partial line, left out.
    // The full lines hold 2 + 2 + 7 = 11 words ("|" is not a word): density 11 / 3.
    let ten = vec![t("e", 10); 9].join(" ");
    let block0 = format!("{} {} c | {} {ten}", t("a", 40), t("b", 39), t("d", 76));
    // Block 1: seven tokens of 25 characters (50 bytes each): three to a line (77 columns), so
    // lines of 3, 3 and 1 word: density 6 / 2 = 3. Widths are counted in characters.
    let block1 = vec![t("\u{e9}", 25); 7].join(" ");
    // Block 2: 40 + 1 + 40 = 81 columns: the second token wraps, one full line of one word.
    let block2 = format!("{} {}", t("x", 40), t("y", 40));
    // Block 3: one line: its density is its word count.
    let block3 = "Short block of five words";
    let a = run(&format!(
        "<p>{block0}</p><p>{block1}</p><div>{block2}</div><p>{block3}</p>"
    ));
    assert_eq!(
        texts(&a),
        [block0.as_str(), block1.as_str(), block2.as_str(), block3]
    );
    let m = &a.features;
    column(m, F::Words, &[13.0, 7.0, 2.0, 5.0]);
    column(m, F::TextDensity, &[11.0 / 3.0, 3.0, 1.0, 5.0]);
    column(m, F::PrevTextDensity, &[0.0, 11.0 / 3.0, 3.0, 1.0]);
    column(m, F::NextTextDensity, &[3.0, 1.0, 5.0, 0.0]);
    // Block 0: 14 tokens, "|" is a separator; 247 characters in tokens + 13 spaces; the
    // 246 characters of the 13 words.
    expect(
        m,
        0,
        &[
            (F::SeparatorRatio, 1.0 / 14.0),
            (F::Chars, 260.0),
            (F::AvgWordLen, 246.0 / 13.0),
        ],
    );
    expect(m, 1, &[(F::Chars, 181.0), (F::AvgWordLen, 25.0)]);
    expect(
        m,
        3,
        &[
            (F::Chars, 25.0),
            (F::AvgWordLen, 21.0 / 5.0),
            (F::Sentences, 0.0),
            (F::AvgSentenceLen, 5.0),
            (F::EndsWithPunct, 0.0),
        ],
    );
}

#[test]
fn dates_times_and_digits() {
    let a = run(
        "<p>Posted 2024-05-01 at 10:30 pm, updated May 3, 2024 and 3 days ago</p>\
         <p>Published 1 May 2024 14:05:09, edited 12/31/2023 at 9:15 a.m. (2 hours ago)</p>\
         <p>Version 10 has 3000 users and 42 plugins</p>",
    );
    let m = &a.features;
    // 2024-05-01 | 10:30 pm | May 3, 2024 | 3 days ago; then 1 May 2024 | 14:05:09 |
    // 12/31/2023 | 9:15 a.m. | 2 hours ago; plain numbers are not dates.
    column(m, F::DateTokens, &[4.0, 5.0, 0.0]);
    // Block 0: 13 words; 2024-05-01, 10:30, "3,", 2024, 3 are mostly digits; Posted and May
    // start upper-case; no word ends a sentence.
    expect(
        m,
        0,
        &[
            (F::Words, 13.0),
            (F::DigitRatio, 5.0 / 13.0),
            (F::UpperRatio, 2.0 / 13.0),
            (F::Sentences, 0.0),
            (F::AvgSentenceLen, 13.0),
        ],
    );
    expect(m, 2, &[(F::Words, 8.0), (F::DigitRatio, 3.0 / 8.0)]);
}

#[test]
fn case_sentences_and_final_punctuation() {
    let a = run("<p>NASA and ESA Launch a new Probe</p>\
         <p>It rained. We stayed in! Did it stop? No\u{2026} Then tea.</p>\
         <p>Note the following:</p>\
         <p>\u{6771}\u{4eac}\u{306f}\u{6674}\u{308c}\u{3002}</p>");
    let m = &a.features;
    // NASA, ESA, Launch, Probe start upper-case; NASA and ESA are all caps ("a" is too short).
    expect(
        m,
        0,
        &[
            (F::Words, 7.0),
            (F::UpperRatio, 4.0 / 7.0),
            (F::AllCapsRatio, 2.0 / 7.0),
            (F::Sentences, 0.0),
            (F::AvgSentenceLen, 7.0),
            (F::EndsWithPunct, 0.0),
        ],
    );
    // Sentence ends: "rained." "in!" "stop?" "No…" "tea." — 11 words, 51 characters, 41 of
    // them in words; It, We, Did, No…, Then start upper-case; "It" and "No…" are not all caps.
    expect(
        m,
        1,
        &[
            (F::Words, 11.0),
            (F::Sentences, 5.0),
            (F::AvgSentenceLen, 11.0 / 5.0),
            (F::EndsWithPunct, 1.0),
            (F::Chars, 51.0),
            (F::AvgWordLen, 41.0 / 11.0),
            (F::UpperRatio, 5.0 / 11.0),
            (F::AllCapsRatio, 0.0),
        ],
    );
    // A colon ends a block with punctuation but ends no sentence.
    expect(
        m,
        2,
        &[
            (F::Sentences, 0.0),
            (F::EndsWithPunct, 1.0),
            (F::AvgSentenceLen, 3.0),
        ],
    );
    // Japanese: one whitespace token of five Unicode words (東 京 は 晴 れ), then 。.
    expect(
        m,
        3,
        &[
            (F::Words, 5.0),
            (F::Chars, 6.0),
            (F::Sentences, 1.0),
            (F::EndsWithPunct, 1.0),
            (F::UpperRatio, 0.0),
        ],
    );
}

#[test]
fn boilerplate_phrases_only_in_short_blocks() {
    let long = "Our privacy team wrote this long paragraph of plain words to explain what we do";
    let a = run(&format!(
        "<p>Sign in</p><p>{long}</p><p>All Rights Reserved 2026</p><p>Plain words</p>"
    ));
    column(&a.features, F::Words, &[2.0, 15.0, 4.0, 2.0]);
    column(&a.features, F::BoilerPhrase, &[1.0, 0.0, 1.0, 0.0]);
}

// ---------------------------------------------------------------------------------------------
// Neighbours and position

#[test]
fn neighbour_features_copy_the_neighbours() {
    let a = run("<h2>Alpha beta</h2>\
         <p>One <a href=/x>two three</a> four</p>\
         <ul><li><a href=/y>Only link</a></li></ul>\
         <p>Last block here now ok</p>");
    let m = &a.features;
    let words = [2.0, 4.0, 2.0, 5.0];
    let ld = [0.0, 0.5, 1.0, 0.0];
    column(m, F::Words, &words);
    column(m, F::LinkDensity, &ld);
    column(m, F::TextDensity, &words);
    column(m, F::PrevWords, &[0.0, 2.0, 4.0, 2.0]);
    column(m, F::PrevLinkDensity, &[0.0, 0.0, 0.5, 1.0]);
    column(m, F::PrevTextDensity, &[0.0, 2.0, 4.0, 2.0]);
    column(m, F::NextWords, &[4.0, 2.0, 5.0, 0.0]);
    column(m, F::NextLinkDensity, &[0.5, 1.0, 0.0, 0.0]);
    column(m, F::NextTextDensity, &[4.0, 2.0, 5.0, 0.0]);
    column(m, F::Prev2Words, &[0.0, 0.0, 2.0, 4.0]);
    column(m, F::Next2Words, &[2.0, 5.0, 0.0, 0.0]);
    column(m, F::PrevHeading, &[0.0, 1.0, 0.0, 0.0]);
    // Every block is within three of every other: 13 words, 4 of them links.
    column(m, F::WindowWords, &[13.0; 4]);
    column(m, F::WindowLinkDensity, &[4.0 / 13.0; 4]);
    column(m, F::Position, &[0.0, 1.0, 2.0, 3.0]);
    column(m, F::RelPosition, &[0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0]);
    column(
        m,
        F::RelWordOffset,
        &[0.0, 2.0 / 13.0, 6.0 / 13.0, 8.0 / 13.0],
    );
    column(
        m,
        F::WordShare,
        &[2.0 / 13.0, 4.0 / 13.0, 2.0 / 13.0, 5.0 / 13.0],
    );
    // The longest block is the last.
    column(m, F::DistLongest, &[0.75, 0.5, 0.25, 0.0]);
    // No h1: offsets from the first h2, block 0.
    column(m, F::HeadingOffset, &[0.0, 0.25, 0.5, 0.75]);
    column(m, F::HasH1, &[0.0; 4]);
    column(m, F::PageBlocks, &[4.0; 4]);
    column(m, F::PageWords, &[13.0; 4]);
    let t: Vec<F> = (0..4).map(|r| one_hot_tag(m, r)).collect();
    assert_eq!(t, [F::TagH2, F::TagP, F::TagAOnly, F::TagP]);
}

#[test]
fn window_spans_three_blocks_each_side() {
    // Nine blocks of 1..=9 words.
    let html: String = (1..=9)
        .map(|n| format!("<p>{}</p>", vec!["w"; n].join(" ")))
        .collect();
    let a = run(&html);
    let m = &a.features;
    column(
        m,
        F::WindowWords,
        &[10., 15., 21., 28., 35., 42., 39., 35., 30.],
    );
    column(
        m,
        F::RelWordOffset,
        &[0., 1., 3., 6., 10., 15., 21., 28., 36.].map(|w| w / 45.0),
    );
    column(
        m,
        F::RelPosition,
        &[0., 1., 2., 3., 4., 5., 6., 7., 8.].map(|i| i / 8.0),
    );
    column(m, F::Prev2Words, &[0., 0., 1., 2., 3., 4., 5., 6., 7.]);
    column(m, F::Next2Words, &[3., 4., 5., 6., 7., 8., 9., 0., 0.]);
}

#[test]
fn single_block_page_edges() {
    let a = run("<p>Alone here</p>");
    expect(
        &a.features,
        0,
        &[
            (F::Position, 0.0),
            (F::RelPosition, 0.0),
            (F::PrevWords, 0.0),
            (F::NextWords, 0.0),
            (F::WindowWords, 2.0),
            (F::WordShare, 1.0),
            (F::DistLongest, 0.0),
            (F::GroupBlocks, 1.0),
            (F::GroupSpan, 0.0),
            (F::DupCount, 0.0),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Structure

#[test]
fn semantic_and_vocabulary_flags() {
    let a = run("<body>\
         <nav class=\"main-menu\"><a href=/>Home</a> <a href=/blog>Blog</a></nav>\
         <article><p>Article body text</p></article>\
         <div class=\"comment-list\"><p>Nice post indeed</p></div>\
         <p hidden>Hidden by attribute</p>\
         <p style=\"display: none\">Hidden by style</p>\
         <p aria-hidden=\"true\">Hidden by aria</p>\
         <p aria-hidden=\"false\">Shown despite aria</p>\
         <p>Same text twice</p>\
         <p>Same text twice</p>\
         <footer><p>Footer words here</p></footer>\
         </body>");
    assert_eq!(
        texts(&a),
        [
            "Home Blog",
            "Article body text",
            "Nice post indeed",
            "Hidden by attribute",
            "Hidden by style",
            "Hidden by aria",
            "Shown despite aria",
            "Same text twice",
            "Same text twice",
            "Footer words here"
        ]
    );
    let m = &a.features;
    column(m, F::InNav, &[1., 0., 0., 0., 0., 0., 0., 0., 0., 0.]);
    // "main-menu" holds "menu" (navigation) and "main" (content).
    column(m, F::VNav, &[1., 0., 0., 0., 0., 0., 0., 0., 0., 0.]);
    column(m, F::VContent, &[1., 0., 0., 0., 0., 0., 0., 0., 0., 0.]);
    column(
        m,
        F::NearestBoiler,
        &[1., 0., 1., 0., 0., 0., 0., 0., 0., 0.],
    );
    column(m, F::NearestGood, &[1., 0., 0., 0., 0., 0., 0., 0., 0., 0.]);
    column(m, F::InArticle, &[0., 1., 0., 0., 0., 0., 0., 0., 0., 0.]);
    column(m, F::VComment, &[0., 0., 1., 0., 0., 0., 0., 0., 0., 0.]);
    column(m, F::Hidden, &[0., 0., 0., 1., 1., 1., 0., 0., 0., 0.]);
    column(m, F::DupCount, &[0., 0., 0., 0., 0., 0., 0., 1., 1., 0.]);
    column(m, F::InFooter, &[0., 0., 0., 0., 0., 0., 0., 0., 0., 1.]);
    // The two links of the menu are all of its words.
    expect(m, 0, &[(F::AnchorWords, 2.0), (F::TagAOnly, 1.0)]);
    for f in [
        F::VFooter,
        F::VSidebar,
        F::VShare,
        F::VRelated,
        F::VOverlay,
        F::VAd,
        F::VHeader,
        F::VMeta,
        F::VArticle,
        F::VProduct,
        F::InMain,
        F::InAside,
        F::InHeader,
        F::InForm,
        F::InFigure,
        F::InButton,
    ] {
        column(m, f, &[0.0; 10]);
    }
}

#[test]
fn more_vocabulary_and_roles() {
    let a = run("<div role=\"navigation\"><p>Role nav</p></div>\
         <div id=\"ads\"><p>Whole token ads</p></div>\
         <div class=\"shadow loading\"><p>Not an ad</p></div>\
         <div class=\"sr-only\"><p>Screen reader text</p></div>\
         <div class=\"Cookie-Banner\"><p>We use cookies</p></div>\
         <main><div class=\"entry-content\"><p>Main entry</p></div></main>");
    let m = &a.features;
    column(m, F::InNav, &[1., 0., 0., 0., 0., 0.]);
    column(m, F::VAd, &[0., 1., 0., 0., 0., 0.]);
    column(m, F::Hidden, &[0., 0., 0., 1., 0., 0.]);
    column(m, F::VOverlay, &[0., 0., 0., 0., 1., 0.]);
    column(m, F::InMain, &[0., 0., 0., 0., 0., 1.]);
    column(m, F::VArticle, &[0., 0., 0., 0., 0., 1.]);
    column(m, F::VContent, &[0., 0., 0., 0., 0., 1.]);
    column(m, F::NearestGood, &[0., 0., 0., 0., 0., 1.]);
}

#[test]
fn title_overlap_and_headings() {
    let a = run("<title>Rust Parsing Guide</title>\
         <h1>Rust parsing guide!</h1><p>Guide to other things</p><p>Nothing shared</p>");
    let m = &a.features;
    // Words are lower-cased and trimmed of punctuation before comparing with the title.
    column(m, F::TitleOverlap, &[1.0, 0.25, 0.0]);
    column(m, F::HasH1, &[1.0; 3]);
    column(m, F::HeadingOffset, &[0.0, 1.0 / 3.0, 2.0 / 3.0]);
    column(m, F::PrevHeading, &[0.0, 1.0, 0.0]);
    // No title: no overlap.
    let a = run("<h1>Rust parsing guide</h1>");
    column(&a.features, F::TitleOverlap, &[0.0]);
    // A title of hundreds of words (looked up in a set, not one by one) reads the same.
    let many: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
    let a = run(&format!(
        "<title>{} Rust Parsing Guide Ünïcode</title>\
         <h1>Rust parsing guide!</h1><p>Guide to other things</p><p>ÜNÏCODE w299 and more</p>",
        many.join(" | ")
    ));
    column(&a.features, F::TitleOverlap, &[1.0, 0.25, 0.5]);
}

#[test]
fn containers_groups_and_ancestors() {
    let a = run("<html><body>\
         <nav><ul><li><a href=/>Home</a></li><li><a href=/n>News</a></li></ul></nav>\
         <article><p>First para has five words.</p><p>Second one has four.</p></article>\
         <footer><p>Footer line</p></footer>\
         </body></html>");
    let m = &a.features;
    column(m, F::Words, &[1., 1., 5., 4., 2.]);
    // Depths: html 1, body 2, nav/article/footer 3, ul and the p's 4, li 5.
    column(m, F::Depth, &[5., 5., 4., 4., 4.]);
    column(m, F::RelDepth, &[1., 1., 0.8, 0.8, 0.8]);
    // Non-link words: the article collects 5 + 4 from its children, the body half of each
    // paragraph's (2.5 + 2 + 1), the footer 2: the article is the top container.
    column(m, F::InTopContainer, &[0., 0., 1., 1., 0.]);
    column(m, F::TopContainerShare, &[9.0 / 13.0; 5]);
    // Path groups: the two menu items, the two article paragraphs, the footer paragraph.
    column(m, F::GroupBlocks, &[2., 2., 2., 2., 1.]);
    column(
        m,
        F::GroupWordShare,
        &[2. / 13., 2. / 13., 9. / 13., 9. / 13., 2. / 13.],
    );
    column(m, F::GroupLinkDensity, &[1., 1., 0., 0., 0.]);
    column(m, F::GroupSpan, &[0.2, 0.2, 0.2, 0.2, 0.]);
    column(m, F::LargestGroupShare, &[9.0 / 13.0; 5]);
    column(m, F::GroupHeadings, &[0.0; 5]);
    // Parent, grandparent and the element three up: li → ul, nav, body; p → article/footer,
    // body, html.
    column(
        m,
        F::ParentWordShare,
        &[2. / 13., 2. / 13., 9. / 13., 9. / 13., 2. / 13.],
    );
    column(m, F::ParentLinkDensity, &[1., 1., 0., 0., 0.]);
    column(
        m,
        F::GrandparentWordShare,
        &[2. / 13., 2. / 13., 1., 1., 1.],
    );
    column(
        m,
        F::GrandparentLinkDensity,
        &[1., 1., 2. / 13., 2. / 13., 2. / 13.],
    );
    column(m, F::Ancestor3WordShare, &[1.; 5]);
    column(m, F::Ancestor3LinkDensity, &[2. / 13.; 5]);
    // The longest block is block 2.
    column(m, F::DistLongest, &[0.4, 0.2, 0., 0.2, 0.4]);
    // Text to tag: one link in each menu item.
    column(m, F::TextToTag, &[0.5, 0.5, 5., 4., 2.]);
}

#[test]
fn columns_of_a_table_layout_are_containers_and_structures_of_their_own() {
    // A page laid out with a table, as many were before style sheets: the menu in one cell,
    // the story in the next, each a run of lines cut by <br>, and no class anywhere.
    let a = run("<table><tr>\
         <td><a href=/>Home</a><br><a href=/n>News</a><br><a href=/s>Sport</a></td>\
         <td>First line of the story here.<br>Second line goes on.</td>\
         </tr></table>");
    let m = &a.features;
    column(m, F::Words, &[1., 1., 1., 6., 4.]);
    // Each cell holds its lines as a container holds paragraphs: the menu's cell has 3 of
    // the 13 words, all links; the story's cell 10, none.
    column(
        m,
        F::ParentWordShare,
        &[3. / 13., 3. / 13., 3. / 13., 10. / 13., 10. / 13.],
    );
    column(m, F::ParentLinkDensity, &[1., 1., 1., 0., 0.]);
    // Then the row, then the table body the parser adds.
    column(m, F::GrandparentWordShare, &[1.; 5]);
    column(m, F::GrandparentLinkDensity, &[3. / 13.; 5]);
    column(m, F::Ancestor3WordShare, &[1.; 5]);
    // The story's cell collects its 10 non-link words (the row half of them): it is the top
    // container, and the menu is outside it.
    column(m, F::InTopContainer, &[0., 0., 0., 1., 1.]);
    column(m, F::TopContainerShare, &[10. / 13.; 5]);
    // The two cells are two columns, so two path groups, though their tags are the same.
    column(m, F::GroupBlocks, &[3., 3., 3., 2., 2.]);
    column(
        m,
        F::GroupWordShare,
        &[3. / 13., 3. / 13., 3. / 13., 10. / 13., 10. / 13.],
    );
    column(m, F::GroupLinkDensity, &[1., 1., 1., 0., 0.]);
    // The same columns as divisions without class or id: told apart by their places too.
    let b = run("<div>\
         <div><a href=/>Home</a><br><a href=/n>News</a><br><a href=/s>Sport</a></div>\
         <div>First line of the story here.<br>Second line goes on.</div>\
         </div>");
    for f in [
        F::ParentWordShare,
        F::InTopContainer,
        F::GroupBlocks,
        F::GroupWordShare,
    ] {
        assert_eq!(
            (0..5).map(|i| b.features.get(i, f)).collect::<Vec<_>>(),
            (0..5).map(|i| m.get(i, f)).collect::<Vec<_>>(),
            "{f:?}"
        );
    }
    // Divisions with a class name are one structure, wherever they stand (posts of a thread).
    let c = run("<div class=post>One two</div><div class=post>Three four</div>");
    column(&c.features, F::GroupBlocks, &[2., 2.]);
    // The lines of a paragraph stay inside it: their container is the paragraph's parent.
    let a = run("<div><p>One two<br>three four</p><p>five six</p></div><p>seven eight</p>");
    assert_eq!(
        texts(&a),
        ["One two", "three four", "five six", "seven eight"]
    );
    column(
        &a.features,
        F::ParentWordShare,
        &[6. / 8., 6. / 8., 6. / 8., 1.],
    );
}

#[test]
fn repeated_structures_ignore_digits_in_class_names() {
    let a = run("<div class=\"post-1\"><h3>First</h3><p>One two</p></div>\
         <div class=\"post-2\"><h3>Second</h3><p>Three four five</p></div>\
         <div class=\"about\"><p>Six seven</p></div>");
    let m = &a.features;
    column(m, F::GroupBlocks, &[2., 2., 2., 2., 1.]);
    column(m, F::GroupSpan, &[0.4, 0.4, 0.4, 0.4, 0.]);
    // Both posts' headings count for the blocks under a post-N parent.
    column(m, F::GroupHeadings, &[2., 2., 2., 2., 0.]);
}

#[test]
fn parent_share_of_a_block_inside_an_inline_element() {
    // The span holds "Inside words" and a lone "|", which is no block; the following
    // paragraph is outside the span. Parent of block 0 = span: 2 words of 5.
    let a = run("<span><p>Inside words</p> | </span><p>Outside words here</p>");
    assert_eq!(texts(&a), ["Inside words", "Outside words here"]);
    expect(&a.features, 0, &[(F::ParentWordShare, 2.0 / 5.0)]);
}

#[test]
fn hidden_by_upper_case_style() {
    let a = run("<p style=\"DISPLAY: NONE\">Shouted style</p>\
         <p style=\"Visibility: Hidden\">Capital style</p>");
    column(&a.features, F::Hidden, &[1.0, 1.0]);
}

// ---------------------------------------------------------------------------------------------
// Encodings

#[test]
fn windows_1252_by_meta_charset() {
    let bytes: &[u8] = b"<html><head><meta charset=\"windows-1252\"><title>Caf\xe9</title></head>\
        <body><p>\x93Caf\xe9 cr\xe8me\x94 \x96 na\xefve</p></body></html>";
    let a = run_bytes(bytes);
    assert_eq!(a.encoding, "windows-1252");
    // An extraction says it too.
    let ex = textsift::Extractor::new().unwrap();
    assert_eq!(ex.extract(bytes).unwrap().encoding, "windows-1252");
    assert_eq!(ex.extract(b"<p>Caf\xc3\xa9</p>").unwrap().encoding, "UTF-8");
    assert_eq!(a.page.title, "Caf\u{e9}");
    assert_eq!(
        texts(&a),
        ["\u{201c}Caf\u{e9} cr\u{e8}me\u{201d} \u{2013} na\u{ef}ve"]
    );
    // The en dash is a separator token, not a word.
    expect(
        &a.features,
        0,
        &[(F::Words, 3.0), (F::SeparatorRatio, 0.25), (F::Chars, 20.0)],
    );
}

#[test]
fn shift_jis_by_meta_charset() {
    let mut bytes = b"<html><head><meta charset=\"Shift_JIS\"></head><body><p>".to_vec();
    // 東京は晴れです。 in Shift_JIS.
    bytes.extend_from_slice(&[
        0x93, 0x8c, 0x8b, 0x9e, 0x82, 0xcd, 0x90, 0xb0, 0x82, 0xea, 0x82, 0xc5, 0x82, 0xb7, 0x81,
        0x42,
    ]);
    bytes.extend_from_slice(b"</p></body></html>");
    let a = run_bytes(&bytes);
    assert_eq!(a.encoding, "Shift_JIS");
    assert_eq!(
        texts(&a),
        ["\u{6771}\u{4eac}\u{306f}\u{6674}\u{308c}\u{3067}\u{3059}\u{3002}"]
    );
    expect(&a.features, 0, &[(F::Chars, 8.0), (F::Sentences, 1.0)]);
}

#[test]
fn utf8_byte_order_mark() {
    let a = run_bytes(
        b"\xef\xbb\xbf<title>Gr\xc3\xbc\xc3\x9fe</title><p>Gr\xc3\xbc\xc3\x9fe aus K\xc3\xb6ln</p>",
    );
    assert_eq!(a.encoding, "UTF-8");
    assert_eq!(a.page.title, "Gr\u{fc}\u{df}e");
    assert_eq!(texts(&a), ["Gr\u{fc}\u{df}e aus K\u{f6}ln"]);
    // The mark wins over a contrary declaration.
    let a = run_bytes(b"\xef\xbb\xbf<meta charset=\"windows-1252\"><p>K\xc3\xb6ln</p>");
    assert_eq!(a.encoding, "UTF-8");
    assert_eq!(texts(&a), ["K\u{f6}ln"]);
}

// ---------------------------------------------------------------------------------------------
// Deep pages

#[test]
fn deeply_nested_divs() {
    let depth = 100_000;
    let html = format!(
        "<div>outer words{}inner words{}after words</div>",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    let a = run(&html);
    assert_eq!(texts(&a), ["outer words", "inner words", "after words"]);
    assert_eq!(tags(&a), ["div", "div", "div"]);
    assert!(a.features.data.iter().all(|v| v.is_finite()));
    let deepest = a.page.element_of(&a.page.blocks[1]).depth as usize;
    assert!(deepest <= MAX_NESTING + 4, "depth {deepest}");
}

#[test]
fn deeply_nested_inline_elements() {
    let pairs = 50_000;
    let html = format!(
        "<p>Start {}deep inline{} end</p>",
        "<span><b>".repeat(pairs),
        "</b></span>".repeat(pairs)
    );
    let a = run(&html);
    assert_eq!(texts(&a), ["Start deep inline end"]);
    assert_eq!(tags(&a), ["p"]);
    expect(&a.features, 0, &[(F::Words, 4.0)]);
    assert!(a.page.blocks[0].inline_tags as usize <= MAX_NESTING);
    assert!(a.features.data.iter().all(|v| v.is_finite()));
}

// ---------------------------------------------------------------------------------------------
// Refused inputs

#[test]
fn refused_inputs_are_typed_errors() {
    let limits = SegmentLimits::default();
    assert!(matches!(analyze(b"", limits), Err(Error::Empty)));
    assert!(matches!(
        analyze(b" \n\t\r\x0c  ", limits),
        Err(Error::Empty)
    ));
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0";
    assert!(matches!(analyze(png, limits), Err(Error::NotHtml(k)) if k == "PNG image"));
    let jpeg = b"\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01";
    assert!(matches!(analyze(jpeg, limits), Err(Error::NotHtml(k)) if k == "JPEG image"));
    // Compressed bytes handed over without decompression.
    let gz = b"\x1f\x8b\x08\0\0\0\0\0\0\x03\xcb\x48\xcd\xc9\xc9\x07\0";
    assert!(matches!(analyze(gz, limits), Err(Error::NotHtml(k)) if k == "gzip data"));
    // Mostly NUL bytes.
    let mut nul = vec![0u8; 3000];
    nul.extend_from_slice(b"<p>text</p>");
    assert!(matches!(analyze(&nul, limits), Err(Error::NotHtml(_))));
}

#[test]
fn random_bytes_never_panic() {
    for seed in 0..200u64 {
        let bytes = crate::noise(seed, (seed as usize * 37) % 3000 + 1);
        match analyze(&bytes, SegmentLimits::default()) {
            Ok(a) => {
                assert_eq!(a.features.rows(), a.page.blocks.len());
                assert!(a.features.data.iter().all(|v| v.is_finite()));
            }
            Err(Error::NotHtml(_) | Error::Empty) => {}
            Err(e) => panic!("seed {seed}: unexpected error {e}"),
        }
    }
}

#[test]
fn random_binary_is_refused() {
    for seed in 1..=5u64 {
        let bytes = crate::noise(seed, 4096);
        match analyze(&bytes, SegmentLimits::default()) {
            Err(Error::NotHtml(_)) => {}
            Err(e) => panic!("seed {seed}: {e}"),
            Ok(a) => panic!(
                "seed {seed}: decoded as {} into {} blocks",
                a.encoding,
                a.page.blocks.len()
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Schema

#[test]
fn schema_names_and_rows() {
    assert_eq!(N_FEATURES, SCHEMA.len());
    let mut seen = HashSet::new();
    for f in SCHEMA {
        assert!(
            !f.name.is_empty()
                && f.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "bad name {:?}",
            f.name
        );
        assert!(seen.insert(f.name), "duplicate name {}", f.name);
        assert!(!f.definition.is_empty(), "{} has no definition", f.name);
        assert!(!f.range.is_empty(), "{} has no range", f.name);
    }
    // The enum and the table are in the same order.
    assert_eq!(name(F::Words), "words");
    assert_eq!(name(F::TextDensity), "text_density");
    assert_eq!(name(F::TagAOnly), "tag_a_only");
    assert_eq!(name(F::VNav), "cls_nav");
    assert_eq!(name(F::DupCount), "dup_count");
    assert_ne!(schema_hash(), 0);
    let a = run(MIXED_PAGE);
    for row in 0..a.features.rows() {
        assert_eq!(a.features.row(row).len(), N_FEATURES);
    }
}

/// Check every value of a matrix against the range its schema entry gives.
fn check_ranges(html: &str, m: &FeatureMatrix) {
    for row in 0..m.rows() {
        for (def, &v) in SCHEMA.iter().zip(m.row(row)) {
            assert!(v.is_finite(), "{html:.60}: row {row} `{}` = {v}", def.name);
            let ok = match def.range {
                "0/1" => v == 0.0 || v == 1.0,
                "0–1" => (0.0..=1.0).contains(&v),
                "−1–1" => (-1.0..=1.0).contains(&v),
                "0…" => v >= 0.0,
                "1…" => v >= 1.0,
                "real" => v.is_finite(),
                other => panic!("unknown range {other} of {}", def.name),
            };
            assert!(
                ok,
                "{html:.60}: row {row} `{}` = {v} outside {}",
                def.name, def.range
            );
        }
    }
}

#[test]
fn values_are_finite_and_in_range_on_odd_pages() {
    let long_word = "w".repeat(100_000);
    let many_links: String = (0..300)
        .map(|i| format!("<a href=/{i}>link {i}</a> "))
        .collect();
    let pages = [
        "<html><head></head><body></body></html>".to_string(),
        "<a href=a>a</a><a href=b>b</a><a href=c>c</a>".to_string(),
        many_links,
        "<p> \t </p><p>&nbsp;&nbsp;</p><div>\u{3000}</div><p>|</p>".to_string(),
        format!("<p>{long_word}</p><p>short</p>"),
        format!("<p>a {long_word} b</p>"),
        "<p dir=rtl>\u{645}\u{631}\u{62d}\u{628}\u{627} \u{628}\u{627}\u{644}\u{639}\u{627}\u{644}\u{645}</p>\
         <p dir=rtl>\u{5e9}\u{5dc}\u{5d5}\u{5dd} \u{5e2}\u{5d5}\u{5dc}\u{5dd}</p>\
         <p>\u{8fd9}\u{662f}\u{4e00}\u{4e2a}\u{53e5}\u{5b50}\u{3002}</p>"
            .to_string(),
        "<title>\u{2014}</title><h1>!!!</h1><h1>1</h1>".to_string(),
        "<table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>".to_string(),
        "<ul><li><ul><li><ul><li>nested</li></ul></li></ul></li></ul>".to_string(),
        "<p>same</p>".repeat(50),
        "<".to_string(),
        "<!--".to_string(),
        "<p>&#0; &#xffffffff; &bogus; \u{0}</p>".to_string(),
        "</p></div></a>closing only".to_string(),
        "<a href=x><h1>Heading link</h1><p>card</p></a>".to_string(),
        "<frameset><frame src=a></frameset>".to_string(),
        "<math><mi>x</mi></math><iframe>framed</iframe><textarea>typed</textarea>after"
            .to_string(),
    ];
    for html in &pages {
        let a = run(html);
        check_ranges(html, &a.features);
    }
    check_ranges(MIXED_PAGE, &run(MIXED_PAGE).features);
}
