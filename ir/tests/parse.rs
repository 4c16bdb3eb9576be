//! The text reader: round trips of generated modules (format 2 and format 4),
//! one test per syntax error class and per limit, format-3 input, hand-written
//! format-4 text with sparse ids, and mutated text that must never panic.
//!
//! Modules are generated from *recipes* (plain data whose operands are small
//! integers resolved against the values available at that point, STYLE §9), so
//! every recipe builds a module that verifies and shrinking works on the recipe.
//!
//! `parse(print(m))` is compared with `m` *structurally* (`same_module`): every
//! id, name, type, constant, operand list and order, resolved through the public
//! inspection API. Derived `Module` equality also compares the order in which
//! the builder happened to intern strings and types and the layout of its
//! operand pool (phi inputs added late move between size classes), which the
//! text does not record; the reader is deterministic, so
//! `parse(print(parse(t))) == parse(t)` holds with derived equality and is
//! tested too.

use ir::const_expr::evaluate;
use ir::{
    parse_module, parse_module_with_limits, print_module, print_module_with, verify_module, BinOp, BlockId, Callee,
    CallingConvention, CastOp, CheckedOp, CmpOp, ConstBinOp, ConstCmpOp, ConstExpr, ConstExprKind, ConstRef,
    ConstValue, DataLayout, FCmpPred, FloatBits, FunctionBuilder, FunctionId, FunctionSignature, GlobalId, ICmpPred,
    InstData, IrLimits, Linkage, Module, ModuleBuilder, Opcode, ParseError, ParseErrorKind, Resource, TextFormat, Type,
    ValueId,
};
use proptest::prelude::*;

// ---- structural comparison ----------------------------------------------------------

/// One line per fact of `m`, with every table-internal id resolved.
fn structure(m: &Module) -> Vec<String> {
    let mut out = vec![format!("target {:?} {}", m.target(), m.data_layout())];
    for g in m.globals() {
        out.push(format!(
            "global {} {:?} {} {:?} {} align {}",
            g.id,
            g.name,
            m.type_name(g.ty),
            g.init,
            g.init_expr,
            g.align
        ));
    }
    for d in m.declarations() {
        out.push(format!("declare {} {:?} {:?} {:?} {:?}", d.id, d.name, m.signature(d.sig), d.linkage, d.link_name));
    }
    for f in m.functions() {
        out.push(format!("fn {} {:?} -> {} entry {}", f.id, f.name, m.type_name(f.ret), f.entry));
        for p in f.params {
            out.push(format!("  param {} {:?}: {}", p.value, m.str(p.name), value_type(&f, p.value)));
        }
        for &b in f.blocks {
            out.push(format!("  block {b} {:?}", f.block_name(b)));
            for inst in f.block_insts(b) {
                let result = f.inst_result(inst).map(|v| format!("{v}: {} = ", value_type(&f, v))).unwrap_or_default();
                out.push(format!("    {result}{}", describe(m, f.inst(inst))));
            }
        }
        for i in 0..f.value_slots() {
            let v = f.value_at(i);
            out.push(format!("  value {v} {}", value_type(&f, v)));
        }
        for i in 0..f.block_slots() {
            let b = f.block_at(i);
            out.push(format!("  block id {b} {}", f.has_block(b)));
        }
    }
    out.push(format!("build errors {:?}", m.build_errors()));
    out
}

fn value_type(f: &ir::Function<'_>, v: ValueId) -> String {
    f.value_type(v).map_or_else(|| "vacant".to_string(), |t| f.module().type_name(t))
}

fn describe(m: &Module, data: &InstData) -> String {
    let list = |l| m.list(l).to_vec();
    match *data {
        InstData::Const { .. } | InstData::ConstWide { .. } => format!("const {:?}", m.const_payload(data)),
        InstData::ConstDecl { decl } => {
            let d = m.const_decl(decl);
            format!("const_decl {:?} {:?} => {:?}", d.name, d.expr, d.value)
        }
        InstData::Phi { inputs } => format!("phi {:?}", list(inputs)),
        InstData::Memory { op, align, ty, ptr } => format!("{op} {} {ptr:?} align {align}", m.type_name(ty)),
        InstData::Bulk { op, align, args } => format!("{op} {:?} align {align}", list(args)),
        InstData::Gep { base, indices } => format!("gep {base} {:?}", list(indices)),
        InstData::Call { callee, args } => format!("call {callee} {:?}", list(args)),
        InstData::CallIndirect { callee, args } => format!("call indirect {callee} {:?}", list(args)),
        InstData::TrapIf { cond, reason } => format!("trap_if {cond} {:?}", m.str(reason)),
        InstData::Trap { reason } => format!("trap {:?}", m.str(reason)),
        InstData::Switch { arg, default, cases } => {
            let cases: Vec<_> =
                m.list(cases).chunks(2).map(|pair| (m.constant(ir::ConstId::from_u32(pair[0])), pair[1])).collect();
            format!("switch {arg} {default} {cases:?}")
        }
        other => format!("{other:?}"),
    }
}

/// Asserts that `a` and `b` hold the same module, naming the first difference.
fn same_module(a: &Module, b: &Module) -> Result<(), String> {
    let (x, y) = (structure(a), structure(b));
    for (i, (l, r)) in x.iter().zip(&y).enumerate() {
        if l != r {
            return Err(format!("line {i} differs:\n  left:  {l}\n  right: {r}"));
        }
    }
    if x.len() != y.len() {
        return Err(format!("{} lines vs {} lines", x.len(), y.len()));
    }
    Ok(())
}

fn parse_ok(text: &str) -> Module {
    parse_module(text).unwrap_or_else(|e| panic!("{}\n--- text ---\n{text}", e.render(text, "input.wir")))
}

/// The reader's fast path for printed lines changes nothing but speed: with
/// and without it (`ir::parser::parse_module_reference`), `text` reads to the
/// same module or fails with the same error. The fast path reads a line only
/// when a window of input follows it, so `text` is also tried with trailing
/// spaces, which lets it read the last lines too.
fn fast_path_agrees(text: &str, limits: IrLimits) -> Result<(), String> {
    for text in [text.to_string(), format!("{text}{}", " ".repeat(300))] {
        let fast = parse_module_with_limits(&text, limits);
        let reference = ir::parser::parse_module_reference(&text, limits);
        if fast != reference {
            return Err(format!("fast path: {fast:?}\ntoken rules: {reference:?}\n--- text ---\n{text}"));
        }
    }
    Ok(())
}

/// Every round-trip property of one module.
fn check_round_trips(m: &Module) -> Result<(), TestCaseError> {
    if let Err(e) = verify_module(m) {
        return Err(TestCaseError::fail(format!("generated module does not verify: {e}\n{}", print_module(m))));
    }
    for format in [TextFormat::Auto, TextFormat::V4] {
        let text = print_module_with(m, format);
        let parsed = match parse_module(&text) {
            Ok(p) => p,
            Err(e) => return Err(TestCaseError::fail(format!("{}\n{text}", e.render(&text, "printed.wir")))),
        };
        same_module(m, &parsed).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&print_module_with(&parsed, format), &text);
        fast_path_agrees(&text, IrLimits::default()).map_err(TestCaseError::fail)?;
        // The reader is deterministic: derived equality holds between two reads.
        let again = parse_module(&print_module(&parsed)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(again == parse_module(&print_module(m)).map_err(|e| TestCaseError::fail(e.to_string()))?);
    }
    Ok(())
}

// ---- module recipes ---------------------------------------------------------------------

const NAMES: [&str; 16] = [
    "a",
    "b",
    "x1",
    "if.then",
    "loop",
    "tên_biến",
    "$tmp",
    "n.2",
    "value",
    "entry",
    "q",
    "_",
    "a b",
    "q\"uo\\te",
    "line\nbreak",
    "tab\t\u{1}\u{2028}é",
];

/// Mostly bare names (format 2 possible); sometimes names that force format 4.
fn name(sel: u8) -> &'static str {
    if sel < 232 {
        NAMES[usize::from(sel) % 12]
    } else {
        NAMES[12 + usize::from(sel) % 4]
    }
}

fn scalar(sel: u8) -> Type {
    const ALL: [Type; 16] = Type::VALUE_SCALARS;
    ALL[usize::from(sel) % ALL.len()].clone()
}

fn int_bits(ty: &Type) -> Option<(u32, bool)> {
    Some(match ty {
        Type::I1 => (1, true),
        Type::I8 => (8, true),
        Type::I16 => (16, true),
        Type::I32 => (32, true),
        Type::I64 => (64, true),
        Type::I128 => (128, true),
        Type::U1 => (1, false),
        Type::U8 => (8, false),
        Type::U16 => (16, false),
        Type::U32 => (32, false),
        Type::U64 => (64, false),
        Type::U128 => (128, false),
        _ => return None,
    })
}

fn float_bits(ty: &Type) -> Option<u32> {
    match ty {
        Type::F16 => Some(16),
        Type::F32 => Some(32),
        Type::F64 => Some(64),
        _ => None,
    }
}

/// A valid constant of scalar `ty` made from `seed` (wide: beyond 64 bits).
fn constant(ty: &Type, seed: u64, wide: bool) -> ConstValue {
    let raw = if wide { (u128::from(seed) << 64) | u128::from(seed.rotate_left(17)) } else { u128::from(seed) };
    if *ty == Type::Bool {
        return ConstValue::Bool(seed & 1 == 1);
    }
    if let Some((bits, signed)) = int_bits(ty) {
        let low = if bits == 128 { raw } else { raw & ((1u128 << bits) - 1) };
        return if signed {
            let shift = 128 - bits;
            ConstValue::I(((low << shift) as i128) >> shift)
        } else {
            ConstValue::U(low)
        };
    }
    let bits = float_bits(ty).unwrap_or(64);
    ConstValue::F(FloatBits::from_width_bits(bits, seed).unwrap_or(FloatBits::F64(seed)))
}

#[derive(Debug, Clone)]
enum Step {
    Const(u8, u64, bool),
    Arith(u8, u8, u8),
    Checked(u8, u8, u8),
    Compare(u8, u8, u8, u8),
    Select(u8, u8),
    Cast(u8, u8, u8),
    Unary(bool, u8),
    Memory(u8, u8, bool),
    Aggregate(bool, u8),
    Bulk(bool),
    ConstDecl(u8, u8, u8),
    FnRef(u8),
    NullFn(u8),
    Call(u8),
    CallIndirect(u8),
    TrapIf(u8, u8),
    If(u8, u8),
    Else,
    EndIf,
    Loop(u8),
    EndLoop,
    Switch(u8, u8, u8, u8),
    Trap(u8),
    EntryAlloca(u8),
}

fn step() -> impl Strategy<Value = Step> {
    let u = any::<u8>;
    prop_oneof![
        4 => (u(), any::<u64>(), any::<bool>()).prop_map(|(a, b, c)| Step::Const(a, b, c)),
        4 => (u(), u(), u()).prop_map(|(a, b, c)| Step::Arith(a, b, c)),
        1 => (u(), u(), u()).prop_map(|(a, b, c)| Step::Checked(a, b, c)),
        2 => (u(), u(), u(), u()).prop_map(|(a, b, c, d)| Step::Compare(a, b, c, d)),
        1 => (u(), u()).prop_map(|(a, b)| Step::Select(a, b)),
        2 => (u(), u(), u()).prop_map(|(a, b, c)| Step::Cast(a, b, c)),
        1 => (any::<bool>(), u()).prop_map(|(a, b)| Step::Unary(a, b)),
        1 => (u(), u(), any::<bool>()).prop_map(|(a, b, c)| Step::Memory(a, b, c)),
        1 => (any::<bool>(), u()).prop_map(|(a, b)| Step::Aggregate(a, b)),
        1 => any::<bool>().prop_map(Step::Bulk),
        1 => (u(), u(), u()).prop_map(|(a, b, c)| Step::ConstDecl(a, b, c)),
        1 => u().prop_map(Step::FnRef),
        1 => u().prop_map(Step::NullFn),
        2 => u().prop_map(Step::Call),
        1 => u().prop_map(Step::CallIndirect),
        1 => (u(), u()).prop_map(|(a, b)| Step::TrapIf(a, b)),
        2 => (u(), u()).prop_map(|(a, b)| Step::If(a, b)),
        1 => Just(Step::Else),
        2 => Just(Step::EndIf),
        1 => u().prop_map(Step::Loop),
        1 => Just(Step::EndLoop),
        1 => (u(), u(), u(), u()).prop_map(|(a, b, c, d)| Step::Switch(a, b, c, d)),
        1 => u().prop_map(Step::Trap),
        1 => u().prop_map(Step::EntryAlloca),
    ]
}

