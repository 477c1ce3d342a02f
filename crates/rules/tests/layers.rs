//! The rules crate's modules import one way: the interface at the bottom, the rule sets on it, the
//! registry listing them, and the scenario reader, the game and its reports above. No import
//! circle: a module that uses another (`crate::x`, outside comments and tests) never finds itself
//! among that module's own imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module of `src` and the top-level modules it imports through `crate::`.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read the source folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("under src");
            let first = rel.components().next().expect("a component");
            let module = first
                .as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string();
            let text = std::fs::read_to_string(&path).expect("read a source file");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let uses = graph.entry(module.clone()).or_default();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for (i, _) in line.match_indices("crate::") {
                    let name: String = line[i + 7..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != module {
                        uses.insert(name);
                    }
                }
            }
        }
    }
    graph
}

/// A path of imports from `from` back to `to`, if there is one.
fn path_back(
    graph: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    to: &str,
    seen: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    if from == to {
        return Some(vec![to.to_string()]);
    }
    if !seen.insert(from.to_string()) {
        return None;
    }
    for next in graph.get(from).into_iter().flatten() {
        if let Some(mut p) = path_back(graph, next, to, seen) {
            p.insert(0, from.to_string());
            return Some(p);
        }
    }
    None
}

#[test]
fn no_module_of_the_rules_crate_imports_itself_in_a_circle() {
    let graph = imports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph.contains_key("interface") && graph.contains_key("registry"));
    assert!(
        graph["registry"].contains("callan_renaissance"),
        "{graph:?}"
    );
    for (module, uses) in &graph {
        for used in uses {
            if let Some(p) = path_back(&graph, used, module, &mut BTreeSet::new()) {
                panic!("{module} imports {}", p.join(" which imports "));
            }
        }
    }
}

#[test]
fn the_interface_and_the_rule_sets_do_not_import_the_registry() {
    let graph = imports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    for module in [
        "interface",
        "app_driven",
        "bloody_dismal_fight",
        "el_gran_capitan",
        "sword_and_flame_renaissance",
        "callan_renaissance",
        "commands_colors_ecw",
    ] {
        for above in ["registry", "scenario", "game", "report", "autoplay"] {
            assert!(
                !graph[module].contains(above),
                "{module} imports {above}, which is above it"
            );
        }
    }
}
