//! The dice of The Sword and the Flame, Renaissance adaptation, as plans: fire (a D20 per figure,
//! casualty cards with their aces), the three morale tests, a close-combat bout in both versions,
//! movement, the spirit of the army and a rout's casualties. Each is rolled or enumerated exactly
//! from the same plan. The game flow (card activation, the turn's steps) builds on these.

use serde::Deserialize;
use serde_json::Value;
use tercio_core::plan::throw;
use tercio_core::{Depends, Die, Modifier, Plan, Resolution, RolledDie, Step};

use super::tables::{self, Kind, Order, Range, Test, Troop, Weapon};
use crate::registry::{Outcome, Rejection};

/// A stand-alone action: everything it needs is in the request.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Request {
    Fire(FireRequest),
    Morale(MoraleRequest),
    Bout(BoutRequest),
    Move(MoveRequest),
    Spirit(SpiritRequest),
    Rout,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireRequest {
    pub weapon: Weapon,
    #[serde(default = "short")]
    pub range: Range,
    /// Target class 1 to 4 (design 2.4).
    pub target_class: u8,
    /// Figures that may fire (in range, in the ranks that shoot), or gunners for a gun.
    pub firers: u8,
    #[serde(default)]
    pub shaken: bool,
    #[serde(default)]
    pub light_rain: bool,
    /// Reiters firing both pistols (001, FIRE, "Reiters may shoot twice per turn").
    #[serde(default)]
    pub double: bool,
    /// Figures the target has: hits beyond them draw no card.
    #[serde(default)]
    pub target_figures: Option<u8>,
}

