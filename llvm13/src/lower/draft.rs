//! The draft: an LLVM 1.3 module with its values referred to by identity rather than by slot.
//!
//! The Whale lowering builds a draft (types interned structurally, constants uniqued, instructions naming their
//! operands as globals, functions, constants or Whale values); [`super::slots`] then numbers it the way the 1.3 slot
//! calculator did and produces the format model. Keeping the two apart means the lowering never thinks about planes,
//! and the numbering never thinks about Whale.

use rustc_hash::FxHashMap as HashMap;

use crate::format::{IndexKind, Linkage, Opcode, TypeSlot};

/// A draft type: an index into [`TypeInterner`]; 0..=12 are the primitives by their slot.
pub(crate) type DraftTy = u32;

/// A structural LLVM type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum DraftType {
    Primitive(TypeSlot),
    Pointer(DraftTy),
    Array(DraftTy, u32),
    Struct(Vec<DraftTy>),
    Function { ret: DraftTy, params: Vec<DraftTy>, varargs: bool },
}

impl DraftType {
    /// The contained types, left to right (return type first for functions).
    pub(crate) fn children(&self) -> Vec<DraftTy> {
        match self {
            DraftType::Primitive(_) => Vec::new(),
            DraftType::Pointer(p) => vec![*p],
            DraftType::Array(e, _) => vec![*e],
            DraftType::Struct(fields) => fields.clone(),
            DraftType::Function { ret, params, .. } => std::iter::once(*ret).chain(params.iter().copied()).collect(),
        }
    }
}

/// Structural type interning: equal types share one [`DraftTy`].
#[derive(Debug)]
pub(crate) struct TypeInterner {
    pub(crate) list: Vec<DraftType>,
    map: HashMap<DraftType, DraftTy>,
}

impl TypeInterner {
    pub(crate) fn new() -> Self {
        let mut t = Self { list: Vec::new(), map: HashMap::default() };
        for slot in 0..13 {
            t.intern(DraftType::Primitive(TypeSlot(slot)));
        }
        t
    }

    pub(crate) fn intern(&mut self, ty: DraftType) -> DraftTy {
        if let Some(&id) = self.map.get(&ty) {
            return id;
        }
        let id = self.list.len() as DraftTy;
        self.list.push(ty.clone());
        self.map.insert(ty, id);
        id
    }

    pub(crate) fn get(&self, ty: DraftTy) -> &DraftType {
        &self.list[ty as usize]
    }

    pub(crate) fn pointer(&mut self, pointee: DraftTy) -> DraftTy {
        self.intern(DraftType::Pointer(pointee))
    }
}

/// A draft constant; zero values are always [`DraftConst::Null`], so that uniquing puts them at slot 0.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum DraftConst {
    Null(DraftTy),
    True,
    Signed(DraftTy, i64),
    Unsigned(DraftTy, u64),
    Float(u32),
    Double(u64),
    /// An array of sbyte or ubyte written in the string section.
    String(DraftTy, Vec<u8>),
    /// A constant expression of type `ty`.
    Expr {
        ty: DraftTy,
        opcode: Opcode,
        operands: Vec<DraftValue>,
    },
}

/// A value as the draft names it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum DraftValue {
    Global(u32),
    Function(u32),
    Const(u32),
    /// A Whale value: a parameter or an instruction result, by `ValueId`.
    Whale(u32),
    /// A value the lowering introduced, numbered per function.
    Synthetic(u32),
}

/// An instruction operand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum DraftOperand {
    Value(DraftValue),
    Block(u32),
    Type(DraftTy),
    Index(IndexKind, DraftValue),
}

/// An instruction: opcode, type field (§10.2), operands, and the value it defines (with its type).
#[derive(Clone, Debug)]
pub(crate) struct DraftInst {
    pub(crate) opcode: Opcode,
    pub(crate) ty: DraftTy,
    pub(crate) operands: Vec<DraftOperand>,
    pub(crate) result: Option<(DraftValue, DraftTy)>,
}

/// A basic block.
#[derive(Clone, Debug, Default)]
pub(crate) struct DraftBlock {
    pub(crate) name: Option<Vec<u8>>,
    pub(crate) insts: Vec<DraftInst>,
}

/// A function body: parameters (value, type, name) and blocks, entry first.
#[derive(Clone, Debug, Default)]
pub(crate) struct DraftBody {
    pub(crate) params: Vec<(DraftValue, DraftTy, Option<Vec<u8>>)>,
    pub(crate) blocks: Vec<DraftBlock>,
    /// Number of [`DraftValue::Synthetic`] values.
    pub(crate) synthetic: u32,
    /// Length of the function's dense value table: [`DraftValue::Whale`] indexes it.
    pub(crate) whale_values: u32,
}

/// A global variable: pointer type (its plane), initializer, linkage and name.
#[derive(Clone, Debug)]
pub(crate) struct DraftGlobal {
    pub(crate) pointer: DraftTy,
    pub(crate) init: u32,
    pub(crate) linkage: Linkage,
    pub(crate) name: Option<Vec<u8>>,
}

/// A function: pointer-to-function type, linkage, name and body.
#[derive(Clone, Debug)]
pub(crate) struct DraftFunction {
    pub(crate) pointer: DraftTy,
    pub(crate) linkage: Linkage,
    pub(crate) name: Option<Vec<u8>>,
    pub(crate) body: Option<DraftBody>,
}

/// The whole draft module.
#[derive(Debug)]
pub(crate) struct Draft {
    pub(crate) types: TypeInterner,
    pub(crate) consts: Vec<DraftConst>,
    const_index: HashMap<DraftConst, u32>,
    pub(crate) globals: Vec<DraftGlobal>,
    pub(crate) functions: Vec<DraftFunction>,
    pub(crate) triple: Vec<u8>,
}

impl Draft {
    pub(crate) fn new() -> Self {
        Self {
            types: TypeInterner::new(),
            consts: Vec::new(),
            const_index: HashMap::default(),
            globals: Vec::new(),
            functions: Vec::new(),
            triple: Vec::new(),
        }
    }

    /// Uniques a constant.
    pub(crate) fn constant(&mut self, c: DraftConst) -> DraftValue {
        DraftValue::Const(self.constant_id(c))
    }

    /// Uniques a constant and returns its index.
    pub(crate) fn constant_id(&mut self, c: DraftConst) -> u32 {
        if let Some(&i) = self.const_index.get(&c) {
            return i;
        }
        let i = self.consts.len() as u32;
        self.consts.push(c.clone());
        self.const_index.insert(c, i);
        i
    }

    /// The type of a constant.
    pub(crate) fn const_type(&self, c: u32) -> DraftTy {
        match &self.consts[c as usize] {
            DraftConst::Null(t) | DraftConst::Signed(t, _) | DraftConst::Unsigned(t, _) | DraftConst::String(t, _) => {
                *t
            }
            DraftConst::Expr { ty, .. } => *ty,
            DraftConst::True => TypeSlot::BOOL.0,
            DraftConst::Float(_) => TypeSlot::FLOAT.0,
            DraftConst::Double(_) => TypeSlot::DOUBLE.0,
        }
    }
}
