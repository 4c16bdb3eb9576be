//! Constants and types that name the same constant or type many times: a file of a few hundred bytes can describe
//! an expression or a type whose inline text is exponentially long. The disassembler prints shared parts again
//! within a budget and elides the rest with `...`; the mapping refuses initializers that expand to too many
//! constants. Neither takes long.

use std::time::{Duration, Instant};

use llvm13::format::*;

/// Sixty levels of sharing: 2^60 leaves when printed in full.
const LEVELS: u32 = 60;

/// `int` constants c0 = 1 and c(k) = add (c(k-1), c(k-1)), and an internal global initialized with the last.
fn shared_constants() -> Module {
    let operand = |slot| ConstantOperand { slot, ty: TypeSlot::INT };
    let mut constants = vec![Constant::Signed(1)];
    // Constant k has slot k + 1 (slot 0 is the null).
    for k in 1..=LEVELS {
        constants.push(Constant::Expr { opcode: Opcode::Add, operands: vec![operand(k), operand(k)] });
    }
    let global =
        GlobalVar { ty: TypeSlot(13), constant: true, linkage: Linkage::Internal, initializer: Some(LEVELS + 1) };
    Module {
        types: vec![TypeDef::Pointer(TypeSlot::INT)],
        globals: vec![global],
        constants: ConstantPool { strings: Vec::new(), planes: vec![ConstantPlane { ty: TypeSlot::INT, constants }] },
        ..Module::default()
    }
}

/// Struct types t0 = { int, int } and t(k) = { t(k-1), t(k-1) }, and an external global of the last.
fn shared_types() -> Module {
    let mut m = Module::default();
    m.types.push(TypeDef::Struct(vec![TypeSlot::INT, TypeSlot::INT]));
    for k in 1..=LEVELS {
        let previous = TypeSlot(13 + k - 1);
        m.types.push(TypeDef::Struct(vec![previous, previous]));
    }
    m.types.push(TypeDef::Pointer(TypeSlot(13 + LEVELS)));
    m.globals.push(GlobalVar {
        ty: TypeSlot(14 + LEVELS),
        constant: false,
        linkage: Linkage::External,
        initializer: None,
    });
    m
}

fn bounded(m: &Module) -> String {
    let bytes = write_module_checked(m).expect("a consistent model");
    let model = read_module(&bytes).expect("reads");
    let start = Instant::now();
    let text = llvm13::disasm_to_string(&model);
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert!(text.len() < 16 << 20, "{} bytes", text.len());
    assert!(text.contains("..."));
    text
}

#[test]
fn shared_constants_print_within_the_budget() {
    let text = bounded(&shared_constants());
    // The first levels are printed in full.
    assert!(text.contains("%1 = internal constant int add (int add (int add ("), "{}", &text[..200]);
}

#[test]
fn shared_types_print_within_the_budget() {
    let text = bounded(&shared_types());
    assert!(text.contains("%1 = external global { { { {"), "{}", &text[..200]);
}

#[test]
fn shared_constants_in_an_initializer_are_refused() {
    let bytes = write_module_checked(&shared_constants()).expect("a consistent model");
    let start = Instant::now();
    let e = llvm13::read_whale(&bytes).expect_err("too many constants");
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert!(e.to_string().contains("more than 65536 constants"), "{e}");
}

/// A constant expression used by more instructions than the listing's budget has repeats is printed at each use:
/// each use is a text of its own, whose few repeats are free.
#[test]
fn a_string_used_at_many_sites_prints_at_each() {
    const SITES: i32 = 70_000;
    let mut m = ir::ModuleBuilder::new("x86_64-whale-linux", ir::DataLayout::default_64bit_le());
    let mut f = m.begin_function("checks", vec![("x".into(), ir::Type::I32)], ir::Type::I32);
    let x = f.param_value(0);
    for i in 0..SITES {
        let c = f.const_i32(i);
        let equal = f.icmp(ir::ICmpPred::Eq, ir::Type::I32, x, c);
        f.trap_if(equal, "hit");
    }
    f.ret(Some(x));
    f.finish();
    let bytes = llvm13::write_whale(&m.finish()).expect("writes");
    let text = llvm13::disasm_to_string(&read_module(&bytes).expect("reads"));
    assert_eq!(
        text.matches("getelementptr ([4 x sbyte]* %1, long 0, long 0)").count(),
        SITES as usize,
        "{}",
        &text[..600]
    );
    assert!(!text.contains("..."));
}
