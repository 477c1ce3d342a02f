//! Automatic players that play a rule set through what its seats are offered: the forms each
//! side's link shows ([`super::Engine::seat_forms`], drawn from that side's own view of the game,
//! [`super::Engine::view_state`]), filled and sent as a player's phone sends them, planned,
//! rolled and folded by the rule set's own engine. A hidden hand stays hidden: a player knows
//! its cards because its forms offer them, and nothing else of the state. For the rule sets with
//! card decks, hands and questions (a [`Simulator`] through [`FormSimulator`]).
//!
//! Project design, written down in each rule set's document (section "Simulated battles"):
//! - **Who moves.** A form a side is offered as the turn's next step (a card to play, an answer
//!   to give) is taken at once by that side's player. Otherwise each side's player takes the
//!   actions its policy weighs (the rule set's [`Tactics`]), at most [`Tactics::per_step`] of
//!   them between two steps of the turn; when neither side takes one, the game master takes
//!   the turn's next step (a card drawn, the turn ended), or the side ends its turn
//!   ([`Tactics::way_on`]).
//! - **Filling a form.** A choice that says what acts, or that the action needs, is picked by
//!   the side's policy among the choices the form does not refuse; an optional choice, a tick
//!   box, a number and free text keep what the form starts with: Tercio keeps no table, so the
//!   players declare no terrain, cover, room or range beyond the forms' defaults, and make none
//!   of the table's own reports (a panic test for friends seen fleeing, an obstacle, an officer
//!   attached). A question the rules ask (does the target evade? which mode?) is answered by
//!   trying its choices in the order of the asker's stream.
//! - **Limits** (project design, so that a battle always moves on): a side's player tries at
//!   most 8 of its forms before the turn's way on is taken, a refusal's field at most 12 values
//!   (a number field its first 8), and a turn of more than 1,000 actions is an error (a player
//!   that never ends it), which the tests would catch.
//! - **Losses by troop type** are the strength (bases, figures, blocks) each unit of the
//!   scenario loses, put down to the troop type of the last unit of the other side that acted.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};
use tercio_core::DiceStream;
use tercio_i18n::keys;

use super::balance::Named;
use super::scenario::Scenario;
use super::simulate::{judge, Battle, Ending, Policy, Simulator, TroopLosses};
use super::{ActionForm, Engine, FieldKind, Viewer};

/// How a rule set's automatic players weigh the actions their forms offer (project design,
/// in the rule set's document).
pub struct Tactics {
    /// Each action a side's player may take of its own accord, with its stage and its weight
    /// for `aggressive`, `cautious` and `random`. A player takes the actions of the earliest
    /// stage it is offered first (Commands & Colors: every order, then every move, then the
    /// combats), choosing among them by weight. An action not listed (a report the table
    /// makes) is never taken unasked.
    pub weights: &'static [(&'static str, u8, [u32; 3])],
    /// Side actions that move the turn on (the end of a side's turn) when no form is the turn's
    /// next step.
    pub way_on: &'static [&'static str],
    /// The most actions a side's player takes between two steps of the turn.
    pub per_step: u32,
    /// The turn after which a battle stops unless told ([`Simulator::turn_limit`]).
    pub turn_limit: u32,
}

/// What a rule set tells its automatic players beyond its forms: how to weigh them, and how to
/// count what each unit has left and who has lost.
pub trait Muster: Send + Sync {
    fn tactics(&self) -> &'static Tactics;
    /// Each unit's strength left (bases, figures, blocks; 0 once it is gone), by id.
    fn strengths(&self, state: &Value) -> Vec<(String, u32)>;
    /// The sides that lost, once the rules say the battle is over (both: a draw). Empty: the
    /// rules' own end came without a loser (their turn limit).
    fn losers(&self, state: &Value) -> Vec<String>;
}

/// The sides that lost to side `winner` (an index into `sides`): every other one; none while
/// there is no winner. For a [`Muster::losers`] whose rules name the winner.
pub fn all_but_winner<'a>(
    sides: impl IntoIterator<Item = &'a str>,
    winner: Option<usize>,
) -> Vec<String> {
    let Some(w) = winner else {
        return Vec::new();
    };
    sides
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i != w)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// A [`Simulator`] for any rule set, through its seats' forms.
pub struct FormSimulator<M: Muster> {
    /// The rule set whose engine plays.
    pub rules: &'static dyn super::RuleSet,
    pub muster: M,
}

