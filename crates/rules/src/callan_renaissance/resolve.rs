//! Dice pools and the dice counts of a volley and of a combat round (design §6.5, §7.3, §7.4,
//! §11.1). Pools are declared plans: the same plan is rolled and enumerated for the exact odds.

use tercio_core::plan::throw;
use tercio_core::{Depends, FaceClasses, Modifier, Plan, RolledDie};

use super::tables::{Quality, Troop, Weapon};
use super::{k, m, term};

/// How a pool's dice hit (§7.4, §11.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitOn {
    /// Only a 6: 1/6.
    Six,
    /// 5 or 6: 1/3.
    FiveSix,
    /// "5 e mezzo": a 6 hits, a 5 is re-rolled once and then hits on 4–6: 1/4.
    FiveHalf,
    /// 5–6, every miss re-rolled once (gendarmi charging): 5/9.
    RerollMisses,
    /// 5–6, each 1 re-rolled once (other cavalry charging): 7/18.
    RerollOnes,
}

impl HitOn {
    /// The chance one die hits, as a fraction.
    pub fn chance(self) -> (u32, u32) {
        match self {
            HitOn::Six => (1, 6),
            HitOn::FiveSix => (1, 3),
            HitOn::FiveHalf => (1, 4),
            HitOn::RerollMisses => (5, 9),
            HitOn::RerollOnes => (7, 18),
        }
    }
    pub fn id(self) -> &'static str {
        match self {
            HitOn::Six => "six",
            HitOn::FiveSix => "five-six",
            HitOn::FiveHalf => "five-half",
            HitOn::RerollMisses => "reroll-misses",
            HitOn::RerollOnes => "reroll-ones",
        }
    }
    /// The hit number in words, as a message argument.
    pub fn name(self) -> String {
        format!("@callan.hit.{}", self.id())
    }
}

/// A rolled pool: its hits and every throw made (re-rolls included). The dice are labelled only
/// when shown ([`Pool::dice`]): the exact odds walk thousands of classes of a big pool and never
/// show them.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    pub hits: u32,
    /// Each throw: its label, whether it re-rolls, its faces.
    pub throws: Vec<(String, bool, Vec<u8>)>,
    /// Dice showing 1 in the first throw (a gun's explosion, §6.6).
    pub ones: u32,
}

impl Pool {
    /// Every die thrown, labelled.
    pub fn dice(&self) -> Vec<RolledDie> {
        self.throws
            .iter()
            .flat_map(|(label, reroll, faces)| labelled(label, faces, *reroll, 0))
            .collect()
    }
}

fn labelled(label: &str, faces: &[u8], reroll: bool, from: usize) -> Vec<RolledDie> {
    faces
        .iter()
        .enumerate()
        .map(|(i, &f)| RolledDie {
            label: if reroll {
                m(
                    "callan.die.reroll",
                    &[
                        ("who", label.to_string()),
                        ("n", (from + i + 1).to_string()),
                    ],
                )
            } else {
                format!("{label} {}", from + i + 1)
            },
            sides: 6,
            face: f,
        })
        .collect()
}

