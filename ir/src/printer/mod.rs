//! The text printer: format 2 (the seed's layout) and format 4 (explicit ids).
//!
//! The printer is the definition of the text format (whale-ir §4). Format 2
//! omits parameter and block ids, which readers infer by the canonical numbering
//! rule, so [`print_module`] writes format 2 only for canonically numbered
//! modules whose names can be written bare; any other module is written in
//! format 4 (explicit `%vN`/`%bN`, quoted names), never lossily. Operand type
//! annotations are written from the operands' own types (types are stored once,
//! on values), so the text always states what the model holds.
//!
//! Output is built in a `String` with hand-written integer formatting: no
//! `format!` per instruction, no renumbering, deterministic. [`write_module`]
//! streams the same text to an `io::Write` in 64 KiB chunks, so printing a
//! large module to a file needs no module-sized buffer (whose fresh pages cost
//! more than the printing once it passes the allocator's mmap threshold).

mod line;

use crate::const_expr::ConstExpr;
use crate::constant::ConstValue;
use crate::entity::{BlockId, FunctionId, PackedOption, TypeId, ValueId};
use crate::inst::InstData;
use crate::module::{Function, Module};
use crate::opcode::{CmpOp, FCmpPred, ICmpPred, Opcode};
use crate::types::push_u64;

/// Which text layout to write.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TextFormat {
    /// Format 2 when the module allows it exactly ([`format2_is_exact`]), otherwise format 4.
    Auto,
    /// Format 2 (the seed's layout). Falls back to format 4 when format 2
    /// cannot reproduce the module ([`format2_is_exact`]).
    V2,
    /// Format 4: explicit identities and quoted names.
    V4,
}

/// Prints `module` as text: format 2 when exact, otherwise format 4.
///
/// ```
/// use ir::{ModuleBuilder, DataLayout, Type};
/// let mut module = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
/// let mut f = module.begin_function("unit", vec![], Type::Void);
/// f.ret(None);
/// f.finish();
/// let text = ir::print_module(&module.finish());
/// assert!(text.starts_with("module {\n  format_version 2\n"));
/// ```
pub fn print_module(module: &Module) -> String {
    print_module_with(module, TextFormat::Auto)
}

/// Prints `module` in the requested layout (see [`TextFormat`]).
pub fn print_module_with(module: &Module, format: TextFormat) -> String {
    let mut printer = Printer::new(module, format, String::with_capacity(256 + module.inst_count() * 56), None);
    printer.module();
    printer.out
}

/// Writes `module` in the requested layout to `sink`, in chunks; the bytes
/// are exactly those of [`print_module_with`]. Stops at the first write error.
///
/// ```
/// use ir::{ModuleBuilder, DataLayout, TextFormat, Type};
/// let mut module = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
/// let mut f = module.begin_function("unit", vec![], Type::Void);
/// f.ret(None);
/// f.finish();
/// let module = module.finish();
/// let mut bytes = Vec::new();
/// ir::write_module(&module, TextFormat::Auto, &mut bytes).unwrap();
/// assert_eq!(bytes, ir::print_module(&module).into_bytes());
/// ```
pub fn write_module(module: &Module, format: TextFormat, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut printer = Printer::new(module, format, String::with_capacity(2 * CHUNK), Some(sink));
    printer.module();
    printer.flush();
    printer.error.map_or(Ok(()), Err)
}

/// Bytes gathered before [`write_module`] hands them to its sink.
const CHUNK: usize = 64 * 1024;

/// Instructions per run of functions printed by one task (about 1 MB of text).
const PARALLEL_RUN: usize = 20 * 1024;

/// Whether format 2 text reproduces `module` exactly (whale-ir §3): its ids
/// are canonically numbered, its names can be written bare, and it uses only
/// format-2 instructions (no `uninit`, which format 2 never had).
pub fn format2_is_exact(module: &Module) -> bool {
    module.is_canonically_numbered()
        && module.functions().all(|f| {
            is_bare_name(f.name)
                && f.params.iter().all(|p| is_bare_name(module.str(p.name)))
                && f.blocks.iter().all(|&b| is_bare_name(f.block_name(b)))
                && !f.insts().iter().any(|data| matches!(data, InstData::Memory { op: Opcode::Uninit, .. }))
        })
        && module.globals().all(|g| is_bare_name(g.name))
}

