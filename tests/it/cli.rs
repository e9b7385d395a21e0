//! The `textsift` binary end to end: `blocks` output, inputs (files, gzip, directories, standard
//! input), bad pages in a batch, exit codes, thread-count independence and `features`.

use crate::gzip;
use flate2::write::GzEncoder;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use textsift::context::CONTEXT_SCHEMA;
use textsift::features::{N_FEATURES, SCHEMA};

/// Start the binary with piped output.
fn spawn(args: &[&str], stdin: Stdio) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_textsift"))
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

fn textsift(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = spawn(args, Stdio::piped());
    let mut input = child.stdin.take().expect("stdin is piped");
    // A command that stops early may close its input before reading it.
    let _ = input.write_all(stdin.unwrap_or_default());
    drop(input);
    child.wait_with_output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}

/// A JSON object with its keys in the order they were written.
#[derive(Debug)]
struct Ordered(Vec<(String, serde_json::Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, serde_json::Value>()? {
                    entries.push(entry);
                }
                Ok(Ordered(entries))
            }
        }
        d.deserialize_map(V)
    }
}

impl Ordered {
    fn keys(&self) -> Vec<&str> {
        self.0.iter().map(|(k, _)| k.as_str()).collect()
    }

    fn get(&self, key: &str) -> &serde_json::Value {
        &self
            .0
            .iter()
            .find(|(k, _)| k == key)
            .unwrap_or_else(|| panic!("no field {key}"))
            .1
    }
}

/// One line of `textsift blocks`, with the features in the order they were written.
#[derive(Debug, serde::Deserialize)]
struct Line {
    source: String,
    index: u64,
    tag: String,
    text: String,
    features: Ordered,
}

/// One line of `textsift blocks`.
#[derive(Debug)]
struct Record {
    source: String,
    index: u64,
    tag: String,
    text: String,
    features: Vec<(String, f64)>,
}

fn records(out: &str) -> Vec<Record> {
    out.lines()
        .map(|line| {
            let l: Line = serde_json::from_str(line).expect("a block record");
            Record {
                source: l.source,
                index: l.index,
                tag: l.tag,
                text: l.text,
                features: l
                    .features
                    .0
                    .into_iter()
                    .map(|(k, v)| (k, v.as_f64().expect("a number")))
                    .collect(),
            }
        })
        .collect()
}

/// (index, tag, text) of the records of one source.
fn summary<'a>(recs: &'a [Record], source: &str) -> Vec<(u64, &'a str, &'a str)> {
    recs.iter()
        .filter(|r| r.source == source)
        .map(|r| (r.index, r.tag.as_str(), r.text.as_str()))
        .collect()
}

const PAGE: &str = "<html><head><title>T</title></head><body>\
    <h1>Hello world</h1><p>One <a href=/>two</a> three.</p></body></html>";

#[test]
fn blocks_prints_one_record_per_block_with_the_schema_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html");
    std::fs::write(&file, PAGE).unwrap();
    let out = textsift(&["blocks", path_str(&file)], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    for line in &lines {
        let top: Ordered = serde_json::from_str(line).unwrap();
        assert_eq!(
            top.keys(),
            ["source", "index", "label", "score", "tag", "text", "schema", "features", "classes"]
        );
        // The class/id values of the block's element, body and html: none on this page.
        assert_eq!(top.get("classes"), &serde_json::json!(["", "", ""]));
        assert_eq!(
            top.get("schema").as_str(),
            Some(textsift::features::schema_id().as_str())
        );
        let label = top.get("label").as_str().unwrap();
        assert!(label == "content" || label == "boilerplate", "{label}");
        let score = top.get("score").as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score), "{score}");
    }
    let recs = records(&text);
    let names: Vec<&str> = SCHEMA.iter().map(|d| d.name).collect();
    for r in &recs {
        let keys: Vec<&str> = r.features.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, names);
        assert_eq!(r.source, path_str(&file));
    }
    assert_eq!(
        summary(&recs, path_str(&file)),
        [(0, "h1", "Hello world"), (1, "p", "One two three.")]
    );
    let value = |r: &Record, name: &str| r.features.iter().find(|(k, _)| k == name).unwrap().1;
    assert_eq!(value(&recs[0], "words"), 2.0);
    assert_eq!(value(&recs[0], "tag_h1"), 1.0);
    assert_eq!(value(&recs[1], "words"), 3.0);
    assert_eq!(value(&recs[1], "anchor_words"), 1.0);
    assert_eq!(value(&recs[1], "prev_words"), 2.0);
    // The same numbers as the library's.
    let a = textsift::analyze(PAGE.as_bytes(), Default::default()).unwrap();
    for (row, r) in recs.iter().enumerate() {
        for (i, (name, v)) in r.features.iter().enumerate() {
            let want = f64::from(a.features.row(row)[i]);
            assert!(
                (v - want).abs() <= 1e-6 * want.abs().max(1.0),
                "row {row} {name}: {v} vs {want}"
            );
        }
    }
}

