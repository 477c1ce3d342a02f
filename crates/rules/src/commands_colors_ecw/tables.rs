//! The battle die and the combat charts of the English Civil War variant, as data, each with its
//! source (design sections 2 and 6 of `docs/rules/commands-colors-ecw.md`).

use serde::{Deserialize, Serialize};
use tercio_core::FaceClasses;

/// The six faces of the base game's battle die, by face number (design 6.1; CCN: Infantry ×2,
/// Cavalry, Artillery, Crossed Sabres, Flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Symbol {
    Infantry,
    Cavalry,
    Artillery,
    Sabre,
    Flag,
}

pub const FACES: [Symbol; 6] = [
    Symbol::Infantry,
    Symbol::Infantry,
    Symbol::Cavalry,
    Symbol::Artillery,
    Symbol::Sabre,
    Symbol::Flag,
];

impl Symbol {
    /// The symbol's name, a glossary term argument (`@ecw.term.symbol-<name>`).
    pub fn term(self) -> String {
        let id = match self {
            Symbol::Infantry => "infantry",
            Symbol::Cavalry => "cavalry",
            Symbol::Artillery => "artillery",
            Symbol::Sabre => "sabre",
            Symbol::Flag => "flag",
        };
        format!("@ecw.term.symbol-{id}")
    }
}

pub fn symbol(face: u8) -> Symbol {
    FACES[usize::from(face.clamp(1, 6) - 1)]
}

/// The unit classes (design 2.1; 004, Foot, Horse, Dragoons, Artillery).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Foot (`FT`), with pikes unless the scenario says otherwise.
    Foot,
    /// Clubmen (`CL`): militia with hand weapons.
    Clubmen,
    /// Cuirassiers (`CU`): not hit by sabres.
    Cuirassiers,
    /// Trotters (`TR`).
    Trotters,
    /// Gallopers (`GA`).
    Gallopers,
    /// Dragoons (`DR`), mounted or not: hit by cavalry symbols either way.
    Dragoons,
    /// Artillery (`AR`).
    Artillery,
}

impl Class {
    pub fn horse(self) -> bool {
        matches!(
            self,
            Class::Cuirassiers | Class::Trotters | Class::Gallopers
        )
    }
    /// The symbol that hits it (design 6.3): infantry for foot, cavalry for horse and dragoons
    /// ("anyone fighting dragoons is looking for Cavalry hits, whether the dragoons are mounted
    /// or not", 004, Dragoons), artillery for guns.
    pub fn hit_by(self) -> Symbol {
        match self {
            Class::Foot | Class::Clubmen => Symbol::Infantry,
            Class::Cuirassiers | Class::Trotters | Class::Gallopers | Class::Dragoons => {
                Symbol::Cavalry
            }
            Class::Artillery => Symbol::Artillery,
        }
    }
}

/// Training (design 2.2; 004, Sub-classifications).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Training {
    Veteran,
    Trained,
    Raw,
    Militia,
}

impl Training {
    /// The training's name, a glossary term argument (`@ecw.term.training-<name>`).
    pub fn term(self) -> String {
        let id = match self {
            Training::Veteran => "veteran",
            Training::Trained => "trained",
            Training::Raw => "raw",
            Training::Militia => "militia",
        };
        format!("@ecw.term.training-{id}")
    }
    /// "Veterans get extra dice in combat" (004).
    pub fn extra_dice(self) -> i32 {
        i32::from(self == Training::Veteran)
    }
    /// Raw units and militia "do not get to count Crossed-Sabres in melees" (004).
    pub fn scores_sabres(self) -> bool {
        matches!(self, Training::Veteran | Training::Trained)
    }
    /// Hexes per flag: raw "suffer double retreats", "militia get triple retreats" (004).
    pub fn hexes_per_flag(self) -> u32 {
        match self {
            Training::Raw => 2,
            Training::Militia => 3,
            _ => 1,
        }
    }
    /// Veterans "may ignore 1 retreat flag" (004).
    pub fn flags_ignored(self) -> u32 {
        u32::from(self == Training::Veteran)
    }
}

/// A battle: fire at range, a melee attack, or the defender's battle back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Ranged,
    Melee,
    BattleBack,
}

