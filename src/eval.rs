//! Scoring: WCXB's word-level precision, recall and F1 per page (lower-case `\w+` tokens, bag
//! of words, mean over pages), per page type, and block-level counts against derived labels.

use crate::align::word_prf;
use std::collections::BTreeMap;

/// Word scores of one page.
#[derive(Debug, Clone, PartialEq)]
pub struct PageScore {
    /// Page id.
    pub id: String,
    /// Page type, when known.
    pub page_type: Option<String>,
    /// Word precision.
    pub precision: f64,
    /// Word recall.
    pub recall: f64,
    /// Word F1.
    pub f1: f64,
}

impl PageScore {
    /// Score an extracted text against the gold text.
    pub fn new(id: &str, page_type: Option<&str>, extracted: &str, gold: &str) -> PageScore {
        let (precision, recall, f1) = word_prf(extracted, gold);
        PageScore {
            id: id.to_string(),
            page_type: page_type.map(str::to_string),
            precision,
            recall,
            f1,
        }
    }
}

/// Block-level confusion counts (content is the positive class).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confusion {
    /// Content predicted content.
    pub tp: usize,
    /// Boilerplate predicted content.
    pub fp: usize,
    /// Content predicted boilerplate.
    pub fn_: usize,
    /// Boilerplate predicted boilerplate.
    pub tn: usize,
}

impl Confusion {
    /// Count predictions against labels.
    pub fn add(&mut self, predicted: &[bool], gold: &[bool]) {
        for (&p, &g) in predicted.iter().zip(gold) {
            match (p, g) {
                (true, true) => self.tp += 1,
                (true, false) => self.fp += 1,
                (false, true) => self.fn_ += 1,
                (false, false) => self.tn += 1,
            }
        }
    }

    /// Add another set of counts.
    pub fn merge(&mut self, o: &Confusion) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
        self.tn += o.tn;
    }

    /// (precision, recall, F1) of the content class.
    pub fn prf(&self) -> (f64, f64, f64) {
        let p = ratio(self.tp, self.tp + self.fp);
        let r = ratio(self.tp, self.tp + self.fn_);
        let f = if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        };
        (p, r, f)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Mean precision, recall and F1 of some pages, and their number.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Means {
    /// Number of pages.
    pub n: usize,
    /// Mean precision.
    pub precision: f64,
    /// Mean recall.
    pub recall: f64,
    /// Mean F1.
    pub f1: f64,
}

impl Means {
    /// Means over pages.
    pub fn of<'a>(pages: impl IntoIterator<Item = &'a PageScore>) -> Means {
        let mut m = Means::default();
        for p in pages {
            m.n += 1;
            m.precision += p.precision;
            m.recall += p.recall;
            m.f1 += p.f1;
        }
        if m.n > 0 {
            let n = m.n as f64;
            m.precision /= n;
            m.recall /= n;
            m.f1 /= n;
        }
        m
    }
}

/// The scores of an evaluation: pages and blocks.
#[derive(Debug, Clone, Default)]
pub struct Evaluation {
    /// One score per page.
    pub pages: Vec<PageScore>,
    /// Block-level counts.
    pub blocks: Confusion,
}

/// The row of [`Evaluation::by_type`] for pages without a type.
pub const NO_TYPE: &str = "(no type)";

impl Evaluation {
    /// Means over all pages.
    pub fn overall(&self) -> Means {
        Means::of(&self.pages)
    }

    /// Means per page type, in WCXB's order for its types and alphabetical for others, then
    /// the pages without a type ([`NO_TYPE`]) when others have one.
    pub fn by_type(&self) -> Vec<(String, Means)> {
        let mut groups: BTreeMap<String, Vec<&PageScore>> = BTreeMap::new();
        // Pages without a type have a row of their own when others have one, so that the
        // rows add up to all pages.
        let typed = self.pages.iter().any(|p| p.page_type.is_some());
        for p in &self.pages {
            match &p.page_type {
                Some(t) => groups.entry(t.clone()).or_default().push(p),
                None if typed => groups.entry(NO_TYPE.to_string()).or_default().push(p),
                None => {}
            }
        }
        const ORDER: [&str; 7] = [
            "article",
            "forum",
            "product",
            "collection",
            "listing",
            "documentation",
            "service",
        ];
        let rank = |t: &str| match t {
            NO_TYPE => ORDER.len() + 1,
            t => ORDER.iter().position(|o| *o == t).unwrap_or(ORDER.len()),
        };
        let mut out: Vec<(String, Means)> = groups
            .into_iter()
            .map(|(t, ps)| (t, Means::of(ps)))
            .collect();
        out.sort_by(|a, b| rank(&a.0).cmp(&rank(&b.0)).then(a.0.cmp(&b.0)));
        out
    }

    /// A Markdown table of the page-level scores, overall and per type, and the block scores.
    pub fn markdown(&self) -> String {
        let mut s = self.pages_markdown();
        let (p, r, f) = self.blocks.prf();
        s.push_str(&format!(
            "\nBlocks against derived labels: precision {p:.4}, recall {r:.4}, F1 {f:.4} \
             (TP {}, FP {}, FN {}, TN {}).\n",
            self.blocks.tp, self.blocks.fp, self.blocks.fn_, self.blocks.tn
        ));
        s
    }

    /// A Markdown table of the page-level scores, overall and per type.
    pub fn pages_markdown(&self) -> String {
        let mut s =
            String::from("| pages | n | word P | word R | word F1 |\n|---|---:|---:|---:|---:|\n");
        let row = |name: &str, m: Means| {
            format!(
                "| {name} | {} | {:.4} | {:.4} | {:.4} |\n",
                m.n, m.precision, m.recall, m.f1
            )
        };
        s.push_str(&row("**all**", self.overall()));
        for (t, m) in self.by_type() {
            s.push_str(&row(&t, m));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_scores_and_means() {
        let a = PageScore::new("a", Some("article"), "the cat sat", "the cat sat down");
        assert_eq!((a.precision, a.recall), (1.0, 0.75));
        assert!((a.f1 - 6.0 / 7.0).abs() < 1e-12);
        let b = PageScore::new("b", Some("forum"), "", "gold words");
        assert_eq!(b.f1, 0.0);
        let e = Evaluation {
            pages: vec![a.clone(), b],
            blocks: Confusion::default(),
        };
        assert!((e.overall().f1 - 3.0 / 7.0).abs() < 1e-12);
        let types: Vec<String> = e.by_type().into_iter().map(|t| t.0).collect();
        assert_eq!(types, ["article", "forum"]);
        // A page without a type among typed ones: a row of its own, last, so that the rows'
        // counts add up; among untyped pages alone, no row but all.
        let c = PageScore::new("c", None, "x", "x");
        let mixed = Evaluation {
            pages: vec![c.clone(), a.clone()],
            blocks: Confusion::default(),
        };
        let rows: Vec<(String, usize)> =
            mixed.by_type().into_iter().map(|t| (t.0, t.1.n)).collect();
        assert_eq!(rows, [("article".to_string(), 1), (NO_TYPE.to_string(), 1)]);
        let untyped = Evaluation {
            pages: vec![c],
            blocks: Confusion::default(),
        };
        assert!(untyped.by_type().is_empty());
    }

    #[test]
    fn confusion_counts() {
        let mut c = Confusion::default();
        c.add(&[true, true, false, false], &[true, false, true, false]);
        assert_eq!((c.tp, c.fp, c.fn_, c.tn), (1, 1, 1, 1));
        assert_eq!(c.prf(), (0.5, 0.5, 0.5));
    }
}
