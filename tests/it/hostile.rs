//! Hostile and broken inputs: every one must end, quickly and without a panic, in a clear
//! per-page error or a (possibly empty) extraction. The inputs are generated here; none is
//! stored in the repository.

use crate::gzip;
use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use textsift::extract::{Extraction, Limits};
use textsift::input::{self, Item};
use textsift::{Error, Extractor, Result};

fn extractor() -> &'static Extractor {
    static EX: OnceLock<Extractor> = OnceLock::new();
    EX.get_or_init(|| Extractor::new().unwrap())
}

/// Run `f`, failing when it takes longer than `secs` seconds (generous: machines are slow and
/// busy, but a quadratic blow-up takes minutes).
fn within<T>(secs: u64, what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    let took = t.elapsed();
    assert!(took < Duration::from_secs(secs), "{what} took {took:?}");
    out
}

fn extract(bytes: &[u8]) -> Result<Extraction> {
    extractor().extract(bytes)
}

/// An extraction that holds together: one score in 0..1 per block, kept text made of blocks.
fn check(e: &Extraction) {
    assert_eq!(e.features.rows(), e.blocks.len());
    for (i, b) in e.blocks.iter().enumerate() {
        assert_eq!(b.index, i);
        assert!((0.0..=1.0).contains(&b.score), "score {}", b.score);
        assert!(!b.text.is_empty());
    }
    assert!(e.features.data.iter().all(|v| v.is_finite()));
}

