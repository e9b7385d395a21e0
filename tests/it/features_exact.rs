//! Exact blocks and feature values of hand-written pages, worked out by hand.

use textsift::features::{FeatureMatrix, F, N_FEATURES};
use textsift::{analyze, Analysis, Error, SegmentLimits};

fn run(html: &str) -> Analysis {
    analyze(html.as_bytes(), SegmentLimits::default()).unwrap()
}

fn close(m: &FeatureMatrix, row: usize, f: F, want: f32) {
    let got = m.get(row, f);
    assert!(
        (got - want).abs() < 1e-5,
        "row {row} {f:?}: got {got}, want {want}"
    );
}

#[test]
fn boilerpipe_features_of_a_small_page() {
    let a = run("<html><head><title>Bridge News</title></head><body>\
                 <p>Bridge news today</p>\
                 <div>NASA and ESA Launch a new Probe.</div>\
                 <p>Read <a href=/x>the full story here</a> now</p></body></html>");
    assert_eq!(a.page.title, "Bridge News");
    let texts: Vec<&str> = a.page.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Bridge news today",
            "NASA and ESA Launch a new Probe.",
            "Read the full story here now"
        ]
    );
    let m = &a.features;
    assert_eq!(m.rows(), 3);
    assert_eq!(m.data.len(), 3 * N_FEATURES);
    // Block 0: three words on one line; two of them in the title.
    close(m, 0, F::Words, 3.0);
    close(m, 0, F::TextDensity, 3.0);
    close(m, 0, F::TitleOverlap, 2.0 / 3.0);
    close(m, 0, F::TagP, 1.0);
    close(m, 0, F::PrevWords, 0.0);
    close(m, 0, F::NextWords, 7.0);
    // Block 1: NASA, ESA, Launch, Probe start upper-case; NASA and ESA are all caps ("a" is
    // too short to count); one sentence end.
    close(m, 1, F::Words, 7.0);
    close(m, 1, F::UpperRatio, 4.0 / 7.0);
    close(m, 1, F::AllCapsRatio, 2.0 / 7.0);
    close(m, 1, F::Sentences, 1.0);
    close(m, 1, F::AvgSentenceLen, 7.0);
    close(m, 1, F::EndsWithPunct, 1.0);
    close(m, 1, F::TagDiv, 1.0);
    close(m, 1, F::PrevWords, 3.0);
    close(m, 1, F::NextWords, 6.0);
    close(m, 1, F::NextLinkDensity, 4.0 / 6.0);
    close(m, 1, F::RelPosition, 0.5);
    // Block 2: four of six words are link text.
    close(m, 2, F::AnchorWords, 4.0);
    close(m, 2, F::LinkDensity, 4.0 / 6.0);
    close(m, 2, F::PrevLinkDensity, 0.0);
    close(m, 2, F::NextWords, 0.0);
    close(m, 2, F::PageWords, 16.0);
    close(m, 2, F::LinkDensityRel, 4.0 / 6.0 - 4.0 / 16.0);
    // Exactly one tag class per block.
    for row in 0..3 {
        assert_eq!(
            crate::blocks_features::TAGS
                .iter()
                .map(|&t| m.get(row, t))
                .sum::<f32>(),
            1.0
        );
    }
}

#[test]
fn text_density_at_80_columns() {
    // 30 tokens of 9 characters: lines hold 8 tokens (8 × 9 + 7 spaces = 79 columns), so the
    // text wraps into three full lines of 8 words and a last line of 6, which is left out:
    // density = 24 words / 3 lines = 8.
    let words = vec!["abcdefghi"; 30].join(" ");
    let a = run(&format!("<p>{words}</p><p>short one</p>"));
    close(&a.features, 0, F::Words, 30.0);
    close(&a.features, 0, F::TextDensity, 8.0);
    close(&a.features, 1, F::TextDensity, 2.0);
    close(&a.features, 1, F::PrevTextDensity, 8.0);
}

#[test]
fn dates_and_links_only_blocks() {
    let a = run(
        "<p>Posted 2024-05-01 at 10:30 pm, updated May 3, 2024 and 3 days ago</p>\
                 <ul><li><a href=/a>Home page</a></li></ul>",
    );
    close(&a.features, 0, F::DateTokens, 4.0);
    close(&a.features, 1, F::TagAOnly, 1.0);
    close(&a.features, 1, F::InList, 1.0);
}

#[test]
fn first_person_words_of_a_review() {
    // "I’m" counts by its part before the apostrophe, "(I", "me." and "“my”" without their
    // punctuation, and "J'ai" as French; "Imagine", "mine-shaft" and "Island" do not count.
    let a = run("<h2>Great product</h2>\
                 <p>I’m happy: my order came fast (I asked) and it fits me.</p>\
                 <p>Imagine an Island with a mine-shaft, “my” friend.</p>\
                 <p>J'ai adoré, mon ami.</p>");
    let m = &a.features;
    // Block 1: 12 words, of which I’m, my, (I and me. are first person.
    close(m, 1, F::Words, 12.0);
    close(m, 1, F::FirstPerson, 4.0 / 12.0);
    close(m, 2, F::FirstPerson, 1.0 / 8.0);
    close(m, 3, F::FirstPerson, 2.0 / 4.0);
    // Every block is within 3 of every other: 7 of the page's 2 + 12 + 8 + 4 words.
    for row in 0..4 {
        close(m, row, F::WindowFirstPerson, 7.0 / 26.0);
    }
}

