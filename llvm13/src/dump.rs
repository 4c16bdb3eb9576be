//! An annotated listing of a bytecode file, like `llvm-bcanalyzer -dump`: the magic, the module header and version
//! word, then every block with its offset, id, header form and size, nested as in the file. The type pool, global
//! info and instruction lists are decoded item by item (instructions with their format and raw operand numbers, in
//! the file's local numbering); other blocks list their bytes in rows of 16. Padding is shown where it occurs.
//!
//! The listing is written while the blocks are walked, a line at a time through a bounded buffer ([`Sink`]), so its
//! memory does not grow with the listing. The walk only needs the block structure; whether the file is valid is
//! decided by the reader: after the walk, the file is read with [`read_module`], and its error, if any, is what
//! [`dump`] returns. On a malformed file the listing therefore goes as far as the walk could go (up to the bytes that
//! stopped it), and the error is exactly the one the reader gives for the file.

use std::fmt::Write as _;

use crate::dump_error::DumpError;
use crate::format::block::{read_block, BlockHeader, BlockId, HeaderForm};
use crate::format::instruction::read_raw;
use crate::format::limits::REVISION;
use crate::format::types::{read_type_def, TypeNumbering};
use crate::format::{read_module, Opcode, ReadError, ReadErrorKind, Reader};
use crate::sink::Sink;

/// Writes the listing of the blocks and instructions of `bytes`, with their offsets, to `out`.
///
/// Fails with [`DumpError::Read`] exactly when [`read_module`] refuses the file, after writing the listing up to
/// where the walk of the blocks stopped; fails with [`DumpError::Io`] when `out` does.
///
/// ```
/// let bytes = llvm13::write_module(&llvm13::Module::default()).unwrap();
/// let mut listing = Vec::new();
/// llvm13::dump(&bytes, &mut listing).unwrap();
/// assert!(String::from_utf8(listing).unwrap().contains("type pool"));
///
/// let mut partial = Vec::new();
/// assert!(matches!(llvm13::dump(&bytes[..30], &mut partial), Err(llvm13::DumpError::Read(_))));
/// assert!(String::from_utf8(partial).unwrap().starts_with("00000000: magic \"llvm\""));
/// ```
pub fn dump(bytes: &[u8], out: &mut dyn std::io::Write) -> Result<(), DumpError> {
    let mut d = Dumper { sink: Sink::writer(out), numbering: TypeNumbering { old: false }, revision: REVISION };
    let walked = d.walk(bytes);
    if let Err(DumpError::Io(e)) = walked {
        return Err(DumpError::Io(e));
    }
    if walked.is_err() && !d.sink.buf.is_empty() && !d.sink.buf.ends_with('\n') {
        // The walk stopped inside a line; the partial listing still ends with a whole one.
        d.sink.buf.push('\n');
    }
    d.sink.finish()?;
    read_module(bytes)?;
    walked
}

struct Dumper<'w> {
    sink: Sink<'w>,
    numbering: TypeNumbering,
    revision: u32,
}

