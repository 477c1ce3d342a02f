//! The dice of The Sword and the Flame, Renaissance adaptation, as plans: fire (a D20 per figure,
//! casualty cards with their aces), the three morale tests, a close-combat bout in both versions
//! and a whole close combat (breaking off included), movement, the spirit of the army and a
//! rout's casualties. Each is
//! rolled or enumerated exactly from the same plan. The game flow (card activation, the turn's
//! steps) builds on these.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde::Deserialize;
use serde_json::Value;
use tercio_core::plan::throw;
use tercio_core::{Depends, Die, Modifier, Plan, Resolution, RolledDie, Step};

use super::tables::{self, Kind, Order, Range, Test, Troop, Weapon};
use crate::interface::{input, Outcome, Rejection};

/// A stand-alone action: everything it needs is in the request.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Request {
    Fire(FireRequest),
    Morale(MoraleRequest),
    Bout(BoutRequest),
    CloseCombat(CombatRequest),
    Move(MoveRequest),
    Spirit(SpiritRequest),
    Rout {},
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireRequest {
    pub weapon: Weapon,
    /// Short or long; pistols and crossbows have one range only (001, FIRE, Weapon Ranges).
    #[serde(default, deserialize_with = "input::opt_choice")]
    pub range: Option<Range>,
    /// Target class 1 to 4 (design 2.4).
    #[serde(deserialize_with = "input::number")]
    pub target_class: u8,
    /// Figures that may fire (in range, in the ranks that shoot), or gunners for a gun.
    #[serde(deserialize_with = "input::number")]
    pub firers: u8,
    #[serde(default, deserialize_with = "input::flag")]
    pub shaken: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub light_rain: bool,
    /// Reiters firing both pistols (001, FIRE, "Reiters may shoot twice per turn").
    #[serde(default, deserialize_with = "input::flag")]
    pub double: bool,
    /// Figures the target has: hits beyond them draw no card.
    #[serde(default, deserialize_with = "input::opt_number")]
    pub target_figures: Option<u8>,
    /// The optional rule Wounded and Dead: a heart kills, other suits wound (001, OPTIONAL RULES;
    /// design 8.3).
    #[serde(default, deserialize_with = "input::flag")]
    pub wounded: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleRequest {
    pub test: Test,
    #[serde(default, deserialize_with = "input::flag")]
    pub leaderless: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub spent: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub field_officer: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub gendarmes_vs_lighter_cavalry: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub swiss_vs_pikes: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub attacked_in_rear: bool,
    /// Shaken, or routed (decision 5): −1 on Stand and Fight.
    #[serde(default, deserialize_with = "input::flag")]
    pub shaken: bool,
    /// The break-off test (Stand and Fight) of infantry leaving a melee with cavalry.
    #[serde(default, deserialize_with = "input::flag")]
    pub infantry_breaking_off_from_cavalry: bool,
    /// Gun crews charged: they "always fail the "to stand" test".
    #[serde(default, deserialize_with = "input::flag")]
    pub artillerists: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Version {
    /// Figure against figure (001, CLOSE COMBAT - Original Version).
    Figure,
    /// Company against company (001, CLOSE COMBAT - Modifed Version).
    Company,
}

/// One side of a bout: the fighting figure, or company, and its situation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fighter {
    #[serde(rename = "type", deserialize_with = "input::text")]
    pub troop: String,
    /// Default: the type's own order (pikes closed, every other type open).
    #[serde(default, deserialize_with = "input::opt_choice")]
    pub order: Option<Order>,
    /// The unit officer (figure version), or the company containing him.
    #[serde(default, deserialize_with = "input::flag")]
    pub officer: bool,
    /// Shaken or falling back.
    #[serde(default, deserialize_with = "input::flag")]
    pub shaken: bool,
    /// Lances in the unit's first close combat (gendarmes, spear-armed light horse).
    #[serde(default, deserialize_with = "input::flag")]
    pub lance: bool,
    /// Men missing from the company (company version).
    #[serde(default, deserialize_with = "input::number_or_default")]
    pub missing: u8,
    #[serde(default, deserialize_with = "input::flag")]
    pub climbing: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub across_wall: bool,
    /// Attacked in the rear: the enemy started its move behind it (decision 27).
    #[serde(default, deserialize_with = "input::flag")]
    pub attacked_in_rear: bool,
    /// A pike square: no rear or flank, its pikes to the front every way.
    #[serde(default, deserialize_with = "input::flag")]
    pub square: bool,
    /// Pikes in broken terrain or urban areas other than the streets: the bare die.
    #[serde(default, deserialize_with = "input::flag")]
    pub broken_ground: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoutRequest {
    #[serde(default = "figure")]
    pub version: Version,
    pub a: Fighter,
    pub b: Fighter,
}

fn figure() -> Version {
    Version::Figure
}

/// One side of a whole close combat: the unit and its situation; the engine forms the queue of
/// fighters (design 6.1): figures, or companies, the officers last, an attached field officer last
/// of all.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatSide {
    #[serde(rename = "type", deserialize_with = "input::text")]
    pub troop: String,
    #[serde(default, deserialize_with = "input::opt_choice")]
    pub order: Option<Order>,
    /// Figure version: the figures that may fight (the ranks that fight, in contact). Company
    /// version: the unit's figures present.
    #[serde(deserialize_with = "input::number")]
    pub figures: u8,
    /// Unit leaders among those figures (001: one; Swiss and Spanish pike two).
    #[serde(default = "one", deserialize_with = "input::number")]
    pub leaders: u8,
    #[serde(default, deserialize_with = "input::flag")]
    pub field_officer: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub shaken: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub lance: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub climbing: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub across_wall: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub attacked_in_rear: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub square: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub broken_ground: bool,
    /// Spent (less than 50% strength): −2 on its Stand and Fight test if it breaks off (001,
    /// MORALE NOTES).
    #[serde(default, deserialize_with = "input::flag")]
    pub spent: bool,
}

fn one() -> u8 {
    1
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatRequest {
    #[serde(default = "figure")]
    pub version: Version,
    pub a: CombatSide,
    pub b: CombatSide,
    /// A side that breaks off as soon as it may (001, BREAKING OFF; design 6.5).
    #[serde(default, deserialize_with = "input::opt_choice")]
    pub break_off: Option<BreakOff>,
}

/// Which side of a close combat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BreakSide {
    A,
    B,
}

/// Breaking off a close combat: the side breaks off once it has fought `after` bouts in this
/// combat, if the combat is still undecided, and tests Stand and Fight.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakOff {
    pub side: BreakSide,
    /// Bouts fought before breaking off: by default and at least 6 in the figure version, 3 in
    /// the company version (001, BREAKING OFF).
    #[serde(default, deserialize_with = "input::opt_number")]
    pub after: Option<u8>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    #[serde(rename = "type", deserialize_with = "input::text")]
    pub troop: String,
    /// Default: the type's own order.
    #[serde(default, deserialize_with = "input::opt_choice")]
    pub order: Option<Order>,
    #[serde(default, deserialize_with = "input::flag")]
    pub uphill: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub downhill: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub obstacle: bool,
    #[serde(default, deserialize_with = "input::flag")]
    pub woods: bool,
    /// Foot arquebusiers holding a reload marker move half (001, FIRE).
    #[serde(default, deserialize_with = "input::flag")]
    pub loading: bool,
    /// Mounting or dismounting this move: one die fewer (001, OPTIONAL RULES, DISMOUNTING).
    #[serde(default, deserialize_with = "input::flag")]
    pub dismounting: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpiritRequest {
    /// Fresh units and guns now, worn units and guns now, units and guns at the start.
    #[serde(deserialize_with = "input::number")]
    pub fresh: u32,
    #[serde(deserialize_with = "input::number")]
    pub worn: u32,
    #[serde(deserialize_with = "input::number")]
    pub start: u32,
}

/// The thresholds of the morale table (project design, overridable per scenario).
#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    pub to_close: i32,
    pub to_stand: i32,
    pub stand_and_fight: i32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            to_close: Test::ToClose.threshold(),
            to_stand: Test::ToStand.threshold(),
            stand_and_fight: Test::StandAndFight.threshold(),
        }
    }
}

