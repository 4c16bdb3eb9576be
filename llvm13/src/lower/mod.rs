//! Whale IR to LLVM 1.3 bytecode (the table in `docs/llvm13.md`, "Whale mapping").
//!
//! Two steps: this module turns an `ir::Module` into a [`draft::Draft`] (LLVM types, constants and instructions
//! naming their operands by identity), checking on the way that every construct has an LLVM 1.3 equivalent; then
//! [`slots::number`] numbers the draft like the 1.3 slot calculator and yields the format model, which the format
//! layer writes. Whale has no constant operands: every Whale value, constants included, is an instruction result,
//! so a `const` is written as a cast of the constant to its own type (`cast int 42 to int`) and `mov` as such a cast of
//! a value. The reader recognises these forms, which keeps values one to one and in order.

pub(crate) mod body;
pub(crate) mod draft;
pub(crate) mod slots;

use ir::entity::EntityRef;
use ir::{
    ConstBinOp, ConstCmpOp, ConstExpr, ConstExprKind, ConstRef, ConstValue, FloatBits, InstData, Module, TypeId,
    TypeKey,
};

use crate::format::{self, Opcode, TypeSlot};
use crate::map_error::MapError;
use draft::{Draft, DraftConst, DraftFunction, DraftGlobal, DraftTy, DraftType, DraftValue};

/// The external function that carries Whale traps: `void %__whale_trap(sbyte*)`. A call with a non-null reason
/// traps with that NUL-terminated reason; a call with a null pointer does nothing.
pub const TRAP_FUNCTION: &str = "__whale_trap";

/// Writes a verified Whale module as LLVM 1.3 bytecode (revision 3), with the types and constants numbered as the
/// LLVM 1.3 writer numbers them.
///
/// ```
/// use ir::{DataLayout, ModuleBuilder, Type};
/// let mut module = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
/// let mut f = module.begin_function("answer", vec![], Type::I32);
/// let answer = f.const_i32(42);
/// f.ret(Some(answer));
/// f.finish();
/// let module = module.finish();
/// let bytes = llvm13::write_whale(&module).unwrap();
/// assert_eq!(&bytes[..4], b"llvm");
/// let back = llvm13::read_whale(&bytes).unwrap();
/// assert_eq!(ir::print_module(&back), ir::print_module(&module));
/// ```
pub fn write_whale(module: &Module) -> Result<Vec<u8>, MapError> {
    let model = whale_to_model(module)?;
    Ok(format::write_module(&model)?)
}

/// Maps a verified Whale module to the LLVM 1.3 format model, numbered as LLVM 1.3 numbers it.
pub fn whale_to_model(module: &Module) -> Result<format::Module, MapError> {
    let mut lower = Lower::new(module);
    lower.module()?;
    let mut model = slots::number(&lower.draft);
    let layout = module.data_layout();
    model.endianness = match layout.endian {
        ir::Endian::Little => format::Endianness::Little,
        ir::Endian::Big => format::Endianness::Big,
    };
    model.pointer_size = match layout.pointer_bits {
        32 => format::PointerSize::Bits32,
        64 => format::PointerSize::Bits64,
        _ => format::PointerSize::Unspecified,
    };
    Ok(model)
}

pub(crate) struct Lower<'m> {
    pub(crate) m: &'m Module,
    pub(crate) draft: Draft,
    type_cache: Vec<Option<DraftTy>>,
    /// Function index of `__whale_trap`, when the module traps.
    pub(crate) trap_function: Option<u32>,
    /// Reason text to the global holding it.
    reasons: rustc_hash::FxHashMap<String, u32>,
}

impl<'m> Lower<'m> {
    fn new(m: &'m Module) -> Self {
        Self {
            m,
            draft: Draft::new(),
            type_cache: vec![None; m.types().len()],
            trap_function: None,
            reasons: rustc_hash::FxHashMap::default(),
        }
    }

    /// The LLVM type of Whale type `id`, or the error naming it.
    pub(crate) fn ty(&mut self, id: TypeId, location: &dyn Fn() -> String) -> Result<DraftTy, MapError> {
        if let Some(Some(t)) = self.type_cache.get(id.index()) {
            return Ok(*t);
        }
        let types = self.m.types();
        let unrepresentable = || MapError::no_llvm(format!("type {}", types.display(id)), location());
        let t = match types.key(id).clone() {
            TypeKey::Void => TypeSlot::VOID.0,
            TypeKey::Bool => TypeSlot::BOOL.0,
            TypeKey::Int { signed, bits } => match (signed, bits) {
                (true, 8) => TypeSlot::SBYTE.0,
                (false, 8) => TypeSlot::UBYTE.0,
                (true, 16) => TypeSlot::SHORT.0,
                (false, 16) => TypeSlot::USHORT.0,
                (true, 32) => TypeSlot::INT.0,
                (false, 32) => TypeSlot::UINT.0,
                (true, 64) => TypeSlot::LONG.0,
                (false, 64) => TypeSlot::ULONG.0,
                _ => return Err(unrepresentable()),
            },
            TypeKey::Float { bits: 32 } => TypeSlot::FLOAT.0,
            TypeKey::Float { bits: 64 } => TypeSlot::DOUBLE.0,
            TypeKey::Float { .. } => return Err(unrepresentable()),
            TypeKey::Ptr(p) => {
                if p == TypeId::VOID {
                    return Err(unrepresentable());
                }
                let p = self.ty(p, location)?;
                self.draft.types.pointer(p)
            }
            TypeKey::FnPtr(sig) => {
                let f = self.signature(sig, location)?;
                self.draft.types.pointer(f)
            }
            TypeKey::Array(e, len) => {
                let e = self.ty(e, location)?;
                let len = u32::try_from(len).map_err(|_| unrepresentable())?;
                self.draft.types.intern(DraftType::Array(e, len))
            }
            TypeKey::Struct(fields) | TypeKey::Tuple(fields) => {
                let fields = fields.iter().map(|&f| self.ty(f, location)).collect::<Result<_, _>>()?;
                self.draft.types.intern(DraftType::Struct(fields))
            }
        };
        if let Some(slot) = self.type_cache.get_mut(id.index()) {
            *slot = Some(t);
        }
        Ok(t)
    }

