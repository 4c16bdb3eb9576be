//! The fast path: instruction lines exactly as the printer writes them.
//!
//! Almost all of a printed module is instruction lines (`%v7: i64 = add i64
//! %v5, %v6`), and reading them token by token spends most of its time handing
//! tokens around. For the common shapes (constants, unary, binary, compare,
//! select, cast, phi, direct call, `br`, `cbr`, `ret`) the body loop first tries
//! to read a run of lines straight from the bytes, in the printer's spacing and
//! with scalar types only; words are matched as little-endian `u64` keys in
//! small hash tables built at compile time from the opcode, predicate and type
//! tables.
//!
//! An attempt changes nothing until it has read the whole instruction and
//! checked everything the token rules would check on it (restated types, ids
//! against the id limit, node and value limits, a dense result id, a callee's
//! declared signature); then it commits exactly the records, pending checks and
//! counters the token rules would have produced. On any difference — other
//! spacing, a comment, a compound type, a sparse or reused id, anything that
//! would be an error — the attempt is dropped without a trace, the lexer
//! resumes at the start of that line, and the token rules read it (and report
//! any error) as before. So the fast path changes speed only:
//! [`crate::parser::parse_module_reference`] runs the reader without it, and
//! the tests compare the two.

use super::super::lexer::{digit_count, number_end, parse_digits, WORD};
use super::{convention, literal_value, Parser, Pending, PendingCall};
use crate::entity::{BlockId, FunctionId, PackedOption, StrId, TypeId, ValueId};
use crate::inst::InstData;
use crate::module::{DeclData, Linkage, Param};
use crate::opcode::{CmpOp, FCmpPred, ICmpPred, Opcode, ResultRule, Shape};
use crate::types::{CallingConvention, SigKey};

// ---- word keys ----------------------------------------------------------------------

/// The little-endian key of a word of at most 7 bytes (0 for longer words,
/// which the fast path leaves to the token rules).
const fn key(text: &[u8]) -> u64 {
    if text.len() > 7 {
        return 0;
    }
    let mut k = 0u64;
    let mut i = 0;
    while i < text.len() {
        k |= (text[i] as u64) << (8 * i);
        i += 1;
    }
    k
}

/// Slots of a [`KeyTable`].
const KEY_SLOTS: usize = 256;

/// Found by search: no two words of one table share a slot, so a lookup is
/// one probe (the tables are checked when they are built).
const KEY_MULTIPLIER: u64 = 0xd721_10e2_e13f_25dd;

const fn key_slot(key: u64) -> usize {
    (key.wrapping_mul(KEY_MULTIPLIER) >> 56) as usize
}

/// A perfect hash table from word key to a code (an index into the list it
/// was built from); slot key 0 is empty (no word has key 0).
struct KeyTable {
    keys: [u64; KEY_SLOTS],
    codes: [u8; KEY_SLOTS],
}

impl KeyTable {
    /// The table of `words[i]` with code `i`, for the words of at most 7 bytes.
    const fn new<const N: usize>(words: [&str; N]) -> Self {
        let mut table = KeyTable { keys: [0; KEY_SLOTS], codes: [0; KEY_SLOTS] };
        let mut i = 0;
        while i < N {
            let k = key(words[i].as_bytes());
            if k != 0 {
                let slot = key_slot(k);
                assert!(table.keys[slot] == 0, "two words share a key slot: choose another KEY_MULTIPLIER");
                table.keys[slot] = k;
                table.codes[slot] = i as u8;
            }
            i += 1;
        }
        table
    }

    #[inline(always)]
    fn get(&self, key: u64) -> Option<u8> {
        let slot = key_slot(key);
        (self.keys[slot] == key && key != 0).then_some(self.codes[slot])
    }
}

/// The names of a list of keyword enums, by index (`words!(Opcode::ALL, mnemonic)`).
macro_rules! words {
    ($all:expr, $name:ident) => {{
        let mut words = [""; $all.len()];
        let mut i = 0;
        while i < words.len() {
            words[i] = $all[i].$name();
            i += 1;
        }
        words
    }};
}

/// What the fast path needs of an opcode, by index in [`Opcode::ALL`].
#[derive(Clone, Copy)]
struct OpInfo {
    op: Opcode,
    shape: Shape,
    result: ResultRule,
    checked: bool,
}

static OPS: [OpInfo; Opcode::ALL.len()] = {
    let undef = OpInfo { op: Opcode::Undef, shape: Shape::Nullary, result: ResultRule::Annotated, checked: false };
    let mut ops = [undef; Opcode::ALL.len()];
    let mut i = 0;
    while i < ops.len() {
        let op = Opcode::ALL[i];
        ops[i] = OpInfo { op, shape: op.shape(), result: op.result(), checked: op.is_checked() };
        i += 1;
    }
    ops
};

/// Mnemonics to their index in [`Opcode::ALL`] (and [`OPS`]).
static MNEMONIC_KEYS: KeyTable = KeyTable::new(words!(Opcode::ALL, mnemonic));

/// Predicate keywords to their codes, one table per comparison opcode.
static CMP_KEYS: KeyTable = KeyTable::new(words!(CmpOp::ALL, keyword));
static ICMP_KEYS: KeyTable = KeyTable::new(words!(ICmpPred::ALL, keyword));
static FCMP_KEYS: KeyTable = KeyTable::new(words!(FCmpPred::ALL, keyword));

/// The scalar types, by [`TypeId`] index.
const SCALARS: [&str; 17] = [
    "void", "bool", "i1", "i8", "i16", "i32", "i64", "i128", "u1", "u8", "u16", "u32", "u64", "u128", "f16", "f32",
    "f64",
];

