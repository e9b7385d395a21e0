//! The headline of a page: what a reader takes for its title.
//!
//! A `<title>` names the site as well as the page (`Vegetable Gardening for Beginners | The
//! Old Farmer's Almanac`), and a page's first `<h1>` is often the site's logo. Where the two
//! agree, the `<h1>` is the headline: an `<h1>` whose words are the title's, the title's
//! first words, or one of the parts the title's separators cut it into, or begin with such a
//! part of three words or more (the part of most words, and never for an `<h1>` in a header
//! or a menu: a logo that names the site). The
//! title a page gives for sharing (`og:title`) confirms an `<h1>` the same way. Otherwise
//! that title, when half its words are the `<title>`'s (else it is a tagline), or the
//! `<title>` loses the site's name: its last part when that has no more words than the rest,
//! or else its first part. A page without either takes its first `<h1>` outside headers and
//! menus. Where the page names its site (`og:site_name`, or else an `<h1>` in a header or a
//! bar whose class names a menu, such as a book's `menu-bar`, that is the title's last part
//! while a heading has the rest), an `<h1>` of that name is a logo unless the whole title is
//! that name, a last part of the title that names the site is the one that goes, and a title
//! of the site's name alone yields to the page's first `<h1>`. A part named "Home" leaves the
//! site's name: the front page's title.

use super::{ctx, Page};
use crate::decode::normalized;
use regex::Regex;
use rustc_hash::FxHashSet;
use std::sync::OnceLock;

/// How many of a page's `<h1>` elements are compared with its title: past the first few, an
/// `<h1>` is a section's heading.
const H1_COMPARED: usize = 3;

/// Spaced separators between a title's parts: `|`, dashes, `·`, `•`, `»`, `/`, `\`, `~`, `>`,
/// `::`. A colon is not one: it sets a headline's topic before its subject (`Python: a
/// guide`), which both belong to the headline.
fn separators() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\s+(?:[|\-–—·•»/\\~>]|::)\s+").ok())
        .as_ref()
}

impl Page {
    /// The page's headline, whitespace collapsed: the first of its first three visible `<h1>`s
    /// whose words are its `<title>`'s, begin it or are begun by it, else the longest that is
    /// a part of it between separators such as ` | `, or begins with such a part of three
    /// words or more (outside headers and menus), else the same for its `og:title`; failing
    /// those, the `og:title` (when half its words are the
    /// `<title>`'s) or the `<title>` without the end part that names the site (by its
    /// `og:site_name`, or else the shorter end); failing those, its first `<h1>` outside
    /// headers and menus. An `<h1>` of the site's name only counts where a whole title has its
    /// words. Empty when the page has none of them.
    pub fn headline(&self) -> String {
        self.headline_and_h1().0
    }

    /// The [`headline`](Page::headline), and the `<h1>` element whose text it is, when it is
    /// one's: where the page says its title.
    pub fn headline_and_h1(&self) -> (String, Option<u32>) {
        let h1s = self.h1_texts();
        let title = Title::new(&self.title);
        let site = if self.site_name.is_empty() {
            // An h1 in a bar that is the title's last part is the site's logo, its name, when
            // a heading of the page has the words before that part (a book's chapter): else
            // it may be an article's h1 under a title that names the site first.
            let (rest, last) = title.around_last_cut();
            let logo = h1s
                .iter()
                .find(|h| h.in_bar && !last.is_empty() && h.words == last)
                .filter(|_| self.has_heading(&rest));
            Site::new(logo.map_or("", |h| &h.text))
        } else {
            Site::new(&self.site_name)
        };
        let compared: Vec<&H1> = h1s
            .iter()
            .filter(|h| !h.words.is_empty())
            .take(H1_COMPARED)
            .collect();
        let (title, shared) = (
            title.for_site(&site),
            Title::new(&self.og_title).for_site(&site),
        );
        if let Some(h) = [&title, &shared]
            .into_iter()
            .find_map(|t| t.confirmed(&compared, &site))
        {
            return (h.text.clone(), Some(h.element));
        }
        // The title shared for the page names the site less often than `<title>`, but may be
        // a tagline instead: it stands in when half its words are the `<title>`'s.
        // Nor does a title shared as "Home" stand in: the `<title>` names the front page better.
        let stands_in = !shared.words.is_empty()
            && if title.says_more() {
                !is_front_page_name(&shared.words)
                    && 2 * shared.words_in(&title) >= shared.word_count()
            } else {
                shared.says_more()
            };
        if stands_in {
            (shared.without_site_name(), None)
        } else if title.says_more() {
            (title.without_site_name(), None)
        } else if let Some(h) = h1s.iter().find(|h| !h.in_chrome && !site.is(&h.words)) {
            (h.text.clone(), Some(h.element))
        } else {
            // A title of the site's name alone, as a site's front page has.
            let title = [&title, &shared]
                .into_iter()
                .find(|t| !t.words.is_empty())
                .map(|t| t.text.trim().to_string())
                .unwrap_or_default();
            (title, None)
        }
    }

