//! Every number of the rule set, with its citation (seed 003 headings; design sections §n and
//! decisions Dn of `docs/rules/callan-renaissance.md`).

use crate::interface::HouseRule;
use serde::{Deserialize, Serialize};

/// The troop types of `003, Le unità › Tipi di truppe` (design §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Troop {
    Picchieri,
    FanteriaDaMischia,
    Rodeleros,
    Alabardieri,
    Doppelsoldner,
    ContadiniArmati,
    Archibugieri,
    Balestrieri,
    Arcieri,
    Gendarmi,
    CavalleriaPesante,
    CavalleriaLeggera,
    ArtiglieriaLeggera,
    ArtiglieriaPesante,
}

pub const TROOPS: [Troop; 14] = [
    Troop::Picchieri,
    Troop::FanteriaDaMischia,
    Troop::Rodeleros,
    Troop::Alabardieri,
    Troop::Doppelsoldner,
    Troop::ContadiniArmati,
    Troop::Archibugieri,
    Troop::Balestrieri,
    Troop::Arcieri,
    Troop::Gendarmi,
    Troop::CavalleriaPesante,
    Troop::CavalleriaLeggera,
    Troop::ArtiglieriaLeggera,
    Troop::ArtiglieriaPesante,
];

/// The three classes of `003, Qualità delle truppe` (§3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Quality {
    Veterani,
    Addestrati,
    Reclute,
}

impl Quality {
    pub fn id(self) -> &'static str {
        match self {
            Quality::Veterani => "veterani",
            Quality::Addestrati => "addestrati",
            Quality::Reclute => "reclute",
        }
    }
    /// Bases lost for victory, in half bases: "le basi di reclute contano la metà, quelle di
    /// veterani il doppio" (003, Vittoria; §10.1).
    pub fn loss_halves(self) -> u32 {
        match self {
            Quality::Veterani => 4,
            Quality::Addestrati => 2,
            Quality::Reclute => 1,
        }
    }
}

/// A commander lost counts 3 bases (003, Vittoria, "Basi di generali perdute contano come 3
/// basi"), in half bases.
pub const COMMANDER_LOSS_HALVES: u32 = 6;
/// "Comandanti: 5 punti ciascuno." (003, Punteggio delle truppe)
pub const COMMANDER_POINTS: u32 = 5;

