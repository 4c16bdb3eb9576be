//! The Whale mapping (`fr2e.md` Part C): modules survive `write_module` → `read_module` with identical printed text,
//! and re-encoding gives identical bytes (project decision 4); readers never panic on hostile images.
//!
//! Random modules come from recipes of small numbers (STYLE §9): every recipe builds a module that verifies, covering
//! every instruction and type of the profile, phis, switches, calls, globals with `init_expr` and `const_decl`. Each
//! is also renumbered through its format-4 text (sparse value and block ids, permuted function ids, sparse global
//! ids) and read back with the text reader, so that non-canonical ids and names take the extension tags.

use std::path::Path;

use fr2e::format::Image;
use ir::{
    BlockId, Callee, CastOp, CheckedOp, CmpOp, ConstBinOp, ConstCmpOp, ConstExpr, ConstExprKind, ConstRef, ConstValue,
    DataLayout, FCmpPred, FloatBits, FunctionId, FunctionSignature, ICmpPred, Linkage, ModuleBuilder, Type, ValueId,
};
use proptest::prelude::*;

// ---- round-trip helpers ---------------------------------------------------------------------------------------------

/// Writes, reads back and re-writes `module`; checks printed text and bytes, and that the format layer reads the image
/// and writes it back byte for byte (so the writer's entries and headers are canonical).
fn round_trip(module: &ir::Module) -> Vec<u8> {
    let text = ir::print_module(module);
    let bytes = fr2e::write_module(module);
    let back = fr2e::read_module(&bytes).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(ir::print_module(&back), text);
    assert_eq!(fr2e::write_module(&back), bytes);
    let image = Image::read(&bytes).unwrap_or_else(|e| panic!("format layer: {e}\n{text}"));
    assert_eq!(image.write().unwrap(), bytes, "the format layer re-encodes differently\n{text}");
    bytes
}

fn lower_example(path: &Path) -> ir::Module {
    let text = std::fs::read_to_string(path).unwrap();
    let program = ir::lower_ast::interchange::decode(&text).unwrap();
    let target = ir::Target::lookup("x86_64-whale-linux").unwrap();
    ir::lower_ast::lower_o0(&program, target.name(), target.data_layout()).unwrap()
}

fn examples() -> Vec<(String, ir::Module)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            out.push((path.file_name().unwrap().to_string_lossy().into_owned(), lower_example(&path)));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn examples_round_trip() {
    let examples = examples();
    assert!(examples.len() >= 5);
    for (_, module) in &examples {
        ir::verify_module(module).unwrap();
        round_trip(module);
        round_trip(&renumber(module));
        let restarted = restart(module);
        // Every function's values now start at %v40 (its parameters or first result): ids repeat across functions.
        assert!(restarted.functions().all(|f| f.values().next().is_none_or(|(v, _)| v.as_u32() == 40)));
        round_trip(&restarted);
    }
}

// ---- renumbering through format-4 text ----------------------------------------------------------------------------

/// Rewrites every `%vN`, `%bN`, `@fN` and `@gN` of the module's format-4 text by injective maps (sparse values and
/// blocks, reversed function ids, shifted global ids) and reads the text back.
fn renumber(module: &ir::Module) -> ir::Module {
    renumber_with(module, false)
}

/// [`renumber`] with value and block ids restarting in every function: each function's ids start at `%v0`/`%b0`
/// and become sparse (`%v40, %v42, …`), so every function reuses the others' ids (they are function-scoped).
fn restart(module: &ir::Module) -> ir::Module {
    renumber_with(module, true)
}

fn renumber_with(module: &ir::Module, per_function: bool) -> ir::Module {
    let text = ir::print_module_with(module, ir::TextFormat::V4);
    let functions = module.declarations().len() as u64;
    // Per function: the lowest value and block id, from the module itself.
    let lowest: Vec<(u64, u64)> = module
        .functions()
        .map(|f| {
            let low_value = f.values().map(|(v, _)| u64::from(v.as_u32())).min().unwrap_or(0);
            let low_block = f.blocks.iter().map(|b| u64::from(b.as_u32())).min().unwrap_or(0);
            (low_value, low_block)
        })
        .collect();
    let mut function = None::<usize>;
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            // Escapes are ASCII; other characters are copied whole.
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            if c == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1] as char);
                i += 1;
            } else if c == b'"' {
                in_string = false;
            }
            i += ch.len_utf8();
            continue;
        }
        if c == b'"' {
            in_string = true;
        }
        if text[i..].starts_with("\n  fn ") {
            function = Some(function.map_or(0, |f| f + 1));
        }
        let sigil = matches!((c, bytes.get(i + 1)), (b'%', Some(b'v' | b'b')) | (b'@', Some(b'f' | b'g')));
        let digits = bytes[(i + 2).min(bytes.len())..].iter().take_while(|b| b.is_ascii_digit()).count();
        if sigil && digits > 0 {
            let n: u64 = text[i + 2..i + 2 + digits].parse().unwrap();
            let (low_value, low_block) = match (per_function, function) {
                (true, Some(f)) => lowest[f],
                _ => (0, 0),
            };
            let mapped = match bytes[i + 1] {
                b'v' if per_function => 2 * (n - low_value) + 40,
                b'b' if per_function => 3 * (n - low_block) + 10,
                b'v' => 3 * n + 11,
                b'b' => 2 * n + 5,
                b'f' => functions - 1 - n,
                _ => n + 3,
            };
            out.push_str(&text[i..i + 2]);
            out.push_str(&mapped.to_string());
            i += 2 + digits;
        } else {
            // Copy one whole character (names may hold non-ASCII text).
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    ir::parse_module(&out).unwrap_or_else(|e| panic!("{}\n{out}", e.render(&out, "renumbered")))
}

// ---- recipes ------------------------------------------------------------------------------------------------------

/// One generic step: `kind` selects the operation, the small numbers pick types and operands modulo what exists.
#[derive(Clone, Debug)]
struct Op {
    kind: u8,
    a: u8,
    b: u8,
    c: u8,
    bits: u128,
}

#[derive(Clone, Debug)]
struct BlockRecipe {
    name: u8,
    phis: Vec<u8>,
    ops: Vec<Op>,
    term: u8,
    x: u8,
    y: u8,
    cases: Vec<(u8, u8)>,
}

#[derive(Clone, Debug)]
struct FunctionRecipe {
    params: Vec<(u8, u8)>,
    ret: u8,
    blocks: Vec<BlockRecipe>,
}

