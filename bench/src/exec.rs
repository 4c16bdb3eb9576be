//! Execution: the Whale interpreter against wasmi and `cranelift-interpreter` on W3 (fib), W4 (sieve) and W5
//! (loop-sum), plus [`check`], which runs W1 and W2 on all three engines against the workloads document's results.
//!
//! Every run of every engine, the timed ones included, is checked against the expected result (a mismatch stops the
//! harness before anything is printed), so a table can only show engines that computed the same values.

use std::fmt::Write as _;

use cranelift_codegen::data_value::DataValue;
use cranelift_codegen::ir::Function;
use cranelift_interpreter::environment::FunctionStore;
use cranelift_interpreter::interpreter::{Interpreter as ClInterpreter, InterpreterState};
use cranelift_interpreter::step::ControlFlow;
use interp::{Interpreter, Options, Value};

use crate::measure::{compare, ratio, thousands, Plan};
use crate::program::expected;
use crate::whale_w345;
use crate::{clif, text, wasm, Program, Static};

/// An executed workload: W3, W4 or W5 with its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Run {
    /// `fib(n)`.
    Fib(i64),
    /// `sieve(k)`.
    Sieve(i64),
    /// `loopsum(n)`.
    LoopSum(i64),
}

impl Run {
    /// W3 fib(27), W4 sieve ×3, W5 10M iterations.
    pub const ALL: [Run; 3] = [Run::Fib(27), Run::Sieve(3), Run::LoopSum(10_000_000)];

    pub fn name(self) -> String {
        match self {
            Run::Fib(n) => format!("W3 fib({n})"),
            Run::Sieve(k) => format!("W4 sieve 1,000,000 bytes ×{k}"),
            Run::LoopSum(n) => format!("W5 loop-sum {}", thousands(n as usize)),
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Run::Fib(_) => "fib",
            Run::Sieve(_) => "sieve",
            Run::LoopSum(_) => "loopsum",
        }
    }

    pub fn arg(self) -> i64 {
        match self {
            Run::Fib(n) | Run::Sieve(n) | Run::LoopSum(n) => n,
        }
    }

    pub fn expected(self) -> i64 {
        match self {
            Run::Fib(n) => expected::fib(n),
            Run::Sieve(k) => expected::sieve(k),
            Run::LoopSum(n) => expected::loopsum(n as u64),
        }
    }

    /// The CLIF dynamic instruction count (workloads.md).
    pub fn dynamic_instructions(self) -> u64 {
        match self {
            Run::Fib(n) => {
                let f = expected::fib(n + 1) as u64;
                4 * f + 10 * (f - 1)
            }
            Run::Sieve(k) => 9 + 25_740_611 * k as u64,
            Run::LoopSum(n) => 7 * n as u64 + 7,
        }
    }

    fn whale_module(self) -> ir::Module {
        match self {
            Run::Fib(_) => whale_w345::fib(),
            Run::Sieve(_) => whale_w345::sieve(),
            Run::LoopSum(_) => whale_w345::loopsum(),
        }
    }

    fn whale_arg(self) -> Value {
        match self {
            // W5 is written on u64 in Whale IR (its `ult` and `urem` need unsigned operands).
            Run::LoopSum(n) => Value::U64(n as u64),
            _ => Value::I64(self.arg()),
        }
    }

    fn clif(self) -> &'static str {
        match self {
            Run::Fib(_) => clif::FIB,
            Run::Sieve(_) => clif::SIEVE,
            Run::LoopSum(_) => clif::LOOPSUM,
        }
    }

    fn wasm(self) -> Vec<u8> {
        match self {
            Run::Fib(_) => wasm::fib(),
            Run::Sieve(_) => wasm::sieve(),
            Run::LoopSum(_) => wasm::loopsum(),
        }
    }
}

/// A Whale value as the i64 every engine returns.
fn as_i64(v: Option<Value>) -> i64 {
    match v {
        Some(Value::I64(x)) => x,
        Some(Value::U64(x)) => x as i64,
        other => panic!("unexpected Whale result {other:?}"),
    }
}

/// The Whale interpreter with a translated module.
pub struct WhaleEngine {
    interp: Interpreter,
    function: String,
    args: Vec<Value>,
    /// Steps of the last call (executed instructions, phis and terminators).
    pub steps: u64,
}

impl WhaleEngine {
    pub fn new(module: &ir::Module, function: &str, args: Vec<Value>) -> WhaleEngine {
        let options = Options { max_steps: u64::MAX, max_call_depth: 1 << 20, ..Options::default() };
        let interp = Interpreter::new(module, options).expect("the workload verifies");
        WhaleEngine { interp, function: function.to_string(), args, steps: 0 }
    }
    pub fn run(&mut self) -> i64 {
        let outcome = self.interp.call(self.function.as_str(), &self.args).expect("the workload runs");
        self.steps = outcome.steps;
        as_i64(outcome.value)
    }
}

