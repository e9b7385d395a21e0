//! Where pages come from: files, directories (walked, sorted), standard input, gzip.
//!
//! Every input yields [`Item`]s, one per page, each either the page's bytes or the error that
//! made it unreadable, so that a batch reports a bad page and goes on.

use crate::error::{Error, Result};
use flate2::read::MultiGzDecoder;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Default largest page accepted, in bytes (after decompression).
pub const DEFAULT_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// One page to process.
#[derive(Debug)]
pub struct Item {
    /// The input as the user gave it (a path, `-`, or a record id).
    pub source: String,
    /// The page bytes, decompressed, or why they could not be read.
    pub bytes: Result<Vec<u8>>,
}

/// Expand command-line inputs: `-` is standard input, a directory is walked recursively in
/// sorted order, anything else is a file. Unreadable entries become error items.
pub fn expand(inputs: &[String]) -> Vec<(String, Option<PathBuf>)> {
    let mut out = Vec::new();
    for input in inputs {
        if input == "-" {
            out.push((input.clone(), None));
            continue;
        }
        let path = PathBuf::from(input);
        if path.is_dir() {
            walk(&path, &mut out);
        } else {
            out.push((input.clone(), Some(path)));
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<(String, Option<PathBuf>)>) {
    // Iterative, so that a deep tree of directories cannot overflow the stack.
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        match std::fs::read_dir(&d) {
            Ok(rd) => {
                for p in rd.filter_map(|e| e.ok().map(|e| e.path())) {
                    if p.is_dir() {
                        stack.push(p);
                    } else {
                        found.push(p);
                    }
                }
            }
            // Reported when read, as an error item of its own.
            Err(_) => found.push(d),
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
        Some(p) => {
            let f = std::fs::File::open(p).map_err(|source| Error::Io {
                path: display(),
                source,
            })?;
            read_limited(f, max_bytes)
        }
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

fn read_limited(r: impl Read, max_bytes: u64) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    r.take(max_bytes.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|source| Error::Io {
            path: PathBuf::new(),
            source,
        })?;
    if buf.len() as u64 > max_bytes {
        return Err(Error::TooLarge(format!("more than {max_bytes} bytes")));
    }
    Ok(buf)
}

/// Decompress gzip data (recognised by its magic bytes, not a file name); other bytes pass through.
pub fn gunzip_if_gzip(bytes: Vec<u8>, max_bytes: u64) -> Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    let result = MultiGzDecoder::new(bytes.as_slice())
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut out);
    match result {
        Ok(_) if out.len() as u64 > max_bytes => Err(Error::TooLarge(format!(
            "more than {max_bytes} bytes after gunzip"
        ))),
        Ok(_) => Ok(out),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(Error::Gzip(format!(
            "truncated gzip stream ({} bytes decompressed before the cut)",
            out.len()
        ))),
        Err(e) => Err(Error::Gzip(e.to_string())),
    }
}

/// Open an input (a file, or standard input for `None`) as a buffered stream, gunzipped when
/// it starts with the gzip magic bytes.
fn open_stream(path: Option<&Path>) -> Result<Box<dyn BufRead + Send>> {
    let display = || path.map_or_else(|| PathBuf::from("-"), Path::to_path_buf);
    let raw: Box<dyn Read + Send> = match path {
        Some(p) => Box::new(std::fs::File::open(p).map_err(|source| Error::Io {
            path: display(),
            source,
        })?),
        None => Box::new(std::io::stdin()),
    };
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let head = buffered.fill_buf().map_err(|source| Error::Io {
        path: display(),
        source,
    })?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            MultiGzDecoder::new(buffered),
        )))
    } else {
        Ok(Box::new(buffered))
    }
}