impl Thresholds {
    fn of(&self, t: Test) -> i32 {
        match t {
            Test::ToClose => self.to_close,
            Test::ToStand => self.to_stand,
            Test::StandAndFight => self.stand_and_fight,
        }
    }
}

fn reject(code: &str, field: &str, m: impl Into<String>) -> Rejection {
    Rejection::new(code, Some(field), m)
}

fn modifier(side: &str, name: &str, value: i32, source: &str) -> Modifier {
    Modifier {
        side: side.into(),
        name: name.into(),
        value,
        source: source.into(),
    }
}

/// The labels `plan::throw` gives its dice: the bare label for one die, numbered for several.
fn labelled(n: usize, sides: u8, label: &str) -> Vec<Die> {
    (1..=n)
        .map(|i| {
            Die::new(
                sides,
                if n == 1 {
                    label.to_string()
                } else {
                    format!("{label} {i}")
                },
            )
        })
        .collect()
}

fn rolled(dice: &[Die], faces: &[u8]) -> Vec<RolledDie> {
    dice.iter()
        .zip(faces)
        .map(|(d, &f)| RolledDie {
            label: d.label.clone(),
            sides: d.sides,
            face: f,
        })
        .collect()
}

fn outcome(
    action: &str,
    summary: String,
    steps: Vec<Step>,
    facets: Vec<(&str, String)>,
) -> Outcome {
    Outcome {
        resolution: Resolution {
            action: action.into(),
            summary,
            steps,
        },
        effects: Value::Array(Vec::new()),
        facets: facets
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    }
}

pub fn plan(req: &Request, th: &Thresholds) -> Result<Plan<Outcome>, Rejection> {
    match req {
        Request::Fire(f) => fire(f),
        Request::Morale(m) => Ok(morale(m, th)),
        Request::Bout(b) => bout(b),
        Request::CloseCombat(c) => close_combat(c, th),
        Request::Move(m) => movement(m),
        Request::Spirit(s) => spirit(s),
        Request::Rout {} => Ok(rout()),
    }
}

// ---- Fire ----

/// The most dice one fire may throw: two ranks of a 20-figure unit, or a reiter unit's four
/// ranks with both pistols; gun crews as the text gives them (001, FIRE).
fn max_firers(w: Weapon) -> u8 {
    match w {
        Weapon::HeavyCannon => 4,
        Weapon::LightCannon => 2,
        Weapon::Rifle => 1,
        _ => 20,
    }
}

fn fire(f: &FireRequest) -> Result<Plan<Outcome>, Rejection> {
    if !(1..=4).contains(&f.target_class) {
        return Err(reject("bad-target-class", "target_class", "target_class: 1 (pikes, base to base), 2 (open order, all horse), 3 (skirmishers, artillerists, foot in light cover) or 4 (foot in walls, buildings, works)"));
    }
    if f.double && f.weapon != Weapon::Pistol {
        return Err(reject(
            "double-fire-pistols-only",
            "double",
            "only reiters' pistols fire twice a turn (001, FIRE, note on Reiters)",
        ));
    }
    let one_range = matches!(f.weapon, Weapon::Pistol | Weapon::Crossbow);
    if one_range && f.range == Some(Range::Long) {
        return Err(reject(
            "one-range-only",
            "range",
            "range: pistols (4\") and crossbows (12\") have one range only (001, FIRE, Weapon Ranges, 'No short range')",
        ));
    }
    if f.firers == 0 || f.firers > max_firers(f.weapon) {
        return Err(reject(
            "bad-firers",
            "firers",
            format!(
                "firers: 1 to {} (the figures that may fire, or the gunners)",
                max_firers(f.weapon)
            ),
        ));
    }
    let range = f.range.unwrap_or(Range::Short);
    let line = tables::fire_line(f.weapon, range);
    let printed = i32::from(line.hits[usize::from(f.target_class - 1)]);
    let mut mods = Vec::new();
    if f.shaken {
        mods.push(modifier(
            "each die",
            "firer shaken",
            tables::FIRE_SHAKEN,
            tables::FIRE_SOURCE_SHAKEN,
        ));
    }
    if f.light_rain {
        mods.push(modifier(
            "each die",
            "light rain",
            tables::FIRE_LIGHT_RAIN,
            tables::FIRE_SOURCE_RAIN,
        ));
    }
    let added: i32 = mods.iter().map(|m| m.value).sum();
    // A modified die at or below the printed number hits; modifiers add to the die (decision 36:
    // no automatic hits).
    let need = (printed - added).clamp(0, 20) as u8;
    let per = tables::dice_per_firer(f.weapon) * if f.double { 2 } else { 1 };
    let n = usize::from(f.firers) * usize::from(per);
    let class = ["I", "II", "III", "IV"][usize::from(f.target_class - 1)];
    let how = match (f.weapon, f.double) {
        (Weapon::HeavyCannon | Weapon::LightCannon, _) => "3 D20 per gunner",
        (_, true) => "2 D20 per figure (both pistols)",
        _ => "a D20 per figure",
    };
    let band = if one_range {
        format!("to {}\"", line.inches)
    } else {
        format!(
            "{} range, to {}\"",
            if range == Range::Short {
                "short"
            } else {
                "long"
            },
            line.inches
        )
    };
    let title = format!(
        "Fire: {} ({band}) at Class {class}: {how}; the table hits on 1-{printed}{} [{}]",
        weapon_name(f.weapon),
        if added > 0 {
            format!(", so 1-{need} after modifiers")
        } else {
            String::new()
        },
        line.source
    );
    let cap = f.target_figures;
    let wounded = f.wounded;
    Ok(
        throw(n, 20, "Fire D20", Depends::CountAtMost(need)).and_then(move |faces| {
            let hits = faces.iter().filter(|&&x| x <= need).count();
            let step = Step {
                title: title.clone(),
                dice: rolled(&labelled(faces.len(), 20, "Fire D20"), &faces),
                modifiers: mods.clone(),
                totals: vec![("hits".into(), hits as i32)],
                result: format!("{hits} hit(s)"),
            };
            let cards = cap.map_or(hits, |c| hits.min(usize::from(c)));
            casualty_cards(cards.min(52), hits, step, wounded)
        }),
    )
}

