//! Bytes to HTML text: binary detection and character-set decoding.
//!
//! Order of evidence, as the HTML standard has it: a byte-order mark, then the charset the
//! transport declared (the HTTP `Content-Type` of a WARC record; UTF-8 for a JSON Lines record,
//! whose page is a JSON string), then a `<meta charset>` or `http-equiv` declaration in the first
//! bytes, then valid UTF-8 (a last character cut short allowed), then a statistical detector.
//! One departure: a declared legacy charset loses to bytes that hold non-ASCII text and are
//! valid UTF-8, since a server's default or a template's stale `<meta>` names ISO-8859-1 for
//! UTF-8 pages far more often than legacy text passes as UTF-8. Malformed sequences are
//! replaced, never a failure.

use crate::error::{Error, Result};
use encoding_rs::Encoding;
use regex::bytes::Regex;
use std::borrow::Cow;
use std::sync::OnceLock;

/// How many leading bytes are searched for a charset declaration. The HTML standard says 1024;
/// real pages often put a long `<head>` first, so look further.
const SNIFF_BYTES: usize = 8192;

/// A page decoded to UTF-8.
#[derive(Debug, Clone)]
pub struct Decoded<'a> {
    /// The page text: the input itself when it was UTF-8 already.
    pub text: Cow<'a, str>,
    /// The encoding that was used, by its WHATWG name.
    pub encoding: &'static str,
    /// Whether malformed byte sequences were replaced.
    pub had_errors: bool,
}

fn meta_charset_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?i-u)<meta[^>]*?charset\s*=\s*["']?\s*([a-z0-9_:.\-]+)"#)
            .expect("valid regex")
    })
}

/// Decode raw page bytes (already decompressed) to text.
///
/// Refuses empty input, bytes that are clearly not text (images, PDFs, archives, NUL-heavy data)
/// and XML documents that are not XHTML (feeds, sitemaps, SVG images).
pub fn decode(bytes: &[u8]) -> Result<Decoded<'_>> {
    decode_declared(bytes, None)
}

/// [`decode`], with the charset that came with the page from outside it (`declared`: a label
/// such as `"iso-8859-1"`, or a `Content-Type` value such as `"text/html; charset=koi8-r"`).
/// It wins over the page's `<meta>`, as in a browser, but not over what the bytes say: a
/// byte-order mark wins, UTF-16 declared for bytes without one is read as UTF-8, a legacy
/// charset declared for valid UTF-8 with non-ASCII text gives way to UTF-8, and UTF-8
/// declared for bytes that are mostly not UTF-8 gives way to the legacy encoding they read
/// as; the same holds for the `<meta>`. A label that names no known encoding is
/// passed over.
pub fn decode_declared<'a>(bytes: &'a [u8], declared: Option<&str>) -> Result<Decoded<'a>> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(Error::Empty);
    }
    let decoded = decode_text(bytes, declared)?;
    // Spaces of any script alone (`&nbsp;` as bytes, U+3000) are an empty page too.
    if decoded.text.chars().all(char::is_whitespace) {
        return Err(Error::Empty);
    }
    Ok(decoded)
}

/// What `bytes` are when they are a document or media file other than a page (an image, a
/// PDF, an XML document other than XHTML), by their first bytes: a server that sends one as
/// HTML sends no page. Compressed data is not among them: a body compressed twice, or whose
/// coding was not named, is a page that could not be read.
pub(crate) fn not_a_page(bytes: &[u8]) -> Option<String> {
    xml_kind(bytes).or_else(|| {
        MAGIC
            .iter()
            .find(|(m, name, tool)| {
                tool.is_none() && !name.ends_with(" data") && bytes.starts_with(m)
            })
            .map(|(_, name, _)| (*name).to_string())
    })
}

/// [`decode_declared`] past its check of empty input.
fn decode_text<'a>(bytes: &'a [u8], declared: Option<&str>) -> Result<Decoded<'a>> {
    if let Some(kind) = xml_kind(bytes) {
        return Err(Error::NotHtml(kind));
    }
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        return Ok(finish(enc, &bytes[bom_len..]));
    }
    if let Some(enc) = utf16_without_bom(bytes) {
        return Ok(finish(enc, bytes));
    }
    if let Some(kind) = binary_kind(bytes) {
        return Err(Error::NotHtml(kind));
    }
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    // A label of the "replacement" encoding (`iso-2022-kr`, `hz-gb-2312`…) would turn the
    // whole page into one U+FFFD: the bytes are read as if no charset were named.
    let label = |l: &[u8]| {
        Encoding::for_label(l)
            .filter(|&enc| enc != encoding_rs::REPLACEMENT)
            .map(|enc| unless_utf8(not_utf16(enc), bytes))
    };
    if let Some(enc) = declared
        .and_then(declared_label)
        .and_then(|d| label(d.as_bytes()))
    {
        return Ok(finish_declared(enc, bytes));
    }
    if let Some(enc) = meta_charset_regex()
        .captures(head)
        .and_then(|c| label(&c[1]))
    {
        return Ok(finish_declared(enc, bytes));
    }
    // A crawler that caps a page's size cuts it anywhere, often inside a character: that
    // alone must not send a UTF-8 page to the detector, which reads it as a legacy charset.
    if is_utf8_prefix(bytes) {
        return Ok(finish(encoding_rs::UTF_8, bytes));
    }
    // Nor must a few bytes of a legacy charset in a UTF-8 page (a stray byte, a paragraph
    // pasted in): its UTF-8 is read as such, and each such byte as windows-1252 reads it.
    if mostly_utf8(bytes) {
        return Ok(utf8_with_legacy_bytes(bytes));
    }
    Ok(finish(detected(bytes), bytes))
}

