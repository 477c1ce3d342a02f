//! The battle as a fold (design §14): every action resolves into the next state, and the event's
//! effects are the difference (absolute values at JSON pointers), so replay needs no dice.

use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::plan::throw;
use tercio_core::{Depends, Die, Modifier, Plan, Step};

use super::action::Action;
use super::resolve::{
    self, gun_throw, panic_modifiers, panics, pool_led, side_dice, volley_groups, Cover, HitOn,
    Pool, Role, SideIn, VolleyIn,
};
use super::tables::{
    self, card_colour, Quality, Troop, Weapon, COMMANDER_LOSS_HALVES, COMMANDER_POINTS, JOKER,
};
use super::{k, m, term};
use crate::effects::shuffled;
use crate::interface::input::{in_range, read_action};
use crate::interface::Rejection;
use crate::scenario::{Rank, Scenario};

// ------------------------------------------------------------------------------------------------
// Configuration from the scenario's house rules (§14.4).

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cfg {
    pub cm_per_bw: u32,
    pub fog: i64,
    pub orders: bool,
    pub niente_soldi: bool,
    pub mala_guerra: bool,
    pub victory_points: bool,
    pub victory_weighted: bool,
    pub threshold_pct: u32,
    pub turns: u32,
    pub half_hits_panic: bool,
    pub light_cavalry_charge_bonus: bool,
    pub javelin_hit: u8,
    pub retire_bw: u32,
    pub flight_counts_at_once: bool,
    pub points_veteran_cavalry: u32,
}

pub fn house(s: &Scenario, key: &str) -> i64 {
    s.house_rules.get(key).copied().unwrap_or_else(|| {
        tables::HOUSE_RULES
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(0, |(_, v)| *v)
    })
}

fn cfg_of(s: &Scenario) -> Cfg {
    let u = |k: &str| u32::try_from(house(s, k).max(0)).unwrap_or(0);
    let b = |k: &str| house(s, k) != 0;
    Cfg {
        cm_per_bw: if u("callan.cm_per_bw") == 3 { 3 } else { 4 },
        fog: house(s, "callan.fog").clamp(-1, 1),
        orders: b("callan.orders"),
        niente_soldi: b("callan.niente_soldi"),
        mala_guerra: b("callan.mala_guerra"),
        victory_points: b("callan.victory"),
        victory_weighted: b("callan.victory_total"),
        threshold_pct: u("callan.threshold_pct").clamp(1, 100),
        turns: u("callan.turns"),
        half_hits_panic: b("callan.half_hits_panic"),
        light_cavalry_charge_bonus: b("callan.light_cavalry_charge_bonus"),
        javelin_hit: if house(s, "callan.javelin_hit") == 5 {
            5
        } else {
            6
        },
        retire_bw: u("callan.retire_bw").max(1),
        flight_counts_at_once: b("callan.flight_counts_at_once"),
        points_veteran_cavalry: u("callan.points_veteran_cavalry").max(1),
    }
}

// ------------------------------------------------------------------------------------------------
// State.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Setup,
    Cards,
    Over,
}

/// What a card opens (§4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CardPhase {
    Fire,
    Infantry,
    Cavalry,
    Joker,
}

