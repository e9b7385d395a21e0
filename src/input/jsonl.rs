//! JSON Lines inputs: lines cut out of the stream within a bound, each parsed as a record
//! whose fields [`super::Reading`] names.

use super::compressed::{is_bad_gzip, spoils_bytes_read};
use super::{stream_error, too_many_bytes, Item, Reading, RecordKeys, UTF8_BOM};
use crate::error::Error;
use rustc_hash::FxHashMap;
use serde_json::value::RawValue;
use std::io::{BufRead, Read};

/// The next line of `r` (with its newline), or `Err(n)` for a line of `n` bytes longer than
/// `max`, which is skipped without being kept in memory.
fn bounded_line(r: &mut dyn BufRead, max: u64) -> std::io::Result<Option<Result<Vec<u8>, u64>>> {
    let mut buf = Vec::new();
    let n = r.take(max.saturating_add(1)).read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') || (n as u64) <= max {
        return Ok(Some(Ok(buf)));
    }
    let mut skipped = n as u64;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        match memchr::memchr(b'\n', chunk) {
            Some(at) => {
                r.consume(at + 1);
                skipped += at as u64 + 1;
                break;
            }
            None => {
                let len = chunk.len();
                r.consume(len);
                skipped += len as u64;
            }
        }
    }
    Ok(Some(Err(skipped)))
}