/// Bytes that are mostly UTF-8 ([`mostly_utf8`]): the valid UTF-8 as it is, every other byte
/// as windows-1252 reads it, and a character cut short at the end as U+FFFD.
fn utf8_with_legacy_bytes(bytes: &[u8]) -> Decoded<'_> {
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut chunks = bytes.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        text.push_str(chunk.valid());
        let invalid = chunk.invalid();
        if chunks.peek().is_none() && is_utf8_prefix(invalid) {
            if !invalid.is_empty() {
                text.push('\u{fffd}');
            }
        } else {
            text.push_str(
                &encoding_rs::WINDOWS_1252
                    .decode_without_bom_handling(invalid)
                    .0,
            );
        }
    }
    Decoded {
        text: Cow::Owned(text),
        encoding: encoding_rs::UTF_8.name(),
        had_errors: true,
    }
}

/// The charset label in what came with a page: a bare label, or a `Content-Type` value's
/// `charset` parameter (`text/html; charset="windows-1251"`).
fn declared_label(declared: &str) -> Option<String> {
    let label = |l: &str| l.trim().trim_matches(['"', '\'']).trim().to_string();
    if !declared.contains(['/', ';']) {
        return Some(label(declared));
    }
    // Read by hand, as servers write it: spaces around `=`, a trailing space, single quotes.
    declared.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| label(value))
    })
}

/// The legacy encoding that the bytes read as, by their statistics.
fn detected(bytes: &[u8]) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    detector.guess(None, false)
}

/// The non-ASCII characters that read as valid UTF-8 in `bytes`, and the invalid sequences
/// between them.
fn utf8_counts(bytes: &[u8]) -> (usize, usize) {
    let (mut valid, mut invalid) = (0, 0);
    for chunk in bytes.utf8_chunks() {
        valid += chunk.valid().chars().filter(|c| !c.is_ascii()).count();
        invalid += usize::from(!chunk.invalid().is_empty());
    }
    (valid, invalid)
}

/// Whether `bytes` is UTF-8 but for a few stray bytes: at least four valid non-ASCII
/// characters for each invalid sequence (legacy text seldom makes valid UTF-8 sequences by
/// chance: `Ã©` for `é`).
fn mostly_utf8(bytes: &[u8]) -> bool {
    let (valid, invalid) = utf8_counts(bytes);
    valid >= 4 * invalid
}

/// The page decoded in the encoding declared for it (by its `<meta>` or from outside, a
/// legacy one already checked by [`unless_utf8`]), unless it is UTF-8 and the bytes are
/// mostly not (more invalid sequences than valid non-ASCII characters: a template's
/// declaration over text in a legacy charset): then in the legacy encoding that they read
/// as. Only a page with invalid bytes is read twice.
fn finish_declared<'a>(enc: &'static Encoding, bytes: &'a [u8]) -> Decoded<'a> {
    let decoded = finish(enc, bytes);
    if enc != encoding_rs::UTF_8 || !decoded.had_errors || is_utf8_prefix(bytes) {
        return decoded;
    }
    let (valid, invalid) = utf8_counts(bytes);
    if invalid > valid {
        finish(detected(bytes), bytes)
    } else {
        decoded
    }
}

/// A page declared UTF-16 whose bytes did not look like UTF-16 (no byte-order mark, no NULs
/// between ASCII bytes) is read as UTF-8, and one declared `x-user-defined` as windows-1252,
/// as browsers read a charset that a page names.
fn not_utf16(enc: &'static Encoding) -> &'static Encoding {
    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        encoding_rs::UTF_8
    } else if enc == encoding_rs::X_USER_DEFINED {
        encoding_rs::WINDOWS_1252
    } else {
        enc
    }
}