impl CardPhase {
    pub fn id(self) -> &'static str {
        match self {
            CardPhase::Fire => "fire",
            CardPhase::Infantry => "infantry",
            CardPhase::Cavalry => "cavalry",
            CardPhase::Joker => "joker",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Open {
    /// The side whose card it is (`None`: an ignored Joker).
    pub side: Option<usize>,
    pub phase: CardPhase,
    /// For a Joker: the phase of the card before it, which its side may repeat with one unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<CardPhase>,
    #[serde(default)]
    pub joker_used: bool,
    /// A unit of the card's side has moved at this card: its commanders no longer may (D13).
    #[serde(default)]
    pub troops_moved: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideState {
    pub id: String,
    pub name: String,
    pub camp: bool,
    pub camp_value: u32,
    pub camp_looted: bool,
    /// Weighted original strength, in half bases (D61).
    pub strength: u32,
    pub points: u32,
    /// Weighted losses, in half bases.
    pub lost: u32,
    pub lost_points: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Ok,
    /// Not yet on the table: a reinforcement (`rinforzo-N`).
    Waiting,
    /// Exhausted by fire or a draw: retires 8 BW a turn facing the enemy (D43).
    Retiring,
    Fleeing,
    /// Pursuing fleeing cavalry (D51–D53).
    Pursuing,
    /// French gendarmi off the table after a pursuit (D52).
    Away,
    Looting,
    /// "Niente soldi": withdrawn before the battle (D59).
    Withdrawn,
    /// Destroyed, removed, off the table.
    Lost,
}

impl Status {
    pub fn id(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Waiting => "waiting",
            Status::Retiring => "retiring",
            Status::Fleeing => "fleeing",
            Status::Pursuing => "pursuing",
            Status::Away => "away",
            Status::Looting => "looting",
            Status::Withdrawn => "withdrawn",
            Status::Lost => "lost",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitState {
    pub id: String,
    pub name: String,
    pub side: usize,
    pub troop: Troop,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nationality: Option<String>,
    pub quality: Quality,
    pub bases_start: u32,
    pub bases: u32,
    /// Attached: open-order shot screen bases (D3).
    pub screen: u32,
    /// Attached Doppelsöldner or rodeleros base (D32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub special: Option<Troop>,
    pub halberd: bool,
    /// A tercio's or colunella's shot bases (D4).
    pub shot: u32,
    pub tercio: bool,
    pub hits: u32,
    pub riccio: bool,
    pub open_order: bool,
    pub disordered: bool,
    pub status: Status,
    pub fixated: bool,
    pub charges: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weapon: Option<Weapon>,
    pub enters: u32,
    pub reserve: bool,
    /// Turns of pursuit left (other cavalry, D51); 0 with `Pursuing`: to the edge.
    pub pursuit_turns: u32,
    /// Its remaining bases already count as lost (fled, D44).
    pub counted: bool,
    // This turn.
    pub fired: bool,
    pub held_fire: bool,
    pub moved: bool,
    pub activated: bool,
    pub fought_with: Vec<String>,
    pub panic_passed: bool,
    /// The turn a heavy gun last fired (D20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fired_turn: Option<u32>,
    pub exploded: bool,
    /// Hits of a veteran volley waiting for the round that follows (D24).
    pub volley_hits: u32,
    /// The kind of base the owner gives up first: `screen`, `special`, `halberd` or `shot`
    /// (D5; none: a rear pike base).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lose_first: Option<String>,
    /// Its orders die came up 1 this turn: it does not move (D57).
    #[serde(default)]
    pub orders_failed: bool,
    /// It attacked this turn: light horse may not also fire (D17).
    #[serde(default)]
    pub attacked: bool,
}

impl UnitState {
    pub fn lost_bases(&self) -> u32 {
        self.bases_start - self.bases
    }
    /// Half lost exactly: "non può attaccare" (D42).
    pub fn half(&self) -> bool {
        2 * self.lost_bases() >= self.bases_start
    }
    pub fn exhausted(&self) -> bool {
        2 * self.lost_bases() > self.bases_start
    }
    pub fn on_table(&self) -> bool {
        matches!(self.status, Status::Ok | Status::Retiring | Status::Fleeing)
    }
    pub fn pike_main(&self) -> u32 {
        self.bases
            - self.screen
            - self.shot
            - u32::from(self.special.is_some())
            - u32::from(self.halberd)
    }
    /// Bases that fight in melee: a pike block's shot screen, Doppelsöldner or rodeleros and
    /// halberdiers do not count as bases in contact (D3, D32); one while any base is left.
    pub fn fighting_bases(&self) -> u32 {
        if self.troop != Troop::Picchieri {
            return self.bases;
        }
        let attached = self.screen + u32::from(self.special.is_some()) + u32::from(self.halberd);
        self.bases.saturating_sub(attached).max(self.bases.min(1))
    }
    /// Bases that may shoot (D3, D4).
    pub fn firing_bases(&self) -> u32 {
        if self.weapon.is_none() {
            return 0;
        }
        if self.troop == Troop::Picchieri {
            return self.shot;
        }
        self.bases
    }
    fn weight(&self) -> u32 {
        if self.troop.is_gun() {
            2
        } else {
            self.quality.loss_halves()
        }
    }
    fn base_points(&self, cfg: &Cfg) -> u32 {
        self.troop.points(self.quality, cfg.points_veteran_cavalry)
    }
    /// Veteran infantry never tests (D47).
    fn never_panics(&self) -> bool {
        self.quality == Quality::Veterani && self.troop.is_foot()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommanderStatus {
    Active,
    Wounded,
    Fled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommanderState {
    pub id: String,
    pub name: String,
    pub side: usize,
    pub army: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    pub status: CommanderStatus,
    pub moved: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Combat {
    pub id: u32,
    /// The two units: index 0 attacked first.
    pub units: [String; 2],
    /// Rounds fought so far.
    pub rounds: u32,
    /// Each unit's role in the next round.
    pub roles: [Role; 2],
    /// Cavalry against cavalry: continues at a 3rd card; otherwise at a 2nd (D14).
    pub cavalry: bool,
    pub mala_guerra: bool,
    /// The turn of its last round.
    pub turn: u32,
    /// A card has made it due this turn.
    pub due: bool,
    /// The defender (index 1) is fought in the flank or rear: it counts one base until it wins
    /// or draws a round and turns to face (D34).
    #[serde(default)]
    pub flanked: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub turn: u32,
    pub phase: Phase,
    pub cfg: Cfg,
    /// This turn's undrawn cards in order: secret (§14.5).
    pub deck: Vec<u8>,
    /// This turn's cards drawn, in order.
    pub drawn: Vec<u8>,
    pub joker: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fog_roll: Option<u8>,
    /// The shuffle key: secret.
    pub salt: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<Open>,
    pub sides: Vec<SideState>,
    pub units: Vec<UnitState>,
    pub commanders: Vec<CommanderState>,
    pub combats: Vec<Combat>,
    pub next_combat: u32,
    /// Obstacle id → `facile`, `difficile`, `molto-difficile` (D58).
    pub obstacles: BTreeMap<String, String>,
    /// `Some(side)` the winner; `Some(None)`... see `draw`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<usize>,
    pub draw: bool,
    pub chronicle: Vec<String>,
    /// An attack on a unit that may evade, waiting for its side's answer (§5, Evasione).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<Value>,
}

impl State {
    pub fn unit(&self, id: &str) -> Option<&UnitState> {
        self.units.iter().find(|u| u.id == id)
    }
    fn unit_mut(&mut self, id: &str) -> Option<&mut UnitState> {
        self.units.iter_mut().find(|u| u.id == id)
    }
    pub fn commander_of(&self, unit: &str) -> Option<&CommanderState> {
        self.commanders
            .iter()
            .find(|c| c.status == CommanderStatus::Active && c.unit.as_deref() == Some(unit))
    }
    /// This turn's cards not yet drawn, in card order: public (the deck's order is not), and the
    /// same for every seat; the board's next-card odds and "all drawn" come from it.
    pub fn cards_left(&self) -> Vec<u8> {
        let mut all: Vec<u8> = (1..=6).collect();
        if self.joker {
            all.push(JOKER);
        }
        all.retain(|c| !self.drawn.contains(c));
        all
    }
    /// The n-th card (1, 2, 3) drawn of `side`'s colour this turn.
    pub fn cards_of(&self, side: usize) -> usize {
        self.drawn
            .iter()
            .filter(|&&c| card_colour(c) == Some(side))
            .count()
    }
    pub fn cm(&self, bw: u32) -> u32 {
        bw * self.cfg.cm_per_bw
    }
}

pub fn reject(code: &str, field: Option<&str>, msg: String) -> Rejection {
    Rejection::new(code, field, msg)
}

fn field_msg(key: &str, field: &str, args: &[(&str, String)]) -> String {
    let mut a = vec![("field", field.to_string())];
    a.extend(args.iter().cloned());
    m(key, &a)
}

// ------------------------------------------------------------------------------------------------
// The scenario's army.

/// Every unit flag the rule set reads (§14.3).
pub fn flags_for(troop: Troop) -> Vec<&'static str> {
    let mut f = vec!["veterani", "reclute", "riserva", "comandante"];
    f.extend(REINFORCEMENT_FLAGS);
    match troop {
        Troop::Picchieri => {
            f.extend(SCREEN_FLAGS);
            f.extend([
                "doppelsoldner",
                "rodeleros",
                "alabardieri",
                "tercio",
                "colunella",
            ]);
        }
        Troop::CavalleriaLeggera => {
            f.extend(["giavellotti", "balestre", "archibugi", "ordine-aperto"])
        }
        Troop::Archibugieri | Troop::Balestrieri | Troop::Arcieri => f.push("ordine-aperto"),
        _ => {}
    }
    f
}

pub const SCREEN_FLAGS: [&str; 12] = [
    "schermo-1",
    "schermo-2",
    "schermo-3",
    "schermo-4",
    "schermo-5",
    "schermo-6",
    "schermo-7",
    "schermo-8",
    "schermo-9",
    "schermo-10",
    "schermo-11",
    "schermo-12",
];

pub const REINFORCEMENT_FLAGS: [&str; 11] = [
    "rinforzo-2",
    "rinforzo-3",
    "rinforzo-4",
    "rinforzo-5",
    "rinforzo-6",
    "rinforzo-7",
    "rinforzo-8",
    "rinforzo-9",
    "rinforzo-10",
    "rinforzo-11",
    "rinforzo-12",
];

fn numbered(flags: &[String], prefix: &str) -> Option<u32> {
    flags
        .iter()
        .find_map(|f| f.strip_prefix(prefix).and_then(|n| n.parse().ok()))
}

pub fn unit_of(s: &Scenario, i: usize) -> Result<UnitState, String> {
    let u = &s.units[i];
    let troop = Troop::from_id(&u.troop).ok_or_else(|| format!("units[{i}].type: {}", u.troop))?;
    let has = |f: &str| u.flags.iter().any(|x| x == f);
    let quality = if has("veterani") {
        Quality::Veterani
    } else if has("reclute") || troop == Troop::ContadiniArmati {
        Quality::Reclute
    } else {
        Quality::Addestrati
    };
    let tercio = has("tercio") || has("colunella");
    let n = numbered(&u.flags, "schermo-").unwrap_or(0);
    let (screen, shot) = if tercio { (0, n) } else { (n, 0) };
    let special = if has("doppelsoldner") {
        Some(Troop::Doppelsoldner)
    } else if has("rodeleros") {
        Some(Troop::Rodeleros)
    } else {
        None
    };
    let halberd = troop == Troop::Picchieri && has("alabardieri");
    let special = if troop == Troop::Picchieri {
        special
    } else {
        None
    };
    let bases =
        u32::from(u.bases) + screen + shot + u32::from(special.is_some()) + u32::from(halberd);
    let weapon = match troop {
        Troop::Archibugieri => Some(Weapon::Archibugio),
        Troop::Balestrieri | Troop::Arcieri => Some(Weapon::Balestra),
        Troop::ArtiglieriaLeggera => Some(Weapon::CannoneLeggero),
        Troop::ArtiglieriaPesante => Some(Weapon::CannonePesante),
        Troop::CavalleriaLeggera if has("giavellotti") => Some(Weapon::Giavellotti),
        Troop::CavalleriaLeggera if has("balestre") || has("archibugi") => {
            Some(Weapon::CavalloArmiDaTiro)
        }
        Troop::Picchieri if shot > 0 => Some(Weapon::Archibugio),
        _ => None,
    };
    let enters = numbered(&u.flags, "rinforzo-").unwrap_or(1);
    Ok(UnitState {
        id: u.id.clone(),
        name: u.name.clone(),
        side: s.sides.iter().position(|x| x.id == u.side).unwrap_or(0),
        troop,
        nationality: u.nationality.clone(),
        quality,
        bases_start: bases,
        bases,
        screen,
        special,
        halberd,
        shot,
        tercio,
        hits: 0,
        riccio: false,
        open_order: has("ordine-aperto"),
        disordered: false,
        status: if enters > 1 {
            Status::Waiting
        } else {
            Status::Ok
        },
        fixated: false,
        charges: 0,
        weapon,
        enters,
        reserve: has("riserva"),
        pursuit_turns: 0,
        counted: false,
        fired: false,
        held_fire: false,
        moved: false,
        activated: false,
        fought_with: Vec::new(),
        panic_passed: false,
        fired_turn: None,
        exploded: false,
        volley_hits: 0,
        lose_first: None,
        orders_failed: false,
        attacked: false,
    })
}

pub fn initial(s: &Scenario) -> Result<State, String> {
    let cfg = cfg_of(s);
    let units = (0..s.units.len())
        .map(|i| unit_of(s, i))
        .collect::<Result<Vec<_>, _>>()?;
    let commanders = s
        .leaders
        .iter()
        .map(|l| CommanderState {
            id: l.id.clone(),
            name: l.name.clone(),
            side: s.sides.iter().position(|x| x.id == l.side).unwrap_or(0),
            army: l.rank == Rank::Army,
            unit: s
                .units
                .iter()
                .find(|u| u.leader == l.id && u.flags.iter().any(|f| f == "comandante"))
                .map(|u| u.id.clone()),
            status: CommanderStatus::Active,
            moved: false,
        })
        .collect();
    let camp = |i: usize| {
        let key = if i == 0 {
            "callan.camp_first"
        } else {
            "callan.camp_second"
        };
        u32::try_from(house(s, key).clamp(0, 10)).unwrap_or(5)
    };
    let sides = s
        .sides
        .iter()
        .enumerate()
        .map(|(i, x)| SideState {
            id: x.id.clone(),
            name: x.name.clone(),
            camp: x.camp,
            camp_value: camp(i),
            camp_looted: false,
            strength: 0,
            points: 0,
            lost: 0,
            lost_points: 0,
        })
        .collect();
    let mut st = State {
        turn: 0,
        phase: Phase::Setup,
        cfg,
        deck: Vec::new(),
        drawn: Vec::new(),
        joker: false,
        fog_roll: None,
        salt: 0,
        open: None,
        sides,
        units,
        commanders,
        combats: Vec::new(),
        next_combat: 1,
        obstacles: BTreeMap::new(),
        winner: None,
        draw: false,
        chronicle: Vec::new(),
        question: None,
    };
    tally_strength(&mut st);
    Ok(st)
}

/// Each army's weighted strength and points, from the units in the army (D61, D62).
pub fn tally_strength(st: &mut State) {
    for i in 0..st.sides.len() {
        let mut halves = 0;
        let mut points = 0;
        for u in st
            .units
            .iter()
            .filter(|u| u.side == i && u.status != Status::Withdrawn)
        {
            halves += if st.cfg.victory_weighted {
                u.bases_start * u.weight()
            } else {
                u.bases_start * 2
            };
            points += if u.troop.is_gun() {
                u.base_points(&st.cfg)
            } else {
                u.bases_start * u.base_points(&st.cfg)
            };
        }
        let cmd = st.commanders.iter().filter(|c| c.side == i).count() as u32;
        if st.cfg.victory_weighted {
            halves += cmd * COMMANDER_LOSS_HALVES;
        }
        points += cmd * COMMANDER_POINTS;
        st.sides[i].strength = halves;
        st.sides[i].points = points;
    }
}

// ------------------------------------------------------------------------------------------------
// The result of a resolution.

/// The result of a resolution: the next state with its explanation.
pub type Res = crate::effects::Res<State>;

/// A lasting effect, written in the battle's chronicle.
trait Chronicle {
    fn note(&mut self, s: String);
}

impl Chronicle for Res {
    fn note(&mut self, s: String) {
        self.st.chronicle.push(s);
    }
}

type P = Plan<Res>;
type K = Rc<dyn Fn(Res) -> P>;

/// A key for the exact odds' memo: the call site (which names the continuation and everything it
/// captured, the state it started from included) and the outcome's facets so far. Within one
/// resolution every die that changes the state is recorded as a facet (hits, bases lost, a panic
/// test, a wound, the pursuit die), so equal keys have equal futures.
fn digest(site: &str, r: &Res) -> String {
    facet_digest(site, r, false)
}

/// [`digest`] with the whole state in it: for the start of a round, whose state may come from
/// dice that are not facets of the round (a duel, a raw unit's test).
fn state_digest(site: &str, r: &Res) -> String {
    facet_digest(site, r, true)
}

fn facet_digest(site: &str, r: &Res, state: bool) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    if state {
        h.update(serde_json::to_vec(&r.st).unwrap_or_default());
    }
    for (k, v) in &r.facets {
        h.update(k.as_bytes());
        h.update([0]);
        h.update(v.as_bytes());
        h.update([1]);
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("{site}|{hex}")
}

/// Continue with `then`, merging equal futures in the exact odds (a panic die's six faces lead to
/// two outcomes, not six): rolling simply continues.
fn merge(site: &str, r: Res, then: K) -> P {
    let key = digest(site, &r);
    Plan::memo(key, move || then(r.clone()))
}

fn yes_no(b: bool) -> String {
    k(if b { "callan.yes" } else { "callan.no" })
}

// ------------------------------------------------------------------------------------------------
// Fields, and the plan of each action: the typed action's units, numbers and choices, checked
// against the state.

/// The unit named at `field` (`None`: not named by an id), which must be one of the game's.
fn unit_at<'a, 'b>(
    st: &'a State,
    f: &str,
    id: impl Into<Option<&'b str>>,
) -> Result<&'a UnitState, Rejection> {
    let id = id.into().ok_or_else(|| {
        reject(
            "missing-field",
            Some(f),
            field_msg("callan.reject.missing", f, &[]),
        )
    })?;
    st.unit(id).ok_or_else(|| {
        reject(
            "unknown-unit",
            Some(f),
            m(
                "callan.reject.unknown-unit",
                &[
                    ("field", f.to_string()),
                    ("id", id.to_string()),
                    (
                        "allowed",
                        st.units
                            .iter()
                            .map(|u| u.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                ],
            ),
        )
    })
}

/// A count of bases at `field`, from 0 to `max` (absent: 0).
fn count(f: &str, n: Option<u32>, max: u32) -> Result<u32, Rejection> {
    in_range(f, n.unwrap_or(0), 0, max)
}

/// The refusal of an action handed to the step of another.
fn wrong() -> Rejection {
    reject("unknown-action", Some("action"), k("callan.reject.unknown"))
}

/// The side an action belongs to (its unit's or commander's side).
pub fn acting_side(st: &State, a: &Action) -> Option<usize> {
    let unit = match a {
        Action::Answer { .. } => return question_side(st),
        Action::Fire { unit, .. } => unit.id(),
        Action::Attack { attacker, .. } => attacker.id(),
        Action::HoldFire { unit, .. }
        | Action::Volley { unit, .. }
        | Action::Move { unit, .. }
        | Action::PanicTest { unit, .. }
        | Action::Pursuit { unit, .. }
        | Action::OffTable { unit, .. }
        | Action::SetState { unit, .. } => Some(unit.as_str()),
        Action::Commander { commander, .. } | Action::Rally { commander, .. } => {
            return st
                .commanders
                .iter()
                .find(|c| &c.id == commander)
                .map(|c| c.side)
        }
        // A continuing combat is the table's step, like a card: the game master's (D14).
        _ => None,
    };
    unit.and_then(|id| st.unit(id)).map(|u| u.side)
}

fn combat_by<'a>(st: &'a State, id: &str) -> Option<&'a Combat> {
    let n: u32 = id.trim_start_matches('c').parse().ok()?;
    st.combats.iter().find(|c| c.id == n)
}

/// Plan one action against the state.
pub fn plan(st: &State, a: &Action) -> Result<P, Rejection> {
    if st.phase == Phase::Over {
        return Err(reject("game-over", Some("action"), k("callan.reject.over")));
    }
    if st.phase == Phase::Setup && !matches!(a, Action::Start { .. } | Action::Obstacle { .. }) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            k("callan.reject.start-first"),
        )
        .not_now());
    }
    if st.phase == Phase::Cards && matches!(a, Action::Start { .. }) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            k("callan.reject.started"),
        ));
    }
    let answering = matches!(a, Action::Answer { .. });
    // An attacked unit that may evade answers first (§5, Evasione).
    if st.question.is_some() && !answering {
        return Err(reject(
            "question-pending",
            Some("action"),
            k("callan.reject.question"),
        )
        .not_now());
    }
    if st.question.is_none() && answering {
        return Err(reject(
            "no-question",
            Some("action"),
            k("callan.reject.no-question"),
        )
        .not_now());
    }
    // Continuing combats come first at their card (D14).
    if st.combats.iter().any(|c| c.due)
        && !matches!(
            a,
            Action::ResolveCombat { .. }
                | Action::PanicTest { .. }
                | Action::SetState { .. }
                | Action::Obstacle { .. }
                | Action::OffTable { .. }
        )
    {
        let due: Vec<String> = st
            .combats
            .iter()
            .filter(|c| c.due)
            .map(|c| format!("c{}", c.id))
            .collect();
        return Err(reject(
            "combat-due",
            Some("action"),
            m("callan.reject.combat-due", &[("combats", due.join(", "))]),
        )
        .not_now());
    }
    match a {
        Action::Start { .. } => Ok(start(st)),
        Action::Draw { .. } => draw(st),
        Action::Fire { .. } | Action::Volley { .. } => fire(st, a),
        Action::HoldFire { unit, .. } => hold_fire(st, unit),
        Action::Move { .. } => move_unit(st, a),
        Action::Commander {
            commander: cid,
            join,
            ..
        } => commander(st, cid, join.as_deref()),
        Action::Attack { .. } => attack(st, a),
        Action::ResolveCombat { .. } => resolve_combat(st, a),
        Action::PanicTest { unit, reason, .. } => panic_action(st, unit, reason.as_deref()),
        Action::Pursuit {
            unit, reached_edge, ..
        } => pursuit(st, unit, *reached_edge),
        Action::Rally {
            commander: cid,
            from,
            to,
            ..
        } => rally(st, cid, from, to),
        Action::OffTable { unit, .. } => off_table(st, unit),
        Action::Obstacle { id, difficulty, .. } => obstacle(st, id, difficulty.as_deref()),
        Action::SetState { .. } => set_state(st, a),
        Action::EndTurn { .. } => end_turn(st),
        Action::Answer { choice, .. } => answer(st, choice.as_deref()),
    }
}

// ------------------------------------------------------------------------------------------------
// Start, cards, end of turn (§4).

fn start(st: &State) -> P {
    let st = st.clone();
    throw(8, 255, "Shuffle key", Depends::Nothing).and_then(move |faces| {
        let mut r = Res::new(&st);
        r.st.salt = faces
            .iter()
            .fold(0u64, |k, &f| k.wrapping_mul(257).wrapping_add(u64::from(f)));
        r.st.phase = Phase::Cards;
        let fog = r.st.cfg.fog;
        let then: K = Rc::new(niente_soldi);
        match fog {
            1 => {
                r.st.joker = true;
                r.step(k("callan.step.fog"), k("callan.fog.fixed-on"));
                then(r)
            }
            -1 => {
                r.step(k("callan.step.fog"), k("callan.fog.fixed-off"));
                then(r)
            }
            _ => Plan::die(Die::d6(k("callan.die.fog")), move |f| {
                let mut r = r.clone();
                r.st.fog_roll = Some(f);
                r.st.joker = f == 1;
                r.facet(k("callan.facet.fog"), yes_no(f == 1));
                r.step(
                    k("callan.step.fog"),
                    m(
                        if f == 1 {
                            "callan.fog.joker"
                        } else {
                            "callan.fog.none"
                        },
                        &[("face", f.to_string())],
                    ),
                );
                then(r)
            }),
        }
    })
}

/// "Niente soldi, niente svizzeri": one die per Swiss or Landsknecht heavy-foot unit (D59).
fn niente_soldi(r: Res) -> P {
    let ids: Vec<String> = if r.st.cfg.niente_soldi {
        r.st.units
            .iter()
            .filter(|u| {
                u.troop.is_heavy_foot()
                    && matches!(
                        u.nationality.as_deref(),
                        Some("svizzeri") | Some("lanzichenecchi")
                    )
            })
            .map(|u| u.id.clone())
            .collect()
    } else {
        Vec::new()
    };
    niente_soldi_from(r, Rc::new(ids), 0)
}

fn niente_soldi_from(r: Res, ids: Rc<Vec<String>>, i: usize) -> P {
    let Some(id) = ids.get(i).cloned() else {
        let mut r = r;
        tally_strength(&mut r.st);
        begin_turn(&mut r);
        let s: Vec<String> =
            r.st.sides
                .iter()
                .map(|s| {
                    m(
                        "callan.strength",
                        &[
                            ("side", s.name.clone()),
                            ("points", s.points.to_string()),
                            ("strength", halves(s.strength)),
                        ],
                    )
                })
                .collect();
        for line in s {
            r.step(k("callan.step.strength"), line);
        }
        r.say(k("callan.said.started"));
        return Plan::Done(r);
    };
    let name = r.st.unit(&id).map(|u| u.name.clone()).unwrap_or_default();
    Plan::die(
        Die::d6(m("callan.die.niente-soldi", &[("unit", name.clone())])),
        move |f| {
            let mut r = r.clone();
            let swiss =
                r.st.unit(&id)
                    .is_some_and(|u| u.nationality.as_deref() == Some("svizzeri"));
            let enemy_lanz = r.st.units.iter().any(|u| {
                Some(u.side) != r.st.unit(&id).map(|x| x.side)
                    && u.nationality.as_deref() == Some("lanzichenecchi")
            });
            let key = if f == 1 {
                if let Some(u) = r.st.unit_mut(&id) {
                    u.status = Status::Withdrawn;
                }
                "callan.niente.withdraws"
            } else if f >= 5 && swiss && enemy_lanz {
                if let Some(u) = r.st.unit_mut(&id) {
                    u.fixated = true;
                }
                "callan.niente.fixated"
            } else {
                "callan.niente.stays"
            };
            r.facet(
                m("callan.facet.niente", &[("unit", name.clone())]),
                k(&key.replace("callan.niente.", "callan.niente-short.")),
            );
            r.step(
                k("callan.step.niente"),
                m(key, &[("unit", name.clone()), ("face", f.to_string())]),
            );
            if f == 1 {
                r.note(m(
                    "callan.niente.withdraws",
                    &[("unit", name.clone()), ("face", f.to_string())],
                ));
            }
            niente_soldi_from(r, ids.clone(), i + 1)
        },
    )
}

fn halves(h: u32) -> String {
    tables::halves_text(h)
}

/// A turn begins: the deck shuffled, per-turn marks cleared, reinforcements in, pursuers and
/// guns counted down (§4.4 step 1).
fn begin_turn(r: &mut Res) {
    let s = &mut r.st;
    s.turn += 1;
    let mut cards: Vec<u8> = (1..=6).collect();
    if s.joker {
        cards.push(JOKER);
    }
    s.deck = shuffled(s.salt, s.turn, cards);
    s.drawn.clear();
    s.open = None;
    let turn = s.turn;
    for u in s.units.iter_mut() {
        u.fired = false;
        u.held_fire = false;
        u.moved = false;
        u.activated = false;
        u.fought_with.clear();
        u.panic_passed = false;
        u.volley_hits = 0;
        u.orders_failed = false;
        u.attacked = false;
        if u.status == Status::Waiting && u.enters <= turn {
            u.status = Status::Ok;
        }
    }
    for c in s.commanders.iter_mut() {
        c.moved = false;
    }
    for c in s.combats.iter_mut() {
        c.due = false;
    }
}

fn draw(st: &State) -> Result<P, Rejection> {
    let Some(&card) = st.deck.first() else {
        return Err(reject("deck-empty", Some("action"), k("callan.reject.deck-empty")).not_now());
    };
    let mut r = Res::new(st);
    r.st.deck.remove(0);
    let first = r.st.drawn.is_empty();
    let prev = r.st.open.clone();
    r.st.drawn.push(card);
    let open = match card_colour(card) {
        Some(side) => {
            let nth = r.st.cards_of(side);
            let phase = match nth {
                1 => CardPhase::Fire,
                2 => CardPhase::Infantry,
                _ => CardPhase::Cavalry,
            };
            Open {
                side: Some(side),
                phase,
                repeat: None,
                joker_used: false,
                troops_moved: false,
            }
        }
        None => Open {
            side: if first {
                None
            } else {
                prev.as_ref().and_then(|p| p.side)
            },
            phase: CardPhase::Joker,
            repeat: if first {
                None
            } else {
                prev.as_ref().map(|p| p.phase)
            },
            joker_used: false,
            troops_moved: false,
        },
    };
    // Continuing combats at the first 2nd card (foot) or 3rd card (cavalry) of either colour (D14).
    if let Some(side) = open.side.filter(|_| open.phase != CardPhase::Joker) {
        let nth = r.st.cards_of(side);
        let other = 1 - side.min(1);
        let first_of_rank = r.st.cards_of(other) < nth;
        let turn = r.st.turn;
        if first_of_rank && nth >= 2 {
            let cav = nth == 3;
            for c in r.st.combats.iter_mut() {
                if c.turn < turn && c.cavalry == cav {
                    c.due = true;
                }
            }
        }
    }
    let side_name = open
        .side
        .map(|s| r.st.sides[s].name.clone())
        .unwrap_or_default();
    let text = match open.phase {
        CardPhase::Joker if open.side.is_none() => k("callan.card.joker-ignored"),
        CardPhase::Joker => m("callan.card.joker", &[("side", side_name.clone())]),
        p => m(
            "callan.card.phase",
            &[
                ("side", side_name.clone()),
                ("phase", format!("@callan.phase.{}", p.id())),
            ],
        ),
    };
    r.step(
        m("callan.step.draw", &[("card", card_text(card))]),
        text.clone(),
    );
    let due: Vec<String> =
        r.st.combats
            .iter()
            .filter(|c| c.due)
            .map(|c| format!("c{}", c.id))
            .collect();
    if !due.is_empty() {
        r.step(
            k("callan.step.continuing"),
            m("callan.continuing.due", &[("combats", due.join(", "))]),
        );
    }
    r.st.open = Some(open);
    r.say(text);
    Ok(Plan::Done(r))
}

fn end_turn(st: &State) -> Result<P, Rejection> {
    if !st.cards_left().is_empty() {
        return Err(reject(
            "cards-left",
            Some("action"),
            m(
                "callan.reject.cards-left",
                &[("n", st.cards_left().len().to_string())],
            ),
        )
        .not_now());
    }
    let mut r = Res::new(st);
    // Smoke removed; a heavy gun keeps its mark one more turn through `fired_turn` (D20).
    victory_check(&mut r);
    if r.st.phase == Phase::Over {
        return Ok(Plan::Done(r));
    }
    if r.st.cfg.turns > 0 && r.st.turn >= r.st.cfg.turns {
        r.st.phase = Phase::Over;
        let msg = k("callan.victory.turn-limit");
        r.step(k("callan.step.victory"), msg.clone());
        r.say(msg);
        return Ok(Plan::Done(r));
    }
    begin_turn(&mut r);
    let turn = r.st.turn;
    r.say(m("callan.said.new-turn", &[("turn", turn.to_string())]));
    // Pursuers count down; French gendarmi away roll to come back (D51, D52).
    for u in r.st.units.iter_mut() {
        if u.status == Status::Pursuing && u.pursuit_turns > 0 {
            u.pursuit_turns -= 1;
            if u.pursuit_turns == 0 {
                u.status = Status::Ok;
            }
        }
    }
    let away: Vec<String> =
        r.st.units
            .iter()
            .filter(|u| u.status == Status::Away)
            .map(|u| u.id.clone())
            .collect();
    Ok(return_rolls(r, Rc::new(away), 0))
}

fn return_rolls(r: Res, ids: Rc<Vec<String>>, i: usize) -> P {
    let Some(id) = ids.get(i).cloned() else {
        return Plan::Done(r);
    };
    let name = r.st.unit(&id).map(|u| u.name.clone()).unwrap_or_default();
    Plan::die(
        Die::d6(m("callan.die.return", &[("unit", name.clone())])),
        move |f| {
            let mut r = r.clone();
            let back = f >= 4;
            if back {
                if let Some(u) = r.st.unit_mut(&id) {
                    u.status = Status::Ok;
                    u.activated = false;
                }
            }
            r.facet(
                m("callan.facet.returns", &[("unit", name.clone())]),
                yes_no(back),
            );
            r.step(
                k("callan.step.return"),
                m(
                    if back {
                        "callan.return.back"
                    } else {
                        "callan.return.away"
                    },
                    &[("unit", name.clone()), ("face", f.to_string())],
                ),
            );
            return_rolls(r, ids.clone(), i + 1)
        },
    )
}

/// The end-of-turn check (§10.1, D61–D63).
fn victory_check(r: &mut Res) {
    let beaten: Vec<bool> = (0..r.st.sides.len())
        .map(|i| side_beaten(&r.st, i))
        .collect();
    for (i, s) in r.st.sides.iter().enumerate() {
        let (lost, total) = measure(&r.st, i);
        let _ = s;
        r.steps.push(Step {
            title: k("callan.step.victory"),
            dice: Vec::new(),
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: m(
                "callan.victory.losses",
                &[
                    ("side", r.st.sides[i].name.clone()),
                    ("lost", lost.clone()),
                    ("total", total),
                    ("beaten", yes_no(beaten[i])),
                ],
            ),
        });
    }
    let msg = match (beaten.first().copied(), beaten.get(1).copied()) {
        (Some(true), Some(true)) => {
            r.st.draw = true;
            Some(k("callan.victory.draw"))
        }
        (Some(true), _) => {
            r.st.winner = Some(1);
            Some(m(
                "callan.victory.wins",
                &[("side", r.st.sides[1].name.clone())],
            ))
        }
        (_, Some(true)) => {
            r.st.winner = Some(0);
            Some(m(
                "callan.victory.wins",
                &[("side", r.st.sides[0].name.clone())],
            ))
        }
        _ => None,
    };
    if let Some(msg) = msg {
        r.st.phase = Phase::Over;
        r.st.open = None;
        r.note(msg.clone());
        r.say(msg);
    }
}

/// A side's losses and strength as shown (weighted bases, or points), as text.
pub fn measure(st: &State, i: usize) -> (String, String) {
    let s = &st.sides[i];
    if st.cfg.victory_points {
        (s.lost_points.to_string(), s.points.to_string())
    } else {
        (halves(s.lost), halves(s.strength))
    }
}

/// Beaten: losses strictly beyond the threshold (D63).
pub fn side_beaten(st: &State, i: usize) -> bool {
    let s = &st.sides[i];
    let pct = st.cfg.threshold_pct;
    if st.cfg.victory_points {
        s.lost_points * 100 > s.points * pct
    } else {
        s.lost * 100 > s.strength * pct
    }
}

// ------------------------------------------------------------------------------------------------
// Losses.

/// Count bases lost to the side (weighted and points), unless the unit's bases already count.
fn count_loss(st: &mut State, uid: &str, n: u32) {
    let Some(u) = st.unit(uid) else { return };
    if u.counted || n == 0 {
        return;
    }
    let side = u.side;
    let halves = n * u.weight();
    let points = if u.troop.is_gun() {
        u.base_points(&st.cfg)
    } else {
        n * u.base_points(&st.cfg)
    };
    let weighted = st.cfg.victory_weighted;
    let s = &mut st.sides[side];
    s.lost += if weighted { halves } else { 2 * n };
    s.lost_points += points;
}

fn lose_commander(r: &mut Res, cid: &str, status: CommanderStatus) {
    let weighted = r.st.cfg.victory_weighted;
    let Some(c) = r.st.commanders.iter_mut().find(|c| c.id == cid) else {
        return;
    };
    if c.status != CommanderStatus::Active {
        return;
    }
    c.status = status;
    c.unit = None;
    let side = c.side;
    let name = c.name.clone();
    if weighted {
        r.st.sides[side].lost += COMMANDER_LOSS_HALVES;
    }
    r.st.sides[side].lost_points += COMMANDER_POINTS;
    let msg = m(
        if status == CommanderStatus::Wounded {
            "callan.commander.wounded"
        } else {
            "callan.commander.fled"
        },
        &[("name", name)],
    );
    r.note(msg.clone());
    r.say(msg);
}

/// Add hits to a unit; every 2 (or 3) remove a base, the rest carried (D23). Returns bases lost.
fn add_hits(r: &mut Res, uid: &str, hits: u32) -> u32 {
    let Some(u) = r.st.unit_mut(uid) else {
        return 0;
    };
    let per = u.troop.hits_per_base();
    u.hits += hits;
    let lost = (u.hits / per).min(u.bases);
    u.hits -= lost * per;
    remove_bases(u, lost);
    let gone = u.bases == 0;
    if gone {
        u.hits = 0;
    }
    count_loss(&mut r.st, uid, lost);
    if gone {
        destroyed(r, uid);
    }
    lost
}

/// Which bases a composite unit loses: the kind its owner chose first (`state`, `loses_first`),
/// otherwise its pike, then its shot, screen and attached bases (D5).
fn remove_bases(u: &mut UnitState, n: u32) {
    for _ in 0..n {
        let chosen = match u.lose_first.as_deref() {
            Some("screen") if u.screen > 0 => {
                u.screen -= 1;
                true
            }
            Some("special") if u.special.is_some() => {
                u.special = None;
                true
            }
            Some("halberd") if u.halberd => {
                u.halberd = false;
                true
            }
            Some("shot") if u.shot > 0 => {
                u.shot -= 1;
                true
            }
            _ => false,
        };
        if chosen || u.pike_main() > 0 {
        } else if u.shot > 0 {
            u.shot -= 1;
        } else if u.screen > 0 {
            u.screen -= 1;
        } else if u.special.is_some() {
            u.special = None;
        } else if u.halberd {
            u.halberd = false;
        }
        u.bases = u.bases.saturating_sub(1);
    }
}

fn destroyed(r: &mut Res, uid: &str) {
    let name = r.st.unit(uid).map(|u| u.name.clone()).unwrap_or_default();
    if let Some(u) = r.st.unit_mut(uid) {
        u.status = Status::Lost;
        u.counted = true;
    }
    r.st.combats.retain(|c| !c.units.iter().any(|x| x == uid));
    // A commander with a destroyed unit is left alone (project design, as ECW's D).
    for c in r.st.commanders.iter_mut() {
        if c.unit.as_deref() == Some(uid) {
            c.unit = None;
        }
    }
    let msg = m("callan.unit.destroyed", &[("unit", name)]);
    r.note(msg.clone());
    r.say(msg);
}

/// A unit flees (D44) — pike retire and are removed instead (D45).
fn flee(r: &mut Res, uid: &str) {
    let Some(u) = r.st.unit(uid) else { return };
    let name = u.name.clone();
    let pike = u.troop == Troop::Picchieri;
    let left = u.bases;
    if r.st.cfg.flight_counts_at_once || pike {
        count_loss(&mut r.st, uid, left);
        if let Some(u) = r.st.unit_mut(uid) {
            u.counted = true;
        }
    }
    if let Some(u) = r.st.unit_mut(uid) {
        u.status = if pike { Status::Lost } else { Status::Fleeing };
        u.activated = true;
    }
    if pike {
        for c in r.st.commanders.iter_mut() {
            if c.unit.as_deref() == Some(uid) {
                c.unit = None;
            }
        }
    }
    r.st.combats.retain(|c| !c.units.iter().any(|x| x == uid));
    let bw = r.st.cfg.retire_bw;
    let msg = m(
        if pike {
            "callan.unit.pike-removed"
        } else {
            "callan.unit.flees"
        },
        &[
            ("unit", name.clone()),
            ("bw", bw.to_string()),
            ("cm", r.st.cm(bw).to_string()),
        ],
    );
    r.note(msg.clone());
    r.say(msg);
    // Friends that see it flee test (trigger b); pike retiring to be removed count as fleeing
    // (D45). The players say which units are within 4 BW.
    r.step(
        k("callan.step.panic"),
        m("callan.flee.friends-test", &[("unit", name)]),
    );
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum After {
    /// Fire, or a drawn round: exhausted units retire (D43).
    Retire,
    Won,
    Lost,
}

/// Heavy losses after a volley or a round (§8.1).
fn heavy_losses(r: &mut Res, uid: &str, after: After) {
    let Some(u) = r.st.unit(uid) else { return };
    if !matches!(u.status, Status::Ok) || !u.exhausted() {
        if u.status == Status::Ok && u.half() && u.lost_bases() > 0 {
            let name = u.name.clone();
            r.step(
                k("callan.step.heavy"),
                m("callan.heavy.half", &[("unit", name)]),
            );
        }
        return;
    }
    let name = u.name.clone();
    match after {
        After::Won => r.step(
            k("callan.step.heavy"),
            m("callan.heavy.hold", &[("unit", name)]),
        ),
        After::Retire => {
            if let Some(u) = r.st.unit_mut(uid) {
                u.status = Status::Retiring;
            }
            r.st.combats.retain(|c| !c.units.iter().any(|x| x == uid));
            let bw = r.st.cfg.retire_bw;
            let msg = m(
                "callan.heavy.retire",
                &[
                    ("unit", name),
                    ("bw", bw.to_string()),
                    ("cm", r.st.cm(bw).to_string()),
                ],
            );
            r.step(k("callan.step.heavy"), msg.clone());
            r.say(msg);
        }
        After::Lost => flee(r, uid),
    }
}

// ------------------------------------------------------------------------------------------------
// Discipline: panic tests and wound checks as plans.

/// Why a unit tests.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    LostCombat,
    FriendsFleeing,
    RoutSeen,
    CommanderWounded,
    RawAttacked,
}

impl Trigger {
    fn id(self) -> &'static str {
        match self {
            Trigger::LostCombat => "lost-combat",
            Trigger::FriendsFleeing => "friends-fleeing",
            Trigger::RoutSeen => "rout-seen",
            Trigger::CommanderWounded => "commander-wounded",
            Trigger::RawAttacked => "raw-attacked",
        }
    }
}

