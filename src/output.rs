//! What the CLI writes: block records (`textsift blocks`) and extractions in every format
//! (`textsift extract`).
//!
//! A block record can be edited by hand (its `label`) and read back by training, so it also
//! deserializes, checking feature names against the schema.

use crate::blocks::{CellMark, Join, ListItem, Role};
use crate::extract::{ExtractedBlock, Extraction};
use crate::features::{N_FEATURES, SCHEMA};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A block's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// Main content.
    Content,
    /// Everything else: menus, footers, ads, related links, comments…
    Boilerplate,
}

impl Label {
    /// `Content` when `is_content`.
    pub fn from_bool(is_content: bool) -> Label {
        if is_content {
            Label::Content
        } else {
            Label::Boilerplate
        }
    }

    /// Whether this is `Content`.
    pub fn is_content(self) -> bool {
        self == Label::Content
    }
}

/// The features of one block as a JSON object `{name: value}` in schema order.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureValues(pub Vec<f32>);

impl Serialize for FeatureValues {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (def, v) in SCHEMA.iter().zip(&self.0) {
            map.serialize_entry(def.name, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for FeatureValues {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FeatureValues;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of feature values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FeatureValues, A::Error> {
                let mut values = vec![f32::NAN; N_FEATURES];
                while let Some(name) = map.next_key::<String>()? {
                    let Some(i) = SCHEMA.iter().position(|d| d.name == name) else {
                        return Err(serde::de::Error::custom(format!(
                            "unknown feature `{name}` (the records come from another feature schema; recompute them with this version's `textsift blocks`)"
                        )));
                    };
                    // A bad value names its feature.
                    values[i] = map
                        .next_value::<f32>()
                        .map_err(|e| serde::de::Error::custom(format!("feature `{name}`: {e}")))?;
                }
                if let Some(i) = values.iter().position(|v| v.is_nan()) {
                    return Err(serde::de::Error::custom(format!(
                        "feature `{}` is missing",
                        SCHEMA[i].name
                    )));
                }
                Ok(FeatureValues(values))
            }
        }
        d.deserialize_map(V)
    }
}

/// One line of `textsift blocks` output. Read back for training, a record with a key of
/// another name is refused: a key misspelt by hand (`lable`) would be passed over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockRecord {
    /// The input as given (path, `-`, or record id).
    pub source: String,
    /// Where the page's record is in its input, when `source` names it by its id or URL
    /// ([`crate::input::Item::place`]: `FILE:LINE`, `FILE#N`): two files may hold records of
    /// one id, and training takes them for two pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// For a page of a WARC file, the `WARC-Record-ID` of its record: a crawl may hold the
    /// same URI more than once, and the id joins a block back to its record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warc_record_id: Option<String>,
    /// For a page of a WARC file, its `WARC-Date`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warc_date: Option<String>,
    /// The URL the page was fetched from, when the input names it apart from `source` (a JSON
    /// Lines record with both an `id` and a `url`): training groups the page with the other
    /// pages of its site, as it does a page whose `source` is a URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The site the page belongs to, set by hand as a manifest's `group`: training keeps the
    /// pages of one group in one fold. Never written by `textsift blocks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Block index in the page.
    pub index: usize,
    /// The model's label, or a label set by hand for training.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "label_by_name"
    )]
    pub label: Option<Label>,
    /// The model's score for content, from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
    /// Tag of the block's nearest block-level element.
    pub tag: String,
    /// The block's text.
    pub text: String,
    /// The feature schema the features were computed under ([`crate::features::schema_id`]):
    /// training refuses records of another schema, whose values may mean other things under
    /// the same names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The features, by name.
    pub features: FeatureValues,
    /// Class/id values of the block's element and its ancestors, nearest first: a model
    /// trained on these records learns its class/id tokens from them. Written for every
    /// block (`[]` when it has none) and required when read: a record cut of it would train a
    /// model that learns no class/id tokens.
    pub classes: Vec<String>,
}

/// A label as a record names it, `null` for none: a value that is no string is said to be one
/// (serde's enum reading calls a number or a list "expected value", as a syntax error).
fn label_by_name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Label>, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None => Ok(None),
        Some("content") => Ok(Some(Label::Content)),
        Some("boilerplate") => Ok(Some(Label::Boilerplate)),
        Some(other) => Err(serde::de::Error::unknown_variant(
            other,
            &["content", "boilerplate"],
        )),
    }
}

/// Output formats of `textsift extract`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// The title, then the content: one paragraph per block, blank lines between, list
    /// items, lines after a single `<br>` and a simple table's rows on lines of their own.
    Text,
    /// A page's record as a JSON object (pretty-printed): source, title, text; for a page of
    /// a WARC file also warc_record_id and warc_date, for a JSON Lines record with an id and
    /// a url also its url. Several pages: an array of them.
    Json,
    /// The same, one JSON object per line.
    Jsonl,
    /// Headings, lists, quotes, code and simple tables as Markdown, the text escaped.
    Markdown,
    /// A debug page: every block coloured by score, features on hover, kept text outlined.
    Html,
}

/// The index of the kept block that says the title (the page's headline, kept as content):
/// text and Markdown then write the title once, there, Markdown as the top heading (a
/// heading inside a list item too, rather than as the item), and not above the text. Such a
/// block is the first kept one when it is a heading, or a paragraph standing for one
/// (`<font size=+2><b>…` on pages made before style sheets, often in a layout table's cell)
/// but not another list item, a line of a paragraph, code, a quote or a cell of a table laid
/// out as one; or else the headline's own `<h1>` ([`Extraction::headline_block`]) outside
/// quotes, wherever it stands (below a brand's name or a banner kept above it). Another
/// heading that says the title lower down repeats it, as a section's heading may.
fn title_block(e: &Extraction, pieces: &[Piece]) -> Option<usize> {
    if e.title.is_empty() {
        return None;
    }
    let title = crate::decode::normalized(&e.title);
    pieces.iter().enumerate().find_map(|(k, piece)| {
        let Piece::Block(b) = piece else {
            return None;
        };
        let plain = b.collapsed.is_none() && b.tag != "pre" && b.quote.is_none();
        let stands_for_heading = match b.heading_level() {
            Some(_) => k == 0 || (e.headline_block == Some(b.index) && plain),
            None => k == 0 && plain && matches!(b.role, Role::Text | Role::Cell { .. }),
        };
        (stands_for_heading && crate::decode::normalized(b.collapsed_text()) == title)
            .then_some(b.index)
    })
}

