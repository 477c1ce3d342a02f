//! A battle roll of the English Civil War variant as a dice plan with exact odds (design 6 and 9.1
//! of `docs/rules/commands-colors-ecw.md`): the dice from the roller's class, blocks, training and
//! bonuses; one throw of symbol dice whose odds depend only on how many hits and flags it shows;
//! then blocks lost, flags ignored and multiplied, and blocks lost for retreats that cannot be
//! taken.

use serde::Deserialize;
use serde_json::Value;
use tercio_core::{plan::throw, Depends, Modifier, Plan, Resolution, RolledDie, Step};

use super::tables::{self, Class, Kind, Training};
use crate::registry::{Outcome, Rejection};

fn yes() -> bool {
    true
}

/// The unit that rolls.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Roller {
    pub class: Class,
    pub blocks: u8,
    pub training: Training,
    /// Foot with pikes (+1 in melee, −1 at range); false for all-shot foot.
    #[serde(default = "yes")]
    pub pikes: bool,
    /// A rash Royalist galloper: +1 in every melee, battle back included.
    #[serde(default)]
    pub rash: bool,
    /// Dragoons on horse (they do not fire mounted).
    #[serde(default)]
    pub mounted: bool,
    /// Command and tactic card bonuses of the ordered unit (never on battle back).
    #[serde(default)]
    pub card_bonus: i32,
    /// Chaunce card bonuses and penalties (all combat).
    #[serde(default)]
    pub chaunce_bonus: i32,
}

/// The unit rolled against.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub class: Class,
    pub blocks: u8,
    pub training: Training,
    /// A leader in its hex: one flag ignored, and the leader casualty check.
    #[serde(default)]
    pub leader: bool,
    /// Hexes it can actually retreat; each hex it cannot costs a block. Default: room enough.
    #[serde(default)]
    pub retreat_room: Option<u32>,
    /// Horse or mounted dragoons Retiring and Reforming: hit by cavalry symbols only, flags
    /// ignored.
    #[serde(default)]
    pub retiring: bool,
    /// More flags ignored (terrain the scenario names).
    #[serde(default)]
    pub flags_ignored: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BattleRequest {
    pub kind: Kind,
    pub roller: Roller,
    pub target: Target,
    /// The terrain's battle dice reduction, 0 to 3.
    #[serde(default)]
    pub terrain: u8,
}

fn reject(code: &str, field: &str, message: impl Into<String>) -> Rejection {
    Rejection::new(code, Some(field), message)
}

fn modifier(name: &str, value: i32, source: &str) -> Modifier {
    Modifier {
        side: "dice".into(),
        name: name.into(),
        value,
        source: source.into(),
    }
}

/// The dice a roller throws, term by term (design 6.2).
pub fn dice(r: &Roller, kind: Kind, terrain: u8) -> Result<(i32, Vec<Modifier>), Rejection> {
    let b = i32::from(r.blocks);
    let half = (b + 1) / 2;
    let mut mods = Vec::new();
    let base = match (r.class, kind) {
        (Class::Foot, Kind::Ranged) if r.pikes => {
            mods.push(modifier(
                "pikes",
                -1,
                "004, Foot, 'MINUS 1 dice if the unit includes a proportion of pikes'",
            ));
            b
        }
        (Class::Foot, _) if r.pikes => {
            mods.push(modifier(
                "pikes",
                1,
                "004, Foot, 'plus 1 extra dice if it is a mixed unit including pikes'",
            ));
            b
        }
        (Class::Foot, _) => b,
        (Class::Clubmen, Kind::Ranged) => {
            return Err(reject(
                "no-fire",
                "roller.class",
                "roller.class: clubmen count zero in ranged combat (004, Foot)",
            ));
        }
        (Class::Clubmen, _) => b,
        (Class::Cuirassiers | Class::Trotters | Class::Gallopers, Kind::Ranged) => {
            return Err(reject(
                "no-fire",
                "roller.class",
                "roller.class: no cavalry may carry out ranged combat (004, Horse)",
            ));
        }
        (Class::Cuirassiers | Class::Trotters | Class::Gallopers, _) => b,
        (Class::Dragoons, Kind::Ranged) if r.mounted => {
            return Err(reject(
                "no-fire",
                "roller.mounted",
                "roller.mounted: dragoons may not fire when mounted (004, Dragoons)",
            ));
        }
        // "half a dice per base/block of 3 figures, rounded up" (004, Dragoons; decision 18).
        (Class::Dragoons, _) => half,
        (Class::Artillery, Kind::Ranged) => b,
        // "zero melee capability (i.e. cannot attack, and battle back with zero dice)".
        (Class::Artillery, Kind::Melee) => {
            return Err(reject(
                "no-melee",
                "roller.class",
                "roller.class: artillery cannot attack in melee (004, Artillery)",
            ));
        }
        (Class::Artillery, Kind::BattleBack) => 0,
    };
    let mut add = |on: bool, name: &str, v: i32, src: &str| {
        if on && v != 0 {
            mods.push(modifier(name, v, src));
        }
    };
    add(
        r.training == Training::Veteran && r.class != Class::Artillery,
        "veteran",
        1,
        "004, Sub-classifications, 'Veterans get extra dice in combat'",
    );
    add(
        r.class == Class::Gallopers && kind == Kind::Melee,
        "galloper, first round",
        1,
        "004, Horse, '+1 dice for GA in first round of a melee'; decision 22",
    );
    add(
        r.rash && kind != Kind::Ranged,
        "rash",
        1,
        "004, Horse, '+1 dice for certain Royalist GA units ... nominated as rash'",
    );
    add(
        kind != Kind::BattleBack,
        "cards",
        r.card_bonus,
        "004, Tactic Cards (design 6.2)",
    );
    add(
        true,
        "chaunce",
        r.chaunce_bonus,
        "004, CHAUNCE CARDS (design 6.2)",
    );
    add(
        true,
        "terrain",
        -i32::from(terrain),
        "CCN sequence, step 6, 'Apply Terrain Battle Dice Reduction'; decision 48",
    );
    if kind == Kind::BattleBack && r.card_bonus != 0 {
        return Err(reject("no-card-bonus", "roller.card_bonus", "roller.card_bonus: card bonuses belong to the ordered unit, never to a battle back (design 6.2)"));
    }
    let total = base + mods.iter().map(|m| m.value).sum::<i32>();
    Ok((total.max(0), mods))
}

