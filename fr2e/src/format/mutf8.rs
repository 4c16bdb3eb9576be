//! Modified UTF-8 (`fr2e.md` A5.1, B20), as in Java: U+0000 is `C0 80`, characters above U+FFFF are a UTF-16
//! surrogate pair of two 3-byte sequences, and 4-byte forms, other overlong forms and unpaired surrogates are invalid.
//! No raw `00` byte occurs inside a string, so NUL can terminate one.
//!
//! The mapping to Rust strings is a bijection on valid input, so `encode(decode(b)) == b`. Most strings are ASCII
//! or BMP text without NUL; their M-UTF-8 bytes are their UTF-8 bytes, and both directions borrow instead of copying.

use std::borrow::Cow;

/// Decodes M-UTF-8. On failure returns the index of the first byte of the offending sequence.
pub fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, usize> {
    if is_plain(bytes) {
        if let Ok(s) = std::str::from_utf8(bytes) {
            return Ok(Cow::Borrowed(s));
        }
    }
    decode_slow(bytes).map(Cow::Owned)
}

/// Checks that `bytes` are valid M-UTF-8 without building a string. On failure returns the index of the first byte of
/// the offending sequence.
pub fn validate(bytes: &[u8]) -> Result<(), usize> {
    if is_plain(bytes) && std::str::from_utf8(bytes).is_ok() {
        return Ok(());
    }
    let mut i = 0;
    while i < bytes.len() {
        i += next_char(bytes, i)?.1;
    }
    Ok(())
}

/// Appends the M-UTF-8 form of `s`.
pub fn encode(s: &str, out: &mut Vec<u8>) {
    if is_plain(s.as_bytes()) {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    for c in s.chars() {
        let code = u32::from(c);
        match code {
            0 => out.extend_from_slice(&[0xC0, 0x80]),
            0x1_0000.. => {
                let v = code - 0x1_0000;
                push_three(out, 0xD800 + (v >> 10));
                push_three(out, 0xDC00 + (v & 0x3FF));
            }
            _ => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
}

/// Length of the M-UTF-8 form of `s`, in bytes.
pub fn encoded_len(s: &str) -> usize {
    if is_plain(s.as_bytes()) {
        return s.len();
    }
    s.chars()
        .map(|c| match u32::from(c) {
            0 => 2,
            0x1_0000.. => 6,
            _ => c.len_utf8(),
        })
        .sum()
}

/// True when the bytes hold no NUL and no 4-byte UTF-8 lead byte: then M-UTF-8 and UTF-8 coincide.
fn is_plain(bytes: &[u8]) -> bool {
    !bytes.iter().any(|&b| b == 0 || b >= 0xF0)
}

fn push_three(out: &mut Vec<u8>, unit: u32) {
    out.extend_from_slice(&[0xE0 | (unit >> 12) as u8, 0x80 | ((unit >> 6) & 0x3F) as u8, 0x80 | (unit & 0x3F) as u8]);
}

fn decode_slow(bytes: &[u8]) -> Result<String, usize> {
    let mut out = String::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let (c, len) = next_char(bytes, i)?;
        out.push(c);
        i += len;
    }
    Ok(out)
}

/// Decodes the character at `i`: returns it and its length in bytes.
fn next_char(bytes: &[u8], i: usize) -> Result<(char, usize), usize> {
    let cont = |k: usize| bytes.get(i + k).copied().filter(|b| b & 0xC0 == 0x80).map(|b| u32::from(b & 0x3F));
    let b0 = bytes[i];
    let (code, len) = match b0 {
        0x01..=0x7F => (u32::from(b0), 1),
        0xC0 if bytes.get(i + 1) == Some(&0x80) => (0, 2),
        0xC2..=0xDF => (u32::from(b0 & 0x1F) << 6 | cont(1).ok_or(i)?, 2),
        0xE0..=0xEF => {
            let code = u32::from(b0 & 0x0F) << 12 | cont(1).ok_or(i)? << 6 | cont(2).ok_or(i)?;
            if code < 0x800 {
                return Err(i);
            }
            (code, 3)
        }
        _ => return Err(i),
    };
    match code {
        0xD800..=0xDBFF => {
            // A high surrogate must be followed by a 3-byte low surrogate; together they are one character.
            let low = match (bytes.get(i + 3), cont(4), cont(5)) {
                (Some(&0xED), Some(b1), Some(b2)) => 0xD000 | b1 << 6 | b2,
                _ => return Err(i),
            };
            if !(0xDC00..=0xDFFF).contains(&low) {
                return Err(i);
            }
            let c = char::from_u32(0x1_0000 + ((code - 0xD800) << 10) + (low - 0xDC00)).ok_or(i)?;
            Ok((c, 6))
        }
        _ => Ok((char::from_u32(code).ok_or(i)?, len)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(s: &str, bytes: &[u8]) {
        let mut out = Vec::new();
        encode(s, &mut out);
        assert_eq!(out, bytes, "{s:?}");
        assert_eq!(encoded_len(s), bytes.len());
        assert_eq!(decode(bytes).unwrap(), s);
        assert!(validate(bytes).is_ok());
    }

    #[test]
    fn java_forms() {
        round("main", b"main");
        round("", b"");
        round("a\0b", &[b'a', 0xC0, 0x80, b'b']);
        round("é", "é".as_bytes());
        round("\u{FFFF}", "\u{FFFF}".as_bytes());
        // U+1F600 as the surrogate pair D83D DE00.
        round("\u{1F600}", &[0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]);
        assert!(matches!(decode(b"plain"), Ok(Cow::Borrowed(_))));
    }

    #[test]
    fn rejects_what_is_not_modified_utf8() {
        let bad: &[(&[u8], usize)] = &[
            (&[0], 0),                                  // raw NUL
            (&[b'a', 0xF0, 0x9F, 0x98, 0x80], 1),       // 4-byte form
            (&[0xC0, 0x81], 0),                         // overlong other than C0 80
            (&[0xC1, 0xBF], 0),                         // overlong
            (&[0xE0, 0x80, 0x80], 0),                   // overlong 3-byte
            (&[0xED, 0xA0, 0xBD], 0),                   // lone high surrogate
            (&[0xED, 0xB8, 0x80], 0),                   // lone low surrogate
            (&[0xED, 0xA0, 0xBD, 0xED, 0xA0, 0xBD], 0), // high + high
            (&[0xC3], 0),                               // truncated
            (&[0x80], 0),                               // stray continuation
        ];
        for &(bytes, at) in bad {
            assert_eq!(decode(bytes).unwrap_err(), at, "{bytes:x?}");
            assert_eq!(validate(bytes).unwrap_err(), at, "{bytes:x?}");
        }
    }
}
