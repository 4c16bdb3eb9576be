//! The listing's lines and where they go: a bounded text buffer in front of the caller's writer.
//!
//! A listing is about 17 times the size of its image, so it is never held whole. Lines are laid out into one
//! `String`, and the buffer is handed to the writer whenever it has grown past [`FLUSH_AT`] at the end of a line. The
//! writer sees few, large writes, so it needs no buffering of its own, and memory stays at the buffer plus the longest
//! line. A writer error is returned unchanged, so the caller can tell a closed pipe (`ErrorKind::BrokenPipe`) from
//! other failures.
//!
//! A line is `offset | bytes | text`: the offset right-aligned in 8 hex digits, up to [`ROW`] bytes in hex padded to
//! the width of a full row, then the text indented two spaces per level. The columns are laid out by hand rather
//! than with `format!` padding: a listing has one line per 8 bytes of image, and the formatting machinery took most
//! of the dump's time.

use std::io;

/// The buffer is written out at the first line end past this many bytes.
pub(super) const FLUSH_AT: usize = 64 << 10;

/// Bytes shown per line.
pub(super) const ROW: usize = 8;

/// Width of the bytes column: a full row, two hex digits per byte and a space between bytes.
const BYTES_WIDTH: usize = ROW * 3 - 1;

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// The listing's output.
pub(super) struct Sink<'w> {
    writer: &'w mut dyn io::Write,
    buffer: String,
}

impl<'w> Sink<'w> {
    /// A sink in front of `writer`.
    pub(super) fn new(writer: &'w mut dyn io::Write) -> Self {
        // Room for a full block and the line that crosses the mark, so the buffer rarely grows.
        Self { writer, buffer: String::with_capacity(FLUSH_AT + 4096) }
    }

    /// Appends one line: `offset` (none for a line without bytes of its own), the `bytes` it covers (at most
    /// [`ROW`]) and `text` at nesting `depth`.
    pub(super) fn line(&mut self, offset: Option<u64>, bytes: &[u8], depth: usize, text: &str) -> io::Result<()> {
        let b = &mut self.buffer;
        match offset {
            Some(offset) => {
                let digits = (64 - offset.leading_zeros()).div_ceil(4).max(1) as usize;
                b.extend(std::iter::repeat_n(' ', 8usize.saturating_sub(digits)));
                b.extend((0..digits).rev().map(|k| hex_digit(offset >> (4 * k))));
            }
            None => b.push_str("        "),
        }
        b.push_str(" | ");
        for (i, &byte) in bytes.iter().enumerate() {
            if i > 0 {
                b.push(' ');
            }
            b.push(hex_digit(u64::from(byte >> 4)));
            b.push(hex_digit(u64::from(byte)));
        }
        let used = (bytes.len() * 3).saturating_sub(1);
        b.extend(std::iter::repeat_n(' ', BYTES_WIDTH.saturating_sub(used)));
        b.push_str(" | ");
        b.extend(std::iter::repeat_n("  ", depth));
        b.push_str(text);
        b.push('\n');
        self.line_end()
    }

    /// Marks the end of a line: writes the buffer out when it has grown past [`FLUSH_AT`].
    fn line_end(&mut self) -> io::Result<()> {
        if self.buffer.len() >= FLUSH_AT {
            self.write_out()?;
        }
        Ok(())
    }

    /// Writes out what is buffered and flushes the writer.
    pub(super) fn finish(&mut self) -> io::Result<()> {
        self.write_out()?;
        self.writer.flush()
    }

    fn write_out(&mut self) -> io::Result<()> {
        if !self.buffer.is_empty() {
            self.writer.write_all(self.buffer.as_bytes())?;
            self.buffer.clear();
        }
        Ok(())
    }
}

/// The low four bits of `value` as a lower-case hex digit.
fn hex_digit(value: u64) -> char {
    char::from(HEX_DIGITS[(value & 15) as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the size of every write.
    struct Recorder(Vec<usize>);

    impl io::Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.push(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The columns, as `format!("{offset:>8x} | {hex:<23} | {indent}{text}")` lays them out.
    #[test]
    fn lines_are_laid_out_in_columns() {
        let mut lines = Vec::new();
        let mut sink = Sink::new(&mut lines);
        sink.line(Some(0), &[0x22, 0, 0, 0, b'F', b'R', b'2', b'E'], 0, "`FR2E` chunk").unwrap();
        sink.line(Some(0x3b), &[0x41, 0x03, 0x13], 2, "#0 LABEL").unwrap();
        sink.line(None, &[], 1, "#2 = \"b\"").unwrap();
        sink.line(Some(0x1_2345_6789), &[0xff], 0, "").unwrap();
        sink.finish().unwrap();
        let expected = concat!(
            "       0 | 22 00 00 00 46 52 32 45 | `FR2E` chunk\n",
            "      3b | 41 03 13                |     #0 LABEL\n",
            "         |                         |   #2 = \"b\"\n",
            "123456789 | ff                      | \n",
        );
        assert_eq!(String::from_utf8(lines).unwrap(), expected);
    }

    #[test]
    fn writes_in_blocks_at_line_ends() {
        let mut recorder = Recorder(Vec::new());
        let mut sink = Sink::new(&mut recorder);
        // Lines of 100 bytes: 8 + 3 + 23 + 3 columns, 62 bytes of text, the newline.
        let text = "x".repeat(62);
        for _ in 0..2000 {
            sink.line(None, &[], 0, &text).unwrap();
        }
        sink.finish().unwrap();
        // Blocks of 65,600 bytes (656 lines, the first end past 64 KiB), then the rest.
        assert_eq!(recorder.0, [65_600, 65_600, 65_600, 3_200]);
    }

    #[test]
    fn writer_errors_come_back_unchanged() {
        struct Closed;
        impl io::Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut closed = Closed;
        let mut sink = Sink::new(&mut closed);
        assert!(sink.line(None, &[], 0, "line").is_ok(), "nothing is written before the buffer fills");
        assert_eq!(sink.finish().unwrap_err().kind(), io::ErrorKind::BrokenPipe);
    }
}