    /// Whether one of the page's heading blocks (`<h1>` to `<h6>`) has these words.
    fn has_heading(&self, words: &str) -> bool {
        !words.is_empty()
            && self
                .blocks
                .iter()
                .any(|b| super::is_heading(self.tag_of(b)) && normalized(&b.text) == words)
    }

    /// The texts of the page's visible `<h1>` elements in document order (the blocks of one
    /// element joined), and whether each lies in a header or a menu.
    fn h1_texts(&self) -> Vec<H1> {
        let mut out: Vec<H1> = Vec::new();
        for b in &self.blocks {
            let e = self.element_of(b);
            if e.tag != "h1" || e.flags & ctx::HIDDEN != 0 {
                continue;
            }
            match out.last_mut() {
                Some(h) if h.element == b.element => {
                    h.text.push(' ');
                    h.text.push_str(&b.text);
                }
                _ => out.push(H1 {
                    element: b.element,
                    text: b.text.clone(),
                    // Set below, once the element's blocks are joined.
                    words: String::new(),
                    in_chrome: e.flags & (ctx::HEADER | ctx::NAV) != 0,
                    in_bar: e.flags & (ctx::HEADER | ctx::NAV | ctx::V_NAV | ctx::V_HEADER) != 0,
                }),
            }
        }
        out.into_iter()
            .map(|mut h| {
                h.words = normalized(&h.text);
                h
            })
            .collect()
    }
}

/// The text of one `<h1>`.
struct H1 {
    /// The `<h1>` element ([`Page::elements`]).
    element: u32,
    text: String,
    /// Its words, as [`normalized`] gives them.
    words: String,
    /// Inside a `<header>`, a `<nav>` or an element marked as one.
    in_chrome: bool,
    /// Inside those or an element whose class names a menu or a header (`menu-bar`): where
    /// a logo stands.
    in_bar: bool,
}

/// A title (`<title>` or `og:title`) and where its separators cut it.
struct Title<'a> {
    text: &'a str,
    /// Its words, as [`normalized`] gives them.
    words: String,
    /// The separators between its parts, as byte ranges.
    cuts: Vec<(usize, usize)>,
    /// Whether its last part names the site, by the name the page gives it
    /// ([`Title::for_site`]).
    site_last: bool,
    /// Its words are the site's name alone.
    only_site: bool,
}

impl<'a> Title<'a> {
    fn new(text: &'a str) -> Self {
        let words = normalized(text);
        let cuts: Vec<(usize, usize)> = match separators() {
            Some(re) if !words.is_empty() => re
                .find_iter(text)
                .map(|m| (m.start(), m.end()))
                .filter(|&(s, e)| !is_range(text, s, e))
                .collect(),
            _ => Vec::new(),
        };
        Title {
            text,
            words,
            cuts,
            site_last: false,
            only_site: false,
        }
    }

    /// The title read with the site's name that the page gives.
    fn for_site(mut self, site: &Site) -> Self {
        // Only a last part is taken for the site's name from the name the page gives: a
        // title that starts with the site's name is most often a front page's (`Site | what
        // it does`), for which the rule of the shorter end part holds.
        self.site_last = self
            .cuts
            .last()
            .is_some_and(|&(_, last_end)| site.names(&normalized(&self.text[last_end..])));
        self.only_site = site.is(&self.words);
        self
    }

    /// The words before its last separator and after it; empty when no separator cuts it.
    fn around_last_cut(&self) -> (String, String) {
        self.cuts
            .last()
            .map_or_else(Default::default, |&(start, end)| {
                (
                    normalized(&self.text[..start]),
                    normalized(&self.text[end..]),
                )
            })
    }

    /// Whether it has words other than the site's name alone.
    fn says_more(&self) -> bool {
        !self.words.is_empty() && !self.only_site
    }

