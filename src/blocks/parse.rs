//! Parsing with bounded work: HTML text to a kuchikiki DOM, refused when it grows too large.
//!
//! The HTML tree builder can make many nodes out of few bytes: every formatting element left
//! open (`<b id=1>`…`<b id=2000>`) is created again in each following paragraph, so a 30 kB
//! page can become four million nodes and gigabytes of memory. The parser here counts the nodes
//! as they are made, stops attaching new ones at the limit and stops reading the input soon
//! after, so memory stays bounded and the page is refused with [`Error::TooLarge`].
//!
//! Comments and processing instructions are not kept.
//!
//! A declarative shadow root (`<template shadowrootmode=open>`, which servers emit for web
//! components and browsers render in place of the host's children) is composed into the tree as
//! a browser shows it ([`compose_shadow_roots`]): its content becomes the host's children, with
//! the host's own children moved into the root's `<slot>`s.
//!
//! Before parsing, the page is slimmed ([`slim`]): the text of scripts and styles and the
//! attributes that nothing reads (two thirds of the bytes of a typical page) are taken out, so
//! that the tokenizer does not read them character by character; for the same reason, the
//! attributes that only segmentation reads get names of one letter, which the parser's sink
//! gives back ([`SHORT_NAMES`]), and class, style and id values are numbered in a table of
//! the page's distinct values ([`VALUE_NAMES`]), so that a class list that a thousand elements
//! carry is read and stored once. The tokenizer also checks every attribute of a tag against the
//! ones before it, which is quadratic in the number of attributes of one tag; attributes past
//! [`MAX_ATTRIBUTES`] are dropped there too.

use crate::error::{Error, Result};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{local_name, ns, Attribute, LocalName, QualName};
use kuchikiki::{Node, NodeData, NodeRef};
use rustc_hash::{FxHashMap, FxHashSet};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Attributes of one tag past this many are dropped before parsing.
pub const MAX_ATTRIBUTES: usize = 256;

/// Bytes reserved for a new text node, so that the next pieces of its text need no new buffer.
const TEXT_ROOM: usize = 32;

/// The input is given to the parser in pieces of about this many bytes; the node count is
/// checked between pieces.
const CHUNK: usize = 8 * 1024;

/// The attributes that segmentation reads, by element. They are kept beside the tree, not in
/// kuchikiki's map of each element: building that map (hashed, with an owned string per
/// attribute) costs more than the rest of an element. Each entry holds its element, so that
/// no address in the table is reused while it lives.
#[derive(Default)]
pub(crate) struct Attributes(FxHashMap<*const Node, (NodeRef, Vec<Attribute>)>);

impl Attributes {
    /// The kept attributes of an element, in the order of its tag.
    pub(crate) fn of(&self, element: &NodeRef) -> &[Attribute] {
        self.0.get(&Rc::as_ptr(&element.0)).map_or(&[], |(_, a)| a)
    }
}

/// Open elements the tree builder may look at per node it has made, on average, before the
/// rest of the page is dropped. At each tag, it may look at every open element (to find the
/// element an end tag closes, or whether a `<p>` is open): a few times the nesting limit
/// ([`super::MAX_NESTING`]) per node lets any page nested within that limit through (the WCXB
/// development pages need at most 41), while a page whose stray end tags or elements left
/// open by the thousand would each make it walk thousands of them (minutes for a page
/// within the byte limit) is cut within a second or two.
const STEPS_PER_NODE: u64 = 4 * super::MAX_NESTING as u64;

/// Nodes counted as made, at least, for [`STEPS_PER_NODE`]: the first pieces of a page may
/// hold few nodes and much nesting.
const STEPS_NODE_FLOOR: u64 = 4096;

/// Open elements the tree builder may look at in a page, whatever its nodes: a page cannot
/// make cheap nodes first to spend their allowance on stray tags later. Two to six seconds
/// of parsing on a 2-vCPU machine (the open elements walked lie near in memory or not: 2,040
/// `<span>`s then 480,000 `<hr>` take six); a page nested 2,040 deep that closes what it opens, of
/// 60,000 paragraphs (11.7 MB), is read whole within it, and the WCXB development pages look
/// at 250,000 at most.
const MAX_STEPS: u64 = 1 << 30;

/// A parsed page.
pub(crate) struct Parsed {
    /// The document node.
    pub(crate) document: NodeRef,
    /// The attributes segmentation reads, beside the tree (elements are made without them).
    pub(crate) attributes: Attributes,
    /// Elements attached to the tree, so that the walk can make room for them at once.
    pub(crate) elements: usize,
    /// The rest of the page was dropped, text and all, past the tree builder's work bound
    /// ([`STEPS_PER_NODE`], [`MAX_STEPS`]).
    pub(crate) cut: bool,
}

/// Parse a document (with scripting disabled, as a client without scripts would), refusing it
/// when it makes more than `max_nodes` nodes and dropping its rest when the tree builder's
/// work runs past its bound ([`STEPS_PER_NODE`]). `links`: the `href` of every `<a>` and
/// `<base>` is kept too.
pub(crate) fn parse(html: &str, max_nodes: usize, links: bool) -> Result<Parsed> {
    let slimmed = slim_for(html, MAX_ATTRIBUTES, links);
    build(&slimmed, max_nodes, links)
}

/// The tree of a slimmed page as the tokenizer and tree builder make it, through the bounded
/// sink. `links`: the `href` of every `<a>` and `<base>` is read.
fn build(slimmed: &Slimmed, max_nodes: usize, links: bool) -> Result<Parsed> {
    let html = slimmed.html.as_str();
    let made = Rc::new(Cell::new(0usize));
    let steps = Rc::new(Cell::new(0u64));
    let sink = Bounded {
        inner: kuchikiki::Sink::default(),
        made: Rc::clone(&made),
        max_nodes,
        attributes: RefCell::default(),
        elements: Cell::new(0),
        short_names: slimmed.short_names,
        values: slimmed
            .values
            .iter()
            .map(|v| StrTendril::from_slice(v))
            .collect(),
        links,
        shadow_roots: RefCell::default(),
        shadow_hosts: RefCell::default(),
        steps: Rc::clone(&steps),
    };
    let mut opts = html5ever::ParseOpts::default();
    opts.tree_builder.scripting_enabled = false;
    let mut parser = html5ever::parse_document(sink, opts);
    let mut rest: &str = html;
    while !rest.is_empty() {
        let mut cut = rest.len().min(CHUNK);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (piece, tail) = rest.split_at(cut);
        parser.process(StrTendril::from_slice(piece));
        rest = tail;
        if made.get() > max_nodes {
            return Err(too_many(max_nodes));
        }
        let nodes = (made.get() as u64).max(STEPS_NODE_FLOOR);
        if steps.get() > nodes.saturating_mul(STEPS_PER_NODE).min(MAX_STEPS) {
            break;
        }
    }
    let sink = parser.finish();
    if made.get() > max_nodes {
        return Err(too_many(max_nodes));
    }
    let attributes = sink.attributes.into_inner();
    compose_shadow_roots(&sink.shadow_roots.into_inner(), &attributes);
    Ok(Parsed {
        document: sink.inner.document_node,
        attributes,
        elements: sink.elements.get(),
        cut: holds_text(rest),
    })
}

/// Whether markup holds text that a reader sees: a letter or digit, or any character past
/// ASCII, outside tags, comments, scripts and style sheets; an entity counts as the character
/// it stands for, spaces and `&amp;`-like escapes not.
fn holds_text(html: &str) -> bool {
    let b = html.as_bytes();
    // Markup cut between two pieces of input may start inside a tag (`li></li>`): up to a
    // `>` before any `<` is that tag's.
    let first_tag = memchr::memchr(b'<', b).unwrap_or(b.len());
    let mut i = memchr::memchr(b'>', &b[..first_tag]).map_or(0, |k| k + 1);
    while i < b.len() {
        match b[i] {
            b'<' if b
                .get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || b"/!?".contains(c)) =>
            {
                let rest = &b[i..];
                let end = if rest.starts_with(b"<!--") {
                    memchr::memmem::find(rest, b"-->").map(|k| k + 3)
                } else if let Some(name) = [&b"script"[..], b"style"]
                    .into_iter()
                    .find(|name| starts_with_tag(&rest[1..], name))
                {
                    end_tag(rest, name)
                } else {
                    memchr::memchr(b'>', rest).map(|k| k + 1)
                };
                // Unclosed: the rest is inside the tag, the comment or the script.
                let Some(end) = end else { return false };
                i += end;
            }
            b'&' => {
                let rest = &html[i + 1..];
                let name = rest
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
                    .next()
                    .unwrap_or_default();
                let name = reference(name, rest[name.len()..].starts_with(';'));
                if name.is_empty() {
                    i += 1;
                    continue;
                }
                if entity_is_text(name) {
                    return true;
                }
                // A `;` after it is passed over as punctuation.
                i += 1 + name.len();
            }
            c if c.is_ascii_alphanumeric() || !c.is_ascii() => return true,
            _ => i += 1,
        }
    }
    false
}

/// The part of `&name` that HTML reads as a character reference, as browsers do: a
/// number's digits (with or without the `;`), a name `ended` by its `;`, or without it one of
/// the names that browsers read so and that [`entity_is_text`] tells is no text (`&nbsp`).
/// Empty otherwise: the letters are text.
fn reference(name: &str, ended: bool) -> &str {
    if let Some(n) = name.strip_prefix('#') {
        let hex = n.starts_with(['x', 'X']);
        let skip = 1 + usize::from(hex);
        let digits = name[skip..]
            .bytes()
            .take_while(|c| match hex {
                true => c.is_ascii_hexdigit(),
                false => c.is_ascii_digit(),
            })
            .count();
        return if digits == 0 {
            ""
        } else {
            &name[..skip + digits]
        };
    }
    match name {
        _ if ended => name,
        "nbsp" | "shy" | "amp" | "lt" | "gt" | "quot" | "AMP" | "LT" | "GT" | "QUOT" => name,
        _ => "",
    }
}

