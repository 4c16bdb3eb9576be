//! Exact-byte tests of the LLVM 1.3 format layer, each derived by hand from `llvm13.md` (the derivation is in the
//! comments): primitive encodings, header forms, instruction formats and the writer's choice, every opcode's operand
//! layout, constants of every kind, a compaction table, symbol tables, varargs calls, and hand-made files of
//! revisions 0, 1 and 2.

use llvm13::format::*;

fn vbr(v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    write_vbr(&mut out, v);
    out
}

fn svbr(v: i64) -> Vec<u8> {
    let mut out = Vec::new();
    write_svbr(&mut out, v);
    out
}

#[test]
fn vbr_bytes() {
    // 7 value bits per byte, least significant group first, bit 7 = more follows (§1).
    assert_eq!(vbr(0), [0x00]);
    assert_eq!(vbr(127), [0x7f]);
    assert_eq!(vbr(128), [0x80, 0x01]);
    assert_eq!(vbr(300), [0xac, 0x02]); // 300 = 2 * 128 + 44; 44 | 0x80 = 0xac
    assert_eq!(vbr(u64::from(u32::MAX)), [0xff, 0xff, 0xff, 0xff, 0x0f]);
    assert_eq!(vbr(1 << 63), [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
    for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), 1 << 63, u64::MAX] {
        assert_eq!(Reader::new(&vbr(v), 0).vbr64().unwrap(), v);
    }
    // A 32-bit vbr of six bytes, or one whose value needs 33 bits, is refused; overlong forms are accepted.
    assert!(Reader::new(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 0).vbr32().is_err());
    assert!(Reader::new(&[0x80, 0x80, 0x80, 0x80, 0x10], 0).vbr32().is_err());
    assert_eq!(Reader::new(&[0x81, 0x00], 0).vbr32().unwrap(), 1);
}

#[test]
fn signed_vbr_bytes() {
    // v >= 0 -> v << 1; v < 0 -> (-v) << 1 | 1 (not zig-zag, §1).
    assert_eq!(svbr(3), [0x06]);
    assert_eq!(svbr(-1), [0x03]);
    assert_eq!(svbr(-3), [0x07]);
    assert_eq!(svbr(0), [0x00]);
    // -2^63 folds to 1 ("minus zero"), which decodes back to -2^63.
    assert_eq!(svbr(i64::MIN), [0x01]);
    assert_eq!(Reader::new(&[0x01], 0).svbr64().unwrap(), i64::MIN);
    for v in [0, 1, -1, 63, -64, i64::MAX, i64::MIN + 1] {
        assert_eq!(Reader::new(&svbr(v), 0).svbr64().unwrap(), v);
    }
}

#[test]
fn strings_words_and_padding() {
    let mut out = Vec::new();
    write_string(&mut out, b"abc");
    assert_eq!(out, [0x03, b'a', b'b', b'c']); // vbr length, bytes, no terminator
    assert_eq!(Reader::new(&out, 0).string().unwrap(), b"abc");
    // Padding is 0xAB up to the next multiple of 4 of the file offset.
    let mut out = vec![1, 2, 3, 4, 5];
    pad(&mut out);
    assert_eq!(out, [1, 2, 3, 4, 5, 0xab, 0xab, 0xab]);
    // The reader skips any padding value, but not past its block.
    let mut r = Reader::new(&[9, 0, 0, 0, 7], 0);
    r.u8().unwrap();
    r.align().unwrap();
    assert_eq!(r.u8().unwrap(), 7);
    let mut r = Reader::new(&[9, 0], 0);
    r.u8().unwrap();
    assert!(r.align().is_err());
    // Floats are raw little-endian IEEE bits.
    let mut r = Reader::new(&[0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f], 0);
    assert_eq!(f32::from_bits(r.u32_le().unwrap()), 1.0);
    assert_eq!(f64::from_bits(r.u64_le().unwrap()), 1.0);
}

#[test]
fn block_header_forms() {
    // Short form: one word, id in bits 0..4, size in bits 5..31: id 7, size 4 -> 7 | 4 << 5 = 0x87.
    let bytes = [0x87, 0, 0, 0, 1, 2, 3, 4, 0xee];
    let mut r = Reader::new(&bytes, 0);
    let (h, content) = read_block(&mut r, HeaderForm::Short).unwrap();
    assert_eq!((h.id, h.size, content.remaining()), (BlockId::InstructionList, 4, 4));
    assert_eq!(r.remaining(), 1);
    // Long form: id word then size word; long id 0x32 is the instruction list of revisions 0..2.
    let bytes = [0x32, 0, 0, 0, 2, 0, 0, 0, 5, 6];
    let (h, content) = read_block(&mut Reader::new(&bytes, 0), HeaderForm::Long).unwrap();
    assert_eq!((h.id, h.size, content.remaining()), (BlockId::InstructionList, 2, 2));
    // Id 0 is reserved; an unknown long id is refused; a size beyond the parent is refused.
    assert!(read_block(&mut Reader::new(&[0x20, 0, 0, 0, 0], 0), HeaderForm::Short).is_err());
    assert!(read_block(&mut Reader::new(&[0x40, 0, 0, 0, 0, 0, 0, 0], 0), HeaderForm::Long).is_err());
    assert!(read_block(&mut Reader::new(&[0x87, 0, 0, 0, 1], 0), HeaderForm::Short).is_err());
    // Unknown short ids are blocks to skip.
    let (h, _) = read_block(&mut Reader::new(&[0x09, 0, 0, 0], 0), HeaderForm::Short).unwrap();
    assert_eq!(h.id, BlockId::Unknown(9));
}