/// `n` dice hitting as `hit`; a thrown 5½ or charge re-roll is a second throw of the dice it
/// re-rolls, so the plan's classes stay small (§11.1).
pub fn pool(n: u32, hit: HitOn, label: &str) -> Plan<Pool> {
    if n == 0 {
        return Plan::Done(Pool::default());
    }
    let label = label.to_string();
    let nn = n as usize;
    match hit {
        HitOn::Six | HitOn::FiveSix => {
            let miss = if hit == HitOn::Six { 5 } else { 4 };
            throw(nn, 6, &label, Depends::CountAtMost(miss)).map(move |f| Pool {
                hits: f.iter().filter(|&&x| x > miss).count() as u32,
                ones: f.iter().filter(|&&x| x == 1).count() as u32,
                throws: vec![(label.clone(), false, f)],
            })
        }
        HitOn::RerollMisses => throw(nn, 6, &label, Depends::CountAtMost(4)).and_then(move |f| {
            let first = f.iter().filter(|&&x| x > 4).count() as u32;
            let misses = n - first;
            pool_again(misses, 4, &label, first, f)
        }),
        HitOn::RerollOnes => {
            // 1: re-rolled; 2–4: miss; 5–6: hit.
            let classes = FaceClasses::of(&[0, 1, 1, 1, 2, 2]);
            throw(nn, 6, &label, Depends::Classes(classes)).and_then(move |f| {
                let first = f.iter().filter(|&&x| classes.class(x) == 2).count() as u32;
                let ones = f.iter().filter(|&&x| classes.class(x) == 0).count() as u32;
                pool_again(ones, 4, &label, first, f)
            })
        }
        HitOn::FiveHalf => {
            // 1–4: miss; 5: re-rolled, then 4–6 hits; 6: hit.
            let classes = FaceClasses::of(&[0, 0, 0, 0, 1, 2]);
            throw(nn, 6, &label, Depends::Classes(classes)).and_then(move |f| {
                let sixes = f.iter().filter(|&&x| classes.class(x) == 2).count() as u32;
                let fives = f.iter().filter(|&&x| classes.class(x) == 1).count() as u32;
                pool_again(fives, 3, &label, sixes, f)
            })
        }
    }
}

/// The second throw of a pool: `n` dice, each hitting above `miss`, added to `hits`.
fn pool_again(n: u32, miss: u8, label: &str, hits: u32, first: Vec<u8>) -> Plan<Pool> {
    let ones = first.iter().filter(|&&x| x == 1).count() as u32;
    if n == 0 {
        return Plan::Done(Pool {
            hits,
            ones,
            throws: vec![(label.to_string(), false, first)],
        });
    }
    let label = label.to_string();
    throw(n as usize, 6, &label, Depends::CountAtMost(miss)).map(move |g| Pool {
        hits: hits + g.iter().filter(|&&x| x > miss).count() as u32,
        ones,
        throws: vec![
            (label.clone(), false, first.clone()),
            (label.clone(), true, g),
        ],
    })
}

/// A pool with a commander leading the unit: one miss re-rolled, once, after every other
/// re-roll, at the pool's own chance (003, Comandanti a); D22).
pub fn pool_led(n: u32, hit: HitOn, label: &str, commander: bool) -> Plan<Pool> {
    let label2 = m("callan.die.commander", &[("who", label.to_string())]);
    pool(n, hit, label).and_then(move |p| {
        if !commander || p.hits >= n {
            return Plan::Done(p);
        }
        let label2 = label2.clone();
        pool(1, hit, &label2).map(move |q| Pool {
            hits: p.hits + q.hits,
            ones: p.ones,
            throws: p.throws.iter().chain(q.throws.iter()).cloned().collect(),
        })
    })
}

/// A gun's throw (§6.6): hits, and whether two or more 1s blow it up. The ones are judged on
/// the gun's own throw; a commander's re-roll cannot undo an explosion (D20).
pub fn gun_throw(n: u32, hit: HitOn, label: &str) -> Plan<Pool> {
    if n == 0 {
        return Plan::Done(Pool::default());
    }
    let label = label.to_string();
    let top = if hit == HitOn::Six { 5 } else { 4 };
    let mut c = [1u8; 6];
    c[0] = 0;
    for x in c.iter_mut().skip(top as usize) {
        *x = 2;
    }
    let classes = FaceClasses::of(&c);
    throw(n as usize, 6, &label, Depends::Classes(classes)).map(move |f| Pool {
        hits: f.iter().filter(|&&x| classes.class(x) == 2).count() as u32,
        ones: f.iter().filter(|&&x| classes.class(x) == 0).count() as u32,
        throws: vec![(label.clone(), false, f)],
    })
}

// ------------------------------------------------------------------------------------------------
// A volley's dice (§6.5).

/// Cover of the target (003, Preparazione del gioco › Copertura; D21).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cover {
    None,
    Wall,
    Fortification,
    WoodEdge,
}

