//! Class and id tokens learned from the training corpus.
//!
//! The fixed vocabularies of [`crate::blocks`] (nav, footer, comment, content…) name the
//! commonest conventions; sites use many more (`post-body`, `swatch`, `topic`, `carousel`,
//! `breadcrumbs`…). A [`ClassLexicon`] learns, for every class/id token found on enough
//! training sites, how often the blocks beneath an element carrying it were content, and the
//! `class_lex_*` features ([`crate::features`]) summarise those rates over a block's element
//! and its ancestors.
//!
//! Tokens are read from the lower-cased class, id, role and itemprop values: every run of 3 or
//! more ASCII letters, and the letters of the whole value run together (`post-body-2` gives
//! `post`, `body` and `postbody`). Digits and punctuation never count, so generated names
//! (`css-1x2y3z`) rarely match across sites.

use crate::blocks::Page;
use crate::features::{FeatureMatrix, F, FNV_START, N_FEATURES};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Elements read per block: its own element and this many minus one ancestors.
pub const LEVELS: usize = 12;
/// Fewest training sites on which a token must occur to be in the lexicon.
const MIN_SITES: u32 = 3;
/// Prior content rate of a token, and its weight in sites: rates of tokens seen on few sites
/// are drawn towards it.
const PRIOR: f64 = 0.3;
const PRIOR_SITES: f64 = 2.0;

/// The class/id token keys of every block: those of its element and of its ancestors up to
/// [`LEVELS`], each once, with the level (0 = the block's element) where it is nearest. Kept
/// as class lists and, per block, which list each level has. [`ClassTokens::of_page`] keeps
/// each distinct list of a page once, so that memory grows with the lists and blocks, not with
/// their product; [`ClassTokens::push_values`] keeps the lists of each block, as the block
/// records it reads carry them.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassTokens {
    /// Keys of every list (each once, in order), one list after another.
    keys: Vec<u64>,
    /// List `j`'s keys are `keys[list_starts[j]..list_starts[j + 1]]`.
    list_starts: Vec<u32>,
    /// Per block and level, nearest first: its list, or [`NO_LIST`].
    levels: Vec<u32>,
    /// Block `i`'s levels are `levels[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
}

/// A level without class/id values.
const NO_LIST: u32 = u32::MAX;

impl Default for ClassTokens {
    fn default() -> Self {
        ClassTokens {
            keys: Vec::new(),
            list_starts: vec![0],
            levels: Vec::new(),
            starts: vec![0],
        }
    }
}

/// Token keys of one class/id value string, in order of appearance (repeats included).
fn value_keys(value: &str, out: &mut Vec<u64>) {
    let step = |h: u64, b: u8| fnv_byte(h, b.to_ascii_lowercase());
    for token in value.as_bytes().split(u8::is_ascii_whitespace) {
        let (mut whole, mut letters, mut runs) = (FNV_START, 0, 0);
        let (mut run, mut run_len) = (FNV_START, 0);
        // A byte that is not an ASCII letter (a digit, punctuation, any byte of a non-ASCII
        // character) ends a run; so does the token's end.
        for &b in token.iter().chain([&b' ']) {
            if b.is_ascii_alphabetic() {
                run = step(run, b);
                whole = step(whole, b);
                run_len += 1;
            } else if run_len > 0 {
                if run_len >= 3 {
                    out.push(run);
                }
                letters += run_len;
                runs += 1;
                (run, run_len) = (FNV_START, 0);
            }
        }
        // The letters of a token of one run of 3 or more are that run's key, just pushed.
        if letters > 0 && !(runs == 1 && letters >= 3) {
            out.push(whole);
        }
    }
}

fn fnv_byte(h: u64, b: u8) -> u64 {
    crate::features::fnv1a(h, &[b])
}

impl ClassTokens {
    /// The tokens of every block of a segmented page.
    pub fn of_page(page: &Page) -> ClassTokens {
        // Elements with the same class list share one string (see `blocks`), so each list is
        // found by the string's address: no string is split twice.
        let mut list_of: FxHashMap<usize, u32> = FxHashMap::default();
        let mut t = ClassTokens::default();
        for b in &page.blocks {
            for e in page.ancestors(b.element).take(LEVELS) {
                let list = if e.tokens.is_empty() {
                    NO_LIST
                } else {
                    *list_of
                        .entry(e.tokens.as_ptr() as usize)
                        .or_insert_with(|| t.push_list(&e.tokens))
                };
                t.levels.push(list);
            }
            t.starts.push(t.levels.len() as u32);
        }
        t
    }

