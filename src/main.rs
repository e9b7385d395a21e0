//! The `textsift` command line: a thin layer over the library.

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use textsift::annotate::LabeledPage;
use textsift::decode::{Decoder, Favor};
use textsift::extract::{Extractor, Limits};
use textsift::input::{self, InputList};
use textsift::model::{Model, ModelKind};
use textsift::output::{BlockRecord, FeatureValues, Format, Label};
use textsift::train::{self, Recipe};
use textsift::{Error, SegmentLimits};

/// A line on standard error. Unlike `eprintln!`, it does not panic when standard error is
/// closed (`2> >(head -c 5)`): the run goes on, and its output, files and exit code still
/// say what happened.
macro_rules! report {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Faster than the system allocator on the many small allocations of a page (see Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "textsift",
    version,
    about = "Find the main content of web pages with a block classifier you can retrain"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Extract the main content of pages.
    #[command(after_help = EXTRACT_EXAMPLE)]
    Extract(ExtractArgs),
    /// Cut pages into text blocks and print each block with its features, label and score, as
    /// JSON Lines.
    #[command(after_help = BLOCKS_EXAMPLE)]
    Blocks(BlocksArgs),
    /// Print the feature schema as a Markdown table.
    Features,
    /// Train a model from annotated pages, with domain-grouped cross-validation.
    #[command(after_help = TRAIN_EXAMPLE)]
    Train(Box<TrainArgs>),
    /// Score a model on annotated pages (word and block precision, recall, F1).
    Eval(EvalArgs),
    /// Show a model file's metadata.
    ModelInfo {
        /// The model file (default: the embedded model).
        model: Option<PathBuf>,
    },
}

const TRAIN_EXAMPLE: &str = r#"Annotations (--data, repeatable):
  DIR           a WCXB-style folder: DIR/html/ID.html[.gz|.zst] and DIR/ground-truth/ID.json
  FILE.jsonl    pages with gold text: {"id", "html" or "html_path", "text", "url"?, "page_type"?}
  FILE.jsonl    or `textsift blocks` output with a "label" on every block (content/boilerplate)
                (either also gzip- or zstd-compressed, as FILE.jsonl.gz or FILE.jsonl.zst)

Example:
  $ textsift train --data ../shared/data/wcxb/dev --recipe training/recipe.toml \
        --out my-model.tsm --report my-report.md
  (the shipped model is made so, with --out models/default.tsm --report training/REPORT.md)"#;

#[derive(Args)]
struct TrainArgs {
    /// Annotated data (folder or JSON Lines, - for standard input); repeat for several.
    #[arg(long, required = true)]
    data: Vec<PathBuf>,
    /// Recipe file (TOML); flags override it.
    #[arg(long)]
    recipe: Option<PathBuf>,
    /// Where to write the model.
    #[arg(long, default_value = "model.tsm")]
    out: PathBuf,
    /// Write the training report (Markdown) here.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Cross-validation folds grouped by domain (0: none; the model then decodes with the
    /// expected-F1 cut, repeats dropped, as the shipped model does, instead of a decoder
    /// chosen by cross-validation).
    #[arg(long)]
    folds: Option<usize>,
    /// `forest`, `stacked`, `boosted` or `tree`.
    #[arg(long)]
    kind: Option<String>,
    /// Trees in the forest, or the booster's rounds (1 to 100000).
    #[arg(long)]
    trees: Option<usize>,
    /// Maximum tree depth.
    #[arg(long)]
    max_depth: Option<u16>,
    /// Minimum rows per leaf.
    #[arg(long)]
    min_samples_leaf: Option<usize>,
    /// Share of features per tree.
    #[arg(long)]
    feature_fraction: Option<f64>,
    /// Rows sampled per tree (at most 10000000).
    #[arg(long)]
    rows_per_tree: Option<usize>,
    /// Sample both classes equally.
    #[arg(long)]
    balance: Option<bool>,
    /// Random seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Forests of a stacked model (2 to 5).
    #[arg(long)]
    stages: Option<usize>,
    /// Row weighting: block, page or words.
    #[arg(long)]
    weighting: Option<String>,
    /// Boosted models: factor on every tree's values.
    #[arg(long)]
    learning_rate: Option<f64>,
    /// Boosted models: added to the curvature of every leaf.
    #[arg(long)]
    l2: Option<f64>,
    /// Share of a block's words that must align with the gold text for it to be content.
    #[arg(long)]
    min_aligned: Option<f32>,
    /// Share of the pages also trained on as clean copies: their gold text alone as a plain
    /// page, and its opening as a page of one block, every block content.
    #[arg(long)]
    clean_copies: Option<f64>,
    /// Cross-validate only; do not train or write the final model (the report, which
    /// describes that model, is not written either).
    #[arg(long, conflicts_with_all = ["report", "out"])]
    cv_only: bool,
    /// Write the out-of-fold block scores as JSON Lines here (one page a line: id, page_type,
    /// fold (numbered from 1), texts, labels, scores), for studies of decoders and thresholds.
    #[arg(long)]
    oof: Option<PathBuf>,
    /// Worker threads (0: all cores).
    #[arg(long, default_value_t = 0, value_parser = parse_threads)]
    threads: usize,
}

#[derive(Args)]
struct EvalArgs {
    /// Annotated data (folder or JSON Lines, - for standard input); repeat for several.
    #[arg(long, required = true)]
    data: Vec<PathBuf>,
    /// Model file (default: the embedded model).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Decoder instead of the model's own, as for extract.
    #[arg(long, value_enum)]
    decoder: Option<DecoderName>,
    /// Score threshold of the decoder that --decoder names (default: the model's own; not
    /// expected_f1, which has none). Given alone, it picks the threshold decoder (blocks scored
    /// at or above it are kept).
    #[arg(long, value_parser = parse_threshold, allow_negative_numbers = true)]
    threshold: Option<f32>,
    /// What the expected-F1 cut weighs more, as for extract.
    #[arg(long, default_value = "balance", value_parser = favor_parser())]
    favor: Favor,
    /// Share of aligned words that makes a block content in the derived labels (above 0, at
    /// most 1).
    #[arg(long, default_value_t = 0.5, value_parser = parse_min_aligned)]
    min_aligned: f32,
    /// Also print the oracle (the derived labels' own scores).
    #[arg(long)]
    oracle: bool,
    /// Write per-page scores as JSON Lines here: `{"id", "page_type", "precision", "recall",
    /// "f1"}` and the same of the derived labels (`oracle_f1`, `oracle_precision`,
    /// `oracle_recall`).
    #[arg(long)]
    pages: Option<PathBuf>,
}

const BLOCKS_EXAMPLE: &str = r#"Example:
  $ echo '<title>T</title><nav><a href=/>Home</a></nav><p>Tomatoes need a sunny spot, rich soil and regular watering to fruit well.</p>' | textsift blocks -
  {"source":"-","index":0,"label":"boilerplate","score":0.02…,"tag":"nav","text":"Home","schema":"…","features":{"words":1.0,…}}
  {"source":"-","index":1,"label":"content","score":0.93…,"tag":"p","text":"Tomatoes need a sunny spot, rich soil and regular watering to fruit well.","schema":"…","features":{"words":13.0,…}}

Edit "label" by hand where it is wrong and give the file to `textsift train --data FILE`.
Each record names the feature schema of its features ("schema"); training refuses records
of another schema. After an upgrade that changed the features, compute the records again
and keep the labels: textsift blocks --labels old.jsonl PAGES > new.jsonl

Inputs are files (HTML, gzip or zstd recognised by content, WARC files, JSON Lines of {"id", "html"}
records, or of other fields with --html-key, --id-key and --url-key), directories (walked in
sorted order) or - for standard input (also read when no input is named and pages are piped
in). A page that cannot be read is reported on stderr and skipped (and listed in FILE with
--errors FILE); the exit code is 1 when any page failed, 2 on a usage error."#;

const EXTRACT_EXAMPLE: &str = r#"Examples:
  $ textsift extract page.html                       # title and main text
  $ textsift extract --format markdown page.html.gz
  $ textsift extract --format html page.html > debug.html   # why each block was kept or dropped
  $ textsift extract --threads 2 crawl.warc.gz pages/ > out.jsonl
  {"source":"https://example.com/a","title":"...","text":"..."}
  $ find crawl/ -name '*.html.gz' -print0 | textsift extract --files-from - > out.jsonl

Inputs are files (HTML, gzip or zstd recognised by content, WARC files, JSON Lines of {"id", "html"}
records, or of other fields with --html-key, --id-key and --url-key), directories (walked in
sorted order) or - for standard input (also read when no input is named and pages are piped
in). Output order is input order, the same for any --threads. A page that cannot be read is
reported on stderr with its source and skipped (and listed in FILE as a JSON Lines record
with --errors FILE); a summary line ends a batch, and counts the WARC records that hold no
page (redirects, error pages, empty responses, other media types), which are passed over.
Exit code: 0 when every page was extracted, 1 when any failed (or the model could not be
loaded), 2 on a usage error."#;

#[derive(Args)]
struct InputArgs {
    /// Files, directories or - (standard input, also read when no input is named).
    #[arg(value_name = "INPUT")]
    inputs: Vec<std::ffi::OsString>,
    /// Worker threads (0: all cores).
    #[arg(long, default_value_t = 0, value_parser = parse_threads)]
    threads: usize,
    /// Largest page accepted, in bytes, before and after decompression; a larger page is refused.
    #[arg(long, default_value_t = input::DEFAULT_MAX_BYTES, value_parser = parse_limit::<u64>)]
    max_bytes: u64,
    /// Also write every page that failed to FILE, as JSON Lines in input order: {"source",
    /// "place" (FILE:LINE, FILE#N) of a record named by its id or URL, "warc_record_id" or
    /// "url" when known, "kind" (too_large, not_html, cannot_read, empty, bad_gzip, bad_zstd,
    /// bad_record, internal), "error", and "fields" with extract's --keep-field}; the file is
    /// created even when none fails.
    #[arg(long, value_name = "FILE")]
    errors: Option<PathBuf>,
    /// Also read the inputs that FILE names, after those given as arguments: one per line, or
    /// separated by NUL bytes (find -print0); - for standard input. Read as the pages are done;
    /// relative paths are taken from the working directory.
    #[arg(long, value_name = "FILE")]
    files_from: Option<PathBuf>,
    /// The field of a JSON Lines record that holds the page's HTML.
    #[arg(long, value_name = "NAME", default_value = "html")]
    html_key: String,
    /// The field of a JSON Lines record that names it (any JSON value).
    #[arg(long, value_name = "NAME", default_value = "id")]
    id_key: String,
    /// The field of a JSON Lines record that gives the page's URL (its name when it has no id).
    #[arg(long, value_name = "NAME", default_value = "url")]
    url_key: String,
}

#[derive(Args)]
struct ModelArgs {
    /// Model file (default: the model embedded in this binary).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Decoder instead of the model's own.
    #[arg(long, value_enum)]
    decoder: Option<DecoderName>,
    /// Score threshold of the decoder that --decoder names (default: the model's own; not
    /// expected_f1, which has none). Given alone, it picks the threshold decoder (blocks scored
    /// at or above it are kept) instead of the model's own, which may have none (the shipped
    /// model's expected-F1 cut).
    #[arg(long, value_parser = parse_threshold, allow_negative_numbers = true)]
    threshold: Option<f32>,
    /// What the expected-F1 cut (the default decoder) weighs more: precision keeps fewer
    /// blocks, with less boilerplate (it maximises F0.5); recall keeps more, losing less
    /// content (F2).
    #[arg(long, default_value = "balance", value_parser = favor_parser())]
    favor: Favor,
    /// Most DOM nodes in a page, counted while parsing; a larger page is refused.
    #[arg(long, default_value_t = SegmentLimits::default().max_nodes, value_parser = parse_limit::<usize>)]
    max_nodes: usize,
    /// Most blocks kept from a page; the rest of a larger page is dropped, not refused (the
    /// page's JSON record from extract says "truncated": true).
    #[arg(long, default_value_t = SegmentLimits::default().max_blocks, value_parser = parse_limit::<usize>)]
    max_blocks: usize,
}

#[derive(Args)]
struct BlocksArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    model: ModelArgs,
    /// Carry the labels of an earlier `textsift blocks` file over to the blocks of the same
    /// pages (same source, same text); a block with none is written without a label.
    #[arg(long, value_name = "FILE")]
    labels: Option<PathBuf>,
}

