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
                r.message = format!(
                    "unit: {}: {}",
                    u.name,
                    r.message.trim_start_matches(&format!("{f}: "))
                );
                r.field = Some("unit".into());
            }
            r
        })?;
    let capped = u.stand || against.is_some_and(|t| t.stand && (is_mounted(u)));
    if capped && n > 1 {
        mods.push(Modifier {
            side: "dice".into(),
            name: "Stand of Pikes: at most 1 die".into(),
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
    pub(super) label: &'static str,
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
    let title = format!(
        "{label}: {} rolls {n} dice against {} [design 6]",
        ru.name, tu.name
    );
    let blocks = u32::from(tu.blocks);
    let leader = st.leader_of(&target).map(|l| l.id.clone());
    let tname = tu.name.clone();
    let label = label.to_string();
    let then = std::rc::Rc::new(then);
    resolve::roll_against(n, mods, t, kind, sc, title).and_then(move |(lost, hexes, step)| {
        let mut r = r.clone();
        let total = |name: &str| {
            step.totals
                .iter()
                .find(|(k, _)| k == name)
                .map_or(0, |(_, v)| *v)
        };
        let (hits, flags) = (total("hits"), total("flags"));
        r.steps.push(step);
        let eliminated = lost == blocks;
        let prefix = label.to_lowercase();
        // Hits and flags rolled, before blocks and retreats (the odds show their expectation).
        r.facets.push((format!("{prefix}: hits"), hits.to_string()));
        r.facets
            .push((format!("{prefix}: flags"), flags.to_string()));
        r.facets
            .push((format!("{prefix}: blocks lost"), lost.to_string()));
        r.facets.push((
            format!("{prefix}: eliminated"),
            if eliminated { "yes" } else { "no" }.into(),
        ));
        r.facets
            .push((format!("{prefix}: retreat hexes"), hexes.to_string()));
        let gone = lose_blocks(&mut r, &target, lost, &label);
        let mut bits = vec![format!("{tname} loses {lost} block(s)")];
        if gone {
            bits.push("and is eliminated".into());
        } else if hexes > 0 {
            bits.push(format!("and retreats {hexes} hex(es)"));
        }
        r.say(bits.join(" "));
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
    throw(n, 6, "Leader casualty die", Depends::Classes(sabre)).and_then(move |faces| {
        let mut r = r.clone();
        let sabres = faces.iter().filter(|&&f| sabre.class(f) == 0).count();
        let lost = sabres == n;
        r.steps.push(Step {
            title: format!(
                "Leader casualty check: {name}, {n} die(s), lost on {} [CCA-ldr; design 6.9]",
                if n == 2 { "two sabres" } else { "a sabre" }
            ),
            dice: symbol_dice("Leader casualty die", &faces),
            modifiers: Vec::new(),
            totals: vec![("sabres".into(), sabres as i32)],
            result: if lost {
                format!("{name} is lost")
            } else if unit_gone {
                format!("{name} survives and retreats 1 to 3 hexes alone (CCN, Leader's Retreat)")
            } else {
                format!("{name} is unhurt")
            },
        });
        r.facets.push((
            format!("{name} lost"),
            if lost { "yes" } else { "no" }.into(),
        ));
        if lost {
            lose_leader(&mut r, &leader, "leader casualty check");
        } else if unit_gone {
            if let Some(l) = r.st.leader_mut(&leader) {
                l.unit = None;
            }
            r.say(format!("{name} survives and retreats alone"));
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
                format!("unit: no unit \"{id}\" of yours on the table"),
            )
        })?;
    let bonus = st.chase.as_ref().is_some_and(|ch| ch.unit == id) && !fire;
    // A Chaunce charge's bonus melees come with no card in play.
    let c = match st.card.as_ref() {
        Some(c) => c,
        None if bonus => return Ok(u),
        None => return Err(reject("no-card", None, "no card in play").not_now()),
    };
    if !u.ordered && !bonus {
        return Err(reject(
            "not-ordered",
            Some("unit"),
            format!("unit: {} is not ordered this turn", u.name),
        )
        .not_now());
    }
    if c.effective == "march-to-victorye" {
        return Err(reject(
            "march",
            Some("action"),
            "under March to Victorye ordered units may not battle (004)",
        ));
    }
    if let Some(ch) = &st.chase {
        if ch.compelled && ch.unit != id {
            let roll = if ch.control_rolled {
                ""
            } else {
                " a control roll,"
            };
            return Err(reject("rash-compelled", Some("unit"), format!("unit: the rash unit out of control acts first: its bonus melee,{roll} or stop with no_target")).not_now());
        }
    }
    if !bonus && (u.fired || u.meleed > 0) {
        return Err(reject(
            "already-battled",
            Some("unit"),
            format!("unit: {} has already battled this turn", u.name),
        )
        .not_now());
    }
    if u.bombard.as_deref() == Some("move") {
        return Err(reject(
            "bombard",
            Some("unit"),
            "unit: a gun that moved under Bombard may not battle (004; decision 51)",
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
                format!("target: no enemy unit \"{tid}\" on the table"),
            )
        })
}
