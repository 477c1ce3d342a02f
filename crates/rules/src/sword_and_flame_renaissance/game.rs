//! The turn of The Sword and the Flame, Renaissance adaptation, as a game state folded from
//! absolute effects (design section 3): the spent units' test, the movement and fire steps driven
//! by the activation deck, the fire morale tests, charges with their close combats, and the end of
//! the turn (rallying the routed, reload markers, the spirit of each army). Still to come:
//! evasion, breaking off, field officers' moves, the optional rules, weather.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::{Plan, Step};

use super::resolve::{self, MoraleRequest, MoveRequest, Thresholds};
use super::tables::{self, Order, Test};
use crate::registry::{Outcome, Rejection};
use crate::scenario::Scenario;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Step 1: spent units test to stay.
    Start,
    /// Step 2: a card per unit, red or black, until every unit has had its chance to move.
    Movement,
    /// Step 3: the same for every unit able to fire.
    Fire,
    /// Steps 4-7: fire morale, charges and close combats.
    Melee,
    Over,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Steady,
    Shaken,
    Routed,
    /// Removed, destroyed or dispersed: off the table.
    Gone,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitState {
    pub id: String,
    pub name: String,
    pub side: String,
    pub troop: String,
    pub order: Order,
    pub figures_start: u8,
    pub figures: u8,
    pub leaders: u8,
    pub status: Status,
    pub reload: u8,
    pub pistols_empty: bool,
    pub moved: bool,
    pub routed_turn: Option<u32>,
    pub field_officer: bool,
    /// Figures lost to fire this turn (for the fire morale test of step 4).
    #[serde(default)]
    pub fire_losses: u8,
    /// Swiss pike (+1 To Close against pikes; two leaders).
    #[serde(default)]
    pub swiss: bool,
    /// Its lances are spent (after its first close combat).
    #[serde(default)]
    pub lance_used: bool,
}

impl UnitState {
    /// "Spent" units have lost more than half (decision 44: exactly half is worn).
    pub fn spent(&self) -> bool {
        u32::from(self.figures_start - self.figures) * 2 > u32::from(self.figures_start)
    }
    pub fn worn(&self) -> bool {
        self.figures < self.figures_start && !self.spent()
    }
    pub fn on_table(&self) -> bool {
        self.status != Status::Gone
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideState {
    pub id: String,
    pub name: String,
    /// Red cards (hearts, diamonds) activate this side; the scenario's first side is red.
    pub red: bool,
    /// Units and guns at the start (the spirit's S).
    pub start: u32,
}

/// The activation deck: only the colours left matter for who moves next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deck {
    pub red: u8,
    pub black: u8,
}

impl Deck {
    pub const FULL: Deck = Deck { red: 26, black: 26 };
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub turn: u32,
    pub phase: Phase,
    pub sides: Vec<SideState>,
    pub units: BTreeMap<String, UnitState>,
    pub deck: Deck,
    /// Units that have had their chance in this phase.
    pub acted: BTreeSet<String>,
    /// The side whose card was drawn and who now names a unit.
    pub current: Option<String>,
    /// The sides whose army spirit failed (the game ends when a side has nothing left).
    pub broken: Vec<String>,
    /// Step 4 has been taken this turn.
    #[serde(default)]
    pub fire_morale_done: bool,
    /// Close combats use the company version (scenario option; default the figure version).
    #[serde(default)]
    pub company_combat: bool,
}

/// Absolute effects: folding them needs no dice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "kebab-case")]
pub enum Effect {
    Unit(UnitState),
    Phase { turn: u32, phase: Phase },
    Deck(Deck),
    Acted { unit: String },
    NewPhase,
    Current { side: Option<String> },
    Broken { sides: Vec<String> },
    FireMoraleDone { done: bool },
}

pub fn apply(st: &mut State, e: &Effect) {
    match e {
        Effect::Unit(u) => {
            st.units.insert(u.id.clone(), u.clone());
        }
        Effect::Phase { turn, phase } => {
            st.turn = *turn;
            st.phase = *phase;
        }
        Effect::Deck(d) => st.deck = *d,
        Effect::Acted { unit } => {
            st.acted.insert(unit.clone());
            st.current = None;
        }
        Effect::NewPhase => {
            st.acted.clear();
            st.current = None;
            st.deck = Deck::FULL;
        }
        Effect::Current { side } => st.current = side.clone(),
        Effect::Broken { sides } => st.broken = sides.clone(),
        Effect::FireMoraleDone { done } => st.fire_morale_done = *done,
    }
}

/// A new game's state from a scenario: figures from `bases`, orders from the flags `closed`,
/// `open`, `skirmish` (else the type's own), leaders two for Swiss and Spanish pike (decision 6).
pub fn initial(sc: &Scenario) -> Result<State, String> {
    let mut units = BTreeMap::new();
    for u in &sc.units {
        let t =
            tables::troop(&u.troop).ok_or(format!("unit {}: unknown type {}", u.id, u.troop))?;
        let order = if u.flags.iter().any(|f| f == "skirmish") {
            Order::Skirmish
        } else if u.flags.iter().any(|f| f == "closed") {
            Order::Closed
        } else if u.flags.iter().any(|f| f == "open") {
            Order::Open
        } else {
            resolve::orders(t).0
        };
        let two = t.id == "pikemen" && u.flags.iter().any(|f| f == "swiss" || f == "spanish");
        let leaders = match t.kind {
            tables::Kind::Gun | tables::Kind::Train => 0,
            _ if t.figures <= 5 => 0, // sub-units have no leaders (001, UNIT LEADERS & OFFICERS)
            _ => 1 + u8::from(two),
        };
        units.insert(
            u.id.clone(),
            UnitState {
                id: u.id.clone(),
                name: u.name.clone(),
                side: u.side.clone(),
                troop: u.troop.clone(),
                order,
                figures_start: u.bases,
                figures: u.bases,
                leaders,
                status: Status::Steady,
                reload: 0,
                pistols_empty: false,
                moved: false,
                routed_turn: None,
                field_officer: false,
                fire_losses: 0,
                swiss: u.flags.iter().any(|f| f == "swiss"),
                lance_used: false,
            },
        );
    }
    let sides = sc
        .sides
        .iter()
        .enumerate()
        .map(|(i, s)| SideState {
            id: s.id.clone(),
            name: s.name.clone(),
            red: i == 0,
            start: sc
                .units
                .iter()
                .filter(|u| u.side == s.id && !matches!(u.troop.as_str(), "riflemen" | "wagon"))
                .count() as u32,
        })
        .collect();
    Ok(State {
        turn: 1,
        phase: Phase::Start,
        sides,
        units,
        deck: Deck::FULL,
        acted: BTreeSet::new(),
        current: None,
        broken: Vec::new(),
        fire_morale_done: false,
        company_combat: false,
    })
}

/// The actions of the turn so far.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Action {
    /// Step 1, then on to the movement cards.
    StartTurn,
    /// Draw the next activation card (or, when one side is done, give the other its turn).
    Draw,
    /// The side whose card it is moves one unit.
    Move {
        unit: String,
        #[serde(default)]
        uphill: bool,
        #[serde(default)]
        downhill: bool,
        #[serde(default)]
        obstacle: bool,
        #[serde(default)]
        woods: bool,
    },
    /// The side whose card it is fires one unit (the game master gives what the table shows:
    /// range band, target class, figures that may fire).
    Fire {
        unit: String,
        target: String,
        #[serde(default)]
        range: Option<tables::Range>,
        target_class: u8,
        firers: u8,
        /// Reiters firing both pistols.
        #[serde(default)]
        double: bool,
    },
    /// The unit lets its chance pass.
    Pass { unit: String },
    /// Step 4: every unit that took fire casualties tests (decision 8).
    FireMorale,
    /// Steps 5-7 for one charge: To Close, To Stand, the close combat, the loser's test.
    Charge {
        charger: String,
        target: String,
        /// The charger started its move behind the target (decision 27).
        #[serde(default)]
        rear: bool,
        #[serde(default)]
        across_wall: bool,
        #[serde(default)]
        climbing: bool,
        /// The target is a pike square.
        #[serde(default)]
        square: bool,
        /// Pikes on either side fight in broken ground or built-up areas.
        #[serde(default)]
        broken_ground: bool,
    },
    /// Steps 8-10: rally the routed, remove a reload marker, each army's spirit.
    EndTurn,
}

