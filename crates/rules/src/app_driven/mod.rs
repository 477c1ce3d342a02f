//! The app-driven system of A Bloody Dismal Fight (seed 002) and El Gran Capitán (seed 000): one
//! engine, two sets of charts. Each rule set's folder holds its charts and binds them here.

pub mod actions;
pub mod autoplay;
pub mod game;
pub mod model;
pub mod resolve;
pub mod tables;

use std::sync::LazyLock;

use serde_json::{json, Value};
use tercio_core::{Plan, Resolution};

use crate::interface::{Engine, Outcome, Rejection, RuleSet, SideScore};
use crate::scenario::Scenario;
use model::{ActionRequest, GameState};
use resolve::Acc;
use tables::Charts;

/// One app-driven rule set: its identity and its default charts.
pub struct AppDriven {
    pub id: &'static str,
    pub alias: &'static str,
    pub name: &'static str,
    pub seed: &'static str,
    pub charts: &'static LazyLock<Charts>,
    /// El Gran Capitán's special rules (Bad War, Ferocious Swiss Charges).
    pub egc: bool,
    pub nationalities: &'static [(&'static str, &'static [&'static str])],
}

/// The integer chart entries a house rule may override.
const CHART_KEYS: &[&str] = &[
    "fire_one",
    "fire_two",
    "regroup_one",
    "regroup_two",
    "retire_success",
    "leader_risk",
    "leader_risk_destroyed",
    "bp_army_commander",
    "bp_battle_commander",
    "bp_camp",
    "bp_demoralized",
];
const TROOP_KEYS: &[&str] = &[
    "melee_vs_foot",
    "melee_vs_mounted",
    "impact",
    "vs_fixed_positions",
    "fire_target",
    "retire",
    "break_points",
    "advance",
    "march",
    "charge_move",
    "retire_move",
    "fire_factor",
    "fire_range",
];