#[derive(Args)]
struct ExtractArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    model: ModelArgs,
    /// Output format (default: text for one page, a single HTML file or standard input;
    /// jsonl for several inputs, a directory, a WARC or a JSON Lines file).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Include every block with its label and score (json and jsonl; the default format is
    /// then json for one page).
    #[arg(long)]
    blocks: bool,
    /// Include the main content as Markdown too, in a "markdown" field after "text" (json and
    /// jsonl; the default format is then json for one page).
    #[arg(long)]
    markdown: bool,
    /// Keep links in Markdown, as [text](target) (--format markdown, or --markdown); relative
    /// targets are resolved as a browser does, against the page's <base href> or else its URL
    /// when known (a WARC record's target URI, a JSON Lines record's "url", --url), else left
    /// as given
    #[arg(long)]
    links: bool,
    /// The URL of the pages read from files or standard input, which their relative links
    /// resolve against (with --links); WARC records, and JSON Lines records that have a URL,
    /// name their own
    #[arg(long, value_name = "URL", requires = "links", value_parser = page_url)]
    url: Option<String>,
    /// Pass these fields of JSON Lines records through to the output records (and to those of
    /// --errors), as written, in a "fields" object after "url" (json and jsonl; repeat the flag
    /// or separate names by commas; * for every field but the page, the id and the URL).
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    keep_field: Vec<String>,
}

/// An `http` or `https` URL, for `--url`.
fn page_url(s: &str) -> Result<String, String> {
    match url::Url::parse(s) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(u.into()),
        Ok(u) => Err(format!("not an http or https URL (scheme {})", u.scheme())),
        Err(e) => Err(format!("not a URL: {e}")),
    }
}

fn main() -> ExitCode {
    // A panic inside a page's work is that page's error, reported in one line as any other
    // (`batch::isolate`); the default hook's lines stay for a backtrace asked for, and for
    // panics elsewhere.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let backtrace = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
        if !textsift::batch::in_isolation() || backtrace {
            default_hook(info);
        }
    }));
    let cli = Cli::try_parse().unwrap_or_else(|e| exit_usage(e));
    let result = match cli.command {
        Command::Blocks(args) => blocks(args),
        Command::Extract(args) => extract(args),
        Command::Features => {
            emit(&textsift::features::schema_markdown()).map(|()| ExitCode::SUCCESS)
        }
        Command::Train(args) => train(*args),
        Command::Eval(args) => eval(args),
        Command::ModelInfo { model } => model_info(model),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // The reader has all it wanted, but not a page that failed before it stopped.
            if is_broken_pipe(&e) {
                return match PAGE_FAILED.load(std::sync::atomic::Ordering::Relaxed) {
                    true => ExitCode::FAILURE,
                    false => ExitCode::SUCCESS,
                };
            }
            // The library's errors already name their cause; `{:#}` would print it twice.
            match e.downcast_ref::<Error>() {
                // Its message leaves the path to the field, as a batch names the page first.
                Some(lib @ Error::Io { path, .. }) => report!(
                    "{}",
                    one_line(&format!("textsift: {}: {lib}", path.display()))
                ),
                Some(lib) => report!("{}", one_line(&format!("textsift: {lib}"))),
                None => report!("{}", one_line(&format!("textsift: {e:#}"))),
            }
            ExitCode::FAILURE
        }
    }
}

/// A `--threads` value: 0 (all cores) up to [`textsift::batch::MAX_THREADS`].
fn parse_threads(s: &str) -> Result<usize, String> {
    let max = textsift::batch::MAX_THREADS;
    match s.parse::<usize>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("expected a number from 0 (all cores) to {max}")),
    }
}

/// The decoders `--decoder` names, each with the settings the CLI gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DecoderName {
    Threshold,
    Mss,
    Runs,
    Smooth,
    #[value(name = "expected_f1")]
    ExpectedF1,
}

/// `--favor`'s values: the library's settings by their names.
fn favor_parser() -> impl clap::builder::TypedValueParser<Value = Favor> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Favor::ALL.map(Favor::name)).map(|name| {
        Favor::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .unwrap_or_default()
    })
}

/// A `--threshold` value, checked as the library checks a decoder's threshold.
fn parse_threshold(s: &str) -> Result<f32, String> {
    let threshold = s.parse::<f32>().map_err(|e| e.to_string())?;
    Decoder::Threshold { threshold }
        .validate()
        .map_err(|e| e.to_string())?;
    Ok(threshold)
}

/// A `--min-aligned` value, checked as a recipe's `labels.min_aligned` is.
fn parse_min_aligned(s: &str) -> Result<f32, String> {
    let share = s.parse::<f32>().map_err(|e| e.to_string())?;
    let mut recipe = Recipe::default();
    recipe.labels.min_aligned = share;
    recipe.validate().map_err(|e| e.to_string())?;
    Ok(share)
}

/// A limit's value: a whole number above zero (a limit of zero would refuse every page).
fn parse_limit<T: std::str::FromStr + Default + PartialOrd>(s: &str) -> Result<T, String> {
    match s.parse::<T>() {
        Ok(n) if n > T::default() => Ok(n),
        _ => Err("expected a whole number above zero".to_string()),
    }
}

/// The `--files-from` list, opened (its entries are read as the batch asks for them), or,
/// with none named, standard input when pages are piped in. With nothing named and a terminal
/// for input, the command would wait for pages typed by hand, so that is a usage error (exit
/// code 2), as is standard input asked for both as the list and as an input.
fn gather_inputs(input: &mut InputArgs, command: &str) -> anyhow::Result<Option<InputList>> {
    // Read once, standard input is empty the second time.
    if input.inputs.iter().filter(|i| *i == "-").count() > 1 {
        usage_error(
            command,
            clap::error::ErrorKind::ArgumentConflict,
            "- (standard input) can be an input only once",
        );
    }
    if let Some(list) = &input.files_from {
        let from_stdin = list.as_os_str() == "-";
        if from_stdin && input.inputs.iter().any(|i| i == "-") {
            usage_error(
                command,
                clap::error::ErrorKind::ArgumentConflict,
                "standard input holds the --files-from list, so it cannot be an input (-) too",
            );
        }
        let opened = InputList::open((!from_stdin).then_some(list.as_path()))
            .map_err(|e| anyhow::anyhow!("--files-from {}: {e}", list.display()))?;
        return Ok(Some(opened));
    }
    if !input.inputs.is_empty() {
        return Ok(None);
    }
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        usage_error(
            command,
            clap::error::ErrorKind::MissingRequiredArgument,
            "no INPUT: name files, directories or - (standard input), or pipe pages in",
        );
    }
    input.inputs.push("-".into());
    Ok(None)
}

/// A usage error found after parsing: clap's message and usage line, exit code 2.
fn usage_error(command: &str, kind: clap::error::ErrorKind, message: &str) -> ! {
    let mut cli = <Cli as clap::CommandFactory>::command();
    cli.build(); // gives the subcommand its full name for the usage line
    let sub = cli.find_subcommand_mut(command).map(|c| c.clone());
    exit_usage(sub.unwrap_or(cli).error(kind, message))
}

