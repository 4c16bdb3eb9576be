//! The LLVM 1.0–1.3 opcode table (`llvm13.md` §10.5), declared once as rows: variant, number, mnemonic. The
//! numbers are the file's; 34 and 35 (`userop1`/`userop2`) never occur in files and are not accepted.

macro_rules! for_each_opcode {
    ($m:ident) => {
        $m! {
            Ret 1 "ret"
            Br 2 "br"
            Switch 3 "switch"
            Invoke 4 "invoke"
            Unwind 5 "unwind"
            Add 6 "add"
            Sub 7 "sub"
            Mul 8 "mul"
            Div 9 "div"
            Rem 10 "rem"
            And 11 "and"
            Or 12 "or"
            Xor 13 "xor"
            SetEq 14 "seteq"
            SetNe 15 "setne"
            SetLe 16 "setle"
            SetGe 17 "setge"
            SetLt 18 "setlt"
            SetGt 19 "setgt"
            Malloc 20 "malloc"
            Free 21 "free"
            Alloca 22 "alloca"
            Load 23 "load"
            Store 24 "store"
            GetElementPtr 25 "getelementptr"
            Phi 26 "phi"
            Cast 27 "cast"
            Call 28 "call"
            Shl 29 "shl"
            Shr 30 "shr"
            VaNext 31 "vanext"
            VaArg 32 "vaarg"
            Select 33 "select"
            VolatileLoad 62 "load"
            VolatileStore 63 "store"
        }
    };
}

macro_rules! define_opcode {
    ($($variant:ident $number:literal $mnemonic:literal)*) => {
        /// An LLVM 1.3 instruction opcode; volatile loads and stores have opcodes of their own (62, 63).
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        pub enum Opcode { $(
            #[doc = concat!("`", $mnemonic, "` (", stringify!($number), ")")]
            $variant
        ),* }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),*];

            /// The number written in files.
            pub const fn number(self) -> u32 {
                match self { $(Opcode::$variant => $number),* }
            }

            /// The opcode with file number `n`.
            pub const fn from_number(n: u32) -> Option<Opcode> {
                match n { $($number => Some(Opcode::$variant),)* _ => None }
            }

            /// The assembly mnemonic (`volatile` is printed separately).
            pub const fn mnemonic(self) -> &'static str {
                match self { $(Opcode::$variant => $mnemonic),* }
            }
        }
    };
}

for_each_opcode!(define_opcode);

impl Opcode {
    /// Terminators end a basic block (opcodes 1..5).
    pub fn is_terminator(self) -> bool {
        (1..=5).contains(&self.number())
    }

    /// Binary operators `add` .. `xor` and the comparisons `seteq` .. `setgt` (opcodes 6..19).
    pub fn is_binary(self) -> bool {
        (6..=19).contains(&self.number())
    }

    /// The comparisons `seteq` .. `setgt` (opcodes 14..19), whose result is `bool`.
    pub fn is_comparison(self) -> bool {
        (14..=19).contains(&self.number())
    }

    /// Opcodes a constant expression may use (§8.3): cast, getelementptr, select, binary operators, shifts.
    pub fn is_constant_expr(self) -> bool {
        self.is_binary()
            || matches!(self, Opcode::Cast | Opcode::GetElementPtr | Opcode::Select | Opcode::Shl | Opcode::Shr)
    }
}

#[cfg(test)]
mod tests {
    use super::Opcode;

    #[test]
    fn numbers_are_unique_and_round_trip() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_number(op.number()), Some(op));
        }
        assert_eq!(Opcode::from_number(34), None);
        assert_eq!(Opcode::from_number(0), None);
    }
}
