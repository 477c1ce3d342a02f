//! Combat (design 6): how units roll, hits and their consequences, and what fire and melee
//! share.

use super::*;

// ------------------------------------------------------------------------------------------------
// Combat (design 6).

/// How a unit rolls in this battle.
pub(super) fn roller_of(
    st: &State,
    u: &UnitState,
    kind: Kind,
    bonus_melee: bool,
    chaunce: bool,
) -> Roller {
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

pub(super) fn per_flag(st: &State, t: Training) -> u32 {
    match t {
        Training::Raw => st.cfg.raw_per_flag,
        Training::Militia => st.cfg.militia_per_flag,
        _ => 1,
    }
}

/// What a unit is hit as.
pub(super) fn target_of(
    st: &State,
    u: &UnitState,
    room: Option<u32>,
    ignores: u32,
    retiring: bool,
) -> Target {
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

pub(super) fn scores(u: &UnitState) -> bool {
    u.training.scores_sabres() && u.class != Class::Clubmen
}

/// The dice a unit rolls (design 6.2), with the Stand of Pikes caps (design 7).
pub(super) fn dice_for(
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
                r.message = m(
                    "ecw.reject.unit-prefixed",
                    &[
                        ("unit", u.name.clone()),
                        ("why", r.message.replacen(&format!("{f}: "), "", 1)),
                    ],
                );
                r.field = Some("unit".into());
            }
            r
        })?;
    let capped = u.stand || against.is_some_and(|t| t.stand && (is_mounted(u)));
    if capped && n > 1 {
        mods.push(Modifier {
            side: k("ecw.mod.dice"),
            name: k("ecw.mod.stand-cap"),
            value: 1 - n,
            source: "CCN squares (design 7)".into(),
        });
        return Ok((1, mods));
    }
    Ok((n, mods))
}

/// One roll against a unit, folded into the result: blocks lost, the retreat, the leader's check
/// and the banner (design 6.3-6.5, 6.9). Continues with `then` and whether the target holds its hex.
pub(super) struct Hit {
    pub(super) roller: String,
    pub(super) target: String,
    pub(super) kind: Kind,
    pub(super) n: i32,
    pub(super) mods: Vec<Modifier>,
    pub(super) room: Option<u32>,
    pub(super) ignores: u32,
    pub(super) retiring: bool,
    /// The battle's name, a message.
    pub(super) label: String,
}