fn weapon_name(w: Weapon) -> &'static str {
    match w {
        Weapon::Arquebus => "arquebus",
        Weapon::Pistol => "pistol",
        Weapon::Crossbow => "crossbow",
        Weapon::HeavyCannon => "heavy cannon",
        Weapon::LightCannon => "light cannon",
        Weapon::Rifle => "rifle",
    }
}

/// The 52 cards by number, aces first (1-4 are the aces), for naming a card drawn.
pub fn card_name(n: u8) -> String {
    let ranks = [
        "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2",
    ];
    let suits = ["♠", "♥", "♦", "♣"];
    let i = usize::from(n.clamp(1, 52) - 1);
    format!("{}{}", ranks[i / 4], suits[i % 4])
}

fn is_ace(card: u8) -> bool {
    card <= 4
}

/// One casualty card per hit from a full, shuffled casualty deck (decision 14): an ace hits an
/// officer or unit leader instead of a figure (001, OFFICERS). Cards are drawn as cards: the odds
/// depend only on whether each is an ace.
fn is_heart(card: u8) -> bool {
    (card.clamp(1, 52) - 1) % 4 == 1
}

/// One casualty card per hit from a full, shuffled casualty deck (decision 14): an ace hits an
/// officer or unit leader instead of a figure (001, OFFICERS). With Wounded and Dead, a heart
/// kills and the other suits wound (001, OPTIONAL RULES; design 8.3). Cards are drawn as cards:
/// the odds depend only on whether each is an ace (and, with the option, a heart).
fn casualty_cards(cards: usize, hits: usize, fire: Step, wounded: bool) -> Plan<Outcome> {
    fn draw(
        left: Vec<u8>,
        n: usize,
        drawn: Vec<u8>,
        fire: Step,
        (hits, wounded): (usize, bool),
    ) -> Plan<Outcome> {
        if n == 0 || left.is_empty() {
            let officers = drawn.iter().filter(|&&c| is_ace(c)).count();
            let figures = hits - officers;
            // Among the figures hit, those whose card is not a heart are wounded.
            let hurt = if wounded {
                drawn
                    .iter()
                    .filter(|&&c| !is_ace(c) && !is_heart(c))
                    .count()
            } else {
                0
            };
            let mut steps = vec![fire.clone()];
            if !drawn.is_empty() {
                let names: Vec<String> = drawn.iter().map(|&c| card_name(c)).collect();
                let mut totals = vec![
                    ("figures".into(), figures as i32),
                    ("officers".into(), officers as i32),
                ];
                if wounded {
                    totals.push(("wounded".into(), hurt as i32));
                }
                steps.push(Step {
                    title: if wounded {
                        "Casualty cards: one per hit; an ace hits an officer or unit leader instead; a heart kills, other suits wound [001, OFFICERS; OPTIONAL RULES, WOUNDED AND DEAD; decision 14]".into()
                    } else {
                        "Casualty cards: one per hit; an ace hits an officer or unit leader instead [001, OFFICERS; decision 14]".into()
                    },
                    dice: Vec::new(),
                    modifiers: Vec::new(),
                    totals,
                    result: format!("cards {}", names.join(" ")),
                });
            }
            let summary = if hits == 0 {
                "No hits".to_string()
            } else if officers > 0 {
                format!("{hits} hit(s): {figures} figure(s) and {officers} officer(s) — the game master names the officer (the target's leader, or a field officer within 12\" in the cone of fire; none: a figure)")
            } else {
                format!("{hits} hit(s): remove {figures} figure(s)")
            };
            let summary = if wounded && hurt > 0 {
                format!("{summary}; {hurt} of the figures wounded, not killed")
            } else {
                summary
            };
            let mut facets = vec![
                ("hits", hits.to_string()),
                ("officers hit", officers.to_string()),
            ];
            if wounded {
                facets.push(("wounded", hurt.to_string()));
            }
            return Plan::Done(outcome("fire", summary, steps, facets));
        }
        let label = format!("Casualty card {}", drawn.len() + 1);
        // What follows depends only on the hits, the cards still to draw and the aces (and with
        // the option the wounds) already drawn: worked out once per such state.
        let aces = drawn.iter().filter(|&&c| is_ace(c)).count();
        let hurt = drawn
            .iter()
            .filter(|&&c| wounded && !is_ace(c) && !is_heart(c))
            .count();
        let key = format!("cards:{hits}:{n}:{aces}:{hurt}:{wounded}");
        Plan::memo(key, move || {
            let (rest, drawn, fire) = (left.clone(), drawn.clone(), fire.clone());
            Plan::card(
                label.clone(),
                52,
                left.clone(),
                move |c| u8::from(is_ace(c)) * 2 + u8::from(wounded && is_heart(c)),
                move |c| {
                    let next: Vec<u8> = rest.iter().copied().filter(|&x| x != c).collect();
                    let mut got = drawn.clone();
                    got.push(c);
                    draw(next, n - 1, got, fire.clone(), (hits, wounded))
                },
            )
        })
    }
    draw((1..=52).collect(), cards, Vec::new(), fire, (hits, wounded))
}

// ---- Morale ----

fn morale(m: &MoraleRequest, th: &Thresholds) -> Plan<Outcome> {
    let test = m.test;
    let need = th.of(test);
    if m.artillerists && test == Test::ToStand {
        let step = Step {
            title: "To Stand: artillerists".into(),
            dice: Vec::new(),
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: "fail: artillerists never stand (001, ADDITIONAL NOTES)".into(),
        };
        return Plan::Done(outcome(
            "morale",
            "To Stand: fails".into(),
            vec![step],
            vec![("passed", "no".into())],
        ));
    }
    let mut mods = Vec::new();
    let mut add = |on: bool, name: &str, v: i32, src: &str| {
        if on {
            mods.push(modifier("unit", name, v, src));
        }
    };
    let saf = test == Test::StandAndFight;
    // An attached field officer stands in for the unit's leaders (decision 7).
    add(
        m.leaderless && !m.field_officer,
        "without any leaders",
        -2,
        "001, MORALE NOTES, 'Units without any leaders -2'; decision 7",
    );
    add(
        m.spent,
        "spent",
        -2,
        "001, MORALE NOTES, '\"Spent\" units (less than 50% strength) -2'",
    );
    add(
        m.field_officer,
        "field officer attached",
        1,
        "001, MORALE NOTES, 'Field Officer attached to unit +1'",
    );
    add(
        m.gendarmes_vs_lighter_cavalry && test == Test::ToClose,
        "gendarmes against lighter cavalry",
        1,
        "001, MORALE NOTES, 'Gendarmes vs. lighter cavalry +1 ... \"to close\"'",
    );
    add(
        m.swiss_vs_pikes && test == Test::ToClose,
        "Swiss pikes against other pikes",
        1,
        "001, MORALE NOTES, 'Swiss pikes vs other pikes +1 ... \"to close\"'",
    );
    add(
        m.attacked_in_rear && saf,
        "attacked in rear",
        -2,
        "001, MORALE NOTES, 'Attacked in rear -2 to \"Stand and fight\"'",
    );
    add(
        m.shaken && saf,
        "shaken",
        -1,
        "001, MORALE NOTES, 'Shaken units are -1 to \"Stand and fight\"' (routed too: decision 5)",
    );
    add(
        m.infantry_breaking_off_from_cavalry && saf,
        "infantry breaking off from cavalry",
        -2,
        "001, BREAKING OFF, '-2 Infantry attempting to break off from melee with cavalry'",
    );
    let total_mod: i32 = mods.iter().map(|m| m.value).sum();
    let title = format!(
        "{}: 2D6 + modifiers; {need} or more passes [{}]",
        test.name(),
        tables::MORALE_SOURCE
    );
    throw(2, 6, "Morale die", Depends::Sum).map(move |f| {
        let total = i32::from(f[0]) + i32::from(f[1]) + total_mod;
        let pass = total >= need;
        let step = Step {
            title: title.clone(),
            dice: rolled(&labelled(2, 6, "Morale die"), &f),
            modifiers: mods.clone(),
            totals: vec![("total".into(), total), ("needed".into(), need)],
            result: if pass {
                "passed".into()
            } else {
                "failed".into()
            },
        };
        outcome(
            "morale",
            format!(
                "{}: {}",
                test.name(),
                if pass { "passed" } else { "failed" }
            ),
            vec![step],
            vec![("passed", if pass { "yes" } else { "no" }.into())],
        )
    })
}