    fn word_count(&self) -> usize {
        word_count(&self.words)
    }

    /// How many of this title's words (with repeats) the other title has.
    fn words_in(&self, other: &Title) -> usize {
        let theirs: FxHashSet<&str> = other.words.split(' ').collect();
        self.words.split(' ').filter(|w| theirs.contains(w)).count()
    }

    /// The first of the compared h1s whose words are the title's, begin it or are begun by
    /// it; else the one of most words that is one of its parts or begins with one
    /// ([`Title::is_part`]). An h1 of the site's name
    /// agrees only with a title of the same words: elsewhere it is the site's logo.
    fn confirmed<'h>(&self, compared: &[&'h H1], site: &Site) -> Option<&'h H1> {
        if self.words.is_empty() {
            return None;
        }
        let title_words = self.word_count();
        // The best h1 that is one of the title's parts: the one of most words, as a logo's h1
        // names the site in fewer words than the headline.
        let mut part: Option<(&H1, usize)> = None;
        for &h in compared {
            let h1 = &h.words;
            let h1_words = word_count(h1);
            // A logo's h1 in the page's header names the site, which the title also names;
            // a single word at the start of the title may be the site's name too.
            let logo = site.is(h1);
            let agrees = *h1 == self.words
                || (!logo && h1_words >= 2 && starts_with_words(&self.words, h1))
                || (title_words >= 3 && starts_with_words(h1, &self.words));
            if agrees {
                return Some(h);
            }
            if !h.in_chrome && !logo && part.is_none_or(|(_, n)| h1_words > n) && self.is_part(h1) {
                part = Some((h, h1_words));
            }
        }
        part.map(|(h, _)| h)
    }

    /// Whether one of the title's parts between separators has these words, or begins them
    /// with three words or more (a headline that the title shortens: `City council approves
    /// park | Daily` for `City council approves park after two years`); read only for the few
    /// h1 elements compared, so the parts are never kept.
    fn is_part(&self, h1: &str) -> bool {
        let starts = std::iter::once(0).chain(self.cuts.iter().map(|&(_, e)| e));
        let ends = self.cuts.iter().map(|&(s, _)| s).chain([self.text.len()]);
        starts.zip(ends).any(|(s, e)| {
            let part = normalized(&self.text[s..e]);
            part == h1 || (word_count(&part) >= 3 && starts_with_words(h1, &part))
        })
    }

    /// The title without the end part that names the site when the page names it, else
    /// without its last part when that has no more words than the rest, or else without its
    /// first part.
    fn without_site_name(&self) -> String {
        let title = self.text;
        let (Some(&(first_start, first_end)), Some(&(last_start, last_end))) =
            (self.cuts.first(), self.cuts.last())
        else {
            return title.to_string();
        };
        // When the last part has more words than all before it, the first part has fewer
        // than all after it.
        let count = |s: &str| word_count(&normalized(s));
        let drop_last = self.site_last || count(&title[last_end..]) <= count(&title[..last_start]);
        let (kept, dropped) = if drop_last {
            (&title[..last_start], &title[last_end..])
        } else {
            (&title[first_end..], &title[..first_start])
        };
        // A page called "Home" is the site's front page, whose title is the site's name.
        if is_front_page_name(&normalized(kept)) {
            dropped.trim().to_string()
        } else {
            kept.trim().to_string()
        }
    }
}

/// The site's name as the page gives it (`og:site_name`), its words as [`normalized`] gives
/// them, without `and` (which titles often write `&`).
struct Site(String);

impl Site {
    fn new(name: &str) -> Self {
        Site(without_and(&normalized(name)))
    }

    /// Whether these words (as [`normalized`] gives them) are the site's name.
    fn is(&self, words: &str) -> bool {
        !self.0.is_empty() && words_but_and(words).eq(self.0.split(' '))
    }

    /// Whether a title's part with these words names the site: its name, its name and a
    /// word or two more (`REI Co-op` for `REI`), or the first words of its name.
    fn names(&self, words: &str) -> bool {
        if self.0.is_empty() || words.is_empty() {
            return false;
        }
        let words = without_and(words);
        starts_with_words(&self.0, &words)
            || (starts_with_words(&words, &self.0) && word_count(&words) <= word_count(&self.0) + 2)
    }
}

