//! Second-stage features: what the first model's scores say about a block's surroundings.
//!
//! A block scored alone misses what the page says as a whole: a short paragraph between two
//! confident content blocks is content, a list item whose siblings all look like menu entries
//! is not. The second model of a stacked classifier sees every feature of [`crate::features`]
//! plus the columns below, computed from the first model's scores of the whole page.
//!
//! Two more columns come from the training corpus: on how many training sites a block's text
//! also appears, and on how many of those it was content ([`Lexicon`]): "Add to cart",
//! "Share this article" or a cookie notice recur across sites as boilerplate.
//!
//! Containers are recognised from the features themselves (blocks with equal values of the
//! `parent_*`, `grandparent_*`, `ancestor3_*` or `group_*` features), so the same columns can
//! be computed for hand-labelled block records, which carry features but no DOM.

use crate::features::{schema, FeatureDef, F, N_FEATURES};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

schema! {
    /// Column index of each second-stage column, after the features.
    enum C;
    /// The second-stage columns, appended after the feature schema.
    table CONTEXT_SCHEMA;
    Score = "s1", "0–1", "The first model's score of the block.";
    Prev = "s1_prev", "0–1", "Score of the previous block (0 at the start).";
    Next = "s1_next", "0–1", "Score of the next block (0 at the end).";
    Prev2 = "s1_prev2", "0–1", "Score of the block two before.";
    Next2 = "s1_next2", "0–1", "Score of the block two after.";
    Window3 = "s1_window3", "0–1", "Mean score of the blocks from 3 before to 3 after, weighted by words + 1.";
    Window10 = "s1_window10", "0–1", "The same from 10 before to 10 after.";
    Group = "s1_group", "0–1", "Mean score (weighted by words + 1) of the blocks of the same path group (equal `group_*` features).";
    Parent = "s1_parent", "0–1", "… of the blocks under the same parent (equal `parent_word_share` and `parent_link_density`).";
    Grandparent = "s1_grandparent", "0–1", "… under the same element two levels up.";
    Ancestor3 = "s1_ancestor3", "0–1", "… under the same element three levels up.";
    PageMax = "s1_page_max", "0–1", "Highest score in the page.";
    PageMean = "s1_page_mean", "0–1", "Mean score of the page, weighted by words + 1.";
    PageContent = "s1_page_content", "0–1", "Share of the page's words in blocks scored 0.5 or more.";
    Rank = "s1_rank", "0–1", "Share of the page's blocks scored higher than this one.";
    Before = "s1_before", "0–1", "Words of blocks scored 0.5 or more before this block / all such words (0 when there are none).";
    Distance = "s1_distance", "0–1", "Blocks to the nearest other block scored 0.5 or more, / blocks (1 when there is none).";
    Run = "s1_run_share", "0–1", "Share of the page's words in the run of consecutive blocks scored 0.5 or more that holds this block (0 when it scores less).";
    LexSites = "corpus_sites", "0…", "Training sites (other than the block's own, in training) on which the same text occurs (lower-cased letters and digits, digits as 0); 0 below 2.";
    LexContent = "corpus_content_rate", "−1–1", "Share of those sites on which the text was content; −1 when corpus_sites is 0.";
}

/// Number of second-stage columns.
pub const N_CONTEXT: usize = CONTEXT_SCHEMA.len();
/// Columns of a second-stage row: the features, then the context columns.
pub const N_STACKED: usize = N_FEATURES + N_CONTEXT;

