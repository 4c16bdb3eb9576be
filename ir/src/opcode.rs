//! The one opcode table.
//!
//! Every opcode is declared once, as a row of `for_each_opcode!`: its variant,
//! mnemonic, operand shape, result rule and flags. `Opcode`, its lookups, the
//! printer's names, the reader's dispatch and the verifier's dispatch all expand
//! the same rows (an X-macro, like LLVM's `Instruction.def` or wasmparser's
//! `for_each_operator!`), so adding an opcode means adding a row plus its
//! verifier and interpreter rule, and nothing else by hand. Categories are flag
//! bits, never ranges of discriminants. Binary codec numbers are separate columns
//! in their own crates, never the discriminant.

/// Invokes `$m!` with every opcode row:
/// `Variant "mnemonic" Shape ResultRule [FLAGS]`.
#[macro_export]
macro_rules! for_each_opcode {
    ($m:ident) => {
        $m! {
            Undef       "undef"         Nullary     Annotated   [FORBIDDEN]
            Const       "const"         Const       Annotated   [PURE]
            ConstDecl   "const_decl"    ConstDecl   Annotated   [PURE]
            Mov         "mov"           Unary       Annotated   [PURE]
            Not         "not"           Unary       Annotated   [PURE]
            Add         "add"           Binary      Annotated   [PURE]
            Sub         "sub"           Binary      Annotated   [PURE]
            Mul         "mul"           Binary      Annotated   [PURE]
            Sdiv        "sdiv"          Binary      Annotated   [MAY_TRAP]
            Udiv        "udiv"          Binary      Annotated   [MAY_TRAP]
            Srem        "srem"          Binary      Annotated   [MAY_TRAP]
            Urem        "urem"          Binary      Annotated   [MAY_TRAP]
            And         "and"           Binary      Annotated   [PURE]
            Or          "or"            Binary      Annotated   [PURE]
            Xor         "xor"           Binary      Annotated   [PURE]
            Shl         "shl"           Binary      Annotated   [PURE]
            Lshr        "lshr"          Binary      Annotated   [PURE]
            Ashr        "ashr"          Binary      Annotated   [PURE]
            Fadd        "fadd"          Binary      Annotated   [PURE]
            Fsub        "fsub"          Binary      Annotated   [PURE]
            Fmul        "fmul"          Binary      Annotated   [PURE]
            Fdiv        "fdiv"          Binary      Annotated   [PURE]
            Frem        "frem"          Binary      Annotated   [PURE]
            UaddChk     "uadd_chk"      Binary      Annotated   [PURE | CHECKED]
            UsubChk     "usub_chk"      Binary      Annotated   [PURE | CHECKED]
            UmulChk     "umul_chk"      Binary      Annotated   [PURE | CHECKED]
            SaddChk     "sadd_chk"      Binary      Annotated   [PURE | CHECKED]
            SsubChk     "ssub_chk"      Binary      Annotated   [PURE | CHECKED]
            SmulChk     "smul_chk"      Binary      Annotated   [PURE | CHECKED]
            Cmp         "cmp"           Compare     Bool        [PURE]
            Icmp        "icmp"          Compare     Bool        [PURE]
            Fcmp        "fcmp"          Compare     Bool        [PURE]
            Select      "select"        Select      Annotated   [PURE]
            Zext        "zext"          Cast        Annotated   [PURE]
            Sext        "sext"          Cast        Annotated   [PURE]
            Trunc       "trunc"         Cast        Annotated   [PURE]
            Fext        "fext"          Cast        Annotated   [PURE]
            Ftrunc      "ftrunc"        Cast        Annotated   [PURE]
            ItofS       "itof_s"        Cast        Annotated   [PURE]
            ItofU       "itof_u"        Cast        Annotated   [PURE]
            FtoiS       "ftoi_s"        Cast        Annotated   [MAY_TRAP]
            FtoiU       "ftoi_u"        Cast        Annotated   [MAY_TRAP]
            Bitcast     "bitcast"       Cast        Annotated   [PURE]
            Ptrtoint    "ptrtoint"      Cast        Annotated   [PURE]
            Inttoptr    "inttoptr"      Cast        Annotated   [PURE]
            Phi         "phi"           Phi         Annotated   [PURE]
            Extract     "extract"       Extract     Annotated   [PURE]
            Alloca      "alloca"        Memory      Annotated   [MAY_TRAP]
            Load        "load"          Memory      Annotated   [READS | MAY_TRAP]
            Uninit      "uninit"        Memory      NoValue     [WRITES | MAY_TRAP]
            Store       "store"         Store       NoValue     [WRITES | MAY_TRAP]
            Memcpy      "memcpy"        Bulk        NoValue     [READS | WRITES | MAY_TRAP]
            Memset      "memset"        Bulk        NoValue     [WRITES | MAY_TRAP]
            Gep         "gep"           Gep         Annotated   [MAY_TRAP]
            NullFunction "null_function" FuncRef    Annotated   [PURE]
            FunctionAddr "function_addr" FuncRef    Annotated   [PURE]
            Call        "call"          Call        Annotated   [CALL | READS | WRITES | MAY_TRAP]
            TrapIf      "trap_if"       TrapIf      NoValue     [MAY_TRAP]
            Br          "br"            Br          NoValue     [TERMINATOR]
            Cbr         "cbr"           Cbr         NoValue     [TERMINATOR]
            Switch      "switch"        Switch      NoValue     [TERMINATOR]
            Ret         "ret"           Ret         NoValue     [TERMINATOR]
            Trap        "trap"          Trap        NoValue     [TERMINATOR | MAY_TRAP]
        }
    };
}

