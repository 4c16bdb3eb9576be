//! Tracked memory (whale-upstream §g.2): every check and its trap, pointer
//! fragments, bulk operations, aggregates in memory, and allocation lifetime.

mod common;

use common::*;
use interp::{Interpreter, MemoryTrap, Options, Permissions, Pointer, TrapReason, Value};
use ir::{Callee, CastOp, CmpOp, FunctionSignature, Type};

fn mem(t: MemoryTrap) -> TrapReason {
    TrapReason::Memory(t)
}

fn ptr(t: Type) -> Type {
    Type::ptr(t)
}

#[test]
fn null_and_missing_provenance() {
    let m = function(&[], Type::Void, |f, _| {
        let zero = f.const_u64(0);
        let null = f.cast(CastOp::Inttoptr, zero, ptr(Type::I32));
        let v = f.const_i32(1);
        f.store(Type::I32, v, null, 4);
        None
    });
    let t = trap(&m, &[]);
    assert_eq!(t.reason, mem(MemoryTrap::NullPointer));
    assert_eq!(t.reason.to_string(), "null pointer access");
    // A pointer passed in from the embedder without provenance.
    let m = function(&[ptr(Type::U8)], Type::U8, |f, p| Some(f.load(Type::U8, p[0], 1)));
    assert_eq!(reason(&m, &[Value::Ptr(Pointer::from_address(0x2000))]), mem(MemoryTrap::MissingProvenance));
    assert_eq!(reason(&m, &[Value::Ptr(Pointer::NULL)]), mem(MemoryTrap::NullPointer));
    assert_eq!(mem(MemoryTrap::MissingProvenance).to_string(), "pointer has no tracked allocation provenance");
}

/// `leak() -> ptr<i64>` returns the address of its own alloca; `f` loads through it.
fn dangling_module(second_call: bool) -> ir::Module {
    let mut mb = builder();
    let mut leak = mb.begin_function("leak", vec![], ptr(Type::I64));
    let slot = leak.alloca(Type::I64, 8);
    let v = leak.const_i64(5);
    leak.store(Type::I64, v, slot, 8);
    leak.ret(Some(slot));
    leak.finish();
    let mut f = mb.begin_function("f", vec![], Type::I64);
    let leak_id = f.function_id("leak").unwrap();
    let p = f.call(Callee::Direct(leak_id), vec![]).unwrap().unwrap();
    if second_call {
        // The same stack address is reused by a new allocation with a new generation.
        let q = f.call(Callee::Direct(leak_id), vec![]).unwrap().unwrap();
        let same = f.cmp(CmpOp::Eq, ptr(Type::I64), p, q);
        let _ = same;
    }
    let loaded = f.load(Type::I64, p, 8);
    f.ret(Some(loaded));
    f.finish();
    mb.finish()
}

#[test]
fn allocations_die_when_their_frame_returns() {
    let mut i = Interpreter::new(&dangling_module(false), Options::default()).unwrap();
    let e = i.call("f", &[]).unwrap_err();
    let t = e.as_trap().unwrap();
    assert_eq!(t.reason, mem(MemoryTrap::ExpiredAllocation));
    assert_eq!(t.reason.to_string(), "allocation lifetime has ended");
    let mut i = Interpreter::new(&dangling_module(true), Options::default()).unwrap();
    assert_eq!(i.call("f", &[]).unwrap_err().as_trap().unwrap().reason, mem(MemoryTrap::ExpiredAllocation));
    // Nothing stays allocated after a call.
    assert_eq!((i.memory_in_use(), i.live_allocations()), (0, 0));
}