fn all_text(e: &Extraction) -> String {
    e.blocks
        .iter()
        .map(|b| b.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

const ARTICLE: &str = "<html><head><title>Bridge news</title></head><body>\
    <nav class=menu><a href=/>Home</a> <a href=/news>News</a></nav><article><h1>The bridge</h1>\
    <p>The town council met on Monday to plan the new bridge over the river. Engineers said the \
    work would take two years, and residents asked about traffic, noise and the cost.</p>\
    <p>The mayor promised a public meeting before any work begins next spring.</p></article>\
    <footer><p>Copyright 2026 Example News. All rights reserved.</p></footer></body></html>";

// ---------------------------------------------------------------------------------------------
// Nesting

#[test]
fn div_nesting_100_000_deep() {
    let depth = 100_000;
    let html = format!(
        "{}deep text here{}",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    let e = within(30, "deep divs", || extract(html.as_bytes())).unwrap();
    check(&e);
    assert_eq!(all_text(&e), "deep text here");
    // Unclosed, too.
    let html = format!("{}open text", "<div>".repeat(depth));
    let e = within(30, "unclosed divs", || extract(html.as_bytes())).unwrap();
    assert_eq!(all_text(&e), "open text");
}

#[test]
fn inline_nesting_100_000_deep() {
    let tags = ["b", "i", "span", "em", "font", "a"];
    let mut html = String::new();
    for i in 0..100_000 {
        html.push_str(&format!("<{}>", tags[i % tags.len()]));
    }
    html.push_str("inline words");
    for i in (0..100_000).rev() {
        html.push_str(&format!("</{}>", tags[i % tags.len()]));
    }
    let e = within(30, "deep inline tags", || extract(html.as_bytes())).unwrap();
    check(&e);
    assert_eq!(all_text(&e), "inline words");
}

#[test]
fn foreign_and_template_nesting() {
    let open = "<template><svg><math><noscript><div><foreignObject><p>";
    let close = "</p></foreignObject></div></noscript></math></svg></template>";
    let html = format!(
        "<p>Outside text.</p>{}inside{}<p>After text.</p>",
        open.repeat(20_000),
        close.repeat(20_000)
    );
    let e = within(30, "template/svg/math/noscript nesting", || {
        extract(html.as_bytes())
    })
    .unwrap();
    check(&e);
    let text = all_text(&e);
    assert!(text.starts_with("Outside text."), "{text}");
    assert!(
        !text.contains("inside"),
        "template content is not text: {text}"
    );
    // noscript alone holds markup (scripting is off) and its text is kept.
    let html = format!(
        "{}kept{}",
        "<noscript>".repeat(50_000),
        "</noscript>".repeat(50_000)
    );
    let e = within(30, "noscript nesting", || extract(html.as_bytes())).unwrap();
    assert_eq!(all_text(&e), "kept");
    // Misnested foreign content.
    let html = "<svg><p><math><table><td><svg><desc><p>x</svg></table>y".repeat(5_000);
    let e = within(30, "misnested foreign content", || extract(html.as_bytes())).unwrap();
    check(&e);
}

/// Formatting elements left open are made again in every paragraph: a small page that would
/// grow to millions of nodes.
#[test]
fn reconstruction_bomb_is_refused_by_the_node_limit() {
    let mut html = "<p>".to_string();
    for i in 0..2000 {
        html.push_str(&format!("<b id={i}>"));
    }
    html.push_str(&"<p>x".repeat(20_000));
    assert!(html.len() < 120_000);
    let err = within(20, "reconstruction bomb", || extract(html.as_bytes())).unwrap_err();
    assert!(matches!(err, Error::TooLarge(_)), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("500000 DOM nodes") && msg.contains("--max-nodes"),
        "{msg}"
    );
}

/// Stray end tags, or elements left open, by the thousand under thousands of open elements,
/// make the tree builder walk them all at every tag (a minute or more for a few MB): the rest
/// of such a page is dropped, the page marked as cut, while a page nested as deep that closes
/// what it opens is read whole.
#[test]
fn parser_work_is_bounded_on_stray_and_unclosed_tags() {
    let before = "<title>Cut</title><p>Words before the stray tags are kept.</p>";
    let after = "<p>Words after them are dropped.</p>";
    for stray in [
        format!("{}{}", "<div>".repeat(2040), "</li>".repeat(2_000_000)),
        "<span></div>".repeat(200_000),
        format!("{}{}", "<div>".repeat(2040), "<b></i>".repeat(400_000)),
    ] {
        let what = &stray[stray.len() - 12..];
        let html = format!("{before}{stray}{after}");
        let e = within(20, what, || extract(html.as_bytes())).unwrap();
        check(&e);
        let text = all_text(&e);
        assert!(
            text.contains("Words before") && !text.contains("Words after"),
            "{what}: {text}"
        );
        assert!(e.truncated, "{what}");
        // Nothing dropped but tags, scripts, comments and spaces: not marked as cut.
        for rest in [
            "",
            "<script>track('page');</script><!-- end -->&nbsp;</body>",
        ] {
            let html = format!("{before}{stray}{rest}");
            let e = within(20, what, || extract(html.as_bytes())).unwrap();
            assert!(
                all_text(&e).contains("Words before") && !e.truncated,
                "{what}{rest}"
            );
        }
    }
    // Cheap nodes first do not buy stray tags later: the page's work is bounded as a whole.
    let html = format!(
        "{before}{}{}{}{after}",
        "<i></i>".repeat(450_000),
        "<div>".repeat(2040),
        "</li>".repeat(1_500_000)
    );
    let e = within(20, "saved-up work", || extract(html.as_bytes())).unwrap();
    assert!(all_text(&e).contains("Words before") && e.truncated);
    let paragraphs: String = (0..3000)
        .map(|i| format!("<p>Paragraph {i} of the deep page.</p>"))
        .collect();
    let html = format!("{}{paragraphs}", "<div>".repeat(2040));
    let e = within(20, "deep page", || extract(html.as_bytes())).unwrap();
    assert_eq!(e.blocks.len(), 3000);
    assert!(e.blocks[2999].text.contains("2999") && !e.truncated);
}

// ---------------------------------------------------------------------------------------------
// Size

#[test]
fn twenty_megabytes_of_text_without_a_tag() {
    let line = "plain words without any markup at all, repeated many times over and over\n";
    let text = line.repeat(20_000_000 / line.len());
    let e = within(60, "20 MB of text", || extract(text.as_bytes())).unwrap();
    check(&e);
    assert_eq!(e.blocks.len(), 1);
    assert!(e.blocks[0].text.len() > 19_000_000);
}

/// Text inside `<pre>` keeps its layout, and millions of its lines cost no more than their
/// bytes: the layout of a block is made without a list of its lines.
#[test]
fn millions_of_lines_in_a_pre() {
    let page = format!(
        "<pre>{}<b>code</b>  here{}\n  more\n{}</pre>",
        "\n".repeat(5_000_000),
        " \n".repeat(1_000_000),
        "\t\n".repeat(1_000_000)
    );
    let e = within(60, "millions of lines", || extract(page.as_bytes())).unwrap();
    check(&e);
    assert_eq!(e.blocks.len(), 1);
    let layout = format!("code  here{}\n  more", "\n".repeat(1_000_000));
    assert_eq!(e.blocks[0].text, layout);
    assert_eq!(e.blocks[0].collapsed.as_deref(), Some("code here more"));
}

/// A 50 MB page: refused by the default byte limit, extracted when the limit is raised.
#[test]
fn fifty_megabyte_page() {
    let para = format!(
        "<p>{}</p>\n",
        "many words in a long paragraph of text. ".repeat(250)
    );
    let n = 50_000_000 / para.len();
    let html = format!("<title>Big</title><div id=content>{}</div>", para.repeat(n));
    assert!(html.len() >= 50_000_000);
    let err = within(30, "50 MB refused", || extract(html.as_bytes())).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, Error::TooLarge(_)) && msg.contains("--max-bytes"),
        "{msg}"
    );
    let big = Limits {
        max_bytes: 64 << 20,
        ..Limits::default()
    };
    let ex = extractor().clone().limits(big).unwrap();
    let e = within(120, "50 MB extracted", || ex.extract(html.as_bytes())).unwrap();
    check(&e);
    assert_eq!(e.blocks.len(), n);
    assert_eq!(e.title, "Big");
}

/// A page of small elements stops at the node limit, with a message naming it.
#[test]
fn too_many_nodes() {
    let html = "<span>a</span>".repeat(400_000);
    let err = within(30, "many nodes", || extract(html.as_bytes())).unwrap_err();
    assert!(err.to_string().contains("--max-nodes"), "{err}");
    let small = Limits {
        segment: textsift::SegmentLimits {
            max_nodes: 1000,
            ..Default::default()
        },
        ..Limits::default()
    };
    let ex = extractor().clone().limits(small).unwrap();
    assert!(ex.extract("<p>x</p>".repeat(400).as_bytes()).is_ok());
    assert!(matches!(
        ex.extract("<p>x</p>".repeat(600).as_bytes()),
        Err(Error::TooLarge(_))
    ));
    // Zero is not a limit.
    let zero = Limits {
        max_bytes: 0,
        ..Limits::default()
    };
    assert!(matches!(
        extractor().clone().limits(zero),
        Err(Error::Config(m)) if m == "the limit max_bytes must be above zero"
    ));
}

#[test]
fn a_ten_megabyte_attribute() {
    let html = format!(
        "<div><p data-blob=\"{}\">Text after the attribute.</p><p title='{}'>More text.</p></div>",
        "x".repeat(10_000_000),
        "y ".repeat(1_000_000)
    );
    let e = within(30, "10 MB attribute", || extract(html.as_bytes())).unwrap();
    assert_eq!(all_text(&e), "Text after the attribute.\nMore text.");
}

/// Each attribute of a tag is compared with the ones before it: a tag with 200,000 attributes
/// would take minutes, so attributes past the limit are dropped.
#[test]
fn two_hundred_thousand_attributes_on_one_tag() {
    let attrs: String = (0..200_000).map(|i| format!(" a{i}=v")).collect();
    let html = format!("<div{attrs}>Text of the div.</div><p{attrs}>Second.</p>");
    let e = within(20, "many attributes", || extract(html.as_bytes())).unwrap();
    assert_eq!(all_text(&e), "Text of the div.\nSecond.");
}

#[test]
fn thousands_of_links_in_one_block() {
    let links: String = (0..5000)
        .map(|i| format!("<a href=\"/page/{i}\">link number {i}</a> "))
        .collect();
    let html = format!("<div>{links}</div>");
    let e = within(20, "5000 links", || extract(html.as_bytes())).unwrap();
    check(&e);
    assert_eq!(e.blocks.len(), 1);
    assert!(e.blocks[0].text.ends_with("link number 4999"));
    // Unclosed links: each one closes the one before (the adoption agency).
    let html = (0..5000)
        .map(|i| format!("<a href=/{i}>unclosed {i} "))
        .collect::<String>();
    let e = within(20, "5000 unclosed links", || extract(html.as_bytes())).unwrap();
    check(&e);
}

/// Text and markup that once cost time or memory quadratic in their size: a run of
/// underscores in Markdown, a text that opens with many brackets before many inline edges,
/// self-closing styles in SVG, and marks (`✓`) each in a column further right in a table.
#[test]
fn runs_brackets_svg_styles_and_marks_cost_linear_time() {
    let prose = "The committee reviewed the annual budget in detail on Monday. ".repeat(5);
    let page = format!(
        "<article><h1>Notes</h1><p>{prose}</p><p>{prose} _{} {prose}</p><p>{prose}</p></article>",
        "_".repeat(800_000)
    );
    let e = within(20, "a run of underscores", || extract(page.as_bytes())).unwrap();
    let md = textsift::output::to_markdown(&e);
    assert!(md.contains(&format!(" {} ", "\\_".repeat(800_001))));
    let page = format!(
        "<p>{}x{}</p>",
        "(".repeat(800_000),
        "<span>a</span>".repeat(80_000)
    );
    let e = within(20, "brackets before edges", || extract(page.as_bytes())).unwrap();
    assert_eq!(e.blocks.len(), 1);
    assert!(e.blocks[0]
        .text
        .ends_with(&format!("(x{}", " a".repeat(80_000))));
    let page = format!(
        "<p>{prose}</p><svg>{}</svg><p>{prose}</p>",
        "<style/><![CDATA[</q>]]>".repeat(40_000)
    );
    let e = within(20, "styles in SVG", || extract(page.as_bytes())).unwrap();
    assert_eq!(all_text(&e), format!("{p}\n{p}", p = prose.trim_end()));
    // Row r has a mark past r empty columns: 3,000 rows would make a grid of 3,000 × 3,000.
    let rows: String = (0..3000)
        .map(|r| {
            format!(
                "<tr><td>Budget item {r} reviewed</td><td>Report value {r} approved</td>\
                 <td colspan={}></td><td>&#10003;</td></tr>",
                r + 1
            )
        })
        .collect();
    let page = format!("<article><h1>Budget</h1><p>{prose}</p><table>{rows}</table></article>");
    let e = within(20, "marks in columns of their own", || {
        extract(page.as_bytes())
    })
    .unwrap();
    let md = textsift::output::to_markdown(&e);
    assert!(md.len() < 2 * page.len(), "{} bytes of Markdown", md.len());
}

// ---------------------------------------------------------------------------------------------
// Bytes and encodings

#[test]
fn nul_bytes_and_invalid_utf8_in_every_position() {
    let page = "<html><head><title>T</title></head><body><p class=\"x\">Caf\u{e9} and \
                text.</p><!-- c --><a href='/'>link</a></body></html>"
        .as_bytes();
    for at in 0..=page.len() {
        for bad in [&b"\0"[..], b"\xff", b"\xc3", b"\xe2\x82", b"\0\0\0\0"] {
            let mut inserted = page[..at].to_vec();
            inserted.extend_from_slice(bad);
            inserted.extend_from_slice(&page[at..]);
            let mut replaced = page.to_vec();
            if at < page.len() {
                replaced[at] = bad[0];
            }
            for bytes in [inserted, replaced] {
                match extract(&bytes) {
                    Ok(e) => check(&e),
                    Err(Error::NotHtml(_) | Error::Empty) => {}
                    Err(e) => panic!("{bytes:?}: {e}"),
                }
            }
        }
    }
    // A page made of NULs, and one with NULs everywhere.
    assert!(matches!(extract(&[0u8; 5000]), Err(Error::NotHtml(_))));
    let spread: Vec<u8> = page.iter().flat_map(|&b| [b, 0]).collect();
    match extract(&spread) {
        Ok(e) => check(&e),
        Err(e) => assert!(matches!(e, Error::NotHtml(_)), "{e}"),
    }
}

#[test]
fn unknown_declared_charset_falls_back() {
    let page = "<html><head><meta charset=\"x-no-such-charset\"><title>Caf\u{e9}</title></head>\
                <body><p>Cr\u{e8}me br\u{fb}l\u{e9}e for everyone in the caf\u{e9} today.</p>\
                </body></html>";
    let e = extract(page.as_bytes()).unwrap();
    assert_eq!(e.title, "Caf\u{e9}");
    assert!(all_text(&e).contains("Cr\u{e8}me br\u{fb}l\u{e9}e"));
    let e = extract(page.replace("x-no-such-charset", "").as_bytes()).unwrap();
    assert_eq!(e.title, "Caf\u{e9}");
}

#[test]
fn utf16_with_and_without_bom() {
    let page = "<html><head><title>\u{65e5}\u{672c} title</title></head><body><p>Text in \
                UTF-16 with an accent: caf\u{e9}, and more words.</p></body></html>";
    let le: Vec<u8> = page.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = page.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let with_bom = |bom: &[u8], body: &[u8]| [bom, body].concat();
    for bytes in [
        with_bom(b"\xff\xfe", &le),
        with_bom(b"\xfe\xff", &be),
        le.clone(),
        be.clone(),
    ] {
        let e = extract(&bytes).unwrap();
        assert_eq!(e.title, "\u{65e5}\u{672c} title");
        assert!(all_text(&e).contains("caf\u{e9}, and more words."));
    }
    // Cut in the middle of a code unit.
    let e = extract(&le[..le.len() - 1]).unwrap();
    check(&e);
}

#[test]
fn legacy_encodings_are_not_taken_for_binary() {
    let text =
        "\u{65e5}\u{672c}\u{8a9e}\u{306e}\u{6587}\u{7ae0}\u{3067}\u{3059}\u{3002}".repeat(200);
    let page = format!("<html><head><title>T</title></head><body><p>{text}</p></body></html>");
    for (enc, declare) in [
        (encoding_rs::SHIFT_JIS, true),
        (encoding_rs::SHIFT_JIS, false),
        (encoding_rs::EUC_JP, false),
        (encoding_rs::GBK, false),
    ] {
        let page = if declare {
            page.replace(
                "<head>",
                &format!("<head><meta charset=\"{}\">", enc.name()),
            )
        } else {
            page.clone()
        };
        let (bytes, _, _) = enc.encode(&page);
        let e = extract(&bytes).unwrap_or_else(|e| panic!("{}: {e}", enc.name()));
        assert_eq!(e.blocks.len(), 1, "{}", enc.name());
        if enc != encoding_rs::GBK {
            assert_eq!(e.blocks[0].text, text, "{}", enc.name());
        }
    }
    let cyrillic = "\u{41f}\u{440}\u{438}\u{432}\u{435}\u{442} \u{43c}\u{438}\u{440} ".repeat(300);
    for enc in [encoding_rs::WINDOWS_1251, encoding_rs::KOI8_R] {
        let page = format!("<p>{cyrillic}</p>");
        let (bytes, _, _) = enc.encode(&page);
        let e = extract(&bytes).unwrap_or_else(|e| panic!("{}: {e}", enc.name()));
        assert_eq!(e.blocks.len(), 1);
    }
    let (bytes, _, _) = encoding_rs::WINDOWS_1252
        .encode("<p>Na\u{ef}ve caf\u{e9} \u{201c}quotes\u{201d} \u{2014} d\u{e9}j\u{e0} vu.</p>");
    assert!(extract(&bytes).is_ok());
}

#[test]
fn binary_files_given_as_html() {
    let body = crate::noise(7, 20_000);
    for (magic, kind) in [
        (&b"\x89PNG\r\n\x1a\n"[..], "PNG"),
        (b"%PDF-1.7\n", "PDF"),
        (b"\xff\xd8\xff\xe0", "JPEG"),
        (b"PK\x03\x04", "ZIP"),
        (b"GIF89a", "GIF"),
    ] {
        let bytes = [magic, &body[..]].concat();
        match extract(&bytes) {
            Err(Error::NotHtml(k)) => assert!(k.contains(kind), "{k}"),
            other => panic!("{kind}: {other:?}"),
        }
    }
    for seed in 0..20 {
        for len in [16, 100, 1000, 50_000] {
            let bytes = crate::noise(seed, len);
            match extract(&bytes) {
                Err(Error::NotHtml(_)) => {}
                Ok(_) if len < 1000 => {}
                other => panic!("seed {seed}, {len} bytes: {other:?}"),
            }
        }
    }
}

#[test]
fn comment_and_cdata_bombs() {
    let cases = [
        format!("<p>Before.</p><!--{}", "a".repeat(10_000_000)),
        format!("<p>Before.</p>{}", "<!--x-->".repeat(1_000_000)),
        format!("<p>Before.</p>{}", "<!--".repeat(1_000_000)),
        format!("<p>Before.</p><![CDATA[{}", "b".repeat(10_000_000)),
        format!(
            "<p>Before.</p><svg><![CDATA[{}]]></svg>",
            "c".repeat(10_000_000)
        ),
        format!("<p>Before.</p>{}", "<![CDATA[x]]>".repeat(500_000)),
        format!("<p>Before.</p>{}", "<?pi x?>".repeat(1_000_000)),
    ];
    for html in &cases {
        let e = within(30, &html[..30], || extract(html.as_bytes())).unwrap();
        check(&e);
        assert!(all_text(&e).starts_with("Before."), "{}", &html[..30]);
    }
}

/// A page cut short ends inside a tag, an attribute, a comment or foreign content; slimming
/// reads ahead of the tokenizer there, so every cut must still give an extraction (a cut
/// inside `</title >` in an svg once stepped past the end).
#[test]
fn a_page_cut_short_at_every_byte() {
    let page = "<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head><body>\
        <nav><a href='/a b'>Home</a><svg viewBox=\"0 0 9 9\"><title>Search</title >\
        <desc>icon</desc\n><g><path d=\"M0 0\"/></g><![CDATA[x]]></svg></nav><!-- c -->\
        <math><mi>x</mi><mtext>y</mtext></math><template><p>t</p></template>\
        <script>if (a<b) {}</script><p class=\"lead\" data-x=1>The story of the bridge, \
        told in a few sentences of prose.</p><select><option>o</select></body></html>";
    for cut in 1..=page.len() {
        let prefix = &page.as_bytes()[..cut];
        match extract(prefix) {
            Ok(e) => check(&e),
            Err(Error::Empty) => {}
            Err(e) => panic!("cut at {cut} ({:?}): {e}", &page[..cut]),
        }
    }
}

#[test]
fn empty_and_blank_pages() {
    assert!(matches!(extract(b""), Err(Error::Empty)));
    assert!(matches!(extract(b" \r\n\t "), Err(Error::Empty)));
    let e = extract(b"<html><body><!-- nothing --></body></html>").unwrap();
    assert!(e.blocks.is_empty() && e.text.is_empty());
}

// ---------------------------------------------------------------------------------------------
// gzip

#[test]
fn truncated_concatenated_and_bomb_gzip() {
    let packed = gzip(ARTICLE.as_bytes());
    assert_eq!(
        extract(&packed).unwrap(),
        extract(ARTICLE.as_bytes()).unwrap()
    );
    for cut in [2, 10, packed.len() / 2, packed.len() - 4, packed.len() - 1] {
        match extract(&packed[..cut]) {
            Err(Error::Gzip(m)) => assert!(!m.is_empty()),
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    let two = [
        gzip(b"<p>First member text.</p>"),
        gzip(b"<p>Second member.</p>"),
    ]
    .concat();
    assert_eq!(
        all_text(&extract(&two).unwrap()),
        "First member text.\nSecond member."
    );
    // A gzip bomb: 200 MB of spaces in a few hundred kB; inflated only up to the limit.
    let bomb = gzip(&vec![b' '; 200_000_000]);
    assert!(bomb.len() < 1_000_000);
    let err = within(20, "gzip bomb", || extract(&bomb)).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("after gunzip") && msg.contains("--max-bytes"),
        "{msg}"
    );
    // Garbage after a member, and a corrupt member.
    let mut trailing = gzip(ARTICLE.as_bytes());
    trailing.extend_from_slice(b"garbage after the stream");
    match extract(&trailing) {
        Ok(e) => check(&e),
        Err(e) => assert!(matches!(e, Error::Gzip(_)), "{e}"),
    }
    let mut corrupt = gzip(ARTICLE.as_bytes());
    let mid = corrupt.len() / 2;
    corrupt[mid] ^= 0xff;
    match extract(&corrupt) {
        Ok(e) => check(&e),
        Err(e) => assert!(matches!(e, Error::Gzip(_)), "{e}"),
    }
}

#[test]
fn zstd_pages_cut_short_and_bombs() {
    let packed = zstd::encode_all(ARTICLE.as_bytes(), 3).unwrap();
    assert_eq!(
        extract(&packed).unwrap(),
        extract(ARTICLE.as_bytes()).unwrap()
    );
    for cut in [4, 10, packed.len() / 2, packed.len() - 1] {
        match extract(&packed[..cut]) {
            Err(Error::Zstd(m)) => assert!(m.starts_with("truncated zstd stream"), "{m}"),
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    let bomb = zstd::encode_all(&vec![b' '; 200_000_000][..], 3).unwrap();
    let err = within(20, "zstd bomb", || extract(&bomb)).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("after zstd decompression") && msg.contains("--max-bytes"),
        "{msg}"
    );
}

// ---------------------------------------------------------------------------------------------
// Files, records, directories

fn items(path: &Path, max_bytes: u64) -> Vec<Item> {
    input::pages(
        path.display().to_string(),
        Some(path.to_path_buf()),
        &input::Reading::new(max_bytes),
    )
    .collect()
}

#[test]
fn files_through_the_input_layer() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let empty = items(&write("empty.html", b""), 1 << 20);
    assert_eq!(empty.len(), 1);
    let bytes = empty.into_iter().next().unwrap().bytes.unwrap();
    assert!(matches!(extract(&bytes), Err(Error::Empty)));

    let packed = gzip(ARTICLE.as_bytes());
    let cut = items(&write("cut.html.gz", &packed[..packed.len() / 2]), 1 << 20);
    assert!(
        matches!(&cut[0].bytes, Err(Error::Gzip(_))),
        "{:?}",
        cut[0].bytes
    );

    let bomb = items(
        &write("bomb.html.gz", &gzip(&vec![b'a'; 5_000_000])),
        1 << 20,
    );
    match &bomb[0].bytes {
        Err(e @ Error::TooLarge(_)) => assert!(e.to_string().contains("--max-bytes")),
        other => panic!("{other:?}"),
    }
    let big = items(&write("big.html", &vec![b'a'; 2 << 20]), 1 << 20);
    assert!(matches!(&big[0].bytes, Err(Error::TooLarge(_))));

    let missing = items(&dir.path().join("missing.html"), 1 << 20);
    assert!(matches!(&missing[0].bytes, Err(Error::Io { .. })));
}

#[test]
fn json_lines_that_are_not_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pages.jsonl");
    let good = serde_json::json!({"id": "good", "html": ARTICLE}).to_string();
    let long = serde_json::json!({"id": "long", "html": "x".repeat(4_000_000)}).to_string();
    let lines = [
        good.as_str(),
        "this is not JSON",
        "{\"id\": \"no-html\"}",
        "{\"id\": 7, \"html\": 5}",
        "{\"id\": \"cut\", \"html\": \"<p>unterminated",
        "",
        "[1, 2, 3]",
        long.as_str(),
        "{\"html\": \"<p>no id, text</p>\"}",
        good.as_str(),
    ];
    let mut data = lines.join("\n").into_bytes();
    data.extend_from_slice(b"\n{\"id\": \"bad-utf8\", \"html\": \"\xff\xfe\"}\n");
    std::fs::write(&path, &data).unwrap();
    // A 1 MB page limit allows lines of 3 MB: the long line is skipped, not kept.
    let got = items(&path, 1 << 20);
    let summary: Vec<(String, &str)> = got
        .iter()
        .map(|i| {
            let kind = match &i.bytes {
                Ok(_) => "ok",
                Err(Error::Record(_)) => "record",
                Err(Error::TooLarge(_)) => "too large",
                Err(_) => "other",
            };
            (i.source.rsplit('/').next().unwrap().to_string(), kind)
        })
        .collect();
    let want = [
        ("good", "ok"),
        ("pages.jsonl:2", "record"),
        // A refused record is named by its id when it has one.
        ("no-html", "record"),
        ("7", "record"),
        ("pages.jsonl:5", "record"),
        ("pages.jsonl:7", "record"),
        ("pages.jsonl:8", "too large"),
        ("pages.jsonl:9", "ok"),
        ("good", "ok"),
        // Bytes that are not UTF-8 are read as U+FFFD, not a reason to lose the page.
        ("bad-utf8", "ok"),
    ];
    let want: Vec<(String, &str)> = want.iter().map(|(s, k)| (s.to_string(), *k)).collect();
    assert_eq!(summary, want);
    let msg = error_of(&got[1]);
    assert!(msg.contains("not a JSON record"), "{msg}");
    assert_eq!(
        got[9].bytes.as_deref().ok(),
        Some("\u{fffd}\u{fffd}".as_bytes())
    );
}

fn error_of(item: &Item) -> String {
    item.bytes.as_ref().unwrap_err().to_string()
}

fn warc_record(kind: &str, uri: &str, body: &[u8], claimed: Option<u64>) -> Vec<u8> {
    let len = claimed.unwrap_or(body.len() as u64);
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nWARC-Record-ID: \
         <urn:uuid:0>\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {len}\r\n\r\n"
    )
    .into_bytes();
    r.extend_from_slice(body);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// A record of `kind` with a Content-Type of its own, as resources and some responses have.
fn typed_record(kind: &str, uri: &str, content_type: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// Each item's source, from its last `/` on, and whether its page was read.
fn last_parts(got: &[Item]) -> Vec<(&str, bool)> {
    got.iter()
        .map(|i| (i.source.rsplit('/').next().unwrap(), i.bytes.is_ok()))
        .collect()
}

/// The last parts of the sources of the items whose page was read.
fn read_parts(got: &[Item]) -> Vec<&str> {
    last_parts(got)
        .into_iter()
        .filter_map(|(part, ok)| ok.then_some(part))
        .collect()
}

/// A response record of [`ARTICLE`] for `https://a.example/{i}`.
fn article_record(i: usize) -> Vec<u8> {
    warc_record(
        "response",
        &format!("https://a.example/{i}"),
        &http(ARTICLE),
        None,
    )
}

/// A gzip member that stores `data` as it is, as deflate does with what does not compress:
/// a byte changed in it inflates, wrong, up to the checksum.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn http(page: &str) -> Vec<u8> {
    format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{page}").into_bytes()
}

/// Records whose lengths all run past the end of the file: each is reported and reading
/// goes on at the record inside it, which once read (and copied) the rest of the file for
/// every record.
#[test]
fn warc_records_whose_lengths_all_run_past_the_end_are_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lying.warc");
    let body = http("<title>T</title><p>Some words of a page.</p>");
    let records = 60_000;
    let file: Vec<u8> = (0..records)
        .flat_map(|i| {
            let uri = format!("https://a.example/{i}");
            warc_record("response", &uri, &body, Some(1 << 24))
        })
        .collect();
    std::fs::write(&path, file).unwrap();
    let got = within(20, "60,000 lying records", || items(&path, 1 << 24));
    assert_eq!(got.len(), records);
    assert!(got.iter().all(|i| i.bytes.is_err()));
    let msg = error_of(&got[0]);
    assert!(
        msg.contains("the file ends after") && msg.contains("reading on at a record"),
        "{msg}"
    );
    // The last one ends the file, with no record inside it.
    let msg = error_of(&got[records - 1]);
    assert!(!msg.contains("reading on"), "{msg}");
    assert_eq!(
        got[records - 1].source,
        format!("https://a.example/{}", records - 1)
    );
}

