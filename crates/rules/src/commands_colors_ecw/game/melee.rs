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
        return Err(reject("fire-and-hold", Some("action"), "under Fire and Hold ordered units are not adjacent to the enemy: ranged combat only (004)"));
    }
    if u.class == Class::Artillery {
        return Err(reject(
            "no-melee",
            Some("unit"),
            "unit: artillery cannot attack in melee (004, Artillery)",
        ));
    }
    if eff == "push" && u.moved > 0 && !bonus {
        return Err(reject(
            "push",
            Some("unit"),
            "unit: under Push! units may not move before melee (004)",
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
                format!(
                    "unit: {} moved {} hexes; it melees after at most {l} (004)",
                    u.name, u.moved
                ),
            ));
        }
    }
    if u.class == Class::Dragoons && u.fired {
        return Err(reject(
            "fired",
            Some("unit"),
            "unit: dragoons may not fire and melee in the same move (004)",
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
                "target: an enemy leader standing alone",
            ));
        }
        let (n, mods) = dice_for(st, u, Kind::Melee, None, terrain, bonus, false)?;
        let mut r = Res::new(st);
        mark_melee(&mut r, &u.id);
        let (lid, lname, uname) = (l.id.clone(), l.name.clone(), u.name.clone());
        let sabre = FaceClasses::of(&[1, 1, 1, 1, 0, 1]);
        return Ok(throw(n.max(0) as usize, 6, "Battle die", Depends::Classes(sabre)).map(move |faces| {
            let mut r = r.clone();
            let s = faces.iter().filter(|&&f| sabre.class(f) == 0).count();
            r.steps.push(Step {
                title: format!("{uname} attacks the lone leader {lname}: {n} dice, lost on a sabre [CCN-lone; design 6.9]"),
                dice: symbol_dice("Battle die", &faces),
                modifiers: mods.clone(),
                totals: vec![("sabres".into(), s as i32)],
                result: if s > 0 { format!("{lname} is lost") } else { format!("{lname} escapes: he retreats 1 to 3 hexes; the attacker may take ground") },
            });
            r.facets.push((format!("{lname} lost"), if s > 0 { "yes" } else { "no" }.into()));
            if s > 0 {
                lose_leader(&mut r, &lid, "attacked alone");
            } else {
                r.say(format!("{lname} escapes"));
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
    let msg = format!(
        "{} announces a {}melee against {}: {} answer (Evade, Stand of Pikes, Retire and Reform, or none)",
        u.name,
        if bonus { "bonus " } else { "" },
        t.name,
        st.side_name(t.side)
    );
    r.step(
        "Melee announced [CCN melee, steps 1-3; decision 43]",
        msg.clone(),
    );
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
        .ok_or_else(|| reject("no-window", None, "no melee waits for an answer").not_now())?;
    let choice = response.unwrap_or("none");
    let allowed = responses(st);
    if !allowed.contains(&choice) {
        return Err(reject(
            "bad-response",
            Some("response"),
            format!(
                "response: allowed now: {} (Evade needs the card in hand; Stand of Pikes: foot with pikes attacked by horse or mounted dragoons, a card in hand and a free track slot; Retire and Reform: horse or mounted dragoons attacked by foot)",
                allowed.join(", ")
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
            let msg = format!("{dname} evades (Evade): no dice; it may retire 1 hex; no take ground, breakthrough or battle back (004, Tactic Cards)");
            r.step("Evade [004, Tactic Cards]", msg.clone());
            r.say(msg);
            r.st.chase = None;
            after_window(&mut r, &w);
            Ok(done(r))
        }
        "stand-of-pikes" => {
            let n = st.sides[def_side].hand.len();
            let side_name = st.side_name(def_side);
            Ok(Plan::die(
                Die::new(n.clamp(1, 255) as u8, "Stand of Pikes card"),
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
                    r.step("Stand of Pikes [004, Foot; CCN squares; design 7]", format!("{dname} forms a Stand of Pikes: a random card of {side_name}'s hand goes onto the track"));
                    r.say(format!("{dname} forms a Stand of Pikes"));
                    melee_roll(r, w.clone(), false)
                },
            ))
        }
        "retire" => {
            r.say(format!(
                "{dname} retires and reforms 2 hexes: only cavalry symbols hit it (CCN tactics)"
            ));
            Ok(melee_roll(r, w, true))
        }
        _ => {
            let _ = aname;
            Ok(melee_roll(r, w, false))
        }
    }
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
            label: "Melee",
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
                r.say(format!("{who} holds and battles back with {m} dice"));
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
                        label: "Battle back",
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
            r.say(if rash && failed {
                format!("{name} is rash and still out of control: it must break through and make a bonus melee if it can (004, Horse; decision 59)")
            } else if rash {
                format!("{name} is rash: it must break through and make a bonus melee if it can, unless brought under control (004, Horse)")
            } else {
                format!("{name} may break through (the vacated hex and one more) and make a bonus melee (004, Horse)")
            });
        }
    } else if won && alive {
        r.say("the attacker may take ground (CCN)".to_string());
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
            "unit: no victorious rash unit of that id to control",
        )
    })?;
    let u = st
        .unit(id)
        .ok_or_else(|| reject("no-such-unit", Some("unit"), "unit: unknown"))?;
    if !u.rash {
        return Err(reject(
            "not-rash",
            Some("unit"),
            format!(
                "unit: {} is not rash: it breaks through or stops as the player wishes",
                u.name
            ),
        ));
    }
    if ch.control_rolled && ch.compelled {
        return Err(reject(
            "control-failed",
            Some("unit"),
            format!("unit: {}'s control roll failed this turn: it stays out of control and must break through and make its bonus melee if it can, or stop with no_target (004, Horse; decision 59)", u.name),
        )
        .not_now());
    }
    if ch.control_rolled {
        return Err(reject(
            "rolled",
            Some("unit"),
            format!(
                "unit: {} is under control after this melee: break through or stop",
                u.name
            ),
        )
        .not_now());
    }
    let led = st.leader_of(id).is_some() && st.cfg.control_leader_sabre;
    // Cavalry or flag; with a leader, sabres too (004, Horse).
    let classes = FaceClasses::of(&[1, 1, 0, 1, if led { 0 } else { 1 }, 0]);
    let name = u.name.clone();
    let r0 = Res::new(st);
    Ok(
        throw(1, 6, "Control die", Depends::Classes(classes)).map(move |f| {
            let mut r = r0.clone();
            let ok = classes.class(f[0]) == 0;
            if let Some(c) = r.st.chase.as_mut() {
                c.control_rolled = true;
                c.compelled = !ok;
            }
            r.steps.push(Step {
                title: format!(
                    "Control roll for {name}: a cavalry or flag symbol{} [004, Horse; design 6.10]",
                    if led {
                        ", or sabres with the attached leader"
                    } else {
                        ""
                    }
                ),
                dice: symbol_dice("Control die", &f),
                modifiers: Vec::new(),
                totals: Vec::new(),
                result: if ok {
                    format!("{name} is under control")
                } else {
                    format!("{name} is out of control: it must break through and attack if it can")
                },
            });
            r.facets.push((
                "control gained".into(),
                if ok { "yes" } else { "no" }.into(),
            ));
            r.say(if ok {
                format!("{name} is brought under control")
            } else {
                format!("{name} stays out of control")
            });
            r
        }),
    )
}

pub(super) fn stop(st: &State, no_target: bool) -> Result<P, Rejection> {
    let ch = st
        .chase
        .clone()
        .ok_or_else(|| reject("no-breakthrough", None, "no breakthrough to stop").not_now())?;
    if ch.compelled && !no_target {
        return Err(reject("rash-compelled", Some("no_target"), "no_target: the rash unit is out of control and must attack if it can (004, Horse); tick no_target if no enemy outside villages, woods and earthworks is in reach").question());
    }
    let mut r = Res::new(st);
    let name = st.unit(&ch.unit).map_or(String::new(), |u| u.name.clone());
    r.st.chase = None;
    r.say(format!("{name} ends its breakthrough"));
    r.step(
        "Breakthrough ends [design 6.8]",
        format!("{name} ends its breakthrough"),
    );
    if ch.chaunce {
        chaunce_turn_over(&mut r, true);
    }
    Ok(done(r))
}
