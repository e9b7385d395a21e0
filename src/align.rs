//! Word tokenization, the benchmark's word-level precision/recall/F1, and an
//! order-preserving alignment of page tokens against gold main-content tokens.
//!
//! The alignment turns a plain-text gold annotation into per-token labels on the
//! page: a page token is "matched" when it is paired with a gold token, and the
//! pairs form a common subsequence of both token streams.

use regex::Regex;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------
// Tokenization
// ---------------------------------------------------------------------------

/// Python's `\w` on `str` is `ch.isalnum() or ch == '_'`, i.e. general categories
/// L* and N* plus `_`. Rust's `\w` is different (it adds combining marks and all
/// connector punctuation), so the class is spelled out.
fn word_regex() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"[\p{L}\p{N}_]+").ok())
        .as_ref()
}

#[inline]
fn is_ascii_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Calls `f` with every lowercase word token of `text`, in order, without
/// allocating a `String` per token.
///
/// Tokens are exactly those of [`tokenize`]. ASCII text is scanned in place
/// (a token is lowercased into one reused buffer only when it has capitals);
/// other text is lowercased once as a whole, as Python does, because
/// lowercasing can change token boundaries (`İ` becomes `i` plus a combining
/// dot, which is not a word character) and the final-sigma rule looks across
/// token boundaries.
pub fn for_each_token(text: &str, mut f: impl FnMut(&str)) {
    if text.is_ascii() {
        let bytes = text.as_bytes();
        let mut buf = String::new();
        let mut i = 0;
        while i < bytes.len() {
            if !is_ascii_word(bytes[i]) {
                i += 1;
                continue;
            }
            let start = i;
            let mut upper = false;
            while i < bytes.len() && is_ascii_word(bytes[i]) {
                upper |= bytes[i].is_ascii_uppercase();
                i += 1;
            }
            let tok = &text[start..i];
            if upper {
                buf.clear();
                buf.push_str(tok);
                buf.make_ascii_lowercase();
                f(&buf);
            } else {
                f(tok);
            }
        }
        return;
    }
    let lower = text.to_lowercase();
    match word_regex() {
        Some(re) => re.find_iter(&lower).for_each(|m| f(m.as_str())),
        // Only reachable if the constant pattern failed to compile; keep going
        // with the closest std approximation instead of panicking.
        None => lower
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|t| !t.is_empty())
            .for_each(f),
    }
}

/// Lowercase `\w+` tokens of `text`, matching Python's
/// `re.findall(r'\w+', text.lower())`.
///
/// A word character is one of general category L* (letters) or N* (digits,
/// letter numbers such as `Ⅻ`, other numbers such as `²` or `½`), or `_`,
/// which is what Python's `str.isalnum() or '_'` amounts to. So, as in Python,
/// combining marks split words (`"naïve"` written with a combining diaeresis
/// gives `["nai", "ve"]`), apostrophes split words (`"don't"` gives
/// `["don", "t"]`), and `²` is a word character.
///
/// Known differences from Python: characters whose Unicode data changed
/// between the Unicode version of the Python build and the one built into
/// Rust's `regex` crate and standard library (for Python 3.11 that is Unicode
/// 14.0; code points assigned later are word characters here but not there),
/// and in principle any difference between Python's `str.lower()` and Rust's
/// `str::to_lowercase()` (both apply full lowercase mappings and the
/// final-sigma rule; none is known on shared Unicode data).
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    tokenize_into(text, &mut out);
    out
}

/// Like [`tokenize`], but appends the tokens to `out` so a caller can reuse one
/// vector across many texts.
pub fn tokenize_into(text: &str, out: &mut Vec<String>) {
    for_each_token(text, |t| out.push(t.to_owned()));
}

// ---------------------------------------------------------------------------
// Benchmark metric
// ---------------------------------------------------------------------------

/// Word-level (precision, recall, F1) of `predicted` against `reference`,
/// computed exactly as the benchmark's Python `word_f1`: both texts are
/// tokenized with [`tokenize`], the overlap is the size of the multiset
/// intersection of the two token bags, and
/// - an empty reference scores (1, 1, 1) against an empty prediction and
///   (0, 0, 0) otherwise;
/// - an empty prediction against a non-empty reference scores (0, 0, 0).
///
/// The floating-point operations are done in the same order as in Python, so
/// results are bit-identical for identical token lists.
pub fn word_prf(predicted: &str, reference: &str) -> (f64, f64, f64) {
    let pred = tokenize(predicted);
    let reference = tokenize(reference);
    word_prf_tokens(&pred, &reference)
}

/// [`word_prf`] on token lists that were already computed with [`tokenize`]
/// (or [`for_each_token`]), so callers that hold tokens need not retokenize.
pub fn word_prf_tokens<S: AsRef<str>>(pred: &[S], reference: &[S]) -> (f64, f64, f64) {
    if reference.is_empty() {
        return if pred.is_empty() {
            (1.0, 1.0, 1.0)
        } else {
            (0.0, 0.0, 0.0)
        };
    }
    if pred.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mut counts: HashMap<&str, (usize, usize), FxBuild> =
        HashMap::with_capacity_and_hasher(pred.len().min(reference.len()), FxBuild::default());
    for t in pred {
        counts.entry(t.as_ref()).or_default().0 += 1;
    }
    for t in reference {
        if let Some(c) = counts.get_mut(t.as_ref()) {
            c.1 += 1;
        }
    }
    let overlap: usize = counts.values().map(|&(p, r)| p.min(r)).sum();
    let precision = overlap as f64 / pred.len() as f64;
    let recall = overlap as f64 / reference.len() as f64;
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    (precision, recall, f1)
}

