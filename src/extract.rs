//! The main job: bytes of a page in, title, main text and labelled blocks out.
//!
//! ```
//! let extractor = textsift::Extractor::new()?;
//! let page = b"<title>Hi</title><nav><a href=/>Home</a></nav>\
//!              <article><p>The main text of the page, long enough to be kept.</p></article>";
//! let extraction = extractor.extract(page)?;
//! assert_eq!(extraction.title, "Hi");
//! assert!(extraction.blocks.iter().all(|b| b.score >= 0.0 && b.score <= 1.0));
//! # Ok::<(), textsift::Error>(())
//! ```

use crate::blocks::{CellMark, Link, SegmentLimits};
use crate::decode::{Decoding, Favor};
use crate::error::{Error, Result};
use crate::features::FeatureMatrix;
use crate::model::Model;
use crate::output::Label;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Limits on one page, so that a hostile or broken page costs bounded memory and time.
///
/// The defaults let every page of the WCXB development set through with a wide margin. A page
/// over `max_bytes` or `segment.max_nodes` is refused with [`Error::TooLarge`], whose message
/// names the limit and the command-line flag that raises it (`--max-bytes`, `--max-nodes`); a
/// page with more than `segment.max_blocks` blocks is cut after that many.
///
/// ```
/// use textsift::extract::Limits;
/// let small = Limits { max_bytes: 1000, ..Limits::default() };
/// let extractor = textsift::Extractor::new()?.limits(small)?;
/// let err = extractor.extract(&vec![b'a'; 2000]).unwrap_err();
/// assert!(matches!(err, textsift::Error::TooLarge(_)));
/// assert!(err.to_string().contains("--max-bytes"));
/// # Ok::<(), textsift::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest page accepted, in bytes, before and after decompression: gzip and zstd data are
    /// unpacked only up to this many bytes (default [`crate::input::DEFAULT_MAX_BYTES`], 32 MiB).
    pub max_bytes: u64,
    /// DOM node and block limits.
    pub segment: SegmentLimits,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: crate::input::DEFAULT_MAX_BYTES,
            segment: SegmentLimits::default(),
        }
    }
}

/// One block of an extraction (a `blocks` entry of `extract --format json`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ExtractedBlock {
    /// Position in the page.
    pub index: usize,
    /// The text: whitespace collapsed, but for text inside `<pre>`, which keeps its line
    /// breaks and indentation.
    pub text: String,
    /// For text inside `<pre>`, which `text` shows laid out (Markdown shows it as code): the
    /// text with whitespace collapsed, as the features and the model read it. `None` when
    /// `text` is that already.
    #[serde(skip)]
    pub collapsed: Option<String>,
    /// Tag of the nearest block-level element.
    pub tag: String,
    /// The decoder's decision.
    pub label: Label,
    /// The model's content score, 0 to 1.
    pub score: f32,
    /// When the decoder dropped the block as a repeat ([`crate::Decoding::drop_repeats`]),
    /// whatever its score: the kept block above whose words it repeats, by index.
    #[serde(skip)]
    pub repeat_of: Option<usize>,
    /// What the block is in the page's structure: a list item, a table cell, or text.
    #[serde(skip)]
    pub role: crate::blocks::Role,
    /// The quote the block is in: the element index of the nearest `<blockquote>` around it
    /// ([`crate::Page::quote_of`]), which tells one quote's paragraphs from the next quote's.
    #[serde(skip)]
    pub quote: Option<u32>,
    /// The links of `text` with their targets, when the extractor keeps them
    /// ([`SegmentLimits::links`]), resolved against the page's base URL when it has one
    /// ([`Extractor::extract_fetched`]); none where `text` is laid out (inside `<pre>`), whose
    /// spans are those of the collapsed text.
    #[serde(skip)]
    pub links: Vec<Link>,
}

impl ExtractedBlock {
    /// The text on one line, whitespace collapsed, as the features and the model read it.
    pub fn collapsed_text(&self) -> &str {
        self.collapsed.as_deref().unwrap_or(&self.text)
    }

    /// The level of the heading the block is (`h1` to `h6`), if it is one.
    pub fn heading_level(&self) -> Option<u8> {
        match self.tag.as_bytes() {
            [b'h', d @ b'1'..=b'6'] => Some(d - b'0'),
            _ => None,
        }
    }
}