/// Key of a block text in the [`Lexicon`]: FNV-1a of its lower-cased letters and digits, with
/// every digit as 0, so that "Page 2 of 9" and "Page 3 of 7" meet.
pub fn text_key(text: &str) -> u64 {
    let mut h = crate::features::FNV_START;
    let mut eat = |b: u8| h = crate::features::fnv1a(h, &[b]);
    for c in text.chars() {
        if c.is_ascii() {
            // The common case, byte for byte what the general branch below does.
            let b = c as u8;
            if b.is_ascii_digit() {
                eat(b'0');
            } else if b.is_ascii_alphabetic() {
                eat(b.to_ascii_lowercase());
            } else if b.is_ascii_whitespace() || b == 0x0b {
                eat(b' ');
            }
        } else if c.is_alphanumeric() {
            for l in c.to_lowercase() {
                let mut buf = [0u8; 4];
                l.encode_utf8(&mut buf).bytes().for_each(&mut eat);
            }
        } else if c.is_whitespace() {
            eat(b' ');
        }
    }
    h
}

/// Fewest training sites on which a text must occur to be in the lexicon.
const MIN_SITES: u32 = 2;

/// Block texts that occur on several training sites: per text key, on how many sites, and on
/// how many of them as content. Sorted by key, so the model file is the same on every run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Lexicon {
    keys: Vec<u64>,
    sites: Vec<u32>,
    content_sites: Vec<u32>,
}

impl Lexicon {
    /// Build from every training row's text key, 0/1 label and site (group) id. Also returns,
    /// per row, the counts without the row's own site, so that training rows look like rows
    /// of an unseen site.
    pub fn build(keys: &[u64], labels: &[u8], groups: &[u32]) -> (Lexicon, Vec<(u32, u32)>) {
        let n = keys.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by_key(|&i| (keys[i], groups[i]));
        let mut lex = Lexicon::default();
        let mut own = vec![(0u32, 0u32); n];
        let mut i = 0;
        while i < n {
            let key = keys[order[i]];
            let mut j = i;
            // (site, content on that site) for this key.
            let mut per_site: Vec<(u32, bool)> = Vec::new();
            while j < n && keys[order[j]] == key {
                let (g, c) = (groups[order[j]], labels[order[j]] != 0);
                match per_site.last_mut() {
                    Some((last, content)) if *last == g => *content |= c,
                    _ => per_site.push((g, c)),
                }
                j += 1;
            }
            let sites = per_site.len() as u32;
            let content = per_site.iter().filter(|s| s.1).count() as u32;
            if sites >= MIN_SITES {
                lex.keys.push(key);
                lex.sites.push(sites);
                lex.content_sites.push(content);
            }
            for &r in &order[i..j] {
                let site = per_site
                    .binary_search_by_key(&groups[r], |s| s.0)
                    .map_or((false, false), |k| (true, per_site[k].1));
                let other = sites - u32::from(site.0);
                if other >= MIN_SITES {
                    own[r] = (other, content - u32::from(site.1));
                }
            }
            i = j;
        }
        (lex, own)
    }

    /// (sites, content sites) of a text key; (0, 0) when it is not in the lexicon.
    pub fn lookup(&self, key: u64) -> (u32, u32) {
        self.keys
            .binary_search(&key)
            .map_or((0, 0), |i| (self.sites[i], self.content_sites[i]))
    }

    /// Number of texts.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds no text.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether the three columns agree in length and the keys are sorted (a check of a
    /// loaded model file).
    pub fn is_consistent(&self) -> bool {
        self.keys.len() == self.sites.len()
            && self.keys.len() == self.content_sites.len()
            && self.keys.windows(2).all(|w| w[0] < w[1])
            && self
                .sites
                .iter()
                .zip(&self.content_sites)
                .all(|(s, c)| c <= s)
    }
}

/// A container key built from the bits of some feature values.
fn key(features: &[f32], i: usize, fs: &[F]) -> u128 {
    fs.iter().fold(0u128, |k, &f| {
        (k << 32) ^ u128::from(features[i * N_FEATURES + f as usize].to_bits())
    })
}

