//! Blocks to numbers: the fixed, named feature schema.
//!
//! Every feature is listed once in [`SCHEMA`] with its definition and range; the model file
//! stores [`schema_hash`] so that a model trained on another schema is refused.
//! `training/FEATURES.md` is generated from the same table (`textsift features`).

use crate::blocks::{ctx, Block, Page};
use regex::Regex;
use rustc_hash::{FxHashMap, FxHashSet};
use std::hash::{Hash, Hasher};
use std::sync::{LazyLock, OnceLock};

/// One feature of the schema.
#[derive(Debug, Clone, Copy)]
pub struct FeatureDef {
    /// Stable name, used in JSON output and model metadata.
    pub name: &'static str,
    /// What it measures.
    pub definition: &'static str,
    /// Range of values.
    pub range: &'static str,
}

/// A column enum and its table of definitions, from one list (so the two cannot disagree).
macro_rules! schema {
    ($(#[$enum_doc:meta])* $vis:vis enum $enum:ident;
     $(#[$table_doc:meta])* table $table:ident;
     $( $id:ident = $name:literal, $range:literal, $def:literal; )*) => {
        $(#[$enum_doc])*
        #[allow(non_camel_case_types, missing_docs)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(usize)]
        $vis enum $enum { $( $id, )* }
        $(#[$table_doc])*
        pub const $table: &[FeatureDef] = &[
            $( FeatureDef { name: $name, definition: $def, range: $range }, )*
        ];
    };
}
pub(crate) use schema;

schema! {
    /// Column index of each feature.
    pub enum F;
    /// The feature schema, in column order.
    table SCHEMA;
    Words = "words", "0…", "Number of words: whitespace tokens with a letter or digit; a token holding Han, Hiragana or Katakana text counts its Unicode words (UAX #29: each ideograph one), and one holding Thai, Lao, Khmer or Myanmar text its dictionary words (ICU4X).";
    AnchorWords = "anchor_words", "0…", "Words inside `<a>` elements.";
    LinkDensity = "link_density", "0–1", "anchor_words / words.";
    TextDensity = "text_density", "0…", "Boilerpipe text density: words in the full lines of the text wrapped at 80 columns (wide characters take two) / number of those lines (the last partial line is left out unless it is the only line).";
    AvgWordLen = "avg_word_len", "0…", "Mean length of words in characters.";
    Sentences = "sentences", "0…", "Number of sentence ends (a word ending in . ! ? … 。！？ ។ ៕ or ။; in text without spaces, each 。！？ ! ? ។ ៕ ။).";
    AvgSentenceLen = "avg_sentence_len", "0…", "words / max(1, sentences).";
    UpperRatio = "upper_ratio", "0–1", "Share of words starting with an upper-case letter.";
    AllCapsRatio = "allcaps_ratio", "0–1", "Share of words of two or more letters that are all upper-case.";
    DigitRatio = "digit_ratio", "0–1", "Share of words made mostly of digits.";
    DateTokens = "date_tokens", "0…", "Number of date and time expressions (2024-05-01, 1/5/24, 10:30 pm, May 1, 2024, 1 May 2024, 3 days ago).";
    SeparatorRatio = "separator_ratio", "0–1", "Share of tokens that are separators such as | · • » / –.";
    EndsWithPunct = "ends_with_punct", "0/1", "The text ends with sentence punctuation.";
    Chars = "chars", "0…", "Length of the text in characters.";
    Position = "position", "0…", "Index of the block in the page.";
    RelPosition = "rel_position", "0–1", "index / (blocks − 1).";
    RelWordOffset = "rel_word_offset", "0–1", "Words before the block / words in the page.";
    TagH1 = "tag_h1", "0/1", "Nearest block element is h1 (one-hot over the tag_* features).";
    TagH2 = "tag_h2", "0/1", "… h2.";
    TagH3 = "tag_h3", "0/1", "… h3.";
    TagH4to6 = "tag_h4_h6", "0/1", "… h4, h5 or h6.";
    TagP = "tag_p", "0/1", "… p.";
    TagLi = "tag_li", "0/1", "… li, dt or dd.";
    TagTd = "tag_td", "0/1", "… td or th.";
    TagAOnly = "tag_a_only", "0/1", "All words of the block are link text (takes precedence over the tag, except headings).";
    TagDiv = "tag_div", "0/1", "… div or section.";
    TagPre = "tag_pre", "0/1", "… pre.";
    TagBlockquote = "tag_blockquote", "0/1", "… blockquote.";
    TagOther = "tag_other", "0/1", "Any other block element (td, figcaption, button, body…).";
    PrevWords = "prev_words", "0…", "words of the previous block (0 at the start).";
    PrevLinkDensity = "prev_link_density", "0–1", "link_density of the previous block.";
    PrevTextDensity = "prev_text_density", "0…", "text_density of the previous block.";
    NextWords = "next_words", "0…", "words of the next block (0 at the end).";
    NextLinkDensity = "next_link_density", "0–1", "link_density of the next block.";
    NextTextDensity = "next_text_density", "0…", "text_density of the next block.";
    Prev2Words = "prev2_words", "0…", "words of the block two before.";
    Next2Words = "next2_words", "0…", "words of the block two after.";
    PrevHeading = "prev_is_heading", "0/1", "The previous block is an h1–h6.";
    WindowWords = "window_words", "0…", "Words in the blocks from 3 before to 3 after, this one included.";
    WindowLinkDensity = "window_link_density", "0–1", "Link density of that window.";
    InArticle = "in_article", "0/1", "An ancestor is `<article>` or role=article.";
    InMain = "in_main", "0/1", "An ancestor is `<main>` or role=main.";
    InNav = "in_nav", "0/1", "An ancestor is `<nav>`, `<menu>` or role=navigation.";
    InAside = "in_aside", "0/1", "An ancestor is `<aside>` or role=complementary.";
    InHeader = "in_header", "0/1", "An ancestor is `<header>` or role=banner.";
    InFooter = "in_footer", "0/1", "An ancestor is `<footer>` or role=contentinfo.";
    InForm = "in_form", "0/1", "An ancestor is `<form>` or role=search.";
    InFigure = "in_figure", "0/1", "An ancestor is `<figure>`.";
    InTable = "in_table", "0/1", "An ancestor is `<table>`.";
    InList = "in_list", "0/1", "An ancestor is `<ul>`, `<ol>` or `<dl>`.";
    InBlockquote = "in_blockquote", "0/1", "An ancestor is `<blockquote>`.";
    InAnchor = "in_anchor", "0/1", "The block lies inside an `<a>`.";
    Hidden = "hidden", "0/1", "The block or an ancestor is hidden on a desktop screen: the hidden attribute, aria-hidden, display:none or visibility:hidden, a hiding class of the style frameworks (hidden, d-none, lg:hidden…; not overflow-hidden or hidden-xs), or a screen-reader-only class.";
    InButton = "in_button", "0/1", "An ancestor is a `<button>` or role=button.";
    InNoscript = "in_noscript", "0/1", "An ancestor is `<noscript>` (parsed as markup, as by a client without scripts).";
    VNav = "cls_nav", "0/1", "An ancestor's class/id/role/itemprop contains nav, menu, breadcrumb, pagination, pager, toolbar.";
    VFooter = "cls_footer", "0/1", "… footer, copyright, colophon.";
    VSidebar = "cls_sidebar", "0/1", "… sidebar, widget.";
    VComment = "cls_comment", "0/1", "… comment, disqus, reply.";
    VShare = "cls_share", "0/1", "… share, social.";
    VRelated = "cls_related", "0/1", "… related, recommend, popular, trending.";
    VOverlay = "cls_overlay", "0/1", "… cookie, consent, gdpr, banner, popup, modal, newsletter, subscribe, role=dialog.";
    VAd = "cls_ad", "0/1", "… advert, sponsor, promo, adsense, or the whole token ad/ads.";
    VHeader = "cls_header", "0/1", "… header, masthead.";
    VMeta = "cls_meta", "0/1", "… byline, author, date, meta, tags, categor(y/ies).";
    VArticle = "cls_article", "0/1", "… article, post, entry, story, blog.";
    VContent = "cls_content", "0/1", "… content, main, body, text, prose, markdown.";
    VProduct = "cls_product", "0/1", "… product, description, detail, spec.";
    NearestGood = "nearest_cls_good", "0/1", "The nearest ancestor whose class/id matched a vocabulary matched a content word.";
    NearestBoiler = "nearest_cls_boiler", "0/1", "The nearest ancestor whose class/id matched a vocabulary matched a boilerplate word.";
    Depth = "depth", "1…", "DOM depth of the block's element.";
    RelDepth = "rel_depth", "0–1", "depth / the deepest block element of the page.";
    TextToTag = "text_to_tag", "0…", "words / (1 + inline elements inside the block).";
    WordShare = "word_share", "0–1", "words / words in the page.";
    LinkDensityRel = "link_density_rel", "−1–1", "link_density − the page's link density (anchor words / words over all blocks).";
    InTopContainer = "in_top_container", "0/1", "The block lies inside the page's best text container (the element that collects the most non-link words of the blocks in it and in its children, the blocks counted in their containers as for `parent_word_share`, as in Readability).";
    TopContainerShare = "top_container_share", "0–1", "Share of the page's words inside that container (same value for all blocks of a page).";
    DistLongest = "dist_longest", "0–1", "|index − index of the longest block| / blocks.";
    GroupBlocks = "group_blocks", "1…", "Blocks of the page whose elements have the same path of tags, class/id tokens (digits ignored) and places of table cells and of divisions without class or id among their siblings as this block's: repeated items of a list, posts of a thread, links of a menu.";
    GroupWordShare = "group_word_share", "0–1", "Share of the page's words in those blocks.";
    GroupLinkDensity = "group_link_density", "0–1", "Link density of those blocks together.";
    GroupSpan = "group_span", "0–1", "(last − first block index of those blocks) / blocks: how far the repeated structure spreads.";
    GroupHeadings = "group_headings", "0…", "Heading blocks (h1–h6) among the blocks of the same path group, counted over the group's parent path: lists whose items carry titles.";
    LargestGroupShare = "largest_group_share", "0–1", "Share of the page's words in its largest path group (same for all blocks of a page).";
    ParentWordShare = "parent_word_share", "0–1", "Share of the page's words inside the block's container: the parent of its element, or the element itself when it is a table cell or a division holding two or more blocks of its own (lines cut by `<br>`).";
    ParentLinkDensity = "parent_link_density", "0–1", "Link density inside that container.";
    GrandparentWordShare = "grandparent_word_share", "0–1", "Share of the page's words inside the container's parent.";
    GrandparentLinkDensity = "grandparent_link_density", "0–1", "Link density inside it.";
    Ancestor3WordShare = "ancestor3_word_share", "0–1", "Share of the page's words inside the container's grandparent.";
    Ancestor3LinkDensity = "ancestor3_link_density", "0–1", "Link density inside it.";
    PageLinkDensity = "page_link_density", "0–1", "Link density of the whole page.";
    HeadingOffset = "heading_offset", "−1–1", "(index − index of the page's first h1 block, or first h2 when there is no h1) / blocks; 0 without headings.";
    HasH1 = "has_h1", "0/1", "The page has an h1 block.";
    BoilerPhrase = "boiler_phrase", "0/1", "A block of at most 12 words contains a common boilerplate phrase (privacy, cookies, sign in, subscribe, share, read more, all rights reserved, …; English).";
    TitleOverlap = "title_overlap", "0–1", "Share of the block's first 40 words (lower-cased, punctuation trimmed) that occur in the title.";
    DupCount = "dup_count", "0…", "Number of other blocks of the page with the same text.";
    PageBlocks = "page_blocks", "0…", "Blocks in the page.";
    PageWords = "page_words", "0…", "Words in the page.";
    ClassLexMean = "class_lex_mean", "real", "Mean log-odds of content of the class/id tokens of the block's element and its 11 nearest ancestors, as learned on the training sites (`src/classes.rs`); 0 when none is known.";
    ClassLexMin = "class_lex_min", "real", "Lowest of those log-odds.";
    ClassLexMax = "class_lex_max", "real", "Highest of those log-odds.";
    ClassLexNearest = "class_lex_nearest", "real", "Mean log-odds of the known tokens of the nearest element that has any.";
    ClassLexLevel = "class_lex_level", "0…", "Levels up to that element (0: the block's own element).";
    ClassLexKnown = "class_lex_known", "0…", "Number of known tokens.";
    FirstPerson = "first_person", "0–1", "Share of the block's words that are first-person singular pronouns (I, me, my; ich, mein; je, mon; yo, mi; ik, mijn; eu, meu; io, mio): who speaks, as in reviews, comments and posts.";
    WindowFirstPerson = "window_first_person", "0–1", "The same share over the blocks from 3 before to 3 after.";
}

/// Number of features per block.
pub const N_FEATURES: usize = SCHEMA.len();

/// Hash of the schema (names and order of the features and of the second-stage columns, plus a
/// version that changes when a definition changes).
/// A model file records it; a model whose hash differs is refused.
pub fn schema_hash() -> u64 {
    const DEFINITIONS_VERSION: &str = "textsift-features-13";
    let mut h = fnv1a(FNV_START, DEFINITIONS_VERSION.as_bytes());
    for f in SCHEMA.iter().chain(crate::context::CONTEXT_SCHEMA) {
        h = fnv1a(fnv1a(h, b"\n"), f.name.as_bytes());
    }
    h
}

/// [`schema_hash`] as 16 hexadecimal digits, as block records name their schema.
pub fn schema_id() -> String {
    format!("{:016x}", schema_hash())
}

/// Start value of [`fnv1a`].
pub(crate) const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a over `bytes`, continuing from `h`: a stable hash (unlike std's), for the schema hash,
/// block-text keys and fold assignment.
pub(crate) fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Features of all blocks of a page, row-major: `N_FEATURES` values per block.
#[derive(Clone, PartialEq, Default)]
pub struct FeatureMatrix {
    /// Row-major values.
    pub data: Vec<f32>,
}

/// Its shape, not its values: an [`crate::Extraction`] printed with `{:?}` would otherwise
/// show 106 numbers per block.
impl std::fmt::Debug for FeatureMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeatureMatrix")
            .field("rows", &self.rows())
            .field("features", &N_FEATURES)
            .finish_non_exhaustive()
    }
}

impl FeatureMatrix {
    /// Number of rows (blocks).
    pub fn rows(&self) -> usize {
        self.data.len() / N_FEATURES
    }

    /// The features of one block.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * N_FEATURES..(i + 1) * N_FEATURES]
    }

    /// One feature of one block.
    pub fn get(&self, i: usize, f: F) -> f32 {
        self.data[i * N_FEATURES + f as usize]
    }

    fn set(&mut self, i: usize, f: F, v: f32) {
        self.data[i * N_FEATURES + f as usize] = v;
    }
}

/// Text statistics of one block: the Boilerpipe part of the features.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct TextStats {
    /// Words.
    words: u32,
    /// Words inside `<a>`.
    anchor_words: u32,
    /// Boilerpipe text density at 80 columns.
    text_density: f32,
    /// Characters in words.
    word_chars: u32,
    /// Sentence ends.
    sentences: u32,
    /// Words starting upper-case.
    upper: u32,
    /// All-caps words of two or more letters.
    all_caps: u32,
    /// Words made mostly of digits.
    digit_words: u32,
    /// Separator tokens.
    separators: u32,
    /// All whitespace tokens.
    tokens: u32,
    /// Date and time expressions.
    dates: u32,
    /// Tokens among the first [`TITLE_OVERLAP_WORDS`] that normalize to a word.
    title_seen: u32,
    /// Those of them that are words of the page's title.
    title_hits: u32,
    /// First-person singular pronouns.
    first_person: u32,
}

impl TextStats {
    /// Count one token as a word when it has a letter or digit. `buf` is scratch space for
    /// the token's lower-cased form, reused from word to word.
    fn add_word(&mut self, t: &TokenCounts, token: &str, anchored: bool, buf: &mut String) {
        if t.alnum == 0 {
            return;
        }
        self.words += 1;
        self.anchor_words += u32::from(anchored);
        self.word_chars += t.chars;
        self.upper += u32::from(t.first_upper == Some(true));
        if t.letters >= 2 && t.upper == t.letters {
            self.all_caps += 1;
        }
        if t.digits * 2 > t.alnum {
            self.digit_words += 1;
        }
        if token.ends_with(|c| matches!(c, '.' | '…') || SPACELESS_STOPS.contains(&c)) {
            self.sentences += 1;
        }
        self.first_person += u32::from(is_first_person(token, buf));
    }

    /// anchor_words / words (0 for no words).
    fn link_density(&self) -> f32 {
        ratio(self.anchor_words, self.words)
    }
}

/// Whether a token is a first-person singular pronoun ("I’m" counts by its part before the
/// apostrophe). `buf` is scratch space for the lower-cased part, reused from word to word.
fn is_first_person(token: &str, buf: &mut String) -> bool {
    if token.len() > 10 {
        return false;
    }
    // Every form starts with i, m, j, y or e, and that letter is the token's first ASCII
    // letter or digit: most words are ruled out by it, without the search for an apostrophe
    // below (this runs for every word).
    let first = token.bytes().find(u8::is_ascii_alphanumeric);
    if !first.is_some_and(|b| matches!(b | 0x20, b'i' | b'm' | b'j' | b'y' | b'e')) {
        return false;
    }
    normalize_word(token.split(['\'', '’']).next().unwrap_or(""), buf);
    matches!(
        buf.as_str(),
        "i" | "me"
            | "my"
            | "mine"
            | "myself"
            | "ich"
            | "mich"
            | "mir"
            | "mein"
            | "meine"
            | "je"
            | "j"
            | "moi"
            | "mon"
            | "mes"
            | "yo"
            | "mi"
            | "mis"
            | "ik"
            | "mijn"
            | "eu"
            | "meu"
            | "minha"
            | "io"
            | "mio"
            | "mia"
    )
}

fn ratio(a: u32, b: u32) -> f32 {
    if b == 0 {
        0.0
    } else {
        a as f32 / b as f32
    }
}

fn date_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let month = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?";
        let b = r"\b";
        Regex::new(&format!(
            r"(?i-u){b}(?:[0-9]{{4}}-[0-9]{{1,2}}-[0-9]{{1,2}}|[0-9]{{1,2}}[./-][0-9]{{1,2}}[./-][0-9]{{2,4}}|[0-9]{{1,2}}:[0-9]{{2}}(?::[0-9]{{2}})?(?:\s?[ap]\.?m\.?)?|{month}\s+[0-9]{{1,2}}(?:st|nd|rd|th)?,?\s+[0-9]{{4}}|[0-9]{{1,2}}(?:st|nd|rd|th)?\s+{month}\s+[0-9]{{4}}|[0-9]+\s+(?:second|minute|hour|day|week|month|year)s?\s+ago){b}"
        ))
        .expect("valid date regex")
    })
}