/// A panic test (§8.2), then `then(res, fled)`. `enemy_bases`: the enemy unit's bases in the
/// combat that caused it (for "più grande"), `None` outside a combat (D46).
fn panic_test(
    r: Res,
    site: &str,
    uid: &str,
    trigger: Trigger,
    enemy_bases: Option<u32>,
    melee: bool,
    then: Rc<dyn Fn(Res, bool) -> P>,
) -> P {
    let Some(u) = r.st.unit(uid).cloned() else {
        return then(r, false);
    };
    if u.never_panics() || u.panic_passed || !matches!(u.status, Status::Ok | Status::Retiring) {
        let mut r = r;
        let why = if u.never_panics() {
            "callan.panic.veteran"
        } else if u.panic_passed {
            "callan.panic.passed-already"
        } else {
            "callan.panic.not-needed"
        };
        r.step(k("callan.step.panic"), m(why, &[("unit", u.name.clone())]));
        return then(r, false);
    }
    let who = u.name.clone();
    let mods = panic_modifiers(
        &who,
        u.lost_bases(),
        u.open_order,
        melee && u.troop.is_shot(),
        enemy_bases.is_some_and(|e| u.bases > e),
    );
    let total: i32 = mods.iter().map(|x| x.value).sum();
    let commander = r.st.commander_of(uid).map(|c| c.id.clone());
    let uid = uid.to_string();
    let site = format!("{site}|panic|{uid}");
    let label = m("callan.die.panic", &[("unit", who.clone())]);
    let title = m(
        "callan.step.panic-test",
        &[
            ("unit", who.clone()),
            ("why", format!("@callan.trigger.{}", trigger.id())),
        ],
    );
    Plan::die(Die::d6(label.clone()), move |f| {
        let mut r = r.clone();
        let failed = panics(f, total);
        let result = m(
            if failed {
                "callan.panic.fails"
            } else {
                "callan.panic.passes"
            },
            &[("unit", who.clone())],
        );
        let mut step = die_step(title.clone(), &label, f, result.clone());
        step.modifiers = mods.clone();
        step.totals = vec![(k("callan.total"), i32::from(f) + total)];
        r.steps.push(step);
        r.facet(
            m("callan.facet.panic", &[("unit", who.clone())]),
            yes_no(failed),
        );
        r.say(result);
        let then = then.clone();
        let uid = uid.clone();
        let who = who.clone();
        let site = site.clone();
        let join = move |r: Res, fled: bool, site: &str| {
            let then = then.clone();
            merge(
                &format!("{site}|{fled}"),
                r,
                Rc::new(move |r| then(r, fled)),
            )
        };
        match (&commander, failed) {
            (_, false) => {
                if let Some(u) = r.st.unit_mut(&uid) {
                    u.panic_passed = true;
                }
                join(r, false, &site)
            }
            (None, true) => {
                flee(&mut r, &uid);
                join(r, true, &site)
            }
            (Some(c), true) => {
                // The commander's re-roll of a failed test (003, Comandanti b); D49).
                let c = c.clone();
                let label2 = m("callan.die.panic-commander", &[("unit", who.clone())]);
                Plan::die(Die::d6(label2.clone()), move |g| {
                    let mut r = r.clone();
                    let again = panics(g, total);
                    let result = m(
                        if again {
                            "callan.panic.commander-flees"
                        } else {
                            "callan.panic.rallied"
                        },
                        &[("unit", who.clone())],
                    );
                    let mut step =
                        die_step(k("callan.step.panic-reroll"), &label2, g, result.clone());
                    step.totals = vec![(k("callan.total"), i32::from(g) + total)];
                    r.steps.push(step);
                    r.facet(
                        m("callan.facet.panic-reroll", &[("unit", who.clone())]),
                        yes_no(again),
                    );
                    // The outcome is the re-roll's, not the first die's.
                    r.summary.pop();
                    r.say(result);
                    if again {
                        lose_commander(&mut r, &c, CommanderStatus::Fled);
                        flee(&mut r, &uid);
                    } else if let Some(u) = r.st.unit_mut(&uid) {
                        u.panic_passed = true;
                    }
                    join(r, again, &site)
                })
            }
        }
    })
}

