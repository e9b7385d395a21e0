//! Acceptance: the batch command over a directory that mixes good pages with every kind of
//! hostile input finishes, prints one error line per bad page naming its source, outputs every
//! good page, exits with 1 (some pages failed), and stays under 500 MB of memory.

use crate::gzip;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn article(n: usize) -> String {
    format!(
        "<html><head><title>Story {n}</title></head><body><nav><a href=/>Home</a> \
         <a href=/news>News</a></nav><article><h1>Story {n}</h1><p>The council met on Monday \
         to plan the new bridge over the river; engineers said the work would take two years \
         and residents asked about traffic, noise and cost.</p></article>\
         <footer><p>Copyright 2026 Example News.</p></footer></body></html>"
    )
}

fn warc_record(uri: &str, page: &str, claimed: Option<usize>) -> Vec<u8> {
    let body = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{page}");
    let len = claimed.unwrap_or(body.len());
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         Content-Length: {len}\r\n\r\n{body}\r\n\r\n"
    )
    .into_bytes()
}

/// Writes the hostile set; returns the sources expected to succeed and to fail.
fn hostile_set(dir: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut good = BTreeSet::new();
    let mut bad = BTreeSet::new();
    let mut put = |name: &str, bytes: &[u8], ok: bool| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let source = path.display().to_string();
        if ok {
            good.insert(source);
        } else {
            bad.insert(source);
        }
    };
    for n in 0..3 {
        put(&format!("good-{n}.html"), article(n).as_bytes(), true);
    }
    put("good-3.html.gz", &gzip(article(3).as_bytes()), true);
    let deep = format!(
        "{}deep{}",
        "<div>".repeat(100_000),
        "</div>".repeat(100_000)
    );
    put("nest-div.html", deep.as_bytes(), true);
    let inline = format!(
        "{}inline{}",
        "<b><i>".repeat(50_000),
        "</i></b>".repeat(50_000)
    );
    put("nest-inline.html", inline.as_bytes(), true);
    let foreign = "<template><svg><math><noscript><p>x".repeat(10_000);
    put("nest-foreign.html", foreign.as_bytes(), true);
    let text = "words without any tag at all. ".repeat(20_000_000 / 30);
    put("text-20mb.txt", text.as_bytes(), true);
    let para = format!("<p>{}</p>", "text of a big page ".repeat(500));
    put(
        "page-50mb.html",
        para.repeat(50_000_000 / para.len() + 1).as_bytes(),
        false,
    );
    let attr = format!(
        "<p title=\"{}\">After a 10 MB attribute.</p>",
        "a".repeat(10_000_000)
    );
    put("attribute-10mb.html", attr.as_bytes(), true);
    let attrs: String = (0..100_000).map(|i| format!(" a{i}")).collect();
    put(
        "attributes.html",
        format!("<p{attrs}>Many attributes.</p>").as_bytes(),
        true,
    );
    let links: String = (0..5000)
        .map(|i| format!("<a href=/{i}>link {i}</a> "))
        .collect();
    put("links.html", format!("<div>{links}</div>").as_bytes(), true);
    let mut nul = article(4).into_bytes();
    for at in (0..nul.len()).step_by(40) {
        nul[at] = if at % 80 == 0 { 0 } else { 0xff };
    }
    put("nul-and-invalid-utf8.html", &nul, true);
    put(
        "unknown-charset.html",
        article(5)
            .replace("<head>", "<head><meta charset=x-unknown>")
            .as_bytes(),
        true,
    );
    let utf16: Vec<u8> = article(6)
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    put("utf16-bom.html", &[&b"\xff\xfe"[..], &utf16].concat(), true);
    put("utf16-no-bom.html", &utf16, true);
    let packed = gzip(article(7).as_bytes());
    put("truncated.html.gz", &packed[..packed.len() / 2], false);
    let two = [
        gzip(b"<p>First member of the file.</p>"),
        gzip(b"<p>Second one.</p>"),
    ]
    .concat();
    put("concatenated.html.gz", &two, true);
    put("gzip-bomb.html.gz", &gzip(&vec![b' '; 100_000_000]), false);
    put("empty.html", b"", false);
    put(
        "image.png",
        &[&b"\x89PNG\r\n\x1a\n"[..], &crate::noise(1, 50_000)].concat(),
        false,
    );
    put(
        "document.pdf",
        &[&b"%PDF-1.5\n"[..], &crate::noise(1, 50_000)].concat(),
        false,
    );
    put("random.bin", &crate::noise(2, 100_000), false);
    put(
        "comment-bomb.html",
        format!("<p>Before.</p><!--{}", "-".repeat(5_000_000)).as_bytes(),
        true,
    );
    put(
        "cdata-bomb.html",
        "<![CDATA[x]]>".repeat(400_000).as_bytes(),
        true,
    );
    let mut bomb = "<p>".to_string();
    for i in 0..2000 {
        bomb.push_str(&format!("<b id={i}>"));
    }
    bomb.push_str(&"<p>x".repeat(20_000));
    put("reconstruction-bomb.html", bomb.as_bytes(), false);

    // A JSON Lines file: a good record and a line that is not JSON.
    let jsonl = dir.join("records.jsonl");
    let record = serde_json::json!({"id": "record-1", "html": article(8)}).to_string();
    std::fs::write(&jsonl, format!("{record}\nnot json at all\n")).unwrap();
    good.insert("record-1".into());
    bad.insert(format!("{}:2", jsonl.display()));

    // A WARC file: a good record, then one whose Content-Length lies.
    let warc = dir.join("crawl.warc");
    let w = [
        warc_record("https://example.com/a", &article(9), None),
        warc_record("https://example.com/b", &article(10), Some(30)),
    ]
    .concat();
    std::fs::write(&warc, w).unwrap();
    good.insert("https://example.com/a".into());
    bad.insert("https://example.com/b".to_string());

    // Files that cannot be read: a dangling link (for everyone) and a file without
    // permissions (for everyone but root).
    let link = dir.join("zz-dangling.html");
    std::os::unix::fs::symlink(dir.join("nowhere"), &link).unwrap();
    bad.insert(link.display().to_string());
    let locked = dir.join("zz-locked.html");
    std::fs::write(&locked, article(11)).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&locked).is_ok() {
        good.insert(locked.display().to_string());
    } else {
        bad.insert(locked.display().to_string());
    }
    (good, bad)
}