/// Letters and digits of one whitespace token.
#[derive(Default)]
struct TokenCounts {
    /// Length in characters.
    chars: u32,
    letters: u32,
    upper: u32,
    digits: u32,
    alnum: u32,
    /// Whether the first letter or digit is upper-case.
    first_upper: Option<bool>,
    /// Whether the token holds text of a script without spaces, and which ([`spaceless`]).
    spaceless: Spaceless,
}

/// Scripts written without spaces between words, by how their words are found. Ordered: a
/// token with any character that needs a dictionary is cut with the dictionary.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Spaceless {
    /// Spaces separate the words.
    #[default]
    No,
    /// Han, Hiragana, Katakana: UAX #29's rules make each ideograph a word.
    Ideographic,
    /// Thai, Lao, Khmer, Myanmar: only a dictionary tells where a word ends.
    Dictionary,
}

/// What one ASCII byte adds to a token's counts, packed so that a byte costs two additions:
/// letters and upper-case letters in the low and high half of the first word, digits and
/// letters-or-digits in the second. Other bytes add nothing. (A token is shorter than 4 GiB.)
static ASCII_COUNTS: [[u64; 2]; 256] = {
    let mut t = [[0u64; 2]; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        let letter = b.is_ascii_alphabetic() as u64;
        let upper = b.is_ascii_uppercase() as u64;
        let digit = b.is_ascii_digit() as u64;
        let alnum = b.is_ascii_alphanumeric() as u64;
        t[c] = [letter | upper << 32, digit | alnum << 32];
        c += 1;
    }
    t
};

