//! The writer: a [`Module`] to revision 3 bytes, making the encoding choices of the LLVM 1.3 writer
//! (`llvm13.md` §2, §10.2, §12).
//!
//! The model fixes every order (types, values, constants, symbols), so the writer only chooses encodings: short
//! headers inside the long module header, 0xAB padding after the version word, every block, every format 0
//! instruction and the target triple; empty module and function constant pools, compaction tables and symbol tables
//! omitted; the instruction format of §10.2; a compaction table when the 1.3 thresholds say it pays.
//! [`write_module_checked`] also reads the result back, so every model it accepts reads back equal to itself.

use super::block::{begin_block, end_block, end_block_or_omit, BlockId};
use super::compaction::{decide, keeps_types, Compaction, Use};
use super::constant::write_constant;
use super::error::WriteError;
use super::instruction::{write_raw, Operand};
use super::limits::REVISION;
use super::module::{Endianness, Function, FunctionBody, Module, PointerSize};
use super::planes::{is_index_plane, module_planes, Planes};
use super::primitives::{pad, write_string, write_vbr};
use super::read::read_module;
use super::symtab::SymbolTable;
use super::types::{write_type_def, TypeSlot, Types};
use super::typing::{analyze_into, Analysis, PointerIndex, Pointers};

/// Writes `m` as revision 3 bytecode, in time linear in the model.
///
/// The writer checks what it needs to encode (revision, type slots, terminators, operand shapes, compaction) but does
/// not read its output back; [`write_module_checked`] does, for callers that build models by hand.
///
/// ```
/// let bytes = llvm13::format::write_module(&llvm13::format::Module::default()).unwrap();
/// assert_eq!(&bytes[..4], b"llvm");
/// assert_eq!(bytes[12], 0x3c); // revision 3, endianness and pointer size unspecified
/// ```
pub fn write_module(m: &Module) -> Result<Vec<u8>, WriteError> {
    if m.revision != REVISION {
        return Err(WriteError::Revision { revision: m.revision });
    }
    let types = Types::module(&m.types);
    let planes = module_planes(m);
    let pointers = PointerIndex::new(&types);
    let keep_types = keeps_types(&m.types);
    let mut out = b"llvm".to_vec();
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let mut version = REVISION << 4;
    version |= match m.endianness {
        Endianness::Little => 0,
        Endianness::Big => 1,
        Endianness::Unspecified => 4,
    };
    version |= match m.pointer_size {
        PointerSize::Bits32 => 0,
        PointerSize::Bits64 => 2,
        PointerSize::Unspecified => 8,
    };
    write_vbr(&mut out, u64::from(version));
    pad(&mut out);

    let at = begin_block(&mut out);
    write_vbr(&mut out, m.types.len() as u64);
    for def in &m.types {
        write_type_def(&mut out, def);
    }
    end_block(&mut out, at, BlockId::TypePool)?;

    let at = begin_block(&mut out);
    for (i, g) in m.globals.iter().enumerate() {
        if g.ty.0 == 0 || g.ty.0 >= 1 << 27 {
            return Err(WriteError::invalid(format!("global {i}"), "type slot must be between 1 and 2^27 - 1"));
        }
        let word =
            u32::from(g.constant) | u32::from(g.initializer.is_some()) << 1 | g.linkage.number() << 2 | g.ty.0 << 5;
        write_vbr(&mut out, u64::from(word));
        if let Some(init) = g.initializer {
            write_vbr(&mut out, u64::from(init));
        }
    }
    write_vbr(&mut out, 0);
    for (i, f) in m.functions.iter().enumerate() {
        if f.ty == TypeSlot::VOID {
            return Err(WriteError::invalid(format!("function {i}"), "type slot 0 would end the function list"));
        }
        write_vbr(&mut out, u64::from(f.ty.0));
    }
    write_vbr(&mut out, 0);
    write_vbr(&mut out, m.dependent_libraries.len() as u64);
    for lib in &m.dependent_libraries {
        write_string(&mut out, lib);
    }
    write_string(&mut out, &m.target_triple);
    pad(&mut out);
    end_block(&mut out, at, BlockId::GlobalInfo)?;

    let at = begin_block(&mut out);
    if !m.constants.strings.is_empty() {
        write_vbr(&mut out, m.constants.strings.len() as u64);
        write_vbr(&mut out, 0);
        for s in &m.constants.strings {
            write_vbr(&mut out, u64::from(s.ty.0));
            out.extend_from_slice(&s.bytes);
        }
    }
    for p in &m.constants.planes {
        if p.ty == TypeSlot::VOID {
            return Err(WriteError::invalid("module constant plane", "type slot 0 marks the string section"));
        }
        write_vbr(&mut out, p.constants.len() as u64);
        write_vbr(&mut out, u64::from(p.ty.0));
        for c in &p.constants {
            write_constant(&mut out, &types, p.ty, c)?;
        }
    }
    end_block_or_omit(&mut out, at, BlockId::ConstantPool)?;

    for (i, f) in m.functions.iter().enumerate() {
        let at = begin_block(&mut out);
        write_vbr(&mut out, u64::from(f.linkage.number()));
        if let Some(body) = &f.body {
            FunctionWriter { m, planes: &planes, pointers: &pointers, keep_types, index: i }
                .write(&mut out, f, body)?;
        }
        end_block(&mut out, at, BlockId::Function)?;
    }

    if !m.symbols.is_empty() {
        let at = begin_block(&mut out);
        write_symbols(&mut out, &m.symbols, &Compaction::default(), &|_, s| Some(s))?;
        end_block(&mut out, at, BlockId::SymbolTable)?;
    }

    let size = (out.len() - 12) as u64;
    let size = u32::try_from(size).map_err(|_| WriteError::BlockTooLarge { block: "module", size })?;
    out[8..12].copy_from_slice(&size.to_le_bytes());
    Ok(out)
}

