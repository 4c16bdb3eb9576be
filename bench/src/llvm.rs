//! The LLVM `.ll` form of W1, W2 and W3 (workloads.md), for LLVM 19's `llvm-as` and `lli`.
//!
//! Value names follow the CLIF numbers (`%vK`); constants are immediates, so W2's three `iconst`s become the three
//! phis of its loop and exit blocks. W1/W2 modules have no `main`; W3 has one that prints `fib(n)` with `printf`.

use std::fmt::Write;

use crate::program::{Kind, Op, CONDITIONS, W1, W2};

const LLVM_BINARY: [&str; 6] = ["add", "sub", "mul", "and", "or", "xor"];

fn op(out: &mut String, op: &Op) {
    let ty = if op.wide { "i64" } else { "i32" };
    let (r, x, y) = (op.result.number, op.x.number, op.y.number);
    let _ = match op.kind {
        Kind::Binary(n) => writeln!(out, "  %v{r} = {} {ty} %v{x}, %v{y}", LLVM_BINARY[n as usize]),
        Kind::Icmp(c) => writeln!(out, "  %v{r} = icmp {} {ty} %v{x}, %v{y}", CONDITIONS[c as usize]),
        Kind::Select => writeln!(out, "  %v{r} = select i1 %v{}, {ty} %v{x}, {ty} %v{y}", op.cond.number),
    };
}

/// W1(N): `define i64 @w1(i64 %v0, i64 %v1, i32 %v2, i32 %v3)`, one block, N + 3 instructions.
pub fn w1(w: &W1) -> String {
    let mut out = String::with_capacity(40 * w.ops.len() + 256);
    out.push_str("define i64 @w1(i64 %v0, i64 %v1, i32 %v2, i32 %v3) {\nblock0:\n");
    for o in &w.ops {
        op(&mut out, o);
    }
    let n = w.ops.len() + 4;
    let _ = writeln!(out, "  %v{n} = zext i32 %v{} to i64", w.last32.number);
    let _ = writeln!(out, "  %v{} = xor i64 %v{}, %v{n}", n + 1, w.last64.number);
    let _ = writeln!(out, "  ret i64 %v{}\n}}", n + 1);
    out
}

/// W2(M): `define i64 @fK(i64 %v0, i64 %v1)`, 50 instructions per function (48 for f0).
pub fn w2(w: &W2) -> String {
    let mut out = String::with_capacity(1_400 * w.functions.len());
    for (k, f) in w.functions.iter().enumerate() {
        let l = f.last.number;
        let _ = writeln!(out, "define i64 @f{k}(i64 %v0, i64 %v1) {{\nblock0:\n  br label %block1\nblock1:");
        out.push_str("  %v5 = phi i64 [ 0, %block0 ], [ %v47, %block1 ]\n");
        let _ = writeln!(out, "  %v6 = phi i64 [ %v0, %block0 ], [ %v{l}, %block1 ]");
        for o in &f.body {
            op(&mut out, o);
        }
        out.push_str("  %v47 = add i64 %v5, 1\n");
        let _ = writeln!(out, "  %v48 = icmp ult i64 %v47, {}", f.trip);
        out.push_str("  br i1 %v48, label %block1, label %block2\nblock2:\n");
        let _ = writeln!(out, "  %v49 = phi i64 [ %v{l}, %block1 ]");
        match f.callee {
            Some(c) => {
                let _ = writeln!(out, "  %v50 = call i64 @f{c}(i64 %v49, i64 %v1)");
                out.push_str("  %v51 = xor i64 %v50, %v49\n  ret i64 %v51\n}\n");
            }
            None => out.push_str("  ret i64 %v49\n}\n"),
        }
    }
    out
}

/// W3 with a `main` that prints `fib(n)`.
pub fn fib_program(n: i64) -> String {
    format!(
        r#"@.fmt = private constant [6 x i8] c"%lld\0A\00"
declare i32 @printf(ptr, ...)

define i64 @fib(i64 %v0) {{
block0:
  %v2 = icmp slt i64 %v0, 2
  br i1 %v2, label %block1, label %block2
block1:
  ret i64 %v0
block2:
  %v4 = sub i64 %v0, 1
  %v5 = call i64 @fib(i64 %v4)
  %v6 = sub i64 %v0, 2
  %v7 = call i64 @fib(i64 %v6)
  %v8 = add i64 %v5, %v7
  ret i64 %v8
}}

define i32 @main() {{
  %r = call i64 @fib(i64 {n})
  %p = call i32 (ptr, ...) @printf(ptr @.fmt, i64 %r)
  ret i32 0
}}
"#
    )
}
