//! `textsift extract` and `textsift blocks` end to end, with the embedded model, on pages
//! written here.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The command started with every stream piped.
fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_textsift"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn textsift(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = spawn(args);
    let mut input = child.stdin.take().unwrap();
    // A command that stops early (usage or model error) may close its input first.
    let _ = input.write_all(stdin.unwrap_or_default());
    drop(input);
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The JSON records of a run's output, one per line.
fn records(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// An article page: a long article between a menu and a footer.
fn article(n: usize) -> String {
    let paragraphs: String = (0..6)
        .map(|p| {
            format!(
                "<p>Paragraph {p} of story {n} explains, in several full sentences, how the town \
                 council planned the new bridge over the river. Engineers said the work would \
                 take two years. Residents asked questions about traffic, noise and cost.</p>"
            )
        })
        .collect();
    format!(
        "<html><head><title>Story {n} &amp; more</title></head><body>\
         <header><nav class='main-menu'><ul><li><a href=/>Home</a></li><li><a href=/n>News</a></li>\
         <li><a href=/s>Sport</a></li><li><a href=/c>Contact</a></li></ul></nav></header>\
         <main><article><h1>The bridge story {n}</h1>{paragraphs}</article></main>\
         <footer class='site-footer'><p>Copyright 2026 Example News. All rights reserved.</p>\
         <p><a href=/privacy>Privacy policy</a> | <a href=/terms>Terms of use</a></p></footer>\
         </body></html>"
    )
}

#[test]
fn text_format_keeps_the_article_and_drops_the_chrome() {
    let out = textsift(&["extract", "-"], Some(article(1).as_bytes()));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("Story 1 & more\n\n"), "{text}");
    assert!(text.contains("Paragraph 0 of story 1"), "{text}");
    assert!(text.contains("Paragraph 5 of story 1"), "{text}");
    assert!(!text.contains("All rights reserved"), "{text}");
    assert!(!text.contains("Privacy policy"), "{text}");
}

#[test]
fn favouring_precision_or_recall_moves_the_cut() {
    // Notes between a share button and a byline: blocks the model is unsure of, which the
    // cut keeps or drops by what it favours.
    let page = "<html><body><h1>Notes</h1><p>Short line one here.</p>\
                <p>Another short line of text.</p><div>Share this</div>\
                <div>Posted in news and updates by admin</div>\
                <p>The end of the notes for today, with a few more words.</p></body></html>";
    let mut kept = Vec::new();
    for favor in ["precision", "balance", "recall"] {
        let out = textsift(
            &[
                "extract", "--favor", favor, "--format", "json", "--blocks", "-",
            ],
            Some(page.as_bytes()),
        );
        assert!(out.status.success(), "{favor}: {}", stderr(&out));
        let record: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let text = record["text"].as_str().unwrap();
        assert!(text.contains("The end of the notes"), "{favor}: {text}");
        let blocks = record["blocks"].as_array().unwrap();
        kept.push(blocks.iter().filter(|b| b["label"] == "content").count());
    }
    // Precision keeps no more blocks than the balance, recall no fewer, and precision fewer
    // than recall (whether the balance sits strictly between depends on the model's scores).
    assert!(
        kept[0] <= kept[1] && kept[1] <= kept[2] && kept[0] < kept[2],
        "{kept:?}"
    );
}

#[test]
fn several_pages_as_text_markdown_or_html_are_each_named() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.html"), dir.path().join("b.html"));
    std::fs::write(&a, article(1)).unwrap();
    std::fs::write(&b, article(2)).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for format in ["text", "markdown"] {
        let out = textsift(&["extract", "--format", format, a, b], None);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        // Each page after a line naming it, a blank line after each page.
        let first = format!("==> {a} <==\n");
        let second = format!("\n\n==> {b} <==\n");
        assert!(text.starts_with(&first), "{text}");
        let at = text.find(&second).expect("second page named");
        assert!(text[..at].contains("Paragraph 5 of story 1"), "{text}");
        assert!(text[at..].contains("Paragraph 5 of story 2"), "{text}");
        assert!(
            text.ends_with("cost.\n\n") && !text.ends_with("\n\n\n"),
            "{text}"
        );
    }
    // One page: no name line, and no summary when it went well.
    let out = textsift(&["extract", "--format", "text", a], None);
    let one = stdout(&out);
    assert!(one.starts_with("Story 1 & more\n"), "{one}");
    assert_eq!(stderr(&out), "");

    // The debug view of several pages is one document, a section for each page in order.
    let out = textsift(&["extract", "--format", "html", a, b], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = stdout(&out);
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert_eq!(html.matches("<!DOCTYPE").count(), 1);
    assert_eq!(html.matches("</html>").count(), 1);
    assert!(html.trim_end().ends_with("</body></html>"));
    assert_eq!(html.matches("<section>").count(), 2);
    assert_eq!(html.matches("</section>").count(), 2);
    let (first, second) = (
        html.find(&format!("<bdi>{a}</bdi>: ")),
        html.find(&format!("<bdi>{b}</bdi>: ")),
    );
    assert!(first.unwrap() < second.unwrap());
    assert_eq!(html.matches("<div").count(), html.matches("</div>").count());
    // A directory or a list holding one page is a batch: JSON Lines, and the summary.
    std::fs::remove_file(b).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let list = elsewhere.path().join("list.txt");
    std::fs::write(&list, format!("{a}\n")).unwrap();
    let dir_name = dir.path().to_str().unwrap();
    let list = list.to_str().unwrap();
    let runs: [&[&str]; 3] = [
        &["extract", dir_name],
        &["extract", "--files-from", list],
        &["blocks", dir_name],
    ];
    for args in runs {
        let out = textsift(args, None);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stdout(&out).lines().next().unwrap().chars().next(),
            Some('{')
        );
        assert_eq!(
            stderr(&out),
            "textsift: 1 page, 1 ok, 0 failed\n",
            "{args:?}"
        );
    }
}

#[test]
fn a_page_that_is_all_main_text_keeps_it() {
    // No menu, no footer, no classes: a bare page of prose (a feed item, a page already
    // cleaned) is content whole, not an empty shell.
    let text = "The committee met on Tuesday and agreed to publish its findings next month. \
                Members asked for more time to read the evidence.";
    // However the fragment is wrapped: a paragraph, a div, an article, or no element at all.
    for wrapped in [
        format!("<p>{text}</p>"),
        format!("<div>{text}</div>"),
        format!("<article>{text}</article>"),
        text.to_string(),
    ] {
        let one = format!("<html><head><title>Note</title></head><body>{wrapped}</body></html>");
        let out = textsift(&["extract", "-"], Some(one.as_bytes()));
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out), format!("Note\n\n{text}\n"), "{wrapped}");
    }
    // An empty shell still gives no text.
    let shell = "<html><head><title>App</title></head><body><noscript>You need to enable \
                 JavaScript to run this app.</noscript><div id=root></div></body></html>";
    let out = textsift(&["extract", "-"], Some(shell.as_bytes()));
    assert_eq!(stdout(&out), "App\n");
}

#[test]
fn a_page_laid_out_in_columns_loses_its_menu_and_advertisements() {
    // Pages made before style sheets: a table's cells hold the menu, the story and the
    // advertisements, each as lines cut by <br>, with no class or semantic element to tell
    // them apart. Three layouts: the menu and the ads beside the story, nested tables, and
    // the same columns as bare divisions.
    let story = [
        "The paper mill that has been the valley's largest employer for nearly a century will \
         close in April, its owners said on Friday, putting about three hundred people out of work.",
        "The company blamed falling demand for newsprint and the cost of upgrading the mill's \
         aging machines, and said workers would be offered places at its other plant.",
        "Union officials said they had been told nothing before the announcement and would seek \
         talks with the company next week.",
    ];
    let menu = [
        "Local",
        "State",
        "Sports",
        "Business",
        "Obituaries",
        "Classifieds",
    ];
    let ads = ["Cheap flights", "Loans in minutes"];
    let links = |items: &[&str]| {
        items
            .iter()
            .map(|t| format!("<a href=\"/{}\">{t}</a><br>", t.len()))
            .collect::<String>()
    };
    let cells = format!(
        "<td width=140 valign=top><font size=2>{}</font></td>\
         <td valign=top><font size=5><b>Paper mill to close in spring</b></font><br><br>{}</td>\
         <td width=120 valign=top><font size=1>Sponsored links<br>{}</font></td>",
        links(&menu),
        story.join("<br><br>"),
        links(&ads)
    );
    for body in [
        format!("<table width=\"100%\" border=0><tr>{cells}</tr></table>"),
        format!(
            "<table border=0><tr><td><img src=logo.gif width=200 height=50></td></tr>\
             <tr><td><table border=0 width=\"100%\"><tr>{cells}</tr></table></td></tr>\
             <tr><td><font size=1>&copy; 2004 Valley Times</font></td></tr></table>"
        ),
        format!(
            "<div>{}</div>",
            cells
                .replace("<td width=140 valign=top>", "<div>")
                .replace("<td width=120 valign=top>", "<div>")
                .replace("<td valign=top>", "<div>")
                .replace("</td>", "</div>")
        ),
    ] {
        let page = format!(
            "<html><head><title>Valley Times - Mill to close</title></head>\
             <body bgcolor=white>{body}</body></html>"
        );
        let out = textsift(&["extract", "-"], Some(page.as_bytes()));
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        for line in story {
            assert!(text.contains(line), "story line lost: {line}\n{text}");
        }
        for word in ads {
            assert!(!text.contains(word), "{word} kept:\n{text}");
        }
        // The menu goes, but for at most its last link, whose neighbours are the headline
        // and the story (a model before these layouts were read kept all six).
        let kept: Vec<&str> = menu
            .iter()
            .copied()
            .filter(|w| text.lines().any(|l| l == *w))
            .collect();
        assert!(
            kept.is_empty() || kept == ["Classifieds"],
            "{kept:?} kept:\n{text}"
        );
    }
}

