//! Playing a card and ordering (design 3 steps 1-2, 4.1-4.2).

use super::*;

// ------------------------------------------------------------------------------------------------
// Playing a card and ordering (design 3 steps 1-2, 4.1-4.2).

/// The card ids the fallback "order 1 unit of your choice" stands for.
pub(super) const ANY_ONE: &str = "any-1";

pub(super) fn is_horse(u: &UnitState) -> bool {
    u.class.horse()
}

pub(super) fn is_mounted(u: &UnitState) -> bool {
    u.class.horse() || (u.class == Class::Dragoons && u.mounted)
}

/// The effective card and its limits when `side` plays kind `kind` (Counter-Attack copies,
/// fallbacks when nothing of the type is on the table).
/// The effective card: its id, its section limits, whether they are shared, and whether it
/// scouts.
pub(super) type Effective = (String, Option<[Option<u32>; 3]>, bool, bool);

pub(super) fn effective(
    st: &State,
    side: usize,
    kind: &CommandCard,
) -> Result<Effective, Rejection> {
    let mut k = kind;
    let mut mirror = false;
    if k.id == "counter-attack" {
        let last = st.sides[1 - side].last_card.clone();
        match last.as_deref().and_then(command_card) {
            Some(c) if !matches!(c.id, "evade" | "hazzard-a-chaunce" | "counter-attack") => {
                k = c;
                mirror = true;
            }
            _ => {
                if !st.cfg.counter_attack_fallback {
                    return Err(reject(
                        "nothing-to-copy",
                        Some("card"),
                        "card: Counter-Attack has nothing to copy (house rule ecw.counter_attack_fallback = 0)",
                    ));
                }
                return Ok((ANY_ONE.into(), None, false, false));
            }
        }
    }
    let command = st.command(side);
    if let Some(secs) = k.sections {
        let mut lim = [None; 3];
        for (i, c) in secs.iter().enumerate() {
            let to = if mirror { 2 - i } else { i };
            lim[to] = c.map(|c| match c {
                Count::Fixed(n) => u32::from(n),
                Count::Command => command,
            });
        }
        return Ok((k.id.into(), Some(lim), k.shared, k.scout));
    }
    let live: Vec<&UnitState> = st.live_units(side).collect();
    let has = |f: &dyn Fn(&UnitState) -> bool| live.iter().any(|u| f(u));
    let fallback = match k.id {
        "bold-dragooneers" => !has(&|u| u.class == Class::Dragoons),
        "bombard" => !has(&|u| u.class == Class::Artillery),
        "charge-of-horse" => !has(&|u| is_horse(u)),
        "fire-and-hold" => !has(&|u| matches!(u.class, Class::Foot | Class::Artillery)),
        "leadership" => !st
            .leaders
            .iter()
            .any(|l| l.side == side && l.gone.is_none()),
        _ => false,
    };
    if fallback {
        return Ok((ANY_ONE.into(), None, false, false));
    }
    Ok((k.id.into(), None, false, false))
}