#[test]
fn shift_jis_with_meta_charset() {
    let mut page = b"<html><head><meta charset=\"Shift_JIS\"></head><body><p>".to_vec();
    // "日本語のテキストです" in Shift_JIS.
    page.extend_from_slice(&[
        0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xcc, 0x83, 0x65, 0x83, 0x4c, 0x83, 0x58, 0x83,
        0x67, 0x82, 0xc5, 0x82, 0xb7,
    ]);
    page.extend_from_slice(b"</p></body></html>");
    let a = analyze(&page, SegmentLimits::default()).unwrap();
    assert_eq!(a.encoding, "Shift_JIS");
    assert_eq!(a.page.blocks[0].text, "日本語のテキストです");
}

#[test]
fn empty_and_binary_inputs_are_typed_errors() {
    assert!(matches!(
        analyze(b"", SegmentLimits::default()),
        Err(Error::Empty)
    ));
    assert!(matches!(
        analyze(b"%PDF-1.7\n%\xe2\xe3", SegmentLimits::default()),
        Err(Error::NotHtml(_))
    ));
    // A page with markup but no words has no blocks, and that is not an error.
    let a = analyze(
        b"<html><body><div> | </div></body></html>",
        SegmentLimits::default(),
    )
    .unwrap();
    assert!(a.page.blocks.is_empty() && a.features.rows() == 0);
}

#[test]
fn every_value_is_finite_on_odd_pages() {
    let long_word = "x".repeat(10_000);
    for html in [
        "<body></body>".to_string(),
        "<a href=a>a</a><a href=b>b</a>".to_string(),
        format!("<p>{long_word}</p>"),
        "<p dir=rtl>שלום עולם</p><p>中文文本没有空格</p>".to_string(),
        "<table><tr><td>1</td><td>2</td></tr></table>".to_string(),
    ] {
        let a = run(&html);
        assert!(a.features.data.iter().all(|v| v.is_finite()), "{html}");
    }
}

#[test]
fn text_without_spaces_counts_its_unicode_words() {
    // Chinese and Japanese put no spaces between words: a paragraph is one whitespace token,
    // so its words are its Unicode words (each ideograph one, a run of Katakana or Latin
    // letters one), and a wide character takes two of the 80 columns.
    let a = run("<html><body>\
                 <p>北京时间昨天晚上，市政府召开新闻发布会。<a href=/x>工程师</a>表示很好！</p>\
                 <p>日本語のテキストです。iPhone手机</p>\
                 <p>中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中中</p>\
                 </body></html>");
    let m = &a.features;
    assert_eq!(m.rows(), 3);
    // 8 + 10 + 3 + 4 ideographs; the three between <a> are link text; 。 and ！ end sentences;
    // 56 columns, one line.
    close(m, 0, F::Words, 25.0);
    close(m, 0, F::AnchorWords, 3.0);
    close(m, 0, F::Sentences, 2.0);
    close(m, 0, F::TextDensity, 25.0);
    close(m, 0, F::AvgWordLen, 1.0);
    // 日 本 語 の テキスト で す, then iPhone 手 机.
    close(m, 1, F::Words, 10.0);
    close(m, 1, F::Sentences, 1.0);
    // 50 ideographs, 100 columns: the 41st starts a second line, so 40 words in the full line.
    close(m, 2, F::Words, 50.0);
    close(m, 2, F::TextDensity, 40.0);
}

#[test]
fn thai_lao_khmer_and_myanmar_words_come_from_a_dictionary() {
    // These scripts put no spaces between words either, and no rule finds their ends: a
    // dictionary does.
    let a = run("<html><body>\
                 <p>ภาษาไทยเป็นภาษาที่มีวรรณยุกต์ <a href=/x>ภาษาไทย</a></p>\
                 <p>ភាសាខ្មែរជាភាសាផ្លូវការ។ ພາສາລາວ</p>\
                 <p>မြန်မာဘာသာစကား။</p>\
                 </body></html>");
    let m = &a.features;
    assert_eq!(m.rows(), 3);
    // ภาษา ไทย เป็น ภาษา ที่ มี วรรณยุกต์, then the link's ภาษา ไทย.
    close(m, 0, F::Words, 9.0);
    close(m, 0, F::AnchorWords, 2.0);
    close(m, 0, F::Sentences, 0.0);
    // ភាសាខ្មែរ ជា ភាសាផ្លូវការ, ended by the khan ។; then ພາສາ ລາວ.
    close(m, 1, F::Words, 5.0);
    close(m, 1, F::Sentences, 1.0);
    // မြန်မာဘာသာ စကား, ended by the section mark ။.
    close(m, 2, F::Words, 2.0);
    close(m, 2, F::Sentences, 1.0);
}

#[test]
fn a_feature_matrix_prints_its_shape_not_its_values() {
    let a = run("<p>One paragraph of a few words.</p><p>And a second one after it.</p>");
    assert_eq!(
        format!("{:?}", a.features),
        format!("FeatureMatrix {{ rows: 2, features: {N_FEATURES}, .. }}")
    );
}
