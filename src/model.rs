//! The block classifier: smartcore decision trees, bagged into forests ([`crate::forest`]) or
//! boosted ([`crate::boost`]), with its training metadata, saved to and loaded from a
//! versioned model file ([`crate::serial`]).

use crate::boost::{BoostParams, Booster};
use crate::classes::{ClassLexicon, ClassTokens};
use crate::context::{stacked_rows, text_key, Lexicon, N_STACKED};
use crate::decode::Decoding;
use crate::error::{Error, Result};
use crate::features::{schema_hash, FeatureMatrix, N_FEATURES, SCHEMA};
use crate::forest::{Forest, ForestError, ForestParams};
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
    /// Two forests: the second sees the features and the first one's scores of the whole
    /// page ([`crate::context`]).
    Stacked,
    /// Gradient-boosted smartcore regression trees; the score is the logistic function of the
    /// sum of their leaves.
    Boosted,
}

impl std::fmt::Display for ModelKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ModelKind::Tree => "tree",
            ModelKind::Forest => "forest",
            ModelKind::Stacked => "stacked",
            ModelKind::Boosted => "boosted",
        })
    }
}

/// How much a model's last stage uses one column.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureUse {
    /// The feature or context column.
    pub name: String,
    /// smartcore's impurity-based importance summed over the trees, normalised to sum 1.
    pub importance: f64,
    /// Splits on the column, over all nodes of all trees.
    pub splits: u32,
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

/// One classifier stage: a forest or a booster.
#[derive(Debug, Serialize, Deserialize)]
enum Stage {
    Forest(Forest),
    Boosted(Booster),
}

impl Stage {
    fn predict_scores(&self, rows: &[f32], n_features: usize) -> Result<Vec<f32>, ForestError> {
        match self {
            Stage::Forest(f) => f.predict_scores(rows, n_features),
            Stage::Boosted(b) => b.predict_scores(rows, n_features),
        }
    }

    fn n_features(&self) -> usize {
        match self {
            Stage::Forest(f) => f.n_features(),
            Stage::Boosted(b) => b.n_features(),
        }
    }

    fn n_trees(&self) -> usize {
        match self {
            Stage::Forest(f) => f.n_trees(),
            Stage::Boosted(b) => b.n_trees(),
        }
    }

    fn check(&self) -> Result<(), ForestError> {
        match self {
            Stage::Forest(f) => f.check(),
            Stage::Boosted(b) => b.check(),
        }
    }

    fn feature_importances(&self) -> Vec<f64> {
        match self {
            Stage::Forest(f) => f.feature_importances(),
            Stage::Boosted(b) => b.feature_importances(),
        }
    }

    fn split_counts(&self) -> Vec<u32> {
        match self {
            Stage::Forest(f) => f.split_counts(),
            Stage::Boosted(b) => b.split_counts(),
        }
    }
}

/// How one stage is trained.
#[derive(Debug, Clone, PartialEq)]
pub enum StageParams {
    /// A forest (or a single tree).
    Forest(ForestParams),
    /// A booster.
    Boosted(BoostParams),
}

/// The payload of a model file: the first stage and, for a stacked model, the later ones,
/// each of which also sees the previous one's scores of the whole page ([`crate::context`]).
#[derive(Debug, Serialize, Deserialize)]
struct Classifier {
    first: Stage,
    later: Option<LaterStages>,
    /// The class/id tokens learned in training, behind the `class_lex_*` features.
    classes: ClassLexicon,
}

/// The later forests of a stacked model, in order, and the corpus lexicon behind two of
/// their columns.
#[derive(Debug, Serialize, Deserialize)]
struct LaterStages {
    forests: Vec<Stage>,
    lexicon: Lexicon,
}

/// Stacked training rows of many pages.
#[derive(Debug, Clone, Default)]
pub struct TrainingRows {
    /// Row-major features, [`N_FEATURES`] per row.
    pub rows: Vec<f32>,
    /// 0/1 label per row.
    pub labels: Vec<u8>,
    /// Sampling weight per row.
    pub weights: Vec<f32>,
    /// Group (site) id per row: rows of one group are left out of a tree together.
    pub groups: Vec<u32>,
    /// Rows of each page, in order.
    pub pages: Vec<usize>,
    /// Key of each row's text ([`crate::context::text_key`]).
    pub text_keys: Vec<u64>,
    /// Class/id tokens of each row.
    pub tokens: ClassTokens,
}

