//! Moving a unit on its card (with brigades, Quicker Movement, orders and dismounting), and the
//! field officers: attaching, moving, falling.

use super::*;

/// The unit the current side names in `field` (`unit`, or `unit_2` to `unit_4` of a move on a
/// Quicker Movement card): its own, on the table, not yet activated this phase.
pub(super) fn activated<'a>(
    st: &'a State,
    unit: &str,
    field: &str,
) -> Result<&'a UnitState, Rejection> {
    let u = st.units.get(unit).ok_or_else(|| {
        reject(
            "unknown-unit",
            Some(field),
            msg(
                "refuse.unknown-unit",
                &[("unit", crate::text::quoted(unit))],
            ),
        )
    })?;
    match to_act(st) {
        Some(side) if side == u.side => {}
        Some(_) => {
            return Err(reject(
                "not-your-card",
                Some(field),
                msg("refuse.not-your-card", &[]),
            ))
        }
        None => return Err(reject("no-card", None, k("refuse.no-card"))),
    }
    if !u.on_table() {
        return Err(reject(
            "unit-gone",
            Some(field),
            msg("refuse.unit-gone", &[]),
        ));
    }
    if st.acted.contains(&u.id) {
        return Err(reject(
            "already-acted",
            Some(field),
            msg("refuse.already-acted", &[]),
        ));
    }
    Ok(u)
}

/// The steady members of a brigade that move with `u` on its card (001, OPTIONAL RULES,
/// BRIGADE MOVEMENT; design 8.1, decision 54): none without the option, or when `u` itself is
/// not steady.
fn brigade_of(st: &State, u: &UnitState) -> Vec<UnitState> {
    match (&u.brigade, st.options.brigade_movement) {
        (Some(col), true) if u.status == Status::Steady => st
            .units
            .values()
            .filter(|x| {
                x.id != u.id
                    && x.brigade.as_deref() == Some(col.as_str())
                    && x.troop == u.troop
                    && x.on_table()
                    && x.status == Status::Steady
                    && !st.acted.contains(&x.id)
            })
            .cloned()
            .collect(),
        _ => Vec::new(),
    }
}