impl TokenCounts {
    /// The counts of a token with non-ASCII characters, by Unicode classes.
    fn unicode(token: &str) -> Self {
        let mut t = TokenCounts::default();
        for c in token.chars() {
            t.chars += 1;
            t.spaceless = t.spaceless.max(spaceless(c));
            if c.is_alphabetic() {
                t.letters += 1;
                t.upper += u32::from(c.is_uppercase());
            }
            if c.is_alphanumeric() {
                t.first_upper.get_or_insert(c.is_uppercase());
                t.alnum += 1;
                t.digits += u32::from(c.is_numeric());
            }
        }
        t
    }
}

fn is_separator(token: &str) -> bool {
    token.chars().count() <= 2
        && token.chars().all(|c| {
            matches!(
                c,
                '|' | '·'
                    | '•'
                    | '»'
                    | '«'
                    | '/'
                    | '–'
                    | '—'
                    | '-'
                    | '>'
                    | '›'
                    | '‹'
                    | '<'
                    | ':'
                    | ','
            )
        })
}

/// Boilerpipe's line wrapping at 80 columns, token by token.
struct Wrap {
    /// Full lines so far.
    lines: u32,
    /// Columns used in the current line (−1 at the start: its first token has no space before).
    line_len: i64,
    /// Words in the current line.
    words_in_line: u32,
}