// ---------------------------------------------------------------------------
// Alignment
// ---------------------------------------------------------------------------

/// Marks which page tokens belong to an order-preserving alignment with the
/// gold tokens.
///
/// Returns a vector of `page.len()` flags; `true` means `page[i]` is paired
/// with an equal gold token. The pairs (see [`align_pairs`]) are strictly
/// increasing in both sequences. The alignment aims to be close to a longest
/// common subsequence while preferring matches that sit in long runs of
/// consecutive matches: text that occurs only as a few scattered common words
/// far from the matched body (menus, footers, sidebars) stays unmatched, and
/// of two copies of a passage the one continuing a longer run is taken.
///
/// How: k-grams (k = 6, then 3, 2, 1) that occur rarely in both sequences are
/// anchors; the best increasing chain of anchors (favouring long diagonal
/// runs) is kept and extended over equal neighbours; each gap between chosen
/// runs is solved again the same way, or, when small, exactly by dynamic
/// programming that maximizes matches with a small cost per run. Gaps at the
/// page edges, or where the page side is much longer than the gold side, only
/// take runs of at least three tokens (or short runs lying next to other
/// runs), plus a local alignment of the few page tokens next to the matched
/// neighbour.
///
/// Deterministic and near-linear in practice: no table over the whole input
/// is built, and the nested anchor searches have a fixed work budget.
pub fn align<S: AsRef<str> + Eq + Hash>(page: &[S], gold: &[S]) -> Vec<bool> {
    let mut out = vec![false; page.len()];
    for (p, _) in align_pairs(page, gold) {
        out[p] = true;
    }
    out
}

/// The alignment behind [`align`] as `(page_index, gold_index)` pairs, sorted
/// and strictly increasing in both indices, with `page[p] == gold[g]` for every
/// pair.
pub fn align_pairs<S: Eq + Hash>(page: &[S], gold: &[S]) -> Vec<(usize, usize)> {
    if page.is_empty() || gold.is_empty() {
        return Vec::new();
    }
    // Intern to integers; id 0 marks page tokens absent from the gold, which can
    // never match.
    let mut ids: HashMap<&S, u32, FxBuild> =
        HashMap::with_capacity_and_hasher(gold.len().min(1 << 16), FxBuild::default());
    let g: Vec<u32> = gold
        .iter()
        .map(|t| {
            let next = u32::try_from(ids.len() + 1).unwrap_or(u32::MAX);
            *ids.entry(t).or_insert(next)
        })
        .collect();
    let p: Vec<u32> = page
        .iter()
        .map(|t| ids.get(t).copied().unwrap_or(0))
        .collect();
    let mut al = Aligner {
        p: &p,
        g: &g,
        pairs: Vec::new(),
        budget: ANCHOR_BUDGET_PER_TOKEN
            .saturating_mul(p.len() + g.len())
            .saturating_add(ANCHOR_BUDGET_BASE),
        dirs: Vec::new(),
    };
    al.run();
    let mut pairs = al.pairs;
    pairs.sort_unstable();
    pairs
}

/// Largest gap (page tokens x gold tokens) filled by exact dynamic programming.
const DP_CAP: usize = 250_000;
/// Score of one matched pair in the gap DP; penalties below are in these units.
const MATCH: i32 = 4;
/// Cost of starting a new run inside a gap bounded by matches on both sides:
/// a mild push towards fewer, longer runs that still keeps near-LCS recall.
const BETA_TIGHT: i32 = 1;
/// Same, for the page windows next to a match at the edge of a loose gap.
const BETA_WINDOW: i32 = 2;
/// Shortest run kept in gaps that are not tightly bounded (page edges, or a
/// page stretch much longer than its gold counterpart).
const MIN_LOOSE_RUN: usize = 3;
/// In loose gaps, a run shorter than the minimum is kept when another run
/// lies at most this many tokens away in both sequences.
const NEIGHBOUR_GAP: usize = 4;
/// k-grams occurring more often than this (in page or gold) are no anchors.
const MAX_OCC: u32 = 4;
/// Anchor k-gram sizes, tried in order until one yields anchors.
const LEVELS_TIGHT: [usize; 4] = [6, 3, 2, 1];
const LEVELS_LOOSE: [usize; 3] = [6, 3, 2];
/// Deterministic work limit for the (possibly nested) anchor searches, in
/// tokens scanned; keeps pathological inputs near-linear.
const ANCHOR_BUDGET_PER_TOKEN: usize = 24;
const ANCHOR_BUDGET_BASE: usize = 200_000;
const NEG: i32 = i32::MIN / 4;

/// A rectangle `page[p0..p1] x gold[g0..g1]` still to align; `left`/`right`
/// say whether matched pairs bound it on that side.
#[derive(Clone, Copy, Debug)]
struct Gap {
    p0: usize,
    p1: usize,
    g0: usize,
    g1: usize,
    left: bool,
    right: bool,
}

/// A diagonal run of matches: `page[p..p+len] == gold[g..g+len]`.
#[derive(Clone, Copy, Debug)]
struct Seg {
    p: usize,
    g: usize,
    len: usize,
}

struct Aligner<'a> {
    p: &'a [u32],
    g: &'a [u32],
    pairs: Vec<(usize, usize)>,
    budget: usize,
    /// Reused traceback matrix of the gap DP.
    dirs: Vec<u8>,
}

