//! Property tests: random models survive model -> bytes -> model unchanged and bytes -> model -> bytes byte for
//! byte; arbitrary and mutated bytes never make the reader, `dump` or `disasm` panic, and `dump` fails exactly when
//! the reader does; a symbol index answers what the table's scans answer.
//!
//! Models are built from a recipe of plain data whose operands are small integers resolved modulo the values
//! available at that point, so every recipe yields a model that writes; shrinking works on the recipe.

use llvm13::format::*;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    Binary(u8, u8, u8),
    Compare(u8, u8, u8),
    Select(u8, u8, u8),
    Load(u8),
    Store(u8, u8),
    Call(u8, u8, u8),
    VarCall(u8, Vec<u8>),
    Cast(u8),
    Gep(u8),
}

#[derive(Clone, Debug)]
enum Terminator {
    Ret(u8),
    Br(u8),
    CondBr(u8, u8, u8),
}

/// A block: its steps and its terminator.
type BlockRecipe = (Vec<Step>, Terminator);

#[derive(Clone, Debug)]
struct Recipe {
    globals: Vec<(bool, u8, Option<u8>)>,
    ints: Vec<i32>,
    strings: Vec<[u8; 4]>,
    functions: Vec<Option<Vec<BlockRecipe>>>,
    names: bool,
    flags: (u8, u8),
    triple: Vec<u8>,
}

fn step() -> impl Strategy<Value = Step> {
    let b = any::<u8>;
    prop_oneof![
        (6u8..=13, b(), b()).prop_map(|(o, x, y)| Step::Binary(o, x, y)),
        (14u8..=19, b(), b()).prop_map(|(o, x, y)| Step::Compare(o, x, y)),
        (b(), b(), b()).prop_map(|(c, x, y)| Step::Select(c, x, y)),
        b().prop_map(Step::Load),
        (b(), b()).prop_map(|(v, g)| Step::Store(v, g)),
        (b(), b(), b()).prop_map(|(f, x, y)| Step::Call(f, x, y)),
        (b(), prop::collection::vec(b(), 0..3)).prop_map(|(p, e)| Step::VarCall(p, e)),
        b().prop_map(Step::Cast),
        b().prop_map(Step::Gep),
    ]
}

fn terminator() -> impl Strategy<Value = Terminator> {
    prop_oneof![
        any::<u8>().prop_map(Terminator::Ret),
        any::<u8>().prop_map(Terminator::Br),
        (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(c, t, f)| Terminator::CondBr(c, t, f)),
    ]
}

fn recipe() -> impl Strategy<Value = Recipe> {
    let block = (prop::collection::vec(step(), 0..12), terminator());
    let body = prop::option::of(prop::collection::vec(block, 1..4));
    (
        prop::collection::vec((any::<bool>(), 0u8..5, prop::option::of(any::<u8>())), 0..90),
        prop::collection::vec(any::<i32>(), 0..8),
        prop::collection::vec(any::<[u8; 4]>(), 0..3),
        prop::collection::vec(body, 1..4),
        any::<bool>(),
        (0u8..3, 0u8..3),
        prop::collection::vec(b'a'..=b'z', 0..6),
    )
        .prop_map(|(globals, ints, strings, functions, names, flags, triple)| Recipe {
            globals,
            ints,
            strings,
            functions,
            names,
            flags,
            triple,
        })
}

const INT_PTR: TypeSlot = TypeSlot(13);
const FN: TypeSlot = TypeSlot(15);
const VARARGS_FN: TypeSlot = TypeSlot(17);
const STRING: TypeSlot = TypeSlot(18);

