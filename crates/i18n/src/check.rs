//! The catalogue checks: shared by `build.rs`, which fails the build on any problem, and the
//! crate's tests, which make sure each problem is caught and named (file, key, reason). No I/O:
//! the build script reads the files and hands their text here.

use std::collections::{BTreeMap, BTreeSet};

/// The languages, in the order of `Lang::ALL`; the first is the reference for the key constants.
pub const LANGS: [&str; 2] = ["it", "en"];

/// One catalogue entry: its text and the file it came from.
pub struct Entry {
    pub text: String,
    pub file: String,
}

/// A language's catalogue: every key, flattened.
pub type Catalogue = BTreeMap<String, Entry>;

/// Add one file's keys to a language's catalogue. `shown`: the file's path for messages; `area`:
/// its name without `.toml`, which every key must start with.
pub fn add_file(
    cat: &mut Catalogue,
    shown: &str,
    area: &str,
    text: &str,
    problems: &mut Vec<String>,
) {
    let table: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            problems.push(format!("{shown}: not valid TOML: {e}"));
            return;
        }
    };
    let mut flat = Vec::new();
    flatten("", &toml::Value::Table(table), shown, &mut flat, problems);
    for (key, value) in flat {
        if key.split('.').next() != Some(area) || !key.contains('.') {
            problems.push(format!(
                "{shown}: key {key}: outside this file's area (keys in {area}.toml start with \"{area}.\")"
            ));
            continue;
        }
        if let Some(e) = cat.get(&key) {
            problems.push(format!(
                "{shown}: key {key}: defined twice (also in {})",
                e.file
            ));
            continue;
        }
        cat.insert(
            key,
            Entry {
                text: value,
                file: shown.to_string(),
            },
        );
    }
}

fn flatten(
    prefix: &str,
    v: &toml::Value,
    file: &str,
    out: &mut Vec<(String, String)>,
    problems: &mut Vec<String>,
) {
    match v {
        toml::Value::Table(t) => {
            for (k, v) in t {
                if k.is_empty()
                    || !k.chars().all(|c| {
                        c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-'
                    })
                {
                    problems.push(format!(
                        "{file}: key {prefix}{k}: a key's parts are lower-case letters, digits, '_' and '-'"
                    ));
                    continue;
                }
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, file, out, problems);
            }
        }
        toml::Value::String(s) => out.push((prefix.to_string(), s.clone())),
        other => problems.push(format!(
            "{file}: key {prefix}: must be a string, found {}",
            other.type_str()
        )),
    }
}

/// The placeholders of a text: `{name}` (or an inline plural `{name|one|other}`) with name made
/// of letters, digits and '_'.
pub fn placeholders(text: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        rest = &rest[i + 1..];
        if let Some(j) = rest.find('}') {
            // An inline plural, `{name|one|other}`, uses its number `name`.
            let inner = &rest[..j];
            let name = match inner.split('|').collect::<Vec<_>>()[..] {
                [name, _, _] => name,
                _ => inner,
            };
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                set.insert(name.to_string());
                rest = &rest[j + 1..];
            }
        }
    }
    set
}

/// The parent of a plural form (`x.one` / `x.other`), when the catalogue has both forms.
pub fn plural_parent<'a>(key: &'a str, cat: &Catalogue) -> Option<&'a str> {
    let (parent, last) = key.rsplit_once('.')?;
    if (last == "one" || last == "other")
        && cat.contains_key(&format!("{parent}.one"))
        && cat.contains_key(&format!("{parent}.other"))
    {
        Some(parent)
    } else {
        None
    }
}

/// Every key in every language, with the same placeholders.
pub fn check_languages(cats: &[Catalogue], problems: &mut Vec<String>) {
    for (i, a) in cats.iter().enumerate() {
        for (j, b) in cats.iter().enumerate() {
            if i == j {
                continue;
            }
            for (key, e) in a {
                if !b.contains_key(key) {
                    problems.push(format!(
                        "{}: key {key}: missing in {} (present in {})",
                        e.file.replace(
                            &format!("locales/{}/", LANGS[i]),
                            &format!("locales/{}/", LANGS[j])
                        ),
                        LANGS[j],
                        LANGS[i]
                    ));
                }
            }
        }
    }
    // The same placeholders in every language: exactly, for an ordinary key; for a plural, the
    // placeholders of its forms together, `count` aside (one form may spell the number out).
    let (first, others) = cats.split_first().expect("two languages");
    for (key, e) in first {
        for (j, other) in others.iter().enumerate() {
            let lang = LANGS[j + 1];
            let Some(o) = other.get(key) else { continue };
            let differ = match plural_parent(key, first) {
                Some(parent) => {
                    let union = |c: &Catalogue| {
                        let mut s = BTreeSet::new();
                        for form in ["one", "other"] {
                            if let Some(e) = c.get(&format!("{parent}.{form}")) {
                                s.extend(placeholders(&e.text));
                            }
                        }
                        s.remove("count");
                        s
                    };
                    key.ends_with(".other") && union(first) != union(other)
                }
                None => placeholders(&e.text) != placeholders(&o.text),
            };
            if differ {
                problems.push(format!(
                    "{}: key {key}: placeholders {:?} in {}, {:?} in {lang} ({})",
                    e.file,
                    placeholders(&e.text),
                    LANGS[0],
                    placeholders(&o.text),
                    o.file
                ));
            }
        }
    }
}

/// The constant naming a key: `web.nav.games` is `WEB_NAV_GAMES`.
pub fn const_name(key: &str) -> String {
    key.chars()
        .map(|c| match c {
            '.' | '-' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect()
}

/// The constants to generate, by name: each key of the reference language and each plural's
/// parent, with the English text as its documentation; or the keys whose constants would clash.
pub fn constants(cats: &[Catalogue]) -> Result<BTreeMap<String, (String, String)>, Vec<String>> {
    // Every key, and every plural's parent (the key the code renders, choosing the form by `count`).
    let reference = &cats[0];
    let english = &cats[LANGS.iter().position(|l| *l == "en").unwrap_or(0)];
    let mut consts: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut clash = Vec::new();
    let mut add = |key: &str, doc: String| {
        let name = const_name(key);
        if let Some((k, _)) = consts.get(&name) {
            if k != key {
                clash.push(format!("keys {k} and {key} both make the constant {name}"));
            }
            return;
        }
        consts.insert(name, (key.to_string(), doc));
    };
    for key in reference.keys() {
        let doc = english.get(key).map_or(String::new(), |e| e.text.clone());
        add(key, doc);
        if let Some(parent) = plural_parent(key, reference) {
            let doc = english
                .get(&format!("{parent}.other"))
                .map_or(String::new(), |e| format!("plural: {}", e.text));
            add(parent, doc);
        }
    }
    if clash.is_empty() {
        Ok(consts)
    } else {
        Err(clash)
    }
}
