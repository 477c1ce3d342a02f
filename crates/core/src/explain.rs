//! How a resolution explains itself: every die, every modifier by name, value and source, and the
//! outcome, step by step (a charge is defensive fire, then a melee, then a leader's fate).

use serde::{Deserialize, Serialize};

/// One modifier: who it applies to, its name in the rule text's own terms, its value, and where
/// the number comes from (a seed citation or "project design").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Modifier {
    pub side: String,
    pub name: String,
    pub value: i32,
    pub source: String,
}

/// A die as rolled inside a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolledDie {
    pub label: String,
    pub sides: u8,
    pub face: u8,
}

/// One step of a resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub title: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dice: Vec<RolledDie>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<Modifier>,
    /// Named totals, e.g. ("Actor", 7), ("Target", 5).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub totals: Vec<(String, i32)>,
    pub result: String,
}

/// The full explanation of one action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolution {
    pub action: String,
    pub summary: String,
    pub steps: Vec<Step>,
}

/// A modifier as its rule says it, then its value when it has one ("taken in flank/rear (-2)");
/// a modifier of 0 only says what counted ("3 bases in the front rank at 2 dice each"). The page
/// writes the same (`pages/seat.rs`, `game.js`).
pub fn modifier_text(name: &str, value: i32) -> String {
    if value == 0 {
        name.to_string()
    } else {
        format!("{name} ({value:+})")
    }
}

impl Resolution {
    /// A plain-text rendering for the command line.
    pub fn render(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!("{}\n", self.action));
        for step in &self.steps {
            s.push_str(&format!("\n  {}\n", step.title));
            if !step.dice.is_empty() {
                let dice: Vec<String> = step
                    .dice
                    .iter()
                    .map(|d| format!("{} d{} = {}", d.label, d.sides, d.face))
                    .collect();
                s.push_str(&format!("    dice:      {}\n", dice.join(", ")));
            }
            for m in &step.modifiers {
                s.push_str(&format!(
                    "    {:<9} {}  [{}]\n",
                    format!("{}:", m.side),
                    modifier_text(&m.name, m.value),
                    m.source
                ));
            }
            if !step.totals.is_empty() {
                let t: Vec<String> = step
                    .totals
                    .iter()
                    .map(|(n, v)| format!("{n} {v}"))
                    .collect();
                s.push_str(&format!("    totals:    {}\n", t.join(", ")));
            }
            s.push_str(&format!("    result:    {}\n", step.result));
        }
        s.push_str(&format!("\nOutcome: {}\n", self.summary));
        s
    }
}
