//! Where pages come from: files, directories (walked, sorted), standard input, gzip; WARC
//! files in `input/warc.rs`, JSON Lines records in `input/jsonl.rs`.
//!
//! Every input yields [`Item`]s, one per page, each either the page's bytes or the error that
//! made it unreadable, so that a batch reports a bad page and goes on.

mod compressed;
mod jsonl;
mod warc;

pub use compressed::{decompress, gunzip_if_gzip};

use crate::error::{Error, Result};
use compressed::is_bad_gzip;
pub(crate) use compressed::stream_error;
use compressed::{
    head_to_read, packing, unpacked, unpacked_head, unzstd_at_once, MemberStart, Packing,
};
use jsonl::{jsonl_lines, jsonl_record};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use warc::warc_pages;

/// Whether `bytes` start with the magic bytes of gzip or zstd, which [`decompress`] unpacks.
pub(crate) fn is_compressed(bytes: &[u8]) -> bool {
    packing(bytes) != Packing::Plain
}

/// Default largest page accepted, in bytes (after decompression): 32 MiB, six times the largest
/// page of the WCXB development set.
pub const DEFAULT_MAX_BYTES: u64 = 32 * 1024 * 1024;

/// The error of a page over the byte limit; `what` says where it was found.
pub(crate) fn too_many_bytes(max_bytes: u64, what: &str) -> Error {
    let unit = if max_bytes == 1 { "byte" } else { "bytes" };
    Error::TooLarge(format!(
        "more than {max_bytes} {unit}{what} (raise the limit with --max-bytes or Limits::max_bytes)"
    ))
}

/// The fields of a JSON Lines record that are read; every other field is passed over unread.
/// Datasets name them differently (`raw_html`, `content`, `doc_id`...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordKeys {
    /// The field that holds the page's HTML, as a string (`html`).
    pub html: String,
    /// The field that names the record, any JSON value (`id`).
    pub id: String,
    /// The field that gives the page's URL, a string (`url`): the record's name when it has no
    /// id, and what its links resolve against.
    pub url: String,
    /// Other fields to pass through, as written, in [`Item::fields`] (`*`: every field but the
    /// page, the id and the URL); none by default.
    pub keep: Vec<String>,
}

impl Default for RecordKeys {
    fn default() -> RecordKeys {
        RecordKeys {
            html: "html".into(),
            id: "id".into(),
            url: "url".into(),
            keep: Vec::new(),
        }
    }
}

/// How inputs are read: the byte limit of a page, and the fields of JSON Lines records.
#[derive(Debug, Clone)]
pub struct Reading {
    max_bytes: u64,
    keys: std::sync::Arc<RecordKeys>,
}

impl Default for Reading {
    /// [`DEFAULT_MAX_BYTES`] and the fields `html`, `id` and `url`.
    fn default() -> Reading {
        Reading::new(DEFAULT_MAX_BYTES)
    }
}

impl Reading {
    /// Pages up to `max_bytes` (before and after gunzip), records with the fields `html`,
    /// `id` and `url`.
    pub fn new(max_bytes: u64) -> Reading {
        Reading {
            max_bytes,
            keys: Default::default(),
        }
    }

    /// Read JSON Lines records by other fields; refused when a field name is empty, when the
    /// page's field is also the id's or the URL's (the id and the URL may share one), or when
    /// a field to pass through is one of these three (the id and the URL are in every output
    /// record already).
    pub fn keys(mut self, keys: RecordKeys) -> Result<Reading> {
        let read = [&keys.html, &keys.id, &keys.url];
        if let Some(k) = keys.keep.iter().find(|k| read.contains(k)) {
            return Err(Error::Config(format!(
                "the field {k:?} is read as the page, its id or its URL, not passed through"
            )));
        }
        if read.into_iter().chain(&keys.keep).any(|k| k.is_empty()) {
            return Err(Error::Config(
                "a record's field name cannot be empty".into(),
            ));
        }
        if keys.html == keys.id || keys.html == keys.url {
            return Err(Error::Config(format!(
                "the field {:?} cannot hold both the page and its {}",
                keys.html,
                if keys.html == keys.id { "id" } else { "URL" }
            )));
        }
        self.keys = std::sync::Arc::new(keys);
        Ok(self)
    }
}

/// One page to process.
#[derive(Debug)]
pub struct Item {
    /// The input as the user gave it (a path, `-`, or a record id).
    pub source: String,
    /// The page bytes, decompressed, or why they could not be read.
    pub bytes: Result<Vec<u8>>,
    /// The charset declared outside the page: the HTTP `Content-Type` of a WARC record, UTF-8
    /// for a JSON Lines record (its page was a JSON string). It wins over the page's `<meta>`
    /// ([`crate::html::decode_declared`]).
    pub charset: Option<String>,
    /// The WARC record the page came from, for a page of a WARC file.
    pub warc: Option<WarcRecord>,
    /// The URL the page was fetched from, when the input says it: a WARC record's target
    /// URI, a JSON Lines record's `url`. Links resolve against it
    /// ([`crate::Extractor::extract_fetched`]).
    pub url: Option<String>,
    /// The fields of a JSON Lines record asked to be passed through ([`RecordKeys::keep`]), as
    /// a JSON object in the record's order, each value as written; `None` for other inputs.
    pub fields: Option<Box<serde_json::value::RawValue>>,
    /// Where the record is in its input, when `source` names it otherwise (by its id or
    /// URL, which two records may share): `FILE:LINE` of a JSON Lines record, `FILE#N` of a
    /// WARC record.
    pub place: Option<String>,
}

/// What identifies a WARC record beside its target URI, so that output can be joined back to
/// the crawl (the same URI may be fetched more than once).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WarcRecord {
    /// `WARC-Record-ID`, as the header gives it (`<urn:uuid:…>`).
    pub id: Option<String>,
    /// `WARC-Date`: when the page was fetched, as the header gives it.
    pub date: Option<String>,
}

