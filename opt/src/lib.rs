//! Passes over Whale IR: each rewrites one function body through
//! [`ir::FunctionEditor`] and says whether it changed anything, so that
//! pipelines can repeat passes until nothing changes.
//!
//! A pass is a plain function `fn(&mut FunctionEditor) -> bool`. It never
//! prints and never verifies on its own: whoever runs it checks the result
//! with [`ir::verify_function`] when it wants to (tests always do). Each pass's
//! module documentation states what it guarantees about the program's meaning.
//! [`remove_unreachable_blocks`] is the first pass and the model for the others.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod unreachable;

pub use unreachable::remove_unreachable_blocks;

use ir::{FunctionEditor, Module};

/// Runs `pass` on every function of `module`; returns whether it changed any.
///
/// ```
/// use ir::{DataLayout, ModuleBuilder, Type};
/// let mut mb = ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le());
/// let mut f = mb.begin_function("f", vec![], Type::Void);
/// let dead = f.create_block("dead");
/// f.ret(None);
/// f.set_insert_point(dead);
/// f.ret(None);
/// f.finish();
/// let mut module = mb.finish();
/// assert!(opt::run_on_module(&mut module, opt::remove_unreachable_blocks));
/// assert_eq!(module.function_at(0).blocks.len(), 1);
/// ir::verify_module(&module).unwrap();
/// ```
pub fn run_on_module(module: &mut Module, pass: impl Fn(&mut FunctionEditor<'_>) -> bool) -> bool {
    let mut changed = false;
    for index in 0..module.function_count() {
        let mut editor = module.edit_function(index);
        changed |= pass(&mut editor);
        editor.finish();
    }
    changed
}
