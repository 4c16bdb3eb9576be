//! Binary: FR2E (Whale's image format) against WebAssembly — image size, writing, decoding, and decoding with
//! verification (`wasmparser::Validator::validate_all`).
//!
//! Before timing, each FR2E image is read back and re-written to the same bytes, and each wasm module validates.
//! LLVM 1.3 bytecode (`llvm13::write_whale`) is measured for size only.

use std::fmt::Write as _;
use std::hint::black_box;

use crate::measure::{compare, rate, ratio, thousands, Plan, Samples};
use crate::{Program, Static};

/// One workload prepared in both binary forms.
pub struct Prepared {
    pub workload: Static,
    pub module: ir::Module,
    pub program: Program,
    pub image: Vec<u8>,
    pub wasm: Vec<u8>,
    /// The LLVM 1.3 bytecode size, or why the module has no LLVM 1.3 form.
    pub llvm13: Result<usize, String>,
}

/// Generates and checks `workload`.
pub fn prepare(workload: Static) -> Prepared {
    let module = workload.whale();
    let image = fr2e::write_module(&module);
    let back = fr2e::read_module_with_limits(&image, &crate::fr2e_limits()).expect("the FR2E image reads back");
    assert!(fr2e::write_module(&back) == image, "{}: FR2E image is canonical", workload.name());
    let program = workload.program();
    let wasm = program.wasm();
    wasmparser::Validator::new().validate_all(&wasm).expect("the generated wasm validates");
    let llvm13 = llvm13::write_whale(&module).map(|bytes| bytes.len()).map_err(|e| e.to_string());
    Prepared { workload, module, program, image, wasm, llvm13 }
}

/// FR2E read without verification.
pub fn fr2e_read(p: &Prepared) -> ir::Module {
    fr2e::read_module_unverified(&p.image, &crate::fr2e_limits()).expect("checked in prepare")
}

/// FR2E read with verification.
pub fn fr2e_read_verify(p: &Prepared) -> ir::Module {
    fr2e::read_module_with_limits(&p.image, &crate::fr2e_limits()).expect("checked in prepare")
}

/// wasmparser: every section and operator decoded, nothing validated.
pub fn wasm_decode(p: &Prepared) -> usize {
    crate::wasm::operator_count(&p.wasm).expect("checked in prepare")
}

/// wasmparser: decoded and validated.
pub fn wasm_validate(p: &Prepared) {
    wasmparser::Validator::new().validate_all(&p.wasm).expect("checked in prepare");
}

/// Runs the binary comparison on `workloads`; returns the markdown section.
pub fn run(plan: Plan, workloads: &[Static]) -> String {
    let mut sizes = String::from(
        "| workload | instructions | FR2E bytes | FR2E bytes/inst | wasm bytes | wasm bytes/inst | wasm operators/inst \
         | wasm ÷ FR2E size | LLVM 1.3 bytes | LLVM 1.3 bytes/inst |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- \
         | ---: | ---: |\n",
    );
    let mut table = String::from(
        "| workload | operation | Whale (FR2E) median (min–max) | wasm median (min–max) | Whale rate | wasm rate \
         | wasm ÷ Whale |\n| --- | --- | --- | --- | ---: | ---: | --- |\n",
    );
    for &w in workloads {
        eprintln!("binary: {}", w.name());
        let p = prepare(w);
        let n = w.instructions() as f64;
        let (fr, wa) = (p.image.len() as f64, p.wasm.len() as f64);
        let ops = wasm_decode(&p) as f64;
        let size_ratio = crate::tools::size_ratio(wa, fr);
        let _ = writeln!(
            sizes,
            "| {} | {} | {} | {:.2} | {} | {:.2} | {:.2} | {size_ratio} | {} | {} |",
            w.name(),
            thousands(w.instructions()),
            thousands(p.image.len()),
            fr / n,
            thousands(p.wasm.len()),
            wa / n,
            ops / n,
            p.llvm13.as_ref().map_or_else(|e| format!("not written: {e}"), |&b| thousands(b)),
            p.llvm13.as_ref().map_or_else(|_| "—".to_string(), |&b| format!("{:.2}", b as f64 / n)),
        );
        let write = compare(
            plan,
            &mut [&mut || drop(black_box(fr2e::write_module(&p.module))), &mut || drop(black_box(p.program.wasm()))],
        );
        let decode = compare(
            plan,
            &mut [&mut || drop(black_box(fr2e_read(&p))), &mut || {
                black_box(wasm_decode(&p));
            }],
        );
        let validate = compare(plan, &mut [&mut || drop(black_box(fr2e_read_verify(&p))), &mut || wasm_validate(&p)]);
        let rows = [
            ("write (FR2E from `ir::Module`; wasm-encoder)", write),
            ("read (FR2E to `ir::Module`, unverified; wasmparser decode)", decode),
            ("read + verify (`fr2e::read_module`; `validate_all`)", validate),
        ];
        for (operation, samples) in rows {
            let [whale, peer] = <[Samples; 2]>::try_from(samples).expect("two engines");
            let _ = writeln!(
                table,
                "| {} | {operation} | {} | {} | {} | {} | {} |",
                w.name(),
                whale.cell(),
                peer.cell(),
                rate(w.instructions(), whale.median()),
                rate(w.instructions(), peer.median()),
                ratio(&whale, &peer)
            );
        }
    }
    format!(
        "### Binary: FR2E vs WebAssembly\n\nWhale: `fr2e::write_module`, `fr2e::read_module_unverified`, \
         `fr2e::read_module` (read + `ir` verification). WebAssembly: the module encoded with `wasm-encoder` from the \
         drawn program, every operator decoded into \
         wasmparser's `Operator` enum (`OperatorsReader::read`, slower than the validator's own decoding), and `wasmparser::Validator::validate_all`. Sizes \
         and rates are per workload instruction. LLVM 1.3 bytecode: `llvm13::write_whale` of the same module, size \
         only.\n\n{sizes}\n{table}"
    )
}