impl Item {
    /// A page, or why it could not be read, with no declared charset.
    pub fn new(source: String, bytes: Result<Vec<u8>>) -> Item {
        Item {
            source,
            bytes,
            charset: None,
            warc: None,
            url: None,
            fields: None,
            place: None,
        }
    }

    /// The page's URL when its source does not say it already (a JSON Lines record named by
    /// its `id` that gives its `url` too): what output records add beside `source`.
    pub fn url_apart(&self) -> Option<&str> {
        self.url.as_deref().filter(|url| *url != self.source)
    }
}

/// Expand command-line inputs: `-` is standard input, a directory is walked recursively in
/// sorted order, anything else is a file. Unreadable entries become error items. A name that
/// is not UTF-8 (a file saved under a Latin-1 name) is read all the same; its source shows
/// such bytes as U+FFFD. Directories are walked as the inputs are asked for, so that the
/// first pages of a large tree are read before the whole of it is listed.
pub fn expand<S: AsRef<std::ffi::OsStr>>(
    inputs: &[S],
) -> impl Iterator<Item = (String, Option<PathBuf>)> + Send + 'static {
    let inputs: Vec<std::ffi::OsString> = inputs.iter().map(|i| i.as_ref().into()).collect();
    inputs.into_iter().flat_map(
        |input| -> Box<dyn Iterator<Item = (String, Option<PathBuf>)> + Send> {
            if input == "-" {
                return Box::new(std::iter::once(("-".to_string(), None)));
            }
            let path = PathBuf::from(&input);
            if path.is_dir() {
                Box::new(Walk::new(&path).map(|p| (p.display().to_string(), Some(p))))
            } else {
                Box::new(std::iter::once((
                    input.to_string_lossy().into_owned(),
                    Some(path),
                )))
            }
        },
    )
}

/// Longest entry of an input list, in bytes: paths are at most a few kilobytes
/// (`PATH_MAX` is 4,096 on Linux), so a longer entry means that what was named is not a list
/// (a page or a binary file given by mistake), and it is reported without being kept whole.
const MAX_LIST_ENTRY: usize = 64 * 1024;

/// The inputs that a list names (for `--files-from`), read as they are asked for, so that a
/// list of millions of paths costs no memory and its first pages are done while a program
/// down the pipe (`find … |`) is still writing it. The list is a file or standard input,
/// gzip or zstd compressed or not, holding one input per line, or inputs separated by NUL
/// bytes as `find -print0` writes them: the first separator found, a line feed or a NUL,
/// decides which (but for a first path holding a line break: NULs as many as line feeds in
/// the bytes first read decide for NUL). Empty entries are passed over, and a line's ending
/// `\r` is not part of its path. The entries are inputs as on a command line, for
/// [`expand`]: relative paths are relative to the working directory, not to the list's. An
/// entry that cannot be a path (one
/// holding a NUL byte in a list of lines, or longer than 64 KiB, or `-` in a list read from
/// standard input) and a list that fails part way (a truncated gzip file) are errors in the
/// iteration; the list ends after the latter.
pub struct InputList {
    stream: Box<dyn BufRead + Send>,
    /// The list's name in errors: its path, or `-`.
    name: PathBuf,
    /// The separator, once the first one is found.
    separator: Option<u8>,
    /// Set once the list has ended or failed.
    done: bool,
}

impl InputList {
    /// Open the list at `path`, or standard input for `None`; an error when it cannot be
    /// opened, or when its first bytes cannot be read or unpacked.
    pub fn open(path: Option<&Path>) -> Result<InputList> {
        Ok(InputList {
            stream: open_stream(path)?.0,
            name: path.map_or_else(|| PathBuf::from("-"), Path::to_path_buf),
            separator: None,
            done: false,
        })
    }

    /// The next entry's bytes, without its separator; `None` at the end of the list.
    fn entry(&mut self) -> Option<Result<Vec<u8>>> {
        let mut entry = Vec::new();
        // Whether the entry ran past the longest one kept; the bytes past it are dropped.
        let mut over = false;
        loop {
            let buf = match self.stream.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    let name = self.name.clone();
                    return Some(Err(stream_error(e, |source| Error::Io {
                        path: name,
                        error: source,
                    })));
                }
            };
            if buf.is_empty() {
                self.done = true;
                if entry.is_empty() && !over {
                    return None;
                }
                break;
            }
            let end = match self.separator {
                Some(s) => buf.iter().position(|&b| b == s),
                None => match buf.iter().position(|&b| b == 0 || b == b'\n') {
                    // A `find -print0` list whose first path holds a line break, the very
                    // case `-print0` is for: as many NULs as line feeds in the bytes read say
                    // so (a stray NUL in a list of lines does not).
                    Some(at) if buf[at] == b'\n' => {
                        let nuls = memchr::memchr_iter(0, buf).count();
                        match memchr::memchr(0, &buf[at..]) {
                            Some(k) if nuls >= memchr::memchr_iter(b'\n', buf).count() => {
                                Some(at + k)
                            }
                            _ => Some(at),
                        }
                    }
                    first => first,
                },
            };
            let taken = end.unwrap_or(buf.len());
            let room = MAX_LIST_ENTRY.saturating_sub(entry.len());
            over |= taken > room;
            entry.extend_from_slice(&buf[..taken.min(room)]);
            if let Some(end) = end {
                self.separator.get_or_insert(buf[end]);
                self.stream.consume(end + 1);
                break;
            }
            self.stream.consume(taken);
        }
        if over {
            return Some(Err(Error::Record(format!(
                "an entry longer than {MAX_LIST_ENTRY} bytes, which no path is: is this a list \
                 of paths?"
            ))));
        }
        if self.separator != Some(0) && entry.contains(&0) {
            return Some(Err(Error::Record(
                "an entry holding a NUL byte, which no path does (a list is read as separated \
                 by NUL bytes only when its first entry ends with one)"
                    .into(),
            )));
        }
        Some(Ok(entry))
    }
}

