//! Compressed inputs, told by their magic bytes, not by a file name: gzip (one member or
//! more) and zstd (one frame or more, with the dictionary that starts a `.warc.zst` file).

use super::too_many_bytes;
use crate::error::{Error, Result};
use std::io::{BufRead, Read};

/// How an input's bytes are packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Packing {
    /// Not compressed (or in a format that is not unpacked: the page is then refused by name).
    Plain,
    /// gzip (`1f 8b`).
    Gzip,
    /// zstd: a frame (`28 b5 2f fd`), or a skippable frame (`5? 2a 4d 18`), which a
    /// `.warc.zst` file starts with to hold its dictionary.
    Zstd,
}

/// The magic number of a zstd frame, as it is written (little-endian).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The skippable frame that holds a `.warc.zst` file's dictionary (`0x184D2A5D`).
const DICTIONARY_FRAME: [u8; 4] = [0x5d, 0x2a, 0x4d, 0x18];

/// What a gzip stream cut short is called.
const TRUNCATED_GZIP: &str = "truncated gzip stream";

/// What a zstd stream cut short is called.
const TRUNCATED_ZSTD: &str = "truncated zstd stream";

/// Largest dictionary read from a `.warc.zst` file: the format's are some hundred KiB.
const MAX_DICTIONARY: u64 = 16 << 20;

/// How `head`, an input's first bytes, is packed.
pub(crate) fn packing(head: &[u8]) -> Packing {
    match head {
        [0x1f, 0x8b, ..] => Packing::Gzip,
        [m, 0x2a, 0x4d, 0x18, ..] if m & 0xf0 == 0x50 => Packing::Zstd,
        _ if head.starts_with(&ZSTD_MAGIC) => Packing::Zstd,
        _ => Packing::Plain,
    }
}

impl Packing {
    /// How the limit's error says where the bytes were counted (` after gunzip`).
    pub(crate) fn after(self) -> &'static str {
        match self {
            Packing::Plain => "",
            Packing::Gzip => " after gunzip",
            Packing::Zstd => " after zstd decompression",
        }
    }
}

/// Decompress gzip or zstd data, recognised by its magic bytes; other bytes pass through.
/// The limit counts the bytes that come out.
pub fn decompress(bytes: Vec<u8>, max_bytes: u64) -> Result<Vec<u8>> {
    decompress_with(bytes, max_bytes, false)
}

/// [`decompress`]; with `keep_cut`, data cut short gives what it unpacks to before the cut
/// (when that is anything), as an archive keeps the first bytes of a long answer.
pub(crate) fn decompress_with(bytes: Vec<u8>, max_bytes: u64, keep_cut: bool) -> Result<Vec<u8>> {
    match packing(&bytes) {
        Packing::Plain => Ok(bytes),
        Packing::Gzip => gunzip_with(bytes, max_bytes, keep_cut),
        Packing::Zstd => unzstd(&bytes, max_bytes, keep_cut),
    }
}

/// Decompress gzip data (recognised by its magic bytes, not a file name); other bytes pass through.
pub fn gunzip_if_gzip(bytes: Vec<u8>, max_bytes: u64) -> Result<Vec<u8>> {
    gunzip_with(bytes, max_bytes, false)
}

