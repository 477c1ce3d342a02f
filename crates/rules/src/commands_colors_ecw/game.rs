//! A game of the English Civil War variant as a fold over the event log (design 3-8, 10 and 13 of
//! `docs/rules/commands-colors-ecw.md`).
//!
//! Every action is resolved against the state into a new state: the plan's leaves carry the whole
//! next state, and the event's effects are the difference between the two, as absolute values at
//! JSON pointers ([`diff`]), so folding an event is setting values ([`apply`]). Secret values (the
//! hands, the Stand of Pikes tracks, a Scout's pair, the order of the decks) live at known paths,
//! which the per-seat views strip ([`secret_path`]).
//!
//! The decks: the `deal` draws a shuffle key from the seeded stream; every shuffle of the game
//! (the first one and each reshuffle) is a deterministic function of that key and the shuffle's
//! number, so voiding an action never buys a new order (decisions 11 and 12).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::plan::throw;
use tercio_core::{Depends, Die, FaceClasses, Modifier, Plan, Step};

use super::resolve::{self, Roller, Target};
use super::tables::{
    self, chaunce_card, command_card, command_kind, ChaunceCard, Class, CommandCard, Count, Kind,
    Section, Symbol, Training, Turn, CHAUNCE_CARDS,
};
use crate::effects::shuffled;
pub use crate::effects::{apply, diff};
use crate::interface::Rejection;
use crate::scenario::Scenario;

// ------------------------------------------------------------------------------------------------
// Configuration: the house rules of design 13.4 and the scenario's hands and banners.

/// The house-rule keys (design 13.4), with their defaults.
pub const HOUSE_RULES: [(&str, i64); 15] = [
    ("ecw.veteran_cap_pct", 25),
    ("ecw.rash_cap_pct", 25),
    ("ecw.breakthrough_limit", 0),
    ("ecw.square_slots", 4),
    ("ecw.raw_hexes_per_flag", 2),
    ("ecw.militia_hexes_per_flag", 3),
    ("ecw.control_leader_sabre", 1),
    ("ecw.mounted_min_move", 1),
    ("ecw.chaunce", 1),
    ("ecw.false_alarums", 11),
    ("ecw.counter_attack_fallback", 1),
    // Per scenario (design 13.4, "Per-scenario fields"): the first side listed plays first.
    ("ecw.hand_first", 5),
    ("ecw.hand_second", 5),
    ("ecw.banners_first", 6),
    ("ecw.banners_second", 6),
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cfg {
    pub breakthrough_limit: u32,
    pub square_slots: usize,
    pub raw_per_flag: u32,
    pub militia_per_flag: u32,
    pub control_leader_sabre: bool,
    pub mounted_min_move: u32,
    pub chaunce: bool,
    pub false_alarums: u8,
    pub counter_attack_fallback: bool,
}

pub fn house(s: &Scenario, key: &str) -> i64 {
    s.house_rules.get(key).copied().unwrap_or_else(|| {
        HOUSE_RULES
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(0, |(_, v)| *v)
    })
}

fn cfg_of(s: &Scenario) -> Cfg {
    let u = |k: &str| u32::try_from(house(s, k).max(0)).unwrap_or(0);
    Cfg {
        breakthrough_limit: u("ecw.breakthrough_limit"),
        square_slots: u("ecw.square_slots") as usize,
        raw_per_flag: u("ecw.raw_hexes_per_flag").max(1),
        militia_per_flag: u("ecw.militia_hexes_per_flag").max(1),
        control_leader_sabre: house(s, "ecw.control_leader_sabre") != 0,
        mounted_min_move: u("ecw.mounted_min_move"),
        chaunce: house(s, "ecw.chaunce") != 0,
        false_alarums: u8::try_from(u("ecw.false_alarums").min(30)).unwrap_or(11),
        counter_attack_fallback: house(s, "ecw.counter_attack_fallback") != 0,
    }
}

// ------------------------------------------------------------------------------------------------
// State.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Before the deal.
    Deal,
    /// The active side must take the Chaunce card presented to it (decision 2).
    Chaunce,
    /// A drawn Chaunce card waits for the side's candidates (design 5.2).
    ChaunceResolve,
    /// After a Chaunce card that replaced the turn: the optional swap of one command card.
    Swap,
    /// Play a command card.
    Command,
    /// A card is in play: orders, moves, combat.
    Orders,
    /// A melee was announced: the defender answers (decision 43).
    Window,
    /// The drawer of a Scout chooses which of two cards to keep.
    Scout,
    /// The Dizziness: the opponent picks a card from the hand, unseen.
    Dizziness,
    Over,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// One device plays both sides: hands are shown behind a tap (design 10).
    pub single_device: bool,
    /// A neutral referee holds the game master's link and sees the hands (decision 44).
    pub referee_sees_hands: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideState {
    pub id: String,
    pub name: String,
    /// Card numbers (0..72) in the order drawn. Secret to the side.
    pub hand: Vec<u8>,
    /// The hand's size when the view hides it.
    pub hidden: Option<u32>,
    pub hand_limit: u32,
    /// Stand of Pikes track: (card, unit). The card is secret to the side.
    pub track: Vec<(u8, String)>,
    /// A Scout's pair waiting for the choice. Secret to the side.
    pub scout: Vec<u8>,
    pub banners: u32,
    pub banners_to_win: u32,
    /// Chaunce cards it must take at the start of its next turn.
    pub chaunce_due: u32,
    /// It played Evade this turn: it draws first at the end of the turn.
    pub evade_draw: u32,
    pub artillery_horses: bool,
    pub chickweed: bool,
    /// The last command card it played on its own turn (the effective card), for Counter-Attack.
    pub last_card: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitState {
    pub id: String,
    pub name: String,
    pub side: usize,
    pub class: Class,
    pub pikes: bool,
    pub training: Training,
    pub blocks: u8,
    pub start_blocks: u8,
    pub rash: bool,
    pub mounted: bool,
    pub no_fire: bool,
    pub section: Section,
    /// Off the table, waiting for We're Back.
    pub spare: bool,
    /// In Stand of Pikes formation.
    pub stand: bool,
    pub ordered: bool,
    pub moved: u32,
    pub moves: u32,
    pub fired: bool,
    pub meleed: u32,
    /// +1 die from this turn's card for every battle (Charge of Horse, Leadership, The Lord).
    pub card_bonus: i32,
    /// +1 on the first melee only (Push!).
    pub push: bool,
    /// Bombard: "move" or "fire" once chosen.
    pub bombard: Option<String>,
    /// Persistent Chaunce dice (Hot for Revenge, The Inspired Worde, Gold, Never Touch).
    pub chaunce_bonus: i32,
    pub no_orders_until_leader: bool,
    pub no_move_turns: u32,
    pub no_fire_turns: u32,
    /// Bold Dragooneers: the one further move after firing has been made.
    #[serde(default)]
    pub moved_after_fire: bool,
    pub gone: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderState {
    pub id: String,
    pub name: String,
    pub side: usize,
    pub unit: Option<String>,
    pub ordered: bool,
    pub gone: Option<String>,
}

/// The card in play this turn and what it has ordered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Played {
    /// The card number played.
    pub card: u8,
    /// The effective card's id (a Counter-Attack's copy, the fallback "any-1").
    pub effective: String,
    /// Section limits after mirroring (left, centre, right), or none for a tactic card.
    pub limits: Option<[Option<u32>; 3]>,
    pub shared: bool,
    pub scout: bool,
    /// Ids ordered, with the section each was counted in.
    pub orders: Vec<(String, Option<Section>)>,
    /// Orders still to give by type, for Rallye and The Lord Is With Us: foot, horse, artillery,
    /// any (flags).
    pub pool: Option<[u32; 4]>,
    /// Rallye's blocks still to return: foot, horse, artillery.
    pub rally: Option<[u32; 3]>,
    /// March to Victorye's section, once the first unit is ordered.
    pub march: Option<Section>,
    /// Combat has begun: no more orders or moves (CCN sequence of play).
    pub combat: bool,
    /// Some unit has moved: no more orders.
    pub moving: bool,
}

/// A melee announced, waiting for the defender's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Window {
    pub attacker: String,
    pub target: String,
    pub terrain: u8,
    pub battle_back_terrain: u8,
    pub target_room: Option<u32>,
    pub attacker_room: Option<u32>,
    pub target_ignores: u32,
    pub bonus: bool,
    /// A Chaunce charge (Going For It Bald-Headed): no card bonus, and the turn ends after it.
    pub chaunce: bool,
}

/// A horse unit that won a melee and may break through (design 6.8, 6.10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chase {
    pub unit: String,
    pub bonus_melees: u32,
    /// A rash unit not (yet) brought under control must make its bonus melee if it can.
    pub compelled: bool,
    pub control_rolled: bool,
    /// The chase of a Chaunce charge (Going For It Bald-Headed): the turn ends with it.
    pub chaunce: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub ruleset: String,
    pub cfg: Cfg,
    pub phase: Phase,
    pub turn: u32,
    pub active: usize,
    pub settings: Settings,
    pub sides: Vec<SideState>,
    pub units: Vec<UnitState>,
    pub leaders: Vec<LeaderState>,
    /// Command cards, top of the deck last. Secret.
    pub deck: Vec<u8>,
    pub deck_count: u32,
    /// Face up, newest last.
    pub discard: Vec<u8>,
    /// Chaunce cards (numbers into the pack), top last. Secret.
    pub pack: Vec<u8>,
    pub pack_count: u32,
    pub pack_discard: Vec<u8>,
    /// The shuffle key drawn at the deal. Secret.
    pub salt: u64,
    pub shuffles: u32,
    pub card: Option<Played>,
    pub window: Option<Window>,
    pub chase: Option<Chase>,
    /// The Chaunce card drawn and waiting for resolution.
    pub chaunce: Option<u8>,
    /// A Chaunce card's first draw (a unit, a gun, a bridge), waiting for the table's second
    /// answer (`resolve_chaunce` with `target`).
    #[serde(default)]
    pub pending: Option<String>,
    /// The Chaunce card that replaced this turn (for the swap).
    pub replaced: bool,
    /// Player-turns of St. Swithun's rain left, the current one included.
    pub rain: u32,
    pub soft_going: bool,
    pub last_foot_fired: Option<String>,
    pub winner: Option<usize>,
    /// What the table must remember: banners and their causes, lasting effects.
    pub chronicle: Vec<String>,
}

impl State {
    fn unit(&self, id: &str) -> Option<&UnitState> {
        self.units.iter().find(|u| u.id == id)
    }
    fn unit_mut(&mut self, id: &str) -> Option<&mut UnitState> {
        self.units.iter_mut().find(|u| u.id == id)
    }
    fn leader(&self, id: &str) -> Option<&LeaderState> {
        self.leaders.iter().find(|l| l.id == id)
    }
    fn leader_mut(&mut self, id: &str) -> Option<&mut LeaderState> {
        self.leaders.iter_mut().find(|l| l.id == id)
    }
    /// The leader attached to a unit, if any.
    fn leader_of(&self, unit: &str) -> Option<&LeaderState> {
        self.leaders
            .iter()
            .find(|l| l.gone.is_none() && l.unit.as_deref() == Some(unit))
    }
    fn live_units(&self, side: usize) -> impl Iterator<Item = &UnitState> {
        self.units
            .iter()
            .filter(move |u| u.side == side && u.gone.is_none() && !u.spare)
    }
    fn side_name(&self, i: usize) -> String {
        self.sides.get(i).map_or(String::new(), |s| s.name.clone())
    }
    /// Command: the hand, the card being played included; never the track (decision 55).
    fn command(&self, side: usize) -> u32 {
        self.sides[side]
            .hidden
            .unwrap_or(self.sides[side].hand.len() as u32)
    }
}

fn reject(code: &str, field: Option<&str>, msg: impl Into<String>) -> Rejection {
    Rejection::new(code, field, msg)
}

/// The state of a new game of `scenario`.
pub fn initial(s: &Scenario) -> Result<State, String> {
    let cfg = cfg_of(s);
    let side_ix = |id: &str| s.sides.iter().position(|x| x.id == id).unwrap_or(0);
    let mut units = Vec::new();
    for u in &s.units {
        let class = match u.troop.as_str() {
            "foot" => Class::Foot,
            "clubmen" => Class::Clubmen,
            "cuirassiers" => Class::Cuirassiers,
            "trotters" => Class::Trotters,
            "gallopers" => Class::Gallopers,
            "dragoons" => Class::Dragoons,
            "artillery" => Class::Artillery,
            t => return Err(format!("units.{}: unknown type \"{t}\"", u.id)),
        };
        let has = |f: &str| u.flags.iter().any(|x| x == f);
        let training = if class == Class::Clubmen || has("militia") {
            Training::Militia
        } else if has("veteran") {
            Training::Veteran
        } else if has("raw") {
            Training::Raw
        } else {
            Training::Trained
        };
        let sections: Vec<Section> = u.flags.iter().filter_map(|f| Section::parse(f)).collect();
        let section = match sections.as_slice() {
            [one] => *one,
            _ => {
                return Err(format!(
                    "units.{}.flags: exactly one section flag is needed (left, centre or right); found {}",
                    u.id,
                    sections.len()
                ))
            }
        };
        units.push(UnitState {
            id: u.id.clone(),
            name: u.name.clone(),
            side: side_ix(&u.side),
            class,
            pikes: class == Class::Foot && !has("no-pikes"),
            training,
            blocks: u.bases,
            start_blocks: u.bases,
            rash: has("rash"),
            mounted: class == Class::Dragoons && !has("dismounted"),
            no_fire: has("no-fire"),
            section,
            spare: has("spare"),
            stand: false,
            ordered: false,
            moved: 0,
            moves: 0,
            fired: false,
            meleed: 0,
            card_bonus: 0,
            push: false,
            bombard: None,
            chaunce_bonus: 0,
            no_orders_until_leader: false,
            no_move_turns: 0,
            no_fire_turns: 0,
            moved_after_fire: false,
            gone: None,
        });
    }
    let mut leaders = Vec::new();
    for l in &s.leaders {
        let attached: Vec<&str> = s
            .units
            .iter()
            .filter(|u| u.leader == l.id && u.flags.iter().any(|f| f == "attached"))
            .map(|u| u.id.as_str())
            .collect();
        if attached.len() > 1 {
            return Err(format!(
                "leaders.{}: attached to {} units ({}); a leader is attached to one unit at most",
                l.id,
                attached.len(),
                attached.join(", ")
            ));
        }
        leaders.push(LeaderState {
            id: l.id.clone(),
            name: l.name.clone(),
            side: side_ix(&l.side),
            unit: attached.first().map(|x| x.to_string()),
            ordered: false,
            gone: None,
        });
    }
    let hands = [house(s, "ecw.hand_first"), house(s, "ecw.hand_second")];
    let banners = [
        house(s, "ecw.banners_first"),
        house(s, "ecw.banners_second"),
    ];
    let sides = s
        .sides
        .iter()
        .enumerate()
        .map(|(i, x)| SideState {
            id: x.id.clone(),
            name: x.name.clone(),
            hand: Vec::new(),
            hidden: None,
            hand_limit: u32::try_from(hands[i.min(1)].clamp(1, 12)).unwrap_or(5),
            track: Vec::new(),
            scout: Vec::new(),
            banners: 0,
            banners_to_win: u32::try_from(banners[i.min(1)].clamp(1, 30)).unwrap_or(6),
            chaunce_due: 0,
            evade_draw: 0,
            artillery_horses: false,
            chickweed: false,
            last_card: None,
        })
        .collect();
    Ok(State {
        ruleset: super::RULESET_ID.into(),
        cfg,
        phase: Phase::Deal,
        turn: 0,
        active: 0,
        settings: Settings {
            single_device: false,
            referee_sees_hands: false,
        },
        sides,
        units,
        leaders,
        deck: Vec::new(),
        deck_count: 0,
        discard: Vec::new(),
        pack: Vec::new(),
        pack_count: 0,
        pack_discard: Vec::new(),
        salt: 0,
        shuffles: 0,
        card: None,
        window: None,
        chase: None,
        chaunce: None,
        pending: None,
        replaced: false,
        rain: 0,
        soft_going: false,
        last_foot_fired: None,
        winner: None,
        chronicle: Vec::new(),
    })
}

// ------------------------------------------------------------------------------------------------
// Effects: the difference between two states, as absolute values at JSON pointers.

/// Who may see the value at `path`: `None` everyone, `Some(None)` nobody (until the game ends),
/// `Some(Some(side))` that side only.
pub fn secret_path(path: &str) -> Option<Option<usize>> {
    let parts: Vec<&str> = path.split('/').skip(1).collect();
    match parts.as_slice() {
        [] => Some(None),
        ["deck", ..] | ["pack", ..] | ["salt", ..] => Some(None),
        ["sides", i, rest @ ..] => {
            let i: usize = i.parse().ok()?;
            match rest {
                [] => Some(None),
                ["hand", ..] | ["scout", ..] => Some(Some(i)),
                ["track", _, "0", ..] => Some(Some(i)),
                ["track"] => Some(Some(i)),
                _ => None,
            }
        }
        _ => None,
    }
}

// ------------------------------------------------------------------------------------------------
// The result of a resolution: the next state with its explanation.

/// The result of a resolution: the next state with its explanation (shared with Callan).
pub type Res = crate::effects::Res<State>;

type P = Plan<Res>;

fn done(r: Res) -> P {
    Plan::Done(r)
}

