//! Diagnostics: every problem with a file, named by file, line, column, field and value.

use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// The field, as a path: `units[3].type`.
    pub field: String,
    /// The offending value as written, if any.
    pub value: Option<String>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.field
        )?;
        if let Some(v) = &self.value {
            write!(f, " = {v}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src[..floor_char_boundary(src, offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Collects diagnostics for one source file.
pub struct Diagnostics<'a> {
    pub file: &'a str,
    pub src: &'a str,
    pub list: Vec<Diagnostic>,
}

impl<'a> Diagnostics<'a> {
    pub fn new(file: &'a str, src: &'a str) -> Self {
        Diagnostics {
            file,
            src,
            list: Vec::new(),
        }
    }

    pub fn at(
        &mut self,
        offset: usize,
        field: &str,
        value: Option<String>,
        message: impl Into<String>,
    ) {
        let (line, column) = line_col(self.src, offset);
        self.list.push(Diagnostic {
            file: self.file.to_string(),
            line,
            column,
            field: field.to_string(),
            value,
            message: message.into(),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn positions() {
        let s = "a = 1\nbé = 2\n";
        assert_eq!(line_col(s, 0), (1, 1));
        assert_eq!(line_col(s, 6), (2, 1));
        assert_eq!(line_col(s, 10), (2, 4));
    }
}
