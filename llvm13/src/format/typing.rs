//! What an instruction's operands and result are, by opcode (`llvm13.md` §5.2, §10.6): the plane of every value
//! operand and the result type. Shared by the reader (to number results and check references) and the writer (to
//! map slots through compaction tables and encode getelementptr indices).

use rustc_hash::FxHashMap;

use super::instruction::{IndexKind, Instruction, Operand};
use super::opcode::Opcode;
use super::types::{Ty, TypeDef, TypeSlot, Types};

/// One step of a getelementptr walk.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GepStep<'a> {
    /// Into a pointer or array: any integer index, then this element type.
    Sequential(TypeSlot),
    /// Into a struct: a constant field number.
    Struct(&'a [TypeSlot]),
}

/// The step an index applied to a value of type `current` takes, or `None` when `current` cannot be indexed.
pub(crate) fn gep_step<'a>(types: &Types<'a>, current: TypeSlot) -> Option<GepStep<'a>> {
    match types.get(current)? {
        Ty::Def(TypeDef::Pointer(p)) => Some(GepStep::Sequential(*p)),
        Ty::Def(TypeDef::Array { element, .. }) => Some(GepStep::Sequential(*element)),
        Ty::Def(TypeDef::Struct(fields)) => Some(GepStep::Struct(fields)),
        _ => None,
    }
}

/// The first pointer type to each pointee plane in one type pool: the module's, or a function's own types.
///
/// Together ([`Pointers`]) they answer what [`Types::pointer_to`] finds, by a lookup or two instead of a scan of the
/// type pool (a getelementptr result needs it). A function's own types get an index of their own rather than a copy
/// of the module's extended by them, so that a module of many functions with types of their own is indexed in time
/// linear in its types.
#[derive(Clone, Debug, Default)]
pub(crate) struct PointerIndex {
    first: FxHashMap<TypeSlot, TypeSlot>,
}

impl PointerIndex {
    /// Indexes the pointer types of the module pool of `types`.
    pub(crate) fn new(types: &Types<'_>) -> Self {
        Self::of_pool(types, types.module, 0)
    }

    /// Indexes the pointer types of a function's own types (`types.local`), or `None` when it has none.
    pub(crate) fn local(types: &Types<'_>) -> Option<Self> {
        (!types.local.is_empty()).then(|| Self::of_pool(types, types.local, types.module.len()))
    }

    /// Indexes `pool`, whose first type has pool index `start`.
    fn of_pool(types: &Types<'_>, pool: &[TypeDef], start: usize) -> Self {
        let mut first = FxHashMap::default();
        for (i, d) in pool.iter().enumerate() {
            if let TypeDef::Pointer(p) = d {
                first.entry(types.canon(*p)).or_insert(TypeSlot::from_pool_index(start + i));
            }
        }
        Self { first }
    }
}

/// The pointer types a function sees: the module's, then its own.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pointers<'a> {
    module: &'a PointerIndex,
    local: Option<&'a PointerIndex>,
}

impl<'a> Pointers<'a> {
    /// The module's pointer types (`module`, from [`PointerIndex::new`]) followed by a function's (`local`).
    pub(crate) fn new(module: &'a PointerIndex, local: Option<&'a PointerIndex>) -> Self {
        Self { module, local }
    }

    /// The first pointer type whose pointee is `pointee` (compared by plane), module types first.
    pub(crate) fn pointer_to(&self, types: &Types<'_>, pointee: TypeSlot) -> Option<TypeSlot> {
        let plane = types.canon(pointee);
        self.module.first.get(&plane).or_else(|| self.local?.first.get(&plane)).copied()
    }
}

/// The planes of an instruction's operands and its result type.
#[derive(Clone, Debug, Default)]
pub(crate) struct Analysis {
    /// Per operand: the plane of its value (for values, indices and varargs pairs).
    pub planes: Vec<Option<TypeSlot>>,
    /// Per operand of a getelementptr: true for an index that selects a struct field (empty for other opcodes).
    struct_index: Vec<bool>,
    /// The result type (`void` when there is none).
    pub result: TypeSlot,
}

