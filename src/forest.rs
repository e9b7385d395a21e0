//! A forest bagged from smartcore decision trees.
//!
//! smartcore 0.7's own `RandomForestClassifier` has no `predict_proba` and hides its trees, and
//! a tree's `predict_proba` is 0 or 1. So the forest is built here from public parts: each tree
//! trains on a seeded sample of rows and a seeded subset of feature columns, and the score of a
//! row is the share of trees voting content. Everything stays serializable through serde.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use smartcore::linalg::basic::matrix::DenseMatrix;
use smartcore::tree::decision_tree_classifier::{
    DecisionTreeClassifier, DecisionTreeClassifierParameters,
};

type Tree = DecisionTreeClassifier<f32, u32, DenseMatrix<f32>, Vec<u32>>;

/// Errors of fitting or predicting.
#[derive(Debug, thiserror::Error)]
pub enum ForestError {
    /// A parameter is out of range.
    #[error("invalid parameter {0}")]
    Param(String),
    /// Input shapes do not agree.
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// smartcore failed.
    #[error("tree fitting failed: {0}")]
    Fit(String),
}

/// Forest hyper-parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ForestParams {
    /// Number of trees (at least 1).
    pub n_trees: usize,
    /// Maximum depth of a tree (at least 1).
    pub max_depth: u16,
    /// Minimum rows in a leaf (at least 1).
    pub min_samples_leaf: usize,
    /// Share of the feature columns each tree sees, in (0, 1].
    pub feature_fraction: f64,
    /// Rows sampled with replacement for each tree (at least 1). A single tree with
    /// `feature_fraction` 1 uses all rows as they are, once each, when there are fewer.
    pub rows_per_tree: usize,
    /// Sample content and boilerplate rows equally for each tree.
    pub balance: bool,
    /// Seed of every random choice.
    pub seed: u64,
}

impl Default for ForestParams {
    fn default() -> Self {
        ForestParams {
            n_trees: 30,
            max_depth: 12,
            min_samples_leaf: 5,
            feature_fraction: 0.6,
            rows_per_tree: 40_000,
            balance: false,
            seed: 42,
        }
    }
}

impl ForestParams {
    /// Check every parameter, naming the bad one.
    pub fn validate(&self) -> Result<(), ForestError> {
        let bad = |m: &str| Err(ForestError::Param(m.to_string()));
        if self.n_trees == 0 {
            return bad("model.trees: must be at least 1");
        }
        if self.max_depth == 0 {
            return bad("model.max_depth: must be at least 1");
        }
        if self.min_samples_leaf == 0 {
            return bad("model.min_samples_leaf: must be at least 1");
        }
        if !(self.feature_fraction > 0.0 && self.feature_fraction <= 1.0) {
            return bad("model.feature_fraction: must be in (0, 1]");
        }
        if self.rows_per_tree == 0 {
            return bad("model.rows_per_tree: must be at least 1");
        }
        Ok(())
    }
}

/// One tree and the columns it was trained on.
#[derive(Debug, Serialize, Deserialize)]
struct Member {
    columns: Vec<usize>,
    tree: Tree,
}

/// A trained forest.
#[derive(Debug, Serialize, Deserialize)]
pub struct Forest {
    n_features: usize,
    members: Vec<Member>,
    /// The answer for every row when the training data had a single class (no trees then).
    constant: Option<f32>,
}

/// splitmix64: a small, well-known generator, enough for sampling rows and columns.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Index drawn with probability proportional to its weight, from cumulative weights.
fn draw(cumulative: &[f64], rng: &mut Rng) -> usize {
    let total = cumulative.last().copied().unwrap_or(0.0);
    if total <= 0.0 {
        return rng.below(cumulative.len().max(1));
    }
    let x = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
    cumulative
        .partition_point(|&c| c <= x)
        .min(cumulative.len() - 1)
}

fn clean(v: f32) -> f32 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

