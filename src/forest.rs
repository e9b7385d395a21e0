//! A forest bagged from smartcore decision trees.
//!
//! smartcore 0.7's own `RandomForestClassifier` has no `predict_proba` and hides its trees, and
//! a tree's `predict_proba` is 0 or 1. So the forest is built here from public parts: each tree
//! trains on a seeded sample of rows and a seeded subset of feature columns, and the score of a
//! row is the share of trees voting content.
//!
//! Once fitted, a tree is kept as a flat array of nodes (`FlatTree`), read from the smartcore
//! tree's serde form: the splits and leaves smartcore learnt, with split columns mapped back to
//! the forest's rows. Prediction then reads each row where it lies, with no matrix copied per
//! tree, and gives exactly smartcore's decisions (a test holds the two side by side); the
//! model file keeps only what prediction needs, and a file from outside is checked node by
//! node in little time.
//!
//! A tree is grown a few levels per smartcore fit, each fit on the rows of one node only
//! (`grow_tree`): smartcore rescans all the rows of a fit at every node, so this is what
//! keeps retraining in minutes.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use smartcore::linalg::basic::matrix::DenseMatrix;
use smartcore::tree::decision_tree_classifier::{
    DecisionTreeClassifier, DecisionTreeClassifierParameters,
};
use std::sync::OnceLock;

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
    /// The last this many columns are seen by every tree; `feature_fraction` applies to the
    /// others. A second stage uses it so that every tree sees the first stage's scores.
    #[serde(default)]
    pub always_last: usize,
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
            always_last: 0,
        }
    }
}

/// Most trees of a model: a few hundred do the work; a number many times larger is a slip
/// (extra zeros), which would run for days or fail to allocate.
pub const MAX_TREES: usize = 100_000;

/// Most rows drawn for a tree: every tree holds its draw in memory, so a slip of extra zeros
/// would exhaust it; ten million is far beyond any corpus's useful sample.
pub const MAX_ROWS_PER_TREE: usize = 10_000_000;

impl ForestParams {
    /// Check every parameter, naming the bad one.
    pub fn validate(&self) -> Result<(), ForestError> {
        let bad = |m: &str| Err(ForestError::Param(m.to_string()));
        if !(1..=MAX_TREES).contains(&self.n_trees) {
            return bad("model.trees: must be 1 to 100000");
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
        if !(1..=MAX_ROWS_PER_TREE).contains(&self.rows_per_tree) {
            return bad(&format!(
                "model.rows_per_tree: must be 1 to {MAX_ROWS_PER_TREE}"
            ));
        }

        Ok(())
    }
}

/// A node of a [`FlatTree`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct FlatNode {
    /// Column of the forest's rows that the split reads; [`LEAF`] for a leaf.
    column: u32,
    /// Rows whose value is at most this go to `left`, the others to `right`. It is smartcore's
    /// split value (an f64) rounded down to an f32, which decides every f32 value alike.
    threshold: f32,
    /// Index of the child for values at most `threshold`; in a leaf, the vote (1 content).
    left: u32,
    /// Index of the child for the other values.
    right: u32,
}

/// [`FlatNode::column`] of a leaf.
const LEAF: u32 = u32::MAX;

/// Rows that walk a tree together in prediction.
const LANES: usize = 16;

/// A [`FlatTree`] laid out for prediction: a leaf leads back to itself (it reads column 0 and
/// sends every finite value left, to itself), so that every row takes the same number of steps,
/// the tree's depth, with no test for leaves on the way.
#[derive(Debug)]
struct WalkTree {
    /// Per node: column, threshold, and the child for values at most the threshold and for
    /// the others.
    nodes: Vec<(u32, f32, u32, u32)>,
    /// Per node: the vote of a leaf (1 content), 0 for a split.
    votes: Vec<u32>,
    /// Steps from the root to the deepest leaf.
    depth: usize,
}

impl WalkTree {
    fn new(tree: &FlatTree) -> WalkTree {
        let mut level = vec![0usize; tree.nodes.len()];
        let mut depth = 0;
        let mut nodes = Vec::with_capacity(tree.nodes.len());
        let mut votes = Vec::with_capacity(tree.nodes.len());
        for (i, n) in tree.nodes.iter().enumerate() {
            if n.column == LEAF {
                nodes.push((0, f32::INFINITY, i as u32, i as u32));
                votes.push(n.left);
                depth = depth.max(level[i]);
            } else {
                // Children come after their parent (checked when the tree was read).
                level[n.left as usize] = level[i] + 1;
                level[n.right as usize] = level[i] + 1;
                nodes.push((n.column, n.threshold, n.left, n.right));
                votes.push(0);
            }
        }
        WalkTree {
            nodes,
            votes,
            depth,
        }
    }

