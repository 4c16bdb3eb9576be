//! An annotated listing of a bytecode file, like `llvm-bcanalyzer -dump`: the magic, the module header and version
//! word, then every block with its offset, id, header form and size, nested as in the file. The type pool, global
//! info and instruction lists are decoded item by item (instructions with their format and raw operand numbers, in
//! the file's local numbering); other blocks list their bytes in rows of 16. Padding is shown where it occurs.
//!
//! The file is first read in full, so a malformed file gives the reader's error and no listing.

use std::fmt::Write as _;

use crate::format::block::{read_block, BlockHeader, BlockId, HeaderForm};
use crate::format::instruction::read_raw;
use crate::format::types::{read_type_def, TypeNumbering};
use crate::format::{read_module, Opcode, ReadError, Reader};

/// Lists the blocks and instructions of `bytes` with their offsets.
///
/// ```
/// let bytes = llvm13::write_module(&llvm13::Module::default()).unwrap();
/// let listing = llvm13::dump(&bytes).unwrap();
/// assert!(listing.contains("type pool"));
/// ```
pub fn dump(bytes: &[u8]) -> Result<String, ReadError> {
    let m = read_module(bytes)?;
    let mut d = Dumper { out: String::new(), numbering: TypeNumbering { old: m.revision < 2 }, revision: m.revision };
    let mut r = Reader::new(bytes, 0);
    r.take(4)?;
    let _ = writeln!(d.out, "{:08x}: magic \"llvm\"", 0);
    let id = r.u32_le()?;
    let size = r.u32_le()?;
    let _ = writeln!(d.out, "{:08x}: <module id={id} long header, size={size}>", 4);
    let mut body = r.sub(size as usize)?;
    let at = body.offset();
    let version = body.vbr32()?;
    let _ = writeln!(
        d.out,
        "{at:08x}:   version word {version:#x}: revision {}, big-endian {}, 64-bit {}, endianness unspecified {}, pointer size unspecified {}",
        version >> 4,
        version & 1,
        version >> 1 & 1,
        version >> 2 & 1,
        version >> 3 & 1
    );
    d.align(&mut body, 1)?;
    let form = if m.revision == 3 { HeaderForm::Short } else { HeaderForm::Long };
    while !body.is_empty() {
        let (h, mut content) = read_block(&mut body, form)?;
        d.block(&h, &mut content, 1, form)?;
        d.align(&mut body, 1)?;
    }
    let _ = writeln!(d.out, "{:08x}: </module>", body.offset());
    Ok(d.out)
}

struct Dumper {
    out: String,
    numbering: TypeNumbering,
    revision: u32,
}

impl Dumper {
    fn indent(&mut self, at: u64, depth: usize) {
        let _ = write!(self.out, "{at:08x}: {:width$}", "", width = depth * 2);
    }

