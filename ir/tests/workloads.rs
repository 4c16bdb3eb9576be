//! The benchmark workloads are valid IR of the specified shape.

#[path = "../benches/workloads.rs"]
mod workloads;

use workloads::SplitMix64;

#[test]
fn splitmix_test_vector() {
    let mut r = SplitMix64::new(0x5731);
    assert_eq!(r.next_u64(), 0x4373733980006792);
    assert_eq!(r.next_u64(), 0x51a35820789c46e0);
    assert_eq!(r.next_u64(), 0x81ace734f6f928c0);
}

#[test]
fn w1_verifies_and_has_one_block() {
    let m = workloads::w1(2_000);
    ir::verify_module(&m).unwrap();
    let f = m.functions().next().unwrap();
    assert_eq!(f.blocks.len(), 1);
    // Every abstract op is one instruction, plus two bitcasts per unsigned-predicate icmp.
    assert!(m.inst_count() >= workloads::w1_abstract_instructions(2_000));
    assert!(m.is_canonically_numbered());
}

#[test]
fn w2_verifies_with_loops_phis_and_calls() {
    let m = workloads::w2(300);
    ir::verify_module(&m).unwrap();
    assert_eq!(m.function_count(), 300);
    let text = ir::print_module(&m);
    assert!(text.contains(" = phi i64 [ "));
    assert!(text.contains(" = call whale i64 @f"));
    assert!(m.inst_count() >= workloads::w2_abstract_instructions(300));
}