/// The classes of the die's faces for one battle: 0 a hit, 1 a flag, 2 a miss (design 6.3).
/// Sabres hit only in melee and battle back, only when the roller scores sabres, and never
/// cuirassiers (004, Horse: "Crossed-Sabres does not count as a hit against them"). A target that
/// Retires and Reforms is hit by cavalry symbols only and ignores flags (CCN tactics, design 6.11).
pub fn face_classes(target: Class, kind: Kind, sabres_scored: bool, retiring: bool) -> FaceClasses {
    let mut c = [2u8; 6];
    for (i, s) in FACES.iter().enumerate() {
        let hit = *s == target.hit_by()
            || (*s == Symbol::Sabre
                && kind != Kind::Ranged
                && sabres_scored
                && target != Class::Cuirassiers
                && !retiring);
        c[i] = if hit {
            0
        } else if *s == Symbol::Flag && !retiring {
            1
        } else {
            2
        };
    }
    FaceClasses::of(&c)
}

/// Where a section card's orders go (design 4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Section {
    Left,
    Centre,
    Right,
}

impl Section {
    pub const ALL: [Section; 3] = [Section::Left, Section::Centre, Section::Right];
    pub fn name(self) -> &'static str {
        match self {
            Section::Left => "left",
            Section::Centre => "centre",
            Section::Right => "right",
        }
    }
    /// The section's name, a glossary term argument (`@ecw.term.section-<name>`).
    pub fn term(self) -> String {
        format!("@ecw.term.section-{}", self.name())
    }
    pub fn parse(s: &str) -> Option<Section> {
        match s {
            "left" => Some(Section::Left),
            "centre" | "center" => Some(Section::Centre),
            "right" => Some(Section::Right),
            _ => None,
        }
    }
    /// The opposite flank, for a Counter-Attack copying a section card (decision 9).
    pub fn mirror(self) -> Section {
        match self {
            Section::Left => Section::Right,
            Section::Centre => Section::Centre,
            Section::Right => Section::Left,
        }
    }
}

/// How many units a card orders: a fixed number, or "equal to command" (the hand, the played
/// card included, the Stand of Pikes track not; 004, COMMAND CARDS; decision 55).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Fixed(u8),
    Command,
}

/// A command card's kind, with its printed count and what it orders (design 4.1-4.2; 004,
/// COMMAND CARDS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandCard {
    pub id: &'static str,
    pub name: &'static str,
    pub count: u8,
    /// Section cards: per-section limits (left, centre, right); `None` for tactic cards.
    pub sections: Option<[Option<Count>; 3]>,
    /// A section card whose limit is shared between the sections it names (Refuse Left: command,
    /// on the right flank or in the centre).
    pub shared: bool,
    pub scout: bool,
    pub text: &'static str,
}

const fn section(
    id: &'static str,
    name: &'static str,
    count: u8,
    sections: [Option<Count>; 3],
    shared: bool,
    scout: bool,
    text: &'static str,
) -> CommandCard {
    CommandCard {
        id,
        name,
        count,
        sections: Some(sections),
        shared,
        scout,
        text,
    }
}

const fn tactic(
    id: &'static str,
    name: &'static str,
    count: u8,
    text: &'static str,
) -> CommandCard {
    CommandCard {
        id,
        name,
        count,
        sections: None,
        shared: false,
        scout: false,
        text,
    }
}

const F1: Option<Count> = Some(Count::Fixed(1));
const F2: Option<Count> = Some(Count::Fixed(2));
const F3: Option<Count> = Some(Count::Fixed(3));
const CMD: Option<Count> = Some(Count::Command);

