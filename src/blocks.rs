//! HTML text to atomic text blocks (Boilerpipe segmentation).
//!
//! This is the only module that knows the HTML parser: it parses with kuchikiki and hands out
//! owned [`Page`] data, so the parser can be swapped here alone.
//!
//! A block is the run of text between two block boundaries. Inline elements (`a`, `b`, `span`…)
//! do not break a block; block-level elements (`p`, `div`, `li`, `h1`…, `br`) do. Text inside
//! `script`, `style`, `template`, `svg`, `math`, `iframe`, `object`, `embed`, `select`,
//! `textarea` and `head` (except `title`) is skipped; a declarative shadow root
//! (`<template shadowrootmode>`) is not, as it is read where a browser shows it, with the host's
//! children in its slots. The page is parsed as by a client without scripts, so `noscript` holds
//! markup; its blocks are kept and flagged (see [`ctx::NOSCRIPT`]).

use crate::error::{Error, Result};
use aho_corasick::{automaton::Automaton, dfa::DFA, Anchored, MatchKind};
use html5ever::{local_name, Attribute, LocalName};
use kuchikiki::{NodeData, NodeRef};
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

mod headline;
mod parse;
pub use parse::MAX_ATTRIBUTES;

/// Limits on the work done for one page, and whether it keeps the targets of its links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentLimits {
    /// Pages with more DOM nodes than this are refused, counted while parsing so that memory
    /// stays bounded (default 500,000; the WCXB development pages have at most 20,871).
    pub max_nodes: usize,
    /// Segmentation stops after this many blocks and the rest of the page is dropped
    /// (default 100,000; the WCXB development pages have at most 2,641).
    pub max_blocks: usize,
    /// Keep where each link points ([`Block::links`]), for Markdown with links. Off by
    /// default: the parser then never reads an `href`, which costs time on every link.
    pub links: bool,
}

impl Default for SegmentLimits {
    fn default() -> Self {
        SegmentLimits {
            max_nodes: 500_000,
            max_blocks: 100_000,
            links: false,
        }
    }
}

impl SegmentLimits {
    /// Refuse a limit of zero, which would refuse or cut every page.
    pub fn check(&self) -> Result<()> {
        for (name, value) in [
            ("max_nodes", self.max_nodes),
            ("max_blocks", self.max_blocks),
        ] {
            if value == 0 {
                return Err(Error::Config(format!(
                    "the limit {name} must be above zero"
                )));
            }
        }
        Ok(())
    }
}

/// Context bits of an element, inherited by everything inside it.
pub mod ctx {
    /// Inside `<article>` or `role=article`.
    pub const ARTICLE: u32 = 1 << 0;
    /// Inside `<main>` or `role=main`.
    pub const MAIN: u32 = 1 << 1;
    /// Inside `<nav>`, `<menu>` or `role=navigation`.
    pub const NAV: u32 = 1 << 2;
    /// Inside `<aside>` or `role=complementary`.
    pub const ASIDE: u32 = 1 << 3;
    /// Inside `<header>` or `role=banner`.
    pub const HEADER: u32 = 1 << 4;
    /// Inside `<footer>` or `role=contentinfo`.
    pub const FOOTER: u32 = 1 << 5;
    /// Inside `<form>` or `role=search`.
    pub const FORM: u32 = 1 << 6;
    /// Inside `<figure>`.
    pub const FIGURE: u32 = 1 << 7;
    /// Inside `<table>`.
    pub const TABLE: u32 = 1 << 8;
    /// Inside `<ul>`, `<ol>` or `<dl>`.
    pub const LIST: u32 = 1 << 9;
    /// Inside `<blockquote>`.
    pub const BLOCKQUOTE: u32 = 1 << 10;
    /// Inside an `<a>` (a block nested in a link, such as a teaser card).
    pub const ANCHOR: u32 = 1 << 11;
    /// Hidden: `hidden`, `aria-hidden=true`, `display:none`, or a hiding class.
    pub const HIDDEN: u32 = 1 << 12;
    /// Inside a `<button>` or `role=button`.
    pub const BUTTON: u32 = 1 << 13;
    /// Inside `<noscript>`: kept, because some sites serve their whole content there for
    /// clients without scripts, and flagged, because elsewhere it holds "enable JavaScript".
    pub const NOSCRIPT: u32 = 1 << 14;
    /// Vocabulary, read while segmenting and never kept: the class/id values hold the letters
    /// of a hiding class (`hid`, `none`, `invisible`), so the class is worth reading closely.
    pub(crate) const MAY_HIDE: u32 = 1 << 15;
    /// Class/id/role/itemprop vocabulary: navigation, menus, breadcrumbs, pagination.
    pub const V_NAV: u32 = 1 << 16;
    /// Vocabulary: footer, copyright.
    pub const V_FOOTER: u32 = 1 << 17;
    /// Vocabulary: sidebar, widget.
    pub const V_SIDEBAR: u32 = 1 << 18;
    /// Vocabulary: comments, replies.
    pub const V_COMMENT: u32 = 1 << 19;
    /// Vocabulary: share, social.
    pub const V_SHARE: u32 = 1 << 20;
    /// Vocabulary: related, recommended, popular.
    pub const V_RELATED: u32 = 1 << 21;
    /// Vocabulary: cookie, consent, banner, popup, modal, newsletter.
    pub const V_OVERLAY: u32 = 1 << 22;
    /// Vocabulary: ads, sponsors, promotions.
    pub const V_AD: u32 = 1 << 23;
    /// Vocabulary: header, masthead.
    pub const V_HEADER: u32 = 1 << 24;
    /// Vocabulary: byline, author, date, tags, meta.
    pub const V_META: u32 = 1 << 25;
    /// Vocabulary: article, post, entry, story, blog.
    pub const V_ARTICLE: u32 = 1 << 26;
    /// Vocabulary: content, main, body, text, prose.
    pub const V_CONTENT: u32 = 1 << 27;
    /// Vocabulary: product, description, details, specifications.
    pub const V_PRODUCT: u32 = 1 << 28;
    /// All vocabulary bits that suggest boilerplate.
    pub const V_BOILER: u32 = V_NAV
        | V_FOOTER
        | V_SIDEBAR
        | V_COMMENT
        | V_SHARE
        | V_RELATED
        | V_OVERLAY
        | V_AD
        | V_HEADER;
    /// All vocabulary bits that suggest content.
    pub const V_GOOD: u32 = V_ARTICLE | V_CONTENT | V_PRODUCT;
}

/// One element of the page, in document order (pre-order).
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    /// Lower-case tag name.
    pub tag: Cow<'static, str>,
    /// Lower-cased class, id, role and itemprop values, space-separated (shared by the elements
    /// of a page that have the same).
    pub tokens: Arc<str>,
    /// Index of the parent element, if any.
    pub parent: Option<u32>,
    /// Nesting depth (the root `html` element is 1).
    pub depth: u32,
    /// Index of the last element inside this one (itself if it has none): the elements of its
    /// subtree are exactly `self_index..=end`.
    pub end: u32,
    /// The blocks with text inside this element are `first_block..end_block` (a block that
    /// straddles the element's boundary counts as inside).
    pub first_block: u32,
    /// See `first_block`.
    pub end_block: u32,
    /// Context bits ([`ctx`]) of this element and all its ancestors.
    pub flags: u32,
    /// Vocabulary bits of the nearest ancestor-or-self whose tokens matched a vocabulary.
    pub nearest_vocab: u32,
}

/// An atomic text block.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Position of the block in document order, from 0.
    pub index: usize,
    /// The block's text, whitespace collapsed.
    pub text: String,
    /// Byte ranges of `text` that lie inside `<a>` elements.
    pub anchor_spans: Vec<(u32, u32)>,
    /// The text of each link that has a target, when [`SegmentLimits::links`] asks for them.
    pub links: Vec<Link>,
    /// Index into [`Page::elements`] of the nearest block-level element around the text.
    pub element: u32,
    /// Number of inline elements opened inside the block.
    pub inline_tags: u32,
    /// The text as laid out, for text inside `<pre>` whose line breaks or indentation the
    /// collapsed `text` loses (code, poems, ASCII tables); `None` elsewhere. Features read
    /// `text`; only the extracted text shows this.
    pub preformatted: Option<String>,
}

/// A link's text in a block, and where it points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// Byte range of the block's `text` that the link's text covers.
    pub span: (u32, u32),
    /// The `href` as the page gives it (relative or absolute), whitespace taken out. Links
    /// that lead a reader nowhere (`#…`, `javascript:`, `data:`, `file:`) are not kept.
    pub target: Arc<str>,
}

/// A segmented page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    /// Text of the first `<title>`, whitespace collapsed.
    pub title: String,
    /// The first `og:title` of a `<meta>` (the title a page gives for sharing), whitespace
    /// collapsed.
    pub og_title: String,
    /// The first `og:site_name` of a `<meta>` (the site's name, which titles often carry
    /// beside the page's), whitespace collapsed.
    pub site_name: String,
    /// The `href` of the page's first `<base>` that has one, read when links are kept
    /// ([`SegmentLimits::links`]): what the page's relative links resolve against.
    pub base: Option<String>,
    /// The blocks in document order.
    pub blocks: Vec<Block>,
    /// The elements in document order; blocks point into it.
    pub elements: Vec<Element>,
    /// What the markup says about numbering list items, placing table cells and laying images
    /// out inside lines, for the elements that say anything (an `<ol start>` or
    /// `<ol reversed>`, an `<li value>`,
    /// a cell's `colspan` or `rowspan`, a small `<img>`), by element index in document order.
    /// [`Page::roles`] reads it.
    pub layout: Vec<(u32, Layout)>,
    /// Text of the page was dropped: the blocks after [`SegmentLimits::max_blocks`], or the
    /// rest of a page whose stray end tags or elements left open by the thousand made the
    /// parser's work run past its bound (see [`MAX_NESTING`]).
    pub truncated: bool,
    /// Short texts without a letter or digit (`✓`, `—`, `$$$`), which make no block: a table
    /// cell that holds one still says something ([`Page::structure`]).
    pub marks: Vec<Mark>,
}

/// A short text without a letter or digit, where a block would have been ([`Page::marks`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mark {
    /// Its text, whitespace collapsed and trimmed.
    pub text: String,
    /// The innermost block-level element around it ([`Page::elements`]).
    pub element: u32,
    /// The blocks before it in document order: it lies between the blocks `before - 1` and
    /// `before`.
    pub before: usize,
}

/// A [`Mark`] that is the whole text of a cell of a simple table ([`Page::structure`]),
/// placed as a [`Role::Cell`] places a block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellMark {
    /// Its text.
    pub text: String,
    /// The blocks before it in document order.
    pub before: usize,
    /// The `table` element ([`Page::elements`]).
    pub table: u32,
    /// The row among the table's rows.
    pub row: u32,
    /// The cell's first column.
    pub col: u32,
    /// A header cell (`<th>`).
    pub head: bool,
}

/// The longest [`Mark`] kept, in characters: a cell's mark is a symbol or a few (`$$–$$$`).
const MAX_MARK_CHARS: usize = 16;

/// Numbering, spans and inline images that an element's attributes give it
/// ([`Page::layout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The number of an `<ol>`'s first item (`start`).
    Start(i64),
    /// A `reversed` `<ol>`, whose items count down: from its `start` when it has one, or else
    /// from its number of items.
    Reversed(Option<i64>),
    /// An `<li>`'s own number (`value`); the items after it count on from it.
    Value(i64),
    /// A table cell's `colspan` (1 to 1,000) and `rowspan` (0, the rest of the table, to
    /// 65,534), clamped as browsers clamp them.
    Span {
        /// Columns the cell takes.
        cols: u32,
        /// Rows the cell takes; 0 for all the rows left.
        rows: u32,
    },
    /// An image that the markup lays out inside a line of text: its class names an emoji or
    /// a smiley, or it is at most 32 pixels high.
    InlineImage,
}

/// Whether an `<img>` sits inside a line of text, as a browser lays out an image unless a
/// style sheet says otherwise: when its class names an emoji or a smiley, or when it is at
/// most [`LINE_HEIGHT_PX`] pixels high (`height`, or a `height` or `max-height` in its
/// `style`, in pixels or in up to 2 `em`). Style sheets, which textsift does not read, often
/// lay larger images out as blocks (a product tile's picture, a logo above a quote).
fn image_is_inline(attrs: &[Attribute]) -> bool {
    let value = |name| attribute(attrs, name);
    let small_px = |px: f32| px > 0.0 && px <= LINE_HEIGHT_PX;
    if let Some(class) = value(local_name!("class")) {
        let names = |w: &[u8]| {
            class
                .as_bytes()
                .windows(w.len())
                .any(|c| c.eq_ignore_ascii_case(w))
        };
        if names(b"emoji") || names(b"smil") || names(b"emoticon") {
            return true;
        }
    }
    if value(local_name!("height"))
        .and_then(html_integer)
        .is_some_and(|h| small_px(h as f32))
    {
        return true;
    }
    value(local_name!("style")).is_some_and(|style| {
        style.split(';').any(|declaration| {
            let Some((name, v)) = declaration.split_once(':') else {
                return false;
            };
            let name = name.trim();
            if !(name.eq_ignore_ascii_case("height") || name.eq_ignore_ascii_case("max-height")) {
                return false;
            }
            let v = v.trim().to_ascii_lowercase();
            let digits = v
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(v.len());
            let Ok(n) = v[..digits].parse::<f32>() else {
                return false;
            };
            // `20px !important`: the unit ends at a space or the `!`.
            let unit = v[digits..].split([' ', '\t', '!']).next().unwrap_or("");
            match unit {
                "px" => small_px(n),
                "em" | "rem" => n > 0.0 && n <= 2.0,
                _ => false,
            }
        })
    })
}

/// The height in pixels up to which an image is taken as part of a line of text: an emoji or
/// an icon beside a word, not a picture.
const LINE_HEIGHT_PX: f32 = 32.0;

/// The value of an element's attribute.
fn attribute(attrs: &[Attribute], name: LocalName) -> Option<&str> {
    attrs
        .iter()
        .find(|a| a.name.local == name)
        .map(|a| &*a.value)
}

/// An integer attribute as HTML reads one: leading whitespace, a sign, digits, whatever
/// follows ignored; `None` without digits. Saturates far beyond any list or table.
fn html_integer(value: &str) -> Option<i64> {
    let v = value.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let (negative, v) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    let digits = v.bytes().take_while(u8::is_ascii_digit);
    let mut n: i64 = 0;
    let mut any = false;
    for d in digits {
        any = true;
        n = n.saturating_mul(10).saturating_add(i64::from(d - b'0'));
    }
    any.then_some(if negative { -n } else { n })
}

/// The numbering, spans or inline layout an element's attributes give it, for the elements they
/// apply to.
fn layout_of(tag: &str, attrs: &[Attribute]) -> Option<Layout> {
    let number = |name| attribute(attrs, name).and_then(html_integer);
    match tag {
        "ol" => {
            let start = number(local_name!("start"));
            if attribute(attrs, local_name!("reversed")).is_some() {
                Some(Layout::Reversed(start))
            } else {
                start.map(Layout::Start)
            }
        }
        "img" => image_is_inline(attrs).then_some(Layout::InlineImage),
        "li" => number(local_name!("value")).map(Layout::Value),
        "td" | "th" => {
            // Out-of-range values are clamped as browsers clamp them; a colspan of 0 is 1.
            // A negative span is no span.
            let span = |name| number(name).filter(|n| *n >= 0);
            let cols = span(local_name!("colspan")).map_or(1, |n| n.clamp(1, 1000) as u32);
            let rows = span(local_name!("rowspan")).map_or(1, |n| n.min(65534) as u32);
            (cols != 1 || rows != 1).then_some(Layout::Span { cols, rows })
        }
        _ => None,
    }
}

impl Page {
    /// The nearest block-level element of a block.
    pub fn element_of(&self, block: &Block) -> &Element {
        &self.elements[block.element as usize]
    }

    /// Tag name of a block's nearest block-level element.
    pub fn tag_of(&self, block: &Block) -> &str {
        &self.element_of(block).tag
    }