/// Writes `m` like [`write_module`], then reads the bytes back and fails unless they give `m` again, so that
/// `read(write(m)) == m` holds for every model this accepts (a model with inconsistent slots may otherwise write
/// bytes that read differently or not at all).
pub fn write_module_checked(m: &Module) -> Result<Vec<u8>, WriteError> {
    let bytes = write_module(m)?;
    match read_module(&bytes) {
        Ok(back) if back == *m => Ok(bytes),
        Ok(_) => Err(WriteError::invalid("module", "the written bytes do not read back as the same model")),
        Err(e) => Err(WriteError::Invalid { what: format!("written module ({e})"), reason: "does not read back" }),
    }
}

fn write_symbols(
    out: &mut Vec<u8>,
    table: &SymbolTable,
    c: &Compaction,
    value: &dyn Fn(TypeSlot, u32) -> Option<u32>,
) -> Result<(), WriteError> {
    let ty = |t: TypeSlot| c.type_to_local(t).ok_or_else(|| WriteError::invalid("symbol table", "type not compacted"));
    write_vbr(out, table.types.len() as u64);
    for t in &table.types {
        write_vbr(out, u64::from(ty(t.ty)?));
        write_string(out, &t.name);
    }
    for p in &table.planes {
        write_vbr(out, p.entries.len() as u64);
        write_vbr(out, u64::from(ty(p.ty)?));
        for e in &p.entries {
            let slot = if p.ty == TypeSlot::LABEL { Some(e.slot) } else { value(p.ty, e.slot) };
            let slot = slot.ok_or_else(|| WriteError::invalid("symbol table", "value not compacted"))?;
            write_vbr(out, u64::from(slot));
            write_string(out, &e.name);
        }
    }
    Ok(())
}