/// The lines of a JSON Lines input that hold something, each with its place (`FILE:LINE`); a
/// line over the limit, or a read that fails, is the item that reports it. A failed read ends
/// the input, but for corrupt gzip data (`members`: the stream is gzip), read past at the next
/// member, as in a file gzipped line by line or in blocks; a partial line there is reported
/// as a bad record. `failed`: a failure met before the first line, reported as that line's.
/// A byte-order mark at a line's start is taken off: the first line's, and those of files
/// put together with `cat`.
pub(super) fn jsonl_lines(
    source: String,
    mut stream: Box<dyn BufRead + Send>,
    members: bool,
    max_bytes: u64,
    failed: Option<std::io::Error>,
) -> impl Iterator<Item = std::result::Result<(String, Vec<u8>), Item>> + Send {
    // JSON escapes make a line longer than its page: allow for them, but keep memory bounded.
    let max_line = max_bytes.saturating_mul(2).saturating_add(1 << 20);
    let mut n = 0usize;
    let mut done = false;
    // A failed read met when looking past a line: the next line's failure.
    let mut pending: Option<std::io::Error> = failed;
    std::iter::from_fn(move || loop {
        if done {
            return None;
        }
        n += 1;
        let place = format!("{source}:{n}");
        let failed = |e: std::io::Error| {
            let bytes = Err(stream_error(e, |e| {
                Error::Record(format!("unreadable line: {e}"))
            }));
            Some(Err(Item::new(place.clone(), bytes)))
        };
        let read = match pending.take() {
            Some(e) => Err(e),
            None => bounded_line(&mut *stream, max_line),
        };
        let mut line = match read {
            Ok(None) => return None,
            Ok(Some(Ok(line))) => line,
            Ok(Some(Err(len))) => {
                return Some(Err(Item::new(place, Err(Error::TooLarge(format!(
                        "a line of {len} bytes, more than {max_line} (raise the limit with --max-bytes or Limits::max_bytes)"
                    ))))))
            }
            Err(e) => {
                done = !is_bad_gzip(&e);
                return failed(e);
            }
        };
        // The checksum of a gzip member that ends with the line is read with the bytes after
        // it (none are read when some are at hand): a member that fails it having given no
        // more than this line's bytes makes this line the failed one.
        if members {
            if let Err(e) = stream.fill_buf() {
                if spoils_bytes_read(&e).is_some_and(|gave| gave <= line.len() as u64) {
                    return failed(e);
                }
                pending = Some(e);
            }
        }
        if line.starts_with(UTF8_BOM) {
            line.drain(..UTF8_BOM.len());
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        return Some(Ok((place, line)));
    })
}

/// The page of one JSON Lines record (`{"id", "html"}`, or the fields `reading` names; without
/// an id, named by its URL, else by `place`), or why the line is not one.
pub(super) fn jsonl_record(place: String, line: &[u8], reading: &Reading) -> Item {
    let keys = &*reading.keys;
    // Without its line break, a record cut short ends on its own line, not at "line 2 column 0".
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let parse = |line: &[u8], html| {
        let mut de = serde_json::Deserializer::from_slice(line);
        let parts = serde::de::DeserializeSeed::deserialize(RecordSeed { keys, html }, &mut de)?;
        de.end().map(|()| parts)
    };
    let mut parsed = parse(line, true);
    // Mended only when refused: most lines are plain JSON, read in one pass.
    let mended = parsed.is_err().then(|| mend_json_line(line)).flatten();
    if let Some(m) = &mended {
        parsed = parse(m, true);
    }
    let line = mended.as_deref().unwrap_or(line);
    match parsed {
        Ok(RecordParts {
            id,
            url,
            html: Some(html),
            kept,
        }) => {
            let (source, place) = named(record_name(id, url.clone()), place);
            let bytes = if html.len() as u64 > reading.max_bytes {
                Err(too_many_bytes(reading.max_bytes, ""))
            } else {
                Ok(html.into_bytes())
            };
            Item {
                charset: Some("utf-8".into()),
                url,
                fields: kept_fields(keys, &kept),
                place,
                ..Item::new(source, bytes)
            }
        }
        // Read as a record, though without its page: named, with its URL and the fields
        // passed through, as a record with a page is.
        Ok(RecordParts { id, url, kept, .. }) => {
            // A training manifest names its pages' files, which only training reads.
            let hint = if memchr::memmem::find(line, b"\"html_path\"").is_some() {
                " (a training manifest's `html_path` is read by train and eval; name the page \
                 files themselves here)"
            } else {
                ""
            };
            let (source, place) = named(record_name(id, url.clone()), place);
            Item {
                url,
                fields: kept_fields(keys, &kept),
                place,
                ..Item::new(
                    source,
                    Err(not_a_record(
                        keys,
                        format!("missing field `{}`{hint}", keys.html),
                    )),
                )
            }
        }
        Err(e) => {
            // Read again without its page, so that the report names the record, with its URL
            // and the fields passed through, as for a record without a page.
            let again = parse(line, false);
            // Without a record, there are no fields to pass through (not even an empty set).
            let fields = again.as_ref().ok().and_then(|p| kept_fields(keys, &p.kept));
            let parts = again.unwrap_or_default();
            // The record is one line: the parser's "line 1" is no line of the file.
            let message = e.to_string();
            let at = format!(" at line {} column {}", e.line(), e.column());
            let why = match message.strip_suffix(&at) {
                Some(what) if e.line() == 1 => format!("{what} (column {})", e.column()),
                _ => message,
            };
            let (source, place) = named(record_name(parts.id, parts.url.clone()), place);
            Item {
                url: parts.url,
                fields,
                place,
                ..Item::new(source, Err(not_a_record(keys, why)))
            }
        }
    }
}

/// A record's source and place ([`Item::place`]): its name when it has one, with its place
/// apart, else its place.
fn named(name: Option<String>, place: String) -> (String, Option<String>) {
    match name {
        Some(name) => (name, Some(place)),
        None => (place, None),
    }
}

/// The fields passed through of a record, when any were asked for.
fn kept_fields(keys: &RecordKeys, kept: &Kept) -> Option<Box<RawValue>> {
    (!keys.keep.is_empty())
        .then(|| fields_object(&kept.inside()))
        .flatten()
}

/// The error of a line that is not a record with a page.
fn not_a_record(keys: &RecordKeys, why: impl std::fmt::Display) -> Error {
    Error::Record(format!(
        "not a JSON record with a page in its {:?} field: {why}",
        keys.html
    ))
}

/// A record's name: its id (a string as it is, a number as written, another value as
/// compact JSON), else its URL; an empty one names nothing.
fn record_name(id: Option<Box<RawValue>>, url: Option<String>) -> Option<String> {
    let url = url.filter(|u| !u.is_empty());
    let Some(id) = id else {
        return url;
    };
    let text = id.get();
    if !text.starts_with(['"', '{', '[']) {
        // `1.50` and `1e2` stay as written, which reading them as numbers would not keep.
        return Some(text.to_string());
    }
    if !text.starts_with('"') {
        return Some(compact(text));
    }
    match decoded(&id) {
        Some(serde_json::Value::String(s)) if !s.is_empty() => Some(s),
        _ => url,
    }
}

/// A JSON array or object (whose grammar was checked) without the whitespace between its
/// tokens, as written otherwise, an escaped lone UTF-16 surrogate in it made `\uFFFD`. Read
/// once, so that an id of millions of values costs no more than its text.
fn compact(json: &str) -> String {
    let mut out = Vec::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for &b in json.as_bytes() {
        if in_string {
            in_string = escaped || b != b'"';
            escaped = !escaped && b == b'\\';
        } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            continue;
        } else {
            in_string = b == b'"';
        }
        out.push(b);
    }
    let out = without_lone_surrogates(&out).unwrap_or(out);
    // Only whole ASCII bytes were left out, and mending writes UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// A value read as JSON, an escaped lone UTF-16 surrogate in it made U+FFFD as in the page
/// (reading it raw did not check its escapes).
fn decoded(value: &RawValue) -> Option<serde_json::Value> {
    let text = value.get();
    serde_json::from_str(text).ok().or_else(|| {
        let mended = without_lone_surrogates(text.as_bytes())?;
        serde_json::from_slice(&mended).ok()
    })
}

/// The string a field's value is, if it is one.
fn string_in(value: Option<&RawValue>) -> Option<String> {
    match decoded(value.filter(|v| v.get().starts_with('"'))?)? {
        serde_json::Value::String(s) => Some(s),
        _ => None,
    }
}

/// The fields passed through as one JSON object. Their values were only checked for their
/// grammar, not decoded: an escaped lone UTF-16 surrogate in them (which the page's field
/// would have had mended, [`mend_json_line`]) is made U+FFFD, so that readers that decode
/// strictly read the output record.
fn fields_object(kept: &str) -> Option<Box<RawValue>> {
    let object = format!("{{{kept}}}");
    let object = match without_lone_surrogates(object.as_bytes()) {
        Some(mended) => String::from_utf8(mended).ok()?,
        None => object,
    };
    RawValue::from_string(object).ok()
}

/// The fields passed through of a record, as written and in the record's order; a field
/// named twice has its last value, at its first place, as Python's `json` reads it.
#[derive(Default)]
struct Kept {
    /// Each field's name as JSON, and its value.
    fields: Vec<(String, String)>,
    /// Where each name is in `fields`.
    at: FxHashMap<String, usize>,
}

impl Kept {
    /// Pass a field through.
    fn add(&mut self, name: &str, value: &RawValue) {
        // A line break here is whitespace between tokens (inside a string it is escaped):
        // taken out, so that no reader that also breaks lines at a `\r` cuts the output record.
        let value: String = value
            .get()
            .chars()
            .filter(|c| !matches!(c, '\r' | '\n'))
            .collect();
        match self.at.get(name) {
            Some(&i) => self.fields[i].1 = value,
            None => {
                self.at.insert(name.to_string(), self.fields.len());
                // A name is a string, which serde_json always writes.
                let json = serde_json::to_string(name).unwrap_or_default();
                self.fields.push((json, value));
            }
        }
    }

    /// The fields as the inside of a JSON object.
    fn inside(&self) -> String {
        let pairs: Vec<String> = self
            .fields
            .iter()
            .map(|(name, value)| format!("{name}:{value}"))
            .collect();
        pairs.join(",")
    }
}

/// The fields of a JSON Lines record that are read.
#[derive(Default)]
struct RecordParts {
    id: Option<Box<RawValue>>,
    url: Option<String>,
    html: Option<String>,
    /// The fields passed through.
    kept: Kept,
}

/// Reads a record's fields by the names in `keys`, passing over the others unread; with `html`
/// false, the page's field is passed over too.
struct RecordSeed<'k> {
    keys: &'k RecordKeys,
    html: bool,
}

