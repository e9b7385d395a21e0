//! Damaged and crafted model files are refused with a clear error before any prediction.

use std::process::Command;
use textsift::boost::{BoostParams, Booster};
use textsift::decode::{Decoder, Decoding};
use textsift::forest::{Forest, ForestParams};
use textsift::model::Model;
use textsift::serial::{FORMAT_VERSION, MAGIC};
use textsift::{Error, Extractor};

static SHIPPED: &[u8] = include_bytes!("../../models/default.tsm");

fn refusal(bytes: &[u8]) -> String {
    match Model::from_bytes(bytes) {
        Err(e @ Error::Model(_)) => e.to_string(),
        Err(e) => panic!("not a model error: {e}"),
        Ok(_) => panic!("a damaged model was accepted"),
    }
}

/// Put a CRC-32 that matches the rest of the file at its end.
fn fix_checksum(bytes: &mut [u8]) {
    let body = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn the_shipped_model_loads_and_predicts() {
    let ex = Extractor::with_model(Model::from_bytes(SHIPPED).unwrap());
    let e = ex
        .extract(b"<p>A paragraph with enough words to be a block of text.</p>")
        .unwrap();
    assert_eq!(e.blocks.len(), 1);
}

#[test]
fn a_model_file_named_by_a_string_extracts_as_the_embedded_model() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.tsm");
    Model::from_bytes(SHIPPED).unwrap().save(&path).unwrap();
    let name: String = path.to_str().unwrap().to_string();
    let page = b"<title>T</title><nav><a href=/>Home</a></nav><p>A paragraph with enough words \
                 to be a block of text, as a page's main text is.</p>";
    let from_file = Extractor::from_model_file(&name)
        .unwrap()
        .extract(page)
        .unwrap();
    let embedded = Extractor::new().unwrap().extract(page).unwrap();
    assert_eq!(from_file.text, embedded.text);
    assert_eq!(from_file.blocks, embedded.blocks);
    // A page held as text, or in a buffer of its own, is taken as it is.
    let as_str = std::str::from_utf8(page).unwrap();
    assert_eq!(Extractor::new().unwrap().extract(as_str).unwrap(), embedded);
    let owned: Vec<u8> = page.to_vec();
    assert_eq!(Extractor::new().unwrap().extract(owned).unwrap(), embedded);
    // A missing file cannot be read, as a page's: named in the error's path, told from a
    // refused model by its kind.
    let err = Extractor::from_model_file("no-such-model.tsm").unwrap_err();
    assert!(
        matches!(&err, textsift::Error::Io { path, .. } if path.as_os_str() == "no-such-model.tsm"),
        "{err:?}"
    );
    assert_eq!(err.kind(), "cannot_read");
    // Its cause is in the message, and not given again as its source: a report of the
    // chain (anyhow's `{:#}`) says it once.
    assert!(err.to_string().starts_with("cannot read: "), "{err}");
    assert!(std::error::Error::source(&err).is_none());
    // A file that is not a model is refused at its first bytes, however long it is.
    #[cfg(unix)]
    {
        let err = Extractor::from_model_file("/dev/zero").unwrap_err();
        assert_eq!(
            err.to_string(),
            "model refused: /dev/zero: not a textsift model file (wrong magic bytes)"
        );
    }
}