impl Iterator for InputList {
    type Item = Result<std::ffi::OsString>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let mut entry = match self.entry()? {
                Ok(entry) => entry,
                Err(e) => return Some(Err(e)),
            };
            if self.separator != Some(0) && entry.last() == Some(&b'\r') {
                entry.pop();
            }
            // A line of spaces alone is a blank line (no one names a file so); a NUL-separated
            // list names paths exactly.
            let blank = self.separator != Some(0) && entry.iter().all(u8::is_ascii_whitespace);
            // Standard input is the list itself when the list is read from it.
            if entry == b"-" && self.name.as_os_str() == "-" {
                return Some(Err(Error::Record(
                    "an entry `-` (standard input), which is the list itself".into(),
                )));
            }
            if !entry.is_empty() && !blank {
                return Some(Ok(os_string(entry)));
            }
        }
        None
    }
}

/// A path's bytes as an `OsString`: as they are on Unix, where a name need not be UTF-8.
fn os_string(bytes: Vec<u8>) -> std::ffi::OsString {
    #[cfg(unix)]
    {
        std::os::unix::ffi::OsStringExt::from_vec(bytes)
    }
    #[cfg(not(unix))]
    {
        String::from_utf8_lossy(&bytes).into_owned().into()
    }
}

/// The files under a directory, and the paths that could not be read, in the order of their
/// paths: each directory's entries in name order, a directory's files before its next
/// sibling's, which is the order of the whole paths (compared part by part) without holding
/// them all.
struct Walk {
    entries: walkdir::IntoIter,
    /// The directories walked, by their real paths.
    dirs: std::collections::HashSet<PathBuf>,
}

impl Walk {
    fn new(dir: &Path) -> Walk {
        // walkdir is iterative (a deep tree cannot overflow the stack) and follows links to
        // directories without walking into a loop: a link back to an ancestor is passed over,
        // as its pages are already on the way. A directory reached again by another way (a
        // link to a directory above the one walked, then down into it) is walked once, so
        // that no page is read twice; walking in name order decides which way names it, the
        // same on every run.
        Walk {
            entries: walkdir::WalkDir::new(dir)
                .follow_links(true)
                .sort_by_file_name()
                .into_iter(),
            dirs: Default::default(),
        }
    }
}

impl Iterator for Walk {
    type Item = PathBuf;

    fn next(&mut self) -> Option<PathBuf> {
        loop {
            match self.entries.next()? {
                Ok(e) if e.file_type().is_dir() => {
                    let real = std::fs::canonicalize(e.path());
                    if real.is_ok_and(|real| !self.dirs.insert(real)) {
                        self.entries.skip_current_dir();
                    }
                }
                Ok(e) if e.file_type().is_file() => return Some(e.into_path()),
                // A FIFO, socket or device found in a directory is passed over: reading one
                // could wait forever, and none is a page that a crawl stored.
                Ok(_) => {}
                Err(e) if e.loop_ancestor().is_some() => {}
                // Reported when read, as an error item of its own.
                Err(e) => {
                    if let Some(path) = e.path() {
                        return Some(path.to_path_buf());
                    }
                }
            }
        }
    }
}

/// Read a file (or standard input for `None`), decompress it when it starts with the magic
/// bytes of gzip or zstd, and refuse it when larger than `max_bytes`.
pub fn read(path: Option<&Path>, max_bytes: u64) -> Result<Vec<u8>> {
    let display = || path.map_or_else(|| PathBuf::from("-"), Path::to_path_buf);
    let raw = match path {
        Some(p) => read_limited(open_file(p)?, max_bytes),
        None => read_limited(std::io::stdin().lock(), max_bytes),
    }
    .map_err(|e| match e {
        Error::Io { error: source, .. } => Error::Io {
            path: display(),
            error: source,
        },
        other => other,
    })?;
    decompress(raw, max_bytes)
}

/// Open an input file. A URL given as an input is not fetched: the error says how to pipe
/// the page in instead.
fn open_file(p: &Path) -> Result<std::fs::File> {
    std::fs::File::open(p).map_err(|mut source| {
        let name = p.to_string_lossy();
        if source.kind() == std::io::ErrorKind::NotFound
            && (name.starts_with("http://") || name.starts_with("https://"))
        {
            source = std::io::Error::new(
                source.kind(),
                "no such file (URLs are not fetched: pipe the page in, as in \
                 `curl -s URL | textsift extract`)",
            );
        }
        Error::Io {
            path: p.to_path_buf(),
            error: source,
        }
    })
}

fn read_limited(r: impl Read, max_bytes: u64) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    r.take(max_bytes.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|source| Error::Io {
            path: PathBuf::new(),
            error: source,
        })?;
    if buf.len() as u64 > max_bytes {
        return Err(too_many_bytes(max_bytes, ""));
    }
    Ok(buf)
}

/// A file (standard input for `-`) as a buffered stream of the bytes it holds, decompressed
/// as it is read when it is gzip or zstd: training and label files (`pages.jsonl.zst`) as
/// pages are read.
pub(crate) fn open_unpacked(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let path = (path.as_os_str() != "-").then_some(path);
    open_stream(path).map(|(stream, ..)| stream)
}

/// Open an input (a file, or standard input for `None`) as a buffered stream, decompressed
/// as it is read when it starts with the magic bytes of gzip or zstd (its [`Packing`]).
fn open_stream(path: Option<&Path>) -> Result<(Box<dyn BufRead + Send>, Packing, MemberStart)> {
    let display = || path.map_or_else(|| PathBuf::from("-"), Path::to_path_buf);
    let raw: Box<dyn Read + Send> = match path {
        Some(p) => Box::new(open_file(p)?),
        None => Box::new(std::io::stdin()),
    };
    unpacked(BufReader::with_capacity(1 << 16, raw)).map_err(|e| {
        stream_error(e, |source| Error::Io {
            path: display(),
            error: source,
        })
    })
}