impl Forest {
    /// Fit on row-major `rows` (`n_features` values per row) and 0/1 `labels`. Each tree's
    /// rows are drawn with probability proportional to `weights` (uniform when `None`).
    /// Training data with a single class gives a forest that always answers that class.
    pub fn fit(
        rows: &[f32],
        n_features: usize,
        labels: &[u8],
        weights: Option<&[f32]>,
        params: &ForestParams,
    ) -> Result<Forest, ForestError> {
        params.validate()?;
        if n_features == 0 || rows.len() % n_features != 0 {
            return Err(ForestError::Shape(format!(
                "{} values are not rows of {n_features} features",
                rows.len()
            )));
        }
        let n = rows.len() / n_features;
        if n != labels.len() {
            return Err(ForestError::Shape(format!(
                "{n} rows but {} labels",
                labels.len()
            )));
        }
        if n == 0 {
            return Err(ForestError::Shape("no rows to train on".into()));
        }
        let positives: Vec<usize> = (0..n).filter(|&i| labels[i] != 0).collect();
        let negatives: Vec<usize> = (0..n).filter(|&i| labels[i] == 0).collect();
        // Cumulative weights per class pool, for drawing rows in proportion to their weight.
        let cumulative = |pool: &[usize]| -> Result<Vec<f64>, ForestError> {
            let mut acc = 0.0f64;
            let mut c = Vec::with_capacity(pool.len());
            for &i in pool {
                let w = weights.map_or(1.0, |w| f64::from(w[i]));
                if !(w.is_finite() && w >= 0.0) {
                    return Err(ForestError::Shape(format!("row {i} has weight {w}")));
                }
                acc += w;
                c.push(acc);
            }
            Ok(c)
        };
        if weights.is_some_and(|w| w.len() != n) {
            return Err(ForestError::Shape(format!(
                "{n} rows but {} weights",
                weights.map_or(0, <[f32]>::len)
            )));
        }
        let all: Vec<usize> = (0..n).collect();
        let cum_all = cumulative(&all)?;
        let cum_pos = cumulative(&positives)?;
        let cum_neg = cumulative(&negatives)?;
        if positives.is_empty() || negatives.is_empty() {
            // smartcore cannot fit one class; the answer is known anyway.
            return Ok(Forest {
                n_features,
                members: Vec::new(),
                constant: Some(if positives.is_empty() { 0.0 } else { 1.0 }),
            });
        }
        let n_cols =
            ((n_features as f64 * params.feature_fraction).round() as usize).clamp(1, n_features);
        let members: Result<Vec<Member>, ForestError> = (0..params.n_trees)
            .into_par_iter()
            .map(|t| {
                let mut rng = Rng(params.seed ^ (t as u64).wrapping_mul(0xa076_1d64_78bd_642f));
                let mut columns: Vec<usize> = (0..n_features).collect();
                if n_cols < n_features {
                    // Partial Fisher-Yates shuffle picks the first n_cols columns.
                    for i in 0..n_cols {
                        let j = i + rng.below(n_features - i);
                        columns.swap(i, j);
                    }
                    columns.truncate(n_cols);
                    columns.sort_unstable();
                }
                let whole =
                    params.n_trees == 1 && n_cols == n_features && n <= params.rows_per_tree;
                let sample: Vec<usize> = if whole && weights.is_none() {
                    (0..n).collect()
                } else if params.balance {
                    (0..params.rows_per_tree)
                        .map(|i| {
                            if i % 2 == 0 {
                                positives[draw(&cum_pos, &mut rng)]
                            } else {
                                negatives[draw(&cum_neg, &mut rng)]
                            }
                        })
                        .collect()
                } else {
                    (0..params.rows_per_tree)
                        .map(|_| draw(&cum_all, &mut rng))
                        .collect()
                };
                let mut sample = sample;
                // smartcore cannot fit one class: a sample that missed a class gets one row of it.
                for pool in [&positives, &negatives] {
                    if !sample.iter().any(|r| pool.binary_search(r).is_ok()) {
                        sample.push(pool[rng.below(pool.len())]);
                    }
                }
                let mut x = Vec::with_capacity(sample.len() * columns.len());
                for &r in &sample {
                    let row = &rows[r * n_features..(r + 1) * n_features];
                    x.extend(columns.iter().map(|&c| clean(row[c])));
                }
                let y: Vec<u32> = sample.iter().map(|&r| u32::from(labels[r] != 0)).collect();
                let x = DenseMatrix::new(sample.len(), columns.len(), x, false)
                    .map_err(|e| ForestError::Fit(e.to_string()))?;
                let tree_params = DecisionTreeClassifierParameters::default()
                    .with_max_depth(params.max_depth)
                    .with_min_samples_leaf(params.min_samples_leaf)
                    .with_min_samples_split(2 * params.min_samples_leaf);
                let tree_params = DecisionTreeClassifierParameters {
                    seed: Some(rng.next()),
                    ..tree_params
                };
                let tree =
                    Tree::fit(&x, &y, tree_params).map_err(|e| ForestError::Fit(e.to_string()))?;
                Ok(Member { columns, tree })
            })
            .collect();
        Ok(Forest {
            n_features,
            members: members?,
            constant: None,
        })
    }