/// The 72 command cards: 48 section cards and 24 tactic cards, each with the count the seed
/// prints (004, COMMAND CARDS, "Section Cards (48)", "Tactic Cards (24)"; design 4).
pub const COMMAND_CARDS: [CommandCard; 28] = [
    section("scout-left", "Scout Left Flank", 2, [F1, None, None], false, true, "Issue an order to 1 unit or Leader on the Left Flank. When drawing a new Command card, draw two, choose one and discard the other."),
    section("scout-centre", "Scout Center", 2, [None, F1, None], false, true, "Issue an order to 1 unit or Leader in the Center. When drawing a new Command card, draw two, choose one and discard the other."),
    section("scout-right", "Scout Right Flank", 2, [None, None, F1], false, true, "Issue an order to 1 unit or Leader on the Right Flank. When drawing a new Command card, draw two, choose one and discard the other."),
    section("probe-left", "Probe Left Flank", 4, [F2, None, None], false, false, "Issue an order to 2 units or Leaders on the Left Flank."),
    section("probe-centre", "Probe Center", 6, [None, F2, None], false, false, "Issue an order to 2 units or Leaders in the Center."),
    section("probe-right", "Probe Right Flank", 4, [None, None, F2], false, false, "Issue an order to 2 units or Leaders on the Right Flank."),
    section("attack-left", "Attack Left Flank", 4, [F3, None, None], false, false, "Issue an order to 3 units or Leaders on the Left Flank."),
    section("attack-centre", "Attack Center", 6, [None, F3, None], false, false, "Issue an order to 3 units or Leaders in the Center."),
    section("attack-right", "Attack Right Flank", 4, [None, None, F3], false, false, "Issue an order to 3 units or Leaders on the Right Flank."),
    section("assault-left", "Assault Left Flank", 2, [CMD, None, None], false, false, "Issue an order to units or Leaders equal to command on the Left Flank."),
    section("assault-centre", "Assault Center", 2, [None, CMD, None], false, false, "Issue an order to units or Leaders equal to command in the Center."),
    section("assault-right", "Assault Right Flank", 2, [None, None, CMD], false, false, "Issue an order to units or Leaders equal to command on the Right Flank."),
    section("coordinated-advance", "Coordinated Advance", 2, [F1, F2, F1], false, false, "Issue an order to 4 units or Leaders: 1 on the Left Flank, 2 in the Center and 1 on the Right Flank."),
    section("flank-attack", "Flank Attack", 2, [F2, None, F2], false, false, "Issue an order to 2 units or Leaders on each flank."),
    section("refuse-left", "Refuse Left", 2, [None, CMD, CMD], true, false, "Issue an order to units or Leaders equal to command on the Right Flank or in the Center."),
    section("refuse-right", "Refuse Right", 2, [CMD, CMD, None], true, false, "Issue an order to units or Leaders equal to command on the Left Flank or in the Center."),
    tactic("bold-dragooneers", "Bold Dragooneers", 2, "One unit of Dragoons may make a further complete move after firing (but may not fire a second time). If you do not have any Dragoons, issue an order to 1 unit of your choice."),
    tactic("bombard", "Bombard", 2, "Issue an order to 4 or fewer artillery units: they may move up to 2 hexes and not battle, or may not move and battle with 1 additional die. If you do not have any artillery, issue an order to 1 unit of your choice."),
    tactic("charge-of-horse", "Charge of Horse", 3, "Issue an order to 4 or fewer units of horse (not Dragoons). Ordered units battle with 1 additional die the entire turn. Ordered Cuirassier and Trotter units may move 3 hexes and still battle. If you do not have any cavalry, issue an order to 1 unit of your choice."),
    tactic("counter-attack", "Counter-Attack", 2, "Issue the same order that your opponent played on the last turn: this card becomes a copy of the card your opponent played. When countering a Section card, the right flank becomes the left flank and the left flank the right. You may not copy an Evade or a Hazzard a Chaunce card."),
    tactic("evade", "Evade", 2, "Play after your opponent declares a melee attack, before the dice roll: the attacked unit evades. The attacker does not roll dice. The defender may retire 1 hex; the attacker may not take ground or break through. At the end of the turn you draw a replacement Command card first."),
    tactic("fire-and-hold", "Fire and Hold", 2, "Issue an order to 4 or fewer foot or artillery units not adjacent to the enemy: ranged combat with 1 additional die. They may not move before or after combat, but foot may come out of Stand of Pikes. If you have none, issue an order to 1 unit of your choice."),
    tactic("hazzard-a-chaunce", "Hazzard a Chaunce", 2, "Present this card to your opponent, who must take the top card from the Chaunce Cards pack; that ends your turn. Or issue an order to 1 unit or Leader of your choice."),
    tactic("leadership", "Leadership", 2, "Issue an order to all Leaders. A unit with an attached Leader is also ordered while the Leader remains with it. Ordered units battle with 1 additional die. A Leader who moves to join a unit does not order it. If you have no Leaders, issue an order to 1 unit of your choice."),
    tactic("march-to-victorye", "March to Victorye", 3, "All the units and Leaders in any one Section may make a normal move. They may not come into contact with the enemy or battle, and foot may not form or leave Stand of Pikes."),
    tactic("push", "Push!", 1, "Issue an order to all units adjacent to the enemy: they melee with 1 additional die, may not fire and may not move before the melee. After a successful melee, foot may take ground and horse may break through and make a Bonus Melee with its standard number of dice."),
    tactic("rallye", "Rallye", 2, "Roll battle dice equal to command. For each Foot, Horse or Artillery symbol, 1 block of that type returns to an under-strength unit; a unit may not exceed its starting blocks. Rallied units that gain a block are ordered."),
    tactic("lord-is-with-us", "The Lord Is With Us", 1, "Roll battle dice equal to command. For each symbol, 1 unit of that type is ordered; each Flag orders 1 unit or Leader of your choice; Sabres order nothing. Ordered units battle with 1 additional die the entire turn. Reshuffle the Command deck and discards."),
];