/// [`gunzip_if_gzip`], keeping what data cut short unpacks to as [`decompress_with`] does.
fn gunzip_with(bytes: Vec<u8>, max_bytes: u64, keep_cut: bool) -> Result<Vec<u8>> {
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
    unpacked_whole(result, out, max_bytes, Packing::Gzip, keep_cut)
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

/// Decompress zstd data, every frame of it, within the limit.
fn unzstd(bytes: &[u8], max_bytes: u64, keep_cut: bool) -> Result<Vec<u8>> {
    if let Some(out) = unzstd_at_once(bytes, max_bytes) {
        return Ok(out);
    }
    let mut out = Vec::new();
    let result = ZstdFrames::new(bytes).and_then(|frames| {
        frames
            .take(max_bytes.saturating_add(1))
            .read_to_end(&mut out)
    });
    unpacked_whole(result, out, max_bytes, Packing::Zstd, keep_cut)
}

/// Decompress zstd data in one call into a buffer of its exact size, when it is one frame
/// that records its size (as `zstd FILE` writes it) within the limit: no window buffer and
/// no growing of the output, so a directory of `.html.zst` pages takes the memory and time of
/// its `.html.gz` copy. Anything else (a size not recorded, frames after the first, a
/// dictionary, an error) is left to the stream decoder, which also gives a bad file its
/// message. The recorded size is only trusted up to what zstd can make of the input: a
/// block of at most 128 KiB out of 4 bytes at the least (a run of one byte), so that 17 bytes
/// claiming 64 GiB under a raised limit ask for no such buffer.
pub(crate) fn unzstd_at_once(bytes: &[u8], max_bytes: u64) -> Option<Vec<u8>> {
    thread_local! {
        static CONTEXT: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    let size = zstd::zstd_safe::get_frame_content_size(bytes).ok()??;
    let possible = (bytes.len() as u64).saturating_mul(32 * 1024);
    if size > max_bytes
        || size > possible
        || zstd::zstd_safe::find_frame_compressed_size(bytes).ok()? != bytes.len()
    {
        return None;
    }
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(size).ok()?).ok()?;
    let n = CONTEXT.with_borrow_mut(|context| {
        let context = match context {
            Some(c) => c,
            None => context.insert(zstd::bulk::Decompressor::new().ok()?),
        };
        context.decompress_to_buffer(bytes, &mut out).ok()
    })?;
    (n as u64 == size).then_some(out)
}

/// The bytes `out` that a whole buffer unpacked to, or why it could not be: over the limit,
/// cut short (saying how much came out before the cut), corrupt.
fn unpacked_whole(
    result: std::io::Result<usize>,
    out: Vec<u8>,
    max_bytes: u64,
    packed: Packing,
    keep_cut: bool,
) -> Result<Vec<u8>> {
    let cut = |why: String| format!("{why} ({} bytes decompressed before the cut)", out.len());
    match result {
        Ok(_) if out.len() as u64 > max_bytes => Err(too_many_bytes(max_bytes, packed.after())),
        Ok(_) => Ok(out),
        Err(e) => Err(match stream_error(e, |e| bad_data(packed, e.to_string())) {
            Error::Gzip(why) | Error::Zstd(why)
                if keep_cut
                    && !out.is_empty()
                    && (why == TRUNCATED_GZIP || why == TRUNCATED_ZSTD) =>
            {
                return Ok(out);
            }
            Error::Gzip(why) if why == TRUNCATED_GZIP => Error::Gzip(cut(why)),
            Error::Zstd(why) if why == TRUNCATED_ZSTD => Error::Zstd(cut(why)),
            other => other,
        }),
    }
}

/// The error of corrupt data of this packing.
fn bad_data(packed: Packing, why: String) -> Error {
    match packed {
        Packing::Zstd => Error::Zstd(why),
        Packing::Gzip | Packing::Plain => Error::Gzip(why),
    }
}

/// Where the gzip member being read starts in the unpacked bytes, shared by a stream of
/// members with its reader: a WARC record that ends where its member does ends there, whatever
/// the next member holds (one corrupt from its start may give bytes before it fails).
#[derive(Clone, Default)]
pub(crate) struct MemberStart(Option<std::sync::Arc<std::sync::atomic::AtomicU64>>);

impl MemberStart {
    /// Whether a gzip member starts at `at` unpacked bytes, when the bytes read are those of
    /// the member that starts last (a reader reads no further than it needs).
    pub(crate) fn is(&self, at: u64) -> bool {
        self.get() == Some(at)
    }

    /// Where the member being read starts, when the stream is one of gzip members.
    pub(crate) fn get(&self) -> Option<u64> {
        self.0
            .as_ref()
            .map(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn set(&self, at: u64) {
        if let Some(s) = &self.0 {
            s.store(at, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// `stream` (whose first bytes are at hand in its buffer) as the bytes it holds: inflated or
/// decompressed as it is read when it starts with the magic bytes of gzip or zstd; for gzip,
/// with where its member being read starts.
pub(crate) fn unpacked<R: BufRead + Send + 'static>(
    mut stream: R,
) -> std::io::Result<(Box<dyn BufRead + Send>, Packing, MemberStart)> {
    let packed = packing(stream.fill_buf()?);
    let mut start = MemberStart::default();
    let unpacked: Box<dyn BufRead + Send> = match packed {
        Packing::Plain => Box::new(stream),
        Packing::Gzip => {
            let members = GzMembers::new(stream);
            start = members.start.clone();
            Box::new(std::io::BufReader::with_capacity(1 << 16, members))
        }
        Packing::Zstd => Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            ZstdFrames::new(stream)?,
        )),
    };
    Ok((unpacked, packed, start))
}

/// The first bytes (up to 8) that the start of `raw` unpacks to: `raw`'s own when it is not
/// compressed. Fewer when `raw` ends or breaks before them, or when they lie beyond it: a
/// zstd block is only decoded whole, and may run to 128 KiB.
pub(crate) fn unpacked_head(raw: &[u8]) -> Vec<u8> {
    let mut head = Vec::with_capacity(8);
    let _ = match packing(raw) {
        Packing::Plain => return raw[..raw.len().min(8)].to_vec(),
        Packing::Gzip => GzMembers::new(raw).take(8).read_to_end(&mut head),
        Packing::Zstd if raw.starts_with(&DICTIONARY_FRAME) => {
            ZstdFrames::new(raw).and_then(|z| z.take(8).read_to_end(&mut head))
        }
        Packing::Zstd => return zstd_head(raw),
    };
    head
}

/// The first bytes (up to 8) that zstd data without a dictionary decompresses to, by a
/// decoder that each thread keeps: the reader looks at every `.html.zst` file of a directory
/// so, and a decoder made for each would cost more than the look.
fn zstd_head(raw: &[u8]) -> Vec<u8> {
    use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};
    thread_local! {
        static DECODER: std::cell::RefCell<Option<Decoder<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    let mut head = [0u8; 8];
    let got = DECODER.with_borrow_mut(|decoder| {
        let decoder = match decoder {
            Some(d) => d,
            None => decoder.insert(Decoder::new().ok()?),
        };
        decoder.reinit().ok()?;
        let mut input = InBuffer::around(raw);
        let mut output = OutBuffer::around(&mut head[..]);
        while output.pos() < 8 {
            let before = (input.pos(), output.pos());
            if decoder.run(&mut input, &mut output).is_err() {
                break;
            }
            if (input.pos(), output.pos()) == before {
                break;
            }
        }
        Some(output.pos())
    });
    head[..got.unwrap_or(0)].to_vec()
}

/// How many of a file's first bytes are looked at to tell what it holds once unpacked: those
/// of `head`'s packing that give the first 8 bytes of most files.
pub(crate) fn head_to_read(head: &[u8]) -> u64 {
    match packing(head) {
        // A dictionary frame, then the first block of the first frame (at most 128 KiB).
        Packing::Zstd => {
            let dictionary = dictionary_size(head).map_or(0, |size| 8 + size.min(MAX_DICTIONARY));
            dictionary + (130 << 10)
        }
        Packing::Plain | Packing::Gzip => 4096,
    }
}

/// What a failed read of an unpacked stream means: a gzip or zstd stream that was cut short
/// or corrupt (the decoders' errors, marked as [`BadData`]), or else `other`.
pub(crate) fn stream_error(
    e: std::io::Error,
    other: impl FnOnce(std::io::Error) -> Error,
) -> Error {
    match e.get_ref().and_then(|inner| inner.downcast_ref()) {
        Some(BadData(packed, why, _)) => bad_data(*packed, why.clone()),
        None => other(e),
    }
}

/// Why a gzip or zstd stream could not be read, carried in an `io::Error` to
/// [`stream_error`], so that it is told from an error of the file beneath it and from one of
/// what reads the unpacked bytes (a line that is not UTF-8).
#[derive(Debug)]
/// The third field: the bytes that a gzip member found corrupt had given before (0 for other
/// failures), which may be wrong (a checksum that does not match says that they are).
struct BadData(Packing, String, u64);

impl std::fmt::Display for BadData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.1)
    }
}

impl std::error::Error for BadData {}

/// A gzip decoder's errors, a member cut short or corrupt data, as [`BadData`]; errors of
/// the reader beneath it as they are. `gave`: the bytes that the member gave before.
fn bad_gzip(e: std::io::Error, gave: u64) -> std::io::Error {
    let (why, gave) = match e.kind() {
        std::io::ErrorKind::UnexpectedEof => (TRUNCATED_GZIP.to_string(), 0),
        std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => (e.to_string(), gave),
        _ => return e,
    };
    std::io::Error::other(BadData(Packing::Gzip, why, gave))
}

/// A gzip stream of one member or more, inflated as it is read (a whole page, or a WARC or
/// JSON Lines stream). Bytes after a member that do not start another one end the stream, as
/// `gzip -d` ignores them, when no member follows them: a file padded with zeros or followed by
/// a stray line keeps its pages; with a member after them, they are an error, and reading goes
/// on at that member (after a failure, they are passed over without one). A member
/// cut short (`UnexpectedEof`) or corrupt is an error; a reader that reads on after it (a
/// WARC file, whose records are often a member each) gets the members after it: reading goes
/// on at the next place where a member seems to start, looked for from the second byte of the
/// member that failed, as a member cut short runs into the next one.
struct GzMembers<R: BufRead> {
    member: Option<flate2::bufread::GzDecoder<Logged<R>>>,
    /// The member being read failed: the next read looks for the next one.
    failed: bool,
    /// Places resumed at in a row that gave nothing before failing: bytes crafted to look
    /// like member starts would otherwise have each read on to the end.
    fruitless: u32,
    /// The bytes that the member being read has given.
    gave: u64,
    /// A member failed before: the members read since were found by their magic bytes.
    resumed: bool,
    /// The bytes given so far, by all members.
    given: u64,
    /// Where the member being read started in them.
    start: MemberStart,
}

/// Most places in a row that [`GzMembers::resume`] tries when none gives any bytes.
const MAX_FRUITLESS_RESUMES: u32 = 16;

impl<R: BufRead> GzMembers<R> {
    fn new(inner: R) -> Self {
        let logged = Logged {
            inner,
            held: Vec::new(),
            at: 0,
            log: Vec::new(),
            trimmed: false,
        };
        GzMembers {
            member: Some(flate2::bufread::GzDecoder::new(logged)),
            failed: false,
            fruitless: 0,
            gave: 0,
            resumed: false,
            given: 0,
            start: MemberStart(Some(Default::default())),
        }
    }

    /// Start reading at the next place after the failed member's first byte where a member
    /// seems to start (`1f 8b 08`), `false` when there is none.
    fn resume(&mut self) -> std::io::Result<bool> {
        self.fruitless += 1;
        if self.fruitless > MAX_FRUITLESS_RESUMES {
            self.member = None;
            return Ok(false);
        }
        let Some(member) = self.member.take() else {
            return Ok(false);
        };
        self.resumed = true;
        let mut r = member.into_inner();
        // The failed member's bytes after its first, then those not read yet.
        let log = std::mem::take(&mut r.log);
        let rest = r.held.split_off(r.at.min(r.held.len()));
        // (All of the log when it no longer holds the member's first byte.)
        let from = usize::from(!r.trimmed);
        r.held = [log.get(from..).unwrap_or_default(), &rest].concat();
        r.at = 0;
        self.scan(r)
    }

    /// Start reading at the next place in `r` where a member seems to start, `false` when
    /// there is none.
    fn scan(&mut self, mut r: Logged<R>) -> std::io::Result<bool> {
        // The last bytes looked at, for a start across two reads.
        let mut carry: Vec<u8> = Vec::new();
        loop {
            let buf = r.fill_buf()?;
            if buf.is_empty() {
                return Ok(false);
            }
            let joined = [&carry[..], buf].concat();
            if let Some(at) = memchr::memmem::find(&joined, GZIP_MEMBER_START) {
                let held = joined[at..].to_vec();
                let n = buf.len();
                r.consume(n);
                // What is left of `held` is read before the stream, so put it back there.
                let rest = r.held.split_off(r.at.min(r.held.len()));
                r.held = [held, rest].concat();
                r.at = 0;
                r.restart();
                self.member = Some(flate2::bufread::GzDecoder::new(r));
                self.gave = 0;
                self.start.set(self.given);
                return Ok(true);
            }
            carry = joined[joined.len().saturating_sub(GZIP_MEMBER_START.len() - 1)..].to_vec();
            let n = buf.len();
            r.consume(n);
            r.restart();
        }
    }
}

/// How a gzip member starts: its magic bytes and deflate's method.
const GZIP_MEMBER_START: &[u8] = &[0x1f, 0x8b, 0x08];

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if std::mem::take(&mut self.failed) && !self.resume()? {
            return Ok(0);
        }
        while let Some(member) = &mut self.member {
            let n = match member.read(buf) {
                Ok(n) => n,
                Err(e) => {
                    let e = bad_gzip(e, self.gave);
                    self.failed = is_bad_gzip(&e);
                    return Err(e);
                }
            };
            if n > 0 || buf.is_empty() {
                if n > 0 {
                    self.fruitless = 0;
                    self.gave += n as u64;
                    self.given += n as u64;
                }
                return Ok(n);
            }
            // The member is done: another one follows only where its magic byte stands.
            let Some(mut rest) = self.member.take().map(|m| m.into_inner()) else {
                break;
            };
            rest.restart();
            if rest.fill_buf()?.first() == Some(&0x1f) {
                self.member = Some(flate2::bufread::GzDecoder::new(rest));
                self.gave = 0;
                self.start.set(self.given);
            } else if !self.scan(rest)? {
                // Bytes that start no member and no member after them: the end of the
                // stream, as `gzip -d` takes them (padding, a stray line).
                return Ok(0);
            } else if !self.resumed {
                // A member after them: they cut what was between (a member whose first bytes
                // were lost, bytes written over), a failure; reading goes on at that member.
                // (After a failure, a member found by its magic bytes may be a gzip file that
                // a record holds as it is, and the bytes after it are the stream's own.)
                return Err(std::io::Error::other(BadData(
                    Packing::Gzip,
                    "bytes that start no gzip member before the next one".into(),
                    0,
                )));
            }
        }
        Ok(0)
    }
}

