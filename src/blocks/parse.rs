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
//! The tokenizer checks every attribute of a tag against the ones before it, which is quadratic
//! in the number of attributes of one tag; attributes past [`MAX_ATTRIBUTES`] are dropped first.

use crate::error::{Error, Result};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{local_name, ns, Attribute, QualName};
use kuchikiki::{Node, NodeData, NodeRef};
use rustc_hash::FxHashMap;
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

/// Parse a document (with scripting disabled, as a client without scripts would), refusing it
/// when it makes more than `max_nodes` nodes. Elements are made without attributes; the ones
/// segmentation reads are returned beside the tree.
/// Also returns the number of elements attached to the tree, so that the walk can make room
/// for them at once.
pub(crate) fn parse(html: &str, max_nodes: usize) -> Result<(NodeRef, Attributes, usize)> {
    let html = cap_attributes(html, MAX_ATTRIBUTES);
    let made = Rc::new(Cell::new(0usize));
    let sink = Bounded {
        inner: kuchikiki::Sink::default(),
        made: Rc::clone(&made),
        max_nodes,
        attributes: RefCell::default(),
        elements: Cell::new(0),
    };
    let mut opts = html5ever::ParseOpts::default();
    opts.tree_builder.scripting_enabled = false;
    let mut parser = html5ever::parse_document(sink, opts);
    let mut rest: &str = &html;
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
    }
    let sink = parser.finish();
    if made.get() > max_nodes {
        return Err(too_many(max_nodes));
    }
    Ok((
        sink.inner.document_node,
        sink.attributes.into_inner(),
        sink.elements.get(),
    ))
}