/// Whether `name` can be written without quotes in format 2: a non-empty run of
/// letters, digits, `_`, `.` and `$`.
pub fn is_bare_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '$'))
}

/// Appends `s` as a quoted string with Whale's one escaping (whale-ir §4).
pub fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str("\\u{");
                out.push_str(&format!("{:x}", c as u32));
                out.push('}');
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

struct Printer<'m, 'w> {
    m: &'m Module,
    /// The value types of the function being printed, from its value base
    /// (its value ids are scoped to it).
    value_types: (&'m [PackedOption<TypeId>], u32),
    out: String,
    /// Where full chunks go ([`write_module`]); `None` keeps everything in `out`.
    sink: Option<&'w mut dyn std::io::Write>,
    /// The first write error; later output is dropped.
    error: Option<std::io::Error>,
    v4: bool,
    /// Spellings of the compound types printed so far: each is spelled once, and
    /// only if used (spelling every interned type up front would be quadratic
    /// for long chains of nested types).
    type_names: Vec<Option<Box<str>>>,
    /// Padded spellings for the common-line fast path.
    tokens: line::Tokens,
    /// Lines written by the fast path and not yet moved to `out`.
    lines: Vec<u8>,
}

impl<'m, 'w> Printer<'m, 'w> {
    fn new(m: &'m Module, format: TextFormat, out: String, sink: Option<&'w mut dyn std::io::Write>) -> Self {
        let v4 = match format {
            TextFormat::V4 => true,
            TextFormat::Auto | TextFormat::V2 => !format2_is_exact(m),
        };
        Self::with_layout(m, v4, out, sink)
    }

    fn with_layout(m: &'m Module, v4: bool, out: String, sink: Option<&'w mut dyn std::io::Write>) -> Self {
        Printer {
            m,
            value_types: (&[], 0),
            out,
            sink,
            error: None,
            v4,
            type_names: vec![None; m.types.len()],
            tokens: line::Tokens::new(),
            lines: Vec::new(),
        }
    }

    /// Moves the fast path's lines to `out`, keeping the text's order.
    fn settle_lines(&mut self) {
        if self.lines.is_empty() {
            return;
        }
        match std::str::from_utf8(&self.lines) {
            Ok(text) => self.out.push_str(text),
            // Unreachable: the fast path writes ASCII only.
            Err(_) => self.out.push_str(&String::from_utf8_lossy(&self.lines)),
        }
        self.lines.clear();
        self.flush_if_full();
    }

    /// Hands the gathered text to the sink, if there is one.
    fn flush(&mut self) {
        let Some(sink) = self.sink.as_mut() else { return };
        if self.error.is_none() {
            if let Err(e) = sink.write_all(self.out.as_bytes()) {
                self.error = Some(e);
            }
        }
        self.out.clear();
    }

    #[inline]
    fn flush_if_full(&mut self) {
        if self.out.len() >= CHUNK && self.sink.is_some() {
            self.flush();
        }
    }