#[test]
fn labels_are_carried_over_to_blocks_computed_again() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html");
    let page = "<html><body><nav><a href=/>Home</a></nav><h1>A title</h1>\
        <p>First paragraph.</p><p>Second paragraph.</p><footer>Footer</footer></body></html>";
    std::fs::write(&file, page).unwrap();
    let out = textsift(&["blocks", path_str(&file)], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A person labels every block by hand (the first paragraph as boilerplate, whatever the
    // model said), and names no schema, as a file of an older version.
    let hand: Vec<String> = stdout(&out)
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            let content = ["A title", "Second paragraph."].contains(&v["text"].as_str().unwrap());
            v["label"] = (if content { "content" } else { "boilerplate" }).into();
            v.as_object_mut().unwrap().remove("schema");
            v.to_string()
        })
        .collect();
    let earlier = dir.path().join("hand.jsonl");
    std::fs::write(&earlier, hand.join("\n")).unwrap();
    // The page has changed since: a paragraph was added between the two.
    std::fs::write(
        &file,
        page.replace("</p><p>Second", "</p><p>A new one.</p><p>Second"),
    )
    .unwrap();
    let out = textsift(
        &["blocks", "--labels", path_str(&earlier), path_str(&file)],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let labels: Vec<(String, Option<String>)> = stdout(&out)
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let label = v.get("label").and_then(|l| l.as_str()).map(str::to_string);
            (v["text"].as_str().unwrap().to_string(), label)
        })
        .collect();
    let want = |text: &str, label: Option<&str>| (text.to_string(), label.map(str::to_string));
    assert_eq!(
        labels,
        [
            want("Home", Some("boilerplate")),
            want("A title", Some("content")),
            want("First paragraph.", Some("boilerplate")),
            want("A new one.", None),
            want("Second paragraph.", Some("content")),
            want("Footer", Some("boilerplate")),
        ]
    );
    assert!(
        stderr(&out).contains("labels carried over to 5 blocks; 1 block has none (label"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("not in"), "{}", stderr(&out));
    // The same page named otherwise than when the labels were written is not found: the
    // message says so and how to name it.
    let renamed = dir.path().join("renamed.html");
    std::fs::copy(&file, &renamed).unwrap();
    let out = textsift(
        &["blocks", "--labels", path_str(&earlier), path_str(&renamed)],
        None,
    );
    // No label carried over at all: the run failed its purpose.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "textsift: labels carried over to 0 blocks; 6 blocks have none (label them by hand \
             before training); 1 page is not in {} under its source (name the inputs as they \
             were named when it was written)\n",
            path_str(&earlier)
        )
    );
    // Two runs put together, the second corrected by hand (the first paragraph is content):
    // the last copy of the page stands, and a note says the page is there twice.
    let corrected: Vec<String> = hand
        .iter()
        .map(|line| line.replace("\"boilerplate\",\"score", "\"content\",\"score"))
        .collect();
    assert_ne!(corrected, hand);
    let twice = dir.path().join("twice.jsonl");
    std::fs::write(&twice, [hand.join("\n"), corrected.join("\n")].join("\n")).unwrap();
    let out = textsift(
        &["blocks", "--labels", path_str(&twice), path_str(&file)],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out)
            .lines()
            .filter(|l| l.contains("\"text\":\"First paragraph.\""))
            .all(|l| l.contains("\"label\":\"content\"")),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).starts_with(&format!(
            "textsift: note: 1 page is twice or more in {}: the last copy's labels are used\n",
            path_str(&twice)
        )),
        "{}",
        stderr(&out)
    );
    // A misspelt field, and a file of extract's records, are refused with their line, rather
    // than read as blocks without labels.
    let misspelt = dir.path().join("misspelt.jsonl");
    std::fs::write(
        &misspelt,
        hand.join("\n").replacen("\"label\"", "\"lable\"", 1),
    )
    .unwrap();
    let extracted = dir.path().join("extracted.jsonl");
    let out = textsift(&["extract", "--format", "jsonl", path_str(&file)], None);
    std::fs::write(&extracted, stdout(&out)).unwrap();
    for (bad, why) in [
        (&misspelt, "unknown field `lable`"),
        (&extracted, "unknown field `title`"),
    ] {
        let out = textsift(
            &["blocks", "--labels", path_str(bad), path_str(&file)],
            None,
        );
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stdout(&out).is_empty());
        assert!(
            stderr(&out).starts_with(&format!(
                "textsift: bad annotation: {}:1: {why}",
                path_str(bad)
            )),
            "{}",
            stderr(&out)
        );
    }
    // A missing file of labels is an error before any page is read.
    let out = textsift(
        &[
            "blocks",
            "--labels",
            "/nonexistent/labels.jsonl",
            path_str(&file),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    assert!(stderr(&out).contains("labels.jsonl"), "{}", stderr(&out));
    // So is one whose gzip data is cut short, named with its reason.
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(hand.join("\n").as_bytes()).unwrap();
    let mut gz = gz.finish().unwrap();
    gz.truncate(gz.len() / 2);
    let cut = dir.path().join("cut.jsonl.gz");
    std::fs::write(&cut, gz).unwrap();
    let out = textsift(
        &["blocks", "--labels", path_str(&cut), path_str(&file)],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "textsift: {}: bad gzip data: truncated gzip stream\n",
            path_str(&cut)
        )
    );
}

#[test]
fn block_records_name_the_url_of_a_page_named_by_its_id() {
    let jsonl = [
        serde_json::json!({"id": "p1", "url": "https://www.news.example/a", "html": PAGE}),
        serde_json::json!({"url": "https://www.news.example/b", "html": PAGE}),
        serde_json::json!({"id": "p3", "html": PAGE}),
    ]
    .map(|r| format!("{r}\n"))
    .concat();
    let out = textsift(&["blocks", "-"], Some(jsonl.as_bytes()));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let named: Vec<(&str, Option<&str>)> = lines
        .iter()
        .map(|l| (l["source"].as_str().unwrap(), l["url"].as_str()))
        .collect();
    // The URL apart only where the source is not the URL already.
    assert_eq!(
        named,
        [
            ("p1", Some("https://www.news.example/a")),
            ("p1", Some("https://www.news.example/a")),
            ("https://www.news.example/b", None),
            ("https://www.news.example/b", None),
            ("p3", None),
            ("p3", None),
        ]
    );
    // Each names where its page's record is.
    let places: Vec<Option<&str>> = lines.iter().map(|l| l["place"].as_str()).collect();
    let at = |n: usize| Some(["-:1", "-:2", "-:3"][n]);
    assert_eq!(places, [at(0), at(0), at(1), at(1), at(2), at(2)]);
    // Labelled, the records train grouped by site: the two pages of news.example together.
    let dir = tempfile::tempdir().unwrap();
    let labelled = dir.path().join("labelled.jsonl");
    std::fs::write(&labelled, &text).unwrap();
    let (pages, _) = textsift::annotate::load(&labelled, 0.5, 1 << 20).unwrap();
    let groups: Vec<&str> = pages.iter().map(|p| p.group.as_str()).collect();
    assert_eq!(groups, ["news.example", "news.example", "p3"]);
    // Two files that each hold a page of one id: two pages, told apart by their places,
    // though the second's blocks go on from the first's index.
    let one = format!("{}\n", serde_json::json!({"id": "same", "html": PAGE}));
    let a = textsift(&["blocks", "-"], Some(one.as_bytes()));
    let b = stdout(&a).replace("\"place\":\"-:1\"", "\"place\":\"other.jsonl:1\"");
    let rest: String = b.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let head: String = stdout(&a)
        .lines()
        .take(1)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&labelled, head + &rest).unwrap();
    let (pages, _) = textsift::annotate::load(&labelled, 0.5, 1 << 20).unwrap();
    assert_eq!(pages.len(), 2);
    assert!(pages.iter().all(|p| p.id == "same"));
}

