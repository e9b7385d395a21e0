//! Block scores to block labels. Kept apart from the model so that either can change alone.
//!
//! Blocks scored one by one miss what the page says as a whole; the decoders here look at the
//! sequence of scores of a page.

use crate::error::{Error, Result};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// How the sequence of block scores of a page becomes content/boilerplate labels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decoder {
    /// Each block on its own: content when its score is at least `threshold`.
    Threshold {
        /// Score at or above which a block is content.
        threshold: f32,
    },
    /// Maximum subsequence segmentation: the one contiguous run of blocks that maximises the
    /// sum of (score − threshold) × words.
    Mss {
        /// Offset subtracted from every score.
        threshold: f32,
    },
    /// Several runs: blocks at or above `threshold`, plus the blocks between two such blocks
    /// when the gap is at most `max_gap` blocks and its mean score is at least `gap_threshold`.
    Runs {
        /// Score at or above which a block starts or continues a run.
        threshold: f32,
        /// Longest gap (in blocks) bridged between two runs.
        max_gap: usize,
        /// Mean score a gap needs to be bridged.
        gap_threshold: f32,
    },
    /// Each block's score averaged with its neighbours' (weight `alpha` on its own), then
    /// thresholded.
    Smooth {
        /// Score at or above which a smoothed block is content.
        threshold: f32,
        /// Weight of the block's own score, 0 to 1.
        alpha: f32,
    },
    /// The blocks that maximise the page's expected word F1 when each block's score (raised to
    /// `gamma`) is read as the probability that it is content, independently: the best blocks
    /// first, as many as raise the expectation (of the F1 itself, computed exactly rather than
    /// as a ratio of expectations). The cut thus adapts to the page: higher where the model is
    /// sure of a large content, lower where it is unsure. Keeping nothing is a candidate too:
    /// its expected F1 is the chance that no block is content (WCXB scores an empty output 1
    /// on a page without main content), so a page where every block is unlikely, such as the
    /// shell of a page built by scripts, gives no text rather than its menus.
    #[serde(rename = "expected_f1")]
    ExpectedF1 {
        /// Exponent applied to the scores before they are read as probabilities (1: as they
        /// are; above 1: less trust in middling scores).
        gamma: f32,
    },
}

/// Settings applied after any decoder.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Decoding {
    /// The decoder.
    pub decoder: Decoder,
    /// A heading block directly above a content block becomes content.
    pub attach_headings: bool,
    /// A kept block of at least [`REPEAT_MIN_WORDS`] words whose words repeat those of a kept
    /// block above it is dropped, with the shorter repeats next to it. Pages often carry a
    /// paragraph or a section twice (a summary and its tab, desktop and mobile copies, a
    /// quoted post); a page's main text rarely does.
    pub drop_repeats: bool,
}

/// Fewest words of a block that [`Decoding::drop_repeats`] drops as a repeat, with the short
/// repeats next to it: short texts ("Read more", a price, a table cell) repeat in real content
/// too.
pub const REPEAT_MIN_WORDS: f32 = 8.0;

/// What the expected-F1 cut ([`Decoder::ExpectedF1`]) maximises: the expected word F1, or an
/// F-measure that weighs precision or recall more (F_β with β = 0.5 or 2), for a corpus that
/// would rather lose some content than keep boilerplate, or the other way round. A setting of
/// the extractor, not of the model: it is chosen where the text is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Favor {
    /// Precision and recall alike (F1): the cut the model was cross-validated with.
    #[default]
    Balance,
    /// Precision twice as much as recall (F_0.5): fewer blocks kept, fewer of them boilerplate.
    Precision,
    /// Recall twice as much as precision (F_2): more blocks kept, less content lost.
    Recall,
}

impl Favor {
    /// Whether `decoder` can favour as asked: only the expected-F1 cut weighs precision
    /// against recall; the others have a threshold to move instead.
    pub fn check(self, decoder: &Decoder) -> Result<()> {
        if self == Favor::Balance || matches!(decoder, Decoder::ExpectedF1 { .. }) {
            return Ok(());
        }
        // `--threshold` alone picks the threshold decoder: the decoder is named with it.
        let name = decoder.name();
        Err(Error::Config(format!(
            "favouring precision or recall needs the expected_f1 decoder, not {name}; move its \
             threshold instead (--decoder {name} --threshold T, or the decoder's own threshold \
             in the library)"
        )))
    }

    /// Every setting, the default first.
    pub const ALL: [Favor; 3] = [Favor::Balance, Favor::Precision, Favor::Recall];