/// A legacy charset declared for bytes that hold non-ASCII text and are valid UTF-8 (a last
/// character cut short allowed) gives way to UTF-8. A page whose UTF-8 menus surround text in
/// the declared charset keeps it: its UTF-8 parts are mended later ([`mend_double_utf8`]).
fn unless_utf8(enc: &'static Encoding, bytes: &[u8]) -> &'static Encoding {
    if enc != encoding_rs::UTF_8 && !bytes.is_ascii() && is_utf8_prefix(bytes) {
        encoding_rs::UTF_8
    } else {
        enc
    }
}

fn finish<'a>(enc: &'static Encoding, bytes: &'a [u8]) -> Decoded<'a> {
    let (text, had_errors) = enc.decode_without_bom_handling(bytes);
    Decoded {
        text,
        encoding: enc.name(),
        had_errors,
    }
}

/// Text encoded in UTF-8 twice, its first UTF-8 bytes read as Latin-1 or windows-1252 on its
/// way (`doesnâ\u{80}\u{99}t` or `doesnâ€™t` for `doesn’t`, `naÃ¯ve` for `naïve`), read once
/// more as UTF-8: each run of characters that stand for bytes 0x80 to 0xFF in windows-1252
/// (Latin-1 for the five bytes that it leaves undefined) is taken as those bytes, and its parts
/// that are valid UTF-8 are read as UTF-8; the other parts keep their characters. Text
/// encoded three times over is mended by further passes, at most three in all.
///
/// Only for the text of a page that [`double_encoded`] finds: `Ã©` may be meant.
pub fn mend_double_utf8(text: &str) -> Cow<'_, str> {
    let mut text = Cow::Borrowed(text);
    for _ in 0..MEND_PASSES {
        match mend_once(&text) {
            Some(mended) => text = Cow::Owned(mended),
            None => break,
        }
    }
    text
}

/// Passes of [`mend_double_utf8`]: text encoded three times needs two, and a bound keeps a
/// page that only seems encoded many times from costing more.
const MEND_PASSES: usize = 3;

/// The windows-1252 byte of a character, for bytes 0x80 to 0xFF: a character from U+0080 to
/// U+00FF stands for its own byte (as Latin-1 reads it), the others as `encoding_rs`'s
/// windows-1252 decoder gives bytes 0x80 to 0x9F.
fn cp1252_byte(c: char) -> Option<u8> {
    if ('\u{80}'..='\u{ff}').contains(&c) {
        return Some(c as u8);
    }
    // The characters that windows-1252 gives bytes 0x80 to 0x9F, sorted, with their bytes.
    static SPECIALS: OnceLock<Vec<(char, u8)>> = OnceLock::new();
    let specials = SPECIALS.get_or_init(|| {
        let bytes: Vec<u8> = (0x80..0xA0).collect();
        let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&bytes);
        let mut specials: Vec<(char, u8)> = text.chars().zip(0x80..).collect();
        specials.sort_unstable();
        specials
    });
    specials
        .binary_search_by_key(&c, |&(c, _)| c)
        .ok()
        .map(|i| specials[i].1)
}

/// Whether a page (its HTML, decoded) shows text encoded in UTF-8 twice for certain, so that
/// [`mend_double_utf8`] should read its text again: it holds a C1 control character (U+0080 to
/// U+009F, which no text shows and which Latin-1 gives for most punctuation), or `â€` followed
/// by a character that stands for a continuation byte (how windows-1252 reads the UTF-8 of
/// `’ “ ” – — …`), as characters or as character references (`&acirc;&euro;`, `&#226;&#8364;`,
/// `&#xE2;&#x80;`…: a site that writes every letter beyond ASCII as a reference).
pub fn double_encoded(html: &str) -> bool {
    // U+0080 to U+009F are 0xC2 0x80 to 0xC2 0x9F in UTF-8.
    let bytes = html.as_bytes();
    let c1 = |i: usize| bytes.get(i + 1).is_some_and(|b| (0x80..0xA0).contains(b));
    if memchr::memchr_iter(0xC2, bytes).any(c1) {
        return true;
    }
    let continuation = |at: usize| {
        html[at + "â€".len()..]
            .chars()
            .next()
            .and_then(cp1252_byte)
            .is_some_and(|b| b < 0xC0)
    };
    memchr::memmem::find_iter(bytes, "â€".as_bytes()).any(continuation)
        || mojibake_reference_regex().is_match(bytes)
}

/// `â€` written as character references: `â` by name, decimal or hex, then `€` as a character
/// or a reference, by its code point or by the windows-1252 byte 0x80 that the HTML parser
/// also reads as `€`.
fn mojibake_reference_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"&(?:acirc|#0*226|#[xX]0*[eE]2);(?:€|&(?:euro|#0*8364|#0*128|#[xX]0*20[aA][cC]|#[xX]0*80);)",
        )
        .expect("valid regex")
    })
}