#[test]
fn thai_paragraphs_read_as_prose() {
    // Thai has no spaces between words: each paragraph below is two whitespace tokens. Read
    // as two long words it looked like no text a page's content is made of (scores about 0.5).
    let paras = [
        "คณะกรรมการนโยบายการเงินมีมติเป็นเอกฉันท์ให้คงอัตราดอกเบี้ยนโยบายไว้ที่ร้อยละสองจุดห้าต่อปี \
         เนื่องจากเศรษฐกิจไทยยังคงขยายตัวได้ต่อเนื่องแม้จะชะลอลงบ้างในช่วงครึ่งปีหลัง",
        "ผู้ว่าการธนาคารกลางกล่าวว่าอัตราเงินเฟ้อทั่วไปมีแนวโน้มกลับเข้าสู่กรอบเป้าหมายภายในต้นปีหน้า \
         ขณะที่การบริโภคภาคเอกชนและการท่องเที่ยวยังเป็นแรงขับเคลื่อนสำคัญของเศรษฐกิจ",
        "นักวิเคราะห์หลายสำนักคาดว่าคณะกรรมการจะคงอัตราดอกเบี้ยไว้ตลอดปีนี้ \
         และอาจพิจารณาปรับลดในไตรมาสแรกของปีหน้าหากการส่งออกยังคงอ่อนแอ",
    ];
    let body: String = paras.iter().map(|p| format!("<p>{p}</p>")).collect();
    let page = format!(
        "<html><head><title>ข่าวเศรษฐกิจ</title></head><body>\
         <div class=top><ul><li><a href=/>หน้าแรก</a></li><li><a href=/news>ข่าว</a></li>\
         <li><a href=/sport>กีฬา</a></li><li><a href=/contact>ติดต่อเรา</a></li></ul></div>\
         <div class=wrap><div class=c2><h1>ธนาคารกลางคงอัตราดอกเบี้ย</h1>{body}</div></div>\
         <div class=side><h3>ข่าวที่เกี่ยวข้อง</h3><ul><li><a href=/a>ราคาทองวันนี้ปรับขึ้น</a></li>\
         <li><a href=/b>ตลาดหุ้นปิดบวก</a></li><li><a href=/c>ค่าเงินบาทแข็งค่า</a></li></ul></div>\
         <div class=bottom><p>สงวนลิขสิทธิ์ © 2026 ข่าวเศรษฐกิจออนไลน์</p></div></body></html>"
    );
    let out = textsift(
        &["extract", "--format", "json", "--blocks", "-"],
        Some(page.as_bytes()),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let mut seen = 0;
    for b in v["blocks"].as_array().unwrap() {
        let text = b["text"].as_str().unwrap();
        let score = b["score"].as_f64().unwrap();
        if paras.contains(&text) {
            seen += 1;
            assert!(score > 0.9, "{score} {text}");
            assert_eq!(b["label"], "content", "{text}");
        } else if text.contains("ราคาทอง") || text.contains("หน้าแรก") || text.contains("สงวน")
        {
            assert_eq!(b["label"], "boilerplate", "{text}");
        }
    }
    assert_eq!(seen, paras.len());
}

#[test]
fn the_title_is_the_headline_without_the_site_name() {
    // The site's name after the headline, and a logo's h1 that says it in the header.
    let page = article(3)
        .replace("Story 3 &amp; more", "The bridge story 3 | Example News")
        .replace("<header>", "<header><h1>Example News</h1>");
    let out = textsift(
        &["extract", "--format", "jsonl", "-"],
        Some(page.as_bytes()),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(records(&out)[0]["title"], "The bridge story 3");
    // No h1 that the title confirms: the title loses its shorter end part.
    let page = article(4).replace(
        "Story 4 &amp; more",
        "Example News - Bridge works begin in town",
    );
    let out = textsift(
        &["extract", "--format", "jsonl", "-"],
        Some(page.as_bytes()),
    );
    assert_eq!(records(&out)[0]["title"], "Bridge works begin in town");
    // A text that starts with its headline (the h1, kept) gives it once, as the top heading
    // in Markdown. A low threshold keeps every block of this short page, so that the layout
    // is tested whatever the model makes of its h1.
    let paragraphs: String = (0..4)
        .map(|i| {
            format!(
                "<p>Paragraph {i}: the council opened the site on Monday, and the first piles \
                 went in by noon. Work goes on until spring, the engineers said.</p>"
            )
        })
        .collect();
    let page = format!(
        "<title>Bridge works | News</title><article><h1>Bridge works</h1>\
         <h2>How the piles go in</h2>{paragraphs}</article>"
    );
    let keep_all = ["--decoder", "threshold", "--threshold", "0.01"];
    let run = |format: &str, blocks: bool| {
        let mut args = vec!["extract", "--format", format];
        args.extend(keep_all);
        if blocks {
            args.push("--blocks");
        }
        args.push("-");
        stdout(&textsift(&args, Some(page.as_bytes())))
    };
    let v: serde_json::Value = serde_json::from_str(&run("json", true)).unwrap();
    assert_eq!(v["title"], "Bridge works");
    assert_eq!(v["blocks"][0]["label"], "content", "the h1 is kept");
    let text = run("text", false);
    let md = run("markdown", false);
    assert!(text.starts_with("Bridge works\n\nHow the piles"), "{text}");
    // The h2 below it keeps its level.
    assert!(md.starts_with("# Bridge works\n\n## How the piles"), "{md}");
}

#[test]
fn a_comparison_table_keeps_its_marks() {
    let page = "<title>Plans</title><h1>Plans</h1><p>Which plan suits you? Compare what each \
                one gives you below, and pick the plan that fits.</p>\
                <table><tr><th>Feature</th><th>Basic</th><th>Pro</th></tr>\
                <tr><td>Storage</td><td>10 GB</td><td>1 TB</td></tr>\
                <tr><td>Sharing</td><td>&#10003;</td><td><b>&#10003;</b></td></tr>\
                <tr><td>Support</td><td>&mdash;</td><td>&#10003;</td></tr></table>";
    let run = |format: &str| {
        let args = ["extract", "--decoder", "threshold", "--threshold", "0.01"];
        let mut args = args.to_vec();
        args.extend(["--format", format, "-"]);
        stdout(&textsift(&args, Some(page.as_bytes())))
    };
    let md = run("markdown");
    assert!(
        md.ends_with(
            "| Feature | Basic | Pro |\n| --- | --- | --- |\n| Storage | 10 GB | 1 TB |\n\
             | Sharing | ✓ | ✓ |\n| Support | — | ✓ |\n\n"
        ),
        "{md}"
    );
    let text = run("text");
    assert!(text.ends_with("Sharing\t✓\t✓\nSupport\t—\t✓\n"), "{text}");
}

#[test]
fn formats_json_markdown_html() {
    let page = article(2);
    let json = textsift(
        &["extract", "--format", "json", "--blocks", "-"],
        Some(page.as_bytes()),
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    // Blocks asked for on one page: the same JSON record without naming the format.
    let implied = textsift(&["extract", "--blocks", "-"], Some(page.as_bytes()));
    assert_eq!(stdout(&implied), stdout(&json));
    // Keys in the documented order, so that a reader of the file sees the title first.
    let keys = ["\"source\"", "\"title\"", "\"text\"", "\"blocks\""];
    let at: Vec<usize> = keys
        .iter()
        .map(|k| stdout(&json).find(k).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
    assert_eq!(v["source"], "-");
    assert_eq!(v["title"], "Story 2 & more");
    let blocks = v["blocks"].as_array().unwrap();
    assert!(blocks.iter().any(|b| b["label"] == "content"));
    assert!(blocks.iter().any(|b| b["label"] == "boilerplate"));
    assert!(blocks
        .iter()
        .all(|b| (0.0..=1.0).contains(&b["score"].as_f64().unwrap())));

    let md = stdout(&textsift(
        &["extract", "--format", "markdown", "-"],
        Some(page.as_bytes()),
    ));
    assert!(md.starts_with("# Story 2 & more\n"), "{md}");
    assert!(md.contains("Paragraph 3 of story 2"), "{md}");

    // The Markdown in a record: after the text, without the page's closing blank line; JSON
    // for one page without naming the format, one line per page in JSON Lines.
    let with_md = stdout(&textsift(
        &["extract", "--markdown", "-"],
        Some(page.as_bytes()),
    ));
    let r: serde_json::Value = serde_json::from_str(&with_md).unwrap();
    assert_eq!(r["markdown"], md.trim_end(), "{with_md}");
    assert_eq!(r["text"], v["text"]);
    assert!(with_md.find("\"text\"").unwrap() < with_md.find("\"markdown\"").unwrap());
    assert!(v.get("markdown").is_none(), "only when asked for");
    let lines = stdout(&textsift(
        &[
            "extract",
            "--format",
            "jsonl",
            "--markdown",
            "--blocks",
            "-",
        ],
        Some(page.as_bytes()),
    ));
    let r: serde_json::Value = serde_json::from_str(lines.trim_end()).unwrap();
    assert_eq!(r["markdown"], md.trim_end());
    assert_eq!(r["blocks"], v["blocks"]);

    let evil = page.replace("Story 2 &amp; more", "<b>\"x\" & 'y'</b> &lt;script&gt;");
    let html = stdout(&textsift(
        &["extract", "--format", "html", "-"],
        Some(evil.as_bytes()),
    ));
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    assert!(!html.contains("<script>"), "text must be escaped");
    assert!(html.contains("&lt;script&gt;"));
    assert!(
        html.contains("class=\"b keep\""),
        "kept blocks are outlined"
    );
    assert!(html.contains("title=\"words="), "features on hover");
    assert_eq!(html.matches("<div").count(), html.matches("</div>").count());
}

#[test]
fn batches_keep_order_across_threads_and_report_bad_pages() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..12 {
        std::fs::write(dir.path().join(format!("p{i:02}.html")), article(i)).unwrap();
    }
    std::fs::write(dir.path().join("p05b.html"), b"").unwrap();
    std::fs::write(
        dir.path().join("p07b.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    )
    .unwrap();
    let d = dir.path().to_str().unwrap();
    let one = textsift(&["extract", "--threads", "1", d], None);
    let two = textsift(&["extract", "--threads", "2", d], None);
    assert_eq!(one.status.code(), Some(1));
    assert_eq!(stdout(&one), stdout(&two));
    let lines = records(&one);
    assert_eq!(lines.len(), 12);
    let sources: Vec<&str> = lines
        .iter()
        .map(|l| l["source"].as_str().unwrap())
        .collect();
    let mut sorted = sources.clone();
    sorted.sort();
    assert_eq!(sources, sorted);
    let err = stderr(&one);
    assert!(err.contains("p05b.html: empty input"), "{err}");
    assert!(
        err.contains("p07b.png: not an HTML page: PNG image"),
        "{err}"
    );
    assert!(err.contains("14 pages, 12 ok, 2 failed"), "{err}");

    let good = textsift(
        &[
            "extract",
            &format!("{d}/p01.html"),
            &format!("{d}/p02.html"),
        ],
        None,
    );
    assert_eq!(good.status.code(), Some(0), "{}", stderr(&good));
}

#[test]
fn jsonl_and_warc_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("pages.jsonl");
    let mut f = std::fs::File::create(&jsonl).unwrap();
    writeln!(f, "{}", serde_json::json!({"id": "a", "html": article(3)})).unwrap();
    writeln!(f, "this line is not JSON").unwrap();
    writeln!(f, "{}", serde_json::json!({"id": 7, "html": article(4)})).unwrap();
    let url = "https://example.com/u";
    writeln!(f, "{}", serde_json::json!({"url": url, "html": article(5)})).unwrap();
    writeln!(f, "{}", serde_json::json!({"html": article(6)})).unwrap();
    writeln!(f, "{}", serde_json::json!({"id": "no-page", "html": null})).unwrap();
    let page = "https://example.com/v";
    writeln!(
        f,
        "{}",
        serde_json::json!({"id": "b", "url": page, "html": article(7)})
    )
    .unwrap();
    drop(f);
    // A JSON Lines file holds several pages: JSON Lines out by default.
    let out = textsift(&["extract", jsonl.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let ids: Vec<String> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["source"].to_string())
        .collect();
    // Records of other inputs have no WARC fields.
    assert!(!stdout(&out).contains("\"warc_"), "{}", stdout(&out));
    // An id names the page, else its url, else the file and line.
    let place = serde_json::json!(format!("{}:5", jsonl.display())).to_string();
    assert_eq!(
        ids,
        [
            "\"a\"",
            "\"7\"",
            "\"https://example.com/u\"",
            &place,
            "\"b\""
        ]
    );
    // A record named by its id keeps its url too, after the source; one named by its url
    // does not say it twice.
    let urls: Vec<Option<String>> = records(&out)
        .iter()
        .map(|r| r.get("url").map(|u| u.to_string()))
        .collect();
    assert_eq!(urls, [None, None, None, None, Some(format!("\"{page}\""))]);
    // A record named by its id or url says where it is, a file's line; one named by its
    // place does not say it twice.
    let places: Vec<Option<String>> = records(&out)
        .iter()
        .map(|r| r.get("place").and_then(|p| p.as_str()).map(String::from))
        .collect();
    let at = |line: usize| Some(format!("{}:{line}", jsonl.display()));
    assert_eq!(places, [at(1), at(3), at(4), None, at(7)]);
    let last = stdout(&out).lines().last().unwrap().to_string();
    let place = serde_json::json!(at(7)).to_string();
    assert!(
        last.starts_with(&format!(
            r#"{{"source":"b","place":{place},"url":"{page}","title":"#
        )),
        "{last}"
    );
    assert!(
        stderr(&out).contains("pages.jsonl:2: not a JSON record"),
        "{}",
        stderr(&out)
    );
    // A refused record that has an id is reported by it.
    assert!(
        stderr(&out)
            .contains("textsift: no-page: not a JSON record with a page in its \"html\" field"),
        "{}",
        stderr(&out)
    );

    let warc = dir.path().join("crawl.warc");
    let mut w = Vec::new();
    for (i, uri) in ["https://example.com/a", "https://example.com/b"]
        .iter()
        .enumerate()
    {
        let http = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{}",
            article(10 + i)
        );
        w.extend_from_slice(&warc_response(uri, http.as_bytes()));
    }
    std::fs::write(&warc, &w).unwrap();
    // So does a WARC file.
    let out = textsift(&["extract", warc.to_str().unwrap()], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[1]["source"], "https://example.com/b");
    assert!(recs[1]["text"].as_str().unwrap().contains("story 11"));
    // Each record says which WARC record it came from, between its source and its title.
    for (rec, uri) in recs
        .iter()
        .zip(["https://example.com/a", "https://example.com/b"])
    {
        assert_eq!(rec["warc_record_id"], warc_record_id(uri).as_str());
        assert_eq!(rec["warc_date"], "2026-11-02T10:20:30Z");
    }
    assert_ne!(recs[0]["warc_record_id"], recs[1]["warc_record_id"]);
    // And where it is in the file: the same URI may be fetched twice.
    for (k, rec) in recs.iter().enumerate() {
        assert_eq!(rec["place"], format!("{}#{}", warc.display(), k + 1));
    }
    let line = stdout(&out).lines().next().unwrap().to_string();
    let place = serde_json::json!(format!("{}#1", warc.display())).to_string();
    assert!(
        line.starts_with(&format!(
            "{{\"source\":\"https://example.com/a\",\"place\":{place},\"warc_record_id\":\"<urn:uuid:"
        )),
        "{line}"
    );
    assert!(
        line.contains("\"warc_date\":\"2026-11-02T10:20:30Z\",\"title\":"),
        "{line}"
    );
    // Block records say it too, after their source.
    let out = textsift(&["blocks", warc.to_str().unwrap()], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let blocks = records(&out);
    assert!(blocks.len() > 2);
    for b in &blocks {
        let uri = b["source"].as_str().unwrap();
        assert_eq!(b["warc_record_id"], warc_record_id(uri).as_str());
        assert_eq!(b["warc_date"], "2026-11-02T10:20:30Z");
    }
    assert!(stdout(&out).starts_with(&format!(
        "{{\"source\":\"https://example.com/a\",\"place\":{place},\"warc_record_id\":\"{}\",\"warc_date\":",
        warc_record_id("https://example.com/a")
    )));

    // Records without a page (a redirect, an error page, an image) are passed over and counted:
    // not failures, and nothing of them in the output.
    for (uri, head) in [
        (
            "https://example.com/old",
            "HTTP/1.1 301 Moved Permanently\r\nLocation: /a",
        ),
        (
            "https://example.com/gone",
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/html",
        ),
        (
            "https://example.com/i.png",
            "HTTP/1.1 200 OK\r\nContent-Type: image/png",
        ),
    ] {
        let http = format!("{head}\r\n\r\n{}", article(20));
        w.extend_from_slice(&warc_response(uri, http.as_bytes()));
    }
    std::fs::write(&warc, &w).unwrap();
    let out = textsift(&["extract", warc.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 2);
    assert_eq!(
        stderr(&out).trim_end(),
        "textsift: 2 pages, 2 ok, 0 failed; 3 WARC records without a page passed over \
         (redirects, error pages, empty responses, other media types)"
    );
}

/// A JSON array of records (`scrapy -o items.json`, `json.dump(list)`) is refused with how to
/// turn it into JSON Lines, plain, gzipped or piped in, instead of being read as one page; so
/// is a record spread over lines.
#[test]
fn json_that_is_not_json_lines_is_refused_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let array = serde_json::json!([{"url": "https://example.com/a", "html": article(3)}]);
    let text = serde_json::to_string_pretty(&array).unwrap();
    let plain = dir.path().join("items.json");
    std::fs::write(&plain, &text).unwrap();
    let gz = dir.path().join("items.json.gz");
    std::fs::write(&gz, crate::gzip(text.as_bytes())).unwrap();
    for (args, input) in [
        (vec!["extract", plain.to_str().unwrap()], None),
        (vec!["extract", gz.to_str().unwrap()], None),
        (vec!["extract", "-"], Some(text.as_bytes())),
    ] {
        let out = textsift(&args, input);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("not an HTML page: JSON, not JSON Lines") && err.contains("`jq -c '.[]'`"),
            "{args:?}: {err}"
        );
    }
    // A record spread over lines is refused too, rather than failing line by line.
    let pretty = dir.path().join("one.json");
    std::fs::write(&pretty, serde_json::to_string_pretty(&array[0]).unwrap()).unwrap();
    let out = textsift(&["extract", pretty.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("`jq -c .` of records spread over lines")
            && stderr(&out).contains("1 page, 0 ok, 1 failed"),
        "{}",
        stderr(&out)
    );
    // Named as JSON Lines, the same: the first lines are no records.
    let records = serde_json::to_string(&array).unwrap();
    for (name, text) in [("items.jsonl", &text), ("one.jsonl", &records)] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = textsift(&["extract", path.to_str().unwrap()], None);
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(
            stderr(&out).contains("JSON, not JSON Lines") && stderr(&out).contains("1 failed"),
            "{name}: {}",
            stderr(&out)
        );
    }
    // But a JSON Lines file whose first line was cut (in a field that held an array) is read
    // on from its second line, the first reported.
    let record = serde_json::json!({"id": "b", "html": article(4)}).to_string();
    let cut = dir.path().join("cut.jsonl");
    // Its second record holds a byte that is not UTF-8, which the reader takes as U+FFFD.
    let mut bytes = format!("[{{\"x\": 1}}], \"html\": \"<p>a</p>\"}}\n{record}\n").into_bytes();
    let at = bytes.windows(9).rposition(|w| w == b"Residents").unwrap();
    bytes[at + 1] = 0xff;
    std::fs::write(&cut, bytes).unwrap();
    let out = textsift(&["extract", cut.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("story 4"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("cut.jsonl:1: not a JSON record"),
        "{}",
        stderr(&out)
    );
    // A page that starts with a bracket is still a page.
    let page = dir.path().join("bracket.html");
    std::fs::write(&page, format!("[draft] {}", article(3))).unwrap();
    let out = textsift(&["extract", page.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_file_name_that_is_not_utf8() {
    // Crawls save pages under the names they were served with, Latin-1 ones among them.
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.html");
    std::fs::write(dir.path().join(name), article(1)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_textsift"))
        .arg("extract")
        .arg(dir.path().join(name))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Paragraph 1 of story 1"),
        "{}",
        stdout(&out)
    );
    // Named by itself or found in a directory, its source shows the byte as U+FFFD.
    let out = textsift(&["extract", dir.path().to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("caf\u{fffd}.html"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn inputs_listed_in_a_file() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("sub")).unwrap();
    for (name, n) in [("a.html", 1), ("sub/b.html", 2), ("sub/c.html", 3)] {
        std::fs::write(d.join(name), article(n)).unwrap();
    }
    std::fs::write(
        d.join(std::ffi::OsStr::from_bytes(b"caf\xe9.html")),
        article(4),
    )
    .unwrap();
    let path = |name: &str| d.join(name).to_str().unwrap().to_string();
    let sources = |o: &Output| -> Vec<String> {
        records(o)
            .iter()
            .map(|r| r["source"].as_str().unwrap().to_string())
            .collect()
    };
    // Lines (one ending in \r, blank ones passed over), a directory among them, after the
    // inputs named as arguments; a single line is still a batch, written as JSON Lines.
    let list = d.join("list.txt");
    std::fs::write(
        &list,
        format!("{}\r\n\n{}\n", path("sub"), path("missing.html")),
    )
    .unwrap();
    let out = textsift(
        &[
            "extract",
            "--files-from",
            list.to_str().unwrap(),
            &path("a.html"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        sources(&out),
        [path("a.html"), path("sub/b.html"), path("sub/c.html")]
    );
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}: cannot read", path("missing.html"))),
        "{err}"
    );
    assert!(
        err.ends_with("textsift: 4 pages, 3 ok, 1 failed\n"),
        "{err}"
    );
    std::fs::write(&list, format!("{}\n", path("a.html"))).unwrap();
    let out = textsift(&["extract", "--files-from", list.to_str().unwrap()], None);
    assert_eq!(sources(&out), [path("a.html")], "{}", stderr(&out));
    // The debug view's title names the list, not each of its entries.
    let out = textsift(
        &[
            "extract",
            "--format",
            "html",
            "--files-from",
            list.to_str().unwrap(),
        ],
        None,
    );
    let title = format!("<title>textsift: --files-from {}</title>", list.display());
    assert!(stdout(&out).contains(&title), "{}", stdout(&out));
    // Separated by NUL bytes (a name may hold a newline, or bytes that are not UTF-8), read
    // from standard input, gzipped.
    let mut listed = path("sub/c.html").into_bytes();
    listed.push(0);
    listed.extend(
        d.join(std::ffi::OsStr::from_bytes(b"caf\xe9.html"))
            .as_os_str()
            .as_bytes(),
    );
    listed.push(0);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&listed).unwrap();
    let out = textsift(
        &["blocks", "--files-from", "-"],
        Some(&gz.finish().unwrap()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut seen = sources(&out);
    seen.dedup();
    assert_eq!(seen, [path("sub/c.html"), path("caf\u{fffd}.html")]);
    // An empty list: no page, a summary that says so, success.
    std::fs::write(&list, "\n").unwrap();
    let out = textsift(&["extract", "--files-from", list.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        (stdout(&out).as_str(), stderr(&out).as_str()),
        ("", "textsift: 0 pages, 0 ok, 0 failed\n")
    );
    // A list that cannot be read stops the run with one line; standard input cannot be both
    // the list and an input (a usage error).
    let out = textsift(&["extract", "--files-from", &path("nope.txt")], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "textsift: --files-from {}: cannot read: No such file or directory (os error 2)\n",
            path("nope.txt")
        )
    );
    let out = textsift(
        &["extract", "--files-from", "-", "-"],
        Some(path("a.html").as_bytes()),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot be an input (-) too"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_list_is_read_as_the_pages_are_done() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (name, n) in [("a.html", 1), ("b.html", 2)] {
        std::fs::write(path(name), article(n)).unwrap();
    }
    // The first page comes out while the list is still open: a program that writes the list
    // as it finds pages is not waited for.
    let mut child = spawn(&["extract", "--threads", "2", "--files-from", "-"]);
    let mut list = child.stdin.take().unwrap();
    writeln!(list, "{}", path("a.html")).unwrap();
    list.flush().unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = std::io::BufReader::new(out).lines();
        for line in lines.by_ref() {
            tx.send(line.unwrap()).unwrap();
        }
    });
    let first = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("no output before the list ended");
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["source"], path("a.html"));
    writeln!(list, "{}", path("b.html")).unwrap();
    drop(list);
    assert!(child.wait().unwrap().success());
    let second: serde_json::Value = serde_json::from_str(&rx.recv().unwrap()).unwrap();
    assert_eq!(second["source"], path("b.html"));

    // Entries that cannot be paths are reported as the list's, and the entries after them are
    // read: a NUL byte in a list of lines, an entry longer than any path.
    let mut listed = format!("{}\nx\0y\n", path("a.html")).into_bytes();
    listed.extend(vec![b'a'; 100_000]);
    listed.extend(format!("\n{}\n", path("b.html")).bytes());
    let out = textsift(&["extract", "--files-from", "-"], Some(&listed));
    assert_eq!(out.status.code(), Some(1));
    let sources: Vec<_> = records(&out).iter().map(|r| r["source"].clone()).collect();
    assert_eq!(sources, [path("a.html"), path("b.html")]);
    let err = stderr(&out);
    let lines: Vec<_> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(
        lines[0].starts_with("textsift: --files-from -: an entry holding a NUL byte"),
        "{err}"
    );
    assert!(
        lines[1].starts_with("textsift: --files-from -: an entry longer than 65536 bytes"),
        "{err}"
    );
    assert_eq!(lines[2], "textsift: 4 pages, 2 ok, 2 failed");
    // `-` in a list read from standard input would read the list again as a page.
    let listed = format!("{}\n-\n{}\n", path("a.html"), path("b.html"));
    let out = textsift(&["extract", "--files-from", "-"], Some(listed.as_bytes()));
    assert_eq!(out.status.code(), Some(1));
    let sources: Vec<_> = records(&out).iter().map(|r| r["source"].clone()).collect();
    assert_eq!(sources, [path("a.html"), path("b.html")]);
    assert!(stderr(&out).starts_with(
        "textsift: --files-from -: an entry `-` (standard input), which is the list itself\n"
    ));

    // A gzipped list cut short: the pages it named before the cut are done, and the cut is
    // reported as the list's failure. A listed input that is the --errors file is not read.
    let mut names = String::new();
    for i in 0..2_000 {
        names.push_str(&format!(
            "{}\n{}\n",
            path("a.html"),
            path(&format!("gone{i}.html"))
        ));
    }
    names.insert_str(0, &format!("{}\n", path("errors.jsonl")));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(names.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    std::fs::write(path("list.gz"), &gz[..gz.len() / 2]).unwrap();
    let out = textsift(
        &[
            "extract",
            "--files-from",
            &path("list.gz"),
            "--errors",
            &path("errors.jsonl"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let done = records(&out).len();
    assert!(done > 10 && done < 2_000, "{done} pages done");
    let failures: Vec<serde_json::Value> = std::fs::read_to_string(path("errors.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(failures[0]["source"], path("errors.jsonl"));
    assert_eq!(failures[0]["kind"], "cannot_read");
    let last = failures.last().unwrap();
    assert_eq!(
        (&last["source"], &last["kind"]),
        (
            &serde_json::Value::from(format!("--files-from {}", path("list.gz"))),
            &serde_json::Value::from("bad_gzip")
        )
    );
}

#[test]
fn json_lines_as_other_tools_write_them() {
    // A byte-order mark before the first record (Windows tools) and before a later one (files
    // put together with `cat`), CRLF line ends, a lone UTF-16 surrogate escaped in a page
    // (Python's `json` writes them; serde_json refuses them), and a page's raw Latin-1 byte
    // pasted into the JSON, which is no longer UTF-8.
    let record = |id: &str, html: &str| serde_json::json!({"id": id, "html": html}).to_string();
    let lone = record("lone", &article(2)).replacen("Paragraph 0", "Paragraph \\ud800 0", 1);
    let mut file = format!(
        "\u{feff}{}\r\n\u{feff}{}\r\n{lone}\r\n",
        record("first", &article(0)),
        record("second", &article(1))
    )
    .into_bytes();
    let raw = record("raw", &article(3)).replacen("Paragraph 0", "Paragraph caf@ 0", 1);
    file.extend(raw.bytes().map(|b| if b == b'@' { 0xE9 } else { b }));
    file.extend_from_slice(b"\r\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pages.jsonl");
    std::fs::write(&path, file).unwrap();
    let out = textsift(&["extract", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let recs = records(&out);
    let ids: Vec<&str> = recs.iter().map(|r| r["source"].as_str().unwrap()).collect();
    assert_eq!(ids, ["first", "second", "lone", "raw"]);
    let text = recs[2]["text"].as_str().unwrap();
    assert!(text.contains("Paragraph \u{fffd} 0 of story 2"), "{text}");
    let text = recs[3]["text"].as_str().unwrap();
    assert!(
        text.contains("Paragraph caf\u{fffd} 0 of story 3"),
        "{text}"
    );
}

#[test]
fn json_lines_records_with_other_field_names() {
    // A dataset's own names: the page in `raw_html`, the name in `doc_id`, the URL in `link`;
    // a field named `html` is then text like any other.
    let line = |id: u32, n: usize| {
        serde_json::json!({"doc_id": id, "link": format!("https://news.example/{n}"),
            "html": "<p>not this</p>", "raw_html": article(n)})
        .to_string()
    };
    let input = format!("{}\n{}\n", line(1, 30), line(2, 31));
    let keys = [
        "--html-key",
        "raw_html",
        "--id-key",
        "doc_id",
        "--url-key",
        "link",
    ];
    for command in ["extract", "blocks"] {
        let out = textsift(
            &[&[command, "-"][..], &keys].concat(),
            Some(input.as_bytes()),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let recs = records(&out);
        let first = &recs[0];
        assert_eq!(first["source"], "1", "{command}");
        assert_eq!(first["url"], "https://news.example/30", "{command}");
        assert_eq!(recs.last().unwrap()["source"], "2", "{command}");
        if command == "extract" {
            assert!(first["text"].as_str().unwrap().contains("story 30"));
        }
        assert!(!stdout(&out).contains("not this"), "{command}");
    }
    // Without the names, the same records are read by `html`, with neither an `id` nor a
    // `url` to name them.
    let out = textsift(&["extract", "-"], Some(input.as_bytes()));
    assert_eq!(records(&out)[0]["source"], "-:1");
    assert!(!stdout(&out).contains("story 30"), "{}", stdout(&out));
    // A record without the page's field is reported by its name; the others go on.
    let input = format!("{{\"doc_id\": 9}}\n{}\n", line(3, 32));
    let out = textsift(
        &[&["extract", "-"][..], &keys].concat(),
        Some(input.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with(
            "textsift: 9: not a JSON record with a page in its \"raw_html\" field: missing field `raw_html`"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(records(&out)[0]["source"], "3");
    // One field for the page and its name is a usage error, before any page is read.
    let out = textsift(
        &["extract", "--html-key", "doc_id", "--id-key", "doc_id", "-"],
        Some(input.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the field \"doc_id\" cannot hold both the page and its id"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn fields_of_json_lines_records_pass_through() {
    let input = format!(
        "{}\n{}\n",
        serde_json::json!({"id": "a", "url": "https://news.example/a", "html": article(40),
            "crawl": {"date": "2026-11-01", "depth": 2}}),
        serde_json::json!({"html": article(41), "lang": "en", "id": "b"}),
    );
    let out = textsift(
        &["extract", "--keep-field", "lang,crawl", "-"],
        Some(input.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.split_once(",\"title\"").unwrap().0)
        .collect();
    assert_eq!(
        lines,
        [
            r#"{"source":"a","place":"-:1","url":"https://news.example/a","fields":{"crawl":{"date":"2026-11-01","depth":2}}"#,
            r#"{"source":"b","place":"-:2","fields":{"lang":"en"}"#,
        ]
    );
    assert!(!stderr(&out).contains("note"), "{}", stderr(&out));
    // A field named twice passes its last value through, at its first place.
    let twice = format!(
        "{{\"id\": \"t\", \"lang\": \"en\", \"html\": {}, \"crawl\": 1, \"lang\": \"fr\"}}\n",
        serde_json::to_string(&article(42)).unwrap()
    );
    let out = textsift(
        &["extract", "--keep-field", "lang,crawl", "-"],
        Some(twice.as_bytes()),
    );
    assert!(
        stdout(&out)
            .starts_with(r#"{"source":"t","place":"-:1","fields":{"lang":"fr","crawl":1},"title""#),
        "{}",
        stdout(&out)
    );
    // A name that no record holds, such as a path into a field, is noted once at the end.
    let out = textsift(
        &[
            "extract",
            "--keep-field",
            "missing,lang,crawl.date",
            "--keep-field",
            "missing",
            "-",
        ],
        Some(input.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "textsift: note: --keep-field: no JSON Lines record held \"crawl.date\", \"missing\" \
         (a name is one of a record's own fields, not a path into one)\n\
         textsift: 2 pages, 2 ok, 0 failed\n"
    );
    // A record whose page fails carries its fields into the failures' file too.
    let dir = tempfile::tempdir().unwrap();
    let errors = dir.path().join("errors.jsonl");
    let failing = format!(
        "{input}{}\n",
        serde_json::json!({"id": "c", "html": " ", "lang": "de"})
    );
    let out = textsift(
        &[
            "extract",
            "--keep-field",
            "lang",
            "--errors",
            errors.to_str().unwrap(),
            "-",
        ],
        Some(failing.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&errors).unwrap(),
        format!(
            "{{\"source\":\"c\",\"place\":\"-:{}\",\"fields\":{{\"lang\":\"de\"}},\"kind\":\"empty\",\
             \"error\":\"empty input\"}}\n",
            input.lines().count() + 1
        )
    );
    // Not asked for, no "fields"; asked for in a format that has no place for them, a usage
    // error.
    let out = textsift(&["extract", "-"], Some(input.as_bytes()));
    assert!(!stdout(&out).contains("\"fields\""));
    let out = textsift(
        &["extract", "--format", "text", "--keep-field", "lang", "-"],
        Some(input.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--keep-field needs --format json or jsonl"));
    // Asked for on one page without a format: JSON, as for --blocks.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<p>One page of text.</p>").unwrap();
    let out = textsift(
        &["extract", "--keep-field", "lang", page.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("{\n  \"source\":"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_last_record_cut_after_a_backslash_is_reported() {
    // A JSON Lines stream cut short inside an escape, with no line end after it: the last
    // record is refused with its place, the one before it is extracted.
    let mut input = serde_json::json!({"id": "whole", "html": article(1)}).to_string();
    input.push_str("\n{\"id\": \"cut\", \"html\": \"<p>caf\\ud800 \\");
    let out = textsift(&["extract", "-"], Some(input.as_bytes()));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let recs = records(&out);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["source"], "whole");
    let err = stderr(&out);
    assert!(
        err.starts_with("textsift: -:2: not a JSON record with a page in its \"html\" field"),
        "{err}"
    );
    assert!(
        err.ends_with("textsift: 2 pages, 1 ok, 1 failed\n"),
        "{err}"
    );
}

#[test]
fn sources_with_control_characters_stay_on_one_line() {
    // Record ids come from crawls: a line break or a terminal's escape codes in one must not
    // split a report or reach the terminal.
    let file = format!(
        "{}\n{}\n",
        serde_json::json!({"id": "bad\nid\u{1b}[31m", "html": ""}),
        serde_json::json!({"id": "two\nlines", "html": article(1)})
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ids.jsonl");
    std::fs::write(&path, file).unwrap();
    let out = textsift(
        &["extract", "--format", "text", path.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "textsift: bad\\nid\\u{1b}[31m: empty input\ntextsift: 2 pages, 1 ok, 1 failed\n"
    );
    assert!(
        stdout(&out).starts_with("==> two\\nlines <==\nStory 1 & more\n"),
        "{}",
        stdout(&out)
    );
}

/// The record id [`warc_response`] gives a record of this URI.
fn warc_record_id(uri: &str) -> String {
    let sum: u64 = uri.bytes().map(u64::from).sum();
    format!("<urn:uuid:00000000-0000-0000-0000-{sum:012}>")
}

/// A WARC response record holding `http`, its id made from `uri` ([`warc_record_id`]).
fn warc_response(uri: &str, http: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         WARC-Date: 2026-11-02T10:20:30Z\r\nWARC-Record-ID: {}\r\n\
         Content-Type: application/http\r\nContent-Length: {}\r\n\r\n",
        warc_record_id(uri),
        http.len()
    )
    .into_bytes();
    r.extend_from_slice(http);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// `data` as one zstd frame, compressed with `dictionary` when it is not empty.
fn zstd_frame(data: &[u8], dictionary: &[u8]) -> Vec<u8> {
    let mut e = zstd::stream::Encoder::with_dictionary(Vec::new(), 3, dictionary).unwrap();
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn zstd_inputs_read_as_their_plain_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let records: Vec<Vec<u8>> = (0..3)
        .map(|n| {
            let http = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{}",
                article(30 + n)
            );
            warc_response(&format!("https://example.com/{n}"), http.as_bytes())
        })
        .collect();
    // A body sent in the zstd content encoding, as browsers now fetch pages.
    let mut http =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: zstd\r\n\r\n".to_vec();
    http.extend(zstd_frame(article(33).as_bytes(), b""));
    let records = [records, vec![warc_response("https://example.com/3", &http)]].concat();
    let jsonl: String = (0..3)
        .map(|n| {
            format!(
                "{}\n",
                serde_json::json!({"id": n, "html": article(40 + n)})
            )
        })
        .collect();
    std::fs::write(p("page.html"), article(50)).unwrap();
    std::fs::write(p("crawl.warc"), records.concat()).unwrap();
    std::fs::write(p("pages.jsonl"), &jsonl).unwrap();
    // Compressed as `zstd` and a `.warc.zst` writer do: a page or a JSON Lines file as one
    // frame; a WARC file as a frame per record after a skippable frame that holds their
    // dictionary (here compressed itself, as the format allows).
    std::fs::write(p("page.html.zst"), zstd_frame(article(50).as_bytes(), b"")).unwrap();
    std::fs::write(p("pages.jsonl.zst"), zstd_frame(jsonl.as_bytes(), b"")).unwrap();
    // A dictionary larger than the first read of standard input.
    let mut noise = 0x2545_f491_u32;
    let mut dictionary: Vec<u8> = (0..20_000)
        .map(|_| {
            noise ^= noise << 13;
            noise ^= noise >> 17;
            noise ^= noise << 5;
            noise as u8
        })
        .collect();
    dictionary.extend_from_slice(&records[0][..200]);
    let stored = zstd_frame(&dictionary, b"");
    let mut warc_zst = [0x5d, 0x2a, 0x4d, 0x18].to_vec();
    warc_zst.extend(u32::try_from(stored.len()).unwrap().to_le_bytes());
    warc_zst.extend(stored);
    for r in &records {
        warc_zst.extend(zstd_frame(r, &dictionary));
    }
    std::fs::write(p("crawl.warc.zst"), warc_zst).unwrap();
    let run = |names: [&str; 3]| {
        let paths: Vec<String> = names.iter().map(|n| p(n)).collect();
        let mut args = vec!["extract", "--format", "jsonl", "--threads", "2"];
        args.extend(paths.iter().map(String::as_str));
        let out = textsift(&args, None);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
            .replace(".zst\"", "\"")
            .replace(".zst:", ":")
            .replace(".zst#", "#")
    };
    let plain = run(["page.html", "crawl.warc", "pages.jsonl"]);
    let packed = run(["page.html.zst", "crawl.warc.zst", "pages.jsonl.zst"]);
    assert_eq!(plain.lines().count(), 8, "{plain}");
    assert!(plain.contains("story 33"), "{plain}");
    assert_eq!(packed, plain);
    // One page alone, and standard input: the text of one page.
    let one = textsift(&["extract", &p("page.html.zst")], None);
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert!(
        stdout(&one).starts_with("Story 50 & more\n\nThe bridge story 50\n"),
        "{}",
        stdout(&one)
    );
    let piped = textsift(
        &["extract"],
        Some(&std::fs::read(p("page.html.zst")).unwrap()),
    );
    assert_eq!(stdout(&piped), stdout(&one));
    // A compressed stream piped in whose first read does not tell what it holds: several
    // pages, one record each.
    let piped = textsift(
        &["extract"],
        Some(&std::fs::read(p("crawl.warc.zst")).unwrap()),
    );
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    // (Its records are placed in `-`.)
    let warc_lines: String = plain
        .lines()
        .skip(1)
        .take(4)
        .map(|l| format!("{l}\n").replace(&p("crawl.warc#"), "-#"))
        .collect();
    assert_eq!(stdout(&piped), warc_lines);

    // A JSON Lines file cut inside its second frame: the first frame's records are kept, and
    // the cut is reported as a failure of its own kind.
    let frames: Vec<u8> = jsonl
        .lines()
        .flat_map(|l| zstd_frame(format!("{l}\n").as_bytes(), b""))
        .collect();
    let first = zstd_frame(
        format!("{}\n", jsonl.lines().next().unwrap()).as_bytes(),
        b"",
    );
    std::fs::write(p("cut.jsonl.zst"), &frames[..first.len() + 20]).unwrap();
    let errors = p("errors.jsonl");
    let out = textsift(&["extract", "--errors", &errors, &p("cut.jsonl.zst")], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let sources: Vec<String> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["source"].to_string())
        .collect();
    assert_eq!(sources, ["\"0\""]);
    assert!(
        stderr(&out).contains(&format!(
            "textsift: {}:2: bad zstd data: truncated zstd stream\n",
            p("cut.jsonl.zst")
        )),
        "{}",
        stderr(&out)
    );
    let failure: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&errors).unwrap().trim()).unwrap();
    assert_eq!(failure["kind"], "bad_zstd");
}

#[test]
fn a_charset_declared_outside_the_page_wins_over_its_meta() {
    // An article about a café whose <meta> names a charset its bytes are not in.
    let page = |meta: &str| {
        article(5)
            .replace("<head>", &format!("<head><meta charset=\"{meta}\">"))
            .replace("the town council", "the caf\u{e9} owners")
    };
    let dir = tempfile::tempdir().unwrap();
    // A JSON Lines record's page is a JSON string, so UTF-8.
    let jsonl = dir.path().join("pages.jsonl");
    let record = serde_json::json!({"id": "j", "html": page("windows-1252")});
    std::fs::write(&jsonl, format!("{record}\n")).unwrap();
    // A WARC record's HTTP header names ISO-8859-1; the bytes are; the <meta> says UTF-8.
    let latin1: Vec<u8> = page("utf-8").chars().map(|c| c as u32 as u8).collect();
    let mut http =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=ISO-8859-1\r\n\r\n".to_vec();
    http.extend_from_slice(&latin1);
    let warc = dir.path().join("crawl.warc");
    std::fs::write(&warc, warc_response("https://example.com/w", &http)).unwrap();
    for input in [&jsonl, &warc] {
        let out = textsift(&["extract", input.to_str().unwrap()], None);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("the caf\u{e9} owners planned"), "{text}");
    }
}

/// A tutorial page whose code sample is highlighted: tokens in `<span>`s, the layout between
/// them, a `<` and a Markdown fence inside the code.
fn tutorial() -> String {
    let prose = |n: usize| {
        format!(
            "<p>Step {n} of the tutorial explains, in several full sentences, how the parser \
             reads a configuration file. Each line holds a name and a value. Lines that start \
             with a hash are comments and are skipped.</p>"
        )
    };
    format!(
        "<html><head><title>Parsing files</title></head><body>\
         <nav><ul><li><a href=/>Home</a></li><li><a href=/docs>Docs</a></li></ul></nav>\
         <main><article><h1>Parsing files</h1>{}<ul><li>{ITEM_1}</li><li>{ITEM_2}</li></ul>{}\
         <pre><code><span class=k>fn</span> <span class=n>parse</span>(line: &amp;str) {{\n    \
         <span class=k>if</span> line.len() &lt; 3 {{\n        <span class=k>return</span>;\n    }}\
         \n    <span class=c>// ```</span>\n}}\n</code></pre>{}{}</article></main>\
         <footer><p>Copyright 2026 Example Docs.</p></footer></body></html>",
        prose(1),
        prose(2),
        prose(3),
        prose(4)
    )
}

/// The items of the list in [`tutorial`].
const ITEM_1: &str =
    "The parser reads the file one line at a time, from the first line to the last.";
const ITEM_2: &str = "It splits every line at the first equals sign into a name and a value.";

/// The code sample of [`tutorial`] as laid out on the page.
const TUTORIAL_CODE: &str =
    "fn parse(line: &str) {\n    if line.len() < 3 {\n        return;\n    }\n    // ```\n}";

#[test]
fn code_and_lists_keep_their_layout_in_every_format() {
    let page = tutorial();
    let text = stdout(&textsift(&["extract", "-"], Some(page.as_bytes())));
    assert!(text.contains(TUTORIAL_CODE), "{text}");
    // List items on lines of their own, as in WCXB's gold texts.
    assert!(
        text.contains(&format!(
            "sentences, how the parser reads a configuration file. Each \
             line holds a name and a value. Lines that start with a hash are comments and are \
             skipped.\n\n- {ITEM_1}\n- {ITEM_2}\n\nStep 2"
        )),
        "{text}"
    );
    let md = stdout(&textsift(
        &["extract", "--format", "markdown", "-"],
        Some(page.as_bytes()),
    ));
    // The code holds three backticks: its fence has four.
    assert!(
        md.contains(&format!("\n````\n{TUTORIAL_CODE}\n````\n")),
        "{md}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&textsift(
        &["extract", "--format", "json", "--blocks", "-"],
        Some(page.as_bytes()),
    )))
    .unwrap();
    let blocks = json["blocks"].as_array().unwrap();
    let code = blocks
        .iter()
        .position(|b| b["text"] == TUTORIAL_CODE)
        .expect("the code block, laid out");
    assert_eq!(blocks[code]["label"], "content");
    // Block records hold the text the features were computed from, whitespace collapsed.
    let records = stdout(&textsift(&["blocks", "-"], Some(page.as_bytes())));
    let record: serde_json::Value =
        serde_json::from_str(records.lines().nth(code).unwrap()).unwrap();
    assert_eq!(
        record["text"],
        "fn parse(line: &str) { if line.len() < 3 { return; } // ``` }"
    );
    let html = stdout(&textsift(
        &["extract", "--format", "html", "-"],
        Some(page.as_bytes()),
    ));
    assert!(
        html.contains("<bdi class=\"pre\">fn parse(line: &amp;str) {\n    if line.len() &lt; 3"),
        "{html}"
    );
}

#[test]
fn blocks_carry_labels_that_train_reads_back() {
    let out = textsift(&["blocks", "-"], Some(article(5).as_bytes()));
    assert!(out.status.success(), "{}", stderr(&out));
    let first: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert!(first["label"] == "boilerplate" || first["label"] == "content");
    assert!(first["features"]["words"].is_number());
}

#[test]
fn usage_and_model_errors() {
    // A URL is not fetched; the message says how to pipe the page in.
    let out = textsift(&["extract", "https://example.com/page"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("textsift: https://example.com/page: cannot read: no such file")
            && stderr(&out).contains("curl -s URL | textsift extract"),
        "{}",
        stderr(&out)
    );
    // No input named: the pages piped in are read, as with `-`.
    let out = textsift(&["extract"], Some(article(3).as_bytes()));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Paragraph 1 of story 3"),
        "{}",
        stdout(&out)
    );
    for args in [
        &["extract", "--threads", "100000", "-"][..],
        &["extract", "--threads", "many", "-"],
        &["extract", "--blocks", "--format", "text", "-"],
        &["extract", "--blocks", "--format", "html", "-"],
        &["extract", "--markdown", "--format", "markdown", "-"],
        &["extract", "--markdown", "--format", "text", "-"],
        // Settings out of range are usage errors too, named before any page is read.
        &["extract", "--threshold", "1.5", "-"],
        &["extract", "--threshold", "NaN", "-"],
        &["extract", "--decoder", "best", "-"],
        &["extract", "--max-bytes", "0", "-"],
        &["extract", "--max-nodes", "0", "-"],
        &["extract", "--max-blocks", "0", "-"],
        &["blocks", "--max-bytes", "0", "-"],
        &["eval", "--data", ".", "--threshold=-0.5"],
        // Only the expected-F1 cut can favour precision or recall.
        &["extract", "--favor", "precision", "--threshold", "0.5", "-"],
        &["blocks", "--favor", "recall", "--decoder", "mss", "-"],
        &["extract", "--favor", "most", "-"],
        // The expected-F1 cut has no threshold to set.
        &[
            "extract",
            "--decoder",
            "expected_f1",
            "--threshold",
            "0.9",
            "-",
        ],
        &[
            "eval",
            "--data",
            ".",
            "--decoder",
            "expected_f1",
            "--threshold",
            "0.9",
        ],
        &[
            "eval",
            "--data",
            ".",
            "--favor",
            "recall",
            "--threshold",
            "0.5",
        ],
    ] {
        let out = textsift(args, Some(article(3).as_bytes()));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
    assert_eq!(
        textsift(&["extract", "--no-such-flag", "-"], None)
            .status
            .code(),
        Some(2)
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.tsm");
    let mut truncated = b"TEXTSIFT".to_vec();
    truncated.extend_from_slice(&textsift::serial::FORMAT_VERSION.to_le_bytes());
    truncated.extend_from_slice(b"garbage");
    std::fs::write(&bad, truncated).unwrap();
    let out = textsift(
        &["extract", "--model", bad.to_str().unwrap(), "-"],
        Some(b"<p>x</p>"),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("textsift: model refused:") && err.contains("truncated"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    let out = textsift(
        &["extract", "--model", "/no/such/model.tsm", "-"],
        Some(b"<p>x</p>"),
    );
    assert_eq!(out.status.code(), Some(1));
    // One line naming the file, the cause said once.
    let err = stderr(&out);
    assert!(
        err.starts_with("textsift: model file /no/such/model.tsm: cannot read:"),
        "{err}"
    );
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn records_on_standard_input_give_json_lines() {
    let mut jsonl = Vec::new();
    for (id, n) in [("first", 20), ("second", 21)] {
        writeln!(
            jsonl,
            "{}",
            serde_json::json!({"id": id, "html": article(n)})
        )
        .unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&jsonl).unwrap();
    let gz = gz.finish().unwrap();
    // Plain or gzipped, records piped in are several pages: one JSON record each, not texts
    // that run together.
    for input in [&jsonl, &gz] {
        let out = textsift(&["extract", "-"], Some(input));
        assert!(out.status.success(), "{}", stderr(&out));
        let recs = records(&out);
        assert_eq!(recs.len(), 2, "{}", stdout(&out));
        assert_eq!(recs[0]["source"], "first");
        assert!(recs[1]["text"].as_str().unwrap().contains("story 21"));
    }
    // One page piped in stays text.
    let out = textsift(&["extract", "-"], Some(article(22).as_bytes()));
    assert!(
        stdout(&out).starts_with("Story 22 & more\n\n"),
        "{}",
        stdout(&out)
    );
    // Nothing piped in is one bad page.
    let out = textsift(&["extract", "-"], Some(b""));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "textsift: -: empty input\ntextsift: 1 page, 0 ok, 1 failed\n"
    );
}

/// A pipe named as a file (`/dev/stdin` here, `<(zcat …)` in a shell) can be read only once:
/// nothing read to tell what it holds may be lost to the reading of its pages.
#[cfg(target_os = "linux")]
#[test]
fn a_pipe_named_as_a_file_is_read_whole() {
    let page = article(23);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(page.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    for input in [page.as_bytes(), &gz] {
        let out = textsift(&["extract", "/dev/stdin"], Some(input));
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stdout(&out).starts_with("Story 23 & more\n\n"),
            "{}",
            stdout(&out)
        );
        assert!(stdout(&out).contains("Paragraph 5 of story 23"));
    }
    // Records through a named pipe are all read; --format says how to write them.
    let jsonl: String = [("first", 24), ("second", 25)]
        .iter()
        .map(|(id, n)| format!("{}\n", serde_json::json!({"id": id, "html": article(*n)})))
        .collect();
    let out = textsift(
        &["extract", "--format", "jsonl", "/dev/stdin"],
        Some(jsonl.as_bytes()),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let sources: Vec<String> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["source"].to_string())
        .collect();
    assert_eq!(sources, ["\"first\"", "\"second\""]);
    // As text, each record's page after a line naming it, as for several files, though the
    // pipe could not be looked into before it was read; a summary ends the run.
    for format in ["text", "markdown"] {
        let out = textsift(
            &["extract", "--format", format, "/dev/stdin"],
            Some(jsonl.as_bytes()),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.starts_with("==> first <==\n"), "{text}");
        let at = text
            .find("\n\n==> second <==\n")
            .expect("second page named");
        assert!(text[..at].contains("Paragraph 5 of story 24"), "{text}");
        assert!(text[at..].contains("Paragraph 5 of story 25"), "{text}");
        assert_eq!(stderr(&out), "textsift: 2 pages, 2 ok, 0 failed\n");
    }
    // As JSON, the records make one array, and the debug view one document, as for a file.
    let out = textsift(
        &["extract", "--format", "json", "/dev/stdin"],
        Some(jsonl.as_bytes()),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let array: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON value");
    let sources: Vec<&str> = array
        .as_array()
        .expect("an array")
        .iter()
        .map(|r| r["source"].as_str().unwrap())
        .collect();
    assert_eq!(sources, ["first", "second"]);
    let out = textsift(
        &["extract", "--format", "html", "/dev/stdin"],
        Some(jsonl.as_bytes()),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).matches("</html>").count(),
        1,
        "{}",
        stdout(&out)
    );
    // A page through the pipe is one JSON object.
    let out = textsift(
        &["extract", "--format", "json", "/dev/stdin"],
        Some(page.as_bytes()),
    );
    let one: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON value");
    assert_eq!(one["source"], "/dev/stdin");
}

#[test]
fn markdown_keeps_links_when_asked_for() {
    let page = "<title>Bridge works</title><article><h1>Bridge works</h1>\
                <p>The <a href='/bridge (old)'>harbour bridge</a> reopened on Monday, said \
                the <a href='https://example.com/council?a=1&amp;b=2'>city council</a>; \
                <a href=#top>top</a> and <a href='javascript:void(0)'>this</a> lead nowhere.</p>\
                <h2><a href=/more>More on the bridge</a></h2></article>";
    let keep_all = ["--decoder", "threshold", "--threshold", "0.01"];
    let run = |args: &[&str]| {
        let mut all = vec!["extract"];
        all.extend(keep_all);
        all.extend(args);
        all.push("-");
        textsift(&all, Some(page.as_bytes()))
    };
    let md = stdout(&run(&["--format", "markdown", "--links"]));
    assert!(
        md.contains(
            "The [harbour bridge](/bridge%20\\(old\\)) reopened on Monday, said the \
             [city council](https://example.com/council?a=1&b=2); top and this lead nowhere."
        ),
        "{md}"
    );
    assert!(md.contains("\n## [More on the bridge](/more)\n"), "{md}");
    // Without `--links`, the same text without them.
    let plain = stdout(&run(&["--format", "markdown"]));
    assert!(!plain.contains("]("), "{plain}");
    assert!(plain.contains("The harbour bridge reopened"), "{plain}");
    // In a record's Markdown; the text stays as it is.
    let record = stdout(&run(&["--format", "jsonl", "--markdown", "--links"]));
    let r: serde_json::Value = serde_json::from_str(record.trim_end()).unwrap();
    assert_eq!(r["markdown"], md.trim_end());
    assert!(!r["text"].as_str().unwrap().contains("]("));
    // Links need Markdown.
    for args in [&["--links"][..], &["--format", "jsonl", "--links"]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("--links needs Markdown"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn links_resolve_against_the_pages_url_when_it_is_known() {
    let page = |head: &str| {
        format!(
            "<html><head>{head}<title>Bridge works</title></head><body><article>\
             <h1>Bridge works</h1><p>The <a href='photos/bridge.html'>harbour bridge</a> \
             reopened on Monday, said the <a href='/council'>city council</a> and \
             <a href='https://example.org/'>its engineers</a>.</p></article></body></html>"
        )
    };
    // Every block kept, the Markdown of each page in its record.
    let markdown_of = |input: &str, more: &[&str], stdin: Option<&[u8]>| -> Vec<String> {
        let mut args = vec!["extract", "--format", "jsonl", "--markdown", "--links"];
        args.extend(["--decoder", "threshold", "--threshold", "0.01"]);
        args.extend(more);
        args.push(input);
        let out = textsift(&args, stdin);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .map(|l| {
                let r: serde_json::Value = serde_json::from_str(l).unwrap();
                r["markdown"].as_str().unwrap().to_string()
            })
            .collect()
    };
    let links = |base: &str| {
        format!(
            "The [harbour bridge]({base}photos/bridge.html) reopened on Monday, said the \
             [city council](https://news.example/council) and [its engineers](https://example.org/)."
        )
    };
    let dir = tempfile::tempdir().unwrap();
    // A JSON Lines record's `url`, and the record without one.
    let jsonl = dir.path().join("pages.jsonl");
    let with_url = serde_json::json!({"id": "a", "url": "https://news.example/2026/story.html",
                                      "html": page("")});
    let without = serde_json::json!({"id": "b", "html": page("")});
    // A page whose `<base>` moves its links elsewhere; relative itself, it resolves against
    // the page's URL.
    let based = serde_json::json!({"id": "c", "url": "https://news.example/2026/story.html",
                                   "html": page("<base href='/archive/'><base href='/other/'>")});
    std::fs::write(&jsonl, format!("{with_url}\n{without}\n{based}\n")).unwrap();
    let md = markdown_of(jsonl.to_str().unwrap(), &[], None);
    assert!(
        md[0].contains(&links("https://news.example/2026/")),
        "{}",
        md[0]
    );
    assert!(
        md[1].contains("[harbour bridge](photos/bridge.html)"),
        "{}",
        md[1]
    );
    assert!(md[1].contains("[city council](/council)"), "{}", md[1]);
    assert!(
        md[2].contains(&links("https://news.example/archive/")),
        "{}",
        md[2]
    );
    // A WARC record's target URI.
    let warc = dir.path().join("crawl.warc");
    let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
    http.extend_from_slice(page("").as_bytes());
    std::fs::write(
        &warc,
        warc_response("https://news.example/2026/story.html", &http),
    )
    .unwrap();
    let md = markdown_of(warc.to_str().unwrap(), &[], None);
    assert!(
        md[0].contains(&links("https://news.example/2026/")),
        "{}",
        md[0]
    );
    // `--url` for pages that do not say their own: one from standard input, and the record
    // without a `url`, while the records with one keep theirs.
    let url = ["--url", "https://news.example/2026/story.html"];
    let md = markdown_of("-", &url, Some(page("").as_bytes()));
    assert!(
        md[0].contains(&links("https://news.example/2026/")),
        "{}",
        md[0]
    );
    let url = ["--url", "https://news.example/elsewhere/page"];
    let md = markdown_of(jsonl.to_str().unwrap(), &url, None);
    assert!(
        md[0].contains(&links("https://news.example/2026/")),
        "{}",
        md[0]
    );
    assert!(
        md[1].contains(&links("https://news.example/elsewhere/")),
        "{}",
        md[1]
    );
    // `--url` needs `--links` and an http or https URL.
    for bad in [
        &["--format", "markdown", "--url", "https://news.example/"][..],
        &[
            "--format",
            "markdown",
            "--links",
            "--url",
            "news.example/story",
        ],
        &[
            "--format",
            "markdown",
            "--links",
            "--url",
            "file:///tmp/story.html",
        ],
    ] {
        let mut args = vec!["extract"];
        args.extend(bad);
        args.push("-");
        let out = textsift(&args, Some(page("").as_bytes()));
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("--url"), "{}", stderr(&out));
    }
}

/// A page whose text holds characters that Markdown reads as markup, with an ordered list and
/// a table of figures.
fn tricky_markdown_page() -> String {
    format!(
        "<html><head><title>Escaping *stars* &amp; _lines_</title></head><body>\
         <nav><ul><li><a href=/>Home</a></li><li><a href=/docs>Docs</a></li></ul></nav>\
         <main><article><h1>Writing &lt;script&gt; tags in a page #</h1>\
         <p># of items in the cart is shown with a hash sign at the start of this paragraph.</p>\
         <p>1. This paragraph starts with a number and a dot, as an ordered list would.</p>\
         <p>- This one starts with a dash; *these stars* and _these lines_ are text, as is \
         [this](http://x) and &amp;amp;.</p>\
         <p>&lt;img src=x onerror=alert(1)&gt; is text the page shows, not markup, and so is a \
         back\\slash at the end \\</p>\
         <h2>1. Read the settings</h2>\
         <p>The function read_file of the module file_io, tagged #python, reads the file \
         C:\\Users\\me\\notes.txt, as note [1] says, when a = 2 < 3.</p>\
         <ol><li>First step of the tutorial, with enough words to be kept as content.</li>\
         <li>Second step of the tutorial, also with enough words to be kept.<ul>\
         <li>A detail of the second step, which the tutorial explains in a full sentence.</li>\
         </ul></li></ol>\
         <p>Between the steps, a paragraph of the tutorial that explains what comes next.</p>\
         <p>The publisher of this tutorial, whose address is given here in three lines:<br>\
         === Example Docs ===<br>- 12 High Street, Springfield</p>\
         <ol start=3><li>Third step of the tutorial, with enough words to be kept as content.\
         <br>A second line of the third step, after a line break inside the item.</li></ol>\
         <table><thead><tr><th>Setting</th><th>Default</th></tr></thead><tbody>\
         <tr><td>alpha | rate</td><td>0.5 for every run of the tool</td></tr>\
         <tr><td>beta</td><td>1.0 for every run of the tool</td></tr>\
         <tr><td rowspan=2>gamma</td><td>2.0 for the first run of the tool</td></tr>\
         <tr><td>3.0 for every later run of the tool</td></tr></tbody></table>\
         <pre><ul><li>Run it as *root* once: textsift --check config.toml\n\n        \
         then as _yourself_: textsift --check config.toml</li></ul></pre>\
         <blockquote><p>Quoted from the author of the tool, who explains in a full sentence \
         why it reads its settings once.</p></blockquote>\
         <p>{}</p></article></main><footer><p>Copyright 2026 Example Docs.</p></footer>\
         </body></html>",
        "The tool reads both settings from its configuration file when it starts. ".repeat(3)
    )
}

#[test]
fn markdown_renders_as_the_page_shows_its_text_and_tables_keep_their_rows() {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let page = tricky_markdown_page();
    let text = stdout(&textsift(&["extract", "-"], Some(page.as_bytes())));
    let md = stdout(&textsift(
        &["extract", "--format", "markdown", "-"],
        Some(page.as_bytes()),
    ));
    let mut shown = String::new();
    let (mut tables, mut rows, mut ordered, mut html) = (0, 0, Vec::new(), Vec::new());
    let (mut lists, mut deepest, mut breaks, mut quotes) = (0, 0, 0, 0);
    for event in Parser::new_ext(&md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Text(t) | Event::Code(t) => shown.push_str(&t),
            Event::Html(t) | Event::InlineHtml(t) => html.push(t.to_string()),
            Event::Start(Tag::Table(_)) => tables += 1,
            Event::Start(Tag::TableRow | Tag::TableHead) => rows += 1,
            Event::Start(Tag::List(first)) => {
                ordered.extend(first);
                lists += 1;
                deepest = deepest.max(lists);
            }
            Event::End(TagEnd::List(_)) => lists -= 1,
            Event::Start(Tag::BlockQuote(_)) => {
                quotes += 1;
                shown.push(' ')
            }
            Event::HardBreak => {
                breaks += 1;
                shown.push(' ')
            }
            // Escapes cut text into several events: spaces only where blocks start or end.
            Event::Start(_) | Event::End(_) | Event::SoftBreak => shown.push(' '),
            _ => {}
        }
    }
    assert!(html.is_empty(), "{html:?}\n{md}");
    // The text output gives the table a row per line, as WCXB's gold texts mostly do.
    assert!(
        text.contains("\n\nSetting\tDefault\nalpha | rate\t0.5 for every run of the tool\nbeta\t"),
        "{text}"
    );
    // A cell below one that spans two rows is in the second column.
    assert!(
        text.contains("\ngamma\t2.0 for the first run of the tool\n\t3.0 for every later run"),
        "{text}"
    );
    // The detail is a list inside the second step; the third step is numbered as the page
    // numbers it, and its second line stays in it, after a line break, as do the lines of the
    // address (the dash escaped, so that it does not start a list).
    assert_eq!(
        (tables, rows, ordered, deepest, breaks),
        (1, 5, vec![1, 3], 2, 3),
        "{md}"
    );
    // The quote's paragraph, a `<p>` inside the `<blockquote>`, is quoted.
    assert_eq!(quotes, 1, "{md}");
    assert!(md.contains("\n> Quoted from the author"), "{md}");
    assert!(
        md.contains(
            "\n3. Third step of the tutorial, with enough words to be kept as content.\\\n   \
                     A second line of the third step"
        ),
        "{md}"
    );
    assert!(
        md.contains("in three lines:\\\n=== Example Docs ===\\\n\\- 12 High Street"),
        "{md}"
    );
    // Only what would read as markup is escaped: not a word's underscores, a hashtag, a
    // path's backslashes, a `]` or a `<` before a space, nor a number opening a heading.
    assert!(md.contains("\n## 1. Read the settings\n"), "{md}");
    assert!(
        md.contains(
            "The function read_file of the module file_io, tagged #python, reads the file \
             C:\\Users\\me\\notes.txt, as note \\[1] says, when a = 2 < 3."
        ),
        "{md}"
    );
    assert!(
        text.contains("in three lines:\n=== Example Docs ===\n- 12 High Street, Springfield\n\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "\n3. Third step of the tutorial, with enough words to be kept as content.\n\
                       A second line of the third step"
        ),
        "{text}"
    );
    // What the Markdown shows is the text output, character for character but for spaces.
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    // The text output marks the lists' items with `- ` or their number, as Markdown does,
    // whose renderer shows the markers apart from the text.
    let text_without_markers = text
        .replace("\n1. First", "\nFirst")
        .replace("\n2. Second", "\nSecond")
        .replace("\n- A detail", "\nA detail")
        .replace("\n3. Third", "\nThird")
        .replace("\n- Run it", "\nRun it");
    assert_eq!(squeeze(&shown), squeeze(&text_without_markers), "{md}");
}

#[test]
fn an_old_news_page_gives_its_headline_once_and_its_story() {
    // A news page of the early 2000s: a layout table, the headline a bold line in the story's
    // cell (no <h1>), paragraphs cut by <br><br>, menus and ads in the cells beside it.
    let story = [
        "Heavy rain that began late Tuesday sent the Cedar River over its banks early \
         Wednesday, forcing hundreds of residents in three valley towns from their homes.",
        "Emergency crews used boats to reach families stranded on rooftops in the lowest parts \
         of Millbrook, where the water rose more than four feet in two hours, officials said.",
        "The county opened shelters at the high school and two churches, and the Red Cross \
         said it expected to house at least four hundred people through the weekend.",
    ];
    let page = format!(
        "<html><head><title>Storm floods valley towns - The Daily Courier</title></head>\
         <body><table width=100%><tr><td colspan=3><a href=/>Home</a> | <a href=/news>News</a> \
         | <a href=/sports>Sports</a></td></tr><tr><td width=150 valign=top>\
         <a href=/local>Local</a><br><a href=/state>State</a><br><a href=/nation>Nation</a><br>\
         <a href=/obits>Obituaries</a><br></td><td valign=top>\
         <font size=+2><b>Storm floods valley towns</b></font><br>\
         <font size=-1>By Martha Jennings, Staff Writer</font><br><br>{}</td>\
         <td width=160 valign=top><b>Advertisement</b><br>\
         <a href=http://ads.example/1>Low mortgage rates! Refinance today</a></td></tr>\
         <tr><td colspan=3><font size=-2>Copyright 2004 The Daily Courier. \
         <a href=/privacy>Privacy</a></font></td></tr></table></body></html>",
        story.join("<br><br>")
    );
    // The byline is a line of the headline's paragraph (after one `<br>`); Markdown sets it
    // apart, as a heading has one line.
    for (format, first) in [
        (
            "text",
            "Storm floods valley towns\nBy Martha Jennings, Staff Writer\n\n",
        ),
        (
            "markdown",
            "# Storm floods valley towns\n\nBy Martha Jennings, Staff Writer\n\n",
        ),
    ] {
        let out = textsift(&["extract", "--format", format, "-"], Some(page.as_bytes()));
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        // The title names the bold line, which is the top heading, written once.
        assert!(text.starts_with(first), "{format}:\n{text}");
        assert_eq!(text.matches("Storm floods").count(), 1, "{format}:\n{text}");
        for line in story {
            assert!(
                text.contains(line),
                "{format}: story line lost: {line}\n{text}"
            );
        }
        for boilerplate in ["Obituaries", "Low mortgage", "Copyright", "Privacy"] {
            assert!(
                !text.contains(boilerplate),
                "{format}: {boilerplate} kept:\n{text}"
            );
        }
    }
}

/// Output sent to a file inside the directory walked is not read back as a page, and
/// `--errors` cannot name that file too (Linux, which names standard output's file).
#[cfg(target_os = "linux")]
#[test]
fn the_output_file_is_not_read_as_an_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.html"), article(1)).unwrap();
    std::fs::write(dir.path().join("b.html"), article(2)).unwrap();
    let out_path = dir.path().join("out.jsonl");
    let run = |args: &[&str]| {
        let out = std::fs::File::create(&out_path).unwrap();
        Command::new(env!("CARGO_BIN_EXE_textsift"))
            .args(args)
            .stdout(out)
            .stderr(Stdio::piped())
            .output()
            .unwrap()
    };
    let root = dir.path().to_str().unwrap();
    let done = run(&["extract", root]);
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    assert_eq!(stderr(&done), "textsift: 2 pages, 2 ok, 0 failed\n");
    let written = std::fs::read_to_string(&out_path).unwrap();
    assert_eq!(written.lines().count(), 2);
    let errors = out_path.to_str().unwrap();
    let refused = run(&["extract", "--errors", errors, root]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused)
        .starts_with("textsift: --errors names the file that standard output goes to"));
    // Nor the file that standard error is appended to: the log would be emptied.
    let logs = tempfile::tempdir().unwrap();
    let log_path = logs.path().join("run.log");
    std::fs::write(&log_path, "an earlier run's line\n").unwrap();
    let log = std::fs::OpenOptions::new()
        .append(true)
        .open(&log_path)
        .unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_textsift"))
        .args(["extract", "--errors", "/dev/stderr", root])
        .stdout(Stdio::null())
        .stderr(log)
        .status()
        .unwrap();
    assert_eq!(refused.code(), Some(2));
    let logged = std::fs::read_to_string(&log_path).unwrap();
    assert!(
        logged.starts_with(
            "an earlier run's line\ntextsift: --errors names the file that \
             standard error goes to: /dev/stderr"
        ),
        "{logged}"
    );
}

#[test]
fn json_of_several_pages_is_one_array() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(p("a.html"), article(1)).unwrap();
    std::fs::write(p("b.html"), article(2)).unwrap();
    let json = |args: &[&str]| {
        let out = textsift(&[&["extract", "--format", "json"], args].concat(), None);
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one document");
        (out.status.code(), v)
    };
    // One page: its record; several, a failed one among them, or none: an array of records.
    let (code, one) = json(&[&p("a.html")]);
    assert_eq!(
        (code, one["source"].as_str()),
        (Some(0), Some(&*p("a.html")))
    );
    let (code, many) = json(&[&p("a.html"), &p("missing.html"), &p("b.html")]);
    assert_eq!(code, Some(1));
    let sources: Vec<_> = many
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["source"].clone())
        .collect();
    assert_eq!(sources, [p("a.html"), p("b.html")]);
    assert_eq!(many[1], json(&[&p("b.html")]).1);
    assert_eq!(
        json(&[&p("missing.html"), &p("gone.html")]).1,
        serde_json::json!([])
    );
}

#[test]
fn errors_file_lists_failed_pages_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(p("a.html"), article(1)).unwrap();
    std::fs::write(p("b.html"), b"").unwrap();
    std::fs::write(p("c.html"), article(2)).unwrap();
    // A WARC record whose page is over the size limit, named by its record id too.
    let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
    http.extend_from_slice(article(3).repeat(4).as_bytes());
    // Before it, a redirect: a record without a page, passed over, not a failure.
    let mut warc = warc_response(
        "https://example.com/old",
        b"HTTP/1.1 301 Moved Permanently\r\nLocation: /big\r\n\r\n",
    );
    warc.extend(warc_response("https://example.com/big", &http));
    std::fs::write(p("crawl.warc"), warc).unwrap();
    // A JSON Lines record with an id and a url, and a line that is no record.
    std::fs::write(
        p("pages.jsonl"),
        "{\"id\": \"r1\", \"url\": \"https://example.com/r1\", \"html\": \"\\u0089PNG\\r\\n\\u001a\\n\"}\nnot json\n",
    )
    .unwrap();
    let (good, warc, jsonl) = (p("a.html"), p("crawl.warc"), p("pages.jsonl"));
    let inputs = [
        &good,
        &p("b.html"),
        &p("c.html"),
        &p("missing.html"),
        &warc,
        &jsonl,
    ];
    let expected = [
        serde_json::json!({"source": p("b.html"), "kind": "empty", "error": "empty input"}),
        serde_json::json!({"source": p("missing.html"), "kind": "cannot_read"}),
        // Named by their address or id, records say where they are in their input.
        serde_json::json!({"source": "https://example.com/big", "place": format!("{warc}#2"),
            "kind": "too_large", "warc_record_id": warc_record_id("https://example.com/big")}),
        serde_json::json!({"source": "r1", "place": format!("{jsonl}:1"),
            "url": "https://example.com/r1", "kind": "not_html"}),
        serde_json::json!({"source": format!("{jsonl}:2"), "kind": "bad_record"}),
    ];
    for (command, threads) in [("extract", "1"), ("extract", "2"), ("blocks", "2")] {
        let errors = p(&format!("errors-{command}-{threads}.jsonl"));
        let mut args = vec![command, "--threads", threads, "--max-bytes", "4000"];
        args.extend(["--errors", errors.as_str()]);
        args.extend(inputs.iter().map(|s| s.as_str()));
        let out = textsift(&args, None);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(
            stderr(&out).ends_with(
                "7 pages, 2 ok, 5 failed; 1 WARC record without a page passed over (redirects, \
                 error pages, empty responses, other media types)\n"
            ),
            "{}",
            stderr(&out)
        );
        let sources: Vec<String> = records(&out)
            .iter()
            .map(|r| r["source"].as_str().unwrap().to_string())
            .collect();
        assert!(sources.contains(&p("c.html")), "{sources:?}");
        let written = std::fs::read_to_string(&errors).unwrap();
        let got: Vec<serde_json::Value> = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(got.len(), expected.len(), "{written}");
        for (g, e) in got.iter().zip(&expected) {
            // Every key expected is there with its value, and no other key but the message.
            for (key, value) in e.as_object().unwrap() {
                assert_eq!(&g[key], value, "{key} in {g}");
            }
            let keys = |v: &serde_json::Value| {
                let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
                keys.push("error".into());
                keys.sort_unstable();
                keys.dedup();
                keys
            };
            assert_eq!(keys(g), keys(e), "{g}");
            // The message is the one stderr gives after the source.
            let line = format!(
                "{}: {}",
                g["source"].as_str().unwrap(),
                g["error"].as_str().unwrap()
            );
            assert!(stderr(&out).contains(&line), "{line}");
        }
    }

    // No failure: the file is there, empty.
    let errors = p("none.jsonl");
    let out = textsift(&["extract", "--errors", &errors, &good], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&errors).unwrap(), "");

    // An input named as the errors file is a usage error, and the input is left as it was.
    let before = std::fs::read(&jsonl).unwrap();
    let out = textsift(&["extract", "--errors", &jsonl, &good, &jsonl], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(&format!(
            "textsift: --errors would overwrite an input: {jsonl}; see 'textsift extract --help'\n"
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&jsonl).unwrap(), before);

    // Written into a directory that is walked, the file is this run's output: passed over,
    // whether it was there before the run or not. Named as an input that is not there yet,
    // it is not read either, and is reported.
    let walked = tempfile::tempdir().unwrap();
    std::fs::write(walked.path().join("a.html"), article(1)).unwrap();
    let in_walked = walked
        .path()
        .join("errors.jsonl")
        .to_str()
        .unwrap()
        .to_string();
    let root = walked.path().to_str().unwrap();
    for _ in 0..2 {
        let out = textsift(&["extract", "--errors", &in_walked, root], None);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let sources: Vec<_> = records(&out).iter().map(|r| r["source"].clone()).collect();
        assert_eq!(sources, [format!("{root}/a.html")]);
    }
    // But a page found there is not emptied: the run is refused.
    let page = format!("{root}/a.html");
    let out = textsift(&["extract", "--errors", &page, root], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(&format!(
            "textsift: --errors would overwrite an input: {page} (in {root})"
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&page).unwrap(), article(1));
    // A file that holds something else than failures is refused, whether a list names it
    // or not, or no list is read (two names swapped); an earlier run's failures are written
    // over.
    let other = p("other.html");
    std::fs::write(&other, article(2)).unwrap();
    let out = textsift(&["extract", "--errors", &page, &other], None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), article(1));
    for list in [page.clone(), String::new()] {
        let out = textsift(
            &["extract", "--files-from", "-", "--errors", &page],
            Some(list.as_bytes()),
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).starts_with(&format!(
                "textsift: --errors would overwrite a file that holds something else than an \
                 earlier run's failures: {page} (remove it first, or name another file)"
            )),
            "{}",
            stderr(&out)
        );
        assert_eq!(std::fs::read_to_string(&page).unwrap(), article(1));
    }
    // Extract's own records, or blocks labelled by hand, begin with a `source` too: kept.
    let extracted = textsift(&["extract", "--format", "jsonl", &other], None);
    let blocks = textsift(&["blocks", &other], None);
    for kept in [stdout(&extracted), stdout(&blocks)] {
        std::fs::write(&in_walked, &kept).unwrap();
        let out = textsift(&["extract", "--errors", &in_walked, &other], None);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&in_walked).unwrap(), kept);
    }
    std::fs::write(
        &in_walked,
        "{\"source\":\"x\",\"kind\":\"empty\",\"error\":\"empty page\"}\n",
    )
    .unwrap();
    let out = textsift(
        &["extract", "--files-from", "-", "--errors", &in_walked],
        Some(page.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&in_walked).unwrap(), "");
    let fresh = p("fresh.jsonl");
    let out = textsift(&["extract", "--errors", &fresh, &good, &fresh], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "textsift: {fresh}: cannot read: this run writes its --errors there\n\
             textsift: 2 pages, 1 ok, 1 failed\n"
        )
    );

    // A file that cannot be created stops the run before any page is read.
    let bad = p("no-such-dir/errors.jsonl");
    let out = textsift(&["extract", "--errors", &bad, &good], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        format!("textsift: cannot write {bad}: No such file or directory (os error 2)\n")
    );
}

#[test]
fn a_page_cut_at_the_block_limit_says_so_in_its_record() {
    let page = article(1);
    let full = records(&textsift(
        &["extract", "--format", "jsonl", "-"],
        Some(page.as_bytes()),
    ));
    assert!(full[0].get("truncated").is_none(), "{}", full[0]);
    let o = textsift(
        &["extract", "--max-blocks", "3", "--format", "jsonl", "-"],
        Some(page.as_bytes()),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let cut = records(&o);
    assert_eq!(cut[0]["truncated"], true, "{}", cut[0]);
    assert!(
        cut[0]["text"].as_str().unwrap().len() < full[0]["text"].as_str().unwrap().len(),
        "{}",
        cut[0]
    );
    // The summary counts the pages cut, even of one page, which it would not name otherwise.
    assert_eq!(
        stderr(&o),
        "textsift: 1 page, 1 ok (1 cut short at a limit), 0 failed\n"
    );
}

#[test]
fn cards_with_headings_and_spec_tables_with_paragraphs_keep_their_structure() {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let card = |name: &str, what: &str| {
        format!(
            "<li><div class=card><h3>{name}</h3><div>The {name} is {what}, and in our tests \
             over several weeks it boiled a litre of water in about four minutes.</div></div></li>"
        )
    };
    let row = |k: &str, v: &str| format!("<tr><th>{k}</th><td><p>{v}</p></td></tr>");
    let page = format!(
        "<html><head><title>Camp stoves</title></head><body><main><article>\
         <h1>Camp stoves</h1><p>Choosing a camp stove is mostly a question of how many people \
         you cook for, how far you carry the stove, and which fuel you can buy where you go.</p>\
         <ul>{}{}</ul><h2>Specifications of the Cascade</h2><table>{}{}{}</table>\
         <p>Whichever stove you pick, carry a spare canister and a lighter, since the igniters \
         on every model we tested failed at least once in cold and damp weather.</p>\
         </article></main></body></html>",
        card("Cascade", "a two burner stove with auto ignition"),
        card(
            "Genesis",
            "a compact system that packs two burners into a case"
        ),
        row("Weight", "4.2 kg"),
        row("Burners", "2"),
        row("Output", "12,000 BTU"),
    );
    let md = stdout(&textsift(
        &["extract", "--format", "markdown", "-"],
        Some(page.as_bytes()),
    ));
    // Each card is one item that holds its heading and its text; the table keeps its rows.
    let (mut items, mut in_item, mut headings_in_items, mut rows) = (0, 0, 0, 0);
    for event in Parser::new_ext(&md, pulldown_cmark::Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Item) => {
                items += 1;
                in_item += 1;
            }
            Event::End(TagEnd::Item) => in_item -= 1,
            Event::Start(Tag::Heading { .. }) if in_item > 0 => headings_in_items += 1,
            Event::Start(Tag::TableRow | Tag::TableHead) => rows += 1,
            _ => {}
        }
    }
    assert_eq!((items, headings_in_items), (2, 2), "{md}");
    // An empty header row, then a row for each `<tr>`.
    assert_eq!(rows, 4, "{md}");
    assert!(md.contains("\n- ### Cascade\n\n  The Cascade is"), "{md}");
    assert!(md.contains("\n| Burners | 2 |\n"), "{md}");
    let text = stdout(&textsift(&["extract", "-"], Some(page.as_bytes())));
    assert!(text.contains("\n- Genesis\nThe Genesis is"), "{text}");
    assert!(text.contains("\nWeight\t4.2 kg\nBurners\t2\n"), "{text}");
}

#[test]
fn code_in_a_description_is_a_code_block_of_its_item() {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let page = "<dl><dt>Usage</dt><dd><pre>tool --x</pre></dd><dd>Runs the tool.</dd></dl>\
                <dl><dt>Flags</dt><dd><p>Call it so:</p><pre>tool --y</pre></dd><dd>Done.</dd></dl>";
    let md = stdout(&textsift(
        &["extract", "--threshold", "0", "--format", "markdown", "-"],
        Some(page.as_bytes()),
    ));
    // No hard line break next to a fence, where `\\` would make the fence text.
    assert_eq!(
        md,
        "- Usage\n\n  ```\n  tool --x\n  ```\n\n  Runs the tool.\n\
         * Flags\\\n  Call it so:\n\n  ```\n  tool --y\n  ```\n\n  Done.\n\n"
    );
    // Each code block holds its code alone, inside its item.
    let (mut in_code, mut in_item, mut code) = (false, 0, Vec::new());
    for event in Parser::new(&md) {
        match event {
            Event::Start(Tag::Item) => in_item += 1,
            Event::End(TagEnd::Item) => in_item -= 1,
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Text(t) if in_code => code.push((in_item, t.to_string())),
            _ => {}
        }
    }
    assert_eq!(code, [(1, "tool --x\n".into()), (1, "tool --y\n".into())]);
}

#[test]
fn tables_and_quotes_inside_items_and_quotes_stay_in_them() {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let page = "<ol><li>Find your version:<table><tr><th>Distro</th><th>Name</th></tr>\
                <tr><td>Debian 12</td><td>bookworm</td></tr></table></li><li>Update.</li></ol>\
                <blockquote><ul><li>Quoted item<table><tr><td>a1</td><td>b1</td></tr>\
                <tr><td>a2</td><td>b2</td></tr></table></li><li>Next one.</li></ul></blockquote>\
                <ul><li>Said:<blockquote>Quoted words.</blockquote></li></ul>\
                <dl><dt>Sizes</dt><dd><table><tr><td>S</td><td>M</td></tr><tr><td>1</td><td>2</td>\
                </tr></table></dd><dt>Quote</dt><dd><blockquote>Its words.</blockquote></dd></dl>\
                <blockquote>Before.<table><tr><td>e1</td><td>f1</td></tr><tr><td>e2</td><td>f2</td>\
                </tr></table>After.</blockquote>\
                <ul><li>Item.<blockquote><p>q1</p><table><tr><td>g1</td><td>h1</td></tr>\
                <tr><td>g2</td><td>h2</td></tr></table><p>q2</p></blockquote></li><li>Next.</li></ul>\
                <p>Apart.</p><ul><li><blockquote><ul><li>in quote</li></ul></blockquote>own</li></ul>\
                <dl><dt>T</dt><dd><blockquote><p>p</p><ul><li>listed</li></ul></blockquote></dd>\
                <dt>T2</dt></dl>\
                <ul><li><table><tr><td>c1</td><td>d1</td></tr><tr><td>c2</td><td>d2</td></tr>\
                </table></li></ul><p>Then.</p>\
                <ul><li>Regions:</li><li><ul><li>Napa</li></ul></li><li>Chile</li></ul>";
    let md = stdout(&textsift(
        &["extract", "--threshold", "0", "--format", "markdown", "-"],
        Some(page.as_bytes()),
    ));
    // Each table and quote with the items and quotes around it, a description's under its
    // term, as CommonMark with tables reads the output.
    let mut tree = String::new();
    for event in Parser::new_ext(&md, Options::ENABLE_TABLES) {
        tree.push_str(&match event {
            Event::Start(Tag::Item) => "(item ".into(),
            Event::Start(Tag::BlockQuote(_)) => "(quote ".into(),
            Event::Start(Tag::Table(_)) => "(table ".into(),
            Event::End(TagEnd::Item | TagEnd::BlockQuote(_) | TagEnd::Table) => ")".into(),
            Event::Text(t) => format!("{t};"),
            _ => String::new(),
        });
    }
    assert_eq!(
        tree,
        "(item Find your version:;(table Distro;Name;Debian 12;bookworm;))(item Update.;)\
         (quote (item Quoted item;(table a1;b1;a2;b2;))(item Next one.;))\
         (item Said:;(quote Quoted words.;))\
         (item Sizes;(table S;M;1;2;))(item Quote;(quote Its words.;))\
         (quote Before.;(table e1;f1;e2;f2;)After.;)\
         (item Item.;(quote q1;(table g1;h1;g2;h2;)q2;))(item Next.;)Apart.;\
         (quote (item in quote;))(item own;)\
         (item T;(quote p;)(item listed;))(item T2;)\
         (table c1;d1;c2;d2;)Then.;\
         (item Regions:;(item Napa;))(item Chile;)",
        "{md}"
    );
    // A table that begins its item is laid out as the page's own.
    assert!(
        md.contains("\n\n|  |  |\n| --- | --- |\n| c1 | d1 |\n| c2 | d2 |\n\nThen."),
        "{md}"
    );
    // A list in an item without text of its own goes under the item above, as editors nest
    // lists (hiding that item's marker).
    assert!(md.ends_with("- Regions:\n  - Napa\n- Chile\n\n"), "{md}");
}

#[test]
fn headings_in_items_and_terms_and_header_cells_in_containers_render_as_meant() {
    // Every block kept, so that the layout alone is under test.
    let page = "<html><head><title>Camp stoves</title></head><body>\
                <ul><li><h1>Camp stoves</h1><p>A first item under the title.</p></li></ul>\
                <ul><li><h3>Rated <img src=s.png height=16> five ##</h3><p>x</p></li></ul>\
                <dl><dt><h4>Term heading</h4></dt><dd>desc one</dd></dl>\
                <table><tr><th><div>Name</div></th><th><div>Size</div></th></tr>\
                <tr><td>a</td><td>1</td></tr></table></body></html>";
    let md = stdout(&textsift(
        &["extract", "--threshold", "0", "--format", "markdown", "-"],
        Some(page.as_bytes()),
    ));
    // The title once, as the top heading, not again as an item.
    assert!(md.starts_with("# Camp stoves\n\n- A first item"), "{md}");
    assert_eq!(md.matches("Camp stoves").count(), 1, "{md}");
    // A heading's text after an image stays on its line, its closing `#`s escaped; its list
    // follows another, so it takes the other bullet.
    assert!(md.contains("\n* ### Rated five \\##\n"), "{md}");
    // No hard break after a heading: the description is a paragraph of the term.
    assert!(md.contains("\n- #### Term heading\n\n  desc one\n"), "{md}");
    // `<th>` cells whose text a `<div>` holds make the header row.
    assert!(
        md.contains("\n| Name | Size |\n| --- | --- |\n| a | 1 |\n"),
        "{md}"
    );
}

/// A run stopped by a signal while a record larger than a pipe's buffer is half written ends
/// once that record is whole, with the signal's own exit status; a second signal ends it at
/// once, even while nobody reads the pipe.
#[cfg(target_os = "linux")]
#[test]
fn a_stopped_run_leaves_whole_records_in_a_pipe() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    // Each page's record with --blocks holds 2,000 blocks: several times the 64 KiB of a pipe.
    let paragraphs: String = (0..2000)
        .map(|i| format!("<p>Paragraph {i} says a few words of its own, as prose does.</p>"))
        .collect();
    for k in 0..8 {
        let page = format!("<html><body><h1>Page {k}</h1>{paragraphs}</body></html>");
        std::fs::write(dir.path().join(format!("{k}.html")), page).unwrap();
    }
    let dir = dir.path().to_str().unwrap();
    let kill = |child: &std::process::Child, signal: &str| {
        let pid = child.id().to_string();
        let status = Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(status.success());
    };
    let args = [
        "extract",
        "--blocks",
        "--format",
        "jsonl",
        "--threads",
        "1",
        dir,
    ];
    // The runs start with the stop signals at their default action, whatever this test's
    // own are (a job started in the background by a script ignores SIGINT).
    let with_default_signals = |command: &mut Command| {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec, only signal(), which is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                    libc::signal(signal, libc::SIG_DFL);
                }
                Ok(())
            });
        }
    };
    let run_with = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_textsift"));
        command
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        with_default_signals(&mut command);
        command.spawn().unwrap()
    };
    let run = || run_with(&args);
    // Stopped by SIGTERM once part of the first record is read: the rest of it waits in the
    // pipe or in the writing thread.
    let terminated = |args: &[&str]| {
        let mut child = run_with(args);
        let mut out = child.stdout.take().unwrap();
        let mut got = vec![0; 100_000];
        out.read_exact(&mut got).unwrap();
        kill(&child, "-TERM");
        std::thread::sleep(std::time::Duration::from_millis(300));
        out.read_to_end(&mut got).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(15), "{status:?}");
        got
    };

    let got = String::from_utf8(terminated(&args)).unwrap();
    assert!(got.ends_with('\n'), "cut after {} bytes", got.len());
    let lines: Vec<serde_json::Value> = got
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!((1..8).contains(&lines.len()), "{} records", lines.len());
    assert_eq!(lines[0]["blocks"].as_array().unwrap().len(), 2001);

    // As JSON, the stop closes the array: the output is one document still.
    let got = terminated(&args.map(|a| if a == "jsonl" { "json" } else { a }));
    let array: serde_json::Value = serde_json::from_slice(&got).expect("one JSON document");
    let n = array.as_array().unwrap().len();
    assert!((1..8).contains(&n), "{n} records");

    // Nobody reads: the first signal waits for the record, the second ends the run.
    let mut child = run();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0; 1];
    out.read_exact(&mut first).unwrap();
    kill(&child, "-INT");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(child.try_wait().unwrap().is_none(), "ended inside a record");
    kill(&child, "-INT");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed().as_secs() < 20,
            "a second signal did not end the run"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.signal(), Some(2), "{status:?}");

    // A signal that was ignored when the run started (`nohup`) stays ignored.
    let mut command = Command::new("sh");
    command
        .args(["-c", "trap '' HUP; exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_textsift"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    with_default_signals(&mut command);
    let mut child = command.spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    out.read_exact(&mut first).unwrap();
    kill(&child, "-HUP");
    let mut rest = Vec::new();
    out.read_to_end(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(rest.iter().filter(|&&b| b == b'\n').count(), 8);
}

/// A button or an aside below an item's text is drawn in the item, and a nested list that
/// stands at its outer list's column (its item left out) ends before that list goes on:
/// either would otherwise renumber the items after it.
#[test]
fn buttons_asides_and_promoted_lists_keep_the_numbers_of_the_lists_around_them() {
    let page = "<ol><li><p>Outer first.</p><ol><li><p>Inner first.</p><button>Copy</button></li>\
                <li><p>Inner second.</p></li></ol></li><li><p>Outer second.</p></li></ol>\
                <h2>Steps</h2><ol><li><p>Step one.</p><aside><p>A tip.</p></aside></li><li>Step two\
                <ul><b>Also</b>: a, b</ul></li><li>Step three</li></ol>\
                <h2>Thread</h2><ol><li><div><img src=a.png></div><ol><li>Reply one.</li>\
                <li>Reply two.</li></ol></li><li>Post two.</li></ol>";
    let md = stdout(&textsift(
        &["extract", "--threshold", "0", "--format", "markdown", "-"],
        Some(page.as_bytes()),
    ));
    assert_eq!(
        md,
        "1. Outer first.\n   1. Inner first.\n\n      Copy\n   2. Inner second.\n2. Outer second.\n\n\
         ## Steps\n\n1. Step one.\n\n   A tip.\n2. Step two\n\n   Also: a, b\n3. Step three\n\n## Thread\n\n1. Reply one.\n\
         2. Reply two.\n\n<!-- -->\n\n2. Post two.\n\n"
    );
}

/// The debug view says which blocks are kept, which earlier block a dropped one repeats,
/// when the page was cut at the block limit; it lists the features that are not 0, and
/// writes no noncharacter.
#[test]
fn the_debug_view_says_why_a_block_is_dropped_and_when_the_page_was_cut() {
    let long = "The council voted on Tuesday to build a new bridge across the river by spring.";
    let page = format!(
        "<h1>Bridge</h1><p>{long}</p><p>Work starts in March\u{ffff}, the mayor said.</p><p>{long}</p>"
    );
    let view = |extra: &[&str]| {
        let mut args = vec!["extract", "--format", "html", "--threshold", "0"];
        args.extend_from_slice(extra);
        args.push("-");
        let out = textsift(&args, Some(page.as_bytes()));
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let html = view(&[]);
    assert!(html.contains("#1 &lt;p&gt; "), "{html}");
    assert!(html.contains(" kept</span>"), "{html}");
    assert!(html.contains(" dropped, repeats #1</span>"), "{html}");
    assert!(!html.contains('\u{ffff}'));
    assert!(html.contains("March\u{fffd},"), "{html}");
    assert!(!html.contains("=0\n"), "zero features are left out");
    assert!(html.contains("words="));
    assert!(!html.contains("cut at the block limit"));
    // What labelled the blocks, and where the cut fell on this page: with threshold 0 every
    // block is kept but the repeat, whatever its score.
    assert!(
        html.contains(
            "<p class=\"m\">Labelled by the embedded model, decoder `threshold 0.00` (headings \
             attached: false, repeats dropped: true), favor balance.</p>"
        ),
        "{html}"
    );
    assert!(html.contains(": 4 blocks, 3 kept. Kept: scores "), "{html}");
    assert!(
        !html.contains("; dropped: "),
        "a repeat is no score cut: {html}"
    );
    // The page's own features are said once, not on each block.
    assert_eq!(html.matches("page_blocks=4").count(), 1, "{html}");
    assert!(html.contains("the same on every block: "), "{html}");
    // No script or outside resource may run or load, whatever a page holds.
    assert!(html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""));
    let cut = view(&["--max-blocks", "2"]);
    assert!(
        cut.contains("; the page was cut at the block limit, its later blocks are not shown."),
        "{cut}"
    );
}

#[test]
fn an_empty_warc_or_json_lines_file_is_an_empty_input() {
    // A transfer that failed leaves a file of no bytes: reported and counted as a failed
    // input, as an empty page is, among the pages that go on.
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(path("crawl.warc.gz"), b"").unwrap();
    std::fs::write(path("pages.jsonl"), b"").unwrap();
    std::fs::write(path("page.html"), article(0)).unwrap();
    let args = [
        "extract",
        &path("crawl.warc.gz"),
        &path("pages.jsonl"),
        &path("page.html"),
    ];
    let out = textsift(&args, None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    for name in ["crawl.warc.gz", "pages.jsonl"] {
        assert!(
            err.contains(&format!("{}: empty input", path(name))),
            "{err}"
        );
    }
    assert!(err.contains("3 pages, 1 ok, 2 failed"), "{err}");
    assert_eq!(records(&out).len(), 1);
}
