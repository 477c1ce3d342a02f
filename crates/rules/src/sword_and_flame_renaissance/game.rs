//! The turn of The Sword and the Flame, Renaissance adaptation, as a game state folded from
//! absolute effects (design section 3): the spent units' test, the movement and fire steps driven
//! by the activation deck, the fire morale tests, charges with their close combats, and the end of
//! the turn (rallying the routed, reload markers, the spirit of each army); evasion, breaking off,
//! field officers, reiters' volleys as a charge closes, the optional rules and the weather.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use tercio_core::{Plan, Step};

use super::resolve::{self, MoraleRequest, MoveRequest, Thresholds};
use super::tables::{self, Order, Test};
use crate::interface::{input, Outcome, Rejection};
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
    /// Sub-units attached to a pike formation (troop ids, five figures each; decision 30).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sub_units: Vec<String>,
    /// Mounted arquebusiers or crossbowmen fighting on foot (001, OPTIONAL RULES, DISMOUNTING).
    #[serde(default)]
    pub dismounted: bool,
    /// Wounded figures the unit carries (optional rule, variant 1): 1" less per figure.
    #[serde(default)]
    pub wounded: u8,
    /// The colonel whose brigade it belongs to (optional rule, BRIGADE MOVEMENT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brigade: Option<String>,
    /// A heavy gun the game master permits to move (scenario flag `may-move`; decision 57).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub may_move: bool,
    /// Has charged this turn (one charge a turn, decision 62).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub charged: bool,
}

impl UnitState {
    /// A unit as it enters the battle: fresh, steady, no markers.
    pub fn fresh(
        (id, name, side): (&str, &str, &str),
        troop: &str,
        order: Order,
        figures: u8,
        leaders: u8,
    ) -> Self {
        UnitState {
            id: id.into(),
            name: name.into(),
            side: side.into(),
            troop: troop.into(),
            order,
            figures_start: figures,
            figures,
            leaders,
            status: Status::Steady,
            reload: 0,
            pistols_empty: false,
            moved: false,
            routed_turn: None,
            field_officer: false,
            fire_losses: 0,
            swiss: false,
            lance_used: false,
            sub_units: Vec::new(),
            dismounted: false,
            wounded: 0,
            brigade: None,
            may_move: false,
            charged: false,
        }
    }
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
    /// The scenario's optional rules (001, OPTIONAL RULES).
    #[serde(default)]
    pub options: Options,
    /// The weather is "light rain" (001, FIRE: +2 to each fire die).
    #[serde(default)]
    pub light_rain: bool,
    /// Field officers: generals and colonels.
    #[serde(default)]
    pub officers: BTreeMap<String, Officer>,
    /// Units the side whose card was drawn may still move on it (Quicker Movement's D4).
    #[serde(default)]
    pub moves_left: u8,
    /// Wounded figures per side under the "parties" variant: on their way, saved, captured.
    #[serde(default)]
    pub wounded: BTreeMap<String, Wounded>,
    /// The units in the scenario's order, for the board.
    #[serde(default)]
    pub roster: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// Quicker Movement: a D4 of units per movement card.
    #[serde(default)]
    pub quicker_movement: bool,
    /// Brigade Movement: a colonel's brigade moves on one card.
    #[serde(default)]
    pub brigade_movement: bool,
    /// Mounted arquebusiers and crossbowmen may dismount.
    #[serde(default)]
    pub dismounting: bool,
    /// Wounded and dead: 0 off, 1 wounded carried by their unit, 2 wounded parties to the rear.
    #[serde(default)]
    pub wounded: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rank {
    General,
    Colonel,
}

/// A field officer: an individual mounted figure (001, UNIT LEADERS & OFFICERS).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Officer {
    pub id: String,
    pub name: String,
    pub side: String,
    pub rank: Rank,
    /// The unit it is attached to ("visibly touching the unit").
    pub attached: Option<String>,
    /// Hit by fire or killed in close combat.
    pub down: bool,
    /// Has had its move this turn (decision 19).
    #[serde(default)]
    pub moved: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wounded {
    /// In parties on their way to the rear.
    pub marching: u32,
    pub saved: u32,
    pub captured: u32,
}

/// Absolute effects: folding them needs no dice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "kebab-case")]
pub enum Effect {
    Unit(UnitState),
    Phase {
        turn: u32,
        phase: Phase,
    },
    Deck(Deck),
    Acted {
        unit: String,
    },
    /// A unit that moved with another (a brigade): it has had its chance, the card goes on.
    AlsoActed {
        unit: String,
    },
    NewPhase,
    Current {
        side: Option<String>,
    },
    Broken {
        sides: Vec<String>,
    },
    FireMoraleDone {
        done: bool,
    },
    Officer(Officer),
    Weather {
        light_rain: bool,
    },
    MovesLeft {
        moves: u8,
    },
    Wounded {
        side: String,
        wounded: Wounded,
    },
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
            // Quicker Movement: the card moves several units; the last one ends it, or the
            // side's last unit waiting.
            if st.moves_left > 1 {
                st.moves_left -= 1;
            } else {
                st.moves_left = 0;
                st.current = None;
            }
            if let Some(side) = st.current.clone() {
                if waiting(st, &side).next().is_none() {
                    st.moves_left = 0;
                    st.current = None;
                }
            }
        }
        Effect::AlsoActed { unit } => {
            st.acted.insert(unit.clone());
        }
        Effect::NewPhase => {
            st.acted.clear();
            st.current = None;
            st.moves_left = 0;
            st.deck = Deck::FULL;
        }
        Effect::Current { side } => st.current = side.clone(),
        Effect::Broken { sides } => st.broken = sides.clone(),
        Effect::FireMoraleDone { done } => st.fire_morale_done = *done,
        Effect::Officer(o) => {
            st.officers.insert(o.id.clone(), o.clone());
        }
        Effect::Weather { light_rain } => st.light_rain = *light_rain,
        Effect::MovesLeft { moves } => st.moves_left = *moves,
        Effect::Wounded { side, wounded } => {
            st.wounded.insert(side.clone(), *wounded);
        }
    }
}

/// The sub-units a pike formation may have attached, by scenario flag (decision 30): five figures
/// each (001, TROOP TYPES: "organized in a 5-man company as a sub-unit attached to a pike
/// formation").
pub const SUB_UNIT_FLAGS: &[(&str, &str)] = &[
    ("with-arquebusiers", "arquebusiers"),
    ("with-crossbowmen", "crossbowmen"),
    ("with-halberdiers", "halberdiers"),
    ("with-great-swordsmen", "great-swordsmen"),
    ("with-sword-and-buckler", "sword-and-buckler"),
];

/// The scenario's optional rules and weather, from its `[house_rules]` (design section 11).
pub fn options_of(sc: &Scenario) -> (Options, bool, bool) {
    let on = |k: &str| sc.house_rules.get(k).is_some_and(|&v| v != 0);
    let options = Options {
        quicker_movement: on("options.quicker_movement"),
        brigade_movement: on("options.brigade_movement"),
        dismounting: on("options.dismounting"),
        wounded: sc
            .house_rules
            .get("options.wounded")
            .map_or(0, |&v| v.clamp(0, 2) as u8),
    };
    (
        options,
        on("options.company_close_combat"),
        on("weather.light_rain"),
    )
}

