//! The shipped scenarios, embedded in the binary (the build script lists them from the
//! repository's `scenarios` folder).

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
