//! Scenarios: the TOML format, parsed by hand from toml's spanned tree so that *every* problem is
//! reported at once, each at its file:line:col with the offending value and what is allowed.
//!
//! Two types: [`ScenarioFile`], a scenario as written and not checked (what a game file, an
//! export or the database holds), and [`Scenario`], a checked one, which exists only after
//! [`parse`] (TOML), [`Scenario::check`] (a scenario read as data) or [`Scenario::recorded`] (a
//! scenario a game was already played with: read even when it fails a check, with warnings).
//! There is one set of checks, the TOML reader's: a scenario read as data is written out as TOML
//! and read back, and each problem is then placed at its field in the file it came from.

use std::collections::{BTreeMap, BTreeSet};

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::diag::{self, Diagnostic, Diagnostics};
use crate::interface::{HouseRule, RuleSet};
use crate::registry;

pub use crate::interface::scenario::*;

impl Scenario {
    /// Check a scenario read as data: the same checks as [`parse`], each problem named by the
    /// field's path in `at` (`scenario.units[2].leader`) at its line and column there.
    pub fn check(file: ScenarioFile, at: &Source<'_>) -> Result<Scenario, Vec<Diagnostic>> {
        let problems = problems(&file, at);
        if problems.is_empty() {
            Ok(Scenario {
                file,
                warnings: Vec::new(),
            })
        } else {
            Err(problems)
        }
    }

    /// A scenario a game was already played with (a game file, the database, an export): checked
    /// like any other, but accepted even when it fails a check, since the game must still load,
    /// replay and verify; what it fails is in [`Scenario::warnings`], for the caller to show.
    pub fn recorded(file: ScenarioFile, at: &Source<'_>) -> Scenario {
        let warnings = problems(&file, at);
        Scenario { file, warnings }
    }
}

/// Every problem of a scenario read as data, placed in its source: the scenario is written as
/// TOML (a unit's size under the rule set's own key, `figures`, `blocks`…) and read back by
/// [`read`], and each problem's field is then found in the JSON text it came from.
fn problems(file: &ScenarioFile, at: &Source<'_>) -> Vec<Diagnostic> {
    if checked::clean(file) {
        return Vec::new();
    }
    let found = problems_found(file, at);
    if found.is_empty() {
        checked::remember(file);
    }
    found
}

/// The scenarios that passed [`problems`] lately, so that the same scenario read again (each
/// game made from a shipped scenario, each game read back from the database) is not written out
/// and read back again: the check is a function of the file alone, and it took most of a game's
/// making (about a millisecond in a release build). Only clean files are kept, so a file with
/// problems is always checked and each problem placed in its own source. Bounded: the oldest is
/// forgotten beyond [`checked::KEPT`], which is more scenarios than a server plays at once in
/// practice and a few hundred kilobytes at most.
mod checked {
    use std::collections::VecDeque;
    use std::sync::{Mutex, PoisonError};

    use super::ScenarioFile;

    /// How many clean scenarios are kept.
    pub(super) const KEPT: usize = 32;

    static CLEAN: Mutex<VecDeque<ScenarioFile>> = Mutex::new(VecDeque::new());

    /// Whether `file` is, field for field, one that passed the checks lately.
    pub(super) fn clean(file: &ScenarioFile) -> bool {
        let kept = CLEAN.lock().unwrap_or_else(PoisonError::into_inner);
        kept.iter().any(|k| k == file)
    }

