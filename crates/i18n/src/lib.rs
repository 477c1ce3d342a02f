//! Tercio's languages: Italian and English.
//!
//! - **Catalogues.** Every text a person reads is in `locales/<lang>/<area>.toml` (`web.toml` for
//!   the web app, one file per area), flattened to dotted keys (`web.nav.games`). The build reads
//!   every file of both folders, fails when a key is in one language only or the two texts of a
//!   key use different placeholders, and generates [`keys`]: a constant per key, so a misspelt
//!   key does not compile.
//! - **[`t`]** renders a key in a language with named arguments (`{name}` in the text). A key
//!   with `.one` and `.other` children is a plural: render the parent key with a `count`
//!   argument (1 chooses `one`, anything else `other`, in both languages). Inside a text,
//!   `{name|one|other}` is the word that goes with the argument `name` the same way ("{bases}
//!   {bases|base|bases}"), for a sentence with more than one count.
//! - **Language-neutral messages.** A rules engine or the event log cannot know who will read
//!   its text, so it carries [`msg`] markers inside plain strings: `⟦key|name=value|…⟧`. Every
//!   viewer renders them with [`localize`] (or [`localize_json`]) in their own language; text
//!   outside markers passes through unchanged (a game recorded before its rule set's texts
//!   became messages keeps its English).
//!   A marker argument's value is plain text, or:
//!   - `@key`: another catalogue key, rendered in the viewer's language
//!     (`type=@callan.term.picchieri`);
//!   - `#number`: a number written with a '.' decimal point (`#59.29`, optionally ending in `%`),
//!     rendered with the viewer's decimal separator ([`fmt_decimal`]: "59,29" in Italian) and the
//!     places as written; build one with [`num`] or [`pct`];
//!   - a nested marker, possibly with text around it (`⟦a|x=⟦b⟧ e ⟦c⟧⟧`).
//!
//!   A value that starts with `@` but names no catalogue key, or with `#` but is no number, is
//!   shown as written. [`msg`] escapes the characters that would otherwise be read as syntax
//!   (`\`, `|`, `=`, `⟦`, `⟧`) with a backslash, keeping whole nested markers as they are.
//! - **Text a person wrote is never markup.** A unit's name, a battle's title: [`plain`] escapes
//!   its `\`, `⟦` and `⟧` before it enters a message or a state, and [`localize`] shows it as
//!   written, so a unit named `⟦web.page.connecting⟧` is called exactly that. The rules crate
//!   gives its engines a scenario's texts this way; the shell does it for what it puts beside them.
//! - **Numbers** per language: [`fmt_decimal`], [`fmt_pct`].
//!
//! Pure: the catalogues are compiled in; nothing is read at run time.

use std::borrow::Cow;
use std::fmt;

include!(concat!(env!("OUT_DIR"), "/catalogue.rs"));

/// Opens a language-neutral message.
pub const OPEN: char = '⟦';
/// Closes a language-neutral message.
pub const CLOSE: char = '⟧';

/// A language of the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    It,
    #[default]
    En,
}

impl Lang {
    /// Every language, Italian first.
    pub const ALL: [Lang; 2] = [Lang::It, Lang::En];