/// What a resolution has gathered so far.
#[derive(Debug, Clone, Default)]
struct Acc {
    steps: Vec<Step>,
    effects: Vec<Effect>,
    summary: Vec<String>,
    facets: Vec<(String, String)>,
}

impl Acc {
    fn with(mut self, o: Outcome) -> Self {
        self.steps.extend(o.resolution.steps);
        self.summary.push(o.resolution.summary);
        self.facets.extend(o.facets);
        self
    }
    fn finish(self, action: &str) -> Outcome {
        Outcome {
            resolution: tercio_core::Resolution {
                action: action.into(),
                summary: if self.summary.is_empty() {
                    "Done".into()
                } else {
                    self.summary.join(". ")
                },
                steps: self.steps,
            },
            effects: serde_json::to_value(&self.effects).unwrap_or(Value::Null),
            facets: self.facets,
        }
    }
}

fn passed(o: &Outcome) -> bool {
    o.facets.iter().any(|(k, v)| k == "passed" && v == "yes")
}

fn reject(code: &str, field: Option<&str>, m: impl Into<String>) -> Rejection {
    Rejection::new(code, field, m)
}

/// The units of `side` still to have their chance in this phase.
fn waiting<'a>(st: &'a State, side: &'a str) -> impl Iterator<Item = &'a UnitState> + 'a {
    st.units.values().filter(move |u| {
        u.side == side
            && u.on_table()
            && !st.acted.contains(&u.id)
            && (st.phase != Phase::Fire || can_fire(u))
    })
}

/// Able to fire in the fire phase (design 3.1 step 3).
pub fn can_fire(u: &UnitState) -> bool {
    let weapon = tables::troop(&u.troop).and_then(|t| t.weapon);
    weapon.is_some()
        && u.status != Status::Routed
        && u.reload == 0
        && !u.pistols_empty
        && !(weapon == Some(tables::Weapon::LightCannon) && u.moved)
}

fn morale_req(test: Test, u: &UnitState) -> MoraleRequest {
    MoraleRequest {
        test,
        leaderless: u.leaders == 0 && !u.field_officer,
        spent: u.spent(),
        field_officer: u.field_officer,
        gendarmes_vs_lighter_cavalry: false,
        swiss_vs_pikes: false,
        attacked_in_rear: false,
        shaken: matches!(u.status, Status::Shaken | Status::Routed),
        infantry_breaking_off_from_cavalry: false,
        artillerists: false,
    }
}