static SCALAR_KEYS: KeyTable = KeyTable::new(SCALARS);

/// `word` without the bytes from `len` (at most 7) on.
#[inline(always)]
fn low_bytes(word: u64, len: usize) -> u64 {
    word & ((1u64 << (8 * len)) - 1)
}

/// The index of the first byte up to 0x20 (space, newline, other controls)
/// among the eight bytes of `word`; 8 if none.
#[inline(always)]
fn delimiter_index(word: u64) -> usize {
    let low = word.wrapping_sub(0x2121_2121_2121_2121) & !word & 0x8080_8080_8080_8080;
    // Borrows only propagate upwards, so the lowest flagged byte is exact.
    (low.trailing_zeros() / 8) as usize
}

/// The bytes of `word` that are not zero, as their high bits (exact per byte).
#[inline(always)]
fn nonzero_bytes(word: u64) -> u64 {
    ((word & 0x7f7f_7f7f_7f7f_7f7f).wrapping_add(0x7f7f_7f7f_7f7f_7f7f) | word) & 0x8080_8080_8080_8080
}

// ---- the cursor -----------------------------------------------------------------------

/// Bytes a [`Cursor`] can see from where it starts: the fast path reads one
/// line (instruction, label, declaration, function header) in a window of
/// the input, so that every read is checked against this constant instead of
/// the input length. Longer lines, and the last ones of the input, are left
/// to the token rules.
const WINDOW: usize = 256;

/// A read position in a window of the input; every method returns `None`
/// when the text is not the printed form at this point.
#[derive(Clone, Copy)]
struct Cursor<'a> {
    src: &'a str,
    window: &'a [u8; WINDOW],
    /// Offset of `window` in `src`.
    base: usize,
    /// Position in `window`.
    at: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at `pos`, if a whole window follows.
    #[inline(always)]
    fn new(src: &'a str, pos: usize) -> Option<Self> {
        let window = src.as_bytes().get(pos..pos.checked_add(WINDOW)?)?.try_into().ok()?;
        Some(Cursor { src, window, base: pos, at: 0 })
    }

    /// The position in the input.
    #[inline(always)]
    fn pos(&self) -> usize {
        self.base + self.at
    }

    /// The eight bytes at the cursor as a little-endian word.
    #[inline(always)]
    fn chunk(&self) -> Option<u64> {
        if self.at > WINDOW - 8 {
            return None;
        }
        let bytes: [u8; 8] = self.window[self.at..self.at + 8].try_into().ok()?;
        Some(u64::from_le_bytes(bytes))
    }

    /// Exactly the bytes `text`.
    #[inline(always)]
    fn eat<const N: usize>(&mut self, text: &[u8; N]) -> Option<()> {
        if self.at > WINDOW - N || self.window[self.at..self.at + N] != *text {
            return None;
        }
        self.at += N;
        Some(())
    }

    /// A whole word (the lexer's `Word` token at this position).
    #[inline(always)]
    fn word(&mut self) -> Option<&'a str> {
        let start = self.at;
        let mut end = start;
        while end < WINDOW && WORD[self.window[end] as usize] {
            end += 1;
        }
        // Empty, or maybe longer than the window.
        if end == start || end == WINDOW {
            return None;
        }
        self.at = end;
        // Words end before an ASCII byte, so this is a char boundary.
        self.src.get(self.base + start..self.base + end)
    }

    /// A whole word of at most 7 bytes that `table` knows, followed by a
    /// space, newline or other byte up to 0x20 (not consumed): its code.
    #[inline(always)]
    fn keyword(&mut self, table: &KeyTable) -> Option<u8> {
        let word = self.chunk()?;
        let len = delimiter_index(word);
        if len == 0 || len == 8 {
            return None;
        }
        // Every known word is all word bytes and the delimiter is none, so
        // this is the lexer's whole word.
        let code = table.get(low_bytes(word, len))?;
        self.at += len;
        Some(code)
    }

    /// A word of `table` followed by a space; both are consumed.
    #[inline(always)]
    fn keyword_space(&mut self, table: &KeyTable) -> Option<u8> {
        let word = self.chunk()?;
        let len = delimiter_index(word);
        if len == 0 || len == 8 || (word >> (8 * len)) as u8 != b' ' {
            return None;
        }
        let code = table.get(low_bytes(word, len))?;
        self.at += len + 1;
        Some(code)
    }

    /// The `len` bytes whose key is `key` (a word read before on the line and
    /// the space after it); `None` when `len` is 0.
    #[inline(always)]
    fn eat_spelling(&mut self, (key, len): Spelling) -> Option<()> {
        let word = self.chunk()?;
        if len == 0 || low_bytes(word, len) != key {
            return None;
        }
        self.at += len;
        Some(())
    }

    /// The word of `spelling` without its space, followed by any byte up to
    /// 0x20 (not consumed), as [`Cursor::keyword`] reads it.
    #[inline(always)]
    fn eat_word_of(&mut self, (key, len): Spelling) -> Option<()> {
        let word = self.chunk()?;
        let n = len.checked_sub(1)?;
        if n == 0 || low_bytes(word, n) != low_bytes(key, n) || (word >> (8 * n)) as u8 > 0x20 {
            return None;
        }
        self.at += n;
        Some(())
    }

    /// A whole all-digit word of at most `max`.
    #[inline(always)]
    fn number(&mut self, max: u32) -> Option<u32> {
        // Up to 7 digits from one load (the rules of `number_end`), else the loop.
        let word = self.chunk()?;
        let digits = digit_count(word);
        let (len, n) = if digits == 0 || digits == 8 || WORD[(word >> (8 * digits)) as u8 as usize] {
            let (end, n) = number_end(self.src.as_bytes(), self.pos());
            (end - self.pos(), n)
        } else {
            (digits, parse_digits(word, digits))
        };
        // `NO_NUMBER` is `u32::MAX`, above every id limit.
        if n > max || self.at + len > WINDOW {
            return None;
        }
        self.at += len;
        Some(n)
    }

    /// `%vN` with `N` at most `max`.
    #[inline(always)]
    fn value(&mut self, max: u32) -> Option<ValueId> {
        self.eat(b"%v")?;
        self.number(max).map(ValueId::from_u32)
    }

    /// A scalar type name followed by a space, newline or other byte up to
    /// 0x20 (not consumed).
    #[inline(always)]
    fn scalar(&mut self) -> Option<TypeId> {
        self.keyword(&SCALAR_KEYS).map(|code| TypeId::from_u32(u32::from(code)))
    }

    /// A scalar type name and the space after it.
    #[inline(always)]
    fn scalar_space(&mut self) -> Option<TypeId> {
        self.keyword_space(&SCALAR_KEYS).map(|code| TypeId::from_u32(u32::from(code)))
    }

    /// A scalar type name followed by any byte that is not a word byte (not
    /// consumed).
    #[inline(always)]
    fn scalar_word(&mut self) -> Option<TypeId> {
        let word = self.chunk()?;
        let len = self.word()?.len();
        if len > 7 {
            return None;
        }
        SCALAR_KEYS.get(low_bytes(word, len)).map(|code| TypeId::from_u32(u32::from(code)))
    }

    /// A string without escapes of printable ASCII characters: its contents.
    fn plain_string(&mut self) -> Option<&'a str> {
        self.eat(b"\"")?;
        let start = self.at;
        loop {
            match *self.window.get(self.at)? {
                b'"' => break,
                0x20..=0x7e if self.window[self.at] != b'\\' => self.at += 1,
                _ => return None,
            }
        }
        let text = self.src.get(self.base + start..self.pos());
        self.at += 1;
        text
    }

    /// Moves past whitespace; `None` if a `/` comes first (maybe a comment:
    /// left to the lexer).
    fn skip_space(&mut self) -> Option<()> {
        loop {
            match *self.window.get(self.at)? {
                b' ' | b'\n' | b'\t' | b'\r' => self.at += 1,
                b'/' => return None,
                _ => return Some(()),
            }
        }
    }

    /// Whether the next token starts with `text`; `None` if a `/` comes
    /// first, or the window ends.
    fn next_token_is(&self, text: &[u8]) -> Option<bool> {
        let mut next = *self;
        next.skip_space()?;
        Some(self.window.get(next.at..)?.starts_with(text))
    }
}