#[derive(Clone, Debug)]
struct ModuleRecipe {
    globals: Vec<Op>,
    externals: Vec<(u8, u8, bool)>,
    functions: Vec<FunctionRecipe>,
    order: u8,
}

fn op() -> impl Strategy<Value = Op> {
    (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>(), any::<u128>()).prop_map(|(kind, a, b, c, bits)| Op {
        kind,
        a,
        b,
        c,
        bits: match kind % 4 {
            // Small, 64-bit and 128-bit payloads alike.
            0 => bits % 300,
            1 => bits as u64 as u128,
            _ => bits,
        },
    })
}

fn block() -> impl Strategy<Value = BlockRecipe> {
    (
        any::<u8>(),
        prop::collection::vec(any::<u8>(), 0..3),
        prop::collection::vec(op(), 0..12),
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
        prop::collection::vec((any::<u8>(), any::<u8>()), 0..4),
    )
        .prop_map(|(name, phis, ops, term, x, y, cases)| BlockRecipe { name, phis, ops, term, x, y, cases })
}

fn function() -> impl Strategy<Value = FunctionRecipe> {
    (prop::collection::vec((any::<u8>(), any::<u8>()), 0..4), any::<u8>(), prop::collection::vec(block(), 1..6))
        .prop_map(|(params, ret, blocks)| FunctionRecipe { params, ret, blocks })
}

fn module() -> impl Strategy<Value = ModuleRecipe> {
    (
        prop::collection::vec(op(), 0..5),
        prop::collection::vec((any::<u8>(), any::<u8>(), any::<bool>()), 0..3),
        prop::collection::vec(function(), 1..4),
        any::<u8>(),
    )
        .prop_map(|(globals, externals, functions, order)| ModuleRecipe { globals, externals, functions, order })
}

// ---- building -----------------------------------------------------------------------------------------------------

const SCALARS: [Type; 16] = Type::VALUE_SCALARS;
const INTS: [Type; 12] = [
    Type::I1,
    Type::I8,
    Type::I16,
    Type::I32,
    Type::I64,
    Type::I128,
    Type::U1,
    Type::U8,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::U128,
];
const FLOATS: [Type; 3] = [Type::F16, Type::F32, Type::F64];
const NAMES: [&str; 8] = ["", "loop", "if.then", "a b", "quote\"d", "ünïcode", "x", "tab\there"];

fn pick_type<T: Clone>(list: &[T], n: u8) -> T {
    list[n as usize % list.len()].clone()
}

fn bits_of(ty: &Type) -> u32 {
    match ty {
        Type::Bool | Type::I1 | Type::U1 => 1,
        Type::I8 | Type::U8 => 8,
        Type::I16 | Type::U16 | Type::F16 => 16,
        Type::I32 | Type::U32 | Type::F32 => 32,
        Type::I64 | Type::U64 | Type::F64 => 64,
        _ => 128,
    }
}

fn signed(ty: &Type) -> bool {
    matches!(ty, Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::I128)
}

fn is_float(ty: &Type) -> bool {
    matches!(ty, Type::F16 | Type::F32 | Type::F64)
}

/// A valid constant of scalar `ty` made from `bits`.
fn constant(ty: &Type, bits: u128) -> ConstValue {
    let width = bits_of(ty);
    match ty {
        Type::Bool => ConstValue::Bool(bits & 1 == 1),
        Type::F16 => ConstValue::F(FloatBits::F16(bits as u16)),
        Type::F32 => ConstValue::F(FloatBits::F32(bits as u32)),
        Type::F64 => ConstValue::F(FloatBits::F64(bits as u64)),
        t if signed(t) => ConstValue::I(((bits as i128) << (128 - width)) >> (128 - width)),
        _ => ConstValue::U(if width == 128 { bits } else { bits & ((1u128 << width) - 1) }),
    }
}

fn struct_type() -> Type {
    Type::Struct(vec![Type::I32, Type::I64, Type::Tuple(vec![Type::U8, Type::Bool]), Type::array(Type::F32, 2)])
}