    /// How many are kept now.
    #[cfg(test)]
    pub(super) fn len() -> usize {
        CLEAN.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Keep `file`, which has just passed the checks, forgetting the oldest beyond [`KEPT`].
    pub(super) fn remember(file: &ScenarioFile) {
        let mut kept = CLEAN.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.iter().any(|k| k == file) {
            return;
        }
        if kept.len() >= KEPT {
            kept.pop_front();
        }
        kept.push_back(file.clone());
    }
}

/// [`problems`] without the memory of clean files.
fn problems_found(file: &ScenarioFile, at: &Source<'_>) -> Vec<Diagnostic> {
    let size_key = registry::lookup(&file.ruleset)
        .ok()
        .map_or("bases", |r| r.unit_size().0);
    let text = toml::Table::try_from(file).and_then(|mut t| {
        if let Some(toml::Value::Array(units)) = t.get_mut("units") {
            for u in units.iter_mut() {
                if let Some(u) = u.as_table_mut() {
                    if let Some(b) = u.remove("bases") {
                        u.insert(size_key.to_string(), b);
                    }
                }
            }
        }
        toml::to_string(&t)
    });
    let found = match text {
        Ok(text) => match read("", &text) {
            Ok(_) => return Vec::new(),
            Err(found) => found,
        },
        Err(e) => vec![Diagnostic {
            file: String::new(),
            line: 1,
            column: 1,
            field: String::new(),
            value: None,
            message: format!("cannot be checked: {e}"),
        }],
    };
    let mut out: Vec<Diagnostic> = found
        .into_iter()
        .map(|d| {
            // As the data names it: a unit's size is `bases` whatever the rule set calls it.
            let field = match d.field.strip_suffix(&format!(".{size_key}")) {
                Some(unit) if unit.starts_with("units[") => format!("{unit}.bases"),
                _ => d.field,
            };
            let field = match (at.path.is_empty(), field.is_empty()) {
                (true, _) => field,
                (false, true) => at.path.to_string(),
                (false, false) => format!("{}.{field}", at.path),
            };
            let (line, column) = diag::line_col(at.text, diag::json_offset(at.text, &field));
            Diagnostic {
                file: at.file.to_string(),
                line,
                column,
                field,
                value: d.value,
                message: d.message,
            }
        })
        .collect();
    out.sort_by_key(|x| (x.line, x.column));
    out
}

type Tbl<'i> = DeTable<'i>;

fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn show(v: &DeValue<'_>) -> String {
    match v {
        DeValue::String(s) => format!("\"{s}\""),
        DeValue::Integer(i) => i.as_str().to_string(),
        DeValue::Float(f) => f.as_str().to_string(),
        DeValue::Boolean(b) => b.to_string(),
        DeValue::Datetime(d) => d.to_string(),
        DeValue::Array(_) => "[...]".to_string(),
        DeValue::Table(_) => "{...}".to_string(),
    }
}

fn int_of(v: &DeValue<'_>) -> Option<i64> {
    let i = v.as_integer()?;
    i64::from_str_radix(&i.as_str().replace('_', ""), i.radix()).ok()
}

/// Reads one table's fields, reporting problems into `d`.
struct Reader<'t, 'i> {
    table: &'t Tbl<'i>,
    span: std::ops::Range<usize>,
    path: String,
}

impl<'t, 'i> Reader<'t, 'i> {
    fn get(&self, key: &str) -> Option<&'t Spanned<DeValue<'i>>> {
        self.table
            .iter()
            .find(|(k, _)| k.get_ref().as_ref() == key)
            .map(|(_, v)| v)
    }

