//! Where the listings go: a text buffer that [`crate::dump`] and [`crate::disasm`] fill a line at a time and that
//! is handed to an `io::Write` whenever it grows past [`FLUSH_AT`] bytes at the end of a line.
//!
//! Formatting into a `String` and writing in large pieces keeps the printers simple (they push text and never
//! handle I/O errors mid-line) and the writes few, while the memory a listing needs stays bounded by the flush
//! threshold plus its longest line instead of growing with the whole listing. Without a writer the buffer is the
//! result ([`Sink::into_string`]), which is how [`crate::disasm_to_string`] shares the one printer.

use std::io;

/// Buffered text is written out once it reaches this many bytes at the end of a line.
pub(crate) const FLUSH_AT: usize = 64 * 1024;

/// A line buffer in front of an optional writer.
pub(crate) struct Sink<'w> {
    /// Text not yet written; printers append to it.
    pub(crate) buf: String,
    out: Option<&'w mut dyn io::Write>,
}

impl<'w> Sink<'w> {
    /// A sink that writes to `out`.
    pub(crate) fn writer(out: &'w mut dyn io::Write) -> Self {
        Self { buf: String::new(), out: Some(out) }
    }

    /// A sink that keeps everything in its buffer.
    pub(crate) fn string() -> Self {
        Self { buf: String::new(), out: None }
    }

    /// Marks the end of a line: writes the buffer out when it has grown past [`FLUSH_AT`].
    pub(crate) fn line_done(&mut self) -> io::Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.write_out()
        } else {
            Ok(())
        }
    }

    /// Writes out whatever is buffered and flushes the writer (nothing happens without a writer).
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.write_out()?;
        match self.out.as_mut() {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }

    fn write_out(&mut self) -> io::Result<()> {
        if let Some(out) = self.out.as_mut() {
            out.write_all(self.buf.as_bytes())?;
            self.buf.clear();
        }
        Ok(())
    }

    /// The text of a sink without a writer.
    pub(crate) fn into_string(self) -> String {
        self.buf
    }
}
