//! Annotations in, labelled blocks out.
//!
//! Three formats are read:
//! 1. a WCXB-style folder, `html/ID.html[.gz|.zst]` with `ground-truth/ID.json`
//!    (`ground_truth.main_content`, `url`, `_internal.page_type.primary`);
//! 2. a JSON Lines manifest, one page per line:
//!    `{"id", "html" | "html_path", "text", "url"?, "group"?, "page_type"?}`
//!    (`html_path` is relative to the manifest; other keys, and an id given twice, are refused);
//! 3. the JSON Lines of `textsift blocks` with a `label` on every block (hand-corrected labels).
//!
//! Gold text becomes block labels by aligning the page's word tokens with the gold text's word
//! tokens in order ([`crate::align`]); a block is content when at least `min_aligned` of its
//! tokens are aligned.

use crate::align;
use crate::classes::ClassTokens;
use crate::error::{Error, Result};
use crate::features::{FeatureMatrix, N_FEATURES};
use crate::output::{BlockRecord, Label};
use crate::SegmentLimits;
use rayon::prelude::*;
use serde::de::IgnoredAny;
use serde::Deserialize;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// One annotated page, ready for training and evaluation.
#[derive(Debug, Clone)]
pub struct LabeledPage {
    /// Page id (file stem, manifest id, or block-record source).
    pub id: String,
    /// Group for cross-validation: the site's domain when known, so that no site is in both
    /// train and test.
    pub group: String,
    /// Page type, when the data has one (WCXB: article, forum, product…).
    pub page_type: Option<String>,
    /// The gold main text: the annotation's, or for block records the text of the blocks
    /// labelled content. `None` only for pages built without one.
    pub gold: Option<String>,
    /// Block texts.
    pub texts: Vec<String>,
    /// Block features.
    pub features: FeatureMatrix,
    /// Class/id tokens around each block.
    pub tokens: ClassTokens,
    /// Block labels: true for content.
    pub labels: Vec<bool>,
    /// Share of each block's word tokens aligned with the gold text (empty without gold text).
    pub coverage: Vec<f32>,
}

/// Word tokens of every block, and which of them align with the gold text.
pub fn aligned_tokens(texts: &[String], gold: &str) -> Vec<(usize, usize)> {
    let mut page_tokens: Vec<String> = Vec::new();
    let mut bounds = Vec::with_capacity(texts.len());
    for t in texts {
        let start = page_tokens.len();
        page_tokens.extend(align::tokenize(t));
        bounds.push((start, page_tokens.len()));
    }
    let gold_tokens = align::tokenize(gold);
    let mask = align::align(&page_tokens, &gold_tokens);
    bounds
        .iter()
        .map(|&(s, e)| (mask[s..e].iter().filter(|&&m| m).count(), e - s))
        .collect()
}

/// Share of each block's word tokens that align with the gold text.
pub fn coverage(texts: &[String], gold: &str) -> Vec<f32> {
    aligned_tokens(texts, gold)
        .into_iter()
        .map(|(hit, n)| if n == 0 { 0.0 } else { hit as f32 / n as f32 })
        .collect()
}

/// Labels from coverage: content when at least `min_aligned` of the block's tokens align.
pub fn labels_from_coverage(coverage: &[f32], min_aligned: f32) -> Vec<bool> {
    coverage
        .iter()
        .map(|&c| c > 0.0 && c >= min_aligned)
        .collect()
}

/// Labels from gold text: a block is content when at least `min_aligned` of its word tokens
/// align with the gold text.
pub fn labels_from_gold(texts: &[String], gold: &str, min_aligned: f32) -> Vec<bool> {
    labels_from_coverage(&coverage(texts, gold), min_aligned)
}

/// A page of a gold text alone: each of its lines a paragraph of a plain HTML page, every block
/// content. Trained on beside the real pages, such copies show the model pages that are all main
/// text (a bare article, a feed item, a page already cleaned), which a corpus of real pages
/// lacks: without them a page of one paragraph is read as an empty shell. `None` when the gold
/// text is empty.
pub fn clean_copy(page: &LabeledPage) -> Option<LabeledPage> {
    let gold = page.gold.as_deref()?;
    let mut html = String::from("<!DOCTYPE html><html><head><title></title></head><body>");
    for line in gold.lines().map(str::trim).filter(|l| !l.is_empty()) {
        html.push_str("<p>");
        html.push_str(&crate::output::escape(line));
        html.push_str("</p>");
    }
    html.push_str("</body></html>");
    copy_of(page, gold, &html, "#clean")
}

/// A page of a gold text's opening alone, as a single block: its first lines, up to about 100
/// words, run together in one element (`<p>`, `<div>`, `<article>` or straight in `<body>`,
/// picked by `variant`), all content. A fragment of one paragraph, pasted or piped in, is
/// such a page.
pub fn single_block_copy(page: &LabeledPage, variant: u64) -> Option<LabeledPage> {
    let gold = page.gold.as_deref()?;
    let mut text = String::new();
    let mut words = 0;
    for line in gold.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if words >= 100 {
            break;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(line);
        words += line.split_whitespace().count();
    }
    let body = crate::output::escape(&text);
    let body = match variant % 4 {
        0 => format!("<p>{body}</p>"),
        1 => format!("<div>{body}</div>"),
        2 => format!("<article>{body}</article>"),
        _ => body,
    };
    let html =
        format!("<!DOCTYPE html><html><head><title></title></head><body>{body}</body></html>");
    copy_of(page, &text, &html, "#single")
}