#[test]
fn empty_module_bytes() {
    // "llvm", long module header (id 1, size 20), version 0x3c (revision 3 << 4 | 0x0c: endianness and pointer
    // size unspecified), 3 pad bytes; type pool (id 6, size 1: `00`) + 3 pad; global info (id 5, size 4:
    // `00` no globals, `00` no functions, `00` no libraries, `00` empty triple, already aligned). Empty constant
    // pool and symbol table are omitted.
    let bytes = write_module_checked(&Module::default()).unwrap();
    let expected = [
        b'l', b'l', b'v', b'm', 1, 0, 0, 0, 20, 0, 0, 0, 0x3c, 0xab, 0xab, 0xab, // header
        0x26, 0, 0, 0, 0x00, 0xab, 0xab, 0xab, // type pool: 6 | 1 << 5 = 0x26
        0x85, 0, 0, 0, 0, 0, 0, 0, // global info: 5 | 4 << 5 = 0x85
    ];
    assert_eq!(bytes, expected);
    assert_eq!(read_module(&bytes).unwrap(), Module::default());
    // The module must end exactly at the end of the file.
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(read_module(&longer).unwrap_err().kind, ReadErrorKind::ModuleSize { .. }));
    let limits = Limits { allow_trailing_bytes: true, ..Limits::default() };
    assert!(read_module_with_limits(&longer, &limits).is_ok());
}

#[test]
fn target_flags_triple_and_libraries() {
    let m = Module {
        endianness: Endianness::Big,
        pointer_size: PointerSize::Bits64,
        dependent_libraries: vec![b"c".to_vec()],
        target_triple: b"x86".to_vec(),
        ..Module::default()
    };
    let bytes = write_module_checked(&m).unwrap();
    assert_eq!(bytes[12], 0x33); // revision 3 << 4 | big-endian (1) | 64-bit (2)
                                 // Global info: 00 00 | 01 01 'c' | 03 'x' '8' '6' | pad: content 9 bytes + 3 pad = size 12, header
                                 // 5 | 12 << 5 = 0x185.
    assert_eq!(&bytes[24..40], &[0x85, 0x01, 0, 0, 0, 0, 1, 1, b'c', 3, b'x', b'8', b'6', 0xab, 0xab, 0xab][..]);
    assert_eq!(read_module(&bytes).unwrap(), m);
}

/// Types shared by the instruction tests:
/// 13 int*, 14 {int, int}, 15 {int, int}*, 16 int (int*, {int,int}*), 17 = 16*, 18 int (int*, ...), 19 = 18*,
/// 20 sbyte*.
fn base_types() -> Vec<TypeDef> {
    vec![
        TypeDef::Pointer(TypeSlot::INT),
        TypeDef::Struct(vec![TypeSlot::INT, TypeSlot::INT]),
        TypeDef::Pointer(TypeSlot(14)),
        TypeDef::Function { ret: TypeSlot::INT, params: vec![TypeSlot(13), TypeSlot(15)], varargs: false },
        TypeDef::Pointer(TypeSlot(16)),
        TypeDef::Function { ret: TypeSlot::INT, params: vec![TypeSlot(13)], varargs: true },
        TypeDef::Pointer(TypeSlot(18)),
        TypeDef::Pointer(TypeSlot::SBYTE),
    ]
}

/// A module whose function 0 (type 17, arguments `int* %p` = plane 13 slot 1 and `{int,int}* %s` = plane 15
/// slot 1) has `blocks`; function 1 is a varargs declaration (plane 19 slot 1). Module constants: int 1 and 2
/// (int slots 1, 2), uint 1 (uint slot 1), ubyte 3 (ubyte slot 1), bool true (bool slot 1). Function 0 is plane
/// 17 slot 1. The first int result of the function is int slot 3.
fn module_with(blocks: Vec<Vec<Instruction>>) -> Module {
    let plane = |ty: TypeSlot, constants: Vec<Constant>| ConstantPlane { ty, constants };
    Module {
        types: base_types(),
        functions: vec![
            Function {
                ty: TypeSlot(17),
                linkage: Linkage::External,
                body: Some(FunctionBody {
                    blocks: blocks.into_iter().map(|instructions| BasicBlock { instructions }).collect(),
                    ..FunctionBody::default()
                }),
            },
            Function { ty: TypeSlot(19), linkage: Linkage::External, body: None },
        ],
        constants: ConstantPool {
            strings: Vec::new(),
            planes: vec![
                plane(TypeSlot::BOOL, vec![Constant::Bool(true)]),
                plane(TypeSlot::UBYTE, vec![Constant::Unsigned(3)]),
                plane(TypeSlot::UINT, vec![Constant::Unsigned(1)]),
                plane(TypeSlot::INT, vec![Constant::Signed(1), Constant::Signed(2)]),
            ],
        },
        ..Module::default()
    }
}

/// Blocks of `bytes` at the level of `r`: (id, file offset of content, content).
fn blocks(bytes: &[u8], start: usize, end: usize) -> Vec<(BlockId, usize, Vec<u8>)> {
    let mut r = Reader::new(&bytes[start..end], start as u64);
    let mut out = Vec::new();
    while !r.is_empty() {
        let (h, _) = read_block(&mut r, HeaderForm::Short).unwrap();
        let at = h.offset as usize + 4;
        out.push((h.id, at, bytes[at..at + h.size as usize].to_vec()));
        r.align().unwrap();
    }
    out
}

/// The sub-blocks of function block `index`.
fn function_blocks(bytes: &[u8], index: usize) -> Vec<(BlockId, usize, Vec<u8>)> {
    let (_, at, content) =
        blocks(bytes, 16, bytes.len()).into_iter().filter(|b| b.0 == BlockId::Function).nth(index).unwrap();
    blocks(bytes, at + 1, at + content.len())
}