impl Cover {
    pub fn from_id(s: &str) -> Option<Cover> {
        match s {
            "none" | "nessuna" => Some(Cover::None),
            "wall" | "muro" => Some(Cover::Wall),
            "fortification" | "fortificazioni" => Some(Cover::Fortification),
            "wood_edge" | "bosco" => Some(Cover::WoodEdge),
            _ => None,
        }
    }
}

/// Everything a volley's dice depend on.
#[derive(Debug, Clone)]
pub struct VolleyIn {
    pub weapon: Weapon,
    pub short_bases: u32,
    pub long_bases: u32,
    pub moved: bool,
    pub disordered: bool,
    /// Open-order infantry or artillery (003, Tiro › Qual è il danno?; D6).
    pub dispersed: bool,
    pub target_on_foot: bool,
    pub cover: Cover,
    /// The target is a pike block with a shot screen (D3).
    pub screen: bool,
    pub riccio: bool,
    /// A gun's line of fire crosses more than two enemy ranks (D19).
    pub dense: bool,
    pub downhill: bool,
    /// `callan.javelin_hit` (6 or 5).
    pub javelin_hit: u8,
}

/// One range group: dice, hit number and the modifiers that made them.
#[derive(Debug, Clone)]
pub struct Group {
    pub short: bool,
    pub dice: u32,
    pub hit: HitOn,
    pub mods: Vec<Modifier>,
}

fn modifier(side: &str, key: &str, value: i32, source: &str) -> Modifier {
    Modifier {
        side: side.to_string(),
        name: k(key),
        value,
        source: source.to_string(),
    }
}

/// The volley's two range groups (short first), each from its base dice through every halving
/// (rounded up once: ⌈n / 2^k⌉) and the shot screen's −1, taken from the long group first (D18).
pub fn volley_groups(v: &VolleyIn) -> Vec<Group> {
    let (ds, dl) = v.weapon.dice();
    let small_arms = !v.weapon.is_gun();
    // Crossbows and bows "tirano sempre a lunga": bases the players measured under 4 BW fire
    // at long range with the others, one group (D8).
    let (short_bases, long_bases) = if v.weapon == Weapon::Balestra {
        (0, v.short_bases + v.long_bases)
    } else {
        (v.short_bases, v.long_bases)
    };
    let mut out = Vec::new();
    for short in [true, false] {
        let bases = if short { short_bases } else { long_bases };
        if bases == 0 {
            continue;
        }
        let per = if short { ds } else { dl };
        let base = bases * per;
        let mut mods = vec![Modifier {
            side: k("callan.side.firer"),
            name: m(
                "callan.mod.base-dice",
                &[("bases", bases.to_string()), ("per", per.to_string())],
            ),
            value: base as i32,
            source: "003, Tiro › Qual è il danno? (§6.2)".into(),
        }];
        let mut halvings = Vec::new();
        if v.moved {
            halvings.push((
                "callan.mod.move-fire",
                "003, Movimento, \"devono dimezzare il numero di dadi\" (§6.5)",
            ));
        }
        if v.disordered {
            halvings.push((
                "callan.mod.disordered-firer",
                "003, Disordine, \"tira metà del numero normale di dadi quando spara\"",
            ));
        }
        if v.dispersed {
            halvings.push((
                "callan.mod.dispersed",
                "003, Tiro › Qual è il danno?, \"Fanteria in Ordine Aperto o Artiglieria\"",
            ));
        }
        match v.cover {
            Cover::Fortification if v.target_on_foot => {
                halvings.push(("callan.mod.fortification", "003, Copertura (D21)"))
            }
            Cover::Wall if v.target_on_foot && small_arms => halvings.push((
                "callan.mod.wall",
                "003, Copertura, \"eccetto l'artiglieria\" (D21)",
            )),
            Cover::WoodEdge => halvings.push(("callan.mod.wood-edge", "003, Copertura (D21)")),
            _ => {}
        }
        // k halvings rounded up once: ⌈n / 2^k⌉ (D18); the reduction is shown on the first.
        let dice = base.div_ceil(1 << halvings.len());
        for (i, (key, src)) in halvings.iter().enumerate() {
            let value = if i == 0 { dice as i32 - base as i32 } else { 0 };
            mods.push(modifier(&k("callan.side.firer"), key, value, src));
        }
        out.push(Group {
            short,
            dice,
            hit: volley_hit(v, short),
            mods,
        });
    }
    // The screen's die comes off the long group first, never below 0 (D18).
    if v.screen && small_arms {
        if let Some(g) = out.iter_mut().rev().find(|g| g.dice > 0) {
            g.dice -= 1;
            g.mods.push(modifier(
                &k("callan.side.firer"),
                "callan.mod.screen",
                -1,
                "003, Tiro › Qual è il danno?, \"Sottrarre un dado\" (D3)",
            ));
        }
    }
    out
}