/// A new game's state from a scenario: figures from `figures` plus five per attached sub-unit,
/// orders from the flags `closed`, `open`, `skirmish` (else the type's own), leaders two for Swiss
/// and Spanish pike (decision 6), none for a unit of five figures or fewer (a sub-unit standing
/// alone, decision 30); the scenario's leaders are the field officers (rank `army`: generals,
/// `battle`: colonels).
pub fn initial(sc: &Scenario) -> Result<State, String> {
    let mut units = BTreeMap::new();
    let colonels: BTreeSet<&str> = sc
        .leaders
        .iter()
        .filter(|l| l.rank == crate::scenario::Rank::Battle)
        .map(|l| l.id.as_str())
        .collect();
    for u in &sc.units {
        let t =
            tables::troop(&u.troop).ok_or(format!("unit {}: unknown type {}", u.id, u.troop))?;
        let flag = |f: &str| u.flags.iter().any(|x| x == f);
        let order = if flag("skirmish") {
            Order::Skirmish
        } else if flag("closed") {
            Order::Closed
        } else if flag("open") {
            Order::Open
        } else {
            resolve::orders(t).0
        };
        let sub_units: Vec<String> = u
            .flags
            .iter()
            .filter_map(|f| SUB_UNIT_FLAGS.iter().find(|(k, _)| k == f))
            .map(|(_, troop)| troop.to_string())
            .collect();
        let figures = u.bases.saturating_add(5 * sub_units.len() as u8);
        let two = t.id == "pikemen" && (flag("swiss") || flag("spanish"));
        let leaders = match t.kind {
            tables::Kind::Gun | tables::Kind::Train => 0,
            _ if u.bases <= 5 || t.id == "riflemen" => 0,
            _ => 1 + u8::from(two),
        };
        let brigade =
            (flag("brigade") && colonels.contains(u.leader.as_str())).then(|| u.leader.clone());
        units.insert(
            u.id.clone(),
            UnitState {
                swiss: flag("swiss"),
                sub_units,
                brigade,
                may_move: flag("may-move"),
                ..UnitState::fresh((&u.id, &u.name, &u.side), &u.troop, order, figures, leaders)
            },
        );
    }
    let officers = sc
        .leaders
        .iter()
        .map(|l| {
            (
                l.id.clone(),
                Officer {
                    id: l.id.clone(),
                    name: l.name.clone(),
                    side: l.side.clone(),
                    rank: if l.rank == crate::scenario::Rank::Army {
                        Rank::General
                    } else {
                        Rank::Colonel
                    },
                    attached: None,
                    down: false,
                    moved: false,
                },
            )
        })
        .collect();
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
                .filter(|u| u.side == s.id && counts_for_spirit(&u.troop))
                .count() as u32,
        })
        .collect();
    let (options, company_combat, light_rain) = options_of(sc);
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
        company_combat,
        options,
        light_rain,
        officers,
        moves_left: 0,
        wounded: BTreeMap::new(),
        roster: sc.units.iter().map(|u| u.id.clone()).collect(),
    })
}

/// Infantry and cavalry units and guns count for the spirit of the army; riflemen (individual
/// figures) and wagons do not (decision 39).
pub fn counts_for_spirit(troop: &str) -> bool {
    !matches!(troop, "riflemen" | "wagon")
}

/// The actions of the turn so far.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Action {
    /// Step 1, then on to the movement cards.
    StartTurn {},
    /// Draw the next activation card (or, when one side is done, give the other its turn).
    Draw {},
    /// The side whose card it is moves one unit.
    Move {
        #[serde(deserialize_with = "input::text")]
        unit: String,
        #[serde(default, deserialize_with = "input::flag")]
        uphill: bool,
        #[serde(default, deserialize_with = "input::flag")]
        downhill: bool,
        #[serde(default, deserialize_with = "input::flag")]
        obstacle: bool,
        #[serde(default, deserialize_with = "input::flag")]
        woods: bool,
        /// Mount or dismount in this move (optional rule; mounted arquebusiers and crossbowmen).
        #[serde(default, deserialize_with = "input::flag")]
        dismount: bool,
        /// Change to this order first (decision 60): the move is rolled in the new order.
        #[serde(default, deserialize_with = "input::opt_choice")]
        order: Option<Order>,
    },
    /// The side whose card it is fires one unit (the game master gives what the table shows:
    /// range band, target class, figures that may fire).
    Fire {
        #[serde(deserialize_with = "input::text")]
        unit: String,
        #[serde(deserialize_with = "input::text")]
        target: String,
        #[serde(default, deserialize_with = "input::opt_choice")]
        range: Option<tables::Range>,
        /// Default: from the target's order (closed I, open II, skirmishers and gun crews III);
        /// the game master raises it for cover.
        #[serde(default, deserialize_with = "input::opt_number")]
        target_class: Option<u8>,
        /// Default: every figure of the unit carrying the weapon (the crew for a gun); the game
        /// master lowers it for figures out of range or beyond the ranks that shoot.
        #[serde(default, deserialize_with = "input::opt_number")]
        firers: Option<u8>,
        /// Reiters firing both pistols.
        #[serde(default, deserialize_with = "input::flag")]
        double: bool,
        /// A field officer within 12" in the cone of fire: the first ace hits him (decision 15).
        #[serde(default, deserialize_with = "input::opt_text")]
        officer: Option<String>,
    },
    /// The unit lets its chance pass.
    Pass {
        #[serde(deserialize_with = "input::text")]
        unit: String,
    },
    /// Step 4: every unit that took fire casualties tests (decision 8).
    FireMorale {},
    /// Steps 5-7 for one charge: To Close, To Stand, the close combat, the loser's test.
    Charge {
        #[serde(deserialize_with = "input::text")]
        charger: String,
        #[serde(deserialize_with = "input::text")]
        target: String,
        /// The charger started its move behind the target (decision 27).
        #[serde(default, deserialize_with = "input::flag")]
        rear: bool,
        #[serde(default, deserialize_with = "input::flag")]
        across_wall: bool,
        #[serde(default, deserialize_with = "input::flag")]
        climbing: bool,
        /// The target is a pike square.
        #[serde(default, deserialize_with = "input::flag")]
        square: bool,
        /// Pikes on either side fight in broken ground or built-up areas.
        #[serde(default, deserialize_with = "input::flag")]
        broken_ground: bool,
        /// The target evades (its player's choice; 001, EVASION).
        #[serde(default, deserialize_with = "input::flag")]
        target_evades: bool,
        /// Inches of room the evader has behind it, away from the charge and from other enemies:
        /// a roll beyond it disperses the unit. Default: room enough.
        #[serde(default, deserialize_with = "input::opt_number")]
        evade_room: Option<u8>,
        /// Figures of the evader the charger still touches: destroyed.
        #[serde(default, deserialize_with = "input::number_or_default")]
        touched: u8,
        /// Which unit breaks off as soon as it may, if the combat is still undecided after 6
        /// bouts (3 in the company version): `charger` or `target` (001, BREAKING OFF).
        #[serde(default, deserialize_with = "input::opt_choice")]
        break_off: Option<Breaker>,
    },
    /// Steps 8-10: rally the routed, remove a reload marker, each army's spirit.
    EndTurn {},
    /// The weather changes (light rain: +2 to every fire die).
    Weather {
        #[serde(default, deserialize_with = "input::flag")]
        light_rain: bool,
    },
    /// A field officer attaches to a unit ("visibly touching the unit"), or leaves it.
    Attach {
        #[serde(deserialize_with = "input::text")]
        officer: String,
        #[serde(default, deserialize_with = "input::opt_text")]
        unit: Option<String>,
    },
    /// A field officer moves 6D6 in the movement step (decision 19).
    OfficerMove {
        #[serde(deserialize_with = "input::text")]
        officer: String,
    },
    /// A field officer killed or captured at the table (e.g. caught alone by the enemy).
    OfficerDown {
        #[serde(deserialize_with = "input::text")]
        officer: String,
    },
    /// Wounded parties (optional rule, variant 2) move 3D6 on a movement card of their side.
    WoundedMove {
        #[serde(deserialize_with = "input::text")]
        side: String,
    },
    /// Wounded parties (optional rule, variant 2): how many figures reached the base line or were
    /// captured.
    WoundedParties {
        #[serde(deserialize_with = "input::text")]
        side: String,
        #[serde(default, deserialize_with = "input::number_or_default")]
        saved: u32,
        #[serde(default, deserialize_with = "input::number_or_default")]
        captured: u32,
    },
}

/// The unit of a charge that breaks off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Breaker {
    Charger,
    Target,
}

/// An outcome of a game action: its effects typed.
pub type Out = Outcome<Vec<Effect>>;

/// What a resolution has gathered so far.
#[derive(Debug, Clone, Default)]
struct Acc {
    steps: Vec<Step>,
    effects: Vec<Effect>,
    summary: Vec<String>,
    facets: Vec<(String, String)>,
}

impl Acc {
    fn with<E>(mut self, o: Outcome<E>) -> Self {
        self.steps.extend(o.resolution.steps);
        self.summary.push(o.resolution.summary);
        // A test's "passed" and a rout's "figures lost" say nothing once several are chained:
        // the callers name what followed (decision 61).
        self.facets.extend(
            o.facets
                .into_iter()
                .filter(|(k, _)| k != "passed" && k != "figures lost"),
        );
        self
    }
    /// Like [`Acc::with`], the steps headed by the unit (or army) they are about.
    fn named<E>(self, who: &str, mut o: Outcome<E>) -> Self {
        for st in &mut o.resolution.steps {
            st.title = format!("{who}: {}", st.title);
        }
        self.with(o)
    }
    fn finish(self, action: &str) -> Out {
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
            effects: self.effects,
            facets: self.facets,
        }
    }
}

