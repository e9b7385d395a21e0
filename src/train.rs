//! Training: a recipe, domain-grouped cross-validation, the final model, and its report.

use crate::annotate::{content_text, LabeledPage};
use crate::boost::BoostParams;
use crate::decode::{Decoder, Decoding, Favor};
use crate::error::{Error, Result};
use crate::eval::{Confusion, Evaluation, Means, PageScore};
use crate::features::{F, N_FEATURES, SCHEMA};
use crate::forest::ForestParams;
use crate::model::{Model, ModelInfo, ModelKind, StageParams, TrainingRows};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Everything that decides how a model is trained. Read from TOML (`training/recipe.toml`),
/// overridden by command-line flags, validated before training.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// The classifier.
    #[serde(default)]
    pub model: ModelRecipe,
    /// How gold text becomes block labels.
    #[serde(default)]
    pub labels: LabelRecipe,
    /// Cross-validation.
    #[serde(default)]
    pub cv: CvRecipe,
}

/// Classifier settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelRecipe {
    /// `boosted` (gradient-boosted regression trees, the shipped kind), `stacked` (forests,
    /// each after the first also seeing the previous one's scores of the whole page), `forest`
    /// or `tree`.
    pub kind: ModelKind,
    /// Boosting rounds, or trees in each forest (a tree model has one).
    pub trees: usize,
    /// Maximum tree depth.
    pub max_depth: u16,
    /// Minimum rows in a leaf.
    pub min_samples_leaf: usize,
    /// Share of the features each tree sees.
    pub feature_fraction: f64,
    /// Rows sampled (with replacement) for each tree; boosted models draw them by weight ×
    /// the loss's curvature.
    pub rows_per_tree: usize,
    /// Forests: sample both classes equally for each tree.
    pub balance: bool,
    /// How rows are weighted when sampled for a tree.
    pub weighting: Weighting,
    /// Random seed: the same recipe and data give the same model.
    pub seed: u64,
    /// Forests of a stacked model (2 or more): each after the first also sees the previous
    /// one's scores of the whole page. Other kinds have one.
    pub stages: usize,
    /// Boosted models: the factor on every tree's values.
    pub learning_rate: f64,
    /// Boosted models: added to the curvature of every leaf, shrinking leaves of few rows.
    pub l2: f64,
}

impl Default for ModelRecipe {
    fn default() -> Self {
        // The shipped recipe (`training/recipe.toml`).
        ModelRecipe {
            kind: ModelKind::Boosted,
            trees: 300,
            max_depth: 6,
            min_samples_leaf: 20,
            feature_fraction: 0.5,
            rows_per_tree: 50_000,
            balance: false,
            weighting: Weighting::Words,
            seed: 42,
            stages: 2,
            learning_rate: 0.1,
            l2: 1.0,
        }
    }
}

/// How training rows (blocks) are weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Weighting {
    /// Every block alike: long pages with many blocks dominate.
    Block,
    /// Every page alike: a block weighs 1 / blocks of its page.
    Page,
    /// Every page alike, and within a page blocks by words: (words + 1) / (page words +
    /// page blocks). Matches the metric, a mean over pages of word scores.
    Words,
}

/// Label derivation settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LabelRecipe {
    /// A block is content when at least this share of its words align with the gold text.
    #[serde(serialize_with = "f32_short")]
    pub min_aligned: f32,
    /// Share of the pages with gold text that are also trained on as two clean copies, all
    /// content: their gold text alone as a plain page ([`crate::annotate::clean_copy`]), and
    /// its opening as a page of one block ([`crate::annotate::single_block_copy`]). Copies
    /// only ever train; cross-validation scores the real pages.
    pub clean_copies: f64,
}

impl Default for LabelRecipe {
    fn default() -> Self {
        LabelRecipe {
            min_aligned: 0.5,
            clean_copies: 0.03,
        }
    }
}

/// Cross-validation settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CvRecipe {
    /// Folds, grouped by domain (0: no cross-validation; 1 is refused, as it leaves nothing
    /// to test on).
    pub folds: usize,
    /// Candidate score thresholds; the one with the best cross-validated word F1 is stored in
    /// the model.
    #[serde(serialize_with = "f32s_short")]
    pub thresholds: Vec<f32>,
}

/// An `f32` as the shortest decimal that reads back as it: TOML's floats have 64 bits, in
/// which `0.3f32` would be written 0.30000001192092896 (in the report and `model-info`).
fn short(v: f32) -> f64 {
    v.to_string().parse().unwrap_or(f64::from(v))
}

fn f32_short<S: serde::Serializer>(v: &f32, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_f64(short(*v))
}

fn f32s_short<S: serde::Serializer>(v: &[f32], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|&v| short(v)))
}

impl Default for CvRecipe {
    fn default() -> Self {
        CvRecipe {
            folds: 5,
            thresholds: vec![0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7],
        }
    }
}

impl Recipe {
    /// Parse a TOML recipe.
    pub fn from_toml(text: &str) -> Result<Recipe> {
        let r = Recipe::read_toml(text)?;
        r.validate()?;
        Ok(r)
    }

