//! Per-module caches of facts about types and signatures that the verifier
//! asks about once per instruction: whether a type is storable, whether it has
//! a memory layout, whether a signature is valid. Each fact is a pure function
//! of the module's type table, so it is computed the first time it is asked
//! and then read from a table indexed by id (computing storability of an
//! aggregate walks it with an allocated stack; a call site's signature check
//! walks every parameter type).

use crate::entity::{EntityRef, SigId, TypeId};
use crate::layout::{layout_of_id, DEFAULT_LAYOUT_DEPTH};
use crate::module::Module;
use crate::signature::validate_signature;

/// Whether a type accessed by memory operations has a layout, computed once.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum LayoutState {
    Unknown,
    Laid,
    Unlaid,
}

/// A lazily computed yes/no fact.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fact {
    Unknown,
    Yes,
    No,
}

impl Fact {
    #[inline]
    fn get(slot: &mut Fact, compute: impl FnOnce() -> bool) -> bool {
        match *slot {
            Fact::Yes => true,
            Fact::No => false,
            Fact::Unknown => {
                let yes = compute();
                *slot = if yes { Fact::Yes } else { Fact::No };
                yes
            }
        }
    }
}

/// The caches, sized by the module's type and signature tables.
pub(super) struct TypeFacts {
    /// Indexed by type; shared with the forbidden/layout rules, which fill it.
    pub layout: Vec<LayoutState>,
    storable: Vec<Fact>,
    signature: Vec<Fact>,
}

impl TypeFacts {
    pub fn new(m: &Module) -> Self {
        TypeFacts {
            layout: vec![LayoutState::Unknown; m.types.len()],
            storable: vec![Fact::Unknown; m.types.len()],
            signature: vec![Fact::Unknown; m.types.sig_count()],
        }
    }

    /// [`crate::types::TypeTable::is_storable`], cached.
    #[inline]
    pub fn storable(&mut self, m: &Module, ty: TypeId) -> bool {
        if ty.is_scalar() {
            return ty != TypeId::VOID;
        }
        match self.storable.get_mut(ty.index()) {
            Some(slot) => Fact::get(slot, || m.types.is_storable(ty)),
            None => m.types.is_storable(ty),
        }
    }

    /// Whether `ty` is storable and known to have a layout (a type not yet
    /// looked at by the layout rules counts as unknown, hence not laid out).
    #[inline]
    pub fn storable_and_laid(&mut self, m: &Module, ty: TypeId) -> bool {
        self.layout.get(ty.index()) == Some(&LayoutState::Laid) && self.storable(m, ty)
    }

    /// Whether [`validate_signature`] accepts `sig`, cached.
    #[inline]
    pub fn valid_signature(&mut self, m: &Module, sig: SigId) -> bool {
        match self.signature.get_mut(sig.index()) {
            Some(slot) => Fact::get(slot, || validate_signature(&m.types, sig).is_ok()),
            None => validate_signature(&m.types, sig).is_ok(),
        }
    }

    /// Whether `ty` has a layout, recorded in [`TypeFacts::layout`]; `None`
    /// for an id outside the type table.
    pub fn has_layout(&mut self, m: &Module, ty: TypeId) -> Option<bool> {
        let state = self.layout.get_mut(ty.index())?;
        if *state == LayoutState::Unknown {
            let laid = layout_of_id(&m.types, ty, DEFAULT_LAYOUT_DEPTH).is_ok();
            *state = if laid { LayoutState::Laid } else { LayoutState::Unlaid };
        }
        Some(*state == LayoutState::Laid)
    }
}
