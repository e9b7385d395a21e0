//! Where pages come from: files, directories (walked, sorted), standard input, gzip.
//!
//! Every input yields [`Item`]s, one per page, each either the page's bytes or the error that
//! made it unreadable, so that a batch reports a bad page and goes on.

use crate::error::{Error, Result};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Default largest page accepted, in bytes (after decompression): 32 MiB, six times the largest
/// page of the WCXB development set.
pub const DEFAULT_MAX_BYTES: u64 = 32 * 1024 * 1024;

/// The error of a page over the byte limit; `what` says where it was found.
pub(crate) fn too_many_bytes(max_bytes: u64, what: &str) -> Error {
    Error::TooLarge(format!(
        "more than {max_bytes} bytes{what} (raise the limit with --max-bytes)"
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
}

impl Default for RecordKeys {
    fn default() -> RecordKeys {
        RecordKeys {
            html: "html".into(),
            id: "id".into(),
            url: "url".into(),
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

    /// Read JSON Lines records by other fields; refused when a field name is empty or when
    /// the page's field is also the id's or the URL's (the id and the URL may share one).
    pub fn keys(mut self, keys: RecordKeys) -> Result<Reading> {
        if keys.html.is_empty() || keys.id.is_empty() || keys.url.is_empty() {
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

    /// The largest page accepted, in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The fields of JSON Lines records.
    pub fn record_keys(&self) -> &RecordKeys {
        &self.keys
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
/// such bytes as U+FFFD.
pub fn expand<S: AsRef<std::ffi::OsStr>>(inputs: &[S]) -> Vec<(String, Option<PathBuf>)> {
    let mut out = Vec::new();
    for input in inputs {
        let input = input.as_ref();
        if input == "-" {
            out.push(("-".to_string(), None));
            continue;
        }
        let path = PathBuf::from(input);
        if path.is_dir() {
            walk(&path, &mut out);
        } else {
            out.push((input.to_string_lossy().into_owned(), Some(path)));
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<(String, Option<PathBuf>)>) {
    // walkdir is iterative (a deep tree cannot overflow the stack) and follows links to
    // directories without walking into a loop: a link back to an ancestor is passed over, as
    // its pages are already on the way. A directory reached again by another way (a link to a
    // directory above the one walked, then down into it) is walked once, so that no page is
    // read twice; walking in name order decides which way names it, the same on every run.
    let mut found = Vec::new();
    let mut dirs = std::collections::HashSet::new();
    let mut entries = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = entries.next() {
        match entry {
            Ok(e) if e.file_type().is_dir() => {
                let real = std::fs::canonicalize(e.path());
                if real.is_ok_and(|real| !dirs.insert(real)) {
                    entries.skip_current_dir();
                }
            }
            Ok(e) => found.push(e.into_path()),
            Err(e) if e.loop_ancestor().is_some() => {}
            // Reported when read, as an error item of its own.
            Err(e) => found.extend(e.path().map(Path::to_path_buf)),
        }
    }
    found.sort();
    out.extend(
        found
            .into_iter()
            .map(|p| (p.display().to_string(), Some(p))),
    );
}

/// Read a file (or standard input for `None`), gunzip it when it starts with the gzip magic
/// bytes, and refuse it when larger than `max_bytes`.
pub fn read(path: Option<&Path>, max_bytes: u64) -> Result<Vec<u8>> {
    let display = || path.map_or_else(|| PathBuf::from("-"), Path::to_path_buf);
    let raw = match path {
        Some(p) => read_limited(open_file(p)?, max_bytes),
        None => read_limited(std::io::stdin().lock(), max_bytes),
    }
    .map_err(|e| match e {
        Error::Io { source, .. } => Error::Io {
            path: display(),
            source,
        },
        other => other,
    })?;
    gunzip_if_gzip(raw, max_bytes)
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
            source,
        }
    })
}

fn read_limited(r: impl Read, max_bytes: u64) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    r.take(max_bytes.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|source| Error::Io {
            path: PathBuf::new(),
            source,
        })?;
    if buf.len() as u64 > max_bytes {
        return Err(too_many_bytes(max_bytes, ""));
    }
    Ok(buf)
}

/// Decompress gzip data (recognised by its magic bytes, not a file name); other bytes pass through.
pub fn gunzip_if_gzip(bytes: Vec<u8>, max_bytes: u64) -> Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    // The last four bytes give the size of the last member (modulo 4 GiB): room for the whole
    // output at once saves growing the buffer step by step. The claim is only trusted up to
    // the limit and to what deflate can make of the input (at most 1032 bytes out of one).
    let claimed = bytes
        .last_chunk::<4>()
        .map_or(0, |&size| u64::from(u32::from_le_bytes(size)));
    let possible = (bytes.len() as u64).saturating_mul(1032);
    if claimed <= possible && claimed <= max_bytes {
        if let Some(out) = gunzip_one_member(&bytes, claimed as usize) {
            return Ok(out);
        }
    }
    let room = claimed.min(possible).min(max_bytes.saturating_add(1));
    let mut out = Vec::with_capacity(usize::try_from(room).unwrap_or(0));
    let result = GzMembers::new(bytes.as_slice())
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut out);
    match result {
        Ok(_) if out.len() as u64 > max_bytes => Err(too_many_bytes(max_bytes, " after gunzip")),
        Ok(_) => Ok(out),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(Error::Gzip(format!(
            "truncated gzip stream ({} bytes decompressed before the cut)",
            out.len()
        ))),
        Err(e) => Err(Error::Gzip(e.to_string())),
    }
}

/// Gunzip with libdeflate, which inflates a whole buffer at once faster than a stream can
/// (a third less time over the WCXB pages), when the input is one gzip member of `size` bytes
/// (its trailer's claim). libdeflate reads one member and ignores what follows it, so the
/// input must hold no other gzip magic: any later `1f 8b 08` (a next member starts so; inside
/// deflate data it is rare) leaves the work to the stream decoder, as does any error, so that
/// a bad file gets that decoder's message.
fn gunzip_one_member(bytes: &[u8], size: usize) -> Option<Vec<u8>> {
    thread_local! {
        static INFLATE: std::cell::RefCell<libdeflater::Decompressor> =
            std::cell::RefCell::new(libdeflater::Decompressor::new());
    }
    if memchr::memmem::find(&bytes[1..], &[0x1f, 0x8b, 0x08]).is_some() {
        return None;
    }
    let mut out = vec![0u8; size];
    let n = INFLATE
        .with_borrow_mut(|d| d.gzip_decompress(bytes, &mut out))
        .ok()?;
    (n == size).then_some(out)
}

/// Open an input (a file, or standard input for `None`) as a buffered stream, gunzipped when
/// it starts with the gzip magic bytes (then the flag is true).
fn open_stream(path: Option<&Path>) -> Result<(Box<dyn BufRead + Send>, bool)> {
    let display = || path.map_or_else(|| PathBuf::from("-"), Path::to_path_buf);
    let raw: Box<dyn Read + Send> = match path {
        Some(p) => Box::new(open_file(p)?),
        None => Box::new(std::io::stdin()),
    };
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let head = buffered.fill_buf().map_err(|source| Error::Io {
        path: display(),
        source,
    })?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok((
            Box::new(BufReader::with_capacity(1 << 16, GzMembers::new(buffered))),
            true,
        ))
    } else {
        Ok((Box::new(buffered), false))
    }
}

/// A gzip stream of one member or more, inflated as it is read (a whole page, or a WARC or
/// JSON Lines stream). Bytes after a member that do not start another one end the stream, as
/// `gzip -d` ignores them: a file padded with zeros or followed by a stray line keeps its
/// pages. A member cut short (`UnexpectedEof`) or corrupt is an error.
struct GzMembers<R: BufRead> {
    member: Option<flate2::bufread::GzDecoder<R>>,
}

impl<R: BufRead> GzMembers<R> {
    fn new(inner: R) -> Self {
        GzMembers {
            member: Some(flate2::bufread::GzDecoder::new(inner)),
        }
    }
}

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(member) = &mut self.member {
            let n = member.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // The member is done: another one follows only where its magic byte stands.
            let mut inner = self.member.take().map(|m| m.into_inner());
            if let Some(rest) = inner.as_mut() {
                if rest.fill_buf()?.first() == Some(&0x1f) {
                    self.member = inner.map(flate2::bufread::GzDecoder::new);
                }
            }
        }
        Ok(0)
    }
}

/// What an input holds, told by its first bytes (after gunzip).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// A WARC file (starts with `WARC/`).
    Warc,
    /// JSON Lines of `{"id", "html"}` records (starts with `{`).
    JsonLines,
    /// One page.
    Page,
}