/// What a battle does to its target (design 6.4-6.5): hits remove blocks; then flags, less those
/// ignored, times the hexes per flag; each hex the target cannot retreat costs a block.
pub fn effect(t: &Target, hits: u32, flags: u32) -> (u32, u32) {
    let blocks = u32::from(t.blocks);
    let mut lost = hits.min(blocks);
    let mut hexes = 0;
    if lost < blocks && !t.retiring {
        let ignored = t.training.flags_ignored() + u32::from(t.leader) + t.flags_ignored;
        hexes = flags.saturating_sub(ignored) * t.training.hexes_per_flag();
        if let Some(room) = t.retreat_room {
            if hexes > room {
                lost = (lost + hexes - room).min(blocks);
                hexes = room;
            }
        }
    }
    if lost == blocks {
        hexes = 0;
    }
    (lost, hexes)
}

pub fn plan(req: &BattleRequest) -> Result<Plan<Outcome>, Rejection> {
    if req.roller.blocks == 0 || req.roller.blocks > 6 {
        return Err(reject(
            "bad-blocks",
            "roller.blocks",
            "roller.blocks: 1 to 6",
        ));
    }
    if req.target.blocks == 0 || req.target.blocks > 6 {
        return Err(reject(
            "bad-blocks",
            "target.blocks",
            "target.blocks: 1 to 6",
        ));
    }
    if req.terrain > 3 {
        return Err(reject(
            "bad-terrain",
            "terrain",
            "terrain: a reduction of 0 to 3 dice",
        ));
    }
    let (n, mods) = dice(&req.roller, req.kind, req.terrain)?;
    let scores = req.roller.training.scores_sabres() && req.roller.class != Class::Clubmen;
    let classes = tables::face_classes(req.target.class, req.kind, scores, req.target.retiring);
    let target = req.target.clone();
    let title = format!(
        "{:?}: {n} battle dice against {:?} [004; design 6]",
        req.kind, req.target.class
    );
    Ok(throw(
        usize::try_from(n).unwrap_or(0),
        6,
        "Battle die",
        Depends::Classes(classes),
    )
    .map(move |faces| {
        let hits = faces.iter().filter(|&&f| classes.class(f) == 0).count() as u32;
        let flags = faces.iter().filter(|&&f| classes.class(f) == 1).count() as u32;
        let (lost, hexes) = effect(&target, hits, flags);
        let eliminated = lost == u32::from(target.blocks);
        let result = if eliminated {
            format!("{hits} hit(s): eliminated")
        } else {
            format!(
                "{hits} hit(s), {flags} flag(s): {lost} block(s) lost, retreats {hexes} hex(es)"
            )
        };
        let step = Step {
            title: title.clone(),
            dice: faces
                .iter()
                .enumerate()
                .map(|(i, &f)| RolledDie {
                    label: format!("Battle die {} ({:?})", i + 1, tables::symbol(f)),
                    sides: 6,
                    face: f,
                })
                .collect(),
            modifiers: mods.clone(),
            totals: vec![
                ("hits".into(), hits as i32),
                ("flags".into(), flags as i32),
                ("blocks lost".into(), lost as i32),
            ],
            result: result.clone(),
        };
        Outcome {
            resolution: Resolution {
                action: "battle".into(),
                summary: result,
                steps: vec![step],
            },
            effects: Value::Array(Vec::new()),
            facets: vec![
                ("blocks lost".into(), lost.to_string()),
                (
                    "eliminated".into(),
                    if eliminated { "yes" } else { "no" }.into(),
                ),
                ("retreat hexes".into(), hexes.to_string()),
            ],
        }
    }))
}