#[test]
fn warc_records_without_a_page_are_passed_over_and_chunked_bodies_joined() {
    let dir = tempfile::tempdir().unwrap();
    let record = |uri: &str, http: &[u8]| warc_record("response", uri, http, None);
    let (head, tail) = ARTICLE.split_at(100);
    let chunked = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
         Transfer-Encoding: chunked\r\n\r\n{:x}\r\n{head}\r\n{:X};ext=1\r\n{tail}\r\n0\r\n\r\n",
        head.len(),
        tail.len()
    );
    // A chunk size larger than the bytes left: the chunk was cut short.
    let broken = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfff\r\n<p>short</p>";
    let parts = [
        record(
            "https://a.example/logo.png",
            b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n",
        ),
        record(
            "https://a.example/old",
            b"HTTP/1.1 301 Moved Permanently\r\nLocation: /new\r\n\r\n",
        ),
        record("https://a.example/chunked", chunked.as_bytes()),
        record(
            "https://a.example/doc.pdf",
            b"HTTP/1.1 200 OK\r\nContent-Type: Application/PDF\r\n\r\n%PDF-1.7",
        ),
        record("https://a.example/broken", broken.as_bytes()),
        record("https://a.example/plain", &http(ARTICLE)),
        record(
            "https://a.example/xhtml",
            format!("HTTP/1.1 200 OK\r\nContent-Type: application/xhtml+xml\r\n\r\n{ARTICLE}")
                .as_bytes(),
        ),
        // An error page is the server's, not the address's content.
        record(
            "https://a.example/gone",
            format!("HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n{ARTICLE}")
                .as_bytes(),
        ),
        record(
            "https://a.example/bare",
            format!("HTTP/1.1 200 OK\r\n\r\n{ARTICLE}").as_bytes(),
        ),
        record(
            "https://a.example/not-http",
            format!("no status line\r\n\r\n{ARTICLE}").as_bytes(),
        ),
    ];
    let path = dir.path().join("mixed.warc");
    std::fs::write(&path, parts.concat()).unwrap();
    let all = items(&path, 1 << 20);
    // Records without a page come as `NoPage`, saying why, for a batch to count.
    let (no_page, got): (Vec<Item>, Vec<Item>) = all
        .into_iter()
        .partition(|i| matches!(i.bytes, Err(Error::NoPage(_))));
    let why: Vec<(&str, String)> = no_page
        .iter()
        .map(|i| (i.source.as_str(), error_of(i)))
        .collect();
    assert_eq!(
        why,
        [
            (
                "https://a.example/logo.png",
                "no page in this record: image/png"
            ),
            (
                "https://a.example/old",
                "no page in this record: a redirect, HTTP 301 Moved Permanently"
            ),
            (
                "https://a.example/doc.pdf",
                "no page in this record: Application/PDF"
            ),
            (
                "https://a.example/gone",
                "no page in this record: an error page, HTTP 404 Not Found"
            ),
        ]
        .map(|(s, w)| (s, w.to_string()))
    );
    let sources: Vec<&str> = got.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(
        sources,
        [
            "https://a.example/chunked",
            "https://a.example/broken",
            "https://a.example/plain",
            "https://a.example/xhtml",
            "https://a.example/bare",
            "https://a.example/not-http",
        ]
    );
    let page = |i: usize| String::from_utf8(got[i].bytes.as_ref().unwrap().clone()).unwrap();
    assert_eq!(page(0), ARTICLE);
    // A chunk whose data runs to the end was cut short: what it holds is the page.
    assert_eq!(page(1), "<p>short</p>");
    for item in &got[2..] {
        assert_eq!(
            item.bytes.as_deref().unwrap(),
            ARTICLE.as_bytes(),
            "{}",
            item.source
        );
    }
}