/// The operand layout of an instruction; also its [`crate::InstData`] variant.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Shape {
    /// No operands (`undef T`).
    Nullary,
    /// A literal constant.
    Const,
    /// A named constant expression.
    ConstDecl,
    /// One value operand.
    Unary,
    /// Two value operands.
    Binary,
    /// A predicate and two value operands.
    Compare,
    /// Condition and two arms.
    Select,
    /// One value operand converted to the result type.
    Cast,
    /// Incoming (value, block) pairs.
    Phi,
    /// Aggregate operand and field index.
    Extract,
    /// A type, an alignment and an optional pointer (`alloca`, `load`, `uninit`).
    Memory,
    /// Value, pointer, alignment.
    Store,
    /// Three operands and an alignment (`memcpy`, `memset`).
    Bulk,
    /// Base pointer and index list.
    Gep,
    /// An optional function identity (`null_function`, `function_addr`).
    FuncRef,
    /// A direct or indirect callee and an argument list.
    Call,
    /// A condition and a trap reason.
    TrapIf,
    /// Unconditional branch.
    Br,
    /// Conditional branch.
    Cbr,
    /// Multi-way branch on an integer or bool.
    Switch,
    /// Function return.
    Ret,
    /// Unconditional trap.
    Trap,
}

/// What result an opcode defines.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ResultRule {
    /// No result id.
    NoValue,
    /// A result whose type is stored on the value and checked by the opcode's rule
    /// (`call` defines one only for non-void callees).
    Annotated,
    /// A `bool` result.
    Bool,
}

/// Category bits of an opcode.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Flags(u8);

impl Flags {
    /// No side effects and no traps.
    pub const PURE: Flags = Flags(1);
    /// Ends a block.
    pub const TERMINATOR: Flags = Flags(2);
    /// Can trap at run time.
    pub const MAY_TRAP: Flags = Flags(4);
    /// Reads memory.
    pub const READS: Flags = Flags(8);
    /// Writes memory.
    pub const WRITES: Flags = Flags(16);
    /// Transfers control to another function.
    pub const CALL: Flags = Flags(32);
    /// Checked arithmetic: the result is `tuple<T, bool>`.
    pub const CHECKED: Flags = Flags(64);
    /// Parsed for compatibility but rejected by the verifier (`undef`).
    pub const FORBIDDEN: Flags = Flags(128);

    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        Flags(self.0 | rhs.0)
    }
}

macro_rules! define_opcode {
    ($($variant:ident $mnemonic:literal $shape:ident $result:ident [$($flag:ident)|+])*) => {
        /// An instruction opcode.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $mnemonic, "`")]
                $variant,
            )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),*];

            /// The printed mnemonic.
            pub const fn mnemonic(self) -> &'static str {
                match self { $(Opcode::$variant => $mnemonic,)* }
            }

            /// The operand shape.
            pub const fn shape(self) -> Shape {
                match self { $(Opcode::$variant => Shape::$shape,)* }
            }

            /// The result rule.
            pub const fn result(self) -> ResultRule {
                match self { $(Opcode::$variant => ResultRule::$result,)* }
            }

            /// The category flags.
            pub const fn flags(self) -> Flags {
                match self { $(Opcode::$variant => Flags($(Flags::$flag.0)|+),)* }
            }

            /// The opcode with this mnemonic.
            pub fn from_mnemonic(text: &str) -> Option<Opcode> {
                match text { $($mnemonic => Some(Opcode::$variant),)* _ => None }
            }
        }
    };
}