impl CommandCard {
    /// The card's name, a message (`ecw_cards.command.<id>.name`).
    pub fn title(&self) -> String {
        tercio_i18n::msg(&format!("ecw_cards.command.{}.name", self.id), &[])
    }
    /// The card's rules text, a message (`ecw_cards.command.<id>.text`).
    pub fn rules(&self) -> String {
        tercio_i18n::msg(&format!("ecw_cards.command.{}.text", self.id), &[])
    }
}

pub fn command_card(id: &str) -> Option<&'static CommandCard> {
    COMMAND_CARDS.iter().find(|c| c.id == id)
}

/// The deck as card numbers 0..72: number `n` is the kind at that position of the printed counts.
pub fn command_kind(n: u8) -> &'static CommandCard {
    let mut left = n;
    for c in &COMMAND_CARDS {
        if left < c.count {
            return c;
        }
        left -= c.count;
    }
    &COMMAND_CARDS[COMMAND_CARDS.len() - 1]
}

pub fn command_deck_size() -> u8 {
    COMMAND_CARDS.iter().map(|c| c.count).sum()
}

/// What a Chaunce card does to the turn (design 5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    GoesOn,
    /// Replaces the turn (with the optional swap of one command card), unless it finds no target.
    Replaced,
    /// The Fogge of War: replaces the turn with no swap.
    ReplacedNoSwap,
}

/// The Chaunce cards by name, one per title of the pack (the False Alarums share one): what
/// each does is chosen by an exhaustive match on it, so a title added here and not given its
/// effect does not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chaunce {
    PrinceAmongSarjeants,
    StSwithun,
    ArtilleryHorses,
    BadPowder,
    Chickweed,
    DamnedTurncotes,
    ExceedingNervose,
    FalseAlarum,
    FriendlyFire,
    Fumblethumbs,
    GoingForIt,
    GrimmeReaper,
    HotForRevenge,
    NeverTouchTheStuff,
    LayDownYourArmes,
    MyLordYouArePayle,
    NoOrders,
    OBuggerIt,
    OldDavey,
    TwoInchesDepe,
    Rabbits,
    SoftGoing,
    CoronelsTrubble,
    TheDizziness,
    FoggeOfWar,
    InspiredWorde,
    GoldInTheBaggage,
    TwasButAMistake,
    BiterBit,
    DevilsMatch,
    VictoryeIsOurs,
    WeakBridge,
    WereBack,
    WhatWasInThatBarn,
    WhoDrewThisMappe,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChaunceCard {
    pub card: Chaunce,
    pub id: &'static str,
    pub name: &'static str,
    pub count: u8,
    pub turn: Turn,
    pub text: &'static str,
}

const fn ch(
    card: Chaunce,
    id: &'static str,
    name: &'static str,
    count: u8,
    turn: Turn,
    text: &'static str,
) -> ChaunceCard {
    ChaunceCard {
        card,
        id,
        name,
        count,
        turn,
        text,
    }
}

