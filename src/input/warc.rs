//! WARC inputs: the pages of `response` and HTML `resource` records, read record by record
//! within their lengths, their HTTP bodies de-chunked and decoded.
//!
//! A small reader of its own rather than the `warc` crate (0.4): that crate reads a record line
//! by line into one buffer until the claimed Content-Length is reached, with no bound of its
//! own, so one record with a lying length pulls the rest of a multi-gigabyte file into memory.

use super::compressed::{decompress_with, MemberStart};
use super::{stream_error, too_many_bytes, Item, WarcRecord};
use crate::error::{Error, Result};
use std::io::{BufRead, Read};

/// Longest WARC header block read; a longer one is refused as corrupt.
const MAX_WARC_HEADER: u64 = 1 << 20;
/// Room for the HTTP status line and headers in a response record, beside the page.
const HTTP_HEADER_ALLOWANCE: u64 = 1 << 20;

/// What textsift reads of a WARC record's header.
struct WarcHeader {
    /// `WARC-Type`: response, resource, request, metadata...
    kind: String,
    /// `WARC-Target-URI`.
    uri: Option<String>,
    /// `WARC-Record-ID` and `WARC-Date`.
    record: WarcRecord,
    /// `Content-Length` of the record's block, or why it cannot be read (the record is then
    /// reported by its other fields, as its page would be).
    length: std::result::Result<u64, String>,
    /// The record's own `Content-Type` (for a `resource` record, the type of its page).
    content_type: Option<String>,
}

/// The start of a record's version line, which [`resync`] looks for.
const WARC_LINE: &[u8] = b"WARC/1.";

/// One WARC record's header (`first`: the stream's first, with no record before it).
fn warc_header(r: &mut dyn BufRead, first: bool) -> Result<Option<WarcHeader>> {
    let bad = |m: String| Error::Record(format!("bad WARC record: {m}"));
    let io = |e: std::io::Error| stream_error(e, |e| bad(e.to_string()));
    // Records end with two line breaks; tolerate more.
    loop {
        let buf = r.fill_buf().map_err(io)?;
        match buf.iter().position(|b| *b != b'\r' && *b != b'\n') {
            Some(at) => {
                r.consume(at);
                break;
            }
            None if buf.is_empty() => return Ok(None),
            None => {
                let len = buf.len();
                r.consume(len);
            }
        }
    }
    let mut block = Vec::new();
    let mut limited = r.take(MAX_WARC_HEADER);
    loop {
        let before = block.len();
        let n = limited.read_until(b'\n', &mut block).map_err(io)?;
        if n == 0 {
            return Err(if block.len() as u64 >= MAX_WARC_HEADER {
                bad(format!("a header longer than {MAX_WARC_HEADER} bytes"))
            } else {
                bad("the file ends inside a header".into())
            });
        }
        let line = &block[before..];
        if line == b"\r\n" || line == b"\n" {
            break;
        }
    }
    let text = String::from_utf8_lossy(&block);
    let mut lines = text.lines();
    let version = lines.next().unwrap_or_default();
    if !version.starts_with("WARC/") {
        let hint = if first {
            ""
        } else {
            " (the Content-Length of the record before may be wrong)"
        };
        return Err(bad(format!(
            "expected a WARC/ version line, found {:?}{hint}",
            version.chars().take(40).collect::<String>()
        )));
    }
    let (mut kind, mut uri, mut length, mut content_type) = (None, None, None, None);
    let mut record = WarcRecord::default();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "warc-type" => kind = Some(value.to_string()),
            "warc-target-uri" => uri = Some(value.trim_matches(['<', '>']).to_string()),
            "content-type" => content_type = Some(value.to_string()),
            "warc-record-id" => record.id = Some(value.to_string()),
            "warc-date" => record.date = Some(value.to_string()),
            "content-length" => {
                length = Some(
                    value
                        .parse::<u64>()
                        .map_err(|_| format!("Content-Length {value:?} is not a number")),
                )
            }
            _ => {}
        }
    }
    let length = length.unwrap_or_else(|| Err("no Content-Length".into()));
    Ok(Some(WarcHeader {
        kind: kind.unwrap_or_default(),
        uri,
        record,
        length,
        content_type,
    }))
}

/// Read on to where the next record starts, after a record that does not hold together: a
/// line that starts with [`WARC_LINE`], or a version line (`WARC/1.0` and a line break) that
/// a record cut inside a line runs into. Gives the bytes read from there on, to be read
/// again; `None` at the end of the stream. A failed read is given as it is: corrupt gzip
/// data is then reported, and read past at the next member ([`super::compressed`]).
fn resync(r: &mut dyn BufRead) -> std::io::Result<Option<Vec<u8>>> {
    // The last bytes looked at, for a start across two reads. Where the bad record stopped
    // counts as the start of a line: after a header, or after the line breaks that end a
    // record.
    let mut carry = b"\n".to_vec();
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        let joined = [&carry[..], buf].concat();
        let n = buf.len();
        // A version line begun near the end is looked at again with the next read.
        let mut wait = None;
        for at in memchr::memmem::find_iter(&joined, WARC_LINE).filter(|&at| at > 0) {
            let line_start = joined[at - 1] == b'\n';
            match version_line_follows(&joined[at + WARC_LINE.len()..]) {
                _ if line_start => {}
                Some(true) => {}
                Some(false) => continue,
                None => {
                    wait = Some(at);
                    break;
                }
            }
            r.consume(n);
            return Ok(Some(joined[at..].to_vec()));
        }
        let keep = wait.unwrap_or(
            joined
                .len()
                .saturating_sub(WARC_LINE.len() + VERSION_LOOKAHEAD),
        );
        carry = joined[keep.saturating_sub(1)..].to_vec();
        r.consume(n);
    }
}

/// Whether what follows a [`WARC_LINE`] makes it a record's version line though it does not
/// start a line, where a record cut inside a line ran into the next one: a digit, a line
/// break, and the header of a record (`WARC-…` or `Content-…`). `None` when `after` ends
/// before that can be told.
fn version_line_follows(after: &[u8]) -> Option<bool> {
    let (digit, rest) = after.split_first()?;
    if !digit.is_ascii_digit() {
        return Some(false);
    }
    let rest = match rest {
        [] | [b'\r'] => return None,
        [b'\r', b'\n', rest @ ..] | [b'\n', rest @ ..] => rest,
        _ => return Some(false),
    };
    for name in [&b"warc-"[..], b"content-"] {
        let k = rest.len().min(name.len());
        if rest[..k].eq_ignore_ascii_case(&name[..k]) {
            return (k == name.len()).then_some(true);
        }
    }
    Some(false)
}

