//! Melee, the defender's answers, breakthroughs and bonus melees (design 6-7; decision 43).

use super::*;

/// A melee's fields in a game.
pub(super) struct Attack<'a> {
    pub(super) unit: Option<&'a str>,
    pub(super) target: Option<&'a str>,
    pub(super) terrain: Option<i64>,
    pub(super) battle_back_terrain: Option<i64>,
    pub(super) target_room: Option<i64>,
    pub(super) attacker_room: Option<i64>,
    pub(super) target_ignores: Option<i64>,
}

pub(super) fn melee(st: &State, a: &Attack) -> Result<P, Rejection> {
    let u = combat_common(st, required("unit", a.unit)?, false)?;
    let eff = st.card.as_ref().map_or("", |c| c.effective.as_str());
    let bonus = st.chase.as_ref().is_some_and(|c| c.unit == u.id);
    if eff == "fire-and-hold" {
        return Err(reject(
            "fire-and-hold",
            Some("action"),
            m(
                "ecw.reject.fire-and-hold-melee",
                &[(
                    "card",
                    command_card("fire-and-hold").map_or(String::new(), |c| c.title()),
                )],
            ),
        ));
    }
    if u.class == Class::Artillery {
        return Err(reject(
            "no-melee",
            Some("unit"),
            k("ecw.reject.artillery-melee-unit"),
        ));
    }
    if eff == "push" && u.moved > 0 && !bonus {
        return Err(reject(
            "push",
            Some("unit"),
            m(
                "ecw.reject.push-moved",
                &[(
                    "card",
                    command_card("push").map_or(String::new(), |c| c.title()),
                )],
            ),
        ));
    }
    let limit = match u.class {
        Class::Foot | Class::Clubmen => Some(1),
        Class::Trotters => Some(if eff == "charge-of-horse" { 3 } else { 2 }),
        _ => None,
    };
    if let Some(l) = limit {
        if u.moved > l && !bonus {
            return Err(reject(
                "moved-too-far",
                Some("unit"),
                m(
                    "ecw.reject.moved-too-far",
                    &[
                        ("unit", u.name.clone()),
                        ("moved", u.moved.to_string()),
                        ("limit", l.to_string()),
                    ],
                ),
            ));
        }
    }
    if u.class == Class::Dragoons && u.fired {
        return Err(reject(
            "fired",
            Some("unit"),
            k("ecw.reject.dragoons-fired"),
        ));
    }
    let terrain = ranged("terrain", a.terrain, 0, 3)?.unwrap_or(0) as u8;
    let bb_terrain = ranged("battle_back_terrain", a.battle_back_terrain, 0, 3)?.unwrap_or(0) as u8;
    let target_room = ranged("target_room", a.target_room, 0, 12)?.map(|x| x as u32);
    let attacker_room = ranged("attacker_room", a.attacker_room, 0, 12)?.map(|x| x as u32);
    let ignores = ranged("target_ignores", a.target_ignores, 0, 2)?.unwrap_or(0) as u32;
    let tid = required("target", a.target)?;
    // A lone leader attacked: the attacker's dice, lost on any sabre (CCN-lone).
    if let Some(l) = st.leader(tid) {
        if l.side == u.side || l.gone.is_some() || l.unit.is_some() {
            return Err(reject(
                "no-such-target",
                Some("target"),
                k("ecw.reject.lone-leader-target"),
            ));
        }
        let (n, mods) = dice_for(st, u, Kind::Melee, None, terrain, bonus, false)?;
        let mut r = Res::new(st);
        mark_melee(&mut r, &u.id);
        let (lid, lname, uname) = (l.id.clone(), l.name.clone(), u.name.clone());
        let sabre = FaceClasses::of(&[1, 1, 1, 1, 0, 1]);
        return Ok(throw(
            n.max(0) as usize,
            6,
            &k("ecw.die.battle"),
            Depends::Classes(sabre),
        )
        .map(move |faces| {
            let mut r = r.clone();
            let s = faces.iter().filter(|&&f| sabre.class(f) == 0).count();
            r.steps.push(Step {
                title: m(
                    "ecw.step.lone-leader",
                    &[
                        ("unit", uname.clone()),
                        ("leader", lname.clone()),
                        ("count", n.to_string()),
                    ],
                ),
                dice: symbol_dice(&k("ecw.die.battle"), &faces),
                modifiers: mods.clone(),
                totals: vec![(k("ecw.total.sabres"), s as i32)],
                result: m(
                    if s > 0 {
                        "ecw.result.leader-lost"
                    } else {
                        "ecw.result.leader-escapes"
                    },
                    &[("leader", lname.clone())],
                ),
            });
            r.facets.push((
                m("ecw.facet.leader-lost", &[("leader", lname.clone())]),
                resolve::yes_no(s > 0),
            ));
            if s > 0 {
                lose_leader(&mut r, &lid, &k("ecw.cause.attacked-alone"));
            } else {
                r.say(m("ecw.result.leader-escaped", &[("leader", lname.clone())]));
            }
            check_victory(&mut r);
            r
        }));
    }
    let t = enemy(st, tid, u.side)?;
    // The defender's answer comes first (decision 43).
    let mut r = Res::new(st);
    r.st.window = Some(Window {
        attacker: u.id.clone(),
        target: t.id.clone(),
        terrain,
        battle_back_terrain: bb_terrain,
        target_room,
        attacker_room,
        target_ignores: ignores,
        bonus,
        chaunce: bonus && st.chase.as_ref().is_some_and(|c| c.chaunce),
    });
    r.st.phase = Phase::Window;
    if let Some(c) = r.st.card.as_mut() {
        c.combat = true;
    }
    let msg = m(
        if bonus {
            "ecw.melee.announced-bonus"
        } else {
            "ecw.melee.announced"
        },
        &[
            ("unit", u.name.clone()),
            ("target", t.name.clone()),
            ("side", st.side_name(t.side)),
        ],
    );
    r.step(k("ecw.step.melee-announced"), msg.clone());
    r.say(msg);
    Ok(done(r))
}