    fn module(&mut self) {
        let m = self.m;
        self.out.push_str(if self.v4 { "module {\n  format_version 4\n" } else { "module {\n  format_version 2\n" });
        self.out.push_str("  semantics_version 1\n  target ");
        push_quoted(&mut self.out, &m.target);
        self.out.push_str("\n  datalayout ");
        self.out.push_str(&m.data_layout.to_string());
        self.out.push_str("\n\n");
        if !m.globals.is_empty() {
            for g in m.globals() {
                self.out.push_str("  global ");
                if self.v4 {
                    self.global_ref(g.id.as_u32());
                    self.out.push(' ');
                    push_quoted(&mut self.out, g.name);
                } else {
                    self.out.push('@');
                    self.out.push_str(g.name);
                }
                self.out.push_str(": ");
                self.ty(g.ty);
                self.out.push_str(" = const ");
                self.ty(g.ty);
                self.out.push(' ');
                self.const_value(g.init);
                self.out.push_str(", align ");
                push_u64(&mut self.out, u64::from(g.align));
                if !self.v4 {
                    self.out.push_str(", id ");
                    self.global_ref(g.id.as_u32());
                }
                self.out.push_str(", init_expr ");
                self.const_expr(g.init_expr);
                self.out.push('\n');
                self.flush_if_full();
            }
            self.out.push('\n');
        }
        if !m.declarations.is_empty() {
            for d in m.declarations() {
                self.out.push_str("  declare ");
                self.func_ref(d.id);
                self.out.push(' ');
                push_quoted(&mut self.out, d.name);
                self.out.push_str(": ");
                m.types.write_sig(&mut self.out, d.sig);
                self.out.push_str(", linkage ");
                self.out.push_str(d.linkage.keyword());
                if let Some(link) = d.link_name {
                    self.out.push_str(", link_name ");
                    push_quoted(&mut self.out, link);
                }
                self.out.push('\n');
                self.flush_if_full();
            }
            self.out.push('\n');
        }
        let runs = crate::parallel::runs_of(m, PARALLEL_RUN);
        if runs.len() == 1 {
            for f in m.functions() {
                self.function(f);
            }
        } else {
            self.functions_in_parallel(&runs);
        }
        self.out.push_str("}\n");
    }

    /// Prints runs of functions on the current thread pool, a window of runs
    /// at a time, each into a text of its own, and appends the texts in order:
    /// the output is the sequential one, and a streamed print holds about one
    /// window of text at a time.
    fn functions_in_parallel(&mut self, runs: &[std::ops::Range<usize>]) {
        use rayon::prelude::*;
        let (m, v4) = (self.m, self.v4);
        let window = rayon::current_num_threads() * 2;
        for batch in runs.chunks(window) {
            let texts: Vec<String> = batch
                .par_iter()
                .map(|run| {
                    let mut printer = Printer::with_layout(m, v4, String::with_capacity(2 * CHUNK), None);
                    for index in run.clone() {
                        printer.function(m.function_at(index));
                    }
                    printer.settle_lines();
                    printer.out
                })
                .collect();
            for text in texts {
                self.out.push_str(&text);
                self.flush_if_full();
            }
        }
    }

    fn function(&mut self, f: Function<'m>) {
        let m = self.m;
        self.value_types = f.value_table();
        self.out.push_str("  fn ");
        if self.v4 {
            self.func_ref(f.id);
            self.out.push(' ');
            push_quoted(&mut self.out, f.name);
        } else {
            self.out.push('@');
            self.out.push_str(f.name);
        }
        self.out.push('(');
        for (i, p) in f.params.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if self.v4 {
                self.value(p.value);
                self.out.push(' ');
                push_quoted(&mut self.out, m.str(p.name));
            } else {
                self.out.push_str(m.str(p.name));
            }
            self.out.push_str(": ");
            self.value_ty(p.value);
        }
        self.out.push_str(") -> ");
        self.ty(f.ret);
        if self.v4 {
            self.out.push_str(", entry ");
            self.block_ref(f.entry);
        } else {
            self.out.push_str(", id ");
            self.func_ref(f.id);
        }
        self.out.push_str(" {\n");
        for &b in f.blocks {
            self.settle_lines();
            self.out.push_str("  ");
            if self.v4 {
                self.block_ref(b);
                self.out.push(' ');
                push_quoted(&mut self.out, f.block_name(b));
            } else {
                self.out.push_str(f.block_name(b));
            }
            self.out.push_str(":\n");
            let (insts, results, _) = f.block_slices(b);
            for (data, result) in insts.iter().zip(results) {
                let result = result.expand();
                if line::push_common(&mut self.lines, &f, &self.tokens, data, result) {
                    if self.lines.len() >= CHUNK {
                        self.settle_lines();
                    }
                } else {
                    self.settle_lines();
                    self.out.push_str("    ");
                    if let Some(v) = result {
                        self.value(v);
                        self.out.push_str(": ");
                        self.value_ty(v);
                        self.out.push_str(" = ");
                    }
                    self.inst(data, result, f);
                    self.out.push('\n');
                }
                self.flush_if_full();
            }
        }
        self.settle_lines();
        self.out.push_str("  }\n\n");
    }

