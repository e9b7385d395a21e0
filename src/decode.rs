//! Block scores to block labels. Kept apart from the model so that either can change alone.

use serde::{Deserialize, Serialize};

/// How the sequence of block scores of a page becomes content/boilerplate labels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Decoder {
    /// Each block on its own: content when its score is at least `threshold`.
    Threshold {
        /// Score at or above which a block is content.
        threshold: f32,
    },
}

impl Decoder {
    /// Check the settings.
    pub fn validate(&self) -> crate::Result<()> {
        match *self {
            Decoder::Threshold { threshold } if !(0.0..=1.0).contains(&threshold) => Err(
                crate::Error::Config(format!("threshold {threshold} is outside 0..1")),
            ),
            _ => Ok(()),
        }
    }

    /// Label every block of a page from its score.
    pub fn decode(&self, scores: &[f32]) -> Vec<bool> {
        match *self {
            Decoder::Threshold { threshold } => scores.iter().map(|&s| s >= threshold).collect(),
        }
    }
}
