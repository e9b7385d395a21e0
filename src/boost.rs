//! Gradient-boosted smartcore regression trees.
//!
//! Each round fits a smartcore `DecisionTreeRegressor` to the logistic loss's Newton step: the
//! target of a row is its gradient over its curvature, `(y − p) / (p (1 − p))`, and the rows of
//! the fit are drawn with probability proportional to their weight times that curvature, so
//! that a weighted squared error split is the second-order gain of the loss (as in XGBoost)
//! and the rows the model is already sure of cost nothing. Every split is smartcore's. The
//! value of each leaf is then the Newton step over all the rows that reach it,
//! `Σ w g / (Σ w h + l2)`, times the learning rate; a row's score is the logistic function of
//! the sum of its leaves.
//!
//! A fitted tree is kept complete: `2^depth − 1` splits in breadth-first order and `2^depth`
//! leaves, a leaf above the last level standing as splits that send every value left. A row
//! then walks a fixed number of steps with no pointer to follow (the children of split `i` are
//! `2i + 1` and `2i + 2`), and shallow trees of a few kilobytes stay in the first cache.
//! Trees of up to five levels (32 leaves) are not walked but evaluated 16 rows at a time by
//! sets of reachable leaves (`leaf_sets`), with vector instructions, in half the time.

use crate::forest::{clean, normalised_importances, round_down, ForestError, Rng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use smartcore::linalg::basic::matrix::DenseMatrix;
use smartcore::tree::decision_tree_regressor::{
    DecisionTreeRegressor, DecisionTreeRegressorParameters,
};
use std::sync::OnceLock;

type Regressor = DecisionTreeRegressor<f32, f64, DenseMatrix<f32>, Vec<f64>>;

/// Largest `max_depth` of a booster's trees. smartcore counts the level of the leaves, so a
/// tree of `max_depth` d has d − 1 levels of splits: at most 2047 of them here.
pub const MAX_DEPTH: u16 = 12;

/// Rows that walk a tree together in prediction.
const LANES: usize = 16;

/// Deepest trees (levels of splits) evaluated by leaf sets ([`leaf_sets`]):
/// their leaves fit the bits of a `u32`.
const SET_DEPTH: usize = 5;

/// For trees of each depth up to [`SET_DEPTH`], for each split in breadth-first order, the
/// leaves (one bit each, left to right) still reachable after going left and after going right:
/// all but the split's right half, and all but its left half.
const SIDE_MASKS: [[(u32, u32); 31]; SET_DEPTH + 1] = side_masks();

const fn side_masks() -> [[(u32, u32); 31]; SET_DEPTH + 1] {
    let mut out = [[(u32::MAX, u32::MAX); 31]; SET_DEPTH + 1];
    let mut depth = 1;
    while depth <= SET_DEPTH {
        let mut k = 0usize;
        while k < (1 << depth) - 1 {
            let level = (usize::BITS - 1 - (k + 1).leading_zeros()) as usize;
            let position = k + 1 - (1 << level);
            let span = 1u32 << (depth - level);
            let half = span / 2;
            let first = position as u32 * span;
            let left_half = ((1u64 << half) - 1) as u32;
            out[depth][k] = (!(left_half << (first + half)), !(left_half << first));
            k += 1;
        }
        depth += 1;
    }
    out
}

/// Add the values of `trees` for one batch of `LANES` rows to `sums`, the rows given both as
/// they are (`batch`, `width` values each) and column by column (`columns`). Trees of at most
/// [`SET_DEPTH`] levels are evaluated by leaf sets ([`leaf_sets`]), which have no test waiting
/// for the one before it, so the rows are compared side by side as vectors: the function is
/// compiled for the vector extensions that have a blend (AVX2, SSE4.1) and picks one when it
/// runs. Deeper trees are walked.
#[multiversion::multiversion(targets("x86_64+avx2", "x86_64+sse4.1"))]
fn add_trees(
    trees: &[BoostTree],
    sets: &[SetSplits],
    batch: &[f32],
    width: usize,
    columns: &[[f32; LANES]],
    sums: &mut [f32; LANES],
) {
    for (tree, splits) in trees.iter().zip(sets) {
        if usize::from(tree.depth) <= SET_DEPTH {
            let live = multiversion::target::match_target! {
                "x86_64+avx2" => leaf_sets_avx2(splits, columns),
                _ => leaf_sets(splits, columns),
            };
            let last = tree.values.len() - 1;
            let mut values = [0.0f32; LANES];
            for (v, l) in values.iter_mut().zip(live) {
                *v = tree.values[(l.trailing_zeros() as usize).min(last)];
            }
            for (s, v) in sums.iter_mut().zip(values) {
                *s += v;
            }
        } else {
            tree.add_batch(batch, width, sums);
        }
    }
}

/// A batch of up to [`LANES`] row-major rows as one array of lanes per column, as
/// [`leaf_sets`] reads them.
fn to_columns(batch: &[f32], columns: &mut [[f32; LANES]]) {
    for (r, row) in batch.chunks_exact(columns.len()).enumerate() {
        for (column, &v) in columns.iter_mut().zip(row) {
            column[r] = v;
        }
    }
}

/// [`leaf_sets`] written with AVX2 instructions, eight rows to a register: compiled from the
/// loop above, the same comparisons and blends sometimes come out with the lanes shuffled
/// between registers at every split (twice the instructions), depending on what else the
/// compiler happens to inline around them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn leaf_sets_avx2(splits: &SetSplits, columns: &[[f32; LANES]]) -> [u32; LANES] {
    use std::arch::x86_64::{
        __m256, _mm256_and_ps, _mm256_blendv_ps, _mm256_castsi256_ps, _mm256_cmp_ps,
        _mm256_set1_epi32, _mm256_set1_ps, _CMP_GT_OQ,
    };
    let all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    let mut live = [all, all];
    for (&(c, t), &(left, right)) in splits.tests.iter().zip(&splits.masks) {
        let halves: [__m256; 2] = bytemuck::cast(columns[c as usize]);
        let t = _mm256_set1_ps(t);
        // Bit patterns, not numbers: the casts keep every bit.
        let left = _mm256_castsi256_ps(_mm256_set1_epi32(left as i32));
        let right = _mm256_castsi256_ps(_mm256_set1_epi32(right as i32));
        for (l, v) in live.iter_mut().zip(halves) {
            // Greater, and false for NaN, as `v > t`.
            let greater = _mm256_cmp_ps::<_CMP_GT_OQ>(v, t);
            *l = _mm256_and_ps(*l, _mm256_blendv_ps(left, right, greater));
        }
    }
    bytemuck::cast(live)
}