/// A step of one D6 (a panic test, a wound check), its die labelled.
fn die_step(title: String, label: &str, face: u8, result: String) -> Step {
    Step {
        title,
        dice: vec![tercio_core::RolledDie {
            label: label.to_string(),
            sides: 6,
            face,
        }],
        modifiers: Vec::new(),
        totals: Vec::new(),
        result,
    }
}

/// The wound check of a commander whose unit lost a base (D50), then his unit's panic test.
fn wound_check(r: Res, site: &str, uid: &str, lost: u32, then: K) -> P {
    let Some(c) = r.st.commander_of(uid).cloned() else {
        return then(r);
    };
    if lost == 0 {
        return then(r);
    }
    let uid = uid.to_string();
    let site = format!("{site}|wound|{uid}");
    let label = m("callan.die.wound", &[("name", c.name.clone())]);
    Plan::die(Die::d6(label.clone()), move |f| {
        let mut r = r.clone();
        let hit = f == 1;
        r.steps.push(die_step(
            m("callan.step.wound", &[("name", c.name.clone())]),
            &label,
            f,
            k(if hit {
                "callan.wound.hit"
            } else {
                "callan.wound.safe"
            }),
        ));
        r.facet(
            m("callan.facet.wound", &[("name", c.name.clone())]),
            yes_no(hit),
        );
        if hit {
            lose_commander(&mut r, &c.id, CommanderStatus::Wounded);
            let then = then.clone();
            panic_test(
                r,
                &site,
                &uid,
                Trigger::CommanderWounded,
                None,
                false,
                Rc::new(move |r, _| then(r)),
            )
        } else {
            merge(&site, r, then.clone())
        }
    })
}

// ------------------------------------------------------------------------------------------------
// Fire (§6).

fn refuse(code: &str, field: &str, key: &str, unit: &UnitState) -> Rejection {
    reject(code, Some(field), m(key, &[("unit", unit.name.clone())]))
}

/// A Swiss unit fixed on the Landsknechts by "Niente soldi" stays so while an enemy Landsknecht
/// unit is left in the battle (D59).
pub fn fixated_now(st: &State, u: &UnitState) -> bool {
    u.fixated
        && st.units.iter().any(|e| {
            e.side != u.side
                && e.nationality.as_deref() == Some("lanzichenecchi")
                && matches!(e.status, Status::Ok | Status::Retiring | Status::Waiting)
        })
}

/// Whether it is `side`'s card of `phase` now, or its Joker repeating it.
fn card_is(st: &State, side: usize, phase: CardPhase) -> bool {
    st.open.as_ref().is_some_and(|o| {
        o.side == Some(side)
            && (o.phase == phase || (o.phase == CardPhase::Joker && o.repeat == Some(phase)))
    })
}

fn joker_open(st: &State) -> bool {
    st.open
        .as_ref()
        .is_some_and(|o| o.phase == CardPhase::Joker && o.side.is_some())
}

fn phase_name(st: &State) -> String {
    match &st.open {
        Some(o) => match o.side {
            Some(s) => m(
                "callan.card.phase",
                &[
                    ("side", st.sides[s].name.clone()),
                    ("phase", format!("@callan.phase.{}", o.phase.id())),
                ],
            ),
            None => k("callan.card.joker-ignored"),
        },
        None => k("callan.card.none"),
    }
}

/// A volley's fields: a `fire`'s, or a `volley`'s (short range only).
struct Shot<'a> {
    unit: Option<&'a str>,
    target: Option<&'a str>,
    short_bases: Option<u32>,
    long_bases: Option<u32>,
    cover: Option<&'a str>,
    dense: bool,
    downhill: bool,
    over_friends: bool,
    nearest: bool,
    moved: bool,
}

impl<'a> Shot<'a> {
    fn of(a: &'a Action) -> Option<(Shot<'a>, bool)> {
        Some(match a {
            Action::Fire {
                unit,
                target,
                short_bases,
                long_bases,
                cover,
                dense,
                downhill,
                over_friends,
                nearest,
                moved,
                ..
            } => (
                Shot {
                    unit: unit.id(),
                    target: target.id(),
                    short_bases: *short_bases,
                    long_bases: *long_bases,
                    cover: cover.as_deref(),
                    dense: *dense,
                    downhill: *downhill,
                    over_friends: *over_friends,
                    nearest: nearest.unwrap_or(false),
                    moved: *moved,
                },
                false,
            ),
            Action::Volley {
                unit,
                target,
                short_bases,
                ..
            } => (
                Shot {
                    unit: Some(unit),
                    target: Some(target),
                    short_bases: *short_bases,
                    long_bases: None,
                    cover: None,
                    dense: false,
                    downhill: false,
                    over_friends: false,
                    nearest: false,
                    moved: false,
                },
                true,
            ),
            _ => return None,
        })
    }
}

fn fire(st: &State, a: &Action) -> Result<P, Rejection> {
    let (a, volley) = Shot::of(a).ok_or_else(wrong)?;
    let u = unit_at(st, "unit", a.unit)?;
    let t = unit_at(st, "target", a.target)?;
    if t.side == u.side {
        return Err(refuse("same-side", "target", "callan.reject.own-side", t));
    }
    // A pursuer is still on the table until it leaves it.
    if !t.on_table() && t.status != Status::Pursuing {
        return Err(refuse(
            "not-on-table",
            "target",
            "callan.reject.not-on-table",
            t,
        ));
    }
    if !u.on_table() || u.status == Status::Fleeing {
        return Err(refuse("cannot-fire", "unit", "callan.reject.cannot-act", u));
    }
    let Some(weapon) = u.weapon else {
        return Err(refuse(
            "no-missiles",
            "unit",
            "callan.reject.no-missiles",
            u,
        ));
    };
    let firing = u.firing_bases();
    let short = count("short_bases", a.short_bases, firing)?;
    let long = count("long_bases", a.long_bases, firing)?;
    if short + long == 0 {
        return Err(reject(
            "no-bases",
            Some("short_bases"),
            m("callan.reject.no-bases", &[("max", firing.to_string())]),
        ));
    }
    if short + long > firing {
        return Err(reject(
            "too-many-bases",
            Some("short_bases"),
            m(
                "callan.reject.too-many-bases",
                &[("unit", u.name.clone()), ("max", firing.to_string())],
            ),
        ));
    }
    if weapon == Weapon::Giavellotti && long > 0 {
        return Err(refuse(
            "out-of-range",
            "long_bases",
            "callan.reject.javelins-short",
            u,
        ));
    }
    if u.exploded {
        return Err(refuse("exploded", "unit", "callan.reject.exploded", u));
    }
    if u.troop == Troop::CavalleriaLeggera && u.attacked {
        return Err(refuse("attacked", "unit", "callan.reject.attacked-no-fire", u).not_now());
    }
    if in_combat(st, &t.id) {
        return Err(refuse(
            "target-in-melee",
            "target",
            "callan.reject.target-in-melee",
            t,
        ));
    }
    if in_combat(st, &u.id) {
        return Err(refuse("in-melee", "unit", "callan.reject.in-melee", u));
    }
    let moved_fire = a.moved;
    let joker = joker_open(st) && card_is(st, u.side, CardPhase::Fire);
    if volley {
        // The veteran volley (D24): held at the fire card, fired at short range in the enemy's move.
        if !u.held_fire {
            return Err(refuse("no-held-fire", "unit", "callan.reject.no-held-fire", u).not_now());
        }
        let enemy_moving = st.open.as_ref().is_some_and(|o| {
            o.side == Some(t.side) && matches!(o.phase, CardPhase::Infantry | CardPhase::Cavalry)
        });
        if !enemy_moving {
            return Err(refuse("out-of-phase", "unit", "callan.reject.volley-when", u).not_now());
        }
        if long > 0 {
            return Err(refuse(
                "short-only",
                "long_bases",
                "callan.reject.volley-short",
                u,
            ));
        }
    } else if moved_fire {
        // Move and fire: arquebusiers and crossbowmen at their infantry card; light horse on
        // their cavalry move (003, Movimento; D17).
        let phase = if u.troop.is_cavalry() {
            CardPhase::Cavalry
        } else {
            CardPhase::Infantry
        };
        if !card_is(st, u.side, phase) {
            return Err(reject(
                "out-of-phase",
                Some("moved"),
                m("callan.reject.not-now", &[("now", phase_name(st))]),
            )
            .not_now());
        }
        if !(u.troop.is_shot() || u.troop == Troop::CavalleriaLeggera) {
            return Err(refuse(
                "cannot-move-fire",
                "moved",
                "callan.reject.move-fire",
                u,
            ));
        }
        if u.fired {
            return Err(refuse("fired", "unit", "callan.reject.fired", u).not_now());
        }
    } else {
        if !card_is(st, u.side, CardPhase::Fire) {
            return Err(reject(
                "out-of-phase",
                Some("action"),
                m("callan.reject.not-now", &[("now", phase_name(st))]),
            )
            .not_now());
        }
        if u.fired && !joker {
            return Err(refuse("fired", "unit", "callan.reject.fired", u).not_now());
        }
        if joker {
            if st.open.as_ref().is_some_and(|o| o.joker_used) {
                return Err(refuse("joker-used", "unit", "callan.reject.joker-used", u).not_now());
            }
            if !u.fired {
                return Err(refuse("joker-unit", "unit", "callan.reject.joker-unit", u).not_now());
            }
            if weapon == Weapon::CannonePesante {
                return Err(refuse("reloading", "unit", "callan.reject.reloading", u).not_now());
            }
        }
    }
    if weapon == Weapon::CannonePesante {
        if let Some(tf) = u.fired_turn {
            if tf + 1 >= st.turn && !(tf == st.turn && joker) {
                return Err(refuse("reloading", "unit", "callan.reject.reloading", u).not_now());
            }
        }
    }
    if weapon.is_gun() && !a.nearest && st.commander_of(&u.id).is_none() {
        return Err(refuse(
            "nearest-enemy",
            "nearest",
            "callan.reject.nearest",
            u,
        ));
    }
    if a.over_friends && !(weapon.is_gun() || u.troop == Troop::Arcieri) {
        return Err(refuse(
            "over-friends",
            "over_friends",
            "callan.reject.over-friends",
            u,
        ));
    }
    let cover = match a.cover {
        None => Cover::None,
        Some(c) => Cover::from_id(c).ok_or_else(|| {
            reject(
                "bad-choice",
                Some("cover"),
                m(
                    "callan.reject.choice",
                    &[
                        ("field", "cover".into()),
                        ("allowed", "none, wall, fortification, wood_edge".into()),
                    ],
                ),
            )
        })?,
    };
    let v = VolleyIn {
        weapon,
        short_bases: short,
        long_bases: long,
        moved: moved_fire && !u.troop.is_cavalry(),
        disordered: u.disordered,
        dispersed: (t.open_order && t.troop.is_foot()) || t.troop.is_gun(),
        target_on_foot: t.troop.is_foot(),
        cover,
        screen: t.screen > 0,
        riccio: t.riccio,
        dense: a.dense,
        downhill: a.downhill,
        javelin_hit: st.cfg.javelin_hit,
    };
    let groups = volley_groups(&v);
    let commander = st.commander_of(&u.id).is_some();
    let uid = u.id.clone();
    let tid = t.id.clone();
    let uname = u.name.clone();
    let tname = t.name.clone();
    let mut r0 = Res::new(st);
    {
        let me = r0.st.unit_mut(&uid).expect("firer");
        if volley {
            me.held_fire = false;
        } else {
            me.fired = true;
            if moved_fire {
                me.moved = true;
                me.activated = true;
            }
            if weapon == Weapon::CannonePesante {
                me.fired_turn = Some(st.turn);
            }
        }
    }
    if let Some(o) = r0.st.open.as_mut() {
        if joker {
            o.joker_used = true;
        } else if moved_fire && !volley {
            o.troops_moved = true;
        }
    }
    let is_gun = weapon.is_gun();
    let title = m(
        "callan.step.fire",
        &[("unit", uname.clone()), ("target", tname.clone())],
    );
    // Roll each group, the commander's re-roll on the first group with a miss (D22).
    let g = Rc::new(groups);
    Ok(
        roll_groups(g.clone(), 0, Vec::new(), is_gun, commander, uname.clone()).and_then(
            move |pools| {
                let mut r = r0.clone();
                let mut hits = 0;
                let mut ones = 0;
                let mut dice = Vec::new();
                let mut mods: Vec<Modifier> = Vec::new();
                for (grp, p) in g.iter().zip(&pools) {
                    hits += p.hits;
                    ones += p.ones;
                    dice.extend(p.dice());
                    mods.extend(grp.mods.iter().cloned());
                }
                let exploded = is_gun && ones >= 2;
                let hit_names: Vec<String> = g
                    .iter()
                    .map(|x| {
                        m(
                            "callan.fire.group",
                            &[
                                (
                                    "range",
                                    k(if x.short {
                                        "callan.range.short"
                                    } else {
                                        "callan.range.long"
                                    }),
                                ),
                                ("dice", x.dice.to_string()),
                                ("hit", x.hit.name()),
                            ],
                        )
                    })
                    .collect();
                let mut result_bits = vec![m("callan.fire.hits", &[("n", hits.to_string())])];
                r.facet(k("callan.facet.hits"), hits.to_string());
                if volley {
                    if let Some(t) = r.st.unit_mut(&tid) {
                        t.volley_hits += hits;
                    }
                }
                let lost = add_hits(&mut r, &tid, hits);
                r.facet(k("callan.facet.bases-lost"), lost.to_string());
                result_bits.push(m(
                    "callan.fire.lost",
                    &[("unit", tname.clone()), ("n", lost.to_string())],
                ));
                if is_gun {
                    r.facet(k("callan.facet.exploded"), yes_no(exploded));
                    if exploded {
                        if let Some(me) = r.st.unit_mut(&uid) {
                            me.exploded = true;
                        }
                        result_bits.push(k("callan.fire.exploded"));
                        r.note(m("callan.fire.exploded-note", &[("unit", uname.clone())]));
                    }
                }
                r.steps.push(Step {
                    title: title.clone(),
                    dice,
                    modifiers: mods,
                    totals: vec![(k("callan.facet.hits"), hits as i32)],
                    result: format!("{} — {}", hit_names.join("; "), result_bits.join("; ")),
                });
                r.say(m(
                    "callan.said.fire",
                    &[
                        ("unit", uname.clone()),
                        ("target", tname.clone()),
                        ("hits", hits.to_string()),
                        ("lost", lost.to_string()),
                    ],
                ));
                heavy_losses(&mut r, &tid, After::Retire);
                let tid2 = tid.clone();
                wound_check(
                    r,
                    "fire",
                    &tid,
                    lost,
                    Rc::new(move |r| {
                        let _ = &tid2;
                        Plan::Done(r)
                    }),
                )
            },
        ),
    )
}

