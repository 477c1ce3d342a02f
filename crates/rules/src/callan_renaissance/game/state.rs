//! State.

use super::*;

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
    /// BW of field works that are a difficult obstacle, bought in the points (D75).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub works_difficult: u32,
    /// BW of field works that are a very difficult obstacle (D75).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub works_very: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The obstacle ids of an army's field works (D75): `opere-<side>-difficili` and
/// `opere-<side>-molto-difficili`, with their difficulty.
pub fn works_obstacles(side: &SideState) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    if side.works_difficult > 0 {
        out.push((format!("opere-{}-difficili", side.id), "difficile"));
    }
    if side.works_very > 0 {
        out.push((
            format!("opere-{}-molto-difficili", side.id),
            "molto-difficile",
        ));
    }
    out
}

/// An obstacle as players read it: the scenario's name for it, an army's field works by their
/// side, or (one the table named in an action) the name it was given.
pub fn obstacle_name(st: &State, id: &str) -> String {
    if let Some(n) = st.obstacle_names.get(id) {
        return n.clone();
    }
    for s in &st.sides {
        for (works, d) in works_obstacles(s) {
            if works == id {
                return m(
                    &format!("callan.obstacle.works-{d}"),
                    &[("side", s.name.clone())],
                );
            }
        }
    }
    id.to_string()
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
    /// Moved with a charge move this turn: its attack is a charge (the Mischia form starts
    /// ticked; rules version 3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub charge_moved: bool,
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
    /// It lost a base to enemy fire this turn: it may not reform (D72; rules version 4).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lost_to_fire: bool,
    /// An obstacle it has reached and will cross on a later turn (D74; rules version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossing: Option<Crossing>,
}

/// A crossing begun and not yet finished (D74): foot at a very difficult obstacle ("La fanteria
/// può attraversarlo solo nel turno successivo e poi va in disordine"), or a unit that chose to
/// wait at a difficult one ("consideralo facile da attraversare nel turno successivo se
/// indifeso").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Crossing {
    /// The obstacle's id, as the state's `obstacles` names it.
    pub obstacle: String,
    /// Its difficulty: `difficile` or `molto-difficile`.
    pub difficulty: String,
    /// The turn the unit reached it: it crosses from the turn after.
    pub turn: u32,
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
    pub(super) fn weight(&self) -> u32 {
        if self.troop.is_gun() {
            2
        } else {
            self.quality.loss_halves()
        }
    }
    pub(super) fn base_points(&self, cfg: &Cfg) -> u32 {
        self.troop.points(self.quality, cfg.points_veteran_cavalry)
    }
    /// Veteran infantry never tests (D47).
    pub(super) fn never_panics(&self) -> bool {
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
    /// The bases its last round counted: front and rear of `units[0]`, then of `units[1]`; the
    /// next round's form starts from them (rules version 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bases: Option<[u32; 4]>,
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
    /// The scenario's obstacles' names (message text), by id ([`obstacle_name`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub obstacle_names: BTreeMap<String, String>,
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
    pub(super) fn unit_mut(&mut self, id: &str) -> Option<&mut UnitState> {
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

pub(super) fn field_msg(key: &str, field: &str, args: &[(&str, String)]) -> String {
    let mut a = vec![("field", field.to_string())];
    a.extend(args.iter().cloned());
    m(key, &a)
}