pub(super) fn hit_unit(r: Res, h: Hit, then: impl Fn(Res, bool) -> P + 'static) -> P {
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
    let title = m(
        "ecw.step.rolls-against",
        &[
            ("label", label.clone()),
            ("unit", ru.name.clone()),
            ("count", n.to_string()),
            ("target", tu.name.clone()),
        ],
    );
    let blocks = u32::from(tu.blocks);
    let leader = st.leader_of(&target).map(|l| l.id.clone());
    let tname = tu.name.clone();
    let then = std::rc::Rc::new(then);
    resolve::roll_against(n, mods, t, kind, sc, title).and_then(move |(lost, hexes, step)| {
        let mut r = r.clone();
        let total = |name: &str| {
            let name = k(name);
            step.totals
                .iter()
                .find(|(k, _)| *k == name)
                .map_or(0, |(_, v)| *v)
        };
        let (hits, flags) = (total(resolve::TOTAL_HITS), total(resolve::TOTAL_FLAGS));
        r.steps.push(step);
        let eliminated = lost == blocks;
        // Hits and flags rolled, before blocks and retreats (the odds show their expectation).
        let facet = |what: &str| {
            m(
                "ecw.facet.of",
                &[("label", label.clone()), ("what", k(what))],
            )
        };
        r.facets
            .push((facet(resolve::TOTAL_HITS), hits.to_string()));
        r.facets
            .push((facet(resolve::TOTAL_FLAGS), flags.to_string()));
        r.facets
            .push((facet("ecw.facet.blocks-lost"), lost.to_string()));
        r.facets
            .push((facet("ecw.facet.eliminated"), resolve::yes_no(eliminated)));
        r.facets
            .push((facet("ecw.facet.retreat-hexes"), hexes.to_string()));
        let gone = lose_blocks(&mut r, &target, lost, &label);
        let args = [
            ("unit", tname.clone()),
            ("blocks", super::super::blocks(lost)),
            ("hexes", super::super::hexes(hexes)),
        ];
        r.say(if gone {
            m("ecw.result.unit-eliminated", &args)
        } else if hexes > 0 {
            m("ecw.result.unit-retreats", &args)
        } else {
            m("ecw.result.unit-loses", &args)
        });
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
pub(super) fn leader_check(
    r: Res,
    leader: String,
    unit_gone: bool,
    then: impl Fn(Res) -> P + 'static,
) -> P {
    let n = if unit_gone { 1 } else { 2 };
    let sabre = FaceClasses::of(&[1, 1, 1, 1, 0, 1]);
    let name =
        r.st.leader(&leader)
            .map_or(String::new(), |l| l.name.clone());
    throw(n, 6, &k("ecw.die.leader"), Depends::Classes(sabre)).and_then(move |faces| {
        let mut r = r.clone();
        let sabres = faces.iter().filter(|&&f| sabre.class(f) == 0).count();
        let lost = sabres == n;
        r.steps.push(Step {
            title: m(
                if n == 2 {
                    "ecw.step.leader-check-2"
                } else {
                    "ecw.step.leader-check-1"
                },
                &[("leader", name.clone())],
            ),
            dice: symbol_dice(&k("ecw.die.leader"), &faces),
            modifiers: Vec::new(),
            totals: vec![(k("ecw.total.sabres"), sabres as i32)],
            result: m(
                if lost {
                    "ecw.result.leader-lost"
                } else if unit_gone {
                    "ecw.result.leader-survives-alone"
                } else {
                    "ecw.result.leader-unhurt"
                },
                &[("leader", name.clone())],
            ),
        });
        r.facets.push((
            m("ecw.facet.leader-lost", &[("leader", name.clone())]),
            resolve::yes_no(lost),
        ));
        if lost {
            lose_leader(&mut r, &leader, &k("ecw.cause.leader-check"));
        } else if unit_gone {
            if let Some(l) = r.st.leader_mut(&leader) {
                l.unit = None;
            }
            r.say(m(
                "ecw.result.leader-retreats-alone",
                &[("leader", name.clone())],
            ));
        }
        then(r)
    })
}

pub(super) fn combat_common<'a>(
    st: &'a State,
    id: &str,
    fire: bool,
) -> Result<&'a UnitState, Rejection> {
    let u = st
        .unit(id)
        .filter(|u| u.side == st.active && u.gone.is_none() && !u.spare)
        .ok_or_else(|| {
            reject(
                "no-such-unit",
                Some("unit"),
                m(
                    "ecw.reject.no-such-unit",
                    &[("unit", crate::text::quoted(id))],
                ),
            )
        })?;
    let bonus = st.chase.as_ref().is_some_and(|ch| ch.unit == id) && !fire;
    // A Chaunce charge's bonus melees come with no card in play.
    let c = match st.card.as_ref() {
        Some(c) => c,
        None if bonus => return Ok(u),
        None => return Err(reject("no-card", None, k("ecw.reject.no-card")).not_now()),
    };
    if !u.ordered && !bonus {
        return Err(reject(
            "not-ordered",
            Some("unit"),
            m("ecw.reject.not-ordered", &[("unit", u.name.clone())]),
        )
        .not_now());
    }
    if c.effective == "march-to-victorye" {
        return Err(reject(
            "march",
            Some("action"),
            m(
                "ecw.reject.march-battle",
                &[(
                    "card",
                    command_card("march-to-victorye").map_or(String::new(), |c| c.title()),
                )],
            ),
        ));
    }
    if let Some(ch) = &st.chase {
        if ch.compelled && ch.unit != id {
            let why = k(if ch.control_rolled {
                "ecw.reject.rash-first-rolled"
            } else {
                "ecw.reject.rash-first"
            });
            return Err(reject("rash-compelled", Some("unit"), why).not_now());
        }
    }
    // CCN: a unit "may not battle the turn it moves onto" a Forest or a Town hex; dragoons
    // "can fight as soon as they arrive, whatever the terrain" (004, Dragoons; decision 64). A
    // refusal for the whole turn, not a wait: the form marks the unit with it.
    if u.entered_woods_or_town {
        return Err(reject(
            "entered-woods-or-town",
            Some("unit"),
            m(
                "ecw.reject.entered-woods-or-town",
                &[("unit", u.name.clone())],
            ),
        ));
    }
    if !bonus && (u.fired || u.meleed > 0) {
        return Err(reject(
            "already-battled",
            Some("unit"),
            m("ecw.reject.already-battled", &[("unit", u.name.clone())]),
        )
        .not_now());
    }
    if u.bombard.as_deref() == Some("move") {
        return Err(reject(
            "bombard",
            Some("unit"),
            m(
                "ecw.reject.bombard-moved",
                &[(
                    "card",
                    command_card("bombard").map_or(String::new(), |c| c.title()),
                )],
            ),
        ));
    }
    Ok(u)
}

pub(super) fn enemy<'a>(st: &'a State, tid: &str, side: usize) -> Result<&'a UnitState, Rejection> {
    st.unit(tid)
        .filter(|t| t.side != side && t.gone.is_none() && !t.spare)
        .ok_or_else(|| {
            reject(
                "no-such-target",
                Some("target"),
                m(
                    "ecw.reject.no-such-target",
                    &[("target", crate::text::quoted(tid))],
                ),
            )
        })
}