#[test]
fn gzip_is_recognised_by_its_magic_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.html");
    let gz = dir.path().join("page.html.gz");
    let disguised = dir.path().join("disguised.html");
    std::fs::write(&plain, PAGE).unwrap();
    std::fs::write(&gz, gzip(PAGE.as_bytes())).unwrap();
    std::fs::write(&disguised, gzip(PAGE.as_bytes())).unwrap();
    let out = textsift(
        &[
            "blocks",
            path_str(&plain),
            path_str(&gz),
            path_str(&disguised),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let recs = records(&stdout(&out));
    assert_eq!(recs.len(), 6);
    let want = [(0, "h1", "Hello world"), (1, "p", "One two three.")];
    for p in [&plain, &gz, &disguised] {
        assert_eq!(summary(&recs, path_str(p)), want, "{}", p.display());
    }
    for i in 0..2 {
        assert_eq!(recs[i].features, recs[i + 2].features);
        assert_eq!(recs[i].features, recs[i + 4].features);
    }
}

#[test]
fn directories_are_walked_in_sorted_order() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("b")).unwrap();
    for name in ["c.html", "b/y.html", "a.html", "b/x.html"] {
        std::fs::write(
            dir.path().join(name),
            format!("<p>Page {}</p>", name.replace('/', " ")),
        )
        .unwrap();
    }
    let root = path_str(dir.path());
    let out = textsift(&["blocks", root], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let recs = records(&stdout(&out));
    let got: Vec<(String, &str)> = recs
        .iter()
        .map(|r| (r.source[root.len() + 1..].to_string(), r.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("a.html".to_string(), "Page a.html"),
            ("b/x.html".to_string(), "Page b x.html"),
            ("b/y.html".to_string(), "Page b y.html"),
            ("c.html".to_string(), "Page c.html"),
        ]
    );
}