/// The UTF-8 byte-order mark.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

fn container_of(head: &[u8]) -> Container {
    // Some Windows tools begin every text file they write with a byte-order mark.
    let head = head.strip_prefix(UTF8_BOM).unwrap_or(head);
    let head = &head[..head.len().min(8)];
    if head.starts_with(b"WARC/") {
        Container::Warc
    } else if head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        Container::JsonLines
    } else {
        Container::Page
    }
}

/// What an input holds (the file at `path`, or standard input for `None`), from its first
/// bytes; an input that cannot be read is a page (its error is reported when the page is
/// read). Standard input is told from the bytes its first read gives, which stay in its own
/// buffer for [`pages`] to read again; when they are too few to tell, it is a page. A pipe or
/// a device named as a file (`/dev/stdin`, `<(zcat …)`) is not read here, since what was read
/// could not be read again: it counts as a page, and [`pages`] still finds what it holds.
pub fn container(path: Option<&Path>) -> Container {
    let Some(path) = path else {
        let mut stdin = std::io::stdin().lock();
        return stdin.fill_buf().map_or(Container::Page, raw_container);
    };
    file_container(path).unwrap_or(Container::Page)
}

/// The first bytes (up to 8, enough for [`container_of`]) that the start of a gzip stream
/// inflates to; fewer when `raw` ends or breaks before them.
fn gzip_head(raw: &[u8]) -> Vec<u8> {
    let mut head = Vec::with_capacity(8);
    let _ = GzMembers::new(raw).take(8).read_to_end(&mut head);
    head
}