// ---- Close combat ----

fn order_name(o: Order) -> &'static str {
    match o {
        Order::Closed => "closed",
        Order::Open => "open",
        Order::Skirmish => "skirmish",
    }
}

/// A type's own order, and the orders the text allows it (design 2.1).
pub fn orders(t: &Troop) -> (Order, &'static [Order]) {
    match t.id {
        "pikemen" => (Order::Closed, &[Order::Closed, Order::Open]),
        "arquebusiers"
        | "crossbowmen"
        | "sword-and-buckler"
        | "light-horse-arquebus"
        | "light-horse-crossbow"
        | "light-horse-spear" => (Order::Open, &[Order::Open, Order::Skirmish]),
        "riflemen" => (Order::Skirmish, &[Order::Skirmish]),
        _ => (Order::Open, &[Order::Open]),
    }
}

fn troop_at(id: &str, field: &str) -> Result<&'static Troop, Rejection> {
    tables::troop(id).ok_or_else(|| {
        let ids: Vec<&str> = tables::TROOPS.iter().map(|t| t.id).collect();
        reject(
            "unknown-troop-type",
            field,
            format!("{field}: one of {}", ids.join(", ")),
        )
    })
}

fn order_of(given: Option<Order>, t: &Troop, field: &str) -> Result<Order, Rejection> {
    let (own, allowed) = orders(t);
    let o = given.unwrap_or(own);
    if !allowed.contains(&o) {
        let names: Vec<&str> = allowed.iter().map(|o| order_name(*o)).collect();
        return Err(reject(
            "order-not-allowed",
            field,
            format!(
                "{field}: {} use {} order (001, TROOP TYPES; ORDER)",
                t.name,
                names.join(" or ")
            ),
        ));
    }
    Ok(o)
}

/// A fighter checked against the text: its type, its order (the type's own by default), and the
/// situations it may claim. Returns the troop type and the fighter with its order settled.
fn checked(f: &Fighter, field: &str) -> Result<(&'static Troop, Fighter), Rejection> {
    let t = troop_at(&f.troop, &format!("{field}.type"))?;
    if matches!(t.kind, Kind::Gun | Kind::Train) || t.id == "riflemen" {
        return Err(reject(
            "does-not-fight",
            &format!("{field}.type"),
            format!("{field}.type: gun crews never stand, and the train and riflemen do not fight in close combat (001, ADDITIONAL NOTES; TROOP TYPES)"),
        ));
    }
    let order = order_of(f.order, t, &format!("{field}.order"))?;
    if order == Order::Skirmish {
        return Err(reject(
            "does-not-fight",
            &format!("{field}.order"),
            format!("{field}.order: skirmishers do not fight in close combat; they are destroyed if they cannot evade (001, ORDER; CLOSE COMBAT)"),
        ));
    }
    if f.lance && !matches!(t.id, "gendarmes" | "light-horse-spear") {
        return Err(reject(
            "no-lance",
            &format!("{field}.lance"),
            format!("{field}.lance: only gendarmes and light horse with spears carry lances (001, CLOSE COMBAT, 'Cavalry with lance'; decision 26)"),
        ));
    }
    for (on, name) in [(f.square, "square"), (f.broken_ground, "broken_ground")] {
        if on && t.id != "pikemen" {
            return Err(reject(
                "pikes-only",
                &format!("{field}.{name}"),
                format!("{field}.{name}: a rule of pikes only (001, CLOSE COMBAT)"),
            ));
        }
    }
    if f.square && f.attacked_in_rear {
        return Err(reject(
            "square-has-no-rear",
            &format!("{field}.attacked_in_rear"),
            format!(
                "{field}.attacked_in_rear: a pike square has no rear or flank (001, CLOSE COMBAT)"
            ),
        ));
    }
    let mut f = f.clone();
    f.order = Some(order);
    Ok((t, f))
}

/// Pikes facing this enemy with their pikes: to their front (not attacked in the rear), or in a
/// square, and not in broken ground.
fn pikes_facing(f: &Fighter, t: &Troop) -> bool {
    t.id == "pikemen" && (f.square || !f.attacked_in_rear) && !f.broken_ground
}