    /// Add the votes of the rows of row-major `rows` (`width` values each, all finite) to
    /// `votes`.
    fn vote_batch(&self, rows: &[f32], width: usize, votes: &mut [u32]) {
        let mut at = [0u32; LANES];
        let at = &mut at[..votes.len()];
        for _ in 0..self.depth {
            for (r, i) in at.iter_mut().enumerate() {
                let (column, threshold, left, right) = self.nodes[*i as usize];
                let v = rows[r * width + column as usize];
                *i = if v <= threshold { left } else { right };
            }
        }
        for (v, &i) in votes.iter_mut().zip(at.iter()) {
            *v += self.votes[i as usize];
        }
    }
}

/// A fitted tree as nodes in an array, the root first, every child after its parent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct FlatTree {
    nodes: Vec<FlatNode>,
}

impl FlatTree {
    /// Read a fitted smartcore tree through its serde form (smartcore keeps its nodes
    /// private), mapping its split features through `columns`, and check the result.
    fn from_smartcore(tree: &Tree, columns: &[usize]) -> Result<FlatTree, ForestError> {
        let broken =
            |what: &str| ForestError::Fit(format!("a fitted tree reads as broken: {what}"));
        let shape: TreeShape = serde_json::to_vec(tree)
            .and_then(|json| serde_json::from_slice(&json))
            .map_err(|e| broken(&e.to_string()))?;
        if shape.num_features != Some(columns.len() as u64) {
            return Err(broken("its width differs from its columns"));
        }
        // An index below `len`, as a u32.
        let index = |v: Option<u64>, len: usize| {
            v.filter(|&v| v < len as u64)
                .and_then(|v| u32::try_from(v).ok())
        };
        let mut nodes = Vec::with_capacity(shape.nodes.len());
        for n in &shape.nodes {
            let node = match (n.true_child, n.false_child) {
                (None, _) => {
                    let class = index(n.output, shape.classes.len())
                        .map(|o| shape.classes[o as usize])
                        .ok_or_else(|| broken("a leaf without a class"))?;
                    FlatNode {
                        column: LEAF,
                        threshold: 0.0,
                        left: u32::from(class == 1),
                        right: 0,
                    }
                }
                (yes, no) => {
                    let column = index(n.split_feature, columns.len())
                        .ok_or_else(|| broken("a split on no column"))?;
                    let child =
                        |c| index(c, shape.nodes.len()).ok_or_else(|| broken("a lost child"));
                    FlatNode {
                        column: columns[column as usize] as u32,
                        threshold: round_down(n.split_value.unwrap_or(f64::NAN)),
                        left: child(yes)?,
                        right: child(no)?,
                    }
                }
            };
            nodes.push(node);
        }
        let tree = FlatTree { nodes };
        tree.check(usize::MAX, columns).map_err(|e| broken(&e))?;
        Ok(tree)
    }

    /// Every split reads one of `columns` (below `n_features`), every child comes after its
    /// parent and exists, every leaf votes 0 or 1: then prediction stays in bounds and ends.
    fn check(&self, n_features: usize, columns: &[usize]) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("no nodes".into());
        }
        let len = self.nodes.len();
        for (i, n) in self.nodes.iter().enumerate() {
            let ok = if n.column == LEAF {
                n.left <= 1
            } else {
                let child = |c: u32| (c as usize) > i && (c as usize) < len;
                let column = n.column as usize;
                column < n_features && columns.contains(&column) && child(n.left) && child(n.right)
            };
            if !ok {
                return Err(format!("broken node {i}"));
            }
        }
        Ok(())
    }

    /// The tree's vote (1 content, 0 boilerplate) for one row of the forest's columns.
    fn vote(&self, row: &[f32]) -> u32 {
        self.nodes[self.leaf(row)].left
    }

    /// Index of the leaf that `row` reaches.
    fn leaf(&self, row: &[f32]) -> usize {
        let mut i = 0;
        loop {
            let n = &self.nodes[i];
            if n.column == LEAF {
                return i;
            }
            // As in training, NaN and infinite values are read as 0.
            let v = clean(row[n.column as usize]);
            i = if v <= n.threshold { n.left } else { n.right } as usize;
        }
    }
}

/// Levels of a tree that one smartcore fit grows (see [`grow_tree`]).
const LEVELS_PER_FIT: u16 = 6;

