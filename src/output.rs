//! Records written by the CLI: one JSON object per block (`textsift blocks`).
//!
//! A block record can be edited by hand (its `label`) and read back by training, so it also
//! deserializes, checking feature names against the schema.

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