    /// Share of trees voting class 1, per row of row-major `rows`.
    pub fn predict_scores(&self, rows: &[f32], n_features: usize) -> Result<Vec<f32>, ForestError> {
        if n_features != self.n_features || rows.len() % n_features != 0 {
            return Err(ForestError::Shape(format!(
                "the forest expects rows of {} features, got {} values in rows of {n_features}",
                self.n_features,
                rows.len()
            )));
        }
        let n = rows.len() / n_features;
        let mut votes = vec![0u32; n];
        if let Some(c) = self.constant {
            return Ok(vec![c; n]);
        }
        if n == 0 || self.members.is_empty() {
            return Ok(vec![0.0; n]);
        }
        for m in &self.members {
            let mut x = Vec::with_capacity(n * m.columns.len());
            for r in 0..n {
                let row = &rows[r * n_features..(r + 1) * n_features];
                x.extend(m.columns.iter().map(|&c| clean(row[c])));
            }
            let matrix = DenseMatrix::new(n, m.columns.len(), x, false)
                .map_err(|e| ForestError::Shape(e.to_string()))?;
            let y = m
                .tree
                .predict(&matrix)
                .map_err(|e| ForestError::Fit(e.to_string()))?;
            for (v, c) in votes.iter_mut().zip(&y) {
                *v += u32::from(*c == 1);
            }
        }
        let k = self.members.len() as f32;
        Ok(votes.into_iter().map(|v| v as f32 / k).collect())
    }

    /// Number of feature columns.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// Number of trees.
    pub fn n_trees(&self) -> usize {
        self.members.len()
    }