struct FunctionWriter<'a> {
    m: &'a Module,
    planes: &'a Planes,
    pointers: &'a PointerIndex,
    /// Whether compaction tables keep a type list ([`keeps_types`]).
    keep_types: bool,
    index: usize,
}

impl FunctionWriter<'_> {
    fn write(&self, out: &mut Vec<u8>, f: &Function, body: &FunctionBody) -> Result<(), WriteError> {
        let m = self.m;
        let fname = || format!("function {}", self.index);
        let types = Types { module: &m.types, local: &body.types };
        let revision = m.revision;
        let base = |p: TypeSlot| u32::from(types.has_null(p, revision));
        let local_pointers = PointerIndex::local(&types);
        let pointers = Pointers::new(self.pointers, local_pointers.as_ref());
        let (_, params, _) =
            types.callee(f.ty).ok_or_else(|| WriteError::invalid(fname(), "type is not a pointer to a function"))?;

        // Number the function's own values as the reader will: arguments, pool constants, instruction results.
        let mut fplanes = Planes::default();
        let mut uses = Vec::new();
        for &p in params {
            let canon = types.canon(p);
            uses.push(Use::Type(p));
            uses.push(Use::Defines(canon));
            fplanes.push(canon);
        }
        for p in &body.constants {
            let canon = types.canon(p.ty);
            for c in &p.constants {
                let slot = base(canon) + self.planes.count(canon) + fplanes.count(canon);
                if let (true, super::constant::Constant::Unsigned(v)) = (is_index_plane(canon), c) {
                    fplanes.set_int(canon, slot, *v);
                }
                fplanes.push(canon);
            }
        }
        // One analysis buffer for every instruction; the second pass below analyses again rather than keeping them.
        let mut a = Analysis::default();
        for (b, block) in body.blocks.iter().enumerate() {
            let n = block.instructions.len();
            for (i, inst) in block.instructions.iter().enumerate() {
                let what = || format!("{} block {b} instruction {i} (`{}`)", fname(), inst.opcode.mnemonic());
                if inst.opcode.is_terminator() != (i + 1 == n) {
                    return Err(WriteError::invalid(what(), "a block must end with its only terminator"));
                }
                let int = |p: TypeSlot, s: u32| {
                    if s == 0 && types.has_null(p, revision) {
                        return Some(0);
                    }
                    self.planes.int(p, s).or_else(|| fplanes.int(p, s))
                };
                analyze_into(&types, pointers, inst, &int, &mut a)
                    .map_err(|reason| WriteError::invalid(what(), reason))?;
                if a.result != TypeSlot::VOID {
                    uses.push(Use::Type(a.result));
                    uses.push(Use::Defines(a.result));
                }
                uses.push(Use::Type(inst.ty));
                for (op, plane) in inst.operands.iter().zip(&a.planes) {
                    match (*op, plane) {
                        (Operand::Type(t), _) => uses.push(Use::Type(t)),
                        (Operand::VarArg { ty, slot }, Some(p)) => {
                            uses.push(Use::Type(ty));
                            uses.push(Use::Value(*p, slot));
                        }
                        (Operand::Value(slot) | Operand::Index { slot, .. }, Some(p)) => {
                            uses.push(Use::Value(*p, slot))
                        }
                        _ => {}
                    }
                }
                if a.result != TypeSlot::VOID {
                    fplanes.push(a.result);
                }
            }
        }
        for t in &body.symbols.types {
            uses.push(Use::Type(t.ty));
        }
        for p in &body.symbols.planes {
            uses.push(Use::Type(p.ty));
            if p.ty != TypeSlot::LABEL {
                let canon = types.canon(p.ty);
                for e in &p.entries {
                    uses.push(Use::Value(canon, e.slot));
                }
            }
        }

        // A function with its own constant pool keeps its numbering: 1.3 writes a compaction table instead of a pool.
        let compaction = if body.types.is_empty() && body.constants.is_empty() {
            decide(&uses, &types, self.planes, &fplanes, revision, self.keep_types)
        } else {
            Compaction::default()
        };
        let ty_local = |t: TypeSlot| {
            compaction.type_to_local(t).ok_or_else(|| WriteError::invalid(fname(), "type missing from compaction"))
        };
        let value_local = |p: TypeSlot, s: u32| {
            let p = types.canon(p);
            compaction.value_to_local(p, s, base(p), self.planes.count(p))
        };

        if !compaction.is_empty() {
            let at = begin_block(out);
            compaction.write(out);
            end_block(out, at, BlockId::CompactionTable)?;
        }
        if !body.types.is_empty() || !body.constants.is_empty() {
            let at = begin_block(out);
            write_vbr(out, body.types.len() as u64);
            for def in &body.types {
                write_type_def(out, def);
            }
            for p in &body.constants {
                if p.ty == TypeSlot::VOID {
                    return Err(WriteError::invalid(fname(), "strings are only allowed in the module pool"));
                }
                write_vbr(out, p.constants.len() as u64);
                write_vbr(out, u64::from(p.ty.0));
                for c in &p.constants {
                    write_constant(out, &types, p.ty, c)?;
                }
            }
            end_block(out, at, BlockId::ConstantPool)?;
        }

        let at = begin_block(out);
        let mut raw = Vec::new();
        let int = |p: TypeSlot, s: u32| {
            if s == 0 && types.has_null(p, revision) {
                return Some(0);
            }
            self.planes.int(p, s).or_else(|| fplanes.int(p, s))
        };
        for inst in body.blocks.iter().flat_map(|b| &b.instructions) {
            let what = || format!("{} `{}`", fname(), inst.opcode.mnemonic());
            analyze_into(&types, pointers, inst, &int, &mut a).map_err(|reason| WriteError::invalid(what(), reason))?;
            let lost = || WriteError::invalid(what(), "operand missing from compaction");
            raw.clear();
            let mut varargs_call = false;
            for (i, op) in inst.operands.iter().enumerate() {
                let plane = a.planes[i].unwrap_or(TypeSlot::VOID);
                match *op {
                    Operand::Value(s) => raw.push(value_local(plane, s).ok_or_else(lost)?),
                    Operand::Block(b) => raw.push(b),
                    Operand::Type(t) => raw.push(ty_local(t)?),
                    Operand::Index { kind, slot } => {
                        let local = value_local(plane, slot).ok_or_else(lost)?;
                        match (a.is_struct_index(i), kind.low_bits()) {
                            (true, _) => raw.push(local),
                            (false, Some(k)) => {
                                let shifted = local
                                    .checked_mul(4)
                                    .ok_or_else(|| WriteError::invalid(what(), "index slot too large"))?;
                                raw.push(shifted | k)
                            }
                            (false, None) => {
                                return Err(WriteError::invalid(
                                    what(),
                                    "a ubyte index only exists in revisions 0 and 1",
                                ))
                            }
                        }
                    }
                    Operand::VarArg { ty, slot } => {
                        varargs_call = true;
                        raw.push(ty_local(ty)?);
                        raw.push(value_local(plane, slot).ok_or_else(lost)?);
                    }
                }
            }
            if matches!(inst.opcode, super::opcode::Opcode::Call | super::opcode::Opcode::Invoke) {
                varargs_call |= types.callee(inst.ty).is_some_and(|(_, _, v)| v);
            }
            write_raw(out, inst.opcode.number(), ty_local(inst.ty)?, &raw, varargs_call)
                .ok_or_else(|| WriteError::invalid(what(), "needs format 0 but has no operands"))?;
        }
        end_block(out, at, BlockId::InstructionList)?;

        if !body.symbols.is_empty() {
            let at = begin_block(out);
            write_symbols(out, &body.symbols, &compaction, &value_local)?;
            end_block(out, at, BlockId::SymbolTable)?;
        }
        Ok(())
    }
}