impl Troop {
    pub fn id(self) -> &'static str {
        match self {
            Troop::Picchieri => "picchieri",
            Troop::FanteriaDaMischia => "fanteria-da-mischia",
            Troop::Rodeleros => "rodeleros",
            Troop::Alabardieri => "alabardieri",
            Troop::Doppelsoldner => "doppelsoldner",
            Troop::ContadiniArmati => "contadini-armati",
            Troop::Archibugieri => "archibugieri",
            Troop::Balestrieri => "balestrieri",
            Troop::Arcieri => "arcieri",
            Troop::Gendarmi => "gendarmi",
            Troop::CavalleriaPesante => "cavalleria-pesante",
            Troop::CavalleriaLeggera => "cavalleria-leggera",
            Troop::ArtiglieriaLeggera => "artiglieria-leggera",
            Troop::ArtiglieriaPesante => "artiglieria-pesante",
        }
    }

    pub fn from_id(id: &str) -> Option<Troop> {
        TROOPS.into_iter().find(|t| t.id() == id)
    }

    pub fn is_cavalry(self) -> bool {
        matches!(
            self,
            Troop::Gendarmi | Troop::CavalleriaPesante | Troop::CavalleriaLeggera
        )
    }

    pub fn is_gun(self) -> bool {
        matches!(self, Troop::ArtiglieriaLeggera | Troop::ArtiglieriaPesante)
    }

    pub fn is_foot(self) -> bool {
        !self.is_cavalry() && !self.is_gun()
    }

    /// Fanterie da tiro (§3.1).
    pub fn is_shot(self) -> bool {
        matches!(
            self,
            Troop::Archibugieri | Troop::Balestrieri | Troop::Arcieri
        )
    }

    /// "Fanteria pesante": picchieri and every fanteria da mischia (D7).
    pub fn is_heavy_foot(self) -> bool {
        self.is_foot() && !self.is_shot()
    }

    /// Gendarmi and heavy cavalry: the two charges and the heavy armour (§7.6).
    pub fn is_heavy_horse(self) -> bool {
        matches!(self, Troop::Gendarmi | Troop::CavalleriaPesante)
    }

    /// Hits to lose a base: "2 colpi, o 3 colpi nel caso di Gendarmi e Cavallerie pesanti
    /// (armatura pesante) o Picchieri (molti uomini)" (003, Tiro › Qual è il danno?; §6.4).
    pub fn hits_per_base(self) -> u32 {
        match self {
            Troop::Gendarmi | Troop::CavalleriaPesante | Troop::Picchieri => 3,
            _ => 2,
        }
    }

    /// Combat dice per base, in half dice, against foot and against cavalry (003, Disordine;
    /// §7.3; alabardieri by the main text, D31).
    pub fn melee_half_dice(self, vs_cavalry: bool) -> u32 {
        match (self, vs_cavalry) {
            (Troop::Archibugieri | Troop::Balestrieri | Troop::Arcieri, _) => 2,
            (Troop::FanteriaDaMischia, _) => 3,
            (Troop::Rodeleros | Troop::Doppelsoldner, false) => 4,
            (Troop::Rodeleros | Troop::Doppelsoldner, true) => 2,
            (Troop::Alabardieri, false) => 2,
            (Troop::Alabardieri, true) => 4,
            (Troop::Picchieri, _) => 4,
            (Troop::ContadiniArmati, false) => 3,
            (Troop::ContadiniArmati, true) => 2,
            (Troop::Gendarmi, _) => 6,
            (Troop::CavalleriaPesante, _) => 4,
            (Troop::CavalleriaLeggera, _) => 3,
            (Troop::ArtiglieriaLeggera | Troop::ArtiglieriaPesante, _) => 0,
        }
    }

    /// Move in BW (003, Movimento › Quanto lontano?; §3.1): (normal, charge).
    pub fn move_bw(self) -> (u32, u32) {
        match self {
            Troop::Archibugieri | Troop::Balestrieri | Troop::Arcieri => (6, 6),
            Troop::Gendarmi | Troop::CavalleriaPesante => (8, 10),
            Troop::CavalleriaLeggera => (10, 10),
            Troop::ArtiglieriaLeggera => (2, 2),
            Troop::ArtiglieriaPesante => (0, 0),
            _ => (4, 4),
        }
    }

    /// Points per base (003, Punteggio delle truppe; §10.2, D62): infantry 3 (4 veterani, 2
    /// reclute); cavalry 4 (5 veteran), gendarmi 5 (6 veterani); a light gun 6, a heavy gun 10.
    pub fn points(self, q: Quality, veteran_cavalry: u32) -> u32 {
        match self {
            Troop::ArtiglieriaLeggera => 6,
            Troop::ArtiglieriaPesante => 10,
            Troop::Gendarmi => {
                if q == Quality::Veterani {
                    6
                } else {
                    5
                }
            }
            Troop::CavalleriaPesante | Troop::CavalleriaLeggera => {
                if q == Quality::Veterani {
                    veteran_cavalry
                } else {
                    4
                }
            }
            _ => match q {
                Quality::Veterani => 4,
                Quality::Addestrati => 3,
                Quality::Reclute => 2,
            },
        }
    }

    /// Unit sizes the text allows (003, Dimensioni delle unità; D2). German gendarmes: 4 or 6.
    pub fn sizes(self, german: bool) -> &'static [u32] {
        match self {
            Troop::Picchieri => &[6, 9, 16],
            Troop::Gendarmi if german => &[4, 6],
            Troop::Gendarmi | Troop::CavalleriaPesante | Troop::CavalleriaLeggera => &[3],
            Troop::ArtiglieriaLeggera | Troop::ArtiglieriaPesante => &[1],
            _ => &[5],
        }
    }
}

/// What a unit shoots with (§6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Weapon {
    /// Foot arquebus: 2 dice a base short, 1 long, long range 9 BW.
    Archibugio,
    /// Foot crossbow or bow: 1 die a base, always long, to 12 BW (D8).
    Balestra,
    /// Light horse crossbow or arquebus: 1 die a base, 5–6 short, 6 long, to 9 BW (D17).
    CavalloArmiDaTiro,
    /// Light horse javelins: 1 die a base, short only, to 4 BW, hit on 6 (D16).
    Giavellotti,
    /// 3 dice short, 2 long, to 16 BW.
    CannoneLeggero,
    /// 3 dice at any range, to 24 BW, alternate turns.
    CannonePesante,
}