/// Run `each` over `items` in order, gathering into one resolution.
fn chain<I: Clone + 'static>(
    acc: Acc,
    items: Vec<I>,
    each: std::rc::Rc<dyn Fn(Acc, I) -> Plan<Acc>>,
) -> Plan<Acc> {
    let mut items = items;
    if items.is_empty() {
        return Plan::Done(acc);
    }
    let first = items.remove(0);
    let rest = items;
    let each2 = each.clone();
    each(acc, first).and_then(move |a| chain(a, rest.clone(), each2.clone()))
}

pub fn plan(st: &State, th: Thresholds, action: &Action) -> Result<Plan<Outcome>, Rejection> {
    if st.phase == Phase::Over {
        return Err(reject("game-over", None, "the battle is over"));
    }
    match action {
        Action::StartTurn => start_turn(st, th),
        Action::Draw => draw(st),
        Action::Move {
            unit,
            uphill,
            downhill,
            obstacle,
            woods,
        } => move_unit(st, th, unit, [*uphill, *downhill, *obstacle, *woods]),
        Action::Fire {
            unit,
            target,
            range,
            target_class,
            firers,
            double,
        } => fire(
            st,
            th,
            unit,
            target,
            *range,
            *target_class,
            *firers,
            *double,
        ),
        Action::Pass { unit } => {
            let u = activated(st, unit)?;
            let mut acc = Acc::default();
            acc.effects.push(Effect::Acted { unit: u.id.clone() });
            acc.summary.push(format!("{} lets its chance pass", u.name));
            Ok(Plan::Done(acc.finish("pass")))
        }
        Action::FireMorale => fire_morale(st, th),
        Action::Charge {
            charger,
            target,
            rear,
            across_wall,
            climbing,
            square,
            broken_ground,
        } => charge(
            st,
            th,
            charger,
            target,
            [*rear, *across_wall, *climbing, *square, *broken_ground],
        ),
        Action::EndTurn => end_turn(st, th),
    }
}

fn need_phase(st: &State, p: Phase, what: &str) -> Result<(), Rejection> {
    if st.phase != p {
        return Err(reject(
            "wrong-phase",
            None,
            format!(
                "{what} belongs to another step of the turn (now: {:?})",
                st.phase
            ),
        ));
    }
    Ok(())
}

/// Step 1: "Test ... morale for any unit which is "Spent" ... which does not have a field officer
/// attached to it ... If it fails, it is removed from the field immediately." (Stand and Fight,
/// decision 2.)
fn start_turn(st: &State, th: Thresholds) -> Result<Plan<Outcome>, Rejection> {
    need_phase(st, Phase::Start, "start-turn")?;
    let spent: Vec<UnitState> = st
        .units
        .values()
        .filter(|u| u.on_table() && u.spent() && !u.field_officer && u.figures_start > 0)
        .cloned()
        .collect();
    let mut acc = Acc::default();
    acc.effects.push(Effect::Phase {
        turn: st.turn,
        phase: Phase::Movement,
    });
    acc.effects.push(Effect::NewPhase);
    let each: std::rc::Rc<dyn Fn(Acc, UnitState) -> Plan<Acc>> = std::rc::Rc::new(move |acc, u| {
        match resolve::plan(
            &resolve::Request::Morale(morale_req(Test::StandAndFight, &u)),
            &th,
        ) {
            Ok(p) => p.map(move |o| {
                let stays = passed(&o);
                let mut acc = acc.clone().with(o);
                acc.summary.pop();
                acc.summary.push(format!(
                    "{} (spent) {}",
                    u.name,
                    if stays { "stays" } else { "leaves the field" }
                ));
                if !stays {
                    acc.effects.push(Effect::Unit(UnitState {
                        status: Status::Gone,
                        ..u.clone()
                    }));
                }
                acc
            }),
            Err(_) => Plan::Done(acc),
        }
    });
    Ok(chain(acc, spent, each).map(|a| a.finish("start-turn")))
}