/// A builder call for a binary operation.
type BinaryBuild = fn(&mut ir::FunctionBuilder<'_>, Type, ValueId, ValueId) -> ValueId;

/// Builds one function body.
struct Body<'m, 'b> {
    f: ir::FunctionBuilder<'b>,
    /// Values of the entry block (usable everywhere), and of the current block.
    entry: Vec<(ValueId, Type)>,
    local: Vec<(ValueId, Type)>,
    in_entry: bool,
    /// Constants (`const` or `const_decl`) usable here, with their values.
    consts: Vec<(ValueId, Type, ConstValue, bool)>,
    callees: &'m [(FunctionId, FunctionSignature)],
    globals: &'m [(ir::GlobalId, Type, ConstValue)],
    names: u32,
}

impl Body<'_, '_> {
    fn add(&mut self, value: ValueId, ty: Type) -> ValueId {
        if self.in_entry {
            self.entry.push((value, ty));
        } else {
            self.local.push((value, ty));
        }
        value
    }

    fn available(&self, ty: &Type) -> Vec<ValueId> {
        self.entry.iter().chain(&self.local).filter(|(_, t)| t == ty).map(|(v, _)| *v).collect()
    }

    fn constant(&mut self, ty: &Type, bits: u128) -> ValueId {
        let value = constant(ty, bits);
        let v = self.f.constant(ty.clone(), value);
        self.consts.push((v, ty.clone(), value, self.in_entry));
        self.add(v, ty.clone())
    }

    /// A value of scalar `ty`: one that exists, or a new constant.
    fn pick(&mut self, ty: &Type, n: u8) -> ValueId {
        let candidates = self.available(ty);
        if candidates.is_empty() || n % 5 == 0 {
            return self.constant(ty, u128::from(n) * 0x9E37_79B9);
        }
        candidates[n as usize % candidates.len()]
    }

    fn existing(&self, ty: &Type, n: u8) -> Option<ValueId> {
        let candidates = self.available(ty);
        (!candidates.is_empty()).then(|| candidates[n as usize % candidates.len()])
    }

    fn op(&mut self, op: &Op) {
        let Op { kind, a, b, c, bits } = *op;
        match kind % 21 {
            0 => {
                self.constant(&pick_type(&SCALARS, a), bits);
            }
            1 => {
                let ty = pick_type(&INTS, a);
                let ops: [BinaryBuild; 11] = [
                    |f, t, x, y| f.add(t, x, y),
                    |f, t, x, y| f.sub(t, x, y),
                    |f, t, x, y| f.mul(t, x, y),
                    |f, t, x, y| f.and(t, x, y),
                    |f, t, x, y| f.or(t, x, y),
                    |f, t, x, y| f.xor(t, x, y),
                    |f, t, x, y| f.shl(t, x, y),
                    |f, t, x, y| f.lshr(t, x, y),
                    |f, t, x, y| f.ashr(t, x, y),
                    |f, t, x, y| if signed(&t) { f.sdiv(t, x, y) } else { f.udiv(t, x, y) },
                    |f, t, x, y| if signed(&t) { f.srem(t, x, y) } else { f.urem(t, x, y) },
                ];
                let (x, y) = (self.pick(&ty, c), self.pick(&ty, c.rotate_left(3)));
                let v = ops[b as usize % ops.len()](&mut self.f, ty.clone(), x, y);
                self.add(v, ty);
            }
            2 => {
                let ty = pick_type(&FLOATS, a);
                let (x, y) = (self.pick(&ty, c), self.pick(&ty, c.rotate_left(3)));
                let v = match b % 5 {
                    0 => self.f.fadd(ty.clone(), x, y),
                    1 => self.f.fsub(ty.clone(), x, y),
                    2 => self.f.fmul(ty.clone(), x, y),
                    3 => self.f.fdiv(ty.clone(), x, y),
                    _ => self.f.frem(ty.clone(), x, y),
                };
                self.add(v, ty);
            }
            3 => {
                let ty = pick_type(&INTS, a);
                let x = self.pick(&ty, b);
                let v = self.f.not(ty.clone(), x);
                self.add(v, ty);
            }
            4 => {
                let ty = pick_type(&SCALARS, a);
                let x = self.pick(&ty, b);
                let v = self.f.mov(ty.clone(), x);
                self.add(v, ty);
            }
            5 | 6 => {
                // cmp / icmp: a predicate valid for the operand type.
                let ty = match b % 4 {
                    0 => Type::Bool,
                    1 if kind % 21 == 5 => pick_type(&FLOATS, a),
                    _ => pick_type(&INTS, a),
                };
                let (x, y) = (self.pick(&ty, c), self.pick(&ty, c.rotate_left(2)));
                let v = if kind % 21 == 5 {
                    let preds: &[CmpOp] = if is_float(&ty) {
                        &CmpOp::ALL[10..]
                    } else if ty == Type::Bool {
                        &[CmpOp::Eq, CmpOp::Ne]
                    } else if signed(&ty) {
                        &[CmpOp::Eq, CmpOp::Ne, CmpOp::Slt, CmpOp::Sle, CmpOp::Sgt, CmpOp::Sge]
                    } else {
                        &[CmpOp::Eq, CmpOp::Ne, CmpOp::Ult, CmpOp::Ule, CmpOp::Ugt, CmpOp::Uge]
                    };
                    self.f.cmp(pick_type(preds, a / 7), ty, x, y)
                } else {
                    let preds: &[ICmpPred] = if ty == Type::Bool {
                        &[ICmpPred::Eq, ICmpPred::Ne]
                    } else if signed(&ty) {
                        &ICmpPred::ALL[..6]
                    } else {
                        &[ICmpPred::Eq, ICmpPred::Ne, ICmpPred::Ult, ICmpPred::Ule, ICmpPred::Ugt, ICmpPred::Uge]
                    };
                    self.f.icmp(pick_type(preds, a / 7), ty, x, y)
                };
                self.add(v, Type::Bool);
            }
            7 => {
                let ty = pick_type(&FLOATS, a);
                let (x, y) = (self.pick(&ty, c), self.pick(&ty, b));
                let v = self.f.fcmp(pick_type(FCmpPred::ALL, b / 3), ty, x, y);
                self.add(v, Type::Bool);
            }
            8 => {
                let ty = if b % 3 == 0 { struct_type() } else { pick_type(&SCALARS, a) };
                let cond = self.pick(&Type::Bool, c);
                let (Some(x), Some(y)) = (
                    if ty == struct_type() { self.existing(&ty, a) } else { Some(self.pick(&ty, a)) },
                    if ty == struct_type() { self.existing(&ty, b) } else { Some(self.pick(&ty, b)) },
                ) else {
                    return;
                };
                let v = self.f.select(ty.clone(), cond, x, y);
                self.add(v, ty);
            }
            9 => self.cast(a, b, c),
            10 => {
                let ops = [
                    CheckedOp::UAdd,
                    CheckedOp::USub,
                    CheckedOp::UMul,
                    CheckedOp::SAdd,
                    CheckedOp::SSub,
                    CheckedOp::SMul,
                ];
                let op = pick_type(&ops, b);
                let s = matches!(op, CheckedOp::SAdd | CheckedOp::SSub | CheckedOp::SMul);
                let ty = pick_type(if s { &INTS[..6] } else { &INTS[6..] }, a);
                let (x, y) = (self.pick(&ty, c), self.pick(&ty, c ^ 0x55));
                let pair = self.f.checked(op, ty.clone(), x, y);
                let tuple = Type::Tuple(vec![ty.clone(), Type::Bool]);
                self.add(pair, tuple.clone());
                let value = self.f.extract(tuple.clone(), ty.clone(), pair, 0);
                self.add(value, ty);
                let overflow = self.f.extract(tuple, Type::Bool, pair, 1);
                self.add(overflow, Type::Bool);
            }
            11 => {
                let ty = pick_type(&SCALARS, a);
                let align = 1 << (b % 5);
                let slot = if b % 2 == 0 {
                    self.f.alloca(ty.clone(), align)
                } else {
                    self.f.alloca_in_entry(ty.clone(), align)
                };
                self.add(slot, Type::ptr(ty.clone()));
                let x = self.pick(&ty, c);
                self.f.store(ty.clone(), x, slot, align);
                let loaded = self.f.load(ty.clone(), slot, align);
                self.add(loaded, ty.clone());
                if c % 3 == 0 {
                    self.f.uninit(ty, slot, align);
                }
            }
            12 => {
                let st = struct_type();
                let slot = self.f.alloca(st.clone(), 8);
                self.add(slot, Type::ptr(st.clone()));
                let zero = self.constant(&Type::I64, 0);
                let field = u128::from(b % 3);
                let index = self.constant(&Type::I32, field);
                let field_ty = [Type::I32, Type::I64, Type::Tuple(vec![Type::U8, Type::Bool])][field as usize].clone();
                let p = self.f.gep(Type::ptr(field_ty.clone()), slot, &[zero, index]);
                self.add(p, Type::ptr(field_ty.clone()));
                if field < 2 {
                    let x = self.pick(&field_ty, c);
                    self.f.store(field_ty.clone(), x, p, 4);
                }
                let whole = self.f.load(st.clone(), slot, 8);
                self.add(whole, st);
            }
            13 => {
                let arr = Type::array(Type::I32, 4);
                let slot = self.f.alloca(arr.clone(), 4);
                self.add(slot, Type::ptr(arr));
                let zero = self.constant(&Type::I64, 0);
                let index_ty = pick_type(&INTS, b);
                let index = self.pick(&index_ty, c);
                let p = self.f.gep(Type::ptr(Type::I32), slot, &[zero, index]);
                self.add(p, Type::ptr(Type::I32));
                let base_only = self.f.gep(Type::ptr(Type::array(Type::I32, 4)), slot, &[]);
                self.add(base_only, Type::ptr(Type::array(Type::I32, 4)));
            }
            14 => {
                let dst = self.f.alloca(Type::U8, 1);
                let src = self.f.alloca(Type::U8, 1);
                self.add(dst, Type::ptr(Type::U8));
                self.add(src, Type::ptr(Type::U8));
                let len = self.constant(&Type::U64, 1);
                if b % 2 == 0 {
                    self.f.memcpy(dst, src, len, 1 << (c % 3));
                } else {
                    let byte = self.pick(&Type::U8, c);
                    self.f.memset(dst, byte, len, 1);
                }
            }
            15 | 16 => {
                if self.callees.is_empty() {
                    return;
                }
                let (id, sig) = pick_type(self.callees, a);
                let args: Vec<ValueId> =
                    sig.params.iter().enumerate().map(|(i, t)| self.pick(t, b.wrapping_add(i as u8))).collect();
                let callee = if kind % 21 == 16 {
                    let pointer = self.f.function_addr(id).unwrap();
                    self.add(pointer, Type::fn_ptr(sig.clone()));
                    Callee::Indirect(pointer)
                } else {
                    Callee::Direct(id)
                };
                if let Some(v) = self.f.call(callee, args).unwrap() {
                    self.add(v, sig.ret.clone());
                }
            }
            17 => {
                let sig = FunctionSignature {
                    params: vec![pick_type(&SCALARS, a)],
                    ret: if b % 2 == 0 { Type::Void } else { struct_type() },
                    // SysV64 signatures take no aggregates.
                    convention: if c % 2 == 0 || b % 2 == 1 {
                        ir::CallingConvention::Whale
                    } else {
                        ir::CallingConvention::SysV64
                    },
                    variadic: false,
                };
                let v = self.f.null_function(sig.clone()).unwrap();
                self.add(v, Type::fn_ptr(sig));
            }
            18 => {
                let cond = self.pick(&Type::Bool, a);
                self.f.trap_if(cond, pick_type(&["", "overflow", "a much longer trap reason"], b));
            }
            19 => self.const_decl(a, b, c, bits),
            _ => {
                // Wide and special constants.
                let ty = pick_type(&[Type::I128, Type::U128, Type::F64, Type::F32, Type::U64, Type::I64], a);
                let special = [0x7ff8_0000_0000_0001, 0x8000_0000_0000_0000, u128::MAX, 1 << 63, 0x7fc0_0001, bits];
                self.constant(&ty, pick_type(&special, b));
            }
        }
    }

    fn cast(&mut self, a: u8, b: u8, c: u8) {
        let pick2 = |list: &[Type], n: u8| pick_type(list, n);
        let (op, from, to) = match b % 12 {
            0..=2 => {
                let from = pick2(&INTS[..5], a).clone();
                let from = if c % 2 == 0 { from } else { pick2(&INTS[6..11], a) };
                let wider: Vec<Type> = INTS.iter().filter(|t| bits_of(t) > bits_of(&from)).cloned().collect();
                let narrower: Vec<Type> = INTS.iter().filter(|t| bits_of(t) < bits_of(&from)).cloned().collect();
                match b % 12 {
                    0 => (CastOp::Zext, from, pick2(&wider, c)),
                    1 => (CastOp::Sext, from, pick2(&wider, c)),
                    _ if narrower.is_empty() => (CastOp::Zext, from, pick2(&wider, c)),
                    _ => (CastOp::Trunc, from, pick2(&narrower, c)),
                }
            }
            3 => (CastOp::Fext, pick2(&FLOATS[..2], a), Type::F64),
            4 => (CastOp::Ftrunc, Type::F64, pick2(&FLOATS[..2], a)),
            5 => (CastOp::ItofS, pick2(&INTS[..6], a), pick2(&FLOATS, c)),
            6 => (CastOp::ItofU, pick2(&INTS[6..], a), pick2(&FLOATS, c)),
            7 => (CastOp::FtoiS, pick2(&FLOATS, a), pick2(&INTS[..6], c)),
            8 => (CastOp::FtoiU, pick2(&FLOATS, a), pick2(&INTS[6..], c)),
            9 => {
                let pairs =
                    [(Type::I32, Type::F32), (Type::U64, Type::I64), (Type::F16, Type::U16), (Type::F64, Type::U64)];
                let (from, to) = pairs[a as usize % pairs.len()].clone();
                (CastOp::Bitcast, from, to)
            }
            10 => (CastOp::Zext, Type::Bool, pick2(&INTS[1..], a)),
            _ => {
                // ptrtoint and inttoptr through a stack slot.
                let slot = self.f.alloca(Type::I64, 8);
                self.add(slot, Type::ptr(Type::I64));
                let int_ty = pick2(&INTS, a);
                let raw = self.f.cast(CastOp::Ptrtoint, slot, int_ty.clone());
                self.add(raw, int_ty.clone());
                let back = self.f.cast(CastOp::Inttoptr, raw, Type::ptr(Type::U8));
                self.add(back, Type::ptr(Type::U8));
                let same = self.f.cast(CastOp::Bitcast, back, Type::ptr(Type::I16));
                self.add(same, Type::ptr(Type::I16));
                return;
            }
        };
        let x = self.pick(&from, c);
        let v = self.f.cast(op, x, to.clone());
        self.add(v, to);
    }

    /// `const_decl "cN" E => const T v` over constants and globals of one type.
    fn const_decl(&mut self, a: u8, b: u8, c: u8, bits: u128) {
        let ty = pick_type(&[Type::I32, Type::U8, Type::I64, Type::U128, Type::F32], a);
        let locals: Vec<(ValueId, ConstValue)> = self
            .consts
            .iter()
            .filter(|(_, t, _, in_entry)| *t == ty && (*in_entry || !self.in_entry))
            .map(|(v, _, value, _)| (*v, *value))
            .collect();
        let leaf = |n: u8, this: &Self| -> ConstExpr {
            match n % 3 {
                0 if !locals.is_empty() => {
                    let (v, _) = locals[n as usize % locals.len()];
                    ConstExpr { ty: ty.clone(), kind: ConstExprKind::Reference(ConstRef::Local(v)) }
                }
                1 => match this.globals.iter().find(|(_, t, _)| *t == ty) {
                    Some((g, _, _)) => {
                        ConstExpr { ty: ty.clone(), kind: ConstExprKind::Reference(ConstRef::Global(*g)) }
                    }
                    None => ConstExpr::literal(ty.clone(), constant(&ty, bits)),
                },
                _ => ConstExpr::literal(ty.clone(), constant(&ty, bits >> 7)),
            }
        };
        let lhs = Box::new(leaf(b, self));
        let rhs = Box::new(leaf(c, self));
        let expr = if is_float(&ty) || b % 4 != 0 {
            let op = pick_type(&[ConstBinOp::Add, ConstBinOp::Sub, ConstBinOp::Mul], c);
            ConstExpr { ty: ty.clone(), kind: ConstExprKind::Binary { op, lhs, rhs } }
        } else {
            let ops = [ConstCmpOp::Eq, ConstCmpOp::Ne, ConstCmpOp::Lt, ConstCmpOp::Le, ConstCmpOp::Gt, ConstCmpOp::Ge];
            ConstExpr { ty: Type::Bool, kind: ConstExprKind::Compare { op: pick_type(&ops, c), lhs, rhs } }
        };
        let consts = self.consts.clone();
        let globals = self.globals;
        let value = ir::const_expr::evaluate(&expr, 64, &mut |r| match r {
            ConstRef::Local(v) => {
                let (_, t, value, _) = consts.iter().find(|(x, ..)| *x == v).unwrap();
                Ok((t.clone(), *value))
            }
            ConstRef::Global(g) => {
                let (_, t, value) = globals.iter().find(|(x, ..)| *x == g).unwrap();
                Ok((t.clone(), *value))
            }
        });
        let Ok(value) = value else { return };
        self.names += 1;
        let name =
            if self.names % 2 == 0 { format!("c{}", self.names) } else { format!("a constant named {}", self.names) };
        let result_ty = expr.ty.clone();
        let v = self.f.const_decl(&name, expr, value);
        self.consts.push((v, result_ty.clone(), value, self.in_entry));
        self.add(v, result_ty);
    }
}

/// Builds the module of `recipe`; it always verifies.
fn build(recipe: &ModuleRecipe) -> ir::Module {
    let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    // Globals: literals, and expressions over earlier globals of the same type.
    let mut globals: Vec<(ir::GlobalId, Type, ConstValue)> = Vec::new();
    for (i, g) in recipe.globals.iter().enumerate() {
        let ty = pick_type(&[Type::I32, Type::U8, Type::I64, Type::U128, Type::F32, Type::Bool, Type::I128], g.a);
        let align = 1 << (g.b % 5);
        let name = if g.c % 3 == 0 { format!("g \"{i}\"") } else { format!("g{i}") };
        let literal = constant(&ty, g.bits);
        let earlier = globals.iter().find(|(_, t, _)| *t == ty).cloned();
        let id = match earlier {
            Some((other, _, other_value)) if g.kind % 2 == 0 && ty != Type::Bool => {
                let op = pick_type(&[ConstBinOp::Add, ConstBinOp::Sub, ConstBinOp::Mul], g.c);
                let expr = ConstExpr {
                    ty: ty.clone(),
                    kind: ConstExprKind::Binary {
                        op,
                        lhs: Box::new(ConstExpr {
                            ty: ty.clone(),
                            kind: ConstExprKind::Reference(ConstRef::Global(other)),
                        }),
                        rhs: Box::new(ConstExpr::literal(ty.clone(), literal)),
                    },
                };
                let value = ir::const_expr::evaluate(&expr, 64, &mut |_| Ok((ty.clone(), other_value))).unwrap();
                let id = mb.add_global_const(&name, expr, value, align);
                globals.push((id, ty.clone(), value));
                id
            }
            _ => {
                let id = mb.add_global(&name, ty.clone(), literal, align);
                globals.push((id, ty.clone(), literal));
                id
            }
        };
        let _ = id;
    }
    // External declarations, then every internal function, so that calls may go anywhere.
    let mut callees: Vec<(FunctionId, FunctionSignature)> = Vec::new();
    for (i, &(p, r, sysv)) in recipe.externals.iter().enumerate() {
        let sig = FunctionSignature {
            params: (0..p % 3).map(|k| pick_type(&SCALARS, p.wrapping_add(k))).collect(),
            ret: if r % 3 == 0 { Type::Void } else { pick_type(&SCALARS, r) },
            convention: if sysv { ir::CallingConvention::SysV64 } else { ir::CallingConvention::Whale },
            variadic: false,
        };
        let id = mb
            .declare_function(&format!("ext{i}"), sig.clone(), Linkage::External, Some(format!("ext_{i}_impl")))
            .unwrap();
        callees.push((id, sig));
    }
    let mut internal = Vec::new();
    for (i, f) in recipe.functions.iter().enumerate() {
        let sig = FunctionSignature::whale(
            f.params.iter().map(|&(t, _)| pick_type(&SCALARS, t)).collect(),
            if f.ret % 4 == 0 { Type::Void } else { pick_type(&SCALARS, f.ret) },
        );
        let name = if i % 2 == 0 { format!("f{i}") } else { format!("fn #{i}") };
        let id = mb.declare_function(&name, sig.clone(), Linkage::Internal, None).unwrap();
        callees.push((id, sig.clone()));
        internal.push((id, sig));
    }
    // Bodies in a rotated order: storage order may differ from declaration order.
    let n = recipe.functions.len();
    for k in 0..n {
        let i = (k + recipe.order as usize) % n;
        let f = &recipe.functions[i];
        let (id, sig) = internal[i].clone();
        let names = f.params.iter().map(|&(_, name)| pick_type(&NAMES, name).to_string()).collect();
        let body = mb.begin_declared_function(id, names).unwrap();
        build_body(body, f, &sig, &callees, &globals);
    }
    let module = mb.finish();
    if let Err(e) = ir::verify_module(&module) {
        panic!("{e}\n{}", ir::print_module(&module));
    }
    module
}

fn switch_type(b: &BlockRecipe) -> Type {
    pick_type(&[Type::I32, Type::U8, Type::Bool, Type::I128, Type::U64], b.y)
}

/// The distinct keys of a switch recipe, with the recipe's target numbers.
fn switch_cases(b: &BlockRecipe) -> Vec<(ConstValue, u8)> {
    let ty = switch_type(b);
    let mut cases: Vec<(ConstValue, u8)> = Vec::new();
    for &(key, t) in &b.cases {
        let value = constant(&ty, u128::from(key).wrapping_mul(0x1_0000_0001));
        if cases.iter().all(|(k, _)| *k != value) {
            cases.push((value, t));
        }
    }
    cases
}

fn build_body(
    f: ir::FunctionBuilder<'_>,
    recipe: &FunctionRecipe,
    sig: &FunctionSignature,
    callees: &[(FunctionId, FunctionSignature)],
    globals: &[(ir::GlobalId, Type, ConstValue)],
) {
    let n = recipe.blocks.len();
    // The CFG first: forward edges, self-loops (never on the entry), so that phis know their predecessors.
    let target = |i: usize, x: u8| -> usize {
        if x % 8 == 0 && i > 0 {
            i
        } else {
            i + 1 + x as usize % (n - 1 - i)
        }
    };
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, b) in recipe.blocks.iter().enumerate() {
        if i + 1 < n {
            match b.term % 5 {
                1 => succs[i].push(target(i, b.x)),
                2 => succs[i].extend([target(i, b.x), target(i, b.y)]),
                3 => {
                    succs[i].push(target(i, b.x));
                    succs[i].extend(switch_cases(b).into_iter().map(|(_, t)| target(i, t)));
                }
                _ => {}
            }
        }
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, s) in succs.iter().enumerate() {
        for &t in s {
            if !preds[t].contains(&i) {
                preds[t].push(i);
            }
        }
    }
    let mut body = Body {
        f,
        entry: Vec::new(),
        local: Vec::new(),
        in_entry: true,
        consts: Vec::new(),
        callees,
        globals,
        names: 0,
    };
    for k in 0..sig.params.len() {
        let v = body.f.param_value(k);
        body.entry.push((v, sig.params[k].clone()));
    }
    let mut blocks = vec![body.f.entry_block()];
    for b in &recipe.blocks[1..] {
        let name = pick_type(&NAMES, b.name);
        blocks.push(body.f.create_block(name));
    }
    // Seed constants: every scalar type has a value in the entry, for phi inputs from any predecessor.
    for (k, ty) in SCALARS.iter().enumerate() {
        body.constant(ty, k as u128 * 3 + 1);
    }
    let mut phis: Vec<(usize, ValueId, Type)> = Vec::new();
    let mut ends: Vec<Vec<(ValueId, Type)>> = Vec::new();
    for (i, b) in recipe.blocks.iter().enumerate() {
        body.f.set_insert_point(blocks[i]);
        body.in_entry = i == 0;
        body.local.clear();
        body.consts.retain(|c| c.3);
        if i > 0 && !preds[i].is_empty() {
            for &p in &b.phis {
                let ty = pick_type(&SCALARS, p);
                let v = body.f.phi(ty.clone(), &[]);
                body.add(v, ty.clone());
                phis.push((i, v, ty));
            }
        }
        for op in &b.ops {
            body.op(op);
        }
        // The terminator.
        let last = i + 1 == n;
        match if last { b.term % 2 * 4 } else { b.term % 5 } {
            1 => body.f.br(blocks[target(i, b.x)]),
            2 => {
                let cond = body.pick(&Type::Bool, b.y);
                body.f.cbr(cond, blocks[target(i, b.x)], blocks[target(i, b.y)]);
            }
            3 => {
                let scrutinee = body.pick(&switch_type(b), b.x);
                let cases: Vec<_> = switch_cases(b).into_iter().map(|(key, t)| (key, blocks[target(i, t)])).collect();
                body.f.switch(scrutinee, blocks[target(i, b.x)], &cases);
            }
            4 => body.f.trap(pick_type(&["unreachable", "", "trap reason with ☃"], b.x)),
            _ => {
                let ret = if sig.ret == Type::Void { None } else { Some(body.pick(&sig.ret.clone(), b.x)) };
                body.f.ret(ret);
            }
        }
        ends.push(body.local.clone());
    }
    // Phi inputs: one per predecessor, a value available at the end of that predecessor.
    for (i, phi, ty) in phis {
        for (k, &p) in preds[i].iter().enumerate() {
            let mut candidates: Vec<ValueId> = body.entry.iter().filter(|(_, t)| *t == ty).map(|(v, _)| *v).collect();
            if p > 0 {
                candidates.extend(ends[p].iter().filter(|(_, t)| *t == ty).map(|(v, _)| *v));
            }
            let value = candidates[(phi.as_u32() as usize + k * 7) % candidates.len()];
            body.f.add_phi_input(phi, value, blocks[p]);
        }
    }
    body.f.finish();
}