/// Battle dice as rolled, each labelled with its symbol: "Label 2 (Flag)", or "Label (Flag)"
/// for a single die.
pub(crate) fn symbol_dice(label: &str, faces: &[u8]) -> Vec<tercio_core::RolledDie> {
    faces
        .iter()
        .enumerate()
        .map(|(i, &f)| tercio_core::RolledDie {
            label: if faces.len() == 1 {
                format!("{label} ({:?})", tables::symbol(f))
            } else {
                format!("{label} {} ({:?})", i + 1, tables::symbol(f))
            },
            sides: 6,
            face: f,
        })
        .collect()
}

// ------------------------------------------------------------------------------------------------
// Decks.

impl State {
    fn reshuffle_commands(&mut self, r: &mut Vec<String>) {
        let mut all = std::mem::take(&mut self.discard);
        all.append(&mut self.deck);
        all.sort_unstable();
        self.shuffles += 1;
        self.deck = shuffled(self.salt, self.shuffles, all);
        r.push(format!(
            "the command deck is reshuffled: {} cards (shuffle {})",
            self.deck.len(),
            self.shuffles
        ));
    }
    /// The top command card, reshuffling the discards when the deck is empty (CCM-end).
    fn draw_command(&mut self, r: &mut Vec<String>) -> Option<u8> {
        if self.deck.is_empty() {
            self.reshuffle_commands(r);
        }
        let c = self.deck.pop();
        self.deck_count = self.deck.len() as u32;
        c
    }
    fn draw_chaunce_card(&mut self, r: &mut Vec<String>) -> Option<u8> {
        if self.pack.is_empty() {
            let mut all = std::mem::take(&mut self.pack_discard);
            all.sort_unstable();
            self.shuffles += 1;
            self.pack = shuffled(self.salt, self.shuffles, all);
            r.push(format!(
                "the Chaunce pack is reshuffled: {} cards (decision 7)",
                self.pack.len()
            ));
        }
        let c = self.pack.pop();
        self.pack_count = self.pack.len() as u32;
        c
    }
    fn sync_counts(&mut self) {
        self.deck_count = self.deck.len() as u32;
        self.pack_count = self.pack.len() as u32;
    }
}

/// The Chaunce card a pack number stands for: the 34 single titles in order, then the False
/// Alarums (decision 1).
pub fn chaunce_of(n: u8) -> &'static ChaunceCard {
    let singles: Vec<&ChaunceCard> = CHAUNCE_CARDS.iter().filter(|c| c.count == 1).collect();
    match singles.get(usize::from(n)) {
        Some(c) => c,
        None => chaunce_card("false-alarum").unwrap_or(&CHAUNCE_CARDS[7]),
    }
}

fn pack_size(cfg: &Cfg) -> u8 {
    let singles = CHAUNCE_CARDS.iter().filter(|c| c.count == 1).count() as u8;
    singles + cfg.false_alarums
}

pub fn card_name(n: u8) -> &'static str {
    command_kind(n).name
}

// ------------------------------------------------------------------------------------------------
// Reading an action.

fn s_field<'a>(a: &'a Value, k: &str) -> Option<&'a str> {
    a.get(k)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

fn need<'a>(a: &'a Value, k: &str) -> Result<&'a str, Rejection> {
    match a.get(k) {
        None | Some(Value::Null) => Err(reject("missing-field", Some(k), format!("{k}: required"))),
        Some(Value::String(s)) if s.trim().is_empty() => {
            Err(reject("missing-field", Some(k), format!("{k}: required")))
        }
        Some(Value::String(s)) => Ok(s.as_str()),
        Some(_) => Err(reject("bad-field", Some(k), format!("{k}: an id as text"))),
    }
}

fn flag(a: &Value, k: &str) -> bool {
    a.get(k).and_then(Value::as_bool).unwrap_or(false)
}

fn num(a: &Value, k: &str, lo: i64, hi: i64) -> Result<Option<i64>, Rejection> {
    let bad = || {
        reject(
            "bad-number",
            Some(k),
            format!("{k}: a whole number from {lo} to {hi}"),
        )
    };
    let n = match a.get(k) {
        None | Some(Value::Null) => return Ok(None),
        // A form's choice arrives as text.
        Some(Value::String(s)) if s.trim().is_empty() => return Ok(None),
        Some(Value::String(s)) => s.trim().parse::<i64>().map_err(|_| bad())?,
        Some(v) => v.as_i64().ok_or_else(bad)?,
    };
    if (lo..=hi).contains(&n) {
        Ok(Some(n))
    } else {
        Err(bad())
    }
}

/// A list of ids: a JSON array of strings or one string separated by commas.
fn list(a: &Value, k: &str) -> Vec<String> {
    match a.get(k) {
        Some(Value::Array(v)) => v
            .iter()
            .filter_map(|x| x.as_str().map(|s| s.trim().to_string()))
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Value::String(s)) => s
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

/// The side an action belongs to (design 13.3): the game master's own steps give `None`.
pub fn acting_side(st: &State, a: &Value) -> Option<usize> {
    match a.get("action").and_then(Value::as_str)? {
        "deal" | "objective" => None,
        "respond" => st.window.as_ref().and_then(|w| target_side(st, &w.target)),
        "dizzy_pick" => Some(1 - st.active),
        _ => Some(st.active),
    }
}

fn target_side(st: &State, id: &str) -> Option<usize> {
    st.unit(id)
        .map(|u| u.side)
        .or_else(|| st.leader(id).map(|l| l.side))
}

/// Every action's plan (design 13.3).
/// The fields each action takes (design 13.3); any other field is refused, so that a misspelt
/// answer is never taken as no answer.
fn fields_of(action: &str) -> Option<&'static [&'static str]> {
    Some(match action {
        "deal" => &["hands", "referee_sees_hands"],
        "draw_chaunce" | "end_turn" => &[],
        "resolve_chaunce" => &["candidates", "target", "room"],
        "swap" | "keep" => &["card"],
        "play" => &["card", "mode"],
        "order" => &["unit", "section", "adjacent_enemy"],
        "rally" | "control" => &["unit"],
        "move" => &["unit", "hexes", "mount", "dismount", "leave_stand", "join"],
        "fire" => &[
            "unit",
            "target",
            "range",
            "terrain",
            "target_room",
            "target_ignores",
            "adjacent_enemy",
        ],
        "melee" => &[
            "unit",
            "target",
            "terrain",
            "battle_back_terrain",
            "target_room",
            "attacker_room",
            "target_ignores",
        ],
        "respond" => &["response"],
        "stop" => &["no_target"],
        "dizzy_pick" => &["position"],
        "objective" => &["side", "banners", "hex"],
        _ => return None,
    })
}

pub fn plan(st: &State, a: &Value) -> Result<P, Rejection> {
    let action = need(a, "action")?;
    if let (Some(allowed), Some(obj)) = (fields_of(action), a.as_object()) {
        if let Some(k) = obj
            .keys()
            .find(|k| *k != "action" && !allowed.contains(&k.as_str()))
        {
            return Err(reject(
                "unknown-field",
                Some(k),
                format!(
                    "{k}: not a field of {action}; allowed: {}",
                    if allowed.is_empty() {
                        "none".to_string()
                    } else {
                        allowed.join(", ")
                    }
                ),
            ));
        }
    }
    if st.phase == Phase::Over && action != "objective" {
        return Err(reject(
            "game-over",
            Some("action"),
            format!("the battle is over: {}", verdict(st)),
        ));
    }
    if st.phase == Phase::Deal && action != "deal" {
        return Err(reject(
            "not-dealt",
            Some("action"),
            "the cards are not dealt yet: the game master's first action is `deal`",
        ));
    }
    let phase_is = |ps: &[Phase], what: &str| -> Result<(), Rejection> {
        if ps.contains(&st.phase) {
            Ok(())
        } else {
            Err(reject(
                "out-of-phase",
                Some("action"),
                format!("{what} is not possible now: {}", waiting_for(st)),
            ))
        }
    };
    match action {
        "deal" => {
            phase_is(&[Phase::Deal], "dealing")?;
            deal(st, a)
        }
        "draw_chaunce" => {
            phase_is(&[Phase::Chaunce], "drawing a Chaunce card")?;
            draw_chaunce(st)
        }
        "resolve_chaunce" => {
            phase_is(&[Phase::ChaunceResolve], "resolving a Chaunce card")?;
            resolve_chaunce(st, a)
        }
        "swap" => {
            phase_is(&[Phase::Swap], "the swap of one command card")?;
            swap(st, a)
        }
        "play" => {
            phase_is(&[Phase::Command], "playing a command card")?;
            play(st, a)
        }
        "order" => {
            phase_is(&[Phase::Orders], "ordering")?;
            order(st, a)
        }
        "rally" => {
            phase_is(&[Phase::Orders], "rallying")?;
            rally(st, a)
        }
        "move" => {
            phase_is(&[Phase::Orders], "moving")?;
            move_unit(st, a)
        }
        "fire" => {
            phase_is(&[Phase::Orders], "ranged combat")?;
            fire(st, a)
        }
        "melee" => {
            phase_is(&[Phase::Orders], "a melee")?;
            melee(st, a)
        }
        "respond" => {
            phase_is(&[Phase::Window], "a response")?;
            respond(st, a)
        }
        "control" => {
            phase_is(&[Phase::Orders], "a control roll")?;
            control(st, a)
        }
        "stop" => {
            phase_is(&[Phase::Orders], "stopping a breakthrough")?;
            stop(st, a)
        }
        "end_turn" => {
            phase_is(&[Phase::Orders, Phase::Command], "ending the turn")?;
            end_turn_action(st)
        }
        "keep" => {
            phase_is(&[Phase::Scout], "keeping a scouted card")?;
            keep(st, a)
        }
        "dizzy_pick" => {
            phase_is(&[Phase::Dizziness], "picking a card")?;
            dizzy_pick(st, a)
        }
        "objective" => objective(st, a),
        other => Err(reject(
            "unknown-action",
            Some("action"),
            format!(
                "unknown action \"{other}\"; allowed: deal, draw_chaunce, resolve_chaunce, swap, play, order, rally, move, fire, melee, respond, control, stop, end_turn, keep, dizzy_pick, objective"
            ),
        )),
    }
}

/// What the game waits for, in a sentence.
pub fn waiting_for(st: &State) -> String {
    let a = st.side_name(st.active);
    match st.phase {
        Phase::Deal => "the game master deals the cards (`deal`)".into(),
        Phase::Chaunce => {
            format!("{a} must take the Chaunce card presented to them (`draw_chaunce`)")
        }
        Phase::ChaunceResolve => format!(
            "{a} resolve the Chaunce card {} (`resolve_chaunce`)",
            st.chaunce.map_or("", |c| chaunce_of(c).name)
        ),
        Phase::Swap => format!("{a} may discard one command card and draw another (`swap`)"),
        Phase::Command => format!("{a} play a command card (`play`)"),
        Phase::Orders => {
            if let Some(c) = st.chase.as_ref().filter(|c| c.compelled) {
                format!(
                    "{a}: the rash {} must break through and make a bonus melee if it can (`melee`), roll for control (`control`) or, with no enemy in reach, stop (`stop`)",
                    st.unit(&c.unit).map_or("", |u| u.name.as_str())
                )
            } else {
                format!("{a} order, move and battle with the card in play, then end the turn (`end_turn`)")
            }
        }
        Phase::Window => {
            let d = st
                .window
                .as_ref()
                .and_then(|w| target_side(st, &w.target))
                .map_or(String::new(), |s| st.side_name(s));
            format!("{d} answer the melee announced against them (`respond`)")
        }
        Phase::Scout => format!("{a} keep one of the two scouted cards (`keep`)"),
        Phase::Dizziness => format!(
            "{} pick one of {a}'s cards, unseen (`dizzy_pick`)",
            st.side_name(1 - st.active)
        ),
        Phase::Over => verdict(st),
    }
}

pub fn verdict(st: &State) -> String {
    match st.winner {
        Some(w) => format!(
            "{} win with {} of {} victory banners ({} has {})",
            st.side_name(w),
            st.sides[w].banners,
            st.sides[w].banners_to_win,
            st.side_name(1 - w),
            st.sides[1 - w].banners
        ),
        None => "the battle is over".into(),
    }
}

// ------------------------------------------------------------------------------------------------
// The deal, the turn and the draw.

fn deal(st: &State, a: &Value) -> Result<P, Rejection> {
    let mode = s_field(a, "hands").unwrap_or("per-seat");
    let single = match mode {
        "per-seat" => false,
        "single-device" => true,
        _ => {
            return Err(reject(
                "bad-choice",
                Some("hands"),
                "hands: per-seat (each player on their own link) or single-device (one device, hands behind a tap)",
            ))
        }
    };
    let referee = flag(a, "referee_sees_hands");
    let st = st.clone();
    // The shuffle key: eight dice of 255 faces from the seeded stream.
    Ok(
        throw(8, 255, "Shuffle key", Depends::Nothing).map(move |faces| {
            let mut r = Res::new(&st);
            let salt = faces
                .iter()
                .fold(0u64, |k, &f| k.wrapping_mul(257).wrapping_add(u64::from(f)));
            let s = &mut r.st;
            s.settings = Settings {
                single_device: single,
                referee_sees_hands: referee,
            };
            s.salt = salt;
            s.deck = shuffled(salt, 0, (0..tables::command_deck_size()).collect());
            if s.cfg.chaunce {
                s.pack = shuffled(salt, 1, (0..pack_size(&s.cfg)).collect());
            }
            s.shuffles = 1;
            let mut notes = Vec::new();
            for i in 0..s.sides.len() {
                for _ in 0..s.sides[i].hand_limit {
                    if let Some(c) = s.draw_command(&mut notes) {
                        s.sides[i].hand.push(c);
                    }
                }
            }
            s.sync_counts();
            s.turn = 1;
            s.active = 0;
            start_turn(s);
            let hands: Vec<String> = s
                .sides
                .iter()
                .map(|x| format!("{} {} cards", x.name, x.hand.len()))
                .collect();
            r.step(
                "The deal [design 4.3]",
                format!(
                    "the command deck (72) and the Chaunce pack ({}) are shuffled; dealt: {}",
                    r.st.pack.len(),
                    hands.join(", ")
                ),
            );
            r.say(format!(
                "cards dealt ({}); {} play first",
                if single {
                    "one device: hands behind a tap"
                } else {
                    "each side on its own link"
                },
                r.st.side_name(0)
            ));
            r
        }),
    )
}

/// A player-turn begins: the turn's marks are cleared, and a presented Chaunce card comes first.
fn start_turn(s: &mut State) {
    for u in &mut s.units {
        u.ordered = false;
        u.moved = 0;
        u.moves = 0;
        u.fired = false;
        u.meleed = 0;
        u.card_bonus = 0;
        u.push = false;
        u.bombard = None;
        u.moved_after_fire = false;
    }
    for l in &mut s.leaders {
        l.ordered = false;
    }
    s.card = None;
    s.window = None;
    s.chase = None;
    s.chaunce = None;
    s.pending = None;
    s.replaced = false;
    s.phase = if s.sides[s.active].chaunce_due > 0 {
        Phase::Chaunce
    } else {
        Phase::Command
    };
}

/// Draw command cards for `side` until its hand and track hold its limit.
fn refill(s: &mut State, side: usize, notes: &mut Vec<String>) -> u32 {
    let mut n = 0;
    while (s.sides[side].hand.len() + s.sides[side].track.len()) < s.sides[side].hand_limit as usize
    {
        match s.draw_command(notes) {
            Some(c) => {
                s.sides[side].hand.push(c);
                n += 1;
            }
            None => break,
        }
    }
    n
}

fn end_turn_action(st: &State) -> Result<P, Rejection> {
    if let Some(c) = st.chase.as_ref().filter(|c| c.compelled) {
        return Err(reject(
            "rash-compelled",
            None,
            format!(
                "the rash {} is out of control: it must break through and make its bonus melee if it can (004, Horse); `stop` with no_target if no enemy is in reach, or roll for control",
                st.unit(&c.unit).map_or("unit", |u| u.name.as_str())
            ),
        ));
    }
    if st.phase == Phase::Command && !st.sides[st.active].hand.is_empty() {
        return Err(reject(
            "play-a-card",
            Some("action"),
            "a turn begins by playing a command card (or presenting Hazzard a Chaunce)",
        ));
    }
    let mut r = Res::new(st);
    if st.chase.as_ref().is_some_and(|c| c.chaunce) {
        // After a Chaunce charge no card was played: the turn is the card's.
        r.st.chase = None;
        chaunce_turn_over(&mut r, true);
        return Ok(done(r));
    }
    finish_turn(&mut r, true);
    Ok(done(r))
}

/// The draw phase and the hand-over to the other side (design 3, step 5).
fn finish_turn(r: &mut Res, draw: bool) {
    let s = &mut r.st;
    let a = s.active;
    let o = 1 - a;
    let mut notes = Vec::new();
    if draw {
        // A defender who played Evade draws first (004, Evade).
        if s.sides[o].evade_draw > 0 {
            let n = refill(s, o, &mut notes);
            notes.push(format!("{} draw {n} card(s) first (Evade)", s.side_name(o)));
        }
        let scout = s.card.as_ref().is_some_and(|c| c.scout);
        if scout {
            let mut pair = Vec::new();
            for _ in 0..2 {
                if let Some(c) = s.draw_command(&mut notes) {
                    pair.push(c);
                }
            }
            s.sides[a].scout = pair;
            notes.push(format!(
                "{} draw two cards and keep one (Scout)",
                s.side_name(a)
            ));
        } else {
            let n = refill(s, a, &mut notes);
            notes.push(format!("{} draw {n} card(s)", s.side_name(a)));
        }
    }
    for side in &mut s.sides {
        side.evade_draw = 0;
    }
    if let Some(c) = s.card.take() {
        s.sides[a].last_card = Some(c.effective.clone());
    }
    s.sync_counts();
    if !s.sides[a].scout.is_empty() {
        s.phase = Phase::Scout;
        r.step("Draw [CCN sequence of play, draw phase]", notes.join("; "));
        r.say(notes.join("; "));
        return;
    }
    hand_over(r, notes);
}

