//! Fire on a unit's card, with casualty cards and an officer in the cone, and the fire morale
//! tests of step 4.

use super::*;

/// What a fire action names.
pub struct FireOrder<'a> {
    pub unit: &'a str,
    pub target: &'a str,
    pub range: Option<tables::Range>,
    pub target_class: Option<u8>,
    pub firers: Option<u8>,
    pub double: bool,
    pub officer: Option<&'a str>,
}

/// The missile weapon a unit fires and how many figures carry it: its own, or its attached shot
/// sub-units' (five figures each, decision 30).
pub fn weapon_of(u: &UnitState) -> Option<(tables::Weapon, u8)> {
    if let Some(w) = tables::troop(&u.troop).and_then(|t| t.weapon) {
        return Some((w, u.figures));
    }
    let shot: Vec<tables::Weapon> = u
        .sub_units
        .iter()
        .filter_map(|s| tables::troop(s).and_then(|t| t.weapon))
        .collect();
    let w = *shot.first()?;
    let carriers = shot.iter().filter(|&&x| x == w).count() as u8 * 5;
    Some((w, carriers.min(u.figures)))
}

/// The target class from the target's order (design 2.4, decision 33): closed-order foot I, open
/// order and all horse II, skirmishers and gun crews III. Cover is the game master's to add.
pub fn default_class(t: &UnitState) -> u8 {
    let kind = tables::troop(&t.troop).map(|x| x.kind);
    match (t.order, kind) {
        (_, Some(tables::Kind::Gun | tables::Kind::Train)) | (Order::Skirmish, _) => 3,
        (Order::Closed, Some(tables::Kind::Foot)) => 1,
        _ => 2,
    }
}

