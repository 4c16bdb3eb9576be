//! A fast reader of the common AST format-2 JSON texts straight into a
//! [`tree::Program`] in a bump arena.
//!
//! The strict decoder ([`super::interchange`]) goes through serde_json and the
//! derived owned types: a `Box` or `String` per node, every byte of layout read
//! one at a time. Here one recursive-descent pass over the bytes builds borrowed
//! nodes instead: names and literal strings are slices of the text, children are
//! collected on reusable scratch stacks (one per node kind, each list owning the
//! entries above the length it found) and copied into the arena once complete,
//! and runs of indentation are skipped eight bytes at a time.
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

/// Stores the value of a field, declining a repeated one.
fn set<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    match slot {
        Some(_) => None,
        None => {
            *slot = Some(value);
            Some(())
        }
    }
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
        loop {
            // Indentation: spaces compared eight at a time.
            while let Some(chunk) = self.bytes.get(self.pos..).and_then(<[u8]>::first_chunk::<8>) {
                let differ = u64::from_le_bytes(*chunk) ^ SPACES;
                if differ != 0 {
                    self.pos += (differ.trailing_zeros() / 8) as usize;
                    break;
                }
                self.pos += 8;
            }
            match self.bytes.get(self.pos) {
                Some(b' ' | b'\n' | b'\t' | b'\r') => self.pos += 1,
                _ => return,
            }
        }
    }

    /// The next byte after whitespace, not consumed.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.skip_whitespace();
        self.bytes.get(self.pos).copied()
    }

    /// Consumes `byte` after whitespace.
    #[inline]
    fn expect(&mut self, byte: u8) -> Option<()> {
        if self.peek()? != byte {
            return None;
        }
        self.pos += 1;
        Some(())
    }

    /// Consumes the next byte after whitespace.
    #[inline]
    fn next_byte(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.pos += 1;
        Some(byte)
    }

    /// Consumes `word` after whitespace if it comes next. A word running on
    /// (`nullx`) leaves bytes the caller's next token does not accept.
    #[inline]
    fn keyword(&mut self, word: &[u8]) -> bool {
        self.skip_whitespace();
        let found = self.bytes.get(self.pos..).is_some_and(|rest| rest.starts_with(word));
        if found {
            self.pos += word.len();
        }
        found
    }

    fn null(&mut self) -> Option<()> {
        self.keyword(b"null").then_some(())
    }

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
    #[inline]
    fn string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
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
    #[inline(always)]
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

    fn bits(&mut self) -> Option<u16> {
        u16::try_from(self.integer(u64::from(u16::MAX))?).ok()
    }

    // ---- containers ------------------------------------------------------------------

    /// Consumes `open` (`{` or `[`), one level deeper.
    fn open(&mut self, open: u8) -> Option<()> {
        self.expect(open)?;
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// Consumes `close` (`}` or `]`), one level up.
    fn close(&mut self, close: u8) -> Option<()> {
        self.expect(close)?;
        self.depth -= 1;
        Some(())
    }

    /// An object whose keys and values `field` reads; it declines unknown keys
    /// and its caller missing ones.
    #[inline]
    fn object(&mut self, mut field: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.open(b'{')?;
        loop {
            let key = self.word()?;
            self.expect(b':')?;
            field(self, key)?;
            match self.next_byte()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
        self.depth -= 1;
        Some(())
    }

    /// An enum value in its object form, `{"Tag": payload}`: exactly one key,
    /// whose payload `payload` reads.
    #[inline]
    fn variant<T>(&mut self, payload: impl FnOnce(&mut Self, &'a [u8]) -> Option<T>) -> Option<T> {
        self.open(b'{')?;
        let tag = self.word()?;
        self.expect(b':')?;
        let value = payload(self, tag)?;
        self.close(b'}')?;
        Some(value)
    }

    /// A unit-only enum: the bare string `"Tag"` or `{"Tag": null}`.
    fn unit<T>(&mut self, from_tag: fn(&[u8]) -> Option<T>) -> Option<T> {
        if self.peek()? == b'"' {
            return from_tag(self.word()?);
        }
        self.variant(|r, tag| {
            let value = from_tag(tag)?;
            r.null()?;
            Some(value)
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

    fn envelope(&mut self) -> Option<tree::Program<'a>> {
        let (mut format, mut semantics, mut features, mut program) = (None, None, None, None);
        self.object(|r, key| match key {
            b"format_version" => set(&mut format, r.integer(u64::MAX)?),
            b"semantics_version" => set(&mut semantics, r.integer(u64::MAX)?),
            b"features" => {
                r.open(b'[')?;
                r.close(b']')?;
                set(&mut features, ())
            }
            b"program" => set(&mut program, r.program()?),
            _ => None,
        })?;
        features?;
        let supported = format? == u64::from(AST_FORMAT_VERSION) && semantics? == SEMANTICS_VERSION;
        supported.then_some(program?)
    }

    fn program(&mut self) -> Option<tree::Program<'a>> {
        let (mut declarations, mut globals, mut functions) = (None, None, None);
        self.object(|r, key| match key {
            b"declarations" => set(&mut declarations, r.list(|s| &mut s.declarations, Self::declaration)?),
            b"globals" => set(&mut globals, r.list(|s| &mut s.globals, Self::global)?),
            b"functions" => set(&mut functions, r.list(|s| &mut s.functions, Self::function)?),
            _ => None,
        })?;
        Some(tree::Program { declarations: declarations?, globals: globals?, functions: functions? })
    }

    fn declaration(&mut self) -> Option<FunctionDeclaration<'a>> {
        let (mut name, mut signature, mut linkage, mut link_name) = (None, None, None, None);
        self.object(|r, key| match key {
            b"name" => set(&mut name, r.string()?),
            b"signature" => set(&mut signature, r.signature()?),
            b"linkage" => set(&mut linkage, r.linkage()?),
            b"link_name" => set(&mut link_name, r.optional_string()?),
            _ => None,
        })?;
        Some(FunctionDeclaration {
            name: name?,
            signature: signature?,
            linkage: linkage?,
            link_name: link_name.flatten(),
        })
    }

    fn global(&mut self) -> Option<GlobalConst<'a>> {
        let (mut name, mut ty, mut init) = (None, None, None);
        self.object(|r, key| match key {
            b"name" => set(&mut name, r.string()?),
            b"ty" => set(&mut ty, r.ty()?),
            b"init" => set(&mut init, r.expr()?),
            _ => None,
        })?;
        Some(GlobalConst { name: name?, ty: ty?, init: init? })
    }

    fn function(&mut self) -> Option<Function<'a>> {
        let (mut convention, mut linkage, mut link_name, mut name) = (None, None, None, None);
        let (mut parameters, mut return_type, mut body) = (None, None, None);
        self.object(|r, key| match key {
            b"convention" => set(&mut convention, r.convention()?),
            b"linkage" => set(&mut linkage, r.linkage()?),
            b"link_name" => set(&mut link_name, r.optional_string()?),
            b"name" => set(&mut name, r.string()?),
            b"parameters" => set(&mut parameters, r.list(|s| &mut s.params, Self::param)?),
            b"return_type" => set(&mut return_type, r.ty()?),
            b"body" => set(&mut body, r.stmts()?),
            _ => None,
        })?;
        Some(Function {
            convention: convention?,
            linkage: linkage?,
            link_name: link_name.flatten(),
            name: name?,
            parameters: parameters?,
            return_type: return_type?,
            body: body?,
        })
    }

    fn param(&mut self) -> Option<Param<'a>> {
        let (mut name, mut ty) = (None, None);
        self.object(|r, key| match key {
            b"name" => set(&mut name, r.string()?),
            b"ty" => set(&mut ty, r.ty()?),
            _ => None,
        })?;
        Some(Param { name: name?, ty: ty? })
    }

    fn signature(&mut self) -> Option<Signature<'a>> {
        let (mut params, mut ret, mut convention, mut variadic) = (None, None, None, None);
        self.object(|r, key| match key {
            b"params" => set(&mut params, r.list(|s| &mut s.types, Self::ty)?),
            b"ret" => set(&mut ret, r.ty()?),
            b"convention" => set(&mut convention, r.convention()?),
            b"variadic" => set(&mut variadic, r.boolean()?),
            _ => None,
        })?;
        Some(Signature { params: params?, ret: ret?, convention: convention?, variadic: variadic? })
    }

    fn convention(&mut self) -> Option<Convention> {
        self.unit(|tag| match tag {
            b"Whale" => Some(Convention::Whale),
            b"SysV64" => Some(Convention::SysV64),
            _ => None,
        })
    }

    fn linkage(&mut self) -> Option<Linkage> {
        self.unit(|tag| match tag {
            b"Internal" => Some(Linkage::Internal),
            b"External" => Some(Linkage::External),
            _ => None,
        })
    }

    // ---- types -----------------------------------------------------------------------

    fn ty(&mut self) -> Option<Type<'a>> {
        if self.peek()? == b'"' {
            return match self.word()? {
                b"Void" => Some(Type::Void),
                b"Bool" => Some(Type::Bool),
                _ => None,
            };
        }
        self.variant(|r, tag| match tag {
            b"Int" => {
                let (mut bits, mut signed) = (None, None);
                r.object(|r, key| match key {
                    b"bits" => set(&mut bits, r.bits()?),
                    b"signed" => set(&mut signed, r.boolean()?),
                    _ => None,
                })?;
                Some(Type::Int { bits: bits?, signed: signed? })
            }
            b"Float" => {
                let mut bits = None;
                r.object(|r, key| match key {
                    b"bits" => set(&mut bits, r.bits()?),
                    _ => None,
                })?;
                Some(Type::Float { bits: bits? })
            }
            b"Ptr" => Some(Type::Ptr(r.bump.alloc(r.ty()?))),
            b"Array" => {
                let (mut elem, mut len) = (None, None);
                r.object(|r, key| match key {
                    b"elem" => set(&mut elem, r.ty()?),
                    b"len" => set(&mut len, r.integer(u64::MAX)?),
                    _ => None,
                })?;
                Some(Type::Array { elem: r.bump.alloc(elem?), len: len? })
            }
            b"Opaque" => Some(Type::Opaque(r.string()?)),
            b"Void" => r.null().map(|()| Type::Void),
            b"Bool" => r.null().map(|()| Type::Bool),
            b"FnPtr" => Some(Type::FnPtr(r.bump.alloc(r.signature()?))),
            _ => None,
        })
    }

    // ---- expressions -----------------------------------------------------------------

    fn literal(&mut self) -> Option<Literal<'a>> {
        self.variant(|r, tag| match tag {
            b"Bool" => Some(Literal::Bool(r.boolean()?)),
            b"Int" => {
                let (mut bits, mut signed, mut value) = (None, None, None);
                r.object(|r, key| match key {
                    b"bits" => set(&mut bits, r.bits()?),
                    b"signed" => set(&mut signed, r.boolean()?),
                    b"value" => set(&mut value, r.string()?),
                    _ => None,
                })?;
                Some(Literal::Int { bits: bits?, signed: signed?, value: value? })
            }
            b"Float" => {
                let (mut bits, mut value) = (None, None);
                r.object(|r, key| match key {
                    b"bits" => set(&mut bits, r.bits()?),
                    b"value" => set(&mut value, r.string()?),
                    _ => None,
                })?;
                Some(Literal::Float { bits: bits?, value: value? })
            }
            _ => None,
        })
    }

    fn expr(&mut self) -> Option<Expr<'a>> {
        self.variant(|r, tag| match tag {
            b"Var" => Some(Expr::Var(r.string()?)),
            b"Lit" => Some(Expr::Lit(r.literal()?)),
            b"Binary" => {
                let (left, op, right) = r.operands(Self::binary_op)?;
                Some(Expr::Binary { left, op, right })
            }
            b"Cmp" => {
                let (left, op, right) = r.operands(Self::cmp_op)?;
                Some(Expr::Cmp { left, op, right })
            }
            b"FunctionRef" => Some(Expr::FunctionRef(r.string()?)),
            b"Call" => {
                let (mut callee, mut args) = (None, None);
                r.object(|r, key| match key {
                    b"callee" => set(&mut callee, r.callee()?),
                    b"args" => set(&mut args, r.list(|s| &mut s.exprs, Self::expr)?),
                    _ => None,
                })?;
                Some(Expr::Call { callee: callee?, args: args? })
            }
            b"NullFunction" => Some(Expr::NullFunction(r.bump.alloc(r.signature()?))),
            _ => None,
        })
    }

    /// An expression in the arena.
    fn boxed_expr(&mut self) -> Option<&'a Expr<'a>> {
        let expr = self.expr()?;
        Some(self.bump.alloc(expr))
    }

    /// The `left`, `op` and `right` fields of `Binary` and `Cmp`.
    fn operands<Op>(&mut self, op: fn(&mut Self) -> Option<Op>) -> Option<(&'a Expr<'a>, Op, &'a Expr<'a>)> {
        let (mut left, mut operator, mut right) = (None, None, None);
        self.object(|r, key| match key {
            b"left" => set(&mut left, r.boxed_expr()?),
            b"op" => set(&mut operator, op(r)?),
            b"right" => set(&mut right, r.boxed_expr()?),
            _ => None,
        })?;
        Some((left?, operator?, right?))
    }

    fn binary_op(&mut self) -> Option<BinaryOp> {
        self.unit(|tag| match tag {
            b"Add" => Some(BinaryOp::Add),
            b"Sub" => Some(BinaryOp::Sub),
            b"Mul" => Some(BinaryOp::Mul),
            _ => None,
        })
    }

    fn cmp_op(&mut self) -> Option<CmpOp> {
        self.unit(|tag| match tag {
            b"Eq" => Some(CmpOp::Eq),
            b"Ne" => Some(CmpOp::Ne),
            b"Lt" => Some(CmpOp::Lt),
            b"Le" => Some(CmpOp::Le),
            b"Gt" => Some(CmpOp::Gt),
            b"Ge" => Some(CmpOp::Ge),
            _ => None,
        })
    }

    fn callee(&mut self) -> Option<Callee<'a>> {
        self.variant(|r, tag| match tag {
            b"Direct" => Some(Callee::Direct(r.string()?)),
            b"Indirect" => Some(Callee::Indirect(r.boxed_expr()?)),
            _ => None,
        })
    }

    // ---- statements ------------------------------------------------------------------

    fn stmts(&mut self) -> Option<&'a [Stmt<'a>]> {
        self.list(|s| &mut s.stmts, Self::stmt)
    }

    fn stmt(&mut self) -> Option<Stmt<'a>> {
        if self.peek()? == b'"' {
            return match self.word()? {
                b"Break" => Some(Stmt::Break),
                b"Continue" => Some(Stmt::Continue),
                _ => None,
            };
        }
        self.variant(|r, tag| match tag {
            b"Return" => {
                if r.keyword(b"null") {
                    Some(Stmt::Return(None))
                } else {
                    Some(Stmt::Return(Some(r.expr()?)))
                }
            }
            b"ConstDecl" => {
                let (mut name, mut ty, mut init) = (None, None, None);
                r.object(|r, key| match key {
                    b"name" => set(&mut name, r.string()?),
                    b"ty" => set(&mut ty, r.ty()?),
                    b"init" => set(&mut init, r.expr()?),
                    _ => None,
                })?;
                Some(Stmt::ConstDecl { name: name?, ty: ty?, init: init? })
            }
            b"VarDecl" => {
                let (mut name, mut ty, mut init) = (None, None, None);
                r.object(|r, key| match key {
                    b"name" => set(&mut name, r.string()?),
                    b"ty" => set(&mut ty, r.ty()?),
                    b"init" => set(&mut init, if r.keyword(b"null") { None } else { Some(r.expr()?) }),
                    _ => None,
                })?;
                Some(Stmt::VarDecl { name: name?, ty: ty?, init: init.flatten() })
            }
            b"Assign" => {
                let (mut name, mut value) = (None, None);
                r.object(|r, key| match key {
                    b"name" => set(&mut name, r.string()?),
                    b"value" => set(&mut value, r.expr()?),
                    _ => None,
                })?;
                Some(Stmt::Assign { name: name?, value: value? })
            }
            b"ExprStmt" => Some(Stmt::ExprStmt(r.expr()?)),
            b"If" => {
                let (mut cond, mut then_body, mut else_body) = (None, None, None);
                r.object(|r, key| match key {
                    b"cond" => set(&mut cond, r.expr()?),
                    b"then_body" => set(&mut then_body, r.stmts()?),
                    b"else_body" => set(&mut else_body, r.stmts()?),
                    _ => None,
                })?;
                Some(Stmt::If { cond: cond?, then_body: then_body?, else_body: else_body? })
            }
            b"While" => {
                let (mut cond, mut body) = (None, None);
                r.object(|r, key| match key {
                    b"cond" => set(&mut cond, r.expr()?),
                    b"body" => set(&mut body, r.stmts()?),
                    _ => None,
                })?;
                Some(Stmt::While { cond: cond?, body: body? })
            }
            b"Break" => r.null().map(|()| Stmt::Break),
            b"Continue" => r.null().map(|()| Stmt::Continue),
            _ => None,
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
