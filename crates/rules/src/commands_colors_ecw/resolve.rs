//! A battle roll of the English Civil War variant as a dice plan with exact odds (design 6 and 9.1
//! of `docs/rules/commands-colors-ecw.md`): the dice from the roller's class, blocks, training and
//! bonuses; one throw of symbol dice whose odds depend only on how many hits and flags it shows;
//! then blocks lost, flags ignored and multiplied, and blocks lost for retreats that cannot be
//! taken.

use super::{k, m};
use serde::Deserialize;
use serde_json::Value;
use tercio_core::{plan::throw, Depends, Modifier, Plan, Resolution, RolledDie, Step};

use super::tables::{self, Class, Kind, Training};
use crate::interface::{Outcome, Rejection};

fn yes() -> bool {
    true
}

/// The unit that rolls, as a battle needs it.
#[derive(Debug, Clone)]
pub struct Roller {
    pub class: Class,
    pub blocks: u8,
    pub training: Training,
    pub pikes: bool,
    pub rash: bool,
    pub mounted: bool,
    pub card_bonus: i32,
    pub chaunce_bonus: i32,
}

/// The unit rolled against, as a battle needs it.
#[derive(Debug, Clone)]
pub struct Target {
    pub class: Class,
    pub blocks: u8,
    pub training: Training,
    pub leader: bool,
    pub retreat_room: Option<u32>,
    pub retiring: bool,
    pub flags_ignored: u32,
    /// Hexes per flag not ignored: 1; raw 2; militia 3 (house rules `ecw.raw_hexes_per_flag`,
    /// `ecw.militia_hexes_per_flag`).
    pub per_flag: u32,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BattleRequest {
    pub kind: Kind,
    pub roller: Fighter,
    pub target: Fighter,
    /// The terrain's battle dice reduction, 0 to 3.
    #[serde(default)]
    pub terrain: u8,
}

/// The totals' names a step's hits and flags are read back by.
pub(crate) const TOTAL_HITS: &str = "ecw.total.hits";
pub(crate) const TOTAL_FLAGS: &str = "ecw.total.flags";

/// "yes" or "no", a message (an odds facet's value).
pub(crate) fn yes_no(b: bool) -> String {
    k(if b { "ecw.ref.yes" } else { "ecw.ref.no" })
}

/// A battle's kind, as a catalogue key.
pub(crate) fn kind_key(kind: Kind) -> &'static str {
    match kind {
        Kind::Ranged => "ecw.kind.ranged",
        Kind::Melee => "ecw.kind.melee",
        Kind::BattleBack => "ecw.kind.battle-back",
    }
}

/// A class's name, a glossary term argument.
pub(crate) fn class_term(c: Class) -> String {
    super::term(match c {
        Class::Foot => "class-foot",
        Class::Clubmen => "class-clubmen",
        Class::Cuirassiers => "class-cuirassiers",
        Class::Trotters => "class-trotters",
        Class::Gallopers => "class-gallopers",
        Class::Dragoons => "class-dragoons",
        Class::Artillery => "class-artillery",
    })
}

fn reject(code: &str, field: &str, message: impl Into<String>) -> Rejection {
    Rejection::new(code, Some(field), message)
}