#[test]
fn warc_bodies_in_brotli_deflate_or_zstd_and_pages_in_resource_records() {
    let dir = tempfile::tempdir().unwrap();
    let brotli = |data: &[u8]| {
        let mut out = Vec::new();
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        w.write_all(data).unwrap();
        drop(w);
        out
    };
    let zlib = |data: &[u8]| {
        let mut w = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        w.write_all(data).unwrap();
        w.finish().unwrap()
    };
    let raw_deflate = |data: &[u8]| {
        let mut w = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        w.write_all(data).unwrap();
        w.finish().unwrap()
    };
    let encoded = |uri: &str, encoding: &str, body: &[u8]| {
        let mut http = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: {encoding}\r\n\r\n"
        )
        .into_bytes();
        http.extend_from_slice(body);
        warc_record("response", uri, &http, None)
    };
    let resource = |uri: &str, content_type: &str, body: &[u8]| {
        typed_record("resource", uri, content_type, body)
    };
    let page = ARTICLE.as_bytes();
    let br = brotli(page);
    let bomb = brotli(&vec![b'a'; 3 << 20]);
    let parts = [
        encoded("https://a.example/br", "br", &br),
        encoded("https://a.example/zlib", "deflate", &zlib(page)),
        encoded("https://a.example/raw", "Deflate", &raw_deflate(page)),
        // Stored decoded under the header it was sent with.
        encoded("https://a.example/decoded", "br", page),
        encoded("https://a.example/identity", "identity", page),
        encoded("https://a.example/cut", "br", &br[..br.len() / 2]),
        encoded("https://a.example/zstd", "zstd", b"\x28\xb5\x2f\xfd"),
        encoded("https://a.example/lzw", "compress", b"\x1f\x9d\x90"),
        encoded("https://a.example/bomb", "br", &bomb),
        resource(
            "https://a.example/resource",
            "text/html; charset=ISO-8859-1",
            page,
        ),
        // Cut short, as a crawler keeps the first bytes of a long answer.
        encoded("https://a.example/cut-gzip", "gzip", &{
            let whole = gzip(page);
            whole[..whole.len() / 2].to_vec()
        }),
        encoded("https://a.example/cut-zlib", "deflate", &{
            let whole = zlib(page);
            whole[..whole.len() / 2].to_vec()
        }),
        // Nothing but spaces, as sent or compressed, or chunks of nothing: no page.
        encoded("https://a.example/blank", "identity", b" \r\n\t"),
        encoded("https://a.example/blank-br", "br", &brotli(b" \r\n")),
        warc_record(
            "response",
            "https://a.example/no-chunks",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            None,
        ),
        resource("https://a.example/shot.png", "image/png", b"\x89PNG\r\n"),
    ];
    let path = dir.path().join("encoded.warc");
    std::fs::write(&path, parts.concat()).unwrap();
    let mut got = items(&path, 1 << 20);
    let shot = got.pop().unwrap();
    for _ in 0..3 {
        let blank = got.pop().unwrap();
        assert!(
            matches!(&blank.bytes, Err(Error::NoPage(t)) if t == "an empty response"),
            "{}: {:?}",
            blank.source,
            blank.bytes
        );
    }
    assert_eq!(shot.source, "https://a.example/shot.png");
    assert!(
        matches!(&shot.bytes, Err(Error::NoPage(t)) if t == "image/png"),
        "{:?}",
        shot.bytes
    );
    let sources: Vec<&str> = got.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(
        sources,
        [
            "https://a.example/br",
            "https://a.example/zlib",
            "https://a.example/raw",
            "https://a.example/decoded",
            "https://a.example/identity",
            "https://a.example/cut",
            "https://a.example/zstd",
            "https://a.example/lzw",
            "https://a.example/bomb",
            "https://a.example/resource",
            "https://a.example/cut-gzip",
            "https://a.example/cut-zlib",
        ]
    );
    for item in got[..5].iter().chain(&got[9..10]) {
        assert_eq!(item.bytes.as_deref().unwrap(), page, "{}", item.source);
    }
    // A body cut short gives the page as far as it decodes, as a plain body cut short does;
    // brotli does not tell a cut from damage, so a cut brotli body is a failure.
    assert!(
        error_of(&got[5]).starts_with("bad br data"),
        "{}",
        error_of(&got[5])
    );
    for item in [&got[10], &got[11]] {
        let part = item.bytes.as_deref().unwrap();
        assert!(
            !part.is_empty() && part.len() < page.len() && page.starts_with(part),
            "{}: {} bytes",
            item.source,
            part.len()
        );
    }
    let error = |i: usize| error_of(&got[i]);
    // A zstd body cut short (zstd bodies that are whole: `tests/it/extract_cli.rs`).
    assert!(
        error(6).starts_with("bad zstd data: truncated zstd stream"),
        "{}",
        error(6)
    );
    assert!(
        error(7).contains("compress content encoding"),
        "{}",
        error(7)
    );
    assert!(
        matches!(got[8].bytes, Err(Error::TooLarge(_))) && error(8).contains("after br"),
        "{}",
        error(8)
    );
    assert_eq!(got[9].charset.as_deref(), Some("iso-8859-1"));
}