fn instruction_bytes(m: &Module) -> Vec<u8> {
    let bytes = write_module_checked(m).unwrap();
    assert_eq!(&read_module(&bytes).unwrap(), m);
    function_blocks(&bytes, 0).into_iter().find(|b| b.0 == BlockId::InstructionList).unwrap().2
}

fn inst(opcode: Opcode, ty: u32, operands: Vec<Operand>) -> Instruction {
    Instruction { opcode, ty: TypeSlot(ty), operands }
}

use Operand::{Block as B, Type as T, Value as V};

fn ret_int(slot: u32) -> Instruction {
    inst(Opcode::Ret, 7, vec![V(slot)])
}

#[test]
fn format_1_ret_and_unwind() {
    // ret int 1: 1 | 1 << 2 | 7 << 8 | 1 << 20 = 0x00100705; ret void: operand field 4095 = "none"
    // -> 0xfff00005; unwind: 1 | 5 << 2 | 0xfff << 20 = 0xfff00015 (§11).
    let m =
        module_with(vec![vec![ret_int(1)], vec![inst(Opcode::Ret, 0, vec![])], vec![inst(Opcode::Unwind, 0, vec![])]]);
    assert_eq!(instruction_bytes(&m), [0x05, 0x07, 0x10, 0x00, 0x05, 0x00, 0xf0, 0xff, 0x15, 0x00, 0xf0, 0xff]);
}

#[test]
fn format_2_binary_operators_and_comparisons() {
    // `op int 1, 2`: 2 | op << 2 | 7 << 8 | 1 << 16 | 2 << 24 -> [2 | op << 2, 07, 01, 02]. Arithmetic results
    // are int slots 3.., comparisons go to the bool plane.
    for op in Opcode::ALL.iter().copied().filter(|o| o.is_binary()) {
        let m = module_with(vec![vec![inst(op, 7, vec![V(1), V(2)]), ret_int(1)]]);
        let bytes = instruction_bytes(&m);
        assert_eq!(bytes[..4], [2 | (op.number() as u8) << 2, 0x07, 0x01, 0x02], "{op:?}");
    }
    // add is 6: 2 | 24 = 0x1a (§11: `1a 07 01 02`).
    let m = module_with(vec![vec![inst(Opcode::Add, 7, vec![V(1), V(2)]), ret_int(3)]]);
    assert_eq!(instruction_bytes(&m), [0x1a, 0x07, 0x01, 0x02, 0x05, 0x07, 0x30, 0x00]);
}

#[test]
fn format_3_select_branch_and_gep() {
    // select bool true, int 1, int 2: type field = result type 7; operands 1, 1, 2:
    // 3 | 33 << 2 = 0x87; 7 << 8; 1 << 14; 1 << 20; 2 << 26 -> 0x08104787.
    // br bool true, label 1, label 2 (type field 12 = label): 3 | 2 << 2 = 0x0b; 12 << 8 | 1 << 14 -> 0x4c;
    // 2 << 20 -> 0x20; 1 << 26 -> 0x04 (§11: `0b 4c 20 04`).
    // getelementptr {int,int}* %s, long 0, uint 1: operands 1, (0 << 2) | 3 (long), 1 (struct index, plain)
    // -> 0x67, 0x0f | 1 << 6, 3 << 4, 1 << 2 = `67 4f 30 04` (§11).
    let m = module_with(vec![
        vec![
            inst(Opcode::Select, 7, vec![V(1), V(1), V(2)]),
            inst(
                Opcode::GetElementPtr,
                15,
                vec![
                    V(1),
                    Operand::Index { kind: IndexKind::Long, slot: 0 },
                    Operand::Index { kind: IndexKind::Uint, slot: 1 },
                ],
            ),
            inst(Opcode::Br, 12, vec![B(1), B(2), V(1)]),
        ],
        vec![ret_int(3)],
        vec![ret_int(3)],
    ]);
    let bytes = instruction_bytes(&m);
    assert_eq!(bytes[..12], [0x87, 0x47, 0x10, 0x08, 0x67, 0x4f, 0x30, 0x04, 0x0b, 0x4c, 0x20, 0x04]);
}

#[test]
fn format_0_phi_switch_invoke_and_padding() {
    let m = module_with(vec![
        vec![inst(Opcode::Br, 12, vec![B(1)])],
        // phi int [1, %0], [2, %1]: four operands -> format 0: vbr 26 << 2 = 0x68, vbr 7, vbr 4, 1 0 2 1, pad.
        vec![
            inst(Opcode::Phi, 7, vec![V(1), B(0), V(2), B(1)]),
            // switch int %3, label %0 [int 1, label %1]: 4 operands -> 0x0c 07 04 03 00 01 01, pad.
            inst(Opcode::Switch, 7, vec![V(3), B(0), V(1), B(1)]),
        ],
    ]);
    let bytes = write_module_checked(&m).unwrap();
    let (_, at, list) = function_blocks(&bytes, 0).into_iter().find(|b| b.0 == BlockId::InstructionList).unwrap();
    // br label 1: 1 | 2 << 2 | 12 << 8 | 1 << 20.
    assert_eq!(list[..4], [0x09, 0x0c, 0x10, 0x00]);
    assert_eq!(list[4..11], [0x68, 0x07, 0x04, 0x01, 0x00, 0x02, 0x01]);
    let after_phi = (at + 11).next_multiple_of(4) - at;
    assert!(list[11..after_phi].iter().all(|&b| b == 0xab));
    assert_eq!(list[after_phi..after_phi + 7], [0x0c, 0x07, 0x04, 0x03, 0x00, 0x01, 0x01]);
    assert_eq!((at + list.len()) % 4, 0);

    // invoke int %f(int* %p, {int,int}* %s) to label 1 unwind label 1: callee plane 17 slot 1, blocks, args ->
    // 5 operands, format 0: 4 << 2 = 0x10, type 17 = 0x11, 05, 01 01 01 01 01.
    let m = module_with(vec![vec![inst(Opcode::Invoke, 17, vec![V(1), B(1), B(1), V(1), V(1)])], vec![ret_int(3)]]);
    assert_eq!(instruction_bytes(&m)[..8], [0x10, 0x11, 0x05, 0x01, 0x01, 0x01, 0x01, 0x01]);
}