/// The result of extracting one page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extraction {
    /// The page's headline ([`Page::headline`](crate::Page::headline)): the `<h1>` that its
    /// `<title>` or `og:title` confirms, or else one of those without the site's name.
    pub title: String,
    /// The first block of the `<h1>` whose text the title is, when it is one's
    /// ([`Page::headline_and_h1`](crate::Page::headline_and_h1)): where the page says its title.
    pub headline_block: Option<usize>,
    /// The main content: kept blocks, one paragraph each, separated by blank lines, but list
    /// items on lines of their own after `- `, a line after a single `<br>` below the line
    /// above it, and a simple table's rows on lines of their own
    /// (cells separated by tabs); text inside `<pre>` (code) keeps its line breaks and
    /// indentation, as in WCXB's gold texts ([`crate::output::plain_text`]).
    pub text: String,
    /// Every block, with its label and score.
    pub blocks: Vec<ExtractedBlock>,
    /// Cells of simple tables whose whole text has no letter or digit (`✓`, `—`), which make
    /// no block and which no model scores: the text and Markdown write them in the rows of
    /// a table laid out as one that keep other cells.
    pub marks: Vec<CellMark>,
    /// The features of every block (for the debug view).
    pub features: FeatureMatrix,
    /// Text of the page was dropped unread, so the text may lack the end of the content: the
    /// blocks past the limit ([`crate::SegmentLimits::max_blocks`]), or the rest of a page
    /// whose markup made the parser's work run past its bound ([`crate::blocks::MAX_NESTING`]).
    pub truncated: bool,
    /// The character encoding the page was read in (`UTF-8`, `windows-1252`…), as
    /// [`crate::html::decode_declared`] chose it.
    pub encoding: &'static str,
}

/// Extracts main content with a model and a decoder. Cheap to clone and share across threads.
#[derive(Debug, Clone)]
pub struct Extractor {
    model: Arc<Model>,
    decoding: Decoding,
    favor: Favor,
    limits: Limits,
}

impl Extractor {
    /// An extractor with the model shipped in the binary and its cross-validated decoder.
    ///
    /// The model is read from the binary once per process and shared: a program that builds
    /// an extractor for every page pays for reading it once (reading takes several times as
    /// long as extracting a short page).
    pub fn new() -> Result<Extractor> {
        static EMBEDDED: OnceLock<Arc<Model>> = OnceLock::new();
        let model = match EMBEDDED.get() {
            Some(model) => model,
            // A model that cannot be read is not kept: each call reports it.
            None => {
                let model = Arc::new(Model::embedded()?);
                EMBEDDED.get_or_init(|| model)
            }
        };
        Ok(Extractor::with_shared(Arc::clone(model)))
    }

    /// An extractor with the model in a file, such as one `textsift train` wrote; its errors
    /// are [`Model::load`]'s.
    ///
    /// ```no_run
    /// let ex = textsift::Extractor::from_model_file("my.tsm")?;
    /// let e = ex.extract(b"<article><p>Some text.</p></article>")?;
    /// # Ok::<(), textsift::Error>(())
    /// ```
    pub fn from_model_file(path: impl AsRef<Path>) -> Result<Extractor> {
        Ok(Extractor::with_model(Model::load(path)?))
    }

    /// An extractor with a model already loaded.
    pub fn with_model(model: Model) -> Extractor {
        Extractor::with_shared(Arc::new(model))
    }

    /// An extractor of a shared model, with its decoder and the default limits.
    fn with_shared(model: Arc<Model>) -> Extractor {
        Extractor {
            decoding: model.default_decoding(),
            model,
            favor: Favor::Balance,
            limits: Limits::default(),
        }
    }

    /// Use another decoding; refused ([`Error::Config`]) when its settings are out of range,
    /// or when it cannot favour precision or recall as asked ([`Extractor::favor`]).
    ///
    /// ```
    /// use textsift::{Decoder, Decoding, Extractor};
    /// let ex = Extractor::new()?;
    /// // Every block scored 0.6 or more, the model's other settings as they are.
    /// let decoding = Decoding {
    ///     decoder: Decoder::Threshold { threshold: 0.6 },
    ///     ..ex.current_decoding()
    /// };
    /// let ex = ex.decoding(decoding)?;
    /// let bad = Decoding {
    ///     decoder: Decoder::Threshold { threshold: 1.5 },
    ///     ..decoding
    /// };
    /// assert!(ex.clone().decoding(bad).is_err());
    /// # Ok::<(), textsift::Error>(())
    /// ```
    pub fn decoding(mut self, decoding: Decoding) -> Result<Extractor> {
        decoding.decoder.validate()?;
        self.decoding = decoding;
        let favor = self.favor;
        self.favor(favor)
    }

