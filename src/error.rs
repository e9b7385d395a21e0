//! Typed errors of the library. The CLI turns each into one line on stderr.

use std::path::PathBuf;

/// Everything that can go wrong in textsift, per input or per model. Each method says which
/// of these it returns; new kinds may come in later versions, so a `match` needs a `_` arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read. The message leaves the path out, as a batch
    /// names the page's source before it (`SOURCE: cannot read: …`); `path` holds it.
    #[error("cannot read: {error}")]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The underlying error. It is in the message, so it is not the error's
        /// [`source`](std::error::Error::source) too: a report of the chain would say it twice.
        error: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {}: {error}", path.display())]
    Write {
        /// The path that failed.
        path: PathBuf,
        /// The underlying error, in the message as for [`Error::Io`].
        error: std::io::Error,
    },
    /// A gzip stream was corrupt or cut short.
    #[error("bad gzip data: {0}")]
    Gzip(String),
    /// A zstd stream was corrupt or cut short, or had bytes after its last frame.
    #[error("bad zstd data: {0}")]
    Zstd(String),
    /// The input has no bytes, or only whitespace.
    #[error("empty input")]
    Empty,
    /// The input is not HTML or text (an image, a PDF, NUL-heavy bytes...).
    #[error("not an HTML page: {0}")]
    NotHtml(String),
    /// A WARC record that holds no page: no content (204, 205), a redirect, an error status
    /// (4xx, 5xx) or another media type. Not a failure: a crawl is full of them, and a batch
    /// only counts them.
    #[error("no page in this record: {0}")]
    NoPage(String),
    /// A record of a WARC or JSON Lines input, or an entry of an input list, could not be read.
    #[error("{0}")]
    Record(String),
    /// The input is over a configured limit.
    #[error("too large: {0}")]
    TooLarge(String),
    /// A model file was refused.
    #[error("model refused: {0}")]
    Model(String),
    /// A setting or a training recipe was invalid.
    #[error("invalid setting: {0}")]
    Config(String),
    /// Annotations or block records could not be read.
    #[error("bad annotation: {0}")]
    Annotation(String),
    /// A bug met on this input: a panic, caught and reported for the one page
    /// ([`crate::batch::isolate`]).
    #[error("internal error (a bug in textsift; please report it with this input): {0}")]
    Internal(String),
    /// Training failed.
    #[error("training failed: {0}")]
    Training(String),
}

impl Error {
    /// A short, stable name of the kind of error (`too_large`, `not_html`, `cannot_read`...),
    /// for programs that sort failures without reading the messages, such as a corpus run
    /// that retries pages that could not be read but not pages that are not HTML.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Io { .. } => "cannot_read",
            Error::Write { .. } => "cannot_write",
            Error::Gzip(_) => "bad_gzip",
            Error::Zstd(_) => "bad_zstd",
            Error::Empty => "empty",
            Error::NotHtml(_) => "not_html",
            Error::NoPage(_) => "no_page",
            Error::Record(_) => "bad_record",
            Error::TooLarge(_) => "too_large",
            Error::Model(_) => "model_refused",
            Error::Config(_) => "invalid_setting",
            Error::Annotation(_) => "bad_annotation",
            Error::Internal(_) => "internal",
            Error::Training(_) => "training_failed",
        }
    }
}

/// Result type of the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;