#[test]
fn bounds() {
    // An i64 load from a 4-byte allocation.
    let m = function(&[], Type::I64, |f, _| {
        let slot = f.alloca(Type::I32, 4);
        let wide = f.cast(CastOp::Bitcast, slot, ptr(Type::I64));
        Some(f.load(Type::I64, wide, 4))
    });
    let t = trap(&m, &[]);
    assert_eq!(t.reason, mem(MemoryTrap::OutOfBounds));
    assert_eq!(t.reason.to_string(), "pointer range is outside its allocation");
    // gep may form the one-past-the-end pointer but not access through it, nor go further.
    let elem = |index: i64, access: bool| {
        function(&[], Type::I32, move |f, _| {
            let arr = f.alloca(Type::array(Type::I32, 4), 4);
            let zero = f.const_i64(0);
            let i = f.const_i64(index);
            let p = f.gep(ptr(Type::I32), arr, &[zero, i]);
            if access {
                Some(f.load(Type::I32, p, 4))
            } else {
                Some(f.const_i32(0))
            }
        })
    };
    assert_eq!(value(&elem(4, false), &[]), Value::I32(0));
    let t = trap(&elem(4, true), &[]);
    assert_eq!((t.reason, t.site.inst), (mem(MemoryTrap::OutOfBounds), 4));
    let t = trap(&elem(5, false), &[]);
    assert_eq!((t.reason, t.site.inst), (mem(MemoryTrap::OutOfBounds), 3));
    let t = trap(&elem(-1, false), &[]);
    assert_eq!((t.reason, t.site.inst), (mem(MemoryTrap::OutOfBounds), 3));
    // Runtime indices (the fused gep + load traps at the right instruction).
    let m = function(&[Type::I64], Type::I32, |f, p| {
        let arr = f.alloca(Type::array(Type::I32, 4), 4);
        let zero = f.const_i64(0);
        let q = f.gep(ptr(Type::I32), arr, &[zero, p[0]]);
        Some(f.load(Type::I32, q, 4))
    });
    let t = trap(&m, &[Value::I64(5)]);
    assert_eq!((t.reason, t.site.inst, t.steps), (mem(MemoryTrap::OutOfBounds), 2, 3));
    let t = trap(&m, &[Value::I64(4)]);
    assert_eq!((t.reason, t.site.inst, t.steps), (mem(MemoryTrap::OutOfBounds), 3, 4));
    let t = trap(&m, &[Value::I64(0)]);
    assert_eq!((t.reason, t.site.inst, t.steps), (mem(MemoryTrap::Uninitialized { offset: 0 }), 3, 4));
}