fn apply_house_rules(base: &Charts, rules: &std::collections::BTreeMap<String, i64>) -> Charts {
    let mut ch = base.clone();
    let u8of = |v: i64| u8::try_from(v.max(0)).unwrap_or(u8::MAX);
    for (k, &v) in rules {
        let v32 = i32::try_from(v).unwrap_or(0);
        match k.as_str() {
            "fire_one" => ch.fire_one = v32,
            "fire_two" => ch.fire_two = v32,
            "regroup_one" => ch.regroup_one = v32,
            "regroup_two" => ch.regroup_two = v32,
            "retire_success" => ch.retire_success = v32,
            "leader_risk" => ch.leader_risk = v32,
            "leader_risk_destroyed" => ch.leader_risk_destroyed = v32,
            "bp_army_commander" => ch.bp_army_commander = u8of(v),
            "bp_battle_commander" => ch.bp_battle_commander = u8of(v),
            "bp_camp" => ch.bp_camp = u8of(v),
            "bp_demoralized" => ch.bp_demoralized = u8of(v),
            _ => {
                let parts: Vec<&str> = k.split('.').collect();
                if let ["troops", troop, entry] = parts[..] {
                    if let Some(t) = ch.troops.iter_mut().find(|t| t.id == troop) {
                        match entry {
                            "melee_vs_foot" => t.melee_vs_foot = v32,
                            "melee_vs_mounted" => t.melee_vs_mounted = v32,
                            "impact" => t.impact = v32,
                            "vs_fixed_positions" => t.vs_fixed_positions = v32,
                            "fire_target" => t.fire_target = v32,
                            "retire" => t.retire = v32,
                            "break_points" => t.break_points = u8of(v),
                            "advance" => t.advance = Some(u8of(v)),
                            "march" => t.march = Some(u8of(v)),
                            "charge_move" => t.charge_move = Some(u8of(v)),
                            "retire_move" => t.retire_move = Some(u8of(v)),
                            "fire_factor" => {
                                if let Some(f) = t.fire.as_mut() {
                                    f.factor = v32;
                                }
                            }
                            "fire_range" => {
                                if let Some(f) = t.fire.as_mut() {
                                    f.range = u8of(v);
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    ch
}

type HouseRules = std::collections::BTreeMap<String, i64>;

/// Charts with house rules applied, made once per distinct set of house rules and kept for the
/// life of the process (engines hand `&'static Charts` to their dice plans).
fn interned(id: &'static str, base: &Charts, rules: &HouseRules) -> &'static Charts {
    static CACHE: std::sync::Mutex<Vec<(&'static str, HouseRules, &'static Charts)>> =
        std::sync::Mutex::new(Vec::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, c)) = cache.iter().find(|(i, r, _)| *i == id && r == rules) {
        return c;
    }
    let c: &'static Charts = Box::leak(Box::new(apply_house_rules(base, rules)));
    cache.push((id, rules.clone(), c));
    c
}

impl RuleSet for AppDriven {
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
        true
    }
    fn troop_types(&self) -> Vec<&'static str> {
        self.charts.troop_ids()
    }
    fn allowed_flags(&self, troop: &str) -> Vec<&'static str> {
        self.charts
            .troop(troop)
            .map(|t| t.flags.to_vec())
            .unwrap_or_default()
    }
    fn required_nationality(&self, troop: &str) -> Option<&'static [&'static str]> {
        self.nationalities
            .iter()
            .find(|(t, _)| *t == troop)
            .map(|(_, n)| *n)
    }
    fn house_rule_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = CHART_KEYS.iter().map(|s| s.to_string()).collect();
        for t in &self.charts.troops {
            for k in TROOP_KEYS {
                keys.push(format!("troops.{}.{k}", t.id));
            }
        }
        keys
    }
    fn reference(&self) -> Value {
        json!({
            "ruleset": self.id,
            "seed": self.seed,
            "charts": &**self.charts,
            "ground": model::Ground::ALL,
            "melee_chart": "each side D6 + modifiers; difference 0: both lose 1 level; 1: loser 1; 2-3: loser 2; 4+: loser 3",
        })
    }
    fn engine(&self, scenario: Option<&Scenario>) -> Result<Box<dyn Engine>, String> {
        let charts: &'static Charts = match scenario {
            Some(sc) if !sc.house_rules.is_empty() => {
                interned(self.id, self.charts, &sc.house_rules)
            }
            _ => self.charts,
        };
        Ok(Box::new(AppEngine {
            charts,
            egc: self.egc,
            scenario: scenario.cloned(),
        }))
    }
}

pub struct AppEngine {
    pub charts: &'static Charts,
    pub egc: bool,
    pub scenario: Option<Scenario>,
}

fn finish(action: &str, acc: Acc) -> Outcome {
    let summary = if acc.summary.is_empty() {
        "Done".to_string()
    } else {
        acc.summary.join(". ")
    };
    Outcome {
        resolution: Resolution {
            action: action.to_string(),
            summary,
            steps: acc.steps,
        },
        effects: serde_json::to_value(&acc.effects).unwrap_or(Value::Null),
        facets: acc.facets,
    }
}

/// Read an action, naming the field at fault ("ground", "fires[0].actor", an unknown key...).
fn parse_request(v: &Value) -> Result<ActionRequest, Rejection> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.inner().to_string();
        let named = |prefix: &str| {
            inner
                .split(prefix)
                .nth(1)
                .and_then(|r| r.split('`').next())
                .map(str::to_string)
        };
        let field = if let Some(f) = named("missing field `") {
            Some(if path == "." {
                f
            } else {
                format!("{path}.{f}")
            })
        } else if let (Some(f), ".") = (named("unknown field `"), path.as_str()) {
            Some(f)
        } else if path == "." {
            None
        } else {
            Some(path)
        };
        let mut r = Rejection::new("bad-action", None, inner);
        r.field = field;
        r
    })
}

