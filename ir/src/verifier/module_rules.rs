//! Module-level rules: forbidden `undef` and memory layouts (F4 pre-pass), the
//! target, globals and their constant expressions, declarations and definitions
//! (whale-upstream §d.1 items 1–6, §c.4).

use rustc_hash::{FxHashMap, FxHashSet};

use super::facts::TypeFacts;
use super::{Ctx, VerifyError};
use crate::build_error::CallError;
use crate::const_expr::{evaluate, ConstEvalError, ConstRef, DEFAULT_CONST_EXPR_DEPTH};
use crate::constant::ConstValue;
use crate::entity::{EntityRef, GlobalId, TypeId};
use crate::inst::InstData;
use crate::layout::layout_of_id;
use crate::module::Linkage;
use crate::opcode::Opcode;
use crate::signature::{is_well_formed_type, validate_signature};
use crate::target::Target;
use crate::types::TypeKey;

/// In function `f`: `undef` is rejected, and every type a memory operation
/// touches must have a layout. Layouts are cached in `facts`, shared by all
/// functions. The function walk calls [`forbidden_inst`] itself; this walk is
/// for functions whose block structure keeps the walk from running.
pub(super) fn forbidden_and_layout(ctx: &mut Ctx<'_>, f: &crate::module::Function<'_>, facts: &mut TypeFacts) {
    for &b in f.blocks {
        if !f.has_block(b) {
            continue;
        }
        let (insts, results, start) = f.block_slices(b);
        for (i, (data, result)) in insts.iter().zip(results).enumerate() {
            if has_forbidden_rules(data) {
                let inst = crate::entity::InstId::from_u32(start + i as u32);
                forbidden_inst(ctx, f, inst, data, result.expand(), facts);
            }
        }
    }
}

/// Whether [`forbidden_inst`] has anything to check in `data`.
#[inline]
pub(super) fn has_forbidden_rules(data: &InstData) -> bool {
    matches!(data, InstData::Nullary { .. } | InstData::Memory { .. } | InstData::Store { .. } | InstData::Gep { .. })
}

/// The forbidden/layout rules of one instruction.
pub(super) fn forbidden_inst(
    ctx: &mut Ctx<'_>,
    f: &crate::module::Function<'_>,
    inst: crate::entity::InstId,
    data: &InstData,
    result: Option<crate::entity::ValueId>,
    facts: &mut TypeFacts,
) {
    let m = ctx.m;
    let (operation, ty) = match *data {
        InstData::Nullary { op: Opcode::Undef } => {
            if let Some(value) = result {
                ctx.errors.push(VerifyError::ForbiddenUndef { func: f.name.to_string(), value, inst });
            }
            return;
        }
        InstData::Memory { op, ty, .. } => (op.mnemonic(), ty),
        InstData::Store { value, .. } => match f.value_type(value) {
            Some(t) => ("store", t),
            None => return,
        },
        InstData::Gep { base, indices } if !m.list(indices).is_empty() => {
            match f.value_type(base).and_then(|t| m.types.pointee(t)) {
                Some(t) => ("gep", t),
                None => return,
            }
        }
        _ => return,
    };
    if ty == TypeId::VOID {
        // A void access is reported by the operand rules with its own message.
        return;
    }
    if facts.has_layout(m, ty) == Some(false) {
        if let Err(reason) = layout_of_id(&m.types, ty, crate::layout::DEFAULT_LAYOUT_DEPTH) {
            ctx.errors.push(VerifyError::InvalidMemoryLayout { func: f.name.to_string(), operation, reason, inst });
        }
    }
}

/// The target must be known and the data layout its own.
pub(super) fn target(ctx: &mut Ctx<'_>) {
    let result = Target::lookup(&ctx.m.target).and_then(|t| t.validate_layout(ctx.m.data_layout));
    if let Err(e) = result {
        ctx.errors.push(VerifyError::Target(e));
    }
}

