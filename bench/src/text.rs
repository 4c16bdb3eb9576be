//! Text: Whale's reader, verifier and printer against `cranelift-reader`, Cranelift's verifier and CLIF `Display`.
//!
//! Before timing, each workload's CLIF is checked canonical (parse + `Display` gives it back byte for byte) and every
//! function verifies; Whale's text is checked to read back to the same text. `ir::parse_module` always verifies, so
//! its fair peer is Cranelift's parse plus verify; the parse-only peer figure is shown too.

use std::fmt::Write as _;
use std::hint::black_box;

use cranelift_codegen::ir::Function;
use cranelift_codegen::settings;

use crate::measure::{compare, rate, ratio, thousands, Plan, Samples};
use crate::Static;

/// One workload prepared in both text forms.
pub struct Prepared {
    pub workload: Static,
    pub module: ir::Module,
    pub whale_text: String,
    pub clif: String,
    pub functions: Vec<Function>,
    pub flags: settings::Flags,
}

/// Generates and checks `workload`.
pub fn prepare(workload: Static) -> Prepared {
    let module = workload.whale();
    let whale_text = ir::print_module(&module);
    let back =
        ir::parse_module_with_limits(&whale_text, crate::whale_limits()).expect("Whale's printed text reads back");
    assert!(ir::print_module(&back) == whale_text, "{}: Whale text round trip", workload.name());
    let clif = workload.program().clif();
    let functions = cranelift_reader::parse_functions(&clif).expect("the generated CLIF parses");
    assert_canonical(&clif, &functions, &workload.name());
    let flags = settings::Flags::new(settings::builder());
    for f in &functions {
        if let Err(e) = cranelift_codegen::verify_function(f, &flags) {
            panic!("{}: {} does not verify: {e}", workload.name(), f.name);
        }
    }
    Prepared { workload, module, whale_text, clif, functions, flags }
}

/// Panics with the first differing line unless `functions` print back as `text`.
pub fn assert_canonical(text: &str, functions: &[Function], what: &str) {
    let printed = display(functions);
    if printed != text {
        let (line, (want, got)) = text
            .lines()
            .zip(printed.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((text.lines().count().min(printed.lines().count()), ("<end>", "<end>")));
        panic!("{what}: CLIF is not canonical at line {}: generated `{want}`, printed `{got}`", line + 1);
    }
}

/// CLIF `Display` of `functions`, separated by blank lines.
pub fn display(functions: &[Function]) -> String {
    let mut out = String::new();
    for (i, f) in functions.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = write!(out, "{f}");
    }
    out
}

/// Whale reader: `parse_module_with_limits` (what `parse_module` does, with limits that fit 1M instructions), which
/// also verifies.
pub fn whale_parse(p: &Prepared) -> ir::Module {
    ir::parse_module_with_limits(&p.whale_text, crate::whale_limits()).expect("checked in prepare")
}

/// Cranelift reader alone.
pub fn cranelift_parse(p: &Prepared) -> Vec<Function> {
    cranelift_reader::parse_functions(&p.clif).expect("checked in prepare")
}

/// Cranelift reader, then the verifier on every function.
pub fn cranelift_parse_verify(p: &Prepared) -> Vec<Function> {
    let functions = cranelift_parse(p);
    for f in &functions {
        cranelift_codegen::verify_function(f, &p.flags).expect("checked in prepare");
    }
    functions
}

/// Cranelift's verifier on every function.
pub fn cranelift_verify(p: &Prepared) {
    for f in &p.functions {
        cranelift_codegen::verify_function(f, &p.flags).expect("checked in prepare");
    }
}

/// A `fmt::Write` that drops what it is given: the CLIF counterpart of `io::sink()` (writing `Display` to
/// `io::sink()` itself formats nothing, since the sink ignores `write_fmt`).
struct Discard(usize);

