//! LLVM 1.3 assembly text of a [`Module`], in the style of that era's `llvm-dis`.
//!
//! Names come from the symbol tables; an unnamed value prints as `%N` with N its slot in its type plane (the 1.x
//! printer numbered unnamed values per plane too), an unnamed block as `%N` with N its index. Constants print inline
//! where they are used. Types print by name when the module symbol table names them, otherwise structurally, with
//! `\N` up-references for recursion as LLVM 1.x printed them. Shared constants and types print in full the first
//! time and again within a budget for the whole listing, past which a repeat prints as `...` ([`crate::repeats`]). The text is for reading and diffing; nothing here
//! changes the model, and a malformed model prints with `<bad ...>` markers instead of failing.
//!
//! The text is streamed: the printer formats a line at a time into a [`Sink`], which hands it to the writer in
//! pieces of about 64 KiB, so printing a module needs memory for the module and its name indexes, not for its text.
//! [`disasm_to_string`] runs the same printer with the text kept in memory.

use rustc_hash::FxHashMap as HashMap;
use std::fmt::Write as _;
use std::io;

use crate::format::typing::{PointerIndex, Pointers};
use crate::format::{
    Constant, Endianness, FunctionBody, Instruction, Module, Opcode, Operand, PointerSize, SymbolIndex, Ty, TypeDef,
    TypeSlot, Types, PRIMITIVE_NAMES,
};
use crate::repeats::{Printed, Repeats, Text, TypeStamps};
use crate::sink::Sink;

/// Constant and type nesting printed before eliding with `...`.
const MAX_DEPTH: usize = 64;

/// Writes `m` as LLVM 1.3 assembly to `out`; fails only when `out` does, with its error.
///
/// ```
/// let mut text = Vec::new();
/// llvm13::disasm(&llvm13::Module::default(), &mut text).unwrap();
/// assert!(String::from_utf8(text).unwrap().contains("implementation"));
/// ```
pub fn disasm(m: &Module, out: &mut dyn io::Write) -> io::Result<()> {
    let mut sink = Sink::writer(out);
    Printer::new(m).module(&mut sink)?;
    sink.finish()
}

/// [`disasm`] into a `String`.
///
/// ```
/// let text = llvm13::disasm_to_string(&llvm13::Module::default());
/// assert!(text.starts_with("; LLVM bytecode format revision 3\n"));
/// ```
pub fn disasm_to_string(m: &Module) -> String {
    let mut sink = Sink::string();
    // A sink without a writer keeps the text and has nothing to fail.
    let _ = Printer::new(m).module(&mut sink);
    sink.into_string()
}

/// A module-level value of a plane: globals and functions print by name, strings and constants inline.
#[derive(Clone, Copy)]
enum ModuleValue {
    Named,
    String(usize),
    Constant(usize, usize),
}

#[derive(Clone, Copy)]
enum FunctionValue {
    Argument,
    Constant(usize, usize),
    Result,
}

struct Printer<'m> {
    m: &'m Module,
    types: Types<'m>,
    module_values: HashMap<TypeSlot, Vec<ModuleValue>>,
    /// The slot of each global and of each function in its plane.
    global_slots: Vec<u32>,
    function_slots: Vec<u32>,
    /// The module symbol table, by canonical plane (type names as written).
    names: SymbolIndex<'m>,
    pointers: PointerIndex,
    /// Expansions of shared constants and types left for the listing.
    repeats: Repeats,
    /// Module constants printed in full already.
    printed: Printed,
    /// Types expanded in the type text being printed.
    type_stamps: TypeStamps,
}

struct Scope<'a> {
    types: Types<'a>,
    body: Option<&'a FunctionBody>,
    values: HashMap<TypeSlot, Vec<FunctionValue>>,
    /// The function symbol table, by canonical plane; searched before the module's.
    names: Option<&'a SymbolIndex<'a>>,
    /// The function's block names (the label plane as written).
    labels: Option<&'a SymbolIndex<'a>>,
    /// The function's constants printed in full already.
    printed: Printed,
}