/// Step 2/3: the next card. When both sides have units waiting, a card of the activation deck
/// decides (reshuffled full when empty, decision 16); when one side is done the other goes on
/// without cards; when both are done the phase ends.
fn draw(st: &State) -> Result<Plan<Outcome>, Rejection> {
    if !matches!(st.phase, Phase::Movement | Phase::Fire) {
        return Err(reject(
            "wrong-phase",
            None,
            "cards are drawn in the movement and fire steps",
        ));
    }
    if st.current.is_some() {
        return Err(reject(
            "unit-to-name",
            None,
            "the side whose card was drawn names a unit first (move, fire or pass)",
        ));
    }
    let (red, black) = match (
        st.sides.iter().find(|s| s.red),
        st.sides.iter().find(|s| !s.red),
    ) {
        (Some(r), Some(b)) => (r.clone(), b.clone()),
        _ => {
            return Err(reject(
                "bad-sides",
                None,
                "the game needs a red and a black side",
            ))
        }
    };
    let red_waiting = waiting(st, &red.id).count();
    let black_waiting = waiting(st, &black.id).count();
    let phase_name = if st.phase == Phase::Movement {
        "movement"
    } else {
        "fire"
    };
    let mut acc = Acc::default();
    match (red_waiting > 0, black_waiting > 0) {
        (false, false) => {
            let next = if st.phase == Phase::Movement {
                Phase::Fire
            } else {
                Phase::Melee
            };
            acc.effects.push(Effect::Phase {
                turn: st.turn,
                phase: next,
            });
            acc.effects.push(Effect::NewPhase);
            acc.summary.push(format!(
                "every unit has had its chance in the {phase_name} step"
            ));
            Ok(Plan::Done(acc.finish("draw")))
        }
        (true, false) | (false, true) => {
            let side = if red_waiting > 0 { &red } else { &black };
            acc.effects.push(Effect::Current {
                side: Some(side.id.clone()),
            });
            acc.summary.push(format!(
                "{} names its next unit (the other side is done; no card needed)",
                side.name
            ));
            Ok(Plan::Done(acc.finish("draw")))
        }
        (true, true) => {
            let deck = if st.deck.red + st.deck.black == 0 {
                Deck::FULL
            } else {
                st.deck
            };
            // Cards numbered 1-52: 1-26 red, 27-52 black; only the colours left matter.
            let left: Vec<u8> = (1..=deck.red).chain(27..27 + deck.black).collect();
            Ok(Plan::card(
                "Activation card",
                52,
                left,
                |c| u8::from(c <= 26),
                move |c| {
                    let is_red = c <= 26;
                    let side = if is_red { &red } else { &black };
                    let mut acc = acc.clone();
                    acc.steps.push(Step {
                        title: format!(
                            "Activation card ({phase_name} step): {} red and {} black left",
                            deck.red, deck.black
                        ),
                        dice: Vec::new(),
                        modifiers: Vec::new(),
                        totals: Vec::new(),
                        result: format!(
                            "{} — {} names a unit",
                            if is_red { "red" } else { "black" },
                            side.name
                        ),
                    });
                    acc.effects.push(Effect::Deck(Deck {
                        red: deck.red - u8::from(is_red),
                        black: deck.black - u8::from(!is_red),
                    }));
                    acc.effects.push(Effect::Current {
                        side: Some(side.id.clone()),
                    });
                    acc.summary.push(format!(
                        "{} card: {}",
                        if is_red { "red" } else { "black" },
                        side.name
                    ));
                    acc.facets
                        .push(("card".into(), if is_red { "red" } else { "black" }.into()));
                    Plan::Done(acc.finish("draw"))
                },
            ))
        }
    }
}

/// The unit the current side names: its own, on the table, not yet activated this phase.
fn activated<'a>(st: &'a State, unit: &str) -> Result<&'a UnitState, Rejection> {
    let u = st.units.get(unit).ok_or_else(|| {
        reject(
            "unknown-unit",
            Some("unit"),
            format!("unit: no unit \"{unit}\""),
        )
    })?;
    match &st.current {
        Some(side) if *side == u.side => {}
        Some(_) => {
            return Err(reject(
                "not-your-card",
                Some("unit"),
                "unit: the card drawn is the other side's",
            ))
        }
        None => return Err(reject("no-card", None, "draw a card first")),
    }
    if !u.on_table() {
        return Err(reject(
            "unit-gone",
            Some("unit"),
            "unit: no longer on the table",
        ));
    }
    if st.acted.contains(&u.id) {
        return Err(reject(
            "already-acted",
            Some("unit"),
            "unit: has had its chance in this step",
        ));
    }
    Ok(u)
}

/// A movement card: shaken units try to rally first (Stand and Fight, −1); routed units may not
/// move; a unit without leaders tests To Close to move (decision 42); then the movement dice.
fn move_unit(
    st: &State,
    th: Thresholds,
    unit: &str,
    ground: [bool; 4],
) -> Result<Plan<Outcome>, Rejection> {
    need_phase(st, Phase::Movement, "move")?;
    let u = activated(st, unit)?.clone();
    let mut acc = Acc::default();
    acc.effects.push(Effect::Acted { unit: u.id.clone() });
    if u.status == Status::Routed {
        acc.summary.push(format!(
            "{} is routed and may not move (001, ROUTED UNITS)",
            u.name
        ));
        return Ok(Plan::Done(acc.finish("move")));
    }
    let loading = u.reload > 0;
    let mv = MoveRequest {
        troop: u.troop.clone(),
        order: Some(u.order),
        uphill: ground[0],
        downhill: ground[1],
        obstacle: ground[2],
        woods: ground[3],
        loading,
        dismounting: false,
    };
    let dice = resolve::plan(&resolve::Request::Move(mv), &th)?;
    let test = if u.status == Status::Shaken {
        Some((
            Test::StandAndFight,
            "rallies from shaken",
            "stays shaken and does not move",
        ))
    } else if u.leaders == 0
        && !u.field_officer
        && tables::troop(&u.troop).is_some_and(|t| t.figures > 5)
    {
        Some((
            Test::ToClose,
            "moves (no leader: To Close to move)",
            "does not move (no leader)",
        ))
    } else {
        None
    };
    let name = u.name.clone();
    let moved = move |acc: Acc, u: UnitState| {
        dice.clone().map(move |o| {
            let mut acc = acc.clone().with(o);
            acc.effects.push(Effect::Unit(UnitState {
                moved: true,
                ..u.clone()
            }));
            acc
        })
    };
    Ok(match test {
        None => moved(acc, u),
        Some((t, yes, no)) => {
            let req = morale_req(t, &u);
            resolve::plan(&resolve::Request::Morale(req), &th)?.and_then(move |o| {
                let pass = passed(&o);
                let mut acc = acc.clone().with(o);
                acc.summary.pop();
                acc.summary
                    .push(format!("{name} {}", if pass { yes } else { no }));
                if pass {
                    let u = UnitState {
                        status: if u.status == Status::Shaken {
                            Status::Steady
                        } else {
                            u.status
                        },
                        ..u.clone()
                    };
                    moved(acc, u)
                } else {
                    Plan::Done(acc)
                }
            })
        }
    }
    .map(|a| a.finish("move")))
}