    /// A recipe as written, its values not checked yet: a program that overrides some of them
    /// (as `textsift train`'s flags do) checks the result with [`Recipe::validate`]. A syntax
    /// error, an unknown key or a value of the wrong type is an error here, on one line with
    /// where it is.
    pub fn read_toml(text: &str) -> Result<Recipe> {
        toml::from_str(text).map_err(|e| {
            let at = e.span().map(|span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                format!(" at line {line}, column {column}")
            });
            // The parser's message may take several lines ("invalid table header", then
            // what it expected): one line, so that the report stays one.
            let message: Vec<&str> = e.message().lines().map(str::trim).collect();
            Error::Config(format!(
                "recipe{}: {}",
                at.unwrap_or_default(),
                message.join("; ")
            ))
        })
    }

    /// The recipe as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Check every setting, naming the bad one.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Config(m));
        match self.stage_params() {
            StageParams::Forest(p) => p.validate(),
            StageParams::Boosted(p) => p.validate(),
        }
        .map_err(|e| Error::Config(e.to_string()))?;
        if self.model.kind == ModelKind::Tree && self.model.trees != 1 {
            return bad(format!(
                "model.kind = \"tree\" needs model.trees = 1 (got {})",
                self.model.trees
            ));
        }
        // Only stacked models read it, but a model file records it whatever its kind.
        if !(2..=5).contains(&self.model.stages) {
            return bad(format!(
                "model.stages must be 2 to 5 (got {}); only stacked models use it",
                self.model.stages
            ));
        }
        if self.cv.folds == 1 {
            return bad("cv.folds must be 0 (no cross-validation) or at least 2, got 1".into());
        }
        if !(self.labels.min_aligned > 0.0 && self.labels.min_aligned <= 1.0) {
            return bad(format!(
                "labels.min_aligned must be in (0, 1], got {}",
                self.labels.min_aligned
            ));
        }
        if !(0.0..=1.0).contains(&self.labels.clean_copies) {
            return bad(format!(
                "labels.clean_copies must be in [0, 1], got {}",
                self.labels.clean_copies
            ));
        }
        if self.cv.thresholds.is_empty()
            || self.cv.thresholds.iter().any(|t| !(0.0..=1.0).contains(t))
        {
            return bad("cv.thresholds must be a non-empty list of values in 0..1".into());
        }
        Ok(())
    }

    /// How this recipe trains a stage.
    pub fn stage_params(&self) -> StageParams {
        let m = &self.model;
        if m.kind == ModelKind::Boosted {
            StageParams::Boosted(BoostParams {
                n_trees: m.trees,
                max_depth: m.max_depth,
                min_samples_leaf: m.min_samples_leaf,
                feature_fraction: m.feature_fraction,
                rows_per_tree: m.rows_per_tree,
                learning_rate: m.learning_rate,
                l2: m.l2,
                seed: m.seed,
            })
        } else {
            StageParams::Forest(self.forest_params())
        }
    }

    /// The forest parameters of this recipe.
    pub fn forest_params(&self) -> ForestParams {
        let m = &self.model;
        let tree = m.kind == ModelKind::Tree;
        ForestParams {
            n_trees: m.trees,
            max_depth: m.max_depth,
            min_samples_leaf: m.min_samples_leaf,
            feature_fraction: if tree { 1.0 } else { m.feature_fraction },
            rows_per_tree: m.rows_per_tree,
            balance: m.balance,
            seed: m.seed,
            always_last: 0,
        }
    }
}

/// Assign every page to a fold so that all pages of a group (domain) share a fold. Groups are
/// placed largest first into the fold with the fewest pages; ties by name, so it is deterministic.
pub fn assign_folds(groups: &[&str], folds: usize) -> Vec<usize> {
    use std::collections::BTreeMap;
    let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
    for g in groups {
        *sizes.entry(g).or_default() += 1;
    }
    let mut order: Vec<(&str, usize)> = sizes.into_iter().collect();
    // Spread groups by a hash of the name rather than alphabetically, so folds mix sites.
    order.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(fnv(a.0).cmp(&fnv(b.0)))
            .then(a.0.cmp(b.0))
    });
    let mut load = vec![0usize; folds.max(1)];
    let mut fold_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (g, n) in order {
        let f = (0..load.len()).min_by_key(|&f| (load[f], f)).unwrap_or(0);
        load[f] += n;
        fold_of.insert(g, f);
    }
    groups.iter().map(|g| fold_of[g]).collect()
}

/// The clean copies of a share of the pages (picked by a hash of the page id, so the same pages
/// every run), each with the index of its page: a plain page of the gold text, and one of its
/// opening as a single block in an element that the rest of the same hash picks.
fn clean_copies(pages: &[LabeledPage], share: f64) -> Vec<(usize, LabeledPage)> {
    let cut = (share * 10_000.0).round() as u64;
    pages
        .par_iter()
        .enumerate()
        .filter(|(_, p)| fnv(&p.id) % 10_000 < cut)
        .flat_map_iter(|(i, p)| {
            let single = crate::annotate::single_block_copy(p, fnv(&p.id) / 10_000);
            crate::annotate::clean_copy(p)
                .into_iter()
                .chain(single)
                .map(move |c| (i, c))
        })
        .collect()
}

fn fnv(s: &str) -> u64 {
    crate::features::fnv1a(crate::features::FNV_START, s.as_bytes())
}

/// Whether every page is of one site: then each page stands for a site where sites are
/// counted (the folds, and the class/id tokens learned on at least 3 sites, each row reading
/// them without its own), so that a person's annotations of their own site learn its classes.
fn one_site(pages: &[LabeledPage]) -> bool {
    pages.windows(2).all(|w| w[0].group == w[1].group)
}

/// A page's group where sites are counted: its site, or the page itself when `by_page`.
fn group_of(page: &LabeledPage, by_page: bool) -> &str {
    if by_page {
        &page.id
    } else {
        &page.group
    }
}