pub(super) fn mark_melee(r: &mut Res, id: &str) {
    if let Some(x) = r.st.unit_mut(id) {
        x.meleed += 1;
    }
    if let Some(c) = r.st.card.as_mut() {
        c.combat = true;
    }
}

/// The answers open to the defender of the window now.
pub fn responses(st: &State) -> Vec<&'static str> {
    let mut out = vec!["none"];
    let Some(w) = &st.window else { return out };
    let (Some(att), Some(def)) = (st.unit(&w.attacker), st.unit(&w.target)) else {
        return out;
    };
    let side = def.side;
    let hand = &st.sides[side].hand;
    let hidden = st.sides[side].hidden.is_some();
    if hidden || hand.iter().any(|&c| command_kind(c).id == "evade") {
        out.push("evade");
    }
    if def.class == Class::Foot
        && def.pikes
        && !def.stand
        && is_mounted(att)
        && st.sides[side].track.len() < st.cfg.square_slots
        && (hidden || !hand.is_empty())
    {
        out.push("stand-of-pikes");
    }
    if is_mounted(def) && matches!(att.class, Class::Foot | Class::Clubmen)
        || (is_mounted(def) && att.class == Class::Dragoons && !att.mounted)
    {
        out.push("retire");
    }
    out
}

pub(super) fn respond(st: &State, response: Option<&str>) -> Result<P, Rejection> {
    let w = st
        .window
        .clone()
        .ok_or_else(|| reject("no-window", None, k("ecw.reject.no-window")).not_now())?;
    let choice = response.unwrap_or("none");
    let allowed = responses(st);
    if !allowed.contains(&choice) {
        return Err(reject(
            "bad-response",
            Some("response"),
            m(
                "ecw.reject.bad-response",
                &[("allowed", allowed.join(", "))],
            ),
        ));
    }
    let mut r = Res::new(st);
    r.st.window = None;
    r.st.phase = Phase::Orders;
    mark_melee(&mut r, &w.attacker);
    let def_side = st.unit(&w.target).map_or(0, |u| u.side);
    let (aname, dname) = (
        st.unit(&w.attacker)
            .map_or(String::new(), |u| u.name.clone()),
        st.unit(&w.target).map_or(String::new(), |u| u.name.clone()),
    );
    match choice {
        "evade" => {
            let hand = &mut r.st.sides[def_side].hand;
            if let Some(p) = hand.iter().position(|&c| command_kind(c).id == "evade") {
                let c = hand.remove(p);
                r.st.discard.push(c);
            }
            r.st.sides[def_side].evade_draw += 1;
            let evade = command_card("evade").map_or(String::new(), |c| c.title());
            let msg = m(
                "ecw.melee.evades",
                &[("unit", dname.clone()), ("card", evade.clone())],
            );
            r.step(evade, msg.clone());
            r.say(msg);
            r.st.chase = None;
            after_window(&mut r, &w);
            Ok(done(r))
        }
        "stand-of-pikes" => {
            let n = st.sides[def_side].hand.len();
            let side_name = st.side_name(def_side);
            Ok(Plan::die(
                Die::new(n.clamp(1, 255) as u8, k("ecw.die.stand-card")),
                move |face| {
                    let mut r = r.clone();
                    let i = usize::from(face - 1).min(n.saturating_sub(1));
                    if n > 0 {
                        let c = r.st.sides[def_side].hand.remove(i);
                        r.st.sides[def_side].track.push((c, w.target.clone()));
                    }
                    if let Some(u) = r.st.unit_mut(&w.target) {
                        u.stand = true;
                    }
                    r.step(
                        k("ecw.board.stand"),
                        m(
                            "ecw.melee.stand-step",
                            &[("unit", dname.clone()), ("side", side_name.clone())],
                        ),
                    );
                    r.say(m("ecw.melee.stand", &[("unit", dname.clone())]));
                    bounce_or_melee(r, w.clone())
                },
            ))
        }
        "retire" => {
            r.say(m("ecw.melee.retires", &[("unit", dname)]));
            Ok(melee_roll(r, w, true))
        }
        _ => {
            let _ = aname;
            Ok(bounce_or_melee(r, w))
        }
    }
}