    /// Weigh precision or recall more when choosing the blocks kept: the expected-F1 cut (the
    /// shipped model's decoder) then maximises F_0.5 or F_2 instead of F1. Refused with
    /// another decoder, whose threshold is what to move instead.
    pub fn favor(mut self, favor: Favor) -> Result<Extractor> {
        favor.check(&self.decoding.decoder)?;
        self.favor = favor;
        Ok(self)
    }

    /// Use other limits; refused when a limit is zero. Links kept by [`Extractor::links`]
    /// stay kept, whatever the order of the two settings (`limits.segment.links` can only
    /// turn them on; `links(false)` turns them off).
    pub fn limits(mut self, limits: Limits) -> Result<Extractor> {
        limits.segment.check()?;
        if limits.max_bytes == 0 {
            return Err(Error::Config(
                "the limit max_bytes must be above zero".into(),
            ));
        }
        let links = self.limits.segment.links || limits.segment.links;
        self.limits = limits;
        self.limits.segment.links = links;
        Ok(self)
    }

    /// Keep where links point ([`SegmentLimits::links`]), so that
    /// [`crate::output::to_markdown`] writes them as `[text](target)`.
    pub fn links(mut self, keep: bool) -> Extractor {
        self.limits.segment.links = keep;
        self
    }

    /// The model in use.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The decoding in use.
    pub fn current_decoding(&self) -> Decoding {
        self.decoding
    }

    /// What the decoding favours.
    pub fn current_favor(&self) -> Favor {
        self.favor
    }

    /// The limits in use.
    pub fn current_limits(&self) -> Limits {
        self.limits
    }

    /// Extract one page from its raw bytes (any encoding; gzip and zstd are unpacked): a
    /// `&[u8]`, a `Vec<u8>` or a `&str`.
    ///
    /// # Errors
    /// [`Error::Empty`] for no bytes or only whitespace, [`Error::NotHtml`] for an image, a
    /// PDF, a feed or other binary data, [`Error::Gzip`] or [`Error::Zstd`] for a compressed
    /// stream that is corrupt or cut short, [`Error::TooLarge`] past the extractor's
    /// [`Limits`], and [`Error::Internal`] for a bug met on this page. A page cut by a limit
    /// on blocks, or by the parser's bound on its work, is an [`Extraction`] marked
    /// [`truncated`](Extraction::truncated).
    pub fn extract(&self, bytes: impl AsRef<[u8]>) -> Result<Extraction> {
        self.run(bytes.as_ref(), None, None, false).map(|(e, _)| e)
    }

    /// [`Extractor::extract`] a page whose charset was declared outside it: a label
    /// (`"koi8-r"`) or an HTTP `Content-Type` value (`"text/html; charset=koi8-r"`). It wins
    /// over the page's own `<meta>` declaration, as in a browser, but not over bytes that say
    /// otherwise (a byte-order mark, UTF-8 declared for text that is not, or the reverse:
    /// [`crate::html::decode_declared`]).
    pub fn extract_declared(
        &self,
        bytes: impl AsRef<[u8]>,
        charset: Option<&str>,
    ) -> Result<Extraction> {
        self.run(bytes.as_ref(), charset, None, false)
            .map(|(e, _)| e)
    }

    /// [`Extractor::extract_declared`] for a page fetched from `url`: with
    /// [`Extractor::links`], its relative links are resolved against the page's `<base href>`
    /// (itself resolved against `url`) or else against `url`, when that is an `http` or
    /// `https` URL. Links that do not resolve, and every link of a page without such a base,
    /// stay as the page gives them.
    pub fn extract_fetched(
        &self,
        bytes: impl AsRef<[u8]>,
        charset: Option<&str>,
        url: Option<&str>,
    ) -> Result<Extraction> {
        self.run(bytes.as_ref(), charset, url, false)
            .map(|(e, _)| e)
    }

    /// [`Extractor::extract_declared`], also giving the class/id values around every block,
    /// nearest first ([`crate::classes::class_values`]), as `textsift blocks` records carry them.
    pub fn extract_with_classes(
        &self,
        bytes: &[u8],
        charset: Option<&str>,
    ) -> Result<(Extraction, Vec<Vec<String>>)> {
        self.run(bytes, charset, None, true)
    }

