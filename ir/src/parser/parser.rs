//! Recursive descent over the token stream, one token of lookahead, building the
//! module's tables directly (we are inside the crate).
//!
//! One function per grammar rule; instructions dispatch on
//! `Opcode::from_mnemonic(word)` and then on the opcode's [`Shape`], so there is
//! no second list of mnemonics. Types and constant expressions are the only
//! recursive rules; each level goes through a depth guard, so hostile nesting
//! ends in a [`LimitError`] long before the stack could overflow.
//!
//! Types are stored once, on values. Where the text restates a type that the
//! model already holds (the `T` of `add T`, an operand's `T %v`, a call's
//! convention and return type, `ret T`), the reader compares the two and reports
//! "conflicting type annotations". An operand used before its definition (later
//! blocks may dominate earlier ones) is checked at the end of its function.
//!
//! Format 2 prints neither parameter ids nor block ids; they are inferred by the
//! canonical numbering of whale-ir §3: a function's parameters take the value ids
//! after the highest id of the previous function, and its blocks the block ids
//! after the previous function's blocks. A result id that collides with such an
//! inferred parameter id is rejected. Formats 3 and 4 state every id.
//!
//! Every id read from the text is range-checked against
//! [`IrLimits::largest_id_for`] before a table grows to hold it. A [`SourceMap`]
//! keeps the start offset of every block label, parameter, function,
//! declaration and global, so that a [`VerifyError`] found after parsing is
//! reported at the text it concerns; instruction offsets are recorded by a
//! second read, only when the error is at an instruction.
//!
//! Lines spelled exactly as the printer writes them are read by the fast path
//! of `fast.rs`, which builds the same tables as the rules here (or leaves the
//! line to them).

#[path = "fast.rs"]
mod fast;

use rustc_hash::{FxHashMap, FxHashSet};

use super::error::{ParseError, ParseErrorKind, SourceLocation};
use super::lexer::{unescape, Lexer, Token, TokenKind, NO_NUMBER};
use crate::build_error::CallError;
use crate::const_expr::{ConstBinOp, ConstCmpOp, ConstExpr, ConstExprKind, ConstRef};
use crate::constant::{ConstValue, FloatBits, FloatParseError};
use crate::entity::{
    BlockId, ConstDeclId, ConstId, EntityRef, FunctionId, GlobalId, PackedOption, SigId, StrId, TypeId, ValueId,
};
use crate::inst::InstData;
use crate::limits::{IrLimits, LimitError, Resource};
use crate::local_ids::{LocalIds, SpanBudget};
use crate::module::{
    encode_const, BlockData, ConstDeclData, DeclData, FunctionData, GlobalData, LaidOut, Linkage, Module, Param, Span,
    VACANT,
};
use crate::opcode::{CmpOp, FCmpPred, ICmpPred, Opcode, ResultRule, Shape};
use crate::target::{DataLayout, Endian};
use crate::types::{CallingConvention, SigKey, TypeKey};
use crate::verifier::{verify_module, VerifyError};

/// Internal results carry a boxed error so that `Result<TypeId, _>` stays small.
pub(crate) type PResult<T> = Result<T, Box<ParseError>>;

/// An error at byte `at`; line and column are filled in on the way out.
#[cold]
#[inline(never)]
pub(crate) fn fail<T>(at: usize, kind: ParseErrorKind) -> PResult<T> {
    Err(Box::new(ParseError { location: SourceLocation { byte_offset: at, line: 0, column: 0 }, kind }))
}

/// Reads and verifies `src`; `fast` enables the fast path for printed
/// instruction lines (`fast.rs`), which changes nothing but speed.
pub(crate) fn parse(src: &str, limits: IrLimits, fast: bool) -> Result<Module, ParseError> {
    parse_unlocated(src, limits, fast).map_err(|error| {
        let mut error = *error;
        error.location = SourceLocation::of_offset(src, error.location.byte_offset);
        error
    })
}

fn parse_unlocated(src: &str, limits: IrLimits, fast: bool) -> PResult<Module> {
    if let Err(e) = limits.validate() {
        return fail(0, ParseErrorKind::ResourceLimit(e));
    }
    // Offsets are stored as u32, so 4 GiB is a hard ceiling whatever the limits say.
    let max_bytes = limits.max_input_bytes.min(u32::MAX as usize - 1);
    if src.len() > max_bytes {
        let limit = LimitError { resource: Resource::InputBytes, limit: max_bytes as u64 };
        return fail(max_bytes, ParseErrorKind::ResourceLimit(limit));
    }
    let Parser { mut m, map, .. } = read(src, limits, fast, false)?;
    m.insts.shrink_to_fit();
    m.inst_results.shrink_to_fit();
    m.value_types.shrink_to_fit();
    m.blocks.shrink_to_fit();
    m.pool.shrink_to_fit();
    if let Err(error) = verify_module(&m) {
        // Instruction offsets are not kept while reading (they would cost 4
        // bytes per instruction for the error path only): when the error is
        // at an instruction, read the text again, recording them. Reading is
        // deterministic, so the instruction ids are the same.
        let map = match error.inst() {
            Some(_) => read(src, limits, fast, true)?.map,
            None => map,
        };
        let at = map.locate(&m, &error);
        return fail(at as usize, ParseErrorKind::Verification(Box::new(error)));
    }
    Ok(m)
}

/// Reads `src` (without verifying it); `record_insts` keeps the offset of
/// every instruction in the source map.
fn read(src: &str, limits: IrLimits, fast: bool, record_insts: bool) -> PResult<Parser<'_>> {
    let mut p = Parser::new(src, limits)?;
    // Counted tokens must all come from the lexer.
    p.fast = fast && !p.lexer.counts_tokens();
    p.record_insts = record_insts;
    // A printed instruction takes 40 to 50 bytes. Reserving one per 32 bytes of
    // input (never from numbers in it) avoids regrowth copies; capacity never
    // written is never paged in, and `shrink_to_fit` returns it.
    let estimate = src.len() / 32;
    p.m.insts.reserve(estimate);
    p.m.inst_results.reserve(estimate);
    p.m.value_types.reserve(estimate);
    if record_insts {
        p.map.insts.reserve(estimate);
    }
    p.module()?;
    Ok(p)
}

/// Start offsets of the items of a parsed module, by id.
#[derive(Default)]
pub(crate) struct SourceMap {
    target: u32,
    globals: Vec<u32>,
    declarations: Vec<u32>,
    functions: Vec<u32>,
    params: Vec<u32>,
    /// By [`BlockId`]; `VACANT` where no label defines the id.
    blocks: Vec<u32>,
    /// By [`crate::InstId`]; only when the parser records them (see `read`).
    insts: Vec<u32>,
}

impl SourceMap {
    /// The offset of the text a verification error concerns (0 if unknown).
    fn locate(&self, m: &Module, error: &VerifyError) -> u32 {
        // Instruction and block ids are scoped to their function: find it first.
        let body = (error.inst().is_some() || error.block().is_some())
            .then(|| crate::verifier::function_of_error(m, error))
            .flatten()
            .map(|index| &m.functions[index]);
        if let Some(f) = body {
            let inst = error.inst().filter(|i| i.as_u32() < f.insts.len);
            if let Some(&at) = inst.and_then(|i| self.insts.get(f.insts.start as usize + i.index())) {
                return at;
            }
            let block = error.block().map(|b| b.as_u32().wrapping_sub(f.block_base)).filter(|&k| k < f.blocks.len);
            if let Some(&at) =
                block.and_then(|k| self.blocks.get((f.blocks.start + k) as usize)).filter(|&&at| at != VACANT)
            {
                return at;
            }
        }
        let function = |name: &str, nth: usize| {
            m.functions
                .iter()
                .enumerate()
                .filter(|(_, f)| m.str(f.name) == name)
                .nth(nth)
                .map(|(i, _)| self.functions[i])
        };
        let global = |name: &str, nth: usize| {
            m.globals.iter().enumerate().filter(|(_, g)| m.str(g.name) == name).nth(nth).map(|(i, _)| self.globals[i])
        };
        let declaration =
            |name: &str| m.declarations.iter().position(|d| m.str(d.name) == name).map(|i| self.declarations[i]);
        let found = match error {
            VerifyError::Target(_) => Some(self.target),
            VerifyError::DuplicateGlobal { name } => global(name, 1),
            VerifyError::InvalidGlobalInitializer { name, .. } | VerifyError::InvalidGlobalAlignment { name, .. } => {
                global(name, 0)
            }
            VerifyError::InvalidConstExpression { scope, declaration, .. } if scope == "module" => {
                global(declaration, 0)
            }
            VerifyError::InvalidConstExpression { scope, .. } => function(scope, 0),
            VerifyError::DuplicateFunction { name } => function(name, 1),
            VerifyError::VoidParameter { func, param } => m
                .functions
                .iter()
                .find(|f| m.str(f.name) == func.as_str())
                .and_then(|f| self.params.get(f.params.start as usize + param))
                .copied(),
            VerifyError::Call { func, reason, .. } => match reason {
                CallError::DefinitionMismatch(_)
                | CallError::UnknownFunction(_)
                | CallError::DuplicateDefinition(_) => function(func, 0).or_else(|| declaration(func)),
                CallError::InvalidSignature(text) if text.starts_with("malformed") => function(func, 0),
                _ => declaration(func).or_else(|| function(func, 0)),
            },
            VerifyError::InvalidEntryBlock { func, .. } | VerifyError::ForeignBlock { func, .. } => function(func, 0),
            _ => None,
        };
        found.unwrap_or(0)
    }
}

