//! The CLIF text of W1–W5, in Cranelift's canonical printed form: `cranelift_reader::parse_functions` followed by
//! `Display` gives the text back byte for byte (`whale-bench check` asserts it for every workload).
//!
//! The printer's rules that matter here: a polymorphic instruction gets a `.type` suffix when its controlling operand
//! (the first operand; the `x` of `select`) is defined in another block; `iconst` and loads always get one; every
//! use of a constant is annotated with `; vN = imm` after the instruction; immediates of 10,000 and more print in
//! grouped hexadecimal.

use std::fmt::Write;

use crate::program::{Kind, Op, Val, BINARY, CONDITIONS, W1, W2};

/// Cranelift's `Imm64` display: decimal below 10,000, else `0x` and groups of four hex digits.
pub fn imm(x: i64) -> String {
    if x < 10_000 {
        return x.to_string();
    }
    let x = x as u64;
    let mut pos = (64 - x.leading_zeros() - 1) & 0xf0;
    let mut s = format!("0x{:04x}", (x >> pos) & 0xffff);
    while pos > 0 {
        pos -= 16;
        let _ = write!(s, "_{:04x}", (x >> pos) & 0xffff);
    }
    s
}

/// Writes one drawn op; `outside` says whether `x` is defined in another block (then the type is spelled).
fn op(out: &mut String, op: &Op, outside: bool) {
    let suffix = if outside {
        if op.wide {
            ".i64"
        } else {
            ".i32"
        }
    } else {
        ""
    };
    let (r, x, y) = (op.result.number, op.x.number, op.y.number);
    let _ = match op.kind {
        Kind::Binary(n) => writeln!(out, "    v{r} = {}{suffix} v{x}, v{y}", BINARY[n as usize]),
        Kind::Icmp(c) => writeln!(out, "    v{r} = icmp{suffix} {} v{x}, v{y}", CONDITIONS[c as usize]),
        Kind::Select => writeln!(out, "    v{r} = select{suffix} v{}, v{x}, v{y}", op.cond.number),
    };
}

/// W1(N) as one CLIF function.
pub fn w1(w: &W1) -> String {
    let mut out = String::with_capacity(40 * w.ops.len() + 256);
    out.push_str("function %w1(i64, i64, i32, i32) -> i64 fast {\n");
    out.push_str("block0(v0: i64, v1: i64, v2: i32, v3: i32):\n");
    for o in &w.ops {
        op(&mut out, o, false);
    }
    let n = w.ops.len() + 4;
    let _ = writeln!(out, "    v{n} = uextend.i64 v{}", w.last32.number);
    let _ = writeln!(out, "    v{} = bxor v{}, v{n}", n + 1, w.last64.number);
    let _ = writeln!(out, "    return v{}", n + 1);
    out.push_str("}\n");
    out
}

/// Whether `v` is a parameter of a W2 function (defined in block0, outside the loop block).
fn in_block0(v: Val) -> bool {
    v.number < 2
}

/// W2(M) as M CLIF functions separated by blank lines.
pub fn w2(w: &W2) -> String {
    let mut out = String::with_capacity(1_400 * w.functions.len());
    for (k, f) in w.functions.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "function %f{k}(i64, i64) -> i64 fast {{");
        if let Some(c) = f.callee {
            out.push_str("    sig0 = (i64, i64) -> i64 fast\n");
            let _ = writeln!(out, "    fn0 = colocated %f{c} sig0\n");
        }
        out.push_str("block0(v0: i64, v1: i64):\n");
        out.push_str("    v2 = iconst.i64 0\n    v3 = iconst.i64 1\n");
        let _ = writeln!(out, "    v4 = iconst.i64 {}", f.trip);
        out.push_str("    jump block1(v2, v0)  ; v2 = 0\n\nblock1(v5: i64, v6: i64):\n");
        for o in &f.body {
            op(&mut out, o, in_block0(o.x));
        }
        let l = f.last.number;
        out.push_str("    v47 = iadd v5, v3  ; v3 = 1\n");
        let _ = writeln!(out, "    v48 = icmp ult v47, v4  ; v4 = {}", f.trip);
        let _ = writeln!(out, "    brif v48, block1(v47, v{l}), block2(v{l})\n\nblock2(v49: i64):");
        if f.callee.is_some() {
            out.push_str("    v50 = call fn0(v49, v1)\n    v51 = bxor v50, v49\n    return v51\n");
        } else {
            out.push_str("    return v49\n");
        }
        out.push_str("}\n");
    }
    out
}