/// Bytes after a [`WARC_LINE`] that [`version_line_follows`] reads at most.
const VERSION_LOOKAHEAD: usize = 1 + 2 + b"content-".len();

/// A record's block as read.
struct Body {
    /// Its first bytes, as many as were to be kept.
    kept: Vec<u8>,
    /// How many bytes there were: less than the length when the stream ended first.
    got: u64,
    /// The bytes from the first place inside the block where a record seems to start (a
    /// blank line, then a version line), to read again if the block's length proves wrong:
    /// a record cut short by a crash, its length left as planned, runs into the records
    /// after it. At most `hold` bytes are held; past that, a later place is looked for.
    replay: Option<Vec<u8>>,
    /// The error that stopped the reading before the block's end (a gzip member cut short):
    /// the records held in `replay` are read all the same.
    failed: Option<std::io::Error>,
    /// How many records seemed to start in the bytes that were held and then let go, past
    /// `hold`: records lost if the block's length proves wrong.
    let_go: u64,
}

/// Read a record's block of `len` bytes, keeping the first `keep` of them, and holding the
/// bytes from where a record seems to start inside it (at most `hold` of them, [`Body`]).
/// `left`, when known, is what the stream holds before its end.
fn warc_body(r: &mut dyn BufRead, len: u64, keep: u64, hold: u64, left: Option<u64>) -> Body {
    let mut body = Body {
        kept: Vec::new(),
        got: 0,
        replay: None,
        failed: None,
        let_go: 0,
    };
    // The last bytes read, for a record start that straddles two reads.
    let mut carry: Vec<u8> = Vec::with_capacity(2 * RECORD_START_CARRY);
    if let Some(left) = left.filter(|&left| left < len) {
        // The block runs past the stream's end, whose rest is held to be read again: reading
        // goes on at the first record start inside the block, where the stream is left, so
        // that records whose lengths all run past the end read the rest once, not each.
        body.got = left;
        while let Ok(buf) = r.fill_buf() {
            if buf.is_empty() {
                break;
            }
            let n = buf.len();
            if let Some(at) = record_start(&carry, buf) {
                body.replay = Some(match at.checked_sub(carry.len()) {
                    Some(at) => {
                        r.consume(at);
                        Vec::new()
                    }
                    None => carry[at..].to_vec(),
                });
                return body;
            }
            keep_tail(&mut carry, buf);
            r.consume(n);
        }
        return body;
    }
    while body.got < len {
        let buf = match r.fill_buf() {
            Ok(buf) if !buf.is_empty() => buf,
            Ok(_) => break,
            Err(e) => {
                body.failed = Some(e);
                break;
            }
        };
        let n = buf
            .len()
            .min(usize::try_from(len - body.got).unwrap_or(usize::MAX));
        let chunk = &buf[..n];
        let keep_here = keep.saturating_sub(body.got).min(n as u64) as usize;
        body.kept.extend_from_slice(&chunk[..keep_here]);
        match &mut body.replay {
            Some(held) if (held.len() + n) as u64 <= hold => held.extend_from_slice(chunk),
            _ => {
                let start = record_start(&carry, chunk);
                if let Some(held) = body.replay.take() {
                    // A start in the bytes carried over, the held bytes' last, is held again.
                    let again = start.map_or(0, |at| carry.len().saturating_sub(at));
                    body.let_go += record_starts(&held[..held.len().saturating_sub(again)]);
                }
                body.replay = start
                    .map(|at| match at.checked_sub(carry.len()) {
                        Some(at) => chunk[at..].to_vec(),
                        None => [&carry[at..], chunk].concat(),
                    })
                    .filter(|held| {
                        let fits = held.len() as u64 <= hold;
                        if !fits {
                            body.let_go += record_starts(held);
                        }
                        fits
                    });
            }
        }
        keep_tail(&mut carry, chunk);
        r.consume(n);
        body.got += n as u64;
    }
    if body.replay.is_none() && body.got == len {
        // A length a few bytes too long ends inside the next record's version line.
        body.replay = version_line_started(&carry).map(<[u8]>::to_vec);
    }
    body
}

/// The start of a [`WARC_LINE`] that `tail` ends with, after a blank line: where a block
/// whose length is a few bytes too long stopped inside the next record's version line.
fn version_line_started(tail: &[u8]) -> Option<&[u8]> {
    (1..WARC_LINE.len()).rev().find_map(|k| {
        let before = tail.strip_suffix(&WARC_LINE[..k])?;
        (before.ends_with(b"\n\n") || before.ends_with(b"\n\r\n")).then_some(&WARC_LINE[..k])
    })
}

/// How many records seem to start in `held`, bytes that begin where one does: a
/// [`WARC_LINE`] at its start or after a blank line, or followed by what a version line is.
fn record_starts(held: &[u8]) -> u64 {
    memchr::memmem::find_iter(held, WARC_LINE)
        .filter(|&at| {
            let before = &held[..at];
            let after = &held[at + WARC_LINE.len()..];
            at == 0
                || before.ends_with(b"\n\n")
                || before.ends_with(b"\n\r\n")
                || version_line_follows(&after[..after.len().min(VERSION_LOOKAHEAD)]) == Some(true)
        })
        .count() as u64
}

/// Keep in `carry` the last [`RECORD_START_CARRY`] bytes read, `chunk` being the latest read.
fn keep_tail(carry: &mut Vec<u8>, chunk: &[u8]) {
    carry.extend_from_slice(&chunk[chunk.len().saturating_sub(RECORD_START_CARRY)..]);
    carry.drain(..carry.len().saturating_sub(RECORD_START_CARRY));
}

/// Bytes of one read kept for the next, so that a record start across two reads is found:
/// a blank line (up to 3 bytes), [`WARC_LINE`] and what [`version_line_follows`] reads.
const RECORD_START_CARRY: usize = 3 + WARC_LINE.len() + VERSION_LOOKAHEAD;