/// The title and the main text, a blank line between them when there are both, and a
/// newline at the end; the title is not written above the text when the text says it. A page
/// with neither gives an empty string, as [`to_markdown`] does, not an empty line. The text
/// is laid out from the blocks' labels, as [`to_markdown`]'s is, so that blocks labelled
/// again after extraction are written as labelled.
pub fn to_text(e: &Extraction) -> String {
    let title = if title_block(e, &pieces(&e.blocks, &e.marks)).is_some() {
        ""
    } else {
        e.title.as_str()
    };
    let text = plain_text(&e.blocks, &e.marks);
    let mut out = [title, text.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The kept blocks as Markdown: headings, list items (numbered as the page numbers them,
/// nested in the kept items of the lists around them, their later paragraphs inside them),
/// a line after a single `<br>` after a hard line break, text after a small image on its line,
/// quotes, code fenced, simple tables as tables, links as `[text](target)` when the extractor
/// kept them ([`crate::SegmentLimits::links`]), and every other character that Markdown would
/// read as markup escaped, so that the text renders as the page showed it.
pub fn to_markdown(e: &Extraction) -> String {
    let mut out = String::new();
    let pieces = pieces(&e.blocks, &e.marks);
    let title_block = title_block(e, &pieces);
    if !e.title.is_empty() && title_block.is_none() {
        out.push_str(&format!("# {}\n\n", heading_text(&e.title)));
    }
    let mut lists = Lists {
        bullets_take_turns: true,
        ..Lists::default()
    };
    // The kept items by their elements, for the items whose own text comes after a list
    // inside them.
    let items: FxHashMap<u32, ListItem> = e
        .blocks
        .iter()
        .filter_map(|b| match b.role {
            Role::Item(item) if b.label.is_content() => Some((item.element, item)),
            _ => None,
        })
        .collect();
    // The quote around the items of `lists`.
    let mut lists_quote = None;
    let mut follows = Follows::default();
    // The quote of the piece above, when it was quoted: the next one, in the same quote and
    // right below it on the page, goes on in that quote.
    let mut in_quote = None;
    // The same for a quote inside the item that the piece above was more of.
    let mut in_item_quote = None;
    // The piece above was written as a heading, which cannot end in a hard line break: a
    // line below it that is no more of that heading is a paragraph of its own.
    let mut heading = false;
    // The piece above was written as a code block, whose closing fence a hard line break
    // would turn into text.
    let mut code = false;
    let body = lay_out(pieces, |piece| {
        let quote_above = in_quote.take();
        let item_quote_above = in_item_quote.take();
        let heading_above = std::mem::replace(
            &mut heading,
            matches!(piece, Piece::Block(b) if b.heading_level().is_some()
                || title_block == Some(b.index)),
        );
        let code_above = std::mem::replace(
            &mut code,
            matches!(piece, Piece::Block(b) if is_code(b) && title_block != Some(b.index)),
        );
        let b = match piece {
            Piece::Table(table) => {
                // Whether the table comes right after the block laid out last.
                let right_below = follows
                    .0
                    .is_some_and(|i| Some(i + 1) == table.first_block());
                follows = Follows::default();
                // A table inside an item laid out above goes at the item's column, in the
                // quote around its list if any.
                if let Some(column) = table.item().and_then(|item| lists.open_column(item)) {
                    // The next item after a blank line, which ends the table, of the same
                    // quote when the table's last block is right above.
                    lists.after_item = false;
                    follows = Follows(table.last_block());
                    in_quote = lists_quote.is_some().then_some(lists_quote);
                    let q = if lists_quote.is_some() { "> " } else { "" };
                    let indent = format!("{q}{}", " ".repeat(column));
                    // A quote inside the item around the table: its lines at the item's
                    // column, after `> `, in the quote above when it goes on.
                    let item_quote = table.quote().filter(|&inner| Some(inner) != lists_quote);
                    in_item_quote = item_quote;
                    let inner = if item_quote.is_some() { "> " } else { "" };
                    let prefix = format!("{indent}{inner}");
                    let rows = format!("{prefix}{}", lines_under(&md_table(table), &prefix));
                    if item_quote.is_some() && item_quote_above == item_quote && right_below {
                        return quote_goes_on(&indent, rows);
                    }
                    let gap = if q.is_empty() {
                        Gap::Blank
                    } else {
                        Gap::QuoteBlank
                    };
                    return (rows, gap);
                }
                lists.close();
                // A table inside a quote is quoted, in the quote above when it goes on.
                if let Some(quote) = table.quote() {
                    follows = Follows(table.last_block());
                    in_quote = Some(Some(quote));
                    let rows = lines_under(&md_table(table), "> ");
                    let gap = if quote_above == Some(Some(quote)) && right_below {
                        Gap::QuoteBlank
                    } else {
                        Gap::Blank
                    };
                    return (format!("> {rows}"), gap);
                }
                return (md_table(table), Gap::Blank);
            }
            Piece::Block(b) => b,
        };
        // A line goes under the line above it, when that one is kept.
        let under = follows.block(b);
        // A quote inside an item goes in it while the item is open above; else it is a
        // quote of its own.
        let mut item_quote = None;
        let role = match b.role {
            // The title, written as the top heading, begins no item.
            _ if title_block == Some(b.index) => Role::Text,
            Role::ItemQuote { item, join } if lists.is_open(item.element) => {
                item_quote = b.quote;
                Role::ItemParagraph { item, join }
            }
            Role::ItemQuote { join, .. } => join.as_text(),
            // An item begun above by a list inside it, whose own text comes after that list.
            Role::Item(item) if lists.begun.contains(&item.element) => Role::ItemParagraph {
                item,
                join: Join::Paragraph,
            },
            role => role,
        };
        // Text inside `<pre>` keeps its lines in a code block, wherever it stands: its
        // indented lines would otherwise read as code without their escapes being read.
        let pre = is_code(b);
        // A list inside a quote inside an item of a kept list (a quote that indents a nested
        // list) stays nested in that item, in the outer list's quote if any, not its own:
        // quoting it would end the outer list.
        let item = match role {
            Role::Item(item) | Role::ItemParagraph { item, .. } => Some(item),
            _ => None,
        };
        let item_depth = item.map(|item| item.depth);
        // The lines of a quote inside the item go at the item's column, after `> `.
        in_item_quote = item_quote;
        // The item holding the list is open above, so a quote that sets this item apart from
        // the lists above lies inside that item.
        let in_outer_item = item.is_some_and(|item| {
            b.quote != lists_quote && lists.open.iter().any(|o| Some(o.element) == item.in_item)
        });
        // Whatever a quote holds (paragraphs, lines, lists, headings, code) starts its lines
        // with `> `; the title is the page's, never quoted.
        let quote = if in_outer_item || item_quote.is_some() {
            lists_quote
        } else {
            b.quote
        };
        let quoted = quote.is_some() && title_block != Some(b.index);
        let q = if quoted { "> " } else { "" };
        // The piece keeps its quote open for the next one: a paragraph break right below a
        // piece of the same quote is a blank line of that quote, so that it stays one quote.
        in_quote = quoted.then_some(quote);
        let paragraph_gap = if quoted && quote_above == Some(quote) && under {
            Gap::QuoteBlank
        } else {
            Gap::Blank
        };
        // A block's text in an item whose text starts at `column`: code's lines go at that
        // column, so that they stay in the item.
        // A heading inside an item (a card's title) stays a heading there, as converters
        // write it (`- ### Name`).
        let inner = if item_quote.is_some() { "> " } else { "" };
        let in_item = |column: usize| match b.heading_level() {
            _ if pre => code_block_under(&b.text, &format!("{q}{}{inner}", " ".repeat(column))),
            Some(level) => format!("{} {}", hashes(level), heading_inline(b)),
            None => md_inline(b, true),
        };
        if item_depth.is_some() && lists_quote != b.quote && !in_outer_item && item_quote.is_none()
        {
            // The lists above were in another quote, or outside this one.
            lists.close();
            lists_quote = b.quote;
        }
        // More of a kept item: a line or a paragraph of its own at the item's text column.
        // When the item's first blocks are not kept, this one begins the item.
        let role = match role {
            Role::ItemParagraph { item, join } => match lists.more_of(item) {
                Ok(column) => {
                    let gap = match join {
                        // A heading's later line: one Markdown heading is one line.
                        Join::Line if under && b.heading_level().is_some() => {
                            return (heading_inline(b), Gap::Space)
                        }
                        Join::SameLine if under => return (on_line_above(b), Gap::Space),
                        // Code is a block of its own: no hard line break before or after it.
                        Join::Line if under && !heading_above && !code_above && !pre => {
                            Gap::HardBreak
                        }
                        _ => paragraph_gap,
                    };
                    let indent = " ".repeat(column);
                    let text = format!("{q}{indent}{inner}{}", in_item(column));
                    // A new paragraph of the same quote: a line of the quote with nothing
                    // else on it, at the item's column, keeps it one quote.
                    if item_quote.is_some()
                        && item_quote_above == item_quote
                        && under
                        && gap != Gap::HardBreak
                    {
                        return quote_goes_on(&format!("{q}{indent}"), text);
                    }
                    return (text, gap);
                }
                Err(role) => role,
            },
            role => role,
        };
        if let Role::Item(item) = role {
            // The items that a list begins (`<li><ul><li>a</li></ul>b</li>`), when their own
            // text comes below it: a browser draws their markers on this item's line. An item
            // with no text at all draws none: editors nest a list that way, in an item whose
            // marker they hide, under the item above (`<li>Wines:</li><li><ul>…`), and
            // layouts wrap lists in items.
            let mut outer = Vec::new();
            let mut inner = item;
            while let Some(&o) = inner.in_item.and_then(|e| items.get(&e)) {
                // Not through a quote inside that item, which holds the list.
                if o.depth + 1 != inner.depth
                    || lists.begun.contains(&o.element)
                    || b.quote.is_some_and(|q| q > o.element)
                    || outer.len() >= MAX_LIST_NESTING
                {
                    break;
                }
                outer.push(o);
                inner = o;
            }
            let mut first = None;
            let mut markers = String::new();
            for &o in outer.iter().rev() {
                let (indent, marker, after) = lists.item(o);
                first.get_or_insert((indent, after));
                markers.push_str(&marker);
            }
            let (indent, marker, after) = lists.item(item);
            let text = in_item(indent + marker.len());
            let (indent, after) = first.unwrap_or((indent, after));
            let indent = " ".repeat(indent);
            let item = format!("{q}{indent}{markers}{marker}{text}");
            return match after {
                After::Item => (item, Gap::Newline),
                After::Blank => (item, paragraph_gap),
                // Items in a row are one list to Markdown, which numbers them on from the
                // first: an empty comment ends the list before, as CommonMark's spec does.
                After::OtherList => {
                    let blank = if quoted { "\n>\n" } else { "\n\n" };
                    (format!("{q}{indent}<!-- -->{blank}{item}"), paragraph_gap)
                }
            };
        }
        lists.close();
        if role == Role::SameLine && under {
            return (on_line_above(b), Gap::Space);
        }
        if role == Role::Line && under && b.heading_level().is_some() {
            // A heading's later line: one Markdown heading is one line.
            return (heading_inline(b), Gap::Space);
        }
        if role == Role::Line && under && !heading_above {
            return (format!("{q}{}", md_inline(b, true)), Gap::HardBreak);
        }
        let text = match b.heading_level() {
            // The page title is the top heading, here or above. A heading is one line, at
            // the page's own level (`<h2>` is `##`), as converters and WCXB's gold Markdown
            // give it.
            _ if title_block == Some(b.index) => format!("# {}", heading_text(b.collapsed_text())),
            Some(level) => format!("{q}{} {}", hashes(level), heading_inline(b)),
            _ if pre => format!("{q}{}", code_block_under(&b.text, q)),
            _ => format!("{q}{}", md_inline(b, true)),
        };
        (text, paragraph_gap)
    });
    if !body.is_empty() {
        out.push_str(&body);
        out.push_str("\n\n");
    }
    out
}

/// Most levels of lists nested in Markdown output.
const MAX_LIST_NESTING: usize = 16;

/// The Markdown lists open at a point of the output, for nesting the next item.
#[derive(Default)]
struct Lists {
    /// The kept items that a later item can nest in, outermost first.
    open: Vec<OpenItem>,
    /// The previous piece was an item.
    after_item: bool,
    /// The elements of the items laid out so far, open or not.
    begun: FxHashSet<u32>,
    /// A bulleted list right after another takes the other bullet (Markdown), rather than
    /// `- ` for every item (the text).
    bullets_take_turns: bool,
}

/// A kept list item that a later item can nest in.
#[derive(Debug, Clone, Copy)]
struct OpenItem {
    /// Lists around it.
    depth: u32,
    /// The column where its text starts.
    column: usize,
    /// The width of its marker, before that column.
    marker: usize,
    /// Its number, in a numbered list.
    number: Option<u32>,
    /// Its bullet is `*`, not `-`.
    star: bool,
    /// The element of its list.
    list: u32,
    /// The item's element ([`ListItem::element`]).
    element: u32,
}

/// How a Markdown list item follows the piece above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    /// On the next line: the next item of the same list, or a list right under an item.
    Item,
    /// After a blank line.
    Blank,
    /// After the end of the numbered list above, at the same depth: the item is the first kept
    /// of another numbered list, or its number skips some of the list's (items left out, an
    /// item's `value`), which Markdown would number on from the one above.
    OtherList,
}

impl Lists {
    /// Ends the lists open: the next item starts a list.
    fn close(&mut self) {
        self.open.clear();
        self.after_item = false;
    }

    /// Where more of `item` goes: at the column of its text when it is open (`Ok`), else as
    /// a paragraph of its own when it was laid out above and a piece came between, or as the
    /// item itself when its first blocks were not kept (`Err`).
    fn more_of(&mut self, item: ListItem) -> Result<usize, Role> {
        match self.open_column(item.element) {
            Some(column) => Ok(column),
            None if self.begun.contains(&item.element) => Err(Role::Text),
            None => Err(Role::Item(item)),
        }
    }

    /// The column of the text of the open item whose element is `element`, which more of it
    /// goes at; the items nested in it, above it in `open`, are closed.
    fn open_column(&mut self, element: u32) -> Option<usize> {
        let at = self.open.iter().rposition(|o| o.element == element)?;
        self.open.truncate(at + 1);
        self.after_item = true;
        Some(self.open[at].column)
    }

    /// Whether the item whose element is `element` is open: more of it goes at the column
    /// of its text ([`Lists::open_column`]).
    fn is_open(&self, element: u32) -> bool {
        self.open.iter().any(|o| o.element == element)
    }

    /// Where an item goes: its indent, its marker, and how it follows the previous piece.
    fn item(&mut self, item: ListItem) -> (usize, String, After) {
        let ListItem {
            number,
            depth,
            list,
            element,
            ..
        } = item;
        let mut sibling = None;
        // The outermost item closed here: when its item above was left out, it stood at
        // this item's column, where Markdown reads the two as items of one list.
        let mut closed = None;
        while let Some(&top) = self.open.last() {
            if top.depth < depth {
                break;
            }
            self.open.pop();
            if top.depth == depth {
                sibling = Some(top);
                break;
            }
            closed = Some(top);
        }
        // Past a few levels, deeper items are laid out beside the deepest one shown, so that
        // a page of lists nested thousands deep cannot make lines of thousands of spaces;
        // they stay open, for their later paragraphs.
        let parent = match self.open.len() {
            n if n >= MAX_LIST_NESTING => self.open.get(MAX_LIST_NESTING - 2),
            _ => self.open.last(),
        };
        let indent = parent.map_or(0, |top| top.column);
        // Numbered, the two would be numbered as one list (bullets are drawn alike).
        let numbered_above = sibling.or(closed.filter(|c| c.column - c.marker == indent));
        // The numbered item above at this depth, when it is of another list than this item's
        // or this item's number does not come next: it skips some, or an item's `value` goes
        // back (a reversed list's numbers going down one by one are left to the renderer,
        // which counts them up).
        let other_list = match (numbered_above, number) {
            (Some(top), Some(n)) => top.number.is_some_and(|above| {
                top.list != list
                    || n > above.saturating_add(1)
                    || (n <= above && n.saturating_add(1) != above)
            }),
            _ => false,
        };
        // A bulleted list right after another one at this depth takes the other bullet: to
        // Markdown, a new bullet starts a new list.
        let star = self.bullets_take_turns
            && number.is_none()
            && sibling.is_some_and(|top| top.number.is_none() && top.star == (top.list == list));
        let marker = match number {
            Some(n) => format!("{n}. "),
            None if star => "* ".to_string(),
            None => "- ".to_string(),
        };
        self.open.push(OpenItem {
            depth,
            column: indent + marker.len(),
            marker: marker.len(),
            number,
            star,
            list,
            element,
        });
        self.begun.insert(element);
        // A list that starts right under a line of text must start with a bullet or 1, or
        // Markdown reads it as more of that text; the next item of a numbered list may have
        // any number.
        let tight = self.after_item
            && (number.is_none_or(|n| n == 1) || sibling.is_some_and(|top| top.number.is_some()));
        self.after_item = true;
        let after = if other_list {
            After::OtherList
        } else if tight {
            After::Item
        } else {
            After::Blank
        };
        (indent, marker, after)
    }
}

/// Whether a block is text inside `<pre>`, which Markdown writes as a code block.
fn is_code(b: &ExtractedBlock) -> bool {
    b.collapsed.is_some() || b.tag == "pre"
}

/// The main text of an extraction ([`Extraction::text`]), with paragraphs and lists laid out
/// as in WCXB's gold texts: a paragraph per kept block, blank lines between, but list items
/// on lines of their own after `- `, or their number in a numbered list (`3. `; an item's
/// later paragraphs on the lines below it), a line after a single `<br>` below the line
/// above it ([`Role::Line`]), text after a small image or a form field on its line
/// ([`Role::SameLine`]), and the rows of a simple table on lines of their own, their cells
/// separated by tabs, the `marks` of its cells (`✓`) among them.
pub fn plain_text(blocks: &[ExtractedBlock], marks: &[CellMark]) -> String {
    // The items of the run of list pieces above, which later paragraphs of an item go under.
    let mut lists = Lists::default();
    let mut follows = Follows::default();
    lay_out(pieces(blocks, marks), |piece| {
        let after_item = lists.after_item;
        let (role, under) = match piece {
            // A quote inside an item is text, as WCXB's gold texts give it.
            Piece::Block(b) => match b.role {
                Role::ItemQuote { join, .. } => (join.as_text(), follows.block(b)),
                role => (role, follows.block(b)),
            },
            Piece::Table(_) => {
                follows = Follows::default();
                (Role::Text, false)
            }
        };
        // More of a kept item goes on the next line, as WCXB's gold texts give it; when the
        // item's first blocks are not kept, this one begins the item.
        let (item, more) = match role {
            Role::Item(item) => (Some(item), false),
            Role::ItemParagraph { item, .. } => match lists.more_of(item) {
                Ok(_) => (None, true),
                Err(Role::Item(item)) => (Some(item), false),
                Err(_) => (None, false),
            },
            _ => (None, false),
        };
        // An item's marker, `- ` or its number, as Markdown writes it (the text nests no
        // lists, so the indent is not used).
        let marker = match item {
            Some(item) => Some(lists.item(item).1),
            None if !more => {
                lists.close();
                None
            }
            None => None,
        };
        let same_line =
            more && matches!(
                role,
                Role::ItemParagraph {
                    join: Join::SameLine,
                    ..
                }
            ) || role == Role::SameLine;
        let tight = (after_item && (marker.is_some() || more)) || (under && role == Role::Line);
        let gap = if under && same_line {
            Gap::Space
        } else if tight {
            Gap::Newline
        } else {
            Gap::Blank
        };
        match piece {
            Piece::Block(b) => match marker {
                Some(marker) => (format!("{marker}{}", b.text), gap),
                None => (b.text.clone(), gap),
            },
            Piece::Table(grid) => (text_table(grid), gap),
        }
    })
}

/// Which kept block was laid out last, to tell whether a block follows the one above it in
/// the page.
#[derive(Default)]
struct Follows(Option<usize>);

impl Follows {
    /// Whether `b` comes right after the block laid out last; `b` is then the last.
    fn block(&mut self, b: &ExtractedBlock) -> bool {
        self.0.replace(b.index).is_some_and(|i| i + 1 == b.index)
    }
}

/// A unit of the laid-out text: one kept block, or the kept cells of a simple table.
enum Piece<'a> {
    Block(&'a ExtractedBlock),
    Table(Grid<'a>),
}

/// The kept cells of a simple table.
struct Grid<'a> {
    /// Row, column and text of every kept cell, in document order.
    cells: Vec<(u32, u32, Filler<'a>)>,
    /// The columns that have a kept cell, in order.
    cols: Vec<u32>,
}

impl Grid<'_> {
    /// Its kept blocks.
    fn blocks(&self) -> impl Iterator<Item = &ExtractedBlock> {
        self.cells.iter().filter_map(|c| match c.2 {
            Filler::Block(b) => Some(b),
            Filler::Mark(_) => None,
        })
    }

    /// The index of its first kept block.
    fn first_block(&self) -> Option<usize> {
        self.blocks().map(|b| b.index).min()
    }

    /// The index of its last kept block.
    fn last_block(&self) -> Option<usize> {
        self.blocks().map(|b| b.index).max()
    }

    /// The quote around the table, if any.
    fn quote(&self) -> Option<u32> {
        self.blocks().find_map(|b| b.quote)
    }

    /// The element of the list item that holds the table, when its text came above it.
    fn item(&self) -> Option<u32> {
        self.blocks().find_map(|b| match b.role {
            Role::Cell { item, .. } => item,
            _ => None,
        })
    }
}

/// What fills a cell of a [`Grid`]: a kept block, or a mark ([`CellMark`]).
#[derive(Clone, Copy)]
enum Filler<'a> {
    Block(&'a ExtractedBlock),
    Mark(&'a CellMark),
}

impl Filler<'_> {
    /// The text as a block writes it in a table.
    fn text(&self) -> &str {
        match self {
            Filler::Block(b) => b.collapsed_text(),
            Filler::Mark(m) => &m.text,
        }
    }

    /// A header cell's (`<th>`).
    fn head(&self) -> bool {
        match self {
            Filler::Block(b) => matches!(b.role, Role::Cell { head: true, .. }),
            Filler::Mark(m) => m.head,
        }
    }

    /// A line of the cell's text after a `<br>`.
    fn line(&self) -> bool {
        matches!(
            self,
            Filler::Block(ExtractedBlock {
                role: Role::Cell {
                    join: Join::Line,
                    ..
                },
                ..
            })
        )
    }
}

/// The kept blocks in order, the kept cells of each simple table ([`Role::Cell`]) together
/// when they make a grid ([`is_grid`]), with the marks of its cells (`✓`) in its rows; other
/// cells stay paragraphs.
fn pieces<'a>(blocks: &'a [ExtractedBlock], marks: &'a [CellMark]) -> Vec<Piece<'a>> {
    let mut out: Vec<Piece> = Vec::new();
    // The current run of kept cells of one table, and the marks among them.
    let mut run: Vec<(u32, u32, Filler)> = Vec::new();
    let mut run_table = None;
    // Marks since the last kept block, for the run that a kept cell of their table may open
    // (a first column of `✓`, a header row's corner `—`).
    let mut waiting: Vec<&CellMark> = Vec::new();
    let mut marks = marks.iter().peekable();
    for b in blocks {
        while let Some(m) = marks.next_if(|m| m.before <= b.index) {
            if !run.is_empty() && run_table == Some(m.table) {
                run.push((m.row, m.col, Filler::Mark(m)));
            } else {
                waiting.push(m);
            }
        }
        if !b.label.is_content() {
            continue;
        }
        let cell = match b.role {
            Role::Cell {
                table, row, col, ..
            } => Some((table, row, col)),
            _ => None,
        };
        if !run.is_empty() && cell.map(|c| c.0) != run_table {
            end_run(&mut run, &mut out);
        }
        match cell {
            Some((table, row, col)) => {
                if run.is_empty() {
                    run_table = Some(table);
                    run.extend(
                        waiting
                            .iter()
                            .filter(|m| m.table == table)
                            .map(|m| (m.row, m.col, Filler::Mark(m))),
                    );
                }
                run.push((row, col, Filler::Block(b)));
            }
            None => out.push(Piece::Block(b)),
        }
        waiting.clear();
    }
    if !run.is_empty() {
        let table = run_table;
        run.extend(
            marks
                .filter(|m| Some(m.table) == table)
                .map(|m| (m.row, m.col, Filler::Mark(m))),
        );
        end_run(&mut run, &mut out);
    }
    out
}

/// A run of kept cells of one table as one grid, with the marks that lie in its rows (a
/// column of marks too), or as paragraphs when its blocks make none.
fn end_run<'a>(run: &mut Vec<(u32, u32, Filler<'a>)>, out: &mut Vec<Piece<'a>>) {
    let mut cells = std::mem::take(run);
    let kept: Vec<(u32, u32)> = cells
        .iter()
        .filter(|c| matches!(c.2, Filler::Block(_)))
        .map(|c| (c.0, c.1))
        .collect();
    let mut cols: Vec<u32> = kept.iter().map(|c| c.1).collect();
    cols.sort_unstable();
    cols.dedup();
    if is_grid(&kept, &cols) {
        let mut rows: Vec<u32> = kept.iter().map(|c| c.0).collect();
        rows.sort_unstable();
        rows.dedup();
        cells.retain(|c| matches!(c.2, Filler::Block(_)) || rows.binary_search(&c.0).is_ok());
        let mut with_marks: Vec<u32> = cells.iter().map(|c| c.1).collect();
        with_marks.sort_unstable();
        with_marks.dedup();
        let places: Vec<(u32, u32)> = cells.iter().map(|c| (c.0, c.1)).collect();
        if is_grid(&places, &with_marks) {
            cols = with_marks;
        } else {
            // Marks in columns of their own would make a sparse grid (a hostile table's marks
            // each in a column further right would cost rows × columns): only those in the
            // kept cells' columns stay.
            cells.retain(|c| cols.binary_search(&c.1).is_ok());
        }
        out.push(Piece::Table(Grid { cells, cols }));
    } else {
        out.extend(cells.into_iter().filter_map(|c| match c.2 {
            Filler::Block(b) => Some(Piece::Block(b)),
            Filler::Mark(_) => None,
        }));
    }
}

