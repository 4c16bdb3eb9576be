//! Constructs one side of the mapping lacks fail with the documented error (`docs/llvm13.md`, "Whale mapping"),
//! naming the construct and where it is: LLVM 1.3 bytecode Whale cannot express (built as format models, written
//! by the format writer, read with `read_whale`), and Whale modules LLVM 1.3 cannot express (`write_whale`).

use ir::{BinOp, CastOp, CheckedOp, DataLayout, FCmpPred, ModuleBuilder, Type};
use llvm13::format::*;
use llvm13::MapError;

// ---- reading: LLVM constructs without a Whale equivalent -------------------------------------------------------

/// Type slots of the hand-built modules.
const FN_INT_INT: TypeSlot = TypeSlot(13); // int (int)
const FN_INT_INT_PTR: TypeSlot = TypeSlot(14); // int (int)*
const INT_PTR: TypeSlot = TypeSlot(15); // int*
const FN_VARARGS: TypeSlot = TypeSlot(16); // void (int, ...)
const FN_VARARGS_PTR: TypeSlot = TypeSlot(17); // void (int, ...)*
const SBYTE_PTR: TypeSlot = TypeSlot(18); // sbyte*

fn inst(opcode: Opcode, ty: TypeSlot, operands: Vec<Operand>) -> Instruction {
    Instruction { opcode, ty, operands }
}

/// `ret int %x`: the argument is slot 1 of the int plane (slot 0 is the null).
fn ret_x() -> Instruction {
    inst(Opcode::Ret, TypeSlot::INT, vec![Operand::Value(1)])
}

fn symbols(entries: &[(TypeSlot, u32, &str)]) -> SymbolTable {
    let mut table = SymbolTable::default();
    for &(ty, slot, name) in entries {
        let symbol = Symbol { slot, name: name.as_bytes().to_vec() };
        match table.planes.iter_mut().find(|p| p.ty == ty) {
            Some(p) => p.entries.push(symbol),
            None => table.planes.push(SymbolPlane { ty, entries: vec![symbol] }),
        }
    }
    table.sort();
    table
}

/// A module with `int %f(int %x)` whose blocks are `blocks`, and the external declaration `void %g(int, ...)`.
fn module_with(blocks: Vec<Vec<Instruction>>) -> Module {
    Module {
        revision: 3,
        types: vec![
            TypeDef::Function { ret: TypeSlot::INT, params: vec![TypeSlot::INT], varargs: false },
            TypeDef::Pointer(FN_INT_INT),
            TypeDef::Pointer(TypeSlot::INT),
            TypeDef::Function { ret: TypeSlot::VOID, params: vec![TypeSlot::INT], varargs: true },
            TypeDef::Pointer(FN_VARARGS),
            TypeDef::Pointer(TypeSlot::SBYTE),
        ],
        functions: vec![
            Function {
                ty: FN_INT_INT_PTR,
                linkage: Linkage::Internal,
                body: Some(FunctionBody {
                    blocks: blocks.into_iter().map(|instructions| BasicBlock { instructions }).collect(),
                    symbols: symbols(&[(TypeSlot::INT, 1, "x")]),
                    ..FunctionBody::default()
                }),
            },
            Function { ty: FN_VARARGS_PTR, linkage: Linkage::External, body: None },
        ],
        symbols: symbols(&[(FN_INT_INT_PTR, 1, "f"), (FN_VARARGS_PTR, 1, "g")]),
        target_triple: b"x86_64-whale-linux".to_vec(),
        ..Module::default()
    }
}

/// Writes `m` (checking that it reads back as itself) and returns the `NoWhaleEquivalent` error of `read_whale`.
fn read_error(m: &Module) -> (String, String) {
    let bytes = write_module_checked(m).expect("the model writes");
    match llvm13::read_whale(&bytes) {
        Err(MapError::NoWhaleEquivalent { construct, location }) => (construct, location),
        other => panic!("expected NoWhaleEquivalent, got {other:?}"),
    }
}

/// The varargs declaration is dropped for the constructs that do not need it.
fn without_g(mut m: Module) -> Module {
    m.functions.truncate(1);
    m.symbols = symbols(&[(FN_INT_INT_PTR, 1, "f")]);
    m
}

#[test]
fn invoke_is_refused() {
    // invoke int (int)* %f(int %x) to label 1 unwind label 2
    let invoke = inst(
        Opcode::Invoke,
        FN_INT_INT_PTR,
        vec![Operand::Value(1), Operand::Block(1), Operand::Block(2), Operand::Value(1)],
    );
    let m = without_g(module_with(vec![vec![invoke], vec![ret_x()], vec![ret_x()]]));
    let (construct, location) = read_error(&m);
    assert_eq!(construct, "instruction `invoke`");
    assert_eq!(location, "function `f`, block 0, instruction 0 (`invoke`)");
}