/// A fighter's factors against its enemy (design 6.2): modifiers, and whether it wins ties. Both
/// fighters have been `checked`.
pub fn factors(
    me: &Fighter,
    t: &Troop,
    enemy: &Fighter,
    et: &Troop,
    version: Version,
) -> (Vec<Modifier>, bool) {
    let ord = |f: &Fighter| f.order.unwrap_or(Order::Open);
    let src = "001, CLOSE COMBAT, Close Combat Factors";
    let mut m = Vec::new();
    let mut wt = false;
    let mut add = |name: &str, v: i32, src: &str| m.push(modifier("", name, v, src));
    // Pikes in broken ground or built-up areas fight with the bare die: no type factor, no
    // officer, no win-ties; what befalls them (shaken, rear, men missing) still counts
    // (decision 25).
    if t.id == "pikemen" && me.broken_ground {
        add("pikes in broken ground: the bare die (no type factor, officer or win-ties)", 0, "001, CLOSE COMBAT, 'Pikes in broken terrain or urban areas other than in the streets= die number'; decision 25");
    } else {
        match t.id {
            "gendarmes" => {
                add("gendarmes (win ties)", 2, src);
                wt = true;
            }
            "great-swordsmen" | "halberdiers" => {
                if et.kind.mounted() {
                    add(
                        "against cavalry (win ties)",
                        1,
                        "001, CLOSE COMBAT, '(only +1 vs Cavalry)'; decision 21",
                    );
                } else {
                    add(&format!("{} (win ties)", t.name), 2, src);
                }
                wt = true;
            }
            "reiters" if et.id != "gendarmes" => add("medium cavalry", 1, src),
            id if id.starts_with("light-horse") && et.kind == Kind::Foot => {
                add("light cavalry against infantry (win ties)", 1, src);
                wt = true;
            }
            _ => {}
        }
        if ord(me) == Order::Closed && pikes_facing(me, t) {
            add("pikes, closed order, to their front (win ties)", 2, src);
            wt = true;
        }
        if me.officer {
            add(
                if version == Version::Company {
                    "company with an officer"
                } else {
                    "officer"
                },
                1,
                "001, CLOSE COMBAT; UNIT LEADERS & OFFICERS",
            );
        }
    }
    // "All other units fighting pikes to front -2", whatever the pikes' order (decision 48).
    if pikes_facing(enemy, et) && t.id != "pikemen" {
        add(
            "fighting pikes to their front",
            -2,
            "001, CLOSE COMBAT, 'All other units fighting pikes to front -2'; decision 48",
        );
    }
    if me.lance {
        add("lance, first close combat", 1, "001, CLOSE COMBAT, 'Cavalry with lance +1 first close combat of the game'; decision 26");
    }
    if ord(me) == Order::Open && ord(enemy) == Order::Closed {
        add("open order against closed order", -1, "001, CLOSE COMBAT, 'Units in open order are -1 when fighting closed order troops'; decision 47");
    }
    if me.climbing {
        add("climbing to a higher level", -1, src);
    }
    if me.across_wall {
        add("attacking across a wall", -1, src);
    }
    if me.shaken {
        add("shaken or falling back", -1, src);
    }
    if me.attacked_in_rear {
        add(
            "attacked in rear",
            -1,
            "001, CLOSE COMBAT, 'Attacked in rear -1 ,Enemy must START to rear'; decision 27",
        );
    }
    if version == Version::Company && me.missing > 0 {
        add(
            "men missing from the company",
            -i32::from(me.missing),
            "001, CLOSE COMBAT - Modifed Version, 'For each man missing from company ... -1'",
        );
    }
    (m, wt)
}

/// One bout between two checked fighters, worked out before any die is thrown: their factors,
/// who wins ties, and the explanation's title. A whole close combat builds one per pair of
/// fighters that may meet and shares it between every state where they meet.
struct BoutDesc {
    version: Version,
    /// The two totals' factors, and whether each side wins ties.
    sa: i32,
    sb: i32,
    wta: bool,
    wtb: bool,
    /// The men of each company: a company loses at most its men.
    men: (u8, u8),
    dice: Vec<Die>,
    title: String,
    modifiers: Vec<Modifier>,
}

