//! Instructions: the model ([`Instruction`], [`Operand`]) and the four raw formats (`llvm13.md` §10.1, §10.2).
//!
//! The model keeps what the file says, decoded: the opcode, the instruction's type field and its operands tagged by
//! role (value, basic block, type, getelementptr index, varargs pair). Value operands are slots in the plane the
//! opcode implies (§10.6), in the function's uncompacted numbering. The raw layer here only knows words and numbers;
//! `read.rs` and `write.rs` translate between the two with the type tables at hand.

use super::error::{ReadError, ReadErrorKind};
use super::limits::FORMAT1_NO_OPERAND;
use super::opcode::Opcode;
use super::primitives::{pad, vec_for, write_vbr, Reader};
use super::types::TypeSlot;

/// The type of a getelementptr index, which is also the plane its slot is in (§10.3, §14).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum IndexKind {
    /// A `ubyte` struct index (revisions 0 and 1 only).
    Ubyte,
    /// A `uint` index: a struct field number, or a sequential index.
    Uint,
    /// An `int` sequential index.
    Int,
    /// A `ulong` sequential index.
    Ulong,
    /// A `long` sequential index.
    Long,
}

impl IndexKind {
    /// The value plane of the index.
    pub fn plane(self) -> TypeSlot {
        match self {
            IndexKind::Ubyte => TypeSlot::UBYTE,
            IndexKind::Uint => TypeSlot::UINT,
            IndexKind::Int => TypeSlot::INT,
            IndexKind::Ulong => TypeSlot::ULONG,
            IndexKind::Long => TypeSlot::LONG,
        }
    }

    /// The two low bits of a sequential index in revision 2 and later (0 uint, 1 int, 2 ulong, 3 long).
    pub fn low_bits(self) -> Option<u32> {
        match self {
            IndexKind::Uint => Some(0),
            IndexKind::Int => Some(1),
            IndexKind::Ulong => Some(2),
            IndexKind::Long => Some(3),
            IndexKind::Ubyte => None,
        }
    }

    /// The kind with low bits `k`.
    pub fn from_low_bits(k: u32) -> IndexKind {
        match k & 3 {
            0 => IndexKind::Uint,
            1 => IndexKind::Int,
            2 => IndexKind::Ulong,
            _ => IndexKind::Long,
        }
    }
}

/// One operand, tagged by its role.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Operand {
    /// A value slot in the plane the opcode implies for this position (§10.6).
    Value(u32),
    /// A basic block index (0 = entry).
    Block(u32),
    /// A type slot (the target of `cast`, the type of `vaarg` and `vanext`).
    Type(TypeSlot),
    /// A getelementptr index: its slot in the plane of `kind`.
    Index {
        /// The index type.
        kind: IndexKind,
        /// The slot in `kind`'s plane.
        slot: u32,
    },
    /// An extra argument of a varargs call or invoke: its type and its slot in that plane (§10.4).
    VarArg {
        /// The argument's type (its plane).
        ty: TypeSlot,
        /// The slot in that plane.
        slot: u32,
    },
}

/// One instruction.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Instruction {
    /// The opcode (volatile loads and stores are their own opcodes).
    pub opcode: Opcode,
    /// The type field (§10.2 item 2): result type for select/malloc/alloca, the pointer operand's type for loads and
    /// stores, otherwise the first operand's type; 0 for `ret void` and `unwind`.
    pub ty: TypeSlot,
    /// The operands in LLVM operand order.
    pub operands: Vec<Operand>,
}

/// An instruction as numbers: opcode, type field and operand numbers, before any interpretation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RawInstruction {
    /// Opcode number.
    pub opcode: u32,
    /// Type slot field (local numbering).
    pub ty: u32,
    /// Operand numbers (local numbering, getelementptr low bits included).
    pub operands: Vec<u32>,
    /// The format it was read in (0..3).
    pub format: u8,
}

/// Reads one instruction in any of the four formats; format 0 is followed by alignment (revisions 0..3).
pub fn read_raw(r: &mut Reader<'_>) -> Result<RawInstruction, ReadError> {
    // The reader peeks a whole word first, so even a format 0 instruction needs four bytes (§10.1).
    let w = r.peek_u32_le()?;
    let format = (w & 3) as u8;
    let opcode = (w >> 2) & 0x3F;
    let raw = match format {
        1 => {
            r.u32_le()?;
            let op = w >> 20;
            let operands = if op == FORMAT1_NO_OPERAND { Vec::new() } else { vec![op] };
            RawInstruction { opcode, ty: (w >> 8) & 0xFFF, operands, format }
        }
        2 => {
            r.u32_le()?;
            RawInstruction { opcode, ty: (w >> 8) & 0xFF, operands: vec![(w >> 16) & 0xFF, w >> 24], format }
        }
        3 => {
            r.u32_le()?;
            let operands = vec![(w >> 14) & 0x3F, (w >> 20) & 0x3F, w >> 26];
            RawInstruction { opcode, ty: (w >> 8) & 0x3F, operands, format }
        }
        _ => {
            let opcode = r.vbr32()? >> 2;
            let ty = r.vbr32()?;
            let at = r.offset();
            let n = r.count(1)?;
            if n == 0 {
                return Err(ReadError::new(ReadErrorKind::NoOperands, at));
            }
            let mut operands = vec_for(n, at)?;
            for _ in 0..n {
                operands.push(r.vbr32()?);
            }
            r.align()?;
            RawInstruction { opcode, ty, operands, format }
        }
    };
    Ok(raw)
}

/// The format the 1.3 writer picks for these numbers (§10.2 items 3..5): `force_zero` for varargs calls.
pub fn choose_format(ty: u32, operands: &[u32], force_zero: bool) -> u8 {
    let max = operands.iter().copied().fold(ty, u32::max);
    match operands.len() {
        _ if force_zero => 0,
        0 | 1 if max < FORMAT1_NO_OPERAND => 1,
        2 if max < 256 => 2,
        3 if max < 64 => 3,
        _ => 0,
    }
}

/// Appends an instruction in the format [`choose_format`] picks and returns that format; `None` when the only
/// possible format is format 0 with zero operands, which no reader accepts.
pub fn write_raw(out: &mut Vec<u8>, opcode: u32, ty: u32, operands: &[u32], force_zero: bool) -> Option<u8> {
    let format = choose_format(ty, operands, force_zero);
    let head = opcode << 2 | u32::from(format);
    let word = match (format, operands) {
        (1, []) => head | ty << 8 | FORMAT1_NO_OPERAND << 20,
        (1, [a]) => head | ty << 8 | a << 20,
        (2, [a, b]) => head | ty << 8 | a << 16 | b << 24,
        (3, [a, b, c]) => head | ty << 8 | a << 14 | b << 20 | c << 26,
        _ => {
            if operands.is_empty() {
                return None;
            }
            write_vbr(out, u64::from(opcode) << 2);
            write_vbr(out, u64::from(ty));
            write_vbr(out, operands.len() as u64);
            for &o in operands {
                write_vbr(out, u64::from(o));
            }
            pad(out);
            return Some(0);
        }
    };
    out.extend_from_slice(&word.to_le_bytes());
    Some(format)
}
