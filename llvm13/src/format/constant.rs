//! Constants: the model of the constant pools and the encoding of one constant by its plane's type
//! (`llvm13.md` §8).
//!
//! A constant never states its own type: the plane it sits in does. Aggregates and expressions refer to other
//! constants by slot (array elements in the element plane, struct fields in the field planes, expression operands in
//! the plane they name), so forward references inside a pool are plain numbers checked when the pool ends.

use super::error::{ReadError, ReadErrorKind, WriteError};
use super::opcode::Opcode;
use super::primitives::{vec_for, write_svbr, write_vbr, Reader};
use super::types::{Ty, TypeDef, TypeNumbering, TypeSlot, Types};

/// One constant, as its plane's type encodes it.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Constant {
    /// A `bool` (only `true` is ever written: `false` is the null).
    Bool(bool),
    /// A `ubyte`, `ushort`, `uint` or `ulong`.
    Unsigned(u64),
    /// An `sbyte`, `short`, `int` or `long`.
    Signed(i64),
    /// A `float`, as IEEE bits.
    Float(u32),
    /// A `double`, as IEEE bits.
    Double(u64),
    /// An array: one slot per element, in the element type's plane.
    Array(Vec<u32>),
    /// A struct: one slot per field, in that field's plane.
    Struct(Vec<u32>),
    /// A pointer to an earlier global of the same plane (LLVM 1.2 files; 1.3 never writes it).
    GlobalRef(u32),
    /// A constant expression: opcode and (slot, type) operand pairs.
    Expr {
        /// `cast`, `getelementptr`, `select`, a binary operator, a comparison or a shift.
        opcode: Opcode,
        /// The operands; a `cast`'s target type is the plane's type.
        operands: Vec<ConstantOperand>,
    },
}

/// An operand of a constant expression: a slot and the plane (type) it is in.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ConstantOperand {
    /// Slot in the plane of `ty`.
    pub slot: u32,
    /// The operand's type.
    pub ty: TypeSlot,
}

/// The constants of one type, in slot order.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ConstantPlane {
    /// The plane's type.
    pub ty: TypeSlot,
    /// The constants; each takes the next slot of the plane.
    pub constants: Vec<Constant>,
}

/// A constant string: an array of `sbyte` or `ubyte` given as raw bytes (§8.2).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct StringConstant {
    /// The array type; its length is the byte count.
    pub ty: TypeSlot,
    /// The characters.
    pub bytes: Vec<u8>,
}

/// The module constant pool: the string section, then planes in file order.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ConstantPool {
    /// Strings; each takes the next slot of its array plane, before the plane's other constants.
    pub strings: Vec<StringConstant>,
    /// Planes in file order (the 1.3 writer: increasing type slot, no empty planes).
    pub planes: Vec<ConstantPlane>,
}

impl ConstantPool {
    /// True when the pool holds nothing (the writer then omits the block).
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty() && self.planes.is_empty()
    }
}

/// The signedness and width of an integer primitive, or `None`.
pub(crate) fn int_kind(plane: TypeSlot) -> Option<(bool, u32)> {
    Some(match plane {
        TypeSlot::UBYTE => (false, 8),
        TypeSlot::SBYTE => (true, 8),
        TypeSlot::USHORT => (false, 16),
        TypeSlot::SHORT => (true, 16),
        TypeSlot::UINT => (false, 32),
        TypeSlot::INT => (true, 32),
        TypeSlot::ULONG => (false, 64),
        TypeSlot::LONG => (true, 64),
        _ => return None,
    })
}

fn fits(signed: bool, bits: u32, value: i128) -> bool {
    if signed {
        let half = 1i128 << (bits - 1);
        (-half..half).contains(&value)
    } else {
        (0..1i128 << bits).contains(&value)
    }
}

/// Checks the operand count of a constant expression (§8.3).
pub(crate) fn check_expr_shape(opcode: Opcode, n: usize) -> Result<(), &'static str> {
    match opcode {
        Opcode::Cast if n == 1 => Ok(()),
        Opcode::Cast => Err("a cast expression has exactly one operand"),
        _ if n == 1 => Err("only a cast expression has one operand"),
        Opcode::GetElementPtr => Ok(()),
        Opcode::Select if n == 3 => Ok(()),
        Opcode::Select => Err("a select expression has three operands"),
        op if op.is_constant_expr() && n == 2 => Ok(()),
        op if op.is_constant_expr() => Err("a binary constant expression has two operands"),
        _ => Err("opcode is not allowed in a constant expression"),
    }
}

