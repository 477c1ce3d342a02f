//! Combat (§7).

use super::*;

#[derive(Debug)]
pub(super) struct Counts {
    pub(super) front: [u32; 2],
    pub(super) rear: [u32; 2],
    pub(super) shot: [u32; 2],
    pub(super) emerge: [bool; 2],
    pub(super) support: Option<(String, u32)>,
}

pub(super) fn counts(
    st: &State,
    a: &Action,
    units: [&UnitState; 2],
    support_allowed: bool,
) -> Result<Counts, Rejection> {
    let (fronts, rears, shots, emerge, support, support_front) = match a {
        Action::Attack {
            attacker_front,
            attacker_rear,
            defender_front,
            defender_rear,
            attacker_shot,
            defender_shot,
            support,
            support_front,
            ..
        } => (
            [*attacker_front, *defender_front],
            [*attacker_rear, *defender_rear],
            [*attacker_shot, *defender_shot],
            [false, false],
            support,
            support_front,
        ),
        Action::ResolveCombat {
            attacker_front,
            attacker_rear,
            defender_front,
            defender_rear,
            attacker_shot,
            defender_shot,
            attacker_emerge,
            defender_emerge,
            support,
            support_front,
            ..
        } => (
            [*attacker_front, *defender_front],
            [*attacker_rear, *defender_rear],
            [*attacker_shot, *defender_shot],
            [*attacker_emerge, *defender_emerge],
            support,
            support_front,
        ),
        _ => return Err(wrong()),
    };
    let mut c = Counts {
        front: [0; 2],
        rear: [0; 2],
        shot: [0; 2],
        emerge: [false; 2],
        support: None,
    };
    for (i, (who, u)) in ["attacker", "defender"].iter().zip(units).enumerate() {
        let ff = format!("{who}_front");
        let rf = format!("{who}_rear");
        let sf = format!("{who}_shot");
        let fighting = u.fighting_bases();
        let front = match fronts[i] {
            None => fighting.min(if u.troop.is_cavalry() { 3 } else { 5 }),
            given => count(&ff, given, fighting)?,
        };
        let rear = count(&rf, rears[i], fighting)?;
        if front == 0 && !u.troop.is_gun() {
            return Err(reject(
                "no-bases",
                Some(&ff),
                m("callan.reject.front", &[("unit", u.name.clone())]),
            ));
        }
        if front + rear > fighting {
            return Err(reject(
                "too-many-bases",
                Some(&rf),
                m(
                    "callan.reject.too-many-bases",
                    &[("unit", u.name.clone()), ("max", fighting.to_string())],
                ),
            ));
        }
        let shot = count(&sf, shots[i], u.shot)?;
        c.front[i] = front;
        c.rear[i] = rear;
        c.shot[i] = shot.min(front);
        c.emerge[i] = emerge[i] && u.special.is_some();
    }
    if let Some(sid) = support.as_deref() {
        let s = unit_at(st, "support", sid)?;
        if !support_allowed {
            return Err(refuse(
                "support-when",
                "support",
                "callan.reject.support-when",
                s,
            ));
        }
        // A squadron of either side, not already fighting (D36).
        if !units.iter().any(|u| u.side == s.side)
            || units.iter().any(|u| u.id == s.id)
            || !s.troop.is_cavalry()
            || s.status != Status::Ok
            || in_combat(st, &s.id)
        {
            return Err(refuse("bad-support", "support", "callan.reject.support", s));
        }
        let n = count("support_front", *support_front, s.bases)?;
        let n = if n == 0 { s.bases.min(3) } else { n };
        c.support = Some((sid.to_string(), n));
    }
    Ok(c)
}