fn roll_groups(
    g: Rc<Vec<resolve::Group>>,
    i: usize,
    done: Vec<Pool>,
    gun: bool,
    commander: bool,
    label: String,
) -> Plan<Vec<Pool>> {
    if i == g.len() {
        // The commander's one re-roll: the first group with a miss, best chance first.
        if commander {
            let pick = g
                .iter()
                .zip(&done)
                .enumerate()
                .filter(|(_, (grp, p))| p.hits < grp.dice)
                .max_by_key(|(_, (grp, _))| {
                    let (n, d) = grp.hit.chance();
                    n * 36 / d
                })
                .map(|(j, (grp, _))| (j, grp.hit));
            if let Some((j, hit)) = pick {
                let lbl = m("callan.die.commander", &[("who", label.clone())]);
                return resolve::pool(1, hit, &lbl).map(move |q| {
                    let mut d = done.clone();
                    d[j].hits += q.hits;
                    d[j].throws.extend(q.throws.iter().cloned());
                    d
                });
            }
        }
        return Plan::Done(done);
    }
    let grp = &g[i];
    let p = if gun {
        gun_throw(grp.dice, grp.hit, &label)
    } else {
        resolve::pool(grp.dice, grp.hit, &label)
    };
    let g2 = g.clone();
    p.and_then(move |pool| {
        let mut d = done.clone();
        d.push(pool);
        roll_groups(g2.clone(), i + 1, d, gun, commander, label.clone())
    })
}

fn hold_fire(st: &State, unit: &str) -> Result<P, Rejection> {
    let u = unit_at(st, "unit", unit)?;
    if !card_is(st, u.side, CardPhase::Fire) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            m("callan.reject.not-now", &[("now", phase_name(st))]),
        )
        .not_now());
    }
    if !(u.quality == Quality::Veterani && u.troop == Troop::Archibugieri) {
        return Err(refuse(
            "not-veteran-arquebus",
            "unit",
            "callan.reject.hold-fire",
            u,
        ));
    }
    if u.fired {
        return Err(refuse("fired", "unit", "callan.reject.fired", u).not_now());
    }
    let mut r = Res::new(st);
    let id = u.id.clone();
    if let Some(me) = r.st.unit_mut(&id) {
        me.fired = true;
        me.held_fire = true;
    }
    let msg = m("callan.said.hold-fire", &[("unit", u.name.clone())]);
    r.step(k("callan.step.hold-fire"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

fn in_combat(st: &State, uid: &str) -> bool {
    st.combats.iter().any(|c| c.units.iter().any(|x| x == uid))
}

// ------------------------------------------------------------------------------------------------
// Movement (§5).

fn move_unit(st: &State, a: &Action) -> Result<P, Rejection> {
    let Action::Move {
        unit,
        kind,
        formation,
        steep_hill,
        difficult_terrain,
        obstacle,
        pass_through,
        ..
    } = a
    else {
        return Err(wrong());
    };
    let u = unit_at(st, "unit", unit.as_str())?;
    let kind = kind.as_deref().unwrap_or("move");
    if !matches!(
        kind,
        "move" | "charge" | "reform" | "formation" | "retire" | "flee"
    ) {
        return Err(reject(
            "bad-choice",
            Some("kind"),
            m(
                "callan.reject.choice",
                &[
                    ("field", "kind".into()),
                    (
                        "allowed",
                        "move, charge, reform, formation, retire, flee".into(),
                    ),
                ],
            ),
        ));
    }
    let phase = if u.troop.is_cavalry() {
        CardPhase::Cavalry
    } else {
        CardPhase::Infantry
    };
    if !card_is(st, u.side, phase) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            m(
                "callan.reject.move-when",
                &[
                    ("unit", u.name.clone()),
                    ("phase", format!("@callan.phase.{}", phase.id())),
                    ("now", phase_name(st)),
                ],
            ),
        )
        .not_now());
    }
    let joker = joker_open(st);
    if joker {
        if st.open.as_ref().is_some_and(|o| o.joker_used) {
            return Err(refuse("joker-used", "unit", "callan.reject.joker-used", u).not_now());
        }
        if !u.moved || !u.fought_with.is_empty() {
            return Err(refuse("joker-unit", "unit", "callan.reject.joker-unit", u).not_now());
        }
    } else if u.activated {
        return Err(refuse("activated", "unit", "callan.reject.activated", u).not_now());
    }
    if u.orders_failed {
        return Err(refuse("orders-failed", "unit", "callan.reject.orders-failed", u).not_now());
    }
    match u.status {
        Status::Ok => {}
        Status::Retiring if kind == "retire" => {}
        Status::Fleeing if kind == "flee" => {}
        Status::Retiring => {
            return Err(refuse(
                "must-retire",
                "kind",
                "callan.reject.must-retire",
                u,
            ))
        }
        Status::Fleeing => return Err(refuse("must-flee", "kind", "callan.reject.must-flee", u)),
        _ => {
            return Err(refuse(
                "not-on-table",
                "unit",
                "callan.reject.not-on-table",
                u,
            ))
        }
    }
    if in_combat(st, &u.id) {
        return Err(refuse("in-melee", "unit", "callan.reject.in-melee", u));
    }
    if u.troop == Troop::ArtiglieriaPesante {
        return Err(refuse(
            "immobile",
            "unit",
            "callan.reject.heavy-gun-moves",
            u,
        ));
    }
    if u.riccio && kind == "move" {
        return Err(refuse("riccio", "unit", "callan.reject.riccio-moves", u));
    }
    if fixated_now(st, u) && kind == "retire" {
        return Err(refuse("fixated", "unit", "callan.reject.fixated", u));
    }
    let formation = formation.as_deref();
    if kind == "formation" {
        match formation {
            Some("riccio") if u.troop == Troop::Picchieri => {}
            Some("line") => {}
            Some("open") if u.troop.is_shot() => {}
            Some("close") => {}
            _ => {
                return Err(reject(
                    "bad-choice",
                    Some("formation"),
                    m("callan.reject.formation", &[("unit", u.name.clone())]),
                ))
            }
        }
    }
    if kind == "charge" && !u.troop.is_cavalry() && u.troop.is_shot() {
        return Err(refuse(
            "shot-charge",
            "kind",
            "callan.reject.shot-charge",
            u,
        ));
    }
    if kind == "charge" && u.half() {
        return Err(refuse("half-lost", "kind", "callan.reject.half-lost", u));
    }
    if *difficult_terrain && u.troop.is_cavalry() {
        return Err(refuse(
            "no-cavalry",
            "difficult_terrain",
            "callan.reject.cavalry-terrain",
            u,
        ));
    }
    // The allowance, in BW and cm (§3.1).
    let (mv, ch) = u.troop.move_bw();
    let swiss_charge = kind == "charge"
        && u.troop == Troop::Picchieri
        && u.nationality.as_deref() == Some("svizzeri");
    let mut bw = match kind {
        "charge" if swiss_charge => 6,
        "charge" => ch,
        "retire" | "flee" => st.cfg.retire_bw,
        "reform" | "formation" => mv.div_ceil(2),
        _ => mv,
    };
    if u.fired && u.troop.is_shot() && kind == "move" {
        bw = 4;
    }
    if *difficult_terrain && kind == "move" {
        bw = if u.open_order { 4 } else { 2 };
    }
    let uid = u.id.clone();
    let name = u.name.clone();
    let mut r = Res::new(st);
    if let Some(o) = r.st.open.as_mut() {
        if joker {
            o.joker_used = true;
        } else {
            o.troops_moved = true;
        }
    }
    {
        let me = r.st.unit_mut(&uid).expect("unit");
        me.moved = true;
        me.activated = true;
        match (kind, formation) {
            ("formation", Some("riccio")) => me.riccio = true,
            ("formation", Some("line")) => me.riccio = false,
            ("formation", Some("open")) => me.open_order = true,
            ("formation", Some("close")) => me.open_order = false,
            ("reform", _) => me.disordered = false,
            _ => {}
        }
        if *difficult_terrain && !me.open_order && me.troop.is_foot() {
            me.disordered = true;
        }
        if kind == "flee" || kind == "retire" {
            me.riccio = false;
        }
    }
    if let Some(p) = pass_through.as_deref() {
        if let Some(f) = r.st.unit_mut(p) {
            if f.side == st.unit(&uid).map_or(usize::MAX, |x| x.side) {
                f.disordered = true;
            }
        }
    }
    let allowance = m(
        "callan.move.allowance",
        &[
            ("unit", name.clone()),
            ("kind", format!("@callan.move.{kind}")),
            ("bw", bw.to_string()),
            ("cm", st.cm(bw).to_string()),
        ],
    );
    r.step(k("callan.step.move"), allowance.clone());
    r.say(allowance);
    // Dice that may stop or disorder the move: orders (D57), the steep hill, the obstacle (D58).
    let exempt_orders = u.open_order
        || st.commander_of(&uid).is_some()
        || (kind == "charge"
            && (u.troop == Troop::Gendarmi
                || (u.troop == Troop::Picchieri && u.nationality.as_deref() == Some("svizzeri"))))
        || matches!(kind, "retire" | "flee");
    let orders = st.cfg.orders && !exempt_orders;
    let hill = *steep_hill && !u.open_order;
    // Obstacles are named by the players: one name, whatever the case or spaces (D58).
    let obstacle = obstacle.as_deref().map(|o| o.trim().to_lowercase());
    let known = obstacle.as_ref().and_then(|o| st.obstacles.get(o).cloned());
    if let (Some(_), Some(d)) = (&obstacle, &known) {
        if d == "molto-difficile" && u.troop.is_cavalry() {
            return Err(refuse(
                "impassable",
                "obstacle",
                "callan.reject.impassable",
                u,
            ));
        }
    }
    let cavalry = u.troop.is_cavalry();
    let open = u.open_order;
    if let (Some(o), Some(d)) = (&obstacle, &known) {
        apply_obstacle(&mut r, &uid, o, d, cavalry);
    }
    let roll_obstacle = obstacle.is_some() && known.is_none() && !open;
    if !orders && !hill && !roll_obstacle {
        if let (Some(o), None, true) = (&obstacle, &known, open) {
            r.step(
                k("callan.step.obstacle"),
                m("callan.obstacle.open-order", &[("id", o.clone())]),
            );
        }
        return Ok(Plan::Done(r));
    }
    let uid2 = uid.clone();
    let name2 = name.clone();
    // Orders refused: nothing happens to the unit (D57).
    let before = u.clone();
    let after_orders: K = Rc::new(move |r: Res| {
        let Some(o) = obstacle.clone().filter(|_| roll_obstacle) else {
            return Plan::Done(r);
        };
        let uid = uid2.clone();
        Plan::die(
            Die::d6(m("callan.die.obstacle", &[("id", o.clone())])),
            move |f| {
                let mut r = r.clone();
                let d = match f {
                    4..=6 => "facile",
                    2 | 3 => "difficile",
                    _ => "molto-difficile",
                };
                r.st.obstacles.insert(o.clone(), d.to_string());
                r.facet(
                    k("callan.facet.obstacle"),
                    k(&format!("callan.obstacle.{d}")),
                );
                r.step(
                    k("callan.step.obstacle"),
                    m(
                        "callan.obstacle.rolled",
                        &[
                            ("id", o.clone()),
                            ("face", f.to_string()),
                            ("difficulty", format!("@callan.obstacle.{d}")),
                        ],
                    ),
                );
                apply_obstacle(&mut r, &uid, &o, d, cavalry);
                Plan::Done(r)
            },
        )
    });
    if !orders && !hill {
        return Ok(after_orders(r));
    }
    Ok(Plan::die(
        Die::d6(m("callan.die.orders", &[("unit", name2.clone())])),
        move |f| {
            let mut r = r.clone();
            if orders && f == 1 {
                // The unit does not move: it is not activated, and it may not try again this
                // turn (D57).
                if let Some(me) = r.st.unit_mut(&uid) {
                    *me = before.clone();
                    me.orders_failed = true;
                }
                r.summary.clear();
                r.facet(k("callan.facet.obeys"), yes_no(false));
                let msg = m("callan.orders.refused", &[("unit", name.clone())]);
                r.step(k("callan.step.orders"), msg.clone());
                r.say(msg);
                return Plan::Done(r);
            }
            if orders {
                r.facet(k("callan.facet.obeys"), yes_no(true));
            }
            if hill && f == 2 {
                if let Some(me) = r.st.unit_mut(&uid) {
                    me.disordered = true;
                }
                r.facet(k("callan.facet.disordered"), yes_no(true));
                r.step(
                    k(if orders {
                        "callan.step.orders"
                    } else {
                        "callan.step.hill"
                    }),
                    m("callan.orders.hill-disorder", &[("unit", name.clone())]),
                );
            } else {
                if hill {
                    r.facet(k("callan.facet.disordered"), yes_no(false));
                }
                r.step(
                    k(if orders {
                        "callan.step.orders"
                    } else {
                        "callan.step.hill"
                    }),
                    m(
                        if orders {
                            "callan.orders.obeys"
                        } else {
                            "callan.orders.hill-safe"
                        },
                        &[("unit", name.clone()), ("face", f.to_string())],
                    ),
                );
            }
            after_orders(r)
        },
    ))
}

fn apply_obstacle(r: &mut Res, uid: &str, id: &str, d: &str, cavalry: bool) {
    let name = r.st.unit(uid).map(|u| u.name.clone()).unwrap_or_default();
    let key = match d {
        "difficile" => {
            if let Some(u) = r.st.unit_mut(uid) {
                u.disordered = true;
            }
            "callan.obstacle.cross-difficult"
        }
        "molto-difficile" if cavalry => "callan.obstacle.cavalry-never",
        "molto-difficile" => "callan.obstacle.cross-very",
        _ => "callan.obstacle.cross-easy",
    };
    r.step(
        k("callan.step.obstacle"),
        m(key, &[("unit", name), ("id", id.to_string())]),
    );
}