/// The splits of a tree evaluated by leaf sets: the column each reads and its threshold, and
/// apart (the two kept side by side compile to a slower loop), the leaves still reachable
/// after going left and after going right ([`SIDE_MASKS`]).
#[derive(Debug, Default)]
struct SetSplits {
    tests: Vec<(u32, f32)>,
    masks: Vec<(u32, u32)>,
}

/// The splits of a tree of at most [`SET_DEPTH`] levels as [`leaf_sets`] reads them, without
/// the ones that send every row left (the stand-ins below a shallow leaf, or a threshold that
/// is not a number): skipping such a split leaves the leaves of its right side in the set,
/// but its left side always keeps one, and a left leaf's bit is lower than any right one's.
/// A quarter of the shipped model's splits are such stand-ins.
fn set_splits(tree: &BoostTree) -> SetSplits {
    if usize::from(tree.depth) > SET_DEPTH {
        return SetSplits::default();
    }
    let (tests, masks) = tree
        .nodes
        .iter()
        .zip(&SIDE_MASKS[usize::from(tree.depth)])
        .filter(|((_, t), _)| *t < f32::INFINITY)
        .unzip();
    SetSplits { tests, masks }
}

/// The leaf that each of `LANES` rows (given by column) reaches in a complete tree of at most
/// [`SET_DEPTH`] levels, as the lowest bit left of a set of 32. Every split is tested for
/// every row, and each test takes out of the row's set of reachable leaves the half of the
/// split's leaves on the side not taken; the leaves that a split off the row's path takes out
/// are gone already.
#[inline(always)]
fn leaf_sets(splits: &SetSplits, columns: &[[f32; LANES]]) -> [u32; LANES] {
    let mut live = [u32::MAX; LANES];
    for (&(c, t), &(left, right)) in splits.tests.iter().zip(&splits.masks) {
        let column = &columns[c as usize];
        for (l, &v) in live.iter_mut().zip(column) {
            *l &= if v > t { right } else { left };
        }
    }
    live
}