pub(super) fn attack(st: &State, a: &Action) -> Result<P, Rejection> {
    let Action::Attack {
        attacker,
        charge,
        low_hill,
        ..
    } = a
    else {
        return Err(wrong());
    };
    // With the orders rule, a unit that has not moved this turn rolls its orders die before it
    // moves into contact (D57), unless it is exempt. The Swiss charge, but not up a low hill (D73).
    let at = unit_at(st, "attacker", attacker.id())?;
    let swiss_pike =
        at.troop == Troop::Picchieri && at.nationality.as_deref() == Some("svizzeri") && !*low_hill;
    let charging = (*charge && at.troop == Troop::Gendarmi) || swiss_pike;
    let exempt = at.open_order || st.commander_of(&at.id).is_some() || charging;
    if st.cfg.orders && !exempt && !at.moved && st.question.is_none() {
        let mut obeyed = st.clone();
        let uid = at.id.clone();
        let name = at.name.clone();
        if let Some(u) = obeyed.unit_mut(&uid) {
            u.moved = true;
        }
        // Refusals come before the die.
        attack_unordered(&obeyed, a)?;
        let a = a.clone();
        let st0 = st.clone();
        return Ok(Plan::die(
            Die::d6(m("callan.die.orders", &[("unit", name.clone())])),
            move |f| {
                if f == 1 {
                    let mut r = Res::new(&st0);
                    if let Some(u) = r.st.unit_mut(&uid) {
                        u.orders_failed = true;
                    }
                    r.facet(k("callan.facet.obeys"), yes_no(false));
                    let msg = m("callan.orders.refused", &[("unit", name.clone())]);
                    r.step(k("callan.step.orders"), msg.clone());
                    r.say(msg);
                    return Plan::Done(r);
                }
                let step = m(
                    "callan.orders.obeys",
                    &[("unit", name.clone()), ("face", f.to_string())],
                );
                match attack_unordered(&obeyed, &a) {
                    Ok(p) => p.map(move |mut r| {
                        r.facets.insert(0, (k("callan.facet.obeys"), yes_no(true)));
                        r.steps.insert(
                            0,
                            Step {
                                title: k("callan.step.orders"),
                                dice: Vec::new(),
                                modifiers: Vec::new(),
                                totals: Vec::new(),
                                result: step.clone(),
                            },
                        );
                        r
                    }),
                    Err(_) => Plan::Done(Res::new(&obeyed)),
                }
            },
        ));
    }
    attack_unordered(st, a)
}

