//! The app-driven system of A Bloody Dismal Fight (seed 002) and El Gran Capitán (seed 000): one
//! engine, two sets of charts. Each rule set's folder holds its charts and binds them here.

pub mod action;
pub mod actions;
pub mod balance;
pub mod board;
mod end_of_turn;
mod fold;
pub mod game;
pub mod model;
pub mod reference;
pub mod resolve;
pub mod simulate;
pub mod tables;

use std::sync::{Arc, LazyLock, OnceLock};

use serde_json::{json, Value};
use tercio_core::{Plan, Resolution};

use crate::interface::scenario::Scenario;
use crate::interface::{
    ActionForm, Board, BoardTable, Engine, HouseRule, Outcome, Rejection, RuleSet, Rules,
    SideScore, Typed,
};
use action::Action;
use model::{ActionKind, Effect, GameState, Phase};
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
    /// The default charts as the engines share them, made on first use.
    pub shared: OnceLock<Arc<Charts>>,
}

/// The chart entries a house rule may override, each with its range: the modifiers and roll
/// thresholds from -20 to 30, the counts and distances (break points, inches) from 0 to 30
/// (project design: the ranges release 0.1's scenario check accepted, so every recorded game
/// replays as it was played; the engine never honoured a negative count).
const CHART_KEYS: &[(&str, i64)] = &[
    ("fire_one", -20),
    ("fire_two", -20),
    ("regroup_one", -20),
    ("regroup_two", -20),
    ("retire_success", -20),
    ("leader_risk", -20),
    ("leader_risk_destroyed", -20),
    ("bp_army_commander", 0),
    ("bp_battle_commander", 0),
    ("bp_camp", 0),
    ("bp_demoralized", 0),
];
const TROOP_KEYS: &[(&str, i64)] = &[
    ("melee_vs_foot", -20),
    ("melee_vs_mounted", -20),
    ("impact", -20),
    ("vs_fixed_positions", -20),
    ("fire_target", -20),
    ("retire", -20),
    ("break_points", 0),
    ("advance", 0),
    ("march", 0),
    ("charge_move", 0),
    ("retire_move", 0),
    ("fire_factor", -20),
    ("fire_range", 0),
];
const MOST: i64 = 30;

/// A chart entry's value by its house-rule key (`fire_one`, `troops.pike.impact`); a move the
/// troop cannot make, or fire it does not have, reads 0.
fn entry(ch: &Charts, key: &str) -> Option<i64> {
    let v = match key {
        "fire_one" => ch.fire_one,
        "fire_two" => ch.fire_two,
        "regroup_one" => ch.regroup_one,
        "regroup_two" => ch.regroup_two,
        "retire_success" => ch.retire_success,
        "leader_risk" => ch.leader_risk,
        "leader_risk_destroyed" => ch.leader_risk_destroyed,
        "bp_army_commander" => ch.bp_army_commander.into(),
        "bp_battle_commander" => ch.bp_battle_commander.into(),
        "bp_camp" => ch.bp_camp.into(),
        "bp_demoralized" => ch.bp_demoralized.into(),
        _ => {
            let (troop, entry) = key.strip_prefix("troops.")?.split_once('.')?;
            let t = ch.troops.iter().find(|t| t.id == troop)?;
            let moved = |m: Option<u8>| i32::from(m.unwrap_or(0));
            match entry {
                "melee_vs_foot" => t.melee_vs_foot,
                "melee_vs_mounted" => t.melee_vs_mounted,
                "impact" => t.impact,
                "vs_fixed_positions" => t.vs_fixed_positions,
                "fire_target" => t.fire_target,
                "retire" => t.retire,
                "break_points" => t.break_points.into(),
                "advance" => moved(t.advance),
                "march" => moved(t.march),
                "charge_move" => moved(t.charge_move),
                "retire_move" => moved(t.retire_move),
                "fire_factor" => t.fire.map_or(0, |f| f.factor),
                "fire_range" => t.fire.map_or(0, |f| f.range.into()),
                _ => return None,
            }
        }
    };
    Some(v.into())
}