/// Boosting hyper-parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BoostParams {
    /// Rounds, one tree each (at least 1).
    pub n_trees: usize,
    /// Depth of every tree as smartcore counts it (the root's level is 1), 2 to
    /// [`MAX_DEPTH`].
    pub max_depth: u16,
    /// Minimum rows of a fit in a leaf (at least 1).
    pub min_samples_leaf: usize,
    /// Share of the feature columns each tree sees, in (0, 1].
    pub feature_fraction: f64,
    /// Rows drawn (with replacement, by weight × curvature) for each tree's fit.
    pub rows_per_tree: usize,
    /// Factor on every leaf value, in (0, 1].
    pub learning_rate: f64,
    /// Added to the curvature of a leaf: shrinks the values of leaves with few rows.
    pub l2: f64,
    /// Seed of every random choice.
    pub seed: u64,
}

impl BoostParams {
    /// Check every parameter, naming the bad one.
    pub fn validate(&self) -> Result<(), ForestError> {
        let bad = |m: &str| Err(ForestError::Param(m.to_string()));
        if !(1..=crate::forest::MAX_TREES).contains(&self.n_trees) {
            return bad("model.trees: must be 1 to 100000");
        }
        if !(2..=MAX_DEPTH).contains(&self.max_depth) {
            return bad("model.max_depth: must be 2 to 12 for a boosted model");
        }
        if self.min_samples_leaf == 0 {
            return bad("model.min_samples_leaf: must be at least 1");
        }
        if !(self.feature_fraction > 0.0 && self.feature_fraction <= 1.0) {
            return bad("model.feature_fraction: must be in (0, 1]");
        }
        if !(2..=crate::forest::MAX_ROWS_PER_TREE).contains(&self.rows_per_tree) {
            return bad(&format!(
                "model.rows_per_tree: must be 2 to {}",
                crate::forest::MAX_ROWS_PER_TREE
            ));
        }
        if !(self.learning_rate > 0.0 && self.learning_rate <= 1.0) {
            return bad("model.learning_rate: must be in (0, 1]");
        }
        if !(self.l2.is_finite() && self.l2 >= 0.0) {
            return bad("model.l2: must be a finite number, 0 or more");
        }
        Ok(())
    }
}

/// A complete tree of fixed depth (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct BoostTree {
    /// Levels of splits.
    depth: u8,
    /// Each split, breadth-first: the column it reads, and the threshold: values at most the
    /// threshold go to the left child (`2i + 1`), others to the right.
    nodes: Vec<(u32, f32)>,
    /// Value of each leaf, left to right, learning rate included.
    values: Vec<f32>,
}

impl BoostTree {
    /// Index of the leaf that a row (already [`clean`]) reaches.
    fn leaf(&self, row: &[f32]) -> usize {
        let mut i = 0usize;
        for _ in 0..self.depth {
            let (c, t) = self.nodes[i];
            i = 2 * i + 1 + usize::from(row[c as usize] > t);
        }
        i - self.nodes.len()
    }

    /// Add the tree's values for `LANES` rows of row-major `rows` (`width` values each) to
    /// `sums`, one per row.
    #[inline(always)]
    fn add_batch(&self, rows: &[f32], width: usize, sums: &mut [f32]) {
        let mut at = [0u32; LANES];
        for _ in 0..self.depth {
            for (r, i) in at.iter_mut().enumerate() {
                let (c, t) = self.nodes[*i as usize];
                let v = rows[r * width + c as usize];
                *i = 2 * *i + 1 + u32::from(v > t);
            }
        }
        let first_leaf = self.nodes.len() as u32;
        for (s, &i) in sums.iter_mut().zip(at.iter()) {
            *s += self.values[(i - first_leaf) as usize];
        }
    }

    /// Lengths agree with the depth, columns exist, values are finite.
    fn check(&self, n_features: usize) -> Result<(), String> {
        let depth = u16::from(self.depth);
        if !(1..MAX_DEPTH).contains(&depth) {
            return Err(format!("depth {depth}"));
        }
        let splits = (1usize << depth) - 1;
        if self.nodes.len() != splits || self.values.len() != splits + 1 {
            return Err("node counts do not match the depth".into());
        }
        if let Some((c, _)) = self.nodes.iter().find(|&&(c, _)| c as usize >= n_features) {
            return Err(format!("a split reads column {c} of {n_features}"));
        }
        if self.nodes.iter().any(|(_, t)| t.is_nan()) || self.values.iter().any(|v| !v.is_finite())
        {
            return Err("a threshold or value is not a number".into());
        }
        Ok(())
    }

