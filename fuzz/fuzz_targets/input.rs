//! Any bytes as an input file: a page, a WARC file, JSON Lines records, gzipped or not. Every
//! page it yields is read or refused with an error, never a panic, and the pages end (a hang is
//! libFuzzer's timeout).
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = scratch::write("input", data);
    // A small byte limit, so that the limit's checks are reached as well.
    let max_bytes = 1 << 16;
    let reading = textsift::input::Reading::new(max_bytes);
    for item in textsift::input::pages("fuzz".into(), Some(path.clone()), &reading) {
        if let Ok(bytes) = &item.bytes {
            assert!(bytes.len() as u64 <= max_bytes);
        }
    }
    for pending in textsift::input::pending_pages("fuzz".into(), Some(path), &reading) {
        let _ = pending.read();
    }
});