fn short() -> Range {
    Range::Short
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleRequest {
    pub test: Test,
    #[serde(default)]
    pub leaderless: bool,
    #[serde(default)]
    pub spent: bool,
    #[serde(default)]
    pub field_officer: bool,
    #[serde(default)]
    pub gendarmes_vs_lighter_cavalry: bool,
    #[serde(default)]
    pub swiss_vs_pikes: bool,
    #[serde(default)]
    pub attacked_in_rear: bool,
    /// Shaken, or routed (decision 5): −1 on Stand and Fight.
    #[serde(default)]
    pub shaken: bool,
    #[serde(default)]
    pub infantry_breaking_off_from_cavalry: bool,
    /// Gun crews charged: they "always fail the "to stand" test".
    #[serde(default)]
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
    #[serde(rename = "type")]
    pub troop: String,
    #[serde(default = "closed")]
    pub order: Order,
    /// The unit officer (figure version), or the company containing him.
    #[serde(default)]
    pub officer: bool,
    /// Shaken or falling back.
    #[serde(default)]
    pub shaken: bool,
    /// Lances in the unit's first close combat (gendarmes, spear-armed light horse).
    #[serde(default)]
    pub lance: bool,
    /// Men missing from the company (company version).
    #[serde(default)]
    pub missing: u8,
    #[serde(default)]
    pub climbing: bool,
    #[serde(default)]
    pub across_wall: bool,
    /// Attacked in the rear (the enemy started its move behind it; a pike square has no rear).
    #[serde(default)]
    pub attacked_in_rear: bool,
    /// Pikes fighting to their front (default for pikemen in closed order).
    #[serde(default = "yes")]
    pub pike_front: bool,
    /// Pikes in broken terrain or urban areas other than the streets: the bare die.
    #[serde(default)]
    pub broken_ground: bool,
}

fn closed() -> Order {
    Order::Closed
}
fn yes() -> bool {
    true
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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    #[serde(rename = "type")]
    pub troop: String,
    #[serde(default = "closed")]
    pub order: Order,
    #[serde(default)]
    pub uphill: bool,
    #[serde(default)]
    pub downhill: bool,
    #[serde(default)]
    pub obstacle: bool,
    #[serde(default)]
    pub woods: bool,
    /// Foot arquebusiers holding a reload marker move half (001, FIRE).
    #[serde(default)]
    pub loading: bool,
    /// Mounting or dismounting this move: one die fewer (001, OPTIONAL RULES, DISMOUNTING).
    #[serde(default)]
    pub dismounting: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpiritRequest {
    /// Fresh units and guns now, worn units and guns now, units and guns at the start.
    pub fresh: u32,
    pub worn: u32,
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
        Request::Move(m) => movement(m),
        Request::Spirit(s) => spirit(s),
        Request::Rout => Ok(rout()),
    }
}

// ---- Fire ----

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
    let line = tables::fire_line(f.weapon, f.range);
    let printed = i32::from(line.hits[usize::from(f.target_class - 1)]);
    let mut mods = Vec::new();
    if f.shaken {
        mods.push(modifier(
            "firer",
            "shaken",
            tables::FIRE_SHAKEN,
            tables::FIRE_SOURCE_SHAKEN,
        ));
    }
    if f.light_rain {
        mods.push(modifier(
            "firer",
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
    if n == 0 {
        return Err(reject(
            "no-firers",
            "firers",
            "firers: at least one figure (or gunner) that may fire",
        ));
    }
    let class = ["I", "II", "III", "IV"][usize::from(f.target_class - 1)];
    let title = format!(
        "Fire: {} ({} range, {}\") at Class {class}: a D20 per {}; 1-{printed} hits{}",
        weapon_name(f.weapon),
        if f.range == Range::Short {
            "short"
        } else {
            "long"
        },
        line.inches,
        if per > 1 { "gunner ×3" } else { "figure" },
        if added > 0 {
            format!(", {need} or less after modifiers")
        } else {
            String::new()
        }
    );
    let source = line.source;
    let cap = f.target_figures;
    Ok(
        throw(n, 20, "Fire D20", Depends::CountAtMost(need)).and_then(move |faces| {
            let hits = faces.iter().filter(|&&x| x <= need).count() as u8;
            let dice: Vec<Die> = (1..=faces.len())
                .map(|i| Die::new(20, format!("Fire D20 {i}")))
                .collect();
            let mut modifiers = mods.clone();
            modifiers.push(modifier("firer", "fire table", printed, source));
            let step = Step {
                title: title.clone(),
                dice: rolled(&dice, &faces),
                modifiers,
                totals: vec![("hits".into(), i32::from(hits))],
                result: format!("{hits} hit(s)"),
            };
            let cards = cap.map_or(hits, |c| hits.min(c));
            casualty_cards(cards, hits, step)
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

/// A 52-card deck in a fixed order, aces first, so "face ≤ aces left" is an ace.
fn deck() -> Vec<String> {
    let ranks = [
        "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2",
    ];
    let suits = ["♠", "♥", "♦", "♣"];
    ranks
        .iter()
        .flat_map(|r| suits.iter().map(move |s| format!("{r}{s}")))
        .collect()
}

/// One casualty card per hit from a full, shuffled casualty deck (decision 14): an ace hits an
/// officer or unit leader instead of a figure (001, OFFICERS).
fn casualty_cards(cards: u8, hits: u8, fire: Step) -> Plan<Outcome> {
    fn draw(
        left: Vec<String>,
        aces: u8,
        n: u8,
        drawn: Vec<String>,
        fire: Step,
        hits: u8,
    ) -> Plan<Outcome> {
        if n == 0 {
            let officers = drawn.iter().filter(|c| c.starts_with('A')).count();
            let figures = drawn.len() - officers;
            let mut steps = vec![fire.clone()];
            if !drawn.is_empty() {
                steps.push(Step {
                    title:
                        "Casualty cards: one per hit; an ace hits an officer or unit leader instead"
                            .into(),
                    dice: Vec::new(),
                    modifiers: Vec::new(),
                    totals: vec![
                        ("figures".into(), figures as i32),
                        ("officers".into(), officers as i32),
                    ],
                    result: format!("cards {}", drawn.join(" ")),
                });
            }
            let summary = if hits == 0 {
                "No hits".to_string()
            } else if officers > 0 {
                format!("{hits} hit(s): {figures} figure(s) and {officers} officer(s) — the game master names the officer (the target's leader, or a field officer within 12\" in the cone of fire; none: a figure)")
            } else {
                format!("{hits} hit(s): remove {figures} figure(s)")
            };
            return Plan::Done(outcome(
                "fire",
                summary,
                steps,
                vec![
                    ("hits", hits.to_string()),
                    ("officers hit", officers.to_string()),
                ],
            ));
        }
        let sides = left.len() as u8;
        let label = format!("Casualty card {}", drawn.len() + 1);
        Plan::Throw(
            vec![Die::new(sides.max(2), label)],
            Depends::CountAtMost(aces),
            std::rc::Rc::new(move |f: &[u8]| {
                let i = usize::from(f[0].saturating_sub(1)).min(left.len().saturating_sub(1));
                let mut rest = left.clone();
                let card = rest.remove(i);
                let ace = card.starts_with('A');
                let mut got = drawn.clone();
                got.push(card);
                draw(rest, aces - u8::from(ace), n - 1, got, fire.clone(), hits)
            }),
        )
    }
    draw(deck(), 4, cards, Vec::new(), fire, hits)
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
    // An attached field officer stands in for the unit's leaders (decision 7).
    add(
        m.leaderless && !m.field_officer,
        "without any leaders",
        -2,
        "001, MORALE NOTES, 'Units without any leaders -2'",
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
        m.attacked_in_rear && test == Test::StandAndFight,
        "attacked in rear",
        -2,
        "001, MORALE NOTES, 'Attacked in rear -2 to \"Stand and fight\"'",
    );
    add(
        m.shaken && test == Test::StandAndFight,
        "shaken",
        -1,
        "001, MORALE NOTES, 'Shaken units are -1 to \"Stand and fight\"' (routed too: decision 5)",
    );
    add(
        m.infantry_breaking_off_from_cavalry,
        "infantry breaking off from cavalry",
        -2,
        "001, BREAKING OFF, '-2 Infantry attempting to break off from melee with cavalry'",
    );
    let total_mod: i32 = mods.iter().map(|m| m.value).sum();
    let title = format!("{}: 2D6 + modifiers, {need} or more passes", test.name());
    throw(2, 6, "Morale die", Depends::Sum).map(move |f| {
        let total = i32::from(f[0]) + i32::from(f[1]) + total_mod;
        let pass = total >= need;
        let dice = [Die::d6("Morale die 1"), Die::d6("Morale die 2")];
        let mut modifiers = mods.clone();
        modifiers.push(modifier(
            "table",
            "morale table",
            need,
            tables::MORALE_SOURCE,
        ));
        let step = Step {
            title: title.clone(),
            dice: rolled(&dice, &f),
            modifiers,
            totals: vec![("total".into(), total)],
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

/// A fighter's factors against its enemy (design 6.2): modifiers, whether it wins ties, and
/// whether it fights with the bare die.
pub fn factors(
    me: &Fighter,
    t: &Troop,
    enemy: &Fighter,
    et: &Troop,
    version: Version,
) -> (Vec<Modifier>, bool, bool) {
    let pike_front = |f: &Fighter, tr: &Troop| {
        tr.id == "pikemen" && f.order == Order::Closed && f.pike_front && !f.broken_ground
    };
    if t.id == "pikemen" && me.broken_ground {
        // "Pikes in broken terrain or urban areas other than in the streets = die number".
        return (Vec::new(), false, true);
    }
    let mut m = Vec::new();
    let mut wt = false;
    let src = "001, CLOSE COMBAT, Close Combat Factors";
    let mut add = |name: &str, v: i32| m.push(modifier("", name, v, src));
    match t.id {
        "gendarmes" => {
            add("gendarmes", 2);
            wt = true;
        }
        "great-swordsmen" | "halberdiers" => {
            if et.kind.mounted() {
                add("against cavalry", 1);
            } else {
                add(t.name, 2);
            }
            wt = true;
        }
        "reiters" if et.id != "gendarmes" => add("medium cavalry", 1),
        id if id.starts_with("light-horse") && et.kind == Kind::Foot => {
            add("light cavalry against infantry", 1);
            wt = true;
        }
        _ => {}
    }
    if pike_front(me, t) {
        add("pikes, closed order, to their front", 2);
        wt = true;
    }
    if pike_front(enemy, et) && t.id != "pikemen" {
        add("fighting pikes to their front", -2);
    }
    if me.lance && t.kind.mounted() {
        add("lance, first close combat", 1);
    }
    if me.order == Order::Open && enemy.order == Order::Closed {
        add("open order against closed order", -1);
    }
    if me.climbing {
        add("climbing to a higher level", -1);
    }
    if me.across_wall {
        add("attacking across a wall", -1);
    }
    if me.officer {
        add(
            if version == Version::Company {
                "company with an officer"
            } else {
                "officer"
            },
            1,
        );
    }
    if me.shaken {
        add("shaken or falling back", -1);
    }
    if me.attacked_in_rear {
        add("attacked in rear", -1);
    }
    if version == Version::Company && me.missing > 0 {
        add("men missing from the company", -i32::from(me.missing));
    }
    (m, wt, false)
}

fn fighter_troop(f: &Fighter, field: &str) -> Result<&'static Troop, Rejection> {
    let t = tables::troop(&f.troop).ok_or_else(|| {
        let ids: Vec<&str> = tables::TROOPS.iter().map(|t| t.id).collect();
        reject(
            "unknown-troop-type",
            field,
            format!("{field}: one of {}", ids.join(", ")),
        )
    })?;
    if f.order == Order::Skirmish || matches!(t.kind, Kind::Gun | Kind::Train) || t.id == "riflemen"
    {
        return Err(reject(
            "does-not-fight",
            field,
            format!("{field}: skirmishers, gun crews and train do not fight in close combat: skirmishers are destroyed if they cannot evade, gun crews never stand (001, ORDER; EVASION; ADDITIONAL NOTES)"),
        ));
    }
    Ok(t)
}

fn bout(b: &BoutRequest) -> Result<Plan<Outcome>, Rejection> {
    let ta = fighter_troop(&b.a, "a.type")?;
    let tb = fighter_troop(&b.b, "b.type")?;
    let max_missing = |t: &Troop| t.company.saturating_sub(1);
    for (f, t, field) in [(&b.a, ta, "a.missing"), (&b.b, tb, "b.missing")] {
        if f.missing > max_missing(t) {
            return Err(reject(
                "bad-missing",
                field,
                format!(
                    "{field}: at most {} for a company of {}",
                    max_missing(t),
                    t.company
                ),
            ));
        }
    }
    let (mut ma, wta, bare_a) = factors(&b.a, ta, &b.b, tb, b.version);
    let (mut mb, wtb, bare_b) = factors(&b.b, tb, &b.a, ta, b.version);
    // Against a pike on the bare die, its enemy loses the −2 for fighting pikes (decision 25).
    if bare_b {
        ma.retain(|m| m.name != "fighting pikes to their front");
    }
    if bare_a {
        mb.retain(|m| m.name != "fighting pikes to their front");
    }
    for m in &mut ma {
        m.side = "A".into();
    }
    for m in &mut mb {
        m.side = "B".into();
    }
    let (sa, sb): (i32, i32) = (
        ma.iter().map(|m| m.value).sum(),
        mb.iter().map(|m| m.value).sum(),
    );
    let version = b.version;
    let names = (ta.name, tb.name);
    let dice = vec![
        Die::d6("A's close-combat die"),
        Die::d6("B's close-combat die"),
    ];
    let dice2 = dice.clone();
    // Equal totals: a side that wins ties wins; both or neither, the bout is thrown again.
    let decided = move |f: &[u8]| {
        let (x, y) = (i32::from(f[0]) + sa, i32::from(f[1]) + sb);
        x != y || wta != wtb
    };
    Ok(Plan::rethrow_until(dice, decided, move |f| {
        let (x, y) = (i32::from(f[0]) + sa, i32::from(f[1]) + sb);
        let a_wins = x > y || (x == y && wta);
        let (w_total, w_face) = if a_wins { (x, f[0]) } else { (y, f[1]) };
        let (winner, loser) = if a_wins { ("A", "B") } else { ("B", "A") };
        let wname = if a_wins { names.0 } else { names.1 };
        let mut modifiers = ma.clone();
        modifiers.extend(mb.clone());
        let (result, facet) = match version {
            Version::Figure => {
                let killed = w_face >= tables::KILL_ON_NATURAL;
                (
                    format!(
                        "{winner} ({wname}) wins; {loser}'s figure {}",
                        if killed {
                            "is killed (natural 5 or 6)"
                        } else {
                            "falls back"
                        }
                    ),
                    (
                        "loser killed",
                        if killed { "yes" } else { "no" }.to_string(),
                    ),
                )
            }
            Version::Company => {
                let lost = tables::company_losses(w_total);
                (
                    format!("{winner} ({wname}) wins with {w_total}; {loser}'s company falls back, losing {lost} figure(s)"),
                    ("figures lost", lost.to_string()),
                )
            }
        };
        let step = Step {
            title: format!(
                "Close combat bout ({} version): D6 each + factors",
                if version == Version::Figure {
                    "figure"
                } else {
                    "company"
                }
            ),
            dice: rolled(&dice2, f),
            modifiers,
            totals: vec![("A".into(), x), ("B".into(), y)],
            result: result.clone(),
        };
        Plan::Done(outcome(
            "bout",
            result,
            vec![step],
            vec![("winner", winner.into()), facet],
        ))
    }))
}

// ---- Movement, spirit, rout ----

fn movement(m: &MoveRequest) -> Result<Plan<Outcome>, Rejection> {
    let t = tables::troop(&m.troop).ok_or_else(|| {
        reject(
            "unknown-troop-type",
            "type",
            "type: a troop type of the text",
        )
    })?;
    let base = tables::movement_dice(t, m.order);
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
    let loss = tables::terrain_losses(t, m.order);
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
                "mover",
                name,
                -i32::from(l),
                "001, MOVEMENT, Movement Penalties",
            ));
        }
    }
    if m.dismounting {
        lost += 1;
        mods.push(modifier(
            "mover",
            "mounting or dismounting",
            -1,
            "001, OPTIONAL RULES, DISMOUNTING, 'Unit loses 1 D6'",
        ));
    }
    // Never below one die (decision 18).
    let n = base.saturating_sub(lost).max(1);
    let half = m.loading && t.kind == Kind::Foot && t.weapon == Some(Weapon::Arquebus);
    let title = format!(
        "Move: {}D6 ({} in {} order{})",
        n,
        t.name,
        order_name(m.order),
        if lost > 0 {
            format!(", {base} less {lost} for the ground")
        } else {
            String::new()
        }
    );
    Ok(
        throw(usize::from(n), 6, "Move die", Depends::Sum).map(move |f| {
            let rolled_total: u32 = f.iter().map(|&x| u32::from(x)).sum();
            let inches = if half { rolled_total / 2 } else { rolled_total };
            let dice: Vec<Die> = (1..=f.len())
                .map(|i| Die::d6(format!("Move die {i}")))
                .collect();
            let mut modifiers = mods.clone();
            if half {
                modifiers.push(modifier(
                    "mover",
                    "loading arquebus on foot: half, rounded down",
                    0,
                    "001, FIRE, 'May not move more than 1/2 while loading arquebus on foot'",
                ));
            }
            let step = Step {
                title: title.clone(),
                dice: rolled(&dice, &f),
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

fn order_name(o: Order) -> &'static str {
    match o {
        Order::Closed => "closed",
        Order::Open => "open",
        Order::Skirmish => "skirmish",
    }
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
            title: format!("Spirit of the army: ({fresh} fresh + ½ × {worn} worn) ÷ {start} at the start, rounded up to tenths: roll {target} or less on a D10"),
            dice: vec![RolledDie { label: "Spirit D10".into(), sides: 10, face }],
            modifiers: vec![modifier("army", "spirit number", target as i32, "001, THE SPIRIT OF THE ARMY (second paragraph and its example; decision 3)")],
            totals: Vec::new(),
            result: if good { "good".into() } else { "poor: routed and spent units leave the field, shaken units rout".into() },
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
            title: "Rout: a D4 of casualties, then a normal move to the rear".into(),
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