#[test]
fn memory_cast_call_shift_and_va_operand_layouts() {
    // Each line: the instruction, its word. Type 13 = int*, 20 = sbyte*.
    let cases: Vec<(Instruction, [u8; 4])> = vec![
        // malloc int, uint 1: 1 | 20 << 2 = 0x51; type 13; count = uint slot 1.
        (inst(Opcode::Malloc, 13, vec![V(1)]), [0x51, 0x0d, 0x10, 0x00]),
        // alloca int, uint 1: 22 << 2 | 1 = 0x59.
        (inst(Opcode::Alloca, 13, vec![V(1)]), [0x59, 0x0d, 0x10, 0x00]),
        // free int* %p: 21 << 2 | 1 = 0x55; %p = plane 13 slot 1.
        (inst(Opcode::Free, 13, vec![V(1)]), [0x55, 0x0d, 0x10, 0x00]),
        // load int* %p: 23 << 2 | 1 = 0x5d; volatile load is opcode 62: 62 << 2 | 1 = 0xf9.
        (inst(Opcode::Load, 13, vec![V(1)]), [0x5d, 0x0d, 0x10, 0x00]),
        (inst(Opcode::VolatileLoad, 13, vec![V(1)]), [0xf9, 0x0d, 0x10, 0x00]),
        // store int 1, int* %p: value first, pointer second, type field = pointer type: 24 << 2 | 2 = 0x62;
        // volatile store 63 << 2 | 2 = 0xfe.
        (inst(Opcode::Store, 13, vec![V(1), V(1)]), [0x62, 0x0d, 0x01, 0x01]),
        (inst(Opcode::VolatileStore, 13, vec![V(1), V(1)]), [0xfe, 0x0d, 0x01, 0x01]),
        // cast int 1 to long: the target type is an extra operand: 27 << 2 | 2 = 0x6e, 07, 01, 09.
        (inst(Opcode::Cast, 7, vec![V(1), T(TypeSlot::LONG)]), [0x6e, 0x07, 0x01, 0x09]),
        // call int %f(int* %p, {int,int}* %s): 28 << 2 | 3 = 0x73; type 17 << 8; operands 1, 1, 1.
        (inst(Opcode::Call, 17, vec![V(1), V(1), V(1)]), [0x73, 0x51, 0x10, 0x04]),
        // shl int 1, ubyte 3 (ubyte slot 1): 29 << 2 | 2 = 0x76; shr: 30 << 2 | 2 = 0x7a.
        (inst(Opcode::Shl, 7, vec![V(1), V(1)]), [0x76, 0x07, 0x01, 0x01]),
        (inst(Opcode::Shr, 7, vec![V(1), V(1)]), [0x7a, 0x07, 0x01, 0x01]),
        // vanext sbyte* null, int: 31 << 2 | 2 = 0x7e, type 20, operands 0 and type 7; vaarg: 32 << 2 | 2 = 0x82.
        (inst(Opcode::VaNext, 20, vec![V(0), T(TypeSlot::INT)]), [0x7e, 0x14, 0x00, 0x07]),
        (inst(Opcode::VaArg, 20, vec![V(0), T(TypeSlot::INT)]), [0x82, 0x14, 0x00, 0x07]),
        // alloca without a count (accepted, means 1): format 1 with no operand: 0x59, 13, 0xfff << 20.
        (inst(Opcode::Alloca, 13, vec![]), [0x59, 0x0d, 0xf0, 0xff]),
    ];
    for (i, word) in cases {
        let name = format!("{i:?}");
        let m = module_with(vec![vec![i, ret_int(1)]]);
        assert_eq!(instruction_bytes(&m)[..4], word, "{name}");
    }
}

#[test]
fn varargs_calls_are_format_0_with_type_value_pairs() {
    // call int (int*, ...)* %g(int* %p, int 2): callee = plane 19 slot 1; the fixed argument is a plain slot, the
    // extra one the pair (type 7, slot 2): vbr 28 << 2 = 0x70, type 19 = 0x13, count 4, 01 01 07 02, then padding
    // (§10.4), although four small operands would otherwise fit no short format anyway; with no extra argument the
    // two operands would fit format 2 but a varargs call is still format 0.
    let m = module_with(vec![vec![
        inst(Opcode::Call, 19, vec![V(1), V(1), Operand::VarArg { ty: TypeSlot::INT, slot: 2 }]),
        inst(Opcode::Call, 19, vec![V(1), V(1)]),
        ret_int(1),
    ]]);
    let bytes = write_module_checked(&m).unwrap();
    let (_, at, list) = function_blocks(&bytes, 0).into_iter().find(|b| b.0 == BlockId::InstructionList).unwrap();
    assert_eq!(list[..7], [0x70, 0x13, 0x04, 0x01, 0x01, 0x07, 0x02]);
    let next = (at + 7).next_multiple_of(4) - at;
    assert_eq!(list[next..next + 5], [0x70, 0x13, 0x02, 0x01, 0x01]);
    assert_eq!(read_module(&bytes).unwrap(), m);
}

