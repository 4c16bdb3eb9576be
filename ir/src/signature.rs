//! Signature and type well-formedness (whale-upstream §b.5).
//!
//! A signature is valid when it is not variadic, has no `void` parameter, every
//! nested type is well formed (`void` only as a pointee or a result; nested
//! `fnptr` signatures valid), and a `sysv64` signature has no aggregate
//! parameter or result (native aggregate ABI classification does not exist).

use crate::build_error::CallError;
use crate::entity::{SigId, TypeId};
use crate::types::{CallingConvention, TypeKey, TypeTable};

const GENERIC: &str = "void parameters, malformed types and variadic calls are unsupported";
const SYSV64_AGGREGATE: &str = "SysV64 aggregate signatures are unsupported";

/// Checks the signature `sig` of `types`.
pub fn validate_signature(types: &TypeTable, sig: SigId) -> Result<(), CallError> {
    validate_signature_at(types, sig, 0)
}

/// Nesting beyond this is reported as malformed rather than walked.
const MAX_DEPTH: usize = 256;

fn validate_signature_at(types: &TypeTable, sig: SigId, depth: usize) -> Result<(), CallError> {
    let key = types.sig(sig);
    let invalid = || CallError::InvalidSignature(GENERIC.to_string());
    if key.variadic || depth > MAX_DEPTH {
        return Err(invalid());
    }
    for &p in key.params.iter() {
        if p == TypeId::VOID || !well_formed(types, p, depth + 1) {
            return Err(invalid());
        }
    }
    if key.ret != TypeId::VOID && !well_formed(types, key.ret, depth + 1) {
        return Err(invalid());
    }
    if key.convention == CallingConvention::SysV64 {
        let aggregate = |t: TypeId| matches!(types.key(t), TypeKey::Array(..) | TypeKey::Struct(_) | TypeKey::Tuple(_));
        if key.params.iter().any(|&p| aggregate(p)) || aggregate(key.ret) {
            return Err(CallError::InvalidSignature(SYSV64_AGGREGATE.to_string()));
        }
    }
    Ok(())
}

/// Whether `ty` is a well-formed value type: not `void`, aggregates of
/// well-formed members, pointers to anything well formed or `void`, and function
/// pointers with valid signatures.
pub fn is_well_formed_type(types: &TypeTable, ty: TypeId) -> bool {
    well_formed(types, ty, 0)
}

fn well_formed(types: &TypeTable, ty: TypeId, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match types.get(ty) {
        None | Some(TypeKey::Void) => false,
        Some(TypeKey::Ptr(t)) => *t == TypeId::VOID || well_formed(types, *t, depth + 1),
        Some(TypeKey::FnPtr(s)) => validate_signature_at(types, *s, depth + 1).is_ok(),
        Some(TypeKey::Array(t, _)) => well_formed(types, *t, depth + 1),
        Some(TypeKey::Struct(f) | TypeKey::Tuple(f)) => f.iter().all(|&t| well_formed(types, t, depth + 1)),
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{FunctionSignature, Type};

    fn check(sig: FunctionSignature) -> Result<(), CallError> {
        let mut types = TypeTable::new();
        let id = types.intern_signature(&sig);
        validate_signature(&types, id)
    }

    #[test]
    fn rules() {
        assert!(check(FunctionSignature::whale(vec![Type::I32, Type::ptr(Type::Void)], Type::Void)).is_ok());
        assert!(check(FunctionSignature::whale(vec![Type::Void], Type::I32)).is_err());
        assert!(check(FunctionSignature::whale(vec![Type::array(Type::Void, 2)], Type::I32)).is_err());
        let mut variadic = FunctionSignature::whale(vec![], Type::I32);
        variadic.variadic = true;
        assert!(check(variadic).is_err());
        let sysv = FunctionSignature {
            params: vec![Type::Struct(vec![Type::I32])],
            ret: Type::Void,
            convention: CallingConvention::SysV64,
            variadic: false,
        };
        assert_eq!(check(sysv), Err(CallError::InvalidSignature(SYSV64_AGGREGATE.into())));
        assert!(check(FunctionSignature::whale(vec![Type::Tuple(vec![Type::I32])], Type::Struct(vec![]))).is_ok());
    }
}
