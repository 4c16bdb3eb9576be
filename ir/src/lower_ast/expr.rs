//! Expression lowering at O0 (whale-upstream §f.3, "Expressions").
//!
//! Operands are evaluated left to right (a callee before its arguments), each
//! producing a fresh SSA value; nothing is folded. Arithmetic and comparisons
//! require operands of one type and pick the opcode or predicate from it:
//! integers use `add`/`sub`/`mul` and signed or unsigned predicates, floats
//! `fadd`/`fsub`/`fmul` and `f*` predicates, `bool` only `eq`/`ne`. Lowering
//! always emits `cmp`, never `icmp`/`fcmp`.

use crate::build_error::CallError;
use crate::builder::Callee;
use crate::opcode::{BinOp, CmpOp};
use crate::types::Type;
use crate::ValueId;

use super::convert::{check_depth, literal, lower_signature};
use super::error::LowerError;
use super::frontend::{self as ast, Expr};
use super::o0::{Binding, Body};

/// Signedness of an integer type, `None` for any other type.
fn int_signedness(ty: &Type) -> Option<bool> {
    match ty {
        Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::I128 => Some(true),
        Type::U1 | Type::U8 | Type::U16 | Type::U32 | Type::U64 | Type::U128 => Some(false),
        _ => None,
    }
}

fn is_float(ty: &Type) -> bool {
    matches!(ty, Type::F16 | Type::F32 | Type::F64)
}

impl Body<'_, '_> {
    /// Lowers an expression that must produce a value.
    pub(super) fn value(&mut self, expr: &Expr, depth: usize) -> Result<(ValueId, Type), LowerError> {
        self.expr(expr, depth)?.ok_or(LowerError::VoidCallUsedAsValue)
    }

    /// Lowers an expression; `None` for a call to a void function.
    pub(super) fn expr(&mut self, expr: &Expr, depth: usize) -> Result<Option<(ValueId, Type)>, LowerError> {
        check_depth(depth)?;
        let lowered = match expr {
            Expr::Var(name) => self.var(name)?,
            Expr::Lit(lit) => {
                let (ty, payload) = literal(lit)?;
                (self.fb.constant(ty.clone(), payload), ty)
            }
            Expr::Binary { left, op, right } => {
                let (lhs, rhs, ty) = self.operands(left, right, depth)?;
                let op = match (int_signedness(&ty), is_float(&ty), op) {
                    (Some(_), _, ast::BinaryOp::Add) => BinOp::Add,
                    (Some(_), _, ast::BinaryOp::Sub) => BinOp::Sub,
                    (Some(_), _, ast::BinaryOp::Mul) => BinOp::Mul,
                    (None, true, ast::BinaryOp::Add) => BinOp::Fadd,
                    (None, true, ast::BinaryOp::Sub) => BinOp::Fsub,
                    (None, true, ast::BinaryOp::Mul) => BinOp::Fmul,
                    (None, false, _) => return Err(LowerError::UnsupportedExpr),
                };
                (self.fb.bin(op, ty.clone(), lhs, rhs), ty)
            }
            Expr::Cmp { left, op, right } => {
                let (lhs, rhs, ty) = self.operands(left, right, depth)?;
                let pred = predicate(&ty, *op)?;
                (self.fb.cmp(pred, ty, lhs, rhs), Type::Bool)
            }
            Expr::FunctionRef(name) => {
                let id = self.fb.function_id(name)?;
                let signature = self.fb.callee_signature(&Callee::Direct(id))?;
                (self.fb.function_addr(id)?, Type::fn_ptr(signature))
            }
            Expr::NullFunction(signature) => {
                let signature = lower_signature(signature, depth + 1)?;
                (self.fb.null_function(signature.clone())?, Type::fn_ptr(signature))
            }
            Expr::Call { callee, args } => return self.call(callee, args, depth),
        };
        Ok(Some(lowered))
    }