/// W3: recursive `fib(n: i64) -> i64`.
pub const FIB: &str = "\
function %fib(i64) -> i64 fast {
    sig0 = (i64) -> i64 fast
    fn0 = colocated %fib sig0

block0(v0: i64):
    v1 = iconst.i64 2
    v2 = icmp slt v0, v1  ; v1 = 2
    brif v2, block1, block2

block1:
    return v0

block2:
    v3 = iconst.i64 1
    v4 = isub.i64 v0, v3  ; v3 = 1
    v5 = call fn0(v4)
    v6 = isub.i64 v0, v1  ; v1 = 2
    v7 = call fn0(v6)
    v8 = iadd v5, v7
    return v8
}
";

/// W5: `loopsum(n: i64) -> i64 = Σ_{i<n} (i*i) urem 7`.
pub const LOOPSUM: &str = "\
function %loopsum(i64) -> i64 fast {
block0(v0: i64):
    v1 = iconst.i64 0
    v2 = iconst.i64 1
    v3 = iconst.i64 7
    jump block1(v1, v1)  ; v1 = 0, v1 = 0

block1(v4: i64, v5: i64):
    v6 = icmp ult v4, v0
    brif v6, block2, block3

block2:
    v7 = imul.i64 v4, v4
    v8 = urem v7, v3  ; v3 = 7
    v9 = iadd.i64 v5, v8
    v10 = iadd.i64 v4, v2  ; v2 = 1
    jump block1(v10, v9)

block3:
    return v5
}
";

/// W4: `sieve(k: i64) -> i64`, the sieve over the 1,000,000-byte stack slot `ss0`, repeated k times. The block
/// structure and instruction counts are those of the workloads document (9 + 25,740,611·k dynamic instructions).
pub const SIEVE: &str = "\
function %sieve(i64) -> i64 fast {
    ss0 = explicit_slot 1000000

block0(v0: i64):
    v1 = stack_addr.i64 ss0
    v2 = iconst.i64 0
    v3 = iconst.i64 1
    v4 = iconst.i64 2
    v5 = iconst.i64 0x000f_4240
    jump block1(v2, v2)  ; v2 = 0, v2 = 0

block1(v6: i64, v7: i64):
    v8 = icmp slt v6, v0
    brif v8, block2(v2), block13  ; v2 = 0

block2(v9: i64):
    v10 = icmp slt v9, v5  ; v5 = 0x000f_4240
    brif v10, block3, block4

block3:
    v11 = iadd.i64 v1, v9
    istore8.i64 v3, v11  ; v3 = 1
    v12 = iadd.i64 v9, v3  ; v3 = 1
    jump block2(v12)

block4:
    istore8.i64 v2, v1  ; v2 = 0
    v13 = iadd.i64 v1, v3  ; v3 = 1
    istore8.i64 v2, v13  ; v2 = 0
    jump block5(v4)  ; v4 = 2

block5(v14: i64):
    v15 = imul v14, v14
    v16 = icmp slt v15, v5  ; v5 = 0x000f_4240
    brif v16, block6, block10(v2, v7)  ; v2 = 0

block6:
    v17 = iadd.i64 v1, v14
    v18 = uload8.i64 v17
    brif v18, block7(v15), block9

block7(v19: i64):
    v20 = icmp slt v19, v5  ; v5 = 0x000f_4240
    brif v20, block8, block9

block8:
    v21 = iadd.i64 v1, v19
    istore8.i64 v2, v21  ; v2 = 0
    v22 = iadd.i64 v19, v14
    jump block7(v22)

block9:
    v23 = iadd.i64 v14, v3  ; v3 = 1
    jump block5(v23)

block10(v24: i64, v25: i64):
    v26 = icmp slt v24, v5  ; v5 = 0x000f_4240
    brif v26, block11, block12

block11:
    v27 = iadd.i64 v1, v24
    v28 = uload8.i64 v27
    v29 = iadd.i64 v25, v28
    v30 = iadd.i64 v24, v3  ; v3 = 1
    jump block10(v30, v29)

block12:
    v31 = iadd.i64 v6, v3  ; v3 = 1
    jump block1(v31, v25)

block13:
    return v7
}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediates_print_like_cranelift() {
        assert_eq!(imm(9_999), "9999");
        assert_eq!(imm(10_000), "0x2710");
        assert_eq!(imm(0x10000), "0x0001_0000");
        assert_eq!(imm(1_000_000), "0x000f_4240");
    }
}