#[test]
fn one_extractor_shared_by_threads_gives_each_page_its_own_result() {
    // As a pipeline holds one extractor for all its workers: nothing of one page may leak
    // into another's result, whatever thread extracts it.
    let ex = Extractor::new().unwrap();
    let page = |i: usize| {
        format!(
            "<title>Page {i}</title><nav><a href=/>Home</a></nav><article><h2>Part {i}</h2>\
             <p>Paragraph {i} of the story, with enough words to be read as main text.</p>\
             </article>"
        )
    };
    let alone: Vec<_> = (0..16)
        .map(|i| ex.extract(page(i).as_bytes()).unwrap())
        .collect();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|t| {
                let (ex, page, alone) = (&ex, &page, &alone);
                s.spawn(move || {
                    for round in 0..8 {
                        let i = (t * 5 + round * 3) % 16;
                        let e = ex.extract(page(i).as_bytes()).unwrap();
                        assert_eq!(e.title, alone[i].title);
                        assert_eq!(e.text, alone[i].text);
                        assert_eq!(e.blocks, alone[i].blocks);
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
    });
    assert_eq!(alone[3].title, "Page 3");
    assert!(
        alone[3].text.contains("Paragraph 3 of the story"),
        "{}",
        alone[3].text
    );
}

#[test]
fn a_paragraph_said_twice_is_kept_once_when_repeats_are_dropped() {
    let para = "Hemp dress in three layers, with a side zip and one pocket on the right.";
    let page = format!(
        "<div class=summary><p>{para}</p></div><h2>Description</h2>\
         <div class=tab><p>{}</p><p>Size: S</p><p>Size: S</p></div>",
        para.to_uppercase()
    );
    let keep_all = |drop_repeats| Decoding {
        decoder: Decoder::Threshold { threshold: 0.0 },
        attach_headings: false,
        drop_repeats,
    };
    let text = |drop_repeats| {
        let ex = Extractor::with_model(Model::from_bytes(SHIPPED).unwrap())
            .decoding(keep_all(drop_repeats))
            .unwrap();
        ex.extract(page.as_bytes()).unwrap().text
    };
    // The copy in another case is the same words; the short repeated line stays twice.
    assert_eq!(
        text(true),
        format!("{para}\n\nDescription\n\nSize: S\n\nSize: S")
    );
    assert_eq!(text(false).matches("THREE LAYERS").count(), 1);
    assert_eq!(text(false).matches("Size: S").count(), 2);
}

#[test]
fn saving_over_a_model_replaces_it_whole() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.tsm");
    std::fs::write(&path, b"an earlier model").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    // A second name of the earlier file: written in place, it would change too.
    let link = dir.path().join("kept.tsm");
    std::fs::hard_link(&path, &link).unwrap();
    let model = Model::from_bytes(SHIPPED).unwrap();
    assert_eq!(model.save(&path).unwrap(), SHIPPED.len());
    assert_eq!(std::fs::read(&path).unwrap(), SHIPPED);
    assert_eq!(std::fs::read(&link).unwrap(), b"an earlier model");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    // Nothing is left beside it.
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["kept.tsm", "mine.tsm"]);
    // A new file.
    model.save(dir.path().join("new.tsm")).unwrap();
    assert_eq!(std::fs::read(dir.path().join("new.tsm")).unwrap(), SHIPPED);
    // A folder that is not there: the error names the path, and nothing is written.
    let missing = dir.path().join("no/such/mine.tsm");
    match model.save(&missing) {
        Err(Error::Write { path, .. }) => assert_eq!(path, missing),
        other => panic!("{other:?}"),
    }
    // A directory in the file's place is not replaced.
    let taken = dir.path().join("taken.tsm");
    std::fs::create_dir(&taken).unwrap();
    assert!(matches!(model.save(&taken), Err(Error::Write { .. })));
    assert!(taken.is_dir());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
}

#[test]
fn a_corrupted_byte_anywhere_is_refused() {
    let n = SHIPPED.len();
    let positions = (0..64).chain((64..n).step_by(509)).chain(n - 16..n);
    for at in positions {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = SHIPPED.to_vec();
            bad[at] ^= flip;
            let msg = refusal(&bad);
            assert!(msg.starts_with("model refused:"), "byte {at}: {msg}");
        }
    }
}

#[test]
fn a_truncated_file_is_refused() {
    let n = SHIPPED.len();
    for len in (0..64).chain((64..n).step_by(1021)).chain(n - 8..n) {
        let msg = refusal(&SHIPPED[..len]);
        assert!(
            msg.contains("truncated")
                || msg.contains("magic")
                || msg.contains("corrupt")
                || msg.contains("empty"),
            "{len} bytes: {msg}"
        );
    }
    assert!(refusal(&SHIPPED[..n - 1]).contains("truncated"));
}