impl Default for Wrap {
    fn default() -> Self {
        Wrap {
            lines: 0,
            line_len: -1,
            words_in_line: 0,
        }
    }
}

impl Wrap {
    const MAX_LINE: i64 = 80;

    /// A token `width` columns wide, after a space unless `joined` to the token before it.
    fn push(&mut self, width: i64, is_word: bool, joined: bool) {
        self.line_len += width + i64::from(!joined);
        if self.line_len > Self::MAX_LINE {
            self.lines += 1;
            self.line_len = width;
            self.words_in_line = u32::from(is_word);
        } else {
            self.words_in_line += u32::from(is_word);
        }
    }

    /// Words in the full lines / full lines (the last, partial line counts only when it is the
    /// only one).
    fn density(&self, words: u32) -> f32 {
        if self.lines == 0 {
            words as f32
        } else {
            (words - self.words_in_line) as f32 / self.lines as f32
        }
    }
}

/// Whether the token starting at byte `offset` lies inside an `<a>` (spans sorted, visited in
/// order).
fn in_anchor(
    spans: &mut std::iter::Peekable<std::slice::Iter<'_, (u32, u32)>>,
    offset: usize,
) -> bool {
    let offset = offset as u32;
    while spans.peek().is_some_and(|&&(_, end)| end <= offset) {
        spans.next();
    }
    spans.peek().is_some_and(|&&(start, _)| start <= offset)
}

/// Whether a character is of a script written without spaces between words, where a
/// whitespace token can be a whole paragraph, and how that script's words are found.
pub(crate) fn spaceless(c: char) -> Spaceless {
    match c {
        '\u{3040}'..='\u{30FF}'
        | '\u{31F0}'..='\u{31FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{FF66}'..='\u{FF9F}'
        | '\u{20000}'..='\u{3FFFF}' => Spaceless::Ideographic,
        // Thai, Lao; Myanmar; Khmer and Khmer symbols; Myanmar extensions.
        '\u{0E00}'..='\u{0EFF}'
        | '\u{1000}'..='\u{109F}'
        | '\u{1780}'..='\u{17FF}'
        | '\u{19E0}'..='\u{19FF}'
        | '\u{A9E0}'..='\u{A9FF}'
        | '\u{AA60}'..='\u{AA7F}' => Spaceless::Dictionary,
        _ => Spaceless::No,
    }
}

/// Marks that end a sentence wherever they stand, even between two words of a script without
/// spaces: CJK full stop, exclamation and question marks, Khmer khan and bariyoosan, Myanmar
/// section mark. (A `.` or `…` there is more often a number's or an abbreviation's.)
const SPACELESS_STOPS: [char; 8] = ['。', '！', '？', '!', '?', '។', '៕', '။'];

/// The dictionary word segmenter, built once: its data is compiled into the binary.
static DICTIONARY_WORDS: LazyLock<icu_segmenter::WordSegmenterBorrowed<'static>> =
    LazyLock::new(|| icu_segmenter::WordSegmenter::new_dictionary(Default::default()));

/// Count a whitespace token that holds text of a script without spaces by its words, each
/// as wide as it is displayed, so that a paragraph of Chinese, Japanese or Thai has as many
/// words and lines as its length says rather than one long word. Chinese and Japanese words
/// are UAX #29's (each ideograph a word, a run of Katakana or Latin letters one); Thai, Lao,
/// Khmer and Myanmar words come from ICU4X's dictionaries.
fn spaceless_token(
    s: &mut TextStats,
    wrap: &mut Wrap,
    spans: &mut std::iter::Peekable<std::slice::Iter<'_, (u32, u32)>>,
    token: &str,
    start: usize,
    script: Spaceless,
    buf: &mut String,
) {
    use unicode_segmentation::UnicodeSegmentation;
    use unicode_width::UnicodeWidthStr;
    let mut piece = |k: usize, at: usize, piece: &str| {
        let t = TokenCounts::unicode(piece);
        let is_word = t.alnum > 0;
        let anchored = is_word && in_anchor(spans, start + at);
        s.add_word(&t, piece, anchored, buf);
        if !is_word {
            let stop = piece
                .strip_prefix(SPACELESS_STOPS)
                .is_some_and(str::is_empty);
            s.sentences += u32::from(stop);
        }
        wrap.push(piece.width() as i64, is_word, k > 0);
    };
    if script == Spaceless::Dictionary {
        let mut from = 0;
        for (k, to) in DICTIONARY_WORDS.segment_str(token).skip(1).enumerate() {
            piece(k, from, &token[from..to]);
            from = to;
        }
    } else {
        for (k, (at, p)) in token.split_word_bound_indices().enumerate() {
            piece(k, at, p);
        }
    }
}