/// Whether cells (their rows and columns) span at least two rows and two columns, and fill
/// at least a quarter of the grid they span: a sparse grid is most likely a layout table, and
/// a hostile one (a row of 50,000 cells over 50,000 rows of one) would cost rows × columns.
fn is_grid(cells: &[(u32, u32)], cols: &[u32]) -> bool {
    let rows = 1 + cells.windows(2).filter(|w| w[0].0 != w[1].0).count();
    rows >= 2 && cols.len() >= 2 && rows.saturating_mul(cols.len()) <= 4 * cells.len()
}

/// The rows of a grid: one column for each column with a kept cell, dropped cells empty, the
/// blocks of one cell joined by spaces, or by `line_break` where a `<br>` cut them, each
/// block's text as `text` gives it. Also whether the first row is a header: its kept cells
/// are all `<th>`.
fn rows_of(
    grid: &Grid,
    text: impl Fn(&str) -> String,
    line_break: &str,
) -> (Vec<Vec<String>>, bool) {
    let first_row = grid.cells[0].0;
    let headed = grid
        .cells
        .iter()
        .take_while(|c| c.0 == first_row)
        .all(|c| c.2.head());
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut last_row = None;
    for &(row, col, filler) in &grid.cells {
        if last_row != Some(row) {
            rows.push(vec![String::new(); grid.cols.len()]);
            last_row = Some(row);
        }
        if let (Some(r), Ok(c)) = (rows.last_mut(), grid.cols.binary_search(&col)) {
            if !r[c].is_empty() {
                r[c].push_str(if filler.line() { line_break } else { " " });
            }
            r[c].push_str(&text(filler.text()));
        }
    }
    (rows, headed)
}

/// A grid as a Markdown (GitHub) table ([`rows_of`]), a cell's lines cut by `<br>`, as GitHub
/// reads it inside a cell. Its header is the first row when that is a row of `<th>`, and
/// otherwise left empty, as GitHub's tables must have one.
fn md_table(grid: &Grid) -> String {
    let (mut rows, headed) = rows_of(grid, |t| md_escape(t, false).replace('|', "\\|"), "<br>");
    let columns = grid.cols.len();
    if !headed {
        rows.insert(0, vec![String::new(); columns]);
    }
    let line = |r: &[String]| format!("| {} |", r.join(" | "));
    let mut out: Vec<String> = Vec::with_capacity(rows.len() + 1);
    for (i, r) in rows.iter().enumerate() {
        out.push(line(r));
        if i == 0 {
            out.push(line(&vec!["---".to_string(); columns]));
        }
    }
    out.join("\n")
}

/// A grid as plain text ([`rows_of`]), as WCXB's gold texts mostly give tables: a row per
/// line, its cells separated by tabs.
fn text_table(grid: &Grid) -> String {
    let (rows, _) = rows_of(grid, str::to_string, " ");
    let lines: Vec<String> = rows
        .iter()
        .map(|r| r.join("\t").trim_end_matches('\t').to_string())
        .collect();
    lines.join("\n")
}

/// Text escaped for Markdown, so that it renders as the page showed it, with no more
/// backslashes than that needs (CommonMark's rules; a reader of the Markdown as text sees
/// `read_file`, not `read\_file`):
/// - `` ` ``, `[`, `~` always, and `*` unless it stands alone between spaces (`a * b`), as
///   they may start code, a link, a strikethrough or emphasis (`]` then never closes a link,
///   as no `[` opens one);
/// - `_` unless it stands inside a word (`snake_case`), where it can neither open nor close
///   emphasis;
/// - `\` before punctuation or at the end (where it would escape it, or make a hard break);
/// - `<` before an ASCII letter, `/`, `!` or `?`, where a tag, a comment or an autolink may start,
///   or with a `>` before the next space (an e-mail autolink), as `&lt;`; `&` when it starts an
///   entity, as `&amp;` (renderers that do not take `\<` for an escape, such as
///   Python-Markdown, would otherwise pass the page's `<script>` on as a tag);
/// - when `line_start`, a start that would read as a block marker: a heading's `#`s, a quote's
///   `>`, a list item's `-`, `+` or number and `.`/`)` before a space, a rule of `-`s, a
///   heading's underline of `=`s or a table's delimiter row.
fn md_escape(text: &str, line_start: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let bytes = text.as_bytes();
    let spaced = |at: usize| bytes.get(at).is_none_or(|c| c.is_ascii_whitespace());
    let mut marker_at = None;
    if line_start {
        let digits = bytes.iter().take_while(|c| c.is_ascii_digit()).count();
        let hashes = bytes.iter().take_while(|&&c| c == b'#').count();
        // A table's delimiter row (`--- | :---:`) would make the line above a table's head,
        // and a line of `-`s is a rule or a heading's underline.
        let delimiter_row = bytes.contains(&b'-')
            && bytes
                .iter()
                .all(|c| matches!(c, b'-' | b'|' | b':' | b' ' | b'\t'));
        let marker = match bytes.first() {
            _ if delimiter_row => true,
            Some(b'>') => true,
            Some(b'#') => hashes <= 6 && spaced(hashes),
            Some(b'-' | b'+') => spaced(1),
            Some(b'=') => bytes.iter().all(|c| matches!(c, b'=' | b' ' | b'\t')),
            Some(b'0'..=b'9') => {
                digits <= 9 && matches!(bytes.get(digits), Some(b'.' | b')')) && spaced(digits + 1)
            }
            _ => false,
        };
        if marker {
            marker_at = Some(if bytes[0].is_ascii_digit() { digits } else { 0 });
        }
    }
    let mut before = None;
    // Where the next `>` and the next space stand, past the last `<` (the text's length: none).
    let (mut next_gt, mut next_space) = (0, 0);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let escape = match c {
            '`' | '[' | '~' => true,
            // A lone `*` between spaces can neither open nor close emphasis.
            '*' => {
                !(before.is_some_and(char::is_whitespace) && next.is_some_and(char::is_whitespace))
            }
            '_' => {
                // The whole run of underscores goes as one: inside a word or not.
                let run = text[i..].bytes().take_while(|&b| b == b'_').count();
                let after = text[i + run..].chars().next();
                let in_word = before.is_some_and(char::is_alphanumeric)
                    && after.is_some_and(char::is_alphanumeric);
                // Each is escaped outside a word, none inside one; the run is read once.
                for _ in 0..run {
                    if !in_word {
                        out.push('\\');
                    }
                    out.push('_');
                }
                for _ in 1..run {
                    chars.next();
                }
                before = Some('_');
                continue;
            }
            '\\' => next.is_none_or(|n| n.is_ascii_punctuation()),
            // Only an ASCII letter, `/`, `!` or `?` after it opens a tag, a comment or an
            // autolink's scheme; an e-mail autolink (`<1@x.org>`) closes before any space.
            '<' => {
                // The next `>` and space are looked for again only past the last ones found,
                // so that a word of many `<` is read once.
                if next_gt <= i {
                    next_gt =
                        memchr::memchr(b'>', &bytes[i + 1..]).map_or(bytes.len(), |k| i + 1 + k);
                }
                if next_space <= i {
                    next_space = bytes[i + 1..]
                        .iter()
                        .position(u8::is_ascii_whitespace)
                        .map_or(bytes.len(), |k| i + 1 + k);
                }
                next.is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?'))
                    || next_gt < next_space
            }
            '&' => starts_entity(&bytes[i + 1..]),
            _ => marker_at == Some(i),
        };
        match c {
            '<' if escape => out.push_str("&lt;"),
            '&' if escape => out.push_str("&amp;"),
            _ if escape => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        before = Some(c);
    }
    out
}

