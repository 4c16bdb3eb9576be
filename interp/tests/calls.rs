//! Calls through every callee form: direct, recursive, indirect through
//! `function_addr`, through parameters and through memory; `null_function`,
//! invalid function pointers and signature mismatches trap before entering a
//! callee; external declarations run bound host functions or trap naming
//! their link name.

mod common;

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use common::*;
use interp::{ExecError, FnPtr, HostError, Interpreter, Options, TrapReason, Value};
use ir::{Callee, CallingConvention, CastOp, FunctionSignature, Linkage, Module, ModuleBuilder, Type};

fn unary_sig(convention: CallingConvention) -> FunctionSignature {
    FunctionSignature { params: vec![Type::I32], ret: Type::I32, convention, variadic: false }
}

/// `twice(x) = x + x`, `neg(x) = 0 - x` and whatever `main` builds.
fn with_helpers(main: impl FnOnce(&mut ModuleBuilder, ir::FunctionId, ir::FunctionId)) -> Module {
    let mut mb = builder();
    let mut f = mb.begin_function("twice", vec![("x".into(), Type::I32)], Type::I32);
    let x = f.param_value(0);
    let y = f.add(Type::I32, x, x);
    f.ret(Some(y));
    f.finish();
    let mut f = mb.begin_function("neg", vec![("x".into(), Type::I32)], Type::I32);
    let x = f.param_value(0);
    let zero = f.const_i32(0);
    let y = f.sub(Type::I32, zero, x);
    f.ret(Some(y));
    f.finish();
    let twice = mb.function_id("twice").unwrap();
    let neg = mb.function_id("neg").unwrap();
    main(&mut mb, twice, neg);
    let m = mb.finish();
    ir::verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{}", ir::print_module(&m)));
    m
}

#[test]
fn direct_and_indirect_calls() {
    let m = with_helpers(|mb, twice, neg| {
        let mut f = mb.begin_function("f", vec![("x".into(), Type::I32), ("pick".into(), Type::Bool)], Type::I32);
        let (x, pick) = (f.param_value(0), f.param_value(1));
        let a = f.call(Callee::Direct(twice), vec![x]).unwrap().unwrap();
        let p = f.function_addr(twice).unwrap();
        let q = f.function_addr(neg).unwrap();
        let target = f.select(Type::fn_ptr(unary_sig(CallingConvention::Whale)), pick, p, q);
        let b = f.call(Callee::Indirect(target), vec![a]).unwrap().unwrap();
        f.ret(Some(b));
        f.finish();
    });
    assert_eq!(value_of(&m, &[Value::I32(5), Value::Bool(true)]), Value::I32(20));
    assert_eq!(value_of(&m, &[Value::I32(5), Value::Bool(false)]), Value::I32(-10));
}

fn value_of(m: &Module, args: &[Value]) -> Value {
    Interpreter::new(m, Options::default()).unwrap().call("f", args).unwrap().value.unwrap()
}

fn trap_of(m: &Module, args: &[Value]) -> interp::Trap {
    match Interpreter::new(m, Options::default()).unwrap().call("f", args) {
        Err(ExecError::Trap(t)) => *t,
        other => panic!("expected a trap, got {other:?}"),
    }
}