/// Whether `bytes` start with the tag name `name` (any case), the name ending there.
fn starts_with_tag(bytes: &[u8], name: &[u8]) -> bool {
    bytes.len() > name.len()
        && bytes[..name.len()].eq_ignore_ascii_case(name)
        && matches!(
            bytes[name.len()],
            b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'
        )
}

/// Where the element `name` that `bytes` open ends: after its end tag's `>`.
fn end_tag(bytes: &[u8], name: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(k) = memchr::memmem::find(&bytes[at..], b"</") {
        let tag = at + k + 2;
        if starts_with_tag(&bytes[tag..], name) {
            return memchr::memchr(b'>', &bytes[tag..]).map(|e| tag + e + 1);
        }
        at = tag;
    }
    None
}

/// Whether the entity `&name;` stands for text: a letter, a digit or a character past ASCII,
/// but not a space, an invisible character or an escape of markup (`&amp;`, `&lt;`…).
fn entity_is_text(name: &str) -> bool {
    let c = match name.strip_prefix('#') {
        Some(n) => {
            let code = match n.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16),
                None => n.parse(),
            };
            match code.ok().and_then(char::from_u32) {
                Some(c) => c,
                None => return false,
            }
        }
        None => {
            return !matches!(
                name,
                "nbsp"
                    | "ensp"
                    | "emsp"
                    | "thinsp"
                    | "zwnj"
                    | "zwj"
                    | "shy"
                    | "amp"
                    | "lt"
                    | "gt"
                    | "quot"
                    | "AMP"
                    | "LT"
                    | "GT"
                    | "QUOT"
                    | "apos"
                    | "NewLine"
                    | "Tab"
            )
        }
    };
    c.is_alphanumeric()
        || !(c.is_ascii()
            || c.is_whitespace()
            || matches!(
                c,
                '\u{ad}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}'
            ))
}

fn too_many(max_nodes: usize) -> Error {
    let nodes = if max_nodes == 1 { "node" } else { "nodes" };
    Error::TooLarge(format!(
        "more than {max_nodes} DOM {nodes} (raise the limit with --max-nodes or Limits::segment.max_nodes)"
    ))
}

/// kuchikiki's tree sink, counting the nodes it makes. Past the limit, new nodes and text are
/// no longer attached to the tree, so that they are freed as soon as the parser lets go of them.
struct Bounded {
    inner: kuchikiki::Sink,
    made: Rc<Cell<usize>>,
    max_nodes: usize,
    attributes: RefCell<Attributes>,
    /// Elements made while under the limit.
    elements: Cell<usize>,
    /// Attributes have the short names of [`SHORT_NAMES`], to be given back.
    short_names: bool,
    /// The values of the attributes named by [`VALUE_NAMES`], by number.
    values: Vec<StrTendril>,
    /// The `href` of every `<a>` and `<base>` is read too.
    links: bool,
    /// Declarative shadow roots, (host, template), in the order of their templates.
    shadow_roots: RefCell<Vec<(NodeRef, NodeRef)>>,
    /// The hosts of `shadow_roots`: an element has one shadow root at most.
    shadow_hosts: RefCell<FxHashSet<*const Node>>,
    /// Open elements the tree builder has looked at (or compared), for [`STEPS_PER_NODE`].
    steps: Rc<Cell<u64>>,
}

impl Bounded {
    /// An attribute by its own name, and whether segmentation reads it on an element of
    /// this tag.
    fn read(&self, tag: &LocalName, a: &mut Attribute) -> bool {
        if self.short_names {
            match given_name(&a.name.local) {
                Some((full, false)) => a.name.local = full,
                Some((full, true)) => {
                    // Its number in the page's table of values: a shared buffer, no copy.
                    let value = a.value.parse::<usize>().ok();
                    if let Some(value) = value.and_then(|k| self.values.get(k)) {
                        a.value = value.clone();
                        a.name.local = full;
                    }
                }
                None => {}
            }
        }
        super::attribute_is_read(tag, &a.name.local)
            || (self.links
                && (*tag == local_name!("a") || *tag == local_name!("base"))
                && a.name.local == local_name!("href"))
    }

    /// Count one more node; whether it may still be attached.
    fn count(&self) -> bool {
        let n = self.made.get().saturating_add(1);
        self.made.set(n);
        n <= self.max_nodes
    }

    /// Whether a node or text may be attached. Text next to a text node (`beside`, looked up
    /// only for text) is merged into it and makes no node; an empty text node there (whitespace,
    /// see `append`) is given its space first.
    fn admit(&self, child: &NodeOrText<NodeRef>, beside: impl FnOnce() -> Option<NodeRef>) -> bool {
        match child {
            // Nothing reads comments: they are not kept, so a page of comments costs nothing.
            NodeOrText::AppendNode(n) => {
                !matches!(
                    n.data(),
                    NodeData::Comment(_) | NodeData::ProcessingInstruction(_)
                ) && self.made.get() <= self.max_nodes
            }
            NodeOrText::AppendText(_) => {
                let Some(node) = beside() else {
                    return self.count();
                };
                let Some(existing) = node.as_text() else {
                    return self.count();
                };
                let admitted = self.made.get() <= self.max_nodes;
                // The text will be joined to this node. An empty one stands for whitespace
                // (see `append`): it becomes that space first, so that the joined text keeps it.
                let mut existing = existing.borrow_mut();
                if admitted && existing.is_empty() {
                    existing.push(' ');
                }
                admitted
            }
        }
    }
}