    /// A name read as a value: a variable's slot is loaded, a local constant is
    /// its `const_decl` value, a global is re-materialised as a `const`.
    fn var(&mut self, name: &str) -> Result<(ValueId, Type), LowerError> {
        match self.scopes.get(name) {
            Some(Binding::Slot { ptr, ty, align }) => {
                let (ptr, ty, align) = (*ptr, ty.clone(), *align);
                Ok((self.fb.load(ty.clone(), ptr, align), ty))
            }
            Some(Binding::Const { value, ty }) => Ok((*value, ty.clone())),
            None => match self.globals.get(name) {
                Some((_, ty, payload)) => {
                    let ty = ty.clone();
                    Ok((self.fb.constant(ty.clone(), payload), ty))
                }
                None => Err(LowerError::UnknownVariable(name.to_string())),
            },
        }
    }

    /// Both operands, left first; they must have one type.
    fn operands(&mut self, left: &Expr, right: &Expr, depth: usize) -> Result<(ValueId, ValueId, Type), LowerError> {
        let (lhs, left_ty) = self.value(left, depth + 1)?;
        let (rhs, right_ty) = self.value(right, depth + 1)?;
        if left_ty != right_ty {
            return Err(LowerError::TypeMismatch { expected: left_ty, got: right_ty });
        }
        Ok((lhs, rhs, left_ty))
    }

    /// The callee, then the arguments left to right, then the checked call.
    fn call(
        &mut self,
        callee: &ast::Callee,
        args: &[Expr],
        depth: usize,
    ) -> Result<Option<(ValueId, Type)>, LowerError> {
        let callee = match callee {
            ast::Callee::Direct(name) => Callee::Direct(self.fb.function_id(name)?),
            ast::Callee::Indirect(expr) => {
                let (value, ty) = self.value(expr, depth + 1)?;
                if !matches!(ty, Type::FnPtr(_)) {
                    return Err(CallError::NotFunctionPointer(value).into());
                }
                Callee::Indirect(value)
            }
        };
        let mut values = Vec::with_capacity(args.len());
        for arg in args {
            values.push(self.value(arg, depth + 1)?.0);
        }
        let ret = self.fb.callee_signature(&callee)?.ret;
        Ok(self.fb.call(callee, values)?.map(|value| (value, ret)))
    }
}

/// The `cmp` predicate for comparing two values of type `ty`.
fn predicate(ty: &Type, op: ast::CmpOp) -> Result<CmpOp, LowerError> {
    use ast::CmpOp as A;
    Ok(match (ty, int_signedness(ty), op) {
        (Type::Bool, _, A::Eq) => CmpOp::Eq,
        (Type::Bool, _, A::Ne) => CmpOp::Ne,
        (_, Some(_), A::Eq) => CmpOp::Eq,
        (_, Some(_), A::Ne) => CmpOp::Ne,
        (_, Some(true), A::Lt) => CmpOp::Slt,
        (_, Some(true), A::Le) => CmpOp::Sle,
        (_, Some(true), A::Gt) => CmpOp::Sgt,
        (_, Some(true), A::Ge) => CmpOp::Sge,
        (_, Some(false), A::Lt) => CmpOp::Ult,
        (_, Some(false), A::Le) => CmpOp::Ule,
        (_, Some(false), A::Gt) => CmpOp::Ugt,
        (_, Some(false), A::Ge) => CmpOp::Uge,
        (t, None, op) if is_float(t) => match op {
            A::Eq => CmpOp::Feq,
            A::Ne => CmpOp::Fne,
            A::Lt => CmpOp::Flt,
            A::Le => CmpOp::Fle,
            A::Gt => CmpOp::Fgt,
            A::Ge => CmpOp::Fge,
        },
        _ => return Err(LowerError::UnsupportedExpr),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_follow_the_operand_type() {
        assert_eq!(predicate(&Type::I8, ast::CmpOp::Lt), Ok(CmpOp::Slt));
        assert_eq!(predicate(&Type::U1, ast::CmpOp::Ge), Ok(CmpOp::Uge));
        assert_eq!(predicate(&Type::F16, ast::CmpOp::Ne), Ok(CmpOp::Fne));
        assert_eq!(predicate(&Type::Bool, ast::CmpOp::Eq), Ok(CmpOp::Eq));
        assert_eq!(predicate(&Type::Bool, ast::CmpOp::Lt), Err(LowerError::UnsupportedExpr));
        assert_eq!(predicate(&Type::ptr(Type::I8), ast::CmpOp::Eq), Err(LowerError::UnsupportedExpr));
    }
}