/// Stack the rows, labels, row weights and groups of some pages; `by_page` gives each page a
/// group of its own (see [`one_site`]).
fn rows_of<'a>(
    pages: impl IntoIterator<Item = &'a LabeledPage>,
    weighting: Weighting,
    by_page: bool,
) -> TrainingRows {
    let mut t = TrainingRows::default();
    let mut group_ids: std::collections::HashMap<&str, u32> = Default::default();
    for p in pages {
        t.rows.extend_from_slice(&p.features.data);
        t.labels.extend(p.labels.iter().map(|&l| u8::from(l)));
        let n = p.labels.len();
        let next = group_ids.len() as u32;
        let g = *group_ids.entry(group_of(p, by_page)).or_insert(next);
        t.groups.extend(std::iter::repeat_n(g, n));
        t.pages.push(n);
        t.text_keys
            .extend(p.texts.iter().map(|x| crate::context::text_key(x)));
        t.tokens.extend(&p.tokens);
        let words: Vec<f32> = (0..n).map(|i| p.features.get(i, F::Words)).collect();
        let total: f32 = words.iter().sum::<f32>() + n as f32;
        t.weights.extend(words.iter().map(|w| match weighting {
            Weighting::Block => 1.0,
            Weighting::Page => 1.0 / n as f32,
            Weighting::Words => (w + 1.0) / total,
        }));
    }
    t
}

/// Score pages given block labels: word scores against gold text (when there is gold text) and
/// block counts against the derived labels.
pub fn evaluate(pages: &[LabeledPage], predicted: &[Vec<bool>]) -> Evaluation {
    let mut e = Evaluation::default();
    for (p, pred) in pages.iter().zip(predicted) {
        e.blocks.add(pred, &p.labels);
        if let Some(gold) = &p.gold {
            let text = content_text(&p.texts, pred.iter().copied());
            e.pages
                .push(PageScore::new(&p.id, p.page_type.as_deref(), &text, gold));
        }
    }
    e
}

/// Candidate decoders around a threshold, compared by cross-validation.
pub fn candidate_decoders(threshold: f32) -> Vec<Decoder> {
    vec![
        Decoder::Threshold { threshold },
        Decoder::Mss { threshold },
        Decoder::Runs {
            threshold,
            max_gap: 2,
            gap_threshold: (threshold - 0.15).max(0.0),
        },
        Decoder::Smooth {
            threshold,
            alpha: 0.5,
        },
        Decoder::ExpectedF1 { gamma: 1.0 },
        Decoder::ExpectedF1 { gamma: 1.2 },
        Decoder::ExpectedF1 { gamma: 1.4 },
    ]
}

/// Decode block scores with `decoding` and score the result.
pub fn evaluate_scores(
    pages: &[LabeledPage],
    scores: &[Vec<f32>],
    decoding: &Decoding,
) -> Evaluation {
    evaluate_favoring(pages, scores, decoding, Favor::Balance)
}

/// [`evaluate_scores`], the decoding favouring precision or recall.
pub fn evaluate_favoring(
    pages: &[LabeledPage],
    scores: &[Vec<f32>],
    decoding: &Decoding,
    favor: Favor,
) -> Evaluation {
    let predicted: Vec<Vec<bool>> = pages
        .iter()
        .zip(scores)
        .map(|(p, s)| {
            let (words, headings) = crate::features::words_and_headings(&p.features);
            decoding.decode_favoring(favor, s, &words, &headings, &p.texts)
        })
        .collect();
    evaluate(pages, &predicted)
}

/// The oracle: the word scores of the derived labels themselves (the ceiling of any block
/// classifier on these pages).
pub fn oracle(pages: &[LabeledPage]) -> Evaluation {
    let labels: Vec<Vec<bool>> = pages.iter().map(|p| p.labels.clone()).collect();
    evaluate(pages, &labels)
}

/// A decoding with its cross-validated means, overall and per page type.
pub type DecoderScore = (Decoding, Means, Vec<(String, Means)>);

/// Results of cross-validation.
#[derive(Debug, Clone)]
pub struct CrossValidation {
    /// Scores of each fold's test pages, at the chosen threshold.
    pub folds: Vec<Evaluation>,
    /// How pages were put in folds, as a phrase after "N folds": by domain, or, for pages of
    /// fewer sites than folds, one site each or by page.
    pub grouping: String,
    /// All test pages together, at the chosen threshold.
    pub all: Evaluation,
    /// Mean word F1 of every candidate threshold.
    pub thresholds: Vec<(f32, f64)>,
    /// The threshold with the best word F1.
    pub threshold: f32,
    /// Every candidate decoding at that threshold, with its means overall and per page type.
    pub decoders: Vec<DecoderScore>,
    /// The model's default decoding: the candidate with the best word F1, unless that is not
    /// clearly better than [`Decoding::WITHOUT_CV`] (see [`choose_decoding`]).
    pub decoding: Decoding,
    /// Why `decoding` was chosen, as a phrase for reports.
    pub chosen_because: String,
    /// All test pages together with that decoding favouring precision, then recall, when it
    /// can ([`Favor`]: the expected-F1 cut) and the pages have gold text; else empty.
    pub favored: Vec<(Favor, Evaluation)>,
    /// Out-of-fold scores, per page (for decoder studies).
    pub scores: Vec<Vec<f32>>,
    /// Pages in each fold.
    pub fold_of: Vec<usize>,
}

/// Domain-grouped K-fold cross-validation of a recipe.
pub fn cross_validate(pages: &[LabeledPage], recipe: &Recipe) -> Result<CrossValidation> {
    cross_validate_with(pages, recipe, &|_, _| {})
}