impl Analysis {
    /// True when operand `i` is a getelementptr index that selects a struct field.
    pub fn is_struct_index(&self, i: usize) -> bool {
        self.struct_index.get(i).copied().unwrap_or(false)
    }
}

/// Analyses `inst` against `types` (whose pointer types `pointers` indexes); `int` yields the plain integer at
/// (plane, slot) for struct indices.
pub(crate) fn analyze(
    types: &Types<'_>,
    pointers: Pointers<'_>,
    inst: &Instruction,
    int: &dyn Fn(TypeSlot, u32) -> Option<u64>,
) -> Result<Analysis, &'static str> {
    let mut a = Analysis::default();
    analyze_into(types, pointers, inst, int, &mut a)?;
    Ok(a)
}

/// [`analyze`] into `out`, reusing its buffers.
pub(crate) fn analyze_into(
    types: &Types<'_>,
    pointers: Pointers<'_>,
    inst: &Instruction,
    int: &dyn Fn(TypeSlot, u32) -> Option<u64>,
    out: &mut Analysis,
) -> Result<(), &'static str> {
    let t = inst.ty;
    let ops = &inst.operands;
    let n = ops.len();
    let planes = &mut out.planes;
    planes.clear();
    planes.resize(n, None);
    let struct_index = &mut out.struct_index;
    struct_index.clear();
    let value = |i: usize| matches!(ops.get(i), Some(Operand::Value(_)));
    let block = |i: usize| matches!(ops.get(i), Some(Operand::Block(_)));
    let all_values = |range: std::ops::Range<usize>| range.clone().all(value);
    if !types.contains(t) {
        return Err("the type field names no type");
    }
    let result = match inst.opcode {
        Opcode::Ret => {
            match n {
                0 => {}
                1 if value(0) => planes[0] = Some(t),
                _ => return Err("takes no operand or one value"),
            }
            TypeSlot::VOID
        }
        Opcode::Br => {
            match n {
                1 if block(0) => {}
                3 if block(0) && block(1) && value(2) => planes[2] = Some(TypeSlot::BOOL),
                _ => return Err("takes a block, or two blocks and a bool condition"),
            }
            TypeSlot::VOID
        }
        Opcode::Switch => {
            if n < 2 || n % 2 != 0 || !(0..n).all(|i| if i % 2 == 0 { value(i) } else { block(i) }) {
                return Err("takes a condition, a default block and (value, block) pairs");
            }
            (0..n).step_by(2).for_each(|i| planes[i] = Some(t));
            TypeSlot::VOID
        }
        Opcode::Invoke | Opcode::Call => {
            let fixed_start = if inst.opcode == Opcode::Invoke { 3 } else { 1 };
            if n < fixed_start || !value(0) {
                return Err("needs a callee value");
            }
            if inst.opcode == Opcode::Invoke && !(block(1) && block(2)) {
                return Err("needs a normal and an unwind block after the callee");
            }
            let (ret, params, varargs) = types.callee(t).ok_or("the type field is not a pointer to a function")?;
            planes[0] = Some(t);
            let args = &ops[fixed_start..];
            if args.len() < params.len() || (!varargs && args.len() != params.len()) {
                return Err("argument count does not match the function type");
            }
            for (i, &p) in params.iter().enumerate() {
                if !value(fixed_start + i) {
                    return Err("a fixed argument is not a value");
                }
                planes[fixed_start + i] = Some(p);
            }
            for (i, op) in args.iter().enumerate().skip(params.len()) {
                match op {
                    Operand::VarArg { ty, .. } if types.contains(*ty) => planes[fixed_start + i] = Some(*ty),
                    _ => return Err("an extra argument is not a (type, value) pair"),
                }
            }
            ret
        }
        Opcode::Unwind => {
            if n != 0 {
                return Err("takes no operands");
            }
            TypeSlot::VOID
        }
        op if op.is_binary() => {
            if n != 2 || !all_values(0..2) {
                return Err("takes two values");
            }
            planes[0] = Some(t);
            planes[1] = Some(t);
            if op.is_comparison() {
                TypeSlot::BOOL
            } else {
                t
            }
        }
        Opcode::Malloc | Opcode::Alloca => {
            types.pointee(t).ok_or("the type field is not a pointer")?;
            match n {
                0 => {}
                1 if value(0) => planes[0] = Some(TypeSlot::UINT),
                _ => return Err("takes at most one uint count"),
            }
            t
        }
        Opcode::Free => {
            if n != 1 || !value(0) {
                return Err("takes one pointer");
            }
            planes[0] = Some(t);
            TypeSlot::VOID
        }
        Opcode::Load | Opcode::VolatileLoad => {
            if n != 1 || !value(0) {
                return Err("takes one pointer");
            }
            planes[0] = Some(t);
            types.pointee(t).ok_or("the type field is not a pointer")?
        }
        Opcode::Store | Opcode::VolatileStore => {
            if n != 2 || !all_values(0..2) {
                return Err("takes a value and a pointer");
            }
            planes[0] = Some(types.pointee(t).ok_or("the type field is not a pointer")?);
            planes[1] = Some(t);
            TypeSlot::VOID
        }
        Opcode::GetElementPtr => {
            if n == 0 || !value(0) {
                return Err("needs a pointer");
            }
            planes[0] = Some(t);
            let mut current = t;
            for i in 1..n {
                let Operand::Index { kind, slot } = ops[i] else { return Err("an index is not an index operand") };
                planes[i] = Some(kind.plane());
                current = match gep_step(types, current).ok_or("indexes into a type that is not an aggregate")? {
                    GepStep::Sequential(element) => {
                        if i == 1 && types.pointee(t).is_none() {
                            return Err("the type field is not a pointer");
                        }
                        element
                    }
                    GepStep::Struct(fields) => {
                        if !matches!(kind, IndexKind::Uint | IndexKind::Ubyte) {
                            return Err("a struct index must be uint (ubyte in revisions 0 and 1)");
                        }
                        struct_index.resize(n, false);
                        struct_index[i] = true;
                        let field = int(kind.plane(), slot).ok_or("a struct index is not a constant")?;
                        *usize::try_from(field).ok().and_then(|f| fields.get(f)).ok_or("struct index out of range")?
                    }
                };
            }
            if n == 1 {
                types.pointee(t).ok_or("the type field is not a pointer")?;
                t
            } else {
                pointers.pointer_to(types, current).ok_or("no pointer type to the indexed type exists")?
            }
        }
        Opcode::Phi => {
            if n < 2 || n % 2 != 0 || !(0..n).all(|i| if i % 2 == 0 { value(i) } else { block(i) }) {
                return Err("takes (value, block) pairs");
            }
            (0..n).step_by(2).for_each(|i| planes[i] = Some(t));
            t
        }
        Opcode::Cast | Opcode::VaArg | Opcode::VaNext => {
            let Some(&Operand::Type(target)) = ops.get(1) else { return Err("takes a value and a type") };
            if n != 2 || !value(0) || !types.contains(target) {
                return Err("takes a value and a type");
            }
            planes[0] = Some(t);
            if inst.opcode == Opcode::VaNext {
                t
            } else {
                target
            }
        }
        Opcode::Shl | Opcode::Shr => {
            if n != 2 || !all_values(0..2) {
                return Err("takes a value and a ubyte amount");
            }
            planes[0] = Some(t);
            planes[1] = Some(TypeSlot::UBYTE);
            t
        }
        Opcode::Select => {
            if n != 3 || !all_values(0..3) {
                return Err("takes a bool condition and two values");
            }
            planes[0] = Some(TypeSlot::BOOL);
            planes[1] = Some(t);
            planes[2] = Some(t);
            t
        }
        _ => return Err("not an instruction opcode"),
    };
    for p in planes.iter_mut().flatten() {
        *p = types.canon(*p);
    }
    out.result = types.canon(result);
    Ok(())
}