/// What an input holds, told by its first bytes (once unpacked, when compressed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// A WARC file (starts with `WARC/`).
    Warc,
    /// JSON Lines of `{"id", "html"}` records (starts with `{`).
    JsonLines,
    /// One page.
    Page,
    /// JSON that is not JSON Lines: an array of records (starts with `[` and `{`), as tools
    /// that save a list write it, or a record spread over lines (a `{` alone on the first
    /// line): refused, with how to turn it into JSON Lines.
    Json,
}

/// The UTF-8 byte-order mark.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Whether a file's name says it holds JSON Lines (`.jsonl` or `.ndjson`, compressed or not):
/// such a file is read record by record though its first line is not a record (a download
/// resumed or cut mid-line), and that line is reported as a bad record.
fn named_json_lines(path: &Path) -> bool {
    let name = unpacked_name(path);
    name.ends_with(".jsonl") || name.ends_with(".ndjson")
}

/// Whether a file's name says it holds a page (`.html`, `.htm`, compressed or not).
fn named_page(path: &Path) -> bool {
    let name = unpacked_name(path);
    name.ends_with(".html") || name.ends_with(".htm")
}

/// Whether a file's name says it holds WARC records (`.warc`, compressed or not): such a file
/// whose first gzip member is corrupt is read on from its next member.
fn named_warc(path: &Path) -> bool {
    unpacked_name(path).ends_with(".warc")
}

/// A file's name in lower case, without the ending of its compression.
fn unpacked_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().to_lowercase());
    [".gz", ".zst", ".zstd"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .unwrap_or(&name)
        .to_string()
}

/// How to make JSON Lines of a JSON file: said by every reader of JSON Lines that meets one.
pub(crate) const JSON_LINES_HINT: &str = "JSON, not JSON Lines (one record per line): \
     `jq -c '.[]'` makes JSON Lines of an array of records, `jq -c .` of records spread over \
     lines";

/// The failure of a JSON file given for JSON Lines.
fn not_json_lines() -> Error {
    Error::NotHtml(JSON_LINES_HINT.into())
}

/// A container told from the first bytes, with a page read as JSON Lines when the file's
/// name says so.
fn as_named(told: Container, path: Option<&Path>) -> Container {
    match told {
        Container::Page if path.is_some_and(named_json_lines) => Container::JsonLines,
        // Its first version line damaged, a WARC file is read record by record all the same:
        // that record is reported, and the others read.
        Container::Page if path.is_some_and(named_warc) => Container::Warc,
        // The name wins over what JSON-like first bytes suggest.
        Container::Json if path.is_some_and(named_json_lines) => Container::JsonLines,
        Container::Json if path.is_some_and(named_page) => Container::Page,
        other => other,
    }
}

fn container_of(head: &[u8]) -> Container {
    // Some Windows tools begin every text file they write with a byte-order mark.
    let head = head.strip_prefix(UTF8_BOM).unwrap_or(head);
    // JSON is told from its first characters, after however much indentation.
    let json = &head[..head.len().min(256)];
    let head = &head[..head.len().min(8)];
    if head.starts_with(b"WARC/") {
        Container::Warc
    } else if let Some(at) = json.iter().position(|b| !b.is_ascii_whitespace()) {
        let after = &json[at + 1..];
        let next = after.iter().position(|b| !b.is_ascii_whitespace());
        match json[at] {
            // A record of JSON Lines holds no line break: one right after its `{` is JSON
            // pretty-printed.
            b'{' if after[..next.unwrap_or(after.len())].contains(&b'\n') => Container::Json,
            b'{' => Container::JsonLines,
            b'[' if next.is_some_and(|n| after[n] == b'{') => Container::Json,
            _ => Container::Page,
        }
    } else {
        Container::Page
    }
}

/// What an input holds (the file at `path`, or standard input for `None`), from its first
/// bytes; an input that cannot be read is a page (its error is reported when the page is
/// read). Standard input is told from the bytes its first read gives, which stay in its own
/// buffer for [`pages`] to read again; when they are too few to tell, it is a page, unless
/// they are compressed: a zstd stream's first block may be larger than that read, and a
/// compressed stream piped in is more often a WARC or JSON Lines file than a page, so it
/// counts as JSON Lines. A pipe or a device named as a file (`/dev/stdin`, `<(zcat …)`) is not
/// read here, since what was read could not be read again: it counts as a page, and
/// [`pages`] still finds what it holds.
pub fn container(path: Option<&Path>) -> Container {
    let Some(path) = path else {
        let mut stdin = std::io::stdin().lock();
        return stdin.fill_buf().map_or(Container::Page, |raw| {
            told_container(raw, false).unwrap_or(Container::JsonLines)
        });
    };
    file_container(path).unwrap_or(Container::Page)
}

/// Every page of one input, lazily: a WARC file (its `response` records and HTML `resource`
/// records, recognised by the `WARC/` header), a JSON Lines file of `{"id", "html"}` records
/// (recognised by a leading `{`; a record without `id` is named by its `url`, else by file and
/// line; `reading` may name other fields), or a single page, within `reading`'s byte limit.
/// Pages are read one at a time, so a large WARC file streams. A panic
/// while they are read (a bug) is a failed page named by the input, which ends there.
pub fn pages(
    source: String,
    path: Option<PathBuf>,
    reading: &Reading,
) -> Box<dyn Iterator<Item = Item> + Send> {
    Box::new(opened(source, path, reading, false).map(Pending::read))
}

/// The pages of an input as [`pages`] reads them; with `defer`, the records of a JSON Lines
/// input are only cut into lines, each parsed when [`Pending::read`] is called. Opened and read
/// under [`Guarded`]: a panic there ends this input only.
fn opened(
    source: String,
    path: Option<PathBuf>,
    reading: &Reading,
    defer: bool,
) -> Box<dyn Iterator<Item = Pending> + Send> {
    let name = source.clone();
    match crate::batch::isolate(|| Ok(opened_unguarded(source, path, reading, defer))) {
        Ok(inner) => Box::new(Guarded {
            source: name,
            inner: Some(inner),
        }),
        Err(e) => failed(name, e),
    }
}