/// Whether a read failed on corrupt gzip data ([`BadData`]) rather than in the reader beneath
/// it: a stream of gzip members reads on past it ([`GzMembers`]).
pub(crate) fn is_bad_gzip(e: &std::io::Error) -> bool {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref())
        .is_some_and(|BadData(packed, ..)| *packed == Packing::Gzip)
}

/// How many bytes a gzip member found corrupt had given (a checksum that does not match),
/// when a read failed on one: those bytes, already read, may be wrong.
pub(crate) fn spoils_bytes_read(e: &std::io::Error) -> Option<u64> {
    match e.get_ref().and_then(|inner| inner.downcast_ref()) {
        Some(&BadData(Packing::Gzip, _, gave)) if gave > 0 => Some(gave),
        _ => None,
    }
}

/// Most bytes of a gzip member kept for [`GzMembers::resume`] to look through, the last ones
/// read: a WARC record's member is most often some kilobytes, and a member cut short fails
/// soon after it runs into the next one. Of a longer member, the bytes before these are not
/// looked through.
const MAX_MEMBER_LOG: usize = 1 << 20;

/// A stream that keeps the bytes read of the current gzip member (the last
/// [`MAX_MEMBER_LOG`] to twice as many), with bytes to read again before it.
struct Logged<R> {
    inner: R,
    /// Bytes to read before `inner`'s, from `at` on.
    held: Vec<u8>,
    at: usize,
    /// The bytes consumed since the member started, or the last of them.
    log: Vec<u8>,
    /// `log` no longer starts where the member did.
    trimmed: bool,
}