/// What a field of a record is.
enum Field {
    Html,
    Id,
    Url,
    /// One field named as both the id and the URL.
    IdUrl,
    /// A field passed through, by its name.
    Kept(String),
    Other,
}

impl<'de> serde::de::DeserializeSeed<'de> for RecordSeed<'_> {
    type Value = RecordParts;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<RecordParts, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for RecordSeed<'_> {
    type Value = RecordParts;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<RecordParts, A::Error> {
        let keys = self.keys;
        let mut parts = RecordParts::default();
        // A field named twice takes its last value, as Python's `json` and jq read it.
        while let Some(field) = map.next_key_seed(FieldSeed(keys))? {
            match field {
                Field::Html if self.html => parts.html = Some(map.next_value()?),
                Field::Id => parts.id = map.next_value()?,
                // A URL that is not a string (a number, a list) names nothing; the record's
                // page is read all the same.
                Field::Url => {
                    let value: Option<Box<RawValue>> = map.next_value()?;
                    parts.url = string_in(value.as_deref());
                }
                Field::IdUrl => {
                    let value: Option<Box<RawValue>> = map.next_value()?;
                    parts.url = string_in(value.as_deref());
                    parts.id = value;
                }
                Field::Kept(name) => {
                    parts.kept.add(&name, map.next_value()?);
                }
                Field::Html | Field::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(parts)
    }
}

/// Tells a record's field by its name, without copying the name.
struct FieldSeed<'k>(&'k RecordKeys);