    fn inst(&mut self, data: &InstData, result: Option<ValueId>, f: Function<'m>) {
        let m = self.m;
        let op = data.opcode();
        let result_ty = result.and_then(|v| f.value_type(v));
        match *data {
            InstData::Nullary { .. } => {
                self.out.push_str(op.mnemonic());
                self.out.push(' ');
                self.opt_ty(result_ty);
            }
            InstData::Const { .. } | InstData::ConstWide { .. } => {
                self.out.push_str("const ");
                self.opt_ty(result_ty);
                self.out.push(' ');
                if let Some(v) = m.const_payload(data) {
                    self.const_value(v);
                }
            }
            InstData::ConstDecl { decl } => {
                let d = m.const_decl(decl);
                self.out.push_str("const_decl ");
                push_quoted(&mut self.out, d.name);
                self.out.push(' ');
                self.const_expr(d.expr);
                self.out.push_str(" => const ");
                self.opt_ty(result_ty);
                self.out.push(' ');
                self.const_value(d.value);
            }
            InstData::Unary { arg, .. } => {
                self.out.push_str(op.mnemonic());
                self.out.push(' ');
                self.opt_ty(result_ty);
                self.out.push(' ');
                self.value(arg);
            }
            InstData::Binary { args, .. } => {
                self.out.push_str(op.mnemonic());
                self.out.push(' ');
                if op.is_checked() {
                    // The operand type is the first field of the `tuple<T, bool>` result.
                    let operand = result_ty
                        .and_then(|t| match m.types.get(t) {
                            Some(crate::types::TypeKey::Tuple(fields)) => fields.first().copied(),
                            _ => None,
                        })
                        .or_else(|| f.value_type(args[0]));
                    self.opt_ty(operand);
                } else {
                    self.opt_ty(result_ty);
                }
                self.out.push(' ');
                self.value(args[0]);
                self.out.push_str(", ");
                self.value(args[1]);
            }
            InstData::Compare { pred, args, .. } => {
                self.out.push_str(op.mnemonic());
                self.out.push(' ');
                self.out.push_str(predicate_keyword(op, pred));
                self.out.push(' ');
                self.value_ty(args[0]);
                self.out.push(' ');
                self.value(args[0]);
                self.out.push_str(", ");
                self.value(args[1]);
            }
            InstData::Select { cond, arms } => {
                self.out.push_str("select ");
                self.typed_value(cond);
                self.out.push_str(", ");
                self.typed_value(arms[0]);
                self.out.push_str(", ");
                self.typed_value(arms[1]);
            }
            InstData::Cast { arg, .. } => {
                self.out.push_str(op.mnemonic());
                self.out.push(' ');
                self.typed_value(arg);
                self.out.push_str(" to ");
                self.opt_ty(result_ty);
            }
            InstData::Phi { inputs } => {
                self.out.push_str("phi ");
                self.opt_ty(result_ty);
                for (i, pair) in m.list(inputs).chunks_exact(2).enumerate() {
                    self.out.push_str(if i == 0 { " [ " } else { ", [ " });
                    self.value(ValueId::from_u32(pair[0]));
                    self.out.push_str(", ");
                    self.block_ref(BlockId::from_u32(pair[1]));
                    self.out.push_str(" ]");
                }
            }
            InstData::Extract { agg, index } => {
                self.out.push_str("extract ");
                self.value(agg);
                self.out.push_str(", ");
                push_u64(&mut self.out, u64::from(index));
            }
            InstData::Memory { align, ty, ptr, .. } => {
                self.out.push_str(op.mnemonic());
                self.out.push(' ');
                self.ty(ty);
                if let Some(p) = ptr.expand() {
                    self.out.push_str(", ");
                    self.typed_value(p);
                }
                self.align(align);
            }
            InstData::Store { align, value, ptr } => {
                self.out.push_str("store ");
                self.typed_value(value);
                self.out.push_str(", ");
                self.typed_value(ptr);
                self.align(align);
            }
            InstData::Bulk { align, args, .. } => {
                self.out.push_str(op.mnemonic());
                for (i, &v) in m.list(args).iter().enumerate() {
                    self.out.push_str(if i == 0 { " " } else { ", " });
                    self.typed_value(ValueId::from_u32(v));
                }
                self.align(align);
            }
            InstData::Gep { base, indices } => {
                self.out.push_str("gep ");
                self.value(base);
                for &v in m.list(indices) {
                    self.out.push_str(", ");
                    self.value(ValueId::from_u32(v));
                }
            }
            InstData::FuncRef { func, .. } => {
                self.out.push_str(op.mnemonic());
                if let Some(id) = func.expand() {
                    self.out.push(' ');
                    self.func_ref(id);
                }
            }
            InstData::Call { callee, args } => {
                let sig = m.declaration(callee).map(|d| d.sig);
                self.call_head(sig, result_ty);
                self.func_ref(callee);
                self.call_args(m.list(args));
            }
            InstData::CallIndirect { callee, args } => {
                let sig = f.value_type(callee).and_then(|t| m.types.fn_ptr_sig(t));
                self.call_head(sig, result_ty);
                self.out.push_str("indirect ");
                self.value(callee);
                self.call_args(m.list(args));
            }
            InstData::TrapIf { cond, reason } => {
                self.out.push_str("trap_if ");
                self.typed_value(cond);
                self.out.push_str(", reason=");
                push_quoted(&mut self.out, m.str(reason));
            }
            InstData::Trap { reason } => {
                self.out.push_str("trap reason=");
                push_quoted(&mut self.out, m.str(reason));
            }
            InstData::Br { dest } => {
                self.out.push_str("br label ");
                self.block_ref(dest);
            }
            InstData::Cbr { cond, dests } => {
                self.out.push_str("cbr ");
                self.typed_value(cond);
                self.out.push_str(", label ");
                self.block_ref(dests[0]);
                self.out.push_str(", label ");
                self.block_ref(dests[1]);
            }
            InstData::Switch { arg, default, cases } => {
                self.out.push_str("switch ");
                self.typed_value(arg);
                self.out.push_str(", label ");
                self.block_ref(default);
                self.out.push_str(" [");
                for (i, pair) in m.list(cases).chunks_exact(2).enumerate() {
                    self.out.push_str(if i == 0 { " " } else { ", " });
                    self.const_value(m.constant(crate::entity::ConstId::from_u32(pair[0])));
                    self.out.push_str(": ");
                    self.block_ref(BlockId::from_u32(pair[1]));
                }
                self.out.push_str(" ]");
            }
            InstData::Ret { arg } => {
                self.out.push_str("ret ");
                self.ty(f.ret);
                match arg.expand() {
                    Some(v) => {
                        self.out.push(' ');
                        self.value(v);
                    }
                    None if f.ret != TypeId::VOID => self.out.push_str(" <missing>"),
                    None => {}
                }
            }
        }
    }

