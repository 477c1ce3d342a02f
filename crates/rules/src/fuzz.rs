//! The rules fuzzer: whole games of a scenario played at random through what every seat's forms
//! offer, with the game's invariants checked after every step (`tercio fuzz`, and the test that
//! plays a few games of each shipped scenario). Pure: no I/O, no clock, no threads; the caller
//! chooses the scenarios, the seeds and how many games, and prints what [`play`] and [`Summary`]
//! say.
//!
//! **How a game is played** (project design): at each step every seat (the game master and each
//! side) is shown its forms as the app shows them ([`Engine::seat_forms`] of the seat's
//! [`Engine::view_state`]). One of the forms not refused, over all seats, is picked uniformly;
//! what acts is picked uniformly among the choices the form does not refuse, every other field
//! uniformly among what the form declares (each choice, an optional choice also left out, a tick
//! box either way, a number anywhere in its range, a text left out or a list of the scenario's
//! ids). A question the rules ask is answered at random (a choice among the field's values, or
//! yes / no as the page's `confirm` answers); a side's action that asks a question only the game
//! master may answer ([`Engine::reserved_to_game_master`]) is handed to the game master. One
//! action in [`TABLE_DICE`] has its dice typed in as thrown at the table (random faces of the
//! dice the plan asks for, [`Game::needed`]); one step in [`UNDO`] undoes the latest event. A
//! filled form the rules refuse (a value a table would not give) is tried again, up to
//! [`ATTEMPTS`] times, and then the form's own default is sent, which the form said is legal.
//!
//! **What is checked after each step** ([`Check`]): no panic; no refusal of a choice the form
//! offered as legal, and no form offered to a seat that the seat may not send; a form not
//! refused for some seat until the game is over (no dead end); every resolved action folds
//! ([`Head`] beside the [`Game`], as the server keeps it, holding the same state and the same
//! fingerprint); its odds sum to 1; after every undo, the state, board and forms of every seat
//! are those before the undone event, the log shows it voided and the log replays from the seed
//! ([`Game::verify`]); at the end, the game read back from its file verifies and gives the same
//! fingerprint and commitment; no seat's view changes when what it may not see is permuted (the
//! decks, the other side's hand and Stand of Pikes cards, the shuffle key), and no seat's view of
//! an event carries another seat's secret effects.
//!
//! A game ends by the rules ([`Ending::Rules`]), at the simulator's turn limit
//! ([`Ending::TurnLimit`]), or after [`MAX_STEPS`] steps ([`Ending::StepLimit`], a sign of a
//! loop the random players could not leave). Across games, each action kind's outcomes are tallied
//! against the exact probabilities predicted at each roll ([`Tally`], [`chi_square_tests`]).
//! A failing game is replayed from its moves ([`replay`]) and shrunk to the shortest list that
//! still fails the same check ([`shrink`]).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tercio_core::DiceStream;

use crate::game::{Game, GameError, Head};
use crate::interface::scenario::Scenario;
use crate::interface::{ActionForm, Engine, FieldKind, RejectKind, Rejection, Viewer};

/// One step in this many (at random) undoes the latest event.
pub const UNDO: u32 = 25;
/// One action in this many has its dice typed in as thrown at the table.
pub const TABLE_DICE: u32 = 4;
/// How many fillings of forms a step tries before it sends a form's own default.
pub const ATTEMPTS: u32 = 12;
/// How many times a refused filling is corrected, the field the refusal names drawn again.
pub const CORRECTIONS: u32 = 6;
/// The most questions one action may ask before it is given up.
pub const QUESTIONS: u32 = 8;
/// The most steps a game may take (a loop the random players cannot leave ends it).
pub const MAX_STEPS: u64 = 20_000;
/// The heaviest weight an action may have in a game that weighs them ([`Run::weights`]).
pub const TOP_WEIGHT: u64 = 64;
/// How many of the latest events keep the state before them (older ones keep its hash).
pub const KEEP_STATES: usize = 256;
/// A log this long or shorter is undone as `Game::undo` does, folding its live events again.
pub const SHORT_LOG: usize = 64;
/// The largest plan (in leaves enumerated) whose exact odds are worked out at a roll and tallied
/// (project design: the battle report's 100,000 made a random step 100 times dearer, the
/// enumeration being most of a step's cost; which rolls are tallied depends on the plan's size
/// only, never on its outcome, so the χ² tests stay fair).
pub const ODDS_BUDGET: usize = 4_096;

/// What a step checks; a failed one names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// The rules panicked.
    Panic,
    /// No seat was offered a form the rules allow, and the game was not over.
    DeadEnd,
    /// A choice the form offered as legal, sent as the page sends it, was refused.
    RefusedLegal,
    /// A seat was offered a form that the server would refuse that seat.
    SeatMayNot,
    /// A filled form was refused naming no field, or what acts, though the same action with the
    /// form's defaults goes through: the refusal does not name the field at fault.
    UnnamedField,
    /// An accepted action's effects did not fold, or the server's [`Head`] disagrees with the game.
    Fold,
    /// The log does not replay from the seed ([`Game::verify`]).
    Replay,
    /// An undo did not give back the state, board and forms before the undone event.
    Undo,
    /// The game read back from its file does not verify, or gives another fingerprint.
    Export,
    /// A seat's view of the state changes when what it may not see is permuted.
    View,
    /// A seat's view of an event carries what it may not see.
    Event,
    /// An action's exact odds do not sum to 1.
    OddsSum,
}

impl Check {
    pub fn name(self) -> &'static str {
        match self {
            Check::Panic => "panic",
            Check::DeadEnd => "dead-end",
            Check::RefusedLegal => "refused-legal",
            Check::SeatMayNot => "seat-may-not",
            Check::UnnamedField => "unnamed-field",
            Check::Fold => "fold",
            Check::Replay => "replay",
            Check::Undo => "undo",
            Check::Export => "export",
            Check::View => "view",
            Check::Event => "event",
            Check::OddsSum => "odds-sum",
        }
    }
}

/// One move of a game: an action sent by a seat (`game-master`, `side:ID`), its dice rolled from
/// the seed or (`faces`) thrown at the table, or an undo of the latest event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "move", rename_all = "kebab-case")]
pub enum Move {
    Act {
        seat: String,
        action: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        faces: Option<Vec<u8>>,
    },
    Undo,
}

/// A check that failed: which, at which step and turn, and what was seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub check: Check,
    /// The number of moves made before it (the failing move is the next, for a check on a move).
    pub step: u64,
    pub turn: u32,
    pub message: String,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// The rules say it is over.
    Rules,
    /// It reached the simulator's turn limit.
    TurnLimit,
    /// It took [`MAX_STEPS`] steps.
    StepLimit,
    /// A check failed.
    Failed,
}

/// Each action kind's outcomes over a run, against the exact probabilities predicted at each roll.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Tally {
    /// By action kind: the rolls tallied, and each outcome (its facets) with the count seen and
    /// the sum of the probabilities predicted for it.
    pub kinds: BTreeMap<String, KindTally>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KindTally {
    pub rolls: u64,
    /// Rolls whose plan was too large to enumerate ([`ODDS_BUDGET`]): not tallied.
    pub too_large: u64,
    pub cells: BTreeMap<String, (u64, f64)>,
}

impl Tally {
    /// Add `other` into this one.
    pub fn add(&mut self, other: &Tally) {
        for (k, t) in &other.kinds {
            let mine = self.kinds.entry(k.clone()).or_default();
            mine.rolls += t.rolls;
            mine.too_large += t.too_large;
            for (c, (o, e)) in &t.cells {
                let cell = mine.cells.entry(c.clone()).or_insert((0, 0.0));
                cell.0 += o;
                cell.1 += e;
            }
        }
    }
}