/// A copy of `page` as `html`, whose blocks are all content and whose gold text is `gold`.
fn copy_of(page: &LabeledPage, gold: &str, html: &str, suffix: &str) -> Option<LabeledPage> {
    let analysis = crate::analyze(html.as_bytes(), SegmentLimits::default()).ok()?;
    if analysis.page.blocks.is_empty() {
        return None;
    }
    let tokens = ClassTokens::of_page(&analysis.page);
    let texts: Vec<String> = analysis.page.blocks.into_iter().map(|b| b.text).collect();
    Some(LabeledPage {
        id: format!("{}{suffix}", page.id),
        group: page.group.clone(),
        page_type: page.page_type.clone(),
        gold: Some(gold.to_string()),
        coverage: vec![1.0; texts.len()],
        labels: vec![true; texts.len()],
        texts,
        features: analysis.features,
        tokens,
    })
}

/// The text of the blocks labelled content, one block a line.
pub fn content_text<'a>(
    texts: impl IntoIterator<Item = &'a String>,
    keep: impl IntoIterator<Item = bool>,
) -> String {
    let mut out = String::new();
    for (t, k) in texts.into_iter().zip(keep) {
        if k {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(t);
        }
    }
    out
}

/// The site of a URL: its registrable domain, the public suffix and the label before it
/// (`blog.example.co.uk` and `www.example.co.uk` are `example.co.uk`), so that the pages of a
/// site's subdomains, which share its templates, fall in one fold; the host itself for an IP
/// address or a name under no public suffix (`localhost`). `None` without a host, or with
/// one that no address could have (spaces, punctuation), or for a text without a scheme whose
/// host has no dot (`N/A`, `-`: placeholders, which would put their pages in one group).
pub fn domain_of(url: &str) -> Option<String> {
    let url = url.trim();
    let (schemed, rest) = url
        .split_once("://")
        .map_or((false, url), |(_, r)| (true, r));
    let authority = rest.split(['/', '?', '#']).next()?.rsplit('@').next()?;
    let host = match authority.strip_prefix('[') {
        // An IPv6 address, whose colons are not a port's.
        Some(v6) => v6.split(']').next()?,
        None => authority.split(':').next()?,
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    // Not a host: a text that is not an address ("not a url at all").
    let foreign =
        |c: char| c.is_ascii() && !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    if host.parse::<std::net::IpAddr>().is_ok() {
        return Some(host);
    }
    let bare_name = !schemed && !host.contains('.') && host != "localhost";
    if host.is_empty() || host.contains(foreign) || bare_name {
        return None;
    }
    let site = psl::domain_str(&host).unwrap_or(&host);
    Some(site.strip_prefix("www.").unwrap_or(site).to_string())
}

/// A page with gold text, before segmentation.
struct GoldPage {
    id: String,
    group: String,
    page_type: Option<String>,
    html: HtmlSource,
    gold: String,
}

enum HtmlSource {
    File(PathBuf),
    Inline(String),
}

/// Pages read and labelled, and the pages that failed.
pub type Loaded = (Vec<LabeledPage>, Vec<PageFailure>);

/// An annotated page that could not be read or labelled.
#[derive(Debug)]
pub struct PageFailure {
    /// The page's id.
    pub id: String,
    /// Its HTML file, as resolved, when the page names one (`html_path`, a folder's page).
    pub path: Option<PathBuf>,
    /// Why.
    pub error: Error,
}

/// The lines of a file that hold more than whitespace, with their line numbers (from 1); a
/// gzip or zstd file is decompressed as it is read.
fn non_empty_lines(path: &Path) -> Result<Vec<(usize, String)>> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        error: source,
    };
    let mut lines = Vec::new();
    let mut reader = crate::input::open_unpacked(path)?;
    let mut buf = Vec::new();
    for n in 1.. {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| crate::input::stream_error(e, io))?;
        if read == 0 {
            break;
        }
        // As `BufRead::lines`, but a line that is not UTF-8 is named.
        if buf.ends_with(b"\n") {
            buf.pop();
            if buf.ends_with(b"\r") {
                buf.pop();
            }
        }
        let mut line = String::from_utf8(std::mem::take(&mut buf)).map_err(|e| {
            Error::Annotation(format!(
                "{}:{n}: not UTF-8 text (byte {} of the line), as JSON Lines must be",
                path.display(),
                e.utf8_error().valid_up_to() + 1
            ))
        })?;
        // A byte-order mark before a record, as some editors save one before the first,
        // and files put together with `cat` before the first of each.
        if line.starts_with('\u{feff}') {
            line.drain(..'\u{feff}'.len_utf8());
        }
        if !line.trim().is_empty() {
            lines.push((n, line));
        }
    }
    Ok(lines)
}

/// The error of line `n` of a JSON Lines file, which JSON read as a document of one line:
/// its column, not the parser's "line 1".
fn line_error(path: &Path, n: usize, e: &serde_json::Error) -> Error {
    let message = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    let what = message.strip_suffix(&at).unwrap_or(&message);
    let column = if e.column() > 0 {
        format!(" (column {})", e.column())
    } else {
        String::new()
    };
    Error::Annotation(format!("{}:{n}: {what}{column}", path.display()))
}