/// The stage of `action` and its weight under `policy` (none: not taken unasked).
fn weight(t: &Tactics, action: &str, policy: Policy) -> (u8, u32) {
    t.weights
        .iter()
        .find(|(a, _, _)| *a == action)
        .map_or((0, 0), |(_, stage, w)| (*stage, w[policy as usize]))
}

/// A number below `n` from `s` (0 when there is one choice or none).
fn below(s: &mut DiceStream, n: usize) -> usize {
    if n <= 1 {
        0
    } else {
        s.below(n as u32) as usize
    }
}

/// The catalogue key of a message (`⟦key|…⟧`), or the text itself.
pub(crate) fn key_of(text: &str) -> String {
    text.strip_prefix(tercio_i18n::OPEN)
        .and_then(|m| m.split([tercio_i18n::CLOSE, '|']).next())
        .unwrap_or(text)
        .to_string()
}

/// The choices of a field the form does not refuse (all of them when it refuses each).
fn open_choices(f: &super::FormField) -> Vec<String> {
    match &f.kind {
        FieldKind::Choice { options, .. } => {
            let ok: Vec<String> = options
                .iter()
                .filter(|o| o.refused.is_none())
                .map(|o| o.value.clone())
                .collect();
            if ok.is_empty() {
                options.iter().map(|o| o.value.clone()).collect()
            } else {
                ok
            }
        }
        _ => Vec::new(),
    }
}

/// The action `form` describes, its required choices picked from `s` (what acts never one of
/// `done`), everything else as the form starts it.
fn fill(form: &ActionForm, s: &mut DiceStream, done: &BTreeSet<String>) -> Value {
    let mut a = Map::new();
    a.insert("action".into(), json!(form.action));
    for (k, v) in &form.fixed {
        a.insert(k.clone(), v.clone());
    }
    for f in &form.fields {
        match &f.kind {
            FieldKind::Choice { optional, .. } if !*optional || f.resets => {
                let mut c = open_choices(f);
                if f.resets {
                    c.retain(|v| !done.contains(v));
                }
                if !c.is_empty() {
                    let i = below(s, c.len());
                    a.insert(f.name.clone(), json!(c[i]));
                }
            }
            FieldKind::Number { value, .. } => {
                a.insert(f.name.clone(), json!(value));
            }
            _ => {}
        }
    }
    Value::Object(a)
}

/// The actions of `forms`, a refused one marked, for an error.
fn names(forms: &[ActionForm]) -> String {
    let n: Vec<String> = forms
        .iter()
        .map(|f| {
            let mark = if f.refused.is_some() {
                " (refused)"
            } else {
                ""
            };
            format!("{}{mark}", f.action)
        })
        .collect();
    if n.is_empty() {
        "nothing".into()
    } else {
        n.join(", ")
    }
}

/// One battle being played.
struct Play<'a> {
    engine: Box<dyn Engine>,
    muster: &'a dyn Muster,
    state: Value,
    dice: DiceStream,
    /// Each side's own stream of choices, and the game master's: never the dice's.
    choice: Vec<DiceStream>,
    table: DiceStream,
    sides: Vec<String>,
    policies: Vec<Policy>,
    troops: BTreeMap<String, (String, String)>,
    strength: BTreeMap<String, u32>,
    /// Each side's last unit to act, by side index.
    last_actor: Vec<Option<String>>,
    actions: u32,
    usage: BTreeMap<String, u32>,
    actions_taken: BTreeMap<String, u32>,
    losses: BTreeMap<(String, String), TroopLosses>,
    lost_by_turn: Vec<Vec<u32>>,
    log: Option<Vec<Value>>,
    /// The last refusal, for an error.
    refused: Option<String>,
    /// What has acted since the turn last moved on, by action: each unit takes each action
    /// once a step (a leader does not walk the table one hex at a time).
    done: BTreeMap<String, BTreeSet<String>>,
}