/// The Chaunce pack: 35 titles, 45 cards (004, CHAUNCE CARDS; design 5; decision 1). The False
/// Alarum count is the house rule `ecw.false_alarums`.
pub const CHAUNCE_CARDS: [ChaunceCard; 35] = [
    ch(Chaunce::PrinceAmongSarjeants, "prince-among-sarjeants", "A Prince Among Sarjeants", 1, Turn::GoesOn, "One of your units (random) goes up one step: raw to trained, trained to veteran. No effect on militia or veterans."),
    ch(Chaunce::StSwithun, "st-swithun", "All Hail St. Swithun", 1, Turn::GoesOn, "Torrential rain: no ranged combat at all for 2 complete turns (2 each side)."),
    ch(Chaunce::ArtilleryHorses, "artillery-horses", "Artillery Horses", 1, Turn::GoesOn, "Your artillery horses have bolted: your artillery cannot move for the rest of the day."),
    ch(Chaunce::BadPowder, "bad-powder", "Bad Powder", 1, Turn::GoesOn, "One of your Foot or Dragoons (random) retires to your baseline and stays there 1 turn without firing."),
    ch(Chaunce::Chickweed, "chickweed", "Chickweed", 1, Turn::GoesOn, "All your horse, dragoons included: mounted movement 1 hex less for the rest of the day."),
    ch(Chaunce::DamnedTurncotes, "damned-turncotes", "Damned Turncotes", 1, Turn::Replaced, "One of your units within 4 hexes of the enemy (random) changes sides and may move up to 3 hexes; an attached leader defects too. The loss gives Victory Banners as normal."),
    ch(Chaunce::ExceedingNervose, "exceeding-nervose", "Exceeding Nervose", 1, Turn::Replaced, "Your most advanced unit (random among ties) retires 3 hexes, not across an unfordable river and not into contact."),
    ch(Chaunce::FalseAlarum, "false-alarum", "False Alarum", 11, Turn::GoesOn, "You may take your turn as normal."),
    ch(Chaunce::FriendlyFire, "friendly-fire", "Friendly Fire", 1, Turn::Replaced, "One of your artillery units (random) fires on the nearest friendly unit."),
    ch(Chaunce::Fumblethumbs, "fumblethumbs", "Fumblethumbs", 1, Turn::Replaced, "The last unit of Foot to fire (either side) rolls one die: an Infantry symbol loses it 1 block, a Flag retreats it 2 hexes."),
    ch(Chaunce::GoingForIt, "going-for-it", "Going For It Bald-Headed", 1, Turn::Replaced, "One of your cavalry units within 4 hexes of the enemy (random) charges the nearest enemy; normal rules for breakthrough and bonus melee."),
    ch(Chaunce::GrimmeReaper, "grimme-reaper", "Grimme Reaper", 1, Turn::GoesOn, "One of your units (random) rolls one die per block: each matching symbol, a block deserts."),
    ch(Chaunce::HotForRevenge, "hot-for-revenge", "Hot for Revenge", 1, Turn::GoesOn, "Two of your units (random): 1 additional die in combat for the rest of the day."),
    ch(Chaunce::NeverTouchTheStuff, "never-touch-the-stuff", "I Shall Never Touch the Stuff Againe", 1, Turn::GoesOn, "One of your units (random): 1 die less in all combat for the rest of the day."),
    ch(Chaunce::LayDownYourArmes, "lay-down-your-armes", "Lay Down Your Armes", 1, Turn::Replaced, "One of your units adjacent to an enemy (random) surrenders and is lost; the unit it surrenders to loses 1 block as prisoner guards."),
    ch(Chaunce::MyLordYouArePayle, "my-lord-you-are-payle", "My Lord, You Are Payle", 1, Turn::Replaced, "One of your leaders (random) rolls 1D6: 1 unhurt, 2 just a scratch, 3 flesh wound, 4 severe wound, 5 mortal wound, 6 dead. At 4 or more he leaves the field."),
    ch(Chaunce::NoOrders, "no-orders", "No Orders", 1, Turn::Replaced, "Every attached leader of yours detaches to the nearest empty hex not adjacent to an enemy."),
    ch(Chaunce::OBuggerIt, "o-bugger-it", "O Bugger It", 1, Turn::GoesOn, "One of your militia or raw units (random) goes home."),
    ch(Chaunce::OldDavey, "old-davey", "Old Davey Findes a Crossing", 1, Turn::GoesOn, "An unfordable river section (random) becomes fordable."),
    ch(Chaunce::TwoInchesDepe, "two-inches-depe", "Only 2 Inches Depe on the Ducks", 1, Turn::GoesOn, "A fordable river section (random) becomes unfordable."),
    ch(Chaunce::Rabbits, "rabbits", "Rabbits!", 1, Turn::GoesOn, "One of your mounted units (random) loses a block and cannot move for 1 turn."),
    ch(Chaunce::SoftGoing, "soft-going", "Soft Going", 1, Turn::GoesOn, "All mounted troops of both sides: 1 hex less movement for the rest of the day."),
    ch(Chaunce::CoronelsTrubble, "coronels-trubble", "The Coronel's Trubble Again", 1, Turn::GoesOn, "One of your units (random) takes no orders until a leader is attached to it."),
    ch(Chaunce::TheDizziness, "the-dizziness", "The Dizziness", 1, Turn::GoesOn, "Your opponent picks one Command card from your hand, unseen, for the discards; for the rest of the day you hold 1 Command card less."),
    ch(Chaunce::FoggeOfWar, "fogge-of-war", "The Fogge of War", 1, Turn::ReplacedNoSwap, "Discard all your Command cards and replace them from the deck; reshuffle deck and discards. This ends your turn, and you may take no further action."),
    ch(Chaunce::InspiredWorde, "inspired-worde", "The Inspired Worde", 1, Turn::GoesOn, "One of your units (random): 1 additional die in all combat for the rest of the day."),
    ch(Chaunce::GoldInTheBaggage, "gold-in-the-baggage", "They Say There Is Gold in the Baggage", 1, Turn::GoesOn, "One of your units (random): 1 additional die in all combats for the rest of the day."),
    ch(Chaunce::TwasButAMistake, "twas-but-a-mistake", "T'was But a Mistake", 1, Turn::GoesOn, "One of your leader casualties (random) returns on your baseline; adjust Victory Banners."),
    ch(Chaunce::BiterBit, "biter-bit", "The Biter Bit", 1, Turn::Replaced, "Ask your opponent to take a Chaunce card himself."),
    ch(Chaunce::DevilsMatch, "devils-match", "The Devil's Match", 1, Turn::Replaced, "One of your artillery units (random) rolls one die: Artillery or Sabres eliminate 1 block; on Sabres each adjacent unit not in a town, wood or earthworks rolls one die: a matching symbol removes a block, a Flag removes an attached leader."),
    ch(Chaunce::VictoryeIsOurs, "victorye-is-ours", "Victorye Is Ours", 1, Turn::GoesOn, "One of your horse units, not dragoons (random), becomes Rash Gallopers, whichever side they are on."),
    ch(Chaunce::WeakBridge, "weak-bridge", "Weak Bridge", 1, Turn::GoesOn, "A bridge (random) collapses; any unit on it is lost."),
    ch(Chaunce::WereBack, "were-back", "We're Back", 1, Turn::GoesOn, "Roll for type: Artillery, Foot, Horse or Leader (Flag); Sabres: it was just a rumour. The returning unit is placed on your baseline."),
    ch(Chaunce::WhatWasInThatBarn, "what-was-in-that-barn", "What Was In That Barn?", 1, Turn::GoesOn, "An occupied built-up hex (random; else an unoccupied one) burns for the rest of the day and must be abandoned."),
    ch(Chaunce::WhoDrewThisMappe, "who-drew-this-mappe", "Who Drew This Mappe?", 1, Turn::GoesOn, "One of your units in open terrain (random) finds itself in a marsh."),
];