/// A term of the dice (`name` a message; the source a citation).
fn modifier(name: &str, value: i32, source: &str) -> Modifier {
    Modifier {
        side: k("ecw.mod.dice"),
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
                &k("ecw.mod.pikes"),
                -1,
                "004, Foot, 'MINUS 1 dice if the unit includes a proportion of pikes'",
            ));
            b
        }
        (Class::Foot, _) if r.pikes => {
            mods.push(modifier(
                &k("ecw.mod.pikes"),
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
                k("ecw.reject.clubmen-fire"),
            ));
        }
        (Class::Clubmen, _) => b,
        (Class::Cuirassiers | Class::Trotters | Class::Gallopers, Kind::Ranged) => {
            return Err(reject(
                "no-fire",
                "roller.class",
                k("ecw.reject.horse-fire"),
            ));
        }
        (Class::Cuirassiers | Class::Trotters | Class::Gallopers, _) => b,
        (Class::Dragoons, Kind::Ranged) if r.mounted => {
            return Err(reject(
                "no-fire",
                "roller.mounted",
                k("ecw.reject.mounted-fire"),
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
                k("ecw.reject.artillery-melee"),
            ));
        }
        (Class::Artillery, Kind::BattleBack) => 0,
    };
    let mut add = |on: bool, name: &str, v: i32, src: &str| {
        if on && v != 0 {
            mods.push(modifier(&k(name), v, src));
        }
    };
    add(
        r.training == Training::Veteran && r.class != Class::Artillery,
        "ecw.mod.veteran",
        1,
        "004, Sub-classifications, 'Veterans get extra dice in combat'",
    );
    add(
        r.class == Class::Gallopers && kind == Kind::Melee,
        "ecw.mod.galloper",
        1,
        "004, Horse, '+1 dice for GA in first round of a melee'; decision 22",
    );
    add(
        r.rash && kind != Kind::Ranged,
        "ecw.mod.rash",
        1,
        "004, Horse, '+1 dice for certain Royalist GA units ... nominated as rash'",
    );
    add(
        kind != Kind::BattleBack,
        "ecw.mod.cards",
        r.card_bonus,
        "004, Tactic Cards (design 6.2)",
    );
    add(
        true,
        "ecw.mod.chaunce",
        r.chaunce_bonus,
        "004, CHAUNCE CARDS (design 6.2)",
    );
    add(
        true,
        "ecw.mod.terrain",
        -i32::from(terrain),
        "CCN sequence, step 6, 'Apply Terrain Battle Dice Reduction'; decision 48",
    );
    if kind == Kind::BattleBack && r.card_bonus != 0 {
        return Err(reject(
            "no-card-bonus",
            "roller.card_bonus",
            k("ecw.reject.card-bonus-back"),
        ));
    }
    let total = base + mods.iter().map(|m| m.value).sum::<i32>();
    // The base first, so that the terms shown add up to the dice thrown.
    let what = match (r.class, kind) {
        (Class::Dragoons, _) => m("ecw.mod.base-half", &[("count", r.blocks.to_string())]),
        (Class::Artillery, Kind::BattleBack) => k("ecw.mod.base-artillery"),
        _ => m("ecw.mod.base-blocks", &[("count", r.blocks.to_string())]),
    };
    mods.insert(0, modifier(&what, base, "004 (design 2.1, 6.2)"));
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
        hexes = flags.saturating_sub(ignored) * t.per_flag;
        if let Some(room) = t.retreat_room {
            if hexes > room {
                lost = (lost + hexes - room).min(blocks);
                hexes = room;
            }
        }
    }
    if lost == blocks {
        hexes = 0;
    } else if t.retiring {
        // Retire and Reform: 2 hexes back whatever was rolled (CCN tactics; decision 25).
        hexes = 2;
    }
    (lost, hexes)
}

pub fn plan(req: &BattleRequest) -> Result<Plan<Outcome>, Rejection> {
    let roller = req.roller.roller(req.roller.blocks);
    if req.roller.blocks == 0 || req.roller.blocks > 6 {
        return Err(reject(
            "bad-blocks",
            "roller.blocks",
            m("ecw.reject.blocks", &[("field", "roller.blocks".into())]),
        ));
    }
    if req.target.blocks == 0 || req.target.blocks > 6 {
        return Err(reject(
            "bad-blocks",
            "target.blocks",
            m("ecw.reject.blocks", &[("field", "target.blocks".into())]),
        ));
    }
    if req.terrain > 3 {
        return Err(reject("bad-terrain", "terrain", k("ecw.reject.terrain")));
    }
    let (n, mods) = dice(&roller, req.kind, req.terrain)?;
    let scores = req.roller.training.scores_sabres() && req.roller.class != Class::Clubmen;
    let target = req.target.target();
    let blocks = u32::from(target.blocks);
    let title = m(
        "ecw.step.battle",
        &[
            ("kind", k(kind_key(req.kind))),
            ("count", n.to_string()),
            ("class", class_term(req.target.class)),
        ],
    );
    Ok(
        roll_against(n, mods, target, req.kind, scores, title).map(move |(lost, hexes, step)| {
            let eliminated = lost == blocks;
            Outcome {
                resolution: Resolution {
                    action: "battle".into(),
                    summary: step.result.clone(),
                    steps: vec![step],
                },
                effects: Value::Array(Vec::new()),
                facets: vec![
                    (k("ecw.facet.blocks-lost"), lost.to_string()),
                    (k("ecw.facet.eliminated"), yes_no(eliminated)),
                    (k("ecw.facet.retreat-hexes"), hexes.to_string()),
                ],
            }
        }),
    )
}

