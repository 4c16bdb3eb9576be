//! A fast reader of the common AST format-2 JSON texts straight into a
//! [`tree::Program`] in a bump arena.
//!
//! The strict decoder ([`super::interchange`]) goes through serde_json and the
//! derived owned types: a `Box` or `String` per node, every byte of layout read
//! one at a time. Here one recursive-descent pass over the bytes builds borrowed
//! nodes instead: names and literal strings are slices of the text, children are
//! collected on reusable scratch stacks (one per node kind, each list owning the
//! entries above the length it found) and copied into the arena once complete,
//! and a line break with its indentation is skipped as one run, 32 bytes
//! (four word compares) at a time. Keys and tags are recognised by comparing
//! the next 16 bytes, as two masked words, with their spellings (`"bits":`),
//! trying first the key that follows in the order `encode` writes (`{"Tag":`
//! spellings only where the text has `{"`); only a name that no spelling
//! matches (escaped, spaced before its colon, unknown, or near the end of the
//! text) is scanned and compared as a string. The most common expressions
//! (`{"Var":"x"}`, integer literals, `Binary` and `Cmp`) and statements
//! (`VarDecl`, `Assign`, `If`, `While`, `Return`, `ExprStmt`) are read
//! straight when written compactly. A difference before the first child is
//! read again the general way; after it, the general object loop goes on from
//! the keys read, since reading a child twice would double the work at every
//! level of nesting.
//!
//! It reads a subset of the format and *declines* (`None`) everything else, so
//! that the strict decoder reports the exact error or reads the rare valid form;
//! it never accepts a text the strict decoder rejects, and what it accepts reads
//! as the strict decoder reads it. The subset is chosen so that this is plain to
//! check, rule by rule against serde_json and the derives of
//! [`super::frontend`]:
//!
//! - Objects: keys in any order, each one of the node's fields at most once,
//!   every required field present; `link_name` and a `VarDecl`'s `init` may be
//!   absent or `null`. Every object of the schema has a required field, so `{}`
//!   is declined.
//! - Enums: `{"Tag": payload}` with exactly one key, and unit variants as the
//!   bare string `"Void"` or as `{"Void": null}`, as serde_json reads them.
//! - Strings: declined if they hold a backslash or a control character, so
//!   escaped names and keys (which may spell a duplicate) go the strict way.
//! - Numbers: digits only, without a leading zero, in range (`bits` is a `u16`,
//!   `len` a `u64`); a sign, fraction or exponent is declined.
//! - The envelope: exactly its four keys with `format_version` 2,
//!   `semantics_version` 1 and `features` `[]` (other versions are declined, and
//!   reported by the strict decoder), then only whitespace.
//! - Whitespace (space, tab, newline, carriage return) between any two tokens;
//!   containers nested at most [`MAX_DEPTH`] deep, well within serde_json's
//!   limit of 127, which also bounds this reader's recursion.

use bumpalo::Bump;

use super::interchange::SEMANTICS_VERSION;
use super::tree::{
    self, BinaryOp, Callee, CmpOp, Convention, Expr, Function, FunctionDeclaration, GlobalConst, Linkage, Literal,
    Param, Signature, Stmt, Type,
};
use super::AST_FORMAT_VERSION;

/// Objects and arrays nested deeper than this are declined.
const MAX_DEPTH: u32 = 100;

/// An arena for reading `text`, sized from it once: compact texts take about
/// 1.1 bytes of nodes per byte, pretty ones a quarter of that. One block instead
/// of a doubling series means one allocation per read, which the allocator can
/// hand back for the next text of that size instead of mapping fresh pages for
/// each chunk; the part a pretty text leaves unwritten is never paged in.
pub(super) fn arena_for(text: &str) -> Bump {
    Bump::with_capacity(text.len().saturating_add(text.len() / 4))
}

/// The program of `text`, allocated in `bump` and borrowing its strings from
/// `text`, or `None` when the text is outside the subset this reader accepts
/// (see the module docs). `Some` only for texts the strict decoder accepts,
/// with the same program.
pub(super) fn read<'a>(text: &'a str, bump: &'a Bump) -> Option<tree::Program<'a>> {
    let mut reader = Reader { text, bytes: text.as_bytes(), pos: 0, depth: 0, bump, stacks: Stacks::default() };
    let program = reader.envelope()?;
    reader.skip_whitespace();
    (reader.pos == reader.bytes.len()).then_some(program)
}

/// Eight spaces as one little-endian word.
const SPACES: u64 = u64::from_le_bytes([b' '; 8]);

/// The bytes that end the scan of a string: its closing quote, and the
/// backslash and control characters that make the reader decline.
const STRING_STOP: [bool; 256] = {
    let mut stop = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        stop[b] = true;
        b += 1;
    }
    stop[b'"' as usize] = true;
    stop[b'\\' as usize] = true;
    stop
};

/// One byte repeated in every byte of a word.
const fn splat(byte: u8) -> u64 {
    u64::from_le_bytes([byte; 8])
}

/// The high bit of each byte of `word` (little-endian) that is in
/// [`STRING_STOP`]. Bits above the lowest may be spurious (a borrow runs on
/// from a true hit), but the lowest set bit marks the first stop exactly.
#[inline]
fn string_stops(word: u64) -> u64 {
    let zero_byte = |v: u64| v.wrapping_sub(splat(1)) & !v;
    let quote = zero_byte(word ^ splat(b'"'));
    let backslash = zero_byte(word ^ splat(b'\\'));
    // Bytes below 0x20 borrow when 0x20 is taken away; bytes of 0x80 and
    // above have their high bit set and are masked out by `!word`.
    let control = word.wrapping_sub(splat(0x20)) & !word;
    (quote | backslash | control) & splat(0x80)
}

/// The number of spaces `chunk` starts with, compared a word at a time: a
/// line break and the indentation after it (up to about 40 spaces in pretty
/// texts) take one or two chunks.
#[inline(always)]
fn leading_spaces(chunk: &[u8; 32]) -> usize {
    let mut count = 0;
    for at in [0, 8, 16, 24] {
        let word = chunk.get(at..).and_then(<[u8]>::first_chunk::<8>).map_or(0, |word| u64::from_le_bytes(*word));
        let differ = word ^ SPACES;
        if differ != 0 {
            return count + (differ.trailing_zeros() / 8) as usize;
        }
        count += 8;
    }
    count
}

/// A key, tag or unit variant as the text spells it, `"name":` or `"name"`,
/// recognised by comparing two words instead of scanning and matching a string.
#[derive(Clone, Copy)]
struct Pattern {
    /// The name between the quotes, for the names a word compare cannot settle.
    name: &'static [u8],
    /// Whether the spelling ends with a colon (a key or tag, not a bare word).
    colon: bool,
    /// The length of the spelling, quotes and colon included.
    len: usize,
    /// The spelling as two little-endian words, zero-padded, and the masks of
    /// its bytes; spellings longer than 16 bytes are never `fast`.
    words: [u64; 2],
    masks: [u64; 2],
    fast: bool,
}

impl Pattern {
    /// `"name":` if `colon`, else `"name"`, after `prefix` (empty, `{` or `,`).
    const fn new(prefix: &[u8], name: &'static str, colon: bool) -> Self {
        let name = name.as_bytes();
        let start = prefix.len();
        let len = start + name.len() + 2 + colon as usize;
        let fast = len <= 16;
        let (mut words, mut masks) = ([0; 2], [0; 2]);
        let mut i = 0;
        while fast && i < len {
            let byte = if i < start {
                prefix[i]
            } else if i == start || i == start + name.len() + 1 {
                b'"'
            } else if i > start + name.len() {
                b':'
            } else {
                name[i - start - 1]
            };
            words[i / 8] |= (byte as u64) << (i % 8 * 8);
            masks[i / 8] |= 0xff << (i % 8 * 8);
            i += 1;
        }
        Pattern { name, colon, len, words, masks, fast }
    }

    /// Exactly `spelling`, of at most 16 bytes, for [`Reader::exact`].
    const fn raw(spelling: &'static str) -> Self {
        let name = spelling.as_bytes();
        assert!(name.len() <= 16, "two words at most");
        let (mut words, mut masks) = ([0; 2], [0; 2]);
        let mut i = 0;
        while i < name.len() {
            words[i / 8] |= (name[i] as u64) << (i % 8 * 8);
            masks[i / 8] |= 0xff << (i % 8 * 8);
            i += 1;
        }
        Pattern { name, colon: false, len: name.len(), words, masks, fast: true }
    }

    /// Whether the 16 bytes `text` (as little-endian words) start with this spelling.
    #[inline(always)]
    fn matches(&self, text: [u64; 2]) -> bool {
        self.fast && ((text[0] ^ self.words[0]) & self.masks[0]) | ((text[1] ^ self.words[1]) & self.masks[1]) == 0
    }
}

/// The field names of one kind of object or the variant names of one enum,
/// with the fields in the order `encode` writes them and the variants most
/// common first; readers match on the index of a name.
struct Names<const N: usize> {
    /// `"name":`, as keys and tags are spelled.
    keys: [Pattern; N],
    /// `"name"`, as unit variants are spelled bare.
    words: [Pattern; N],
    /// `{"name":`, a compact object's first key.
    firsts: [Pattern; N],
    /// `,"name":`, a compact object's later keys.
    nexts: [Pattern; N],
}

const fn names<const N: usize>(names: [&'static str; N]) -> Names<N> {
    let placeholder = Pattern::new(b"", "", false);
    let (mut keys, mut words) = ([placeholder; N], [placeholder; N]);
    let (mut firsts, mut nexts) = ([placeholder; N], [placeholder; N]);
    let mut i = 0;
    while i < N {
        keys[i] = Pattern::new(b"", names[i], true);
        words[i] = Pattern::new(b"", names[i], false);
        firsts[i] = Pattern::new(b"{", names[i], true);
        nexts[i] = Pattern::new(b",", names[i], true);
        i += 1;
    }
    Names { keys, words, firsts, nexts }
}

/// Scratch stacks for the elements of the lists being read, one per kind.
#[derive(Default)]
struct Stacks<'a> {
    types: Vec<Type<'a>>,
    exprs: Vec<Expr<'a>>,
    stmts: Vec<Stmt<'a>>,
    params: Vec<Param<'a>>,
    declarations: Vec<FunctionDeclaration<'a>>,
    globals: Vec<GlobalConst<'a>>,
    functions: Vec<Function<'a>>,
}