/// A restated type checked once the value it restates is defined.
#[derive(Clone, Copy)]
enum Pending {
    /// `T %v`: `%v` must have type `T`.
    Operand { value: ValueId, ty: TypeId, at: u32 },
    /// `call CONV R indirect %v`: `%v` should be `fnptr<CONV (..) -> R>`.
    Indirect { value: ValueId, conv: CallingConvention, conv_at: u32, ret: TypeId, ret_at: u32 },
}

/// `call CONV R @fK`, checked against the declaration at the end of the module.
#[derive(Clone, Copy)]
struct PendingCall {
    callee: FunctionId,
    conv: CallingConvention,
    conv_at: u32,
    ret: TypeId,
    ret_at: u32,
}

struct Parser<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    /// The lookahead token.
    tok: Token,
    limits: IrLimits,
    max_id: u32,
    nodes: u64,
    type_depth: u32,
    const_depth: u32,
    /// 2, 3 or 4.
    format: u32,
    /// Whether the body loop tries the fast path first.
    fast: bool,
    m: Module,
    map: SourceMap,
    /// The open function's values (with their types) and blocks (with their
    /// label's offset), by their function-scoped ids.
    local_values: LocalIds<TypeId>,
    local_blocks: LocalIds<(BlockData, u32)>,
    /// Vacant entries the laid-out id tables may still take (sparse ids must
    /// not make the tables much larger than the text).
    span_budget: SpanBudget,
    /// The open function's first instruction in the module's table.
    func_first_inst: usize,
    /// Whether `map.insts` is kept.
    record_insts: bool,
    values: u64,
    block_count: u64,
    global_ids: FxHashSet<GlobalId>,
    /// The signature of the first declaration of each function id (ids in
    /// format 4 need not be dense, and a scan per call would be quadratic).
    declared: FxHashMap<FunctionId, SigId>,
    /// Format 2: the id of the next function's first parameter and first block.
    next_value: u64,
    next_block: u64,
    // The function being read.
    func: u32,
    func_ret: TypeId,
    current_block: Option<BlockId>,
    terminated: bool,
    pending: Vec<Pending>,
    pending_calls: Vec<PendingCall>,
    // Scratch.
    list: Vec<u32>,
    type_stack: Vec<TypeId>,
    /// The fast path's parameters: name span, value, type, offset.
    fast_params: Vec<(u32, u32, u32, TypeId, u32)>,
    /// The fast path's recently interned short names, by word key.
    name_cache: [Option<(u64, StrId)>; fast::NAME_CACHE],
    /// The fast path's last declared signature: convention, result, id, and
    /// its parameters.
    last_signature: Option<(CallingConvention, TypeId, SigId)>,
    last_params: Vec<TypeId>,
    /// Lines the fast path read (declarations, headers, labels, instructions).
    #[cfg(test)]
    fast_reads: usize,
    text: String,
}

fn parse_u64(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > 20 {
        return None;
    }
    let mut n: u64 = 0;
    for &b in bytes {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(n)
}

fn parse_u128(text: &str) -> Option<u128> {
    let bytes = text.as_bytes();
    if bytes.is_empty() {
        return None;
    }
    let mut n: u128 = 0;
    for &b in bytes {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u128::from(d))?;
    }
    Some(n)
}

/// The scalar type spelled `text`, if any (slice patterns compile to a length
/// switch and a few byte compares).
#[inline]
fn scalar_type(text: &[u8]) -> Option<TypeId> {
    Some(match *text {
        [b'i', b'3', b'2'] => TypeId::I32,
        [b'i', b'6', b'4'] => TypeId::I64,
        [b'i', b'1', b'6'] => TypeId::I16,
        [b'i', b'8'] => TypeId::I8,
        [b'i', b'1'] => TypeId::I1,
        [b'i', b'1', b'2', b'8'] => TypeId::I128,
        [b'u', b'3', b'2'] => TypeId::U32,
        [b'u', b'6', b'4'] => TypeId::U64,
        [b'u', b'1', b'6'] => TypeId::U16,
        [b'u', b'8'] => TypeId::U8,
        [b'u', b'1'] => TypeId::U1,
        [b'u', b'1', b'2', b'8'] => TypeId::U128,
        [b'f', b'1', b'6'] => TypeId::F16,
        [b'f', b'3', b'2'] => TypeId::F32,
        [b'f', b'6', b'4'] => TypeId::F64,
        [b'b', b'o', b'o', b'l'] => TypeId::BOOL,
        [b'v', b'o', b'i', b'd'] => TypeId::VOID,
        _ => return None,
    })
}

/// Slots of [`MNEMONICS`]: a power of two, at least twice the opcode count.
const MNEMONIC_SLOTS: usize = 256;

/// A hash of a word's length and first, second and last bytes.
const fn mnemonic_hash(text: &[u8]) -> usize {
    let n = text.len();
    if n == 0 {
        return 0;
    }
    let second = if n > 1 { text[1] as usize } else { 0 };
    (n * 131 + text[0] as usize * 31 + second * 7 + text[n - 1] as usize * 17) & (MNEMONIC_SLOTS - 1)
}

/// An open-addressing table from mnemonic hash to `opcode index + 1` (0 is an
/// empty slot), built at compile time from the one opcode table, so the reader
/// finds an opcode with one hash and usually one compare instead of walking
/// every mnemonic.
static MNEMONICS: [u8; MNEMONIC_SLOTS] = {
    let mut table = [0u8; MNEMONIC_SLOTS];
    let mut i = 0;
    while i < Opcode::ALL.len() {
        let mut slot = mnemonic_hash(Opcode::ALL[i].mnemonic().as_bytes());
        while table[slot] != 0 {
            slot = (slot + 1) & (MNEMONIC_SLOTS - 1);
        }
        table[slot] = i as u8 + 1;
        i += 1;
    }
    table
};

const _: () = assert!(Opcode::ALL.len() * 2 <= MNEMONIC_SLOTS && Opcode::ALL.len() < 255);

/// The opcode with mnemonic `text` (same answers as [`Opcode::from_mnemonic`]).
#[inline]
fn opcode(text: &[u8]) -> Option<Opcode> {
    let mut slot = mnemonic_hash(text);
    loop {
        let entry = MNEMONICS[slot];
        if entry == 0 {
            return None;
        }
        let op = Opcode::ALL[usize::from(entry - 1)];
        let mnemonic = op.mnemonic().as_bytes();
        // Mnemonics are a few bytes long: a plain loop beats a call to memcmp.
        if mnemonic.len() == text.len() && mnemonic.iter().zip(text).all(|(a, b)| a == b) {
            return Some(op);
        }
        slot = (slot + 1) & (MNEMONIC_SLOTS - 1);
    }
}

/// Why a word is not a literal of a type (see [`literal_value`]).
pub(super) enum LiteralError {
    NotBool,
    NotInteger,
    OutOfRange,
    Float(FloatParseError),
    NoLiteral,
}