/// A trained block classifier.
pub struct Model {
    /// Training metadata.
    pub info: ModelInfo,
    classifier: Classifier,
}

/// A summary, not the trees: a program that logs its settings (an [`crate::Extractor`]
/// holds a model) would otherwise write a line of a megabyte.
impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let i = &self.info;
        f.debug_struct("Model")
            .field("model", &self.describe())
            .field("data", &i.data)
            .field("pages", &i.pages)
            .field("blocks", &i.blocks)
            .field("date", &i.date)
            .field("version", &i.version)
            .field("cv", &i.cv)
            .field("decoding", &i.decoding)
            .finish_non_exhaustive()
    }
}

impl Model {
    /// Wrap a trained forest (a model of one stage).
    pub fn new(info: ModelInfo, forest: Forest) -> Result<Model> {
        Model::assemble(
            info,
            Classifier {
                first: Stage::Forest(forest),
                later: None,
                classes: ClassLexicon::default(),
            },
        )
    }

    fn assemble(info: ModelInfo, classifier: Classifier) -> Result<Model> {
        let (first, later) = (&classifier.first, &classifier.later);
        if first.n_features() != N_FEATURES {
            return Err(Error::Model(format!(
                "the forest has {} features, the schema {N_FEATURES}",
                first.n_features()
            )));
        }
        if let Some(s) = later {
            if s.forests.is_empty() {
                return Err(Error::Model(
                    "corrupt model: a stacked model without later stages".into(),
                ));
            }
            if let Some(f) = s.forests.iter().find(|f| f.n_features() != N_STACKED) {
                return Err(Error::Model(format!(
                    "a later-stage forest has {} features, the schema {N_STACKED}",
                    f.n_features()
                )));
            }
            if !s.lexicon.is_consistent() {
                return Err(Error::Model("corrupt model: inconsistent lexicon".into()));
            }
        }
        if !classifier.classes.is_consistent() {
            return Err(Error::Model(
                "corrupt model: inconsistent class lexicon".into(),
            ));
        }
        Ok(Model { info, classifier })
    }

    /// Train the model of `info.kind` on training rows; a stacked model gets `stages`
    /// forests in all. The class/id token lexicon is learned first and fills the rows'
    /// `class_lex_*` columns ([`ClassLexicon::learn`]).
    pub fn train_rows(
        info: ModelInfo,
        mut data: TrainingRows,
        params: &StageParams,
        stages: usize,
    ) -> Result<Model> {
        let classes = ClassLexicon::learn(
            &data.tokens,
            &data.labels,
            &data.weights,
            &data.groups,
            &mut data.rows,
        );
        let mut model = Model::fit_rows(info, &data, params, stages)?;
        model.classifier.classes = classes;
        Ok(model)
    }