/// Grow a tree on row-major `x` (`width` values per row, already [`clean`]) and 0/1 labels
/// `y`; return it with its split columns mapped through `columns`, and smartcore's impurity
/// importances per column of `x`.
///
/// smartcore rescans every row of its sample at every node, so one fit of a deep tree costs
/// its nodes times all the rows. The tree is grown a few levels per fit instead: each leaf that
/// the depth limit of a fit stopped is grown by a new fit on the rows that reach it, and put in
/// its place. Every split is still smartcore's choice on the rows of its node, under the same
/// depth and leaf limits. The tree differs from one grown in a single fit only where smartcore
/// meets rows of equal value in another order (its sort is not stable), which can settle a tie
/// between equally good splits the other way; with distinct values they are the same tree.
fn grow_tree(
    x: &[f32],
    width: usize,
    y: &[u32],
    columns: &[usize],
    params: &ForestParams,
) -> Result<(FlatTree, Vec<f64>), ForestError> {
    let fit_error = |e: smartcore::error::Failed| ForestError::Fit(e.to_string());
    let n = y.len();
    let local: Vec<usize> = (0..width).collect();
    let mut nodes: Vec<FlatNode> = Vec::new();
    let mut importances = vec![0.0f64; width];
    // Pending fits: the leaf they replace (none for the root), the rows that reach it, and the
    // levels left below and including it.
    let mut work: Vec<(Option<usize>, Vec<u32>, u16)> =
        vec![(None, (0..n as u32).collect(), params.max_depth)];
    while let Some((slot, rows, levels)) = work.pop() {
        let depth = levels.min(LEVELS_PER_FIT);
        // Every fit has both classes: the caller's sample has, and only mixed leaves are grown.
        let sub_y: Vec<u32> = rows.iter().map(|&r| y[r as usize]).collect();
        let mut sub_x = Vec::with_capacity(rows.len() * width);
        for &r in &rows {
            let r = r as usize;
            sub_x.extend_from_slice(&x[r * width..(r + 1) * width]);
        }
        let m = DenseMatrix::new(rows.len(), width, sub_x, false).map_err(fit_error)?;
        let tree_params = DecisionTreeClassifierParameters::default()
            .with_max_depth(depth)
            .with_min_samples_leaf(params.min_samples_leaf)
            .with_min_samples_split(2 * params.min_samples_leaf);
        let tree = Tree::fit(&m, &sub_y, tree_params).map_err(fit_error)?;
        // smartcore divides by the rows of the fit; the tree's root has all of them.
        let share = rows.len() as f64 / n as f64;
        for (acc, v) in importances
            .iter_mut()
            .zip(tree.compute_feature_importances(false))
        {
            *acc += v * share;
        }
        let sub = FlatTree::from_smartcore(&tree, &local)?;
        // The fit's nodes join the tree: its root in the leaf's slot, the rest at the end.
        let base = nodes.len();
        let place = |k: usize| -> usize {
            match slot {
                Some(s) if k == 0 => s,
                Some(_) => base + k - 1,
                None => base + k,
            }
        };
        for (k, node) in sub.nodes.iter().enumerate() {
            let mut node = *node;
            if node.column != LEAF {
                node.left = place(node.left as usize) as u32;
                node.right = place(node.right as usize) as u32;
            }
            match slot {
                Some(s) if k == 0 => nodes[s] = node,
                _ => nodes.push(node),
            }
        }
        if levels <= depth {
            continue;
        }
        // Leaves on the fit's last level may split further: their rows go to new fits.
        let mut level = vec![1u16; sub.nodes.len()];
        for (k, node) in sub.nodes.iter().enumerate() {
            if node.column != LEAF {
                level[node.left as usize] = level[k] + 1;
                level[node.right as usize] = level[k] + 1;
            }
        }
        let mut reach: Vec<Vec<u32>> = vec![Vec::new(); sub.nodes.len()];
        for &r in &rows {
            let r_at = r as usize * width;
            let leaf = sub.leaf(&x[r_at..r_at + width]);
            if level[leaf] == depth {
                reach[leaf].push(r);
            }
        }
        for (k, rows) in reach.into_iter().enumerate() {
            let mixed = rows.iter().any(|&r| y[r as usize] != y[rows[0] as usize]);
            if mixed && rows.len() >= 2 * params.min_samples_leaf {
                work.push((Some(place(k)), rows, levels - (depth - 1)));
            }
        }
    }
    for node in &mut nodes {
        if node.column != LEAF {
            node.column = columns[node.column as usize] as u32;
        }
    }
    let tree = FlatTree { nodes };
    tree.check(usize::MAX, columns)
        .map_err(|e| ForestError::Fit(format!("a grown tree is broken: {e}")))?;
    Ok((tree, importances))
}

/// The largest f32 at most `t` (NaN stays NaN): for any f32 `x`, `x <= round_down(t)` exactly
/// when `f64::from(x) <= t`, smartcore's test.
pub(crate) fn round_down(t: f64) -> f32 {
    let r = t as f32;
    if f64::from(r) > t {
        r.next_down()
    } else {
        r
    }
}