#[derive(Debug, Clone)]
struct FnRecipe {
    name: u8,
    params: Vec<(u8, u8)>,
    ret: Option<u8>,
    steps: Vec<Step>,
}

#[derive(Debug, Clone)]
struct ModuleRecipe {
    globals: Vec<(u8, u8, u64, bool)>,
    externs: Vec<(u8, Vec<u8>, Option<u8>, bool)>,
    functions: Vec<FnRecipe>,
    /// Whether the last function is started with `begin_function` (declared at
    /// that point) instead of being declared up front.
    last_undeclared: bool,
}

fn module_recipe() -> impl Strategy<Value = ModuleRecipe> {
    let function = (
        any::<u8>(),
        prop::collection::vec((any::<u8>(), any::<u8>()), 0..4),
        prop::option::of(any::<u8>()),
        prop::collection::vec(step(), 0..40),
    )
        .prop_map(|(name, params, ret, steps)| FnRecipe { name, params, ret, steps });
    (
        prop::collection::vec((any::<u8>(), any::<u8>(), any::<u64>(), any::<bool>()), 0..4),
        prop::collection::vec(
            (any::<u8>(), prop::collection::vec(any::<u8>(), 0..3), prop::option::of(any::<u8>()), any::<bool>()),
            0..3,
        ),
        prop::collection::vec(function, 1..4),
        any::<bool>(),
    )
        .prop_map(|(globals, externs, functions, last_undeclared)| ModuleRecipe {
            globals,
            externs,
            functions,
            last_undeclared,
        })
}

/// Parameter types: scalars and `ptr<i32>`.
fn param_type(sel: u8) -> Type {
    if sel % 9 == 8 {
        Type::ptr(Type::I32)
    } else {
        scalar(sel)
    }
}

enum Frame {
    If {
        else_block: BlockId,
        join: BlockId,
        avail: usize,
        consts: usize,
        merged: Option<(Type, ValueId)>,
        then_end: Option<(BlockId, ValueId)>,
        dead: bool,
    },
    Loop {
        header: BlockId,
        exit: BlockId,
        counter: ValueId,
        avail: usize,
        consts: usize,
        dead: bool,
    },
}

struct Body<'f, 'm> {
    f: &'f mut FunctionBuilder<'m>,
    avail: Vec<(ValueId, Type)>,
    /// `const` results usable in constant expressions, with their values.
    consts: Vec<(ValueId, Type, ConstValue)>,
    globals: &'f [(GlobalId, Type, ConstValue)],
    functions: &'f [(FunctionId, FunctionSignature)],
    frames: Vec<Frame>,
    /// Whether the current block is unreachable (after a `trap`).
    dead: bool,
    names: u32,
}

impl Body<'_, '_> {
    fn pick(&self, sel: u8, keep: impl Fn(&Type) -> bool) -> Option<(ValueId, Type)> {
        let candidates: Vec<_> = self.avail.iter().filter(|(_, t)| keep(t)).collect();
        (!candidates.is_empty()).then(|| candidates[usize::from(sel) % candidates.len()].clone())
    }

    fn push(&mut self, v: ValueId, ty: Type) {
        self.avail.push((v, ty));
    }

    fn fresh_name(&mut self, sel: u8) -> String {
        self.names += 1;
        format!("{}{}", name(sel), self.names)
    }

    /// A value of `ty`: an available one, or a new constant (or alloca for pointers).
    fn value_of(&mut self, ty: &Type, sel: u8) -> ValueId {
        if let Some((v, _)) = self.pick(sel, |t| t == ty) {
            return v;
        }
        match ty {
            Type::Ptr(inner) => {
                let v = self.f.alloca((**inner).clone(), 4);
                self.push(v, ty.clone());
                v
            }
            _ => self.constant(ty, u64::from(sel) * 0x9e37_79b9, false),
        }
    }

    fn constant(&mut self, ty: &Type, seed: u64, wide: bool) -> ValueId {
        let value = constant(ty, seed, wide);
        let v = self.f.constant(ty.clone(), value);
        self.push(v, ty.clone());
        self.consts.push((v, ty.clone(), value));
        v
    }

    fn bool_value(&mut self, sel: u8) -> ValueId {
        self.value_of(&Type::Bool, sel)
    }

    fn apply(&mut self, step: &Step) {
        match *step {
            Step::Const(ty, seed, wide) => {
                self.constant(&scalar(ty), seed, wide);
            }
            Step::Arith(op, a, b) => {
                let Some((x, ty)) = self.pick(a, |t| int_bits(t).is_some() || float_bits(t).is_some()) else { return };
                let y = self.value_of(&ty, b);
                let op = if let Some((_, signed)) = int_bits(&ty) {
                    const INT: [BinOp; 11] = [
                        BinOp::Add,
                        BinOp::Sub,
                        BinOp::Mul,
                        BinOp::And,
                        BinOp::Or,
                        BinOp::Xor,
                        BinOp::Shl,
                        BinOp::Lshr,
                        BinOp::Ashr,
                        BinOp::Sdiv,
                        BinOp::Srem,
                    ];
                    match INT[usize::from(op) % INT.len()] {
                        BinOp::Sdiv if !signed => BinOp::Udiv,
                        BinOp::Srem if !signed => BinOp::Urem,
                        other => other,
                    }
                } else {
                    const FLOAT: [BinOp; 5] = [BinOp::Fadd, BinOp::Fsub, BinOp::Fmul, BinOp::Fdiv, BinOp::Frem];
                    FLOAT[usize::from(op) % FLOAT.len()]
                };
                let v = self.f.bin(op, ty.clone(), x, y);
                self.push(v, ty);
            }
            Step::Checked(op, a, b) => {
                let Some((x, ty)) = self.pick(a, |t| int_bits(t).is_some()) else { return };
                let signed = int_bits(&ty).is_some_and(|(_, s)| s);
                let y = self.value_of(&ty, b);
                let op = match (signed, op % 3) {
                    (true, 0) => CheckedOp::SAdd,
                    (true, 1) => CheckedOp::SSub,
                    (true, _) => CheckedOp::SMul,
                    (false, 0) => CheckedOp::UAdd,
                    (false, 1) => CheckedOp::USub,
                    (false, _) => CheckedOp::UMul,
                };
                let pair = self.f.checked(op, ty.clone(), x, y);
                let tuple = Type::Tuple(vec![ty.clone(), Type::Bool]);
                self.push(pair, tuple.clone());
                let value = self.f.extract(tuple.clone(), ty.clone(), pair, 0);
                self.push(value, ty);
                let overflow = self.f.extract(tuple, Type::Bool, pair, 1);
                self.push(overflow, Type::Bool);
            }
            Step::Compare(which, pred, a, b) => {
                let Some((x, ty)) = self.pick(a, |t| {
                    matches!(t, Type::Bool | Type::Ptr(_)) || int_bits(t).is_some() || float_bits(t).is_some()
                }) else {
                    return;
                };
                let y = self.value_of(&ty, b);
                let v = if float_bits(&ty).is_some() {
                    if which % 2 == 0 {
                        let p = [CmpOp::Feq, CmpOp::Fne, CmpOp::Flt, CmpOp::Fle, CmpOp::Fgt, CmpOp::Fge];
                        self.f.cmp(p[usize::from(pred) % p.len()], ty, x, y)
                    } else {
                        self.f.fcmp(FCmpPred::ALL[usize::from(pred) % FCmpPred::ALL.len()], ty, x, y)
                    }
                } else {
                    let signed = int_bits(&ty).map(|(_, s)| s);
                    let ordered = match signed {
                        Some(true) => [ICmpPred::Slt, ICmpPred::Sle, ICmpPred::Sgt, ICmpPred::Sge],
                        Some(false) => [ICmpPred::Ult, ICmpPred::Ule, ICmpPred::Ugt, ICmpPred::Uge],
                        None => [ICmpPred::Eq, ICmpPred::Ne, ICmpPred::Eq, ICmpPred::Ne],
                    };
                    let p = if pred % 3 == 0 { ICmpPred::Eq } else { ordered[usize::from(pred) % 4] };
                    if which % 2 == 0 {
                        let c = CmpOp::from_keyword(p.keyword()).unwrap_or(CmpOp::Eq);
                        self.f.cmp(c, ty, x, y)
                    } else {
                        self.f.icmp(p, ty, x, y)
                    }
                };
                self.push(v, Type::Bool);
            }
            Step::Select(c, a) => {
                let Some((x, ty)) = self.pick(a, |t| !matches!(t, Type::Void)) else { return };
                let cond = self.bool_value(c);
                let y = self.value_of(&ty, c.wrapping_add(a));
                let v = self.f.select(ty.clone(), cond, x, y);
                self.push(v, ty);
            }
            Step::Cast(op, a, target) => self.cast(op, a, target),
            Step::Unary(not, a) => {
                if not {
                    let Some((x, ty)) = self.pick(a, |t| int_bits(t).is_some()) else { return };
                    let v = self.f.not(ty.clone(), x);
                    self.push(v, ty);
                } else {
                    let Some((x, ty)) = self.pick(a, |_| true) else { return };
                    let v = self.f.mov(ty.clone(), x);
                    self.push(v, ty);
                }
            }
            Step::Memory(ty, v, uninit) => {
                let ty = scalar(ty);
                let slot = self.f.alloca(ty.clone(), 16);
                self.push(slot, Type::ptr(ty.clone()));
                let value = self.value_of(&ty, v);
                self.f.store(ty.clone(), value, slot, 1);
                let loaded = self.f.load(ty.clone(), slot, 1);
                self.push(loaded, ty.clone());
                if uninit {
                    self.f.uninit(ty, slot, 1);
                }
            }
            Step::Aggregate(is_struct, index) => {
                if is_struct {
                    let ty = Type::Struct(vec![Type::I8, Type::I64, Type::Tuple(vec![Type::U16])]);
                    let slot = self.f.alloca(ty.clone(), 8);
                    self.push(slot, Type::ptr(ty));
                    let zero = self.constant(&Type::I32, 0, false);
                    let field = self.constant(&Type::U8, 1, false);
                    let p = self.f.gep(Type::ptr(Type::I64), slot, &[zero, field]);
                    self.push(p, Type::ptr(Type::I64));
                    let value = self.value_of(&Type::I64, index);
                    self.f.store(Type::I64, value, p, 8);
                } else {
                    let ty = Type::array(Type::I32, 4);
                    let slot = self.f.alloca(ty.clone(), 16);
                    self.push(slot, Type::ptr(ty));
                    let zero = self.constant(&Type::I64, 0, false);
                    let i = self.pick(index, |t| int_bits(t).is_some()).map(|(v, _)| v).unwrap_or(zero);
                    let p = self.f.gep(Type::ptr(Type::I32), slot, &[zero, i]);
                    self.push(p, Type::ptr(Type::I32));
                    let loaded = self.f.load(Type::I32, p, 4);
                    self.push(loaded, Type::I32);
                }
            }
            Step::Bulk(copy) => {
                let dst = self.value_of(&Type::ptr(Type::U8), 0);
                let len = self.constant(&Type::U64, 1, false);
                if copy {
                    let src = self.f.alloca(Type::U8, 1);
                    self.push(src, Type::ptr(Type::U8));
                    self.f.memcpy(dst, src, len, 1);
                } else {
                    let byte = self.value_of(&Type::U8, 3);
                    self.f.memset(dst, byte, len, 1);
                }
            }
            Step::ConstDecl(sel, a, op) => self.const_decl(sel, a, op),
            Step::FnRef(sel) => {
                if self.functions.is_empty() {
                    return;
                }
                let (id, sig) = self.functions[usize::from(sel) % self.functions.len()].clone();
                if let Ok(v) = self.f.function_addr(id) {
                    self.push(v, Type::fn_ptr(sig));
                }
            }
            Step::NullFn(sel) => {
                let sig = FunctionSignature {
                    params: vec![scalar(sel)],
                    ret: if sel % 3 == 0 { Type::Void } else { scalar(sel / 3) },
                    convention: if sel % 2 == 0 { CallingConvention::Whale } else { CallingConvention::SysV64 },
                    variadic: false,
                };
                if let Ok(v) = self.f.null_function(sig.clone()) {
                    self.push(v, Type::fn_ptr(sig));
                }
            }
            Step::Call(sel) => {
                if self.functions.is_empty() {
                    return;
                }
                let (id, sig) = self.functions[usize::from(sel) % self.functions.len()].clone();
                self.call(Callee::Direct(id), &sig, sel);
            }
            Step::CallIndirect(sel) => {
                let Some((v, Type::FnPtr(sig))) = self.pick(sel, |t| matches!(t, Type::FnPtr(_))) else { return };
                self.call(Callee::Indirect(v), &sig, sel);
            }
            Step::TrapIf(c, reason) => {
                let cond = self.bool_value(c);
                let reason = self.fresh_name(reason);
                self.f.trap_if(cond, &reason);
            }
            Step::If(c, merge) => {
                let cond = self.bool_value(c);
                let then_block = self.block(c);
                let else_block = self.block(merge);
                let join = self.block(c ^ merge);
                self.f.cbr(cond, then_block, else_block);
                self.f.set_insert_point(then_block);
                let merged = self.pick(merge, |t| !matches!(t, Type::Void)).map(|(v, t)| (t, v));
                self.frames.push(Frame::If {
                    else_block,
                    join,
                    avail: self.avail.len(),
                    consts: self.consts.len(),
                    merged,
                    then_end: None,
                    dead: self.dead,
                });
            }
            Step::Else => self.else_arm(),
            Step::EndIf => self.end_if(),
            Step::Loop(sel) => {
                let init = self.value_of(&Type::I32, sel);
                let limit = self.constant(&Type::I32, u64::from(sel % 7), false);
                let pre = self.f.current_block();
                let header = self.block(sel);
                let body = self.block(sel.wrapping_add(1));
                let exit = self.block(sel.wrapping_add(2));
                self.f.br(header);
                self.f.set_insert_point(header);
                let counter = self.f.phi(Type::I32, &[(init, pre)]);
                let again = self.f.icmp(ICmpPred::Slt, Type::I32, counter, limit);
                self.f.cbr(again, body, exit);
                self.f.set_insert_point(body);
                self.push(counter, Type::I32);
                self.push(again, Type::Bool);
                self.frames.push(Frame::Loop {
                    header,
                    exit,
                    counter,
                    avail: self.avail.len(),
                    consts: self.consts.len(),
                    dead: self.dead,
                });
            }
            Step::EndLoop => self.end_loop(),
            Step::Switch(v, cases, targets, merge) => self.switch(v, cases, targets, merge),
            Step::Trap(reason) => {
                let reason = self.fresh_name(reason);
                self.f.trap(&reason);
                let next = self.f.create_block("unreachable.cont");
                self.f.set_insert_point(next);
                self.dead = true;
            }
            Step::EntryAlloca(ty) => {
                let ty = scalar(ty);
                let v = self.f.alloca_in_entry(ty.clone(), 8);
                self.push(v, Type::ptr(ty));
            }
        }
    }