#[test]
fn writer_format_choice_thresholds() {
    // §10.2: 0/1 operands and every number < 4095 -> 1; 2 and < 256 -> 2; 3 and < 64 -> 3; otherwise 0.
    assert_eq!(choose_format(4094, &[4094], false), 1);
    assert_eq!(choose_format(7, &[4095], false), 0);
    assert_eq!(choose_format(4095, &[], false), 0);
    assert_eq!(choose_format(255, &[255, 0], false), 2);
    assert_eq!(choose_format(7, &[256, 0], false), 0);
    assert_eq!(choose_format(63, &[63, 63, 63], false), 3);
    assert_eq!(choose_format(64, &[0, 0, 0], false), 0);
    assert_eq!(choose_format(7, &[1, 1, 1, 1], false), 0);
    assert_eq!(choose_format(7, &[1], true), 0);
    // add int %a, %b with %b = slot 256 -> format 0: 0x18 (6 << 2), 07, 02, 01, 80 02, pad to 4 bytes of file.
    let mut out = Vec::new();
    assert_eq!(write_raw(&mut out, 6, 7, &[1, 256], false), Some(0));
    assert_eq!(out, [0x18, 0x07, 0x02, 0x01, 0x80, 0x02, 0xab, 0xab]);
    assert_eq!(read_raw(&mut Reader::new(&out, 0)).unwrap().operands, [1, 256]);
    // A format 0 instruction must have operands.
    assert!(read_raw(&mut Reader::new(&[0x04, 0x00, 0x00, 0xab], 0)).is_err());
}

#[test]
fn constants_of_every_kind() {
    // Types: 13 [3 x sbyte], 14 {int, bool}, 15 int*, 16 [2 x int]. Global 0: int (plane 15 slot 1), initializer
    // int slot 2 (= 5).
    let m = Module {
        types: vec![
            TypeDef::Array { element: TypeSlot::SBYTE, len: 3 },
            TypeDef::Struct(vec![TypeSlot::INT, TypeSlot::BOOL]),
            TypeDef::Pointer(TypeSlot::INT),
            TypeDef::Array { element: TypeSlot::INT, len: 2 },
        ],
        globals: vec![GlobalVar { ty: TypeSlot(15), constant: true, linkage: Linkage::Internal, initializer: Some(2) }],
        constants: ConstantPool {
            strings: vec![StringConstant { ty: TypeSlot(13), bytes: b"hi\0".to_vec() }],
            planes: vec![
                ConstantPlane { ty: TypeSlot::BOOL, constants: vec![Constant::Bool(true)] },
                ConstantPlane { ty: TypeSlot::UBYTE, constants: vec![Constant::Unsigned(255)] },
                ConstantPlane { ty: TypeSlot::SBYTE, constants: vec![Constant::Signed(-1)] },
                ConstantPlane { ty: TypeSlot::UINT, constants: vec![Constant::Unsigned(300)] },
                ConstantPlane { ty: TypeSlot::INT, constants: vec![Constant::Signed(-3), Constant::Signed(5)] },
                ConstantPlane { ty: TypeSlot::ULONG, constants: vec![Constant::Unsigned(1 << 63)] },
                ConstantPlane {
                    ty: TypeSlot::LONG,
                    constants: vec![
                        Constant::Signed(i64::MIN),
                        Constant::Expr {
                            opcode: Opcode::Cast,
                            operands: vec![ConstantOperand { slot: 1, ty: TypeSlot::INT }],
                        },
                    ],
                },
                ConstantPlane { ty: TypeSlot::FLOAT, constants: vec![Constant::Float(1f32.to_bits())] },
                ConstantPlane { ty: TypeSlot::DOUBLE, constants: vec![Constant::Double(1f64.to_bits())] },
                ConstantPlane { ty: TypeSlot(14), constants: vec![Constant::Struct(vec![1, 1])] },
                ConstantPlane {
                    ty: TypeSlot(15),
                    constants: vec![Constant::Expr {
                        opcode: Opcode::GetElementPtr,
                        operands: vec![
                            ConstantOperand { slot: 1, ty: TypeSlot(15) },
                            ConstantOperand { slot: 0, ty: TypeSlot::LONG },
                        ],
                    }],
                },
                ConstantPlane { ty: TypeSlot(16), constants: vec![Constant::Array(vec![1, 2])] },
            ],
        },
        ..Module::default()
    };
    let bytes = write_module_checked(&m).unwrap();
    let pool = blocks(&bytes, 16, bytes.len()).into_iter().find(|b| b.0 == BlockId::ConstantPool).unwrap().2;
    #[rustfmt::skip]
    let expected = [
        0x01, 0x00, 0x0d, b'h', b'i', 0x00,            // 1 string, marker 00, type 13, 3 raw bytes
        0x01, 0x01, 0x00, 0x01,                        // bool: count 1, type 1, 0 operands, 1
        0x01, 0x02, 0x00, 0xff, 0x01,                  // ubyte 255 = vbr ff 01
        0x01, 0x03, 0x00, 0x03,                        // sbyte -1 = 1 << 1 | 1
        0x01, 0x06, 0x00, 0xac, 0x02,                  // uint 300
        0x02, 0x07, 0x00, 0x07, 0x00, 0x0a,            // int -3 (3 << 1 | 1), 5 (10)
        0x01, 0x08, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, // ulong 2^63
        0x02, 0x09, 0x00, 0x01, 0x01, 0x1b, 0x01, 0x07, // long -2^63 (01); cast (int slot 1 -> long): 1 operand, opcode 27
        0x01, 0x0a, 0x00, 0x00, 0x00, 0x80, 0x3f,      // float 1.0
        0x01, 0x0b, 0x00, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, // double 1.0
        0x01, 0x0e, 0x00, 0x01, 0x01,                  // {int -3, bool true}: field slots 1, 1
        0x01, 0x0f, 0x02, 0x19, 0x01, 0x0f, 0x00, 0x09, // getelementptr (int* %g, long 0): 2 operands, opcode 25
        0x01, 0x10, 0x00, 0x01, 0x02,                  // [2 x int] [-3, 5]
    ];
    assert_eq!(pool, expected);
    // Global info: gvar word = constant 1 | has init 2 | internal 3 << 2 | type 15 << 5 = 0x1ef -> ef 03, init 02.
    let info = blocks(&bytes, 16, bytes.len()).into_iter().find(|b| b.0 == BlockId::GlobalInfo).unwrap().2;
    assert_eq!(info[..4], [0xef, 0x03, 0x02, 0x00]);
    assert_eq!(read_module(&bytes).unwrap(), m);
    let text = llvm13::disasm_to_string(&m);
    assert!(text.contains("internal constant int 5"), "{text}");
}