/// wasmi with an instantiated module.
pub struct WasmiEngine<P: wasmi::WasmParams> {
    store: wasmi::Store<()>,
    func: wasmi::TypedFunc<P, i64>,
    args: P,
}

impl<P: wasmi::WasmParams + Copy> WasmiEngine<P> {
    pub fn new(bytes: &[u8], export: &str, args: P) -> WasmiEngine<P> {
        let engine = wasmi::Engine::default();
        let module = wasmi::Module::new(&engine, bytes).expect("wasmi accepts the module");
        let mut store = wasmi::Store::new(&engine, ());
        let linker = wasmi::Linker::<()>::new(&engine);
        let instance = linker.instantiate_and_start(&mut store, &module).expect("instantiates");
        let func = instance.get_typed_func::<P, i64>(&store, export).expect("the export has the workload's type");
        WasmiEngine { store, func, args }
    }
    pub fn run(&mut self) -> i64 {
        self.func.call(&mut self.store, self.args).expect("the workload runs")
    }
}

/// `cranelift-interpreter` over parsed CLIF functions.
pub struct CraneliftEngine {
    functions: Vec<Function>,
    entry: String,
    args: Vec<DataValue>,
}

impl CraneliftEngine {
    pub fn new(text: &str, entry: &str, args: Vec<DataValue>) -> CraneliftEngine {
        let functions = cranelift_reader::parse_functions(text).expect("the generated CLIF parses");
        text::assert_canonical(text, &functions, entry);
        CraneliftEngine { functions, entry: entry.to_string(), args }
    }
    pub fn run(&self) -> i64 {
        let mut store = FunctionStore::default();
        for f in &self.functions {
            store.add(f.name.to_string(), f);
        }
        let mut interpreter = ClInterpreter::new(InterpreterState::default().with_function_store(store));
        match interpreter.call_by_name(&self.entry, &self.args) {
            Ok(ControlFlow::Return(values)) => match values.first() {
                Some(DataValue::I64(x)) => *x,
                other => panic!("unexpected Cranelift result {other:?}"),
            },
            Ok(other) => panic!("Cranelift interpreter stopped with {other:?}"),
            Err(e) => panic!("Cranelift interpreter failed: {e}"),
        }
    }
}

/// All three engines for one run.
pub struct Engines {
    pub whale: WhaleEngine,
    pub wasmi: WasmiEngine<i64>,
    pub cranelift: CraneliftEngine,
}

impl Engines {
    pub fn new(run: Run) -> Engines {
        let whale = WhaleEngine::new(&run.whale_module(), run.id(), vec![run.whale_arg()]);
        let wasmi = WasmiEngine::new(&run.wasm(), run.id(), run.arg());
        let entry = format!("%{}", run.id());
        let cranelift = CraneliftEngine::new(run.clif(), &entry, vec![DataValue::I64(run.arg())]);
        Engines { whale, wasmi, cranelift }
    }
}