/// An input that yields one failed page, named by the input.
fn failed(source: String, e: Error) -> Box<dyn Iterator<Item = Pending> + Send> {
    Box::new(std::iter::once(failed_page(source, e)))
}

/// A page that failed, named by its input.
fn failed_page(source: String, e: Error) -> Pending {
    Pending(Deferred::Read(Item::new(source, Err(e))))
}

/// An input's pages, each taken under [`crate::batch::isolate`]: a panic while a WARC or JSON
/// Lines stream is read (a bug, in textsift or in a crate that unpacks or parses it) becomes
/// one failed page named by the input, and the input ends there, as the reader's state cannot
/// be trusted after it; the other inputs of a run go on.
struct Guarded<I> {
    source: String,
    /// `None` once the input has ended or failed.
    inner: Option<I>,
}

impl<I: Iterator<Item = Pending>> Iterator for Guarded<I> {
    type Item = Pending;

    fn next(&mut self) -> Option<Pending> {
        let inner = self.inner.as_mut()?;
        match crate::batch::isolate(|| Ok(inner.next())) {
            Ok(Some(page)) => Some(page),
            Ok(None) => {
                self.inner = None;
                None
            }
            Err(e) => {
                self.inner = None;
                let e = match e {
                    Error::Internal(m) => {
                        Error::Internal(format!("{m} (the rest of this input is skipped)"))
                    }
                    // The work has no error of its own; kept as it is all the same.
                    other => other,
                };
                Some(failed_page(self.source.clone(), e))
            }
        }
    }
}

/// [`opened`] without the guard.
fn opened_unguarded(
    source: String,
    path: Option<PathBuf>,
    reading: &Reading,
    defer: bool,
) -> Box<dyn Iterator<Item = Pending> + Send> {
    let max_bytes = reading.max_bytes;
    let single = |bytes: Result<Vec<u8>>| -> Box<dyn Iterator<Item = Pending> + Send> {
        let item = Item::new(source.clone(), bytes);
        Box::new(std::iter::once(Pending(Deferred::Read(item))))
    };
    if let Some(page) = path.as_deref().and_then(|p| packed_page_file(p, max_bytes)) {
        return single(page);
    }
    let (mut stream, packed, start) = match open_stream(path.as_deref()) {
        Ok(s) => s,
        Err(e) => return single(Err(e)),
    };
    let read = |item| Pending(Deferred::Read(item));
    let gzip = packed == Packing::Gzip;
    // Its first bytes read as JSON, though its name says JSON Lines.
    let mut json_like = false;
    let (kind, failed) = match stream.fill_buf() {
        // A WARC or JSON Lines file of no bytes (a transfer that failed) is an empty input,
        // as an empty page is, not a file of no pages.
        Ok([])
            if path
                .as_deref()
                .is_some_and(|p| named_warc(p) || named_json_lines(p)) =>
        {
            return single(Err(Error::Empty));
        }
        Ok(h) => {
            let told = container_of(h);
            json_like = told == Container::Json;
            (as_named(told, path.as_deref()), None)
        }
        // Its first record or line lost, a WARC or JSON Lines file is read on from its next
        // gzip member.
        Err(e) if is_bad_gzip(&e) && path.as_deref().is_some_and(named_warc) => {
            (Container::Warc, Some(e))
        }
        Err(e) if is_bad_gzip(&e) && path.as_deref().is_some_and(named_json_lines) => {
            (Container::JsonLines, Some(e))
        }
        Err(e) => {
            let path = path.unwrap_or_else(|| PathBuf::from("-"));
            return single(Err(stream_error(e, |source| Error::Io {
                path,
                error: source,
            })));
        }
    };
    match kind {
        Container::Warc => {
            return Box::new(warc_pages(source, stream, start, max_bytes, failed).map(read))
        }
        Container::JsonLines => {
            let mut lines = jsonl_lines(source.clone(), stream, gzip, max_bytes, failed);
            // A file named as JSON Lines whose first lines are no records but JSON begins so
            // (an array, a record over several lines) is JSON: refused as such, with the way
            // to make JSON Lines of it. One whose first line alone is cut is read on.
            let head: Vec<_> = lines.by_ref().take(if json_like { 2 } else { 0 }).collect();
            // Told by its shape, not parsed: the reader takes what a strict parse would not
            // (bytes that are not UTF-8, lone surrogates).
            let record = |line: &[u8]| {
                let line = line.trim_ascii();
                line.len() > 1 && line.starts_with(b"{") && line.ends_with(b"}")
            };
            if json_like
                && head
                    .iter()
                    .all(|l| l.as_ref().is_ok_and(|(_, l)| !record(l)))
            {
                return single(Err(not_json_lines()));
            }
            let lines = head.into_iter().chain(lines);
            let reading = reading.clone();
            return Box::new(lines.map(move |line| match line {
                Ok((place, line)) if defer => Pending(Deferred::Line {
                    place,
                    line,
                    reading: reading.clone(),
                }),
                Ok((place, line)) => read(jsonl_record(place, &line, &reading)),
                Err(failed) => read(failed),
            }));
        }
        Container::Json => return single(Err(not_json_lines())),
        Container::Page => {}
    }
    let bytes = read_limited(stream, max_bytes).map_err(|e| match e {
        Error::Io { error: io, path } => stream_error(io, |source| Error::Io {
            path,
            error: source,
        }),
        Error::TooLarge(_) => too_many_bytes(max_bytes, packed.after()),
        other => other,
    });
    single(bytes)
}

/// A page of an input, read already or still to be read: [`Pending::read`] gives it.
#[derive(Debug)]
pub struct Pending(Deferred);

#[derive(Debug)]
enum Deferred {
    /// A page read already: a WARC record, standard input, a pipe, or an input that failed.
    Read(Item),
    /// A file that holds one page, not read yet.
    File {
        source: String,
        path: PathBuf,
        reading: Reading,
    },
    /// A line of a JSON Lines input, not parsed yet; `place` is `FILE:LINE`.
    Line {
        place: String,
        line: Vec<u8>,
        reading: Reading,
    },
}