/// `f(i, j)` stores `v` at `arr[i]` of a 4-element array and returns `arr[j]`;
/// each runtime-index `gep` fuses with its access. Instructions: 0 and 1 the
/// constants, 2 the alloca, 3 and 4 the store's gep and store, 5 and 6 the
/// load's gep and load.
fn element_module(ty: Type, v: impl FnOnce(&mut ir::FunctionBuilder<'_>) -> ir::ValueId) -> ir::Module {
    function(&[Type::I64, Type::I64], ty.clone(), |f, p| {
        let zero = f.const_i64(0);
        let v = v(f);
        let arr = f.alloca(Type::array(ty.clone(), 4), 1);
        let at = f.gep(ptr(ty.clone()), arr, &[zero, p[0]]);
        f.store(ty.clone(), v, at, 1);
        let from = f.gep(ptr(ty.clone()), arr, &[zero, p[1]]);
        Some(f.load(ty, from, 1))
    })
}

#[test]
fn element_accesses_of_every_width_check_everything() {
    type Make = fn(&mut ir::FunctionBuilder<'_>) -> ir::ValueId;
    let cases: [(Type, Make, Value); 9] = [
        (Type::U8, |f| f.const_u8(200), Value::U8(200)),
        (Type::I8, |f| f.const_i8(-3), Value::I8(-3)),
        (Type::Bool, |f| f.const_bool(true), Value::Bool(true)),
        (Type::U1, |f| f.const_u1(1), Value::U1(1)),
        (Type::I64, |f| f.const_i64(-5), Value::I64(-5)),
        (Type::U64, |f| f.const_u64(u64::MAX), Value::U64(u64::MAX)),
        (Type::F64, |f| f.const_f64(-0.5), Value::F64(-0.5)),
        (Type::I32, |f| f.const_i32(-7), Value::I32(-7)),
        (Type::U128, |f| f.const_u128(u128::MAX - 1), Value::U128(u128::MAX - 1)),
    ];
    for (ty, make, expected) in cases {
        let size = match &ty {
            Type::U8 | Type::I8 | Type::Bool | Type::U1 => 1,
            Type::I32 => 4,
            Type::U128 => 16,
            _ => 8,
        };
        let m = element_module(ty.clone(), make);
        let at = |i: i64, j: i64| {
            let t = trap(&m, &[Value::I64(i), Value::I64(j)]);
            (t.reason, t.site.inst, t.steps)
        };
        assert_eq!(value(&m, &[Value::I64(2), Value::I64(2)]), expected, "{ty:?}");
        assert_eq!(value(&m, &[Value::I64(3), Value::I64(3)]), expected, "{ty:?}");
        // One past the end may be formed but not accessed; further, or before the start, not formed.
        assert_eq!(at(4, 0), (mem(MemoryTrap::OutOfBounds), 4, 5), "{ty:?}");
        assert_eq!(at(5, 0), (mem(MemoryTrap::OutOfBounds), 3, 4), "{ty:?}");
        assert_eq!(at(-1, 0), (mem(MemoryTrap::OutOfBounds), 3, 4), "{ty:?}");
        assert_eq!(at(i64::MIN, 0), (mem(MemoryTrap::AddressOverflow), 3, 4), "{ty:?}");
        // i64::MAX bytes further is still an address; twice that is not.
        let far = if size == 1 { MemoryTrap::OutOfBounds } else { MemoryTrap::AddressOverflow };
        assert_eq!(at(i64::MAX, 0), (mem(far), 3, 4), "{ty:?}");
        assert_eq!(at(0, 4), (mem(MemoryTrap::OutOfBounds), 6, 7), "{ty:?}");
        assert_eq!(at(0, -2), (mem(MemoryTrap::OutOfBounds), 5, 6), "{ty:?}");
        // The neighbour of a written element is uninitialised.
        assert_eq!(at(0, 1), (mem(MemoryTrap::Uninitialized { offset: size }), 6, 7), "{ty:?}");
    }
}

#[test]
fn element_accesses_through_every_kind_of_pointer() {
    // `f(p, i)`: `p[i] = 1` then `p[i]` (i64 elements), through a pointer from the embedder.
    let store_load = function(&[ptr(Type::I64), Type::U64], Type::I64, |f, p| {
        let one = f.const_i64(1);
        let at = f.gep(ptr(Type::I64), p[0], &[p[1]]);
        f.store(Type::I64, one, at, 8);
        let from = f.gep(ptr(Type::I64), p[0], &[p[1]]);
        Some(f.load(Type::I64, from, 8))
    });
    let load = function(&[ptr(Type::U8), Type::U64], Type::U8, |f, p| {
        let from = f.gep(ptr(Type::U8), p[0], &[p[1]]);
        Some(f.load(Type::U8, from, 1))
    });
    let store = function(&[ptr(Type::U8), Type::U64], Type::Void, |f, p| {
        let v = f.const_u8(9);
        let at = f.gep(ptr(Type::U8), p[0], &[p[1]]);
        f.store(Type::U8, v, at, 1);
        None
    });
    let call = |i: &mut Interpreter, p: Pointer, index: u64| {
        i.call("f", &[Value::Ptr(p), Value::U64(index)])
            .map(|o| o.value)
            .map_err(|e| e.as_trap().unwrap().reason.clone())
    };
    let mut i = Interpreter::new(&load, Options::default()).unwrap();
    let read_only = i.allocate(b"abc", Permissions::READ_ONLY).unwrap();
    let write_only = i.allocate(b"abc", Permissions::WRITE_ONLY).unwrap();
    assert_eq!(call(&mut i, read_only, 2), Ok(Some(Value::U8(b'c'))));
    assert_eq!(call(&mut i, write_only, 0), Err(mem(MemoryTrap::PermissionDenied)));
    assert_eq!(call(&mut i, read_only, 3), Err(mem(MemoryTrap::OutOfBounds)));
    // An unsigned index of 2^63 or more does not fit the fast path's i64 arithmetic.
    assert_eq!(call(&mut i, read_only, 1 << 63), Err(mem(MemoryTrap::OutOfBounds)));
    assert_eq!(call(&mut i, read_only, u64::MAX), Err(mem(MemoryTrap::AddressOverflow)));
    assert_eq!(call(&mut i, Pointer::NULL, 0), Err(mem(MemoryTrap::NullPointer)));
    assert_eq!(call(&mut i, Pointer::from_address(read_only.address()), 0), Err(mem(MemoryTrap::MissingProvenance)));
    let mut i = Interpreter::new(&store, Options::default()).unwrap();
    let read_only = i.allocate(b"abc", Permissions::READ_ONLY).unwrap();
    let write_only = i.allocate(b"abc", Permissions::WRITE_ONLY).unwrap();
    assert_eq!(call(&mut i, read_only, 1), Err(mem(MemoryTrap::PermissionDenied)));
    assert_eq!(call(&mut i, write_only, 1), Ok(None));
    let mut i = Interpreter::new(&store_load, Options::default()).unwrap();
    let cells = i.allocate(&[0; 24], Permissions::READ_WRITE).unwrap();
    assert_eq!(call(&mut i, cells, 2), Ok(Some(Value::I64(1))));
    assert_eq!(call(&mut i, cells, 3), Err(mem(MemoryTrap::OutOfBounds)));
    // A misaligned base: i64 elements from byte offset 1 of the allocation, with align 8.
    let misaligned = function(&[Type::U64], Type::I64, |f, p| {
        let bytes = f.alloca(Type::array(Type::U8, 32), 16);
        let zero = f.const_i64(0);
        let one = f.const_i64(1);
        let odd = f.gep(ptr(Type::U8), bytes, &[zero, one]);
        let cells = f.cast(CastOp::Bitcast, odd, ptr(Type::I64));
        let at = f.gep(ptr(Type::I64), cells, &[p[0]]);
        Some(f.load(Type::I64, at, 8))
    });
    assert!(matches!(
        reason(&misaligned, &[Value::U64(1)]),
        TrapReason::Memory(MemoryTrap::Misaligned { alignment: 8, .. })
    ));
    // Through a pointer into a frame that has returned.
    let mut mb = builder();
    let mut leak = mb.begin_function("leak", vec![], ptr(Type::I64));
    let slot = leak.alloca(Type::array(Type::I64, 4), 8);
    let zero = leak.const_i64(0);
    let first = leak.gep(ptr(Type::I64), slot, &[zero, zero]);
    leak.ret(Some(first));
    leak.finish();
    let mut f = mb.begin_function("f", vec![("i".into(), Type::I64)], Type::I64);
    let i_value = f.param_value(0);
    let leak_id = f.function_id("leak").unwrap();
    let p = f.call(Callee::Direct(leak_id), vec![]).unwrap().unwrap();
    let at = f.gep(ptr(Type::I64), p, &[i_value]);
    let v = f.load(Type::I64, at, 8);
    f.ret(Some(v));
    f.finish();
    let m = mb.finish();
    assert_eq!(reason(&m, &[Value::I64(1)]), mem(MemoryTrap::ExpiredAllocation));
}

#[test]
fn address_overflow() {
    let m = function(&[Type::I64], ptr(Type::I64), |f, p| {
        let slot = f.alloca(Type::I64, 8);
        Some(f.gep(ptr(Type::I64), slot, &[p[0]]))
    });
    assert_eq!(reason(&m, &[Value::I64(i64::MAX)]), mem(MemoryTrap::AddressOverflow));
    assert_eq!(reason(&m, &[Value::I64(i64::MIN)]), mem(MemoryTrap::AddressOverflow));
    assert_eq!(mem(MemoryTrap::AddressOverflow).to_string(), "64-bit address arithmetic overflow");
    let m = function(&[Type::U128], ptr(Type::I8), |f, p| {
        let slot = f.alloca(Type::I8, 1);
        Some(f.gep(ptr(Type::I8), slot, &[p[0]]))
    });
    assert_eq!(reason(&m, &[Value::U128(u128::MAX)]), mem(MemoryTrap::AddressOverflow));
    assert_eq!(reason(&m, &[Value::U128(2)]), mem(MemoryTrap::OutOfBounds));
}

#[test]
fn permissions() {
    let store = function(&[ptr(Type::U8)], Type::Void, |f, p| {
        let v = f.const_u8(7);
        f.store(Type::U8, v, p[0], 1);
        None
    });
    let load = function(&[ptr(Type::U8)], Type::U8, |f, p| Some(f.load(Type::U8, p[0], 1)));
    let mut i = Interpreter::new(&store, Options::default()).unwrap();
    let read_only = i.allocate(b"abc", Permissions::READ_ONLY).unwrap();
    let t = i.call("f", &[Value::Ptr(read_only)]).unwrap_err();
    assert_eq!(t.as_trap().unwrap().reason, mem(MemoryTrap::PermissionDenied));
    assert_eq!(mem(MemoryTrap::PermissionDenied).to_string(), "pointer access permission denied");
    let writable = i.allocate(b"abc", Permissions::READ_WRITE).unwrap();
    i.call("f", &[Value::Ptr(writable)]).unwrap();
    assert_eq!(i.read_memory(writable, 3).unwrap(), b"\x07bc");
    let mut i = Interpreter::new(&load, Options::default()).unwrap();
    let write_only = i.allocate(b"x", Permissions::WRITE_ONLY).unwrap();
    assert_eq!(
        i.call("f", &[Value::Ptr(write_only)]).unwrap_err().as_trap().unwrap().reason,
        mem(MemoryTrap::PermissionDenied)
    );
    let readable = i.allocate(b"x", Permissions::READ_ONLY).unwrap();
    assert_eq!(i.call("f", &[Value::Ptr(readable)]).unwrap().value, Some(Value::U8(b'x')));
}

#[test]
fn alignment() {
    let m = function(&[], Type::I32, |f, _| {
        let bytes = f.alloca(Type::array(Type::U8, 16), 16);
        let zero = f.const_i64(0);
        let one = f.const_i64(1);
        let p = f.gep(ptr(Type::U8), bytes, &[zero, one]);
        let q = f.cast(CastOp::Bitcast, p, ptr(Type::I32));
        Some(f.load(Type::I32, q, 4))
    });
    let t = trap(&m, &[]);
    let MemoryTrap::Misaligned { address, alignment } = (match t.reason {
        TrapReason::Memory(m) => m,
        other => panic!("{other:?}"),
    }) else {
        panic!("misaligned")
    };
    assert_eq!((address % 16, alignment), (1, 4));
    assert_eq!(
        mem(MemoryTrap::Misaligned { address: 0x1001, alignment: 4 }).to_string(),
        "address 0x1001 does not satisfy alignment 4"
    );
    // The access's declared alignment is what is checked: align 1 is fine.
    let m = function(&[], Type::Void, |f, _| {
        let bytes = f.alloca(Type::array(Type::U8, 16), 16);
        let zero = f.const_i64(0);
        let one = f.const_i64(1);
        let p = f.gep(ptr(Type::U8), bytes, &[zero, one]);
        let q = f.cast(CastOp::Bitcast, p, ptr(Type::I32));
        let v = f.const_i32(3);
        f.store(Type::I32, v, q, 1);
        None
    });
    run(&m, &[]).unwrap();
    // Allocations get at least their natural (and requested) alignment.
    for (ty, align, expected) in
        [(Type::I64, 8, 8u64), (Type::I8, 64, 64), (Type::array(Type::U8, 16), 1, 16), (Type::I128, 16, 16)]
    {
        let m = function(&[], Type::U64, move |f, _| {
            let _pad = f.alloca(Type::I8, 1);
            let slot = f.alloca(ty, align);
            Some(f.cast(CastOp::Ptrtoint, slot, Type::U64))
        });
        let Value::U64(a) = value(&m, &[]) else { panic!() };
        assert_eq!(a % expected, 0, "{a:#x}");
    }
}

#[test]
fn initialisation() {
    let m = function(&[], Type::I32, |f, _| {
        let slot = f.alloca(Type::I32, 4);
        Some(f.load(Type::I32, slot, 4))
    });
    let t = trap(&m, &[]);
    assert_eq!(t.reason, mem(MemoryTrap::Uninitialized { offset: 0 }));
    assert_eq!(t.reason.to_string(), "uninitialized byte at allocation offset 0");
    // One byte written: the first uninitialised byte is at offset 1.
    let m = function(&[], Type::I32, |f, _| {
        let slot = f.alloca(Type::I32, 4);
        let b = f.cast(CastOp::Bitcast, slot, ptr(Type::U8));
        let v = f.const_u8(1);
        f.store(Type::U8, v, b, 1);
        Some(f.load(Type::I32, slot, 4))
    });
    assert_eq!(reason(&m, &[]), mem(MemoryTrap::Uninitialized { offset: 1 }));
    // `uninit` makes initialised bytes uninitialised again.
    let m = function(&[], Type::I32, |f, _| {
        let slot = f.alloca(Type::I32, 4);
        let v = f.const_i32(9);
        f.store(Type::I32, v, slot, 4);
        f.uninit(Type::I32, slot, 4);
        Some(f.load(Type::I32, slot, 4))
    });
    assert_eq!(reason(&m, &[]), mem(MemoryTrap::Uninitialized { offset: 0 }));
    // A bool must be stored as 0 or 1.
    let m = function(&[Type::U8], Type::Bool, |f, p| {
        let slot = f.alloca(Type::U8, 1);
        f.store(Type::U8, p[0], slot, 1);
        let b = f.cast(CastOp::Bitcast, slot, ptr(Type::Bool));
        Some(f.load(Type::Bool, b, 1))
    });
    assert_eq!(value(&m, &[Value::U8(1)]), Value::Bool(true));
    let t = trap(&m, &[Value::U8(2)]);
    assert_eq!(t.reason, mem(MemoryTrap::InvalidBool { byte: 2 }));
    assert_eq!(t.reason.to_string(), "invalid Bool storage byte 0x02");
}

#[test]
fn pointer_fragments() {
    // A pointer stored and loaded back keeps its provenance; a copy of its bytes too.
    let m = function(&[Type::U8], Type::I64, |f, p| {
        let target = f.alloca(Type::I64, 8);
        let v = f.const_i64(41);
        f.store(Type::I64, v, target, 8);
        let cells = f.alloca(Type::array(ptr(Type::I64), 2), 8);
        let zero = f.const_i64(0);
        let one = f.const_i64(1);
        let first = f.gep(ptr(ptr(Type::I64)), cells, &[zero, zero]);
        let second = f.gep(ptr(ptr(Type::I64)), cells, &[zero, one]);
        f.store(ptr(Type::I64), target, first, 8);
        let src = f.cast(CastOp::Bitcast, first, ptr(Type::U8));
        let dst = f.cast(CastOp::Bitcast, second, ptr(Type::U8));
        let eight = f.const_u64(8);
        f.memcpy(dst, src, eight, 8);
        // Mode 1: rewrite one byte of the copy with the value it already has.
        let mode = f.const_u8(1);
        let rewrite = f.cmp(CmpOp::Eq, Type::U8, p[0], mode);
        let yes = f.create_block("rewrite");
        let join = f.create_block("join");
        f.cbr(rewrite, yes, join);
        f.set_insert_point(yes);
        let byte = f.load(Type::U8, dst, 1);
        f.store(Type::U8, byte, dst, 1);
        f.br(join);
        f.set_insert_point(join);
        let loaded = f.load(ptr(Type::I64), second, 8);
        Some(f.load(Type::I64, loaded, 8))
    });
    assert_eq!(value(&m, &[Value::U8(0)]), Value::I64(41));
    assert_eq!(reason(&m, &[Value::U8(1)]), mem(MemoryTrap::MissingProvenance));
    // The bytes of a stored pointer read as an integer are its address.
    let m = function(&[], Type::Bool, |f, _| {
        let target = f.alloca(Type::I64, 8);
        let cell = f.alloca(ptr(Type::I64), 8);
        f.store(ptr(Type::I64), target, cell, 8);
        let as_int = f.cast(CastOp::Bitcast, cell, ptr(Type::U64));
        let bytes = f.load(Type::U64, as_int, 8);
        let address = f.cast(CastOp::Ptrtoint, target, Type::U64);
        Some(f.cmp(CmpOp::Eq, Type::U64, bytes, address))
    });
    assert_eq!(value(&m, &[]), Value::Bool(true));
    // memset clears fragments.
    let m = function(&[], Type::I64, |f, _| {
        let target = f.alloca(Type::I64, 8);
        let cell = f.alloca(ptr(Type::I64), 8);
        f.store(ptr(Type::I64), target, cell, 8);
        let bytes = f.cast(CastOp::Bitcast, cell, ptr(Type::U8));
        let zero = f.const_u8(0);
        let eight = f.const_u64(8);
        f.memset(bytes, zero, eight, 1);
        let loaded = f.load(ptr(Type::I64), cell, 8);
        Some(f.load(Type::I64, loaded, 8))
    });
    assert_eq!(reason(&m, &[]), mem(MemoryTrap::NullPointer));
}

#[test]
fn memcpy_and_memset() {
    let copy = |dst: i64, src: i64, len: u64| {
        function(&[], Type::I64, move |f, _| {
            let buf = f.alloca(Type::array(Type::U8, 16), 16);
            let zero = f.const_i64(0);
            let byte = f.const_u8(0xab);
            let sixteen = f.const_u64(16);
            let base = f.gep(ptr(Type::U8), buf, &[zero, zero]);
            f.memset(base, byte, sixteen, 16);
            let d = f.const_i64(dst);
            let s = f.const_i64(src);
            let dp = f.gep(ptr(Type::U8), buf, &[zero, d]);
            let sp = f.gep(ptr(Type::U8), buf, &[zero, s]);
            let n = f.const_u64(len);
            f.memcpy(dp, sp, n, 1);
            let wide = f.cast(CastOp::Bitcast, base, ptr(Type::I64));
            Some(f.load(Type::I64, wide, 8))
        })
    };
    assert_eq!(value(&copy(0, 8, 8), &[]), Value::I64(0xabab_abab_abab_ababu64 as i64));
    let t = trap(&copy(0, 4, 8), &[]);
    assert_eq!(t.reason, mem(MemoryTrap::OverlappingCopy));
    assert_eq!(t.reason.to_string(), "overlapping memcpy ranges");
    assert_eq!(reason(&copy(3, 3, 1), &[]), mem(MemoryTrap::OverlappingCopy));
    assert_eq!(reason(&copy(8, 9, 8), &[]), mem(MemoryTrap::OutOfBounds));
    // Zero-length copies and fills do nothing, even through null pointers.
    let m = function(&[], Type::Void, |f, _| {
        let zero = f.const_u64(0);
        let null = f.cast(CastOp::Inttoptr, zero, ptr(Type::U8));
        let byte = f.const_u8(1);
        f.memcpy(null, null, zero, 1);
        f.memset(null, byte, zero, 1);
        None
    });
    run(&m, &[]).unwrap();
    // Copies move initialisation too: copying uninitialised bytes keeps them so.
    let m = function(&[], Type::I32, |f, _| {
        let a = f.alloca(Type::I32, 4);
        let b = f.alloca(Type::I32, 4);
        let four = f.const_u64(4);
        let (pa, pb) = (f.cast(CastOp::Bitcast, a, ptr(Type::U8)), f.cast(CastOp::Bitcast, b, ptr(Type::U8)));
        f.memcpy(pb, pa, four, 4);
        Some(f.load(Type::I32, b, 4))
    });
    assert_eq!(reason(&m, &[]), mem(MemoryTrap::Uninitialized { offset: 0 }));
}

#[test]
fn aggregates_in_memory() {
    let pair = Type::Struct(vec![Type::U8, Type::U64]);
    let p = pair.clone();
    let m = function(std::slice::from_ref(&pair), pair.clone(), move |f, q| {
        let slot = f.alloca(p.clone(), 8);
        f.store(p.clone(), q[0], slot, 8);
        Some(f.load(p, slot, 8))
    });
    let v = Value::Aggregate(vec![Value::U8(7), Value::U64(u64::MAX)]);
    assert_eq!(value(&m, std::slice::from_ref(&v)), v);
    // Padding (bytes 1..8) is not written by an aggregate store.
    let p = pair.clone();
    let m = function(&[pair], Type::U8, move |f, q| {
        let slot = f.alloca(p.clone(), 8);
        f.store(p, q[0], slot, 8);
        let bytes = f.cast(CastOp::Bitcast, slot, ptr(Type::U8));
        let one = f.const_i64(1);
        let pad = f.gep(ptr(Type::U8), bytes, &[one]);
        Some(f.load(Type::U8, pad, 1))
    });
    assert_eq!(reason(&m, &[v]), mem(MemoryTrap::Uninitialized { offset: 1 }));
    // Arrays, nested structs, pointers and floats inside aggregates.
    let inner = Type::Tuple(vec![Type::F32, Type::Bool, Type::I128]);
    let ty = Type::Struct(vec![Type::array(Type::I16, 3), inner, Type::U1]);
    let t = ty.clone();
    let m = function(std::slice::from_ref(&ty), ty.clone(), move |f, q| {
        let slot = f.alloca(t.clone(), 16);
        f.store(t.clone(), q[0], slot, 16);
        let moved = f.load(t.clone(), slot, 16);
        Some(f.mov(t, moved))
    });
    let v = Value::Aggregate(vec![
        Value::Aggregate(vec![Value::I16(-1), Value::I16(2), Value::I16(-3)]),
        Value::Aggregate(vec![Value::f32_bits(0x7fa0_0001), Value::Bool(true), Value::I128(i128::MIN + 5)]),
        Value::U1(1),
    ]);
    assert_eq!(value(&m, std::slice::from_ref(&v)), v);
}

#[test]
fn pointers_compare_by_allocation_and_offset() {
    let m = function(&[], Type::Bool, |f, _| {
        let a = f.alloca(Type::array(Type::I32, 2), 4);
        let zero = f.const_i64(0);
        let p = f.gep(ptr(Type::I32), a, &[zero, zero]);
        let q = f.cast(CastOp::Bitcast, a, ptr(Type::I32));
        Some(f.cmp(CmpOp::Eq, ptr(Type::I32), p, q))
    });
    assert_eq!(value(&m, &[]), Value::Bool(true));
    let m = function(&[], Type::Bool, |f, _| {
        let a = f.alloca(Type::I32, 4);
        let b = f.alloca(Type::I32, 4);
        Some(f.cmp(CmpOp::Ne, ptr(Type::I32), a, b))
    });
    assert_eq!(value(&m, &[]), Value::Bool(true));
}

#[test]
fn host_memory_access_is_checked() {
    let sig = FunctionSignature::whale(vec![ptr(Type::U8), Type::U64], Type::Void);
    let mut mb = builder();
    let sink = mb.declare_function("sink", sig, ir::Linkage::External, Some("sink".into())).unwrap();
    let mut f = mb.begin_function("f", vec![("n".into(), Type::U64)], Type::Void);
    let n = f.param_value(0);
    let buf = f.alloca(Type::array(Type::U8, 4), 1);
    let zero = f.const_i64(0);
    let first = f.gep(ptr(Type::U8), buf, &[zero, zero]);
    let x = f.const_u8(b'x');
    let four = f.const_u64(4);
    f.memset(first, x, four, 1);
    f.call(Callee::Direct(sink), vec![first, n]).unwrap();
    f.ret(None);
    f.finish();
    let m = mb.finish();
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let log = seen.clone();
    i.bind_host("sink", move |cx, args| {
        let (Value::Ptr(p), Value::U64(n)) = (&args[0], &args[1]) else { panic!("{args:?}") };
        log.borrow_mut().extend(cx.read(*p, *n)?);
        Ok(None)
    })
    .unwrap();
    i.call("f", &[Value::U64(4)]).unwrap();
    assert_eq!(seen.borrow().as_slice(), b"xxxx");
    let t = i.call("f", &[Value::U64(5)]).unwrap_err();
    let TrapReason::Host { link_name, message } = &t.as_trap().unwrap().reason else { panic!("{t}") };
    assert_eq!((link_name.as_str(), message.as_str()), ("sink", "pointer range is outside its allocation"));
}

mod random_programs {
    //! Random memory programs never panic: every access ends in a value or a trap.

    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum MemStep {
        Store(u8, i64, i64),
        Load(u8, i64),
        Copy(i64, i64, u64),
        Fill(i64, u8, u64),
        Uninit(u8, i64),
        RawLoad(i64),
        StorePointer(i64, i64),
        LoadPointer(i64),
    }

    fn step() -> impl Strategy<Value = MemStep> {
        let index = prop_oneof![0i64..40, any::<i64>(), Just(i64::MIN), Just(-1i64)];
        let len = prop_oneof![0u64..48, any::<u64>()];
        prop_oneof![
            (any::<u8>(), index.clone(), any::<i64>()).prop_map(|(k, i, v)| MemStep::Store(k, i, v)),
            (any::<u8>(), index.clone()).prop_map(|(k, i)| MemStep::Load(k, i)),
            (index.clone(), index.clone(), len.clone()).prop_map(|(d, s, n)| MemStep::Copy(d, s, n)),
            (index.clone(), any::<u8>(), len).prop_map(|(d, b, n)| MemStep::Fill(d, b, n)),
            (any::<u8>(), index.clone()).prop_map(|(k, i)| MemStep::Uninit(k, i)),
            index.clone().prop_map(MemStep::RawLoad),
            (index.clone(), index.clone()).prop_map(|(a, b)| MemStep::StorePointer(a, b)),
            index.prop_map(MemStep::LoadPointer),
        ]
    }

    const KINDS: [Type; 7] = [Type::U8, Type::I16, Type::U32, Type::I64, Type::U128, Type::Bool, Type::F32];

    fn build(steps: &[MemStep]) -> ir::Module {
        function(&[], Type::U64, |f, _| {
            let buf = f.alloca(Type::array(Type::U8, 32), 16);
            let zero = f.const_i64(0);
            let base = f.gep(ptr(Type::U8), buf, &[zero, zero]);
            let mut acc = f.const_u64(0);
            for s in steps {
                match *s {
                    MemStep::Store(k, i, v) => {
                        let ty = KINDS[usize::from(k) % KINDS.len()].clone();
                        let idx = f.const_i64(i);
                        let p = f.gep(ptr(Type::U8), base, &[idx]);
                        let q = f.cast(CastOp::Bitcast, p, ptr(ty.clone()));
                        let value = match ty {
                            Type::Bool => f.const_bool(v & 1 == 1),
                            Type::F32 => f.const_f32(f32::from_bits(v as u32)),
                            Type::U8 => f.const_u8(v as u8),
                            Type::I16 => f.const_i16(v as i16),
                            Type::U32 => f.const_u32(v as u32),
                            Type::I64 => f.const_i64(v),
                            _ => f.const_u128(v as u128),
                        };
                        f.store(ty, value, q, 1);
                    }
                    MemStep::Load(k, i) | MemStep::Uninit(k, i) => {
                        let ty = KINDS[usize::from(k) % KINDS.len()].clone();
                        let idx = f.const_i64(i);
                        let p = f.gep(ptr(Type::U8), base, &[idx]);
                        let q = f.cast(CastOp::Bitcast, p, ptr(ty.clone()));
                        if matches!(s, MemStep::Uninit(..)) {
                            f.uninit(ty, q, 1);
                        } else {
                            let _ = f.load(ty, q, 1);
                        }
                    }
                    MemStep::Copy(d, src, n) => {
                        let (di, si) = (f.const_i64(d), f.const_i64(src));
                        let dp = f.gep(ptr(Type::U8), base, &[di]);
                        let sp = f.gep(ptr(Type::U8), base, &[si]);
                        let len = f.const_u64(n);
                        f.memcpy(dp, sp, len, 1);
                    }
                    MemStep::Fill(d, b, n) => {
                        let di = f.const_i64(d);
                        let dp = f.gep(ptr(Type::U8), base, &[di]);
                        let (byte, len) = (f.const_u8(b), f.const_u64(n));
                        f.memset(dp, byte, len, 1);
                    }
                    MemStep::RawLoad(i) => {
                        let address = f.cast(CastOp::Ptrtoint, base, Type::I64);
                        let offset = f.const_i64(i);
                        let moved = f.add(Type::I64, address, offset);
                        let raw = f.cast(CastOp::Inttoptr, moved, ptr(Type::U8));
                        let _ = f.load(Type::U8, raw, 1);
                    }
                    MemStep::StorePointer(at, target) => {
                        let ai = f.const_i64(at);
                        let ti = f.const_i64(target);
                        let slot = f.gep(ptr(Type::U8), base, &[ai]);
                        let cell = f.cast(CastOp::Bitcast, slot, ptr(ptr(Type::U8)));
                        let t = f.gep(ptr(Type::U8), base, &[ti]);
                        f.store(ptr(Type::U8), t, cell, 1);
                    }
                    MemStep::LoadPointer(at) => {
                        let ai = f.const_i64(at);
                        let slot = f.gep(ptr(Type::U8), base, &[ai]);
                        let cell = f.cast(CastOp::Bitcast, slot, ptr(ptr(Type::U8)));
                        let p = f.load(ptr(Type::U8), cell, 1);
                        let b = f.load(Type::U8, p, 1);
                        let wide = f.cast(CastOp::Zext, b, Type::U64);
                        acc = f.add(Type::U64, acc, wide);
                    }
                }
            }
            Some(acc)
        })
    }

    proptest! {
        #[test]
        fn memory_programs_end_in_a_value_or_a_trap(steps in prop::collection::vec(step(), 1..24)) {
            let m = build(&steps);
            match run(&m, &[]) {
                Ok(_) | Err(interp::ExecError::Trap(_)) => {}
                Err(other) => prop_assert!(false, "{other}"),
            }
        }
    }
}