    /// Append one block given by the class/id values of its element and ancestors, nearest
    /// first (as in `textsift blocks` records: [`class_values`]).
    pub fn push_values<S: AsRef<str>>(&mut self, values: &[S]) {
        for v in values.iter().take(LEVELS) {
            let v = v.as_ref();
            let list = if v.is_empty() {
                NO_LIST
            } else {
                self.push_list(v)
            };
            self.levels.push(list);
        }
        self.starts.push(self.levels.len() as u32);
    }

    /// Add the list of one class/id value string; its index.
    fn push_list(&mut self, value: &str) -> u32 {
        let mut keys = Vec::new();
        value_keys(value, &mut keys);
        let mut once = KeySet::default();
        self.keys
            .extend(keys.into_iter().filter(|&k| once.insert(k)));
        self.list_starts.push(self.keys.len() as u32);
        (self.list_starts.len() - 2) as u32
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Whether there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of distinct class lists.
    fn lists(&self) -> usize {
        self.list_starts.len() - 1
    }

    /// The keys of list `j`, each once.
    fn list(&self, j: usize) -> &[u64] {
        &self.keys[self.list_starts[j] as usize..self.list_starts[j + 1] as usize]
    }

    /// The lists of block `i`'s levels, nearest first ([`NO_LIST`] for none).
    fn levels(&self, i: usize) -> &[u32] {
        &self.levels[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// The token keys of block `i`, each once, with their levels, nearest first, into `out`
    /// (`seen` is scratch space).
    fn block(&self, i: usize, seen: &mut KeySet, out: &mut Vec<(u64, u8)>) {
        out.clear();
        seen.clear();
        for (level, &list) in self.levels(i).iter().enumerate() {
            if list != NO_LIST {
                out.extend(
                    self.list(list as usize)
                        .iter()
                        .filter(|&&k| seen.insert(k))
                        .map(|&k| (k, level as u8)),
                );
            }
        }
    }

    /// Append the blocks of another page.
    pub fn extend(&mut self, other: &ClassTokens) {
        let (keys, lists, levels) = (
            self.keys.len() as u32,
            self.lists() as u32,
            self.levels.len() as u32,
        );
        self.keys.extend_from_slice(&other.keys);
        self.list_starts
            .extend(other.list_starts[1..].iter().map(|s| s + keys));
        self.levels.extend(
            other
                .levels
                .iter()
                .map(|&l| if l == NO_LIST { NO_LIST } else { l + lists }),
        );
        self.starts
            .extend(other.starts[1..].iter().map(|s| s + levels));
    }
}

/// The class/id values of a block's element and its ancestors up to [`LEVELS`], nearest first
/// (empty for elements without any), at most [`VALUES_BUDGET`] bytes of them in all: a value
/// past that is cut after its last whole token that fits, and the farther levels are left out.
pub fn class_values(page: &Page, block: &crate::blocks::Block) -> Vec<String> {
    let mut budget = VALUES_BUDGET;
    let mut values = Vec::new();
    for e in page.ancestors(block.element).take(LEVELS) {
        let value: &str = &e.tokens;
        if value.len() <= budget {
            budget -= value.len();
            values.push(value.to_string());
            continue;
        }
        // The whole tokens that fit: up to the last space at or before the budget.
        let fits = value.as_bytes()[..=budget]
            .iter()
            .rposition(|&b| b == b' ')
            .unwrap_or(0);
        values.push(value[..fits].to_string());
        break;
    }
    values
}

/// Most bytes of class/id values that [`class_values`] gives a block. A site builder's
/// `<body>` may carry thousands of bytes of classes, which every block's record would repeat
/// (and a hostile page's element, thousands of its blocks); these are the nearest and most
/// telling values, and more than the blocks of ordinary pages carry.
pub const VALUES_BUDGET: usize = 4096;

/// Log-odds that a block under a token is content, per token found on enough training sites.
/// Sorted by key, so the model file is the same on every run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ClassLexicon {
    keys: Vec<u64>,
    log_odds: Vec<f32>,
    /// Derived, not stored: where the keys with each value of their top [`BUCKET_BITS`] bits
    /// start, so that a lookup scans one or two keys (the keys are hashes, so evenly spread).
    #[serde(skip)]
    buckets: OnceLock<Vec<u32>>,
}

/// Bits of a key that pick its bucket: about one bucket per known token.
const BUCKET_BITS: u32 = 14;

impl PartialEq for ClassLexicon {
    fn eq(&self, other: &Self) -> bool {
        self.keys == other.keys && self.log_odds == other.log_odds
    }
}

fn log_odds(sites: f64, content: f64) -> f32 {
    let p = (content + PRIOR * PRIOR_SITES) / (sites + PRIOR_SITES);
    (p / (1.0 - p)).ln() as f32
}

impl ClassLexicon {
    /// Learn from training rows: each row's tokens, 0/1 label, weight and site (group) id.
    /// On each site a token gets the weighted share of content among the rows beneath it; its
    /// rate is the mean of those shares over the sites. Also fills the `class_lex_*` columns of
    /// `rows` (row-major, [`N_FEATURES`] per row) from the rates without the row's own site,
    /// so that training rows look like rows of an unseen site.
    pub fn learn(
        tokens: &ClassTokens,
        labels: &[u8],
        weights: &[f32],
        groups: &[u32],
        rows: &mut [f32],
    ) -> ClassLexicon {
        let n = tokens
            .len()
            .min(labels.len())
            .min(weights.len())
            .min(groups.len());
        // (key, site) → (weight, content weight).
        let mut per_site: FxHashMap<(u64, u32), (f64, f64)> = FxHashMap::default();
        let (mut seen, mut block) = (KeySet::default(), Vec::new());
        for i in 0..n {
            let w = f64::from(weights[i]);
            tokens.block(i, &mut seen, &mut block);
            for &(k, _) in &block {
                let e = per_site.entry((k, groups[i])).or_default();
                e.0 += w;
                if labels[i] != 0 {
                    e.1 += w;
                }
            }
        }
        let share = |(w, c): (f64, f64)| if w > 0.0 { c / w } else { 0.0 };
        // key → (sites, sum of shares).
        let mut totals: FxHashMap<u64, (u32, f64)> = FxHashMap::default();
        for (&(k, _), &v) in &per_site {
            let e = totals.entry(k).or_default();
            e.0 += 1;
            e.1 += share(v);
        }
        let mut known: Vec<(u64, f32)> = totals
            .iter()
            .filter(|(_, t)| t.0 >= MIN_SITES)
            .map(|(&k, &(s, c))| (k, log_odds(f64::from(s), c)))
            .collect();
        known.sort_unstable_by_key(|e| e.0);
        let rows = rows.chunks_exact_mut(N_FEATURES).zip(groups).take(n);
        for (i, (row, &g)) in rows.enumerate() {
            tokens.block(i, &mut seen, &mut block);
            let known = block.iter().filter_map(|&(k, level)| {
                let (sites, sum) = totals[&k];
                let own = share(per_site[&(k, g)]);
                (sites > MIN_SITES).then(|| (log_odds(f64::from(sites - 1), sum - own), level))
            });
            fill_row(row, known);
        }
        ClassLexicon {
            keys: known.iter().map(|e| e.0).collect(),
            log_odds: known.iter().map(|e| e.1).collect(),
            buckets: OnceLock::new(),
        }
    }

    /// Fill the `class_lex_*` features of blocks from their tokens. Each class list is looked
    /// up once, and a block dedupes only the known tokens of its levels.
    pub fn fill(&self, features: &mut FeatureMatrix, tokens: &ClassTokens) {
        // Known tokens of every list (their place in the lexicon and log-odds), one list after
        // another, and where each list starts.
        let mut known: Vec<(u32, f32)> = Vec::new();
        let mut starts = Vec::with_capacity(tokens.lists() + 1);
        starts.push(0);
        for j in 0..tokens.lists() {
            known.extend(tokens.list(j).iter().filter_map(|&k| self.find(k)));
            starts.push(known.len() as u32);
        }
        // The last block that took each known token: a token is taken once per block, at its
        // nearest level, with no set to clear between blocks.
        let mut taken = vec![u32::MAX; self.keys.len()];
        let mut block: Vec<(f32, u8)> = Vec::new();
        let n = features.rows().min(tokens.len());
        for i in 0..n {
            // Neighbouring blocks often sit under the same class lists (the items of a
            // list, the lines of a paragraph cut by <br>): their values are the same.
            if i > 0 && tokens.levels(i) == tokens.levels(i - 1) {
                let (before, row) = features.data.split_at_mut(i * N_FEATURES);
                let prev = &before[(i - 1) * N_FEATURES..];
                for f in CLASS_COLUMNS {
                    row[f as usize] = prev[f as usize];
                }
                continue;
            }
            block.clear();
            for (level, &list) in tokens.levels(i).iter().enumerate() {
                if list == NO_LIST {
                    continue;
                }
                let j = list as usize;
                for &(place, v) in &known[starts[j] as usize..starts[j + 1] as usize] {
                    let last = &mut taken[place as usize];
                    if *last != i as u32 {
                        *last = i as u32;
                        block.push((v, level as u8));
                    }
                }
            }
            let row = &mut features.data[i * N_FEATURES..(i + 1) * N_FEATURES];
            fill_row(row, block.iter().copied());
        }
    }

    /// The log-odds of a token, if known.
    #[cfg(test)]
    fn rate(&self, key: u64) -> Option<f32> {
        self.find(key).map(|(_, v)| v)
    }

    /// The place of a token in the lexicon and its log-odds, if known.
    fn find(&self, key: u64) -> Option<(u32, f32)> {
        let buckets = self.buckets.get_or_init(|| {
            (0..=1u64 << BUCKET_BITS)
                .map(|b| self.keys.partition_point(|&k| k >> (64 - BUCKET_BITS) < b) as u32)
                .collect()
        });
        let b = (key >> (64 - BUCKET_BITS)) as usize;
        let (start, end) = (buckets[b] as usize, buckets[b + 1] as usize);
        let keys = self.keys.get(start..end)?;
        keys.iter()
            .position(|&k| k == key)
            .map(|j| ((start + j) as u32, self.log_odds[start + j]))
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds no token.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether the columns agree in length, the keys are sorted and the values finite (a
    /// check of a loaded model file).
    pub fn is_consistent(&self) -> bool {
        self.keys.len() == self.log_odds.len()
            && self.keys.windows(2).all(|w| w[0] < w[1])
            && self.log_odds.iter().all(|v| v.is_finite())
    }
}

/// A set of token keys: a short list while small (most blocks know a few dozen tokens), a
/// hash set beyond, so that a page with thousands of tokens per element stays linear.
#[derive(Default)]
struct KeySet {
    few: Vec<u64>,
    many: rustc_hash::FxHashSet<u64>,
}

impl KeySet {
    const FEW: usize = 32;

    /// Add a key; whether it was new.
    fn insert(&mut self, key: u64) -> bool {
        if !self.many.is_empty() {
            return self.many.insert(key);
        }
        if self.few.contains(&key) {
            return false;
        }
        if self.few.len() < Self::FEW {
            self.few.push(key);
        } else {
            self.many.extend(self.few.drain(..));
            self.many.insert(key);
        }
        true
    }

    fn clear(&mut self) {
        self.few.clear();
        self.many.clear();
    }
}

/// The `class_lex_*` features of one row from the log-odds and levels of its known tokens.
fn fill_row(row: &mut [f32], known: impl Iterator<Item = (f32, u8)>) {
    let (mut sum, mut min, mut max, mut count) = (0f32, f32::INFINITY, f32::NEG_INFINITY, 0u32);
    let (mut near_level, mut near_sum, mut near_count) = (u8::MAX, 0f32, 0u32);
    for (v, level) in known {
        sum += v;
        min = min.min(v);
        max = max.max(v);
        count += 1;
        if level < near_level {
            (near_level, near_sum, near_count) = (level, 0.0, 0);
        }
        if level == near_level {
            near_sum += v;
            near_count += 1;
        }
    }
    let values = if count == 0 {
        [0.0; 6]
    } else {
        [
            sum / count as f32,
            min,
            max,
            near_sum / near_count as f32,
            f32::from(near_level),
            count as f32,
        ]
    };
    for (f, v) in CLASS_COLUMNS.iter().zip(values) {
        row[*f as usize] = v;
    }
}

/// The features filled from a [`ClassLexicon`], in the order of [`fill_row`]'s values.
const CLASS_COLUMNS: [F; 6] = [
    F::ClassLexMean,
    F::ClassLexMin,
    F::ClassLexMax,
    F::ClassLexNearest,
    F::ClassLexLevel,
    F::ClassLexKnown,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> u64 {
        crate::features::fnv1a(FNV_START, s.as_bytes())
    }

    fn keys(value: &str) -> Vec<u64> {
        let mut v = Vec::new();
        value_keys(value, &mut v);
        v
    }

    #[test]
    fn values_give_letter_runs_and_the_whole_value() {
        assert_eq!(
            keys("post-body-2 ab_cd"),
            vec![key("post"), key("body"), key("postbody"), key("abcd")]
        );
        assert_eq!(keys("Nav"), vec![key("nav")], "a one-run token's key once");
        assert_eq!(keys("ab"), vec![key("ab")]);
        // Digits and punctuation alone give nothing; non-ASCII letters separate runs.
        assert!(keys("123 -- _").is_empty());
        assert_eq!(
            keys("menüitem"),
            vec![key("men"), key("item"), key("menitem")]
        );
    }

    /// Block `i`'s keys and levels.
    fn block_of(t: &ClassTokens, i: usize) -> (Vec<u64>, Vec<u8>) {
        let mut out = Vec::new();
        t.block(i, &mut KeySet::default(), &mut out);
        out.into_iter().unzip()
    }

    #[test]
    fn a_block_keeps_each_token_once_at_its_nearest_level() {
        let mut t = ClassTokens::default();
        t.push_values(&["entry", "", "post entry", "x"]);
        t.push_values::<&str>(&[]);
        assert_eq!(t.len(), 2);
        let (k, l) = block_of(&t, 0);
        assert_eq!(k, [key("entry"), key("post"), key("x")]);
        assert_eq!(l, [0, 2, 3]);
        assert_eq!(block_of(&t, 1).0.len(), 0);
        // Two-letter values give only their whole value; digits are left out.
        let levels: Vec<String> = (0..20u8)
            .map(|i| format!("x{}9", (b'a' + i) as char))
            .collect();
        t.push_values(&levels);
        assert_eq!(
            block_of(&t, 2).0.len(),
            LEVELS,
            "only the nearest LEVELS elements count"
        );
        assert_eq!(block_of(&t, 2).0[0], key("xa"));
        let mut all = ClassTokens::default();
        all.extend(&t);
        all.extend(&t);
        assert_eq!(all.len(), 6);
        for i in 0..6 {
            assert_eq!(block_of(&all, i), block_of(&t, i % 3));
        }
    }

    #[test]
    fn page_tokens_come_from_the_ancestors() {
        let a = crate::analyze(
            b"<body><nav class='menu'><a href=/>Home</a></nav>\
              <div id='post-1' class='entry'><p class='lead'>Text here.</p></div></body>",
            Default::default(),
        )
        .unwrap();
        let tokens = ClassTokens::of_page(&a.page);
        assert_eq!(tokens.len(), 2);
        let (k, l) = block_of(&tokens, 1);
        assert_eq!(k, [key("lead"), key("post"), key("entry")]);
        assert_eq!(l, [0, 1, 1]);
        assert_eq!(class_values(&a.page, &a.page.blocks[0])[0], "menu");
    }

    #[test]
    fn class_values_stay_within_their_budget_nearest_first() {
        // A site builder's `<body>` of long classes, a wrapper of more, and a paragraph's own.
        let body: Vec<String> = (0..400).map(|i| format!("tweak-option-{i}")).collect();
        let wrapper: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
        let page = format!(
            "<body class='{}'><div class='{}'><p class='lead'>Text here.</p></div></body>",
            body.join(" "),
            wrapper.join(" ")
        );
        let a = crate::analyze(page.as_bytes(), Default::default()).unwrap();
        let values = class_values(&a.page, &a.page.blocks[0]);
        assert_eq!(values[..2], ["lead", wrapper.join(" ").as_str()]);
        // The body's value is cut after its last whole token within the budget, and the
        // levels above it are left out.
        let used: usize = values[..2].iter().map(String::len).sum();
        let room = VALUES_BUDGET - used;
        let cut = &values[2];
        assert!(cut.len() <= room && cut.len() + " tweak-option-999".len() > room);
        assert!(body.join(" ").starts_with(&format!("{cut} ")));
        assert_eq!(values.len(), 3);
    }

    /// Rows of `sites` sites, one block each, under the token "post" (content on the first
    /// `content` sites) and one block under "menu" (never content).
    fn corpus(sites: u32, content: u32) -> (ClassTokens, Vec<u8>, Vec<f32>, Vec<u32>) {
        let mut t = ClassTokens::default();
        let (mut labels, mut weights, mut groups) = (vec![], vec![], vec![]);
        for s in 0..sites {
            t.push_values(&["post"]);
            labels.push(u8::from(s < content));
            t.push_values(&["menu"]);
            labels.push(0);
            weights.extend([1.0, 1.0]);
            groups.extend([s, s]);
        }
        (t, labels, weights, groups)
    }

    #[test]
    fn rates_are_learned_per_site_and_training_rows_leave_their_site_out() {
        let (t, labels, weights, groups) = corpus(4, 3);
        let mut rows = vec![0f32; t.len() * N_FEATURES];
        let lex = ClassLexicon::learn(&t, &labels, &weights, &groups, &mut rows);
        assert_eq!(lex.len(), 2);
        assert!(lex.is_consistent());
        let col = |r: usize, f: F| rows[r * N_FEATURES + f as usize];
        // Site 0's "post" block sees the 3 other sites, 2 of them content.
        assert_eq!(col(0, F::ClassLexMean), log_odds(3.0, 2.0));
        // Site 3's (boilerplate there) sees 3 content sites.
        assert_eq!(col(6, F::ClassLexMean), log_odds(3.0, 3.0));
        assert_eq!(col(1, F::ClassLexMax), log_odds(3.0, 0.0));
        assert_eq!(col(1, F::ClassLexKnown), 1.0);
        // An unseen page reads the rates of all 4 sites.
        let mut m = FeatureMatrix {
            data: vec![0.0; 2 * N_FEATURES],
        };
        let mut page = ClassTokens::default();
        page.push_values(&["other", "menu post"]);
        page.push_values(&["unknown"]);
        lex.fill(&mut m, &page);
        let (post, menu) = (log_odds(4.0, 3.0), log_odds(4.0, 0.0));
        assert_eq!(m.get(0, F::ClassLexMean), (menu + post) / 2.0);
        assert_eq!(m.get(0, F::ClassLexMin), menu);
        assert_eq!(m.get(0, F::ClassLexMax), post);
        assert_eq!(m.get(0, F::ClassLexNearest), (menu + post) / 2.0);
        assert_eq!(m.get(0, F::ClassLexLevel), 1.0);
        assert_eq!(m.get(0, F::ClassLexKnown), 2.0);
        assert!(CLASS_COLUMNS.iter().all(|&f| m.get(1, f) == 0.0));
    }

    /// A lexicon of the given tokens and log-odds.
    fn lexicon(pairs: &[(&str, f32)]) -> ClassLexicon {
        let mut known: Vec<(u64, f32)> = pairs.iter().map(|&(t, v)| (key(t), v)).collect();
        known.sort_unstable_by_key(|e| e.0);
        ClassLexicon {
            keys: known.iter().map(|e| e.0).collect(),
            log_odds: known.iter().map(|e| e.1).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_page_is_filled_from_the_known_tokens_of_each_level() {
        // Shared lists, a token repeated in one list and across levels, unknown tokens.
        let a = crate::analyze(
            b"<body><div class='post main'><div class='post-body x'>\
              <p class='post post'>One.</p><p class='menu'>Two.</p></div>\
              <ul class='menu'><li class='menu item'>Three</li><li>Four</li></ul></div></body>",
            Default::default(),
        )
        .unwrap();
        let lex = lexicon(&[
            ("post", 0.5),
            ("menu", -1.0),
            ("body", 2.0),
            ("postbody", -0.25),
        ]);
        let mut m = a.features.clone();
        lex.fill(&mut m, &ClassTokens::of_page(&a.page));
        let row = |i: usize| -> Vec<f32> { CLASS_COLUMNS.iter().map(|&f| m.get(i, f)).collect() };
        assert_eq!(m.rows(), 4);
        // mean, min, max, nearest, its level, known. "post" counts once (levels 0 and 2),
        // "body" and "postbody" at level 1; "main", "x" and "item" are unknown.
        assert_eq!(row(0), [0.75, -0.25, 2.0, 0.5, 0.0, 3.0]);
        assert_eq!(row(1), [0.3125, -1.0, 2.0, -1.0, 0.0, 4.0]);
        assert_eq!(row(2), [-0.25, -1.0, 0.5, -1.0, 0.0, 2.0]);
        // No class on the element: the nearest known list is one level up.
        assert_eq!(row(3), [-0.25, -1.0, 0.5, -1.0, 1.0, 2.0]);
    }

    #[test]
    fn tokens_of_few_sites_are_not_learned() {
        let (t, labels, weights, groups) = corpus(MIN_SITES - 1, 1);
        let mut rows = vec![0f32; t.len() * N_FEATURES];
        let lex = ClassLexicon::learn(&t, &labels, &weights, &groups, &mut rows);
        assert!(lex.is_empty());
        assert!(rows.iter().all(|&v| v == 0.0));
        // At exactly MIN_SITES sites the token is learned, but a training row, seeing the
        // other sites only, does not know it.
        let (t, labels, weights, groups) = corpus(MIN_SITES, 1);
        let mut rows = vec![0f32; t.len() * N_FEATURES];
        let lex = ClassLexicon::learn(&t, &labels, &weights, &groups, &mut rows);
        assert_eq!(lex.len(), 2);
        assert!(rows.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn key_sets_grow_from_a_list_to_a_hash_set() {
        let mut set = KeySet::default();
        for k in 0..100u64 {
            assert!(set.insert(k), "{k} is new");
            assert!(!set.insert(k / 2), "{} was added before", k / 2);
        }
        set.clear();
        assert!(set.insert(7));
        assert!(!set.insert(7));
    }

    #[test]
    fn long_class_lists_are_read_whole() {
        // 2,000 distinct letter-only tokens on one element above 50 blocks.
        let names: Vec<String> = (0..2000u32)
            .map(|i| {
                let l = |d: u32| char::from(b'a' + (d % 26) as u8);
                format!("x{}{}{}", l(i / 676), l(i / 26), l(i))
            })
            .collect();
        let html = format!(
            "<body><div class='{}'>{}</div></body>",
            names.join(" "),
            "<p>Text.</p>".repeat(50)
        );
        let a = crate::analyze(html.as_bytes(), Default::default()).unwrap();
        // Log-odds 1 for the first 1,000 names, −1 for the rest.
        let pairs: Vec<(&str, f32)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), if i < 1000 { 1.0 } else { -1.0 }))
            .collect();
        let mut m = a.features.clone();
        lexicon(&pairs).fill(&mut m, &ClassTokens::of_page(&a.page));
        assert_eq!(m.rows(), 50);
        for i in 0..50 {
            let row: Vec<f32> = CLASS_COLUMNS.iter().map(|&f| m.get(i, f)).collect();
            assert_eq!(row, [0.0, -1.0, 1.0, 0.0, 1.0, 2000.0]);
        }
    }

    #[test]
    fn lookups_find_every_token_and_only_them() {
        // More keys than buckets, so buckets hold several; the extremes of the key range too.
        let mut keys: Vec<u64> = (0..40_000u32).map(|i| key(&i.to_string())).collect();
        keys.extend([0, u64::MAX]);
        keys.sort_unstable();
        keys.dedup();
        let lex = ClassLexicon {
            log_odds: (0..keys.len()).map(|i| i as f32).collect(),
            keys: keys.clone(),
            ..Default::default()
        };
        assert!(keys
            .iter()
            .enumerate()
            .all(|(i, &k)| lex.rate(k) == Some(i as f32)));
        assert!((40_000..50_000u32).all(|i| lex.rate(key(&i.to_string())).is_none()));
        assert_eq!(ClassLexicon::default().rate(key("post")), None);
    }

    #[test]
    fn inconsistent_lexicons_are_detected() {
        let bad = ClassLexicon {
            keys: vec![2, 1],
            log_odds: vec![0.0, 0.0],
            ..Default::default()
        };
        assert!(!bad.is_consistent());
        let bad = ClassLexicon {
            keys: vec![1],
            log_odds: vec![f32::NAN],
            ..Default::default()
        };
        assert!(!bad.is_consistent());
    }
}