/// Whether a title's part is what sites call their front page.
fn is_front_page_name(words: &str) -> bool {
    matches!(
        words,
        "home" | "homepage" | "home page" | "welcome" | "startseite" | "accueil" | "inicio"
    )
}

/// Words without `and`.
fn without_and(words: &str) -> String {
    words_but_and(words).collect::<Vec<_>>().join(" ")
}

/// The words (as [`normalized`] gives them) other than `and`, one by one.
fn words_but_and(words: &str) -> impl Iterator<Item = &str> {
    words.split(' ').filter(|w| *w != "and")
}

/// Whether the separator at `title[start..end]` is a dash between two numbers (`2024 - 2025`),
/// which joins a range rather than cutting the title.
fn is_range(title: &str, start: usize, end: usize) -> bool {
    let dash = title[start..end]
        .trim()
        .chars()
        .all(|c| matches!(c, '-' | '–' | '—'));
    let before = title[..start].chars().next_back();
    let after = title[end..].chars().next();
    dash && before.is_some_and(|c| c.is_ascii_digit()) && after.is_some_and(|c| c.is_ascii_digit())
}

/// Whether the words `a` (as [`normalized`] gives them) begin with the words `b`.
/// Words in a text as [`normalized`] gives it: one space between two words.
fn word_count(words: &str) -> usize {
    words.split(' ').filter(|w| !w.is_empty()).count()
}

