//! Counts and lengths read from a file are checked against the bytes that remain before anything is allocated for
//! them: a count of 2^32 - 1 in a tiny file is a clean error at the count's offset, found at once, from the reader
//! and from `dump` alike. Each file is built by hand with the format layer's encoders (`llvm13.md` §2, §4, §8).

use llvm13::format::block::{begin_block, end_block, BlockId};
use llvm13::format::{pad, read_module, write_string, write_vbr, ReadError, ReadErrorKind};

const MAX: u64 = u32::MAX as u64;

/// A revision 3 file: the module header, then what `blocks` appends (with `out` being the whole file so far, so
/// that padding follows file offsets).
fn file(blocks: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = b"llvm".to_vec();
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    write_vbr(&mut out, 0x3c);
    pad(&mut out);
    blocks(&mut out);
    let size = (out.len() - 12) as u32;
    out[8..12].copy_from_slice(&size.to_le_bytes());
    out
}

/// Appends a block of kind `id` whose content `content` appends; returns the offset of the content.
fn block(out: &mut Vec<u8>, id: BlockId, content: impl FnOnce(&mut Vec<u8>)) -> usize {
    let at = begin_block(out);
    content(out);
    end_block(out, at, id).expect("a small block");
    at + 4
}

/// Appends a type pool of the given encoded types.
fn types(out: &mut Vec<u8>, count: u64, defs: &[u64]) -> usize {
    block(out, BlockId::TypePool, |out| {
        write_vbr(out, count);
        defs.iter().for_each(|&d| write_vbr(out, d));
    })
}

/// Appends a global info block with no globals, `functions` function types, no libraries and no triple.
fn global_info(out: &mut Vec<u8>, functions: &[u64]) {
    block(out, BlockId::GlobalInfo, |out| {
        write_vbr(out, 0);
        functions.iter().for_each(|&f| write_vbr(out, f));
        write_vbr(out, 0);
        write_vbr(out, 0);
        write_string(out, b"");
        pad(out);
    });
}

/// Reads `bytes`, expecting an error at `offset` at once; `dump` must fail with the same error.
fn refused(bytes: &[u8], offset: usize) -> ReadError {
    let start = std::time::Instant::now();
    let e = read_module(bytes).expect_err("the count is refused");
    assert_eq!(e.offset, offset as u64, "{e}");
    match llvm13::dump(bytes, &mut std::io::sink()) {
        Err(llvm13::DumpError::Read(d)) => assert_eq!(d, e),
        other => panic!("{other:?}"),
    }
    assert!(start.elapsed().as_secs() < 5, "refused at once");
    e
}

fn too_large(e: &ReadError) {
    assert!(matches!(e.kind, ReadErrorKind::CountTooLarge { count: MAX, .. }), "{e}");
}

#[test]
fn type_pool_count() {
    let mut at = 0;
    let bytes = file(|out| at = types(out, MAX, &[]));
    too_large(&refused(&bytes, at));
}

#[test]
fn function_type_parameter_count() {
    let mut at = 0;
    // One type: function (13) returning int (7) with 2^32 - 1 parameters.
    let bytes = file(|out| at = types(out, 1, &[13, 7, MAX]) + 3);
    too_large(&refused(&bytes, at));
}

#[test]
fn dependent_library_count() {
    let mut at = 0;
    let bytes = file(|out| {
        types(out, 0, &[]);
        at = block(out, BlockId::GlobalInfo, |out| {
            write_vbr(out, 0);
            write_vbr(out, 0);
            write_vbr(out, MAX);
        }) + 2;
    });
    too_large(&refused(&bytes, at));
}

#[test]
fn constant_plane_count() {
    let mut at = 0;
    let bytes = file(|out| {
        types(out, 0, &[]);
        global_info(out, &[]);
        at = block(out, BlockId::ConstantPool, |out| {
            write_vbr(out, MAX);
            write_vbr(out, 7);
        });
    });
    too_large(&refused(&bytes, at));
}

#[test]
fn constant_expression_operand_count() {
    let mut at = 0;
    let bytes = file(|out| {
        types(out, 0, &[]);
        global_info(out, &[]);
        // One int constant whose operand count (an expression's) is 2^32 - 1.
        at = block(out, BlockId::ConstantPool, |out| [1, 7, MAX].iter().for_each(|&v| write_vbr(out, v))) + 2;
    });
    too_large(&refused(&bytes, at));
}

#[test]
fn array_constant_length() {
    let mut at = 0;
    let bytes = file(|out| {
        // [2^32 - 1 x int], and one plain constant of it.
        types(out, 1, &[15, 7, MAX]);
        global_info(out, &[]);
        at = block(out, BlockId::ConstantPool, |out| [1, 13, 0].iter().for_each(|&v| write_vbr(out, v))) + 2;
    });
    too_large(&refused(&bytes, at));
}

#[test]
fn string_constant_length() {
    let mut at = 0;
    let bytes = file(|out| {
        // [2^32 - 1 x sbyte], and one string of it in the string section (type 0).
        types(out, 1, &[15, 3, MAX]);
        global_info(out, &[]);
        at = block(out, BlockId::ConstantPool, |out| [1, 0, 13].iter().for_each(|&v| write_vbr(out, v))) + 3;
    });
    let e = refused(&bytes, at);
    assert!(matches!(e.kind, ReadErrorKind::UnexpectedEof { .. }), "{e}");
}

#[test]
fn symbol_table_count() {
    let mut at = 0;
    let bytes = file(|out| {
        types(out, 0, &[]);
        global_info(out, &[]);
        at = block(out, BlockId::SymbolTable, |out| write_vbr(out, MAX));
    });
    too_large(&refused(&bytes, at));
}

/// A file with the function `int ()` (types 13, 14 = 13*) whose function block content `body` appends after the
/// linkage.
fn function(body: impl FnOnce(&mut Vec<u8>) -> usize) -> (Vec<u8>, usize) {
    let mut at = 0;
    let bytes = file(|out| {
        types(out, 2, &[13, 7, 0, 16, 13]);
        global_info(out, &[14]);
        block(out, BlockId::Function, |out| {
            write_vbr(out, 0);
            at = body(out);
        });
    });
    (bytes, at)
}

#[test]
fn instruction_operand_count() {
    // A format 0 `ret` (opcode 1) of type int with 2^32 - 1 operands.
    let (bytes, at) = function(|out| {
        block(out, BlockId::InstructionList, |out| [4, 7, MAX].iter().for_each(|&v| write_vbr(out, v))) + 2
    });
    too_large(&refused(&bytes, at));
}

#[test]
fn compaction_table_counts() {
    // The type list's count, then a plane's (the long form: count << 2 | 3, then the plane's type; the count has
    // 30 bits).
    let (bytes, at) = function(|out| block(out, BlockId::CompactionTable, |out| write_vbr(out, MAX)));
    too_large(&refused(&bytes, at));
    let (bytes, at) = function(|out| {
        block(out, BlockId::CompactionTable, |out| [0, MAX << 2 & MAX | 3, 7].iter().for_each(|&v| write_vbr(out, v)))
            + 1
    });
    let e = refused(&bytes, at);
    assert!(matches!(e.kind, ReadErrorKind::CountTooLarge { count, .. } if count == MAX >> 2), "{e}");
}
