//! Local constant expressions (whale-upstream §d.1 item 10): every `const_decl`
//! tree is re-evaluated in dependency order (not storage order) and must
//! reproduce its recorded value. References name globals, `const` results or
//! other `const_decl` results of the same function; cycles and unknown names are
//! errors. Dominance of local references is checked by the CFG pass.

use rustc_hash::FxHashMap;

use super::{Ctx, VerifyError};
use crate::const_expr::{evaluate, ConstEvalError, ConstRef, DEFAULT_CONST_EXPR_DEPTH};
use crate::constant::ConstValue;
use crate::entity::{EntityRef, InstId, ValueId};
use crate::inst::InstData;
use crate::module::Function;
use crate::types::Type;

enum State {
    InProgress,
    Done(Result<ConstValue, ConstEvalError>),
}

/// Reusable per-module scratch: the memo of evaluated local constants.
#[derive(Default)]
pub(super) struct Scratch {
    memo: FxHashMap<ValueId, State>,
}

/// Checks the `const_decl` instructions `decls` of `f`, listed in block order
/// by the function walk (most functions have none, so the walk collects them
/// rather than this pass looking for them).
pub(super) fn check(ctx: &mut Ctx<'_>, f: &Function<'_>, decls: &[InstId], scratch: &mut Scratch) {
    let m = ctx.m;
    if decls.is_empty() {
        return;
    }
    let memo = &mut scratch.memo;
    memo.clear();
    for &inst in decls {
        let Some(value) = f.inst_result(inst) else {
            continue;
        };
        let result = eval_local(ctx, f, memo, value, DEFAULT_CONST_EXPR_DEPTH);
        let InstData::ConstDecl { decl } = *f.inst(inst) else {
            continue;
        };
        let d = m.const_decl(decl);
        let declared = f.value_type(value).map(|t| m.ty(t));
        let reason = match result {
            Err(e) => Some(e),
            Ok(v) if v != d.value => Some(ConstEvalError::ResultMismatch { evaluated: v, recorded: d.value }),
            Ok(_) if declared.as_ref() != Some(&d.expr.ty) => Some(ConstEvalError::TypeMismatch {
                expected: declared.unwrap_or(Type::Void),
                found: d.expr.ty.clone(),
            }),
            Ok(_) => None,
        };
        if let Some(reason) = reason {
            ctx.errors.push(VerifyError::InvalidConstExpression {
                scope: f.name.to_string(),
                declaration: d.name.to_string(),
                reason: Box::new(reason),
            });
        }
    }
}

/// Evaluates the constant defined as `value` in the function being verified.
fn eval_local(
    ctx: &Ctx<'_>,
    f: &Function<'_>,
    memo: &mut FxHashMap<ValueId, State>,
    value: ValueId,
    depth: usize,
) -> Result<ConstValue, ConstEvalError> {
    let m = ctx.m;
    match memo.get(&value) {
        Some(State::Done(r)) => return r.clone(),
        Some(State::InProgress) => return Err(ConstEvalError::CyclicReference(value.to_string())),
        None => {}
    }
    let unknown = || ConstEvalError::UnknownReference(value.to_string());
    let def = ctx.def_in(value).filter(|d| d.inst != crate::module::VACANT).ok_or_else(unknown)?;
    let data = *f.inst(InstId::new(def.inst as usize));
    let result = match data {
        InstData::Const { .. } | InstData::ConstWide { .. } => m.const_payload(&data).ok_or_else(unknown),
        InstData::ConstDecl { decl } => {
            memo.insert(value, State::InProgress);
            let expr = m.const_decl(decl).expr;
            let r = evaluate(expr, depth, &mut |r| match r {
                ConstRef::Global(g) => m
                    .global(g)
                    .map(|g| (m.ty(g.ty), g.init))
                    .ok_or_else(|| ConstEvalError::UnknownReference(g.to_string())),
                ConstRef::Local(v) => {
                    let ty = f
                        .value_type(v)
                        .map(|t| m.ty(t))
                        .ok_or_else(|| ConstEvalError::UnknownReference(v.to_string()))?;
                    eval_local(ctx, f, memo, v, depth.saturating_sub(1)).map(|value| (ty, value))
                }
            });
            r
        }
        _ => Err(unknown()),
    };
    memo.insert(value, State::Done(result.clone()));
    result
}
