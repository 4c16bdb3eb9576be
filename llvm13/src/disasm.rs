pub fn disasm(_m: &crate::Module) -> String {
    String::new()
}