impl<R> Logged<R> {
    /// Forget the bytes logged: a member starts.
    fn restart(&mut self) {
        self.log.clear();
        self.trimmed = false;
    }
}

/// Add `bytes` to a member's `log`, dropping its oldest bytes when it would pass twice
/// [`MAX_MEMBER_LOG`] (so that each byte is moved about once).
fn log_bytes(log: &mut Vec<u8>, trimmed: &mut bool, bytes: &[u8]) {
    if log.len() + bytes.len() > 2 * MAX_MEMBER_LOG {
        let keep = MAX_MEMBER_LOG.saturating_sub(bytes.len()).min(log.len());
        log.drain(..log.len() - keep);
        *trimmed = true;
    }
    let from = bytes.len().saturating_sub(2 * MAX_MEMBER_LOG);
    *trimmed |= from > 0;
    log.extend_from_slice(&bytes[from..]);
}

impl<R: BufRead> Read for Logged<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        read_buffered(self, out)
    }
}

/// `Read::read` of a reader whose reading is its `BufRead` buffer: as much of it as fits.
pub(crate) fn read_buffered(r: &mut impl BufRead, out: &mut [u8]) -> std::io::Result<usize> {
    let buf = r.fill_buf()?;
    let n = buf.len().min(out.len());
    out[..n].copy_from_slice(&buf[..n]);
    r.consume(n);
    Ok(n)
}