/// Runs W1 10k and W2 300 on all three engines and checks the results of the workloads document; also checks the
/// generated CLIF of every measured W1/W2 size is canonical. Returns a markdown note.
pub fn check(statics: &[Static]) -> String {
    let mut note = String::new();
    let w1 = Static::W1(10_000);
    let Program::W1(p) = w1.program() else { unreachable!("W1 draws a W1 program") };
    let (a, b, c, d) = expected::W1_ARGS;
    let want = expected::w1(10_000).expect("listed");
    let whale =
        WhaleEngine::new(&w1.whale(), "w1", vec![Value::I64(a), Value::I64(b), Value::I32(c), Value::I32(d)]).run();
    let wasmi = WasmiEngine::new(&wasm::w1(&p), "w1", (a, b, c, d)).run();
    let args = vec![DataValue::I64(a), DataValue::I64(b), DataValue::I32(c), DataValue::I32(d)];
    let cranelift = CraneliftEngine::new(&clif::w1(&p), "%w1", args).run();
    assert_eq!([whale, wasmi, cranelift], [want; 3], "W1 10k results (Whale, wasmi, Cranelift)");
    let _ = writeln!(note, "- W1 10k returns {want} on Whale, wasmi and cranelift-interpreter.");

    let m = 300;
    let w2 = Static::W2(m);
    let Program::W2(p) = w2.program() else { unreachable!("W2 draws a W2 program") };
    let (a, b) = expected::W2_ARGS;
    let want = expected::w2(m).expect("listed");
    let whale = WhaleEngine::new(&w2.whale(), &format!("f{}", m - 1), vec![Value::I64(a), Value::I64(b)]).run();
    let wasmi = WasmiEngine::new(&wasm::w2(&p), "main", (a, b)).run();
    let cranelift =
        CraneliftEngine::new(&clif::w2(&p), &format!("%f{}", m - 1), vec![DataValue::I64(a), DataValue::I64(b)]).run();
    assert_eq!([whale, wasmi, cranelift], [want; 3], "W2 300 results (Whale, wasmi, Cranelift)");
    let _ = writeln!(note, "- W2 with 300 functions returns {want} on all three engines.");

    for &w in statics {
        let program = w.program();
        let whale = match (&program, w) {
            (Program::W1(_), Static::W1(n)) => {
                let (a, b, c, d) = expected::W1_ARGS;
                let mut e = WasmiEngine::new(&program.wasm(), "w1", (a, b, c, d));
                (e.run(), expected::w1(n))
            }
            (_, Static::W2(m)) => {
                let (a, b) = expected::W2_ARGS;
                let mut e = WasmiEngine::new(&program.wasm(), "main", (a, b));
                (e.run(), expected::w2(m))
            }
            _ => unreachable!("programs match their workloads"),
        };
        if let (got, Some(want)) = whale {
            assert_eq!(got, want, "{} on wasmi", w.name());
        }
        let functions = cranelift_reader::parse_functions(&program.clif()).expect("the generated CLIF parses");
        text::assert_canonical(&program.clif(), &functions, &w.name());
    }
    let _ = writeln!(
        note,
        "- Every measured W1/W2 size returns the document's result on wasmi, and its CLIF is canonical (parse + \
         `Display` gives it back byte for byte)."
    );
    note
}

/// The runs of a report: every workload at its full size on all three engines, or, for `--quick`, cranelift-interpreter
/// (about 150 times slower than Whale on W4/W5) only on the reference's QUICK sizes of W4 and W5 (K = 1, 10^6
/// iterations) while Whale and wasmi also run the full sizes. Each entry says whether cranelift-interpreter runs.
pub fn runs(quick: bool) -> Vec<(Run, bool)> {
    if quick {
        vec![
            (Run::Fib(27), true),
            (Run::Sieve(1), true),
            (Run::Sieve(3), false),
            (Run::LoopSum(1_000_000), true),
            (Run::LoopSum(10_000_000), false),
        ]
    } else {
        Run::ALL.iter().map(|&r| (r, true)).collect()
    }
}

/// Runs the execution comparison; returns the markdown section.
pub fn run(plan: Plan, runs: &[(Run, bool)]) -> String {
    let mut table = String::from(
        "| workload | result | CLIF dynamic instructions | Whale steps | Whale median (min–max) | wasmi median \
         (min–max) | wasmi ÷ Whale | cranelift-interpreter median (min–max) | Cranelift ÷ Whale |\n| --- | ---: | \
         ---: | ---: | --- | --- | --- | --- | --- |\n",
    );
    for &(r, with_cranelift) in runs {
        eprintln!("exec: {}", r.name());
        let mut e = Engines::new(r);
        let want = r.expected();
        let mut whale = || assert_eq!(e.whale.run(), want, "Whale {}", r.name());
        let mut wasmi = || assert_eq!(e.wasmi.run(), want, "wasmi {}", r.name());
        let mut cranelift = || assert_eq!(e.cranelift.run(), want, "cranelift-interpreter {}", r.name());
        let samples = if with_cranelift {
            compare(plan, &mut [&mut whale, &mut wasmi, &mut cranelift])
        } else {
            compare(plan, &mut [&mut whale, &mut wasmi])
        };
        let whale = &samples[0];
        let wasmi = &samples[1];
        let (cranelift, cranelift_ratio) = match samples.get(2) {
            Some(c) => (c.cell(), ratio(whale, c)),
            None => ("not run (see the smaller row)".to_string(), "—".to_string()),
        };
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name(),
            want,
            thousands(r.dynamic_instructions() as usize),
            thousands(e.whale.steps as usize),
            whale.cell(),
            wasmi.cell(),
            ratio(whale, wasmi),
            cranelift,
            cranelift_ratio
        );
    }
    format!(
        "### Execution: Whale interpreter vs wasmi and cranelift-interpreter\n\nWhale: `interp::Interpreter::call` \
         on the module translated once. wasmi: the instantiated module's export called through `TypedFunc`. \
         cranelift-interpreter: `Interpreter::call_by_name` on the parsed CLIF (a fresh interpreter state per call). \
         Every timed run's result is checked against the expected value before the table is printed; the ratio is \
         the peer's median time over Whale's.\n\n{table}"
    )
}
