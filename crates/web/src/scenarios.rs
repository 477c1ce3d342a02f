//! The shipped scenarios, embedded in the binary (the build script lists them from the
//! repository's `scenarios` folder).

use std::sync::LazyLock;

use tercio_rules::scenario::{self, Scenario};

pub struct Shipped {
    /// `<ruleset>/<file stem>`, the file's path under `scenarios`.
    pub id: &'static str,
    pub toml: &'static str,
}

macro_rules! shipped {
    ($($id:literal),* $(,)?) => {
        pub static SHIPPED: &[Shipped] = &[
            $(Shipped { id: $id, toml: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/", $id, ".toml")) }),*
        ];
    };
}

// The list, made by the build script from the scenarios folder.
include!(concat!(env!("OUT_DIR"), "/shipped.rs"));

pub fn find(id: &str) -> Option<&'static Shipped> {
    SHIPPED.iter().find(|s| s.id == id)
}

/// Every shipped scenario with its text read, in the list's order; read once (one that fails
/// its check, which the tests forbid, is left out).
pub fn parsed() -> &'static [(&'static Shipped, Scenario)] {
    static LIST: LazyLock<Vec<(&'static Shipped, Scenario)>> = LazyLock::new(|| {
        SHIPPED
            .iter()
            .filter_map(|s| scenario::parse(s.id, s.toml).ok().map(|sc| (s, sc)))
            .collect()
    });
    &LIST
}

/// The shipped scenario `id`, read and checked once ([`parsed`]).
pub fn parsed_one(id: &str) -> Option<&'static (&'static Shipped, Scenario)> {
    parsed().iter().find(|(s, _)| s.id == id)
}

/// A rule set's name and its shipped scenarios, each as (id, title and date).
pub type Group = (String, Vec<(&'static str, String)>);

/// The shipped scenarios as a host chooses among them: by rule set (its name), each by its
/// title (in `lang`) and date, never its file's id.
pub fn by_rule_set(lang: tercio_i18n::Lang) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for (s, sc) in parsed() {
        let rules =
            tercio_rules::registry::lookup(&sc.ruleset).map_or(sc.ruleset.clone(), |r| r.title());
        let label = match sc.date.as_deref() {
            Some(d) if !d.trim().is_empty() => format!("{} ({d})", sc.title.get(lang)),
            _ => sc.title.get(lang).to_string(),
        };
        match out.iter_mut().find(|(r, _)| *r == rules) {
            Some((_, list)) => list.push((s.id, label)),
            None => out.push((rules, vec![(s.id, label)])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_scenario_file_is_embedded() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
        let mut on_disk = Vec::new();
        for rules in std::fs::read_dir(root)
            .expect("scenarios")
            .filter_map(|e| e.ok())
        {
            for f in std::fs::read_dir(rules.path())
                .expect("dir")
                .filter_map(|e| e.ok())
            {
                let p = f.path();
                if p.extension().is_some_and(|x| x == "toml") {
                    let stem = p
                        .file_stem()
                        .and_then(|s| s.to_str())
                        .unwrap_or_default()
                        .to_string();
                    on_disk.push(format!("{}/{stem}", rules.file_name().to_string_lossy()));
                }
            }
        }
        on_disk.sort();
        let mut embedded: Vec<String> = super::SHIPPED.iter().map(|s| s.id.to_string()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded);
    }
}
