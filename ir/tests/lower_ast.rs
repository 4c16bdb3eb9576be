//! AST format 2: every decoder rule and error text, the encoder, O0 lowering of
//! every node kind (printed IR), every `LowerError`, the example programs, and an
//! encode → decode round-trip property. Every program lowered here is lowered a
//! second time from its JSON text with `lower_json`, which must agree.
#![cfg(feature = "socket")]

use ir::lower_ast::frontend::{
    BinaryOp, Callee, CmpOp, Convention, Expr, Function, FunctionDeclaration, GlobalConst, Linkage, Literal, Param,
    Program, Signature, Stmt, Type,
};
use ir::lower_ast::interchange::{decode, decode_with_limit, encode, DecodeError, DEFAULT_MAX_INPUT_BYTES};
use ir::lower_ast::{lower_json, lower_o0, JsonLowerError, LowerError, AST_FORMAT_VERSION, MAX_NESTING};
use ir::{CallError, DataLayout, Endian, FunctionId, LayoutError, Module, TargetError};

const TARGET: &str = "x86_64-whale-linux";

// ---- AST construction helpers ------------------------------------------------------

fn int(bits: u16, signed: bool) -> Type {
    Type::Int { bits, signed }
}
fn i32t() -> Type {
    int(32, true)
}
fn lit(bits: u16, signed: bool, value: &str) -> Expr {
    Expr::Lit(Literal::Int { bits, signed, value: value.into() })
}
fn i32v(value: i64) -> Expr {
    lit(32, true, &value.to_string())
}
fn flit(bits: u16, value: &str) -> Expr {
    Expr::Lit(Literal::Float { bits, value: value.into() })
}
fn blit(value: bool) -> Expr {
    Expr::Lit(Literal::Bool(value))
}
fn var(name: &str) -> Expr {
    Expr::Var(name.into())
}
fn bin(left: Expr, op: BinaryOp, right: Expr) -> Expr {
    Expr::Binary { left: Box::new(left), op, right: Box::new(right) }
}
fn cmp(left: Expr, op: CmpOp, right: Expr) -> Expr {
    Expr::Cmp { left: Box::new(left), op, right: Box::new(right) }
}
fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Call { callee: Callee::Direct(name.into()), args }
}
fn call_indirect(callee: Expr, args: Vec<Expr>) -> Expr {
    Expr::Call { callee: Callee::Indirect(Box::new(callee)), args }
}
fn ret(value: Expr) -> Stmt {
    Stmt::Return(Some(value))
}
fn var_decl(name: &str, ty: Type, init: Option<Expr>) -> Stmt {
    Stmt::VarDecl { name: name.into(), ty, init }
}
fn const_decl(name: &str, ty: Type, init: Expr) -> Stmt {
    Stmt::ConstDecl { name: name.into(), ty, init }
}
fn assign(name: &str, value: Expr) -> Stmt {
    Stmt::Assign { name: name.into(), value }
}
fn if_(cond: Expr, then_body: Vec<Stmt>, else_body: Vec<Stmt>) -> Stmt {
    Stmt::If { cond, then_body, else_body }
}
fn while_(cond: Expr, body: Vec<Stmt>) -> Stmt {
    Stmt::While { cond, body }
}
fn sig(params: Vec<Type>, ret: Type, convention: Convention) -> Signature {
    Signature { params, ret, convention, variadic: false }
}
fn func(name: &str, params: Vec<(&str, Type)>, return_type: Type, body: Vec<Stmt>) -> Function {
    Function {
        convention: Convention::Whale,
        linkage: Linkage::Internal,
        link_name: None,
        name: name.into(),
        parameters: params.into_iter().map(|(name, ty)| Param { name: name.into(), ty }).collect(),
        return_type,
        body,
    }
}
fn external(name: &str, signature: Signature, link: &str) -> FunctionDeclaration {
    FunctionDeclaration { name: name.into(), signature, linkage: Linkage::External, link_name: Some(link.into()) }
}
fn global(name: &str, ty: Type, init: Expr) -> GlobalConst {
    GlobalConst { name: name.into(), ty, init }
}
fn program(functions: Vec<Function>) -> Program {
    Program { declarations: vec![], globals: vec![], functions }
}

/// `lower_o0` of `p`, after checking that `lower_json` of its encoding (when
/// that decodes) gives the same module or the same error.
fn lower(p: &Program) -> Result<Module, LowerError> {
    let layout = DataLayout::default_64bit_le();
    let direct = lower_o0(p, TARGET, layout);
    let text = encode(p);
    if decode(&text).is_ok() {
        match (&direct, lower_json(&text, usize::MAX, TARGET, layout)) {
            (Ok(a), Ok(b)) => assert_text(&ir::print_module(&b), &ir::print_module(a)),
            (Err(a), Err(JsonLowerError::Lower(b))) => assert_eq!(&b, a),
            (a, b) => panic!("lower_o0 gave {:?}, lower_json {:?}", a.as_ref().err(), b.err()),
        }
    }
    direct
}

/// Lowers, verifies and prints `p`.
fn lowered(p: &Program) -> String {
    let module = lower(p).expect("lowers");
    if let Err(e) = ir::verify_module(&module) {
        panic!("verification failed: {e}\n{}", ir::print_module(&module));
    }
    ir::print_module(&module)
}

/// The printed functions of `p` (everything after the declarations).
fn bodies(p: &Program) -> String {
    let text = lowered(p);
    let start = text.find("\n  fn ").map_or(0, |i| i + 1);
    text[start..].to_string()
}

/// Compares printed IR, showing both texts unescaped on a mismatch.
#[track_caller]
fn assert_text(actual: &str, expected: &str) {
    if actual != expected {
        panic!("printed IR differs\n--- actual ---\n{actual}--- expected ---\n{expected}--- end ---");
    }
}

fn lower_err(p: &Program) -> LowerError {
    match lower(p) {
        Ok(m) => panic!("expected an error, got\n{}", ir::print_module(&m)),
        Err(e) => e,
    }
}

// ---- JSON helpers --------------------------------------------------------------------

const EMPTY_PROGRAM: &str = r#"{"declarations": [], "globals": [], "functions": []}"#;

fn envelope(program: &str) -> String {
    format!(r#"{{"format_version": 2, "semantics_version": 1, "features": [], "program": {program}}}"#)
}

/// A program with one void function whose body is `body` (a JSON array).
fn with_body(body: &str) -> String {
    envelope(&format!(
        r#"{{"declarations": [], "globals": [], "functions": [{{"convention": "Whale", "linkage": "Internal",
        "name": "f", "parameters": [], "return_type": "Void", "body": {body}}}]}}"#
    ))
}

const SCHEMA_SUFFIX: &str = "; expected format_version 2, semantics_version 1, features [], program";

fn schema_detail(src: &str) -> String {
    match decode(src) {
        Err(e @ DecodeError::Schema { .. }) => {
            let text = e.to_string();
            assert!(text.starts_with("AST envelope/schema error: "), "{text}");
            assert!(text.ends_with(SCHEMA_SUFFIX), "{text}");
            match e {
                DecodeError::Schema { detail, .. } => detail,
                _ => unreachable!(),
            }
        }
        other => panic!("expected a schema error, got {other:?}"),
    }
}

fn duplicate_key(src: &str) -> String {
    match decode(src) {
        Err(e @ DecodeError::DuplicateKey { .. }) => {
            let text = e.to_string();
            match e {
                DecodeError::DuplicateKey { key, .. } => {
                    assert!(text.starts_with(&format!("duplicate JSON key {key:?}")), "{text}");
                    key
                }
                _ => unreachable!(),
            }
        }
        other => panic!("expected a duplicate key error, got {other:?}"),
    }
}