#[test]
fn constant_reader_rejects_out_of_range_values() {
    let mut m = Module::default();
    m.constants.planes.push(ConstantPlane { ty: TypeSlot::UBYTE, constants: vec![Constant::Unsigned(255)] });
    let mut bytes = write_module_checked(&m).unwrap();
    // The pool is `01 02 00 ff 01`; make the value 256 (`80 02`) and then a bool of 2.
    let at = bytes.windows(5).position(|w| w == [0x01, 0x02, 0x00, 0xff, 0x01]).unwrap();
    bytes[at + 3] = 0x80;
    bytes[at + 4] = 0x02;
    assert!(matches!(read_module(&bytes).unwrap_err().kind, ReadErrorKind::IntegerOutOfRange { .. }));
    bytes[at + 1] = 0x01; // bool plane, vbr 256
    assert!(matches!(read_module(&bytes).unwrap_err().kind, ReadErrorKind::InvalidBool { .. }));
}

#[test]
fn compaction_table_for_a_high_global_slot() {
    // 70 globals of type 13 (int*) take int* slots 1..70. A function loading global 65 (slot 66) references a
    // module slot >= 64 in a plane of 71 values, so the int* plane is compacted (§12); no pointer type sits at
    // slot 64 or above, so there is no type list: content `00`, then the packed plane word 13 << 2 | 1 = 0x35 and
    // the entry 66 = 0x42. The load then names local slot 1: `5d 0d 10 00`; its result is int slot 1.
    let mut m = Module {
        types: vec![
            TypeDef::Pointer(TypeSlot::INT),
            TypeDef::Function { ret: TypeSlot::INT, params: vec![], varargs: false },
            TypeDef::Pointer(TypeSlot(14)),
        ],
        ..Module::default()
    };
    m.globals = (0..70)
        .map(|_| GlobalVar { ty: TypeSlot(13), constant: false, linkage: Linkage::External, initializer: None })
        .collect();
    let body = FunctionBody {
        blocks: vec![BasicBlock { instructions: vec![inst(Opcode::Load, 13, vec![V(66)]), ret_int(1)] }],
        ..FunctionBody::default()
    };
    m.functions.push(Function { ty: TypeSlot(15), linkage: Linkage::External, body: Some(body) });
    let bytes = write_module_checked(&m).unwrap();
    let sub = function_blocks(&bytes, 0);
    assert_eq!(sub[0].0, BlockId::CompactionTable);
    assert_eq!(sub[0].2, [0x00, 0x35, 0x42]);
    assert_eq!(sub[1].2, [0x5d, 0x0d, 0x10, 0x00, 0x05, 0x07, 0x10, 0x00]);
    assert_eq!(read_module(&bytes).unwrap(), m);

    // Loading global 10 (slot 11) instead: every referenced slot is below 64 and the function defines nothing in
    // the plane, so no table is written and the operand is the global slot itself.
    let f = m.functions[0].body.as_mut().unwrap();
    f.blocks[0].instructions[0] = inst(Opcode::Load, 13, vec![V(11)]);
    let bytes = write_module_checked(&m).unwrap();
    let sub = function_blocks(&bytes, 0);
    assert_eq!(sub.len(), 1);
    assert_eq!(sub[0].2[..4], [0x5d, 0x0d, 0xb0, 0x00]);
}

