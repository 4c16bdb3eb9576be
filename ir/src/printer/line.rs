//! The printer's fast path for the most common instruction lines: binary
//! operations, comparisons, selects and casts over scalar types, which make up
//! most of any large module.
//!
//! A line is assembled on the stack with fixed-size copies: every token
//! (mnemonic, type, predicate) is padded to [`TOKEN`] bytes, copied whole, and
//! the line's length advanced by the token's real length, so no copy is a call
//! into `memcpy` and no byte is pushed one at a time; numbers are written two
//! digits per step. Whole lines go to a byte buffer that the printer checks as
//! UTF-8 once per chunk. Anything else
//! (compound types, other instructions, a value without a type) is left to the
//! general printer, which writes the same bytes.

use crate::entity::{EntityRef, TypeId, ValueId};
use crate::inst::InstData;
use crate::module::Function;
use crate::opcode::Opcode;

/// Bytes of a padded token; every mnemonic, scalar type and predicate is shorter.
const TOKEN: usize = 16;

/// A token padded with spaces to [`TOKEN`] bytes, and its real length.
#[derive(Clone, Copy)]
struct Token {
    bytes: [u8; TOKEN],
    len: u8,
}

impl Token {
    /// `None` for text that does not fit.
    fn new(text: &str) -> Option<Token> {
        let mut bytes = [b' '; TOKEN];
        bytes.get_mut(..text.len())?.copy_from_slice(text.as_bytes());
        Some(Token { bytes, len: text.len() as u8 })
    }
}

/// The padded spellings a module's lines need, built once per print.
pub(super) struct Tokens {
    /// By opcode.
    mnemonics: Vec<Option<Token>>,
    /// By scalar `TypeId`.
    scalars: Vec<Option<Token>>,
    /// By opcode (`cmp`, `icmp`, `fcmp`) and predicate code.
    predicates: [Vec<Option<Token>>; 3],
}

impl Tokens {
    pub(super) fn new() -> Tokens {
        let mnemonics = Opcode::ALL.iter().map(|op| Token::new(op.mnemonic())).collect();
        let scalars = (0..)
            .map(|i| TypeId::new(i).scalar_name())
            .take_while(Option::is_some)
            .map(|name| name.and_then(Token::new))
            .collect();
        let predicates = [Opcode::Cmp, Opcode::Icmp, Opcode::Fcmp].map(|op| {
            (0..=u8::MAX)
                .map(|code| super::predicate_keyword_of(op, code).and_then(Token::new))
                .take_while(Option::is_some)
                .collect()
        });
        Tokens { mnemonics, scalars, predicates }
    }

    #[inline(always)]
    fn mnemonic(&self, op: Opcode) -> Option<&Token> {
        self.mnemonics.get(op as usize)?.as_ref()
    }

    #[inline(always)]
    fn scalar(&self, ty: TypeId) -> Option<&Token> {
        self.scalars.get(ty.index())?.as_ref()
    }

    #[inline(always)]
    fn predicate(&self, op: Opcode, code: u8) -> Option<&Token> {
        let table = match op {
            Opcode::Cmp => &self.predicates[0],
            Opcode::Icmp => &self.predicates[1],
            _ => &self.predicates[2],
        };
        table.get(usize::from(code))?.as_ref()
    }
}

/// Room for the longest line the fast path writes (four values, four types).
const LINE: usize = 192;

/// One line being assembled on the stack.
struct Line {
    bytes: [u8; LINE],
    len: usize,
}

impl Line {
    /// Copies all [`TOKEN`] bytes, then keeps the token's real length.
    #[inline(always)]
    fn token(&mut self, token: &Token) -> Option<()> {
        self.bytes.get_mut(self.len..self.len + TOKEN)?.copy_from_slice(&token.bytes);
        self.len += usize::from(token.len);
        Some(())
    }

    /// A literal of the layout.
    #[inline(always)]
    fn text<const N: usize>(&mut self, text: &[u8; N]) -> Option<()> {
        self.bytes.get_mut(self.len..self.len + N)?.copy_from_slice(text);
        self.len += N;
        Some(())
    }

    /// `n` in decimal, two digits per step.
    #[inline(always)]
    fn number(&mut self, n: u32) -> Option<()> {
        let len = decimal_digits(n);
        let digits = self.bytes.get_mut(self.len..self.len + len)?;
        let mut rest = n;
        let mut end = len;
        while end >= 2 {
            let pair = (rest % 100) as usize * 2;
            rest /= 100;
            digits.get_mut(end - 2..end)?.copy_from_slice(DIGIT_PAIRS.get(pair..pair + 2)?);
            end -= 2;
        }
        if end == 1 {
            *digits.first_mut()? = b'0' + rest as u8;
        }
        self.len += len;
        Some(())
    }