#[test]
fn function_pointers_as_arguments_and_results() {
    let fnptr = Type::fn_ptr(unary_sig(CallingConvention::Whale));
    let m = with_helpers(|mb, _, _| {
        let mut f = mb.begin_function("f", vec![("g".into(), fnptr.clone()), ("x".into(), Type::I32)], Type::I32);
        let (g, x) = (f.param_value(0), f.param_value(1));
        let r = f.call(Callee::Indirect(g), vec![x]).unwrap().unwrap();
        f.ret(Some(r));
        f.finish();
    });
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    let neg = i.function_id("neg").unwrap();
    let out = i.call("f", &[Value::FnPtr(FnPtr::Function(neg)), Value::I32(3)]).unwrap();
    assert_eq!(out.value, Some(Value::I32(-3)));
    // Calling null traps at the call, before entering any callee.
    let t = match i.call("f", &[Value::FnPtr(FnPtr::Null), Value::I32(3)]) {
        Err(ExecError::Trap(t)) => t,
        other => panic!("{other:?}"),
    };
    assert_eq!(t.reason, TrapReason::NullFunctionPointer);
    assert_eq!((t.site.function, t.site.inst, t.steps), (i.function_id("f").unwrap(), 0, 1));
    let t = i.call("f", &[Value::FnPtr(FnPtr::Invalid(0x1234)), Value::I32(3)]).unwrap_err();
    assert_eq!(t.as_trap().unwrap().reason, TrapReason::InvalidFunctionPointer { address: 0x1234 });
    // Returning a function pointer.
    let m = with_helpers(|mb, twice, _| {
        let mut f = mb.begin_function("f", vec![], fnptr.clone());
        let p = f.function_addr(twice).unwrap();
        f.ret(Some(p));
        f.finish();
    });
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    let twice = i.function_id("twice").unwrap();
    assert_eq!(i.call("f", &[]).unwrap().value, Some(Value::FnPtr(FnPtr::Function(twice))));
}

#[test]
fn null_invalid_and_mismatched_pointers_from_memory() {
    let whale = Type::fn_ptr(unary_sig(CallingConvention::Whale));
    let sysv = Type::fn_ptr(unary_sig(CallingConvention::SysV64));
    // mode 0: call through null_function; 1: through an integer reinterpreted as
    // a function pointer; 2: through a whale pointer read back as a sysv64 one.
    let m = with_helpers(|mb, twice, _| {
        let mut f = mb.begin_function("f", vec![("mode".into(), Type::U8)], Type::I32);
        let mode = f.param_value(0);
        let arg = f.const_i32(1);
        let null_block = f.create_block("null");
        let int_block = f.create_block("int");
        let sig_block = f.create_block("sig");
        let keys = [(ir::ConstValue::U(0), null_block), (ir::ConstValue::U(1), int_block)];
        f.switch(mode, sig_block, &keys);
        f.set_insert_point(null_block);
        let null = f.null_function(unary_sig(CallingConvention::Whale)).unwrap();
        let r = f.call(Callee::Indirect(null), vec![arg]).unwrap().unwrap();
        f.ret(Some(r));
        f.set_insert_point(int_block);
        let cell = f.alloca(Type::U64, 8);
        let junk = f.const_u64(0x7f00_0000_0008);
        f.store(Type::U64, junk, cell, 8);
        let as_fn = f.cast(CastOp::Bitcast, cell, Type::ptr(whale.clone()));
        let p = f.load(whale.clone(), as_fn, 8);
        let r = f.call(Callee::Indirect(p), vec![arg]).unwrap().unwrap();
        f.ret(Some(r));
        f.set_insert_point(sig_block);
        let cell = f.alloca(whale.clone(), 8);
        let good = f.function_addr(twice).unwrap();
        f.store(whale.clone(), good, cell, 8);
        let as_sysv = f.cast(CastOp::Bitcast, cell, Type::ptr(sysv.clone()));
        let p = f.load(sysv.clone(), as_sysv, 8);
        let r = f.call(Callee::Indirect(p), vec![arg]).unwrap().unwrap();
        f.ret(Some(r));
        f.finish();
    });
    assert_eq!(trap_of(&m, &[Value::U8(0)]).reason, TrapReason::NullFunctionPointer);
    assert_eq!(trap_of(&m, &[Value::U8(1)]).reason, TrapReason::InvalidFunctionPointer { address: 0x7f00_0000_0008 });
    let t = trap_of(&m, &[Value::U8(2)]);
    let TrapReason::SignatureMismatch { expected, actual, .. } = &t.reason else { panic!("{t}") };
    assert_eq!((expected.as_str(), actual.as_str()), ("sysv64 (i32) -> i32", "whale (i32) -> i32"));
    assert!(t.reason.to_string().contains("fnptr<sysv64 (i32) -> i32>"), "{}", t.reason);
}