    /// The setting's name, as `--favor` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Favor::Balance => "balance",
            Favor::Precision => "precision",
            Favor::Recall => "recall",
        }
    }

    /// β², the weight of recall against precision in the F-measure.
    fn beta2(self) -> f64 {
        match self {
            Favor::Balance => 1.0,
            Favor::Precision => 0.25,
            Favor::Recall => 4.0,
        }
    }
}

impl Decoder {
    /// The decoder's name, as `--decoder` takes it.
    pub fn name(&self) -> &'static str {
        match self {
            Decoder::Threshold { .. } => "threshold",
            Decoder::Mss { .. } => "mss",
            Decoder::Runs { .. } => "runs",
            Decoder::Smooth { .. } => "smooth",
            Decoder::ExpectedF1 { .. } => "expected_f1",
        }
    }

    /// Check the settings, naming the bad one.
    pub fn validate(&self) -> Result<()> {
        let unit = |name: &str, v: f32| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(Error::Config(format!("decoder {name} {v} is outside 0..1")))
            }
        };
        match *self {
            Decoder::Threshold { threshold } | Decoder::Mss { threshold } => {
                unit("threshold", threshold)
            }
            Decoder::Runs {
                threshold,
                gap_threshold,
                ..
            } => unit("threshold", threshold).and(unit("gap_threshold", gap_threshold)),
            Decoder::Smooth { threshold, alpha } => {
                unit("threshold", threshold).and(unit("alpha", alpha))
            }
            Decoder::ExpectedF1 { gamma } => {
                if gamma > 0.0 && gamma <= 4.0 {
                    Ok(())
                } else {
                    Err(Error::Config(format!(
                        "decoder gamma {gamma} is outside (0, 4]"
                    )))
                }
            }
        }
    }

    /// Label every block of a page from its score; `words` gives each block's word count.
    pub fn decode(&self, scores: &[f32], words: &[f32]) -> Vec<bool> {
        self.decode_favoring(Favor::Balance, scores, words)
    }

    /// [`Decoder::decode`], with the expected-F1 cut maximising the F-measure that `favor`
    /// names; the other decoders have a threshold to move instead, and ignore it.
    pub fn decode_favoring(&self, favor: Favor, scores: &[f32], words: &[f32]) -> Vec<bool> {
        match *self {
            Decoder::Threshold { threshold } => scores.iter().map(|&s| s >= threshold).collect(),
            Decoder::Mss { threshold } => mss(scores, words, threshold),
            Decoder::ExpectedF1 { gamma } => expected_f1(scores, words, gamma, favor.beta2()),
            Decoder::Runs {
                threshold,
                max_gap,
                gap_threshold,
            } => runs(scores, threshold, max_gap, gap_threshold),
            Decoder::Smooth { threshold, alpha } => {
                let n = scores.len();
                (0..n)
                    .map(|i| {
                        let (lo, hi) = (i.saturating_sub(1), (i + 2).min(n));
                        let others: Vec<f32> =
                            (lo..hi).filter(|&j| j != i).map(|j| scores[j]).collect();
                        let mean = if others.is_empty() {
                            scores[i]
                        } else {
                            others.iter().sum::<f32>() / others.len() as f32
                        };
                        alpha * scores[i] + (1.0 - alpha) * mean >= threshold
                    })
                    .collect()
            }
        }
    }
}

impl Decoding {
    /// The decoding of a model trained without cross-validation, which has nothing to choose
    /// one by: the expected-F1 cut with repeats dropped, the choice of the shipped recipe's
    /// cross-validation on WCXB. Unlike a threshold, the cut adapts to each page's
    /// scores, so it does not depend on how a model's scores happen to be spread.
    pub const WITHOUT_CV: Decoding = Decoding {
        decoder: Decoder::ExpectedF1 { gamma: 1.0 },
        attach_headings: false,
        drop_repeats: true,
    };

    /// Label every block of a page; `texts` (the block texts) are read only to find repeats.
    pub fn decode<S: AsRef<str>>(
        &self,
        scores: &[f32],
        words: &[f32],
        is_heading: &[bool],
        texts: &[S],
    ) -> Vec<bool> {
        self.decode_favoring(Favor::Balance, scores, words, is_heading, texts)
    }

    /// [`Decoding::decode`] with the decoder's [`Decoder::decode_favoring`].
    pub fn decode_favoring<S: AsRef<str>>(
        &self,
        favor: Favor,
        scores: &[f32],
        words: &[f32],
        is_heading: &[bool],
        texts: &[S],
    ) -> Vec<bool> {
        self.decode_traced(favor, scores, words, is_heading, texts)
            .0
    }