    /// The language's code (`it`, `en`), as in `<html lang>`, `?lang=` and the cookie.
    pub fn code(self) -> &'static str {
        match self {
            Lang::It => "it",
            Lang::En => "en",
        }
    }

    /// A language from its code, case-insensitive, with or without a region or encoding:
    /// `it`, `IT`, `it-IT`, `it_IT.UTF-8`, `en-GB`. `None` for any other language.
    pub fn from_code(code: &str) -> Option<Lang> {
        let primary = code
            .trim()
            .split(['-', '_', '.', '@'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        match primary.as_str() {
            "it" => Some(Lang::It),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    /// The language to answer a browser's `Accept-Language` header in: of the tags naming Italian
    /// or English (any region), the one with the highest q-value, the earlier on a tie; `None`
    /// when the header names neither (or refuses both with `q=0`). A malformed q-value counts
    /// as 1, as a missing one does.
    pub fn negotiate(accept_language: &str) -> Option<Lang> {
        let mut best: Option<(Lang, f64)> = None;
        for item in accept_language.split(',') {
            let mut parts = item.split(';');
            let tag = parts.next().unwrap_or("").trim();
            let Some(lang) = Lang::from_code(tag) else {
                continue;
            };
            let mut q = 1.0;
            for p in parts {
                if let Some((k, v)) = p.split_once('=') {
                    if k.trim().eq_ignore_ascii_case("q") {
                        q = v
                            .trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|q| q.is_finite())
                            .unwrap_or(1.0);
                    }
                }
            }
            if q <= 0.0 {
                continue;
            }
            if best.is_none_or(|(_, b)| q > b) {
                best = Some((lang, q));
            }
        }
        best.map(|(l, _)| l)
    }

    /// The language's place in [`Lang::ALL`], for tables kept per language.
    fn at(self) -> usize {
        match self {
            Lang::It => 0,
            Lang::En => 1,
        }
    }

    fn catalogue(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Lang::It => CATALOGUE_IT,
            Lang::En => CATALOGUE_EN,
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Every (key, text) of a language's catalogue, sorted by key (plural forms as `x.one`, `x.other`).
pub fn entries(lang: Lang) -> &'static [(&'static str, &'static str)] {
    lang.catalogue()
}

/// A key's text in a language, when the catalogue has it (a plural's forms only by their own keys).
pub fn lookup(lang: Lang, key: &str) -> Option<&'static str> {
    index(lang).get(key).copied()
}

/// A language's catalogue by key, made on first use. Every answer renders a few dozen messages,
/// and a binary search of the sorted catalogue compares each key's long common prefixes
/// (`app_driven.step.…`) a dozen times.
fn index(lang: Lang) -> &'static Index {
    static INDEXES: [std::sync::OnceLock<Index>; 2] =
        [std::sync::OnceLock::new(), std::sync::OnceLock::new()];
    INDEXES[lang.at()].get_or_init(|| lang.catalogue().iter().copied().collect())
}

type Index = std::collections::HashMap<&'static str, &'static str, BuildFnv>;
type BuildFnv = std::hash::BuildHasherDefault<Fnv>;

/// FNV-1a: the catalogue's keys are the program's own, so no one chooses them to collide, and
/// hashing a short key this way costs less than the standard library's keyed hash.
#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Whether a key renders in a language: a text, or a plural with both forms.
pub fn has(lang: Lang, key: &str) -> bool {
    lookup(lang, key).is_some() || plural(lang, key, "0").is_some()
}

fn plural(lang: Lang, key: &str, count: &str) -> Option<&'static str> {
    let one = lookup(lang, &format!("{key}.one"))?;
    let other = lookup(lang, &format!("{key}.other"))?;
    let n = count.trim().replace(',', ".").parse::<f64>().ok();
    Some(if n == Some(1.0) { one } else { other })
}

/// The placeholders a text uses: `{name}`, name made of ASCII letters, digits and '_'.
pub fn placeholders(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        rest = &rest[i + 1..];
        if let Some(j) = rest.find('}') {
            let inner = &rest[..j];
            let name = inline_plural(inner).map_or(inner, |p| p.0);
            if is_name(name) {
                if !out.contains(&name) {
                    out.push(name);
                }
                rest = &rest[j + 1..];
            }
        }
    }
    out
}