/// One pass of [`mend_double_utf8`]; `None` when it finds nothing to mend.
fn mend_once(text: &str) -> Option<String> {
    if text.is_ascii() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut mended = false;
    // The current run: its characters' bytes, and where it starts in `text`.
    let mut run: Vec<u8> = Vec::new();
    let mut run_start = 0;
    let mut flush = |run: &mut Vec<u8>, source: &str, out: &mut String| {
        let mut chars = source.chars();
        for chunk in run.utf8_chunks() {
            // Each byte of the run stands for one character of its source.
            let valid = chunk.valid().len();
            if valid > 0 {
                mended = true;
                out.push_str(chunk.valid());
                chars.nth(valid - 1);
            }
            out.extend(chars.by_ref().take(chunk.invalid().len()));
        }
        run.clear();
    };
    for (at, c) in text.char_indices() {
        match cp1252_byte(c) {
            Some(b) => {
                if run.is_empty() {
                    run_start = at;
                }
                run.push(b);
            }
            None => {
                if !run.is_empty() {
                    flush(&mut run, &text[run_start..at], &mut out);
                }
                out.push(c);
            }
        }
    }
    if !run.is_empty() {
        flush(&mut run, &text[run_start..], &mut out);
    }
    mended.then_some(out)
}

/// An XML document that is not XHTML (a feed, a sitemap, an SVG image): what it is, from its
/// root element. A feed read as HTML runs its entries' links and escaped markup together into
/// one block of text, which is not a page's main content. An XML declaration makes any root
/// but `html` count; without one, only the roots of feeds and sitemaps do.
fn xml_kind(bytes: &[u8]) -> Option<String> {
    let mut rest = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let declared = rest.trim_ascii_start().starts_with(b"<?xml");
    // The prolog: declarations, processing instructions, comments, a doctype; at most a few
    // kilobytes of them are read.
    for _ in 0..32 {
        rest = rest.trim_ascii_start();
        let close: &[u8] = if rest.starts_with(b"<?") {
            b"?>"
        } else if rest.starts_with(b"<!--") {
            b"-->"
        } else if rest.starts_with(b"<!") {
            if rest.len() >= 14 && rest[2..14].eq_ignore_ascii_case(b"DOCTYPE html") {
                return None;
            }
            b">"
        } else {
            break;
        };
        let window = &rest[..rest.len().min(4096)];
        let end = window.windows(close.len()).position(|w| w == close)?;
        rest = &rest[end + close.len()..];
    }
    let name: Vec<u8> = rest
        .strip_prefix(b"<")?
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'_' | b'-' | b'.'))
        .map(u8::to_ascii_lowercase)
        .collect();
    let local = name.rsplit(|&b| b == b':').next().unwrap_or(&name);
    let kind = match local {
        b"html" | b"" => return None,
        b"rss" | b"rdf" => "RSS feed",
        b"feed" => "Atom feed",
        b"urlset" | b"sitemapindex" => "XML sitemap",
        _ if !declared => return None,
        b"svg" => "SVG image",
        _ => return Some(format!("XML document <{}>", String::from_utf8_lossy(&name))),
    };
    Some(kind.to_string())
}

/// UTF-16 without a BOM shows as NULs in every other byte of ASCII-range text.
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    let sample = &bytes[..bytes.len().min(4096) & !1];
    if sample.len() < 16 {
        return None;
    }
    let pairs = sample.len() / 2;
    let (mut even_nul, mut odd_nul) = (0usize, 0usize);
    for pair in sample.chunks_exact(2) {
        even_nul += usize::from(pair[0] == 0);
        odd_nul += usize::from(pair[1] == 0);
    }
    let mostly = |n: usize| n * 10 >= pairs * 9;
    let rarely = |n: usize| n * 20 <= pairs;
    if mostly(odd_nul) && rarely(even_nul) {
        Some(encoding_rs::UTF_16LE)
    } else if mostly(even_nul) && rarely(odd_nul) {
        Some(encoding_rs::UTF_16BE)
    } else {
        None
    }
}

/// Whether `bytes` is valid UTF-8, allowing a character cut short at the end.
fn is_utf8_prefix(bytes: &[u8]) -> bool {
    match std::str::from_utf8(bytes) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    }
}

/// Name the kind of binary data, if the bytes are not text.
fn binary_kind(bytes: &[u8]) -> Option<String> {
    if let Some((_, name, tool)) = MAGIC.iter().find(|(m, _, _)| bytes.starts_with(m)) {
        return Some(match tool {
            Some(tool) => {
                format!(
                    "{name} (only gzip and zstd are decompressed: pipe it through `{tool} -dc`)"
                )
            }
            None => (*name).to_string(),
        });
    }
    binary_text_kind(bytes)
}