fn starts_with_words(a: &str, b: &str) -> bool {
    a.strip_prefix(b)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

#[cfg(test)]
mod tests {
    use super::super::{segment, SegmentLimits};

    fn headline(html: &str) -> String {
        segment(html, SegmentLimits::default()).unwrap().headline()
    }

    #[test]
    fn an_h1_that_the_title_confirms_is_the_headline() {
        let body = "<header><h1>Almanac</h1></header>\
                    <article><h1>Vegetable  gardening for beginners</h1><p>Text.</p></article>";
        // The title's part before the site's name, with other case and spacing.
        let page = format!("<title>Vegetable Gardening for Beginners | Almanac</title>{body}");
        assert_eq!(headline(&page), "Vegetable gardening for beginners");
        // Its element: the article's `<h1>`, not the logo's; none for a title taken as such.
        let at = |html: &str| {
            let page = segment(html, SegmentLimits::default()).unwrap();
            let h1 = page.headline_and_h1().1;
            h1.map(|h1| page.elements[h1 as usize].parent.unwrap())
                .map(|p| page.elements[p as usize].tag.to_string())
        };
        assert_eq!(at(&page).as_deref(), Some("article"));
        assert_eq!(
            at("<title>Seeds | Almanac</title><h2>Seeds</h2><p>Text.</p>"),
            None
        );
        // The whole title, and the title's first words.
        for title in [
            "Vegetable gardening for beginners",
            "Vegetable gardening for beginners: what to plant first",
        ] {
            let page = format!("<title>{title}</title>{body}");
            assert_eq!(
                headline(&page),
                "Vegetable gardening for beginners",
                "{title}"
            );
        }
        // An h1 that says more than a title of three words or more.
        let page = "<title>Tomatoes in pots</title><h1>Tomatoes in pots: a guide</h1>";
        assert_eq!(headline(page), "Tomatoes in pots: a guide");
        // A logo's h1 of one word is not taken for the title's first word.
        let page = "<title>Almanac gardening tips for May</title><h1>Almanac</h1>";
        assert_eq!(headline(page), "Almanac gardening tips for May");
        // A hidden h1 does not count.
        let page = "<title>Tomato care | Garden Blog</title><h1 hidden>Garden Blog</h1>";
        assert_eq!(headline(page), "Tomato care");
        // Only the first three h1 elements with words are compared.
        let page = "<title>Tomato care | Garden Blog</title><h1>A</h1><h1></h1><h1>B</h1>\
                    <h1>C</h1><h1>Garden Blog</h1>";
        assert_eq!(headline(page), "Tomato care");
        // Of two h1s that are parts of the title, the one of more words: a logo's h1 outside
        // the header names the site in fewer.
        let page = "<title>Tomato care in pots | Garden Blog</title><h1>Garden Blog</h1>\
                    <h1>Tomato care in pots</h1><h1>Garden</h1>";
        assert_eq!(headline(page), "Tomato care in pots");
        // An h1 that the title's part begins, as a title shortens a headline; but not one
        // that a part of two words begins.
        let page = "<title>Council approves river park | Daily Example</title>\
                    <h1>Council approves river park after two years of debate</h1>";
        assert_eq!(
            headline(page),
            "Council approves river park after two years of debate"
        );
        let page = "<title>River park | Daily Example</title><h1>River park plans</h1>";
        assert_eq!(headline(page), "River park");
        // The blocks of one h1 are read together.
        let page = "<title>Tomatoes in pots - Blog</title><h1>Tomatoes<br>in pots</h1>";
        assert_eq!(headline(page), "Tomatoes in pots");
    }

    #[test]
    fn the_site_name_leaves_the_title() {
        let cases = [
            // The shorter end part goes: the last one first.
            ("How to Grow Tomatoes - Garden Blog", "How to Grow Tomatoes"),
            (
                "How to Grow Tomatoes – Garden Blog » Vegetables",
                "How to Grow Tomatoes – Garden Blog",
            ),
            (
                "Garden Blog | How to Grow Tomatoes at Home",
                "How to Grow Tomatoes at Home",
            ),
            (
                "How to Grow Tomatoes :: Garden Blog",
                "How to Grow Tomatoes",
            ),
            // A last part of as many words as the rest is the site's name too.
            ("Tomatoes · Blog", "Tomatoes"),
            // One part goes, the last, having no more words than the others.
            (
                "Our Garden / How We Grow Tomatoes / Blog of Mine",
                "Our Garden / How We Grow Tomatoes",
            ),
            // A colon, a dash without spaces and a range of numbers do not cut.
            ("Python: a guide", "Python: a guide"),
            ("Well-known tomatoes", "Well-known tomatoes"),
            ("Season 2024 - 2025", "Season 2024 - 2025"),
            ("Season 2024 - 2025 | Club", "Season 2024 - 2025"),
        ];
        for (title, expected) in cases {
            assert_eq!(
                headline(&format!("<title>{title}</title><p>Text.</p>")),
                expected,
                "{title}"
            );
        }
    }

    #[test]
    fn the_title_given_for_sharing_confirms_an_h1_or_stands_in() {
        // `og:title` confirms an h1 that the <title> does not, whichever attribute names it.
        for attr in ["property", "name"] {
            let page = format!(
                "<title>Tomatoes 101 - Blog</title>\
                 <meta {attr}=og:title content=\"How to grow tomatoes | Blog\">\
                 <h1>How to Grow  Tomatoes</h1><p>Text.</p>"
            );
            assert_eq!(headline(&page), "How to Grow Tomatoes", "{attr}");
        }
        // The <title> is compared first.
        let page = "<title>Tomato care</title><meta property=og:title content='Garden'>\
                    <h1>Garden</h1><h1>Tomato care</h1>";
        assert_eq!(headline(page), "Tomato care");
        // Without a confirmed h1, `og:title` without the site's name, as the page's first
        // one gives it, when half its words are the <title>'s; else the <title>.
        let page = "<title>Tomato care tips</title>\
                    <meta property=og:title content=' Tomato   care | Garden Blog'>\
                    <meta property=og:title content='Other'><meta property=og:description content=x>";
        assert_eq!(headline(page), "Tomato care");
        let page = "<title>Email tools | Mailer</title>\
                    <meta property=og:title content='We are really good at email'>";
        assert_eq!(headline(page), "Email tools", "a tagline");
        let page = "<title>Tomato care | Garden Blog</title><meta property=og:title content=' '>";
        assert_eq!(headline(page), "Tomato care");
        // One in the body counts too, and stands for a missing <title>.
        let page = "<body><meta property=og:title content='Tomato care - Blog'><p>Text.</p>";
        assert_eq!(headline(page), "Tomato care");
    }

    #[test]
    fn the_site_name_the_page_gives_tells_its_logo_and_its_part_of_the_title() {
        let site = "<meta property=og:site_name content=\"Roger's Blog\">";
        // An h1 of the site's name that begins the title is its logo, not the headline.
        let page = "<title>Roger's Blog: Advent of Code week 2</title>\
                    <meta property=og:title content='Advent of Code week 2'>\
                    <h1>Roger's Blog</h1><h1>Day 7</h1><p>Text.</p>";
        assert_eq!(headline(page), "Roger's Blog", "without the site's name");
        assert_eq!(headline(&format!("{site}{page}")), "Advent of Code week 2");
        // Nor is it the title's part, even outside the header.
        let page = "<title>A brief intro to git • Roger's Blog</title>\
                    <h1>Roger's Blog</h1><h2>A brief intro to git</h2><p>Text.</p>";
        assert_eq!(headline(page), "Roger's Blog", "without the site's name");
        assert_eq!(headline(&format!("{site}{page}")), "A brief intro to git");
        // But it is the headline where the whole title is the site's name too.
        let page = "<title>Roger's Blog | Resume writer</title>\
                    <meta property=og:title content=\"Roger's Blog\">\
                    <h1>Roger's Blog</h1><p>Text.</p>";
        assert_eq!(headline(&format!("{site}{page}")), "Roger's Blog");
        // The title's last part that names the site goes, however many words it has; the
        // site's name may be that part's first words, and `&` stands for `and`.
        for (name, title, expected) in [
            ("REI", "Kayaks | REI Co-op", "Kayaks"),
            ("Nuts and Volts", "Gadgets | Nuts & Volts", "Gadgets"),
        ] {
            let page =
                format!("<title>{title}</title><header><h1>{expected}</h1></header><p>Text.</p>");
            assert_ne!(headline(&page), expected, "{title} without the site's name");
            let named = format!("<meta property=og:site_name content='{name}'>{page}");
            assert_eq!(headline(&named), expected, "{title}");
        }
        // A title of the site's name alone says nothing of the page: its h1 does, unless
        // that names the site too, or there is none.
        let site = "<meta property=og:site_name content=Glossier>";
        let page = "<title>Glossier</title><main><h1>Custom Skincare Set</h1><p>Text.</p></main>";
        assert_eq!(headline(page), "Glossier", "without the site's name");
        assert_eq!(headline(&format!("{site}{page}")), "Custom Skincare Set");
        // The same when the title shared for the page is the site's name too.
        let shared = "<meta property=og:title content=Glossier>";
        assert_eq!(
            headline(&format!("{site}{shared}{page}")),
            "Custom Skincare Set"
        );
        for page in [
            "<title>Glossier</title><div><h1>Glossier</h1></div><p>Text.</p>",
            "<title>Glossier</title><p>Text.</p>",
        ] {
            assert_eq!(headline(&format!("{site}{page}")), "Glossier", "{page}");
        }
    }

    #[test]
    fn an_h1_in_a_bar_that_ends_the_title_names_the_site() {
        // A book's pages: its name in the menu bar, the chapter's heading an h2.
        let page = |bar: &str| {
            format!(
                "<title>What is Ownership? - The Rust Book</title>\
                 <div class='{bar}'><h1>The Rust Book</h1></div>\
                 <main><h2>What Is Ownership?</h2><p>Text.</p></main>"
            )
        };
        assert_eq!(headline(&page("menu-bar")), "What is Ownership?");
        assert_eq!(headline(&page("site-header")), "What is Ownership?");
        // Outside a bar, the h1 that is a part of the title is the headline.
        assert_eq!(headline(&page("x")), "The Rust Book");
        // And in a bar too, when no heading has the rest of the title: an article's h1 in a
        // `post-header` under a title that names the site first.
        let page = "<title>Garden Blog - How to grow tomatoes</title>\
                    <div class=post-header><h1>How to grow tomatoes</h1></div><p>Text.</p>";
        assert_eq!(headline(page), "How to grow tomatoes");
    }

    #[test]
    fn a_front_page_is_named_by_its_site() {
        // A title part "Home" leaves the site's name, whichever part the rules would drop.
        assert_eq!(
            headline("<title>Home - Ohio Artisan Collective</title><p>Text.</p>"),
            "Ohio Artisan Collective"
        );
        let page = "<meta property=og:site_name content='Artisan Collective'>\
                    <title>Home | Artisan Collective</title><p>Text.</p>";
        assert_eq!(headline(page), "Artisan Collective");
        // And an og:title of "Home" does not stand in for the <title>.
        let page = "<title>Home - The Garden Blog</title><meta property=og:title content=Home>";
        assert_eq!(headline(page), "The Garden Blog");
    }

    #[test]
    fn without_a_title_the_first_h1_outside_the_chrome() {
        let page = "<header><h1>Logo</h1></header><nav><h1>Menu</h1></nav>\
                    <main><h1>The story</h1><p>Text.</p></main>";
        assert_eq!(headline(page), "The story");
        assert_eq!(headline("<title> </title><p>Only text.</p>"), "");
        assert_eq!(headline("<header><h1>Logo</h1></header>"), "");
    }
}