pub(super) fn play(st: &State, id: &str, mode: Option<&str>) -> Result<P, Rejection> {
    let side = st.active;
    let Some(kind) = command_card(id) else {
        return Err(reject(
            "unknown-card",
            Some("card"),
            format!("card: unknown command card \"{id}\""),
        ));
    };
    let Some(pos) = st.sides[side]
        .hand
        .iter()
        .position(|&c| command_kind(c).id == id)
    else {
        return Err(reject(
            "not-in-hand",
            Some("card"),
            format!("card: {} is not in your hand", kind.name),
        ));
    };
    if id == "evade" {
        return Err(reject(
            "evade-is-a-response",
            Some("card"),
            "card: Evade is played by the defender after a melee is announced against it (004, Tactic Cards)",
        ));
    }
    let mode = mode.unwrap_or(if id == "hazzard-a-chaunce" {
        ""
    } else {
        "order"
    });
    let present = id == "hazzard-a-chaunce" && mode == "present";
    if id != "hazzard-a-chaunce" && mode == "present" {
        return Err(reject(
            "bad-choice",
            Some("mode"),
            "mode: only Hazzard a Chaunce is presented to the opponent",
        ));
    }
    if id == "hazzard-a-chaunce" && !matches!(mode, "present" | "order") {
        return Err(reject(
            "bad-choice",
            Some("mode"),
            "mode: present (the opponent takes a Chaunce card; your turn ends) or order (1 unit or leader)",
        ).question());
    }
    if present && !st.cfg.chaunce {
        return Err(reject(
            "no-chaunce",
            Some("mode"),
            "mode: the scenario plays without the Chaunce pack (ecw.chaunce = 0): Hazzard a Chaunce orders 1 unit",
        ));
    }
    let (eff, limits, shared, scout) = if id == "hazzard-a-chaunce" {
        (ANY_ONE.to_string(), None, false, false)
    } else {
        effective(st, side, kind)?
    };
    let mut r = Res::new(st);
    let card = r.st.sides[side].hand.remove(pos);
    r.st.discard.push(card);
    let name = kind.name;
    if present {
        r.st.sides[1 - side].chaunce_due += 1;
        r.st.card = Some(Played {
            card,
            effective: "hazzard-a-chaunce".into(),
            limits: None,
            shared: false,
            scout: false,
            orders: Vec::new(),
            pool: None,
            rally: None,
            march: None,
            combat: false,
            moving: false,
        });
        let msg = format!(
            "{} present Hazzard a Chaunce: {} must take a Chaunce card at the start of their turn; the turn ends (004, Tactic Cards; decision 2)",
            r.st.side_name(side),
            r.st.side_name(1 - side)
        );
        r.step(format!("{name} [004, Tactic Cards]"), msg.clone());
        r.say(msg);
        finish_turn(&mut r, true);
        return Ok(done(r));
    }
    let copy = if kind.id == "counter-attack" {
        format!(
            " — a copy of {}{}",
            command_card(&eff).map_or("1 unit or leader of your choice", |c| c.name),
            if limits.is_some() {
                ", flanks swapped"
            } else {
                ""
            }
        )
    } else {
        String::new()
    };
    r.st.card = Some(Played {
        card,
        effective: eff.clone(),
        limits,
        shared,
        scout,
        orders: Vec::new(),
        pool: None,
        rally: None,
        march: None,
        combat: false,
        moving: false,
    });
    r.st.phase = Phase::Orders;
    let side_name = r.st.side_name(side);
    let what = describe_orders(&r.st);
    r.step(
        format!("{name}{copy} [004, COMMAND CARDS]"),
        format!("{side_name} play {name}{copy}: {what}"),
    );
    r.say(format!("{side_name} play {name}{copy}: {what}"));
    // Cards that roll when played.
    match eff.as_str() {
        "rallye" | "lord-is-with-us" => {
            let n = st.command(side);
            let lord = eff == "lord-is-with-us";
            let classes = FaceClasses::of(&[0, 0, 1, 2, 3, 4]);
            Ok(throw(n as usize, 6, "Battle die", Depends::Classes(classes)).map(move |faces| {
                let mut r = r.clone();
                let count = |k: u8| faces.iter().filter(|&&f| classes.class(f) == k).count() as u32;
                let (f, h, ar, fl) = (count(0), count(1), count(2), count(4));
                let dice = symbol_dice("Battle die", &faces);
                let mut step = Step {
                    title: format!("{} dice equal to command ({n}) [004, Tactic Cards]", if lord { "The Lord Is With Us:" } else { "Rallye:" }),
                    dice,
                    modifiers: Vec::new(),
                    totals: vec![("foot".into(), f as i32), ("horse".into(), h as i32), ("artillery".into(), ar as i32), ("flags".into(), fl as i32)],
                    result: String::new(),
                };
                if let Some(c) = r.st.card.as_mut() {
                    if lord {
                        c.pool = Some([f, h, ar, fl]);
                        step.result = format!("orders: {f} foot, {h} horse, {ar} artillery, {fl} of your choice; sabres order nothing; ordered units battle with 1 additional die all turn");
                    } else {
                        c.rally = Some([f, h, ar]);
                        step.result = format!("blocks to return: {f} foot, {h} horse, {ar} artillery (`rally` one block at a time)");
                    }
                }
                r.facets.push(("foot".into(), f.to_string()));
                r.facets.push(("horse".into(), h.to_string()));
                r.facets.push(("artillery".into(), ar.to_string()));
                r.say(step.result.clone());
                r.steps.push(step);
                if lord {
                    // "Reshuffle the Command card deck and discard pile" (decision 11).
                    let mut notes = Vec::new();
                    r.st.reshuffle_commands(&mut notes);
                    r.say(notes.join("; "));
                }
                if can_order_none(&r.st) {
                    let m = "the card can order no unit: straight to the draw (CCS-play; decision 49)".to_string();
                    r.say(m);
                    finish_turn(&mut r, true);
                }
                r
            }))
        }
        _ => {
            if can_order_none(&r.st) {
                r.say("the card can order no unit: straight to the draw (CCS-play; decision 49)");
                finish_turn(&mut r, true);
            }
            Ok(done(r))
        }
    }
}