/// Every page of one input, lazily: a WARC file (its `response` records, recognised by the
/// `WARC/` header), a JSON Lines file of `{"id", "html"}` records (recognised by a leading
/// `{`), or a single page. Pages are read one at a time, so a large WARC file streams.
pub fn pages(
    source: String,
    path: Option<PathBuf>,
    max_bytes: u64,
) -> Box<dyn Iterator<Item = Item> + Send> {
    let single = |bytes: Result<Vec<u8>>| -> Box<dyn Iterator<Item = Item> + Send> {
        Box::new(std::iter::once(Item {
            source: source.clone(),
            bytes,
        }))
    };
    let mut stream = match open_stream(path.as_deref()) {
        Ok(s) => s,
        Err(e) => return single(Err(e)),
    };
    let head: Vec<u8> = match stream.fill_buf() {
        Ok(h) => h.iter().take(8).copied().collect(),
        Err(e) => return single(Err(Error::Gzip(e.to_string()))),
    };
    let first = head.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if head.starts_with(b"WARC/") {
        return Box::new(warc_pages(source, stream, max_bytes));
    }
    if first == Some(b'{') {
        return Box::new(jsonl_pages(source, stream, max_bytes));
    }
    let bytes = read_limited(stream, max_bytes).map_err(|e| match e {
        Error::Io { source: io, .. } if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            Error::Gzip("truncated gzip stream".into())
        }
        Error::Io { source: io, .. } if io.kind() == std::io::ErrorKind::InvalidInput => {
            Error::Gzip(io.to_string())
        }
        other => other,
    });
    single(bytes)
}

fn jsonl_pages(
    source: String,
    stream: Box<dyn BufRead + Send>,
    max_bytes: u64,
) -> impl Iterator<Item = Item> + Send {
    #[derive(serde::Deserialize)]
    struct Record {
        id: Option<serde_json::Value>,
        html: String,
    }
    stream
        .lines()
        .enumerate()
        .filter(|(_, l)| l.as_ref().map_or(true, |l| !l.trim().is_empty()))
        .map(move |(n, line)| {
            let place = format!("{source}:{}", n + 1);
            let line = match line {
                Ok(l) => l,
                Err(e) => {
                    return Item {
                        source: place,
                        bytes: Err(Error::Record(format!("unreadable line: {e}"))),
                    }
                }
            };
            match serde_json::from_str::<Record>(&line) {
                Ok(r) => {
                    let source = match r.id {
                        Some(serde_json::Value::String(s)) => s,
                        Some(v) => v.to_string(),
                        None => place,
                    };
                    let bytes = if r.html.len() as u64 > max_bytes {
                        Err(Error::TooLarge(format!("more than {max_bytes} bytes")))
                    } else {
                        Ok(r.html.into_bytes())
                    };
                    Item { source, bytes }
                }
                Err(e) => Item {
                    source: place,
                    bytes: Err(Error::Record(format!(
                        "not a JSON record with an \"html\" field: {e}"
                    ))),
                },
            }
        })
}

fn warc_pages(
    source: String,
    stream: Box<dyn BufRead + Send>,
    max_bytes: u64,
) -> impl Iterator<Item = Item> + Send {
    let mut records = warc::WarcReader::new(stream).iter_records();
    let mut n = 0usize;
    let mut failed = false;
    std::iter::from_fn(move || loop {
        if failed {
            return None;
        }
        n += 1;
        let record = match records.next()? {
            Ok(r) => r,
            Err(e) => {
                // The stream cannot be trusted past a broken record.
                failed = true;
                return Some(Item {
                    source: format!("{source}#{n}"),
                    bytes: Err(Error::Record(format!("bad WARC record: {e}"))),
                });
            }
        };
        if *record.warc_type() != warc::RecordType::Response {
            continue;
        }
        let uri = record
            .header(warc::WarcHeader::TargetURI)
            .map(|u| u.into_owned())
            .unwrap_or_else(|| format!("{source}#{n}"));
        let body = record.body();
        // Skip the HTTP status line and headers of the response.
        let payload = body
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(body, |at| &body[at + 4..]);
        let bytes = if payload.len() as u64 > max_bytes {
            Err(Error::TooLarge(format!("more than {max_bytes} bytes")))
        } else {
            gunzip_if_gzip(payload.to_vec(), max_bytes)
        };
        return Some(Item { source: uri, bytes });
    })
}

/// Read every input into items, in order. A convenience for small batches; large batches
/// should call [`read`] per path so that only a few pages are in memory at once.
pub fn read_all(inputs: &[String], max_bytes: u64) -> Vec<Item> {
    expand(inputs)
        .into_iter()
        .map(|(source, path)| Item {
            bytes: read(path.as_deref(), max_bytes),
            source,
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
}