fn commander(st: &State, cid: &str, join: Option<&str>) -> Result<P, Rejection> {
    let c = st.commanders.iter().find(|c| c.id == cid).ok_or_else(|| {
        reject(
            "unknown-commander",
            Some("commander"),
            m(
                "callan.reject.unknown-commander",
                &[("id", cid.to_string())],
            ),
        )
    })?;
    if c.status != CommanderStatus::Active {
        return Err(reject(
            "commander-lost",
            Some("commander"),
            m("callan.reject.commander-lost", &[("name", c.name.clone())]),
        ));
    }
    if !card_is(st, c.side, CardPhase::Infantry) || joker_open(st) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            m("callan.reject.commander-when", &[("now", phase_name(st))]),
        )
        .not_now());
    }
    // "Muovi sempre il Comandante prima di muovere qualsiasi tua truppa" (003, Comandanti; D13).
    if st.open.as_ref().is_some_and(|o| o.troops_moved) {
        return Err(reject(
            "troops-moved",
            Some("commander"),
            m("callan.reject.commander-first", &[("name", c.name.clone())]),
        )
        .not_now());
    }
    let join = join.map(str::to_string);
    if let Some(j) = &join {
        let u = unit_at(st, "join", j.as_str())?;
        if u.side != c.side || !u.on_table() {
            return Err(reject(
                "bad-unit",
                Some("join"),
                m("callan.reject.join", &[("unit", u.name.clone())]),
            ));
        }
    }
    let mut r = Res::new(st);
    let name = c.name.clone();
    if let Some(me) = r.st.commanders.iter_mut().find(|x| x.id == cid) {
        me.unit = join.clone();
        me.moved = true;
    }
    let msg = match &join {
        Some(j) => m(
            "callan.commander.joins",
            &[
                ("name", name),
                (
                    "unit",
                    st.unit(j).map(|u| u.name.clone()).unwrap_or_default(),
                ),
            ],
        ),
        None => m(
            "callan.commander.alone",
            &[
                ("name", name),
                ("bw", "8".into()),
                ("cm", st.cm(8).to_string()),
            ],
        ),
    };
    r.step(k("callan.step.commander"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

// ------------------------------------------------------------------------------------------------
// Combat (§7).

#[derive(Debug)]
struct Counts {
    front: [u32; 2],
    rear: [u32; 2],
    shot: [u32; 2],
    emerge: [bool; 2],
    support: Option<(String, u32)>,
}

fn counts(
    st: &State,
    a: &Action,
    units: [&UnitState; 2],
    support_allowed: bool,
) -> Result<Counts, Rejection> {
    let (fronts, rears, shots, emerge, support, support_front) = match a {
        Action::Attack {
            attacker_front,
            attacker_rear,
            defender_front,
            defender_rear,
            attacker_shot,
            defender_shot,
            support,
            support_front,
            ..
        } => (
            [*attacker_front, *defender_front],
            [*attacker_rear, *defender_rear],
            [*attacker_shot, *defender_shot],
            [false, false],
            support,
            support_front,
        ),
        Action::ResolveCombat {
            attacker_front,
            attacker_rear,
            defender_front,
            defender_rear,
            attacker_shot,
            defender_shot,
            attacker_emerge,
            defender_emerge,
            support,
            support_front,
            ..
        } => (
            [*attacker_front, *defender_front],
            [*attacker_rear, *defender_rear],
            [*attacker_shot, *defender_shot],
            [*attacker_emerge, *defender_emerge],
            support,
            support_front,
        ),
        _ => return Err(wrong()),
    };
    let mut c = Counts {
        front: [0; 2],
        rear: [0; 2],
        shot: [0; 2],
        emerge: [false; 2],
        support: None,
    };
    for (i, (who, u)) in ["attacker", "defender"].iter().zip(units).enumerate() {
        let ff = format!("{who}_front");
        let rf = format!("{who}_rear");
        let sf = format!("{who}_shot");
        let fighting = u.fighting_bases();
        let front = match fronts[i] {
            None => fighting.min(if u.troop.is_cavalry() { 3 } else { 5 }),
            given => count(&ff, given, fighting)?,
        };
        let rear = count(&rf, rears[i], fighting)?;
        if front == 0 && !u.troop.is_gun() {
            return Err(reject(
                "no-bases",
                Some(&ff),
                m("callan.reject.front", &[("unit", u.name.clone())]),
            ));
        }
        if front + rear > fighting {
            return Err(reject(
                "too-many-bases",
                Some(&rf),
                m(
                    "callan.reject.too-many-bases",
                    &[("unit", u.name.clone()), ("max", fighting.to_string())],
                ),
            ));
        }
        let shot = count(&sf, shots[i], u.shot)?;
        c.front[i] = front;
        c.rear[i] = rear;
        c.shot[i] = shot.min(front);
        c.emerge[i] = emerge[i] && u.special.is_some();
    }
    if let Some(sid) = support.as_deref() {
        let s = unit_at(st, "support", sid)?;
        if !support_allowed {
            return Err(refuse(
                "support-when",
                "support",
                "callan.reject.support-when",
                s,
            ));
        }
        // A squadron of either side, not already fighting (D36).
        if !units.iter().any(|u| u.side == s.side)
            || units.iter().any(|u| u.id == s.id)
            || !s.troop.is_cavalry()
            || s.status != Status::Ok
            || in_combat(st, &s.id)
        {
            return Err(refuse("bad-support", "support", "callan.reject.support", s));
        }
        let n = count("support_front", *support_front, s.bases)?;
        let n = if n == 0 { s.bases.min(3) } else { n };
        c.support = Some((sid.to_string(), n));
    }
    Ok(c)
}

fn attack(st: &State, a: &Action) -> Result<P, Rejection> {
    let Action::Attack {
        attacker, charge, ..
    } = a
    else {
        return Err(wrong());
    };
    // With the orders rule, a unit that has not moved this turn rolls its orders die before it
    // moves into contact (D57), unless it is exempt.
    let at = unit_at(st, "attacker", attacker.id())?;
    let swiss_pike = at.troop == Troop::Picchieri && at.nationality.as_deref() == Some("svizzeri");
    let charging = (*charge && at.troop == Troop::Gendarmi) || swiss_pike;
    let exempt = at.open_order || st.commander_of(&at.id).is_some() || charging;
    if st.cfg.orders && !exempt && !at.moved && st.question.is_none() {
        let mut obeyed = st.clone();
        let uid = at.id.clone();
        let name = at.name.clone();
        if let Some(u) = obeyed.unit_mut(&uid) {
            u.moved = true;
        }
        // Refusals come before the die.
        attack_unordered(&obeyed, a)?;
        let a = a.clone();
        let st0 = st.clone();
        return Ok(Plan::die(
            Die::d6(m("callan.die.orders", &[("unit", name.clone())])),
            move |f| {
                if f == 1 {
                    let mut r = Res::new(&st0);
                    if let Some(u) = r.st.unit_mut(&uid) {
                        u.orders_failed = true;
                    }
                    r.facet(k("callan.facet.obeys"), yes_no(false));
                    let msg = m("callan.orders.refused", &[("unit", name.clone())]);
                    r.step(k("callan.step.orders"), msg.clone());
                    r.say(msg);
                    return Plan::Done(r);
                }
                let step = m(
                    "callan.orders.obeys",
                    &[("unit", name.clone()), ("face", f.to_string())],
                );
                match attack_unordered(&obeyed, &a) {
                    Ok(p) => p.map(move |mut r| {
                        r.facets.insert(0, (k("callan.facet.obeys"), yes_no(true)));
                        r.steps.insert(
                            0,
                            Step {
                                title: k("callan.step.orders"),
                                dice: Vec::new(),
                                modifiers: Vec::new(),
                                totals: Vec::new(),
                                result: step.clone(),
                            },
                        );
                        r
                    }),
                    Err(_) => Plan::Done(Res::new(&obeyed)),
                }
            },
        ));
    }
    attack_unordered(st, a)
}

fn attack_unordered(st: &State, a: &Action) -> Result<P, Rejection> {
    let Action::Attack {
        attacker,
        defender,
        charge,
        flank,
        evade,
        ..
    } = a
    else {
        return Err(wrong());
    };
    let at = unit_at(st, "attacker", attacker.id())?;
    let de = unit_at(st, "defender", defender.id())?;
    if at.side == de.side {
        return Err(refuse(
            "same-side",
            "defender",
            "callan.reject.own-side",
            de,
        ));
    }
    let phase = if at.troop.is_cavalry() {
        CardPhase::Cavalry
    } else {
        CardPhase::Infantry
    };
    if !card_is(st, at.side, phase) || joker_open(st) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            m(
                "callan.reject.move-when",
                &[
                    ("unit", at.name.clone()),
                    ("phase", format!("@callan.phase.{}", phase.id())),
                    ("now", phase_name(st)),
                ],
            ),
        )
        .not_now());
    }
    if at.status != Status::Ok {
        return Err(refuse(
            "cannot-attack",
            "attacker",
            "callan.reject.cannot-act",
            at,
        ));
    }
    if !de.on_table() {
        return Err(refuse(
            "not-on-table",
            "defender",
            "callan.reject.not-on-table",
            de,
        ));
    }
    if at.riccio {
        return Err(refuse(
            "riccio",
            "attacker",
            "callan.reject.riccio-moves",
            at,
        ));
    }
    if at.half() {
        return Err(refuse(
            "half-lost",
            "attacker",
            "callan.reject.half-lost",
            at,
        ));
    }
    if at.activated && !at.moved {
        return Err(refuse("activated", "attacker", "callan.reject.activated", at).not_now());
    }
    if at.fought_with.contains(&de.id) {
        return Err(refuse("fought", "defender", "callan.reject.fought", de).not_now());
    }
    if at.orders_failed {
        return Err(refuse(
            "orders-failed",
            "attacker",
            "callan.reject.orders-failed",
            at,
        )
        .not_now());
    }
    if in_combat(st, &at.id) {
        return Err(refuse("in-melee", "attacker", "callan.reject.in-melee", at));
    }
    if at.troop.is_gun() {
        return Err(refuse("gun", "attacker", "callan.reject.gun-attacks", at));
    }
    // Missile troops attack only missile troops (D41); light horse that fired may not attack (D17).
    let missile_only = |u: &UnitState| {
        u.troop.is_shot() || u.troop == Troop::CavalleriaLeggera || u.troop.is_gun()
    };
    if (at.troop.is_shot() || (at.troop == Troop::CavalleriaLeggera && at.weapon.is_some()))
        && !missile_only(de)
    {
        return Err(refuse(
            "missile-attack",
            "defender",
            "callan.reject.missile-attack",
            at,
        ));
    }
    if at.troop == Troop::CavalleriaLeggera && at.fired {
        return Err(refuse("fired", "attacker", "callan.reject.fired-no-attack", at).not_now());
    }
    if de.status == Status::Fleeing {
        // A fleeing unit contacted is destroyed (D44).
        let mut r = Res::new(st);
        let (aid, did) = (at.id.clone(), de.id.clone());
        mark_fought(&mut r, &aid, &did);
        mark_attacked(&mut r, &aid);
        let left = de.bases;
        count_loss(&mut r.st, &did, left);
        destroyed(&mut r, &did);
        return Ok(Plan::Done(r));
    }
    if de.troop.is_gun() {
        // Guns overrun, no dice, no charge counted (D35).
        let mut r = Res::new(st);
        let (aid, did) = (at.id.clone(), de.id.clone());
        mark_fought(&mut r, &aid, &did);
        mark_attacked(&mut r, &aid);
        let msg = m("callan.combat.gun-overrun", &[("unit", de.name.clone())]);
        r.step(k("callan.step.combat"), msg.clone());
        let left = de.bases;
        count_loss(&mut r.st, &did, left);
        destroyed(&mut r, &did);
        return Ok(Plan::Done(r));
    }
    let c = counts(st, a, [at, de], false)?;
    let charge = *charge && at.troop.is_cavalry();
    let flank = *flank && !de.riccio;
    let can =
        (de.open_order && de.troop.is_foot() || de.troop == Troop::CavalleriaLeggera) && !de.moved;
    if can && evade.is_none() {
        // The defender's side chooses: the attack waits for its answer (§5, Evasione).
        let mut r = Res::new(st);
        r.st.question = Some(serde_json::to_value(a).unwrap_or(Value::Null));
        let msg = m(
            "callan.question.evade",
            &[("unit", de.name.clone()), ("by", at.name.clone())],
        );
        r.step(k("callan.step.combat"), msg.clone());
        r.say(msg);
        return Ok(Plan::Done(r));
    }
    if *evade == Some(true) {
        if !can {
            return Err(refuse("cannot-evade", "evade", "callan.reject.evade", de));
        }
        let mut r = Res::new(st);
        let did = de.id.clone();
        let aid = at.id.clone();
        if let Some(u) = r.st.unit_mut(&did) {
            u.moved = true;
            u.activated = true;
        }
        if let Some(u) = r.st.unit_mut(&aid) {
            u.moved = true;
            u.activated = true;
        }
        mark_attacked(&mut r, &aid);
        let (bw, _) = de.troop.move_bw();
        let msg = m(
            "callan.combat.evades",
            &[
                ("unit", de.name.clone()),
                ("bw", bw.to_string()),
                ("cm", st.cm(bw).to_string()),
            ],
        );
        r.step(k("callan.step.combat"), msg.clone());
        r.say(msg);
        return Ok(Plan::Done(r));
    }
    let mut r = Res::new(st);
    let id = r.st.next_combat;
    r.st.next_combat += 1;
    let counter = de.troop == Troop::Gendarmi
        && de.quality == Quality::Veterani
        && at.troop.is_cavalry()
        && de.status == Status::Ok;
    let mala =
        st.cfg.mala_guerra && at.troop == Troop::Picchieri && de.troop == Troop::Picchieri && {
            let n = |u: &UnitState| u.nationality.clone().unwrap_or_default();
            let pair = [n(at), n(de)];
            pair.contains(&"svizzeri".to_string()) && pair.contains(&"lanzichenecchi".to_string())
        };
    let combat = Combat {
        id,
        units: [at.id.clone(), de.id.clone()],
        rounds: 0,
        roles: if counter {
            [Role::Attacker, Role::Attacker]
        } else {
            [Role::Attacker, Role::Defender]
        },
        cavalry: at.troop.is_cavalry() && de.troop.is_cavalry(),
        mala_guerra: mala,
        turn: st.turn,
        due: false,
        flanked: flank,
    };
    r.st.combats.push(combat.clone());
    {
        let me = r.st.unit_mut(&at.id).expect("attacker");
        me.moved = true;
        me.activated = true;
        me.attacked = true;
        me.riccio = false;
    }
    if let Some(o) = r.st.open.as_mut() {
        o.troops_moved = true;
    }
    // Charges count when a first round is fought (D29): after a raw defender's test, below.
    let bonus = charge
        && !counter
        && (at.troop != Troop::CavalleriaLeggera || st.cfg.light_cavalry_charge_bonus)
        && !(at.troop.is_heavy_horse() && at.charges >= 2);
    let counts_charge = charge && at.troop.is_heavy_horse();
    if counter {
        if let Some(d) = r.st.unit_mut(&de.id) {
            d.charges += 1;
        }
        r.step(
            k("callan.step.combat"),
            m("callan.combat.counter-charge", &[("unit", de.name.clone())]),
        );
    }
    if mala {
        r.step(k("callan.step.combat"), k("callan.combat.mala-guerra"));
        r.note(m(
            "callan.combat.mala-note",
            &[("a", at.name.clone()), ("b", de.name.clone())],
        ));
    }
    let round = Round {
        combat: id,
        bonus,
        charging: [counts_charge, counter],
        counts: c,
    };
    // A raw defender tests on being attacked, before the dice (D48).
    let raw = de.quality == Quality::Reclute;
    let did = de.id.clone();
    let aid = at.id.clone();
    let abases = at.bases;
    let round_for_site = round.clone();
    let go: Rc<dyn Fn(Res, bool) -> P> = Rc::new(move |r, fled| {
        if fled {
            // No round is fought: the charge does not count (D29).
            return Plan::Done(r);
        }
        let mut r = r;
        if counts_charge {
            if let Some(me) = r.st.unit_mut(&aid) {
                me.charges += 1;
            }
        }
        duel_then_round(r, round.clone())
    });
    if raw {
        let site = format!("raw|{}", round_site(&round_for_site, [false, false]));
        Ok(panic_test(
            r,
            &site,
            &did,
            Trigger::RawAttacked,
            Some(abases),
            true,
            go,
        ))
    } else {
        Ok(go(r, false))
    }
}

#[derive(Clone, Debug)]
struct Round {
    combat: u32,
    bonus: bool,
    /// This first round is a charge that counts for each side (the attacker's charge, a veteran
    /// counter-charge): its lances are not yet broken even if it is the second (D29).
    charging: [bool; 2],
    counts: Counts,
}

impl Clone for Counts {
    fn clone(&self) -> Self {
        Counts {
            front: self.front,
            rear: self.rear,
            shot: self.shot,
            emerge: self.emerge,
            support: self.support.clone(),
        }
    }
}

/// The attacker has moved into contact this turn, and its side's troops have moved (D13, D17).
fn mark_attacked(r: &mut Res, a: &str) {
    if let Some(u) = r.st.unit_mut(a) {
        u.moved = true;
        u.activated = true;
        u.attacked = true;
    }
    if let Some(o) = r.st.open.as_mut() {
        o.troops_moved = true;
    }
}

fn mark_fought(r: &mut Res, a: &str, b: &str) {
    for (x, y) in [(a, b), (b, a)] {
        if let Some(u) = r.st.unit_mut(x) {
            u.activated = true;
            if !u.fought_with.iter().any(|f| f == y) {
                u.fought_with.push(y.to_string());
            }
        }
    }
}