pub(super) fn attack_unordered(st: &State, a: &Action) -> Result<P, Rejection> {
    let Action::Attack {
        attacker,
        defender,
        charge,
        low_hill,
        flank,
        evade,
        ..
    } = a
    else {
        return Err(wrong());
    };
    let at = unit_at(st, "attacker", attacker.id())?;
    let de = unit_at(st, "defender", defender.id())?;
    // "nessuna truppa può caricarle": no charge at a unit on a low hill (D73).
    if *charge && *low_hill && at.troop.is_cavalry() {
        return Err(refuse("low-hill", "low_hill", "callan.reject.low-hill", at));
    }
    if at.side == de.side {
        return Err(refuse(
            "same-side",
            "defender",
            "callan.reject.own-side",
            de,
        ));
    }
    let phase = if at.troop.is_cavalry() {
        CardPhase::Cavalry
    } else {
        CardPhase::Infantry
    };
    if !card_is(st, at.side, phase) || joker_open(st) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            m(
                "callan.reject.move-when",
                &[
                    ("unit", at.name.clone()),
                    ("phase", format!("@callan.phase.{}", phase.id())),
                    ("now", phase_name(st)),
                ],
            ),
        )
        .not_now());
    }
    if at.status != Status::Ok {
        return Err(refuse(
            "cannot-attack",
            "attacker",
            "callan.reject.cannot-act",
            at,
        ));
    }
    if !de.on_table() {
        return Err(refuse(
            "not-on-table",
            "defender",
            "callan.reject.not-on-table",
            de,
        ));
    }
    if at.riccio {
        return Err(refuse(
            "riccio",
            "attacker",
            "callan.reject.riccio-moves",
            at,
        ));
    }
    if at.half() {
        return Err(refuse(
            "half-lost",
            "attacker",
            "callan.reject.half-lost",
            at,
        ));
    }
    if at.activated && !at.moved {
        return Err(refuse("activated", "attacker", "callan.reject.activated", at).not_now());
    }
    if at.fought_with.contains(&de.id) {
        return Err(refuse("fought", "defender", "callan.reject.fought", de).not_now());
    }
    if at.orders_failed {
        return Err(refuse(
            "orders-failed",
            "attacker",
            "callan.reject.orders-failed",
            at,
        )
        .not_now());
    }
    if in_combat(st, &at.id) {
        return Err(refuse("in-melee", "attacker", "callan.reject.in-melee", at));
    }
    if at.troop.is_gun() {
        return Err(refuse("gun", "attacker", "callan.reject.gun-attacks", at));
    }
    // Swiss fixed on the Landsknechts by "Niente soldi" attack no one else until none is left
    // ("non obbediranno ad alcun ordine finché non li avranno distrutti"; D59).
    if fixated_now(st, at) && !is_landsknecht(de) {
        return Err(refuse(
            "fixated",
            "defender",
            "callan.reject.fixated-attack",
            at,
        ));
    }
    // Missile troops attack only missile troops (D41); light horse that fired may not attack (D17).
    let missile_only = |u: &UnitState| {
        u.troop.is_shot() || u.troop == Troop::CavalleriaLeggera || u.troop.is_gun()
    };
    if (at.troop.is_shot() || (at.troop == Troop::CavalleriaLeggera && at.weapon.is_some()))
        && !missile_only(de)
    {
        return Err(refuse(
            "missile-attack",
            "defender",
            "callan.reject.missile-attack",
            at,
        ));
    }
    if at.troop == Troop::CavalleriaLeggera && at.fired {
        return Err(refuse("fired", "attacker", "callan.reject.fired-no-attack", at).not_now());
    }
    if de.status == Status::Fleeing {
        // A fleeing unit contacted is destroyed (D44).
        let mut r = Res::new(st);
        let (aid, did) = (at.id.clone(), de.id.clone());
        mark_fought(&mut r, &aid, &did);
        mark_attacked(&mut r, &aid);
        let left = de.bases;
        count_loss(&mut r.st, &did, left);
        destroyed(&mut r, &did);
        return Ok(Plan::Done(r));
    }
    if de.troop.is_gun() {
        // Guns overrun, no dice, no charge counted (D35).
        let mut r = Res::new(st);
        let (aid, did) = (at.id.clone(), de.id.clone());
        mark_fought(&mut r, &aid, &did);
        mark_attacked(&mut r, &aid);
        let msg = m("callan.combat.gun-overrun", &[("unit", de.name.clone())]);
        r.step(k("callan.step.combat"), msg.clone());
        let left = de.bases;
        count_loss(&mut r.st, &did, left);
        destroyed(&mut r, &did);
        return Ok(Plan::Done(r));
    }
    let c = counts(st, a, [at, de], false)?;
    let charge = *charge && at.troop.is_cavalry();
    let flank = *flank && !de.riccio;
    let can = may_evade(de);
    if can && evade.is_none() {
        // The defender's side chooses: the attack waits for its answer (§5, Evasione).
        let mut r = Res::new(st);
        r.st.question = Some(serde_json::to_value(a).unwrap_or(Value::Null));
        let msg = m(
            "callan.question.evade",
            &[("unit", de.name.clone()), ("by", at.name.clone())],
        );
        r.step(k("callan.step.combat"), msg.clone());
        r.say(msg);
        return Ok(Plan::Done(r));
    }
    if *evade == Some(true) {
        if !can {
            return Err(refuse("cannot-evade", "evade", "callan.reject.evade", de));
        }
        let mut r = Res::new(st);
        let did = de.id.clone();
        let aid = at.id.clone();
        if let Some(u) = r.st.unit_mut(&did) {
            u.moved = true;
            u.activated = true;
        }
        if let Some(u) = r.st.unit_mut(&aid) {
            u.moved = true;
            u.activated = true;
        }
        mark_attacked(&mut r, &aid);
        let (bw, _) = de.troop.move_bw();
        let msg = m(
            "callan.combat.evades",
            &[
                ("unit", de.name.clone()),
                ("bw", bw.to_string()),
                ("cm", st.cm(bw).to_string()),
            ],
        );
        r.step(k("callan.step.combat"), msg.clone());
        r.say(msg);
        return Ok(Plan::Done(r));
    }
    let mut r = Res::new(st);
    let id = r.st.next_combat;
    r.st.next_combat += 1;
    let counter = de.troop == Troop::Gendarmi
        && de.quality == Quality::Veterani
        && at.troop.is_cavalry()
        && de.status == Status::Ok;
    let mala =
        st.cfg.mala_guerra && at.troop == Troop::Picchieri && de.troop == Troop::Picchieri && {
            let n = |u: &UnitState| u.nationality.clone().unwrap_or_default();
            let pair = [n(at), n(de)];
            pair.contains(&"svizzeri".to_string()) && pair.contains(&"lanzichenecchi".to_string())
        };
    let combat = Combat {
        id,
        units: [at.id.clone(), de.id.clone()],
        rounds: 0,
        roles: if counter {
            [Role::Attacker, Role::Attacker]
        } else {
            [Role::Attacker, Role::Defender]
        },
        cavalry: at.troop.is_cavalry() && de.troop.is_cavalry(),
        mala_guerra: mala,
        turn: st.turn,
        due: false,
        flanked: flank,
        bases: None,
    };
    r.st.combats.push(combat.clone());
    {
        let me = r.st.unit_mut(&at.id).expect("attacker");
        me.moved = true;
        me.activated = true;
        me.attacked = true;
        me.riccio = false;
    }
    if let Some(o) = r.st.open.as_mut() {
        o.troops_moved = true;
    }
    // Charges count when a first round is fought (D29): after a raw defender's test, below.
    let bonus = charge
        && !counter
        && (at.troop != Troop::CavalleriaLeggera || st.cfg.light_cavalry_charge_bonus)
        && !(at.troop.is_heavy_horse() && at.charges >= 2);
    let counts_charge = charge && at.troop.is_heavy_horse();
    if counter {
        if let Some(d) = r.st.unit_mut(&de.id) {
            d.charges += 1;
        }
        r.step(
            k("callan.step.combat"),
            m("callan.combat.counter-charge", &[("unit", de.name.clone())]),
        );
    }
    if mala {
        r.step(k("callan.step.combat"), k("callan.combat.mala-guerra"));
        r.note(m(
            "callan.combat.mala-note",
            &[("a", at.name.clone()), ("b", de.name.clone())],
        ));
    }
    let round = Round {
        combat: id,
        bonus,
        charging: [counts_charge, counter],
        counts: c,
    };
    // A raw defender tests on being attacked, before the dice (D48).
    let raw = de.quality == Quality::Reclute;
    let did = de.id.clone();
    let aid = at.id.clone();
    let abases = at.bases;
    let round_for_site = round.clone();
    let go: Rc<dyn Fn(Res, bool) -> P> = Rc::new(move |r, fled| {
        if fled {
            // No round is fought: the charge does not count (D29).
            return Plan::Done(r);
        }
        let mut r = r;
        if counts_charge {
            if let Some(me) = r.st.unit_mut(&aid) {
                me.charges += 1;
            }
        }
        duel_then_round(r, round.clone())
    });
    if raw {
        let site = format!("raw|{}", round_site(&round_for_site, [false, false]));
        Ok(panic_test(
            r,
            &site,
            &did,
            Trigger::RawAttacked,
            Some(abases),
            true,
            go,
        ))
    } else {
        Ok(go(r, false))
    }
}