/// What the card in play orders, in words.
pub(super) fn describe_orders(st: &State) -> String {
    let Some(c) = &st.card else {
        return String::new();
    };
    if let Some(l) = c.limits {
        let parts: Vec<String> = Section::ALL
            .iter()
            .zip(l)
            .filter_map(|(s, n)| n.map(|n| format!("{n} {}", s.name())))
            .collect();
        return format!(
            "orders {}{}",
            if c.shared {
                format!(
                    "{} in all, {}",
                    l.iter().flatten().max().unwrap_or(&0),
                    parts
                        .iter()
                        .map(|p| p.split(' ').nth(1).unwrap_or(""))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )
            } else {
                parts.join(", ")
            },
            if c.scout {
                "; draw two and keep one at the end of the turn"
            } else {
                ""
            }
        );
    }
    match c.effective.as_str() {
        ANY_ONE => "orders 1 unit or leader of your choice".into(),
        "bold-dragooneers" => "orders 1 unit of dragoons: a further move after firing".into(),
        "bombard" => "orders up to 4 artillery: move up to 2 and not battle, or fire with 1 additional die".into(),
        "charge-of-horse" => "orders up to 4 horse (not dragoons): 1 additional die all turn; cuirassiers and trotters may move 3 and battle".into(),
        "fire-and-hold" => "orders up to 4 foot or artillery not adjacent to the enemy: ranged combat with 1 additional die, no move".into(),
        "leadership" => "orders every leader, and the unit each is attached to: 1 additional die".into(),
        "march-to-victorye" => "orders all the units and leaders of one section: a normal move, no contact, no combat".into(),
        "push" => "orders every unit adjacent to the enemy: melee with 1 additional die, no fire, no move before the melee".into(),
        "rallye" => "blocks return to under-strength units by symbol".into(),
        "lord-is-with-us" => "units ordered by symbol; 1 additional die all turn".into(),
        _ => String::new(),
    }
}

