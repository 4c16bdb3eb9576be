//! AST format 2 throughput: decode, and decode + lower at O0 + verify, generated
//! programs of just under 8 MiB of JSON.
//!
//! Run: `cargo bench -p ir --features socket --bench lower`. Groups `ir/decode`
//! (`Throughput::Bytes` of the JSON) and `ir/lower` (`Throughput::Elements`, the
//! instructions of the lowered module). In `ir/lower`, `pipeline` times decode +
//! lower + verify (`lower_json`, then `verify_module`) and `lower_verify` the
//! last two alone, from the decoded program (`lower_o0`, then `verify_module`).
//!
//! "An 8 MiB program" is measured in both encodings, as two inputs that each fill
//! the decoder's default limit: `pretty_8mib` is what `encode` writes
//! (pretty-printed, as `examples/` stores programs; about 80 % of it is
//! indentation), `compact_8mib` is JSON without whitespace between tokens, as
//! most JSON writers emit by default — five times as many functions and
//! instructions in the same bytes. Both are prefixes of one generated sequence of
//! functions.
//!
//! The program is generated deterministically (SplitMix64): eight globals, one
//! external declaration, then functions of three signatures whose bodies
//! declare locals and constants and mix arithmetic, comparisons, `if`, `while`
//! with `break`/`continue`, direct and indirect calls. Set
//! `WHALE_LOWER_BENCH_DUMP=DIR` to write both texts to `DIR` (for profiling).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use ir::lower_ast::frontend::{
    BinaryOp, Callee, CmpOp, Convention, Expr, Function, FunctionDeclaration, GlobalConst, Linkage, Literal, Param,
    Program, Signature, Stmt, Type,
};
use ir::lower_ast::interchange::{decode, encode, DEFAULT_MAX_INPUT_BYTES};
use ir::lower_ast::{lower_json, lower_o0};
use ir::{DataLayout, Module};

const TARGET: &str = "x86_64-whale-linux";

/// The generated text stays this far below the decoder's default limit.
const MARGIN: usize = 16 * 1024;

// ---- deterministic generation ---------------------------------------------------------

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and good enough to pick shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The value types of the generated program.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    I64,
    U32,
    Bool,
}

impl Ty {
    fn ast(self) -> Type {
        match self {
            Ty::I64 => Type::Int { bits: 64, signed: true },
            Ty::U32 => Type::Int { bits: 32, signed: false },
            Ty::Bool => Type::Bool,
        }
    }
}

/// A function's name and signature, as the generator sees it.
#[derive(Clone)]
struct Callable {
    name: String,
    params: Vec<Ty>,
    ret: Option<Ty>,
}

impl Callable {
    fn signature(&self, convention: Convention) -> Signature {
        Signature {
            params: self.params.iter().map(|t| t.ast()).collect(),
            ret: self.ret.map_or(Type::Void, Ty::ast),
            convention,
            variadic: false,
        }
    }
}

/// The three signatures of defined functions, by index modulo 3.
fn shape(k: usize) -> (Vec<(&'static str, Ty)>, Ty) {
    match k % 3 {
        0 => (vec![("a", Ty::I64), ("b", Ty::I64)], Ty::I64),
        1 => (vec![("n", Ty::U32), ("m", Ty::U32), ("flag", Ty::Bool)], Ty::U32),
        _ => (vec![("x", Ty::I64), ("limit", Ty::U32)], Ty::Bool),
    }
}

fn int(ty: Ty, value: i64) -> Expr {
    match ty {
        Ty::I64 => Expr::Lit(Literal::Int { bits: 64, signed: true, value: value.to_string() }),
        Ty::U32 => Expr::Lit(Literal::Int { bits: 32, signed: false, value: value.unsigned_abs().to_string() }),
        Ty::Bool => Expr::Lit(Literal::Bool(value != 0)),
    }
}

fn bin(left: Expr, op: BinaryOp, right: Expr) -> Expr {
    Expr::Binary { left: Box::new(left), op, right: Box::new(right) }
}

fn cmp(left: Expr, op: CmpOp, right: Expr) -> Expr {
    Expr::Cmp { left: Box::new(left), op, right: Box::new(right) }
}

/// Generates one function body at a time; `scope` holds the visible names
/// (variables, constants, parameters and globals) with their types.
struct Gen<'a> {
    rng: &'a mut Rng,
    /// Functions callable from the current one: all earlier ones and itself.
    callees: &'a [Callable],
    /// The external `void` sink.
    sink: &'a Callable,
    scope: Vec<(String, Ty)>,
    fresh: usize,
    loop_depth: usize,
}

