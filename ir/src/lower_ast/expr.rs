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
use crate::entity::TypeId;
use crate::opcode::{BinOp, CmpOp};
use crate::ValueId;

use super::convert::{check_depth, literal};
use super::error::LowerError;
use super::o0::{Binding, Body};
use super::tree::{self as ast, Expr};

impl<'p> Body<'p, '_, '_> {
    /// Lowers an expression that must produce a value.
    #[inline]
    pub(super) fn value(&mut self, expr: &'p Expr<'p>, depth: usize) -> Result<(ValueId, TypeId), LowerError> {
        match self.expr(expr, depth)? {
            Some(value) => Ok(value),
            None => Err(LowerError::VoidCallUsedAsValue),
        }
    }

    /// Lowers an expression; `None` for a call to a void function.
    pub(super) fn expr(&mut self, expr: &'p Expr<'p>, depth: usize) -> Result<Option<(ValueId, TypeId)>, LowerError> {
        check_depth(depth)?;
        let lowered = match expr {
            Expr::Var(name) => self.var(name)?,
            Expr::Lit(lit) => {
                let (ty, payload) = literal(lit)?;
                (self.constant(ty, payload), ty)
            }
            Expr::Binary { left, op, right } => {
                let (lhs, rhs, ty) = self.operands(left, right, depth)?;
                let op = match (ty.is_int(), ty.is_float(), op) {
                    (true, _, ast::BinaryOp::Add) => BinOp::Add,
                    (true, _, ast::BinaryOp::Sub) => BinOp::Sub,
                    (true, _, ast::BinaryOp::Mul) => BinOp::Mul,
                    (false, true, ast::BinaryOp::Add) => BinOp::Fadd,
                    (false, true, ast::BinaryOp::Sub) => BinOp::Fsub,
                    (false, true, ast::BinaryOp::Mul) => BinOp::Fmul,
                    (false, false, _) => return Err(LowerError::UnsupportedExpr),
                };
                {
                    let module_ty = self.module_ty(ty);
                    (self.fb.bin_id(op, module_ty, lhs, rhs), ty)
                }
            }
            Expr::Cmp { left, op, right } => {
                let (lhs, rhs, ty) = self.operands(left, right, depth)?;
                let pred = predicate(ty, *op)?;
                {
                    let module_ty = self.module_ty(ty);
                    (self.fb.cmp_id(pred, module_ty, lhs, rhs), TypeId::BOOL)
                }
            }
            Expr::FunctionRef(name) => {
                let id = self.fb.function_id(name)?;
                let ty = self.functions.fn_ptr(id)?;
                (self.fb.function_addr(id)?, ty)
            }
            Expr::NullFunction(signature) => {
                let sig = self.types.signature(signature, depth + 1)?;
                let value = self.fb.null_function(self.types.signature_of(sig))?;
                (value, self.types.fn_ptr(sig))
            }
            Expr::Call { callee, args } => return self.call(callee, args, depth),
        };
        Ok(Some(lowered))
    }

    /// A name read as a value: a variable's slot is loaded, a local constant is
    /// its `const_decl` value, a global is re-materialised as a `const`.
    fn var(&mut self, name: &str) -> Result<(ValueId, TypeId), LowerError> {
        match self.scopes.get(name) {
            Some(Binding::Slot { ptr, ty, align }) => {
                let module_ty = self.module_ty(ty);
                Ok((self.fb.load_id(module_ty, ptr, align), ty))
            }
            Some(Binding::Const { value, ty }) => Ok((value, ty)),
            None => match self.globals.get(name) {
                Some((_, ty, payload)) => Ok((self.constant(ty, payload), ty)),
                None => Err(LowerError::UnknownVariable(name.to_string())),
            },
        }
    }

