//! Training end to end on small hand-written annotated pages: annotations in, a model file out,
//! read back and refused when damaged.

use std::io::Write;
use textsift::annotate;
use textsift::model::Model;
use textsift::output::{BlockRecord, FeatureValues, Label};
use textsift::train::{self, Recipe};

const TOPICS: [&str; 6] = [
    "river", "harbour", "orchard", "glacier", "market", "library",
];

/// A page with a menu, an article of `paras` paragraphs, related links and a footer, and its
/// gold main text.
fn page(site: usize, n: usize) -> (String, String) {
    let topic = TOPICS[(site + n) % TOPICS.len()];
    let mut body = Vec::new();
    for p in 0..(3 + n % 3) {
        body.push(format!(
            "The {topic} survey number {n} found that paragraph {p} of this report describes how \
             the {topic} changed over the seasons, with careful notes from the local team."
        ));
    }
    let html = format!(
        "<html><head><title>{topic} report {n}</title></head><body>\
         <nav class='menu'><ul><li><a href=/>Home</a></li><li><a href=/news>News</a></li>\
         <li><a href=/about>About us</a></li></ul></nav>\
         <article><h1>The {topic} report {n}</h1>{}</article>\
         <aside class='related'><a href=/x>More about {topic}</a> | <a href=/y>Popular stories</a></aside>\
         <footer>Copyright site{site}. All rights reserved. <a href=/privacy>Privacy</a></footer>\
         </body></html>",
        body.iter().map(|b| format!("<p>{b}</p>")).collect::<String>()
    );
    let gold = format!("The {topic} report {n}\n\n{}", body.join("\n\n"));
    (html, gold)
}

fn manifest(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("pages.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    for site in 0..6 {
        for n in 0..4 {
            let (html, gold) = page(site, n);
            let rec = serde_json::json!({
                "id": format!("s{site}p{n}"), "html": html, "text": gold,
                "url": format!("https://www.site{site}.example/page{n}"),
                "page_type": "article",
            });
            writeln!(f, "{rec}").unwrap();
        }
    }
    path
}

fn small_recipe() -> Recipe {
    let mut r = Recipe::default();
    r.model.kind = textsift::model::ModelKind::Forest;
    r.model.trees = 5;
    r.model.rows_per_tree = 500;
    r.model.max_depth = 6;
    r.cv.folds = 3;
    r
}