/// The hit number of a range group (§6.3, D16, D17, D19).
pub fn volley_hit(v: &VolleyIn, short: bool) -> HitOn {
    if v.weapon.is_gun() {
        if (v.dense || v.riccio) && !v.downhill {
            return HitOn::FiveSix;
        }
        return HitOn::Six;
    }
    if v.riccio {
        return HitOn::FiveSix;
    }
    match v.weapon {
        Weapon::CavalloArmiDaTiro if short => HitOn::FiveSix,
        Weapon::Giavellotti if v.javelin_hit <= 5 => HitOn::FiveSix,
        _ => HitOn::Six,
    }
}

// ------------------------------------------------------------------------------------------------
// A combat round's dice (§7.2–§7.4).

/// A side's role in the round (§7.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Attacker,
    Defender,
}

/// One side of a round as the players counted it, with what the engine tracks.
#[derive(Debug, Clone)]
pub struct SideIn {
    pub troop: Troop,
    pub quality: Quality,
    pub german: bool,
    pub front: u32,
    pub rear: u32,
    /// Of the front bases, how many are a tercio's shot (D4).
    pub tercio_shot_front: u32,
    /// An attached Doppelsöldner or rodeleros base emerging (round 2+, D32).
    pub emerge: bool,
    pub halberd: bool,
    pub disordered: bool,
    pub flanked: bool,
    pub riccio: bool,
    pub role: Role,
    /// This round is its charge with the bonus (D28).
    pub charge_bonus: bool,
    /// Gendarmi or heavy cavalry after their two charges (D29).
    pub spent: bool,
    /// Lost the Doppelsöldner duel: one die fewer in round 1 (D33).
    pub duel_lost: bool,
    pub round: u32,
}

