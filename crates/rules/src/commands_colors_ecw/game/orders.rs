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
                        m("ecw.reject.nothing-to-copy", &[("card", kind.title())]),
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
            m(
                "ecw.reject.unknown-card",
                &[("card", crate::text::quoted(id))],
            ),
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
            m("ecw.reject.not-in-hand", &[("card", kind.title())]),
        ));
    };
    // Evade answers a melee; a hand that holds nothing else plays it as a card that orders no
    // unit, straight to the draw (decision 66).
    let only_evade = st.sides[side]
        .hand
        .iter()
        .all(|&c| command_kind(c).id == "evade");
    if id == "evade" && !only_evade {
        return Err(reject(
            "evade-is-a-response",
            Some("card"),
            m("ecw.reject.evade-response", &[("card", kind.title())]),
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
            m(
                "ecw.reject.only-hazzard",
                &[(
                    "card",
                    command_card("hazzard-a-chaunce").map_or(String::new(), |c| c.title()),
                )],
            ),
        ));
    }
    if id == "hazzard-a-chaunce" && !matches!(mode, "present" | "order") {
        return Err(reject("bad-choice", Some("mode"), k("ecw.reject.hazzard-mode")).question());
    }
    if present && !st.cfg.chaunce {
        return Err(reject(
            "no-chaunce",
            Some("mode"),
            m("ecw.reject.hazzard-no-pack", &[("card", kind.title())]),
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
    let name = kind.title();
    if id == "evade" {
        r.st.card = Some(Played::ordering_none(card, "evade"));
        let msg = m(
            "ecw.play.evade-orders-none",
            &[("side", r.st.side_name(side)), ("card", name.clone())],
        );
        r.step(name, msg.clone());
        r.say(msg);
        finish_turn(&mut r, true);
        return Ok(done(r));
    }
    if present {
        r.st.sides[1 - side].chaunce_due += 1;
        r.st.card = Some(Played::ordering_none(card, "hazzard-a-chaunce"));
        let msg = m(
            "ecw.play.present",
            &[
                ("side", r.st.side_name(side)),
                ("card", name.clone()),
                ("other", r.st.side_name(1 - side)),
            ],
        );
        r.step(name, msg.clone());
        r.say(msg);
        finish_turn(&mut r, true);
        return Ok(done(r));
    }
    let title = if kind.id == "counter-attack" {
        m(
            if limits.is_some() {
                "ecw.play.copy-swapped"
            } else {
                "ecw.play.copy"
            },
            &[
                ("card", name.clone()),
                (
                    "copied",
                    command_card(&eff)
                        .map_or_else(|| k("ecw.board.one-of-your-choice"), |c| c.title()),
                ),
            ],
        )
    } else {
        name.clone()
    };
    r.st.card = Some(Played {
        limits,
        shared,
        scout,
        ..Played::ordering_none(card, &eff)
    });
    r.st.phase = Phase::Orders;
    let side_name = r.st.side_name(side);
    let what = describe_orders(&r.st);
    let msg = m(
        "ecw.play.played",
        &[("side", side_name), ("card", title.clone()), ("what", what)],
    );
    r.step(title, msg.clone());
    r.say(msg);
    // Cards that roll when played.
    match eff.as_str() {
        "rallye" | "lord-is-with-us" => {
            let n = st.command(side);
            let lord = eff == "lord-is-with-us";
            let classes = FaceClasses::of(&[0, 0, 1, 2, 3, 4]);
            Ok(throw(
                n as usize,
                6,
                &k("ecw.die.battle"),
                Depends::Classes(classes),
            )
            .map(move |faces| {
                let mut r = r.clone();
                let count = |k: u8| faces.iter().filter(|&&f| classes.class(f) == k).count() as u32;
                let (f, h, ar, fl) = (count(0), count(1), count(2), count(4));
                let dice = symbol_dice(&k("ecw.die.battle"), &faces);
                let card = command_card(if lord { "lord-is-with-us" } else { "rallye" })
                    .map_or(String::new(), |c| c.title());
                let mut step = Step {
                    title: m(
                        "ecw.step.dice-equal-command",
                        &[("card", card), ("count", n.to_string())],
                    ),
                    dice,
                    modifiers: Vec::new(),
                    totals: vec![
                        (k("ecw.term.foot"), f as i32),
                        (k("ecw.term.horse"), h as i32),
                        (k("ecw.term.artillery"), ar as i32),
                        (k(resolve::TOTAL_FLAGS), fl as i32),
                    ],
                    result: String::new(),
                };
                let args = [
                    ("foot", f.to_string()),
                    ("horse", h.to_string()),
                    ("artillery", ar.to_string()),
                    ("choice", fl.to_string()),
                ];
                if let Some(c) = r.st.card.as_mut() {
                    if lord {
                        c.pool = Some([f, h, ar, fl]);
                        step.result = m("ecw.play.lord-orders", &args);
                    } else {
                        c.rally = Some([f, h, ar]);
                        step.result = m("ecw.play.rallye-blocks", &args);
                    }
                }
                r.facets.push((k("ecw.term.foot"), f.to_string()));
                r.facets.push((k("ecw.term.horse"), h.to_string()));
                r.facets.push((k("ecw.term.artillery"), ar.to_string()));
                r.say(step.result.clone());
                r.steps.push(step);
                if lord {
                    // "Reshuffle the Command card deck and discard pile" (decision 11).
                    let mut notes = Vec::new();
                    r.st.reshuffle_commands(&mut notes);
                    r.say(join(&notes));
                }
                if can_order_none(&r.st) {
                    r.say(k("ecw.play.orders-none"));
                    finish_turn(&mut r, true);
                }
                r
            }))
        }
        _ => {
            if can_order_none(&r.st) {
                r.say(k("ecw.play.orders-none"));
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
        let secs: Vec<(Section, u32)> = Section::ALL
            .iter()
            .zip(l)
            .filter_map(|(s, n)| n.map(|n| (*s, n)))
            .collect();
        let what = if c.shared {
            m(
                "ecw.orders.shared",
                &[
                    ("count", l.iter().flatten().max().unwrap_or(&0).to_string()),
                    (
                        "sections",
                        secs.iter()
                            .map(|(s, _)| k(s.term().trim_start_matches('@')))
                            .collect::<Vec<_>>()
                            .join(" / "),
                    ),
                ],
            )
        } else {
            secs.iter()
                .map(|(s, n)| {
                    m(
                        "ecw.orders.in-section",
                        &[("count", n.to_string()), ("section", s.term())],
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        return m(
            if c.scout {
                "ecw.orders.sections-scout"
            } else {
                "ecw.orders.sections"
            },
            &[("what", what)],
        );
    }
    let key = match c.effective.as_str() {
        ANY_ONE => "ecw.orders.any-one",
        "bold-dragooneers" => "ecw.orders.bold-dragooneers",
        "bombard" => "ecw.orders.bombard",
        "charge-of-horse" => "ecw.orders.charge-of-horse",
        "fire-and-hold" => "ecw.orders.fire-and-hold",
        "leadership" => "ecw.orders.leadership",
        "march-to-victorye" => "ecw.orders.march-to-victorye",
        "push" => "ecw.orders.push",
        "rallye" => "ecw.orders.rallye",
        "lord-is-with-us" => "ecw.orders.lord-is-with-us",
        _ => return String::new(),
    };
    k(key)
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
        .ok_or_else(|| reject("no-card", None, k("ecw.reject.no-card")).not_now())?;
    if c.moving || c.combat {
        return Err(reject("orders-closed", Some("unit"), k("ecw.reject.orders-closed")).not_now());
    }
    let section = match section {
        Some(x) => Some(
            Section::parse(x)
                .ok_or_else(|| reject("bad-choice", Some("section"), k("ecw.reject.section")))?,
        ),
        None => None,
    };
    let leader = st.leader(id);
    let unit = st.unit(id);
    if leader.is_none() && unit.is_none() {
        return Err(reject(
            "no-such-unit",
            Some("unit"),
            m(
                "ecw.reject.no-unit-or-leader",
                &[("unit", crate::text::quoted(id))],
            ),
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
            m(
                "ecw.reject.belongs-to",
                &[
                    ("unit", crate::text::quoted(id)),
                    ("side", st.side_name(owner)),
                ],
            ),
        ));
    }
    if gone {
        return Err(reject(
            "not-on-table",
            Some("unit"),
            m(
                "ecw.reject.not-on-table",
                &[("unit", crate::text::quoted(id))],
            ),
        ));
    }
    if ordered {
        return Err(reject(
            "already-ordered",
            Some("unit"),
            m(
                "ecw.reject.already-ordered",
                &[("unit", crate::text::quoted(id))],
            ),
        ));
    }
    if let Some(u) = unit {
        if u.no_orders_until_leader && st.leader_of(&u.id).is_none() {
            return Err(reject(
                "coronels-trubble",
                Some("unit"),
                m(
                    "ecw.reject.coronel",
                    &[
                        ("unit", u.name.clone()),
                        (
                            "card",
                            chaunce_card("coronels-trubble").map_or(String::new(), |c| c.title()),
                        ),
                    ],
                ),
            ));
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
                m(
                    "ecw.reject.card-limit",
                    &[("what", k(what)), ("count", count.to_string())],
                ),
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
                m("ecw.reject.card-type", &[("what", k(what))]),
            )),
        }
    };
    if let Some(l) = c.limits {
        let Some(s) = sec else {
            return Err(reject(
                "section-needed",
                Some("section"),
                k("ecw.reject.lone-leader-section"),
            )
            .question());
        };
        let n = l[s as usize].ok_or_else(|| {
            reject(
                "wrong-section",
                Some("section"),
                m("ecw.reject.wrong-section", &[("section", s.term())]),
            )
        })?;
        let used = c
            .orders
            .iter()
            .filter(|(_, x)| c.shared || *x == Some(s))
            .count() as u32;
        if used >= n {
            // A section the order names is the field at fault; else the unit's own.
            return Err(reject(
                "card-limit",
                Some(if section.is_some() && !c.shared {
                    "section"
                } else {
                    "unit"
                }),
                m(
                    if c.shared {
                        "ecw.reject.section-limit-shared"
                    } else {
                        "ecw.reject.section-limit"
                    },
                    &[
                        ("count", n.to_string()),
                        ("section", s.term()),
                        ("used", used.to_string()),
                    ],
                ),
            ));
        }
    } else {
        match eff {
            ANY_ONE | "hazzard-a-chaunce" => too_many(1, "ecw.what-orders.one-unit-or-leader")?,
            "bold-dragooneers" => {
                too_many(1, "ecw.what-orders.one-dragoons")?;
                is_unit(&|u| u.class == Class::Dragoons, "ecw.what-orders.dragoons")?;
            }
            "bombard" => {
                too_many(4, "ecw.what-orders.four-artillery")?;
                is_unit(&|u| u.class == Class::Artillery, "ecw.term.artillery")?;
            }
            "charge-of-horse" => {
                too_many(4, "ecw.what-orders.four-horse")?;
                is_unit(&is_horse, "ecw.what-orders.horse-not-dragoons")?;
                card_bonus = 1;
            }
            "fire-and-hold" => {
                too_many(4, "ecw.what-orders.four-foot-artillery")?;
                is_unit(
                    &|u| matches!(u.class, Class::Foot | Class::Artillery),
                    "ecw.what-orders.foot-or-artillery",
                )?;
                if adjacent_enemy {
                    return Err(reject(
                        "adjacent",
                        Some("adjacent_enemy"),
                        m(
                            "ecw.reject.fire-and-hold-adjacent",
                            &[(
                                "card",
                                command_card("fire-and-hold").map_or(String::new(), |c| c.title()),
                            )],
                        ),
                    ));
                }
            }
            "leadership" => {
                if leader.is_none() {
                    return Err(reject(
                        "card-type",
                        Some("unit"),
                        m(
                            "ecw.reject.leadership-unit",
                            &[(
                                "card",
                                command_card("leadership").map_or(String::new(), |c| c.title()),
                            )],
                        ),
                    ));
                }
                card_bonus = 1;
            }
            "march-to-victorye" => {
                let Some(s) = sec else {
                    return Err(reject(
                        "section-needed",
                        Some("section"),
                        k("ecw.reject.section-marching"),
                    )
                    .question());
                };
                if let Some(m) = march {
                    if m != s {
                        return Err(reject(
                            "wrong-section",
                            Some("section"),
                            super::super::m(
                                "ecw.reject.march-section",
                                &[
                                    (
                                        "card",
                                        command_card("march-to-victorye")
                                            .map_or(String::new(), |c| c.title()),
                                    ),
                                    ("section", m.term()),
                                ],
                            ),
                        ));
                    }
                }
                march = Some(s);
            }
            "push" => {
                is_unit(&|_| true, "ecw.what-orders.units")?;
                if !adjacent_enemy {
                    return Err(reject(
                        "not-adjacent",
                        Some("adjacent_enemy"),
                        m(
                            "ecw.reject.push-adjacent",
                            &[(
                                "card",
                                command_card("push").map_or(String::new(), |c| c.title()),
                            )],
                        ),
                    ));
                }
                push = true;
            }
            "rallye" => {
                return Err(reject(
                    "rallye",
                    Some("unit"),
                    m(
                        "ecw.reject.rallye-order",
                        &[(
                            "card",
                            command_card("rallye").map_or(String::new(), |c| c.title()),
                        )],
                    ),
                ));
            }
            "lord-is-with-us" => {
                let pool = c.pool.unwrap_or_default();
                let t = unit.map(type_of);
                pool_use = match t {
                    Some(t) if pool[t] > 0 => Some(t),
                    _ if pool[3] > 0 => Some(3),
                    _ => {
                        return Err(reject(
                            "card-limit",
                            Some("unit"),
                            m(
                                "ecw.reject.no-symbol-left",
                                &[
                                    ("foot", pool[0].to_string()),
                                    ("horse", pool[1].to_string()),
                                    ("artillery", pool[2].to_string()),
                                    ("choice", pool[3].to_string()),
                                ],
                            ),
                        ));
                    }
                };
                card_bonus = 1;
            }
            _ => too_many(1, "ecw.what-orders.one-unit")?,
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
    let named = named
        .into_iter()
        .reduce(|a, b| m("ecw.order.with", &[("a", a), ("b", b)]))
        .unwrap_or_default();
    let msg = match sec {
        Some(x) => m(
            "ecw.order.ordered-in",
            &[("unit", named), ("section", x.term())],
        ),
        None => m("ecw.order.ordered", &[("unit", named)]),
    };
    r.step(k("ecw.step.order"), msg.clone());
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
        .ok_or_else(|| reject("no-card", None, k("ecw.reject.no-card")).not_now())?;
    let Some(pool) = c.rally else {
        return Err(reject(
            "not-rallye",
            Some("action"),
            m(
                "ecw.reject.rally-only",
                &[(
                    "card",
                    command_card("rallye").map_or(String::new(), |c| c.title()),
                )],
            ),
        ));
    };
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
    let t = type_of(u);
    if pool[t] == 0 {
        return Err(reject(
            "no-symbol",
            Some("unit"),
            m(
                "ecw.reject.no-symbol",
                &[("symbol", term(["foot", "horse", "artillery"][t]))],
            ),
        ));
    }
    if u.blocks >= u.start_blocks {
        return Err(reject(
            "full-strength",
            Some("unit"),
            m(
                "ecw.reject.full-strength",
                &[
                    ("unit", u.name.clone()),
                    ("count", u.start_blocks.to_string()),
                ],
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
    let card = command_card("rallye").map_or(String::new(), |c| c.title());
    let msg = m(
        "ecw.rally.regains",
        &[("unit", name), ("card", card.clone())],
    );
    r.step(card, msg.clone());
    r.say(msg);
    Ok(done(r))
}