impl TreeSink for Bounded {
    type Handle = NodeRef;
    type Output = Self;
    type ElemName<'a> = <kuchikiki::Sink as TreeSink>::ElemName<'a>;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeRef {
        self.inner.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a NodeRef) -> Self::ElemName<'a> {
        self.steps.set(self.steps.get() + 1);
        self.inner.elem_name(target)
    }

    fn create_element(
        &self,
        name: QualName,
        attrs: Vec<Attribute>,
        flags: ElementFlags,
    ) -> NodeRef {
        let attached = self.count();
        // Only the attributes segmentation reads are kept, and only for elements that may still
        // be attached: the table holds its elements, which past the limit must be freed. The tree builder keeps its own copy
        // of a tag's attributes for what it compares.
        let mut attrs = attrs;
        attrs.retain_mut(|a| self.read(&name.local, a));
        if name.local == local_name!("meta") {
            // As slimming leaves them ([`keep_og_metas_only`]).
            let kept_meta = attrs.iter().any(|a| {
                matches!(a.name.local, local_name!("name") | local_name!("property"))
                    && says_kept_meta(a.value.as_bytes())
            });
            if !kept_meta {
                attrs.retain(|a| {
                    !matches!(
                        a.name.local,
                        local_name!("name") | local_name!("property") | local_name!("content")
                    )
                });
            }
        }
        let element = self.inner.create_element(name, Vec::new(), flags);
        self.elements
            .set(self.elements.get() + usize::from(attached));
        if attached && !attrs.is_empty() {
            let key = Rc::as_ptr(&element.0);
            let entry = (element.clone(), attrs);
            self.attributes.borrow_mut().0.insert(key, entry);
        }
        element
    }

    fn create_comment(&self, text: StrTendril) -> NodeRef {
        self.inner.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeRef {
        self.inner.create_pi(target, data)
    }

    fn append(&self, parent: &NodeRef, child: NodeOrText<NodeRef>) {
        let text = match child {
            NodeOrText::AppendText(text) => text,
            node => {
                if self.admit(&node, || None) {
                    self.inner.append(parent, node);
                }
                return;
            }
        };
        // Segmentation skips scripts and styles, so their text (often most of a page's bytes)
        // is not copied into the tree; an empty text node stands in for it, so that nodes are
        // counted as before.
        let unread = holds_unread_text(parent);
        // A single space (a third of a page's nodes: slimming leaves one for the whitespace
        // between two tags outside `<pre>`) is kept as an empty node, with no buffer to make
        // and free; segmentation reads an empty text node as one space. Other whitespace is
        // kept as it is: inside `<pre>` it is the text's layout (the line breaks and
        // indentation between the `<span>`s of highlighted code), elsewhere segmentation
        // collapses it.
        let blank = unread || &*text == " ";
        // The tokenizer hands text over in pieces (it stops at every line break and character
        // reference), which are joined into one node: room for a few is made at once.
        if let Some(last) = parent.last_child() {
            if let Some(existing) = last.as_text() {
                if self.made.get() <= self.max_nodes && !unread {
                    // An empty node is one space, which a second one joins (`  ` inside
                    // `<pre>`, handed over in two pieces), as any other text does.
                    let mut existing = existing.borrow_mut();
                    if existing.is_empty() {
                        existing.reserve(text.len().max(TEXT_ROOM) + 1);
                        existing.push(' ');
                    }
                    existing.push_str(&text);
                }
                return;
            }
        }
        if self.count() {
            let owned = if blank {
                String::new()
            } else {
                let mut owned = String::with_capacity(text.len().max(TEXT_ROOM));
                owned.push_str(&text);
                owned
            };
            parent.append(NodeRef::new_text(owned));
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeRef,
        prev_element: &NodeRef,
        child: NodeOrText<NodeRef>,
    ) {
        let beside = || {
            if element.parent().is_some() {
                element.previous_sibling()
            } else {
                prev_element.last_child()
            }
        };
        if self.admit(&child, beside) {
            self.inner
                .append_based_on_parent_node(element, prev_element, child);
        }
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        if self.count() {
            self.inner
                .append_doctype_to_document(name, public_id, system_id);
        }
    }

    fn get_template_contents(&self, target: &NodeRef) -> NodeRef {
        self.inner.get_template_contents(target)
    }

    fn same_node(&self, x: &NodeRef, y: &NodeRef) -> bool {
        self.steps.set(self.steps.get() + 1);
        self.inner.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &NodeRef, new_node: NodeOrText<NodeRef>) {
        if self.admit(&new_node, || sibling.previous_sibling()) {
            self.inner.append_before_sibling(sibling, new_node);
        }
    }

    fn add_attrs_if_missing(&self, target: &NodeRef, attrs: Vec<Attribute>) {
        let mut table = self.attributes.borrow_mut();
        let (_, kept) = table
            .0
            .entry(Rc::as_ptr(&target.0))
            .or_insert_with(|| (target.clone(), Vec::new()));
        let tag = target
            .as_element()
            .map_or(local_name!(""), |e| e.name.local.clone());
        for mut a in attrs {
            if !self.read(&tag, &mut a) {
                continue;
            }
            let name = (&a.name.ns, &a.name.local);
            if !kept.iter().any(|k| (&k.name.ns, &k.name.local) == name) {
                kept.push(a);
            }
        }
    }

    fn remove_from_parent(&self, target: &NodeRef) {
        self.inner.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &NodeRef, new_parent: &NodeRef) {
        self.inner.reparent_children(node, new_parent);
    }

    fn allow_declarative_shadow_roots(&self, _intended_parent: &NodeRef) -> bool {
        true
    }

    /// The root is kept for [`compose_shadow_roots`]; where a browser would refuse it (a second
    /// root for one host, or a host that cannot have one), the tree builder inserts the
    /// template as an ordinary one, which segmentation skips.
    fn attach_declarative_shadow(
        &self,
        host: &NodeRef,
        template: &NodeRef,
        _attrs: &[Attribute],
    ) -> bool {
        if !host.as_element().is_some_and(|e| can_host_shadow(&e.name)) {
            return false;
        }
        if !self.shadow_hosts.borrow_mut().insert(Rc::as_ptr(&host.0)) {
            return false;
        }
        self.shadow_roots
            .borrow_mut()
            .push((host.clone(), template.clone()));
        true
    }
}

/// Whether an element may have a shadow root: a custom element or one of the elements the
/// DOM standard lists (`attachShadow`).
fn can_host_shadow(name: &QualName) -> bool {
    if name.ns != ns!(html) {
        return false;
    }
    let local: &str = &name.local;
    if local.contains('-') {
        // A valid custom element name, but for the reserved names SVG and MathML use.
        return local.starts_with(|c: char| c.is_ascii_lowercase())
            && !matches!(
                local,
                "annotation-xml"
                    | "color-profile"
                    | "font-face"
                    | "font-face-src"
                    | "font-face-uri"
                    | "font-face-format"
                    | "font-face-name"
                    | "missing-glyph"
            );
    }
    matches!(
        local,
        "article"
            | "aside"
            | "blockquote"
            | "body"
            | "div"
            | "footer"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "main"
            | "nav"
            | "p"
            | "section"
            | "span"
    )
}

/// Composes each declarative shadow root into the tree as a browser renders it (the flat tree):
/// the root's content replaces its host's children, and each of those children goes into the
/// root's first `<slot>` of the name in its `slot` attribute (the `<slot>` without a name for
/// text and for elements without one), in place of that slot's fallback content. Children that
/// no slot takes are not shown, and are dropped.
///
/// Roots are composed in the order of their templates, outer roots first: a slot found in a
/// root's content then belongs to that root, since the content of the roots inside it is still
/// apart in their templates.
fn compose_shadow_roots(roots: &[(NodeRef, NodeRef)], attributes: &Attributes) {
    // Text has no attributes: it goes to the slot without a name, as an element without `slot`.
    let value = |node: &NodeRef, name| super::attribute(attributes.of(node), name).unwrap_or("");
    let mut slots: FxHashMap<&str, (NodeRef, bool)> = FxHashMap::default();
    for (host, template) in roots {
        let Some(content) = template
            .as_element()
            .and_then(|t| t.template_contents.clone())
        else {
            continue;
        };
        slots.clear();
        for node in content.descendants() {
            let is_slot = node
                .as_element()
                .is_some_and(|e| e.name.ns == ns!(html) && e.name.local == local_name!("slot"));
            if is_slot {
                slots
                    .entry(value(&node, local_name!("name")))
                    .or_insert((node, false));
            }
        }
        let light: Vec<NodeRef> = host.children().collect();
        for child in light {
            match slots.get_mut(value(&child, local_name!("slot"))) {
                Some((slot, assigned)) => {
                    if !*assigned {
                        // Assigned children replace the fallback content.
                        *assigned = true;
                        while let Some(fallback) = slot.first_child() {
                            fallback.detach();
                        }
                    }
                    slot.append(child);
                }
                None => child.detach(),
            }
        }
        while let Some(node) = content.first_child() {
            host.append(node);
        }
    }
}

/// Whether `node` is a `script` or `style` element, whose text segmentation never reads.
fn holds_unread_text(node: &NodeRef) -> bool {
    node.as_element().is_some_and(|e| {
        e.name.ns == ns!(html)
            && matches!(e.name.local, local_name!("script") | local_name!("style"))
    })
}

/// A name of up to eight bytes as one integer, with bit 5 of each byte set: for names made of
/// ASCII letters, equal keys mean names equal but for case.
const fn letters_key(name: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < name.len() && i < 8 {
        key |= ((name[i] | 0x20) as u64) << (8 * i);
        i += 1;
    }
    key
}

/// Elements whose content is text up to their end tag, not markup.
fn raw_text(name: &[u8]) -> bool {
    const RAW: [u64; 8] = [
        letters_key(b"script"),
        letters_key(b"style"),
        letters_key(b"textarea"),
        letters_key(b"title"),
        letters_key(b"xmp"),
        letters_key(b"iframe"),
        letters_key(b"noembed"),
        letters_key(b"noframes"),
    ];
    // No byte gives 0 with bit 5 set, so names of different lengths have different keys.
    name.len() <= 8 && RAW.contains(&letters_key(name))
}

/// Byte classes of the tokenizer's tag syntax, for [`slim`].
const SPACE: u8 = 1;
const SLASH: u8 = 2;
const GT: u8 = 4;
const EQ: u8 = 8;
static TAG_BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b' ' as usize] = SPACE;
    t[b'\t' as usize] = SPACE;
    t[b'\n' as usize] = SPACE;
    t[0x0c] = SPACE;
    t[b'\r' as usize] = SPACE;
    t[b'/' as usize] = SLASH;
    t[b'>' as usize] = GT;
    t[b'=' as usize] = EQ;
    t
};

/// Whether [`slim`] keeps an attribute of this name: the ones segmentation reads on any
/// element ([`super::attribute_is_read`]; [`layout_attribute_kept`] for the others) and the
/// few the tree builder reads (`type` of a hidden input in a table, `color`, `face` and `size`
/// of a font that leaves SVG or MathML, `encoding` of an annotation-xml, `shadowrootmode` of a
/// template).
fn attribute_kept(name: &[u8]) -> bool {
    const KEPT: [u64; 12] = [
        letters_key(b"class"),
        letters_key(b"id"),
        letters_key(b"role"),
        letters_key(b"style"),
        letters_key(b"hidden"),
        letters_key(b"itemprop"),
        letters_key(b"type"),
        letters_key(b"color"),
        letters_key(b"face"),
        letters_key(b"size"),
        letters_key(b"encoding"),
        letters_key(b"slot"),
    ];
    if name.len() <= 8 {
        // Keys of equal names but for case are equal, and no other byte gives a letter's key.
        KEPT.contains(&letters_key(name))
    } else {
        name.eq_ignore_ascii_case(b"aria-hidden") || name.eq_ignore_ascii_case(b"shadowrootmode")
    }
}

/// Whether a `<meta>`'s `name` or `property` value (quotes taken off) names `og:title` or
/// `og:site_name`, the metas that segmentation reads ([`crate::blocks::OgMeta`]).
fn says_kept_meta(value: &[u8]) -> bool {
    crate::blocks::OgMeta::named(value).is_some()
}

/// Of the attributes kept on a `<meta>` (`kept`: where each starts, its name ends and its
/// value ends, in `b`), drops what it names and says unless it names `og:title` or
/// `og:site_name`: a page has dozens of other `<meta>`s, and their values are long.
fn keep_og_metas_only(b: &[u8], kept: &mut Vec<(usize, usize, usize)>) {
    let named = |&(a, name_end, _): &(usize, usize, usize)| {
        let name = &b[a..name_end];
        name.eq_ignore_ascii_case(b"name") || name.eq_ignore_ascii_case(b"property")
    };
    let kept_meta = kept.iter().filter(|k| named(k)).any(|&(_, name_end, e)| {
        let value = b[name_end..e].trim_ascii_start();
        let value = value.strip_prefix(b"=").unwrap_or(value).trim_ascii();
        let value = match value {
            [q @ (b'"' | b'\''), inner @ .., last] if last == q => inner,
            _ => value,
        };
        says_kept_meta(value)
    });
    if !kept_meta {
        kept.retain(|k| !named(k) && !b[k.0..k.1].eq_ignore_ascii_case(b"content"));
    }
}

/// Whether [`slim`] keeps an attribute that numbers a list's items, places a table's cells or
/// sizes an image, on the elements where it does (`value` is on every form field too); the
/// name of a shadow root's `<slot>` (`name` is on every form field too); and what a `<meta>`
/// names and says, for its `og:title` and `og:site_name`.
fn layout_attribute_kept(tag: &[u8], name: &[u8]) -> bool {
    let is = |a: &[u8], b: &[u8]| a.eq_ignore_ascii_case(b);
    match name.len() {
        4 => is(name, b"name") && (is(tag, b"slot") || is(tag, b"meta")),
        5 => (is(name, b"start") && is(tag, b"ol")) || (is(name, b"value") && is(tag, b"li")),
        6 => is(name, b"height") && is(tag, b"img"),
        7 => {
            ((is(name, b"colspan") || is(name, b"rowspan")) && (is(tag, b"td") || is(tag, b"th")))
                || (is(name, b"content") && is(tag, b"meta"))
        }
        8 => {
            (is(name, b"reversed") && is(tag, b"ol")) || (is(name, b"property") && is(tag, b"meta"))
        }
        _ => false,
    }
}

/// The attributes that only segmentation reads, by the one-letter names [`slim`] gives them:
/// the tokenizer reads a name one character at a time, at a cost that shows in a profile,
/// and the sink gives them back their names ([`given_name`]). Slimming drops every other
/// attribute of one letter; where it leaves the rest of a page as it is, it gives no short
/// names, so that no name is taken for another.
static SHORT_NAMES: [(&str, LocalName); 6] = [
    ("c", local_name!("class")),
    ("r", local_name!("role")),
    ("s", local_name!("style")),
    ("h", local_name!("hidden")),
    ("p", local_name!("itemprop")),
    ("a", local_name!("aria-hidden")),
];