    /// Read a fitted smartcore regressor through its serde form, mapping its split features
    /// through `columns`, into a complete tree of `depth` levels of splits (leaf values left
    /// at 0).
    fn from_smartcore(
        tree: &Regressor,
        columns: &[usize],
        depth: u16,
    ) -> Result<Self, ForestError> {
        let broken =
            |what: &str| ForestError::Fit(format!("a fitted tree reads as broken: {what}"));
        let shape: RegressorShape = serde_json::to_vec(tree)
            .and_then(|json| serde_json::from_slice(&json))
            .map_err(|e| broken(&e.to_string()))?;
        let nodes = shape.tree_regressor.ok_or_else(|| broken("no tree"))?.nodes;
        if nodes.is_empty() {
            return Err(broken("no nodes"));
        }
        let splits = (1usize << depth) - 1;
        let mut out = BoostTree {
            depth: depth as u8,
            nodes: vec![(0, f32::INFINITY); splits],
            values: vec![0.0; splits + 1],
        };
        // (smartcore node, complete-tree slot, level)
        let mut stack = vec![(0usize, 0usize, 0u16)];
        while let Some((node, slot, level)) = stack.pop() {
            let n = nodes.get(node).ok_or_else(|| broken("a lost child"))?;
            let (Some(yes), Some(no)) = (n.true_child, n.false_child) else {
                continue; // a leaf: the slots below stay "all left"
            };
            if level >= depth {
                return Err(broken("deeper than its limit"));
            }
            let column = n
                .split_feature
                .and_then(|c| columns.get(c as usize))
                .ok_or_else(|| broken("a split on no column"))?;
            out.nodes[slot] = (
                *column as u32,
                round_down(n.split_value.unwrap_or(f64::NAN)),
            );
            let (yes, no) = (yes as usize, no as usize);
            if yes <= node || no <= node {
                return Err(broken("a child before its parent"));
            }
            stack.push((yes, 2 * slot + 1, level + 1));
            stack.push((no, 2 * slot + 2, level + 1));
        }
        Ok(out)
    }
}