/// Where a record first seems to start in `chunk`, read right after `before`: a
/// [`WARC_LINE`] after a blank line, as an offset into `before` and `chunk` together.
fn record_start(before: &[u8], chunk: &[u8]) -> Option<usize> {
    let byte = |i: usize| match i.checked_sub(before.len()) {
        Some(i) => chunk[i],
        None => before[i],
    };
    let after_blank_line = |at: usize| {
        let ends = |s: &[u8]| {
            at >= s.len()
                && s.iter()
                    .rev()
                    .enumerate()
                    .all(|(k, c)| byte(at - 1 - k) == *c)
        };
        ends(b"\n\n") || ends(b"\n\r\n")
    };
    // Version lines that begin in `before` and end in `chunk`, then those inside `chunk`.
    let junction = [before, &chunk[..chunk.len().min(WARC_LINE.len() - 1)]].concat();
    let straddling =
        memchr::memmem::find_iter(&junction, WARC_LINE).filter(|&at| at < before.len());
    let inside = memchr::memmem::find_iter(chunk, WARC_LINE).map(|at| at + before.len());
    // A version line that a record cut inside a line ran into: what comes after it may lie
    // past `chunk`: it is then looked at again with the next read, from `before`.
    let all = before.len() + chunk.len();
    let version_line = |at: usize| {
        let from = at + WARC_LINE.len();
        let after: Vec<u8> = (from..all.min(from + VERSION_LOOKAHEAD))
            .map(byte)
            .collect();
        version_line_follows(&after) == Some(true)
    };
    straddling
        .chain(inside)
        .find(|&at| after_blank_line(at) || version_line(at))
}

/// Whether a record's body ended where its Content-Length said: line breaks follow, then the
/// next record's `WARC/` line or the end of the stream. The line breaks are consumed; the
/// first [`KEPT_BREAKS`] of them are added to `consumed`, to be read again when the record
/// does not end there (they may end a version line that the block ran into).
fn record_ends(r: &mut dyn BufRead, consumed: &mut Vec<u8>) -> std::io::Result<bool> {
    let mut breaks = 0usize;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(breaks > 0);
        }
        let n = buf
            .iter()
            .take_while(|b| **b == b'\r' || **b == b'\n')
            .count();
        if n == 0 {
            // A short buffer may hold only the start of the next version line.
            let k = buf.len().min(5);
            return Ok(breaks > 0 && (buf[..k] == b"WARC/"[..k] || damaged_version_line(buf)));
        }
        let keep = n.min(KEPT_BREAKS.saturating_sub(consumed.len()));
        consumed.extend_from_slice(&buf[..keep]);
        breaks += n;
        r.consume(n);
    }
}

/// Whether `buf` starts with a version line that a damaged byte made unreadable (`WAC/1.0`,
/// `WARC\1.0`): a short line, then a header field of WARC's own. The record before it ends
/// there, and the damaged one is reported when it is read.
fn damaged_version_line(buf: &[u8]) -> bool {
    memchr::memchr(b'\n', &buf[..buf.len().min(16)])
        .is_some_and(|end| buf[end + 1..].starts_with(b"WARC-"))
}

/// Line breaks after a block that [`record_ends`] keeps: those of the record it ran into (a
/// version line's, a header's end), bounded so that a file of line breaks holds little.
const KEPT_BREAKS: usize = 1 << 16;

/// The `response` records of a WARC stream. Each record is read within its Content-Length
/// (checked against the byte limit first), so memory stays bounded. A record that does not
/// hold together (a header that does not parse, a length that does not end where the record
/// does) is reported, and reading goes on at the first record that starts inside its block
/// (a record cut short runs into the records after it, [`Body::replay`]), else at the next
/// line that starts a record, so that one bad record does not lose the rest of a crawl; a
/// stream that ends or fails to read ends, after the records held whole before the failure,
/// but corrupt gzip data is read past, at the next gzip member. `failed` is a failure met
/// before the first record, reported as that record's.
pub(super) fn warc_pages(
    source: String,
    stream: Box<dyn BufRead + Send>,
    member_start: MemberStart,
    max_bytes: u64,
    failed: Option<std::io::Error>,
) -> impl Iterator<Item = Item> + Send {
    let mut stream = Replay {
        bytes: Vec::new(),
        at: 0,
        ended: false,
        failed,
        consumed: 0,
        inner: stream,
        member_start,
        doubtful: None,
    };
    let mut n = 0usize;
    // The stream ended or failed.
    let mut ended = false;
    // Records passed over without an item, and the types of a few of them.
    let mut others = 0usize;
    let mut ignored = std::collections::BTreeSet::new();
    std::iter::from_fn(move || loop {
        if ended {
            return None;
        }
        n += 1;
        let place = format!("{source}#{n}");
        // Where the record starts.
        let start = stream.next_start();
        match warc_record(&mut stream, max_bytes, &place) {
            Ok(Record::End) => {
                ended = true;
                // A file of text already extracted (WET: conversion records) or of metadata
                // (WAT) says so rather than ending without a word; a file of other records
                // only (revisits of a deduplicated crawl) has no page and no fault.
                let hint = if ignored.contains("conversion") {
                    "a WET file holds extracted text, no HTML"
                } else if ignored.contains("metadata")
                    && ignored.iter().all(|k| k == "metadata" || k == "warcinfo")
                {
                    "a WAT file holds metadata, no HTML"
                } else {
                    ""
                };
                // Every record read before the end (`n - 1`) was passed over.
                if others + 1 < n || hint.is_empty() {
                    return None;
                }
                let kinds: Vec<&str> = ignored.iter().map(String::as_str).collect();
                return Some(Item::new(
                    source.clone(),
                    Err(Error::NotHtml(format!(
                        "no response or resource record, only {} ({hint})",
                        kinds.join(", ")
                    ))),
                ));
            }
            Ok(Record::Other(kind)) => {
                others += 1;
                if ignored.len() < 8 && kind.len() <= 32 {
                    ignored.insert(kind);
                }
                continue;
            }
            Ok(Record::Item(item)) => {
                // A record read whole ends the doubt about its member.
                stream.doubtful = None;
                return Some(item);
            }
            // The records that the bad one ran into are read again.
            Ok(Record::Bad(item, Some(bytes))) => {
                stream.bad_record(start);
                stream.replay(bytes);
                return Some(item);
            }
            bad => {
                let mut item = match bad {
                    Ok(Record::Bad(item, _)) => item,
                    Err(e) => Item::new(place, Err(e)),
                    Ok(_) => unreachable!("the records that hold together are matched above"),
                };
                stream.bad_record(start);
                // A read error ends the stream, as does its end; but corrupt gzip data is
                // read past at the next member, and is the next record's failure, unless the
                // member started with this record: then it is why this one is bad, and this
                // record's failure (once: another member that fails is another record's).
                let resynced = loop {
                    match resync(&mut stream) {
                        Err(e)
                            if super::compressed::is_bad_gzip(&e)
                                && !matches!(item.bytes, Err(Error::Gzip(_)))
                                && stream.member_start.is(start) =>
                        {
                            item.bytes = Err(stream_error(e, |e| {
                                Error::Record(format!("bad WARC record: {e}"))
                            }));
                        }
                        other => break other,
                    }
                };
                match resynced {
                    // The version line it read is read again.
                    Ok(Some(line)) => stream.replay(line),
                    Err(e) if super::compressed::is_bad_gzip(&e) => stream.failed = Some(e),
                    Ok(None) | Err(_) => ended = true,
                }
                return Some(item);
            }
        }
    })
}