fn hand_over(r: &mut Res, mut notes: Vec<String>) {
    let s = &mut r.st;
    let a = s.active;
    for u in s.units.iter_mut().filter(|u| u.side == a) {
        u.no_move_turns = u.no_move_turns.saturating_sub(1);
        u.no_fire_turns = u.no_fire_turns.saturating_sub(1);
    }
    if s.rain > 0 {
        s.rain -= 1;
        if s.rain == 0 {
            notes.push("St. Swithun's rain has passed: ranged combat is possible again".into());
        }
    }
    s.active = 1 - a;
    s.turn += 1;
    start_turn(s);
    notes.push(format!(
        "turn {}: {} to play{}",
        s.turn,
        s.side_name(s.active),
        if s.phase == Phase::Chaunce {
            " (a Chaunce card first)"
        } else {
            ""
        }
    ));
    r.step("End of turn [CCN sequence of play]", notes.join("; "));
    r.say(notes.join("; "));
}

fn keep(st: &State, a: &Value) -> Result<P, Rejection> {
    let id = need(a, "card")?;
    let side = &st.sides[st.active];
    let Some(pos) = side.scout.iter().position(|&c| command_kind(c).id == id) else {
        return Err(reject(
            "not-scouted",
            Some("card"),
            format!(
                "card: keep one of the two scouted cards: {}",
                side.scout
                    .iter()
                    .map(|&c| command_kind(c).id)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    };
    let mut r = Res::new(st);
    let s = &mut r.st;
    let pair = std::mem::take(&mut s.sides[s.active].scout);
    let mut dropped = "";
    for (i, c) in pair.into_iter().enumerate() {
        if i == pos {
            s.sides[s.active].hand.push(c);
        } else {
            dropped = command_kind(c).name;
            s.discard.push(c);
        }
    }
    let msg = format!(
        "{} keep one scouted card and discard {dropped} face up (decision 10)",
        s.side_name(s.active)
    );
    hand_over(&mut r, vec![msg]);
    Ok(done(r))
}

fn objective(st: &State, a: &Value) -> Result<P, Rejection> {
    let side = need(a, "side")?;
    let Some(i) = st.sides.iter().position(|s| s.id == side) else {
        return Err(reject(
            "no-such-side",
            Some("side"),
            format!(
                "side: allowed: {}",
                st.sides
                    .iter()
                    .map(|s| s.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    };
    let change = num(a, "banners", -3, 3)?.unwrap_or(1);
    if change == 0 {
        return Err(reject(
            "bad-number",
            Some("banners"),
            "banners: +1 gained or -1 lost (not 0)",
        ));
    }
    let hex = s_field(a, "hex").unwrap_or("an objective");
    let mut r = Res::new(st);
    let b = &mut r.st.sides[i].banners;
    *b = u32::try_from(i64::from(*b) + change).unwrap_or(0);
    let msg = format!(
        "{} {} {} banner(s) for {hex} (scenario objective, design 8)",
        r.st.side_name(i),
        if change > 0 { "gain" } else { "lose" },
        change.abs()
    );
    r.st.chronicle.push(msg.clone());
    r.say(msg.clone());
    r.step("Objective [CCN object of the game; design 8]", msg);
    check_victory(&mut r);
    Ok(done(r))
}

/// A side gains a banner for an enemy unit or leader lost (design 8).
fn banner(r: &mut Res, to: usize, why: String) {
    r.st.sides[to].banners += 1;
    let msg = format!(
        "{} gain a victory banner ({}/{}): {why}",
        r.st.side_name(to),
        r.st.sides[to].banners,
        r.st.sides[to].banners_to_win
    );
    r.st.chronicle.push(msg.clone());
    r.say(msg);
}

fn check_victory(r: &mut Res) {
    if r.st.phase == Phase::Over {
        return;
    }
    let a = r.st.active;
    for i in [a, 1 - a] {
        if r.st.sides[i].banners >= r.st.sides[i].banners_to_win {
            r.st.winner = Some(i);
            r.st.phase = Phase::Over;
            r.st.window = None;
            r.st.chase = None;
            let v = verdict(&r.st);
            r.say(format!("Victory: {v}"));
            r.step("Victory [CCN object of the game: 'Victory is achieved the instant the last Victory Banner required is gained']", v);
            return;
        }
    }
}

/// Remove blocks from a unit; at none it is eliminated, its Stand of Pikes card returns, and the
/// enemy gains a banner.
fn lose_blocks(r: &mut Res, unit: &str, n: u32, cause: &str) -> bool {
    let Some(u) = r.st.unit_mut(unit) else {
        return false;
    };
    let n = n.min(u32::from(u.blocks)) as u8;
    u.blocks -= n;
    if u.blocks > 0 || u.gone.is_some() {
        return false;
    }
    u.gone = Some(cause.to_string());
    let (side, name) = (u.side, u.name.clone());
    leave_stand(&mut r.st, unit);
    if r.st.chase.as_ref().is_some_and(|c| c.unit == unit) {
        r.st.chase = None;
    }
    // A leader outlives his unit, alone (a combat's casualty check may still take him).
    for l in r.st.leaders.iter_mut() {
        if l.unit.as_deref() == Some(unit) {
            l.unit = None;
        }
    }
    banner(r, 1 - side, format!("{name} eliminated ({cause})"));
    true
}

/// A unit leaves its Stand of Pikes: its card returns to the hand (CCN-rem).
fn leave_stand(s: &mut State, unit: &str) {
    let Some(u) = s.unit_mut(unit) else { return };
    if !u.stand {
        return;
    }
    u.stand = false;
    let side = u.side;
    if let Some(p) = s.sides[side].track.iter().position(|(_, x)| x == unit) {
        let (c, _) = s.sides[side].track.remove(p);
        s.sides[side].hand.push(c);
    }
}

fn lose_leader(r: &mut Res, leader: &str, cause: &str) {
    let Some(l) = r.st.leader_mut(leader) else {
        return;
    };
    if l.gone.is_some() {
        return;
    }
    l.gone = Some(cause.to_string());
    l.unit = None;
    let (side, name) = (l.side, l.name.clone());
    banner(r, 1 - side, format!("{name} lost ({cause})"));
}

// ------------------------------------------------------------------------------------------------
// Playing a card and ordering (design 3 steps 1-2, 4.1-4.2).

/// The card ids the fallback "order 1 unit of your choice" stands for.
const ANY_ONE: &str = "any-1";

fn is_horse(u: &UnitState) -> bool {
    u.class.horse()
}

fn is_mounted(u: &UnitState) -> bool {
    u.class.horse() || (u.class == Class::Dragoons && u.mounted)
}

/// The effective card and its limits when `side` plays kind `kind` (Counter-Attack copies,
/// fallbacks when nothing of the type is on the table).
/// The effective card: its id, its section limits, whether they are shared, and whether it
/// scouts.
type Effective = (String, Option<[Option<u32>; 3]>, bool, bool);

fn effective(st: &State, side: usize, kind: &CommandCard) -> Result<Effective, Rejection> {
    let mut k = kind;
    let mut mirror = false;
    if k.id == "counter-attack" {
        let last = st.sides[1 - side].last_card.clone();
        match last.as_deref().and_then(command_card) {
            Some(c) if !matches!(c.id, "evade" | "hazzard-a-chaunce" | "counter-attack") => {
                k = c;
                mirror = true;
            }
            _ => {
                if !st.cfg.counter_attack_fallback {
                    return Err(reject(
                        "nothing-to-copy",
                        Some("card"),
                        "card: Counter-Attack has nothing to copy (house rule ecw.counter_attack_fallback = 0)",
                    ));
                }
                return Ok((ANY_ONE.into(), None, false, false));
            }
        }
    }
    let command = st.command(side);
    if let Some(secs) = k.sections {
        let mut lim = [None; 3];
        for (i, c) in secs.iter().enumerate() {
            let to = if mirror { 2 - i } else { i };
            lim[to] = c.map(|c| match c {
                Count::Fixed(n) => u32::from(n),
                Count::Command => command,
            });
        }
        return Ok((k.id.into(), Some(lim), k.shared, k.scout));
    }
    let live: Vec<&UnitState> = st.live_units(side).collect();
    let has = |f: &dyn Fn(&UnitState) -> bool| live.iter().any(|u| f(u));
    let fallback = match k.id {
        "bold-dragooneers" => !has(&|u| u.class == Class::Dragoons),
        "bombard" => !has(&|u| u.class == Class::Artillery),
        "charge-of-horse" => !has(&|u| is_horse(u)),
        "fire-and-hold" => !has(&|u| matches!(u.class, Class::Foot | Class::Artillery)),
        "leadership" => !st
            .leaders
            .iter()
            .any(|l| l.side == side && l.gone.is_none()),
        _ => false,
    };
    if fallback {
        return Ok((ANY_ONE.into(), None, false, false));
    }
    Ok((k.id.into(), None, false, false))
}

fn play(st: &State, a: &Value) -> Result<P, Rejection> {
    let id = need(a, "card")?;
    let side = st.active;
    let Some(kind) = command_card(id) else {
        return Err(reject(
            "unknown-card",
            Some("card"),
            format!("card: unknown command card \"{id}\""),
        ));
    };
    let Some(pos) = st.sides[side]
        .hand
        .iter()
        .position(|&c| command_kind(c).id == id)
    else {
        return Err(reject(
            "not-in-hand",
            Some("card"),
            format!("card: {} is not in your hand", kind.name),
        ));
    };
    if id == "evade" {
        return Err(reject(
            "evade-is-a-response",
            Some("card"),
            "card: Evade is played by the defender after a melee is announced against it (004, Tactic Cards)",
        ));
    }
    let mode = s_field(a, "mode").unwrap_or(if id == "hazzard-a-chaunce" {
        ""
    } else {
        "order"
    });
    let present = id == "hazzard-a-chaunce" && mode == "present";
    if id != "hazzard-a-chaunce" && mode == "present" {
        return Err(reject(
            "bad-choice",
            Some("mode"),
            "mode: only Hazzard a Chaunce is presented to the opponent",
        ));
    }
    if id == "hazzard-a-chaunce" && !matches!(mode, "present" | "order") {
        return Err(reject(
            "bad-choice",
            Some("mode"),
            "mode: present (the opponent takes a Chaunce card; your turn ends) or order (1 unit or leader)",
        ));
    }
    if present && !st.cfg.chaunce {
        return Err(reject(
            "no-chaunce",
            Some("mode"),
            "mode: the scenario plays without the Chaunce pack (ecw.chaunce = 0): Hazzard a Chaunce orders 1 unit",
        ));
    }
    let (eff, limits, shared, scout) = if id == "hazzard-a-chaunce" {
        (ANY_ONE.to_string(), None, false, false)
    } else {
        effective(st, side, kind)?
    };
    let mut r = Res::new(st);
    let card = r.st.sides[side].hand.remove(pos);
    r.st.discard.push(card);
    let name = kind.name;
    if present {
        r.st.sides[1 - side].chaunce_due += 1;
        r.st.card = Some(Played {
            card,
            effective: "hazzard-a-chaunce".into(),
            limits: None,
            shared: false,
            scout: false,
            orders: Vec::new(),
            pool: None,
            rally: None,
            march: None,
            combat: false,
            moving: false,
        });
        let msg = format!(
            "{} present Hazzard a Chaunce: {} must take a Chaunce card at the start of their turn; the turn ends (004, Tactic Cards; decision 2)",
            r.st.side_name(side),
            r.st.side_name(1 - side)
        );
        r.step(format!("{name} [004, Tactic Cards]"), msg.clone());
        r.say(msg);
        finish_turn(&mut r, true);
        return Ok(done(r));
    }
    let copy = if kind.id == "counter-attack" {
        format!(
            " — a copy of {}{}",
            command_card(&eff).map_or("1 unit or leader of your choice", |c| c.name),
            if limits.is_some() {
                ", flanks swapped"
            } else {
                ""
            }
        )
    } else {
        String::new()
    };
    r.st.card = Some(Played {
        card,
        effective: eff.clone(),
        limits,
        shared,
        scout,
        orders: Vec::new(),
        pool: None,
        rally: None,
        march: None,
        combat: false,
        moving: false,
    });
    r.st.phase = Phase::Orders;
    let side_name = r.st.side_name(side);
    let what = describe_orders(&r.st);
    r.step(
        format!("{name}{copy} [004, COMMAND CARDS]"),
        format!("{side_name} play {name}{copy}: {what}"),
    );
    r.say(format!("{side_name} play {name}{copy}: {what}"));
    // Cards that roll when played.
    match eff.as_str() {
        "rallye" | "lord-is-with-us" => {
            let n = st.command(side);
            let lord = eff == "lord-is-with-us";
            let classes = FaceClasses::of(&[0, 0, 1, 2, 3, 4]);
            Ok(throw(n as usize, 6, "Battle die", Depends::Classes(classes)).map(move |faces| {
                let mut r = r.clone();
                let count = |k: u8| faces.iter().filter(|&&f| classes.class(f) == k).count() as u32;
                let (f, h, ar, fl) = (count(0), count(1), count(2), count(4));
                let dice = symbol_dice("Battle die", &faces);
                let mut step = Step {
                    title: format!("{} dice equal to command ({n}) [004, Tactic Cards]", if lord { "The Lord Is With Us:" } else { "Rallye:" }),
                    dice,
                    modifiers: Vec::new(),
                    totals: vec![("foot".into(), f as i32), ("horse".into(), h as i32), ("artillery".into(), ar as i32), ("flags".into(), fl as i32)],
                    result: String::new(),
                };
                if let Some(c) = r.st.card.as_mut() {
                    if lord {
                        c.pool = Some([f, h, ar, fl]);
                        step.result = format!("orders: {f} foot, {h} horse, {ar} artillery, {fl} of your choice; sabres order nothing; ordered units battle with 1 additional die all turn");
                    } else {
                        c.rally = Some([f, h, ar]);
                        step.result = format!("blocks to return: {f} foot, {h} horse, {ar} artillery (`rally` one block at a time)");
                    }
                }
                r.facets.push(("foot".into(), f.to_string()));
                r.facets.push(("horse".into(), h.to_string()));
                r.facets.push(("artillery".into(), ar.to_string()));
                r.say(step.result.clone());
                r.steps.push(step);
                if lord {
                    // "Reshuffle the Command card deck and discard pile" (decision 11).
                    let mut notes = Vec::new();
                    r.st.reshuffle_commands(&mut notes);
                    r.say(notes.join("; "));
                }
                if can_order_none(&r.st) {
                    let m = "the card can order no unit: straight to the draw (CCS-play; decision 49)".to_string();
                    r.say(m);
                    finish_turn(&mut r, true);
                }
                r
            }))
        }
        _ => {
            if can_order_none(&r.st) {
                r.say("the card can order no unit: straight to the draw (CCS-play; decision 49)");
                finish_turn(&mut r, true);
            }
            Ok(done(r))
        }
    }
}

/// What the card in play orders, in words.
fn describe_orders(st: &State) -> String {
    let Some(c) = &st.card else {
        return String::new();
    };
    if let Some(l) = c.limits {
        let parts: Vec<String> = Section::ALL
            .iter()
            .zip(l)
            .filter_map(|(s, n)| n.map(|n| format!("{n} {}", s.name())))
            .collect();
        return format!(
            "orders {}{}",
            if c.shared {
                format!(
                    "{} in all, {}",
                    l.iter().flatten().max().unwrap_or(&0),
                    parts
                        .iter()
                        .map(|p| p.split(' ').nth(1).unwrap_or(""))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )
            } else {
                parts.join(", ")
            },
            if c.scout {
                "; draw two and keep one at the end of the turn"
            } else {
                ""
            }
        );
    }
    match c.effective.as_str() {
        ANY_ONE => "orders 1 unit or leader of your choice".into(),
        "bold-dragooneers" => "orders 1 unit of dragoons: a further move after firing".into(),
        "bombard" => "orders up to 4 artillery: move up to 2 and not battle, or fire with 1 additional die".into(),
        "charge-of-horse" => "orders up to 4 horse (not dragoons): 1 additional die all turn; cuirassiers and trotters may move 3 and battle".into(),
        "fire-and-hold" => "orders up to 4 foot or artillery not adjacent to the enemy: ranged combat with 1 additional die, no move".into(),
        "leadership" => "orders every leader, and the unit each is attached to: 1 additional die".into(),
        "march-to-victorye" => "orders all the units and leaders of one section: a normal move, no contact, no combat".into(),
        "push" => "orders every unit adjacent to the enemy: melee with 1 additional die, no fire, no move before the melee".into(),
        "rallye" => "blocks return to under-strength units by symbol".into(),
        "lord-is-with-us" => "units ordered by symbol; 1 additional die all turn".into(),
        _ => String::new(),
    }
}

/// Nothing the card could order is on the table.
fn can_order_none(st: &State) -> bool {
    let Some(c) = &st.card else { return true };
    let side = st.active;
    let units: Vec<&UnitState> = st.live_units(side).collect();
    if let Some(l) = c.limits {
        let leaders_in = |sec: Section| {
            st.leaders.iter().any(|x| {
                x.side == side
                    && x.gone.is_none()
                    && x.unit
                        .as_deref()
                        .and_then(|u| st.unit(u))
                        .is_some_and(|u| u.section == sec)
            })
        };
        return !Section::ALL.iter().zip(l).any(|(s, n)| {
            n.is_some_and(|n| n > 0) && (units.iter().any(|u| u.section == *s) || leaders_in(*s))
        });
    }
    if let Some([f, h, a, fl]) = c.pool {
        if fl > 0 {
            return units.is_empty();
        }
        let any = |k: u32, p: &dyn Fn(&UnitState) -> bool| k > 0 && units.iter().any(|u| p(u));
        return !(any(f, &|u| matches!(u.class, Class::Foot | Class::Clubmen))
            || any(h, &|u| u.class.horse() || u.class == Class::Dragoons)
            || any(a, &|u| u.class == Class::Artillery));
    }
    if let Some([f, h, a]) = c.rally {
        let under = |p: &dyn Fn(&UnitState) -> bool| {
            units.iter().any(|u| p(u) && u.blocks < u.start_blocks)
        };
        return !((f > 0 && under(&|u| matches!(u.class, Class::Foot | Class::Clubmen)))
            || (h > 0 && under(&|u| u.class.horse() || u.class == Class::Dragoons))
            || (a > 0 && under(&|u| u.class == Class::Artillery)));
    }
    units.is_empty()
        && !st
            .leaders
            .iter()
            .any(|l| l.side == side && l.gone.is_none())
}

/// The symbol type a unit counts as for Rallye and The Lord Is With Us: 0 foot, 1 horse, 2
/// artillery (decision 31).
fn type_of(u: &UnitState) -> usize {
    match u.class {
        Class::Foot | Class::Clubmen => 0,
        Class::Artillery => 2,
        _ => 1,
    }
}

fn order(st: &State, a: &Value) -> Result<P, Rejection> {
    let id = need(a, "unit")?;
    let side = st.active;
    let c = st
        .card
        .as_ref()
        .ok_or_else(|| reject("no-card", None, "no card in play"))?;
    if c.moving || c.combat {
        return Err(reject(
            "orders-closed",
            Some("unit"),
            "unit: orders are given before any move or battle (CCN sequence of play: order, move, combat)",
        ));
    }
    let section = match s_field(a, "section") {
        Some(x) => Some(Section::parse(x).ok_or_else(|| {
            reject(
                "bad-choice",
                Some("section"),
                "section: left, centre or right",
            )
        })?),
        None => None,
    };
    let leader = st.leader(id);
    let unit = st.unit(id);
    if leader.is_none() && unit.is_none() {
        return Err(reject(
            "no-such-unit",
            Some("unit"),
            format!("unit: no unit or leader \"{id}\""),
        ));
    }
    let (owner, gone, ordered) = match (unit, leader) {
        (Some(u), _) => (u.side, u.gone.is_some() || u.spare, u.ordered),
        (_, Some(l)) => (l.side, l.gone.is_some(), l.ordered),
        _ => unreachable_side(),
    };
    if owner != side {
        return Err(reject(
            "not-yours",
            Some("unit"),
            format!("unit: {id} belongs to {}", st.side_name(owner)),
        ));
    }
    if gone {
        return Err(reject(
            "not-on-table",
            Some("unit"),
            format!("unit: {id} is not on the table"),
        ));
    }
    if ordered {
        return Err(reject(
            "already-ordered",
            Some("unit"),
            format!("unit: {id} is already ordered this turn (one order each, CCN)"),
        ));
    }
    if let Some(u) = unit {
        if u.no_orders_until_leader && st.leader_of(&u.id).is_none() {
            return Err(reject("coronels-trubble", Some("unit"), format!("unit: {} takes no orders until a leader is attached (The Coronel's Trubble Again)", u.name)));
        }
    }
    // The section it is counted in: given, or the unit's (a leader's: its unit's).
    let home = unit.map(|u| u.section).or_else(|| {
        leader
            .and_then(|l| l.unit.as_deref())
            .and_then(|u| st.unit(u))
            .map(|u| u.section)
    });
    let sec = section.or(home);
    let eff = c.effective.as_str();
    let count = c.orders.len() as u32;
    let mut card_bonus = 0;
    let mut push = false;
    let mut pool_use: Option<usize> = None;
    let mut march: Option<Section> = c.march;
    let too_many = |n: u32, what: &str| -> Result<(), Rejection> {
        if count >= n {
            Err(reject(
                "card-limit",
                Some("unit"),
                format!("unit: the card orders {what}; {count} already ordered"),
            ))
        } else {
            Ok(())
        }
    };
    let is_unit = |p: &dyn Fn(&UnitState) -> bool, what: &str| -> Result<(), Rejection> {
        match unit {
            Some(u) if p(u) => Ok(()),
            _ => Err(reject(
                "card-type",
                Some("unit"),
                format!("unit: the card orders {what} only"),
            )),
        }
    };
    if let Some(l) = c.limits {
        let Some(s) = sec else {
            return Err(reject(
                "section-needed",
                Some("section"),
                "section: a lone leader's section (left, centre or right)",
            ));
        };
        let n = l[s as usize].ok_or_else(|| {
            reject(
                "wrong-section",
                Some("section"),
                format!(
                    "section: the card orders no unit in the {} section",
                    s.name()
                ),
            )
        })?;
        let used = c
            .orders
            .iter()
            .filter(|(_, x)| c.shared || *x == Some(s))
            .count() as u32;
        if used >= n {
            return Err(reject(
                "card-limit",
                Some("unit"),
                format!(
                    "unit: the card orders {n} in the {}{}; {used} already ordered",
                    s.name(),
                    if c.shared {
                        " and the other section it names"
                    } else {
                        ""
                    }
                ),
            ));
        }
    } else {
        match eff {
            ANY_ONE | "hazzard-a-chaunce" => too_many(1, "1 unit or leader")?,
            "bold-dragooneers" => {
                too_many(1, "1 unit of dragoons")?;
                is_unit(&|u| u.class == Class::Dragoons, "dragoons")?;
            }
            "bombard" => {
                too_many(4, "4 or fewer artillery units")?;
                is_unit(&|u| u.class == Class::Artillery, "artillery")?;
            }
            "charge-of-horse" => {
                too_many(4, "4 or fewer units of horse")?;
                is_unit(&is_horse, "horse (not dragoons)")?;
                card_bonus = 1;
            }
            "fire-and-hold" => {
                too_many(4, "4 or fewer foot or artillery units")?;
                is_unit(
                    &|u| matches!(u.class, Class::Foot | Class::Artillery),
                    "foot or artillery",
                )?;
                if flag(a, "adjacent_enemy") {
                    return Err(reject("adjacent", Some("adjacent_enemy"), "adjacent_enemy: Fire and Hold orders units not adjacent to enemy troops (004)"));
                }
            }
            "leadership" => {
                if leader.is_none() {
                    return Err(reject("card-type", Some("unit"), "unit: Leadership orders leaders; a unit is ordered with its attached leader"));
                }
                card_bonus = 1;
            }
            "march-to-victorye" => {
                let Some(s) = sec else {
                    return Err(reject(
                        "section-needed",
                        Some("section"),
                        "section: the section marching",
                    ));
                };
                if let Some(m) = march {
                    if m != s {
                        return Err(reject(
                            "wrong-section",
                            Some("section"),
                            format!(
                                "section: March to Victorye orders the {} section only",
                                m.name()
                            ),
                        ));
                    }
                }
                march = Some(s);
            }
            "push" => {
                is_unit(&|_| true, "units")?;
                if !flag(a, "adjacent_enemy") {
                    return Err(reject("not-adjacent", Some("adjacent_enemy"), "adjacent_enemy: Push! orders units adjacent to the enemy; tick it if this unit is"));
                }
                push = true;
            }
            "rallye" => {
                return Err(reject(
                    "rallye",
                    Some("unit"),
                    "unit: Rallye orders the units that gain a block (`rally`)",
                ));
            }
            "lord-is-with-us" => {
                let pool = c.pool.unwrap_or_default();
                let t = unit.map(type_of);
                pool_use = match t {
                    Some(t) if pool[t] > 0 => Some(t),
                    _ if pool[3] > 0 => Some(3),
                    _ => {
                        return Err(reject("card-limit", Some("unit"), format!("unit: no symbol left for it (foot {}, horse {}, artillery {}, flags {})", pool[0], pool[1], pool[2], pool[3])));
                    }
                };
                card_bonus = 1;
            }
            _ => too_many(1, "1 unit")?,
        }
    }
    let mut r = Res::new(st);
    let s = &mut r.st;
    let mut named = Vec::new();
    if let Some(u) = s.unit_mut(id) {
        u.ordered = true;
        u.card_bonus = card_bonus;
        u.push = push;
        if let Some(x) = section {
            u.section = x;
        }
        named.push(u.name.clone());
    }
    if let Some(l) = s.leader_mut(id) {
        l.ordered = true;
        named.push(l.name.clone());
        // Leadership: the leader's unit is ordered with him (004, Tactic Cards).
        if eff == "leadership" {
            if let Some(uid) = l.unit.clone() {
                if let Some(u) = s.unit_mut(&uid) {
                    u.ordered = true;
                    u.card_bonus = 1;
                    named.push(u.name.clone());
                }
            }
        }
    }
    if let Some(c) = s.card.as_mut() {
        c.orders.push((id.to_string(), sec));
        c.march = march;
        if let (Some(t), Some(p)) = (pool_use, c.pool.as_mut()) {
            p[t] -= 1;
        }
    }
    let msg = format!(
        "ordered: {}{}",
        named.join(" with "),
        sec.map_or(String::new(), |x| format!(" ({})", x.name()))
    );
    r.step("Order [design 3, step 2]", msg.clone());
    r.say(msg);
    Ok(done(r))
}

fn unreachable_side() -> (usize, bool, bool) {
    (usize::MAX, true, true)
}

fn rally(st: &State, a: &Value) -> Result<P, Rejection> {
    let id = need(a, "unit")?;
    let c = st
        .card
        .as_ref()
        .ok_or_else(|| reject("no-card", None, "no card in play"))?;
    let Some(pool) = c.rally else {
        return Err(reject(
            "not-rallye",
            Some("action"),
            "rally: only with Rallye in play",
        ));
    };
    let u = st
        .unit(id)
        .filter(|u| u.side == st.active && u.gone.is_none() && !u.spare)
        .ok_or_else(|| {
            reject(
                "no-such-unit",
                Some("unit"),
                format!("unit: no unit \"{id}\" of yours on the table"),
            )
        })?;
    let t = type_of(u);
    if pool[t] == 0 {
        return Err(reject(
            "no-symbol",
            Some("unit"),
            format!("unit: no {} symbol left", ["foot", "horse", "artillery"][t]),
        ));
    }
    if u.blocks >= u.start_blocks {
        return Err(reject(
            "full-strength",
            Some("unit"),
            format!(
                "unit: {} is at its starting strength ({} blocks; decision 30)",
                u.name, u.start_blocks
            ),
        ));
    }
    let mut r = Res::new(st);
    let name = u.name.clone();
    if let Some(u) = r.st.unit_mut(id) {
        u.blocks += 1;
        u.ordered = true;
    }
    if let Some(c) = r.st.card.as_mut() {
        if let Some(p) = c.rally.as_mut() {
            p[t] -= 1;
        }
        if !c.orders.iter().any(|(x, _)| x == id) {
            c.orders.push((id.to_string(), None));
        }
    }
    let msg = format!("{name} regains a block and is ordered (Rallye)");
    r.step("Rallye [004, Tactic Cards]", msg.clone());
    r.say(msg);
    Ok(done(r))
}

// ------------------------------------------------------------------------------------------------
// Moves (design 2.1, 3 step 3).

/// How far a unit may move now, and whether it may still battle after moving `hexes`.
fn allowance(st: &State, u: &UnitState, mount: bool, dismount: bool) -> u32 {
    let c = st.card.as_ref();
    let eff = c.map_or("", |c| c.effective.as_str());
    let base: u32 = match u.class {
        Class::Foot | Class::Clubmen => 1,
        Class::Cuirassiers => {
            if eff == "charge-of-horse" {
                3
            } else {
                2
            }
        }
        Class::Trotters | Class::Gallopers => 3,
        Class::Dragoons => {
            if u.mounted {
                if dismount {
                    2
                } else {
                    3
                }
            } else if mount {
                2
            } else {
                1
            }
        }
        Class::Artillery => {
            if eff == "bombard" {
                2
            } else {
                1
            }
        }
    };
    let riding = u.class.horse() || (u.class == Class::Dragoons && (u.mounted || mount));
    if riding {
        let cut = u32::from(st.sides[u.side].chickweed) + u32::from(st.soft_going);
        base.saturating_sub(cut)
            .max(st.cfg.mounted_min_move.min(base))
    } else {
        base
    }
}

fn move_unit(st: &State, a: &Value) -> Result<P, Rejection> {
    let id = need(a, "unit")?;
    let c = st
        .card
        .as_ref()
        .ok_or_else(|| reject("no-card", None, "no card in play"))?;
    let eff = c.effective.as_str();
    if let Some(l) = st.leader(id) {
        return move_leader(st, l, a);
    }
    let u = st.unit(id).ok_or_else(|| {
        reject(
            "no-such-unit",
            Some("unit"),
            format!("unit: no unit or leader \"{id}\""),
        )
    })?;
    if u.side != st.active || u.gone.is_some() || u.spare {
        return Err(reject(
            "not-yours",
            Some("unit"),
            format!("unit: {id} is not one of your units on the table"),
        ));
    }
    if !u.ordered {
        return Err(reject(
            "not-ordered",
            Some("unit"),
            format!("unit: {} is not ordered this turn", u.name),
        ));
    }
    let hexes = num(a, "hexes", 0, 6)?.ok_or_else(|| {
        reject(
            "missing-field",
            Some("hexes"),
            "hexes: how many hexes it moved (0 to stay)",
        )
    })? as u32;
    let mount = flag(a, "mount");
    let dismount = flag(a, "dismount");
    let leave = flag(a, "leave_stand");
    // Bold Dragooneers: a further complete move after firing (004).
    // Bold Dragooneers: one further complete move after firing (004), whatever came before.
    let second =
        eff == "bold-dragooneers" && u.class == Class::Dragoons && u.fired && !u.moved_after_fire;
    if c.combat && !second {
        return Err(reject(
            "moves-closed",
            Some("unit"),
            "unit: every move comes before the first battle (CCN sequence of play)",
        ));
    }
    if u.moves > 0 && !second {
        return Err(reject(
            "already-moved",
            Some("unit"),
            format!("unit: {} has moved this turn", u.name),
        ));
    }
    if (mount || dismount) && u.class != Class::Dragoons {
        return Err(reject(
            "not-dragoons",
            Some("mount"),
            "mount: only dragoons mount and dismount",
        ));
    }
    if mount && u.mounted {
        return Err(reject(
            "already-mounted",
            Some("mount"),
            "mount: the dragoons are already on horse",
        ));
    }
    if dismount && !u.mounted {
        return Err(reject(
            "not-mounted",
            Some("dismount"),
            "dismount: the dragoons are already on foot",
        ));
    }
    if leave && !u.stand {
        return Err(reject(
            "not-in-stand",
            Some("leave_stand"),
            "leave_stand: the unit is not in Stand of Pikes",
        ));
    }
    if u.stand && !leave && hexes > 0 {
        return Err(reject("in-stand", Some("hexes"), "hexes: a unit in Stand of Pikes may not move; it leaves the formation first (leave_stand)"));
    }
    if leave && eff == "march-to-victorye" {
        return Err(reject(
            "march",
            Some("leave_stand"),
            "leave_stand: under March to Victorye foot may not form or leave Stand of Pikes (004)",
        ));
    }
    if hexes > 0 {
        if u.class == Class::Artillery && st.sides[u.side].artillery_horses {
            return Err(reject("artillery-horses", Some("hexes"), "hexes: your artillery cannot move for the rest of the day (Artillery Horses; decision 52)"));
        }
        if u.no_move_turns > 0 {
            return Err(reject(
                "cannot-move",
                Some("hexes"),
                format!("hexes: {} cannot move this turn (Rabbits!)", u.name),
            ));
        }
        if matches!(eff, "push" | "fire-and-hold") {
            return Err(reject(
                "no-move",
                Some("hexes"),
                format!(
                    "hexes: under {} ordered units may not move",
                    command_card(eff).map_or(eff, |k| k.name)
                ),
            ));
        }
        if eff == "bombard" && u.bombard.as_deref() == Some("fire") {
            return Err(reject(
                "bombard",
                Some("hexes"),
                "hexes: a gun that fired under Bombard may not move (decision 51)",
            ));
        }
    }
    let max = allowance(st, u, mount, dismount);
    if hexes > max {
        return Err(reject(
            "too-far",
            Some("hexes"),
            format!("hexes: {} moves at most {max} hex(es) now", u.name),
        ));
    }
    let mut r = Res::new(st);
    let name = u.name.clone();
    if leave {
        leave_stand(&mut r.st, id);
    }
    let bombard = eff == "bombard" && hexes > 0;
    if let Some(u) = r.st.unit_mut(id) {
        u.moved += hexes;
        u.moves += 1;
        if u.fired {
            u.moved_after_fire = true;
        }
        if mount {
            u.mounted = true;
        }
        if dismount {
            u.mounted = false;
        }
        if bombard {
            u.bombard = Some("move".into());
        }
    }
    if let Some(c) = r.st.card.as_mut() {
        c.moving = true;
    }
    let mut bits = vec![format!("{name} moves {hexes} hex(es)")];
    if leave {
        bits.push("leaves its Stand of Pikes; the track's card returns to the hand".into());
    }
    if mount {
        bits.push("mounts".into());
    }
    if dismount {
        bits.push("dismounts".into());
    }
    if let Some(l) = st.leader_of(id) {
        bits.push(format!("{} moves with it", l.name));
    }
    let msg = bits.join("; ");
    r.step("Move [004; design 2.1]", msg.clone());
    r.say(msg);
    Ok(done(r))
}

fn move_leader(st: &State, l: &LeaderState, a: &Value) -> Result<P, Rejection> {
    if l.side != st.active || l.gone.is_some() {
        return Err(reject(
            "not-yours",
            Some("unit"),
            format!("unit: {} is not one of your leaders on the table", l.name),
        ));
    }
    if !l.ordered {
        return Err(reject(
            "not-ordered",
            Some("unit"),
            format!("unit: {} is not ordered this turn", l.name),
        ));
    }
    if st.card.as_ref().is_some_and(|c| c.combat) {
        return Err(reject(
            "moves-closed",
            Some("unit"),
            "unit: every move comes before the first battle (CCN sequence of play)",
        ));
    }
    let join = s_field(a, "join");
    if let Some(from) = &l.unit {
        if st.unit(from).is_some_and(|u| u.stand) {
            return Err(reject(
                "in-stand",
                Some("unit"),
                "unit: a leader may not leave a unit in Stand of Pikes (CCN-sum)",
            ));
        }
    }
    let mut r = Res::new(st);
    let mut msg = vec![];
    let leadership = st
        .card
        .as_ref()
        .is_some_and(|c| c.effective == "leadership");
    if let Some(from) = l.unit.clone() {
        if join != Some(from.as_str()) {
            msg.push(format!(
                "{} detaches from {}",
                l.name,
                st.unit(&from).map_or("", |u| u.name.as_str())
            ));
            // Leadership orders the unit only while the leader stays with it (decision 54).
            if leadership {
                if let Some(u) = r.st.unit_mut(&from) {
                    if u.moves == 0 && !u.fired && u.meleed == 0 {
                        u.ordered = false;
                        u.card_bonus = 0;
                        msg.push(format!("{} is no longer ordered (decision 54)", u.name));
                    }
                }
            }
        }
    }
    match join {
        Some(uid) => {
            let u = st
                .unit(uid)
                .filter(|u| u.side == l.side && u.gone.is_none() && !u.spare)
                .ok_or_else(|| {
                    reject(
                        "no-such-unit",
                        Some("join"),
                        format!("join: no unit \"{uid}\" of yours on the table"),
                    )
                })?;
            if let Some(other) = st.leader_of(uid).filter(|x| x.id != l.id) {
                return Err(reject(
                    "has-leader",
                    Some("join"),
                    format!("join: {} already has {} attached", u.name, other.name),
                ));
            }
            msg.push(format!("{} joins {}", l.name, u.name));
            if let Some(x) = r.st.leader_mut(&l.id) {
                x.unit = Some(uid.to_string());
            }
            if let Some(x) = r.st.unit_mut(uid) {
                x.no_orders_until_leader = false;
            }
        }
        None => {
            if let Some(x) = r.st.leader_mut(&l.id) {
                x.unit = None;
            }
            msg.push(format!("{} moves alone", l.name));
        }
    }
    if let Some(c) = r.st.card.as_mut() {
        c.moving = true;
    }
    let m = msg.join("; ");
    r.step("Leader moves [004, Section Cards; CCN]", m.clone());
    r.say(m);
    Ok(done(r))
}

// ------------------------------------------------------------------------------------------------
// Combat (design 6).

/// How a unit rolls in this battle.
fn roller_of(st: &State, u: &UnitState, kind: Kind, bonus_melee: bool, chaunce: bool) -> Roller {
    let eff = st.card.as_ref().map_or("", |c| c.effective.as_str());
    let mut card = 0;
    if kind != Kind::BattleBack && !chaunce {
        card += u.card_bonus;
        // The melee being resolved is already counted in `meleed`.
        if kind == Kind::Melee && u.push && u.meleed <= 1 && !bonus_melee {
            card += 1;
        }
        if kind == Kind::Ranged && matches!(eff, "bombard" | "fire-and-hold") && u.ordered {
            card += 1;
        }
    }
    Roller {
        class: u.class,
        blocks: u.blocks,
        training: u.training,
        pikes: u.pikes,
        rash: u.rash,
        mounted: u.mounted,
        card_bonus: card,
        chaunce_bonus: u.chaunce_bonus,
    }
}

fn per_flag(st: &State, t: Training) -> u32 {
    match t {
        Training::Raw => st.cfg.raw_per_flag,
        Training::Militia => st.cfg.militia_per_flag,
        _ => 1,
    }
}

/// What a unit is hit as.
fn target_of(st: &State, u: &UnitState, room: Option<u32>, ignores: u32, retiring: bool) -> Target {
    Target {
        class: u.class,
        blocks: u.blocks,
        training: u.training,
        leader: st.leader_of(&u.id).is_some(),
        // A unit in Stand of Pikes cannot move: every hex is a block (design 7).
        retreat_room: if u.stand { Some(0) } else { room },
        retiring,
        flags_ignored: ignores,
        per_flag: per_flag(st, u.training),
    }
}

fn scores(u: &UnitState) -> bool {
    u.training.scores_sabres() && u.class != Class::Clubmen
}

/// The dice a unit rolls (design 6.2), with the Stand of Pikes caps (design 7).
fn dice_for(
    st: &State,
    u: &UnitState,
    kind: Kind,
    against: Option<&UnitState>,
    terrain: u8,
    bonus: bool,
    chaunce: bool,
) -> Result<(i32, Vec<Modifier>), Rejection> {
    // In a game the roller is a unit named by the action's `unit` field.
    let (n, mut mods) = resolve::dice(&roller_of(st, u, kind, bonus, chaunce), kind, terrain)
        .map_err(|mut r| {
            if r.field.as_deref().is_some_and(|f| f.starts_with("roller.")) {
                let f = r.field.clone().unwrap_or_default();
                r.message = format!(
                    "unit: {}: {}",
                    u.name,
                    r.message.trim_start_matches(&format!("{f}: "))
                );
                r.field = Some("unit".into());
            }
            r
        })?;
    let capped = u.stand || against.is_some_and(|t| t.stand && (is_mounted(u)));
    if capped && n > 1 {
        mods.push(Modifier {
            side: "dice".into(),
            name: "Stand of Pikes: at most 1 die".into(),
            value: 1 - n,
            source: "CCN squares (design 7)".into(),
        });
        return Ok((1, mods));
    }
    Ok((n, mods))
}

/// One roll against a unit, folded into the result: blocks lost, the retreat, the leader's check
/// and the banner (design 6.3-6.5, 6.9). Continues with `then` and whether the target holds its hex.
struct Hit {
    roller: String,
    target: String,
    kind: Kind,
    n: i32,
    mods: Vec<Modifier>,
    room: Option<u32>,
    ignores: u32,
    retiring: bool,
    label: &'static str,
}

fn hit_unit(r: Res, h: Hit, then: impl Fn(Res, bool) -> P + 'static) -> P {
    let Hit {
        roller,
        target,
        kind,
        n,
        mods,
        room,
        ignores,
        retiring,
        label,
    } = h;
    let st = &r.st;
    let (Some(ru), Some(tu)) = (st.unit(&roller), st.unit(&target)) else {
        return done(r);
    };
    let t = target_of(st, tu, room, ignores, retiring);
    let sc = scores(ru);
    let title = format!(
        "{label}: {} rolls {n} dice against {} [design 6]",
        ru.name, tu.name
    );
    let blocks = u32::from(tu.blocks);
    let leader = st.leader_of(&target).map(|l| l.id.clone());
    let tname = tu.name.clone();
    let label = label.to_string();
    let then = std::rc::Rc::new(then);
    resolve::roll_against(n, mods, t, kind, sc, title).and_then(move |(lost, hexes, step)| {
        let mut r = r.clone();
        let total = |name: &str| {
            step.totals
                .iter()
                .find(|(k, _)| k == name)
                .map_or(0, |(_, v)| *v)
        };
        let (hits, flags) = (total("hits"), total("flags"));
        r.steps.push(step);
        let eliminated = lost == blocks;
        let prefix = label.to_lowercase();
        // Hits and flags rolled, before blocks and retreats (the odds show their expectation).
        r.facets.push((format!("{prefix}: hits"), hits.to_string()));
        r.facets
            .push((format!("{prefix}: flags"), flags.to_string()));
        r.facets
            .push((format!("{prefix}: blocks lost"), lost.to_string()));
        r.facets.push((
            format!("{prefix}: eliminated"),
            if eliminated { "yes" } else { "no" }.into(),
        ));
        r.facets
            .push((format!("{prefix}: retreat hexes"), hexes.to_string()));
        let gone = lose_blocks(&mut r, &target, lost, &label);
        let mut bits = vec![format!("{tname} loses {lost} block(s)")];
        if gone {
            bits.push("and is eliminated".into());
        } else if hexes > 0 {
            bits.push(format!("and retreats {hexes} hex(es)"));
        }
        r.say(bits.join(" "));
        let holds = !gone && hexes == 0 && !retiring;
        let then = then.clone();
        // Leader casualty check: once per combat, when the unit lost a block (CCA-ldr; design 6.9).
        match (&leader, lost > 0) {
            (Some(l), true) => leader_check(r, l.clone(), gone, move |r| then(r, holds)),
            _ => then(r, holds),
        }
    })
}

/// The leader casualty check (design 6.9): two sabres of two dice while the unit survives, one
/// sabre of one die when it is eliminated.
fn leader_check(r: Res, leader: String, unit_gone: bool, then: impl Fn(Res) -> P + 'static) -> P {
    let n = if unit_gone { 1 } else { 2 };
    let sabre = FaceClasses::of(&[1, 1, 1, 1, 0, 1]);
    let name =
        r.st.leader(&leader)
            .map_or(String::new(), |l| l.name.clone());
    throw(n, 6, "Leader casualty die", Depends::Classes(sabre)).and_then(move |faces| {
        let mut r = r.clone();
        let sabres = faces.iter().filter(|&&f| sabre.class(f) == 0).count();
        let lost = sabres == n;
        r.steps.push(Step {
            title: format!(
                "Leader casualty check: {name}, {n} die(s), lost on {} [CCA-ldr; design 6.9]",
                if n == 2 { "two sabres" } else { "a sabre" }
            ),
            dice: symbol_dice("Leader casualty die", &faces),
            modifiers: Vec::new(),
            totals: vec![("sabres".into(), sabres as i32)],
            result: if lost {
                format!("{name} is lost")
            } else if unit_gone {
                format!("{name} survives and retreats 1 to 3 hexes alone (CCN, Leader's Retreat)")
            } else {
                format!("{name} is unhurt")
            },
        });
        r.facets.push((
            format!("{name} lost"),
            if lost { "yes" } else { "no" }.into(),
        ));
        if lost {
            lose_leader(&mut r, &leader, "leader casualty check");
        } else if unit_gone {
            if let Some(l) = r.st.leader_mut(&leader) {
                l.unit = None;
            }
            r.say(format!("{name} survives and retreats alone"));
        }
        then(r)
    })
}

fn combat_common<'a>(st: &'a State, a: &Value, fire: bool) -> Result<&'a UnitState, Rejection> {
    let id = need(a, "unit")?;
    let u = st
        .unit(id)
        .filter(|u| u.side == st.active && u.gone.is_none() && !u.spare)
        .ok_or_else(|| {
            reject(
                "no-such-unit",
                Some("unit"),
                format!("unit: no unit \"{id}\" of yours on the table"),
            )
        })?;
    let bonus = st.chase.as_ref().is_some_and(|ch| ch.unit == id) && !fire;
    // A Chaunce charge's bonus melees come with no card in play.
    let c = match st.card.as_ref() {
        Some(c) => c,
        None if bonus => return Ok(u),
        None => return Err(reject("no-card", None, "no card in play")),
    };
    if !u.ordered && !bonus {
        return Err(reject(
            "not-ordered",
            Some("unit"),
            format!("unit: {} is not ordered this turn", u.name),
        ));
    }
    if c.effective == "march-to-victorye" {
        return Err(reject(
            "march",
            Some("action"),
            "under March to Victorye ordered units may not battle (004)",
        ));
    }
    if let Some(ch) = &st.chase {
        if ch.compelled && ch.unit != id {
            return Err(reject("rash-compelled", Some("unit"), "unit: the rash unit out of control acts first: its bonus melee, a control roll, or stop with no_target"));
        }
    }
    if !bonus && (u.fired || u.meleed > 0) {
        return Err(reject(
            "already-battled",
            Some("unit"),
            format!("unit: {} has already battled this turn", u.name),
        ));
    }
    if u.bombard.as_deref() == Some("move") {
        return Err(reject(
            "bombard",
            Some("unit"),
            "unit: a gun that moved under Bombard may not battle (004; decision 51)",
        ));
    }
    Ok(u)
}

fn enemy<'a>(st: &'a State, a: &Value, side: usize) -> Result<&'a UnitState, Rejection> {
    let tid = need(a, "target")?;
    st.unit(tid)
        .filter(|t| t.side != side && t.gone.is_none() && !t.spare)
        .ok_or_else(|| {
            reject(
                "no-such-target",
                Some("target"),
                format!("target: no enemy unit \"{tid}\" on the table"),
            )
        })
}

fn fire(st: &State, a: &Value) -> Result<P, Rejection> {
    let u = combat_common(st, a, true)?;
    let eff = st.card.as_ref().map_or("", |c| c.effective.as_str());
    if st.leader(s_field(a, "target").unwrap_or("")).is_some() {
        return Err(reject(
            "lone-leader",
            Some("target"),
            "target: a lone leader may not be targeted in ranged combat (CCN-rem)",
        ));
    }
    let t = enemy(st, a, u.side)?;
    let range = num(a, "range", 1, 5)?.ok_or_else(|| {
        reject(
            "missing-field",
            Some("range"),
            "range: hexes to the target, 1 to 5",
        )
    })? as u32;
    let terrain = num(a, "terrain", 0, 3)?.unwrap_or(0) as u8;
    let room = num(a, "target_room", 0, 12)?.map(|x| x as u32);
    let ignores = num(a, "target_ignores", 0, 2)?.unwrap_or(0) as u32;
    if st.rain > 0 {
        return Err(reject(
            "rain",
            Some("action"),
            "no ranged combat while St. Swithun's rain lasts (Chaunce card; decision 33)",
        ));
    }
    if eff == "push" {
        return Err(reject(
            "push",
            Some("action"),
            "under Push! ordered units may not engage in ranged combat (004)",
        ));
    }
    if u.no_fire || u.no_fire_turns > 0 {
        return Err(reject(
            "no-fire",
            Some("unit"),
            format!(
                "unit: {} may not fire{}",
                u.name,
                if u.no_fire {
                    " (scenario: no fire)"
                } else {
                    " this turn (Bad Powder)"
                }
            ),
        ));
    }
    match u.class {
        Class::Foot | Class::Artillery if u.moved > 0 => {
            return Err(reject(
                "moved",
                Some("unit"),
                format!(
                    "unit: {} moved this turn: only units that did not move fire (004)",
                    u.name
                ),
            ));
        }
        Class::Dragoons if u.mounted => {
            return Err(reject(
                "mounted",
                Some("unit"),
                "unit: dragoons may not fire when mounted (004, Dragoons)",
            ));
        }
        _ => {}
    }
    let (lo, hi) = if u.class == Class::Artillery {
        (2, 5)
    } else {
        (1, 2)
    };
    if !(lo..=hi).contains(&range) {
        return Err(reject(
            "out-of-range",
            Some("range"),
            format!(
                "range: {} fires at {lo} to {hi} hexes (004; decisions 20, 21)",
                u.name
            ),
        ));
    }
    if flag(a, "adjacent_enemy") && range > 1 {
        return Err(reject(
            "adjacent",
            Some("range"),
            "range: a unit adjacent to an enemy fires only at an adjacent one (decision 21)",
        ));
    }
    let (n, mods) = dice_for(st, u, Kind::Ranged, Some(t), terrain, false, false)?;
    let mut r = Res::new(st);
    let (uid, tid) = (u.id.clone(), t.id.clone());
    if let Some(x) = r.st.unit_mut(&uid) {
        x.fired = true;
        if eff == "bombard" {
            x.bombard = Some("fire".into());
        }
    }
    if u.class == Class::Foot {
        r.st.last_foot_fired = Some(uid.clone());
    }
    if let Some(c) = r.st.card.as_mut() {
        c.combat = true;
    }
    Ok(hit_unit(
        r,
        Hit {
            roller: uid,
            target: tid,
            kind: Kind::Ranged,
            n,
            mods,
            room,
            ignores,
            retiring: false,
            label: "Ranged combat",
        },
        |mut r, _| {
            check_victory(&mut r);
            done(r)
        },
    ))
}

fn melee(st: &State, a: &Value) -> Result<P, Rejection> {
    let u = combat_common(st, a, false)?;
    let eff = st.card.as_ref().map_or("", |c| c.effective.as_str());
    let bonus = st.chase.as_ref().is_some_and(|c| c.unit == u.id);
    if eff == "fire-and-hold" {
        return Err(reject("fire-and-hold", Some("action"), "under Fire and Hold ordered units are not adjacent to the enemy: ranged combat only (004)"));
    }
    if u.class == Class::Artillery {
        return Err(reject(
            "no-melee",
            Some("unit"),
            "unit: artillery cannot attack in melee (004, Artillery)",
        ));
    }
    if eff == "push" && u.moved > 0 && !bonus {
        return Err(reject(
            "push",
            Some("unit"),
            "unit: under Push! units may not move before melee (004)",
        ));
    }
    let limit = match u.class {
        Class::Foot | Class::Clubmen => Some(1),
        Class::Trotters => Some(if eff == "charge-of-horse" { 3 } else { 2 }),
        _ => None,
    };
    if let Some(l) = limit {
        if u.moved > l && !bonus {
            return Err(reject(
                "moved-too-far",
                Some("unit"),
                format!(
                    "unit: {} moved {} hexes; it melees after at most {l} (004)",
                    u.name, u.moved
                ),
            ));
        }
    }
    if u.class == Class::Dragoons && u.fired {
        return Err(reject(
            "fired",
            Some("unit"),
            "unit: dragoons may not fire and melee in the same move (004)",
        ));
    }
    let terrain = num(a, "terrain", 0, 3)?.unwrap_or(0) as u8;
    let bb_terrain = num(a, "battle_back_terrain", 0, 3)?.unwrap_or(0) as u8;
    let target_room = num(a, "target_room", 0, 12)?.map(|x| x as u32);
    let attacker_room = num(a, "attacker_room", 0, 12)?.map(|x| x as u32);
    let ignores = num(a, "target_ignores", 0, 2)?.unwrap_or(0) as u32;
    let tid = need(a, "target")?;
    // A lone leader attacked: the attacker's dice, lost on any sabre (CCN-lone).
    if let Some(l) = st.leader(tid) {
        if l.side == u.side || l.gone.is_some() || l.unit.is_some() {
            return Err(reject(
                "no-such-target",
                Some("target"),
                "target: an enemy leader standing alone",
            ));
        }
        let (n, mods) = dice_for(st, u, Kind::Melee, None, terrain, bonus, false)?;
        let mut r = Res::new(st);
        mark_melee(&mut r, &u.id);
        let (lid, lname, uname) = (l.id.clone(), l.name.clone(), u.name.clone());
        let sabre = FaceClasses::of(&[1, 1, 1, 1, 0, 1]);
        return Ok(throw(n.max(0) as usize, 6, "Battle die", Depends::Classes(sabre)).map(move |faces| {
            let mut r = r.clone();
            let s = faces.iter().filter(|&&f| sabre.class(f) == 0).count();
            r.steps.push(Step {
                title: format!("{uname} attacks the lone leader {lname}: {n} dice, lost on a sabre [CCN-lone; design 6.9]"),
                dice: symbol_dice("Battle die", &faces),
                modifiers: mods.clone(),
                totals: vec![("sabres".into(), s as i32)],
                result: if s > 0 { format!("{lname} is lost") } else { format!("{lname} escapes: he retreats 1 to 3 hexes; the attacker may take ground") },
            });
            r.facets.push((format!("{lname} lost"), if s > 0 { "yes" } else { "no" }.into()));
            if s > 0 {
                lose_leader(&mut r, &lid, "attacked alone");
            } else {
                r.say(format!("{lname} escapes"));
            }
            check_victory(&mut r);
            r
        }));
    }
    let t = enemy(st, a, u.side)?;
    // The defender's answer comes first (decision 43).
    let mut r = Res::new(st);
    r.st.window = Some(Window {
        attacker: u.id.clone(),
        target: t.id.clone(),
        terrain,
        battle_back_terrain: bb_terrain,
        target_room,
        attacker_room,
        target_ignores: ignores,
        bonus,
        chaunce: bonus && st.chase.as_ref().is_some_and(|c| c.chaunce),
    });
    r.st.phase = Phase::Window;
    if let Some(c) = r.st.card.as_mut() {
        c.combat = true;
    }
    let msg = format!(
        "{} announces a {}melee against {}: {} answer (Evade, Stand of Pikes, Retire and Reform, or none)",
        u.name,
        if bonus { "bonus " } else { "" },
        t.name,
        st.side_name(t.side)
    );
    r.step(
        "Melee announced [CCN melee, steps 1-3; decision 43]",
        msg.clone(),
    );
    r.say(msg);
    Ok(done(r))
}

fn mark_melee(r: &mut Res, id: &str) {
    if let Some(x) = r.st.unit_mut(id) {
        x.meleed += 1;
    }
    if let Some(c) = r.st.card.as_mut() {
        c.combat = true;
    }
}

/// The answers open to the defender of the window now.
pub fn responses(st: &State) -> Vec<&'static str> {
    let mut out = vec!["none"];
    let Some(w) = &st.window else { return out };
    let (Some(att), Some(def)) = (st.unit(&w.attacker), st.unit(&w.target)) else {
        return out;
    };
    let side = def.side;
    let hand = &st.sides[side].hand;
    let hidden = st.sides[side].hidden.is_some();
    if hidden || hand.iter().any(|&c| command_kind(c).id == "evade") {
        out.push("evade");
    }
    if def.class == Class::Foot
        && def.pikes
        && !def.stand
        && is_mounted(att)
        && st.sides[side].track.len() < st.cfg.square_slots
        && (hidden || !hand.is_empty())
    {
        out.push("stand-of-pikes");
    }
    if is_mounted(def) && matches!(att.class, Class::Foot | Class::Clubmen)
        || (is_mounted(def) && att.class == Class::Dragoons && !att.mounted)
    {
        out.push("retire");
    }
    out
}

fn respond(st: &State, a: &Value) -> Result<P, Rejection> {
    let w = st
        .window
        .clone()
        .ok_or_else(|| reject("no-window", None, "no melee waits for an answer"))?;
    let choice = s_field(a, "response").unwrap_or("none");
    let allowed = responses(st);
    if !allowed.contains(&choice) {
        return Err(reject(
            "bad-response",
            Some("response"),
            format!(
                "response: allowed now: {} (Evade needs the card in hand; Stand of Pikes: foot with pikes attacked by horse or mounted dragoons, a card in hand and a free track slot; Retire and Reform: horse or mounted dragoons attacked by foot)",
                allowed.join(", ")
            ),
        ));
    }
    let mut r = Res::new(st);
    r.st.window = None;
    r.st.phase = Phase::Orders;
    mark_melee(&mut r, &w.attacker);
    let def_side = st.unit(&w.target).map_or(0, |u| u.side);
    let (aname, dname) = (
        st.unit(&w.attacker)
            .map_or(String::new(), |u| u.name.clone()),
        st.unit(&w.target).map_or(String::new(), |u| u.name.clone()),
    );
    match choice {
        "evade" => {
            let hand = &mut r.st.sides[def_side].hand;
            if let Some(p) = hand.iter().position(|&c| command_kind(c).id == "evade") {
                let c = hand.remove(p);
                r.st.discard.push(c);
            }
            r.st.sides[def_side].evade_draw += 1;
            let msg = format!("{dname} evades (Evade): no dice; it may retire 1 hex; no take ground, breakthrough or battle back (004, Tactic Cards)");
            r.step("Evade [004, Tactic Cards]", msg.clone());
            r.say(msg);
            r.st.chase = None;
            after_window(&mut r, &w);
            Ok(done(r))
        }
        "stand-of-pikes" => {
            let n = st.sides[def_side].hand.len();
            let side_name = st.side_name(def_side);
            Ok(Plan::die(
                Die::new(n.clamp(1, 255) as u8, "Stand of Pikes card"),
                move |face| {
                    let mut r = r.clone();
                    let i = usize::from(face - 1).min(n.saturating_sub(1));
                    if n > 0 {
                        let c = r.st.sides[def_side].hand.remove(i);
                        r.st.sides[def_side].track.push((c, w.target.clone()));
                    }
                    if let Some(u) = r.st.unit_mut(&w.target) {
                        u.stand = true;
                    }
                    r.step("Stand of Pikes [004, Foot; CCN squares; design 7]", format!("{dname} forms a Stand of Pikes: a random card of {side_name}'s hand goes onto the track"));
                    r.say(format!("{dname} forms a Stand of Pikes"));
                    melee_roll(r, w.clone(), false)
                },
            ))
        }
        "retire" => {
            r.say(format!(
                "{dname} retires and reforms 2 hexes: only cavalry symbols hit it (CCN tactics)"
            ));
            Ok(melee_roll(r, w, true))
        }
        _ => {
            let _ = aname;
            Ok(melee_roll(r, w, false))
        }
    }
}

/// The melee's dice, the defender's losses, the battle back, and what follows (design 6.7-6.10).
fn melee_roll(r: Res, w: Window, retiring: bool) -> P {
    let st = &r.st;
    let (Some(att), Some(def)) = (st.unit(&w.attacker), st.unit(&w.target)) else {
        return done(r);
    };
    let (n, mods) = dice_for(
        st,
        att,
        Kind::Melee,
        Some(def),
        w.terrain,
        w.bonus,
        w.chaunce,
    )
    .unwrap_or_default();
    let horse = att.class.horse();
    let w2 = w.clone();
    hit_unit(
        r,
        Hit {
            roller: w.attacker.clone(),
            target: w.target.clone(),
            kind: Kind::Melee,
            n,
            mods,
            room: w.target_room,
            ignores: w.target_ignores,
            retiring,
            label: "Melee",
        },
        move |r, holds| {
            let w = w2.clone();
            if holds {
                // Battle back (CCN step 11).
                let st = &r.st;
                let (Some(def), Some(att)) = (st.unit(&w.target), st.unit(&w.attacker)) else {
                    return done(r);
                };
                let (m, mods) = dice_for(
                    st,
                    def,
                    Kind::BattleBack,
                    Some(att),
                    w.battle_back_terrain,
                    false,
                    false,
                )
                .unwrap_or_default();
                let w3 = w.clone();
                let mut r = r.clone();
                let who =
                    r.st.unit(&w.target)
                        .map_or(String::new(), |u| u.name.clone());
                r.say(format!("{who} holds and battles back with {m} dice"));
                return hit_unit(
                    r,
                    Hit {
                        roller: w.target.clone(),
                        target: w.attacker.clone(),
                        kind: Kind::BattleBack,
                        n: m,
                        mods,
                        room: w.attacker_room,
                        ignores: 0,
                        retiring: false,
                        label: "Battle back",
                    },
                    move |mut r, _| {
                        finish_melee(&mut r, &w3, false, horse);
                        done(r)
                    },
                );
            }
            // Eliminated, retreated or retired: a victory (Retire and Reform is against foot,
            // which takes ground but never breaks through).
            let mut r = r;
            finish_melee(&mut r, &w, true, horse);
            done(r)
        },
    )
}

/// After a melee: a victorious horse unit may break through; a rash one must (design 6.8, 6.10);
/// a Chaunce charge ends the turn.
fn finish_melee(r: &mut Res, w: &Window, won: bool, horse: bool) {
    let alive = r.st.unit(&w.attacker).is_some_and(|u| u.gone.is_none());
    let prev =
        r.st.chase
            .as_ref()
            .filter(|c| c.unit == w.attacker)
            .map_or(0, |c| c.bonus_melees);
    r.st.chase = None;
    if won && alive && horse {
        let count = prev + u32::from(w.bonus);
        let limit = r.st.cfg.breakthrough_limit;
        if limit == 0 || count < limit {
            let rash = r.st.unit(&w.attacker).is_some_and(|u| u.rash);
            let name =
                r.st.unit(&w.attacker)
                    .map_or(String::new(), |u| u.name.clone());
            r.st.chase = Some(Chase {
                unit: w.attacker.clone(),
                bonus_melees: count,
                compelled: rash,
                control_rolled: false,
                chaunce: w.chaunce,
            });
            r.say(if rash {
                format!("{name} is rash: it must break through and make a bonus melee if it can, unless brought under control (004, Horse)")
            } else {
                format!("{name} may break through (the vacated hex and one more) and make a bonus melee (004, Horse)")
            });
        }
    } else if won && alive {
        r.say("the attacker may take ground (CCN)".to_string());
    }
    after_window(r, w);
}

fn after_window(r: &mut Res, w: &Window) {
    check_victory(r);
    // A Chaunce charge replaces the turn once its breakthroughs are over (`stop` ends them).
    if w.chaunce && r.st.phase != Phase::Over && r.st.chase.is_none() {
        chaunce_turn_over(r, true);
    }
}

fn control(st: &State, a: &Value) -> Result<P, Rejection> {
    let id = need(a, "unit")?;
    let ch = st.chase.clone().filter(|c| c.unit == id).ok_or_else(|| {
        reject(
            "no-breakthrough",
            Some("unit"),
            "unit: no victorious rash unit of that id to control",
        )
    })?;
    let u = st
        .unit(id)
        .ok_or_else(|| reject("no-such-unit", Some("unit"), "unit: unknown"))?;
    if !u.rash {
        return Err(reject(
            "not-rash",
            Some("unit"),
            format!(
                "unit: {} is not rash: it breaks through or stops as the player wishes",
                u.name
            ),
        ));
    }
    if ch.control_rolled {
        return Err(reject(
            "rolled",
            Some("unit"),
            "unit: control has been rolled for after this melee",
        ));
    }
    let led = st.leader_of(id).is_some() && st.cfg.control_leader_sabre;
    // Cavalry or flag; with a leader, sabres too (004, Horse).
    let classes = FaceClasses::of(&[1, 1, 0, 1, if led { 0 } else { 1 }, 0]);
    let name = u.name.clone();
    let r0 = Res::new(st);
    Ok(
        throw(1, 6, "Control die", Depends::Classes(classes)).map(move |f| {
            let mut r = r0.clone();
            let ok = classes.class(f[0]) == 0;
            if let Some(c) = r.st.chase.as_mut() {
                c.control_rolled = true;
                c.compelled = !ok;
            }
            r.steps.push(Step {
                title: format!(
                    "Control roll for {name}: a cavalry or flag symbol{} [004, Horse; design 6.10]",
                    if led {
                        ", or sabres with the attached leader"
                    } else {
                        ""
                    }
                ),
                dice: symbol_dice("Control die", &f),
                modifiers: Vec::new(),
                totals: Vec::new(),
                result: if ok {
                    format!("{name} is under control")
                } else {
                    format!("{name} is out of control: it must break through and attack if it can")
                },
            });
            r.facets.push((
                "control gained".into(),
                if ok { "yes" } else { "no" }.into(),
            ));
            r.say(if ok {
                format!("{name} is brought under control")
            } else {
                format!("{name} stays out of control")
            });
            r
        }),
    )
}

fn stop(st: &State, a: &Value) -> Result<P, Rejection> {
    let ch = st
        .chase
        .clone()
        .ok_or_else(|| reject("no-breakthrough", None, "no breakthrough to stop"))?;
    if ch.compelled && !flag(a, "no_target") {
        return Err(reject("rash-compelled", Some("no_target"), "no_target: the rash unit is out of control and must attack if it can (004, Horse); tick no_target if no enemy outside villages, woods and earthworks is in reach"));
    }
    let mut r = Res::new(st);
    let name = st.unit(&ch.unit).map_or(String::new(), |u| u.name.clone());
    r.st.chase = None;
    r.say(format!("{name} ends its breakthrough"));
    r.step(
        "Breakthrough ends [design 6.8]",
        format!("{name} ends its breakthrough"),
    );
    if ch.chaunce {
        chaunce_turn_over(&mut r, true);
    }
    Ok(done(r))
}

// ------------------------------------------------------------------------------------------------
// The Chaunce pack (design 5).

/// Cards whose resolution needs the table's answer (which units are within 4 hexes, which river
/// sections...): the side lists the candidates and Tercio draws among them (decision 5).
pub fn needs_candidates(id: &str) -> Option<&'static str> {
    Some(match id {
        "damned-turncotes" => "your units within 4 hexes of the enemy",
        "exceeding-nervose" => "your most advanced unit(s)",
        "friendly-fire" => {
            "the nearest friendly unit within 5 hexes of the gun drawn (empty: none)"
        }
        "fumblethumbs" => "hexes the foot can retreat (a number; empty: room enough)",
        "going-for-it" => "your horse within 4 hexes of the enemy",
        "lay-down-your-armes" => "your units adjacent to an enemy",
        "old-davey" => "the unfordable river sections",
        "two-inches-depe" => "the fordable river sections",
        "weak-bridge" => "the bridges",
        "what-was-in-that-barn" => "the occupied built-up hexes (or, if none, the unoccupied ones)",
        "who-drew-this-mappe" => "your units in open terrain",
        _ => return None,
    })
}

/// A card with a second question once the first draw is made.
pub fn second_question(id: &str) -> Option<&'static str> {
    Some(match id {
        "going-for-it" => "the nearest enemy unit it charges",
        "lay-down-your-armes" => "the adjacent enemy units it may surrender to",
        "weak-bridge" => "the units on that bridge (empty: none)",
        "devils-match" => {
            "the units adjacent to the exploding gun, not in a town, wood or earthworks"
        }
        _ => return None,
    })
}