/// A fire card: the unit fires at an enemy unit; each hit draws a casualty card (an ace takes one
/// of the target's leaders while it has any, decision 15); reload markers go on (decision 11; a
/// double pistol fire empties the pistols instead, decision 12).
#[allow(clippy::too_many_arguments)]
fn fire(
    st: &State,
    th: Thresholds,
    unit: &str,
    target: &str,
    range: Option<tables::Range>,
    target_class: u8,
    firers: u8,
    double: bool,
) -> Result<Plan<Outcome>, Rejection> {
    need_phase(st, Phase::Fire, "fire")?;
    let u = activated(st, unit)?.clone();
    if !can_fire(&u) {
        return Err(reject("cannot-fire", Some("unit"), "unit: has no missile weapon, is routed, holds a reload marker or emptied its pistols, or is a light gun that moved"));
    }
    let t = st
        .units
        .get(target)
        .filter(|t| t.on_table())
        .ok_or_else(|| {
            reject(
                "unknown-target",
                Some("target"),
                format!("target: no unit \"{target}\" on the table"),
            )
        })?
        .clone();
    if t.side == u.side {
        return Err(reject("own-side", Some("target"), "target: an enemy unit"));
    }
    if firers > u.figures {
        return Err(reject(
            "too-many-firers",
            Some("firers"),
            format!("firers: {} has {} figures", u.name, u.figures),
        ));
    }
    let weapon = tables::troop(&u.troop)
        .and_then(|t| t.weapon)
        .ok_or_else(|| reject("cannot-fire", Some("unit"), "unit: has no missile weapon"))?;
    let req = resolve::FireRequest {
        weapon,
        range,
        target_class,
        firers,
        shaken: u.status == Status::Shaken,
        light_rain: false,
        double,
        target_figures: Some(t.figures),
    };
    let p = resolve::plan(&resolve::Request::Fire(req), &th)?;
    Ok(p.map(move |o| {
        let count = |k: &str| -> u8 {
            o.facets
                .iter()
                .find(|(f, _)| f == k)
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0)
        };
        let (hits, aces) = (count("hits").min(t.figures), count("officers hit"));
        let leaders_hit = aces.min(t.leaders);
        let figures = t.figures - hits;
        let mut acc = Acc::default().with(o);
        acc.effects.push(Effect::Unit(UnitState {
            figures,
            leaders: (t.leaders - leaders_hit).min(figures),
            fire_losses: t.fire_losses.saturating_add(hits),
            status: if figures == 0 { Status::Gone } else { t.status },
            ..t.clone()
        }));
        acc.effects.push(Effect::Unit(UnitState {
            reload: if double {
                0
            } else {
                tables::reload_markers(weapon)
            },
            pistols_empty: double,
            ..u.clone()
        }));
        acc.effects.push(Effect::Acted { unit: u.id.clone() });
        if leaders_hit > 0 {
            acc.summary
                .push(format!("{} loses {leaders_hit} leader(s)", t.name));
        }
        acc.finish("fire")
    }))
}

/// Steps 8-10: routed units that routed in an earlier turn rally or leave; one reload marker comes
/// off every unit (reiters' pistols are reloaded by a motionless turn, decision 12); each army
/// rolls its spirit; then the next turn.
fn end_turn(st: &State, th: Thresholds) -> Result<Plan<Outcome>, Rejection> {
    need_phase(st, Phase::Melee, "end-turn")?;
    let turn = st.turn;
    let routed: Vec<UnitState> = st
        .units
        .values()
        .filter(|u| u.status == Status::Routed && u.routed_turn.is_some_and(|t| t < turn))
        .cloned()
        .collect();
    let rally: std::rc::Rc<dyn Fn(Acc, UnitState) -> Plan<Acc>> =
        std::rc::Rc::new(move |acc, u| {
            match resolve::plan(
                &resolve::Request::Morale(morale_req(Test::StandAndFight, &u)),
                &th,
            ) {
                Ok(p) => p.map(move |o| {
                    let pass = passed(&o);
                    let mut acc = acc.clone().with(o);
                    acc.summary.pop();
                    acc.summary.push(format!(
                        "{} {}",
                        u.name,
                        if pass {
                            "rallies, shaken"
                        } else {
                            "leaves the field"
                        }
                    ));
                    acc.effects.push(Effect::Unit(UnitState {
                        status: if pass { Status::Shaken } else { Status::Gone },
                        routed_turn: None,
                        ..u.clone()
                    }));
                    acc
                }),
                Err(_) => Plan::Done(acc),
            }
        });
    let st2 = st.clone();
    Ok(chain(Acc::default(), routed, rally)
        .and_then(move |acc| {
            // The state as it stands after the rallies.
            let mut now = st2.clone();
            for e in &acc.effects {
                apply(&mut now, e);
            }
            spirit_rolls(acc, now, th)
        })
        .map(|a| a.finish("end-turn")))
}

