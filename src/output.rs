//! What the CLI writes: block records (`textsift blocks`) and extractions in every format
//! (`textsift extract`).
//!
//! A block record can be edited by hand (its `label`) and read back by training, so it also
//! deserializes, checking feature names against the schema.

use crate::extract::{ExtractedBlock, Extraction};
use crate::features::{N_FEATURES, SCHEMA};
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
                while let Some((name, value)) = map.next_entry::<String, f32>()? {
                    let Some(i) = SCHEMA.iter().position(|d| d.name == name) else {
                        return Err(serde::de::Error::custom(format!(
                            "unknown feature `{name}` (the records come from another feature schema; recompute them with this version's `textsift blocks`)"
                        )));
                    };
                    values[i] = value;
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

/// One line of `textsift blocks` output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockRecord {
    /// The input as given (path, `-`, or record id).
    pub source: String,
    /// Block index in the page.
    pub index: usize,
    /// The model's label, or a label set by hand for training.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Label>,
    /// The model's score for content, from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
    /// Tag of the block's nearest block-level element.
    pub tag: String,
    /// The block's text.
    pub text: String,
    /// The features, by name.
    pub features: FeatureValues,
    /// Class/id values of the block's element and its ancestors, nearest first: a model
    /// trained on these records learns its class/id tokens from them.
    #[serde(default)]
    pub classes: Vec<String>,
}

/// Output formats of `textsift extract`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The title, then the content: one paragraph per block, blank lines between, list
    /// items on lines of their own.
    Text,
    /// One JSON document per page (pretty-printed).
    Json,
    /// One JSON object per line.
    Jsonl,
    /// Headings, lists, quotes and code as Markdown.
    Markdown,
    /// A debug page: every block coloured by score, features on hover, kept text outlined.
    Html,
}

/// The title and the main text, a blank line between them when there are both.
pub fn to_text(e: &Extraction) -> String {
    let mut out = [e.title.as_str(), e.text.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    out.push('\n');
    out
}

/// The kept blocks as Markdown.
pub fn to_markdown(e: &Extraction) -> String {
    let mut out = String::new();
    if !e.title.is_empty() {
        out.push_str(&format!("# {}\n\n", e.title));
    }
    let body = lay_out(&e.blocks, |b| match b.tag.as_str() {
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
            let level = b.tag.as_bytes()[1] - b'0';
            // The page title is already the top heading.
            format!(
                "{} {}",
                "#".repeat(usize::from(level.clamp(1, 5)) + 1),
                b.text
            )
        }
        _ if is_item(b) => format!("- {}", b.text),
        "blockquote" => format!("> {}", b.text),
        _ if b.collapsed.is_some() || b.tag == "pre" => code_block(&b.text),
        _ => b.text.clone(),
    });
    if !body.is_empty() {
        out.push_str(&body);
        out.push_str("\n\n");
    }
    out
}

/// The main text of an extraction ([`Extraction::text`]), with paragraphs and lists laid out
/// as in WCXB's gold texts: a paragraph per kept block, blank lines between, but list items
/// on lines of their own after `- `.
pub fn plain_text(blocks: &[ExtractedBlock]) -> String {
    lay_out(blocks, |b| {
        if is_item(b) {
            format!("- {}", b.text)
        } else {
            b.text.clone()
        }
    })
}

/// Whether a block is an item of a list.
fn is_item(b: &ExtractedBlock) -> bool {
    matches!(b.tag.as_str(), "li" | "dd" | "dt")
}

/// The kept blocks, each as `line` gives it: a blank line between two, but a line break
/// only between two list items, which stay together.
fn lay_out(blocks: &[ExtractedBlock], line: impl Fn(&ExtractedBlock) -> String) -> String {
    let mut out = String::new();
    let mut previous: Option<&ExtractedBlock> = None;
    for b in blocks.iter().filter(|b| b.label.is_content()) {
        if let Some(p) = previous {
            out.push_str(if is_item(p) && is_item(b) {
                "\n"
            } else {
                "\n\n"
            });
        }
        out.push_str(&line(b));
        previous = Some(b);
    }
    out
}

/// A fenced Markdown code block, its fence longer than any run of backticks in the code.
fn code_block(code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}\n{code}\n{fence}")
}