/// Whether an attacked unit may choose to evade: open-order foot and light horse that have not
/// moved this turn (003, Movimento › Evasione; §5).
pub fn may_evade(u: &UnitState) -> bool {
    (u.open_order && u.troop.is_foot() || u.troop == Troop::CavalleriaLeggera) && !u.moved
}

/// The defender of an attack whose answer is not given, when it may evade: the odds of such an
/// attack are the fight's, as if it stood (D70).
pub fn evasion_assumed<'a>(st: &'a State, a: &Action) -> Option<&'a UnitState> {
    match a {
        Action::Attack {
            defender,
            evade: None,
            ..
        } => defender
            .id()
            .and_then(|d| st.unit(d))
            .filter(|d| may_evade(d)),
        _ => None,
    }
}

/// `a` with the defender standing, and each outcome saying that it was assumed (D70). `None`:
/// nothing to assume (the answer is given, or the defender may not evade).
pub fn assuming_it_stands(st: &State, a: &Action) -> Option<(Action, String)> {
    let de = evasion_assumed(st, a)?;
    let mut a = a.clone();
    if let Action::Attack { evade, .. } = &mut a {
        *evade = Some(false);
    }
    Some((a, de.name.clone()))
}

/// The note of [`assuming_it_stands`], first in the resolution and among the facets.
pub fn note_it_stands(mut r: Res, name: &str) -> Res {
    r.steps.insert(
        0,
        Step {
            title: k("callan.step.combat"),
            dice: Vec::new(),
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: m(
                "callan.combat.assumes-stands",
                &[("unit", name.to_string())],
            ),
        },
    );
    r.facets.insert(
        0,
        (
            m("callan.facet.evades", &[("unit", name.to_string())]),
            k("callan.evade.assumed-no"),
        ),
    );
    r
}

