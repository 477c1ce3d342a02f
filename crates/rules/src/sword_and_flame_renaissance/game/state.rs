//! The state of a game and its absolute effects: units, sides, the activation deck, field
//! officers, the optional rules; folding an effect (`apply`) and the state a scenario starts in.

use super::*;

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
    /// Figures lost to fire in earlier turns: with this turn's, the losses "by any fire" that
    /// bring the fire morale test (001, MORALE; decision 8). Left out while 0, so a state
    /// recorded before the field existed reads and writes back the same.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fire_losses_earlier: u8,
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
    /// Has fired on its card in this turn's fire step, so it may not evade this turn ("Evading
    /// units do not fire", 001, EVASION; decision 68). Left out while false, so a state recorded
    /// before the field existed reads and writes back the same.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fired: bool,
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
            fire_losses_earlier: 0,
            swiss: false,
            lance_used: false,
            sub_units: Vec::new(),
            dismounted: false,
            wounded: 0,
            brigade: None,
            may_move: false,
            charged: false,
            fired: false,
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
    /// Figures lost "by any fire" so far, this turn's included (001, MORALE).
    pub fn lost_to_fire(&self) -> u32 {
        u32::from(self.fire_losses_earlier) + u32::from(self.fire_losses)
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
    use crate::sword_and_flame_renaissance::engine::house;
    let on = |k: &str| house(sc, k) != 0;
    let options = Options {
        quicker_movement: on("options.quicker_movement"),
        brigade_movement: on("options.brigade_movement"),
        dismounting: on("options.dismounting"),
        // Within 0..=2 (`house`), so the conversion never falls back.
        wounded: u8::try_from(house(sc, "options.wounded")).unwrap_or_default(),
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
        .filter(|l| l.rank == crate::interface::scenario::Rank::Battle)
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
                ..UnitState::fresh(
                    (&u.id, &u.name.message(), &u.side),
                    &u.troop,
                    order,
                    figures,
                    leaders,
                )
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
                    name: l.name.message().into_owned(),
                    side: l.side.clone(),
                    rank: if l.rank == crate::interface::scenario::Rank::Army {
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
            name: s.name.message().into_owned(),
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

fn is_zero(n: &u8) -> bool {
    *n == 0
}