/// A unit in a battle: what it rolls with and what it is hit as.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fighter {
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
    /// A leader in its hex: one flag ignored.
    #[serde(default)]
    pub leader: bool,
    /// Hexes it can actually retreat; each hex it cannot costs a block. Default: room enough.
    #[serde(default)]
    pub retreat_room: Option<u32>,
    /// More flags ignored (terrain the scenario names).
    #[serde(default)]
    pub flags_ignored: u32,
    /// Horse or mounted dragoons Retiring and Reforming: hit by cavalry symbols only, flags
    /// ignored.
    #[serde(default)]
    pub retiring: bool,
}

impl Fighter {
    fn roller(&self, blocks: u8) -> Roller {
        Roller {
            class: self.class,
            blocks,
            training: self.training,
            pikes: self.pikes,
            rash: self.rash,
            mounted: self.mounted,
            card_bonus: self.card_bonus,
            chaunce_bonus: self.chaunce_bonus,
        }
    }
    fn target(&self) -> Target {
        Target {
            class: self.class,
            blocks: self.blocks,
            training: self.training,
            leader: self.leader,
            retreat_room: self.retreat_room,
            retiring: self.retiring,
            flags_ignored: self.flags_ignored,
            per_flag: self.training.hexes_per_flag(),
        }
    }
}

/// A melee attack and, if the defender holds its hex, its battle back (design 6.7-6.8). With
/// `stand_of_pikes` the defender is foot with pikes in formation against horse: each side rolls
/// at most one die, and each flag the defender does not ignore costs it blocks instead of hexes
/// (design 7; CCN squares).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeleeRequest {
    pub attacker: Fighter,
    pub defender: Fighter,
    #[serde(default)]
    pub stand_of_pikes: bool,
    /// The terrain's reduction of the attacker's dice.
    #[serde(default)]
    pub terrain: u8,
    /// The terrain's reduction of the battle back's dice.
    #[serde(default)]
    pub battle_back_terrain: u8,
}

/// One roll of `n` dice against `t`: (blocks lost, hexes to retreat) with its explanation step.
pub(crate) fn roll_against(
    n: i32,
    mods: Vec<Modifier>,
    t: Target,
    kind: Kind,
    scores: bool,
    title: String,
) -> Plan<(u32, u32, Step)> {
    let classes = tables::face_classes(t.class, kind, scores, t.retiring);
    throw(
        usize::try_from(n).unwrap_or(0),
        6,
        &k("ecw.die.battle"),
        Depends::Classes(classes),
    )
    .map(move |faces| {
        let hits = faces.iter().filter(|&&f| classes.class(f) == 0).count() as u32;
        let flags = faces.iter().filter(|&&f| classes.class(f) == 1).count() as u32;
        let (lost, hexes) = effect(&t, hits, flags);
        let step = Step {
            title: title.clone(),
            dice: faces
                .iter()
                .enumerate()
                .map(|(i, &f)| RolledDie {
                    label: m(
                        "ecw.die.nth",
                        &[
                            ("label", k("ecw.die.battle")),
                            ("n", (i + 1).to_string()),
                            ("symbol", tables::symbol(f).term()),
                        ],
                    ),
                    sides: 6,
                    face: f,
                })
                .collect(),
            modifiers: mods.clone(),
            totals: vec![
                (k(TOTAL_HITS), hits as i32),
                (k(TOTAL_FLAGS), flags as i32),
                (k("ecw.facet.blocks-lost"), lost as i32),
            ],
            result: if t.retiring {
                m("ecw.result.retires", &[("blocks", super::blocks(lost))])
            } else {
                m(
                    "ecw.result.lost-retreat",
                    &[
                        ("blocks", super::blocks(lost)),
                        ("hexes", super::hexes(hexes)),
                    ],
                )
            },
        };
        (lost, hexes, step)
    })
}

