//! Diagnostics: every problem with a file, named by file, line, column, field and value.

use serde::Serialize;
use std::fmt;
use tercio_i18n::clip;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// The field, as a path: `units[3].type`; empty for a problem of the file as a whole.
    pub field: String,
    /// The offending value as written, if any.
    pub value: Option<String>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        // A problem of the file as a whole (malformed JSON) names no field.
        if !self.field.is_empty() {
            f.write_str(&self.field)?;
            if let Some(v) = &self.value {
                write!(f, " = {v}")?;
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

/// A value as written (`"text"` with its quotes, or a number), cut by [`clip`]: a text's
/// quotes are kept around what is left of it.
pub fn clip_value(v: &str) -> String {
    match v.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        Some(inner) => format!("\"{}\"", clip(inner)),
        None => clip(v).into_owned(),
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

    /// A problem at `offset`, with the field's path and the value as written: both cut as any
    /// quoted value is ([`clip`]: a key or a value may be as long as the file).
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
            field: clip(field).into_owned(),
            value: value.map(|v| clip_value(&v)),
            message: message.into(),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// The byte offset in a JSON text of the value at `path` (`scenario.units[2].leader`), or of the
/// nearest enclosing value found (0: the start). A key may itself hold dots (a house rule's
/// `troops.gendarmes.impact`): the longest key that matches is taken. For placing a problem of
/// data read from JSON at its line and column; the text is expected to be valid JSON.
pub fn json_offset(text: &str, path: &str) -> usize {
    let segs = segments(path);
    let mut j = Json {
        b: text.as_bytes(),
        i: 0,
    };
    j.ws();
    let mut at = j.i;
    let mut k = 0;
    while k < segs.len() {
        let found = match &segs[k] {
            Seg::Index(n) => j.index(*n).map(|i| (i, 1)),
            Seg::Key(_) => {
                let run: Vec<&str> = segs[k..]
                    .iter()
                    .map_while(|s| match s {
                        Seg::Key(x) => Some(x.as_str()),
                        Seg::Index(_) => None,
                    })
                    .collect();
                j.key(&run)
            }
        };
        match found {
            Some((i, used)) => {
                j.i = i;
                j.ws();
                at = j.i;
                k += used;
            }
            None => break,
        }
    }
    at
}

enum Seg {
    Key(String),
    Index(usize),
}

fn segments(path: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if !name.is_empty() {
            out.push(Seg::Key(name.to_string()));
        }
        for ix in rest.split('[').filter(|x| !x.is_empty()) {
            match ix.trim_end_matches(']').parse() {
                Ok(n) => out.push(Seg::Index(n)),
                Err(_) => out.push(Seg::Key(ix.to_string())),
            }
        }
    }
    out
}

/// Just enough of a JSON reader to find where a value starts.
struct Json<'a> {
    b: &'a [u8],
    i: usize,
}

impl Json<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.peek() == Some(c)).then(|| self.i += 1)
    }

    fn string(&mut self) -> Option<String> {
        self.eat(b'"')?;
        let mut out = Vec::new();
        loop {
            let c = self.peek()?;
            self.i += 1;
            match c {
                b'"' => return Some(String::from_utf8_lossy(&out).into_owned()),
                b'\\' => {
                    let e = self.peek()?;
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = std::str::from_utf8(self.b.get(self.i..self.i + 4)?).ok()?;
                            self.i += 4;
                            let ch = u32::from_str_radix(hex, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .unwrap_or('\u{fffd}');
                            out.extend_from_slice(ch.to_string().as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
    }

    /// Skip one value.
    fn skip(&mut self) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t')
                ) {
                    self.i += 1;
                }
                Some(())
            }
        }
    }

    /// In the object here, the value of the longest key among `run[..1]`, `run[..2]`… joined
    /// with dots: where it starts and how many segments it took. The position is left anywhere.
    fn key(&mut self, run: &[&str]) -> Option<(usize, usize)> {
        self.eat(b'{')?;
        let mut best: Option<(usize, usize)> = None;
        loop {
            self.ws();
            if self.peek() == Some(b'}') {
                return best;
            }
            let k = self.string()?;
            self.eat(b':')?;
            self.ws();
            for n in 1..=run.len() {
                if best.is_none_or(|(_, m)| n > m) && k == run[..n].join(".") {
                    best = Some((self.i, n));
                }
            }
            self.skip()?;
            self.ws();
            if self.peek() == Some(b',') {
                self.i += 1;
            }
        }
    }

    /// In the array here, where item `n` starts.
    fn index(&mut self, n: usize) -> Option<usize> {
        self.eat(b'[')?;
        for _ in 0..n {
            self.ws();
            if self.peek() == Some(b']') {
                return None;
            }
            self.skip()?;
            self.eat(b',')?;
        }
        self.ws();
        (self.peek() != Some(b']')).then_some(self.i)
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

    #[test]
    fn json_positions() {
        let t = "{\n  \"scenario\": {\n    \"title\": \"a \\\"b\\\" ]}\",\n    \"units\": [\n      {\"id\": \"x\", \"n\": [1, {\"a\": 2}]},\n      {\"id\": \"y\", \"bases\": 12}\n    ],\n    \"house_rules\": {\"troops.pike.impact\": 3}\n  }\n}";
        let at = |p: &str| line_col(t, json_offset(t, p));
        assert_eq!(at("scenario.title"), (3, 14));
        assert_eq!(at("scenario.units[1].bases"), (6, 28));
        assert_eq!(at("scenario.units[0].n[1].a"), (5, 34));
        // Not there: the nearest enclosing value.
        assert_eq!(at("scenario.units[1].leader"), (6, 7));
        assert_eq!(at("scenario.units[7]"), (4, 14));
        assert_eq!(at("scenario.house_rules.troops.pike.impact"), (8, 43));
        assert_eq!(at("nothing"), (1, 1));
        assert_eq!(at(""), (1, 1));
    }
}