fn draw_chaunce(st: &State) -> Result<P, Rejection> {
    let mut r = Res::new(st);
    let side = st.active;
    let mut notes = Vec::new();
    let Some(c) = r.st.draw_chaunce_card(&mut notes) else {
        return Err(reject("empty-pack", None, "the Chaunce pack is empty"));
    };
    r.st.sides[side].chaunce_due = r.st.sides[side].chaunce_due.saturating_sub(1);
    r.st.pack_discard.push(c);
    r.st.chaunce = Some(c);
    let card = chaunce_of(c);
    notes.push(format!(
        "{} draw {}: {}",
        st.side_name(side),
        card.name,
        card.text
    ));
    r.step(
        format!("Hazzard a Chaunce: {} [004, CHAUNCE CARDS]", card.name),
        notes.join("; "),
    );
    r.say(notes.join("; "));
    if needs_candidates(card.id).is_some() {
        // A card with nothing on the table to act on is ignored at once (decision 3).
        let applies = match card.id {
            "fumblethumbs" => st
                .last_foot_fired
                .as_ref()
                .is_some_and(|u| st.unit(u).is_some_and(|x| x.gone.is_none())),
            "going-for-it" => !own(st, side, is_horse).is_empty(),
            "damned-turncotes"
            | "exceeding-nervose"
            | "lay-down-your-armes"
            | "who-drew-this-mappe" => !own(st, side, |_| true).is_empty(),
            _ => true,
        };
        if !applies {
            return Ok(done(card_ignored(r, card, "it finds no target")));
        }
        r.st.phase = Phase::ChaunceResolve;
        // Friendly Fire draws its gun first; the table then names the nearest friendly unit.
        if card.id == "friendly-fire" {
            let guns: Vec<String> = st
                .live_units(side)
                .filter(|u| u.class == Class::Artillery)
                .map(|u| u.id.clone())
                .collect();
            if guns.is_empty() {
                return Ok(done(card_ignored(r, card, "you have no artillery")));
            }
            return Ok(pick_one(r, guns, "Friendly Fire: gun", |mut r, gun| {
                let name = r.st.unit(&gun).map_or(String::new(), |u| u.name.clone());
                r.say(format!(
                    "the gun drawn: {name}; name the nearest friendly unit within 5 hexes"
                ));
                r.st.pending = Some(gun.clone());
                done(r)
            }));
        }
        return Ok(done(r));
    }
    Ok(chaunce_effect(r, card, Vec::new(), Vec::new()))
}