/// A fire card: the unit fires at an enemy unit; each hit draws a casualty card (an ace takes a
/// field officer named in the cone of fire, then the target's leaders while it has any, decision
/// 15); reload markers go on (decision 11; a double pistol fire empties the pistols instead,
/// decision 12).
pub(super) fn fire(st: &State, th: Thresholds, f: FireOrder<'_>) -> Result<Plan<Out>, Rejection> {
    let _ = th;
    need_phase(st, Phase::Fire, "fire")?;
    let u = activated(st, f.unit, "unit")?.clone();
    if !can_fire(&u) {
        return Err(reject("cannot-fire", Some("unit"), k("refuse.cannot-fire")));
    }
    let t = st
        .units
        .get(f.target)
        .filter(|t| t.on_table())
        .ok_or_else(|| {
            reject(
                "unknown-target",
                Some("target"),
                msg(
                    "refuse.unit-not-on-table",
                    &[
                        ("field", "target".into()),
                        ("unit", crate::text::quoted(f.target)),
                    ],
                ),
            )
        })?
        .clone();
    if t.side == u.side {
        return Err(reject("own-side", Some("target"), k("refuse.enemy-target")));
    }
    let (weapon, carriers) =
        weapon_of(&u).ok_or_else(|| reject("cannot-fire", Some("unit"), k("refuse.no-weapon")))?;
    let firers = f.firers.unwrap_or(carriers);
    if firers == 0 || firers > carriers {
        return Err(reject(
            "too-many-firers",
            Some("firers"),
            msg(
                "refuse.too-many-firers",
                &[("unit", u.name.clone()), ("count", carriers.to_string())],
            ),
        ));
    }
    let officer = match f.officer {
        None => None,
        Some(id) => {
            let o = officer_of(st, id).map_err(|mut r| {
                r.field = Some("officer".into());
                r
            })?;
            if o.side != t.side {
                return Err(reject(
                    "own-officer",
                    Some("officer"),
                    k("refuse.officer-target-side"),
                ));
            }
            Some(o)
        }
    };
    if f.range.is_none() && !matches!(weapon, tables::Weapon::Pistol | tables::Weapon::Crossbow) {
        return Err(reject(
            "missing-range",
            Some("range"),
            k("refuse.missing-range"),
        ));
    }
    let horse = tables::troop(&t.troop).is_some_and(|x| x.kind.mounted()) && !t.dismounted;
    if let Some(c) = f.target_class.filter(|_| horse) {
        let allowed = if t.order == Order::Skirmish { 3 } else { 2 };
        if c != allowed {
            return Err(reject(
                "bad-target-class",
                Some("target_class"),
                msg(
                    "refuse.horse-class",
                    &[
                        ("order", resolve::order_name(t.order)),
                        (
                            "class",
                            ["I", "II", "III", "IV"][usize::from(allowed - 1)].into(),
                        ),
                    ],
                ),
            ));
        }
    }
    let req = resolve::FireRequest {
        weapon,
        range: f.range,
        target_class: f.target_class.unwrap_or_else(|| default_class(&t)),
        firers,
        shaken: u.status == Status::Shaken,
        light_rain: st.light_rain,
        double: f.double,
        target_figures: Some(t.figures),
        wounded: st.options.wounded > 0,
    };
    let p = resolve::plan(&resolve::Request::Fire(req), &th)?;
    let double = f.double;
    let wounded_rule = st.options.wounded;
    let st2 = st.clone();
    Ok(p.map(move |o| {
        let count = |k: &str| -> u8 {
            o.facets
                .iter()
                .find(|(f, _)| f == k)
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0)
        };
        let (hits, aces) = (
            count(&facet("hits")).min(t.figures),
            count(&facet("officers-hit")),
        );
        let wounds = o.facets.clone();
        let mut acc = Acc::default().with(o);
        let officer_hit = officer.is_some() && aces > 0;
        if let Some(first) = acc.summary.first_mut() {
            let figures_lost = hits - u8::from(officer_hit);
            let (unit, target) = (("unit", u.name.clone()), ("target", t.name.clone()));
            *first = if hits == 0 {
                msg("result.fire-no-hits", &[unit, target])
            } else {
                let hurt = count_of(&wounds, &facet("wounded"));
                msg(
                    "result.fire-hits",
                    &[
                        unit,
                        target,
                        ("hits", hits.to_string()),
                        ("figures", figures_lost.to_string()),
                        (
                            "wounded",
                            if hurt > 0 {
                                msg("result.fire-wounded", &[("count", hurt.to_string())])
                            } else {
                                String::new()
                            },
                        ),
                        (
                            "officer",
                            match officer.as_ref().filter(|_| officer_hit) {
                                Some(o) => {
                                    msg("result.fire-officer", &[("officer", o.name.clone())])
                                }
                                None => String::new(),
                            },
                        ),
                    ],
                )
            };
        }
        // The first ace takes the field officer named in the cone of fire; the next ones the
        // target's leaders, who are figures of the unit (decision 31); an ace with no officer
        // left to hit takes a figure (decision 15).
        if let Some(off) = officer.as_ref().filter(|_| officer_hit) {
            officer_falls(&st2, &mut acc, off);
        }
        let leaders_hit = (aces - u8::from(officer_hit)).min(t.leaders);
        let figures = t.figures.saturating_sub(hits - u8::from(officer_hit));
        // The casualty cards as they fell on this unit: the figures it loses, its leaders among
        // them, and the field officer named in the cone, who is not one of its figures.
        let cards = [
            k(resolve::CASUALTY_CARDS),
            k(resolve::CASUALTY_CARDS_WOUNDED),
        ];
        if let Some(step) = acc.steps.iter_mut().find(|s| cards.contains(&s.title)) {
            let wounded = facet("wounded");
            let wounded_total = step.totals.iter().find(|(f, _)| *f == wounded).cloned();
            step.totals = vec![
                (facet("figures-removed"), i32::from(t.figures - figures)),
                (facet("leaders-among"), i32::from(leaders_hit)),
            ];
            if officer.is_some() {
                step.totals
                    .push((facet("field-officer-hit"), i32::from(officer_hit)));
            }
            step.totals.extend(wounded_total);
        }
        let now = acc
            .effects
            .iter()
            .rev()
            .find_map(|e| match e {
                Effect::Unit(x) if x.id == t.id => Some(x.clone()),
                _ => None,
            })
            .unwrap_or_else(|| t.clone());
        // Wounded and Dead: variant 1, the unit carries its wounded (1" less each); variant 2,
        // they set out for the rear in parties (design 8.3).
        let hurt = count_of(&wounds, &facet("wounded")).min(t.figures - figures);
        acc.effects.push(Effect::Unit(UnitState {
            figures,
            leaders: (t.leaders - leaders_hit).min(figures),
            fire_losses: t.fire_losses.saturating_add(t.figures - figures),
            status: if figures == 0 { Status::Gone } else { t.status },
            wounded: if wounded_rule == 1 && figures > 0 {
                now.wounded.saturating_add(hurt)
            } else {
                now.wounded
            },
            ..now
        }));
        if wounded_rule == 2 && hurt > 0 {
            let w = st2.wounded.get(&t.side).copied().unwrap_or_default();
            acc.effects.push(Effect::Wounded {
                side: t.side.clone(),
                wounded: Wounded {
                    marching: w.marching + u32::from(hurt),
                    ..w
                },
            });
        }
        acc.effects.push(Effect::Unit(UnitState {
            reload: if double {
                0
            } else {
                tables::reload_markers(weapon)
            },
            pistols_empty: double,
            fired: true,
            ..u.clone()
        }));
        acc.effects.push(Effect::Acted { unit: u.id.clone() });
        if leaders_hit > 0 {
            acc.summary.push(msg(
                "result.loses-leaders",
                &[("unit", t.name.clone()), ("count", leaders_hit.to_string())],
            ));
        }
        acc.finish("fire")
    }))
}

