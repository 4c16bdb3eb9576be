//! The shared benchmark workloads run to their specified results
//! (`shared/reference/workloads.md`): W1 and W2 as the `ir` crate builds them,
//! W3–W5 as our benches build them.

#[path = "../benches/workloads.rs"]
mod workloads;

#[path = "../../ir/benches/workloads.rs"]
mod ir_workloads;

use interp::{Interpreter, Options, Value};

fn unlimited() -> Options {
    Options { max_steps: u64::MAX, ..Options::default() }
}

#[test]
fn fib_results_and_exact_step_counts() {
    let module = workloads::fib();
    let mut interp = Interpreter::new(&module, unlimited()).unwrap();
    for (n, expected) in [(0i64, 0i64), (1, 1), (2, 1), (10, 55), (22, 17_711)] {
        let out = interp.call("fib", &[Value::I64(n)]).unwrap();
        assert_eq!(out.value, Some(Value::I64(expected)), "fib({n})");
        assert_eq!(out.steps, workloads::fib_steps(n as u64), "steps of fib({n})");
    }
    // The workloads document: fib(22) executes 401,188 instructions.
    assert_eq!(workloads::fib_steps(22), 401_188);
}

#[test]
fn loopsum_matches_the_closed_form() {
    let module = workloads::loopsum();
    let mut interp = Interpreter::new(&module, unlimited()).unwrap();
    let out = interp.call("loopsum", &[Value::U64(1_000_000)]).unwrap();
    assert_eq!(out.value, Some(Value::U64(1_999_998)));
    assert_eq!(out.steps, 9 * 1_000_000 + 9);
    let out = interp.call("loopsum", &[Value::U64(0)]).unwrap();
    assert_eq!(out.value, Some(Value::U64(0)));
}

#[test]
fn sieve_counts_primes() {
    let module = workloads::sieve();
    let mut interp = Interpreter::new(&module, unlimited()).unwrap();
    let out = interp.call("sieve", &[Value::I64(1)]).unwrap();
    assert_eq!(out.value, Some(Value::I64(workloads::PRIMES_BELOW_SIZE)));
    let out = interp.call("sieve", &[Value::I64(0)]).unwrap();
    assert_eq!(out.value, Some(Value::I64(0)));
}

#[test]
fn w1_straight_line_results() {
    let module = ir_workloads::w1(10_000);
    let mut interp = Interpreter::new(&module, unlimited()).unwrap();
    let args = [
        Value::I64(0x0123_4567_89AB_CDEF),
        Value::I64(0x0FED_CBA9_8765_4321),
        Value::I32(0x1357_9BDF),
        Value::I32(0x2468_ACE0),
    ];
    let out = interp.call("w1", &args).unwrap();
    assert_eq!(out.value, Some(Value::I64(-4_133_142_263_439_385_472)));
}

#[test]
fn w2_many_functions_results() {
    for (m, expected) in [(300usize, -3_239_109_026_553_065_043i64), (2_000, -1_144_608_178_996_572_230)] {
        let module = ir_workloads::w2(m);
        let mut interp = Interpreter::new(&module, unlimited()).unwrap();
        let name = format!("f{}", m - 1);
        let out = interp
            .call(name.as_str(), &[Value::I64(0x0123_4567_89AB_CDEF), Value::I64(0x0FED_CBA9_8765_4321)])
            .unwrap();
        assert_eq!(out.value, Some(Value::I64(expected)), "W2({m})");
    }
}