impl Dumper<'_> {
    fn walk(&mut self, bytes: &[u8]) -> Result<(), DumpError> {
        let mut r = Reader::new(bytes, 0);
        let magic = r.take(4)?;
        if magic != b"llvm" {
            let mut found = [0; 4];
            found.copy_from_slice(magic);
            return Err(ReadError::new(ReadErrorKind::BadMagic { found }, 0).into());
        }
        let _ = write!(self.sink.buf, "{:08x}: magic \"llvm\"", 0);
        self.end_line()?;
        let id = r.u32_le()?;
        let size = r.u32_le()?;
        let _ = write!(self.sink.buf, "{:08x}: <module id={id} long header, size={size}>", 4);
        self.end_line()?;
        if id != 1 {
            return Err(ReadError::new(ReadErrorKind::NotAModule { id }, 4).into());
        }
        // A truncated file is walked as far as it goes; the reader refuses it at the module size.
        let actual = r.remaining() as u64;
        let mut body = r.sub((size as usize).min(r.remaining()))?;
        let at = body.offset();
        let version = body.vbr32()?;
        let _ = write!(
            self.sink.buf,
            "{at:08x}:   version word {version:#x}: revision {}, big-endian {}, 64-bit {}, endianness unspecified {}, pointer size unspecified {}",
            version >> 4,
            version & 1,
            version >> 1 & 1,
            version >> 2 & 1,
            version >> 3 & 1
        );
        self.end_line()?;
        self.revision = version >> 4;
        if self.revision > REVISION {
            let kind = ReadErrorKind::UnsupportedRevision { revision: self.revision };
            return Err(ReadError::new(kind, at).into());
        }
        self.numbering = TypeNumbering { old: self.revision < 2 };
        self.align(&mut body, 1)?;
        let form = if self.revision == 3 { HeaderForm::Short } else { HeaderForm::Long };
        while !body.is_empty() {
            let (h, mut content) = read_block(&mut body, form)?;
            self.block(&h, &mut content, 1, form)?;
            self.align(&mut body, 1)?;
        }
        if u64::from(size) > actual {
            return Err(ReadError::new(ReadErrorKind::ModuleSize { declared: size.into(), actual }, 8).into());
        }
        let _ = write!(self.sink.buf, "{:08x}: </module>", body.offset());
        self.end_line()
    }

    /// Ends the current line, writing the buffer out when it is full.
    fn end_line(&mut self) -> Result<(), DumpError> {
        self.sink.buf.push('\n');
        Ok(self.sink.line_done()?)
    }

    fn indent(&mut self, at: u64, depth: usize) {
        let _ = write!(self.sink.buf, "{at:08x}: {:width$}", "", width = depth * 2);
    }

    fn align(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(), DumpError> {
        let at = r.offset();
        let pad = (4 - (at % 4) as usize) % 4;
        if pad > 0 && pad <= r.remaining() {
            let bytes = r.take(pad)?;
            self.indent(at, depth);
            let _ = write!(self.sink.buf, "padding {bytes:02x?}");
            self.end_line()?;
        }
        Ok(())
    }

    /// Appends `bytes` as two-digit hex numbers separated by spaces.
    fn hex(&mut self, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            let _ = write!(self.sink.buf, "{}{b:02x}", if i == 0 { "" } else { " " });
        }
    }

    fn bytes(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(), DumpError> {
        while !r.is_empty() {
            let at = r.offset();
            let row = r.take(r.remaining().min(16))?;
            self.indent(at, depth);
            self.hex(row);
            self.end_line()?;
        }
        Ok(())
    }

    fn block(&mut self, h: &BlockHeader, r: &mut Reader<'_>, depth: usize, form: HeaderForm) -> Result<(), DumpError> {
        self.indent(h.offset, depth);
        let form_name = if h.form == HeaderForm::Short { "short" } else { "long" };
        let _ = write!(self.sink.buf, "<{} id={:#x} {form_name} header, size={}>", h.id.name(), h.raw_id, h.size);
        self.end_line()?;
        let inner = depth + 1;
        match h.id {
            BlockId::TypePool => self.type_pool(r, inner)?,
            BlockId::GlobalInfo => self.global_info(r, inner)?,
            BlockId::Function => {
                let at = r.offset();
                let linkage = r.vbr32()?;
                self.indent(at, inner);
                let _ = write!(self.sink.buf, "linkage {linkage}");
                self.end_line()?;
                while !r.is_empty() {
                    let (h, mut content) = read_block(r, form)?;
                    self.block(&h, &mut content, inner, form)?;
                    self.align(r, inner)?;
                }
            }
            BlockId::InstructionList | BlockId::BasicBlock => self.instructions(r, inner)?,
            _ => self.bytes(r, inner)?,
        }
        let _ = write!(self.sink.buf, "{:08x}: {:width$}</{}>", r.offset(), "", h.id.name(), width = depth * 2);
        self.end_line()
    }

    fn type_pool(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(), DumpError> {
        let at = r.offset();
        let n = r.vbr32()?;
        self.indent(at, depth);
        let _ = write!(self.sink.buf, "{n} types");
        self.end_line()?;
        if self.numbering.old {
            r.vbr32()?;
        }
        for i in 0..n {
            let at = r.offset();
            let def = read_type_def(r, self.numbering)?;
            self.indent(at, depth);
            let _ = write!(self.sink.buf, "type slot {}: {def:?}", 13 + u64::from(i));
            self.end_line()?;
        }
        Ok(())
    }

    fn global_info(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(), DumpError> {
        loop {
            let at = r.offset();
            let word = r.vbr32()?;
            self.indent(at, depth);
            if word == 0 {
                self.sink.buf.push_str("end of global variables");
                self.end_line()?;
                break;
            }
            let _ = write!(
                self.sink.buf,
                "global: type slot {}, constant {}, linkage {}",
                word >> 5,
                word & 1,
                word >> 2 & 7
            );
            if word & 2 != 0 {
                let _ = write!(self.sink.buf, ", initializer slot {}", r.vbr32()?);
            }
            self.end_line()?;
        }
        loop {
            let at = r.offset();
            let ty = r.vbr32()?;
            self.indent(at, depth);
            if ty == 0 {
                self.sink.buf.push_str("end of functions");
                self.end_line()?;
                break;
            }
            let _ = write!(self.sink.buf, "function: type slot {ty}");
            self.end_line()?;
        }
        if self.revision == 0 {
            self.align(r, depth)?;
        }
        if self.revision == 3 {
            let at = r.offset();
            let n = r.vbr32()?;
            self.indent(at, depth);
            let _ = write!(self.sink.buf, "{n} dependent libraries");
            self.end_line()?;
            for _ in 0..n {
                let at = r.offset();
                let lib = r.string()?;
                self.indent(at, depth);
                let _ = write!(self.sink.buf, "library {:?}", String::from_utf8_lossy(&lib));
                self.end_line()?;
            }
            let at = r.offset();
            let triple = r.string()?;
            self.indent(at, depth);
            let _ = write!(self.sink.buf, "target triple {:?}", String::from_utf8_lossy(&triple));
            self.end_line()?;
            self.align(r, depth)?;
        }
        self.bytes(r, depth)
    }

    fn instructions(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(), DumpError> {
        while !r.is_empty() {
            let at = r.offset();
            let start = r.clone();
            let raw = read_raw(r)?;
            let mnemonic = Opcode::from_number(raw.opcode).map_or("?", |o| o.mnemonic());
            self.indent(at, depth);
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
            let _ = write!(
                self.sink.buf,
                "format {} {mnemonic} ({}) type {} operands {:?}  [",
                raw.format, raw.opcode, raw.ty, raw.operands
            );
            self.hex(&bytes[..len.min(bytes.len())]);
            self.sink.buf.push(']');
            self.end_line()?;
            if raw.format == 0 && r.offset() > at + len as u64 {
                self.indent(at + len as u64, depth);
                self.sink.buf.push_str("padding");
                self.end_line()?;
            }
        }
        Ok(())
    }
}