// ---- properties ---------------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Random valid modules, as built and renumbered, round-trip exactly.
    #[test]
    fn random_modules_round_trip(recipe in module()) {
        let module = build(&recipe);
        let bytes = round_trip(&module);
        round_trip(&renumber(&module));
        round_trip(&restart(&module));
        // The dump attributes every byte exactly once.
        let mut listing = Vec::new();
        fr2e::dump(&bytes, &mut listing).unwrap();
        let listing = String::from_utf8(listing).unwrap();
        prop_assert!(!listing.contains("(unattributed)"));
        let listed: usize =
            listing.lines().map(|l| l.split(" | ").nth(1).unwrap_or("").split_whitespace().count()).sum();
        prop_assert_eq!(listed, bytes.len());
    }
}

fn small_image() -> Vec<u8> {
    let mut recipe_module = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    let mut f = recipe_module.begin_function("f", vec![("x".into(), Type::I32)], Type::I32);
    let x = f.param_value(0);
    let one = f.const_i32(1);
    let sum = f.add(Type::I32, x, one);
    let next = f.create_block("next");
    let c = f.icmp(ICmpPred::Slt, Type::I32, sum, x);
    f.cbr(c, next, next);
    f.set_insert_point(next);
    let p = f.phi(Type::I32, &[(sum, BlockId::from_u32(0))]);
    f.ret(Some(p));
    f.finish();
    fr2e::write_module(&recipe_module.finish())
}