pub(super) fn count_of(facets: &[(String, String)], k: &str) -> u8 {
    facets
        .iter()
        .find(|(f, _)| f == k)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

/// Whether `u` takes the fire-morale test of step 4 as it stands ([`fire_morale`]).
fn tests_under_fire(u: &UnitState) -> bool {
    u.on_table()
        && u.fire_losses > 0
        && !matches!(
            tables::troop(&u.troop).map(|t| t.kind),
            Some(tables::Kind::Gun)
        )
        && (u.status == Status::Routed || u.lost_to_fire() * 4 >= u32::from(u.figures_start))
}

/// The fire-morale test `unit` takes at the end of the fire step as `st` stands (its losses to
/// fire so far), were nothing else to hit it, as the plan of its result's value key: `holds`,
/// `shaken`, `routs`, `leaves`, or `no-test` when it does not test. The same test
/// [`fire_morale`] rolls, so a fire's odds end with the target's morale (issue 43, item 3;
/// decision 69).
pub fn morale_after_fire(st: &State, th: Thresholds, unit: &str) -> Plan<&'static str> {
    let Some(u) = st.units.get(unit).filter(|u| tests_under_fire(u)).cloned() else {
        return Plan::Done("no-test");
    };
    let test = if u.status == Status::Routed {
        Test::StandAndFight
    } else {
        Test::ToStand
    };
    match resolve::plan(&resolve::Request::Morale(morale_req(test, &u)), &th) {
        Ok(p) => p.map(move |o| match (passed(&o), u.status) {
            (true, _) => "holds",
            (false, Status::Routed) => "leaves",
            (false, Status::Shaken) => "routs",
            (false, _) => "shaken",
        }),
        Err(_) => Plan::Done("no-test"),
    }
}

/// Step 4: units that took fire casualties test once they have lost a quarter of their start to
/// fire, this turn and earlier ("when the unit has lost 25% of it's strength by any fire and
/// every time it loses a figure by fire after that"), once a turn however many fell (To Stand;
/// fail: shaken, or a rout if already shaken); routed units that took fire casualties test Stand
/// and Fight or leave (001, MORALE; SEQUENCE OF ACTIONS, 4; ROUTED UNITS; decisions 8 and 63).
/// Guns never test (decision 32).
pub(super) fn fire_morale(st: &State, th: Thresholds) -> Result<Plan<Out>, Rejection> {
    need_phase(st, Phase::Melee, "fire-morale")?;
    if st.fire_morale_done {
        return Err(reject("already-done", None, k("refuse.fire-morale-done")));
    }
    let turn = st.turn;
    let testing: Vec<UnitState> = st
        .units
        .values()
        .filter(|u| tests_under_fire(u))
        .cloned()
        .collect();
    let mut acc = Acc::default();
    acc.effects.push(Effect::FireMoraleDone { done: true });
    if testing.is_empty() {
        acc.summary.push(k("result.no-fire-tests"));
    }
    let each: std::rc::Rc<dyn Fn(Acc, UnitState) -> Plan<Acc>> = std::rc::Rc::new(move |acc, u| {
        let test = if u.status == Status::Routed {
            Test::StandAndFight
        } else {
            Test::ToStand
        };
        match resolve::plan(&resolve::Request::Morale(morale_req(test, &u)), &th) {
            Ok(p) => p.and_then(move |o| {
                let pass = passed(&o);
                let mut acc = acc.clone().named(
                    &msg(
                        "title.fire-losses",
                        &[
                            ("unit", u.name.clone()),
                            ("lost", u.lost_to_fire().to_string()),
                            ("start", u.figures_start.to_string()),
                            ("turn", u.fire_losses.to_string()),
                        ],
                    ),
                    o,
                );
                acc.summary.pop();
                let what = k(match (pass, u.status) {
                    (true, _) => "value.holds",
                    (false, Status::Routed) => "value.leaves",
                    (false, Status::Shaken) => "value.routs",
                    (false, _) => "value.shaken",
                });
                acc.facets.push((u.name.clone(), what));
                let unit = ("unit", u.name.clone());
                match (pass, u.status) {
                    (true, _) => {
                        acc.summary.push(msg("result.holds-under-fire", &[unit]));
                        Plan::Done(acc)
                    }
                    (false, Status::Routed) => {
                        acc.summary.push(msg("result.routed-leaves", &[unit]));
                        acc.effects.push(Effect::Unit(UnitState {
                            status: Status::Gone,
                            ..u.clone()
                        }));
                        Plan::Done(acc)
                    }
                    (false, Status::Shaken) => rout_unit(acc, u.clone(), turn),
                    (false, _) => {
                        acc.summary.push(msg("result.is-shaken", &[unit]));
                        let shaken = UnitState {
                            status: Status::Shaken,
                            ..u.clone()
                        };
                        acc.effects.push(Effect::Unit(shaken.clone()));
                        fall_back(acc, &shaken, "fall.falls-back")
                    }
                }
            }),
            Err(_) => Plan::Done(acc),
        }
    });
    Ok(chain(acc, testing, each).map(|a| a.finish("fire-morale")))
}