/// A trained booster.
#[derive(Debug, Serialize, Deserialize)]
pub struct Booster {
    n_features: usize,
    /// Log-odds of content before the first tree.
    base: f32,
    trees: Vec<BoostTree>,
    /// smartcore's impurity-based importances of the trees when they were fitted, summed per
    /// column.
    importances: Vec<f64>,
    /// [`set_splits`] of every tree, made on first use.
    #[serde(skip)]
    sets: OnceLock<Vec<SetSplits>>,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl Booster {
    /// Fit on row-major `rows` (`n_features` values per row), 0/1 `labels` and row `weights`
    /// (all 1 when `None`).
    pub fn fit(
        rows: &[f32],
        n_features: usize,
        labels: &[u8],
        weights: Option<&[f32]>,
        params: &BoostParams,
    ) -> Result<Booster, ForestError> {
        params.validate()?;
        let n = crate::forest::check_shapes(rows, n_features, labels, weights)?;
        let rows: Vec<f32> = rows.iter().map(|&v| clean(v)).collect();
        // Weights with mean 1, so that `l2` means the same whatever their scale.
        let raw: Vec<f64> = (0..n)
            .map(|i| weights.map_or(1.0, |w| f64::from(w[i])))
            .collect();
        let total: f64 = raw.iter().sum();
        if total <= 0.0 {
            return Err(ForestError::Shape("every row has weight 0".into()));
        }
        let w: Vec<f64> = raw.iter().map(|v| v * n as f64 / total).collect();
        let y: Vec<f64> = labels
            .iter()
            .map(|&l| f64::from(u8::from(l != 0)))
            .collect();
        let positive: f64 = w.iter().zip(&y).map(|(w, y)| w * y).sum::<f64>() / n as f64;
        let p0 = positive.clamp(1e-4, 1.0 - 1e-4);
        let base = (p0 / (1.0 - p0)).ln();
        let mut f = vec![base; n];
        let n_cols =
            ((n_features as f64 * params.feature_fraction).round() as usize).clamp(1, n_features);
        let depth = params.max_depth;
        let mut trees = Vec::with_capacity(params.n_trees);
        let mut importances = vec![0.0f64; n_features];
        let mut leaf_of = vec![0u32; n];
        for t in 0..params.n_trees {
            let mut rng = Rng(params.seed ^ (t as u64).wrapping_mul(0xa076_1d64_78bd_642f));
            // Gradient and curvature of the logistic loss at every row.
            let (g, h): (Vec<f64>, Vec<f64>) = f
                .par_iter()
                .zip(&y)
                .map(|(&f, &y)| {
                    let p = sigmoid(f);
                    (y - p, (p * (1.0 - p)).max(1e-12))
                })
                .unzip();
            let mut cumulative = Vec::with_capacity(n);
            let mut acc = 0.0f64;
            for i in 0..n {
                acc += w[i] * h[i];
                cumulative.push(acc);
            }
            let mut drawn: Vec<usize> = (0..params.rows_per_tree)
                .map(|_| crate::forest::draw(&cumulative, &mut rng))
                .collect();
            drawn.sort_unstable();
            // Distinct rows, each weighted by how often it was drawn.
            let mut sample: Vec<(usize, f64)> = Vec::new();
            for r in drawn {
                match sample.last_mut() {
                    Some((last, c)) if *last == r => *c += 1.0,
                    _ => sample.push((r, 1.0)),
                }
            }
            let mut columns: Vec<usize> = (0..n_features).collect();
            for i in 0..n_cols {
                let j = i + rng.below(n_features - i);
                columns.swap(i, j);
            }
            columns.truncate(n_cols);
            columns.sort_unstable();
            let mut x = Vec::with_capacity(sample.len() * n_cols);
            for &(r, _) in &sample {
                let row = &rows[r * n_features..(r + 1) * n_features];
                x.extend(columns.iter().map(|&c| row[c]));
            }
            let target: Vec<f64> = sample.iter().map(|&(r, _)| g[r] / h[r]).collect();
            let counts: Vec<f64> = sample.iter().map(|&(_, c)| c).collect();
            let fit_error = |e: smartcore::error::Failed| ForestError::Fit(e.to_string());
            let m = DenseMatrix::new(sample.len(), n_cols, x, false).map_err(fit_error)?;
            let tree_params = DecisionTreeRegressorParameters::default()
                .with_max_depth(depth)
                .with_min_samples_leaf(params.min_samples_leaf)
                .with_min_samples_split(2 * params.min_samples_leaf);
            let fitted = Regressor::fit_with_weights(&m, &target, &counts, tree_params)
                .map_err(fit_error)?;
            if let Ok(imp) = fitted.compute_feature_importances(false) {
                for (&c, v) in columns.iter().zip(imp) {
                    if v.is_finite() {
                        importances[c] += v;
                    }
                }
            }
            let mut tree = BoostTree::from_smartcore(&fitted, &columns, depth - 1)?;
            // Leaf values: the Newton step over every row that reaches the leaf.
            leaf_of.par_iter_mut().enumerate().for_each(|(i, l)| {
                *l = tree.leaf(&rows[i * n_features..(i + 1) * n_features]) as u32
            });
            let leaves = tree.values.len();
            let (mut gs, mut hs) = (vec![0.0f64; leaves], vec![0.0f64; leaves]);
            for i in 0..n {
                let l = leaf_of[i] as usize;
                gs[l] += w[i] * g[i];
                hs[l] += w[i] * h[i];
            }
            let values: Vec<f64> = gs
                .iter()
                .zip(&hs)
                .map(|(g, h)| params.learning_rate * g / (h + params.l2))
                .collect();
            for (i, fi) in f.iter_mut().enumerate() {
                *fi += values[leaf_of[i] as usize];
            }
            tree.values = values.iter().map(|&v| v as f32).collect();
            trees.push(tree);
        }
        Ok(Booster {
            n_features,
            base: base as f32,
            trees,
            importances,
            sets: OnceLock::new(),
        })
    }

    /// Probability of content per row of row-major `rows`.
    pub fn predict_scores(&self, rows: &[f32], n_features: usize) -> Result<Vec<f32>, ForestError> {
        if n_features != self.n_features || !rows.len().is_multiple_of(n_features) {
            return Err(ForestError::Shape(format!(
                "the booster expects rows of {} features, got {} values in rows of {n_features}",
                self.n_features,
                rows.len()
            )));
        }
        let n = rows.len() / n_features;
        // Values that are not finite are read as 0, as in training.
        let cleaned: Vec<f32>;
        let rows = if rows.iter().all(|v| v.is_finite()) {
            rows
        } else {
            cleaned = rows.iter().map(|&v| clean(v)).collect();
            &cleaned
        };
        // Rows walk the trees 16 at a time (a last, partial batch padded with zeros), so that
        // their walks overlap in the processor; a batch goes through every tree before the
        // next one starts, its rows staying in the first cache (on a page of a few hundred
        // blocks this is about 15% faster than tree by tree over all the rows).
        let mut sums = vec![0.0f32; n.div_ceil(LANES) * LANES];
        let full = n / LANES * LANES;
        let mut tail = vec![0.0f32; LANES * n_features];
        tail[..(n - full) * n_features].copy_from_slice(&rows[full * n_features..]);
        let batches = rows[..full * n_features]
            .chunks_exact(LANES * n_features)
            .chain((full < n).then_some(&tail[..]));
        let sets = self
            .sets
            .get_or_init(|| self.trees.iter().map(set_splits).collect());
        let mut columns = vec![[0.0f32; LANES]; n_features];
        for (s, batch) in sums.as_chunks_mut::<LANES>().0.iter_mut().zip(batches) {
            to_columns(batch, &mut columns);
            add_trees(&self.trees, sets, batch, n_features, &columns, s);
        }
        sums.truncate(n);
        Ok(sums
            .into_iter()
            .map(|s| sigmoid(f64::from(self.base) + f64::from(s)) as f32)
            .collect())
    }

    /// Number of feature columns.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// Number of trees.
    pub fn n_trees(&self) -> usize {
        self.trees.len()
    }

    /// smartcore's impurity-based importances summed over trees, normalised to sum 1.
    pub fn feature_importances(&self) -> Vec<f64> {
        normalised_importances(&self.importances, self.n_features)
    }

    /// Splits on each column, over all trees (the "all left" stand-ins for shallow leaves are
    /// not splits).
    pub fn split_counts(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.n_features];
        for t in &self.trees {
            for &(c, th) in &t.nodes {
                if th.is_finite() {
                    if let Some(k) = counts.get_mut(c as usize) {
                        *k += 1;
                    }
                }
            }
        }
        counts
    }