    fn block(&mut self, sel: u8) -> BlockId {
        let name = self.fresh_name(sel);
        self.f.create_block(&name)
    }

    fn cast(&mut self, op: u8, a: u8, target: u8) {
        let Some((x, from)) = self
            .pick(a, |t| matches!(t, Type::Bool | Type::Ptr(_)) || int_bits(t).is_some() || float_bits(t).is_some())
        else {
            return;
        };
        let to = scalar(target);
        let cast = match (&from, int_bits(&from), float_bits(&from), int_bits(&to), float_bits(&to)) {
            (Type::Ptr(_), ..) => {
                if op % 2 == 0 {
                    Some((CastOp::Ptrtoint, Type::U64))
                } else {
                    Some((CastOp::Bitcast, Type::ptr(Type::U8)))
                }
            }
            (Type::Bool, ..) => Some((CastOp::Zext, if to == Type::I1 { Type::U8 } else { Type::U32 })),
            (_, Some((fb, fs)), _, Some((tb, _)), _) if tb > fb => {
                Some((if fs && op % 2 == 0 { CastOp::Sext } else { CastOp::Zext }, to))
            }
            (_, Some((fb, _)), _, Some((tb, _)), _) if tb < fb => Some((CastOp::Trunc, to)),
            (_, Some((fb, _)), _, _, Some(tb)) if tb == fb => Some((CastOp::Bitcast, to)),
            (_, Some((_, fs)), _, _, Some(_)) => Some((if fs { CastOp::ItofS } else { CastOp::ItofU }, to)),
            (_, Some((64, _)), ..) if op % 3 == 0 => Some((CastOp::Inttoptr, Type::ptr(Type::I32))),
            (_, _, Some(fb), Some((tb, ts)), _) if op % 2 == 0 || tb != fb => {
                Some((if ts { CastOp::FtoiS } else { CastOp::FtoiU }, to))
            }
            (_, _, Some(fb), Some(_), _) => {
                let same_width = match fb {
                    16 => Type::U16,
                    32 => Type::I32,
                    _ => Type::U64,
                };
                Some((CastOp::Bitcast, same_width))
            }
            (_, _, Some(fb), _, Some(tb)) if tb > fb => Some((CastOp::Fext, to)),
            (_, _, Some(fb), _, Some(tb)) if tb < fb => Some((CastOp::Ftrunc, to)),
            _ => None,
        };
        if let Some((op, to)) = cast {
            let v = self.f.cast(op, x, to.clone());
            self.push(v, to);
        }
    }

    fn const_decl(&mut self, sel: u8, a: u8, op: u8) {
        // A tree over a local constant or a global of one integer type and literals.
        let locals: Vec<_> = self.consts.iter().filter(|(_, t, _)| int_bits(t).is_some()).cloned().collect();
        let globals: Vec<_> = self.globals.iter().filter(|(_, t, _)| int_bits(t).is_some()).cloned().collect();
        let (reference, ty) = if !locals.is_empty() && (a % 2 == 0 || globals.is_empty()) {
            let (v, t, _) = &locals[usize::from(a) % locals.len()];
            (ConstRef::Local(*v), t.clone())
        } else if !globals.is_empty() {
            let (g, t, _) = &globals[usize::from(a) % globals.len()];
            (ConstRef::Global(*g), t.clone())
        } else {
            return;
        };
        let leaf = ConstExpr { ty: ty.clone(), kind: ConstExprKind::Reference(reference) };
        let literal = ConstExpr::literal(ty.clone(), constant(&ty, u64::from(sel), false));
        let ops = [ConstBinOp::Add, ConstBinOp::Sub, ConstBinOp::Mul];
        let expr = if op % 4 == 3 {
            ConstExpr {
                ty: Type::Bool,
                kind: ConstExprKind::Compare { op: ConstCmpOp::Le, lhs: Box::new(leaf), rhs: Box::new(literal) },
            }
        } else {
            let op = ops[usize::from(op) % 3];
            let inner = ConstExpr {
                ty: ty.clone(),
                kind: ConstExprKind::Binary { op, lhs: Box::new(leaf.clone()), rhs: Box::new(literal) },
            };
            ConstExpr { ty: ty.clone(), kind: ConstExprKind::Binary { op, lhs: Box::new(inner), rhs: Box::new(leaf) } }
        };
        let (consts, globals) = (&self.consts, self.globals);
        let value = evaluate(&expr, 64, &mut |r| match r {
            ConstRef::Local(v) => consts
                .iter()
                .find(|(c, ..)| *c == v)
                .map(|(_, t, x)| (t.clone(), *x))
                .ok_or(ir::ConstEvalError::UnknownReference(String::new())),
            ConstRef::Global(g) => globals
                .iter()
                .find(|(c, ..)| *c == g)
                .map(|(_, t, x)| (t.clone(), *x))
                .ok_or(ir::ConstEvalError::UnknownReference(String::new())),
        });
        let Ok(value) = value else { return };
        let name = self.fresh_name(sel);
        let result_ty = expr.ty.clone();
        let v = self.f.const_decl(&name, expr, value);
        self.push(v, result_ty.clone());
        self.consts.push((v, result_ty, value));
    }

    fn call(&mut self, callee: Callee, sig: &FunctionSignature, sel: u8) {
        let args: Vec<_> =
            sig.params.iter().enumerate().map(|(i, t)| self.value_of(t, sel.wrapping_add(i as u8))).collect();
        if let Ok(Some(v)) = self.f.call(callee, args) {
            self.push(v, sig.ret.clone());
        }
    }

    fn switch(&mut self, v: u8, cases: u8, targets: u8, merge: u8) {
        let (x, ty) = match self.pick(v, |t| *t == Type::Bool || int_bits(t).is_some()) {
            Some(found) => found,
            None => {
                let x = self.constant(&Type::I32, u64::from(v), false);
                (x, Type::I32)
            }
        };
        let keys: Vec<ConstValue> = match &ty {
            Type::Bool => vec![ConstValue::Bool(false), ConstValue::Bool(true)],
            Type::I1 => vec![ConstValue::I(0), ConstValue::I(-1)],
            Type::U1 => vec![ConstValue::U(0), ConstValue::U(1)],
            t if int_bits(t).is_some_and(|(_, s)| s) => (0..4).map(|k| ConstValue::I(k - 1)).collect(),
            _ => (0..4).map(ConstValue::U).collect(),
        };
        let count = usize::from(cases) % (keys.len() + 1);
        let target_count = 1 + usize::from(targets) % 3;
        let blocks: Vec<BlockId> = (0..target_count).map(|i| self.block(targets.wrapping_add(i as u8))).collect();
        let join = self.block(merge);
        let cases: Vec<_> =
            keys.into_iter().take(count).enumerate().map(|(i, k)| (k, blocks[i % blocks.len()])).collect();
        let merged = self.pick(merge, |t| !matches!(t, Type::Void));
        self.f.switch(x, blocks[0], &cases);
        for &b in &blocks {
            self.f.set_insert_point(b);
            self.f.br(join);
        }
        self.f.set_insert_point(join);
        if let Some((value, ty)) = merged {
            let inputs: Vec<_> = blocks.iter().map(|&b| (value, b)).collect();
            let phi = self.f.phi(ty.clone(), &inputs);
            self.push(phi, ty);
        }
    }

    /// Ends the then-arm of the innermost `If` (an `Else` of a finished or
    /// absent `If` does nothing).
    fn else_arm(&mut self) {
        let Some(Frame::If { else_block, join, avail, consts, merged, then_end, dead }) = self.frames.last_mut() else {
            return;
        };
        if then_end.is_some() {
            return;
        }
        let end = self.f.current_block();
        let value = match merged {
            // An arm that trapped may end in an unreachable block: give it the
            // value from before the `If`.
            Some((ty, before)) => {
                if self.dead {
                    *before
                } else {
                    self.avail[..].iter().rev().find(|(_, t)| t == ty).map(|(v, _)| *v).unwrap_or(*before)
                }
            }
            None => ValueId::from_u32(0),
        };
        *then_end = Some((end, value));
        let (else_block, join, avail, consts, dead) = (*else_block, *join, *avail, *consts, *dead);
        self.f.br(join);
        self.f.set_insert_point(else_block);
        self.avail.truncate(avail);
        self.consts.truncate(consts);
        self.dead = dead;
    }