/// The attributes whose values [`slim`] replaces by a number in a table of the page's distinct
/// values, by the one-letter names it gives them then: class lists repeat from element to
/// element and make a third of a slimmed page's bytes, which the tokenizer would read and copy
/// into a new string for each element. A value that the tokenizer reads otherwise than as
/// written (with a character reference, a carriage return or a NUL) stays in the page, under
/// the name it would have had otherwise.
static VALUE_NAMES: [(&str, LocalName); 3] = [
    ("k", local_name!("class")),
    ("y", local_name!("style")),
    ("j", local_name!("id")),
];

/// Which of [`VALUE_NAMES`] an attribute's name is, if any.
fn value_name_index(name: &[u8]) -> Option<usize> {
    VALUE_NAMES
        .iter()
        .position(|(_, full)| name.eq_ignore_ascii_case(full.as_bytes()))
}

/// The value of an attribute as written after its name (`="a b"`, `='a'`, `=a`), when the
/// tokenizer reads it as written: without a character reference, a carriage return or a NUL.
fn plain_value(after_name: &[u8]) -> Option<&[u8]> {
    let rest = after_name
        .trim_ascii_start()
        .strip_prefix(b"=")?
        .trim_ascii_start();
    let value = match rest {
        [q @ (b'"' | b'\''), inner @ .., last] if last == q => inner,
        [b'"' | b'\'', ..] => return None,
        _ => rest,
    };
    (memchr::memchr3(b'&', b'\r', 0, value).is_none()).then_some(value)
}

/// The short name [`slim`] gives an attribute of this name, if any.
fn short_name(name: &[u8]) -> Option<&'static str> {
    SHORT_NAMES
        .iter()
        .find(|(_, full)| name.eq_ignore_ascii_case(full.as_bytes()))
        .map(|&(short, _)| short)
}

/// The name of an attribute that [`slim`] gave one letter, and whether its value is a number
/// in the page's table of values ([`VALUE_NAMES`]).
fn given_name(short: &LocalName) -> Option<(LocalName, bool)> {
    let short: &str = short;
    if short.len() != 1 {
        return None;
    }
    let short_names = SHORT_NAMES.iter().map(|n| (n, false));
    short_names
        .chain(VALUE_NAMES.iter().map(|n| (n, true)))
        .find(|((s, _), _)| *s == short)
        .map(|((_, full), numbered)| (full.clone(), numbered))
}

/// What an open element makes of its content, for [`slim`].
#[derive(Clone, Copy, PartialEq)]
enum Open {
    /// An SVG element: its content is SVG.
    Svg,
    /// A MathML element: its content is MathML.
    Math,
    /// An SVG or MathML element whose content is HTML (`foreignObject`, `mtext`…).
    Html,
}

/// Whether a tag makes the tree builder leave SVG and MathML content (a `font` does when it has
/// a `color`, `face` or `size` attribute).
fn breaks_out(name: &[u8], closing: bool) -> bool {
    const NAMES: [&[u8]; 44] = [
        b"b",
        b"big",
        b"blockquote",
        b"body",
        b"br",
        b"center",
        b"code",
        b"dd",
        b"div",
        b"dl",
        b"dt",
        b"em",
        b"embed",
        b"h1",
        b"h2",
        b"h3",
        b"h4",
        b"h5",
        b"h6",
        b"head",
        b"hr",
        b"i",
        b"img",
        b"li",
        b"listing",
        b"menu",
        b"meta",
        b"nobr",
        b"ol",
        b"p",
        b"pre",
        b"ruby",
        b"s",
        b"small",
        b"span",
        b"strike",
        b"strong",
        b"sub",
        b"sup",
        b"table",
        b"tt",
        b"u",
        b"ul",
        b"var",
    ];
    if closing {
        name.eq_ignore_ascii_case(b"br") || name.eq_ignore_ascii_case(b"p")
    } else {
        NAMES.iter().any(|t| t.eq_ignore_ascii_case(name))
    }
}

/// Whether `b[at..]` is the end tag of the raw-text element `name`: `</name` and then
/// whitespace, `/` or `>`, as the tokenizer requires of an end tag that closes it.
fn is_end_tag(b: &[u8], at: usize, name: &[u8]) -> bool {
    let tail = &b[at..];
    tail.len() > name.len() + 2
        && tail.starts_with(b"</")
        && tail[2..2 + name.len()].eq_ignore_ascii_case(name)
        && TAG_BYTE[usize::from(tail[2 + name.len()])] & (SPACE | SLASH | GT) != 0
}

/// Where the text of a raw-text element opened before `from` ends (the start of its end tag),
/// or `None` when it runs to the end of the input.
fn raw_text_end(b: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut k = from;
    let first = loop {
        let at = k + memchr::memchr(b'<', &b[k..])?;
        if is_end_tag(b, at, name) {
            break at;
        }
        k = at + 1;
    };
    // In a script, `<!--` starts an escaped section, where `<script` starts a nested one that
    // a `</script` only leaves: without `<!--` before it, the first end tag is the end.
    let script = name.eq_ignore_ascii_case(b"script");
    if !script || memchr::memmem::find(&b[from..first], b"<!--").is_none() {
        return Some(first);
    }
    script_end(b, from)
}

/// The end of a script's text by the tokenizer's script states (data, escaped, double
/// escaped), byte by byte: only for scripts that hold `<!--`.
fn script_end(b: &[u8], from: usize) -> Option<usize> {
    #[derive(PartialEq)]
    enum S {
        Data,
        Escaped,
        Double,
    }
    let mut state = S::Data;
    let mut dashes = 0usize; // dashes just read in an escaped state
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        match state {
            S::Data => {
                if b[i..].starts_with(b"<!--") {
                    state = S::Escaped;
                    // `<!--` leaves the tokenizer after two dashes: `<!-->` ends at once.
                    dashes = 2;
                    i += 4;
                    continue;
                }
                if is_end_tag(b, i, b"script") {
                    return Some(i);
                }
            }
            S::Escaped | S::Double => {
                if c == b'-' {
                    dashes += 1;
                    i += 1;
                    continue;
                }
                if c == b'>' && dashes >= 2 {
                    state = S::Data;
                } else if c == b'<' {
                    if state == S::Escaped {
                        if is_end_tag(b, i, b"script") {
                            return Some(i);
                        }
                        if is_start_of(b, i + 1, b"script") {
                            state = S::Double;
                        }
                    } else if b.get(i + 1) == Some(&b'/') && is_start_of(b, i + 2, b"script") {
                        state = S::Escaped;
                    }
                }
            }
        }
        dashes = 0;
        i += 1;
    }
    None
}

/// Whether `b[at..]` starts with `name` (any case) followed by whitespace, `/` or `>`.
fn is_start_of(b: &[u8], at: usize, name: &[u8]) -> bool {
    let tail = b.get(at..).unwrap_or_default();
    tail.len() > name.len()
        && tail[..name.len()].eq_ignore_ascii_case(name)
        && TAG_BYTE[usize::from(tail[name.len()])] & (SPACE | SLASH | GT) != 0
}

/// Where a comment that starts at `from` (just after `<!--`) ends, as the tokenizer reads it:
/// `<!-->` and `<!--->` are whole comments, and `-->` or `--!>` closes the others.
fn comment_end(b: &[u8], from: usize) -> usize {
    let rest = &b[from..];
    if rest.starts_with(b">") {
        return from + 1;
    }
    if rest.starts_with(b"->") {
        return from + 2;
    }
    // The first `--` followed by `>` or `!>`; each `--` is looked at once.
    let mut k = 0usize;
    while let Some(off) = memchr::memmem::find(&rest[k..], b"--") {
        let at = k + off + 2;
        match rest.get(at) {
            Some(b'>') => return from + at + 1,
            Some(b'!') if rest.get(at + 1) == Some(&b'>') => return from + at + 2,
            _ => k = at - 1,
        }
    }
    b.len()
}

/// The index of the first byte from `j` whose class is none of `over` (or the end).
fn skip_over(b: &[u8], mut j: usize, over: u8) -> usize {
    while j < b.len() && TAG_BYTE[usize::from(b[j])] & over != 0 {
        j += 1;
    }
    j
}

/// The index of the first byte from `j` whose class is one of `stop` (or the end).
fn until_one_of(b: &[u8], mut j: usize, stop: u8) -> usize {
    while j < b.len() && TAG_BYTE[usize::from(b[j])] & stop == 0 {
        j += 1;
    }
    j
}

/// Read the attributes of a tag from `j`, just after its name, as the tokenizer does:
/// `each(name, start, end)` is called for each, with the bytes of its name and the span of the
/// whole attribute. Returns the index of the tag's `>` (the length of `b` when the input ends
/// first) and the end of the last attribute (`j` when there is none).
fn attributes(b: &[u8], mut j: usize, mut each: impl FnMut(&[u8], usize, usize)) -> (usize, usize) {
    let n = b.len();
    let mut last_end = j;
    loop {
        j = skip_over(b, j, SPACE | SLASH);
        if j >= n || b[j] == b'>' {
            return (j, last_end);
        }
        let attr_at = j;
        // The first character of a name may be `=`.
        j = until_one_of(b, j + 1, SPACE | SLASH | GT | EQ);
        let name_end = j;
        let k = skip_over(b, j, SPACE);
        if k < n && b[k] == b'=' {
            let k = skip_over(b, k + 1, SPACE);
            j = match b.get(k) {
                Some(&q @ (b'"' | b'\'')) => {
                    memchr::memchr(q, &b[k + 1..]).map_or(n, |e| k + 1 + e + 1)
                }
                _ => until_one_of(b, k, SPACE | GT),
            };
        }
        last_end = j.min(n);
        each(&b[attr_at..name_end], attr_at, last_end);
    }
}