impl<'de> serde::de::DeserializeSeed<'de> for FieldSeed<'_> {
    type Value = Field;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Field, D::Error> {
        d.deserialize_str(self)
    }
}

impl serde::de::Visitor<'_> for FieldSeed<'_> {
    type Value = Field;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> std::result::Result<Field, E> {
        let keys = self.0;
        Ok(if name == keys.html {
            Field::Html
        } else {
            match (name == keys.id, name == keys.url) {
                (true, true) => Field::IdUrl,
                (true, false) => Field::Id,
                (false, true) => Field::Url,
                (false, false) if keys.keep.iter().any(|k| k == name || k == "*") => {
                    Field::Kept(name.to_owned())
                }
                (false, false) => Field::Other,
            }
        })
    }
}

/// A JSON Lines line as other tools write it, made JSON that serde_json reads; `None` when it
/// is that already (or when nothing here would change it).
fn mend_json_line(line: &[u8]) -> Option<Vec<u8>> {
    // JSON is UTF-8, but a tool that pastes a page's raw bytes into it (a Latin-1 `é`) would
    // lose the whole record to one byte: such bytes are read as U+FFFD, as a decoder does.
    let lossy = match String::from_utf8_lossy(line) {
        std::borrow::Cow::Owned(s) => Some(s.into_bytes()),
        std::borrow::Cow::Borrowed(_) => None,
    };
    // Tools that allow lone UTF-16 surrogates (Python's `json`, some scrapers) write JSON that
    // serde_json refuses: such a surrogate is read as U+FFFD too.
    let text = lossy.as_deref().unwrap_or(line);
    without_lone_surrogates(text).or(lossy)
}

