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

#[test]
fn streamed_text_equals_printed_text_across_chunks() {
    // W2(300) prints to well over one 64 KiB chunk, in both layouts.
    let m = workloads::w2(300);
    for format in [ir::TextFormat::Auto, ir::TextFormat::V4] {
        let text = ir::print_module_with(&m, format);
        assert!(text.len() > 3 * 64 * 1024);
        let mut streamed = Vec::new();
        ir::write_module(&m, format, &mut streamed).unwrap();
        assert_eq!(streamed, text.into_bytes());
    }
}

#[test]
fn streaming_stops_at_the_first_write_error() {
    /// Accepts one chunk, then fails.
    struct FailsAfterOne(usize);
    impl std::io::Write for FailsAfterOne {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += 1;
            if self.0 > 1 {
                return Err(std::io::Error::other("disk full"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let m = workloads::w2(300);
    let mut sink = FailsAfterOne(0);
    let err = ir::write_module(&m, ir::TextFormat::Auto, &mut sink).unwrap_err();
    assert_eq!(err.to_string(), "disk full");
    assert_eq!(sink.0, 2, "no writes after the failure");
}