    fn field(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn unknown_keys(&self, allowed: &[&str], d: &mut Diagnostics) {
        for (k, _) in self.table.iter() {
            let name = k.get_ref().as_ref();
            if !allowed.contains(&name) {
                d.at(
                    k.span().start,
                    &self.field(name),
                    None,
                    format!("unknown field; allowed: {}", allowed.join(", ")),
                );
            }
        }
    }

    fn string(&self, key: &str, required: bool, d: &mut Diagnostics) -> Option<(String, usize)> {
        match self.get(key) {
            None => {
                if required {
                    d.at(
                        self.span.start,
                        &self.field(key),
                        None,
                        "missing; a string is required",
                    );
                }
                None
            }
            Some(v) => match v.get_ref() {
                DeValue::String(s) => Some((s.to_string(), v.span().start)),
                DeValue::Datetime(dt) if key == "date" => Some((dt.to_string(), v.span().start)),
                other => {
                    d.at(
                        v.span().start,
                        &self.field(key),
                        Some(show(other)),
                        "must be a string",
                    );
                    None
                }
            },
        }
    }

    /// A text a player reads ([`Text`]): a string, or a table of the text by language
    /// (`{ en = "…", it = "…" }`, at least one of them).
    fn text(&self, key: &str, required: bool, d: &mut Diagnostics) -> Option<(Text, usize)> {
        let Some(v) = self.get(key) else {
            return self
                .string(key, required, d)
                .map(|(s, at)| (Text::Plain(s), at));
        };
        let DeValue::Table(t) = v.get_ref() else {
            return self
                .string(key, required, d)
                .map(|(s, at)| (Text::Plain(s), at));
        };
        let langs = Reader {
            table: t,
            span: v.span(),
            path: self.field(key),
        };
        let before = d.list.len();
        langs.unknown_keys(&["en", "it"], d);
        let en = langs.string("en", false, d).map(|x| x.0);
        let it = langs.string("it", false, d).map(|x| x.0);
        if en.is_none() && it.is_none() && d.list.len() == before {
            d.at(
                v.span().start,
                &self.field(key),
                Some("{}".to_string()),
                "must give the text in English (en), Italian (it) or both",
            );
        }
        (d.list.len() == before).then(|| (Text::Langs { en, it }, v.span().start))
    }

    fn id(&self, key: &str, d: &mut Diagnostics) -> Option<(String, usize)> {
        let (s, at) = self.string(key, true, d)?;
        if is_id(&s) {
            Some((s, at))
        } else {
            d.at(
                at,
                &self.field(key),
                Some(format!("\"{s}\"")),
                "must be an id: lowercase letters, digits, '-' or '_'",
            );
            None
        }
    }

    fn int(
        &self,
        key: &str,
        lo: i64,
        hi: i64,
        default: Option<i64>,
        d: &mut Diagnostics,
    ) -> Option<i64> {
        match self.get(key) {
            None => {
                if default.is_none() {
                    d.at(
                        self.span.start,
                        &self.field(key),
                        None,
                        format!("missing; an integer from {lo} to {hi} is required"),
                    );
                }
                default
            }
            Some(v) => match int_of(v.get_ref()) {
                Some(i) if (lo..=hi).contains(&i) => Some(i),
                _ => {
                    d.at(
                        v.span().start,
                        &self.field(key),
                        Some(show(v.get_ref())),
                        format!("allowed: an integer from {lo} to {hi}"),
                    );
                    None
                }
            },
        }
    }

    fn boolean(&self, key: &str, default: bool, d: &mut Diagnostics) -> bool {
        match self.get(key) {
            None => default,
            Some(v) => match v.get_ref() {
                DeValue::Boolean(b) => *b,
                other => {
                    d.at(
                        v.span().start,
                        &self.field(key),
                        Some(show(other)),
                        "allowed: true or false",
                    );
                    default
                }
            },
        }
    }

    fn choice(&self, key: &str, allowed: &[&str], d: &mut Diagnostics) -> Option<(String, usize)> {
        let (s, at) = self.string(key, true, d)?;
        if allowed.contains(&s.as_str()) {
            Some((s, at))
        } else {
            d.at(
                at,
                &self.field(key),
                Some(format!("\"{s}\"")),
                format!("allowed: {}", allowed.join(", ")),
            );
            None
        }
    }

    fn strings(&self, key: &str, d: &mut Diagnostics) -> Vec<(String, usize)> {
        let Some(v) = self.get(key) else {
            return Vec::new();
        };
        match v.get_ref() {
            DeValue::Array(a) => a
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match item.get_ref() {
                    DeValue::String(s) => Some((s.to_string(), item.span().start)),
                    other => {
                        d.at(
                            item.span().start,
                            &format!("{}[{i}]", self.field(key)),
                            Some(show(other)),
                            "must be a string",
                        );
                        None
                    }
                })
                .collect(),
            other => {
                d.at(
                    v.span().start,
                    &self.field(key),
                    Some(show(other)),
                    "must be an array of strings",
                );
                Vec::new()
            }
        }
    }

    /// An array of tables (`[[units]]`).
    fn tables(&self, key: &str, d: &mut Diagnostics) -> Vec<Reader<'t, 'i>> {
        let Some(v) = self.get(key) else {
            d.at(
                self.span.start,
                &self.field(key),
                None,
                format!("missing; at least one [[{key}]] is required"),
            );
            return Vec::new();
        };
        match v.get_ref() {
            DeValue::Array(a) => a
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match item.get_ref() {
                    DeValue::Table(t) => Some(Reader {
                        table: t,
                        span: item.span(),
                        path: format!("{}[{i}]", self.field(key)),
                    }),
                    other => {
                        d.at(
                            item.span().start,
                            &format!("{key}[{i}]"),
                            Some(show(other)),
                            "must be a table",
                        );
                        None
                    }
                })
                .collect(),
            other => {
                d.at(
                    v.span().start,
                    key,
                    Some(show(other)),
                    format!("must be an array of tables ([[{key}]])"),
                );
                Vec::new()
            }
        }
    }
}

const TOP: &[&str] = &[
    "ruleset",
    "title",
    "date",
    "place",
    "notes",
    "sources",
    "sides",
    "leaders",
    "units",
    "house_rules",
    "obstacles",
];

/// Parse and validate a scenario written in TOML. On failure, every problem found, in file order.
pub fn parse(file: &str, src: &str) -> Result<Scenario, Vec<Diagnostic>> {
    read(file, src).map(|file| Scenario {
        file,
        warnings: Vec::new(),
    })
}