/// Ends the program on a command-line error: help and the version as clap writes them, any
/// other error in one line on stderr ([`usage_line`]), exit code 2.
fn exit_usage(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    // The command is the first argument, as textsift has no options before it.
    let cli = <Cli as clap::CommandFactory>::command();
    // Read as given: an argument that is not UTF-8 is no command's name.
    let command = std::env::args_os()
        .nth(1)
        .and_then(|a| a.into_string().ok())
        .filter(|a| cli.get_subcommands().any(|c| c.get_name() == a));
    // A missing argument's usage says what asked for it (`--links --url <URL>`).
    let usage = e.kind() == ErrorKind::MissingRequiredArgument;
    report!(
        "{}",
        usage_line(&e.render().to_string(), command.as_deref(), usage)
    );
    std::process::exit(2)
}

/// clap's error message (`rendered`) in one line: the error, its tips (and its usage, with
/// `with_usage`) in brackets, and the help of `command` to read, instead of a paragraph of
/// each.
fn usage_line(rendered: &str, command: Option<&str>, with_usage: bool) -> String {
    let mut message = Vec::new();
    let mut tips = Vec::new();
    for line in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(tip) = line.strip_prefix("tip: ") {
            tips.push(tip.to_string());
        } else if let Some(usage) = line.strip_prefix("Usage: ") {
            if with_usage {
                tips.push(format!("usage: {usage}"));
            }
        } else if !line.starts_with("For more information") {
            message.push(line.strip_prefix("error: ").unwrap_or(line));
        }
    }
    let help = match command {
        Some(c) => format!("textsift {c} --help"),
        None => "textsift --help".to_string(),
    };
    let tips = match tips.is_empty() {
        true => String::new(),
        false => format!(" ({})", tips.join("; ")),
    };
    one_line(&format!(
        "textsift: {}{tips}; see '{help}'",
        message.join(" ")
    ))
    .into_owned()
}

/// Write to stdout, returning its error rather than panicking as `print!` does, so that a
/// closed pipe (`textsift model-info | head -1`) ends the command quietly.
fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).context(STDOUT)?;
    out.flush().context(STDOUT)?;
    Ok(())
}

/// What a failed write to standard output (a full disk) is reported as; a closed pipe is
/// found under it ([`is_broken_pipe`]) and ends the command quietly.
const STDOUT: &str = "cannot write to standard output";

/// Held while a record goes to standard output or the `--errors` file: a record larger than a
/// pipe's buffer goes out in several writes, and a run stopped between them would leave it cut.
static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());
/// Set once a stop signal came: no record is begun after it.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// What ends the output of a batch begun (`]` of a JSON array), for a stop to write.
static FOOT: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Make SIGINT, SIGTERM and SIGHUP end the process between two records: the record being
/// written is finished, then the signal ends the process as it would have (same exit status).
/// A second signal ends it at once, as a reader that stopped reading holds a write for ever.
fn stop_between_records() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::low_level::emulate_default_handler;
    // A signal set to be ignored when the run started (`nohup`, a script's job in the
    // background) stays ignored.
    let ignored = |signal: i32| {
        // SAFETY: with no new action, sigaction only reads the current one into `old`.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
        }
    };
    let stops: Vec<i32> = [SIGINT, SIGTERM, SIGHUP]
        .into_iter()
        .filter(|&s| !ignored(s))
        .collect();
    // Without the handlers, the signals keep their default action: no worse than before.
    let Ok(mut signals) = signal_hook::iterator::Signals::new(stops) else {
        return;
    };
    std::thread::spawn(move || {
        // Should the default action fail to end the process, the shell's status for the
        // signal is the exit code, as the writers wait for ever.
        let end = move |signal: i32| {
            let _ = emulate_default_handler(signal);
            std::process::exit(128 + signal)
        };
        for signal in signals.forever() {
            if STOPPING.swap(true, Ordering::SeqCst) {
                end(signal);
            }
            std::thread::spawn(move || {
                let _held = WRITING.lock();
                let foot = FOOT
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take();
                if let Some(foot) = foot {
                    // Standard output is locked by the writer, which waits: written around it.
                    let mut bytes = foot.as_bytes();
                    while !bytes.is_empty() {
                        // SAFETY: writes bytes of a live slice to file descriptor 1.
                        let n = unsafe { libc::write(1, bytes.as_ptr().cast(), bytes.len()) };
                        if n <= 0 {
                            break;
                        }
                        bytes = &bytes[n as usize..];
                    }
                }
                end(signal);
            });
        }
    });
}

/// Run `write` as one record's whole output, unless the run is being stopped, in which case
/// the calling thread waits for the stop.
fn write_record<T>(write: impl FnOnce() -> T) -> T {
    let held = WRITING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if STOPPING.load(Ordering::SeqCst) {
        drop(held);
        loop {
            std::thread::park();
        }
    }
    write()
}

/// An error about a file named on the command line (it cannot be read or written, or does not
/// parse), reported with its path.
fn at_path<E: std::fmt::Display>(path: &std::path::Path) -> impl Fn(E) -> anyhow::Error + '_ {
    move |e| anyhow::anyhow!("{}: {e}", path.display())
}

/// A file that the command writes (`--out`, `--errors`, `--pages`...) and cannot.
fn cannot_write<E: std::fmt::Display>(path: &std::path::Path) -> impl Fn(E) -> anyhow::Error + '_ {
    move |e| anyhow::anyhow!("cannot write {}: {e}", path.display())
}