/// One page as a `json`/`jsonl` record, its keys in a fixed order: `source`, `title`, `text`,
/// then `blocks` when asked (a reader of a long JSON Lines file sees the title before the text).
#[derive(Debug, Serialize)]
pub struct PageRecord<'a> {
    /// The input as given, or the record id.
    pub source: &'a str,
    /// The page title.
    pub title: &'a str,
    /// The main text.
    pub text: &'a str,
    /// Every block, only when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<&'a [ExtractedBlock]>,
}

/// One page as a record: source, title, text, and the blocks when `with_blocks`.
pub fn to_json<'a>(source: &'a str, e: &'a Extraction, with_blocks: bool) -> PageRecord<'a> {
    PageRecord {
        source,
        title: &e.title,
        text: &e.text,
        blocks: with_blocks.then_some(e.blocks.as_slice()),
    }
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
            _ => out.push(c),
        }
    }
    out
}

/// The debug view: a standalone HTML page where every block is coloured from red (boilerplate)
/// to green (content) by its score, shows its features on hover, and kept blocks are outlined.
pub fn to_html(source: &str, e: &Extraction) -> String {
    let mut out = html_header(source);
    out.push_str(&html_section(source, e));
    out.push_str(HTML_FOOTER);
    out
}

/// The start of a debug view, up to its `<body>`: a document of one page is [`html_header`],
/// [`html_section`] and [`HTML_FOOTER`]; a document of several pages has a section for each.
pub fn html_header(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>textsift: {}</title>\n\
         <style>body{{font:14px/1.4 sans-serif;max-width:60em;margin:1em auto}}\
         section+section{{border-top:4px double #888;margin-top:2em}}\
         .b{{margin:2px 0;padding:3px 6px;border:2px solid transparent;border-radius:3px}}\
         .keep{{border-color:#135}}.m{{color:#555;font-size:11px}}\
         .pre{{display:block;white-space:pre-wrap;font-family:monospace}}</style></head><body>\n",
        escape(title)
    )
}

/// The end of a debug view.
pub const HTML_FOOTER: &str = "</body></html>\n";

/// One page of a debug view: its title, source and blocks, in a `<section>`.
pub fn html_section(source: &str, e: &Extraction) -> String {
    let mut out = format!(
        "<section>\n<h1>{}</h1>\n<p class=\"m\">{}: {} blocks, {} kept. Colour: score from red (0, \
         boilerplate) to green (1, content); outlined: kept; hover: features.</p>\n",
        escape(&e.title),
        escape(source),
        e.blocks.len(),
        e.blocks.iter().filter(|b| b.label.is_content()).count()
    );
    for (i, b) in e.blocks.iter().enumerate() {
        let hue = (b.score.clamp(0.0, 1.0) * 120.0).round();
        let features: String = if i < e.features.rows() {
            SCHEMA
                .iter()
                .zip(e.features.row(i))
                .map(|(d, v)| format!("{}={v}\n", d.name))
                .collect()
        } else {
            String::new()
        };
        out.push_str(&format!(
            "<div class=\"b{}\" style=\"background:hsl({hue},70%,85%)\" title=\"{}\">\
             <span class=\"m\">#{} &lt;{}&gt; {:.2}</span> {}</div>\n",
            if b.label.is_content() { " keep" } else { "" },
            escape(&features),
            b.index,
            escape(&b.tag),
            b.score,
            if b.collapsed.is_some() {
                format!("<span class=\"pre\">{}</span>", escape(&b.text))
            } else {
                escape(&b.text)
            }
        ));
    }
    out.push_str("</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trips_and_checks_names() {
        let rec = BlockRecord {
            source: "a.html".into(),
            index: 3,
            label: Some(Label::Content),
            score: Some(0.75),
            tag: "p".into(),
            text: "Hello".into(),
            features: FeatureValues((0..N_FEATURES).map(|i| i as f32).collect()),
            classes: vec!["entry-content".into(), String::new(), "post main".into()],
        };
        let line = serde_json::to_string(&rec).unwrap();
        assert!(line.starts_with(
            r#"{"source":"a.html","index":3,"label":"content","score":0.75,"tag":"p""#
        ));
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
    }
}