/// A cursor over the text. Every reading method skips the whitespace before
/// its token and returns `None` to decline.
struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Objects and arrays open at `pos`.
    depth: u32,
    bump: &'a Bump,
    stacks: Stacks<'a>,
}

impl<'a> Reader<'a> {
    // ---- tokens ----------------------------------------------------------------------

    #[inline]
    fn skip_whitespace(&mut self) {
        // Compact texts have no whitespace at all: one compare per token.
        if self.bytes.get(self.pos).is_some_and(|&b| b <= b' ') {
            self.skip_whitespace_run();
        }
    }

    #[inline(never)]
    fn skip_whitespace_run(&mut self) {
        let bytes = self.bytes;
        let mut pos = self.pos;
        // Any whitespace byte, then the spaces after it in bulk (except in
        // the last 32 bytes of the text, where the loop takes them singly).
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(pos) {
            pos += 1;
            if let Some(chunk) = bytes.get(pos..).and_then(<[u8]>::first_chunk::<32>) {
                pos += leading_spaces(chunk);
            }
        }
        self.pos = pos;
    }

    /// The next byte after whitespace, not consumed.
    #[inline(always)]
    fn peek(&mut self) -> Option<u8> {
        match self.bytes.get(self.pos) {
            Some(&b) if b > b' ' => Some(b),
            _ => {
                self.skip_whitespace_run();
                self.bytes.get(self.pos).copied()
            }
        }
    }

    /// Consumes `byte` after whitespace.
    #[inline(always)]
    fn expect(&mut self, byte: u8) -> Option<()> {
        if self.peek()? != byte {
            return None;
        }
        self.pos += 1;
        Some(())
    }

    /// Consumes the next byte after whitespace.
    #[inline(always)]
    fn next_byte(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.pos += 1;
        Some(byte)
    }

    /// Consumes `word` after whitespace if it comes next. A word running on
    /// (`nullx`) leaves bytes the caller's next token does not accept.
    #[inline(always)]
    fn keyword(&mut self, word: &[u8]) -> bool {
        if self.peek().is_none() {
            return false;
        }
        let found = self.bytes.get(self.pos..).is_some_and(|rest| rest.starts_with(word));
        if found {
            self.pos += word.len();
        }
        found
    }

    fn null(&mut self) -> Option<()> {
        self.keyword(b"null").then_some(())
    }

    #[inline(always)]
    fn boolean(&mut self) -> Option<bool> {
        if self.keyword(b"true") {
            Some(true)
        } else if self.keyword(b"false") {
            Some(false)
        } else {
            None
        }
    }