/// [`cross_validate`], calling `fold_done(done, folds)` each time a fold's model has scored
/// its test pages (from the thread that trained it), for a caller that shows progress.
pub fn cross_validate_with(
    pages: &[LabeledPage],
    recipe: &Recipe,
    fold_done: &(dyn Fn(usize, usize) + Sync),
) -> Result<CrossValidation> {
    let k = recipe.cv.folds;
    if k < 2 {
        return Err(Error::Config(
            "cross-validation needs at least 2 folds".into(),
        ));
    }
    // Pages of one site (a person's own annotations often are) cannot be split by site: each
    // page is its own group then, and the figures are those of new pages of that site. Fewer
    // sites than folds give one site to a fold.
    if pages.len() < 2 {
        return Err(Error::Config(
            "cross-validation needs at least 2 pages; train on one without it (--folds 0, or \
             cv.folds = 0 in the recipe)"
                .into(),
        ));
    }
    let by_page = one_site(pages);
    let groups: Vec<&str> = pages.iter().map(|p| group_of(p, by_page)).collect();
    let sites = groups
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    // A page that names no site (no `url` or `group`) is a group of its own, named by its id.
    let unsited = pages.iter().filter(|p| p.group == p.id).count();
    let (k, grouping) = if by_page {
        let grouping = "grouped by page (every page is of one site: the scores are those of \
                        new pages of that site, not of other sites)";
        (k.min(sites), grouping.to_string())
    } else if unsited == pages.len() {
        let grouping = "page by page (no page names its site by a `url` or a `group`, so a \
                        site's pages may be in train and test both, and the scores too good)";
        (k.min(sites), grouping.to_string())
    } else if unsited > 0 {
        let n = pages.len();
        if sites < k {
            // The groups are the sites and the pages that name none.
            let named = match sites - unsited {
                1 => "1 site".to_string(),
                more => format!("{more} sites"),
            };
            let grouping = format!(
                "of one group each (only {sites} groups: {named}, and {unsited} of the {n} \
                 pages, which name no site by a `url` or a `group`)"
            );
            (sites, grouping)
        } else {
            let grouping = format!(
                "grouped by domain (no site in both train and test; {unsited} of the {n} pages \
                 name no site by a `url` or a `group` and are groups of their own)"
            );
            (k, grouping)
        }
    } else if sites < k {
        (sites, format!("of one site each (only {sites} sites)"))
    } else {
        let grouping = "grouped by domain (no site in both train and test)";
        (k, grouping.to_string())
    };
    let fold_of = assign_folds(&groups, k);
    let params = recipe.stage_params();
    let copies = clean_copies(pages, recipe.labels.clean_copies);
    let done = std::sync::atomic::AtomicUsize::new(0);
    // Folds are trained side by side: a booster's rounds follow one another, so one fold
    // alone keeps a single core busy.
    let per_fold: Vec<Vec<(usize, Vec<f32>)>> = (0..k)
        .into_par_iter()
        .map(|fold| {
            let data = rows_of(
                pages
                    .iter()
                    .zip(&fold_of)
                    .filter(|(_, &f)| f != fold)
                    .map(|(p, _)| p)
                    .chain(
                        copies
                            .iter()
                            .filter(|(i, _)| fold_of[*i] != fold)
                            .map(|(_, c)| c),
                    ),
                recipe.model.weighting,
                by_page,
            );
            if data.rows.is_empty() {
                return Err(Error::Training(format!("fold {fold} has no training rows")));
            }
            let model =
                Model::train_rows(placeholder_info(recipe), data, &params, recipe.model.stages)?;
            let scored = pages
                .iter()
                .enumerate()
                .filter(|&(i, _)| fold_of[i] == fold)
                .map(|(i, p)| {
                    let mut features = p.features.clone();
                    model.fill_classes(&mut features, &p.tokens);
                    Ok((i, model.scores(&features, &p.texts)?))
                })
                .collect();
            fold_done(
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
                k,
            );
            scored
        })
        .collect::<Result<_>>()?;
    let mut scores: Vec<Vec<f32>> = vec![Vec::new(); pages.len()];
    for (i, s) in per_fold.into_iter().flatten() {
        scores[i] = s;
    }
    let eval_with = |d: &Decoding| evaluate_scores(pages, &scores, d);
    let word_f1 = |e: &Evaluation| {
        if e.pages.is_empty() {
            e.blocks.prf().2
        } else {
            e.overall().f1
        }
    };
    let plain = |threshold| Decoding {
        decoder: Decoder::Threshold { threshold },
        attach_headings: false,
        drop_repeats: false,
    };
    let thresholds: Vec<(f32, f64)> = recipe
        .cv
        .thresholds
        .iter()
        .map(|&t| (t, word_f1(&eval_with(&plain(t)))))
        .collect();
    let threshold = thresholds
        .iter()
        .fold(
            (0.5f32, f64::MIN),
            |best, &(t, f)| if f > best.1 { (t, f) } else { best },
        )
        .0;
    let mut decoders = Vec::new();
    // Each candidate's word F1 per page, for the paired comparison below.
    let mut page_f1s = Vec::new();
    for decoder in candidate_decoders(threshold) {
        for attach_headings in [false, true] {
            for drop_repeats in [false, true] {
                let d = Decoding {
                    decoder,
                    attach_headings,
                    drop_repeats,
                };
                let e = eval_with(&d);
                page_f1s.push(e.pages.iter().map(|p| p.f1).collect::<Vec<f64>>());
                decoders.push((d, e.overall(), e.by_type()));
            }
        }
    }
    let (decoding, chosen_because) = choose_decoding(&decoders, &page_f1s);
    let all = eval_with(&decoding);
    // Word scores need gold text (block records have only labels).
    let favored = match decoding.decoder {
        Decoder::ExpectedF1 { .. } if !all.pages.is_empty() => [Favor::Precision, Favor::Recall]
            .map(|f| (f, evaluate_favoring(pages, &scores, &decoding, f)))
            .into(),
        _ => Vec::new(),
    };
    let mut folds = vec![Evaluation::default(); k];
    for (i, p) in pages.iter().enumerate() {
        let e = evaluate_scores(std::slice::from_ref(p), &scores[i..=i], &decoding);
        folds[fold_of[i]].pages.extend(e.pages);
        folds[fold_of[i]].blocks.merge(&e.blocks);
    }
    Ok(CrossValidation {
        folds,
        grouping,
        all,
        thresholds,
        threshold,
        decoders,
        decoding,
        chosen_because,
        favored,
        scores,
        fold_of,
    })
}