/// Where the content of an `svg` element whose start tag ends just before `from` ends (the
/// start of its `</svg>`), when nothing in it can reach outside it: only tags of SVG elements
/// and text, with `title` and `desc` holding text only. Segmentation skips an `svg`, so such
/// content (icons: paths, groups, gradients, often a tenth of a page's tags) can go before
/// parsing. `None` for anything else: a tag that leaves SVG for HTML (`<p>`, `<div>`, a
/// `font`…), an element whose content is HTML (`foreignObject`; `desc` or `title` holding
/// tags), a script, a style or MathML, an end tag that closes no element opened inside (it
/// would close HTML elements outside), a declaration, or no end at all.
fn svg_content_end(b: &[u8], from: usize) -> Option<usize> {
    let mut open: Vec<&[u8]> = Vec::new();
    let mut i = from;
    loop {
        let at = i + memchr::memchr(b'<', &b[i..])?;
        let closing = b.get(at + 1) == Some(&b'/');
        let name_at = at + 1 + usize::from(closing);
        if b[at + 1..].starts_with(b"!--") {
            i = comment_end(b, at + 4);
            continue;
        }
        if !b.get(name_at).is_some_and(u8::is_ascii_alphabetic) {
            if closing || matches!(b.get(at + 1), Some(b'!' | b'?')) {
                return None;
            }
            // A `<` that starts no tag is text.
            i = at + 1;
            continue;
        }
        let name_end = until_one_of(b, name_at, SPACE | SLASH | GT);
        let name = &b[name_at..name_end];
        let (gt, last_end) = attributes(b, name_end, |_, _, _| {});
        if gt >= b.len() {
            return None;
        }
        let self_closing = gt > last_end && b[gt - 1] == b'/';
        if closing {
            // An end tag in SVG closes the innermost open element of its name and those in it;
            // with none, it would reach the HTML elements outside.
            match open.iter().rposition(|o| o.eq_ignore_ascii_case(name)) {
                Some(k) => open.truncate(k),
                None if name.eq_ignore_ascii_case(b"svg") => return Some(at),
                None => return None,
            }
        } else if !self_closing
            && (name.eq_ignore_ascii_case(b"title") || name.eq_ignore_ascii_case(b"desc"))
        {
            // Their content is HTML: only plain text up to their end tag stays inside.
            let end = gt + 1 + memchr::memchr(b'<', &b[gt + 1..])?;
            if !is_end_tag(b, end, name) {
                return None;
            }
            let (end_gt, _) = attributes(b, end + 2 + name.len(), |_, _, _| {});
            if end_gt >= b.len() {
                // The end tag runs to the end of the input: no end of the svg.
                return None;
            }
            i = end_gt + 1;
            continue;
        } else {
            let html_inside = [&b"foreignobject"[..], b"script", b"style", b"math"]
                .iter()
                .any(|t| t.eq_ignore_ascii_case(name));
            if html_inside || breaks_out(name, false) || name.eq_ignore_ascii_case(b"font") {
                return None;
            }
            if !self_closing {
                open.push(name);
            }
        }
        i = gt + 1;
    }
}

/// The page without what the tree would not keep anyway, so that the tokenizer (most of the
/// cost of parsing) reads a third of the bytes: the text of scripts and styles (a single space
/// stays, so the element keeps its one text node), whitespace between tags beyond one space,
/// attributes of end tags, attributes that
/// neither segmentation nor the tree builder reads ([`attribute_kept`]), and attributes of one
/// tag past the first `max_attributes` (the tokenizer compares each attribute with the ones
/// before it, which is quadratic in their number), and the content of `svg` elements that
/// cannot reach outside them ([`svg_content_end`]). The tree built from the result is the tree
/// built from the page, but for what the parser's sink drops anyway and the inside of those
/// `svg` elements, which segmentation skips.
#[cfg(test)]
fn slim(html: &str, max_attributes: usize) -> Slimmed<'_> {
    slim_for(html, max_attributes, false)
}

/// [`slim`], keeping the `href` of every `<a>` and `<base>` when `links`.
fn slim_for(html: &str, max_attributes: usize, links: bool) -> Slimmed<'_> {
    let slimmed = slim_with(html, max_attributes, true, links);
    if !slimmed.left_as_is {
        return slimmed;
    }
    // Markup left as it is may hold attributes of one letter, which keep their meaning there.
    slim_with(html, max_attributes, false, links)
}

/// A page as [`slim`] leaves it.
struct Slimmed<'a> {
    html: String,
    /// The attributes that only segmentation reads have the names of [`SHORT_NAMES`], and
    /// those of [`VALUE_NAMES`] hold numbers in `values`.
    short_names: bool,
    /// The distinct values of the attributes of [`VALUE_NAMES`], as written in the page.
    values: Vec<&'a str>,
    /// Markup may have been left as it is (see [`slim_with`]).
    left_as_is: bool,
}