impl<R: BufRead> BufRead for Logged<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.at < self.held.len() {
            return Ok(&self.held[self.at..]);
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        if self.at < self.held.len() {
            let end = (self.at + n).min(self.held.len());
            log_bytes(&mut self.log, &mut self.trimmed, &self.held[self.at..end]);
            self.at += n;
            if self.at >= self.held.len() {
                self.held = Vec::new();
                self.at = 0;
            }
            return;
        }
        // The buffer consumed from is still the inner stream's: filling it again reads
        // nothing.
        if let Ok(buf) = self.inner.fill_buf() {
            log_bytes(&mut self.log, &mut self.trimmed, &buf[..n.min(buf.len())]);
        }
        self.inner.consume(n);
    }
}

/// A zstd stream of one frame or more, decompressed as it is read. A `.warc.zst` file (one
/// frame per WARC record) may start with a skippable frame that holds the dictionary of its
/// other frames, itself zstd-compressed or not; other skippable frames are passed over. A
/// frame cut short, corrupt data or bytes after the last frame are an error ([`BadData`]), as
/// for `zstd -d`.
struct ZstdFrames<R: BufRead>(zstd::stream::read::Decoder<'static, R>);

impl<R: BufRead> ZstdFrames<R> {
    fn new(mut inner: R) -> std::io::Result<Self> {
        let dictionary = zstd_dictionary(&mut inner).map_err(bad_zstd)?;
        let decoder = zstd::stream::read::Decoder::with_dictionary(inner, &dictionary);
        Ok(ZstdFrames(decoder.map_err(bad_zstd)?))
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf).map_err(bad_zstd)
    }
}