/// The texts a player reads that a scenario written in TOML gives in one language only, each a
/// warning at its line and column (`tercio scenario check` prints them; the scenario is still
/// accepted): the title, place and notes, and the name of every side, leader and unit, each
/// either one string (written in one language) or a table without its English (`en`) or Italian
/// (`it`) text. A proper name that stays as it is is written twice (`{ en = "Pavia", it =
/// "Pavia" }`), so that one still to translate is told apart. The sources (books and their
/// titles) are not asked for. Nothing for a file that is not TOML (its problems are
/// [`parse`]'s).
pub fn translations(file: &str, src: &str) -> Vec<Diagnostic> {
    let mut d = Diagnostics::new(file, src);
    let (root, errors) = DeTable::parse_recoverable(src);
    if !errors.is_empty() {
        return Vec::new();
    }
    // A text as a warning shows it: its first line (notes run over many).
    let line = |s: &str| {
        let t = s.trim();
        match t.split_once('\n') {
            Some((first, _)) => format!("\"{}…\"", first.trim_end()),
            None => format!("\"{t}\""),
        }
    };
    let mut look = |field: String, v: &Spanned<DeValue<'_>>| {
        let (value, message) = match v.get_ref() {
            DeValue::String(s) => (
                line(s),
                "in one language only; write { en = \"…\", it = \"…\" } (a proper name twice)"
                    .to_string(),
            ),
            DeValue::Table(t) => {
                let blank = |k: &str| {
                    t.iter()
                        .find(|(n, _)| n.get_ref().as_ref() == k)
                        .and_then(|(_, v)| v.get_ref().as_str())
                        .is_none_or(|s| s.trim().is_empty())
                };
                let shown = ["en", "it"]
                    .into_iter()
                    .find_map(|k| {
                        t.iter()
                            .find(|(n, _)| n.get_ref().as_ref() == k)
                            .and_then(|(_, v)| v.get_ref().as_str())
                            .filter(|s| !s.trim().is_empty())
                    })
                    .unwrap_or("");
                let missing = match (blank("en"), blank("it")) {
                    (false, false) | (true, true) => return,
                    (true, false) => "English (en)",
                    (false, true) => "Italian (it)",
                };
                (line(shown), format!("no {missing} text"))
            }
            _ => return,
        };
        d.at(v.span().start, &field, Some(value), message);
    };
    let top = root.get_ref();
    fn get<'t, 'i>(t: &'t DeTable<'i>, k: &str) -> Option<&'t Spanned<DeValue<'i>>> {
        t.iter()
            .find(|(n, _)| n.get_ref().as_ref() == k)
            .map(|(_, v)| v)
    }
    for key in ["title", "place", "notes"] {
        if let Some(v) = get(top, key) {
            look(key.to_string(), v);
        }
    }
    for list in ["sides", "leaders", "units", "obstacles"] {
        let Some(v) = get(top, list) else { continue };
        let DeValue::Array(items) = v.get_ref() else {
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            if let DeValue::Table(t) = item.get_ref() {
                if let Some(name) = get(t, "name") {
                    look(format!("{list}[{i}].name"), name);
                }
            }
        }
    }
    d.list.sort_by_key(|x| (x.line, x.column));
    d.list
}