    /// [`Decoding::decode_favoring`], also giving, for every block that the repeat rule
    /// ([`Decoding::drop_repeats`]) dropped, the kept block above it whose words it repeats.
    pub fn decode_traced<S: AsRef<str>>(
        &self,
        favor: Favor,
        scores: &[f32],
        words: &[f32],
        is_heading: &[bool],
        texts: &[S],
    ) -> (Vec<bool>, Vec<Option<usize>>) {
        let mut keep = self.decoder.decode_favoring(favor, scores, words);
        let mut repeat_of = vec![None; keep.len()];
        if self.drop_repeats {
            drop_repeats(&mut keep, &mut repeat_of, words, texts);
        }
        // After the repeats, so that a heading above a dropped copy stays out.
        if self.attach_headings {
            for i in (0..keep.len().saturating_sub(1)).rev() {
                if !keep[i] && keep[i + 1] && is_heading.get(i).copied().unwrap_or(false) {
                    keep[i] = true;
                }
            }
        }
        (keep, repeat_of)
    }
}

/// Unkeep the repeats among the kept blocks: a kept block whose words equal those of a kept
/// block above it, compared as the benchmark's metric reads words (lowercase, punctuation and
/// spacing set aside, [`for_each_normalized`]), is a repeat. A repeat of [`REPEAT_MIN_WORDS`]
/// words or more is dropped, and with it the repeats next to it among the kept blocks: a
/// copied section repeats its short heading with its paragraphs. Short repeats on their own,
/// however many side by side ("Read more", prices, the cells of a table), are left. Each
/// block dropped gets in `repeat_of` the kept block whose words it repeats.
fn drop_repeats<S: AsRef<str>>(
    keep: &mut [bool],
    repeat_of: &mut [Option<usize>],
    words: &[f32],
    texts: &[S],
) {
    // Hash of the normalised words → blocks kept with that hash. A match is confirmed on the
    // normalised texts themselves, so a collision never drops a block.
    let mut seen: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    // The current run of repeats side by side (each with the block it repeats), and whether
    // it holds a long one.
    let (mut run, mut long) = (Vec::new(), false);
    fn end_run(
        keep: &mut [bool],
        repeat_of: &mut [Option<usize>],
        run: &mut Vec<(usize, usize)>,
        long: &mut bool,
    ) {
        if *long {
            for &(i, first) in run.iter() {
                keep[i] = false;
                repeat_of[i] = Some(first);
            }
        }
        run.clear();
        *long = false;
    }
    for i in 0..keep.len() {
        if !keep[i] {
            continue;
        }
        let text = texts.get(i).map_or("", AsRef::as_ref);
        let (mut hash, mut any) = (crate::features::FNV_START, false);
        for_each_normalized(text, |c| {
            any = true;
            hash = if c.is_ascii() {
                crate::features::fnv1a(hash, &[c as u8])
            } else {
                crate::features::fnv1a(hash, c.encode_utf8(&mut [0; 4]).as_bytes())
            };
        });
        let earlier = seen.entry(hash).or_default();
        // The kept block above whose words these are, if any.
        let first = if any && !earlier.is_empty() {
            let mine = normalized(text);
            earlier
                .iter()
                .copied()
                .find(|&j| normalized(texts[j].as_ref()) == mine)
        } else {
            None
        };
        if let Some(first) = first {
            run.push((i, first));
            long |= words.get(i).is_some_and(|&w| w >= REPEAT_MIN_WORDS);
            continue;
        }
        if any && earlier.len() < MAX_SAME_HASH {
            earlier.push(i);
        }
        end_run(keep, repeat_of, &mut run, &mut long);
    }
    end_run(keep, repeat_of, &mut run, &mut long);
}

/// Distinct texts kept per hash value: a page crafted to collide could otherwise make the
/// confirmations quadratic. Honest pages never come near it.
const MAX_SAME_HASH: usize = 8;

/// A text's words as [`for_each_normalized`] gives them, in one string.
pub(crate) fn normalized(text: &str) -> String {
    let mut out = String::new();
    for_each_normalized(text, |c| out.push(c));
    out
}

/// Calls `f` with the characters of `text`'s words (letters, digits, `_`), lowercased, with
/// one space between two words and none elsewhere: the same sequence for two texts exactly
/// when their words are. Unlike [`crate::context::text_key`], digits count.
fn for_each_normalized(text: &str, mut f: impl FnMut(char)) {
    let (mut gap, mut started) = (false, false);
    for c in text.chars() {
        // ASCII, the common case, is read from a table rather than Unicode's.
        let lower = if c.is_ascii() {
            ASCII_WORD[c as usize]
        } else if c.is_alphanumeric() {
            0x80
        } else {
            0
        };
        if lower == 0 {
            gap = true;
            continue;
        }
        if gap && started {
            f(' ');
        }
        (gap, started) = (false, true);
        if lower < 0x80 {
            f(char::from(lower));
        } else {
            c.to_lowercase().for_each(&mut f);
        }
    }
}