    #[inline(always)]
    fn value(&mut self, v: ValueId) -> Option<()> {
        self.text(b"%v")?;
        self.number(v.as_u32())
    }
}

/// "00" to "99".
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

#[inline(always)]
fn decimal_digits(n: u32) -> usize {
    match n {
        0..=9 => 1,
        10..=99 => 2,
        100..=999 => 3,
        1_000..=9_999 => 4,
        10_000..=99_999 => 5,
        100_000..=999_999 => 6,
        1_000_000..=9_999_999 => 7,
        10_000_000..=99_999_999 => 8,
        100_000_000..=999_999_999 => 9,
        _ => 10,
    }
}

/// Appends the whole line of instruction `data` (indent, result, operation,
/// newline) to `out` if it is one the fast path writes; false otherwise, with
/// `out` as it was. `out` holds only ASCII written here; the printer moves it
/// into its text in bulk (one UTF-8 check per chunk, not per line).
#[inline]
pub(super) fn push_common(
    out: &mut Vec<u8>,
    f: &Function<'_>,
    tokens: &Tokens,
    data: &InstData,
    result: Option<ValueId>,
) -> bool {
    let mut line = Line { bytes: [b' '; LINE], len: 0 };
    match write_common(&mut line, f, tokens, data, result).and_then(|()| line.bytes.get(..line.len)) {
        Some(text) => {
            out.extend_from_slice(text);
            true
        }
        None => false,
    }
}

#[inline(always)]
fn write_common(
    line: &mut Line,
    f: &Function<'_>,
    tokens: &Tokens,
    data: &InstData,
    result: Option<ValueId>,
) -> Option<()> {
    let scalar_of = |v: ValueId| f.value_type(v).and_then(|t| tokens.scalar(t));
    let result = result?;
    let result_ty = scalar_of(result)?;
    line.text(b"    ")?;
    line.value(result)?;
    line.text(b": ")?;
    line.token(result_ty)?;
    line.text(b" = ")?;
    match *data {
        InstData::Binary { op, args } if !op.is_checked() => {
            line.token(tokens.mnemonic(op)?)?;
            line.text(b" ")?;
            line.token(result_ty)?;
            line.text(b" ")?;
            line.value(args[0])?;
            line.text(b", ")?;
            line.value(args[1])?;
        }
        InstData::Compare { op, pred, args } => {
            line.token(tokens.mnemonic(op)?)?;
            line.text(b" ")?;
            line.token(tokens.predicate(op, pred)?)?;
            line.text(b" ")?;
            line.token(scalar_of(args[0])?)?;
            line.text(b" ")?;
            line.value(args[0])?;
            line.text(b", ")?;
            line.value(args[1])?;
        }
        InstData::Select { cond, arms } => {
            line.text(b"select ")?;
            for (i, v) in [cond, arms[0], arms[1]].into_iter().enumerate() {
                if i > 0 {
                    line.text(b", ")?;
                }
                line.token(scalar_of(v)?)?;
                line.text(b" ")?;
                line.value(v)?;
            }
        }
        InstData::Cast { op, arg } => {
            line.token(tokens.mnemonic(op)?)?;
            line.text(b" ")?;
            line.token(scalar_of(arg)?)?;
            line.text(b" ")?;
            line.value(arg)?;
            line.text(b" to ")?;
            line.token(result_ty)?;
        }
        _ => return None,
    }
    line.text(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_match_display() {
        for n in [0, 7, 9, 10, 42, 99, 100, 101, 999, 1_000, 12_345, 99_999, 100_000, 1_234_567, 99_999_999, u32::MAX] {
            let mut line = Line { bytes: [b' '; LINE], len: 0 };
            line.number(n).unwrap();
            assert_eq!(&line.bytes[..line.len], n.to_string().as_bytes());
        }
    }

    #[test]
    fn every_mnemonic_scalar_and_predicate_has_a_token() {
        let tokens = Tokens::new();
        assert!(Opcode::ALL.iter().all(|&op| tokens.mnemonic(op).is_some()));
        assert_eq!(tokens.scalar(TypeId::BOOL).map(|t| &t.bytes[..usize::from(t.len)]), Some(&b"bool"[..]));
        assert!(tokens.predicate(Opcode::Icmp, 0).is_some());
    }
}