/// Read annotated pages from a path: a WCXB-style folder, a JSON Lines manifest, or block
/// records. Pages that cannot be read are returned as errors with their id, not dropped silently.
/// A block is labelled content when at least `min_aligned` of its words align with the gold
/// text ([`crate::train::LabelRecipe::min_aligned`]); `max_bytes` bounds each page, as
/// [`crate::input::DEFAULT_MAX_BYTES`] does for extraction. A `min_aligned` outside (0, 1]
/// is an [`Error::Config`].
pub fn load(path: &Path, min_aligned: f32, max_bytes: u64) -> Result<Loaded> {
    if !(min_aligned > 0.0 && min_aligned <= 1.0) {
        return Err(Error::Config(format!(
            "min_aligned must be in (0, 1], got {min_aligned}"
        )));
    }
    if path.is_dir() {
        let gold = read_wcxb(path)?
            .into_iter()
            .map(|p| GoldPage {
                id: p.id,
                group: p.group,
                page_type: p.page_type,
                html: HtmlSource::File(p.html),
                gold: p.gold,
            })
            .collect();
        return Ok(label_gold_pages(gold, min_aligned, max_bytes));
    }
    let lines = non_empty_lines(path)?;
    if let Some((n, l)) = lines.iter().find(|(_, l)| !l.trim_start().starts_with('{')) {
        // An HTML page or a plain text given for the data, most likely: said as such rather
        // than as the JSON parser's "expected value". A JSON array, or records written over
        // several lines, are JSON but not JSON Lines.
        let json = if l.trim_start().starts_with(['[', ']', '}', '"']) {
            format!(" ({})", crate::input::JSON_LINES_HINT)
        } else {
            String::new()
        };
        return Err(Error::Annotation(format!(
            "{}:{n}: not a JSON object{json}; annotated data is a WCXB-style folder, or a JSON \
             Lines file of pages with their gold text or of `textsift blocks` records",
            path.display()
        )));
    }
    // Block records have a `features` object of their own; a manifest's record may hold the
    // word anywhere else (an id, a gold text). One with a `source` and an `index`, which no
    // manifest has, is a block record too, its features lost (to a hand edit, say), and
    // refused as one.
    #[derive(serde::Deserialize)]
    struct Probe {
        features: Option<serde::de::IgnoredAny>,
        source: Option<serde::de::IgnoredAny>,
        index: Option<serde::de::IgnoredAny>,
    }
    let probe = lines
        .first()
        .and_then(|(_, l)| serde_json::from_str::<Probe>(l).ok());
    let is_blocks = probe
        .as_ref()
        .is_some_and(|p| p.features.is_some() || (p.source.is_some() && p.index.is_some()));
    // A `source` without blocks' fields: a page record of `textsift extract`, which no
    // manifest's key names, and which holds no labels.
    if probe.is_some_and(|p| p.source.is_some() && !is_blocks) {
        return Err(Error::Annotation(format!(
            "{}:{}: a page record of `textsift extract` (a `source`, no block `index`), which \
             holds no labels; annotated data is a WCXB-style folder, a JSON Lines file of \
             pages with their gold text (`id`, `html` or `html_path`, `text`), or \
             `textsift blocks` records with their labels",
            path.display(),
            lines[0].0
        )));
    }
    if is_blocks {
        Ok((read_block_records(path, &lines)?, Vec::new()))
    } else {
        let base = path.parent().unwrap_or(Path::new("."));
        let gold = read_manifest(path, base, &lines)?;
        Ok(label_gold_pages(gold, min_aligned, max_bytes))
    }
}

/// The page files that annotated data names by `html_path` (a manifest's, resolved against
/// its folder), so that a program can keep from writing over them; none for data of another
/// kind, and none past a line that cannot be read (the load says why).
pub fn pages_named(path: &Path) -> Vec<PathBuf> {
    #[derive(Deserialize)]
    struct Named {
        html_path: Option<String>,
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let Ok(stream) = crate::input::open_unpacked(path) else {
        return Vec::new();
    };
    stream
        .split(b'\n')
        .map_while(std::result::Result::ok)
        // Most lines of most files name no page: only those are parsed.
        .filter(|line| memchr::memmem::find(line, b"\"html_path\"").is_some())
        .filter_map(|line| serde_json::from_slice::<Named>(&line).ok()?.html_path)
        .map(|p| base.join(p))
        .collect()
}

/// A page of a WCXB-style folder.
#[derive(Debug, Clone)]
pub struct WcxbPage {
    /// File stem of the ground-truth file.
    pub id: String,
    /// The page's domain (from its `url`), or its id without one: the cross-validation group.
    pub group: String,
    /// `_internal.page_type.primary` ("category" read as "collection").
    pub page_type: Option<String>,
    /// Its HTML file (`html/ID.html.gz`, `.html.zst`, `.html` or `.htm`).
    pub html: PathBuf,
    /// `ground_truth.main_content` ("" when missing, as WCXB's `evaluate.py` scores it).
    pub gold: String,
}

/// The names a WCXB-style folder's page files end with, in the order they are looked for.
pub const PAGE_EXTENSIONS: [&str; 4] = [".html.gz", ".html.zst", ".html", ".htm"];

/// The ids of the page files in a WCXB-style folder's `html/` that have no ground truth (not
/// among `known`, the ids read), sorted: pages that training passes over.
pub fn pages_without_ground_truth(
    dir: &Path,
    known: &std::collections::HashSet<&str>,
) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join("html")) else {
        return Vec::new();
    };
    let mut alone: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let id = PAGE_EXTENSIONS
                .iter()
                .find_map(|ext| name.strip_suffix(ext))?;
            (!known.contains(id)).then(|| id.to_string())
        })
        .collect();
    alone.sort();
    alone
}