    fn end_if(&mut self) {
        if !matches!(self.frames.last(), Some(Frame::If { .. })) {
            return;
        }
        self.else_arm();
        let Some(Frame::If { join, avail, consts, merged, then_end, dead, .. }) = self.frames.pop() else { return };
        let end = self.f.current_block();
        let else_value = match &merged {
            Some((ty, before)) => {
                if self.dead {
                    *before
                } else {
                    self.avail.iter().rev().find(|(_, t)| t == ty).map(|(v, _)| *v).unwrap_or(*before)
                }
            }
            None => ValueId::from_u32(0),
        };
        self.f.br(join);
        self.f.set_insert_point(join);
        self.avail.truncate(avail);
        self.consts.truncate(consts);
        self.dead = dead;
        if let (Some((ty, _)), Some((then_block, then_value))) = (merged, then_end) {
            let phi = self.f.phi(ty.clone(), &[(then_value, then_block), (else_value, end)]);
            self.push(phi, ty);
        }
    }

    fn end_loop(&mut self) {
        if !matches!(self.frames.last(), Some(Frame::Loop { .. })) {
            return;
        }
        let Some(Frame::Loop { header, exit, counter, avail, consts, dead }) = self.frames.pop() else { return };
        let one = self.f.const_i32(1);
        let next = self.f.add(Type::I32, counter, one);
        let end = self.f.current_block();
        self.f.br(header);
        self.f.add_phi_input(counter, next, end);
        self.f.set_insert_point(exit);
        self.avail.truncate(avail);
        self.consts.truncate(consts);
        self.dead = dead;
    }

    fn finish(&mut self, ret: &Type) {
        while let Some(frame) = self.frames.last() {
            match frame {
                Frame::If { .. } => self.end_if(),
                Frame::Loop { .. } => self.end_loop(),
            }
        }
        if *ret == Type::Void {
            self.f.ret(None);
        } else {
            let v = self.value_of(ret, 7);
            self.f.ret(Some(v));
        }
    }
}

fn build(recipe: &ModuleRecipe) -> Module {
    let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    let mut globals: Vec<(GlobalId, Type, ConstValue)> = Vec::new();
    for (i, &(name_sel, ty, seed, derived)) in recipe.globals.iter().enumerate() {
        let ty = scalar(ty);
        let name = format!("{}{i}", name(name_sel));
        let earlier = globals.iter().find(|(_, t, _)| *t == ty && int_bits(t).is_some()).cloned();
        match earlier.filter(|_| derived) {
            Some((g, _, value)) => {
                let expr = ConstExpr {
                    ty: ty.clone(),
                    kind: ConstExprKind::Binary {
                        op: ConstBinOp::Add,
                        lhs: Box::new(ConstExpr {
                            ty: ty.clone(),
                            kind: ConstExprKind::Reference(ConstRef::Global(g)),
                        }),
                        rhs: Box::new(ConstExpr::literal(ty.clone(), constant(&ty, seed, false))),
                    },
                };
                let Ok(init) = evaluate(&expr, 8, &mut |_| Ok((ty.clone(), value))) else { continue };
                let id = mb.add_global_const(&name, expr, init, 8);
                globals.push((id, ty, init));
            }
            None => {
                let init = constant(&ty, seed, seed % 2 == 0);
                let id = mb.add_global(&name, ty.clone(), init, 1 << (seed % 4));
                globals.push((id, ty, init));
            }
        }
    }
    let mut functions: Vec<(FunctionId, FunctionSignature)> = Vec::new();
    for (i, (name_sel, params, ret, sysv)) in recipe.externs.iter().enumerate() {
        let sig = FunctionSignature {
            params: params.iter().map(|&p| scalar(p)).collect(),
            ret: ret.map_or(Type::Void, scalar),
            convention: if *sysv { CallingConvention::SysV64 } else { CallingConvention::Whale },
            variadic: false,
        };
        let name = format!("{}_ext{i}", name(*name_sel));
        let id = mb.declare_function(&name, sig.clone(), Linkage::External, Some(format!("link_{i}"))).unwrap();
        functions.push((id, sig));
    }
    let count = recipe.functions.len();
    let mut ids = Vec::new();
    for (i, f) in recipe.functions.iter().enumerate() {
        let sig = FunctionSignature::whale(
            f.params.iter().map(|&(t, _)| param_type(t)).collect(),
            f.ret.map_or(Type::Void, scalar),
        );
        if recipe.last_undeclared && i + 1 == count {
            ids.push(None);
            continue;
        }
        let id = mb.declare_function(&format!("{}{i}", name(f.name)), sig.clone(), Linkage::Internal, None).unwrap();
        functions.push((id, sig));
        ids.push(Some(id));
    }
    for (i, (recipe, id)) in recipe.functions.iter().zip(&ids).enumerate() {
        let ret = recipe.ret.map_or(Type::Void, scalar);
        let params: Vec<(String, Type)> =
            recipe.params.iter().map(|&(t, n)| (name(n).to_string(), param_type(t))).collect();
        let mut f = match id {
            Some(id) => mb.begin_declared_function(*id, params.iter().map(|(n, _)| n.clone()).collect()).unwrap(),
            None => mb.begin_function(&format!("{}{i}", name(recipe.name)), params.clone(), ret.clone()),
        };
        let avail = params.iter().enumerate().map(|(k, (_, t))| (f.param_value(k), t.clone())).collect();
        let mut body = Body {
            f: &mut f,
            avail,
            consts: Vec::new(),
            globals: &globals,
            functions: &functions,
            frames: Vec::new(),
            dead: false,
            names: 0,
        };
        for step in &recipe.steps {
            body.apply(step);
        }
        body.finish(&ret);
        f.finish();
    }
    mb.finish()
}

proptest! {
    #[test]
    fn generated_modules_round_trip(recipe in module_recipe()) {
        let m = build(&recipe);
        check_round_trips(&m)?;
    }

    /// Any edit of printed text parses or fails with an error; it never panics,
    /// and what parses prints back to text that parses to the same module.
    #[test]
    fn edited_text_never_panics(
        recipe in module_recipe(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 1..4),
    ) {
        let m = build(&recipe);
        let mut bytes = print_module(&m).into_bytes();
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len().max(1)).min(bytes.len());
            const BYTES: &[u8] = b" \n%:,=<>[](){}\"\\-0123456789abcdefgv@/.#";
            let byte = BYTES[usize::from(byte) % BYTES.len()];
            match kind {
                0 => bytes.insert(i, byte),
                1 if i < bytes.len() => { bytes.remove(i); }
                _ if i < bytes.len() => bytes[i] = byte,
                _ => {}
            }
        }
        let Ok(text) = String::from_utf8(bytes) else { return Ok(()) };
        fast_path_agrees(&text, IrLimits::default()).map_err(TestCaseError::fail)?;
        if let Ok(parsed) = parse_module(&text) {
            let again = parse_module(&print_module(&parsed)).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(same_module(&parsed, &again).is_ok());
        }
    }
}

/// The generator reaches every opcode (but `undef`), both text formats, and
/// modules with globals, declarations and several functions.
#[test]
fn generator_covers_the_instruction_set() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut seen = std::collections::BTreeSet::new();
    let (mut v2, mut v4, mut globals, mut externs) = (0, 0, 0, 0);
    for _ in 0..300 {
        let recipe = module_recipe().new_tree(&mut runner).unwrap().current();
        let m = build(&recipe);
        for f in m.functions() {
            for &b in f.blocks {
                seen.extend(f.block_insts(b).map(|i| f.inst(i).opcode()));
            }
        }
        if ir::format2_is_exact(&m) {
            v2 += 1;
        } else {
            v4 += 1;
        }
        globals += m.globals().len();
        externs += m.declarations().filter(|d| d.linkage == Linkage::External).count();
    }
    let missing: Vec<_> = Opcode::ALL.iter().filter(|op| !seen.contains(op) && **op != Opcode::Undef).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    assert!(v2 > 50 && v4 > 50, "format 2: {v2}, format 4: {v4}");
    assert!(globals > 50 && externs > 50, "{globals} globals, {externs} external declarations");
}

const SOUP: &[&str] = &[
    "module",
    "{",
    "}",
    "format_version",
    "2",
    "4",
    "semantics_version",
    "1",
    "target",
    "\"x86_64-whale-linux\"",
    "datalayout",
    "ptr",
    "=",
    "64",
    ",",
    "endian",
    "little",
    "fn",
    "@f0",
    "@f1",
    "@g0",
    "@main",
    "\"f\"",
    "(",
    ")",
    "->",
    "i32",
    "i64",
    "u8",
    "bool",
    "void",
    "f32",
    "entry",
    "%b0",
    "%b1",
    "0",
    "1",
    ":",
    "%v0",
    "%v1",
    "%v2",
    "add",
    "ret",
    "phi",
    "[",
    "]",
    "label",
    "br",
    "cbr",
    "switch",
    "call",
    "whale",
    "sysv64",
    "indirect",
    "const",
    "const_decl",
    "global",
    "declare",
    "linkage",
    "internal",
    "external",
    "link_name",
    "align",
    "gep",
    "<",
    ">",
    "struct",
    "tuple",
    "fnptr",
    "array",
    "=>",
    "add(",
    "eq(",
    "-1",
    "0x3f800000",
    "true",
    "store",
    "load",
    "uninit",
    "extract",
    "alloca",
    "trap",
    "reason",
    "trap_if",
    "%v4294967294",
    "init_expr",
    "id",
    "undef",
    "to",
    "zext",
    "select",
    "cmp",
    "slt",
    "...",
    "\"\\u{41}\"",
    "//",
    "\n",
];

proptest! {
    /// Random token sequences after a valid header never panic the reader or
    /// the verifier behind it.
    #[test]
    fn token_soup_never_panics(picks in prop::collection::vec(any::<prop::sample::Index>(), 0..80), v4 in any::<bool>()) {
        let header = if v4 { SPARSE_F4 } else { SEED_EXAMPLE_1 };
        let cut = header.find("\n\n  declare").unwrap_or(0);
        let mut text = header[..cut].to_string();
        text.push_str("\n\n");
        for pick in picks {
            text.push_str(SOUP[pick.index(SOUP.len())]);
            text.push(' ');
        }
        fast_path_agrees(&text, IrLimits::default()).map_err(TestCaseError::fail)?;
        fast_path_agrees(&format!("{text}\n  }}\n\n}}\n"), IrLimits::default()).map_err(TestCaseError::fail)?;
    }
}

// ---- fixed modules -----------------------------------------------------------------------

const SEED_EXAMPLE_1: &str = "\
module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"answer\": whale () -> i32, linkage internal

  fn @answer() -> i32, id @f0 {
  entry:
    %v0: i32 = const i32 40
    %v1: i32 = const i32 2
    %v2: i32 = add i32 %v0, %v1
    ret i32 %v2
  }

}
";

const SEED_EXAMPLE_2: &str = "\
module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"identity\": sysv64 (i32) -> i32, linkage external, link_name \"identity_i32\"
  declare @f1 \"answer\": whale () -> i32, linkage internal

  fn @answer() -> i32, id @f1 {
  entry:
    %v0: i32 = const i32 42
    %v1: fnptr<sysv64 (i32) -> i32> = function_addr @f0
    %v2: i32 = call sysv64 i32 @f0(%v0)
    %v3: i32 = call sysv64 i32 indirect %v1(%v0)
    ret i32 %v3
  }

}
";

#[test]
fn seed_examples_print_back_exactly() {
    for text in [SEED_EXAMPLE_1, SEED_EXAMPLE_2] {
        assert_eq!(print_module(&parse_ok(text)), text);
    }
}

