//! Charges (steps 5-7): To Close, To Stand, reiters' volleys as the charge closes, evasion,
//! the close combat and the loser's test.

use super::*;

pub(super) fn lighter_cavalry(id: &str) -> bool {
    matches!(
        id,
        "reiters" | "light-horse-arquebus" | "light-horse-crossbow" | "light-horse-spear"
    )
}

/// A charge, steps 5-7 (design 5.4 tests 4-6, section 6): the charger tests To Close (fail:
/// shaken, no contact); a routed target is destroyed, skirmishers and gun crews too; else the
/// target tests To Stand (fail: routs); then the whole close combat, and the loser tests Stand and
/// Fight (pass: falls back shaken; fail: routs). Each stage's odds are worked out once.
pub(super) fn charge(
    st: &State,
    th: Thresholds,
    (charger, target): (&str, &str),
    [rear, across_wall, climbing, square, broken_ground]: [bool; 5],
    evade: Option<(Option<u8>, u8)>,
    breaker: Option<Breaker>,
) -> Result<Plan<Out>, Rejection> {
    let breaker_is_a = breaker == Some(Breaker::Charger);
    let break_off = breaker.map(|b| resolve::BreakOff {
        side: if b == Breaker::Charger {
            resolve::BreakSide::A
        } else {
            resolve::BreakSide::B
        },
        after: None,
    });
    need_phase(st, Phase::Melee, "charge")?;
    if !st.fire_morale_done {
        return Err(reject(
            "fire-morale-first",
            None,
            k("refuse.fire-morale-first"),
        ));
    }
    let get = |id: &str, field: &str| {
        st.units
            .get(id)
            .filter(|u| u.on_table())
            .cloned()
            .ok_or_else(|| {
                reject(
                    "unknown-unit",
                    Some(field),
                    msg(
                        "refuse.unit-not-on-table",
                        &[
                            ("field", field.to_string()),
                            ("unit", crate::text::quoted(id)),
                        ],
                    ),
                )
            })
    };
    let a = get(charger, "charger")?;
    let b = get(target, "target")?;
    if a.side == b.side {
        return Err(reject("own-side", Some("target"), k("refuse.enemy-target")));
    }
    if a.charged {
        return Err(reject(
            "already-charged",
            Some("charger"),
            k("refuse.already-charged"),
        ));
    }
    if matches!(a.status, Status::Shaken | Status::Routed) {
        return Err(reject(
            "cannot-charge",
            Some("charger"),
            k("refuse.shaken-no-charge"),
        ));
    }
    let unknown = |field: &str| {
        reject(
            "unknown-type",
            Some(field),
            msg("refuse.unknown-type", &[("field", field.to_string())]),
        )
    };
    let ta = tables::troop(&a.troop).ok_or_else(|| unknown("charger"))?;
    let tb = tables::troop(&b.troop).ok_or_else(|| unknown("target"))?;
    if matches!(ta.kind, tables::Kind::Gun | tables::Kind::Train) || a.order == Order::Skirmish {
        return Err(reject(
            "cannot-charge",
            Some("charger"),
            k("refuse.does-not-charge"),
        ));
    }
    let mut close_req = morale_req(Test::ToClose, &a);
    close_req.gendarmes_vs_lighter_cavalry = ta.id == "gendarmes" && lighter_cavalry(tb.id);
    close_req.swiss_vs_pikes = a.swiss && ta.id == "pikemen" && tb.id == "pikemen";
    let to_close = resolve::plan(&resolve::Request::Morale(close_req), &th)?;
    let stand_req = morale_req(Test::ToStand, &b);
    let to_stand = resolve::plan(&resolve::Request::Morale(stand_req), &th)?;
    let version = if st.company_combat {
        resolve::Version::Company
    } else {
        resolve::Version::Figure
    };
    let side = move |u: &UnitState, t: &tables::Troop, attacked_in_rear: bool, square: bool| {
        resolve::CombatSide {
            troop: u.troop.clone(),
            order: Some(u.order),
            figures: u.figures,
            leaders: u.leaders.min(u.figures),
            field_officer: u.field_officer,
            shaken: u.status == Status::Shaken,
            lance: !u.lance_used && matches!(t.id, "gendarmes" | "light-horse-spear"),
            climbing: false,
            across_wall: false,
            attacked_in_rear,
            square,
            broken_ground: broken_ground && t.id == "pikemen",
            spent: u.spent(),
        }
    };
    // The combat as the two units stand when it begins (after any pistol volleys).
    let fight = move |a: &UnitState, b: &UnitState| {
        let mut sa = side(a, ta, false, false);
        sa.climbing = climbing;
        sa.across_wall = across_wall;
        let sb = side(b, tb, rear && !square, square && tb.id == "pikemen");
        resolve::plan(
            &resolve::Request::CloseCombat(resolve::CombatRequest {
                version,
                a: sa,
                b: sb,
                break_off: break_off.clone(),
            }),
            &th,
        )
    };
    // Routed units, skirmishers and gun crews (and the train) never fight: once the charge goes
    // in they are destroyed (001, ROUTED UNITS; ORDER, "Skirmishers in close combat are
    // destroyed."; ADDITIONAL NOTES; decisions 32 and 65).
    let instant = b.status == Status::Routed
        || b.order == Order::Skirmish
        || matches!(tb.kind, tables::Kind::Gun | tables::Kind::Train);
    // Checked now, so a bad combat is refused before anything is rolled; there is none with a
    // target that does not fight.
    if !instant {
        fight(&a, &b)?;
    }
    // With the state the charge starts from, for the field officers a combat may take.
    let fight = std::rc::Rc::new((fight, st.clone()));
    let volleys = pistol_volleys(&a, &b, th)?;
    let turn = st.turn;
    let evasion = match evade {
        None => None,
        Some((room, touched)) => Some(evasion(&a, &b, (room, touched), th, st.turn)?),
    };
    let (a2, b2) = (a.clone(), b.clone());
    let plan = to_close.and_then(move |o| {
        let pass = passed(&o);
        let mut acc = Acc::default().named(&a2.name, o);
        acc.summary.pop();
        acc.facets = vec![(facet("charge-goes-in"), yes_no(pass))];
        if !pass {
            acc.summary
                .push(msg("result.fails-to-close", &[("unit", a2.name.clone())]));
            let shaken = UnitState {
                status: Status::Shaken,
                ..a2.clone()
            };
            acc.effects.push(Effect::Unit(shaken.clone()));
            return fall_back(acc, &shaken, "fall.falls-back");
        }
        if let Some(ev) = evasion.clone() {
            return ev.map(move |o| acc.clone().then(o));
        }
        if instant {
            acc.summary
                .push(msg("result.destroyed", &[("unit", b2.name.clone())]));
            acc.effects.push(Effect::Unit(UnitState {
                status: Status::Gone,
                ..b2.clone()
            }));
            acc.facets.push((facet("target"), k("value.destroyed")));
            return Plan::Done(acc);
        }
        let (b3, to_stand) = (b2.clone(), to_stand.clone());
        let (fight, volleys) = (fight.clone(), volleys.clone());
        // Everything after a passed To Close is the same whatever its dice: worked out once.
        Plan::memo("charge-in", move || {
            let b4 = b3.clone();
            let (fight, volleys) = (fight.clone(), volleys.clone());
            let acc = acc.clone();
            to_stand.clone().and_then(move |o| {
                let stands = passed(&o);
                let mut acc = acc.clone().named(&b4.name, o);
                acc.summary.pop();
                if !stands {
                    acc.summary
                        .push(msg("result.fails-to-stand", &[("unit", b4.name.clone())]));
                    acc.facets.push((facet("target"), k("value.routs")));
                    return rout_unit(acc, b4.clone(), turn);
                }
                acc.facets.push((facet("target"), k("value.stands")));
                let (fight, volleys) = (fight.clone(), volleys.clone());
                Plan::memo("stands", move || {
                    let fight = fight.clone();
                    let acc = acc.clone();
                    volleys.clone().and_then(move |v| {
                        let mut acc = acc.clone();
                        acc.steps.extend(v.acc.steps);
                        acc.summary.extend(v.acc.summary);
                        let (a6, b6) = (v.a.clone(), v.b.clone());
                        if !a6.on_table() || !b6.on_table() {
                            acc.effects.push(Effect::Unit(a6));
                            acc.effects.push(Effect::Unit(b6));
                            return Plan::Done(acc);
                        }
                        let fight = fight.clone();
                        // The combat depends only on the figures and leaders left: once each.
                        let key = format!(
                            "fight:{}:{}:{}:{}",
                            a6.figures, a6.leaders, b6.figures, b6.leaders
                        );
                        Plan::memo(key, move || {
                            let (a7, b7, acc) = (a6.clone(), b6.clone(), acc.clone());
                            let base = fight.clone();
                            match (fight.0)(&a7, &b7) {
                                Ok(c) => c.and_then(move |o| {
                                    after_combat(
                                        acc.clone(),
                                        o,
                                        (a7.clone(), b7.clone()),
                                        (rear, breaker_is_a),
                                        (turn, th),
                                        &base.1,
                                    )
                                }),
                                Err(r) => {
                                    let mut acc = acc.clone();
                                    acc.summary.push(r.message);
                                    Plan::Done(acc)
                                }
                            }
                        })
                    })
                })
            })
        })
    });
    let charger_id = a.id.clone();
    Ok(plan.map(move |mut acc| {
        // Whatever came of it, the charger has had its charge this turn: its latest record is
        // marked.
        let mut latest = None;
        for e in acc.effects.iter_mut().rev() {
            if let Effect::Unit(u) = e {
                if u.id == charger_id {
                    latest = Some(u);
                    break;
                }
            }
        }
        match latest {
            Some(u) => u.charged = true,
            None => acc.effects.push(Effect::Unit(UnitState {
                charged: true,
                ..a.clone()
            })),
        }
        acc.finish("charge")
    }))
}