/// The TOML reader, where every check lives.
fn read(file: &str, src: &str) -> Result<ScenarioFile, Vec<Diagnostic>> {
    let mut d = Diagnostics::new(file, src);
    let (root, errors) = DeTable::parse_recoverable(src);
    for e in &errors {
        let at = e.span().map_or(0, |s| s.start);
        d.at(
            at,
            "toml",
            None,
            format!("malformed TOML: {}", e.message().trim()),
        );
    }
    if !errors.is_empty() {
        return Err(d.list);
    }
    let top = Reader {
        table: root.get_ref(),
        span: 0..0,
        path: String::new(),
    };
    top.unknown_keys(TOP, &mut d);

    let rules: Option<&'static dyn RuleSet> = match top.string("ruleset", true, &mut d) {
        Some((id, at)) => match registry::lookup(&id) {
            Ok(r) if r.available() => Some(r),
            Ok(r) => {
                d.at(
                    at,
                    "ruleset",
                    Some(format!("\"{id}\"")),
                    format!("{} is not yet available in Tercio", r.name()),
                );
                None
            }
            Err(_) => {
                d.at(
                    at,
                    "ruleset",
                    Some(format!("\"{id}\"")),
                    format!(
                        "unknown rule set; allowed: {}",
                        registry::all_ids_and_aliases()
                    ),
                );
                None
            }
        },
        None => None,
    };
    let title = top.text("title", true, &mut d).map(|(t, at)| {
        if t.is_blank() {
            d.at(
                at,
                "title",
                Some(format!("\"{}\"", t.en())),
                "must not be empty: the battle's name, shown on every page",
            );
        }
        t
    });
    let date = top.string("date", false, &mut d).map(|x| x.0);
    let place = top.text("place", false, &mut d).map(|x| x.0);
    let notes = top.text("notes", false, &mut d).map(|x| x.0);
    let sources = top
        .strings("sources", &mut d)
        .into_iter()
        .map(|x| x.0)
        .collect();

    // Sides.
    let mut sides = Vec::new();
    let mut side_ids = BTreeSet::new();
    let mut roles = Vec::new();
    let mut side_at = Vec::new();
    for s in top.tables("sides", &mut d) {
        side_at.push(s.span.start);
        s.unknown_keys(&["id", "name", "role", "colour", "color", "camp"], &mut d);
        let id = s.id("id", &mut d);
        let name = s.text("name", true, &mut d);
        let role = s.choice("role", &["attacker", "defender"], &mut d);
        let colour = s
            .string("colour", false, &mut d)
            .or_else(|| s.string("color", false, &mut d))
            .map_or_else(|| "grey".to_string(), |c| c.0);
        let camp = s.boolean("camp", false, &mut d);
        let colour_ok = {
            let c = colour.as_str();
            (1..=30).contains(&c.len()) && c.chars().all(|x| x.is_ascii_alphabetic())
                || (c.len() == 4 || c.len() == 7)
                    && c.starts_with('#')
                    && c[1..].chars().all(|x| x.is_ascii_hexdigit())
        };
        if !colour_ok {
            let at = s
                .get("colour")
                .or_else(|| s.get("color"))
                .map_or(s.span.start, |v| v.span().start);
            d.at(
                at,
                &s.field("colour"),
                Some(format!("\"{colour}\"")),
                "allowed: a colour name (letters only) or #rgb / #rrggbb",
            );
        }
        if let Some((id, at)) = &id {
            if !side_ids.insert(id.clone()) {
                d.at(
                    *at,
                    &s.field("id"),
                    Some(format!("\"{id}\"")),
                    "duplicate side id",
                );
            }
        }
        if let (Some((id, _)), Some((name, _)), Some((role, at))) = (id, name, role) {
            let role = if role == "attacker" {
                Role::Attacker
            } else {
                Role::Defender
            };
            roles.push((role, at));
            sides.push(Side {
                id,
                name,
                role,
                colour,
                camp,
            });
        }
    }
    if sides.len() == 2 && roles.len() == 2 && roles[0].0 == roles[1].0 {
        d.at(
            roles[1].1,
            "sides[1].role",
            None,
            "one side must be the attacker and the other the defender",
        );
    }
    if !sides.is_empty() && side_ids.len() != 2 {
        d.at(
            0,
            "sides",
            Some(side_ids.len().to_string()),
            "a battle has exactly two sides",
        );
    }

    // Leaders.
    let mut leaders: Vec<Leader> = Vec::new();
    // Every leader seen, even one with other faulty fields, so one mistake does not cascade.
    let mut known: Vec<(String, Option<String>, Option<Rank>)> = Vec::new();
    let mut all_ids: BTreeSet<String> = side_ids.clone();
    for l in top.tables("leaders", &mut d) {
        l.unknown_keys(&["id", "name", "side", "bonus", "rank"], &mut d);
        let id = l.id("id", &mut d);
        let name = l.text("name", true, &mut d);
        let side = l.string("side", true, &mut d);
        let bonus = l.int("bonus", 0, 2, Some(0), &mut d);
        let rank = l.choice("rank", &["army", "battle"], &mut d);
        if let Some((s, at)) = &side {
            if !side_ids.contains(s) {
                d.at(
                    *at,
                    &l.field("side"),
                    Some(format!("\"{s}\"")),
                    format!("no such side; allowed: {}", join(&side_ids)),
                );
            }
        }
        if let Some((id, at)) = &id {
            if !all_ids.insert(id.clone()) {
                d.at(
                    *at,
                    &l.field("id"),
                    Some(format!("\"{id}\"")),
                    "duplicate id",
                );
            }
        }
        if let Some((id, _)) = &id {
            let r = rank.as_ref().map(|(r, _)| {
                if r == "army" {
                    Rank::Army
                } else {
                    Rank::Battle
                }
            });
            known.push((id.clone(), side.as_ref().map(|x| x.0.clone()), r));
        }
        if let (Some((id, _)), Some((name, _)), Some((side, _)), Some(bonus), Some((rank, _))) =
            (id, name, side, bonus, rank)
        {
            let rank = if rank == "army" {
                Rank::Army
            } else {
                Rank::Battle
            };
            leaders.push(Leader {
                id,
                name,
                side,
                bonus: bonus as u8,
                rank,
            });
        }
    }
    for (i, s) in sides.iter().enumerate() {
        let n = known
            .iter()
            .filter(|l| l.1.as_deref() == Some(s.id.as_str()) && l.2 == Some(Rank::Army))
            .count();
        if n != 1 {
            d.at(side_at.get(i).copied().unwrap_or(0), "leaders", None, format!("side \"{}\" has {n} army commanders; exactly one leader with rank = \"army\" is required", tercio_i18n::clip(&s.id)));
        }
    }

    // Units.
    let mut units = Vec::new();
    // Where each kept unit's fields are, for the rule set's own checks.
    let mut unit_at: Vec<(String, usize, Option<usize>, Option<usize>)> = Vec::new();
    let (size_key, size_min, size_max) = rules.map_or(("bases", 1, 6), |r| r.unit_size());
    for u in top.tables("units", &mut d) {
        u.unknown_keys(
            &[
                "id",
                "name",
                "side",
                "type",
                size_key,
                "leader",
                "flags",
                "nationality",
            ],
            &mut d,
        );
        let id = u.id("id", &mut d);
        let name = u.text("name", true, &mut d);
        let side = u.string("side", true, &mut d);
        let bases = u.int(size_key, size_min, size_max, None, &mut d);
        let leader = u.string("leader", true, &mut d);
        let nationality = u.string("nationality", false, &mut d);
        let flags = u.strings("flags", &mut d);
        let troop = u.string("type", true, &mut d);
        if let Some((id, at)) = &id {
            if !all_ids.insert(id.clone()) {
                d.at(
                    *at,
                    &u.field("id"),
                    Some(format!("\"{id}\"")),
                    "duplicate id",
                );
            }
        }
        if let Some((s, at)) = &side {
            if !side_ids.contains(s) {
                d.at(
                    *at,
                    &u.field("side"),
                    Some(format!("\"{s}\"")),
                    format!("no such side; allowed: {}", join(&side_ids)),
                );
            }
        }
        if let Some((l, at)) = &leader {
            match known.iter().find(|x| &x.0 == l) {
                None => {
                    let ids: BTreeSet<String> = known.iter().map(|x| x.0.clone()).collect();
                    d.at(
                        *at,
                        &u.field("leader"),
                        Some(format!("\"{l}\"")),
                        format!("no such leader; allowed: {}", join(&ids)),
                    );
                }
                Some(x) => {
                    if let (Some((s, _)), Some(ls)) = (&side, &x.1) {
                        if ls != s {
                            d.at(
                                *at,
                                &u.field("leader"),
                                Some(format!("\"{l}\"")),
                                format!(
                                    "leader of side \"{}\", not of this unit's side \"{}\"",
                                    tercio_i18n::clip(ls),
                                    tercio_i18n::clip(s)
                                ),
                            );
                        }
                    }
                }
            }
        }
        if let (Some(rules), Some((t, at))) = (rules, &troop) {
            let types = rules.troop_types();
            if !types.contains(&t.as_str()) {
                d.at(
                    *at,
                    &u.field("type"),
                    Some(format!("\"{t}\"")),
                    format!(
                        "unknown troop type for {}; allowed: {}",
                        rules.id(),
                        types.join(", ")
                    ),
                );
            } else {
                let allowed = rules.allowed_flags(t);
                for (i, (f, fat)) in flags.iter().enumerate() {
                    if !allowed.contains(&f.as_str()) {
                        let what = if allowed.is_empty() {
                            "none for this troop type".to_string()
                        } else {
                            allowed.join(", ")
                        };
                        d.at(
                            *fat,
                            &format!("{}[{i}]", u.field("flags")),
                            Some(format!("\"{f}\"")),
                            format!("unknown flag for {t}; allowed: {what}"),
                        );
                    }
                }
                if let Some(req) = rules.required_nationality(t) {
                    match &nationality {
                        None => d.at(
                            u.span.start,
                            &u.field("nationality"),
                            None,
                            format!("required for {t}; allowed: {}", req.join(", ")),
                        ),
                        Some((n, nat)) if !req.contains(&n.as_str()) => d.at(
                            *nat,
                            &u.field("nationality"),
                            Some(format!("\"{n}\"")),
                            format!("allowed for {t}: {}", req.join(", ")),
                        ),
                        _ => {}
                    }
                }
            }
        }
        if let (
            Some((id, _)),
            Some((name, _)),
            Some((side, _)),
            Some((troop, _)),
            Some(bases),
            Some((leader, _)),
        ) = (id, name, side, troop, bases, leader)
        {
            unit_at.push((
                u.path.clone(),
                u.span.start,
                u.get(size_key).map(|v| v.span().start),
                u.get("flags").map(|v| v.span().start),
            ));
            units.push(Unit {
                id,
                name,
                side,
                troop,
                bases: bases as u8,
                leader,
                flags: flags.into_iter().map(|f| f.0).collect(),
                nationality: nationality.map(|n| n.0),
            });
        }
    }

    // House rules.
    let mut house_rules = BTreeMap::new();
    if let (Some(v), Some(rules)) = (top.get("house_rules"), rules) {
        match v.get_ref() {
            DeValue::Table(t) => {
                let table = rules.house_rules();
                flatten_house_rules(t, "house_rules", "", &table, &mut house_rules, &mut d)
            }
            other => d.at(
                v.span().start,
                "house_rules",
                Some(show(other)),
                "must be a table",
            ),
        }
    }

    // Obstacles, for a rule set that tracks them.
    let mut obstacles = Vec::new();
    let mut obstacle_ids = BTreeSet::new();
    let allowed = rules.map_or(&[][..], |r| r.obstacle_difficulties());
    let written = if top.get("obstacles").is_some() {
        top.tables("obstacles", &mut d)
    } else {
        Vec::new()
    };
    for o in written {
        if allowed.is_empty() {
            if rules.is_some() {
                d.at(
                    o.span.start,
                    &o.path,
                    None,
                    "this rule set tracks no obstacle: describe it in the notes",
                );
            }
            continue;
        }
        o.unknown_keys(&["id", "name", "difficulty"], &mut d);
        let id = o.id("id", &mut d);
        let name = o.text("name", true, &mut d);
        let difficulty = if o.get("difficulty").is_some() {
            o.choice("difficulty", allowed, &mut d).map(|x| Some(x.0))
        } else {
            Some(None)
        };
        if let Some((id, at)) = &id {
            if !obstacle_ids.insert(id.clone()) {
                d.at(
                    *at,
                    &o.field("id"),
                    Some(format!("\"{id}\"")),
                    "duplicate obstacle id",
                );
            }
        }
        if let (Some((id, _)), Some((name, _)), Some(difficulty)) = (id, name, difficulty) {
            obstacles.push(Obstacle {
                id,
                name,
                difficulty,
            });
        }
    }

    let scenario = Scenario::built(ScenarioFile {
        ruleset: rules.map(|r| r.id().to_string()).unwrap_or_default(),
        title: title.unwrap_or_default(),
        date,
        place,
        notes,
        sources,
        sides,
        leaders,
        units,
        house_rules,
        obstacles,
    });
    if d.is_empty() {
        if let Some(r) = rules {
            for (i, field, msg) in r.check_units(&scenario) {
                let Some((path, start, size_at, flags_at)) = unit_at.get(i) else {
                    continue;
                };
                let (at, name) = match field.as_str() {
                    "flags" => (flags_at.unwrap_or(*start), format!("{path}.flags")),
                    f if f == size_key || f == "blocks" => {
                        (size_at.unwrap_or(*start), format!("{path}.{size_key}"))
                    }
                    f => (*start, format!("{path}.{f}")),
                };
                d.at(at, &name, None, msg);
            }
        }
    }
    if d.is_empty() {
        Ok(scenario.into_file())
    } else {
        d.list.sort_by_key(|x| (x.line, x.column));
        Err(d.list)
    }
}