/// A catalogue key's characters: ASCII letters, digits, '.', '_' and '-'.
fn is_key(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// An inline plural's parts, `name|one|other` (inside its braces): the number's name and its two
/// words.
fn inline_plural(s: &str) -> Option<(&str, &str, &str)> {
    let mut parts = s.split('|');
    let (name, one, other) = (parts.next()?, parts.next()?, parts.next()?);
    (parts.next().is_none() && is_name(name) && !one.contains('{') && !other.contains('{'))
        .then_some((name, one, other))
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A key rendered in a language, its `{name}` placeholders replaced by the arguments. A plural
/// key (`x.one` / `x.other` in the catalogue, `x` here) chooses its form by the `count`
/// argument. A missing key renders as the key itself; a placeholder without an argument stays
/// as written (the tests make sure neither happens).
/// A key's text as a name for what it describes, without its arguments ("Melee: … against …"
/// for `app_driven.step.melee`): each placeholder shown as "…", a bracketed remark dropped. A
/// key the catalogue does not have is given back as it is.
pub fn outline(lang: Lang, key: &str) -> String {
    let Some(text) = lookup(lang, key) else {
        return key.to_string();
    };
    // The remark stays when nothing else would: "{title} (Bad War: to the last base)".
    let head = text.split(" (").next().unwrap_or(text);
    let said = head.split('{').any(|part| {
        part.split_once('}')
            .map_or(part, |(_, rest)| rest)
            .chars()
            .any(char::is_alphanumeric)
    });
    let text = if said { head } else { text };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        match rest[i..].find('}') {
            Some(j) => {
                out.push('\u{2026}');
                rest = &rest[i + j + 1..];
            }
            None => {
                rest = &rest[i..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

pub fn t(lang: Lang, key: &str, args: &[(&str, &str)]) -> String {
    let count = args.iter().find(|(n, _)| *n == "count").map_or("", |a| a.1);
    let Some(text) = lookup(lang, key).or_else(|| plural(lang, key, count)) else {
        return key.to_string();
    };
    fill(text, args)
}

fn fill(text: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) if is_name(&after[..j]) => {
                let name = &after[..j];
                match args.iter().find(|(n, _)| *n == name) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[j + 1..];
            }
            // `{name|one|other}`: the word that goes with the number `name` (a sentence with two
            // counts in it: "3 bases at 2 dice each").
            Some(j) if inline_plural(&after[..j]).is_some() => {
                let (name, one, other) = inline_plural(&after[..j]).unwrap_or_default();
                let n = args.iter().find(|(n, _)| *n == name).map(|a| a.1);
                let n = n.and_then(|v| v.trim().replace(',', ".").parse::<f64>().ok());
                out.push_str(if n == Some(1.0) { one } else { other });
                rest = &after[j + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A language-neutral message: `⟦key|name=value|…⟧`, for [`localize`] to render in each
/// viewer's language. Values are message text: plain text, `@key`, `#number` or nested markers
/// (see the crate documentation); the characters of the marker syntax in plain text are escaped,
/// and a pair already escaped (by [`plain`], say) is kept as it is. Text a person wrote (a unit's
/// name) goes in through [`plain`], so that it is never read as a marker.
pub fn msg(key: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(key.len() + 2 + args.len() * 12);
    out.push(OPEN);
    escape_into(&mut out, key);
    for (name, value) in args {
        out.push('|');
        escape_into(&mut out, name);
        out.push('=');
        // The text between special characters goes in whole (nearly always all of it).
        let mut rest = *value;
        while let Some(i) = SPECIAL.find(rest) {
            out.push_str(&rest[..i]);
            rest = &rest[i..];
            if rest.starts_with(OPEN) {
                if let Some((_, len)) = parse_marker(rest) {
                    out.push_str(&rest[..len]);
                    rest = &rest[len..];
                    continue;
                }
            }
            // Text already escaped ([`plain`]) stays escaped once.
            if let Some(e) = rest.strip_prefix('\\').and_then(|r| r.chars().next()) {
                if SPECIAL.has(e) {
                    out.push('\\');
                    out.push(e);
                    rest = &rest[1 + e.len_utf8()..];
                    continue;
                }
            }
            let c = rest.chars().next().unwrap_or('\\');
            out.push('\\');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
        out.push_str(rest);
    }
    out.push(CLOSE);
    out
}

/// A set of characters to look for: some ASCII ones and the marker's brackets. Found byte by
/// byte (a `char` pattern decodes every character, and messages are read for every answer): a
/// byte below 0x80 is a whole character, and each bracket is `E2 9F A6`/`A7` in UTF-8, whose
/// first byte no continuation byte equals.
struct Chars {
    ascii: [bool; 128],
    open: bool,
    close: bool,
}

const BRACKET_LEAD: u8 = 0xE2;

impl Chars {
    const fn new(ascii: &[u8], open: bool, close: bool) -> Chars {
        let mut set = [false; 128];
        let mut i = 0;
        while i < ascii.len() {
            set[ascii[i] as usize] = true;
            i += 1;
        }
        Chars {
            ascii: set,
            open,
            close,
        }
    }

    /// Whether `c` is in the set.
    fn has(&self, c: char) -> bool {
        match c {
            OPEN => self.open,
            CLOSE => self.close,
            _ => c.is_ascii() && self.ascii[c as usize],
        }
    }

    /// The byte offset of the first character of the set in `s`, as `s.find(..)` gives it.
    fn find(&self, s: &str) -> Option<usize> {
        let b = s.as_bytes();
        let brackets = self.open || self.close;
        b.iter().enumerate().position(|(i, &c)| {
            if c < 0x80 {
                return self.ascii[c as usize];
            }
            brackets
                && c == BRACKET_LEAD
                && b.get(i + 1) == Some(&0x9F)
                && match b.get(i + 2) {
                    Some(0xA6) => self.open,
                    Some(0xA7) => self.close,
                    _ => false,
                }
        })
    }
}

/// What [`msg`] escapes, and what ends a run of a marker's key or an argument's name.
const SPECIAL: Chars = Chars::new(b"\\|=", true, true);
/// What ends a run of an argument's text.
const VALUE_STOP: Chars = Chars::new(b"\\|", true, true);
/// What [`localize`] acts on: an opening and an escape.
const LOCALIZED: Chars = Chars::new(b"\\", true, false);
/// What [`plain`] escapes.
const PLAIN_ESCAPED: Chars = Chars::new(b"\\", true, true);

fn escape_into(out: &mut String, s: &str) {
    // The text between special characters goes in whole (nearly always all of it).
    let mut rest = s;
    while let Some(i) = SPECIAL.find(rest) {
        out.push_str(&rest[..i]);
        let c = rest[i..].chars().next().unwrap_or('\\');
        out.push('\\');
        out.push(c);
        rest = &rest[i + c.len_utf8()..];
    }
    out.push_str(rest);
}

/// Text a person wrote, as message text: its `\`, `⟦` and `⟧` escaped with a backslash, so
/// that neither [`msg`] nor [`localize`] reads any of it as a marker, and [`localize`] shows it
/// as written. Borrowed when there is nothing to escape (nearly always).
pub fn plain(text: &str) -> std::borrow::Cow<'_, str> {
    if PLAIN_ESCAPED.find(text).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 4);
    for c in text.chars() {
        if matches!(c, '\\' | OPEN | CLOSE) {
            out.push('\\');
        }
        out.push(c);
    }
    std::borrow::Cow::Owned(out)
}

/// The most characters of a value someone gave that an error quotes back ([`clip`]).
pub const QUOTED_MOST: usize = 60;

/// A value someone gave (an id, a name, a flag, a field's name, a value in a scenario), as an
/// error quotes it back: at most [`QUOTED_MOST`] characters, a longer one cut there and ended
/// with `…`, so a long value does not fill the answer. The one rule for every refusal and
/// diagnostic that quotes what it refused; borrowed when short (nearly always). A cut never
/// leaves a lone escaping backslash at the end (the value may have been through [`plain`]).
pub fn clip(text: &str) -> Cow<'_, str> {
    let Some((at, _)) = text.char_indices().nth(QUOTED_MOST) else {
        return Cow::Borrowed(text);
    };
    let mut kept = &text[..at];
    if kept.bytes().rev().take_while(|b| *b == b'\\').count() % 2 == 1 {
        kept = &kept[..kept.len() - 1];
    }
    Cow::Owned(format!("{kept}…"))
}

/// A library's refusal (serde's, say), as an error quotes it: each value it quotes (`"…"`,
/// `` `…` ``) cut by [`clip`], so a long value it could not read does not fill the answer.
pub fn clip_quoted(detail: &str) -> String {
    let mut out = String::with_capacity(detail.len().min(512));
    let mut rest = detail;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = rest[open..].chars().next().unwrap_or('"');
        out.push_str(&rest[..=open]);
        let inner = &rest[open + 1..];
        // serde writes a text as Rust does: a `"` inside it is escaped.
        let mut end = None;
        let mut escaped = false;
        for (i, c) in inner.char_indices() {
            match c {
                '\\' if quote == '"' && !escaped => escaped = true,
                c if c == quote && !escaped => {
                    end = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(end) = end else {
            out.push_str(&clip(inner));
            return out;
        };
        out.push_str(&clip(&inner[..end]));
        out.push(quote);
        rest = &inner[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Whether [`localize`] may change `text`: it holds a marker's opening or an escape.
pub fn needs_localize(text: &str) -> bool {
    LOCALIZED.find(text).is_some()
}

/// A number argument for [`msg`]: `#` and the number with `places` decimals ('.' point).
pub fn num(x: f64, places: usize) -> String {
    format!("#{}", fmt_decimal(Lang::En, x, places))
}

/// A percentage argument for [`msg`], from a fraction: `pct(0.5929, 2)` is `#59.29%`.
pub fn pct(p: f64, places: usize) -> String {
    format!("#{}", fmt_pct(Lang::En, p, places))
}

/// `x` with `places` decimals and the language's decimal separator: `59,29` in Italian,
/// `59.29` in English. No thousands separator (counts on a wargames table stay small, and years
/// must read as years). Never `-0`.
pub fn fmt_decimal(lang: Lang, x: f64, places: usize) -> String {
    let mut s = format!("{x:.places$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s.remove(0);
    }
    match lang {
        Lang::It => s.replace('.', ","),
        Lang::En => s,
    }
}

/// A fraction as a percentage with `places` decimals: `fmt_pct(Lang::It, 0.5929, 2)` is `59,29%`.
pub fn fmt_pct(lang: Lang, p: f64, places: usize) -> String {
    format!("{}%", fmt_decimal(lang, p * 100.0, places))
}

/// A parsed message, borrowing from the text it was read from wherever no escape broke it.
#[derive(Debug)]
struct Marker<'a> {
    key: Cow<'a, str>,
    args: Vec<(Cow<'a, str>, Vec<Piece<'a>>)>,
}

/// A piece of an argument's value.
#[derive(Debug)]
enum Piece<'a> {
    Text(Cow<'a, str>),
    Marker(Marker<'a>),
}

/// Text read from `src`: borrowed while it is one run of it, owned once an escape breaks it.
/// Messages are parsed for every answer, and nearly none holds an escape.
struct Acc<'a> {
    src: &'a str,
    from: usize,
    to: usize,
    own: Option<String>,
}

impl<'a> Acc<'a> {
    fn new(src: &'a str) -> Self {
        Acc {
            src,
            from: 0,
            to: 0,
            own: None,
        }
    }
    /// Add `src[a..b]`.
    fn run(&mut self, a: usize, b: usize) {
        match &mut self.own {
            Some(s) => s.push_str(&self.src[a..b]),
            None if self.from == self.to => (self.from, self.to) = (a, b),
            None if self.to == a => self.to = b,
            None => {
                let mut s = self.src[self.from..self.to].to_string();
                s.push_str(&self.src[a..b]);
                self.own = Some(s);
            }
        }
    }
    /// Add a character that is not where it stands in `src` (an escaped one).
    fn char(&mut self, c: char) {
        let (src, from, to) = (self.src, self.from, self.to);
        self.own
            .get_or_insert_with(|| src[from..to].to_string())
            .push(c);
    }
    fn is_empty(&self) -> bool {
        self.own
            .as_ref()
            .map_or(self.from == self.to, String::is_empty)
    }
    /// The text so far, leaving nothing.
    fn take(&mut self) -> Cow<'a, str> {
        let (from, to) = (self.from, self.to);
        (self.from, self.to) = (0, 0);
        match self.own.take() {
            Some(s) => Cow::Owned(s),
            None => Cow::Borrowed(&self.src[from..to]),
        }
    }
}

/// Parse the marker at the start of `s` (which starts with [`OPEN`]): the marker and its length
/// in bytes, or `None` when it is not a well-formed marker (no matching close, a key that is not
/// made of key characters, an argument whose name is not a placeholder name or has no `=`).
fn parse_marker(s: &str) -> Option<(Marker<'_>, usize)> {
    let mut pos = OPEN.len_utf8();
    let bytes_len = s.len();
    // The key: up to the first unescaped '|' or the close.
    let mut key = Acc::new(s);
    let mut args = Vec::new();
    loop {
        let c = s[pos..].chars().next()?;
        let at = pos;
        pos += c.len_utf8();
        match c {
            '\\' => {
                let e = s[pos..].chars().next()?;
                pos += e.len_utf8();
                key.char(e);
            }
            '|' => break,
            CLOSE => {
                let key = key.take();
                return is_key(&key).then_some((Marker { key, args }, pos));
            }
            OPEN | '=' => return None,
            _ => {
                // The run of plain characters up to the next that means something.
                pos += SPECIAL.find(&s[pos..]).unwrap_or(bytes_len - pos);
                key.run(at, pos);
            }
        }
    }
    let key = key.take();
    if !is_key(&key) {
        return None;
    }
    // Arguments: name=value, separated by '|', ended by the close.
    loop {
        let mut name = Acc::new(s);
        loop {
            let c = s[pos..].chars().next()?;
            let at = pos;
            pos += c.len_utf8();
            match c {
                '\\' => {
                    let e = s[pos..].chars().next()?;
                    pos += e.len_utf8();
                    name.char(e);
                }
                '=' => break,
                '|' | OPEN | CLOSE => return None,
                _ => name.run(at, pos),
            }
        }
        let name = name.take();
        if !is_name(&name) {
            return None;
        }
        let mut value = Vec::new();
        let mut text = Acc::new(s);
        let end = loop {
            if pos >= bytes_len {
                return None;
            }
            let c = s[pos..].chars().next()?;
            match c {
                '\\' => {
                    pos += 1;
                    let e = s[pos..].chars().next()?;
                    pos += e.len_utf8();
                    text.char(e);
                }
                OPEN => {
                    let (m, len) = parse_marker(&s[pos..])?;
                    if !text.is_empty() {
                        value.push(Piece::Text(text.take()));
                    }
                    value.push(Piece::Marker(m));
                    pos += len;
                }
                '|' | CLOSE => {
                    pos += c.len_utf8();
                    break c;
                }
                c => {
                    // The run of plain text up to the next character that means something.
                    let from = pos;
                    pos += c.len_utf8();
                    pos += VALUE_STOP.find(&s[pos..]).unwrap_or(bytes_len - pos);
                    text.run(from, pos);
                }
            }
        };
        if !text.is_empty() {
            value.push(Piece::Text(text.take()));
        }
        args.push((name, value));
        if end == CLOSE {
            return Some((Marker { key, args }, pos));
        }
    }
}

/// The key of a text written in both languages ([`both`]): not a catalogue key, its arguments
/// are the text in each language by code (`⟦both|en=Swiss pikes|it=Picche svizzere⟧`).
pub const BOTH: &str = "both";

/// A text a person wrote in both languages (a scenario's unit name), as message text:
/// [`localize`] shows the viewer's language, or the other when that one is empty. Each text goes
/// in through [`plain`], so neither is read as a marker.
pub fn both(en: &str, it: &str) -> String {
    msg(BOTH, &[("en", &plain(en)), ("it", &plain(it))])
}

fn render_marker(lang: Lang, m: &Marker<'_>) -> String {
    if m.key == BOTH {
        let text = |code: &str| {
            m.args
                .iter()
                .find(|(n, _)| n == code)
                .map(|(_, v)| render_value(lang, v).into_owned())
                .filter(|v| !v.trim().is_empty())
        };
        let other = match lang {
            Lang::En => Lang::It,
            Lang::It => Lang::En,
        };
        return text(lang.code())
            .or_else(|| text(other.code()))
            .unwrap_or_default();
    }
    let values: Vec<Cow<'_, str>> = m
        .args
        .iter()
        .map(|(_, pieces)| render_value(lang, pieces))
        .collect();
    let args: Vec<(&str, &str)> = m
        .args
        .iter()
        .zip(&values)
        .map(|((n, _), v)| (n.as_ref(), v.as_ref()))
        .collect();
    t(lang, &m.key, &args)
}

fn render_value<'p>(lang: Lang, pieces: &'p [Piece<'_>]) -> Cow<'p, str> {
    if let [Piece::Text(s)] = pieces {
        if let Some(key) = s.strip_prefix('@') {
            if has(lang, key) {
                return Cow::Owned(t(lang, key, &[]));
            }
        }
        if let Some(n) = s.strip_prefix('#') {
            if let Some(v) = number(lang, n) {
                return Cow::Owned(v);
            }
        }
        return Cow::Borrowed(s.as_ref());
    }
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(s) => out.push_str(s),
            Piece::Marker(m) => out.push_str(&render_marker(lang, m)),
        }
    }
    Cow::Owned(out)
}

/// `59.29` or `59.29%` with the language's decimal separator, the places as written.
fn number(lang: Lang, n: &str) -> Option<String> {
    let (digits, pct) = match n.strip_suffix('%') {
        Some(d) => (d, "%"),
        None => (n, ""),
    };
    let unsigned = digits.strip_prefix('-').unwrap_or(digits);
    let (int, frac) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let ok = !int.is_empty()
        && int.chars().all(|c| c.is_ascii_digit())
        && frac.chars().all(|c| c.is_ascii_digit())
        && (frac.is_empty() != unsigned.contains('.'));
    if !ok {
        return None;
    }
    let s = match lang {
        Lang::It => digits.replace('.', ","),
        Lang::En => digits.to_string(),
    };
    Some(format!("{s}{pct}"))
}

/// Every language-neutral message in `text` rendered in `lang`, and the text [`plain`] escaped
/// shown as written (`\\`, `\⟦`, `\⟧` read as the character); all other text unchanged (a
/// malformed marker, and a backslash before any other character, too).
pub fn localize(lang: Lang, text: &str) -> String {
    if !needs_localize(text) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = LOCALIZED.find(rest) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        if let Some(after) = rest.strip_prefix('\\') {
            match after.chars().next() {
                Some(e @ ('\\' | OPEN | CLOSE)) => {
                    out.push(e);
                    rest = &after[e.len_utf8()..];
                }
                _ => {
                    out.push('\\');
                    rest = after;
                }
            }
            continue;
        }
        match parse_marker(rest) {
            Some((m, len)) => {
                out.push_str(&render_marker(lang, &m));
                rest = &rest[len..];
            }
            None => {
                out.push(OPEN);
                rest = &rest[OPEN.len_utf8()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// How many short texts [`with_localized`] keeps per language and thread before it starts
/// again. A battle's messages repeat (the same units, steps, modifiers and sources, action after
/// action, and the same event for every seat), and a few hundred cover a scenario.
const REMEMBERED: usize = 1024;
/// The longest text [`with_localized`] keeps, in bytes: a message, not a page.
const REMEMBERED_LEN: usize = 512;

/// [`localize`], with the texts already rendered on this thread remembered: parsing a message
/// and rendering it from the catalogue costs some thousands of instructions, finding it again a
/// few hundred, and every answer holds a few dozen. The result is the same ([`localize`] depends
/// only on the language, the text and the catalogue, fixed at build time). The texts can hold
/// names a scenario gives, so someone could choose them to collide under FNV; at most
/// [`REMEMBERED`] are kept, so that costs at most a scan of those. `f` is given the rendering
/// where it is kept, so that writing it out copies it once.
fn with_localized<R>(lang: Lang, text: &str, f: impl FnOnce(&str) -> R) -> R {
    type Seen = std::collections::HashMap<Box<str>, Box<str>, BuildFnv>;
    thread_local! {
        static SEEN: std::cell::RefCell<[Seen; 2]> = Default::default();
    }
    if text.len() > REMEMBERED_LEN {
        return f(&localize(lang, text));
    }
    SEEN.with_borrow_mut(|seen| {
        let seen = &mut seen[lang.at()];
        if let Some(out) = seen.get(text) {
            return f(out);
        }
        let out = localize(lang, text);
        if seen.len() >= REMEMBERED {
            seen.clear();
        }
        let r = f(&out);
        seen.insert(text.into(), out.into_boxed_str());
        r
    })
}

/// [`localize`] every string in a JSON value, in place (object keys are left alone).
pub fn localize_json(lang: Lang, v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) if needs_localize(s) => {
            *s = with_localized(lang, s, str::to_string)
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| localize_json(lang, x)),
        serde_json::Value::Object(o) => o.values_mut().for_each(|x| localize_json(lang, x)),
        _ => {}
    }
}

/// `v` written out as JSON with every string [`localize`]d: what [`localize_json`] then
/// `serde_json::to_vec` give, in one walk, each rendering written from where it is kept rather
/// than copied into the value first; straight into bytes (`to_string` goes through `fmt`, a third
/// slower). The answers of actions, the server's busiest, are written so.
pub fn localized_json(lang: Lang, v: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&Localizing(lang, v)).unwrap_or_default()
}

/// A JSON value that writes itself out with its strings [`localize`]d.
struct Localizing<'a>(Lang, &'a serde_json::Value);

impl serde::Serialize for Localizing<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Localizing(lang, v) = *self;
        match v {
            serde_json::Value::String(t) if needs_localize(t) => {
                with_localized(lang, t, |r| s.serialize_str(r))
            }
            serde_json::Value::Array(a) => s.collect_seq(a.iter().map(|x| Localizing(lang, x))),
            serde_json::Value::Object(o) => {
                s.collect_map(o.iter().map(|(k, x)| (k, Localizing(lang, x))))
            }
            other => other.serialize(s),
        }
    }
}

/// The catalogue checks the build runs (compiled here for their tests).
#[cfg(test)]
mod check;

#[cfg(test)]
mod tests;