fn spirit_rolls(acc: Acc, now: State, th: Thresholds) -> Plan<Acc> {
    let sides = now.sides.clone();
    let now2 = now.clone();
    let each: std::rc::Rc<dyn Fn(Acc, SideState) -> Plan<Acc>> =
        std::rc::Rc::new(move |acc, side| {
            let units: Vec<&UnitState> = now2
                .units
                .values()
                .filter(|u| {
                    u.side == side.id
                        && u.on_table()
                        && !matches!(u.troop.as_str(), "riflemen" | "wagon")
                })
                .collect();
            let fresh = units
                .iter()
                .filter(|u| u.figures == u.figures_start)
                .count() as u32;
            let worn = units.iter().filter(|u| u.worn()).count() as u32;
            let req = resolve::SpiritRequest {
                fresh,
                worn: worn.min(side.start - fresh.min(side.start)),
                start: side.start.max(1),
            };
            let now3 = now2.clone();
            match resolve::plan(&resolve::Request::Spirit(req), &th) {
                Ok(p) => p.and_then(move |o| {
                    let good = o.facets.iter().any(|(k, v)| k == "spirit" && v == "good");
                    let mut acc = acc.clone().with(o);
                    acc.summary.pop();
                    acc.summary.push(format!(
                        "{}: spirit {}",
                        side.name,
                        if good { "good" } else { "poor" }
                    ));
                    if good {
                        return Plan::Done(acc);
                    }
                    // "1. All rounted units are removed from the field. 2. All spent units are
                    // removed from the field. 3. All shaken units rout" (001, THE SPIRIT OF THE ARMY).
                    let mut shaken = Vec::new();
                    for u in now3
                        .units
                        .values()
                        .filter(|u| u.side == side.id && u.on_table())
                    {
                        if u.status == Status::Routed || u.spent() {
                            acc.effects.push(Effect::Unit(UnitState {
                                status: Status::Gone,
                                ..u.clone()
                            }));
                        } else if u.status == Status::Shaken {
                            shaken.push(u.clone());
                        }
                    }
                    let turn = now3.turn;
                    let rout: std::rc::Rc<dyn Fn(Acc, UnitState) -> Plan<Acc>> =
                        std::rc::Rc::new(move |acc, u| rout_unit(acc, u, turn));
                    chain(acc, shaken, rout)
                }),
                Err(_) => Plan::Done(acc),
            }
        });
    chain(acc, sides, each).map(move |mut acc| {
        let mut next = now.clone();
        for e in &acc.effects {
            apply(&mut next, e);
        }
        for u in next.units.values().filter(|u| u.on_table()) {
            if u.reload > 0 || u.moved || u.pistols_empty || u.fire_losses > 0 {
                acc.effects.push(Effect::Unit(UnitState {
                    reload: u.reload.saturating_sub(1),
                    pistols_empty: u.pistols_empty && u.moved,
                    moved: false,
                    fire_losses: 0,
                    ..u.clone()
                }));
            }
        }
        let empty: Vec<String> = next
            .sides
            .iter()
            .filter(|s| !next.units.values().any(|u| u.side == s.id && u.on_table()))
            .map(|s| s.id.clone())
            .collect();
        if empty.is_empty() {
            acc.effects.push(Effect::Phase {
                turn: now.turn + 1,
                phase: Phase::Start,
            });
            acc.summary.push(format!("turn {} begins", now.turn + 1));
        } else {
            acc.effects.push(Effect::Broken { sides: empty });
            acc.effects.push(Effect::Phase {
                turn: now.turn,
                phase: Phase::Over,
            });
            acc.summary
                .push("an army has nothing left on the table: the battle is over".into());
        }
        acc
    })
}

/// A unit routs: "a D4 of casualties when they rout" (plain figures, decision 29), then a normal
/// move to the rear (the players move it).
fn rout_unit(acc: Acc, u: UnitState, turn: u32) -> Plan<Acc> {
    let d4 = resolve::plan(&resolve::Request::Rout, &Thresholds::default());
    match d4 {
        Ok(p) => p.map(move |o| {
            let lost: u8 = o
                .facets
                .iter()
                .find(|(k, _)| k == "figures lost")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let figures = u.figures.saturating_sub(lost);
            let mut acc = acc.clone().with(o);
            acc.summary.pop();
            acc.summary
                .push(format!("{} routs, losing {}", u.name, u.figures - figures));
            acc.effects.push(Effect::Unit(UnitState {
                figures,
                status: if figures == 0 {
                    Status::Gone
                } else {
                    Status::Routed
                },
                routed_turn: Some(turn),
                ..u.clone()
            }));
            acc
        }),
        Err(_) => Plan::Done(acc),
    }
}