impl BoutDesc {
    fn new(
        (ta, fa): (&'static Troop, &Fighter),
        (tb, fb): (&'static Troop, &Fighter),
        version: Version,
        names: (&str, &str),
        men: (u8, u8),
    ) -> Self {
        let (mut ma, wta) = factors(fa, ta, fb, tb, version);
        let (mut mb, wtb) = factors(fb, tb, fa, ta, version);
        for m in &mut ma {
            m.side = format!("A {}", names.0);
        }
        for m in &mut mb {
            m.side = format!("B {}", names.1);
        }
        let (sa, sb): (i32, i32) = (
            ma.iter().map(|m| m.value).sum(),
            mb.iter().map(|m| m.value).sum(),
        );
        let tie = match (wta, wtb) {
            (true, false) => "equal totals: A wins ties",
            (false, true) => "equal totals: B wins ties",
            _ => "equal totals are thrown again (decision 20)",
        };
        let how = match version {
            Version::Figure => "the loser is killed if the winner's die shows a natural 5 or 6, else falls back",
            Version::Company => "the losing company falls back, losing 1 figure if the winner's total is 5, 2 if 6 or more (decision 23)",
        };
        BoutDesc {
            version,
            sa,
            sb,
            wta,
            wtb,
            men,
            dice: labelled(2, 6, "Close-combat die"),
            title: format!(
                "Bout: A {} against B {}: D6 each + factors; {tie}; {how}",
                names.0, names.1
            ),
            modifiers: ma.into_iter().chain(mb).collect(),
        }
    }

    /// Equal totals are thrown again unless exactly one side wins ties (decision 20).
    fn accepts(&self, f: &[u8]) -> bool {
        i32::from(f[0]) + self.sa != i32::from(f[1]) + self.sb || self.wta != self.wtb
    }

    /// An accepted throw: whether A wins, and the figures the loser loses (killed in the figure
    /// version, the company's casualties in the company version).
    fn decide(&self, f: &[u8]) -> (bool, u8) {
        let (x, y) = (i32::from(f[0]) + self.sa, i32::from(f[1]) + self.sb);
        let a_wins = x > y || (x == y && self.wta);
        let (w_total, w_face, loser_men) = if a_wins {
            (x, f[0], self.men.1)
        } else {
            (y, f[1], self.men.0)
        };
        let lost = match self.version {
            Version::Figure => u8::from(w_face >= tables::KILL_ON_NATURAL),
            Version::Company => tables::company_losses(w_total).min(loser_men),
        };
        (a_wins, lost)
    }

    /// What the odds of a bout depend on: the winner and the loser's losses (at most 2).
    fn class(&self, f: &[u8]) -> u32 {
        let (a_wins, lost) = self.decide(f);
        u32::from(a_wins) * 4 + u32::from(lost)
    }

    /// The explanation of an accepted throw.
    fn step(&self, f: &[u8]) -> Step {
        let (x, y) = (i32::from(f[0]) + self.sa, i32::from(f[1]) + self.sb);
        let (a_wins, lost) = self.decide(f);
        let (w_total, w_face) = if a_wins { (x, f[0]) } else { (y, f[1]) };
        let (winner, loser) = if a_wins { ("A", "B") } else { ("B", "A") };
        let result = match self.version {
            Version::Figure if lost > 0 => {
                format!("{winner} wins; {loser}'s figure is killed (natural {w_face})")
            }
            Version::Figure => format!("{winner} wins; {loser}'s figure falls back"),
            Version::Company => format!(
                "{winner} wins with {w_total}; {loser}'s company falls back, losing {lost} figure(s)"
            ),
        };
        Step {
            title: self.title.clone(),
            dice: rolled(&self.dice, f),
            modifiers: self.modifiers.clone(),
            totals: vec![("A".into(), x), ("B".into(), y)],
            result,
        }
    }
}

/// One bout: a D6 each plus factors; equal totals go to the side that wins ties, else are thrown
/// again. `then` gets the accepted faces; what it makes of them must depend on the faces only
/// through [`BoutDesc::decide`] (the exact odds visit one throw per winner and loss).
fn bout_plan<T: 'static>(desc: Rc<BoutDesc>, then: impl Fn(&[u8]) -> Plan<T> + 'static) -> Plan<T> {
    let (accept, class) = (desc.clone(), desc.clone());
    Plan::rethrow_classed(
        desc.dice.clone(),
        move |f| accept.accepts(f),
        move |f| class.class(f),
        then,
    )
}

fn bout(b: &BoutRequest) -> Result<Plan<Outcome>, Rejection> {
    let (ta, fa) = checked(&b.a, "a")?;
    let (tb, fb) = checked(&b.b, "b")?;
    for (f, t, field) in [(&fa, ta, "a.missing"), (&fb, tb, "b.missing")] {
        let max = t.company.saturating_sub(1);
        if f.missing > max {
            return Err(reject(
                "bad-missing",
                field,
                format!("{field}: at most {max} for a company of {}", t.company),
            ));
        }
    }
    let version = b.version;
    let men = (ta.company - fa.missing, tb.company - fb.missing);
    let desc = Rc::new(BoutDesc::new(
        (ta, &fa),
        (tb, &fb),
        version,
        (ta.name, tb.name),
        men,
    ));
    Ok(bout_plan(desc.clone(), move |f| {
        let (a_wins, lost) = desc.decide(f);
        let facet = match version {
            Version::Figure => (
                "loser killed",
                if lost > 0 { "yes" } else { "no" }.to_string(),
            ),
            Version::Company => ("figures lost", lost.to_string()),
        };
        let step = desc.step(f);
        Plan::Done(outcome(
            "bout",
            step.result.clone(),
            vec![step],
            vec![("winner", if a_wins { "A" } else { "B" }.into()), facet],
        ))
    }))
}

// ---- A whole close combat ----

/// One fighter in a queue and the figures it stands for (1 in the figure version; the company's
/// men; a field officer 1).
#[derive(Debug, Clone)]
struct Queued {
    name: String,
    fighter: Fighter,
    men: u8,
}

fn queue(
    side: &CombatSide,
    version: Version,
    field: &str,
) -> Result<(&'static Troop, Vec<Queued>), Rejection> {
    let base = Fighter {
        troop: side.troop.clone(),
        order: side.order,
        officer: false,
        shaken: side.shaken,
        lance: side.lance,
        missing: 0,
        climbing: side.climbing,
        across_wall: side.across_wall,
        attacked_in_rear: side.attacked_in_rear,
        square: side.square,
        broken_ground: side.broken_ground,
    };
    let (t, base) = checked(&base, field)?;
    if side.figures == 0 {
        return Err(reject(
            "no-fighters",
            &format!("{field}.figures"),
            "figures: at least one",
        ));
    }
    if side.leaders > side.figures {
        return Err(reject(
            "bad-leaders",
            &format!("{field}.leaders"),
            "leaders: at most the figures",
        ));
    }
    let mut q = Vec::new();
    match version {
        Version::Figure => {
            for i in 0..side.figures {
                let officer = i >= side.figures - side.leaders;
                q.push(Queued {
                    name: if officer {
                        "leader".into()
                    } else {
                        format!("figure {}", i + 1)
                    },
                    fighter: Fighter {
                        officer,
                        ..base.clone()
                    },
                    men: 1,
                });
            }
        }
        Version::Company => {
            // Full companies and one short company with the rest (decision 24); the short one
            // fights first, the leaders' companies last.
            let c = t.company.max(1);
            let mut sizes: Vec<u8> = Vec::new();
            if !side.figures.is_multiple_of(c) {
                sizes.push(side.figures % c);
            }
            sizes.extend(std::iter::repeat_n(c, usize::from(side.figures / c)));
            let n = sizes.len();
            let with_officer = usize::from(side.leaders).min(n);
            for (i, men) in sizes.into_iter().enumerate() {
                let officer = i >= n - with_officer;
                q.push(Queued {
                    name: format!(
                        "company {}{}",
                        i + 1,
                        if officer { " (with a leader)" } else { "" }
                    ),
                    fighter: Fighter {
                        officer,
                        missing: c - men,
                        ..base.clone()
                    },
                    men,
                });
            }
        }
    }
    if side.field_officer {
        // "fights last of all, by himself with the force of an entire company, +1 because he is
        // an officer" (001, CLOSE COMBAT - Modifed Version); in the figure version, a figure +1.
        q.push(Queued {
            name: "field officer".into(),
            fighter: Fighter {
                officer: true,
                ..base.clone()
            },
            men: 1,
        });
    }
    Ok((t, q))
}

/// The whole close combat: bouts until one side's queue is empty, or until the side breaking off
/// may do so (001, BREAKING OFF; design 6.5), with the exact odds of who wins and what each side
/// loses, from the same bouts that are rolled. Each state (who fights next, losses so far) is
/// worked out once, and each bout's factors once per pair of fighters.
fn close_combat(c: &CombatRequest, th: &Thresholds) -> Result<Plan<Outcome>, Rejection> {
    let (ta, qa) = queue(&c.a, c.version, "a")?;
    let (tb, qb) = queue(&c.b, c.version, "b")?;
    let breaking = match &c.break_off {
        None => None,
        Some(b) => Some(breaking(b, c, (ta, tb), th)?),
    };
    let fight = Rc::new(Fight {
        ta,
        tb,
        qa,
        qb,
        version: c.version,
        breaking,
        bouts: RefCell::new(HashMap::new()),
        field_officers: (c.a.field_officer, c.b.field_officer),
    });
    Ok(fight.from((0, 0), (0, 0), None))
}

/// A side that will break off as soon as it may, and its Stand and Fight test.
struct Breaking {
    side: BreakSide,
    /// Bouts fought in this combat before it breaks off.
    after: usize,
    test: Plan<Outcome>,
}

/// The break-off of a close combat: "Any unit may break off a close combat after 6 die rolls (3
/// Die rolls if using Modified Close combat system). The player tests "Stand and fight" morale for
/// the unit breaking off" (001, BREAKING OFF), counting the bouts the unit fought in this combat
/// (decision 28). The test takes the unit's situation as its side gives it: no leaders among its
/// figures and no field officer, spent, shaken, attacked in the rear (001, MORALE NOTES), and
/// "-2 Infantry attempting to break off from melee with cavalry" (001, BREAKING OFF).
fn breaking(
    b: &BreakOff,
    c: &CombatRequest,
    (ta, tb): (&'static Troop, &'static Troop),
    th: &Thresholds,
) -> Result<Breaking, Rejection> {
    let least = match c.version {
        Version::Figure => tables::BREAK_OFF_BOUTS_FIGURE,
        Version::Company => tables::BREAK_OFF_BOUTS_COMPANY,
    };
    let after = b.after.map_or(least, u32::from);
    if after < least {
        return Err(reject(
            "too-soon-to-break-off",
            "break_off.after",
            format!(
                "break_off.after: at least {least} bouts in the {} version (001, BREAKING OFF, 'after 6 die rolls (3 Die rolls if using Modified Close combat system)'; decision 28)",
                match c.version {
                    Version::Figure => "figure",
                    Version::Company => "company",
                }
            ),
        ));
    }
    let (me, mine, enemy) = match b.side {
        BreakSide::A => (&c.a, ta, tb),
        BreakSide::B => (&c.b, tb, ta),
    };
    let req = MoraleRequest {
        test: Test::StandAndFight,
        leaderless: me.leaders == 0,
        spent: me.spent,
        field_officer: me.field_officer,
        gendarmes_vs_lighter_cavalry: false,
        swiss_vs_pikes: false,
        attacked_in_rear: me.attacked_in_rear,
        shaken: me.shaken,
        infantry_breaking_off_from_cavalry: mine.kind == Kind::Foot && enemy.kind.mounted(),
        artillerists: false,
    };
    Ok(Breaking {
        side: b.side,
        after: usize::try_from(after).unwrap_or(usize::MAX),
        test: morale(&req, th),
    })
}

/// The bouts fought so far, newest first, shared between the branches that follow them (cloning
/// is a pointer copy however long the combat). A bout keeps its faces; its explanation is written
/// only when the combat's end is.
type Trail = Option<Rc<Bout>>;

struct Bout {
    desc: Rc<BoutDesc>,
    faces: [u8; 2],
    before: Trail,
}

fn trail_steps(t: &Trail) -> Vec<Step> {
    let mut out = Vec::new();
    let mut at = t;
    while let Some(node) = at {
        out.push(node.desc.step(&node.faces));
        at = &node.before;
    }
    out.reverse();
    out
}

struct Fight {
    ta: &'static Troop,
    tb: &'static Troop,
    qa: Vec<Queued>,
    qb: Vec<Queued>,
    version: Version,
    breaking: Option<Breaking>,
    /// The bout of each pair of fighters (by their places in the queues), built when first met.
    bouts: RefCell<HashMap<(usize, usize), Rc<BoutDesc>>>,
    /// Whether A and B have a field officer attached, fighting last of all.
    field_officers: (bool, bool),
}

impl Fight {
    /// A memo key of this combat: its states are its own, whatever else the plan holds.
    fn key(self: &Rc<Self>, state: std::fmt::Arguments) -> String {
        format!("combat {:p} {state}", Rc::as_ptr(self))
    }