/// The two units as they come out of the pistol volleys fired as a charge closes.
#[derive(Clone)]
pub(super) struct Volleyed {
    acc: Acc,
    a: UnitState,
    b: UnitState,
}

/// Figures in a rank of reiters: one company of three (001, TROOP TYPES: "4 companies of 3 men
/// each", "may shoot 4 ranks deep"; decision 37).
pub(super) const REITER_RANK: u8 = 3;

/// Pistols as a charge closes (001, FIRE, notes after the ranges; decision 37): reiters charged
/// by other cavalry roll a D4 for the ranks that fire; a charging unit with pistols fires its
/// front rank once as it closes. Neither is possible after a double fire has emptied the pistols.
/// Their casualties bring no morale test that turn; aces take leaders.
pub(super) fn pistol_volleys(
    a: &UnitState,
    b: &UnitState,
    th: Thresholds,
) -> Result<Plan<Volleyed>, Rejection> {
    let pistols = |u: &UnitState| {
        weapon_of(u).is_some_and(|(w, _)| w == tables::Weapon::Pistol)
            && !u.pistols_empty
            && u.status != Status::Routed
    };
    let mounted = |u: &UnitState| tables::troop(&u.troop).is_some_and(|t| t.kind.mounted());
    let start = Volleyed {
        acc: Acc::default(),
        a: a.clone(),
        b: b.clone(),
    };
    // Hits of one volley, taken off the unit fired at.
    fn volley(
        v: Volleyed,
        at_charger: bool,
        firers: u8,
        class: u8,
        th: Thresholds,
    ) -> Result<Plan<Volleyed>, Rejection> {
        let target = if at_charger { &v.a } else { &v.b };
        let req = resolve::FireRequest {
            weapon: tables::Weapon::Pistol,
            range: None,
            target_class: class,
            firers,
            shaken: false,
            light_rain: false,
            double: false,
            target_figures: Some(target.figures),
            // The volleys as a charge closes are part of the melee: kills (decision 56).
            wounded: false,
        };
        Ok(
            resolve::plan(&resolve::Request::Fire(req), &th)?.map(move |o| {
                let get = |k: &str| -> u8 {
                    o.facets
                        .iter()
                        .find(|(f, _)| f == k)
                        .and_then(|(_, x)| x.parse().ok())
                        .unwrap_or(0)
                };
                let mut v = v.clone();
                let t = if at_charger { &mut v.a } else { &mut v.b };
                let hits = get(&facet("hits")).min(t.figures);
                let leaders_hit = get(&facet("officers-hit")).min(t.leaders);
                t.figures -= hits;
                t.leaders = (t.leaders - leaders_hit).min(t.figures);
                if t.figures == 0 {
                    t.status = Status::Gone;
                }
                let name = t.name.clone();
                v.acc = v.acc.clone().with(o);
                v.acc.summary.pop();
                v.acc.summary.push(msg(
                    "result.pistols",
                    &[("unit", name), ("count", hits.to_string())],
                ));
                v
            }),
        )
    }
    let mut plan = Plan::Done(start);
    if pistols(b) && mounted(a) && tables::troop(&b.troop).is_some_and(|t| t.id == "reiters") {
        let class = default_class(a);
        plan = plan.and_then(move |v: Volleyed| {
            let label = k("die.reiter-ranks");
            tercio_core::plan::dice(1, 4, &label).and_then(move |f| {
                let ranks = f[0];
                let firers = (ranks * REITER_RANK).min(v.b.figures);
                let mut v = v.clone();
                v.acc.steps.push(Step {
                    title: k("title.reiter-ranks"),
                    dice: vec![tercio_core::RolledDie {
                        label: label.clone(),
                        sides: 4,
                        face: ranks,
                    }],
                    modifiers: Vec::new(),
                    totals: vec![(facet("figures-firing"), i32::from(firers))],
                    result: msg(
                        "result.reiter-ranks",
                        &[("ranks", ranks.to_string()), ("firers", firers.to_string())],
                    ),
                });
                let keep = v.clone();
                volley(v, true, firers, class, th).unwrap_or_else(|_| Plan::Done(keep))
            })
        });
    }
    if pistols(a) {
        let class = default_class(b);
        plan = plan.and_then(move |v: Volleyed| {
            let firers = REITER_RANK.min(v.a.figures);
            if firers == 0 {
                return Plan::Done(v);
            }
            let keep = v.clone();
            volley(v, false, firers, class, th).unwrap_or_else(|_| Plan::Done(keep))
        });
    }
    Ok(plan)
}

