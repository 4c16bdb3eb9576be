//! The rewriting API (`FunctionEditor`): every operation, the use lists after
//! each, and the module after `finish` (verified, printed, read back).

use ir::{
    ConstValue, DataLayout, FunctionEditor, ICmpPred, InstData, Module, ModuleBuilder, Opcode, Position, Type, TypeId,
    ValueDef, ValueId,
};

fn builder() -> ModuleBuilder {
    ModuleBuilder::new("x86_64-whale-linux", DataLayout::default_64bit_le())
}

/// `f(x) = (x + x) * x`, one block.
fn arithmetic() -> (Module, ValueId, ValueId, ValueId) {
    let mut mb = builder();
    let mut f = mb.begin_function("f", vec![("x".into(), Type::I32)], Type::I32);
    let x = f.param_value(0);
    let sum = f.add(Type::I32, x, x);
    let product = f.mul(Type::I32, sum, x);
    f.ret(Some(product));
    f.finish();
    (mb.finish(), x, sum, product)
}

/// A counting loop: `g(n) = sum of 0..n`, with a phi in the header.
fn counting_loop() -> Module {
    let mut mb = builder();
    let mut f = mb.begin_function("g", vec![("n".into(), Type::I64)], Type::I64);
    let n = f.param_value(0);
    let entry = f.entry_block();
    let head = f.create_block("head");
    let body = f.create_block("body");
    let exit = f.create_block("exit");
    let zero = f.const_i64(0);
    f.br(head);
    f.set_insert_point(head);
    let i = f.phi(Type::I64, &[(zero, entry)]);
    let acc = f.phi(Type::I64, &[(zero, entry)]);
    let more = f.icmp(ICmpPred::Slt, Type::I64, i, n);
    f.cbr(more, body, exit);
    f.set_insert_point(body);
    let one = f.const_i64(1);
    let next = f.add(Type::I64, i, one);
    let total = f.add(Type::I64, acc, i);
    f.add_phi_input(i, next, body);
    f.add_phi_input(acc, total, body);
    f.br(head);
    f.set_insert_point(exit);
    f.ret(Some(acc));
    f.finish();
    mb.finish()
}

#[track_caller]
fn check(e: &FunctionEditor<'_>) {
    assert!(e.use_lists_are_exact(), "use lists out of date");
}

#[track_caller]
fn verified(m: &Module) -> String {
    if let Err(e) = ir::verify_module(m) {
        panic!("{e}\n{}", ir::print_module_with(m, ir::TextFormat::V4));
    }
    let text = ir::print_module(m);
    let back = ir::parse_module(&text).unwrap_or_else(|e| panic!("{}\n{text}", e.render(&text, "edited")));
    assert_eq!(ir::print_module(&back), text, "the edited module reads back");
    text
}

#[test]
fn inspection_matches_the_frozen_function() {
    let m = counting_loop();
    let f = m.function_at(0);
    let blocks = f.blocks.to_vec();
    let expected: Vec<Vec<InstData>> = blocks.iter().map(|&b| f.block_insts(b).map(|i| *f.inst(i)).collect()).collect();
    let mut m = m.clone();
    let e = m.edit_function(0);
    check(&e);
    assert_eq!(e.blocks(), blocks);
    for (b, insts) in blocks.iter().zip(&expected) {
        let got: Vec<InstData> = e.block_insts(*b).map(|i| *e.inst(i)).collect();
        assert_eq!(&got, insts);
        assert_eq!(e.phis(*b).len(), insts.iter().filter(|d| matches!(d, InstData::Phi { .. })).count());
    }
    let n = e.params()[0].value;
    assert_eq!(e.value_def(n), Some(ValueDef::Param(0)));
    assert_eq!(e.value_type(n), Some(TypeId::I64));
    assert_eq!(e.use_count(n), 1);
    assert_eq!(e.successors(blocks[1]), vec![blocks[2], blocks[3]]);
    assert_eq!(e.block_name(blocks[2]), "body");
    e.finish();
    // Writing back an unchanged function changes nothing.
    assert_eq!(verified(&m), ir::print_module(&counting_loop()));
}