    /// Check the structure of a booster read from a file, so that prediction stays in bounds.
    pub fn check(&self) -> Result<(), ForestError> {
        if !self.base.is_finite() {
            return Err(ForestError::Shape("the base score is not a number".into()));
        }
        for (i, t) in self.trees.iter().enumerate() {
            t.check(self.n_features)
                .map_err(|e| ForestError::Shape(format!("tree {i}: {e}")))?;
        }
        Ok(())
    }
}

/// What [`BoostTree::from_smartcore`] reads of a regressor's serde form.
#[derive(Deserialize)]
struct RegressorShape {
    tree_regressor: Option<TreeNodes>,
}

#[derive(Deserialize)]
struct TreeNodes {
    nodes: Vec<NodeShape>,
}

#[derive(Deserialize)]
struct NodeShape {
    split_feature: Option<u64>,
    split_value: Option<f64>,
    true_child: Option<u64>,
    false_child: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forest::tests::data;

    fn params() -> BoostParams {
        BoostParams {
            n_trees: 30,
            max_depth: 3,
            min_samples_leaf: 5,
            feature_fraction: 1.0,
            rows_per_tree: 2000,
            learning_rate: 0.3,
            l2: 1.0,
            seed: 7,
        }
    }

    #[test]
    fn learns_a_rule_and_is_deterministic() {
        let (rows, labels) = data(3000, 1);
        let b = Booster::fit(&rows, 3, &labels, None, &params()).unwrap();
        assert_eq!(b.n_trees(), 30);
        b.check().unwrap();
        let (test, truth) = data(1000, 2);
        let scores = b.predict_scores(&test, 3).unwrap();
        assert!(scores.iter().all(|s| (0.0..=1.0).contains(s)));
        let correct = scores
            .iter()
            .zip(&truth)
            .filter(|(s, t)| (**s >= 0.5) == (**t == 1))
            .count();
        assert!(correct > 970, "{correct}/1000");
        let again = Booster::fit(&rows, 3, &labels, None, &params()).unwrap();
        assert_eq!(again.trees, b.trees);
        assert_eq!(again.predict_scores(&test, 3).unwrap(), scores);
        // Another seed draws other rows and grows other trees.
        let other = BoostParams {
            seed: 8,
            ..params()
        };
        assert_ne!(
            Booster::fit(&rows, 3, &labels, None, &other).unwrap().trees,
            b.trees
        );
        // The noise column 1 is split on least.
        let splits = b.split_counts();
        assert!(splits[1] < splits[0] && splits[1] < splits[2], "{splits:?}");
        let imp = b.feature_importances();
        assert!(imp[1] < imp[0] && imp[1] < imp[2], "{imp:?}");
        // Values that are not finite score as 0, as in training.
        let mut odd = test.clone();
        odd[0] = f32::NAN;
        odd[4] = f32::INFINITY;
        let mut zeroed = odd.clone();
        zeroed[0] = 0.0;
        zeroed[4] = 0.0;
        assert_eq!(
            b.predict_scores(&odd, 3).unwrap(),
            b.predict_scores(&zeroed, 3).unwrap()
        );
    }