/// Nothing the card could order is on the table.
pub(super) fn can_order_none(st: &State) -> bool {
    let Some(c) = &st.card else { return true };
    let side = st.active;
    let units: Vec<&UnitState> = st.live_units(side).collect();
    if let Some(l) = c.limits {
        let leaders_in = |sec: Section| {
            st.leaders.iter().any(|x| {
                x.side == side
                    && x.gone.is_none()
                    && x.unit
                        .as_deref()
                        .and_then(|u| st.unit(u))
                        .is_some_and(|u| u.section == sec)
            })
        };
        return !Section::ALL.iter().zip(l).any(|(s, n)| {
            n.is_some_and(|n| n > 0) && (units.iter().any(|u| u.section == *s) || leaders_in(*s))
        });
    }
    if let Some([f, h, a, fl]) = c.pool {
        if fl > 0 {
            return units.is_empty();
        }
        let any = |k: u32, p: &dyn Fn(&UnitState) -> bool| k > 0 && units.iter().any(|u| p(u));
        return !(any(f, &|u| matches!(u.class, Class::Foot | Class::Clubmen))
            || any(h, &|u| u.class.horse() || u.class == Class::Dragoons)
            || any(a, &|u| u.class == Class::Artillery));
    }
    if let Some([f, h, a]) = c.rally {
        let under = |p: &dyn Fn(&UnitState) -> bool| {
            units.iter().any(|u| p(u) && u.blocks < u.start_blocks)
        };
        return !((f > 0 && under(&|u| matches!(u.class, Class::Foot | Class::Clubmen)))
            || (h > 0 && under(&|u| u.class.horse() || u.class == Class::Dragoons))
            || (a > 0 && under(&|u| u.class == Class::Artillery)));
    }
    units.is_empty()
        && !st
            .leaders
            .iter()
            .any(|l| l.side == side && l.gone.is_none())
}

/// The symbol type a unit counts as for Rallye and The Lord Is With Us: 0 foot, 1 horse, 2
/// artillery (decision 31).
pub(super) fn type_of(u: &UnitState) -> usize {
    match u.class {
        Class::Foot | Class::Clubmen => 0,
        Class::Artillery => 2,
        _ => 1,
    }
}