    /// The LLVM function type of a signature (the calling convention is not written).
    pub(crate) fn signature(&mut self, sig: ir::SigId, location: &dyn Fn() -> String) -> Result<DraftTy, MapError> {
        let key = self.m.types().sig(sig).clone();
        if key.variadic {
            return Err(MapError::no_llvm("a variadic signature", location()));
        }
        let ret = self.ty(key.ret, location)?;
        let params = key.params.iter().map(|&p| self.first_class(p, location)).collect::<Result<_, _>>()?;
        Ok(self.draft.types.intern(DraftType::Function { ret, params, varargs: false }))
    }

    /// The LLVM type of a Whale value type, which must be first class (not an aggregate) in LLVM 1.3.
    pub(crate) fn first_class(&mut self, id: TypeId, location: &dyn Fn() -> String) -> Result<DraftTy, MapError> {
        let t = self.ty(id, location)?;
        if matches!(self.draft.types.get(t), DraftType::Array(..) | DraftType::Struct(_)) {
            let types = self.m.types();
            return Err(MapError::no_llvm(format!("a value of aggregate type {}", types.display(id)), location()));
        }
        Ok(t)
    }

    /// The constant `value` of LLVM type `ty` (a primitive).
    pub(crate) fn constant(&mut self, ty: DraftTy, value: ConstValue) -> DraftValue {
        let signed = matches!(TypeSlot(ty), TypeSlot::SBYTE | TypeSlot::SHORT | TypeSlot::INT | TypeSlot::LONG);
        let c = match value {
            ConstValue::Bool(false) => DraftConst::Null(ty),
            ConstValue::Bool(true) => DraftConst::True,
            ConstValue::I(0) | ConstValue::U(0) => DraftConst::Null(ty),
            ConstValue::I(v) if signed => DraftConst::Signed(ty, v as i64),
            ConstValue::U(v) if !signed => DraftConst::Unsigned(ty, v as u64),
            ConstValue::I(v) => DraftConst::Unsigned(ty, v as u64),
            ConstValue::U(v) => DraftConst::Signed(ty, v as i64),
            ConstValue::F(FloatBits::F32(0)) | ConstValue::F(FloatBits::F64(0)) => DraftConst::Null(ty),
            ConstValue::F(FloatBits::F32(bits)) => DraftConst::Float(bits),
            ConstValue::F(FloatBits::F64(bits)) => DraftConst::Double(bits),
            ConstValue::F(FloatBits::F16(bits)) => DraftConst::Unsigned(ty, u64::from(bits)),
        };
        self.draft.constant(c)
    }

