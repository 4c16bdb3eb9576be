//! Removing insignificant whitespace from JSON text before serde_json reads it.
//!
//! `encode` indents by nesting depth, so about 80 % of a pretty-printed program
//! is whitespace, and serde_json skips it one byte at a time through its reader
//! (about ten instructions a byte, as much in all as it spends on the tokens).
//! Here runs of spaces are skipped eight bytes at a time and the tokens copied,
//! in about half that time, and the decoder reads the copy.
//!
//! The copy has exactly the tokens of the original: strings are copied whole
//! (their end found as serde_json finds it: a `"` not escaped by `\`), and
//! whitespace between two bytes that are neither punctuation nor quotes (`tr
//! ue`, `6 4`, `- 1`) is kept as one space, so tokens never merge. A text is
//! therefore accepted, with the same value, exactly when the original is; only
//! error positions would differ, which is why the decoder reports errors from
//! the original text (see [`super::interchange`]).

/// Inputs shorter than this are read as they are.
const MIN_LEN: usize = 64 * 1024;

/// How much of the input is sampled to decide whether stripping pays.
const SAMPLE_LEN: usize = 4096;

/// `src` without its layout whitespace, when `src` is large and mostly
/// whitespace; `None` when reading `src` as it is would be as fast.
pub(super) fn strip(src: &str) -> Option<String> {
    let sample = src.as_bytes().get(..SAMPLE_LEN).filter(|_| src.len() >= MIN_LEN)?;
    let blanks = sample.iter().filter(|&&b| class(b) == BLANK).count();
    if blanks < sample.len() / 4 {
        return None;
    }
    String::from_utf8(strip_bytes(src.as_bytes())).ok()
}

/// What a byte is outside strings.
const WORD: u8 = 0;
const PUNCTUATION: u8 = 1;
const BLANK: u8 = 2;
const QUOTE: u8 = 3;

/// The class of every byte: JSON's insignificant whitespace, the punctuation
/// `{}[]:,`, the quote, and everything else (the bytes of numbers and literals,
/// or of invalid text), between which whitespace separates tokens.
const CLASS: [u8; 256] = {
    let mut class = [WORD; 256];
    class[b' ' as usize] = BLANK;
    class[b'\n' as usize] = BLANK;
    class[b'\t' as usize] = BLANK;
    class[b'\r' as usize] = BLANK;
    class[b'{' as usize] = PUNCTUATION;
    class[b'}' as usize] = PUNCTUATION;
    class[b'[' as usize] = PUNCTUATION;
    class[b']' as usize] = PUNCTUATION;
    class[b':' as usize] = PUNCTUATION;
    class[b',' as usize] = PUNCTUATION;
    class[b'"' as usize] = QUOTE;
    class
};

#[inline]
fn class(b: u8) -> u8 {
    CLASS[usize::from(b)]
}

/// Eight spaces as one little-endian word.
const SPACES: u64 = u64::from_le_bytes([b' '; 8]);