impl ChaunceCard {
    /// The card's name, a message (`ecw_cards.chaunce.<id>.name`).
    pub fn title(&self) -> String {
        tercio_i18n::msg(&format!("ecw_cards.chaunce.{}.name", self.id), &[])
    }
    /// The card's rules text, a message (`ecw_cards.chaunce.<id>.text`).
    pub fn rules(&self) -> String {
        tercio_i18n::msg(&format!("ecw_cards.chaunce.{}.text", self.id), &[])
    }
}

pub fn chaunce_card(id: &str) -> Option<&'static ChaunceCard> {
    CHAUNCE_CARDS.iter().find(|c| c.id == id)
}

#[cfg(test)]
mod catalogue_tests {
    use super::*;
    use tercio_i18n::Lang;

    /// Every card's name and text is in both catalogues.
    #[test]
    fn every_card_speaks_both_languages() {
        for lang in Lang::ALL {
            for c in &COMMAND_CARDS {
                assert!(
                    tercio_i18n::has(lang, &format!("ecw_cards.command.{}.name", c.id)),
                    "{}",
                    c.id
                );
                assert!(
                    tercio_i18n::has(lang, &format!("ecw_cards.command.{}.text", c.id)),
                    "{}",
                    c.id
                );
            }
            for c in &CHAUNCE_CARDS {
                assert!(
                    tercio_i18n::has(lang, &format!("ecw_cards.chaunce.{}.name", c.id)),
                    "{}",
                    c.id
                );
                assert!(
                    tercio_i18n::has(lang, &format!("ecw_cards.chaunce.{}.text", c.id)),
                    "{}",
                    c.id
                );
            }
        }
        assert_eq!(
            tercio_i18n::localize(Lang::En, &COMMAND_CARDS[0].title()),
            COMMAND_CARDS[0].name
        );
        assert_eq!(
            tercio_i18n::localize(Lang::En, &CHAUNCE_CARDS[0].rules()),
            CHAUNCE_CARDS[0].text
        );
    }
}