/// One game played, and what it found.
#[derive(Debug, Clone, Serialize)]
pub struct Played {
    pub seed: u64,
    pub ending: Ending,
    pub turns: u32,
    /// Moves made: actions recorded and undos.
    pub steps: u64,
    pub actions: u64,
    pub undos: u64,
    /// Actions whose dice were typed in as thrown at the table.
    pub table_dice: u64,
    /// Questions the rules asked, answered.
    pub questions: u64,
    /// Filled forms the rules refused (values a table would not give), tried again.
    pub refusals: u64,
    pub failure: Option<Failure>,
    /// Every move made, in order (the game can be played again with [`replay`]).
    pub moves: Vec<Move>,
    /// The move being made when a check failed, if the check was on a move.
    pub failing: Option<Move>,
    /// For a game stopped at [`MAX_STEPS`]: the forms each seat was offered then.
    pub stuck: Option<String>,
    #[serde(skip)]
    pub tally: Tally,
    /// The game file of a game that ended by the rules, for `tercio verify` to read.
    #[serde(skip)]
    pub file: Option<String>,
}

/// The seat string of a side (the game master's: `None`), as the log signs entries.
fn seat_name(side: Option<&str>) -> String {
    match side {
        Some(s) => format!("side:{s}"),
        None => "game-master".to_string(),
    }
}

/// A number below `n` from `s` (0 when there is one choice or none).
fn below(s: &mut DiceStream, n: usize) -> usize {
    if n <= 1 {
        0
    } else {
        s.below(u32::try_from(n).unwrap_or(u32::MAX)) as usize
    }
}

/// The chance `1 / n` from `s`.
fn one_in(s: &mut DiceStream, n: u32) -> bool {
    s.below(n) == 0
}

/// A seat's forms and what it sees, at one step.
struct SeatForms {
    seat: String,
    side: Option<String>,
    forms: Vec<ActionForm>,
    /// A hash of the seat's board and forms, to compare after an undo.
    digest: u64,
}

/// The state before a live event, for checking its undo: its hash, and the state itself while
/// the event is among the latest [`KEEP_STATES`] (to compare each seat's board and forms).
struct Before {
    seq: u64,
    hash: u64,
    state: Option<Value>,
}

/// A hash of a value's JSON (maps are sorted, so equal values hash alike).
fn hash_of(v: &impl Serialize) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(v).unwrap_or_default().hash(&mut h);
    h.finish()
}

/// How moves are chosen: at random, or from a list given (a replay).
enum Source<'m> {
    Random(Box<DiceStream>),
    Script(std::slice::Iter<'m, Move>),
}

/// One game being played.
struct Run<'m> {
    seed: u64,
    turn_limit: u32,
    game: Game,
    head: Head,
    engine: Box<dyn Engine>,
    sides: Vec<String>,
    /// The scenario's unit and leader ids, for free-text fields.
    ids: Vec<String>,
    source: Source<'m>,
    /// The checks' own random numbers (the permutations of hidden parts).
    checks: DiceStream,
    before: Vec<Before>,
    /// The values the latest event replaced, for the [`Head`]'s undo by restoring.
    restore: Option<(u64, Value)>,
    /// The move being made.
    pending: Option<Move>,
    /// Whether the odds answers of each action's parts are checked too.
    odds_parts: bool,
    /// The game's seal, and the log's fingerprint kept entry by entry.
    seal: crate::seal::Seal,
    chain: String,
    /// How often this game's players take each action, by name (project design): half the
    /// games take every form offered alike (`None`); the others give each action a weight of
    /// its own, a power of two up to [`TOP_WEIGHT`] (the turn's next step always that), so that
    /// across games every mix is played, from one that seldom takes a unit off the table or
    /// awards a banner to one that does little else.
    weights: Option<BTreeMap<String, u64>>,
    played: Played,
}

type Step<T> = Result<T, Failure>;