impl std::fmt::Write for Discard {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// CLIF `Display` of every function into a discarding writer; returns the bytes formatted.
pub fn cranelift_write_sink(p: &Prepared) -> usize {
    let mut sink = Discard(0);
    for (i, f) in p.functions.iter().enumerate() {
        let sep = if i > 0 { "\n" } else { "" };
        write!(sink, "{sep}{f}").expect("the sink accepts everything");
    }
    sink.0
}

struct Row {
    operation: &'static str,
    whale: Samples,
    peer: Samples,
}

/// Runs the text comparison on `workloads`; returns the markdown section.
pub fn run(plan: Plan, workloads: &[Static]) -> String {
    let mut sizes = String::from(
        "| workload | instructions | Whale instructions | Whale text | CLIF text |\n| --- | ---: | ---: | ---: | ---: |\n",
    );
    let mut table = String::from(
        "| workload | operation | Whale median (min–max) | Cranelift median (min–max) | Whale rate | Cranelift rate \
         | Cranelift ÷ Whale |\n| --- | --- | --- | --- | ---: | ---: | --- |\n",
    );
    for &w in workloads {
        eprintln!("text: {}", w.name());
        let p = prepare(w);
        let n = w.instructions();
        let _ = writeln!(
            sizes,
            "| {} | {} | {} | {:.1} MB | {:.1} MB |",
            w.name(),
            thousands(n),
            thousands(p.module.inst_count()),
            p.whale_text.len() as f64 / 1e6,
            p.clif.len() as f64 / 1e6
        );
        let parse = compare(
            plan,
            &mut [
                &mut || drop(black_box(whale_parse(&p))),
                &mut || drop(black_box(cranelift_parse_verify(&p))),
                &mut || drop(black_box(cranelift_parse(&p))),
            ],
        );
        let [whale_parse, cl_parse_verify, cl_parse] = <[Samples; 3]>::try_from(parse).expect("three engines");
        let verify = pair(compare(
            plan,
            &mut [&mut || black_box(ir::verify_module(&p.module)).expect("verifies"), &mut || cranelift_verify(&p)],
        ));
        let print = pair(compare(
            plan,
            &mut [&mut || drop(black_box(ir::print_module(&p.module))), &mut || drop(black_box(display(&p.functions)))],
        ));
        let sink = pair(compare(
            plan,
            &mut [
                &mut || ir::write_module(&p.module, ir::TextFormat::Auto, &mut std::io::sink()).expect("sink accepts"),
                &mut || {
                    black_box(cranelift_write_sink(&p));
                },
            ],
        ));
        let rows = [
            Row { operation: "parse + verify", whale: whale_parse.clone(), peer: cl_parse_verify },
            Row { operation: "parse (Whale also verifies)", whale: whale_parse, peer: cl_parse },
            Row { operation: "verify", whale: verify.0, peer: verify.1 },
            Row { operation: "print to a String", whale: print.0, peer: print.1 },
            Row { operation: "write to io::sink", whale: sink.0, peer: sink.1 },
        ];
        for r in rows {
            let _ = writeln!(
                table,
                "| {} | {} | {} | {} | {} | {} | {} |",
                w.name(),
                r.operation,
                r.whale.cell(),
                r.peer.cell(),
                rate(n, r.whale.median()),
                rate(n, r.peer.median()),
                ratio(&r.whale, &r.peer)
            );
        }
    }
    format!(
        "### Text: read, verify, print (Whale IR text vs CLIF)\n\nWhale: `ir::parse_module` (which always verifies), \
         `ir::verify_module`, `ir::print_module`, `ir::write_module` to `io::sink()`. Cranelift: \
         `cranelift_reader::parse_functions`, `cranelift_codegen::verify_function` on each function, `Display` of each \
         function (to a `fmt::Write` that discards its input for the sink row). Rates are workload instructions per second (the CLIF instruction count of `bench/WORKLOADS.md`); \
         the ratio is Cranelift's median time over Whale's.\n\n{sizes}\n{table}"
    )
}

fn pair(samples: Vec<Samples>) -> (Samples, Samples) {
    let [a, b] = <[Samples; 2]>::try_from(samples).expect("two engines");
    (a, b)
}
