//! The `whale` binary with LLVM 1.3 bytecode: `ir convert --to llvm13` (or a `.bc` output), content detection by the
//! `llvm` magic in every command, and `llvm13 dump` with and without `--disasm`; failures exit 1 with `Error: …` and
//! leave no output file.

use std::fs;
use std::path::Path;

mod common;

use common::{arg, example, stderr, stdout, whale, whale_stdin};

/// Converts `input` to LLVM 1.3 bytecode at `output` and checks the note.
fn convert(input: &Path, output: &Path, extra: &[&str]) {
    let note = common::convert(input, output, extra);
    assert_eq!(note, format!("Wrote LLVM 1.3 bytecode to {}\n", output.display()));
}

#[test]
fn representable_examples_convert_and_run_the_same() {
    let dir = tempfile::tempdir().unwrap();
    for stem in ["fib", "loops", "globals", "calls"] {
        let json = example(&format!("{stem}.json"));
        let bc = dir.path().join(format!("{stem}.bc"));
        convert(&json, &bc, &[]);
        assert_eq!(&fs::read(&bc).unwrap()[..4], b"llvm");
        // Bytecode in, bytecode out: the same bytes.
        let again = dir.path().join(format!("{stem}.again"));
        convert(&bc, &again, &["--to", "llvm13"]);
        assert_eq!(fs::read(&again).unwrap(), fs::read(&bc).unwrap(), "{stem}");
        // Every command takes bytecode.
        let o = whale(&["ir", "verify", arg(&bc)]);
        assert!(o.status.success(), "{stem}: {}", stderr(&o));
        let o = whale(&["ir", "print", arg(&bc)]);
        assert!(o.status.success() && stdout(&o).starts_with("module {"), "{stem}: {}", stderr(&o));
        // Bytecode records no ids, so a trap names the block by its renumbered id (docs/llvm13.md): mask it.
        let run = |input: &Path| {
            let o = whale(&["ir", "run", arg(input), "--function", "main"]);
            let message = stderr(&o).replace(arg(input), "IN");
            let masked: String = match message.find(" %b") {
                Some(at) => {
                    let end = message[at + 3..].find(' ').map_or(message.len(), |e| at + 3 + e);
                    format!("{} %bN{}", &message[..at], &message[end..])
                }
                None => message,
            };
            (o.status.code(), stdout(&o), masked)
        };
        assert_eq!(run(&bc), run(&json), "{stem}");
    }
}

#[test]
fn unrepresentable_input_fails_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("literals.bc");
    let o = whale(&["ir", "convert", arg(&example("literals.json")), "-o", arg(&out)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("Error: LLVM 1.3: type "), "{}", stderr(&o));
    assert!(stderr(&o).contains("has no LLVM 1.3 equivalent"), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn dump_lists_blocks_and_disassembles() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("fib.bc");
    convert(&example("fib.json"), &bc, &[]);
    let o = whale(&["llvm13", "dump", arg(&bc)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("00000000: magic \"llvm\"\n"), "{}", stdout(&o));
    assert!(stdout(&o).contains("<type pool"), "{}", stdout(&o));
    let o = whale(&["llvm13", "dump", "--disasm", arg(&bc)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("internal ulong %fib(ulong %n) {"), "{}", stdout(&o));
    // From standard input, and into a file.
    let o = whale_stdin(&["llvm13", "dump", "--disasm", "-"], &fs::read(&bc).unwrap());
    assert!(stdout(&o).contains("implementation"), "{}", stderr(&o));
    let listing = dir.path().join("fib.txt");
    let o = whale(&["llvm13", "dump", arg(&bc), "-o", arg(&listing)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fs::read_to_string(&listing).unwrap().starts_with("00000000: magic"));
}

#[test]
fn malformed_bytecode_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.bc");
    fs::write(&bad, b"llvm\x01\x00\x00\x00\xff\x00\x00\x00").unwrap();
    for args in [
        vec!["llvm13", "dump", arg(&bad)],
        vec!["ir", "verify", arg(&bad)],
        vec!["llvm13", "dump", "--disasm", arg(&bad)],
    ] {
        let o = whale(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).starts_with(&format!("Error: {}: ", bad.display())), "{}", stderr(&o));
    }
    let out = dir.path().join("out.wir");
    let o = whale(&["ir", "convert", arg(&bad), "-o", arg(&out)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!out.exists());
}

#[test]
fn output_format_comes_from_the_extension_or_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fib.out");
    let o = whale(&["ir", "convert", arg(&example("fib.json")), "-o", arg(&out)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--to wir|fr2e|llvm13"), "{}", stderr(&o));
    convert(&example("fib.json"), &out, &["--to", "llvm13"]);
    let o = whale(&["ir", "convert", arg(&example("fib.json")), "-o", "x", "--to", "llvm14"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A malformed file: the dump streams the blocks it could read, then fails
/// with the reader's error; with `-o`, nothing is written.
#[test]
fn dump_of_a_truncated_file_lists_what_it_can_then_fails() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("fib.bc");
    let o = whale(&["ir", "convert", arg(&example("fib.json")), "-o", arg(&bc)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&bc).unwrap();
    let cut = dir.path().join("cut.bc");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let o = whale(&["llvm13", "dump", arg(&cut)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("magic \"llvm\""), "the listing up to the problem is printed");
    assert!(stderr(&o).starts_with("Error: "), "{}", stderr(&o));
    let listing = dir.path().join("listing.txt");
    let o = whale(&["llvm13", "dump", arg(&cut), "-o", arg(&listing)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!listing.exists());
    // The full file dumps and disassembles.
    for extra in [&[][..], &["--disasm"][..]] {
        let mut args = vec!["llvm13", "dump", arg(&bc)];
        args.extend_from_slice(extra);
        let o = whale(&args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
}
