//! Reads every catalogue, `locales/<lang>/*.toml`, and generates the Rust the crate includes:
//! one sorted array of (key, text) per language and `pub mod keys`, a constant per key.
//!
//! The build fails, naming the file, the key and the reason, when a catalogue is not valid TOML,
//! a value is not a string, a key is outside its file's area (`web.toml` holds `web.*` keys), a
//! key is in one language and not the other, or the two languages' texts of a key use different
//! placeholders.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The languages, in the order of `Lang::ALL`; the first is the reference for the key constants.
const LANGS: [&str; 2] = ["it", "en"];

/// One catalogue entry: its text and the file it came from.
struct Entry {
    text: String,
    file: String,
}

fn main() {
    // A directory makes Cargo rerun the script when anything under it changes, a new file included.
    println!("cargo:rerun-if-changed=locales");
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    let mut cats: Vec<BTreeMap<String, Entry>> = Vec::new();
    for lang in LANGS {
        let dir = root.join("locales").join(lang);
        println!("cargo:rerun-if-changed={}", dir.display());
        cats.push(read_language(&root, &dir, &mut problems));
    }
    check_languages(&cats, &mut problems);
    if !problems.is_empty() {
        eprintln!("tercio-i18n: the message catalogues have problems:");
        for p in &problems {
            eprintln!("  {p}");
        }
        std::process::exit(1);
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("catalogue.rs");
    std::fs::write(&out, generate(&cats)).expect("write the generated catalogue");
}

fn read_language(root: &Path, dir: &Path, problems: &mut Vec<String>) -> BTreeMap<String, Entry> {
    let mut cat = BTreeMap::new();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect(),
        Err(e) => {
            problems.push(format!("{}: cannot read the folder: {e}", dir.display()));
            return cat;
        }
    };
    files.sort();
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let area = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                problems.push(format!("{shown}: cannot read: {e}"));
                continue;
            }
        };
        let table: toml::Table = match toml::from_str(&text) {
            Ok(t) => t,
            Err(e) => {
                problems.push(format!("{shown}: not valid TOML: {e}"));
                continue;
            }
        };
        let mut flat = Vec::new();
        flatten("", &toml::Value::Table(table), &shown, &mut flat, problems);
        for (key, value) in flat {
            if key.split('.').next() != Some(area.as_str()) || !key.contains('.') {
                problems.push(format!(
                    "{shown}: key {key}: outside this file's area (keys in {area}.toml start with \"{area}.\")"
                ));
                continue;
            }
            if let Some(e) = cat.get(&key) {
                let e: &Entry = e;
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
                    file: shown.clone(),
                },
            );
        }
    }
    cat
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

/// The placeholders of a text: `{name}` with name made of letters, digits and '_'.
fn placeholders(text: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        rest = &rest[i + 1..];
        if let Some(j) = rest.find('}') {
            let name = &rest[..j];
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                set.insert(name.to_string());
                rest = &rest[j + 1..];
            }
        }
    }
    set
}

/// The parent of a plural form (`x.one` / `x.other`), when the catalogue has both forms.
fn plural_parent<'a>(key: &'a str, cat: &BTreeMap<String, Entry>) -> Option<&'a str> {
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

fn check_languages(cats: &[BTreeMap<String, Entry>], problems: &mut Vec<String>) {
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
                    let union = |c: &BTreeMap<String, Entry>| {
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

fn const_name(key: &str) -> String {
    key.chars()
        .map(|c| match c {
            '.' | '-' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect()
}

fn generate(cats: &[BTreeMap<String, Entry>]) -> String {
    let mut o =
        String::from("// Generated by build.rs from locales/<lang>/*.toml. Do not edit.\n\n");
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
    if !clash.is_empty() {
        eprintln!("tercio-i18n: the message catalogues have problems:");
        for c in &clash {
            eprintln!("  {c}");
        }
        std::process::exit(1);
    }
    o.push_str("/// Every catalogue key as a constant, so that a misspelt key does not compile. A\n/// plural's parent key (`x` for `x.one` / `x.other`) is a constant too: render it with a\n/// `count` argument.\npub mod keys {\n");
    for (name, (key, doc)) in &consts {
        let _ = writeln!(
            o,
            "    #[doc = {:?}]\n    pub const {name}: &str = {key:?};",
            doc
        );
    }
    o.push_str("}\n\n");
    for (lang, cat) in LANGS.iter().zip(cats) {
        let _ = writeln!(
            o,
            "static CATALOGUE_{}: &[(&str, &str)] = &[",
            lang.to_ascii_uppercase()
        );
        for (key, e) in cat {
            let _ = writeln!(o, "    ({key:?}, {:?}),", e.text);
        }
        o.push_str("];\n\n");
    }
    o
}