/// [`slim`], with the short names of [`SHORT_NAMES`] and [`VALUE_NAMES`] when `short_names`;
/// also says whether markup may have been left as it is: the rest of the page, or text that
/// holds a `<` (the text of a `title` or `textarea`, CDATA), which the tokenizer may read as
/// markup after all.
fn slim_with(html: &str, max_attributes: usize, short_names: bool, links: bool) -> Slimmed<'_> {
    let b = html.as_bytes();
    let n = b.len();
    let mut out = String::with_capacity(n / 2);
    let mut values: Vec<&str> = Vec::new();
    let mut numbers: FxHashMap<&str, u32> =
        FxHashMap::with_capacity_and_hasher(n / 512, Default::default());
    // `html[copied..]` is still to be copied.
    let mut copied = 0usize;
    // The open SVG and MathML elements (integration points among them), by name, and whether
    // a `select` is open outside them.
    let mut open: Vec<(Open, &[u8])> = Vec::new();
    let mut in_select = false;
    let mut left_as_is = false;
    let mut i = 0usize;
    // The end of the tag just copied, if any, and whether the tree builder drops a line break
    // right after it.
    let mut tag_end = usize::MAX;
    let mut drops_lf = false;
    // Open `<pre>` and `<listing>` elements, as their tags count them.
    let mut pre_depth = 0usize;
    while let Some(off) = memchr::memchr(b'<', &b[i..]) {
        let start = i + off;
        // Whitespace between two tags (the line breaks and indentation of most pages, which
        // the tokenizer hands over in several pieces) becomes one space. Outside `<pre>` it
        // makes a blank text node whatever it holds (the sink keeps none of its characters),
        // but for a lone line break after `<pre>`, `<listing>` or `<textarea>`, which the tree
        // builder drops; inside, it is the text's layout and stays as it is.
        if tag_end == copied && pre_depth == 0 {
            let gap = &b[copied..start];
            if gap.len() > usize::from(drops_lf)
                && gap != b" "
                && gap.iter().all(u8::is_ascii_whitespace)
            {
                out.push(' ');
                copied = start;
            }
        }
        tag_end = usize::MAX;
        i = start + 1;
        // Up to the next `>`, or the end: how far a bogus comment or a doctype reaches.
        let to_gt = |from: usize| memchr::memchr(b'>', &b[from..]).map_or(n, |e| from + e + 1);
        // Comments, bogus comments (`<!x>`, `<?x>`, `</1>`) and doctypes are skipped as they
        // are. (Taking comments out would save little and can change a tree: one ends a
        // table's pending text.)
        let skipped = match (b.get(i), b.get(i + 1)) {
            (Some(b'!'), _) if b[i..].starts_with(b"!--") => Some(comment_end(b, i + 3)),
            (Some(b'!'), _) if !open.is_empty() && b[i + 1..].starts_with(b"[CDATA[") => {
                // Text in SVG or MathML (a bogus comment elsewhere).
                let end = memchr::memmem::find(&b[i..], b"]]>").map_or(n, |e| i + e + 3);
                left_as_is |= memchr::memchr(b'<', &b[i..end]).is_some();
                Some(end)
            }
            (Some(b'!' | b'?'), _) => Some(to_gt(i)),
            (Some(b'/'), Some(c)) if !c.is_ascii_alphabetic() => Some(to_gt(i + 1)),
            _ => None,
        };
        if let Some(end) = skipped {
            i = end;
            continue;
        }
        let closing = match b.get(i) {
            Some(b'/') => true,
            Some(c) if c.is_ascii_alphabetic() => false,
            _ => continue,
        };
        let name_at = i + usize::from(closing);
        let mut j = until_one_of(b, name_at, SPACE | SLASH | GT);
        let name = &b[name_at..j];
        // The tag up to its name is copied as it is; then each kept attribute after a space,
        // then what lies between the last attribute and `>` (spaces and slashes: a `/` just
        // before `>` marks a self-closing tag).
        let mut kept: Vec<(usize, usize, usize)> = Vec::new();
        let mut count = 0usize;
        let mut font_breaks = false;
        let (gt, last_end) = attributes(b, j, |attr_name, attr_at, attr_end| {
            count += 1;
            font_breaks |= [&b"color"[..], b"face", b"size"]
                .iter()
                .any(|a| attr_name.eq_ignore_ascii_case(a));
            if !closing
                && count <= max_attributes
                && (attribute_kept(attr_name)
                    || layout_attribute_kept(name, attr_name)
                    || (links
                        && (name.eq_ignore_ascii_case(b"a") || name.eq_ignore_ascii_case(b"base"))
                        && attr_name.eq_ignore_ascii_case(b"href")))
            {
                kept.push((attr_at, attr_at + attr_name.len(), attr_end));
            }
        });
        j = gt;
        if j >= n {
            // The page ends inside the tag, which the tokenizer then drops: copy it as it is.
            break;
        }
        if name.eq_ignore_ascii_case(b"meta") {
            keep_og_metas_only(b, &mut kept);
        }
        out.push_str(&html[copied..name_at + name.len()]);
        // The names of VALUE_NAMES already written: the tokenizer keeps the first attribute of
        // a name, and a numbered one must not stand beside another of the same name.
        let mut written = [false; VALUE_NAMES.len()];
        // The end of the last attribute written, and whether it was given a number (a value
        // without quotes).
        let mut last_written = None;
        for &(a, name_end, e) in &kept {
            let attr_name = &b[a..name_end];
            if let Some(v) = value_name_index(attr_name).filter(|_| short_names) {
                if std::mem::replace(&mut written[v], true) {
                    continue;
                }
                if let Some(value) = plain_value(&b[name_end..e]) {
                    // Within `html`, at the same bytes: a `&str` of valid UTF-8 bounds.
                    let start = value.as_ptr() as usize - b.as_ptr() as usize;
                    let value = &html[start..start + value.len()];
                    let next = values.len() as u32;
                    let k = *numbers.entry(value).or_insert_with(|| {
                        values.push(value);
                        next
                    });
                    out.push(' ');
                    out.push_str(VALUE_NAMES[v].0);
                    out.push('=');
                    out.push_str(itoa::Buffer::new().format(k));
                    last_written = Some((e, true));
                    continue;
                }
            }
            out.push(' ');
            match short_name(attr_name).filter(|_| short_names) {
                Some(short) => {
                    out.push_str(short);
                    out.push_str(&html[name_end..e]);
                }
                None => out.push_str(&html[a..e]),
            }
            last_written = Some((e, false));
        }
        // A `/` after a value without quotes would join it: a space keeps them apart.
        if last_written.is_some_and(|(e, numbered)| numbered || e != last_end)
            && b[last_end] == b'/'
        {
            out.push(' ');
        }
        out.push_str(&html[last_end..=j]);
        copied = j + 1;
        i = j + 1;
        tag_end = copied;
        let is = |tag: &[u8]| name.eq_ignore_ascii_case(tag);
        let pre = is(b"pre") || is(b"listing");
        drops_lf = !closing && (pre || is(b"textarea"));
        if pre {
            pre_depth = if closing {
                pre_depth.saturating_sub(1)
            } else {
                pre_depth + 1
            };
        }
        // A `/` just before `>` (not inside the last value) closes a tag in SVG or MathML.
        let self_closing = j > last_end && b[j - 1] == b'/';
        let in_foreign = |open: &[(Open, &[u8])]| open.last().is_some_and(|o| o.0 != Open::Html);
        if in_foreign(&open) && (breaks_out(name, closing) || is(b"font") && font_breaks) {
            // The tree builder leaves SVG and MathML for an HTML tag such as `<p>`.
            while open.last().is_some_and(|o| o.0 != Open::Html) {
                open.pop();
            }
        }
        if closing {
            let named = |o: &(Open, &[u8])| o.1.eq_ignore_ascii_case(name);
            // The SVG or MathML elements open since the innermost integration point.
            let base = open
                .iter()
                .rposition(|o| o.0 == Open::Html)
                .map_or(0, |k| k + 1);
            let at = match open.last() {
                None => None,
                Some(&(Open::Html, top)) if top.eq_ignore_ascii_case(name) => Some(open.len() - 1),
                // Read in the point itself, another end tag may close SVG or MathML elements
                // around it; read in an HTML element inside the point, HTML elements. Which
                // one only the tree builder knows: the rest of the page is left as it is.
                Some(&(Open::Html, _)) => {
                    left_as_is = true;
                    break;
                }
                // In SVG or MathML, an end tag closes the innermost element of its name, but
                // one that names none of them goes on to the HTML elements around (closing
                // them, or not): the rest of the page is left as it is.
                Some(_) => match open[base..].iter().rposition(named) {
                    Some(k) => Some(base + k),
                    None => {
                        left_as_is = true;
                        break;
                    }
                },
            };
            if let Some(at) = at {
                open.truncate(at);
            }
        } else if !self_closing && !in_select {
            // (A select ignores the tags of SVG and MathML.)
            let top = open.last().copied();
            let kind = if is(b"svg") || is(b"math") {
                // In SVG or MathML, they make elements of the namespace they are in, but for
                // `svg` right inside MathML's `annotation-xml`.
                Some(match top {
                    Some((Open::Math, t))
                        if is(b"svg") && t.eq_ignore_ascii_case(b"annotation-xml") =>
                    {
                        Open::Svg
                    }
                    Some((o @ (Open::Svg | Open::Math), _)) => o,
                    _ if is(b"svg") => Open::Svg,
                    _ => Open::Math,
                })
            } else {
                // Integration points: elements of SVG or MathML whose content is HTML again.
                match top {
                    Some((Open::Svg, _)) if is(b"foreignobject") || is(b"desc") || is(b"title") => {
                        Some(Open::Html)
                    }
                    Some((Open::Math, _))
                        if [&b"mi"[..], b"mo", b"mn", b"ms", b"mtext"]
                            .iter()
                            .any(|t| is(t)) =>
                    {
                        Some(Open::Html)
                    }
                    // Any other element in SVG or MathML.
                    Some((o @ (Open::Svg | Open::Math), _)) => Some(o),
                    _ => None,
                }
            };
            if let Some(kind) = kind {
                let outermost_svg = kind == Open::Svg && open.is_empty();
                open.push((kind, name));
                if kind == Open::Html {
                    continue;
                }
                if let Some(end) = outermost_svg.then(|| svg_content_end(b, i)).flatten() {
                    // Its end tag is read next.
                    copied = end;
                    i = end;
                    continue;
                }
            }
        }
        let foreign = in_foreign(&open);
        if closing {
            in_select &= !is(b"select");
            continue;
        }
        if is(b"plaintext") {
            // All that follows is text (or markup, in SVG or MathML): left as it is.
            left_as_is = true;
            break;
        }
        if is(b"input") || is(b"keygen") || is(b"textarea") {
            in_select = false;
        } else if is(b"select") {
            in_select = !foreign;
        }
        if !raw_text(name) {
            continue;
        }
        let script = is(b"script");
        let style = is(b"style");
        if in_select && !script {
            // A select ignores a style, title, xmp… tag, so that what follows is markup; but a
            // select may have ended in ways not followed here (a `select` or a table tag inside
            // it), and a template in it takes these tags again. The rest is left as it is.
            left_as_is = true;
            break;
        }
        if foreign {
            // In SVG or MathML, scripts and styles hold markup, not text: it is scanned as
            // markup, and only text without a tag (the same either way) is dropped, when the
            // next tag is their end tag. Only up to that next tag is read, so that markup
            // of many such elements is read once.
            if (script || style) && !self_closing {
                let end = memchr::memchr(b'<', &b[i..]).map_or(n, |k| i + k);
                if end > i && (end == n || is_end_tag(b, end, name)) {
                    out.push(' ');
                    copied = end;
                    i = end;
                }
            }
            continue;
        }
        let end = raw_text_end(b, i, name).unwrap_or(n);
        if (script || style) && end > i {
            out.push(' ');
            copied = end;
        } else {
            left_as_is |= memchr::memchr(b'<', &b[i..end]).is_some();
        }
        i = end;
    }
    out.push_str(&html[copied..]);
    Slimmed {
        html: out,
        short_names,
        values,
        left_as_is,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A page to parse as it is, not slimmed.
    fn unslimmed(html: &str) -> Slimmed<'_> {
        Slimmed {
            html: html.to_string(),
            short_names: false,
            values: Vec::new(),
            left_as_is: false,
        }
    }

    /// Pseudo-random pages made of pieces of tag syntax.
    pub(crate) fn random_pages(seed: u64, count: usize) -> Vec<String> {
        const PIECES: &[&str] = &[
            "<",
            ">",
            "/",
            "=",
            "\"",
            "'",
            " ",
            "\n",
            "\t",
            "a",
            "B",
            "p",
            "li",
            "x",
            "é",
            "!",
            "-",
            "<p",
            "</p",
            "<div",
            "</DIV",
            "<b",
            "</b",
            "<script",
            "</script",
            "<SCRIPT",
            "<style>",
            "</style",
            "<!--",
            "-->",
            "<!-->",
            "<ul",
            "</ul",
            "<br",
            "=\"v w\"",
            "='a>'",
            " c=d",
            "<x-y:z",
            "</x-y:z",
            "<textarea",
            "</textarea>",
            "<p=",
            "<é",
            " class=",
            " id='x'",
            " data-a=\"b\"",
            " hidden",
            "<!",
            "--!>",
            "<script><!--",
            "<script>",
            "</script>",
            "<plaintext>",
            "<table>",
            "<td>",
            "<svg>",
            "</svg>",
            "<input type=hidden>",
            "<math>",
            "<svg/>",
            "<style>a{}</style>",
            "<!x",
            "<?",
            "</>",
            "</ ",
            "<!DOCTYPE html>",
            "<pre>",
            "</pre>",
            "<LISTING>",
            "\n \r\n",
            "<![CDATA[",
            "]]>",
            "<path d=1/>",
            "<g>",
            "</g>",
            "<title>",
            "</title>",
            "<desc>",
            "<foreignObject>",
            "<font color=red>",
            "<svg><rect></svg>",
            "<annotation-xml encoding='text/html'>",
            "<annotation-xml>",
            "<mi>",
            "<x-y>",
            "<template shadowrootmode=open>",
            "<TEMPLATE ShadowRootMode=closed>",
            "</template>",
            "<slot",
            " name=a>",
            " slot=a>",
            " CLASS='a b'",
            " class=\"x&amp;y\"",
            " Style=\"display:none\"",
            " id=i/",
            " class=a&",
            " ID=\"q\r\"",
        ];
        let mut state = seed;
        let mut next = move |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as usize) % n
        };
        (0..count)
            .map(|_| {
                let len = next(40);
                (0..len).map(|_| PIECES[next(PIECES.len())]).collect()
            })
            .collect()
    }

    /// Whether a node is an `svg` element.
    fn is_svg(node: &NodeRef) -> bool {
        node.as_element()
            .is_some_and(|e| e.name.ns == ns!(svg) && e.name.local == local_name!("svg"))
    }

    /// The tree as text: elements with the attributes kept for them, text with its whitespace
    /// collapsed, in document order. The text of scripts and styles is left out: nothing reads
    /// it, and in SVG or MathML the sink keeps it. So is what lies inside an `svg` element,
    /// which segmentation skips and slimming may drop.
    fn dump(doc: &NodeRef, attributes: &Attributes) -> String {
        let mut out = String::new();
        let mut in_svg = 0usize;
        for edge in doc.traverse() {
            let (kuchikiki::iter::NodeEdge::Start(node) | kuchikiki::iter::NodeEdge::End(node)) =
                &edge;
            let svg = usize::from(is_svg(node));
            let inside = match edge {
                kuchikiki::iter::NodeEdge::Start(_) => {
                    in_svg += svg;
                    in_svg > svg
                }
                kuchikiki::iter::NodeEdge::End(_) => {
                    in_svg -= svg;
                    in_svg > 0
                }
            };
            if inside {
                continue;
            }
            match edge {
                kuchikiki::iter::NodeEdge::Start(node) => match node.data() {
                    NodeData::Element(e) => {
                        out.push('<');
                        out.push_str(&e.name.local);
                        for a in attributes.of(&node) {
                            out.push_str(&format!(" {}={:?}", &*a.name.local, &*a.value));
                        }
                        out.push('>');
                    }
                    NodeData::Text(t) => {
                        let parent = node.parent();
                        let parent = parent.as_ref().and_then(|p| p.as_element());
                        let parent = parent.map_or("", |e| &*e.name.local);
                        let text = t.borrow().split_whitespace().collect::<Vec<_>>().join(" ");
                        // A comment ends a table's pending text: without it, whitespace
                        // there joins the text that follows (moved out of the table).
                        let in_table =
                            matches!(parent, "table" | "tbody" | "thead" | "tfoot" | "tr");
                        let unread = matches!(parent, "script" | "style");
                        if !(unread || in_table && text.is_empty()) {
                            out.push_str(&format!("{text:?}"));
                        }
                    }
                    _ => {}
                },
                kuchikiki::iter::NodeEdge::End(node) => {
                    if let NodeData::Element(e) = node.data() {
                        out.push_str(&format!("</{}>", &e.name.local));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn text_is_found_outside_tags_only() {
        assert!(!holds_text("</li></li><span class=a1></div>  "));
        assert!(!holds_text("li></li>"));
        assert!(holds_text("li>x"));
        assert!(holds_text("</li>x</li>"));
        assert!(holds_text("<b>é"));
        assert!(holds_text("tail"));
        assert!(!holds_text(""));
        // Comments, scripts and style sheets hold none, nor spaces and escapes of markup.
        assert!(!holds_text(
            "<!-- a > b --><SCRIPT>var x = '</b>';</script ><style>p{}</style>"
        ));
        assert!(holds_text("<!-- a --><script>x</script>after"));
        assert!(holds_text("<scripts>a custom element's text</scripts>"));
        assert!(holds_text("<script-x>a custom element's text</script-x>"));
        assert!(!holds_text("&nbsp;&#160;&#xA0;&amp;&lt;&#8203;&#xd800;"));
        // As browsers read them: upper-case escapes, and references without their `;`.
        assert!(!holds_text("&AMP;&LT;&QUOT; &nbsp &amp&shy&#160 &#xA0"));
        // A reference without digits is shown as written.
        assert!(holds_text("&#x"));
        assert!(holds_text("&nbspx"));
        assert!(holds_text("&#160a"));
        assert!(holds_text("&#x41"));
        assert!(holds_text("&eacute"));
        assert!(holds_text("&eacute;"));
        assert!(holds_text("&#233;"));
        assert!(holds_text("&#x41;"));
        // Markup cut short: nothing after the cut is shown.
        assert!(!holds_text("<p class=\"intro"));
        assert!(!holds_text("<!-- never closed"));
        assert!(!holds_text("<script>never closed"));
        // A `<` that opens no tag is text.
        assert!(holds_text("< 2"));
        assert!(!holds_text("& ; < >"));
    }

    /// The page slimmed makes the tree the page makes, with the same attributes read, with
    /// and without the links' targets.
    fn same_tree(html: &str) {
        for links in [false, true] {
            let a = build(&unslimmed(html), usize::MAX, links).unwrap();
            let slimmed = slim_for(html, MAX_ATTRIBUTES, links);
            let b = build(&slimmed, usize::MAX, links).unwrap();
            let (a, attrs_a, n_a) = (a.document, a.attributes, a.elements);
            let (b, attrs_b, n_b) = (b.document, b.attributes, b.elements);
            assert_eq!(
                dump(&a, &attrs_a),
                dump(&b, &attrs_b),
                "{html:?} slimmed to {:?}",
                slimmed.html
            );
            // Dropped SVG content makes fewer elements.
            if html.to_ascii_lowercase().contains("<svg") {
                assert!(n_b <= n_a, "{html:?}");
            } else {
                assert_eq!(n_a, n_b, "{html:?}");
            }
        }
    }

    #[test]
    fn the_targets_of_links_are_kept_only_when_asked_for() {
        let html = "<base target=_top Href=/b/><p><a class=x HREF='/a b' title=t>x</a>\
                    <link href=/s><area href=/m></p>";
        assert_eq!(
            slim(html, MAX_ATTRIBUTES).html,
            "<base><p><a k=0>x</a><link><area></p>"
        );
        assert_eq!(
            slim_for(html, MAX_ATTRIBUTES, true).html,
            "<base Href=/b/><p><a k=0 HREF='/a b'>x</a><link><area></p>"
        );
        same_tree(html);
        let Parsed {
            document: doc,
            attributes,
            ..
        } = build(&unslimmed(html), usize::MAX, true).unwrap();
        let tree = dump(&doc, &attributes);
        assert!(tree.contains(r#"<a class="x" href="/a b">"#), "{tree}");
        assert!(tree.contains(r#"<base href="/b/">"#), "{tree}");
    }

    #[test]
    fn svg_content_goes_when_it_cannot_reach_outside() {
        let icon = "<p>a<svg viewBox=\"0 0 9 9\"><title>Search</title><g><path d=\"M0 0\"/>\
                    <circle r=1></circle><!-- c --><rect></g></svg>b</p>";
        assert_eq!(
            slim(icon, MAX_ATTRIBUTES).html,
            "<p>a<svg></svg>b</p>",
            "attributes of an svg are not read, its content goes"
        );
        same_tree(icon);
        // Content that could change the tree outside the svg stays.
        for html in [
            "<div><svg><path></div><p>x</p></svg>",
            "<svg><g><div>x</div></g></svg><p>y",
            "<svg><foreignObject><p>x</p></foreignObject></svg>",
            "<svg><title>a<b>b</b></title></svg><i>c",
            "<svg><desc>a</desc><font color=red>x</font></svg>",
            "<svg><script>a<b</script></svg><p>t",
            "<svg><![CDATA[<p>]]></svg>",
            "<svg><path>",
            "<b><svg><g></b></g></svg>x",
            // The title's end tag is not closed before the input ends.
            "<svg><title>a</title/d\n<b x",
        ] {
            assert!(
                !slim(html, MAX_ATTRIBUTES).html.contains("<svg></svg>"),
                "{html}"
            );
            same_tree(html);
        }
        // Unclosed and nested SVG elements, in a table, inside other elements.
        for html in [
            "<svg><path d=1></svg><p>x",
            "<svg><svg><rect/></svg><g></svg>t",
            "<table><svg><path/></svg><tr><td>x</table>",
            "<ul><li><svg><use href=#i></use></svg>item</li></ul>",
            "<svg><g></G></svg><p>x</p>",
        ] {
            assert!(
                slim(html, MAX_ATTRIBUTES).html.contains("<svg></svg>"),
                "{html}"
            );
            same_tree(html);
        }
    }

    /// Slimming reads ahead of the tokenizer: a page that ends inside a tag, an attribute, a
    /// comment or foreign content must slim to the same tree as it parses to.
    #[test]
    fn pages_cut_short_make_the_same_tree_slimmed() {
        let page = "<p class=a data-x='1 2'>t<!-- c --><svg viewBox=\"0 0 9 9\"><title>S</title >\
                    <desc>d</desc\n><g><path d=\"M0 0\"/></g><![CDATA[x]]></svg><math><mi>x</mi>\
                    </math><script>if (a<b) {}</script><pre>\nq</pre><a href=/x>y</a></p>";
        for cut in 0..=page.len() {
            same_tree(&page[..cut]);
        }
    }

    #[test]
    fn slimmed_pages_make_the_same_tree() {
        for html in random_pages(7, 100_000) {
            same_tree(&html);
        }
    }

    #[test]
    fn slimming_drops_scripts_and_unread_attributes() {
        let html = "<!-- c --><p class=a data-x='1 2' ID=\"i\" onclick=go()>t<!--->u</p>\
                    <script type=module>if (a<b) {}</script><style></style>\
                    <br data-y/><i hidden></i  x=1>";
        assert_eq!(
            slim(html, MAX_ATTRIBUTES).html,
            "<!-- c --><p k=0 j=1>t<!--->u</p><script type=module> </script><style></style>\
             <br/><i h></i>"
        );
        same_tree(html);
        // Past the cap, attributes go whatever their name.
        assert_eq!(slim("<p class=a id=b role=c>", 2).html, "<p k=0 j=1>");
    }

    #[test]
    fn class_style_and_id_values_are_numbered_once_each() {
        let html = "<p class=\"a b\" id=x>1</p><p CLASS='a b' class=z style=\"color:red\">2</p>\
                    <p class=\"a&amp;b\" class=a>3</p><img class=\"e\"/><br id=x />\
                    <i id='q\r' class=>4</i>";
        let slimmed = slim(html, MAX_ATTRIBUTES);
        assert_eq!(
            slimmed.html,
            "<p k=0 j=1>1</p><p k=0 y=2>2</p><p c=\"a&amp;b\">3</p><img k=3 /><br j=1 />\
             <i id='q\r' k=4>4</i>",
            "a repeated value has one number, the first attribute of a name is the one kept, \
             values that the tokenizer reads otherwise than as written keep their names, and a \
             space keeps a number from a closing slash"
        );
        assert_eq!(slimmed.values, ["a b", "x", "color:red", "e", ""]);
        same_tree(html);
        let Parsed {
            document: doc,
            attributes,
            ..
        } = parse(html, 1000, false).unwrap();
        let classes: Vec<_> = doc
            .select("p, img, i")
            .unwrap()
            .map(|e| {
                let attrs = attributes.of(e.as_node());
                attrs
                    .iter()
                    .map(|a| format!("{}={}", &*a.name.local, &*a.value))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(
            classes,
            [
                vec!["class=a b", "id=x"],
                vec!["class=a b", "style=color:red"],
                vec!["class=a&b"],
                vec!["class=e"],
                vec!["id=q\n", "class="],
            ]
        );
    }

    #[test]
    fn slimming_keeps_list_numbers_and_cell_spans_where_they_apply() {
        let html = "<OL Start=3 Reversed><li VALUE=7>a<input value=x></li></OL><ul start=2 reversed><p value=1>\
                    <table><tr><TD colspan=2 rowspan=3>b</TD><th RowSpan=2>c</th>\
                    <td data-colspan=9>d</td></tr></table><div colspan=2>";
        assert_eq!(
            slim(html, MAX_ATTRIBUTES).html,
            "<OL Start=3 Reversed><li VALUE=7>a<input></li></OL><ul><p>\
             <table><tr><TD colspan=2 rowspan=3>b</TD><th RowSpan=2>c</th>\
             <td>d</td></tr></table><div>"
        );
        same_tree(html);
    }

    #[test]
    fn slimming_keeps_what_a_meta_says_only_for_og_title_and_site_name() {
        let html = "<meta name=description content='A long description'>\
                    <META Property = ' OG:Title ' Content=\"T\" data-x=1>\
                    <meta name=og:title content=U itemprop=name><meta property=og:type content=x>\
                    <meta content=S property=og:site_name><p content=x property=y>";
        assert_eq!(
            slim(html, MAX_ATTRIBUTES).html,
            "<meta><META Property = ' OG:Title ' Content=\"T\">\
             <meta name=og:title content=U p=name><meta>\
             <meta content=S property=og:site_name><p>"
        );
        same_tree(html);
    }

    #[test]
    fn slimming_keeps_what_places_a_shadow_root() {
        let html = "<x-a data-x=1><template ShadowRootMode=open title=t><SLOT Name=n id=s>\
                    </SLOT></template><i slot=n name=m>a</i><input name=q></x-a>";
        assert_eq!(
            slim(html, MAX_ATTRIBUTES).html,
            "<x-a><template ShadowRootMode=open><SLOT Name=n j=0></SLOT></template>\
             <i slot=n>a</i><input></x-a>"
        );
        same_tree(html);
        let Parsed {
            document: doc,
            attributes,
            ..
        } = build(&unslimmed(html), usize::MAX, false).unwrap();
        assert_eq!(
            dump(&doc, &attributes),
            "<html><head></head><body><x-a><slot name=\"n\" id=\"s\"><i slot=\"n\">\"a\"</i>\
             </slot></x-a></body></html>"
        );
    }

    #[test]
    fn whitespace_between_tags_becomes_one_space() {
        let html = "<ul>\n  <li>a b\n  c</li>\r\n\t<li> </li>\n</ul>\n<pre>\n\n<b>x</b>\n</pre>\
                    <textarea>\n\n</textarea><p>\n<!-- c -->  \n<i>y</i><listing>\n<i>z</i>";
        assert_eq!(
            slim(html, MAX_ATTRIBUTES).html,
            "<ul> <li>a b\n  c</li> <li> </li> </ul> <pre>\n\n<b>x</b>\n</pre>\
             <textarea> </textarea><p> <!-- c -->  \n<i>y</i><listing>\n<i>z</i>",
            "text stays, and so do whitespace after a comment, a lone line break that the \
             tree builder drops and the layout inside `pre` and `listing`"
        );
        same_tree(html);
    }

    #[test]
    fn spaces_cut_between_chunks_stay_two() {
        // The tokenizer hands each chunk's text over apart: two spaces across a cut arrive as
        // two pieces of one space, the first of which is kept as an empty node.
        let head = "<pre><i>a</i> ";
        let pad = "x".repeat(CHUNK - head.len() - "<p></p>".len());
        let html = format!("<p>{pad}</p>{head} <i>b</i></pre>");
        assert_eq!(html.find("  "), Some(CHUNK - 1));
        let doc = build(&unslimmed(&html), 1000, false).unwrap().document;
        let pre = doc.select_first("pre").unwrap();
        let texts: Vec<String> = pre
            .as_node()
            .children()
            .filter_map(|n| n.as_text().map(|t| t.borrow().clone()))
            .collect();
        assert_eq!(texts, ["  "]);
    }

    #[test]
    fn attributes_read_by_segmentation_get_short_names_back() {
        let html = "<div CLASS='x y' role=main style=\"display: none\" itemprop=text \
                    aria-hidden=true hidden c=1 a=2 s=3>t</div><font color=red size=2>f</font>";
        let slimmed = slim(html, MAX_ATTRIBUTES);
        assert!(slimmed.short_names);
        assert_eq!(
            slimmed.html,
            "<div k=0 r=main y=1 p=text a=true h>t</div><font color=red size=2>f</font>",
            "one-letter attributes of the page go; the tree builder's keep their names"
        );
        same_tree(html);
        let Parsed {
            document: doc,
            attributes,
            ..
        } = parse(html, 1000, false).unwrap();
        let div = doc.select_first("div").unwrap();
        let names: Vec<_> = attributes
            .of(div.as_node())
            .iter()
            .map(|a| (&*a.name.local, &*a.value))
            .collect();
        assert_eq!(
            names,
            [
                ("class", "x y"),
                ("role", "main"),
                ("style", "display: none"),
                ("itemprop", "text"),
                ("aria-hidden", "true"),
                ("hidden", ""),
            ]
        );
        // Where the rest of a page is left as it is, one-letter attributes of the page reach
        // the tree, so no attribute is given a short name.
        let html = "<svg><foreignObject><div></b></div></foreignObject></svg>\
                    <p class=k c=x a=true>t</p>";
        let slimmed = slim(html, MAX_ATTRIBUTES);
        assert!(!slimmed.short_names, "{}", slimmed.html);
        assert!(slimmed.html.ends_with("<p class=k c=x a=true>t</p>"));
        same_tree(html);
        // So where text that the tokenizer may read as markup after all is left as it is: CDATA
        // that is a bogus comment ending at its first `>` (the current element is HTML), the
        // text of a title.
        for html in [
            "<math><mi><b><![CDATA[x]>y<i c=d>t</i>",
            "<title>a<i c=d>b</i></title><p class=x>t",
        ] {
            let slimmed = slim(html, MAX_ATTRIBUTES);
            assert!(!slimmed.short_names, "{}", slimmed.html);
            same_tree(html);
        }
        assert!(slim("<title>a</title><p class=x>t", MAX_ATTRIBUTES).short_names);
    }

    #[test]
    fn script_ends_where_the_tokenizer_ends_it() {
        for html in [
            // A `<script` inside `<!--` is only left by its own end tag.
            "<script><!--<script></script>x</script><p>after</p>",
            "<script><!-- a --></script><p>after</p>",
            "<script><!--></script><p>after</p>",
            "<script>a</scripts></script ><p>after</p>",
            "<script><!--<script>--></script><p>after</p>",
            "<style><!--</style><p>after</p>",
            "<title>a<!--b</title><p>c-->d</p>",
            "<textarea><b>x</textarea><p>t</p>",
            "<plaintext><script>x</script><!-- y -->",
            "<script>unclosed",
            "<p>a<!--b",
            "<p>a<!-- b --!>c",
            "<p a='x>",
            "<p><!--><b>x</b><!--->y",
            "<svg><style>.a{fill:red}</style><script>if (a<b) {}</script></svg><p>t</p>",
            "<svg><style><![CDATA[ p{} ]]></style></svg><p>t</p>",
            "<math><style><b>x</b></style></math><p>t</p>",
            "<select><style><option>a</option></style></select><p>t</p>",
            "<select><script>if (a<b) {}</script><option>a</select><style>b<i></style>",
            "<select><title><v d=\"</title><v \">\n",
            "<select><xmp><i class=\"</xmp><b>\">x</i></select><p>t",
            "<select><select><title><b class=x></title><p>t",
            "<table><tr><td><select><td><iframe><p id='</iframe>'>x</select>",
            "<select><template><title><i c=d></title><p>t",
            "<svg><foreignObject><div><style>p{a:b}</style><p>x</p></div></foreignObject></svg><p>t",
            "<svg><title>Icon</title><path d=M0 /></svg><script>if(a<b){}</script><p>t</p>",
            "<svg><desc><script>a<b</script></desc></svg><p>t",
            "<svg><foreignObject><script>a<b</script><style>a<b</style></foreignObject></svg><p>t",
            "<svg><g><foreignObject><p>x</p><script>a<b</script></foreignObject><style>a</style></g></svg>",
        ] {
            same_tree(html);
        }
        assert_eq!(
            slim(
                "<script><!--<script></script>x</script><p>t",
                MAX_ATTRIBUTES
            )
            .html,
            "<script> </script><p>t"
        );
    }

    fn count(node: &NodeRef) -> usize {
        node.inclusive_descendants().count()
    }

    #[test]
    fn node_limit_stops_a_reconstruction_bomb() {
        // Open formatting elements are made again in every paragraph: 2000 × 2000 nodes.
        let mut html = "<p>".to_string();
        for i in 0..2000 {
            html.push_str(&format!("<b id={i}>"));
        }
        html.push_str(&"<p>x".repeat(2000));
        let t = std::time::Instant::now();
        let Err(err) = parse(&html, 100_000, false) else {
            panic!("a page of more than 100000 nodes was parsed");
        };
        assert!(err.to_string().contains("100000 DOM nodes"), "{err}");
        assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    }

    #[test]
    fn pages_under_the_limit_parse_whole() {
        let html = "<div><p>one</p><p>two <b>three</b></p><!-- c --></div>";
        let Parsed {
            document: doc,
            elements,
            ..
        } = parse(html, 1000, false).unwrap();
        // document, html, head, body, div, p, text, p, text, b, text; comments are dropped
        assert_eq!(count(&doc), 11);
        // html, head, body, div, p, p, b
        assert_eq!(elements, 7);
        assert!(parse(html, 10, false).is_ok());
        assert!(matches!(parse(html, 5, false), Err(Error::TooLarge(_))));
    }
}