fn card_ignored(mut r: Res, card: &ChaunceCard, why: &str) -> Res {
    r.say(format!(
        "{}: no effect ({why}); the turn goes on (decision 3)",
        card.name
    ));
    r.st.chaunce = None;
    next_after_chaunce(&mut r);
    r
}

/// A uniform draw among candidates (decision 5).
fn pick_one(
    r: Res,
    mut from: Vec<String>,
    label: &str,
    then: impl Fn(Res, String) -> P + 'static,
) -> P {
    from.sort();
    from.dedup();
    if from.len() == 1 {
        let only = from[0].clone();
        return then(r, only);
    }
    let n = from.len().min(255) as u8;
    let label = label.to_string();
    Plan::die(Die::new(n, label.clone()), move |f| {
        let mut r = r.clone();
        let chosen = from[usize::from(f - 1)].clone();
        r.steps.push(Step {
            title: format!("{label}: drawn at random among {n} [decision 5]"),
            dice: vec![tercio_core::RolledDie {
                label: label.clone(),
                sides: n,
                face: f,
            }],
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: r
                .st
                .unit(&chosen)
                .map(|u| u.name.clone())
                .or_else(|| r.st.leader(&chosen).map(|l| l.name.clone()))
                .unwrap_or_else(|| chosen.clone()),
        });
        then(r, chosen)
    })
}