fn passed<E>(o: &Outcome<E>) -> bool {
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
    let weapon = weapon_of(u).map(|w| w.0);
    weapon.is_some()
        && u.status != Status::Routed
        && u.reload == 0
        && !u.pistols_empty
        && !(matches!(
            weapon,
            Some(tables::Weapon::LightCannon | tables::Weapon::HeavyCannon)
        ) && u.moved)
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

pub fn plan(st: &State, th: Thresholds, action: &Action) -> Result<Plan<Out>, Rejection> {
    if st.phase == Phase::Over {
        return Err(reject("game-over", None, "the battle is over"));
    }
    match action {
        Action::StartTurn {} => start_turn(st, th),
        Action::Draw {} => draw(st),
        Action::Move {
            unit,
            uphill,
            downhill,
            obstacle,
            woods,
            dismount,
            order,
        } => move_unit(
            st,
            th,
            unit,
            [*uphill, *downhill, *obstacle, *woods],
            (*dismount, *order),
        ),
        Action::Fire {
            unit,
            target,
            range,
            target_class,
            firers,
            double,
            officer,
        } => fire(
            st,
            th,
            FireOrder {
                unit,
                target,
                range: *range,
                // 0 from a form: the defaults.
                target_class: target_class.filter(|&c| c > 0),
                firers: firers.filter(|&n| n > 0),
                double: *double,
                officer: officer.as_deref(),
            },
        ),
        Action::Pass { unit } => {
            let u = activated(st, unit)?;
            let mut acc = Acc::default();
            acc.effects.push(Effect::Acted { unit: u.id.clone() });
            acc.summary.push(format!("{} lets its chance pass", u.name));
            Ok(Plan::Done(acc.finish("pass")))
        }
        Action::FireMorale {} => fire_morale(st, th),
        Action::Charge {
            charger,
            target,
            rear,
            across_wall,
            climbing,
            square,
            broken_ground,
            target_evades,
            evade_room,
            touched,
            break_off,
        } => charge(
            st,
            th,
            (charger, target),
            [*rear, *across_wall, *climbing, *square, *broken_ground],
            (*target_evades).then_some((evade_room.filter(|&r| r > 0), *touched)),
            *break_off,
        ),
        Action::EndTurn {} => end_turn(st, th),
        Action::Weather { light_rain } => {
            let mut acc = Acc::default();
            acc.effects.push(Effect::Weather {
                light_rain: *light_rain,
            });
            acc.summary.push(
                if *light_rain {
                    "Light rain: +2 to every fire die (001, FIRE)"
                } else {
                    "The rain stops"
                }
                .into(),
            );
            Ok(Plan::Done(acc.finish("weather")))
        }
        Action::Attach { officer, unit } => attach(st, officer, unit.as_deref()),
        Action::OfficerMove { officer } => officer_move(st, officer),
        Action::OfficerDown { officer } => {
            let o = officer_of(st, officer)?;
            let mut acc = Acc::default();
            officer_falls(st, &mut acc, &o);
            Ok(Plan::Done(acc.finish("officer-down")))
        }
        Action::WoundedMove { side } => {
            need_phase(st, Phase::Movement, "wounded-move")?;
            let marching = st.wounded.get(side).map_or(0, |w| w.marching);
            if marching == 0 || st.options.wounded != 2 {
                return Err(reject(
                    "no-wounded",
                    Some("side"),
                    "side: no wounded party of this side is on its way (optional rule Wounded and Dead, variant 2)",
                ));
            }
            // "moving on any card of their side" (001, OPTIONAL RULES): 3D6, as foot in open
            // order (design 8.3).
            let mv = open_move("arquebusiers", Order::Open);
            let side = side.clone();
            Ok(
                resolve::plan(&resolve::Request::Move(mv), &th)?.map(move |o| {
                    let mut acc = Acc::default().with(o);
                    let inches = acc.summary.pop().unwrap_or_default();
                    acc.summary.push(format!(
                        "the wounded of {side} ({marching} figures) {inches}"
                    ));
                    acc.finish("wounded-move")
                }),
            )
        }
        Action::WoundedParties {
            side,
            saved,
            captured,
        } => {
            let s = st.sides.iter().find(|x| &x.id == side).ok_or_else(|| {
                reject(
                    "unknown-side",
                    Some("side"),
                    format!("side: no side \"{side}\""),
                )
            })?;
            if st.options.wounded != 2 {
                return Err(reject(
                    "option-off",
                    None,
                    "wounded parties belong to the optional rule Wounded and Dead, variant 2, which this scenario does not use (options.wounded = 2)",
                ));
            }
            let w = st.wounded.get(side).copied().unwrap_or_default();
            if saved + captured > w.marching {
                return Err(reject(
                    "too-many",
                    Some("saved"),
                    format!(
                        "saved: {} has {} wounded on their way; saved and captured together may not exceed it",
                        s.name, w.marching
                    ),
                ));
            }
            let mut acc = Acc::default();
            acc.effects.push(Effect::Wounded {
                side: side.clone(),
                wounded: Wounded {
                    marching: w.marching - saved - captured,
                    saved: w.saved + saved,
                    captured: w.captured + captured,
                },
            });
            acc.summary.push(format!(
                "{}: {saved} wounded saved, {captured} captured",
                s.name
            ));
            Ok(Plan::Done(acc.finish("wounded-parties")))
        }
    }
}

/// The steps of the turn, as the board and refusals name them (design 3.1).
pub fn step_name(p: Phase) -> &'static str {
    match p {
        Phase::Start => "step 1: spent units test to stay",
        Phase::Movement => "step 2: movement cards",
        Phase::Fire => "step 3: fire cards",
        Phase::Melee => "steps 4-10: fire morale, charges, close combats, rallies, spirit",
        Phase::Over => "the battle is over",
    }
}

/// The units in the scenario's order (then any others by id).
pub fn roster(st: &State) -> impl Iterator<Item = &UnitState> {
    let listed = st.roster.iter().filter_map(|id| st.units.get(id));
    let others = st.units.values().filter(|u| !st.roster.contains(&u.id));
    listed.chain(others)
}

fn need_phase(st: &State, p: Phase, what: &str) -> Result<(), Rejection> {
    if st.phase != p {
        let when = match what {
            "fire-morale" => "step 4: fire morale",
            "charge" => "steps 5-7: charges and close combats",
            "end-turn" => "steps 8-10: rallies, reload markers, the spirit of each army",
            _ => step_name(p),
        };
        return Err(reject(
            "wrong-phase",
            None,
            format!(
                "{what} belongs to {when}; the turn is at {}",
                step_name(st.phase)
            ),
        ));
    }
    Ok(())
}