/// A length a few bytes too long ends inside the next record's line breaks or version line:
/// whatever it cuts, the next record is read, plain or gzipped record by record. A record
/// that names no type is reported, not passed over.
#[test]
fn warc_lengths_a_few_bytes_too_long_lose_no_other_record() {
    let dir = tempfile::tempdir().unwrap();
    let body = http(ARTICLE);
    let ok = |uri: &str| warc_record("response", uri, &body, None);
    let gzip_each =
        |records: &[Vec<u8>]| -> Vec<u8> { records.iter().flat_map(|r| gzip(r)).collect() };
    // And one that stops right before the blank line that ends the next record's HTTP
    // header: the line breaks after it are that record's.
    let third = ok("https://a.example/3");
    let http_start = third.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let header_end = http_start + body.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let into_header = 4 + header_end as u64;
    for extra in (1..=24u64).chain([into_header]) {
        let over = warc_record(
            "response",
            "https://a.example/2",
            &body,
            Some(body.len() as u64 + extra),
        );
        let records = [
            ok("https://a.example/1"),
            over,
            ok("https://a.example/3"),
            ok("https://a.example/4"),
        ];
        for (name, bytes) in [
            ("plain.warc", records.concat()),
            ("each.warc.gz", gzip_each(&records)),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let got = items(&path, 1 << 20);
            let parts = last_parts(&got);
            // Two line breaks end a record: a length that takes some of them still ends it.
            let second = extra < 4;
            assert_eq!(
                parts,
                [("1", true), ("2", second), ("3", true), ("4", true)],
                "{extra} bytes too long, {name}"
            );
            // The others are read whole, their pages as they were (record 2's holds the line
            // breaks its length takes).
            for item in got.iter().filter(|i| !i.source.ends_with("/2")) {
                let page = item.bytes.as_deref().unwrap();
                assert_eq!(page, ARTICLE.as_bytes(), "{extra}, {name}: {}", item.source);
            }
        }
    }
    let untyped = String::from_utf8(ok("https://a.example/untyped"))
        .unwrap()
        .replacen("WARC-Type: response\r\n", "", 1);
    let path = dir.path().join("untyped.warc");
    std::fs::write(
        &path,
        [ok("https://a.example/1"), untyped.into_bytes()].concat(),
    )
    .unwrap();
    let got = items(&path, 1 << 20);
    assert_eq!(last_parts(&got), [("1", true), ("untyped", false)]);
    assert_eq!(error_of(&got[1]), "bad WARC record: no WARC-Type");
}

/// A gzip member that is corrupt or cut short, or a record cut inside a line (a crawler that
/// crashed, its file then appended to), loses its own record only: the records around it are
/// read whole, none of them is blamed, and reading goes on at the next member or record,
/// when the first one is lost too.
#[test]
fn a_corrupt_or_cut_gzip_member_or_record_loses_only_its_own_record() {
    let dir = tempfile::tempdir().unwrap();
    let body = http(ARTICLE);
    let n = 5;
    let records: Vec<Vec<u8>> = (0..n)
        .map(|i| warc_record("response", &format!("https://a.example/{i}"), &body, None))
        .collect();
    let members: Vec<Vec<u8>> = records.iter().map(|r| gzip(r)).collect();
    let check = |name: &str, bytes: Vec<u8>, lost: usize| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let got = items(&path, 1 << 20);
        let read = read_parts(&got);
        let want: Vec<String> = (0..n)
            .filter(|&i| i != lost)
            .map(|i| i.to_string())
            .collect();
        assert_eq!(read, want, "{name}, record {lost} lost");
        // One failure, at the lost record's place in the file (its source, or its place
        // apart when it is named by its address, which corrupt data may have garbled); the
        // records after it keep their places.
        let place_of = |i: &Item| i.place.clone().unwrap_or_else(|| i.source.clone());
        let failed: Vec<String> = got
            .iter()
            .filter(|i| i.bytes.is_err())
            .map(place_of)
            .collect();
        let place = |k: usize| format!("{}#{}", path.display(), k + 1);
        assert_eq!(failed, [place(lost)], "{name}");
        // A corrupt member is named as the failure's reason, whatever it did to the record.
        if name.ends_with(".gz") && !name.starts_with("cut") {
            let failure = got.iter().find(|i| i.bytes.is_err()).unwrap();
            let why = error_of(failure);
            assert!(why.starts_with("bad gzip data"), "{name}: {why}");
        }
        for item in got.iter().filter(|i| i.bytes.is_ok()) {
            let k: usize = item.source.rsplit('/').next().unwrap().parse().unwrap();
            assert_eq!(place_of(item), place(k), "{name}");
        }
    };
    for lost in 0..n {
        let mut corrupt = members.clone();
        let middle = corrupt[lost].len() / 2;
        corrupt[lost][middle - 8..middle + 8].fill(0xff);
        check("corrupt.warc.gz", corrupt.concat(), lost);
        // One byte changed: the data often inflates, wrong, up to the checksum at the
        // member's end, which the record that was read from it fails by.
        for at in [3, 5, 7] {
            let mut flipped = members.clone();
            let k = flipped[lost].len() * at / 10;
            flipped[lost][k] ^= 0x10;
            check("flipped.warc.gz", flipped.concat(), lost);
        }
        let mut cut = members.clone();
        cut[lost].truncate(middle);
        if lost + 1 < n {
            check("cut.warc.gz", cut.concat(), lost);
        }
        // Cut inside a line of the page, plain and gzipped as it was written.
        let mut cut = records.clone();
        let middle = cut[lost].len() / 2;
        cut[lost].truncate(middle);
        if lost + 1 < n {
            check("cut.warc", cut.concat(), lost);
            let members: Vec<u8> = cut.iter().flat_map(|r| gzip(r)).collect();
            check("cut-each.warc.gz", members, lost);
        }
    }
}

/// Heritrix writes DNS lookups and whois answers as `response` records typed `text/dns` and
/// `text/plain`, with no HTTP message: they are read by their own type, as resources are, so
/// they are passed over as records without a page (one typed as HTML would be a page).
#[test]
fn responses_without_an_http_message_are_read_by_their_own_type() {
    let dir = tempfile::tempdir().unwrap();
    let typed = |uri: &str, kind: &str, block: &[u8]| typed_record("response", uri, kind, block);
    let parts = [
        typed(
            "dns:a.example",
            "text/dns",
            b"20261202051659\na.example.\t300\tIN\tA\t192.0.2.1\n",
        ),
        typed(
            "whois://whois.iana.org/a.example",
            "text/plain",
            b"domain: A.EXAMPLE\r\n\r\nstatus: ACTIVE\r\n",
        ),
        typed("https://a.example/bare", "text/html", ARTICLE.as_bytes()),
        // Typed as HTML, but an HTTP message all the same: read as one.
        typed("https://a.example/http", "text/html", &http(ARTICLE)),
        article_record(1),
    ];
    let path = dir.path().join("heritrix.warc");
    std::fs::write(&path, parts.concat()).unwrap();
    let got = items(&path, 1 << 20);
    let why: Vec<(&str, String)> = got
        .iter()
        .map(|i| {
            (
                i.source.as_str(),
                i.bytes
                    .as_ref()
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        why,
        [
            ("dns:a.example", "no page in this record: text/dns"),
            (
                "whois://whois.iana.org/a.example",
                "no page in this record: text/plain"
            ),
            ("https://a.example/bare", ""),
            ("https://a.example/http", ""),
            ("https://a.example/1", ""),
        ]
        .map(|(s, w)| (s, w.to_string()))
    );
    for item in &got[2..] {
        let page = item.bytes.as_ref().unwrap();
        assert!(page.starts_with(ARTICLE.as_bytes()), "{}", item.source);
    }
}

/// A PDF or an image that a server sent as HTML holds no page: it is passed over as other
/// media types are, not a failure that a crawl would meet on nearly every run.
#[test]
fn binary_bodies_sent_as_html_hold_no_page() {
    let dir = tempfile::tempdir().unwrap();
    let sent = |uri: &str, body: &[u8]| {
        let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
        http.extend_from_slice(body);
        warc_record("response", uri, &http, None)
    };
    let parts = [
        sent(
            "https://a.example/a.pdf",
            b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj",
        ),
        sent("https://a.example/a.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
        sent(
            "https://a.example/feed",
            b"<?xml version=\"1.0\"?><rss><channel/></rss>",
        ),
        article_record(1),
    ];
    let path = dir.path().join("mislabelled.warc");
    std::fs::write(&path, parts.concat()).unwrap();
    let got = items(&path, 1 << 20);
    let why: Vec<String> = got.iter().take(3).map(error_of).collect();
    assert_eq!(
        why,
        [
            "no page in this record: PDF document sent as HTML",
            "no page in this record: PNG image sent as HTML",
            "no page in this record: RSS feed sent as HTML",
        ]
    );
    assert!(got[..3]
        .iter()
        .all(|i| matches!(i.bytes, Err(Error::NoPage(_)))));
    assert_eq!(last_parts(&got[3..]), [("1", true)]);
    // A page compressed twice is still a page (the extractor unpacks gzip), not one passed
    // over.
    let twice = gzip(&gzip(ARTICLE.as_bytes()));
    let mut http = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
    http.extend_from_slice(&twice);
    std::fs::write(
        &path,
        warc_record("response", "https://a.example/2", &http, None),
    )
    .unwrap();
    let got = items(&path, 1 << 20);
    let page = extract(got[0].bytes.as_deref().unwrap()).unwrap();
    assert!(page.text.contains("The town council met"), "{}", page.text);
}

/// A WARC file of text already extracted (WET) or of metadata (WAT) is one failure that says
/// what it holds, not an input that ends silently; one of revisits or requests only has no
/// page and no fault.
#[test]
fn a_warc_file_without_responses_says_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let wet = [
        warc_record("warcinfo", "", b"software: x", None),
        warc_record("conversion", "https://a.example/1", b"Some text.", None),
        warc_record("Conversion", "https://a.example/2", b"More text.", None),
    ];
    let path = dir.path().join("cc.warc.wet.gz");
    std::fs::write(&path, gzip(&wet.concat())).unwrap();
    let got = items(&path, 1 << 20);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].source, path.display().to_string());
    assert_eq!(
        error_of(&got[0]),
        "not an HTML page: no response or resource record, only conversion, warcinfo (a WET \
         file holds extracted text, no HTML)"
    );
    let wat = [
        warc_record("warcinfo", "", b"software: x", None),
        warc_record(
            "metadata",
            "https://a.example/1",
            b"{\"Envelope\": {}}",
            None,
        ),
    ];
    let path = dir.path().join("cc.warc.wat");
    std::fs::write(&path, wat.concat()).unwrap();
    assert_eq!(
        items(&path, 1 << 20)
            .iter()
            .map(error_of)
            .collect::<Vec<_>>(),
        [
            "not an HTML page: no response or resource record, only metadata, warcinfo (a WAT \
          file holds metadata, no HTML)"
        ]
    );
    let requests = [
        warc_record(
            "request",
            "https://a.example/1",
            b"GET / HTTP/1.1\r\n\r\n",
            None,
        ),
        warc_record(
            "revisit",
            "https://a.example/1",
            b"HTTP/1.1 200 OK\r\n\r\n",
            None,
        ),
        warc_record("metadata", "https://a.example/1", b"outlinks: none", None),
    ];
    let path = dir.path().join("requests.warc");
    std::fs::write(&path, requests.concat()).unwrap();
    assert!(items(&path, 1 << 20).is_empty());
    // Beside a response, they are passed over without a word.
    let path = dir.path().join("crawl.warc");
    std::fs::write(&path, [wet.concat(), article_record(1)].concat()).unwrap();
    assert_eq!(last_parts(&items(&path, 1 << 20)), [("1", true)]);
}