/// Compute the text statistics of a block in one pass over its bytes, counting on the way its
/// first [`TITLE_OVERLAP_WORDS`] tokens that are words of `title`. `buf` is a buffer.
fn text_stats(block: &Block, title: &TitleWords, buf: &mut String) -> TextStats {
    let mut s = TextStats::default();
    let mut spans = block.anchor_spans.iter().peekable();
    let mut wrap = Wrap::default();
    let mut has_digit = false;
    let text = block.text.as_bytes();
    // Tokens are the pieces between single spaces (the text is collapsed), cut by hand: ASCII
    // tokens are counted on the way, the others again by their characters.
    let mut start = 0;
    // Counts of the token's ASCII bytes, two to a word (see `ASCII_COUNTS`).
    let mut counts = [0u64; 2];
    let mut ascii = true;
    for i in 0..=text.len() {
        match text.get(i) {
            Some(&b' ') | None => {}
            Some(&b) => {
                let add = ASCII_COUNTS[usize::from(b)];
                counts[0] += add[0];
                counts[1] += add[1];
                ascii &= b.is_ascii();
                continue;
            }
        }
        let token = &block.text[start..i];
        let digits = counts[1] as u32;
        has_digit |= digits > 0;
        let t = if ascii {
            let alnum = (counts[1] >> 32) as u32;
            TokenCounts {
                chars: token.len() as u32,
                letters: counts[0] as u32,
                upper: (counts[0] >> 32) as u32,
                digits,
                alnum,
                first_upper: if alnum > 0 {
                    token
                        .bytes()
                        .find(u8::is_ascii_alphanumeric)
                        .map(|b| b.is_ascii_uppercase())
                } else {
                    None
                },
                spaceless: Spaceless::No,
            }
        } else {
            TokenCounts::unicode(token)
        };
        if (s.tokens as usize) < TITLE_OVERLAP_WORDS && !title.is_empty() {
            if let Some(hit) = title.contains(token, buf) {
                s.title_seen += 1;
                s.title_hits += u32::from(hit);
            }
        }
        s.tokens += 1;
        if t.spaceless != Spaceless::No {
            spaceless_token(
                &mut s,
                &mut wrap,
                &mut spans,
                token,
                start,
                t.spaceless,
                buf,
            );
        } else {
            let anchored = t.alnum > 0 && in_anchor(&mut spans, start);
            s.add_word(&t, token, anchored, buf);
            wrap.push(i64::from(t.chars), t.alnum > 0, false);
            if t.alnum == 0 && is_separator(token) {
                s.separators += 1;
            }
        }
        start = i + 1;
        counts = [0; 2];
        ascii = true;
    }
    s.text_density = wrap.density(s.words);
    if has_digit {
        s.dates = date_regex().find_iter(&block.text).count() as u32;
    }
    s
}

fn boiler_phrases() -> &'static aho_corasick::AhoCorasick {
    static AC: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    AC.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build([
                "privacy",
                "cookie",
                "terms of",
                "all rights reserved",
                "copyright",
                "\u{a9}",
                "sign in",
                "log in",
                "login",
                "sign up",
                "register",
                "subscribe",
                "newsletter",
                "follow us",
                "share",
                "skip to",
                "contact us",
                "about us",
                "read more",
                "load more",
                "see all",
                "view all",
                "show more",
                "back to top",
                "advertisement",
                "sponsored",
                "you may also like",
                "recommended",
                "related",
                "trending",
                "add to cart",
                "wishlist",
                "my account",
                "download the app",
                "accept",
            ])
            .expect("valid phrases")
    })
}

fn tag_feature(tag: &str) -> F {
    match tag {
        "h1" => F::TagH1,
        "h2" => F::TagH2,
        "h3" => F::TagH3,
        "h4" | "h5" | "h6" => F::TagH4to6,
        "p" => F::TagP,
        "li" | "dt" | "dd" => F::TagLi,
        "td" | "th" => F::TagTd,
        "div" | "section" => F::TagDiv,
        "pre" => F::TagPre,
        "blockquote" => F::TagBlockquote,
        _ => F::TagOther,
    }
}

fn is_heading(f: F) -> bool {
    matches!(f, F::TagH1 | F::TagH2 | F::TagH3 | F::TagH4to6)
}

const FLAG_FEATURES: &[(u32, F)] = &[
    (ctx::ARTICLE, F::InArticle),
    (ctx::MAIN, F::InMain),
    (ctx::NAV, F::InNav),
    (ctx::ASIDE, F::InAside),
    (ctx::HEADER, F::InHeader),
    (ctx::FOOTER, F::InFooter),
    (ctx::FORM, F::InForm),
    (ctx::FIGURE, F::InFigure),
    (ctx::TABLE, F::InTable),
    (ctx::LIST, F::InList),
    (ctx::BLOCKQUOTE, F::InBlockquote),
    (ctx::ANCHOR, F::InAnchor),
    (ctx::HIDDEN, F::Hidden),
    (ctx::BUTTON, F::InButton),
    (ctx::NOSCRIPT, F::InNoscript),
    (ctx::V_NAV, F::VNav),
    (ctx::V_FOOTER, F::VFooter),
    (ctx::V_SIDEBAR, F::VSidebar),
    (ctx::V_COMMENT, F::VComment),
    (ctx::V_SHARE, F::VShare),
    (ctx::V_RELATED, F::VRelated),
    (ctx::V_OVERLAY, F::VOverlay),
    (ctx::V_AD, F::VAd),
    (ctx::V_HEADER, F::VHeader),
    (ctx::V_META, F::VMeta),
    (ctx::V_ARTICLE, F::VArticle),
    (ctx::V_CONTENT, F::VContent),
    (ctx::V_PRODUCT, F::VProduct),
];

/// Whether an element of this tag holds its text as a container holds paragraphs when its
/// text runs in several blocks: a table cell or a division whose lines are cut by `<br>`, as
/// in pages laid out with tables, where one cell is the menu and the next the article. (The
/// lines of a paragraph, a list item or a heading stay inside it.)
fn holds_lines(tag: &str) -> bool {
    matches!(
        tag,
        "td" | "th"
            | "div"
            | "section"
            | "article"
            | "main"
            | "aside"
            | "header"
            | "footer"
            | "nav"
            | "body"
            | "center"
            | "form"
            | "fieldset"
            | "figure"
            | "details"
    )
}