impl Aligner<'_> {
    fn run(&mut self) {
        let mut stack = vec![Gap {
            p0: 0,
            p1: self.p.len(),
            g0: 0,
            g1: self.g.len(),
            left: false,
            right: false,
        }];
        while let Some(gap) = stack.pop() {
            self.process(gap, &mut stack);
        }
    }

    fn process(&mut self, gap: Gap, stack: &mut Vec<Gap>) {
        let a = gap.p1 - gap.p0;
        let b = gap.g1 - gap.g0;
        if a == 0 || b == 0 {
            return;
        }
        // Between two matched runs, with a page stretch not much longer than the
        // gold stretch: whatever matches here is almost surely the same text.
        let tight = gap.left && gap.right && a <= 3 * b + 10;
        if tight {
            if a.saturating_mul(b) <= DP_CAP {
                let pos: Vec<usize> = (gap.p0..gap.p1).collect();
                self.dp(&pos, gap.g0, gap.g1, BETA_TIGHT);
            } else if !self.anchor(gap, &LEVELS_TIGHT, 1, stack) {
                self.windows(gap);
            }
            return;
        }
        // Loose: page edges or a page stretch full of extra material. Only runs
        // of several tokens count (two when the gold side has just two), plus
        // lone matches right next to a bound.
        let min_run = MIN_LOOSE_RUN.min(b);
        if self.anchor(gap, &LEVELS_LOOSE, min_run.max(2), stack) {
            return;
        }
        if gap.left || gap.right {
            self.windows(gap);
        } else if a.saturating_mul(b) <= DP_CAP {
            let pos: Vec<usize> = (gap.p0..gap.p1).collect();
            // No bound at all (no anchor anywhere): a run of `min_run` scores
            // > 0, one token shorter < 0; a one-token gold may match alone.
            let beta = MATCH * min_run as i32 - MATCH / 2;
            self.dp(&pos, gap.g0, gap.g1, beta);
        } else {
            self.greedy_runs(gap, min_run);
        }
    }

    fn record(&mut self, s: Seg) {
        self.pairs.extend((0..s.len).map(|t| (s.p + t, s.g + t)));
    }

    /// Finds anchor runs in `gap` from k-grams rare in both sequences, keeps
    /// the best-scoring increasing chain, extends it over equal neighbours,
    /// records it and queues the gaps between. Returns false when nothing was
    /// found at any level (or the work budget is spent).
    fn anchor(&mut self, gap: Gap, levels: &[usize], min_run: usize, stack: &mut Vec<Gap>) -> bool {
        let a = gap.p1 - gap.p0;
        let b = gap.g1 - gap.g0;
        for &k in levels {
            if k > a || k > b {
                continue;
            }
            let cost = a + b;
            if self.budget < cost {
                return false;
            }
            self.budget -= cost;
            // Short grams must be unique on both sides (patience-diff style);
            // longer ones may repeat a little, the chain picks the right copy.
            let max_occ = if k >= 3 { MAX_OCC } else { 1 };
            let pairs = self.gram_pairs(gap, k, max_occ);
            if pairs.is_empty() {
                continue;
            }
            let mut segs = best_chain(pairs, k, gap);
            self.extend(&mut segs, gap);
            if min_run > 1 {
                // Short runs survive only next to another run (heavily edited
                // text); a short run standing alone is a chance hit.
                let close = |a: &Seg, b: &Seg| {
                    let gap = (b.p - (a.p + a.len)).max(b.g - (a.g + a.len));
                    gap <= NEIGHBOUR_GAP && a.len + b.len >= min_run
                };
                let keep: Vec<bool> = (0..segs.len())
                    .map(|i| {
                        segs[i].len >= min_run
                            || (i > 0 && close(&segs[i - 1], &segs[i]))
                            || (i + 1 < segs.len() && close(&segs[i], &segs[i + 1]))
                    })
                    .collect();
                let mut it = keep.iter();
                segs.retain(|_| it.next().copied().unwrap_or(false));
            }
            if segs.is_empty() {
                continue;
            }
            let (mut cp, mut cg, mut left) = (gap.p0, gap.g0, gap.left);
            for &s in &segs {
                stack.push(Gap {
                    p0: cp,
                    p1: s.p,
                    g0: cg,
                    g1: s.g,
                    left,
                    right: true,
                });
                self.record(s);
                cp = s.p + s.len;
                cg = s.g + s.len;
                left = true;
            }
            stack.push(Gap {
                p0: cp,
                p1: gap.p1,
                g0: cg,
                g1: gap.g1,
                left: true,
                right: gap.right,
            });
            return true;
        }
        false
    }

    /// All verified `(page, gold)` start pairs of equal k-grams inside `gap`
    /// whose occurrence counts in both ranges are between 1 and `max_occ`.
    fn gram_pairs(&self, gap: Gap, k: usize, max_occ: u32) -> Vec<(usize, usize)> {
        struct Gram {
            gc: u32,
            pc: u32,
            g: usize,
            p: usize,
        }
        let gw = &self.g[gap.g0..gap.g1];
        let pw = &self.p[gap.p0..gap.p1];
        let ng = gw.len() + 1 - k;
        let mut index: HashMap<u64, u32, FxBuild> =
            HashMap::with_capacity_and_hasher(ng, FxBuild::default());
        let mut grams: Vec<Gram> = Vec::new();
        for i in 0..ng {
            match index.entry(gram_hash(&gw[i..i + k])) {
                Entry::Occupied(e) => {
                    let gr = &mut grams[*e.get() as usize];
                    gr.gc = gr.gc.saturating_add(1);
                }
                Entry::Vacant(e) => {
                    e.insert(grams.len() as u32);
                    grams.push(Gram {
                        gc: 1,
                        pc: 0,
                        g: i,
                        p: 0,
                    });
                }
            }
        }
        for_each_page_gram(pw, k, |i, h| {
            if let Some(&ix) = index.get(&h) {
                let gr = &mut grams[ix as usize];
                gr.pc = gr.pc.saturating_add(1);
                if gr.pc == 1 {
                    gr.p = i;
                }
            }
        });
        let qualifies = |gr: &Gram| gr.gc <= max_occ && gr.pc >= 1 && gr.pc <= max_occ;
        let eq = |p: usize, g: usize| self.p[p..p + k] == self.g[g..g + k];
        let mut pairs = Vec::new();
        let mut multi = false;
        for gr in &grams {
            if qualifies(gr) {
                if gr.gc == 1 && gr.pc == 1 {
                    let (p, g) = (gap.p0 + gr.p, gap.g0 + gr.g);
                    if eq(p, g) {
                        pairs.push((p, g));
                    }
                } else {
                    multi = true;
                }
            }
        }
        if multi {
            let is_multi = |ix: u32| {
                let gr = &grams[ix as usize];
                qualifies(gr) && (gr.gc > 1 || gr.pc > 1)
            };
            let mut gl: Vec<(u32, usize)> = Vec::new();
            for i in 0..ng {
                if let Some(&ix) = index.get(&gram_hash(&gw[i..i + k])) {
                    if is_multi(ix) {
                        gl.push((ix, gap.g0 + i));
                    }
                }
            }
            let mut pl: Vec<(u32, usize)> = Vec::new();
            for_each_page_gram(pw, k, |i, h| {
                if let Some(&ix) = index.get(&h) {
                    if is_multi(ix) {
                        pl.push((ix, gap.p0 + i));
                    }
                }
            });
            gl.sort_unstable();
            pl.sort_unstable();
            let (mut i, mut j) = (0, 0);
            while i < gl.len() && j < pl.len() {
                let (gi, pi) = (gl[i].0, pl[j].0);
                if gi < pi {
                    i += 1;
                } else if pi < gi {
                    j += 1;
                } else {
                    let ie = i + gl[i..].iter().take_while(|x| x.0 == gi).count();
                    let je = j + pl[j..].iter().take_while(|x| x.0 == gi).count();
                    for &(_, g) in &gl[i..ie] {
                        for &(_, p) in &pl[j..je] {
                            if eq(p, g) {
                                pairs.push((p, g));
                            }
                        }
                    }
                    i = ie;
                    j = je;
                }
            }
        }
        pairs
    }

    /// Grows each segment over equal neighbouring tokens, staying inside `gap`
    /// and clear of the neighbouring segments.
    fn extend(&self, segs: &mut [Seg], gap: Gap) {
        for i in 0..segs.len() {
            let (lp, lg) = if i == 0 {
                (gap.p0, gap.g0)
            } else {
                (
                    segs[i - 1].p + segs[i - 1].len,
                    segs[i - 1].g + segs[i - 1].len,
                )
            };
            let (up, ug) = if i + 1 < segs.len() {
                (segs[i + 1].p, segs[i + 1].g)
            } else {
                (gap.p1, gap.g1)
            };
            let s = &mut segs[i];
            while s.p > lp && s.g > lg && self.p[s.p - 1] == self.g[s.g - 1] {
                s.p -= 1;
                s.g -= 1;
                s.len += 1;
            }
            while s.p + s.len < up && s.g + s.len < ug && self.p[s.p + s.len] == self.g[s.g + s.len]
            {
                s.len += 1;
            }
        }
    }

    /// For a loose gap with a bound on one or both sides: align the gold
    /// stretch against only the page tokens next to the bound(s), where text
    /// missing from the anchored runs (captions, bylines) usually sits.
    fn windows(&mut self, gap: Gap) {
        let a = gap.p1 - gap.p0;
        let b = gap.g1 - gap.g0;
        let nwin = usize::from(gap.left) + usize::from(gap.right);
        if nwin == 0 || b == 0 {
            return;
        }
        let mut w = (2 * b + 4).min(a);
        if (nwin * w).saturating_mul(b) > DP_CAP {
            w = DP_CAP / (nwin * b);
        }
        if w == 0 {
            return;
        }
        let pos: Vec<usize> = if nwin * w >= a {
            (gap.p0..gap.p1).collect()
        } else {
            let mut v = Vec::with_capacity(nwin * w);
            if gap.left {
                v.extend(gap.p0..gap.p0 + w);
            }
            if gap.right {
                v.extend(gap.p1 - w..gap.p1);
            }
            v
        };
        self.dp(&pos, gap.g0, gap.g1, BETA_WINDOW);
    }

    /// Exact alignment of the page tokens at `pos` (increasing) with
    /// `gold[g0..g1]`, maximizing `MATCH * matches - beta * runs`, where a run
    /// is a maximal stretch of matches consecutive in both sequences.
    fn dp(&mut self, pos: &[usize], g0: usize, g1: usize, beta: i32) {
        let a = pos.len();
        let b = g1 - g0;
        if a == 0 || b == 0 || a.saturating_mul(b) > DP_CAP {
            return;
        }
        let gw = &self.g[g0..g1];
        self.dirs.clear();
        self.dirs.resize(a * b, 0);
        // Row i holds the best score over prefixes (bst) and the best score of
        // alignments ending in a match at (i, j) (mat).
        let mut prev_m = vec![NEG; b + 1];
        let mut prev_b = vec![0i32; b + 1];
        let mut cur_m = vec![NEG; b + 1];
        let mut cur_b = vec![0i32; b + 1];
        for i in 0..a {
            let pi = self.p[pos[i]];
            let adjacent = i > 0 && pos[i] == pos[i - 1] + 1;
            let row = &mut self.dirs[i * b..(i + 1) * b];
            cur_b[0] = 0;
            cur_m[0] = NEG;
            for j in 1..=b {
                // bits 0-1: where bst came from (0 up, 1 left, 2 match);
                // bit 2: the match continues a run.
                let mut d = 0u8;
                let mut m = NEG;
                if pi == gw[j - 1] {
                    let fresh = prev_b[j - 1] - beta;
                    let cont = if adjacent { prev_m[j - 1] } else { NEG };
                    if cont > NEG && cont >= fresh {
                        m = cont + MATCH;
                        d |= 4;
                    } else {
                        m = fresh + MATCH;
                    }
                }
                let up = prev_b[j];
                let left = cur_b[j - 1];
                let best = if m > NEG && m >= up && m >= left {
                    d |= 2;
                    m
                } else if up >= left {
                    up
                } else {
                    d |= 1;
                    left
                };
                cur_m[j] = m;
                cur_b[j] = best;
                row[j - 1] = d;
            }
            std::mem::swap(&mut prev_m, &mut cur_m);
            std::mem::swap(&mut prev_b, &mut cur_b);
        }
        let (mut i, mut j) = (a, b);
        let mut in_best = true;
        while i > 0 && j > 0 {
            let d = self.dirs[(i - 1) * b + (j - 1)];
            if in_best {
                match d & 3 {
                    0 => i -= 1,
                    1 => j -= 1,
                    _ => in_best = false,
                }
            } else {
                self.pairs.push((pos[i - 1], g0 + j - 1));
                in_best = d & 4 == 0;
                i -= 1;
                j -= 1;
            }
        }
    }

    /// Last resort for huge, highly repetitive gaps with no usable anchors:
    /// walk the gold and take the next page occurrence of each run of at least
    /// `k` equal tokens.
    fn greedy_runs(&mut self, gap: Gap, k: usize) {
        let k = k.max(1);
        if gap.p1 - gap.p0 < k || gap.g1 - gap.g0 < k {
            return;
        }
        let pw = &self.p[gap.p0..gap.p1];
        let mut idx: Vec<(u64, usize)> = Vec::new();
        for_each_page_gram(pw, k, |i, h| idx.push((h, gap.p0 + i)));
        idx.sort_unstable();
        let (mut cur, mut j) = (gap.p0, gap.g0);
        while j + k <= gap.g1 {
            let h = gram_hash(&self.g[j..j + k]);
            let start = idx.partition_point(|&e| e < (h, cur));
            let found = idx[start..]
                .iter()
                .take_while(|e| e.0 == h)
                .take(4)
                .map(|e| e.1)
                .find(|&p| self.p[p..p + k] == self.g[j..j + k]);
            match found {
                Some(p) => {
                    let mut len = k;
                    while p + len < gap.p1 && j + len < gap.g1 && self.p[p + len] == self.g[j + len]
                    {
                        len += 1;
                    }
                    self.record(Seg { p, g: j, len });
                    cur = p + len;
                    j += len;
                }
                None => j += 1,
            }
        }
    }
}