    /// Both operands, left first; they must have one type.
    fn operands(
        &mut self,
        left: &'p Expr<'p>,
        right: &'p Expr<'p>,
        depth: usize,
    ) -> Result<(ValueId, ValueId, TypeId), LowerError> {
        let (lhs, left_ty) = self.value(left, depth + 1)?;
        let (rhs, right_ty) = self.value(right, depth + 1)?;
        self.types.expect(left_ty, right_ty)?;
        Ok((lhs, rhs, left_ty))
    }

    /// The callee, then the arguments left to right, then the checked call.
    fn call(
        &mut self,
        callee: &'p ast::Callee<'p>,
        args: &'p [Expr<'p>],
        depth: usize,
    ) -> Result<Option<(ValueId, TypeId)>, LowerError> {
        let (callee, ret) = match callee {
            ast::Callee::Direct(name) => {
                let id = self.fb.function_id(name)?;
                (Callee::Direct(id), self.functions.ret(id)?)
            }
            ast::Callee::Indirect(expr) => {
                let (value, ty) = self.value(expr, depth + 1)?;
                let ret = self.types.fn_ptr_ret(ty).ok_or(CallError::NotFunctionPointer(value))?;
                (Callee::Indirect(value), ret)
            }
        };
        // Arguments go on a stack shared by nested calls: no vector per call.
        let mark = self.args.len();
        for arg in args {
            let value = self.value(arg, depth + 1)?.0;
            self.args.push(value);
        }
        let call = self.fb.call_with(callee, &self.args[mark..]);
        self.args.truncate(mark);
        Ok(call?.map(|value| (value, ret)))
    }
}

/// The `cmp` predicate for comparing two values of type `ty`.
fn predicate(ty: TypeId, op: ast::CmpOp) -> Result<CmpOp, LowerError> {
    use ast::CmpOp as A;
    Ok(if ty.is_int() || ty == TypeId::BOOL {
        match (op, ty.is_signed_int(), ty == TypeId::BOOL) {
            (A::Eq, ..) => CmpOp::Eq,
            (A::Ne, ..) => CmpOp::Ne,
            (_, _, true) => return Err(LowerError::UnsupportedExpr),
            (A::Lt, true, _) => CmpOp::Slt,
            (A::Le, true, _) => CmpOp::Sle,
            (A::Gt, true, _) => CmpOp::Sgt,
            (A::Ge, true, _) => CmpOp::Sge,
            (A::Lt, false, _) => CmpOp::Ult,
            (A::Le, false, _) => CmpOp::Ule,
            (A::Gt, false, _) => CmpOp::Ugt,
            (A::Ge, false, _) => CmpOp::Uge,
        }
    } else if ty.is_float() {
        match op {
            A::Eq => CmpOp::Feq,
            A::Ne => CmpOp::Fne,
            A::Lt => CmpOp::Flt,
            A::Le => CmpOp::Fle,
            A::Gt => CmpOp::Fgt,
            A::Ge => CmpOp::Fge,
        }
    } else {
        return Err(LowerError::UnsupportedExpr);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{TypeKey, TypeTable};

    #[test]
    fn predicates_follow_the_operand_type() {
        assert_eq!(predicate(TypeId::I8, ast::CmpOp::Lt), Ok(CmpOp::Slt));
        assert_eq!(predicate(TypeId::U1, ast::CmpOp::Ge), Ok(CmpOp::Uge));
        assert_eq!(predicate(TypeId::F16, ast::CmpOp::Ne), Ok(CmpOp::Fne));
        assert_eq!(predicate(TypeId::BOOL, ast::CmpOp::Eq), Ok(CmpOp::Eq));
        assert_eq!(predicate(TypeId::BOOL, ast::CmpOp::Lt), Err(LowerError::UnsupportedExpr));
        let ptr = TypeTable::new().intern(TypeKey::Ptr(TypeId::I8));
        assert_eq!(predicate(ptr, ast::CmpOp::Eq), Err(LowerError::UnsupportedExpr));
    }
}