/// The container of each block, whose share of the page the `parent_*` features read: the
/// parent of the block's element, or the element itself when [`holds_lines`] and at least two
/// blocks have it as their own element (its text comes in lines, each a paragraph of it).
fn containers(page: &Page) -> Vec<Option<u32>> {
    let mut own = vec![0u32; page.elements.len()];
    for b in &page.blocks {
        own[b.element as usize] += 1;
    }
    page.blocks
        .iter()
        .map(|b| {
            let e = page.element_of(b);
            if own[b.element as usize] >= 2 && holds_lines(&e.tag) {
                Some(b.element)
            } else {
                e.parent
            }
        })
        .collect()
}

/// The element that collects the most non-link words of the blocks directly in it (in their
/// container, [`containers`]) and one level further up (Readability's top candidate), if any
/// block has words.
fn top_container(page: &Page, stats: &[TextStats], containers: &[Option<u32>]) -> Option<u32> {
    let mut score = vec![0f32; page.elements.len()];
    for (s, &c) in stats.iter().zip(containers) {
        let plain = (s.words - s.anchor_words.min(s.words)) as f32;
        if let Some(p) = c {
            score[p as usize] += plain;
            if let Some(gp) = page.elements[p as usize].parent {
                score[gp as usize] += plain / 2.0;
            }
        }
    }
    // Ties go to the earliest element.
    let (best, value) =
        score.iter().enumerate().fold(
            (0, 0f32),
            |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc },
        );
    (value > 0.0).then_some(best as u32)
}