/// The turn goes on after a Chaunce card, or another presented card comes first.
fn next_after_chaunce(r: &mut Res) {
    r.st.chaunce = None;
    r.st.phase = if r.st.sides[r.st.active].chaunce_due > 0 {
        Phase::Chaunce
    } else {
        Phase::Command
    };
}

/// A card that replaced the turn: the optional swap (not after The Fogge of War), then the other
/// side's turn.
fn chaunce_turn_over(r: &mut Res, swap: bool) {
    r.st.chaunce = None;
    r.st.replaced = true;
    r.st.sides[r.st.active].last_card = None;
    if swap && !r.st.sides[r.st.active].hand.is_empty() {
        r.st.phase = Phase::Swap;
        r.say("this card replaces the turn; you may discard one command card and draw another (`swap`)");
    } else {
        hand_over(r, vec!["this card replaces the turn".into()]);
    }
}

fn resolve_chaunce(st: &State, a: &Value) -> Result<P, Rejection> {
    let c = st
        .chaunce
        .ok_or_else(|| reject("no-chaunce", None, "no Chaunce card waits"))?;
    let card = chaunce_of(c);
    let mut cands = list(a, "candidates");
    if let Some(n) = num(a, "room", 0, 12)? {
        // Fumblethumbs: the hexes the foot can retreat.
        cands = vec![n.to_string()];
    }
    let second = list(a, "target");
    let r = Res::new(st);
    let side = st.active;
    // Check the candidates are what the card asks for.
    let own_units = |p: &dyn Fn(&UnitState) -> bool| -> Result<(), Rejection> {
        for x in &cands {
            match st.unit(x) {
                Some(u) if u.side == side && u.gone.is_none() && !u.spare && p(u) => {}
                _ => {
                    return Err(reject(
                        "bad-candidate",
                        Some("candidates"),
                        format!(
                            "candidates: \"{x}\" is not one of {}",
                            needs_candidates(card.id).unwrap_or("the units asked for")
                        ),
                    ));
                }
            }
        }
        Ok(())
    };
    match card.id {
        "damned-turncotes"
        | "exceeding-nervose"
        | "lay-down-your-armes"
        | "who-drew-this-mappe" => own_units(&|_| true)?,
        "going-for-it" => own_units(&is_horse)?,
        "friendly-fire" => {
            for x in &cands {
                if !st.unit(x).is_some_and(|u| {
                    u.side == side && u.gone.is_none() && !u.spare && u.class != Class::Artillery
                        || u.side == side && u.gone.is_none()
                }) {
                    return Err(reject(
                        "bad-candidate",
                        Some("candidates"),
                        format!("candidates: \"{x}\" is not one of your units on the table"),
                    ));
                }
            }
            if cands.len() > 1 {
                return Err(reject(
                    "one-target",
                    Some("candidates"),
                    "candidates: the one nearest friendly unit",
                ));
            }
        }
        "fumblethumbs" => {
            if let Some(x) = cands.first() {
                if x.parse::<u32>().is_err() {
                    return Err(reject(
                        "bad-number",
                        Some("candidates"),
                        "candidates: a number of hexes, or empty",
                    ));
                }
            }
        }
        _ => {}
    }
    Ok(chaunce_effect(r, card, cands, second))
}