/// One tree and the columns it was trained on.
#[derive(Debug, Serialize, Deserialize)]
struct Member {
    columns: Vec<usize>,
    tree: FlatTree,
}

impl Member {
    /// The tree's votes for the rows `idx` of row-major `rows`.
    fn predict_rows(&self, rows: &[f32], n_features: usize, idx: &[usize]) -> Vec<u32> {
        idx.iter()
            .map(|&r| self.tree.vote(&rows[r * n_features..(r + 1) * n_features]))
            .collect()
    }
}

/// A trained forest.
#[derive(Debug, Serialize, Deserialize)]
pub struct Forest {
    n_features: usize,
    members: Vec<Member>,
    /// The answer for every row when the training data had a single class (no trees then).
    constant: Option<f32>,
    /// smartcore's impurity-based importances of the trees when they were fitted, summed per
    /// column.
    importances: Vec<f64>,
    /// The trees laid out for prediction, made at the first prediction.
    #[serde(skip)]
    walk: OnceLock<Vec<WalkTree>>,
}

/// splitmix64: a small, well-known generator, enough for sampling rows and columns.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Index drawn with probability proportional to its weight, from cumulative weights.
pub(crate) fn draw(cumulative: &[f64], rng: &mut Rng) -> usize {
    let total = cumulative.last().copied().unwrap_or(0.0);
    if total <= 0.0 {
        return rng.below(cumulative.len().max(1));
    }
    let x = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
    cumulative
        .partition_point(|&c| c <= x)
        .min(cumulative.len() - 1)
}

/// A value as training and prediction read it: NaN and infinities as 0.
pub(crate) fn clean(v: f32) -> f32 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