fn write_name(out: &mut String, name: &[u8]) {
    let plain = !name.is_empty()
        && name.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'$' | b'.' | b'_' | b'-'))
        && !name[0].is_ascii_digit();
    out.push('%');
    if plain {
        out.extend(name.iter().map(|&b| b as char));
    } else {
        out.push('"');
        write_escaped(out, name);
        out.push('"');
    }
}

fn write_escaped(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'"' && b != b'\\' || b == b' ' {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\{b:02X}");
        }
    }
}

impl<'m> Printer<'m> {
    fn new(m: &'m Module) -> Self {
        let types = Types::module(&m.types);
        let mut module_values: HashMap<TypeSlot, Vec<ModuleValue>> = HashMap::default();
        let mut push = |ty: TypeSlot, v: ModuleValue| {
            let plane = types.canon(ty);
            let list = module_values.entry(plane).or_default();
            list.push(v);
            (list.len() - 1) as u32 + u32::from(types.has_null(plane, m.revision))
        };
        let global_slots = m.globals.iter().map(|g| push(g.ty, ModuleValue::Named)).collect();
        let function_slots = m.functions.iter().map(|f| push(f.ty, ModuleValue::Named)).collect();
        for (i, s) in m.constants.strings.iter().enumerate() {
            module_values.entry(types.canon(s.ty)).or_default().push(ModuleValue::String(i));
        }
        for (p, plane) in m.constants.planes.iter().enumerate() {
            let list = module_values.entry(types.canon(plane.ty)).or_default();
            list.extend((0..plane.constants.len()).map(|c| ModuleValue::Constant(p, c)));
        }
        let names = SymbolIndex::with_planes(&m.symbols, |p| types.canon(p));
        Self {
            m,
            types,
            module_values,
            global_slots,
            function_slots,
            names,
            pointers: PointerIndex::new(&types),
            repeats: Repeats::new(),
            printed: Printed::new(&m.constants.planes),
            type_stamps: TypeStamps::new(),
        }
    }

    fn module(&self, sink: &mut Sink<'_>) -> io::Result<()> {
        let m = self.m;
        let out = &mut sink.buf;
        let _ = writeln!(out, "; LLVM bytecode format revision {}", m.revision);
        match m.endianness {
            Endianness::Little => out.push_str("target endian = little\n"),
            Endianness::Big => out.push_str("target endian = big\n"),
            Endianness::Unspecified => {}
        }
        match m.pointer_size {
            PointerSize::Bits32 => out.push_str("target pointersize = 32\n"),
            PointerSize::Bits64 => out.push_str("target pointersize = 64\n"),
            PointerSize::Unspecified => {}
        }
        if !m.target_triple.is_empty() {
            out.push_str("target triple = \"");
            write_escaped(out, &m.target_triple);
            out.push_str("\"\n");
        }
        if !m.dependent_libraries.is_empty() {
            out.push_str("deplibs = [ ");
            for (i, lib) in m.dependent_libraries.iter().enumerate() {
                out.push_str(if i == 0 { "\"" } else { ", \"" });
                write_escaped(out, lib);
                out.push('"');
            }
            out.push_str(" ]\n");
        }
        let scope = Scope {
            types: self.types,
            body: None,
            values: HashMap::default(),
            names: None,
            labels: None,
            printed: Printed::new(&[]),
        };
        for t in &m.symbols.types {
            let out = &mut sink.buf;
            write_name(out, &t.name);
            out.push_str(" = type ");
            self.type_text(out, &scope.types, t.ty);
            out.push('\n');
            sink.line_done()?;
        }
        for (i, g) in m.globals.iter().enumerate() {
            let out = &mut sink.buf;
            self.named(out, None, self.types.canon(g.ty), self.global_slots[i]);
            out.push_str(" = ");
            let pointee = self.types.pointee(g.ty).unwrap_or(TypeSlot::VOID);
            if g.initializer.is_none() {
                out.push_str("external ");
            } else if !g.linkage.keyword().is_empty() {
                let _ = write!(out, "{} ", g.linkage.keyword());
            }
            out.push_str(if g.constant { "constant " } else { "global " });
            self.ty(out, &scope.types, pointee);
            if let Some(init) = g.initializer {
                out.push(' ');
                self.value(out, &scope, pointee, init, 0);
            }
            out.push('\n');
            sink.line_done()?;
        }
        sink.buf.push_str("\nimplementation   ; Functions:\n");
        for i in 0..m.functions.len() {
            self.function(sink, i)?;
        }
        Ok(())
    }

