//! Embeds the shipped scenarios: every `scenarios/<ruleset>/<name>.toml` of the repository, listed
//! here from the folder so the web crate names no rule set and no scenario itself.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut ids = Vec::new();
    for rules in std::fs::read_dir(&root)
        .expect("the scenarios folder")
        .flatten()
    {
        if !rules.path().is_dir() {
            continue;
        }
        println!("cargo:rerun-if-changed={}", rules.path().display());
        for f in std::fs::read_dir(rules.path())
            .expect("a rule set's scenarios")
            .flatten()
        {
            let p = f.path();
            if p.extension().is_some_and(|x| x == "toml") {
                let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
                ids.push(format!("{}/{stem}", rules.file_name().to_string_lossy()));
            }
        }
    }
    ids.sort();
    let mut out = String::from("shipped!(\n");
    for id in &ids {
        let _ = writeln!(out, "    {id:?},");
    }
    out.push_str(");\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("shipped.rs");
    std::fs::write(dest, out).expect("write the list of shipped scenarios");
}
