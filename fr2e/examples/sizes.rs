//! Image sizes for `docs/fr2e.md`: bytes per instruction of FR2E (as written, and with `strz`) and of format-2
//! text, for the W1/W2 workloads of `ir/benches/workloads.rs` and the AST examples, with the share of the `vops`
//! stream and of the `GBLD` table. Run with `cargo run --release -p fr2e --example sizes`.

#[path = "../../ir/benches/workloads.rs"]
mod workloads;

use fr2e::format::{read_chunk, Reader, Tag};

fn report(name: &str, m: &ir::Module) {
    let n = m.inst_count() as f64;
    let image = fr2e::write_module(m);
    let compressed = fr2e::try_write_module_with(m, fr2e::WriteOptions { compress_strings: true }).unwrap();
    let text = ir::print_module(m);
    let root = read_chunk(&mut Reader::new(&image, 0)).unwrap();
    let size = |tag: Tag| root.children().map(|c| c.unwrap()).find(|c| c.tag == tag).map_or(0, |c| c.len());
    println!(
        "| {name} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
        m.inst_count(),
        image.len(),
        image.len() as f64 / n,
        compressed.len() as f64 / n,
        size(Tag::VOPS) as f64 / n,
        size(Tag::GBLD) as f64 / n,
        text.len() as f64 / n,
    );
}

fn main() {
    println!("| module | instructions | FR2E bytes | FR2E B/inst | with `strz` | `vops` B/inst | `GBLD` B/inst | text B/inst |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for n in [100_000, 1_000_000] {
        report(&format!("W1({n})"), &workloads::w1(n));
    }
    for m in [2_000, 20_000] {
        report(&format!("W2({m})"), &workloads::w2(m));
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let program = ir::lower_ast::interchange::decode(&text).unwrap();
        let layout = ir::DataLayout::default_64bit_le();
        let m = ir::lower_ast::lower_o0(&program, "x86_64-whale-linux", layout).unwrap();
        report(&format!("examples/{}", path.file_name().unwrap().to_string_lossy()), &m);
    }
}