/// Check that `rows` are rows of `n_features` values, one per label, with one finite weight of
/// 0 or more per row; the number of rows.
pub(crate) fn check_shapes(
    rows: &[f32],
    n_features: usize,
    labels: &[u8],
    weights: Option<&[f32]>,
) -> Result<usize, ForestError> {
    if n_features == 0 || !rows.len().is_multiple_of(n_features) {
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
    if weights.is_some_and(|w| w.len() != n) {
        return Err(ForestError::Shape(format!(
            "{n} rows but {} weights",
            weights.map_or(0, <[f32]>::len)
        )));
    }
    if let Some(i) = weights.and_then(|w| w.iter().position(|v| !(v.is_finite() && *v >= 0.0))) {
        return Err(ForestError::Shape(format!(
            "row {i} has weight {}",
            weights.map_or(0.0, |w| w[i])
        )));
    }
    Ok(n)
}

/// Whether tree `t` leaves group `g` out of its sample (about half of the groups per tree).
fn left_out(seed: u64, t: usize, g: u32) -> bool {
    let mut rng = Rng(seed ^ 0x5851_f42d_4c95_7f2d ^ ((t as u64) << 32) ^ u64::from(g));
    rng.next() & 1 == 1
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
        Ok(Self::fit_inner(rows, n_features, labels, weights, None, params)?.0)
    }

    /// Like [`Forest::fit`], but every tree draws its rows from about half of the `groups`
    /// (one group id per row, e.g. the page's site), and each row also gets an out-of-group
    /// score: the share of content votes among the trees that never saw its group. Those
    /// scores behave like scores of unseen sites, so a second model can learn from them.
    pub fn fit_grouped(
        rows: &[f32],
        n_features: usize,
        labels: &[u8],
        weights: Option<&[f32]>,
        groups: &[u32],
        params: &ForestParams,
    ) -> Result<(Forest, Vec<f32>), ForestError> {
        if groups.len() != labels.len() {
            return Err(ForestError::Shape(format!(
                "{} labels but {} groups",
                labels.len(),
                groups.len()
            )));
        }
        let (forest, oob) =
            Self::fit_inner(rows, n_features, labels, weights, Some(groups), params)?;
        let oob = match oob {
            Some(s) => s,
            None => forest.predict_scores(rows, n_features)?,
        };
        Ok((forest, oob))
    }

    fn fit_inner(
        rows: &[f32],
        n_features: usize,
        labels: &[u8],
        weights: Option<&[f32]>,
        groups: Option<&[u32]>,
        params: &ForestParams,
    ) -> Result<(Forest, Option<Vec<f32>>), ForestError> {
        params.validate()?;
        let n = check_shapes(rows, n_features, labels, weights)?;
        let positives = labels.iter().any(|&l| l != 0);
        let negatives = labels.contains(&0);
        if !positives || !negatives {
            // smartcore cannot fit one class; the answer is known anyway.
            let c = if positives { 1.0 } else { 0.0 };
            let forest = Forest {
                n_features,
                members: Vec::new(),
                constant: Some(c),
                importances: vec![0.0; n_features],
                walk: OnceLock::new(),
            };
            return Ok((forest, groups.map(|_| vec![c; n])));
        }
        // Columns drawn per tree, among the first `free` ones; the rest are always seen.
        let always = params.always_last.min(n_features);
        let free = n_features - always;
        let n_cols = if free == 0 {
            0
        } else {
            ((free as f64 * params.feature_fraction).round() as usize).clamp(1, free)
        };
        let fitted: Result<Vec<(Member, Vec<f64>)>, ForestError> = (0..params.n_trees)
            .into_par_iter()
            .map(|t| {
                let mut rng = Rng(params.seed ^ (t as u64).wrapping_mul(0xa076_1d64_78bd_642f));
                let mut columns: Vec<usize> = (0..free).collect();
                if n_cols < free {
                    // Partial Fisher-Yates shuffle picks the first n_cols columns.
                    for i in 0..n_cols {
                        let j = i + rng.below(free - i);
                        columns.swap(i, j);
                    }
                    columns.truncate(n_cols);
                    columns.sort_unstable();
                }
                columns.extend(free..n_features);
                // The rows this tree may draw from, split by class.
                let seen = |i: &usize| groups.is_none_or(|g| !left_out(params.seed, t, g[*i]));
                let mut pool: Vec<usize> = (0..n).filter(seen).collect();
                if pool.is_empty() {
                    pool = (0..n).collect();
                }
                let (pos, neg): (Vec<usize>, Vec<usize>) =
                    pool.iter().partition(|&&i| labels[i] != 0);
                let cumulative = |pool: &[usize]| -> Vec<f64> {
                    let mut acc = 0.0f64;
                    pool.iter()
                        .map(|&i| {
                            acc += weights.map_or(1.0, |w| f64::from(w[i]));
                            acc
                        })
                        .collect()
                };
                let whole = groups.is_none()
                    && params.n_trees == 1
                    && columns.len() == n_features
                    && n <= params.rows_per_tree;
                let mut sample: Vec<usize> = if whole && weights.is_none() {
                    (0..n).collect()
                } else if params.balance && !pos.is_empty() && !neg.is_empty() {
                    let (cum_pos, cum_neg) = (cumulative(&pos), cumulative(&neg));
                    (0..params.rows_per_tree)
                        .map(|i| {
                            if i % 2 == 0 {
                                pos[draw(&cum_pos, &mut rng)]
                            } else {
                                neg[draw(&cum_neg, &mut rng)]
                            }
                        })
                        .collect()
                } else {
                    let cum = cumulative(&pool);
                    (0..params.rows_per_tree)
                        .map(|_| pool[draw(&cum, &mut rng)])
                        .collect()
                };
                // smartcore cannot fit one class: a sample that missed a class gets one row of
                // it, from the tree's own groups when they have one.
                for class in [1u8, 0] {
                    if !sample.iter().any(|&r| (labels[r] != 0) == (class != 0)) {
                        let own = if class == 1 { &pos } else { &neg };
                        let row = if own.is_empty() {
                            let all: Vec<usize> = (0..n)
                                .filter(|&i| (labels[i] != 0) == (class != 0))
                                .collect();
                            all[rng.below(all.len())]
                        } else {
                            own[rng.below(own.len())]
                        };
                        sample.push(row);
                    }
                }
                let mut x = Vec::with_capacity(sample.len() * columns.len());
                for &r in &sample {
                    let row = &rows[r * n_features..(r + 1) * n_features];
                    x.extend(columns.iter().map(|&c| clean(row[c])));
                }
                let y: Vec<u32> = sample.iter().map(|&r| u32::from(labels[r] != 0)).collect();
                let (tree, importances) = grow_tree(&x, columns.len(), &y, &columns, params)?;
                Ok((Member { columns, tree }, importances))
            })
            .collect();
        let mut members = Vec::with_capacity(params.n_trees);
        let mut importances = vec![0.0; n_features];
        for (m, imp) in fitted? {
            for (&c, v) in m.columns.iter().zip(imp) {
                if v.is_finite() {
                    importances[c] += v;
                }
            }
            members.push(m);
        }
        let forest = Forest {
            n_features,
            members,
            constant: None,
            importances,
            walk: OnceLock::new(),
        };
        let oob = match groups {
            Some(g) => Some(forest.out_of_group_scores(rows, g, params.seed)?),
            None => None,
        };
        Ok((forest, oob))
    }

    /// Votes of the trees that left each row's group out; rows that every tree saw get the
    /// whole forest's score.
    fn out_of_group_scores(
        &self,
        rows: &[f32],
        groups: &[u32],
        seed: u64,
    ) -> Result<Vec<f32>, ForestError> {
        let n = groups.len();
        // Per tree: the rows it left out and its classes for them.
        type LeftOut = (Vec<usize>, Vec<u32>);
        let per_tree: Result<Vec<LeftOut>, ForestError> = self
            .members
            .par_iter()
            .enumerate()
            .map(|(t, m)| {
                let idx: Vec<usize> = (0..n).filter(|&i| left_out(seed, t, groups[i])).collect();
                let y = m.predict_rows(rows, self.n_features, &idx);
                Ok((idx, y))
            })
            .collect();
        let mut votes = vec![0u32; n];
        let mut counts = vec![0u32; n];
        for (idx, y) in per_tree? {
            for (&i, &c) in idx.iter().zip(&y) {
                counts[i] += 1;
                votes[i] += u32::from(c == 1);
            }
        }
        let unseen: Vec<usize> = (0..n).filter(|&i| counts[i] == 0).collect();
        let mut scores: Vec<f32> = votes
            .iter()
            .zip(&counts)
            .map(|(&v, &c)| if c == 0 { 0.0 } else { v as f32 / c as f32 })
            .collect();
        if !unseen.is_empty() {
            let mut x = Vec::with_capacity(unseen.len() * self.n_features);
            for &i in &unseen {
                x.extend_from_slice(&rows[i * self.n_features..(i + 1) * self.n_features]);
            }
            for (&i, s) in unseen.iter().zip(self.predict_scores(&x, self.n_features)?) {
                scores[i] = s;
            }
        }
        Ok(scores)
    }

    /// Share of trees voting class 1, per row of row-major `rows`.
    pub fn predict_scores(&self, rows: &[f32], n_features: usize) -> Result<Vec<f32>, ForestError> {
        if n_features != self.n_features || !rows.len().is_multiple_of(n_features) {
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
        // Values that are not finite are read as 0, as in training: once here, not at every
        // node.
        let cleaned: Vec<f32>;
        let rows = if rows.iter().all(|v| v.is_finite()) {
            rows
        } else {
            cleaned = rows.iter().map(|&v| clean(v)).collect();
            &cleaned
        };
        let walk = self.walk.get_or_init(|| {
            self.members
                .iter()
                .map(|m| WalkTree::new(&m.tree))
                .collect()
        });
        // Tree by tree, so that one tree's nodes stay in the cache over the rows; and rows a
        // batch at a time, one level per pass, so that the rows' walks overlap in the processor
        // instead of each waiting on its own chain of loads.
        for tree in walk {
            for (v, batch) in votes.chunks_mut(LANES).zip(rows.chunks(LANES * n_features)) {
                tree.vote_batch(batch, n_features, v);
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
        normalised_importances(&self.importances, self.n_features)
    }
}

impl Forest {
    /// Splits on each column, counted over the nodes of all trees.
    pub fn split_counts(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.n_features];
        for m in &self.members {
            for n in m.tree.nodes.iter().filter(|n| n.column != LEAF) {
                if let Some(c) = counts.get_mut(n.column as usize) {
                    *c += 1;
                }
            }
        }
        counts
    }

    /// Check the structure of a forest read from a file, so that prediction cannot index out
    /// of bounds or loop: every column exists, every tree is non-empty, its nodes split on its
    /// own columns, their children come after them, and its leaves vote 0 or 1.
    pub fn check(&self) -> Result<(), ForestError> {
        let bad = |m: String| Err(ForestError::Shape(m));
        if let Some(c) = self.constant {
            if !(0.0..=1.0).contains(&c) {
                return bad(format!("constant score {c} outside 0..1"));
            }
        }
        for (t, m) in self.members.iter().enumerate() {
            if let Some(c) = m.columns.iter().find(|&&c| c >= self.n_features) {
                return bad(format!("tree {t} reads column {c} of {}", self.n_features));
            }
            if let Err(e) = m.tree.check(self.n_features, &m.columns) {
                return bad(format!("tree {t}: {e}"));
            }
        }
        Ok(())
    }
}

/// Importances summed over trees, padded to `n_features` columns and normalised to sum 1
/// (all zeros stay zeros).
pub(crate) fn normalised_importances(importances: &[f64], n_features: usize) -> Vec<f64> {
    let mut total = importances.to_vec();
    total.resize(n_features, 0.0);
    let sum: f64 = total.iter().sum();
    if sum > 0.0 {
        total.iter_mut().for_each(|v| *v /= sum);
    }
    total
}

/// What a tree's serde form holds that [`FlatTree::from_smartcore`] reads; other fields are
/// skipped.
#[derive(Deserialize)]
struct TreeShape {
    #[serde(default)]
    nodes: Vec<NodeShape>,
    #[serde(default)]
    classes: Vec<u32>,
    num_features: Option<u64>,
}

/// What [`TreeShape`] reads of a node.
#[derive(Deserialize)]
struct NodeShape {
    output: Option<u64>,
    split_feature: Option<u64>,
    split_value: Option<f64>,
    true_child: Option<u64>,
    false_child: Option<u64>,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Rows of 3 features; class 1 when feature 0 > 0.5 and feature 2 < 0.3.
    pub(crate) fn data(n: usize, seed: u64) -> (Vec<f32>, Vec<u8>) {
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
            always_last: 0,
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
        // Values that are not finite score as 0, as in training, in batches and alone.
        let mut odd = test.clone();
        odd[0] = f32::NAN;
        odd[4] = f32::INFINITY;
        odd[8] = f32::NEG_INFINITY;
        let mut zeroed = odd.clone();
        for i in [0, 4, 8] {
            zeroed[i] = 0.0;
        }
        let odd_scores = f.predict_scores(&odd, 3).unwrap();
        assert_eq!(odd_scores, f.predict_scores(&zeroed, 3).unwrap());
        for (r, row) in odd.chunks_exact(3).enumerate().take(4) {
            assert_eq!(f.predict_scores(row, 3).unwrap()[0], odd_scores[r]);
        }
        let imp = f.feature_importances();
        assert!(imp[1] < imp[0] && imp[1] < imp[2], "{imp:?}");
        // The rule reads columns 0 and 2; splits on the noise column 1 are few.
        let splits = f.split_counts();
        assert!(splits[1] < splits[0] && splits[1] < splits[2], "{splits:?}");
        let inner: usize = f
            .members
            .iter()
            .map(|m| m.tree.nodes.iter().filter(|n| n.column != LEAF).count())
            .sum();
        assert_eq!(splits.iter().map(|&c| c as usize).sum::<usize>(), inner);
    }

    /// A flat tree decides every row as the smartcore tree it was read from, including rows
    /// that sit exactly on a split value or one f32 step either side of it.
    #[test]
    fn flat_trees_decide_as_smartcore() {
        let rows = data(3000, 11).0;
        let columns = vec![0usize, 2];
        let pick = |rows: &[f32]| -> Vec<f32> {
            rows.chunks_exact(3)
                .flat_map(|r| columns.iter().map(|&c| r[c]))
                .collect()
        };
        // A striped rule, so that the tree needs many splits.
        let y: Vec<u32> = rows
            .chunks_exact(3)
            .map(|r| u32::from((r[0] * 7.0 + r[2] * 3.0).fract() > 0.5))
            .collect();
        let x = DenseMatrix::new(3000, 2, pick(&rows), false).unwrap();
        let params = DecisionTreeClassifierParameters::default().with_max_depth(10);
        let tree = Tree::fit(&x, &y, params).unwrap();
        let flat = FlatTree::from_smartcore(&tree, &columns).unwrap();
        assert!(flat.nodes.len() > 20, "{} nodes", flat.nodes.len());
        let mut test = data(3000, 12).0;
        for n in flat.nodes.iter().filter(|n| n.column != LEAF) {
            for v in [n.threshold, n.threshold.next_up(), n.threshold.next_down()] {
                let mut r = [0.5f32; 3];
                r[n.column as usize] = v;
                test.extend(r);
            }
        }
        test.extend([f32::NAN, 0.7, f32::INFINITY]);
        let n = test.len() / 3;
        let want = tree
            .predict(
                &DenseMatrix::new(n, 2, pick(&test).iter().map(|&v| clean(v)).collect(), false)
                    .unwrap(),
            )
            .unwrap();
        for (r, w) in test.chunks_exact(3).zip(&want) {
            assert_eq!(flat.vote(r), u32::from(*w == 1), "row {r:?}");
        }
        // Rows walked a batch at a time, in the prediction layout (values cleaned first, as
        // `predict_scores` does), vote as rows walked alone.
        let walk = WalkTree::new(&flat);
        assert!(walk.depth > 3 && walk.depth <= 10, "depth {}", walk.depth);
        let cleaned: Vec<f32> = test.iter().map(|&v| clean(v)).collect();
        let mut votes = vec![0u32; n];
        for (v, batch) in votes.chunks_mut(LANES).zip(cleaned.chunks(LANES * 3)) {
            walk.vote_batch(batch, 3, v);
        }
        let alone: Vec<u32> = test.chunks_exact(3).map(|r| flat.vote(r)).collect();
        assert_eq!(votes, alone);
    }

    /// With distinct values in every column, a tree grown a few levels per fit is the tree
    /// that one smartcore fit grows: same size, same decisions, same importances.
    #[test]
    fn a_tree_grown_in_parts_is_the_whole_tree() {
        let n = 4000;
        let width = 3;
        // Each column a shuffled 0..n, so no two rows share a value.
        let mut rng = Rng(5);
        let mut cols: Vec<Vec<f32>> = Vec::new();
        for _ in 0..width {
            let mut v: Vec<f32> = (0..n).map(|i| i as f32 / n as f32).collect();
            for i in (1..n).rev() {
                v.swap(i, rng.below(i + 1));
            }
            cols.push(v);
        }
        let x: Vec<f32> = (0..n)
            .flat_map(|i| cols.iter().map(move |c| c[i]))
            .collect();
        let y: Vec<u32> = x
            .chunks_exact(width)
            .map(|r| u32::from((r[0] * 5.0 + r[1] * 3.0).fract() > 0.4 + r[2] * 0.2))
            .collect();
        let columns = vec![1usize, 4, 6];
        let params = ForestParams {
            max_depth: 15,
            min_samples_leaf: 2,
            ..params()
        };
        let whole = Tree::fit(
            &DenseMatrix::new(n, width, x.clone(), false).unwrap(),
            &y,
            DecisionTreeClassifierParameters::default()
                .with_max_depth(params.max_depth)
                .with_min_samples_leaf(2)
                .with_min_samples_split(4),
        )
        .unwrap();
        let whole_imp = whole.compute_feature_importances(false);
        let whole = FlatTree::from_smartcore(&whole, &columns).unwrap();
        let (grown, imp) = grow_tree(&x, width, &y, &columns, &params).unwrap();
        assert!(whole.nodes.len() > 200, "{} nodes", whole.nodes.len());
        assert_eq!(grown.nodes.len(), whole.nodes.len());
        let mut test = data(3000, 21).0;
        test.extend(&x);
        for r in test.chunks_exact(width) {
            let mut row = [0.0f32; 7];
            for (&c, &v) in columns.iter().zip(r) {
                row[c] = v;
            }
            assert_eq!(grown.vote(&row), whole.vote(&row), "row {r:?}");
        }
        for (a, b) in imp.iter().zip(&whole_imp) {
            assert!((a - b).abs() < 1e-9, "{imp:?} {whole_imp:?}");
        }
    }

    #[test]
    fn round_down_keeps_the_comparison() {
        for t in [0.1f64, 0.35, 1.0 / 3.0, 2.5, -0.7, 1e-40, 1e39] {
            let r = round_down(t);
            assert!(f64::from(r) <= t, "{t}");
            assert!(f64::from(r.next_up()) > t, "{t}");
        }
        assert_eq!(round_down(f64::INFINITY), f32::INFINITY);
        assert!(round_down(f64::NAN).is_nan());
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
        // Through the model file's own framing, the one place that knows the encoding.
        let bytes = crate::serial::encode(0, &(), &f).unwrap();
        let ((), g): ((), Forest) = crate::serial::decode(&bytes, 0).unwrap();
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
    fn out_of_group_scores_come_from_trees_that_never_saw_the_group() {
        // Ten groups; feature 1 names the group. Group 9 inverts the rule, which trees that
        // saw it can learn from feature 1 and trees that did not cannot.
        let (mut rows, mut labels) = data(4000, 8);
        let groups: Vec<u32> = (0..4000u32).map(|i| i % 10).collect();
        for (i, &g) in groups.iter().enumerate() {
            rows[i * 3 + 1] = g as f32 / 10.0;
            if g == 9 {
                labels[i] = 1 - labels[i];
            }
        }
        let p = ForestParams {
            n_trees: 12,
            ..params()
        };
        let (f, oob) = Forest::fit_grouped(&rows, 3, &labels, None, &groups, &p).unwrap();
        let full = f.predict_scores(&rows, 3).unwrap();
        let accuracy = |s: &[f32]| {
            let idx: Vec<usize> = (0..4000).filter(|&i| groups[i] == 9).collect();
            idx.iter()
                .filter(|&&i| (s[i] >= 0.5) == (labels[i] == 1))
                .count() as f64
                / idx.len() as f64
        };
        assert!(accuracy(&oob) < 0.3, "out of group {}", accuracy(&oob));
        assert!(accuracy(&full) > 0.7, "whole forest {}", accuracy(&full));
        let (_, again) = Forest::fit_grouped(&rows, 3, &labels, None, &groups, &p).unwrap();
        assert_eq!(again, oob);
        assert!(Forest::fit_grouped(&rows, 3, &labels, None, &groups[1..], &p).is_err());
    }

    #[test]
    fn the_last_columns_are_in_every_tree() {
        let (rows, labels) = data(500, 9);
        let p = ForestParams {
            feature_fraction: 0.5,
            always_last: 1,
            ..params()
        };
        let f = Forest::fit(&rows, 3, &labels, None, &p).unwrap();
        for m in &f.members {
            // One of the two free columns, and the last one.
            assert_eq!(m.columns.len(), 2, "{:?}", m.columns);
            assert_eq!(m.columns[1], 2);
        }
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