/// Two records side by side whose gzip members are both damaged: no page comes from either
/// (damaged data can inflate to a copy of a record, or to one whose header was hit), each is
/// reported, and the records around them are read. A record found in a member after a bad
/// one of the same member fails with it when the member fails its checksum.
#[test]
fn two_damaged_gzip_members_side_by_side_give_no_page() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two.warc.gz");
    let n = 5;
    let members: Vec<Vec<u8>> = (0..n).map(|i| gzip(&article_record(i))).collect();
    for at in 1..10 {
        for bit in [0x01, 0x10, 0x80] {
            let mut damaged = members.clone();
            for (m, shift) in [(2, 0), (3, 1)] {
                // Past the 10-byte header, before the 8-byte trailer.
                let body = damaged[m].len() - 18;
                let k = 10 + body * at / 10 + shift;
                damaged[m][k] ^= bit;
            }
            std::fs::write(&path, damaged.concat()).unwrap();
            let got = items(&path, 1 << 20);
            let read = read_parts(&got);
            assert_eq!(read, ["0", "1", "4"], "byte {at}/10, bit {bit:#x}");
            let failed = got.iter().filter(|i| i.bytes.is_err()).count();
            assert!(failed >= 2, "byte {at}/10, bit {bit:#x}: {failed} failed");
        }
    }
    // Gzipped whole, with a record whose length is wrong and a checksum that fails at the
    // end: the records after the bad one are kept, and the checksum reported after them.
    let mut records: Vec<Vec<u8>> = (0..n).map(article_record).collect();
    let body = http(ARTICLE);
    records[1] = warc_record(
        "response",
        "https://a.example/1",
        &body,
        Some(body.len() as u64 + 7),
    );
    let mut whole = gzip(&records.concat());
    let crc = whole.len() - 8;
    whole[crc] ^= 1;
    std::fs::write(&path, whole).unwrap();
    let got = items(&path, 1 << 20);
    let read = read_parts(&got);
    assert_eq!(read, ["0", "2", "3", "4"]);
    assert!(error_of(got.last().unwrap()).starts_with("bad gzip data"));
}

/// A gzip member of more than a mebibyte, cut short: the next member, which the decoder ran
/// into before it failed, is found among the last bytes read.
#[test]
fn a_long_gzip_member_cut_short_loses_only_its_own_record() {
    let dir = tempfile::tempdir().unwrap();
    // Letters that do not compress much, so that the member is over 1 MiB.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let noise: String = (0..2_000_000)
        .map(|i| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            if i % 9 == 8 {
                ' '
            } else {
                char::from(b'a' + (seed % 26) as u8)
            }
        })
        .collect();
    let long = warc_record(
        "response",
        "https://a.example/long",
        &http(&format!("<p>{noise}</p>")),
        None,
    );
    let mut cut = gzip(&long);
    assert!(cut.len() > 1 << 20, "{}", cut.len());
    cut.truncate(cut.len() * 9 / 10);
    let next = |i: usize| gzip(&article_record(i));
    let path = dir.path().join("long.warc.gz");
    std::fs::write(&path, [next(0), cut, next(2), next(3)].concat()).unwrap();
    let got = items(&path, 1 << 22);
    assert_eq!(
        last_parts(&got),
        [("0", true), ("long", false), ("2", true), ("3", true)]
    );
}

/// A corrupt gzip member that holds a gzip file as it is (deflate stores what does not
/// compress): reading goes on at that file's member, and past it at the stream's own.
#[test]
fn a_corrupt_gzip_member_that_holds_a_gzip_file_loses_only_its_own_record() {
    let dir = tempfile::tempdir().unwrap();
    let file = gzip(b"a file of the crawl, gzipped");
    let mut body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
    body.extend_from_slice(&file);
    let held = warc_record("response", "https://a.example/1", &body, None);
    let mut stored = gzip_stored(&held);
    // A byte of the HTTP header changed: the member fails its checksum.
    let at = stored.windows(4).position(|w| w == b"text").unwrap();
    stored[at] ^= 0x01;
    let path = dir.path().join("held.warc.gz");
    let members = [
        gzip(&article_record(0)),
        stored,
        gzip(&article_record(2)),
        gzip(&article_record(3)),
    ];
    std::fs::write(&path, members.concat()).unwrap();
    let got = items(&path, 1 << 20);
    let parts: Vec<(&str, bool)> = last_parts(&got)
        .into_iter()
        .filter(|(part, _)| part.len() == 1)
        .collect();
    assert_eq!(parts, [("0", true), ("1", false), ("2", true), ("3", true)]);
}

/// A gzip member cut short right after its first block's header: it gives the next member's
/// bytes as its own, then fails. The record before it ended with its own member, and is kept.
#[test]
fn a_member_that_gives_garbage_before_it_fails_does_not_blame_the_record_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let stored = gzip_stored(&article_record(1));
    let data = stored.windows(5).position(|w| w == b"WARC/").unwrap();
    let path = dir.path().join("cut.warc.gz");
    let members = [
        gzip(&article_record(0)),
        stored[..data].to_vec(),
        gzip(&article_record(2)),
    ];
    std::fs::write(&path, members.concat()).unwrap();
    let got = items(&path, 1 << 20);
    let parts = last_parts(&got);
    assert_eq!(parts.len(), 3, "{parts:?}");
    assert_eq!((parts[0], parts[2]), (("0", true), ("2", true)));
    assert!(!parts[1].1);
}

/// A JSON Lines file gzipped line by line: a corrupt member is the failure of its own line,
/// one that fails its checksum at its end too (not of the line after it), and the lines after
/// it are read; a file cut short keeps the lines before the cut.
#[test]
fn a_corrupt_gzip_member_of_a_json_lines_file_loses_only_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let line = |i: usize| {
        let record = serde_json::json!({"id": format!("r{i}"), "html": ARTICLE});
        gzip(format!("{record}\n").as_bytes())
    };
    // The second line's member with one byte changed, counted from its end when negative.
    let members = |changed: Option<isize>| -> Vec<u8> {
        let mut second = line(1);
        if let Some(at) = changed {
            let at = if at < 0 {
                second.len() - at.unsigned_abs()
            } else {
                at as usize
            };
            second[at] ^= 0x10;
        }
        [line(0), second, line(2), line(3)].concat()
    };
    let sources = |got: &[Item]| -> Vec<(String, bool)> {
        got.iter()
            .map(|i| (i.source.clone(), i.bytes.is_ok()))
            .collect()
    };
    let path = dir.path().join("lines.jsonl.gz");
    let name = path.display().to_string();
    // In the deflate data after the header, and in the CRC-32 before the length at the end.
    for (what, at) in [("deflate data", 30), ("checksum", -6)] {
        std::fs::write(&path, members(Some(at))).unwrap();
        let got = items(&path, 1 << 20);
        let expected = [
            ("r0".to_string(), true),
            (format!("{name}:2"), false),
            ("r2".to_string(), true),
            ("r3".to_string(), true),
        ];
        assert_eq!(sources(&got), expected, "{what}");
        assert!(error_of(&got[1]).contains("gzip"), "{}", error_of(&got[1]));
    }
    let whole = members(None);
    std::fs::write(&path, &whole[..whole.len() - 40]).unwrap();
    let got = items(&path, 1 << 20);
    let expected = [
        ("r0".to_string(), true),
        ("r1".to_string(), true),
        ("r2".to_string(), true),
        (format!("{name}:4"), false),
    ];
    assert_eq!(sources(&got), expected);
}