impl Play<'_> {
    fn turn(&self) -> u32 {
        self.state["turn"]
            .as_u64()
            .map_or(0, |t| u32::try_from(t).unwrap_or(u32::MAX))
    }

    fn entry(&mut self, side: &str, troop: &str) -> &mut TroopLosses {
        self.losses
            .entry((side.to_string(), troop.to_string()))
            .or_insert_with(|| TroopLosses {
                side: side.to_string(),
                troop: troop.to_string(),
                ..TroopLosses::default()
            })
    }

    /// Plan `action`; if the rules allow it, roll it, fold it and count it. The refusal
    /// otherwise.
    fn act(
        &mut self,
        action: Value,
        form: &ActionForm,
        side: Option<usize>,
    ) -> Result<(), super::Rejection> {
        let plan = self
            .engine
            .plan(Some(&self.state), &action)
            .inspect_err(|r| {
                self.refused = Some(format!("{action}: {r}"));
            })?;
        let (out, _) = plan.roll(&mut self.dice);
        self.engine
            .apply(&mut self.state, &out.effects)
            .map_err(|e| super::Rejection::new("fold", None, e))?;
        self.actions += 1;
        *self.actions_taken.entry(key_of(&form.label)).or_insert(0) += 1;
        for s in &out.resolution.steps {
            *self.usage.entry(key_of(&s.title)).or_insert(0) += 1;
        }
        // What acted, for the losses it inflicts.
        if let (Some(i), Some(f)) = (side, form.actor_field()) {
            if let Some(id) = action.get(&f.name).and_then(Value::as_str) {
                self.done
                    .entry(form.action.clone())
                    .or_default()
                    .insert(id.to_string());
                if self.troops.contains_key(id) {
                    self.last_actor[i] = Some(id.to_string());
                }
            }
        }
        let now: BTreeMap<String, u32> = self.muster.strengths(&self.state).into_iter().collect();
        for (id, left) in &now {
            let before = self.strength.get(id).copied().unwrap_or(*left);
            if *left >= before {
                continue;
            }
            let Some((side, troop)) = self.troops.get(id).cloned() else {
                continue;
            };
            let lost = before - left;
            let e = self.entry(&side, &troop);
            e.lost += lost;
            if *left == 0 {
                e.destroyed += 1;
            }
            let by = self
                .sides
                .iter()
                .position(|s| *s != side)
                .and_then(|o| self.last_actor[o].clone())
                .and_then(|a| self.troops.get(&a).cloned());
            if let Some((bs, bt)) = by {
                self.entry(&bs, &bt).inflicted += lost;
            }
        }
        self.strength = now;
        if let Some(log) = &mut self.log {
            log.push(action);
        }
        Ok(())
    }

    /// Send `form` filled by `side`'s player (the game master's: `None`). A refusal that
    /// names a field of the form (a question the rules ask, a range the table must give) is
    /// answered by trying that field's other values, in the order of the player's stream.
    fn send(&mut self, form: &ActionForm, side: Option<usize>) -> bool {
        let done = self.done.get(&form.action).cloned().unwrap_or_default();
        let mut action = fill(form, self.stream(side), &done);
        let mut untried: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for _ in 0..12 {
            let r = match self.act(action.clone(), form, side) {
                Ok(()) => return true,
                Err(r) => r,
            };
            let Some(field) = r
                .field
                .as_deref()
                .and_then(|n| form.fields.iter().find(|f| f.name == n))
            else {
                return false;
            };
            let left = untried.entry(field.name.clone()).or_insert_with(|| {
                let now = action.get(&field.name).cloned();
                let all: Vec<Value> = match &field.kind {
                    FieldKind::Choice { options, .. } => {
                        options.iter().map(|o| json!(o.value)).collect()
                    }
                    FieldKind::Choices { options } => {
                        options.iter().map(|o| json!([o.value])).collect()
                    }
                    FieldKind::Flag => vec![json!(true)],
                    FieldKind::Number { min, max, .. } => {
                        (*min..=*max).take(8).map(|n| json!(n)).collect()
                    }
                    FieldKind::Text { .. } => Vec::new(),
                };
                all.into_iter()
                    .filter(|v| Some(v) != now.as_ref())
                    .collect()
            });
            if left.is_empty() {
                return false;
            }
            let n = left.len();
            let pick = below(self.stream(side), n);
            let answer = untried
                .get_mut(&field.name)
                .map(|l| l.remove(pick))
                .unwrap_or(Value::Null);
            action[field.name.as_str()] = answer;
        }
        false
    }

    /// The stream `side`'s player chooses with (the game master's: `None`).
    fn stream(&mut self, side: Option<usize>) -> &mut DiceStream {
        match side {
            Some(i) => &mut self.choice[i],
            None => &mut self.table,
        }
    }

    /// Each side's forms, from its own view.
    fn seat_forms(&self) -> Vec<Vec<ActionForm>> {
        self.sides
            .iter()
            .map(|s| {
                let view = self
                    .engine
                    .view_state(&self.state, &Viewer::Side(s.clone()));
                self.engine.seat_forms(&view, &self.state, Some(s))
            })
            .collect()
    }

    /// One step of the battle: the turn's next step a side is offered, or a side's own action,
    /// or the way on. `since` counts the sides' actions since the turn last moved on.
    fn step(&mut self, since: &mut u32) -> Result<(), String> {
        let tactics = self.muster.tactics();
        let forms = self.seat_forms();
        // A side's next step (a card to play, an answer): taken at once.
        for (i, fs) in forms.iter().enumerate() {
            for f in fs.iter().filter(|f| f.primary && f.refused.is_none()) {
                if self.send(f, Some(i)) {
                    *since = 0;
                    self.done.clear();
                    return Ok(());
                }
            }
        }
        // The sides' own actions, as their policies weigh them.
        if *since < tactics.per_step {
            let mut offered: Vec<(usize, &ActionForm, u32, u8)> = Vec::new();
            for (i, fs) in forms.iter().enumerate() {
                for f in fs.iter().filter(|f| !f.primary && f.refused.is_none()) {
                    let (stage, w) = weight(tactics, &f.action, self.policies[i]);
                    let done = self.done.get(&f.action);
                    let spent = f.actor_field().is_some_and(|a| {
                        open_choices(a)
                            .iter()
                            .all(|v| done.is_some_and(|d| d.contains(v)))
                    });
                    if w > 0 && !spent {
                        offered.push((i, f, w, stage));
                    }
                }
            }
            // Each side's earliest stage only.
            let offered: Vec<(usize, ActionForm, u32)> = offered
                .iter()
                .filter(|(i, _, _, stage)| {
                    offered.iter().filter(|o| o.0 == *i).all(|o| o.3 >= *stage)
                })
                .map(|(i, f, w, _)| (*i, (*f).clone(), *w))
                .collect();
            for _ in 0..8 {
                // Which side, by the game master's stream; then its form by its own.
                let with: Vec<usize> = {
                    let mut v: Vec<usize> = offered.iter().map(|o| o.0).collect();
                    v.dedup();
                    v
                };
                if with.is_empty() {
                    break;
                }
                let side = with[below(&mut self.table, with.len())];
                let mine: Vec<&(usize, ActionForm, u32)> =
                    offered.iter().filter(|o| o.0 == side).collect();
                let total: u32 = mine.iter().map(|o| o.2).sum();
                let mut r = below(&mut self.choice[side], total as usize) as u32;
                let form = mine
                    .iter()
                    .find(|o| {
                        if r < o.2 {
                            true
                        } else {
                            r -= o.2;
                            false
                        }
                    })
                    .map(|o| o.1.clone());
                if let Some(form) = form {
                    if self.send(&form, Some(side)) {
                        *since += 1;
                        return Ok(());
                    }
                }
            }
        }
        // The way on: the game master's next step, or a side ends its turn. A step a side is
        // offered (a card from its hand) is that side's, never the game master's.
        *since = 0;
        self.done.clear();
        let sides_steps: BTreeSet<&str> = forms
            .iter()
            .flatten()
            .filter(|f| f.primary)
            .map(|f| f.action.as_str())
            .collect();
        let master: Vec<ActionForm> = self
            .engine
            .forms(&self.state, None)
            .into_iter()
            .filter(|f| f.primary && f.refused.is_none())
            .filter(|f| !sides_steps.contains(f.action.as_str()))
            .collect();
        for f in &master {
            if self.send(f, None) {
                return Ok(());
            }
        }
        for (i, fs) in forms.iter().enumerate() {
            for f in fs
                .iter()
                .filter(|f| tactics.way_on.contains(&f.action.as_str()))
            {
                if f.refused.is_none() && self.send(f, Some(i)) {
                    return Ok(());
                }
            }
        }
        let mut offered: Vec<String> = forms
            .iter()
            .zip(&self.sides)
            .map(|(fs, s)| format!("{s}: {}", names(fs)))
            .collect();
        offered.push(format!("game master: {}", names(&master)));
        Err(format!(
            "turn {}: the automatic players found no action the rules allow (offered {}; the last \
             refused: {})",
            self.turn(),
            offered.join("; "),
            self.refused.as_deref().unwrap_or("none")
        ))
    }

    fn scores(&self) -> Vec<(u32, u32)> {
        self.engine
            .scores(&self.state)
            .iter()
            .map(|s| (s.lost, s.threshold))
            .collect()
    }
}

