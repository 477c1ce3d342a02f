//! One trait, five rule sets: the registry of ids and aliases, and the trait every rule set
//! implements.

use serde::Serialize;
use serde_json::Value;
use tercio_core::{Plan, Resolution};

use crate::scenario::Scenario;

/// An action Tercio will not resolve, with the reason, naming the field at fault where there is one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    /// Stable kebab-case code, e.g. `march-formation-cannot-charge`.
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
}

impl Rejection {
    pub fn new(code: &str, field: Option<&str>, message: impl Into<String>) -> Self {
        Rejection {
            code: code.to_string(),
            field: field.map(str::to_string),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            // Messages that already start with their field are not prefixed twice.
            Some(field) if self.message.starts_with(&format!("{field}:")) => {
                write!(f, "{} [{}]", self.message, self.code)
            }
            Some(field) => write!(f, "{field}: {} [{}]", self.message, self.code),
            None => write!(f, "{} [{}]", self.message, self.code),
        }
    }
}

/// What a resolution produces: the explanation, the effects to fold into the game state (opaque
/// to the shell), and named facets of the outcome from which odds are tabulated.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub resolution: Resolution,
    pub effects: Value,
    pub facets: Vec<(String, String)>,
}

/// A rule set's engine, bound to a scenario (for games) or to none (for stand-alone actions).
pub trait Engine: Send + Sync {
    /// The state of a new game of the bound scenario.
    fn initial_state(&self) -> Result<Value, String>;
    /// Declare the dice plan of an action, against a game state or stand-alone.
    fn plan(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection>;
    /// Like [`Engine::plan`], but for showing the odds of an action the turn does not allow yet
    /// (a unit waiting for its activation): only the action's own rules are checked.
    fn preview(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection> {
        self.plan(state, action)
    }
    /// Fold one outcome's effects into the state.
    fn apply(&self, state: &mut Value, effects: &Value) -> Result<(), String>;
    /// The state with one outcome's effects folded in, `state` left as it was. The default copies
    /// the state and folds into the copy; a rule set whose fold builds a new state anyway (its
    /// typed state read from the JSON and written back) returns that, with no copy.
    fn folded(&self, state: &Value, effects: &Value) -> Result<Value, String> {
        let mut s = state.clone();
        self.apply(&mut s, effects)?;
        Ok(s)
    }
    /// A plain-text picture of the state for `tercio game show`.
    fn render_state(&self, state: &Value) -> String;
    /// The side an action belongs to (the side of the unit or leader it moves), or `None` for the
    /// game master's own steps (initiative, end of turn). Seats use it to let a side resolve its
    /// own units' actions and nothing else.
    fn acting_side(&self, _state: &Value, _action: &Value) -> Option<String> {
        None
    }
    /// Fields of an action that decide for the other side or override what Tercio tracks (the
    /// target's status, whether it evades, the force ratio...): a side's seat may not set them;
    /// the game master resolves such actions.
    fn reserved_to_game_master(&self) -> &'static [&'static str] {
        &[]
    }
    /// Each side's losses against its breaking point, for the battle report's chart.
    fn scores(&self, _state: &Value) -> Vec<SideScore> {
        Vec::new()
    }
    /// Whether the battle is over (then the seed is revealed).
    fn is_over(&self, state: &Value) -> bool {
        state["phase"] == "over"
    }
    /// What `viewer` may see of the state. Rule sets with secret information (a hand of cards)
    /// hide it here; every page, API answer and live message is built from this view.
    fn view_state(&self, state: &Value, _viewer: &Viewer) -> Value {
        state.clone()
    }
    /// Whether any seat's [`Engine::view_state`] may differ from the state (the rule set keeps
    /// secrets in it). When not, the shell compares states without copying a view of them.
    fn views_differ(&self) -> bool {
        false
    }
    /// What `viewer` may see of one recorded event (an event's secret draws, voided or not, are
    /// hidden here). `None` hides the event's content altogether.
    fn view_event(&self, event: &Value, _viewer: &Viewer) -> Option<Value> {
        Some(event.clone())
    }
    /// The game at a glance, for rule sets whose pages the shell draws from data: the turn and
    /// step, whose move it is, and tables of units. `None`: the shell has its own page for it.
    fn board(&self, _state: &Value) -> Option<Board> {
        None
    }
    /// The actions that can be taken now, as forms the shell draws without knowing the rule set:
    /// every action for the game master (`side` = `None`), a side's own actions otherwise.
    fn forms(&self, _state: &Value, _side: Option<&str>) -> Vec<ActionForm> {
        Vec::new()
    }
    /// Whether the game master's seat may take `action`: rule sets with secret hands refuse the
    /// game master a card from a hand it is not allowed to see.
    fn game_master_may(&self, _state: &Value, _action: &Value) -> Result<(), Rejection> {
        Ok(())
    }
    /// Whether `action` must take its randomness from the game's seed even when the table throws
    /// its own dice: card shuffles and draws, and random picks among cards or units, which no
    /// table die can make (and which typed faces would let a player choose).
    fn seeded_only(&self, _state: &Value, _action: &Value) -> bool {
        false
    }
    /// The result in a sentence once the battle is over (who won and why), for the battle
    /// report; `None` leaves the report to its break points.
    fn verdict(&self, _state: &Value) -> Option<String> {
        None
    }
}

/// The game at a glance: a headline (turn, step, whose move it is), notes (what the table must do
/// now), and tables (each side's units with their tracked state).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Board {
    pub headline: String,
    pub notes: Vec<String>,
    pub tables: Vec<BoardTable>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoardTable {
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Secret on a shared device: drawn hidden behind this prompt ("Royalists: tap to reveal your
    /// hand") until tapped. `None`: always shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reveal: Option<String>,
}

impl BoardTable {
    /// A table always shown.
    pub fn new(title: &str, columns: &[&str], rows: Vec<Vec<String>>) -> Self {
        BoardTable {
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows,
            reveal: None,
        }
    }

    /// The table as aligned plain text (CLI), its title on the first line.
    pub fn render(&self) -> String {
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                self.rows
                    .iter()
                    .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                    .chain([self.columns[i].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            let mut l = String::from(" ");
            for (c, w) in cells.iter().zip(&widths) {
                l.push_str(&format!(" {c:<w$}"));
            }
            l.trim_end().to_string() + "\n"
        };
        let mut s = format!("{}\n", self.title);
        s.push_str(&line(&self.columns));
        for r in &self.rows {
            s.push_str(&line(r));
        }
        s
    }
}

/// One action that can be taken now, with its fields. The shell builds the action's JSON as
/// `{"action": action, field name: value...}`: a choice gives its option's value (an optional
/// choice left empty leaves the field out), a flag `true` when ticked (left out otherwise), a
/// number an integer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionForm {
    pub action: String,
    pub label: String,
    /// What it does, in a line.
    pub hint: String,
    pub fields: Vec<FormField>,
    /// Show the exact odds as the fields change (the action rolls dice).
    pub odds: bool,
    /// The turn's next step: drawn first and highlighted.
    pub primary: bool,
    /// Secret on a shared device (it names cards of a hand): drawn behind this prompt, with the
    /// tables of the same prompt, until tapped. `None`: always shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reveal: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormField {
    pub name: String,
    pub label: String,
    #[serde(flatten)]
    pub kind: FieldKind,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FieldKind {
    /// One of `options`; when `optional`, an empty first choice leaves the field out.
    Choice {
        options: Vec<Choice>,
        optional: bool,
    },
    /// A tick box.
    Flag,
    /// A whole number from `min` to `max`, starting at `value`.
    Number { min: i64, max: i64, value: i64 },
    /// Free text (a list of ids separated by commas, a hex's name); left out when empty.
    Text { placeholder: String },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    pub value: String,
    pub label: String,
}

impl ActionForm {
    /// A form, not the turn's next step, always shown.
    pub fn new(action: &str, label: &str, hint: &str, fields: Vec<FormField>, odds: bool) -> Self {
        ActionForm {
            action: action.into(),
            label: label.into(),
            hint: hint.into(),
            fields,
            odds,
            primary: false,
            reveal: None,
        }
    }

    /// The same form as the turn's next step.
    pub fn primary(mut self) -> Self {
        self.primary = true;
        self
    }
}

impl FormField {
    pub fn choice(name: &str, label: &str, options: Vec<Choice>, optional: bool) -> Self {
        FormField {
            name: name.into(),
            label: label.into(),
            kind: FieldKind::Choice { options, optional },
        }
    }
    pub fn flag(name: &str, label: &str) -> Self {
        FormField {
            name: name.into(),
            label: label.into(),
            kind: FieldKind::Flag,
        }
    }
    pub fn text(name: &str, label: &str, placeholder: &str) -> Self {
        FormField {
            name: name.into(),
            label: label.into(),
            kind: FieldKind::Text {
                placeholder: placeholder.into(),
            },
        }
    }
    pub fn number(name: &str, label: &str, min: i64, max: i64, value: i64) -> Self {
        FormField {
            name: name.into(),
            label: label.into(),
            kind: FieldKind::Number { min, max, value },
        }
    }
}

impl Choice {
    pub fn new(value: impl Into<String>, label: impl Into<String>) -> Self {
        Choice {
            value: value.into(),
            label: label.into(),
        }
    }
}

/// Who is looking: the game master, one side's player, or a spectator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "seat", content = "side", rename_all = "kebab-case")]
pub enum Viewer {
    GameMaster,
    Side(String),
    Spectator,
}

/// One side's losses and breaking point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SideScore {
    pub side: String,
    pub lost: u32,
    pub threshold: u32,
}

pub trait RuleSet: Sync {
    fn id(&self) -> &'static str;
    fn alias(&self) -> &'static str;
    fn name(&self) -> &'static str;
    /// The seed file of the rule text.
    fn seed(&self) -> &'static str;
    fn available(&self) -> bool;
    fn troop_types(&self) -> Vec<&'static str> {
        Vec::new()
    }
    fn allowed_flags(&self, _troop: &str) -> Vec<&'static str> {
        Vec::new()
    }
    fn required_nationality(&self, _troop: &str) -> Option<&'static [&'static str]> {
        None
    }
    /// The scenario key giving a unit's size and its range: `bases` (1 to 6) for the app-driven
    /// rule sets; rule sets that count figures name `figures`.
    fn unit_size(&self) -> (&'static str, i64, i64) {
        ("bases", 1, 6)
    }
    /// Rule-set limits on a scenario's units beyond the format's own (how many veterans, blocks
    /// by type...): each problem as (unit index, field, message), reported at that unit's field.
    fn check_units(&self, _scenario: &Scenario) -> Vec<(usize, String, String)> {
        Vec::new()
    }
    /// Whether the sides' links resolve their own actions from the start (a card game, where
    /// only a side may play its hand); otherwise they watch until the game master allows more.
    fn sides_act_by_default(&self) -> bool {
        false
    }
    /// Chart entries a scenario's `[house_rules]` may override.
    fn house_rule_keys(&self) -> Vec<String> {
        Vec::new()
    }
    /// The values a house-rule key may take (both ends included).
    fn house_rule_range(&self, _key: &str) -> (i64, i64) {
        (-20, 30)
    }
    /// The charts as data, for `tercio reference`.
    fn reference(&self) -> Value {
        Value::Null
    }
    /// The charts as tables for the app's rules page, for rule sets whose page the shell draws
    /// from data (empty: the shell has its own page for them).
    fn reference_tables(&self) -> Vec<BoardTable> {
        Vec::new()
    }
    fn engine(&self, scenario: Option<&Scenario>) -> Result<Box<dyn Engine>, String>;
}

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
