//! The `textsift` command line: a thin layer over the library.

use clap::{Args, Parser, Subcommand};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use textsift::annotate::LabeledPage;
use textsift::input;
use textsift::model::{Model, ModelKind};
use textsift::output::{BlockRecord, FeatureValues};
use textsift::train::{self, Recipe};
use textsift::{Error, SegmentLimits};

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
    /// Cut pages into text blocks and print each block with its features, as JSON Lines.
    #[command(after_help = BLOCKS_EXAMPLE)]
    Blocks(BlocksArgs),
    /// Print the feature schema as a Markdown table.
    Features,
    /// Train a model from annotated pages, with domain-grouped cross-validation.
    #[command(after_help = TRAIN_EXAMPLE)]
    Train(TrainArgs),
    /// Score a model on annotated pages (word and block precision, recall, F1).
    Eval(EvalArgs),
    /// Show a model file's metadata.
    ModelInfo {
        /// The model file (default: the embedded model).
        model: Option<PathBuf>,
    },
}

const TRAIN_EXAMPLE: &str = r#"Annotations (--data, repeatable):
  DIR           a WCXB-style folder: DIR/html/ID.html[.gz] and DIR/ground-truth/ID.json
  FILE.jsonl    pages with gold text: {"id", "html" or "html_path", "text", "url"?, "page_type"?}
  FILE.jsonl    or `textsift blocks` output with a "label" on every block (content/boilerplate)

Example:
  $ textsift train --data ../shared/data/wcxb/dev --recipe training/recipe.toml \
        --out models/default.tsm --report training/REPORT.md"#;

