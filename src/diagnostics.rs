//! Source excerpts under error messages: the offending line and a caret.
//!
//! ```text
//! Error: add.wir:7:16: unknown instruction
//!    7 |     %v3: i32 = addd i32 %v1, %v2
//!      |                ^
//! ```
//!
//! Tabs are expanded to keep the caret aligned; very long lines are cut around
//! the column so one huge line does not flood the terminal.

/// Columns of context kept on each side of the caret in a long line.
const CONTEXT: usize = 60;

/// The excerpt for 1-based `line` and `column` (in characters) of `source`,
/// ending with a newline; empty when the line does not exist.
pub fn excerpt(source: &str, line: usize, column: usize) -> String {
    let Some(text) = source.split('\n').nth(line.saturating_sub(1)) else { return String::new() };
    let text = text.strip_suffix('\r').unwrap_or(text);
    let chars: Vec<char> = text.chars().map(|c| if c == '\t' { ' ' } else { c }).collect();
    let column = column.max(1).min(chars.len() + 1);
    let (start, prefix) = if column > CONTEXT * 2 { (column - CONTEXT, "...") } else { (0, "") };
    let end = (start + CONTEXT * 3).min(chars.len());
    let shown: String = chars[start.min(end)..end].iter().collect();
    let number = line.to_string();
    let pad = " ".repeat(number.len());
    let caret_pad = " ".repeat(prefix.len() + column - 1 - start);
    format!(" {number} | {prefix}{shown}\n {pad} | {caret_pad}^\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_under_column() {
        let src = "module {\n  %v3: i32 = addd i32 %v1\n}";
        assert_eq!(excerpt(src, 2, 14), " 2 |   %v3: i32 = addd i32 %v1\n   |              ^\n");
        assert_eq!(excerpt(src, 9, 1), "");
    }

    #[test]
    fn long_lines_are_cut() {
        let src = "x".repeat(1000);
        let out = excerpt(&src, 1, 500);
        assert!(out.len() < 400);
        assert!(out.contains("...") && out.ends_with("^\n"));
    }
}