    fn bout(&self, ia: usize, ib: usize) -> Rc<BoutDesc> {
        self.bouts
            .borrow_mut()
            .entry((ia, ib))
            .or_insert_with(|| {
                let (fa, fb) = (&self.qa[ia], &self.qb[ib]);
                Rc::new(BoutDesc::new(
                    (self.ta, &fa.fighter),
                    (self.tb, &fb.fighter),
                    self.version,
                    (&fa.name, &fb.name),
                    (fa.men, fb.men),
                ))
            })
            .clone()
    }

    /// The combat from the state where A's fighter `ia` meets B's fighter `ib`, with `la` and `lb`
    /// figures lost so far. Every decided bout sends one fighter out of its queue, so `ia + ib`
    /// bouts have been fought.
    fn from(
        self: &Rc<Self>,
        (ia, ib): (usize, usize),
        (la, lb): (u32, u32),
        trail: Trail,
    ) -> Plan<Outcome> {
        let me = self.clone();
        if ia >= self.qa.len() || ib >= self.qb.len() {
            let a_wins = ib >= self.qb.len();
            // A loser's field officer fought its last bout: a loss there is his alone, not a
            // figure of the unit (001, CLOSE COMBAT - Modifed Version; decision 49).
            let last_lost = trail.as_ref().map_or(0, |b| b.desc.decide(&b.faces).1);
            let officer_down = last_lost > 0
                && if a_wins {
                    self.field_officers.1
                } else {
                    self.field_officers.0
                };
            let (la, lb) = match (officer_down, a_wins) {
                (true, true) => (la, lb - 1),
                (true, false) => (la - 1, lb),
                _ => (la, lb),
            };
            // The end states too: whatever follows a combat (the loser's test) is then worked
            // out once per result.
            let key = self.key(format_args!(
                "end:{}:{la}:{lb}:{officer_down}",
                if a_wins { "A" } else { "B" }
            ));
            return Plan::memo(key, move || {
                let mut o = me.ended(a_wins, (la, lb), &trail);
                let loser = if a_wins { "B" } else { "A" };
                for (side, has) in [("A", me.field_officers.0), ("B", me.field_officers.1)] {
                    if has {
                        let fate = if officer_down && side == loser {
                            "down"
                        } else {
                            "survives"
                        };
                        o.facets
                            .push((format!("{side} field officer"), fate.into()));
                    }
                }
                if officer_down {
                    o.resolution.summary.push_str(&format!(
                        " {loser}'s field officer falls in his bout (not a figure of the unit)."
                    ));
                }
                Plan::Done(o)
            });
        }
        if self.breaking.as_ref().is_some_and(|b| ia + ib >= b.after) {
            // What follows depends only on the losses: the side breaking off and its test are
            // the combat's own.
            let key = self.key(format_args!("broke off:{la}:{lb}"));
            return Plan::memo(key, move || me.broke_off((la, lb), &trail));
        }
        let key = self.key(format_args!("{ia}:{ib}:{la}:{lb}"));
        Plan::memo(key, move || {
            let desc = me.bout(ia, ib);
            let (next, trail, d) = (me.clone(), trail.clone(), desc.clone());
            bout_plan(desc, move |f| {
                let (a_wins, lost) = d.decide(f);
                let trail = Some(Rc::new(Bout {
                    desc: d.clone(),
                    faces: [f[0], f[1]],
                    before: trail.clone(),
                }));
                let lost = u32::from(lost);
                if a_wins {
                    next.from((ia, ib + 1), (la, lb + lost), trail)
                } else {
                    next.from((ia + 1, ib), (la + lost, lb), trail)
                }
            })
        })
    }

    fn ended(&self, a_wins: bool, (la, lb): (u32, u32), trail: &Trail) -> Outcome {
        let steps = trail_steps(trail);
        let (w, l) = if a_wins { ("A", "B") } else { ("B", "A") };
        let summary = format!(
            "{w} wins the close combat after {} bout(s); losses: A {la}, B {lb} figure(s). {l} tests Stand and Fight (pass: falls back a normal move, shaken; fail: routs)",
            steps.len()
        );
        outcome(
            "close-combat",
            summary,
            steps,
            vec![
                ("winner", w.into()),
                ("A figures lost", la.to_string()),
                ("B figures lost", lb.to_string()),
            ],
        )
    }