/// Step 4: units that took fire casualties test once they have lost a quarter of their start
/// (To Stand; fail: shaken, or a rout if already shaken); routed units that took fire casualties
/// test Stand and Fight or leave (001, MORALE; ROUTED UNITS; decision 8). Guns never test
/// (decision 32).
fn fire_morale(st: &State, th: Thresholds) -> Result<Plan<Outcome>, Rejection> {
    need_phase(st, Phase::Melee, "fire-morale")?;
    if st.fire_morale_done {
        return Err(reject(
            "already-done",
            None,
            "the fire morale tests of this turn are taken",
        ));
    }
    let turn = st.turn;
    let testing: Vec<UnitState> = st
        .units
        .values()
        .filter(|u| {
            u.on_table()
                && u.fire_losses > 0
                && !matches!(
                    tables::troop(&u.troop).map(|t| t.kind),
                    Some(tables::Kind::Gun)
                )
                && (u.status == Status::Routed
                    || u32::from(u.figures_start - u.figures) * 4 >= u32::from(u.figures_start))
        })
        .cloned()
        .collect();
    let mut acc = Acc::default();
    acc.effects.push(Effect::FireMoraleDone { done: true });
    if testing.is_empty() {
        acc.summary
            .push("no unit has lost a quarter of its strength to fire".into());
    }
    let each: std::rc::Rc<dyn Fn(Acc, UnitState) -> Plan<Acc>> = std::rc::Rc::new(move |acc, u| {
        let test = if u.status == Status::Routed {
            Test::StandAndFight
        } else {
            Test::ToStand
        };
        match resolve::plan(&resolve::Request::Morale(morale_req(test, &u)), &th) {
            Ok(p) => p.and_then(move |o| {
                let pass = passed(&o);
                let mut acc = acc.clone().with(o);
                acc.summary.pop();
                match (pass, u.status) {
                    (true, _) => {
                        acc.summary.push(format!("{} holds under fire", u.name));
                        Plan::Done(acc)
                    }
                    (false, Status::Routed) => {
                        acc.summary
                            .push(format!("{} (routed) leaves the field", u.name));
                        acc.effects.push(Effect::Unit(UnitState {
                            status: Status::Gone,
                            ..u.clone()
                        }));
                        Plan::Done(acc)
                    }
                    (false, Status::Shaken) => rout_unit(acc, u.clone(), turn),
                    (false, _) => {
                        acc.summary
                            .push(format!("{} is shaken and falls back a normal move", u.name));
                        acc.effects.push(Effect::Unit(UnitState {
                            status: Status::Shaken,
                            ..u.clone()
                        }));
                        Plan::Done(acc)
                    }
                }
            }),
            Err(_) => Plan::Done(acc),
        }
    });
    Ok(chain(acc, testing, each).map(|a| a.finish("fire-morale")))
}

fn lighter_cavalry(id: &str) -> bool {
    matches!(
        id,
        "reiters" | "light-horse-arquebus" | "light-horse-crossbow" | "light-horse-spear"
    )
}

/// A charge, steps 5-7 (design 5.4 tests 4-6, section 6): the charger tests To Close (fail:
/// shaken, no contact); a routed target is destroyed, skirmishers and gun crews too; else the
/// target tests To Stand (fail: routs); then the whole close combat, and the loser tests Stand and
/// Fight (pass: falls back shaken; fail: routs). Each stage's odds are worked out once.
fn charge(
    st: &State,
    th: Thresholds,
    charger: &str,
    target: &str,
    [rear, across_wall, climbing, square, broken_ground]: [bool; 5],
) -> Result<Plan<Outcome>, Rejection> {
    need_phase(st, Phase::Melee, "charge")?;
    if !st.fire_morale_done {
        return Err(reject(
            "fire-morale-first",
            None,
            "take the fire morale tests (step 4) before the charges",
        ));
    }
    let get = |id: &str, field: &str| {
        st.units
            .get(id)
            .filter(|u| u.on_table())
            .cloned()
            .ok_or_else(|| {
                reject(
                    "unknown-unit",
                    Some(field),
                    format!("{field}: no unit \"{id}\" on the table"),
                )
            })
    };
    let a = get(charger, "charger")?;
    let b = get(target, "target")?;
    if a.side == b.side {
        return Err(reject("own-side", Some("target"), "target: an enemy unit"));
    }
    if matches!(a.status, Status::Shaken | Status::Routed) {
        return Err(reject("cannot-charge", Some("charger"), "charger: shaken and routed units may not move, so may not charge (001, SHAKEN UNITS; ROUTED UNITS)"));
    }
    let ta = tables::troop(&a.troop)
        .ok_or_else(|| reject("unknown-type", Some("charger"), "charger: unknown type"))?;
    let tb = tables::troop(&b.troop)
        .ok_or_else(|| reject("unknown-type", Some("target"), "target: unknown type"))?;
    if matches!(ta.kind, tables::Kind::Gun | tables::Kind::Train) || a.order == Order::Skirmish {
        return Err(reject(
            "cannot-charge",
            Some("charger"),
            "charger: guns, the train and skirmishers do not charge into close combat",
        ));
    }
    let mut close_req = morale_req(Test::ToClose, &a);
    close_req.gendarmes_vs_lighter_cavalry = ta.id == "gendarmes" && lighter_cavalry(tb.id);
    close_req.swiss_vs_pikes = a.swiss && ta.id == "pikemen" && tb.id == "pikemen";
    let to_close = resolve::plan(&resolve::Request::Morale(close_req), &th)?;
    let stand_req = morale_req(Test::ToStand, &b);
    let to_stand = resolve::plan(&resolve::Request::Morale(stand_req), &th)?;
    let version = if st.company_combat {
        resolve::Version::Company
    } else {
        resolve::Version::Figure
    };
    let side = |u: &UnitState, t: &tables::Troop, attacked_in_rear: bool, square: bool| {
        resolve::CombatSide {
            troop: u.troop.clone(),
            order: Some(u.order),
            figures: u.figures,
            leaders: u.leaders.min(u.figures),
            field_officer: u.field_officer,
            shaken: u.status == Status::Shaken,
            lance: !u.lance_used && matches!(t.id, "gendarmes" | "light-horse-spear"),
            climbing: false,
            across_wall: false,
            attacked_in_rear,
            square,
            broken_ground: broken_ground && t.id == "pikemen",
        }
    };
    let mut sa = side(&a, ta, false, false);
    sa.climbing = climbing;
    sa.across_wall = across_wall;
    let sb = side(&b, tb, rear && !square, square && tb.id == "pikemen");
    let combat = resolve::plan(
        &resolve::Request::CloseCombat(resolve::CombatRequest {
            version,
            a: sa,
            b: sb,
        }),
        &th,
    )?;
    let turn = st.turn;
    let instant = b.status == Status::Routed
        || b.order == Order::Skirmish
        || matches!(tb.kind, tables::Kind::Gun | tables::Kind::Train);
    let (a2, b2) = (a.clone(), b.clone());
    let plan = to_close.and_then(move |o| {
        let pass = passed(&o);
        let mut acc = Acc::default().with(o);
        acc.summary.pop();
        acc.facets = vec![("charge goes in".into(), if pass { "yes" } else { "no" }.into())];
        if !pass {
            acc.summary.push(format!("{} fails To Close: shaken, falls back a normal move (decision 9)", a2.name));
            acc.effects.push(Effect::Unit(UnitState { status: Status::Shaken, ..a2.clone() }));
            return Plan::Done(acc);
        }
        if instant {
            acc.summary.push(format!("{} is destroyed: routed units, skirmishers that do not evade and gun crews do not stand (001, ROUTED UNITS; ORDER; ADDITIONAL NOTES)", b2.name));
            acc.effects.push(Effect::Unit(UnitState { status: Status::Gone, ..b2.clone() }));
            acc.facets.push(("target".into(), "destroyed".into()));
            return Plan::Done(acc);
        }
        let (a3, b3, combat, to_stand) = (a2.clone(), b2.clone(), combat.clone(), to_stand.clone());
        // Everything after a passed To Close is the same whatever its dice: worked out once.
        Plan::memo("charge-in", move || {
            let (a4, b4, combat) = (a3.clone(), b3.clone(), combat.clone());
            let acc = acc.clone();
            to_stand.clone().and_then(move |o| {
                let stands = passed(&o);
                let mut acc = acc.clone().with(o);
                acc.summary.pop();
                if !stands {
                    acc.summary.push(format!("{} fails To Stand and routs", b4.name));
                    acc.facets.push(("target".into(), "routs".into()));
                    return rout_unit(acc, b4.clone(), turn);
                }
                let (a5, b5, combat) = (a4.clone(), b4.clone(), combat.clone());
                Plan::memo("stands", move || {
                    let (a6, b6) = (a5.clone(), b5.clone());
                    let acc = acc.clone();
                    combat.clone().and_then(move |o| {
                        after_combat(acc.clone(), o, a6.clone(), b6.clone(), rear, turn)
                    })
                })
            })
        })
    });
    Ok(plan.map(|a| a.finish("charge")))
}