/// Global names, initializers, alignments, then constant expressions in
/// dependency order.
pub(super) fn globals(ctx: &mut Ctx<'_>) {
    let m = ctx.m;
    let mut names = FxHashSet::default();
    let mut by_id: FxHashMap<GlobalId, usize> = FxHashMap::default();
    for (i, g) in m.globals().enumerate() {
        if !names.insert(g.name) {
            ctx.errors.push(VerifyError::DuplicateGlobal { name: g.name.to_string() });
        }
        by_id.entry(g.id).or_insert(i);
        if !g.init.is_valid_for(g.ty) {
            ctx.errors.push(VerifyError::InvalidGlobalInitializer {
                name: g.name.to_string(),
                ty: m.ty(g.ty),
                payload: g.init,
            });
        }
        if !g.align.is_power_of_two() {
            ctx.errors.push(VerifyError::InvalidGlobalAlignment { name: g.name.to_string(), align: g.align });
        }
    }
    let globals: Vec<_> = m.globals().collect();
    // 0 = unvisited, 1 = being evaluated, 2 = done.
    let mut state = vec![0u8; globals.len()];
    let mut values: Vec<Option<ConstValue>> = vec![None; globals.len()];
    for i in 0..globals.len() {
        let result = eval_global(m, &globals, &by_id, &mut state, &mut values, i, DEFAULT_CONST_EXPR_DEPTH);
        let g = &globals[i];
        let reason = match result {
            Err(reason) => Some(reason),
            Ok(value) if value != g.init => Some(ConstEvalError::ResultMismatch { evaluated: value, recorded: g.init }),
            Ok(_) => {
                let ty = m.ty(g.ty);
                (g.init_expr.ty != ty)
                    .then(|| ConstEvalError::TypeMismatch { expected: ty, found: g.init_expr.ty.clone() })
            }
        };
        if let Some(reason) = reason {
            ctx.errors.push(VerifyError::InvalidConstExpression {
                scope: "module".to_string(),
                declaration: g.name.to_string(),
                reason: Box::new(reason),
            });
        }
    }
}