/// A Chaunce card's effect for the rest of the day: kept in the chronicle the board shows, and
/// said in the result.
fn lasting(r: &mut Res, note: String, said: &str) {
    r.st.chronicle.push(note);
    r.say(said);
}

/// The leaders of `side` still on the field, or (`lost`) those lost.
fn leaders_of(st: &State, side: usize, lost: bool) -> Vec<String> {
    st.leaders
        .iter()
        .filter(|l| l.side == side && l.gone.is_some() == lost)
        .map(|l| l.id.clone())
        .collect()
}

/// Units of `side` on the table matching `p`.
fn own(st: &State, side: usize, p: impl Fn(&UnitState) -> bool) -> Vec<String> {
    st.live_units(side)
        .filter(|u| p(u))
        .map(|u| u.id.clone())
        .collect()
}

fn symbol_hits(u: &UnitState, f: u8) -> bool {
    tables::symbol(f) == u.class.hit_by()
}

fn chaunce_effect(
    mut r: Res,
    card: &'static ChaunceCard,
    cands: Vec<String>,
    second: Vec<String>,
) -> P {
    let side = r.st.active;
    let opp = 1 - side;
    let replaced = card.turn != Turn::GoesOn;
    let id = card.id;
    // Most cards: the effect, then the turn goes on or is replaced.
    let finish = move |mut r: Res, applied: bool| -> P {
        if !applied {
            return done(card_ignored(r, card, "it finds no target"));
        }
        check_victory(&mut r);
        if r.st.phase == Phase::Over {
            return done(r);
        }
        if replaced {
            chaunce_turn_over(&mut r, card.turn == Turn::Replaced);
        } else {
            next_after_chaunce(&mut r);
        }
        done(r)
    };
    let st = r.st.clone();
    let name_of = |st: &State, id: &str| st.unit(id).map_or(id.to_string(), |u| u.name.clone());
    match id {
        "false-alarum" => {
            r.say("False Alarum: take your turn as normal");
            finish(r, true)
        }
        "st-swithun" => {
            r.st.rain = 4;
            lasting(
                &mut r,
                "St. Swithun: no ranged combat for 4 player-turns".into(),
                "no ranged combat for 2 complete turns, this one included (decision 33)",
            );
            finish(r, true)
        }
        "artillery-horses" => {
            r.st.sides[side].artillery_horses = true;
            lasting(
                &mut r,
                format!(
                    "{}: artillery cannot move (Artillery Horses)",
                    st.side_name(side)
                ),
                "your artillery cannot move for the rest of the day",
            );
            finish(r, true)
        }
        "chickweed" => {
            r.st.sides[side].chickweed = true;
            lasting(
                &mut r,
                format!(
                    "{}: mounted moves 1 hex less (Chickweed)",
                    st.side_name(side)
                ),
                "your mounted units move 1 hex less for the rest of the day",
            );
            finish(r, true)
        }
        "soft-going" => {
            r.st.soft_going = true;
            lasting(
                &mut r,
                "Soft Going: all mounted moves 1 hex less".into(),
                "all mounted troops move 1 hex less for the rest of the day",
            );
            finish(r, true)
        }
        "biter-bit" => {
            r.st.sides[opp].chaunce_due += 1;
            r.say(format!(
                "{} must take a Chaunce card at the start of their next turn (decision 8)",
                st.side_name(opp)
            ));
            finish(r, true)
        }
        "fogge-of-war" => {
            let mut notes = Vec::new();
            let hand = std::mem::take(&mut r.st.sides[side].hand);
            let n = hand.len();
            r.st.discard.extend(hand);
            for _ in 0..n {
                if let Some(c) = r.st.draw_command(&mut notes) {
                    r.st.sides[side].hand.push(c);
                }
            }
            r.st.reshuffle_commands(&mut notes);
            r.say(format!(
                "{n} command cards discarded and {n} drawn; {}",
                notes.join("; ")
            ));
            finish(r, true)
        }
        "the-dizziness" => {
            if r.st.sides[side].hand.is_empty() {
                return finish(r, false);
            }
            r.st.phase = Phase::Dizziness;
            r.say(format!(
                "{} pick one card of the hand, unseen (`dizzy_pick`)",
                st.side_name(opp)
            ));
            done(r)
        }
        "no-orders" => {
            let mut any = false;
            for l in
                r.st.leaders
                    .iter_mut()
                    .filter(|l| l.side == side && l.gone.is_none() && l.unit.is_some())
            {
                l.unit = None;
                any = true;
            }
            if any {
                r.say("every attached leader detaches to the nearest empty hex not adjacent to an enemy");
            }
            finish(r, any)
        }
        "prince-among-sarjeants"
        | "grimme-reaper"
        | "never-touch-the-stuff"
        | "inspired-worde"
        | "gold-in-the-baggage"
        | "coronels-trubble" => {
            let from = own(&st, side, |_| true);
            if from.is_empty() {
                return finish(r, false);
            }
            pick_one(r, from, card.name, move |mut r, u| {
                let name = name_of(&r.st, &u);
                match id {
                    "prince-among-sarjeants" => {
                        let x = r.st.unit_mut(&u).expect("picked");
                        let up = match (x.class, x.training) {
                            (Class::Artillery, _) => None,
                            (_, Training::Raw) => Some(Training::Trained),
                            (_, Training::Trained) => Some(Training::Veteran),
                            _ => None,
                        };
                        match up {
                            Some(t) => {
                                x.training = t;
                                r.say(format!("{name} becomes {t:?}").to_lowercase());
                            }
                            None => r.say(format!(
                                "{name}: no effect (militia, veteran or artillery; decision 37)"
                            )),
                        }
                        finish(r, true)
                    }
                    "grimme-reaper" => {
                        let x = r.st.unit(&u).expect("picked").clone();
                        let classes = FaceClasses::of(
                            &(1..=6)
                                .map(|f| u8::from(!symbol_hits(&x, f)))
                                .collect::<Vec<_>>(),
                        );
                        throw(usize::from(x.blocks), 6, "Grimme Reaper die", Depends::Classes(classes)).and_then(move |faces| {
                            let mut r = r.clone();
                            let k = faces.iter().filter(|&&f| classes.class(f) == 0).count() as u32;
                            r.steps.push(Step {
                                title: format!("Grimme Reaper: {} rolls one die per block; each {:?} symbol deserts [004; decision 27]", x.name, x.class.hit_by()),
                                dice: symbol_dice("Grimme Reaper die", &faces),
                                modifiers: Vec::new(),
                                totals: vec![("deserters".into(), k as i32)],
                                result: format!("{k} block(s) desert"),
                            });
                            r.facets.push(("blocks lost".into(), k.to_string()));
                            lose_blocks(&mut r, &x.id, k, "Grimme Reaper");
                            r.say(format!("{}: {k} block(s) desert", x.name));
                            finish(r, true)
                        })
                    }
                    "coronels-trubble" => {
                        r.st.unit_mut(&u).expect("picked").no_orders_until_leader = true;
                        r.say(format!("{name} takes no orders until a leader is attached"));
                        finish(r, true)
                    }
                    _ => {
                        let d = if id == "never-touch-the-stuff" { -1 } else { 1 };
                        r.st.unit_mut(&u).expect("picked").chaunce_bonus += d;
                        r.st.chronicle
                            .push(format!("{name}: {d:+} die in all combat ({})", card.name));
                        r.say(format!(
                            "{name}: {d:+} die in all combat for the rest of the day"
                        ));
                        finish(r, true)
                    }
                }
            })
        }
        "hot-for-revenge" => {
            let from = own(&st, side, |_| true);
            if from.is_empty() {
                return finish(r, false);
            }
            pick_one(
                r,
                from.clone(),
                "Hot for Revenge: first unit",
                move |r, first| {
                    let rest: Vec<String> = from.iter().filter(|x| **x != first).cloned().collect();
                    let give = move |mut r: Res, u: &str| {
                        let name = name_of(&r.st, u);
                        r.st.unit_mut(u).expect("picked").chaunce_bonus += 1;
                        r.st.chronicle
                            .push(format!("{name}: +1 die in combat (Hot for Revenge)"));
                        r.say(format!("{name}: +1 die in combat for the rest of the day"));
                        r
                    };
                    let r = give(r, &first);
                    if rest.is_empty() {
                        return finish(r, true);
                    }
                    pick_one(r, rest, "Hot for Revenge: second unit", move |r, second| {
                        finish(give(r, &second), true)
                    })
                },
            )
        }
        "bad-powder" => {
            let from = own(&st, side, |u| {
                matches!(u.class, Class::Foot | Class::Dragoons)
            });
            if from.is_empty() {
                return finish(r, false);
            }
            pick_one(r, from, card.name, move |mut r, u| {
                let name = name_of(&r.st, &u);
                r.st.unit_mut(&u).expect("picked").no_fire_turns = 1;
                r.say(format!(
                    "{name} retires to your baseline and may not fire this turn"
                ));
                finish(r, true)
            })
        }
        "o-bugger-it" => {
            let from = own(&st, side, |u| {
                matches!(u.training, Training::Raw | Training::Militia)
            });
            if from.is_empty() {
                return finish(r, false);
            }
            pick_one(r, from, card.name, move |mut r, u| {
                if let Some(l) = r.st.leader_of(&u).map(|l| l.id.clone()) {
                    if let Some(l) = r.st.leader_mut(&l) {
                        l.unit = None;
                    }
                }
                let b = r.st.unit(&u).map_or(0, |x| u32::from(x.blocks));
                lose_blocks(&mut r, &u, b, "went home (O Bugger It)");
                finish(r, true)
            })
        }
        "rabbits" => {
            let from = own(&st, side, is_mounted);
            if from.is_empty() {
                return finish(r, false);
            }
            pick_one(r, from, card.name, move |mut r, u| {
                let name = name_of(&r.st, &u);
                r.st.unit_mut(&u).expect("picked").no_move_turns = 1;
                r.say(format!("{name} loses a block and cannot move this turn"));
                lose_blocks(&mut r, &u, 1, "Rabbits!");
                finish(r, true)
            })
        }
        "victorye-is-ours" => {
            let from = own(&st, side, is_horse);
            if from.is_empty() {
                return finish(r, false);
            }
            pick_one(r, from, card.name, move |mut r, u| {
                let x = r.st.unit_mut(&u).expect("picked");
                let name = x.name.clone();
                if x.rash {
                    r.say(format!("{name} is already rash: no effect"));
                } else {
                    x.rash = true;
                    r.say(format!("{name} become rash gallopers: +1 die in melee, control rolls after victories (decision 36)"));
                }
                finish(r, true)
            })
        }
        "my-lord-you-are-payle" => {
            let from = leaders_of(&st, side, false);
            if from.is_empty() {
                return finish(r, false);
            }
            pick_one(r, from, card.name, move |r, l| {
                let name = r.st.leader(&l).map_or(String::new(), |x| x.name.clone());
                Plan::die(Die::d6("Severity"), move |f| {
                    let mut r = r.clone();
                    let what = [
                        "unhurt",
                        "just a scratch",
                        "a flesh wound",
                        "a severe wound",
                        "a mortal wound",
                        "dead",
                    ][usize::from(f - 1)];
                    r.steps.push(Step {
                        title: format!("My Lord, You Are Payle: {name} rolls 1D6; 4 or more leaves the field [004]"),
                        dice: vec![tercio_core::RolledDie { label: "Severity".into(), sides: 6, face: f }],
                        modifiers: Vec::new(),
                        totals: Vec::new(),
                        result: format!("{name}: {what}"),
                    });
                    r.facets.push((
                        format!("{name} lost"),
                        if f >= 4 { "yes" } else { "no" }.into(),
                    ));
                    if f >= 4 {
                        lose_leader(&mut r, &l, what);
                    } else {
                        r.say(format!("{name}: {what}"));
                    }
                    finish(r, true)
                })
            })
        }
        "twas-but-a-mistake" => {
            let from = leaders_of(&st, side, true);
            if from.is_empty() {
                return finish(r, false);
            }
            pick_one(r, from, card.name, move |mut r, l| {
                let name = r.st.leader(&l).map_or(String::new(), |x| x.name.clone());
                if let Some(x) = r.st.leader_mut(&l) {
                    x.gone = None;
                    x.unit = None;
                }
                r.st.sides[opp].banners = r.st.sides[opp].banners.saturating_sub(1);
                let m = format!(
                    "{name} returns on your baseline; {} lose a banner",
                    r.st.side_name(opp)
                );
                r.st.chronicle.push(m.clone());
                r.say(m);
                finish(r, true)
            })
        }
        "were-back" => {
            let classes = FaceClasses::of(&[0, 0, 1, 2, 3, 4]);
            throw(1, 6, "We're Back die", Depends::Classes(classes)).and_then(move |f| {
                let mut r = r.clone();
                let s = tables::symbol(f[0]);
                let t = match s {
                    Symbol::Infantry => Some(0),
                    Symbol::Cavalry => Some(1),
                    Symbol::Artillery => Some(2),
                    _ => None,
                };
                let spare = t.and_then(|t| {
                    r.st.units
                        .iter()
                        .find(|u| u.side == side && u.spare && u.gone.is_none() && type_of(u) == t)
                        .map(|u| u.id.clone())
                });
                let result = match (s, &spare) {
                    (Symbol::Sabre, _) => "Sabres: it was just a rumour".to_string(),
                    (Symbol::Flag, _) => {
                        "a Flag: a leader, but the scenario has none in reserve".to_string()
                    }
                    (_, None) => format!("{s:?}: no spare of that type is left"),
                    (_, Some(u)) => format!("{} return on your baseline", name_of(&r.st, u)),
                };
                if let Some(u) = &spare {
                    r.st.unit_mut(u).expect("spare").spare = false;
                }
                r.steps.push(Step {
                    title: "We're Back: one battle die for the type [004; design 5.2]".into(),
                    dice: vec![tercio_core::RolledDie {
                        label: format!("We're Back die ({s:?})"),
                        sides: 6,
                        face: f[0],
                    }],
                    modifiers: Vec::new(),
                    totals: Vec::new(),
                    result: result.clone(),
                });
                r.say(result);
                finish(r, true)
            })
        }
        "fumblethumbs" => {
            let Some(u) = st
                .last_foot_fired
                .clone()
                .filter(|u| st.unit(u).is_some_and(|x| x.gone.is_none()))
            else {
                return finish(r, false);
            };
            let room: Option<u32> = cands.first().and_then(|x| x.parse().ok());
            let classes = FaceClasses::of(&[0, 0, 2, 2, 2, 1]);
            let name = name_of(&st, &u);
            throw(1, 6, "Fumblethumbs die", Depends::Classes(classes)).and_then(move |f| {
                let mut r = r.clone();
                let k = classes.class(f[0]);
                let mut result = "no effect".to_string();
                if k == 0 {
                    lose_blocks(&mut r, &u, 1, "Fumblethumbs");
                    result = format!("{name} loses 1 block");
                } else if k == 1 {
                    let lost = room.map_or(0, |room| 2u32.saturating_sub(room));
                    lose_blocks(&mut r, &u, lost, "Fumblethumbs");
                    result = format!("{name} retreats 2 hexes{}", if lost > 0 { format!(", losing {lost} block(s) for hexes it cannot take") } else { String::new() });
                }
                r.steps.push(Step {
                    title: format!("Fumblethumbs: {name}, the last foot to fire, rolls one die [004; decisions 40, 41]"),
                    dice: symbol_dice("Fumblethumbs die", &f),
                    modifiers: Vec::new(),
                    totals: Vec::new(),
                    result: result.clone(),
                });
                r.say(result);
                finish(r, true)
            })
        }
        "devils-match" => {
            let pending = st.pending.clone();
            if let Some(gun) = pending {
                // The second step: the adjacent units roll.
                r.st.pending = None;
                return devils_neighbours(r, gun, second, finish);
            }
            let from = own(&st, side, |u| u.class == Class::Artillery);
            if from.is_empty() {
                return finish(r, false);
            }
            pick_one(r, from, card.name, move |r, gun| {
                let classes = FaceClasses::of(&[2, 2, 2, 0, 1, 2]);
                let name = name_of(&r.st, &gun);
                throw(1, 6, "Devil's Match die", Depends::Classes(classes)).and_then(move |f| {
                    let mut r = r.clone();
                    let k = classes.class(f[0]);
                    r.steps.push(Step {
                        title: format!("The Devil's Match: {name} rolls one die: Artillery or Sabres lose a block; Sabres blast the neighbours [004]"),
                        dice: symbol_dice("Devil's Match die", &f),
                        modifiers: Vec::new(),
                        totals: Vec::new(),
                        result: match k { 0 => format!("{name} loses 1 block"), 1 => format!("{name} loses 1 block and the blast reaches the adjacent units"), _ => "no explosion".into() },
                    });
                    if k <= 1 {
                        lose_blocks(&mut r, &gun, 1, "The Devil's Match");
                    }
                    if k == 1 {
                        r.st.pending = Some(gun.clone());
                        r.st.phase = Phase::ChaunceResolve;
                        r.say("name the units adjacent to the gun, not in a town, wood or earthworks (`resolve_chaunce` target)");
                        return done(r);
                    }
                    finish(r, true)
                })
            })
        }
        "friendly-fire" => {
            let gun = st.pending.clone();
            if gun.is_some() {
                r.st.pending = None;
            }
            let (Some(gun), Some(target)) = (gun, cands.first().cloned()) else {
                return finish(r, false);
            };
            let (Some(g), Some(_)) = (st.unit(&gun), st.unit(&target)) else {
                return finish(r, false);
            };
            let (n, mods) = match resolve::dice(
                &roller_of(&st, g, Kind::Ranged, false, true),
                Kind::Ranged,
                0,
            ) {
                Ok(x) => x,
                Err(_) => return finish(r, false),
            };
            hit_unit(
                r,
                Hit {
                    roller: gun,
                    target,
                    kind: Kind::Ranged,
                    n,
                    mods,
                    room: None,
                    ignores: 0,
                    retiring: false,
                    label: "Friendly Fire",
                },
                move |r, _| finish(r, true),
            )
        }
        "going-for-it" => {
            let pending = st.pending.clone();
            if let Some(unit) = pending {
                r.st.pending = None;
                let Some(t) = second
                    .first()
                    .and_then(|t| st.unit(t))
                    .filter(|t| t.side == opp && t.gone.is_none() && !t.spare)
                else {
                    return finish(r, false);
                };
                let tid = t.id.clone();
                r.st.window = Some(Window {
                    attacker: unit.clone(),
                    target: tid,
                    terrain: 0,
                    battle_back_terrain: 0,
                    target_room: None,
                    attacker_room: None,
                    target_ignores: 0,
                    bonus: false,
                    chaunce: true,
                });
                r.st.phase = Phase::Window;
                r.st.chaunce = None;
                r.say(format!(
                    "{} charges {}: {} answer",
                    name_of(&st, &unit),
                    t.name,
                    st.side_name(opp)
                ));
                return done(r);
            }
            if cands.is_empty() {
                return finish(r, false);
            }
            pick_one(r, cands, card.name, move |mut r, u| {
                r.st.pending = Some(u.clone());
                r.say(format!(
                    "{} charges: name the nearest enemy unit (`resolve_chaunce` target)",
                    name_of(&r.st, &u)
                ));
                done(r)
            })
        }
        "lay-down-your-armes" => {
            let pending = st.pending.clone();
            if pending.is_some() {
                r.st.pending = None;
                let captors: Vec<String> = second
                    .iter()
                    .filter(|t| {
                        st.unit(t)
                            .is_some_and(|x| x.side == opp && x.gone.is_none())
                    })
                    .cloned()
                    .collect();
                if captors.is_empty() {
                    return finish(r, true);
                }
                return pick_one(
                    r,
                    captors,
                    "Lay Down Your Armes: captor",
                    move |mut r, c| {
                        let x = r.st.unit(&c).expect("captor");
                        let name = x.name.clone();
                        if x.blocks > 1 {
                            lose_blocks(&mut r, &c, 1, "prisoner guards");
                            r.say(format!("{name} loses 1 block as prisoner guards"));
                        } else {
                            r.say(format!("{name} keeps its last block (decision 38)"));
                        }
                        finish(r, true)
                    },
                );
            }
            if cands.is_empty() {
                return finish(r, false);
            }
            pick_one(r, cands, card.name, move |mut r, u| {
                let b = r.st.unit(&u).map_or(0, |x| u32::from(x.blocks));
                if let Some(l) = r.st.leader_of(&u).map(|l| l.id.clone()) {
                    if let Some(l) = r.st.leader_mut(&l) {
                        l.unit = None;
                    }
                }
                lose_blocks(&mut r, &u, b, "surrendered (Lay Down Your Armes)");
                r.st.pending = Some(u.clone());
                r.st.phase = Phase::ChaunceResolve;
                r.say(
                    "name the adjacent enemy units it may surrender to (`resolve_chaunce` target)",
                );
                check_victory(&mut r);
                done(r)
            })
        }
        "damned-turncotes" => {
            if cands.is_empty() {
                return finish(r, false);
            }
            pick_one(r, cands, card.name, move |mut r, u| {
                let name = name_of(&r.st, &u);
                let leader = r.st.leader_of(&u).map(|l| l.id.clone());
                leave_stand(&mut r.st, &u);
                if let Some(x) = r.st.unit_mut(&u) {
                    x.side = opp;
                }
                banner(
                    &mut r,
                    opp,
                    format!("{name} changes sides (Damned Turncotes)"),
                );
                if let Some(l) = leader {
                    let lname = r.st.leader(&l).map_or(String::new(), |x| x.name.clone());
                    if let Some(x) = r.st.leader_mut(&l) {
                        x.side = opp;
                    }
                    banner(&mut r, opp, format!("{lname} defects with it"));
                }
                r.say(format!(
                    "{name} may move up to 3 hexes to join its new comrades"
                ));
                finish(r, true)
            })
        }
        "exceeding-nervose"
        | "who-drew-this-mappe"
        | "old-davey"
        | "two-inches-depe"
        | "what-was-in-that-barn" => {
            if cands.is_empty() {
                return finish(r, false);
            }
            pick_one(r, cands, card.name, move |mut r, x| {
                let what = match id {
                    "exceeding-nervose" => format!(
                        "{} retires 3 hexes (not across an unfordable river, not into contact)",
                        name_of(&r.st, &x)
                    ),
                    "who-drew-this-mappe" => format!(
                        "{} finds itself in a marsh: mark the ground",
                        name_of(&r.st, &x)
                    ),
                    "old-davey" => format!("{x} becomes fordable"),
                    "two-inches-depe" => format!("{x} becomes unfordable"),
                    _ => format!("{x} burns for the rest of the day and must be abandoned"),
                };
                if id != "exceeding-nervose" {
                    r.st.chronicle.push(format!("{}: {what}", card.name));
                }
                r.say(what);
                finish(r, true)
            })
        }
        "weak-bridge" => {
            let pending = st.pending.clone();
            if pending.is_some() {
                r.st.pending = None;
                for u in &second {
                    if let Some(x) = st.unit(u).filter(|x| x.gone.is_none() && !x.spare) {
                        let b = u32::from(x.blocks);
                        lose_blocks(&mut r, u, b, "the bridge collapsed");
                    }
                }
                return finish(r, true);
            }
            if cands.is_empty() {
                return finish(r, false);
            }
            pick_one(r, cands, card.name, move |mut r, b| {
                r.st.chronicle.push(format!("Weak Bridge: {b} collapses"));
                r.st.pending = Some("bridge".into());
                r.st.phase = Phase::ChaunceResolve;
                r.say(format!(
                    "{b} collapses: name the units on it (`resolve_chaunce` target; empty if none)"
                ));
                done(r)
            })
        }
        _ => finish(r, true),
    }
}