fn build(r: &Recipe) -> Module {
    let linkage = |n: u8| Linkage::from_number(u32::from(n)).unwrap();
    let ng = r.globals.len() as u32;
    let nk = r.ints.len() as u32;
    let nf = r.functions.len() as u32;
    let mut m = Module {
        endianness: [Endianness::Little, Endianness::Big, Endianness::Unspecified][r.flags.0 as usize],
        pointer_size: [PointerSize::Bits32, PointerSize::Bits64, PointerSize::Unspecified][r.flags.1 as usize],
        target_triple: r.triple.clone(),
        types: vec![
            TypeDef::Pointer(TypeSlot::INT),
            TypeDef::Function { ret: TypeSlot::INT, params: vec![TypeSlot::INT, TypeSlot::INT], varargs: false },
            TypeDef::Pointer(TypeSlot(14)),
            TypeDef::Function { ret: TypeSlot::INT, params: vec![INT_PTR], varargs: true },
            TypeDef::Pointer(TypeSlot(16)),
            TypeDef::Array { element: TypeSlot::SBYTE, len: 4 },
        ],
        ..Module::default()
    };
    m.globals = r
        .globals
        .iter()
        .map(|&(constant, l, init)| GlobalVar {
            ty: INT_PTR,
            constant,
            linkage: linkage(l),
            initializer: init.map(|i| u32::from(i) % (nk + 1)),
        })
        .collect();
    m.constants.strings = r.strings.iter().map(|s| StringConstant { ty: STRING, bytes: s.to_vec() }).collect();
    if !r.ints.is_empty() {
        let constants = r.ints.iter().map(|&v| Constant::Signed(i64::from(v))).collect();
        m.constants.planes.push(ConstantPlane { ty: TypeSlot::INT, constants });
    }
    for (i, f) in r.functions.iter().enumerate() {
        let body = f.as_ref().map(|blocks| {
            // Plane sizes as the reader will count them: null, module values, function values so far.
            let mut ints = 1 + nk + 2;
            let mut bools = 1;
            let mut ptrs = 1 + ng;
            let mut longs = 1;
            let nb = blocks.len() as u32;
            let pick = |x: u8, n: u32| u32::from(x) % n;
            let mut out = Vec::new();
            for (steps, term) in blocks {
                let mut instructions = Vec::new();
                let inst = |opcode, ty, operands| Instruction { opcode, ty, operands };
                for s in steps {
                    use Operand::Value as V;
                    let (i, result) = match s {
                        Step::Binary(op, a, b) => {
                            let op = Opcode::from_number(u32::from(*op)).unwrap();
                            (inst(op, TypeSlot::INT, vec![V(pick(*a, ints)), V(pick(*b, ints))]), TypeSlot::INT)
                        }
                        Step::Compare(op, a, b) => {
                            let op = Opcode::from_number(u32::from(*op)).unwrap();
                            (inst(op, TypeSlot::INT, vec![V(pick(*a, ints)), V(pick(*b, ints))]), TypeSlot::BOOL)
                        }
                        Step::Select(c, a, b) => (
                            inst(
                                Opcode::Select,
                                TypeSlot::INT,
                                vec![V(pick(*c, bools)), V(pick(*a, ints)), V(pick(*b, ints))],
                            ),
                            TypeSlot::INT,
                        ),
                        Step::Load(g) => (inst(Opcode::Load, INT_PTR, vec![V(pick(*g, ptrs))]), TypeSlot::INT),
                        Step::Store(v, g) => {
                            (inst(Opcode::Store, INT_PTR, vec![V(pick(*v, ints)), V(pick(*g, ptrs))]), TypeSlot::VOID)
                        }
                        Step::Call(f, a, b) => (
                            inst(Opcode::Call, FN, vec![V(1 + pick(*f, nf)), V(pick(*a, ints)), V(pick(*b, ints))]),
                            TypeSlot::INT,
                        ),
                        Step::VarCall(p, extra) => {
                            let mut ops = vec![V(1), V(pick(*p, ptrs))];
                            ops.extend(
                                extra.iter().map(|&e| Operand::VarArg { ty: TypeSlot::INT, slot: pick(e, ints) }),
                            );
                            (inst(Opcode::Call, VARARGS_FN, ops), TypeSlot::INT)
                        }
                        Step::Cast(a) => (
                            inst(Opcode::Cast, TypeSlot::INT, vec![V(pick(*a, ints)), Operand::Type(TypeSlot::LONG)]),
                            TypeSlot::LONG,
                        ),
                        Step::Gep(g) => (
                            inst(
                                Opcode::GetElementPtr,
                                INT_PTR,
                                vec![
                                    V(pick(*g, ptrs)),
                                    Operand::Index { kind: IndexKind::Long, slot: pick(*g, longs) },
                                ],
                            ),
                            INT_PTR,
                        ),
                    };
                    match result {
                        TypeSlot::INT => ints += 1,
                        TypeSlot::BOOL => bools += 1,
                        TypeSlot::LONG => longs += 1,
                        TypeSlot(13) => ptrs += 1,
                        _ => {}
                    }
                    instructions.push(i);
                }
                instructions.push(match term {
                    Terminator::Ret(a) => inst(Opcode::Ret, TypeSlot::INT, vec![Operand::Value(pick(*a, ints))]),
                    Terminator::Br(b) => inst(Opcode::Br, TypeSlot::LABEL, vec![Operand::Block(pick(*b, nb))]),
                    Terminator::CondBr(c, t, f) => inst(
                        Opcode::Br,
                        TypeSlot::LABEL,
                        vec![
                            Operand::Block(pick(*t, nb)),
                            Operand::Block(pick(*f, nb)),
                            Operand::Value(pick(*c, bools)),
                        ],
                    ),
                });
                out.push(BasicBlock { instructions });
            }
            let mut symbols = SymbolTable::default();
            if r.names {
                symbols.planes.push(SymbolPlane {
                    ty: TypeSlot::INT,
                    entries: vec![
                        Symbol { slot: nk + 1, name: b"a0".to_vec() },
                        Symbol { slot: nk + 2, name: b"a1".to_vec() },
                    ],
                });
                symbols.planes.push(SymbolPlane {
                    ty: TypeSlot::LABEL,
                    entries: vec![Symbol { slot: 0, name: b"entry".to_vec() }],
                });
                symbols.sort();
            }
            FunctionBody { blocks: out, symbols, ..FunctionBody::default() }
        });
        m.functions.push(Function { ty: FN, linkage: linkage(i as u8 % 5), body });
    }
    m.functions.push(Function { ty: VARARGS_FN, linkage: Linkage::External, body: None });
    if r.names {
        m.symbols.types.push(TypeName { ty: STRING, name: b"str".to_vec() });
        let entries = (0..ng).map(|g| Symbol { slot: g + 1, name: format!("g{g}").into_bytes() }).collect();
        m.symbols.planes.push(SymbolPlane { ty: INT_PTR, entries });
        m.symbols
            .planes
            .push(SymbolPlane { ty: VARARGS_FN, entries: vec![Symbol { slot: 1, name: b"printf".to_vec() }] });
        m.symbols.sort();
    }
    m
}