#[test]
fn unwind_outside_the_trap_convention_is_refused() {
    let m = without_g(module_with(vec![vec![ret_x()], vec![inst(Opcode::Unwind, TypeSlot::VOID, vec![])]]));
    let (construct, location) = read_error(&m);
    assert_eq!(construct, "instruction `unwind`");
    assert_eq!(location, "function `f`, block 1, instruction 1 (`unwind`)");
}

#[test]
fn malloc_is_refused() {
    let m = without_g(module_with(vec![vec![inst(Opcode::Malloc, INT_PTR, vec![]), ret_x()]]));
    let (construct, location) = read_error(&m);
    assert_eq!(construct, "instruction `malloc`");
    assert_eq!(location, "function `f`, block 0, instruction 0 (`malloc`)");
}

#[test]
fn free_is_refused() {
    // %p = alloca int; free int* %p
    let alloca = inst(Opcode::Alloca, INT_PTR, vec![]);
    let free = inst(Opcode::Free, INT_PTR, vec![Operand::Value(1)]);
    let m = without_g(module_with(vec![vec![alloca, free, ret_x()]]));
    let (construct, location) = read_error(&m);
    assert_eq!(construct, "instruction `free`");
    assert_eq!(location, "function `f`, block 0, instruction 1 (`free`)");
}

#[test]
fn vanext_and_vaarg_are_refused() {
    // vanext sbyte* null, int / vaarg sbyte* null, int
    for (opcode, name) in [(Opcode::VaNext, "vanext"), (Opcode::VaArg, "vaarg")] {
        let va = inst(opcode, SBYTE_PTR, vec![Operand::Value(0), Operand::Type(TypeSlot::INT)]);
        let m = without_g(module_with(vec![vec![va, ret_x()]]));
        let (construct, location) = read_error(&m);
        assert_eq!(construct, format!("instruction `{name}`"));
        assert_eq!(location, format!("function `f`, block 0, instruction 0 (`{name}`)"));
    }
}

#[test]
fn varargs_call_is_refused() {
    // call void (int, ...)* %g(int %x, int %x): the callee's varargs type is what Whale lacks.
    let call = inst(
        Opcode::Call,
        FN_VARARGS_PTR,
        vec![Operand::Value(1), Operand::Value(1), Operand::VarArg { ty: TypeSlot::INT, slot: 1 }],
    );
    let m = module_with(vec![vec![call, ret_x()]]);
    let (construct, location) = read_error(&m);
    assert_eq!(construct, "a varargs function type");
    assert_eq!(location, "function %g");
}

#[test]
fn other_calls_of_the_trap_function_are_refused() {
    // %__whale_trap called with a null reason outside `trap_if`'s select.
    let mut m = module_with(vec![vec![]]);
    m.types.push(TypeDef::Function { ret: TypeSlot::VOID, params: vec![SBYTE_PTR], varargs: false }); // 19
    m.types.push(TypeDef::Pointer(TypeSlot(19))); // 20
    m.functions[1] = Function { ty: TypeSlot(20), linkage: Linkage::External, body: None };
    m.symbols = symbols(&[(FN_INT_INT_PTR, 1, "f"), (TypeSlot(20), 1, llvm13::TRAP_FUNCTION)]);
    let call = inst(Opcode::Call, TypeSlot(20), vec![Operand::Value(1), Operand::Value(0)]);
    if let Some(body) = m.functions[0].body.as_mut() {
        body.blocks = vec![BasicBlock { instructions: vec![call, ret_x()] }];
    }
    let (construct, location) = read_error(&m);
    assert_eq!(construct, format!("a call of `{}` outside the trap convention", llvm13::TRAP_FUNCTION));
    assert_eq!(location, "function `f`, block 0, instruction 0 (`call`)");
}

// ---- writing: Whale constructs without an LLVM 1.3 equivalent --------------------------------------------------

fn module() -> ModuleBuilder {
    ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le())
}

/// The `NoLlvmEquivalent` error of writing `m`, which must verify.
fn write_error(m: ir::Module) -> (String, String) {
    ir::verify_module(&m).expect("the module verifies");
    match llvm13::write_whale(&m) {
        Err(MapError::NoLlvmEquivalent { construct, location }) => (construct, location),
        other => panic!("expected NoLlvmEquivalent, got {other:?}"),
    }
}