/// The dice, the hit number and the modifiers of one side facing `enemy`.
pub fn side_dice(s: &SideIn, enemy: &SideIn, who: &str) -> (u32, HitOn, Vec<Modifier>) {
    let vs_cav = enemy.troop.is_cavalry();
    let per = s.troop.melee_half_dice(vs_cav);
    let mut mods = Vec::new();
    // Quarter dice: a counted base is 2 × its half dice; half-counted bases, 1 ×.
    let mut quarters;
    if s.flanked && !s.riccio {
        quarters = 2 * per;
        mods.push(Modifier {
            side: who.into(),
            name: m("callan.mod.flanked", &[("per", half_str(per))]),
            value: 0,
            source: "003, Attacco sul fianco, \"conta solo una base\" (D34)".into(),
        });
    } else {
        let shot = s.tercio_shot_front.min(s.front);
        let pike_front = s.front - shot;
        let front_w = if s.disordered { 1 } else { 2 };
        quarters = pike_front * per * front_w + shot * 2 * front_w;
        mods.push(Modifier {
            side: who.into(),
            name: m(
                "callan.mod.front",
                &[("bases", s.front.to_string()), ("per", half_str(per))],
            ),
            value: 0,
            source: "003, Disordine › Chi può combattere? (§7.3)".into(),
        });
        if shot > 0 {
            mods.push(Modifier {
                side: who.into(),
                name: m("callan.mod.tercio-shot", &[("bases", shot.to_string())]),
                value: 0,
                source: "003, Dimensioni delle unità (D4)".into(),
            });
        }
        if s.disordered {
            mods.push(modifier(
                who,
                "callan.mod.disordered-front",
                0,
                "003, Disordine, \"conta solo metà delle sue basi di prima linea\" (D25)",
            ));
        }
        let rear_w = rear_weight(s, enemy);
        if s.rear > 0 {
            quarters += s.rear * per * rear_w;
            mods.push(Modifier {
                side: who.into(),
                name: m(
                    match rear_w {
                        2 => "callan.mod.rear-full",
                        1 => "callan.mod.rear-half",
                        _ => "callan.mod.rear-none",
                    },
                    &[("bases", s.rear.to_string())],
                ),
                value: 0,
                source: "003, Disordine (§7.3, D26)".into(),
            });
        }
        if s.emerge && s.round >= 2 {
            let sp = Troop::Doppelsoldner.melee_half_dice(vs_cav);
            quarters += 2 * sp;
            mods.push(modifier(
                who,
                "callan.mod.emerge",
                0,
                "003, Tipi di truppe (D32)",
            ));
        }
    }
    let mut dice = (quarters / 4) as i32;
    mods.push(Modifier {
        side: who.into(),
        name: k("callan.mod.rounded-down"),
        value: dice,
        source: "003, Disordine, \"Le mezze basi vengono calcolate per difetto\" (D25)".into(),
    });
    if s.halberd && s.round >= 2 && vs_cav && !s.flanked {
        dice += 1;
        mods.push(modifier(
            who,
            "callan.mod.halberd",
            1,
            "003, Disordine, \"1 dado in più nei turni successivi contro cavallerie\" (D32)",
        ));
    }
    if s.duel_lost && s.round == 1 {
        dice -= 1;
        mods.push(modifier(
            who,
            "callan.mod.duel-lost",
            -1,
            "003, Disordine (D33)",
        ));
    }
    let dice = dice.max(0) as u32;
    let hit = round_hit(s, enemy);
    (dice, hit, mods)
}

fn half_str(h: u32) -> String {
    super::tables::halves_text(h)
}

/// How a side's rear bases count, in halves of a base: 2 full, 1 half, 0 not at all (D26).
pub fn rear_weight(s: &SideIn, enemy: &SideIn) -> u32 {
    match s.troop {
        Troop::Picchieri
            if s.riccio
                || s.quality == Quality::Veterani
                || enemy.troop.is_cavalry()
                || s.role == Role::Attacker =>
        {
            2
        }
        Troop::CavalleriaPesante => 1,
        Troop::Gendarmi if s.german => 1,
        _ => 0,
    }
}

/// The hit number of a side (§7.4, D27–D30).
pub fn round_hit(s: &SideIn, enemy: &SideIn) -> HitOn {
    if s.troop.is_cavalry() && enemy.riccio && s.role == Role::Attacker {
        return HitOn::Six;
    }
    if s.troop.is_heavy_horse() && s.spent {
        return HitOn::FiveHalf;
    }
    if s.troop == Troop::Picchieri
        && s.quality == Quality::Veterani
        && (enemy.troop.is_cavalry() || enemy.troop == Troop::Picchieri)
    {
        return HitOn::FiveSix;
    }
    if s.charge_bonus && s.role == Role::Attacker && enemy.troop != Troop::Picchieri {
        return if s.troop == Troop::Gendarmi {
            HitOn::RerollMisses
        } else {
            HitOn::RerollOnes
        };
    }
    match s.role {
        Role::Attacker => HitOn::FiveSix,
        Role::Defender => HitOn::FiveHalf,
    }
}

/// Who wins a round from the hits each side inflicted (D38): `Some(true)` the first side.
pub fn winner(hits_a: u32, hits_b: u32) -> Option<bool> {
    match hits_a.cmp(&hits_b) {
        std::cmp::Ordering::Greater => Some(true),
        std::cmp::Ordering::Less => Some(false),
        std::cmp::Ordering::Equal => None,
    }
}

// ------------------------------------------------------------------------------------------------
// The panic test (§8.2).