#[test]
fn pages_of_fewer_sites_than_folds_are_still_cross_validated() {
    let dir = tempfile::tempdir().unwrap();
    let (mut pages, _) = annotate::load(&manifest(dir.path()), 0.5, 1 << 20).unwrap();
    let recipe = small_recipe();
    // The (fold, site) pairs of a cross-validation: one per fold when each holds one site.
    let folds_of = |cv: &train::CrossValidation, pages: &[annotate::LabeledPage]| {
        let mut seen: Vec<(usize, String)> = cv
            .fold_of
            .iter()
            .zip(pages)
            .map(|(&f, p)| (f, p.group.clone()))
            .collect();
        seen.sort();
        seen.dedup();
        seen
    };
    // Two sites, three folds asked for: one site to a fold.
    for p in &mut pages {
        p.group = if p.group.as_str() < "site3" { "a" } else { "b" }.into();
    }
    let cv = train::cross_validate(&pages, &recipe).unwrap();
    assert_eq!(cv.folds.len(), 2);
    assert_eq!(
        folds_of(&cv, &pages).len(),
        2,
        "{:?}",
        folds_of(&cv, &pages)
    );
    assert!(cv.grouping.contains("one site each"), "{}", cv.grouping);
    // One site (a person's own annotations): pages are grouped alone, and the report says so.
    for p in &mut pages {
        p.group = "mysite.example".into();
    }
    let cv = train::cross_validate(&pages, &recipe).unwrap();
    assert_eq!(cv.folds.len(), 3);
    assert!(cv.folds.iter().all(|f| f.pages.len() == 8));
    assert!(
        cv.grouping.starts_with("grouped by page"),
        "{}",
        cv.grouping
    );
    assert!(cv.all.overall().f1 > 0.9, "{}", cv.all.markdown());
    // Pages that name no site (block records of page files, a manifest without `url`): each
    // is a group of its own, and the report does not claim sites kept apart.
    let mut unsited = pages.clone();
    for (i, p) in unsited.iter_mut().enumerate() {
        p.group = if i == 0 {
            p.id.clone()
        } else {
            format!("site{}", i % 4)
        };
    }
    let cv = train::cross_validate(&unsited, &recipe).unwrap();
    assert!(
        cv.grouping.contains("1 of the 24 pages name no site"),
        "{}",
        cv.grouping
    );
    // The same with fewer sites than folds: said too.
    for (i, p) in unsited.iter_mut().enumerate().skip(1) {
        p.group = format!("site{}", i % 2);
    }
    let mut five = recipe.clone();
    five.cv.folds = 5;
    let cv = train::cross_validate(&unsited, &five).unwrap();
    assert_eq!(cv.folds.len(), 3);
    assert!(
        cv.grouping
            .starts_with("of one group each (only 3 groups: 2 sites, and 1 of the 24 pages, which"),
        "{}",
        cv.grouping
    );
    for p in &mut unsited {
        p.group = p.id.clone();
    }
    let cv = train::cross_validate(&unsited, &recipe).unwrap();
    assert!(cv.grouping.starts_with("page by page"), "{}", cv.grouping);
    assert_eq!(cv.folds.len(), 3);
    // The site's own class names are learned, its pages standing for the sites that a token
    // must be found on (its menu, its related links).
    let model = train::train_final(&pages, &recipe, vec![], Some(&cv), "2026-01-01".into());
    let described = model.unwrap().describe();
    assert!(described.contains("learned class/id tokens"), "{described}");
    // One page cannot be cross-validated: the error says how to train on it.
    let err = train::cross_validate(&pages[..1], &recipe).unwrap_err();
    assert!(err.to_string().contains("--folds 0"), "{err}");
}