/// `fn @f(x: T) -> R` whose body `body` builds from the parameter and returns. (`undef` has no LLVM 1.3
/// equivalent either, but no verified module contains it.)
fn function(param: Type, ret: Type, body: impl FnOnce(&mut ir::FunctionBuilder<'_>, ir::ValueId)) -> ir::Module {
    let mut mb = module();
    let mut f = mb.begin_function("f", vec![("x".to_string(), param)], ret);
    let x = f.param_value(0);
    body(&mut f, x);
    f.finish();
    mb.finish()
}

#[test]
fn unrepresentable_types_are_refused() {
    for (ty, name) in [
        (Type::I1, "i1"),
        (Type::U1, "u1"),
        (Type::I128, "i128"),
        (Type::U128, "u128"),
        (Type::F16, "f16"),
        (Type::Ptr(Box::new(Type::Void)), "ptr<void>"),
    ] {
        let (construct, location) = write_error(function(ty, Type::Void, |f, _| f.ret(None)));
        assert_eq!(construct, format!("type {name}"));
        assert_eq!(location, "declaration @f");
    }
}

#[test]
fn aggregate_values_are_refused() {
    let ty = Type::Struct(vec![Type::I32, Type::I64]);
    let (construct, location) = write_error(function(ty, Type::Void, |f, _| f.ret(None)));
    assert_eq!(construct, "a value of aggregate type struct{i32, i64}");
    assert_eq!(location, "declaration @f");
}

#[test]
fn checked_arithmetic_is_refused() {
    let (construct, location) = write_error(function(Type::I32, Type::I32, |f, x| {
        f.checked(CheckedOp::SAdd, Type::I32, x, x);
        f.ret(Some(x));
    }));
    assert_eq!(construct, "instruction `sadd_chk`");
    assert_eq!(location, "function @f, block 0 (`entry`), instruction 0 (`sadd_chk`)");
}

#[test]
fn fcmp_predicates_without_setcc_are_refused() {
    for pred in [FCmpPred::Ueq, FCmpPred::One, FCmpPred::Ult, FCmpPred::Ord, FCmpPred::Uno] {
        let (construct, location) = write_error(function(Type::F64, Type::Bool, |f, x| {
            let c = f.fcmp(pred, Type::F64, x, x);
            f.ret(Some(c));
        }));
        assert_eq!(construct, format!("predicate `fcmp {}` (LLVM 1.3 has no setcc for it)", pred.keyword()));
        assert_eq!(location, "function @f, block 0 (`entry`), instruction 0 (`fcmp`)");
    }
}

#[test]
fn shifts_with_the_wrong_signedness_are_refused() {
    for (op, ty, construct) in [
        (BinOp::Lshr, Type::I32, "instruction `lshr` on a signed type"),
        (BinOp::Ashr, Type::U32, "instruction `ashr` on an unsigned type"),
    ] {
        let (got, location) = write_error(function(ty.clone(), ty.clone(), |f, x| {
            let v = f.bin(op, ty.clone(), x, x);
            f.ret(Some(v));
        }));
        assert_eq!(got, construct);
        assert!(location.starts_with("function @f, block 0 (`entry`), instruction 0 ("), "{location}");
    }
}

#[test]
fn int_float_bitcast_is_refused() {
    let (construct, location) = write_error(function(Type::I64, Type::F64, |f, x| {
        let v = f.cast(CastOp::Bitcast, x, Type::F64);
        f.ret(Some(v));
    }));
    assert!(construct.starts_with("instruction `bitcast` between an integer and a float"), "{construct}");
    assert_eq!(location, "function @f, block 0 (`entry`), instruction 0 (`bitcast`)");
}

#[test]
fn memory_builtins_are_refused() {
    for set in [false, true] {
        let (construct, location) = write_error(function(Type::U64, Type::Void, |f, n| {
            let bytes = Type::Array(Box::new(Type::U8), 16);
            let align = ir::allocation_align(&bytes, ir::Target::X86_64WhaleLinux).unwrap();
            let a = f.alloca(bytes.clone(), align);
            let b = f.alloca(bytes, align);
            let p = f.cast(CastOp::Bitcast, a, Type::Ptr(Box::new(Type::U8)));
            let q = f.cast(CastOp::Bitcast, b, Type::Ptr(Box::new(Type::U8)));
            if set {
                let byte = f.const_u8(0);
                f.memset(p, byte, n, 1);
            } else {
                f.memcpy(p, q, n, 1);
            }
            f.ret(None);
        }));
        let name = if set { "memset" } else { "memcpy" };
        assert_eq!(construct, format!("instruction `{name}`"));
        assert!(location.starts_with("function @f, block 0 (`entry`), instruction "), "{location}");
        assert!(location.ends_with(&format!("(`{name}`)")), "{location}");
    }
}

#[test]
fn non_natural_alignment_is_refused() {
    let (construct, location) = write_error(function(Type::I64, Type::I64, |f, x| {
        let p = f.alloca(Type::I64, 16);
        f.store(Type::I64, x, p, 16);
        f.ret(Some(x));
    }));
    assert_eq!(construct, "alignment 16 (LLVM 1.3 has only the natural alignment, 8)");
    assert_eq!(location, "function @f, block 0 (`entry`), instruction 0 (`alloca`)");
}