fn syntax_message(src: &str) -> String {
    match decode(src) {
        Err(DecodeError::Syntax { message, .. }) => message,
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

// ---- decoder --------------------------------------------------------------------------

#[test]
fn versions_are_exported() {
    assert_eq!(AST_FORMAT_VERSION, 2);
    assert_eq!(DEFAULT_MAX_INPUT_BYTES, 8 * 1024 * 1024);
}

#[test]
fn input_limit_accepts_equal_length() {
    let src = envelope(EMPTY_PROGRAM);
    assert_eq!(decode_with_limit(&src, src.len()), Ok(Program::default()));
    let e = decode_with_limit(&src, src.len() - 1).unwrap_err();
    assert_eq!(e, DecodeError::InputTooLarge { len: src.len(), limit: src.len() - 1 });
    assert_eq!(e.to_string(), "AST JSON exceeds input byte limit");
    assert_eq!(e.line_column(), None);
    // The default limit is 8 MiB: padding with whitespace just past it fails.
    let mut big = src.clone();
    big.push_str(&" ".repeat(DEFAULT_MAX_INPUT_BYTES - src.len()));
    assert_eq!(decode(&big), Ok(Program::default()));
    big.push(' ');
    assert!(matches!(decode(&big), Err(DecodeError::InputTooLarge { .. })));
}

#[test]
fn duplicate_keys_at_every_depth() {
    // Envelope, program, function, parameter, type payload, statement payload, literal.
    let cases = [
        (
            r#"{"format_version": 2, "format_version": 2, "semantics_version": 1, "features": [], "program": {}}"#,
            "format_version",
        ),
        (&envelope(r#"{"declarations": [], "globals": [], "functions": [], "globals": []}"#), "globals"),
        (&with_body(r#"[{"Return": null, "Return": null}]"#), "Return"),
        (&with_body(r#"[{"VarDecl": {"name": "x", "ty": {"Int": {"bits": 8, "bits": 8, "signed": true}}}}]"#), "bits"),
        (
            &with_body(r#"[{"ExprStmt": {"Lit": {"Int": {"bits": 8, "signed": true, "value": "1", "value": "2"}}}}]"#),
            "value",
        ),
    ];
    for (src, key) in cases {
        assert_eq!(duplicate_key(src), key, "{src}");
    }
}

#[test]
fn duplicate_keys_compare_unescaped() {
    let src = envelope(r#"{"declarations": [], "globals": [], "glob\u0061ls": [], "functions": []}"#);
    assert_eq!(duplicate_key(&src), "globals");
    let e = decode(&src).unwrap_err();
    assert!(e.to_string().starts_with("duplicate JSON key \"globals\" at line 1 column "), "{e}");
    assert!(e.line_column().is_some());
    // Escapes in the first spelling are unescaped too; the message quotes the key.
    let src = envelope(r#"{"declarations": [], "\u0067lobals": [], "globals": [], "functions": []}"#);
    assert_eq!(duplicate_key(&src), "globals");
    let src = with_body(r#"[{"ExprStmt": {"Var": "x"}, "Expr\u0053tmt": {"Var": "y"}}]"#);
    assert_eq!(duplicate_key(&src), "ExprStmt");
    let quoted = with_body(r#"[{"a\"b": 1, "a\u0022b": 2}]"#);
    let e = decode(&quoted).unwrap_err();
    assert!(e.to_string().starts_with(r#"duplicate JSON key "a\"b""#), "{e}");
}

#[test]
fn duplicate_keys_are_reported_before_schema_errors() {
    // An unknown field comes first in the text, a duplicate later: the raw pass wins.
    let src = r#"{"unknown": 1, "program": {"a": 1, "a": 2}}"#;
    assert_eq!(duplicate_key(src), "a");
    // Duplicates inside values the schema would reject anyway are still duplicates.
    let src = r#"{"format_version": 2, "semantics_version": 1, "features": [{"x": 1, "x": 2}], "program": {}}"#;
    assert_eq!(duplicate_key(src), "x");
}

#[test]
fn unknown_fields_are_schema_errors() {
    let cases = [
        envelope(EMPTY_PROGRAM).replace("\"features\": []", "\"features\": [], \"extra\": 1"),
        envelope(r#"{"declarations": [], "globals": [], "functions": [], "extra": []}"#),
        with_body("[]").replace("\"name\": \"f\"", "\"name\": \"f\", \"extra\": null"),
        with_body(r#"[{"VarDecl": {"name": "x", "ty": "Bool", "init": null, "extra": 1}}]"#),
        with_body(
            r#"[{"ExprStmt": {"Binary": {"left": {"Var": "a"}, "op": "Add", "right": {"Var": "a"}, "extra": 1}}}]"#,
        ),
        with_body(r#"[{"VarDecl": {"name": "x", "ty": {"Int": {"bits": 8, "signed": true, "extra": 1}}}}]"#),
        with_body(r#"[{"ExprStmt": {"Lit": {"Int": {"bits": 8, "signed": true, "value": "1", "extra": 1}}}}]"#),
        with_body(
            r#"[{"ExprStmt": {"NullFunction": {"params": [], "ret": "Void", "convention": "Whale", "variadic": false, "extra": 1}}}]"#,
        ),
    ];
    for src in &cases {
        let detail = schema_detail(src);
        assert!(detail.contains("unknown field `extra`"), "{detail}");
    }
    // An unknown variant tag.
    let detail = schema_detail(&with_body(r#"[{"Loop": []}]"#));
    assert!(detail.contains("unknown variant `Loop`"), "{detail}");
}

#[test]
fn unknown_enum_tags_are_schema_errors() {
    let weak = with_body("[]").replace("\"linkage\": \"Internal\"", "\"linkage\": \"Weak\"");
    assert!(schema_detail(&weak).contains("unknown variant `Weak`"));
    let convention = with_body("[]").replace("\"convention\": \"Whale\"", "\"convention\": \"UnknownConvention\"");
    assert!(schema_detail(&convention).contains("unknown variant `UnknownConvention`"));
    let op = with_body(r#"[{"ExprStmt": {"Binary": {"left": {"Var": "a"}, "op": "Div", "right": {"Var": "a"}}}}]"#);
    assert!(schema_detail(&op).contains("unknown variant `Div`"));
}

#[test]
fn missing_fields_are_schema_errors() {
    let cases = [
        (r#"{"format_version": 2, "semantics_version": 1, "features": []}"#.to_string(), "program"),
        (envelope(r#"{"globals": [], "functions": []}"#), "declarations"),
        (with_body("[]").replace("\"convention\": \"Whale\", ", ""), "convention"),
        (with_body("[]").replace("\"linkage\": \"Internal\",", ""), "linkage"),
        (with_body(r#"[{"If": {"cond": {"Var": "c"}, "then_body": []}}]"#), "else_body"),
        (
            with_body(r#"[{"ExprStmt": {"NullFunction": {"params": [], "ret": "Void", "convention": "Whale"}}}]"#),
            "variadic",
        ),
        (with_body(r#"[{"ConstDecl": {"name": "x", "ty": "Bool"}}]"#), "init"),
        (with_body(r#"[{"ExprStmt": {"Lit": {"Int": {"bits": 8, "signed": true}}}}]"#), "value"),
    ];
    for (src, field) in &cases {
        let detail = schema_detail(src);
        assert!(detail.contains(&format!("missing field `{field}`")), "{detail}");
    }
}

#[test]
fn optional_fields_may_be_absent_or_null() {
    let absent = decode(&with_body(r#"[{"VarDecl": {"name": "x", "ty": "Bool"}}]"#)).unwrap();
    let null = decode(&with_body(r#"[{"VarDecl": {"name": "x", "ty": "Bool", "init": null}}]"#)).unwrap();
    assert_eq!(absent, null);
    assert_eq!(absent.functions[0].link_name, None);
    assert_eq!(absent.functions[0].body, vec![var_decl("x", Type::Bool, None)]);
}

#[test]
fn wrong_json_types_are_schema_errors() {
    // A JSON number where a decimal string is required.
    let number = with_body(r#"[{"ExprStmt": {"Lit": {"Int": {"bits": 8, "signed": true, "value": 1}}}}]"#);
    assert!(schema_detail(&number).contains("invalid type: integer `1`, expected a string"));
    let float = with_body(r#"[{"ExprStmt": {"Lit": {"Float": {"bits": 64, "value": 1.5}}}}]"#);
    assert!(schema_detail(&float).contains("invalid type: floating point `1.5`, expected a string"));
    // A string where a number is required, and widths beyond u16.
    let bits = with_body(r#"[{"VarDecl": {"name": "x", "ty": {"Int": {"bits": "8", "signed": true}}}}]"#);
    assert!(schema_detail(&bits).contains("expected u16"));
    let wide = with_body(r#"[{"VarDecl": {"name": "x", "ty": {"Int": {"bits": 65536, "signed": true}}}}]"#);
    assert!(schema_detail(&wide).contains("expected u16"));
    let len = with_body(r#"[{"VarDecl": {"name": "x", "ty": {"Array": {"elem": "Bool", "len": -1}}}}]"#);
    assert!(schema_detail(&len).contains("expected u64"));
    // Not an object at all.
    assert!(schema_detail("[]").contains("expected struct Envelope"));
    assert!(schema_detail(&envelope("null")).contains("invalid type: null"));
}

#[test]
fn unit_variants_are_names_or_null_payloads() {
    let name = decode(&with_body(r#"["Break", "Continue"]"#)).unwrap();
    let null = decode(&with_body(r#"[{"Break": null}, {"Continue": null}]"#)).unwrap();
    assert_eq!(name, null);
    assert_eq!(name.functions[0].body, vec![Stmt::Break, Stmt::Continue]);
    let void =
        decode(&with_body("[]").replace("\"return_type\": \"Void\"", "\"return_type\": {\"Void\": null}")).unwrap();
    assert_eq!(void.functions[0].return_type, Type::Void);
    let conv = with_body("[]").replace("\"convention\": \"Whale\"", "\"convention\": {\"SysV64\": null}");
    assert_eq!(decode(&conv).unwrap().functions[0].convention, Convention::SysV64);
    // Any other payload for a unit variant is an error.
    for payload in ["1", "{}", "[]", "false", "\"\""] {
        let src = with_body(&format!(r#"[{{"Break": {payload}}}]"#));
        schema_detail(&src);
        let src =
            with_body("[]").replace("\"return_type\": \"Void\"", &format!("\"return_type\": {{\"Void\": {payload}}}"));
        schema_detail(&src);
    }
    // A variant with a payload cannot be written as a bare name, and a tag object has one key.
    schema_detail(&with_body(r#"["Return"]"#));
    schema_detail(&with_body(r#"[{"VarDecl": {"name": "x", "ty": "Int"}}]"#));
    schema_detail(&with_body(r#"[{"Break": null, "Continue": null}]"#));
}

#[test]
fn trailing_values_fail() {
    let src = envelope(EMPTY_PROGRAM);
    assert!(syntax_message(&format!("{src} null")).contains("trailing characters"));
    assert!(syntax_message(&format!("{src}{{}}")).contains("trailing characters"));
    // Whitespace after the value is fine.
    assert_eq!(decode(&format!("\n{src}\n\t ")), Ok(Program::default()));
}

#[test]
fn malformed_json_is_a_syntax_error_with_a_position() {
    let e = decode("").unwrap_err();
    assert!(matches!(e, DecodeError::Syntax { .. }), "{e:?}");
    assert!(e.to_string().contains("EOF while parsing"), "{e}");
    let e = decode("{\"format_version\": 2,\n  \"program\": [1,]}").unwrap_err();
    assert_eq!(e.line_column(), Some((2, 17)));
    assert!(e.to_string().ends_with(" at line 2 column 17"), "{e}");
    assert!(matches!(decode("{\"a\": 1e999}"), Err(DecodeError::Syntax { .. })));
}

#[test]
fn nesting_is_bounded_without_overflowing_the_stack() {
    let arrays = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert!(syntax_message(&arrays).contains("recursion limit exceeded"));
    let inside = envelope(EMPTY_PROGRAM).replace("\"features\": []", &format!("\"features\": {arrays}"));
    assert!(syntax_message(&inside).contains("recursion limit exceeded"));
    let objects = format!("{}1{}", "{\"a\": ".repeat(200), "}".repeat(200));
    assert!(syntax_message(&objects).contains("recursion limit exceeded"));
    // A deep expression: 100 nested `Binary` nodes are 200 JSON levels.
    let mut expr = r#"{"Var": "x"}"#.to_string();
    for _ in 0..100 {
        expr = format!(r#"{{"Binary": {{"left": {expr}, "op": "Add", "right": {{"Var": "x"}}}}}}"#);
    }
    let deep = with_body(&format!(r#"[{{"ExprStmt": {expr}}}]"#));
    assert!(syntax_message(&deep).contains("recursion limit exceeded"));
    // Unbalanced megabytes of brackets fail the same way.
    assert!(syntax_message(&"[".repeat(1 << 20)).contains("recursion limit exceeded"));
}

#[test]
fn deepest_decodable_expression_lowers() {
    // As deep as the JSON limit allows: it decodes, lowers and verifies.
    let mut expr = r#"{"Var": "x"}"#.to_string();
    let mut depth = 0;
    loop {
        let next = format!(r#"{{"Binary": {{"left": {expr}, "op": "Add", "right": {{"Var": "x"}}}}}}"#);
        let src = with_body(&format!(
            r#"[{{"VarDecl": {{"name": "x", "ty": {{"Int": {{"bits": 8, "signed": true}}}}}}}}, {{"ExprStmt": {next}}}]"#
        ));
        if decode(&src).is_err() {
            break;
        }
        expr = next;
        depth += 1;
    }
    assert!(depth > 55, "{depth}");
    let src = with_body(&format!(
        r#"[{{"VarDecl": {{"name": "x", "ty": {{"Int": {{"bits": 8, "signed": true}}}}}}}}, {{"ExprStmt": {expr}}}]"#
    ));
    lowered(&decode(&src).unwrap());
}

#[test]
fn version_checks_follow_the_schema() {
    let with = |format: &str, semantics: &str, features: &str| {
        format!(
            r#"{{"format_version": {format}, "semantics_version": {semantics}, "features": {features}, "program": {EMPTY_PROGRAM}}}"#
        )
    };
    let e = decode(&with("99", "1", "[]")).unwrap_err();
    assert_eq!(e, DecodeError::FormatVersion(99));
    assert_eq!(e.to_string(), "unsupported AST format_version 99; expected 2");
    let e = decode(&with("2", "2", "[]")).unwrap_err();
    assert_eq!(e.to_string(), "unsupported semantics_version 2; expected 1");
    let e = decode(&with("2", "1", r#"["x", "y"]"#)).unwrap_err();
    assert_eq!(e, DecodeError::Features(vec!["x".into(), "y".into()]));
    assert_eq!(e.to_string(), r#"unsupported AST features: ["x", "y"]; supported feature list is empty"#);
    // The format version is checked first, then semantics, then features.
    assert_eq!(decode(&with("3", "7", r#"["x"]"#)), Err(DecodeError::FormatVersion(3)));
    assert_eq!(decode(&with("2", "7", r#"["x"]"#)), Err(DecodeError::SemanticsVersion(7)));
    // Versions and features must still have the right JSON types.
    assert!(schema_detail(&with("\"2\"", "1", "[]")).contains("expected u64"));
    assert!(schema_detail(&with("-2", "1", "[]")).contains("expected u64"));
    assert!(schema_detail(&with("2.0", "1", "[]")).contains("expected u64"));
    assert!(schema_detail(&with("2", "1", "{}")).contains("expected a sequence"));
    assert!(schema_detail(&with("2", "1", "[1]")).contains("expected a string"));
}

#[test]
fn format_1_payloads_fail() {
    // A format-1 payload that has the format-2 fields fails with the version message…
    let v1 = envelope(EMPTY_PROGRAM).replace("\"format_version\": 2", "\"format_version\": 1");
    assert_eq!(decode(&v1).unwrap_err().to_string(), "unsupported AST format_version 1; expected 2");
    // …one without them (no declarations, no convention) with the schema message.
    let old = r#"{"format_version": 1, "semantics_version": 1, "features": [],
        "program": {"globals": [], "functions": []}}"#;
    assert!(schema_detail(old).contains("missing field `declarations`"));
    // An unversioned bare program is rejected too.
    assert!(schema_detail(EMPTY_PROGRAM).contains("unknown field `declarations`"));
}

#[test]
fn numbers_and_literal_text_are_not_checked_by_the_decoder() {
    // Widths and literal text pass decoding; lowering checks them.
    let src = with_body(
        r#"[{"ExprStmt": {"Lit": {"Int": {"bits": 7, "signed": false, "value": "-x"}}}},
            {"ExprStmt": {"Lit": {"Float": {"bits": 80, "value": "1.5"}}}}]"#,
    );
    let p = decode(&src).unwrap();
    assert_eq!(
        p.functions[0].body,
        vec![
            Stmt::ExprStmt(Expr::Lit(Literal::Int { bits: 7, signed: false, value: "-x".into() })),
            Stmt::ExprStmt(flit(80, "1.5")),
        ]
    );
    assert_eq!(lower_err(&p), LowerError::UnsupportedType("int bits=7 signed=false".into()));
}

// ---- encoder ----------------------------------------------------------------------------

#[test]
fn encode_is_pretty_ordered_and_canonical() {
    let p = Program {
        declarations: vec![FunctionDeclaration {
            name: "g".into(),
            signature: sig(vec![], Type::Void, Convention::SysV64),
            linkage: Linkage::External,
            link_name: Some("g_impl".into()),
        }],
        globals: vec![],
        functions: vec![func("f", vec![], Type::Void, vec![Stmt::Return(None), Stmt::Break])],
    };
    let expected = r#"{
  "format_version": 2,
  "semantics_version": 1,
  "features": [],
  "program": {
    "declarations": [
      {
        "name": "g",
        "signature": {
          "params": [],
          "ret": "Void",
          "convention": "SysV64",
          "variadic": false
        },
        "linkage": "External",
        "link_name": "g_impl"
      }
    ],
    "globals": [],
    "functions": [
      {
        "convention": "Whale",
        "linkage": "Internal",
        "link_name": null,
        "name": "f",
        "parameters": [],
        "return_type": "Void",
        "body": [
          {
            "Return": null
          },
          "Break"
        ]
      }
    ]
  }
}"#;
    assert_eq!(encode(&p), expected);
    assert_eq!(decode(expected), Ok(p));
}

#[test]
fn encode_decode_is_idempotent_on_examples() {
    for (name, src) in examples() {
        let p = decode(&src).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = encode(&p);
        assert_eq!(text, src.trim_end(), "{name} is stored canonically");
        assert_eq!(decode(&text).as_ref(), Ok(&p));
    }
}

// ---- lowering: the seed and upstream's worked example -------------------------------------

const SEED_JSON: &str = r#"{
  "format_version": 2,
  "semantics_version": 1,
  "features": [],
  "program": {
    "globals": [],
    "functions": [
      {
        "name": "answer",
        "parameters": [],
        "return_type": {
          "Int": {
            "bits": 128,
            "signed": false
          }
        },
        "body": [
          {
            "Return": {
              "Lit": {
                "Int": {
                  "bits": 128,
                  "signed": false,
                  "value": "340282366920938463463374607431768211455"
                }
              }
            }
          }
        ],
        "convention": "Whale",
        "linkage": "Internal",
        "link_name": null
      }
    ],
    "declarations": []
  }
}"#;

#[test]
fn seed_example_lowers_to_the_seed_text() {
    let p = decode(SEED_JSON).unwrap();
    assert_eq!(
        lowered(&p),
        "module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"answer\": whale () -> u128, linkage internal

  fn @answer() -> u128, id @f0 {
  entry:
    %v0: u128 = const u128 340282366920938463463374607431768211455
    ret u128 %v0
  }

}
"
    );
}

#[test]
fn seed_invalid_version_message() {
    let src = r#"{
  "format_version": 99,
  "semantics_version": 1,
  "features": [],
  "program": {
    "globals": [],
    "functions": [],
    "declarations": []
  }
}"#;
    assert_eq!(decode(src).unwrap_err().to_string(), "unsupported AST format_version 99; expected 2");
}

#[test]
fn parameters_spill_and_if_else_blocks() {
    // whale-upstream §c.2.
    let p = program(vec![func(
        "max",
        vec![("a", i32t()), ("b", i32t())],
        i32t(),
        vec![
            var_decl("x", i32t(), Some(i32v(0))),
            if_(cmp(var("a"), CmpOp::Gt, var("b")), vec![assign("x", var("a"))], vec![assign("x", var("b"))]),
            ret(var("x")),
        ],
    )]);
    assert_eq!(
        bodies(&p),
        "  fn @max(a: i32, b: i32) -> i32, id @f0 {
  entry:
    %v2: ptr<i32> = alloca i32, align 4
    %v3: ptr<i32> = alloca i32, align 4
    %v5: ptr<i32> = alloca i32, align 4
    store i32 %v0, ptr<i32> %v2, align 4
    store i32 %v1, ptr<i32> %v3, align 4
    %v4: i32 = const i32 0
    store i32 %v4, ptr<i32> %v5, align 4
    %v6: i32 = load i32, ptr<i32> %v2, align 4
    %v7: i32 = load i32, ptr<i32> %v3, align 4
    %v8: bool = cmp sgt i32 %v6, %v7
    cbr bool %v8, label 1, label 2
  if.then:
    %v9: i32 = load i32, ptr<i32> %v2, align 4
    store i32 %v9, ptr<i32> %v5, align 4
    br label 3
  if.else:
    %v10: i32 = load i32, ptr<i32> %v3, align 4
    store i32 %v10, ptr<i32> %v5, align 4
    br label 3
  if.cont:
    %v11: i32 = load i32, ptr<i32> %v5, align 4
    ret i32 %v11
  }

}
"
    );
}

// ---- lowering: node kinds -------------------------------------------------------------------

#[test]
fn literals_lower_to_constants() {
    let p = program(vec![func(
        "f",
        vec![],
        Type::Void,
        vec![
            Stmt::ExprStmt(blit(true)),
            Stmt::ExprStmt(lit(8, true, "-128")),
            Stmt::ExprStmt(lit(1, false, "1")),
            Stmt::ExprStmt(lit(128, true, "-170141183460469231731687303715884105728")),
            Stmt::ExprStmt(flit(16, "0x7C01")),
            Stmt::ExprStmt(flit(32, "0x80000000")),
            Stmt::ExprStmt(flit(64, "0x7ff8000000000001")),
        ],
    )]);
    assert_text(
        &bodies(&p),
        "  fn @f() -> void, id @f0 {
  entry:
    %v0: bool = const bool true
    %v1: i8 = const i8 -128
    %v2: u1 = const u1 1
    %v3: i128 = const i128 -170141183460469231731687303715884105728
    %v4: f16 = const f16 0x7c01
    %v5: f32 = const f32 0x80000000
    %v6: f64 = const f64 0x7ff8000000000001
    ret void
  }

}
",
    );
}

#[test]
fn names_resolve_to_slots_constants_and_globals() {
    let mut p = program(vec![func(
        "f",
        vec![("p", int(16, false))],
        int(16, false),
        vec![
            const_decl("c", int(16, false), lit(16, false, "7")),
            // A global is re-materialised; a local constant is read without a load.
            Stmt::ExprStmt(var("G")),
            Stmt::ExprStmt(var("c")),
            // Shadowing inside an arm does not escape it.
            if_(blit(true), vec![var_decl("c", int(16, false), Some(var("p"))), Stmt::ExprStmt(var("c"))], vec![]),
            ret(bin(var("c"), BinaryOp::Add, var("p"))),
        ],
    )]);
    p.globals.push(global("G", int(16, false), lit(16, false, "3")));
    assert_text(
        &bodies(&p),
        "  fn @f(p: u16) -> u16, id @f0 {
  entry:
    %v1: ptr<u16> = alloca u16, align 2
    %v6: ptr<u16> = alloca u16, align 2
    store u16 %v0, ptr<u16> %v1, align 2
    %v2: u16 = const_decl \"c\" u16 7 => const u16 7
    %v3: u16 = const u16 3
    %v4: bool = const bool true
    cbr bool %v4, label 1, label 2
  if.then:
    %v5: u16 = load u16, ptr<u16> %v1, align 2
    store u16 %v5, ptr<u16> %v6, align 2
    %v7: u16 = load u16, ptr<u16> %v6, align 2
    br label 3
  if.else:
    br label 3
  if.cont:
    %v8: u16 = load u16, ptr<u16> %v1, align 2
    %v9: u16 = add u16 %v2, %v8
    ret u16 %v9
  }

}
",
    );
}

#[test]
fn arithmetic_and_comparisons_pick_opcodes_from_types() {
    let p = program(vec![func(
        "f",
        vec![("i", int(64, true)), ("u", int(8, false)), ("x", Type::Float { bits: 32 }), ("b", Type::Bool)],
        Type::Void,
        vec![
            Stmt::ExprStmt(bin(var("i"), BinaryOp::Sub, var("i"))),
            Stmt::ExprStmt(bin(var("u"), BinaryOp::Mul, var("u"))),
            Stmt::ExprStmt(bin(var("x"), BinaryOp::Add, var("x"))),
            Stmt::ExprStmt(bin(var("x"), BinaryOp::Sub, var("x"))),
            Stmt::ExprStmt(bin(var("x"), BinaryOp::Mul, var("x"))),
            Stmt::ExprStmt(cmp(var("i"), CmpOp::Le, var("i"))),
            Stmt::ExprStmt(cmp(var("u"), CmpOp::Gt, var("u"))),
            Stmt::ExprStmt(cmp(var("u"), CmpOp::Ne, var("u"))),
            Stmt::ExprStmt(cmp(var("x"), CmpOp::Ge, var("x"))),
            Stmt::ExprStmt(cmp(var("b"), CmpOp::Eq, var("b"))),
        ],
    )]);
    assert_text(
        &bodies(&p),
        "  fn @f(i: i64, u: u8, x: f32, b: bool) -> void, id @f0 {
  entry:
    %v4: ptr<i64> = alloca i64, align 8
    %v5: ptr<u8> = alloca u8, align 1
    %v6: ptr<f32> = alloca f32, align 4
    %v7: ptr<bool> = alloca bool, align 1
    store i64 %v0, ptr<i64> %v4, align 8
    store u8 %v1, ptr<u8> %v5, align 1
    store f32 %v2, ptr<f32> %v6, align 4
    store bool %v3, ptr<bool> %v7, align 1
    %v8: i64 = load i64, ptr<i64> %v4, align 8
    %v9: i64 = load i64, ptr<i64> %v4, align 8
    %v10: i64 = sub i64 %v8, %v9
    %v11: u8 = load u8, ptr<u8> %v5, align 1
    %v12: u8 = load u8, ptr<u8> %v5, align 1
    %v13: u8 = mul u8 %v11, %v12
    %v14: f32 = load f32, ptr<f32> %v6, align 4
    %v15: f32 = load f32, ptr<f32> %v6, align 4
    %v16: f32 = fadd f32 %v14, %v15
    %v17: f32 = load f32, ptr<f32> %v6, align 4
    %v18: f32 = load f32, ptr<f32> %v6, align 4
    %v19: f32 = fsub f32 %v17, %v18
    %v20: f32 = load f32, ptr<f32> %v6, align 4
    %v21: f32 = load f32, ptr<f32> %v6, align 4
    %v22: f32 = fmul f32 %v20, %v21
    %v23: i64 = load i64, ptr<i64> %v4, align 8
    %v24: i64 = load i64, ptr<i64> %v4, align 8
    %v25: bool = cmp sle i64 %v23, %v24
    %v26: u8 = load u8, ptr<u8> %v5, align 1
    %v27: u8 = load u8, ptr<u8> %v5, align 1
    %v28: bool = cmp ugt u8 %v26, %v27
    %v29: u8 = load u8, ptr<u8> %v5, align 1
    %v30: u8 = load u8, ptr<u8> %v5, align 1
    %v31: bool = cmp ne u8 %v29, %v30
    %v32: f32 = load f32, ptr<f32> %v6, align 4
    %v33: f32 = load f32, ptr<f32> %v6, align 4
    %v34: bool = cmp fge f32 %v32, %v33
    %v35: bool = load bool, ptr<bool> %v7, align 1
    %v36: bool = load bool, ptr<bool> %v7, align 1
    %v37: bool = cmp eq bool %v35, %v36
    ret void
  }

}
",
    );
}

#[test]
fn calls_function_refs_and_null_functions() {
    let unary = sig(vec![i32t()], i32t(), Convention::Whale);
    let mut p = program(vec![
        func("id", vec![("x", i32t())], i32t(), vec![ret(var("x"))]),
        func(
            "main",
            vec![],
            i32t(),
            vec![
                // A non-void call used as a statement keeps its result.
                Stmt::ExprStmt(call("id", vec![i32v(1)])),
                Stmt::ExprStmt(call("log", vec![i32v(2)])),
                var_decl("f", Type::FnPtr(Box::new(unary.clone())), Some(Expr::FunctionRef("id".into()))),
                var_decl("n", Type::FnPtr(Box::new(unary.clone())), Some(Expr::NullFunction(unary))),
                ret(call_indirect(var("f"), vec![call("id", vec![i32v(3)])])),
            ],
        ),
    ]);
    p.declarations.push(external("log", sig(vec![i32t()], Type::Void, Convention::SysV64), "log_i32"));
    assert_text(
        &lowered(&p),
        "module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"log\": sysv64 (i32) -> void, linkage external, link_name \"log_i32\"
  declare @f1 \"id\": whale (i32) -> i32, linkage internal
  declare @f2 \"main\": whale () -> i32, linkage internal

  fn @id(x: i32) -> i32, id @f1 {
  entry:
    %v1: ptr<i32> = alloca i32, align 4
    store i32 %v0, ptr<i32> %v1, align 4
    %v2: i32 = load i32, ptr<i32> %v1, align 4
    ret i32 %v2
  }

  fn @main() -> i32, id @f2 {
  entry:
    %v7: ptr<fnptr<whale (i32) -> i32>> = alloca fnptr<whale (i32) -> i32>, align 8
    %v9: ptr<fnptr<whale (i32) -> i32>> = alloca fnptr<whale (i32) -> i32>, align 8
    %v3: i32 = const i32 1
    %v4: i32 = call whale i32 @f1(%v3)
    %v5: i32 = const i32 2
    call sysv64 void @f0(%v5)
    %v6: fnptr<whale (i32) -> i32> = function_addr @f1
    store fnptr<whale (i32) -> i32> %v6, ptr<fnptr<whale (i32) -> i32>> %v7, align 8
    %v8: fnptr<whale (i32) -> i32> = null_function
    store fnptr<whale (i32) -> i32> %v8, ptr<fnptr<whale (i32) -> i32>> %v9, align 8
    %v10: fnptr<whale (i32) -> i32> = load fnptr<whale (i32) -> i32>, ptr<fnptr<whale (i32) -> i32>> %v7, align 8
    %v11: i32 = const i32 3
    %v12: i32 = call whale i32 @f1(%v11)
    %v13: i32 = call whale i32 indirect %v10(%v12)
    ret i32 %v13
  }

}
",
    );
}

#[test]
fn definitions_reuse_identical_declarations() {
    let mut p = program(vec![
        func("a", vec![], Type::Void, vec![Stmt::ExprStmt(call("b", vec![]))]),
        func("b", vec![], Type::Void, vec![]),
    ]);
    // A forward declaration of `b` (internal) and an exported definition of `c`.
    p.declarations.push(FunctionDeclaration {
        name: "b".into(),
        signature: sig(vec![], Type::Void, Convention::Whale),
        linkage: Linkage::Internal,
        link_name: None,
    });
    let mut c = func("c", vec![], Type::Void, vec![]);
    c.linkage = Linkage::External;
    c.link_name = Some("c_export".into());
    p.functions.push(c);
    p.declarations.push(external("c", sig(vec![], Type::Void, Convention::Whale), "c_export"));
    assert_text(
        &lowered(&p),
        "module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  declare @f0 \"b\": whale () -> void, linkage internal
  declare @f1 \"c\": whale () -> void, linkage external, link_name \"c_export\"
  declare @f2 \"a\": whale () -> void, linkage internal

  fn @a() -> void, id @f2 {
  entry:
    call whale void @f0()
    ret void
  }

  fn @b() -> void, id @f0 {
  entry:
    ret void
  }

  fn @c() -> void, id @f1 {
  entry:
    ret void
  }

}
",
    );
}

#[test]
fn returns_missing_returns_and_dead_code() {
    let p = program(vec![
        func("v", vec![], Type::Void, vec![]),
        func("early", vec![], Type::Void, vec![Stmt::Return(None), Stmt::ExprStmt(i32v(1)), Stmt::Return(None)]),
        func("missing", vec![], i32t(), vec![Stmt::ExprStmt(i32v(1))]),
        func("both", vec![("c", Type::Bool)], i32t(), vec![if_(var("c"), vec![ret(i32v(1))], vec![ret(i32v(2))])]),
    ]);
    assert_text(
        &bodies(&p),
        "  fn @v() -> void, id @f0 {
  entry:
    ret void
  }

  fn @early() -> void, id @f1 {
  entry:
    ret void
  unreachable.cont:
    %v0: i32 = const i32 1
    ret void
  }

  fn @missing() -> i32, id @f2 {
  entry:
    %v1: i32 = const i32 1
    trap reason=\"missing return\"
  }

  fn @both(c: bool) -> i32, id @f3 {
  entry:
    %v3: ptr<bool> = alloca bool, align 1
    store bool %v2, ptr<bool> %v3, align 1
    %v4: bool = load bool, ptr<bool> %v3, align 1
    cbr bool %v4, label 5, label 6
  if.then:
    %v5: i32 = const i32 1
    ret i32 %v5
  if.else:
    %v6: i32 = const i32 2
    ret i32 %v6
  if.cont:
    trap reason=\"missing return\"
  }

}
",
    );
}

#[test]
fn const_decls_reference_globals_and_earlier_constants() {
    let mut p = program(vec![func(
        "f",
        vec![],
        Type::Bool,
        vec![
            const_decl("a", int(8, true), bin(var("G"), BinaryOp::Add, lit(8, true, "1"))),
            const_decl("b", int(8, true), bin(var("a"), BinaryOp::Mul, var("a"))),
            const_decl("a", Type::Bool, cmp(var("b"), CmpOp::Lt, var("G"))),
            const_decl("h", Type::Float { bits: 16 }, bin(flit(16, "0x3c00"), BinaryOp::Sub, flit(16, "0x3c00"))),
            ret(var("a")),
        ],
    )]);
    p.globals.push(global("G", int(8, true), lit(8, true, "127")));
    assert_text(
        &lowered(&p),
        "module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  global @G: i8 = const i8 127, align 1, id @g0, init_expr i8 127

  declare @f0 \"f\": whale () -> bool, linkage internal

  fn @f() -> bool, id @f0 {
  entry:
    %v0: i8 = const_decl \"a\" add(i8 @g0, i8 1) => const i8 -128
    %v1: i8 = const_decl \"b\" mul(i8 %v0, i8 %v0) => const i8 0
    %v2: bool = const_decl \"a\" lt(i8 %v1, i8 @g0) => const bool true
    %v3: f16 = const_decl \"h\" sub(f16 0x3c00, f16 0x3c00) => const f16 0x0000
    ret bool %v2
  }

}
",
    );
}

#[test]
fn globals_evaluate_in_order_with_wrapping() {
    let mut p = program(vec![]);
    p.globals = vec![
        global("A", int(8, true), bin(lit(8, true, "127"), BinaryOp::Add, lit(8, true, "1"))),
        global("B", int(8, true), bin(var("A"), BinaryOp::Sub, lit(8, true, "1"))),
        global("C", Type::Bool, cmp(var("B"), CmpOp::Gt, var("A"))),
        global("D", Type::Float { bits: 64 }, flit(64, "0x3ff0000000000000")),
        global("E", int(128, false), lit(128, false, "340282366920938463463374607431768211455")),
    ];
    assert_text(&lowered(&p), "module {
  format_version 2
  semantics_version 1
  target \"x86_64-whale-linux\"
  datalayout { ptr=64, endian=little }

  global @A: i8 = const i8 -128, align 1, id @g0, init_expr add(i8 127, i8 1)
  global @B: i8 = const i8 127, align 1, id @g1, init_expr sub(i8 @g0, i8 1)
  global @C: bool = const bool true, align 1, id @g2, init_expr gt(i8 @g1, i8 @g0)
  global @D: f64 = const f64 0x3ff0000000000000, align 8, id @g3, init_expr f64 0x3ff0000000000000
  global @E: u128 = const u128 340282366920938463463374607431768211455, align 16, id @g4, init_expr u128 340282366920938463463374607431768211455

}
");
}

#[test]
fn var_decl_without_init_is_uninit_at_the_declaration() {
    let p = program(vec![func(
        "f",
        vec![],
        int(64, false),
        vec![
            var_decl("n", int(64, false), None),
            while_(blit(false), vec![var_decl("a", Type::array(int(8, false), 16), None)]),
            assign("n", lit(64, false, "5")),
            ret(var("n")),
        ],
    )]);
    // `uninit` is not a format-2 instruction, so the module prints as format 4 (whale-ir §3).
    assert_text(
        &bodies(&p),
        "  fn @f0 \"f\"() -> u64, entry %b0 {
  %b0 \"entry\":
    %v0: ptr<u64> = alloca u64, align 8
    %v2: ptr<array<u8, 16>> = alloca array<u8, 16>, align 16
    uninit u64, ptr<u64> %v0, align 8
    br label %b1
  %b1 \"while.cond\":
    %v1: bool = const bool false
    cbr bool %v1, label %b2, label %b3
  %b2 \"while.body\":
    uninit array<u8, 16>, ptr<array<u8, 16>> %v2, align 16
    br label %b1
  %b3 \"while.exit\":
    %v3: u64 = const u64 5
    store u64 %v3, ptr<u64> %v0, align 8
    %v4: u64 = load u64, ptr<u64> %v0, align 8
    ret u64 %v4
  }

}
",
    );
}

#[test]
fn loops_with_break_and_continue() {
    let p = program(vec![func(
        "f",
        vec![("n", i32t())],
        Type::Void,
        vec![
            while_(
                cmp(var("n"), CmpOp::Gt, i32v(0)),
                vec![
                    assign("n", bin(var("n"), BinaryOp::Sub, i32v(1))),
                    if_(cmp(var("n"), CmpOp::Eq, i32v(5)), vec![Stmt::Continue], vec![]),
                    while_(blit(true), vec![Stmt::Break, Stmt::Continue]),
                    Stmt::Break,
                ],
            ),
            Stmt::Return(None),
        ],
    )]);
    assert_text(
        &bodies(&p),
        "  fn @f(n: i32) -> void, id @f0 {
  entry:
    %v1: ptr<i32> = alloca i32, align 4
    store i32 %v0, ptr<i32> %v1, align 4
    br label 1
  while.cond:
    %v2: i32 = load i32, ptr<i32> %v1, align 4
    %v3: i32 = const i32 0
    %v4: bool = cmp sgt i32 %v2, %v3
    cbr bool %v4, label 2, label 3
  while.body:
    %v5: i32 = load i32, ptr<i32> %v1, align 4
    %v6: i32 = const i32 1
    %v7: i32 = sub i32 %v5, %v6
    store i32 %v7, ptr<i32> %v1, align 4
    %v8: i32 = load i32, ptr<i32> %v1, align 4
    %v9: i32 = const i32 5
    %v10: bool = cmp eq i32 %v8, %v9
    cbr bool %v10, label 4, label 5
  while.exit:
    ret void
  if.then:
    br label 1
  if.else:
    br label 6
  if.cont:
    br label 7
  while.cond:
    %v11: bool = const bool true
    cbr bool %v11, label 8, label 9
  while.body:
    br label 9
  while.exit:
    br label 3
  unreachable.cont:
    br label 7
  }

}
",
    );
}

trait ArrayType {
    fn array(elem: Type, len: u64) -> Type;
}
impl ArrayType for Type {
    fn array(elem: Type, len: u64) -> Type {
        Type::Array { elem: Box::new(elem), len }
    }
}

fn examples() -> Vec<(&'static str, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    ["fib", "loops", "globals", "calls", "literals"]
        .into_iter()
        .map(|name| {
            let path = dir.join(format!("{name}.json"));
            (name, std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        })
        .collect()
}

// ---- lowering: errors --------------------------------------------------------------------

fn void_fn(body: Vec<Stmt>) -> Program {
    program(vec![func("f", vec![], Type::Void, body)])
}

fn i32_fn(body: Vec<Stmt>) -> Program {
    program(vec![func("f", vec![("p", i32t())], i32t(), body)])
}

#[test]
fn target_errors() {
    let p = Program::default();
    assert_eq!(
        lower_o0(&p, "riscv", DataLayout::default_64bit_le()),
        Err(LowerError::Target(TargetError::UnsupportedTarget("riscv".into())))
    );
    let big = DataLayout { pointer_bits: 64, endian: Endian::Big };
    assert!(matches!(lower_o0(&p, TARGET, big), Err(LowerError::Target(TargetError::LayoutMismatch { .. }))));
    // The target is checked before anything else.
    let bad = program(vec![func("f", vec![], Type::Void, vec![]), func("f", vec![], Type::Void, vec![])]);
    assert!(matches!(lower_o0(&bad, "riscv", big), Err(LowerError::Target(_))));
}

#[test]
fn duplicate_names() {
    let p = program(vec![func("f", vec![], Type::Void, vec![]), func("f", vec![], i32t(), vec![])]);
    assert_eq!(lower_err(&p), LowerError::DuplicateFunction("f".into()));
    let p = program(vec![func("g", vec![("a", i32t()), ("a", Type::Bool)], Type::Void, vec![])]);
    let e = lower_err(&p);
    assert_eq!(e, LowerError::DuplicateParameter { func: "g".into(), param: "a".into() });
    assert_eq!(e.to_string(), "function \"g\" has two parameters named \"a\"");
    // Names are checked before any declaration: the bad type of `h` is never seen.
    let p = program(vec![
        func("h", vec![("x", Type::Opaque("T".into()))], Type::Void, vec![]),
        func("h", vec![], Type::Void, vec![]),
    ]);
    assert_eq!(lower_err(&p), LowerError::DuplicateFunction("h".into()));
    let mut p = program(vec![]);
    p.globals = vec![global("G", Type::Bool, blit(true)), global("G", Type::Bool, blit(false))];
    assert_eq!(lower_err(&p), LowerError::DuplicateGlobal("G".into()));
}

#[test]
fn declaration_errors() {
    // A definition that differs from its declaration.
    let mut p = program(vec![func("f", vec![], Type::Void, vec![])]);
    p.declarations.push(external("f", sig(vec![], Type::Void, Convention::Whale), "f"));
    assert_eq!(lower_err(&p), LowerError::Call(CallError::ConflictingDeclaration("f".into())));
    // An internal declaration without a definition.
    let mut p = program(vec![]);
    p.declarations.push(external("ext", sig(vec![], Type::Void, Convention::SysV64), "ext"));
    p.declarations.push(FunctionDeclaration {
        name: "g".into(),
        signature: sig(vec![], Type::Void, Convention::Whale),
        linkage: Linkage::Internal,
        link_name: None,
    });
    assert_eq!(lower_err(&p), LowerError::Call(CallError::MissingDefinition(FunctionId::from_u32(1))));
    // Link names: required for external, forbidden for internal.
    let mut p = program(vec![]);
    p.declarations.push(FunctionDeclaration {
        name: "e".into(),
        signature: sig(vec![], Type::Void, Convention::Whale),
        linkage: Linkage::External,
        link_name: None,
    });
    assert_eq!(lower_err(&p), LowerError::Call(CallError::InvalidLinkName("e".into())));
    let mut f = func("i", vec![], Type::Void, vec![]);
    f.link_name = Some("i".into());
    assert_eq!(lower_err(&program(vec![f])), LowerError::Call(CallError::InvalidLinkName("i".into())));
    // Invalid signatures: variadic, void parameter, SysV64 aggregate.
    let mut p = program(vec![]);
    p.declarations.push(external(
        "v",
        Signature { variadic: true, ..sig(vec![], Type::Void, Convention::SysV64) },
        "v",
    ));
    assert!(matches!(lower_err(&p), LowerError::Call(CallError::InvalidSignature(_))));
    let p = program(vec![func("w", vec![("x", Type::Void)], Type::Void, vec![])]);
    assert!(matches!(lower_err(&p), LowerError::Call(CallError::InvalidSignature(_))));
    let mut p = program(vec![]);
    p.declarations.push(external("s", sig(vec![Type::array(i32t(), 2)], Type::Void, Convention::SysV64), "s"));
    assert_eq!(
        lower_err(&p),
        LowerError::Call(CallError::InvalidSignature("SysV64 aggregate signatures are unsupported".into()))
    );
}

#[test]
fn call_errors() {
    let callee = func("one", vec![("x", i32t())], i32t(), vec![ret(var("x"))]);
    let with = |body: Vec<Stmt>| program(vec![callee.clone(), func("f", vec![], Type::Void, body)]);
    let e = lower_err(&with(vec![Stmt::ExprStmt(call("nope", vec![]))]));
    assert_eq!(e, LowerError::Call(CallError::UnknownFunctionName("nope".into())));
    let e = lower_err(&with(vec![Stmt::ExprStmt(Expr::FunctionRef("nope".into()))]));
    assert_eq!(e, LowerError::Call(CallError::UnknownFunctionName("nope".into())));
    let e = lower_err(&with(vec![Stmt::ExprStmt(call("one", vec![]))]));
    assert_eq!(e, LowerError::Call(CallError::ArgumentCount { expected: 1, got: 0 }));
    let e = lower_err(&with(vec![Stmt::ExprStmt(call("one", vec![blit(true)]))]));
    assert_eq!(e, LowerError::Call(CallError::ArgumentType { index: 0, expected: ir::Type::I32, got: ir::Type::Bool }));
    // An indirect callee must be a function pointer; it is checked before the arguments.
    let e = lower_err(&with(vec![Stmt::ExprStmt(call_indirect(i32v(1), vec![var("missing")]))]));
    assert!(matches!(e, LowerError::Call(CallError::NotFunctionPointer(_))), "{e:?}");
    // A variable does not shadow a function for Direct or FunctionRef.
    let p = with(vec![var_decl("one", Type::Bool, None), Stmt::ExprStmt(call("one", vec![i32v(1)]))]);
    lowered(&p);
    // An invalid null function signature.
    let bad = Signature { variadic: true, ..sig(vec![], Type::Void, Convention::Whale) };
    let e = lower_err(&with(vec![Stmt::ExprStmt(Expr::NullFunction(bad))]));
    assert!(matches!(e, LowerError::Call(CallError::InvalidSignature(_))));
}

#[test]
fn void_calls_are_not_values() {
    let sink = func("sink", vec![], Type::Void, vec![]);
    let cases = [
        func("a", vec![], Type::Void, vec![var_decl("x", i32t(), Some(call("sink", vec![])))]),
        func("b", vec![], i32t(), vec![ret(call("sink", vec![]))]),
        func("c", vec![], Type::Void, vec![Stmt::ExprStmt(bin(call("sink", vec![]), BinaryOp::Add, i32v(1)))]),
        func("d", vec![], Type::Void, vec![Stmt::ExprStmt(call("d", vec![call("sink", vec![])]))]),
    ];
    for f in cases {
        assert_eq!(lower_err(&program(vec![sink.clone(), f])), LowerError::VoidCallUsedAsValue);
    }
    assert_eq!(LowerError::VoidCallUsedAsValue.to_string(), "a call to a void function is used as a value");
}

#[test]
fn literal_errors() {
    let e = lower_err(&void_fn(vec![Stmt::ExprStmt(lit(32, false, "-1"))]));
    assert_eq!(e, LowerError::NumericLiteral("expected decimal digits with an optional signed minus".into()));
    assert_eq!(e.to_string(), "invalid numeric literal: expected decimal digits with an optional signed minus");
    let e = lower_err(&void_fn(vec![Stmt::ExprStmt(lit(128, true, "170141183460469231731687303715884105728"))]));
    assert_eq!(e, LowerError::NumericLiteral("integer exceeds i128 range".into()));
    let e = lower_err(&void_fn(vec![Stmt::ExprStmt(lit(128, false, "340282366920938463463374607431768211456"))]));
    assert_eq!(e, LowerError::NumericLiteral("integer exceeds u128 range".into()));
    let e = lower_err(&void_fn(vec![Stmt::ExprStmt(flit(64, "0x3ff"))]));
    assert_eq!(e, LowerError::NumericLiteral("f64 requires exactly 16 hexadecimal digits".into()));
    for (bits, signed, text, ty) in [
        (8, true, "128", ir::Type::I8),
        (8, true, "-129", ir::Type::I8),
        (8, false, "256", ir::Type::U8),
        (1, true, "1", ir::Type::I1),
        (1, false, "2", ir::Type::U1),
        (64, false, "18446744073709551616", ir::Type::U64),
    ] {
        let e = lower_err(&void_fn(vec![Stmt::ExprStmt(lit(bits, signed, text))]));
        assert_eq!(e, LowerError::InvalidLiteral { ty, value: text.into() });
    }
    // Literal errors in global initializers and constants too.
    let mut p = program(vec![]);
    p.globals.push(global("G", int(8, true), lit(8, true, "300")));
    assert_eq!(lower_err(&p), LowerError::InvalidLiteral { ty: ir::Type::I8, value: "300".into() });
}

#[test]
fn type_errors() {
    let e = lower_err(&void_fn(vec![var_decl("x", int(12, true), None)]));
    assert_eq!(e, LowerError::UnsupportedType("int bits=12 signed=true".into()));
    let e = lower_err(&program(vec![func("f", vec![], Type::Float { bits: 128 }, vec![])]));
    assert_eq!(e, LowerError::UnsupportedType("float bits=128".into()));
    let e = lower_err(&program(vec![func(
        "f",
        vec![("x", Type::Ptr(Box::new(Type::Opaque("FILE".into()))))],
        Type::Void,
        vec![],
    )]));
    assert_eq!(e, LowerError::UnsupportedType("opaque FILE".into()));
    assert_eq!(e.to_string(), "unsupported type: opaque FILE");
    // Layout: a parameter too large for the address space, a void variable.
    let huge = Type::array(int(64, false), u64::MAX);
    let e = lower_err(&program(vec![func("f", vec![("a", huge)], Type::Void, vec![])]));
    assert_eq!(e, LowerError::Layout(LayoutError::Overflow));
    let e = lower_err(&void_fn(vec![var_decl("v", Type::Void, None)]));
    assert_eq!(e, LowerError::Layout(LayoutError::Void));
}

#[test]
fn type_mismatches() {
    let mismatch = |expected: ir::Type, got: ir::Type| LowerError::TypeMismatch { expected, got };
    let e = lower_err(&i32_fn(vec![ret(bin(var("p"), BinaryOp::Add, lit(64, true, "1")))]));
    assert_eq!(e, mismatch(ir::Type::I32, ir::Type::I64));
    assert_eq!(e.to_string(), "type mismatch: expected i32, got i64");
    let e = lower_err(&i32_fn(vec![ret(blit(true))]));
    assert_eq!(e, mismatch(ir::Type::I32, ir::Type::Bool));
    let e = lower_err(&i32_fn(vec![if_(lit(1, true, "-1"), vec![], vec![]), ret(var("p"))]));
    assert_eq!(e, mismatch(ir::Type::Bool, ir::Type::I1));
    let e = lower_err(&i32_fn(vec![while_(lit(1, false, "1"), vec![])]));
    assert_eq!(e, mismatch(ir::Type::Bool, ir::Type::U1));
    let e = lower_err(&i32_fn(vec![var_decl("x", int(32, false), Some(var("p")))]));
    assert_eq!(e, mismatch(ir::Type::U32, ir::Type::I32));
    let e = lower_err(&i32_fn(vec![assign("p", lit(8, true, "1"))]));
    assert_eq!(e, mismatch(ir::Type::I32, ir::Type::I8));
    let e = lower_err(&i32_fn(vec![Stmt::ExprStmt(cmp(var("p"), CmpOp::Eq, blit(true)))]));
    assert_eq!(e, mismatch(ir::Type::I32, ir::Type::Bool));
    let e = lower_err(&i32_fn(vec![const_decl("c", Type::Bool, i32v(1))]));
    assert_eq!(e, mismatch(ir::Type::Bool, ir::Type::I32));
    let e = lower_err(&i32_fn(vec![const_decl("c", i32t(), bin(i32v(1), BinaryOp::Mul, lit(8, true, "1")))]));
    assert_eq!(e, mismatch(ir::Type::I32, ir::Type::I8));
    let mut p = program(vec![]);
    p.globals.push(global("G", int(64, true), i32v(1)));
    assert_eq!(lower_err(&p), mismatch(ir::Type::I64, ir::Type::I32));
}

#[test]
fn unknown_variables() {
    let e = lower_err(&void_fn(vec![Stmt::ExprStmt(var("x"))]));
    assert_eq!(e, LowerError::UnknownVariable("x".into()));
    let e = lower_err(&void_fn(vec![assign("y", blit(true))]));
    assert_eq!(e, LowerError::UnknownVariable("y".into()));
    // Declarations do not escape an arm or a loop body.
    let e = lower_err(&void_fn(vec![
        if_(blit(true), vec![var_decl("z", Type::Bool, None)], vec![]),
        Stmt::ExprStmt(var("z")),
    ]));
    assert_eq!(e, LowerError::UnknownVariable("z".into()));
    let e = lower_err(&void_fn(vec![
        while_(blit(false), vec![const_decl("w", Type::Bool, blit(true))]),
        Stmt::ExprStmt(var("w")),
    ]));
    assert_eq!(e, LowerError::UnknownVariable("w".into()));
    // A global may only use earlier globals.
    let mut p = program(vec![]);
    p.globals = vec![global("A", Type::Bool, var("B")), global("B", Type::Bool, blit(true))];
    assert_eq!(lower_err(&p), LowerError::UnknownVariable("B".into()));
    p.globals = vec![global("A", Type::Bool, var("A"))];
    assert_eq!(lower_err(&p), LowerError::UnknownVariable("A".into()));
    // The variable is bound after its initializer.
    let e = lower_err(&void_fn(vec![var_decl("v", Type::Bool, Some(var("v")))]));
    assert_eq!(e, LowerError::UnknownVariable("v".into()));
}

#[test]
fn unsupported_statements_and_expressions() {
    assert_eq!(lower_err(&i32_fn(vec![Stmt::Return(None)])), LowerError::UnsupportedStmt);
    let bool_fn = |body| program(vec![func("f", vec![("b", Type::Bool)], Type::Void, body)]);
    let e = lower_err(&bool_fn(vec![Stmt::ExprStmt(bin(var("b"), BinaryOp::Add, var("b")))]));
    assert_eq!(e, LowerError::UnsupportedExpr);
    let e = lower_err(&bool_fn(vec![Stmt::ExprStmt(cmp(var("b"), CmpOp::Lt, var("b")))]));
    assert_eq!(e, LowerError::UnsupportedExpr);
    let ptr = program(vec![func(
        "f",
        vec![("q", Type::Ptr(Box::new(Type::Void)))],
        Type::Void,
        vec![Stmt::ExprStmt(bin(var("q"), BinaryOp::Add, var("q")))],
    )]);
    assert_eq!(lower_err(&ptr), LowerError::UnsupportedExpr);
    // Constant evaluation failures.
    let e = lower_err(&void_fn(vec![const_decl("c", Type::Bool, bin(blit(true), BinaryOp::Mul, blit(true)))]));
    assert_eq!(e, LowerError::UnsupportedExpr);
    let mut p = program(vec![]);
    p.globals.push(global("G", Type::Bool, cmp(blit(true), CmpOp::Ge, blit(false))));
    assert_eq!(lower_err(&p), LowerError::UnsupportedExpr);
}

#[test]
fn break_and_continue_need_a_loop() {
    assert_eq!(lower_err(&void_fn(vec![Stmt::Break])), LowerError::BreakOutsideLoop);
    assert_eq!(lower_err(&void_fn(vec![Stmt::Continue])), LowerError::ContinueOutsideLoop);
    // Even in dead code, and even after a loop has ended.
    let e = lower_err(&void_fn(vec![Stmt::Return(None), Stmt::Break]));
    assert_eq!(e, LowerError::BreakOutsideLoop);
    let e = lower_err(&void_fn(vec![while_(blit(true), vec![Stmt::Break]), Stmt::Continue]));
    assert_eq!(e, LowerError::ContinueOutsideLoop);
}

#[test]
fn returns_from_void_functions() {
    let e = lower_err(&void_fn(vec![ret(i32v(1))]));
    assert_eq!(e, LowerError::ValueReturnedFromVoid);
    // Checked before the value is lowered.
    let e = lower_err(&void_fn(vec![ret(var("missing"))]));
    assert_eq!(e, LowerError::ValueReturnedFromVoid);
}

#[test]
fn constants_are_not_assignable_and_must_be_constant() {
    let e = lower_err(&void_fn(vec![const_decl("c", Type::Bool, blit(true)), assign("c", blit(false))]));
    assert_eq!(e, LowerError::AssignToConst("c".into()));
    // The value is lowered before the name is looked up.
    let e = lower_err(&void_fn(vec![const_decl("c", Type::Bool, blit(true)), assign("c", var("nope"))]));
    assert_eq!(e, LowerError::UnknownVariable("nope".into()));
    // Runtime values in constant expressions.
    for init in
        [var("p"), bin(i32v(1), BinaryOp::Add, var("v")), call("f", vec![var("p")]), Expr::FunctionRef("f".into())]
    {
        let p = i32_fn(vec![var_decl("v", i32t(), None), const_decl("c", i32t(), init), ret(var("c"))]);
        assert_eq!(lower_err(&p), LowerError::NonConstExpr);
    }
    let mut p = program(vec![func("f", vec![], Type::Void, vec![])]);
    p.globals.push(global(
        "G",
        Type::FnPtr(Box::new(sig(vec![], Type::Void, Convention::Whale))),
        Expr::FunctionRef("f".into()),
    ));
    assert_eq!(lower_err(&p), LowerError::NonConstExpr);
    p.globals[0].init = Expr::NullFunction(sig(vec![], Type::Void, Convention::Whale));
    assert_eq!(lower_err(&p), LowerError::NonConstExpr);
}

#[test]
fn missing_init_is_never_produced() {
    // Upstream declares the variant; a variable without initializer lowers to `uninit`.
    lowered(&void_fn(vec![var_decl("x", i32t(), None)]));
    assert_eq!(LowerError::MissingInit("x".into()).to_string(), "variable \"x\" has no initializer");
}

#[test]
fn nesting_beyond_the_limit_is_an_error_not_a_crash() {
    let mut expr = var("p");
    for _ in 0..MAX_NESTING + 10 {
        expr = bin(expr, BinaryOp::Add, var("p"));
    }
    let e = lower_err(&i32_fn(vec![ret(expr.clone())]));
    assert_eq!(e, LowerError::NestingLimit { limit: MAX_NESTING });
    let e = lower_err(&i32_fn(vec![const_decl("c", i32t(), expr)]));
    assert_eq!(e, LowerError::NestingLimit { limit: MAX_NESTING });
    let mut stmt = Stmt::Return(None);
    for _ in 0..MAX_NESTING + 10 {
        stmt = if_(blit(true), vec![stmt], vec![]);
    }
    assert_eq!(lower_err(&void_fn(vec![stmt])), LowerError::NestingLimit { limit: MAX_NESTING });
    let mut ty = Type::Bool;
    for _ in 0..MAX_NESTING + 10 {
        ty = Type::Ptr(Box::new(ty));
    }
    let e = lower_err(&program(vec![func("f", vec![("q", ty)], Type::Void, vec![])]));
    assert_eq!(e, LowerError::NestingLimit { limit: MAX_NESTING });
    // Just under the limit is fine.
    let mut expr = var("p");
    for _ in 0..MAX_NESTING - 2 {
        expr = bin(expr, BinaryOp::Add, var("p"));
    }
    lowered(&i32_fn(vec![ret(expr)]));
}

// ---- examples --------------------------------------------------------------------------------

#[test]
fn lower_json_reports_what_decode_and_lower_o0_report() {
    let layout = DataLayout::default_64bit_le();
    let json = |src: &str, limit| lower_json(src, limit, TARGET, layout).map(|m| ir::print_module(&m));
    for (name, src) in examples() {
        let expected = ir::print_module(&lower(&decode(&src).unwrap()).unwrap());
        assert_eq!(json(&src, DEFAULT_MAX_INPUT_BYTES).as_deref(), Ok(expected.as_str()), "{name}");
        // Compact and re-indented spellings of the same program.
        let compact: String = src.split('\n').map(str::trim_start).collect();
        assert_eq!(json(&compact, DEFAULT_MAX_INPUT_BYTES).as_deref(), Ok(expected.as_str()), "{name}");
        let limit = src.len() - 1;
        let too_large = JsonLowerError::Decode(DecodeError::InputTooLarge { len: src.len(), limit });
        assert_eq!(json(&src, limit), Err(too_large), "{name}");
    }
    for src in [
        envelope(EMPTY_PROGRAM).replace("\"format_version\": 2", "\"format_version\": 99"),
        envelope(EMPTY_PROGRAM) + " null",
        envelope(r#"{"declarations": [], "globals": [], "functions": [], "extra": 1}"#),
        envelope(EMPTY_PROGRAM).replacen("\"features\": []", "\"features\": [], \"feat\\u0075res\": []", 1),
    ] {
        let expected = decode(&src).unwrap_err();
        assert_eq!(json(&src, DEFAULT_MAX_INPUT_BYTES), Err(JsonLowerError::Decode(expected)), "{src}");
    }
    // An escaped key is the key it spells.
    let escaped = envelope(EMPTY_PROGRAM).replacen("features", "feat\\u0075res", 1);
    assert_eq!(json(&escaped, DEFAULT_MAX_INPUT_BYTES), json(&envelope(EMPTY_PROGRAM), DEFAULT_MAX_INPUT_BYTES));
    let unknown = with_body(r#"[{"ExprStmt": {"Var": "missing"}}]"#);
    let expected = LowerError::UnknownVariable("missing".into());
    assert_eq!(json(&unknown, DEFAULT_MAX_INPUT_BYTES), Err(JsonLowerError::Lower(expected)));
    assert_eq!(
        lower_json(&envelope(EMPTY_PROGRAM), DEFAULT_MAX_INPUT_BYTES, "sparc-sun-solaris", layout).unwrap_err(),
        JsonLowerError::Lower(lower_o0(&Program::default(), "sparc-sun-solaris", layout).unwrap_err())
    );
}

#[test]
fn examples_decode_lower_and_verify() {
    for (name, src) in examples() {
        let p = decode(&src).unwrap_or_else(|e| panic!("{name}: {e}"));
        let module = lower(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = ir::verify_module(&module) {
            panic!("{name}: {e}\n{}", ir::print_module(&module));
        }
    }
}

#[test]
fn fib_example_prints() {
    let (_, src) = examples().into_iter().find(|(name, _)| *name == "fib").unwrap();
    assert_text(
        &bodies(&decode(&src).unwrap()),
        "  fn @fib(n: u64) -> u64, id @f0 {
  entry:
    %v1: ptr<u64> = alloca u64, align 8
    store u64 %v0, ptr<u64> %v1, align 8
    %v2: u64 = load u64, ptr<u64> %v1, align 8
    %v3: u64 = const u64 2
    %v4: bool = cmp ult u64 %v2, %v3
    cbr bool %v4, label 1, label 2
  if.then:
    %v5: u64 = load u64, ptr<u64> %v1, align 8
    ret u64 %v5
  if.else:
    br label 3
  if.cont:
    %v6: u64 = load u64, ptr<u64> %v1, align 8
    %v7: u64 = const u64 1
    %v8: u64 = sub u64 %v6, %v7
    %v9: u64 = call whale u64 @f0(%v8)
    %v10: u64 = load u64, ptr<u64> %v1, align 8
    %v11: u64 = const u64 2
    %v12: u64 = sub u64 %v10, %v11
    %v13: u64 = call whale u64 @f0(%v12)
    %v14: u64 = add u64 %v9, %v13
    ret u64 %v14
  }

  fn @main() -> u64, id @f1 {
  entry:
    %v15: u64 = const u64 10
    %v16: u64 = call whale u64 @f0(%v15)
    ret u64 %v16
  }

}
",
    );
}

// ---- round-trip property ----------------------------------------------------------------------

mod round_trip {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;

    /// A fixed seed keeps runs deterministic; no regression files are written.
    fn config(cases: u32) -> ProptestConfig {
        ProptestConfig {
            cases,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_2a57),
            failure_persistence: None,
            ..ProptestConfig::default()
        }
    }

    fn name() -> impl Strategy<Value = String> {
        prop_oneof![3 => "[a-z]{1,6}", 1 => any::<String>()]
    }

    fn convention() -> impl Strategy<Value = Convention> {
        prop_oneof![Just(Convention::Whale), Just(Convention::SysV64)]
    }

    fn linkage() -> impl Strategy<Value = Linkage> {
        prop_oneof![Just(Linkage::Internal), Just(Linkage::External)]
    }

    fn ty() -> impl Strategy<Value = Type> {
        let leaf = prop_oneof![
            (any::<u16>(), any::<bool>()).prop_map(|(bits, signed)| Type::Int { bits, signed }),
            any::<u16>().prop_map(|bits| Type::Float { bits }),
            name().prop_map(Type::Opaque),
            Just(Type::Void),
            Just(Type::Bool),
        ];
        leaf.prop_recursive(3, 12, 3, |inner| {
            prop_oneof![
                inner.clone().prop_map(|t| Type::Ptr(Box::new(t))),
                (inner.clone(), any::<u64>()).prop_map(|(t, len)| Type::Array { elem: Box::new(t), len }),
                (vec(inner.clone(), 0..3), inner, convention(), any::<bool>()).prop_map(
                    |(params, ret, convention, variadic)| {
                        Type::FnPtr(Box::new(Signature { params, ret, convention, variadic }))
                    }
                ),
            ]
        })
    }

    fn signature() -> impl Strategy<Value = Signature> {
        (vec(ty(), 0..3), ty(), convention(), any::<bool>()).prop_map(|(params, ret, convention, variadic)| Signature {
            params,
            ret,
            convention,
            variadic,
        })
    }

    fn literal() -> impl Strategy<Value = Literal> {
        prop_oneof![
            any::<bool>().prop_map(Literal::Bool),
            (any::<u16>(), any::<bool>(), any::<String>()).prop_map(|(bits, signed, value)| Literal::Int {
                bits,
                signed,
                value
            }),
            (any::<u16>(), "0x[0-9a-fA-F]{0,16}").prop_map(|(bits, value)| Literal::Float { bits, value }),
        ]
    }

    fn binary_op() -> impl Strategy<Value = BinaryOp> {
        prop_oneof![Just(BinaryOp::Add), Just(BinaryOp::Sub), Just(BinaryOp::Mul)]
    }

    fn cmp_op() -> impl Strategy<Value = CmpOp> {
        prop_oneof![
            Just(CmpOp::Eq),
            Just(CmpOp::Ne),
            Just(CmpOp::Lt),
            Just(CmpOp::Le),
            Just(CmpOp::Gt),
            Just(CmpOp::Ge)
        ]
    }

    fn expr() -> impl Strategy<Value = Expr> {
        let leaf = prop_oneof![
            name().prop_map(Expr::Var),
            literal().prop_map(Expr::Lit),
            name().prop_map(Expr::FunctionRef),
            signature().prop_map(Expr::NullFunction),
        ];
        leaf.prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                (inner.clone(), binary_op(), inner.clone()).prop_map(|(l, op, r)| Expr::Binary {
                    left: Box::new(l),
                    op,
                    right: Box::new(r)
                }),
                (inner.clone(), cmp_op(), inner.clone()).prop_map(|(l, op, r)| Expr::Cmp {
                    left: Box::new(l),
                    op,
                    right: Box::new(r)
                }),
                (name(), vec(inner.clone(), 0..3)).prop_map(|(n, args)| Expr::Call { callee: Callee::Direct(n), args }),
                (inner.clone(), vec(inner, 0..3))
                    .prop_map(|(c, args)| Expr::Call { callee: Callee::Indirect(Box::new(c)), args }),
            ]
        })
    }

    fn stmt() -> impl Strategy<Value = Stmt> {
        let leaf = prop_oneof![
            proptest::option::of(expr()).prop_map(Stmt::Return),
            (name(), ty(), expr()).prop_map(|(name, ty, init)| Stmt::ConstDecl { name, ty, init }),
            (name(), ty(), proptest::option::of(expr())).prop_map(|(name, ty, init)| Stmt::VarDecl { name, ty, init }),
            (name(), expr()).prop_map(|(name, value)| Stmt::Assign { name, value }),
            expr().prop_map(Stmt::ExprStmt),
            Just(Stmt::Break),
            Just(Stmt::Continue),
        ];
        leaf.prop_recursive(3, 16, 3, |inner| {
            prop_oneof![
                (expr(), vec(inner.clone(), 0..3), vec(inner.clone(), 0..3))
                    .prop_map(|(cond, then_body, else_body)| Stmt::If { cond, then_body, else_body }),
                (expr(), vec(inner, 0..3)).prop_map(|(cond, body)| Stmt::While { cond, body }),
            ]
        })
    }

    fn function() -> impl Strategy<Value = Function> {
        (
            convention(),
            linkage(),
            proptest::option::of(name()),
            name(),
            vec((name(), ty()).prop_map(|(name, ty)| Param { name, ty }), 0..3),
            ty(),
            vec(stmt(), 0..4),
        )
            .prop_map(|(convention, linkage, link_name, name, parameters, return_type, body)| Function {
                convention,
                linkage,
                link_name,
                name,
                parameters,
                return_type,
                body,
            })
    }

    fn program() -> impl Strategy<Value = Program> {
        let declaration = (name(), signature(), linkage(), proptest::option::of(name())).prop_map(
            |(name, signature, linkage, link_name)| FunctionDeclaration { name, signature, linkage, link_name },
        );
        let global = (name(), ty(), expr()).prop_map(|(name, ty, init)| GlobalConst { name, ty, init });
        (vec(declaration, 0..3), vec(global, 0..3), vec(function(), 0..3))
            .prop_map(|(declarations, globals, functions)| Program { declarations, globals, functions })
    }

    proptest! {
        #![proptest_config(config(128))]

        #[test]
        fn encode_then_decode_is_identity(p in program()) {
            let text = encode(&p);
            let back = decode(&text);
            prop_assert_eq!(back.as_ref(), Ok(&p));
            prop_assert_eq!(encode(&p), text);
        }

        #[test]
        fn lowering_never_panics(p in program()) {
            // Arbitrary programs mostly fail to lower; whatever the outcome, lowering returns.
            if let Ok(module) = lower(&p) {
                let _ = ir::verify_module(&module);
            }
        }
    }

    proptest! {
        #![proptest_config(config(256))]

        #[test]
        fn lowered_programs_verify(p in small::program()) {
            // Programs over a few names and scalar types often lower; every one that does verifies.
            if let Ok(module) = lower(&p) {
                if let Err(e) = ir::verify_module(&module) {
                    return Err(TestCaseError::fail(format!("{e}\n{}", ir::print_module(&module))));
                }
            }
        }
    }

    /// Programs over three parameters, one global, two functions, mostly `i32`
    /// values and well-formed literals: many of them lower.
    mod small {
        use super::*;

        fn name() -> impl Strategy<Value = String> {
            prop_oneof![Just("a"), Just("b"), Just("c"), Just("G")].prop_map(String::from)
        }

        fn ty() -> impl Strategy<Value = Type> {
            prop_oneof![
                24 => Just(int(32, true)),
                1 => Just(int(8, false)),
                1 => Just(Type::Bool),
                1 => Just(Type::Float { bits: 64 }),
            ]
        }

        fn literal() -> impl Strategy<Value = Expr> {
            prop_oneof![
                24 => any::<i32>().prop_map(|v| lit(32, true, &v.to_string())),
                1 => any::<u8>().prop_map(|v| lit(8, false, &v.to_string())),
                1 => any::<bool>().prop_map(blit),
                1 => any::<u64>().prop_map(|v| flit(64, &format!("0x{v:016x}"))),
            ]
        }

        fn literal_of(ty: &Type) -> Expr {
            match ty {
                Type::Bool => blit(true),
                Type::Float { .. } => flit(64, "0x3ff0000000000000"),
                Type::Int { signed: false, .. } => lit(8, false, "7"),
                _ => i32v(-3),
            }
        }

        fn expr() -> impl Strategy<Value = Expr> {
            let leaf = prop_oneof![3 => name().prop_map(Expr::Var), 2 => literal()];
            leaf.prop_recursive(3, 12, 2, |inner| {
                prop_oneof![
                    3 => (inner.clone(), binary_op(), inner.clone())
                        .prop_map(|(l, op, r)| bin(l, op, r)),
                    1 => (prop_oneof![Just("f"), Just("g")], vec(inner, 3)).prop_map(|(n, args)| call(n, args)),
                ]
            })
        }

        fn condition() -> impl Strategy<Value = Expr> {
            (expr(), cmp_op(), expr()).prop_map(|(l, op, r)| cmp(l, op, r))
        }

        /// A constant expression: literals, the global and earlier constants.
        fn const_init() -> impl Strategy<Value = Expr> {
            let leaf = prop_oneof![literal(), Just(var("G")), Just(var("a"))];
            leaf.prop_recursive(2, 6, 2, |inner| {
                (inner.clone(), binary_op(), inner).prop_map(|(l, op, r)| bin(l, op, r))
            })
        }

        fn stmt() -> impl Strategy<Value = Stmt> {
            let leaf = prop_oneof![
                2 => proptest::option::of(expr()).prop_map(Stmt::Return),
                1 => (name(), ty(), const_init()).prop_map(|(name, ty, init)| Stmt::ConstDecl { name, ty, init }),
                2 => (name(), ty(), proptest::option::of(expr()))
                    .prop_map(|(name, ty, init)| Stmt::VarDecl { name, ty, init }),
                3 => (name(), expr()).prop_map(|(name, value)| Stmt::Assign { name, value }),
                2 => expr().prop_map(Stmt::ExprStmt),
                1 => Just(Stmt::Break),
                1 => Just(Stmt::Continue),
            ];
            leaf.prop_recursive(3, 24, 4, |inner| {
                prop_oneof![
                    (condition(), vec(inner.clone(), 0..4), vec(inner.clone(), 0..3))
                        .prop_map(|(cond, then_body, else_body)| Stmt::If { cond, then_body, else_body }),
                    (condition(), vec(inner, 0..4)).prop_map(|(cond, body)| Stmt::While { cond, body }),
                ]
            })
        }

        pub(super) fn program() -> impl Strategy<Value = Program> {
            let function = |name: &'static str| {
                (vec(ty(), 3), prop_oneof![1 => Just(Type::Void), 4 => ty()], vec(stmt(), 0..6)).prop_map(
                    move |(params, ret, body)| {
                        let params = ["a", "b", "c"].into_iter().zip(params).collect();
                        super::super::func(name, params, ret, body)
                    },
                )
            };
            (function("f"), function("g"), ty()).prop_map(|(f, g, ty)| {
                let mut p = super::super::program(vec![f, g]);
                let init = literal_of(&ty);
                p.globals.push(super::super::global("G", ty, init));
                p
            })
        }
    }
}

#[test]
fn structs_are_objects_only() {
    // serde would read a struct from an array of its field values; the schema does not.
    assert!(schema_detail(&envelope("[[], [], []]")).contains("invalid type: sequence, expected struct Program"));
    let int = with_body(r#"[{"VarDecl": {"name": "x", "ty": {"Int": [8, true]}}}]"#);
    assert!(schema_detail(&int).contains("invalid type: sequence"));
    let stmt = with_body(r#"[{"Assign": ["x", {"Var": "y"}]}]"#);
    assert!(schema_detail(&stmt).contains("invalid type: sequence"));
    let param = with_body("[]").replace("\"parameters\": []", "\"parameters\": [[\"x\", \"Bool\"]]");
    assert!(schema_detail(&param).contains("invalid type: sequence, expected struct Param"));
    let top = r#"[2, 1, [], {"declarations": [], "globals": [], "functions": []}]"#;
    assert!(schema_detail(top).contains("invalid type: sequence"));
}

/// The seed's example program (`ir/tests/fixtures/ast-v2-calls.json`): it
/// stores a callback, calls it, then calls an external function; the seed
/// lowers it with `whale ir lower ir/tests/fixtures/ast-v2-calls.json`.
#[test]
fn the_seed_calls_fixture_lowers_to_its_expected_ir() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ast-v2-calls.json");
    let source = std::fs::read_to_string(&path).unwrap();
    let program = ir::lower_ast::interchange::decode(&source).unwrap();
    let module = ir::lower_ast::lower_o0(&program, "x86_64-whale-linux", DataLayout::default_64bit_le()).unwrap();
    ir::verify_module(&module).unwrap();
    assert_text(
        &ir::print_module(&module),
        r#"module {
  format_version 2
  semantics_version 1
  target "x86_64-whale-linux"
  datalayout { ptr=64, endian=little }

  declare @f0 "log_value": sysv64 (i32) -> void, linkage external, link_name "whale_print_int"
  declare @f1 "increment": whale (i32) -> i32, linkage internal
  declare @f2 "main": whale () -> i32, linkage internal

  fn @increment(x: i32) -> i32, id @f1 {
  entry:
    %v1: ptr<i32> = alloca i32, align 4
    store i32 %v0, ptr<i32> %v1, align 4
    %v2: i32 = load i32, ptr<i32> %v1, align 4
    %v3: i32 = const i32 1
    %v4: i32 = add i32 %v2, %v3
    ret i32 %v4
  }

  fn @main() -> i32, id @f2 {
  entry:
    %v6: ptr<fnptr<whale (i32) -> i32>> = alloca fnptr<whale (i32) -> i32>, align 8
    %v10: ptr<i32> = alloca i32, align 4
    %v5: fnptr<whale (i32) -> i32> = function_addr @f1
    store fnptr<whale (i32) -> i32> %v5, ptr<fnptr<whale (i32) -> i32>> %v6, align 8
    %v7: fnptr<whale (i32) -> i32> = load fnptr<whale (i32) -> i32>, ptr<fnptr<whale (i32) -> i32>> %v6, align 8
    %v8: i32 = const i32 41
    %v9: i32 = call whale i32 indirect %v7(%v8)
    store i32 %v9, ptr<i32> %v10, align 4
    %v11: i32 = load i32, ptr<i32> %v10, align 4
    call sysv64 void @f0(%v11)
    %v12: i32 = load i32, ptr<i32> %v10, align 4
    ret i32 %v12
  }

}
"#,
    );
}