impl Gen<'_> {
    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn literal(&mut self, ty: Ty) -> Expr {
        let value = match self.rng.below(4) {
            0 => 0,
            1 => 1,
            2 => self.rng.below(100) as i64,
            _ => self.rng.next() as i32 as i64,
        };
        int(ty, value)
    }

    /// A local, parameter or global of type `ty` (globals a quarter of the time), or a literal.
    fn leaf(&mut self, ty: Ty) -> Expr {
        let global = self.rng.chance(25);
        let names: Vec<&String> =
            self.scope.iter().filter(|(n, t)| *t == ty && n.starts_with('G') == global).map(|(n, _)| n).collect();
        if !names.is_empty() && self.rng.chance(70) {
            Expr::Var(names[self.rng.below(names.len())].clone())
        } else {
            self.literal(ty)
        }
    }

    fn call(&mut self, callee: &Callable, depth: usize) -> Expr {
        let args = callee.params.clone().into_iter().map(|t| self.expr(t, depth.saturating_sub(2))).collect();
        let callee = if self.rng.chance(15) {
            Callee::Indirect(Box::new(Expr::FunctionRef(callee.name.clone())))
        } else {
            Callee::Direct(callee.name.clone())
        };
        Expr::Call { callee, args }
    }

    fn expr(&mut self, ty: Ty, depth: usize) -> Expr {
        if depth == 0 || self.rng.chance(30) {
            return self.leaf(ty);
        }
        if ty == Ty::Bool {
            return match self.rng.below(10) {
                0 => cmp(self.expr(Ty::Bool, depth - 1), self.rng.pick(&[CmpOp::Eq, CmpOp::Ne]), self.leaf(Ty::Bool)),
                1 => self.call_returning(Ty::Bool, depth),
                _ => {
                    let operand = self.rng.pick(&[Ty::I64, Ty::U32]);
                    let op = self.rng.pick(&[CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge]);
                    cmp(self.expr(operand, depth - 1), op, self.expr(operand, depth - 1))
                }
            };
        }
        if self.rng.chance(12) {
            return self.call_returning(ty, depth);
        }
        let op = self.rng.pick(&[BinaryOp::Add, BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul]);
        bin(self.expr(ty, depth - 1), op, self.expr(ty, depth - 1))
    }

    fn call_returning(&mut self, ty: Ty, depth: usize) -> Expr {
        let candidates: Vec<usize> = (0..self.callees.len()).filter(|&i| self.callees[i].ret == Some(ty)).collect();
        if candidates.is_empty() {
            return self.leaf(ty);
        }
        let callee = self.callees[candidates[self.rng.below(candidates.len())]].clone();
        self.call(&callee, depth)
    }

    /// A variable or parameter of type `ty` (constants start with `k`, globals with `G`).
    fn assignable(&mut self, ty: Ty) -> Option<String> {
        let names: Vec<&String> =
            self.scope.iter().filter(|(n, t)| *t == ty && !n.starts_with(['k', 'G'])).map(|(n, _)| n).collect();
        (!names.is_empty()).then(|| names[self.rng.below(names.len())].clone())
    }

    fn any_ty(&mut self) -> Ty {
        self.rng.pick(&[Ty::I64, Ty::I64, Ty::U32, Ty::Bool])
    }

    fn var_decl(&mut self, out: &mut Vec<Stmt>) {
        let ty = self.any_ty();
        let name = self.name("v");
        if self.rng.chance(20) {
            out.push(Stmt::VarDecl { name: name.clone(), ty: ty.ast(), init: None });
            let value = self.expr(ty, 2);
            out.push(Stmt::Assign { name: name.clone(), value });
        } else {
            let init = Some(self.expr(ty, 2));
            out.push(Stmt::VarDecl { name: name.clone(), ty: ty.ast(), init });
        }
        self.scope.push((name, ty));
    }

    fn const_decl(&mut self, out: &mut Vec<Stmt>) {
        let ty = self.rng.pick(&[Ty::I64, Ty::U32]);
        let name = self.name("k");
        let init = bin(self.literal(ty), BinaryOp::Mul, self.literal(ty));
        out.push(Stmt::ConstDecl { name: name.clone(), ty: ty.ast(), init });
        self.scope.push((name, ty));
    }

    fn block(&mut self, len: usize, depth: usize) -> Vec<Stmt> {
        let mark = self.scope.len();
        let mut out = Vec::with_capacity(len);
        for _ in 0..len {
            self.stmt(&mut out, depth);
        }
        self.scope.truncate(mark);
        out
    }

    fn stmt(&mut self, out: &mut Vec<Stmt>, depth: usize) {
        match self.rng.below(20) {
            0..=2 => self.var_decl(out),
            3 => self.const_decl(out),
            4..=9 => {
                let ty = self.any_ty();
                match self.assignable(ty) {
                    Some(name) => {
                        let depth = 2 + self.rng.below(2);
                        let value = self.expr(ty, depth);
                        out.push(Stmt::Assign { name, value });
                    }
                    None => self.var_decl(out),
                }
            }
            10 => {
                let args = vec![self.expr(Ty::I64, 2)];
                out.push(Stmt::ExprStmt(Expr::Call { callee: Callee::Direct(self.sink.name.clone()), args }));
            }
            11 => {
                let ty = self.any_ty();
                let call = self.call_returning(ty, 2);
                out.push(Stmt::ExprStmt(call));
            }
            12..=15 if depth > 0 => {
                let cond = self.expr(Ty::Bool, 2);
                let then_len = 1 + self.rng.below(3);
                let then_body = self.block(then_len, depth - 1);
                let else_len = self.rng.below(3);
                let else_body = self.block(else_len, depth - 1);
                out.push(Stmt::If { cond, then_body, else_body });
            }
            16..=18 if depth > 0 => self.counted_loop(out, depth),
            19 if self.loop_depth > 0 => {
                let cond = self.expr(Ty::Bool, 2);
                let exit = if self.rng.chance(50) { Stmt::Break } else { Stmt::Continue };
                out.push(Stmt::If { cond, then_body: vec![exit], else_body: vec![] });
            }
            _ => self.var_decl(out),
        }
    }

    /// `var i = 0; while (i < N) { i = i + 1; body }`.
    fn counted_loop(&mut self, out: &mut Vec<Stmt>, depth: usize) {
        let counter = self.name("v");
        out.push(Stmt::VarDecl { name: counter.clone(), ty: Ty::I64.ast(), init: Some(int(Ty::I64, 0)) });
        let bound = self.expr(Ty::I64, 1);
        let cond = cmp(Expr::Var(counter.clone()), CmpOp::Lt, bound);
        let step = bin(Expr::Var(counter.clone()), BinaryOp::Add, int(Ty::I64, 1));
        self.loop_depth += 1;
        let len = 1 + self.rng.below(3);
        let mut body = vec![Stmt::Assign { name: counter.clone(), value: step }];
        body.extend(self.block(len, depth - 1));
        self.loop_depth -= 1;
        out.push(Stmt::While { cond, body });
        self.scope.push((counter, Ty::I64));
    }
}