/// The rules of evasion (001, EVASION): who may evade whom, and when: a unit that has fired
/// this turn stood its ground ("Evading units do not fire"; decision 68).
pub(super) fn may_evade(charger: &UnitState, evader: &UnitState) -> Result<(), String> {
    may_evade_as(charger, evader)?;
    if evader.fired {
        return Err(msg("evade.fired", &[("unit", evader.name.clone())]));
    }
    Ok(())
}

/// Whether the troop types and orders allow the evasion (001, EVASION).
fn may_evade_as(charger: &UnitState, evader: &UnitState) -> Result<(), String> {
    let (Some(ta), Some(tb)) = (tables::troop(&charger.troop), tables::troop(&evader.troop)) else {
        return Err(k("evade.unknown-type"));
    };
    let mounted = |u: &UnitState, t: &tables::Troop| t.kind.mounted() && !u.dismounted;
    if matches!(tb.kind, tables::Kind::Gun | tables::Kind::Train) {
        return Err(k("evade.guns"));
    }
    if evader.status == Status::Routed {
        return Err(k("evade.routed"));
    }
    if mounted(evader, tb) {
        if mounted(charger, ta) {
            let dice = |u: &UnitState, t: &tables::Troop| tables::movement_dice(t, u.order);
            if dice(charger, ta) >= dice(evader, tb) {
                return Err(k("evade.mounted"));
            }
        }
        return Ok(());
    }
    if mounted(charger, ta) {
        return Err(k("evade.foot-from-horse"));
    }
    if evader.order == Order::Closed {
        return Err(k("evade.closed"));
    }
    if charger.order == Order::Skirmish {
        return Err(k("evade.skirmishers"));
    }
    Ok(())
}