#[test]
fn dash_reads_standard_input() {
    let out = textsift(&["blocks", "-"], Some(PAGE.as_bytes()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let recs = records(&stdout(&out));
    assert_eq!(
        summary(&recs, "-"),
        [(0, "h1", "Hello world"), (1, "p", "One two three.")]
    );
    // Gzip on standard input too.
    let out = textsift(&["blocks", "-"], Some(&gzip(PAGE.as_bytes())));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(records(&stdout(&out)).len(), 2);
}

#[test]
fn bad_pages_are_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good1 = d.join("good1.html");
    let missing = d.join("missing.html");
    let empty = d.join("empty.html");
    let png = d.join("image.png");
    let cut = d.join("cut.html.gz");
    let good2 = d.join("good2.html");
    std::fs::write(&good1, "<p>First good page</p>").unwrap();
    std::fs::write(&empty, b"").unwrap();
    std::fs::write(
        &png,
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0",
    )
    .unwrap();
    let long: String = (0..200)
        .map(|i| format!("<p>Paragraph {i} of a page that is cut.</p>"))
        .collect();
    let whole = gzip(long.as_bytes());
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    std::fs::write(&good2, "<p>Second good page</p>").unwrap();
    let inputs = [&good1, &missing, &empty, &png, &cut, &good2];
    let mut args = vec!["blocks"];
    args.extend(inputs.iter().map(|p| path_str(p)));
    let out = textsift(&args, None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let recs = records(&stdout(&out));
    let got: Vec<(&str, &str)> = recs
        .iter()
        .map(|r| (r.source.as_str(), r.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (path_str(&good1), "First good page"),
            (path_str(&good2), "Second good page")
        ]
    );
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 5, "{err}");
    let starts = [
        format!("textsift: {}: cannot read", missing.display()),
        format!("textsift: {}: empty input", empty.display()),
        format!("textsift: {}: not an HTML page: PNG image", png.display()),
        format!("textsift: {}: bad gzip data", cut.display()),
    ];
    for (line, start) in lines.iter().zip(&starts) {
        assert!(line.starts_with(start.as_str()), "{line:?} vs {start:?}");
    }
    assert!(lines[3].contains("truncated"), "{}", lines[3]);
    assert_eq!(lines[4], "textsift: 6 pages, 2 ok, 4 failed");
}

#[test]
fn a_batch_of_good_pages_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.html");
    let b = dir.path().join("b.html.gz");
    std::fs::write(&a, PAGE).unwrap();
    std::fs::write(&b, gzip(PAGE.as_bytes())).unwrap();
    let out = textsift(&["blocks", path_str(&a), path_str(&b)], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(records(&stdout(&out)).len(), 4);
    let err = stderr(&out);
    assert!(
        !err.contains(path_str(dir.path())),
        "no page is reported: {err}"
    );
}

#[test]
fn usage_errors_exit_two() {
    // No input named is not one: the page piped in is read, as with `-`.
    let piped = textsift(&["blocks"], Some(PAGE.as_bytes()));
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    assert_eq!(
        stdout(&piped),
        stdout(&textsift(&["blocks", "-"], Some(PAGE.as_bytes())))
    );
    for args in [
        &["blocks", "--threads", "1025", "-"][..],
        &["blocks", "--no-such-flag", "-"],
        &["blocks", "--threads", "many", "-"],
        &["no-such-command"],
        &[],
        &["train", "--data", ".", "--cv-only", "--report", "r.md"],
        &["train", "--data", ".", "--cv-only", "--out", "m.tsm"],
        // Flags out of range, before any page is read.
        &["train", "--data", ".", "--trees", "0"],
        &["train", "--data", ".", "--trees", "1000000000"],
        &[
            "train",
            "--data",
            ".",
            "--rows-per-tree",
            "18446744073709551615",
        ],
        &[
            "train",
            "--data",
            ".",
            "--kind",
            "forest",
            "--rows-per-tree",
            "10000001",
        ],
        &["train", "--data", ".", "--folds", "1"],
        &["train", "--data", ".", "--folds", "0", "--cv-only"],
        &["train", "--data", ".", "--folds", "0", "--oof", "oof.jsonl"],
        &["train", "--data", ".", "--kind", "gbm"],
        &["train", "--data", ".", "--weighting", "word"],
        &["train", "--data", ".", "--stages", "9"],
        &["eval", "--data", ".", "--min-aligned", "2"],
        // Standard input read twice.
        &["train", "--data", "-", "--data", "-", "--folds", "0"],
        &["eval", "--data", "-", "--data", "-"],
        &["blocks", "--labels", "-", "-"],
        &["extract", "-", "-"],
        &["blocks", "--labels", "-"],
        &["blocks", "--labels", "-", "--files-from", "-"],
    ] {
        let out = textsift(args, Some(PAGE.as_bytes()));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
        // One line that names the help to read; no arguments at all get the help itself.
        let err = stderr(&out);
        if !args.is_empty() {
            let help = match args[0] {
                "no-such-command" => "textsift --help".to_string(),
                command => format!("textsift {command} --help"),
            };
            assert!(err.starts_with("textsift: "), "{args:?}: {err}");
            assert!(
                err.ends_with(&format!("; see '{help}'\n")),
                "{args:?}: {err}"
            );
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        }
    }
    // An argument that is not UTF-8, first or later: one line all the same.
    #[cfg(unix)]
    for args in [&[&b"\xff"[..]][..], &[b"extract", b"--url", b"\xff", b"-"]] {
        use std::os::unix::ffi::OsStrExt;
        let out = Command::new(env!("CARGO_BIN_EXE_textsift"))
            .args(args.iter().map(|a| std::ffi::OsStr::from_bytes(a)))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
    let out = textsift(&["blocks", "--threads", "many", "-"], None);
    assert_eq!(
        stderr(&out),
        "textsift: invalid value 'many' for '--threads <THREADS>': expected a number from 0 \
         (all cores) to 1024; see 'textsift blocks --help'\n"
    );
    // clap's tips in brackets, and the usage of an argument that another one needs.
    let out = textsift(&["blocks", "--labls", "x.jsonl", "-"], None);
    assert_eq!(
        stderr(&out),
        "textsift: unexpected argument '--labls' found (a similar argument exists: '--labels'); \
         see 'textsift blocks --help'\n"
    );
    let out = textsift(&["extract", "--url", "https://news.example/", "-"], None);
    assert_eq!(
        stderr(&out),
        "textsift: the following required arguments were not provided: --links (usage: \
         textsift extract --links --url <URL> <INPUT>...); see 'textsift extract --help'\n"
    );
}

#[test]
fn blocks_help_has_an_example() {
    let out = textsift(&["blocks", "--help"], None);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    assert!(help.contains("Example"), "{help}");
    assert!(help.contains("--threads"), "{help}");
    // The example's page gives the labels that the help shows.
    let page = "<title>T</title><nav><a href=/>Home</a></nav><p>Tomatoes need a sunny spot, \
                rich soil and regular watering to fruit well.</p>";
    assert!(
        help.contains(&format!("echo '{page}' | textsift blocks -")),
        "{help}"
    );
    let out = textsift(&["blocks", "-"], Some(page.as_bytes()));
    let labels: Vec<String> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["label"].to_string())
        .collect();
    assert_eq!(labels, ["\"boilerplate\"", "\"content\""]);
    assert!(
        help.contains(r#""index":0,"label":"boilerplate""#),
        "{help}"
    );
    assert!(help.contains(r#""index":1,"label":"content""#), "{help}");
}

/// Page `i` of a generated site: a menu, a heading, `i % 5 + 1` paragraphs and a footer:
/// `i % 5 + 4` blocks.
fn generated(i: usize) -> String {
    let paragraphs: String = (0..i % 5 + 1)
        .map(|p| {
            format!(
                "<p>Paragraph {p} of page {i} tells how the {} crossed the valley on day {}, \
                 with <a href=/n{p}>a note</a> and a date: 2024-0{}-1{}.</p>",
                ["river", "road", "railway", "trail"][(i + p) % 4],
                i * 7 + p,
                p % 9 + 1,
                i % 10
            )
        })
        .collect();
    format!(
        "<html><head><title>Page {i}</title></head><body>\
         <nav class=menu><a href=/>Home</a> | <a href=/about>About</a></nav>\
         <h1>Story number {i}</h1>{paragraphs}\
         <footer><p>Footer of page {i}</p></footer></body></html>"
    )
}

/// The gold main text of [`generated`] page `i`: its heading and paragraphs.
fn generated_gold(i: usize) -> String {
    let mut gold = format!("Story number {i}");
    for p in 0..i % 5 + 1 {
        gold.push_str(&format!(
            "\n\nParagraph {p} of page {i} tells how the {} crossed the valley on day {}, \
             with a note and a date: 2024-0{}-1{}.",
            ["river", "road", "railway", "trail"][(i + p) % 4],
            i * 7 + p,
            p % 9 + 1,
            i % 10
        ));
    }
    gold
}

#[test]
fn eval_says_when_it_scores_the_pages_the_model_was_trained_on() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = |name: &str, pages: std::ops::Range<usize>| {
        let lines: String = pages
            .map(|i| {
                let page = serde_json::json!({"id": format!("p{i}"), "html": generated(i),
                                              "text": generated_gold(i)});
                format!("{page}\n")
            })
            .collect();
        let path = dir.path().join(name);
        std::fs::write(&path, lines).unwrap();
        path
    };
    let all = manifest("all.jsonl", 0..12);
    let some = manifest("some.jsonl", 0..6);
    let model = dir.path().join("m.tsm");
    let trained = textsift(
        &[
            "train",
            "--data",
            path_str(&all),
            "--out",
            path_str(&model),
            "--folds",
            "0",
            "--trees",
            "20",
        ],
        None,
    );
    assert_eq!(trained.status.code(), Some(0), "{}", stderr(&trained));
    let note = "note: the model was trained on these 12 pages";
    let seen = textsift(
        &[
            "eval",
            "--model",
            path_str(&model),
            "--data",
            path_str(&all),
        ],
        None,
    );
    assert_eq!(seen.status.code(), Some(0), "{}", stderr(&seen));
    assert!(stderr(&seen).contains(note), "{}", stderr(&seen));
    assert!(
        stdout(&seen).contains("| **all** | 12 |"),
        "{}",
        stdout(&seen)
    );
    let part = textsift(
        &[
            "eval",
            "--model",
            path_str(&model),
            "--data",
            path_str(&some),
        ],
        None,
    );
    assert_eq!(part.status.code(), Some(0), "{}", stderr(&part));
    assert!(!stderr(&part).contains("note:"), "{}", stderr(&part));
    assert!(
        stdout(&part).contains("| **all** | 6 |"),
        "{}",
        stdout(&part)
    );
}

#[test]
fn output_is_the_same_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let n = 24;
    for i in 0..n {
        std::fs::write(dir.path().join(format!("p{i:02}.html")), generated(i)).unwrap();
    }
    let root = path_str(dir.path());
    let one = textsift(&["blocks", "--threads", "1", root], None);
    let two = textsift(&["blocks", "--threads", "2", root], None);
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert_eq!(two.status.code(), Some(0), "{}", stderr(&two));
    assert!(one.stdout == two.stdout, "outputs differ");
    let recs = records(&stdout(&one));
    let blocks: usize = (0..n).map(|i| i % 5 + 4).sum();
    assert_eq!(recs.len(), blocks);
    // Pages in file-name order, each page's blocks together and numbered from 0.
    let mut at = 0;
    for i in 0..n {
        let source = format!("{root}/p{i:02}.html");
        for b in 0..i % 5 + 4 {
            assert_eq!(recs[at].source, source);
            assert_eq!(recs[at].index, b as u64);
            at += 1;
        }
    }
}

#[test]
fn features_prints_the_schema_as_a_markdown_table() {
    let out = textsift(&["features"], None);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with('|')).collect();
    let n = N_FEATURES + CONTEXT_SCHEMA.len();
    assert_eq!(lines.len(), n + 4, "{text}");
    // Two tables: the features, then the second-stage columns, numbered on.
    for start in [0, N_FEATURES + 2] {
        assert_eq!(lines[start], "| # | name | range | definition |");
        assert_eq!(lines[start + 1], "|---|---|---|---|");
    }
    let rows = lines[2..N_FEATURES + 2]
        .iter()
        .chain(&lines[N_FEATURES + 4..]);
    for ((i, def), line) in SCHEMA.iter().chain(CONTEXT_SCHEMA).enumerate().zip(rows) {
        assert!(
            line.starts_with(&format!("| {i} | `{}` | {} | ", def.name, def.range)),
            "{line}"
        );
        assert!(line.ends_with(" |"), "{line}");
    }
}

#[test]
fn features_document_is_up_to_date() {
    let out = textsift(&["features"], None);
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/training/FEATURES.md"))
        .unwrap();
    let tables = |text: &str| -> String {
        text.lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    assert_eq!(tables(&doc), tables(&stdout(&out)));
}

#[test]
fn a_failed_write_is_one_line_and_exit_1() {
    // As a run whose output fills the disk: every write to /dev/full fails (Linux).
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(
        &page,
        "<title>T</title><p>A paragraph of the page's main text.</p>",
    )
    .unwrap();
    for args in [&["features"][..], &["extract", path_str(&page)][..]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let o = Command::new(env!("CARGO_BIN_EXE_textsift"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .expect("the binary runs");
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with("textsift: cannot write to standard output: No space left"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn model_info_describes_the_embedded_model_and_refuses_a_missing_file() {
    let o = textsift(&["model-info"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let info = stdout(&o);
    assert!(info.starts_with("kind: boosted: "), "{info}");
    // The recipe's folds as a count, the scores to four places, then the recipe itself.
    assert!(info.contains("\ncv.folds: 5\n"), "{info}");
    let f1 = info
        .lines()
        .find_map(|l| l.strip_prefix("cv.word_f1: "))
        .expect("a cross-validated word F1");
    assert!(
        f1.len() == 6 && f1.parse::<f64>().is_ok_and(|v| v > 0.5),
        "{f1}"
    );
    assert!(info.contains("\nrecipe:\n[model]\n"), "{info}");
    let o = textsift(&["model-info", "no-such-model.tsm"], None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with("textsift: model file no-such-model.tsm: cannot read: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_closed_output_pipe_ends_quietly() {
    // As `textsift model-info | head -0`: the reader is gone before anything is written.
    for args in [&["model-info"][..], &["features"][..]] {
        let mut child = spawn(args, Stdio::null());
        drop(child.stdout.take());
        let o = child.wait_with_output().expect("the binary runs");
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
    // A page that failed before the reader went is still said by the exit status.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("a.html");
    std::fs::write(&page, generated(1)).unwrap();
    let missing = dir.path().join("missing.html");
    for (inputs, code) in [
        (vec![path_str(&page), path_str(&page)], 0),
        (vec![path_str(&missing), path_str(&page)], 1),
    ] {
        let args = [&["extract", "--threads", "1"][..], &inputs].concat();
        let mut child = spawn(&args, Stdio::null());
        drop(child.stdout.take());
        let o = child.wait_with_output().expect("the binary runs");
        assert_eq!(o.status.code(), Some(code), "{inputs:?}: {}", stderr(&o));
    }
}

/// A page given twice is named; pages of two sites that share an id are not.
#[test]
fn train_names_a_page_given_twice_but_not_an_id_of_two_sites() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = |name: &str, site: &str| {
        let lines: String = (0..3)
            .map(|i| {
                let page = serde_json::json!({"id": format!("p{i}"), "html": generated(i),
                                              "text": generated_gold(i), "group": site});
                format!("{page}\n")
            })
            .collect();
        let path = dir.path().join(name);
        std::fs::write(&path, lines).unwrap();
        path
    };
    let (a, b) = (manifest("a.jsonl", "a"), manifest("b.jsonl", "b"));
    let model = dir.path().join("m.tsm");
    for (second, twice) in [(&b, false), (&a, true)] {
        let args = [
            "train",
            "--data",
            path_str(&a),
            "--data",
            path_str(second),
            "--folds",
            "2",
            "--trees",
            "1",
            "--out",
            path_str(&model),
        ];
        let out = textsift(&args, None);
        assert!(out.status.success(), "{}", stderr(&out));
        // Cross-validation says when each fold is done.
        let progress = stderr(&out).matches("textsift: cross-validation: ").count();
        assert_eq!(progress, 2, "{}", stderr(&out));
        assert!(stderr(&out).contains(" 2 of 2 folds done ("));
        let named = stderr(&out).contains("3 pages named twice or more");
        assert_eq!(named, twice, "{}", stderr(&out));
    }
}

#[test]
fn train_writes_its_model_though_its_output_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let lines: String = (0..8)
        .map(|i| {
            let page = serde_json::json!({"id": format!("p{i}"), "html": generated(i),
                                          "text": generated_gold(i),
                                          "url": format!("https://site{}.example/{i}", i % 4)});
            format!("{page}\n")
        })
        .collect();
    let data = dir.path().join("pages.jsonl");
    std::fs::write(&data, lines).unwrap();
    // A reader that stops at once (`| head -0`), on standard output and on standard error.
    for (folds, closed) in [("2", "stdout"), ("0", "stderr"), ("2", "both")] {
        let model = dir.path().join(format!("{closed}.tsm"));
        let args = [
            "train",
            "--data",
            path_str(&data),
            "--out",
            path_str(&model),
            "--folds",
            folds,
            "--trees",
            "5",
        ];
        let mut command = Command::new(env!("CARGO_BIN_EXE_textsift"));
        command.args(args).stdin(Stdio::null());
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if closed != "stderr" {
            drop(child.stdout.take());
        }
        if closed != "stdout" {
            drop(child.stderr.take());
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{closed}: {}", stderr(&out));
        let bytes = std::fs::read(&model).unwrap_or_default();
        assert!(
            textsift::model::Model::from_bytes(&bytes).is_ok(),
            "{closed}: no model"
        );
    }
}

#[test]
fn train_names_the_page_files_it_cannot_read_and_gold_texts_that_keep_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("pages")).unwrap();
    std::fs::write(dir.path().join("pages/a.html"), generated(1)).unwrap();
    let manifest = dir.path().join("pages.jsonl");
    let record = |id: &str, text: &str| {
        let r =
            serde_json::json!({"id": id, "html_path": format!("pages/{id}.html"), "text": text});
        format!("{r}\n")
    };
    std::fs::write(
        &manifest,
        record("a", &generated_gold(1)) + &record("b", "Gold"),
    )
    .unwrap();
    let model = dir.path().join("m.tsm");
    let train = |data: &Path| {
        textsift(
            &[
                "train",
                "--data",
                path_str(data),
                "--out",
                path_str(&model),
                "--folds",
                "0",
                "--trees",
                "3",
            ],
            None,
        )
    };
    // The missing page is named by the path tried, relative to the manifest's folder; the
    // model is trained on the other, and the exit code says a page failed.
    let out = train(&manifest);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(textsift::model::Model::from_bytes(&std::fs::read(&model).unwrap()).is_ok());
    assert!(
        stderr(&out)
            .ends_with("textsift: 1 of 2 pages skipped (named above); trained on the other 1\n"),
        "{}",
        stderr(&out)
    );
    let tried = dir.path().join("pages/b.html");
    assert!(
        stderr(&out).contains(&format!(
            "{}: page b: {}: cannot read: ",
            path_str(&manifest),
            path_str(&tried)
        )),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    // A file that is there but no page (a model named by mistake): named by its path too.
    std::fs::copy(&model, dir.path().join("pages/b.html")).unwrap();
    let out = train(&manifest);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "{}: page b: {}: not an HTML page",
            path_str(&manifest),
            path_str(&tried)
        )),
        "{}",
        stderr(&out)
    );
    // Gold texts with no block's words: a model that keeps nothing, and a line that says so.
    std::fs::write(&manifest, record("a", "")).unwrap();
    let out = train(&manifest);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warning: no block of any page is labelled content"),
        "{}",
        stderr(&out)
    );
    // A gold text that holds the whole page: a model that keeps everything.
    let whole = textsift(
        &[
            "extract",
            "--format",
            "jsonl",
            "--threshold",
            "0",
            "--decoder",
            "threshold",
            path_str(&dir.path().join("pages/a.html")),
        ],
        None,
    );
    let all: serde_json::Value = serde_json::from_str(stdout(&whole).trim()).unwrap();
    std::fs::write(&manifest, record("a", all["text"].as_str().unwrap())).unwrap();
    let out = train(&manifest);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warning: no block of any page is labelled boilerplate"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn manifests_are_read_from_standard_input_and_checked_key_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let line = |fields: serde_json::Value| format!("{fields}\n");
    let pages: String = (0..4)
        .map(|i| line(serde_json::json!({"id": format!("p{i}"), "html": generated(i), "text": generated_gold(i)})))
        .collect();
    let model = dir.path().join("m.tsm");
    let train = |data: &str| {
        let args = [
            "train",
            "--data",
            "-",
            "--out",
            path_str(&model),
            "--folds",
            "0",
            "--trees",
            "3",
        ];
        textsift(&args, Some(data.as_bytes()))
    };
    let out = train(&pages);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(textsift::model::Model::from_bytes(&std::fs::read(&model).unwrap()).is_ok());
    let per_page = dir.path().join("pages.jsonl");
    let eval = textsift(
        &[
            "eval",
            "--model",
            path_str(&model),
            "--data",
            "-",
            "--pages",
            path_str(&per_page),
        ],
        Some(pages.as_bytes()),
    );
    assert_eq!(eval.status.code(), Some(0), "{}", stderr(&eval));
    assert!(
        stdout(&eval).contains("| **all** | 4 |"),
        "{}",
        stdout(&eval)
    );
    // Each page's scores, their keys in the order the help gives.
    let written = std::fs::read_to_string(&per_page).unwrap();
    assert_eq!(written.lines().count(), 4, "{written}");
    for record in written.lines() {
        assert!(record.starts_with("{\"id\":\"p"), "{record}");
        let order: Vec<usize> = [
            "\"page_type\"",
            "\"precision\"",
            "\"recall\"",
            "\"f1\"",
            "\"oracle_f1\"",
            "\"oracle_precision\"",
            "\"oracle_recall\"",
        ]
        .iter()
        .map(|k| record.find(k).unwrap_or_else(|| panic!("{k} in {record}")))
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{record}");
    }
    // A key misspelt (`site` for `group`) and an id given twice are refused with their line.
    let misspelt =
        line(serde_json::json!({"id": "x", "html": "<p>a</p>", "text": "a", "site": "s"}));
    let out = train(&(pages.clone() + &misspelt));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("-:5: unknown field `site`, expected one of"),
        "{}",
        stderr(&out)
    );
    let again = line(serde_json::json!({"id": "p1", "html": "<p>a</p>", "text": "a"}));
    let out = train(&(pages.clone() + &again));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("-:5: id \"p1\" is also the id of line 2"),
        "{}",
        stderr(&out)
    );
    // A page given for the data is named as not JSON, the file once.
    let html = dir.path().join("page.html");
    std::fs::write(&html, generated(1)).unwrap();
    let out = textsift(&["train", "--data", path_str(&html), "--folds", "0"], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let msg = stderr(&out);
    assert!(msg.contains("page.html:1: not a JSON object;"), "{msg}");
    assert_eq!(msg.matches("page.html").count(), 1, "{msg}");
    // A record over several lines, or an array of records, is JSON but not JSON Lines.
    let record = serde_json::json!({"id": "p", "html": "<p>a</p>", "text": "a"});
    for data in [
        serde_json::to_string_pretty(&record).unwrap(),
        format!("[\n{record}\n]"),
    ] {
        let out = train(&data);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(
                "not a JSON object (JSON, not JSON Lines (one record per line): `jq -c '.[]'`"
            ),
            "{}",
            stderr(&out)
        );
    }
    // Extract's output holds no labels.
    let extracted = textsift(&["extract", "--format", "jsonl", path_str(&html)], None);
    let out = train(&stdout(&extracted));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("-:1: a page record of `textsift extract`"),
        "{}",
        stderr(&out)
    );
    // A page with an empty gold text (a misspelt key in a WCXB ground truth reads so): named.
    let empty = line(serde_json::json!({"id": "blank", "html": generated(5), "text": " "}));
    let out = train(&(pages.clone() + &empty));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("-: note: 1 page with an empty gold text, all boilerplate: blank\n"),
        "{}",
        stderr(&out)
    );
    // A gold text that is not the page's: named, with its oracle score.
    let other = line(serde_json::json!({"id": "other", "html": generated(6),
                                        "text": "Lorem ipsum dolor sit amet, consectetur."}));
    let out = train(&(pages.clone() + &other));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "note: 1 page whose gold text the blocks match poorly (oracle word \
                               F1 below 0.5; a gold text of another page, or text the HTML does \
                               not hold?): other (0.00)\n"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&train(&pages)).contains("match poorly"));
    // A page that cannot be read: the others are scored, and the exit code says one failed.
    let gone = line(serde_json::json!({"id": "gone", "html_path": "no/such.html", "text": "a"}));
    let eval = textsift(
        &["eval", "--model", path_str(&model), "--data", "-"],
        Some((pages + &gone).as_bytes()),
    );
    assert_eq!(eval.status.code(), Some(1), "{}", stderr(&eval));
    assert!(
        stdout(&eval).contains("| **all** | 4 |"),
        "{}",
        stdout(&eval)
    );
    assert!(
        stderr(&eval).ends_with("1 of 5 pages skipped (named above); scored on the other 4\n"),
        "{}",
        stderr(&eval)
    );
}