/// Compute the features of every block of a page.
pub fn compute(page: &Page) -> FeatureMatrix {
    let n = page.blocks.len();
    let mut m = FeatureMatrix {
        data: vec![0.0; n * N_FEATURES],
    };
    if n == 0 {
        return m;
    }
    let title_words = TitleWords::new(&page.title);
    let mut word_buf = String::new();
    let stats: Vec<TextStats> = page
        .blocks
        .iter()
        .map(|b| text_stats(b, &title_words, &mut word_buf))
        .collect();
    let total_words: u32 = stats.iter().map(|s| s.words).sum();
    let total_anchor: u32 = stats.iter().map(|s| s.anchor_words).sum();
    let page_ld = ratio(total_anchor, total_words);
    let max_depth = page
        .blocks
        .iter()
        .map(|b| page.element_of(b).depth)
        .max()
        .unwrap_or(1)
        .max(1);
    let longest = stats
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.words.cmp(&b.1.words).then(b.0.cmp(&a.0)))
        .map_or(0, |(i, _)| i);
    let containers = containers(page);
    let top = top_container(page, &stats, &containers);
    let top_words: u32 = match top {
        Some(t) => page
            .blocks
            .iter()
            .zip(&stats)
            .filter(|(b, _)| page.contains(t, b.element))
            .map(|(_, s)| s.words)
            .sum(),
        None => 0,
    };
    let mut text_counts: FxHashMap<&str, u32> = FxHashMap::default();
    for b in &page.blocks {
        *text_counts.entry(b.text.as_str()).or_default() += 1;
    }
    // Prefix sums of words, anchor words and first-person words for the window features.
    let mut prefix = vec![(0u32, 0u32, 0u32); n + 1];
    for (i, s) in stats.iter().enumerate() {
        let p = prefix[i];
        prefix[i + 1] = (p.0 + s.words, p.1 + s.anchor_words, p.2 + s.first_person);
    }
    // Path signatures of the blocks' elements and of their parents (0 for none).
    let columns = column_places(page);
    let mut memo = vec![None; page.elements.len()];
    let mut chain = Vec::new();
    let mut sig = |e: u32| path_signature(page, &columns, e, &mut memo, &mut chain);
    let block_sig: Vec<(u64, u64)> = page
        .blocks
        .iter()
        .map(|b| {
            (
                sig(b.element),
                page.element_of(b).parent.map_or(0, &mut sig),
            )
        })
        .collect();
    // Per path group: blocks, words, anchor words, first and last block index.
    let mut groups: FxHashMap<u64, (u32, u32, u32, u32, u32)> = FxHashMap::default();
    // Per parent path: heading blocks below it (list items whose titles are headings).
    let mut parent_headings: FxHashMap<u64, u32> = FxHashMap::default();
    for (i, (b, s)) in page.blocks.iter().zip(&stats).enumerate() {
        let g = groups
            .entry(block_sig[i].0)
            .or_insert((0, 0, 0, i as u32, i as u32));
        g.0 += 1;
        g.1 += s.words;
        g.2 += s.anchor_words;
        g.4 = i as u32;
        if crate::blocks::is_heading(page.tag_of(b)) && page.element_of(b).parent.is_some() {
            *parent_headings.entry(block_sig[i].1).or_default() += 1;
        }
    }
    let largest_group = groups.values().map(|g| g.1).max().unwrap_or(0);
    // Words and anchor words inside an element, from its block range.
    let inside = |e: u32| {
        let e = &page.elements[e as usize];
        let (a, b) = (e.first_block as usize, (e.end_block as usize).min(n));
        if a >= b {
            (0, 0)
        } else {
            (prefix[b].0 - prefix[a].0, prefix[b].1 - prefix[a].1)
        }
    };
    let tags: Vec<F> = page
        .blocks
        .iter()
        .zip(&stats)
        .map(|(b, s)| {
            let t = tag_feature(page.tag_of(b));
            if s.words > 0 && s.anchor_words == s.words && !is_heading(t) {
                F::TagAOnly
            } else {
                t
            }
        })
        .collect();

    let first_heading = tags
        .iter()
        .position(|&t| t == F::TagH1)
        .or_else(|| tags.iter().position(|&t| t == F::TagH2));
    let has_h1 = tags.contains(&F::TagH1);
    let mut words_before = 0u32;
    for (i, (block, s)) in page.blocks.iter().zip(&stats).enumerate() {
        let element = page.element_of(block);
        let ld = s.link_density();
        let set = |m: &mut FeatureMatrix, f: F, v: f32| m.set(i, f, v);
        set(&mut m, F::Words, s.words as f32);
        set(&mut m, F::AnchorWords, s.anchor_words as f32);
        set(&mut m, F::LinkDensity, ld);
        set(&mut m, F::TextDensity, s.text_density);
        set(&mut m, F::AvgWordLen, ratio(s.word_chars, s.words));
        set(&mut m, F::Sentences, s.sentences as f32);
        set(
            &mut m,
            F::AvgSentenceLen,
            s.words as f32 / s.sentences.max(1) as f32,
        );
        set(&mut m, F::UpperRatio, ratio(s.upper, s.words));
        set(&mut m, F::AllCapsRatio, ratio(s.all_caps, s.words));
        set(&mut m, F::DigitRatio, ratio(s.digit_words, s.words));
        set(&mut m, F::DateTokens, s.dates as f32);
        set(&mut m, F::SeparatorRatio, ratio(s.separators, s.tokens));
        let ends = block
            .text
            .ends_with(['.', '!', '?', '…', '。', '！', '？', ':', '"', '”']);
        set(&mut m, F::EndsWithPunct, f32::from(u8::from(ends)));
        let chars = if block.text.is_ascii() {
            block.text.len()
        } else {
            block.text.chars().count()
        };
        set(&mut m, F::Chars, chars as f32);
        set(&mut m, F::Position, i as f32);
        set(
            &mut m,
            F::RelPosition,
            if n > 1 {
                i as f32 / (n - 1) as f32
            } else {
                0.0
            },
        );
        set(&mut m, F::RelWordOffset, ratio(words_before, total_words));
        words_before += s.words;
        set(&mut m, tags[i], 1.0);

        if i > 0 {
            let p = &stats[i - 1];
            set(&mut m, F::PrevWords, p.words as f32);
            set(&mut m, F::PrevLinkDensity, p.link_density());
            set(&mut m, F::PrevTextDensity, p.text_density);
            set(
                &mut m,
                F::PrevHeading,
                f32::from(u8::from(is_heading(tags[i - 1]))),
            );
        }
        if i > 1 {
            set(&mut m, F::Prev2Words, stats[i - 2].words as f32);
        }
        if let Some(nx) = stats.get(i + 1) {
            set(&mut m, F::NextWords, nx.words as f32);
            set(&mut m, F::NextLinkDensity, nx.link_density());
            set(&mut m, F::NextTextDensity, nx.text_density);
        }
        if let Some(nx) = stats.get(i + 2) {
            set(&mut m, F::Next2Words, nx.words as f32);
        }
        let (lo, hi) = (i.saturating_sub(3), (i + 4).min(n));
        let (ww, wa) = (prefix[hi].0 - prefix[lo].0, prefix[hi].1 - prefix[lo].1);
        let wfp = prefix[hi].2 - prefix[lo].2;
        set(&mut m, F::WindowWords, ww as f32);
        set(&mut m, F::WindowLinkDensity, ratio(wa, ww));
        set(&mut m, F::FirstPerson, ratio(s.first_person, s.words));
        set(&mut m, F::WindowFirstPerson, ratio(wfp, ww));

        for &(bit, f) in FLAG_FEATURES {
            if element.flags & bit != 0 {
                set(&mut m, f, 1.0);
            }
        }
        let nearest = element.nearest_vocab;
        set(
            &mut m,
            F::NearestGood,
            f32::from(u8::from(nearest & ctx::V_GOOD != 0)),
        );
        set(
            &mut m,
            F::NearestBoiler,
            f32::from(u8::from(nearest & ctx::V_BOILER != 0)),
        );
        set(&mut m, F::Depth, element.depth as f32);
        set(&mut m, F::RelDepth, element.depth as f32 / max_depth as f32);
        set(
            &mut m,
            F::TextToTag,
            s.words as f32 / (1 + block.inline_tags) as f32,
        );
        set(&mut m, F::WordShare, ratio(s.words, total_words));
        set(&mut m, F::LinkDensityRel, ld - page_ld);
        if let Some(t) = top {
            set(
                &mut m,
                F::InTopContainer,
                f32::from(u8::from(page.contains(t, block.element))),
            );
        }
        set(&mut m, F::TopContainerShare, ratio(top_words, total_words));
        set(
            &mut m,
            F::DistLongest,
            i.abs_diff(longest) as f32 / n as f32,
        );
        set(&mut m, F::TitleOverlap, ratio(s.title_hits, s.title_seen));
        set(
            &mut m,
            F::DupCount,
            (text_counts[block.text.as_str()] - 1) as f32,
        );
        let (element_sig, parent_sig) = block_sig[i];
        let g = groups[&element_sig];
        set(&mut m, F::GroupBlocks, g.0 as f32);
        set(&mut m, F::GroupWordShare, ratio(g.1, total_words));
        set(&mut m, F::GroupLinkDensity, ratio(g.2, g.1));
        set(&mut m, F::GroupSpan, (g.4 - g.3) as f32 / n as f32);
        set(
            &mut m,
            F::GroupHeadings,
            parent_headings.get(&parent_sig).copied().unwrap_or(0) as f32,
        );
        set(
            &mut m,
            F::LargestGroupShare,
            ratio(largest_group, total_words),
        );
        let mut ancestor = containers[i];
        for (share, ld) in [
            (F::ParentWordShare, F::ParentLinkDensity),
            (F::GrandparentWordShare, F::GrandparentLinkDensity),
            (F::Ancestor3WordShare, F::Ancestor3LinkDensity),
        ] {
            let Some(a) = ancestor else { break };
            let (w, aw) = inside(a);
            set(&mut m, share, ratio(w, total_words));
            set(&mut m, ld, ratio(aw, w));
            ancestor = page.elements[a as usize].parent;
        }
        set(&mut m, F::PageLinkDensity, page_ld);
        if let Some(h) = first_heading {
            set(&mut m, F::HeadingOffset, (i as f32 - h as f32) / n as f32);
        }
        set(&mut m, F::HasH1, f32::from(u8::from(has_h1)));
        if s.words <= 12 && boiler_phrases().is_match(&block.text) {
            set(&mut m, F::BoilerPhrase, 1.0);
        }
        set(&mut m, F::PageBlocks, n as f32);
        set(&mut m, F::PageWords, total_words as f32);
    }
    m
}

/// For every element, its place among its parent's children that lay a page out in columns
/// (1 for the first), else 0: table cells, and divisions without a class or id. A page laid
/// out with a table, or with bare divisions, has its menu, its article and its
/// advertisements side by side, with no class to tell them apart.
fn column_places(page: &Page) -> Vec<u32> {
    // Columns seen so far under each parent (elements come in document order).
    let mut before = vec![0u32; page.elements.len()];
    page.elements
        .iter()
        .map(|e| {
            let column = match &*e.tag {
                "td" | "th" => true,
                "div" => e.tokens.is_empty(),
                _ => false,
            };
            match (column, e.parent) {
                (true, Some(parent)) => {
                    let seen = &mut before[parent as usize];
                    *seen += 1;
                    *seen
                }
                _ => 0,
            }
        })
        .collect()
}