/// An evasion in answer to a charge that has passed To Close: a unit that has already moved tests
/// To Stand first (pass: evades and is shaken; fail: routed); the evader rolls its movement dice;
/// if it has not room for the whole roll it is dispersed; figures the charger still touches are
/// destroyed (001, EVASION). Evading takes the unit's move for the turn.
pub(super) fn evasion(
    charger: &UnitState,
    evader: &UnitState,
    (room, touched): (Option<u8>, u8),
    th: Thresholds,
    turn: u32,
) -> Result<Plan<Acc>, Rejection> {
    may_evade(charger, evader).map_err(|m| {
        reject(
            "cannot-evade",
            Some("target_evades"),
            msg("refuse.cannot-evade", &[("why", m)]),
        )
    })?;
    if touched > evader.figures {
        return Err(reject(
            "too-many",
            Some("touched"),
            msg(
                "refuse.too-many-touched",
                &[
                    ("unit", evader.name.clone()),
                    ("count", evader.figures.to_string()),
                ],
            ),
        ));
    }
    let (troop, order) = moving_as(evader);
    let mv = open_move(troop, order);
    let dice = resolve::plan(&resolve::Request::Move(mv), &th)?;
    let ev = evader.clone();
    let run = move |acc: Acc, shaken: bool| {
        let ev = ev.clone();
        dice.clone().map(move |o| {
            let inches_facet = facet("inches");
            let inches: u32 = o
                .facets
                .iter()
                .find(|(f, _)| *f == inches_facet)
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let mut acc = acc.clone().with(o);
            acc.summary.pop();
            let dispersed = room.is_some_and(|r| inches > u32::from(r));
            if dispersed {
                acc.summary.push(msg(
                    "result.dispersed",
                    &[
                        ("unit", ev.name.clone()),
                        ("inches", inches.to_string()),
                        ("room", room.unwrap_or(0).to_string()),
                    ],
                ));
                acc.facets.push((facet("evasion"), k("value.dispersed")));
                acc.effects.push(Effect::Unit(UnitState {
                    status: Status::Gone,
                    moved: true,
                    ..ev.clone()
                }));
                return acc;
            }
            let figures = ev.figures - touched;
            acc.summary.push(msg(
                "result.evades",
                &[
                    ("unit", ev.name.clone()),
                    ("inches", inches.to_string()),
                    (
                        "shaken",
                        if shaken {
                            k("result.evades-shaken")
                        } else {
                            String::new()
                        },
                    ),
                    (
                        "touched",
                        if touched > 0 {
                            msg("result.evades-touched", &[("count", touched.to_string())])
                        } else {
                            String::new()
                        },
                    ),
                ],
            ));
            acc.facets.push((facet("evasion"), k("value.evades")));
            acc.effects.push(Effect::Unit(UnitState {
                figures,
                leaders: ev.leaders.min(figures),
                status: if figures == 0 {
                    Status::Gone
                } else if shaken {
                    Status::Shaken
                } else {
                    ev.status
                },
                moved: true,
                ..ev.clone()
            }));
            acc
        })
    };
    if !evader.moved {
        return Ok(run(Acc::default(), false));
    }
    let test = resolve::plan(
        &resolve::Request::Morale(morale_req(Test::ToStand, evader)),
        &th,
    )?;
    let ev = evader.clone();
    Ok(test.and_then(move |o| {
        let pass = passed(&o);
        let mut acc = Acc::default().with(o);
        acc.summary.pop();
        if pass {
            run(acc, true)
        } else {
            acc.summary.push(msg(
                "result.moved-fails-to-stand",
                &[("unit", ev.name.clone())],
            ));
            acc.facets.push((facet("evasion"), k("value.routs")));
            rout_unit(acc, ev.clone(), turn)
        }
    }))
}