/// The attacked unit's answer: evade, or stand and fight (§5, Evasione).
fn answer(st: &State, choice: Option<&str>) -> Result<P, Rejection> {
    let Some(q) = &st.question else {
        return Err(reject(
            "no-question",
            Some("action"),
            k("callan.reject.no-question"),
        )
        .not_now());
    };
    let choice = match choice {
        Some("evade") => true,
        Some("stand") => false,
        _ => {
            return Err(reject(
                "bad-choice",
                Some("choice"),
                m(
                    "callan.reject.choice",
                    &[
                        ("field", "choice".into()),
                        ("allowed", "evade, stand".into()),
                    ],
                ),
            ))
        }
    };
    let mut q: Action = read_action(q)?;
    if let Action::Attack { evade, .. } = &mut q {
        *evade = Some(choice);
    }
    let mut cleared = st.clone();
    cleared.question = None;
    attack(&cleared, &q)
}

/// The side that answers the pending question: the attacked unit's.
pub fn question_side(st: &State) -> Option<usize> {
    match read_action(st.question.as_ref()?) {
        Ok(Action::Attack { defender, .. }) => {
            defender.id().and_then(|d| st.unit(d)).map(|u| u.side)
        }
        _ => None,
    }
}

fn resolve_combat(st: &State, a: &Action) -> Result<P, Rejection> {
    let Action::ResolveCombat { combat: id, .. } = a else {
        return Err(wrong());
    };
    let c = combat_by(st, id).ok_or_else(|| {
        reject(
            "unknown-combat",
            Some("combat"),
            m(
                "callan.reject.unknown-combat",
                &[
                    ("id", id.to_string()),
                    (
                        "allowed",
                        st.combats
                            .iter()
                            .map(|c| format!("c{}", c.id))
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                ],
            ),
        )
    })?;
    if !c.due {
        return Err(reject(
            "not-due",
            Some("combat"),
            m("callan.reject.not-due", &[("id", format!("c{}", c.id))]),
        )
        .not_now());
    }
    let (Some(x), Some(y)) = (st.unit(&c.units[0]), st.unit(&c.units[1])) else {
        return Err(reject(
            "unknown-combat",
            Some("combat"),
            k("callan.reject.unknown"),
        ));
    };
    let counts = counts(st, a, [x, y], c.cavalry && c.rounds >= 1)?;
    let mut r = Res::new(st);
    if let Some(cc) = r.st.combats.iter_mut().find(|z| z.id == c.id) {
        cc.due = false;
    }
    if let Some((sid, _)) = &counts.support {
        // The supporting squadron advanced to touch its friend: it has moved (D36).
        if let Some(s) = r.st.unit_mut(sid) {
            s.moved = true;
            s.activated = true;
        }
    }
    Ok(duel_then_round(
        r,
        Round {
            combat: c.id,
            bonus: false,
            charging: [false, false],
            counts,
        },
    ))
}

/// The Doppelsöldner duel before the first round between pike blocks (D33), then the round.
fn duel_then_round(r: Res, rd: Round) -> P {
    let Some(c) = r.st.combats.iter().find(|c| c.id == rd.combat).cloned() else {
        return Plan::Done(r);
    };
    let (Some(x), Some(y)) = (
        r.st.unit(&c.units[0]).cloned(),
        r.st.unit(&c.units[1]).cloned(),
    ) else {
        return Plan::Done(r);
    };
    let pikes = x.troop == Troop::Picchieri && y.troop == Troop::Picchieri;
    let has = [x.special.is_some(), y.special.is_some()];
    if c.rounds > 0 || !pikes || !(has[0] || has[1]) {
        return round(r, rd, [false, false]);
    }
    if has[0] != has[1] {
        let mut r = r;
        let loser = if has[0] { &y } else { &x };
        r.step(
            k("callan.step.duel"),
            m("callan.duel.without", &[("unit", loser.name.clone())]),
        );
        return round(r, rd, [!has[0], !has[1]]);
    }
    let label = k("callan.die.duel");
    throw(2, 6, &label, Depends::Difference).and_then(move |f| {
        let mut r = r.clone();
        let lost = [f[0] < f[1], f[1] < f[0]];
        let text = if f[0] == f[1] {
            k("callan.duel.tie")
        } else {
            let l = if lost[0] { &x } else { &y };
            m("callan.duel.loses", &[("unit", l.name.clone())])
        };
        r.steps.push(Step {
            title: k("callan.step.duel"),
            dice: vec![
                tercio_core::RolledDie {
                    label: x.name.clone(),
                    sides: 6,
                    face: f[0],
                },
                tercio_core::RolledDie {
                    label: y.name.clone(),
                    sides: 6,
                    face: f[1],
                },
            ],
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: text,
        });
        r.facet(
            k("callan.facet.duel"),
            if f[0] == f[1] {
                k("callan.duel.tie-short")
            } else if lost[1] {
                x.name.clone()
            } else {
                y.name.clone()
            },
        );
        round(r, rd.clone(), lost)
    })
}

/// One combat round (§7.14 steps 3–5).
fn round(r: Res, rd: Round, duel_lost: [bool; 2]) -> P {
    // Everything before the dice (a duel, a raw unit's test) is in the key, so equal pools after
    // different beginnings are never confused.
    let base = Rc::new(state_digest(&round_site(&rd, duel_lost), &r));
    let Some(c) = r.st.combats.iter().find(|c| c.id == rd.combat).cloned() else {
        return Plan::Done(r);
    };
    let (Some(x), Some(y)) = (
        r.st.unit(&c.units[0]).cloned(),
        r.st.unit(&c.units[1]).cloned(),
    ) else {
        return Plan::Done(r);
    };
    let n = c.rounds + 1;
    let mk = |u: &UnitState, i: usize| SideIn {
        troop: u.troop,
        quality: u.quality,
        german: u.nationality.as_deref() == Some("tedeschi"),
        front: rd.counts.front[i],
        rear: rd.counts.rear[i],
        tercio_shot_front: rd.counts.shot[i],
        emerge: rd.counts.emerge[i],
        halberd: u.halberd,
        disordered: u.disordered,
        flanked: i == 1 && c.flanked,
        riccio: u.riccio,
        role: c.roles[i],
        charge_bonus: i == 0 && rd.bonus && n == 1,
        // After two charges the lances are broken: every round but the first of the charge
        // that was the second (D29).
        spent: u.troop.is_heavy_horse()
            && (u.charges > 2 || (u.charges == 2 && !(n == 1 && rd.charging[i]))),
        duel_lost: duel_lost[i],
        round: n,
    };
    let sa = mk(&x, 0);
    let sb = mk(&y, 1);
    let (na, ha, ma) = side_dice(&sa, &sb, &x.name);
    let (nb, hb, mb) = side_dice(&sb, &sa, &y.name);
    let cmd = [
        r.st.commander_of(&x.id).is_some(),
        r.st.commander_of(&y.id).is_some(),
    ];
    let support = rd
        .counts
        .support
        .clone()
        .and_then(|(sid, front)| r.st.unit(&sid).map(|s| (s.clone(), front)));
    let pool_a = pool_led(na, ha, &x.name, cmd[0]);
    let title = m(
        "callan.step.round",
        &[
            ("n", n.to_string()),
            ("a", x.name.clone()),
            ("b", y.name.clone()),
        ],
    );
    let ctx = Rc::new((x, y, c, title, ma, mb, ha, hb, support, rd));
    // Shared, not copied, by the thousands of classes of a big pool; copied once per outcome.
    let r = Rc::new(r);
    pool_a.and_then(move |pa| {
        let ctx = ctx.clone();
        let r = r.clone();
        let key = format!("{base}|b|{}", pa.hits);
        let base = base.clone();
        let (ref yb, nb, hb, cmdb) = (ctx.1.clone(), nb, hb, cmd[1]);
        let yname = yb.name.clone();
        Plan::memo(key, move || {
            let ctx = ctx.clone();
            let r = r.clone();
            let pa = pa.clone();
            let sup = ctx.8.clone();
            let base = base.clone();
            pool_led(nb, hb, &yname, cmdb).and_then(move |pb| {
                let ctx = ctx.clone();
                let r = r.clone();
                let pa = pa.clone();
                let base = base.clone();
                let sup_pool = match &sup {
                    Some((s, front)) => {
                        let (per, _) = (s.troop.melee_half_dice(false), 0);
                        resolve::pool(per * front / 2, HitOn::FiveSix, &s.name)
                    }
                    None => Plan::Done(Pool::default()),
                };
                sup_pool.and_then(move |ps| {
                    let key = format!("{base}|after|{}|{}|{}", pa.hits, pb.hits, ps.hits);
                    let ctx = ctx.clone();
                    let r = r.clone();
                    let pa = pa.clone();
                    let pb = pb.clone();
                    Plan::memo(key.clone(), move || {
                        after_round((*r).clone(), &key, &ctx, &pa, &pb, &ps)
                    })
                })
            })
        })
    })
}

type Ctx = (
    UnitState,
    UnitState,
    Combat,
    String,
    Vec<Modifier>,
    Vec<Modifier>,
    HitOn,
    HitOn,
    Option<(UnitState, u32)>,
    Round,
);

/// What a round's continuation depends on besides the state: its counts, roles and the duel.
fn round_site(rd: &Round, duel_lost: [bool; 2]) -> String {
    format!("round|{rd:?}|{duel_lost:?}")
}

fn after_round(mut r: Res, site: &str, ctx: &Ctx, pa: &Pool, pb: &Pool, ps: &Pool) -> P {
    let (x, y, c, title, ma, mb, ha, hb, sup, _rd) = ctx;
    let n = c.rounds + 1;
    // The side a supporting squadron fights for (D36).
    let si = sup.as_ref().map(|(s, _)| usize::from(s.side != x.side));
    let sup_hits = |i: usize| if si == Some(i) { ps.hits } else { 0 };
    // A veteran volley's hits count for the defenders when the enemy crosses (D24).
    let inflicted_a = pa.hits + sup_hits(0);
    let inflicted_b = pb.hits + sup_hits(1) + x.volley_hits;
    let mut dice = pa.dice();
    dice.extend(pb.dice());
    dice.extend(ps.dice());
    let mut mods = ma.clone();
    mods.extend(mb.iter().cloned());
    let win = resolve::winner(inflicted_a, inflicted_b);
    // Hits suffered by the supported squadron and its supporter are shared, the odd one to the
    // squadron engaged first (D36). The volley's hits were applied when it was fired: only the
    // round's dice hurt now.
    let mut hits_x = pb.hits + sup_hits(1);
    let mut hits_y = inflicted_a;
    let mut hits_sup = 0;
    match si {
        Some(0) => {
            hits_sup = hits_x / 2;
            hits_x = hits_x.div_ceil(2);
        }
        Some(_) => {
            hits_sup = hits_y / 2;
            hits_y = hits_y.div_ceil(2);
        }
        None => {}
    }
    let who = match win {
        Some(true) => m("callan.round.wins", &[("unit", x.name.clone())]),
        Some(false) => m("callan.round.wins", &[("unit", y.name.clone())]),
        None => k("callan.round.draw"),
    };
    r.steps.push(Step {
        title: title.clone(),
        dice,
        modifiers: mods,
        totals: vec![
            (x.name.clone(), inflicted_a as i32),
            (y.name.clone(), inflicted_b as i32),
        ],
        result: m(
            "callan.round.result",
            &[
                ("a", x.name.clone()),
                ("ha", ha.name()),
                ("hits_a", inflicted_a.to_string()),
                ("b", y.name.clone()),
                ("hb", hb.name()),
                ("hits_b", inflicted_b.to_string()),
                ("who", who.clone()),
            ],
        ),
    });
    r.facet(
        m("callan.facet.hits-of", &[("unit", x.name.clone())]),
        inflicted_a.to_string(),
    );
    r.facet(
        m("callan.facet.hits-of", &[("unit", y.name.clone())]),
        inflicted_b.to_string(),
    );
    r.facet(
        k("callan.facet.winner"),
        match win {
            Some(true) => x.name.clone(),
            Some(false) => y.name.clone(),
            None => k("callan.round.draw-short"),
        },
    );
    for u in [&x.id, &y.id] {
        if let Some(me) = r.st.unit_mut(u) {
            me.volley_hits = 0;
        }
    }
    mark_fought(&mut r, &x.id, &y.id);
    let bases_before = [x.bases, y.bases];
    let lost_x = add_hits(&mut r, &x.id, hits_x);
    let lost_y = add_hits(&mut r, &y.id, hits_y);
    if let Some((s, _)) = sup {
        let l = add_hits(&mut r, &s.id, hits_sup);
        let _ = l;
    }
    r.facet(
        m("callan.facet.lost-of", &[("unit", x.name.clone())]),
        lost_x.to_string(),
    );
    r.facet(
        m("callan.facet.lost-of", &[("unit", y.name.clone())]),
        lost_y.to_string(),
    );
    if let Some(cc) = r.st.combats.iter_mut().find(|z| z.id == c.id) {
        cc.rounds = n;
        cc.turn = r.st.turn;
        cc.due = false;
        cc.roles = match win {
            None => [Role::Defender, Role::Defender],
            Some(true) => [Role::Attacker, Role::Defender],
            Some(false) => [Role::Defender, Role::Attacker],
        };
        // A flanked unit that wins or draws turns to face the enemy for the next round (D34).
        if win != Some(true) {
            cc.flanked = false;
        }
    }
    r.say(m(
        "callan.said.round",
        &[
            ("who", who),
            ("a", x.name.clone()),
            ("lost_a", lost_x.to_string()),
            ("b", y.name.clone()),
            ("lost_b", lost_y.to_string()),
        ],
    ));
    let ids = [x.id.clone(), y.id.clone()];
    let losts = [lost_x, lost_y];
    let hits_taken = [hits_x, hits_y];
    let mala = c.mala_guerra;
    let cid = c.id;
    // Consequences (§7.13, D39, D40): who withdraws, heavy losses, the loser's test, pursuit.
    let cav_vs_foot = [
        x.troop.is_cavalry() && y.troop.is_foot(),
        y.troop.is_cavalry() && x.troop.is_foot(),
    ];
    let loser = win.map(usize::from);
    let mut withdrew = [false, false];
    if !mala {
        for (i, id) in ids.iter().enumerate() {
            let lost_or_drew = loser.is_none_or(|l| l == i);
            // The facet is the rule's outcome (§11.3: draw + lose); the move, for a unit left.
            withdrew[i] = cav_vs_foot[i] && lost_or_drew;
            if withdrew[i] {
                r.st.combats.retain(|z| z.id != cid);
            }
            if withdrew[i] && r.st.unit(id).is_some_and(|u| u.status == Status::Ok) {
                let u = r.st.unit(id).expect("unit");
                let (bw, _) = u.troop.move_bw();
                let msg = m(
                    "callan.round.withdraws",
                    &[
                        ("unit", u.name.clone()),
                        ("bw", bw.to_string()),
                        ("cm", r.st.cm(bw).to_string()),
                    ],
                );
                r.step(k("callan.step.consequences"), msg.clone());
                r.say(msg);
            }
        }
    }
    r.facet(
        m("callan.facet.withdraws", &[("unit", x.name.clone())]),
        yes_no(withdrew[0]),
    );
    // Heavy losses: the winner holds, the loser flees, a draw retires (§8.1).
    if !mala {
        // A supporting squadron shares its friend's fate (D36).
        let supporter = sup.as_ref().zip(si).map(|((s, _), i)| (i, s.id.clone()));
        for (i, id) in ids
            .iter()
            .enumerate()
            .chain(supporter.iter().map(|(i, id)| (*i, id)))
        {
            let after = match loser {
                Some(l) if l == i => After::Lost,
                Some(_) => After::Won,
                None => After::Retire,
            };
            heavy_losses(&mut r, id, after);
        }
    }
    let enemy_bases = [
        r.st.unit(&ids[1]).map_or(0, |u| u.bases),
        r.st.unit(&ids[0]).map_or(0, |u| u.bases),
    ];
    let half_rule = r.st.cfg.half_hits_panic;
    let must_test = loser.filter(|&l| {
        !mala
            && r.st.unit(&ids[l]).is_some_and(|u| u.status == Status::Ok)
            && (losts[l] > 0 || (half_rule && 2 * hits_taken[l] >= bases_before[l]))
    });
    let winner_is_cav =
        loser.is_some_and(|l| r.st.unit(&ids[1 - l]).is_some_and(|u| u.troop.is_cavalry()));
    let loser_is_cav =
        loser.is_some_and(|l| r.st.unit(&ids[l]).is_some_and(|u| u.troop.is_cavalry()));
    let ids2 = ids.clone();
    let losts2 = losts;
    let site3 = site.to_string();
    let finish: Rc<dyn Fn(Res, bool) -> P> = Rc::new(move |mut r, _| {
        // Flight of the loser (by panic or exhaustion) lets cavalry pursue (D51).
        let fled = loser.is_some_and(|l| {
            r.st.unit(&ids2[l])
                .is_some_and(|u| u.status == Status::Fleeing)
        });
        let ids3 = ids2.clone();
        let site3 = site3.clone();
        let wounds: K = Rc::new(move |r: Res| {
            let ids4 = ids3.clone();
            let site1 = format!("{site3}|w1");
            wound_check(
                r,
                &format!("{site3}|w0"),
                &ids3[0],
                losts2[0],
                Rc::new(move |r| wound_check(r, &site1, &ids4[1], losts2[1], Rc::new(Plan::Done))),
            )
        });
        if let (Some(l), true, true, true) = (loser, fled, winner_is_cav, loser_is_cav) {
            r.facet(k("callan.facet.loser-flees"), yes_no(true));
            return pursue(r, &ids2[1 - l], wounds);
        }
        r.facet(k("callan.facet.loser-flees"), yes_no(fled));
        wounds(r)
    });
    match must_test {
        Some(l) => panic_test(
            r,
            site,
            &ids[l],
            Trigger::LostCombat,
            Some(enemy_bases[l]),
            true,
            finish,
        ),
        None => finish(r, false),
    }
}

/// Pursuit by cavalry that beat fleeing cavalry (§8.4, D51–D53).
fn pursue(r: Res, uid: &str, then: K) -> P {
    let Some(u) = r.st.unit(uid).cloned() else {
        return then(r);
    };
    if u.status != Status::Ok {
        return then(r);
    }
    let french = u.troop == Troop::Gendarmi && u.nationality.as_deref() == Some("francesi");
    if u.troop == Troop::CavalleriaLeggera || french {
        let mut r = r;
        if let Some(me) = r.st.unit_mut(uid) {
            me.status = Status::Pursuing;
            me.pursuit_turns = 0;
        }
        r.st.combats.retain(|c| !c.units.iter().any(|x| x == uid));
        let msg = m("callan.pursuit.always", &[("unit", u.name.clone())]);
        r.step(k("callan.step.pursuit"), msg.clone());
        r.say(msg);
        return then(r);
    }
    let uid = uid.to_string();
    let commander = r.st.commander_of(&uid).is_some();
    Plan::die(
        Die::d6(m("callan.die.pursuit", &[("unit", u.name.clone())])),
        move |f| {
            let r = r.clone();
            if f <= 4 && commander {
                // A commander with the unit has the die re-rolled, to keep it in the battle
                // (003, Inseguimento, "Un Comandante con l'unità può ripetere il tiro"; D51).
                let mut r = r;
                r.step(
                    k("callan.step.pursuit"),
                    m(
                        "callan.pursuit.commander-reroll",
                        &[("unit", u.name.clone()), ("face", f.to_string())],
                    ),
                );
                let (u, uid, then) = (u.clone(), uid.clone(), then.clone());
                return Plan::die(
                    Die::d6(m(
                        "callan.die.pursuit-commander",
                        &[("unit", u.name.clone())],
                    )),
                    move |g| pursuit_settles(r.clone(), &uid, &u, g, then.clone()),
                );
            }
            pursuit_settles(r, &uid, &u, f, then.clone())
        },
    )
}

/// The pursuit die's result: 1–4 pursue that many turns, 5–6 stop (D51).
fn pursuit_settles(mut r: Res, uid: &str, u: &UnitState, f: u8, then: K) -> P {
    let turns = if f <= 4 { u32::from(f) } else { 0 };
    r.facet(
        m("callan.facet.pursuit", &[("unit", u.name.clone())]),
        turns.to_string(),
    );
    if turns > 0 {
        if let Some(me) = r.st.unit_mut(uid) {
            me.status = Status::Pursuing;
            me.pursuit_turns = turns;
        }
        r.st.combats.retain(|c| !c.units.iter().any(|x| x == uid));
    }
    let msg = m(
        if turns > 0 {
            "callan.pursuit.turns"
        } else {
            "callan.pursuit.stops"
        },
        &[("unit", u.name.clone()), ("n", turns.to_string())],
    );
    r.step(k("callan.step.pursuit"), msg.clone());
    r.say(msg);
    then(r)
}

// ------------------------------------------------------------------------------------------------
// The players' reports.

fn panic_action(st: &State, unit: &str, reason: Option<&str>) -> Result<P, Rejection> {
    let u = unit_at(st, "unit", unit)?;
    let reason = reason.unwrap_or("friends_fleeing");
    let trigger = match reason {
        "friends_fleeing" => Trigger::FriendsFleeing,
        "rout_seen" => Trigger::RoutSeen,
        _ => {
            return Err(reject(
                "bad-choice",
                Some("reason"),
                m(
                    "callan.reject.choice",
                    &[
                        ("field", "reason".into()),
                        ("allowed", "friends_fleeing, rout_seen".into()),
                    ],
                ),
            ))
        }
    };
    if trigger == Trigger::RoutSeen && u.quality != Quality::Reclute {
        return Err(refuse("not-raw", "reason", "callan.reject.rout-seen", u));
    }
    if !matches!(u.status, Status::Ok | Status::Retiring) {
        return Err(refuse(
            "not-on-table",
            "unit",
            "callan.reject.not-on-table",
            u,
        ));
    }
    let r = Res::new(st);
    let id = u.id.clone();
    Ok(panic_test(
        r,
        "report",
        &id,
        trigger,
        None,
        false,
        Rc::new(|r, _| Plan::Done(r)),
    ))
}

fn pursuit(st: &State, unit: &str, edge: bool) -> Result<P, Rejection> {
    let u = unit_at(st, "unit", unit)?;
    if u.status != Status::Pursuing {
        return Err(refuse(
            "not-pursuing",
            "unit",
            "callan.reject.not-pursuing",
            u,
        ));
    }
    let mut r = Res::new(st);
    let id = u.id.clone();
    let french = u.troop == Troop::Gendarmi && u.nationality.as_deref() == Some("francesi");
    let msg;
    if let Some(me) = r.st.unit_mut(&id) {
        me.activated = true;
        me.moved = true;
    }
    if edge && u.troop == Troop::CavalleriaLeggera {
        let enemy = 1 - u.side.min(1);
        let s = &r.st.sides[enemy];
        if s.camp && !s.camp_looted {
            let v = s.camp_value;
            let s = &mut r.st.sides[enemy];
            s.camp_looted = true;
            s.lost += 2 * v;
            s.lost_points += 3 * v;
            msg = m(
                "callan.pursuit.loot",
                &[("unit", u.name.clone()), ("value", v.to_string())],
            );
        } else {
            msg = m("callan.pursuit.no-camp", &[("unit", u.name.clone())]);
        }
        if let Some(me) = r.st.unit_mut(&id) {
            me.status = Status::Looting;
        }
    } else if edge && french {
        if let Some(me) = r.st.unit_mut(&id) {
            me.status = Status::Away;
        }
        msg = m("callan.pursuit.away", &[("unit", u.name.clone())]);
    } else if edge {
        // Off the table in pursuit is not lost (C9, D54): it comes back at the edge when its
        // turns of pursuit are over.
        msg = m(
            "callan.pursuit.off-returns",
            &[("unit", u.name.clone()), ("n", u.pursuit_turns.to_string())],
        );
    } else {
        msg = m(
            "callan.pursuit.moves",
            &[
                ("unit", u.name.clone()),
                ("bw", "10".into()),
                ("cm", st.cm(10).to_string()),
            ],
        );
    }
    r.note(msg.clone());
    r.step(k("callan.step.pursuit"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

fn rally(st: &State, cid: &str, from: &str, to: &str) -> Result<P, Rejection> {
    let from = unit_at(st, "from", from)?;
    let to = unit_at(st, "to", to)?;
    let led = st.commander_of(&from.id).is_some_and(|c| c.id == cid);
    if !led {
        return Err(refuse(
            "not-led",
            "commander",
            "callan.reject.rally-led",
            from,
        ));
    }
    if !from.troop.is_cavalry() || !from.exhausted() {
        return Err(refuse(
            "not-exhausted",
            "from",
            "callan.reject.rally-exhausted",
            from,
        ));
    }
    if to.troop != from.troop || to.side != from.side || to.id == from.id || to.status != Status::Ok
    {
        return Err(refuse("bad-rally", "to", "callan.reject.rally-to", to));
    }
    if to.bases + from.bases > to.bases_start {
        return Err(refuse(
            "too-many-bases",
            "to",
            "callan.reject.rally-full",
            to,
        ));
    }
    let mut r = Res::new(st);
    let n = from.bases;
    if let Some(f) = r.st.unit_mut(&from.id) {
        f.bases = 0;
        f.status = Status::Lost;
        f.counted = true;
    }
    if let Some(t) = r.st.unit_mut(&to.id) {
        t.bases += n;
    }
    // The commander brought them: he now leads the reinforced squadron.
    if let Some(c) = r.st.commanders.iter_mut().find(|c| c.id == cid) {
        c.unit = Some(to.id.clone());
    }
    let msg = m(
        "callan.rally.done",
        &[
            ("from", from.name.clone()),
            ("to", to.name.clone()),
            ("n", n.to_string()),
        ],
    );
    r.note(msg.clone());
    r.step(k("callan.step.rally"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

fn off_table(st: &State, unit: &str) -> Result<P, Rejection> {
    let u = unit_at(st, "unit", unit)?;
    if !u.on_table() {
        return Err(refuse(
            "not-on-table",
            "unit",
            "callan.reject.not-on-table",
            u,
        ));
    }
    let mut r = Res::new(st);
    let id = u.id.clone();
    let left = u.bases;
    count_loss(&mut r.st, &id, left);
    if let Some(me) = r.st.unit_mut(&id) {
        me.status = Status::Lost;
        me.counted = true;
    }
    r.st.combats.retain(|c| !c.units.contains(&id));
    let msg = m("callan.unit.off-table", &[("unit", u.name.clone())]);
    r.note(msg.clone());
    r.step(k("callan.step.off-table"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

fn obstacle(st: &State, id: &str, d: Option<&str>) -> Result<P, Rejection> {
    let id = id.trim().to_lowercase();
    let id = id.as_str();
    if let Some(d) = d {
        if !matches!(d, "facile" | "difficile" | "molto-difficile") {
            return Err(reject(
                "bad-choice",
                Some("difficulty"),
                m(
                    "callan.reject.choice",
                    &[
                        ("field", "difficulty".into()),
                        ("allowed", "facile, difficile, molto-difficile".into()),
                    ],
                ),
            ));
        }
    }
    if st.obstacles.contains_key(id) {
        return Err(reject(
            "known-obstacle",
            Some("id"),
            m("callan.reject.obstacle-known", &[("id", id.to_string())]),
        ));
    }
    let Some(d) = d else {
        return Err(reject(
            "missing-field",
            Some("difficulty"),
            field_msg("callan.reject.missing", "difficulty", &[]),
        ));
    };
    let mut r = Res::new(st);
    r.st.obstacles.insert(id.to_string(), d.to_string());
    let msg = m(
        "callan.obstacle.declared",
        &[
            ("id", id.to_string()),
            ("difficulty", format!("@callan.obstacle.{d}")),
        ],
    );
    r.step(k("callan.step.obstacle"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

fn set_state(st: &State, a: &Action) -> Result<P, Rejection> {
    let Action::SetState {
        unit,
        disordered: dis,
        open_order: open,
        riccio,
        loses_first,
        ..
    } = a
    else {
        return Err(wrong());
    };
    let (dis, open, riccio) = (*dis, *open, *riccio);
    let u = unit_at(st, "unit", unit.as_str())?;
    let mut r = Res::new(st);
    let id = u.id.clone();
    if riccio == Some(true) && u.troop != Troop::Picchieri {
        return Err(refuse("not-pike", "riccio", "callan.reject.formation", u));
    }
    // Only shot foot go in and out of open order; light horse are in it by the scenario (D6).
    if open.is_some_and(|o| o != u.open_order) && !u.troop.is_shot() {
        return Err(refuse(
            "no-open-order",
            "open_order",
            "callan.reject.open-order",
            u,
        ));
    }
    let lose_first = match loses_first.as_deref() {
        None => None,
        Some("pike") => Some(None),
        Some(kind) => {
            let has = match kind {
                "screen" => u.screen > 0,
                "special" => u.special.is_some(),
                "halberd" => u.halberd,
                "shot" => u.shot > 0,
                _ => false,
            };
            if !has {
                return Err(refuse(
                    "bad-choice",
                    "loses_first",
                    "callan.reject.loses-first",
                    u,
                ));
            }
            Some(Some(kind.to_string()))
        }
    };
    if let Some(me) = r.st.unit_mut(&id) {
        if let Some(d) = dis {
            me.disordered = d;
        }
        if let Some(o) = open {
            me.open_order = o;
        }
        if let Some(x) = riccio {
            me.riccio = x;
        }
        if let Some(l) = &lose_first {
            me.lose_first = l.clone();
        }
    }
    let now = r.st.unit(&id).expect("unit");
    let msg = m(
        "callan.state.set",
        &[
            ("unit", u.name.clone()),
            ("disordered", yes_no(now.disordered)),
            ("open", yes_no(now.open_order)),
            ("riccio", yes_no(now.riccio)),
        ],
    );
    r.step(k("callan.step.state"), msg.clone());
    r.say(msg);
    if let Some(l) = &lose_first {
        r.step(
            k("callan.step.state"),
            m(
                "callan.state.loses-first",
                &[
                    ("unit", u.name.clone()),
                    (
                        "kind",
                        format!("@callan.lose.{}", l.as_deref().unwrap_or("pike")),
                    ),
                ],
            ),
        );
    }
    Ok(Plan::Done(r))
}

/// What the game waits for, in a sentence.
/// A card by its rank and colour ("Q rossa"), or the Joker.
pub fn card_text(card: u8) -> String {
    match card_colour(card) {
        None => k("callan.card.joker-name"),
        Some(c) => m(
            "callan.card.name",
            &[
                ("rank", tables::card_rank(card).to_string()),
                (
                    "colour",
                    if c == 0 {
                        "@callan.colour.red".into()
                    } else {
                        "@callan.colour.black".into()
                    },
                ),
            ],
        ),
    }
}

pub fn waiting_for(st: &State) -> String {
    match st.phase {
        Phase::Setup => k("callan.wait.start"),
        Phase::Over => k("callan.wait.over"),
        Phase::Cards => {
            if let Some(side) = question_side(st) {
                return m(
                    "callan.wait.question",
                    &[("side", st.sides[side].name.clone())],
                );
            }
            let due: Vec<String> = st
                .combats
                .iter()
                .filter(|c| c.due)
                .map(|c| {
                    let n = |i: usize| {
                        st.unit(&c.units[i])
                            .map_or(String::new(), |u| u.name.clone())
                    };
                    m(
                        "callan.wait.combat",
                        &[("id", c.id.to_string()), ("a", n(0)), ("b", n(1))],
                    )
                })
                .collect();
            if !due.is_empty() {
                return m("callan.wait.combats", &[("combats", due.join("; "))]);
            }
            if st.cards_left().is_empty() {
                k("callan.wait.end-turn")
            } else {
                m("callan.wait.draw", &[("now", phase_name(st))])
            }
        }
    }
}

pub fn verdict(st: &State) -> Option<String> {
    if st.draw {
        return Some(k("callan.victory.draw"));
    }
    st.winner
        .map(|w| m("callan.victory.wins", &[("side", st.sides[w].name.clone())]))
}

pub fn term_of(t: Troop) -> String {
    term(t.id())
}