    /// Row weights count: rows of weight 0 teach nothing.
    #[test]
    fn weights_decide_what_is_learnt() {
        let (rows, labels) = data(3000, 3);
        // Weight only the rows of one class: the booster then calls everything that class.
        let w: Vec<f32> = labels.iter().map(|&l| f32::from(l)).collect();
        let b = Booster::fit(&rows, 3, &labels, Some(&w), &params()).unwrap();
        let scores = b.predict_scores(&data(200, 4).0, 3).unwrap();
        assert!(scores.iter().all(|&s| s > 0.9), "{scores:?}");
        let zero = vec![0.0f32; labels.len()];
        assert!(Booster::fit(&rows, 3, &labels, Some(&zero), &params()).is_err());
    }

    /// The complete layout routes every row to the leaf smartcore's own tree sends it to,
    /// including rows exactly on a split value and one f32 step either side of it.
    #[test]
    fn complete_trees_route_as_smartcore() {
        let (rows, _) = data(3000, 11);
        let columns = vec![0usize, 2];
        let pick = |rows: &[f32]| -> Vec<f32> {
            rows.chunks_exact(3)
                .flat_map(|r| columns.iter().map(|&c| r[c]))
                .collect()
        };
        // A striped target, so that the tree needs its every level.
        let y: Vec<f64> = rows
            .chunks_exact(3)
            .map(|r| f64::from((r[0] * 7.0 + r[2] * 3.0).fract()))
            .collect();
        let x = DenseMatrix::new(3000, 2, pick(&rows), false).unwrap();
        let p = DecisionTreeRegressorParameters::default()
            .with_max_depth(6)
            .with_min_samples_leaf(30);
        let fitted = Regressor::fit(&x, &y, p).unwrap();
        // smartcore's depth 6: five levels of splits.
        let mut tree = BoostTree::from_smartcore(&fitted, &columns, 5).unwrap();
        assert!(BoostTree::from_smartcore(&fitted, &columns, 4).is_err());
        tree.check(3).unwrap();
        // Some leaves stop above the last level (min_samples_leaf), some reach it.
        assert!(tree.nodes.iter().any(|n| n.1.is_infinite()));
        assert!(tree.nodes[15..].iter().any(|n| n.1.is_finite()));
        // Leaf values: the mean target of the training rows in each leaf, which is what
        // smartcore predicts when the routing is the same.
        let (mut sum, mut count) = (vec![0.0f64; 32], vec![0.0f64; 32]);
        for (r, &t) in rows.chunks_exact(3).zip(&y) {
            let l = tree.leaf(r);
            sum[l] += t;
            count[l] += 1.0;
        }
        tree.values = sum
            .iter()
            .zip(&count)
            .map(|(s, c)| if *c > 0.0 { (s / c) as f32 } else { 0.0 })
            .collect();
        let mut test = data(2000, 12).0;
        for &(c, t) in &tree.nodes {
            if t.is_finite() {
                for v in [t, t.next_up(), t.next_down()] {
                    let mut r = [0.5f32; 3];
                    r[c as usize] = v;
                    test.extend(r);
                }
            }
        }
        let n = test.len() / 3;
        let want = fitted
            .predict(&DenseMatrix::new(n, 2, pick(&test), false).unwrap())
            .unwrap();
        let mut padded = test.clone();
        padded.resize(n.div_ceil(LANES) * LANES * 3, 0.0);
        let mut sums = vec![0.0f32; padded.len() / 3];
        for (s, batch) in sums.chunks_mut(LANES).zip(padded.chunks(LANES * 3)) {
            tree.add_batch(batch, 3, s);
        }
        for ((r, w), s) in test.chunks_exact(3).zip(&want).zip(&sums) {
            let got = tree.values[tree.leaf(r)];
            assert!((f64::from(got) - w).abs() < 1e-5, "row {r:?}: {got} vs {w}");
            assert_eq!(*s, got, "row {r:?}");
        }
    }

