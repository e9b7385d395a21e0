//! The `textsift` command line: a thin layer over the library.

use clap::{Args, Parser, Subcommand};
use std::io::{BufWriter, Write};
use std::process::ExitCode;
use textsift::input;
use textsift::output::{BlockRecord, FeatureValues};
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