/// Every instruction, type, constant form, global and declaration kind in one
/// format-2 module, written by hand the way the printer writes it.
const EVERYTHING_F2: &str = "\
module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  global @limit: i32 = const i32 7, align 4, id @g0, init_expr i32 7
  global @wide: u128 = const u128 340282366920938463463374607431768211455, align 16, id @g1, init_expr u128 340282366920938463463374607431768211455
  global @min: i128 = const i128 -170141183460469231731687303715884105728, align 16, id @g2, init_expr i128 -170141183460469231731687303715884105728
  global @half: f16 = const f16 0x3800, align 2, id @g3, init_expr f16 0x3800
  global @more: i32 = const i32 15, align 4, id @g4, init_expr add(mul(i32 @g0, i32 2), i32 1)
  global @big: bool = const bool true, align 1, id @g5, init_expr gt(i32 @g4, i32 @g0)

  declare @f0 \"main\": whale (i64, ptr<array<i32, 4>>) -> i64, linkage internal
  declare @f1 \"ext\": sysv64 (f64, u8) -> void, linkage external, link_name \"ext \\\"q\\\"\"
  declare @f2 \"cb\": whale (fnptr<whale (i32) -> bool>) -> tuple<i32, bool>, linkage external, link_name \"cb\"

  fn @main(n: i64, arr: ptr<array<i32, 4>>) -> i64, id @f0 {
  entry:
    %v2: ptr<struct{i8, i64, tuple<u16>}> = alloca struct{i8, i64, tuple<u16>}, align 8
    %v3: i64 = const i64 -9223372036854775808
    %v4: i64 = add i64 %v0, %v3
    %v5: i64 = sdiv i64 %v4, %v0
    %v6: tuple<i64, bool> = smul_chk i64 %v5, %v0
    %v7: i64 = extract %v6, 0
    %v8: bool = extract %v6, 1
    %v9: bool = cmp sle i64 %v7, %v0
    %v10: bool = icmp ne i64 %v7, %v0
    %v11: f64 = const f64 0x7ff8000000000001
    %v12: bool = fcmp uno f64 %v11, %v11
    %v13: i64 = select bool %v9, i64 %v7, i64 %v5
    %v14: u64 = bitcast i64 %v13 to u64
    %v15: u8 = trunc u64 %v14 to u8
    %v16: f64 = itof_u u8 %v15 to f64
    %v17: i64 = mov i64 %v13
    %v18: i64 = not i64 %v17
    %v19: i32 = const i32 0
    %v20: i64 = const i64 2
    %v21: ptr<i32> = gep %v1, %v19, %v20
    %v22: i32 = load i32, ptr<i32> %v21, align 4
    store i32 %v22, ptr<i32> %v21, align 4
    uninit i32, ptr<i32> %v21, align 4
    %v23: ptr<u8> = alloca u8, align 1
    %v24: u8 = const u8 255
    %v25: u64 = const u64 1
    memset ptr<u8> %v23, u8 %v24, u64 %v25, align 1
    memcpy ptr<u8> %v23, ptr<u8> %v23, u64 %v25, align 1
    call sysv64 void @f1(%v16, %v15)
    %v26: fnptr<whale (i32) -> bool> = null_function
    %v27: fnptr<whale (i64, ptr<array<i32, 4>>) -> i64> = function_addr @f0
    %v28: i64 = call whale i64 indirect %v27(%v17, %v1)
    %v29: tuple<i32, bool> = call whale tuple<i32, bool> @f2(%v26)
    %v30: i32 = const_decl \"k\" sub(i32 @g0, i32 %v19) => const i32 7
    trap_if bool %v12, reason=\"nan \\\\ \\u{7}\"
    switch i64 %v28, label 1 [ -1: 2, 0: 1 ]
  loop:
    %v31: i64 = phi i64 [ %v28, 0 ], [ %v32, 1 ]
    %v32: i64 = add i64 %v31, %v0
    cbr bool %v8, label 1, label 3
  dead:
    trap reason=\"unreachable\"
  exit:
    br label 4
  done:
    ret i64 %v31
  }

}
";

#[test]
fn every_instruction_reads_and_prints_back() {
    let m = parse_ok(EVERYTHING_F2);
    // `uninit` is not a format-2 instruction: the module prints as format 4
    // (whale-ir §3), and without it exactly as read.
    assert!(EVERYTHING_F2.contains("\n    uninit "));
    assert_eq!(print_module(&m), print_module_with(&m, TextFormat::V4));
    let without_uninit: String =
        EVERYTHING_F2.lines().filter(|l| !l.trim_start().starts_with("uninit ")).map(|l| format!("{l}\n")).collect();
    assert_eq!(print_module(&parse_ok(&without_uninit)), without_uninit);
    let v4 = print_module_with(&m, TextFormat::V4);
    let m4 = parse_ok(&v4);
    same_module(&m, &m4).unwrap();
    assert_eq!(print_module_with(&m4, TextFormat::V4), v4);
    // Every operand shape but `undef`'s occurs.
    let seen: Vec<ir::Shape> = m
        .functions()
        .flat_map(|f| {
            f.blocks.iter().flat_map(|&b| f.block_insts(b)).map(|i| f.inst(i).opcode().shape()).collect::<Vec<_>>()
        })
        .collect();
    let missing: Vec<_> =
        Opcode::ALL.iter().map(|op| op.shape()).filter(|s| !seen.contains(s) && *s != ir::Shape::Nullary).collect();
    assert!(missing.is_empty(), "{missing:?}");
}

/// Format 4 with sparse ids and names only format 4 can carry.
const SPARSE_F4: &str = "\
module {
  format_version 4
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  global @g7 \"a b\": i8 = const i8 -3, align 1, init_expr i8 -3

  declare @f3 \"abs\": whale (i64) -> i64, linkage internal

  fn @f3 \"abs\"(%v7 \"x\\ty\": i64) -> i64, entry %b2 {
  %b2 \"entry\":
    %v8: i64 = const i64 0
    %v9: bool = cmp slt i64 %v7, %v8
    cbr bool %v9, label %b5, label %b4
  %b4 \"done\":
    %v10: i64 = phi i64 [ %v7, %b2 ], [ %v11, %b5 ]
    ret i64 %v10
  %b5 \"negate\\u{2028}\":
    %v11: i64 = sub i64 %v8, %v7
    br label %b4
  }

}
";

#[test]
fn sparse_format_4_prints_back_exactly() {
    let m = parse_ok(SPARSE_F4);
    assert!(!m.is_canonically_numbered());
    assert_eq!(print_module(&m), SPARSE_F4);
    let f = m.function_at(0);
    // The function's tables run from its lowest ids to its highest.
    assert_eq!((f.value_base(), f.value_slots()), (7, 5));
    assert_eq!(f.value_type(ValueId::from_u32(3)), None);
    assert_eq!(f.block_name(BlockId::from_u32(5)), "negate\u{2028}");
    assert_eq!(m.globals().next().map(|g| g.name), Some("a b"));
}

#[test]
fn format_3_is_read() {
    let f3 = SPARSE_F4.replace("format_version 4", "format_version 3");
    let m = parse_ok(&f3);
    // Printed in format 4, the only format with explicit ids.
    assert_eq!(print_module(&m), SPARSE_F4);
    // A canonical format-3 module prints as format 2.
    let canonical = "\
module {
  format_version 3
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"id\": whale (i32) -> i32, linkage internal

  fn @f0 \"id\"(%v0 \"x\": i32) -> i32, entry %b0 {
  %b0 \"entry\":
    ret i32 %v0
  }

}
";
    let text = print_module(&parse_ok(canonical));
    assert!(text.contains("fn @id(x: i32) -> i32, id @f0 {\n  entry:\n    ret i32 %v0\n"), "{text}");
}

#[test]
fn comments_and_spacing_are_ignored() {
    let text = SEED_EXAMPLE_1
        .replace("module {", "// a module\nmodule { // opens\n")
        .replace("    %v2", "\t%v2   ")
        .replace("\n  }", "  // done\n  }");
    let m = parse_ok(&text);
    assert_eq!(print_module(&m), SEED_EXAMPLE_1);
}

#[test]
fn format_2_infers_parameter_and_block_ids_across_functions() {
    let text = "\
module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"a\": whale (i32) -> i32, linkage internal
  declare @f1 \"b\": whale (i32, i32) -> i32, linkage internal

  fn @a(x: i32) -> i32, id @f0 {
  entry:
    %v1: i32 = add i32 %v0, %v0
    br label 1
  next:
    ret i32 %v1
  }

  fn @b(y: i32, z: i32) -> i32, id @f1 {
  entry:
    br label 3
  last:
    ret i32 %v3
  }

}
";
    let m = parse_ok(text);
    let b = m.functions().nth(1).unwrap();
    assert_eq!(b.params.iter().map(|p| p.value.as_u32()).collect::<Vec<_>>(), [2, 3]);
    assert_eq!(b.blocks.iter().map(|b| b.as_u32()).collect::<Vec<_>>(), [2, 3]);
    assert_eq!(print_module(&m), text);
}

#[test]
fn undef_is_read_and_rejected_by_the_verifier() {
    let text = SEED_EXAMPLE_1.replace("%v1: i32 = const i32 2", "%v1: i32 = undef i32");
    let e = parse_module(&text).unwrap_err();
    assert!(
        matches!(&e.kind, ParseErrorKind::Verification(v) if matches!(**v, ir::VerifyError::ForbiddenUndef { .. }))
    );
    assert_eq!((e.location.line, e.location.column), (12, 5));
}

// ---- syntax errors: one per class, with line:column and message ----------------------------