/// What a failed read of an input stream means: a gzip stream that was cut short or corrupt
/// (the decoder's errors), or else `other`.
fn stream_error(e: std::io::Error, other: impl FnOnce(std::io::Error) -> Error) -> Error {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Error::Gzip("truncated gzip stream".into()),
        std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => {
            Error::Gzip(e.to_string())
        }
        _ => other(e),
    }
}

/// Every page of one input, lazily: a WARC file (its `response` records and HTML `resource`
/// records, recognised by the `WARC/` header), a JSON Lines file of `{"id", "html"}` records
/// (recognised by a leading `{`; a record without `id` is named by its `url`, else by file and
/// line; `reading` may name other fields), or a single page, of at most `reading`'s
/// [`Reading::max_bytes`]. Pages are read one at a time, so a large WARC file streams. A panic while they are
/// read (a bug) is a failed page named by the input, which ends there.
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
    if let Some(page) = path.as_deref().and_then(|p| gzip_page_file(p, max_bytes)) {
        return single(page);
    }
    let (mut stream, gzipped) = match open_stream(path.as_deref()) {
        Ok(s) => s,
        Err(e) => return single(Err(e)),
    };
    let kind = match stream.fill_buf() {
        Ok(h) => container_of(h),
        Err(e) => return single(Err(Error::Gzip(e.to_string()))),
    };
    let read = |item| Pending(Deferred::Read(item));
    match kind {
        Container::Warc => return Box::new(warc_pages(source, stream, max_bytes).map(read)),
        Container::JsonLines => {
            let lines = jsonl_lines(source, stream, max_bytes);
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
        Container::Page => {}
    }
    let bytes = read_limited(stream, max_bytes).map_err(|e| match e {
        Error::Io { source: io, path } => stream_error(io, |source| Error::Io { path, source }),
        Error::TooLarge(_) if gzipped => too_many_bytes(max_bytes, " after gunzip"),
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

/// What a regular file holds, from its first 4 KiB (of a gzip file, from the first bytes they
/// inflate to); `None` for anything but a regular file that can be read.
fn file_container(path: &Path) -> Option<Container> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut raw = Vec::with_capacity(4096);
    std::fs::File::open(path)
        .ok()?
        .take(4096)
        .read_to_end(&mut raw)
        .ok()?;
    Some(raw_container(&raw))
}

/// What an input holds, from its first raw bytes: those of a gzip stream are inflated first.
fn raw_container(raw: &[u8]) -> Container {
    if raw.starts_with(&[0x1f, 0x8b]) {
        container_of(&gzip_head(raw))
    } else {
        container_of(raw)
    }
}

/// A gzipped file that holds one page, read whole and gunzipped at once ([`gunzip_if_gzip`]),
/// which is faster than inflating it as a stream. `None` when the file is not a regular file,
/// is not gzip, holds a WARC or JSON Lines file (those stream), is larger than `max_bytes`
/// compressed, or cannot be read: the stream path then handles it and reports any error. Only
/// the first bytes are read before that is known, so a file the stream path takes is not read
/// twice.
fn gzip_page_file(path: &Path, max_bytes: u64) -> Option<Result<Vec<u8>>> {
    // A pipe or a device (`/dev/stdin`, `<(zcat …)`, a FIFO) is not even opened: what a look
    // at its first bytes took would be lost to the stream path, and a FIFO's writer may be
    // cut off when its reader closes.
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > max_bytes {
        return None;
    }
    let size = meta.len();
    let mut file = std::fs::File::open(path).ok()?;
    let mut raw = Vec::with_capacity(usize::try_from(size).ok()?);
    (&mut file).take(4096).read_to_end(&mut raw).ok()?;
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    // The first bytes tell the container; when they cannot be had from the start of the
    // file, the stream path decides.
    let head = gzip_head(&raw);
    if head.len() < 8 || container_of(&head) != Container::Page {
        return None;
    }
    file.read_to_end(&mut raw).ok()?;
    if raw.len() as u64 > max_bytes {
        return None;
    }
    Some(gunzip_if_gzip(raw, max_bytes))
}

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
/// line over the limit, or a read that fails (which ends the input), is the item that reports
/// it. A leading byte-order mark is taken off.
fn jsonl_lines(
    source: String,
    mut stream: Box<dyn BufRead + Send>,
    max_bytes: u64,
) -> impl Iterator<Item = std::result::Result<(String, Vec<u8>), Item>> + Send {
    // JSON escapes make a line longer than its page: allow for them, but keep memory bounded.
    let max_line = max_bytes.saturating_mul(2).saturating_add(1 << 20);
    let mut n = 0usize;
    let mut done = false;
    std::iter::from_fn(move || loop {
        if done {
            return None;
        }
        n += 1;
        let place = format!("{source}:{n}");
        let mut line = match bounded_line(&mut *stream, max_line) {
            Ok(None) => return None,
            Ok(Some(Ok(line))) => line,
            Ok(Some(Err(len))) => {
                return Some(Err(Item::new(place, Err(Error::TooLarge(format!(
                        "a line of {len} bytes, more than {max_line} (raise the limit with --max-bytes)"
                    ))))))
            }
            Err(e) => {
                done = true;
                let bytes = Err(stream_error(e, |e| {
                    Error::Record(format!("unreadable line: {e}"))
                }));
                return Some(Err(Item::new(place, bytes)));
            }
        };
        if n == 1 && line.starts_with(UTF8_BOM) {
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
fn jsonl_record(place: String, line: &[u8], reading: &Reading) -> Item {
    let keys = &*reading.keys;
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
        }) => {
            let source = record_name(id, url.clone()).unwrap_or(place);
            let bytes = if html.len() as u64 > reading.max_bytes {
                Err(too_many_bytes(reading.max_bytes, ""))
            } else {
                Ok(html.into_bytes())
            };
            Item {
                charset: Some("utf-8".into()),
                url,
                ..Item::new(source, bytes)
            }
        }
        // Not reached: `RecordSeed` refuses a record without its page.
        Ok(_) => Item::new(place, Err(Error::Record("no page".into()))),
        Err(e) => Item::new(
            // The record's name alone, read again without its page, so that the report
            // names the record.
            parse(line, false)
                .ok()
                .and_then(|r| record_name(r.id, r.url))
                .unwrap_or(place),
            Err(Error::Record(format!(
                "not a JSON record with a page in its {:?} field: {e}",
                keys.html
            ))),
        ),
    }
}

/// A record's name: its id (a string as it is, another value as JSON), else its URL.
fn record_name(id: Option<serde_json::Value>, url: Option<String>) -> Option<String> {
    match id {
        Some(serde_json::Value::String(s)) => Some(s),
        Some(v) => Some(v.to_string()),
        None => url,
    }
}

/// The fields of a JSON Lines record that are read.
#[derive(Default)]
struct RecordParts {
    id: Option<serde_json::Value>,
    url: Option<String>,
    html: Option<String>,
}

/// Reads a record's fields by the names in `keys`, passing over the others unread; with `html`
/// false, the page's field is passed over too, and its absence is no error.
struct RecordSeed<'k> {
    keys: &'k RecordKeys,
    html: bool,
}

/// What a field of a record is.
#[derive(Clone, Copy, PartialEq)]
enum Field {
    Html,
    Id,
    Url,
    /// One field named as both the id and the URL.
    IdUrl,
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
        use serde::de::Error as _;
        let keys = self.keys;
        let mut parts = RecordParts::default();
        let mut seen = [false; 3];
        while let Some(field) = map.next_key_seed(FieldSeed(keys))? {
            let (slot, name) = match field {
                Field::Html if self.html => (0, &keys.html),
                Field::Id | Field::IdUrl => (1, &keys.id),
                Field::Url => (2, &keys.url),
                Field::Html | Field::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
            };
            if std::mem::replace(&mut seen[slot], true) {
                return Err(A::Error::custom(format_args!("duplicate field `{name}`")));
            }
            match field {
                Field::Html => parts.html = Some(map.next_value()?),
                Field::Id => parts.id = map.next_value()?,
                Field::Url => parts.url = map.next_value()?,
                _ => {
                    let value: Option<serde_json::Value> = map.next_value()?;
                    parts.url = value.as_ref().and_then(|v| v.as_str()).map(str::to_owned);
                    parts.id = value;
                }
            }
        }
        if self.html && parts.html.is_none() {
            return Err(A::Error::custom(format_args!(
                "missing field `{}`",
                keys.html
            )));
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
    /// `Content-Length` of the record's block.
    length: u64,
    /// The record's own `Content-Type` (for a `resource` record, the type of its page).
    content_type: Option<String>,
}

/// The start of a record's version line, which [`resync`] looks for.
const WARC_LINE: &[u8] = b"WARC/1.";

/// One WARC record's header.
fn warc_header(r: &mut dyn BufRead) -> Result<Option<WarcHeader>> {
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
        return Err(bad(format!(
            "expected a WARC/ version line, found {:?} (the Content-Length of the record \
             before may be wrong)",
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
                        .map_err(|_| bad(format!("Content-Length {value:?} is not a number")))?,
                )
            }
            _ => {}
        }
    }
    let length = length.ok_or_else(|| bad("no Content-Length".into()))?;
    Ok(Some(WarcHeader {
        kind: kind.unwrap_or_default(),
        uri,
        record,
        length,
        content_type,
    }))
}

/// Read on to the next line that starts with [`WARC_LINE`], after a record that does not hold
/// together, and read that much of it. `false` at the end of the stream.
fn resync(r: &mut dyn BufRead) -> std::io::Result<bool> {
    // How much of a line break and `WARC/1.` has been matched, across buffers. Where the bad
    // record stopped counts as the start of a line: after a header, or after the line breaks
    // that end a record.
    let pattern = [b"\n", WARC_LINE].concat();
    let mut matched = 1usize;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        let mut i = 0;
        while i < buf.len() {
            if matched == 0 {
                match memchr::memchr(b'\n', &buf[i..]) {
                    Some(k) => {
                        i += k + 1;
                        matched = 1;
                    }
                    None => i = buf.len(),
                }
                continue;
            }
            matched = match buf[i] {
                c if c == pattern[matched] => matched + 1,
                b'\n' => 1,
                _ => 0,
            };
            i += 1;
            if matched == pattern.len() {
                r.consume(i);
                return Ok(true);
            }
        }
        r.consume(i);
    }
}

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
}

