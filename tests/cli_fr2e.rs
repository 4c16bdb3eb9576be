//! The `whale` binary with FR2E images: `ir convert`, content detection in every command, `ir lower --emit fr2e`
//! and `fr2e dump`; failures exit 1 and leave no output file.

use std::fs;
use std::path::{Path, PathBuf};

mod common;

use common::{arg, example, stderr, stdout, whale, whale_stdin};

fn examples() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    out.sort();
    out
}

/// Converts `input` to `output` (format from the extension) and checks the note.
fn convert(input: &Path, output: &Path, extra: &[&str]) {
    let note = common::convert(input, output, extra);
    assert!(note.starts_with("Wrote "), "{note}");
}

#[test]
fn convert_round_trips_every_example() {
    let dir = tempfile::tempdir().unwrap();
    for json in examples() {
        let stem = json.file_stem().unwrap().to_str().unwrap().to_string();
        let (image, wir, back, again) = (
            dir.path().join(format!("{stem}.fr2e")),
            dir.path().join(format!("{stem}.wir")),
            dir.path().join(format!("{stem}.back.wir")),
            dir.path().join(format!("{stem}.again.fr2e")),
        );
        // AST JSON → FR2E → text equals AST JSON → text; text → FR2E and FR2E → FR2E give the same bytes.
        convert(&json, &image, &[]);
        assert_eq!(&fs::read(&image).unwrap()[4..8], b"FR2E");
        convert(&json, &wir, &[]);
        convert(&image, &back, &[]);
        assert_eq!(fs::read_to_string(&back).unwrap(), fs::read_to_string(&wir).unwrap(), "{stem}");
        convert(&wir, &again, &[]);
        assert_eq!(fs::read(&again).unwrap(), fs::read(&image).unwrap(), "{stem}");
        convert(&image, &again, &["--to", "fr2e"]);
        assert_eq!(fs::read(&again).unwrap(), fs::read(&image).unwrap(), "{stem}");
        // The interpreter behaves the same on the image (results, traps and errors alike, file names aside).
        let run = |input: &Path| {
            let o = whale(&["ir", "run", arg(input), "--function", "main"]);
            (o.status.code(), stdout(&o), stderr(&o).replace(arg(input), "IN"))
        };
        assert_eq!(run(&image), run(&json), "{stem}");
        // `ir lower --emit fr2e` writes the same image.
        let lowered = dir.path().join(format!("{stem}.lowered"));
        let o = whale(&["ir", "lower", arg(&json), "--emit", "fr2e", "-o", arg(&lowered)]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(fs::read(&lowered).unwrap(), fs::read(&image).unwrap(), "{stem}");
    }
}

#[test]
fn every_command_reads_images_by_content() {
    let dir = tempfile::tempdir().unwrap();
    // No telling extension: detection is by content.
    let image = dir.path().join("fib.bin");
    convert(&example("fib.json"), &image, &["--to", "fr2e"]);
    let v = whale(&["ir", "verify", arg(&image)]);
    assert!(v.status.success(), "{}", stderr(&v));
    assert_eq!(stdout(&v), format!("Verified IR {}\n", image.display()));
    let text = whale(&["ir", "print", arg(&example("fib.json"))]);
    let p = whale(&["ir", "print", arg(&image)]);
    assert!(p.status.success(), "{}", stderr(&p));
    assert_eq!(p.stdout, text.stdout);
    // Binary input on standard input skips the UTF-8 check.
    let bytes = fs::read(&image).unwrap();
    let p = whale_stdin(&["ir", "print", "-"], &bytes);
    assert!(p.status.success(), "{}", stderr(&p));
    assert_eq!(p.stdout, text.stdout);
    // The interpreter runs an image like text.
    let from_json = whale(&["ir", "run", arg(&example("fib.json")), "--function", "main"]);
    let from_image = whale(&["ir", "run", arg(&image), "--function", "main"]);
    assert!(from_image.status.success(), "{}", stderr(&from_image));
    assert_eq!(from_image.stdout, from_json.stdout);
    // Images written to standard output (not a terminal here) are the file's bytes.
    let o = whale(&["ir", "convert", arg(&example("fib.json")), "-o", "-", "--to", "fr2e"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, bytes);
}

#[test]
fn compressed_strings_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, packed, back) = (dir.path().join("a.fr2e"), dir.path().join("b.fr2e"), dir.path().join("b.wir"));
    convert(&example("calls.json"), &plain, &[]);
    convert(&example("calls.json"), &packed, &["--compress-strings"]);
    assert_ne!(fs::read(&plain).unwrap(), fs::read(&packed).unwrap());
    assert!(whale(&["fr2e", "dump", arg(&packed)]).stdout.windows(6).any(|w| w == b"`strz`"));
    convert(&packed, &back, &[]);
    let text = whale(&["ir", "print", arg(&example("calls.json"))]);
    assert_eq!(fs::read(&back).unwrap(), text.stdout);
}