/// Bytes between two gzip members that start no member (a stray byte, zeros, a member whose
/// magic byte was lost): a failure, and reading goes on at the next member; at the end of the
/// file, they are passed over as `gzip -d` does.
#[test]
fn bytes_between_gzip_members_are_reported_and_read_past() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stray.warc.gz");
    let member = |i| gzip(&article_record(i));
    let mut lost_magic = member(2);
    lost_magic[0] = 0;
    for (between, second, read) in [
        (vec![0u8], member(2), ["0", "1", "2", "3"].as_slice()),
        (vec![0u8; 300], member(2), &["0", "1", "2", "3"]),
        (Vec::new(), lost_magic, &["0", "1", "3"]),
    ] {
        let file = [member(0), member(1), between, second, member(3)].concat();
        std::fs::write(&path, file).unwrap();
        let got = items(&path, 1 << 20);
        let parts = last_parts(&got);
        let ok: Vec<&str> = parts.iter().filter(|p| p.1).map(|p| p.0).collect();
        assert_eq!(ok, read);
        let failed: Vec<&Item> = got.iter().filter(|i| i.bytes.is_err()).collect();
        assert_eq!(failed.len(), 1, "{parts:?}");
        assert!(error_of(failed[0]).starts_with("bad gzip data"));
    }
    // Zeros after the last member end the file without a failure.
    let file = [member(0), member(1), vec![0u8; 512]].concat();
    std::fs::write(&path, file).unwrap();
    assert_eq!(
        last_parts(&items(&path, 1 << 20)),
        [("0", true), ("1", true)]
    );
}

/// A file named as WARC or JSON Lines whose start is damaged (its first gzip member corrupt,
/// its first version line changed) is still read record by record: the first record is
/// reported, the others read.
#[test]
fn a_named_file_whose_start_is_damaged_loses_only_its_first_record() {
    let dir = tempfile::tempdir().unwrap();
    let ok = |got: &[Item]| -> Vec<bool> { got.iter().map(|i| i.bytes.is_ok()).collect() };
    let mut first = gzip(&article_record(0));
    first.truncate(first.len() / 2);
    let warc = dir.path().join("cut.warc.gz");
    std::fs::write(&warc, [first, gzip(&article_record(1))].concat()).unwrap();
    assert_eq!(ok(&items(&warc, 1 << 20)), [false, true]);
    let line = |i: usize| {
        let record = serde_json::json!({"id": format!("r{i}"), "html": ARTICLE});
        gzip(format!("{record}\n").as_bytes())
    };
    // A compression method that gzip does not know: the first read fails.
    let mut first = line(0);
    first[2] = 7;
    let lines = dir.path().join("bad.jsonl.gz");
    std::fs::write(&lines, [first, line(1), line(2)].concat()).unwrap();
    let got = items(&lines, 1 << 20);
    assert_eq!(ok(&got), [false, true, true]);
    assert!(error_of(&got[0]).starts_with("bad gzip data"));
    let renamed = [b"WAC/1.0".as_slice(), &article_record(0)[8..]].concat();
    let plain = dir.path().join("renamed.warc");
    std::fs::write(&plain, [renamed, article_record(1)].concat()).unwrap();
    let got = items(&plain, 1 << 20);
    assert_eq!(ok(&got), [false, true]);
    assert_eq!(
        error_of(&got[0]),
        "bad WARC record: expected a WARC/ version line, found \"WAC/1.0\""
    );
    // The same damage to a later record: the record before it is kept.
    let renamed = [b"WARC\\1.0".as_slice(), &article_record(1)[8..]].concat();
    let later = dir.path().join("later.warc");
    std::fs::write(
        &later,
        [article_record(0), renamed, article_record(2)].concat(),
    )
    .unwrap();
    assert_eq!(ok(&items(&later, 1 << 20)), [true, false, true]);
}

/// A WARC file gzipped whole, whose one member fails its checksum at its end: which record
/// was changed cannot be told, so the last one, read whole, is not blamed.
#[test]
fn a_whole_file_member_that_fails_its_checksum_blames_no_record_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<u8> = (0..4).flat_map(article_record).collect();
    let mut stored = gzip_stored(&records);
    let at = stored.windows(6).position(|w| w == b"bridge").unwrap();
    stored[at] ^= 0x01;
    let path = dir.path().join("whole.warc.gz");
    std::fs::write(&path, stored).unwrap();
    let got = items(&path, 1 << 20);
    let parts = last_parts(&got);
    assert_eq!(
        parts[..4],
        [("0", true), ("1", true), ("2", true), ("3", true)]
    );
    assert_eq!(got.len(), 5);
    assert_eq!(got[4].source, format!("{}#5", path.display()));
    assert!(
        error_of(&got[4]).contains("checksum"),
        "{}",
        error_of(&got[4])
    );
}

/// A WARC file gzipped whole whose last record's length was changed: the record is reported,
/// and so is the member's checksum, met while looking for a record after it.
#[test]
fn a_checksum_met_after_a_bad_record_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<u8> = (0..3).flat_map(article_record).collect();
    let mut stored = gzip_stored(&records);
    let at = stored
        .windows(15)
        .rposition(|w| w == b"Content-Length:")
        .unwrap();
    // The length's first digit, one less: the record ends before its block does.
    stored[at + 16] -= 1;
    let path = dir.path().join("whole.warc.gz");
    std::fs::write(&path, stored).unwrap();
    let got = items(&path, 1 << 20);
    assert_eq!(
        last_parts(&got)[..3],
        [("0", true), ("1", true), ("2", false)]
    );
    assert_eq!(got.len(), 4);
    assert!(
        error_of(&got[3]).contains("checksum"),
        "{}",
        error_of(&got[3])
    );
}

/// A record cut short by a crash whose planned length runs over more records than the limit
/// lets it hold: the records it lets go are counted in its failure, and reading goes on at
/// a later record it ran into.
#[test]
fn records_that_a_long_lying_length_runs_over_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    // Pages of 100 kB; the limit holds the page and 1 MiB for the HTTP head, about 11 of them.
    let page = format!("{ARTICLE}<!-- {} -->", "x".repeat(100_000));
    let body = http(&page);
    let ok = |i: usize| warc_record("response", &format!("https://a.example/{i}"), &body, None);
    // Record 0 says it holds 30 records' bytes.
    let each = ok(1).len() as u64;
    let lying = warc_record("response", "https://a.example/0", &body, Some(30 * each));
    let mut parts = vec![lying];
    parts.extend((1..=40).map(ok));
    let path = dir.path().join("crash.warc");
    std::fs::write(&path, parts.concat()).unwrap();
    let got = items(&path, each);
    let msg = error_of(&got[0]);
    let read: Vec<usize> = read_parts(&got)
        .iter()
        .map(|p| p.parse().unwrap())
        .collect();
    // The records read again, and those after the block, are read; the others are counted.
    let first = read[0];
    assert!(
        first > 1 && read == (first..=40).collect::<Vec<_>>(),
        "{read:?}"
    );
    let lost = first - 1;
    assert!(
        msg.contains(&format!(
            "; {lost} records that start inside it passed over (more bytes than the limit to \
             hold: --max-bytes), reading on at a later one"
        )),
        "{msg}"
    );
    assert_eq!(got.len(), 1 + read.len());
}