/// Read a record's block of `len` bytes, keeping the first `keep` of them, and holding the
/// bytes from where a record seems to start inside it (at most `hold` of them, [`Body`]).
fn warc_body(r: &mut dyn BufRead, len: u64, keep: u64, hold: u64) -> Result<Body> {
    let io = |e: std::io::Error| Error::Record(format!("bad WARC record: {e}"));
    let mut body = Body {
        kept: Vec::new(),
        got: 0,
        replay: None,
    };
    // The last bytes read, for a record start that straddles two reads.
    let mut carry: Vec<u8> = Vec::with_capacity(2 * RECORD_START_CARRY);
    while body.got < len {
        let buf = r.fill_buf().map_err(io)?;
        if buf.is_empty() {
            break;
        }
        let n = buf
            .len()
            .min(usize::try_from(len - body.got).unwrap_or(usize::MAX));
        let chunk = &buf[..n];
        let keep_here = keep.saturating_sub(body.got).min(n as u64) as usize;
        body.kept.extend_from_slice(&chunk[..keep_here]);
        match &mut body.replay {
            Some(held) if (held.len() + n) as u64 <= hold => held.extend_from_slice(chunk),
            _ => {
                body.replay = record_start(&carry, chunk)
                    .map(|at| match at.checked_sub(carry.len()) {
                        Some(at) => chunk[at..].to_vec(),
                        None => [&carry[at..], chunk].concat(),
                    })
                    .filter(|held| held.len() as u64 <= hold);
            }
        }
        carry.extend_from_slice(&chunk[n.saturating_sub(RECORD_START_CARRY)..]);
        carry.drain(..carry.len().saturating_sub(RECORD_START_CARRY));
        r.consume(n);
        body.got += n as u64;
    }
    Ok(body)
}