#[test]
fn symbol_tables() {
    // Module: type 14 named "pair", function 0 (plane 16 slot 1) named "f". Function: argument (int slot 1) "a",
    // block 0 "entry", the add result (int slot 2) "x".
    let mut m = Module {
        types: vec![
            TypeDef::Function { ret: TypeSlot::INT, params: vec![TypeSlot::INT], varargs: false },
            TypeDef::Struct(vec![TypeSlot::INT, TypeSlot::INT]),
            TypeDef::Pointer(TypeSlot(13)),
        ],
        ..Module::default()
    };
    let mut fsyms = SymbolTable {
        types: vec![],
        planes: vec![
            SymbolPlane { ty: TypeSlot::LABEL, entries: vec![Symbol { slot: 0, name: b"entry".to_vec() }] },
            SymbolPlane {
                ty: TypeSlot::INT,
                entries: vec![Symbol { slot: 2, name: b"x".to_vec() }, Symbol { slot: 1, name: b"a".to_vec() }],
            },
        ],
    };
    fsyms.sort();
    let body = FunctionBody {
        blocks: vec![BasicBlock { instructions: vec![inst(Opcode::Add, 7, vec![V(1), V(1)]), ret_int(2)] }],
        symbols: fsyms,
        ..FunctionBody::default()
    };
    m.functions.push(Function { ty: TypeSlot(15), linkage: Linkage::Internal, body: Some(body) });
    m.symbols = SymbolTable {
        types: vec![TypeName { ty: TypeSlot(14), name: b"pair".to_vec() }],
        planes: vec![SymbolPlane { ty: TypeSlot(15), entries: vec![Symbol { slot: 1, name: b"f".to_vec() }] }],
    };
    let bytes = write_module_checked(&m).unwrap();
    // Module table: 1 type name (14, "pair"); plane: count 1, type 15, (slot 1, "f").
    let top = blocks(&bytes, 16, bytes.len());
    let (id, _, table) = top.last().unwrap();
    assert_eq!(*id, BlockId::SymbolTable);
    assert_eq!(*table, [0x01, 0x0e, 0x04, b'p', b'a', b'i', b'r', 0x01, 0x0f, 0x01, 0x01, b'f']);
    // Function table after sorting: no type names; plane 7 sorted by name: (1 "a"), (2 "x"); plane 12: (0 "entry").
    let sub = function_blocks(&bytes, 0);
    assert_eq!(sub[1].0, BlockId::SymbolTable);
    assert_eq!(
        sub[1].2,
        [0x00, 0x02, 0x07, 0x01, 0x01, b'a', 0x02, 0x01, b'x', 0x01, 0x0c, 0x00, 0x05, b'e', b'n', b't', b'r', b'y']
    );
    // Function block starts with the linkage vbr 3 (internal).
    let (_, at, _) = top.iter().find(|b| b.0 == BlockId::Function).unwrap();
    assert_eq!(bytes[*at], 3);
    assert_eq!(read_module(&bytes).unwrap(), m);
    let text = llvm13::disasm_to_string(&m);
    assert!(text.contains("%pair = type { int, int }"), "{text}");
    assert!(text.contains("internal int %f(int %a) {\nentry:\n\t%x = add int %a, %a\n\tret int %x\n}"), "{text}");
}

/// Revision 2 (LLVM 1.2.5): long headers with old block ids, 1.3 type ids, no libraries or triple.
/// `int %f() { ret int 0 }` with types 13 = int (), 14 = 13*.
#[rustfmt::skip]
const REVISION_2: [u8; 68] = [
    b'l', b'l', b'v', b'm', 0x01, 0, 0, 0, 56, 0, 0, 0, // module, size 68 - 12 = 56
    0x2c, 0xab, 0xab, 0xab,                  // 2 << 4 | 0x0c, padding to offset 16
    0x15, 0, 0, 0, 6, 0, 0, 0,               // type pool (0x15), 6 bytes at 24
    0x02, 0x0d, 0x07, 0x00, 0x10, 0x0d,      // 2 types: function (13) int, 0 params; pointer (16) to 13
    0xab, 0xab,                              // to offset 32
    0x14, 0, 0, 0, 3, 0, 0, 0,               // global info (0x14), 3 bytes at 40
    0x00, 0x0e, 0x00,                        // no globals; function of type 14; end
    0xab,                                    // to offset 44
    0x11, 0, 0, 0, 16, 0, 0, 0,              // function (0x11), 16 bytes at 52
    0x00,                                    // linkage external (unaligned)
    0x32, 0, 0, 0, 4, 0, 0, 0,               // instruction list (0x32) at 53, 4 bytes at 61
    0x05, 0x07, 0x00, 0x00,                  // ret int 0 (the null): format 1, operand 0
    0xab, 0xab, 0xab,                        // to offset 68, inside the function block
];

fn ret_zero_module(revision: u32) -> Module {
    Module {
        revision,
        types: vec![
            TypeDef::Function { ret: TypeSlot::INT, params: vec![], varargs: false },
            TypeDef::Pointer(TypeSlot(13)),
        ],
        functions: vec![Function {
            ty: TypeSlot(14),
            linkage: Linkage::External,
            body: Some(FunctionBody {
                blocks: vec![BasicBlock { instructions: vec![ret_int(0)] }],
                ..FunctionBody::default()
            }),
        }],
        ..Module::default()
    }
}

#[test]
fn revision_2_file() {
    let m = read_module(&REVISION_2).unwrap();
    assert_eq!(m, ret_zero_module(2));
    assert!(matches!(write_module_checked(&m), Err(WriteError::Revision { revision: 2 })));
    // As revision 3 the same model writes with short headers and a triple field.
    let m3 = Module { revision: 3, ..m };
    assert_eq!(read_module(&write_module_checked(&m3).unwrap()).unwrap(), m3);
}

#[test]
fn revision_1_file() {
    // Revision 1 (LLVM 1.2): types are values. Type ids above 12 are one higher (function 14, pointer 17, and
    // slot 13 is written 14), and the type pool has the type-plane id 12 after its count.
    #[rustfmt::skip]
    let bytes: [u8; 68] = [
        b'l', b'l', b'v', b'm', 0x01, 0, 0, 0, 56, 0, 0, 0,
        0x1c, 0xab, 0xab, 0xab,                  // 1 << 4 | 0x0c
        0x15, 0, 0, 0, 7, 0, 0, 0,               // type pool, 7 bytes at 24
        0x02, 0x0c, 0x0e, 0x07, 0x00, 0x11, 0x0e, // 2 types, plane id 12; function (14) int (); pointer (17) to 14
        0xab,                                    // to 32
        0x14, 0, 0, 0, 3, 0, 0, 0,
        0x00, 0x0f, 0x00,                        // function type slot 15 (= 14 in 1.3 numbering)
        0xab,
        0x11, 0, 0, 0, 16, 0, 0, 0,
        0x00,
        0x32, 0, 0, 0, 4, 0, 0, 0,
        0x05, 0x07, 0x00, 0x00,                  // ret int 0: primitive ids are unchanged
        0xab, 0xab, 0xab,
    ];
    assert_eq!(read_module(&bytes).unwrap(), ret_zero_module(1));
}