/// A stream with bytes to read again before the rest of it: those of a record that a bad one
/// ran into ([`Record::Bad`]), or the version line that [`resync`] read.
struct Replay {
    bytes: Vec<u8>,
    /// How much of `bytes` has been read.
    at: usize,
    /// The inner stream has ended: `bytes` hold the rest.
    ended: bool,
    /// A failed read, to be given once `bytes` are read: one met after a record's end, or
    /// in a record whose block holds the records to be read again.
    failed: Option<std::io::Error>,
    /// The bytes read from `inner`.
    consumed: u64,
    inner: Box<dyn BufRead + Send>,
    /// Where `inner`'s gzip member being read starts, when it is a stream of them.
    member_start: MemberStart,
    /// Where the gzip member that started with the last bad record starts, until a record is
    /// read whole: a record read after it from that member is found in data already seen to
    /// be wrong (damaged data can inflate to a copy of a record), so it is bad when the member
    /// fails its checksum as it ends.
    doubtful: Option<u64>,
}

impl Replay {
    /// Read `bytes` next: they were read from this stream, after what is left to read again
    /// (a block holds only bytes read after its header), so they go before it. None: read
    /// on from where the stream stands.
    fn replay(&mut self, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        let left = &self.bytes[self.at..];
        self.bytes = if left.is_empty() {
            bytes
        } else {
            [&bytes[..], left].concat()
        };
        self.at = 0;
    }

    /// A record that started at `start` was bad: when it started its gzip member, the
    /// records read after it from that member are in doubt ([`Replay::doubtful`]).
    fn bad_record(&mut self, start: u64) {
        self.doubtful = self.member_start.get().filter(|&at| at == start);
    }

    /// Where the next byte to read was read from `inner`: bytes read again were read from it
    /// before, so a record read from them starts where they did.
    fn next_start(&self) -> u64 {
        self.consumed - (self.bytes.len() - self.at.min(self.bytes.len())) as u64
    }

    /// Whether the next byte to read is the first of a gzip member (none when reading again).
    fn at_member_start(&self) -> bool {
        self.at >= self.bytes.len() && self.member_start.is(self.consumed)
    }

    /// What the stream holds before its end, when its end has been read.
    fn left(&self) -> Option<u64> {
        self.ended
            .then(|| (self.bytes.len() - self.at.min(self.bytes.len())) as u64)
    }
}

impl Read for Replay {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        super::compressed::read_buffered(self, out)
    }
}

impl BufRead for Replay {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.at < self.bytes.len() {
            return Ok(&self.bytes[self.at..]);
        }
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let buf = self.inner.fill_buf()?;
        self.ended = buf.is_empty();
        Ok(buf)
    }

    fn consume(&mut self, n: usize) {
        if self.at < self.bytes.len() {
            self.at += n;
        } else {
            self.consumed += n as u64;
            self.inner.consume(n);
        }
    }
}

/// What [`warc_record`] read.
enum Record {
    /// The end of the stream.
    End,
    /// A record that is neither a response nor a resource (a request, metadata...), of this
    /// type (lower-cased).
    Other(String),
    /// A page, or a response or resource without one ([`Error::NoPage`]), or one that cannot
    /// be read.
    Item(Item),
    /// A record whose length does not end where it does (a failed page, named as a page of
    /// that record would be), and the bytes of its block from where a record seems to start
    /// inside it, if any ([`Body::replay`]).
    Bad(Item, Option<Vec<u8>>),
}