/// The panic test's modifiers (D46): −1 per base lost, −1 open order, −1 shot in a combat's test,
/// +1 larger than the enemy.
pub fn panic_modifiers(
    who: &str,
    lost: u32,
    open_order: bool,
    shot_in_melee: bool,
    larger: bool,
) -> Vec<Modifier> {
    let src = "003, Disciplina, TEST DI PANICO";
    let mut v = Vec::new();
    if lost > 0 {
        v.push(Modifier {
            side: who.into(),
            name: m("callan.mod.panic-lost", &[("n", lost.to_string())]),
            value: -(lost as i32),
            source: src.into(),
        });
    }
    if open_order {
        v.push(modifier(who, "callan.mod.panic-open", -1, src));
    }
    if shot_in_melee {
        v.push(modifier(
            who,
            "callan.mod.panic-shot",
            -1,
            "003, Disciplina (D46)",
        ));
    }
    if larger {
        v.push(modifier(who, "callan.mod.panic-larger", 1, src));
    }
    v
}

/// One panic die: panic when the die plus the modifiers is 1 or less.
pub fn panics(face: u8, total_mod: i32) -> bool {
    i32::from(face) + total_mod <= 1
}

/// P(panic) with modifier `m`, as sixths (§8.2).
pub fn panic_sixths(total_mod: i32) -> u32 {
    (1 - total_mod).clamp(0, 6) as u32
}