/// The decoding a cross-validation gives the model, and why, from the candidates and each
/// one's word F1 per page (in the same order). The candidate with the best mean word F1 (the
/// first of equals) wins only when it beats [`Decoding::WITHOUT_CV`] by more than twice the
/// standard error of their paired page differences. On a few dozen pages the
/// best of 28 candidates is often best by chance: on WCXB subsets of 25 to 200 pages,
/// decoders so chosen scored 0.003 lower on other sites' pages, on average, than the
/// expected-F1 cut (`training/README.md`). Without word scores (block records) or without that
/// candidate, the best one is taken; without candidates, the default.
pub fn choose_decoding(decoders: &[DecoderScore], page_f1s: &[Vec<f64>]) -> (Decoding, String) {
    let best = (1..decoders.len()).fold(0, |b, i| {
        if decoders[i].1.f1 > decoders[b].1.f1 {
            i
        } else {
            b
        }
    });
    let Some(&(top, ..)) = decoders.get(best) else {
        return (Decoding::WITHOUT_CV, "the default: no candidate".into());
    };
    let default = decoders.iter().position(|c| c.0 == Decoding::WITHOUT_CV);
    let Some(default) = default.filter(|&d| d != best && !page_f1s[d].is_empty()) else {
        return (top, "the best word F1".into());
    };
    let diffs: Vec<f64> = page_f1s[best]
        .iter()
        .zip(&page_f1s[default])
        .map(|(b, d)| b - d)
        .collect();
    let n = diffs.len() as f64;
    let mean = diffs.iter().sum::<f64>() / n;
    let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let se = (var / n).sqrt();
    if mean > 2.0 * se {
        let why = format!(
            "the best word F1, {mean:.4} above the expected-F1 cut's (twice the standard error \
             of the pages' differences: {:.4})",
            2.0 * se
        );
        (top, why)
    } else if mean < 0.00005 {
        let why = format!(
            "the default: {} scored the same to four places",
            describe_decoding(&top)
        );
        (decoders[default].0, why)
    } else {
        let why = format!(
            "the default without a clear winner: {} scored {mean:.4} more, within twice the \
             standard error of the pages' differences ({:.4})",
            describe_decoding(&top),
            2.0 * se
        );
        (decoders[default].0, why)
    }
}

fn placeholder_info(recipe: &Recipe) -> ModelInfo {
    ModelInfo {
        kind: recipe.model.kind,
        feature_names: SCHEMA.iter().map(|f| f.name.to_string()).collect(),
        data: Vec::new(),
        pages: 0,
        blocks: 0,
        date: String::new(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        recipe: recipe.to_toml(),
        cv: Vec::new(),
        threshold: 0.5,
        decoding: None,
    }
}

/// Train the final model on all pages, with the decoding that `cv` chose (without one, the
/// model decodes with [`Decoding::WITHOUT_CV`]). `data` names the training data and `date`
/// the day of training (`YYYY-MM-DD`, [`today`]; another form is an
/// [`Error::Config`]), both recorded in the model's metadata.
///
/// ```no_run
/// use textsift::train::{self, Recipe};
/// # fn main() -> textsift::Result<()> {
/// let recipe = Recipe::default();
/// let path = std::path::Path::new("manifest.jsonl"); // or a WCXB-style folder, or block records
/// let max_bytes = textsift::input::DEFAULT_MAX_BYTES;
/// let (pages, _unread) = textsift::annotate::load(path, recipe.labels.min_aligned, max_bytes)?;
/// let cv = train::cross_validate(&pages, &recipe)?;
/// let data = vec![path.display().to_string()];
/// let model = train::train_final(&pages, &recipe, data, Some(&cv), train::today()?)?;
/// model.save("mine.tsm")?;
/// let extractor = textsift::Extractor::from_model_file("mine.tsm")?;
/// # Ok(())
/// # }
/// ```
pub fn train_final(
    pages: &[LabeledPage],
    recipe: &Recipe,
    data: Vec<String>,
    cv: Option<&CrossValidation>,
    date: String,
) -> Result<Model> {
    let is_date = date.len() == 10
        && date.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    if !is_date {
        return Err(Error::Config(format!(
            "training date {date:?} is not YYYY-MM-DD"
        )));
    }
    let copies = clean_copies(pages, recipe.labels.clean_copies);
    let rows = rows_of(
        pages.iter().chain(copies.iter().map(|(_, c)| c)),
        recipe.model.weighting,
        one_site(pages),
    );
    if rows.rows.is_empty() {
        return Err(Error::Training("no blocks to train on".into()));
    }
    debug_assert_eq!(rows.rows.len(), rows.labels.len() * N_FEATURES);
    let mut info = placeholder_info(recipe);
    info.data = data;
    info.pages = pages.len();
    // The data's blocks; the clean copies' are in the report.
    info.blocks = pages.iter().map(|p| p.labels.len()).sum();
    info.date = date;
    if let Some(cv) = cv {
        info.threshold = cv.threshold;
        info.decoding = Some(cv.decoding);
        let m = cv.all.overall();
        let (bp, br, bf) = cv.all.blocks.prf();
        info.cv = vec![
            ("folds".into(), cv.folds.len() as f64),
            ("word_precision".into(), m.precision),
            ("word_recall".into(), m.recall),
            ("word_f1".into(), m.f1),
            ("block_precision".into(), bp),
            ("block_recall".into(), br),
            ("block_f1".into(), bf),
        ];
        for (t, m) in cv.all.by_type() {
            info.cv.push((format!("word_f1.{t}"), m.f1));
        }
    }
    Model::train_rows(info, rows, &recipe.stage_params(), recipe.model.stages)
}

/// Today's date (UTC) as `YYYY-MM-DD`, or the date of `SOURCE_DATE_EPOCH` when set, so that a
/// rebuild can reproduce a model file byte for byte. A value that is not a Unix time in
/// seconds is refused, rather than today's date written where a fixed one was asked for.
pub fn today() -> Result<String> {
    // The last second of 9999-12-31: the date is written with four digits of year.
    const LAST: i64 = 253_402_300_799;
    let secs = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(s) if !s.trim().is_empty() => s
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|t| (0..=LAST).contains(t))
            .ok_or_else(|| {
                Error::Config(format!(
                    "SOURCE_DATE_EPOCH must be a Unix time in seconds from 0 to {LAST} \
                     (1970 to 9999), not {s:?}"
                ))
            })?,
        _ => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    };
    Ok(civil_date(secs))
}