/// For each ASCII character: its lower case if it is a word character (letter, digit, `_`),
/// else 0.
const ASCII_WORD: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0u8;
    while b < 128 {
        if b.is_ascii_alphanumeric() || b == b'_' {
            table[b as usize] = b.to_ascii_lowercase();
        }
        b += 1;
    }
    table
};

/// The expected-F cut: F1 for `beta2` = 1, else F_β with β² = `beta2`.
fn expected_f1(scores: &[f32], words: &[f32], gamma: f32, beta2: f64) -> Vec<bool> {
    let n = scores.len();
    let p: Vec<f64> = scores
        .iter()
        .map(|&s| {
            let s = if s.is_finite() {
                s.clamp(0.0, 1.0)
            } else {
                0.0
            };
            // The shipped γ is 1: no `powf` per block for it.
            if gamma == 1.0 {
                f64::from(s)
            } else {
                f64::from(s).powf(f64::from(gamma))
            }
        })
        .collect();
    let w: Vec<f64> = (0..n)
        .map(|i| f64::from(words.get(i).copied().unwrap_or(1.0).max(1.0)))
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| p[b].total_cmp(&p[a]).then(a.cmp(&b)));
    // The expected F1 of keeping the best blocks, taken only at the ends of runs of equal
    // scores so that equal blocks are kept or dropped together.
    let (mut best, mut best_k) = (0.0f64, 0usize);
    let mut curve = ExpectedF1::new(&p, &w, beta2);
    for (k, &i) in order.iter().enumerate() {
        // A block whose chance of being content is under half the expected F1 lowers it
        // (exactly so for the ratio of expectations), as do all the blocks after it; a
        // quarter leaves room for the spread the exact expectation takes into account. On
        // the dev pages' out-of-fold scores this stops after 39% of the blocks and gives every
        // page the cut of the whole scan. (For F_β: under F_β / (1 + β²), and half that.)
        if p[i] < best / (2.0 * (1.0 + beta2)) {
            break;
        }
        let f = curve.keep(p[i], w[i]);
        let group_end = order.get(k + 1).is_none_or(|&j| p[j] != p[i]);
        if group_end && f > best {
            best = f;
            best_k = k + 1;
        }
    }
    // Keeping nothing scores 1 when no block is content, which has probability Π (1 − p):
    // scores read as independent, like the expectation above.
    let none_content: f64 = p.iter().map(|p| 1.0 - p).product();
    if none_content > best {
        best_k = 0;
    }
    let mut keep = vec![false; n];
    for &i in &order[..best_k] {
        keep[i] = true;
    }
    keep
}

/// e^(−t·w) per node: a row of `table` for a whole w up to [`DECAY_TABLE_WORDS`] (most
/// blocks), a product of rows for a longer whole w, else `exp` into `buf`.
fn decay<'a>(table: &'a [f64], t: &[f64], buf: &'a mut [f64], w: f64) -> &'a [f64] {
    let nodes = t.len();
    let row = |r: usize| &table[r * nodes..(r + 1) * nodes];
    if w.fract() != 0.0 || !(0.0..=1e6).contains(&w) {
        for (d, &t) in buf.iter_mut().zip(t) {
            *d = (-t * w).exp();
        }
        return buf;
    }
    let w = w as usize;
    if w <= DECAY_TABLE_WORDS {
        return row(w);
    }
    let (whole, rest) = (w / DECAY_TABLE_WORDS, w % DECAY_TABLE_WORDS);
    for ((d, &full), &part) in buf.iter_mut().zip(row(DECAY_TABLE_WORDS)).zip(row(rest)) {
        *d = full.powi(whole as i32) * part;
    }
    buf
}

/// Step in ln t between the nodes of [`ExpectedF1`]'s integral.
const LN_T_STEP: f64 = 0.6;
/// Block word counts up to this get e^(−t·w) from a table of powers rather than an `exp`.
const DECAY_TABLE_WORDS: usize = 64;