/// The Stand of Pikes' bounce die (house rule `ecw.bounce_die`, off by default; design 7,
/// decision 65): "Infantry in Square attacked by Cavalry roll a 'bounce' die: If a flag is
/// rolled, the Cavalry unit must retreat 1 space and end its activation. Otherwise, Cavalry may
/// attack, but with only 1 die" (CCN-rem). Rolled by foot in the formation attacked by horse or
/// mounted dragoons, before the attacker's dice; on a flag the attacker retreats 1 hex (fixed:
/// not doubled, not ignored), losing a block when `attacker_room` is 0, and its attack ends: no
/// dice, no battle back, no breakthrough. Otherwise the melee goes on with its 1-die cap.
pub(super) fn bounce_or_melee(r: Res, w: Window) -> P {
    let st = &r.st;
    let (Some(att), Some(def)) = (st.unit(&w.attacker), st.unit(&w.target)) else {
        return melee_roll(r, w, false);
    };
    if !(st.cfg.bounce_die && def.stand && is_mounted(att)) {
        return melee_roll(r, w, false);
    }
    let flag = FaceClasses::of(&[1, 1, 1, 1, 1, 0]);
    let label = k("ecw.die.bounce");
    let (aname, dname) = (att.name.clone(), def.name.clone());
    let horse = att.class.horse();
    let leader = st.leader_of(&w.attacker).map(|l| l.id.clone());
    throw(1, 6, &label.clone(), Depends::Classes(flag)).and_then(move |f| {
        let mut r = r.clone();
        let bounced = flag.class(f[0]) == 0;
        let blocked = bounced && w.attacker_room == Some(0);
        let who = [("unit", dname.clone()), ("attacker", aname.clone())];
        let result = m(
            match (bounced, blocked) {
                (false, _) => "ecw.result.not-bounced",
                (true, false) => "ecw.result.bounced",
                (true, true) => "ecw.result.bounced-blocked",
            },
            &who,
        );
        r.steps.push(Step {
            title: m("ecw.step.bounce", &who),
            dice: symbol_dice(&label, &f),
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: result.clone(),
        });
        r.facets
            .push((k("ecw.facet.bounced"), resolve::yes_no(bounced)));
        if !bounced {
            return melee_roll(r, w.clone(), false);
        }
        r.say(result);
        let w2 = w.clone();
        let end = move |mut r: Res| {
            finish_melee(&mut r, &w2, false, horse);
            done(r)
        };
        if blocked {
            let gone = lose_blocks(&mut r, &w.attacker, 1, &k("ecw.cause.bounced"));
            // A block lost to a retreat it could not take brings the leader's check (6.9).
            if let Some(l) = leader.clone() {
                return leader_check(r, l, gone, end);
            }
        }
        end(r)
    })
}