fn flatten_house_rules(
    t: &Tbl<'_>,
    path: &str,
    prefix: &str,
    table: &[HouseRule],
    out: &mut BTreeMap<String, i64>,
    d: &mut Diagnostics,
) {
    for (k, v) in t.iter() {
        let key = if prefix.is_empty() {
            k.get_ref().to_string()
        } else {
            format!("{prefix}.{}", k.get_ref())
        };
        let field = format!("{path}.{}", k.get_ref());
        match v.get_ref() {
            DeValue::Table(inner) => flatten_house_rules(inner, &field, &key, table, out, d),
            val => {
                let Some(rule) = table.iter().find(|r| r.key == key) else {
                    let mut shown: Vec<&str> = table
                        .iter()
                        .map(|r| r.key.as_ref())
                        .filter(|k| !k.starts_with("troops."))
                        .collect();
                    if table.iter().any(|r| r.key.starts_with("troops.")) {
                        shown.push("troops.<type>.<entry>");
                    }
                    let allowed = if shown.is_empty() {
                        "this rule set has no house rules".to_string()
                    } else {
                        format!("allowed: {}", shown.join(", "))
                    };
                    d.at(
                        k.span().start,
                        &field,
                        None,
                        format!("no such house rule; {allowed}"),
                    );
                    continue;
                };
                match int_of(val) {
                    Some(i) if rule.allows(i) => {
                        out.insert(key, i);
                    }
                    _ => d.at(
                        v.span().start,
                        &field,
                        Some(show(val)),
                        if rule.flag {
                            format!(
                                "allowed: 0 (off) or 1 (on); default {} ({})",
                                rule.default, rule.source
                            )
                        } else {
                            format!(
                                "allowed: an integer from {} to {}; default {} ({})",
                                rule.min, rule.max, rule.default, rule.source
                            )
                        },
                    ),
                }
            }
        }
    }
}