/// Set a chart entry by its house-rule key; `v` is within the entry's range ([`house_rules`]),
/// so the conversions never fall back.
fn set_entry(ch: &mut Charts, key: &str, v: i64) {
    let v32 = i32::try_from(v).unwrap_or_default();
    let u8v = u8::try_from(v).unwrap_or_default();
    match key {
        "fire_one" => ch.fire_one = v32,
        "fire_two" => ch.fire_two = v32,
        "regroup_one" => ch.regroup_one = v32,
        "regroup_two" => ch.regroup_two = v32,
        "retire_success" => ch.retire_success = v32,
        "leader_risk" => ch.leader_risk = v32,
        "leader_risk_destroyed" => ch.leader_risk_destroyed = v32,
        "bp_army_commander" => ch.bp_army_commander = u8v,
        "bp_battle_commander" => ch.bp_battle_commander = u8v,
        "bp_camp" => ch.bp_camp = u8v,
        "bp_demoralized" => ch.bp_demoralized = u8v,
        _ => {
            let Some((troop, entry)) = key.strip_prefix("troops.").and_then(|k| k.split_once('.'))
            else {
                return;
            };
            let Some(t) = ch.troops.iter_mut().find(|t| t.id == troop) else {
                return;
            };
            match entry {
                "melee_vs_foot" => t.melee_vs_foot = v32,
                "melee_vs_mounted" => t.melee_vs_mounted = v32,
                "impact" => t.impact = v32,
                "vs_fixed_positions" => t.vs_fixed_positions = v32,
                "fire_target" => t.fire_target = v32,
                "retire" => t.retire = v32,
                "break_points" => t.break_points = u8v,
                "advance" => t.advance = Some(u8v),
                "march" => t.march = Some(u8v),
                "charge_move" => t.charge_move = Some(u8v),
                "retire_move" => t.retire_move = Some(u8v),
                "fire_factor" => {
                    if let Some(f) = t.fire.as_mut() {
                        f.factor = v32;
                    }
                }
                "fire_range" => {
                    if let Some(f) = t.fire.as_mut() {
                        f.range = u8v;
                    }
                }
                _ => {}
            }
        }
    }
}

/// The house rules of a set of charts: every entry of [`CHART_KEYS`] and, per troop type, of
/// [`TROOP_KEYS`], its default the designed chart's value, its source the section of the design
/// document (`camps` the section on camps and break points: 4.13, or 4.14 in El Gran Capitán).
fn house_rules(ch: &Charts, camps: &'static str) -> Vec<HouseRule> {
    let row = |key: String, min: i64| {
        let source = match key.as_str() {
            k if k.starts_with("troops.") => "§2.2, §3",
            "fire_one" | "fire_two" => "§4.6",
            "regroup_one" | "regroup_two" => "§4.9",
            "retire_success" => "§4.10",
            "leader_risk" | "leader_risk_destroyed" => "§4.11",
            _ => camps,
        };
        HouseRule {
            default: entry(ch, &key).unwrap_or_default(),
            key: key.into(),
            min,
            max: MOST,
            flag: false,
            source: source.into(),
        }
    };
    let mut rows: Vec<HouseRule> = CHART_KEYS
        .iter()
        .map(|&(k, min)| row(k.to_string(), min))
        .collect();
    for t in &ch.troops {
        for &(k, min) in TROOP_KEYS {
            rows.push(row(format!("troops.{}.{k}", t.id), min));
        }
    }
    rows
}

/// The charts with a scenario's house rules applied, each value read by its row (a recorded
/// scenario's key that is no longer a house rule changes nothing, as before).
fn apply_house_rules(
    base: &Charts,
    camps: &'static str,
    set: &std::collections::BTreeMap<String, i64>,
) -> Charts {
    let rows = house_rules(base, camps);
    let mut ch = base.clone();
    for (k, &v) in set {
        if let Some(row) = rows.iter().find(|r| r.key == k.as_str()) {
            set_entry(&mut ch, k, row.read(v));
        }
    }
    ch
}