    /// The ancestors of an element, nearest first, starting with the element itself.
    pub fn ancestors(&self, element: u32) -> impl Iterator<Item = &Element> + '_ {
        std::iter::successors(Some(&self.elements[element as usize]), move |e| {
            e.parent.map(|p| &self.elements[p as usize])
        })
    }

    /// The nearest `<blockquote>` around a block, its own element included, by element index.
    pub fn quote_of(&self, block: &Block) -> Option<u32> {
        std::iter::successors(Some(block.element), |&i| self.elements[i as usize].parent)
            .find(|&i| self.elements[i as usize].tag == "blockquote")
    }

    /// Whether element `inner` lies inside (or is) element `outer`.
    pub fn contains(&self, outer: u32, inner: u32) -> bool {
        outer <= inner && inner <= self.elements[outer as usize].end
    }

    /// The row (`tr`) of a cell, when the cell is a row's own.
    fn row_of(&self, cell: u32) -> Option<usize> {
        let tr = self.elements.get(cell as usize)?.parent? as usize;
        (self.elements[tr].tag == "tr").then_some(tr)
    }

    /// What each block is in the page's structure ([`Role`]), for output that shows it:
    /// Markdown numbers the items of ordered lists and lays simple tables out as tables.
    pub fn roles(&self) -> Vec<Role> {
        self.structure().0
    }

    /// The blocks' [`roles`](Page::roles), and the [`marks`](Page::marks) that are the whole
    /// text of a cell of a simple table (a comparison's `✓`), placed in it as its blocks are.
    /// One pass over the elements, whatever their nesting.
    pub fn structure(&self) -> (Vec<Role>, Vec<CellMark>) {
        const NONE: u32 = u32::MAX;
        let tag = |i: Option<u32>| i.map_or("", |i| &*self.elements[i as usize].tag);
        let n = self.elements.len();
        // For every element: its nearest `table` (itself included), its position among the
        // items, rows or cells its parent counts, and how many of those it counts itself.
        let mut table_of = vec![NONE; n];
        let mut position = vec![0u32; n];
        let mut counted = vec![0i64; n];
        // Tables whose blocks are not all the text of their own cells, or that hold a table.
        let mut complex = vec![false; n];
        // Lists (`ul`, `ol`, `dl`, `menu`) around every element, itself included.
        let mut lists = vec![0u32; n];
        // The nearest list item (`li`, `dt`, `dd`) above each element, or `NONE`.
        let mut in_item = vec![NONE; n];
        // The list that owns an item below each element: the nearest list (`ol`, `ul`,
        // `menu`, `dl`) above it, itself included, through wrappers (`<ol><div><li>`) but not
        // through another item; `NONE` outside lists.
        let mut owner = vec![NONE; n];
        // What an element is to lists: a list, an item, or neither.
        let list_tag = |e: &Element| match &*e.tag {
            "ul" | "ol" | "dl" | "menu" => (true, false),
            "li" | "dt" | "dd" => (false, true),
            _ => (false, false),
        };
        let owned = |owner: &[u32], i: usize, e: &Element| match list_tag(e) {
            (true, _) => i as u32,
            (_, true) => NONE,
            _ => e.parent.map_or(NONE, |p| owner[p as usize]),
        };
        // The list of a list item: its parent's owner, or its parent when nothing owns it.
        let list_of = |owner: &[u32], e: &Element| match e.parent {
            Some(p) if owner[p as usize] != NONE => Some(owner[p as usize]),
            parent => parent,
        };
        // The list item whose own text each element is (the item itself, or a container
        // inside it that a browser lays out as part of the item: `<li><div>…</div></li>`,
        // `<li><h3>…</h3><p>…</p></li>`), or `NONE`: quotes, tables and lists inside an item
        // are laid out as such. The same for table cells (`<td><p>4.2 kg</p></td>`).
        let mut item_text = vec![NONE; n];
        let mut cell_text = vec![NONE; n];
        // The list item that holds the quote around each element, when the quote is inside
        // an item (`<li>Text<blockquote>…</blockquote></li>`), or `NONE`.
        let mut quoted_in = vec![NONE; n];
        // The list item around each element inside a section, an aside, a form, a button or a
        // list (its own text outside its items) of the item (through containers of its
        // text), or `NONE`: such an element is more of the item when the item's text began
        // above it, as a browser draws it inside the item; first in the item, it is laid out
        // as such (blogs and feeds put whole posts in list items).
        let mut later_in = vec![NONE; n];
        // Each description's term: the last `<dt>` before it in its list, by the `<dd>`.
        let mut last_term: FxHashMap<u32, u32> = FxHashMap::default();
        let mut term_of: FxHashMap<u32, u32> = FxHashMap::default();
        let mut layout = self.layout.iter().peekable();
        // A list number as Markdown can write it: 0 to 9 digits.
        let number = |n: i64| n.clamp(0, 999_999_999) as u32;
        // Reversed lists and their numbers of items (without a `start`, the first item's
        // number), counted only on pages that have such a list.
        let mut reversed: FxHashMap<u32, u32> = self
            .layout
            .iter()
            .filter(|(_, l)| matches!(l, Layout::Reversed(_)))
            .map(|&(at, _)| (at, 0))
            .collect();
        if !reversed.is_empty() {
            // The items come after their list: the owners are found before the main pass.
            for (i, e) in self.elements.iter().enumerate() {
                owner[i] = owned(&owner, i, e);
            }
            for e in self.elements.iter().filter(|e| e.tag == "li") {
                if let Some(items) = list_of(&owner, e).and_then(|l| reversed.get_mut(&l)) {
                    *items += 1;
                }
            }
        }
        // The table whose rows are being placed, and for each of its first columns, the last
        // row (counted from 1) that a cell above spans into it. Rows of another table start
        // again: a table among another's rows makes that one no simple table anyway.
        let mut spanned: (u32, Vec<u32>) = (NONE, Vec::new());
        // For every block in the same element as the block above (the others are no lines),
        // what breaks it from that block: the `<br>`s before its text (an element opened
        // between two blocks has the later one as its first block), whether an image or a
        // form field came between, and whether another block-level element did.
        let mut breaks: Vec<Option<Between>> = (0..self.blocks.len())
            .map(|j| {
                (j > 0 && self.blocks[j - 1].element == self.blocks[j].element)
                    .then_some(Between::default())
            })
            .collect();
        for (i, e) in self.elements.iter().enumerate() {
            let own = match layout.peek() {
                Some(&&(at, l)) if at as usize == i => {
                    layout.next();
                    Some(l)
                }
                _ => None,
            };
            if let Some(Some(b)) = breaks.get_mut(e.first_block as usize) {
                match &*e.tag {
                    "br" => b.brs = b.brs.saturating_add(1),
                    "img" if own == Some(Layout::InlineImage) => b.replaced = true,
                    "input" => b.replaced = true,
                    tag if kind_of(tag) == Kind::Block => b.blocks = true,
                    _ => {}
                }
            }
            let (is_list, is_item) = list_tag(e);
            owner[i] = owned(&owner, i, e);
            lists[i] = e.parent.map_or(0, |p| lists[p as usize]) + u32::from(is_list);
            in_item[i] = match e.parent {
                Some(p) if matches!(tag(Some(p)), "li" | "dt" | "dd") => p,
                Some(p) => in_item[p as usize],
                None => NONE,
            };
            // Read the tag only inside an item or a cell: most elements are in neither.
            let parent_in = |of: &[u32]| e.parent.map_or(NONE, |p| of[p as usize]);
            let (parent_item, parent_cell) = (parent_in(&item_text), parent_in(&cell_text));
            let holds = |container: u32, cell: bool| match container {
                NONE => NONE,
                _ if text_container(&e.tag, cell) => container,
                _ => NONE,
            };
            quoted_in[i] = match &*e.tag {
                _ if is_item => NONE,
                "blockquote" => in_item[i],
                _ => e.parent.map_or(NONE, |p| quoted_in[p as usize]),
            };
            // The tag is read only inside an item's text or such a part of it.
            let later_above = e.parent.map_or(NONE, |p| later_in[p as usize]);
            later_in[i] = match &*e.tag {
                _ if is_item || (parent_item == NONE && later_above == NONE) => NONE,
                // A list's own text outside its items (`<ul><b>Also</b>: a, b</ul>`) too.
                tag if parent_item != NONE && (is_composition(tag) || is_list) => parent_item,
                tag if later_above != NONE
                    && (is_composition(tag) || is_list || text_container(tag, false)) =>
                {
                    later_above
                }
                _ => NONE,
            };
            (item_text[i], cell_text[i]) = match &*e.tag {
                "li" | "dt" | "dd" => (i as u32, NONE),
                "td" | "th" => (NONE, i as u32),
                _ => (holds(parent_item, false), holds(parent_cell, true)),
            };
            match (&*e.tag, e.parent) {
                ("dt", Some(dl)) => {
                    last_term.insert(dl, i as u32);
                }
                ("dd", Some(dl)) => {
                    if let Some(&dt) = last_term.get(&dl) {
                        term_of.insert(i as u32, dt);
                    }
                }
                _ => {}
            }
            let inherited = e.parent.map_or(NONE, |p| table_of[p as usize]);
            table_of[i] = if e.tag == "table" {
                if inherited != NONE {
                    complex[inherited as usize] = true;
                }
                i as u32
            } else {
                inherited
            };
            match (&*e.tag, e.parent) {
                // An `<ol>` counts the number of its next item, from its `start`.
                // Counted as the page counts, each item's number clamped: a list from -1
                // is numbered 0, 0, 1.
                ("ol", _) => {
                    let start = match own {
                        Some(Layout::Start(n) | Layout::Reversed(Some(n))) => n,
                        Some(Layout::Reversed(None)) => {
                            reversed.get(&(i as u32)).copied().map_or(0, i64::from)
                        }
                        _ => 1,
                    };
                    counted[i] = start;
                }
                // Its `<ol>`'s, through wrappers (`<ol><div><li>`), as a browser counts.
                ("li", _) if tag(list_of(&owner, e)) == "ol" => {
                    let ol = list_of(&owner, e).map_or(i, |ol| ol as usize);
                    let n = match own {
                        Some(Layout::Value(n)) => n,
                        _ => counted[ol],
                    };
                    position[i] = number(n);
                    let step = if reversed.contains_key(&(ol as u32)) {
                        -1
                    } else {
                        1
                    };
                    counted[ol] = n.saturating_add(step);
                }
                ("tr", _) if table_of[i] != NONE => {
                    let t = table_of[i];
                    counted[t as usize] += 1;
                    position[i] = counted[t as usize] as u32;
                    if spanned.0 != t {
                        spanned = (t, Vec::new());
                    }
                }
                // A row counts the next free column, after the cells before it and those
                // that rows above span into it.
                ("td" | "th", Some(tr)) if tag(e.parent) == "tr" => {
                    let tr = tr as usize;
                    let row = position[tr];
                    let this_table = spanned.0 == table_of[tr];
                    let taken = |c: u32| {
                        this_table && spanned.1.get(c as usize).is_some_and(|&last| last >= row)
                    };
                    let mut col = counted[tr] as u32;
                    while taken(col) {
                        col += 1;
                    }
                    let (cols, rows) = match own {
                        Some(Layout::Span { cols, rows }) => (cols, rows),
                        _ => (1, 1),
                    };
                    position[i] = col.saturating_add(1);
                    counted[tr] = i64::from(col.saturating_add(cols));
                    let end = col.saturating_add(cols) as usize;
                    if rows != 1 && this_table && end <= MAX_SPANNED_COLUMNS {
                        if spanned.1.len() < end {
                            spanned.1.resize(end, 0);
                        }
                        // 0: all the rows left.
                        let last = match rows {
                            0 => u32::MAX,
                            _ => row.saturating_add(rows - 1),
                        };
                        spanned.1[col as usize..end].fill(last);
                    }
                }
                _ => {}
            }
        }
        // How each block goes on from the block above, when both are in the same element and
        // laid out as running text: on the next line after a single `<br>` (or after any in a
        // heading), on the same line after only images or form fields.
        let joins: Vec<Join> = self
            .blocks
            .iter()
            .map(|b| {
                let Some(between) = breaks[b.index] else {
                    return Join::Paragraph;
                };
                let tag = &*self.elements[b.element as usize].tag;
                if b.preformatted.is_some()
                    || self.blocks[b.index - 1].preformatted.is_some()
                    || matches!(tag, "pre" | "listing")
                    || between.blocks
                {
                    return Join::Paragraph;
                }
                let heading = is_heading(tag);
                match between.brs {
                    0 if between.replaced => Join::SameLine,
                    1 => Join::Line,
                    // A heading is one heading however many lines it is cut into.
                    _ if heading => Join::Line,
                    _ => Join::Paragraph,
                }
            })
            .collect();
        // The one element that holds the text of each cell, or `None` when its blocks are in
        // several (`<td><p>…</p><p>…</p></td>`) or are paragraphs of one (`a<br><br>b`): such
        // a cell is laid out as paragraphs, and its table as text, as layout tables that hold
        // a page's columns are.
        let mut cell_element: FxHashMap<u32, Option<u32>> = FxHashMap::default();
        for b in &self.blocks {
            let cell = cell_text[b.element as usize];
            if cell == NONE {
                continue;
            }
            match cell_element.entry(cell) {
                Entry::Vacant(first) => {
                    first.insert(Some(b.element));
                }
                Entry::Occupied(mut held) => {
                    if *held.get() != Some(b.element) || joins[b.index] == Join::Paragraph {
                        held.insert(None);
                    }
                }
            }
        }
        // A cell's row and column among its table's, and whether it is a header cell, when
        // it is a row's own.
        let place = |cell: u32| {
            let tr = self.row_of(cell)?;
            Some((
                position[tr].saturating_sub(1),
                position[cell as usize].saturating_sub(1),
                self.elements[cell as usize].tag == "th",
            ))
        };
        // The item that each list item's first block began, by the item's element: the
        // item's later blocks are more of it. A description under a term is more of the term.
        let mut begun: FxHashMap<u32, ListItem> = FxHashMap::default();
        // The item laid out above that a quote or a table inside the list item `li` goes in:
        // the item, or the term of a description whose text has not begun.
        let above = |begun: &FxHashMap<u32, ListItem>, li: u32| {
            let term = || term_of.get(&li).and_then(|dt| begun.get(dt));
            begun.get(&li).or_else(term).copied()
        };
        let mut roles: Vec<Role> = self
            .blocks
            .iter()
            .map(|b| {
                let el = b.element as usize;
                let e = &self.elements[el];
                let table = table_of[el];
                let join = joins[b.index];
                let holder = item_text[el];
                let under_term = match tag((holder != NONE).then_some(holder)) {
                    "dd" if !begun.contains_key(&holder) => {
                        // A term without a block of its own has nothing to go under.
                        let term = term_of.get(&holder).and_then(|dt| begun.get(dt)).copied();
                        let term = term.map(|term| {
                            // On the line below the term's text (or a description above),
                            // as a browser shows it, when it comes right after it; a heading
                            // is a line of its own, as is what follows a heading or a list
                            // nested in the description.
                            let above = b.index.checked_sub(1).map(|k| self.blocks[k].element);
                            let line = above.is_some_and(|a| {
                                !is_heading(tag(Some(a)))
                                    && begun
                                        .get(&item_text[a as usize])
                                        .is_some_and(|i| i.element == term.element)
                            }) && !is_heading(&e.tag);
                            (term, if line { Join::Line } else { Join::Paragraph })
                        });
                        if let Some((term, _)) = term {
                            begun.insert(holder, term);
                        }
                        term
                    }
                    _ => None,
                };
                let mut item = |li: usize| {
                    if let Some(&item) = begun.get(&(li as u32)) {
                        return Role::ItemParagraph { item, join };
                    }
                    let list = list_of(&owner, &self.elements[li]).unwrap_or(li as u32);
                    let item = ListItem {
                        number: (tag(Some(list)) == "ol").then_some(position[li]),
                        depth: lists[li].max(1),
                        list,
                        element: li as u32,
                        // A description's list is in its term's item, as its text is.
                        in_item: (in_item[li] != NONE)
                            .then(|| term_of.get(&in_item[li]).copied().unwrap_or(in_item[li])),
                    };
                    begun.insert(li as u32, item);
                    Role::Item(item)
                };
                let role = match under_term {
                    Some((item, join)) => Role::ItemParagraph { item, join },
                    // A list item's text, paragraphs (`<li><p>…</p><p>…</p></li>`),
                    // divisions or code (`<li>Run:<pre>…</pre></li>`): the first is the item.
                    None if holder != NONE => item(holder as usize),
                    // A section or a button below the item's text: more of the item.
                    None if begun.contains_key(&later_in[el]) => Role::ItemParagraph {
                        item: begun[&later_in[el]],
                        join,
                    },
                    None => {
                        let cell = cell_text[el];
                        // A cell whose text one element holds.
                        let held = cell_element.get(&cell).is_some_and(Option::is_some);
                        match place(cell) {
                            Some((row, col, head)) if held && table != NONE => Role::Cell {
                                table,
                                row,
                                col,
                                head,
                                join,
                                item: above(&begun, in_item[table as usize])
                                    .map(|item| item.element),
                            },
                            // A quote inside an item whose text came above it.
                            _ => match above(&begun, quoted_in[el]) {
                                Some(item) => Role::ItemQuote { item, join },
                                // A table's caption, or a cell that is no one text, in an
                                // item whose text began above the table: more of the item.
                                None if table != NONE => {
                                    match above(&begun, in_item[table as usize]) {
                                        Some(item) => Role::ItemParagraph { item, join },
                                        None => Role::Text,
                                    }
                                }
                                None => Role::Text,
                            },
                        }
                    }
                };
                // A caption is the table's title, not a cell: Markdown puts it above.
                if table != NONE && !matches!(role, Role::Cell { .. }) && e.tag != "caption" {
                    complex[table as usize] = true;
                }
                role
            })
            .collect();
        for r in &mut roles {
            if let Role::Cell {
                table, item, join, ..
            } = *r
            {
                if complex[table as usize] {
                    // A table laid out as text inside an item laid out above is more of it.
                    *r = match item.and_then(|item| begun.get(&item)) {
                        Some(&item) => Role::ItemParagraph { item, join },
                        None => Role::Text,
                    };
                }
            }
        }
        // A text block after a single `<br>` is a line, one after an image goes on the line
        // above; so is one in a cell of a table that is laid out as text.
        for (r, &join) in roles.iter_mut().zip(&joins) {
            if *r == Role::Text {
                *r = join.as_text();
            }
        }
        // A mark is a cell's when the cell holds no block, in a row of a simple table.
        let marks = self
            .marks
            .iter()
            .filter_map(|m| {
                let el = m.element as usize;
                let (cell, table) = (*cell_text.get(el)?, table_of[el]);
                if cell == NONE
                    || table == NONE
                    || complex[table as usize]
                    || cell_element.contains_key(&cell)
                {
                    return None;
                }
                let (row, col, head) = place(cell)?;
                Some(CellMark {
                    text: m.text.clone(),
                    before: m.before,
                    table,
                    row,
                    col,
                    head,
                })
            })
            .collect();
        (roles, marks)
    }
}

/// What came between a block and the block above it in the same element ([`Page::roles`]).
#[derive(Debug, Clone, Copy, Default)]
struct Between {
    /// `<br>`s.
    brs: u8,
    /// An image or a form field (`<img>`, `<input>`).
    replaced: bool,
    /// Another block-level element.
    blocks: bool,
}

/// How a block goes on from the block above it in the same element, as a browser lays them
/// out ([`Role::ItemParagraph`], [`Role::Cell`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Join {
    /// As a paragraph of its own.
    #[default]
    Paragraph,
    /// On the next line: after a single `<br>` (after any number in a heading), or a
    /// description (`<dd>`) under its term.
    Line,
    /// On the same line, after only images or form fields.
    SameLine,
}

impl Join {
    /// The role of text outside lists and tables that goes on from the block above this way:
    /// [`Role::Text`], [`Role::Line`] or [`Role::SameLine`].
    pub fn as_text(self) -> Role {
        match self {
            Join::Paragraph => Role::Text,
            Join::Line => Role::Line,
            Join::SameLine => Role::SameLine,
        }
    }
}

/// Columns whose row spans [`Page::roles`] follows: a cell that spans rows beyond them is
/// placed as if it spanned one row, so that placing a cell of a hostile table costs at most
/// this many steps. Tables whose cells span rows are seldom so wide.
const MAX_SPANNED_COLUMNS: usize = 64;