proptest! {
    /// Arbitrary bytes never make the reader panic.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = fr2e::read_module(&bytes);
    }

    /// Arbitrary bytes behind a valid root header reach the chunk readers.
    #[test]
    fn arbitrary_payloads_never_panic(payload in prop::collection::vec(any::<u8>(), 0..256)) {
        let mut bytes = (((payload.len() as u32 + 8) << 2) | 2).to_le_bytes().to_vec();
        bytes.extend_from_slice(b"FR2E");
        bytes.extend_from_slice(&payload);
        let _ = fr2e::read_module(&bytes);
        let _ = fr2e::dump(&bytes, &mut std::io::sink());
    }

    /// Mutated valid images (byte changes, truncations, insertions) never make the reader panic, and every error
    /// names an offset inside the input.
    #[test]
    fn mutated_images_never_panic(
        recipe in module(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..4), 1..6),
    ) {
        let mut bytes = fr2e::write_module(&build(&recipe));
        for (at, value, how) in edits {
            let i = at.index(bytes.len().max(1)).min(bytes.len().saturating_sub(1));
            match how {
                0 => bytes[i] = value,
                1 => bytes[i] ^= 1 << (value % 8),
                2 => bytes.truncate(i),
                _ => bytes.insert(i, value),
            }
            if bytes.is_empty() {
                break;
            }
        }
        if let Err(e) = fr2e::read_module(&bytes) {
            prop_assert!(e.offset() <= bytes.len() as u64, "{e}");
        }
        let _ = fr2e::dump(&bytes, &mut std::io::sink());
    }
}