/// Parses `SEED_EXAMPLE_1` with `from` replaced by `to`; returns the error.
fn error_in(from: &str, to: &str) -> ParseError {
    assert!(SEED_EXAMPLE_1.contains(from), "{from}");
    let text = SEED_EXAMPLE_1.replacen(from, to, 1);
    match parse_module(&text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

#[track_caller]
fn assert_error(e: &ParseError, line: u32, column: u32, message: &str) {
    assert_eq!(
        (e.location.line, e.location.column, e.to_string()),
        (line, column, format!("{line}:{column}: {message}"))
    );
}

#[test]
fn unexpected_tokens_name_what_was_expected() {
    assert_error(
        &error_in("add i32 %v0, %v1", "add i32 %v0 %v1"),
        13,
        28,
        "expected `,` after the first operand, found `%v1`",
    );
    assert_error(
        &error_in("ret i32 %v2", "ret i32 %v2 ]"),
        14,
        17,
        "expected an instruction, a block label or `}`, found `]`",
    );
    assert_error(&error_in("module {", "modul {"), 1, 1, "expected `module`, found `modul`");
    assert_error(&error_in("%v2: i32 =", "%v2: i32"), 13, 14, "expected `=` after the result type, found `add`");
    assert_error(
        &error_in("  }\n\n}\n", "  }\n\n"),
        17,
        1,
        "expected `global`, `declare`, `fn` or `}`, found end of input",
    );
    assert_error(
        &error_in("  }\n\n}\n", "  }\n\n}\n}\n"),
        18,
        1,
        "expected end of input after the module's `}`, found `}`",
    );
    assert_error(&error_in("const i32 40", "const i32 %v0"), 11, 26, "expected a constant, found `%v0`");
    assert_error(
        &error_in("ret i32 %v2", "ret i32 %x2"),
        14,
        13,
        "expected an instruction, a block label or `}`, found `%x2`",
    );
    assert_error(&error_in("entry:", ""), 11, 5, "expected a block label, found instruction `const`");
}

#[test]
fn lexical_errors() {
    assert_error(&error_in("%v1: i32", "%v1: i32 #"), 12, 14, "unexpected character '#'");
    assert_error(
        &error_in("\"answer\"", "\"ans\\qwer\""),
        7,
        19,
        "invalid escape in string: expected one of \\\" \\\\ \\n \\r \\t \\0 \\u{..}",
    );
    assert_error(
        &error_in("\"answer\"", "\"ans\\u{d800}\""),
        7,
        19,
        "invalid escape in string: \\u{..} is not a Unicode scalar value",
    );
    assert_error(
        &error_in("\"answer\"", "\"ans\twer\""),
        7,
        19,
        "raw control character '\\t' in string; write it as an escape",
    );
    assert_error(
        &error_in("\"answer\"", "\"answer"),
        7,
        57,
        "raw control character '\\n' in string; write it as an escape",
    );
    assert_error(&error_in("  }\n\n}\n", "  }\n\n}\n\"abc"), 18, 1, "unterminated string");
}

#[test]
fn unknown_names() {
    assert_error(&error_in("add i32", "addd i32"), 13, 16, "unknown instruction");
    assert!(
        matches!(error_in("add i32", "addd i32").kind, ParseErrorKind::UnknownInstruction { ref name } if name == "addd")
    );
    assert_error(&error_in("%v0: i32", "%v0: i31"), 11, 10, "unknown type `i31`");
    assert_error(
        &error_in("whale () -> i32", "fast () -> i32"),
        7,
        25,
        "expected a calling convention (`whale` or `sysv64`), found `fast`",
    );
}

#[test]
fn malformed_numbers_and_literals() {
    assert_error(&error_in("const i32 40", "const i32 4x0"), 11, 26, "invalid integer literal `4x0`");
    assert_error(
        &error_in("const i32 40", "const i32 2147483648"),
        11,
        26,
        "integer literal 2147483648 is out of range for i32",
    );
    assert_error(
        &error_in("const i32 40", "const i32 -2147483649"),
        11,
        26,
        "integer literal -2147483649 is out of range for i32",
    );
    assert_error(
        &error_in("%v0: i32 = const i32 40", "%v0: u8 = const u8 -1"),
        11,
        24,
        "integer literal -1 is out of range for u8",
    );
    assert_error(
        &error_in("%v0: i32 = const i32 40", "%v0: f32 = const f32 0x3f80"),
        11,
        26,
        "f32 requires exactly 8 hexadecimal digits",
    );
    assert_error(
        &error_in("%v0: i32 = const i32 40", "%v0: bool = const bool 1"),
        11,
        28,
        "expected `true` or `false`, found `1`",
    );
    assert_error(
        &error_in("%v0: i32 = const i32 40", "%v0: ptr<i8> = const ptr<i8> 0"),
        11,
        34,
        "type ptr<i8> has no literal constants",
    );
    assert_error(&error_in("%v2: i32 = add", "%v2x: i32 = add"), 13, 5, "invalid value id `%v2x`");
}

#[test]
fn conflicting_type_annotations() {
    let conflict = |e: &ParseError| matches!(e.kind, ParseErrorKind::ConflictingTypeAnnotations { .. });
    let e = error_in("add i32 %v0", "add i64 %v0");
    assert_error(&e, 13, 20, "conflicting type annotations: i64 here, but the result is i32");
    assert!(conflict(&e));
    assert_error(
        &error_in("const i32 40", "const i64 40"),
        11,
        22,
        "conflicting type annotations: i64 here, but the result is i32",
    );
    assert_error(
        &error_in("ret i32 %v2", "ret i64 %v2"),
        14,
        9,
        "conflicting type annotations: i64 here, but the function's return type is i32",
    );
    let select = "%v2: i32 = select bool %v0, i32 %v0, i32 %v1";
    assert_error(
        &error_in("%v2: i32 = add i32 %v0, %v1", select),
        13,
        23,
        "conflicting type annotations: bool here, but %v0 is i32",
    );
    let cast = "%v2: i64 = sext i16 %v1 to i64";
    assert_error(
        &error_in("%v2: i32 = add i32 %v0, %v1", cast),
        13,
        21,
        "conflicting type annotations: i16 here, but %v1 is i32",
    );
    let checked = "%v2: tuple<i32, bool> = sadd_chk i64 %v0, %v1";
    assert_error(
        &error_in("%v2: i32 = add i32 %v0, %v1", checked),
        13,
        38,
        "conflicting type annotations: tuple<i64, bool> here, but the result is tuple<i32, bool>",
    );
    // A call's convention and return type restate the callee's signature.
    let e = parse_module(&SEED_EXAMPLE_2.replace("call sysv64 i32 @f0", "call whale i32 @f0")).unwrap_err();
    assert_error(&e, 14, 21, "conflicting type annotations: whale here, but the calling convention of @f0 is sysv64");
    let e =
        parse_module(&SEED_EXAMPLE_2.replace("%v3: i32 = call sysv64 i32", "%v3: i64 = call sysv64 i64")).unwrap_err();
    assert_error(
        &e,
        15,
        28,
        "conflicting type annotations: i64 here, but the return type of the signature of %v1 is i32",
    );
    // An operand restated before its definition is checked when the function ends.
    let forward = "\
module {
  format_version 4
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"f\": whale () -> void, linkage internal

  fn @f0 \"f\"() -> void, entry %b0 {
  %b0 \"entry\":
    br label %b2
  %b1 \"use\":
    store i64 %v5, ptr<i32> %v6, align 4
    ret void
  %b2 \"def\":
    %v5: i32 = const i32 1
    %v6: ptr<i32> = alloca i32, align 4
    br label %b1
  }

}
";
    assert_error(&parse_module(forward).unwrap_err(), 13, 11, "conflicting type annotations: i64 here, but %v5 is i32");
}

#[test]
fn result_presence() {
    let e = error_in("ret i32 %v2", "%v3: void = br label 0");
    assert_error(&e, 14, 17, "incorrect result presence: br defines no value");
    assert_error(
        &error_in("%v2: i32 = add", "add"),
        13,
        5,
        "incorrect result presence: add requires a result `%vN: T =`",
    );
    let e = parse_module(&SEED_EXAMPLE_2.replace("%v2: i32 = call sysv64 i32 @f0", "call sysv64 i32 @f0")).unwrap_err();
    assert_error(&e, 14, 17, "incorrect result presence: call requires a result `%vN: T =`");
}

#[test]
fn versions_and_format_3_restrictions() {
    assert_error(
        &error_in("format_version 2", "format_version 5"),
        2,
        18,
        "unsupported IR format version 5; supported versions are 2, 3 and 4",
    );
    assert_error(
        &error_in("semantics_version 1", "semantics_version 2"),
        3,
        21,
        "unsupported semantics version 2; expected 1",
    );
    let f3 = SPARSE_F4.replace("format_version 4", "format_version 3").replace(
        "    ret i64 %v10\n",
        "    %v12: ptr<i64> = alloca i64, align 8\n    uninit i64, ptr<i64> %v12, align 8\n    ret i64 %v10\n",
    );
    assert_error(&parse_module(&f3).unwrap_err(), 19, 5, "uninit requires typed IR format 4");
    // Format-2 labels are not format-4 labels.
    let e = parse_module(&SPARSE_F4.replace("%b2 \"entry\":", "entry:")).unwrap_err();
    assert_error(
        &e,
        12,
        3,
        "expected a block label `%bN \"name\":` (labels carry ids in formats 3 and 4), found `entry`",
    );
}

#[test]
fn duplicate_and_non_canonical_ids() {
    assert_error(&error_in("%v1: i32 = const i32 2", "%v0: i32 = const i32 2"), 12, 5, "%v0 is defined twice");
    let e = parse_module(&SPARSE_F4.replace("%b5 \"negate", "%b4 \"negate")).unwrap_err();
    assert_error(&e, 19, 3, "%b4 is defined twice");
    let e = parse_module(&SPARSE_F4.replace("global @g7 \"a b\": i8 = const i8 -3, align 1, init_expr i8 -3", "global @g7 \"a\": i8 = const i8 -3, align 1, init_expr i8 -3\n  global @g7 \"b\": i8 = const i8 -3, align 1, init_expr i8 -3")).unwrap_err();
    assert_error(&e, 8, 10, "@g7 is defined twice");
    // Format 2 numbers the parameter of `@id` as %v0, so a result %v0 contradicts it.
    let text = "\
module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"id\": whale (i32) -> i32, linkage internal

  fn @id(x: i32) -> i32, id @f0 {
  entry:
    %v0: i32 = const i32 1
    ret i32 %v0
  }

}
";
    let e = parse_module(text).unwrap_err();
    assert_error(&e, 11, 5, "%v0 contradicts the canonical numbering of format 2: it is the id of parameter `x`");
    assert!(matches!(e.kind, ParseErrorKind::NonCanonicalId { .. }));
}

#[test]
fn instruction_after_terminator() {
    let e = error_in("    ret i32 %v2\n", "    ret i32 %v2\n    %v3: i32 = const i32 0\n");
    assert_error(&e, 15, 5, "instruction after the terminator of block entry");
}

#[test]
fn verification_errors_point_at_the_offending_text() {
    let located = |text: &str| {
        let e = parse_module(text).unwrap_err();
        assert!(matches!(e.kind, ParseErrorKind::Verification(_)), "{e}");
        (e.location.line, e.location.column)
    };
    // An instruction: use of an undefined value.
    assert_eq!(located(&SEED_EXAMPLE_1.replace("add i32 %v0, %v1", "add i32 %v0, %v9")), (13, 5));
    // A block: no terminator.
    assert_eq!(located(&SEED_EXAMPLE_1.replace("    ret i32 %v2\n", "    ret i32 %v2\n  more:\n")), (15, 3));
    // A global: duplicate name, at the second one.
    let globals = "  global @g: i32 = const i32 1, align 4, id @g0, init_expr i32 1\n  global @g: i32 = const i32 1, align 4, id @g1, init_expr i32 1\n\n  declare";
    assert_eq!(located(&SEED_EXAMPLE_1.replacen("  declare", globals, 1)), (8, 3));
    // A declaration: an internal function without a body.
    let decl = "  declare @f0 \"answer\": whale () -> i32, linkage internal\n  declare @f1 \"lost\": whale () -> i32, linkage internal";
    assert_eq!(
        located(&SEED_EXAMPLE_1.replace("  declare @f0 \"answer\": whale () -> i32, linkage internal", decl)),
        (8, 3)
    );
    // The target line.
    assert_eq!(located(&SEED_EXAMPLE_1.replace("x86_64-whale-linux", "riscv")), (4, 3));
    // The message is the verifier's.
    let e = parse_module(&SEED_EXAMPLE_1.replace("add i32 %v0, %v1", "add i32 %v0, %v9")).unwrap_err();
    assert_eq!(e.to_string(), "13:5: function answer: use of undefined value %v9");
}

#[test]
fn render_shows_the_line_and_a_caret() {
    let text = SEED_EXAMPLE_1.replace("add i32", "addd i32");
    let e = parse_module(&text).unwrap_err();
    assert_eq!(
        e.render(&text, "add.wir"),
        "add.wir:13:16: unknown instruction\n  13 |     %v2: i32 = addd i32 %v0, %v1\n     |                ^^^^"
    );
}

// ---- the fast path for printed lines -------------------------------------------------------

/// Printed lines of every shape the reader's fast path reads: declarations,
/// scalar function headers, labels, constants, unary, binary, compare,
/// select, cast, phi, direct calls with and without a result, `br`, `cbr` and
/// `ret`.
const FAST_LINES: &str = "\
module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"callee\": whale (i64, i64) -> i64, linkage internal
  declare @f1 \"lines\": whale (i64, i64, i32) -> i64, linkage internal
  declare @f2 \"ext\": sysv64 (i64) -> void, linkage external, link_name \"ext\"

  fn @callee(a: i64, b: i64) -> i64, id @f0 {
  entry:
    %v2: i64 = xor i64 %v0, %v1
    ret i64 %v2
  }

  fn @lines(a: i64, b: i64, c: i32) -> i64, id @f1 {
  entry:
    %v6: i64 = const i64 0
    %v7: i64 = const i64 -5
    %v8: bool = const bool true
    br label 2
  loop:
    %v9: i64 = phi i64 [ %v6, 1 ], [ %v21, 2 ]
    %v10: i64 = add i64 %v9, %v3
    %v11: i64 = mul i64 %v10, %v7
    %v12: bool = icmp slt i64 %v10, %v11
    %v13: i64 = select bool %v12, i64 %v10, i64 %v11
    %v14: u64 = bitcast i64 %v13 to u64
    %v15: u64 = bitcast i64 %v4 to u64
    %v16: bool = icmp uge u64 %v14, %v15
    %v17: i64 = sext i32 %v5 to i64
    %v18: i64 = not i64 %v17
    %v19: i64 = call whale i64 @f0(%v18, %v13)
    call sysv64 void @f2(%v19)
    %v20: bool = cmp ne i64 %v19, %v6
    %v21: i64 = add i64 %v9, %v3
    cbr bool %v20, label 2, label 3
  exit:
    ret i64 %v21
  }

}
";