/// The expected word F1 of keeping more and more blocks of a page, when block i is content
/// with probability p_i, independently, and holds w_i words; or its F_β, below.
///
/// With K the kept content words, G all content words and c the kept words, F1 = 2K / (c + G).
/// A ratio's expectation is not the ratio of expectations (which misjudges pages of a few
/// long, unsure blocks), but 1/a = ∫₀^∞ e^(−ta) dt turns it into an integral of products:
/// E[2K/(c+G)] = 2 ∫₀^∞ e^(−tc) E[K e^(−tG)] dt, where E[e^(−tG)] = Π (1 − p + p e^(−tw))
/// over all blocks, and E[K e^(−tG)] is that product times Σ over kept blocks of
/// p w e^(−tw) / (1 − p + p e^(−tw)). The integral is a sum over nodes evenly spaced in ln t,
/// where the integrand is a smooth bump: from t = 10⁻³ / page words (below it the integrand
/// is 2 E[K], added as such) to t = 30, where e^(−tc) has vanished since c ≥ 1. That is 20
/// to 44 nodes (about 32 for a page of 2,000 words), within about 5·10⁻⁵ of the exact value.
///
/// F_β = (1 + β²) K / (c + β² G) is the same integral with (1 + β²) for the 2 and the content
/// words' terms taken at β² t: E[e^(−tc) K e^(−tβ²G)], the product over blocks at β² t.
struct ExpectedF1 {
    /// The nodes t.
    t: Vec<f64>,
    /// β² t per node: where the content words' terms are taken (t itself for F1).
    tg: Vec<f64>,
    /// e^(−β² t w) of the block at hand, per node, for β² ≠ 1.
    decay_g: Vec<f64>,
    /// Each node's weight in the sum (step × t, as the nodes are spaced in ln t), times
    /// 1 + β² and E[e^(−β²tG)].
    weight: Vec<f64>,
    /// e^(−t·w) for w = 0 to [`DECAY_TABLE_WORDS`], a row of nodes per w.
    table: Vec<f64>,
    /// The same at β² t, for β² ≠ 1.
    table_g: Option<Vec<f64>>,
    /// The integral below the first node's share of ln t, per unit of E[K]: 1 + β² times the
    /// t where that share begins.
    below: f64,
    /// Σ over kept blocks of p w e^(−tw) / (1 − p + p e^(−tw)), per node.
    kept_sum: Vec<f64>,
    /// e^(−tc) per node.
    kept_decay: Vec<f64>,
    /// E[K]: Σ p w over kept blocks.
    kept_expected: f64,
    /// e^(−t·w) of the block at hand, per node, when the table does not hold it.
    decay: Vec<f64>,
}

impl ExpectedF1 {
    /// Nothing kept yet, on a page of these blocks, for F1 (`beta2` = 1) or F_β.
    fn new(p: &[f64], w: &[f64], beta2: f64) -> Self {
        // The content words count β² times: the first node as much lower for F_2.
        let total: f64 = w.iter().sum::<f64>().max(1.0) * beta2.max(1.0);
        let (lo, hi) = ((1e-3 / total).ln(), 30f64.ln());
        // Rounded up to a multiple of 4 (nodes past t = 30 add next to nothing).
        let nodes = (((hi - lo) / LN_T_STEP).ceil() as usize + 1).next_multiple_of(4);
        let t: Vec<f64> = (0..nodes)
            .map(|q| (lo + q as f64 * LN_T_STEP).exp())
            .collect();
        let tg: Vec<f64> = t.iter().map(|t| t * beta2).collect();
        let mut curve = ExpectedF1 {
            weight: vec![0.0; nodes],
            table: decay_table(&t),
            table_g: (beta2 != 1.0).then(|| decay_table(&tg)),
            // The first node's term covers ln t down to half a step below it.
            below: (1.0 + beta2) * t[0] * (-LN_T_STEP / 2.0).exp(),
            kept_sum: vec![0.0; nodes],
            kept_decay: vec![1.0; nodes],
            kept_expected: 0.0,
            decay: vec![0.0; nodes],
            decay_g: vec![0.0; nodes],
            t,
            tg,
        };
        // E[e^(−β²tG)], over every block of the page.
        let mut all = vec![1.0f64; nodes];
        let (table, t) = (curve.table_g.as_ref().unwrap_or(&curve.table), &curve.tg);
        for (&p, &w) in p.iter().zip(w) {
            for (a, &e) in all.iter_mut().zip(decay(table, t, &mut curve.decay, w)) {
                *a *= 1.0 - p + p * e;
            }
        }
        for ((weight, &t), &all) in curve.weight.iter_mut().zip(&curve.t).zip(&all) {
            *weight = (1.0 + beta2) * LN_T_STEP * t * all;
        }
        curve
    }

