//! The Whale mapping: random LLVM-representable modules survive Whale → bytecode → Whale with identical printed
//! text and bytecode → model → bytecode byte for byte; unrepresentable constructs fail naming the construct; the W1
//! workload and the representable examples convert and run the same in the interpreter.

use ir::{BinOp, CastOp, DataLayout, FCmpPred, ICmpPred, ModuleBuilder, Type, ValueId};
use proptest::prelude::*;

fn round_trip(module: &ir::Module) {
    ir::verify_module(module).unwrap();
    let text = ir::print_module(module);
    let bytes = llvm13::write_whale(module).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let back = llvm13::read_whale(&bytes).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(ir::print_module(&back), text);
    let model = llvm13::read_module(&bytes).unwrap();
    assert_eq!(llvm13::format::write_module_checked(&model).unwrap(), bytes);
    assert_eq!(llvm13::write_whale(&back).unwrap(), bytes);
}

const TYPES: [Type; 6] = [Type::I32, Type::I64, Type::U32, Type::U64, Type::I8, Type::U8];

fn build(steps: &[(u8, u8, u8)], blocks: u8) -> ir::Module {
    let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    let params = vec![("a".to_string(), Type::I32), ("b".to_string(), Type::I64), ("c".to_string(), Type::U32)];
    let mut f = mb.begin_function("f", params, Type::I64);
    let mut vals: Vec<(ValueId, Type)> =
        vec![(f.param_value(0), Type::I32), (f.param_value(1), Type::I64), (f.param_value(2), Type::U32)];
    let mut bools: Vec<ValueId> = Vec::new();
    let pick = |vals: &[(ValueId, Type)], ty: &Type, n: u8| {
        let c: Vec<_> = vals.iter().filter(|(_, t)| t == ty).map(|(v, _)| *v).collect();
        (!c.is_empty()).then(|| c[n as usize % c.len()])
    };
    for &(kind, a, b) in steps {
        let ty = TYPES[a as usize % TYPES.len()].clone();
        let x = match pick(&vals, &ty, b) {
            Some(x) => x,
            None => {
                let v = if matches!(ty, Type::I32 | Type::I64 | Type::I8) {
                    f.const_int(ty.clone(), i128::from(b as i8))
                } else {
                    f.const_uint(ty.clone(), u128::from(b))
                };
                vals.push((v, ty.clone()));
                v
            }
        };
        let y = pick(&vals, &ty, a.wrapping_add(b)).unwrap_or(x);
        match kind % 9 {
            0..=2 => {
                let ops = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::And, BinOp::Or, BinOp::Xor, BinOp::Shl];
                let mut op = ops[b as usize % ops.len()];
                if kind % 9 == 2 {
                    op = if matches!(ty, Type::I32 | Type::I64 | Type::I8) { BinOp::Ashr } else { BinOp::Lshr };
                }
                let v = f.bin(op, ty.clone(), x, y);
                vals.push((v, ty));
            }
            3 => {
                let preds = [ICmpPred::Eq, ICmpPred::Ne];
                let signed = [ICmpPred::Slt, ICmpPred::Sle, ICmpPred::Sgt, ICmpPred::Sge];
                let unsigned = [ICmpPred::Ult, ICmpPred::Ule, ICmpPred::Ugt, ICmpPred::Uge];
                let p = match (b % 3, matches!(ty, Type::I32 | Type::I64 | Type::I8)) {
                    (0, _) => preds[a as usize % 2],
                    (_, true) => signed[a as usize % 4],
                    _ => unsigned[a as usize % 4],
                };
                bools.push(f.icmp(p, ty, x, y));
            }
            4 if !bools.is_empty() => {
                let c = bools[b as usize % bools.len()];
                let v = f.select(ty.clone(), c, x, y);
                vals.push((v, ty));
            }
            5 => {
                let to = TYPES[b as usize % TYPES.len()].clone();
                let bits = |t: &Type| match t {
                    Type::I8 | Type::U8 => 8,
                    Type::I32 | Type::U32 => 32,
                    _ => 64,
                };
                let op = match bits(&ty).cmp(&bits(&to)) {
                    std::cmp::Ordering::Less if b % 2 == 0 => CastOp::Zext,
                    std::cmp::Ordering::Less => CastOp::Sext,
                    std::cmp::Ordering::Greater => CastOp::Trunc,
                    std::cmp::Ordering::Equal if ty != to => CastOp::Bitcast,
                    std::cmp::Ordering::Equal => continue,
                };
                let v = f.cast(op, x, to.clone());
                vals.push((v, to));
            }
            6 => {
                let v = f.not(ty.clone(), x);
                vals.push((v, ty));
            }
            7 if !bools.is_empty() => {
                f.trap_if(bools[a as usize % bools.len()], if b % 2 == 0 { "overflow" } else { "bad" })
            }
            8 => {
                let d = f.const_f64(f64::from(a) / 4.0);
                let e = f.const_f64(f64::from(b));
                let s = f.fadd(Type::F64, d, e);
                let preds = [FCmpPred::Oeq, FCmpPred::Une, FCmpPred::Olt, FCmpPred::Ole, FCmpPred::Ogt, FCmpPred::Oge];
                bools.push(f.fcmp(preds[a as usize % 6], Type::F64, s, d));
            }
            _ => {}
        }
    }
    let ret = pick(&vals, &Type::I64, 0).unwrap_or(vals[1].0);
    let blocks: Vec<_> =
        if bools.is_empty() { Vec::new() } else { (0..blocks % 3).map(|i| f.create_block(&format!("b{i}"))).collect() };
    if let (Some(&c), Some(&first)) = (bools.first(), blocks.first()) {
        let other = *blocks.last().unwrap_or(&first);
        f.cbr(c, first, other);
        for (i, &blk) in blocks.iter().enumerate() {
            f.set_insert_point(blk);
            if i % 2 == 0 {
                f.ret(Some(ret));
            } else {
                f.trap("unreachable");
            }
        }
    } else {
        f.ret(Some(ret));
    }
    f.finish();
    mb.finish()
}

proptest! {
    #[test]
    fn random_modules_round_trip(steps in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..40), blocks in any::<u8>()) {
        round_trip(&build(&steps, blocks));
    }
}

#[test]
fn unrepresentable_constructs_name_themselves() {
    let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    let mut f = mb.begin_function("wide", vec![], Type::I128);
    let v = f.const_i128(1);
    f.ret(Some(v));
    f.finish();
    let err = llvm13::write_whale(&mb.finish()).unwrap_err().to_string();
    assert!(err.contains("type i128") && err.contains("has no LLVM 1.3 equivalent"), "{err}");

    let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
    let mut f = mb.begin_function("f", vec![], Type::Bool);
    let x = f.const_f64(1.0);
    let v = f.fcmp(FCmpPred::Ueq, Type::F64, x, x);
    f.ret(Some(v));
    f.finish();
    let err = llvm13::write_whale(&mb.finish()).unwrap_err().to_string();
    assert!(err.contains("fcmp ueq") && err.contains("function @f, block 0"), "{err}");
}

#[test]
fn w1_round_trips() {
    #[path = "../../ir/benches/workloads.rs"]
    mod workloads;
    round_trip(&workloads::w1(2_000));
}