    fn call_head(&mut self, sig: Option<crate::entity::SigId>, result_ty: Option<TypeId>) {
        self.out.push_str("call ");
        match sig {
            Some(sig) => {
                let key = self.m.types.sig(sig);
                self.out.push_str(key.convention.keyword());
                self.out.push(' ');
                self.ty(key.ret);
            }
            None => {
                self.out.push_str("whale ");
                self.ty(result_ty.unwrap_or(TypeId::VOID));
            }
        }
        self.out.push(' ');
    }

    fn call_args(&mut self, args: &[u32]) {
        self.out.push('(');
        for (i, &v) in args.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.value(ValueId::from_u32(v));
        }
        self.out.push(')');
    }

    fn align(&mut self, align: u32) {
        self.out.push_str(", align ");
        push_u64(&mut self.out, u64::from(align));
    }

    #[inline]
    fn ty(&mut self, ty: TypeId) {
        if let Some(name) = ty.scalar_name() {
            self.out.push_str(name);
            return;
        }
        match self.type_names.get_mut(ty.as_u32() as usize) {
            Some(Some(name)) => self.out.push_str(name),
            Some(slot) => {
                let name = self.m.types.display(ty).into_boxed_str();
                self.out.push_str(&name);
                *slot = Some(name);
            }
            None => self.out.push_str("<invalid type>"),
        }
    }

    fn opt_ty(&mut self, ty: Option<TypeId>) {
        match ty {
            Some(t) => self.ty(t),
            None => self.out.push_str("<undefined>"),
        }
    }

    #[inline]
    fn value_ty(&mut self, v: ValueId) {
        let (types, base) = self.value_types;
        let ty = types.get(v.as_u32().wrapping_sub(base) as usize).and_then(|t| t.expand());
        self.opt_ty(ty);
    }

    #[inline]
    fn value(&mut self, v: ValueId) {
        self.out.push_str("%v");
        push_u64(&mut self.out, u64::from(v.as_u32()));
    }

    fn typed_value(&mut self, v: ValueId) {
        self.value_ty(v);
        self.out.push(' ');
        self.value(v);
    }

    fn block_ref(&mut self, b: BlockId) {
        if self.v4 {
            self.out.push_str("%b");
        }
        push_u64(&mut self.out, u64::from(b.as_u32()));
    }

    fn func_ref(&mut self, f: FunctionId) {
        self.out.push_str("@f");
        push_u64(&mut self.out, u64::from(f.as_u32()));
    }

    fn global_ref(&mut self, g: u32) {
        self.out.push_str("@g");
        push_u64(&mut self.out, u64::from(g));
    }

    fn const_value(&mut self, v: ConstValue) {
        match v {
            ConstValue::Bool(b) => self.out.push_str(if b { "true" } else { "false" }),
            ConstValue::I(x) if x >= 0 => push_u128(&mut self.out, x as u128),
            ConstValue::I(x) => {
                self.out.push('-');
                push_u128(&mut self.out, x.unsigned_abs());
            }
            ConstValue::U(x) => push_u128(&mut self.out, x),
            ConstValue::F(bits) => self.out.push_str(&bits.to_string()),
        }
    }

    fn const_expr(&mut self, e: &ConstExpr) {
        self.out.push_str(&e.to_string());
    }
}