/// `YYYY-MM-DD` of a Unix time.
fn civil_date(secs: i64) -> String {
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Confusion matrix as Markdown.
pub fn confusion_markdown(c: &Confusion) -> String {
    format!(
        "| | predicted content | predicted boilerplate |\n|---|---:|---:|\n\
         | **content** | {} | {} |\n| **boilerplate** | {} | {} |\n",
        c.tp, c.fn_, c.fp, c.tn
    )
}

/// Everything the training report shows.
pub struct ReportInputs<'a> {
    /// The command line that made the model.
    pub command: &'a str,
    /// Pages used.
    pub pages: &'a [LabeledPage],
    /// Pages that could not be read, with the reason.
    pub skipped: &'a [(String, String)],
    /// The recipe.
    pub recipe: &'a Recipe,
    /// Cross-validation, if run.
    pub cv: Option<&'a CrossValidation>,
    /// The final model.
    pub model: &'a Model,
    /// Model file size in bytes.
    pub model_bytes: usize,
    /// Seconds spent loading and labelling, cross-validating, and training the final model.
    pub seconds: (f64, f64, f64),
    /// Peak resident memory of the run, in MB, when known.
    pub peak_rss_mb: Option<f64>,
}

/// The training report as Markdown.
pub fn report_markdown(r: &ReportInputs) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "# Training report\n");
    let _ = writeln!(s, "Command: `{}`\n", r.command);
    let blocks: usize = r.pages.iter().map(|p| p.labels.len()).sum();
    let content: usize = r
        .pages
        .iter()
        .map(|p| p.labels.iter().filter(|&&l| l).count())
        .sum();
    let _ = writeln!(
        s,
        "Data: {} pages ({} skipped), {} blocks, {} labelled content ({:.1}%). Model: {}; {:.2} MB.\n",
        r.pages.len(),
        r.skipped.len(),
        blocks,
        content,
        100.0 * content as f64 / blocks.max(1) as f64,
        r.model.describe(),
        r.model_bytes as f64 / 1e6
    );
    let copies = clean_copies(r.pages, r.recipe.labels.clean_copies);
    if !copies.is_empty() {
        let _ = writeln!(
            s,
            "Clean copies (`labels.clean_copies`): {} pages also trained on as their gold text alone (each line a paragraph of a plain page, or the opening as a single block), {} blocks, all content; cross-validation scores the real pages only.\n",
            copies.len(),
            copies.iter().map(|(_, c)| c.labels.len()).sum::<usize>()
        );
    }
    let cv_time = match r.cv {
        Some(_) => format!("{:.0} s cross-validation", r.seconds.1),
        None => "no cross-validation".to_string(),
    };
    let _ = writeln!(
        s,
        "Time: {:.0} s loading and labelling, {cv_time}, {:.0} s final training. Peak memory: {}.\n",
        r.seconds.0,
        r.seconds.2,
        r.peak_rss_mb.map_or("unknown".into(), |m| format!("{m:.0} MB"))
    );
    let _ = writeln!(s, "## Recipe\n\n```toml\n{}```\n", r.recipe.to_toml());
    let oracle = oracle(r.pages);
    // Block records' labels are their own gold text: an oracle of 1 would say nothing.
    let derived = r.pages.iter().any(|p| !p.coverage.is_empty());
    if derived && !oracle.pages.is_empty() {
        let below = oracle.pages.iter().filter(|p| p.f1 < 0.8).count();
        let _ = writeln!(
            s,
            "## Oracle\n\nWord scores of the derived labels themselves (every block labelled as derived, \
             `min_aligned` = {}): the ceiling of a block classifier on these pages. {} of {} pages are below F1 0.8.\n",
            r.recipe.labels.min_aligned,
            below,
            oracle.pages.len()
        );
        s.push_str(&oracle.markdown());
        s.push('\n');
    }
    if let Some(cv) = r.cv {
        let _ = writeln!(
            s,
            "## Cross-validation\n\n{} folds {}; scores of the chosen decoder, `{}` (see \
             Decoders); the threshold decoder's cut, {:.2}, chosen by cross-validated word F1.\n",
            cv.folds.len(),
            cv.grouping,
            describe(&cv.decoding.decoder),
            cv.threshold
        );
        s.push_str(&cv.all.markdown());
        let _ = writeln!(s, "\n### Per fold\n\n| fold | pages | word P | word R | word F1 | block F1 |\n|---:|---:|---:|---:|---:|---:|");
        for (i, f) in cv.folds.iter().enumerate() {
            let m = f.overall();
            let _ = writeln!(
                s,
                "| {} | {} | {:.4} | {:.4} | {:.4} | {:.4} |",
                i + 1,
                m.n,
                m.precision,
                m.recall,
                m.f1,
                f.blocks.prf().2
            );
        }
        let _ = writeln!(s, "\n### Decoders (at threshold {:.2})\n", cv.threshold);
        let types: Vec<String> = cv.all.by_type().into_iter().map(|t| t.0).collect();
        let _ = writeln!(
            s,
            "| decoder | headings attached | repeats dropped | word F1 |{}\n|---|---|---|---:|{}",
            types.iter().map(|t| format!(" {t} |")).collect::<String>(),
            "---:|".repeat(types.len())
        );
        for (d, m, by) in &cv.decoders {
            let per: String = by.iter().map(|(_, m)| format!(" {:.4} |", m.f1)).collect();
            let _ = writeln!(
                s,
                "| `{}` | {} | {} | {:.4} |{per}",
                describe(&d.decoder),
                d.attach_headings,
                d.drop_repeats,
                m.f1
            );
        }
        let _ = writeln!(
            s,
            "\nChosen: {}: {}.",
            describe_decoding(&cv.decoding),
            cv.chosen_because
        );
        if !cv.favored.is_empty() {
            let _ = write!(
                s,
                "\n### Favouring precision or recall\n\nThe chosen cut maximising F0.5 \
                 (`--favor precision`) or F2 (`--favor recall`) instead of F1:\n\n{}",
                favored_markdown(&cv.all, &cv.favored)
            );
        }
        let _ = writeln!(s, "\n### Threshold\n\n| threshold | word F1 |\n|---:|---:|");
        for (t, f) in &cv.thresholds {
            let _ = writeln!(s, "| {t:.2} | {f:.4} |");
        }
        let _ = writeln!(
            s,
            "\n### Block confusion matrix (all folds)\n\n{}",
            confusion_markdown(&cv.all.blocks)
        );
    }
    let _ = writeln!(s, "## Most used features\n\nColumns of the final model's last stage (the booster, or the last forest): impurity-based importance summed over its trees (smartcore's `compute_feature_importances`, normalised to sum 1) and the number of splits on the column in all its trees.\n\n| feature | importance | splits |\n|---|---:|---:|");
    for f in r.model.importances().into_iter().take(25) {
        let _ = writeln!(s, "| `{}` | {:.4} | {} |", f.name, f.importance, f.splits);
    }
    if !r.skipped.is_empty() {
        let _ = writeln!(s, "\n## Skipped pages\n");
        for (id, why) in r.skipped {
            let _ = writeln!(s, "- {id}: {why}");
        }
    }
    s
}

