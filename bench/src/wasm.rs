//! The WebAssembly form of W1–W5 (workloads.md), encoded with `wasm-encoder`.
//!
//! W1/W2 keep each SSA value in a local of an 8-entry ring per type (operands are always among the 8 newest values or
//! the parameters, and are read before the result is stored); W3–W5 are small hand-written functions. Every module
//! validates under wasmparser's default features.

use wasm_encoder::{
    BlockType, CodeSection, ExportKind, ExportSection, Function, FunctionSection, InstructionSink, MemArg,
    MemArgTarget, MemorySection, MemoryType, Module, TypeSection, ValType,
};

use crate::program::{Kind, Op, W1, W1_BOOL_LOCAL, W2, W2_BOOL_LOCAL};

/// Size of the sieve in bytes.
const SIEVE_SIZE: i32 = 1_000_000;

fn module(
    types: &[(&[ValType], &[ValType])],
    funcs: &[u32],
    memory_pages: Option<u64>,
    exports: &[(&str, u32)],
    code: CodeSection,
) -> Vec<u8> {
    let mut m = Module::new();
    let mut t = TypeSection::new();
    for (params, results) in types {
        t.ty().function(params.iter().copied(), results.iter().copied());
    }
    m.section(&t);
    let mut f = FunctionSection::new();
    for &ty in funcs {
        f.function(ty);
    }
    m.section(&f);
    if let Some(pages) = memory_pages {
        let mut mem = MemorySection::new();
        mem.memory(MemoryType {
            minimum: pages,
            maximum: Some(pages),
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        m.section(&mem);
    }
    let mut e = ExportSection::new();
    for &(name, index) in exports {
        e.export(name, ExportKind::Func, index);
    }
    m.section(&e);
    m.section(&code);
    m.finish()
}

/// One drawn op: `local.get x; local.get y; [local.get bool;] op; local.set dst`.
fn op(s: &mut InstructionSink<'_>, op: &Op, bool_local: u32) {
    s.local_get(op.x.local).local_get(op.y.local);
    match (op.kind, op.wide) {
        (Kind::Binary(0), true) => s.i64_add(),
        (Kind::Binary(1), true) => s.i64_sub(),
        (Kind::Binary(2), true) => s.i64_mul(),
        (Kind::Binary(3), true) => s.i64_and(),
        (Kind::Binary(4), true) => s.i64_or(),
        (Kind::Binary(_), true) => s.i64_xor(),
        (Kind::Binary(0), false) => s.i32_add(),
        (Kind::Binary(1), false) => s.i32_sub(),
        (Kind::Binary(2), false) => s.i32_mul(),
        (Kind::Binary(3), false) => s.i32_and(),
        (Kind::Binary(4), false) => s.i32_or(),
        (Kind::Binary(_), false) => s.i32_xor(),
        (Kind::Icmp(c), true) => match c {
            0 => s.i64_eq(),
            1 => s.i64_ne(),
            2 => s.i64_lt_s(),
            3 => s.i64_ge_s(),
            4 => s.i64_gt_s(),
            5 => s.i64_le_s(),
            6 => s.i64_lt_u(),
            7 => s.i64_ge_u(),
            8 => s.i64_gt_u(),
            _ => s.i64_le_u(),
        },
        (Kind::Icmp(c), false) => match c {
            0 => s.i32_eq(),
            1 => s.i32_ne(),
            2 => s.i32_lt_s(),
            3 => s.i32_ge_s(),
            4 => s.i32_gt_s(),
            5 => s.i32_le_s(),
            6 => s.i32_lt_u(),
            7 => s.i32_ge_u(),
            8 => s.i32_gt_u(),
            _ => s.i32_le_u(),
        },
        (Kind::Select, _) => s.local_get(bool_local).select(),
    };
    s.local_set(op.result.local);
}

/// W1(N): one function `w1`, type `(i64 i64 i32 i32) -> i64`, 17 locals after the parameters.
pub fn w1(w: &W1) -> Vec<u8> {
    let mut f = Function::new([(8, ValType::I64), (8, ValType::I32), (1, ValType::I32)]);
    let mut s = f.instructions();
    for o in &w.ops {
        op(&mut s, o, W1_BOOL_LOCAL);
    }
    s.local_get(w.last64.local).local_get(w.last32.local).i64_extend_i32_u().i64_xor().end();
    let mut code = CodeSection::new();
    code.function(&f);
    use ValType::{I32, I64};
    module(&[(&[I64, I64, I32, I32], &[I64])], &[0], None, &[("w1", 0)], code)
}

/// W2(M): functions `f0 … f(M-1)` of type `(i64 i64) -> i64`; only the last is exported, as `main`.
pub fn w2(w: &W2) -> Vec<u8> {
    let mut code = CodeSection::new();
    for func in &w.functions {
        let mut f = Function::new([(10, ValType::I64), (1, ValType::I32)]);
        let mut s = f.instructions();
        s.i64_const(0).local_set(2).local_get(0).local_set(3).loop_(BlockType::Empty);
        for o in &func.body {
            op(&mut s, o, W2_BOOL_LOCAL);
        }
        s.local_get(2).i64_const(1).i64_add().local_set(2);
        s.local_get(func.last.local).local_set(3);
        s.local_get(2).i64_const(func.trip as i64).i64_lt_u().br_if(0).end();
        match func.callee {
            Some(c) => s.local_get(3).local_get(1).call(c).local_get(3).i64_xor().end(),
            None => s.local_get(3).end(),
        };
        code.function(&f);
    }
    let m = u32::try_from(w.functions.len()).expect("W2 sizes fit u32");
    let funcs = vec![0; m as usize];
    module(&[(&[ValType::I64, ValType::I64], &[ValType::I64])], &funcs, None, &[("main", m - 1)], code)
}

/// W3: `fib(n: i64) -> i64`, exported as `fib`.
pub fn fib() -> Vec<u8> {
    let mut f = Function::new(Vec::<(u32, ValType)>::new());
    f.instructions()
        .local_get(0)
        .i64_const(2)
        .i64_lt_s()
        .if_(BlockType::Result(ValType::I64))
        .local_get(0)
        .else_()
        .local_get(0)
        .i64_const(1)
        .i64_sub()
        .call(0)
        .local_get(0)
        .i64_const(2)
        .i64_sub()
        .call(0)
        .i64_add()
        .end()
        .end();
    let mut code = CodeSection::new();
    code.function(&f);
    module(&[(&[ValType::I64], &[ValType::I64])], &[0], None, &[("fib", 0)], code)
}

/// W5: `loopsum(n: i64) -> i64`, exported as `loopsum`. Locals: 1 = i, 2 = sum.
pub fn loopsum() -> Vec<u8> {
    let mut f = Function::new([(2, ValType::I64)]);
    f.instructions()
        .block(BlockType::Empty)
        .loop_(BlockType::Empty)
        .local_get(1)
        .local_get(0)
        .i64_lt_u()
        .i32_eqz()
        .br_if(1)
        .local_get(2)
        .local_get(1)
        .local_get(1)
        .i64_mul()
        .i64_const(7)
        .i64_rem_u()
        .i64_add()
        .local_set(2)
        .local_get(1)
        .i64_const(1)
        .i64_add()
        .local_set(1)
        .br(0)
        .end()
        .end()
        .local_get(2)
        .end();
    let mut code = CodeSection::new();
    code.function(&f);
    module(&[(&[ValType::I64], &[ValType::I64])], &[0], None, &[("loopsum", 0)], code)
}

/// Emits `block; loop; <test>; br_if 1 (exit when the test is false)` as `local.get i; S; i32.ge_s; br_if 1`.
fn counted_loop_head(s: &mut InstructionSink<'_>, index: u32) {
    s.block(BlockType::Empty).loop_(BlockType::Empty).local_get(index).i32_const(SIEVE_SIZE).i32_ge_s().br_if(1);
}

/// `local += step; br 0; end; end`, closing [`counted_loop_head`].
fn counted_loop_tail(s: &mut InstructionSink<'_>, index: u32, step_local: Option<u32>) {
    s.local_get(index);
    match step_local {
        Some(l) => s.local_get(l),
        None => s.i32_const(1),
    };
    s.i32_add().local_set(index).br(0).end().end();
}

/// W4: `sieve(k: i64) -> i64`, exported as `sieve`, over linear memory 0 (16 pages, min = max) at address 0.
/// Locals: 0 = k, 1 = rep (i64), 2 = total (i64), 3 = i (i32), 4 = j (i32).
pub fn sieve() -> Vec<u8> {
    let byte = MemArg { offset: 0, align: 0, target: MemArgTarget::Memory(0), ordering: None };
    let (k, rep, total, i, j) = (0, 1, 2, 3, 4);
    let mut f = Function::new([(2, ValType::I64), (2, ValType::I32)]);
    let mut s = f.instructions();
    // Repetitions.
    s.block(BlockType::Empty).loop_(BlockType::Empty).local_get(rep).local_get(k).i64_ge_s().br_if(1);
    // mem[i] = 1 for i in 0..S.
    s.i32_const(0).local_set(i);
    counted_loop_head(&mut s, i);
    s.local_get(i).i32_const(1).i32_store8(byte);
    counted_loop_tail(&mut s, i, None);
    // mem[0] = mem[1] = 0.
    s.i32_const(0).i32_const(0).i32_store8(byte).i32_const(1).i32_const(0).i32_store8(byte);
    // For i = 2 while i*i < S: if mem[i], clear its multiples from i*i.
    s.i32_const(2).local_set(i);
    s.block(BlockType::Empty).loop_(BlockType::Empty);
    s.local_get(i).local_get(i).i32_mul().i32_const(SIEVE_SIZE).i32_ge_s().br_if(1);
    s.local_get(i).i32_load8_u(byte).if_(BlockType::Empty);
    s.local_get(i).local_get(i).i32_mul().local_set(j);
    counted_loop_head(&mut s, j);
    s.local_get(j).i32_const(0).i32_store8(byte);
    counted_loop_tail(&mut s, j, Some(i));
    s.end();
    s.local_get(i).i32_const(1).i32_add().local_set(i).br(0).end().end();
    // total += Σ mem[i].
    s.i32_const(0).local_set(i);
    counted_loop_head(&mut s, i);
    s.local_get(total).local_get(i).i64_load8_u(byte).i64_add().local_set(total);
    counted_loop_tail(&mut s, i, None);
    // rep += 1.
    s.local_get(rep).i64_const(1).i64_add().local_set(rep).br(0).end().end();
    s.local_get(total).end();
    let mut code = CodeSection::new();
    code.function(&f);
    module(&[(&[ValType::I64], &[ValType::I64])], &[0], Some(16), &[("sieve", 0)], code)
}

/// Counts the operators of every function body in `bytes` (for operators per instruction).
pub fn operator_count(bytes: &[u8]) -> Result<usize, wasmparser::BinaryReaderError> {
    let mut count = 0;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        if let wasmparser::Payload::CodeSectionEntry(body) = payload? {
            let mut reader = body.get_operators_reader()?;
            while !reader.eof() {
                reader.read()?;
                count += 1;
            }
        }
    }
    Ok(count)
}