#[test]
fn dump_lists_every_part_with_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("fib.fr2e");
    convert(&example("fib.json"), &image, &[]);
    let o = whale(&["fr2e", "dump", arg(&image)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let listing = stdout(&o);
    let len = fs::read(&image).unwrap().len();
    let first = listing.lines().next().unwrap();
    assert!(first.starts_with("       0 | "), "{first}");
    assert!(first.ends_with(&format!("`FR2E` chunk, {len} bytes (DWORD+FOURCC header)")), "{first}");
    for needle in [
        "`strs` chunk",
        "\"x86_64-whale-linux\" #3",
        "`stri` chunk",
        "#0 LABEL mask 0x41 label 1",
        "RET mask 0x15",
        "trace: ",
        "header: ",
        "`FN` chunk",
        "n name \"fib\" (inline)",
        "s signature \"(y)y\" (inline)",
        "0x11 blocks: %b0 \"entry\"",
        "0x14 target \"x86_64-whale-linux\"",
    ] {
        assert!(listing.contains(needle), "missing {needle:?} in\n{listing}");
    }
    assert!(!listing.contains("(unattributed)"));
    // Every byte is listed once: the hex columns add up to the image.
    let listed: usize = listing.lines().map(|l| l.split(" | ").nth(1).unwrap_or("").split_whitespace().count()).sum();
    assert_eq!(listed, len);
    // To a file, atomically.
    let out = dir.path().join("fib.txt");
    let f = whale(&["fr2e", "dump", arg(&image), "-o", arg(&out)]);
    assert!(f.status.success(), "{}", stderr(&f));
    assert_eq!(fs::read_to_string(&out).unwrap(), listing);
}

#[test]
fn broken_images_fail_with_offsets_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("fib.fr2e");
    convert(&example("fib.json"), &image, &[]);
    let bytes = fs::read(&image).unwrap();
    // Truncated: the root chunk claims more bytes than there are.
    let broken = dir.path().join("broken.fr2e");
    fs::write(&broken, &bytes[..bytes.len() - 3]).unwrap();
    let out = dir.path().join("out.wir");
    let o = whale(&["ir", "convert", arg(&broken), "-o", arg(&out)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with(&format!("Error: {}: offset 0x0: ", broken.display())), "{}", stderr(&o));
    assert!(!out.exists());
    // A VOP opcode outside the profile (the first MOV's opn becomes LDIX): a profile error at the VOP.
    let mut edited = bytes.clone();
    let at = bytes.windows(2).position(|w| w == [0x1d, 0x05]).unwrap();
    edited[at + 1] = 0x13;
    fs::write(&broken, &edited).unwrap();
    let o = whale(&["ir", "verify", arg(&broken)]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!("Error: {}: offset {at:#x}: opcode 0x13 is not in the Whale profile\n", broken.display())
    );
    // dump lists what it can, then fails.
    fs::write(&broken, &bytes[..bytes.len() - 3]).unwrap();
    let d = whale(&["fr2e", "dump", arg(&broken)]);
    assert_eq!(d.status.code(), Some(1));
    assert!(stderr(&d).starts_with("Error: "), "{}", stderr(&d));
    let listing = dir.path().join("listing.txt");
    let d = whale(&["fr2e", "dump", arg(&broken), "-o", arg(&listing)]);
    assert_eq!(d.status.code(), Some(1));
    assert!(!listing.exists());
    // Output formats that cannot be told, or do not fit, are refused before anything is read or written.
    let odd = dir.path().join("out.bin");
    let o = whale(&["ir", "convert", arg(&image), "-o", arg(&odd)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("use --to wir|fr2e"), "{}", stderr(&o));
    let o = whale(&["ir", "convert", arg(&image), "-o", arg(&out), "--compress-strings"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!odd.exists() && !out.exists());
    let o = whale(&["ir", "convert", arg(&image), "-o", arg(&image)]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(fs::read(&image).unwrap(), bytes);
    // Usage errors keep clap's exit code.
    assert_eq!(whale(&["ir", "convert", arg(&image), "-o", arg(&out), "--to", "bc"]).status.code(), Some(2));
    assert_eq!(whale(&["ir", "convert", arg(&image)]).status.code(), Some(2));
    let entries: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(entries.len(), 2, "{entries:?}");
}

/// A compressed string table the reader rejects makes `fr2e dump` fail too,
/// after listing what precedes the problem; `-o` then writes nothing.
#[test]
fn dump_fails_on_a_bad_compressed_string_table() {
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("fib.fr2e");
    convert(&example("fib.json"), &image, &["--compress-strings"]);
    let mut bytes = fs::read(&image).unwrap();
    let at = bytes.windows(4).position(|w| w == b"strz").expect("a strz chunk");
    // The first byte of the LZ4 block after the declared size: the block no longer decodes to that size.
    bytes[at + 5] = 0;
    let broken = dir.path().join("broken.fr2e");
    fs::write(&broken, &bytes).unwrap();
    let o = whale(&["fr2e", "dump", arg(&broken)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("`FR2E` chunk"), "the listing up to the problem is printed");
    assert!(stderr(&o).contains("`strz` block does not decompress to its declared size"), "{}", stderr(&o));
    let verify = whale(&["ir", "verify", arg(&broken)]);
    assert_eq!(verify.status.code(), Some(1));
    let listing = dir.path().join("listing.txt");
    let o = whale(&["fr2e", "dump", arg(&broken), "-o", arg(&listing)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!listing.exists());
}