#[test]
fn small_image_mutations_never_panic() {
    // Every single-byte change of a small image, exhaustively.
    let bytes = small_image();
    fr2e::read_module(&bytes).unwrap();
    for i in 0..bytes.len() {
        for value in [0x00, 0x01, 0x02, 0x03, 0x7F, 0x80, 0xFF, bytes[i] ^ 0x10] {
            let mut mutated = bytes.clone();
            mutated[i] = value;
            let _ = fr2e::read_module(&mutated);
            let _ = fr2e::dump(&mutated, &mut std::io::sink());
        }
        let _ = fr2e::read_module(&bytes[..i]);
        let _ = fr2e::dump(&bytes[..i], &mut std::io::sink());
    }
}

/// The recipes reach every opcode of the profile (all but the forbidden `undef`) and the Whale extension tags.
#[test]
fn recipes_cover_every_instruction() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]));
    let mut seen = std::collections::BTreeSet::new();
    let mut tags = std::collections::BTreeSet::new();
    for _ in 0..64 {
        let recipe = module().new_tree(&mut runner).unwrap().current();
        for m in [build(&recipe), renumber(&build(&recipe)), restart(&build(&recipe))] {
            for f in m.functions() {
                seen.extend(f.insts().iter().map(|data| data.opcode()));
            }
            let image = Image::read(&fr2e::write_module(&m)).unwrap();
            for entry in &image.globals {
                if let fr2e::format::Entry::Known(data) = entry {
                    tags.extend(data.extensions.keys().map(|t| t.0));
                    tags.extend(data.args.variables.iter().flat_map(|v| v.extensions.keys().map(|t| t.0)));
                    tags.extend(data.temporaries.variables.iter().flat_map(|v| v.extensions.keys().map(|t| t.0)));
                }
            }
        }
    }
    let missing: Vec<_> = ir::Opcode::ALL.iter().filter(|op| **op != ir::Opcode::Undef && !seen.contains(op)).collect();
    assert!(missing.is_empty(), "not generated: {missing:?}");
    for tag in [0x10, 0x11, 0x13, 0x16, 0x17, 0x18] {
        assert!(tags.contains(&tag), "extension tag {tag:#x} never written; seen {tags:x?}");
    }
}