/// Edits of [`FAST_LINES`] (first occurrence) at every check of the fast path:
/// other spacing and comments, restated type conflicts, ids reused, sparse,
/// out of range or referring to the line's own result, unknown words,
/// malformed literals, list continuations on the next line, signature
/// conflicts, and lines after a terminator.
const FAST_EDITS: &[(&str, &str)] = &[
    ("add i64 %v9, %v3", "add i32 %v9, %v3"),
    ("add i64 %v9, %v3", "add i64 %v9,%v3"),
    ("add i64 %v9, %v3", "add i64 %v9, %v3 // note"),
    ("add i64 %v9, %v3", "add\ti64 %v9, %v3"),
    ("add i64 %v9, %v3", "add i64 %v10, %v3"),
    ("add i64 %v9, %v3", "add i64 %v9, %v99"),
    ("add i64 %v9, %v3", "add i64 %v9, %v99999999999"),
    ("add i64 %v9, %v3", "uadd_chk i64 %v9, %v3"),
    ("add i64 %v9, %v3", "addd i64 %v9, %v3"),
    ("add i64 %v9, %v3", "add ptr<i64> %v9, %v3"),
    ("%v10: i64 = add", "%v9: i64 = add"),
    ("%v10: i64 = add", "%v30: i64 = add"),
    ("%v10: i64 = add", "%v4: i64 = add"),
    ("%v10: i64 = add", "%v10 : i64 = add"),
    ("%v10: i64 = add", "%v10: i64= add"),
    ("icmp slt i64 %v10", "icmp slx i64 %v10"),
    ("icmp slt i64 %v10", "icmp oeq i64 %v10"),
    ("icmp slt i64 %v10", "icmp slt i32 %v10"),
    ("icmp slt i64 %v10", "icmp slt i64 %v50"),
    ("icmp slt i64 %v10", "icmp slt i64 %v13"),
    ("icmp slt i64 %v10", "icmp slt i64 %v12"),
    ("icmp slt i64 %v10", "icmp slt bool %v12"),
    ("select bool %v12, i64 %v10", "select i64 %v12, i64 %v10"),
    ("select bool %v12, i64 %v10", "select bool %v13, i64 %v10"),
    ("select bool %v12, i64 %v10", "select bool %v12, i64 %v13"),
    ("select bool %v12, i64 %v10", "select bool %v12, i32 %v10"),
    ("bitcast i64 %v13 to u64", "bitcast i64 %v13 to u32"),
    ("bitcast i64 %v13 to u64", "bitcast i64 %v14 to u64"),
    ("bitcast i64 %v13 to u64", "bitcast u64 %v14 to u64"),
    ("bitcast i64 %v13 to u64", "bitcast i32 %v13 to u64"),
    ("bitcast i64 %v13 to u64", "bitcast i64 %v13 to u64 to"),
    ("not i64 %v17", "not i32 %v17"),
    ("not i64 %v17", "mov i64 %v17"),
    ("const i64 -5", "const i64 -"),
    ("const i64 -5", "const i64 ->"),
    ("const i64 -5", "const i64 - 5"),
    ("const i64 -5", "const i64 99999999999999999999"),
    ("const i64 -5", "const i64 -9223372036854775809"),
    ("const i64 -5", "const i64 5x"),
    ("const i64 -5", "const i64 0x5"),
    ("const bool true", "const bool 1"),
    ("const bool true", "const bool truee"),
    ("%v6: i64 = const i64 0", "%v6: i64 = const i32 0"),
    ("%v6: i64 = const i64 0", "%v6: f64 = const f64 0x0000000000000000"),
    ("%v6: i64 = const i64 0", "%v6: i64 = undef i64"),
    ("[ %v6, 1 ], [ %v21, 2 ]", "[ %v6, 1 ]\n    , [ %v21, 2 ]"),
    ("[ %v6, 1 ], [ %v21, 2 ]", "[ %v6, 1 ], [ %v21, 99999999 ]"),
    ("[ %v6, 1 ], [ %v21, 2 ]", "[%v6, 1 ], [ %v21, 2 ]"),
    ("[ %v6, 1 ], [ %v21, 2 ]", "[ %v6, 1 ], [ %v21, 2 ],"),
    ("[ %v6, 1 ], [ %v21, 2 ]", "[ %v6, 1 ]"),
    ("[ %v6, 1 ], [ %v21, 2 ]", ""),
    ("[ %v6, 1 ], [ %v21, 2 ]", "\n    [ %v6, 1 ], [ %v21, 2 ]"),
    ("phi i64 [", "phi i32 ["),
    ("@f0(%v18, %v13)", "@f0(%v18)"),
    ("@f0(%v18, %v13)", "@f0()"),
    ("@f0(%v18, %v13)", "@f0(%v18,%v13)"),
    ("@f0(%v18, %v13)", "@f9(%v18, %v13)"),
    ("@f0(%v18, %v13)", "@f99999999999(%v18, %v13)"),
    ("@f0(%v18, %v13)", "@g0(%v18, %v13)"),
    ("call whale i64 @f0", "call sysv64 i64 @f0"),
    ("call whale i64 @f0", "call whale i32 @f0"),
    ("call whale i64 @f0", "call whale void @f0"),
    ("call whale i64 @f0", "call cdecl i64 @f0"),
    ("call sysv64 void @f2", "call sysv64 i64 @f2"),
    ("call sysv64 void @f2", "call whale void @f2"),
    ("    call sysv64 void @f2(%v19)\n", "    %v40: i64 = call sysv64 void @f2(%v19)\n"),
    ("cbr bool %v20, label 2, label 3", "cbr bool %v20, label 2, label 7"),
    ("cbr bool %v20, label 2, label 3", "cbr bool %v20, label 2, label 99999999"),
    ("cbr bool %v20, label 2, label 3", "cbr i64 %v20, label 2, label 3"),
    ("cbr bool %v20, label 2, label 3", "cbr bool %v20, label 2,label 3"),
    ("cbr bool %v20, label 2, label 3", "cbr bool %v20, label 2, label x3"),
    ("    br label 2\n", "    br label 2\n    br label 2\n"),
    ("    br label 2\n", "    br label 2\n    %v40: i64 = add i64 %v6, %v6\n"),
    ("    br label 2\n", "    br label %b2\n"),
    ("ret i64 %v21", "ret i64\n    %v21"),
    ("ret i64 %v21", "ret i32 %v21"),
    ("ret i64 %v21", "ret i64"),
    ("ret i64 %v21", "ret void"),
    ("ret i64 %v21", "ret i64 // %v21"),
    ("  loop:\n", "  loop :\n"),
    ("  loop:\n", "  entry:\n"),
    ("  loop:\n", "  %v40:\n"),
    ("  loop:\n", "  ret:\n"),
    ("  loop:\n", "  tên_biến:\n"),
    ("  exit:\n", "  exit:\n  exit2:\n"),
    ("  entry:\n    %v6", "  entry:\n  first:\n    %v6"),
    ("  entry:\n    %v6", "    %v6"),
    ("fn @lines(a: i64, b: i64, c: i32)", "fn @lines(a: i64, a: i64, c: i32)"),
    ("fn @lines(a: i64, b: i64, c: i32)", "fn @lines(a: i64, b: i64, c: i32, d: bool)"),
    ("fn @lines(a: i64, b: i64, c: i32)", "fn @lines(a: i64, b: i64, c: ptr<i32>)"),
    ("fn @lines(a: i64, b: i64, c: i32)", "fn @lines(a: i64, b: i64, c: i32 )"),
    ("fn @lines(a: i64, b: i64, c: i32)", "fn @lines(a: i64, b: i64, c:i32)"),
    ("fn @lines(a: i64, b: i64, c: i32)", "fn @lines()"),
    ("fn @lines(a: i64, b: i64, c: i32)", "fn @(a: i64, b: i64, c: i32)"),
    ("fn @lines(a: i64, b: i64, c: i32)", "fn @f1 \"lines\"(a: i64, b: i64, c: i32)"),
    ("-> i64, id @f1 {", "-> i32, id @f1 {"),
    ("-> i64, id @f1 {", "-> i64, id @f7 {"),
    ("-> i64, id @f1 {", "-> i64, id @f1{"),
    ("-> i64, id @f1 {", "-> i64, entry %b1 {"),
    ("declare @f1 \"lines\": whale (i64, i64, i32)", "declare @f1 \"lines\": whale (i64, i64, i32, ...)"),
    ("declare @f1 \"lines\"", "declare @f1 \"li\\tnes\""),
    ("declare @f1 \"lines\"", "declare @f1 \"li\tnes\""),
    ("declare @f1 \"lines\"", "declare @f0 \"lines\""),
    ("declare @f1 \"lines\"", "declare @f99999999999 \"lines\""),
    ("declare @f1 \"lines\"", "declare @f1 lines"),
    ("whale (i64, i64, i32) -> i64", "whale (i64, i64, i32) -> void"),
    ("whale (i64, i64, i32) -> i64", "sysv64 (i64, i64, i32) -> i64"),
    ("whale (i64, i64, i32) -> i64", "whale (i64,i64, i32) -> i64"),
    ("whale (i64, i64, i32) -> i64", "whale (i64, i64, i32) -> i64 -> i64"),
    ("whale (i64, i64) -> i64", "whale (i64, i64, i32) -> i64"),
    ("linkage external, link_name \"ext\"", "linkage external\n  , link_name \"ext\""),
    ("linkage external, link_name \"ext\"", "linkage external"),
    ("linkage external, link_name \"ext\"", "linkage external, link_name ext"),
    ("linkage internal\n  declare @f1", "linkage extern\n  declare @f1"),
    ("linkage internal\n  declare @f1", "linkage internal,\n  declare @f1"),
];

/// Every fast-path edit, in format 2 and (where the edited text exists) in
/// format 4, reads the same with and without the fast path.
#[test]
fn fast_path_agrees_with_the_token_rules() {
    let m = parse_ok(FAST_LINES);
    assert_eq!(print_module(&m), FAST_LINES);
    let v4 = print_module_with(&m, TextFormat::V4);
    let v4_edits: &[(&str, &str)] = &[
        ("%b2 \"loop\":", "%b2 \"lo\\top\":"),
        ("%b2 \"loop\":", "%b2 \"lo\top\":"),
        ("%b2 \"loop\":", "%b2 \"loop\" :"),
        ("%b2 \"loop\":", "%b1 \"loop\":"),
        ("%b2 \"loop\":", "%b9 \"loop\":"),
        ("%b2 \"loop\":", "%b99999999999 \"loop\":"),
        ("%b2 \"loop\":", "loop:"),
        ("label %b2", "label 2"),
        ("%v9: i64 = phi", "%v40: i64 = phi"),
        ("%v3 \"a\": i64", "%v3 \"a\": i32"),
        ("%v4 \"b\": i64", "%v3 \"b\": i64"),
        ("%v4 \"b\": i64", "%v60 \"b\": i64"),
        ("%v4 \"b\": i64", "%v2 \"b\": i64"),
        ("%v5 \"c\": i32", "%v5 \"c\\u{41}\": i32"),
        ("fn @f1 \"lines\"", "fn @f1 \"li\\\"nes\""),
        ("entry %b1 {", "entry %b7 {"),
        ("entry %b1 {", "id @f1 {"),
    ];
    for (text, edits) in [(FAST_LINES, FAST_EDITS), (v4.as_str(), v4_edits)] {
        fast_path_agrees(text, IrLimits::default()).unwrap();
        for &(from, to) in edits.iter().chain(FAST_EDITS) {
            if !text.contains(from) {
                assert!(text != FAST_LINES, "edit {from:?} does not apply");
                continue;
            }
            let edited = text.replacen(from, to, 1);
            if let Err(e) = fast_path_agrees(&edited, IrLimits::default()) {
                panic!("edit {from:?} -> {to:?}:\n{e}");
            }
        }
    }
}