/// A JSON text with every `\uXXXX` escape of a lone UTF-16 surrogate (a high one not followed by
/// a low one, or a low one alone) made `\uFFFD`; `None` when it has none.
fn without_lone_surrogates(json: &[u8]) -> Option<Vec<u8>> {
    // The code unit of the `\uXXXX` escape at `at`, if one is there.
    let unit = |at: usize| -> Option<u16> {
        let hex = json.get(at..at + 6)?.strip_prefix(b"\\u")?;
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    let high = |u: u16| (0xD800..0xDC00).contains(&u);
    let low = |u: u16| (0xDC00..0xE000).contains(&u);
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut i = 0;
    // A backslash as the last byte puts `i` past the end.
    while let Some(k) = json.get(i..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let at = i + k;
        i = at + 2;
        let Some(u) = unit(at) else { continue };
        i = at + 6;
        if high(u) && unit(at + 6).is_some_and(low) {
            i = at + 12;
        } else if high(u) || low(u) {
            let o = out.get_or_insert_with(|| Vec::with_capacity(json.len()));
            o.extend_from_slice(&json[copied..at]);
            o.extend_from_slice(b"\\uFFFD");
            copied = at + 6;
        }
    }
    let mut out = out?;
    out.extend_from_slice(&json[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let fix =
            |s: &str| without_lone_surrogates(s.as_bytes()).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(
            fix(r#"{"a":"x\ud800y"}"#).as_deref(),
            Some(r#"{"a":"x\uFFFDy"}"#)
        );
        assert_eq!(
            fix(r#""\uDC00\ud83d""#).as_deref(),
            Some(r#""\uFFFD\uFFFD""#)
        );
        // A pair, an escaped backslash before `u`, other escapes: nothing to do.
        assert_eq!(fix(r#""\ud83d\ude00 \\ud800 \n \u00e9""#), None);
        // An escape cut short at the end.
        assert_eq!(fix(r#""\ud80"#), None);
        // A backslash as the last byte, alone or after a lone surrogate.
        assert_eq!(fix("{} \\"), None);
        assert_eq!(fix(r#""\ud800\"#).as_deref(), Some(r#""\uFFFD\"#));
        let parsed: String =
            serde_json::from_str(&fix(r#""a\ud800\ud83d\ude00""#).unwrap()).unwrap();
        assert_eq!(parsed, "a\u{fffd}\u{1f600}");
    }

    #[test]
    fn fields_asked_for_pass_through_as_written() {
        let keep = |names: &[&str]| {
            let keys = RecordKeys {
                keep: names.iter().map(|n| n.to_string()).collect(),
                ..RecordKeys::default()
            };
            Reading::new(1 << 20).keys(keys).unwrap()
        };
        let fields = |line: &str, r: &Reading| {
            let item = jsonl_record("f.jsonl:1".into(), line.as_bytes(), r);
            assert!(item.bytes.is_ok());
            item.fields.map(|f| f.get().to_string())
        };
        // Values as written (a number past f64's digits, spaces inside), in the record's
        // order whatever the order asked; a name given twice has its last value, at its
        // first place.
        let line = r#"{"id": 1, "lang": "en", "html": "<p>a</p>", "n": 12345678901234567890.50, "m": { "a" : [1,RETURN2] }, "lang": "fr"}"#;
        assert_eq!(
            fields(&line.replace("RETURN", "\r"), &keep(&["m", "lang", "n"])).as_deref(),
            Some(r#"{"lang":"fr","n":12345678901234567890.50,"m":{ "a" : [1,2] }}"#)
        );
        // Every field but the page, the id and the URL; none present gives an empty object,
        // none asked gives nothing.
        let line = r#"{"id": 1, "url": "u", "html": "<p>a</p>", "date": null}"#;
        assert_eq!(
            fields(line, &keep(&["*"])).as_deref(),
            Some(r#"{"date":null}"#)
        );
        assert_eq!(fields(line, &keep(&["lang"])).as_deref(), Some("{}"));
        // A lone surrogate in a value passed through (the page's own is fine) is mended as it
        // would be in the page.
        let line = r#"{"html": "<p>a</p>", "t": "x\ud83d\ny \ud83d\ude00"}"#;
        assert_eq!(
            fields(line, &keep(&["t"])).as_deref(),
            Some(r#"{"t":"x\uFFFD\ny \ud83d\ude00"}"#)
        );
        assert_eq!(fields(line, &Reading::default()), None);
        // The fields that are read otherwise cannot be passed through.
        for name in ["html", "id", "url", ""] {
            let keys = RecordKeys {
                keep: vec![name.to_string()],
                ..RecordKeys::default()
            };
            assert!(Reading::new(1).keys(keys).is_err(), "{name}");
        }
    }

    #[test]
    fn a_record_is_named_by_its_id_as_written() {
        let reading = Reading::new(1 << 20);
        let name = |line: &str| jsonl_record("f.jsonl:1".into(), line.as_bytes(), &reading).source;
        for (id, source) in [
            (r#""a \"b\"""#, r#"a "b""#),
            ("1.50", "1.50"),
            ("1e2", "1e2"),
            ("18446744073709551616", "18446744073709551616"),
            ("-0", "-0"),
            ("true", "true"),
            (r#"{ "n" : [1, 2] }"#, r#"{"n":[1,2]}"#),
            // As written: the keys' order, the numbers, the spaces inside strings.
            (
                "{\"z\": [1.50, \"a b\\\" c\"],\n \"a\" :\t{}}",
                r#"{"z":[1.50,"a b\" c"],"a":{}}"#,
            ),
            (r#"["\ud800 x"]"#, r#"["\uFFFD x"]"#),
        ] {
            let line = format!(r#"{{"id": {id}, "url": "u", "html": "<p>a</p>"}}"#);
            assert_eq!(name(&line), source, "{id}");
        }
        // An escaped lone surrogate, which Python's `json` writes, is U+FFFD there too.
        let line = r#"{"id": "caf\udce9", "url": "https://x/\ud800", "html": "<p>a</p>"}"#;
        let item = jsonl_record("f.jsonl:1".into(), line.as_bytes(), &reading);
        assert_eq!(item.source, "caf\u{fffd}");
        assert_eq!(item.url.as_deref(), Some("https://x/\u{fffd}"));
        // No id, or a null one: the URL, when it is a string; else the line.
        assert_eq!(name(r#"{"id": null, "url": "u", "html": "<p>a</p>"}"#), "u");
        assert_eq!(name(r#"{"url": 5, "html": "<p>a</p>"}"#), "f.jsonl:1");
        // An empty id or URL names nothing.
        assert_eq!(name(r#"{"id": "", "url": "u", "html": "<p>a</p>"}"#), "u");
        assert_eq!(
            name(r#"{"id": "", "url": "", "html": "<p>a</p>"}"#),
            "f.jsonl:1"
        );
    }

    #[test]
    fn a_record_whose_page_is_no_string_keeps_its_url_and_fields() {
        let keys = RecordKeys {
            keep: vec!["lang".into()],
            ..RecordKeys::default()
        };
        let reading = Reading::new(1 << 20).keys(keys).unwrap();
        for (html, why) in [
            ("null", "invalid type: null, expected a string (column 53)"),
            (
                "5",
                "invalid type: integer `5`, expected a string (column 50)",
            ),
        ] {
            let line = format!(r#"{{"id":"x","url":"https://a/1","lang":"en","html":{html}}}"#);
            let item = jsonl_record("f.jsonl:1".into(), line.as_bytes(), &reading);
            assert_eq!(item.source, "x");
            assert_eq!(item.url.as_deref(), Some("https://a/1"));
            assert_eq!(
                item.fields.as_deref().map(RawValue::get),
                Some(r#"{"lang":"en"}"#)
            );
            let err = item.bytes.unwrap_err().to_string();
            assert!(err.ends_with(why), "{err}");
        }
        // A line cut short is no record: no fields to pass through, and its column is on its
        // own line.
        let line = "{\"id\":\"x\",\"lang\":\"en\",\"html\":\"<p>a\n";
        let item = jsonl_record("f.jsonl:1".into(), line.as_bytes(), &reading);
        assert_eq!(item.source, "f.jsonl:1");
        assert!(item.fields.is_none());
        let err = item.bytes.unwrap_err().to_string();
        let at_end = format!("EOF while parsing a string (column {})", line.len() - 1);
        assert!(err.ends_with(&at_end), "{err}");
        // So is one that ends with CR LF.
        let crlf = line.replace('\n', "\r\n");
        let item = jsonl_record("f.jsonl:1".into(), crlf.as_bytes(), &reading);
        assert!(item.bytes.unwrap_err().to_string().ends_with(&at_end));
    }

    #[test]
    fn json_lines_records_are_read_by_the_fields_named() {
        let keys = |html: &str, id: &str, url: &str| RecordKeys {
            html: html.into(),
            id: id.into(),
            url: url.into(),
            keep: Vec::new(),
        };
        let reading = |k| Reading::new(1 << 20).keys(k).unwrap();
        let record = |line: &str, r: &Reading| {
            let item = jsonl_record("f.jsonl:1".into(), line.as_bytes(), r);
            let bytes = item.bytes.map(|b| String::from_utf8(b).unwrap());
            (item.source, item.url, bytes.map_err(|e| e.to_string()))
        };
        let line = r#"{"html": "<p>a</p>", "doc": {"n": [1]}, "raw": "<p>b</p>", "link": "https://x.example/b", "id": "i", "url": "https://x.example/a"}"#;
        let ok = |s: &str, u: Option<&str>, b: &str| {
            (s.to_string(), u.map(String::from), Ok(b.to_string()))
        };
        assert_eq!(
            record(line, &Reading::default()),
            ok("i", Some("https://x.example/a"), "<p>a</p>")
        );
        // Other fields: an id that is not a string is named as JSON; the fields of the
        // defaults are then passed over like any other.
        let custom = reading(keys("raw", "doc", "link"));
        assert_eq!(
            record(line, &custom),
            ok(r#"{"n":[1]}"#, Some("https://x.example/b"), "<p>b</p>")
        );
        // One field as both the name and the URL.
        let by_link = reading(keys("raw", "link", "link"));
        assert_eq!(
            record(line, &by_link),
            ok(
                "https://x.example/b",
                Some("https://x.example/b"),
                "<p>b</p>"
            )
        );
        // The page's field missing, or a record that is not an object: refused, named by its
        // id when it has one.
        let (source, _, err) = record(r#"{"doc": "d", "html": "<p>a</p>"}"#, &custom);
        assert_eq!(source, "d");
        let err = err.unwrap_err();
        assert!(
            err.starts_with(
                "not a JSON record with a page in its \"raw\" field: missing field `raw`"
            ),
            "{err}"
        );
        // A training manifest's record names its page's file: said so.
        let manifest = Reading::new(1 << 20);
        let (_, _, err) = record(r#"{"id": "m", "html_path": "a.html"}"#, &manifest);
        assert!(err.unwrap_err().contains(
            "missing field `html` (a training manifest's `html_path` is read by train and eval"
        ));
        // A field named twice takes its last value, as Python's `json` reads it.
        assert_eq!(
            record(
                r#"{"raw": "<p>a</p>", "doc": 1, "link": "https://x.example/a", "raw": "<p>b</p>",
                    "doc": "d", "link": 2}"#,
                &custom
            ),
            ok("d", None, "<p>b</p>")
        );
        // A URL that is not a string names nothing, and costs the page nothing.
        assert_eq!(
            record(
                r#"{"id": "s", "url": 123, "html": "<p>a</p>"}"#,
                &Reading::default()
            ),
            ok("s", None, "<p>a</p>")
        );
        // A record without its page keeps its URL and the fields passed through, for the
        // report of the page that failed.
        let keep = Reading::new(1 << 20)
            .keys(RecordKeys {
                keep: vec!["lang".into()],
                ..RecordKeys::default()
            })
            .unwrap();
        let item = jsonl_record(
            "f.jsonl:1".into(),
            br#"{"id": "x1", "url": "http://u/1", "lang": "en", "body": "<p>hi</p>"}"#,
            &keep,
        );
        assert_eq!(item.source, "x1");
        assert!(item.bytes.is_err());
        assert_eq!(item.url.as_deref(), Some("http://u/1"));
        assert_eq!(
            item.fields.map(|f| f.get().to_string()).as_deref(),
            Some(r#"{"lang":"en"}"#)
        );
        let (source, _, err) = record(r#"["i", null, "<p>a</p>"]"#, &Reading::default());
        assert_eq!(source, "f.jsonl:1");
        assert!(err.unwrap_err().contains("expected a JSON object"));
        // Fields that cannot be told apart are refused when the reading is set up.
        for bad in [
            keys("id", "id", "url"),
            keys("u", "id", "u"),
            keys("", "id", "url"),
        ] {
            let e = Reading::new(1).keys(bad).unwrap_err();
            assert!(matches!(e, Error::Config(_)), "{e}");
        }
    }
}