fn push_u128(out: &mut String, n: u128) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// The keyword of a stored predicate code for `op`.
pub(crate) fn predicate_keyword(op: Opcode, pred: u8) -> &'static str {
    predicate_keyword_of(op, pred).unwrap_or("<invalid>")
}

/// The keyword of predicate code `pred` of comparison `op`, if both are valid.
fn predicate_keyword_of(op: Opcode, pred: u8) -> Option<&'static str> {
    match op {
        Opcode::Cmp => CmpOp::from_code(pred).map(CmpOp::keyword),
        Opcode::Icmp => ICmpPred::from_code(pred).map(ICmpPred::keyword),
        Opcode::Fcmp => FCmpPred::from_code(pred).map(FCmpPred::keyword),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        let mut s = String::new();
        push_quoted(&mut s, "a\"b\\c\nd\re\tf\0g\u{1}h\u{2028}é");
        assert_eq!(s, r#""a\"b\\c\nd\re\tf\0g\u{1}h\u{2028}é""#);
    }

    /// The format-4 example of whale-ir §4, with its sparse ids, built table by table
    /// (the builder only makes canonically numbered modules).
    #[test]
    fn whale_ir_section_4_example() {
        use crate::constant::ConstValue;
        use crate::entity::{BlockId, FunctionId, PackedOption};
        use crate::module::{encode_const, BlockData, DeclData, FunctionData, Linkage, Param, Span};
        use crate::target::DataLayout;
        use crate::types::{FunctionSignature, Type};

        let (v, b) = (ValueId::from_u32, BlockId::from_u32);
        let mut m = Module::empty("x86_64-whale-linux".into(), DataLayout::default_64bit_le());
        let sig = m.types.intern_signature(&FunctionSignature::whale(vec![Type::I64], Type::I64));
        let [abs, x, entry, done, negate] = ["abs", "x", "entry", "done", "negate"].map(|s| m.strings.intern(s));
        let f3 = FunctionId::from_u32(3);
        m.declarations.push(DeclData { id: f3, name: abs, sig, linkage: Linkage::Internal, link_name: None });
        m.params.push(Param { value: v(7), name: x });
        m.functions.push(FunctionData {
            id: f3,
            name: abs,
            ret: TypeId::I64,
            entry: b(2),
            params: Span { start: 0, len: 1 },
            order: Span { start: 0, len: 3 },
            blocks: Span { start: 0, len: 4 },
            block_base: 2,
            insts: Span { start: 0, len: 7 },
            values: Span { start: 0, len: 5 },
            value_base: 7,
        });
        m.block_order = vec![b(2), b(4), b(5)];
        m.blocks = vec![BlockData::VACANT; 4];
        m.blocks[0] = BlockData { name: entry, start: 0, end: 3 };
        m.blocks[2] = BlockData { name: done, start: 3, end: 5 };
        m.blocks[3] = BlockData { name: negate, start: 5, end: 7 };
        let (kind, bits) = encode_const(ConstValue::I(0)).unwrap();
        let inputs = m.pool.make(&[7, 2, 11, 5]);
        let insts = [
            (InstData::Const { kind, bits }, Some(8)),
            (InstData::Compare { op: Opcode::Cmp, pred: CmpOp::Slt as u8, args: [v(7), v(8)] }, Some(9)),
            (InstData::Cbr { cond: v(9), dests: [b(5), b(4)] }, None),
            (InstData::Phi { inputs }, Some(10)),
            (InstData::Ret { arg: PackedOption::some(v(10)) }, None),
            (InstData::Binary { op: Opcode::Sub, args: [v(8), v(7)] }, Some(11)),
            (InstData::Br { dest: b(4) }, None),
        ];
        for (data, result) in insts {
            m.insts.push(data);
            m.inst_results.push(result.map(v).into());
        }
        m.value_types = vec![PackedOption::NONE; 5];
        for (value, ty) in [(7, TypeId::I64), (8, TypeId::I64), (9, TypeId::BOOL), (10, TypeId::I64), (11, TypeId::I64)]
        {
            m.value_types[value - 7] = PackedOption::some(ty);
        }
        assert_eq!(crate::verify_module(&m), Ok(()));
        assert!(!m.is_canonically_numbered());
        let expected = r#"module {
  format_version 4
  semantics_version 1
  target "x86_64-whale-linux"
  datalayout { ptr=64, endian=little }

  declare @f3 "abs": whale (i64) -> i64, linkage internal

  fn @f3 "abs"(%v7 "x": i64) -> i64, entry %b2 {
  %b2 "entry":
    %v8: i64 = const i64 0
    %v9: bool = cmp slt i64 %v7, %v8
    cbr bool %v9, label %b5, label %b4
  %b4 "done":
    %v10: i64 = phi i64 [ %v7, %b2 ], [ %v11, %b5 ]
    ret i64 %v10
  %b5 "negate":
    %v11: i64 = sub i64 %v8, %v7
    br label %b4
  }

}
"#;
        assert_eq!(print_module(&m), expected);
        assert_eq!(print_module_with(&m, TextFormat::V2), expected);
        assert_eq!(print_module_with(&m, TextFormat::V4), expected);
    }

    #[test]
    fn bare_names() {
        assert!(is_bare_name("if.then"));
        assert!(is_bare_name("tên_biến"));
        assert!(!is_bare_name(""));
        assert!(!is_bare_name("a b"));
        assert!(!is_bare_name("x:"));
    }
}