pub(super) fn order(
    st: &State,
    id: &str,
    section: Option<&str>,
    adjacent_enemy: bool,
) -> Result<P, Rejection> {
    let side = st.active;
    let c = st
        .card
        .as_ref()
        .ok_or_else(|| reject("no-card", None, "no card in play").not_now())?;
    if c.moving || c.combat {
        return Err(reject(
            "orders-closed",
            Some("unit"),
            "unit: orders are given before any move or battle (CCN sequence of play: order, move, combat)",
        ).not_now());
    }
    let section = match section {
        Some(x) => Some(Section::parse(x).ok_or_else(|| {
            reject(
                "bad-choice",
                Some("section"),
                "section: left, centre or right",
            )
        })?),
        None => None,
    };
    let leader = st.leader(id);
    let unit = st.unit(id);
    if leader.is_none() && unit.is_none() {
        return Err(reject(
            "no-such-unit",
            Some("unit"),
            format!("unit: no unit or leader \"{id}\""),
        ));
    }
    let (owner, gone, ordered) = match (unit, leader) {
        (Some(u), _) => (u.side, u.gone.is_some() || u.spare, u.ordered),
        (_, Some(l)) => (l.side, l.gone.is_some(), l.ordered),
        _ => unreachable_side(),
    };
    if owner != side {
        return Err(reject(
            "not-yours",
            Some("unit"),
            format!("unit: {id} belongs to {}", st.side_name(owner)),
        ));
    }
    if gone {
        return Err(reject(
            "not-on-table",
            Some("unit"),
            format!("unit: {id} is not on the table"),
        ));
    }
    if ordered {
        return Err(reject(
            "already-ordered",
            Some("unit"),
            format!("unit: {id} is already ordered this turn (one order each, CCN)"),
        ));
    }
    if let Some(u) = unit {
        if u.no_orders_until_leader && st.leader_of(&u.id).is_none() {
            return Err(reject("coronels-trubble", Some("unit"), format!("unit: {} takes no orders until a leader is attached (The Coronel's Trubble Again)", u.name)));
        }
    }
    // The section it is counted in: given, or the unit's (a leader's: its unit's).
    let home = unit.map(|u| u.section).or_else(|| {
        leader
            .and_then(|l| l.unit.as_deref())
            .and_then(|u| st.unit(u))
            .map(|u| u.section)
    });
    let sec = section.or(home);
    let eff = c.effective.as_str();
    let count = c.orders.len() as u32;
    let mut card_bonus = 0;
    let mut push = false;
    let mut pool_use: Option<usize> = None;
    let mut march: Option<Section> = c.march;
    let too_many = |n: u32, what: &str| -> Result<(), Rejection> {
        if count >= n {
            Err(reject(
                "card-limit",
                Some("unit"),
                format!("unit: the card orders {what}; {count} already ordered"),
            ))
        } else {
            Ok(())
        }
    };
    let is_unit = |p: &dyn Fn(&UnitState) -> bool, what: &str| -> Result<(), Rejection> {
        match unit {
            Some(u) if p(u) => Ok(()),
            _ => Err(reject(
                "card-type",
                Some("unit"),
                format!("unit: the card orders {what} only"),
            )),
        }
    };
    if let Some(l) = c.limits {
        let Some(s) = sec else {
            return Err(reject(
                "section-needed",
                Some("section"),
                "section: a lone leader's section (left, centre or right)",
            )
            .question());
        };
        let n = l[s as usize].ok_or_else(|| {
            reject(
                "wrong-section",
                Some("section"),
                format!(
                    "section: the card orders no unit in the {} section",
                    s.name()
                ),
            )
        })?;
        let used = c
            .orders
            .iter()
            .filter(|(_, x)| c.shared || *x == Some(s))
            .count() as u32;
        if used >= n {
            return Err(reject(
                "card-limit",
                Some("unit"),
                format!(
                    "unit: the card orders {n} in the {}{}; {used} already ordered",
                    s.name(),
                    if c.shared {
                        " and the other section it names"
                    } else {
                        ""
                    }
                ),
            ));
        }
    } else {
        match eff {
            ANY_ONE | "hazzard-a-chaunce" => too_many(1, "1 unit or leader")?,
            "bold-dragooneers" => {
                too_many(1, "1 unit of dragoons")?;
                is_unit(&|u| u.class == Class::Dragoons, "dragoons")?;
            }
            "bombard" => {
                too_many(4, "4 or fewer artillery units")?;
                is_unit(&|u| u.class == Class::Artillery, "artillery")?;
            }
            "charge-of-horse" => {
                too_many(4, "4 or fewer units of horse")?;
                is_unit(&is_horse, "horse (not dragoons)")?;
                card_bonus = 1;
            }
            "fire-and-hold" => {
                too_many(4, "4 or fewer foot or artillery units")?;
                is_unit(
                    &|u| matches!(u.class, Class::Foot | Class::Artillery),
                    "foot or artillery",
                )?;
                if adjacent_enemy {
                    return Err(reject("adjacent", Some("adjacent_enemy"), "adjacent_enemy: Fire and Hold orders units not adjacent to enemy troops (004)"));
                }
            }
            "leadership" => {
                if leader.is_none() {
                    return Err(reject("card-type", Some("unit"), "unit: Leadership orders leaders; a unit is ordered with its attached leader"));
                }
                card_bonus = 1;
            }
            "march-to-victorye" => {
                let Some(s) = sec else {
                    return Err(reject(
                        "section-needed",
                        Some("section"),
                        "section: the section marching",
                    )
                    .question());
                };
                if let Some(m) = march {
                    if m != s {
                        return Err(reject(
                            "wrong-section",
                            Some("section"),
                            format!(
                                "section: March to Victorye orders the {} section only",
                                m.name()
                            ),
                        ));
                    }
                }
                march = Some(s);
            }
            "push" => {
                is_unit(&|_| true, "units")?;
                if !adjacent_enemy {
                    return Err(reject("not-adjacent", Some("adjacent_enemy"), "adjacent_enemy: Push! orders units adjacent to the enemy; tick it if this unit is"));
                }
                push = true;
            }
            "rallye" => {
                return Err(reject(
                    "rallye",
                    Some("unit"),
                    "unit: Rallye orders the units that gain a block (`rally`)",
                ));
            }
            "lord-is-with-us" => {
                let pool = c.pool.unwrap_or_default();
                let t = unit.map(type_of);
                pool_use = match t {
                    Some(t) if pool[t] > 0 => Some(t),
                    _ if pool[3] > 0 => Some(3),
                    _ => {
                        return Err(reject("card-limit", Some("unit"), format!("unit: no symbol left for it (foot {}, horse {}, artillery {}, flags {})", pool[0], pool[1], pool[2], pool[3])));
                    }
                };
                card_bonus = 1;
            }
            _ => too_many(1, "1 unit")?,
        }
    }
    let mut r = Res::new(st);
    let s = &mut r.st;
    let mut named = Vec::new();
    if let Some(u) = s.unit_mut(id) {
        u.ordered = true;
        u.card_bonus = card_bonus;
        u.push = push;
        if let Some(x) = section {
            u.section = x;
        }
        named.push(u.name.clone());
    }
    if let Some(l) = s.leader_mut(id) {
        l.ordered = true;
        named.push(l.name.clone());
        // Leadership: the leader's unit is ordered with him (004, Tactic Cards).
        if eff == "leadership" {
            if let Some(uid) = l.unit.clone() {
                if let Some(u) = s.unit_mut(&uid) {
                    u.ordered = true;
                    u.card_bonus = 1;
                    named.push(u.name.clone());
                }
            }
        }
    }
    if let Some(c) = s.card.as_mut() {
        c.orders.push((id.to_string(), sec));
        c.march = march;
        if let (Some(t), Some(p)) = (pool_use, c.pool.as_mut()) {
            p[t] -= 1;
        }
    }
    let msg = format!(
        "ordered: {}{}",
        named.join(" with "),
        sec.map_or(String::new(), |x| format!(" ({})", x.name()))
    );
    r.step("Order [design 3, step 2]", msg.clone());
    r.say(msg);
    Ok(done(r))
}