/// A block's text as Markdown ([`md_escape`]), each of its links ([`ExtractedBlock::links`])
/// as `[text](target)`.
fn md_inline(b: &ExtractedBlock, line_start: bool) -> String {
    let text = &b.text;
    if b.links.is_empty() {
        return md_escape(text, line_start);
    }
    let mut out = String::with_capacity(text.len() + 32 * b.links.len());
    let mut at = 0;
    for link in &b.links {
        let (start, end) = (link.span.0 as usize, link.span.1 as usize);
        // Spans come in order and apart; one that does not is left as text.
        if start < at
            || start >= end
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        out.push_str(&md_escape(&text[at..start], line_start && at == 0));
        // `![` would open an image: the text's `!` before a link stays text.
        if out.ends_with('!') {
            out.insert(out.len() - 1, '\\');
        }
        // Inside the brackets a `]` would end the link's text.
        out.push('[');
        out.push_str(&md_escape(&text[start..end], false).replace(']', "\\]"));
        out.push_str("](");
        out.push_str(&link_destination(&link.target));
        out.push(')');
        at = end;
    }
    out.push_str(&md_escape(&text[at..], line_start && at == 0));
    out
}

/// A link target as a Markdown link destination: spaces and control characters
/// percent-encoded, and the characters that Markdown would read there (parentheses,
/// backslashes, angle brackets, a `&` that starts an entity) escaped, so that the link leads
/// where the page's did.
fn link_destination(target: &str) -> String {
    let mut out = String::with_capacity(target.len() + 8);
    for (i, c) in target.char_indices() {
        match c {
            ' ' => out.push_str("%20"),
            c if c.is_control() => {
                let mut bytes = [0; 4];
                for b in c.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            '(' | ')' | '\\' | '<' | '>' => {
                out.push('\\');
                out.push(c);
            }
            '&' if starts_entity(&target.as_bytes()[i + 1..]) => out.push_str("\\&"),
            c => out.push(c),
        }
    }
    out
}

/// A block's text as more of the line above it (after an image or a form field), a
/// heading's escaped as a heading's.
fn on_line_above(b: &ExtractedBlock) -> String {
    match b.heading_level() {
        Some(_) => heading_inline(b),
        None => md_inline(b, false),
    }
}

/// The `#`s of a Markdown heading of `level` (`<h2>` is `##`).
fn hashes(level: u8) -> String {
    "#".repeat(usize::from(level.clamp(1, 6)))
}

/// [`heading_text`] of a heading block, with its links.
fn heading_inline(b: &ExtractedBlock) -> String {
    if b.links.is_empty() {
        return heading_text(b.collapsed_text());
    }
    closing_hashes_escaped(md_inline(b, false))
}

/// Whether the bytes after a `&` make it an entity that a renderer would decode (`&amp;`,
/// `&#39;`).
fn starts_entity(rest: &[u8]) -> bool {
    let name = rest.strip_prefix(b"#").unwrap_or(rest);
    let len = name
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    len > 0 && name.get(len) == Some(&b';')
}

/// Text of a Markdown heading: escaped, and a `#` ending it escaped too, as Markdown would
/// read it as a closing sequence and drop it ("Issue #").
fn heading_text(text: &str) -> String {
    // A heading's text is read inline: no block marker to escape at its start.
    closing_hashes_escaped(md_escape(text, false))
}

/// Escaped heading text with a `#` that ends it escaped, as Markdown would read the `#`s at
/// the end as a closing sequence and drop them.
fn closing_hashes_escaped(mut out: String) -> String {
    let run = out.len() - out.trim_end_matches('#').len();
    if run > 0 && !out[..out.len() - run].ends_with('\\') {
        out.insert(out.len() - run, '\\');
    }
    out
}

/// What separates a laid-out piece from the one above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gap {
    /// A blank line: a new paragraph.
    Blank,
    /// A line of a Markdown quote with nothing else on it: a new paragraph of the same quote.
    QuoteBlank,
    /// A line break: the next item of a list, the next line of the text format.
    Newline,
    /// A line break inside a Markdown paragraph: a backslash ends the line above.
    HardBreak,
    /// A space: more of the line above.
    Space,
}

/// The laid-out pieces, each as `render` gives it with the gap above it.
fn lay_out(pieces: Vec<Piece>, mut render: impl FnMut(&Piece) -> (String, Gap)) -> String {
    let mut out = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        let (text, gap) = render(piece);
        if i > 0 {
            out.push_str(match gap {
                Gap::Blank => "\n\n",
                Gap::QuoteBlank => "\n>\n",
                Gap::Newline => "\n",
                Gap::HardBreak => "\\\n",
                Gap::Space => " ",
            });
        }
        out.push_str(&text);
    }
    out
}

/// A fenced Markdown code block, its fence longer than any run of backticks in the code.
fn code_block(code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}\n{code}\n{fence}")
}

/// [`code_block`] with `prefix` before every line but the first, which goes after a list
/// marker or a quote's `> `.
fn code_block_under(code: &str, prefix: &str) -> String {
    lines_under(&code_block(code), prefix)
}

/// `text` with `prefix` before every line but the first.
fn lines_under(text: &str, prefix: &str) -> String {
    text.replace('\n', &format!("\n{prefix}"))
}

/// A new paragraph of a quote inside a list item, whose lines start with `indent` and `> `:
/// a line of the quote with nothing else on it keeps it one quote.
fn quote_goes_on(indent: &str, text: String) -> (String, Gap) {
    (format!("{indent}>\n{text}"), Gap::Newline)
}

/// One page as a `json`/`jsonl` record, its keys in a fixed order: `source`, `place` for a
/// record of a JSON Lines or WARC file, then for a page of a WARC file `warc_record_id` and
/// `warc_date`, `url` when the input names it apart from
/// `source`, `fields` when asked for, then `title`, `text`, `markdown` and `blocks` when asked
/// (a reader of a long JSON Lines file sees the title before the text).
#[derive(Debug, Serialize)]
pub struct PageRecord<'a> {
    /// The input as given, or the record id.
    pub source: &'a str,
    /// Where the record is in its input, when `source` names it by its id or URL
    /// ([`crate::input::Item::place`]: `FILE:LINE`, `FILE#N`), as two files may both hold a
    /// record of one id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<&'a str>,
    /// The `WARC-Record-ID` of the record the page came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warc_record_id: Option<&'a str>,
    /// Its `WARC-Date`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warc_date: Option<&'a str>,
    /// The URL the page was fetched from, when the input names it apart from `source` (a JSON
    /// Lines record with both an `id` and a `url`), so that a record joins back to its page
    /// by either.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<&'a str>,
    /// The input record's fields passed through ([`crate::input::Item::fields`]), only when
    /// asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<&'a serde_json::value::RawValue>,
    /// The page's headline ([`Extraction::title`]).
    pub title: &'a str,
    /// The main text.
    pub text: &'a str,
    /// The main text as Markdown ([`to_markdown`]), only when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<&'a str>,
    /// `true` when text of the page was dropped: the blocks past the limit, or the rest of a
    /// page past the parser's work bound ([`Extraction::truncated`]); left out otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Every block, only when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<&'a [ExtractedBlock]>,
}

/// One page as a record: source, the WARC record it came from if any, title, text, and the
/// blocks when `with_blocks` (set `place` to add where a record is in its input, `url` to
/// add the page's URL, `fields` to add a record's fields passed through, `markdown` to add
/// the text as Markdown).
pub fn to_json<'a>(
    source: &'a str,
    warc: Option<&'a crate::input::WarcRecord>,
    e: &'a Extraction,
    with_blocks: bool,
) -> PageRecord<'a> {
    PageRecord {
        source,
        place: None,
        warc_record_id: warc.and_then(|w| w.id.as_deref()),
        warc_date: warc.and_then(|w| w.date.as_deref()),
        url: None,
        fields: None,
        title: &e.title,
        text: &e.text,
        markdown: None,
        truncated: e.truncated,
        blocks: with_blocks.then_some(e.blocks.as_slice()),
    }
}

/// A page that could not be processed, as a record: which page (named as a [`PageRecord`]
/// names it) and why, so that a batch's failures can be listed, counted or retried by a
/// program.
#[derive(Debug, Serialize)]
pub struct FailureRecord<'a> {
    /// The input as given, or the record's id ([`crate::input::Item::source`]).
    pub source: &'a str,
    /// Where the record is in its input, when `source` names it by its id or URL
    /// ([`crate::input::Item::place`]: `FILE:LINE`, `FILE#N`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<&'a str>,
    /// The `WARC-Record-ID` of the record the page came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warc_record_id: Option<&'a str>,
    /// The page's URL when the input names it apart from `source`
    /// ([`crate::input::Item::url_apart`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<&'a str>,
    /// The input record's fields passed through, as in [`PageRecord::fields`], so that a
    /// failure carries the same metadata as a page that was extracted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<&'a serde_json::value::RawValue>,
    /// The kind of failure ([`Error::kind`](crate::Error::kind)).
    pub kind: &'static str,
    /// The message, as reported on stderr after the source.
    pub error: String,
}

impl<'a> FailureRecord<'a> {
    /// The record of a page of `item` that failed with `error`.
    pub fn new(item: &'a crate::input::Item, error: &crate::Error) -> FailureRecord<'a> {
        FailureRecord {
            source: &item.source,
            place: item.place.as_deref(),
            warc_record_id: item.warc.as_ref().and_then(|w| w.id.as_deref()),
            url: item.url_apart(),
            fields: item.fields.as_deref(),
            kind: error.kind(),
            error: error.to_string(),
        }
    }
}

/// A record as JSON (`pretty`: indented), the line separators that JSON leaves as they are
/// escaped: U+2028, U+2029 and U+0085 (NEL), which scraped text holds and on which some
/// readers split lines (Python's `str.splitlines`, JavaScript before ES2019), cutting a JSON
/// Lines record in two. In JSON text they can only stand inside strings.
pub fn json<T: Serialize>(record: &T, pretty: bool) -> String {
    let out = if pretty {
        serde_json::to_string_pretty(record)
    } else {
        serde_json::to_string(record)
    }
    .unwrap_or_default();
    if !out.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
        return out;
    }
    let mut escaped = String::with_capacity(out.len() + 16);
    for c in out.chars() {
        match c {
            '\u{85}' => escaped.push_str("\\u0085"),
            '\u{2028}' => escaped.push_str("\\u2028"),
            '\u{2029}' => escaped.push_str("\\u2029"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// Escape text for HTML content and attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Noncharacters, which an HTML parser reports as errors.
            '\u{fdd0}'..='\u{fdef}' => out.push('\u{fffd}'),
            c if (c as u32) & 0xfffe == 0xfffe => out.push('\u{fffd}'),
            _ => out.push(c),
        }
    }
    out
}

/// The debug view: a standalone HTML page where every block is coloured from red (boilerplate)
/// to green (content) by its score, shows its features on hover, and kept blocks are outlined.
/// `settings` names what labelled the blocks (model, decoder, favor), as the view's first line.
pub fn to_html(source: &str, e: &Extraction, settings: &str) -> String {
    let mut out = html_header(source, settings);
    out.push_str(&html_section(source, e));
    out.push_str(HTML_FOOTER);
    out
}

/// The start of a debug view, up to its `<body>` and a line naming the `settings` that
/// labelled the blocks: a document of one page is [`html_header`], [`html_section`] and
/// [`HTML_FOOTER`]; a document of several pages has a section for each.
pub fn html_header(title: &str, settings: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'\">\n<title>textsift: {}</title>\n\
         <style>body{{font:14px/1.4 sans-serif;max-width:60em;margin:1em auto}}\
         section+section{{border-top:4px double #888;margin-top:2em}}\
         .b{{margin:2px 0;padding:3px 6px;border:2px solid transparent;border-radius:3px}}\
         .keep{{border-color:#135}}.m{{color:#555;font-size:11px}}\
         .pre{{display:block;white-space:pre-wrap;font-family:monospace}}\
         .b,h1,p{{overflow-wrap:anywhere}}</style></head><body>\n<p class=\"m\">{}</p>\n",
        escape(title),
        escape(settings)
    )
}