/// What a block is in the page's structure ([`Page::roles`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Role {
    /// A paragraph, heading, quote or code: whatever its tag says.
    #[default]
    Text,
    /// An item of a list (`li`, `dt`, a `dd` without a term above it): its first block,
    /// which may be in a paragraph, division, heading or code inside the item
    /// (`<li><div>…</div></li>`, a card's `<li><h3>Name</h3><p>…</p></li>`).
    Item(ListItem),
    /// More of a list item whose text a block above began: its text after a `<br>` or after
    /// a block inside it, its second `<p>`, or the descriptions (`<dd>`) of a term (`<dt>`),
    /// each on a line of its own under the term ([`Join::Line`]).
    ItemParagraph {
        /// The item it is more of, as the item's first block names it: when that block is not
        /// kept, the first kept block of the item is laid out as the item.
        item: ListItem,
        /// How it goes on from the block above: as a [`Role::Line`] or a [`Role::SameLine`]
        /// does, or as a paragraph of its own.
        join: Join,
    },
    /// A paragraph of a quote inside a list item whose text a block above began
    /// (`<li>Text<blockquote>…</blockquote></li>`, a post of a forum's thread): Markdown
    /// writes it inside the item while the item is open above it (its text kept, no other
    /// text between), and as a quote of its own otherwise; the text format as text
    /// ([`Join::as_text`]).
    ItemQuote {
        /// The item that holds the quote.
        item: ListItem,
        /// How it goes on from the block above, as for [`Role::ItemParagraph`].
        join: Join,
    },
    /// A line of the paragraph above: text that follows the block above after a single
    /// `<br>` in the same element (`<p>Name<br>Street</p>`), or after any number of them in a
    /// heading, outside code and table cells. Elsewhere two `<br>` in a row, or a block
    /// element between, start a new paragraph. Markdown writes a heading's lines as one
    /// heading.
    Line,
    /// More of the line above: text that follows the block above in the same element after
    /// only images or form fields (`Click <img> to zoom`, `Qty <input> pcs`), which end a
    /// block but which a browser lays out inside the line; outside code and table cells.
    SameLine,
    /// Text of a cell of a simple table: a table whose every block is the text of one of its
    /// own cells, held by the cell itself or by one paragraph or division inside it
    /// (`<td><p>4.2 kg</p></td>`), and not cut into paragraphs (no second paragraph, no
    /// `<br><br>`, no code, lists or tables inside). Rows and columns count from 0 in
    /// document order.
    Cell {
        /// The `table` element ([`Page::elements`]).
        table: u32,
        /// The row among the table's rows.
        row: u32,
        /// The cell's first column: the columns that the cells before it in its row take
        /// (`colspan`) and those that cells of the rows above still take (`rowspan`) are
        /// passed over.
        col: u32,
        /// A header cell (`<th>`), whatever element inside it holds its text.
        head: bool,
        /// How it goes on from the cell's block above: on the next line after a single `<br>`
        /// (`<td>Steel<br>Powder coated</td>`), on the same line after an image. The first
        /// block of a cell is a [`Join::Paragraph`].
        join: Join,
        /// The list item that holds the table, when the item's text came above it
        /// (`<li>Versions:<table>…</table></li>`), as [`ListItem::element`] names it:
        /// Markdown writes the table inside the item.
        item: Option<u32>,
    },
}

/// A list item, as its blocks' roles name it ([`Role::Item`], [`Role::ItemParagraph`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListItem {
    /// Its number in its `<ol>`: the list's `start` (1 by default, or the number of items
    /// of a `reversed` list) for the first item, counting up (down in a `reversed` list),
    /// or the item's own `value`; clamped to 0 to 999,999,999, the numbers
    /// Markdown can write. `None` in other lists.
    pub number: Option<u32>,
    /// Lists around it: 1 for an item of a list that no other list holds.
    pub depth: u32,
    /// The element of its list (the `<ol>`, `<ul>` or `<dl>` that holds it): two lists in
    /// a row are two lists, each numbered from its own start.
    pub list: u32,
    /// The item's element (its `<li>`, `<dt>` or `<dd>`; a description's term, for the
    /// descriptions under it), which tells the blocks of one item from the next one's.
    pub element: u32,
    /// The list item that holds this one's list, if any (the `<li>` around its `<ul>`, maybe
    /// through a `<blockquote>` that indents it; the term of a description that holds it).
    pub in_item: Option<u32>,
}

/// How an element takes part in segmentation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Inline elements whose edges separate words even without whitespace (`<a>`, `<span>`,
    /// custom elements...): style sheets mostly lay them out apart, as menu entries, tags,
    /// grid cells or chart labels, and the text a reader sees has a break there.
    Inline,
    /// Inline markup that can sit inside a word (`H<sub>2</sub>O`, `<b>W</b>ord`): its edges
    /// join the text on both sides.
    Formatting,
    Block,
    /// A block-level element inside `<pre>`, as highlighters write a line of code (`<div
    /// class=line>`, a table's row): its edges end the code's line, and the code stays one
    /// block.
    Line,
    Skip,
}

/// Whether an element inside a list item (or, with `cell`, a table cell) is laid out as
/// part of the item's or the cell's text ([`Page::roles`]): inline elements, headings and the
/// containers that hold running text (code, in an item only: a table lays it out as text),
/// but not quotes, tables, lists, forms, the page's landmarks, nor an `<article>` or a
/// `<section>`, whole compositions that blogs and feeds put in list items.
fn text_container(tag: &str, cell: bool) -> bool {
    match kind_of(tag) {
        Kind::Inline | Kind::Formatting => true,
        // `Line` is no tag's own kind, only that of a block-level element inside `<pre>`.
        Kind::Skip | Kind::Line => false,
        Kind::Block if tag == "pre" => !cell,
        Kind::Block => {
            is_heading(tag)
                || matches!(
                    tag,
                    "div"
                        | "p"
                        | "header"
                        | "footer"
                        | "center"
                        | "address"
                        | "figure"
                        | "figcaption"
                        | "details"
                        | "summary"
                        | "hgroup"
                )
        }
    }
}

/// Whether an element inside a list item is a part of the page that the item holds (a
/// section, an aside, a form, a button), rather than text of the item ([`text_container`]).
fn is_composition(tag: &str) -> bool {
    matches!(
        tag,
        "article"
            | "aside"
            | "section"
            | "nav"
            | "main"
            | "form"
            | "fieldset"
            | "legend"
            | "button"
            | "dialog"
    )
}

/// Whether a tag is a heading's (`h1` to `h6`).
pub(crate) fn is_heading(tag: &str) -> bool {
    matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

fn kind_of(tag: &str) -> Kind {
    match tag {
        "script" | "style" | "title" | "template" | "svg" | "math" | "iframe" | "object"
        | "embed" | "select" | "textarea" | "head" | "canvas" | "video" | "audio" | "datalist"
        // What a browser with frames and plug-ins does not show; their content is raw text,
        // so markup and all would otherwise come out as words.
        | "noframes" | "noembed" => Kind::Skip,
        "address" | "article" | "aside" | "blockquote" | "body" | "br" | "button" | "caption"
        | "center" | "dd" | "details" | "dialog" | "dir" | "div" | "dl" | "dt" | "fieldset"
        | "figcaption" | "figure" | "footer" | "form" | "frameset" | "h1" | "h2" | "h3" | "h4"
        | "h5" | "h6" | "header" | "hgroup" | "hr" | "html" | "legend" | "li" | "main" | "menu"
        | "nav" | "ol" | "option" | "p" | "pre" | "section" | "summary" | "table" | "tbody"
        | "td" | "tfoot" | "th" | "thead" | "tr" | "ul" | "input" | "img" | "noscript" => {
            Kind::Block
        }
        "b" | "strong" | "i" | "em" | "u" | "s" | "strike" | "del" | "ins" | "sup" | "sub"
        | "small" | "big" | "mark" | "font" | "abbr" | "acronym" | "code" | "tt" | "kbd"
        | "var" | "samp" | "wbr" | "bdi" | "bdo" | "ruby" | "rt" | "rp" | "nobr" => {
            Kind::Formatting
        }
        _ => Kind::Inline,
    }
}

/// Tag names that get a precomputed [`TagInfo`] and need no allocation: every tag that
/// [`kind_of`] or [`tag_flags`] names, and common inline tags.
const KNOWN_TAGS: &[&str] = &[
    "a",
    "abbr",
    "acronym",
    "address",
    "article",
    "aside",
    "audio",
    "b",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "center",
    "cite",
    "code",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "form",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "main",
    "mark",
    "math",
    "menu",
    "nav",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "ol",
    "option",
    "p",
    "picture",
    "pre",
    "q",
    "s",
    "samp",
    "script",
    "section",
    "select",
    "small",
    "source",
    "span",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
];

/// What segmentation needs to know of a known tag name.
struct TagInfo {
    name: &'static str,
    kind: Kind,
    flags: u32,
}

/// The [`TagInfo`] of a tag in [`KNOWN_TAGS`], looked up by its interned name: matching the
/// name as a string against the tag lists costs more than the rest of an element's bookkeeping.
fn known_tag(name: &LocalName) -> Option<&'static TagInfo> {
    static KNOWN: OnceLock<FxHashMap<LocalName, TagInfo>> = OnceLock::new();
    KNOWN
        .get_or_init(|| {
            KNOWN_TAGS
                .iter()
                .map(|&name| {
                    let info = TagInfo {
                        name,
                        kind: kind_of(name),
                        flags: tag_flags(name),
                    };
                    (LocalName::from(name), info)
                })
                .collect()
        })
        .get(name)
}

fn tag_flags(tag: &str) -> u32 {
    match tag {
        "article" => ctx::ARTICLE,
        "main" => ctx::MAIN,
        "nav" | "menu" => ctx::NAV,
        "aside" => ctx::ASIDE,
        "header" => ctx::HEADER,
        "footer" => ctx::FOOTER,
        "form" => ctx::FORM,
        "figure" => ctx::FIGURE,
        "table" => ctx::TABLE,
        "ul" | "ol" | "dl" => ctx::LIST,
        "blockquote" => ctx::BLOCKQUOTE,
        "a" => ctx::ANCHOR,
        "button" => ctx::BUTTON,
        "noscript" => ctx::NOSCRIPT,
        _ => 0,
    }
}

fn role_flags(role: &str) -> u32 {
    match role.trim() {
        "article" => ctx::ARTICLE,
        "main" => ctx::MAIN,
        "navigation" | "menu" | "menubar" => ctx::NAV,
        "complementary" => ctx::ASIDE,
        "banner" => ctx::HEADER,
        "contentinfo" => ctx::FOOTER,
        "search" | "form" => ctx::FORM,
        "button" => ctx::BUTTON,
        "dialog" | "alertdialog" => ctx::V_OVERLAY,
        _ => 0,
    }
}

/// Substrings of class/id values and the bits they set. Matched case-insensitively.
const VOCABULARY: &[(&str, u32)] = &[
    ("nav", ctx::V_NAV),
    ("menu", ctx::V_NAV),
    ("breadcrumb", ctx::V_NAV),
    ("pagination", ctx::V_NAV),
    ("pager", ctx::V_NAV),
    ("toolbar", ctx::V_NAV),
    ("footer", ctx::V_FOOTER),
    ("copyright", ctx::V_FOOTER),
    ("colophon", ctx::V_FOOTER),
    ("sidebar", ctx::V_SIDEBAR),
    ("widget", ctx::V_SIDEBAR),
    ("comment", ctx::V_COMMENT),
    ("disqus", ctx::V_COMMENT),
    ("reply", ctx::V_COMMENT),
    ("share", ctx::V_SHARE),
    ("social", ctx::V_SHARE),
    ("related", ctx::V_RELATED),
    ("recommend", ctx::V_RELATED),
    ("popular", ctx::V_RELATED),
    ("trending", ctx::V_RELATED),
    ("cookie", ctx::V_OVERLAY),
    ("consent", ctx::V_OVERLAY),
    ("gdpr", ctx::V_OVERLAY),
    ("banner", ctx::V_OVERLAY),
    ("popup", ctx::V_OVERLAY),
    ("modal", ctx::V_OVERLAY),
    ("newsletter", ctx::V_OVERLAY),
    ("subscribe", ctx::V_OVERLAY),
    ("advert", ctx::V_AD),
    ("sponsor", ctx::V_AD),
    ("promo", ctx::V_AD),
    ("adsense", ctx::V_AD),
    ("header", ctx::V_HEADER),
    ("masthead", ctx::V_HEADER),
    ("byline", ctx::V_META),
    ("author", ctx::V_META),
    ("date", ctx::V_META),
    ("meta", ctx::V_META),
    ("tags", ctx::V_META),
    ("categor", ctx::V_META),
    ("article", ctx::V_ARTICLE),
    ("post", ctx::V_ARTICLE),
    ("entry", ctx::V_ARTICLE),
    ("story", ctx::V_ARTICLE),
    ("blog", ctx::V_ARTICLE),
    ("content", ctx::V_CONTENT),
    ("main", ctx::V_CONTENT),
    ("body", ctx::V_CONTENT),
    ("text", ctx::V_CONTENT),
    ("prose", ctx::V_CONTENT),
    ("markdown", ctx::V_CONTENT),
    ("product", ctx::V_PRODUCT),
    ("description", ctx::V_PRODUCT),
    ("detail", ctx::V_PRODUCT),
    ("spec", ctx::V_PRODUCT),
    ("hid", ctx::MAY_HIDE),
    ("none", ctx::MAY_HIDE),
    ("invisible", ctx::MAY_HIDE),
    ("sr-only", ctx::HIDDEN),
    ("screen-reader", ctx::HIDDEN),
];

fn vocabulary() -> &'static DFA {
    static AC: OnceLock<DFA> = OnceLock::new();
    AC.get_or_init(|| {
        DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .prefilter(false)
            .build(VOCABULARY.iter().map(|(w, _)| w))
            .expect("valid vocabulary")
    })
}

/// Vocabulary bits of a class/id/role/itemprop string.
fn vocab_flags(tokens: &str) -> u32 {
    // One pass: every occurrence of every word, with the automaton stepped by hand (an iterator
    // over overlapping matches costs several times more on strings this short), and the runs
    // of ASCII letters and digits. Short words match only as whole runs, or they would hit
    // "header", "load", "shadow"… (bytes of non-ASCII characters are not alphanumeric either).
    let short_word =
        |run: &[u8]| run.eq_ignore_ascii_case(b"ad") || run.eq_ignore_ascii_case(b"ads");
    let dfa = vocabulary();
    let mut sid = dfa
        .start_state(Anchored::No)
        .expect("unanchored vocabulary search");
    let mut bits = 0;
    let mut run_start = 0;
    let bytes = tokens.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        sid = dfa.next_state(Anchored::No, sid, b);
        if dfa.is_special(sid) && dfa.is_match(sid) {
            for m in 0..dfa.match_len(sid) {
                bits |= VOCABULARY[dfa.match_pattern(sid, m).as_usize()].1;
            }
        }
        if !b.is_ascii_alphanumeric() {
            if short_word(&bytes[run_start..i]) {
                bits |= ctx::V_AD;
            }
            run_start = i + 1;
        }
    }
    if short_word(&bytes[run_start..]) {
        bits |= ctx::V_AD;
    }
    bits
}

/// The `<meta>`s whose `content` segmentation reads, by the `name` or `property` that names
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OgMeta {
    /// `og:title`: the title a page gives for sharing.
    Title,
    /// `og:site_name`: the site's name.
    SiteName,
}

impl OgMeta {
    /// Which kept meta a `name` or `property` value (quotes taken off) names, if any.
    pub(crate) fn named(value: &[u8]) -> Option<OgMeta> {
        let v = value.trim_ascii();
        if v.eq_ignore_ascii_case(b"og:title") {
            Some(OgMeta::Title)
        } else if v.eq_ignore_ascii_case(b"og:site_name") {
            Some(OgMeta::SiteName)
        } else {
            None
        }
    }
}

/// Whether segmentation reads an attribute of this name on an element of this tag
/// ([`attribute_context`], [`layout_of`], the parser's placing of a shadow root's slotted
/// children, and a `<meta>`'s `og:title` or `og:site_name`): the parser keeps no other.
pub(crate) fn attribute_is_read(tag: &LocalName, local: &LocalName) -> bool {
    match *local {
        local_name!("role")
        | local_name!("class")
        | local_name!("id")
        | local_name!("itemprop")
        | local_name!("hidden")
        | local_name!("aria-hidden")
        | local_name!("style") => true,
        local_name!("slot") => true,
        local_name!("name") => matches!(*tag, local_name!("slot") | local_name!("meta")),
        local_name!("property") | local_name!("content") => *tag == local_name!("meta"),
        local_name!("start") | local_name!("reversed") => *tag == local_name!("ol"),
        local_name!("value") => *tag == local_name!("li"),
        local_name!("height") => *tag == local_name!("img"),
        local_name!("colspan") | local_name!("rowspan") => {
            matches!(*tag, local_name!("td") | local_name!("th"))
        }
        _ => false,
    }
}

/// Whether an element holds the line numbers that highlighters print beside code (Pygments,
/// Rouge, Hexo, Chroma): a reader copying the code leaves them out, and as text they are a run
/// of numbers in the page's words. Read only in `<pre>` and on a `<td>` or a `<pre>`, where
/// these classes sit; `gutter` elsewhere is a grid's spacing around content.
#[inline(never)]
fn numbers_lines(attrs: &[Attribute], tag: &str) -> bool {
    attribute(attrs, local_name!("class")).is_some_and(|class| {
        class.split_ascii_whitespace().any(|c| match c {
            "linenos" | "linenodiv" | "lineno" | "rouge-gutter" | "lnt" | "ln" | "line-number" => {
                true
            }
            "gutter" => tag == "td",
            _ => false,
        })
    })
}

/// Whether a class list hides its element from a reader of the desktop page, by the display
/// utilities of the common style frameworks: `hidden`, `hide`, `d-none`, `is-hidden`,
/// `invisible`… hide; a class for a width (Tailwind's `md:block`, `lg:hidden`; Bootstrap's
/// `d-md-block`, `d-lg-none`) overrides them from that width up, so a copy laid out for phones
/// only (`lg:hidden`) is hidden and one for wide screens only (`hidden md:flex`) is shown. The
/// desktop is taken as the `xl` width (1200 to 1280 pixels and up). Classes that hide overflow
/// (`overflow-hidden`) or hide at one width only (Bootstrap 3's `hidden-xs`) do not hide. Text
/// for screen readers only (`sr-only`, `screen-reader-text`) is in the vocabulary.
fn class_hides(value: &str) -> bool {
    const HIDING: [&str; 9] = [
        "hidden",
        "hide",
        "d-none",
        "is-hidden",
        "u-hidden",
        "invisible",
        "visually-hidden",
        "visuallyhidden",
        "element-invisible",
    ];
    // Widths up to the desktop's; `2xl` and `xxl` start above it.
    const WIDTHS: [&str; 4] = ["sm", "md", "lg", "xl"];
    const SHOWN: [&str; 9] = [
        "block",
        "flex",
        "inline",
        "inline-block",
        "inline-flex",
        "grid",
        "inline-grid",
        "table",
        "contents",
    ];
    // The widest width level (0: none) that says anything, and whether it hides. At one level
    // hiding wins, as the frameworks' style sheets put it last.
    let (mut level, mut hides) = (0usize, false);
    for token in value.split_ascii_whitespace() {
        // Class selectors match case-sensitively: `Hide` is not `hide`.
        let (at, hide) = if HIDING.contains(&token) {
            (0, true)
        } else if let Some((width, display)) = token
            .split_once(':')
            .or_else(|| token.strip_prefix("d-").and_then(|t| t.split_once('-')))
        {
            let Some(w) = WIDTHS.iter().position(|w| *w == width) else {
                continue;
            };
            if display == "hidden" || display == "none" {
                (w + 1, true)
            } else if SHOWN.contains(&display) {
                (w + 1, false)
            } else {
                continue;
            }
        } else {
            continue;
        };
        if at > level || (at == level && hide) {
            (level, hides) = (at, hide);
        }
    }
    hides
}