    /// One page; a panic in it (a bug) is its error, not the caller's
    /// ([`crate::batch::isolate`]).
    fn run(
        &self,
        bytes: &[u8],
        charset: Option<&str>,
        url: Option<&str>,
        with_classes: bool,
    ) -> Result<(Extraction, Vec<Vec<String>>)> {
        crate::batch::isolate(|| self.run_page(bytes, charset, url, with_classes))
    }

    fn run_page(
        &self,
        bytes: &[u8],
        charset: Option<&str>,
        url: Option<&str>,
        with_classes: bool,
    ) -> Result<(Extraction, Vec<Vec<String>>)> {
        if bytes.len() as u64 > self.limits.max_bytes {
            return Err(crate::input::too_many_bytes(self.limits.max_bytes, ""));
        }
        let unpacked;
        let bytes = if crate::input::is_compressed(bytes) {
            unpacked = crate::input::decompress(bytes.to_vec(), self.limits.max_bytes)?;
            &unpacked[..]
        } else {
            bytes
        };
        let mut analysis = crate::analyze_declared(bytes, charset, self.limits.segment)?;
        self.model
            .fill_classes_of_page(&mut analysis.features, &analysis.page);
        let texts: Vec<&str> = analysis
            .page
            .blocks
            .iter()
            .map(|b| b.text.as_str())
            .collect();
        let scores = self.model.scores(&analysis.features, &texts)?;
        let (words, headings) = crate::features::words_and_headings(&analysis.features);
        let (keep, repeat_of) = self
            .decoding
            .decode_traced(self.favor, &scores, &words, &headings, &texts);
        let page = analysis.page;
        let classes = if with_classes {
            page.blocks
                .iter()
                .map(|b| crate::classes::class_values(&page, b))
                .collect()
        } else {
            Vec::new()
        };
        let base = if self.limits.segment.links {
            base_url(url, page.base.as_deref())
        } else {
            None
        };
        let (roles, marks) = page.structure();
        let blocks: Vec<ExtractedBlock> = page
            .blocks
            .iter()
            .zip(scores.iter().zip(&keep).zip(repeat_of))
            .zip(roles)
            .map(|((b, ((&score, &k), repeat_of)), role)| ExtractedBlock {
                index: b.index,
                text: b.preformatted.as_ref().unwrap_or(&b.text).clone(),
                collapsed: b.preformatted.as_ref().map(|_| b.text.clone()),
                tag: page.tag_of(b).to_string(),
                label: Label::from_bool(k),
                score,
                repeat_of,
                role,
                // Only a block that the features say is quoted has a quote to look for.
                quote: (analysis
                    .features
                    .get(b.index, crate::features::F::InBlockquote)
                    > 0.5)
                    .then(|| page.quote_of(b))
                    .flatten(),
                links: match (&b.preformatted, &base) {
                    (Some(_), _) => Vec::new(),
                    (None, None) => b.links.clone(),
                    (None, Some(base)) => b.links.iter().map(|l| resolved(l, base)).collect(),
                },
            })
            .collect();
        let text = crate::output::plain_text(&blocks, &marks);
        let (title, h1) = page.headline_and_h1();
        let extraction = Extraction {
            title,
            headline_block: h1.and_then(|h1| page.blocks.iter().position(|b| b.element == h1)),
            text,
            blocks,
            marks,
            features: analysis.features,
            truncated: page.truncated,
            encoding: analysis.encoding,
        };
        Ok((extraction, classes))
    }
}

/// What a page's relative links resolve against: its `<base href>` (resolved against the
/// page's own URL when relative) or else its URL; `None` unless that is an `http` or `https`
/// URL, as a page's links lead a reader nowhere from anything else.
fn base_url(url: Option<&str>, base_href: Option<&str>) -> Option<url::Url> {
    let page = url.and_then(|u| url::Url::parse(u.trim()).ok());
    let base = match base_href {
        Some(href) => match &page {
            Some(page) => page.join(href).ok(),
            None => url::Url::parse(href.trim()).ok(),
        },
        None => None,
    };
    base.or(page)
        .filter(|u| matches!(u.scheme(), "http" | "https"))
}

