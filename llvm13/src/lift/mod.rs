//! LLVM 1.x bytecode to Whale IR (the table in `docs/llvm13.md`, "Whale mapping").
//!
//! The format layer reads the bytes into its model; this module maps the model's types, globals and functions, and
//! [`body`] each function body, through the hidden `ir::ModuleAssembler`, then the result is verified. Bytecode records
//! no value or block ids, and they are function-scoped: every function's are numbered from zero in layout order
//! (parameters, then results). Constructs Whale lacks fail with
//! [`MapError::NoWhaleEquivalent`] naming them and their location.

mod body;

use rustc_hash::FxHashMap as HashMap;

use ir::{
    CallingConvention, ConstBinOp, ConstCmpOp, ConstExpr, ConstExprKind, ConstValue, DataLayout, Endian, FloatBits,
    FunctionId, FunctionSignature, GlobalId, ModuleAssembler, Type, TypeId,
};

use crate::format::{self, Constant, Opcode, Ty, TypeDef, TypeSlot, Types};
use crate::lower::TRAP_FUNCTION;
use crate::map_error::MapError;

/// Reads LLVM 1.x bytecode (revisions 0 to 3) as a verified Whale module.
///
/// ```
/// assert!(llvm13::read_whale(b"not bytecode").is_err());
/// ```
pub fn read_whale(bytes: &[u8]) -> Result<ir::Module, MapError> {
    let model = format::read_module(bytes)?;
    let module = model_to_whale(&model)?;
    ir::verify_module(&module).map_err(|e| MapError::Verify(Box::new(e)))?;
    Ok(module)
}

/// Maps an LLVM 1.x format model to a Whale module, without verifying it.
pub fn model_to_whale(m: &format::Module) -> Result<ir::Module, MapError> {
    let mut lift = Lift::new(m);
    lift.module()?;
    lift.asm.finish().map_err(|e| MapError::no_whale(format!("a module that cannot be assembled ({e})"), "the module"))
}

/// A module-level value of a plane.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ModuleValue<'a> {
    Global(usize),
    Function(usize),
    String(usize),
    Const(&'a Constant),
}

/// Deepest type or constant-expression nesting the reader maps.
const MAX_DEPTH: usize = 64;

/// Most constants one global initializer may expand to. Constants name other constants by slot, so a few bytes can
/// describe an expression whose tree is exponentially large (`add (c, c)` naming itself); Whale's constant
/// expressions are trees, so the mapping counts every constant each time it is named.
const MAX_INIT_PARTS: usize = 1 << 16;

/// Where the mapping of one initializer is: its nesting depth and how many constants it has expanded.
#[derive(Default)]
struct InitWalk {
    depth: usize,
    parts: usize,
}

pub(crate) struct Lift<'a> {
    pub(crate) m: &'a format::Module,
    pub(crate) asm: ModuleAssembler,
    /// Module values per canonical plane, without the null.
    pub(crate) planes: HashMap<TypeSlot, Vec<ModuleValue<'a>>>,
    pub(crate) type_cache: HashMap<TypeSlot, TypeId>,
    pub(crate) trap_function: Option<usize>,
    /// Whale function of each LLVM function (`None` for the trap function).
    pub(crate) functions: Vec<Option<FunctionId>>,
    /// Reason text of each string global.
    pub(crate) reasons: HashMap<usize, String>,
    pub(crate) next_value: u32,
    pub(crate) next_block: u32,
    /// Pointer types of the module pool.
    pub(crate) pointers: std::rc::Rc<format::typing::PointerIndex>,
    /// The buffers of the body mapping, reused from one function to the next.
    body_buffers: body::BodyBuffers<'a>,
}

impl<'a> Lift<'a> {
    fn new(m: &'a format::Module) -> Self {
        let target = if m.target_triple.is_empty() {
            "x86_64-whale-linux".to_string()
        } else {
            String::from_utf8_lossy(&m.target_triple).into_owned()
        };
        let layout = DataLayout {
            pointer_bits: if m.pointer_size == format::PointerSize::Bits32 { 32 } else { 64 },
            endian: if m.endianness == format::Endianness::Big { Endian::Big } else { Endian::Little },
        };
        Self {
            m,
            asm: ModuleAssembler::new(&target, layout, u32::MAX - 1),
            planes: HashMap::default(),
            type_cache: HashMap::default(),
            trap_function: None,
            functions: Vec::new(),
            reasons: HashMap::default(),
            next_value: 0,
            next_block: 0,
            pointers: std::rc::Rc::new(format::typing::PointerIndex::new(&Types::module(&m.types))),
            body_buffers: body::BodyBuffers::default(),
        }
    }