/// What an element's attributes say about it: its class/id/role/itemprop values, lower-cased
/// and space-separated, into `tokens`, and its context bits. `scratch` is a buffer.
fn attribute_context(attrs: &[Attribute], tokens: &mut String, scratch: &mut String) -> u32 {
    tokens.clear();
    let mut flags = 0;
    for Attribute { name, value } in attrs {
        let value: &str = value;
        // Interned names: each comparison is one integer comparison.
        let local = &name.local;
        let role = *local == local_name!("role");
        if role
            || *local == local_name!("class")
            || *local == local_name!("id")
            || *local == local_name!("itemprop")
        {
            if role {
                flags |= role_flags(value);
            }
            if !tokens.is_empty() {
                tokens.push(' ');
            }
            tokens.push_str(value.trim());
        } else if *local == local_name!("hidden") {
            flags |= ctx::HIDDEN;
        } else if *local == local_name!("aria-hidden") {
            if value.trim().eq_ignore_ascii_case("true") {
                flags |= ctx::HIDDEN;
            }
        } else if *local == local_name!("style") {
            scratch.clear();
            scratch.extend(value.chars().filter(|c| !c.is_whitespace()));
            scratch.make_ascii_lowercase();
            if scratch.contains("display:none") || scratch.contains("visibility:hidden") {
                flags |= ctx::HIDDEN;
            }
        }
    }
    tokens.make_ascii_lowercase();
    flags
}

/// The block being collected.
#[derive(Default)]
struct Pending {
    text: String,
    anchor_spans: Vec<(u32, u32)>,
    /// Links with a target, each with the number of its `<a>` in the page.
    links: Vec<(u32, Link)>,
    element: u32,
    inline_tags: u32,
    /// Whitespace was seen since the last word.
    space: bool,
    /// Edges of [`Kind::Inline`] elements passed since the last text: [`OPENED`], [`CLOSED`]
    /// or both. A word that follows a word across them is a new word ([`apart_at_edge`]).
    edges: u8,
    /// `text` holds a letter or digit: the block will be kept when flushed.
    has_word: bool,
    /// The text as it is, when it lies inside `<pre>`.
    pre: String,
    /// Some of the text lies outside `<pre>` (around a `<listing>`, which does not break
    /// blocks): the block has no layout of its own.
    outside_pre: bool,
}

struct Segmenter {
    page: Page,
    limits: SegmentLimits,
    pending: Pending,
    /// Open elements: (index into page.elements, kind).
    stack: Vec<(u32, Kind)>,
    /// Innermost open block-level element.
    block_stack: Vec<u32>,
    anchor_depth: u32,
    /// Open `<a>` elements when links are kept: each one's number and target, if it has one.
    links: Vec<Option<(u32, Arc<str>)>>,
    /// `<a>` elements entered so far.
    link_count: u32,
    skip_depth: u32,
    /// Open `<pre>` and `<listing>` elements.
    pre_depth: u32,
    /// Open `<q>` elements, whose depth picks the quotation marks.
    q_depth: u32,
    /// Open `<code>`, `<kbd>`, `<samp>` and `<tt>` elements: code outside `<pre>`, where
    /// punctuation at an inline element's edge joins as in `<pre>` ([`apart_at_edge`]).
    code_depth: u32,
    in_title: bool,
    title_done: bool,
    full: bool,
    /// Buffers for [`attribute_context`].
    tokens: String,
    /// Vocabulary bits of the token strings seen on this page: pages repeat long class lists,
    /// which cost more to match again than to look up.
    vocab_seen: FxHashMap<Arc<str>, u32>,
    /// The empty token list, shared by the elements without class or id.
    no_tokens: Arc<str>,
    scratch: String,
}

impl Segmenter {
    fn flush(&mut self) {
        let p = &mut self.pending;
        p.space = false;
        p.edges = 0;
        if p.text.is_empty() {
            p.inline_tags = 0;
            p.anchor_spans.clear();
            p.links.clear();
            p.pre.clear();
            p.outside_pre = false;
            return;
        }
        if p.has_word && !self.full {
            self.page.blocks.push(Block {
                index: self.page.blocks.len(),
                text: std::mem::take(&mut p.text),
                anchor_spans: std::mem::take(&mut p.anchor_spans),
                links: p.links.drain(..).map(|(_, link)| link).collect(),
                element: p.element,
                inline_tags: p.inline_tags,
                preformatted: if p.outside_pre {
                    None
                } else {
                    laid_out(&p.pre)
                },
            });
            self.full = self.page.blocks.len() >= self.limits.max_blocks;
        } else if !p.has_word && !self.full && self.page.marks.len() < self.limits.max_blocks {
            let text = p.text.trim();
            if !text.is_empty() && text.chars().nth(MAX_MARK_CHARS).is_none() {
                self.page.marks.push(Mark {
                    text: text.to_string(),
                    element: p.element,
                    before: self.page.blocks.len(),
                });
            }
        }
        p.pre.clear();
        p.outside_pre = false;
        p.text.clear();
        p.anchor_spans.clear();
        p.links.clear();
        p.inline_tags = 0;
        p.has_word = false;
    }

    fn text(&mut self, s: &str) {
        if self.in_title {
            if !self.title_done {
                push_collapsed(&mut self.page.title, &without_controls(s), &mut false);
            }
            return;
        }
        if self.skip_depth > 0 {
            return;
        }
        if self.full {
            self.page.truncated = self.page.truncated || s.chars().any(char::is_alphanumeric);
            return;
        }
        let s = &*without_controls(s);
        let p = &mut self.pending;
        if p.text.is_empty() {
            p.element = *self.block_stack.last().unwrap_or(&0);
        }
        let code = self.pre_depth > 0 || self.code_depth > 0;
        let edges = std::mem::take(&mut p.edges);
        let edge = edges > 0 && apart_at_edge(&p.text, s, code, edges);
        if edge {
            // `1990</span><span>1991`, `Home</a><a>News`; but `a link</a>,` stays as it is.
            p.space = true;
        }
        if self.pre_depth > 0 {
            // The laid-out text has the words of the collapsed one.
            if edge && !p.pre.ends_with(char::is_whitespace) {
                p.pre.push(' ');
            }
            p.pre.push_str(s);
        } else if !p.outside_pre && s.bytes().any(|b| !b.is_ascii_whitespace()) {
            p.outside_pre = true;
        }
        let before = p.text.len();
        let (start, has_word) = push_collapsed(&mut p.text, s, &mut p.space);
        p.has_word |= has_word;
        if self.anchor_depth > 0 && p.text.len() > before {
            let (start, end) = (start as u32, p.text.len() as u32);
            match p.anchor_spans.last_mut() {
                Some(last) if last.1 >= start.saturating_sub(1) => last.1 = end,
                _ => p.anchor_spans.push((start, end)),
            }
            // The pieces of one link's text make one span, a space between them included.
            if let Some(Some((number, target))) = self.links.last() {
                match p.links.last_mut() {
                    Some((n, last)) if n == number => last.span.1 = end,
                    _ => p.links.push((
                        *number,
                        Link {
                            span: (start, end),
                            target: Arc::clone(target),
                        },
                    )),
                }
            }
        }
    }

    /// Keeps the page's first `og:title` and `og:site_name`, from a `<meta property=…>` or, as
    /// some sites write it, `<meta name=…>`: the parser keeps the `content` of no other
    /// `<meta>`.
    fn read_meta(&mut self, attrs: &[Attribute]) {
        let which = attrs
            .iter()
            .filter(|a| matches!(a.name.local, local_name!("name") | local_name!("property")))
            .find_map(|a| OgMeta::named(a.value.as_bytes()));
        let field = match which {
            Some(OgMeta::Title) => &mut self.page.og_title,
            Some(OgMeta::SiteName) => &mut self.page.site_name,
            None => return,
        };
        if let (true, Some(content)) = (field.is_empty(), attribute(attrs, local_name!("content")))
        {
            push_collapsed(field, &without_controls(content), &mut false);
        }
    }

    fn enter(&mut self, el: &kuchikiki::ElementData, attrs: &[Attribute]) -> bool {
        let local = &el.name.local;
        let known = known_tag(local);
        let (name, kind) = match known {
            Some(t) => (t.name, t.kind),
            None => (&**local, kind_of(local)),
        };
        if name == "meta" && (self.page.og_title.is_empty() || self.page.site_name.is_empty()) {
            self.read_meta(attrs);
        }
        if self.limits.links && name == "base" && self.page.base.is_none() {
            // As in a browser, the first `<base>` with an `href` sets the page's base.
            self.page.base = attribute(attrs, local_name!("href")).map(str::to_string);
        }
        if kind == Kind::Skip || self.skip_depth > 0 {
            // Skipped subtrees are not walked, except `head` for the `title` inside it.
            let descend = match name {
                "head" => self.skip_depth == 0,
                "title" => !self.title_done && self.skip_depth <= 1,
                _ => false,
            };
            self.in_title |= name == "title" && descend;
            self.skip_depth += 1;
            return descend;
        }
        if (self.pre_depth > 0 || matches!(name, "td" | "pre")) && numbers_lines(attrs, name) {
            self.skip_depth += 1;
            return false;
        }
        let parent = self.stack.last().map(|&(i, _)| i);
        let (parent_flags, parent_vocab, depth) = match parent {
            Some(p) => {
                let e = &self.page.elements[p as usize];
                (e.flags, e.nearest_vocab, e.depth + 1)
            }
            None => (0, 0, 1),
        };
        let attr_flags = attribute_context(attrs, &mut self.tokens, &mut self.scratch);
        // Pages repeat the same class lists: each is matched and stored once.
        let (tokens, vocab) = if self.tokens.is_empty() {
            (Arc::clone(&self.no_tokens), 0)
        } else if let Some((tokens, &bits)) = self.vocab_seen.get_key_value(self.tokens.as_str()) {
            (Arc::clone(tokens), bits)
        } else {
            let bits = vocab_flags(&self.tokens);
            let tokens: Arc<str> = self.tokens.as_str().into();
            self.vocab_seen.insert(Arc::clone(&tokens), bits);
            (tokens, bits)
        };
        // The class is read closely only when its letters could name a hiding class, which
        // the vocabulary tells once per distinct class list.
        let attr_flags = if vocab & ctx::MAY_HIDE != 0
            && attribute(attrs, local_name!("class")).is_some_and(class_hides)
        {
            attr_flags | ctx::HIDDEN
        } else {
            attr_flags
        };
        let vocab = vocab & !ctx::MAY_HIDE;
        // In `<pre>`, a `<br>` is a line break of the code, as a newline is: the text goes on.
        // So is the edge of an element that highlighters put a line in (a `<div>`, a list's
        // item, a table's row), but not of a table's cell, which holds a line's number or
        // its code. Other block-level elements there (a copy button, an image), and hidden
        // ones (a "Copied!" tip), stay blocks.
        let own_hidden = (attr_flags | vocab) & ctx::HIDDEN != 0;
        let kind = match kind {
            Kind::Block if self.pre_depth > 0 && !own_hidden => match name {
                "br" => {
                    self.text("\n");
                    Kind::Formatting
                }
                "td" | "th" => Kind::Inline,
                "div" | "p" | "li" | "ul" | "ol" | "table" | "tbody" | "thead" | "tfoot" | "tr"
                | "pre" => {
                    self.end_code_line();
                    Kind::Line
                }
                _ => kind,
            },
            kind => kind,
        };
        if kind == Kind::Block {
            self.flush();
        }
        let index = self.page.elements.len() as u32;
        let first_block = self.page.blocks.len() as u32;
        self.page.elements.push(Element {
            first_block,
            end_block: first_block,
            tag: match known {
                Some(t) => Cow::Borrowed(t.name),
                None => Cow::Owned(name.to_string()),
            },
            tokens,
            parent,
            depth,
            end: index,
            flags: parent_flags
                | known.map_or_else(|| tag_flags(name), |t| t.flags)
                | attr_flags
                | vocab,
            nearest_vocab: if vocab & (ctx::V_BOILER | ctx::V_GOOD) != 0 {
                vocab
            } else {
                parent_vocab
            },
        });
        if !attrs.is_empty() {
            if let Some(layout) = layout_of(name, attrs) {
                self.page.layout.push((index, layout));
            }
        }
        self.stack.push((index, kind));
        if let Some(depth) = self.code_depth_of(local) {
            *depth += 1;
        }
        match kind {
            Kind::Block => self.block_stack.push(index),
            _ => {
                if kind == Kind::Inline {
                    self.pending.edges |= OPENED;
                }
                self.pending.inline_tags += 1;
                if *local == local_name!("q") {
                    self.quote_mark(true);
                }
                if name == "a" {
                    self.anchor_depth += 1;
                    if self.limits.links {
                        let target = attribute(attrs, local_name!("href")).and_then(link_target);
                        self.link_count += 1;
                        self.links.push(target.map(|t| (self.link_count, t)));
                    }
                }
            }
        }
        true
    }

    /// The count of open elements that an element of this name adds to: `<pre>` and
    /// `<listing>` keep their layout, `<code>`, `<kbd>`, `<samp>` and `<tt>` are code outside
    /// them.
    fn code_depth_of(&mut self, name: &LocalName) -> Option<&mut u32> {
        // Interned names compare as integers: this runs for every element.
        match *name {
            local_name!("pre") | local_name!("listing") => Some(&mut self.pre_depth),
            local_name!("code") | local_name!("kbd") | local_name!("samp") | local_name!("tt") => {
                Some(&mut self.code_depth)
            }
            _ => None,
        }
    }

    /// The quotation mark that a browser puts where a `<q>` opens or closes: double ones, and
    /// single ones inside another `<q>`. (Rare: kept out of the path of every element.)
    #[cold]
    #[inline(never)]
    fn quote_mark(&mut self, open: bool) {
        if open {
            self.q_depth += 1;
        }
        let outer = self.q_depth % 2 == 1;
        self.text(match (open, outer) {
            (true, true) => "“",
            (true, false) => "‘",
            (false, true) => "”",
            (false, false) => "’",
        });
        if !open {
            self.q_depth -= 1;
        }
    }

    /// Ends the line of code in `<pre>` that the block's text holds, if it has begun.
    fn end_code_line(&mut self) {
        if !self.pending.pre.is_empty() && !self.pending.pre.ends_with('\n') {
            self.text("\n");
        }
    }

    fn leave(&mut self, el: &kuchikiki::ElementData) {
        let local = &el.name.local;
        if self.skip_depth > 0 {
            self.skip_depth -= 1;
            if *local == local_name!("title") && self.in_title {
                self.in_title = false;
                self.title_done = !self.page.title.is_empty();
            }
            return;
        }
        let Some((index, kind)) = self.stack.pop() else {
            return;
        };
        if let Some(depth) = self.code_depth_of(local) {
            *depth = depth.saturating_sub(1);
        }
        match kind {
            Kind::Block => {
                self.flush();
                self.block_stack.pop();
            }
            Kind::Line => self.end_code_line(),
            _ => {
                if *local == local_name!("q") && self.q_depth > 0 {
                    self.quote_mark(false);
                }
                if kind == Kind::Inline {
                    self.pending.edges |= CLOSED;
                }
                if *local == local_name!("a") {
                    self.anchor_depth = self.anchor_depth.saturating_sub(1);
                    self.links.pop();
                }
            }
        }
        // Pending text becomes a block only if it has a word (see `flush`).
        let pending = u32::from(self.pending.has_word && !self.full);
        let end_block = self.page.blocks.len() as u32 + pending;
        let last = self.page.elements.len() as u32 - 1;
        let e = &mut self.page.elements[index as usize];
        e.end = last;
        e.end_block = end_block;
    }
}

/// The layout of a block's text inside `<pre>`: its lines without trailing whitespace and
/// without blank lines at either end; `None` when that is one line without runs of spaces,
/// which the collapsed text already shows.
fn laid_out(pre: &str) -> Option<String> {
    // From the start of the first line with text to the end of the text, without a list of
    // lines: a page may hold millions of them.
    let first = pre.find(|c: char| !c.is_whitespace())?;
    let start = pre[..first].rfind('\n').map_or(0, |i| i + 1);
    let body = pre[start..].trim_end();
    let mut out = String::with_capacity(body.len());
    for (i, line) in body.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line.trim_end());
    }
    let plain = !out.contains('\n')
        && !out.starts_with(char::is_whitespace)
        && !out.contains("  ")
        && !out.contains('\t');
    (!plain).then_some(out)
}

/// `s` with each control character but whitespace (`&#x1b;`, BEL, DEL) as a space: a reader
/// sees none of them, and in text written to a terminal an escape character starts a command.
/// U+0080 to U+009F are read as the windows-1252 characters of those bytes (`we\u{92}re` is
/// `we’re`), as a page mis-encoded from windows-1252 meant them; the five that windows-1252
/// leaves undefined are spaces too. The invisible characters inside words (soft hyphen, zero
/// width space, word joiner, zero width no-break space) go, as a browser shows the word
/// whole (`assis\u{ad}tance` is `assistance`); the joiners that emoji and Indic scripts
/// need (U+200C, U+200D) stay.
fn without_controls(s: &str) -> Cow<'_, str> {
    let hidden = |c: char| c.is_control() && !c.is_ascii_whitespace();
    let unseen = |c: char| matches!(c, '\u{ad}' | '\u{200b}' | '\u{2060}' | '\u{feff}');
    // Bytes first (most text has none of these): C0 controls and DEL, then the first bytes
    // of the others: 0xC2 (U+0080 to U+00BF), 0xE2 and 0xEF. Folded without an early exit
    // or a table, so that the compiler checks many bytes per instruction: this runs over
    // every text node. Curly quotes and CJK punctuation start with 0xE2 and 0xEF too: a
    // text with a first byte is looked at where those bytes stand.
    let control = |b: u8| {
        let c0 = (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != 0x0c) & (b != b'\r');
        c0 | (b == 0x7f)
    };
    let suspect = s.bytes().fold(false, |seen, b| {
        seen | control(b) | ((b | 0x20) == 0xe2) | (b == 0xef)
    });
    if !suspect || !(s.bytes().fold(false, |seen, b| seen | control(b)) || has_hidden(s.as_bytes()))
    {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .filter(|&c| !unseen(c))
            .map(|c| match u8::try_from(u32::from(c)) {
                Ok(b @ 0x80..=0x9f) => encoding_rs::WINDOWS_1252
                    .decode_without_bom_handling(&[b])
                    .0
                    .chars()
                    .find(|c| !hidden(*c))
                    .unwrap_or(' '),
                _ if hidden(c) => ' ',
                _ => c,
            })
            .collect(),
    )
}

/// Whether UTF-8 text holds a character of two or three bytes that [`without_controls`]
/// changes: U+0080 to U+009F, U+00AD, U+200B, U+2060 or U+FEFF, looked for at their first
/// bytes only.
fn has_hidden(b: &[u8]) -> bool {
    memchr::memchr3_iter(0xc2, 0xe2, 0xef, b).any(|i| {
        let next = |k: usize| b.get(i + k).copied();
        match b[i] {
            0xc2 => matches!(next(1), Some(0x80..=0x9f | 0xad)),
            0xe2 => matches!(
                (next(1), next(2)),
                (Some(0x80), Some(0x8b)) | (Some(0x81), Some(0xa0))
            ),
            _ => (next(1), next(2)) == (Some(0xbb), Some(0xbf)),
        }
    })
}

/// The bytes of [`u8::is_ascii_whitespace`], as a table: one load per byte in the hot loop.
static ASCII_SPACE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = (c as u8).is_ascii_whitespace();
        c += 1;
    }
    t
};