for_each_opcode!(define_opcode);

impl Opcode {
    /// Whether this opcode ends a block.
    #[inline]
    pub const fn is_terminator(self) -> bool {
        self.flags().contains(Flags::TERMINATOR)
    }
    /// Whether this is a cast opcode.
    #[inline]
    pub const fn is_cast(self) -> bool {
        matches!(self.shape(), Shape::Cast)
    }
    /// Whether this is checked arithmetic.
    #[inline]
    pub const fn is_checked(self) -> bool {
        self.flags().contains(Flags::CHECKED)
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.mnemonic())
    }
}

macro_rules! predicates {
    ($(#[$meta:meta])* $name:ident { $($variant:ident $text:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        #[repr(u8)]
        pub enum $name { $(#[doc = concat!("`", $text, "`")] $variant),* }

        impl $name {
            /// Every predicate, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// The printed keyword.
            pub const fn keyword(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
            /// The predicate with this keyword.
            pub fn from_keyword(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }
            /// The predicate with this stored code.
            pub fn from_code(code: u8) -> Option<$name> {
                Self::ALL.get(usize::from(code)).copied()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.keyword())
            }
        }
    };
}

predicates!(
    /// Predicates of `cmp` (integers, bools, pointers and floats).
    CmpOp {
        Eq "eq", Ne "ne", Slt "slt", Sle "sle", Sgt "sgt", Sge "sge",
        Ult "ult", Ule "ule", Ugt "ugt", Uge "uge",
        Feq "feq", Fne "fne", Flt "flt", Fle "fle", Fgt "fgt", Fge "fge",
    }
);

predicates!(
    /// Predicates of `icmp`.
    ICmpPred {
        Eq "eq", Ne "ne", Slt "slt", Sle "sle", Sgt "sgt", Sge "sge",
        Ult "ult", Ule "ule", Ugt "ugt", Uge "uge",
    }
);

predicates!(
    /// Predicates of `fcmp` (ordered, unordered, and the ord/uno tests).
    FCmpPred {
        Oeq "oeq", One "one", Olt "olt", Ole "ole", Ogt "ogt", Oge "oge",
        Ord "ord", Uno "uno", Ueq "ueq", Une "une", Ult "ult", Ule "ule", Ugt "ugt", Uge "uge",
    }
);

macro_rules! binary_ops {
    ($($variant:ident),* $(,)?) => {
        /// The operations of the `bin` builder method: integer and float arithmetic,
        /// bitwise operations and shifts (checked arithmetic has its own method).
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum BinOp {
            $(
                #[doc = concat!("[`Opcode::", stringify!($variant), "`]")]
                $variant,
            )*
        }

        impl BinOp {
            /// Every binary operation.
            pub const ALL: &'static [BinOp] = &[$(BinOp::$variant),*];
            /// The opcode of this operation.
            pub const fn opcode(self) -> Opcode {
                match self { $(BinOp::$variant => Opcode::$variant,)* }
            }
        }
    };
}

binary_ops!(Add, Sub, Mul, Sdiv, Udiv, Srem, Urem, And, Or, Xor, Shl, Lshr, Ashr, Fadd, Fsub, Fmul, Fdiv, Frem);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonics_round_trip_and_are_unique() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_mnemonic(op.mnemonic()), Some(op));
        }
        let mut names: Vec<_> = Opcode::ALL.iter().map(|op| op.mnemonic()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Opcode::ALL.len());
    }

    #[test]
    fn categories_come_from_flags() {
        let terminators: Vec<_> = Opcode::ALL.iter().filter(|op| op.is_terminator()).map(|op| op.mnemonic()).collect();
        assert_eq!(terminators, ["br", "cbr", "switch", "ret", "trap"]);
        assert!(Opcode::SmulChk.is_checked() && !Opcode::Mul.is_checked());
        assert!(Opcode::Inttoptr.is_cast());
        assert_eq!(Opcode::Store.result(), ResultRule::NoValue);
    }

    #[test]
    fn predicate_codes() {
        for &p in FCmpPred::ALL {
            assert_eq!(FCmpPred::from_code(p as u8), Some(p));
            assert_eq!(FCmpPred::from_keyword(p.keyword()), Some(p));
        }
        assert_eq!(CmpOp::from_keyword("fge"), Some(CmpOp::Fge));
        assert_eq!(ICmpPred::from_keyword("feq"), None);
    }
}