#[test]
fn insert_remove_replace_and_replace_all_uses() {
    let (mut m, x, sum, product) = arithmetic();
    let mut e = m.edit_function(0);
    let add = e.inst_of(sum).unwrap();
    let mul = e.inst_of(product).unwrap();
    assert_eq!(e.use_count(x), 3);
    // `sum` becomes `x << 1`: a constant and a shift inserted before the add.
    let data = e.constant_data(ConstValue::I(1));
    let (one_inst, one) = e.insert(Position::Before(add), data, Some(TypeId::I32));
    let (shl_inst, shl) = e.insert(
        Position::After(one_inst),
        InstData::Binary { op: Opcode::Shl, args: [x, one.unwrap()] },
        Some(TypeId::I32),
    );
    check(&e);
    assert_eq!(e.next_inst(one_inst), Some(shl_inst));
    assert_eq!(e.prev_inst(add), Some(shl_inst));
    e.replace_all_uses(sum, shl.unwrap());
    check(&e);
    assert_eq!((e.use_count(sum), e.use_count(shl.unwrap())), (0, 1));
    assert_eq!(e.users(shl.unwrap()).collect::<Vec<_>>(), vec![mul]);
    e.remove_inst(add);
    check(&e);
    assert_eq!(e.inst_block(add), None);
    assert_eq!(e.value_def(sum), None);
    assert_eq!(e.use_count(x), 2);
    // The product becomes a subtraction in place: same result value, new operands.
    e.replace_inst(mul, InstData::Binary { op: Opcode::Sub, args: [shl.unwrap(), x] });
    check(&e);
    assert_eq!(e.value_def(product), Some(ValueDef::Inst(mul)));
    // An instruction at the start and at the end of a block, then moved.
    let entry = e.entry();
    let data = e.constant_data(ConstValue::I(7));
    let (first, _) = e.insert(Position::Start(entry), data, Some(TypeId::I32));
    assert_eq!(e.first_inst(entry), Some(first));
    let last = e.last_inst(entry).unwrap();
    assert!(matches!(e.inst(last), InstData::Ret { .. }));
    e.move_inst(first, Position::Before(last));
    assert_eq!(e.prev_inst(last), Some(first));
    check(&e);
    e.finish();
    let text = verified(&m);
    assert!(text.contains("%v3: i32 = const i32 1\n    %v4: i32 = shl i32 %v0, %v3\n    %v2: i32 = sub i32 %v4, %v0\n    %v5: i32 = const i32 7\n    ret i32 %v2"), "{text}");
}

#[test]
fn replace_all_uses_rewrites_every_operand_kind() {
    let m = counting_loop();
    let mut m2 = m.clone();
    let mut e = m2.edit_function(0);
    let n = e.params()[0].value;
    let body = e.blocks()[2];
    let data = e.constant_data(ConstValue::I(10));
    let (_, ten) = e.insert(Position::Start(e.entry()), data, Some(TypeId::I64));
    e.replace_all_uses(n, ten.unwrap());
    check(&e);
    assert_eq!(e.use_count(n), 0);
    // The phi inputs (values of phis) follow too.
    let head = e.blocks()[1];
    let acc = e.inst_result(e.phis(head)[1]).unwrap();
    let total_inst = e.block_insts(body).nth(2).unwrap();
    let total = e.inst_result(total_inst).unwrap();
    e.replace_all_uses(total, acc);
    check(&e);
    assert!(e
        .list(match *e.inst(e.phis(head)[1]) {
            InstData::Phi { inputs } => inputs,
            _ => unreachable!(),
        })
        .contains(&acc.as_u32()));
    e.finish();
    verified(&m2);
}

#[test]
fn split_block_moves_the_tail_and_renames_phi_predecessors() {
    let mut m = counting_loop();
    let mut e = m.edit_function(0);
    let [entry, head, body, exit] = e.blocks()[..] else { panic!("four blocks") };
    // Split the body before its second add: the loop's back edge now comes from the new block.
    let second_add = e.block_insts(body).nth(2).unwrap();
    let tail = e.split_block(second_add, "body.tail").unwrap();
    check(&e);
    assert_eq!(e.blocks(), vec![entry, head, body, tail, exit]);
    assert_eq!(e.successors(body), vec![tail]);
    assert_eq!(e.successors(tail), vec![head]);
    assert_eq!(e.inst_block(second_add), Some(tail));
    for phi in e.phis(head) {
        let InstData::Phi { inputs } = *e.inst(phi) else { unreachable!() };
        let preds: Vec<u32> = e.list(inputs).chunks(2).map(|p| p[1]).collect();
        assert_eq!(preds, vec![entry.as_u32(), tail.as_u32()]);
    }
    e.finish();
    let text = verified(&m);
    assert!(text.contains("format_version 4"), "a new block is not canonically numbered");
}