    fn align(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(), ReadError> {
        let at = r.offset();
        let pad = (4 - (at % 4) as usize) % 4;
        if pad > 0 && pad <= r.remaining() {
            let bytes = r.take(pad)?;
            self.indent(at, depth);
            let _ = writeln!(self.out, "padding {bytes:02x?}");
        }
        Ok(())
    }

    fn bytes(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(), ReadError> {
        while !r.is_empty() {
            let at = r.offset();
            let row = r.take(r.remaining().min(16))?;
            self.indent(at, depth);
            let hex: Vec<String> = row.iter().map(|b| format!("{b:02x}")).collect();
            let _ = writeln!(self.out, "{}", hex.join(" "));
        }
        Ok(())
    }

    fn block(&mut self, h: &BlockHeader, r: &mut Reader<'_>, depth: usize, form: HeaderForm) -> Result<(), ReadError> {
        self.indent(h.offset, depth);
        let form_name = if h.form == HeaderForm::Short { "short" } else { "long" };
        let _ = writeln!(self.out, "<{} id={:#x} {form_name} header, size={}>", h.id.name(), h.raw_id, h.size);
        let inner = depth + 1;
        match h.id {
            BlockId::TypePool => {
                let at = r.offset();
                let n = r.vbr32()?;
                self.indent(at, inner);
                let _ = writeln!(self.out, "{n} types");
                if self.numbering.old {
                    r.vbr32()?;
                }
                for i in 0..n {
                    let at = r.offset();
                    let def = read_type_def(r, self.numbering)?;
                    self.indent(at, inner);
                    let _ = writeln!(self.out, "type slot {}: {def:?}", 13 + i);
                }
            }
            BlockId::GlobalInfo => {
                loop {
                    let at = r.offset();
                    let word = r.vbr32()?;
                    self.indent(at, inner);
                    if word == 0 {
                        let _ = writeln!(self.out, "end of global variables");
                        break;
                    }
                    let _ = write!(
                        self.out,
                        "global: type slot {}, constant {}, linkage {}",
                        word >> 5,
                        word & 1,
                        word >> 2 & 7
                    );
                    if word & 2 != 0 {
                        let _ = writeln!(self.out, ", initializer slot {}", r.vbr32()?);
                    } else {
                        self.out.push('\n');
                    }
                }
                loop {
                    let at = r.offset();
                    let ty = r.vbr32()?;
                    self.indent(at, inner);
                    if ty == 0 {
                        let _ = writeln!(self.out, "end of functions");
                        break;
                    }
                    let _ = writeln!(self.out, "function: type slot {ty}");
                }
                if self.revision == 0 {
                    self.align(r, inner)?;
                }
                if self.revision == 3 {
                    let at = r.offset();
                    let n = r.vbr32()?;
                    self.indent(at, inner);
                    let _ = writeln!(self.out, "{n} dependent libraries");
                    for _ in 0..n {
                        let at = r.offset();
                        let lib = r.string()?;
                        self.indent(at, inner);
                        let _ = writeln!(self.out, "library {:?}", String::from_utf8_lossy(&lib));
                    }
                    let at = r.offset();
                    let triple = r.string()?;
                    self.indent(at, inner);
                    let _ = writeln!(self.out, "target triple {:?}", String::from_utf8_lossy(&triple));
                    self.align(r, inner)?;
                }
                self.bytes(r, inner)?;
            }
            BlockId::Function => {
                let at = r.offset();
                let linkage = r.vbr32()?;
                self.indent(at, inner);
                let _ = writeln!(self.out, "linkage {linkage}");
                while !r.is_empty() {
                    let (h, mut content) = read_block(r, form)?;
                    self.block(&h, &mut content, inner, form)?;
                    self.align(r, inner)?;
                }
            }
            BlockId::InstructionList | BlockId::BasicBlock => {
                while !r.is_empty() {
                    let at = r.offset();
                    let start = r.clone();
                    let raw = read_raw(r)?;
                    let mnemonic = Opcode::from_number(raw.opcode).map_or("?", |o| o.mnemonic());
                    self.indent(at, inner);
                    let mut len = (r.offset() - at) as usize;
                    let bytes = start.clone().take(len)?;
                    if raw.format == 0 {
                        // Show the instruction's own bytes; the padding that follows gets a line of its own.
                        let mut probe = start.clone();
                        let _ = probe.vbr32().and_then(|_| probe.vbr32());
                        let n = probe.vbr32().unwrap_or(0);
                        for _ in 0..n {
                            let _ = probe.vbr32();
                        }
                        len = (probe.offset() - at) as usize;
                    }
                    let hex: Vec<String> = bytes[..len.min(bytes.len())].iter().map(|b| format!("{b:02x}")).collect();
                    let _ = writeln!(
                        self.out,
                        "format {} {mnemonic} ({}) type {} operands {:?}  [{}]",
                        raw.format,
                        raw.opcode,
                        raw.ty,
                        raw.operands,
                        hex.join(" ")
                    );
                    if raw.format == 0 && r.offset() > at + len as u64 {
                        self.indent(at + len as u64, inner);
                        let _ = writeln!(self.out, "padding");
                    }
                }
            }
            _ => self.bytes(r, inner)?,
        }
        let _ = writeln!(self.out, "{:08x}: {:width$}</{}>", r.offset(), "", h.id.name(), width = depth * 2);
        Ok(())
    }
}