/// The melee's dice, the defender's losses, the battle back, and what follows (design 6.7-6.10).
pub(super) fn melee_roll(r: Res, w: Window, retiring: bool) -> P {
    let st = &r.st;
    let (Some(att), Some(def)) = (st.unit(&w.attacker), st.unit(&w.target)) else {
        return done(r);
    };
    let (n, mods) = dice_for(
        st,
        att,
        Kind::Melee,
        Some(def),
        w.terrain,
        w.bonus,
        w.chaunce,
    )
    .unwrap_or_default();
    let horse = att.class.horse();
    let w2 = w.clone();
    hit_unit(
        r,
        Hit {
            roller: w.attacker.clone(),
            target: w.target.clone(),
            kind: Kind::Melee,
            n,
            mods,
            room: w.target_room,
            ignores: w.target_ignores,
            retiring,
            label: k("ecw.kind.melee"),
        },
        move |r, holds| {
            let w = w2.clone();
            if holds {
                // Battle back (CCN step 11).
                let st = &r.st;
                let (Some(def), Some(att)) = (st.unit(&w.target), st.unit(&w.attacker)) else {
                    return done(r);
                };
                let (m, mods) = dice_for(
                    st,
                    def,
                    Kind::BattleBack,
                    Some(att),
                    w.battle_back_terrain,
                    false,
                    false,
                )
                .unwrap_or_default();
                let w3 = w.clone();
                let mut r = r.clone();
                let who =
                    r.st.unit(&w.target)
                        .map_or(String::new(), |u| u.name.clone());
                r.say(super::super::m(
                    "ecw.melee.battles-back",
                    &[("unit", who), ("count", m.to_string())],
                ));
                return hit_unit(
                    r,
                    Hit {
                        roller: w.target.clone(),
                        target: w.attacker.clone(),
                        kind: Kind::BattleBack,
                        n: m,
                        mods,
                        room: w.attacker_room,
                        ignores: 0,
                        retiring: false,
                        label: k("ecw.kind.battle-back"),
                    },
                    move |mut r, _| {
                        finish_melee(&mut r, &w3, false, horse);
                        done(r)
                    },
                );
            }
            // Eliminated, retreated or retired: a victory (Retire and Reform is against foot,
            // which takes ground but never breaks through).
            let mut r = r;
            finish_melee(&mut r, &w, true, horse);
            done(r)
        },
    )
}

/// After a melee: a victorious horse unit may break through; a rash one must (design 6.8, 6.10);
/// a Chaunce charge ends the turn.
pub(super) fn finish_melee(r: &mut Res, w: &Window, won: bool, horse: bool) {
    let alive = r.st.unit(&w.attacker).is_some_and(|u| u.gone.is_none());
    let prev = r.st.chase.as_ref().filter(|c| c.unit == w.attacker);
    // A control roll that failed holds for the rest of the turn (decision 59).
    let failed = prev.is_some_and(|c| c.control_rolled && c.compelled);
    let prev = prev.map_or(0, |c| c.bonus_melees);
    r.st.chase = None;
    if won && alive && horse {
        let count = prev + u32::from(w.bonus);
        let limit = r.st.cfg.breakthrough_limit;
        if limit == 0 || count < limit {
            let rash = r.st.unit(&w.attacker).is_some_and(|u| u.rash);
            let name =
                r.st.unit(&w.attacker)
                    .map_or(String::new(), |u| u.name.clone());
            r.st.chase = Some(Chase {
                unit: w.attacker.clone(),
                bonus_melees: count,
                compelled: rash,
                control_rolled: rash && failed,
                chaunce: w.chaunce,
            });
            r.say(m(
                if rash && failed {
                    "ecw.melee.rash-still"
                } else if rash {
                    "ecw.melee.rash-must"
                } else {
                    "ecw.melee.may-break-through"
                },
                &[("unit", name)],
            ));
        }
    } else if won && alive {
        r.say(k("ecw.melee.take-ground"));
    }
    after_window(r, w);
}