#[test]
fn remove_block_drops_its_phi_inputs_and_retarget_redirects_edges() {
    let mut m = counting_loop();
    let mut e = m.edit_function(0);
    let [_, head, body, exit] = e.blocks()[..] else { panic!("four blocks") };
    // The header branches straight to the exit: the body becomes unreachable and goes.
    let cond = e.last_inst(head).unwrap();
    e.replace_inst(cond, InstData::Br { dest: exit });
    e.remove_block(body);
    check(&e);
    assert!(!e.has_block(body));
    for phi in e.phis(head) {
        let InstData::Phi { inputs } = *e.inst(phi) else { unreachable!() };
        assert_eq!(e.list(inputs).len(), 2, "only the entry's input is left");
    }
    // A new block between the header and the exit, through `retarget` and the phi helpers.
    let via = e.create_block_after(Some(head), "via");
    e.insert(Position::End(via), InstData::Br { dest: exit }, None);
    e.retarget(head, exit, via);
    assert_eq!(e.successors(head), vec![via]);
    e.move_block_after(via, None);
    assert_eq!(e.blocks()[0], via);
    e.move_block_after(via, Some(head));
    check(&e);
    e.finish();
    verified(&m);
}

#[test]
fn phi_inputs_are_added_removed_and_renamed() {
    let mut m = counting_loop();
    let mut e = m.edit_function(0);
    let [entry, head, body, _] = e.blocks()[..] else { panic!("four blocks") };
    let phi = e.phis(head)[0];
    let n = e.params()[0].value;
    e.add_phi_input(phi, n, body);
    check(&e);
    assert_eq!(e.use_count(n), 2);
    e.remove_phi_input(phi, body);
    check(&e);
    assert_eq!(e.use_count(n), 1);
    let InstData::Phi { inputs } = *e.inst(phi) else { unreachable!() };
    assert_eq!(
        e.list(inputs),
        &[e.inst_result(e.block_insts(entry).next().unwrap()).unwrap().as_u32(), entry.as_u32()]
    );
    e.replace_phi_predecessor(head, entry, body);
    let InstData::Phi { inputs } = *e.inst(phi) else { unreachable!() };
    assert_eq!(e.list(inputs)[1], body.as_u32());
}

#[test]
fn a_function_with_ids_from_zero_keeps_its_numbering() {
    // Format-4 text whose second function reuses the first one's ids.
    let text = "module {
  format_version 4
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"a\": whale (i32) -> i32, linkage internal
  declare @f1 \"b\": whale (i32) -> i32, linkage internal

  fn @f0 \"a\"(%v0 \"x\": i32) -> i32, entry %b0 {
  %b0 \"entry\":
    %v1: i32 = call whale i32 @f1(%v0)
    ret i32 %v1
  }

  fn @f1 \"b\"(%v0 \"y\": i32) -> i32, entry %b0 {
  %b0 \"entry\":
    %v1: i32 = add i32 %v0, %v0
    ret i32 %v1
  }

}
";
    let mut m = ir::parse_module(text).unwrap();
    let mut e = m.edit_function(1);
    let data = e.constant_data(ConstValue::I(3));
    let (_, three) = e.insert(Position::Start(e.entry()), data, Some(TypeId::I32));
    assert_eq!(three, Some(ValueId::from_u32(2)), "new ids follow the function's own");
    e.finish();
    let printed = verified(&m);
    assert!(printed.contains(
        "  fn @f1 \"b\"(%v0 \"y\": i32) -> i32, entry %b0 {\n  %b0 \"entry\":\n    %v2: i32 = const i32 3\n"
    ));
    assert_eq!(m.function_at(0).value_slots(), 2);
}

#[test]
fn editing_every_function_compacts_the_module() {
    let mut mb = builder();
    for k in 0..50 {
        let mut f = mb.begin_function(&format!("f{k}"), vec![], Type::I64);
        let mut v = f.const_i64(k);
        for _ in 0..40 {
            v = f.add(Type::I64, v, v);
        }
        f.ret(Some(v));
        f.finish();
    }
    let mut m = mb.finish();
    let before = ir::print_module(&m);
    for round in 0..3 {
        for index in 0..m.function_count() {
            let mut e = m.edit_function(index);
            // Append a dead constant, then remove it: the body is the same.
            let entry = e.entry();
            let data = e.constant_data(ConstValue::I(round));
            let (inst, _) = e.insert(Position::Start(entry), data, Some(TypeId::I64));
            e.remove_inst(inst);
            e.finish();
        }
    }
    m.compact();
    assert_eq!(ir::print_module(&m), before);
    assert!(m.heap_bytes() < 4 * (m.inst_count() * 32 + 4096), "compaction released the old runs");
}