fn join(s: &BTreeSet<String>) -> String {
    s.iter()
        .map(|x| format!("\"{}\"", tercio_i18n::clip(x)))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tercio_i18n::Lang;

    const CERIGNOLA: &str = include_str!("../../../scenarios/el-gran-capitan/cerignola-1503.toml");

    fn at(text: &str) -> Source<'_> {
        Source {
            file: "g.json",
            text,
            path: "scenario",
        }
    }

    #[test]
    fn a_clean_scenario_is_remembered_and_a_changed_one_is_checked_again() {
        let file = parse("cerignola.toml", CERIGNOLA).expect("shipped").file;
        let text = serde_json::to_string_pretty(&file).expect("json");
        assert!(Scenario::check(file.clone(), &at(&text)).is_ok());
        assert!(checked::clean(&file), "a clean scenario is remembered");

        // One field changed: checked again, and its problem placed in its own text.
        let mut bad = file.clone();
        bad.units[0].side = "nobody".to_string();
        assert!(!checked::clean(&bad));
        let text = serde_json::to_string_pretty(&bad).expect("json");
        let found = Scenario::check(bad.clone(), &at(&text)).expect_err("an unknown side");
        assert!(
            found.iter().any(|d| d.field == "scenario.units[0].side"),
            "{found:?}"
        );
        assert!(!Scenario::recorded(bad.clone(), &at(&text))
            .warnings
            .is_empty());
        assert!(
            !checked::clean(&bad),
            "a scenario with problems is never remembered"
        );
    }

    /// A text is one string, as every scenario recorded before wrote it (and then written back
    /// as that string, so a recorded game's scenario and its digest are unchanged), or the text
    /// by language; a page takes its language, or the other when one is missing, and an engine
    /// one message for every reader. A table without either language is refused where it is.
    #[test]
    fn a_text_is_one_string_as_before_or_the_text_in_each_language() {
        let file = parse("cerignola.toml", CERIGNOLA).expect("shipped").file;
        let swiss = file
            .units
            .iter()
            .find(|u| u.name.get(Lang::En) == "Swiss pikes (first block)")
            .expect("the first Swiss block");
        assert_eq!(swiss.name.get(Lang::It), "Picche svizzere (primo quadrato)");
        assert_eq!(
            tercio_i18n::localize(Lang::It, &swiss.name.message()),
            "Picche svizzere (primo quadrato)"
        );
        // A proper name written twice is one text.
        assert_eq!(file.title.message(), "Cerignola");
        // JSON: the object as written; one string stays one string.
        let v = serde_json::to_value(&swiss.name).expect("json");
        assert_eq!(
            v,
            serde_json::json!({"en": "Swiss pikes (first block)", "it": "Picche svizzere (primo quadrato)"})
        );
        let old: Text = serde_json::from_str("\"Swiss pikes\"").expect("a string");
        assert_eq!(old, Text::Plain("Swiss pikes".into()));
        assert_eq!(
            serde_json::to_string(&old).expect("json"),
            "\"Swiss pikes\""
        );
        assert_eq!(old.get(Lang::It), "Swiss pikes");
        let half: Text = serde_json::from_str(r#"{"it": "Picche"}"#).expect("one language");
        assert_eq!(half.get(Lang::En), "Picche");
        assert_eq!(half.missing(), Some(Lang::En));
        // TOML: an empty table, or one with another language, is refused at its place.
        let bad = CERIGNOLA.replacen(
            "name = { en = \"Swiss pikes (first block)\", it = \"Picche svizzere (primo quadrato)\" }",
            "name = { fr = \"Piques suisses\" }",
            1,
        );
        assert_ne!(bad, CERIGNOLA);
        let found = parse("c.toml", &bad).expect_err("no language");
        assert!(
            found
                .iter()
                .any(|d| d.field.ends_with(".name.fr") && d.message.contains("allowed: en, it")),
            "{found:?}"
        );
    }

    #[test]
    fn the_remembered_scenarios_are_bounded() {
        let file = parse("cerignola.toml", CERIGNOLA).expect("shipped").file;
        let variant = |i: usize| {
            let mut f = file.clone();
            f.title = format!("Cerignola, variant {i}").into();
            f
        };
        let text = serde_json::to_string(&file).expect("json");
        for i in 0..=checked::KEPT {
            assert!(Scenario::check(variant(i), &at(&text)).is_ok());
        }
        // Other tests may remember scenarios meanwhile; they only push the first further out.
        assert!(!checked::clean(&variant(0)), "the oldest is forgotten");
        assert!(checked::len() <= checked::KEPT);
    }
}