/// The next record of a WARC stream; an error for a record that does not hold together.
/// `place` names a record that has no target URI.
fn warc_record(stream: &mut Replay, max_bytes: u64, place: &str) -> Result<Record> {
    let start = stream.next_start();
    let Some(WarcHeader {
        kind,
        uri,
        record,
        length: len,
        content_type,
    }) = warc_header(stream, start == 0)?
    else {
        return Ok(Record::End);
    };
    let response = kind.eq_ignore_ascii_case("response");
    // A `resource` record holds a file without HTTP (as archived by some tools); its own
    // Content-Type says whether it is a page.
    let resource = kind.eq_ignore_ascii_case("resource");
    let resource_page = resource
        && content_type
            .as_deref()
            .is_some_and(|t| html_charset(t).is_some());
    let wanted = response || resource_page;
    // A record that would have been a page is named as its page would be, with its record
    // id, so that a failure joins back to the crawl; another by its place.
    let named = uri.as_deref().filter(|_| wanted);
    let failure = |error| Item {
        warc: wanted.then(|| record.clone()),
        url: named.map(str::to_owned),
        place: named.map(|_| place.to_string()),
        ..Item::new(named.unwrap_or(place).to_string(), Err(error))
    };
    let len = match len {
        Ok(len) => len,
        // Reading goes on at the next record start.
        Err(why) => {
            let why = format!("bad WARC record: {why}");
            return Ok(Record::Bad(failure(Error::Record(why)), None));
        }
    };
    let bound = max_bytes.saturating_add(HTTP_HEADER_ALLOWANCE);
    let too_large = len > bound;
    // Of a response over the limit, only the HTTP head is kept: an image or a redirect is
    // no page whatever its size, and only a page over the limit is a failure.
    let keep = match (wanted, too_large) {
        (false, _) => 0,
        (true, false) => len,
        (true, true) if response => HTTP_HEADER_ALLOWANCE,
        (true, true) => 0,
    };
    let left = stream.left();
    let Body {
        kept: body,
        got,
        replay,
        failed,
        let_go,
    } = warc_body(stream, len, keep, bound, left);
    let read_error = |e| stream_error(e, |e| Error::Record(format!("bad WARC record: {e}")));
    // A block that cannot be read to its end holds no page; a record that it ran into and
    // held whole is read again below, as after a block cut short.
    let failed = match (failed, &replay) {
        (Some(e), None) => return Ok(Record::Bad(failure(read_error(e)), None)),
        // The failure is given again once the records held are read: it is the failure of
        // the record it cut.
        (Some(e), Some(_)) => {
            stream.failed = Some(e);
            true
        }
        (None, _) => false,
    };
    let mut breaks = Vec::new();
    let ends = got == len
        && match record_ends(stream, &mut breaks) {
            // A record whose line breaks end where its gzip member does ends there: what the
            // next member holds is the next record's (a member corrupt from its start may
            // give bytes before it fails).
            Ok(ends) => ends || (!breaks.is_empty() && stream.at_member_start()),
            // The gzip member that held the record, and no record before it, is corrupt:
            // the record may be wrong; so is one that a bad record of the same member ran
            // into or was followed by. (A member of several good records, as of a file
            // gzipped whole, does not say which.)
            Err(e)
                if super::compressed::spoils_bytes_read(&e).is_some_and(|gave| {
                    gave <= stream.consumed - start
                        || stream.doubtful.is_some_and(|at| stream.member_start.is(at))
                }) =>
            {
                return Ok(Record::Bad(failure(read_error(e)), None));
            }
            // The block was read whole: what could not be read comes after it, and is
            // reported where the next record was to be read.
            Err(e) => {
                stream.failed = Some(e);
                true
            }
        };
    // The block ran into a record: the line breaks after it are that record's too.
    let replay = replay.map(|mut held| {
        held.extend_from_slice(&breaks);
        held
    });
    if !ends {
        // A read that failed is the failure of the record it cut, reported when that record
        // is read again; this one only ran into it.
        let mut why = if failed {
            format!(
                "truncated WARC record: its Content-Length is {len}, the file cannot be read \
                 past {got} bytes of it"
            )
        } else if got < len {
            format!(
                "truncated WARC record: its Content-Length is {len}, the file ends after {got} \
                 bytes"
            )
        } else {
            let of = uri
                .as_deref()
                .filter(|_| named.is_none())
                .map(|u| format!(" for {u}"))
                .unwrap_or_default();
            format!(
                "bad WARC record{of}: its Content-Length ({len}) does not end where the record \
                 does"
            )
        };
        // Records that the block ran into and that could not all be held are lost: said, so
        // that a crawl's count of records can be checked.
        match (replay.is_some(), let_go) {
            (true, 0) => why.push_str("; reading on at a record that starts inside it"),
            (true, n) => why.push_str(&format!(
                "; {n} record{} that start inside it passed over (more bytes than the limit to \
                 hold: --max-bytes), reading on at a later one",
                if n == 1 { "" } else { "s" }
            )),
            (false, 0) => {}
            (false, n) => why.push_str(&format!(
                "; {n} record{} that start inside it passed over (more bytes than the limit to \
                 hold: --max-bytes)",
                if n == 1 { "" } else { "s" }
            )),
        }
        return Ok(Record::Bad(failure(Error::Record(why)), replay));
    }
    let url = uri.clone();
    let at = uri.is_some().then(|| place.to_string());
    let source = uri.unwrap_or_else(|| place.to_string());
    let item = |bytes| {
        Ok(Record::Item(Item {
            warc: Some(record.clone()),
            url: url.clone(),
            place: at.clone(),
            ..Item::new(source.clone(), bytes)
        }))
    };
    if resource && !resource_page {
        let what = content_type.map_or("a file of no stated type".into(), |t| t.trim().into());
        return item(Err(Error::NoPage(what)));
    }
    if kind.trim().is_empty() {
        // Every record names its type: one that does not may be a page, so it is reported
        // rather than passed over.
        return item(Err(Error::Record("bad WARC record: no WARC-Type".into())));
    }
    if !wanted {
        return Ok(Record::Other(kind.trim().to_ascii_lowercase()));
    }
    if too_large {
        if let (true, Err(why)) = (response, http_payload(&body)) {
            return item(Err(Error::NoPage(why)));
        }
        return item(Err(too_many_bytes(max_bytes, " in a WARC record")));
    }
    // A response that holds no HTTP message, as Heritrix's records of DNS lookups
    // (`text/dns`) and whois answers (`text/plain`), is read by its own Content-Type, as a
    // resource is.
    let bare = response
        && !body.trim_ascii_start().starts_with(b"HTTP/")
        && content_type.as_deref().is_some_and(|t| {
            !t.trim_start()
                .get(..16)
                .is_some_and(|t| t.eq_ignore_ascii_case("application/http"))
        });
    let payload = if resource || bare {
        let html = content_type.as_deref().and_then(html_charset);
        if bare && html.is_none() {
            let what = content_type.unwrap_or_default().trim().to_string();
            return item(Err(Error::NoPage(what)));
        }
        Payload {
            charset: html.flatten(),
            body: body.into(),
            encoding: None,
        }
    } else {
        match http_payload(&body) {
            Ok(payload) => payload,
            Err(why) => return item(Err(Error::NoPage(why))),
        }
    };
    let bytes = if payload.body.len() as u64 > max_bytes {
        Err(too_many_bytes(max_bytes, ""))
    } else {
        decode_codings(payload.body.into_owned(), payload.encoding, max_bytes)
    };
    // A crawl holds empty answers as it holds redirects: no page, rather than a failed one
    // (told once decoded, as a compressed body may be empty too).
    if bytes
        .as_ref()
        .is_ok_and(|b| b.iter().all(u8::is_ascii_whitespace))
    {
        return item(Err(Error::NoPage("an empty response".into())));
    }
    // So does a server that sends a PDF or an image as HTML: a crawl meets such answers as it
    // meets other media types, and a failure would stand for a page it could not read.
    if let Some(kind) = bytes.as_deref().ok().and_then(crate::html::not_a_page) {
        return item(Err(Error::NoPage(format!("{kind} sent as HTML"))));
    }
    Ok(Record::Item(Item {
        charset: payload.charset,
        warc: Some(record),
        url,
        place: at,
        ..Item::new(source, bytes)
    }))
}

/// The page in a WARC record, the charset its `Content-Type` names, and the HTTP
/// `Content-Encoding` it was sent in (`None` for none or `identity`).
struct Payload<'a> {
    body: std::borrow::Cow<'a, [u8]>,
    charset: Option<String>,
    encoding: Option<String>,
}

