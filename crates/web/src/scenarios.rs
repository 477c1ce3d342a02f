//! The shipped scenarios, embedded in the binary.

pub struct Shipped {
    /// `<ruleset>/<file stem>`, e.g. `el-gran-capitan/cerignola-1503`.
    pub id: &'static str,
    pub toml: &'static str,
}

macro_rules! shipped {
    ($($id:literal),* $(,)?) => {
        pub static SHIPPED: &[Shipped] = &[
            $(Shipped { id: $id, toml: include_str!(concat!("../../../scenarios/", $id, ".toml")) }),*
        ];
    };
}

shipped!(
    "bloody-dismal-fight/agincourt-1415",
    "bloody-dismal-fight/brustem-1467",
    "callan-renaissance/fornovo-1495",
    "callan-renaissance/marignano-1515",
    "callan-renaissance/pavia-1525",
    "commands-colors-ecw/edgehill-1642",
    "commands-colors-ecw/tibbermore-1644",
    "el-gran-capitan/cerignola-1503",
    "el-gran-capitan/pavia-1525",
    "el-gran-capitan/ravenna-1512",
    "sword-and-flame-renaissance/bicocca-1522",
    "sword-and-flame-renaissance/ravenna-1512",
);

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
