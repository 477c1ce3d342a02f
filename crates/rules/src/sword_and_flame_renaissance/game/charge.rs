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
            "take the fire morale tests (step 4) before the charges",
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
                    format!("{field}: no unit \"{id}\" on the table"),
                )
            })
    };
    let a = get(charger, "charger")?;
    let b = get(target, "target")?;
    if a.side == b.side {
        return Err(reject("own-side", Some("target"), "target: an enemy unit"));
    }
    if a.charged {
        return Err(reject(
            "already-charged",
            Some("charger"),
            "charger: has charged this turn (decision 62)",
        ));
    }
    if matches!(a.status, Status::Shaken | Status::Routed) {
        return Err(reject("cannot-charge", Some("charger"), "charger: shaken and routed units may not move, so may not charge (001, SHAKEN UNITS; ROUTED UNITS)"));
    }
    let ta = tables::troop(&a.troop)
        .ok_or_else(|| reject("unknown-type", Some("charger"), "charger: unknown type"))?;
    let tb = tables::troop(&b.troop)
        .ok_or_else(|| reject("unknown-type", Some("target"), "target: unknown type"))?;
    if matches!(ta.kind, tables::Kind::Gun | tables::Kind::Train) || a.order == Order::Skirmish {
        return Err(reject(
            "cannot-charge",
            Some("charger"),
            "charger: guns, the train and skirmishers do not charge into close combat",
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
        acc.facets = vec![("charge goes in".into(), if pass { "yes" } else { "no" }.into())];
        if !pass {
            acc.summary.push(format!("{} fails To Close: shaken, falls back a normal move (decision 9)", a2.name));
            let shaken = UnitState { status: Status::Shaken, ..a2.clone() };
            acc.effects.push(Effect::Unit(shaken.clone()));
            return fall_back(acc, &shaken, "falls back");
        }
        if let Some(ev) = evasion.clone() {
            return ev.map(move |o| {
                let mut acc = acc.clone();
                acc.steps.extend(o.steps);
                acc.summary.extend(o.summary);
                acc.facets.extend(o.facets);
                acc.effects.extend(o.effects);
                acc
            });
        }
        if instant {
            acc.summary.push(format!("{} is destroyed: routed units, skirmishers that do not evade and gun crews do not stand (001, ROUTED UNITS; ORDER; ADDITIONAL NOTES)", b2.name));
            acc.effects.push(Effect::Unit(UnitState { status: Status::Gone, ..b2.clone() }));
            acc.facets.push(("target".into(), "destroyed".into()));
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
                    acc.summary.push(format!("{} fails To Stand and routs", b4.name));
                    acc.facets.push(("target".into(), "routs".into()));
                    return rout_unit(acc, b4.clone(), turn);
                }
                acc.facets.push(("target".into(), "stands".into()));
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
                        let key = format!("fight:{}:{}:{}:{}", a6.figures, a6.leaders, b6.figures, b6.leaders);
                        Plan::memo(key, move || {
                            let (a7, b7, acc) = (a6.clone(), b6.clone(), acc.clone());
                            let base = fight.clone();
                            match (fight.0)(&a7, &b7) {
                                Ok(c) => c.and_then(move |o| {
                                    after_combat(acc.clone(), o, (a7.clone(), b7.clone()), (rear, breaker_is_a), (turn, th), &base.1)
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
                let hits = get("hits").min(t.figures);
                let leaders_hit = get("officers hit").min(t.leaders);
                t.figures -= hits;
                t.leaders = (t.leaders - leaders_hit).min(t.figures);
                if t.figures == 0 {
                    t.status = Status::Gone;
                }
                let name = t.name.clone();
                v.acc = v.acc.clone().with(o);
                v.acc.summary.pop();
                v.acc
                    .summary
                    .push(format!("pistols as the charge closes: {name} loses {hits}"));
                v
            }),
        )
    }
    let mut plan = Plan::Done(start);
    if pistols(b) && mounted(a) && tables::troop(&b.troop).is_some_and(|t| t.id == "reiters") {
        let class = default_class(a);
        plan = plan.and_then(move |v: Volleyed| {
            tercio_core::plan::dice(1, 4, "Reiters' ranks D4").and_then(move |f| {
                let ranks = f[0];
                let firers = (ranks * REITER_RANK).min(v.b.figures);
                let mut v = v.clone();
                v.acc.steps.push(Step {
                    title: "Reiters charged by cavalry: a D4 for the ranks that fire before the close combat [001, FIRE, note on Reiters; decision 37]".into(),
                    dice: vec![tercio_core::RolledDie {
                        label: "Reiters' ranks D4".into(),
                        sides: 4,
                        face: ranks,
                    }],
                    modifiers: Vec::new(),
                    totals: vec![("figures firing".into(), i32::from(firers))],
                    result: format!("{ranks} rank(s): {firers} figure(s) fire"),
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

/// The rules of evasion (001, EVASION): who may evade whom.
pub(super) fn may_evade(charger: &UnitState, evader: &UnitState) -> Result<(), String> {
    let (Some(ta), Some(tb)) = (tables::troop(&charger.troop), tables::troop(&evader.troop)) else {
        return Err("unknown troop type".into());
    };
    let mounted = |u: &UnitState, t: &tables::Troop| t.kind.mounted() && !u.dismounted;
    if matches!(tb.kind, tables::Kind::Gun | tables::Kind::Train) {
        return Err("artillerists and train drivers may never evade".into());
    }
    if evader.status == Status::Routed {
        return Err("routed units may not move".into());
    }
    if mounted(evader, tb) {
        if mounted(charger, ta) {
            let dice = |u: &UnitState, t: &tables::Troop| tables::movement_dice(t, u.order);
            if dice(charger, ta) >= dice(evader, tb) {
                return Err("mounted troops evade only foot or slower mounted troops (decision 38: fewer movement dice)".into());
            }
        }
        return Ok(());
    }
    if mounted(charger, ta) {
        return Err("infantry may not evade cavalry".into());
    }
    if evader.order == Order::Closed {
        return Err("only open-order and skirmishing foot evade".into());
    }
    if charger.order == Order::Skirmish {
        return Err("foot evades open- or closed-order foot".into());
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
            format!("target_evades: {m} (001, EVASION)"),
        )
    })?;
    if touched > evader.figures {
        return Err(reject(
            "too-many",
            Some("touched"),
            format!("touched: {} has {} figures", evader.name, evader.figures),
        ));
    }
    let (troop, order) = moving_as(evader);
    let mv = open_move(troop, order);
    let dice = resolve::plan(&resolve::Request::Move(mv), &th)?;
    let ev = evader.clone();
    let run = move |acc: Acc, shaken: bool| {
        let ev = ev.clone();
        dice.clone().map(move |o| {
            let inches: u32 = o
                .facets
                .iter()
                .find(|(k, _)| k == "inches")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let mut acc = acc.clone().with(o);
            acc.summary.pop();
            let dispersed = room.is_some_and(|r| inches > u32::from(r));
            if dispersed {
                acc.summary.push(format!(
                    "{} evades {inches}\" but has only {}\" of room: dispersed and removed (001, EVASION)",
                    ev.name,
                    room.unwrap_or(0)
                ));
                acc.facets.push(("evasion".into(), "dispersed".into()));
                acc.effects.push(Effect::Unit(UnitState {
                    status: Status::Gone,
                    moved: true,
                    ..ev.clone()
                }));
                return acc;
            }
            let figures = ev.figures - touched;
            acc.summary.push(format!(
                "{} evades {inches}\"{}{}",
                ev.name,
                if shaken { ", shaken" } else { "" },
                if touched > 0 {
                    format!("; {touched} figure(s) still touched are destroyed")
                } else {
                    String::new()
                }
            ));
            acc.facets.push(("evasion".into(), "evades".into()));
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
            acc.summary.push(format!(
                "{} has moved already and fails To Stand: routed",
                ev.name
            ));
            acc.facets.push(("evasion".into(), "routs".into()));
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
    let a_wins = o.facets.iter().any(|(k, v)| k == "winner" && v == "A");
    let broke_off = o
        .facets
        .iter()
        .find(|(k, _)| k == "break off")
        .map(|(_, v)| v.clone());
    let (la, lb) = (get("A figures lost"), get("B figures lost"));
    let down: Vec<String> = o
        .facets
        .iter()
        .filter(|(k, v)| k.ends_with(" field officer") && v == "down")
        .map(|(k, _)| k.trim_end_matches(" field officer").to_string())
        .collect();
    let mut o = o;
    // The combat's A and B are the charger and the target.
    for f in &mut o.facets {
        if let Some(rest) = f.0.strip_prefix("A ") {
            f.0 = format!("charger {rest}");
        } else if let Some(rest) = f.0.strip_prefix("B ") {
            f.0 = format!("target {rest}");
        }
    }
    let mut acc = acc.with(o);
    acc.summary.pop();
    // The combat's own "winner" (A, B) is named again below by the units' parts in the charge.
    acc.facets.retain(|(k, _)| k != "winner");
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
        acc.facets.push(("winner".into(), "broke off".into()));
        acc.summary.push(format!(
            "{} breaks off; losses {} {la}, {} {lb}",
            breaker.name, a.name, b.name
        ));
        if !breaker.on_table() {
            return Plan::Done(acc);
        }
        if how == "retires shaken" {
            acc.summary.push(format!("{} is shaken", breaker.name));
            let shaken = UnitState {
                status: Status::Shaken,
                ..breaker
            };
            acc.effects.push(Effect::Unit(shaken.clone()));
            return fall_back(acc, &shaken, "retires");
        }
        return rout_unit(acc, breaker, turn);
    }
    acc.facets.push((
        "winner".into(),
        if a_wins { "charger" } else { "target" }.into(),
    ));
    let loser = if a_wins { b2 } else { a2 };
    acc.summary.push(format!(
        "{} wins the close combat; losses {} {la}, {} {lb}",
        if a_wins { &a.name } else { &b.name },
        a.name,
        b.name
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
                "loser".into(),
                if holds { "falls back shaken" } else { "routs" }.into(),
            ));
            if holds {
                acc.summary.push(format!("{} is shaken", loser.name));
                let shaken = UnitState {
                    status: Status::Shaken,
                    ..loser.clone()
                };
                acc.effects.push(Effect::Unit(shaken.clone()));
                fall_back(acc, &shaken, "falls back")
            } else {
                rout_unit(acc, loser.clone(), turn)
            }
        }),
        Err(_) => Plan::Done(acc),
    }
}