    /// smartcore's impurity-based importances summed over trees, mapped back to the original
    /// columns and normalised to sum 1.
    pub fn feature_importances(&self) -> Vec<f64> {
        let mut total = vec![0.0; self.n_features];
        for m in &self.members {
            let imp = m.tree.compute_feature_importances(false);
            for (&c, v) in m.columns.iter().zip(imp) {
                if v.is_finite() {
                    total[c] += v;
                }
            }
        }
        let sum: f64 = total.iter().sum();
        if sum > 0.0 {
            total.iter_mut().for_each(|v| *v /= sum);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of 3 features; class 1 when feature 0 > 0.5 and feature 2 < 0.3.
    fn data(n: usize, seed: u64) -> (Vec<f32>, Vec<u8>) {
        let mut rng = Rng(seed);
        let mut rows = Vec::new();
        let mut labels = Vec::new();
        for _ in 0..n {
            let r: Vec<f32> = (0..3)
                .map(|_| (rng.next() % 1000) as f32 / 1000.0)
                .collect();
            labels.push(u8::from(r[0] > 0.5 && r[2] < 0.3));
            rows.extend(r);
        }
        (rows, labels)
    }

    fn params() -> ForestParams {
        ForestParams {
            n_trees: 9,
            max_depth: 6,
            min_samples_leaf: 2,
            feature_fraction: 1.0,
            rows_per_tree: 2000,
            balance: false,
            seed: 7,
        }
    }

    #[test]
    fn learns_a_rule_and_is_deterministic() {
        let (rows, labels) = data(3000, 1);
        let f = Forest::fit(&rows, 3, &labels, None, &params()).unwrap();
        let (test, truth) = data(1000, 2);
        let scores = f.predict_scores(&test, 3).unwrap();
        let correct = scores
            .iter()
            .zip(&truth)
            .filter(|(s, t)| (**s >= 0.5) == (**t == 1))
            .count();
        assert!(correct > 960, "{correct}/1000");
        let g = Forest::fit(&rows, 3, &labels, None, &params()).unwrap();
        assert_eq!(g.predict_scores(&test, 3).unwrap(), scores);
        let imp = f.feature_importances();
        assert!(imp[1] < imp[0] && imp[1] < imp[2], "{imp:?}");
    }

    #[test]
    fn serde_round_trip_predicts_the_same() {
        let (rows, labels) = data(1000, 3);
        let f = Forest::fit(
            &rows,
            3,
            &labels,
            None,
            &ForestParams {
                feature_fraction: 0.67,
                ..params()
            },
        )
        .unwrap();
        let bytes = bincode::serde::encode_to_vec(&f, bincode::config::standard()).unwrap();
        let (g, _): (Forest, usize) =
            bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).unwrap();
        assert_eq!(
            f.predict_scores(&rows, 3).unwrap(),
            g.predict_scores(&rows, 3).unwrap()
        );
    }

    #[test]
    fn bad_inputs_are_errors() {
        let (rows, labels) = data(10, 4);
        assert!(Forest::fit(&rows, 3, &labels[..9], None, &params()).is_err());
        assert!(Forest::fit(&rows[..29], 3, &labels, None, &params()).is_err());
        assert!(Forest::fit(&[], 3, &[], None, &params()).is_err());
        let zero = ForestParams {
            max_depth: 0,
            ..params()
        };
        assert!(Forest::fit(&rows, 3, &labels, None, &zero)
            .unwrap_err()
            .to_string()
            .contains("max_depth"));
        let f = Forest::fit(&rows, 3, &labels, None, &params()).unwrap();
        assert!(f.predict_scores(&rows, 2).is_err());
        let mut nan = rows.clone();
        nan[0] = f32::NAN;
        nan[1] = f32::INFINITY;
        assert_eq!(f.predict_scores(&nan, 3).unwrap().len(), 10);
    }

    #[test]
    fn tiny_samples_still_see_both_classes() {
        let (rows, _) = data(40, 6);
        let mut labels = vec![0u8; 40];
        labels[39] = 1;
        let p = ForestParams {
            rows_per_tree: 3,
            ..params()
        };
        let f = Forest::fit(&rows, 3, &labels, None, &p).unwrap();
        assert_eq!(f.n_trees(), 9);
    }

    #[test]
    fn single_class_data_gives_that_class() {
        let (rows, _) = data(50, 5);
        let f = Forest::fit(&rows, 3, &[0; 50], None, &params()).unwrap();
        assert!(f
            .predict_scores(&rows, 3)
            .unwrap()
            .iter()
            .all(|&s| s == 0.0));
        let f = Forest::fit(&rows, 3, &[1; 50], None, &params()).unwrap();
        assert!(f
            .predict_scores(&rows, 3)
            .unwrap()
            .iter()
            .all(|&s| s == 1.0));
    }
}