#[test]
fn recursion_uses_an_explicit_stack() {
    // sum(n) = n == 0 ? 0 : n + sum(n - 1), 100,000 frames deep.
    let mut mb = builder();
    let mut f = mb.begin_function("f", vec![("n".into(), Type::U64)], Type::U64);
    let me = f.function_id("f").unwrap();
    let n = f.param_value(0);
    let zero = f.const_u64(0);
    let done = f.create_block("done");
    let more = f.create_block("more");
    let stop = f.icmp(ir::ICmpPred::Eq, Type::U64, n, zero);
    f.cbr(stop, done, more);
    f.set_insert_point(done);
    f.ret(Some(zero));
    f.set_insert_point(more);
    let one = f.const_u64(1);
    let m1 = f.sub(Type::U64, n, one);
    let rest = f.call(Callee::Direct(me), vec![m1]).unwrap().unwrap();
    let s = f.add(Type::U64, n, rest);
    f.ret(Some(s));
    f.finish();
    let m = mb.finish();
    let options = Options { max_steps: u64::MAX, max_call_depth: 200_000, ..Options::default() };
    let mut i = Interpreter::new(&m, options).unwrap();
    assert_eq!(i.call("f", &[Value::U64(100_000)]).unwrap().value, Some(Value::U64(5_000_050_000)));
}

fn external_module(ret: Type) -> Module {
    let mut mb = builder();
    let sig = FunctionSignature {
        params: vec![Type::I32],
        ret: ret.clone(),
        convention: CallingConvention::SysV64,
        variadic: false,
    };
    let ext = mb.declare_function("ext", sig, Linkage::External, Some("host_ext".into())).unwrap();
    let mut f = mb.begin_function("f", vec![("x".into(), Type::I32)], ret.clone());
    let x = f.param_value(0);
    let r = f.call(Callee::Direct(ext), vec![x]).unwrap();
    f.ret(r);
    f.finish();
    mb.finish()
}

#[test]
fn externals_and_host_functions() {
    let m = external_module(Type::I32);
    // Unbound: the trap names the link name, at the call, before anything runs.
    let t = trap_of(&m, &[Value::I32(1)]);
    assert_eq!(t.reason, TrapReason::UnboundExternal { link_name: "host_ext".into() });
    assert_eq!(t.reason.to_string(), "call to unbound external function \"host_ext\"");
    assert_eq!((t.site.inst, t.steps), (0, 1));
    // Bound: the closure computes the result.
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    let calls = Rc::new(RefCell::new(0));
    let counter = calls.clone();
    i.bind_host("host_ext", move |_, args| {
        *counter.borrow_mut() += 1;
        match args {
            [Value::I32(x)] => Ok(Some(Value::I32(x * 3))),
            _ => Err(HostError("bad arguments".into())),
        }
    })
    .unwrap();
    assert_eq!(i.call("f", &[Value::I32(7)]).unwrap().value, Some(Value::I32(21)));
    assert_eq!(*calls.borrow(), 1);
    // The external can be called directly through the API, too.
    assert_eq!(i.call("ext", &[Value::I32(2)]).unwrap().value, Some(Value::I32(6)));
    assert_eq!(i.bind_host("nope", |_, _| Ok(None)), Err(interp::BindError::UnknownLinkName("nope".into())));
    // A host function returning the wrong type, or failing, traps.
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    i.bind_host("host_ext", |_, _| Ok(Some(Value::I64(1)))).unwrap();
    let e = i.call("f", &[Value::I32(1)]).unwrap_err();
    assert_eq!(
        e.as_trap().unwrap().reason,
        TrapReason::HostResult { link_name: "host_ext".into(), expected: "i32".into() }
    );
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    i.bind_host("host_ext", |_, _| Err(HostError("no".into()))).unwrap();
    let e = i.call("f", &[Value::I32(1)]).unwrap_err();
    assert_eq!(e.as_trap().unwrap().reason.to_string(), "host function \"host_ext\" failed: no");
    // Unbound externals cannot be called from the API either.
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    assert!(matches!(i.call("ext", &[Value::I32(1)]), Err(ExecError::NoBody { .. })));
}