    /// Keep one more block (one of the page's, as given to [`ExpectedF1::new`]), and return
    /// the expected F1 (or F_β) of all the blocks kept so far.
    fn keep(&mut self, p: f64, w: f64) -> f64 {
        self.kept_expected += p * w;
        let decay_c = decay(&self.table, &self.t, &mut self.decay, w);
        // The content words' factor, at β² t: the same as the kept words' for F1.
        let decay_g = match &self.table_g {
            Some(table) => decay(table, &self.tg, &mut self.decay_g, w),
            None => decay_c,
        };
        for (((sum, kept), &c), &e) in self
            .kept_sum
            .iter_mut()
            .zip(&mut self.kept_decay)
            .zip(decay_c)
            .zip(decay_g)
        {
            // The factor is zero only where p = 1 and e underflows, and then so is the
            // numerator (and E[e^(−β²tG)]): add nothing rather than 0/0.
            *sum += p * w * e / (1.0 - p + p * e).max(f64::MIN_POSITIVE);
            *kept *= c;
        }
        // Σ weight × e^(−tc) × kept_sum, in lanes of 4 (the node count is a multiple of 4) so
        // that it runs in vector registers.
        let mut lanes = [0.0f64; 4];
        for ((weight, kept), sum) in self
            .weight
            .chunks_exact(4)
            .zip(self.kept_decay.chunks_exact(4))
            .zip(self.kept_sum.chunks_exact(4))
        {
            for l in 0..4 {
                lanes[l] += weight[l] * kept[l] * sum[l];
            }
        }
        self.below * self.kept_expected + (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
    }
}

/// e^(−t·w) for w = 0 to [`DECAY_TABLE_WORDS`], a row of nodes t per w.
fn decay_table(t: &[f64]) -> Vec<f64> {
    let nodes = t.len();
    let mut table = vec![1.0f64; (DECAY_TABLE_WORDS + 1) * nodes];
    for (q, &t) in t.iter().enumerate() {
        let one = (-t).exp();
        for row in 1..=DECAY_TABLE_WORDS {
            table[row * nodes + q] = table[(row - 1) * nodes + q] * one;
        }
    }
    table
}

fn mss(scores: &[f32], words: &[f32], threshold: f32) -> Vec<bool> {
    let mut best = (0.0f32, 0usize, 0usize); // (sum, start, end exclusive)
    let (mut sum, mut start) = (0.0f32, 0usize);
    for (i, &s) in scores.iter().enumerate() {
        let v = (s - threshold) * words.get(i).copied().unwrap_or(1.0).max(1.0);
        if sum <= 0.0 {
            sum = v;
            start = i;
        } else {
            sum += v;
        }
        if sum > best.0 {
            best = (sum, start, i + 1);
        }
    }
    (0..scores.len())
        .map(|i| i >= best.1 && i < best.2)
        .collect()
}

fn runs(scores: &[f32], threshold: f32, max_gap: usize, gap_threshold: f32) -> Vec<bool> {
    let mut keep: Vec<bool> = scores.iter().map(|&s| s >= threshold).collect();
    let mut last: Option<usize> = None;
    for i in 0..scores.len() {
        if !keep[i] {
            continue;
        }
        if let Some(l) = last {
            let gap = i - l - 1;
            if gap > 0 && gap <= max_gap {
                let mean = scores[l + 1..i].iter().sum::<f32>() / gap as f32;
                if mean >= gap_threshold {
                    keep[l + 1..i].iter_mut().for_each(|k| *k = true);
                }
            }
        }
        last = Some(i);
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_and_mss() {
        let scores = [0.9, 0.1, 0.8, 0.7, 0.2, 0.1, 0.9];
        let words = [1.0, 1.0, 10.0, 10.0, 5.0, 10.0, 2.0];
        let t = Decoder::Threshold { threshold: 0.5 }.decode(&scores, &words);
        assert_eq!(t, [true, false, true, true, false, false, true]);
        // The run 2..=3 carries most words; the lone blocks at both ends are too small to join.
        let m = Decoder::Mss { threshold: 0.5 }.decode(&scores, &words);
        assert_eq!(m, [false, false, true, true, false, false, false]);
    }

    #[test]
    fn runs_bridge_small_gaps_only() {
        let scores = [0.9, 0.4, 0.9, 0.1, 0.1, 0.1, 0.9];
        let d = Decoder::Runs {
            threshold: 0.5,
            max_gap: 2,
            gap_threshold: 0.3,
        };
        assert_eq!(
            d.decode(&scores, &[1.0; 7]),
            [true, true, true, false, false, false, true]
        );
    }

    #[test]
    fn smoothing_and_headings() {
        let d = Decoding {
            decoder: Decoder::Smooth {
                threshold: 0.5,
                alpha: 0.5,
            },
            attach_headings: true,
            drop_repeats: false,
        };
        let scores = [0.1, 0.45, 0.9, 0.8];
        let texts = ["a", "b", "c", "d"];
        let keep = d.decode(&scores, &[1.0; 4], &[true, false, false, false], &texts);
        // Block 1 rises with its neighbours (0.45/2 + (0.1+0.9)/4 = 0.475 < 0.5: stays out).
        assert_eq!(keep, [false, false, true, true]);
        let keep = d.decode(&scores, &[1.0; 4], &[false, true, false, false], &texts);
        assert_eq!(keep, [false, true, true, true]);
    }

    #[test]
    fn repeats_dropped_after_their_first_copy() {
        let long = "The same paragraph, said twice on one page.";
        let texts = [
            "Intro",
            long,
            "Tab",
            "the SAME paragraph said twice -- on one page",
            "Price: $10",
            "Price: $10",
            long,
        ];
        let words = [1.0, 8.0, 1.0, 8.0, 2.0, 2.0, 8.0];
        let headings = [false, false, true, false, false, false, false];
        let d = Decoding {
            decoder: Decoder::Threshold { threshold: 0.5 },
            attach_headings: true,
            drop_repeats: true,
        };
        let scores = [0.9, 0.9, 0.1, 0.9, 0.9, 0.9, 0.2];
        // Block 3 has block 1's words (case and punctuation aside): dropped, and the heading
        // above it stays out. Short repeats stay; block 6 was not kept in the first place.
        assert_eq!(
            d.decode(&scores, &words, &headings, &texts),
            [true, true, false, false, true, true, false]
        );
        // Without its first copy kept, a repeat is the one kept. Block 6 repeats it, and the
        // short repeat 5 next to that long repeat goes with it.
        let scores = [0.9, 0.1, 0.1, 0.9, 0.9, 0.9, 0.9];
        assert_eq!(
            d.decode(&scores, &words, &headings, &texts),
            [true, false, true, true, true, false, false]
        );
        // The trace names the block each dropped repeat repeats, and only those: block 1,
        // dropped by its score, repeats nothing kept.
        let (_, repeat_of) = d.decode_traced(Favor::Balance, &scores, &words, &headings, &texts);
        assert_eq!(repeat_of, [None, None, None, None, None, Some(4), Some(3)]);
        let off = Decoding {
            drop_repeats: false,
            ..d
        };
        assert!(off.decode(&scores, &words, &headings, &texts)[6]);
    }

    #[test]
    fn a_repeated_section_goes_with_its_short_heading() {
        let texts = [
            "Colourful design",
            "Step into a world of fun and creative possibilities.",
            "Colourful design",
            "Step into a world of fun and creative possibilities.",
            "Buy now",
            "Buy now",
            "Colourful design",
            "Next",
            "Colourful design",
            "Buy now",
        ];
        let words = [2.0, 9.0, 2.0, 9.0, 2.0, 2.0, 2.0, 1.0, 2.0, 2.0];
        let d = Decoding {
            decoder: Decoder::Threshold { threshold: 0.5 },
            attach_headings: false,
            drop_repeats: true,
        };
        // Blocks 2 and 3 repeat blocks 0 and 1 side by side: dropped together, the heading
        // too. Short repeats side by side (5 and 6; 8 and 9) stay.
        assert_eq!(
            d.decode(&[0.9; 10], &words, &[false; 10], &texts),
            [true, true, false, false, true, true, true, true, true, true]
        );
        // A block left out by the decoder does not cut a run: 3 and 5 are next to each other
        // among the kept blocks. Many short repeats side by side are not a long one.
        let (intro, long) = ("Intro text", "A long enough paragraph of words here");
        let mut texts = vec![intro, long, "Ad", intro, "ad", long];
        let mut words = vec![2.0, 8.0, 1.0, 2.0, 1.0, 8.0];
        for _ in 0..7 {
            texts.extend(["1", "2"]);
            words.extend([1.0, 1.0]);
        }
        let mut scores = vec![0.9; texts.len()];
        scores[4] = 0.1;
        let keep = d.decode(&scores, &words, &vec![false; texts.len()], &texts);
        let mut want = vec![true; texts.len()];
        want[3..6].fill(false);
        assert_eq!(keep, want);
    }

    #[test]
    fn repeats_compare_words_only() {
        let norm = normalized;
        assert_eq!(norm("  Don't STOP -- now. "), "don t stop now");
        assert_eq!(norm("don t stop now"), "don t stop now");
        assert_ne!(norm("ab c"), norm("abc"));
        assert_ne!(norm("Price 10 euros"), norm("Price 20 euros"));
        assert_eq!(norm("Ünïcode_x ², ÉTÉ"), "ünïcode_x ² été");
        assert_eq!(norm("...!"), "");
        // The ASCII table reads every ASCII character as Unicode's tables do.
        for c in (0u8..128).map(char::from) {
            let word = c.is_alphanumeric() || c == '_';
            let want = if word {
                format!("x{}x", c.to_lowercase())
            } else {
                "x x".to_string()
            };
            assert_eq!(norm(&format!("x{c}x")), want, "{c:?}");
        }
    }

    #[test]
    fn expected_f1_cut_adapts_to_the_page() {
        let d = Decoder::ExpectedF1 { gamma: 1.0 };
        // One sure long block: a middling short one would cost more precision than it adds.
        assert_eq!(
            d.decode(&[0.95, 0.4, 0.1], &[100.0, 10.0, 10.0]),
            [true, false, false]
        );
        // On an unsure page the same middling score is worth keeping.
        assert_eq!(
            d.decode(&[0.5, 0.4, 0.1], &[10.0, 10.0, 10.0]),
            [true, true, false]
        );
        // A page where no block is likely content keeps nothing: 0.9 × 0.95 × 0.95 = 0.81
        // that nothing is content, against an expected F1 of about 0.1 for the best block
        // (0.1 that it is content, and then an F1 of 0.97 on average).
        assert_eq!(
            d.decode(&[0.1, 0.05, 0.05], &[5.0, 5.0, 5.0]),
            [false, false, false]
        );
        // With more such blocks, some content somewhere becomes likely, and the best is kept.
        let many = [0.1f32; 40];
        let keep = d.decode(&many, &[5.0; 40]);
        assert!(keep.iter().all(|&k| k));
        // Equal scores go together; nothing scored keeps nothing.
        assert_eq!(
            d.decode(&[0.6, 0.6, 0.0], &[5.0, 5.0, 5.0]),
            [true, true, false]
        );
        assert_eq!(d.decode(&[0.0, 0.0], &[5.0, 5.0]), [false, false]);
        assert!(d.decode(&[], &[]).is_empty());
        assert!(Decoder::ExpectedF1 { gamma: 0.0 }.validate().is_err());
        assert!(Decoder::ExpectedF1 { gamma: f32::NAN }.validate().is_err());
    }

    #[test]
    fn favouring_precision_keeps_less_and_recall_more() {
        let d = Decoder::ExpectedF1 { gamma: 1.0 };
        let scores = [0.9, 0.7, 0.5, 0.3, 0.1];
        let words = [30.0; 5];
        let kept = |favor| d.decode_favoring(favor, &scores, &words);
        assert_eq!(kept(Favor::Balance), [true, true, true, false, false]);
        assert_eq!(kept(Favor::Precision), [true, true, false, false, false]);
        assert_eq!(kept(Favor::Recall), [true, true, true, true, false]);
        assert_eq!(d.decode(&scores, &words), kept(Favor::Balance));
        // The other decoders have a threshold to move, and ignore it.
        let t = Decoder::Threshold { threshold: 0.5 };
        assert_eq!(
            t.decode_favoring(Favor::Precision, &scores, &words),
            t.decode(&scores, &words)
        );
    }

    /// The expected F1 of every prefix, against the mean over all 2^n labellings of a page.
    #[test]
    fn expected_f1_is_exact() {
        let pages: [(&[f64], &[f64]); 4] = [
            (&[0.9, 0.7, 0.5, 0.3, 0.1], &[120.0, 3.0, 40.0, 1.0, 7.0]),
            (&[1.0, 0.5, 0.5, 0.0], &[2.0, 200.0, 1.0, 5.0]),
            (&[0.2; 8], &[10.0, 65.0, 64.0, 1.0, 2.5, 9.0, 30.0, 1.0]),
            (&[0.99, 0.01], &[5000.0, 1.0]),
        ];
        // F1, and F_β for the precision and recall settings.
        for ((p, w), beta2) in pages
            .into_iter()
            .flat_map(|page| Favor::ALL.map(|f| (page, f.beta2())))
        {
            let n = p.len();
            let mut curve = ExpectedF1::new(p, w, beta2);
            let got: Vec<f64> = (0..n).map(|i| curve.keep(p[i], w[i])).collect();
            for k in 1..=n {
                let kept: f64 = w[..k].iter().sum();
                let mut exact = 0.0;
                for labels in 0u32..1 << n {
                    let content = |i: usize| labels >> i & 1 == 1;
                    let chance: f64 = (0..n)
                        .map(|i| if content(i) { p[i] } else { 1.0 - p[i] })
                        .product();
                    let gold: f64 = (0..n).filter(|&i| content(i)).map(|i| w[i]).sum();
                    let hit: f64 = (0..k).filter(|&i| content(i)).map(|i| w[i]).sum();
                    exact += chance * (1.0 + beta2) * hit / (kept + beta2 * gold);
                }
                assert!(
                    (got[k - 1] - exact).abs() < 5e-5,
                    "{p:?} {w:?} β²={beta2} k={k}: {} against {exact}",
                    got[k - 1]
                );
            }
        }
    }

    #[test]
    fn validation() {
        assert!(Decoder::Threshold { threshold: 1.5 }.validate().is_err());
        assert!(Decoder::Smooth {
            threshold: 0.5,
            alpha: -0.1
        }
        .validate()
        .unwrap_err()
        .to_string()
        .contains("alpha"));
    }
}