/// A Landsknecht unit, the only target of Swiss fixed by "Niente soldi" (D59).
pub fn is_landsknecht(u: &UnitState) -> bool {
    u.nationality.as_deref() == Some("lanzichenecchi")
}

#[derive(Clone, Debug)]
pub(super) struct Round {
    pub(super) combat: u32,
    pub(super) bonus: bool,
    /// This first round is a charge that counts for each side (the attacker's charge, a veteran
    /// counter-charge): its lances are not yet broken even if it is the second (D29).
    pub(super) charging: [bool; 2],
    pub(super) counts: Counts,
}

impl Clone for Counts {
    fn clone(&self) -> Self {
        Counts {
            front: self.front,
            rear: self.rear,
            shot: self.shot,
            emerge: self.emerge,
            support: self.support.clone(),
        }
    }
}

/// The attacker has moved into contact this turn, and its side's troops have moved (D13, D17).
pub(super) fn mark_attacked(r: &mut Res, a: &str) {
    if let Some(u) = r.st.unit_mut(a) {
        u.moved = true;
        u.activated = true;
        u.attacked = true;
    }
    if let Some(o) = r.st.open.as_mut() {
        o.troops_moved = true;
    }
}

pub(super) fn mark_fought(r: &mut Res, a: &str, b: &str) {
    for (x, y) in [(a, b), (b, a)] {
        if let Some(u) = r.st.unit_mut(x) {
            u.activated = true;
            if !u.fought_with.iter().any(|f| f == y) {
                u.fought_with.push(y.to_string());
            }
        }
    }
}

/// The attacked unit's answer: evade, or stand and fight (§5, Evasione).
pub(super) fn answer(st: &State, choice: Option<&str>) -> Result<P, Rejection> {
    let Some(q) = &st.question else {
        return Err(reject(
            "no-question",
            Some("action"),
            k("callan.reject.no-question"),
        )
        .not_now());
    };
    let choice = match choice {
        Some("evade") => true,
        Some("stand") => false,
        _ => {
            return Err(reject(
                "bad-choice",
                Some("choice"),
                m(
                    "callan.reject.choice",
                    &[
                        ("field", "choice".into()),
                        ("allowed", "evade, stand".into()),
                    ],
                ),
            ))
        }
    };
    let mut q: Action = read_action(q)?;
    if let Action::Attack { evade, .. } = &mut q {
        *evade = Some(choice);
    }
    let mut cleared = st.clone();
    cleared.question = None;
    attack(&cleared, &q)
}

/// The side that answers the pending question: the attacked unit's.
pub fn question_side(st: &State) -> Option<usize> {
    match read_action(st.question.as_ref()?) {
        Ok(Action::Attack { defender, .. }) => {
            defender.id().and_then(|d| st.unit(d)).map(|u| u.side)
        }
        _ => None,
    }
}

pub(super) fn resolve_combat(st: &State, a: &Action) -> Result<P, Rejection> {
    let Action::ResolveCombat { combat: id, .. } = a else {
        return Err(wrong());
    };
    let c = combat_by(st, id).ok_or_else(|| {
        reject(
            "unknown-combat",
            Some("combat"),
            m(
                "callan.reject.unknown-combat",
                &[
                    ("id", crate::text::quoted(id)),
                    (
                        "allowed",
                        st.combats
                            .iter()
                            .map(|c| format!("c{}", c.id))
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                ],
            ),
        )
    })?;
    if !c.due {
        return Err(reject(
            "not-due",
            Some("combat"),
            m("callan.reject.not-due", &[("id", format!("c{}", c.id))]),
        )
        .not_now());
    }
    let (Some(x), Some(y)) = (st.unit(&c.units[0]), st.unit(&c.units[1])) else {
        return Err(reject(
            "unknown-combat",
            Some("combat"),
            k("callan.reject.unknown"),
        ));
    };
    let counts = counts(st, a, [x, y], c.cavalry && c.rounds >= 1)?;
    let mut r = Res::new(st);
    if let Some(cc) = r.st.combats.iter_mut().find(|z| z.id == c.id) {
        cc.due = false;
    }
    if let Some((sid, _)) = &counts.support {
        // The supporting squadron advanced to touch its friend: it has moved (D36).
        if let Some(s) = r.st.unit_mut(sid) {
            s.moved = true;
            s.activated = true;
        }
    }
    Ok(duel_then_round(
        r,
        Round {
            combat: c.id,
            bonus: false,
            charging: [false, false],
            counts,
        },
    ))
}