/// Magic bytes, what they start, and for compressions other than gzip and zstd (which inputs
/// unpack: here they are a page compressed twice) the tool that decompresses them.
const MAGIC: &[(&[u8], &str, Option<&str>)] = &[
    (b"\x89PNG", "PNG image", None),
    (b"%PDF", "PDF document", None),
    (b"\xff\xd8\xff", "JPEG image", None),
    (b"GIF8", "GIF image", None),
    (b"PK\x03\x04", "ZIP archive", None),
    (b"\x1f\x8b", "gzip data", None),
    (b"RIFF", "RIFF media", None),
    (b"\x7fELF", "executable", None),
    (b"BZh", "bzip2 data", Some("bzip2")),
    (b"\xfd7zXZ", "xz data", Some("xz")),
    (b"(\xb5/\xfd", "zstd data", None),
    (b"OggS", "Ogg media", None),
    (b"wOFF", "web font", None),
    (b"wOF2", "web font", None),
];

/// [`binary_kind`] past its magic bytes: text that holds bytes no text uses.
fn binary_text_kind(bytes: &[u8]) -> Option<String> {
    let sample = &bytes[..bytes.len().min(8192)];
    // C0 control bytes that text does not use: not TAB, LF, VT, FF, CR, nor ESC (ISO-2022).
    let controls = sample
        .iter()
        .filter(|&&b| b < 0x09 || (0x0e..0x1b).contains(&b) || (0x1c..0x20).contains(&b))
        .count();
    let share = |n: usize| n * 100 / sample.len();
    // Text in any ASCII-compatible encoding has almost no control bytes; a few stray NULs are
    // tolerated and decoded. Random or compressed data has about one byte in ten.
    if controls * 10 > sample.len() {
        return Some(format!(
            "{}% control bytes in the first {} bytes",
            share(controls),
            sample.len()
        ));
    }
    // Fewer control bytes are still binary when the bytes are not UTF-8 either: uniformly random
    // bytes have 10% control bytes in expectation but fewer in a short or unlucky sample, while
    // a legacy-encoded page (windows-1252, Shift_JIS...) has high bytes but no control bytes.
    if controls >= 4 && controls * 50 > sample.len() && !is_utf8_prefix(sample) {
        return Some(format!(
            "{}% control bytes and invalid UTF-8 in the first {} bytes",
            share(controls),
            sample.len()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_wins_over_meta() {
        let mut bytes = b"\xef\xbb\xbf".to_vec();
        bytes.extend_from_slice("<meta charset=\"latin1\"><p>caf\u{e9}</p>".as_bytes());
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "UTF-8");
        assert!(d.text.contains("caf\u{e9}"));
    }

    #[test]
    fn meta_charset_windows_1252() {
        let bytes = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"></head><p>na\xefve \x93quotes\x94</p>";
        let d = decode(bytes).unwrap();
        assert_eq!(d.encoding, "windows-1252");
        assert!(d.text.contains("na\u{ef}ve \u{201c}quotes\u{201d}"));
    }

    #[test]
    fn charsets_that_browsers_read_otherwise_than_their_labels() {
        // x-user-defined, named in a page, is read as windows-1252.
        let bytes = b"<meta charset=\"x-user-defined\"><p>Caf\xe9 na\xefve</p>";
        let d = decode(bytes).unwrap();
        assert_eq!(d.encoding, "windows-1252");
        assert!(d.text.contains("Caf\u{e9} na\u{ef}ve"), "{}", d.text);
        // A label of the replacement encoding is passed over: the page keeps its text.
        for label in ["iso-2022-kr", "replacement", "hz-gb-2312"] {
            let page = format!("<meta charset=\"{label}\"><p>Plain words of a page.</p>");
            let d = decode(page.as_bytes()).unwrap();
            assert_ne!(d.encoding, "replacement");
            assert!(d.text.contains("Plain words of a page."), "{label}");
            let d = decode_declared(b"<p>Plain words.</p>", Some(label)).unwrap();
            assert!(d.text.contains("Plain words."), "{label}");
        }
    }

    #[test]
    fn declared_charset_wins_over_meta_but_not_over_a_bom() {
        let page = "<meta charset=\"windows-1252\"><p>caf\u{e9} cr\u{e8}me</p>";
        // A JSON Lines record's page is UTF-8 whatever its <meta> says.
        let d = decode_declared(page.as_bytes(), Some("utf-8")).unwrap();
        assert_eq!(d.encoding, "UTF-8");
        assert!(d.text.contains("caf\u{e9} cr\u{e8}me"));
        // So is a page whose <meta> names a legacy charset but whose non-ASCII bytes are UTF-8,
        // even cut short mid-character; bytes that are not UTF-8 follow the <meta>.
        assert!(decode(page.as_bytes()).unwrap().text.contains("caf\u{e9}"));
        let cut = &page.as_bytes()[..page.find("\u{e8}").unwrap() + 1];
        assert_eq!(decode(cut).unwrap().encoding, "UTF-8");
        let legacy = b"<meta charset=\"windows-1252\"><p>caf\xe9 \x93quoted\x94</p>";
        let d = decode(legacy).unwrap();
        assert_eq!(d.encoding, "windows-1252");
        assert!(d.text.contains("caf\u{e9} \u{201c}quoted\u{201d}"));
        let latin = b"<meta charset=\"utf-8\"><p>caf\xe9</p>";
        let d = decode_declared(latin, Some(" ISO-8859-1 ")).unwrap();
        assert_eq!(
            (d.encoding, d.text.contains("caf\u{e9}")),
            ("windows-1252", true)
        );
        // An unknown label is passed over, and the <meta>'s UTF-8, which the bytes are not,
        // gives way to the charset they read as; a UTF-16 label on bytes without NULs reads
        // as UTF-8, on ASCII bytes as well.
        for declared in ["x-nonsense", "utf-16"] {
            let d = decode_declared(latin, Some(declared)).unwrap();
            assert_eq!(
                (d.encoding, d.text.contains("caf\u{e9}")),
                ("windows-1252", true),
                "{declared}"
            );
        }
        assert_eq!(
            decode_declared(b"<p>cafe</p>", Some("utf-16"))
                .unwrap()
                .encoding,
            "UTF-8"
        );
        let mut bom = b"\xef\xbb\xbf".to_vec();
        bom.extend_from_slice(page.as_bytes());
        assert_eq!(
            decode_declared(&bom, Some("koi8-r")).unwrap().encoding,
            "UTF-8"
        );
    }

    #[test]
    fn utf16_bom_and_no_bom() {
        let page = "<p>Hello UTF-16 world with enough text</p>";
        let le: Vec<u8> = page.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        let mut with_bom = vec![0xff, 0xfe];
        with_bom.extend_from_slice(&le);
        assert_eq!(decode(&with_bom).unwrap().text, page);
        let d = decode(&le).unwrap();
        assert_eq!((d.encoding, &*d.text), ("UTF-16LE", page));
        let be: Vec<u8> = page.encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
        assert_eq!(decode(&be).unwrap().encoding, "UTF-16BE");
    }

    #[test]
    fn refuses_binary_and_empty() {
        assert!(matches!(decode(b""), Err(Error::Empty)));
        assert!(matches!(decode(b" \n\t "), Err(Error::Empty)));
        for bom_only in [
            &b"\xEF\xBB\xBF"[..],
            b"\xEF\xBB\xBF \n",
            b"\xFF\xFE",
            b"\xFE\xFF\x00 ",
        ] {
            assert!(
                matches!(decode(bom_only), Err(Error::Empty)),
                "{bom_only:?}"
            );
        }
        assert!(decode(b"\xFF\xFEx\x00").is_ok());
        // Spaces of other scripts alone, with or without a byte-order mark.
        for spaces in ["\u{a0}\u{a0}", "\u{3000}", "\u{feff}\u{a0} "] {
            assert!(
                matches!(decode(spaces.as_bytes()), Err(Error::Empty)),
                "{spaces:?}"
            );
        }
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert!(matches!(decode(png), Err(Error::NotHtml(k)) if k == "PNG image"));
        // Compressions other than gzip and zstd say how to read them.
        let xz = b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46<p>x</p>";
        assert!(matches!(decode(xz), Err(Error::NotHtml(k)) if k.contains("`xz -dc`")));
        let zst = b"(\xb5/\xfd\x24\x05\x29\x00\x00<p>x</p>";
        assert!(matches!(decode(zst), Err(Error::NotHtml(k)) if k == "zstd data"));
        let noise: Vec<u8> = (0..4000u32).map(|i| (i * 7 % 13) as u8).collect();
        assert!(matches!(decode(&noise), Err(Error::NotHtml(_))));
    }

    #[test]
    fn refuses_feeds_sitemaps_and_other_xml_but_not_xhtml() {
        let kind = |b: &[u8]| match decode(b) {
            Err(Error::NotHtml(k)) => Some(k),
            _ => None,
        };
        let rss = b"<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"a.xsl\"?>\n<!-- feed -->\n\
                    <rss version=\"2.0\"><channel><title>T</title></channel></rss>";
        assert_eq!(kind(rss).as_deref(), Some("RSS feed"));
        let atom =
            b"\xef\xbb\xbf<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>T</title></feed>";
        assert_eq!(kind(atom).as_deref(), Some("Atom feed"));
        assert_eq!(
            kind(b"<rdf:RDF><channel/></rdf:RDF>").as_deref(),
            Some("RSS feed")
        );
        let sitemap = b"<?xml version=\"1.0\"?><urlset><url><loc>a</loc></url></urlset>";
        assert_eq!(kind(sitemap).as_deref(), Some("XML sitemap"));
        let svg = b"<?xml version=\"1.0\"?><!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \
                    \"x.dtd\"><svg><text>Hi</text></svg>";
        assert_eq!(kind(svg).as_deref(), Some("SVG image"));
        let other = b"<?xml version=\"1.0\"?><catalog><book>B</book></catalog>";
        assert_eq!(kind(other).as_deref(), Some("XML document <catalog>"));
        // XHTML, and HTML that merely mentions these words, are pages.
        let xhtml = b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE html PUBLIC \
                      \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"x.dtd\">\n<html><p>Hi</p></html>";
        assert!(decode(xhtml).is_ok());
        let prefixed = b"<?xml version=\"1.0\"?><h:html xmlns:h=\"x\"><h:p>Hi</h:p></h:html>";
        assert!(decode(prefixed).is_ok());
        assert!(decode(b"<!-- c --><div><p>rss feed</p></div>").is_ok());
        assert!(decode(b"<svg><text>inline, no declaration</text></svg><p>Hi</p>").is_ok());
        assert!(decode(b"Plain text, no markup.").is_ok());
    }

    /// `s`'s UTF-8 bytes read as Latin-1.
    fn as_latin1(s: &str) -> String {
        s.bytes().map(char::from).collect()
    }

    /// `s`'s UTF-8 bytes read as windows-1252.
    fn as_cp1252(s: &str) -> String {
        encoding_rs::WINDOWS_1252
            .decode_without_bom_handling(s.as_bytes())
            .0
            .into_owned()
    }

    #[test]
    fn text_encoded_in_utf8_twice_is_mended() {
        let text = format!(
            "It {} be {} €5; caf\u{e9} \u{c3}\u{a9} \u{a0}{}",
            as_latin1("doesn’t"),
            as_latin1("“naïve”"),
            as_latin1("—")
        );
        assert!(text.contains("doesnâ\u{80}\u{99}t"));
        assert!(double_encoded(&text));
        assert_eq!(
            mend_double_utf8(&text),
            "It doesn’t be “naïve” €5; caf\u{e9} \u{e9} \u{a0}—",
            "runs that are UTF-8 are mended, others (é, a space) left alone"
        );
        // Parts of a run that are no UTF-8 keep their characters.
        let odd = "x\u{e9}\u{80}y \u{c2}\u{85}z \u{e9}\u{e9} ’";
        assert_eq!(
            mend_double_utf8(odd),
            "x\u{e9}\u{80}y \u{85}z \u{e9}\u{e9} ’"
        );
        // Read as windows-1252 on its way: ’ is `â€™`, its bytes E2 80 99.
        let cp = as_cp1252("It isn’t “naïve” – or “naïve”… Œuvre ½");
        assert_eq!(
            cp,
            "It isnâ€™t â€œnaÃ¯veâ€\u{9d} â€“ or â€œnaÃ¯veâ€\u{9d}â€¦ Å’uvre Â½"
        );
        assert!(double_encoded(&cp));
        assert_eq!(
            mend_double_utf8(&cp),
            "It isn’t “naïve” – or “naïve”… Œuvre ½"
        );
        // Every windows-1252 character stands for its byte.
        for b in 0x80..=0xFFu8 {
            let byte = [b];
            let (decoded, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&byte);
            let c = decoded.chars().next().unwrap();
            assert_eq!(cp1252_byte(c), Some(b), "{b:#x}");
        }
        assert_eq!(cp1252_byte('a'), None);
        assert_eq!(cp1252_byte('ä'), Some(0xE4));
        assert_eq!(cp1252_byte('→'), None);
        // Three times over: two passes.
        let thrice = as_cp1252(&as_cp1252("don’t"));
        assert_eq!(mend_double_utf8(&thrice), "don’t");
        // Unmistakable only with a C1 control, `â€` before a continuation byte, or its
        // character references: `Ã©` or a bare `â€` may be meant.
        for plain in [
            "doesn’t",
            "\u{c3}\u{a9}",
            "â€ and â€A",
            "&acirc; &euro;",
            "&#226; &#8364;",
            "&#226;&#8365;",
            "&#2260;&#128;",
        ] {
            assert!(!double_encoded(plain), "{plain}");
        }
        for marked in [
            "isn&acirc;&euro;&trade;t",
            "isn&#226;&#8364;&#8482;t",
            "isn&#226;&#128;&#153;t",
            "isn&#xE2;&#x80;&#x99;t",
            "isn&#x0e2;&#x20AC;&#x2122;t",
            "isn&acirc;€™t",
        ] {
            assert!(double_encoded(marked), "{marked}");
        }
        assert!(matches!(mend_double_utf8("plain ascii"), Cow::Borrowed(_)));
    }

    #[test]
    fn undeclared_utf8_cut_inside_its_last_character_stays_utf8() {
        let page = "<p>Der B\u{fc}rgermeister sagte, die Br\u{fc}cke werde gebaut.</p>";
        let cut = &page.as_bytes()[..page.rfind('\u{fc}').unwrap() + 1];
        let d = decode(cut).unwrap();
        assert_eq!((d.encoding, d.had_errors), ("UTF-8", true));
        assert!(d.text.contains("B\u{fc}rgermeister sagte, die Br\u{fffd}"));
        // Bytes that are not UTF-8 before the end still go to the detector.
        assert_eq!(
            decode(b"<p>Der B\xfcrgermeister sagte, die Br\xfccke.</p>")
                .unwrap()
                .encoding,
            "windows-1252"
        );
    }

    #[test]
    fn a_stray_byte_leaves_utf8_and_a_false_utf8_declaration_gives_way() {
        // One byte of another charset among UTF-8 text: UTF-8, the byte as windows-1252
        // reads it (here the `é` of that charset).
        let page =
            "<title>Caf\u{e9}</title><p>\u{dc}n\u{ef}c\u{f6}d\u{e9} na\u{ef}ve fa\u{e7}ade</p>";
        let mut bytes = page.as_bytes().to_vec();
        let at = page.find('\u{e9}').unwrap();
        bytes.splice(at..at + 2, [0xe9]);
        let d = decode(&bytes).unwrap();
        assert_eq!((d.encoding, d.had_errors), ("UTF-8", true));
        assert!(d.text.contains(page), "{}", d.text);
        // A UTF-8 menu around a paragraph in windows-1252: both read as written.
        let mixed =
            b"<nav>Z\xc3\xbcrich \xc2\xb7 Gen\xc3\xa8ve \xc2\xb7 K\xc3\xb6ln \xc2\xb7 M\xc3\xbcnchen \xc2\xb7 \
              Malm\xc3\xb6 \xe2\x86\x92</nav>\
                      <p>We don\x92t think it\x92s over.</p>";
        let d = decode(mixed).unwrap();
        assert!(
            d.text.contains("Z\u{fc}rich \u{b7} Gen\u{e8}ve"),
            "{}",
            d.text
        );
        assert!(
            d.text.contains("We don\u{2019}t think it\u{2019}s over."),
            "{}",
            d.text
        );
        // A legacy charset declared for such bytes wins: they are not all UTF-8.
        assert_eq!(
            decode_declared(&bytes, Some("windows-1252"))
                .unwrap()
                .encoding,
            "windows-1252"
        );
        // UTF-8 declared for a page cut inside its last character stays UTF-8.
        let d = decode(b"<meta charset=\"utf-8\"><p>caf\xc3").unwrap();
        assert_eq!((d.encoding, d.had_errors), ("UTF-8", true));
        assert!(d.text.ends_with("caf\u{fffd}"), "{}", d.text);
        // UTF-8 declared for Cyrillic text in windows-1251: read as windows-1251.
        let (cyrillic, _, _) = encoding_rs::WINDOWS_1251
            .encode("<meta charset=utf-8><p>\u{41c}\u{43e}\u{441}\u{43a}\u{432}\u{430} \u{2014} \u{441}\u{442}\u{43e}\u{43b}\u{438}\u{446}\u{430} \u{420}\u{43e}\u{441}\u{441}\u{438}\u{438}</p>");
        let d = decode(&cyrillic).unwrap();
        assert_eq!(d.encoding, "windows-1251");
        assert!(d
            .text
            .contains("\u{41c}\u{43e}\u{441}\u{43a}\u{432}\u{430}"));
        // A charset declared from outside, as a label or a Content-Type value, quoted or not.
        let (koi8, _, _) =
            encoding_rs::KOI8_R.encode("<p>\u{41c}\u{43e}\u{441}\u{43a}\u{432}\u{430}</p>");
        for declared in [
            "koi8-r",
            "\"koi8-r\"",
            "text/html; charset=koi8-r",
            "text/html; charset=\"KOI8-R\"",
            "text/html;charset = 'koi8-r' ",
        ] {
            let d = decode_declared(&koi8, Some(declared)).unwrap();
            assert_eq!(d.encoding, "KOI8-R", "{declared}");
        }
        // A Content-Type without a charset declares none.
        assert_ne!(
            decode_declared(&koi8, Some("text/html")).unwrap().encoding,
            "KOI8-R"
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_not_refused() {
        let d = decode(b"<p>ok \xff\xfe\xfd still ok</p> and more text here").unwrap();
        assert!(d.text.contains("ok"));
    }
}