/// A model file that cannot be read, named as the model's: the library's message leaves the
/// path to the error's field, as for a page.
fn model_unread(e: Error) -> anyhow::Error {
    match e {
        Error::Io { path, error } => {
            anyhow::anyhow!("model file {}: cannot read: {error}", path.display())
        }
        e => e.into(),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// A line as printed: control characters of a source or a message (a record id holding a
/// line break or a terminal's escape codes, from a crawl) shown as escapes, so that a report
/// stays one line and the terminal shows what was there.
fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return s.into();
    }
    s.chars()
        .map(|c| match c {
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect::<String>()
        .into()
}

/// Pages whose text was cut at a limit ([`Extraction::truncated`](textsift::Extraction)),
/// counted in the summary: their output may lack the end of their content.
static TRUNCATED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Count a page whose text was cut at a limit.
fn count_truncated(e: &textsift::Extraction) {
    if e.truncated {
        TRUNCATED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Set once a page of a batch has failed (and been reported): a run that its reader ends
/// early still says so by its exit status.
static PAGE_FAILED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Counts of a batch, reported at the end.
#[derive(Default)]
struct Tally {
    /// The inputs may hold several pages (not one page file): a summary ends the run however
    /// many pages they held.
    batch: bool,
    pages: usize,
    failed: usize,
    /// WARC records that hold no page (redirects, error pages, images...): counted, not
    /// reported one by one, since a crawl holds thousands of them.
    no_page: usize,
}

impl Tally {
    /// Count a page's outcome; a failure gives the line that reports it.
    fn count<T>(&mut self, source: &str, result: &Result<T, Error>) -> Option<String> {
        match result {
            Ok(_) => self.pages += 1,
            Err(Error::NoPage(_)) => self.no_page += 1,
            Err(e) => {
                self.pages += 1;
                self.failed += 1;
                PAGE_FAILED.store(true, std::sync::atomic::Ordering::Relaxed);
                return Some(one_line(&format!("textsift: {source}: {e}")).into_owned());
            }
        }
        None
    }

    fn finish(self) -> ExitCode {
        // No summary after one page file that went well, whose output says it all; a batch
        // says what it found, even one page or none (an empty directory or list).
        let truncated = TRUNCATED.load(std::sync::atomic::Ordering::Relaxed);
        if self.batch || self.pages != 1 || self.failed > 0 || self.no_page > 0 || truncated > 0 {
            let cut = match truncated {
                0 => String::new(),
                n => format!(" ({n} cut short at a limit)"),
            };
            let no_page = match self.no_page {
                0 => String::new(),
                n => format!(
                    "; {} without a page passed over (redirects, error pages, empty responses, \
                     other media types)",
                    counted(n, "WARC record")
                ),
            };
            report!(
                "textsift: {}, {} ok{cut}, {} failed{no_page}",
                counted(self.pages, "page"),
                self.pages - self.failed,
                self.failed
            );
        }
        if self.failed > 0 {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// The extractor a command asked for: model, decoder, limits.
fn extractor(m: &ModelArgs, max_bytes: u64, command: &str) -> anyhow::Result<Extractor> {
    check_threshold(command, m.decoder, m.threshold);
    let ex = match &m.model {
        Some(p) => Extractor::from_model_file(p).map_err(model_unread)?,
        None => Extractor::new()?,
    };
    let mut decoding = ex.current_decoding();
    decoding.decoder = chosen_decoder(
        decoding.decoder,
        m.decoder,
        m.threshold,
        ex.model().info.threshold,
    );
    let limits = Limits {
        max_bytes,
        segment: SegmentLimits {
            max_nodes: m.max_nodes,
            max_blocks: m.max_blocks,
            links: false,
        },
    };
    let ex = ex.decoding(decoding)?.limits(limits)?;
    ex.favor(m.favor).or_else(|e| favor_refused(command, &e))
}

/// A model as `--model` names it, or the embedded one.
fn model_name(model: &Option<PathBuf>) -> String {
    model
        .as_ref()
        .map_or("the embedded model".to_string(), |p| {
            p.display().to_string()
        })
}

/// `--threshold` with a decoder that has none (`--decoder expected_f1`): a usage error (exit
/// code 2), as it would change nothing.
fn check_threshold(command: &str, decoder: Option<DecoderName>, threshold: Option<f32>) {
    if let (Some(DecoderName::ExpectedF1), Some(_)) = (decoder, threshold) {
        usage_error(
            command,
            clap::error::ErrorKind::ArgumentConflict,
            "--threshold: the expected_f1 decoder has no threshold (it cuts where the expected \
             F1 is highest; --favor moves the cut)",
        );
    }
}

/// The decoder that `--decoder` and `--threshold` ask for instead of the model's own
/// (`own`): the named one at the threshold given or the model's, or the threshold decoder at
/// a threshold given alone.
fn chosen_decoder(
    own: Decoder,
    name: Option<DecoderName>,
    threshold: Option<f32>,
    model_threshold: f32,
) -> Decoder {
    let t = threshold.unwrap_or(model_threshold);
    match (name, threshold) {
        (Some(DecoderName::Threshold), _) => Decoder::Threshold { threshold: t },
        (Some(DecoderName::Mss), _) => Decoder::Mss { threshold: t },
        (Some(DecoderName::Runs), _) => Decoder::Runs {
            threshold: t,
            max_gap: 2,
            gap_threshold: (t - 0.15).max(0.0),
        },
        (Some(DecoderName::Smooth), _) => Decoder::Smooth {
            threshold: t,
            alpha: 0.5,
        },
        (Some(DecoderName::ExpectedF1), _) => Decoder::ExpectedF1 { gamma: 1.0 },
        (None, Some(threshold)) => Decoder::Threshold { threshold },
        (None, None) => own,
    }
}

/// `--favor` asked of a decoder that cannot favour: a usage error (exit code 2).
fn favor_refused(command: &str, e: &Error) -> ! {
    usage_error(
        command,
        clap::error::ErrorKind::ArgumentConflict,
        &format!("--favor: {e}"),
    )
}

/// What a batch's output holds around its records: a document's head and foot, and what goes
/// between two records.
#[derive(Default, Clone, Copy)]
struct Frame<'a> {
    head: &'a str,
    between: &'a str,
    foot: &'a str,
}

/// Run `work` over every page of the inputs, then of the list's, on the thread pool (given the
/// page's item, whose source, declared charset and WARC record it reads, and its bytes), write
/// what it returns in input order within `frame`, report bad pages, and end with a summary
/// (`single`: the inputs are one page file, whose summary goes without saying when it went
/// well, and whose output goes without the frame unless it turns out to hold records).
fn run_batch(
    command: &str,
    input: &InputArgs,
    single: bool,
    list: Option<InputList>,
    keep: &[String],
    frame: Frame,
    work: impl Fn(&input::Item, &[u8]) -> textsift::Result<String> + Sync,
) -> anyhow::Result<ExitCode> {
    let keys = input::RecordKeys {
        html: input.html_key.clone(),
        id: input.id_key.clone(),
        url: input.url_key.clone(),
        keep: keep.to_vec(),
    };
    let reading = match input::Reading::new(input.max_bytes).keys(keys) {
        Ok(r) => r,
        Err(e) => usage_error(
            command,
            clap::error::ErrorKind::ArgumentConflict,
            &e.to_string(),
        ),
    };
    if let Some(errors) = &input.errors {
        // A file named as an input would be truncated before it is read.
        let target = std::fs::canonicalize(errors).ok();
        let named = input.inputs.iter().map(PathBuf::from);
        if let Some(same) = named
            .clone()
            .filter(|p| !p.is_dir())
            .find(|p| is_file(target.as_deref(), Some(p)))
        {
            usage_error(
                command,
                clap::error::ErrorKind::ArgumentConflict,
                &format!("--errors would overwrite an input: {}", same.display()),
            );
        }
        // So would a file found in a directory given as input, which the walk then passes
        // over as this run's: but for the --errors file of an earlier run, which is written
        // over.
        let walked = |dir: &PathBuf| {
            let dir = std::fs::canonicalize(dir).ok();
            target
                .as_deref()
                .is_some_and(|t| dir.is_some_and(|d| t.starts_with(d)))
        };
        if let Some(dir) = named.filter(|p| p.is_dir()).find(walked) {
            if holds_other_than_failures(errors) {
                usage_error(
                    command,
                    clap::error::ErrorKind::ArgumentConflict,
                    &format!(
                        "--errors would overwrite an input: {} (in {})",
                        errors.display(),
                        dir.display()
                    ),
                );
            }
        }
    }
    let stdout_is_terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr()).then(|| {
        // The bar's length: the files named or found in directories, and those of a list read
        // from a file, counted by a first walk and reading; a list piped in has no length
        // known beforehand.
        let listed = match input.files_from.as_deref() {
            None => Some(0),
            Some(p) if p.as_os_str() == "-" => None,
            Some(p) => InputList::open(Some(p)).ok().map(|list| {
                list.map(|entry| entry.map_or(1, |name| input::expand(&[name]).count()))
                    .sum()
            }),
        };
        let inputs = listed.map(|n| input::expand(&input.inputs).count() + n);
        // With several inputs the bar counts the inputs done, else the pages.
        (progress_bar(inputs), inputs.is_some_and(|n| n > 1))
    });
    // The file that a standard stream was sent to, when it is one (`> out.jsonl`): Linux
    // names it in /proc.
    let file_of = |fd: u8| {
        std::fs::canonicalize(format!("/proc/self/fd/{fd}"))
            .ok()
            .filter(|p| p.is_file())
    };
    let output_file = file_of(1);
    if let Some(path) = &input.errors {
        // Nor the file of standard error (`--errors /dev/stderr 2>>run.log`): created anew, it
        // would empty the log, and its records would write over the lines of this run.
        let log_file = file_of(2);
        let errors_at = std::fs::canonicalize(path).ok();
        for (stream, file) in [("output", &output_file), ("error", &log_file)] {
            if file.is_some() && errors_at == *file {
                usage_error(
                    command,
                    clap::error::ErrorKind::ArgumentConflict,
                    &format!(
                        "--errors names the file that standard {stream} goes to: {}",
                        path.display()
                    ),
                );
            }
        }
        // Any other file that holds anything but failures is kept: a page named by mistake
        // (`--errors page.html other.html`), or one that a list, read as the run goes, may
        // name.
        if holds_other_than_failures(path) {
            usage_error(
                command,
                clap::error::ErrorKind::ArgumentConflict,
                &format!(
                    "--errors would overwrite a file that holds something else than an earlier \
                     run's failures: {} (remove it first, or name another file)",
                    path.display()
                ),
            );
        }
    }
    // Created before any page is read, so that a path that cannot be written stops the run
    // at once rather than after hours of work.
    let mut errors = match &input.errors {
        Some(path) => Some((
            BufWriter::new(std::fs::File::create(path).map_err(cannot_write(path))?),
            path,
        )),
        None => None,
    };
    let errors_file = input
        .errors
        .as_ref()
        .and_then(|p| std::fs::canonicalize(p).ok());
    let errors_file = errors_file.as_deref();
    let output_file = output_file.as_deref();
    // The files that an input stands for (a directory's, as it is walked), or why one cannot
    // be read: the file of --errors and that of the output, which this run writes, are passed
    // over when found in a directory and an error when listed.
    let files_of = move |name: std::ffi::OsString| {
        input::expand(std::slice::from_ref(&name)).filter_map(move |(source, path)| {
            let what = if is_file(errors_file, path.as_deref()) {
                "this run writes its --errors there"
            } else if is_file(output_file, path.as_deref()) {
                "this run writes its output there"
            } else {
                return Some(Ok((source, path)));
            };
            // A path other than the name given was found in a directory.
            let path = path.unwrap_or_default();
            let walked = path.as_os_str() != name;
            let e = std::io::Error::other(what);
            (!walked).then_some(Err((source, Error::Io { path, error: e })))
        })
    };
    let list_name = input
        .files_from
        .as_ref()
        .map(|p| format!("--files-from {}", p.display()))
        .unwrap_or_default();
    let named = input.inputs.iter().cloned().flat_map(files_of);
    let listed = list.into_iter().flatten().flat_map(
        move |entry| -> Box<dyn Iterator<Item = _> + Send + '_> {
            match entry {
                Ok(name) => Box::new(files_of(name)),
                Err(e) => Box::new(std::iter::once(Err((list_name.clone(), e)))),
            }
        },
    );
    // Each page carries the number of its file, so that the bar counts inputs done.
    let items = named.chain(listed).enumerate().flat_map(move |(k, file)| {
        match file {
            Ok((source, path)) => input::pending_pages(source, path, &reading),
            Err((source, e)) => Box::new(std::iter::once(input::Pending::failed(source, e))),
        }
        .map(move |page| (k, page))
    });
    let started = std::time::Instant::now();
    stop_between_records();
    let out = std::io::stdout().lock();
    let mut out = BufWriter::new(out);
    // The head goes out before the first record, and the foot is left for a stop to write:
    // a run stopped between records leaves a whole document (a JSON array, the debug view's
    // page). A batch's head goes out at once; one page goes without a frame, unless it is a
    // pipe named as a file whose records (named otherwise than the input) make it a batch.
    let lone = single.then(|| input.inputs[0].to_string_lossy().into_owned());
    let begin = |out: &mut BufWriter<std::io::StdoutLock>| -> anyhow::Result<()> {
        write_record(|| {
            out.write_all(frame.head.as_bytes())
                .and_then(|()| out.flush())
        })
        .context(STDOUT)?;
        *FOOT
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(frame.foot.to_string());
        Ok(())
    };
    if lone.is_none() {
        begin(&mut out)?;
    }
    let mut written = false;
    let mut tally = Tally {
        batch: !single,
        ..Tally::default()
    };
    // The names of --keep-field that no record has held so far: one that matches nothing
    // (misspelt, or a path into a field, which names no field of the record) gets a note.
    let mut unheld: Vec<&str> = keep
        .iter()
        .map(String::as_str)
        .filter(|&k| k != "*")
        .collect();
    textsift::batch::run_ordered(
        items,
        input.threads,
        |(k, page)| {
            // A page file is read here, on a worker, not by the thread that reads the inputs.
            let mut item = page.read();
            let bytes = std::mem::replace(&mut item.bytes, Ok(Vec::new()));
            let result = bytes.and_then(|b| textsift::batch::isolate(|| work(&item, &b)));
            (k, item, result)
        },
        |(k, item, result)| -> anyhow::Result<()> {
            if let Ok(text) = &result {
                if !written && lone.as_deref().is_some_and(|n| n != item.source) {
                    begin(&mut out)?;
                }
                // (One page, the input itself, has no record after it.)
                let between = if written { frame.between } else { "" };
                written = true;
                // Each page goes out whole as soon as it is done: a reader down the pipe sees
                // it at once, and a run that is killed leaves only whole pages behind.
                let mut write = || {
                    out.write_all(between.as_bytes())
                        .and_then(|()| out.write_all(text.as_bytes()))
                        .and_then(|()| out.flush())
                };
                write_record(|| match &progress {
                    // On the terminal that shows the bar, the page goes above the bar.
                    Some((bar, _)) if stdout_is_terminal => bar.suspend(write),
                    _ => write(),
                })
                .context(STDOUT)?;
            }
            if let (false, Some(fields)) = (unheld.is_empty(), &item.fields) {
                let held: std::collections::HashMap<String, serde::de::IgnoredAny> =
                    serde_json::from_str(fields.get()).unwrap_or_default();
                unheld.retain(|&k| !held.contains_key(k));
            }
            let failure = tally.count(&item.source, &result);
            let failed = failure.is_some();
            match (&progress, failure) {
                (Some((bar, by_inputs)), failure) => {
                    if let Some(line) = failure {
                        bar.suspend(|| report!("{line}"));
                    }
                    // With several inputs the bar counts the inputs before this page's one
                    // (its pages may be many, as in a WARC file), and says the pages apart.
                    let done = if *by_inputs { k } else { tally.pages };
                    bar.set_position(done as u64);
                    let rate = tally.pages as f64 / started.elapsed().as_secs_f64().max(1e-3);
                    let pages = match tally.pages {
                        1 => "1 page".to_string(),
                        n => format!("{n} pages"),
                    };
                    bar.set_message(format!("{pages}, {rate:.0} pages/s"));
                }
                (None, Some(line)) => report!("{line}"),
                (None, None) => {}
            }
            if let (Some((file, path)), true, Err(e)) = (&mut errors, failed, &result) {
                let record = textsift::output::FailureRecord::new(&item, e);
                let line = textsift::output::json(&record, false);
                write_record(|| writeln!(file, "{line}").and_then(|()| file.flush()))
                    .map_err(cannot_write(path))?;
            }
            Ok(())
        },
    )?;
    write_record(|| {
        let foot = FOOT
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        out.write_all(foot.unwrap_or_default().as_bytes())
            .and_then(|()| out.flush())
    })
    .context(STDOUT)?;
    if let Some((bar, _)) = progress {
        bar.finish_and_clear();
    }
    if !unheld.is_empty() {
        unheld.sort_unstable();
        unheld.dedup();
        let names: Vec<String> = unheld.iter().map(|k| format!("{k:?}")).collect();
        let line = format!(
            "textsift: note: --keep-field: no JSON Lines record held {} (a name is one of a \
             record's own fields, not a path into one)",
            names.join(", ")
        );
        report!("{}", one_line(&line));
    }
    Ok(tally.finish())
}

/// Where `path` leads, to tell two names of one file: its canonical path, or for a file not
/// made yet, its folder's with its name. `None` for standard input and unreachable places.
fn resolved(path: &std::path::Path) -> Option<PathBuf> {
    if path.as_os_str() == "-" {
        return None;
    }
    std::fs::canonicalize(path).ok().or_else(|| {
        let parent = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        Some(std::fs::canonicalize(parent).ok()?.join(path.file_name()?))
    })
}

/// The files that a run reads for an input (a data file, a model, a recipe, or a data folder,
/// whose `ground-truth/` and `html/` files are read, through links too), so that a file
/// written there, which would be truncated before or after it is read, can be refused.
struct ReadFiles<'a> {
    input: &'a std::path::Path,
    folder: bool,
    /// A file's own path and the pages that it names by `html_path` (a manifest's),
    /// resolved; read once, however many outputs are checked.
    files: Vec<PathBuf>,
}

impl<'a> ReadFiles<'a> {
    fn of(input: &'a std::path::Path) -> Self {
        let folder = input.is_dir();
        let mut files = Vec::new();
        if !folder {
            files.extend(resolved(input));
            if input.is_file() {
                let pages = textsift::annotate::pages_named(input);
                files.extend(pages.iter().filter_map(|p| resolved(p)));
            }
        }
        ReadFiles {
            input,
            folder,
            files,
        }
    }

    /// Whether the file whose canonical path is `at` is read.
    fn reads(&self, at: &std::path::Path) -> bool {
        self.files.iter().any(|f| f == at) || (self.folder && reads_in_folder(self.input, at))
    }
}

/// Whether a run that reads the data folder `input` reads the file whose canonical path is
/// `at`.
fn reads_in_folder(input: &std::path::Path, at: &std::path::Path) -> bool {
    // The files of a folder that are read: gold files, and pages by their endings.
    let read = |sub: &str, name: &str| match sub {
        "ground-truth" => name.ends_with(".json"),
        _ => textsift::annotate::PAGE_EXTENSIONS
            .iter()
            .any(|x| name.ends_with(x)),
    };
    // A gold file written where gold files are would be read by the next run.
    let gold_dir = std::fs::canonicalize(input.join("ground-truth")).ok();
    let name = at.file_name().map(|n| n.to_string_lossy().into_owned());
    if gold_dir.is_some() && at.parent() == gold_dir.as_deref() {
        return name.is_some_and(|n| read("ground-truth", &n));
    }
    ["ground-truth", "html"].iter().any(|sub| {
        std::fs::read_dir(input.join(sub))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| read(sub, &e.file_name().to_string_lossy()))
            .any(|e| std::fs::canonicalize(e.path()).is_ok_and(|p| p == at))
    })
}

/// Whether `path` is the file whose canonical path is `target`: a file written there would be
/// truncated before it is read. Only a path of the same file name is looked at on disk, so
/// that a batch of many files costs no more than a comparison of names.
fn is_file(target: Option<&std::path::Path>, path: Option<&std::path::Path>) -> bool {
    let (Some(target), Some(path)) = (target, path) else {
        return false;
    };
    path.file_name() == target.file_name() && std::fs::canonicalize(path).is_ok_and(|p| p == target)
}

/// The progress shown on a terminal: a bar with the time left when several inputs are named,
/// found in directories or listed in a file, a spinner for one input (a WARC or JSON Lines
/// file holds an unknown number of pages) or a list piped in.
fn progress_bar(inputs: Option<usize>) -> indicatif::ProgressBar {
    let (bar, template) = match inputs {
        Some(n) if n > 1 => (
            indicatif::ProgressBar::new(n as u64),
            "{wide_bar} {pos}/{len} inputs, {msg}, {elapsed} (left: {eta})",
        ),
        _ => (
            indicatif::ProgressBar::new_spinner(),
            "{spinner} {msg}, {elapsed}",
        ),
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar.set_message("0 pages");
    bar
}

fn blocks(mut args: BlocksArgs) -> anyhow::Result<ExitCode> {
    let list = gather_inputs(&mut args.input, "blocks")?;
    let stdin_pages = args.input.inputs.iter().any(|i| i == "-")
        || args
            .input
            .files_from
            .as_ref()
            .is_some_and(|f| f.as_os_str() == "-");
    if stdin_pages && args.labels.as_ref().is_some_and(|l| l.as_os_str() == "-") {
        usage_error(
            "blocks",
            clap::error::ErrorKind::ArgumentConflict,
            "standard input holds the --labels file, so it cannot hold the pages or their list too",
        );
    }
    let ex = extractor(&args.model, args.input.max_bytes, "blocks")?;
    let schema = textsift::features::schema_id();
    let earlier = match &args.labels {
        Some(path) => Some(
            // A file that cannot be read or unpacked is named here; a bad line names its file
            // itself.
            textsift::annotate::EarlierLabels::load(path).map_err(|e| match e {
                e @ Error::Annotation(_) => e.into(),
                e => at_path(path)(e),
            })?,
        ),
        None => None,
    };
    if let (Some(earlier), Some(path)) = (&earlier, &args.labels) {
        if earlier.repeated > 0 {
            report!(
                "textsift: note: {} {} twice or more in {}: the last copy's labels are used",
                counted(earlier.repeated, "page"),
                if earlier.repeated == 1 { "is" } else { "are" },
                path.display()
            );
        }
    }
    let (carried, unlabeled) = (AtomicUsize::new(0), AtomicUsize::new(0));
    // Pages that the earlier file does not hold under their source as given now.
    let unknown = AtomicUsize::new(0);
    let single = one_page(&args.input);
    let code = run_batch(
        "blocks",
        &args.input,
        single,
        list,
        &[],
        Frame::default(),
        |item, bytes| {
            let source = &item.source;
            let (e, mut classes) = ex.extract_with_classes(bytes, item.charset.as_deref())?;
            count_truncated(&e);
            let warc = item.warc.clone().unwrap_or_default();
            // Once for all the page's blocks.
            let url = item.url_apart();
            // With --labels, the earlier labels stand in for the model's.
            let earlier_labels: Option<Vec<Option<Label>>> = earlier.as_ref().map(|earlier| {
                let texts: Vec<&str> = e.blocks.iter().map(|b| b.collapsed_text()).collect();
                let labels = earlier
                    .carry(source, warc.id.as_deref(), &texts)
                    .unwrap_or_else(|| {
                        unknown.fetch_add(1, Ordering::Relaxed);
                        vec![None; texts.len()]
                    });
                let found = labels.iter().filter(|l| l.is_some()).count();
                carried.fetch_add(found, Ordering::Relaxed);
                unlabeled.fetch_add(labels.len() - found, Ordering::Relaxed);
                labels
            });
            let mut lines = String::new();
            for (i, b) in e.blocks.iter().enumerate() {
                let rec = BlockRecord {
                    source: source.to_string(),
                    place: item.place.clone(),
                    warc_record_id: warc.id.clone(),
                    warc_date: warc.date.clone(),
                    url: url.map(String::from),
                    group: None,
                    index: b.index,
                    label: earlier_labels.as_ref().map_or(Some(b.label), |l| l[i]),
                    score: Some(b.score),
                    tag: b.tag.clone(),
                    // The text the features were computed from: a record trains as it reads.
                    text: b.collapsed_text().to_string(),
                    schema: Some(schema.clone()),
                    features: FeatureValues(e.features.row(i).to_vec()),
                    classes: std::mem::take(&mut classes[i]),
                };
                lines.push_str(&textsift::output::json(&rec, false));
                lines.push('\n');
            }
            Ok(lines)
        },
    )?;
    if let Some(path) = &args.labels {
        let (carried, unlabeled) = (carried.into_inner(), unlabeled.into_inner());
        let blocks = |n: usize| counted(n, "block");
        let unknown = match unknown.into_inner() {
            0 => String::new(),
            1 => format!("; 1 page is not in {} under its source", path.display()),
            n => format!(
                "; {n} pages are not in {} under their source",
                path.display()
            ),
        };
        // A page is found by its source as written: `pages/a.html` is not `./pages/a.html`.
        let hint = if unknown.is_empty() {
            ""
        } else {
            " (name the inputs as they were named when it was written)"
        };
        report!(
            "textsift: labels carried over to {}; {} {} none{}{unknown}{hint}",
            blocks(carried),
            blocks(unlabeled),
            if unlabeled == 1 { "has" } else { "have" },
            if unlabeled > 0 {
                " (label them by hand before training)"
            } else {
                ""
            }
        );
        // A file that gives no block its label (pages named otherwise, or another crawl's
        // file) fails the run, so that a script does not go on to label by hand from scratch.
        if carried == 0 && unlabeled > 0 {
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(code)
}

/// Whether the file at `path` holds something else than an earlier run's `--errors` records
/// (extract's or blocks' own records among them, which begin with a `source` too). Only a
/// file is looked into: a pipe (`>(…)`, /dev/stderr) would wait for input.
fn holds_other_than_failures(path: &std::path::Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    // The first line, or as much of it as a failure's record may hold.
    let mut first = Vec::new();
    let read = std::io::BufRead::read_until(
        &mut std::io::BufReader::new(std::io::Read::take(file, 1 << 20)),
        b'\n',
        &mut first,
    );
    // A failure's keys, and none of a page's or a block's.
    let failure = |line: &[u8]| {
        type Keys = std::collections::HashMap<String, serde::de::IgnoredAny>;
        serde_json::from_slice::<Keys>(line).is_ok_and(|keys| {
            ["source", "kind", "error"]
                .iter()
                .all(|k| keys.contains_key(*k))
                && !["index", "title"].iter().any(|k| keys.contains_key(*k))
        })
    };
    read.is_ok() && !first.is_empty() && !failure(&first)
}

/// Whether the inputs are one page: text for it by default, and no summary when it went well.
/// Several inputs, a directory, a WARC or a JSON Lines file (or standard input holding one)
/// hold several pages, whose texts would run together. A list of inputs is a batch, whatever
/// its length.
fn one_page(input: &InputArgs) -> bool {
    match input.inputs.as_slice() {
        _ if input.files_from.is_some() => false,
        [one] => {
            let path = (one != "-").then(|| std::path::Path::new(one));
            !path.is_some_and(|p| p.is_dir()) && input::container(path) == input::Container::Page
        }
        _ => false,
    }
}

fn extract(mut args: ExtractArgs) -> anyhow::Result<ExitCode> {
    let list = gather_inputs(&mut args.input, "extract")?;
    // What the debug view's title names: the inputs given, and the list, not its entries.
    let mut given: Vec<std::ffi::OsString> = args.input.inputs.clone();
    if let Some(list) = &args.input.files_from {
        given.extend(["--files-from".into(), list.clone().into_os_string()]);
    }
    let ex = extractor(&args.model, args.input.max_bytes, "extract")?.links(args.links);
    // What labelled the blocks, as the debug view's first line.
    let settings = format!(
        "Labelled by {}, decoder {}, favor {}.",
        model_name(&args.model.model),
        train::describe_decoding(&ex.current_decoding()),
        ex.current_favor().name()
    );
    let single = one_page(&args.input);
    // Blocks, Markdown and fields passed through are asked for as fields of records: JSON
    // for one page, as for several.
    let fields = args.blocks || args.markdown || !args.keep_field.is_empty();
    let format = args.format.unwrap_or(match (single, fields) {
        (true, false) => Format::Text,
        (true, true) => Format::Json,
        (false, _) => Format::Jsonl,
    });
    for (asked, message) in [
        (
            args.blocks,
            "--blocks needs --format json or jsonl (the html view shows every block already)",
        ),
        (
            args.markdown,
            "--markdown needs --format json or jsonl (for Markdown alone: --format markdown)",
        ),
        (
            !args.keep_field.is_empty(),
            "--keep-field needs --format json or jsonl",
        ),
    ] {
        if asked && !matches!(format, Format::Json | Format::Jsonl) {
            usage_error("extract", clap::error::ErrorKind::ArgumentConflict, message);
        }
    }
    if args.links && !(format == Format::Markdown || args.markdown) {
        usage_error(
            "extract",
            clap::error::ErrorKind::ArgumentConflict,
            "--links needs Markdown: --format markdown, or --markdown with json or jsonl",
        );
    }
    let (with_blocks, with_markdown) = (args.blocks, args.markdown);
    // Several pages as text or Markdown: a line names each one, as `head` does with several
    // files, so that one page's text does not run into the next one's title. A pipe named as
    // a file cannot be looked into before it is read, so it counts as one page; the pages of
    // records found in it are named otherwise than the input, and named in the output too.
    let only_input = single.then(|| args.input.inputs[0].to_string_lossy().into_owned());
    let alone = |source: &str| only_input.as_deref() == Some(source);
    let named = |source: &str, page: String| {
        if alone(source) {
            page
        } else {
            format!("==> {} <==\n{}\n\n", one_line(source), page.trim_end())
        }
    };
    // Several pages in the debug view: one document with a section for each; as JSON, one
    // array (also for the records of a pipe named as a file, which counts as one page until
    // they are read).
    let header = match format {
        Format::Html => {
            let title = given.join(std::ffi::OsStr::new(" "));
            textsift::output::html_header(&title.to_string_lossy(), &settings)
        }
        _ => String::new(),
    };
    let frame = match format {
        Format::Html => Frame {
            head: &header,
            foot: textsift::output::HTML_FOOTER,
            ..Frame::default()
        },
        Format::Json => Frame {
            head: "[\n",
            between: ",\n",
            foot: "\n]\n",
        },
        _ => Frame::default(),
    };
    run_batch(
        "extract",
        &args.input,
        single,
        list,
        &args.keep_field,
        frame,
        |item, bytes| {
            let source = item.source.as_str();
            let url = item.url.as_deref().or(args.url.as_deref());
            let e = ex.extract_fetched(bytes, item.charset.as_deref(), url)?;
            count_truncated(&e);
            // Without the blank line that ends a page of `--format markdown`, as `text` has none.
            let markdown = with_markdown.then(|| {
                let mut md = textsift::output::to_markdown(&e);
                md.truncate(md.trim_end().len());
                md
            });
            let record = || textsift::output::PageRecord {
                place: item.place.as_deref(),
                url: item.url_apart(),
                fields: item.fields.as_deref(),
                markdown: markdown.as_deref(),
                ..textsift::output::to_json(source, item.warc.as_ref(), &e, with_blocks)
            };
            Ok(match format {
                Format::Text => named(source, textsift::output::to_text(&e)),
                Format::Markdown => named(source, textsift::output::to_markdown(&e)),
                Format::Html if alone(source) => textsift::output::to_html(source, &e, &settings),
                Format::Html => textsift::output::html_section(source, &e),
                Format::Json if alone(source) => {
                    format!("{}\n", textsift::output::json(&record(), true))
                }
                // In an array, the separator and the array's end follow a record.
                Format::Json => textsift::output::json(&record(), true),
                Format::Jsonl => format!("{}\n", textsift::output::json(&record(), false)),
            })
        },
    )
}

fn load_model(path: Option<&PathBuf>) -> anyhow::Result<Model> {
    match path {
        Some(p) => Model::load(p).map_err(model_unread),
        None => Ok(Model::embedded()?),
    }
}

/// Pages that could not be read: (id, reason).
type Skipped = Vec<(String, String)>;

/// Fail now, before minutes of work, when a file to be written at the end cannot be: its
/// folder is missing or not writable. A file that is there is left as it is; one made for
/// the check is removed.
fn check_writable(path: &std::path::Path) -> anyhow::Result<()> {
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(cannot_write(path))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// A note on stderr about some pages (of `data`, when named): how many, and the first five.
fn note_pages(data: Option<&std::path::Path>, ids: &[&str], what: &str) {
    if ids.is_empty() {
        return;
    }
    let more = if ids.len() > 5 { ", …" } else { "" };
    let data = data.map_or(String::new(), |d| format!("{}: ", d.display()));
    let line = format!(
        "textsift: {data}note: {} {what}: {}{more}",
        counted(ids.len(), "page"),
        ids[..ids.len().min(5)].join(", ")
    );
    report!("{}", one_line(&line));
}

/// `--data -` named more than once: standard input can be read only once.
fn check_data_stdin(data: &[PathBuf], command: &str) {
    if data.iter().filter(|d| d.as_os_str() == "-").count() > 1 {
        usage_error(
            command,
            clap::error::ErrorKind::ArgumentConflict,
            "--data - (standard input) can be given only once",
        );
    }
}

/// Load and label all annotated data; pages that fail are reported and skipped.
fn load_pages(data: &[PathBuf], min_aligned: f32) -> anyhow::Result<(Vec<LabeledPage>, Skipped)> {
    let mut pages = Vec::new();
    let mut skipped = Vec::new();
    for d in data {
        let (ok, bad) = textsift::annotate::load(d, min_aligned, input::DEFAULT_MAX_BYTES)
            .map_err(|e| match e {
                // Named with its file (and line) already.
                e @ Error::Annotation(_) => e.into(),
                e => at_path(d)(e),
            })?;
        for textsift::annotate::PageFailure { id, path, error: e } in bad {
            // A page file of a manifest or a folder: the path tried, as resolved.
            let file = match (&e, &path) {
                (Error::Io { path, .. }, _) | (_, Some(path)) => format!("{}: ", path.display()),
                _ => String::new(),
            };
            // A folder's page is looked for under each ending; the first is named.
            let others = match &e {
                Error::Io { error, .. }
                    if d.is_dir() && error.kind() == std::io::ErrorKind::NotFound =>
                {
                    let [_, rest @ .., last] = textsift::annotate::PAGE_EXTENSIONS;
                    format!("; no {} or {last} page either", rest.join(", "))
                }
                _ => String::new(),
            };
            let line = format!(
                "textsift: {}: page {id}: {file}{e}{others} (skipped)",
                d.display()
            );
            report!("{}", one_line(&line));
            skipped.push((id, e.to_string()));
        }
        if d.is_dir() {
            let known: std::collections::HashSet<&str> = ok
                .iter()
                .map(|p| p.id.as_str())
                .chain(skipped.iter().map(|(id, _)| id.as_str()))
                .collect();
            let alone = textsift::annotate::pages_without_ground_truth(d, &known);
            let alone: Vec<&str> = alone.iter().map(String::as_str).collect();
            note_pages(
                Some(d),
                &alone,
                "in html/ with no ground-truth file, not used",
            );
        }
        // A ground-truth file without `main_content`, or with a misspelt key, reads as a page
        // with nothing to keep (WCXB's own metric scores it so): named, in case it is not meant.
        let empty: Vec<&str> = ok
            .iter()
            .filter(|p| p.gold.as_deref().is_some_and(|g| g.trim().is_empty()))
            .map(|p| p.id.as_str())
            .collect();
        note_pages(Some(d), &empty, "with an empty gold text, all boilerplate");
        pages.extend(ok);
    }
    if pages.is_empty() {
        let named: Vec<String> = data.iter().map(|d| d.display().to_string()).collect();
        anyhow::bail!("no annotated pages could be read from {}", named.join(", "));
    }
    // A page given twice (by two sources, or block records of one page apart) weighs double,
    // and may be in both train and test. Pages of other sites that happen to share an id (a
    // WCXB folder's `0001` and a manifest's) are not the same page.
    let mut seen = std::collections::HashSet::new();
    let mut twice = std::collections::BTreeSet::new();
    for p in &pages {
        if !seen.insert((p.id.as_str(), p.group.as_str())) {
            twice.insert(p.id.as_str());
        }
    }
    let twice: Vec<&str> = twice.into_iter().collect();
    note_pages(
        None,
        &twice,
        "named twice or more (the same page given twice, or block records of one page apart?)",
    );
    Ok((pages, skipped))
}

fn train(args: TrainArgs) -> anyhow::Result<ExitCode> {
    if args.threads > 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads)
            .build_global()
            .ok();
    }
    // The recipe's values are checked once the flags have changed some of them.
    let mut recipe = match &args.recipe {
        Some(p) => Recipe::read_toml(&std::fs::read_to_string(p).map_err(at_path(p))?)
            .map_err(at_path(p))?,
        None => Recipe::default(),
    };
    let as_written = recipe.clone();
    let m = &mut recipe.model;
    if let Some(k) = &args.kind {
        m.kind = match k.as_str() {
            "forest" => ModelKind::Forest,
            "stacked" => ModelKind::Stacked,
            "boosted" => ModelKind::Boosted,
            "tree" => {
                m.trees = 1;
                ModelKind::Tree
            }
            other => usage_error(
                "train",
                clap::error::ErrorKind::InvalidValue,
                &format!("--kind must be forest, stacked, boosted or tree, not {other}"),
            ),
        };
    }
    macro_rules! set {
        ($($flag:ident => $field:expr),*) => { $( if let Some(v) = args.$flag { $field = v; } )* };
    }
    set!(trees => recipe.model.trees, max_depth => recipe.model.max_depth,
         min_samples_leaf => recipe.model.min_samples_leaf,
         feature_fraction => recipe.model.feature_fraction,
         rows_per_tree => recipe.model.rows_per_tree, balance => recipe.model.balance,
         seed => recipe.model.seed, stages => recipe.model.stages, min_aligned => recipe.labels.min_aligned,
         clean_copies => recipe.labels.clean_copies,
         learning_rate => recipe.model.learning_rate, l2 => recipe.model.l2,
         folds => recipe.cv.folds);
    if let Some(w) = &args.weighting {
        recipe.model.weighting = toml::Value::String(w.clone())
            .try_into()
            .unwrap_or_else(|_| {
                usage_error(
                    "train",
                    clap::error::ErrorKind::InvalidValue,
                    &format!("--weighting must be block, page or words, not {w}"),
                )
            });
    }
    if let Err(e) = recipe.validate() {
        // A recipe file that holds together by itself: what is wrong is a flag's value.
        match (&args.recipe, as_written.validate()) {
            (Some(p), Err(_)) => return Err(anyhow::Error::from(e)).map_err(at_path(p)),
            _ => usage_error(
                "train",
                clap::error::ErrorKind::ValueValidation,
                &e.to_string(),
            ),
        }
    }
    // The model's date, asked for before the work (a run that writes no model needs none).
    let trained = if args.cv_only {
        String::new()
    } else {
        train::today()?
    };
    if args.cv_only && recipe.cv.folds == 0 {
        usage_error(
            "train",
            clap::error::ErrorKind::ArgumentConflict,
            "--cv-only needs cross-validation, which --folds 0 (or the recipe's cv.folds = 0) skips",
        );
    }
    if args.oof.is_some() && recipe.cv.folds == 0 {
        usage_error(
            "train",
            clap::error::ErrorKind::ArgumentConflict,
            "--oof writes the scores of cross-validation, which --folds 0 (or the recipe's \
             cv.folds = 0) skips",
        );
    }

    check_data_stdin(&args.data, "train");
    let outputs: Vec<(&str, &PathBuf)> = [
        ("--out", (!args.cv_only).then_some(&args.out)),
        ("--report", args.report.as_ref()),
        ("--oof", args.oof.as_ref()),
    ]
    .into_iter()
    .filter_map(|(flag, path)| Some((flag, path?)))
    .collect();
    // A file written would be truncated before, or after, another is read from it.
    // (Read only when there is an output to check: a data file may be large.)
    let inputs: Vec<ReadFiles> = match outputs.is_empty() {
        true => Vec::new(),
        false => args
            .data
            .iter()
            .chain(&args.recipe)
            .map(|p| ReadFiles::of(p))
            .collect(),
    };
    for (i, &(flag, path)) in outputs.iter().enumerate() {
        let at = resolved(path);
        let same = |p: &PathBuf| at.is_some() && resolved(p) == at;
        let read = |r: &&ReadFiles| at.as_deref().is_some_and(|at| r.reads(at));
        let clash = match inputs.iter().find(read).map(|r| r.input) {
            // A file of a folder, or a page that a manifest names.
            Some(input) if resolved(input) != at => Some(format!(
                "{flag} would overwrite an input: {} (in {})",
                path.display(),
                input.display()
            )),
            Some(input) => Some(format!(
                "{flag} would overwrite an input: {}",
                input.display()
            )),
            None => outputs[..i]
                .iter()
                .find(|(_, p)| same(p))
                .map(|(other, _)| {
                    format!("{other} and {flag} name the same file: {}", path.display())
                }),
        };
        if let Some(clash) = clash {
            usage_error("train", clap::error::ErrorKind::ArgumentConflict, &clash);
        }
        check_writable(path)?;
    }
    let t0 = Instant::now();
    let (pages, skipped) = load_pages(&args.data, recipe.labels.min_aligned)?;
    let blocks: usize = pages.iter().map(|p| p.labels.len()).sum();
    let oracle = train::oracle(&pages);
    report!(
        "textsift: {}, {} loaded in {:.1} s; oracle word F1 {:.4}",
        counted(pages.len(), "page"),
        counted(blocks, "block"),
        t0.elapsed().as_secs_f64(),
        oracle.overall().f1
    );
    // A gold text that the page's words hardly match: another page's, or text that the HTML
    // does not hold (filled in by a script). Lowest first.
    let mut poor: Vec<(f64, String)> = oracle
        .pages
        .iter()
        .filter(|o| o.f1 < 0.5)
        .map(|o| (o.f1, format!("{} ({:.2})", o.id, o.f1)))
        .collect();
    poor.sort_by(|a, b| a.0.total_cmp(&b.0));
    let poor: Vec<&str> = poor.iter().map(|(_, s)| s.as_str()).collect();
    note_pages(
        None,
        &poor,
        "whose gold text the blocks match poorly (oracle word F1 below 0.5; a gold text of \
         another page, or text the HTML does not hold?)",
    );
    if !pages.iter().any(|p| p.labels.contains(&true)) {
        report!(
            "textsift: warning: no block of any page is labelled content (the gold texts are \
             empty or match no block's words), so the model learns to keep nothing"
        );
    } else if !pages.iter().any(|p| p.labels.contains(&false)) {
        report!(
            "textsift: warning: no block of any page is labelled boilerplate (the gold texts \
             hold the whole pages, or every block record says content), so the model learns \
             to keep everything"
        );
    }
    // A tree splits only rows of at least twice `min_samples_leaf`: on a few pages, a fold's
    // trees may not split at all, and keep or drop every block.
    let leaf = recipe.model.min_samples_leaf;
    if blocks < 10 * leaf {
        report!(
            "textsift: note: {} for min_samples_leaf = {leaf}: trees may hardly split (lower \
             it with --min-samples-leaf, or add pages)",
            counted(blocks, "block")
        );
    }
    let load_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    // The tables on standard output are for reading: a reader that stops early (`| head`)
    // must not cost the model, so a failed write is kept and reported once the files are
    // written (a closed pipe, quietly).
    let mut stdout_failed: Option<anyhow::Error> = None;
    let mut say = |text: &str| {
        if stdout_failed.is_none() {
            stdout_failed = emit(text).err();
        }
    };
    let cv = if recipe.cv.folds >= 2 {
        // Minutes may pass: each fold says when it is done.
        let fold_done = |done: usize, folds: usize| {
            report!(
                "textsift: cross-validation: {done} of {folds} folds done ({:.0} s)",
                t1.elapsed().as_secs_f64()
            );
        };
        let cv = train::cross_validate_with(&pages, &recipe, &fold_done)?;
        say(&format!(
            "Cross-validation, {} folds {}, decoder {}: {} (the threshold decoder's best cut: \
             {:.2}):\n\n{}\n",
            cv.folds.len(),
            cv.grouping,
            train::describe_decoding(&cv.decoding),
            cv.chosen_because,
            cv.threshold,
            cv.all.markdown()
        ));
        if !cv.favored.is_empty() {
            say(&format!(
                "Favouring precision or recall (--favor):\n\n{}\n",
                train::favored_markdown(&cv.all, &cv.favored)
            ));
        }
        if let Some(path) = &args.oof {
            let mut out = BufWriter::new(std::fs::File::create(path).map_err(cannot_write(path))?);
            for (i, p) in pages.iter().enumerate() {
                let rec = serde_json::json!({
                    // Numbered from 1, as the report and the progress lines count folds.
                    "id": p.id, "page_type": p.page_type, "fold": cv.fold_of[i] + 1,
                    "texts": p.texts, "labels": p.labels, "scores": cv.scores[i],
                });
                writeln!(out, "{rec}").map_err(cannot_write(path))?;
            }
            out.flush().map_err(cannot_write(path))?;
        }
        Some(cv)
    } else {
        None
    };
    let cv_s = t1.elapsed().as_secs_f64();
    if args.cv_only {
        let code = after_skipped(&skipped, pages.len(), "cross-validated");
        return stdout_failed.map_or(Ok(code), Err);
    }
    let t2 = Instant::now();
    let data: Vec<String> = args.data.iter().map(|d| d.display().to_string()).collect();
    let model = train::train_final(&pages, &recipe, data, cv.as_ref(), trained)?;
    let final_s = t2.elapsed().as_secs_f64();
    let written = model.save(&args.out).map_err(|e| match e {
        Error::Write { path, error } => cannot_write(&path)(error),
        e => e.into(),
    })?;
    // A small model's size in kilobytes, rather than 0.00 MB.
    let size = match written {
        n if n < 100_000 => format!("{:.1} kB", n as f64 / 1e3),
        n => format!("{:.2} MB", n as f64 / 1e6),
    };
    report!(
        "textsift: wrote {} ({size}, {}) after {:.0} s",
        args.out.display(),
        counted(model.n_trees(), "tree"),
        t0.elapsed().as_secs_f64()
    );
    if let Some(path) = &args.report {
        let command = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
        let report = train::report_markdown(&train::ReportInputs {
            command: &format!("textsift {command}"),
            pages: &pages,
            skipped: &skipped,
            recipe: &recipe,
            cv: cv.as_ref(),
            model: &model,
            model_bytes: written,
            seconds: (load_s, cv_s, final_s),
            peak_rss_mb: train::peak_rss_mb(),
        });
        std::fs::write(path, report).map_err(cannot_write(path))?;
    }
    let code = after_skipped(&skipped, pages.len(), "trained");
    stdout_failed.map_or(Ok(code), Err)
}

fn eval(args: EvalArgs) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.pages {
        let at = resolved(path);
        let inputs = args.data.iter().chain(&args.model);
        if let Some(input) = inputs
            .into_iter()
            .find(|p| at.as_deref().is_some_and(|at| ReadFiles::of(p).reads(at)))
        {
            usage_error(
                "eval",
                clap::error::ErrorKind::ArgumentConflict,
                &match resolved(input) != at {
                    true => format!(
                        "--pages would overwrite an input: {} (in {})",
                        path.display(),
                        input.display()
                    ),
                    false => format!("--pages would overwrite an input: {}", path.display()),
                },
            );
        }
        check_writable(path)?;
    }
    check_threshold("eval", args.decoder, args.threshold);
    let model = load_model(args.model.as_ref())?;
    let mut decoding = model.default_decoding();
    decoding.decoder = chosen_decoder(
        decoding.decoder,
        args.decoder,
        args.threshold,
        model.info.threshold,
    );
    decoding.decoder.validate()?;
    let favor = args.favor;
    if let Err(e) = favor.check(&decoding.decoder) {
        favor_refused("eval", &e);
    }
    check_data_stdin(&args.data, "eval");
    let (mut pages, skipped) = load_pages(&args.data, args.min_aligned)?;
    // The same pages and blocks as the model's training data: scores of pages it has seen,
    // which say little of pages it has not (a first look at the embedded model on WCXB dev).
    let blocks: usize = pages.iter().map(|p| p.texts.len()).sum();
    if (pages.len(), blocks) == (model.info.pages, model.info.blocks) {
        report!(
            "textsift: note: the model was trained on these {} pages, so these scores are of \
             pages it has seen; `textsift train --cv-only` scores pages of sites left out",
            pages.len()
        );
    }
    let scores = pages
        .iter_mut()
        .map(|p| {
            model.fill_classes(&mut p.features, &p.tokens);
            model.scores(&p.features, &p.texts)
        })
        .collect::<textsift::Result<Vec<_>>>()?;
    let e = train::evaluate_favoring(&pages, &scores, &decoding, favor);
    // Which model and decoder: two runs' tables are told apart by this line.
    emit(&format!(
        "Scores of {}, decoder {}, favor {}:\n\n{}\n",
        model_name(&args.model),
        train::describe_decoding(&decoding),
        favor.name(),
        e.markdown()
    ))?;
    let oracle = train::oracle(&pages);
    if args.oracle {
        emit(&format!(
            "Oracle (derived labels):\n\n{}\n",
            oracle.markdown()
        ))?;
    }
    if let Some(path) = &args.pages {
        let mut out = BufWriter::new(std::fs::File::create(path).map_err(cannot_write(path))?);
        for (s, o) in e.pages.iter().zip(&oracle.pages) {
            let rec = PageScores {
                id: &s.id,
                page_type: s.page_type.as_deref(),
                precision: s.precision,
                recall: s.recall,
                f1: s.f1,
                oracle_f1: o.f1,
                oracle_precision: o.precision,
                oracle_recall: o.recall,
            };
            writeln!(out, "{}", textsift::output::json(&rec, false)).map_err(cannot_write(path))?;
        }
        out.flush().map_err(cannot_write(path))?;
    }
    Ok(after_skipped(&skipped, pages.len(), "scored"))
}

/// One page's scores as `eval --pages` writes them, its keys in this order.
#[derive(serde::Serialize)]
struct PageScores<'a> {
    id: &'a str,
    page_type: Option<&'a str>,
    precision: f64,
    recall: f64,
    f1: f64,
    oracle_f1: f64,
    oracle_precision: f64,
    oracle_recall: f64,
}

/// `n` and a noun, in the plural unless `n` is 1 (`1 page`, `3 pages`).
fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The exit code once pages were skipped (named as they were): 1, as for a page that failed
/// in any batch, with a closing line that says what the others were used for.
fn after_skipped(skipped: &Skipped, used: usize, what: &str) -> ExitCode {
    if skipped.is_empty() {
        return ExitCode::SUCCESS;
    }
    report!(
        "textsift: {} of {} pages skipped (named above); {what} on the other {used}",
        skipped.len(),
        skipped.len() + used
    );
    ExitCode::FAILURE
}

fn model_info(path: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let model = match load_model(path.as_ref()) {
        Ok(model) => model,
        Err(e) => {
            // A model of another feature schema cannot be used, but how it was trained is
            // what retraining it needs: shown, with the refusal.
            let Some(info) = path.as_ref().and_then(Model::stale_info) else {
                return Err(e);
            };
            let decoding = info.decoding.unwrap_or(textsift::Decoding::WITHOUT_CV);
            let kind = format!("{} (stale: not usable by this textsift)", info.kind);
            emit(&info_text(&info, &kind, &decoding))?;
            report!("textsift: {e:#}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let text = info_text(&model.info, &model.describe(), &model.default_decoding());
    emit(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// What `model-info` prints of a model's training metadata.
fn info_text(i: &textsift::model::ModelInfo, kind: &str, decoding: &textsift::Decoding) -> String {
    let mut text = format!(
        "kind: {}\ntrained: {} by textsift {} on {} ({} pages, {} blocks)\nthreshold: {}\n\
         decoder: {}\n",
        kind,
        i.date,
        i.version,
        i.data.join(", "),
        i.pages,
        i.blocks,
        i.threshold,
        train::describe_decoding(decoding),
    );
    for (k, v) in &i.cv {
        // Counts (the folds) as counts, scores to four places.
        match k.as_str() {
            "folds" => text.push_str(&format!("cv.{k}: {v}\n")),
            _ => text.push_str(&format!("cv.{k}: {v:.4}\n")),
        }
    }
    text.push_str(&format!("recipe:\n{}\n", i.recipe));
    text
}