// ---- profile errors and amendments ------------------------------------------------------------------------------

fn two_functions() -> ir::Module {
    let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    for name in ["first", "second"] {
        let mut f = mb.begin_function(name, vec![("x".into(), Type::I32)], Type::I32);
        let x = f.param_value(0);
        let one = f.const_i32(1);
        let sum = f.add(Type::I32, x, one);
        f.ret(Some(sum));
        f.finish();
    }
    mb.finish()
}

/// Edits the format model of `module`'s image and reads the result.
fn read_edited(module: &ir::Module, edit: impl FnOnce(&mut Image)) -> Result<ir::Module, fr2e::Error> {
    let mut image = Image::read(&fr2e::write_module(module)).unwrap();
    edit(&mut image);
    fr2e::read_module(&image.write().unwrap())
}

fn lift_kind(result: Result<ir::Module, fr2e::Error>) -> fr2e::LiftErrorKind {
    match result {
        Err(fr2e::Error::Lift { kind, offset }) => {
            assert!(offset > 0);
            kind
        }
        other => panic!("expected a profile error, got {other:?}"),
    }
}

#[test]
fn undef_is_written_and_refused_by_the_verifier() {
    // Project decision 1: X_UNDEF reads back, and the verifier reports it.
    let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    let mut f = mb.begin_function("f", vec![], Type::I32);
    let u = f.undef(Type::I32);
    f.ret(Some(u));
    f.finish();
    let bytes = fr2e::try_write_module(&mb.finish()).unwrap();
    let image = Image::read(&bytes).unwrap();
    assert!(image.vops.vops.iter().any(|v| v.opn == fr2e::format::opcode::X_UNDEF));
    match fr2e::read_module(&bytes) {
        Err(fr2e::Error::Verify { error, offset }) => {
            assert!(matches!(*error, ir::VerifyError::ForbiddenUndef { .. }), "{error}");
            assert!(offset > 0);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn compressed_strings_and_root_extensions_read() {
    let module = two_functions();
    let mut image = Image::read(&fr2e::write_module(&module)).unwrap();
    image.compress_strings = true;
    let compressed = fr2e::try_write_module_with(&module, fr2e::WriteOptions { compress_strings: true }).unwrap();
    assert_eq!(compressed, image.write().unwrap());
    let back = fr2e::read_module(&compressed).unwrap();
    assert_eq!(ir::print_module(&back), ir::print_module(&module));
    assert_eq!(fr2e::write_module(&back), fr2e::write_module(&module));
    // A big-endian 32-bit layout travels in 0x15 and reaches the verifier, which refuses it for this target.
    let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout { pointer_bits: 32, endian: ir::Endian::Big });
    let mut f = mb.begin_function("f", vec![], Type::Void);
    f.ret(None);
    f.finish();
    let bytes = fr2e::try_write_module(&mb.finish()).unwrap();
    let image = Image::read(&bytes).unwrap();
    assert_eq!(image.extensions.get(&fr2e::format::Tag::byte(0x15)), Some(&vec![0x20, 0x01]));
    assert!(
        matches!(fr2e::read_module(&bytes), Err(fr2e::Error::Verify { error, .. }) if matches!(*error, ir::VerifyError::Target(_)))
    );
}

#[test]
fn profile_violations_are_reported() {
    use fr2e::format::{opcode, Entry, EntryData, EntryKind, Register, TraceRecord};
    use fr2e::LiftErrorKind as K;
    let m = two_functions();
    let kind =
        lift_kind(read_edited(&m, |i| i.literals.push(Entry::Known(Box::new(EntryData::new(EntryKind::LiteralInfo))))));
    assert_eq!(kind, K::EntryKind { tag: fr2e::format::Tag::LI });
    let kind =
        lift_kind(read_edited(&m, |i| i.globals.push(Entry::Known(Box::new(EntryData::new(EntryKind::GlobalInfo))))));
    assert_eq!(kind, K::EntryKind { tag: fr2e::format::Tag::RI });
    let kind = lift_kind(read_edited(&m, |i| i.vops.vops[2].opn = opcode::LDIX));
    assert_eq!(kind, K::Opcode { opn: opcode::LDIX });
    let kind = lift_kind(read_edited(&m, |i| i.vops.vops[2].prd = Some(1)));
    assert_eq!(kind, K::Predicated);
    let kind = lift_kind(read_edited(&m, |i| i.vops.vops[2].dst = Some(Register::Temporary { base: 1, seq: 1 })));
    assert_eq!(kind, K::Sequence);
    let kind = lift_kind(read_edited(&m, |i| i.vops.vops[2].dst = Some(Register::Temporary { base: 9, seq: 0 })));
    assert_eq!(kind, K::UndeclaredRegister { kind: "temporary", index: 9 });
    let kind = lift_kind(read_edited(&m, |i| i.vops.vops[2].opr = 0x0B));
    assert_eq!(kind, K::Operator { opn: opcode::BINARY, opr: 0x0B });
    let kind = lift_kind(read_edited(&m, |i| i.vops.vops[1].srca = Some(Register::RawDouble(0))));
    assert_eq!(kind, K::BadConstant);
    // The second function's first trace moved onto the first function's VOPs: not in stream order.
    let kind = lift_kind(read_edited(&m, |i| i.traces[2] = TraceRecord::Trace { b_ops: 0, n_ops: 4, flags: 0 }));
    assert!(matches!(kind, K::Invalid(_)), "{kind:?}");
    // A LABEL where an instruction should be: the block before it lacks its terminator.
    let kind = lift_kind(read_edited(&m, |i| i.vops.vops[3] = i.vops.vops[0]));
    assert!(matches!(kind, K::Invalid(_) | K::DuplicateLabel { .. }), "{kind:?}");
}

/// `fn answer() -> i32 { ret 42 }`, byte for byte: the canonical writer's choices of A2-A14 and C2-C7 in one image.
#[test]
fn smallest_function_exact_bytes() {
    let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    let mut f = mb.begin_function("answer", vec![], Type::I32);
    let answer = f.const_i32(42);
    f.ret(Some(answer));
    f.finish();
    let module = mb.finish();
    #[rustfmt::skip]
    let expected: &[u8] = &[
        0x2e, 0x02, 0x00, 0x00, b'F', b'R', b'2', b'E',         // root, 139 bytes (A3)
        0x72, 0x00, 0x00, 0x00, b's', b't', b'r', b's', 0x00,   // strs: the empty string first (A5.2)
        b'x', b'8', b'6', b'_', b'6', b'4', b'-', b'w', b'h', b'a', b'l', b'e', b'-', b'l', b'i', b'n', b'u', b'x', 0x00,
        0x26, 0x00, 0x00, 0x00, b's', b't', b'r', b'i', 0x01,   // stri: #2 at offset 1 (B21)
        0x56, 0x00, 0x00, 0x00, b'v', b'o', b'p', b's',
        0x41, 0x03, 0x13,                                       // LABEL, imm label 1
        0x1d, 0x05, 0x01, 0x02, 0x85, 0x49,                     // MOV type i, dst T0, srca int 42 (C7.1)
        0x15, 0x0c, 0x03, 0x08,                                 // RET, type and register repeats (A13)
        0x3a, 0x00, 0x00, 0x00, b'v', b't', b'r', b's',
        0x00, 0x06, 0x00,                                       // trace: VOP 0, 3 VOPs
        0x00, 0x01, 0x01,                                       // header: 1 trace from #0, GBLD #1
        0xe2, 0x00, 0x00, 0x00, b'G', b'B', b'L', b'D',
        0xc0, 0x00, b'F', b'N',                                 // FN, WORD+TWOCC (48 bytes)
        0x53, b'n', 0x01, b'a', b'n', b's', b'w', b'e', b'r', 0x00,
        0x3b, b's', 0x01, b'(', b')', b'i', 0x00,               // signature ()i
        0x2b, b'f', 0x01, b's', 0x00,                           // internal (C2)
        0x4b, b'R', 0x3b, b'V', 0x2b, b's', 0x01, b'i', 0x00,   // R: T0 is an i32 (C3)
        0x1b, b't', 0x01,                                       // t: header #1
        0x53, 0x11, 0x00, 0x01, b'e', b'n', b't', b'r', b'y', 0x00, // 0x11: %b0 "entry" (C4)
        0x1b, 0x14, 0x04,                                       // 0x14 target: string #2
    ];
    assert_eq!(fr2e::write_module(&module), expected);
    let back = fr2e::read_module(expected).unwrap();
    assert_eq!(ir::print_module(&back), ir::print_module(&module));
}