    /// The name of value `slot` of canonical plane `plane`: from the function's table (`local`), else the module's.
    fn named(&self, out: &mut String, local: Option<&SymbolIndex<'_>>, plane: TypeSlot, slot: u32) {
        match local.and_then(|l| l.name_of(plane, slot)).or_else(|| self.names.name_of(plane, slot)) {
            Some(name) => write_name(out, name),
            None => {
                let _ = write!(out, "%{slot}");
            }
        }
    }

    fn ty(&self, out: &mut String, types: &Types<'_>, t: TypeSlot) {
        if let Some(name) = self.names.type_name(t) {
            write_name(out, name);
        } else {
            self.type_text(out, types, t);
        }
    }

    /// The structure of type `t`: a text of its own for repeats ([`crate::repeats`]).
    fn type_text(&self, out: &mut String, types: &Types<'_>, t: TypeSlot) {
        self.type_stamps.begin();
        self.repeats.begin(Text::Type);
        self.type_structure(out, types, t, &mut Vec::new());
    }

    fn type_structure(&self, out: &mut String, types: &Types<'_>, t: TypeSlot, stack: &mut Vec<TypeSlot>) {
        if let Some(depth) = stack.iter().rev().position(|&s| s == t) {
            let _ = write!(out, "\\{}", depth + 1);
            return;
        }
        if stack.len() > MAX_DEPTH {
            out.push_str("...");
            return;
        }
        let child =
            |this: &Self, out: &mut String, c: TypeSlot, stack: &mut Vec<TypeSlot>| match this.names.type_name(c) {
                Some(name) if !stack.is_empty() || c != t => write_name(out, name),
                _ => this.type_structure(out, types, c, stack),
            };
        match types.get(t) {
            None => {
                let _ = write!(out, "<bad type {t}>");
            }
            Some(Ty::Primitive(p)) => out.push_str(PRIMITIVE_NAMES.get(p.0 as usize).unwrap_or(&"<bad type>")),
            Some(Ty::Def(_)) if !self.type_stamps.first_in_text(t) && !self.repeats.draw(Text::Type) => {
                out.push_str("...")
            }
            Some(Ty::Def(def)) => {
                stack.push(t);
                match def {
                    TypeDef::Function { ret, params, varargs } => {
                        child(self, out, *ret, stack);
                        out.push_str(" (");
                        for (i, &p) in params.iter().enumerate() {
                            if i > 0 {
                                out.push_str(", ");
                            }
                            child(self, out, p, stack);
                        }
                        if *varargs {
                            out.push_str(if params.is_empty() { "..." } else { ", ..." });
                        }
                        out.push(')');
                    }
                    TypeDef::Struct(fields) => {
                        out.push_str("{ ");
                        for (i, &f) in fields.iter().enumerate() {
                            if i > 0 {
                                out.push_str(", ");
                            }
                            child(self, out, f, stack);
                        }
                        out.push_str(if fields.is_empty() { "}" } else { " }" });
                    }
                    TypeDef::Array { element, len } => {
                        let _ = write!(out, "[{len} x ");
                        child(self, out, *element, stack);
                        out.push(']');
                    }
                    TypeDef::Pointer(p) => {
                        child(self, out, *p, stack);
                        out.push('*');
                    }
                    TypeDef::Opaque => out.push_str("opaque"),
                    TypeDef::Primitive(p) => out.push_str(PRIMITIVE_NAMES.get(p.0 as usize).unwrap_or(&"<bad type>")),
                }
                stack.pop();
            }
        }
    }

