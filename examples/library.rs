//! The README's library example, built by `cargo test` so that it keeps compiling; a test
//! checks that the README shows it as it is here.

fn main() -> Result<(), textsift::Error> {
    let extractor = textsift::Extractor::new()?; // the embedded model; or Extractor::from_model_file("my.tsm")
    let page = b"<title>Hi</title><nav><a href=/>Home</a> <a href=/news>News</a></nav>\
                 <article><p>The main text of the page: a few sentences of prose. \
                 A menu and a footer are around it.</p></article><footer>&copy; 2026 Example</footer>";
    let extraction = extractor.extract(page)?; // bytes in any charset, a &str or a Vec<u8>
    println!("{}\n{}", extraction.title, extraction.text); // "Hi", then the paragraph alone
    for block in &extraction.blocks {
        println!("{:?} {:.2} {}", block.label, block.score, block.text);
    }
    Ok(())
}
