//! Any bytes as training data: a JSON Lines file of pages with their gold text, or of block
//! records (`textsift blocks`, corrected by hand). Loading refuses it with an error or gives
//! pages whose parts agree; a tiny model trained on them saves, loads and scores them.
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;
use textsift::annotate;
use textsift::model::Model;
use textsift::train::{self, Recipe};

fn tiny() -> Recipe {
    let mut r = Recipe::default();
    r.model.trees = 2;
    r.model.max_depth = 3;
    r.model.min_samples_leaf = 1;
    r.model.rows_per_tree = 64;
    r.cv.folds = 0;
    r
}

fuzz_target!(|data: &[u8]| {
    let path = scratch::write("train.jsonl", data);
    let Ok((pages, _failed)) = annotate::load(&path, 0.5, 1 << 16) else {
        return;
    };
    for p in &pages {
        assert_eq!(p.texts.len(), p.labels.len());
        assert_eq!(p.features.rows(), p.labels.len());
    }
    let Ok(model) = train::train_final(&pages, &tiny(), Vec::new(), None, String::new()) else {
        return;
    };
    let bytes = model.to_bytes().expect("a trained model serializes");
    let model = Model::from_bytes(&bytes).expect("a saved model loads");
    for p in &pages {
        let mut features = p.features.clone();
        model.fill_classes(&mut features, &p.tokens);
        let scores = model
            .scores(&features, &p.texts)
            .expect("a model scores the pages it was trained on");
        assert_eq!(scores.len(), p.texts.len());
        assert!(scores.iter().all(|s| (0.0..=1.0).contains(s)), "{scores:?}");
    }
});