#[test]
fn other_format_versions_and_feature_schemas_are_refused() {
    for version in [0, FORMAT_VERSION + 1, u32::MAX] {
        let mut other = SHIPPED.to_vec();
        other[8..12].copy_from_slice(&version.to_le_bytes());
        fix_checksum(&mut other);
        let msg = refusal(&other);
        assert!(msg.contains(&format!("format version {version}")), "{msg}");
        assert!(msg.contains("retrain"), "{msg}");
        // A newer file was written by a newer textsift, which reads it.
        assert_eq!(
            msg.contains("the newer textsift that wrote it"),
            version > FORMAT_VERSION,
            "{msg}"
        );
    }
    let mut stale = SHIPPED.to_vec();
    stale[12] ^= 0x10;
    fix_checksum(&mut stale);
    assert!(refusal(&stale).contains("stale model"));
    assert!(refusal(b"TEXTSIF").contains("truncated"));
    assert!(refusal(b"").contains("empty"));
    assert!(refusal(b"<html>not a model at all</html>").contains("magic"));
}

/// The framing of the `model_load` fuzz target: header and payload bytes of the input, with
/// this build's magic, version, schema and a valid checksum around them.
fn framed(data: &[u8]) -> Vec<u8> {
    let split = usize::from(u16::from_le_bytes([data[0], data[1]])).min(data.len() - 2);
    let (header, payload) = data[2..].split_at(split);
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&textsift::features::schema_hash().to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(header);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&[0; 4]);
    fix_checksum(&mut out);
    out
}

/// Inputs found by fuzzing: a tree reading a column the forest does not have (an index out of
/// bounds when predicting), and a string claiming exabytes (an allocation failure).
#[test]
fn crafted_files_found_by_fuzzing_are_refused() {
    for input in [
        &include_bytes!("data/fuzz-model-column-out-of-range.bin")[..],
        &include_bytes!("data/fuzz-model-huge-string-length.bin")[..],
    ] {
        // The fuzz target's first byte chose the framing.
        assert_eq!(input[0] & 1, 1);
        let msg = refusal(&framed(&input[1..]));
        assert!(msg.contains("corrupt"), "{msg}");
    }
}

/// `n` rows of 3 features; class 1 when feature 0 > 4 and feature 2 < 2.
fn toy_rows(n: u32) -> (Vec<f32>, Vec<u8>) {
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for i in 0..n {
        let (a, b, c) = ((i % 10) as f32, (i % 7) as f32, (i % 3) as f32);
        rows.extend([a, b, c]);
        labels.push(u8::from(a > 4.0 && c < 2.0));
    }
    (rows, labels)
}

fn small_forest() -> Forest {
    let (rows, labels) = toy_rows(200);
    let params = ForestParams {
        n_trees: 3,
        max_depth: 4,
        min_samples_leaf: 1,
        feature_fraction: 0.7,
        rows_per_tree: 200,
        balance: false,
        seed: 1,
        ..ForestParams::default()
    };
    Forest::fit(&rows, 3, &labels, None, &params).unwrap()
}

/// A forest whose structure was tampered with (the checksum is easy to recompute) is refused
/// by its check, so that prediction never indexes out of bounds or loops.
#[test]
fn tampered_forests_fail_their_check() {
    let good = serde_json::to_value(small_forest()).unwrap();
    let load = |v: &serde_json::Value| serde_json::from_value::<Forest>(v.clone()).unwrap();
    load(&good).check().unwrap();
    let nodes = good["members"][0]["tree"]["nodes"].as_array().unwrap();
    assert!(nodes.len() > 2, "the test tree must split");
    let leaf = nodes.iter().position(|n| n["column"] == u32::MAX).unwrap();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let edits: Vec<(&str, Edit)> = vec![
        (
            "column",
            Box::new(|v| v["members"][0]["columns"][0] = 99.into()),
        ),
        (
            "split column",
            Box::new(|v| v["members"][1]["tree"]["nodes"][0]["column"] = 40.into()),
        ),
        (
            "cycle",
            Box::new(|v| v["members"][0]["tree"]["nodes"][0]["left"] = 0.into()),
        ),
        (
            "child out of range",
            Box::new(|v| v["members"][0]["tree"]["nodes"][0]["right"] = 10_000.into()),
        ),
        (
            "vote",
            Box::new(move |v| v["members"][0]["tree"]["nodes"][leaf]["left"] = 5.into()),
        ),
        (
            "no nodes",
            Box::new(|v| v["members"][0]["tree"]["nodes"] = serde_json::json!([])),
        ),
        ("constant", Box::new(|v| v["constant"] = 3.5.into())),
    ];
    for (what, edit) in edits {
        let mut bad = good.clone();
        edit(&mut bad);
        assert!(load(&bad).check().is_err(), "{what} was not caught");
    }
}