    /// Leaf sets (trees of up to five levels) and walks (deeper ones) reach the leaf that a
    /// single row's walk reaches, for values on, just above and just below every threshold,
    /// thresholds that send everything left, and a last, partial batch. (On a machine with
    /// AVX2, the leaf sets are [`leaf_sets_avx2`]'s.)
    #[test]
    fn batched_prediction_reaches_the_walked_leaves() {
        let mut rng = Rng(3);
        let mut unit = || (rng.next() >> 40) as f32 / (1u64 << 24) as f32;
        let width = 4;
        let trees: Vec<BoostTree> = (1..=SET_DEPTH as u8 + 2)
            .map(|depth| {
                let splits = (1usize << depth) - 1;
                let nodes = (0..splits)
                    .map(|k| {
                        let t = if k % 5 == 4 { f32::INFINITY } else { unit() };
                        ((k % width) as u32, t)
                    })
                    .collect();
                let values = (0..=splits).map(|_| unit() - 0.5).collect();
                BoostTree {
                    depth,
                    nodes,
                    values,
                }
            })
            .collect();
        let mut rows: Vec<f32> = (0..37 * width).map(|_| unit()).collect();
        for tree in &trees {
            for &(c, t) in tree.nodes.iter().filter(|n| n.1.is_finite()) {
                for v in [t, t.next_up(), t.next_down()] {
                    let mut row: Vec<f32> = (0..width).map(|_| unit()).collect();
                    row[c as usize] = v;
                    rows.extend(row);
                }
            }
        }
        let booster = Booster {
            n_features: width,
            base: 0.25,
            trees,
            importances: vec![0.0; width],
            sets: OnceLock::new(),
        };
        booster.check().unwrap();
        // The plain loop, which processors without AVX2 run, reaches the walked leaves too.
        for batch in rows.chunks(LANES * width) {
            let mut columns = vec![[0.0f32; LANES]; width];
            to_columns(batch, &mut columns);
            for tree in booster
                .trees
                .iter()
                .filter(|t| usize::from(t.depth) <= SET_DEPTH)
            {
                let live = leaf_sets(&set_splits(tree), &columns);
                for (row, l) in batch.chunks_exact(width).zip(live) {
                    assert_eq!(l.trailing_zeros() as usize, tree.leaf(row), "row {row:?}");
                }
            }
        }
        let got = booster.predict_scores(&rows, width).unwrap();
        assert_eq!(got.len(), rows.len() / width);
        for (row, g) in rows.chunks_exact(width).zip(got) {
            let sum: f32 = booster.trees.iter().map(|t| t.values[t.leaf(row)]).sum();
            let want = sigmoid(f64::from(booster.base) + f64::from(sum)) as f32;
            assert_eq!(g, want, "row {row:?}");
        }
    }

    #[test]
    fn broken_trees_are_refused() {
        let (rows, labels) = data(500, 5);
        let good = Booster::fit(&rows, 3, &labels, None, &params()).unwrap();
        let tree = good.trees[0].clone();
        let broken = |f: &dyn Fn(&mut BoostTree)| {
            let mut t = tree.clone();
            f(&mut t);
            t.check(3).unwrap_err()
        };
        assert!(broken(&|t| t.nodes[0].0 = 3).contains("column 3"));
        assert!(broken(&|t| {
            t.values.pop();
        })
        .contains("counts"));
        assert!(broken(&|t| t.values[1] = f32::NAN).contains("not a number"));
        assert!(broken(&|t| t.depth = 12).contains("depth"));
        let mut b = good;
        b.base = f32::INFINITY;
        assert!(b.check().is_err());
        let bad = BoostParams {
            max_depth: 13,
            ..params()
        };
        assert!(Booster::fit(&rows, 3, &labels, None, &bad)
            .unwrap_err()
            .to_string()
            .contains("max_depth"));
    }
}