/// A Markdown table of word precision, recall and F1 with each favour, overall and per type:
/// `balanced` is the evaluation with F1, `favored` those with the others.
pub fn favored_markdown(balanced: &Evaluation, favored: &[(Favor, Evaluation)]) -> String {
    let all =
        std::iter::once((Favor::Balance, balanced)).chain(favored.iter().map(|(f, e)| (*f, e)));
    let mut s =
        String::from("| favour | pages | word P | word R | word F1 |\n|---|---|---:|---:|---:|\n");
    for (favor, e) in all {
        let name = favor.name();
        let rows = std::iter::once(("**all**".to_string(), e.overall())).chain(e.by_type());
        for (pages, m) in rows {
            s.push_str(&format!(
                "| {name} | {pages} | {:.4} | {:.4} | {:.4} |\n",
                m.precision, m.recall, m.f1
            ));
        }
    }
    s
}

/// A decoding as text, e.g. `` `mss threshold=0.40` (headings attached: false, repeats
/// dropped: true) ``.
pub fn describe_decoding(d: &Decoding) -> String {
    format!(
        "`{}` (headings attached: {}, repeats dropped: {})",
        describe(&d.decoder),
        d.attach_headings,
        d.drop_repeats
    )
}

/// A decoder as compact text, e.g. `mss threshold=0.40`.
pub fn describe(d: &Decoder) -> String {
    match *d {
        Decoder::Threshold { threshold } => format!("threshold {threshold:.2}"),
        Decoder::Mss { threshold } => format!("mss threshold={threshold:.2}"),
        Decoder::Runs {
            threshold,
            max_gap,
            gap_threshold,
        } => format!(
            "runs threshold={threshold:.2} max_gap={max_gap} gap_threshold={gap_threshold:.2}"
        ),
        Decoder::Smooth { threshold, alpha } => {
            format!("smooth threshold={threshold:.2} alpha={alpha:.2}")
        }
        Decoder::ExpectedF1 { gamma } => format!("expected_f1 gamma={gamma:.2}"),
    }
}