/// Reads one constant of `plane` (§8.3).
pub(crate) fn read_constant(
    r: &mut Reader<'_>,
    types: &Types<'_>,
    plane: TypeSlot,
    numbering: TypeNumbering,
) -> Result<Constant, ReadError> {
    let at = r.offset();
    let n = r.count(2)?;
    if n > 0 {
        let opcode_at = r.offset();
        let number = r.vbr32()?;
        let opcode = Opcode::from_number(number)
            .ok_or_else(|| ReadError::new(ReadErrorKind::InvalidOpcode { opcode: number }, opcode_at))?;
        check_expr_shape(opcode, n).map_err(|m| ReadError::new(ReadErrorKind::InvalidConstantExpr(m), opcode_at))?;
        let mut operands = vec_for(n, at)?;
        for _ in 0..n {
            let slot = r.vbr32()?;
            let ty = numbering.read(r)?;
            operands.push(ConstantOperand { slot, ty });
        }
        return Ok(Constant::Expr { opcode, operands });
    }
    let unencodable = |kind| ReadError::new(ReadErrorKind::UnencodableConstant { plane: plane.0, kind }, at);
    let canon = types.canon(plane);
    if let Some((signed, bits)) = int_kind(canon) {
        let vat = r.offset();
        let value: i128 = if signed { i128::from(r.svbr64()?) } else { i128::from(r.vbr64()?) };
        if !fits(signed, bits, value) {
            return Err(ReadError::new(ReadErrorKind::IntegerOutOfRange { plane: plane.0, value }, vat));
        }
        return Ok(if signed { Constant::Signed(value as i64) } else { Constant::Unsigned(value as u64) });
    }
    Ok(match types.get(canon).ok_or_else(|| unencodable("undefined"))? {
        Ty::Primitive(TypeSlot::BOOL) => {
            let vat = r.offset();
            match r.vbr64()? {
                0 => Constant::Bool(false),
                1 => Constant::Bool(true),
                value => return Err(ReadError::new(ReadErrorKind::InvalidBool { value }, vat)),
            }
        }
        Ty::Primitive(TypeSlot::FLOAT) => Constant::Float(r.u32_le()?),
        Ty::Primitive(TypeSlot::DOUBLE) => Constant::Double(r.u64_le()?),
        Ty::Primitive(_) => return Err(unencodable("void or label")),
        Ty::Def(TypeDef::Array { len, .. }) => {
            if *len as usize > r.remaining() {
                let kind = ReadErrorKind::CountTooLarge { count: u64::from(*len), remaining: r.remaining() as u64 };
                return Err(ReadError::new(kind, at));
            }
            let mut elements = vec_for(*len as usize, at)?;
            for _ in 0..*len {
                elements.push(r.vbr32()?);
            }
            Constant::Array(elements)
        }
        Ty::Def(TypeDef::Struct(fields)) => {
            let mut values = vec_for(fields.len().min(r.remaining()), at)?;
            for _ in 0..fields.len() {
                values.push(r.vbr32()?);
            }
            Constant::Struct(values)
        }
        Ty::Def(TypeDef::Pointer(_)) => Constant::GlobalRef(r.vbr32()?),
        Ty::Def(d) => return Err(unencodable(d.kind_name())),
    })
}

/// Appends one constant of `plane`, checking that the plane's type can encode it.
pub(crate) fn write_constant(
    out: &mut Vec<u8>,
    types: &Types<'_>,
    plane: TypeSlot,
    c: &Constant,
) -> Result<(), WriteError> {
    let what = || format!("constant of type slot {plane}");
    let canon = types.canon(plane);
    let ty = types.get(canon).ok_or_else(|| WriteError::invalid(what(), "undefined type"))?;
    if let Constant::Expr { opcode, operands } = c {
        check_expr_shape(*opcode, operands.len()).map_err(|m| WriteError::invalid(what(), m))?;
        write_vbr(out, operands.len() as u64);
        write_vbr(out, u64::from(opcode.number()));
        for o in operands {
            write_vbr(out, u64::from(o.slot));
            write_vbr(out, u64::from(o.ty.0));
        }
        return Ok(());
    }
    write_vbr(out, 0);
    match (c, ty, int_kind(canon)) {
        (Constant::Unsigned(v), _, Some((false, bits))) if fits(false, bits, i128::from(*v)) => write_vbr(out, *v),
        (Constant::Signed(v), _, Some((true, bits))) if fits(true, bits, i128::from(*v)) => write_svbr(out, *v),
        (Constant::Bool(b), Ty::Primitive(TypeSlot::BOOL), _) => write_vbr(out, u64::from(*b)),
        (Constant::Float(bits), Ty::Primitive(TypeSlot::FLOAT), _) => out.extend_from_slice(&bits.to_le_bytes()),
        (Constant::Double(bits), Ty::Primitive(TypeSlot::DOUBLE), _) => out.extend_from_slice(&bits.to_le_bytes()),
        (Constant::Array(elements), Ty::Def(TypeDef::Array { len, .. }), _) if elements.len() == *len as usize => {
            elements.iter().for_each(|&e| write_vbr(out, u64::from(e)))
        }
        (Constant::Struct(values), Ty::Def(TypeDef::Struct(fields)), _) if values.len() == fields.len() => {
            values.iter().for_each(|&v| write_vbr(out, u64::from(v)))
        }
        (Constant::GlobalRef(slot), Ty::Def(TypeDef::Pointer(_)), _) => write_vbr(out, u64::from(*slot)),
        _ => return Err(WriteError::invalid(what(), "the constant does not match its plane's type")),
    }
    Ok(())
}