pub(super) fn after_window(r: &mut Res, w: &Window) {
    check_victory(r);
    // A Chaunce charge replaces the turn once its breakthroughs are over (`stop` ends them).
    if w.chaunce && r.st.phase != Phase::Over && r.st.chase.is_none() {
        chaunce_turn_over(r, true);
    }
}

pub(super) fn control(st: &State, id: &str) -> Result<P, Rejection> {
    let ch = st.chase.clone().filter(|c| c.unit == id).ok_or_else(|| {
        reject(
            "no-breakthrough",
            Some("unit"),
            k("ecw.reject.no-rash-to-control"),
        )
    })?;
    let u = st
        .unit(id)
        .ok_or_else(|| reject("no-such-unit", Some("unit"), k("ecw.reject.unknown-unit")))?;
    if !u.rash {
        return Err(reject(
            "not-rash",
            Some("unit"),
            m("ecw.reject.not-rash", &[("unit", u.name.clone())]),
        ));
    }
    if ch.control_rolled && ch.compelled {
        return Err(reject(
            "control-failed",
            Some("unit"),
            m("ecw.reject.control-failed", &[("unit", u.name.clone())]),
        )
        .not_now());
    }
    if ch.control_rolled {
        return Err(reject(
            "rolled",
            Some("unit"),
            m("ecw.reject.under-control", &[("unit", u.name.clone())]),
        )
        .not_now());
    }
    let led = st.leader_of(id).is_some() && st.cfg.control_leader_sabre;
    // Cavalry or flag; with a leader, sabres too (004, Horse).
    let classes = FaceClasses::of(&[1, 1, 0, 1, if led { 0 } else { 1 }, 0]);
    let name = u.name.clone();
    let r0 = Res::new(st);
    Ok(
        throw(1, 6, &k("ecw.die.control"), Depends::Classes(classes)).map(move |f| {
            let mut r = r0.clone();
            let ok = classes.class(f[0]) == 0;
            if let Some(c) = r.st.chase.as_mut() {
                c.control_rolled = true;
                c.compelled = !ok;
            }
            r.steps.push(Step {
                title: m(
                    if led {
                        "ecw.step.control-led"
                    } else {
                        "ecw.step.control"
                    },
                    &[("unit", name.clone())],
                ),
                dice: symbol_dice(&k("ecw.die.control"), &f),
                modifiers: Vec::new(),
                totals: Vec::new(),
                result: m(
                    if ok {
                        "ecw.result.under-control"
                    } else {
                        "ecw.result.out-of-control"
                    },
                    &[("unit", name.clone())],
                ),
            });
            r.facets
                .push((k("ecw.facet.control-gained"), resolve::yes_no(ok)));
            r.say(m(
                if ok {
                    "ecw.result.brought-under-control"
                } else {
                    "ecw.result.stays-out-of-control"
                },
                &[("unit", name.clone())],
            ));
            r
        }),
    )
}

pub(super) fn stop(st: &State, no_target: bool) -> Result<P, Rejection> {
    let ch = st.chase.clone().ok_or_else(|| {
        reject("no-breakthrough", None, k("ecw.reject.no-breakthrough")).not_now()
    })?;
    if ch.compelled && !no_target {
        return Err(reject(
            "rash-compelled",
            Some("no_target"),
            k("ecw.reject.rash-must-attack"),
        )
        .question());
    }
    let mut r = Res::new(st);
    let name = st.unit(&ch.unit).map_or(String::new(), |u| u.name.clone());
    r.st.chase = None;
    let msg = m("ecw.melee.ends-breakthrough", &[("unit", name)]);
    r.say(msg.clone());
    r.step(k("ecw.step.breakthrough-ends"), msg);
    if ch.chaunce {
        chaunce_turn_over(&mut r, true);
    }
    Ok(done(r))
}