#[test]
fn batch_over_a_hostile_directory() {
    let dir = tempfile::tempdir().unwrap();
    let (good, bad) = hostile_set(dir.path());
    let root = dir.path().display().to_string();
    // Peak memory is measured with GNU time when it is there.
    let time = Path::new("/usr/bin/time");
    let mut cmd = if time.exists() {
        let mut c = Command::new(time);
        c.args(["-f", "peak-rss-kb %M"])
            .arg(env!("CARGO_BIN_EXE_textsift"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_textsift"))
    };
    let started = std::time::Instant::now();
    let out = cmd
        .args(["extract", "--format", "jsonl", "--threads", "2", &root])
        .output()
        .unwrap();
    let took = started.elapsed();
    let locked = dir.path().join("zz-locked.html");
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o644)).ok();

    assert_eq!(out.status.code(), Some(1), "exit code");
    assert!(took.as_secs() < 120, "took {took:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let mut lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("Command exited with non-zero status"))
        .collect();
    if time.exists() {
        let rss = lines.pop().unwrap();
        let kb: u64 = rss.strip_prefix("peak-rss-kb ").unwrap().parse().unwrap();
        eprintln!("peak RSS of the hostile batch: {} MB", kb / 1024);
        assert!(kb < 500 * 1024, "peak RSS {} MB", kb / 1024);
    }

    // Every good page is in the output, once, in input order.
    let sources: Vec<String> = stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["source"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(sources.iter().cloned().collect::<BTreeSet<_>>(), good);
    assert_eq!(sources.len(), good.len());

    // One line per bad page, naming it, then the summary.
    let summary = lines.pop().unwrap();
    let total = good.len() + bad.len();
    assert_eq!(
        summary,
        format!(
            "textsift: {total} pages, {} ok, {} failed",
            good.len(),
            bad.len()
        )
    );
    let failed: BTreeSet<String> = lines
        .iter()
        .map(|l| {
            let rest = l.strip_prefix("textsift: ").unwrap();
            let source = bad
                .iter()
                .find(|s| rest.starts_with(&format!("{s}: ")))
                .unwrap_or_else(|| panic!("unexpected error line: {l}"));
            assert!(rest.len() > source.len() + 5, "no reason: {l}");
            source.clone()
        })
        .collect();
    assert_eq!(lines.len(), bad.len(), "{stderr}");
    assert_eq!(failed, bad);
    let reason = |name: &str| {
        lines
            .iter()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no line for {name}"))
            .to_string()
    };
    assert!(reason("page-50mb.html").contains("--max-bytes"));
    assert!(reason("gzip-bomb.html.gz").contains("after gunzip"));
    assert!(reason("reconstruction-bomb.html").contains("--max-nodes"));
    assert!(reason("truncated.html.gz").contains("truncated gzip"));
    assert!(reason("empty.html").contains("empty"));
    assert!(reason("image.png").contains("PNG"));
    assert!(reason("document.pdf").contains("PDF"));
    assert!(reason("random.bin").contains("not an HTML page"));
    assert!(reason("zz-dangling.html").contains("cannot read"));
    assert!(reason("https://example.com/b").contains("Content-Length"));
    assert!(reason("records.jsonl:2").contains("not a JSON record"));
}