/// The path signature of element `e`: a hash of its tag, its place if it is a column
/// ([`column_places`]), its class/id tokens (digits ignored) and its parent's signature.
/// Memoised in `memo`, and computed only for the elements asked for and their ancestors, as
/// most elements hold no block; `chain` is a buffer.
fn path_signature(
    page: &Page,
    columns: &[u32],
    e: u32,
    memo: &mut [Option<u64>],
    chain: &mut Vec<u32>,
) -> u64 {
    chain.clear();
    let mut next = Some(e);
    while let Some(i) = next {
        if memo[i as usize].is_some() {
            break;
        }
        chain.push(i);
        next = page.elements[i as usize].parent;
    }
    // From the outermost new ancestor down, so that each parent is known before its children.
    for &i in chain.iter().rev() {
        let el = &page.elements[i as usize];
        let mut h = rustc_hash::FxHasher::default();
        el.parent
            .map(|p| memo[p as usize].expect("parent signature computed first"))
            .hash(&mut h);
        el.tag.hash(&mut h);
        columns[i as usize].hash(&mut h);
        for b in el.tokens.bytes().filter(|b| !b.is_ascii_digit()) {
            h.write_u8(b);
        }
        memo[i as usize] = Some(h.finish());
    }
    memo[e as usize].expect("signature computed")
}

/// Only the first words of a block are compared with the title: titles are short, and long
/// blocks are not headings.
const TITLE_OVERLAP_WORDS: usize = 40;

/// The words of the title, normalized as by [`normalize_word`], without repeats. Titles are
/// short, so a block's words are looked up by comparing lengths and bytes, with no copy or hash
/// for ASCII words; a title of more than [`TITLE_SCANNED_WORDS`] distinct words (a page can
/// stuff thousands into it) is looked up in a set instead.
struct TitleWords {
    /// The words of a title of at most [`TITLE_SCANNED_WORDS`] distinct words.
    words: Vec<String>,
    /// The words of a longer title.
    set: Option<FxHashSet<String>>,
    /// Bit `l` is set when a word of `l` bytes is in the title (bit 63: 63 bytes or more).
    lengths: u64,
}

/// Most distinct title words that a block's word is compared with one by one.
const TITLE_SCANNED_WORDS: usize = 64;

impl TitleWords {
    fn new(title: &str) -> Self {
        let mut words: Vec<String> = Vec::new();
        let mut set: Option<FxHashSet<String>> = None;
        let mut n = String::new();
        for w in title.split_whitespace() {
            normalize_word(w, &mut n);
            if n.is_empty() {
                continue;
            }
            match &mut set {
                Some(set) if !set.contains(&n) => {
                    set.insert(n.clone());
                }
                Some(_) => {}
                None if !words.contains(&n) => {
                    words.push(n.clone());
                    if words.len() > TITLE_SCANNED_WORDS {
                        set = Some(words.drain(..).collect());
                    }
                }
                None => {}
            }
        }
        let lengths = words
            .iter()
            .chain(set.iter().flatten())
            .fold(0, |l, w| l | Self::length_bit(w.len()));
        Self {
            words,
            set,
            lengths,
        }
    }

    fn length_bit(len: usize) -> u64 {
        1 << len.min(63)
    }

    fn is_empty(&self) -> bool {
        // Every word sets the bit of its length.
        self.lengths == 0
    }

    /// Whether the normalized `w` is a title word; `None` when it normalizes to nothing.
    /// `buf` holds the normalized form of words with non-ASCII characters, or of any word
    /// when the title's words are in a set.
    fn contains(&self, w: &str, buf: &mut String) -> Option<bool> {
        if w.is_ascii() {
            // Leading and trailing bytes that are not letters or digits are cut.
            let b = w.as_bytes();
            let start = b.iter().position(u8::is_ascii_alphanumeric)?;
            let end = b
                .iter()
                .rposition(u8::is_ascii_alphanumeric)
                .map_or(start, |e| e + 1);
            if self.lengths & Self::length_bit(end - start) == 0 {
                return Some(false);
            }
            if let Some(set) = &self.set {
                buf.clear();
                buf.push_str(&w[start..end]);
                buf.make_ascii_lowercase();
                return Some(set.contains(buf.as_str()));
            }
            // Title words are lower-case: ASCII ones match ignoring case, others never do.
            let w = &b[start..end];
            return Some(
                self.words
                    .iter()
                    .any(|t| t.as_bytes().eq_ignore_ascii_case(w)),
            );
        }
        normalize_word(w, buf);
        if buf.is_empty() {
            return None;
        }
        if self.lengths & Self::length_bit(buf.len()) == 0 {
            return Some(false);
        }
        Some(match &self.set {
            Some(set) => set.contains(buf.as_str()),
            None => self.words.contains(buf),
        })
    }
}

/// Lower-case `w` without its leading and trailing punctuation, into `out`.
fn normalize_word(w: &str, out: &mut String) {
    out.clear();
    let w = w.trim_matches(|c: char| !c.is_alphanumeric());
    if w.is_ascii() {
        out.push_str(w);
        out.make_ascii_lowercase();
    } else {
        out.extend(w.chars().flat_map(char::to_lowercase));
    }
}

/// Word counts and heading flags of every block, as the decoders need them.
pub fn words_and_headings(m: &FeatureMatrix) -> (Vec<f32>, Vec<bool>) {
    (0..m.rows())
        .map(|i| {
            let f = |x: F| m.get(i, x);
            let heading = f(F::TagH1) + f(F::TagH2) + f(F::TagH3) + f(F::TagH4to6) > 0.0;
            (f(F::Words), heading)
        })
        .unzip()
}

/// A Markdown table of the schema, for `training/FEATURES.md`.
pub fn schema_markdown() -> String {
    let table = |defs: &[FeatureDef], first: usize| {
        let mut out = String::from("| # | name | range | definition |\n|---|---|---|---|\n");
        for (i, f) in defs.iter().enumerate() {
            out.push_str(&format!(
                "| {} | `{}` | {} | {} |\n",
                first + i,
                f.name,
                f.range,
                f.definition
            ));
        }
        out
    };
    format!(
        "{}\n## Second-stage columns\n\nA stacked model's second forest sees the features above and \
         these columns, computed from the first forest's scores of the whole page and from the \
         training corpus.\n\n{}",
        table(SCHEMA, 0),
        table(crate::context::CONTEXT_SCHEMA, N_FEATURES)
    )
}