/// The end of a debug view.
pub const HTML_FOOTER: &str = "</body></html>\n";

/// One page of a debug view: its title, source and blocks, in a `<section>`. The line under
/// the title gives the scores of the kept and of the dropped blocks (where the decoder cut
/// on this page) and the features that are the same for every block (the page's own, such
/// as its number of blocks), which each block's features on hover then leave out.
pub fn html_section(source: &str, e: &Extraction) -> String {
    let kept = e.blocks.iter().filter(|b| b.label.is_content()).count();
    let scores = |keep: bool| {
        let mut s = e
            .blocks
            .iter()
            .filter(|b| b.label.is_content() == keep && (keep || b.repeat_of.is_none()))
            .map(|b| b.score);
        let first = s.next()?;
        Some(s.fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x))))
    };
    let cut = match (scores(true), scores(false)) {
        (Some((lo, hi)), Some((_, top))) => {
            format!(" Kept: scores {lo:.2} to {hi:.2}; dropped: {top:.2} at most.")
        }
        (Some((lo, hi)), None) => format!(" Kept: scores {lo:.2} to {hi:.2}."),
        (None, Some((_, top))) => format!(" Dropped: scores {top:.2} at most."),
        (None, None) => String::new(),
    };
    // Features with one value on every block of a page of several: said once, here.
    let rows = e.features.rows();
    let same: Vec<bool> = (0..N_FEATURES)
        .map(|f| rows > 1 && (1..rows).all(|i| e.features.row(i)[f] == e.features.row(0)[f]))
        .collect();
    let page_wide: Vec<String> = SCHEMA
        .iter()
        .enumerate()
        .filter(|&(f, _)| same[f] && e.features.row(0)[f] != 0.0)
        .map(|(f, d)| format!("{}={}", d.name, short_number(e.features.row(0)[f])))
        .collect();
    let mut out = format!(
        "<section>\n<h1><bdi>{}</bdi></h1>\n<p class=\"m\"><bdi>{}</bdi>: {} block{}, {} kept{}.{} \
         Colour: score from red (0, boilerplate) to green (1, content); outlined: kept; hover: \
         the features that are not 0{}.</p>\n",
        if e.title.is_empty() {
            "(no title)".to_string()
        } else {
            escape(&e.title)
        },
        escape(source),
        e.blocks.len(),
        if e.blocks.len() == 1 { "" } else { "s" },
        kept,
        if e.truncated {
            "; the page was cut at the block limit, its later blocks are not shown"
        } else {
            ""
        },
        cut,
        if page_wide.is_empty() {
            String::new()
        } else {
            format!(
                ", but those of the whole page, the same on every block: {}",
                escape(&page_wide.join(", "))
            )
        }
    );
    for (i, b) in e.blocks.iter().enumerate() {
        let hue = (b.score.clamp(0.0, 1.0) * 120.0).round();
        // The features that are not 0: most are flags, and a page's view stays a fraction
        // of the size it would have with all of them.
        let features: String = if i < rows {
            SCHEMA
                .iter()
                .zip(e.features.row(i))
                .zip(&same)
                .filter(|((_, v), same)| **v != 0.0 && !**same)
                .map(|((d, v), _)| format!("{}={}\n", d.name, short_number(*v)))
                .collect()
        } else {
            String::new()
        };
        let label = match b.repeat_of {
            _ if b.label.is_content() => "kept".to_string(),
            // The decoder drops a long repeat of a kept block whatever its score.
            Some(first) => format!("dropped, repeats #{first}"),
            None => "dropped".to_string(),
        };
        out.push_str(&format!(
            "<div class=\"b{}\" style=\"background:hsl({hue},70%,85%)\" title=\"{}\">\
             <span class=\"m\">#{} &lt;{}&gt; {:.2} {label}</span> {}</div>\n",
            if b.label.is_content() { " keep" } else { "" },
            escape(&features),
            b.index,
            escape(&b.tag),
            b.score,
            // Isolated, so that a right-to-left text does not carry the label's characters
            // along, nor take its own final stop to the other end.
            if b.collapsed.is_some() {
                format!("<bdi class=\"pre\">{}</bdi>", escape(&b.text))
            } else {
                format!("<bdi>{}</bdi>", escape(&b.text))
            }
        ));
    }
    out.push_str("</section>\n");
    out
}