    fn typed(&self, out: &mut String, scope: &Scope<'_>, plane: TypeSlot, slot: u32) {
        self.ty(out, &scope.types, plane);
        out.push(' ');
        self.value(out, scope, plane, slot, 0);
    }

    fn null(&self, out: &mut String, types: &Types<'_>, plane: TypeSlot) {
        out.push_str(match types.get(plane) {
            Some(Ty::Primitive(TypeSlot::BOOL)) => "false",
            Some(Ty::Primitive(TypeSlot::FLOAT | TypeSlot::DOUBLE)) => "0.0",
            Some(Ty::Primitive(_)) => "0",
            Some(Ty::Def(TypeDef::Pointer(_))) => "null",
            _ => "zeroinitializer",
        });
    }

    fn value(&self, out: &mut String, scope: &Scope<'_>, plane: TypeSlot, slot: u32, depth: usize) {
        if depth == 0 {
            self.repeats.begin(Text::Constant);
        }
        let types = &scope.types;
        let plane = types.canon(plane);
        let base = u32::from(types.has_null(plane, self.m.revision));
        if slot < base {
            return self.null(out, types, plane);
        }
        let module = self.module_values.get(&plane).map_or(&[][..], |v| v.as_slice());
        let k = (slot - base) as usize;
        if let Some(&mv) = module.get(k) {
            return match mv {
                ModuleValue::Named => self.named(out, None, plane, slot),
                ModuleValue::String(i) => {
                    out.push_str("c\"");
                    write_escaped(out, &self.m.constants.strings[i].bytes);
                    out.push('"');
                }
                ModuleValue::Constant(p, c) => {
                    let constant = &self.m.constants.planes[p].constants[c];
                    if is_composite(constant) && !self.repeats.may_expand(Text::Constant, self.printed.flag(p, c)) {
                        return out.push_str("...");
                    }
                    self.constant(out, scope, plane, constant, depth)
                }
            };
        }
        let local = scope.values.get(&plane).and_then(|v| v.get(k - module.len()));
        match (local, scope.body) {
            (Some(&FunctionValue::Constant(p, c)), Some(body)) => {
                let constant = &body.constants[p].constants[c];
                if is_composite(constant) && !self.repeats.may_expand(Text::Constant, scope.printed.flag(p, c)) {
                    return out.push_str("...");
                }
                self.constant(out, scope, plane, constant, depth)
            }
            (Some(_), Some(_)) => self.named(out, scope.names, plane, slot),
            _ => {
                let _ = write!(out, "<bad value {plane}:{slot}>");
            }
        }
    }