fn eval_global(
    m: &crate::Module,
    globals: &[crate::Global<'_>],
    by_id: &FxHashMap<GlobalId, usize>,
    state: &mut [u8],
    values: &mut [Option<ConstValue>],
    i: usize,
    depth: usize,
) -> Result<ConstValue, ConstEvalError> {
    if let Some(v) = values[i] {
        return Ok(v);
    }
    if state[i] == 1 {
        return Err(ConstEvalError::CyclicReference(format!("@{}", globals[i].name)));
    }
    state[i] = 1;
    let expr = globals[i].init_expr;
    let result = evaluate(expr, depth, &mut |r| match r {
        ConstRef::Global(id) => {
            let j = *by_id.get(&id).ok_or_else(|| ConstEvalError::UnknownReference(id.to_string()))?;
            // The referenced global's recorded value is what a reference reads;
            // its own expression is checked on its own turn.
            eval_global(m, globals, by_id, state, values, j, depth.saturating_sub(1))
                .map(|_| (m.ty(globals[j].ty), globals[j].init))
        }
        ConstRef::Local(v) => Err(ConstEvalError::UnknownReference(v.to_string())),
    });
    state[i] = 2;
    if let Ok(v) = result {
        values[i] = Some(v);
    }
    result
}

/// Declarations and definitions (whale-upstream §c.4) and well-formed types.
pub(super) fn declarations(ctx: &mut Ctx<'_>) {
    let m = ctx.m;
    let mut body_names = FxHashSet::with_capacity_and_hasher(m.function_count(), Default::default());
    for f in m.functions() {
        if !body_names.insert(f.name) {
            ctx.errors.push(VerifyError::DuplicateFunction { name: f.name.to_string() });
        }
    }
    let call = |func: &str, reason: CallError| VerifyError::Call { func: func.to_string(), reason, inst: None };
    let mut sig_checked = vec![false; m.types.sig_count()];
    let mut sig_errors: Vec<Option<CallError>> = vec![None; m.types.sig_count()];
    let decl_count = m.declarations().len();
    let mut decl_names = FxHashSet::with_capacity_and_hasher(decl_count, Default::default());
    let mut decl_ids = IdSet::new(decl_count);
    let mut link_names = FxHashSet::default();
    for d in m.declarations() {
        if !decl_names.insert(d.name) || !decl_ids.insert(d.id.index()) {
            ctx.errors.push(call(d.name, CallError::ConflictingDeclaration(d.name.to_string())));
        }
        let link_ok = match (d.linkage, d.link_name) {
            (Linkage::Internal, None) => true,
            (Linkage::External, Some(l)) => !l.is_empty() && !l.contains('\0'),
            _ => false,
        };
        if !link_ok {
            ctx.errors.push(call(d.name, CallError::InvalidLinkName(d.name.to_string())));
        }
        if let Some(l) = d.link_name {
            if !link_names.insert(l) {
                ctx.errors.push(call(d.name, CallError::LinkNameCollision(l.to_string())));
            }
        }
        // Declarations share few signatures: validate each once.
        let known = &mut sig_checked[d.sig.index()];
        if !*known {
            *known = true;
            sig_errors[d.sig.index()] = validate_signature(&m.types, d.sig).err();
        }
        if let Some(reason) = sig_errors[d.sig.index()].clone() {
            ctx.errors.push(call(d.name, reason));
        }
    }
    let mut defined = IdSet::new(decl_count);
    for f in m.functions() {
        let Some(d) = m.declaration(f.id) else {
            ctx.errors.push(call(f.name, CallError::UnknownFunction(f.id)));
            continue;
        };
        if !defined.insert(f.id.index()) {
            ctx.errors.push(call(f.name, CallError::DuplicateDefinition(f.id)));
        }
        let sig = m.types.sig(d.sig);
        let params_match = sig.params.len() == f.params.len()
            && sig.params.iter().zip(f.params).all(|(&t, p)| f.value_type(p.value) == Some(t));
        if d.name != f.name || !params_match || sig.ret != f.ret {
            ctx.errors.push(call(f.name, CallError::DefinitionMismatch(f.id)));
        }
        for (param, p) in f.params.iter().enumerate() {
            if f.value_type(p.value) == Some(TypeId::VOID) {
                ctx.errors.push(VerifyError::VoidParameter { func: f.name.to_string(), param });
            }
        }
    }
    for d in m.declarations() {
        if d.linkage == Linkage::Internal && !defined.contains(d.id.index()) {
            ctx.errors.push(call(d.name, CallError::MissingDefinition(d.id)));
        }
    }
    malformed_value_types(ctx);
}

/// A set of ids that are dense in well-formed modules (counted from 0): a
/// bitmap below `bound`, a hash set above it for modules read with arbitrary ids.
struct IdSet {
    dense: Vec<bool>,
    sparse: FxHashSet<usize>,
}

impl IdSet {
    fn new(bound: usize) -> Self {
        IdSet { dense: vec![false; bound], sparse: FxHashSet::default() }
    }

    /// Adds `id`; false if it was present.
    fn insert(&mut self, id: usize) -> bool {
        match self.dense.get_mut(id) {
            Some(present) => !std::mem::replace(present, true),
            None => self.sparse.insert(id),
        }
    }

    fn contains(&self, id: usize) -> bool {
        self.dense.get(id).copied().unwrap_or_else(|| self.sparse.contains(&id))
    }
}

/// Every type carried by a value must be well formed, even when unused
/// (malformed `fnptr` signatures hide there).
fn malformed_value_types(ctx: &mut Ctx<'_>) {
    let m = ctx.m;
    // Few modules have a malformed type at all: look at the type table first
    // and walk the values only when there is something to report.
    let malformed: Vec<bool> = (0..m.types.len())
        .map(|i| {
            let ty = TypeId::new(i);
            !ty.is_scalar() && contains_fn_ptr(m, ty) && !is_well_formed_type(&m.types, ty)
        })
        .collect();
    if !malformed.contains(&true) {
        return;
    }
    let mut checked = vec![false; m.types.len()];
    for f in m.functions() {
        for (_, ty) in f.values() {
            if ty.is_scalar() || std::mem::replace(&mut checked[ty.index()], true) {
                continue;
            }
            if malformed[ty.index()] {
                let reason =
                    CallError::InvalidSignature(format!("malformed function pointer type {}", m.type_name(ty)));
                ctx.errors.push(VerifyError::Call { func: f.name.to_string(), reason, inst: None });
            }
        }
    }
}

fn contains_fn_ptr(m: &crate::Module, ty: TypeId) -> bool {
    let mut stack = vec![ty];
    let mut steps = 0usize;
    while let Some(t) = stack.pop() {
        steps += 1;
        if steps > 100_000 {
            return true;
        }
        match m.types.key(t) {
            TypeKey::FnPtr(_) => return true,
            TypeKey::Ptr(p) | TypeKey::Array(p, _) => stack.push(*p),
            TypeKey::Struct(f) | TypeKey::Tuple(f) => stack.extend(f.iter().copied()),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    //! Declaration and definition errors that the builder's checked APIs refuse
    //! (`declare_function`, `begin_declared_function`), checked on hand-edited modules.

    use crate::build_error::CallError;
    use crate::entity::{FunctionId, PackedOption, TypeId};
    use crate::module::Linkage;
    use crate::types::FunctionSignature;
    use crate::verifier::{verify_module_all, VerifyError};
    use crate::{DataLayout, Module, ModuleBuilder, Type};

    fn call(func: &str, reason: CallError) -> VerifyError {
        VerifyError::Call { func: func.into(), reason, inst: None }
    }

    fn f(n: u32) -> FunctionId {
        FunctionId::from_u32(n)
    }

    /// Bodies `names` (internal, `() -> void`) after the external declarations `externals`
    /// (link name `NAME_impl`).
    fn module(externals: &[&str], names: &[&str]) -> Module {
        let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
        let sig = FunctionSignature::whale(vec![], Type::Void);
        for &name in externals {
            mb.declare_function(name, sig.clone(), Linkage::External, Some(format!("{name}_impl"))).unwrap();
        }
        for &name in names {
            let mut body = mb.begin_function(name, vec![], Type::Void);
            body.ret(None);
            body.finish();
        }
        mb.finish()
    }

    #[test]
    fn body_without_a_declaration() {
        let mut m = module(&[], &["a"]);
        m.functions[0].id = f(7);
        assert_eq!(
            verify_module_all(&m),
            Err(vec![call("a", CallError::UnknownFunction(f(7))), call("a", CallError::MissingDefinition(f(0)))])
        );
    }

    #[test]
    fn two_bodies_for_one_declaration() {
        let mut m = module(&[], &["a", "b"]);
        m.functions[1].id = f(0);
        assert_eq!(
            verify_module_all(&m),
            Err(vec![
                call("b", CallError::DuplicateDefinition(f(0))),
                call("b", CallError::DefinitionMismatch(f(0))),
                call("b", CallError::MissingDefinition(f(1))),
            ])
        );
    }

    #[test]
    fn body_that_does_not_match_its_declaration() {
        let mut m = module(&[], &["a"]);
        m.functions[0].name = m.strings.intern("renamed");
        assert_eq!(verify_module_all(&m), Err(vec![call("renamed", CallError::DefinitionMismatch(f(0)))]));
        // A parameter type differs.
        let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
        let mut body = mb.begin_function("p", vec![("x".into(), Type::I32)], Type::Void);
        let x = body.param_value(0);
        body.ret(None);
        body.finish();
        let mut m = mb.finish();
        m.value_types[x.as_u32() as usize] = PackedOption::some(TypeId::I64);
        assert_eq!(verify_module_all(&m), Err(vec![call("p", CallError::DefinitionMismatch(f(0)))]));
        // The return type differs (the `ret void` then disagrees with the body's type too).
        let mut m = module(&[], &["a"]);
        m.functions[0].ret = TypeId::I64;
        let errors = verify_module_all(&m).unwrap_err();
        assert_eq!(errors[0], call("a", CallError::DefinitionMismatch(f(0))));
        assert!(matches!(errors[1], VerifyError::RetTypeMismatch { expected: Type::I64, got: None, .. }));
        assert_eq!(errors.len(), 2);
    }

    #[test]
    fn invalid_link_names() {
        for link in [None, Some(""), Some("nul\0")] {
            let mut m = module(&["e"], &[]);
            m.declarations[0].link_name = link.map(|l| m.strings.intern(l));
            assert_eq!(verify_module_all(&m), Err(vec![call("e", CallError::InvalidLinkName("e".into()))]));
        }
        let mut m = module(&[], &["a"]);
        m.declarations[0].link_name = Some(m.strings.intern("a_impl"));
        assert_eq!(verify_module_all(&m), Err(vec![call("a", CallError::InvalidLinkName("a".into()))]));
    }

    #[test]
    fn link_name_collision() {
        let mut m = module(&["a", "b"], &[]);
        m.declarations[1].link_name = m.declarations[0].link_name;
        assert_eq!(verify_module_all(&m), Err(vec![call("b", CallError::LinkNameCollision("a_impl".into()))]));
    }

    #[test]
    fn conflicting_declaration_identities() {
        let mut m = module(&["a", "b"], &[]);
        m.declarations[1].id = f(0);
        assert_eq!(verify_module_all(&m), Err(vec![call("b", CallError::ConflictingDeclaration("b".into()))]));
    }

    #[test]
    fn invalid_declared_signature() {
        let mut m = module(&["v"], &[]);
        let variadic = FunctionSignature { variadic: true, ..FunctionSignature::whale(vec![Type::I32], Type::Void) };
        m.declarations[0].sig = m.types.intern_signature(&variadic);
        let reason =
            CallError::InvalidSignature("void parameters, malformed types and variadic calls are unsupported".into());
        assert_eq!(verify_module_all(&m), Err(vec![call("v", reason)]));
    }
}