/// The pages of a WCXB-style folder (`DIR/ground-truth/ID.json`, `DIR/html/ID.html[.gz|.zst]`), in
/// id order, as training reads them.
pub fn read_wcxb(dir: &Path) -> Result<Vec<WcxbPage>> {
    let gt_dir = dir.join("ground-truth");
    let html_dir = dir.join("html");
    if !gt_dir.is_dir() {
        // Named plainly: "cannot read" of the folder given would hide which part is missing.
        // The benchmark's own folder holds its splits (`wcxb/dev`): name the one meant.
        let mut splits: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("ground-truth").is_dir())
            .map(|p| p.display().to_string())
            .collect();
        splits.sort();
        let hint = match splits.as_slice() {
            [] => String::new(),
            [one] => format!("; {one} is one"),
            some => format!("; {} are such folders", some.join(", ")),
        };
        return Err(Error::Annotation(format!(
            "{}: no ground-truth folder in it (annotated data is a WCXB-style folder, with \
             ground-truth/ID.json and html/ID.html.gz, or a JSON Lines file){hint}",
            dir.display()
        )));
    }
    let entries = std::fs::read_dir(&gt_dir).map_err(|source| Error::Io {
        path: gt_dir.clone(),
        error: source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::Annotation(format!(
            "{} has no .json ground-truth files",
            gt_dir.display()
        )));
    }
    #[derive(Deserialize)]
    struct Gt {
        #[serde(default)]
        url: String,
        #[serde(default)]
        _internal: Option<serde_json::Value>,
        // Read as a value: serde would take an array for the object (`["text"]`).
        #[serde(default)]
        ground_truth: Option<serde_json::Value>,
    }
    let mut pages = Vec::new();
    for f in files {
        let id = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&f).map_err(|source| Error::Io {
            path: f.clone(),
            error: source,
        })?;
        let gt: Gt = serde_json::from_str(&text)
            .map_err(|e| Error::Annotation(format!("{}: {e}", f.display())))?;
        // A missing gold text (or a missing or null `ground_truth`) is an empty one, as WCXB's
        // `evaluate.py` scores it; one of another type is refused rather than guessed at.
        let not = |what: &str| Error::Annotation(format!("{}: {what}", f.display()));
        let gold = match gt.ground_truth {
            None => String::new(),
            Some(serde_json::Value::Object(mut fields)) => match fields.remove("main_content") {
                None | Some(serde_json::Value::Null) => String::new(),
                Some(serde_json::Value::String(text)) => text,
                Some(_) => return Err(not("ground_truth.main_content is not a string")),
            },
            Some(_) => return Err(not("ground_truth is not an object")),
        };
        let page_type = gt
            ._internal
            .as_ref()
            .and_then(|i| i.get("page_type"))
            .and_then(|p| p.get("primary").or(Some(p)))
            .and_then(|p| p.as_str())
            .map(|p| if p == "category" { "collection" } else { p }.to_string());
        let html = PAGE_EXTENSIONS
            .iter()
            .map(|ext| html_dir.join(format!("{id}{ext}")))
            .find(|p| p.exists())
            .unwrap_or_else(|| html_dir.join(format!("{id}.html.gz")));
        pages.push(WcxbPage {
            group: domain_of(&gt.url).unwrap_or_else(|| id.clone()),
            id,
            page_type,
            html,
            gold,
        });
    }
    Ok(pages)
}

fn read_manifest(path: &Path, base: &Path, lines: &[(usize, String)]) -> Result<Vec<GoldPage>> {
    // A key misspelt (`site` for `group`, `page-type`) would be passed over without a word,
    // and grouping lost makes the cross-validation's scores too good.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Entry {
        id: Option<serde_json::Value>,
        html: Option<String>,
        html_path: Option<String>,
        text: String,
        url: Option<String>,
        group: Option<String>,
        page_type: Option<String>,
    }
    let mut pages = Vec::new();
    // Each id names one page in messages, reports and per-page scores.
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (n, line) in lines {
        let e: Entry = serde_json::from_str(line).map_err(|err| line_error(path, *n, &err))?;
        let id = match e.id {
            Some(serde_json::Value::String(s)) => s,
            Some(v) => v.to_string(),
            None => n.to_string(),
        };
        if let Some(first) = seen.insert(id.clone(), *n) {
            return Err(Error::Annotation(format!(
                "{}:{n}: id {id:?} is also the id of line {first}; each page needs an id of its own",
                path.display()
            )));
        }
        let html = match (e.html, e.html_path) {
            (Some(_), Some(_)) => {
                return Err(Error::Annotation(format!(
                    "{}:{n}: a page has `html` or `html_path`, not both",
                    path.display()
                )))
            }
            (Some(h), None) => HtmlSource::Inline(h),
            (None, Some(p)) => HtmlSource::File(base.join(p)),
            (None, None) => {
                return Err(Error::Annotation(format!(
                    "{}:{n}: a page needs `html` or `html_path`",
                    path.display()
                )))
            }
        };
        let group = e
            .group
            .or_else(|| e.url.as_deref().and_then(domain_of))
            .unwrap_or_else(|| id.clone());
        pages.push(GoldPage {
            id,
            group,
            page_type: e.page_type,
            html,
            gold: e.text,
        });
    }
    Ok(pages)
}