impl Run<'_> {
    fn turn(&self) -> u32 {
        self.game.state["turn"]
            .as_u64()
            .map_or(0, |t| u32::try_from(t).unwrap_or(u32::MAX))
    }

    fn fail(&self, check: Check, message: impl Into<String>) -> Failure {
        Failure {
            check,
            step: self.played.steps,
            turn: self.turn(),
            message: message.into(),
        }
    }

    fn over(&self) -> bool {
        self.engine.is_over(&self.game.state)
    }

    /// The seats: the game master (`None`) and each side.
    fn seat_list(&self) -> Vec<Option<String>> {
        std::iter::once(None)
            .chain(self.sides.iter().cloned().map(Some))
            .collect()
    }

    /// A seat's forms in state `st`, from its own view, and the digest of its board and forms.
    fn seat_forms(&self, st: &Value, side: Option<&str>) -> SeatForms {
        let viewer = match side {
            Some(s) => Viewer::Side(s.to_string()),
            None => Viewer::GameMaster,
        };
        let view = self.engine.view_state(st, &viewer);
        let forms = self.engine.seat_forms(&view, st, side);
        let board = self.engine.board(&view);
        let digest = hash_of(&(&board, &forms));
        SeatForms {
            seat: seat_name(side),
            side: side.map(str::to_string),
            forms,
            digest,
        }
    }

    /// Every seat's forms in state `st`.
    fn seats_of(&self, st: &Value) -> Vec<SeatForms> {
        self.seat_list()
            .iter()
            .map(|s| self.seat_forms(st, s.as_deref()))
            .collect()
    }

    /// What each seat is offered, for an error.
    fn offered(seats: &[SeatForms]) -> String {
        seats
            .iter()
            .map(|s| {
                let fs: Vec<String> = s
                    .forms
                    .iter()
                    .map(|f| match &f.refused {
                        Some(r) => format!("{} (refused: {r})", f.action),
                        None => f.action.clone(),
                    })
                    .collect();
                format!("{}: {}", s.seat, fs.join(", "))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// No seat's view changes when what it may not see is permuted.
    fn check_views(&mut self) -> Step<()> {
        let st = &self.game.state;
        let viewers: Vec<Viewer> = std::iter::once(Viewer::GameMaster)
            .chain(std::iter::once(Viewer::Spectator))
            .chain(self.sides.iter().map(|s| Viewer::Side(s.clone())))
            .collect();
        for v in viewers {
            let Some(other) = secrets::scramble(&self.game.ruleset, st, &v, &mut self.checks)
            else {
                continue;
            };
            let seen = self.engine.view_state(st, &v);
            let scrambled = self.engine.view_state(&other, &v);
            if seen != scrambled {
                let at = first_difference(&seen, &scrambled, "");
                return Err(self.fail(
                    Check::View,
                    format!("{v:?}'s view changes with what it may not see, at {at}"),
                ));
            }
        }
        Ok(())
    }

    /// No seat's view of the latest event carries what it may not see.
    fn check_event(&self, event: &Value) -> Step<()> {
        let viewers: Vec<Viewer> = std::iter::once(Viewer::GameMaster)
            .chain(std::iter::once(Viewer::Spectator))
            .chain(self.sides.iter().map(|s| Viewer::Side(s.clone())))
            .collect();
        for v in viewers {
            let Some(seen) = self.engine.view_event(event, &v) else {
                continue;
            };
            if let Some(leak) = secrets::event_leak(&self.game.ruleset, &self.sides, &seen, &v) {
                return Err(self.fail(
                    Check::Event,
                    format!("{v:?}'s view of event {} shows {leak}", self.game.log.len()),
                ));
            }
        }
        Ok(())
    }

    /// The seat-rights check the server makes before resolving an action.
    fn seat_may(&self, side: Option<&str>, action: &Value) -> Result<(), String> {
        match side {
            None => self
                .engine
                .game_master_may(&self.game.state, action)
                .map_err(|r| format!("the game master may not send {action}: {r}")),
            Some(side) => {
                if let Some(f) = self
                    .engine
                    .reserved_in(action)
                    .iter()
                    .find(|f| action.get(**f).is_some())
                {
                    return Err(format!("{side} may not set `{f}` in {action}"));
                }
                match self.engine.acting_side(&self.game.state, action) {
                    Some(s) if s == side => Ok(()),
                    Some(s) => Err(format!("{side} was offered {action}, which is {s}'s")),
                    None => {
                        // As the server answers: an action not yet whole (a target still to
                        // choose) belongs to no side, and is refused at its missing field.
                        if let Some(r) = self.engine.incomplete(&self.game.state, action) {
                            return Err(format!("{action}: {r}"));
                        }
                        Err(format!(
                            "{side} was offered {action}, a step of the game master's"
                        ))
                    }
                }
            }
        }
    }

    /// One step. `Ok(false)`: the game is over (by the rules, the turn limit or the moves given).
    fn step(&mut self) -> Step<bool> {
        if self.over() || self.turn() > self.turn_limit {
            return Ok(false);
        }
        if self.played.steps >= MAX_STEPS {
            // What was offered at the end, to tell a loop of the players from one of the rules.
            let seats = self.seats_of(&self.game.state);
            self.played.stuck = Some(Self::offered(&seats));
            return Ok(false);
        }
        self.check_views()?;
        let scripted = match &mut self.source {
            Source::Script(it) => Some(it.next().cloned()),
            Source::Random(_) => None,
        };
        if scripted.is_none() && one_in(self.rng(), UNDO) && !self.head.live.is_empty() {
            self.undo()?;
            return Ok(true);
        }
        // The seats' forms, a seat at a time until one is offered a form the rules allow: the
        // scripted move's seat first, else the seats in a random order (a seat, then its form).
        let list = self.seat_list();
        let mut order: Vec<usize> = (0..list.len()).collect();
        match &scripted {
            Some(Some(Move::Act { seat, .. })) => {
                if let Some(i) = list.iter().position(|s| seat_name(s.as_deref()) == *seat) {
                    order.retain(|&x| x != i);
                    order.insert(0, i);
                }
            }
            _ => {
                for i in (1..order.len()).rev() {
                    let j = below(self.rng(), i + 1);
                    order.swap(i, j);
                }
            }
        }
        let mut seats: Vec<SeatForms> = Vec::new();
        for i in order {
            let s = self.seat_forms(&self.game.state, list[i].as_deref());
            let open = s.forms.iter().any(|f| f.refused.is_none());
            seats.push(s);
            if open && scripted.is_none() {
                break;
            }
        }
        if !seats
            .iter()
            .any(|s| s.forms.iter().any(|f| f.refused.is_none()))
        {
            return Err(self.fail(
                Check::DeadEnd,
                format!(
                    "no seat is offered a form the rules allow; offered {}",
                    Self::offered(&seats)
                ),
            ));
        }
        match scripted {
            Some(None) => Ok(false),
            Some(Some(Move::Undo)) => {
                if self.head.live.is_empty() {
                    return Ok(true);
                }
                self.undo()?;
                Ok(true)
            }
            Some(Some(mv @ Move::Act { .. })) => {
                let Move::Act {
                    seat,
                    action,
                    faces,
                } = mv.clone()
                else {
                    return Ok(true);
                };
                self.pending = Some(mv);
                // The form the move came from, if it is still offered: its legal choice is held
                // to the rules.
                let name = action["action"].as_str().unwrap_or("");
                let form = seats
                    .iter()
                    .find(|s| s.seat == seat)
                    .and_then(|s| s.forms.iter().find(|f| f.action == name).map(|f| (s, f)));
                if let Some((s, f)) = form.filter(|(_, f)| f.refused.is_none()) {
                    let actor = f
                        .actor_field()
                        .and_then(|a| action.get(&a.name))
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    if actor.is_none() || offered_legal(f, actor.as_deref()) {
                        self.check_legal(s.side.as_deref(), f, actor.as_deref())?;
                    }
                }
                let side = seat.strip_prefix("side:").map(str::to_string);
                if let Sent::Refused(r) =
                    self.send(&seats, side.as_deref(), action.clone(), faces)?
                {
                    // The same check as a random move's refusal.
                    if let Some((_, f)) = form {
                        let actor = f
                            .actor_field()
                            .and_then(|a| action.get(&a.name))
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        self.unnamed(f, actor.as_deref(), &action, &r)?;
                    }
                }
                self.pending = None;
                Ok(true)
            }
            None => {
                let Some(last) = seats.last() else {
                    return Ok(false);
                };
                let si = seats.len() - 1;
                let open: Vec<(usize, usize)> = last
                    .forms
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.refused.is_none())
                    .map(|(j, _)| (si, j))
                    .collect();
                self.random_move(&seats, &open)?;
                Ok(true)
            }
        }
    }

    fn rng(&mut self) -> &mut DiceStream {
        match &mut self.source {
            Source::Random(r) => r,
            // Replays choose nothing; their answers are in their moves.
            Source::Script(_) => &mut self.checks,
        }
    }

    /// The form's choice `actor` (or the form, without one), sent as the page sends it, must be
    /// accepted by the rules and by the seat's rights.
    fn check_legal(&self, side: Option<&str>, f: &ActionForm, actor: Option<&str>) -> Step<()> {
        let a = f.default_action(actor);
        if let Err(r) = self.engine.plan(Some(&self.game.state), &a) {
            let actor_field = f.actor_field().map(|x| x.name.as_str());
            if blocking(&r, actor_field) {
                return Err(self.fail(
                    Check::RefusedLegal,
                    format!(
                        "{} was offered {a} as legal; the rules refuse it: {r}",
                        seat_name(side)
                    ),
                ));
            }
            // A field the table must still fill (a target with none chosen at first): the
            // seat's right is checked on the action as it is sent, filled.
            return Ok(());
        }
        if let Err(e) = self.seat_may(side, &a) {
            return Err(self.fail(Check::SeatMayNot, e));
        }
        Ok(())
    }

    /// Pick a form of a seat, fill it and send it; after [`ATTEMPTS`] refused fillings, send a
    /// legal choice with the form's defaults.
    fn random_move(&mut self, seats: &[SeatForms], open: &[(usize, usize)]) -> Step<()> {
        let weights: Vec<u64> = open
            .iter()
            .map(|&(si, fi)| {
                let f = &seats[si].forms[fi];
                // The turn's next step keeps the heaviest weight: a game that seldom moves on
                // plays few turns.
                if f.primary && self.weights.is_some() {
                    TOP_WEIGHT
                } else {
                    self.weight(&f.action)
                }
            })
            .collect();
        let total: u64 = weights.iter().sum();
        for _ in 0..ATTEMPTS {
            let mut r = u64::from(self.rng().below(u32::try_from(total).unwrap_or(u32::MAX)));
            let k = weights
                .iter()
                .position(|w| {
                    if r < *w {
                        true
                    } else {
                        r -= w;
                        false
                    }
                })
                .unwrap_or(0);
            let (si, fi) = open[k];
            if self.try_form(seats, si, fi, false)?.is_none() {
                return Ok(());
            }
        }
        // Every form offered, in a random order, as the page sends it: the form said so.
        let mut order: Vec<(usize, usize)> = open.to_vec();
        for i in (1..order.len()).rev() {
            let j = below(self.rng(), i + 1);
            order.swap(i, j);
        }
        let mut last = String::new();
        for (si, fi) in order {
            match self.try_form(seats, si, fi, true)? {
                None => return Ok(()),
                Some(why) => last = why,
            }
        }
        Err(self.fail(
            Check::RefusedLegal,
            format!("no form offered goes through as the page sends it; the last: {last}"),
        ))
    }

    /// Send form `fi` of seat `si`, what acts picked among its legal choices, its other fields
    /// filled at random (`plain`: as the page sends them). `None` once recorded; else why not.
    fn try_form(
        &mut self,
        seats: &[SeatForms],
        si: usize,
        fi: usize,
        plain: bool,
    ) -> Step<Option<String>> {
        let s = &seats[si];
        let f = &s.forms[fi];
        let legal: Vec<String> = f
            .actor_field()
            .map(|a| match &a.kind {
                FieldKind::Choice { options, .. } => options
                    .iter()
                    .filter(|o| o.refused.is_none())
                    .map(|o| o.value.clone())
                    .collect(),
                _ => Vec::new(),
            })
            .unwrap_or_default();
        let actor = if legal.is_empty() {
            None
        } else {
            let i = below(self.rng(), legal.len());
            Some(legal[i].clone())
        };
        self.pending = Some(Move::Act {
            seat: s.seat.clone(),
            action: f.default_action(actor.as_deref()),
            faces: None,
        });
        self.check_legal(s.side.as_deref(), f, actor.as_deref())?;
        let action = if plain {
            f.default_action(actor.as_deref())
        } else {
            self.fill(f, actor.as_deref())
        };
        // A field the table must still fill, left empty by the form (a target with none chosen
        // at first, issue 43): filled as a player fills it before sending, so that the seat's
        // right is judged on the whole action.
        let mut action = action;
        let actor_name = f.actor_field().map(|a| a.name.clone());
        for _ in 0..CORRECTIONS {
            let Err(r) = self.engine.plan(Some(&self.game.state), &action) else {
                break;
            };
            if r.kind == RejectKind::Question {
                break;
            }
            let Some(field) = r
                .field
                .as_deref()
                .and_then(|n| f.field_for(n, &action))
                .filter(|x| Some(x.name.as_str()) != actor_name.as_deref())
            else {
                break;
            };
            if action.get(&field.name).is_some() {
                break;
            }
            let Some(v) = self.draw_some(field) else {
                break;
            };
            action[field.name.as_str()] = v;
        }
        if let Some(side) = s.side.as_deref() {
            if let Err(e) = self.seat_may(Some(side), &action) {
                // A value of a field the seat may set that makes the action another's (filled
                // at random): tried again.
                self.played.refusals += 1;
                self.pending = None;
                return Ok(Some(e));
            }
        }
        let mut why = String::new();
        // A refusal naming a field of the form is answered as a player corrects the form: that
        // field drawn again (left out, when it may be).
        for _ in 0..CORRECTIONS {
            let faces = if one_in(self.rng(), TABLE_DICE) {
                Some(self.table_faces(&action))
            } else {
                None
            };
            self.pending = Some(Move::Act {
                seat: s.seat.clone(),
                action: action.clone(),
                faces: faces.clone(),
            });
            match self.send(seats, s.side.as_deref(), action.clone(), faces)? {
                Sent::Done => {
                    self.pending = None;
                    return Ok(None);
                }
                Sent::Refused(r) => {
                    self.played.refusals += 1;
                    self.unnamed(f, actor.as_deref(), &action, &r)?;
                    self.pending = None;
                    why = format!("{action}: {r}");
                    let field = r.field.as_deref().and_then(|n| {
                        f.field_for(n, &action)
                            .filter(|_| Some(n) != f.actor_field().map(|a| a.name.as_str()))
                    });
                    let Some(field) = field else { break };
                    // A field the rules say is missing is filled, as a player fills it.
                    let v = if r.code == "missing-field" {
                        self.draw_some(field)
                    } else {
                        self.draw(field)
                    };
                    match v {
                        Some(v) => action[field.name.as_str()] = v,
                        None => {
                            if let Some(o) = action.as_object_mut() {
                                o.remove(&field.name);
                            }
                        }
                    }
                }
            }
        }
        Ok(Some(why))
    }

    /// A random value of `field` that is not "none" (a field the rules need: a list's empty
    /// choice is not drawn); `None` only for a list with nothing in it, or a text.
    fn draw_some(&mut self, field: &crate::interface::FormField) -> Option<Value> {
        match &field.kind {
            FieldKind::Choice { options, .. } if !options.is_empty() => {
                let i = below(self.rng(), options.len());
                Some(json!(options[i].value))
            }
            FieldKind::Choice { .. } => None,
            _ => (0..4).find_map(|_| self.draw(field)),
        }
    }

    /// A random value of `field`, as the form declares it (`None`: left out).
    fn draw(&mut self, field: &crate::interface::FormField) -> Option<Value> {
        match &field.kind {
            FieldKind::Choice { options, optional } => {
                let n = options.len() + usize::from(*optional);
                let i = below(self.rng(), n);
                options.get(i).map(|o| json!(o.value))
            }
            FieldKind::Choices { options } => {
                // Each choice in or out, at random; none chosen leaves the field out.
                let mut picked = Vec::new();
                for o in options {
                    if one_in(self.rng(), 2) {
                        picked.push(json!(o.value));
                    }
                }
                (!picked.is_empty()).then_some(Value::Array(picked))
            }
            FieldKind::Flag => one_in(self.rng(), 2).then_some(Value::Bool(true)),
            FieldKind::Number { min, max, .. } => {
                let span = u32::try_from(max.saturating_sub(*min).max(0))
                    .unwrap_or(u32::MAX - 1)
                    .saturating_add(1);
                Some(json!(min + i64::from(self.rng().below(span))))
            }
            FieldKind::Text { .. } => {
                if one_in(self.rng(), 2) || self.ids.is_empty() {
                    return None;
                }
                let k = 1 + below(self.rng(), 3);
                let mut picked = Vec::new();
                for _ in 0..k {
                    let n = self.ids.len();
                    let i = below(self.rng(), n);
                    picked.push(self.ids[i].clone());
                }
                Some(json!(picked.join(", ")))
            }
        }
    }

    /// The weight of action `name` in this game: 1 in a uniform game, else its own power of
    /// two from 1 to 64, drawn when the game first meets it ([`Run::weights`]).
    fn weight(&mut self, name: &str) -> u64 {
        if let Some(w) = self.weights.as_ref().and_then(|m| m.get(name)) {
            return *w;
        }
        let Some(_) = self.weights else { return 1 };
        let w = 1u64 << self.rng().below(TOP_WEIGHT.trailing_zeros() + 1);
        if let Some(m) = self.weights.as_mut() {
            m.insert(name.to_string(), w);
        }
        w
    }

    /// A refusal of a filled form that names no field, or what acts, while the same action with
    /// the form's defaults goes through: the field at fault is not named.
    fn unnamed(
        &self,
        f: &ActionForm,
        actor: Option<&str>,
        action: &Value,
        r: &Rejection,
    ) -> Step<()> {
        let actor_field = f.actor_field().map(|x| x.name.as_str());
        if !blocking(r, actor_field) || r.kind == RejectKind::NotNow {
            return Ok(());
        }
        let plain = f.default_action(actor);
        if &plain != action && self.engine.plan(Some(&self.game.state), &plain).is_ok() {
            return Err(self.fail(
                Check::UnnamedField,
                format!(
                    "{action} is refused without naming the field at fault ({r}), though {plain} \
                     goes through"
                ),
            ));
        }
        Ok(())
    }

    /// The action `f` describes, what acts being `actor`, every other field filled at random
    /// among what the form declares.
    fn fill(&mut self, f: &ActionForm, actor: Option<&str>) -> Value {
        let mut a = Map::new();
        a.insert("action".into(), json!(f.action));
        for (k, v) in &f.fixed {
            a.insert(k.clone(), v.clone());
        }
        let acting = f.fields.iter().find(|x| x.resets).map(|x| x.name.clone());
        let mut values: BTreeMap<String, String> = BTreeMap::new();
        if let (Some(name), Some(v)) = (&acting, actor) {
            values.insert(name.clone(), v.to_string());
        }
        for field in &f.fields {
            if Some(&field.name) == acting.as_ref() && actor.is_some() {
                a.insert(field.name.clone(), json!(actor));
                continue;
            }
            if !field.only_for.is_empty() {
                let by = match &field.only_with {
                    Some(n) => values.get(n),
                    None => acting.as_ref().and_then(|n| values.get(n)),
                };
                if !by.is_some_and(|v| field.only_for.contains(v)) {
                    continue;
                }
            }
            if let Some(v) = self.draw(field) {
                if let Some(t) = v.as_str() {
                    values.insert(field.name.clone(), t.to_string());
                }
                a.insert(field.name.clone(), v);
            }
        }
        Value::Object(a)
    }

    /// Random faces for the dice `action` asks for, as the table throws them (none for an
    /// action whose dice come from the seed only).
    fn table_faces(&mut self, action: &Value) -> Vec<u8> {
        let mut faces: Vec<u8> = Vec::new();
        for _ in 0..64 {
            match crate::game::needed(self.engine.as_ref(), &self.game.state, action, &faces) {
                Ok(Some(dice)) if !dice.is_empty() => {
                    for d in dice {
                        let f = 1 + self.rng().below(u32::from(d.sides));
                        faces.push(u8::try_from(f).unwrap_or(1));
                    }
                }
                _ => break,
            }
        }
        faces
    }

    /// Send `action` from seat `side` (the game master: `None`), answering the rules' questions,
    /// and check what it did.
    fn send(
        &mut self,
        seats: &[SeatForms],
        side: Option<&str>,
        mut action: Value,
        faces: Option<Vec<u8>>,
    ) -> Step<Sent> {
        let scripted = matches!(self.source, Source::Script(_));
        let mut side = side.map(str::to_string);
        for _ in 0..=QUESTIONS {
            let by = seat_name(side.as_deref());
            let pos = self.game.stream_pos();
            // As `Game::act_signed` records it, with the engine built once for the game.
            let r = crate::game::resolve(
                self.engine.as_ref(),
                &self.game.state,
                self.game.seed,
                pos,
                action.clone(),
                faces.as_deref(),
            );
            match r {
                Ok(event) => {
                    let state = self.game.state.clone();
                    if let Err(e) = self.engine.apply(&mut self.game.state, &event.effects) {
                        return Err(self.fail(Check::Fold, format!("{action} does not fold: {e}")));
                    }
                    self.game.log.append(event, Some(&by));
                    self.after_act(&by, &state, pos, action, faces)?;
                    return Ok(Sent::Done);
                }
                Err(GameError::Rejected(r)) if r.kind == RejectKind::Question && !scripted => {
                    let Some(field) = r.field.clone() else {
                        return Ok(Sent::Refused(r));
                    };
                    // A question the side may not answer goes to the game master.
                    if side.is_some() && self.engine.reserved_in(&action).contains(&&*field) {
                        side = None;
                    }
                    self.played.questions += 1;
                    let answer = self.answer(seats, &action, &field);
                    action[field.as_str()] = answer;
                }
                Err(GameError::Rejected(r)) => return Ok(Sent::Refused(r)),
                Err(e) => {
                    return Err(self.fail(Check::Fold, format!("{action}: {e}")));
                }
            }
        }
        Ok(Sent::Refused(Rejection::new(
            "too-many-questions",
            None,
            "too many questions",
        )))
    }

    /// A random answer to the question `field` of `action`: one of the form's values for it, or
    /// yes / no as the page's `confirm` gives.
    fn answer(&mut self, seats: &[SeatForms], action: &Value, field: &str) -> Value {
        let name = action["action"].as_str().unwrap_or("");
        let kind = seats
            .iter()
            .flat_map(|s| s.forms.iter())
            .filter(|f| f.action == name)
            .flat_map(|f| f.fields.iter())
            .find(|x| x.name == field)
            .map(|x| x.kind.clone());
        match kind {
            Some(FieldKind::Choice { options, .. }) if !options.is_empty() => {
                let i = below(self.rng(), options.len());
                json!(options[i].value)
            }
            Some(FieldKind::Number { min, max, .. }) => {
                let span = u32::try_from(max.saturating_sub(min).max(0))
                    .unwrap_or(u32::MAX - 1)
                    .saturating_add(1);
                json!(min + i64::from(self.rng().below(span)))
            }
            _ => json!(one_in(self.rng(), 2)),
        }
    }

    /// After an action was recorded: the server's head folds it the same, its odds sum to 1 and
    /// are tallied, its views hide what they must.
    fn after_act(
        &mut self,
        by: &str,
        state_before: &Value,
        pos: u64,
        action: Value,
        faces: Option<Vec<u8>>,
    ) -> Step<()> {
        let seq = self.game.log.len() as u64;
        self.played.steps += 1;
        self.played.actions += 1;
        if faces.is_some() {
            self.played.table_dice += 1;
        }
        self.played.moves.push(Move::Act {
            seat: by.to_string(),
            action: action.clone(),
            faces: faces.clone(),
        });
        self.before.push(Before {
            seq,
            hash: hash_of(state_before),
            state: Some(state_before.clone()),
        });
        if self.before.len() > KEEP_STATES {
            let old = self.before.len() - KEEP_STATES - 1;
            self.before[old].state = None;
        }
        if let Some(last) = self.game.log.last() {
            self.chain = self.seal.next(&self.chain, &crate::game::entry_text(last));
        }
        // The server's way: the head folds in place and says what it replaced.
        let appended = self
            .head
            .act(
                self.engine.as_ref(),
                action.clone(),
                faces.as_deref(),
                Some(by.to_string()),
                true,
            )
            .map_err(|e| {
                self.fail(
                    Check::Fold,
                    format!("the server's head refuses {action}: {e}"),
                )
            })?;
        if self.head.state != self.game.state {
            let at = first_difference(&self.game.state, &self.head.state, "");
            return Err(self.fail(
                Check::Fold,
                format!("the server's head folds {action} differently, at {at}"),
            ));
        }
        if appended.over != self.over() {
            return Err(self.fail(Check::Fold, "the head and the game disagree on the end"));
        }
        self.restore = appended.restore.map(|r| (seq, r));
        let Some(tercio_core::LogEntry::Event { event, .. }) = self.game.log.last() else {
            return Err(self.fail(Check::Fold, "the event is not the log's last entry"));
        };
        let event = event.clone();
        self.check_event(&serde_json::to_value(&event).unwrap_or(Value::Null))?;
        self.replay_latest(state_before, pos, &action, faces.as_deref(), &event)
    }

    /// The latest event played again from the seed, against the state it was resolved on (the
    /// log's replay, event by event as it is recorded; [`Game::verify`] replays the whole log at
    /// the end): the same draws, effects, explanation and stream position. Its exact odds sum to
    /// 1, and the outcome is tallied against them.
    fn replay_latest(
        &mut self,
        state: &Value,
        pos: u64,
        action: &Value,
        faces: Option<&[u8]>,
        event: &crate::game::GameEvent,
    ) -> Step<()> {
        let plan = match self.engine.plan(Some(state), action) {
            Ok(p) => p,
            Err(r) => {
                return Err(self.fail(
                    Check::Replay,
                    format!("{action} is refused once recorded: {r}"),
                ))
            }
        };
        let kind = action["action"].as_str().unwrap_or("?").to_string();
        let table = faces.is_some_and(|f| !f.is_empty()) && !self.engine.seeded_only(state, action);
        let mut dist = None;
        if !matches!(plan, tercio_core::Plan::Done(_)) {
            if plan.within(ODDS_BUDGET) {
                let d = plan.exact(|o| o.facets.clone());
                let total = d.total();
                if (total - 1.0).abs() > 1e-9 {
                    return Err(self.fail(
                        Check::OddsSum,
                        format!("the odds of {action} sum to {total}"),
                    ));
                }
                dist = Some(d);
            } else {
                self.played
                    .tally
                    .kinds
                    .entry(kind.clone())
                    .or_default()
                    .too_large += 1;
            }
        }
        if dist.is_some() && self.odds_parts {
            // Each independent part's odds, as the seat's odds answer gives them.
            // (One part is the action whole, whose odds were just summed.)
            if let Ok(parts) = self.engine.preview_parts(Some(state), action) {
                for p in parts
                    .iter()
                    .filter(|p| parts.len() > 1 && p.within(ODDS_BUDGET))
                {
                    let t = crate::odds::odds(p).total;
                    if (t - 1.0).abs() > 1e-9 {
                        return Err(self.fail(
                            Check::OddsSum,
                            format!("the odds answer for {action} sums to {t}"),
                        ));
                    }
                }
            }
        }
        let rolled = if table {
            plan.roll_with(faces.unwrap_or_default())
                .map(|(o, d)| (o, d, pos))
                .map_err(|e| e.to_string())
        } else {
            let mut s = DiceStream::at(self.seed, u128::from(pos));
            let (o, d) = plan.roll(&mut s);
            Ok((o, d, u64::try_from(s.word_pos()).unwrap_or(u64::MAX)))
        };
        let (outcome, draws, next) = match rolled {
            Ok(x) => x,
            Err(e) => {
                return Err(self.fail(
                    Check::Replay,
                    format!("the faces typed for {action} no longer fit: {e}"),
                ))
            }
        };
        if draws != event.draws
            || outcome.effects != event.effects
            || outcome.resolution != event.resolution
            || next != event.stream_pos
        {
            return Err(self.fail(
                Check::Replay,
                format!("{action} played again from the seed does not come out as recorded"),
            ));
        }
        if let Some(dist) = dist {
            let t = self.played.tally.kinds.entry(kind).or_default();
            t.rolls += 1;
            for (facets, p) in &dist.outcomes {
                t.cells.entry(cell_key(facets)).or_insert((0, 0.0)).1 += p;
            }
            t.cells
                .entry(cell_key(&outcome.facets))
                .or_insert((0, 0.0))
                .0 += 1;
        }
        Ok(())
    }

    /// Undo the latest event, and check it gave back what was before it.
    fn undo(&mut self) -> Step<()> {
        let target = self.head.undo_target();
        let Some(before) = self.before.pop() else {
            return Err(self.fail(Check::Undo, "an undo with no event recorded"));
        };
        // The server's way: put back what the event replaced, or fold the live events again.
        let engine = self.engine.as_ref();
        let restored = match self.restore.take() {
            Some((seq, r)) if Some(seq) == target && self.head.can_restore(seq) => {
                self.head.undo_restoring(engine, r)
            }
            _ => {
                let effects: Vec<Value> = self
                    .game
                    .log
                    .live()
                    .filter(|(s, _)| Some(*s) != target)
                    .map(|(_, e)| e.effects.clone())
                    .collect();
                self.head.undo(engine, None, &effects)
            }
        };
        if let Err(e) = restored {
            return Err(self.fail(Check::Undo, format!("the server's head cannot undo: {e}")));
        }
        // The game's way: a short log folds its live events again (`Game::undo`), held to the
        // server's; a long one takes the void and the server's state, held to the state before
        // the event (and folded again whole when the log is replayed at the end).
        let short = self.game.log.len() <= SHORT_LOG;
        let voided = if short {
            self.game
                .undo()
                .map_err(|e| self.fail(Check::Undo, format!("the undo fails: {e}")))?
        } else {
            let v = self.game.log.void_last("undo", |_| true);
            self.game.state = self.head.state.clone();
            v
        };
        self.played.steps += 1;
        self.played.undos += 1;
        self.played.moves.push(Move::Undo);
        if let Some(last) = self.game.log.last() {
            self.chain = self.seal.next(&self.chain, &crate::game::entry_text(last));
        }
        if voided != target || voided != Some(before.seq) {
            return Err(self.fail(
                Check::Undo,
                format!(
                    "the undo voided {voided:?}, not the latest live event {target:?} ({})",
                    before.seq
                ),
            ));
        }
        if !self.game.log.is_voided(before.seq) {
            return Err(self.fail(
                Check::Undo,
                format!("the log does not show event {} voided", before.seq),
            ));
        }
        if short && self.head.state != self.game.state {
            let at = first_difference(&self.game.state, &self.head.state, "");
            return Err(self.fail(
                Check::Undo,
                format!("the server's head undoes to another state than the game, at {at}"),
            ));
        }
        if hash_of(&self.game.state) != before.hash {
            let at = before
                .state
                .as_ref()
                .map(|b| first_difference(b, &self.game.state, ""))
                .unwrap_or_default();
            return Err(self.fail(
                Check::Undo,
                format!(
                    "undoing event {} does not give back the state {at}",
                    before.seq
                ),
            ));
        }
        let was: Vec<u64> = before
            .state
            .as_ref()
            .map(|b| self.seats_of(b).iter().map(|s| s.digest).collect())
            .unwrap_or_default();
        let now = if was.is_empty() {
            Vec::new()
        } else {
            self.seats_of(&self.game.state)
        };
        for (s, was) in now.iter().zip(&was) {
            if &s.digest != was {
                return Err(self.fail(
                    Check::Undo,
                    format!(
                        "undoing event {} does not give back {}'s board and forms",
                        before.seq, s.seat
                    ),
                ));
            }
        }
        // Every event was played again from the seed as it was recorded, and the state is the
        // fold of the live ones: the log replays (the whole of it is replayed at the end). The
        // void extends the fingerprint as the server's head does.
        if self.chain != self.head.chain {
            return Err(self.fail(
                Check::Undo,
                "after the undo the server's head has another fingerprint than the log",
            ));
        }
        Ok(())
    }

    /// The log replays from the seed under today's rules, and the server's head has its
    /// fingerprint.
    fn check_replay(&self) -> Step<()> {
        match self.game.verify() {
            Err(e) => return Err(self.fail(Check::Replay, e)),
            Ok(checked) => {
                if let Some(c) = checked.iter().find(|c| c.changed.is_some()) {
                    return Err(self.fail(
                        Check::Replay,
                        format!("event {}: {}", c.seq, c.changed.clone().unwrap_or_default()),
                    ));
                }
            }
        }
        if self.game.log_digest() != self.head.chain {
            return Err(self.fail(
                Check::Replay,
                "the server's head has another fingerprint than the log",
            ));
        }
        Ok(())
    }

    /// At the end: the log replays, and the game read back from its file verifies with the same
    /// fingerprint and commitment.
    fn check_end(&self) -> Step<()> {
        self.check_replay()?;
        let text = serde_json::to_string(&self.game)
            .map_err(|e| self.fail(Check::Export, format!("the game does not write: {e}")))?;
        let back = Game::from_json("fuzz.game.json", &text)
            .map_err(|d| self.fail(Check::Export, format!("the game does not read back: {d:?}")))?;
        if let Err(e) = back.verify() {
            return Err(self.fail(Check::Export, format!("read back, it does not verify: {e}")));
        }
        if back.log_digest() != self.head.chain || back.commitment() != self.game.commitment() {
            return Err(self.fail(
                Check::Export,
                "read back, its fingerprint or commitment differs",
            ));
        }
        if back.state != self.game.state {
            return Err(self.fail(Check::Export, "read back, its state differs"));
        }
        Ok(())
    }
}

/// What became of an action sent.
enum Sent {
    Done,
    Refused(Rejection),
}

/// Whether a refusal blocks a choice as [`crate::interface::forms::mark_refusals`] marks it:
/// not a question, and naming no field, the action, or what acts.
fn blocking(r: &Rejection, actor: Option<&str>) -> bool {
    r.kind != RejectKind::Question
        && (r.field.is_none()
            || r.field.as_deref() == Some("action")
            || r.field.as_deref() == actor)
}

/// Whether `actor` is a choice of what acts the form does not refuse.
fn offered_legal(f: &ActionForm, actor: Option<&str>) -> bool {
    f.actor_field().is_some_and(|a| match &a.kind {
        FieldKind::Choice { options, .. } => options
            .iter()
            .any(|o| Some(o.value.as_str()) == actor && o.refused.is_none()),
        _ => false,
    })
}

/// An outcome's facets as one cell of its kind's table.
fn cell_key(facets: &[(String, String)]) -> String {
    facets
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The first JSON pointer at which `a` and `b` differ.
pub fn first_difference(a: &Value, b: &Value, at: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) if w == v => {}
                    Some(w) => return first_difference(v, w, &format!("{at}/{k}")),
                    None => return format!("{at}/{k}"),
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map_or_else(|| at.to_string(), |k| format!("{at}/{k}"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find(|(_, (v, w))| v != w)
            .map_or_else(
                || at.to_string(),
                |(i, (v, w))| first_difference(v, w, &format!("{at}/{i}")),
            ),
        _ => {
            let clip = |v: &Value| {
                let s = v.to_string();
                if s.len() > 80 {
                    format!(
                        "{}…",
                        &s[..s.char_indices().nth(80).map_or(s.len(), |(i, _)| i)]
                    )
                } else {
                    s
                }
            };
            format!("{at} ({} / {})", clip(a), clip(b))
        }
    }
}

/// The secret parts of each rule set's state, and where a seat's views must hide them.
mod secrets {
    use serde_json::Value;
    use tercio_core::DiceStream;

    use crate::interface::Viewer;

    /// The ids of the sides, in the state's order.
    fn side_ids(st: &Value) -> Vec<String> {
        st["sides"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| s["id"].as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn shuffle(v: &mut [Value], r: &mut DiceStream) {
        for i in (1..v.len()).rev() {
            let j = r.below(u32::try_from(i + 1).unwrap_or(u32::MAX)) as usize;
            v.swap(i, j);
        }
    }

    /// A state that `viewer` may not tell from `st`: what it may not see permuted (the decks'
    /// order and the shuffle key; for Commands & Colors, each hand, Stand of Pikes card and
    /// scouted card it may not see exchanged with a card of the deck). `None`: the rule set keeps
    /// no secret.
    pub fn scramble(
        ruleset: &str,
        st: &Value,
        viewer: &Viewer,
        r: &mut DiceStream,
    ) -> Option<Value> {
        match ruleset {
            "commands-colors-ecw" => {
                let mut s = st.clone();
                s["salt"] = Value::from(u64::from(r.below(u32::MAX)) + 1);
                let sees_all = matches!(viewer, Viewer::GameMaster)
                    && (st["settings"]["single_device"] == true
                        || st["settings"]["referee_sees_hands"] == true);
                let ids = side_ids(st);
                let mut deck: Vec<Value> = s["deck"].as_array().cloned().unwrap_or_default();
                for (i, id) in ids.iter().enumerate() {
                    let own = matches!(viewer, Viewer::Side(x) if x == id);
                    if own || sees_all || deck.is_empty() {
                        continue;
                    }
                    let side = &mut s["sides"][i];
                    let mut swap = |v: &mut Value, deck: &mut Vec<Value>| {
                        let k = r.below(u32::try_from(deck.len()).unwrap_or(1)) as usize;
                        std::mem::swap(v, &mut deck[k]);
                    };
                    if let Some(hand) = side["hand"].as_array_mut() {
                        for c in hand.iter_mut() {
                            swap(c, &mut deck);
                        }
                    }
                    if let Some(track) = side["track"].as_array_mut() {
                        for t in track.iter_mut() {
                            swap(&mut t[0], &mut deck);
                        }
                    }
                    if let Some(scout) = side["scout"].as_array_mut() {
                        for c in scout.iter_mut() {
                            swap(c, &mut deck);
                        }
                    }
                }
                shuffle(&mut deck, r);
                s["deck"] = Value::Array(deck);
                if let Some(pack) = s["pack"].as_array_mut() {
                    shuffle(pack, r);
                }
                Some(s)
            }
            "callan-renaissance" => {
                let mut s = st.clone();
                s["salt"] = Value::from(u64::from(r.below(u32::MAX)) + 1);
                if let Some(deck) = s["deck"].as_array_mut() {
                    shuffle(deck, r);
                }
                Some(s)
            }
            _ => None,
        }
    }

    /// What `viewer`'s view of an event (`seen`) shows that it may not see, if anything: an
    /// effect at a secret place of another seat's, or the shuffle key's dice.
    pub fn event_leak(
        ruleset: &str,
        sides: &[String],
        seen: &Value,
        viewer: &Viewer,
    ) -> Option<String> {
        let ops = seen["effects"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let draws = seen["draws"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let action = seen["action"]["action"].as_str().unwrap_or("");
        match ruleset {
            "commands-colors-ecw" => {
                for op in ops {
                    let p = op["p"].as_str().unwrap_or("");
                    match crate::commands_colors_ecw::game::secret_path(p) {
                        None => {}
                        Some(None) => return Some(format!("the secret effect at {p}")),
                        Some(Some(i)) => {
                            let own = sides
                                .get(i)
                                .is_some_and(|id| matches!(viewer, Viewer::Side(x) if x == id));
                            if !own {
                                return Some(format!("another seat's effect at {p}"));
                            }
                        }
                    }
                }
                (action == "deal" && !draws.is_empty())
                    .then(|| "the shuffle key's dice".to_string())
            }
            "callan-renaissance" => {
                for op in ops {
                    let p = op["p"].as_str().unwrap_or("");
                    if p.is_empty() || p == "/deck" || p.starts_with("/deck/") || p == "/salt" {
                        return Some(format!("the secret effect at {p:?}"));
                    }
                }
                draws
                    .iter()
                    .any(|d| {
                        d["label"]
                            .as_str()
                            .is_some_and(|l| l.starts_with("Shuffle key"))
                    })
                    .then(|| "the shuffle key's dice".to_string())
            }
            _ => None,
        }
    }
}

/// Play one game of `scenario` from `seed` at random, checking every step, until the rules end
/// it or the turn passes `turn_limit`.
pub fn play(scenario: &Scenario, seed: u64, turn_limit: u32) -> Played {
    run(scenario, seed, turn_limit, None)
}

/// Play `moves` again on a new game of `scenario` from `seed`, checking every step as [`play`]
/// does (a move the rules now refuse is passed over), then the end's checks.
pub fn replay(scenario: &Scenario, seed: u64, turn_limit: u32, moves: &[Move]) -> Played {
    run(scenario, seed, turn_limit, Some(moves))
}

fn run(scenario: &Scenario, seed: u64, turn_limit: u32, moves: Option<&[Move]>) -> Played {
    let mut played = Played {
        seed,
        ending: Ending::Failed,
        turns: 0,
        steps: 0,
        actions: 0,
        undos: 0,
        table_dice: 0,
        questions: 0,
        refusals: 0,
        failure: None,
        moves: Vec::new(),
        failing: None,
        stuck: None,
        tally: Tally::default(),
        file: None,
    };
    let setup = (|| -> Result<(Game, Box<dyn Engine>), String> {
        let game = Game::new(scenario.clone(), seed).map_err(|e| e.to_string())?;
        let engine = game.engine().map_err(|e| e.to_string())?;
        Ok((game, engine))
    })();
    let (game, engine) = match setup {
        Ok(x) => x,
        Err(e) => {
            played.failure = Some(Failure {
                check: Check::Fold,
                step: 0,
                turn: 0,
                message: format!("the game cannot start: {e}"),
            });
            return played;
        }
    };
    let mut ids: Vec<String> = scenario.units.iter().map(|u| u.id.clone()).collect();
    ids.extend(scenario.leaders.iter().map(|l| l.id.clone()));
    let head = Head::of(&game);
    let seal = game.seal();
    let chain = seal.start();
    let mut r = Run {
        seal,
        chain,
        seed,
        turn_limit,
        sides: scenario.sides.iter().map(|s| s.id.clone()).collect(),
        ids,
        head,
        game,
        engine,
        source: match moves {
            Some(m) => Source::Script(m.iter()),
            None => Source::Random(Box::new(DiceStream::from_seed(
                seed ^ 0xf022_5eed_0fc4_01ce,
            ))),
        },
        checks: DiceStream::from_seed(seed ^ 0xc4ec_5eed_5ec2_e75a),
        before: Vec::new(),
        restore: None,
        pending: None,
        odds_parts: true,
        weights: None,
        played,
    };
    if let Source::Random(g) = &mut r.source {
        if one_in(g, 2) {
            r.weights = Some(BTreeMap::new());
        }
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Step<()> {
        while r.step()? {}
        r.check_end()
    }));
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(f)) => Some(f),
        Err(p) => {
            let m = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Some(Failure {
                check: Check::Panic,
                step: r.played.steps,
                turn: r.turn(),
                message: format!("panicked: {m}"),
            })
        }
    };
    if failure.is_some() {
        r.played.failing = r.pending.take();
    }
    r.played.turns = r.turn().min(turn_limit);
    r.played.ending = if failure.is_some() {
        Ending::Failed
    } else if r.over() {
        Ending::Rules
    } else if r.played.steps >= MAX_STEPS {
        Ending::StepLimit
    } else {
        Ending::TurnLimit
    };
    if r.played.ending == Ending::Rules {
        r.played.file = serde_json::to_string_pretty(&r.game).ok();
    }
    r.played.failure = failure;
    r.played
}

/// The shortest list of moves found that still fails `check` (delta debugging: chunks of the
/// moves are dropped while the game still fails the same check), within `tries` replays. Starts
/// from the moves up to the failure.
pub fn shrink(
    scenario: &Scenario,
    seed: u64,
    turn_limit: u32,
    moves: &[Move],
    check: Check,
    tries: u32,
) -> Vec<Move> {
    // The moves that were made up to the failure, and the failing one.
    let fails = |m: &[Move]| -> Option<Vec<Move>> {
        let p = replay(scenario, seed, turn_limit, m);
        p.failure.filter(|f| f.check == check).map(|_| {
            let mut made = p.moves.clone();
            made.extend(p.failing);
            made
        })
    };
    let mut cur = fails(moves).unwrap_or_else(|| moves.to_vec());
    let mut left = tries;
    let mut n = 2usize;
    while cur.len() >= 2 && left > 0 {
        let chunk = cur.len().div_ceil(n);
        let mut reduced = false;
        let parts = n;
        for i in 0..parts {
            if left == 0 {
                break;
            }
            let lo = i * chunk;
            if lo >= cur.len() {
                break;
            }
            let hi = (lo + chunk).min(cur.len());
            let mut candidate = cur[..lo].to_vec();
            candidate.extend_from_slice(&cur[hi..]);
            left -= 1;
            if let Some(made) = fails(&candidate) {
                if made.len() < cur.len() {
                    cur = made;
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= cur.len() {
                break;
            }
            n = (n * 2).min(cur.len());
        }
    }
    cur
}

/// One χ² test of an action kind's outcomes against the probabilities predicted at each roll.
#[derive(Debug, Clone, Serialize)]
pub struct ChiTest {
    pub kind: String,
    pub rolls: u64,
    /// Cells after pooling those expected fewer than 5 times.
    pub cells: usize,
    pub statistic: f64,
    pub p: f64,
    /// The false-alarm rate each test is held to (the run's, shared among its tests).
    pub alpha: f64,
    pub passed: bool,
}

/// An action kind's name, its rolls, and its cells (observed, expected) after pooling.
type Pooled = (String, u64, Vec<(u64, f64)>);

/// The χ² test of each action kind whose outcomes vary, at an overall false-alarm rate of
/// `alpha` shared equally among the tests (Bonferroni). Cells expected fewer than 5 times are
/// pooled together (and with the smallest other cell, while the pool is still under 5); a kind
/// left with one cell is not tested.
pub fn chi_square_tests(tally: &Tally, alpha: f64) -> Vec<ChiTest> {
    let pooled: Vec<Pooled> = tally
        .kinds
        .iter()
        .map(|(k, t)| {
            let mut cells: Vec<(u64, f64)> = t.cells.values().copied().collect();
            cells.sort_by(|a, b| a.1.total_cmp(&b.1));
            let mut small = (0u64, 0.0f64);
            let mut big: Vec<(u64, f64)> = Vec::new();
            for c in cells {
                if c.1 < 5.0 {
                    small.0 += c.0;
                    small.1 += c.1;
                } else {
                    big.push(c);
                }
            }
            if small.1 > 0.0 || small.0 > 0 {
                if small.1 < 5.0 && !big.is_empty() {
                    // Still too small: into the smallest of the others.
                    big[0].0 += small.0;
                    big[0].1 += small.1;
                } else {
                    big.push(small);
                }
            }
            (k.clone(), t.rolls, big)
        })
        .filter(|(_, _, cells)| cells.len() >= 2)
        .collect();
    let each = alpha / pooled.len().max(1) as f64;
    pooled
        .into_iter()
        .map(|(kind, rolls, cells)| {
            let observed: Vec<u64> = cells.iter().map(|c| c.0).collect();
            let expected: Vec<f64> = cells.iter().map(|c| c.1).collect();
            let statistic = tercio_core::stats::chi_square(&observed, &expected);
            let df = u32::try_from(cells.len() - 1).unwrap_or(u32::MAX);
            let p = tercio_core::stats::chi_square_p(statistic, df);
            ChiTest {
                kind,
                rolls,
                cells: cells.len(),
                statistic,
                p,
                alpha: each,
                passed: p >= each,
            }
        })
        .collect()
}

/// A run's games added up, per scenario.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub games: u64,
    pub steps: u64,
    pub actions: u64,
    pub undos: u64,
    pub table_dice: u64,
    pub questions: u64,
    pub refusals: u64,
    /// How many games ended each way.
    pub endings: BTreeMap<String, u64>,
    /// How many times each action was recorded (undone or not).
    pub kinds: BTreeMap<String, u64>,
    /// How many games failed each check.
    pub failures: BTreeMap<String, u64>,
}

impl Summary {
    pub fn add(&mut self, p: &Played) {
        self.games += 1;
        self.steps += p.steps;
        self.actions += p.actions;
        self.undos += p.undos;
        self.table_dice += p.table_dice;
        self.questions += p.questions;
        self.refusals += p.refusals;
        let ending = serde_json::to_value(p.ending)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        *self.endings.entry(ending).or_insert(0) += 1;
        for m in &p.moves {
            if let Move::Act { action, .. } = m {
                let k = action["action"].as_str().unwrap_or("?").to_string();
                *self.kinds.entry(k).or_insert(0) += 1;
            }
        }
        if let Some(f) = &p.failure {
            *self.failures.entry(f.check.name().to_string()).or_insert(0) += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fair_tally_passes_and_a_loaded_one_fails() {
        // 6,000 rolls of a die predicted fair: seen fair, then seen loaded towards 6.
        let table = |counts: [u64; 6]| {
            let mut t = Tally::default();
            let k = t.kinds.entry("roll".into()).or_default();
            k.rolls = 6000;
            for (i, c) in counts.iter().enumerate() {
                k.cells.insert(format!("face={}", i + 1), (*c, 1000.0));
            }
            t
        };
        let fair = chi_square_tests(&table([990, 1012, 1003, 985, 1020, 990]), 0.001);
        assert!(fair[0].passed, "{fair:?}");
        let loaded = chi_square_tests(&table([900, 900, 900, 900, 900, 1500]), 0.001);
        assert!(!loaded[0].passed, "{loaded:?}");
    }

    #[test]
    fn small_cells_are_pooled_and_a_single_cell_is_not_tested() {
        let mut t = Tally::default();
        let k = t.kinds.entry("a".into()).or_default();
        k.cells.insert("x".into(), (100, 100.0));
        k.cells.insert("y".into(), (2, 1.5));
        k.cells.insert("z".into(), (1, 2.0));
        let tests = chi_square_tests(&t, 0.001);
        // y and z pool to 3.5 expected, still under 5: into x, leaving one cell.
        assert!(tests.is_empty(), "{tests:?}");
        let k = t.kinds.entry("a".into()).or_default();
        k.cells.insert("w".into(), (3, 4.0));
        let tests = chi_square_tests(&t, 0.001);
        assert_eq!(tests[0].cells, 2, "{tests:?}");
    }

    #[test]
    fn the_first_difference_is_named_by_its_pointer() {
        let a = json!({"a": [1, {"b": 2}], "c": 3});
        let b = json!({"a": [1, {"b": 5}], "c": 3});
        assert!(first_difference(&a, &b, "").starts_with("/a/1/b"));
    }
}
