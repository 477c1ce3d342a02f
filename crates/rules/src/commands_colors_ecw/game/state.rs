//! The state of a game, the state of a new game, and who may see each of its values.

use super::*;

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
    /// It moved into a wood or a built-up hex this turn: it may not battle until the turn ends
    /// (CCN terrain; dragoons never carry it, decision 64). Left out while false, so a state
    /// recorded before the field existed reads and writes back the same.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub entered_woods_or_town: bool,
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

impl Played {
    /// Card `card` played as `effective`, ordering no unit (an Evade with nothing else in hand,
    /// a Hazzard a Chaunce presented).
    pub fn ordering_none(card: u8, effective: &str) -> Played {
        Played {
            card,
            effective: effective.into(),
            limits: None,
            shared: false,
            scout: false,
            orders: Vec::new(),
            pool: None,
            rally: None,
            march: None,
            combat: false,
            moving: false,
        }
    }
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
    /// No control roll now: one was made after this melee, or one failed earlier this turn
    /// (with `compelled`: the unit stays out of control for the turn, decision 59).
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
    pub(super) fn unit(&self, id: &str) -> Option<&UnitState> {
        self.units.iter().find(|u| u.id == id)
    }
    pub(super) fn unit_mut(&mut self, id: &str) -> Option<&mut UnitState> {
        self.units.iter_mut().find(|u| u.id == id)
    }
    pub(super) fn leader(&self, id: &str) -> Option<&LeaderState> {
        self.leaders.iter().find(|l| l.id == id)
    }
    pub(super) fn leader_mut(&mut self, id: &str) -> Option<&mut LeaderState> {
        self.leaders.iter_mut().find(|l| l.id == id)
    }
    /// The leader attached to a unit, if any.
    pub(super) fn leader_of(&self, unit: &str) -> Option<&LeaderState> {
        self.leaders
            .iter()
            .find(|l| l.gone.is_none() && l.unit.as_deref() == Some(unit))
    }
    pub(super) fn live_units(&self, side: usize) -> impl Iterator<Item = &UnitState> {
        self.units
            .iter()
            .filter(move |u| u.side == side && u.gone.is_none() && !u.spare)
    }
    pub(super) fn side_name(&self, i: usize) -> String {
        self.sides.get(i).map_or(String::new(), |s| s.name.clone())
    }
    /// Command: the hand, the card being played included; never the track (decision 55).
    pub(super) fn command(&self, side: usize) -> u32 {
        self.sides[side]
            .hidden
            .unwrap_or(self.sides[side].hand.len() as u32)
    }
}

pub(super) fn reject(code: &str, field: Option<&str>, msg: impl Into<String>) -> Rejection {
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
            name: u.name.message().into_owned(),
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
            entered_woods_or_town: false,
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
            name: l.name.message().into_owned(),
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
            name: x.name.message().into_owned(),
            hand: Vec::new(),
            hidden: None,
            hand_limit: u32::try_from(hands[i.min(1)]).unwrap_or_default(),
            track: Vec::new(),
            scout: Vec::new(),
            banners: 0,
            banners_to_win: u32::try_from(banners[i.min(1)]).unwrap_or_default(),
            chaunce_due: 0,
            evade_draw: 0,
            artillery_horses: false,
            chickweed: false,
            last_card: None,
        })
        .collect();
    Ok(State {
        ruleset: crate::commands_colors_ecw::RULESET_ID.into(),
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
