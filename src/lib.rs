//! textsift finds the main content of web pages.
//!
//! A page is cut into atomic text blocks ([`blocks`]), each block gets shallow text and structure
//! features ([`features`]), and a model trained offline labels every block content or boilerplate.
//!
//! The stages, each in its own module: [`input`] (files, gzip, zstd) → [`html`] (bytes to text) →
//! [`blocks`] (segmentation) → [`features`] → [`model`] (scores; its kinds in [`boost`],
//! [`forest`] and [`context`]) → [`decode`] (labels) → [`output`]. Beside them: [`annotate`]
//! (annotations to block labels), [`train`], [`eval`], [`extract`] (the [`Extractor`]) and
//! [`batch`] (ordered parallel runs).
//!
//! ```
//! let extractor = textsift::Extractor::new()?; // the embedded model; or Extractor::from_model_file("my.tsm")
//! let page = b"<title>Hi</title><nav><a href=/>Home</a> <a href=/news>News</a></nav>\
//!              <article><p>The main text of the page: a few sentences of prose. \
//!              A menu and a footer are around it.</p></article><footer>&copy; 2026 Example</footer>";
//! let extraction = extractor.extract(page)?;
//! assert_eq!(extraction.title, "Hi");
//! assert_eq!(
//!     extraction.text,
//!     "The main text of the page: a few sentences of prose. A menu and a footer are around it."
//! );
//! for block in &extraction.blocks {
//!     println!("{:?} {:.2} {}", block.label, block.score, block.text);
//! }
//! # Ok::<(), textsift::Error>(())
//! ```

// Every public item is documented; CI's clippy `-D warnings` keeps it so.
#![warn(missing_docs)]

pub mod align;
pub mod annotate;
pub mod batch;
pub mod blocks;
pub mod boost;
pub mod classes;
pub mod context;
pub mod decode;
pub mod error;
pub mod eval;
pub mod extract;
pub mod features;
pub mod forest;
pub mod html;
pub mod input;
pub mod model;
pub mod output;
pub mod serial;
pub mod train;

pub use blocks::{Block, Page, SegmentLimits};
pub use decode::{Decoder, Decoding, Favor};
pub use error::{Error, Result};
pub use extract::{ExtractedBlock, Extraction, Extractor, Limits};
pub use features::FeatureMatrix;
pub use model::Model;
pub use output::Label;

/// A page cut into blocks, with the features of every block.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Title and blocks.
    pub page: Page,
    /// One row of features per block (the `class_lex_*` ones are filled by a model:
    /// [`model::Model::fill_classes_of_page`]).
    pub features: FeatureMatrix,
    /// The character encoding the page was decoded with.
    pub encoding: &'static str,
}

/// Decode, segment and compute features for one page given as raw (decompressed) bytes.
pub fn analyze(bytes: &[u8], limits: SegmentLimits) -> Result<Analysis> {
    analyze_declared(bytes, None, limits)
}

/// [`analyze`] a page that came with a declared charset ([`html::decode_declared`]).
pub fn analyze_declared(
    bytes: &[u8],
    charset: Option<&str>,
    limits: SegmentLimits,
) -> Result<Analysis> {
    let decoded = html::decode_declared(bytes, charset)?;
    let page = blocks::segment(&decoded.text, limits)?;
    let features = features::compute(&page);
    Ok(Analysis {
        page,
        features,
        encoding: decoded.encoding,
    })
}