/// Under every small limit (nodes, values, blocks, functions, ids, type
/// depth, tokens) the fast path fails where the token rules do, and in the
/// same way.
#[test]
fn fast_path_agrees_under_every_limit() {
    let v4 = print_module_with(&parse_ok(FAST_LINES), TextFormat::V4);
    let d = IrLimits::default();
    let mut limits = Vec::new();
    for n in 0..120 {
        limits.push(IrLimits { max_nodes: n, ..d });
    }
    for n in 0..30 {
        limits.push(IrLimits { max_values: n, ..d });
        limits.push(IrLimits { max_id: n as u32, ..d });
        limits.push(IrLimits { max_tokens: 10 * n, ..d });
    }
    for n in 0..6 {
        limits.push(IrLimits { max_blocks: n, ..d });
        limits.push(IrLimits { max_functions: n, ..d });
        limits.push(IrLimits { max_type_depth: n as u32, ..d });
    }
    for text in [FAST_LINES, v4.as_str()] {
        for &limits in &limits {
            if let Err(e) = fast_path_agrees(text, limits) {
                panic!("{limits:?}:\n{e}");
            }
        }
    }
}

/// Every AST example, lowered at O0 and printed in format 2 and in format 4,
/// reads back to the same module and prints identically.
#[cfg(feature = "socket")]
#[test]
fn lowered_ast_examples_read_back() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no AST examples in {}", dir.display());
    for path in paths {
        let name = path.display();
        let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let program = ir::lower_ast::interchange::decode(&source).unwrap_or_else(|e| panic!("{name}: {e}"));
        let m = ir::lower_ast::lower_o0(&program, "x86_64-whale-linux", DataLayout::default_64bit_le())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // Lowering numbers canonically; only `uninit` (a format-4 instruction) makes the text format 4.
        let uses_uninit = m.functions().any(|f| f.insts().iter().any(|d| d.opcode() == Opcode::Uninit));
        assert_eq!(ir::format2_is_exact(&m), !uses_uninit, "{name}");
        let v2 = if uses_uninit { "format_version 4\n" } else { "format_version 2\n" };
        for (format, version) in [(TextFormat::V2, v2), (TextFormat::V4, "format_version 4\n")] {
            let text = print_module_with(&m, format);
            assert!(text.contains(version), "{name}");
            let parsed = parse_module(&text)
                .unwrap_or_else(|e| panic!("{name}: {}\n{text}", e.render(&text, &name.to_string())));
            if let Err(e) = same_module(&m, &parsed) {
                panic!("{name}, {version}: {e}\n{text}");
            }
            assert_eq!(print_module_with(&parsed, format), text, "{name}");
            fast_path_agrees(&text, IrLimits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

// ---- limits ----------------------------------------------------------------------------------

fn limit_error(text: &str, limits: IrLimits) -> (Resource, u64, u32, u32) {
    match parse_module_with_limits(text, limits) {
        Err(ParseError { kind: ParseErrorKind::ResourceLimit(e), location }) => {
            (e.resource, e.limit, location.line, location.column)
        }
        other => panic!("expected a limit error, got {other:?}"),
    }
}

fn wrap_type(depth: usize) -> String {
    format!("{}i32{}", "ptr<".repeat(depth), ">".repeat(depth))
}

#[test]
fn type_nesting_limit() {
    // 50,000 levels: an error, not a stack overflow.
    let deep = SEED_EXAMPLE_1.replace("%v0: i32 = const i32 40", &format!("%v0: {} = const i32 40", wrap_type(50_000)));
    let (resource, limit, line, _) = limit_error(&deep, IrLimits { max_input_bytes: 1 << 20, ..IrLimits::default() });
    assert_eq!((resource, limit, line), (Resource::TypeDepth, 128, 11));
    // The limit is inclusive.
    let at_limit = |d| {
        SEED_EXAMPLE_1.replace(
            "declare @f0 \"answer\": whale () -> i32",
            &format!("declare @f0 \"answer\": whale () -> {}", wrap_type(d)),
        )
    };
    let limits = IrLimits { max_type_depth: 4, ..IrLimits::default() };
    assert_eq!(limit_error(&at_limit(4), limits).0, Resource::TypeDepth);
    match parse_module_with_limits(&at_limit(3), limits) {
        Err(e) => assert!(matches!(e.kind, ParseErrorKind::Verification(_)), "{e}"),
        Ok(_) => panic!("declaration mismatch must not verify"),
    }
    // Structs, tuples and signatures nest too.
    let nested = format!("{}i32{}", "struct{tuple<fnptr<whale (".repeat(100), ") -> void>>}".repeat(100));
    let text = SEED_EXAMPLE_1.replace("%v0: i32 = const i32 40", &format!("%v0: {nested} = const i32 40"));
    assert_eq!(limit_error(&text, IrLimits::default()).0, Resource::TypeDepth);
}

#[test]
fn constant_nesting_limit() {
    let deep = format!("{}i32 1{}", "add(i32 0, ".repeat(50_000), ")".repeat(50_000));
    let text =
        SEED_EXAMPLE_1.replace("%v1: i32 = const i32 2", &format!("%v1: i32 = const_decl \"k\" {deep} => const i32 1"));
    let (resource, limit, line, _) = limit_error(&text, IrLimits { max_input_bytes: 1 << 20, ..IrLimits::default() });
    assert_eq!((resource, limit, line), (Resource::ConstantDepth, 128, 12));
    let shallow = format!("{}i32 1{}", "add(i32 0, ".repeat(3), ")".repeat(3));
    let text = SEED_EXAMPLE_1
        .replace("%v1: i32 = const i32 2", &format!("%v1: i32 = const_decl \"k\" {shallow} => const i32 1"));
    let m = parse_module_with_limits(&text, IrLimits { max_const_depth: 3, ..IrLimits::default() });
    assert!(m.is_ok(), "{m:?}");
    assert_eq!(limit_error(&text, IrLimits { max_const_depth: 2, ..IrLimits::default() }).0, Resource::ConstantDepth);
}

#[test]
fn input_token_and_node_limits() {
    let len = SEED_EXAMPLE_1.len();
    assert_eq!(
        limit_error(SEED_EXAMPLE_1, IrLimits { max_input_bytes: len - 1, ..IrLimits::default() }).0,
        Resource::InputBytes
    );
    assert!(parse_module_with_limits(SEED_EXAMPLE_1, IrLimits { max_input_bytes: len, ..IrLimits::default() }).is_ok());
    assert_eq!(
        limit_error(SEED_EXAMPLE_1, IrLimits { max_tokens: 20, ..IrLimits::default() }),
        (Resource::Tokens, 20, 7, 15)
    );
    assert_eq!(limit_error(SEED_EXAMPLE_1, IrLimits { max_nodes: 5, ..IrLimits::default() }).0, Resource::Nodes);
}

#[test]
fn entity_count_limits() {
    assert_eq!(
        limit_error(SEED_EXAMPLE_2, IrLimits { max_functions: 1, ..IrLimits::default() }).0,
        Resource::Functions
    );
    assert_eq!(
        limit_error(SEED_EXAMPLE_1, IrLimits { max_values: 2, ..IrLimits::default() }),
        (Resource::Values, 2, 13, 5)
    );
    let two_blocks = SEED_EXAMPLE_1.replace("    ret i32 %v2\n", "    br label 1\n  exit:\n    ret i32 %v2\n");
    assert!(parse_module(&two_blocks).is_ok());
    assert_eq!(
        limit_error(&two_blocks, IrLimits { max_blocks: 1, ..IrLimits::default() }),
        (Resource::Blocks, 1, 15, 3)
    );
}

#[test]
fn large_ids_are_refused_before_allocating() {
    // %v4294967294 is a valid u32 but would need 4 G table slots.
    let text = SEED_EXAMPLE_1.replace(
        "%v2: i32 = add i32 %v0, %v1\n    ret i32 %v2",
        "%v4294967294: i32 = add i32 %v0, %v1\n    ret i32 %v4294967294",
    );
    let (resource, limit, line, column) = limit_error(&text, IrLimits::default());
    assert_eq!((resource, limit, line, column), (Resource::Id, 65536, 13, 5));
    // Larger than u32 as well, and in uses, block references and function ids.
    assert_eq!(
        limit_error(&SEED_EXAMPLE_1.replace("%v1\n", "%v99999999999999999999\n"), IrLimits::default()).0,
        Resource::Id
    );
    assert_eq!(
        limit_error(&SEED_EXAMPLE_1.replace("    ret i32 %v2", "    br label 70000"), IrLimits::default()).0,
        Resource::Id
    );
    assert_eq!(limit_error(&SEED_EXAMPLE_1.replace("id @f0", "id @f4000000000"), IrLimits::default()).0, Resource::Id);
    // Ids up to the limit are fine (the table stays sparse in format 4).
    let sparse = SPARSE_F4.replace("%v11", "%v65536");
    let m = parse_ok(&sparse);
    let f = m.function_at(0);
    assert_eq!(f.value_at(f.value_slots() - 1), ValueId::from_u32(65536));
    // The configured limit applies below the derived one.
    assert_eq!(limit_error(SPARSE_F4, IrLimits { max_id: 10, ..IrLimits::default() }), (Resource::Id, 10, 17, 41));
}

#[test]
fn configuration_limit() {
    let limits = IrLimits { max_const_depth: 1000, ..IrLimits::default() };
    assert_eq!(limit_error(SEED_EXAMPLE_1, limits).0, Resource::Configuration);
}

/// Ids are function-scoped (whale-ir §3): every function starts at `%v0` and
/// `%b0`, two functions use the same sparse ids, and the text prints back
/// byte for byte; an id repeated within one function is still an error at
/// its second definition.
#[test]
fn ids_repeat_across_functions_but_not_within_one() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/function-scoped-ids.wir");
    let text = std::fs::read_to_string(path).unwrap();
    let m = parse_ok(&text);
    assert_eq!(print_module_with(&m, TextFormat::V4), text);
    assert_eq!(print_module(&m), text, "not canonically numbered: format 4");
    let [square, sum, main] = [0, 1, 2].map(|i| m.function_at(i));
    assert_eq!((square.value_base(), sum.value_base(), main.value_base()), (0, 0, 0));
    assert!(sum.has_block(BlockId::from_u32(10)) && main.has_block(BlockId::from_u32(10)));
    assert_eq!(sum.value_type(ValueId::from_u32(42)), Some(ir::TypeId::BOOL));
    assert_eq!(main.value_type(ValueId::from_u32(42)), None);
    for i in 0..3 {
        ir::verify_function(&m, i).unwrap();
    }
    // Within one function an id is defined once.
    let twice = text.replace("%v44: i64 = add i64 %v41, %v45", "%v43: i64 = add i64 %v41, %v45");
    assert_error(&parse_module(&twice).unwrap_err(), 30, 5, "%v43 is defined twice");
    let block_twice = text.replace("%b12 \"done\":", "%b11 \"done\":").replace("label %b12", "label %b11");
    assert_error(&parse_module(&block_twice).unwrap_err(), 32, 3, "%b11 is defined twice");
    // A value of another function is not this function's.
    let foreign = text.replace("ret i64 %v1\n  }\n\n  fn @f1", "ret i64 %v45\n  }\n\n  fn @f1");
    assert!(parse_module(&foreign).unwrap_err().to_string().contains("undefined"));
}