/// The name of a troop as a message argument.
pub fn troop_term(t: Troop) -> String {
    term(t.id())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(p: &Plan<Pool>) -> Vec<f64> {
        let d = p.exact(|x| x.hits);
        let n = d.outcomes.keys().max().copied().unwrap_or(0);
        (0..=n)
            .map(|h| d.outcomes.get(&h).copied().unwrap_or(0.0))
            .collect()
    }

    fn binom(n: u32, p: f64) -> Vec<f64> {
        let mut out = Vec::new();
        for k in 0..=n {
            let c = (0..k).fold(1.0, |c, i| c * f64::from(n - i) / f64::from(i + 1));
            out.push(c * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32));
        }
        out
    }

    #[test]
    fn every_pool_is_its_binomial() {
        for n in 1..=15 {
            for (hit, p) in [
                (HitOn::Six, 1.0 / 6.0),
                (HitOn::FiveSix, 1.0 / 3.0),
                (HitOn::FiveHalf, 0.25),
                (HitOn::RerollMisses, 5.0 / 9.0),
                (HitOn::RerollOnes, 7.0 / 18.0),
            ] {
                let got = dist(&pool(n, hit, "x"));
                let want = binom(n, p);
                for (k, w) in want.iter().enumerate() {
                    let g = got.get(k).copied().unwrap_or(0.0);
                    assert!((g - w).abs() < 1e-12, "{hit:?} n={n} k={k}: {g} vs {w}");
                }
            }
        }
    }

    #[test]
    fn d22_the_commander_re_rolls_one_miss() {
        let p = pool_led(9, HitOn::FiveSix, "g", true);
        let mean: f64 = p
            .exact(|x| x.hits)
            .outcomes
            .iter()
            .map(|(h, q)| f64::from(*h) * q)
            .sum();
        assert!((mean - 196829.0 / 59049.0).abs() < 1e-9, "{mean}");
    }

    #[test]
    fn a_gun_blows_up_on_two_ones() {
        let p = gun_throw(3, HitOn::Six, "c");
        let d = p.exact(|x| x.ones >= 2);
        assert!((d.outcomes[&true] - 2.0 / 27.0).abs() < 1e-12);
        let p = gun_throw(2, HitOn::FiveSix, "c");
        let d = p.exact(|x| x.ones >= 2);
        assert!((d.outcomes[&true] - 1.0 / 36.0).abs() < 1e-12);
    }

    fn volley(weapon: Weapon, short: u32, long: u32) -> VolleyIn {
        VolleyIn {
            weapon,
            short_bases: short,
            long_bases: long,
            moved: false,
            disordered: false,
            dispersed: false,
            target_on_foot: true,
            cover: Cover::None,
            screen: false,
            riccio: false,
            dense: false,
            downhill: false,
            javelin_hit: 6,
        }
    }

    fn dice(g: &[Group]) -> Vec<(bool, u32)> {
        g.iter().map(|g| (g.short, g.dice)).collect()
    }

    #[test]
    fn d18_the_fire_pipeline() {
        // 1 arquebus base at long range at a screened block rolls 0 dice.
        let mut v = volley(Weapon::Archibugio, 0, 1);
        v.screen = true;
        assert_eq!(dice(&volley_groups(&v)), vec![(false, 0)]);
        // 4 bases at short range, disordered, at a screened block: ⌈8/2⌉ − 1 = 3.
        let mut v = volley(Weapon::Archibugio, 4, 0);
        v.screen = true;
        v.disordered = true;
        assert_eq!(dice(&volley_groups(&v)), vec![(true, 3)]);
        // Open order: ⌈10/2⌉ = 5; and three halvings of 10: ⌈10/8⌉ = 2.
        let mut v = volley(Weapon::Archibugio, 5, 0);
        v.dispersed = true;
        assert_eq!(dice(&volley_groups(&v)), vec![(true, 5)]);
        v.moved = true;
        v.disordered = true;
        assert_eq!(dice(&volley_groups(&v)), vec![(true, 2)]);
    }

    #[test]
    fn d8_d15_d16_d21_ranges_and_cover() {
        // 5 crossbowmen at 2 BW roll 5 dice, at long range (always long).
        assert_eq!(
            dice(&volley_groups(&volley(Weapon::Balestra, 5, 0))),
            vec![(false, 5)]
        );
        assert_eq!(
            dice(&volley_groups(&volley(Weapon::Balestra, 2, 3))),
            vec![(false, 5)]
        );
        // 5 arquebusiers at exactly 4 BW are at long range: 5 dice.
        assert_eq!(
            dice(&volley_groups(&volley(Weapon::Archibugio, 0, 5))),
            vec![(false, 5)]
        );
        // 3 javelin bases: 3 dice at 1/6.
        let v = volley(Weapon::Giavellotti, 3, 0);
        let g = volley_groups(&v);
        assert_eq!(dice(&g), vec![(true, 3)]);
        assert_eq!(g[0].hit, HitOn::Six);
        // A light gun at foot behind a wall: 3; behind fortifications: 2.
        let mut v = volley(Weapon::CannoneLeggero, 1, 0);
        v.cover = Cover::Wall;
        assert_eq!(dice(&volley_groups(&v)), vec![(true, 3)]);
        v.cover = Cover::Fortification;
        assert_eq!(dice(&volley_groups(&v)), vec![(true, 2)]);
        // A gun firing downhill at a riccio hits on 6; level, on 5–6.
        let mut v = volley(Weapon::CannoneLeggero, 0, 1);
        v.riccio = true;
        assert_eq!(volley_groups(&v)[0].hit, HitOn::FiveSix);
        v.downhill = true;
        assert_eq!(volley_groups(&v)[0].hit, HitOn::Six);
        // Light horse with arquebuses: 5–6 short, 6 long (D17).
        let v = volley(Weapon::CavalloArmiDaTiro, 3, 0);
        assert_eq!(volley_groups(&v)[0].hit, HitOn::FiveSix);
        let v = volley(Weapon::CavalloArmiDaTiro, 0, 3);
        assert_eq!(volley_groups(&v)[0].hit, HitOn::Six);
    }

    pub(crate) fn side(troop: Troop, front: u32, rear: u32, role: Role) -> SideIn {
        SideIn {
            troop,
            quality: Quality::Addestrati,
            german: false,
            front,
            rear,
            tercio_shot_front: 0,
            emerge: false,
            halberd: false,
            disordered: false,
            flanked: false,
            riccio: false,
            role,
            charge_bonus: false,
            spent: false,
            duel_lost: false,
            round: 1,
        }
    }

    #[test]
    fn d25_d26_d31_dice_per_side() {
        let pike = side(Troop::Picchieri, 3, 3, Role::Defender);
        let gend = side(Troop::Gendarmi, 3, 0, Role::Attacker);
        // The worked example: 12 Landsknecht dice at 5½, 9 gendarme dice at 5–6.
        assert_eq!(side_dice(&pike, &gend, "b").0, 12);
        assert_eq!(side_dice(&pike, &gend, "b").1, HitOn::FiveHalf);
        assert_eq!(side_dice(&gend, &pike, "a").0, 9);
        assert_eq!(side_dice(&gend, &pike, "a").1, HitOn::FiveSix);
        // Fanterie da mischia 3 + 2 as a front of 3: 4 dice; a front of 5: 7.
        let foot = side(Troop::Archibugieri, 5, 0, Role::Defender);
        let fm = side(Troop::FanteriaDaMischia, 3, 2, Role::Attacker);
        assert_eq!(side_dice(&fm, &foot, "a").0, 4);
        let fm = side(Troop::FanteriaDaMischia, 5, 0, Role::Attacker);
        assert_eq!(side_dice(&fm, &foot, "a").0, 7);
        // A disordered pike block, 3 front + 3 rear, against cavalry: ⌊2 × (1½ + 3)⌋ = 9.
        let mut p = side(Troop::Picchieri, 3, 3, Role::Defender);
        p.disordered = true;
        assert_eq!(side_dice(&p, &gend, "b").0, 9);
        // German gendarmi 3 + 3: ⌊3 × 4½⌋ = 13; heavy cavalry 2 + 1: 5.
        let mut g = side(Troop::Gendarmi, 3, 3, Role::Attacker);
        g.german = true;
        assert_eq!(side_dice(&g, &pike, "a").0, 13);
        let h = side(Troop::CavalleriaPesante, 2, 1, Role::Attacker);
        assert_eq!(side_dice(&h, &pike, "a").0, 5);
        // 5 alabardieri against gendarmi roll 10 dice.
        let a = side(Troop::Alabardieri, 5, 0, Role::Defender);
        assert_eq!(side_dice(&a, &gend, "b").0, 10);
        // A defending pike block against foot counts one rank.
        let pf = side(Troop::Picchieri, 3, 3, Role::Defender);
        let pa = side(Troop::Picchieri, 3, 3, Role::Attacker);
        assert_eq!(side_dice(&pf, &pa, "b").0, 6);
        assert_eq!(side_dice(&pa, &pf, "a").0, 12);
        // A flanked 3×3 block rolls 2 dice (D34).
        let mut fl = side(Troop::Picchieri, 3, 6, Role::Defender);
        fl.flanked = true;
        assert_eq!(side_dice(&fl, &pa, "b").0, 2);
    }

    #[test]
    fn d28_to_d30_hit_numbers() {
        let arq = side(Troop::Archibugieri, 5, 0, Role::Defender);
        let mut lh = side(Troop::CavalleriaLeggera, 3, 0, Role::Attacker);
        lh.charge_bonus = true;
        assert_eq!(round_hit(&lh, &arq), HitOn::RerollOnes);
        lh.charge_bonus = false;
        assert_eq!(round_hit(&lh, &arq), HitOn::FiveSix);
        let mut g = side(Troop::Gendarmi, 3, 0, Role::Attacker);
        g.charge_bonus = true;
        assert_eq!(round_hit(&g, &arq), HitOn::RerollMisses);
        g.spent = true;
        assert_eq!(round_hit(&g, &arq), HitOn::FiveHalf);
        let mut vp = side(Troop::Picchieri, 3, 3, Role::Defender);
        vp.quality = Quality::Veterani;
        assert_eq!(round_hit(&vp, &g), HitOn::FiveSix);
        let mut r = side(Troop::Picchieri, 3, 3, Role::Defender);
        r.riccio = true;
        let g = side(Troop::Gendarmi, 3, 0, Role::Attacker);
        assert_eq!(round_hit(&g, &r), HitOn::Six);
    }

    #[test]
    fn the_panic_table() {
        let want = [(1, 0), (0, 1), (-1, 2), (-2, 3), (-3, 4), (-4, 5), (-5, 6)];
        for (m, sixths) in want {
            assert_eq!(panic_sixths(m), sixths);
            assert_eq!((1..=6).filter(|&f| panics(f, m)).count() as u32, sixths);
        }
    }
}