#[test]
fn revision_0_file() {
    // Revision 0 (LLVM 1.0/1.1): as revision 1, plus explicit primitive zeros (int slot 0 is the written constant
    // 0, not an implicit null) and alignment inside the global info block after the function list.
    #[rustfmt::skip]
    let bytes: [u8; 80] = [
        b'l', b'l', b'v', b'm', 0x01, 0, 0, 0, 68, 0, 0, 0,
        0x0c, 0xab, 0xab, 0xab,
        0x15, 0, 0, 0, 7, 0, 0, 0,
        0x02, 0x0c, 0x0e, 0x07, 0x00, 0x11, 0x0e,
        0xab,                                    // to 32
        0x14, 0, 0, 0, 4, 0, 0, 0,               // global info: 3 bytes + 1 byte of padding inside = 4
        0x00, 0x0f, 0x00, 0xab,
        0x12, 0, 0, 0, 4, 0, 0, 0,               // constant pool (0x12) at 44, 4 bytes at 52
        0x01, 0x07, 0x00, 0x00,                  // 1 int constant: 0 (takes int slot 0)
        0x11, 0, 0, 0, 16, 0, 0, 0,              // function at 56, content at 64
        0x00,
        0x32, 0, 0, 0, 4, 0, 0, 0,
        0x05, 0x07, 0x00, 0x00,                  // ret int <slot 0> = the explicit zero
        0xab, 0xab, 0xab,
    ];
    let mut expected = ret_zero_module(0);
    expected.constants.planes.push(ConstantPlane { ty: TypeSlot::INT, constants: vec![Constant::Signed(0)] });
    assert_eq!(read_module(&bytes).unwrap(), expected);
    // Without the explicit zero, int slot 0 does not exist in revision 0.
    let mut r0 = bytes;
    r0[52] = 0x00; // zero constants in the plane
    assert!(read_module(&r0[..]).is_err());
}

#[test]
fn strict_reader_errors_carry_offsets() {
    let good = write_module_checked(&ret_zero_module(3)).unwrap();
    assert!(read_module(&good).is_ok());
    // Revision 4 is refused at the version word (offset 12).
    let mut bad = good.clone();
    bad[12] = 0x4c;
    let e = read_module(&bad).unwrap_err();
    assert_eq!((e.kind.clone(), e.offset), (ReadErrorKind::UnsupportedRevision { revision: 4 }, 12));
    // A wrong magic.
    let mut bad = good.clone();
    bad[0] = b'x';
    assert!(matches!(read_module(&bad).unwrap_err().kind, ReadErrorKind::BadMagic { .. }));
    // Any padding value is accepted.
    let mut padded = good.clone();
    padded[13] = 0;
    assert_eq!(read_module(&padded).unwrap(), ret_zero_module(3));
    // A truncated file is refused.
    assert!(read_module(&good[..good.len() - 1]).is_err());
}

/// The listing of [`REVISION_2`].
const REVISION_2_DUMP: &str = r#"00000000: magic "llvm"
00000004: <module id=1 long header, size=56>
0000000c:   version word 0x2c: revision 2, big-endian 0, 64-bit 0, endianness unspecified 1, pointer size unspecified 1
0000000d:   padding [ab, ab, ab]
00000010:   <type pool id=0x15 long header, size=6>
00000018:     2 types
00000019:     type slot 13: Function { ret: TypeSlot(7), params: [], varargs: false }
0000001c:     type slot 14: Pointer(TypeSlot(13))
0000001e:   </type pool>
0000001e:   padding [ab, ab]
00000020:   <global info id=0x14 long header, size=3>
00000028:     end of global variables
00000029:     function: type slot 14
0000002a:     end of functions
0000002b:   </global info>
0000002b:   padding [ab]
0000002c:   <function id=0x11 long header, size=16>
00000034:     linkage 0
00000035:     <instruction list id=0x32 long header, size=4>
0000003d:       format 1 ret (1) type 7 operands [0]  [05 07 00 00]
00000041:     </instruction list>
00000041:     padding [ab, ab, ab]
00000044:   </function>
00000044: </module>
"#;

/// The disassembly of [`REVISION_2`].
const REVISION_2_DISASM: &str = "; LLVM bytecode format revision 2\n\
\n\
implementation   ; Functions:\n\
\n\
int %1() {\n\
; <label>:0\n\
\tret int 0\n\
}\n\
";

#[test]
fn revision_2_disassembles() {
    assert_eq!(llvm13::disasm_to_string(&read_module(&REVISION_2).unwrap()), REVISION_2_DISASM);
}

#[test]
fn dump_lists_blocks_and_instructions() {
    let mut text = Vec::new();
    llvm13::dump(&REVISION_2, &mut text).unwrap();
    assert_eq!(String::from_utf8(text).unwrap(), REVISION_2_DUMP);
    // Cut inside the function block: the blocks before it are listed, and the error is the reader's.
    let mut partial = Vec::new();
    let e = llvm13::dump(&REVISION_2[..60], &mut partial).unwrap_err();
    let llvm13::DumpError::Read(e) = e else { panic!("{e}") };
    assert_eq!(e, read_module(&REVISION_2[..60]).unwrap_err());
    let partial = String::from_utf8(partial).unwrap();
    assert!(partial.ends_with("0000002b:   padding [ab]\n"), "{partial}");
    assert!(REVISION_2_DUMP.starts_with(&partial));
}
