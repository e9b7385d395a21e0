//! Any bytes as an input file: a page, a WARC file, JSON Lines records, gzip, zstd or plain. Every
//! page it yields is read or refused with an error, never a panic, and the pages end (a hang is
//! libFuzzer's timeout); fields passed through from a record are one JSON object. The same
//! bytes as a `--files-from` list give entries that can be paths, or errors.
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = scratch::write("input", data);
    // A small byte limit, so that the limit's checks are reached as well.
    let max_bytes = 1 << 16;
    let reading = textsift::input::Reading::new(max_bytes);
    // The second pass reads records by other fields and passes every other field through.
    let keys = textsift::input::RecordKeys {
        html: "h".into(),
        id: "u".into(),
        url: "u".into(),
        keep: vec!["*".into()],
    };
    let other = reading.clone().keys(keys).expect("valid fields");
    for item in textsift::input::pages("fuzz".into(), Some(path.clone()), &reading) {
        if let Ok(bytes) = &item.bytes {
            assert!(bytes.len() as u64 <= max_bytes);
        }
    }
    if let Ok(list) = textsift::input::InputList::open(Some(&path)) {
        for entry in list.flatten() {
            let bytes = entry.into_encoded_bytes();
            assert!(!bytes.is_empty() && bytes.len() <= 64 * 1024);
        }
    }
    for pending in textsift::input::pending_pages("fuzz".into(), Some(path), &other) {
        let item = pending.read();
        if let Some(fields) = &item.fields {
            // Strings decode strictly; a number is as written, even past f64's range.
            match serde_json::from_str::<serde_json::Value>(fields.get()) {
                Ok(object) => assert!(object.is_object()),
                Err(e) => assert!(e.to_string().starts_with("number out of range"), "{e}"),
            }
        }
    }
});