/// `Some(charset)` when a `Content-Type` is an HTML type (`text/html`,
/// `application/xhtml+xml`) or names none (an untyped body is read as a page), the charset only
/// when the header parses; `None` for other types.
fn html_charset(content_type: &str) -> Option<Option<String>> {
    // The media type is what comes before the first ';', even in a header that does not parse
    // as a whole; the charset needs one that does.
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if !matches!(essence.as_str(), "" | "text/html" | "application/xhtml+xml") {
        return None;
    }
    Some(content_type.parse::<mime::Mime>().ok().and_then(|m| {
        m.get_param(mime::CHARSET)
            .map(|c| c.as_str().to_ascii_lowercase())
    }))
}

/// A page's bytes from an HTTP body in the codings its `Content-Encoding` lists, in the order
/// they were applied (`gzip, br`: the last one is undone first; `identity` is no coding).
fn decode_codings(body: Vec<u8>, encoding: Option<String>, max_bytes: u64) -> Result<Vec<u8>> {
    let list = match encoding {
        Some(list) if list.contains(',') => list,
        one => return decode_content(body, one, max_bytes),
    };
    let codings = list
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty() && *c != "identity");
    let mut body = body;
    for coding in codings.rev() {
        body = decode_content(body, Some(coding.to_string()), max_bytes)?;
    }
    Ok(body)
}

/// A page's bytes from an HTTP body in one `Content-Encoding`: brotli and deflate are
/// decoded here, gzip and zstd (also recognised by their magic bytes) by [`decompress_with`]. A
/// body that does not decode but reads as markup is kept as it is: some archives store the
/// decoded page under its original header. Other encodings are refused by name.
fn decode_content(body: Vec<u8>, encoding: Option<String>, max_bytes: u64) -> Result<Vec<u8>> {
    // A body cut short (a crawler keeps the first bytes of a long answer, and says so with
    // `WARC-Truncated`) gives what it decodes to before the cut, as a plain body cut short
    // is read as far as it goes.
    let name = match encoding.as_deref() {
        None | Some("gzip" | "x-gzip" | "zstd") => return decompress_with(body, max_bytes, true),
        Some(name) => name,
    };
    // What the decoder has not read: a failure for want of more has read it all.
    let mut rest = body.as_slice();
    let decoder: Box<dyn Read + '_> = match name {
        "br" => Box::new(brotli_decompressor::Decompressor::new(&mut rest, 1 << 14)),
        "deflate" => {
            // HTTP's "deflate" is zlib data, though some servers send raw deflate. A zlib
            // header names the deflate method and is a multiple of 31 (RFC 1950).
            let zlib = matches!(body.as_slice(), [cmf, flg, ..]
                if cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0);
            if zlib {
                Box::new(flate2::bufread::ZlibDecoder::new(&mut rest))
            } else {
                Box::new(flate2::bufread::DeflateDecoder::new(&mut rest))
            }
        }
        other => {
            return Err(Error::NotHtml(format!(
                "a body in the {other} content encoding, which textsift does not decode"
            )))
        }
    };
    let mut out = Vec::new();
    let result = decoder
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut out);
    match result {
        Ok(_) if out.len() as u64 > max_bytes => Err(too_many_bytes(
            max_bytes,
            &format!(" after {name} decoding"),
        )),
        Ok(_) => Ok(out),
        Err(_) if body.trim_ascii_start().starts_with(b"<") => Ok(body),
        // Cut short, not corrupt: the decoder read all there was and asked for more.
        Err(e)
            if e.kind() == std::io::ErrorKind::UnexpectedEof
                && rest.is_empty()
                && !out.is_empty() =>
        {
            Ok(out)
        }
        Err(e) => Err(Error::Record(format!("bad {name} data: {e}"))),
    }
}

/// Most header lines of an HTTP head that [`http_payload`] reads; the head of a record with
/// more is passed over as unreadable, and its body read as it is.
const MAX_HTTP_HEADERS: usize = 4096;

/// The page in a WARC response record: the body of its HTTP message, de-chunked when its
/// headers say `Transfer-Encoding: chunked`, with its `Content-Encoding` named for
/// [`decode_codings`], after any interim (1xx) responses. An error, saying why, for a record
/// that holds no page: no content (204, 205), a redirect, an error page (the server's, not the
/// address's) or a content type other than HTML (`text/html`, `application/xhtml+xml`; a
/// record without one is read as a page). A record whose HTTP message cannot be parsed gives
/// what follows its first blank line, or all of it.
fn http_payload(record: &[u8]) -> Result<Payload<'_>, String> {
    let record = after_interim_responses(record);
    let mut headers = [httparse::EMPTY_HEADER; 128];
    let mut many;
    let mut response = httparse::Response::new(&mut headers);
    // httparse reads HTTP/1.x; archives of HTTP/2 and HTTP/3 traffic write `HTTP/2 200`. The
    // head of such a message is read as HTTP/1.1 (two bytes longer), the body where it is.
    let (head, shift) = match [&b"HTTP/2 "[..], b"HTTP/3 "]
        .iter()
        .find_map(|v| record.strip_prefix(*v))
    {
        Some(rest) => {
            let end = memchr::memmem::find(rest, b"\r\n\r\n").map_or(rest.len(), |e| e + 4);
            (
                std::borrow::Cow::Owned([&b"HTTP/1.1 "[..], &rest[..end]].concat()),
                2,
            )
        }
        None => (std::borrow::Cow::Borrowed(record), 0),
    };
    // Read as browsers read a head: a header line that does not parse (a control byte in a
    // cookie, a bracket in a name) is passed over rather than losing the status, the type
    // and the transfer coding of the message.
    let lenient = httparse::ParserConfig::default()
        .allow_spaces_after_header_name_in_responses(true)
        .allow_obsolete_multiline_headers_in_responses(true)
        .allow_multiple_spaces_in_response_status_delimiters(true)
        .ignore_invalid_headers_in_responses(true)
        .clone();
    let mut parsed = lenient.parse_response(&mut response, &head);
    if parsed == Err(httparse::Error::TooManyHeaders) {
        // Rare heads of hundreds of lines (cookies, debugging headers) are read whole.
        many = vec![httparse::EMPTY_HEADER; MAX_HTTP_HEADERS];
        response = httparse::Response::new(&mut many);
        parsed = lenient.parse_response(&mut response, &head);
    }
    let Ok(httparse::Status::Complete(head_end)) = parsed else {
        // A head that never ends holds no body: an empty response, not a page of its lines.
        if parsed == Ok(httparse::Status::Partial) {
            return Ok(Payload {
                body: (&[][..]).into(),
                charset: None,
                encoding: None,
            });
        }
        let body = record
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(record, |at| &record[at + 4..]);
        return Ok(Payload {
            body: body.into(),
            charset: None,
            encoding: None,
        });
    };
    // A status outside 100-599 is a malformed line, read as the page it carries.
    if let Some(code @ (204 | 205 | 300..=599)) = response.code {
        let what = match code {
            204 | 205 => "no content",
            300..=399 => "a redirect",
            _ => "an error page",
        };
        let reason = response.reason.unwrap_or_default();
        return Err(format!("{what}, HTTP {code} {reason}")
            .trim_end()
            .to_string());
    }
    let header = |name: &str| {
        response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value))
    };
    let charset = match header("content-type") {
        Some(t) => html_charset(&t).ok_or_else(|| t.trim().to_string())?,
        None => None,
    };
    // Header lines of one name repeated are one list, in order (RFC 9110, 5.3):
    // `Content-Encoding: gzip` then `Content-Encoding: br` is `gzip, br`.
    let codings: Vec<String> = response
        .headers
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case("content-encoding"))
        .map(|h| String::from_utf8_lossy(h.value).trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .collect();
    let encoding = Some(codings.join(", ")).filter(|e| !e.is_empty() && e != "identity");
    let body = &record[head_end - shift..];
    let chunked =
        header("transfer-encoding").is_some_and(|t| t.to_ascii_lowercase().contains("chunked"));
    // A body that does not hold together as chunks is kept as it is.
    let body = match chunked.then(|| dechunk(body)).flatten() {
        Some(joined) => joined.into(),
        None => body.into(),
    };
    Ok(Payload {
        body,
        charset,
        encoding,
    })
}