fn label_gold_pages(pages: Vec<GoldPage>, min_aligned: f32, max_bytes: u64) -> Loaded {
    let results: Vec<Result<LabeledPage, PageFailure>> = pages
        .into_par_iter()
        .map(|p| {
            let id = p.id.clone();
            let path = match &p.html {
                HtmlSource::File(f) => Some(f.clone()),
                HtmlSource::Inline(_) => None,
            };
            // A page that meets a bug is skipped as a bad page, not the end of training.
            crate::batch::isolate(|| Ok(label_gold_page(p, min_aligned, max_bytes)))
                .and_then(|labelled| labelled)
                .map_err(|error| PageFailure { id, path, error })
        })
        .collect();
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for r in results {
        match r {
            Ok(p) => ok.push(p),
            Err(e) => bad.push(e),
        }
    }
    (ok, bad)
}

/// Read, segment and label one page by its gold text.
fn label_gold_page(p: GoldPage, min_aligned: f32, max_bytes: u64) -> Result<LabeledPage> {
    let bytes = match &p.html {
        HtmlSource::File(f) => crate::input::read(Some(f), max_bytes),
        HtmlSource::Inline(h) => Ok(h.as_bytes().to_vec()),
    };
    let analysis = bytes.and_then(|b| crate::analyze(&b, SegmentLimits::default()))?;
    let tokens = ClassTokens::of_page(&analysis.page);
    let texts: Vec<String> = analysis.page.blocks.into_iter().map(|b| b.text).collect();
    let coverage = coverage(&texts, &p.gold);
    let labels = labels_from_coverage(&coverage, min_aligned);
    Ok(LabeledPage {
        coverage,
        id: p.id,
        group: p.group,
        page_type: p.page_type,
        gold: Some(p.gold),
        texts,
        features: analysis.features,
        tokens,
        labels,
    })
}

fn read_block_records(path: &Path, lines: &[(usize, String)]) -> Result<Vec<LabeledPage>> {
    let schema = crate::features::schema_id();
    let mut pages: Vec<LabeledPage> = Vec::new();
    // The WARC record of the page read last: a crawl may fetch one URI twice in a row, and
    // each fetch is a page of its own.
    let mut record = None;
    // The place of the page read last: two files may hold records of one id.
    let mut place = None;
    // The index of the block read last: a page's blocks come in order, so a block whose
    // index is not past it begins another page of the same source (one id given to two
    // records of a JSON Lines input, a URL fetched twice in a row).
    let mut last_index = None;
    for (n, line) in lines {
        let rec: BlockRecord = serde_json::from_str(line).map_err(|e| line_error(path, *n, &e))?;
        let again = last_index.is_some_and(|last| rec.index <= last);
        last_index = Some(rec.index);
        let Some(label) = rec.label else {
            return Err(Error::Annotation(format!(
                "{}:{n}: block {} of {} has no `label` (set it to \"content\" or \"boilerplate\")",
                path.display(),
                rec.index,
                rec.source
            )));
        };
        if rec.schema.as_deref() != Some(schema.as_str()) {
            // Under the same names, features of another schema may be defined otherwise: a
            // model trained on them would misread every page.
            return Err(Error::Annotation(format!(
                "{}:{n}: the features of block {} of {} were computed by another version of \
                 textsift (feature schema {}; this one computes {schema}): run this version's \
                 `textsift blocks --labels {}` on the pages again, which carries the labels over",
                path.display(),
                rec.index,
                rec.source,
                rec.schema.as_deref().unwrap_or("not named"),
                path.display(),
            )));
        }
        if pages.last().is_none_or(|p| p.id != rec.source)
            || record != rec.warc_record_id
            || place != rec.place
            || again
        {
            record.clone_from(&rec.warc_record_id);
            place.clone_from(&rec.place);
            // A page fetched from the web is grouped by its site, as gold-text pages are.
            let fetched_from = rec
                .url
                .as_deref()
                .or_else(|| rec.source.contains("://").then_some(rec.source.as_str()));
            let site = fetched_from.and_then(domain_of);
            pages.push(LabeledPage {
                group: rec
                    .group
                    .clone()
                    .or(site)
                    .unwrap_or_else(|| rec.source.clone()),
                id: rec.source.clone(),
                page_type: None,
                gold: None,
                texts: Vec::new(),
                features: FeatureMatrix::default(),
                tokens: ClassTokens::default(),
                labels: Vec::new(),
                coverage: Vec::new(),
            });
        }
        let page = pages.last_mut().expect("pushed above");
        debug_assert_eq!(rec.features.0.len(), N_FEATURES);
        page.texts.push(rec.text);
        page.features.data.extend_from_slice(&rec.features.0);
        page.tokens.push_values(&rec.classes);
        page.labels.push(label.is_content());
    }
    if pages.is_empty() {
        return Err(Error::Annotation(format!(
            "{} has no blocks",
            path.display()
        )));
    }
    // The labels define the main text: with it as gold text, cross-validation picks the
    // threshold and decoder by word F1, as for pages annotated with text.
    for p in &mut pages {
        p.gold = Some(content_text(&p.texts, p.labels.iter().copied()));
    }
    Ok(pages)
}