    /// The combat still undecided when the side breaking off may do so: it ends, and that side
    /// tests Stand and Fight: "If the result is a "Pass" then the unit retires a normal move and
    /// is shaken. If the result is a fail, then the unit routs a normal move toward the rear"
    /// (001, BREAKING OFF); the rout's D4 casualties follow as for any rout (decision 28).
    fn broke_off(&self, (la, lb): (u32, u32), trail: &Trail) -> Plan<Outcome> {
        let Some(b) = &self.breaking else {
            return Plan::Done(self.ended(true, (la, lb), trail));
        };
        let mut steps = trail_steps(trail);
        let who = match b.side {
            BreakSide::A => "A",
            BreakSide::B => "B",
        };
        let n = steps.len();
        steps.push(Step {
            title: format!(
                "Breaking off: {who} has fought {n} bout(s) and breaks off [001, BREAKING OFF, 'Any unit may break off a close combat after 6 die rolls (3 Die rolls if using Modified Close combat system)'; decision 28]"
            ),
            dice: Vec::new(),
            modifiers: Vec::new(),
            totals: vec![("bouts".into(), i32::try_from(n).unwrap_or(i32::MAX))],
            result: format!(
                "{who} tests Stand and Fight: pass, retires a normal move, shaken; fail, routs"
            ),
        });
        b.test.clone().map(move |m| {
            let passed = m.facets.iter().any(|(k, v)| k == "passed" && v == "yes");
            let mut steps = steps.clone();
            steps.extend(m.resolution.steps);
            let (facet, what) = if passed {
                ("retires shaken", "passes Stand and Fight: retires a normal move, shaken")
            } else {
                ("routs", "fails Stand and Fight: routs a normal move to the rear, with the rout's D4 casualties (decision 28)")
            };
            outcome(
                "close-combat",
                format!(
                    "{who} breaks off after {n} bout(s); losses: A {la}, B {lb} figure(s). {who} {what}"
                ),
                steps,
                vec![
                    ("winner", "broke off".into()),
                    ("A figures lost", la.to_string()),
                    ("B figures lost", lb.to_string()),
                    ("break off", facet.into()),
                ],
            )
        })
    }
}

// ---- Movement, spirit, rout ----

fn movement(m: &MoveRequest) -> Result<Plan<Outcome>, Rejection> {
    let t = troop_at(&m.troop, "type")?;
    let order = if matches!(t.kind, Kind::Gun | Kind::Train) {
        Order::Open
    } else {
        order_of(m.order, t, "order")?
    };
    let base = tables::movement_dice(t, order);
    if base == 0 {
        return Err(reject("does-not-move", "type", "heavy guns do not move without the game master's permission, but may pivot in place (001, MOVEMENT)"));
    }
    if m.woods && matches!(t.kind, Kind::Gun | Kind::Train) {
        return Err(reject(
            "no-woods",
            "woods",
            "guns and wagons cannot enter woods except on roads (001, MOVEMENT)",
        ));
    }
    if m.dismounting && !matches!(t.id, "light-horse-arquebus" | "light-horse-crossbow") {
        return Err(reject("may-not-dismount", "dismounting", "dismounting: only mounted crossbowmen or arquebusiers may dismount (001, OPTIONAL RULES, DISMOUNTING)"));
    }
    let loss = tables::terrain_losses(t, order);
    let mut lost = 0u8;
    let mut mods = Vec::new();
    for (on, name, l) in [
        (m.uphill, "uphill", loss[0]),
        (m.downhill, "downhill", loss[1]),
        (m.obstacle, "across an obstacle", loss[2]),
        (m.woods, "through woods", loss[3]),
    ] {
        if on && l > 0 {
            lost += l;
            mods.push(modifier(
                "dice",
                name,
                -i32::from(l),
                "001, MOVEMENT, Movement Penalties; decision 18",
            ));
        }
    }
    if m.dismounting {
        lost += 1;
        mods.push(modifier(
            "dice",
            "mounting or dismounting",
            -1,
            "001, OPTIONAL RULES, DISMOUNTING, 'Unit loses 1 D6'",
        ));
    }
    // Never below one die (decision 18).
    let n = base.saturating_sub(lost).max(1);
    let half = m.loading && t.kind == Kind::Foot && t.weapon == Some(Weapon::Arquebus);
    let title = format!(
        "Move: {} in {} order rolls {base}D6{}",
        t.name,
        order_name(order),
        if lost > 0 {
            format!(
                ", {lost} lost{}: {n}D6",
                if base <= lost {
                    " (never fewer than one die, decision 18)"
                } else {
                    ""
                }
            )
        } else {
            String::new()
        }
    );
    Ok(
        throw(usize::from(n), 6, "Move die", Depends::Sum).map(move |f| {
            let rolled_total: u32 = f.iter().map(|&x| u32::from(x)).sum();
            let inches = if half {
                rolled_total / 2
            } else {
                rolled_total
            };
            let mut modifiers = mods.clone();
            if half {
                modifiers.push(modifier(
                    "inches",
                    "loading arquebus on foot: half, rounded down",
                    0,
                    "001, FIRE, 'May not move more than 1/2 while loading arquebus on foot'; decision 13",
                ));
            }
            let step = Step {
                title: title.clone(),
                dice: rolled(&labelled(f.len(), 6, "Move die"), &f),
                modifiers,
                totals: vec![("inches".into(), inches as i32)],
                result: format!("{inches}\""),
            };
            outcome(
                "move",
                format!("moves up to {inches}\""),
                vec![step],
                vec![("inches", inches.to_string())],
            )
        }),
    )
}

/// The number to roll at or under on a D10 (design 7.4, decision 3): ceil(5 (2F + W) / S), at
/// most 10.
pub fn spirit_target(fresh: u32, worn: u32, start: u32) -> u32 {
    if start == 0 {
        return 0;
    }
    (5 * (2 * fresh + worn)).div_ceil(start).min(10)
}

fn spirit(s: &SpiritRequest) -> Result<Plan<Outcome>, Rejection> {
    if s.start == 0 {
        return Err(reject(
            "bad-start",
            "start",
            "start: the units and guns of the army at the start of the game",
        ));
    }
    if s.fresh + s.worn > s.start {
        return Err(reject(
            "bad-count",
            "fresh",
            "fresh + worn cannot exceed the units and guns at the start",
        ));
    }
    let target = spirit_target(s.fresh, s.worn, s.start);
    let (fresh, worn, start) = (s.fresh, s.worn, s.start);
    Ok(Plan::die(Die::new(10, "Spirit D10"), move |face| {
        let good = u32::from(face) <= target;
        let step = Step {
            title: format!("Spirit of the army: {fresh} fresh and {worn} worn units and guns (worn count ½) over the {start} at the start, rounded up to tenths: roll {target} or less on a D10 [001, THE SPIRIT OF THE ARMY, second paragraph and its example; decision 3]"),
            dice: vec![RolledDie {
                label: "Spirit D10".into(),
                sides: 10,
                face,
            }],
            modifiers: Vec::new(),
            totals: vec![("needed".into(), target as i32)],
            result: if good {
                "good".into()
            } else {
                "poor: routed and spent units leave the field, shaken units rout".into()
            },
        };
        Plan::Done(outcome(
            "spirit",
            format!(
                "the spirit of the army is {}",
                if good { "good" } else { "poor" }
            ),
            vec![step],
            vec![("spirit", if good { "good" } else { "poor" }.into())],
        ))
    }))
}

fn rout() -> Plan<Outcome> {
    Plan::die(Die::new(4, "Rout D4"), |face| {
        let step = Step {
            title: "Rout: a D4 of casualties, then a normal move to the rear [001, ROUTED UNITS; decision 29]".into(),
            dice: vec![RolledDie {
                label: "Rout D4".into(),
                sides: 4,
                face,
            }],
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: format!("{face} figure(s) lost"),
        };
        Plan::Done(outcome(
            "rout",
            format!("routs, losing {face} figure(s)"),
            vec![step],
            vec![("figures lost", face.to_string())],
        ))
    })
}
