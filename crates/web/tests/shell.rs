//! The web shell names no rule set: its pages are drawn from what a rule set describes (board,
//! forms, reference tables), so no source file of the web crate holds a rule set's id, alias or
//! module.

use std::path::Path;

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("read the source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path
            .extension()
            .is_some_and(|x| x == "rs" || x == "js" || x == "css")
        {
            let text = std::fs::read_to_string(&path).expect("read a source file");
            out.push((path.display().to_string(), text));
        }
    }
}

#[test]
fn no_source_of_the_web_crate_names_a_rule_set() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    sources(&root.join("assets"), &mut files);
    files.push((
        "build.rs".to_string(),
        std::fs::read_to_string(root.join("build.rs")).expect("read build.rs"),
    ));
    assert!(files.len() > 10, "the web sources are found");
    let mut names = Vec::new();
    for r in tercio_rules::registry::all() {
        names.push(r.id().to_string());
        names.push(r.id().replace('-', "_"));
        names.push(format!("\"{}\"", r.alias()));
    }
    for (file, text) in &files {
        for name in &names {
            assert!(!text.contains(name.as_str()), "{file} names {name}");
        }
    }
}