/// Calls `f(start, hash)` for every k-gram of `pw` that holds no id 0 (such
/// grams cannot match any gold gram).
fn for_each_page_gram(pw: &[u32], k: usize, mut f: impl FnMut(usize, u64)) {
    let mut clean_from = 0;
    for end in 0..pw.len() {
        if pw[end] == 0 {
            clean_from = end + 1;
        }
        if end + 1 >= k {
            let start = end + 1 - k;
            if start >= clean_from {
                f(start, gram_hash(&pw[start..=end]));
            }
        }
    }
}

fn gram_hash(ws: &[u32]) -> u64 {
    let mut h: u64 = 0x243f_6a88_85a3_08d3;
    for &x in ws {
        h = (h.rotate_left(21) ^ u64::from(x)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    // splitmix64 finalizer: the map hasher below does little mixing itself.
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// Best chain of anchor start pairs, strictly increasing in both sequences,
/// as non-overlapping segments of k-gram coverage.
///
/// A chain scores 2 per covered token minus 1 per diagonal run: an anchor
/// continuing the run of its diagonal predecessor `(p - 1, g - 1)` adds one
/// token, any other anchor must start past the previous anchor's coverage and
/// adds `k` tokens and a run. So one long run beats the same text split over
/// two places (e.g. two copies of a paragraph). O(K log K) with a Fenwick tree
/// of prefix maxima over page positions.
fn best_chain(mut pairs: Vec<(usize, usize)>, k: usize, gap: Gap) -> Vec<Seg> {
    const NONE: usize = usize::MAX;
    let n = pairs.len();
    if n == 0 {
        return Vec::new();
    }
    pairs.sort_unstable_by_key(|&(p, g)| (g, p));
    let mut diag_prev = vec![NONE; n];
    {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by_key(|&i| (pairs[i].0 as i64 - pairs[i].1 as i64, pairs[i].0));
        for w in order.windows(2) {
            let (a, b) = (pairs[w[0]], pairs[w[1]]);
            if a.0 + 1 == b.0 && a.1 + 1 == b.1 {
                diag_prev[w[1]] = w[0];
            }
        }
    }
    let size = gap.p1 - gap.p0;
    let fresh_gain = 2 * k as i64 - 1;
    let mut tree: Vec<(i64, usize)> = vec![(0, NONE); size + 1];
    let mut best = vec![0i64; n];
    let mut prev = vec![NONE; n];
    let (mut top, mut top_at) = (i64::MIN, NONE);
    let mut inserted = 0;
    for x in 0..n {
        let (px, gx) = pairs[x];
        // Anchors whose coverage ends at or before gx become predecessors.
        while inserted < n && pairs[inserted].1 + k <= gx {
            let z = inserted;
            let mut t = pairs[z].0 + k - gap.p0;
            while t <= size {
                if best[z] > tree[t].0 {
                    tree[t] = (best[z], z);
                }
                t += t & t.wrapping_neg();
            }
            inserted += 1;
        }
        // Fenwick slot of z is z.p + k - p0, so the prefix up to px - p0
        // holds exactly the anchors whose coverage ends at or before px.
        let mut q = (0i64, NONE);
        let mut t = px - gap.p0;
        while t > 0 {
            if tree[t].0 > q.0 {
                q = tree[t];
            }
            t -= t & t.wrapping_neg();
        }
        let (mut b, mut from) = (q.0 + fresh_gain, q.1);
        let d = diag_prev[x];
        if d != NONE && best[d] + 2 > b {
            b = best[d] + 2;
            from = d;
        }
        best[x] = b;
        prev[x] = from;
        if b > top {
            top = b;
            top_at = x;
        }
    }
    let mut chain = Vec::new();
    let mut x = top_at;
    while x != NONE {
        chain.push(pairs[x]);
        x = prev[x];
    }
    chain.reverse();
    let mut segs: Vec<Seg> = Vec::new();
    for (p, g) in chain {
        if let Some(last) = segs.last_mut() {
            if p - last.p == g - last.g && p <= last.p + last.len {
                last.len = last.len.max(p + k - last.p);
                continue;
            }
            // Fresh anchors start past the previous coverage; clip anyway so a
            // segment can never overlap its neighbour.
            last.len = last.len.min(p - last.p).min(g - last.g);
        }
        segs.push(Seg { p, g, len: k });
    }
    segs
}

/// Small, fast hasher (the FxHash scheme) for short keys in hot maps; inputs
/// here are trusted, so DoS resistance is not needed.
#[derive(Default, Clone, Copy)]
struct FxHasher {
    hash: u64,
}

type FxBuild = BuildHasherDefault<FxHasher>;

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.hash = (self.hash.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        tokenize(s)
    }

    /// Checks the documented invariants of `align_pairs` and returns `align`.
    fn checked_align(page: &[String], gold: &[String]) -> Vec<bool> {
        let pairs = align_pairs(page, gold);
        for w in pairs.windows(2) {
            assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1, "not increasing: {w:?}");
        }
        for &(p, g) in &pairs {
            assert_eq!(page[p], gold[g]);
        }
        let marks = align(page, gold);
        assert_eq!(marks.len(), page.len());
        assert_eq!(marks.iter().filter(|&&m| m).count(), pairs.len());
        marks
    }

    fn marked(marks: &[bool], range: std::ops::Range<usize>) -> usize {
        marks[range].iter().filter(|&&m| m).count()
    }

    /// Deterministic pseudo-random words from a vocabulary of `vocab` entries.
    fn lcg_words(n: usize, vocab: u64, seed: u64) -> Vec<String> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                format!("w{}", (x >> 33) % vocab)
            })
            .collect()
    }

    const ARTICLE: &str = "The committee met on Tuesday to discuss the new budget. \
        Members argued about the cost of the bridge, and the chair asked for a \
        revised estimate by the end of the month. The mayor said the city could \
        not afford another delay, because the old bridge is closed to trucks.";

    #[test]
    fn tokenize_basics() {
        assert_eq!(words("Don't stop"), ["don", "t", "stop"]);
        assert_eq!(words("snake_case x2 3.14"), ["snake_case", "x2", "3", "14"]);
        assert_eq!(words("  ...!!  "), Vec::<String>::new());
        assert_eq!(words(""), Vec::<String>::new());
        assert_eq!(words("Hello, WORLD—again"), ["hello", "world", "again"]);
        assert_eq!(words("e-mail: a@b.com"), ["e", "mail", "a", "b", "com"]);
    }

    #[test]
    fn tokenize_unicode() {
        assert_eq!(words("Ünïcödé Straße"), ["ünïcödé", "straße"]);
        assert_eq!(words("ΟΔΟΣ ΟΔΟΣ."), ["οδος", "οδος"]);
        assert_eq!(words("Москва, 2024"), ["москва", "2024"]);
        assert_eq!(words("東京タワー"), ["東京タワー"]);
        // Other-number and letter-number characters are word characters.
        assert_eq!(words("x² ½ Ⅻ ٣"), ["x²", "½", "ⅻ", "٣"]);
        // Combining marks and apostrophe variants split words, as in Python.
        assert_eq!(words("nai\u{308}ve"), ["nai", "ve"]);
        assert_eq!(words("l’été"), ["l", "été"]);
        // İ lowercases to i + combining dot, which splits the word.
        assert_eq!(words("İstanbul"), ["i", "stanbul"]);
        // Connector punctuation other than '_' is not a word character.
        assert_eq!(words("a\u{203f}b"), ["a", "b"]);
    }

    #[test]
    fn tokenize_helpers_agree() {
        let text = "Mixed CASE text, with ÜNICODE and don't-stop_words 42.";
        let mut via_callback = Vec::new();
        for_each_token(text, |t| via_callback.push(t.to_owned()));
        let mut via_into = vec!["keep".to_owned()];
        tokenize_into(text, &mut via_into);
        assert_eq!(via_into[0], "keep");
        assert_eq!(via_into[1..], via_callback[..]);
        assert_eq!(tokenize(text), via_callback);
    }

    #[test]
    fn prf_empty_cases() {
        assert_eq!(word_prf("", ""), (1.0, 1.0, 1.0));
        assert_eq!(word_prf("!!", " , "), (1.0, 1.0, 1.0));
        assert_eq!(word_prf("words", ""), (0.0, 0.0, 0.0));
        assert_eq!(word_prf("", "words"), (0.0, 0.0, 0.0));
        assert_eq!(word_prf("abc", "xyz"), (0.0, 0.0, 0.0));
    }

    #[test]
    fn prf_hand_computed() {
        assert_eq!(word_prf("The cat sat", "the CAT sat"), (1.0, 1.0, 1.0));
        // pred {a:2, b:1}, ref {a:1, b:1, c:1, d:1}: overlap 2.
        let (p, r, f) = word_prf("a a b", "a b c d");
        assert_eq!((p, r), (2.0 / 3.0, 0.5));
        assert_eq!(f, 2.0 * p * r / (p + r));
        assert!((f - 4.0 / 7.0).abs() < 1e-15);
        // Bag-of-words: order does not matter.
        assert_eq!(word_prf("c b a", "a b c"), (1.0, 1.0, 1.0));
        // pred {x:3}, ref {x:1, y:1}: overlap 1.
        let (p, r, f) = word_prf("x x x", "x y");
        assert_eq!((p, r), (1.0 / 3.0, 0.5));
        assert!((f - 0.4).abs() < 1e-15);
        let toks = |s: &str| tokenize(s);
        assert_eq!(
            word_prf_tokens(&toks("a a b"), &toks("a b c d")),
            word_prf("a a b", "a b c d")
        );
        let empty: [&str; 0] = [];
        assert_eq!(word_prf_tokens(&empty, &empty), (1.0, 1.0, 1.0));
        assert_eq!(word_prf_tokens(&["a"], &empty), (0.0, 0.0, 0.0));
    }

    #[test]
    fn align_empty() {
        let none: Vec<String> = Vec::new();
        let some = words("a b c");
        assert!(checked_align(&none, &none).is_empty());
        assert!(checked_align(&none, &some).is_empty());
        assert_eq!(checked_align(&some, &none), [false; 3]);
    }

    #[test]
    fn align_identical() {
        for text in [
            ARTICLE,
            "a",
            "a b",
            "the the the the the the the the",
            "x y x y x y x y",
        ] {
            let t = words(text);
            assert!(checked_align(&t, &t).iter().all(|&m| m), "{text}");
        }
        let long = lcg_words(20_000, 50, 7);
        assert!(checked_align(&long, &long).iter().all(|&m| m));
    }

    #[test]
    fn align_slice_between_menus() {
        let head = words(
            "Home The News About the city Contact us Sign in to the site Search \
             the archive Weather for the week",
        );
        let tail = words(
            "Related: the budget, the bridge, the mayor. Share this on the web. \
             Copyright the city paper. All rights reserved. Back to the top",
        );
        let body = words(ARTICLE);
        let page: Vec<String> = [head.clone(), body.clone(), tail].concat();
        let marks = checked_align(&page, &body);
        let start = head.len();
        for (i, &m) in marks.iter().enumerate() {
            assert_eq!(m, (start..start + body.len()).contains(&i), "token {i}");
        }
    }

    #[test]
    fn align_paraphrased_gold() {
        let head = words("Home the news the city the weather the sports the mayor");
        let body = words(ARTICLE);
        let page: Vec<String> = [head.clone(), body.clone()].concat();
        // Gold drops a few words, changes some, and adds an intro word.
        let gold = words(
            "Report: the committee met on Tuesday to discuss a new budget. \
             Members argued over the cost of the bridge, and the chair asked \
             for a revised estimate by the end of the month. The mayor said the \
             town could not afford a further delay, as the old bridge is closed.",
        );
        let marks = checked_align(&page, &gold);
        assert_eq!(marked(&marks, 0..head.len()), 0, "menu words matched");
        let expected = {
            // Gold words that survive in order; every one should be matched.
            let changed = ["report", "a", "over", "town", "further", "as"];
            gold.iter()
                .filter(|w| !changed.contains(&w.as_str()))
                .count()
        };
        let got = marked(&marks, head.len()..page.len());
        assert!(got >= expected - 2, "matched {got} of about {expected}");
    }

    #[test]
    fn align_lone_common_word_outside_body() {
        // Gold starts with "The" that the page's heading lacks; the menu's lone
        // "the" far from the body must stay unmatched.
        let menu = words("the shop home about news contact careers blog press help login");
        let body = words(ARTICLE);
        let page: Vec<String> = [menu.clone(), body.clone()].concat();
        let gold: Vec<String> = [words("the"), body.clone(), words("the")].concat();
        let marks = checked_align(&page, &gold);
        assert_eq!(marked(&marks, 0..menu.len()), 0);
        assert_eq!(marked(&marks, menu.len()..page.len()), body.len());

        // Extra "the" inside the gold body, page has a menu "the" before it.
        let mut gold2 = body.clone();
        gold2.insert(20, "the".to_owned());
        let marks = checked_align(&page, &gold2);
        assert_eq!(marked(&marks, 0..menu.len()), 0);
        assert_eq!(marked(&marks, menu.len()..page.len()), body.len());
    }

    #[test]
    fn align_repeated_paragraph_prefers_longer_run() {
        let para = words("Sign up for our newsletter to get the latest stories every morning");
        let menu = words("home world politics business");
        let junk = words("advertisement more from the site read next");
        let tail = words("Our editors pick the best stories of the day and send them to you");
        let page: Vec<String> = [
            menu.clone(),
            para.clone(),
            junk.clone(),
            para.clone(),
            tail.clone(),
        ]
        .concat();
        let gold: Vec<String> = [para.clone(), tail.clone()].concat();
        let marks = checked_align(&page, &gold);
        let first = menu.len()..menu.len() + para.len();
        let second_start = first.end + junk.len();
        assert_eq!(marked(&marks, first), 0);
        assert_eq!(marked(&marks, second_start..page.len()), gold.len());

        // Text twice in page, once in gold, with nothing else around.
        let page: Vec<String> = [para.clone(), junk.clone(), para.clone()].concat();
        let marks = checked_align(&page, &para);
        let a = marked(&marks, 0..para.len());
        let b = marked(&marks, para.len() + junk.len()..page.len());
        assert!(
            a == para.len() && b == 0 || a == 0 && b == para.len(),
            "{a} {b}"
        );
    }

    #[test]
    fn align_gaps_filled_inside_body() {
        // Small edits every few words: anchors are short, gaps need the DP.
        let page = lcg_words(3000, 400, 11);
        let mut gold = Vec::new();
        for (i, w) in page.iter().enumerate() {
            match i % 7 {
                3 => gold.push(format!("{w}x")), // substitution
                5 => {}                          // deletion
                _ => gold.push(w.clone()),
            }
        }
        let marks = checked_align(&page, &gold);
        let expected = (0..page.len()).filter(|i| i % 7 != 3 && i % 7 != 5).count();
        let got = marked(&marks, 0..page.len());
        assert!(got * 100 >= expected * 98, "matched {got} of {expected}");
    }

    #[test]
    fn align_heavily_edited_gold() {
        // Every third word changed: only runs of two survive, yet they sit next
        // to each other and must all be found; the menus must stay unmatched.
        let menu = lcg_words(300, 40, 3);
        let body = lcg_words(4000, 20_000, 4);
        let page: Vec<String> = [menu.clone(), body.clone(), menu.clone()].concat();
        let gold: Vec<String> = body
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i % 3 == 0 {
                    format!("{w}x")
                } else {
                    w.clone()
                }
            })
            .collect();
        let marks = checked_align(&page, &gold);
        assert_eq!(marked(&marks, 0..menu.len()), 0);
        assert_eq!(marked(&marks, menu.len() + body.len()..page.len()), 0);
        let expected = (0..body.len()).filter(|i| i % 3 != 0).count();
        assert_eq!(
            marked(&marks, menu.len()..menu.len() + body.len()),
            expected
        );
    }

    #[test]
    fn align_short_text_in_long_page_gap() {
        // Gold has a two-word line between two paragraphs; the page puts it a
        // dozen tokens into a long stretch of extra material.
        let first = words(ARTICLE);
        let second = words("Tickets go on sale next week at the box office and online");
        let extra_before =
            words("quick shop compare add to wish list regular price sale price unit");
        let extra_after = lcg_words(80, 30, 5);
        let page: Vec<String> = [
            first.clone(),
            extra_before.clone(),
            words("six colors"),
            extra_after.clone(),
            second.clone(),
        ]
        .concat();
        let gold: Vec<String> = [first.clone(), words("six colors"), second.clone()].concat();
        let marks = checked_align(&page, &gold);
        assert_eq!(marks.iter().filter(|&&m| m).count(), gold.len());
        let at = first.len() + extra_before.len();
        assert!(marks[at] && marks[at + 1]);
    }

    #[test]
    fn align_random_inputs_are_valid() {
        for seed in 0..40u64 {
            let n = (seed as usize * 37) % 700;
            let m = (seed as usize * 53) % 400;
            let vocab = 2 + seed % 30;
            let page = lcg_words(n, vocab, seed);
            let gold = lcg_words(m, vocab, seed + 1000);
            checked_align(&page, &gold);
            // Gold taken from the page with a random prefix and suffix cut off.
            let cut = &page[n / 4..n - n / 5];
            let marks = checked_align(&page, cut);
            assert!(marked(&marks, 0..n) >= cut.len() * 9 / 10);
        }
    }

    #[test]
    fn align_large_synthetic_page() {
        // ~100k page tokens: menus, article paragraphs, duplicated teasers,
        // comments; gold is the article with light edits. Must finish quickly in
        // release builds; nothing is asserted about time.
        let vocab = 5000;
        let mut page = Vec::new();
        let mut gold = Vec::new();
        let menu = lcg_words(200, 300, 1);
        for chunk in 0..100u64 {
            page.extend(menu.iter().cloned());
            let para = lcg_words(500, vocab, 100 + chunk);
            if chunk % 2 == 0 {
                page.extend(para[..50].iter().cloned());
                gold.extend(
                    para.iter()
                        .enumerate()
                        .filter(|(i, _)| i % 50 != 7)
                        .map(|(_, w)| w.clone()),
                );
            }
            page.extend(para.iter().cloned());
            page.extend(lcg_words(300, 300, 900 + chunk));
        }
        let marks = checked_align(&page, &gold);
        let got = marks.iter().filter(|&&m| m).count();
        assert!(
            got * 100 >= gold.len() * 97,
            "matched {got} of {}",
            gold.len()
        );
    }

    #[test]
    fn align_repetitive_worst_cases() {
        let page: Vec<String> = vec!["a".to_owned(); 100_000];
        let gold: Vec<String> = vec!["a".to_owned(); 50_000];
        let marks = checked_align(&page, &gold);
        assert_eq!(marks.iter().filter(|&&m| m).count(), 50_000);
        let page = lcg_words(100_000, 3, 5);
        let gold = lcg_words(50_000, 3, 6);
        checked_align(&page, &gold);
    }
}
