//! The list of rule sets, by id and alias. The trait they implement is [`crate::interface`].

use crate::interface::scenario::Scenario;
use crate::interface::{Engine, RuleSet};

/// A rule set Tercio lists but does not implement yet.
pub struct Pending {
    pub id: &'static str,
    pub alias: &'static str,
    pub name: &'static str,
    pub seed: &'static str,
}

impl RuleSet for Pending {
    fn id(&self) -> &'static str {
        self.id
    }
    fn alias(&self) -> &'static str {
        self.alias
    }
    fn name(&self) -> &'static str {
        self.name
    }
    fn seed(&self) -> &'static str {
        self.seed
    }
    fn available(&self) -> bool {
        false
    }
    fn engine(&self, _scenario: Option<&Scenario>) -> Result<Box<dyn Engine>, String> {
        Err(not_available(self))
    }
}

pub fn not_available(r: &dyn RuleSet) -> String {
    format!(
        "{} ({}) is not yet available in Tercio: its rules are not implemented yet. Available now: {}",
        r.name(),
        r.id(),
        all()
            .iter()
            .filter(|r| r.available())
            .map(|r| r.id())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Every rule set, in the order Tercio lists them.
pub fn all() -> [&'static dyn RuleSet; 5] {
    [
        &*crate::bloody_dismal_fight::RULESET,
        &*crate::el_gran_capitan::RULESET,
        &crate::sword_and_flame_renaissance::RULESET,
        &crate::callan_renaissance::engine::RULESET,
        &crate::commands_colors_ecw::engine::RULESET,
    ]
}

pub fn all_ids_and_aliases() -> String {
    all()
        .iter()
        .map(|r| format!("{} ({})", r.id(), r.alias()))
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRuleSet(pub String);

impl std::fmt::Display for UnknownRuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown rule set \"{}\"; allowed: {}",
            self.0,
            all_ids_and_aliases()
        )
    }
}

/// Find a rule set by id or alias (available or not).
pub fn lookup(id: &str) -> Result<&'static dyn RuleSet, UnknownRuleSet> {
    all()
        .into_iter()
        .find(|r| r.id() == id || r.alias() == id)
        .ok_or_else(|| UnknownRuleSet(id.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_ids_and_aliases() {
        let ids: Vec<_> = all().iter().map(|r| (r.id(), r.alias())).collect();
        assert_eq!(
            ids,
            vec![
                ("bloody-dismal-fight", "abdf"),
                ("el-gran-capitan", "egc"),
                ("sword-and-flame-renaissance", "tsatf"),
                ("callan-renaissance", "callan"),
                ("commands-colors-ecw", "ecw"),
            ]
        );
        for (id, alias) in ids {
            assert_eq!(lookup(id).map(|r| r.id()), Ok(id));
            assert_eq!(lookup(alias).map(|r| r.id()), Ok(id));
        }
        assert!(lookup("dba").is_err());
    }

    #[test]
    fn every_rule_set_is_available() {
        for r in all() {
            assert!(r.available(), "{}", r.id());
            assert!(r.engine(None).is_ok(), "{}", r.id());
        }
        let p = Pending {
            id: "x",
            alias: "x",
            name: "X",
            seed: "x.txt",
        };
        let msg = p.engine(None).err().expect("not available");
        assert!(msg.contains("not yet available"), "{msg}");
    }
}