impl AppDriven {
    /// The design document's section on camps and break points.
    fn camps_section(&self) -> &'static str {
        if self.egc {
            "§4.14"
        } else {
            "§4.13"
        }
    }
}

impl RuleSet for AppDriven {
    fn id(&self) -> &'static str {
        self.id
    }
    /// A Bloody Dismal Fight's version 2 combines planted stakes with the ground (its design
    /// document, section 8); El Gran Capitán has no stakes. Version 3 of A Bloody Dismal Fight and
    /// 2 of El Gran Capitán record every text as a language-neutral message (section 8 of each).
    fn rules_version(&self) -> u32 {
        if self.egc {
            2
        } else {
            3
        }
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
    /// The troop type's flags, and for every type a scenario's arrivals and departures:
    /// `arrives-N` (on the table from turn N) and `leaves-N` (leaves, uncounted, at the start of
    /// turn N), N from 2 to 30 (issue 17, item 12).
    fn allowed_flags(&self, troop: &str) -> Vec<&'static str> {
        static TURN_FLAGS: std::sync::LazyLock<Vec<&'static str>> =
            std::sync::LazyLock::new(|| {
                ["arrives", "leaves"]
                    .iter()
                    .flat_map(|f| (2..=30).map(move |n| &*format!("{f}-{n}").leak()))
                    .collect()
            });
        self.charts
            .troop(troop)
            .map(|t| {
                t.flags
                    .iter()
                    .copied()
                    .chain(TURN_FLAGS.iter().copied())
                    .collect()
            })
            .unwrap_or_default()
    }
    fn required_nationality(&self, troop: &str) -> Option<&'static [&'static str]> {
        self.nationalities
            .iter()
            .find(|(t, _)| *t == troop)
            .map(|(_, n)| *n)
    }
    fn house_rules(&self) -> Vec<HouseRule> {
        house_rules(self.charts, self.camps_section())
    }
    fn reference(&self) -> Value {
        json!({
            "ruleset": self.id,
            "seed": self.seed,
            "charts": &**self.charts,
            "ground": model::Ground::ALL,
            "melee_chart": "each side D6 + modifiers; difference 0: both lose 1 level; 1: loser 1; 2-3: loser 2; 4+: loser 3",
            "house_rules": house_rules(self.charts, self.camps_section()),
        })
    }
    fn reference_tables(&self) -> Vec<BoardTable> {
        reference::tables(self.charts)
    }
    fn balance(&self) -> Option<Box<dyn crate::interface::balance::Balance>> {
        Some(Box::new(balance::AppBalance {
            charts: self
                .shared
                .get_or_init(|| Arc::new((*self.charts).clone()))
                .clone(),
            egc: self.egc,
            nationalities: self.nationalities,
        }))
    }
    fn simulator(&self) -> Option<Box<dyn crate::interface::simulate::Simulator>> {
        let base: &'static LazyLock<Charts> = self.charts;
        let camps = self.camps_section();
        let shared = self
            .shared
            .get_or_init(|| Arc::new((*self.charts).clone()))
            .clone();
        Some(Box::new(simulate::AppSimulator {
            charts: Box::new(move |sc: &Scenario| {
                if sc.house_rules.is_empty() {
                    shared.clone()
                } else {
                    Arc::new(apply_house_rules(base, camps, &sc.house_rules))
                }
            }),
            egc: self.egc,
        }))
    }
    fn engine(&self, scenario: Option<&Scenario>) -> Result<Box<dyn Engine>, String> {
        // House rules give the game its own charts, owned by its engine and dropped with it.
        let charts = match scenario {
            Some(sc) if !sc.house_rules.is_empty() => Arc::new(apply_house_rules(
                self.charts,
                self.camps_section(),
                &sc.house_rules,
            )),
            _ => self
                .shared
                .get_or_init(|| Arc::new((*self.charts).clone()))
                .clone(),
        };
        Ok(Box::new(Typed(AppEngine {
            charts,
            egc: self.egc,
            scenario: scenario.cloned(),
        })))
    }
}