fn devils_neighbours(
    r: Res,
    _gun: String,
    units: Vec<String>,
    finish: impl Fn(Res, bool) -> P + Clone + 'static,
) -> P {
    let st = r.st.clone();
    let victims: Vec<UnitState> = units
        .iter()
        .filter_map(|u| st.unit(u))
        .filter(|u| u.gone.is_none() && !u.spare)
        .cloned()
        .collect();
    fn next(r: Res, mut left: Vec<UnitState>, finish: std::rc::Rc<dyn Fn(Res, bool) -> P>) -> P {
        let Some(u) = left.pop() else {
            return finish(r, true);
        };
        Plan::die(Die::d6(format!("Devil's Match: {}", u.name)), move |f| {
            let mut r = r.clone();
            let s = tables::symbol(f);
            let result = if s == u.class.hit_by() {
                lose_blocks(&mut r, &u.id, 1, "The Devil's Match");
                format!("{} loses 1 block", u.name)
            } else if s == Symbol::Flag {
                match r.st.leader_of(&u.id).map(|l| l.id.clone()) {
                    Some(l) => {
                        lose_leader(&mut r, &l, "The Devil's Match");
                        format!("the leader with {} is lost", u.name)
                    }
                    None => format!("{}: a Flag, no leader", u.name),
                }
            } else {
                format!("{}: unharmed", u.name)
            };
            r.steps.push(Step {
                title: format!("The Devil's Match: {} [004]", u.name),
                dice: vec![tercio_core::RolledDie {
                    label: format!("Devil's Match ({s:?})"),
                    sides: 6,
                    face: f,
                }],
                modifiers: Vec::new(),
                totals: Vec::new(),
                result: result.clone(),
            });
            r.say(result);
            next(r, left.clone(), finish.clone())
        })
    }
    next(r, victims, std::rc::Rc::new(finish))
}

fn swap(st: &State, a: &Value) -> Result<P, Rejection> {
    let mut r = Res::new(st);
    let side = st.active;
    let mut notes = Vec::new();
    if let Some(id) = s_field(a, "card") {
        let Some(p) = st.sides[side]
            .hand
            .iter()
            .position(|&c| command_kind(c).id == id)
        else {
            return Err(reject(
                "not-in-hand",
                Some("card"),
                format!("card: \"{id}\" is not in your hand"),
            ));
        };
        let c = r.st.sides[side].hand.remove(p);
        r.st.discard.push(c);
        if let Some(n) = r.st.draw_command(&mut notes) {
            r.st.sides[side].hand.push(n);
        }
        notes.insert(
            0,
            format!(
                "{} discard {} and draw a card",
                st.side_name(side),
                command_kind(c).name
            ),
        );
    } else {
        notes.push(format!("{} keep their hand", st.side_name(side)));
    }
    r.st.sync_counts();
    hand_over(&mut r, notes);
    Ok(done(r))
}

fn dizzy_pick(st: &State, a: &Value) -> Result<P, Rejection> {
    let side = st.active;
    let n = st.sides[side].hand.len() as i64;
    let p = num(a, "position", 1, n.max(1))?.ok_or_else(|| {
        reject(
            "missing-field",
            Some("position"),
            format!("position: 1 to {n}"),
        )
    })?;
    let mut r = Res::new(st);
    // The backs are laid out in a fresh order of their own (decision 29).
    let order = shuffled(st.salt, 1000 + st.turn, (0..n as u8).collect());
    let i = usize::from(order[(p - 1) as usize]);
    let c = r.st.sides[side].hand.remove(i);
    r.st.discard.push(c);
    let lim = &mut r.st.sides[side].hand_limit;
    *lim = (*lim).saturating_sub(1).max(1);
    let msg = format!(
        "{} pick card {p}: {} goes to the discards; {} hold {} cards from now on (decision 29)",
        st.side_name(1 - side),
        command_kind(c).name,
        st.side_name(side),
        r.st.sides[side].hand_limit
    );
    r.step("The Dizziness [004, CHAUNCE CARDS]", msg.clone());
    r.say(msg);
    next_after_chaunce(&mut r);
    Ok(done(r))
}