    pub(crate) fn module_types(&self) -> Types<'a> {
        Types::module(&self.m.types)
    }

    /// The module value at (plane, slot): `Ok(None)` for the null.
    pub(crate) fn module_value(
        &self,
        types: &Types<'_>,
        plane: TypeSlot,
        slot: u32,
    ) -> Option<Option<ModuleValue<'a>>> {
        let plane = types.canon(plane);
        let null = u32::from(types.has_null(plane, self.m.revision));
        if slot < null {
            return Some(None);
        }
        self.planes.get(&plane).and_then(|p| p.get((slot - null) as usize)).map(|v| Some(*v))
    }

    /// Number of module values in a plane, the null included.
    pub(crate) fn module_count(&self, types: &Types<'_>, plane: TypeSlot) -> u32 {
        let plane = types.canon(plane);
        let null = u32::from(types.has_null(plane, self.m.revision));
        null + self.planes.get(&plane).map_or(0, |p| p.len() as u32)
    }

    /// The Whale type of LLVM type `slot` (function pointers get the `whale` convention).
    pub(crate) fn ty(
        &mut self,
        types: &Types<'_>,
        slot: TypeSlot,
        location: &dyn Fn() -> String,
    ) -> Result<TypeId, MapError> {
        let cacheable = (slot.0 as usize) < 13 + self.m.types.len();
        if cacheable {
            if let Some(&t) = self.type_cache.get(&slot) {
                return Ok(t);
            }
        }
        let ty = self.type_tree(types, slot, location, 0)?;
        let id = self.asm.types_mut().intern_type(&ty);
        if cacheable {
            self.type_cache.insert(slot, id);
        }
        Ok(id)
    }

    fn type_tree(
        &self,
        types: &Types<'_>,
        slot: TypeSlot,
        location: &dyn Fn() -> String,
        depth: usize,
    ) -> Result<Type, MapError> {
        let fail = |what: String| Err(MapError::no_whale(what, location()));
        if depth > MAX_DEPTH {
            return fail(format!("type {slot} nested deeper than {MAX_DEPTH} levels (or recursive)"));
        }
        Ok(match types.get(slot) {
            None => return fail(format!("type slot {slot}")),
            Some(Ty::Primitive(p)) => match p {
                TypeSlot::VOID => Type::Void,
                TypeSlot::BOOL => Type::Bool,
                TypeSlot::UBYTE => Type::U8,
                TypeSlot::SBYTE => Type::I8,
                TypeSlot::USHORT => Type::U16,
                TypeSlot::SHORT => Type::I16,
                TypeSlot::UINT => Type::U32,
                TypeSlot::INT => Type::I32,
                TypeSlot::ULONG => Type::U64,
                TypeSlot::LONG => Type::I64,
                TypeSlot::FLOAT => Type::F32,
                TypeSlot::DOUBLE => Type::F64,
                _ => return fail("type `label` as a value type".to_string()),
            },
            Some(Ty::Def(def)) => match def {
                TypeDef::Pointer(p) => match types.get(*p) {
                    Some(Ty::Def(TypeDef::Function { ret, params, varargs })) => {
                        let sig = self.signature_tree(
                            types,
                            *ret,
                            params,
                            *varargs,
                            CallingConvention::Whale,
                            location,
                            depth,
                        )?;
                        Type::FnPtr(Box::new(sig))
                    }
                    _ => Type::Ptr(Box::new(self.type_tree(types, *p, location, depth + 1)?)),
                },
                TypeDef::Array { element, len } => {
                    Type::Array(Box::new(self.type_tree(types, *element, location, depth + 1)?), u64::from(*len))
                }
                TypeDef::Struct(fields) => Type::Struct(
                    fields.iter().map(|&f| self.type_tree(types, f, location, depth + 1)).collect::<Result<_, _>>()?,
                ),
                TypeDef::Function { .. } => return fail("a function type as a value type".to_string()),
                TypeDef::Opaque => return fail("type `opaque`".to_string()),
                TypeDef::Primitive(_) => return fail(format!("type slot {slot}")),
            },
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn signature_tree(
        &self,
        types: &Types<'_>,
        ret: TypeSlot,
        params: &[TypeSlot],
        varargs: bool,
        convention: CallingConvention,
        location: &dyn Fn() -> String,
        depth: usize,
    ) -> Result<FunctionSignature, MapError> {
        if varargs {
            return Err(MapError::no_whale("a varargs function type", location()));
        }
        Ok(FunctionSignature {
            params: params.iter().map(|&p| self.type_tree(types, p, location, depth + 1)).collect::<Result<_, _>>()?,
            ret: self.type_tree(types, ret, location, depth + 1)?,
            convention,
            variadic: false,
        })
    }

    fn module(&mut self) -> Result<(), MapError> {
        let m = self.m;
        let types = self.module_types();
        // One index for the name of every global and function, instead of a scan of the table for each.
        let symbols = format::SymbolIndex::new(&m.symbols);
        let symbol = |plane, slot| symbols.name_of(plane, slot).map(|n| String::from_utf8_lossy(n).into_owned());
        // Module planes: globals, functions, strings, then the pool's constants (§5.1).
        let mut slots_of_globals = Vec::new();
        for (i, g) in m.globals.iter().enumerate() {
            let p = self.planes.entry(types.canon(g.ty)).or_default();
            p.push(ModuleValue::Global(i));
            slots_of_globals.push(p.len() as u32 - 1 + u32::from(types.has_null(g.ty, m.revision)));
        }
        let mut slots_of_functions = Vec::new();
        for (i, f) in m.functions.iter().enumerate() {
            let p = self.planes.entry(types.canon(f.ty)).or_default();
            p.push(ModuleValue::Function(i));
            slots_of_functions.push(p.len() as u32 - 1 + u32::from(types.has_null(f.ty, m.revision)));
        }
        for (i, s) in m.constants.strings.iter().enumerate() {
            self.planes.entry(types.canon(s.ty)).or_default().push(ModuleValue::String(i));
        }
        for p in &m.constants.planes {
            let plane = self.planes.entry(types.canon(p.ty)).or_default();
            plane.extend(p.constants.iter().map(ModuleValue::Const));
        }

        // Globals: string globals carry trap reasons; the others must be scalar constants.
        let mut next_global = 0u32;
        for (i, g) in m.globals.iter().enumerate() {
            let name = symbol(g.ty, slots_of_globals[i]);
            let location =
                || format!("global %{}", symbol(g.ty, slots_of_globals[i]).unwrap_or_else(|| format!("{i}")));
            let Some(pointee) = types.pointee(g.ty) else {
                return Err(MapError::no_whale(format!("a global of non-pointer type slot {}", g.ty), location()));
            };
            let Some(init) = g.initializer else {
                return Err(MapError::no_whale("a global variable without initializer", location()));
            };
            if let Some(Ty::Def(TypeDef::Array { element, .. })) = types.get(pointee) {
                if matches!(types.canon(*element), TypeSlot::SBYTE | TypeSlot::UBYTE) {
                    if let Some(Some(ModuleValue::String(s))) = self.module_value(&types, pointee, init) {
                        let mut bytes = m.constants.strings[s].bytes.clone();
                        if bytes.last() == Some(&0) {
                            bytes.pop();
                        }
                        self.reasons.insert(i, String::from_utf8_lossy(&bytes).into_owned());
                        continue;
                    }
                }
            }
            let ty = self.ty(&types, pointee, &location)?;
            let whale_ty = self.asm.types().to_type(ty);
            if whale_ty.scalar_type_id().is_none_or(|t| t == TypeId::VOID) {
                return Err(MapError::no_whale(format!("a global variable of type {whale_ty}"), location()));
            }
            let expr = self.init_expr(&types, pointee, &whale_ty, init, &location, &mut InitWalk::default())?;
            let value = ir::const_expr::evaluate(&expr, ir::const_expr::DEFAULT_CONST_EXPR_DEPTH, &mut |_| {
                Err(ir::ConstEvalError::UnknownReference("a global".to_string()))
            })
            .map_err(|e| MapError::no_whale(format!("an initializer that does not evaluate ({e})"), location()))?;
            let align = ir::allocation_align(&whale_ty, ir::Target::X86_64WhaleLinux).unwrap_or(1);
            let name_id = self.asm.intern(name.as_deref().unwrap_or(&format!("__llvm_global{i}")));
            self.asm
                .add_global(GlobalId::from_u32(next_global), name_id, ty, value, expr, align)
                .map_err(|e| MapError::no_whale(e.to_string(), location()))?;
            next_global += 1;
        }

        // Which functions have their address taken (they then keep the `whale` convention, like function pointers).
        let mut address_taken = vec![false; m.functions.len()];
        let mut analysis = format::typing::Analysis::default();
        for f in &m.functions {
            let Some(body) = &f.body else { continue };
            let ftypes = Types { module: &m.types, local: &body.types };
            let local_pointers = format::typing::PointerIndex::local(&ftypes);
            let pointers = format::typing::Pointers::new(&self.pointers, local_pointers.as_ref());
            for inst in body.blocks.iter().flat_map(|b| &b.instructions) {
                let callee = matches!(inst.opcode, Opcode::Call | Opcode::Invoke);
                if format::typing::analyze_into(&ftypes, pointers, inst, &|_, _| Some(0), &mut analysis).is_err() {
                    continue;
                }
                for (i, (o, plane)) in inst.operands.iter().zip(&analysis.planes).enumerate() {
                    if let (format::Operand::Value(slot), Some(plane)) = (o, plane) {
                        if callee && i == 0 {
                            continue;
                        }
                        if let Some(Some(ModuleValue::Function(fi))) = self.module_value(&ftypes, *plane, *slot) {
                            address_taken[fi] = true;
                        }
                    }
                }
            }
        }

        let mut next_function = 0u32;
        let mut names = Vec::new();
        let mut signatures: HashMap<(TypeSlot, CallingConvention), ir::SigId> = HashMap::default();
        for (i, f) in m.functions.iter().enumerate() {
            let name = symbol(f.ty, slots_of_functions[i]);
            // The name is looked up again for an error rather than copied for every function.
            let location =
                || format!("function %{}", symbol(f.ty, slots_of_functions[i]).unwrap_or_else(|| format!("{i}")));
            let Some((ret, params, varargs)) = types.callee(f.ty) else {
                return Err(MapError::no_whale("a function whose type is not a function pointer", location()));
            };
            if name.as_deref() == Some(TRAP_FUNCTION)
                && f.body.is_none()
                && ret == TypeSlot::VOID
                && params.len() == 1
                && types.pointee(params[0]).map(|p| types.canon(p)) == Some(TypeSlot::SBYTE)
            {
                self.trap_function = Some(i);
                self.functions.push(None);
                names.push(String::new());
                continue;
            }
            let external = match f.linkage {
                format::Linkage::Internal => false,
                format::Linkage::External => true,
                other => return Err(MapError::no_whale(format!("linkage `{}`", other.keyword()), location())),
            };
            let convention = if f.body.is_none() && !address_taken[i] {
                CallingConvention::SysV64
            } else {
                CallingConvention::Whale
            };
            // Functions of one type and convention share a signature, mapped once.
            let sig = match signatures.get(&(f.ty, convention)) {
                Some(&sig) => sig,
                None => {
                    let tree = self.signature_tree(&types, ret, params, varargs, convention, &location, 0)?;
                    let sig = self.asm.types_mut().intern_signature(&tree);
                    signatures.insert((f.ty, convention), sig);
                    sig
                }
            };
            let name = match name {
                Some(n) => n,
                None if external => return Err(MapError::no_whale("an external function without a name", location())),
                None => format!("__llvm_function{i}"),
            };
            let name_id = self.asm.intern(&name);
            let (linkage, link_name) =
                if external { (ir::Linkage::External, Some(name_id)) } else { (ir::Linkage::Internal, None) };
            let id = FunctionId::from_u32(next_function);
            next_function += 1;
            self.asm
                .add_declaration(id, name_id, sig, linkage, link_name)
                .map_err(|e| MapError::no_whale(e.to_string(), location()))?;
            self.functions.push(Some(id));
            names.push(name);
        }
        for (i, f) in m.functions.iter().enumerate() {
            let (Some(body), Some(id)) = (&f.body, self.functions[i]) else { continue };
            body::lift_body(self, i, f, body, id, &names[i])?;
        }
        Ok(())
    }

    /// A global initializer as a Whale constant expression: plain constants, and add/sub/mul/setcc expressions.
    fn init_expr(
        &self,
        types: &Types<'_>,
        plane: TypeSlot,
        ty: &Type,
        slot: u32,
        location: &dyn Fn() -> String,
        walk: &mut InitWalk,
    ) -> Result<ConstExpr, MapError> {
        if walk.depth > MAX_DEPTH {
            return Err(MapError::no_whale(format!("a constant expression deeper than {MAX_DEPTH}"), location()));
        }
        walk.parts += 1;
        if walk.parts > MAX_INIT_PARTS {
            let what = format!("an initializer of more than {MAX_INIT_PARTS} constants (counting repeats)");
            return Err(MapError::no_whale(what, location()));
        }
        let value = match self.module_value(types, plane, slot) {
            Some(None) => return Ok(ConstExpr::literal(ty.clone(), zero(ty))),
            Some(Some(ModuleValue::Const(c))) => c,
            _ => return Err(MapError::no_whale("an initializer that is not a constant", location())),
        };
        if let Some(v) = const_value(value, ty) {
            return Ok(ConstExpr::literal(ty.clone(), v));
        }
        let Constant::Expr { opcode, operands } = value else {
            return Err(MapError::no_whale(format!("a constant of type {ty}"), location()));
        };
        let [lhs, rhs] = operands.as_slice() else {
            return Err(MapError::no_whale(format!("constant expression `{}`", opcode.mnemonic()), location()));
        };
        let operand_ty = self.type_tree(types, lhs.ty, location, 0)?;
        walk.depth += 1;
        let l = Box::new(self.init_expr(types, lhs.ty, &operand_ty, lhs.slot, location, walk)?);
        let r = Box::new(self.init_expr(types, rhs.ty, &operand_ty, rhs.slot, location, walk)?);
        walk.depth -= 1;
        let kind = match opcode {
            Opcode::Add => ConstExprKind::Binary { op: ConstBinOp::Add, lhs: l, rhs: r },
            Opcode::Sub => ConstExprKind::Binary { op: ConstBinOp::Sub, lhs: l, rhs: r },
            Opcode::Mul => ConstExprKind::Binary { op: ConstBinOp::Mul, lhs: l, rhs: r },
            Opcode::SetEq => ConstExprKind::Compare { op: ConstCmpOp::Eq, lhs: l, rhs: r },
            Opcode::SetNe => ConstExprKind::Compare { op: ConstCmpOp::Ne, lhs: l, rhs: r },
            Opcode::SetLt => ConstExprKind::Compare { op: ConstCmpOp::Lt, lhs: l, rhs: r },
            Opcode::SetLe => ConstExprKind::Compare { op: ConstCmpOp::Le, lhs: l, rhs: r },
            Opcode::SetGt => ConstExprKind::Compare { op: ConstCmpOp::Gt, lhs: l, rhs: r },
            Opcode::SetGe => ConstExprKind::Compare { op: ConstCmpOp::Ge, lhs: l, rhs: r },
            other => {
                return Err(MapError::no_whale(
                    format!("constant expression `{}` in an initializer", other.mnemonic()),
                    location(),
                ))
            }
        };
        Ok(ConstExpr { ty: ty.clone(), kind })
    }
}

/// The zero of a scalar Whale type.
pub(crate) fn zero(ty: &Type) -> ConstValue {
    match ty {
        Type::Bool => ConstValue::Bool(false),
        Type::F32 => ConstValue::F(FloatBits::F32(0)),
        Type::F64 => ConstValue::F(FloatBits::F64(0)),
        Type::I8 | Type::I16 | Type::I32 | Type::I64 => ConstValue::I(0),
        _ => ConstValue::U(0),
    }
}

/// A plain constant as a Whale payload of type `ty`.
pub(crate) fn const_value(c: &Constant, ty: &Type) -> Option<ConstValue> {
    Some(match (c, ty) {
        (Constant::Bool(b), Type::Bool) => ConstValue::Bool(*b),
        (Constant::Signed(v), Type::I8 | Type::I16 | Type::I32 | Type::I64) => ConstValue::I(i128::from(*v)),
        (Constant::Unsigned(v), Type::U8 | Type::U16 | Type::U32 | Type::U64) => ConstValue::U(u128::from(*v)),
        (Constant::Float(bits), Type::F32) => ConstValue::F(FloatBits::F32(*bits)),
        (Constant::Double(bits), Type::F64) => ConstValue::F(FloatBits::F64(*bits)),
        _ => return None,
    })
}