#[test]
fn a_wcxb_folder_names_its_pages_without_gold_text_or_ground_truth() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("ground-truth")).unwrap();
    std::fs::create_dir_all(root.join("html")).unwrap();
    for i in 1..=3 {
        std::fs::write(root.join(format!("html/000{i}.html")), generated(i)).unwrap();
    }
    let gt = serde_json::json!({"url": "https://a.example/1",
                                "ground_truth": {"main_content": generated_gold(1)}});
    std::fs::write(root.join("ground-truth/0001.json"), gt.to_string()).unwrap();
    // A misspelt key: read as a page with no main content, as WCXB's metric reads it.
    let gt = serde_json::json!({"url": "https://b.example/2",
                                "ground_truth": {"main_contnet": generated_gold(2)}});
    std::fs::write(root.join("ground-truth/0002.json"), gt.to_string()).unwrap();
    let model = root.join("m.tsm");
    let out = textsift(
        &[
            "train",
            "--data",
            path_str(root),
            "--out",
            path_str(&model),
            "--folds",
            "0",
            "--trees",
            "3",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let data = path_str(root);
    assert!(
        err.contains(&format!(
            "{data}: note: 1 page in html/ with no ground-truth file, not used: 0003\n"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{data}: note: 1 page with an empty gold text, all boilerplate: 0002\n"
        )),
        "{err}"
    );
    // A ground truth without its page: the page file is looked for under every ending.
    let gt = serde_json::json!({"url": "https://c.example/4",
                                "ground_truth": {"main_content": generated_gold(4)}});
    std::fs::write(root.join("ground-truth/0004.json"), gt.to_string()).unwrap();
    let out = textsift(&["eval", "--model", path_str(&model), "--data", data], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let page = root.join("html/0004.html.gz");
    assert!(
        stderr(&out).starts_with(&format!(
            "textsift: {data}: page 0004: {}: cannot read: No such file or directory (os error \
             2); no .html.zst, .html or .htm page either (skipped)\n",
            page.display()
        )),
        "{}",
        stderr(&out)
    );
}

/// Annotations of one generated page, `pages.jsonl` in `dir`.
fn one_page(dir: &std::path::Path) -> std::path::PathBuf {
    let data = dir.join("pages.jsonl");
    let page = serde_json::json!({"id": "p1", "html": generated(1), "text": generated_gold(1)});
    std::fs::write(&data, format!("{page}\n")).unwrap();
    data
}

#[test]
fn train_refuses_to_write_over_its_inputs_or_one_output_over_another() {
    let dir = tempfile::tempdir().unwrap();
    let data = one_page(dir.path());
    let recipe = dir.path().join("recipe.toml");
    std::fs::write(&recipe, "[model]\ntrees = 1\n").unwrap();
    let other = dir.path().join("out.tsm");
    let (data, recipe, other) = (path_str(&data), path_str(&recipe), path_str(&other));
    let data_again = format!("{}/./pages.jsonl", dir.path().display());
    for (args, says) in [
        (&["--out", data][..], "--out would overwrite an input"),
        (&["--out", &data_again], "--out would overwrite an input"),
        (&["--report", recipe], "--report would overwrite an input"),
        (
            &["--oof", data, "--cv-only"],
            "--oof would overwrite an input",
        ),
        (
            &["--out", other, "--report", other],
            "--out and --report name the same file",
        ),
    ] {
        let mut all = vec!["train", "--data", data, "--recipe", recipe, "--folds", "0"];
        if args.contains(&"--cv-only") {
            all.retain(|a| *a != "--folds" && *a != "0");
        }
        all.extend_from_slice(args);
        let out = textsift(&all, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(
        std::fs::read_to_string(recipe).unwrap(),
        "[model]\ntrees = 1\n"
    );
    assert!(std::fs::read_to_string(data).unwrap().contains("\"p1\""));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

/// A file of a data folder (or of a folder of links to one), the model or the data named
/// as an output would be truncated before or after it is read: refused, nothing written.
#[cfg(unix)]
#[test]
fn eval_and_train_refuse_to_write_over_the_files_they_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("d");
    std::fs::create_dir_all(root.join("ground-truth")).unwrap();
    std::fs::create_dir_all(root.join("html")).unwrap();
    std::fs::write(root.join("html/0001.html"), generated(1)).unwrap();
    let gt = serde_json::json!({"url": "https://a.example/1",
                                "ground_truth": {"main_content": generated_gold(1)}});
    std::fs::write(root.join("ground-truth/0001.json"), gt.to_string()).unwrap();
    // A folder of links to the other's subfolders.
    let links = dir.path().join("l");
    std::fs::create_dir_all(&links).unwrap();
    for sub in ["html", "ground-truth"] {
        std::os::unix::fs::symlink(root.join(sub), links.join(sub)).unwrap();
    }
    let model = dir.path().join("m.tsm");
    std::fs::write(&model, b"not read").unwrap();
    let (root_s, links_s, model_s) = (path_str(&root), path_str(&links), path_str(&model));
    let gold = root.join("ground-truth/0001.json");
    let page = root.join("html/0001.html");
    let (gold_s, page_s) = (path_str(&gold), path_str(&page));
    // A manifest that names the folder's page by `html_path`.
    let manifest = dir.path().join("pages.jsonl");
    let entry = serde_json::json!({"id": "1", "html_path": "d/html/0001.html",
                                   "text": generated_gold(1)});
    std::fs::write(&manifest, format!("{entry}\n")).unwrap();
    let manifest_s = path_str(&manifest);
    for (args, says) in [
        (
            vec![
                "train", "--data", manifest_s, "--folds", "0", "--out", page_s,
            ],
            format!("--out would overwrite an input: {page_s} (in {manifest_s})"),
        ),
        (
            vec!["eval", "--data", manifest_s, "--pages", page_s],
            format!("--pages would overwrite an input: {page_s} (in {manifest_s})"),
        ),
        (
            vec!["eval", "--data", root_s, "--pages", gold_s],
            format!("--pages would overwrite an input: {gold_s} (in {root_s})"),
        ),
        (
            vec!["eval", "--data", links_s, "--pages", page_s],
            format!("--pages would overwrite an input: {page_s} (in {links_s})"),
        ),
        (
            vec![
                "eval", "--data", root_s, "--model", model_s, "--pages", model_s,
            ],
            format!("--pages would overwrite an input: {model_s}; see"),
        ),
        (
            vec!["train", "--data", links_s, "--cv-only", "--oof", gold_s],
            format!("--oof would overwrite an input: {gold_s} (in {links_s})"),
        ),
    ] {
        let out = textsift(&args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(&says), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(std::fs::read_to_string(&gold).unwrap(), gt.to_string());
    assert_eq!(std::fs::read_to_string(&page).unwrap(), generated(1));
    assert_eq!(std::fs::read(&model).unwrap(), b"not read");
    // A new gold file would be read by the next run; a file that is no page or gold file is
    // not read, however often it is written.
    let new_gold = root.join("ground-truth/new.json");
    let out = textsift(
        &["eval", "--data", root_s, "--pages", path_str(&new_gold)],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!new_gold.exists());
    let scores = root.join("html/scores.jsonl");
    for _ in 0..2 {
        let out = textsift(
            &["eval", "--data", root_s, "--pages", path_str(&scores)],
            None,
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}

#[test]
fn eval_names_its_model_and_decoder_and_takes_the_decoders_of_extract() {
    let dir = tempfile::tempdir().unwrap();
    let data = one_page(dir.path());
    let data = path_str(&data);
    let out = textsift(&["eval", "--data", data, "--decoder", "mss"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first = stdout(&out).lines().next().unwrap_or_default().to_string();
    assert!(
        first.starts_with("Scores of the embedded model, decoder `mss threshold="),
        "{first}"
    );
    // A negative threshold is a value out of range, not an unknown flag.
    let out = textsift(&["eval", "--data", data, "--threshold", "-1"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("decoder threshold -1 is outside 0..1"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn recipe_values_are_checked_after_the_flags_change_them() {
    let dir = tempfile::tempdir().unwrap();
    let data = one_page(dir.path());
    let recipe = dir.path().join("tree.toml");
    std::fs::write(&recipe, "[model]\nkind = \"tree\"\ntrees = 300\n").unwrap();
    let model = dir.path().join("m.tsm");
    let (data, recipe, model) = (path_str(&data), path_str(&recipe), path_str(&model));
    let base = [
        "train", "--data", data, "--recipe", recipe, "--folds", "0", "--out", model,
    ];
    // The recipe alone does not hold together: its file is named, exit 1.
    let out = textsift(&base, None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!("textsift: {recipe}: invalid setting: model.kind = \"tree\" needs model.trees = 1 (got 300)\n")
    );
    // A flag mends it.
    let out = textsift(&[&base[..], &["--trees", "1"]].concat(), None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::path::Path::new(model).exists());
}

#[test]
fn a_model_date_fixed_by_source_date_epoch_is_written_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = one_page(dir.path());
    let model = dir.path().join("m.tsm");
    let (data, model) = (path_str(&data), path_str(&model));
    let train = |epoch: &str| {
        Command::new(env!("CARGO_BIN_EXE_textsift"))
            .args([
                "train", "--data", data, "--folds", "0", "--trees", "1", "--out", model,
            ])
            .env("SOURCE_DATE_EPOCH", epoch)
            .output()
            .unwrap()
    };
    // Refused before any page is read, as is a time before 1970 or after 9999.
    for bad in ["1 day", "-5", "253402300800"] {
        let out = train(bad);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            stderr(&out),
            format!(
                "textsift: invalid setting: SOURCE_DATE_EPOCH must be a Unix time in seconds from \
                 0 to 253402300799 (1970 to 9999), not {bad:?}\n"
            )
        );
        assert!(!std::path::Path::new(model).exists());
    }
    let out = train("86400");
    assert_eq!(out.status.code(), Some(0));
    // A small model's size in kilobytes; a page is one page.
    let err = stderr(&out);
    assert!(err.contains("textsift: 1 page, "), "{err}");
    assert!(err.contains(" kB, 1 tree) after "), "{err}");
    // So few blocks that the recipe's leaves are too large for them: said.
    assert!(
        err.contains("for min_samples_leaf = 20: trees may hardly split"),
        "{err}"
    );
    let info = stdout(&textsift(&["model-info", model], None));
    assert!(info.contains("trained: 1970-01-02 "), "{info}");
    // The report of a run without cross-validation says so.
    let report = dir.path().join("r.md");
    let out = textsift(
        &[
            "train",
            "--data",
            data,
            "--folds",
            "0",
            "--trees",
            "1",
            "--out",
            model,
            "--report",
            path_str(&report),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = std::fs::read_to_string(&report).unwrap();
    assert!(
        report.contains(" s loading and labelling, no cross-validation, "),
        "{report}"
    );
}

#[test]
fn files_that_cannot_be_written_are_named_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let data = one_page(dir.path());
    let missing = dir.path().join("missing/out");
    let kept = dir.path().join("kept.md");
    std::fs::write(&kept, "an earlier report").unwrap();
    let data = path_str(&data);
    let missing = path_str(&missing);
    for args in [
        &["train", "--data", data, "--out", missing][..],
        &["train", "--data", data, "--report", missing, "--folds", "0"],
        &["train", "--data", data, "--oof", missing, "--cv-only"],
        &["eval", "--data", data, "--pages", missing],
        // A report that can be written, and a model that cannot: the report is left as it is.
        &[
            "train",
            "--data",
            data,
            "--report",
            path_str(&kept),
            "--out",
            missing,
        ],
    ] {
        let out = textsift(args, None);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        // Nothing was read or trained first.
        assert_eq!(
            stderr(&out),
            format!("textsift: cannot write {missing}: No such file or directory (os error 2)\n"),
            "{args:?}"
        );
    }
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "an earlier report");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn the_readme_shows_the_library_example_that_cargo_test_builds() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let example = std::fs::read_to_string(format!("{root}/examples/library.rs")).unwrap();
    // The example's code, after its doc comment, is the README's block as it is.
    let code = example.split_once("\n\n").map(|(_, code)| code).unwrap();
    assert!(
        readme.contains(&format!("## Library\n\n```rust\n{code}```")),
        "README.md's library example differs from examples/library.rs"
    );
}