/// A link with its target resolved against `base`; as it was when it does not resolve.
fn resolved(link: &Link, base: &url::Url) -> Link {
    match base.join(&link.target) {
        Ok(target) => Link {
            span: link.span,
            target: target.as_str().into(),
        },
        Err(_) => link.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Decoder;

    #[test]
    fn links_resolve_against_the_base_or_the_pages_url() {
        let base = |url, href| base_url(url, href).map(String::from);
        let page = Some("https://a.example/x/y.html?q=1");
        assert_eq!(
            base(page, None).as_deref(),
            Some("https://a.example/x/y.html?q=1")
        );
        assert_eq!(
            base(page, Some("../z/")).as_deref(),
            Some("https://a.example/z/")
        );
        assert_eq!(
            base(None, Some(" https://b.example/m/ ")).as_deref(),
            Some("https://b.example/m/")
        );
        // A relative base without the page's URL, and schemes that lead a reader nowhere.
        assert_eq!(base(None, Some("/m/")), None);
        assert_eq!(base(Some("file:///home/me/page.html"), None), None);
        assert_eq!(base(page, Some("ftp://b.example/")), None);
        assert_eq!(base(Some("not a url"), None), None);
        let link = |target: &str| Link {
            span: (3, 9),
            target: target.into(),
        };
        let b = base_url(page, None).unwrap();
        for (target, expected) in [
            ("photos/a b.html", "https://a.example/x/photos/a%20b.html"),
            ("/c", "https://a.example/c"),
            ("//cdn.example/d", "https://cdn.example/d"),
            ("?page=2", "https://a.example/x/y.html?page=2"),
            ("mailto:me@a.example", "mailto:me@a.example"),
            // What does not resolve stays as the page gives it.
            ("http://[bad", "http://[bad"),
        ] {
            let r = resolved(&link(target), &b);
            assert_eq!((&*r.target, r.span), (expected, (3, 9)), "{target}");
        }
    }

    #[test]
    fn extractors_of_the_embedded_model_share_it_and_keep_their_own_settings() {
        let a = Extractor::new().unwrap();
        let flipped = !a.decoding.attach_headings;
        let b = Extractor::new()
            .unwrap()
            .decoding(Decoding {
                attach_headings: flipped,
                ..a.decoding
            })
            .unwrap();
        assert!(Arc::ptr_eq(&a.model, &b.model));
        assert_eq!(b.decoding.attach_headings, flipped);
    }

    #[test]
    fn favouring_precision_or_recall_needs_the_expected_f1_cut() {
        let ex = Extractor::new().unwrap();
        assert!(matches!(ex.decoding.decoder, Decoder::ExpectedF1 { .. }));
        let precise = ex.clone().favor(Favor::Precision).unwrap();
        assert_eq!(precise.current_favor(), Favor::Precision);
        let threshold = Decoding {
            decoder: Decoder::Threshold { threshold: 0.5 },
            ..ex.decoding
        };
        // Refused whichever is set first; balance goes with any decoder.
        let e = precise.decoding(threshold).unwrap_err().to_string();
        assert!(
            e.contains("needs the expected_f1 decoder, not threshold"),
            "{e}"
        );
        let plain = ex.decoding(threshold).unwrap();
        assert!(plain.clone().favor(Favor::Recall).is_err());
        assert!(plain.favor(Favor::Balance).is_ok());
    }

    #[test]
    fn an_extractor_keeps_links_when_asked() {
        let page = b"<article><p>See <a href=/x>the x page</a> for more.</p>\
                     <pre>code\n  <a href=/y>y</a></pre></article>";
        let links = |e: &Extraction| -> Vec<(String, String)> {
            e.blocks
                .iter()
                .flat_map(|b| {
                    b.links.iter().map(|l| {
                        let span = &b.text[l.span.0 as usize..l.span.1 as usize];
                        (span.to_string(), l.target.to_string())
                    })
                })
                .collect()
        };
        let plain = Extractor::new().unwrap().extract(page).unwrap();
        assert!(links(&plain).is_empty());
        let linked = Extractor::new().unwrap().links(true).extract(page).unwrap();
        // Whatever the order of the settings: limits set later leave the links kept.
        let later = Extractor::new()
            .unwrap()
            .links(true)
            .limits(Limits::default());
        assert_eq!(
            links(&later.unwrap().extract(page).unwrap()),
            links(&linked)
        );
        let off = Extractor::new().unwrap().links(true).links(false);
        assert!(links(&off.extract(page).unwrap()).is_empty());
        // Laid-out text inside `<pre>` keeps none: its spans are those of the collapsed text.
        assert_eq!(
            links(&linked),
            [("the x page".to_string(), "/x".to_string())]
        );
        assert_eq!(linked.text, plain.text);
    }
}