pub fn melee(req: &MeleeRequest) -> Result<Plan<Outcome>, Rejection> {
    for (f, name) in [(&req.attacker, "attacker"), (&req.defender, "defender")] {
        if f.blocks == 0 || f.blocks > 6 {
            return Err(reject(
                "bad-blocks",
                &format!("{name}.blocks"),
                m("ecw.reject.blocks", &[("field", format!("{name}.blocks"))]),
            ));
        }
    }
    let sop = req.stand_of_pikes;
    if sop
        && !(req.defender.class == Class::Foot
            && req.defender.pikes
            && (req.attacker.class.horse()
                || (req.attacker.class == Class::Dragoons && req.attacker.mounted)))
    {
        return Err(reject(
            "no-stand-of-pikes",
            "stand_of_pikes",
            k("ecw.reject.stand-of-pikes"),
        ));
    }
    let cap = |n: i32| if sop { n.min(1) } else { n };
    let (n, mut mods) = dice(
        &req.attacker.roller(req.attacker.blocks),
        Kind::Melee,
        req.terrain,
    )?;
    if sop && n > 1 {
        mods.push(modifier(&k("ecw.mod.against-stand"), 1 - n, "CCN squares, 'a cavalry unit may melee against the infantry square with a maximum of 1 battle die' (design 7)"));
    }
    let mut target = req.defender.target();
    if sop {
        // It cannot move: every hex of retreat is a block (CCN squares).
        target.retreat_room = Some(0);
    }
    let scores_a = req.attacker.training.scores_sabres() && req.attacker.class != Class::Clubmen;
    let scores_d = req.defender.training.scores_sabres() && req.defender.class != Class::Clubmen;
    let (defender, attacker_t) = (req.defender.clone(), req.attacker.target());
    let bb_terrain = req.battle_back_terrain;
    let attack = roll_against(
        cap(n),
        mods,
        target,
        Kind::Melee,
        scores_a,
        m(
            "ecw.step.battle",
            &[
                ("kind", k(kind_key(Kind::Melee))),
                ("count", cap(n).to_string()),
                ("class", class_term(req.defender.class)),
            ],
        ),
    );
    Ok(attack.and_then(move |(lost, hexes, step)| {
        let left = u32::from(defender.blocks) - lost;
        let mut facets = vec![
            (k("ecw.facet.defender-blocks-lost"), lost.to_string()),
            (k("ecw.facet.defender-eliminated"), yes_no(left == 0)),
            (k("ecw.facet.defender-retreat-hexes"), hexes.to_string()),
        ];
        // It battles back if it is neither eliminated nor forced out of its hex, and did not
        // Retire and Reform (design 6.8).
        let holds = left > 0 && hexes == 0 && !defender.retiring;
        facets.push((k("ecw.facet.battle-back"), yes_no(holds)));
        let summary = m(
            "ecw.result.defender-loses",
            &[("blocks", super::blocks(lost)), ("hexes", super::hexes(hexes))],
        );
        if !holds {
            return Plan::Done(Outcome {
                resolution: Resolution { action: "melee".into(), summary, steps: vec![step] },
                effects: Value::Array(Vec::new()),
                facets,
            });
        }
        let back = defender.roller(u8::try_from(left).unwrap_or(0));
        let Ok((nb, mut mods)) = dice(&back, Kind::BattleBack, bb_terrain) else {
            return Plan::Done(Outcome {
                resolution: Resolution { action: "melee".into(), summary, steps: vec![step] },
                effects: Value::Array(Vec::new()),
                facets,
            });
        };
        if sop && nb > 1 {
            mods.push(modifier(&k("ecw.mod.stand-cap"), 1 - nb, "CCN squares, 'the maximum number of battle dice an infantry unit may ever roll in ranged combat or in melee is 1 die' (design 7)"));
        }
        let nb = if sop { nb.min(1) } else { nb };
        let title = m(
            "ecw.step.battle-back",
            &[("count", nb.to_string())],
        );
        roll_against(nb, mods, attacker_t.clone(), Kind::BattleBack, scores_d, title).map(move |(l2, h2, s2)| {
            let mut facets = facets.clone();
            facets.push((k("ecw.facet.attacker-blocks-lost"), l2.to_string()));
            facets.push((k("ecw.facet.attacker-retreat-hexes"), h2.to_string()));
            Outcome {
                resolution: Resolution {
                    action: "melee".into(),
                    summary: m(
                        "ecw.result.battles-back",
                        &[
                            ("defender", summary.clone()),
                            ("blocks", super::blocks(l2)),
                            ("hexes", super::hexes(h2)),
                        ],
                    ),
                    steps: vec![step.clone(), s2],
                },
                effects: Value::Array(Vec::new()),
                facets,
            }
        })
    }))
}