pub(super) fn unreachable_side() -> (usize, bool, bool) {
    (usize::MAX, true, true)
}

pub(super) fn rally(st: &State, id: &str) -> Result<P, Rejection> {
    let c = st
        .card
        .as_ref()
        .ok_or_else(|| reject("no-card", None, "no card in play").not_now())?;
    let Some(pool) = c.rally else {
        return Err(reject(
            "not-rallye",
            Some("action"),
            "rally: only with Rallye in play",
        ));
    };
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
    let t = type_of(u);
    if pool[t] == 0 {
        return Err(reject(
            "no-symbol",
            Some("unit"),
            format!("unit: no {} symbol left", ["foot", "horse", "artillery"][t]),
        ));
    }
    if u.blocks >= u.start_blocks {
        return Err(reject(
            "full-strength",
            Some("unit"),
            format!(
                "unit: {} is at its starting strength ({} blocks; decision 30)",
                u.name, u.start_blocks
            ),
        ));
    }
    let mut r = Res::new(st);
    let name = u.name.clone();
    if let Some(u) = r.st.unit_mut(id) {
        u.blocks += 1;
        u.ordered = true;
    }
    if let Some(c) = r.st.card.as_mut() {
        if let Some(p) = c.rally.as_mut() {
            p[t] -= 1;
        }
        if !c.orders.iter().any(|(x, _)| x == id) {
            c.orders.push((id.to_string(), None));
        }
    }
    let msg = format!("{name} regains a block and is ordered (Rallye)");
    r.step("Rallye [004, Tactic Cards]", msg.clone());
    r.say(msg);
    Ok(done(r))
}