/// After the close combat: losses to both units, lances spent, and the loser's Stand and Fight
/// (−2 if it was attacked in the rear): pass, falls back shaken; fail, routs.
pub(super) fn after_combat(
    acc: Acc,
    o: Outcome,
    (a, b): (UnitState, UnitState),
    (rear, breaker_is_a): (bool, bool),
    (turn, th): (u32, Thresholds),
    base: &State,
) -> Plan<Acc> {
    let get = |k: &str| -> u8 {
        o.facets
            .iter()
            .find(|(f, _)| f == k)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0)
    };
    let winner = facet("winner");
    let a_wins = o.facets.iter().any(|(f, v)| *f == winner && v == "A");
    let break_off = facet("break-off");
    let broke_off = o
        .facets
        .iter()
        .find(|(f, _)| *f == break_off)
        .map(|(_, v)| v.clone());
    let (la, lb) = (
        get(&resolve::side_facet("figures-lost", "A")),
        get(&resolve::side_facet("figures-lost", "B")),
    );
    let down_value = k("value.down");
    let down: Vec<String> = ["A", "B"]
        .into_iter()
        .filter(|side| {
            let officer = resolve::side_facet("field-officer", side);
            o.facets
                .iter()
                .any(|(f, v)| *f == officer && *v == down_value)
        })
        .map(str::to_string)
        .collect();
    let mut o = o;
    // The combat's A and B are the charger and the target.
    for f in &mut o.facets {
        for what in ["figures-lost", "field-officer"] {
            for (side, part) in [("A", "side.charger"), ("B", "side.target")] {
                if f.0 == resolve::side_facet(what, side) {
                    f.0 = resolve::side_facet(what, &k(part));
                }
            }
        }
    }
    let mut acc = acc.with(o);
    acc.summary.pop();
    // The combat's own "winner" (A, B) is named again below by the units' parts in the charge.
    acc.facets.retain(|(f, _)| *f != winner);
    let hurt = |u: &UnitState, lost: u8| {
        let figures = u.figures.saturating_sub(lost);
        UnitState {
            figures,
            // The leaders fight last: they are the last to fall.
            leaders: u.leaders.min(figures),
            status: if figures == 0 { Status::Gone } else { u.status },
            lance_used: true,
            ..u.clone()
        }
    };
    let (mut a2, mut b2) = (hurt(&a, la), hurt(&b, lb));
    // A field officer who fell in his bout (decision 49): down, his unit without his +1.
    for (side, u) in [("A", &mut a2), ("B", &mut b2)] {
        let fell = down.iter().any(|d| d == side);
        let officer = base
            .officers
            .values()
            .find(|o| !o.down && o.attached.as_deref() == Some(u.id.as_str()));
        if let (true, Some(o)) = (fell, officer) {
            let mut now = base.clone();
            for e in &acc.effects {
                apply(&mut now, e);
            }
            now.units.insert(u.id.clone(), u.clone());
            let before = acc.effects.len();
            officer_falls(&now, &mut acc, o);
            // The unit's own record is the one pushed below; its brigade's others keep theirs.
            let mut i = before;
            while i < acc.effects.len() {
                if matches!(&acc.effects[i], Effect::Unit(x) if x.id == u.id) {
                    acc.effects.remove(i);
                } else {
                    i += 1;
                }
            }
            u.field_officer = false;
            if u.brigade.as_deref() == Some(o.id.as_str()) {
                u.brigade = None;
            }
        }
    }
    acc.effects.push(Effect::Unit(a2.clone()));
    acc.effects.push(Effect::Unit(b2.clone()));
    if let Some(how) = broke_off {
        // Broken off (001, BREAKING OFF): the breaker's test is in the combat's outcome; a pass
        // retires it shaken, a fail routs it with the rout's D4 casualties (decision 28).
        let breaker = if breaker_is_a { a2 } else { b2 };
        acc.facets.push((winner, k("value.broke-off")));
        acc.summary.push(msg(
            "result.breaks-off",
            &[
                ("unit", breaker.name.clone()),
                ("a", a.name.clone()),
                ("la", la.to_string()),
                ("b", b.name.clone()),
                ("lb", lb.to_string()),
            ],
        ));
        if !breaker.on_table() {
            return Plan::Done(acc);
        }
        if how == k("value.retires-shaken") {
            acc.summary
                .push(msg("result.is-shaken", &[("unit", breaker.name.clone())]));
            let shaken = UnitState {
                status: Status::Shaken,
                ..breaker
            };
            acc.effects.push(Effect::Unit(shaken.clone()));
            return fall_back(acc, &shaken, "fall.retires");
        }
        return rout_unit(acc, breaker, turn);
    }
    acc.facets.push((
        winner,
        k(if a_wins {
            "side.charger"
        } else {
            "side.target"
        }),
    ));
    let loser = if a_wins { b2 } else { a2 };
    acc.summary.push(msg(
        "result.wins-combat",
        &[
            ("unit", if a_wins { &a.name } else { &b.name }.clone()),
            ("a", a.name.clone()),
            ("la", la.to_string()),
            ("b", b.name.clone()),
            ("lb", lb.to_string()),
        ],
    ));
    if !loser.on_table() {
        return Plan::Done(acc);
    }
    let mut req = morale_req(Test::StandAndFight, &loser);
    req.attacked_in_rear = rear && loser.id == b.id;
    match resolve::plan(&resolve::Request::Morale(req), &th) {
        Ok(p) => p.and_then(move |o| {
            let holds = passed(&o);
            let mut acc = acc.clone().named(&loser.name, o);
            acc.summary.pop();
            acc.facets.push((
                facet("loser"),
                k(if holds {
                    "value.falls-back-shaken"
                } else {
                    "value.routs"
                }),
            ));
            if holds {
                acc.summary
                    .push(msg("result.is-shaken", &[("unit", loser.name.clone())]));
                let shaken = UnitState {
                    status: Status::Shaken,
                    ..loser.clone()
                };
                acc.effects.push(Effect::Unit(shaken.clone()));
                fall_back(acc, &shaken, "fall.falls-back")
            } else {
                rout_unit(acc, loser.clone(), turn)
            }
        }),
        Err(_) => Plan::Done(acc),
    }
}