/// The labels of block records made earlier, to carry over to the blocks of the same pages
/// computed again (by a version of textsift with other feature definitions, whose records
/// training refuses). Only the source, WARC record, text and label of a record are read, so
/// that records of any schema serve.
#[derive(Debug, Default)]
pub struct EarlierLabels {
    /// Per page (source and WARC record id), its blocks' texts and labels in order.
    pages: std::collections::HashMap<PageKey, Vec<(String, Option<Label>)>>,
    /// Pages whose blocks the file holds twice or more (two runs put together, a copy of a
    /// page corrected and appended): the last copy's labels stand.
    pub repeated: usize,
}

/// A page of block records: its source and, for a page of a WARC file, its record id.
type PageKey = (String, Option<String>);

/// What [`EarlierLabels`] reads of a record. The other fields of a block record, whatever
/// their schema, are named too, so that a misspelt field (`lable`) or a record of another
/// kind (extract's) is refused rather than read as a block without a label.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelOnly {
    source: String,
    #[serde(default)]
    warc_record_id: Option<String>,
    index: usize,
    text: String,
    #[serde(default)]
    label: Option<Label>,
    // Not part of a page's key: a file's lines move as it is edited, and its pages keep
    // their labels by their `source`.
    #[serde(default, rename = "place")]
    _place: IgnoredAny,
    #[serde(default, rename = "warc_date")]
    _warc_date: IgnoredAny,
    #[serde(default, rename = "url")]
    _url: IgnoredAny,
    #[serde(default, rename = "group")]
    _group: IgnoredAny,
    #[serde(default, rename = "score")]
    _score: IgnoredAny,
    #[serde(default, rename = "tag")]
    _tag: IgnoredAny,
    #[serde(default, rename = "schema")]
    _schema: IgnoredAny,
    #[serde(default, rename = "features")]
    _features: IgnoredAny,
    #[serde(default, rename = "classes")]
    _classes: IgnoredAny,
}

impl EarlierLabels {
    /// Read the records of a `textsift blocks` file.
    pub fn load(path: &Path) -> Result<EarlierLabels> {
        // Per page, its blocks, the index of the block read last (a block whose index is not
        // past it starts another copy of the page, which replaces the one read before), and
        // whether the page came twice.
        type PageCopy = (Vec<(String, Option<Label>)>, usize, bool);
        let mut pages: std::collections::HashMap<PageKey, PageCopy> = Default::default();
        for (n, line) in non_empty_lines(path)? {
            let rec: LabelOnly =
                serde_json::from_str(&line).map_err(|e| line_error(path, n, &e))?;
            let (blocks, last, twice) = pages
                .entry((rec.source, rec.warc_record_id))
                .or_insert_with(|| (Vec::new(), rec.index, false));
            if !blocks.is_empty() && rec.index <= *last {
                blocks.clear();
                *twice = true;
            }
            *last = rec.index;
            blocks.push((rec.text, rec.label));
        }
        Ok(EarlierLabels {
            repeated: pages.values().filter(|(_, _, twice)| *twice).count(),
            pages: pages
                .into_iter()
                .map(|(key, (blocks, _, _))| (key, blocks))
                .collect(),
        })
    }