/// The decoder's own errors (and a frame cut short) as [`BadData`]; errors of the reader
/// beneath it (a disk that fails) as they are.
fn bad_zstd(e: std::io::Error) -> std::io::Error {
    let why = if e.kind() == std::io::ErrorKind::UnexpectedEof {
        TRUNCATED_ZSTD.to_string()
    } else if e.get_ref().is_some_and(|inner| inner.is::<zstd::Error>()) {
        e.to_string()
    } else {
        return e;
    };
    std::io::Error::other(BadData(Packing::Zstd, why, 0))
}

/// The size that the skippable frame of a `.warc.zst` file's dictionary gives it, when `head`
/// starts with that frame's header.
fn dictionary_size(head: &[u8]) -> Option<u64> {
    let size = head.strip_prefix(&DICTIONARY_FRAME)?.first_chunk::<4>()?;
    Some(u64::from(u32::from_le_bytes(*size)))
}

/// The dictionary that a `.warc.zst` file's first frame holds, read off `r`; empty when the
/// stream does not start with one.
fn zstd_dictionary(r: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    if !r.fill_buf()?.starts_with(&DICTIONARY_FRAME) {
        return Ok(Vec::new());
    }
    let mut header = [0u8; 8];
    r.read_exact(&mut header)?;
    let size = dictionary_size(&header).unwrap_or_default();
    if size > MAX_DICTIONARY {
        return Err(std::io::Error::other(BadData(
            Packing::Zstd,
            format!("a dictionary of {size} bytes, more than {MAX_DICTIONARY}"),
            0,
        )));
    }
    let mut dictionary = Vec::new();
    r.take(size).read_to_end(&mut dictionary)?;
    if (dictionary.len() as u64) < size {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    // The format allows the dictionary to be compressed itself, as a plain zstd frame.
    if dictionary.starts_with(&ZSTD_MAGIC) {
        let mut plain = Vec::new();
        zstd::stream::read::Decoder::with_buffer(dictionary.as_slice())?
            .take(MAX_DICTIONARY + 1)
            .read_to_end(&mut plain)?;
        if plain.len() as u64 > MAX_DICTIONARY {
            return Err(std::io::Error::other(BadData(
                Packing::Zstd,
                format!("a dictionary of more than {MAX_DICTIONARY} bytes"),
                0,
            )));
        }
        dictionary = plain;
    }
    Ok(dictionary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
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
    fn a_stream_read_on_after_a_bad_member_goes_on_at_the_next_one() {
        let members: Vec<Vec<u8>> = (0..4)
            .map(|i| gz(format!("<p>member {i} of a few</p>").repeat(20).as_bytes()))
            .collect();
        // Member 1 corrupt, or cut short so that it runs into member 2, or member 0 corrupt.
        let mut corrupt = members[1].clone();
        corrupt[20..30].fill(0xff);
        let cut = members[1][..members[1].len() / 2].to_vec();
        let mut first = members[0].clone();
        first[20..30].fill(0xff);
        for (bad, at, want) in [
            (&corrupt, 1, [0, 2, 3]),
            (&cut, 1, [0, 2, 3]),
            (&first, 0, [1, 2, 3]),
        ] {
            let mut data = members.clone();
            data[at] = bad.clone();
            let data = data.concat();
            let mut r = GzMembers::new(&data[..]);
            let mut got = Vec::new();
            let mut errors = 0;
            let mut buf = [0u8; 64];
            loop {
                match r.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(e) => {
                        assert!(is_bad_gzip(&e), "{e}");
                        errors += 1;
                    }
                }
            }
            let text = String::from_utf8_lossy(&got);
            for i in want {
                assert!(text.contains(&format!("member {i} ")), "{i}: {text}");
            }
            // A first member corrupt near its start gives nothing (a member cut short gives
            // its first half).
            if bad == &first {
                assert!(!text.contains("member 0 "), "{text}");
            }
            assert_eq!(errors, 1);
        }
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

    fn zst(data: &[u8]) -> Vec<u8> {
        zstd::encode_all(data, 3).unwrap()
    }

    /// A frame compressed with `dictionary` (raw content: any bytes serve as a dictionary).
    fn zst_with(data: &[u8], dictionary: &[u8]) -> Vec<u8> {
        let mut e = zstd::stream::Encoder::with_dictionary(Vec::new(), 3, dictionary).unwrap();
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn skippable(magic_low: u8, payload: &[u8]) -> Vec<u8> {
        let size = u32::try_from(payload.len()).unwrap().to_le_bytes();
        [&[magic_low, 0x2a, 0x4d, 0x18][..], &size, payload].concat()
    }

    fn stream(data: &[u8]) -> std::io::Result<Vec<u8>> {
        let (mut unpacked, ..) = unpacked(std::io::Cursor::new(data.to_vec()))?;
        let mut out = Vec::new();
        unpacked.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn packing_by_magic_bytes() {
        assert_eq!(packing(b"\x1f\x8b\x08"), Packing::Gzip);
        assert_eq!(packing(&zst(b"<p>x</p>")), Packing::Zstd);
        assert_eq!(packing(&skippable(0x50, b"")), Packing::Zstd);
        assert_eq!(packing(&skippable(0x5f, b"")), Packing::Zstd);
        assert_eq!(packing(b"P*M"), Packing::Plain);
        assert_eq!(packing(b"<p>hello</p>"), Packing::Plain);
        assert_eq!(packing(b""), Packing::Plain);
    }

    #[test]
    fn zstd_frames_are_joined_and_skippable_frames_passed_over() {
        let page = b"<p>hello</p>".to_vec();
        assert_eq!(decompress(zst(&page), 1000).unwrap(), page);
        assert_eq!(decompress(page.clone(), 1000).unwrap(), page);
        let many = [
            skippable(0x50, b"an index"),
            zst(b"<p>one</p>"),
            skippable(0x5e, b""),
            zst(b"<p>two</p>"),
        ]
        .concat();
        assert_eq!(
            decompress(many.clone(), 1000).unwrap(),
            b"<p>one</p><p>two</p>"
        );
        assert_eq!(stream(&many).unwrap(), b"<p>one</p><p>two</p>");
        assert_eq!(unpacked_head(&many), b"<p>one</");
        // Each look uses the thread's decoder afresh: a look cut short leaves nothing behind.
        let two = [zst(b"<p>one</p>"), zst(b"<p>two</p>")].concat();
        assert_eq!(unpacked_head(&two[..6]), b"");
        assert_eq!(unpacked_head(&two[zst(b"<p>one</p>").len()..]), b"<p>two</");
        assert_eq!(unpacked_head(b"\x28\xb5\x2f\xfd junk"), b"");
    }

    #[test]
    fn a_warc_zst_dictionary_is_read_raw_or_compressed() {
        // A `.warc.zst` file: the dictionary's skippable frame, then one frame per record.
        let dictionary =
            b"WARC/1.0\r\nWARC-Type: response\r\nContent-Type: text/html\r\n".repeat(4);
        let records = [
            b"WARC/1.0\r\nWARC-Type: response\r\n1",
            &b"WARC/1.0\r\n2"[..],
        ];
        let frames: Vec<u8> = records
            .iter()
            .flat_map(|r| zst_with(r, &dictionary))
            .collect();
        for stored in [dictionary.clone(), zst(&dictionary)] {
            let file = [skippable(0x5d, &stored), frames.clone()].concat();
            assert_eq!(stream(&file).unwrap(), records.concat());
            assert_eq!(decompress(file.clone(), 1 << 20).unwrap(), records.concat());
            assert_eq!(unpacked_head(&file), b"WARC/1.0");
        }
        // Without the dictionary, the frames cannot be read.
        assert!(matches!(decompress(frames, 1 << 20), Err(Error::Zstd(_))));
        // A dictionary frame that claims more than the limit, or is cut short.
        let huge = [&DICTIONARY_FRAME[..], &u32::MAX.to_le_bytes()].concat();
        assert!(
            matches!(decompress(huge, 1 << 20), Err(Error::Zstd(m)) if m.contains("dictionary of"))
        );
        let cut = skippable(0x5d, &dictionary)[..100].to_vec();
        assert!(
            matches!(decompress(cut, 1 << 20), Err(Error::Zstd(m)) if m.starts_with("truncated"))
        );
    }

    #[test]
    fn zstd_cut_short_corrupt_or_followed_by_junk_is_a_clear_error() {
        let page = b"<p>some text that compresses well, and more of it</p>".repeat(200);
        let packed = zst(&page);
        let err = decompress(packed[..packed.len() / 2].to_vec(), 1 << 20).unwrap_err();
        assert!(
            matches!(&err, Error::Zstd(m) if m.starts_with("truncated zstd stream (")),
            "{err}"
        );
        assert_eq!(err.kind(), "bad_zstd");
        let err = stream(&packed[..packed.len() / 2]).unwrap_err();
        assert!(
            matches!(stream_error(err, |_| Error::Empty), Error::Zstd(m) if m == TRUNCATED_ZSTD)
        );
        let mut corrupt = packed.clone();
        let at = corrupt.len() / 2;
        corrupt[at] ^= 0xff;
        corrupt[at + 1] ^= 0xff;
        // Without a checksum in the frame, corrupt data may decode to other bytes; never to
        // another kind of error.
        assert!(matches!(
            decompress(corrupt, 1 << 20),
            Ok(_) | Err(Error::Zstd(_))
        ));
        // Bytes after the last frame that start no frame: an error, as `zstd -d` says.
        let junk = [packed, b"junk after the frame".to_vec()].concat();
        assert!(matches!(decompress(junk, 1 << 20), Err(Error::Zstd(_))));
    }

    #[test]
    fn one_frame_of_known_size_at_once_and_the_rest_by_the_stream() {
        let page = b"<p>some text that compresses well</p>".repeat(40);
        // `zstd FILE` records the size in the frame; a stream (`zstd < FILE`) does not.
        let sized = zstd::bulk::compress(&page, 3).unwrap();
        assert_eq!(unzstd_at_once(&sized, 1 << 20).unwrap(), page);
        let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        e.include_contentsize(false).unwrap();
        e.write_all(&page).unwrap();
        let streamed = e.finish().unwrap();
        assert!(unzstd_at_once(&streamed, 1 << 20).is_none());
        assert_eq!(decompress(streamed, 1 << 20).unwrap(), page);
        // Over the limit, a second frame, or a broken frame: left to the stream decoder.
        assert!(unzstd_at_once(&sized, page.len() as u64 - 1).is_none());
        assert!(matches!(
            decompress(sized.clone(), page.len() as u64 - 1),
            Err(Error::TooLarge(_))
        ));
        let two = [sized.clone(), sized.clone()].concat();
        assert!(unzstd_at_once(&two, 1 << 20).is_none());
        assert_eq!(decompress(two, 1 << 20).unwrap(), page.repeat(2));
        let cut = &sized[..sized.len() - 3];
        assert!(unzstd_at_once(cut, 1 << 20).is_none());
        assert!(matches!(
            decompress(cut.to_vec(), 1 << 20),
            Err(Error::Zstd(_))
        ));
        // A frame of 17 bytes that says it holds 64 GiB: one run of one byte follows. Under
        // a limit raised past that size, it is refused as corrupt, with no buffer of that
        // size asked for.
        let mut liar = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
        liar.extend_from_slice(&(1u64 << 36).to_le_bytes());
        liar.extend_from_slice(&[0x0b, 0, 0, b'a']);
        assert!(unzstd_at_once(&liar, 1 << 40).is_none());
        assert!(matches!(decompress(liar, 1 << 40), Err(Error::Zstd(_))));
    }

    #[test]
    fn the_limit_counts_what_zstd_unpacks() {
        // 200 MB of spaces in a few kB, unpacked only up to the limit.
        let bomb = zst(&vec![b' '; 200_000_000]);
        assert!(bomb.len() < 100_000);
        let err = decompress(bomb, 5000).unwrap_err();
        assert!(
            matches!(&err, Error::TooLarge(m) if m.contains("after zstd decompression")),
            "{err}"
        );
    }

    #[test]
    fn the_head_of_a_zstd_file_is_read_past_its_first_block() {
        // A page whose first block compresses badly: its start lies beyond the first 4 KiB.
        let mut noise = 0x2545_f491_u32;
        let page: Vec<u8> = b"{\"id\": 1}"
            .iter()
            .copied()
            .chain((0..100_000).map(|_| {
                noise ^= noise << 13;
                noise ^= noise >> 17;
                noise ^= noise << 5;
                b'a' + (noise % 26) as u8
            }))
            .collect();
        let packed = zst(&page);
        assert!(unpacked_head(&packed[..4096]).is_empty());
        let wanted = usize::try_from(head_to_read(&packed)).unwrap();
        assert_eq!(
            unpacked_head(&packed[..wanted.min(packed.len())]),
            &page[..8]
        );
        assert_eq!(head_to_read(b"<p>x</p>"), 4096);
    }
}