#[test]
fn indirect_calls_reach_host_functions() {
    let sig = FunctionSignature {
        params: vec![Type::I32],
        ret: Type::Void,
        convention: CallingConvention::SysV64,
        variadic: false,
    };
    let mut mb = builder();
    let log = mb.declare_function("log", sig.clone(), Linkage::External, Some("whale_print_int".into())).unwrap();
    let mut f = mb.begin_function("f", vec![("x".into(), Type::I32)], Type::Void);
    let x = f.param_value(0);
    let p = f.function_addr(log).unwrap();
    f.call(Callee::Direct(log), vec![x]).unwrap();
    f.call(Callee::Indirect(p), vec![x]).unwrap();
    f.ret(None);
    f.finish();
    let m = mb.finish();
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    assert_eq!(i.bind_standard_host(), 1);
    let out = Shared::default();
    i.set_output(Box::new(out.clone()));
    i.call("f", &[Value::I32(-42)]).unwrap();
    assert_eq!(out.text(), "-42\n-42\n");
}

#[test]
fn standard_host_functions() {
    let mut mb = builder();
    let void = |params: Vec<Type>| FunctionSignature {
        params,
        ret: Type::Void,
        convention: CallingConvention::SysV64,
        variadic: false,
    };
    let pint =
        mb.declare_function("pint", void(vec![Type::U128]), Linkage::External, Some("whale_print_int".into())).unwrap();
    let pfloat = mb
        .declare_function("pfloat", void(vec![Type::F64]), Linkage::External, Some("whale_print_float".into()))
        .unwrap();
    let pbytes = mb
        .declare_function(
            "pbytes",
            void(vec![Type::ptr(Type::U8), Type::U64]),
            Linkage::External,
            Some("whale_print_bytes".into()),
        )
        .unwrap();
    let mut f = mb.begin_function("f", vec![], Type::Void);
    let big = f.const_u128(u128::MAX);
    f.call(Callee::Direct(pint), vec![big]).unwrap();
    let half = f.const_f64(2.5);
    f.call(Callee::Direct(pfloat), vec![half]).unwrap();
    let buf = f.alloca(Type::array(Type::U8, 3), 1);
    let zero = f.const_i64(0);
    let first = f.gep(Type::ptr(Type::U8), buf, &[zero, zero]);
    let bang = f.const_u8(b'!');
    let three = f.const_u64(3);
    f.memset(first, bang, three, 1);
    f.call(Callee::Direct(pbytes), vec![first, three]).unwrap();
    f.ret(None);
    f.finish();
    let m = mb.finish();
    let mut i = Interpreter::new(&m, Options::default()).unwrap();
    assert_eq!(i.bind_standard_host(), 3);
    let out = Shared::default();
    i.set_output(Box::new(out.clone()));
    i.call("f", &[]).unwrap();
    assert_eq!(out.text(), format!("{}\n2.5\n!!!", u128::MAX));
}

#[test]
fn aggregate_arguments_and_results_cross_calls() {
    let pair = Type::Struct(vec![Type::I64, Type::F32]);
    let mut mb = builder();
    let mut g = mb.begin_function("swap", vec![("p".into(), pair.clone())], pair.clone());
    let p = g.param_value(0);
    let slot = g.alloca(pair.clone(), 8);
    g.store(pair.clone(), p, slot, 8);
    let loaded = g.load(pair.clone(), slot, 8);
    g.ret(Some(loaded));
    g.finish();
    let swap = mb.function_id("swap").unwrap();
    let mut f = mb.begin_function("f", vec![("p".into(), pair.clone())], pair.clone());
    let p = f.param_value(0);
    let r = f.call(Callee::Direct(swap), vec![p]).unwrap().unwrap();
    f.ret(Some(r));
    f.finish();
    let m = mb.finish();
    let v = Value::Aggregate(vec![Value::I64(-9), Value::f32_bits(0xffc0_0001)]);
    assert_eq!(value_of(&m, std::slice::from_ref(&v)), v);
}

/// A clonable in-memory output.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Shared {
    fn text(&self) -> String {
        String::from_utf8(self.0.borrow().clone()).unwrap()
    }
}

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