    fn module(&mut self) -> Result<(), MapError> {
        let m = self.m;
        self.draft.triple = m.target().as_bytes().to_vec();
        for g in m.globals() {
            let location = || format!("global @{}", g.name);
            let ty = self.ty(g.ty, &location)?;
            if !matches!(self.draft.types.get(ty), DraftType::Primitive(_)) {
                return Err(MapError::no_llvm(format!("a global of type {}", m.type_name(g.ty)), location()));
            }
            let natural = ir::allocation_align(&m.ty(g.ty), ir::Target::X86_64WhaleLinux).unwrap_or(0);
            if g.align != natural {
                return Err(MapError::no_llvm(format!("alignment {} (natural: {natural})", g.align), location()));
            }
            let DraftValue::Const(init) = self.init_expr(g.init_expr, &location)? else {
                return Err(MapError::no_llvm("a global initializer that is not a constant", location()));
            };
            let pointer = self.draft.types.pointer(ty);
            let name = Some(g.name.as_bytes().to_vec());
            self.draft.globals.push(DraftGlobal { pointer, init, linkage: format::Linkage::Internal, name });
        }
        let traps = m
            .functions()
            .any(|f| f.insts().iter().any(|data| matches!(data, InstData::Trap { .. } | InstData::TrapIf { .. })));
        for d in m.declarations() {
            let location = || format!("declaration @{}", d.name);
            let f = self.signature(d.sig, &location)?;
            let pointer = self.draft.types.pointer(f);
            let (linkage, name) = match d.linkage {
                ir::Linkage::Internal => (format::Linkage::Internal, d.name),
                ir::Linkage::External => (format::Linkage::External, d.link_name.unwrap_or(d.name)),
            };
            if traps && name == TRAP_FUNCTION {
                return Err(MapError::no_llvm(
                    format!("a function named `{TRAP_FUNCTION}` in a module that traps"),
                    location(),
                ));
            }
            let name = Some(name.as_bytes().to_vec());
            self.draft.functions.push(DraftFunction { pointer, linkage, name, body: None });
        }
        if traps {
            let sbyte_ptr = self.draft.types.pointer(TypeSlot::SBYTE.0);
            let f = self.draft.types.intern(DraftType::Function { ret: 0, params: vec![sbyte_ptr], varargs: false });
            let pointer = self.draft.types.pointer(f);
            self.trap_function = Some(self.draft.functions.len() as u32);
            let name = Some(TRAP_FUNCTION.as_bytes().to_vec());
            self.draft.functions.push(DraftFunction { pointer, linkage: format::Linkage::External, name, body: None });
        }
        let index: rustc_hash::FxHashMap<ir::FunctionId, usize> =
            m.declarations().enumerate().map(|(i, d)| (d.id, i)).collect();
        for f in m.functions() {
            let Some(&i) = index.get(&f.id) else {
                return Err(MapError::no_llvm("a body without a declaration", format!("function @{}", f.name)));
            };
            let body = body::lower_body(self, &index, f)?;
            if let Some(slot) = self.draft.functions.get_mut(i) {
                slot.body = Some(body);
            }
        }
        Ok(())
    }

    /// A global initializer: literals, wrapping add/sub/mul and comparisons become constants and constant
    /// expressions; a reference to another global becomes that global's value (LLVM names a global's address, not
    /// its value).
    fn init_expr(&mut self, e: &ConstExpr, location: &dyn Fn() -> String) -> Result<DraftValue, MapError> {
        let ty = match e.ty.scalar_type_id() {
            Some(id) => self.ty(id, location)?,
            None => return Err(MapError::no_llvm(format!("a constant of type {}", e.ty), location())),
        };
        Ok(match &e.kind {
            ConstExprKind::Literal(v) => self.constant(ty, *v),
            ConstExprKind::Reference(ConstRef::Global(g)) => {
                let Some(global) = self.m.global(*g) else {
                    return Err(MapError::no_llvm(format!("a reference to unknown global {g:?}"), location()));
                };
                self.constant(ty, global.init)
            }
            ConstExprKind::Reference(ConstRef::Local(v)) => {
                return Err(MapError::no_llvm(format!("a reference to local value {v:?}"), location()))
            }
            ConstExprKind::Binary { op, lhs, rhs } => {
                let opcode = match op {
                    ConstBinOp::Add => Opcode::Add,
                    ConstBinOp::Sub => Opcode::Sub,
                    ConstBinOp::Mul => Opcode::Mul,
                };
                let operands = vec![self.init_expr(lhs, location)?, self.init_expr(rhs, location)?];
                self.draft.constant(DraftConst::Expr { ty, opcode, operands })
            }
            ConstExprKind::Compare { op, lhs, rhs } => {
                let opcode = match op {
                    ConstCmpOp::Eq => Opcode::SetEq,
                    ConstCmpOp::Ne => Opcode::SetNe,
                    ConstCmpOp::Lt => Opcode::SetLt,
                    ConstCmpOp::Le => Opcode::SetLe,
                    ConstCmpOp::Gt => Opcode::SetGt,
                    ConstCmpOp::Ge => Opcode::SetGe,
                };
                let operands = vec![self.init_expr(lhs, location)?, self.init_expr(rhs, location)?];
                self.draft.constant(DraftConst::Expr { ty: TypeSlot::BOOL.0, opcode, operands })
            }
        })
    }

    /// The `sbyte*` constant expression pointing at the NUL-terminated reason text (one global per distinct text).
    pub(crate) fn reason(&mut self, text: &str) -> DraftValue {
        let global = match self.reasons.get(text) {
            Some(&g) => g,
            None => {
                let mut bytes = text.as_bytes().to_vec();
                bytes.push(0);
                let array = self.draft.types.intern(DraftType::Array(TypeSlot::SBYTE.0, bytes.len() as u32));
                let init = self.draft.constant_id(DraftConst::String(array, bytes));
                let pointer = self.draft.types.pointer(array);
                let g = self.draft.globals.len() as u32;
                self.draft.globals.push(DraftGlobal { pointer, init, linkage: format::Linkage::Internal, name: None });
                self.reasons.insert(text.to_string(), g);
                g
            }
        };
        let zero = self.draft.constant(DraftConst::Null(TypeSlot::LONG.0));
        let ty = self.draft.types.pointer(TypeSlot::SBYTE.0);
        let operands = vec![DraftValue::Global(global), zero, zero];
        self.draft.constant(DraftConst::Expr { ty, opcode: Opcode::GetElementPtr, operands })
    }
}