/// After the close combat: losses to both units, lances spent, and the loser's Stand and Fight
/// (−2 if it was attacked in the rear): pass, falls back shaken; fail, routs.
fn after_combat(
    acc: Acc,
    o: Outcome,
    a: UnitState,
    b: UnitState,
    rear: bool,
    turn: u32,
) -> Plan<Acc> {
    let get = |k: &str| -> u8 {
        o.facets
            .iter()
            .find(|(f, _)| f == k)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0)
    };
    let a_wins = o.facets.iter().any(|(k, v)| k == "winner" && v == "A");
    let (la, lb) = (get("A figures lost"), get("B figures lost"));
    let mut acc = acc.with(o);
    acc.summary.pop();
    let hurt = |u: &UnitState, lost: u8| {
        let figures = u.figures.saturating_sub(lost);
        UnitState {
            figures,
            // The leaders fight last: they are the last to fall.
            leaders: u.leaders.min(figures),
            status: if figures == 0 { Status::Gone } else { u.status },
            lance_used: true,
            ..u.clone()
        }
    };
    let (a2, b2) = (hurt(&a, la), hurt(&b, lb));
    acc.effects.push(Effect::Unit(a2.clone()));
    acc.effects.push(Effect::Unit(b2.clone()));
    acc.facets.push((
        "winner".into(),
        if a_wins { "charger" } else { "target" }.into(),
    ));
    let loser = if a_wins { b2 } else { a2 };
    acc.summary.push(format!(
        "{} wins the close combat; losses {} {la}, {} {lb}",
        if a_wins { &a.name } else { &b.name },
        a.name,
        b.name
    ));
    if !loser.on_table() {
        return Plan::Done(acc);
    }
    let mut req = morale_req(Test::StandAndFight, &loser);
    req.attacked_in_rear = rear && loser.id == b.id;
    match resolve::plan(&resolve::Request::Morale(req), &Thresholds::default()) {
        Ok(p) => p.and_then(move |o| {
            let holds = passed(&o);
            let mut acc = acc.clone().with(o);
            acc.summary.pop();
            acc.facets.push((
                "loser".into(),
                if holds { "falls back shaken" } else { "routs" }.into(),
            ));
            if holds {
                acc.summary
                    .push(format!("{} falls back a normal move, shaken", loser.name));
                acc.effects.push(Effect::Unit(UnitState {
                    status: Status::Shaken,
                    ..loser.clone()
                }));
                Plan::Done(acc)
            } else {
                rout_unit(acc, loser.clone(), turn)
            }
        }),
        Err(_) => Plan::Done(acc),
    }
}