/// The two encodings of a generated program.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Encoding {
    /// `encode`'s output.
    Pretty,
    /// The same JSON without whitespace between tokens (serde_json's compact writer).
    Compact,
}

impl Encoding {
    fn text(self, program: &Program) -> String {
        match self {
            Encoding::Pretty => encode(program),
            Encoding::Compact => {
                let program = serde_json::to_string(program).expect("AST values serialize");
                format!(r#"{{"format_version":2,"semantics_version":1,"features":[],"program":{program}}}"#)
            }
        }
    }
}

/// Globals `G0..G7`, the external sink, and functions until the program's text
/// in `encoding` would pass `target_bytes`.
fn generate(target_bytes: usize, encoding: Encoding) -> Program {
    let mut rng = Rng(0x5eed_10e5);
    let mut program = Program::default();
    let mut globals = Vec::new();
    for i in 0..8 {
        let ty = if i % 4 == 3 { Ty::U32 } else { Ty::I64 };
        let name = format!("G{i}");
        let mut init = int(ty, rng.below(1000) as i64);
        if let Some((earlier, _)) = globals.iter().rev().find(|(_, t)| *t == ty) {
            init = bin(Expr::Var(String::clone(earlier)), BinaryOp::Add, init);
        }
        program.globals.push(GlobalConst { name: name.clone(), ty: ty.ast(), init });
        globals.push((name, ty));
    }
    let sink = Callable { name: "sink".into(), params: vec![Ty::I64], ret: None };
    program.declarations.push(FunctionDeclaration {
        name: sink.name.clone(),
        signature: sink.signature(Convention::SysV64),
        linkage: Linkage::External,
        link_name: Some("whale_sink".into()),
    });

    let mut size = encoding.text(&program).len();
    let empty = encoding.text(&Program::default()).len();
    // Functions are separated by ",\n" plus indentation that a one-function
    // program has as well, or by "," alone.
    let separator = match encoding {
        Encoding::Pretty => 2,
        Encoding::Compact => 1,
    };
    let mut callees: Vec<Callable> = Vec::new();
    for k in 0.. {
        let (params, ret) = shape(k);
        let name = format!("f{k}");
        callees.push(Callable { name: name.clone(), params: params.iter().map(|p| p.1).collect(), ret: Some(ret) });
        let mut gen = Gen {
            rng: &mut rng,
            callees: &callees,
            sink: &sink,
            scope: globals.iter().cloned().chain(params.iter().map(|&(n, t)| (n.to_string(), t))).collect(),
            fresh: 0,
            loop_depth: 0,
        };
        let len = 4 + gen.rng.below(8);
        let mut body = gen.block(len, 2);
        body.push(Stmt::Return(Some(gen.expr(ret, 2))));
        let function = Function {
            convention: Convention::Whale,
            linkage: Linkage::Internal,
            link_name: None,
            name,
            parameters: params.iter().map(|&(n, t)| Param { name: n.into(), ty: t.ast() }).collect(),
            return_type: ret.ast(),
            body,
        };
        let one = Program { declarations: vec![], globals: vec![], functions: vec![function] };
        let added = encoding.text(&one).len() - empty + separator;
        if size + added > target_bytes {
            break;
        }
        size += added;
        program.functions.extend(one.functions);
    }
    program
}

fn pipeline(text: &str) -> Module {
    let module = lower_json(text, DEFAULT_MAX_INPUT_BYTES, TARGET, DataLayout::default_64bit_le())
        .expect("generated program decodes and lowers");
    ir::verify_module(&module).expect("lowered program verifies");
    module
}

fn lower_verify(program: &Program) -> Module {
    let module = lower_o0(program, TARGET, DataLayout::default_64bit_le()).expect("generated program lowers");
    ir::verify_module(&module).expect("lowered program verifies");
    module
}

/// Best of `runs` wall-clock times of `f`, in seconds.
fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// A generated program, its text and its instruction count.
struct Input {
    name: &'static str,
    program: Program,
    text: String,
    insts: u64,
}

fn input(name: &'static str, encoding: Encoding) -> Input {
    let program = generate(DEFAULT_MAX_INPUT_BYTES - MARGIN, encoding);
    let text = encoding.text(&program);
    assert!(text.len() <= DEFAULT_MAX_INPUT_BYTES, "{name}: {} bytes", text.len());
    // Generated names and literals hold no whitespace, so compact text has none.
    assert!(encoding == Encoding::Pretty || !text.contains([' ', '\n']), "{name}");
    assert_eq!(decode(&text).as_ref(), Ok(&program), "{name}");
    let insts = pipeline(&text).inst_count() as u64;
    println!(
        "lower {name}: {} functions, {} bytes, {insts} instructions ({:.1} bytes/inst)",
        program.functions.len(),
        text.len(),
        text.len() as f64 / insts as f64
    );
    Input { name, program, text, insts }
}

fn benches(c: &mut Criterion) {
    let inputs = [input("pretty_8mib", Encoding::Pretty), input("compact_8mib", Encoding::Compact)];
    // A quick record before the measurements, skipped by `cargo test --benches`
    // (which does not pass `--bench`).
    if std::env::args().any(|arg| arg == "--bench") {
        for Input { name, program, text, insts } in &inputs {
            let decode_s = best_of(3, || decode(text));
            let lower_s = best_of(3, || lower_verify(program));
            let pipeline_s = best_of(3, || pipeline(text));
            println!(
                "  {name}, best of 3: decode {:.1} MB/s, lower+verify {:.2} M inst/s, pipeline {:.2} M inst/s",
                text.len() as f64 / decode_s / 1e6,
                *insts as f64 / lower_s / 1e6,
                *insts as f64 / pipeline_s / 1e6
            );
        }
    }
    if let Some(dir) = std::env::var_os("WHALE_LOWER_BENCH_DUMP") {
        for input in &inputs {
            let path = std::path::Path::new(&dir).join(format!("{}.json", input.name));
            std::fs::write(path, &input.text).expect("writes the generated program");
        }
    }

    let configure = |g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>| {
        g.sample_size(10);
        g.sampling_mode(SamplingMode::Flat);
        g.warm_up_time(Duration::from_secs(1));
        g.measurement_time(Duration::from_secs(3));
    };

    let mut g = c.benchmark_group("ir/decode");
    configure(&mut g);
    for input in &inputs {
        g.throughput(Throughput::Bytes(input.text.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(input.name), &input.text, |b, text| {
            b.iter(|| decode(black_box(text)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("ir/lower");
    configure(&mut g);
    for input in &inputs {
        g.throughput(Throughput::Elements(input.insts));
        g.bench_with_input(BenchmarkId::new("pipeline", input.name), &input.text, |b, text| {
            b.iter(|| pipeline(black_box(text)))
        });
        g.bench_with_input(BenchmarkId::new("lower_verify", input.name), &input.program, |b, program| {
            b.iter(|| lower_verify(black_box(program)))
        });
    }
    g.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