impl<M: Muster> Simulator for FormSimulator<M> {
    fn policies(&self) -> Vec<Named> {
        Named::keyed(&[
            ("aggressive", keys::PLAY_POLICY_AGGRESSIVE),
            ("cautious", keys::PLAY_POLICY_CAUTIOUS),
            ("random", keys::PLAY_POLICY_RANDOM),
        ])
    }

    /// No distance is played: contact is what a player declares.
    fn gap(&self) -> u32 {
        0
    }

    fn turn_limit(&self) -> u32 {
        self.muster.tactics().turn_limit
    }

    fn play(
        &self,
        scenario: &Scenario,
        seed: u64,
        policies: &[&str],
        max_turns: u32,
        record: bool,
    ) -> Result<Battle, String> {
        let sides: Vec<String> = scenario.sides.iter().map(|s| s.id.clone()).collect();
        let chosen =
            super::simulate::policies_of(scenario, policies, |i| self.default_policy(scenario, i))?;
        // The engine the game builds for the scenario (`game::Game::new`).
        let engine = self.rules.engine(Some(&scenario.as_message_text()))?;
        let state = engine.initial_state()?;
        let troops: BTreeMap<String, (String, String)> = scenario
            .units
            .iter()
            .map(|u| (u.id.clone(), (u.side.clone(), u.troop.clone())))
            .collect();
        let mut p = Play {
            strength: self.muster.strengths(&state).into_iter().collect(),
            engine,
            muster: &self.muster,
            state,
            dice: DiceStream::from_seed(seed),
            choice: (0..sides.len() as u64)
                .map(|i| DiceStream::from_seed(super::simulate::battle_seed(seed ^ 0x5eed, i)))
                .collect(),
            table: DiceStream::from_seed(seed ^ 0x7ab1_e000_5eed_7ab1),
            last_actor: vec![None; sides.len()],
            sides: sides.clone(),
            policies: chosen,
            troops,
            actions: 0,
            usage: BTreeMap::new(),
            actions_taken: BTreeMap::new(),
            losses: BTreeMap::new(),
            lost_by_turn: Vec::new(),
            log: record.then(Vec::new),
            refused: None,
            done: BTreeMap::new(),
        };
        for u in &scenario.units {
            p.entry(&u.side, &u.troop).units += 1;
        }
        let mut since = 0;
        let mut turn = p.turn();
        // A turn takes a few dozen actions; a thousand is a player that does not move on.
        let mut in_turn = 0u32;
        while !p.engine.is_over(&p.state) && p.turn() <= max_turns {
            p.step(&mut since)?;
            in_turn += 1;
            if p.turn() != turn {
                p.lost_by_turn
                    .push(p.scores().iter().map(|s| s.0).collect());
                turn = p.turn();
                in_turn = 0;
            } else if in_turn > 1000 {
                return Err(format!(
                    "turn {turn}: the automatic players took a thousand actions without ending it"
                ));
            }
        }
        let scores = p.scores();
        let over = p.engine.is_over(&p.state);
        // A battle that ended within a turn: its losses at the end (a turn limit has them).
        if over || p.lost_by_turn.is_empty() {
            p.lost_by_turn.push(scores.iter().map(|s| s.0).collect());
        }
        let losers = if over {
            self.muster.losers(&p.state)
        } else {
            Vec::new()
        };
        let (winner, ending) = match losers.as_slice() {
            [one] => (sides.iter().find(|s| *s != one).cloned(), Ending::Broken),
            [_, _, ..] => (None, Ending::BothBroken),
            [] => (judge(&sides, &scores), Ending::TurnLimit),
        };
        Ok(Battle {
            winner,
            ending,
            turns: p.turn().min(max_turns),
            actions: p.actions,
            losses: p.losses.into_values().collect(),
            usage: p.usage,
            actions_taken: p.actions_taken,
            lost_by_turn: p.lost_by_turn,
            break_points: scores.iter().map(|s| s.1).collect(),
            log: p.log.unwrap_or_default(),
        })
    }
}