    fn fit_rows(
        info: ModelInfo,
        data: &TrainingRows,
        params: &StageParams,
        stages: usize,
    ) -> Result<Model> {
        match params {
            StageParams::Boosted(p) => {
                let booster =
                    Booster::fit(&data.rows, N_FEATURES, &data.labels, Some(&data.weights), p)
                        .map_err(|e| Error::Training(e.to_string()))?;
                Model::assemble(
                    info,
                    Classifier {
                        first: Stage::Boosted(booster),
                        later: None,
                        classes: ClassLexicon::default(),
                    },
                )
            }
            StageParams::Forest(p) if info.kind == ModelKind::Stacked => {
                Model::train_stacked(info, data, p, stages)
            }
            StageParams::Forest(p) => {
                Model::train(info, &data.rows, &data.labels, Some(&data.weights), p)
            }
        }
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

    /// Train a stacked model of `stages` (at least 2) forests: a first forest whose trees each
    /// see about half of the `groups` (one id per row, the page's site), then forests on the
    /// features plus the context of the previous forest's out-of-group scores
    /// ([`crate::context`]); all but the last are fitted so as to give such scores.
    pub fn train_stacked(
        info: ModelInfo,
        data: &TrainingRows,
        params: &ForestParams,
        stages: usize,
    ) -> Result<Model> {
        if stages < 2 {
            return Err(Error::Training(format!(
                "a stacked model needs at least 2 stages, not {stages}"
            )));
        }
        if data.pages.iter().sum::<usize>() != data.labels.len()
            || data.text_keys.len() != data.labels.len()
        {
            return Err(Error::Training(
                "page sizes or text keys do not match the rows".into(),
            ));
        }
        let fail = |e: ForestError| Error::Training(e.to_string());
        let (first, oob) = Forest::fit_grouped(
            &data.rows,
            N_FEATURES,
            &data.labels,
            Some(&data.weights),
            &data.groups,
            params,
        )
        .map_err(fail)?;
        let (lexicon, corpus) = Lexicon::build(&data.text_keys, &data.labels, &data.groups);
        let mut scores = oob;
        let mut forests = Vec::with_capacity(stages - 1);
        for stage in 1..stages {
            let mut stacked = Vec::with_capacity(data.labels.len() * N_STACKED);
            let mut start = 0;
            for &n in &data.pages {
                let features = &data.rows[start * N_FEATURES..(start + n) * N_FEATURES];
                let rows = start..start + n;
                stacked.extend(stacked_rows(features, &scores[rows.clone()], &corpus[rows]));
                start += n;
            }
            // Every later tree sees all the context columns, and a share of the features.
            let stage_params = ForestParams {
                seed: params.seed.wrapping_add(stage as u64),
                always_last: N_STACKED - N_FEATURES,
                ..params.clone()
            };
            let (labels, weights) = (&data.labels, Some(data.weights.as_slice()));
            if stage + 1 < stages {
                let (forest, oob) = Forest::fit_grouped(
                    &stacked,
                    N_STACKED,
                    labels,
                    weights,
                    &data.groups,
                    &stage_params,
                )
                .map_err(fail)?;
                forests.push(Stage::Forest(forest));
                scores = oob;
            } else {
                forests.push(Stage::Forest(
                    Forest::fit(&stacked, N_STACKED, labels, weights, &stage_params)
                        .map_err(fail)?,
                ));
            }
        }
        Model::assemble(
            info,
            Classifier {
                first: Stage::Forest(first),
                later: Some(LaterStages { forests, lexicon }),
                classes: ClassLexicon::default(),
            },
        )
    }

    /// The model shipped in the binary.
    pub fn embedded() -> Result<Model> {
        if EMBEDDED.is_empty() {
            return Err(Error::Model(
                "this build has no embedded model; give one with --model".into(),
            ));
        }
        // Built into this binary from a model this textsift trained: the deep structure check
        // of outside files is skipped, which keeps start-up fast; the framing, checksum and
        // schema are still checked.
        Model::decode(EMBEDDED, false)
    }

    /// Load a model file. A file that cannot be read is [`Error::Io`] (its path in the
    /// error's `path`), as a page's is; one that is read but refused is [`Error::Model`], its
    /// path in the message. Reading stops at the first bytes of a file that is not a model, and past
    /// [`MAX_DECODED_BYTES`](crate::serial::MAX_DECODED_BYTES) bytes, so that a crawl or a
    /// device named by mistake is refused without filling memory.
    pub fn load(path: impl AsRef<Path>) -> Result<Model> {
        let path = path.as_ref();
        let bytes = Model::read_file(path)?;
        Model::from_bytes(&bytes).map_err(|e| match e {
            Error::Model(m) => Error::Model(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// The bytes of a model file, checked only for its magic and size ([`Model::load`]).
    fn read_file(path: &Path) -> Result<Vec<u8>> {
        use std::io::Read;
        // A refused model's message names its path: unlike a page's, a model's error is not
        // reported under its source. A file that cannot be read keeps it in the error's
        // `path`, as a page's does.
        let refused = |m: &dyn std::fmt::Display| Error::Model(format!("{}: {m}", path.display()));
        let cannot_read = |error| Error::Io {
            path: path.to_path_buf(),
            error,
        };
        let mut file = std::fs::File::open(path).map_err(cannot_read)?;
        let mut bytes = Vec::new();
        let magic = crate::serial::MAGIC.len() as u64;
        let max = crate::serial::MAX_DECODED_BYTES as u64;
        (&mut file)
            .take(magic)
            .read_to_end(&mut bytes)
            .map_err(cannot_read)?;
        if bytes[..] == crate::serial::MAGIC[..] {
            // Room for the file as it says it is, within the bound.
            let size = file.metadata().map_or(0, |m| m.len()).min(max);
            bytes.reserve(usize::try_from(size).unwrap_or(0));
            file.take(max)
                .read_to_end(&mut bytes)
                .map_err(cannot_read)?;
            if bytes.len() as u64 > max {
                return Err(refused(&format_args!(
                    "more than {max} bytes, far more than a model file holds"
                )));
            }
        }
        Ok(bytes)
    }

    /// The training metadata of a model file that [`Model::load`] refuses as made for another
    /// feature schema (a stale model): how it was trained, to train it again. `None` for a
    /// file that loads, or that is refused for another reason (its error is `load`'s).
    pub fn stale_info(path: impl AsRef<Path>) -> Option<ModelInfo> {
        let bytes = Model::read_file(path.as_ref()).ok()?;
        match Model::from_bytes(&bytes) {
            Err(Error::Model(m)) if m.starts_with("stale model") => {
                crate::serial::decode_header::<ModelInfo>(&bytes)
                    .ok()
                    .map(|(_, info)| info)
            }
            _ => None,
        }
    }

    /// Decode model-file bytes, checking format, checksum, schema and shape.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model> {
        Model::decode(bytes, true)
    }

    /// Decode model-file bytes; `deep` also checks every tree's structure (a file from
    /// outside may be crafted with a valid checksum).
    fn decode(bytes: &[u8], deep: bool) -> Result<Model> {
        let (info, classifier): (ModelInfo, Classifier) =
            crate::serial::decode(bytes, schema_hash())?;
        let later = classifier.later.iter().flat_map(|s| &s.forests);
        for stage in std::iter::once(&classifier.first).chain(later) {
            // A booster's check costs next to nothing: it is always made.
            if deep || matches!(stage, Stage::Boosted(_)) {
                stage
                    .check()
                    .map_err(|e| Error::Model(format!("corrupt model: {e}")))?;
            }
        }
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
        Model::assemble(info, classifier)
    }

    /// Encode to model-file bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        crate::serial::encode(schema_hash(), &self.info, &self.classifier)
    }

    /// Write a model file, and say how many bytes it holds. A model written over an earlier
    /// one (a regular file that may be written) is written beside it, flushed to the disk and
    /// renamed over it with the earlier file's permissions, so that a run stopped while
    /// writing leaves the earlier model whole (a hard link to it keeps the earlier model);
    /// anything else (a new file, a pipe, `/dev/stdout`, a link) is written as it is.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<usize> {
        let path = path.as_ref();
        let bytes = self.to_bytes()?;
        let failed = |error| Error::Write {
            path: path.to_path_buf(),
            error,
        };
        let earlier = std::fs::symlink_metadata(path)
            .ok()
            .filter(|m| m.file_type().is_file() && !m.permissions().readonly());
        // Beside the earlier file, or in place when no file can be made there.
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let beside = earlier.and_then(|m| {
            let file = tempfile::Builder::new()
                .prefix(".textsift-model-")
                .tempfile_in(dir)
                .ok()?;
            Some((file, m.permissions()))
        });
        let Some((mut file, permissions)) = beside else {
            std::fs::write(path, &bytes).map_err(failed)?;
            return Ok(bytes.len());
        };
        std::io::Write::write_all(&mut file, &bytes)
            .and_then(|()| file.as_file().set_permissions(permissions))
            .and_then(|()| file.as_file().sync_all())
            .map_err(failed)?;
        file.persist(path).map_err(|e| failed(e.error))?;
        Ok(bytes.len())
    }

    /// Fill the `class_lex_*` features of a page's blocks from this model's class/id token
    /// lexicon; [`Model::scores`] expects them filled.
    pub fn fill_classes(&self, features: &mut FeatureMatrix, tokens: &ClassTokens) {
        self.classifier.classes.fill(features, tokens);
    }

    /// [`Model::fill_classes`] straight from a segmented page.
    pub fn fill_classes_of_page(&self, features: &mut FeatureMatrix, page: &crate::Page) {
        self.fill_classes(features, &ClassTokens::of_page(page));
    }

    /// Content score of every block, from 0 to 1, from the blocks' features (with the
    /// `class_lex_*` ones filled by [`Model::fill_classes`]) and texts.
    pub fn scores<S: AsRef<str>>(&self, features: &FeatureMatrix, texts: &[S]) -> Result<Vec<f32>> {
        if features.rows() != texts.len() {
            return Err(Error::Model(format!(
                "{} feature rows but {} block texts",
                features.rows(),
                texts.len()
            )));
        }
        if features.rows() == 0 {
            return Ok(Vec::new());
        }
        let fail = |e: ForestError| Error::Model(e.to_string());
        let first = self
            .classifier
            .first
            .predict_scores(&features.data, N_FEATURES)
            .map_err(fail)?;
        match &self.classifier.later {
            None => Ok(first),
            Some(later) => {
                let corpus: Vec<(u32, u32)> = texts
                    .iter()
                    .map(|t| later.lexicon.lookup(text_key(t.as_ref())))
                    .collect();
                let mut scores = first;
                for forest in &later.forests {
                    scores = forest
                        .predict_scores(&stacked_rows(&features.data, &scores, &corpus), N_STACKED)
                        .map_err(fail)?;
                }
                Ok(scores)
            }
        }
    }

    /// The model in a few words, e.g. `stacked: a forest of 48 trees on 98 features, then 1
    /// more of 48 trees each on those and 20 second-stage columns, with a lexicon of 9000 texts`.
    pub fn describe(&self) -> String {
        let c = &self.classifier;
        let classes = match c.classes.len() {
            0 => String::new(),
            n => format!(", {n} learned class/id tokens"),
        };
        let model = match &c.later {
            None => format!(
                "{}: {} trees, {N_FEATURES} features",
                self.info.kind,
                c.first.n_trees()
            ),
            Some(s) => format!(
                "{}: a forest of {} trees on {N_FEATURES} features, then {} more of {} trees \
                 each on those and {} second-stage columns, with a lexicon of {} texts",
                self.info.kind,
                c.first.n_trees(),
                s.forests.len(),
                s.forests.first().map_or(0, Stage::n_trees),
                N_STACKED - N_FEATURES,
                s.lexicon.len()
            ),
        };
        model + &classes
    }

    /// Tokens in the class/id token lexicon.
    pub fn class_lexicon_len(&self) -> usize {
        self.classifier.classes.len()
    }

    /// Texts in the corpus lexicon of a stacked model (0 otherwise).
    pub fn lexicon_len(&self) -> usize {
        self.classifier
            .later
            .as_ref()
            .map_or(0, |s| s.lexicon.len())
    }

    /// Whether the model has later stages (is stacked).
    pub fn is_stacked(&self) -> bool {
        self.classifier.later.is_some()
    }

    /// How much the last stage uses each of its columns (the features and, when stacked, the
    /// context columns), most important first.
    pub fn importances(&self) -> Vec<FeatureUse> {
        let last = self
            .classifier
            .later
            .as_ref()
            .and_then(|s| s.forests.last())
            .unwrap_or(&self.classifier.first);
        let mut v: Vec<FeatureUse> = SCHEMA
            .iter()
            .chain(crate::context::CONTEXT_SCHEMA)
            .zip(last.feature_importances())
            .zip(last.split_counts())
            .map(|((f, importance), splits)| FeatureUse {
                name: f.name.to_string(),
                importance,
                splits,
            })
            .collect();
        v.sort_by(|a, b| b.importance.total_cmp(&a.importance));
        v
    }

    /// The decoding this model was tuned with: its cross-validated choice, or without one
    /// [`Decoding::WITHOUT_CV`].
    pub fn default_decoding(&self) -> Decoding {
        self.info.decoding.unwrap_or(Decoding::WITHOUT_CV)
    }

    /// Number of trees.
    pub fn n_trees(&self) -> usize {
        self.classifier.first.n_trees()
            + self
                .classifier
                .later
                .as_ref()
                .map_or(0, |s| s.forests.iter().map(Stage::n_trees).sum())
    }
}
