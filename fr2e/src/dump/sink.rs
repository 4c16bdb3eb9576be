//! Where the listing goes: a bounded text buffer in front of the caller's writer.
//!
//! A listing is about 17 times the size of its image, so it is never held whole. Lines are formatted into one
//! `String` (formatting into a `String` cannot fail, and one buffer serves every line), and the buffer is handed to
//! the writer whenever it has grown past [`FLUSH_AT`] at the end of a line. The writer sees few, large writes, so it
//! needs no buffering of its own, and memory stays at the buffer plus the longest line. A writer error is returned
//! unchanged, so the caller can tell a closed pipe (`ErrorKind::BrokenPipe`) from other failures.

use std::fmt;
use std::io;

/// The buffer is written out at the first line end past this many bytes.
pub(super) const FLUSH_AT: usize = 64 << 10;

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

    /// Marks the end of a line: writes the buffer out when it has grown past [`FLUSH_AT`].
    pub(super) fn line_end(&mut self) -> io::Result<()> {
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

impl fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.buffer.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

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

    #[test]
    fn writes_in_blocks_at_line_ends() {
        let mut recorder = Recorder(Vec::new());
        let mut sink = Sink::new(&mut recorder);
        let line = "x".repeat(99);
        for _ in 0..2000 {
            writeln!(sink, "{line}").unwrap();
            sink.line_end().unwrap();
        }
        sink.finish().unwrap();
        // 2000 lines of 100 bytes: blocks of 65,600 bytes (656 lines, the first end past 64 KiB), then the rest.
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
        sink.write_str("line\n").unwrap();
        assert!(sink.line_end().is_ok(), "nothing is written before the buffer fills");
        assert_eq!(sink.finish().unwrap_err().kind(), io::ErrorKind::BrokenPipe);
    }
}