proptest! {
    #[test]
    fn random_models_round_trip(r in recipe()) {
        let m = build(&r);
        let bytes = write_module_checked(&m).unwrap();
        let back = read_module(&bytes).unwrap();
        prop_assert_eq!(&back, &m);
        prop_assert_eq!(write_module_checked(&back).unwrap(), bytes.clone());
        let _ = llvm13::disasm_to_string(&back);
        prop_assert!(llvm13::dump(&bytes, &mut std::io::sink()).is_ok());
    }

    #[test]
    fn mutated_bytes_never_panic(r in recipe(), edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6), cut in any::<usize>()) {
        let mut bytes = write_module_checked(&build(&r)).unwrap();
        for (at, v) in edits {
            let i = at % bytes.len();
            bytes[i] = v;
        }
        for input in [&bytes[..], &bytes[..cut % (bytes.len() + 1)]] {
            let read = read_module(input);
            if let Ok(m) = &read {
                let _ = llvm13::disasm_to_string(m);
                let _ = write_module_checked(m);
            }
            // The dump fails exactly when the reader does, with the reader's error.
            match (llvm13::dump(input, &mut std::io::sink()), read) {
                (Ok(()), Ok(_)) => {}
                (Err(llvm13::DumpError::Read(d)), Err(r)) => prop_assert_eq!(d, r),
                (d, r) => prop_assert!(false, "dump {:?}, read {:?}", d, r.map(|_| ())),
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(tail in prop::collection::vec(any::<u8>(), 0..200), revision in 0u8..4) {
        let mut bytes = b"llvm\x01\0\0\0".to_vec();
        bytes.extend_from_slice(&(tail.len() as u32 + 1).to_le_bytes());
        bytes.push(revision << 4 | 0x0c);
        bytes.extend_from_slice(&tail);
        if let Ok(m) = read_module(&bytes) {
            let _ = llvm13::disasm_to_string(&m);
        }
        let _ = llvm13::dump(&bytes, &mut std::io::sink());
        let _ = read_module(&tail);
    }
}

/// A symbol table of a few planes (some of one type, some slots named twice, some slots far apart) and type names.
fn symbol_table() -> impl Strategy<Value = SymbolTable> {
    let slot = prop_oneof![0u32..24, any::<u32>()];
    let entries = prop::collection::vec((slot, "[a-c]{0,2}"), 0..12);
    let planes = prop::collection::vec((0u32..16, entries), 0..6);
    let types = prop::collection::vec((0u32..16, "[a-c]{1,2}"), 0..6);
    (planes, types).prop_map(|(planes, types)| SymbolTable {
        types: types.into_iter().map(|(ty, name)| TypeName { ty: TypeSlot(ty), name: name.into_bytes() }).collect(),
        planes: planes
            .into_iter()
            .map(|(ty, entries)| SymbolPlane {
                ty: TypeSlot(ty),
                entries: entries.into_iter().map(|(slot, name)| Symbol { slot, name: name.into_bytes() }).collect(),
            })
            .collect(),
    })
}

proptest! {
    #[test]
    fn symbol_index_answers_as_the_scans_do(table in symbol_table()) {
        let index = SymbolIndex::new(&table);
        let slots: Vec<u32> = table.planes.iter().flat_map(|p| p.entries.iter().map(|e| e.slot)).chain(0..26).collect();
        for plane in 0..17 {
            let plane = TypeSlot(plane);
            for &slot in &slots {
                prop_assert_eq!(index.name_of(plane, slot), table.name_of(plane, slot));
            }
            prop_assert_eq!(index.type_name(plane), table.type_name(plane));
        }
        // By canonical plane: planes 13 and 14 searched together, in file order.
        let canon = |p: TypeSlot| if p == TypeSlot(14) { TypeSlot(13) } else { p };
        let index = SymbolIndex::with_planes(&table, canon);
        for &slot in &slots {
            let first = table.planes.iter().filter(|p| canon(p.ty) == TypeSlot(13)).flat_map(|p| &p.entries).find(|e| e.slot == slot);
            prop_assert_eq!(index.name_of(TypeSlot(13), slot), first.map(|e| e.name.as_slice()));
        }
    }
}