#[derive(Args)]
struct TrainArgs {
    /// Annotated data (folder or JSON Lines); repeat for several.
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
    /// Cross-validation folds grouped by domain (0: none).
    #[arg(long)]
    folds: Option<usize>,
    /// `forest` or `tree`.
    #[arg(long)]
    kind: Option<String>,
    /// Trees in the forest.
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
    /// Rows sampled per tree.
    #[arg(long)]
    rows_per_tree: Option<usize>,
    /// Sample both classes equally.
    #[arg(long)]
    balance: Option<bool>,
    /// Random seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Share of a block's words that must align with the gold text for it to be content.
    #[arg(long)]
    min_aligned: Option<f32>,
    /// Cross-validate only; do not train or write the final model.
    #[arg(long)]
    cv_only: bool,
    /// Worker threads (0: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

#[derive(Args)]
struct EvalArgs {
    /// Annotated data (folder or JSON Lines); repeat for several.
    #[arg(long, required = true)]
    data: Vec<PathBuf>,
    /// Model file (default: the embedded model).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Score threshold (default: the model's own).
    #[arg(long)]
    threshold: Option<f32>,
    /// Share of aligned words that makes a block content in the derived labels.
    #[arg(long, default_value_t = 0.5)]
    min_aligned: f32,
    /// Also print the oracle (the derived labels' own scores).
    #[arg(long)]
    oracle: bool,
    /// Write per-page scores as JSON Lines here.
    #[arg(long)]
    pages: Option<PathBuf>,
}

const BLOCKS_EXAMPLE: &str = r#"Example:
  $ echo '<title>T</title><nav><a href=/>Home</a></nav><p>Some text.</p>' | textsift blocks -
  {"source":"-","index":0,"tag":"nav","text":"Home","features":{"words":1.0,"anchor_words":1.0,...}}
  {"source":"-","index":1,"tag":"p","text":"Some text.","features":{"words":2.0,...}}

Inputs are files (.html, .htm, or gzip, recognised by content), directories (walked in sorted
order) or - for standard input. A page that cannot be read is reported on stderr and skipped;
the exit code is 1 when any page failed, 2 on a usage error."#;

#[derive(Args)]
struct InputArgs {
    /// Files, directories or - (standard input).
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<String>,
    /// Worker threads (0: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Largest page accepted, in bytes after decompression.
    #[arg(long, default_value_t = input::DEFAULT_MAX_BYTES)]
    max_bytes: u64,
}

#[derive(Args)]
struct BlocksArgs {
    #[command(flatten)]
    input: InputArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Blocks(args) => blocks(args),
        Command::Features => {
            print!("{}", textsift::features::schema_markdown());
            Ok(ExitCode::SUCCESS)
        }
        Command::Train(args) => train(args),
        Command::Eval(args) => eval(args),
        Command::ModelInfo { model } => model_info(model),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("textsift: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Counts of a batch, reported at the end.
#[derive(Default)]
struct Tally {
    pages: usize,
    failed: usize,
}

impl Tally {
    fn report(&mut self, source: &str, e: &Error) {
        self.failed += 1;
        eprintln!("textsift: {source}: {e}");
    }

    fn finish(self) -> ExitCode {
        if self.pages > 1 || self.failed > 0 {
            eprintln!(
                "textsift: {} pages, {} ok, {} failed",
                self.pages,
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

fn blocks(args: BlocksArgs) -> anyhow::Result<ExitCode> {
    let items = input::expand(&args.input.inputs);
    let max_bytes = args.input.max_bytes;
    let out = std::io::stdout().lock();
    let mut out = BufWriter::new(out);
    let mut tally = Tally::default();
    textsift::batch::run_ordered(
        items,
        args.input.threads,
        |(source, path)| {
            let result = input::read(path.as_deref(), max_bytes)
                .and_then(|bytes| textsift::analyze(&bytes, SegmentLimits::default()))
                .map(|a| {
                    let mut lines = String::new();
                    for (i, b) in a.page.blocks.iter().enumerate() {
                        let rec = BlockRecord {
                            source: source.clone(),
                            index: b.index,
                            label: None,
                            score: None,
                            tag: a.page.tag_of(b).to_string(),
                            text: b.text.clone(),
                            features: FeatureValues(a.features.row(i).to_vec()),
                        };
                        lines.push_str(&serde_json::to_string(&rec).unwrap_or_default());
                        lines.push('\n');
                    }
                    lines
                });
            (source, result)
        },
        |(source, result)| -> anyhow::Result<()> {
            tally.pages += 1;
            match result {
                Ok(lines) => out.write_all(lines.as_bytes())?,
                Err(e) => tally.report(&source, &e),
            }
            Ok(())
        },
    )?;
    out.flush()?;
    Ok(tally.finish())
}

fn load_model(path: Option<&PathBuf>) -> textsift::Result<Model> {
    match path {
        Some(p) => Model::load(p),
        None => Model::embedded(),
    }
}

/// Pages that could not be read: (id, reason).
type Skipped = Vec<(String, String)>;

/// Load and label all annotated data; pages that fail are reported and skipped.
fn load_pages(data: &[PathBuf], min_aligned: f32) -> anyhow::Result<(Vec<LabeledPage>, Skipped)> {
    let mut pages = Vec::new();
    let mut skipped = Vec::new();
    for d in data {
        let (ok, bad) = textsift::annotate::load(d, min_aligned, input::DEFAULT_MAX_BYTES)
            .map_err(|e| anyhow::anyhow!("{}: {e}", d.display()))?;
        for (id, e) in bad {
            eprintln!("textsift: {}: page {id}: {e} (skipped)", d.display());
            skipped.push((id, e.to_string()));
        }
        pages.extend(ok);
    }
    if pages.is_empty() {
        anyhow::bail!("no annotated pages could be read");
    }
    Ok((pages, skipped))
}

fn train(args: TrainArgs) -> anyhow::Result<ExitCode> {
    if args.threads > 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads)
            .build_global()
            .ok();
    }
    let mut recipe = match &args.recipe {
        Some(p) => Recipe::from_toml(
            &std::fs::read_to_string(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?,
        )
        .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?,
        None => Recipe::default(),
    };
    let m = &mut recipe.model;
    if let Some(k) = &args.kind {
        m.kind = match k.as_str() {
            "forest" => ModelKind::Forest,
            "tree" => {
                m.trees = 1;
                ModelKind::Tree
            }
            other => anyhow::bail!("--kind must be forest or tree, not {other}"),
        };
    }
    macro_rules! set {
        ($($flag:ident => $field:expr),*) => { $( if let Some(v) = args.$flag { $field = v; } )* };
    }
    set!(trees => recipe.model.trees, max_depth => recipe.model.max_depth,
         min_samples_leaf => recipe.model.min_samples_leaf,
         feature_fraction => recipe.model.feature_fraction,
         rows_per_tree => recipe.model.rows_per_tree, balance => recipe.model.balance,
         seed => recipe.model.seed, min_aligned => recipe.labels.min_aligned,
         folds => recipe.cv.folds);
    recipe.validate()?;

    let t0 = Instant::now();
    let (pages, skipped) = load_pages(&args.data, recipe.labels.min_aligned)?;
    let blocks: usize = pages.iter().map(|p| p.labels.len()).sum();
    let oracle = train::oracle(&pages);
    eprintln!(
        "textsift: {} pages, {} blocks loaded in {:.1} s; oracle word F1 {:.4}",
        pages.len(),
        blocks,
        t0.elapsed().as_secs_f64(),
        oracle.overall().f1
    );
    let load_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let cv = if recipe.cv.folds >= 2 {
        let cv = train::cross_validate(&pages, &recipe)?;
        println!(
            "Cross-validation, {} folds grouped by domain, threshold {:.2}:\n",
            recipe.cv.folds, cv.threshold
        );
        println!("{}", cv.all.markdown());
        Some(cv)
    } else {
        None
    };
    let cv_s = t1.elapsed().as_secs_f64();
    if args.cv_only {
        return Ok(ExitCode::SUCCESS);
    }
    let t2 = Instant::now();
    let data: Vec<String> = args.data.iter().map(|d| d.display().to_string()).collect();
    let model = train::train_final(&pages, &recipe, data, cv.as_ref(), train::today())?;
    let final_s = t2.elapsed().as_secs_f64();
    let bytes = model.to_bytes()?;
    std::fs::write(&args.out, &bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.out.display()))?;
    eprintln!(
        "textsift: wrote {} ({:.2} MB, {} trees) after {:.0} s",
        args.out.display(),
        bytes.len() as f64 / 1e6,
        model.n_trees(),
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
            model_bytes: bytes.len(),
            seconds: (load_s, cv_s, final_s),
            peak_rss_mb: train::peak_rss_mb(),
        });
        std::fs::write(path, report).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn eval(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let model = load_model(args.model.as_ref())?;
    let threshold = args.threshold.unwrap_or(model.info.threshold);
    let decoder = textsift::decode::Decoder::Threshold { threshold };
    decoder.validate()?;
    let (pages, _) = load_pages(&args.data, args.min_aligned)?;
    let mut predicted = Vec::with_capacity(pages.len());
    for p in &pages {
        predicted.push(decoder.decode(&model.scores(&p.features)?));
    }
    let e = train::evaluate(&pages, &predicted);
    println!("{}", e.markdown());
    let oracle = train::oracle(&pages);
    if args.oracle {
        println!("Oracle (derived labels):\n\n{}", oracle.markdown());
    }
    if let Some(path) = &args.pages {
        let mut out = BufWriter::new(
            std::fs::File::create(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
        );
        for (s, o) in e.pages.iter().zip(&oracle.pages) {
            let rec = serde_json::json!({
                "id": s.id, "page_type": s.page_type, "precision": s.precision,
                "recall": s.recall, "f1": s.f1, "oracle_f1": o.f1,
                "oracle_precision": o.precision, "oracle_recall": o.recall,
            });
            writeln!(out, "{rec}")?;
        }
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

fn model_info(path: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let model = load_model(path.as_ref())?;
    let i = &model.info;
    println!("kind: {} ({} trees)", i.kind, model.n_trees());
    println!(
        "trained: {} by textsift {} on {} ({} pages, {} blocks)",
        i.date,
        i.version,
        i.data.join(", "),
        i.pages,
        i.blocks
    );
    println!("threshold: {}", i.threshold);
    for (k, v) in &i.cv {
        println!("cv.{k}: {v:.4}");
    }
    println!("recipe:\n{}", i.recipe);
    Ok(ExitCode::SUCCESS)
}