/// The tokens of `bytes` with the whitespace between them removed (or, between
/// two word bytes, kept as one space). Multi-byte UTF-8 sequences are copied
/// untouched: only ASCII whitespace is dropped and only ASCII spaces inserted.
fn strip_bytes(bytes: &[u8]) -> Vec<u8> {
    let n = bytes.len();
    let mut out = Vec::with_capacity(n);
    let mut i = 0;
    while i < n {
        let b = bytes[i];
        i += 1;
        if b > b' ' && b != b'"' {
            out.push(b);
        } else if b == b'"' {
            // The string up to its closing quote; a backslash escapes the next byte.
            out.push(b);
            while i < n {
                let c = bytes[i];
                i += 1;
                out.push(c);
                if c == b'"' {
                    break;
                }
                if c == b'\\' && i < n {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
        } else if class(b) == BLANK {
            // The byte before the run ends a token: a string's closing quote,
            // punctuation, or a word byte.
            let before = out.last().map_or(PUNCTUATION, |&b| class(b));
            loop {
                // Indentation: spaces counted eight at a time.
                while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
                    let differ = u64::from_le_bytes(*chunk) ^ SPACES;
                    if differ != 0 {
                        i += (differ.trailing_zeros() / 8) as usize;
                        break;
                    }
                    i += 8;
                }
                match bytes.get(i) {
                    Some(&b) if class(b) == BLANK => i += 1,
                    _ => break,
                }
            }
            if before == WORD && bytes.get(i).is_some_and(|&b| class(b) == WORD) {
                out.push(b' ');
            }
        } else {
            // Another control character: invalid here, and copied.
            out.push(b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stripped(text: &str) -> String {
        String::from_utf8(strip_bytes(text.as_bytes())).unwrap()
    }

    #[test]
    fn layout_goes_and_tokens_stay() {
        assert_eq!(stripped("{\n  \"a b\": [1, 2],\r\n\t\"c\" : null }\n"), r#"{"a b":[1,2],"c":null}"#);
        // Whitespace inside strings, escaped quotes and backslashes are kept.
        assert_eq!(stripped(r#"[ "x \" y" , "z\\" , "\u0022 " ]"#), r#"["x \" y","z\\","\u0022 "]"#);
        // Between two word bytes one space remains, so tokens never merge.
        assert_eq!(stripped("[6 4, tr  ue, - 1, 1\n.5, null\ttrue]"), "[6 4,tr ue,- 1,1 .5,null true]");
        assert_eq!(stripped("[\"a\" \"b\", 1 \"c\", {} 2]"), r#"["a""b",1"c",{}2]"#);
        // Unterminated strings and escapes at the end are copied as they are.
        assert_eq!(stripped("[ \"abc"), "[\"abc");
        assert_eq!(stripped("[ \"abc\\"), "[\"abc\\");
        // Multi-byte characters inside and outside strings are untouched.
        assert_eq!(stripped("{ \"é\" : \"ü \u{1F40B}\" } \u{1F40B}"), "{\"é\":\"ü \u{1F40B}\"}\u{1F40B}");
        // Long runs of spaces, with and without other whitespace.
        let indented = format!("[{}1,{}\n{}2]", " ".repeat(37), "\n".repeat(3), " ".repeat(16));
        assert_eq!(stripped(&indented), "[1,2]");
    }

    /// One byte at a time, as the format says: the reference for [`strip_bytes`].
    fn reference(bytes: &[u8]) -> Vec<u8> {
        let (mut out, mut i, mut in_string, mut escaped) = (Vec::new(), 0, false, false);
        while let Some(&b) = bytes.get(i) {
            i += 1;
            if in_string {
                out.push(b);
                in_string = escaped || b != b'"';
                escaped = !escaped && b == b'\\';
            } else if class(b) == BLANK {
                let before = out.last().map_or(PUNCTUATION, |&b| class(b));
                while bytes.get(i).is_some_and(|&b| class(b) == BLANK) {
                    i += 1;
                }
                let after = bytes.get(i).map_or(PUNCTUATION, |&b| class(b));
                if before == WORD && after == WORD {
                    out.push(b' ');
                }
            } else {
                out.push(b);
                in_string = b == b'"';
            }
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn matches_the_byte_at_a_time_reference(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                " ", "  ", "        ", "\n", "\t", "\r\n    ", "\"", "\\", "\\\"", "a", "tr", "1", "-", ".",
                "{", "}", "[", "]", ":", ",", "\u{1}", "é", "\u{1F40B}", "\"key\": ", "null",
            ]), 0..64)
        ) {
            let text = pieces.concat();
            proptest::prop_assert_eq!(strip_bytes(text.as_bytes()), reference(text.as_bytes()));
        }
    }

    #[test]
    fn only_large_mostly_blank_texts_are_stripped() {
        let pretty = format!("[{}]", vec!["\n    1"; MIN_LEN].join(","));
        assert_eq!(strip(&pretty).as_deref(), Some(format!("[{}]", vec!["1"; MIN_LEN].join(",")).as_str()));
        let compact = format!("[{}]", vec!["1"; MIN_LEN].join(","));
        assert_eq!(strip(&compact), None);
        assert_eq!(strip("[ 1 ]"), None);
    }
}