/// The literal `text` of scalar type `ty` (the rule behind [`Parser::literal`],
/// shared with the fast path).
pub(super) fn literal_value(ty: TypeId, text: &str) -> Result<ConstValue, LiteralError> {
    if ty == TypeId::BOOL {
        return match text {
            "true" => Ok(ConstValue::Bool(true)),
            "false" => Ok(ConstValue::Bool(false)),
            _ => Err(LiteralError::NotBool),
        };
    }
    if ty.is_int() {
        let bits = ty.scalar_bits().unwrap_or(128);
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let magnitude = parse_u128(digits).ok_or(LiteralError::NotInteger)?;
        return if ty.is_signed_int() {
            let bound = 1u128 << (bits - 1);
            match (negative, magnitude) {
                (true, m) if m <= bound => Ok(ConstValue::I((m as i128).wrapping_neg())),
                (false, m) if m < bound => Ok(ConstValue::I(m as i128)),
                _ => Err(LiteralError::OutOfRange),
            }
        } else {
            let fits = bits == 128 || magnitude < (1u128 << bits);
            if negative || !fits {
                return Err(LiteralError::OutOfRange);
            }
            Ok(ConstValue::U(magnitude))
        };
    }
    if ty.is_float() {
        return FloatBits::parse(ty.scalar_bits().unwrap_or(64), text).map(ConstValue::F).map_err(LiteralError::Float);
    }
    Err(LiteralError::NoLiteral)
}