/// Peak resident memory of this process in MB (Linux), if known.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decoder_beats_the_default_only_by_a_clear_margin() {
        let threshold = Decoding {
            decoder: Decoder::Threshold { threshold: 0.4 },
            attach_headings: true,
            drop_repeats: false,
        };
        let mean = |v: &[f64]| Means {
            n: v.len(),
            f1: v.iter().sum::<f64>() / v.len() as f64,
            ..Means::default()
        };
        let pick = |best: &[f64], default: &[f64]| {
            let decoders = vec![
                (threshold, mean(best), Vec::new()),
                (Decoding::WITHOUT_CV, mean(default), Vec::new()),
            ];
            choose_decoding(&decoders, &[best.to_vec(), default.to_vec()])
        };
        // Better on every page by 0.02: taken.
        let base: Vec<f64> = (0..40).map(|i| 0.5 + f64::from(i) / 100.0).collect();
        let better: Vec<f64> = base.iter().map(|f| f + 0.02).collect();
        let (d, why) = pick(&better, &base);
        assert_eq!(d, threshold);
        assert!(why.starts_with("the best word F1, 0.0200 above"), "{why}");
        // Better by 0.005 on average, from page differences of ±0.2: the default stays.
        let noisy: Vec<f64> = base
            .iter()
            .enumerate()
            .map(|(i, f)| f + if i % 2 == 0 { 0.205 } else { -0.195 })
            .collect();
        let (d, why) = pick(&noisy, &base);
        assert_eq!(d, Decoding::WITHOUT_CV);
        assert!(why.contains("scored 0.0050 more"), "{why}");
        // The same on every page (the first of equals is the best): said so, not "0.0000 more".
        let (d, why) = pick(&base, &base);
        assert_eq!(d, Decoding::WITHOUT_CV);
        assert!(why.ends_with("scored the same to four places"), "{why}");
        // Without word scores per page (block records), the best candidate is taken.
        let decoders = vec![
            (threshold, mean(&[0.9]), Vec::new()),
            (Decoding::WITHOUT_CV, mean(&[0.8]), Vec::new()),
        ];
        let (d, _) = choose_decoding(&decoders, &[Vec::new(), Vec::new()]);
        assert_eq!(d, threshold);
        // The default itself best, or not a candidate: the best.
        let decoders = vec![
            (threshold, mean(&[0.5]), Vec::new()),
            (Decoding::WITHOUT_CV, mean(&[0.6]), Vec::new()),
        ];
        assert_eq!(
            choose_decoding(&decoders, &[vec![0.5], vec![0.6]]).0,
            Decoding::WITHOUT_CV
        );
        assert_eq!(choose_decoding(&decoders[..1], &[vec![0.5]]).0, threshold);
        // No candidate at all: the default, not an index into an empty list.
        assert_eq!(choose_decoding(&[], &[]).0, Decoding::WITHOUT_CV);
    }

    #[test]
    fn folds_keep_groups_together_and_balance() {
        let groups: Vec<String> = (0..100).map(|i| format!("site{}", i % 23)).collect();
        let refs: Vec<&str> = groups.iter().map(String::as_str).collect();
        let f = assign_folds(&refs, 5);
        for (i, g) in refs.iter().enumerate() {
            for (j, h) in refs.iter().enumerate() {
                if g == h {
                    assert_eq!(f[i], f[j]);
                }
            }
        }
        let mut counts = [0; 5];
        for x in &f {
            counts[*x] += 1;
        }
        assert!(counts.iter().all(|&c| (15..=25).contains(&c)), "{counts:?}");
        assert_eq!(f, assign_folds(&refs, 5));
    }

    #[test]
    fn recipe_validation_names_the_field() {
        let err = Recipe::from_toml("[model]\nmax_depth = 0\n").unwrap_err();
        assert!(err.to_string().contains("depth"), "{err}");
        let err = Recipe::from_toml("[labels]\nmin_aligned = 1.5\n").unwrap_err();
        assert!(err.to_string().contains("min_aligned"), "{err}");
        let err = Recipe::from_toml("[labels]\nclean_copies = -0.1\n").unwrap_err();
        assert!(err.to_string().contains("clean_copies"), "{err}");
        let err = Recipe::from_toml("[model]\nkind = \"svm\"\n").unwrap_err();
        assert!(err.to_string().contains("svm"), "{err}");
        let err = Recipe::from_toml("[model]\nkind = \"stacked\"\nstages = 1\n").unwrap_err();
        assert!(err.to_string().contains("stages"), "{err}");
        let err = Recipe::from_toml("[model]\nkind = \"boosted\"\nstages = 9\n").unwrap_err();
        assert!(err.to_string().contains("stages"), "{err}");
        let err = Recipe::from_toml("[model]\ntreez = 3\n").unwrap_err();
        assert!(err.to_string().contains("treez"), "{err}");
        // Syntax and type errors (the parser's message for the latter takes two lines): one
        // line, saying where.
        for (toml, says) in [
            (
                "[model]\ntrees = 3\nbalance = \"no\"\n",
                "recipe at line 3, column 11: invalid type",
            ),
            (
                "[model\ntrees = 3\n",
                "recipe at line 1, column 7: invalid table header; expected",
            ),
        ] {
            let err = Recipe::from_toml(toml).unwrap_err().to_string();
            assert!(err.contains(says) && !err.contains('\n'), "{err}");
        }
        // Values are checked apart from reading, so that flags can change them first.
        let r = Recipe::read_toml("[model]\nkind = \"tree\"\n").unwrap();
        assert!(r.validate().is_err());
        let r = Recipe::from_toml("[model]\ntrees = 7\n").unwrap();
        assert_eq!(r.model.trees, 7);
        assert_eq!(Recipe::from_toml(&r.to_toml()).unwrap(), r);
        // Written as given, and read back the same.
        let r = Recipe::from_toml("[labels]\nmin_aligned = 0.45\n[cv]\nthresholds = [0.3, 0.35]\n")
            .unwrap();
        let toml = r.to_toml();
        assert!(toml.contains("min_aligned = 0.45\n"), "{toml}");
        assert!(toml.contains("thresholds = [0.3, 0.35]\n"), "{toml}");
        assert_eq!(Recipe::from_toml(&toml).unwrap(), r);
        // Without a recipe, `train` uses the shipped one.
        let shipped = Recipe::from_toml(include_str!("../training/recipe.toml")).unwrap();
        assert_eq!(shipped, Recipe::default());
    }

    #[test]
    fn dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(951_782_400), "2000-02-29");
        assert_eq!(civil_date(1_795_391_940), "2026-11-22");
    }
}