/// A `move` naming one unit or, on a Quicker Movement card, several (`named`: each with its
/// field, `unit` first). One unit, without `by_unit`: the move as it always was. Several: each
/// unit in turn, as if the ones before it had had their chance, rolls its own move (its own
/// rally or To Close first) over the ground ticked, the order change and dismounting being the
/// first unit's; the result is one resolution whose steps and odds' facets are named by unit,
/// and the card ends when its units are used (decision 67).
pub(super) fn move_units(
    st: &State,
    th: Thresholds,
    named: &[(&'static str, String)],
    ground: [bool; 4],
    first: (bool, Option<Order>),
    by_unit: bool,
) -> Result<Plan<Out>, Rejection> {
    let Some((_, unit)) = named.first() else {
        return Err(reject(
            "unknown-unit",
            Some("unit"),
            msg("refuse.unknown-unit", &[("unit", String::new())]),
        ));
    };
    if named.len() == 1 && !by_unit {
        return Ok(
            move_plan(st, th, (unit, "unit"), ground, first, false)?.map(|a| a.finish("move"))
        );
    }
    // Quicker Movement's D4, as many as are left on the card; one unit without it.
    let allowed = usize::from(st.moves_left.max(1));
    let mut seen: Vec<(String, Vec<String>)> = Vec::new();
    let mut st2 = st.clone();
    let mut plan: Plan<Acc> = Plan::Done(Acc::default());
    for (i, (field, id)) in named.iter().enumerate() {
        if i > 0 {
            if i >= allowed {
                return Err(reject(
                    "too-many-units",
                    Some(field),
                    msg("refuse.too-many-units", &[("count", allowed.to_string())]),
                ));
            }
            let unit_name = || st.units.get(id).map_or(id.clone(), |u| u.name.clone());
            if seen.iter().any(|(x, _)| x == id) {
                return Err(reject(
                    "named-twice",
                    Some(field),
                    msg("refuse.named-twice", &[("unit", unit_name())]),
                ));
            }
            if let Some((leader, _)) = seen.iter().find(|(_, members)| members.contains(id)) {
                return Err(reject(
                    "moves-with-brigade",
                    Some(field),
                    msg(
                        "refuse.moves-with-brigade",
                        &[
                            ("unit", unit_name()),
                            ("first", st.units[leader].name.clone()),
                        ],
                    ),
                ));
            }
        }
        let mover = if i == 0 { first } else { (false, None) };
        let p = move_plan(&st2, th, (id, field), ground, mover, true)?;
        // The units after it are planned as if it (and its brigade) had had its chance.
        let u = &st.units[id];
        let members: Vec<String> = brigade_of(&st2, u).into_iter().map(|m| m.id).collect();
        st2.acted.insert(u.id.clone());
        st2.acted.extend(members.iter().cloned());
        seen.push((u.id.clone(), members));
        let who = u.name.clone();
        plan = plan.and_then(move |acc: Acc| {
            let who = who.clone();
            p.clone().map(move |mut a| {
                // Each unit's odds under its own name: "Swiss: inches" (decision 67).
                for f in &mut a.facets {
                    f.0 = format!("{who}: {}", f.0);
                }
                acc.clone().then(a)
            })
        });
    }
    Ok(plan.map(|a| a.finish("move")))
}

/// A movement card: shaken units try to rally first (Stand and Fight, −1); routed units may not
/// move; a unit without leaders tests To Close to move (decision 42); then the movement dice.
/// `(unit, field)`: the unit and the field that names it. `several`: one of the units of a move
/// naming several, its steps headed by its name.
fn move_plan(
    st: &State,
    th: Thresholds,
    (unit, field): (&str, &str),
    ground: [bool; 4],
    (dismount, order): (bool, Option<Order>),
    several: bool,
) -> Result<Plan<Acc>, Rejection> {
    need_phase(st, Phase::Movement, "move")?;
    let mut u = activated(st, unit, field)?.clone();
    if let Some(o) = order {
        let allowed = tables::troop(&u.troop).map_or(&[][..], |t| resolve::orders(t).1);
        if !allowed.contains(&o) || u.dismounted {
            return Err(reject(
                "order-not-allowed",
                Some("order"),
                msg(
                    "refuse.order-change",
                    &[
                        ("unit", u.name.clone()),
                        (
                            "orders",
                            allowed
                                .iter()
                                .map(|x| k(&format!("choice.{}", format!("{x:?}").to_lowercase())))
                                .collect::<Vec<_>>()
                                .join(" / "),
                        ),
                    ],
                ),
            ));
        }
        u.order = o;
    }
    let t = tables::troop(&u.troop).ok_or_else(|| {
        reject(
            "unknown-type",
            Some(field),
            msg("refuse.unknown-type", &[("field", field.into())]),
        )
    })?;
    if !can_move(&u) {
        return Err(reject(
            "heavy-guns-do-not-move",
            Some(field),
            msg("refuse.heavy-guns-do-not-move", &[]),
        ));
    }
    if ground[3] && matches!(t.kind, tables::Kind::Gun | tables::Kind::Train) {
        // The ground ticked is every unit's; a gun or wagon named after the first is at fault
        // (decision 67).
        return Err(if field == "unit" {
            reject("no-woods", Some("woods"), k("refuse.woods"))
        } else {
            reject(
                "no-woods",
                Some(field),
                msg("refuse.woods-unit", &[("unit", u.name.clone())]),
            )
        });
    }
    if dismount
        && !(st.options.dismounting
            && matches!(t.id, "light-horse-arquebus" | "light-horse-crossbow"))
    {
        return Err(reject(
            "cannot-dismount",
            Some("dismount"),
            k("refuse.cannot-dismount"),
        ));
    }
    let mut acc = Acc::default();
    acc.effects.push(Effect::Acted { unit: u.id.clone() });
    if u.status == Status::Routed {
        acc.summary
            .push(msg("result.routed-stays", &[("unit", u.name.clone())]));
        return Ok(Plan::Done(acc));
    }
    // A brigade moves on one card, all at the same rate: its steady members go with the unit
    // named (001, OPTIONAL RULES, BRIGADE MOVEMENT; design 8.1).
    let brigade = brigade_of(st, &u);
    // The brigade's other members go first, so that the unit named, last, ends the card.
    for m in &brigade {
        acc.effects
            .insert(0, Effect::AlsoActed { unit: m.id.clone() });
    }
    let loading = u.reload > 0;
    let (troop, order) = moving_as(&u);
    let mv = MoveRequest {
        troop: troop.into(),
        order: Some(order),
        uphill: ground[0],
        downhill: ground[1],
        obstacle: ground[2],
        woods: ground[3],
        loading,
        dismounting: dismount,
        permitted: u.may_move,
    };
    let wounded = u.wounded;
    let mover = u.name.clone();
    let names: Vec<String> = brigade.iter().map(|m| m.name.clone()).collect();
    let members = brigade.clone();
    let dice = resolve::plan(&resolve::Request::Move(mv), &th)?.map(move |mut o| {
        // Wounded carried: 1" less per wounded figure (optional rule, variant 1; decision 43).
        if wounded > 0 {
            let inches_facet = facet("inches");
            let inches: i32 = o
                .facets
                .iter()
                .find(|(f, _)| *f == inches_facet)
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let left = (inches - i32::from(wounded)).max(0);
            o.resolution.steps.push(Step {
                title: msg("title.wounded-carried", &[("count", wounded.to_string())]),
                dice: Vec::new(),
                modifiers: Vec::new(),
                totals: vec![(inches_facet.clone(), left)],
                result: format!("{left}\""),
            });
            o.resolution.summary = msg("result.moves-up-to", &[("inches", left.to_string())]);
            for f in o.facets.iter_mut().filter(|(f, _)| *f == inches_facet) {
                f.1 = left.to_string();
            }
        }
        o.resolution.summary = format!("{mover}: {}", o.resolution.summary);
        if !names.is_empty() {
            o.resolution.summary = msg(
                "result.brigade",
                &[
                    ("summary", o.resolution.summary.clone()),
                    ("units", names.join(", ")),
                ],
            );
        }
        o
    });
    let test = if u.status == Status::Shaken {
        Some((
            Test::StandAndFight,
            "value.rallies-from-shaken",
            "value.stays-shaken",
        ))
    } else if u.leaders == 0
        && !u.field_officer
        && !matches!(t.kind, tables::Kind::Gun | tables::Kind::Train)
        && t.id != "riflemen"
    {
        Some((
            Test::ToClose,
            "value.moves-no-leader",
            "value.stays-no-leader",
        ))
    } else {
        None
    };
    let name = u.name.clone();
    let moved = move |acc: Acc, u: UnitState| {
        let members = members.clone();
        dice.clone().map(move |o| {
            let mut acc = if several {
                acc.clone().named(&u.name, o)
            } else {
                acc.clone().with(o)
            };
            acc.effects.push(Effect::Unit(UnitState {
                moved: true,
                dismounted: u.dismounted != dismount,
                ..u.clone()
            }));
            for m in &members {
                acc.effects.push(Effect::Unit(UnitState {
                    moved: true,
                    ..m.clone()
                }));
            }
            acc
        })
    };
    Ok(match test {
        None => moved(acc, u),
        Some((t, yes, no)) => {
            let req = morale_req(t, &u);
            resolve::plan(&resolve::Request::Morale(req), &th)?.and_then(move |o| {
                let pass = passed(&o);
                let mut acc = acc.clone().named(&name, o);
                acc.summary.pop();
                acc.summary.push(msg(
                    "result.unit-does",
                    &[
                        ("unit", name.clone()),
                        ("what", k(if pass { yes } else { no })),
                    ],
                ));
                if pass {
                    let u = UnitState {
                        status: if u.status == Status::Shaken {
                            Status::Steady
                        } else {
                            u.status
                        },
                        ..u.clone()
                    };
                    moved(acc, u)
                } else {
                    Plan::Done(acc)
                }
            })
        }
    })
}

pub(super) fn officer_of(st: &State, id: &str) -> Result<Officer, Rejection> {
    st.officers
        .get(id)
        .filter(|o| !o.down)
        .cloned()
        .ok_or_else(|| {
            reject(
                "unknown-officer",
                Some("officer"),
                msg(
                    "refuse.unknown-officer",
                    &[("officer", crate::text::quoted(id))],
                ),
            )
        })
}

/// A field officer is killed or captured: his unit loses his +1, and a colonel's brigade moves
/// independently from now on (001, OPTIONAL RULES, BRIGADE MOVEMENT).
pub(super) fn officer_falls(st: &State, acc: &mut Acc, o: &Officer) {
    acc.effects.push(Effect::Officer(Officer {
        down: true,
        attached: None,
        ..o.clone()
    }));
    acc.summary
        .push(msg("result.officer-down", &[("officer", o.name.clone())]));
    for u in st.units.values() {
        let attached = o.attached.as_deref() == Some(u.id.as_str());
        let brigade = u.brigade.as_deref() == Some(o.id.as_str());
        if attached || brigade {
            acc.effects.push(Effect::Unit(UnitState {
                field_officer: u.field_officer && !attached,
                brigade: if brigade { None } else { u.brigade.clone() },
                ..u.clone()
            }));
        }
    }
}

/// A field officer attaches to a unit of his side, or leaves it (`unit` empty). Free, at any
/// time: the table shows whether he touches the unit.
pub(super) fn attach(
    st: &State,
    officer: &str,
    unit: Option<&str>,
) -> Result<Plan<Out>, Rejection> {
    let o = officer_of(st, officer)?;
    let mut acc = Acc::default();
    if let Some(old) = o.attached.as_ref().and_then(|id| st.units.get(id)) {
        acc.effects.push(Effect::Unit(UnitState {
            field_officer: st
                .officers
                .values()
                .any(|x| x.id != o.id && !x.down && x.attached.as_deref() == Some(old.id.as_str())),
            ..old.clone()
        }));
    }
    let to = match unit {
        None => None,
        Some(id) => {
            let u = st.units.get(id).filter(|u| u.on_table()).ok_or_else(|| {
                reject(
                    "unknown-unit",
                    Some("unit"),
                    msg(
                        "refuse.unit-not-on-table",
                        &[("field", "unit".into()), ("unit", crate::text::quoted(id))],
                    ),
                )
            })?;
            if u.side != o.side {
                return Err(reject(
                    "own-side",
                    Some("unit"),
                    k("refuse.officer-own-side"),
                ));
            }
            let mut now = u.clone();
            if let Some(Effect::Unit(x)) = acc.effects.last() {
                if x.id == u.id {
                    now = x.clone();
                }
            }
            acc.effects.push(Effect::Unit(UnitState {
                field_officer: true,
                ..now
            }));
            Some(u.id.clone())
        }
    };
    acc.summary.push(match &to {
        Some(id) => msg(
            "result.attaches",
            &[
                ("officer", o.name.clone()),
                ("unit", st.units[id].name.clone()),
            ],
        ),
        None => msg("result.rides-alone", &[("officer", o.name.clone())]),
    });
    acc.effects
        .push(Effect::Officer(Officer { attached: to, ..o }));
    Ok(Plan::Done(acc.finish("attach")))
}

/// How a unit moves: dismounted arquebusiers and crossbowmen as open-order foot of their weapon
/// (decision 59), others as they are (a heavy gun as itself: its permission to move is the
/// move's, decision 57).
pub(super) fn moving_as(u: &UnitState) -> (&'static str, Order) {
    let id = tables::troop(&u.troop).map_or("arquebusiers", |t| t.id);
    match (u.dismounted, id) {
        (true, "light-horse-arquebus") => ("arquebusiers", Order::Open),
        (true, "light-horse-crossbow") => ("crossbowmen", Order::Open),
        _ => (id, u.order),
    }
}

/// A move over open ground with nothing to slow it.
pub(super) fn open_move(troop: &str, order: Order) -> MoveRequest {
    MoveRequest {
        troop: troop.into(),
        order: Some(order),
        uphill: false,
        downhill: false,
        obstacle: false,
        woods: false,
        loading: false,
        dismounting: false,
        permitted: false,
    }
}

/// A field officer's own move: 6D6 (decision 19), once in each movement step; attached officers
/// move with their unit instead.
pub(super) fn officer_move(st: &State, officer: &str) -> Result<Plan<Out>, Rejection> {
    need_phase(st, Phase::Movement, "officer-move")?;
    let o = officer_of(st, officer)?;
    if o.moved {
        return Err(reject(
            "already-moved",
            Some("officer"),
            k("refuse.officer-moved"),
        ));
    }
    let mv = open_move("light-horse-spear", Order::Open);
    let dice = resolve::plan(&resolve::Request::Move(mv), &Thresholds::default())?;
    Ok(dice.map(move |out| {
        let mut acc = Acc::default().with(out);
        let inches = acc.summary.pop().unwrap_or_default();
        acc.summary.push(msg(
            "result.unit-does",
            &[("unit", o.name.clone()), ("what", inches)],
        ));
        acc.effects.push(Effect::Officer(Officer {
            moved: true,
            ..o.clone()
        }));
        acc.finish("officer-move")
    }))
}