impl Weapon {
    /// Dice per firing base (or per gun) at short and long range (003, Tiro › Qual è il danno?).
    pub fn dice(self) -> (u32, u32) {
        match self {
            Weapon::Archibugio => (2, 1),
            Weapon::Balestra | Weapon::CavalloArmiDaTiro => (1, 1),
            Weapon::Giavellotti => (1, 0),
            Weapon::CannoneLeggero => (3, 2),
            Weapon::CannonePesante => (3, 3),
        }
    }
    /// Long range in BW (short is under 4 BW for every weapon, D15).
    pub fn long_bw(self) -> u32 {
        match self {
            Weapon::Archibugio | Weapon::CavalloArmiDaTiro => 9,
            Weapon::Balestra => 12,
            Weapon::Giavellotti => 4,
            Weapon::CannoneLeggero => 16,
            Weapon::CannonePesante => 24,
        }
    }
    pub fn id(self) -> &'static str {
        match self {
            Weapon::Archibugio => "archibugio",
            Weapon::Balestra => "balestra",
            Weapon::CavalloArmiDaTiro => "cavallo-armi-da-tiro",
            Weapon::Giavellotti => "giavellotti",
            Weapon::CannoneLeggero => "cannone-leggero",
            Weapon::CannonePesante => "cannone-pesante",
        }
    }
    pub fn is_gun(self) -> bool {
        matches!(self, Weapon::CannoneLeggero | Weapon::CannonePesante)
    }
}

/// The short range limit: "La gittata a corto raggio per tutte le armi è inferiore a 4 BW" (D15).
pub const SHORT_BW: u32 = 4;
/// Retire and flee distance: "al di fuori della gittata delle armi leggere (8BW)" (003,
/// Disciplina; D43).
pub const RETIRE_BW: u32 = 8;
/// A commander's move (003, Comandanti).
pub const COMMANDER_BW: u32 = 8;
/// A charge needs its target at least this far at the start (003, Movimento).
pub const CHARGE_MIN_BW: u32 = 5;

/// The house rules (§14.4: keys and defaults; ranges as the section "Decisions" lists them,
/// project design where the seed sets no bound).
#[rustfmt::skip]
pub const HOUSE_RULES: &[HouseRule] = &[
    HouseRule::number("callan.cm_per_bw", 4, 3, 4, "§14.4"),
    HouseRule::number("callan.fog", 0, -1, 1, "§14.4, D12"),
    HouseRule::flag("callan.orders", false, "§14.4, §9.1"),
    HouseRule::flag("callan.niente_soldi", true, "§14.4, §9.3"),
    HouseRule::flag("callan.mala_guerra", true, "§14.4, §9.4"),
    HouseRule::number("callan.camp_first", 5, 0, 10, "§14.4"),
    HouseRule::number("callan.camp_second", 5, 0, 10, "§14.4"),
    HouseRule::flag("callan.victory", false, "§14.4, §10.1, D62"),
    HouseRule::flag("callan.victory_total", true, "§14.4, D61"),
    HouseRule::number("callan.threshold_pct", 50, 1, 100, "§14.4"),
    HouseRule::number("callan.turns", 0, 0, 99, "§14.4"),
    HouseRule::flag("callan.half_hits_panic", true, "§14.4, D39"),
    HouseRule::flag("callan.light_cavalry_charge_bonus", true, "§14.4, D28"),
    HouseRule::number("callan.javelin_hit", 6, 5, 6, "§14.4, D16"),
    HouseRule::number("callan.retire_bw", 8, 1, 30, "§14.4, D43"),
    HouseRule::flag("callan.flight_counts_at_once", true, "§14.4, D44"),
    HouseRule::number("callan.points_veteran_cavalry", 5, 1, 10, "§14.4, D62"),
    HouseRule::flag("callan.free_sizes", false, "§14.4, D2"),
    // Field works each army dug before the battle, in BW (D75): 0–60, the longest table front
    // of the shipped scenarios (project design).
    HouseRule::number("callan.works_first_difficult", 0, 0, 60, "§14.4, §10.2, D75"),
    HouseRule::number("callan.works_first_very", 0, 0, 60, "§14.4, §10.2, D75"),
    HouseRule::number("callan.works_second_difficult", 0, 0, 60, "§14.4, §10.2, D75"),
    HouseRule::number("callan.works_second_very", 0, 0, 60, "§14.4, §10.2, D75"),
];

/// Points per BW of field works: "Costa 1 punto per ogni BW di opere campali che rappresentano un
/// ostacolo difficile da superare o 2 punti per un ostacolo molto difficile" (003, Punteggio
/// delle truppe; D75).
pub const WORKS_POINTS: [u32; 2] = [1, 2];