    fn constant(&self, out: &mut String, scope: &Scope<'_>, plane: TypeSlot, c: &Constant, depth: usize) {
        if depth > MAX_DEPTH {
            out.push_str("...");
            return;
        }
        let types = &scope.types;
        match c {
            Constant::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Constant::Unsigned(v) => {
                let _ = write!(out, "{v}");
            }
            Constant::Signed(v) => {
                let _ = write!(out, "{v}");
            }
            Constant::Float(bits) => float(out, f64::from(f32::from_bits(*bits))),
            Constant::Double(bits) => float(out, f64::from_bits(*bits)),
            Constant::Array(elements) => {
                let element = match types.get(plane) {
                    Some(Ty::Def(TypeDef::Array { element, .. })) => *element,
                    _ => TypeSlot::VOID,
                };
                out.push_str("[ ");
                for (i, &e) in elements.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.ty(out, types, element);
                    out.push(' ');
                    self.value(out, scope, element, e, depth + 1);
                }
                out.push_str(" ]");
            }
            Constant::Struct(values) => {
                let fields: &[TypeSlot] = match types.get(plane) {
                    Some(Ty::Def(TypeDef::Struct(fields))) => fields,
                    _ => &[],
                };
                out.push_str("{ ");
                for (i, (&v, &f)) in values.iter().zip(fields).enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.ty(out, types, f);
                    out.push(' ');
                    self.value(out, scope, f, v, depth + 1);
                }
                out.push_str(" }");
            }
            Constant::GlobalRef(slot) => self.named(out, None, plane, *slot),
            Constant::Expr { opcode, operands } => {
                let _ = write!(out, "{} (", opcode.mnemonic());
                for (i, o) in operands.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.ty(out, types, o.ty);
                    out.push(' ');
                    self.value(out, scope, o.ty, o.slot, depth + 1);
                }
                if *opcode == Opcode::Cast {
                    out.push_str(" to ");
                    self.ty(out, types, plane);
                }
                out.push(')');
            }
        }
    }

    fn function(&self, sink: &mut Sink<'_>, index: usize) -> io::Result<()> {
        let out = &mut sink.buf;
        let f = &self.m.functions[index];
        let body = f.body.as_ref();
        let types = Types { module: &self.m.types, local: body.map_or(&[][..], |b| &b.types) };
        let (ret, params, varargs) = types.callee(f.ty).unwrap_or((TypeSlot::VOID, &[], false));
        let revision = self.m.revision;
        // The function's names, indexed once. Block names are looked up in the label plane as written, which the
        // index by canonical plane answers too unless a pool type that only names `label` has a plane of its own.
        let names = body.map(|b| SymbolIndex::with_planes(&b.symbols, |p| self.types.canon(p)));
        let label_alias = |b: &FunctionBody| {
            b.symbols.planes.iter().any(|p| p.ty != TypeSlot::LABEL && self.types.canon(p.ty) == TypeSlot::LABEL)
        };
        let labels_as_written = body.filter(|b| label_alias(b)).map(|b| SymbolIndex::new(&b.symbols));
        let labels = labels_as_written.as_ref().or(names.as_ref());
        let printed = Printed::new(body.map_or(&[][..], |b| &b.constants));
        let mut scope = Scope { types, body, values: HashMap::default(), names: names.as_ref(), labels, printed };
        let mut args = Vec::new();
        for &p in params {
            let plane = types.canon(p);
            let list = scope.values.entry(plane).or_default();
            list.push(FunctionValue::Argument);
            args.push((p, self.slot_of_next(plane, list.len() - 1, revision)));
        }
        out.push('\n');
        if body.is_none() {
            out.push_str("declare ");
        } else if !f.linkage.keyword().is_empty() {
            let _ = write!(out, "{} ", f.linkage.keyword());
        }
        self.ty(out, &types, ret);
        out.push(' ');
        self.named(out, None, self.types.canon(f.ty), self.function_slots[index]);
        out.push('(');
        for (i, &(p, slot)) in args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.ty(out, &types, p);
            if body.is_some() {
                out.push(' ');
                self.named(out, scope.names, types.canon(p), slot);
            }
        }
        if varargs {
            out.push_str(if params.is_empty() { "..." } else { ", ..." });
        }
        out.push(')');
        let Some(body) = body else {
            out.push('\n');
            return sink.line_done();
        };
        out.push_str(" {\n");
        for (p, plane) in body.constants.iter().enumerate() {
            let list = scope.values.entry(types.canon(plane.ty)).or_default();
            list.extend((0..plane.constants.len()).map(|c| FunctionValue::Constant(p, c)));
        }
        // Number every result before printing, so forward references resolve.
        let local_pointers = PointerIndex::local(&types);
        let pointers = Pointers::new(&self.pointers, local_pointers.as_ref());
        let mut results = Vec::new();
        for block in &body.blocks {
            for inst in &block.instructions {
                let result = result_type(&types, pointers, self, inst);
                if result != TypeSlot::VOID {
                    let list = scope.values.entry(result).or_default();
                    list.push(FunctionValue::Result);
                    results.push(Some((result, self.slot_of_next(result, list.len() - 1, revision))));
                } else {
                    results.push(None);
                }
            }
        }
        let mut results = results.into_iter();
        for (b, block) in body.blocks.iter().enumerate() {
            let out = &mut sink.buf;
            if b > 0 {
                out.push('\n');
            }
            match labels.and_then(|l| l.name_of(TypeSlot::LABEL, b as u32)) {
                Some(name) if !name.is_empty() => {
                    let mut n = String::new();
                    write_name(&mut n, name);
                    out.push_str(&n[1..]);
                    out.push_str(":\n");
                }
                _ => {
                    let _ = writeln!(out, "; <label>:{b}");
                }
            }
            for inst in &block.instructions {
                let out = &mut sink.buf;
                out.push('\t');
                if let Some(Some((plane, slot))) = results.next() {
                    self.named(out, scope.names, plane, slot);
                    out.push_str(" = ");
                }
                self.instruction(out, &scope, inst);
                out.push('\n');
                sink.line_done()?;
            }
        }
        sink.buf.push_str("}\n");
        sink.line_done()
    }

    /// The slot of the `index`-th function value of `plane`.
    fn slot_of_next(&self, plane: TypeSlot, index: usize, revision: u32) -> u32 {
        let module = self.module_values.get(&plane).map_or(0, |v| v.len());
        (index + module) as u32 + u32::from(self.types.has_null(plane, revision))
    }

    fn label(&self, out: &mut String, scope: &Scope<'_>, b: u32) {
        out.push_str("label ");
        match scope.labels.and_then(|l| l.name_of(TypeSlot::LABEL, b)) {
            Some(name) => write_name(out, name),
            None => {
                let _ = write!(out, "%{b}");
            }
        }
    }

    fn instruction(&self, out: &mut String, scope: &Scope<'_>, inst: &Instruction) {
        let types = &scope.types;
        let t = inst.ty;
        let ops = &inst.operands;
        let value = |out: &mut String, i: usize, plane: TypeSlot| match ops.get(i) {
            Some(Operand::Value(s)) => self.value(out, scope, plane, *s, 0),
            _ => out.push_str("<bad operand>"),
        };
        let typed = |out: &mut String, i: usize, plane: TypeSlot| {
            self.ty(out, types, plane);
            out.push(' ');
            value(out, i, plane);
        };
        if matches!(inst.opcode, Opcode::VolatileLoad | Opcode::VolatileStore) {
            out.push_str("volatile ");
        }
        out.push_str(inst.opcode.mnemonic());
        out.push(' ');
        match inst.opcode {
            Opcode::Ret if ops.is_empty() => out.push_str("void"),
            Opcode::Unwind => {
                out.pop();
            }
            Opcode::Br => {
                if let [Operand::Block(a), Operand::Block(b), Operand::Value(_)] = ops[..] {
                    typed(out, 2, TypeSlot::BOOL);
                    out.push_str(", ");
                    self.label(out, scope, a);
                    out.push_str(", ");
                    self.label(out, scope, b);
                } else if let [Operand::Block(a)] = ops[..] {
                    self.label(out, scope, a);
                }
            }
            Opcode::Switch => {
                typed(out, 0, t);
                if let Some(Operand::Block(d)) = ops.get(1) {
                    out.push_str(", ");
                    self.label(out, scope, *d);
                }
                out.push_str(" [");
                for pair in (2..ops.len()).step_by(2) {
                    out.push_str("\n\t\t");
                    typed(out, pair, t);
                    if let Some(Operand::Block(b)) = ops.get(pair + 1) {
                        out.push_str(", ");
                        self.label(out, scope, *b);
                    }
                }
                out.push_str(" ]");
            }
            Opcode::Invoke | Opcode::Call => {
                let (ret, params, varargs) = types.callee(t).unwrap_or((TypeSlot::VOID, &[], false));
                if varargs {
                    self.ty(out, types, t);
                } else {
                    self.ty(out, types, ret);
                }
                out.push(' ');
                value(out, 0, t);
                out.push('(');
                let start = if inst.opcode == Opcode::Invoke { 3 } else { 1 };
                for (i, op) in ops.iter().enumerate().skip(start) {
                    if i > start {
                        out.push_str(", ");
                    }
                    match *op {
                        Operand::VarArg { ty, slot } => self.typed(out, scope, ty, slot),
                        _ => typed(out, i, params.get(i - start).copied().unwrap_or(TypeSlot::VOID)),
                    }
                }
                out.push(')');
                if let [_, Operand::Block(n), Operand::Block(u), ..] = ops[..] {
                    out.push_str(" to ");
                    self.label(out, scope, n);
                    out.push_str(" unwind ");
                    self.label(out, scope, u);
                }
            }
            Opcode::Malloc | Opcode::Alloca => {
                self.ty(out, types, types.pointee(t).unwrap_or(TypeSlot::VOID));
                if !ops.is_empty() {
                    out.push_str(", ");
                    typed(out, 0, TypeSlot::UINT);
                }
            }
            Opcode::Store | Opcode::VolatileStore => {
                typed(out, 0, types.pointee(t).unwrap_or(TypeSlot::VOID));
                out.push_str(", ");
                typed(out, 1, t);
            }
            Opcode::GetElementPtr => {
                typed(out, 0, t);
                for op in &ops[1..] {
                    if let Operand::Index { kind, slot } = *op {
                        out.push_str(", ");
                        self.typed(out, scope, kind.plane(), slot);
                    }
                }
            }
            Opcode::Phi => {
                self.ty(out, types, t);
                for pair in (0..ops.len()).step_by(2) {
                    out.push_str(if pair == 0 { " [ " } else { ", [ " });
                    value(out, pair, t);
                    if let Some(Operand::Block(b)) = ops.get(pair + 1) {
                        out.push_str(", ");
                        let mut l = String::new();
                        self.label(&mut l, scope, *b);
                        out.push_str(l.trim_start_matches("label "));
                    }
                    out.push_str(" ]");
                }
            }
            Opcode::Cast | Opcode::VaArg | Opcode::VaNext => {
                typed(out, 0, t);
                out.push_str(if inst.opcode == Opcode::Cast { " to " } else { ", " });
                if let Some(Operand::Type(to)) = ops.get(1) {
                    self.ty(out, types, *to);
                }
            }
            Opcode::Shl | Opcode::Shr => {
                typed(out, 0, t);
                out.push_str(", ");
                typed(out, 1, TypeSlot::UBYTE);
            }
            Opcode::Select => {
                typed(out, 0, TypeSlot::BOOL);
                out.push_str(", ");
                typed(out, 1, t);
                out.push_str(", ");
                typed(out, 2, t);
            }
            _ => {
                // ret with a value, binary operators, comparisons, free and load: "T a[, b]".
                typed(out, 0, t);
                for i in 1..ops.len() {
                    out.push_str(", ");
                    value(out, i, t);
                }
            }
        }
    }
}

fn result_type(types: &Types<'_>, pointers: Pointers<'_>, p: &Printer<'_>, inst: &Instruction) -> TypeSlot {
    let module = &p.module_values;
    let revision = p.m.revision;
    let int = |plane: TypeSlot, slot: u32| -> Option<u64> {
        let base = u32::from(types.has_null(plane, revision));
        if slot < base {
            return Some(0);
        }
        match module.get(&plane)?.get((slot - base) as usize)? {
            ModuleValue::Constant(pi, ci) => match p.m.constants.planes[*pi].constants[*ci] {
                Constant::Unsigned(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    };
    crate::format::typing::analyze(types, pointers, inst, &int).map_or(TypeSlot::VOID, |a| a.result)
}

/// Whether a constant's text includes other constants' (which is how shared constants multiply).
fn is_composite(c: &Constant) -> bool {
    matches!(c, Constant::Array(_) | Constant::Struct(_) | Constant::Expr { .. })
}

fn float(out: &mut String, v: f64) {
    if v.is_finite() && v.to_string().parse::<f64>() == Ok(v) {
        let s = format!("{v:?}");
        out.push_str(&s);
    } else {
        let _ = write!(out, "0x{:016X}", v.to_bits());
    }
}