/// A link's target from its `href`: without the whitespace that browsers strip from it
/// (around it, and tabs and line breaks inside); none for an empty one, a place on the page
/// itself (`#…`), a script (`javascript:`, `vbscript:`), inline data (`data:`) or a file on
/// the author's own computer (`file:`), which lead a reader of the text nowhere.
fn link_target(href: &str) -> Option<Arc<str>> {
    let href = href.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
    let mut target = String::with_capacity(href.len());
    for c in href.chars() {
        match c {
            '\t' | '\n' | '\r' => {}
            // As a browser's URL parser does: a control character is written as `%XX`.
            c if c.is_control() => {
                let mut utf8 = [0u8; 4];
                for b in c.encode_utf8(&mut utf8).bytes() {
                    let _ = write!(target, "%{b:02X}");
                }
            }
            c => target.push(c),
        }
    }
    let scheme = target.split_once(':').map(|(scheme, _)| scheme);
    let nowhere = scheme.is_some_and(|s| {
        ["javascript", "vbscript", "data", "file"]
            .iter()
            .any(|n| s.eq_ignore_ascii_case(n))
    });
    (!target.is_empty() && !target.starts_with('#') && !nowhere).then(|| Arc::from(target))
}

/// Append `s` to `buf` with whitespace collapsed; returns the byte offset where the first word
/// of `s` landed, and whether `s` has a letter or digit. `space` carries "whitespace seen since
/// the last word" across calls.
fn push_collapsed(buf: &mut String, s: &str, space: &mut bool) -> (usize, bool) {
    if !s.is_ascii() {
        let has_word = s.chars().any(char::is_alphanumeric);
        return (push_collapsed_unicode(buf, s, space), has_word);
    }
    // ASCII (most text): copied in runs that need no change (words and single spaces),
    // letters looked for on the way.
    let body = s.trim_ascii();
    if body.is_empty() {
        // Most text nodes are the whitespace between tags.
        *space |= !s.is_empty();
        return (buf.len(), false);
    }
    if (*space || s.starts_with(char::is_whitespace)) && !buf.is_empty() {
        buf.push(' ');
    }
    let first = buf.len();
    let b = body.as_bytes();
    // Most text has a letter or digit near its start.
    let has_word = b.iter().any(u8::is_ascii_alphanumeric);
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if !ASCII_SPACE[usize::from(b[i])] {
            i += 1;
            continue;
        }
        // The body ends with a word, so a run of whitespace inside it ends before its end.
        let run = i;
        while ASCII_SPACE[usize::from(b[i])] {
            i += 1;
        }
        if i - run > 1 || b[run] != b' ' {
            buf.push_str(&body[copied..run]);
            buf.push(' ');
            copied = i;
        }
    }
    buf.push_str(&body[copied..]);
    *space = s.ends_with(char::is_whitespace);
    (first, has_word)
}

/// [`push_collapsed`] for text with non-ASCII characters.
fn push_collapsed_unicode(buf: &mut String, s: &str, space: &mut bool) -> usize {
    let mut first = None;
    for (i, word) in s.split_whitespace().enumerate() {
        let sep = i > 0 || *space || s.starts_with(char::is_whitespace);
        if sep && !buf.is_empty() {
            buf.push(' ');
        }
        first.get_or_insert(buf.len());
        buf.push_str(word);
    }
    *space = first.is_none() || s.ends_with(char::is_whitespace);
    first.unwrap_or(buf.len())
}

/// An inline element's start was passed ([`Pending::edges`]).
const OPENED: u8 = 1;
/// An inline element's end was passed ([`Pending::edges`]).
const CLOSED: u8 = 2;

/// Whether the text that follows an inline element's edge, `after`, starts a word of its own
/// after a block's text so far, `before`: style sheets lay such elements out apart (chart
/// labels `1990</span><span>1991`, menus `Home</a><a>News`, `X (Twitter)</a><a>Dribbble`, a
/// price and the price it replaces `$129.99</span><span>$149.99`, a chart's shares
/// `72%</span><span>16%`). So letters or digits on both sides, unless a drop cap or two
/// letters of a script whose text runs on there ([`runs_on`]); and, outside
/// code (`<pre>`, `<code>`…: `map[string]string`, `$1$2`, `x[i:j]`), a currency sign between
/// a digit before it and a letter after it, or before a digit and after a letter or digit;
/// a `)`, `]` or `%` before a letter or digit; a `:`, `!` or `?` after a letter, before a
/// letter or digit (`Location:Roanoke`, `Welcome!Log in`); a `,` or `;` between letters
/// (`Weiss,Senior Editor`); or a `.` after a letter or a digit, before a capital that starts
/// a phrase (`regulation.The brain`, `U.S.News and`). Other
/// punctuation stays where it is: `the link</a>,`, `$79.</span><span>99`, `[4,</a><a>5]`,
/// `requests</span>.<span>get`.
fn apart_at_edge(before: &str, after: &str, code: bool, edges: u8) -> bool {
    let (Some(b), Some(a)) = (before.chars().next_back(), after.chars().next()) else {
        return false;
    };
    if b.is_alphanumeric() && a.is_alphanumeric() {
        // Edges only opened or only closed, the text on one side not in an element of its
        // own, and a word of letters going on in lower case: one word (`iPhone</a>s`,
        // `develop</span>ers`, `iPhone</span></a>s`; but a lone capital, as of an index, stays
        // apart). Between two elements (`</a><a>`), two words.
        let one_sided = edges != OPENED | CLOSED;
        let word_before = || before.chars().nth_back(1).is_some_and(char::is_alphabetic);
        if one_sided && b.is_alphabetic() && a.is_lowercase() && word_before() {
            return false;
        }
        return !(drop_cap(before, after) || one_sided && runs_on(b) && runs_on(a));
    }
    if code {
        return false;
    }
    let prev = before.chars().nth_back(1);
    if b.is_alphanumeric() {
        // `$129.99$149.99`, `was$540`: a sign written before its amount.
        currency(a) && after[a.len_utf8()..].starts_with(|c: char| c.is_ascii_digit())
    } else if matches!(b, ')' | ']' | '%') {
        a.is_alphanumeric()
    } else if b == '.' {
        // `regulation.</a><span>The brain`, `01.</span><span>Can`, `U.S.</a><a>News and`: a
        // sentence's or an abbreviation's end before a phrase. Not a price's cents
        // (`$79.</span><span>99`), nor a name that holds no space (`json.</span><span>JSONDecoder`,
        // `GardenWith.</span><span>Me`).
        a.is_uppercase()
            && prev.is_some_and(char::is_alphanumeric)
            && after.trim_end().contains(char::is_whitespace)
    } else if matches!(b, ':' | '!' | '?') {
        // `Location:</span><span>Roanoke`, `Welcome!</span><a>Log in`; not `std::</span>`,
        // `16:</span><span>58` or `(!</span><span>x`.
        a.is_alphanumeric() && prev.is_some_and(char::is_alphabetic)
    } else if matches!(b, ',' | ';') {
        // `Weiss,</a><span>Senior Editor`; not a footnote's number (`life,<sup>1</sup>`) nor
        // a list of references (`[4,</a><a>5]`).
        a.is_alphabetic() && prev.is_some_and(char::is_alphabetic)
    } else {
        // `149€Current`: a sign written after its amount. Not before a digit, as a sign in a
        // span of its own can start the next price (`$129.99</span><span>$</span><span>99`).
        currency(b) && a.is_alphabetic() && prev.is_some_and(|c| c.is_ascii_digit())
    }
}

/// Letters of scripts whose text runs on across one inline element's edge between two of
/// them, as a browser shows it: those written without spaces between words
/// (`请阅读<a>这篇文章</a>，`), and Hangul, whose particles follow the noun a link holds
/// (`<a>이 글</a>을`). Between two elements (a menu's `首页</a><a>新闻`) or beside a Latin
/// word, the edge still separates.
fn runs_on(c: char) -> bool {
    crate::features::spaceless(c) != crate::features::Spaceless::No
        || matches!(c, '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' | '\u{AC00}'..='\u{D7AF}')
}

/// A currency sign: `$ ¢ £ ¤ ¥` and Unicode's block of currency symbols (`€ ₹ ₽ ₩ ₺`…).
fn currency(c: char) -> bool {
    matches!(c, '$' | '¢' | '£' | '¤' | '¥' | '\u{20A0}'..='\u{20CF}')
}

/// Whether a block's text so far, `before`, is a drop cap of the text that follows it across
/// an inline element's edge: one capital letter, after an opening quote or bracket if any, the
/// word going on in lower case (`<span class=dropcap>T</span>he`, `“T</span>he`), which is one
/// word, not two.
fn drop_cap(before: &str, after: &str) -> bool {
    // Read from the end, so that a long text before an edge is not read again at each edge.
    let mut back = before.chars().rev();
    back.next().is_some_and(char::is_uppercase)
        && after.starts_with(char::is_lowercase)
        && back.all(|c| matches!(c, '"' | '\'' | '“' | '‘' | '«' | '„' | '(' | '['))
}

/// Elements deeper than this are dropped (their text is kept) before parsing: the HTML tree
/// builder does work proportional to the depth of open elements at each tag, so a page nested
/// 100,000 deep would take minutes. Nesting that this estimate misses (stray end tags or
/// elements left open by the thousand) is bounded while parsing: past a few times this many
/// open elements looked at per node made, or 2^30 in the page, the rest of the page is
/// dropped and the page marked as cut ([`Page::truncated`]).
pub const MAX_NESTING: usize = 2048;

/// A tag name of up to eight bytes, lower-cased, as one integer (little-endian, zero-padded):
/// names of [`flatten_deep_nesting`] (ASCII letters, digits, `-`, `:`) are lower-cased by
/// setting bit 5, and hold no zero byte, so two names have the same key only when equal.
const fn name_key(name: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < name.len() {
        key |= ((name[i] | 0x20) as u64) << (8 * i);
        i += 1;
    }
    key
}

/// Tag names whose end tag may be omitted, or that have no end tag: they are not counted when
/// estimating nesting, as an unclosed `<p>` or `<br>` does not nest. Keys of [`name_key`],
/// sorted for a binary search.
const NEVER_NESTS: [u64; 33] = {
    let names: [&[u8]; 33] = [
        b"area",
        b"base",
        b"body",
        b"br",
        b"col",
        b"colgroup",
        b"dd",
        b"dt",
        b"embed",
        b"head",
        b"hr",
        b"html",
        b"img",
        b"input",
        b"li",
        b"link",
        b"meta",
        b"option",
        b"optgroup",
        b"p",
        b"param",
        b"rb",
        b"rp",
        b"rt",
        b"source",
        b"tbody",
        b"td",
        b"tfoot",
        b"th",
        b"thead",
        b"tr",
        b"track",
        b"wbr",
    ];
    let mut keys = [0u64; 33];
    let mut i = 0;
    while i < names.len() {
        keys[i] = name_key(names[i]);
        i += 1;
    }
    // Insertion sort: a `const` block cannot call `sort`.
    let mut i = 1;
    while i < keys.len() {
        let mut j = i;
        while j > 0 && keys[j - 1] > keys[j] {
            let t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    keys
};

/// Bytes of a tag name as [`flatten_deep_nesting`] reads it.
static NAME_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'-' || b == b':';
        c += 1;
    }
    t
};

/// Drop start and end tags nested deeper than `max_depth` (keeping all text), or return the
/// input as it is when nothing nests that deep.
fn flatten_deep_nesting(html: &str, max_depth: usize) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    // Only start tags nest, so nesting deeper than `max_depth` needs more start tags than that:
    // most pages have fewer, and counting them costs less than following the nesting.
    let mut starts = 0usize;
    let mut at = 0usize;
    while let Some(off) = memchr::memchr(b'<', &bytes[at..]) {
        at += off + 1;
        if bytes.get(at).is_some_and(u8::is_ascii_alphabetic) {
            starts += 1;
            if starts > max_depth {
                break;
            }
        }
    }
    if starts <= max_depth {
        return Cow::Borrowed(html);
    }
    // Pass 1 finds whether anything is to be done; pass 2 copies without the deep tags.
    let mut out: Option<String> = None;
    for pass in 0..2 {
        let mut depth = 0usize;
        let mut copied = 0usize;
        let mut i = 0usize;
        let mut deep = false;
        while let Some(off) = memchr::memchr(b'<', &bytes[i..]) {
            let start = i + off;
            i = start + 1;
            let closing = match bytes.get(i) {
                Some(b'!') => {
                    if bytes[i..].starts_with(b"!--") {
                        i = memchr::memmem::find(&bytes[i..], b"-->")
                            .map_or(bytes.len(), |e| i + e + 3);
                    }
                    continue;
                }
                Some(b'/') => true,
                Some(c) if c.is_ascii_alphabetic() => false,
                _ => continue,
            };
            let name_start = i + usize::from(closing);
            if !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
                continue;
            }
            // The name, packed into a key on the way while it is short enough to be one.
            let mut key = 0u64;
            let mut end = name_start;
            while end < bytes.len() && NAME_BYTE[usize::from(bytes[end])] {
                if end - name_start < 8 {
                    key |= u64::from(bytes[end] | 0x20) << (8 * (end - name_start));
                }
                end += 1;
            }
            if end - name_start <= 8 && NEVER_NESTS.binary_search(&key).is_ok() {
                continue;
            }
            let too_deep = if closing {
                let d = depth;
                depth = depth.saturating_sub(1);
                d > max_depth
            } else {
                depth += 1;
                depth > max_depth
            };
            if !too_deep {
                continue;
            }
            deep = true;
            if let Some(o) = out.as_mut() {
                let end =
                    memchr::memchr(b'>', &bytes[start..]).map_or(bytes.len(), |e| start + e + 1);
                o.push_str(&html[copied..start]);
                copied = end;
                i = end;
            }
        }
        match (pass, deep) {
            (0, false) => return Cow::Borrowed(html),
            (0, true) => out = Some(String::with_capacity(html.len())),
            _ => {
                let mut o = out.take().unwrap_or_default();
                o.push_str(&html[copied..]);
                return Cow::Owned(o);
            }
        }
    }
    Cow::Borrowed(html)
}

/// Parse an HTML document and cut it into blocks.
pub fn segment(html: &str, limits: SegmentLimits) -> Result<Page> {
    limits.check()?;
    // Decided for the whole page: a text node of its own may not show that it is mojibake.
    let mend = crate::html::double_encoded(html);
    let html = flatten_deep_nesting(html, MAX_NESTING);
    let parsed = parse::parse(&html, limits.max_nodes, limits.links)?;
    let mut page = segment_dom(
        &parsed.document,
        &parsed.attributes,
        parsed.elements,
        limits,
        mend,
    )?;
    page.truncated |= parsed.cut;
    Ok(page)
}

