//! The module model: everything an LLVM 1.x bytecode file says, with encoding details (header forms, instruction
//! formats, padding, compaction tables, revision-specific numbering) decoded away.
//!
//! Order is kept as in the file: types in slot order, globals and functions in module order, constants in pool
//! order, symbol tables in file order. Value references are slots in type planes (`llvm13.md` §5): inside a function
//! a plane holds its null (slot 0), the module values of that type (globals, functions, then module constants:
//! strings first), then the function's arguments, constants and instruction results. Compaction tables are resolved
//! by the reader and rebuilt by the writer, so every slot in the model uses this uncompacted numbering.

use super::constant::{ConstantPlane, ConstantPool};
use super::instruction::Instruction;
use super::symtab::SymbolTable;
use super::types::{TypeDef, TypeSlot};

/// Target byte order as the version word states it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Endianness {
    /// Little-endian (bit 0 clear).
    Little,
    /// Big-endian (bit 0 set).
    Big,
    /// Not specified (bit 2 set), the default of an LLVM 1.3 module without `target` lines.
    #[default]
    Unspecified,
}

/// Target pointer size as the version word states it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum PointerSize {
    /// 32-bit pointers (bit 1 clear).
    Bits32,
    /// 64-bit pointers (bit 1 set).
    Bits64,
    /// Not specified (bit 3 set).
    #[default]
    Unspecified,
}

/// Linkage of a global variable or function (§6).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Linkage {
    /// 0: external.
    #[default]
    External,
    /// 1: weak.
    Weak,
    /// 2: appending.
    Appending,
    /// 3: internal.
    Internal,
    /// 4: linkonce.
    LinkOnce,
}

impl Linkage {
    /// The number written in files.
    pub fn number(self) -> u32 {
        self as u32
    }

    /// The linkage numbered `n` (5..7 and above are errors).
    pub fn from_number(n: u32) -> Option<Linkage> {
        Some(match n {
            0 => Linkage::External,
            1 => Linkage::Weak,
            2 => Linkage::Appending,
            3 => Linkage::Internal,
            4 => Linkage::LinkOnce,
            _ => return None,
        })
    }

    /// The assembly keyword (empty for external).
    pub fn keyword(self) -> &'static str {
        match self {
            Linkage::External => "",
            Linkage::Weak => "weak",
            Linkage::Appending => "appending",
            Linkage::Internal => "internal",
            Linkage::LinkOnce => "linkonce",
        }
    }
}

/// An LLVM 1.x module.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Module {
    /// Format revision: 0 (LLVM 1.0/1.1), 1 (1.2), 2 (1.2.5), 3 (1.3). The writer writes 3 only.
    pub revision: u32,
    /// Target byte order.
    pub endianness: Endianness,
    /// Target pointer size.
    pub pointer_size: PointerSize,
    /// The global type pool: slot 13 + i is `types[i]`.
    pub types: Vec<TypeDef>,
    /// Global variables, in module order.
    pub globals: Vec<GlobalVar>,
    /// Functions, declared or defined, in module order.
    pub functions: Vec<Function>,
    /// The module constant pool.
    pub constants: ConstantPool,
    /// The module symbol table.
    pub symbols: SymbolTable,
    /// Dependent libraries (revision 3).
    pub dependent_libraries: Vec<Vec<u8>>,
    /// Target triple, empty when absent (revision 3).
    pub target_triple: Vec<u8>,
}

impl Default for Module {
    fn default() -> Self {
        Self {
            revision: 3,
            endianness: Endianness::default(),
            pointer_size: PointerSize::default(),
            types: Vec::new(),
            globals: Vec::new(),
            functions: Vec::new(),
            constants: ConstantPool::default(),
            symbols: SymbolTable::default(),
            dependent_libraries: Vec::new(),
            target_triple: Vec::new(),
        }
    }
}

/// A global variable.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct GlobalVar {
    /// The global's pointer type (the variable's own type is its pointee); its value plane.
    pub ty: TypeSlot,
    /// Declared `constant`.
    pub constant: bool,
    /// Linkage.
    pub linkage: Linkage,
    /// Initializer: a slot in the pointee's plane among module values.
    pub initializer: Option<u32>,
}

/// A function: its pointer-to-function type, linkage and body.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Function {
    /// The pointer-to-function type; the function's value plane.
    pub ty: TypeSlot,
    /// Linkage (from the function block).
    pub linkage: Linkage,
    /// The body; `None` for a declaration (a function block with nothing after the linkage).
    pub body: Option<FunctionBody>,
}

/// The contents of a defined function.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct FunctionBody {
    /// Types of the function constant pool: slot 13 + (module types) + i.
    pub types: Vec<TypeDef>,
    /// Planes of the function constant pool; their constants follow the arguments in each plane.
    pub constants: Vec<ConstantPlane>,
    /// Basic blocks in order; each ends with its only terminator.
    pub blocks: Vec<BasicBlock>,
    /// The function symbol table (arguments, blocks, instruction results).
    pub symbols: SymbolTable,
}

/// A basic block.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct BasicBlock {
    /// Instructions; the last one, and only it, is a terminator.
    pub instructions: Vec<Instruction>,
}