/// The turn deck: cards 1–3 red (J, Q, K), 4–6 black, 7 the Joker (003, La nebbia di guerra).
pub const JOKER: u8 = 7;

pub fn card_colour(card: u8) -> Option<usize> {
    match card {
        1..=3 => Some(0),
        4..=6 => Some(1),
        _ => None,
    }
}

pub fn card_rank(card: u8) -> &'static str {
    match card {
        1 | 4 => "J",
        2 | 5 => "Q",
        3 | 6 => "K",
        _ => "Jolly",
    }
}

/// A count of halves as text: 5 → "2½", 4 → "2".
pub fn halves_text(h: u32) -> String {
    if h.is_multiple_of(2) {
        (h / 2).to_string()
    } else {
        format!("{}½", h / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_troop_row_matches_the_design() {
        // (troop, hits per base, half dice vs foot, vs cavalry, move, charge) — §3.1, §6.4, §7.3.
        let rows = [
            (Troop::Archibugieri, 2, 2, 2, 6, 6),
            (Troop::FanteriaDaMischia, 2, 3, 3, 4, 4),
            (Troop::Rodeleros, 2, 4, 2, 4, 4),
            (Troop::Doppelsoldner, 2, 4, 2, 4, 4),
            (Troop::Alabardieri, 2, 2, 4, 4, 4),
            (Troop::Picchieri, 3, 4, 4, 4, 4),
            (Troop::ContadiniArmati, 2, 3, 2, 4, 4),
            (Troop::Gendarmi, 3, 6, 6, 8, 10),
            (Troop::CavalleriaPesante, 3, 4, 4, 8, 10),
            (Troop::CavalleriaLeggera, 2, 3, 3, 10, 10),
            (Troop::ArtiglieriaLeggera, 2, 0, 0, 2, 2),
            (Troop::ArtiglieriaPesante, 2, 0, 0, 0, 0),
        ];
        for (t, hits, foot, cav, mv, ch) in rows {
            assert_eq!(t.hits_per_base(), hits, "{t:?}");
            assert_eq!(t.melee_half_dice(false), foot, "{t:?}");
            assert_eq!(t.melee_half_dice(true), cav, "{t:?}");
            assert_eq!(t.move_bw(), (mv, ch), "{t:?}");
        }
    }

    #[test]
    fn points_and_weights_match_section_10() {
        assert_eq!(Troop::Archibugieri.points(Quality::Addestrati, 5), 3);
        assert_eq!(Troop::Picchieri.points(Quality::Veterani, 5), 4);
        assert_eq!(Troop::ContadiniArmati.points(Quality::Reclute, 5), 2);
        assert_eq!(Troop::CavalleriaLeggera.points(Quality::Addestrati, 5), 4);
        assert_eq!(Troop::CavalleriaLeggera.points(Quality::Veterani, 5), 5);
        assert_eq!(Troop::Gendarmi.points(Quality::Addestrati, 5), 5);
        assert_eq!(Troop::Gendarmi.points(Quality::Veterani, 5), 6);
        assert_eq!(Troop::ArtiglieriaLeggera.points(Quality::Addestrati, 5), 6);
        assert_eq!(Troop::ArtiglieriaPesante.points(Quality::Addestrati, 5), 10);
        assert_eq!(Quality::Reclute.loss_halves(), 1);
        assert_eq!(Quality::Veterani.loss_halves(), 4);
        assert_eq!(COMMANDER_LOSS_HALVES, 6);
    }

    #[test]
    fn weapons_match_section_6_2() {
        assert_eq!(Weapon::Archibugio.dice(), (2, 1));
        assert_eq!(Weapon::Archibugio.long_bw(), 9);
        assert_eq!(Weapon::Balestra.long_bw(), 12);
        assert_eq!(Weapon::Giavellotti.long_bw(), 4);
        assert_eq!(Weapon::CannoneLeggero.dice(), (3, 2));
        assert_eq!(Weapon::CannoneLeggero.long_bw(), 16);
        assert_eq!(Weapon::CannonePesante.dice(), (3, 3));
        assert_eq!(Weapon::CannonePesante.long_bw(), 24);
    }

    #[test]
    fn the_deck_is_three_red_three_black_and_a_joker() {
        let red = (1..=7).filter(|&c| card_colour(c) == Some(0)).count();
        let black = (1..=7).filter(|&c| card_colour(c) == Some(1)).count();
        assert_eq!((red, black), (3, 3));
        assert_eq!(card_colour(JOKER), None);
    }
}