/// A booster whose trees were tampered with is refused by its check, which a file's loading
/// always makes (it is what keeps prediction in bounds).
#[test]
fn tampered_boosters_fail_their_check() {
    let (rows, labels) = toy_rows(300);
    let params = BoostParams {
        n_trees: 4,
        max_depth: 4,
        min_samples_leaf: 2,
        feature_fraction: 1.0,
        rows_per_tree: 300,
        learning_rate: 0.3,
        l2: 1.0,
        seed: 1,
    };
    let booster = Booster::fit(&rows, 3, &labels, None, &params).unwrap();
    let good = serde_json::to_value(&booster).unwrap();
    let load = |v: &serde_json::Value| serde_json::from_value::<Booster>(v.clone()).unwrap();
    load(&good).check().unwrap();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let edits: Vec<(&str, Edit)> = vec![
        (
            "column",
            Box::new(|v| v["trees"][0]["nodes"][0][0] = 3.into()),
        ),
        ("depth", Box::new(|v| v["trees"][1]["depth"] = 4.into())),
        (
            "missing leaf",
            Box::new(|v| {
                v["trees"][0]["values"].as_array_mut().unwrap().pop();
            }),
        ),
        ("base", Box::new(|v| v["base"] = serde_json::Value::Null)),
    ];
    for (what, edit) in edits {
        let mut bad = good.clone();
        edit(&mut bad);
        let caught = serde_json::from_value::<Booster>(bad).map_or(true, |b| b.check().is_err());
        assert!(caught, "{what} was not caught");
    }
}

/// The command line refuses a damaged model before reading any page: one line, no output.
#[test]
fn the_cli_refuses_a_damaged_model_before_any_page() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("damaged.tsm");
    let mut bad = SHIPPED.to_vec();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x04;
    std::fs::write(&model, &bad).unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<p>Some text of a page that is never read.</p>").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_textsift"))
        .args(["extract", "--model"])
        .arg(&model)
        .arg(&page)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("textsift: model refused:") && err.contains("checksum"),
        "{err}"
    );
}

/// A model of another feature schema cannot be used, but model-info shows how it was
/// trained, to train it again: its recipe on stdout, the refusal on stderr, exit 1.
#[test]
fn model_info_shows_how_a_stale_model_was_trained() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("stale.tsm");
    let mut stale = SHIPPED.to_vec();
    stale[12] ^= 0x10;
    fix_checksum(&mut stale);
    std::fs::write(&model, &stale).unwrap();
    let info = |path: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_textsift"))
            .arg("model-info")
            .arg(path)
            .output()
            .unwrap()
    };
    let out = info(&model);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("kind: boosted (stale: "), "{text}");
    assert!(text.contains("\nrecipe:\n"), "{text}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("stale model"), "{err}");
    // A file refused for another reason shows nothing.
    let mut broken = stale.clone();
    let mid = broken.len() / 2;
    broken[mid] ^= 0x04;
    std::fs::write(&model, &broken).unwrap();
    let out = info(&model);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

#[test]
fn an_extractor_shows_a_summary_of_its_model_not_its_trees() {
    let shown = format!("{:?}", Extractor::new().unwrap());
    assert!(shown.len() < 4000, "{} bytes", shown.len());
    let described = Model::embedded().unwrap().describe();
    assert!(shown.contains(&described), "{shown}");
    // The types an extractor's settings and results name are at the crate's root.
    let _: (textsift::Decoding, textsift::Limits, textsift::Label) = (
        Decoding::WITHOUT_CV,
        textsift::Limits::default(),
        textsift::Label::Content,
    );
}