    /// The earlier label of each of a page's blocks, given their texts: each block takes the
    /// label of the first earlier block of the same page with the same text, after the one
    /// the block before it matched, so that blocks added or cut in between lose only their
    /// own labels. `None` for a block with no such earlier block; `None` for all when the
    /// earlier records do not hold the page: a page is found by its source as written then
    /// (the input as given, or a record's id) and its WARC record.
    pub fn carry<S: AsRef<str>>(
        &self,
        source: &str,
        warc_record_id: Option<&str>,
        texts: &[S],
    ) -> Option<Vec<Option<Label>>> {
        let key = (source.to_string(), warc_record_id.map(str::to_string));
        let earlier = self.pages.get(&key)?;
        // Where each text stands among the earlier blocks, so that a page of many changed
        // blocks costs no scan of the rest of the page per block.
        let mut at: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        for (i, (text, _)) in earlier.iter().enumerate() {
            at.entry(text.as_str()).or_default().push(i);
        }
        let mut next = 0;
        Some(
            texts
                .iter()
                .map(|t| {
                    let places = at.get(t.as_ref())?;
                    let &found = places.get(places.partition_point(|&i| i < next))?;
                    next = found + 1;
                    earlier[found].1
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wcxb_folder_and_the_folders_that_are_not_one() {
        let root = tempfile::tempdir().unwrap();
        let dev = root.path().join("dev");
        std::fs::create_dir_all(dev.join("ground-truth")).unwrap();
        std::fs::create_dir_all(dev.join("html")).unwrap();
        let gt = serde_json::json!({
            "url": "https://www.example.org/a/b",
            "_internal": {"page_type": {"primary": "category"}},
            "ground_truth": {"main_content": "Gold words"}
        });
        std::fs::write(dev.join("ground-truth/0001.json"), gt.to_string()).unwrap();
        std::fs::write(dev.join("html/0001.html"), "<p>Gold words</p>").unwrap();
        std::fs::write(dev.join("ground-truth/0002.json"), "{}").unwrap();
        let pages = read_wcxb(&dev).unwrap();
        let got: Vec<_> = pages
            .iter()
            .map(|p| {
                (
                    p.id.as_str(),
                    p.group.as_str(),
                    p.page_type.as_deref(),
                    p.gold.as_str(),
                )
            })
            .collect();
        // The domain groups a page (its id when it has no url); "category" reads "collection".
        assert_eq!(
            got,
            [
                ("0001", "example.org", Some("collection"), "Gold words"),
                ("0002", "0002", None, "")
            ]
        );
        assert_eq!(pages[0].html, dev.join("html/0001.html"));

        // The benchmark's own folder holds its splits: the error names the split meant.
        let err = read_wcxb(root.path()).unwrap_err().to_string();
        assert!(err.contains("no ground-truth folder"), "{err}");
        assert!(
            err.ends_with(&format!("; {} is one", dev.display())),
            "{err}"
        );
        let err = read_wcxb(&dev.join("html")).unwrap_err().to_string();
        assert!(err.ends_with("or a JSON Lines file)"), "{err}");
        // A gold text of another type is refused with its file, not read as something else.
        let gt_file = dev.join("ground-truth/0002.json");
        for (gt, says) in [
            (
                r#"{"ground_truth": ["Gold words"]}"#,
                "ground_truth is not an object",
            ),
            (
                r#"{"ground_truth": "Gold words"}"#,
                "ground_truth is not an object",
            ),
            (
                r#"{"ground_truth": {"main_content": 123}}"#,
                "ground_truth.main_content is not a string",
            ),
        ] {
            std::fs::write(&gt_file, gt).unwrap();
            let err = read_wcxb(&dev).unwrap_err().to_string();
            assert_eq!(
                err,
                format!("bad annotation: {}: {says}", gt_file.display())
            );
        }
        std::fs::remove_file(dev.join("ground-truth/0001.json")).unwrap();
        std::fs::remove_file(dev.join("ground-truth/0002.json")).unwrap();
        let err = read_wcxb(&dev).unwrap_err().to_string();
        assert!(err.contains("has no .json ground-truth files"), "{err}");
    }

    #[test]
    fn manifests_block_records_and_zstd_pages_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pages.jsonl");
        let load_lines = |lines: &str| {
            std::fs::write(&path, lines).unwrap();
            load(&path, 0.5, 1 << 20)
        };
        // A page whose id and gold text say "features" is a page, not a block record.
        let page = r#"{"id": "features", "html": "<p>Our features</p>", "text": "\"features\""}"#;
        let (pages, _) = load_lines(page).unwrap();
        assert_eq!((pages.len(), pages[0].id.as_str()), (1, "features"));
        // A block record whose features were taken out is refused as a block record.
        let bare =
            r#"{"source": "a.html", "index": 0, "label": "content", "tag": "p", "text": "x"}"#;
        let err = load_lines(bare).unwrap_err().to_string();
        assert!(err.contains("missing field `features`"), "{err}");
        // A page given both ways is refused, not read one way.
        std::fs::write(dir.path().join("a.html"), "<p>Text</p>").unwrap();
        let both = r#"{"id": "a", "html": "<p>Text</p>", "html_path": "a.html", "text": "Text"}"#;
        let err = load_lines(both).unwrap_err().to_string();
        assert!(err.ends_with("pages.jsonl:1: a page has `html` or `html_path`, not both"));
        // A line's error gives its column, not the parser's line of a one-line document.
        let bogus = r#"{"id": "b", "html": "<p>x</p>", "text": "x", "bogus": 1}"#;
        let err = load_lines(&format!("{page}\n{bogus}\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("pages.jsonl:2: unknown field `bogus`"),
            "{err}"
        );
        assert!(
            err.ends_with("(column 52)") && !err.contains("at line"),
            "{err}"
        );
        // A WCXB-style folder's page may be kept as zstd.
        let dev = dir.path().join("dev");
        std::fs::create_dir_all(dev.join("ground-truth")).unwrap();
        std::fs::create_dir_all(dev.join("html")).unwrap();
        let gt = serde_json::json!({"ground_truth": {"main_content": "Gold words"}});
        std::fs::write(dev.join("ground-truth/0001.json"), gt.to_string()).unwrap();
        let zst = zstd::encode_all(&b"<p>Gold words</p><p>Menu</p>"[..], 3).unwrap();
        std::fs::write(dev.join("html/0001.html.zst"), zst).unwrap();
        let (pages, _) = load(&dev, 0.5, 1 << 20).unwrap();
        assert_eq!(pages[0].texts, ["Gold words", "Menu"]);
        assert_eq!(pages[0].labels, [true, false]);
    }

    #[test]
    fn earlier_labels_follow_the_texts_in_order() {
        let mut earlier = EarlierLabels::default();
        let (c, b) = (Some(Label::Content), Some(Label::Boilerplate));
        earlier.pages.insert(
            ("a.html".into(), None),
            vec![
                ("Menu".into(), b),
                ("Same".into(), c),
                ("Gone".into(), b),
                ("Same".into(), b),
                ("Last".into(), None),
            ],
        );
        // A block added ("New"), one cut ("Gone"); the two "Same" blocks keep their own
        // labels, in order; an earlier block without a label gives none.
        assert_eq!(
            earlier.carry("a.html", None, &["Menu", "Same", "New", "Same", "Last"]),
            Some(vec![b, c, None, b, None])
        );
        // Another page, or the same URI in another WARC record, is not found.
        assert_eq!(earlier.carry("b.html", None, &["Menu"]), None);
        assert_eq!(
            earlier.carry("a.html", Some("<urn:uuid:1>"), &["Menu"]),
            None
        );
    }

    #[test]
    fn a_byte_order_mark_before_a_record_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pages.jsonl");
        let record = r#"{"id": "p1", "html": "<p>Text</p>", "text": "Text"}"#;
        // Two files put together, each saved with a byte-order mark.
        std::fs::write(
            &path,
            format!("\u{feff}{record}\r\n\n{record}\n\u{feff}{record}\n"),
        )
        .unwrap();
        let lines = non_empty_lines(&path).unwrap();
        assert_eq!(
            lines,
            [
                (1, record.to_string()),
                (3, record.to_string()),
                (4, record.to_string())
            ]
        );
    }

    #[test]
    fn domains() {
        assert_eq!(
            domain_of("https://www.Example.com:8080/a?b").as_deref(),
            Some("example.com")
        );
        // A site's subdomains are the site, under any public suffix.
        for (url, site) in [
            ("http://user@news.site.org#x", "site.org"),
            ("https://blog.example.co.uk/post", "example.co.uk"),
            ("https://uk.shop.example.com.", "example.com"),
            // Sites of their own under a suffix that hosts them.
            ("https://alice.github.io/notes", "alice.github.io"),
            ("http://localhost:8000/a", "localhost"),
            ("http://192.168.1.10/x", "192.168.1.10"),
            ("http://[2001:db8::1]:8080/x", "2001:db8::1"),
        ] {
            assert_eq!(domain_of(url).as_deref(), Some(site), "{url}");
        }
        // Texts that are no address.
        for text in [
            "",
            "not a url at all",
            "see <here>",
            "https://",
            "a|b",
            "N/A",
            "-",
            "none",
        ] {
            assert_eq!(domain_of(text), None, "{text}");
        }
        assert_eq!(domain_of("example.com/a").as_deref(), Some("example.com"));
        assert_eq!(domain_of(" https://a.com ").as_deref(), Some("a.com"));
        assert_eq!(domain_of("http://intranet/a").as_deref(), Some("intranet"));
    }

    #[test]
    fn gold_text_labels_blocks() {
        let texts: Vec<String> = [
            "Home News Sport",
            "The council approved the new budget on Monday.",
            "It funds three schools and a library.",
            "Share this article",
            "Copyright the news",
        ]
        .map(String::from)
        .to_vec();
        let gold = "The council approved the new budget on Monday.\n\nIt funds three schools and a library.";
        assert_eq!(
            labels_from_gold(&texts, gold, 0.5),
            [false, true, true, false, false]
        );
        assert_eq!(
            content_text(&texts, [false, true, true, false, false]),
            "The council approved the new budget on Monday.\nIt funds three schools and a library."
        );
    }

    #[test]
    fn a_clean_copy_is_its_gold_text_all_content() {
        let page = LabeledPage {
            id: "p1".into(),
            group: "example.com".into(),
            page_type: Some("article".into()),
            gold: Some(
                "A heading\n\nFirst paragraph, with <b> & \"quotes\".\n  \nLast one.".into(),
            ),
            texts: vec!["Menu".into()],
            features: FeatureMatrix::default(),
            tokens: ClassTokens::default(),
            labels: vec![false],
            coverage: vec![0.0],
        };
        let copy = clean_copy(&page).unwrap();
        assert_eq!(copy.id, "p1#clean");
        assert_eq!(copy.group, "example.com");
        assert_eq!(
            copy.texts,
            [
                "A heading",
                "First paragraph, with <b> & \"quotes\".",
                "Last one."
            ]
        );
        assert_eq!(copy.labels, [true, true, true]);
        assert_eq!(copy.features.rows(), 3);
        let empty = LabeledPage {
            gold: Some(" \n".into()),
            ..page
        };
        assert!(clean_copy(&empty).is_none());
    }

    #[test]
    fn a_single_block_copy_is_the_opening_in_one_element() {
        let words = |n: usize, w: &str| vec![w; n].join(" ");
        let gold = format!(
            "Title\n\n{}\n{}\n{}",
            words(60, "one"),
            words(50, "two"),
            "three"
        );
        let page = LabeledPage {
            id: "p2".into(),
            group: "example.com".into(),
            page_type: None,
            gold: Some(gold),
            texts: vec![],
            features: FeatureMatrix::default(),
            tokens: ClassTokens::default(),
            labels: vec![],
            coverage: vec![],
        };
        // Lines are taken until 100 words: the third line is left out.
        let opening = format!("Title {} {}", words(60, "one"), words(50, "two"));
        for variant in 0..4 {
            let copy = single_block_copy(&page, variant).unwrap();
            assert_eq!(copy.id, "p2#single");
            assert_eq!(copy.texts, [opening.as_str()], "variant {variant}");
            assert_eq!(copy.labels, [true]);
            assert_eq!(copy.gold.as_deref(), Some(opening.as_str()));
        }
        // Each variant is its own element: the block's tag context differs.
        let rows: Vec<Vec<f32>> = (0..4)
            .map(|v| single_block_copy(&page, v).unwrap().features.data)
            .collect();
        for i in 0..4 {
            for j in i + 1..4 {
                assert_ne!(rows[i], rows[j], "variants {i} and {j}");
            }
        }
    }
}