/// Step 1: "Test ... morale for any unit which is "Spent" ... which does not have a field officer
/// attached to it ... If it fails, it is removed from the field immediately." (Stand and Fight,
/// decision 2.)
fn start_turn(st: &State, th: Thresholds) -> Result<Plan<Out>, Rejection> {
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
    acc.effects.push(Effect::FireMoraleDone { done: false });
    acc.summary.push(format!(
        "Turn {}: {}",
        st.turn,
        if spent.is_empty() {
            "no spent unit to test".to_string()
        } else {
            format!("{} spent unit(s) test Stand and Fight", spent.len())
        }
    ));
    let each: std::rc::Rc<dyn Fn(Acc, UnitState) -> Plan<Acc>> = std::rc::Rc::new(move |acc, u| {
        match resolve::plan(
            &resolve::Request::Morale(morale_req(Test::StandAndFight, &u)),
            &th,
        ) {
            Ok(p) => p.map(move |o| {
                let stays = passed(&o);
                let mut acc = acc.clone().named(&u.name, o);
                acc.summary.pop();
                acc.summary.push(format!(
                    "{} (spent) {}",
                    u.name,
                    if stays { "stays" } else { "leaves the field" }
                ));
                acc.facets.push((
                    u.name.clone(),
                    if stays { "stays" } else { "leaves the field" }.into(),
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
fn draw(st: &State) -> Result<Plan<Out>, Rejection> {
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
    let quicker = st.options.quicker_movement && st.phase == Phase::Movement;
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
                    let waiting = if is_red { red_waiting } else { black_waiting };
                    if !quicker {
                        return Plan::Done(acc.finish("draw"));
                    }
                    // Quicker Movement: "each time a movement card is drawn ... roll a D4. That
                    // player may move the D4 number of units instead of just one" (001,
                    // OPTIONAL RULES), capped at the units the side has left (design 8.4).
                    let name = side.name.clone();
                    tercio_core::plan::dice(1, 4, "Quicker Movement D4").map(move |f| {
                        let n = f[0].min(waiting as u8);
                        let mut acc = acc.clone();
                        acc.steps.push(Step {
                            title:
                                "Quicker Movement: a D4 of units on this card [001, OPTIONAL RULES]"
                                    .into(),
                            dice: vec![tercio_core::RolledDie {
                                label: "Quicker Movement D4".into(),
                                sides: 4,
                                face: f[0],
                            }],
                            modifiers: Vec::new(),
                            totals: vec![("units".into(), i32::from(n))],
                            result: format!("{name} moves {n} unit(s)"),
                        });
                        acc.effects.push(Effect::MovesLeft { moves: n });
                        acc.summary.push(format!("{n} unit(s) on this card"));
                        acc.facets.push(("units".into(), n.to_string()));
                        acc.finish("draw")
                    })
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
    (dismount, order): (bool, Option<Order>),
) -> Result<Plan<Out>, Rejection> {
    need_phase(st, Phase::Movement, "move")?;
    let mut u = activated(st, unit)?.clone();
    if let Some(o) = order {
        let allowed = tables::troop(&u.troop).map_or(&[][..], |t| resolve::orders(t).1);
        if !allowed.contains(&o) || u.dismounted {
            return Err(reject(
                "order-not-allowed",
                Some("order"),
                format!(
                    "order: {} may be in {} order (001, TROOP TYPES; ORDER)",
                    u.name,
                    allowed
                        .iter()
                        .map(|x| format!("{x:?}").to_lowercase())
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            ));
        }
        u.order = o;
    }
    let t = tables::troop(&u.troop)
        .ok_or_else(|| reject("unknown-type", Some("unit"), "unit: unknown type"))?;
    if t.id == "heavy-gun" && !u.may_move {
        return Err(reject("heavy-guns-do-not-move", Some("unit"), "unit: heavy guns do not move without the game master's permission (the scenario flag may-move), but may pivot in place (001, MOVEMENT); let its chance pass"));
    }
    if ground[3] && matches!(t.kind, tables::Kind::Gun | tables::Kind::Train) {
        return Err(reject(
            "no-woods",
            Some("woods"),
            "woods: guns and wagons cannot enter woods except on roads (001, MOVEMENT)",
        ));
    }
    if dismount
        && !(st.options.dismounting
            && matches!(t.id, "light-horse-arquebus" | "light-horse-crossbow"))
    {
        return Err(reject("cannot-dismount", Some("dismount"), "dismount: only mounted arquebusiers and crossbowmen dismount, and only when the scenario turns on the optional rule (001, OPTIONAL RULES, DISMOUNTING)"));
    }
    let mut acc = Acc::default();
    acc.effects.push(Effect::Acted { unit: u.id.clone() });
    if u.status == Status::Routed {
        acc.summary.push(format!(
            "{} is routed and may not move (001, ROUTED UNITS)",
            u.name
        ));
        return Ok(Plan::Done(acc.finish("move")));
    }
    // A brigade moves on one card, all at the same rate: its steady members go with the unit
    // named (001, OPTIONAL RULES, BRIGADE MOVEMENT; design 8.1).
    let brigade: Vec<UnitState> = match (&u.brigade, st.options.brigade_movement) {
        (Some(col), true) if u.status == Status::Steady => st
            .units
            .values()
            .filter(|x| {
                x.id != u.id
                    && x.brigade.as_deref() == Some(col.as_str())
                    && x.troop == u.troop
                    && x.on_table()
                    && x.status == Status::Steady
                    && !st.acted.contains(&x.id)
            })
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    // The brigade's other members go first, so that the unit named, last, ends the card.
    for m in &brigade {
        acc.effects
            .insert(0, Effect::AlsoActed { unit: m.id.clone() });
    }
    let loading = u.reload > 0;
    let (troop, order) = moving_as(&u);
    let mv = MoveRequest {
        troop: troop.into(),
        order: Some(order),
        uphill: ground[0],
        downhill: ground[1],
        obstacle: ground[2],
        woods: ground[3],
        loading,
        dismounting: dismount,
    };
    let wounded = u.wounded;
    let mover = u.name.clone();
    let names: Vec<String> = brigade.iter().map(|m| m.name.clone()).collect();
    let members = brigade.clone();
    let dice = resolve::plan(&resolve::Request::Move(mv), &th)?.map(move |mut o| {
        // Wounded carried: 1" less per wounded figure (optional rule, variant 1; decision 43).
        if wounded > 0 {
            let inches: i32 = o
                .facets
                .iter()
                .find(|(k, _)| k == "inches")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let left = (inches - i32::from(wounded)).max(0);
            o.resolution.steps.push(Step {
                title: format!("Wounded carried: {wounded}\" less [001, OPTIONAL RULES, WOUNDED AND DEAD, 1; decision 43]"),
                dice: Vec::new(),
                modifiers: Vec::new(),
                totals: vec![("inches".into(), left)],
                result: format!("{left}\""),
            });
            o.resolution.summary = format!("moves up to {left}\"");
            for f in o.facets.iter_mut().filter(|(k, _)| k == "inches") {
                f.1 = left.to_string();
            }
        }
        o.resolution.summary = format!("{mover}: {}", o.resolution.summary);
        if !names.is_empty() {
            o.resolution.summary = format!(
                "{}; its brigade moves with it at the same rate: {}",
                o.resolution.summary,
                names.join(", ")
            );
        }
        o
    });
    let test = if u.status == Status::Shaken {
        Some((
            Test::StandAndFight,
            "rallies from shaken",
            "stays shaken and does not move",
        ))
    } else if u.leaders == 0
        && !u.field_officer
        && !matches!(t.kind, tables::Kind::Gun | tables::Kind::Train)
        && t.id != "riflemen"
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
        let members = members.clone();
        dice.clone().map(move |o| {
            let mut acc = acc.clone().with(o);
            acc.effects.push(Effect::Unit(UnitState {
                moved: true,
                dismounted: u.dismounted != dismount,
                ..u.clone()
            }));
            for m in &members {
                acc.effects.push(Effect::Unit(UnitState {
                    moved: true,
                    ..m.clone()
                }));
            }
            acc
        })
    };
    Ok(match test {
        None => moved(acc, u),
        Some((t, yes, no)) => {
            let req = morale_req(t, &u);
            resolve::plan(&resolve::Request::Morale(req), &th)?.and_then(move |o| {
                let pass = passed(&o);
                let mut acc = acc.clone().named(&name, o);
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

/// What a fire action names.
pub struct FireOrder<'a> {
    pub unit: &'a str,
    pub target: &'a str,
    pub range: Option<tables::Range>,
    pub target_class: Option<u8>,
    pub firers: Option<u8>,
    pub double: bool,
    pub officer: Option<&'a str>,
}

/// The missile weapon a unit fires and how many figures carry it: its own, or its attached shot
/// sub-units' (five figures each, decision 30).
pub fn weapon_of(u: &UnitState) -> Option<(tables::Weapon, u8)> {
    if let Some(w) = tables::troop(&u.troop).and_then(|t| t.weapon) {
        return Some((w, u.figures));
    }
    let shot: Vec<tables::Weapon> = u
        .sub_units
        .iter()
        .filter_map(|s| tables::troop(s).and_then(|t| t.weapon))
        .collect();
    let w = *shot.first()?;
    let carriers = shot.iter().filter(|&&x| x == w).count() as u8 * 5;
    Some((w, carriers.min(u.figures)))
}

/// The target class from the target's order (design 2.4, decision 33): closed-order foot I, open
/// order and all horse II, skirmishers and gun crews III. Cover is the game master's to add.
pub fn default_class(t: &UnitState) -> u8 {
    let kind = tables::troop(&t.troop).map(|x| x.kind);
    match (t.order, kind) {
        (_, Some(tables::Kind::Gun | tables::Kind::Train)) | (Order::Skirmish, _) => 3,
        (Order::Closed, Some(tables::Kind::Foot)) => 1,
        _ => 2,
    }
}

/// A fire card: the unit fires at an enemy unit; each hit draws a casualty card (an ace takes a
/// field officer named in the cone of fire, then the target's leaders while it has any, decision
/// 15); reload markers go on (decision 11; a double pistol fire empties the pistols instead,
/// decision 12).
fn fire(st: &State, th: Thresholds, f: FireOrder<'_>) -> Result<Plan<Out>, Rejection> {
    let _ = th;
    need_phase(st, Phase::Fire, "fire")?;
    let u = activated(st, f.unit)?.clone();
    if !can_fire(&u) {
        return Err(reject("cannot-fire", Some("unit"), "unit: has no missile weapon, is routed, holds a reload marker or emptied its pistols, or is a light gun that moved"));
    }
    let t = st
        .units
        .get(f.target)
        .filter(|t| t.on_table())
        .ok_or_else(|| {
            reject(
                "unknown-target",
                Some("target"),
                format!("target: no unit \"{}\" on the table", f.target),
            )
        })?
        .clone();
    if t.side == u.side {
        return Err(reject("own-side", Some("target"), "target: an enemy unit"));
    }
    let (weapon, carriers) = weapon_of(&u)
        .ok_or_else(|| reject("cannot-fire", Some("unit"), "unit: has no missile weapon"))?;
    let firers = f.firers.unwrap_or(carriers);
    if firers == 0 || firers > carriers {
        return Err(reject(
            "too-many-firers",
            Some("firers"),
            format!(
                "firers: 1 to {carriers} ({} has {carriers} figure(s) with the weapon)",
                u.name
            ),
        ));
    }
    let officer = match f.officer {
        None => None,
        Some(id) => {
            let o = officer_of(st, id).map_err(|mut r| {
                r.field = Some("officer".into());
                r
            })?;
            if o.side != t.side {
                return Err(reject(
                    "own-officer",
                    Some("officer"),
                    "officer: a field officer of the target's side",
                ));
            }
            Some(o)
        }
    };
    if f.range.is_none() && !matches!(weapon, tables::Weapon::Pistol | tables::Weapon::Crossbow) {
        return Err(reject(
            "missing-range",
            Some("range"),
            "range: short or long — the game master measures it (001, FIRE, Weapon Ranges)",
        ));
    }
    let horse = tables::troop(&t.troop).is_some_and(|x| x.kind.mounted()) && !t.dismounted;
    if let Some(c) = f.target_class.filter(|_| horse) {
        let allowed = if t.order == Order::Skirmish { 3 } else { 2 };
        if c != allowed {
            return Err(reject(
                "bad-target-class",
                Some("target_class"),
                format!("target_class: horse in {} order is Class {} (decision 33: horse is never Class III by cover, nor Class IV)", format!("{:?}", t.order).to_lowercase(), ["I", "II", "III", "IV"][usize::from(allowed - 1)]),
            ));
        }
    }
    let req = resolve::FireRequest {
        weapon,
        range: f.range,
        target_class: f.target_class.unwrap_or_else(|| default_class(&t)),
        firers,
        shaken: u.status == Status::Shaken,
        light_rain: st.light_rain,
        double: f.double,
        target_figures: Some(t.figures),
        wounded: st.options.wounded > 0,
    };
    let p = resolve::plan(&resolve::Request::Fire(req), &th)?;
    let double = f.double;
    let wounded_rule = st.options.wounded;
    let st2 = st.clone();
    Ok(p.map(move |o| {
        let count = |k: &str| -> u8 {
            o.facets
                .iter()
                .find(|(f, _)| f == k)
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0)
        };
        let (hits, aces) = (count("hits").min(t.figures), count("officers hit"));
        let wounds = o.facets.clone();
        let mut acc = Acc::default().with(o);
        let officer_hit = officer.is_some() && aces > 0;
        if let Some(first) = acc.summary.first_mut() {
            let figures_lost = hits - u8::from(officer_hit);
            *first = if hits == 0 {
                format!("{}: fire at {}: no hits", u.name, t.name)
            } else {
                let hurt = count_of(&wounds, "wounded");
                format!(
                    "{}: fire at {}: {hits} hit(s); remove {figures_lost} figure(s){}{}",
                    u.name,
                    t.name,
                    if hurt > 0 {
                        format!(" ({hurt} wounded, not killed)")
                    } else {
                        String::new()
                    },
                    match officer.as_ref().filter(|_| officer_hit) {
                        Some(o) => format!("; {} is hit", o.name),
                        None => String::new(),
                    }
                )
            };
        }
        // The first ace takes the field officer named in the cone of fire; the next ones the
        // target's leaders, who are figures of the unit (decision 31); an ace with no officer
        // left to hit takes a figure (decision 15).
        if let Some(off) = officer.as_ref().filter(|_| officer_hit) {
            officer_falls(&st2, &mut acc, off);
        }
        let leaders_hit = (aces - u8::from(officer_hit)).min(t.leaders);
        let figures = t.figures.saturating_sub(hits - u8::from(officer_hit));
        let now = acc
            .effects
            .iter()
            .rev()
            .find_map(|e| match e {
                Effect::Unit(x) if x.id == t.id => Some(x.clone()),
                _ => None,
            })
            .unwrap_or_else(|| t.clone());
        // Wounded and Dead: variant 1, the unit carries its wounded (1" less each); variant 2,
        // they set out for the rear in parties (design 8.3).
        let hurt = count_of(&wounds, "wounded").min(t.figures - figures);
        acc.effects.push(Effect::Unit(UnitState {
            figures,
            leaders: (t.leaders - leaders_hit).min(figures),
            fire_losses: t.fire_losses.saturating_add(t.figures - figures),
            status: if figures == 0 { Status::Gone } else { t.status },
            wounded: if wounded_rule == 1 && figures > 0 {
                now.wounded.saturating_add(hurt)
            } else {
                now.wounded
            },
            ..now
        }));
        if wounded_rule == 2 && hurt > 0 {
            let w = st2.wounded.get(&t.side).copied().unwrap_or_default();
            acc.effects.push(Effect::Wounded {
                side: t.side.clone(),
                wounded: Wounded {
                    marching: w.marching + u32::from(hurt),
                    ..w
                },
            });
        }
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

fn count_of(facets: &[(String, String)], k: &str) -> u8 {
    facets
        .iter()
        .find(|(f, _)| f == k)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

fn officer_of(st: &State, id: &str) -> Result<Officer, Rejection> {
    st.officers
        .get(id)
        .filter(|o| !o.down)
        .cloned()
        .ok_or_else(|| {
            reject(
                "unknown-officer",
                Some("officer"),
                format!("officer: no field officer \"{id}\" on the table"),
            )
        })
}

/// A field officer is killed or captured: his unit loses his +1, and a colonel's brigade moves
/// independently from now on (001, OPTIONAL RULES, BRIGADE MOVEMENT).
fn officer_falls(st: &State, acc: &mut Acc, o: &Officer) {
    acc.effects.push(Effect::Officer(Officer {
        down: true,
        attached: None,
        ..o.clone()
    }));
    acc.summary.push(format!("{} is down", o.name));
    for u in st.units.values() {
        let attached = o.attached.as_deref() == Some(u.id.as_str());
        let brigade = u.brigade.as_deref() == Some(o.id.as_str());
        if attached || brigade {
            acc.effects.push(Effect::Unit(UnitState {
                field_officer: u.field_officer && !attached,
                brigade: if brigade { None } else { u.brigade.clone() },
                ..u.clone()
            }));
        }
    }
}

/// A field officer attaches to a unit of his side, or leaves it (`unit` empty). Free, at any
/// time: the table shows whether he touches the unit.
fn attach(st: &State, officer: &str, unit: Option<&str>) -> Result<Plan<Out>, Rejection> {
    let o = officer_of(st, officer)?;
    let mut acc = Acc::default();
    if let Some(old) = o.attached.as_ref().and_then(|id| st.units.get(id)) {
        acc.effects.push(Effect::Unit(UnitState {
            field_officer: st
                .officers
                .values()
                .any(|x| x.id != o.id && !x.down && x.attached.as_deref() == Some(old.id.as_str())),
            ..old.clone()
        }));
    }
    let to = match unit {
        None => None,
        Some(id) => {
            let u = st.units.get(id).filter(|u| u.on_table()).ok_or_else(|| {
                reject(
                    "unknown-unit",
                    Some("unit"),
                    format!("unit: no unit \"{id}\" on the table"),
                )
            })?;
            if u.side != o.side {
                return Err(reject(
                    "own-side",
                    Some("unit"),
                    "unit: a unit of the officer's side",
                ));
            }
            let mut now = u.clone();
            if let Some(Effect::Unit(x)) = acc.effects.last() {
                if x.id == u.id {
                    now = x.clone();
                }
            }
            acc.effects.push(Effect::Unit(UnitState {
                field_officer: true,
                ..now
            }));
            Some(u.id.clone())
        }
    };
    acc.summary.push(match &to {
        Some(id) => format!("{} attaches to {}", o.name, st.units[id].name),
        None => format!("{} rides alone", o.name),
    });
    acc.effects
        .push(Effect::Officer(Officer { attached: to, ..o }));
    Ok(Plan::Done(acc.finish("attach")))
}

/// How a unit moves: dismounted arquebusiers and crossbowmen as open-order foot of their weapon
/// (decision 59), a permitted heavy gun at the light gun's rate (decision 57), others as they are.
fn moving_as(u: &UnitState) -> (&'static str, Order) {
    let id = tables::troop(&u.troop).map_or("arquebusiers", |t| t.id);
    match (u.dismounted, id) {
        (true, "light-horse-arquebus") => ("arquebusiers", Order::Open),
        (true, "light-horse-crossbow") => ("crossbowmen", Order::Open),
        (_, "heavy-gun") => ("light-gun", u.order),
        _ => (id, u.order),
    }
}

/// A move over open ground with nothing to slow it.
fn open_move(troop: &str, order: Order) -> MoveRequest {
    MoveRequest {
        troop: troop.into(),
        order: Some(order),
        uphill: false,
        downhill: false,
        obstacle: false,
        woods: false,
        loading: false,
        dismounting: false,
    }
}

/// A field officer's own move: 6D6 (decision 19), once in each movement step; attached officers
/// move with their unit instead.
fn officer_move(st: &State, officer: &str) -> Result<Plan<Out>, Rejection> {
    need_phase(st, Phase::Movement, "officer-move")?;
    let o = officer_of(st, officer)?;
    if o.moved {
        return Err(reject(
            "already-moved",
            Some("officer"),
            "officer: has moved in this step",
        ));
    }
    let mv = open_move("light-horse-spear", Order::Open);
    let dice = resolve::plan(&resolve::Request::Move(mv), &Thresholds::default())?;
    Ok(dice.map(move |out| {
        let mut acc = Acc::default().with(out);
        let inches = acc.summary.pop().unwrap_or_default();
        acc.summary.push(format!("{} {inches}", o.name));
        acc.effects.push(Effect::Officer(Officer {
            moved: true,
            ..o.clone()
        }));
        acc.finish("officer-move")
    }))
}

/// Steps 8-10: routed units that routed in an earlier turn rally or leave; one reload marker comes
/// off every unit (reiters' pistols are reloaded by a motionless turn, decision 12); each army
/// rolls its spirit; then the next turn.
fn end_turn(st: &State, th: Thresholds) -> Result<Plan<Out>, Rejection> {
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
                    let mut acc = acc.clone().named(&u.name, o);
                    acc.summary.pop();
                    let what = if pass {
                        "rallies, shaken"
                    } else {
                        "leaves the field"
                    };
                    acc.summary.push(format!("{} {what}", u.name));
                    acc.facets.push((u.name.clone(), what.into()));
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
                .filter(|u| u.side == side.id && u.on_table() && counts_for_spirit(&u.troop))
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
                    let mut o = o;
                    // Each army's spirit is its own facet.
                    for f in o.facets.iter_mut().filter(|(k, _)| k == "spirit") {
                        f.0 = format!("{} spirit", side.name);
                    }
                    let mut acc = acc.clone().named(&side.name, o);
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
            if u.reload > 0 || u.moved || u.pistols_empty || u.fire_losses > 0 || u.charged {
                acc.effects.push(Effect::Unit(UnitState {
                    reload: u.reload.saturating_sub(1),
                    pistols_empty: u.pistols_empty && u.moved,
                    moved: false,
                    fire_losses: 0,
                    charged: false,
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
    let d4 = resolve::plan(&resolve::Request::Rout {}, &Thresholds::default());
    match d4 {
        Ok(p) => p
            .map(move |o| {
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
                let routed = UnitState {
                    figures,
                    status: if figures == 0 {
                        Status::Gone
                    } else {
                        Status::Routed
                    },
                    routed_turn: Some(turn),
                    ..u.clone()
                };
                acc.effects.push(Effect::Unit(routed.clone()));
                (acc, routed)
            })
            .and_then(|(acc, routed)| {
                if routed.on_table() {
                    fall_back(acc, &routed, "routs to the rear")
                } else {
                    Plan::Done(acc)
                }
            }),
        Err(_) => Plan::Done(acc),
    }
}

/// "A normal move to the rear" (001, SHAKEN UNITS; ROUTED UNITS; BREAKING OFF): a fresh roll of
/// the unit's movement dice (decision 46), for the players to move it. The distance changes
/// nothing Tercio tracks, so the odds take it as one outcome (`Depends::Nothing`).
fn fall_back(acc: Acc, u: &UnitState, what: &'static str) -> Plan<Acc> {
    let (troop, order) = moving_as(u);
    // Heavy guns do not fall back: no roll.
    let n = match tables::troop(troop) {
        Some(t) if u.troop != "heavy-gun" => tables::movement_dice(t, order),
        _ => 0,
    };
    if n == 0 {
        return Plan::Done(acc);
    }
    let name = u.name.clone();
    tercio_core::plan::throw(
        usize::from(n),
        6,
        "Fall back",
        tercio_core::Depends::Nothing,
    )
    .map(move |f| {
        let inches: u32 = f.iter().map(|&x| u32::from(x)).sum();
        let mut acc = acc.clone();
        acc.steps.push(Step {
            title: format!("{name} {what}: a normal move, {n}D6 [decision 46]"),
            dice: f
                .iter()
                .enumerate()
                .map(|(i, &face)| tercio_core::RolledDie {
                    label: format!("Fall back {}", i + 1),
                    sides: 6,
                    face,
                })
                .collect(),
            modifiers: Vec::new(),
            totals: vec![("inches".into(), inches as i32)],
            result: format!("{inches}\""),
        });
        acc.summary.push(format!("{name} {what} {inches}\""));
        acc
    })
}

/// Step 4: units that took fire casualties test once they have lost a quarter of their start
/// (To Stand; fail: shaken, or a rout if already shaken); routed units that took fire casualties
/// test Stand and Fight or leave (001, MORALE; ROUTED UNITS; decision 8). Guns never test
/// (decision 32).
fn fire_morale(st: &State, th: Thresholds) -> Result<Plan<Out>, Rejection> {
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
                let mut acc = acc.clone().named(
                    &format!(
                        "{} ({} of {} lost, {} to fire this turn)",
                        u.name,
                        u.figures_start - u.figures,
                        u.figures_start,
                        u.fire_losses
                    ),
                    o,
                );
                acc.summary.pop();
                let what = match (pass, u.status) {
                    (true, _) => "holds",
                    (false, Status::Routed) => "leaves the field",
                    (false, Status::Shaken) => "routs",
                    (false, _) => "shaken",
                };
                acc.facets.push((u.name.clone(), what.into()));
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
                        acc.summary.push(format!("{} is shaken", u.name));
                        let shaken = UnitState {
                            status: Status::Shaken,
                            ..u.clone()
                        };
                        acc.effects.push(Effect::Unit(shaken.clone()));
                        fall_back(acc, &shaken, "falls back")
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
    (charger, target): (&str, &str),
    [rear, across_wall, climbing, square, broken_ground]: [bool; 5],
    evade: Option<(Option<u8>, u8)>,
    breaker: Option<Breaker>,
) -> Result<Plan<Out>, Rejection> {
    let breaker_is_a = breaker == Some(Breaker::Charger);
    let break_off = breaker.map(|b| resolve::BreakOff {
        side: if b == Breaker::Charger {
            resolve::BreakSide::A
        } else {
            resolve::BreakSide::B
        },
        after: None,
    });
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
    if a.charged {
        return Err(reject(
            "already-charged",
            Some("charger"),
            "charger: has charged this turn (decision 62)",
        ));
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
    let side = move |u: &UnitState, t: &tables::Troop, attacked_in_rear: bool, square: bool| {
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
            spent: u.spent(),
        }
    };
    // The combat as the two units stand when it begins (after any pistol volleys).
    let fight = move |a: &UnitState, b: &UnitState| {
        let mut sa = side(a, ta, false, false);
        sa.climbing = climbing;
        sa.across_wall = across_wall;
        let sb = side(b, tb, rear && !square, square && tb.id == "pikemen");
        resolve::plan(
            &resolve::Request::CloseCombat(resolve::CombatRequest {
                version,
                a: sa,
                b: sb,
                break_off: break_off.clone(),
            }),
            &th,
        )
    };
    // Checked now, so a bad combat is refused before anything is rolled.
    fight(&a, &b)?;
    // With the state the charge starts from, for the field officers a combat may take.
    let fight = std::rc::Rc::new((fight, st.clone()));
    let volleys = pistol_volleys(&a, &b, th)?;
    let turn = st.turn;
    let evasion = match evade {
        None => None,
        Some((room, touched)) => Some(evasion(&a, &b, (room, touched), th, st.turn)?),
    };
    let instant = b.status == Status::Routed
        || b.order == Order::Skirmish
        || matches!(tb.kind, tables::Kind::Gun | tables::Kind::Train);
    let (a2, b2) = (a.clone(), b.clone());
    let plan = to_close.and_then(move |o| {
        let pass = passed(&o);
        let mut acc = Acc::default().named(&a2.name, o);
        acc.summary.pop();
        acc.facets = vec![("charge goes in".into(), if pass { "yes" } else { "no" }.into())];
        if !pass {
            acc.summary.push(format!("{} fails To Close: shaken, falls back a normal move (decision 9)", a2.name));
            let shaken = UnitState { status: Status::Shaken, ..a2.clone() };
            acc.effects.push(Effect::Unit(shaken.clone()));
            return fall_back(acc, &shaken, "falls back");
        }
        if let Some(ev) = evasion.clone() {
            return ev.map(move |o| {
                let mut acc = acc.clone();
                acc.steps.extend(o.steps);
                acc.summary.extend(o.summary);
                acc.facets.extend(o.facets);
                acc.effects.extend(o.effects);
                acc
            });
        }
        if instant {
            acc.summary.push(format!("{} is destroyed: routed units, skirmishers that do not evade and gun crews do not stand (001, ROUTED UNITS; ORDER; ADDITIONAL NOTES)", b2.name));
            acc.effects.push(Effect::Unit(UnitState { status: Status::Gone, ..b2.clone() }));
            acc.facets.push(("target".into(), "destroyed".into()));
            return Plan::Done(acc);
        }
        let (b3, to_stand) = (b2.clone(), to_stand.clone());
        let (fight, volleys) = (fight.clone(), volleys.clone());
        // Everything after a passed To Close is the same whatever its dice: worked out once.
        Plan::memo("charge-in", move || {
            let b4 = b3.clone();
            let (fight, volleys) = (fight.clone(), volleys.clone());
            let acc = acc.clone();
            to_stand.clone().and_then(move |o| {
                let stands = passed(&o);
                let mut acc = acc.clone().named(&b4.name, o);
                acc.summary.pop();
                if !stands {
                    acc.summary.push(format!("{} fails To Stand and routs", b4.name));
                    acc.facets.push(("target".into(), "routs".into()));
                    return rout_unit(acc, b4.clone(), turn);
                }
                acc.facets.push(("target".into(), "stands".into()));
                let (fight, volleys) = (fight.clone(), volleys.clone());
                Plan::memo("stands", move || {
                    let fight = fight.clone();
                    let acc = acc.clone();
                    volleys.clone().and_then(move |v| {
                        let mut acc = acc.clone();
                        acc.steps.extend(v.acc.steps);
                        acc.summary.extend(v.acc.summary);
                        let (a6, b6) = (v.a.clone(), v.b.clone());
                        if !a6.on_table() || !b6.on_table() {
                            acc.effects.push(Effect::Unit(a6));
                            acc.effects.push(Effect::Unit(b6));
                            return Plan::Done(acc);
                        }
                        let fight = fight.clone();
                        // The combat depends only on the figures and leaders left: once each.
                        let key = format!("fight:{}:{}:{}:{}", a6.figures, a6.leaders, b6.figures, b6.leaders);
                        Plan::memo(key, move || {
                            let (a7, b7, acc) = (a6.clone(), b6.clone(), acc.clone());
                            let base = fight.clone();
                            match (fight.0)(&a7, &b7) {
                                Ok(c) => c.and_then(move |o| {
                                    after_combat(acc.clone(), o, (a7.clone(), b7.clone()), (rear, breaker_is_a), (turn, th), &base.1)
                                }),
                                Err(r) => {
                                    let mut acc = acc.clone();
                                    acc.summary.push(r.message);
                                    Plan::Done(acc)
                                }
                            }
                        })
                    })
                })
            })
        })
    });
    let charger_id = a.id.clone();
    Ok(plan.map(move |mut acc| {
        // Whatever came of it, the charger has had its charge this turn: its latest record is
        // marked.
        let mut latest = None;
        for e in acc.effects.iter_mut().rev() {
            if let Effect::Unit(u) = e {
                if u.id == charger_id {
                    latest = Some(u);
                    break;
                }
            }
        }
        match latest {
            Some(u) => u.charged = true,
            None => acc.effects.push(Effect::Unit(UnitState {
                charged: true,
                ..a.clone()
            })),
        }
        acc.finish("charge")
    }))
}

/// The two units as they come out of the pistol volleys fired as a charge closes.
#[derive(Clone)]
struct Volleyed {
    acc: Acc,
    a: UnitState,
    b: UnitState,
}

/// Figures in a rank of reiters: one company of three (001, TROOP TYPES: "4 companies of 3 men
/// each", "may shoot 4 ranks deep"; decision 37).
const REITER_RANK: u8 = 3;

/// Pistols as a charge closes (001, FIRE, notes after the ranges; decision 37): reiters charged
/// by other cavalry roll a D4 for the ranks that fire; a charging unit with pistols fires its
/// front rank once as it closes. Neither is possible after a double fire has emptied the pistols.
/// Their casualties bring no morale test that turn; aces take leaders.
fn pistol_volleys(
    a: &UnitState,
    b: &UnitState,
    th: Thresholds,
) -> Result<Plan<Volleyed>, Rejection> {
    let pistols = |u: &UnitState| {
        weapon_of(u).is_some_and(|(w, _)| w == tables::Weapon::Pistol)
            && !u.pistols_empty
            && u.status != Status::Routed
    };
    let mounted = |u: &UnitState| tables::troop(&u.troop).is_some_and(|t| t.kind.mounted());
    let start = Volleyed {
        acc: Acc::default(),
        a: a.clone(),
        b: b.clone(),
    };
    // Hits of one volley, taken off the unit fired at.
    fn volley(
        v: Volleyed,
        at_charger: bool,
        firers: u8,
        class: u8,
        th: Thresholds,
    ) -> Result<Plan<Volleyed>, Rejection> {
        let target = if at_charger { &v.a } else { &v.b };
        let req = resolve::FireRequest {
            weapon: tables::Weapon::Pistol,
            range: None,
            target_class: class,
            firers,
            shaken: false,
            light_rain: false,
            double: false,
            target_figures: Some(target.figures),
            // The volleys as a charge closes are part of the melee: kills (decision 56).
            wounded: false,
        };
        Ok(
            resolve::plan(&resolve::Request::Fire(req), &th)?.map(move |o| {
                let get = |k: &str| -> u8 {
                    o.facets
                        .iter()
                        .find(|(f, _)| f == k)
                        .and_then(|(_, x)| x.parse().ok())
                        .unwrap_or(0)
                };
                let mut v = v.clone();
                let t = if at_charger { &mut v.a } else { &mut v.b };
                let hits = get("hits").min(t.figures);
                let leaders_hit = get("officers hit").min(t.leaders);
                t.figures -= hits;
                t.leaders = (t.leaders - leaders_hit).min(t.figures);
                if t.figures == 0 {
                    t.status = Status::Gone;
                }
                let name = t.name.clone();
                v.acc = v.acc.clone().with(o);
                v.acc.summary.pop();
                v.acc
                    .summary
                    .push(format!("pistols as the charge closes: {name} loses {hits}"));
                v
            }),
        )
    }
    let mut plan = Plan::Done(start);
    if pistols(b) && mounted(a) && tables::troop(&b.troop).is_some_and(|t| t.id == "reiters") {
        let class = default_class(a);
        plan = plan.and_then(move |v: Volleyed| {
            tercio_core::plan::dice(1, 4, "Reiters' ranks D4").and_then(move |f| {
                let ranks = f[0];
                let firers = (ranks * REITER_RANK).min(v.b.figures);
                let mut v = v.clone();
                v.acc.steps.push(Step {
                    title: "Reiters charged by cavalry: a D4 for the ranks that fire before the close combat [001, FIRE, note on Reiters; decision 37]".into(),
                    dice: vec![tercio_core::RolledDie {
                        label: "Reiters' ranks D4".into(),
                        sides: 4,
                        face: ranks,
                    }],
                    modifiers: Vec::new(),
                    totals: vec![("figures firing".into(), i32::from(firers))],
                    result: format!("{ranks} rank(s): {firers} figure(s) fire"),
                });
                let keep = v.clone();
                volley(v, true, firers, class, th).unwrap_or_else(|_| Plan::Done(keep))
            })
        });
    }
    if pistols(a) {
        let class = default_class(b);
        plan = plan.and_then(move |v: Volleyed| {
            let firers = REITER_RANK.min(v.a.figures);
            if firers == 0 {
                return Plan::Done(v);
            }
            let keep = v.clone();
            volley(v, false, firers, class, th).unwrap_or_else(|_| Plan::Done(keep))
        });
    }
    Ok(plan)
}

/// The rules of evasion (001, EVASION): who may evade whom.
fn may_evade(charger: &UnitState, evader: &UnitState) -> Result<(), String> {
    let (Some(ta), Some(tb)) = (tables::troop(&charger.troop), tables::troop(&evader.troop)) else {
        return Err("unknown troop type".into());
    };
    let mounted = |u: &UnitState, t: &tables::Troop| t.kind.mounted() && !u.dismounted;
    if matches!(tb.kind, tables::Kind::Gun | tables::Kind::Train) {
        return Err("artillerists and train drivers may never evade".into());
    }
    if evader.status == Status::Routed {
        return Err("routed units may not move".into());
    }
    if mounted(evader, tb) {
        if mounted(charger, ta) {
            let dice = |u: &UnitState, t: &tables::Troop| tables::movement_dice(t, u.order);
            if dice(charger, ta) >= dice(evader, tb) {
                return Err("mounted troops evade only foot or slower mounted troops (decision 38: fewer movement dice)".into());
            }
        }
        return Ok(());
    }
    if mounted(charger, ta) {
        return Err("infantry may not evade cavalry".into());
    }
    if evader.order == Order::Closed {
        return Err("only open-order and skirmishing foot evade".into());
    }
    if charger.order == Order::Skirmish {
        return Err("foot evades open- or closed-order foot".into());
    }
    Ok(())
}

/// An evasion in answer to a charge that has passed To Close: a unit that has already moved tests
/// To Stand first (pass: evades and is shaken; fail: routed); the evader rolls its movement dice;
/// if it has not room for the whole roll it is dispersed; figures the charger still touches are
/// destroyed (001, EVASION). Evading takes the unit's move for the turn.
fn evasion(
    charger: &UnitState,
    evader: &UnitState,
    (room, touched): (Option<u8>, u8),
    th: Thresholds,
    turn: u32,
) -> Result<Plan<Acc>, Rejection> {
    may_evade(charger, evader).map_err(|m| {
        reject(
            "cannot-evade",
            Some("target_evades"),
            format!("target_evades: {m} (001, EVASION)"),
        )
    })?;
    if touched > evader.figures {
        return Err(reject(
            "too-many",
            Some("touched"),
            format!("touched: {} has {} figures", evader.name, evader.figures),
        ));
    }
    let (troop, order) = moving_as(evader);
    let mv = open_move(troop, order);
    let dice = resolve::plan(&resolve::Request::Move(mv), &th)?;
    let ev = evader.clone();
    let run = move |acc: Acc, shaken: bool| {
        let ev = ev.clone();
        dice.clone().map(move |o| {
            let inches: u32 = o
                .facets
                .iter()
                .find(|(k, _)| k == "inches")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let mut acc = acc.clone().with(o);
            acc.summary.pop();
            let dispersed = room.is_some_and(|r| inches > u32::from(r));
            if dispersed {
                acc.summary.push(format!(
                    "{} evades {inches}\" but has only {}\" of room: dispersed and removed (001, EVASION)",
                    ev.name,
                    room.unwrap_or(0)
                ));
                acc.facets.push(("evasion".into(), "dispersed".into()));
                acc.effects.push(Effect::Unit(UnitState {
                    status: Status::Gone,
                    moved: true,
                    ..ev.clone()
                }));
                return acc;
            }
            let figures = ev.figures - touched;
            acc.summary.push(format!(
                "{} evades {inches}\"{}{}",
                ev.name,
                if shaken { ", shaken" } else { "" },
                if touched > 0 {
                    format!("; {touched} figure(s) still touched are destroyed")
                } else {
                    String::new()
                }
            ));
            acc.facets.push(("evasion".into(), "evades".into()));
            acc.effects.push(Effect::Unit(UnitState {
                figures,
                leaders: ev.leaders.min(figures),
                status: if figures == 0 {
                    Status::Gone
                } else if shaken {
                    Status::Shaken
                } else {
                    ev.status
                },
                moved: true,
                ..ev.clone()
            }));
            acc
        })
    };
    if !evader.moved {
        return Ok(run(Acc::default(), false));
    }
    let test = resolve::plan(
        &resolve::Request::Morale(morale_req(Test::ToStand, evader)),
        &th,
    )?;
    let ev = evader.clone();
    Ok(test.and_then(move |o| {
        let pass = passed(&o);
        let mut acc = Acc::default().with(o);
        acc.summary.pop();
        if pass {
            run(acc, true)
        } else {
            acc.summary.push(format!(
                "{} has moved already and fails To Stand: routed",
                ev.name
            ));
            acc.facets.push(("evasion".into(), "routs".into()));
            rout_unit(acc, ev.clone(), turn)
        }
    }))
}

/// After the close combat: losses to both units, lances spent, and the loser's Stand and Fight
/// (−2 if it was attacked in the rear): pass, falls back shaken; fail, routs.
fn after_combat(
    acc: Acc,
    o: Outcome,
    (a, b): (UnitState, UnitState),
    (rear, breaker_is_a): (bool, bool),
    (turn, th): (u32, Thresholds),
    base: &State,
) -> Plan<Acc> {
    let get = |k: &str| -> u8 {
        o.facets
            .iter()
            .find(|(f, _)| f == k)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0)
    };
    let a_wins = o.facets.iter().any(|(k, v)| k == "winner" && v == "A");
    let broke_off = o
        .facets
        .iter()
        .find(|(k, _)| k == "break off")
        .map(|(_, v)| v.clone());
    let (la, lb) = (get("A figures lost"), get("B figures lost"));
    let down: Vec<String> = o
        .facets
        .iter()
        .filter(|(k, v)| k.ends_with(" field officer") && v == "down")
        .map(|(k, _)| k.trim_end_matches(" field officer").to_string())
        .collect();
    let mut o = o;
    // The combat's A and B are the charger and the target.
    for f in &mut o.facets {
        if let Some(rest) = f.0.strip_prefix("A ") {
            f.0 = format!("charger {rest}");
        } else if let Some(rest) = f.0.strip_prefix("B ") {
            f.0 = format!("target {rest}");
        }
    }
    let mut acc = acc.with(o);
    acc.summary.pop();
    // The combat's own "winner" (A, B) is named again below by the units' parts in the charge.
    acc.facets.retain(|(k, _)| k != "winner");
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
    let (mut a2, mut b2) = (hurt(&a, la), hurt(&b, lb));
    // A field officer who fell in his bout (decision 49): down, his unit without his +1.
    for (side, u) in [("A", &mut a2), ("B", &mut b2)] {
        let fell = down.iter().any(|d| d == side);
        let officer = base
            .officers
            .values()
            .find(|o| !o.down && o.attached.as_deref() == Some(u.id.as_str()));
        if let (true, Some(o)) = (fell, officer) {
            let mut now = base.clone();
            for e in &acc.effects {
                apply(&mut now, e);
            }
            now.units.insert(u.id.clone(), u.clone());
            let before = acc.effects.len();
            officer_falls(&now, &mut acc, o);
            // The unit's own record is the one pushed below; its brigade's others keep theirs.
            let mut i = before;
            while i < acc.effects.len() {
                if matches!(&acc.effects[i], Effect::Unit(x) if x.id == u.id) {
                    acc.effects.remove(i);
                } else {
                    i += 1;
                }
            }
            u.field_officer = false;
            if u.brigade.as_deref() == Some(o.id.as_str()) {
                u.brigade = None;
            }
        }
    }
    acc.effects.push(Effect::Unit(a2.clone()));
    acc.effects.push(Effect::Unit(b2.clone()));
    if let Some(how) = broke_off {
        // Broken off (001, BREAKING OFF): the breaker's test is in the combat's outcome; a pass
        // retires it shaken, a fail routs it with the rout's D4 casualties (decision 28).
        let breaker = if breaker_is_a { a2 } else { b2 };
        acc.facets.push(("winner".into(), "broke off".into()));
        acc.summary.push(format!(
            "{} breaks off; losses {} {la}, {} {lb}",
            breaker.name, a.name, b.name
        ));
        if !breaker.on_table() {
            return Plan::Done(acc);
        }
        if how == "retires shaken" {
            acc.summary.push(format!("{} is shaken", breaker.name));
            let shaken = UnitState {
                status: Status::Shaken,
                ..breaker
            };
            acc.effects.push(Effect::Unit(shaken.clone()));
            return fall_back(acc, &shaken, "retires");
        }
        return rout_unit(acc, breaker, turn);
    }
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
    match resolve::plan(&resolve::Request::Morale(req), &th) {
        Ok(p) => p.and_then(move |o| {
            let holds = passed(&o);
            let mut acc = acc.clone().named(&loser.name, o);
            acc.summary.pop();
            acc.facets.push((
                "loser".into(),
                if holds { "falls back shaken" } else { "routs" }.into(),
            ));
            if holds {
                acc.summary.push(format!("{} is shaken", loser.name));
                let shaken = UnitState {
                    status: Status::Shaken,
                    ..loser.clone()
                };
                acc.effects.push(Effect::Unit(shaken.clone()));
                fall_back(acc, &shaken, "falls back")
            } else {
                rout_unit(acc, loser.clone(), turn)
            }
        }),
        Err(_) => Plan::Done(acc),
    }
}