/// The start of the next line's text after a line that ends at `pos`: the
/// printer's newline and indentation of an instruction, or any spaces and
/// newlines.
#[inline(always)]
fn next_line(bytes: &[u8], pos: usize) -> usize {
    if let Some(chunk) = bytes.get(pos..pos + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        if low_bytes(word, 5) == key(b"\n    ") && !matches!((word >> 40) as u8, b' ' | b'\n') {
            return pos + 5;
        }
    }
    skip_layout(bytes, pos)
}

/// The end of the spaces and newlines (the printer's layout) at `pos`.
#[inline(always)]
fn skip_layout(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let other = nonzero_bytes(word ^ 0x2020_2020_2020_2020) & nonzero_bytes(word ^ 0x0a0a_0a0a_0a0a_0a0a);
        if other != 0 {
            return pos + (other.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(b' ' | b'\n') = bytes.get(pos) {
        pos += 1;
    }
    pos
}

/// Slots of `Parser::name_cache`.
pub(super) const NAME_CACHE: usize = 16;

/// How a type was spelled on a line: the little-endian key of its name and
/// the space after it, and their length (0 for no spelling). A type restated
/// on the same line is mostly spelled the same, so comparing the bytes saves
/// a lookup; a different spelling is then read as usual.
type Spelling = (u64, usize);

/// "No result" for the operand rules (no value id is this large).
const NO_RESULT: u32 = u32::MAX;

impl<'a> Parser<'a> {
    /// Reads printed instruction lines and block labels from the lookahead
    /// token on, as many as fit the fast path, and moves the lookahead past
    /// them; whether it read any (if not, nothing changed).
    pub(super) fn fast_run(&mut self) -> bool {
        let mut pos = self.tok.span.start as usize;
        let mut read = false;
        loop {
            let pending = self.pending.len();
            match self.fast_line(pos) {
                Some(end) => {
                    pos = next_line(self.src.as_bytes(), end);
                    read = true;
                }
                None => {
                    self.pending.truncate(pending);
                    break;
                }
            }
        }
        if read {
            // `pos` is the start of a token, or trivia before one.
            self.lexer.seek(pos);
            self.tok = self.lexer.next_token();
        }
        read
    }

    /// One instruction or label at `pos`: its end once committed.
    #[inline(never)]
    fn fast_line(&mut self, pos: usize) -> Option<usize> {
        let bytes = self.src.as_bytes();
        if bytes.get(pos) == Some(&b'%') {
            if bytes.get(pos + 1) == Some(&b'b') {
                return self.fast_label(pos);
            }
            return self.fast_instruction_with_result(pos);
        }
        match self.fast_instruction_without_result(pos) {
            None if self.format == 2 => self.fast_label(pos),
            end => end,
        }
    }

    /// `%vN: T = op …`.
    #[inline(always)]
    fn fast_instruction_with_result(&mut self, pos: usize) -> Option<usize> {
        if self.current_block.is_none() || self.terminated {
            return None;
        }
        let mut c = Cursor::new(self.src, pos)?;
        let value = c.value(self.max_id)?.as_u32();
        // Ids in order only (so that defining the result cannot fail).
        if !self.local_values.continues_run(value) {
            return None;
        }
        c.eat(b": ")?;
        let word = c.chunk()?;
        let start = c.at;
        let rty = c.scalar_space()?;
        let spelling = (low_bytes(word, c.at - start), c.at - start);
        c.eat(b"= ")?;
        let op = OPS[usize::from(c.keyword_space(&MNEMONIC_KEYS)?)];
        if op.result == ResultRule::NoValue {
            return None;
        }
        // The result type and the instruction are nodes too.
        let (data, nodes) = self.fast_operands(&mut c, op, value, (rty, spelling), 2)?;
        self.fast_commit(pos as u32, Some((value, rty)), data, nodes)?;
        Some(c.pos())
    }

    /// `op …` without a result (`br`, `cbr`, `ret`, a `void` call).
    #[inline(always)]
    fn fast_instruction_without_result(&mut self, pos: usize) -> Option<usize> {
        if self.current_block.is_none() || self.terminated {
            return None;
        }
        let mut c = Cursor::new(self.src, pos)?;
        let op = OPS[usize::from(c.keyword_space(&MNEMONIC_KEYS)?)];
        if op.result != ResultRule::NoValue && op.op != Opcode::Call {
            return None;
        }
        let (data, nodes) = self.fast_operands(&mut c, op, NO_RESULT, (TypeId::VOID, (0, 0)), 1)?;
        self.fast_commit(pos as u32, None, data, nodes)?;
        Some(c.pos())
    }

    /// A block label: `NAME:` in format 2, `%bN "NAME":` in formats 3 and 4.
    fn fast_label(&mut self, pos: usize) -> Option<usize> {
        let mut c = Cursor::new(self.src, pos)?;
        let (id, name) = if self.format == 2 {
            let name = c.word()?;
            c.eat(b":")?;
            let f = &self.m.functions[self.func as usize];
            let local = self.m.block_order.len() as u64 - u64::from(f.order.start);
            let id = self.next_block + local;
            if id > u64::from(self.max_id) {
                return None;
            }
            (BlockId::from_u32(id as u32), name)
        } else {
            c.eat(b"%b")?;
            let id = BlockId::from_u32(c.number(self.max_id)?);
            c.eat(b" ")?;
            let name = c.plain_string()?;
            c.eat(b":")?;
            (id, name)
        };
        // The checks of `open_block`, which then cannot fail.
        if self.block_count >= self.limits.max_blocks
            || self.nodes >= self.limits.max_nodes
            || self.local_blocks.get(id.as_u32()).is_some()
        {
            return None;
        }
        let name = self.fast_intern(name);
        self.open_block(id, name, pos as u32).ok()?;
        #[cfg(test)]
        {
            self.fast_reads += 1;
        }
        Some(c.pos())
    }

    /// The operands of `op`, after the mnemonic and its space: the record and
    /// the nodes of the instruction (`nodes` of them before the operands).
    /// `result` is the result id (or [`NO_RESULT`]), `rty` its type and how it
    /// was spelled. Restated operand types
    /// still unchecked go to `self.pending` (truncated again if the line is
    /// dropped); constants and operand lists are stored only once the limits
    /// are known to hold.
    #[inline(always)]
    fn fast_operands(
        &mut self,
        c: &mut Cursor<'a>,
        info: OpInfo,
        result: u32,
        (rty, spelling): (TypeId, Spelling),
        nodes: u64,
    ) -> Option<(InstData, u64)> {
        let max = self.max_id;
        let op = info.op;
        let has_result = result != NO_RESULT;
        Some(match info.shape {
            Shape::Binary => {
                // The operand type restates the result type.
                if info.checked {
                    return None;
                }
                c.eat_spelling(spelling)?;
                let lhs = c.value(max)?;
                c.eat(b", ")?;
                let rhs = c.value(max)?;
                (InstData::Binary { op, args: [lhs, rhs] }, nodes + 1)
            }
            Shape::Compare => {
                let table = match op {
                    Opcode::Cmp => &CMP_KEYS,
                    Opcode::Icmp => &ICMP_KEYS,
                    _ => &FCMP_KEYS,
                };
                let pred = c.keyword_space(table)?;
                let lhs = self.fast_typed_operand(c, result, rty, (0, 0))?;
                c.eat(b", ")?;
                let rhs = c.value(max)?;
                (InstData::Compare { op, pred, args: [lhs, rhs] }, nodes + 1)
            }
            Shape::Select => {
                let cond = self.fast_typed_operand(c, result, rty, (0, 0))?;
                c.eat(b", ")?;
                // The arms usually have the result type.
                let a = self.fast_typed_operand(c, result, rty, spelling)?;
                c.eat(b", ")?;
                let b = self.fast_typed_operand(c, result, rty, spelling)?;
                (InstData::Select { cond, arms: [a, b] }, nodes + 3)
            }
            Shape::Cast => {
                let arg = self.fast_typed_operand(c, result, rty, (0, 0))?;
                c.eat(b" to ")?;
                // The destination type restates the result type.
                c.eat_word_of(spelling)?;
                (InstData::Cast { op, arg }, nodes + 2)
            }
            Shape::Unary => {
                c.eat_spelling(spelling)?;
                (InstData::Unary { op, arg: c.value(max)? }, nodes + 1)
            }
            Shape::Const => {
                c.eat_spelling(spelling)?;
                let start = c.pos();
                // The lexer's word, with the `-` of a negative literal.
                let _ = c.eat(b"-");
                c.word()?;
                let value = literal_value(rty, self.src.get(start..c.pos())?).ok()?;
                let nodes = nodes + 1;
                if !self.fast_fits(nodes, has_result) {
                    return None;
                }
                (self.const_data(value), nodes)
            }
            Shape::Phi => {
                if c.scalar()? != rty {
                    return None;
                }
                self.list.clear();
                if c.next_token_is(b"[")? {
                    c.eat(b" [ ")?;
                    loop {
                        let v = c.value(max)?;
                        c.eat(b", ")?;
                        let b = self.fast_block_ref(c)?;
                        c.eat(b" ]")?;
                        self.list.extend([v.as_u32(), b.as_u32()]);
                        if c.eat(b", [ ").is_none() {
                            if c.next_token_is(b",")? {
                                return None;
                            }
                            break;
                        }
                    }
                }
                let nodes = nodes + 1 + self.list.len() as u64 / 2;
                if !self.fast_fits(nodes, has_result) {
                    return None;
                }
                (InstData::Phi { inputs: self.m.pool.make(&self.list) }, nodes)
            }
            Shape::Call => {
                let conv_at = c.pos() as u32;
                let conv = convention(c.word()?)?;
                c.eat(b" ")?;
                let ret_at = c.pos() as u32;
                let ret = c.scalar_space()?;
                if has_result != (ret != TypeId::VOID) || (has_result && ret != rty) {
                    return None;
                }
                c.eat(b"@f")?;
                let callee = FunctionId::from_u32(c.number(max)?);
                let pending = self.fast_signature(callee, conv, ret, conv_at, ret_at)?;
                c.eat(b"(")?;
                self.list.clear();
                if c.eat(b")").is_none() {
                    loop {
                        self.list.push(c.value(max)?.as_u32());
                        if c.eat(b", ").is_none() {
                            c.eat(b")")?;
                            break;
                        }
                    }
                }
                let nodes = nodes + 1 + self.list.len() as u64;
                if !self.fast_fits(nodes, has_result) {
                    return None;
                }
                if let Some(call) = pending {
                    self.pending_calls.push(call);
                }
                (InstData::Call { callee, args: self.m.pool.make(&self.list) }, nodes)
            }
            Shape::Br => {
                c.eat(b"label ")?;
                (InstData::Br { dest: self.fast_block_ref(c)? }, nodes)
            }
            Shape::Cbr => {
                let cond = self.fast_typed_operand(c, result, rty, (0, 0))?;
                c.eat(b", label ")?;
                let then_block = self.fast_block_ref(c)?;
                c.eat(b", label ")?;
                let else_block = self.fast_block_ref(c)?;
                (InstData::Cbr { cond, dests: [then_block, else_block] }, nodes + 1)
            }
            Shape::Ret => {
                if c.scalar()? != self.func_ret {
                    return None;
                }
                let mut arg = PackedOption::NONE;
                if c.next_token_is(b"%v")? {
                    c.skip_space()?;
                    arg = PackedOption::some(c.value(max)?);
                }
                (InstData::Ret { arg }, nodes + 1)
            }
            _ => return None,
        })
    }

    /// `T %vN`, with the restated type checked as [`Parser::check_operand`]
    /// does (or left pending when `%vN` is not defined yet). `T` is first
    /// compared with `likely`, a spelling of the result type `rty`.
    #[inline(always)]
    fn fast_typed_operand(
        &mut self,
        c: &mut Cursor<'a>,
        result: u32,
        rty: TypeId,
        likely: Spelling,
    ) -> Option<ValueId> {
        let at = c.pos() as u32;
        let ty = match c.eat_spelling(likely) {
            Some(()) => rty,
            None => c.scalar_space()?,
        };
        let value = c.value(self.max_id)?;
        if value.as_u32() == result {
            // The token rules define the result before reading the operands.
            if ty != rty {
                return None;
            }
        } else {
            match self.local_values.get(value.as_u32()) {
                Some(stored) => {
                    if stored != ty {
                        return None;
                    }
                }
                None => self.pending.push(Pending::Operand { value, ty, at }),
            }
        }
        Some(value)
    }

    /// A block reference: a bare number in format 2, `%bN` in formats 3 and 4.
    #[inline(always)]
    fn fast_block_ref(&self, c: &mut Cursor<'a>) -> Option<BlockId> {
        if self.format != 2 {
            c.eat(b"%b")?;
        }
        c.number(self.max_id).map(BlockId::from_u32)
    }

    /// A direct call's convention and return type against the callee's
    /// declaration: `None` if they conflict, the pending check if the callee
    /// is not declared yet.
    fn fast_signature(
        &self,
        callee: FunctionId,
        conv: CallingConvention,
        ret: TypeId,
        conv_at: u32,
        ret_at: u32,
    ) -> Option<Option<PendingCall>> {
        match self.declared.get(&callee) {
            Some(&sig) => {
                let key = self.m.types.sig(sig);
                (key.convention == conv && key.ret == ret).then_some(None)
            }
            None => Some(Some(PendingCall { callee, conv, conv_at, ret, ret_at })),
        }
    }

    /// `declare @fN "NAME": CONV (T, …) -> R, linkage L[, link_name "S"]`
    /// with scalar types, from the lookahead `declare` on; whether it was read
    /// (if not, nothing changed).
    pub(super) fn fast_declaration(&mut self) -> bool {
        if !self.fast {
            return false;
        }
        let start = self.tok.span.start as usize;
        let Some(mut c) = Cursor::new(self.src, start) else {
            return false;
        };
        let Some(read) = self.fast_declaration_text(&mut c) else {
            return false;
        };
        let (id, name, conv, ret, linkage, link_name) = read;
        let nodes = 2 + self.type_stack.len() as u64;
        if self.nodes.saturating_add(nodes) > self.limits.max_nodes
            || self.m.declarations.len() as u64 >= self.limits.max_functions
            || self.limits.max_type_depth == 0
        {
            self.type_stack.clear();
            return false;
        }
        // As `declaration` does, in its order.
        self.nodes += nodes;
        let name = self.m.strings.intern(name);
        // Declarations often share a signature: reuse the last one's when the
        // parameters and result are the same (interning would return it).
        let sig = match self.last_signature {
            Some((last_conv, last_ret, sig))
                if last_conv == conv && last_ret == ret && self.last_params == self.type_stack =>
            {
                self.type_stack.clear();
                sig
            }
            _ => {
                self.last_params.clear();
                self.last_params.extend_from_slice(&self.type_stack);
                let params: Box<[TypeId]> = self.type_stack.drain(..).collect();
                let sig = self.m.types.intern_sig(SigKey { params, ret, convention: conv, variadic: false });
                self.last_signature = Some((conv, ret, sig));
                sig
            }
        };
        let link_name = link_name.map(|text| self.m.strings.intern(text));
        self.declared.entry(id).or_insert(sig);
        self.m.declarations.push(DeclData { id, name, sig, linkage, link_name });
        self.map.declarations.push(start as u32);
        #[cfg(test)]
        {
            self.fast_reads += 1;
        }
        self.lexer.seek(c.pos());
        self.tok = self.lexer.next_token();
        true
    }

    /// The text of a declaration; the parameter types go to `self.type_stack`.
    #[allow(clippy::type_complexity)]
    fn fast_declaration_text(
        &mut self,
        c: &mut Cursor<'a>,
    ) -> Option<(FunctionId, &'a str, CallingConvention, TypeId, Linkage, Option<&'a str>)> {
        self.type_stack.clear();
        c.eat(b"declare @f")?;
        let id = FunctionId::from_u32(c.number(self.max_id)?);
        c.eat(b" ")?;
        let name = c.plain_string()?;
        c.eat(b": ")?;
        let conv = convention(c.word()?)?;
        c.eat(b" (")?;
        if c.eat(b")").is_none() {
            loop {
                self.type_stack.push(c.scalar_word()?);
                if c.eat(b", ").is_none() {
                    c.eat(b")")?;
                    break;
                }
            }
        }
        c.eat(b" -> ")?;
        let ret = c.scalar_word()?;
        c.eat(b", linkage ")?;
        let linkage = match c.word()? {
            "internal" => Linkage::Internal,
            "external" => Linkage::External,
            _ => return None,
        };
        let link_name = if c.next_token_is(b",")? {
            c.eat(b", link_name ")?;
            Some(c.plain_string()?)
        } else {
            None
        };
        Some((id, name, conv, ret, linkage, link_name))
    }

    /// `fn @NAME(P: T, …) -> R, id @fN {` (format 2) or `fn @fN "NAME"(%vK
    /// "P": T, …) -> R, entry %bM {` (formats 3 and 4) with scalar types,
    /// from the lookahead `fn` on: the function's record and parameters as
    /// `function_header` stores them, and its result; `None` (and no change)
    /// if the token rules must read it.
    pub(super) fn fast_function_header(&mut self) -> Option<(u32, u32)> {
        if !self.fast {
            return None;
        }
        let start = self.tok.span.start;
        let max = self.max_id;
        let mut c = Cursor::new(self.src, start as usize)?;
        c.eat(b"fn @")?;
        let (id, name) = if self.format == 2 {
            (None, c.word()?)
        } else {
            c.eat(b"f")?;
            let id = FunctionId::from_u32(c.number(max)?);
            c.eat(b" ")?;
            (Some(id), c.plain_string()?)
        };
        c.eat(b"(")?;
        self.fast_params.clear();
        if c.eat(b")").is_none() {
            loop {
                let at = c.pos() as u32;
                let (value, name_end, name) = if self.format == 2 {
                    let value = self.next_value + self.fast_params.len() as u64;
                    if value > u64::from(max) {
                        return None;
                    }
                    let name = c.word()?;
                    (value as u32, c.pos(), name)
                } else {
                    let value = c.value(max)?.as_u32();
                    c.eat(b" ")?;
                    let name = c.plain_string()?;
                    // Before the closing quote.
                    (value, c.pos() - 1, name)
                };
                c.eat(b": ")?;
                let ty = c.scalar_word()?;
                let name_start = (name_end - name.len()) as u32;
                self.fast_params.push((name_start, name.len() as u32, value, ty, at));
                if c.eat(b", ").is_none() {
                    c.eat(b")")?;
                    break;
                }
            }
        }
        c.eat(b" -> ")?;
        let ret = c.scalar_word()?;
        let (id, entry) = if self.format == 2 {
            c.eat(b", id @f")?;
            let id = FunctionId::from_u32(c.number(max)?);
            if self.next_block > u64::from(max) {
                return None;
            }
            (id, BlockId::from_u32(self.next_block as u32))
        } else {
            c.eat(b", entry %b")?;
            (id?, BlockId::from_u32(c.number(max)?))
        };
        c.eat(b" {")?;
        // The checks of `function_header` and `define_value`, which then cannot fail.
        let n = self.fast_params.len() as u64;
        if self.nodes.saturating_add(2 + 2 * n) > self.limits.max_nodes
            || self.m.functions.len() as u64 >= self.limits.max_functions
            || self.values + n > self.limits.max_values
        {
            return None;
        }
        let mut previous = None;
        for &(_, _, value, _, _) in &self.fast_params {
            // Distinct (increasing), so that defining them cannot fail.
            if previous.is_some_and(|p| p >= value) {
                return None;
            }
            previous = Some(value);
        }
        // As `function_header` does, in its order.
        self.nodes += 2 + 2 * n;
        self.begin_function();
        let name = self.m.strings.intern(name);
        let order_start = self.m.block_order.len() as u32;
        self.push_function(id, name, ret, entry);
        self.m.functions[self.func as usize].params.len = n as u32;
        self.map.functions.push(start);
        for i in 0..self.fast_params.len() {
            let (name_start, name_len, value, ty, at) = self.fast_params[i];
            let name = &self.src[name_start as usize..(name_start + name_len) as usize];
            let name = self.fast_intern(name);
            let value = ValueId::from_u32(value);
            self.define_value(value, ty, at).ok()?;
            self.m.params.push(Param { value, name });
            self.map.params.push(at);
        }
        self.func_ret = ret;
        #[cfg(test)]
        {
            self.fast_reads += 1;
        }
        self.lexer.seek(c.pos());
        self.tok = self.lexer.next_token();
        Some((order_start, n as u32))
    }

    /// Interns `name`, remembering short names: labels and parameter names
    /// repeat in every function. (A hit returns what interning would.)
    #[inline(always)]
    fn fast_intern(&mut self, name: &str) -> StrId {
        let k = key(name.as_bytes());
        if k == 0 {
            return self.m.strings.intern(name);
        }
        let slot = key_slot(k) % NAME_CACHE;
        if let Some((cached, id)) = self.name_cache[slot] {
            if cached == k {
                return id;
            }
        }
        let id = self.m.strings.intern(name);
        self.name_cache[slot] = Some((k, id));
        id
    }

    /// Whether `nodes` more nodes (and a value, with `result`) stay within the limits.
    #[inline(always)]
    fn fast_fits(&self, nodes: u64, result: bool) -> bool {
        self.values + u64::from(result) <= self.limits.max_values
            && self.nodes.saturating_add(nodes) <= self.limits.max_nodes
    }

    /// Stores a read instruction that starts at `start` as the token rules
    /// would have; `None` (and no change) if a limit would be exceeded.
    #[inline(always)]
    fn fast_commit(&mut self, start: u32, result: Option<(u32, TypeId)>, data: InstData, nodes: u64) -> Option<()> {
        if !self.fast_fits(nodes, result.is_some()) {
            return None;
        }
        self.nodes += nodes;
        let value = match result {
            Some((value, ty)) => {
                self.values += 1;
                // The caller checked that the id continues the run: this cannot fail.
                let _ = self.local_values.define(value, ty);
                PackedOption::some(ValueId::from_u32(value))
            }
            None => PackedOption::NONE,
        };
        self.m.insts.push(data);
        self.m.inst_results.push(value);
        if self.record_insts {
            self.map.insts.push(start);
        }
        self.terminated = data.is_terminator();
        #[cfg(test)]
        {
            self.fast_reads += 1;
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{opcode, scalar_type};
    use super::*;
    use crate::limits::IrLimits;

    #[test]
    fn key_tables_agree_with_the_word_lists() {
        for (i, op) in Opcode::ALL.iter().enumerate() {
            let m = op.mnemonic().as_bytes();
            assert_eq!(opcode(m), Some(*op));
            let expected = (m.len() <= 7).then_some(i as u8);
            assert_eq!(MNEMONIC_KEYS.get(key(m)), expected, "{op}");
            assert_eq!((OPS[i].op, OPS[i].shape, OPS[i].result), (*op, op.shape(), op.result()));
            assert_eq!(OPS[i].checked, op.is_checked());
        }
        for (i, p) in ICmpPred::ALL.iter().enumerate() {
            assert_eq!(ICMP_KEYS.get(key(p.keyword().as_bytes())), Some(i as u8));
        }
        for (i, p) in CmpOp::ALL.iter().enumerate() {
            assert_eq!(CMP_KEYS.get(key(p.keyword().as_bytes())), Some(i as u8));
        }
        for (i, p) in FCmpPred::ALL.iter().enumerate() {
            assert_eq!(FCMP_KEYS.get(key(p.keyword().as_bytes())), Some(i as u8));
        }
        for (i, name) in SCALARS.iter().enumerate() {
            let id = TypeId::from_u32(i as u32);
            assert_eq!(id.scalar_name(), Some(*name));
            assert_eq!(scalar_type(name.as_bytes()), Some(id));
            assert_eq!(SCALAR_KEYS.get(key(name.as_bytes())), Some(i as u8));
        }
        for table in [&MNEMONIC_KEYS, &CMP_KEYS, &ICMP_KEYS, &FCMP_KEYS, &SCALAR_KEYS] {
            assert_eq!(table.get(0), None);
            for word in ["ad", "addd", "i33", "ptr", "eqq", "x", "\0", "a\0"] {
                assert_eq!(table.get(key(word.as_bytes())), None, "{word:?}");
            }
        }
    }

    /// Printed lines of every shape the fast path reads (a module of the
    /// integration tests' `FAST_LINES` kind), in format 2 and format 4.
    const PRINTED: &str = "\
module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"callee\": whale (i64, i64) -> i64, linkage internal
  declare @f1 \"lines\": whale (i64, i32) -> i64, linkage internal
  declare @f2 \"ext\": sysv64 (i64) -> void, linkage external, link_name \"ext\"

  fn @callee(a: i64, b: i64) -> i64, id @f0 {
  entry:
    %v2: i64 = xor i64 %v0, %v1
    ret i64 %v2
  }

  fn @lines(a: i64, c: i32) -> i64, id @f1 {
  entry:
    %v5: i64 = const i64 -5
    %v6: bool = const bool true
    br label 2
  loop:
    %v7: i64 = phi i64 [ %v5, 1 ], [ %v15, 2 ]
    %v8: bool = icmp slt i64 %v7, %v3
    %v9: i64 = select bool %v8, i64 %v7, i64 %v3
    %v10: u64 = bitcast i64 %v9 to u64
    %v11: i64 = sext i32 %v4 to i64
    %v12: i64 = not i64 %v11
    %v13: i64 = call whale i64 @f0(%v12, %v9)
    call sysv64 void @f2(%v13)
    %v14: bool = cmp ne i64 %v13, %v5
    %v15: i64 = add i64 %v7, %v3
    cbr bool %v14, label 2, label 3
  exit:
    ret i64 %v15
  }

}
";

    /// The fast path reads every line of printed text (3 declarations, 2
    /// headers, 4 labels, 17 instructions) and builds what the token rules build.
    #[test]
    fn printed_lines_take_the_fast_path() {
        let m = crate::parser::parse_module(PRINTED).unwrap();
        let v4 = crate::print_module_with(&m, crate::TextFormat::V4);
        for text in [PRINTED, v4.as_str()] {
            let padded = format!("{text}{}", " ".repeat(WINDOW));
            let mut p = Parser::new(&padded, IrLimits::default()).unwrap();
            p.fast = true;
            p.module().unwrap();
            assert_eq!(p.fast_reads, 3 + 2 + 4 + 17, "{text}");
            let reference = crate::parser::parse_module_reference(&padded, IrLimits::default());
            assert_eq!(reference.unwrap(), crate::parser::parse_module(&padded).unwrap());
        }
    }

    #[test]
    fn cursor_reads_whole_words_only() {
        // A window of `text` followed by `fill`.
        let padded = |text: &str, fill: char| format!("{text}{}", fill.to_string().repeat(WINDOW));
        let cursor = |text: &str| padded(text, '.');
        let scalar = |text: &str| Cursor::new(&cursor(text), 0)?.scalar();
        assert_eq!(scalar("i64 %v1 "), Some(TypeId::I64));
        assert_eq!(scalar("i8\n"), Some(TypeId::I8));
        assert_eq!(scalar("bool\n"), Some(TypeId::BOOL));
        assert_eq!(scalar("i128 "), Some(TypeId::I128));
        assert_eq!(scalar("i1284"), None);
        assert_eq!(scalar("i6 "), None);
        assert_eq!(scalar("i8, "), None);
        assert_eq!(scalar("ptr<i8> "), None);
        let scalar_word = |text: &str| Cursor::new(&cursor(text), 0)?.scalar_word();
        assert_eq!(scalar_word("i8, "), Some(TypeId::I8));
        assert_eq!(scalar_word("u128)"), Some(TypeId::U128));
        assert_eq!(scalar_word("i64x)"), None);
        assert_eq!(Cursor::new("i64 %v1", 0).map(|_| ()), None);
        let keyword = |text: &str| Cursor::new(&cursor(text), 0)?.keyword(&MNEMONIC_KEYS);
        assert_eq!(keyword("add i64 %v1"), Some(Opcode::Add as u8));
        assert_eq!(keyword("ret: "), None);
        assert_eq!(keyword("addx i64 "), None);
        assert_eq!(keyword(" add i64 "), None);
        assert_eq!(keyword("bitcast i64"), Some(Opcode::Bitcast as u8));
        assert_eq!(keyword("uadd_chk i6"), None);
        let number = |text: &str, fill: char| {
            let text = padded(text, fill);
            let mut c = Cursor::new(&text, 0)?;
            c.number(1 << 20).map(|n| (n, c.pos()))
        };
        assert_eq!(number("123, %v4", '.'), Some((123, 3)));
        assert_eq!(number("1034567\n", '.'), Some((1034567, 7)));
        assert_eq!(number("00012345678 ", '.'), None);
        assert_eq!(number("00000000123 ", '.'), Some((123, 11)));
        assert_eq!(number("7", ' '), Some((7, 1)));
        assert_eq!(number("7", '0'), None);
        assert_eq!(number("12a ", '.'), None);
        assert_eq!(number("1048577 ", '.'), None);
        assert_eq!(number("x ", '.'), None);
        let word = |text: &str, fill: char| Cursor::new(&padded(text, fill), 0)?.word().map(str::len);
        assert_eq!(word("tên_biến: ", '.'), Some("tên_biến".len()));
        assert_eq!(word("a", 'a'), None);
        let string = |text: &str| Cursor::new(&cursor(text), 0)?.plain_string().map(str::to_string);
        assert_eq!(string("\"loop\":"), Some("loop".to_string()));
        assert_eq!(string("\"a\\nb\":"), None);
        assert_eq!(string("\"é\":"), None);
        assert_eq!(string("\"\t\":"), None);
        assert_eq!(skip_layout(b"\n    %v1: i64", 0), 5);
        assert_eq!(skip_layout(b"               \n  }", 0), 18);
        assert_eq!(skip_layout(b"  \t x", 0), 2);
        assert_eq!(skip_layout(b"  ", 0), 2);
        assert_eq!(delimiter_index(key(b"abc def")), 3);
        assert_eq!(delimiter_index(u64::from_le_bytes(*b"abc\xe9defg")), 8);
        assert_eq!(delimiter_index(u64::from_le_bytes(*b"abcdefgh")), 8);
    }
}