/// Bytes of one read kept for the next, so that a record start across two reads is found:
/// a blank line (up to 3 bytes) and [`WARC_LINE`], less one.
const RECORD_START_CARRY: usize = 3 + WARC_LINE.len() - 1;

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
    straddling.chain(inside).find(|&at| after_blank_line(at))
}

/// Whether a record's body ended where its Content-Length said: line breaks follow, then the
/// next record's `WARC/` line or the end of the stream. The line breaks are consumed.
fn record_ends(r: &mut dyn BufRead) -> std::io::Result<bool> {
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
            return Ok(breaks > 0 && buf[..k] == b"WARC/"[..k]);
        }
        breaks += n;
        r.consume(n);
    }
}

// A small reader of our own rather than the `warc` crate (0.4): that crate reads a record line
// by line into one buffer until the claimed Content-Length is reached, with no bound of its
// own, so one record with a lying length pulls the rest of a multi-gigabyte file into memory.

/// The `response` records of a WARC stream. Each record is read within its Content-Length
/// (checked against the byte limit first), so memory stays bounded. A record that does not
/// hold together (a header that does not parse, a length that does not end where the record
/// does) is reported, and reading goes on at the first record that starts inside its block
/// (a record cut short runs into the records after it, [`Body::replay`]), else at the next
/// line that starts a record, so that one bad record does not lose the rest of a crawl; a
/// stream that ends or fails to read ends.
fn warc_pages(
    source: String,
    stream: Box<dyn BufRead + Send>,
    max_bytes: u64,
) -> impl Iterator<Item = Item> + Send {
    let mut stream = Replay {
        bytes: Vec::new(),
        at: 0,
        inner: stream,
    };
    let mut n = 0usize;
    // The stream ended or failed.
    let mut ended = false;
    std::iter::from_fn(move || loop {
        if ended {
            return None;
        }
        n += 1;
        let place = format!("{source}#{n}");
        match warc_record(&mut stream, max_bytes, &place) {
            Ok(Record::End) => return None,
            Ok(Record::Other) => continue,
            Ok(Record::Item(item)) => return Some(item),
            // The records that the bad one ran into are read again.
            Ok(Record::Bad(e, Some(bytes))) => {
                stream.replay(bytes);
                return Some(Item::new(place, Err(e)));
            }
            Ok(Record::Bad(e, None)) | Err(e) => {
                // A read error (corrupt gzip) ends the stream, as does its end.
                match resync(&mut stream) {
                    // The version line it read is read again.
                    Ok(true) => stream.replay(WARC_LINE.to_vec()),
                    Ok(false) | Err(_) => ended = true,
                }
                return Some(Item::new(place, Err(e)));
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
    inner: Box<dyn BufRead + Send>,
}

impl Replay {
    /// Read `bytes` next: they were read from this stream, after what is left to read again
    /// (a block holds only bytes read after its header), so they go before it.
    fn replay(&mut self, bytes: Vec<u8>) {
        let left = &self.bytes[self.at..];
        self.bytes = if left.is_empty() {
            bytes
        } else {
            [&bytes[..], left].concat()
        };
        self.at = 0;
    }
}

impl Read for Replay {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Replay {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.at < self.bytes.len() {
            return Ok(&self.bytes[self.at..]);
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        if self.at < self.bytes.len() {
            self.at += n;
        } else {
            self.inner.consume(n);
        }
    }
}

/// What [`warc_record`] read.
enum Record {
    /// The end of the stream.
    End,
    /// A record that is neither a response nor a resource (a request, metadata...).
    Other,
    /// A page, or a response or resource without one ([`Error::NoPage`]), or one that cannot
    /// be read.
    Item(Item),
    /// A record whose length does not end where it does, and the bytes of its block from
    /// where a record seems to start inside it, if any ([`Body::replay`]).
    Bad(Error, Option<Vec<u8>>),
}

/// The next record of a WARC stream; an error for a record that does not hold together.
/// `place` names a record that has no target URI.
fn warc_record(stream: &mut dyn BufRead, max_bytes: u64, place: &str) -> Result<Record> {
    let Some(WarcHeader {
        kind,
        uri,
        record,
        length: len,
        content_type,
    }) = warc_header(stream)?
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
    let Body {
        kept: body,
        got,
        replay,
    } = warc_body(stream, len, keep, bound)?;
    let ends = got == len && record_ends(stream).map_err(|e| Error::Gzip(e.to_string()))?;
    if !ends {
        let mut why = if got < len {
            format!(
                "truncated WARC record: its Content-Length is {len}, the file ends after {got} \
                 bytes"
            )
        } else {
            let of = uri
                .as_deref()
                .map(|u| format!(" for {u}"))
                .unwrap_or_default();
            format!(
                "bad WARC record{of}: its Content-Length ({len}) does not end where the record \
                 does"
            )
        };
        if replay.is_some() {
            why.push_str("; reading on at a record that starts inside it");
        }
        return Ok(Record::Bad(Error::Record(why), replay));
    }
    let url = uri.clone();
    let source = uri.unwrap_or_else(|| place.to_string());
    let item = |bytes| {
        Ok(Record::Item(Item {
            warc: Some(record.clone()),
            url: url.clone(),
            ..Item::new(source.clone(), bytes)
        }))
    };
    if resource && !resource_page {
        let what = content_type.map_or("a file of no stated type".into(), |t| t.trim().into());
        return item(Err(Error::NoPage(what)));
    }
    if !wanted {
        return Ok(Record::Other);
    }
    if too_large {
        if let (true, Err(why)) = (response, http_payload(&body)) {
            return item(Err(Error::NoPage(why)));
        }
        return item(Err(too_many_bytes(max_bytes, " in a WARC record")));
    }
    let payload = if resource {
        Payload {
            charset: content_type.as_deref().and_then(html_charset).flatten(),
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
        decode_content(payload.body.into_owned(), payload.encoding, max_bytes)
    };
    Ok(Record::Item(Item {
        charset: payload.charset,
        warc: Some(record),
        url,
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

/// A page's bytes from an HTTP body in its `Content-Encoding`: brotli and deflate are
/// decoded here, gzip (also recognised by its magic bytes) by [`gunzip_if_gzip`]. A body that
/// does not decode but reads as markup is kept as it is: some archives store the decoded page
/// under its original header. Other encodings are refused by name.
fn decode_content(body: Vec<u8>, encoding: Option<String>, max_bytes: u64) -> Result<Vec<u8>> {
    let decoder: Box<dyn Read + '_> = match encoding.as_deref() {
        None | Some("gzip" | "x-gzip") => return gunzip_if_gzip(body, max_bytes),
        Some("br") => Box::new(brotli_decompressor::Decompressor::new(
            body.as_slice(),
            1 << 14,
        )),
        Some("deflate") => {
            // HTTP's "deflate" is zlib data, though some servers send raw deflate. A zlib
            // header names the deflate method and is a multiple of 31 (RFC 1950).
            let zlib = matches!(body.as_slice(), [cmf, flg, ..]
                if cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0);
            if zlib {
                Box::new(flate2::bufread::ZlibDecoder::new(body.as_slice()))
            } else {
                Box::new(flate2::bufread::DeflateDecoder::new(body.as_slice()))
            }
        }
        Some(other) => {
            return Err(Error::NotHtml(format!(
                "a body in the {other} content encoding, which textsift does not decode"
            )))
        }
    };
    let mut out = Vec::new();
    let result = decoder
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut out);
    let name = encoding.as_deref().unwrap_or_default();
    match result {
        Ok(_) if out.len() as u64 > max_bytes => Err(too_many_bytes(
            max_bytes,
            &format!(" after {name} decoding"),
        )),
        Ok(_) => Ok(out),
        Err(_) if body.trim_ascii_start().starts_with(b"<") => Ok(body),
        Err(e) => Err(Error::Record(format!("bad {name} data: {e}"))),
    }
}

/// The page in a WARC response record: the body of its HTTP message, de-chunked when its
/// headers say `Transfer-Encoding: chunked`, with its `Content-Encoding` named for
/// [`decode_content`], after any interim (1xx) responses. An error, saying why, for a record
/// that holds no page: no content (204, 205), a redirect, an error page (the server's, not the
/// address's) or a content type other than HTML (`text/html`, `application/xhtml+xml`; a
/// record without one is read as a page). A record whose HTTP message cannot be parsed gives
/// what follows its first blank line, or all of it.
fn http_payload(record: &[u8]) -> Result<Payload<'_>, String> {
    let record = after_interim_responses(record);
    let mut headers = [httparse::EMPTY_HEADER; 128];
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
    let Ok(httparse::Status::Complete(head_end)) = response.parse(&head) else {
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
    let encoding = header("content-encoding")
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty() && e != "identity");
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

/// The data of a chunked HTTP body; `None` when its chunk sizes do not fit the bytes.
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    loop {
        let httparse::Status::Complete((at, size)) = httparse::parse_chunk_size(body).ok()? else {
            return None;
        };
        let size = usize::try_from(size).ok()?;
        if size == 0 {
            return Some(out);
        }
        let data = body.get(at..at.checked_add(size)?)?;
        out.extend_from_slice(data);
        body = body.get(at + size..)?;
        body = body.strip_prefix(b"\r\n").unwrap_or(body);
    }
}

/// Read every input into items, in order. A convenience for small batches; large batches
/// should call [`read`] per path so that only a few pages are in memory at once.
pub fn read_all<S: AsRef<std::ffi::OsStr>>(inputs: &[S], max_bytes: u64) -> Vec<Item> {
    expand(inputs)
        .into_iter()
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
        for capacity in [1, 3, 7, 64] {
            let mut r = std::io::BufReader::with_capacity(capacity, &data[..]);
            assert!(resync(&mut r).unwrap(), "{capacity}");
            let mut rest = String::new();
            r.read_to_string(&mut rest).unwrap();
            assert_eq!(rest, "0\r\nWARC-Type: x", "{capacity}");
        }
        // Where it starts counts as a line start; a stream without a record ends it.
        let mut r = std::io::BufReader::with_capacity(2, &b"WARC/1.1\r\n"[..]);
        assert!(resync(&mut r).unwrap());
        let mut r = std::io::BufReader::with_capacity(2, &b"xWARC/1.1\nWARC/1"[..]);
        assert!(!resync(&mut r).unwrap());
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
                warc_body(&mut r, len, keep, hold).unwrap()
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
        assert_eq!(
            warc_body(&mut r, len + 10, len + 10, 1000).unwrap().got,
            len
        );
    }

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
    fn gzip_by_magic_bytes() {
        let page = b"<p>hello</p>".to_vec();
        assert_eq!(gunzip_if_gzip(gz(&page), 1000).unwrap(), page);
        assert_eq!(gunzip_if_gzip(page.clone(), 1000).unwrap(), page);
    }

    #[test]
    fn concatenated_gzip_members_are_joined() {
        let mut two = gz(b"<p>one</p>");
        two.extend(gz(b"<p>two</p>"));
        assert_eq!(gunzip_if_gzip(two, 1000).unwrap(), b"<p>one</p><p>two</p>");
    }

    #[test]
    fn one_member_by_libdeflate_and_the_rest_by_the_stream() {
        let page = b"<p>some text that compresses well</p>".repeat(40);
        let one = gz(&page);
        assert_eq!(gunzip_one_member(&one, page.len()).unwrap(), page);
        // A wrong size claim, another member, or a broken stream: left to the stream decoder.
        assert!(gunzip_one_member(&one, page.len() + 1).is_none());
        let mut two = one.clone();
        two.extend(gz(&page));
        assert!(gunzip_one_member(&two, page.len()).is_none());
        assert_eq!(gunzip_if_gzip(two, 1 << 20).unwrap(), page.repeat(2));
        let mut broken = one.clone();
        let middle = broken.len() / 2;
        broken[middle] ^= 0xff;
        assert!(gunzip_one_member(&broken, page.len()).is_none());
        assert!(gunzip_if_gzip(broken, 1 << 20).is_err());
    }

    #[test]
    fn bytes_after_the_last_member_are_ignored_as_gzip_does() {
        let page = b"<p>some text that compresses well</p>".repeat(40);
        // Zeros padding the file, or a stray line after it: the page is kept.
        for tail in [&[0u8; 512][..], b"garbage\n"] {
            let mut data = gz(&page);
            data.extend_from_slice(tail);
            assert_eq!(gunzip_if_gzip(data, 1 << 20).unwrap(), page, "{tail:?}");
        }
        // A lone magic byte after the member starts one that ends at once: an error, as
        // `gzip -d` says "unexpected end of file".
        let mut data = gz(&page);
        data.push(0x1f);
        assert!(matches!(gunzip_if_gzip(data, 1 << 20), Err(Error::Gzip(_))));
        // Two members and then junk: both pages.
        let mut data = gz(&page);
        data.extend(gz(&page));
        data.extend_from_slice(b"junk");
        assert_eq!(gunzip_if_gzip(data, 1 << 20).unwrap(), page.repeat(2));
        // A second member cut short is still a cut file, and the limit counts every member.
        let mut data = gz(&page);
        let second = gz(&page);
        data.extend_from_slice(&second[..second.len() / 2]);
        let err = gunzip_if_gzip(data, 1 << 20).unwrap_err();
        assert!(err.to_string().contains("truncated gzip"), "{err}");
        let mut data = gz(&page);
        data.extend(gz(&page));
        data.extend_from_slice(b"junk");
        assert!(matches!(
            gunzip_if_gzip(data, page.len() as u64 + 10),
            Err(Error::TooLarge(_))
        ));
    }

    #[test]
    fn truncated_gzip_is_a_clear_error() {
        let data = gz(&b"<p>some text that compresses</p>".repeat(50));
        let cut = data[..data.len() / 2].to_vec();
        let err = gunzip_if_gzip(cut, 1 << 20).unwrap_err();
        assert!(err.to_string().contains("truncated gzip"), "{err}");
    }

    #[test]
    fn size_limit_applies_after_gunzip() {
        let data = gz(&vec![b'a'; 10_000]);
        assert!(matches!(
            gunzip_if_gzip(data, 5000),
            Err(Error::TooLarge(_))
        ));
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
            .into_iter()
            .map(|(s, _)| s[root.len() + 1..].to_string())
            .collect();
        assert_eq!(names, ["a.html", "b/2.html", "c.html"]);
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
        let files = [
            ("page.html", page.clone()),
            ("page.html.gz", gz(&page)),
            ("a.warc.gz", gz(&warc)),
            (
                "r.jsonl",
                [
                    UTF8_BOM,
                    b"{\"id\": \"r1\", \"html\": \"<p>x</p>\"}\n\n",
                    b"{\"url\": \"http://e.x/2\", \"html\": \"<p>y\xe9</p>\"}\n{\"id\": 7}",
                ]
                .concat(),
            ),
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
                "a.warc.gz" => "read",
                "r.jsonl" => "line",
                _ => "file",
            };
            let records = if *name == "r.jsonl" { 3 } else { 1 };
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
    fn json_lines_records_are_read_by_the_fields_named() {
        let keys = |html: &str, id: &str, url: &str| RecordKeys {
            html: html.into(),
            id: id.into(),
            url: url.into(),
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
        // The page's field missing or repeated, or a record that is not an object: refused,
        // named by its id when it has one.
        let (source, _, err) = record(r#"{"doc": "d", "html": "<p>a</p>"}"#, &custom);
        assert_eq!(source, "d");
        let err = err.unwrap_err();
        assert!(
            err.starts_with(
                "not a JSON record with a page in its \"raw\" field: missing field `raw`"
            ),
            "{err}"
        );
        let (_, _, err) = record(r#"{"raw": "<p>a</p>", "raw": "<p>b</p>"}"#, &custom);
        assert!(err.unwrap_err().contains("duplicate field `raw`"));
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