fn action_title(req: &ActionRequest) -> String {
    let kind = serde_json::to_value(req.action)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    kind
}

impl Engine for AppEngine {
    fn initial_state(&self) -> Result<Value, String> {
        let sc = self.scenario.as_ref().ok_or("no scenario")?;
        serde_json::to_value(game::initial_state(sc)).map_err(|e| e.to_string())
    }

    fn plan(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection> {
        let req = parse_request(action)?;
        let title = action_title(&req);
        let plan = match state {
            Some(v) => {
                let st: GameState = serde::Deserialize::deserialize(v)
                    .map_err(|e| Rejection::new("bad-state", None, e.to_string()))?;
                game::plan(self.charts, self.egc, &st, &req)?
            }
            None => {
                let ctx = actions::Ctx {
                    ch: self.charts,
                    egc: self.egc,
                    state: None,
                };
                actions::plan(&ctx, &req)?
            }
        };
        Ok(plan.map(move |acc| finish(&title, acc)))
    }

    fn preview(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection> {
        let req = parse_request(action)?;
        let Some(v) = state else {
            return self.plan(None, action);
        };
        if !req.action.uses_unit() {
            return self.plan(state, action);
        }
        let st: GameState = serde::Deserialize::deserialize(v)
            .map_err(|e| Rejection::new("bad-state", None, e.to_string()))?;
        let title = action_title(&req);
        let ctx = actions::Ctx {
            ch: self.charts,
            egc: self.egc,
            state: Some(&st),
        };
        Ok(actions::plan(&ctx, &req)?.map(move |acc| finish(&title, acc)))
    }

    fn apply(&self, state: &mut Value, effects: &Value) -> Result<(), String> {
        *state = self.folded(state, effects)?;
        Ok(())
    }

    fn folded(&self, state: &Value, effects: &Value) -> Result<Value, String> {
        let mut st: GameState =
            serde::Deserialize::deserialize(state).map_err(|e| e.to_string())?;
        let effects: Vec<model::Effect> =
            serde::Deserialize::deserialize(effects).map_err(|e| e.to_string())?;
        for e in &effects {
            game::apply_effect(&mut st, e);
        }
        serde_json::to_value(st).map_err(|e| e.to_string())
    }

    fn render_state(&self, state: &Value) -> String {
        match serde_json::from_value::<GameState>(state.clone()) {
            Ok(st) => game::render(self.charts, &st),
            Err(e) => format!("unreadable state: {e}"),
        }
    }

    fn acting_side(&self, state: &Value, action: &Value) -> Option<String> {
        let side_of = |kind: &str, key: &str| -> Option<String> {
            let id = action.get(key)?.as_str()?;
            state[kind][id]["side"].as_str().map(str::to_string)
        };
        match action["action"].as_str()? {
            // Turn steps belong to the game master.
            "initiative" | "end-initiatives" | "end-fire" | "end-turn" => None,
            "command" | "attach" | "assign-command" => side_of("leaders", "leader"),
            _ => side_of("units", "actor"),
        }
    }

    fn reserved_to_game_master(&self) -> &'static [&'static str] {
        // The opponent's decisions (evading, its supports, its defensive fire), what the table
        // shows of the target (its flank), and overrides of the tracked state and force ratio.
        &[
            "actor_status",
            "target_status",
            "force",
            "supporting_target_bases",
            "target_in_flank",
            "target_evades",
            "contact_after_evade",
            "defensive_firing_bases",
        ]
    }

    fn scores(&self, state: &Value) -> Vec<SideScore> {
        let Ok(st) = serde_json::from_value::<GameState>(state.clone()) else {
            return Vec::new();
        };
        st.sides
            .iter()
            .map(|s| {
                let (lost, threshold) = game::break_points(self.charts, &st, &s.id);
                SideScore {
                    side: s.id.clone(),
                    lost,
                    threshold,
                }
            })
            .collect()
    }
}