impl Pending {
    /// A page that failed before it could be read (an input that cannot be had), named by
    /// `source`.
    pub fn failed(source: String, e: Error) -> Pending {
        failed_page(source, e)
    }

    /// The page, as [`pages`] gives it: a file is read (and gunzipped) now, a JSON Lines
    /// record parsed now, on whichever thread calls this. A panic on the way (a bug) is the
    /// page's error ([`crate::batch::isolate`]), named by the file, or by `FILE:LINE` for a
    /// record.
    pub fn read(self) -> Item {
        let source = match &self.0 {
            // Read already (a WARC record, standard input): nothing is left to do.
            Deferred::Read(_) => return self.read_now(),
            Deferred::File { source, .. } => source.clone(),
            Deferred::Line { place, .. } => place.clone(),
        };
        crate::batch::isolate(|| Ok(self.read_now())).unwrap_or_else(|e| Item::new(source, Err(e)))
    }

    fn read_now(self) -> Item {
        match self.0 {
            Deferred::Read(item) => item,
            Deferred::File {
                source,
                path,
                reading,
            } => {
                // The file held one page when it was looked at; should it have been replaced
                // by a WARC file since, its first record stands for it. Unguarded: this runs
                // in `read`'s isolation already.
                let first = opened_unguarded(source.clone(), Some(path), &reading, false).next();
                first.map_or_else(|| Item::new(source, Err(Error::Empty)), Pending::read_now)
            }
            Deferred::Line {
                place,
                line,
                reading,
            } => jsonl_record(place, &line, &reading),
        }
    }
}

/// The pages of one input as [`pages`] gives them, with the work of reading them left to
/// whichever thread calls [`Pending::read`], where the input allows: a regular file that holds
/// one page is only looked at (its first bytes), and the records of a JSON Lines input are
/// only cut into lines. A WARC file is read here, record by record (its gzip members and
/// records can only be found in order), as are a page on standard input or from a pipe.
pub fn pending_pages(
    source: String,
    path: Option<PathBuf>,
    reading: &Reading,
) -> Box<dyn Iterator<Item = Pending> + Send> {
    if let Some(p) = path.as_deref() {
        // The look at the first bytes inflates them: a panic there (a bug) fails this input.
        match crate::batch::isolate(|| Ok(file_container(p))) {
            Ok(Some(Container::Page)) => {
                return Box::new(std::iter::once(Pending(Deferred::File {
                    source,
                    path: p.to_path_buf(),
                    reading: reading.clone(),
                })))
            }
            Ok(_) => {}
            Err(e) => return failed(source, e),
        }
    }
    opened(source, path, reading, true)
}

/// What a regular file holds, from its first bytes (of a compressed file, from the first
/// bytes they unpack to); `None` for anything but a regular file that can be read, and for
/// a compressed file whose first bytes do not tell.
fn file_container(path: &Path) -> Option<Container> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let raw = file_head(&mut std::fs::File::open(path).ok()?)?;
    // A WARC file whose first gzip member is corrupt is read on from its next member.
    if named_warc(path) && packing(&raw) == Packing::Gzip && unpacked_head(&raw).is_empty() {
        return Some(Container::Warc);
    }
    told_container(&raw, raw.len() as u64 >= meta.len()).map(|c| as_named(c, Some(path)))
}

/// A file's first bytes, as many as [`head_to_read`] says tell what it holds.
fn file_head(file: &mut std::fs::File) -> Option<Vec<u8>> {
    let mut raw = Vec::with_capacity(4096);
    (&mut *file).take(4096).read_to_end(&mut raw).ok()?;
    let more = head_to_read(&raw).saturating_sub(raw.len() as u64);
    if raw.len() == 4096 && more > 0 {
        file.take(more).read_to_end(&mut raw).ok()?;
    }
    Some(raw)
}

/// What an input holds, from its first raw bytes (`whole`: all of it), unpacked first when
/// they are compressed; `None` when they unpack to too few bytes to tell and more follow.
fn told_container(raw: &[u8], whole: bool) -> Option<Container> {
    let head = unpacked_head(raw);
    if head.len() < 8 && !whole && packing(raw) != Packing::Plain {
        return None;
    }
    Some(container_of(&head))
}