fn convention(text: &str) -> Option<CallingConvention> {
    match text {
        "whale" => Some(CallingConvention::Whale),
        "sysv64" => Some(CallingConvention::SysV64),
        _ => None,
    }
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, limits: IrLimits) -> PResult<Self> {
        let mut lexer = Lexer::new(src, limits.max_tokens);
        let tok = lexer.next_token();
        Ok(Parser {
            src,
            lexer,
            tok,
            limits,
            max_id: limits.largest_id_for(src.len()),
            nodes: 0,
            type_depth: 0,
            const_depth: 0,
            format: 2,
            fast: false,
            m: Module::empty(String::new(), DataLayout::default_64bit_le()),
            map: SourceMap::default(),
            local_values: LocalIds::default(),
            local_blocks: LocalIds::default(),
            span_budget: SpanBudget::new(limits.largest_id_for(src.len())),
            func_first_inst: 0,
            record_insts: false,
            values: 0,
            block_count: 0,
            global_ids: FxHashSet::default(),
            declared: FxHashMap::default(),
            next_value: 0,
            next_block: 0,
            func: u32::MAX,
            func_ret: TypeId::VOID,
            current_block: None,
            terminated: false,
            pending: Vec::new(),
            pending_calls: Vec::new(),
            list: Vec::new(),
            type_stack: Vec::new(),
            fast_params: Vec::new(),
            name_cache: [None; fast::NAME_CACHE],
            last_signature: None,
            last_params: Vec::new(),
            #[cfg(test)]
            fast_reads: 0,
            text: String::new(),
        })
    }

    // ---- tokens -----------------------------------------------------------------

    /// Consumes the lookahead token (lexical errors surface in [`Parser::unexpected`]).
    #[inline]
    fn bump(&mut self) -> Token {
        let t = self.tok;
        self.tok = self.lexer.next_token();
        t
    }

    #[inline]
    fn at(&self, kind: TokenKind) -> bool {
        self.tok.kind == kind
    }

    #[inline]
    fn eat(&mut self, kind: TokenKind) -> bool {
        if self.tok.kind == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    #[inline]
    fn expect(&mut self, kind: TokenKind, what: &'static str) -> PResult<Token> {
        if self.tok.kind == kind {
            Ok(self.bump())
        } else {
            self.unexpected(what)
        }
    }

    /// The lookahead does not fit: "expected WHAT, found TOKEN", or the lexical
    /// error the lookahead stands for.
    #[cold]
    #[inline(never)]
    fn unexpected<T>(&mut self, what: &'static str) -> PResult<T> {
        if self.tok.kind == TokenKind::Error {
            return Err(self.lexer.take_error());
        }
        fail(self.tok.span.start as usize, ParseErrorKind::Expected { expected: what, found: self.describe(self.tok) })
    }

    fn describe(&self, t: Token) -> String {
        if t.kind == TokenKind::Eof {
            return "end of input".to_string();
        }
        let text = self.text(t);
        match text.char_indices().nth(40) {
            Some((cut, _)) => format!("`{}…`", &text[..cut]),
            None => format!("`{text}`"),
        }
    }

    #[inline]
    fn text(&self, t: Token) -> &'a str {
        &self.src[t.span.start as usize..t.span.end as usize]
    }

    /// The bytes of `t` (no character-boundary checks, for matching).
    #[inline]
    fn bytes(&self, t: Token) -> &'a [u8] {
        &self.src.as_bytes()[t.span.start as usize..t.span.end as usize]
    }

    #[inline]
    fn is_word(&self, word: &str) -> bool {
        self.tok.kind == TokenKind::Word && self.text(self.tok) == word
    }

    #[inline]
    fn keyword(&mut self, word: &str, what: &'static str) -> PResult<Token> {
        if self.is_word(word) {
            Ok(self.bump())
        } else {
            self.unexpected(what)
        }
    }

    #[inline]
    fn offset(&self) -> u32 {
        self.tok.span.start
    }

    fn string(&mut self, what: &'static str) -> PResult<Token> {
        match self.tok.kind {
            TokenKind::Str | TokenKind::EscapedStr => Ok(self.bump()),
            _ => self.unexpected(what),
        }
    }

    /// The decoded contents of a string token.
    fn string_text(&mut self, t: Token) -> &str {
        let raw = self.text(t);
        if t.kind == TokenKind::Str {
            &raw[1..raw.len() - 1]
        } else {
            unescape(raw, &mut self.text);
            &self.text
        }
    }

    fn intern_string(&mut self, t: Token) -> StrId {
        let raw = self.text(t);
        if t.kind == TokenKind::Str {
            self.m.strings.intern(&raw[1..raw.len() - 1])
        } else {
            unescape(raw, &mut self.text);
            self.m.strings.intern(&self.text)
        }
    }

    // ---- limits -----------------------------------------------------------------

    #[inline]
    fn count_node(&mut self, at: u32) -> PResult<()> {
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            return self.limit(at, Resource::Nodes, self.limits.max_nodes);
        }
        Ok(())
    }

    #[cold]
    fn limit<T>(&self, at: u32, resource: Resource, limit: u64) -> PResult<T> {
        fail(at as usize, ParseErrorKind::ResourceLimit(LimitError { resource, limit }))
    }

    // ---- numbers and ids ----------------------------------------------------------

    fn u32_word(&mut self, what: &'static str) -> PResult<u32> {
        let t = self.expect(TokenKind::Word, what)?;
        if t.num != NO_NUMBER {
            return Ok(t.num);
        }
        let text = self.text(t);
        match parse_u64(text).and_then(|n| u32::try_from(n).ok()) {
            Some(n) => Ok(n),
            None => fail(t.span.start as usize, ParseErrorKind::Invalid { what, text: text.to_string() }),
        }
    }

    /// The id number lexed into `t`, range-checked against the id limit.
    #[inline]
    fn id_number(&self, t: Token, what: &'static str) -> PResult<u32> {
        if t.num <= self.max_id {
            return Ok(t.num);
        }
        self.bad_id(t, what)
    }

    #[cold]
    fn bad_id<T>(&self, t: Token, what: &'static str) -> PResult<T> {
        let text = self.text(t);
        let digits = if t.kind == TokenKind::Word { text } else { text.get(2..).unwrap_or("") };
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return self.limit(t.span.start, Resource::Id, u64::from(self.max_id));
        }
        fail(t.span.start as usize, ParseErrorKind::Invalid { what, text: text.to_string() })
    }

    #[inline]
    fn value_ref(&mut self, what: &'static str) -> PResult<ValueId> {
        if self.tok.kind != TokenKind::ValueRef {
            return self.unexpected(what);
        }
        let t = self.bump();
        Ok(ValueId::from_u32(self.id_number(t, "value id")?))
    }

    /// A block reference: a bare number in format 2, `%bN` in formats 3 and 4.
    #[inline]
    fn block_ref(&mut self) -> PResult<BlockId> {
        let t = if self.format == 2 {
            self.expect(TokenKind::Word, "a block number")?
        } else {
            self.expect(TokenKind::BlockRef, "a block id `%bN`")?
        };
        Ok(BlockId::from_u32(self.id_number(t, "block id")?))
    }

    fn label_ref(&mut self) -> PResult<BlockId> {
        self.keyword("label", "`label` before a block reference")?;
        self.block_ref()
    }

    fn at_ref(&mut self, sigil: u8, what: &'static str) -> PResult<u32> {
        if self.tok.kind != TokenKind::AtRef
            || self.src.as_bytes().get(self.tok.span.start as usize + 1) != Some(&sigil)
        {
            return self.unexpected(what);
        }
        let t = self.bump();
        self.id_number(t, what)
    }

    fn func_ref(&mut self) -> PResult<FunctionId> {
        self.at_ref(b'f', "a function id `@fN`").map(FunctionId::from_u32)
    }

    fn global_ref(&mut self) -> PResult<GlobalId> {
        self.at_ref(b'g', "a global id `@gN`").map(GlobalId::from_u32)
    }

    // ---- types --------------------------------------------------------------------

    /// A type (the root of a nesting: depth 0).
    fn ty(&mut self) -> PResult<TypeId> {
        let t = self.tok;
        if t.kind != TokenKind::Word {
            return self.unexpected("a type");
        }
        self.bump();
        self.count_node(t.span.start)?;
        if let Some(id) = scalar_type(self.bytes(t)) {
            return Ok(id);
        }
        self.compound_type(t, self.text(t))
    }

    fn compound_type(&mut self, t: Token, text: &str) -> PResult<TypeId> {
        use TokenKind::*;
        let key = match text {
            "ptr" => {
                self.expect(Lt, "`<` after `ptr`")?;
                let pointee = self.nested_type()?;
                self.expect(Gt, "`>` closing `ptr<`")?;
                TypeKey::Ptr(pointee)
            }
            "fnptr" => {
                self.expect(Lt, "`<` after `fnptr`")?;
                let sig = self.nested(|p| p.signature())?;
                self.expect(Gt, "`>` closing `fnptr<`")?;
                TypeKey::FnPtr(sig)
            }
            "array" => {
                self.expect(Lt, "`<` after `array`")?;
                let element = self.nested_type()?;
                self.expect(Comma, "`,` after the array element type")?;
                let n = self.expect(Word, "the array length")?;
                let text = self.text(n);
                let Some(len) = parse_u64(text) else {
                    return fail(
                        n.span.start as usize,
                        ParseErrorKind::Invalid { what: "array length", text: text.into() },
                    );
                };
                self.expect(Gt, "`>` closing `array<`")?;
                TypeKey::Array(element, len)
            }
            "struct" => {
                self.expect(LBrace, "`{` after `struct`")?;
                TypeKey::Struct(self.type_list(RBrace, "`,` or `}` after a struct field")?)
            }
            "tuple" => {
                self.expect(Lt, "`<` after `tuple`")?;
                TypeKey::Tuple(self.type_list(Gt, "`,` or `>` after a tuple element")?)
            }
            _ => return fail(t.span.start as usize, ParseErrorKind::UnknownType(text.to_string())),
        };
        Ok(self.m.types.intern(key))
    }

    /// Runs `rule` one nesting level deeper.
    fn nested<T>(&mut self, rule: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.type_depth += 1;
        if self.type_depth > self.limits.max_type_depth {
            return self.limit(self.offset(), Resource::TypeDepth, u64::from(self.limits.max_type_depth));
        }
        let result = rule(self);
        self.type_depth -= 1;
        result
    }

    fn nested_type(&mut self) -> PResult<TypeId> {
        self.nested(|p| p.ty())
    }

    fn type_list(&mut self, close: TokenKind, what: &'static str) -> PResult<Box<[TypeId]>> {
        let base = self.type_stack.len();
        if !self.at(close) {
            loop {
                let t = self.nested_type()?;
                self.type_stack.push(t);
                if !self.eat(TokenKind::Comma) {
                    break;
                }
            }
        }
        self.expect(close, what)?;
        let list: Box<[TypeId]> = self.type_stack[base..].into();
        self.type_stack.truncate(base);
        Ok(list)
    }

    /// `CONV (P, ...) -> R`; the parameters and result are one level deeper.
    fn signature(&mut self) -> PResult<SigId> {
        use TokenKind::*;
        let conv = match self.tok.kind {
            Word => convention(self.text(self.tok)),
            _ => None,
        };
        let Some(convention) = conv else {
            return self.unexpected("a calling convention (`whale` or `sysv64`)");
        };
        self.bump();
        self.expect(LParen, "`(` before the parameter types")?;
        let base = self.type_stack.len();
        let mut variadic = false;
        if !self.at(RParen) {
            loop {
                if self.is_word("...") {
                    self.bump();
                    variadic = true;
                    break;
                }
                let t = self.nested_type()?;
                self.type_stack.push(t);
                if !self.eat(Comma) {
                    break;
                }
            }
        }
        self.expect(RParen, "`,` or `)` after a parameter type")?;
        let params: Box<[TypeId]> = self.type_stack[base..].into();
        self.type_stack.truncate(base);
        self.expect(Arrow, "`->` before the return type")?;
        let ret = self.nested_type()?;
        Ok(self.m.types.intern_sig(SigKey { params, ret, convention, variadic }))
    }

    // ---- constants ----------------------------------------------------------------

    /// A literal of scalar type `ty`: `true`/`false`, a decimal integer, or an
    /// exact-width float bit string.
    fn literal(&mut self, ty: TypeId) -> PResult<ConstValue> {
        let t = self.tok;
        if t.kind != TokenKind::Word {
            return self.unexpected("a constant");
        }
        let text = self.text(t);
        let at = t.span.start as usize;
        let value = match literal_value(ty, text) {
            Ok(value) => value,
            Err(LiteralError::NotBool) => return self.unexpected("`true` or `false`"),
            Err(LiteralError::NotInteger) => {
                return fail(at, ParseErrorKind::Invalid { what: "integer literal", text: text.into() })
            }
            Err(LiteralError::OutOfRange) => {
                return fail(at, ParseErrorKind::LiteralOutOfRange { ty: self.m.type_name(ty), text: text.into() })
            }
            Err(LiteralError::Float(e)) => return fail(at, ParseErrorKind::InvalidFloat(e)),
            Err(LiteralError::NoLiteral) => return fail(at, ParseErrorKind::NoLiteral(self.m.type_name(ty))),
        };
        self.bump();
        Ok(value)
    }

    /// A constant expression: `T v`, `T @gK`, `T %vN`, `add(E, E)`, `eq(E, E)`, …
    fn const_expr(&mut self) -> PResult<ConstExpr> {
        let at = self.offset();
        self.count_node(at)?;
        if self.tok.kind == TokenKind::Word {
            let text = self.text(self.tok);
            if let Some(op) = ConstBinOp::from_name(text) {
                let (lhs, rhs) = self.const_operands()?;
                return Ok(ConstExpr { ty: lhs.ty.clone(), kind: ConstExprKind::Binary { op, lhs, rhs } });
            }
            if let Some(op) = ConstCmpOp::from_name(text) {
                let (lhs, rhs) = self.const_operands()?;
                return Ok(ConstExpr { ty: crate::Type::Bool, kind: ConstExprKind::Compare { op, lhs, rhs } });
            }
        }
        let ty = self.ty()?;
        let kind = match self.tok.kind {
            TokenKind::AtRef => ConstExprKind::Reference(ConstRef::Global(self.global_ref()?)),
            TokenKind::ValueRef => ConstExprKind::Reference(ConstRef::Local(self.value_ref("a value id")?)),
            _ => ConstExprKind::Literal(self.literal(ty)?),
        };
        Ok(ConstExpr { ty: self.m.types.to_type(ty), kind })
    }

    fn const_operands(&mut self) -> PResult<(Box<ConstExpr>, Box<ConstExpr>)> {
        self.bump();
        self.expect(TokenKind::LParen, "`(` after the constant operation")?;
        self.const_depth += 1;
        if self.const_depth > self.limits.max_const_depth {
            return self.limit(self.offset(), Resource::ConstantDepth, u64::from(self.limits.max_const_depth));
        }
        let lhs = self.const_expr()?;
        self.expect(TokenKind::Comma, "`,` between constant operands")?;
        let rhs = self.const_expr()?;
        self.expect(TokenKind::RParen, "`)` after constant operands")?;
        self.const_depth -= 1;
        Ok((Box::new(lhs), Box::new(rhs)))
    }

    // ---- type annotations -------------------------------------------------------------

    /// A restated type must equal the stored one.
    #[inline]
    fn same(&self, annotated: TypeId, stored: TypeId, at: u32, subject: &dyn Fn() -> String) -> PResult<()> {
        if annotated == stored {
            return Ok(());
        }
        self.conflict(at, self.m.type_name(annotated), subject(), self.m.type_name(stored))
    }

    #[cold]
    fn conflict<T>(&self, at: u32, annotated: String, subject: String, stored: String) -> PResult<T> {
        fail(at as usize, ParseErrorKind::ConflictingTypeAnnotations { annotated, subject, stored })
    }

    /// `T %v`: `%v` must have type `T` (checked at the end of the function when
    /// `%v` is not defined yet).
    #[inline]
    fn check_operand(&mut self, value: ValueId, ty: TypeId, at: u32) -> PResult<()> {
        match self.local_values.get(value.as_u32()) {
            Some(stored) => {
                if stored != ty {
                    return self.conflict(at, self.m.type_name(ty), value.to_string(), self.m.type_name(stored));
                }
            }
            None => self.pending.push(Pending::Operand { value, ty, at }),
        }
        Ok(())
    }

    /// `T %v` where `T` is the next type in the text.
    #[inline]
    fn typed_operand(&mut self, what: &'static str) -> PResult<ValueId> {
        let at = self.offset();
        let ty = self.ty()?;
        let value = self.value_ref(what)?;
        self.check_operand(value, ty, at)?;
        Ok(value)
    }

    fn check_indirect(&self, value: ValueId, conv: (CallingConvention, u32), ret: (TypeId, u32)) -> PResult<()> {
        let Some(ty) = self.local_values.get(value.as_u32()) else { return Ok(()) };
        let Some(sig) = self.m.types.fn_ptr_sig(ty) else { return Ok(()) };
        self.check_signature(sig, conv, ret, &|| format!("the signature of {value}"))
    }

    fn check_signature(
        &self,
        sig: SigId,
        (conv, conv_at): (CallingConvention, u32),
        (ret, ret_at): (TypeId, u32),
        subject: &dyn Fn() -> String,
    ) -> PResult<()> {
        let key = self.m.types.sig(sig);
        if key.convention != conv {
            let what = || format!("the calling convention of {}", subject());
            return self.conflict(conv_at, conv.keyword().into(), what(), key.convention.keyword().into());
        }
        self.same(ret, key.ret, ret_at, &|| format!("the return type of {}", subject()))
    }

    // ---- definitions --------------------------------------------------------------------

    fn define_value(&mut self, value: ValueId, ty: TypeId, at: u32) -> PResult<()> {
        self.values += 1;
        if self.values > self.limits.max_values {
            return self.limit(at, Resource::Values, self.limits.max_values);
        }
        if self.local_values.define(value.as_u32(), ty).is_err() {
            return self.duplicate_value(value, at);
        }
        Ok(())
    }

    #[cold]
    fn duplicate_value(&self, value: ValueId, at: u32) -> PResult<()> {
        if self.format == 2 {
            if let Some(f) = self.m.functions.get(self.func as usize) {
                let params = &self.m.params[f.params.start as usize..];
                if let Some(p) = params.iter().find(|p| p.value == value) {
                    let param = self.m.str(p.name).to_string();
                    return fail(at as usize, ParseErrorKind::NonCanonicalId { value: value.to_string(), param });
                }
            }
        }
        fail(at as usize, ParseErrorKind::DuplicateDefinition(value.to_string()))
    }

    fn open_block(&mut self, id: BlockId, name: StrId, at: u32) -> PResult<()> {
        self.close_block();
        self.block_count += 1;
        if self.block_count > self.limits.max_blocks {
            return self.limit(at, Resource::Blocks, self.limits.max_blocks);
        }
        self.count_node(at)?;
        let start = (self.m.insts.len() - self.func_first_inst) as u32;
        if self.local_blocks.define(id.as_u32(), (BlockData { name, start, end: start }, at)).is_err() {
            let shown = if self.format == 2 { format!("block {}", id.as_u32()) } else { id.to_string() };
            return fail(at as usize, ParseErrorKind::DuplicateDefinition(shown));
        }
        self.m.block_order.push(id);
        self.current_block = Some(id);
        self.terminated = false;
        Ok(())
    }

    fn close_block(&mut self) {
        if let Some(b) = self.current_block.take() {
            let end = (self.m.insts.len() - self.func_first_inst) as u32;
            if let Some((data, _)) = self.local_blocks.get_mut(b.as_u32()) {
                data.end = end;
            }
        }
    }

    /// Lays out the open function's value and block tables (see `local_ids.rs`)
    /// and completes its record; returns its highest value id, if any.
    fn lay_out_function(&mut self, at: u32) -> PResult<Option<u32>> {
        let (value_base, value_span) = self.local_values.span();
        let (_, block_span) = self.local_blocks.span();
        if self.span_budget.charge(&self.local_values, &self.local_blocks).is_err() {
            return self.limit(at, Resource::Id, u64::from(self.max_id));
        }
        let highest = (value_span > 0).then(|| value_base + value_span - 1);
        let m = &mut self.m;
        let value_start = m.value_types.len();
        m.value_types.resize(value_start + value_span as usize, PackedOption::NONE);
        let value_types = &mut m.value_types[value_start..];
        self.local_values.drain(|k, ty| value_types[k] = PackedOption::some(ty));
        let block_start = m.blocks.len();
        m.blocks.resize(block_start + block_span as usize, BlockData::VACANT);
        self.map.blocks.resize(block_start + block_span as usize, VACANT);
        let (blocks, offsets) = (&mut m.blocks[block_start..], &mut self.map.blocks[block_start..]);
        let (block_base, _) = self.local_blocks.drain(|k, (data, at)| {
            blocks[k] = data;
            offsets[k] = at;
        });
        let first_inst = self.func_first_inst;
        let at = LaidOut { first_inst, value_start, value_base, block_start, block_base };
        m.close_function_runs(self.func as usize, at);
        Ok(highest)
    }

    // ---- module ---------------------------------------------------------------------------

    fn module(&mut self) -> PResult<()> {
        use TokenKind::*;
        self.keyword("module", "`module`")?;
        self.expect(LBrace, "`{` after `module`")?;
        self.keyword("format_version", "`format_version`")?;
        let t = self.expect(Word, "a format version")?;
        self.format = match self.text(t) {
            "2" => 2,
            "3" => 3,
            "4" => 4,
            other => return fail(t.span.start as usize, ParseErrorKind::UnsupportedFormatVersion(other.into())),
        };
        self.keyword("semantics_version", "`semantics_version`")?;
        let t = self.expect(Word, "a semantics version")?;
        if self.text(t) != "1" {
            let version = self.text(t).to_string();
            return fail(t.span.start as usize, ParseErrorKind::UnsupportedSemanticsVersion(version));
        }
        self.map.target = self.keyword("target", "`target`")?.span.start;
        let t = self.string("the target name string")?;
        self.m.target = self.string_text(t).to_string();
        self.keyword("datalayout", "`datalayout`")?;
        self.expect(LBrace, "`{` after `datalayout`")?;
        self.keyword("ptr", "`ptr`")?;
        self.expect(Equals, "`=` after `ptr`")?;
        let pointer_bits = self.u32_word("pointer width")?;
        self.expect(Comma, "`,` after the pointer width")?;
        self.keyword("endian", "`endian`")?;
        self.expect(Equals, "`=` after `endian`")?;
        let endian = if self.is_word("little") {
            Endian::Little
        } else if self.is_word("big") {
            Endian::Big
        } else {
            return self.unexpected("`little` or `big`");
        };
        self.bump();
        self.expect(RBrace, "`}` closing the data layout")?;
        self.m.data_layout = DataLayout { pointer_bits, endian };
        loop {
            if self.tok.kind == Word {
                match self.text(self.tok) {
                    "global" => self.global()?,
                    "declare" => {
                        if !self.fast_declaration() {
                            self.declaration()?;
                        }
                    }
                    "fn" => self.function()?,
                    _ => return self.unexpected("`global`, `declare`, `fn` or `}`"),
                }
                continue;
            }
            if self.at(RBrace) {
                break;
            }
            return self.unexpected("`global`, `declare`, `fn` or `}`");
        }
        self.bump();
        self.expect(Eof, "end of input after the module's `}`")?;
        self.resolve_calls()
    }

    fn global(&mut self) -> PResult<()> {
        use TokenKind::*;
        let start = self.bump().span.start;
        self.count_node(start)?;
        let mut id_at = self.offset();
        let (mut id, name) = if self.format == 2 {
            let t = self.expect(AtRef, "`@NAME` after `global`")?;
            let text = &self.text(t)[1..];
            if text.is_empty() {
                return fail(t.span.start as usize, ParseErrorKind::Invalid { what: "global name", text: "@".into() });
            }
            (None, self.m.strings.intern(text))
        } else {
            let id = self.global_ref()?;
            let t = self.string("the global's name string")?;
            (Some(id), self.intern_string(t))
        };
        self.expect(Colon, "`:` after the global's name")?;
        let ty = self.ty()?;
        self.expect(Equals, "`=` after the global's type")?;
        self.keyword("const", "`const` before the global's value")?;
        let at = self.offset();
        let restated = self.ty()?;
        self.same(restated, ty, at, &|| "the global's type".into())?;
        let init = self.literal(ty)?;
        self.expect(Comma, "`,` after the global's value")?;
        self.keyword("align", "`align`")?;
        let align = self.u32_word("alignment")?;
        if self.format == 2 {
            self.expect(Comma, "`,` after the alignment")?;
            self.keyword("id", "`id`")?;
            id_at = self.offset();
            id = Some(self.global_ref()?);
        }
        self.expect(Comma, "`,` before `init_expr`")?;
        self.keyword("init_expr", "`init_expr`")?;
        let init_expr = self.const_expr()?;
        let Some(id) = id else { return self.unexpected("a global id") };
        if !self.global_ids.insert(id) {
            return fail(id_at as usize, ParseErrorKind::DuplicateDefinition(id.to_string()));
        }
        self.m.globals.push(GlobalData { id, name, ty, init, init_expr, align });
        self.map.globals.push(start);
        Ok(())
    }

    fn declaration(&mut self) -> PResult<()> {
        use TokenKind::*;
        let start = self.bump().span.start;
        self.count_node(start)?;
        if self.m.declarations.len() as u64 >= self.limits.max_functions {
            return self.limit(start, Resource::Functions, self.limits.max_functions);
        }
        let id = self.func_ref()?;
        let t = self.string("the declared name string")?;
        let name = self.intern_string(t);
        self.expect(Colon, "`:` after the declared name")?;
        let sig = self.signature()?;
        self.expect(Comma, "`,` after the signature")?;
        self.keyword("linkage", "`linkage`")?;
        let linkage = if self.is_word("internal") {
            Linkage::Internal
        } else if self.is_word("external") {
            Linkage::External
        } else {
            return self.unexpected("`internal` or `external`");
        };
        self.bump();
        let link_name = if self.eat(Comma) {
            self.keyword("link_name", "`link_name`")?;
            let t = self.string("the link name string")?;
            Some(self.intern_string(t))
        } else {
            None
        };
        self.declared.entry(id).or_insert(sig);
        self.m.declarations.push(DeclData { id, name, sig, linkage, link_name });
        self.map.declarations.push(start);
        Ok(())
    }

    // ---- functions --------------------------------------------------------------------------

    fn function(&mut self) -> PResult<()> {
        let (order_start, param_count) = match self.fast_function_header() {
            Some(header) => header,
            None => self.function_header()?,
        };
        self.body()?;
        let end = self.expect(TokenKind::RBrace, "`}` closing the function")?.span.start;
        let block_count = self.m.block_order.len() as u32 - order_start;
        self.resolve_pending()?;
        let highest = self.lay_out_function(end)?;
        if self.format == 2 {
            self.next_value = match highest {
                Some(highest) => u64::from(highest) + 1,
                None => self.next_value + u64::from(param_count),
            };
            self.next_block += u64::from(block_count);
        }
        Ok(())
    }

    /// `fn … {`: the function's record and parameters; the start of its block
    /// order and its parameter count.
    fn function_header(&mut self) -> PResult<(u32, u32)> {
        use TokenKind::*;
        let start = self.bump().span.start;
        self.count_node(start)?;
        if self.m.functions.len() as u64 >= self.limits.max_functions {
            return self.limit(start, Resource::Functions, self.limits.max_functions);
        }
        self.begin_function();
        let (id, name) = if self.format == 2 {
            let t = self.expect(AtRef, "`@NAME` after `fn`")?;
            let text = &self.text(t)[1..];
            if text.is_empty() {
                return fail(
                    t.span.start as usize,
                    ParseErrorKind::Invalid { what: "function name", text: "@".into() },
                );
            }
            (None, self.m.strings.intern(text))
        } else {
            let id = self.func_ref()?;
            let t = self.string("the function's name string")?;
            (Some(id), self.intern_string(t))
        };
        // The body is pushed now so that parameters and blocks can name it; its
        // id, entry and ranges are completed below.
        let param_start = self.m.params.len() as u32;
        let order_start = self.m.block_order.len() as u32;
        self.push_function(id.unwrap_or(FunctionId::from_u32(0)), name, TypeId::VOID, BlockId::from_u32(0));
        self.map.functions.push(start);
        self.expect(LParen, "`(` before the parameters")?;
        if !self.at(RParen) {
            loop {
                self.parameter()?;
                if !self.eat(Comma) {
                    break;
                }
            }
        }
        self.expect(RParen, "`,` or `)` after a parameter")?;
        let param_count = self.m.params.len() as u32 - param_start;
        self.expect(Arrow, "`->` before the return type")?;
        let ret = self.ty()?;
        self.expect(Comma, "`,` after the return type")?;
        let (id, entry) = if self.format == 2 {
            self.keyword("id", "`id`")?;
            let id = self.func_ref()?;
            (id, BlockId::from_u32(self.inferred_id(self.next_block, start)?))
        } else {
            self.keyword("entry", "`entry`")?;
            (id.unwrap_or(FunctionId::from_u32(0)), self.block_ref()?)
        };
        self.expect(LBrace, "`{` before the function body")?;
        let f = &mut self.m.functions[self.func as usize];
        f.id = id;
        f.ret = ret;
        f.entry = entry;
        f.params.len = param_count;
        self.func_ret = ret;
        Ok((order_start, param_count))
    }

    /// Starts reading a function: the next storage index, empty id tables.
    pub(super) fn begin_function(&mut self) {
        self.func = self.m.functions.len() as u32;
        self.func_first_inst = self.m.insts.len();
        self.local_values.clear();
        self.local_blocks.clear();
    }

    /// Pushes the open function's record; its runs are completed by `lay_out_function`.
    pub(super) fn push_function(&mut self, id: FunctionId, name: StrId, ret: TypeId, entry: BlockId) {
        let params = Span { start: self.m.params.len() as u32, len: 0 };
        let order = Span { start: self.m.block_order.len() as u32, len: 0 };
        self.m.functions.push(FunctionData {
            id,
            name,
            ret,
            entry,
            params,
            order,
            blocks: Span::EMPTY,
            block_base: 0,
            insts: Span::EMPTY,
            values: Span::EMPTY,
            value_base: 0,
        });
    }

    /// An id inferred by the format-2 numbering, within the id limit.
    fn inferred_id(&self, n: u64, at: u32) -> PResult<u32> {
        if n > u64::from(self.max_id) {
            return self.limit(at, Resource::Id, u64::from(self.max_id));
        }
        Ok(n as u32)
    }

    fn parameter(&mut self) -> PResult<()> {
        let at = self.offset();
        self.count_node(at)?;
        let (value, name) = if self.format == 2 {
            let t = self.expect(TokenKind::Word, "a parameter name")?;
            let index = u64::from(self.m.params.len() as u32 - self.m.functions[self.func as usize].params.start);
            let value = ValueId::from_u32(self.inferred_id(self.next_value + index, at)?);
            (value, self.m.strings.intern(self.text(t)))
        } else {
            let value = self.value_ref("a parameter id `%vN`")?;
            let t = self.string("the parameter's name string")?;
            (value, self.intern_string(t))
        };
        self.expect(TokenKind::Colon, "`:` after the parameter name")?;
        let ty = self.ty()?;
        self.define_value(value, ty, at)?;
        self.m.params.push(Param { value, name });
        self.map.params.push(at);
        Ok(())
    }

    fn body(&mut self) -> PResult<()> {
        use TokenKind::*;
        self.current_block = None;
        self.terminated = false;
        loop {
            let kind = self.tok.kind;
            if self.fast && matches!(kind, ValueRef | BlockRef | Word) && self.fast_run() {
                continue;
            }
            match kind {
                RBrace => break,
                ValueRef => self.instruction_with_result()?,
                BlockRef if self.format >= 3 => self.label_explicit()?,
                Word => {
                    let t = self.bump();
                    if self.at(Colon) {
                        if self.format >= 3 {
                            return fail(
                                t.span.start as usize,
                                ParseErrorKind::Expected {
                                    expected: "a block label `%bN \"name\":` (labels carry ids in formats 3 and 4)",
                                    found: self.describe(t),
                                },
                            );
                        }
                        self.label_bare(t)?;
                    } else {
                        self.instruction(None, t, t.span.start)?;
                    }
                }
                _ => return self.unexpected("an instruction, a block label or `}`"),
            }
        }
        self.close_block();
        Ok(())
    }

    /// Format 2: `NAME:`, numbered after the previous blocks.
    fn label_bare(&mut self, t: Token) -> PResult<()> {
        self.bump();
        let local = self.m.block_order.len() as u64 - u64::from(self.m.functions[self.func as usize].order.start);
        let id = BlockId::from_u32(self.inferred_id(self.next_block + local, t.span.start)?);
        let name = self.m.strings.intern(self.text(t));
        self.open_block(id, name, t.span.start)
    }

    /// Formats 3 and 4: `%bN "NAME":`.
    fn label_explicit(&mut self) -> PResult<()> {
        let at = self.offset();
        let id = self.block_ref()?;
        let t = self.string("the block's name string")?;
        let name = self.intern_string(t);
        self.expect(TokenKind::Colon, "`:` after the block label")?;
        self.open_block(id, name, at)
    }

    fn resolve_pending(&mut self) -> PResult<()> {
        for pending in std::mem::take(&mut self.pending) {
            match pending {
                Pending::Operand { value, ty, at } => {
                    if let Some(stored) = self.local_values.get(value.as_u32()) {
                        self.same(ty, stored, at, &|| value.to_string())?;
                    }
                }
                Pending::Indirect { value, conv, conv_at, ret, ret_at } => {
                    self.check_indirect(value, (conv, conv_at), (ret, ret_at))?;
                }
            }
        }
        Ok(())
    }

    fn resolve_calls(&mut self) -> PResult<()> {
        for call in std::mem::take(&mut self.pending_calls) {
            if let Some(&sig) = self.declared.get(&call.callee) {
                self.check_signature(sig, (call.conv, call.conv_at), (call.ret, call.ret_at), &|| {
                    call.callee.to_string()
                })?;
            }
        }
        Ok(())
    }

    // ---- instructions ---------------------------------------------------------------------------

    fn instruction_with_result(&mut self) -> PResult<()> {
        let start = self.offset();
        let value = self.value_ref("a result id")?;
        self.expect(TokenKind::Colon, "`:` after the result id")?;
        let ty = self.ty()?;
        self.expect(TokenKind::Equals, "`=` after the result type")?;
        let op = self.expect(TokenKind::Word, "an instruction")?;
        self.define_value(value, ty, start)?;
        self.instruction(Some((value, ty)), op, start)
    }

    fn instruction(&mut self, result: Option<(ValueId, TypeId)>, op_tok: Token, start: u32) -> PResult<()> {
        let Some(op) = opcode(self.bytes(op_tok)) else {
            let name = self.text(op_tok).to_string();
            return fail(op_tok.span.start as usize, ParseErrorKind::UnknownInstruction { name });
        };
        let Some(block) = self.current_block else {
            let found = format!("instruction {}", self.describe(op_tok));
            return fail(start as usize, ParseErrorKind::Expected { expected: "a block label", found });
        };
        if self.terminated {
            let name = self.local_blocks.get(block.as_u32()).map_or("", |(data, _)| self.m.str(data.name));
            let shown = if self.format == 2 { name.to_string() } else { format!("{block} {name:?}") };
            return fail(start as usize, ParseErrorKind::InstructionAfterTerminator(shown));
        }
        self.count_node(start)?;
        let presence_ok = match op.result() {
            ResultRule::NoValue => result.is_none(),
            ResultRule::Annotated | ResultRule::Bool => result.is_some() || op == Opcode::Call,
        };
        if !presence_ok {
            return fail(
                op_tok.span.start as usize,
                ParseErrorKind::ResultPresence { op, has_result: result.is_some() },
            );
        }
        let (value, rty) = match result {
            Some((v, t)) => (PackedOption::some(v), t),
            None => (PackedOption::NONE, TypeId::VOID),
        };
        let data = self.operands(op, op_tok, result.is_some(), rty)?;
        self.m.insts.push(data);
        self.m.inst_results.push(value);
        if self.record_insts {
            self.map.insts.push(start);
        }
        if data.is_terminator() {
            self.terminated = true;
        }
        Ok(())
    }

    /// The operands of `op` (the mnemonic is consumed); `rty` is the result type.
    fn operands(&mut self, op: Opcode, op_tok: Token, has_result: bool, rty: TypeId) -> PResult<InstData> {
        use TokenKind::*;
        let result = || "the result".to_string();
        Ok(match op.shape() {
            Shape::Nullary => {
                let at = self.offset();
                let ty = self.ty()?;
                self.same(ty, rty, at, &result)?;
                InstData::Nullary { op }
            }
            Shape::Const => {
                let at = self.offset();
                let ty = self.ty()?;
                self.same(ty, rty, at, &result)?;
                let value = self.literal(rty)?;
                self.const_data(value)
            }
            Shape::ConstDecl => {
                let t = self.string("the constant's name string")?;
                let name = self.intern_string(t);
                let expr_at = self.offset();
                self.const_depth = 0;
                let expr = self.const_expr()?;
                self.expect(FatArrow, "`=>` after the constant expression")?;
                self.keyword("const", "`const` after `=>`")?;
                let at = self.offset();
                let ty = self.ty()?;
                self.same(ty, rty, at, &result)?;
                let value = self.literal(rty)?;
                if expr.ty != self.m.types.to_type(rty) {
                    return self.conflict(expr_at, expr.ty.to_string(), result(), self.m.type_name(rty));
                }
                let decl = ConstDeclId::new(self.m.const_decls.len());
                self.m.const_decls.push(ConstDeclData { name, expr, value });
                InstData::ConstDecl { decl }
            }
            Shape::Unary => {
                let at = self.offset();
                let ty = self.ty()?;
                self.same(ty, rty, at, &result)?;
                InstData::Unary { op, arg: self.value_ref("an operand `%vN`")? }
            }
            Shape::Binary => {
                let at = self.offset();
                let ty = self.ty()?;
                if op.is_checked() {
                    let tuple_ok = matches!(self.m.types.get(rty), Some(TypeKey::Tuple(f)) if f.len() == 2 && f[0] == ty && f[1] == TypeId::BOOL);
                    if !tuple_ok {
                        let implied = format!("tuple<{}, bool>", self.m.type_name(ty));
                        return self.conflict(at, implied, result(), self.m.type_name(rty));
                    }
                } else {
                    self.same(ty, rty, at, &result)?;
                }
                let lhs = self.value_ref("the first operand `%vN`")?;
                self.expect(Comma, "`,` after the first operand")?;
                let rhs = self.value_ref("the second operand `%vN`")?;
                InstData::Binary { op, args: [lhs, rhs] }
            }
            Shape::Compare => {
                let p = self.expect(Word, "a comparison predicate")?;
                let keyword = self.text(p);
                let pred = match op {
                    Opcode::Cmp => CmpOp::from_keyword(keyword).map(|p| p as u8),
                    Opcode::Icmp => ICmpPred::from_keyword(keyword).map(|p| p as u8),
                    _ => FCmpPred::from_keyword(keyword).map(|p| p as u8),
                };
                let Some(pred) = pred else {
                    let what = "predicate";
                    return fail(p.span.start as usize, ParseErrorKind::Invalid { what, text: keyword.to_string() });
                };
                let lhs = self.typed_operand("the first operand `%vN`")?;
                self.expect(Comma, "`,` after the first operand")?;
                let rhs = self.value_ref("the second operand `%vN`")?;
                InstData::Compare { op, pred, args: [lhs, rhs] }
            }
            Shape::Select => {
                let cond = self.typed_operand("the condition `%vN`")?;
                self.expect(Comma, "`,` after the condition")?;
                let a = self.typed_operand("the first arm `%vN`")?;
                self.expect(Comma, "`,` after the first arm")?;
                let b = self.typed_operand("the second arm `%vN`")?;
                InstData::Select { cond, arms: [a, b] }
            }
            Shape::Cast => {
                let arg = self.typed_operand("the operand `%vN`")?;
                self.keyword("to", "`to` before the destination type")?;
                let at = self.offset();
                let ty = self.ty()?;
                self.same(ty, rty, at, &result)?;
                InstData::Cast { op, arg }
            }
            Shape::Phi => {
                let at = self.offset();
                let ty = self.ty()?;
                self.same(ty, rty, at, &result)?;
                self.list.clear();
                if self.at(LBracket) {
                    loop {
                        let at = self.expect(LBracket, "`[` before a phi input")?.span.start;
                        self.count_node(at)?;
                        let v = self.value_ref("an incoming value `%vN`")?;
                        self.expect(Comma, "`,` after the incoming value")?;
                        let b = self.block_ref()?;
                        self.expect(RBracket, "`]` after the predecessor")?;
                        self.list.extend([v.as_u32(), b.as_u32()]);
                        if !self.eat(Comma) {
                            break;
                        }
                    }
                }
                InstData::Phi { inputs: self.m.pool.make(&self.list) }
            }
            Shape::Extract => {
                let agg = self.value_ref("the aggregate operand `%vN`")?;
                self.expect(Comma, "`,` after the aggregate")?;
                let index = self.u32_word("field index")?;
                InstData::Extract { agg, index }
            }
            Shape::Memory => {
                // Our format 2 includes `uninit` (whale-ir §2: the printer writes it
                // for canonical modules); only upstream's format 3 predates it.
                if op == Opcode::Uninit && self.format == 3 {
                    return fail(op_tok.span.start as usize, ParseErrorKind::UninitRequiresFormat4);
                }
                let ty = self.ty()?;
                self.expect(Comma, "`,` after the type")?;
                let ptr = if op == Opcode::Alloca {
                    PackedOption::NONE
                } else {
                    let p = self.typed_operand("the pointer operand `%vN`")?;
                    self.expect(Comma, "`,` after the pointer")?;
                    PackedOption::some(p)
                };
                let align = self.align()?;
                InstData::Memory { op, align, ty, ptr }
            }
            Shape::Store => {
                let value = self.typed_operand("the stored value `%vN`")?;
                self.expect(Comma, "`,` after the stored value")?;
                let ptr = self.typed_operand("the pointer operand `%vN`")?;
                self.expect(Comma, "`,` after the pointer")?;
                let align = self.align()?;
                InstData::Store { align, value, ptr }
            }
            Shape::Bulk => {
                let mut args = [0u32; 3];
                for arg in &mut args {
                    *arg = self.typed_operand("an operand `%vN`")?.as_u32();
                    self.expect(Comma, "`,` after the operand")?;
                }
                let align = self.align()?;
                InstData::Bulk { op, align, args: self.m.pool.make(&args) }
            }
            Shape::Gep => {
                let base = self.value_ref("the base pointer `%vN`")?;
                self.list.clear();
                while self.eat(Comma) {
                    let at = self.offset();
                    self.count_node(at)?;
                    let index = self.value_ref("an index `%vN`")?;
                    self.list.push(index.as_u32());
                }
                InstData::Gep { base, indices: self.m.pool.make(&self.list) }
            }
            Shape::FuncRef => {
                let func =
                    if op == Opcode::FunctionAddr { PackedOption::some(self.func_ref()?) } else { PackedOption::NONE };
                InstData::FuncRef { op, func }
            }
            Shape::Call => self.call(has_result, rty)?,
            Shape::TrapIf => {
                let cond = self.typed_operand("the condition `%vN`")?;
                self.expect(Comma, "`,` after the condition")?;
                InstData::TrapIf { cond, reason: self.reason()? }
            }
            Shape::Trap => InstData::Trap { reason: self.reason()? },
            Shape::Br => InstData::Br { dest: self.label_ref()? },
            Shape::Cbr => {
                let cond = self.typed_operand("the condition `%vN`")?;
                self.expect(Comma, "`,` after the condition")?;
                let then_block = self.label_ref()?;
                self.expect(Comma, "`,` after the first destination")?;
                let else_block = self.label_ref()?;
                InstData::Cbr { cond, dests: [then_block, else_block] }
            }
            Shape::Switch => {
                let at = self.offset();
                let ty = self.ty()?;
                let arg = self.value_ref("the switch operand `%vN`")?;
                self.check_operand(arg, ty, at)?;
                self.expect(Comma, "`,` after the switch operand")?;
                let default = self.label_ref()?;
                self.expect(LBracket, "`[` before the switch cases")?;
                self.list.clear();
                if !self.at(RBracket) {
                    loop {
                        let at = self.offset();
                        self.count_node(at)?;
                        let key = self.literal(ty)?;
                        self.expect(Colon, "`:` after the case value")?;
                        let dest = self.block_ref()?;
                        let id = ConstId::new(self.m.consts.len());
                        self.m.consts.push(key);
                        self.list.extend([id.as_u32(), dest.as_u32()]);
                        if !self.eat(Comma) {
                            break;
                        }
                    }
                }
                self.expect(RBracket, "`,` or `]` after a switch case")?;
                InstData::Switch { arg, default, cases: self.m.pool.make(&self.list) }
            }
            Shape::Ret => {
                let at = self.offset();
                let ty = self.ty()?;
                self.same(ty, self.func_ret, at, &|| "the function's return type".into())?;
                let arg =
                    if self.at(ValueRef) { PackedOption::some(self.value_ref("a value")?) } else { PackedOption::NONE };
                InstData::Ret { arg }
            }
        })
    }

    fn const_data(&mut self, value: ConstValue) -> InstData {
        match encode_const(value) {
            Some((kind, bits)) => InstData::Const { kind, bits },
            None => {
                let id = ConstId::new(self.m.consts.len());
                self.m.consts.push(value);
                InstData::ConstWide { id }
            }
        }
    }

    fn align(&mut self) -> PResult<u32> {
        self.keyword("align", "`align`")?;
        self.u32_word("alignment")
    }

    fn reason(&mut self) -> PResult<StrId> {
        self.keyword("reason", "`reason`")?;
        self.expect(TokenKind::Equals, "`=` after `reason`")?;
        let t = self.string("the reason string")?;
        Ok(self.intern_string(t))
    }

    /// `call CONV R @fK(args)` or `call CONV R indirect %vN(args)`.
    fn call(&mut self, has_result: bool, rty: TypeId) -> PResult<InstData> {
        use TokenKind::*;
        let conv_at = self.offset();
        let conv = match self.tok.kind {
            Word => convention(self.text(self.tok)),
            _ => None,
        };
        let Some(conv) = conv else {
            return self.unexpected("a calling convention (`whale` or `sysv64`)");
        };
        self.bump();
        let ret_at = self.offset();
        let ret = self.ty()?;
        if has_result != (ret != TypeId::VOID) {
            return fail(ret_at as usize, ParseErrorKind::ResultPresence { op: Opcode::Call, has_result });
        }
        if has_result {
            self.same(ret, rty, ret_at, &|| "the result".into())?;
        }
        let callee = if self.at(AtRef) {
            let callee = self.func_ref()?;
            match self.declared.get(&callee).copied() {
                Some(sig) => self.check_signature(sig, (conv, conv_at), (ret, ret_at), &|| callee.to_string())?,
                None => self.pending_calls.push(PendingCall { callee, conv, conv_at, ret, ret_at }),
            }
            Ok(callee)
        } else if self.is_word("indirect") {
            self.bump();
            let value = self.value_ref("the callee `%vN`")?;
            if self.local_values.get(value.as_u32()).is_some() {
                self.check_indirect(value, (conv, conv_at), (ret, ret_at))?;
            } else {
                self.pending.push(Pending::Indirect { value, conv, conv_at, ret, ret_at });
            }
            Err(value)
        } else {
            return self.unexpected("a callee `@fN` or `indirect %vN`");
        };
        self.expect(LParen, "`(` before the arguments")?;
        self.list.clear();
        if !self.at(RParen) {
            loop {
                let at = self.offset();
                self.count_node(at)?;
                let arg = self.value_ref("an argument `%vN`")?;
                self.list.push(arg.as_u32());
                if !self.eat(Comma) {
                    break;
                }
            }
        }
        self.expect(RParen, "`,` or `)` after an argument")?;
        let args = self.m.pool.make(&self.list);
        Ok(match callee {
            Ok(callee) => InstData::Call { callee, args },
            Err(callee) => InstData::CallIndirect { callee, args },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonic_table_agrees_with_the_opcode_table() {
        for &op in Opcode::ALL {
            assert_eq!(opcode(op.mnemonic().as_bytes()), Some(op));
        }
        for word in ["", "a", "addd", "ad", "icmpp", "uninit2", "trap_if_", "Add"] {
            assert_eq!(opcode(word.as_bytes()), Opcode::from_mnemonic(word), "{word}");
        }
    }

    #[test]
    fn scalar_names() {
        let table = crate::types::TypeTable::new();
        for id in table.ids() {
            let name = id.scalar_name().unwrap_or("");
            assert_eq!(scalar_type(name.as_bytes()), Some(id));
        }
        assert_eq!(scalar_type(b"i33"), None);
        assert_eq!(scalar_type(b"ptr"), None);
    }
}