/// Mean of `scores` weighted by `weights` over the blocks sharing a key, per block.
fn keyed_means(keys: &[u128], scores: &[f32], weights: &[f32]) -> Vec<f32> {
    let mut acc: FxHashMap<u128, (f32, f32)> = FxHashMap::default();
    for ((k, s), w) in keys.iter().zip(scores).zip(weights) {
        let e = acc.entry(*k).or_insert((0.0, 0.0));
        e.0 += s * w;
        e.1 += w;
    }
    keys.iter()
        .map(|k| {
            let (sw, w) = acc[k];
            sw / w
        })
        .collect()
}

/// Second-stage rows of one page (row-major, [`N_STACKED`] values per block) from its
/// features, the first model's `scores` and each block's corpus counts (sites, content sites;
/// see [`Lexicon`]).
///
/// `features` is the page's feature rows ([`crate::features::FeatureMatrix::data`]), borrowed so that training
/// can pass each page's rows without copying them.
pub fn stacked_rows(features: &[f32], scores: &[f32], corpus: &[(u32, u32)]) -> Vec<f32> {
    let n = (features.len() / N_FEATURES)
        .min(scores.len())
        .min(corpus.len());
    let mut out = Vec::with_capacity(n * N_STACKED);
    if n == 0 {
        return out;
    }
    let words: Vec<f32> = (0..n)
        .map(|i| features[i * N_FEATURES + F::Words as usize])
        .collect();
    let weights: Vec<f32> = words.iter().map(|w| w + 1.0).collect();
    let page_words: f32 = words.iter().sum();
    let content = |i: usize| scores[i] >= 0.5;

    // Prefix sums of weighted scores and weights for the windows.
    let mut pre_sw = vec![0.0f64; n + 1];
    let mut pre_w = vec![0.0f64; n + 1];
    for i in 0..n {
        pre_sw[i + 1] = pre_sw[i] + f64::from(scores[i] * weights[i]);
        pre_w[i + 1] = pre_w[i] + f64::from(weights[i]);
    }
    let window = |i: usize, r: usize| {
        let (a, b) = (i.saturating_sub(r), (i + r + 1).min(n));
        ((pre_sw[b] - pre_sw[a]) / (pre_w[b] - pre_w[a])) as f32
    };
    let keyed = |fs: &[F]| {
        let keys: Vec<u128> = (0..n).map(|i| key(features, i, fs)).collect();
        keyed_means(&keys, scores, &weights)
    };
    let group = keyed(&[
        F::GroupBlocks,
        F::GroupWordShare,
        F::GroupLinkDensity,
        F::GroupSpan,
    ]);
    let parent = keyed(&[F::ParentWordShare, F::ParentLinkDensity]);
    let grandparent = keyed(&[F::GrandparentWordShare, F::GrandparentLinkDensity]);
    let ancestor3 = keyed(&[F::Ancestor3WordShare, F::Ancestor3LinkDensity]);

    let page_max = scores[..n].iter().copied().fold(0.0f32, f32::max);
    let page_mean = (pre_sw[n] / pre_w[n]) as f32;
    let content_words: f32 = (0..n).filter(|&i| content(i)).map(|i| words[i]).sum();
    let page_content = if page_words > 0.0 {
        content_words / page_words
    } else {
        0.0
    };
    let mut sorted: Vec<f32> = scores[..n].to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));

    // Distance to the nearest other content block, looking back and ahead.
    let mut dist = vec![usize::MAX; n];
    let mut last: Option<usize> = None;
    for (i, d) in dist.iter_mut().enumerate() {
        if let Some(l) = last {
            *d = i - l;
        }
        if content(i) {
            last = Some(i);
        }
    }
    let mut next: Option<usize> = None;
    for i in (0..n).rev() {
        if let Some(x) = next {
            dist[i] = dist[i].min(x - i);
        }
        if content(i) {
            next = Some(i);
        }
    }
    // Words of the content run holding each block.
    let mut run = vec![0.0f32; n];
    let mut i = 0;
    while i < n {
        if !content(i) {
            i += 1;
            continue;
        }
        let start = i;
        let mut w = 0.0;
        while i < n && content(i) {
            w += words[i];
            i += 1;
        }
        run[start..i].iter_mut().for_each(|r| *r = w);
    }

    let at = |i: isize| {
        if i >= 0 && (i as usize) < n {
            scores[i as usize]
        } else {
            0.0
        }
    };
    let mut before = 0.0f32;
    let share = |x: f32, total: f32| if total > 0.0 { x / total } else { 0.0 };
    for i in 0..n {
        let mut c = [0.0f32; N_CONTEXT];
        let s = scores[i];
        let ii = i as isize;
        c[C::Score as usize] = s;
        c[C::Prev as usize] = at(ii - 1);
        c[C::Next as usize] = at(ii + 1);
        c[C::Prev2 as usize] = at(ii - 2);
        c[C::Next2 as usize] = at(ii + 2);
        c[C::Window3 as usize] = window(i, 3);
        c[C::Window10 as usize] = window(i, 10);
        c[C::Group as usize] = group[i];
        c[C::Parent as usize] = parent[i];
        c[C::Grandparent as usize] = grandparent[i];
        c[C::Ancestor3 as usize] = ancestor3[i];
        c[C::PageMax as usize] = page_max;
        c[C::PageMean as usize] = page_mean;
        c[C::PageContent as usize] = page_content;
        let higher = n - sorted.partition_point(|&x| x <= s);
        c[C::Rank as usize] = higher as f32 / n as f32;
        c[C::Before as usize] = share(before, content_words);
        c[C::Distance as usize] = if dist[i] == usize::MAX {
            1.0
        } else {
            dist[i] as f32 / n as f32
        };
        c[C::Run as usize] = share(run[i], page_words);
        let (sites, content_sites) = corpus[i];
        c[C::LexSites as usize] = sites as f32;
        c[C::LexContent as usize] = if sites == 0 {
            -1.0
        } else {
            content_sites as f32 / sites as f32
        };
        if content(i) {
            before += words[i];
        }
        out.extend_from_slice(&features[i * N_FEATURES..(i + 1) * N_FEATURES]);
        out.extend_from_slice(&c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::FeatureMatrix;

    fn page(words: &[f32]) -> FeatureMatrix {
        let mut data = vec![0.0; words.len() * N_FEATURES];
        for (i, w) in words.iter().enumerate() {
            data[i * N_FEATURES + F::Words as usize] = *w;
        }
        FeatureMatrix { data }
    }

    fn col(rows: &[f32], c: C) -> Vec<f32> {
        rows.chunks(N_STACKED)
            .map(|r| r[N_FEATURES + c as usize])
            .collect()
    }

    #[test]
    fn neighbours_runs_and_distances() {
        let m = page(&[1.0, 9.0, 4.0, 1.0, 3.0]);
        let s = [0.1, 0.9, 0.6, 0.2, 0.8];
        let corpus = [(0, 0), (4, 1), (0, 0), (0, 0), (2, 2)];
        let rows = stacked_rows(&m.data, &s, &corpus);
        assert_eq!(col(&rows, C::LexSites), [0.0, 4.0, 0.0, 0.0, 2.0]);
        assert_eq!(col(&rows, C::LexContent), [-1.0, 0.25, -1.0, -1.0, 1.0]);
        assert_eq!(rows.len(), 5 * N_STACKED);
        assert_eq!(&rows[N_STACKED..N_STACKED + N_FEATURES], m.row(1));
        assert_eq!(col(&rows, C::Prev), [0.0, 0.1, 0.9, 0.6, 0.2]);
        assert_eq!(col(&rows, C::Next2), [0.6, 0.2, 0.8, 0.0, 0.0]);
        assert_eq!(col(&rows, C::PageMax), [0.9; 5]);
        // Content words 9 + 4 + 3 = 16 of 18.
        assert_eq!(
            col(&rows, C::Before),
            [0.0, 0.0, 9.0 / 16.0, 13.0 / 16.0, 13.0 / 16.0]
        );
        assert_eq!(
            col(&rows, C::Run),
            [0.0, 13.0 / 18.0, 13.0 / 18.0, 0.0, 3.0 / 18.0]
        );
        assert_eq!(col(&rows, C::Distance), [0.2, 0.2, 0.2, 0.2, 0.4]);
        assert_eq!(col(&rows, C::Rank), [0.8, 0.0, 0.4, 0.6, 0.2]);
        // All blocks share the zero parent features: one container, the page's weighted mean.
        let mean = (0.1 * 2.0 + 0.9 * 10.0 + 0.6 * 5.0 + 0.2 * 2.0 + 0.8 * 4.0) / 23.0;
        for v in col(&rows, C::Parent) {
            assert!((v - mean).abs() < 1e-6);
        }
    }

    #[test]
    fn containers_come_from_equal_features() {
        let mut m = page(&[1.0, 1.0, 1.0]);
        m.data[2 * N_FEATURES + F::ParentWordShare as usize] = 0.5;
        let rows = stacked_rows(&m.data, &[1.0, 0.0, 0.25], &[(0, 0); 3]);
        assert_eq!(col(&rows, C::Parent), [0.5, 0.5, 0.25]);
        assert_eq!(col(&rows, C::Distance), [1.0, 1.0 / 3.0, 2.0 / 3.0]);
    }

    #[test]
    fn empty_page() {
        assert!(stacked_rows(&[], &[], &[]).is_empty());
    }

    #[test]
    fn text_keys_ignore_case_punctuation_and_digits() {
        assert_eq!(text_key("Page 2 of 9"), text_key("page 3 of 7!"));
        assert_eq!(text_key("Add to cart"), text_key("ADD TO CART"));
        assert_ne!(text_key("Add to cart"), text_key("Add to basket"));
    }

    #[test]
    fn text_keys_hash_the_normalised_text() {
        // The key is FNV-1a of this normalisation, whatever shortcut computes it.
        fn reference(text: &str) -> u64 {
            let norm: String = text
                .chars()
                .filter_map(|c| {
                    if c.is_ascii_digit() {
                        Some("0".to_string())
                    } else if c.is_alphanumeric() {
                        Some(c.to_lowercase().collect())
                    } else if c.is_whitespace() {
                        Some(" ".to_string())
                    } else {
                        None
                    }
                })
                .collect();
            norm.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            })
        }
        for t in [
            "",
            "Add to Cart",
            "Tab\there\x0bvt\u{a0}nbsp",
            "Straße ÉTÉ İstanbul 12,99 €",
            "日本語のテキスト 2024年",
        ] {
            assert_eq!(text_key(t), reference(t), "{t:?}");
        }
    }

    #[test]
    fn lexicon_counts_sites_and_leaves_the_own_site_out() {
        let (a, b, c) = (
            text_key("Share this"),
            text_key("Add to cart"),
            text_key("unique"),
        );
        // Rows: "Share this" on sites 0, 1, 2 (content on site 2, twice on site 0);
        // "Add to cart" on sites 0 and 1; "unique" on site 3.
        let keys = [a, a, b, a, b, a, c];
        let labels = [0, 0, 0, 0, 0, 1, 1];
        let groups = [0, 0, 0, 1, 1, 2, 3];
        let (lex, own) = Lexicon::build(&keys, &labels, &groups);
        assert_eq!(lex.len(), 2);
        assert!(lex.is_consistent());
        assert_eq!(lex.lookup(a), (3, 1));
        assert_eq!(lex.lookup(b), (2, 0));
        assert_eq!(lex.lookup(c), (0, 0));
        // Without its own site, "Share this" on site 0 is on 2 others, one as content;
        // "Add to cart" is then on 1 other site only: below the minimum.
        assert_eq!(
            own,
            [(2, 1), (2, 1), (0, 0), (2, 1), (0, 0), (2, 0), (0, 0)]
        );
    }
}
