//! The block classifier: a forest of smartcore decision trees with its training metadata,
//! saved to and loaded from a versioned model file ([`crate::serial`]).

use crate::decode::{Decoder, Decoding};
use crate::error::{Error, Result};
use crate::features::{schema_hash, FeatureMatrix, N_FEATURES, SCHEMA};
use crate::forest::{Forest, ForestParams};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The model shipped inside the binary, used when no model file is given.
static EMBEDDED: &[u8] = include_bytes!("../models/default.tsm");

/// What kind of classifier a model file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    /// A single smartcore decision tree (scores are 0 or 1).
    Tree,
    /// Bagged smartcore decision trees; the score is the share of trees voting content.
    Forest,
}

impl std::fmt::Display for ModelKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ModelKind::Tree => "tree",
            ModelKind::Forest => "forest",
        })
    }
}

/// Training metadata stored in the model file's header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Tree or forest.
    pub kind: ModelKind,
    /// Feature names, in column order.
    pub feature_names: Vec<String>,
    /// The training data, as given on the command line.
    pub data: Vec<String>,
    /// Pages trained on.
    pub pages: usize,
    /// Blocks (rows) trained on.
    pub blocks: usize,
    /// Date of training (UTC, `YYYY-MM-DD`).
    pub date: String,
    /// textsift version that trained it.
    pub version: String,
    /// The training recipe, as TOML.
    pub recipe: String,
    /// Cross-validation figures (name, value), empty when none was run.
    pub cv: Vec<(String, f64)>,
    /// Score at or above which a block is content, chosen by cross-validation.
    pub threshold: f32,
    /// The decoding chosen by cross-validation, if it was run.
    pub decoding: Option<Decoding>,
}

/// A trained block classifier.
#[derive(Debug)]
pub struct Model {
    /// Training metadata.
    pub info: ModelInfo,
    forest: Forest,
}

impl Model {
    /// Wrap a trained forest.
    pub fn new(info: ModelInfo, forest: Forest) -> Result<Model> {
        if forest.n_features() != N_FEATURES {
            return Err(Error::Model(format!(
                "the forest has {} features, the schema {N_FEATURES}",
                forest.n_features()
            )));
        }
        Ok(Model { info, forest })
    }

    /// Train a model on feature rows, 0/1 labels and optional row weights.
    pub fn train(
        info: ModelInfo,
        rows: &[f32],
        labels: &[u8],
        weights: Option<&[f32]>,
        params: &ForestParams,
    ) -> Result<Model> {
        let forest = Forest::fit(rows, N_FEATURES, labels, weights, params)
            .map_err(|e| Error::Training(e.to_string()))?;
        Model::new(info, forest)
    }

    /// The model shipped in the binary.
    pub fn embedded() -> Result<Model> {
        if EMBEDDED.is_empty() {
            return Err(Error::Model(
                "this build has no embedded model; give one with --model".into(),
            ));
        }
        Model::from_bytes(EMBEDDED)
    }

    /// Load a model file.
    pub fn load(path: &Path) -> Result<Model> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Model::from_bytes(&bytes).map_err(|e| match e {
            Error::Model(m) => Error::Model(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Decode model-file bytes, checking format, checksum, schema and shape.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model> {
        let (info, forest): (ModelInfo, Forest) = crate::serial::decode(bytes, schema_hash())?;
        let names_match = info.feature_names.len() == SCHEMA.len()
            && info
                .feature_names
                .iter()
                .zip(SCHEMA)
                .all(|(a, b)| a == b.name);
        if !names_match {
            return Err(Error::Model(
                "stale model: its feature names differ from this textsift's schema; retrain it"
                    .into(),
            ));
        }
        if !(0.0..=1.0).contains(&info.threshold) {
            return Err(Error::Model(format!(
                "corrupt model: threshold {} outside 0..1",
                info.threshold
            )));
        }
        if let Some(d) = &info.decoding {
            d.decoder
                .validate()
                .map_err(|e| Error::Model(format!("corrupt model: {e}")))?;
        }
        Model::new(info, forest)
    }

    /// Encode to model-file bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        crate::serial::encode(schema_hash(), &self.info, &self.forest)
    }

    /// Write a model file.
    pub fn save(&self, path: &Path) -> Result<()> {
        let bytes = self.to_bytes()?;
        std::fs::write(path, bytes).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Content score of every block, from 0 to 1.
    pub fn scores(&self, features: &FeatureMatrix) -> Result<Vec<f32>> {
        if features.rows() == 0 {
            return Ok(Vec::new());
        }
        self.forest
            .predict_scores(&features.data, N_FEATURES)
            .map_err(|e| Error::Model(e.to_string()))
    }

    /// Feature importances (normalised to sum 1), by feature name, largest first.
    pub fn importances(&self) -> Vec<(String, f64)> {
        let mut v: Vec<(String, f64)> = SCHEMA
            .iter()
            .map(|f| f.name.to_string())
            .zip(self.forest.feature_importances())
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v
    }

    /// The decoding this model was tuned with: its cross-validated choice, or its threshold.
    pub fn default_decoding(&self) -> Decoding {
        self.info.decoding.unwrap_or(Decoding {
            decoder: Decoder::Threshold {
                threshold: self.info.threshold,
            },
            attach_headings: false,
        })
    }

    /// Number of trees.
    pub fn n_trees(&self) -> usize {
        self.forest.n_trees()
    }
}