/// A feature's value to three significant digits (`0.333`, `12.5`), a whole number as it is.
fn short_number(v: f32) -> String {
    if v.fract() == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.digits$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::Link;

    fn block(text: &str, tag: &str, role: Role, kept: bool) -> ExtractedBlock {
        ExtractedBlock {
            index: 0,
            text: text.into(),
            collapsed: None,
            tag: tag.into(),
            label: Label::from_bool(kept),
            score: 0.5,
            repeat_of: None,
            role,
            // Every `blockquote` block in one quote, unless a test says otherwise.
            quote: (tag == "blockquote").then_some(0),
            links: Vec::new(),
        }
    }

    /// The item `element` of the list `list`, `depth` lists deep.
    fn li(number: Option<u32>, depth: u32, list: u32, element: u32) -> ListItem {
        ListItem {
            number,
            depth,
            list,
            element,
            in_item: None,
        }
    }

    /// A kept list item, `depth` lists deep, whose element is `element`; the lists of each
    /// depth are one list.
    fn kept_item(text: &str, number: Option<u32>, depth: u32, element: u32) -> ExtractedBlock {
        block(
            text,
            "li",
            Role::Item(li(number, depth, depth, element)),
            true,
        )
    }

    /// [`block`] at a position of the page: whether a block follows the one above tells lines.
    fn at(index: usize, text: &str, tag: &str, role: Role, kept: bool) -> ExtractedBlock {
        ExtractedBlock {
            index,
            ..block(text, tag, role, kept)
        }
    }

    fn markdown(blocks: Vec<ExtractedBlock>) -> String {
        to_markdown(&Extraction {
            title: String::new(),
            text: plain_text(&blocks, &[]),
            blocks,
            ..Extraction::default()
        })
    }

    #[test]
    fn a_title_that_the_text_says_is_written_once() {
        let page = |title: &str, blocks: Vec<ExtractedBlock>| Extraction {
            title: title.into(),
            text: plain_text(&blocks, &[]),
            blocks,
            ..Extraction::default()
        };
        let blocks = || {
            vec![
                at(0, "Menu", "li", Role::Item(li(None, 1, 1, 2)), false),
                at(1, "Tomatoes in  pots!", "h1", Role::Text, true),
                at(2, "Sow in spring.", "p", Role::Text, true),
                at(3, "Tomatoes in pots", "h2", Role::Text, true),
            ]
        };
        // The first kept block says the title: it is the top heading, once.
        let e = page("Tomatoes in pots", blocks());
        assert_eq!(
            to_text(&e),
            "Tomatoes in  pots!\n\nSow in spring.\n\nTomatoes in pots\n"
        );
        assert_eq!(
            to_markdown(&e),
            "# Tomatoes in  pots!\n\nSow in spring.\n\n## Tomatoes in pots\n\n"
        );
        // Nothing kept: the title alone, or nothing at all (no empty line).
        let mut none = blocks();
        none.iter_mut()
            .for_each(|b| b.label = Label::from_bool(false));
        assert_eq!(
            to_text(&page("Tomatoes in pots", none.clone())),
            "Tomatoes in pots\n"
        );
        assert_eq!(to_text(&page("", none.clone())), "");
        assert_eq!(to_markdown(&page("", none)), "");
        // Blocks labelled again after extraction are written as labelled, by both.
        let mut relabelled = page("", blocks());
        relabelled.blocks[2].label = Label::from_bool(false);
        assert_eq!(
            to_text(&relabelled),
            "Tomatoes in  pots!\n\nTomatoes in pots\n"
        );
        assert_eq!(
            to_markdown(&relabelled),
            "# Tomatoes in  pots!\n\n## Tomatoes in pots\n\n"
        );
        // Another title: both are written.
        let e = page("Growing tomatoes", blocks());
        assert!(to_text(&e).starts_with("Growing tomatoes\n\nTomatoes in  pots!\n\n"));
        assert!(to_markdown(&e).starts_with("# Growing tomatoes\n\n# Tomatoes in  pots"));
        // A paragraph that says the title stands for the headline (`<b>` in a page made
        // before style sheets): once, as the top heading.
        let mut b = blocks();
        b[1].tag = "p".into();
        let e = page("Tomatoes in pots", b);
        assert!(to_text(&e).starts_with("Tomatoes in  pots!\n\nSow in spring.\n\n"));
        assert!(to_markdown(&e).starts_with("# Tomatoes in  pots!\n\nSow in spring.\n\n"));
        // A list item, code or a quote that says it is not the headline: both are written.
        let mut b = blocks();
        b[1].tag = "li".into();
        b[1].role = Role::Item(li(None, 1, 1, 3));
        let e = page("Tomatoes in pots", b);
        assert!(to_text(&e).starts_with("Tomatoes in pots\n\n- Tomatoes in  pots!\n\n"));
        assert!(to_markdown(&e).starts_with("# Tomatoes in pots\n\n- Tomatoes in "));
        for tag in ["pre", "blockquote"] {
            let mut b = blocks();
            b[1].tag = tag.into();
            b[1].quote = (tag == "blockquote").then_some(0);
            let e = page("Tomatoes in pots", b);
            assert!(to_text(&e).starts_with("Tomatoes in pots\n\nTomatoes in  pots!\n\n"));
        }
        // The cell of a layout table (its kept cells make no grid) stands for the headline;
        // the first cell of a table laid out as one does not.
        let cell = |index, text: &str, row, col| {
            let head = false;
            at(
                index,
                text,
                "td",
                Role::Cell {
                    table: 1,
                    row,
                    col,
                    head,
                    join: Join::Paragraph,
                    item: None,
                },
                true,
            )
        };
        let layout = vec![
            cell(0, "Tomatoes in pots", 0, 1),
            cell(1, "Sow in spring.", 0, 1),
        ];
        let e = page("Tomatoes in pots", layout);
        assert_eq!(to_text(&e), "Tomatoes in pots\n\nSow in spring.\n");
        assert_eq!(to_markdown(&e), "# Tomatoes in pots\n\nSow in spring.\n\n");
        let grid = vec![
            cell(0, "Tomatoes in pots", 0, 0),
            cell(1, "Sow", 0, 1),
            cell(2, "April", 1, 0),
            cell(3, "May", 1, 1),
        ];
        let e = page("Tomatoes in pots", grid);
        assert!(to_text(&e).starts_with("Tomatoes in pots\n\nTomatoes in pots"));
        assert!(to_markdown(&e).starts_with("# Tomatoes in pots\n\n|"));
        // The headline below a kept brand's name: the title once, where its `<h1>` stands.
        // The headline's `<h1>` (block 2) below a kept brand's name, or another block.
        let below = |tag: &str, quote, headline| {
            let mut b = vec![at(0, "Greenhouse Co.", "h2", Role::Text, true)];
            b.extend(blocks().into_iter().skip(1).map(|mut b| {
                b.index += 1;
                b
            }));
            b[1].tag = tag.into();
            b[1].quote = quote;
            Extraction {
                headline_block: Some(headline),
                ..page("Tomatoes in pots", b)
            }
        };
        let e = below("h1", None, 2);
        assert_eq!(
            to_text(&e),
            "Greenhouse Co.\n\nTomatoes in  pots!\n\nSow in spring.\n\nTomatoes in pots\n"
        );
        assert_eq!(
            to_markdown(&e),
            "## Greenhouse Co.\n\n# Tomatoes in  pots!\n\nSow in spring.\n\n## Tomatoes in pots\n\n"
        );
        // An `<h1>` in a quote, or one that repeats the title while the headline's is left
        // out, does not say it: the title goes on top.
        for e in [below("h1", Some(0), 2), below("h1", None, 9)] {
            assert!(to_text(&e).starts_with("Tomatoes in pots\n\nGreenhouse Co.\n\n"));
            assert!(to_markdown(&e).starts_with("# Tomatoes in pots\n\n## Greenhouse Co.\n\n"));
        }
    }

    #[test]
    fn markdown_escapes_what_would_read_as_markup() {
        let cases = [
            ("# of items", "\\# of items"),
            ("1. Not a list", "1\\. Not a list"),
            ("2024) a year", "2024\\) a year"),
            (
                "1234567890. too long for a list number",
                "1234567890. too long for a list number",
            ),
            ("- dash, + plus", "\\- dash, + plus"),
            ("> no quote", "\\> no quote"),
            (
                "a *b* _c_ `d` [e](f) ~g~ \\[h]",
                "a \\*b\\* \\_c\\_ \\`d\\` \\[e](f) \\~g\\~ \\\\\\[h]",
            ),
            // Underscores inside a word neither open nor close emphasis.
            (
                "read_file, __init__, a__b and _c",
                "read_file, \\_\\_init\\_\\_, a__b and \\_c",
            ),
            // A backslash escapes punctuation only, and ends a line as a hard break.
            ("C:\\Users\\me ends \\", "C:\\Users\\me ends \\\\"),
            ("2 < 3 but a<b", "2 < 3 but a&lt;b"),
            // Nor does one before a digit, unless a `>` may close an e-mail autolink.
            (
                "<3 and <44 days, <1@x.org>",
                "<3 and <44 days, &lt;1@x.org>",
            ),
            ("</p> <!-- <?", "&lt;/p> &lt;!-- &lt;?"),
            ("<é <1 <2> <3>", "<é <1 &lt;2> &lt;3>"),
            // A lone `*` between spaces is no emphasis; at a line's start it is a bullet.
            ("a * b ** c *d", "a * b \\*\\* c \\*d"),
            ("* a", "\\* a"),
            // Block markers need a space after them, or make the whole line.
            ("#hashtag, ####### and 1.5 l", "#hashtag, ####### and 1.5 l"),
            ("###### six", "\\###### six"),
            ("-5 degrees, +3", "-5 degrees, +3"),
            ("---", "\\---"),
            ("- - -", "\\- - -"),
            ("==", "\\=="),
            ("=== Docs ===", "=== Docs ==="),
            ("--- | ---", "\\--- | ---"),
            ("|:--|--:|", "\\|:--|--:|"),
            (": - :", "\\: - :"),
            ("a | b", "a | b"),
            ("7.", "7\\."),
            ("___", "\\_\\_\\_"),
            (
                "<img src=x onerror=alert(1)>",
                "&lt;img src=x onerror=alert(1)>",
            ),
            ("AT&T &amp; &#39; & co", "AT&T &amp;amp; &amp;#39; & co"),
            ("2 > 1, #3", "2 > 1, #3"),
        ];
        for (text, escaped) in cases {
            assert_eq!(md_escape(text, true), escaped, "{text}");
        }
        assert_eq!(md_escape("# - 1.", false), "# - 1.");
        // Every `<` of a long word looks for the same `>`, found once.
        let word = format!("{}>", "<1".repeat(50_000));
        assert_eq!(
            md_escape(&word, false),
            format!("{}>", "&lt;1".repeat(50_000))
        );
        assert_eq!(heading_text("Issue #"), "Issue \\#");
        assert_eq!(heading_text("C##"), "C\\##");
        assert_eq!(heading_text("#"), "\\#");
        // A heading's text is inline: a number or a dash at its start is no list.
        assert_eq!(heading_text("1. Install"), "1. Install");
        assert_eq!(heading_text("- Notes"), "- Notes");
    }

    /// What a CommonMark renderer (with GitHub's tables and strikethrough) shows of a
    /// Markdown document: the text of its one paragraph or heading, a hard break as `\n`, a
    /// link as `<target|text>`; `None` when it reads as anything else (a list, a rule, a
    /// table, an image, emphasis...).
    fn rendered(markdown: &str) -> Option<String> {
        use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
        let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
        let mut shown = String::new();
        for event in Parser::new_ext(markdown, options) {
            match event {
                Event::Text(t) => shown.push_str(&t),
                Event::HardBreak => shown.push('\n'),
                Event::Start(Tag::Link { dest_url, .. }) => {
                    shown.push_str(&format!("<{dest_url}|"));
                }
                Event::End(TagEnd::Link) => shown.push('>'),
                Event::Start(Tag::Paragraph | Tag::Heading { .. })
                | Event::End(TagEnd::Paragraph | TagEnd::Heading(_)) => {}
                _ => return None,
            }
        }
        Some(shown)
    }

    #[test]
    fn escaped_text_renders_as_itself_whatever_its_characters() {
        // Short texts drawn from Markdown's special characters, letters and spaces, alone, as
        // a heading, and as two lines of a paragraph cut by a `<br>`.
        let alphabet: Vec<char> = "ab1 _*-+#><[]()!`~\\&;=|:.é\t@/?".chars().collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut draw = |len: u64| {
            let mut text = String::new();
            for _ in 0..1 + len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            // Block texts are trimmed, their whitespace collapsed.
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        };
        let mut tried = 0;
        for i in 0..40_000u64 {
            let (a, b) = (draw(i % 9), draw(i % 7));
            if a.is_empty() || b.is_empty() {
                continue;
            }
            tried += 1;
            let alone = md_escape(&a, true);
            assert_eq!(rendered(&alone), Some(a.clone()), "{a:?} as {alone:?}");
            let heading = format!("## {}", heading_text(&a));
            assert_eq!(rendered(&heading), Some(a.clone()), "{a:?} as {heading:?}");
            let lines = format!("{alone}\\\n{}", md_escape(&b, true));
            assert_eq!(rendered(&lines), Some(format!("{a}\n{b}")), "{lines:?}");
            // A link around the second text, or around the first, with a drawn target.
            let target = draw(i % 5);
            if target.is_empty() || target.starts_with('#') {
                continue;
            }
            let dest = target.replace(' ', "%20");
            let text = format!("{a} {b}");
            let linked = |span: (usize, usize)| ExtractedBlock {
                links: vec![Link {
                    span: (span.0 as u32, span.1 as u32),
                    target: target.as_str().into(),
                }],
                ..block(&text, "p", Role::Text, true)
            };
            let md = md_inline(&linked((a.len() + 1, text.len())), true);
            assert_eq!(rendered(&md), Some(format!("{a} <{dest}|{b}>")), "{md:?}");
            let md = md_inline(&linked((0, a.len())), true);
            assert_eq!(rendered(&md), Some(format!("<{dest}|{a}> {b}")), "{md:?}");
            let heading = format!("## {}", heading_inline(&linked((0, text.len()))));
            assert_eq!(
                rendered(&heading),
                Some(format!("<{dest}|{text}>")),
                "{heading:?}"
            );
            // A link right after the text before it (`!` then `[` is an image's start).
            let joined = ExtractedBlock {
                text: format!("{a}{b}"),
                ..linked((a.len(), a.len() + b.len()))
            };
            let md = md_inline(&joined, true);
            assert_eq!(rendered(&md), Some(format!("{a}<{dest}|{b}>")), "{md:?}");
        }
        assert!(tried > 30_000);
    }

    #[test]
    fn text_inside_pre_is_code_in_an_item_or_a_quote_and_one_line_in_a_heading() {
        let pre = |text: &str, tag: &str, role: Role| ExtractedBlock {
            collapsed: Some(text.split_whitespace().collect::<Vec<_>>().join(" ")),
            ..block(text, tag, role, true)
        };
        let item = |number, depth| Role::Item(li(number, depth, depth, depth));
        let blocks = vec![
            block("a", "li", item(None, 1), true),
            pre("x = *1*\n    y = _2_", "li", item(Some(1), 2)),
            pre("Title *one*\n    two", "h2", Role::Text),
            pre("said\n    _this_", "blockquote", Role::Text),
        ];
        // Indented lines outside a code block would read as code, their escapes shown.
        assert_eq!(
            markdown(blocks),
            "- a\n  1. ```\n     x = *1*\n         y = _2_\n     ```\n\n\
             ## Title \\*one\\* two\n\n\
             > ```\n> said\n>     _this_\n> ```\n\n"
        );
    }

    #[test]
    fn a_list_laid_out_at_the_column_of_the_list_around_it_ends_before_that_one_goes_on() {
        // The outer list's first item was left out: its inner list stands at the outer
        // list's column, where Markdown would number the outer list's next items on from it.
        let blocks = vec![
            kept_item("Inner one.", Some(1), 2, 11),
            kept_item("Inner two.", Some(2), 2, 12),
            kept_item("Outer two.", Some(2), 1, 13),
            kept_item("Outer three.", Some(3), 1, 14),
        ];
        assert_eq!(
            markdown(blocks),
            "1. Inner one.\n2. Inner two.\n\n<!-- -->\n\n2. Outer two.\n3. Outer three.\n\n"
        );
        // Bulleted, the two lists are drawn alike as one.
        let blocks = vec![
            kept_item("inner", None, 2, 11),
            kept_item("outer", None, 1, 13),
        ];
        assert_eq!(markdown(blocks), "- inner\n- outer\n\n");
    }

    #[test]
    fn markdown_nests_items_under_the_kept_items_around_them() {
        let blocks = vec![
            kept_item("a", None, 1, 101),
            kept_item("b", None, 2, 102),
            // A numbered list may start right under an item only at 1.
            kept_item("c", Some(3), 2, 103),
            kept_item("d", None, 1, 104),
            // Its list's own item (depth 2) was dropped: it nests in the nearest kept one.
            kept_item("e", Some(1), 3, 105),
            block("text", "p", Role::Text, true),
            kept_item("f", None, 2, 106),
        ];
        assert_eq!(
            markdown(blocks),
            "- a\n  - b\n\n  3. c\n- d\n  1. e\n\ntext\n\n- f\n\n"
        );
        // Lists nested a thousand deep: lines indented at most 15 levels of `- `.
        let deep: Vec<ExtractedBlock> = (1..=1000).map(|d| kept_item("x", None, d, d)).collect();
        let md = markdown(deep);
        let widest = md.lines().map(|l| l.len() - l.trim_start().len()).max();
        assert_eq!(widest, Some(2 * (MAX_LIST_NESTING - 1)));
        // Past that depth, each item's later paragraph still goes under its own item.
        let depth = 20;
        let mut blocks: Vec<ExtractedBlock> = (1..=depth)
            .map(|d| kept_item(&format!("i{d}"), None, d, d))
            .collect();
        blocks.extend((1..=depth).rev().map(|d| {
            let role = Role::ItemParagraph {
                item: li(None, d, d, d),
                join: Join::Paragraph,
            };
            block(&format!("more{d}"), "li", role, true)
        }));
        let items: Vec<String> = (1..=depth).map(|d| format!("- i{d}")).collect();
        let more: Vec<String> = (1..=depth).rev().map(|d| format!("more{d}")).collect();
        assert_eq!(
            plain_text(&blocks, &[]),
            format!("{}\n{}", items.join("\n"), more.join("\n"))
        );
        let md = markdown(blocks);
        for d in 1..=depth as usize {
            let column = 2 * d.min(MAX_LIST_NESTING);
            let line = format!("\n{}more{d}\n", " ".repeat(column));
            assert!(md.contains(&line), "{line:?} in {md}");
        }
    }

    #[test]
    fn numbered_lists_in_a_row_and_numbers_skipped_stay_apart() {
        use pulldown_cmark::{Event, Parser, Tag};
        // Each item's element is its list's, plus its number.
        let item = |text: &str, number, depth, list| {
            let role = Role::Item(li(Some(number), depth, list, list * 100 + number));
            block(text, "li", role, true)
        };
        // An `<ol start=3>`, then an `<ol reversed>` holding a list of its own, then a
        // bulleted list: without the comment, Markdown numbers "b" and "c" on from "a".
        let mut blocks = vec![
            item("a", 3, 1, 10),
            item("a2", 4, 1, 10),
            item("b", 2, 1, 20),
            item("b, inner", 1, 2, 21),
            item("inner, other list", 5, 2, 22),
            item("c", 1, 1, 20),
            // Its item 2 left out: "e" starts a list at 3, or Markdown would number it 2.
            item("e", 3, 1, 20),
            // Items whose `value` goes back, or says the number above again: each starts a
            // list of its own, or Markdown would number them 4 and 5.
            block("f", "li", Role::Item(li(Some(1), 1, 20, 2091)), true),
            block("g", "li", Role::Item(li(Some(1), 1, 20, 2092)), true),
        ];
        blocks.push(block("d", "li", Role::Item(li(None, 1, 30, 1)), true));
        let md = markdown(blocks);
        assert_eq!(
            md,
            "3. a\n4. a2\n\n<!-- -->\n\n2. b\n   1. b, inner\n\n   <!-- -->\n\n   \
             5. inner, other list\n1. c\n\n<!-- -->\n\n3. e\n\n<!-- -->\n\n1. f\n\n<!-- -->\n\n\
             1. g\n- d\n\n"
        );
        let starts: Vec<Option<u64>> = Parser::new(&md)
            .filter_map(|event| match event {
                Event::Start(Tag::List(start)) => Some(start),
                _ => None,
            })
            .collect();
        assert_eq!(
            starts,
            [
                Some(3),
                Some(2),
                Some(1),
                Some(5),
                Some(3),
                Some(1),
                Some(1),
                None
            ]
        );
    }

    #[test]
    fn bulleted_lists_in_a_row_take_turns_with_their_bullets() {
        use pulldown_cmark::{Event, Parser, Tag};
        let item = |text: &str, depth, list, element| {
            block(text, "li", Role::Item(li(None, depth, list, element)), true)
        };
        // Three `<ul>`s in a row, the second holding a list of its own under its first item.
        let blocks = vec![
            item("a", 1, 10, 1),
            item("a2", 1, 10, 2),
            item("b", 1, 20, 3),
            item("b, inner", 2, 21, 4),
            item("b2", 1, 20, 5),
            item("c", 1, 30, 6),
        ];
        // The text keeps WCXB's layout, one bullet for all.
        assert_eq!(
            plain_text(&blocks, &[]),
            "- a\n- a2\n- b\n- b, inner\n- b2\n- c"
        );
        let md = markdown(blocks);
        assert_eq!(md, "- a\n- a2\n* b\n  - b, inner\n* b2\n- c\n\n");
        let lists = Parser::new(&md)
            .filter(|event| matches!(event, Event::Start(Tag::List(None))))
            .count();
        assert_eq!(lists, 4);
    }

    #[test]
    fn json_escapes_the_line_separators_that_json_allows_raw() {
        let value =
            serde_json::json!({"source": "a\u{2028}b", "text": "c\u{85}d\u{2029}e \u{2027}"});
        for pretty in [false, true] {
            let out = json(&value, pretty);
            assert!(!out.contains(['\u{85}', '\u{2028}', '\u{2029}']), "{out}");
            assert!(out.contains("a\\u2028b") && out.contains("c\\u0085d\\u2029e \u{2027}"));
            let back: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(back, value);
        }
        // Nothing to escape: serde_json's own text.
        let plain = serde_json::json!({"text": "plain \\u2028 text"});
        assert_eq!(json(&plain, false), serde_json::to_string(&plain).unwrap());
    }

    #[test]
    fn later_paragraphs_of_an_item_stay_in_it() {
        // More of the item `element`, numbered `number`, `depth` lists deep.
        let more = |text: &str, number, depth, element, kept| {
            let role = Role::ItemParagraph {
                item: li(number, depth, depth, element),
                join: Join::Paragraph,
            };
            block(text, "li", role, kept)
        };
        let blocks = vec![
            kept_item("a", Some(7), 1, 1),
            more("a, second line", Some(7), 1, 1, true),
            kept_item("b", None, 2, 2),
            // More of the outer item, after its inner list.
            more("a, third line", Some(7), 1, 1, true),
            more("dropped", Some(7), 1, 1, false),
            kept_item("c", Some(8), 1, 3),
            block("text", "p", Role::Text, true),
            // Its item is not open any more: a paragraph.
            more("more of c", Some(8), 1, 3, true),
            kept_item("d", None, 1, 4),
            // More of an item nested in d, whose own block is dropped: it begins that item.
            more("deeper", None, 2, 5, true),
            more("deeper still", None, 2, 5, true),
            // More of the next item, whose first block is dropped: not more of d.
            block("e", "li", Role::Item(li(None, 1, 1, 6)), false),
            more("more of e", None, 1, 6, true),
        ];
        let text = plain_text(&blocks, &[]);
        assert_eq!(
            text,
            "7. a\na, second line\n- b\na, third line\n8. c\n\ntext\n\nmore of c\n\n\
             - d\n- deeper\ndeeper still\n- more of e",
            "the text output numbers items but does not nest lists"
        );
        assert_eq!(
            markdown(blocks),
            "7. a\n\n   a, second line\n   - b\n\n   a, third line\n8. c\n\ntext\n\nmore of c\n\n\
             - d\n  - deeper\n\n    deeper still\n- more of e\n\n"
        );
    }

    /// The items and quotes that CommonMark reads in `md`, each text in them after it and a
    /// hard line break as `/`.
    fn items_and_quotes(md: &str) -> String {
        use pulldown_cmark::{Event, Tag, TagEnd};
        let mut tree = String::new();
        for event in pulldown_cmark::Parser::new(md) {
            tree.push_str(&match event {
                Event::Start(Tag::Item) => "(item ".into(),
                Event::Start(Tag::BlockQuote(_)) => "(quote ".into(),
                Event::End(TagEnd::Item | TagEnd::BlockQuote(_)) => ")".into(),
                Event::Text(t) => format!("{t};"),
                Event::HardBreak => "/".into(),
                _ => String::new(),
            });
        }
        tree
    }

    #[test]
    fn a_quote_inside_an_item_stays_in_it_when_the_item_is_laid_out() {
        let item = |element| li(None, 1, 1, element);
        let quoted = |index, text: &str, element, join, kept| ExtractedBlock {
            quote: Some(10 * element),
            ..at(
                index,
                text,
                "p",
                Role::ItemQuote {
                    item: item(element),
                    join,
                },
                kept,
            )
        };
        let item_at = |index, text: &str, element, kept| {
            at(index, text, "li", Role::Item(item(element)), kept)
        };
        let blocks = vec![
            item_at(0, "a", 1, true),
            quoted(1, "first", 1, Join::Paragraph, true),
            quoted(2, "a line", 1, Join::Line, true),
            quoted(3, "second", 1, Join::Paragraph, true),
            item_at(4, "b", 2, true),
            // The item's own block is dropped: a quote of its own, after the list.
            item_at(5, "c", 3, false),
            quoted(6, "alone", 3, Join::Paragraph, true),
        ];
        let md = markdown(blocks.clone());
        assert_eq!(
            md,
            "- a\n\n  > first\\\n  > a line\n  >\n  > second\n- b\n\n> alone\n\n"
        );
        // As CommonMark reads it: one quote of two paragraphs inside the first item.
        assert_eq!(
            items_and_quotes(&md),
            "(item a;(quote first;/a line;second;))(item b;)(quote alone;)"
        );
        // The text format lays the quote out as text, as WCXB's gold texts do.
        assert_eq!(
            plain_text(&blocks, &[]),
            "- a\n\nfirst\na line\n\nsecond\n\n- b\n\nalone"
        );
    }

    #[test]
    fn an_item_that_begins_with_a_list_draws_its_marker_on_that_lists_first_line() {
        // `<ol><li><ul><li>a</li><li>b</li></ul>outer</li><li>two</li></ol>`: the `ol` is
        // element 1, its items 2 and 7, the `ul` 3, its items 4 and 5.
        let outer = li(Some(1), 1, 1, 2);
        let nested = |element| ListItem {
            in_item: Some(2),
            ..li(None, 2, 3, element)
        };
        let page = |outer_kept| {
            vec![
                at(0, "a", "li", Role::Item(nested(4)), true),
                at(1, "b", "li", Role::Item(nested(5)), true),
                at(2, "outer", "li", Role::Item(outer), outer_kept),
                at(3, "two", "li", Role::Item(li(Some(2), 1, 1, 7)), true),
            ]
        };
        let md = markdown(page(true));
        assert_eq!(md, "1. - a\n   - b\n\n   outer\n2. two\n\n");
        assert_eq!(
            items_and_quotes(&md),
            "(item (item a;)(item b;)outer;)(item two;)"
        );
        // When the item's own text is not kept, its marker is not drawn either.
        assert_eq!(markdown(page(false)), "- a\n- b\n\n2. two\n\n");
    }

    #[test]
    fn a_list_in_an_item_without_text_goes_under_the_item_above() {
        // `<ul><li>Regions:</li><li><ul><li>Napa</li><li>Sonoma</li></ul></li><li>Chile</li>
        // </ul>`, as editors nest a list: the `ul` is element 1, its items 2, 3 and 7, the
        // inner `ul` 4, its items 5 and 6.
        let nested = |element| ListItem {
            in_item: Some(3),
            ..li(None, 2, 4, element)
        };
        let md = markdown(vec![
            at(0, "Regions:", "li", Role::Item(li(None, 1, 1, 2)), true),
            at(1, "Napa", "li", Role::Item(nested(5)), true),
            at(2, "Sonoma", "li", Role::Item(nested(6)), true),
            at(3, "Chile", "li", Role::Item(li(None, 1, 1, 7)), true),
        ]);
        assert_eq!(md, "- Regions:\n  - Napa\n  - Sonoma\n- Chile\n\n");
        assert_eq!(
            items_and_quotes(&md),
            "(item Regions:;(item Napa;)(item Sonoma;))(item Chile;)"
        );
    }

    #[test]
    fn the_paragraphs_of_a_quote_stay_one_quote() {
        let blocks = vec![
            at(0, "before", "p", Role::Text, true),
            at(1, "first", "blockquote", Role::Text, true),
            at(2, "second", "blockquote", Role::Text, true),
            at(3, "a line", "blockquote", Role::Line, true),
            at(4, "third", "blockquote", Role::Text, true),
            at(5, "dropped", "blockquote", Role::Text, false),
            // Not right below the kept quote: another quote.
            at(6, "apart", "blockquote", Role::Text, true),
            at(7, "after", "p", Role::Text, true),
            at(8, "again", "blockquote", Role::Text, true),
        ];
        assert_eq!(
            markdown(blocks),
            "before\n\n> first\n>\n> second\\\n> a line\n>\n> third\n\n> apart\n\nafter\n\n\
             > again\n\n"
        );
        // Two quotes one right after the other stay two, as the page has them.
        let in_quote = |index, text: &str, quote| ExtractedBlock {
            quote: Some(quote),
            ..at(index, text, "p", Role::Text, true)
        };
        let blocks = vec![
            in_quote(0, "one", 7),
            in_quote(1, "more of one", 7),
            in_quote(2, "two", 9),
        ];
        assert_eq!(markdown(blocks), "> one\n>\n> more of one\n\n> two\n\n");
        // Text after an image goes on the quoted line, and the quote after it.
        let blocks = vec![
            in_quote(0, "one", 7),
            ExtractedBlock {
                role: Role::SameLine,
                ..in_quote(1, "on", 7)
            },
            in_quote(2, "more of one", 7),
        ];
        assert_eq!(markdown(blocks), "> one on\n>\n> more of one\n\n");
    }

    #[test]
    fn lists_headings_and_code_in_a_quote_stay_in_it() {
        let item = |number, depth, list, element| Role::Item(li(number, depth, list, element));
        // Element 5 is the quote; lists 7, 9 and 11 are inside it.
        let q = |index, text: &str, tag: &str, role| ExtractedBlock {
            quote: Some(5),
            ..at(index, text, tag, role, true)
        };
        let more = Role::ItemParagraph {
            item: li(None, 1, 7, 22),
            join: Join::Paragraph,
        };
        let blocks = vec![
            q(0, "Findings", "h2", Role::Text),
            q(1, "We found", "p", Role::Text),
            q(2, "deck", "li", item(None, 1, 7, 20)),
            q(3, "northern", "li", item(None, 2, 9, 21)),
            q(4, "Run:", "li", item(None, 1, 7, 22)),
            q(5, "a\nb", "pre", more),
            q(6, "first", "li", item(Some(1), 1, 11, 23)),
            at(7, "after", "p", Role::Text, true),
        ];
        assert_eq!(
            markdown(blocks),
            "> ## Findings\n>\n> We found\n>\n> - deck\n>   - northern\n> - Run:\n>\n\
             >   ```\n>   a\n>   b\n>   ```\n> 1. first\n\nafter\n\n"
        );
        // An item of a list in the item `holder`, quoted by the quote `quote`.
        let nested = |index, text: &str, list, element, holder, quote| ExtractedBlock {
            quote: Some(quote),
            ..at(
                index,
                text,
                "li",
                Role::Item(ListItem {
                    in_item: Some(holder),
                    ..li(None, 2, list, element)
                }),
                true,
            )
        };
        // A quote (element 4) that indents a list (5) inside an item (3, of list 2) leaves
        // that list nested in the item, unquoted.
        // An item of a list inside the indented item (8, of list 7), in the same quote, stays
        // nested in it.
        let deeper = ExtractedBlock {
            quote: Some(4),
            ..at(
                2,
                "deeper",
                "li",
                Role::Item(ListItem {
                    in_item: Some(6),
                    ..li(None, 3, 7, 8)
                }),
                true,
            )
        };
        let blocks = vec![
            at(0, "outer", "li", item(None, 1, 2, 3), true),
            nested(1, "indented", 5, 6, 3, 4),
            deeper,
            at(3, "outer two", "li", item(None, 1, 2, 9), true),
        ];
        assert_eq!(
            markdown(blocks),
            "- outer\n  - indented\n    - deeper\n- outer two\n\n"
        );
        // The same inside a quote (element 5, around list 7): the nested items stay in it.
        let blocks = vec![
            q(0, "outer", "li", item(None, 1, 7, 8)),
            nested(1, "indented", 10, 11, 8, 9),
            q(2, "outer two", "li", item(None, 1, 7, 12)),
        ];
        assert_eq!(
            markdown(blocks),
            "> - outer\n>   - indented\n> - outer two\n\n"
        );
        // A quote (4) after a list, holding a list nested in an item (6) of its own, whose
        // first block is dropped: quoted on its own, not nested in the list above.
        let blocks = vec![
            at(0, "above", "li", item(None, 1, 2, 3), true),
            nested(1, "in the quote", 7, 8, 6, 4),
        ];
        assert_eq!(markdown(blocks), "- above\n\n> - in the quote\n\n");
        // A quote (7) inside an item (6) of another list (5), that item dropped: quoted on its
        // own too, not nested in the list above.
        let blocks = vec![
            at(0, "above", "li", item(None, 1, 2, 3), true),
            at(1, "dropped", "li", item(None, 1, 5, 6), false),
            nested(2, "in the quote", 8, 9, 6, 7),
        ];
        assert_eq!(markdown(blocks), "- above\n\n> - in the quote\n\n");
    }

    #[test]
    fn a_description_goes_under_its_own_term_only() {
        let (a, b) = (li(None, 1, 2, 3), li(None, 1, 2, 5));
        let description = |item| Role::ItemParagraph {
            item,
            join: Join::Line,
        };
        let blocks = vec![
            at(0, "A", "dt", Role::Item(a), true),
            at(1, "a", "dd", description(a), true),
            at(2, "B", "dt", Role::Item(b), false),
            // Its term dropped: it stands for the term's item, not more of A.
            at(3, "b", "dd", description(b), true),
            at(4, "b2", "dd", description(b), true),
        ];
        assert_eq!(plain_text(&blocks, &[]), "- A\na\n- b\nb2");
        assert_eq!(markdown(blocks), "- A\\\n  a\n- b\\\n  b2\n\n");
    }

    #[test]
    fn lines_after_a_single_br_stay_in_their_paragraph() {
        let a = li(None, 1, 1, 2);
        let more = |join| Role::ItemParagraph { item: a, join };
        let blocks = vec![
            at(0, "Acme", "p", Role::Text, true),
            at(1, "12 High Street", "p", Role::Line, true),
            at(2, "Springfield", "p", Role::Line, true),
            at(3, "said", "blockquote", Role::Text, true),
            at(4, "- so", "blockquote", Role::Line, true),
            at(5, "dropped", "p", Role::Text, false),
            // The line above it is not kept: a paragraph.
            at(6, "orphan", "p", Role::Line, true),
            at(7, "a", "li", Role::Item(a), true),
            at(8, "a, second line", "li", more(Join::Line), true),
            at(9, "a, after a block", "li", more(Join::Paragraph), true),
            at(11, "a, after a dropped line", "li", more(Join::Line), true),
            at(12, "Title", "h2", Role::Text, true),
            at(13, "Subtitle", "h2", Role::Line, true),
            at(14, "dropped", "h2", Role::Text, false),
            at(15, "second", "h2", Role::Line, true),
        ];
        assert_eq!(
            plain_text(&blocks, &[]),
            "Acme\n12 High Street\nSpringfield\n\nsaid\n- so\n\norphan\n\n\
             - a\na, second line\na, after a block\na, after a dropped line\n\n\
             Title\nSubtitle\n\nsecond"
        );
        // A heading's lines make one Markdown heading.
        assert_eq!(
            markdown(blocks),
            "Acme\\\n12 High Street\\\nSpringfield\n\n> said\\\n> \\- so\n\norphan\n\n\
             - a\\\n  a, second line\n\n  a, after a block\n\n  a, after a dropped line\n\n\
             ## Title Subtitle\n\n## second\n\n"
        );
    }

    #[test]
    fn text_after_a_small_image_stays_on_its_line() {
        let a = li(None, 1, 1, 2);
        let item = Role::Item(a);
        let more = Role::ItemParagraph {
            item: a,
            join: Join::SameLine,
        };
        let blocks = vec![
            at(0, "Great post", "p", Role::Text, true),
            at(1, "# thanks *all*", "p", Role::SameLine, true),
            at(2, "Chapter", "h2", Role::Text, true),
            at(3, "two #", "h2", Role::SameLine, true),
            at(4, "dropped", "p", Role::Text, false),
            // The text before it is not kept: a paragraph.
            at(5, "alone", "p", Role::SameLine, true),
            at(6, "Street", "p", Role::Line, true),
            at(7, "and more", "p", Role::SameLine, true),
            at(8, "a", "li", item, true),
            at(9, "b", "li", more, true),
        ];
        assert_eq!(
            plain_text(&blocks, &[]),
            "Great post # thanks *all*\n\nChapter two #\n\nalone\nStreet and more\n\n- a b"
        );
        assert_eq!(
            markdown(blocks),
            "Great post # thanks \\*all\\*\n\n## Chapter two \\#\n\nalone\\\nStreet and more\n\n\
             - a b\n\n"
        );
    }

    #[test]
    fn simple_tables_are_rows_in_text_and_tables_in_markdown() {
        let cell = |text: &str, tag: &str, row, col, kept| {
            let head = tag == "th";
            block(
                text,
                tag,
                Role::Cell {
                    table: 7,
                    row,
                    col,
                    head,
                    join: Join::Paragraph,
                    item: None,
                },
                kept,
            )
        };
        let line = |text: &str, join| {
            let mut b = cell(text, "td", 2, 2, true);
            if let Role::Cell { join: j, .. } = &mut b.role {
                *j = join;
            }
            b
        };
        let blocks = vec![
            kept_item("first", Some(1), 1, 1),
            kept_item("second", Some(2), 1, 2),
            kept_item("bullet", None, 1, 3),
            cell("Name", "th", 0, 0, true),
            cell("Links", "th", 0, 1, false),
            cell("Size", "th", 0, 2, true),
            cell("a|b", "td", 1, 0, true),
            cell("menu", "td", 1, 1, false),
            cell("10", "td", 1, 2, true),
            cell("2", "td", 2, 2, true),
            // Lines of that cell, after a `<br>` and after an image.
            line("kg", Join::Line),
            line("net", Join::SameLine),
            block("after", "p", Role::Text, true),
            // A table whose kept cells fill one row stays paragraphs.
            block(
                "x",
                "td",
                Role::Cell {
                    table: 9,
                    row: 0,
                    col: 0,
                    head: false,
                    join: Join::Paragraph,
                    item: None,
                },
                true,
            ),
            block(
                "y",
                "td",
                Role::Cell {
                    table: 9,
                    row: 0,
                    col: 1,
                    head: false,
                    join: Join::Paragraph,
                    item: None,
                },
                true,
            ),
            // Without a row of `<th>`, the header is empty.
            cell("k", "td", 0, 0, true),
            cell("v", "td", 0, 1, true),
            cell("k2", "td", 1, 0, true),
            cell("v2", "td", 1, 1, true),
        ];
        assert_eq!(
            plain_text(&blocks, &[]),
            "1. first\n2. second\n- bullet\n\n\
             Name\tSize\na|b\t10\n\t2 kg net\n\n\
             after\n\nx\n\ny\n\n\
             k\tv\nk2\tv2"
        );
        assert_eq!(
            markdown(blocks),
            "1. first\n2. second\n- bullet\n\n\
             | Name | Size |\n| --- | --- |\n| a\\|b | 10 |\n|  | 2<br>kg net |\n\n\
             after\n\nx\n\ny\n\n\
             |  |  |\n| --- | --- |\n| k | v |\n| k2 | v2 |\n\n"
        );
        // A row of 8 cells over 8 rows of one fills 16 of 72 places: paragraphs.
        let sparse: Vec<ExtractedBlock> = (0..8)
            .map(|c| cell("top", "td", 0, c, true))
            .chain((1..=8).map(|r| cell("side", "td", r, 0, true)))
            .collect();
        assert!(!markdown(sparse).contains('|'));
    }

    #[test]
    fn marks_fill_the_rows_of_grids_that_keep_cells() {
        let cell = |index, text: &str, row, col, kept| {
            let join = Join::Paragraph;
            let (table, head) = (7, false);
            at(
                index,
                text,
                "td",
                Role::Cell {
                    table,
                    row,
                    col,
                    head,
                    join,
                    item: None,
                },
                kept,
            )
        };
        let mark = |text: &str, before, row, col| CellMark {
            text: text.into(),
            before,
            table: 7,
            row,
            col,
            head: false,
        };
        let page = |blocks: Vec<ExtractedBlock>, marks: Vec<CellMark>| {
            let e = Extraction {
                text: plain_text(&blocks, &marks),
                blocks,
                marks,
                ..Extraction::default()
            };
            (e.text.clone(), to_markdown(&e))
        };
        let blocks = |sharing: bool| {
            vec![
                cell(0, "Storage", 0, 0, true),
                cell(1, "10 GB", 0, 1, true),
                cell(2, "Sharing", 1, 0, sharing),
                cell(3, "Ads", 2, 0, false),
            ]
        };
        // A mark in a kept row goes in, before the table's first kept cell too, in a column
        // of its own if need be; not in a dropped row, nor in another table.
        let marks = || {
            vec![
                mark("✔", 0, 0, 2),
                mark("✓", 3, 1, 1),
                CellMark {
                    table: 8,
                    ..mark("✓", 3, 1, 1)
                },
                mark("—", 4, 2, 1),
            ]
        };
        assert_eq!(
            page(blocks(true), marks()),
            (
                "Storage\t10 GB\t✔\nSharing\t✓".to_string(),
                "|  |  |  |\n| --- | --- | --- |\n| Storage | 10 GB | ✔ |\n| Sharing | ✓ |  |\n\n"
                    .to_string()
            )
        );
        // Kept cells of one row make no grid: paragraphs, without the marks.
        assert_eq!(
            page(blocks(false), marks()),
            (
                "Storage\n\n10 GB".to_string(),
                "Storage\n\n10 GB\n\n".to_string()
            )
        );
    }

    #[test]
    fn record_round_trips_and_checks_names() {
        let rec = BlockRecord {
            source: "a.html".into(),
            place: None,
            warc_record_id: None,
            warc_date: None,
            url: None,
            group: None,
            index: 3,
            label: Some(Label::Content),
            score: Some(0.75),
            tag: "p".into(),
            text: "Hello".into(),
            schema: Some("00c0ffee00c0ffee".into()),
            features: FeatureValues((0..N_FEATURES).map(|i| i as f32).collect()),
            classes: vec!["entry-content".into(), String::new(), "post main".into()],
        };
        let line = serde_json::to_string(&rec).unwrap();
        assert!(line.starts_with(
            r#"{"source":"a.html","index":3,"label":"content","score":0.75,"tag":"p""#
        ));
        assert!(line.contains(r#""text":"Hello","schema":"00c0ffee00c0ffee","features":{"#));
        assert!(line.contains(r#""words":0.0,"anchor_words":1.0"#));
        let back: BlockRecord = serde_json::from_str(&line).unwrap();
        assert_eq!(back, rec);
        let bad = line.replace("\"anchor_words\"", "\"anchor_wordz\"");
        let err = serde_json::from_str::<BlockRecord>(&bad).unwrap_err();
        assert!(
            err.to_string().contains("unknown feature `anchor_wordz`"),
            "{err}"
        );
        let missing = line.replace("\"anchor_words\":1.0,", "");
        let err = serde_json::from_str::<BlockRecord>(&missing).unwrap_err();
        assert!(
            err.to_string().contains("`anchor_words` is missing"),
            "{err}"
        );
        // A bad value names its feature.
        for value in ["null", "1e50", "\"5\""] {
            let bad = line.replace("\"anchor_words\":1.0", &format!("\"anchor_words\":{value}"));
            let err = serde_json::from_str::<BlockRecord>(&bad).unwrap_err();
            assert!(
                err.to_string().starts_with("feature `anchor_words`: "),
                "{err}"
            );
        }
        // A block of a WARC record names the record after the source.
        let warc = BlockRecord {
            source: "https://example.com/a".into(),
            place: Some("crawl.warc#2".into()),
            warc_record_id: Some("<urn:uuid:1>".into()),
            warc_date: Some("2026-11-25T00:00:00Z".into()),
            ..rec.clone()
        };
        let line = serde_json::to_string(&warc).unwrap();
        assert!(line.starts_with(
            r#"{"source":"https://example.com/a","place":"crawl.warc#2","warc_record_id":"<urn:uuid:1>","warc_date":"2026-11-25T00:00:00Z","index":3,"#
        ));
        assert_eq!(serde_json::from_str::<BlockRecord>(&line).unwrap(), warc);
        // A page of a JSON Lines record named by its id gives its URL apart.
        let fetched = BlockRecord {
            url: Some("https://example.com/a".into()),
            ..rec
        };
        let line = serde_json::to_string(&fetched).unwrap();
        assert!(line.starts_with(r#"{"source":"a.html","url":"https://example.com/a","index":3,"#));
        assert_eq!(serde_json::from_str::<BlockRecord>(&line).unwrap(), fetched);
        // A key misspelt by hand is refused, not passed over; a group set by hand is read.
        let misspelt = line.replacen("\"index\"", "\"lable\":\"content\",\"index\"", 1);
        let err = serde_json::from_str::<BlockRecord>(&misspelt).unwrap_err();
        assert!(
            err.to_string().starts_with("unknown field `lable`"),
            "{err}"
        );
        let grouped = line.replacen("\"index\"", "\"group\":\"site\",\"index\"", 1);
        let back = serde_json::from_str::<BlockRecord>(&grouped).unwrap();
        assert_eq!(back.group.as_deref(), Some("site"));
        // A label that is no string says so; one of another name names the two.
        for (label, says) in [
            ("1", "invalid type: integer `1`, expected a string"),
            ("[\"content\"]", "invalid type: sequence, expected a string"),
            (
                "\"Content\"",
                "unknown variant `Content`, expected `content` or `boilerplate`",
            ),
        ] {
            let bad = line.replace("\"label\":\"content\"", &format!("\"label\":{label}"));
            let err = serde_json::from_str::<BlockRecord>(&bad).unwrap_err();
            assert!(err.to_string().starts_with(says), "{label}: {err}");
        }
        let none = line.replace("\"label\":\"content\"", "\"label\":null");
        assert_eq!(
            serde_json::from_str::<BlockRecord>(&none).unwrap().label,
            None
        );
    }
}