/// Segments a parsed page; `mend` reads its text once more as UTF-8
/// ([`crate::html::mend_double_utf8`]).
fn segment_dom(
    document: &NodeRef,
    attributes: &parse::Attributes,
    elements: usize,
    limits: SegmentLimits,
    mend: bool,
) -> Result<Page> {
    let mut s = Segmenter {
        page: Page::default(),
        limits,
        pending: Pending::default(),
        stack: Vec::new(),
        block_stack: Vec::new(),
        anchor_depth: 0,
        links: Vec::new(),
        link_count: 0,
        skip_depth: 0,
        pre_depth: 0,
        q_depth: 0,
        code_depth: 0,
        in_title: false,
        title_done: false,
        full: false,
        tokens: String::new(),
        vocab_seen: FxHashMap::default(),
        no_tokens: Arc::from(""),
        scratch: String::new(),
    };
    // Every element the walk enters was attached by the parser: room for all of them at once,
    // rather than copying the list as it grows.
    s.page.elements.reserve_exact(elements);
    let mut nodes = 0usize;
    // Iterative pre/post-order walk over first-child / next-sibling / parent links.
    let Some(mut node) = document.first_child() else {
        return Ok(s.page);
    };
    'walk: loop {
        nodes += 1;
        if nodes > limits.max_nodes {
            let plural = if limits.max_nodes == 1 { "" } else { "s" };
            return Err(Error::TooLarge(format!(
                "more than {} DOM node{plural}",
                limits.max_nodes
            )));
        }
        let descend = match node.data() {
            NodeData::Element(el) => s.enter(el, attributes.of(&node)),
            NodeData::Text(t) => {
                // An empty text node stands for whitespace (see `parse`).
                let t = t.borrow();
                if t.is_empty() {
                    s.text(" ");
                } else if mend {
                    s.text(&crate::html::mend_double_utf8(&t));
                } else {
                    s.text(&t);
                }
                false
            }
            _ => false,
        };
        if descend {
            if let Some(child) = node.first_child() {
                node = child;
                continue;
            }
        }
        loop {
            if let NodeData::Element(el) = node.data() {
                s.leave(el);
            }
            if let Some(next) = node.next_sibling() {
                node = next;
                continue 'walk;
            }
            match node.parent() {
                Some(parent) if !matches!(parent.data(), NodeData::Document(_)) => node = parent,
                _ => break 'walk,
            }
        }
    }
    s.flush();
    if mend {
        // Read from an attribute, not from the text nodes mended on the way.
        s.page.og_title = crate::html::mend_double_utf8(&s.page.og_title).into_owned();
        s.page.site_name = crate::html::mend_double_utf8(&s.page.site_name).into_owned();
    }
    Ok(s.page)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(html: &str) -> Vec<String> {
        segment(html, SegmentLimits::default())
            .unwrap()
            .blocks
            .into_iter()
            .map(|b| b.text)
            .collect()
    }

    #[test]
    fn limits_of_zero_are_refused() {
        for (limits, name) in [
            (
                SegmentLimits {
                    max_nodes: 0,
                    ..SegmentLimits::default()
                },
                "max_nodes",
            ),
            (
                SegmentLimits {
                    max_blocks: 0,
                    ..SegmentLimits::default()
                },
                "max_blocks",
            ),
        ] {
            let err = segment("<p>Text.</p>", limits).unwrap_err().to_string();
            assert_eq!(
                err,
                format!("invalid setting: the limit {name} must be above zero")
            );
        }
    }

    #[test]
    fn the_first_og_title_and_site_name_are_read_and_no_other_meta() {
        let page = "<meta name=description content=D><meta name=og:site_name content=' A  site '>\
                    <meta property=og:title content=T><meta property=og:site_name content=B>\
                    <meta property=og:title content=U><p>Text.</p>";
        let p = segment(page, SegmentLimits::default()).unwrap();
        assert_eq!((p.og_title.as_str(), p.site_name.as_str()), ("T", "A site"));
        let p = segment(
            "<meta name=description content=D><p>x",
            SegmentLimits::default(),
        );
        let p = p.unwrap();
        assert_eq!((p.og_title.as_str(), p.site_name.as_str()), ("", ""));
    }

    #[test]
    fn text_encoded_twice_is_mended_in_the_whole_page_once_it_shows() {
        // The references of `isn’t` encoded twice, as a site that writes every letter beyond
        // ASCII as a reference has them; a link and the title of the same page are mended too,
        // `Ã©` among them, though alone they would not show it.
        let page = "<title>Caf&Atilde;&copy;</title><p>It isn&acirc;&euro;&trade;t \
                    <a href=x>na&Atilde;&macr;ve</a>, \u{c3}\u{a9}.</p>";
        let p = segment(page, SegmentLimits::default()).unwrap();
        assert_eq!(p.title, "Café");
        let shared = "<meta property=og:site_name content='Caf&Atilde;&copy;s'>\
                      <meta property=og:title content='Caf&Atilde;&copy; na&Atilde;&macr;ve'>";
        let p = segment(&format!("{shared}{page}"), SegmentLimits::default()).unwrap();
        assert_eq!(p.og_title, "Café naïve");
        assert_eq!(p.site_name, "Cafés");
        assert_eq!(p.blocks[0].text, "It isn’t naïve, é.");
        // The link's span covers the mended word.
        let (from, to) = p.blocks[0].anchor_spans[0];
        assert_eq!(&p.blocks[0].text[from as usize..to as usize], "naïve");
        // The same characters as written: mended, a bare `Ã©` too.
        assert_eq!(texts("<p>isnâ€™t \u{c3}\u{a9}</p>"), ["isn’t é"]);
        // As numeric references, which the parser reads as windows-1252 in 128 to 159.
        assert_eq!(texts("<p>isn&#226;&#128;&#153;t</p>"), ["isn’t"]);
        assert_eq!(texts("<p>isn&#xe2;&#x20ac;&#x2122;t</p>"), ["isn’t"]);
        // A page that does not show it keeps its `Ã©`: it may be meant.
        assert_eq!(
            texts("<p>I saw \"\u{c3}\u{a4}\" instead of \"ä\"</p>"),
            ["I saw \"\u{c3}\u{a4}\" instead of \"ä\""]
        );
    }

    #[test]
    fn inline_elements_do_not_break_blocks() {
        assert_eq!(
            texts("<p>One <b>bold</b> and <a href=x>a link</a>, <span>end</span>.</p>"),
            ["One bold and a link, end."]
        );
        assert_eq!(texts("<p>foo<b>bar</b> baz</p>"), ["foobar baz"]);
    }

    #[test]
    fn quotations_get_the_marks_a_browser_shows() {
        assert_eq!(
            texts("<p>She said <q>take <q>this</q> one</q>, and left.</p><p><q></q>x</p>"),
            ["She said “take ‘this’ one”, and left.", "“”x"]
        );
        // The marks are punctuation: the words on either side of them stay apart or joined as
        // the markup has them.
        assert_eq!(texts("<p>a<q>b</q>c</p>"), ["a“b”c"]);
    }

    #[test]
    fn words_on_both_sides_of_an_inline_element_edge_are_two_words() {
        // Laid out apart by style sheets: chart labels, menu entries, tags.
        assert_eq!(
            texts("<div><span>1990</span><span>1991</span><span>1992</span></div>"),
            ["1990 1991 1992"]
        );
        assert_eq!(
            texts("<div><a href=/>Home</a><a href=/n>News</a></div>"),
            ["Home News"]
        );
        assert_eq!(texts("<p>Price<my-badge>New</my-badge></p>"), ["Price New"]);
        // Across one edge, a word going on in lower case is one word; across two, two.
        assert_eq!(
            texts("<p><a href=/i>iPhone</a>s and <span class=hl>develop</span>ers</p>"),
            ["iPhones and developers"]
        );
        assert_eq!(
            texts("<div><span>Mac</span><span>book</span></div>"),
            ["Mac book"]
        );
        assert_eq!(
            texts("<p><a href=/i><span>iPhone</span></a>s and <a>new<b>ly</b></a><span><i>ish</i></span></p>"),
            ["iPhones and newly ish"]
        );
        // Scripts written without spaces, and Korean particles, run on across an edge.
        assert_eq!(
            texts("<p>请阅读<a href=/a>这篇文章</a>，或者参考<span>国家标准</span>中的规定。</p>"),
            ["请阅读这篇文章，或者参考国家标准中的规定。"]
        );
        assert_eq!(
            texts("<p>詳しくは<a href=/j>こちらのページ</a>をご覧ください。</p>"),
            ["詳しくはこちらのページをご覧ください。"]
        );
        assert_eq!(
            texts("<div><a>English</a><a>简体中文</a><a>日本語</a><a>Español</a></div>"),
            ["English 简体中文 日本語 Español"]
        );
        assert_eq!(
            texts("<p>자세한 내용은 <a href=/k>이 글</a>을 참고하세요.</p>"),
            ["자세한 내용은 이 글을 참고하세요."]
        );
        assert_eq!(
            texts("<div><a>로그인</a><a>회원가입</a><span>서울</span><span>부산</span></div>"),
            ["로그인 회원가입 서울 부산"]
        );
        assert_eq!(
            texts("<p>อ่าน<a href=/t>บทความนี้</a>ได้</p>"),
            ["อ่านบทความนี้ได้"]
        );
        // Punctuation next to an edge stays where it is.
        assert_eq!(
            texts("<p>See <a href=x>the link</a>, (<span>aside</span>).</p>"),
            ["See the link, (aside)."]
        );
        // In code, even a `.` before a phrase joins.
        assert_eq!(
            texts("<p><span>os.</span><span>Exit now</span> <code><span>os.</span><span>Exit now</span></code></p>"),
            ["os. Exit now os.Exit now"]
        );
        // A closing bracket or a share beside a word, but not in code.
        assert_eq!(
            texts("<p><a>X (Twitter)</a><a>Dribbble</a> <span>[–]</span><a>user</a> <span>72%</span><span>16%</span><span>4</span>% <span>(81)</span><span>81 reviews</span></p>"),
            ["X (Twitter) Dribbble [–] user 72% 16% 4% (81) 81 reviews"]
        );
        assert_eq!(
            texts("<pre><span>map[string]</span><span>string</span></pre>"),
            ["map[string]string"]
        );
        assert_eq!(
            texts("<p>Slice <code><span>x</span>[<span>i</span>:<span>j</span>]<span>y</span></code></p>"),
            ["Slice x[i:j]y"]
        );
        // A label's colon, an exclamation, a question after a word; not in code, a path, a
        // time, a negation, a price's cents or a list of references.
        assert_eq!(
            texts("<p><span>x</span>:<span>int</span></p><pre><span>x</span>:<span>int</span></pre><p><kbd><span>Ctrl</span>:<span>S</span></kbd></p>"),
            ["x: int", "x:int", "Ctrl:S"]
        );
        assert_eq!(
            texts("<p><b>Location:</b><span>Roanoke</span> <b>Score:</b><span>5</span> <span>Welcome!</span><a>Log in</a> <span>Why?</span><a>See</a></p>"),
            ["Location: Roanoke Score: 5 Welcome! Log in Why? See"]
        );
        assert_eq!(
            texts("<p><code>std::</code><span>result</span> <span>16:</span><span>58</span> <code>(!</code><span>x)</span> <span>$79.</span><span>99</span> <a>[4,</a><a>5]</a></p>"),
            ["std::result 16:58 (!x) $79.99 [4,5]"]
        );
        // A comma or a semicolon between words; not before a footnote's number, nor in code.
        assert_eq!(
            texts("<p><a>Shari Weiss,</a><span>Senior Editor</span> <span>news;</span><a>sports</a> battery life,<sup>1</sup> <code><span>f(a,</span><span>b)</span></code></p>"),
            ["Shari Weiss, Senior Editor news; sports battery life,1 f(a,b)"]
        );
        // A sentence's end before the next phrase; not an API's name or a brand.
        assert_eq!(
            texts("<p><a>Read the study.</a><span>The brain can change.</span> <span>01.</span><span>Can I?</span> <a>U.S.</a><a>News and</a></p><dt><span>class json.</span><span>JSONDecoder</span>(<span>Placeholder</span>) <span>GardenWith.</span><span>Me</span></dt>"),
            ["Read the study. The brain can change. 01. Can I? U.S. News and", "class json.JSONDecoder(Placeholder) GardenWith.Me"]
        );
        // A price's sign beside a word or another price, before or after its amount.
        assert_eq!(
            texts("<p><span>$129.99</span><span>$149.99</span> was<span>$540</span></p>"),
            ["$129.99 $149.99 was $540"]
        );
        assert_eq!(
            texts("<p><b>149€</b><span>Current</span> <i>25</i><span>€</span> <i>Ab</i><span>€9</span> <span>100₹</span><span>Sale</span></p>"),
            ["149€ Current 25€ Ab €9 100₹ Sale"]
        );
        // A sign in a span of its own may start the next price: left as it is, not cut
        // after the sign. In code, `$1$2` is two variables of a shell.
        assert_eq!(
            texts("<p><span>$</span><span>129.99</span><span>$</span><span>99.99</span></p><pre><span>$1</span><span>$2</span></pre>"),
            ["$129.99$99.99", "$1$2"]
        );
        // A sign that is not between an amount and a word stays: `US$`, `$HOME`, `5%`.
        assert_eq!(
            texts("<p><span>US$</span><span>100</span> <span>echo</span><span>$HOME</span> <span>5</span><span>%</span></p>"),
            ["US$100 echo$HOME 5%"]
        );
        // Markup that can sit inside a word joins.
        assert_eq!(
            texts("<p>H<sub>2</sub>O, <b>W</b>ord, x<sup>2</sup>, <em>un</em>usual</p>"),
            ["H2O, Word, x2, unusual"]
        );
        // A drop cap opens its paragraph's first word; an index of capitals stays apart.
        assert_eq!(
            texts("<p><span class=dropcap>T</span>he story. <span>A</span>nd more.</p>"),
            ["The story. A nd more."]
        );
        assert_eq!(
            texts("<p><span class=dropcap>“T</span>he story,” she said.</p>"),
            ["“The story,” she said."]
        );
        assert_eq!(
            texts("<p><a href=/a>A</a><a href=/b>B</a><a href=/c>c</a></p>"),
            ["A B c"]
        );
    }

    #[test]
    fn whitespace_between_inline_elements_is_one_space() {
        // Whitespace between tags is kept as an empty node (see `parse`), and text that
        // follows it in the same node keeps the space.
        assert_eq!(texts("<p><b>one</b>\n<i>two</i></p>"), ["one two"]);
        assert_eq!(
            texts("<p><b>one</b>\n\n  two \n three</p>"),
            ["one two three"]
        );
        assert_eq!(texts("<p><b>one</b><i>two</i></p>"), ["onetwo"]);
        assert_eq!(texts("<p>\n\n<b>one</b>&amp;\ntwo</p>"), ["one& two"]);
        // Text misplaced in a table is moved before it (foster parenting), where it joins the
        // whitespace node there.
        assert_eq!(
            texts("<div><b>one</b>\n<table>two<tr><td>three</td></tr></table></div>"),
            ["one two", "three"]
        );
    }

    #[test]
    fn text_inside_pre_keeps_its_layout_beside_the_collapsed_text() {
        // Highlighted code: tokens in `<span>`s, line breaks and indentation between them.
        let html = "<p>Run  it:</p><pre><code><span>fn</span> <span>main</span>() {\n    \
                    <span>call</span>();\n\n    <a>x</a><span>y</span>\n  <span>z</span>\n}\n\n</code></pre>\
                    <pre>one   line</pre><pre>  indented</pre><pre>plain line</pre>\
                    <listing>a\n b</listing><div>before <listing>c\n d</listing> after</div>\
                    <pre><br>$ make<br>\n  <span>$ make</span><br><b>install</b><br></pre>\
                    <pre><code><div>fn a() {</div><div>    b();</div><div><br></div><div>}</div></code></pre>\
                    <pre><table><tr><td></td><td>def f(x):</td></tr><tr><td>2</td><td>  return x</td></tr>\
                    <tr><td></td><td>])</td></tr></table></pre>\
                    <pre><button>Copy</button><div>x = 1</div><div>y = 2</div><div hidden>Copied!</div></pre>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let got: Vec<(&str, Option<&str>)> = page
            .blocks
            .iter()
            .map(|b| (b.text.as_str(), b.preformatted.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("Run it:", None),
                (
                    "fn main() { call(); x y z }",
                    Some("fn main() {\n    call();\n\n    x y\n  z\n}")
                ),
                ("one line", Some("one   line")),
                ("indented", Some("  indented")),
                ("plain line", None),
                ("a b", Some("a\n b")),
                ("before c d after", None),
                // A `<br>` breaks a line of code as a newline does, not the block.
                ("$ make $ make install", Some("$ make\n\n  $ make\ninstall")),
                // So do a highlighter's lines in elements of their own (rows of a table,
                // whose cells hold a line's number and its code): the code stays one block,
                // lines of no letter (`}`) in it.
                ("fn a() { b(); }", Some("fn a() {\n    b();\n\n}")),
                (
                    "def f(x): 2 return x ])",
                    Some("def f(x):\n2  return x\n])")
                ),
                // A copy button and a hidden tip stay blocks of their own.
                ("Copy", None),
                ("x = 1 y = 2", Some("x = 1\ny = 2")),
                ("Copied!", None),
            ],
            "the collapsed text is the one features read; the layout has the same words"
        );
    }

    #[test]
    fn line_numbers_beside_code_are_left_out() {
        let got = |html: &str| -> Vec<(String, Option<String>)> {
            let page = segment(html, SegmentLimits::default()).unwrap();
            page.blocks
                .into_iter()
                .map(|b| (b.text, b.preformatted))
                .collect()
        };
        let code = |text: &str, layout: &str| vec![(text.to_string(), Some(layout.to_string()))];
        // Pygments' table: the numbers in a cell of their own, in a `<pre>` of their own.
        assert_eq!(
            got(
                "<table class=highlighttable><tr><td class=linenos><div class=linenodiv>\
                 <pre>1\n2</pre></div></td><td class=code><div class=highlight>\
                 <pre>x = 1\ny = 2</pre></div></td></tr></table>"
            ),
            code("x = 1 y = 2", "x = 1\ny = 2")
        );
        // Pygments inline, and Chroma (Hugo) inline: a number in each line of the code.
        assert_eq!(
            got("<pre><span class=linenos>1</span>x = 1\n<span class=\"linenos special\">2</span>y = 2</pre>"),
            code("x = 1 y = 2", "x = 1\ny = 2")
        );
        assert_eq!(
            got("<pre><code><span class=line><span class=ln>1</span><span class=cl>x = 1\n</span></span>\
                 <span class=line><span class=ln>2</span><span class=cl>y = 2</span></span></code></pre>"),
            code("x = 1 y = 2", "x = 1\ny = 2")
        );
        // Rouge (Jekyll) and Hexo: the numbers in the table's first cell.
        assert_eq!(
            got("<table class=rouge-table><tr><td class=\"rouge-gutter gl\"><pre class=lineno>1\n2</pre></td>\
                 <td class=rouge-code><pre>x = 1\ny = 2</pre></td></tr></table>"),
            code("x = 1 y = 2", "x = 1\ny = 2")
        );
        assert_eq!(
            got("<figure class=highlight><table><tr><td class=gutter><pre><span class=line>1</span><br>\
                 <span class=line>2</span></pre></td><td class=code><pre><span class=line>x = 1</span><br>\
                 <span class=line>y = 2</span></pre></td></tr></table></figure>"),
            code("x = 1 y = 2", "x = 1\ny = 2")
        );
        // A grid's `gutter` holds content, and so does a number outside code.
        assert_eq!(
            got("<div class=gutter><p>Kept text</p></div><p><span class=ln>7</span> items</p>"),
            [
                ("Kept text".to_string(), None),
                ("7 items".to_string(), None)
            ]
        );
    }

    #[test]
    fn block_elements_and_br_break_blocks() {
        assert_eq!(
            texts("<div>before <p>para</p> after<br>next line</div><ul><li>one<li>two</ul>"),
            ["before", "para", "after", "next line", "one", "two"]
        );
    }

    #[test]
    fn skipped_elements_and_title() {
        let page = segment(
            "<html><head><title>  My \n Title </title><style>p{}</style><script>var x=1</script></head>\
             <body><script>alert(1)</script><p>Kept text</p>\
             <svg><text>svg text</text></svg><template><p>tpl</p></template>\
             <select><option>opt</option></select><noembed><p>no plug-in</p></noembed>\
             <noframes><p>no frames</p></noframes></body></html>",
            SegmentLimits::default(),
        )
        .unwrap();
        assert_eq!(page.title, "My Title");
        let t: Vec<_> = page.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(t, ["Kept text"]);
    }

    #[test]
    fn declarative_shadow_roots_are_read_where_a_browser_shows_them() {
        // The root's content takes the host's place; the host's children go into the slots
        // of their names, in place of the fallback; a child no slot takes is not shown.
        let page = "<nav>Menu</nav><my-story><template shadowrootmode=open><style>p{}</style>\
                    <h1><slot name=title>Untitled</slot></h1><div><slot></slot></div>\
                    <p><slot name=gone>Fallback shown</slot></p><slot>second default</slot>\
                    </template><span slot=title>Headline</span><p>First paragraph.</p>\
                    loose text<span slot=nowhere>never shown</span></my-story><p>After</p>";
        assert_eq!(
            texts(page),
            [
                "Menu",
                "Headline",
                "First paragraph.",
                "loose text",
                "Fallback shown",
                "second default",
                "After"
            ]
        );
        // A root without slots hides the host's children.
        assert_eq!(
            texts("<div><template shadowrootmode=closed><p>Shadow</p></template>light</div>"),
            ["Shadow"]
        );
    }

    #[test]
    fn nested_and_refused_shadow_roots() {
        // A host inside a root, and a host slotted into a root: each takes its own children.
        let nested = "<x-outer><template shadowrootmode=open><p>outer <slot></slot></p>\
                      <x-inner><template shadowrootmode=open><p>inner <slot></slot></p>\
                      </template>in inner</x-inner></template>\
                      <x-slotted><template shadowrootmode=open><b><slot></slot></b>!</template>\
                      slotted</x-slotted></x-outer>";
        assert_eq!(texts(nested), ["outer slotted!", "inner in inner"]);
        // As in a browser, the second root of a host, a root on an element that cannot host
        // one, and a template whose mode is not a mode stay templates, which are skipped.
        let refused = "<div><template shadowrootmode=open><p>first</p><slot></slot></template>\
                       <template shadowrootmode=open><p>second</p></template>light</div>\
                       <ul><template shadowrootmode=open><li>in ul</li></template><li>li</li></ul>\
                       <span><template shadowrootmode=wide>wide</template>span</span>";
        assert_eq!(texts(refused), ["first", "light", "li", "span"]);
    }

    #[test]
    fn blocks_without_words_are_dropped() {
        assert_eq!(texts("<p> | </p><p>— · —</p><p>ok 1</p>"), ["ok 1"]);
    }

    #[test]
    fn anchor_spans_cover_link_text() {
        let page = segment(
            "<p>Read <a href=a>the <b>full</b> story</a> now <a href=b>here</a></p>",
            SegmentLimits::default(),
        )
        .unwrap();
        let b = &page.blocks[0];
        assert_eq!(b.text, "Read the full story now here");
        let spans: Vec<&str> = b
            .anchor_spans
            .iter()
            .map(|&(s, e)| &b.text[s as usize..e as usize])
            .collect();
        assert_eq!(spans, ["the full story", "here"]);
    }

    #[test]
    fn control_characters_are_not_text() {
        // An escape character written as a reference and raw, BEL, DEL and U+0090 (C1): none
        // reaches the text, the title, the site name or a link's target as it is; U+0092 is
        // windows-1252's right quote.
        let html = "<title>Ti&#x1b;[31mtle</title><meta property=og:site_name content='S\u{7}ite'>\
                    <p>Red&#x1b;[31m alert \u{1b}]0;owned\u{7} a\u{0}b \u{90}c\u{7f}d we\u{92}re</p>\
                    <pre>x\u{1b}[2Jy</pre><p><a href='/a\u{1b}b'>link</a></p>";
        let links = SegmentLimits {
            links: true,
            ..SegmentLimits::default()
        };
        let page = segment(html, links).unwrap();
        assert_eq!(page.title, "Ti [31mtle");
        assert_eq!(page.site_name, "S ite");
        let texts: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            // The parser drops a NUL in text itself.
            ["Red [31m alert ]0;owned ab c d we’re", "x [2Jy", "link"]
        );
        assert_eq!(&*page.blocks[2].links[0].target, "/a%1Bb");
        // Text without them is borrowed as it is, non-breaking spaces, joiners and all.
        assert!(matches!(
            without_controls("a\u{a0}b © “q” \u{1f469}\u{200d}\u{1f52c} ，"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn text_is_borrowed_exactly_when_no_character_changes() {
        // The byte-level check agrees with the characters that change, for every character,
        // alone and between letters.
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let changes = (c.is_control() && !c.is_ascii_whitespace())
                || matches!(c, '\u{ad}' | '\u{200b}' | '\u{2060}' | '\u{feff}');
            for s in [c.to_string(), format!("a{c}b")] {
                assert_eq!(
                    matches!(without_controls(&s), Cow::Owned(_)),
                    changes,
                    "U+{:04X}",
                    u32::from(c)
                );
            }
        }
    }

    #[test]
    fn invisible_characters_inside_words_go() {
        // A soft hyphen (raw and as `&shy;`), a zero width space, a word joiner and a zero
        // width no-break space: the words are whole, in the text, the title and the collapsed
        // and laid-out text of code; a zero width joiner stays.
        let html = "<title>Assis&shy;tance</title><p>assis\u{ad}tance zero&#8203;width \
                    word\u{2060}joiner H\u{feff}ow \u{1f469}\u{200d}\u{1f52c}</p>\
                    <pre>let  x\u{ad} = 1;</pre>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        assert_eq!(page.title, "Assistance");
        let texts: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "assistance zerowidth wordjoiner How \u{1f469}\u{200d}\u{1f52c}",
                "let x = 1;"
            ]
        );
        assert_eq!(page.blocks[1].preformatted.as_deref(), Some("let  x = 1;"));
    }

    #[test]
    fn links_keep_their_targets_when_asked_for() {
        let html = "<p>Read <a href=' /story?id=1&amp;p=2\n'>the <b>full</b> story</a> \
                    <a href=/b>here</a><a href=/c>there</a> <a href=#top>top</a> \
                    <a href=JavaScript:go()>go</a> <a href=file:///C:/x>file</a> <a>none</a></p>\
                    <a href=/card><h3>Card title</h3><p>Card text</p></a>";
        let links = SegmentLimits {
            links: true,
            ..SegmentLimits::default()
        };
        let page = segment(html, links).unwrap();
        let found: Vec<Vec<(&str, &str)>> = page
            .blocks
            .iter()
            .map(|b| {
                b.links
                    .iter()
                    .map(|l| (&b.text[l.span.0 as usize..l.span.1 as usize], &*l.target))
                    .collect()
            })
            .collect();
        // One span per link, the pieces of its text joined; links side by side apart; no
        // target for a place on the page, a script, a local file or a link without `href`;
        // a link around blocks gives each of them its target.
        assert_eq!(
            found,
            [
                vec![
                    ("the full story", "/story?id=1&p=2"),
                    ("here", "/b"),
                    ("there", "/c")
                ],
                vec![("Card title", "/card")],
                vec![("Card text", "/card")],
            ]
        );
        // Not asked for: no targets, the same blocks and anchor spans.
        let plain = segment(html, SegmentLimits::default()).unwrap();
        assert!(plain.blocks.iter().all(|b| b.links.is_empty()));
        let without = |p: &Page| -> Vec<Block> {
            p.blocks
                .iter()
                .map(|b| Block {
                    links: Vec::new(),
                    ..b.clone()
                })
                .collect()
        };
        assert_eq!(without(&plain), without(&page));
    }

    /// Each block's text with its role.
    fn texts_and_roles(page: &Page) -> Vec<(&str, Role)> {
        let texts = page.blocks.iter().map(|b| b.text.as_str());
        texts.zip(page.roles()).collect()
    }

    /// The element of the page's `i`th `tag`.
    fn nth_element(page: &Page, tag: &str, i: usize) -> u32 {
        let mut found = page
            .elements
            .iter()
            .enumerate()
            .filter(|(_, e)| e.tag == tag);
        found.nth(i).unwrap().0 as u32
    }

    /// The first item of the first `<ul>` of a page, a list in no other list.
    /// The unnumbered item that is the `item.1`th `item.0` element, in the `list.1`th
    /// `list.0` element, which no other list holds.
    fn top_item(page: &Page, list: (&str, usize), item: (&str, usize)) -> ListItem {
        ListItem {
            number: None,
            depth: 1,
            list: nth_element(page, list.0, list.1),
            element: nth_element(page, item.0, item.1),
            in_item: None,
        }
    }

    fn first_bullet(page: &Page) -> ListItem {
        top_item(page, ("ul", 0), ("li", 0))
    }

    #[test]
    fn items_wrapped_in_divisions_belong_to_the_list_around_them() {
        let html =
            "<ol start=\"3\"><div><li>three</li></div><div><li>four</li><li>five</li></div></ol>\
                    <ol reversed><div><li>two</li></div><li>one</li></ol>\
                    <dl><div><dt>term</dt><dd>meaning</dd></div><div><dt>next</dt></div></dl>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let item = |number, list: (&str, usize), li: (&str, usize)| {
            Role::Item(ListItem {
                number,
                ..top_item(&page, list, li)
            })
        };
        let term = top_item(&page, ("dl", 0), ("dt", 0));
        assert_eq!(
            texts_and_roles(&page),
            [
                ("three", item(Some(3), ("ol", 0), ("li", 0))),
                ("four", item(Some(4), ("ol", 0), ("li", 1))),
                ("five", item(Some(5), ("ol", 0), ("li", 2))),
                // A reversed list counts its items through the wrappers too.
                ("two", item(Some(2), ("ol", 1), ("li", 3))),
                ("one", item(Some(1), ("ol", 1), ("li", 4))),
                ("term", Role::Item(term)),
                (
                    "meaning",
                    Role::ItemParagraph {
                        item: term,
                        join: Join::Line
                    }
                ),
                ("next", item(None, ("dl", 0), ("dt", 1))),
            ]
        );
    }

    #[test]
    fn a_quote_inside_an_item_is_a_quote_of_that_item_once_its_text_began() {
        let html = "<ul><li>text<blockquote><p>quoted</p>line<br>after</blockquote>\
                    <ul><li>inner<div><table><tr><td>cell</td></tr><tr><td><p>x</p><p>y</p>\
                    </td></tr></table></div></li></ul></li>\
                    <li><blockquote>a quote first</blockquote></li></ul>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let outer = top_item(&page, ("ul", 0), ("li", 0));
        let quoted = |join| Role::ItemQuote { item: outer, join };
        let got = texts_and_roles(&page);
        assert_eq!(
            got[..4],
            [
                ("text", Role::Item(outer)),
                ("quoted", quoted(Join::Paragraph)),
                ("line", quoted(Join::Paragraph)),
                ("after", quoted(Join::Line)),
            ]
        );
        // The item inside the quote's list is an item, and a table in it is no quote.
        assert!(matches!(got[4], ("inner", Role::Item(_))), "{got:?}");
        assert!(
            got[5..8]
                .iter()
                .all(|(_, r)| !matches!(r, Role::ItemQuote { .. })),
            "{got:?}"
        );
        // A quote that begins its item is a quote.
        assert_eq!(got[8], ("a quote first", Role::Text));
    }

    #[test]
    fn roles_number_ordered_items_and_place_the_cells_of_simple_tables() {
        let html = "<ol><li>one</li><li>two<ul><li>inner</li></ul></li><li>three</li>\
                    <li><p>four</p><p>more of four</p></li><li>run:<pre>code</pre></li>\
                    <li><pre>only code</pre></li></ol>\
                    <dl><dt>term</dt><dd>meaning</dd></dl>\
                    <table><caption>Sizes</caption><thead><tr><th>a</th><th>b</th></tr></thead>\
                    <tbody><tr><td>1</td><td></td><td>2<br>3</td></tr></tbody></table>\
                    <table><tr><td><p>para</p><p>more para</p></td><td>cell</td></tr></table>\
                    <table><tr><th><p>key</p></th><td><div><b>value</b></div></td></tr></table>\
                    <table><tr><td>open</td><td><pre>code</pre></td></tr></table>\
                    <table><tr><td><p>a</p></td><td>b<br><br>c</td></tr></table>\
                    <table><tr><td>outer<table><tr><td>inner cell</td></tr></table></td></tr></table>\
                    <p>after</p>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let got = texts_and_roles(&page);
        let (ol, ul, dl) = (
            nth_element(&page, "ol", 0),
            nth_element(&page, "ul", 0),
            nth_element(&page, "dl", 0),
        );
        let li = |number, depth, list, i| ListItem {
            number,
            depth,
            list,
            element: nth_element(&page, "li", i),
            in_item: None,
        };
        let item = |number, depth, list, i| Role::Item(li(number, depth, list, i));
        let more = |number, i| Role::ItemParagraph {
            item: li(Some(number), 1, ol, i),
            join: Join::Paragraph,
        };
        let term = ListItem {
            number: None,
            depth: 1,
            list: dl,
            element: nth_element(&page, "dt", 0),
            in_item: None,
        };
        let cell = |t, row, col, head| Role::Cell {
            table: nth_element(&page, "table", t),
            row,
            col,
            head,
            join: Join::Paragraph,
            item: None,
        };
        assert_eq!(
            got,
            [
                ("one", item(Some(1), 1, ol, 0)),
                ("two", item(Some(2), 1, ol, 1)),
                (
                    "inner",
                    Role::Item(ListItem {
                        in_item: Some(nth_element(&page, "li", 1)),
                        ..li(None, 2, ul, 2)
                    })
                ),
                ("three", item(Some(3), 1, ol, 3)),
                ("four", item(Some(4), 1, ol, 4)),
                ("more of four", more(4, 4)),
                // Code in an item is more of it, or the item itself.
                ("run:", item(Some(5), 1, ol, 5)),
                ("code", more(5, 5)),
                ("only code", item(Some(6), 1, ol, 6)),
                ("term", Role::Item(term)),
                (
                    "meaning",
                    Role::ItemParagraph {
                        item: term,
                        join: Join::Line
                    }
                ),
                ("Sizes", Role::Text),
                ("a", cell(0, 0, 0, true)),
                ("b", cell(0, 0, 1, true)),
                ("1", cell(0, 1, 0, false)),
                // An empty cell still counts: "2" is in the third column.
                ("2", cell(0, 1, 2, false)),
                // A line of that cell, after its `<br>`.
                (
                    "3",
                    Role::Cell {
                        table: nth_element(&page, "table", 0),
                        row: 1,
                        col: 2,
                        head: false,
                        join: Join::Line,
                        item: None,
                    }
                ),
                // Paragraphs in a cell: the table is laid out as text.
                ("para", Role::Text),
                ("more para", Role::Text),
                ("cell", Role::Text),
                // A cell's one paragraph or division is its text.
                ("key", cell(2, 0, 0, true)),
                ("value", cell(2, 0, 1, false)),
                // Code in a cell, or paragraphs cut by `<br><br>`: the table is text.
                ("open", Role::Text),
                ("code", Role::Text),
                ("a", Role::Text),
                ("b", Role::Text),
                ("c", Role::Text),
                // A table in a cell: the outer one is text, the inner one a table.
                ("outer", Role::Text),
                ("inner cell", cell(6, 0, 0, false)),
                ("after", Role::Text),
            ]
        );
    }

    #[test]
    fn roles_take_the_containers_and_headings_of_an_item_as_its_text_but_not_quotes_or_tables() {
        let html = "<ul><li><div>card</div><div><span><p>price</p></span></div></li>\
                    <li><h3>heading</h3><div>below it</div><section>a section</section>\
                    <blockquote>quoted</blockquote>\
                    <table><tr><td>cell</td></tr></table><div>after them</div></li>\
                    <li><article><h2>post</h2></article><button>more</button></li></ul>\
                    <dl><dt><div>term</div></dt><dd><p>meaning</p></dd></dl><div>out</div>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let li = |i| top_item(&page, ("ul", 0), ("li", i));
        let term = top_item(&page, ("dl", 0), ("dt", 0));
        let more = |item| Role::ItemParagraph {
            item,
            join: Join::Paragraph,
        };
        assert_eq!(
            texts_and_roles(&page),
            [
                ("card", Role::Item(li(0))),
                ("price", more(li(0))),
                // A card's heading is its item, a section below it more of it; a quote and
                // a table are laid out as such, the quote as the item's.
                ("heading", Role::Item(li(1))),
                ("below it", more(li(1))),
                ("a section", more(li(1))),
                (
                    "quoted",
                    Role::ItemQuote {
                        item: li(1),
                        join: Join::Paragraph
                    }
                ),
                (
                    "cell",
                    Role::Cell {
                        table: nth_element(&page, "table", 0),
                        row: 0,
                        col: 0,
                        head: false,
                        join: Join::Paragraph,
                        item: Some(li(1).element),
                    }
                ),
                ("after them", more(li(1))),
                // An item that holds a post begins no item: the post is laid out as such.
                ("post", Role::Text),
                ("more", Role::Text),
                ("term", Role::Item(term)),
                (
                    "meaning",
                    Role::ItemParagraph {
                        item: term,
                        join: Join::Line
                    }
                ),
                ("out", Role::Text),
            ]
        );
    }

    #[test]
    fn a_block_is_in_the_quote_around_it() {
        let html = "<p>out</p><blockquote>one<p>more of one</p></blockquote>\
                    <blockquote><div><p>two</p></div></blockquote>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let quotes: Vec<Option<u32>> = page.blocks.iter().map(|b| page.quote_of(b)).collect();
        let (one, two) = (
            nth_element(&page, "blockquote", 0),
            nth_element(&page, "blockquote", 1),
        );
        assert_eq!(quotes, [None, Some(one), Some(one), Some(two)]);
    }

    #[test]
    fn roles_tell_a_line_after_a_single_br_from_a_new_paragraph() {
        let html = "<p>Name<br>Street<span><br></span>City<br><br>Land</p>\
                    <div>a<br><hr>b<br><div></div>c</div><h2>Title<br>Subtitle<br><br>More</h2>\
                    <ul><li>x<br>y<p>z</p></li></ul><pre>code<br>more</pre>\
                    <table><tr><td>1<br>2</td><td>3</td></tr></table>\
                    <table><tr><td><p>para</p>4<br>5</td></tr></table>\
                    <p>first</p>second<br>third";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let got = texts_and_roles(&page);
        let cell = |col, join| Role::Cell {
            table: page.elements.iter().position(|e| e.tag == "table").unwrap() as u32,
            row: 0,
            col,
            head: false,
            join,
            item: None,
        };
        let x = first_bullet(&page);
        let more = |join| Role::ItemParagraph { item: x, join };
        assert_eq!(
            got,
            [
                ("Name", Role::Text),
                ("Street", Role::Line),
                // A `<br>` inside inline markup breaks the line as well.
                ("City", Role::Line),
                // Two breaks: a new paragraph.
                ("Land", Role::Text),
                ("a", Role::Text),
                // A rule, an empty block: new paragraphs.
                ("b", Role::Text),
                ("c", Role::Text),
                // A heading's lines, however many breaks come between, are one heading.
                ("Title", Role::Text),
                ("Subtitle", Role::Line),
                ("More", Role::Line),
                ("x", Role::Item(x)),
                ("y", more(Join::Line)),
                ("z", more(Join::Paragraph)),
                // In code, a `<br>` is a newline of the block.
                ("code more", Role::Text),
                ("1", cell(0, Join::Paragraph)),
                // A cell's line.
                ("2", cell(0, Join::Line)),
                ("3", cell(1, Join::Paragraph)),
                // A table with a paragraph in a cell is laid out as text, its lines too.
                ("para", Role::Text),
                ("4", Role::Text),
                ("5", Role::Line),
                ("first", Role::Text),
                // Text after a `<p>` in the same element, then a line of it.
                ("second", Role::Text),
                ("third", Role::Line),
            ]
        );
    }

    #[test]
    fn an_item_names_the_item_that_holds_its_list() {
        let html = "<ul><li>outer<blockquote><ul><li>indented</li></ul></blockquote></li></ul>\
                    <blockquote><ul><li><ul><li>in the quote</li></ul></li></ul></blockquote>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let holders: Vec<(&str, Option<u32>)> = texts_and_roles(&page)
            .into_iter()
            .map(|(text, role)| match role {
                Role::Item(item) => (text, item.in_item),
                _ => panic!("{text}: {role:?}"),
            })
            .collect();
        let li = |i| Some(nth_element(&page, "li", i));
        // Through the quote to the item around it; the third item, inside the second quote,
        // has no block of its own.
        assert_eq!(
            holders,
            [
                ("outer", None),
                ("indented", li(0)),
                ("in the quote", li(2))
            ]
        );
    }

    #[test]
    fn descriptions_go_under_their_terms() {
        let html = "<dl><dt>Name</dt><dd>The name</dd><dd>Another</dd><dt>Size</dt>\
                    <dd>Big<br>very</dd></dl><dl><dd>Alone</dd></dl>\
                    <dl><dt>Named</dt><dd>named</dd><dt><img src=x.jpg></dt><dd>pictured</dd></dl>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let item = |list, tag, i| top_item(&page, ("dl", list), (tag, i));
        let (name, size) = (item(0, "dt", 0), item(0, "dt", 1));
        let under = |item| Role::ItemParagraph {
            item,
            join: Join::Line,
        };
        assert_eq!(
            texts_and_roles(&page),
            [
                ("Name", Role::Item(name)),
                ("The name", under(name)),
                ("Another", under(name)),
                ("Size", Role::Item(size)),
                ("Big", under(size)),
                ("very", under(size)),
                // A description without a term is an item of its own.
                ("Alone", Role::Item(item(1, "dd", 3))),
                ("Named", Role::Item(item(2, "dt", 2))),
                ("named", under(item(2, "dt", 2))),
                // Its own term has no text: not more of the term above.
                ("pictured", Role::Item(item(2, "dd", 5))),
            ]
        );
    }

    #[test]
    fn a_description_goes_on_the_terms_line_only_right_below_its_text() {
        let html = "<dl><dt>Stove</dt><dd><h4>Light</h4><p>desc</p></dd>\
                    <dt><h4>Heading term</h4></dt><dd>after heading</dd>\
                    <dt>Packing</dt><dd><ul><li>tent</li></ul><p>Pack last</p></dd></dl>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let term = |i| top_item(&page, ("dl", 0), ("dt", i));
        let under = |i, join| Role::ItemParagraph {
            item: term(i),
            join,
        };
        let (line, paragraph) = (Join::Line, Join::Paragraph);
        assert_eq!(
            texts_and_roles(&page),
            [
                ("Stove", Role::Item(term(0))),
                // A heading is a line of its own, and so is what follows a heading or a list.
                ("Light", under(0, paragraph)),
                ("desc", under(0, paragraph)),
                ("Heading term", Role::Item(term(1))),
                ("after heading", under(1, paragraph)),
                ("Packing", Role::Item(term(2))),
                (
                    "tent",
                    Role::Item(ListItem {
                        depth: 2,
                        list: nth_element(&page, "ul", 0),
                        element: nth_element(&page, "li", 0),
                        // A description's list is in its term's item.
                        in_item: Some(nth_element(&page, "dt", 2)),
                        ..term(2)
                    })
                ),
                ("Pack last", under(2, paragraph)),
            ]
        );
        // What comes right below a term's text goes on its line.
        let page = segment("<dl><dt>a</dt><dd>b</dd></dl>", SegmentLimits::default()).unwrap();
        assert_eq!(
            texts_and_roles(&page)[1],
            (
                "b",
                Role::ItemParagraph {
                    item: ListItem {
                        number: None,
                        depth: 1,
                        list: nth_element(&page, "dl", 0),
                        element: nth_element(&page, "dt", 0),
                        in_item: None,
                    },
                    join: line
                }
            )
        );
    }

    #[test]
    fn roles_keep_text_after_a_small_image_or_a_field_on_its_line() {
        let html = "<p>Great <img class='emoji' alt=':)'> thanks<img src=photo.jpg>Next\
                    <img height=16>icon<img height=200>big<img style='max-height: 1.2em !important'>em\
                    <img style='line-height:10px'>not a height</p>\
                    <div>Qty <input name=q> pcs<br><img height=20>line\
                    <br><img src=tile.jpg>new<br><img height=20><hr>after rule</div>\
                    <ul><li>a <img class=Smiley> b</li></ul><h2>Part <img height=12> two</h2>\
                    <pre>code <img height=12> more</pre>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let same = Role::SameLine;
        let a = first_bullet(&page);
        assert_eq!(
            texts_and_roles(&page),
            [
                ("Great", Role::Text),
                ("thanks", same),
                // An image of no given size may be a picture that a style sheet sets apart.
                ("Next", Role::Text),
                ("icon", same),
                ("big", Role::Text),
                ("em", same),
                ("not a height", Role::Text),
                ("Qty", Role::Text),
                ("pcs", same),
                // After a `<br>`, a small image stays in the next line.
                ("line", Role::Line),
                ("new", Role::Text),
                ("after rule", Role::Text),
                ("a", Role::Item(a)),
                (
                    "b",
                    Role::ItemParagraph {
                        item: a,
                        join: Join::SameLine
                    }
                ),
                ("Part", Role::Text),
                // A heading is one line, an icon in it too.
                ("two", same),
                ("code", Role::Text),
                ("more", Role::Text),
            ]
        );
    }

    #[test]
    fn marks_make_no_block_and_fill_the_cells_of_simple_tables() {
        let html = "<p>Intro text here.</p><p>* * *</p>\
                    <table><tr><th>Feature</th><th>Basic</th><th>Pro</th></tr>\
                    <tr><td>Sharing</td><td>&#10003;</td><td><span> &#10003; </span></td></tr>\
                    <tr><td>Support</td><th>&mdash;</th><td>24 h ✓</td></tr></table>\
                    <table><tr><td><p>a</p><p>b</p></td><td>✓</td></tr></table>\
                    <p>Dashes follow.</p><p>-----------------</p>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let texts: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Intro text here.",
                "Feature",
                "Basic",
                "Pro",
                "Sharing",
                "Support",
                "24 h ✓",
                "a",
                "b",
                "Dashes follow."
            ]
        );
        // Each where a block would have been; 17 dashes are no mark.
        let marks: Vec<(&str, usize)> = page
            .marks
            .iter()
            .map(|m| (m.text.as_str(), m.before))
            .collect();
        assert_eq!(
            marks,
            [("* * *", 1), ("✓", 5), ("✓", 5), ("—", 6), ("✓", 9)]
        );
        // Only the cells of the simple table are placed: not the text outside tables, nor
        // the cell of a table laid out as text.
        let (roles, cells) = page.structure();
        assert_eq!(roles, page.roles());
        let table = nth_element(&page, "table", 0);
        let mark = |text: &str, before, row, col, head| CellMark {
            text: text.into(),
            before,
            table,
            row,
            col,
            head,
        };
        assert_eq!(
            cells,
            [
                mark("✓", 5, 1, 1, false),
                mark("✓", 5, 1, 2, false),
                mark("—", 6, 2, 1, true)
            ]
        );
    }

    #[test]
    fn lists_counted_past_the_numbers_markdown_writes_stop_there() {
        let html = "<ol start=-2><li>a</li><li>b</li><li>c</li><li>d</li></ol>\
                    <ol reversed start=1><li>e</li><li>f</li><li>g</li></ol>\
                    <ol start=999999998><li>h</li><li>i</li><li>j</li></ol>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let numbers: Vec<Option<u32>> = page
            .roles()
            .into_iter()
            .map(|role| match role {
                Role::Item(item) => item.number,
                _ => None,
            })
            .collect();
        let top = Some(999_999_999);
        assert_eq!(
            numbers,
            [
                Some(0),
                Some(0),
                Some(0),
                Some(1),
                Some(1),
                Some(0),
                Some(0),
                Some(999_999_998),
                top,
                top
            ]
        );
    }

    #[test]
    fn roles_follow_list_starts_item_values_and_cell_spans() {
        let html = "<ol start=' 4x'><li>four</li><li value=9>nine</li><li>ten</li></ol>\
                    <ol start=-3><li>below zero</li></ol>\
                    <ol start=12345678901><li>too big</li><li>still too big</li></ol>\
                    <ol start=abc><li value=''>one</li></ol>\
                    <ol reversed><li>three</li><li>two<ol><li>inner one</li></ol></li><li>one</li></ol>\
                    <ol reversed start=5><li>five</li><li value=2>two</li><li>one</li><li>zero</li>\
                    <li>not below zero</li></ol>\
                    <table><tr><td rowspan=2>a</td><td colspan=2>b</td><td>c</td></tr>\
                    <tr><td>d</td><td colspan=0>e</td><td rowspan=-1>f</td></tr>\
                    <tr><th rowspan=0 colspan=3>g</th><td>h</td></tr>\
                    <tr><td>i</td></tr>\
                    <tr><td colspan=5000 rowspan=2>j</td><td>k</td></tr><tr><td>l</td></tr></table>";
        let page = segment(html, SegmentLimits::default()).unwrap();
        let got = texts_and_roles(&page);
        // Each list is an `<ol>` of its own: the `i`th one.
        // The `li`th item, of the `i`th `<ol>`.
        let li = |n, depth, i, li| ListItem {
            number: Some(n),
            depth,
            list: nth_element(&page, "ol", i),
            element: nth_element(&page, "li", li),
            in_item: None,
        };
        let item = |n, depth, i, k| Role::Item(li(n, depth, i, k));
        let table = nth_element(&page, "table", 0);
        let cell = |row, col| Role::Cell {
            table,
            row,
            col,
            head: false,
            join: Join::Paragraph,
            item: None,
        };
        assert_eq!(
            got,
            [
                ("four", item(4, 1, 0, 0)),
                ("nine", item(9, 1, 0, 1)),
                ("ten", item(10, 1, 0, 2)),
                ("below zero", item(0, 1, 1, 3)),
                ("too big", item(999_999_999, 1, 2, 4)),
                ("still too big", item(999_999_999, 1, 2, 5)),
                ("one", item(1, 1, 3, 6)),
                ("three", item(3, 1, 4, 7)),
                ("two", item(2, 1, 4, 8)),
                (
                    "inner one",
                    Role::Item(ListItem {
                        in_item: Some(nth_element(&page, "li", 8)),
                        ..li(1, 2, 5, 9)
                    })
                ),
                ("one", item(1, 1, 4, 10)),
                ("five", item(5, 1, 6, 11)),
                ("two", item(2, 1, 6, 12)),
                ("one", item(1, 1, 6, 13)),
                ("zero", item(0, 1, 6, 14)),
                ("not below zero", item(0, 1, 6, 15)),
                ("a", cell(0, 0)),
                ("b", cell(0, 1)),
                ("c", cell(0, 3)),
                // "a" spans into the second row.
                ("d", cell(1, 1)),
                ("e", cell(1, 2)),
                ("f", cell(1, 3)),
                // Over every row left.
                (
                    "g",
                    Role::Cell {
                        table,
                        row: 2,
                        col: 0,
                        head: true,
                        join: Join::Paragraph,
                        item: None,
                    }
                ),
                ("h", cell(2, 3)),
                ("i", cell(3, 3)),
                // 1,000 columns at most; so wide a cell is taken to span one row.
                ("j", cell(4, 3)),
                ("k", cell(4, 1003)),
                ("l", cell(5, 3)),
            ]
        );
        assert_eq!(
            page.layout.len(),
            11,
            "the starts, reversed lists and values that parse, and the cells that span more \
             than one: {:?}",
            page.layout
        );
    }

    #[test]
    fn context_of_blocks() {
        let page = segment(
            "<body><nav class='main-menu'><ul><li><a href=/>Home</a></li></ul></nav>\
             <article><div class='entry-content'><h2>Head</h2><p>Body <i>text</i></p></div></article>\
             <footer id=site-footer><p hidden>Gone</p></footer></body>",
            SegmentLimits::default(),
        )
        .unwrap();
        let tags: Vec<&str> = page.blocks.iter().map(|b| page.tag_of(b)).collect();
        assert_eq!(tags, ["li", "h2", "p", "p"]);
        let f: Vec<u32> = page
            .blocks
            .iter()
            .map(|b| page.element_of(b).flags)
            .collect();
        assert_ne!(f[0] & ctx::NAV, 0);
        assert_ne!(f[0] & ctx::LIST, 0);
        assert_ne!(f[0] & ctx::V_NAV, 0);
        assert_eq!(f[1] & ctx::NAV, 0);
        assert_ne!(f[2] & ctx::ARTICLE, 0);
        assert_ne!(f[2] & ctx::V_ARTICLE, 0);
        assert_ne!(f[2] & ctx::V_CONTENT, 0);
        assert_ne!(f[3] & ctx::FOOTER, 0);
        assert_ne!(f[3] & ctx::V_FOOTER, 0);
        assert_ne!(f[3] & ctx::HIDDEN, 0);
        assert_eq!(page.blocks[2].inline_tags, 1);
        let ancestors: Vec<&str> = page
            .ancestors(page.blocks[2].element)
            .map(|e| &*e.tag)
            .collect();
        assert_eq!(ancestors, ["p", "div", "article", "body", "html"]);
        assert!(page.contains(page.blocks[1].element - 2, page.blocks[2].element));
    }

    #[test]
    fn vocabulary_bits_are_those_of_every_occurrence() {
        for tokens in [
            "main-nav navbar",
            "NavBar Post-Content",
            "headerfooter",
            "commentsharerelated",
            "sr-only   screen-reader",
            "größe menü-nav",
            "",
        ] {
            let lower = tokens.to_ascii_lowercase();
            let expected = VOCABULARY
                .iter()
                .filter(|(w, _)| lower.contains(w))
                .fold(0, |bits, (_, b)| bits | b);
            assert_eq!(vocab_flags(tokens), expected, "{tokens}");
        }
    }

    #[test]
    fn hiding_classes_hide_what_a_desktop_reader_does_not_see() {
        for (classes, hidden) in [
            ("hidden", true),
            ("card hide", true),
            ("card Hide", false),
            ("d-none", true),
            ("is-hidden", true),
            ("invisible", true),
            ("visually-hidden", true),
            ("overflow-hidden", false),
            ("hidden-xs", false),
            ("max-md:hidden", false),
            ("hiddenfield", false),
            ("hidden md:block", false),
            ("d-none d-lg-flex", false),
            ("d-none d-md-inline-block", false),
            ("block lg:hidden", true),
            ("d-flex d-md-none", true),
            ("hidden md:block lg:hidden", true),
            ("hidden 2xl:block", true),
            ("md:hover:block hidden", true),
            ("", false),
        ] {
            assert_eq!(class_hides(classes), hidden, "{classes}");
        }
        let page = segment(
            "<div class='overflow-hidden'><p>Shown text</p></div>\
             <div class='block lg:hidden'><p>Phone copy</p></div>\
             <div id=hidden-field><p>Named by its id</p></div>",
            SegmentLimits::default(),
        )
        .unwrap();
        let hidden: Vec<bool> = page
            .blocks
            .iter()
            .map(|b| page.element_of(b).flags & ctx::HIDDEN != 0)
            .collect();
        assert_eq!(hidden, [false, true, false]);
    }

    #[test]
    fn short_vocabulary_words_match_whole_tokens_only() {
        assert_eq!(vocab_flags("ad-slot") & ctx::V_AD, ctx::V_AD);
        assert_eq!(vocab_flags("shadow loading") & ctx::V_AD, 0);
        assert_eq!(vocab_flags("top ADS") & ctx::V_AD, ctx::V_AD);
        assert_eq!(vocab_flags("ad") & ctx::V_AD, ctx::V_AD);
        assert_eq!(vocab_flags("é-ad-é") & ctx::V_AD, ctx::V_AD);
        assert_eq!(vocab_flags("adé") & ctx::V_AD, ctx::V_AD);
        assert_eq!(vocab_flags("ad2") & ctx::V_AD, 0);
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 100_000;
        let mut html = String::with_capacity(depth * 12);
        for _ in 0..depth {
            html.push_str("<div>");
        }
        html.push_str("deep text");
        for _ in 0..depth {
            html.push_str("</div>");
        }
        let page = segment(&html, SegmentLimits::default()).unwrap();
        assert_eq!(page.blocks.len(), 1);
        assert_eq!(page.blocks[0].text, "deep text");
    }

    #[test]
    fn deep_inline_nesting_keeps_its_text() {
        let html = format!(
            "{}inner words{}",
            "<b><span>".repeat(60_000),
            "</span></b>".repeat(60_000)
        );
        let page = segment(&html, SegmentLimits::default()).unwrap();
        assert_eq!(page.blocks.len(), 1);
        assert_eq!(page.blocks[0].text, "inner words");
        let depth = page.elements[page.blocks[0].element as usize].depth as usize;
        assert!(depth <= MAX_NESTING + 4, "depth {depth}");
    }

    // The scan as first written: the fast one must agree with it.
    fn never_nests_reference(name: &[u8]) -> bool {
        if name.len() > 8 {
            return false;
        }
        let mut lower = [0u8; 8];
        for (l, b) in lower.iter_mut().zip(name) {
            *l = b.to_ascii_lowercase();
        }
        matches!(
            &lower[..name.len()],
            b"area"
                | b"base"
                | b"body"
                | b"br"
                | b"col"
                | b"colgroup"
                | b"dd"
                | b"dt"
                | b"embed"
                | b"head"
                | b"hr"
                | b"html"
                | b"img"
                | b"input"
                | b"li"
                | b"link"
                | b"meta"
                | b"option"
                | b"optgroup"
                | b"p"
                | b"param"
                | b"rb"
                | b"rp"
                | b"rt"
                | b"source"
                | b"tbody"
                | b"td"
                | b"tfoot"
                | b"th"
                | b"thead"
                | b"tr"
                | b"track"
                | b"wbr"
        )
    }

    /// Drop start and end tags nested deeper than `max_depth` (keeping all text), or return the
    /// input as it is when nothing nests that deep.
    fn flatten_deep_nesting_reference(html: &str, max_depth: usize) -> Cow<'_, str> {
        let bytes = html.as_bytes();
        // Pass 1 finds whether anything is to be done; pass 2 copies without the deep tags.
        let mut out: Option<String> = None;
        for pass in 0..2 {
            let mut depth = 0usize;
            let mut copied = 0usize;
            let mut i = 0usize;
            let mut deep = false;
            while let Some(off) = memchr::memchr(b'<', &bytes[i..]) {
                let start = i + off;
                i = start + 1;
                if bytes[i..].starts_with(b"!--") {
                    i = memchr::memmem::find(&bytes[i..], b"-->")
                        .map_or(bytes.len(), |e| i + e + 3);
                    continue;
                }
                let closing = bytes.get(i) == Some(&b'/');
                let name_start = i + usize::from(closing);
                let name_len = bytes[name_start..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-' || **b == b':')
                    .count();
                if name_len == 0 || !bytes[name_start].is_ascii_alphabetic() {
                    continue;
                }
                if never_nests_reference(&bytes[name_start..name_start + name_len]) {
                    continue;
                }
                let too_deep = if closing {
                    let d = depth;
                    depth = depth.saturating_sub(1);
                    d > max_depth
                } else {
                    depth += 1;
                    depth > max_depth
                };
                if !too_deep {
                    continue;
                }
                deep = true;
                if let Some(o) = out.as_mut() {
                    let end = html[start..]
                        .find('>')
                        .map_or(bytes.len(), |e| start + e + 1);
                    o.push_str(&html[copied..start]);
                    copied = end;
                    i = end;
                }
            }
            match (pass, deep) {
                (0, false) => return Cow::Borrowed(html),
                (0, true) => out = Some(String::with_capacity(html.len())),
                _ => {
                    let mut o = out.take().unwrap_or_default();
                    o.push_str(&html[copied..]);
                    return Cow::Owned(o);
                }
            }
        }
        Cow::Borrowed(html)
    }

    #[test]
    fn fast_flattening_agrees_with_the_first_one() {
        for html in parse::tests::random_pages(11, 50_000) {
            for max in 0..4 {
                assert_eq!(
                    flatten_deep_nesting(&html, max),
                    flatten_deep_nesting_reference(&html, max),
                    "{html:?} {max}"
                );
            }
        }
    }

    #[test]
    fn flattening_touches_only_deep_tags() {
        let html = "<div><div><div>x</div></div></div><!-- <div><div><div> --><p>y";
        assert!(matches!(flatten_deep_nesting(html, 3), Cow::Borrowed(_)));
        assert_eq!(
            flatten_deep_nesting(html, 2),
            "<div><div>x</div></div><!-- <div><div><div> --><p>y"
        );
    }

    #[test]
    fn node_limit_is_enforced() {
        let html = "<p>a</p>".repeat(100);
        let limits = SegmentLimits {
            max_nodes: 50,
            ..SegmentLimits::default()
        };
        assert!(matches!(segment(&html, limits), Err(Error::TooLarge(_))));
    }
}