fn too_many(max_nodes: usize) -> Error {
    Error::TooLarge(format!(
        "more than {max_nodes} DOM nodes (raise the limit with --max-nodes or Limits::segment.max_nodes)"
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
}

impl Bounded {
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
        attrs.retain(|a| super::attribute_is_read(&a.name.local));
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
        // Text of only whitespace (a third of a page's nodes: the line breaks between tags) is
        // kept as an empty node, with no buffer to make and free; segmentation reads an empty
        // text node as one space.
        let blank = unread || text.bytes().all(|b| b.is_ascii_whitespace());
        // The tokenizer hands text over in pieces (it stops at every line break and character
        // reference), which are joined into one node: room for a few is made at once.
        if let Some(last) = parent.last_child() {
            if let Some(existing) = last.as_text() {
                if self.made.get() <= self.max_nodes && !unread {
                    let mut existing = existing.borrow_mut();
                    if existing.is_empty() && !blank {
                        existing.reserve(text.len().max(TEXT_ROOM) + 1);
                        existing.push(' ');
                    }
                    if !existing.is_empty() {
                        existing.push_str(&text);
                    }
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
        for a in attrs {
            let name = (&a.name.ns, &a.name.local);
            if super::attribute_is_read(&a.name.local)
                && !kept.iter().any(|k| (&k.name.ns, &k.name.local) == name)
            {
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

/// Byte classes of the tokenizer's tag syntax, for [`cap_attributes`].
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

/// Drop the attributes of a tag past the first `max` (the tag keeps its `>`), or return the
/// input as it is when no tag has that many. A scan of the tokenizer's tag syntax: comments and
/// the content of raw-text elements (`script`, `style`…) are skipped.
fn cap_attributes(html: &str, max: usize) -> Cow<'_, str> {
    let b = html.as_bytes();
    let n = b.len();
    let class = |j: usize| TAG_BYTE[usize::from(b[j])];
    // The first index from `j` whose byte is of none of the classes in `stop`, or `n`.
    let skip = |mut j: usize, over: u8| {
        while j < n && class(j) & over != 0 {
            j += 1;
        }
        j
    };
    let until = |mut j: usize, stop: u8| {
        while j < n && class(j) & stop == 0 {
            j += 1;
        }
        j
    };
    let mut out: Option<String> = None;
    let mut copied = 0usize;
    let mut i = 0usize;
    while let Some(off) = memchr::memchr(b'<', &b[i..]) {
        let start = i + off;
        i = start + 1;
        let closing = match b.get(i) {
            Some(b'!') => {
                if b[i..].starts_with(b"!--") {
                    i = memchr::memmem::find(&b[i + 3..], b"-->").map_or(n, |e| i + 3 + e + 3);
                }
                continue;
            }
            Some(b'/') => true,
            Some(c) if c.is_ascii_alphabetic() => false,
            _ => continue,
        };
        let name_at = i + usize::from(closing);
        if !b.get(name_at).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let mut j = until(name_at, SPACE | SLASH | GT);
        let name = &b[name_at..j];
        // Attributes: names, then optional `= value`, quoted or not.
        let mut count = 0usize;
        let mut cut_at = None;
        loop {
            j = skip(j, SPACE | SLASH);
            if j >= n || b[j] == b'>' {
                break;
            }
            count += 1;
            if count > max && cut_at.is_none() {
                cut_at = Some(j);
            }
            // The first character of a name may be `=`.
            j = until(j + 1, SPACE | SLASH | GT | EQ);
            let k = skip(j, SPACE);
            if k >= n || b[k] != b'=' {
                continue;
            }
            let k = skip(k + 1, SPACE);
            j = match b.get(k) {
                Some(&q @ (b'"' | b'\'')) => {
                    memchr::memchr(q, &b[k + 1..]).map_or(n, |e| k + 1 + e + 1)
                }
                _ => until(k, SPACE | GT),
            };
        }
        if let Some(cut) = cut_at {
            let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
            o.push_str(&html[copied..cut]);
            copied = j.min(n);
        }
        i = j.min(n);
        if !closing && raw_text(name) {
            // Skip to the matching end tag.
            let mut k = i;
            i = n;
            while let Some(off) = memchr::memchr(b'<', &b[k..]) {
                let at = k + off;
                if b.get(at + 1) != Some(&b'/') {
                    k = at + 1;
                    continue;
                }
                let tail = &b[at + 2..];
                if tail.len() >= name.len() && tail[..name.len()].eq_ignore_ascii_case(name) {
                    i = at;
                    break;
                }
                k = at + 2;
            }
        }
    }
    match out {
        None => Cow::Borrowed(html),
        Some(mut o) => {
            o.push_str(&html[copied..]);
            Cow::Owned(o)
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    // The scan as first written, byte by byte: the fast one must agree with it.
    /// Elements whose content is text up to their end tag, not markup.
    fn raw_text_reference(name: &[u8]) -> bool {
        [
            &b"script"[..],
            b"style",
            b"textarea",
            b"title",
            b"xmp",
            b"iframe",
            b"noembed",
            b"noframes",
        ]
        .iter()
        .any(|n| n.eq_ignore_ascii_case(name))
    }

    /// Drop the attributes of a tag past the first `max` (the tag keeps its `>`), or return the
    /// input as it is when no tag has that many. A scan of the tokenizer's tag syntax: comments and
    /// the content of raw-text elements (`script`, `style`…) are skipped.
    fn cap_attributes_reference(html: &str, max: usize) -> Cow<'_, str> {
        let b = html.as_bytes();
        let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r');
        let mut out: Option<String> = None;
        let mut copied = 0usize;
        let mut i = 0usize;
        while let Some(off) = memchr::memchr(b'<', &b[i..]) {
            let start = i + off;
            i = start + 1;
            if b[i..].starts_with(b"!--") {
                i = memchr::memmem::find(&b[i + 3..], b"-->").map_or(b.len(), |e| i + 3 + e + 3);
                continue;
            }
            let closing = b.get(i) == Some(&b'/');
            let name_at = i + usize::from(closing);
            if !b.get(name_at).is_some_and(u8::is_ascii_alphabetic) {
                continue;
            }
            let mut j = name_at;
            while j < b.len() && !space(b[j]) && b[j] != b'/' && b[j] != b'>' {
                j += 1;
            }
            let name = &b[name_at..j];
            // Attributes: names, then optional `= value`, quoted or not.
            let mut count = 0usize;
            let mut cut_at = None;
            loop {
                while j < b.len() && (space(b[j]) || b[j] == b'/') {
                    j += 1;
                }
                if j >= b.len() || b[j] == b'>' {
                    break;
                }
                count += 1;
                if count > max && cut_at.is_none() {
                    cut_at = Some(j);
                }
                // The first character of a name may be `=`.
                j += 1;
                while j < b.len() && !space(b[j]) && !matches!(b[j], b'/' | b'>' | b'=') {
                    j += 1;
                }
                let mut k = j;
                while k < b.len() && space(b[k]) {
                    k += 1;
                }
                if b.get(k) != Some(&b'=') {
                    continue;
                }
                k += 1;
                while k < b.len() && space(b[k]) {
                    k += 1;
                }
                j = match b.get(k) {
                    Some(&q @ (b'"' | b'\'')) => {
                        memchr::memchr(q, &b[k + 1..]).map_or(b.len(), |e| k + 1 + e + 1)
                    }
                    _ => {
                        while k < b.len() && !space(b[k]) && b[k] != b'>' {
                            k += 1;
                        }
                        k
                    }
                };
            }
            if let Some(cut) = cut_at {
                let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
                o.push_str(&html[copied..cut]);
                copied = j.min(b.len());
            }
            i = j.min(b.len());
            if !closing && raw_text_reference(name) {
                // Skip to the matching end tag.
                let mut k = i;
                i = b.len();
                while let Some(off) = memchr::memmem::find(&b[k..], b"</") {
                    let at = k + off;
                    let tail = &b[at + 2..];
                    if tail.len() >= name.len() && tail[..name.len()].eq_ignore_ascii_case(name) {
                        i = at;
                        break;
                    }
                    k = at + 2;
                }
            }
        }
        match out {
            None => Cow::Borrowed(html),
            Some(mut o) => {
                o.push_str(&html[copied..]);
                Cow::Owned(o)
            }
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

    #[test]
    fn fast_scan_agrees_with_the_byte_by_byte_one() {
        for html in random_pages(7, 50_000) {
            for max in 0..4 {
                assert_eq!(
                    cap_attributes(&html, max),
                    cap_attributes_reference(&html, max),
                    "{html:?} {max}"
                );
            }
        }
    }

    #[test]
    fn attributes_past_the_limit_are_dropped() {
        let html = "<p a=1 b='x y' c=\"z>\" d e=f>text</p>";
        assert!(matches!(cap_attributes(html, 5), Cow::Borrowed(_)));
        assert_eq!(cap_attributes(html, 3), "<p a=1 b='x y' c=\"z>\" >text</p>");
        assert_eq!(cap_attributes(html, 0), "<p >text</p>");
    }

    #[test]
    fn comments_and_scripts_are_not_tags() {
        let html = "<!-- <a b c d> --><script>if (a<b c d e) {}</script><i x y>t</i>";
        assert!(matches!(cap_attributes(html, 2), Cow::Borrowed(_)));
        assert_eq!(
            cap_attributes(html, 1),
            "<!-- <a b c d> --><script>if (a<b c d e) {}</script><i x >t</i>"
        );
    }

    #[test]
    fn cut_input_does_not_fail() {
        for html in [
            "<p a b c",
            "<p a='unclosed",
            "<script>x",
            "<p a=",
            "<!--",
            "<",
        ] {
            let _ = cap_attributes(html, 1);
            assert!(parse(html, 100).is_ok(), "{html}");
        }
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
        let Err(err) = parse(&html, 100_000) else {
            panic!("a page of more than 100000 nodes was parsed");
        };
        assert!(err.to_string().contains("100000 DOM nodes"), "{err}");
        assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    }

    #[test]
    fn pages_under_the_limit_parse_whole() {
        let html = "<div><p>one</p><p>two <b>three</b></p><!-- c --></div>";
        let (doc, _, elements) = parse(html, 1000).unwrap();
        // document, html, head, body, div, p, text, p, text, b, text; comments are dropped
        assert_eq!(count(&doc), 11);
        // html, head, body, div, p, p, b
        assert_eq!(elements, 7);
        assert!(parse(html, 10).is_ok());
        assert!(matches!(parse(html, 5), Err(Error::TooLarge(_))));
    }
}