/// The engine of one game (or of stand-alone actions): its charts and special rules.
pub struct AppEngine {
    pub charts: Arc<Charts>,
    pub egc: bool,
    pub scenario: Option<Scenario>,
}

fn finish(action: ActionKind, acc: Acc) -> Outcome<Vec<Effect>> {
    let summary = if acc.summary.is_empty() {
        "Done".to_string()
    } else {
        acc.summary.join(". ")
    };
    let title = serde_json::to_value(action)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    Outcome {
        resolution: Resolution {
            action: title,
            summary,
            steps: acc.steps,
        },
        effects: acc.effects,
        facets: acc.facets,
    }
}

impl Rules for AppEngine {
    /// A charge is decided by its contact and its melee's result, not by the defensive fire on
    /// the way in; a fire by what it does to each target.
    const HEADLINE_FACETS: &'static [&'static str] = &[
        tercio_i18n::keys::APP_DRIVEN_FACET_CHARGE,
        tercio_i18n::keys::APP_DRIVEN_FACET_MELEE,
        tercio_i18n::keys::APP_DRIVEN_FACET_FIRE,
        tercio_i18n::keys::APP_DRIVEN_FACET_FIRE_AT,
        tercio_i18n::keys::APP_DRIVEN_FACET_LEVELS_LOST,
        tercio_i18n::keys::APP_DRIVEN_FACET_REGROUP,
        tercio_i18n::keys::APP_DRIVEN_FACET_RETIRE,
        tercio_i18n::keys::APP_DRIVEN_FACET_INITIATIVE,
        tercio_i18n::keys::APP_DRIVEN_FACET_ACTIVATIONS,
    ];
    const LOSS_FACETS: &'static [&'static str] = &[
        tercio_i18n::keys::APP_DRIVEN_FACET_ACTOR_LEVELS,
        tercio_i18n::keys::APP_DRIVEN_FACET_TARGET_LEVELS,
        tercio_i18n::keys::APP_DRIVEN_FACET_LEVELS_LOST,
    ];
    const ACTION_TITLES: Option<&'static str> = Some("app_driven.action.");
    /// `phase` is `over` exactly when the battle is.
    const OVER_AT_PHASE: bool = true;
    type State = GameState;
    type Action = Action;
    type Effect = Vec<Effect>;
    /// Stand-alone, the same fields describe both units (the app's single resolutions).
    type Request = Action;

    fn initial_state(&self) -> Result<GameState, String> {
        let sc = self.scenario.as_ref().ok_or("no scenario")?;
        Ok(game::initial_state(sc))
    }

    /// An action touches a few units and leaders; the others are passed over whole.
    fn same_parts<'s>(&self, before: &GameState, after: &'s GameState) -> crate::Same<'s> {
        crate::Same::default()
            .entries("units", &before.units, &after.units)
            .entries("leaders", &before.leaders, &after.leaders)
    }

    fn plan(
        &self,
        st: &GameState,
        action: &Action,
    ) -> Result<Plan<Outcome<Vec<Effect>>>, Rejection> {
        let req = action.request();
        let kind = req.action;
        // The end-of-turn form's fields are checked as a whole, and a refusal of a fire made
        // from them names the form's field, not `fires[i]`.
        let end_fire = match action {
            Action::EndFire(e) => Some(e),
            _ => None,
        };
        if let Some(e) = end_fire {
            end_of_turn::check_form(&e.form, st)?;
        }
        let plan = game::plan(&self.charts, self.egc, st, &req).map_err(|mut r| {
            if let Some(f) = end_fire.and_then(|e| e.form_field(r.field.as_deref()?)) {
                r.field = Some(f);
            }
            r
        })?;
        Ok(plan.map(move |acc| finish(kind, acc)))
    }

    fn standalone(&self, action: &Action) -> Result<Plan<Outcome<Vec<Effect>>>, Rejection> {
        let req = action.request();
        let kind = req.action;
        let ctx = actions::Ctx {
            ch: &self.charts,
            egc: self.egc,
            state: None,
        };
        Ok(actions::plan(&ctx, &req)?.map(move |acc| finish(kind, acc)))
    }

    fn preview(
        &self,
        st: &GameState,
        action: &Action,
    ) -> Result<Plan<Outcome<Vec<Effect>>>, Rejection> {
        let req = action.request();
        let kind = req.action;
        if !kind.uses_unit() {
            return self.plan(st, action);
        }
        // Only the action's own rules: not whose activation it is.
        let ctx = actions::Ctx {
            ch: &self.charts,
            egc: self.egc,
            state: Some(st),
        };
        Ok(actions::plan(&ctx, &req)?.map(move |acc| finish(kind, acc)))
    }

    /// The simultaneous fire, target by target: each target's losses come from the fires at it
    /// alone (issue 17, item 9).
    fn odds_parts(&self, _st: &GameState, action: &Action) -> Vec<Action> {
        let Action::EndFire(end) = action else {
            return Vec::new();
        };
        let target = |f: &Action| match f {
            Action::Fire(f) => match &f.target {
                Some(model::UnitRef::Id(id)) => Some(id.clone()),
                _ => None,
            },
            _ => None,
        };
        let mut targets: Vec<String> = end.fires.iter().filter_map(target).collect();
        targets.sort();
        targets.dedup();
        if targets.len() < 2 || end.fires.iter().any(|f| target(f).is_none()) {
            return Vec::new();
        }
        targets
            .iter()
            .map(|t| {
                Action::EndFire(action::EndFire {
                    fires: end
                        .fires
                        .iter()
                        .filter(|f| target(f).as_ref() == Some(t))
                        .cloned()
                        .collect(),
                    swiss_without_targets: end.swiss_without_targets.clone(),
                    // Checked as a whole in every part; each fire keeps its form field.
                    form: end.form.clone(),
                })
            })
            .collect()
    }

    fn apply(&self, state: &mut GameState, effects: &Vec<Effect>) -> Result<(), String> {
        for e in effects {
            game::apply_effect(state, e);
        }
        Ok(())
    }

    fn is_over(&self, state: &GameState) -> bool {
        state.phase == Phase::Over
    }

    fn board(&self, state: &GameState) -> Option<Board> {
        Some(board::board(self, state))
    }

    fn forms(&self, state: &GameState, side: Option<&str>) -> Vec<ActionForm> {
        board::forms(self, state, side)
    }

    fn render_state(&self, state: &GameState) -> String {
        game::render(&self.charts, state)
    }

    fn acting_side(&self, state: &GameState, action: &Action) -> Option<String> {
        match action.kind() {
            // Turn steps belong to the game master.
            ActionKind::Initiative
            | ActionKind::EndInitiatives
            | ActionKind::EndFire
            | ActionKind::EndTurn
            | ActionKind::Remove => None,
            ActionKind::Command | ActionKind::Attach | ActionKind::AssignCommand => {
                state.leader(action.leader()?).map(|l| l.side.clone())
            }
            _ => state.unit(action.actor()?).map(|u| u.side.clone()),
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
            "supporting_target_units",
            "target_in_flank",
            "target_evades",
            "contact_after_evade",
            "defensive_firing_bases",
        ]
    }

    fn scores(&self, st: &GameState) -> Vec<SideScore> {
        st.sides
            .iter()
            .map(|s| {
                let (lost, threshold) = game::break_points(&self.charts, st, &s.id);
                SideScore {
                    side: s.id.clone(),
                    lost,
                    threshold,
                }
            })
            .collect()
    }

    fn verdict(&self, state: &GameState) -> Option<String> {
        board::verdict(state)
    }
}