#[test]
fn gold_text_annotations_train_a_model_that_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let (pages, bad) = annotate::load(&manifest(dir.path()), 0.5, 1 << 20).unwrap();
    // A share of aligned words out of (0, 1] is refused, not read as "nothing is content".
    for share in [0.0, 7.0, f32::NAN] {
        let err = annotate::load(&manifest(dir.path()), share, 1 << 20).unwrap_err();
        assert_eq!(err.kind(), "invalid_setting", "{err}");
    }
    assert!(bad.is_empty());
    assert_eq!(pages.len(), 24);
    // The same file compressed, as corpora are kept, gives the same pages.
    let plain = std::fs::read(manifest(dir.path())).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).unwrap();
    let packed = [
        ("pages.jsonl.gz", gz.finish().unwrap()),
        ("pages.jsonl.zst", zstd::encode_all(&plain[..], 3).unwrap()),
    ];
    for (name, bytes) in &packed {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let (again, bad) = annotate::load(&path, 0.5, 1 << 20).unwrap();
        assert!(bad.is_empty(), "{name}");
        let summary = |p: &annotate::LabeledPage| (p.id.clone(), p.group.clone(), p.labels.clone());
        assert!(
            again.iter().map(summary).eq(pages.iter().map(summary)),
            "{name}"
        );
        // Cut short: the decompression's error, not a line of the file.
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let err = annotate::load(&path, 0.5, 1 << 20).unwrap_err().to_string();
        assert!(
            err.starts_with("bad ") && err.contains("truncated"),
            "{err}"
        );
    }
    // A plain file whose bytes are not UTF-8 is not taken for a broken gzip file.
    let latin1 = dir.path().join("latin1.jsonl");
    std::fs::write(&latin1, b"{\"id\": \"caf\xe9\"}\n").unwrap();
    let err = annotate::load(&latin1, 0.5, 1 << 20).unwrap_err();
    assert_eq!(err.kind(), "bad_annotation", "{err}");
    assert!(
        err.to_string().ends_with(
            "latin1.jsonl:1: not UTF-8 text (byte 12 of the line), as JSON Lines must be"
        ),
        "{err}"
    );
    // Groups come from the URL's domain, so folds never split a site.
    assert_eq!(pages[0].group, "site0.example");
    // The derived labels select exactly the article: the oracle is perfect on these pages.
    let oracle = train::oracle(&pages);
    assert!(oracle.overall().f1 > 0.999, "{}", oracle.overall().f1);

    let recipe = small_recipe();
    let cv = train::cross_validate(&pages, &recipe).unwrap();
    assert_eq!(cv.folds.len(), 3);
    assert!(cv.all.overall().f1 > 0.9, "{}", cv.all.markdown());
    let model = train::train_final(
        &pages,
        &recipe,
        vec!["t".into()],
        Some(&cv),
        "2026-01-01".into(),
    )
    .unwrap();
    assert_eq!(model.n_trees(), 5);
    assert!(model.info.cv.iter().any(|(k, _)| k == "word_f1"));

    let file = dir.path().join("m.tsm");
    model.save(&file).unwrap();
    // A place that cannot be written is named as such, not as a file that cannot be read.
    let nowhere = dir.path().join("no-such-dir").join("m.tsm");
    let err = model.save(&nowhere).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("cannot write {}", nowhere.display())),
        "{err}"
    );
    let back = Model::load(&file).unwrap();
    assert_eq!(back.info, model.info);
    assert!(back.info.decoding.is_some());
    for p in &pages {
        assert_eq!(
            back.scores(&p.features, &p.texts).unwrap(),
            model.scores(&p.features, &p.texts).unwrap()
        );
    }

    // Same data and recipe: the same model, byte for byte.
    let again = train::train_final(
        &pages,
        &recipe,
        vec!["t".into()],
        Some(&cv),
        "2026-01-01".into(),
    )
    .unwrap();
    assert_eq!(again.to_bytes().unwrap(), model.to_bytes().unwrap());

    // Damaged files are refused with a clear error, never a panic.
    let bytes = std::fs::read(&file).unwrap();
    for at in [0, 9, 15, 30, bytes.len() / 2, bytes.len() - 1] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        let err = Model::from_bytes(&bad).unwrap_err().to_string();
        assert!(err.starts_with("model refused"), "{err}");
    }
    let err = Model::from_bytes(&bytes[..bytes.len() / 3])
        .unwrap_err()
        .to_string();
    assert!(err.contains("truncated"), "{err}");
    let err = Model::load(dir.path().join("missing.tsm"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn hand_corrected_block_labels_train_a_model() {
    let (html, _) = page(1, 1);
    let a = textsift::analyze(html.as_bytes(), Default::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blocks.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    // Copies 3 and 4: one URI fetched twice in a crawl, each fetch a record of its own;
    // copy 5: a JSON Lines record named by its id, with its URL apart; copies 6 and 7: two
    // records of a JSON Lines input given one id, each a page of its own.
    for copy in 0..8 {
        for (i, b) in a.page.blocks.iter().enumerate() {
            let rec = BlockRecord {
                source: match copy {
                    0 | 1 => format!("https://www.example.com/story{copy}"),
                    2 | 5 => format!("page{copy}.html"),
                    6 | 7 => "twice".into(),
                    _ => "https://www.example.com/again".into(),
                },
                place: None,
                warc_record_id: matches!(copy, 3 | 4).then(|| format!("<urn:uuid:{copy}>")),
                warc_date: None,
                url: (copy == 5).then(|| "https://news.example.org/page5".into()),
                // Set by hand, the group wins over the site of the source.
                group: (copy == 1).then(|| "hand".into()),
                index: i,
                // A person marked the paragraphs and the heading as content.
                label: Some(Label::from_bool(matches!(a.page.tag_of(b), "p" | "h1"))),
                score: None,
                tag: a.page.tag_of(b).to_string(),
                text: b.text.clone(),
                schema: Some(textsift::features::schema_id()),
                features: FeatureValues(a.features.row(i).to_vec()),
                classes: textsift::classes::class_values(&a.page, b),
            };
            writeln!(f, "{}", serde_json::to_string(&rec).unwrap()).unwrap();
        }
    }
    drop(f);
    let (pages, _) = annotate::load(&path, 0.5, 1 << 20).unwrap();
    assert_eq!(pages.len(), 8);
    assert!(pages.iter().all(|p| p.labels.len() == a.page.blocks.len()));
    // The blocks labelled content are the gold text, so that word scores can be measured.
    let kept: Vec<&str> = a
        .page
        .blocks
        .iter()
        .filter(|b| matches!(a.page.tag_of(b), "p" | "h1"))
        .map(|b| b.text.as_str())
        .collect();
    assert!(kept.len() >= 2);
    assert!(pages
        .iter()
        .all(|p| p.gold.as_deref() == Some(kept.join("\n").as_str())));
    // Pages from the web are grouped by site for cross-validation; others stand alone.
    let groups: Vec<&str> = pages.iter().map(|p| p.group.as_str()).collect();
    assert_eq!(
        groups,
        [
            "example.com",
            "hand",
            "page2.html",
            "example.com",
            "example.com",
            // By its registrable domain: a site's subdomains are the site.
            "example.org",
            "twice",
            "twice"
        ]
    );
    let mut recipe = small_recipe();
    recipe.model.trees = 3;
    let model = train::train_final(&pages, &recipe, vec![], None, "2026-01-01".into()).unwrap();
    // A date that is no YYYY-MM-DD is refused, not written into the model.
    let err = train::train_final(&pages, &recipe, vec![], None, "yesterday".into()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid setting: training date \"yesterday\" is not YYYY-MM-DD"
    );
    // Without cross-validation to choose one, the model keeps the decoding that needs no
    // threshold, not a bare threshold of 0.5.
    assert_eq!(
        model.default_decoding(),
        textsift::decode::Decoding::WITHOUT_CV
    );
    let texts: Vec<&str> = a.page.blocks.iter().map(|b| b.text.as_str()).collect();
    let scores = model.scores(&a.features, &texts).unwrap();
    for (b, s) in a.page.blocks.iter().zip(scores) {
        let content = matches!(a.page.tag_of(b), "p" | "h1");
        assert_eq!(s >= 0.5, content, "{} scored {s}", b.text);
    }

    // A record that training cannot read is refused with its place named.
    let refused = |content: &str, says: &[&str]| {
        let bad = dir.path().join("bad.jsonl");
        std::fs::write(&bad, content).unwrap();
        let err = annotate::load(&bad, 0.5, 1 << 20).unwrap_err().to_string();
        assert!(
            err.contains("bad.jsonl:1") && says.iter().all(|s| err.contains(s)),
            "{err}"
        );
    };
    let line = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    // A record without a label.
    let no_label = line
        .replace("\"label\":\"boilerplate\",", "")
        .replace("\"label\":\"content\",", "");
    refused(&no_label, &["no `label`"]);
    // Records of another feature schema, or of a version that did not name it: the same
    // names may mean other values.
    let schema = format!("\"schema\":\"{}\",", textsift::features::schema_id());
    for (other, named) in [
        ("\"schema\":\"0123456789abcdef\",", "0123456789abcdef"),
        ("", "not named"),
    ] {
        refused(
            &line.replace(&schema, other),
            &[
                &format!("feature schema {named}"),
                "textsift blocks --labels",
            ],
        );
    }
    // A record cut of its class and id values, which would train a model that learns no
    // class/id tokens.
    let at = line
        .find(",\"classes\":")
        .expect("records end with their classes");
    refused(&format!("{}}}", &line[..at]), &["missing field `classes`"]);
}

#[test]
fn stacked_models_train_round_trip_and_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let (pages, _) = annotate::load(&manifest(dir.path()), 0.5, 1 << 20).unwrap();
    for stages in [2, 3] {
        let mut recipe = small_recipe();
        recipe.model.kind = textsift::model::ModelKind::Stacked;
        recipe.model.trees = 4;
        recipe.model.stages = stages;
        let cv = train::cross_validate(&pages, &recipe).unwrap();
        assert!(cv.all.overall().f1 > 0.9, "{}", cv.all.markdown());
        let train =
            || train::train_final(&pages, &recipe, vec![], Some(&cv), "2026-01-01".into()).unwrap();
        let model = train();
        assert!(model.is_stacked());
        assert_eq!(model.n_trees(), 4 * stages);
        // The importances cover the features and the second-stage columns.
        let names: Vec<String> = model.importances().into_iter().map(|f| f.name).collect();
        assert!(names.iter().any(|n| n == "s1_window3") && names.iter().any(|n| n == "words"));
        let bytes = model.to_bytes().unwrap();
        assert_eq!(train().to_bytes().unwrap(), bytes);
        let back = Model::from_bytes(&bytes).unwrap();
        assert!(back.is_stacked());
        assert!(back
            .describe()
            .contains(&format!("then {} more", stages - 1)));
        for p in &pages {
            let scores = model.scores(&p.features, &p.texts).unwrap();
            assert_eq!(back.scores(&p.features, &p.texts).unwrap(), scores);
            let kept: Vec<bool> = scores.iter().map(|&s| s >= 0.5).collect();
            assert_eq!(kept, p.labels, "{}", p.id);
        }
    }
}

#[test]
fn boosted_models_train_round_trip_and_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let (pages, _) = annotate::load(&manifest(dir.path()), 0.5, 1 << 20).unwrap();
    let mut recipe = small_recipe();
    recipe.model.kind = textsift::model::ModelKind::Boosted;
    recipe.model.trees = 20;
    recipe.model.learning_rate = 0.3;
    recipe.model.min_samples_leaf = 5;
    let cv = train::cross_validate(&pages, &recipe).unwrap();
    assert!(cv.all.overall().f1 > 0.9, "{}", cv.all.markdown());
    let train =
        || train::train_final(&pages, &recipe, vec![], Some(&cv), "2026-01-01".into()).unwrap();
    let model = train();
    assert!(!model.is_stacked());
    assert_eq!(model.n_trees(), 20);
    assert!(
        model.describe().starts_with("boosted: 20 trees"),
        "{}",
        model.describe()
    );
    let bytes = model.to_bytes().unwrap();
    assert_eq!(train().to_bytes().unwrap(), bytes);
    let back = Model::from_bytes(&bytes).unwrap();
    assert_eq!(back.info.kind, textsift::model::ModelKind::Boosted);
    for p in &pages {
        let scores = model.scores(&p.features, &p.texts).unwrap();
        assert_eq!(back.scores(&p.features, &p.texts).unwrap(), scores);
        let kept: Vec<bool> = scores.iter().map(|&s| s >= 0.5).collect();
        assert_eq!(kept, p.labels, "{}", p.id);
    }
    // Settings out of range are refused before training, naming the setting.
    for (field, toml) in [
        ("learning_rate", "learning_rate = 0.0"),
        ("l2", "l2 = -1.0"),
        ("l2", "l2 = inf"),
        ("feature_fraction", "feature_fraction = nan"),
        ("max_depth", "max_depth = 13"),
        ("max_depth", "max_depth = 1"),
    ] {
        let text = format!("[model]\nkind = \"boosted\"\n{toml}\n");
        let err = Recipe::from_toml(&text).unwrap_err().to_string();
        assert!(err.contains(field), "{err}");
    }
}

#[test]
fn stale_model_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (pages, _) = annotate::load(&manifest(dir.path()), 0.5, 1 << 20).unwrap();
    let mut recipe = small_recipe();
    recipe.model.trees = 2;
    let model = train::train_final(&pages, &recipe, vec![], None, "2026-01-01".into()).unwrap();
    let bytes = model.to_bytes().unwrap();
    // Re-frame the same content under another schema hash, with a valid checksum.
    let mut other = bytes.clone();
    other[12] ^= 1;
    let body = other.len() - 4;
    let crc = crc32fast::hash(&other[..body]);
    other[body..].copy_from_slice(&crc.to_le_bytes());
    let err = Model::from_bytes(&other).unwrap_err().to_string();
    assert!(err.contains("stale model"), "{err}");
}