#[test]
fn warc_records_with_lying_lengths() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, parts: &[Vec<u8>]| {
        let p = dir.path().join(name);
        std::fs::write(&p, parts.concat()).unwrap();
        p
    };
    let ok = |uri: &str| warc_record("response", uri, &http(ARTICLE), None);
    let request = warc_record(
        "request",
        "https://a.example/",
        b"GET / HTTP/1.1\r\n\r\n",
        None,
    );

    // Honest records around a request record.
    let got = items(
        &write(
            "ok.warc",
            &[
                ok("https://a.example/1"),
                request.clone(),
                ok("https://a.example/2"),
            ],
        ),
        1 << 20,
    );
    let sources: Vec<&str> = got.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(sources, ["https://a.example/1", "https://a.example/2"]);
    assert!(got.iter().all(|i| i.bytes.is_ok()));

    // A length shorter than the record: reported, and reading goes on at the next record.
    let body = http(ARTICLE);
    let short = warc_record("response", "https://a.example/short", &body, Some(40));
    let got = items(
        &write(
            "short.warc",
            &[ok("https://a.example/1"), short, ok("https://a.example/3")],
        ),
        1 << 20,
    );
    assert_eq!(got.len(), 3);
    assert_eq!(got[0].source, "https://a.example/1");
    // Named as its page would be, with its record, so that the failure joins the crawl.
    assert_eq!(got[1].source, "https://a.example/short");
    assert!(got[1].warc.is_some());
    let msg = error_of(&got[1]);
    assert!(
        msg.starts_with("bad WARC record: its Content-Length"),
        "{msg}"
    );
    assert!(msg.contains("Content-Length (40)"), "{msg}");
    assert_eq!(got[2].source, "https://a.example/3");
    assert_eq!(got[2].bytes.as_deref().unwrap(), ARTICLE.as_bytes());

    // A length that reaches into the next record (a record cut short, its planned length
    // left in its header) is reported, and the records it ran into are read again. A header
    // that does not parse loses its record only. A page that shows a version line is only
    // text while its record holds together.
    let over = warc_record(
        "response",
        "https://a.example/over",
        &body,
        Some(body.len() as u64 + 100),
    );
    let quoting =
        format!("<p>A record starts with a line such as\nWARC/1.0\nand a header.</p>{ARTICLE}");
    let unnamed = String::from_utf8(ok("https://a.example/4"))
        .unwrap()
        .replacen(
            &format!("Content-Length: {}", body.len()),
            "Content-Length: many",
            1,
        );
    let got = items(
        &write(
            "resync.warc",
            &[
                over,
                ok("https://a.example/swallowed"),
                ok("https://a.example/2"),
                warc_record("response", "https://a.example/3", &http(&quoting), None),
                unnamed.into_bytes(),
                ok("https://a.example/5"),
            ],
        ),
        1 << 20,
    );
    let read = last_parts(&got);
    assert_eq!(
        read,
        [
            ("over", false),
            ("swallowed", true),
            ("2", true),
            ("3", true),
            ("4", false),
            ("5", true),
        ]
    );
    let error = |i: usize| error_of(&got[i]);
    assert_eq!(got[0].source, "https://a.example/over");
    assert!(error(4).contains("not a number"), "{}", error(4));
    // A length that cannot be read loses its record, which is named as its page would be,
    // with its record id and its place in the file, as the header gave them.
    assert!(got[4].warc.is_some());
    assert_eq!(
        got[4].place.as_deref(),
        Some(&*format!("{}#5", dir.path().join("resync.warc").display()))
    );
    assert_eq!(got[1].bytes.as_deref().unwrap(), ARTICLE.as_bytes());
    assert_eq!(got[3].bytes.as_deref().unwrap(), quoting.as_bytes());
    // A header without a length, right before a record.
    let got = items(
        &write(
            "lengthless.warc",
            &[
                b"WARC/1.0\r\nWARC-Type: response\r\n\r\n".to_vec(),
                ok("https://a.example/1"),
            ],
        ),
        1 << 20,
    );
    assert_eq!(got.len(), 2);
    assert!(
        error_of(&got[0]).contains("no Content-Length"),
        "{}",
        error_of(&got[0])
    );
    assert!(got[1].bytes.is_ok());

    // A length past the end of the file.
    let long = warc_record(
        "response",
        "https://a.example/long",
        &body,
        Some(body.len() as u64 + 1000),
    );
    let got = items(
        &write("long.warc", &[ok("https://a.example/1"), long.clone()]),
        1 << 20,
    );
    assert_eq!(got.len(), 2);
    let msg = error_of(&got[1]);
    assert!(msg.contains("truncated WARC record"), "{msg}");
    assert_eq!(got[1].source, "https://a.example/long");
    // With records after it, those it ran into are read again, up to the end of the file.
    let got = items(
        &write(
            "long-then.warc",
            &[long, request.clone(), ok("https://a.example/after")],
        ),
        1 << 20,
    );
    let read: Vec<(&str, bool)> = got
        .iter()
        .map(|i| (i.source.as_str(), i.bytes.is_ok()))
        .collect();
    assert_eq!(read[0], ("https://a.example/long", false), "{read:?}");
    assert_eq!(read[1..], [("https://a.example/after", true)]);
    assert!(error_of(&got[0]).contains("truncated WARC record"));

    // An absurd length ends the stream as truncated, but the records it ran into are read
    // again, as long as they fit within the byte limit; an honest record over the byte limit
    // is refused and skipped without being kept in memory, and the records after it are
    // read.
    let huge = warc_record("response", "https://a.example/huge", &body, Some(1 << 50));
    let got = items(
        &write(
            "huge.warc",
            &[
                ok("https://a.example/1"),
                huge,
                ok("https://a.example/after"),
            ],
        ),
        1 << 20,
    );
    let msg = error_of(&got[1]);
    assert!(msg.contains("truncated WARC record"), "{msg}");
    assert_eq!(got.len(), 3);
    assert_eq!(got[2].source, "https://a.example/after");
    assert_eq!(got[2].bytes.as_deref().unwrap(), ARTICLE.as_bytes());
    let big = warc_record(
        "response",
        "https://a.example/big",
        &vec![b'x'; 3 << 20],
        None,
    );
    // A video over the limit is no page, whatever its size: passed over, not a failure.
    let mut video = b"HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\n".to_vec();
    video.resize(3 << 20, 0);
    let video = warc_record("response", "https://a.example/v.mp4", &video, None);
    let got = items(
        &write("big.warc", &[big, video, ok("https://a.example/after")]),
        1 << 20,
    );
    assert_eq!(got.len(), 3);
    let msg = error_of(&got[0]);
    assert!(
        msg.contains("too large") && msg.contains("--max-bytes"),
        "{msg}"
    );
    assert!(
        matches!(&got[1].bytes, Err(Error::NoPage(t)) if t == "video/mp4"),
        "{:?}",
        got[1].bytes
    );
    assert!(got[2].bytes.is_ok());

    // A length that is not a number, a header that never ends, and a gzipped WARC cut short.
    let nan = String::from_utf8(ok("https://a.example/x"))
        .unwrap()
        .replacen(
            &format!("Content-Length: {}", http(ARTICLE).len()),
            "Content-Length: lots",
            1,
        )
        .into_bytes();
    let got = items(&write("nan.warc", &[nan]), 1 << 20);
    assert!(got[0]
        .bytes
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("not a number"));
    let got = items(
        &write(
            "endless.warc",
            &[
                b"WARC/1.0\r\nWARC-Type: response\r\n".to_vec(),
                vec![b'x'; 3 << 20],
            ],
        ),
        1 << 20,
    );
    assert_eq!(got.len(), 1);
    assert!(got[0].bytes.is_err());
    let packed = gzip(&[ok("https://a.example/1"), ok("https://a.example/2")].concat());
    let got = items(
        &write("cut.warc.gz", &[packed[..packed.len() * 2 / 3].to_vec()]),
        1 << 20,
    );
    assert!(got.last().unwrap().bytes.is_err());
    // Gzipped record by record, the last member cut short: a record whose length runs into
    // the cut still gives back the records it ran into, then the cut is reported, named by
    // the record it cut, as its page would be.
    let last = gzip(&ok("https://a.example/3"));
    let got = items(
        &write(
            "members-cut.warc.gz",
            &[
                gzip(&warc_record(
                    "response",
                    "https://a.example/over",
                    &body,
                    Some(body.len() as u64 + 5000),
                )),
                gzip(&ok("https://a.example/2")),
                last[..last.len() / 2].to_vec(),
            ],
        ),
        1 << 20,
    );
    let read = last_parts(&got);
    assert_eq!(read, [("over", false), ("2", true), ("3", false),]);
    assert!(got[2].warc.is_some());
    let msg = error_of(&got[0]);
    assert!(
        msg.contains("truncated WARC record") && msg.contains("cannot be read past"),
        "{msg}"
    );
    assert!(
        matches!(got[2].bytes, Err(Error::Gzip(_))),
        "{:?}",
        got[2].bytes
    );
    // Bytes after the last gzip member that start no other one (a file padded with zeros, a
    // stray line) are ignored, as `gzip -d` ignores them: no record is lost or failed.
    for (name, tail) in [
        ("zeros.warc.gz", vec![0u8; 700]),
        ("line.warc.gz", b"junk\n".to_vec()),
    ] {
        let got = items(&write(name, &[packed.clone(), tail]), 1 << 20);
        let ok: Vec<bool> = got.iter().map(|i| i.bytes.is_ok()).collect();
        assert_eq!(ok, [true, true], "{name}");
    }
}

#[test]
fn links_to_directories_are_followed_but_not_round_a_loop() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(dir.path().join("a.html"), ARTICLE).unwrap();
    std::fs::write(sub.join("b.html"), ARTICLE).unwrap();
    // A link back to the top: walked into, it repeats the whole tree at every level until
    // the system's limit on links (and two such links would give 2^40 paths).
    std::os::unix::fs::symlink(dir.path(), sub.join("up")).unwrap();
    // A link to a directory outside the tree is followed.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("c.html"), ARTICLE).unwrap();
    std::os::unix::fs::symlink(other.path(), dir.path().join("more")).unwrap();

    let root = dir.path().display().to_string();
    let found: Vec<String> = input::expand(std::slice::from_ref(&root))
        .map(|(source, _)| source[root.len()..].to_string())
        .collect();
    assert_eq!(found, ["/a.html", "/more/c.html", "/sub/b.html"]);

    // A link to the directory above the one walked leads back down into it by a way that is
    // no loop of links: it is walked once, and the pages beside it are read.
    let outer = tempfile::tempdir().unwrap();
    let tree = outer.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    std::fs::write(tree.join("a.html"), ARTICLE).unwrap();
    std::fs::write(outer.path().join("beside.html"), ARTICLE).unwrap();
    std::os::unix::fs::symlink(outer.path(), tree.join("out")).unwrap();
    let root = tree.display().to_string();
    let found: Vec<String> = input::expand(std::slice::from_ref(&root))
        .map(|(source, _)| source[root.len()..].to_string())
        .collect();
    assert_eq!(found, ["/a.html", "/out/beside.html"]);
}

#[test]
fn unreadable_entries_in_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.html"), ARTICLE).unwrap();
    std::fs::write(dir.path().join("c.html"), ARTICLE).unwrap();
    // A dangling symbolic link cannot be read by anyone, root included.
    std::os::unix::fs::symlink(dir.path().join("gone"), dir.path().join("b.html")).unwrap();
    let locked = dir.path().join("d.html");
    std::fs::write(&locked, ARTICLE).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads files whatever their mode: then the locked file is an ordinary one.
    let locked_readable = std::fs::read(&locked).is_ok();

    let root = dir.path().display().to_string();
    let mut results = Vec::new();
    for (source, path) in input::expand(std::slice::from_ref(&root)) {
        for item in input::pages(source, path, &input::Reading::new(1 << 20)) {
            let name = item.source.rsplit('/').next().unwrap().to_string();
            results.push((name, item.bytes.map_err(|e| e.to_string())));
        }
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
    let names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a.html", "b.html", "c.html", "d.html"]);
    assert!(results[0].1.is_ok() && results[2].1.is_ok());
    let err = results[1].1.as_ref().unwrap_err();
    assert!(err.starts_with("cannot read"), "{err}");
    assert_eq!(results[3].1.is_ok(), locked_readable);
}