    /// A string without escapes or control characters, borrowed from the text.
    #[inline(always)]
    fn string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        self.string_rest()
    }

    /// [`Self::string`] after its opening quote.
    #[inline(always)]
    fn string_rest(&mut self) -> Option<&'a str> {
        let start = self.pos;
        let end = self.string_end(start)?;
        // Both ends are next to an ASCII quote, so on character boundaries.
        let string = self.text.get(start..end)?;
        self.pos = end + 1;
        Some(string)
    }

    /// The position of the closing quote of the string whose contents start
    /// at `pos`, or `None` if a [`STRING_STOP`] byte other than the quote (or
    /// the end of the text) comes first.
    #[inline(always)]
    fn string_end(&self, mut pos: usize) -> Option<usize> {
        let bytes = self.bytes;
        // Eight bytes at a time while they last, then one at a time.
        while let Some(chunk) = bytes.get(pos..).and_then(<[u8]>::first_chunk::<8>) {
            let stops = string_stops(u64::from_le_bytes(*chunk));
            if stops != 0 {
                pos += (stops.trailing_zeros() / 8) as usize;
                return (bytes.get(pos) == Some(&b'"')).then_some(pos);
            }
            pos += 8;
        }
        while !STRING_STOP[usize::from(*bytes.get(pos)?)] {
            pos += 1;
        }
        (bytes.get(pos) == Some(&b'"')).then_some(pos)
    }

    /// A string compared only with known names (a key or a tag), as bytes.
    fn word(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let start = self.pos;
        let end = self.string_end(start)?;
        self.pos = end + 1;
        self.bytes.get(start..end)
    }

    /// A string, or `null` as `None`.
    fn optional_string(&mut self) -> Option<Option<&'a str>> {
        if self.keyword(b"null") {
            Some(None)
        } else {
            self.string().map(Some)
        }
    }

    /// A non-negative integer of at most `max`, in digits without a leading
    /// zero. What may follow (`.5`, `e3`) is left for the caller's next token,
    /// which never accepts it.
    fn integer(&mut self, max: u64) -> Option<u64> {
        self.skip_whitespace();
        let start = self.pos;
        let mut value: u64 = 0;
        while let Some(&b) = self.bytes.get(self.pos).filter(|b| b.is_ascii_digit()) {
            value = value.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
            self.pos += 1;
        }
        let leading_zero = self.pos - start > 1 && self.bytes.get(start) == Some(&b'0');
        (self.pos > start && !leading_zero && value <= max).then_some(value)
    }

    /// A `u16` as [`Self::integer`] reads it, without its overflow checks: a
    /// sixth digit is declined, since it makes the value too large or the
    /// first digit a leading zero.
    #[inline(always)]
    fn bits(&mut self) -> Option<u16> {
        self.peek()?;
        let start = self.pos;
        let mut value: u32 = 0;
        while let Some(&b) = self.bytes.get(self.pos).filter(|b| b.is_ascii_digit()) {
            if self.pos - start == 5 {
                return None;
            }
            value = value * 10 + u32::from(b - b'0');
            self.pos += 1;
        }
        let leading_zero = self.pos - start > 1 && self.bytes.get(start) == Some(&b'0');
        if self.pos == start || leading_zero {
            return None;
        }
        u16::try_from(value).ok()
    }

    /// The 16 bytes at `pos` as little-endian words, if that many remain.
    #[inline(always)]
    fn lookahead(&self) -> Option<[u64; 2]> {
        // One range check (a wrapped end is an empty range, and `None`).
        let chunk: &[u8; 16] = self.bytes.get(self.pos..self.pos.wrapping_add(16))?.try_into().ok()?;
        Some([u64::from_le_bytes(*chunk.first_chunk()?), u64::from_le_bytes(*chunk.last_chunk()?)])
    }

    /// Consumes `pattern` if the text continues with exactly its spelling,
    /// with no whitespace before or inside it.
    #[inline(always)]
    fn exact(&mut self, pattern: &Pattern) -> bool {
        let found = self.lookahead().is_some_and(|text| pattern.matches(text));
        if found {
            self.pos += pattern.len;
        }
        found
    }

    /// Consumes one of `patterns` after whitespace, trying the one at
    /// `expected` first (none if out of range), and returns its index; a name
    /// in none of them is declined.
    #[inline(always)]
    fn name<const N: usize>(&mut self, patterns: &[Pattern; N], expected: usize) -> Option<usize> {
        self.skip_whitespace();
        match self.spelled(patterns, expected) {
            Some(index) => Some(index),
            None => self.name_by_string(patterns),
        }
    }

    /// Consumes the first of `patterns` (trying the one at `expected` first)
    /// whose exact spelling comes next, without skipping whitespace: its index.
    #[inline(always)]
    fn spelled<const N: usize>(&mut self, patterns: &[Pattern; N], expected: usize) -> Option<usize> {
        let text = self.lookahead()?;
        if let Some(pattern) = patterns.get(expected).filter(|p| p.matches(text)) {
            self.pos += pattern.len;
            return Some(expected);
        }
        let index = patterns.iter().position(|p| p.matches(text))?;
        self.pos += patterns.get(index)?.len;
        Some(index)
    }

    /// [`Self::spelled`] for `{"Tag":` patterns, none tried unless the text
    /// continues with `{"` (after a line break, in pretty texts, none can match).
    #[inline(always)]
    fn spelled_first<const N: usize>(&mut self, patterns: &[Pattern; N]) -> Option<usize> {
        let text = self.lookahead().filter(|text| text[0] as u16 == u16::from_le_bytes(*b"{\""))?;
        let index = patterns.iter().position(|p| p.matches(text))?;
        self.pos += patterns.get(index)?.len;
        Some(index)
    }

    /// [`Self::spelled_first`] given the lookahead `text` at `pos`, which
    /// starts with `{"`, where [`Self::variant`] would try it.
    #[inline(always)]
    fn spelled_tag<const N: usize>(&mut self, patterns: &[Pattern; N], text: [u64; 2]) -> Option<usize> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        let index = patterns.iter().position(|p| p.matches(text))?;
        self.pos += patterns.get(index)?.len;
        Some(index)
    }

    /// [`Self::name`] for the names no word compare settles: the string is
    /// scanned and compared with each name, then its colon read if the
    /// patterns have one.
    #[inline(never)]
    fn name_by_string(&mut self, patterns: &[Pattern]) -> Option<usize> {
        let word = self.word()?;
        let index = patterns.iter().position(|p| p.name == word)?;
        if patterns.get(index)?.colon {
            self.expect(b':')?;
        }
        Some(index)
    }

    // ---- containers ------------------------------------------------------------------

    /// Consumes `open` (`{` or `[`), one level deeper.
    #[inline(always)]
    fn open(&mut self, open: u8) -> Option<()> {
        self.expect(open)?;
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// Consumes `close` (`}` or `]`), one level up.
    #[inline(always)]
    fn close(&mut self, close: u8) -> Option<()> {
        self.expect(close)?;
        self.depth -= 1;
        Some(())
    }

    /// An object whose keys are among `keys`, each at most once and in any
    /// order; `field` reads the value of the key at the index it is given.
    /// Missing keys are the caller's to decline.
    #[inline(always)]
    fn object<const N: usize>(
        &mut self,
        names: &Names<N>,
        mut field: impl FnMut(&mut Self, usize) -> Option<()>,
    ) -> Option<()> {
        const { assert!(0 < N && N <= 32, "one bit per key") };
        let keys = &names.keys;
        let (mut seen, mut next) = (0u32, 0);
        // A compact object with its keys in the order of `names` (as `encode`
        // writes them) is read with one compare per `{"key":` or `,"key":`;
        // the general loop below takes over wherever it differs.
        if self.depth < MAX_DEPTH && self.exact(&names.firsts[0]) {
            self.depth += 1;
            loop {
                field(self, next)?;
                seen |= 1 << next;
                next += 1;
                if !names.nexts.get(next).is_some_and(|pattern| self.exact(pattern)) {
                    break;
                }
            }
            match self.next_byte()? {
                b',' => {}
                b'}' => {
                    self.depth -= 1;
                    return Some(());
                }
                _ => return None,
            }
        } else {
            self.open(b'{')?;
        }
        // Keys usually come in the order of `keys`: the one after the last is tried first.
        loop {
            let index = self.name(keys, next)?;
            let bit = 1 << index;
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            field(self, index)?;
            next = index + 1;
            match self.next_byte()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
        self.depth -= 1;
        Some(())
    }

    /// The rest of an object after the value of one of its fields, as
    /// [`Self::object`] reads it: `seen` has a bit for each key read, `next`
    /// is the index after the last one.
    #[inline(always)]
    fn object_rest<const N: usize>(
        &mut self,
        keys: &[Pattern; N],
        mut seen: u32,
        mut next: usize,
        mut field: impl FnMut(&mut Self, usize) -> Option<()>,
    ) -> Option<()> {
        loop {
            match self.next_byte()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
            // Keys usually come in the order of `keys`: the one after the last is tried first.
            let index = self.name(keys, next)?;
            let bit = 1 << index;
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            field(self, index)?;
            next = index + 1;
        }
        self.depth -= 1;
        Some(())
    }

    /// An enum value in its object form, `{"Tag": payload}`: exactly one key,
    /// one of `tags`, whose payload `payload` reads given the tag's index.
    #[inline(always)]
    fn variant<const N: usize, T>(
        &mut self,
        tags: &Names<N>,
        payload: impl FnOnce(&mut Self, usize) -> Option<T>,
    ) -> Option<T> {
        // `{"Tag":` without whitespace is one compare per tag.
        let compact = if self.depth < MAX_DEPTH { self.spelled_first(&tags.firsts) } else { None };
        self.variant_from(tags, compact, payload)
    }

    /// [`Self::variant`] given what its first compare found: the index of the
    /// `{"Tag":` consumed, or `None` to read the object the general way.
    #[inline(always)]
    fn variant_from<const N: usize, T>(
        &mut self,
        tags: &Names<N>,
        compact: Option<usize>,
        payload: impl FnOnce(&mut Self, usize) -> Option<T>,
    ) -> Option<T> {
        let tag = match compact {
            Some(tag) => {
                self.depth += 1;
                tag
            }
            None => {
                self.open(b'{')?;
                self.name(&tags.keys, N)?
            }
        };
        let value = payload(self, tag)?;
        self.close(b'}')?;
        Some(value)
    }

    /// A unit-only enum, the bare string `"Tag"` or `{"Tag": null}`: the
    /// index of its tag in `names`.
    #[inline(always)]
    fn unit<const N: usize>(&mut self, names: &Names<N>) -> Option<usize> {
        if self.peek()? == b'"' {
            return self.name(&names.words, N);
        }
        self.variant(names, |r, tag| {
            r.null()?;
            Some(tag)
        })
    }

    /// An array of `element`s, gathered on the stack `stack` picks and copied
    /// into the arena.
    fn list<T: Copy>(
        &mut self,
        stack: for<'s> fn(&'s mut Stacks<'a>) -> &'s mut Vec<T>,
        element: fn(&mut Self) -> Option<T>,
    ) -> Option<&'a [T]> {
        self.open(b'[')?;
        let start = stack(&mut self.stacks).len();
        if self.peek()? != b']' {
            loop {
                let value = element(self)?;
                stack(&mut self.stacks).push(value);
                if self.peek()? != b',' {
                    break;
                }
                self.pos += 1;
            }
        }
        self.close(b']')?;
        let items = stack(&mut self.stacks);
        let slice = self.bump.alloc_slice_copy(items.get(start..)?);
        items.truncate(start);
        Some(slice)
    }

    // ---- the envelope and the program ------------------------------------------------
    //
    // Each reader lists its names beside the `match` on their indices.

    fn envelope(&mut self) -> Option<tree::Program<'a>> {
        const KEYS: Names<4> = names(["format_version", "semantics_version", "features", "program"]);
        let (mut format, mut semantics, mut features, mut program) = (None, None, None, None);
        self.object(&KEYS, |r, key| {
            match key {
                0 => format = Some(r.integer(u64::MAX)?),
                1 => semantics = Some(r.integer(u64::MAX)?),
                2 => {
                    r.open(b'[')?;
                    r.close(b']')?;
                    features = Some(());
                }
                _ => program = Some(r.program()?),
            }
            Some(())
        })?;
        features?;
        let supported = format? == u64::from(AST_FORMAT_VERSION) && semantics? == SEMANTICS_VERSION;
        supported.then_some(program?)
    }

    fn program(&mut self) -> Option<tree::Program<'a>> {
        const KEYS: Names<3> = names(["declarations", "globals", "functions"]);
        let (mut declarations, mut globals, mut functions) = (None, None, None);
        self.object(&KEYS, |r, key| {
            match key {
                0 => declarations = Some(r.list(|s| &mut s.declarations, Self::declaration)?),
                1 => globals = Some(r.list(|s| &mut s.globals, Self::global)?),
                _ => functions = Some(r.list(|s| &mut s.functions, Self::function)?),
            }
            Some(())
        })?;
        Some(tree::Program { declarations: declarations?, globals: globals?, functions: functions? })
    }

    fn declaration(&mut self) -> Option<FunctionDeclaration<'a>> {
        const KEYS: Names<4> = names(["name", "signature", "linkage", "link_name"]);
        let (mut name, mut signature, mut linkage, mut link_name) = (None, None, None, None);
        self.object(&KEYS, |r, key| {
            match key {
                0 => name = Some(r.string()?),
                1 => signature = Some(r.signature()?),
                2 => linkage = Some(r.linkage()?),
                _ => link_name = r.optional_string()?,
            }
            Some(())
        })?;
        Some(FunctionDeclaration { name: name?, signature: signature?, linkage: linkage?, link_name })
    }

    fn global(&mut self) -> Option<GlobalConst<'a>> {
        const KEYS: Names<3> = names(["name", "ty", "init"]);
        let (mut name, mut ty, mut init) = (None, None, None);
        self.object(&KEYS, |r, key| {
            match key {
                0 => name = Some(r.string()?),
                1 => ty = Some(r.ty()?),
                _ => init = Some(r.expr()?),
            }
            Some(())
        })?;
        Some(GlobalConst { name: name?, ty: ty?, init: init? })
    }

    fn function(&mut self) -> Option<Function<'a>> {
        const KEYS: Names<7> =
            names(["convention", "linkage", "link_name", "name", "parameters", "return_type", "body"]);
        let (mut convention, mut linkage, mut link_name, mut name) = (None, None, None, None);
        let (mut parameters, mut return_type, mut body) = (None, None, None);
        self.object(&KEYS, |r, key| {
            match key {
                0 => convention = Some(r.convention()?),
                1 => linkage = Some(r.linkage()?),
                2 => link_name = r.optional_string()?,
                3 => name = Some(r.string()?),
                4 => parameters = Some(r.list(|s| &mut s.params, Self::param)?),
                5 => return_type = Some(r.ty()?),
                _ => body = Some(r.stmts()?),
            }
            Some(())
        })?;
        Some(Function {
            convention: convention?,
            linkage: linkage?,
            link_name,
            name: name?,
            parameters: parameters?,
            return_type: return_type?,
            body: body?,
        })
    }

    fn param(&mut self) -> Option<Param<'a>> {
        const KEYS: Names<2> = names(["name", "ty"]);
        let (mut name, mut ty) = (None, None);
        self.object(&KEYS, |r, key| {
            match key {
                0 => name = Some(r.string()?),
                _ => ty = Some(r.ty()?),
            }
            Some(())
        })?;
        Some(Param { name: name?, ty: ty? })
    }

    fn signature(&mut self) -> Option<Signature<'a>> {
        const KEYS: Names<4> = names(["params", "ret", "convention", "variadic"]);
        let (mut params, mut ret, mut convention, mut variadic) = (None, None, None, None);
        self.object(&KEYS, |r, key| {
            match key {
                0 => params = Some(r.list(|s| &mut s.types, Self::ty)?),
                1 => ret = Some(r.ty()?),
                2 => convention = Some(r.convention()?),
                _ => variadic = Some(r.boolean()?),
            }
            Some(())
        })?;
        Some(Signature { params: params?, ret: ret?, convention: convention?, variadic: variadic? })
    }

    fn convention(&mut self) -> Option<Convention> {
        const NAMES: Names<2> = names(["Whale", "SysV64"]);
        [Convention::Whale, Convention::SysV64].get(self.unit(&NAMES)?).copied()
    }

    fn linkage(&mut self) -> Option<Linkage> {
        const NAMES: Names<2> = names(["Internal", "External"]);
        [Linkage::Internal, Linkage::External].get(self.unit(&NAMES)?).copied()
    }

    // ---- types -----------------------------------------------------------------------

    fn ty(&mut self) -> Option<Type<'a>> {
        const UNITS: Names<2> = names(["Void", "Bool"]);
        const TAGS: Names<8> = names(["Int", "Bool", "Void", "Ptr", "Array", "Opaque", "Float", "FnPtr"]);
        if self.peek()? == b'"' {
            return [Type::Void, Type::Bool].get(self.name(&UNITS.words, 2)?).copied();
        }
        let start = self.pos;
        if let Some((bits, signed)) = self.compact_int() {
            if self.expect(b'}').and_then(|()| self.expect(b'}')).is_some() {
                return Some(Type::Int { bits, signed });
            }
        }
        self.pos = start;
        self.variant(&TAGS, |r, tag| match tag {
            0 => {
                const KEYS: Names<2> = names(["bits", "signed"]);
                let (mut bits, mut signed) = (None, None);
                r.object(&KEYS, |r, key| {
                    match key {
                        0 => bits = Some(r.bits()?),
                        _ => signed = Some(r.boolean()?),
                    }
                    Some(())
                })?;
                Some(Type::Int { bits: bits?, signed: signed? })
            }
            1 => r.null().map(|()| Type::Bool),
            2 => r.null().map(|()| Type::Void),
            3 => Some(Type::Ptr(r.bump.alloc(r.ty()?))),
            4 => {
                const KEYS: Names<2> = names(["elem", "len"]);
                let (mut elem, mut len) = (None, None);
                r.object(&KEYS, |r, key| {
                    match key {
                        0 => elem = Some(r.ty()?),
                        _ => len = Some(r.integer(u64::MAX)?),
                    }
                    Some(())
                })?;
                Some(Type::Array { elem: r.bump.alloc(elem?), len: len? })
            }
            5 => Some(Type::Opaque(r.string()?)),
            6 => {
                const KEYS: Names<1> = names(["bits"]);
                let mut bits = None;
                r.object(&KEYS, |r, _| {
                    bits = Some(r.bits()?);
                    Some(())
                })?;
                Some(Type::Float { bits: bits? })
            }
            _ => Some(Type::FnPtr(r.bump.alloc(r.signature()?))),
        })
    }

    // ---- expressions -----------------------------------------------------------------

    /// The start of an integer type or literal as `encode` writes it,
    /// `{"Int":{"bits":64,"signed":true`, read without the object machinery:
    /// `None` (with `pos` left anywhere) if the text does not continue so.
    /// Only scalars are read, so a caller that rewinds and takes the general
    /// path reads them at most twice.
    #[inline(always)]
    fn compact_int(&mut self) -> Option<(u16, bool)> {
        const INT_BITS: Pattern = Pattern::raw(r#"{"Int":{"bits":"#);
        const SIGNED: Pattern = Pattern::raw(r#","signed":"#);
        // The two objects this opens must fit where the general path would open them.
        if self.depth + 2 > MAX_DEPTH || !self.exact(&INT_BITS) {
            return None;
        }
        let bits = self.bits()?;
        if !self.exact(&SIGNED) {
            return None;
        }
        Some((bits, self.boolean()?))
    }

    fn literal(&mut self) -> Option<Literal<'a>> {
        const TAGS: Names<3> = names(["Int", "Bool", "Float"]);
        const VALUE: Pattern = Pattern::raw(r#","value":"#);
        let start = self.pos;
        if let Some((bits, signed)) = self.compact_int() {
            if self.exact(&VALUE) {
                if let Some(value) = self.string() {
                    if self.expect(b'}').and_then(|()| self.expect(b'}')).is_some() {
                        return Some(Literal::Int { bits, signed, value });
                    }
                }
            }
        }
        self.pos = start;
        self.variant(&TAGS, |r, tag| match tag {
            0 => {
                const KEYS: Names<3> = names(["bits", "signed", "value"]);
                let (mut bits, mut signed, mut value) = (None, None, None);
                r.object(&KEYS, |r, key| {
                    match key {
                        0 => bits = Some(r.bits()?),
                        1 => signed = Some(r.boolean()?),
                        _ => value = Some(r.string()?),
                    }
                    Some(())
                })?;
                Some(Literal::Int { bits: bits?, signed: signed?, value: value? })
            }
            1 => Some(Literal::Bool(r.boolean()?)),
            _ => {
                const KEYS: Names<2> = names(["bits", "value"]);
                let (mut bits, mut value) = (None, None);
                r.object(&KEYS, |r, key| {
                    match key {
                        0 => bits = Some(r.bits()?),
                        _ => value = Some(r.string()?),
                    }
                    Some(())
                })?;
                Some(Literal::Float { bits: bits?, value: value? })
            }
        })
    }

    fn expr(&mut self) -> Option<Expr<'a>> {
        const VAR: Pattern = Pattern::raw(r#"{"Var":""#);
        const LIT: Pattern = Pattern::raw(r#"{"Lit":"#);
        const VALUE: Pattern = Pattern::raw(r#","value":"#);
        const BINARY: Pattern = Pattern::raw(r#"{"Binary":"#);
        const CMP: Pattern = Pattern::raw(r#"{"Cmp":"#);
        const LEFT: Pattern = Pattern::raw(r#"{"left":"#);
        // The most common expressions, `{"Var":"x"}`, integer literals and
        // the starts of `Binary` and `Cmp`, as `encode` writes them compactly,
        // are read straight; on any difference before a child expression
        // (only scalars have been read) the general path reads them again.
        // Three objects open at most, as the general path would open them.
        // None of the spellings can match unless the text has `{"` (it never
        // does after a line break, in pretty texts).
        let start = self.pos;
        let compact = self.lookahead().filter(|text| text[0] as u16 == u16::from_le_bytes(*b"{\""));
        // The first three bytes, `{"V` and so on, pick the one spelling to compare.
        let first = |pattern: &Pattern| pattern.words[0] & 0xff_ffff;
        if let Some(text) = compact.filter(|_| self.depth + 3 <= MAX_DEPTH) {
            let start3 = text[0] & 0xff_ffff;
            if start3 == first(&VAR) && VAR.matches(text) {
                self.pos += VAR.len;
                if let Some(name) = self.string_rest() {
                    if self.bytes.get(self.pos) == Some(&b'}') {
                        self.pos += 1;
                        return Some(Expr::Var(name));
                    }
                }
            } else if start3 == first(&BINARY) && BINARY.matches(text) {
                self.pos += BINARY.len;
                if self.exact(&LEFT) {
                    // From here on nothing is read twice (see `operands_straight`).
                    self.depth += 2;
                    let (left, op, right) = self.operands_straight(&Self::BINARY_OPS, Self::binary_op)?;
                    return Some(Expr::Binary { left, op, right });
                }
            } else if start3 == first(&LIT) && LIT.matches(text) {
                self.pos += LIT.len;
                if let Some((bits, signed)) = self.compact_int() {
                    if self.exact(&VALUE) {
                        if let Some(value) = self.string() {
                            if self.bytes.get(self.pos..self.pos + 3) == Some(b"}}}") {
                                self.pos += 3;
                                return Some(Expr::Lit(Literal::Int { bits, signed, value }));
                            }
                        }
                    }
                }
            } else if start3 == first(&CMP) && CMP.matches(text) {
                self.pos += CMP.len;
                if self.exact(&LEFT) {
                    self.depth += 2;
                    let (left, op, right) = self.operands_straight(&Self::CMP_OPS, Self::cmp_op)?;
                    return Some(Expr::Cmp { left, op, right });
                }
            }
            self.pos = start;
        }
        self.expr_general()
    }

    /// [`Self::expr`] in any form the reader accepts; apart, so that the
    /// straight paths do not pay for its stack frame.
    #[inline(never)]
    fn expr_general(&mut self) -> Option<Expr<'a>> {
        const TAGS: Names<7> = names(["Var", "Lit", "Binary", "Cmp", "Call", "FunctionRef", "NullFunction"]);
        self.variant(&TAGS, |r, tag| match tag {
            0 => Some(Expr::Var(r.string()?)),
            1 => Some(Expr::Lit(r.literal()?)),
            2 => {
                let (left, op, right) = r.operands(Self::binary_op)?;
                Some(Expr::Binary { left, op, right })
            }
            3 => {
                let (left, op, right) = r.operands(Self::cmp_op)?;
                Some(Expr::Cmp { left, op, right })
            }
            4 => {
                const KEYS: Names<2> = names(["callee", "args"]);
                let (mut callee, mut args) = (None, None);
                r.object(&KEYS, |r, key| {
                    match key {
                        0 => callee = Some(r.callee()?),
                        _ => args = Some(r.list(|s| &mut s.exprs, Self::expr)?),
                    }
                    Some(())
                })?;
                Some(Expr::Call { callee: r.bump.alloc(callee?), args: args? })
            }
            5 => Some(Expr::FunctionRef(r.string()?)),
            _ => Some(Expr::NullFunction(r.bump.alloc(r.signature()?))),
        })
    }

    /// An expression in the arena.
    fn boxed_expr(&mut self) -> Option<&'a Expr<'a>> {
        let expr = self.expr()?;
        Some(self.bump.alloc(expr))
    }

    /// A type in the arena.
    fn boxed_ty(&mut self) -> Option<&'a Type<'a>> {
        let ty = self.ty()?;
        Some(self.bump.alloc(ty))
    }

    /// [`Self::operands`] after `{"Binary":{"left":` or `{"Cmp":{"left":`
    /// (both objects counted in `depth`), through the closing `}}`. `ops`
    /// spell `,"op":"Add"` and so on in the order of `op`'s names. Once the
    /// left operand is read nothing is rewound, since a rewind would read the
    /// children again (twice per level, in nested expressions): where the
    /// text differs from `ops` and `,"right":`, the general object loop goes on
    /// with the keys read so far, as the general path would have.
    #[inline(always)]
    fn operands_straight<Op: Copy, const N: usize>(
        &mut self,
        ops: &[(Pattern, Op); N],
        op: fn(&mut Self) -> Option<Op>,
    ) -> Option<(&'a Expr<'a>, Op, &'a Expr<'a>)> {
        const KEYS: Names<3> = names(["left", "op", "right"]);
        const RIGHT: Pattern = Pattern::raw(r#","right":"#);
        let left = self.boxed_expr()?;
        if let Some(text) = self.lookahead() {
            if let Some(&(pattern, operator)) = ops.iter().find(|(pattern, _)| pattern.matches(text)) {
                self.pos += pattern.len;
                if self.exact(&RIGHT) {
                    let right = self.boxed_expr()?;
                    // All three keys are read: only `}` can follow, twice.
                    self.close(b'}')?;
                    self.close(b'}')?;
                    return Some((left, operator, right));
                }
                let (mut operator, mut right) = (Some(operator), None);
                self.object_rest(&KEYS.keys, 0b11, 2, |r, key| {
                    match key {
                        0 => return None,
                        1 => operator = Some(op(r)?),
                        _ => right = Some(r.boxed_expr()?),
                    }
                    Some(())
                })?;
                self.close(b'}')?;
                return Some((left, operator?, right?));
            }
        }
        let (mut operator, mut right) = (None, None);
        self.object_rest(&KEYS.keys, 0b1, 1, |r, key| {
            match key {
                0 => return None,
                1 => operator = Some(op(r)?),
                _ => right = Some(r.boxed_expr()?),
            }
            Some(())
        })?;
        self.close(b'}')?;
        Some((left, operator?, right?))
    }

    /// The `left`, `op` and `right` fields of `Binary` and `Cmp`.
    #[inline]
    fn operands<Op>(&mut self, op: fn(&mut Self) -> Option<Op>) -> Option<(&'a Expr<'a>, Op, &'a Expr<'a>)> {
        const KEYS: Names<3> = names(["left", "op", "right"]);
        let (mut left, mut operator, mut right) = (None, None, None);
        self.object(&KEYS, |r, key| {
            match key {
                0 => left = Some(r.boxed_expr()?),
                1 => operator = Some(op(r)?),
                _ => right = Some(r.boxed_expr()?),
            }
            Some(())
        })?;
        Some((left?, operator?, right?))
    }

    /// `,"op":"Add"` and so on, for [`Self::operands_straight`].
    const BINARY_OPS: [(Pattern, BinaryOp); 3] = [
        (Pattern::raw(r#","op":"Add""#), BinaryOp::Add),
        (Pattern::raw(r#","op":"Sub""#), BinaryOp::Sub),
        (Pattern::raw(r#","op":"Mul""#), BinaryOp::Mul),
    ];

    /// `,"op":"Lt"` and so on, for [`Self::operands_straight`].
    const CMP_OPS: [(Pattern, CmpOp); 6] = [
        (Pattern::raw(r#","op":"Lt""#), CmpOp::Lt),
        (Pattern::raw(r#","op":"Eq""#), CmpOp::Eq),
        (Pattern::raw(r#","op":"Ne""#), CmpOp::Ne),
        (Pattern::raw(r#","op":"Le""#), CmpOp::Le),
        (Pattern::raw(r#","op":"Gt""#), CmpOp::Gt),
        (Pattern::raw(r#","op":"Ge""#), CmpOp::Ge),
    ];

    #[inline(always)]
    fn binary_op(&mut self) -> Option<BinaryOp> {
        const NAMES: Names<3> = names(["Add", "Sub", "Mul"]);
        [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul].get(self.unit(&NAMES)?).copied()
    }

    #[inline(always)]
    fn cmp_op(&mut self) -> Option<CmpOp> {
        const NAMES: Names<6> = names(["Lt", "Eq", "Ne", "Le", "Gt", "Ge"]);
        [CmpOp::Lt, CmpOp::Eq, CmpOp::Ne, CmpOp::Le, CmpOp::Gt, CmpOp::Ge].get(self.unit(&NAMES)?).copied()
    }

    fn callee(&mut self) -> Option<Callee<'a>> {
        const TAGS: Names<2> = names(["Direct", "Indirect"]);
        self.variant(&TAGS, |r, tag| match tag {
            0 => Some(Callee::Direct(r.string()?)),
            _ => Some(Callee::Indirect(r.boxed_expr()?)),
        })
    }

    // ---- statements ------------------------------------------------------------------

    fn stmts(&mut self) -> Option<&'a [Stmt<'a>]> {
        self.list(|s| &mut s.stmts, Self::stmt)
    }

    /// The most common statements as `encode` writes them compactly, read
    /// straight: `Ok` with the statement, or `None` to decline. Only scalars
    /// are read before the first child, and rewound on any difference; from
    /// there on nothing is rewound (which would read the children again), and
    /// the general object loop goes on wherever the text differs. `Err` for
    /// every other statement, with what [`Self::variant`]'s first compare
    /// would find among `tags`, for [`Self::variant_from`].
    #[inline(always)]
    fn stmt_straight<const N: usize>(&mut self, tags: &Names<N>) -> Result<Option<Stmt<'a>>, Option<usize>> {
        const VAR_DECL: Pattern = Pattern::raw(r#"{"VarDecl":"#);
        const ASSIGN: Pattern = Pattern::raw(r#"{"Assign":"#);
        const RETURN: Pattern = Pattern::raw(r#"{"Return":"#);
        const EXPR_STMT: Pattern = Pattern::raw(r#"{"ExprStmt":"#);
        const IF: Pattern = Pattern::raw(r#"{"If":{"cond":"#);
        const WHILE: Pattern = Pattern::raw(r#"{"While":"#);
        const COND: Pattern = Pattern::raw(r#"{"cond":"#);
        const NAME: Pattern = Pattern::raw(r#"{"name":""#);
        const TY: Pattern = Pattern::raw(r#","ty":"#);
        const VALUE: Pattern = Pattern::raw(r#","value":"#);
        // Two objects open at most, as the general path would open them; and
        // none of the spellings can match unless the text has `{"` (it never
        // does after a line break, in pretty texts).
        let Some(text) = self.lookahead().filter(|text| text[0] as u16 == u16::from_le_bytes(*b"{\"")) else {
            return Err(None);
        };
        if self.depth + 2 > MAX_DEPTH {
            return Err(self.spelled_tag(&tags.firsts, text));
        }
        let start = self.pos;
        if VAR_DECL.matches(text) {
            self.pos += VAR_DECL.len;
            if self.exact(&NAME) {
                if let Some(name) = self.string_rest() {
                    if self.exact(&TY) {
                        self.depth += 2;
                        return Ok(self.var_decl_rest(name));
                    }
                }
            }
        } else if ASSIGN.matches(text) {
            self.pos += ASSIGN.len;
            if self.exact(&NAME) {
                if let Some(name) = self.string_rest() {
                    if self.exact(&VALUE) {
                        self.depth += 2;
                        return Ok(self.assign_rest(name));
                    }
                }
            }
        } else if IF.matches(text) {
            self.pos += IF.len;
            self.depth += 2;
            return Ok(self.if_rest());
        } else if WHILE.matches(text) {
            self.pos += WHILE.len;
            if self.exact(&COND) {
                self.depth += 2;
                return Ok(self.while_rest());
            }
        } else if RETURN.matches(text) {
            self.pos += RETURN.len;
            self.depth += 1;
            let value = if self.keyword(b"null") { Some(None) } else { self.boxed_expr().map(Some) };
            return Ok(value.and_then(|value| self.close(b'}').map(|()| Stmt::Return(value))));
        } else if EXPR_STMT.matches(text) {
            self.pos += EXPR_STMT.len;
            self.depth += 1;
            return Ok(self.boxed_expr().and_then(|expr| self.close(b'}').map(|()| Stmt::ExprStmt(expr))));
        }
        self.pos = start;
        Err(self.spelled_tag(&tags.firsts, text))
    }

    /// A `VarDecl` after `{"VarDecl":{"name":"x","ty":` (both objects
    /// counted in `depth`), through the closing `}}`.
    fn var_decl_rest(&mut self, name: &'a str) -> Option<Stmt<'a>> {
        const KEYS: Names<3> = names(["name", "ty", "init"]);
        const INIT: Pattern = Pattern::raw(r#","init":"#);
        let ty = self.boxed_ty()?;
        let (mut init, mut seen, mut next) = (None, 0b11, 2);
        if self.exact(&INIT) {
            init = if self.keyword(b"null") { None } else { Some(self.boxed_expr()?) };
            (seen, next) = (0b111, 3);
        }
        // `name` and `ty` are read, so `object_rest` declines them.
        self.object_rest(&KEYS.keys, seen, next, |r, _| {
            init = if r.keyword(b"null") { None } else { Some(r.boxed_expr()?) };
            Some(())
        })?;
        self.close(b'}')?;
        Some(Stmt::VarDecl { name, ty, init })
    }

    /// An `If` after `{"If":{"cond":` (both objects counted in `depth`),
    /// through the closing `}}`.
    fn if_rest(&mut self) -> Option<Stmt<'a>> {
        const KEYS: Names<3> = names(["cond", "then_body", "else_body"]);
        const THEN_BODY: Pattern = Pattern::raw(r#","then_body":"#);
        const ELSE_BODY: Pattern = Pattern::raw(r#","else_body":"#);
        let cond = self.boxed_expr()?;
        if self.exact(&THEN_BODY) {
            let then_body = self.stmts()?;
            if self.exact(&ELSE_BODY) {
                let else_body = self.stmts()?;
                // All three keys are read: only `}` can follow, twice.
                self.close(b'}')?;
                self.close(b'}')?;
                return Some(Stmt::If { cond, then_body, else_body });
            }
            let mut else_body = None;
            self.object_rest(&KEYS.keys, 0b11, 2, |r, _| {
                else_body = Some(r.stmts()?);
                Some(())
            })?;
            self.close(b'}')?;
            return Some(Stmt::If { cond, then_body, else_body: else_body? });
        }
        let (mut then_body, mut else_body) = (None, None);
        self.object_rest(&KEYS.keys, 0b1, 1, |r, key| {
            match key {
                1 => then_body = Some(r.stmts()?),
                _ => else_body = Some(r.stmts()?),
            }
            Some(())
        })?;
        self.close(b'}')?;
        Some(Stmt::If { cond, then_body: then_body?, else_body: else_body? })
    }

    /// A `While` after `{"While":{"cond":` (both objects counted in
    /// `depth`), through the closing `}}`.
    fn while_rest(&mut self) -> Option<Stmt<'a>> {
        const KEYS: Names<2> = names(["cond", "body"]);
        const BODY: Pattern = Pattern::raw(r#","body":"#);
        let cond = self.boxed_expr()?;
        let mut body = None;
        if self.exact(&BODY) {
            body = Some(self.stmts()?);
            // Both keys are read: only `}` can follow, twice.
            self.close(b'}')?;
        } else {
            self.object_rest(&KEYS.keys, 0b1, 1, |r, _| {
                body = Some(r.stmts()?);
                Some(())
            })?;
        }
        self.close(b'}')?;
        Some(Stmt::While { cond, body: body? })
    }

    /// An `Assign` after `{"Assign":{"name":"x","value":` (both objects
    /// counted in `depth`), through the closing `}}`.
    fn assign_rest(&mut self, name: &'a str) -> Option<Stmt<'a>> {
        let value = self.boxed_expr()?;
        // Both keys are read: only `}` can follow, twice.
        self.close(b'}')?;
        self.close(b'}')?;
        Some(Stmt::Assign { name, value })
    }

    fn stmt(&mut self) -> Option<Stmt<'a>> {
        const UNITS: Names<2> = names(["Break", "Continue"]);
        const TAGS: Names<9> =
            names(["VarDecl", "Assign", "If", "While", "ExprStmt", "ConstDecl", "Return", "Break", "Continue"]);
        if self.peek()? == b'"' {
            return [Stmt::Break, Stmt::Continue].get(self.name(&UNITS.words, 2)?).copied();
        }
        let compact = match self.stmt_straight(&TAGS) {
            Ok(stmt) => return stmt,
            Err(compact) => compact,
        };
        self.variant_from(&TAGS, compact, |r, tag| match tag {
            0 => {
                const KEYS: Names<3> = names(["name", "ty", "init"]);
                let (mut name, mut ty, mut init) = (None, None, None);
                r.object(&KEYS, |r, key| {
                    match key {
                        0 => name = Some(r.string()?),
                        1 => ty = Some(r.boxed_ty()?),
                        _ => init = if r.keyword(b"null") { None } else { Some(r.boxed_expr()?) },
                    }
                    Some(())
                })?;
                Some(Stmt::VarDecl { name: name?, ty: ty?, init })
            }
            1 => {
                const KEYS: Names<2> = names(["name", "value"]);
                let (mut name, mut value) = (None, None);
                r.object(&KEYS, |r, key| {
                    match key {
                        0 => name = Some(r.string()?),
                        _ => value = Some(r.boxed_expr()?),
                    }
                    Some(())
                })?;
                Some(Stmt::Assign { name: name?, value: value? })
            }
            2 => {
                const KEYS: Names<3> = names(["cond", "then_body", "else_body"]);
                let (mut cond, mut then_body, mut else_body) = (None, None, None);
                r.object(&KEYS, |r, key| {
                    match key {
                        0 => cond = Some(r.boxed_expr()?),
                        1 => then_body = Some(r.stmts()?),
                        _ => else_body = Some(r.stmts()?),
                    }
                    Some(())
                })?;
                Some(Stmt::If { cond: cond?, then_body: then_body?, else_body: else_body? })
            }
            3 => {
                const KEYS: Names<2> = names(["cond", "body"]);
                let (mut cond, mut body) = (None, None);
                r.object(&KEYS, |r, key| {
                    match key {
                        0 => cond = Some(r.boxed_expr()?),
                        _ => body = Some(r.stmts()?),
                    }
                    Some(())
                })?;
                Some(Stmt::While { cond: cond?, body: body? })
            }
            4 => Some(Stmt::ExprStmt(r.boxed_expr()?)),
            5 => {
                const KEYS: Names<3> = names(["name", "ty", "init"]);
                let (mut name, mut ty, mut init) = (None, None, None);
                r.object(&KEYS, |r, key| {
                    match key {
                        0 => name = Some(r.string()?),
                        1 => ty = Some(r.boxed_ty()?),
                        _ => init = Some(r.boxed_expr()?),
                    }
                    Some(())
                })?;
                Some(Stmt::ConstDecl { name: name?, ty: ty?, init: init? })
            }
            6 => {
                if r.keyword(b"null") {
                    Some(Stmt::Return(None))
                } else {
                    Some(Stmt::Return(Some(r.boxed_expr()?)))
                }
            }
            7 => r.null().map(|()| Stmt::Break),
            _ => r.null().map(|()| Stmt::Continue),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::frontend;
    use super::super::interchange::{decode_with_serde, encode, DecodeError};
    use super::*;

    /// `program` (the JSON of a program object) in the envelope.
    fn envelope(program: &str) -> String {
        format!(r#"{{"format_version":2,"semantics_version":1,"features":[],"program":{program}}}"#)
    }

    /// `function` (the JSON of one function) as a whole text.
    fn with_function(function: &str) -> String {
        envelope(&format!(r#"{{"declarations":[],"globals":[],"functions":[{function}]}}"#))
    }

    /// `body` (JSON statements) as the body of a function returning `bool`.
    fn with_body(body: &str) -> String {
        with_function(&format!(
            r#"{{"convention":"Whale","linkage":"Internal","name":"f","parameters":[],"return_type":"Bool","body":[{body}]}}"#
        ))
    }

    /// The program the fast reader reads from `text`, which must be serde's.
    fn accepted(text: &str) -> frontend::Program {
        let bump = Bump::new();
        let tree = read(text, &bump).unwrap_or_else(|| panic!("declined {text}"));
        let program = tree::to_owned(&tree);
        assert_eq!(decode_with_serde(text), Ok(program.clone()), "{text}");
        program
    }

    /// Asserts that the fast reader declines `text`, and returns serde's result.
    fn declined(text: &str) -> Result<frontend::Program, DecodeError> {
        assert_eq!(read(text, &Bump::new()), None, "accepted {text}");
        decode_with_serde(text)
    }

    /// Every node kind, with unit variants both ways and optional fields
    /// absent, `null` and present.
    const EVERY_KIND: &str = r#"{
        "declarations": [
            {"name": "ext", "linkage": "External", "link_name": "ext_c", "signature": {"params": [
                {"Int": {"bits": 8, "signed": true}}, {"Float": {"bits": 64}}, {"Ptr": {"Ptr": "Bool"}},
                {"Array": {"elem": {"Opaque": "o"}, "len": 18446744073709551615}}, {"Void": null}, {"Bool": null},
                {"FnPtr": {"params": [], "ret": "Void", "convention": {"SysV64": null}, "variadic": true}}],
                "ret": "Void", "convention": "SysV64", "variadic": false}},
            {"signature": {"variadic": false, "convention": "Whale", "ret": "Bool", "params": []},
                "linkage": {"Internal": null}, "name": "fwd"},
            {"name": "n", "signature": {"params": [], "ret": "Bool", "convention": "Whale", "variadic": false},
                "linkage": "Internal", "link_name": null}
        ],
        "globals": [
            {"name": "g", "ty": {"Int": {"signed": false, "bits": 0}}, "init": {"Binary": {"left": {"Lit": {"Int":
                {"bits": 65535, "signed": false, "value": "7"}}}, "op": "Add", "right": {"Var": "h"}}}},
            {"init": {"Cmp": {"op": {"Ge": null}, "right": {"Lit": {"Bool": true}}, "left": {"Lit": {"Float":
                {"value": "0x3c00", "bits": 16}}}}}, "ty": "Bool", "name": "é 🐋 ~"}
        ],
        "functions": [
            {"convention": "Whale", "linkage": "Internal", "link_name": null, "name": "f",
             "parameters": [{"name": "p", "ty": {"Int": {"bits": 32, "signed": true}}}, {"ty": "Bool", "name": ""}],
             "return_type": "Void", "body": [
                {"Return": null}, {"Return": {"Var": "p"}}, "Break", {"Break": null}, "Continue", {"Continue": null},
                {"ConstDecl": {"name": "c", "ty": "Bool", "init": {"FunctionRef": "f"}}},
                {"VarDecl": {"name": "v", "ty": "Bool"}},
                {"VarDecl": {"init": null, "name": "w", "ty": "Bool"}},
                {"VarDecl": {"name": "x", "init": {"NullFunction": {"params": ["Bool"], "ret": "Void",
                    "convention": "Whale", "variadic": false}}, "ty": "Bool"}},
                {"Assign": {"value": {"Call": {"args": [], "callee": {"Direct": "f"}}}, "name": "v"}},
                {"ExprStmt": {"Call": {"callee": {"Indirect": {"Var": "x"}}, "args": [{"Var": "a"}, {"Var": "b"}]}}},
                {"If": {"cond": {"Var": "v"}, "then_body": [{"If": {"cond": {"Var": "w"}, "then_body": ["Break"],
                    "else_body": []}}, "Continue"], "else_body": [{"While": {"body": [], "cond": {"Var": "v"}}}]}},
                {"While": {"cond": {"Binary": {"left": {"Var": "a"}, "op": {"Mul": null}, "right": {"Var": "b"}}},
                    "body": [{"Return": null}]}}
             ]},
            {"name": "e", "convention": "SysV64", "linkage": "External", "link_name": "e_c", "parameters": [],
             "return_type": "Bool", "body": []}
        ]
    }"#;

    #[test]
    fn every_kind_in_any_key_order() {
        let text = envelope(EVERY_KIND);
        let program = accepted(&text);
        assert_eq!(program.declarations.len(), 3);
        assert_eq!(program.functions[0].body.len(), 14);
        // The envelope's keys in another order.
        let reordered = format!(r#"{{"program":{EVERY_KIND},"features":[],"semantics_version":1,"format_version":2}}"#);
        assert_eq!(accepted(&reordered), program);
        // Pretty, as `encode` writes it, and compact.
        assert_eq!(accepted(&encode(&program)), program);
        let compact: String = text.split(['\n', ' ']).collect();
        assert!(!compact.contains("\n "));
        assert_eq!(accepted(&compact).functions.len(), 2);
    }

    #[test]
    fn whitespace_between_any_tokens() {
        let text = envelope(EVERY_KIND);
        let program = accepted(&text);
        // The names of EVERY_KIND have no `:`, `,` or brackets, so only layout is added.
        let spaced = text
            .replace(':', " \t:\r\n ")
            .replace(',', "\n\n        ,\t")
            .replace('{', "{ \r")
            .replace('}', "\t}")
            .replace('[', "[\n")
            .replace(']', "        ]");
        assert_eq!(accepted(&format!(" \n\t\r{spaced}\n \t\r")), program);
        // Runs of spaces of every length around the 8- and 32-byte steps, up to the end of the text.
        for run in [1, 7, 8, 9, 31, 32, 33, 40, 64, 65] {
            let indent = format!("\n{}", " ".repeat(run));
            let indented = text.replace('\n', &indent);
            assert_eq!(accepted(&format!("{indented}{indent}")), program, "{run}");
        }
        let empty = envelope(r#"{ "declarations" : [ ] , "globals":[  ],"functions":[ ] }"#);
        assert_eq!(accepted(&empty), frontend::Program::default());
    }

    #[test]
    fn strings_with_escapes_or_control_characters_are_declined() {
        let program = accepted(&with_body(r#"{"Return": {"Var": "ab"}}"#));
        accepted(&with_body("{\"Return\": {\"Var\": \"a\u{7f}\u{80}\u{10FFFF}\"}}"));
        assert_eq!(declined(&with_body(r#"{"Return": {"Var": "a\u0062"}}"#)), Ok(program.clone()));
        assert_eq!(declined(&with_body(r#"{"Return": {"Var": "a\/"}}"#)).map(|_| ()), Ok(()));
        assert!(declined(&with_body("{\"Return\": {\"Var\": \"a\tb\"}}")).is_err());
        assert!(declined(&with_body("{\"Return\": {\"Var\": \"a\u{0}b\"}}")).is_err());
        // Escaped keys, including one that repeats a key.
        assert_eq!(declined(&with_body(r#"{"Return": {"V\u0061r": "ab"}}"#)), Ok(program));
        let repeated = with_body(r#"{"Assign": {"name": "a", "n\u0061me": "b", "value": {"Var": "c"}}}"#);
        assert!(matches!(declined(&repeated), Err(DecodeError::DuplicateKey { .. })));
        // Unterminated strings, long and short.
        for cut in [10, 30, 200] {
            let text = with_body(&format!(r#"{{"Return": {{"Var": "{}"#, "x".repeat(cut)));
            assert!(declined(&text).is_err());
        }
    }

    #[test]
    fn string_stops_find_the_first_stop() {
        for byte in 0..=255u8 {
            for at in 0..8 {
                let mut word = [b'a'; 8];
                word[at] = byte;
                // A later stop never hides the first.
                if at < 7 {
                    word[7] = b'"';
                }
                let stops = string_stops(u64::from_le_bytes(word));
                let first = word.iter().position(|&b| STRING_STOP[usize::from(b)]);
                assert_eq!((stops != 0).then(|| stops.trailing_zeros() as usize / 8), first, "{word:?}");
            }
        }
    }

    #[test]
    fn only_plain_integers_in_range_are_read() {
        let ty = |bits: &str| {
            with_body(&format!(r#"{{"VarDecl": {{"name": "v", "ty": {{"Float": {{"bits": {bits}}}}}}}}}"#))
        };
        for bits in ["0", "7", "65535"] {
            accepted(&ty(bits));
        }
        // serde_json reads `-0` as a float, and rejects the rest too.
        for bits in ["-0", "08", "8.0", "8e0", "8E0", "-8", "+8", "65536", "99999999999999999999", "8.", "0x8", ""] {
            assert!(declined(&ty(bits)).is_err(), "{bits}");
        }
        let len = |len: &str| {
            with_body(&format!(
                r#"{{"VarDecl": {{"name": "v", "ty": {{"Array": {{"elem": "Bool", "len": {len}}}}}}}}}"#
            ))
        };
        accepted(&len("18446744073709551615"));
        assert!(declined(&len("18446744073709551616")).is_err());
    }

    #[test]
    fn keys_must_be_known_once_and_complete() {
        let assign = |fields: &str| with_body(&format!(r#"{{"Assign": {{{fields}}}}}"#));
        accepted(&assign(r#""name": "a", "value": {"Var": "b"}"#));
        let cases = [
            r#""name": "a", "name": "a", "value": {"Var": "b"}"#,
            r#""name": "a", "value": {"Var": "b"}, "value": {"Var": "b"}"#,
            r#""name": "a", "value": {"Var": "b"}, "extra": 1"#,
            r#""name": "a""#,
            r#""value": {"Var": "b"}"#,
            "",
            r#""name": "a", "value": {"Var": "b"},"#,
            r#""name" "a", "value": {"Var": "b"}"#,
        ];
        for fields in cases {
            assert!(declined(&assign(fields)).is_err(), "{fields}");
        }
        // `init` may be absent or `null` once, not twice.
        assert!(
            declined(&with_body(r#"{"VarDecl": {"name": "v", "ty": "Bool", "init": null, "init": null}}"#)).is_err()
        );
        let link_name_twice = r#"{"convention":"Whale","linkage":"Internal","link_name":null,"link_name":null,
            "name":"f","parameters":[],"return_type":"Bool","body":[]}"#;
        assert!(declined(&with_function(link_name_twice)).is_err());
    }

    #[test]
    fn compact_fast_paths_fall_back_or_decline_exactly() {
        let lit = |fields: &str| with_body(&format!(r#"{{"Return":{{"Lit":{{"Int":{{{fields}}}}}}}}}"#));
        let ty = |fields: &str| with_body(&format!(r#"{{"VarDecl":{{"name":"v","ty":{{"Int":{{{fields}}}}}}}}}"#));
        let assign = |fields: &str| with_body(&format!(r#"{{"Assign":{{{fields}}}}}"#));
        // Canonical, reordered after a matching start, and spaced where a compare expects none.
        for fields in [
            r#""bits":64,"signed":true,"value":"5""#,
            r#""bits":64,"value":"5","signed":true"#,
            r#""bits":64,"signed":true ,"value":"5""#,
            r#""bits":64,"signed":true,"value" :"5" "#,
        ] {
            accepted(&lit(fields));
        }
        // The straight `Var` and `Lit` paths, and text they must leave to the general one.
        for expr in [r#"{"Var":"a" }"#, r#"{"Var":"a"} "#, r#"{"Lit":{"Int":{"bits":64,"signed":true,"value":"5"} }}"#]
        {
            accepted(&with_body(&format!(r#"{{"Return":{expr}}}"#)));
        }
        let ret = |expr: &str| with_body(&format!(r#"{{"Return":{expr}}}"#));
        assert!(declined(&ret(r#"{"Var":"a","Var":"a"}"#)).is_err());
        assert!(declined(&ret(r#"{"Lit":{"Int":{"bits":64,"signed":true,"value":5}}}"#)).is_err());
        assert!(declined(&ret(r#"{"Var":"a\u0062"}"#)).is_ok());
        for fields in [r#""bits":8,"signed":false"#, r#""signed":false,"bits":8"#, r#""bits":8 ,"signed":false "#] {
            accepted(&ty(fields));
        }
        for fields in [r#""name":"a","value":{"Var":"b"}"#, r#""value":{"Var":"b"},"name":"a""#] {
            accepted(&assign(fields));
        }
        // A repeated, unknown or missing key after a compact run.
        for fields in [
            r#""bits":64,"signed":true,"value":"5","bits":64"#,
            r#""bits":64,"signed":true,"value":"5","signed":true"#,
            r#""bits":64,"signed":true"#,
            r#""bits":64,"signed":true,"value":"5","x":1"#,
        ] {
            assert!(declined(&lit(fields)).is_err(), "{fields}");
        }
        for fields in [r#""bits":8,"signed":false,"bits":8"#, r#""bits":8"#, r#""bits":8,"signed":false,"value":"5""#] {
            assert!(declined(&ty(fields)).is_err(), "{fields}");
        }
        for fields in [r#""name":"a","value":{"Var":"b"},"name":"a""#, r#""name":"a","name":"a""#, r#""name":"a""#] {
            assert!(declined(&assign(fields)).is_err(), "{fields}");
        }
        // Compact tags of every expression kind.
        let call = r#"{"Call":{"callee":{"Direct":"f"},"args":[{"Cmp":{"left":{"Var":"a"},"op":"Ge","right":
            {"Lit":{"Bool":false}}}},{"FunctionRef":"f"},{"Binary":{"left":{"Var":"a"},"op":"Mul","right":{"Var":"b"}}}]}}"#;
        accepted(&with_body(&format!(r#"{{"ExprStmt":{call}}}"#).replace(['\n', ' '], "")));
    }

    #[test]
    fn straight_operands_and_statements_fall_back_or_decline_exactly() {
        let ret = |expr: &str| with_body(&format!(r#"{{"Return":{expr}}}"#));
        let (a, b) = (r#"{"Var":"a"}"#, r#"{"Lit":{"Int":{"bits":8,"signed":false,"value":"1"}}}"#);
        // `Binary` and `Cmp`: canonical, spaced, reordered, with the operator
        // as an object, and nested (the straight path inside the general one).
        for tag in ["Binary", "Cmp"] {
            let op = if tag == "Binary" { "Sub" } else { "Ne" };
            for fields in [
                format!(r#""left":{a},"op":"{op}","right":{b}"#),
                format!(r#""left":{a} ,"op":"{op}","right":{b}"#),
                format!(r#""left":{a},"op" :"{op}","right":{b}"#),
                format!(r#""left":{a},"op":"{op}" ,"right":{b}"#),
                format!(r#""left":{a},"op":"{op}","right":{b} "#),
                format!(r#""left":{a},"right":{b},"op":"{op}""#),
                format!(r#""left":{a},"op":{{"{op}":null}},"right":{b}"#),
                format!(r#""op":"{op}","left":{a},"right":{b}"#),
                format!(r#""left":{{"{tag}":{{"left":{a},"op":"{op}","right":{b} }}}},"op":"{op}","right":{b}"#),
            ] {
                accepted(&ret(&format!(r#"{{"{tag}":{{{fields}}}}}"#)));
                accepted(&ret(&format!(r#"{{"{tag}":{{{fields}}} }}"#)));
            }
            // A repeated, unknown or missing key, and an unknown operator.
            for fields in [
                format!(r#""left":{a},"op":"{op}","right":{b},"left":{a}"#),
                format!(r#""left":{a},"op":"{op}","right":{b},"op":"{op}""#),
                format!(r#""left":{a},"op":"{op}","op":"{op}","right":{b}"#),
                format!(r#""left":{a},"left":{a},"op":"{op}","right":{b}"#),
                format!(r#""left":{a},"op":"{op}","right":{b},"x":1"#),
                format!(r#""left":{a},"op":"{op}""#),
                format!(r#""left":{a},"right":{b}"#),
                format!(r#""left":{a}"#),
                format!(r#""left":{a},"op":"Div","right":{b}"#),
                format!(r#""left":{a},"op":"{op}x","right":{b}"#),
                format!(r#""left":{a},"op":"{op}","right":{b},"#),
            ] {
                assert!(declined(&ret(&format!(r#"{{"{tag}":{{{fields}}}}}"#))).is_err(), "{fields}");
            }
            assert!(declined(&ret(&format!(r#"{{"{tag}":{{"left":{a},"op":"{op}","right":{b}}},"x":1}}"#))).is_err());
            let escaped = format!(r#"{{"{tag}":{{"left":{{"Var":"a\u0062"}},"op":"{op}","right":{b}}}}}"#);
            assert!(declined(&ret(&escaped)).is_ok());
        }
        // `VarDecl`, `Assign`, `If` and `While` the same way.
        let forms = [
            ("VarDecl", vec![r#""name":"v""#, r#""ty":"Bool""#, r#""init":{"Var":"a"}"#]),
            ("Assign", vec![r#""name":"v""#, r#""value":{"Var":"a"}"#]),
            ("If", vec![r#""cond":{"Var":"a"}"#, r#""then_body":["Break"]"#, r#""else_body":[]"#]),
            ("While", vec![r#""cond":{"Var":"a"}"#, r#""body":[{"Return":null}]"#]),
        ];
        for (tag, fields) in forms {
            let stmt = |fields: &[&str]| with_body(&format!(r#"{{"{tag}":{{{}}}}}"#, fields.join(",")));
            accepted(&stmt(&fields));
            accepted(&with_body(&format!(r#"{{"{tag}":{{{}}} }}"#, fields.join(","))));
            accepted(&with_body(&format!(r#"{{"{tag}":{{{} }}}}"#, fields.join(" ,"))));
            let mut reversed = fields.clone();
            reversed.reverse();
            accepted(&stmt(&reversed));
            for at in 0..fields.len() {
                let mut repeated = fields.clone();
                repeated.insert(at + 1, fields[at]);
                assert!(declined(&stmt(&repeated)).is_err(), "{repeated:?}");
                let mut missing = fields.clone();
                missing.remove(at);
                // Only a `VarDecl`'s `init` may be missing.
                if tag == "VarDecl" && at == 2 {
                    accepted(&stmt(&missing));
                } else {
                    assert!(declined(&stmt(&missing)).is_err(), "{missing:?}");
                }
            }
            let mut extra = fields.clone();
            extra.push(r#""x":1"#);
            assert!(declined(&stmt(&extra)).is_err(), "{extra:?}");
        }
        let var_decl = r#""name":"v","ty":{"Int":{"bits":8,"signed":false}}"#;
        for stmt in [
            format!(r#"{{"VarDecl":{{{var_decl},"init":null}}}}"#),
            format!(r#"{{"VarDecl":{{{var_decl},"init":{b}}}}}"#),
            format!(r#"{{"VarDecl":{{{var_decl}}}}}"#),
            r#"{"Return":null}"#.to_owned(),
            r#"{"Return":null }"#.to_owned(),
            format!(r#"{{"ExprStmt":{a}}}"#),
            format!(r#"{{"ExprStmt":{a} }}"#),
        ] {
            accepted(&with_body(&stmt));
        }
        for stmt in [
            format!(r#"{{"VarDecl":{{{var_decl},"init":null,"init":null}}}}"#),
            format!(r#"{{"VarDecl":{{{var_decl},"ty":"Bool"}}}}"#),
            format!(r#"{{"VarDecl":{{{var_decl}}},"init":null}}"#),
            format!(r#"{{"ExprStmt":{a},"Return":null}}"#),
            r#"{"Return":null,"Break":null}"#.to_owned(),
            r#"{"Return":nul}"#.to_owned(),
            r#"{"Assign":{"name":"v","value":{"Var":"a"}}"#.to_owned(),
        ] {
            assert!(declined(&with_body(&stmt)).is_err(), "{stmt}");
        }
        assert!(declined(&with_body(r#"{"Assign":{"name":"\u0076","value":{"Var":"a"}}}"#)).is_ok());
    }

    #[test]
    fn straight_paths_keep_the_depth_limit_and_read_children_once() {
        // Nested operands, compact and spaced after each child (which the
        // straight path must not answer by reading the children again: at
        // this depth that would take 2^46 steps), and nested statements.
        let nested = |depth: usize, gap: &str| {
            let mut expr = r#"{"Var":"a"}"#.to_owned();
            for level in 0..depth {
                let tag = if level % 2 == 0 { "Binary" } else { "Cmp" };
                let op = if level % 2 == 0 { "Mul" } else { "Lt" };
                expr = format!(r#"{{"{tag}":{{"left":{expr}{gap},"op":"{op}","right":{expr}{gap}}}}}"#);
                expr = expr.replacen(r#"{"Var":"a"}"#, r#"{"Var":"b"}"#, 1);
            }
            with_body(&format!(r#"{{"Return":{expr}}}"#))
        };
        let chain = |depth: usize, gap: &str| {
            let expr = (0..depth).fold(r#"{"Var":"a"}"#.to_owned(), |expr, _| {
                format!(r#"{{"Binary":{{"left":{expr}{gap},"op":"Add","right":{{"Var":"b"}}{gap}}}}}"#)
            });
            with_body(&format!(r#"{{"ExprStmt":{expr}}}"#))
        };
        let blocks = |depth: usize| {
            let body = (0..depth).fold(r#"{"Return":null}"#.to_owned(), |body, level| {
                if level % 2 == 0 {
                    format!(r#"{{"If":{{"cond":{{"Var":"a"}},"then_body":[{body}],"else_body":[]}}}}"#)
                } else {
                    format!(r#"{{"While":{{"cond":{{"Var":"a"}},"body":[{body}]}}}}"#)
                }
            });
            with_body(&body)
        };
        accepted(&nested(3, ""));
        accepted(&nested(3, " "));
        for gap in ["", " "] {
            // The envelope, the program, the function list, the function, the
            // body and the `ExprStmt` hold six levels; each operator two more,
            // and the innermost `Var` one.
            accepted(&chain(46, gap));
            assert!(declined(&chain(47, gap)).is_ok());
            assert!(declined(&chain(70, gap)).is_err());
        }
        // Each statement holds two levels and its list one more.
        accepted(&blocks(31));
        assert!(declined(&blocks(32)).is_ok());
        assert!(declined(&blocks(50)).is_err());
    }

    #[test]
    fn enums_have_exactly_one_tag() {
        let body = [
            r#"{"Return": {"Var": "a", "Lit": {"Bool": true}}}"#,
            r#"{"Return": {"Var": "a"}, "Break": null}"#,
            r#"{"Return": {}}"#,
            r#"{}"#,
            r#""Return""#,
            r#""ExprStmt""#,
            r#"{"Break": 1}"#,
            r#"{"Break": {}}"#,
            r#"{"Return": {"Call": {"callee": "Direct", "args": []}}}"#,
            r#"{"VarDecl": {"name": "v", "ty": "Int"}}"#,
            r#"{"VarDecl": {"name": "v", "ty": {"Int": [8, true]}}}"#,
            r#"{"VarDecl": {"name": "v", "ty": {"Int": {"bits": 8, "signed": 1}}}}"#,
            r#"{"Return": {"Binary": {"left": {"Var": "a"}, "op": "Div", "right": {"Var": "b"}}}}"#,
            r#"{"Return": {"Lit": {"Bool": True}}}"#,
            r#"{"Return": nul}"#,
            r#"{"Return": nullx}"#,
            r#""Brake""#,
        ];
        for stmt in body {
            assert!(declined(&with_body(stmt)).is_err(), "{stmt}");
        }
    }

    #[test]
    fn envelope_versions_features_and_trailing_content() {
        let program = r#"{"declarations":[],"globals":[],"functions":[]}"#;
        let text = envelope(program);
        accepted(&text);
        let with = |from: &str, to: &str| {
            let edited = text.replacen(from, to, 1);
            assert_ne!(edited, text);
            declined(&edited)
        };
        assert_eq!(with(r#""format_version":2"#, r#""format_version":1"#), Err(DecodeError::FormatVersion(1)));
        assert_eq!(with(r#""semantics_version":1"#, r#""semantics_version":2"#), Err(DecodeError::SemanticsVersion(2)));
        assert_eq!(with(r#""features":[]"#, r#""features":["x"]"#), Err(DecodeError::Features(vec!["x".into()])));
        assert!(with(r#""features":[],"#, "").is_err());
        assert!(with(r#""features":[],"#, r#""features":[],"features":[],"#).is_err());
        assert!(with(r#""format_version":2"#, r#""format_version":2.0"#).is_err());
        for tail in [" null", "}", " {}", "x", ",", "\u{0}", "\u{a0}"] {
            assert!(declined(&format!("{text}{tail}")).is_err(), "{tail:?}");
        }
        for head in ["\u{feff}", "x", "[", "\u{c}"] {
            assert!(declined(&format!("{head}{text}")).is_err(), "{head:?}");
        }
        assert!(declined("").is_err());
        assert!(declined(&text[..text.len() - 1]).is_err());
    }

    #[test]
    fn deep_nesting_is_declined() {
        // Each `Ptr` is one more object; the envelope and the function hold eight.
        let nested = |depth: usize| {
            let ty = format!("{}\"Bool\"{}", "{\"Ptr\":".repeat(depth), "}".repeat(depth));
            with_function(&format!(
                r#"{{"convention":"Whale","linkage":"Internal","name":"f","parameters":[],"return_type":{ty},"body":[]}}"#
            ))
        };
        accepted(&nested(MAX_DEPTH as usize - 4));
        // Declined while serde still reads it, and well past serde's limit.
        assert!(declined(&nested(MAX_DEPTH as usize)).is_ok());
        assert!(declined(&nested(200)).is_err());
        let arrays = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(declined(&arrays).is_err());
        let objects = with_body(&format!("{}{}", "{\"Return\":".repeat(10_000), "}".repeat(10_000)));
        assert!(declined(&objects).is_err());
    }
}