/// An HTTP message without the interim responses (`100 Continue`, `103 Early Hints`) that
/// some archivers keep before the final one.
fn after_interim_responses(mut record: &[u8]) -> &[u8] {
    loop {
        // The status code: the second word of the first line, `HTTP/1.1 100 Continue`.
        let code = record
            .strip_prefix(b"HTTP/")
            .and_then(|r| r.split(|&c| c == b' ' || c == b'\r' || c == b'\n').nth(1));
        let interim = code.is_some_and(|code| code.len() == 3 && code[0] == b'1');
        match interim
            .then(|| memchr::memmem::find(record, b"\r\n\r\n"))
            .flatten()
        {
            Some(end) => record = &record[end + 4..],
            None => return record,
        }
    }
}

/// The data of a chunked HTTP body, up to where it was cut short if it was; `None` when it
/// does not read as chunks (a body stored already joined under its original header).
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    loop {
        // A body cut short between chunks (a record truncated) holds the chunks before.
        if body.is_empty() && !out.is_empty() {
            return Some(out);
        }
        let httparse::Status::Complete((at, size)) = httparse::parse_chunk_size(body).ok()? else {
            return None;
        };
        let size = usize::try_from(size).ok()?;
        if size == 0 {
            return Some(out);
        }
        // Or inside a chunk: its data runs to the end.
        let Some(data) = body.get(at..at.saturating_add(size)) else {
            out.extend_from_slice(&body[at..]);
            return Some(out);
        };
        out.extend_from_slice(data);
        body = body.get(at + size..)?;
        body = body.strip_prefix(b"\r\n").unwrap_or(body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_content_type_gives_the_charset_and_skips_what_is_not_html() {
        let head = |t: &str| format!("HTTP/1.1 200 OK\r\nContent-Type: {t}\r\n\r\n<p>x</p>");
        let charset = |t: &str| http_payload(head(t).as_bytes()).ok().map(|p| p.charset);
        assert_eq!(charset("text/html"), Some(None));
        assert_eq!(
            charset("Text/HTML; Charset=\"ISO-8859-1\""),
            Some(Some("iso-8859-1".into()))
        );
        assert_eq!(
            charset("text/html;charset=Shift_JIS"),
            Some(Some("shift_jis".into()))
        );
        assert_eq!(
            charset("application/xhtml+xml; charset=utf-8"),
            Some(Some("utf-8".into()))
        );
        assert_eq!(charset("image/jpeg"), None);
        assert_eq!(charset("text/plain; charset=utf-8"), None);
        // A header that does not parse as a media type still tells HTML from the rest.
        assert_eq!(
            charset("text/html; charset=utf-8;"),
            Some(Some("utf-8".into()))
        );
        assert_eq!(charset("image/png;;"), None);
        let record = head("text/html");
        assert_eq!(&*http_payload(record.as_bytes()).unwrap().body, b"<p>x</p>");
    }

    /// A `Content-Encoding` that lists codings is undone from the last one to the first.
    #[test]
    fn codings_listed_are_undone_in_turn() {
        use std::io::Write;
        let gzip = |data: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        };
        let zlib = |data: &[u8]| {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        };
        let page = b"<p>A page sent in two codings.</p>".to_vec();
        let decode = |body: Vec<u8>, list: &str| decode_codings(body, Some(list.into()), 1 << 20);
        assert_eq!(decode(gzip(&gzip(&page)), "gzip, gzip").unwrap(), page);
        assert_eq!(decode(gzip(&page), "gzip, identity").unwrap(), page);
        assert_eq!(decode(gzip(&zlib(&page)), "deflate,gzip").unwrap(), page);
        let unknown = decode(gzip(&page), "gzip, lzw").unwrap_err().to_string();
        assert!(unknown.contains("the lzw content encoding"), "{unknown}");
        // The same codings on header lines of their own make one list, in order.
        let head = b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Type: text/html\r\n\
                     content-encoding: GZIP\r\nContent-Encoding: identity\r\n\r\n";
        let record = [&head[..], &gzip(&zlib(&page))].concat();
        let payload = http_payload(&record).unwrap();
        assert_eq!(payload.encoding.as_deref(), Some("deflate, gzip, identity"));
        assert_eq!(
            decode_codings(payload.body.into(), payload.encoding, 1 << 20).unwrap(),
            page
        );
    }

    /// A head that never ends (a response cut inside its headers) holds no body, so its
    /// record is an empty response, passed over, rather than a page made of its header lines.
    #[test]
    fn a_head_that_never_ends_holds_no_body() {
        let record = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Foo: bar";
        assert!(http_payload(record).unwrap().body.is_empty());
        // A head that does not parse is not such a head: the page after it is read.
        let odd = b"garbage not http at all\r\n\r\n<p>The page.</p>";
        assert_eq!(&*http_payload(odd).unwrap().body, b"<p>The page.</p>");
    }

    /// Header lines that do not parse are passed over, as browsers pass them over: the
    /// status, type and transfer coding of the message are still read.
    #[test]
    fn a_bad_header_line_loses_only_itself() {
        let chunked = |bad: &str| {
            format!(
                "HTTP/1.1 200 OK\r\nSet-Cookie: {bad}\r\nTransfer-Encoding: chunked\r\n\
                 Content-Type: text/html; charset=koi8-r\r\n\r\n3\r\n<p>\r\n2\r\nab\r\n0\r\n\r\n"
            )
        };
        for bad in [
            "sid=\u{1}abc",
            "a\r\n  folded",
            "x\r\nX-Bad(Name): 1",
            "x\r\nName : 1",
        ] {
            let record = chunked(bad);
            let payload = http_payload(record.as_bytes()).unwrap();
            assert_eq!(&*payload.body, b"<p>ab", "{bad:?}");
            assert_eq!(payload.charset.as_deref(), Some("koi8-r"), "{bad:?}");
        }
        let not_found = "HTTP/1.1 404 Not Found\r\nX-Bad(Name): 1\r\n\r\n<p>gone</p>";
        assert_eq!(
            http_payload(not_found.as_bytes()).err().as_deref(),
            Some("an error page, HTTP 404 Not Found")
        );
        // Hundreds of header lines.
        let many: String = (0..500).map(|i| format!("X-H{i}: {i}\r\n")).collect();
        let record = format!("HTTP/1.1 200 OK\r\n{many}Content-Type: image/png\r\n\r\nPNG");
        assert_eq!(
            http_payload(record.as_bytes()).err().as_deref(),
            Some("image/png")
        );
    }

    #[test]
    fn http_2_and_3_messages_are_read_as_http_1() {
        let page =
            http_payload(b"HTTP/2 200\r\ncontent-type: text/html; charset=utf-8\r\n\r\n<p>x</p>")
                .unwrap();
        assert_eq!(
            (&*page.body, page.charset.as_deref()),
            (&b"<p>x</p>"[..], Some("utf-8"))
        );
        let gone = http_payload(b"HTTP/2 404\r\ncontent-type: text/html\r\n\r\n<p>x</p>");
        assert_eq!(gone.err().as_deref(), Some("an error page, HTTP 404"));
        let image = http_payload(b"HTTP/3 200\r\ncontent-type: image/png\r\n\r\n\x89PNG");
        assert_eq!(image.err().as_deref(), Some("image/png"));
    }

    #[test]
    fn interim_responses_are_skipped_and_responses_without_content_passed_over() {
        let record = b"HTTP/1.1 100\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n\
            HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>x</p>";
        let page = http_payload(record).unwrap();
        assert_eq!(
            (&*page.body, page.charset.as_deref()),
            (&b"<p>x</p>"[..], Some("utf-8"))
        );
        let empty = http_payload(b"HTTP/1.1 204 No Content\r\n\r\n");
        assert_eq!(
            empty.err().as_deref(),
            Some("no content, HTTP 204 No Content")
        );
        // Only interim responses, and a body that merely starts like one, stay as they are.
        assert_eq!(
            after_interim_responses(b"HTTP/1.1 100 Continue\r\n"),
            b"HTTP/1.1 100 Continue\r\n"
        );
        assert_eq!(
            after_interim_responses(b"HTTP/1.1 1000\r\n\r\nx"),
            b"HTTP/1.1 1000\r\n\r\nx"
        );
    }

    #[test]
    fn resync_finds_the_next_version_line_across_buffers() {
        let data = b"tail of a bad record\nWARC/0\nWARC/\r\nWARC/1.0\r\nWARC-Type: x";
        // What it gives and what is left: the stream from the version line on.
        let from = |data: &[u8], capacity| {
            let mut r = std::io::BufReader::with_capacity(capacity, data);
            let mut line = resync(&mut r).unwrap()?;
            r.read_to_end(&mut line).unwrap();
            Some(String::from_utf8(line).unwrap())
        };
        for capacity in [1, 3, 7, 64] {
            let got = from(data, capacity);
            assert_eq!(
                got.as_deref(),
                Some("WARC/1.0\r\nWARC-Type: x"),
                "{capacity}"
            );
            // A record cut inside a line runs into a version line that a line break ends.
            let cut = b"<p>cut short: WARC/1.0 is a format.WARC/1.1\r\nWARC-Type: x";
            let got = from(cut, capacity);
            assert_eq!(
                got.as_deref(),
                Some("WARC/1.1\r\nWARC-Type: x"),
                "{capacity}"
            );
            let got = from(b"cut sWARC/1.1\ncontent-length: 0", capacity);
            assert_eq!(
                got.as_deref(),
                Some("WARC/1.1\ncontent-length: 0"),
                "{capacity}"
            );
            // Not a version line that a header follows.
            let got = from(
                b"x WARC/1.0 is text, see WARC/1.1\r\n\r\nor WARC/1.1\nWARC/1",
                capacity,
            );
            assert_eq!(got, None, "{capacity}");
        }
        // Where it starts counts as a line start; a stream without a record ends it.
        assert_eq!(from(b"WARC/1.1\r\n", 2).as_deref(), Some("WARC/1.1\r\n"));
        assert_eq!(from(b"xWARC/1.1 x\nWARC/1", 2), None);
        assert_eq!(from(b"xWARC/1.1\r", 2), None);
    }

    #[test]
    fn a_record_start_inside_a_block_is_held_whatever_the_reads() {
        let next = b"WARC/1.0\r\nWARC-Type: response\r\n";
        let block = [
            &b"HTTP/1.1 200 OK\r\n\r\n<p>WARC/1.0 is text</p>\nWARC/1.1\r\n\r\n"[..],
            next,
        ]
        .concat();
        let len = block.len() as u64;
        for capacity in 1..=block.len() {
            let read = |keep, hold| {
                let mut r = std::io::BufReader::with_capacity(capacity, &block[..]);
                warc_body(&mut r, len, keep, hold, None)
            };
            let body = read(5, 1000);
            assert_eq!((&body.kept[..], body.got), (&b"HTTP/"[..], len));
            // Version lines without a blank line before them start no record.
            assert_eq!(
                body.replay.as_deref(),
                Some(&next[..]),
                "capacity {capacity}"
            );
            // Holding fewer bytes than the rest of the block holds none.
            let body = read(0, next.len() as u64 - 1);
            assert_eq!(body.replay, None, "capacity {capacity}");
        }
        // A block that ends early says how much there was.
        let mut r = std::io::BufReader::with_capacity(4, &block[..]);
        assert_eq!(warc_body(&mut r, len + 10, len + 10, 1000, None).got, len);
    }
}