/// A compressed file that holds one page, read whole and decompressed at once
/// ([`decompress`]), which is faster than as a stream. `None` when the file is not a regular
/// file, is not compressed, holds a WARC or JSON Lines file (those stream), is larger than
/// `max_bytes` compressed, or cannot be read: the stream path then handles it and reports any
/// error. Of a gzip file, only the first bytes are read before that is known, so a file the
/// stream path takes is not read twice; a zstd file (at most `max_bytes`) is read whole first,
/// as one that records its size is told from what it unpacks to.
fn packed_page_file(path: &Path, max_bytes: u64) -> Option<Result<Vec<u8>>> {
    // A pipe or a device (`/dev/stdin`, `<(zcat …)`, a FIFO) is not even opened: what a look
    // at its first bytes took would be lost to the stream path, and a FIFO's writer may be
    // cut off when its reader closes.
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > max_bytes || named_json_lines(path) || named_warc(path) {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    let mut raw = file_head(&mut file)?;
    let packed = packing(&raw);
    if packed == Packing::Plain {
        return None;
    }
    let mut read_rest = |raw: &mut Vec<u8>| -> Option<()> {
        raw.reserve(usize::try_from(meta.len()).ok()?.saturating_sub(raw.len()));
        file.read_to_end(raw).ok()?;
        (raw.len() as u64 <= max_bytes).then_some(())
    };
    // A zstd page of one frame with its size is unpacked at once and told from what it holds,
    // so that its first block is not decoded twice.
    if packed == Packing::Zstd {
        read_rest(&mut raw)?;
        if let Some(out) = unzstd_at_once(&raw, max_bytes) {
            return (container_of(&out) == Container::Page).then_some(Ok(out));
        }
    }
    // When the first bytes do not tell the container, the stream path decides.
    if told_container(&raw, raw.len() as u64 >= meta.len()) != Some(Container::Page) {
        return None;
    }
    if packed == Packing::Gzip {
        read_rest(&mut raw)?;
    }
    Some(decompress(raw, max_bytes))
}

/// Read every input into items, in order. A convenience for small batches; large batches
/// should call [`read`] per path so that only a few pages are in memory at once.
pub fn read_all<S: AsRef<std::ffi::OsStr>>(inputs: &[S], max_bytes: u64) -> Vec<Item> {
    expand(inputs)
        .map(|(source, path)| {
            let bytes = read(path.as_deref(), max_bytes);
            Item::new(source, bytes)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// The entries of a list file holding `bytes`, each entry's error as its kind.
    fn listed(bytes: &[u8]) -> Vec<Result<Vec<u8>, &'static str>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list");
        std::fs::write(&path, bytes).unwrap();
        InputList::open(Some(&path))
            .unwrap()
            .map(|e| {
                e.map(|name| name.into_encoded_bytes())
                    .map_err(|e| e.kind())
            })
            .collect()
    }

    #[test]
    fn lists_are_cut_by_their_first_separator() {
        let ok = |names: &[&str]| -> Vec<Result<Vec<u8>, &'static str>> {
            names.iter().map(|n| Ok(n.as_bytes().to_vec())).collect()
        };
        // Lines: `\r` ends a line only before its `\n`, blank lines and a missing last line
        // end are passed over.
        assert_eq!(listed(b"a\r\n\nb c\rd\n\ne"), ok(&["a", "b c\rd", "e"]));
        // A line of spaces is blank; a name with spaces around it keeps them.
        assert_eq!(listed(b"a\n   \n \t\r\n b \n"), ok(&["a", " b "]));
        assert_eq!(listed(b"a\0 \0"), ok(&["a", " "]));
        // NUL bytes, once the first entry ends with one: a line feed or a `\r` is then part of
        // a name, and empty entries are passed over.
        assert_eq!(listed(b"a\0b\nc\r\0\0d"), ok(&["a", "b\nc\r", "d"]));
        // So when the first name holds a line feed, as `find -print0` writes it.
        assert_eq!(listed(b"new\nline\0b\0c\0"), ok(&["new\nline", "b", "c"]));
        assert_eq!(listed(b"new\nline\0"), ok(&["new\nline"]));
        // A NUL byte inside a line cannot be a path's: reported, and the next lines read.
        assert_eq!(
            listed(b"a\nb\0c\nd\n"),
            [Ok(b"a".to_vec()), Err("bad_record"), Ok(b"d".to_vec())]
        );
        assert_eq!(listed(b""), ok(&[]));
        assert_eq!(listed(b"\n\n"), ok(&[]));
        // Compressed lists are read unpacked.
        assert_eq!(listed(&gz(b"a\nb\n")), ok(&["a", "b"]));
    }

    #[test]
    fn list_entries_run_across_reads_and_long_ones_are_cut_off() {
        // 20,000 names of 1 to 40 bytes, many of them across the stream's 64 KiB reads.
        let names: Vec<String> = (0..20_000)
            .map(|i: usize| format!("{i}-{}", "x".repeat(i % 37)))
            .collect();
        let mut bytes = names.join("\n").into_bytes();
        bytes.push(b'\n');
        let expected: Vec<_> = names.iter().map(|n| Ok(n.as_bytes().to_vec())).collect();
        assert_eq!(listed(&bytes), expected);
        // An entry longer than 64 KiB is one error, whatever its length, and the list goes on.
        let mut bytes = b"a\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'y', 3 * MAX_LIST_ENTRY + 5));
        bytes.extend(b"\nb\n");
        assert_eq!(
            listed(&bytes),
            [Ok(b"a".to_vec()), Err("bad_record"), Ok(b"b".to_vec())]
        );
        // An entry of exactly the longest length is a name.
        let long = vec![b'z'; MAX_LIST_ENTRY];
        assert_eq!(listed(&long), [Ok(long.clone())]);
    }

    #[test]
    fn directories_are_walked_sorted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("b")).unwrap();
        std::fs::write(dir.path().join("b/2.html"), "x").unwrap();
        std::fs::write(dir.path().join("c.html"), "x").unwrap();
        std::fs::write(dir.path().join("a.html"), "x").unwrap();
        let root = dir.path().display().to_string();
        let names: Vec<String> = expand(std::slice::from_ref(&root))
            .map(|(s, _)| s[root.len() + 1..].to_string())
            .collect();
        assert_eq!(names, ["a.html", "b/2.html", "c.html"]);

        // Walked as asked for, the files come in the order of their whole paths, part by
        // part: a directory's files before a sibling whose name extends the directory's.
        let dir = tempfile::tempdir().unwrap();
        let files = [
            "a/x.html",
            "a/b/y.html",
            "a.html",
            "a-b/z.html",
            "a b.html",
            "A.html",
            "a/b.html",
            "b/c/d/e.html",
            "b.html",
        ];
        for f in files {
            let path = dir.path().join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        let root = dir.path().display().to_string();
        let walked: Vec<PathBuf> = expand(std::slice::from_ref(&root))
            .map(|(_, p)| p.unwrap())
            .collect();
        let mut sorted: Vec<PathBuf> = files.iter().map(|f| dir.path().join(f)).collect();
        sorted.sort();
        assert_eq!(walked, sorted);

        // A FIFO among them is passed over: reading it would wait for a writer forever.
        #[cfg(unix)]
        {
            let fifo = dir.path().join("a/fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                let walked: Vec<PathBuf> = expand(std::slice::from_ref(&root))
                    .map(|(_, p)| p.unwrap())
                    .collect();
                assert_eq!(walked, sorted);
            }
        }
    }

    #[test]
    fn page_files_and_json_lines_records_are_left_to_be_read() {
        let dir = tempfile::tempdir().unwrap();
        let page = b"<title>T</title><p>A page of its own.</p>".to_vec();
        let body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>In a record.</p>";
        let warc = [
            format!(
                "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://e.x/\r\n\
                 Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .into_bytes(),
            body.to_vec(),
            b"\r\n\r\n".to_vec(),
        ]
        .concat();
        let jsonl = [
            UTF8_BOM,
            b"{\"id\": \"r1\", \"html\": \"<p>x</p>\"}\n\n",
            b"{\"url\": \"http://e.x/2\", \"html\": \"<p>y\xe9</p>\"}\n{\"id\": 7}",
        ]
        .concat();
        let zst = |data: &[u8]| zstd::encode_all(data, 3).unwrap();
        // A `.warc.zst` file: a skippable frame with the dictionary, a frame per record.
        let dictionary = b"WARC/1.0\r\nWARC-Type: response\r\n".repeat(8);
        let size = u32::try_from(dictionary.len()).unwrap().to_le_bytes();
        let mut warc_zst = [&[0x5d, 0x2a, 0x4d, 0x18][..], &size, &dictionary].concat();
        let mut e = zstd::stream::Encoder::with_dictionary(&mut warc_zst, 3, &dictionary).unwrap();
        e.write_all(&warc).unwrap();
        e.finish().unwrap();
        let files = [
            ("page.html", page.clone()),
            ("page.html.gz", gz(&page)),
            ("page.html.zst", zst(&page)),
            ("a.warc.gz", gz(&warc)),
            ("a.warc.zst", warc_zst),
            ("r.jsonl", jsonl.clone()),
            ("r.jsonl.zst", zst(&jsonl)),
            ("empty.html", Vec::new()),
        ];
        for (name, data) in &files {
            let path = dir.path().join(name);
            std::fs::write(&path, data).unwrap();
            let pending: Vec<Pending> =
                pending_pages(name.to_string(), Some(path.clone()), &Reading::new(1 << 20))
                    .collect();
            // Page files are left to be read, JSON Lines records to be parsed; a WARC file is
            // read here.
            let kind = |p: &Pending| match p.0 {
                Deferred::Read(_) => "read",
                Deferred::File { .. } => "file",
                Deferred::Line { .. } => "line",
            };
            let kinds: Vec<&str> = pending.iter().map(kind).collect();
            let expected = match *name {
                "a.warc.gz" | "a.warc.zst" => "read",
                "r.jsonl" | "r.jsonl.zst" => "line",
                _ => "file",
            };
            let records = if expected == "line" { 3 } else { 1 };
            assert_eq!(kinds, vec![expected; records], "{name}");
            let read: Vec<Item> = pending.into_iter().map(Pending::read).collect();
            let direct: Vec<Item> =
                pages(name.to_string(), Some(path), &Reading::new(1 << 20)).collect();
            assert_eq!(read.len(), direct.len(), "{name}");
            for (a, b) in read.iter().zip(&direct) {
                assert_eq!(a.source, b.source, "{name}");
                assert_eq!(a.charset, b.charset, "{name}");
                assert_eq!(a.warc, b.warc, "{name}");
                assert_eq!(format!("{:?}", a.bytes), format!("{:?}", b.bytes), "{name}");
            }
        }
        // A file that cannot be looked at is passed to `pages`, which reports why.
        let missing = dir.path().join("missing.html");
        let pending: Vec<Pending> =
            pending_pages("missing.html".into(), Some(missing), &Reading::new(1 << 20)).collect();
        assert!(matches!(&pending[..], [Pending(Deferred::Read(item))] if item.bytes.is_err()));
    }

    #[test]
    fn a_json_lines_file_by_its_name_is_read_by_record_though_its_first_line_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let lines = b"l\": \"<p>cut</p>\"}\n{\"id\": \"r1\", \"html\": \"<p>x</p>\"}\n";
        for name in ["cut.jsonl", "cut.NDJSON.gz", "cut.txt"] {
            let path = dir.path().join(name);
            let data = if name.ends_with(".gz") {
                gz(lines)
            } else {
                lines.to_vec()
            };
            std::fs::write(&path, data).unwrap();
            let items: Vec<Item> =
                pages(name.to_string(), Some(path.clone()), &Reading::new(1 << 20)).collect();
            let got: Vec<(&str, bool)> = items
                .iter()
                .map(|i| (i.source.as_str(), i.bytes.is_ok()))
                .collect();
            if name == "cut.txt" {
                // A name that does not say JSON Lines: one page, as its first bytes say.
                assert_eq!(got, [("cut.txt", true)]);
                assert_eq!(container(Some(&path)), Container::Page);
            } else {
                assert_eq!(
                    got,
                    [(&*format!("{name}:1"), false), ("r1", true)],
                    "{name}"
                );
                assert_eq!(container(Some(&path)), Container::JsonLines, "{name}");
            }
        }
    }

    #[test]
    fn a_panic_while_an_input_is_read_ends_that_input_only() {
        // A stream whose third record meets a bug: the two before it are pages, the panic is
        // one failed page named by the input, and nothing more is read from that input.
        let page = |n: u8| Pending(Deferred::Read(Item::new(format!("r{n}"), Ok(vec![n]))));
        let mut read = 0;
        let stream = std::iter::from_fn(move || {
            read += 1;
            assert!(read < 3, "record {read} is corrupt");
            Some(page(read))
        });
        let guarded = Guarded {
            source: "crawl.warc".into(),
            inner: Some(stream),
        };
        let more = [page(7)];
        let items: Vec<Item> = guarded.chain(more).map(Pending::read).collect();
        let sources: Vec<&str> = items.iter().map(|i| i.source.as_str()).collect();
        assert_eq!(sources, ["r1", "r2", "crawl.warc", "r7"]);
        assert_eq!(items[1].bytes.as_deref().ok(), Some(&[2u8][..]));
        let failure = items[2].bytes.as_ref().unwrap_err().to_string();
        assert!(failure.starts_with("internal error"), "{failure}");
        assert!(
            failure.ends_with("record 3 is corrupt (the rest of this input is skipped)"),
            "{failure}"
        );
        assert!(items[3].bytes.is_ok());
    }
}
