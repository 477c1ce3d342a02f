//! Moving a unit on its card (with brigades, Quicker Movement, orders and dismounting), and the
//! field officers: attaching, moving, falling.

use super::*;

/// The unit the current side names: its own, on the table, not yet activated this phase.
pub(super) fn activated<'a>(st: &'a State, unit: &str) -> Result<&'a UnitState, Rejection> {
    let u = st.units.get(unit).ok_or_else(|| {
        reject(
            "unknown-unit",
            Some("unit"),
            msg("refuse.unknown-unit", &[("unit", unit.to_string())]),
        )
    })?;
    match to_act(st) {
        Some(side) if side == u.side => {}
        Some(_) => {
            return Err(reject(
                "not-your-card",
                Some("unit"),
                k("refuse.not-your-card"),
            ))
        }
        None => return Err(reject("no-card", None, k("refuse.no-card"))),
    }
    if !u.on_table() {
        return Err(reject("unit-gone", Some("unit"), k("refuse.unit-gone")));
    }
    if st.acted.contains(&u.id) {
        return Err(reject(
            "already-acted",
            Some("unit"),
            k("refuse.already-acted"),
        ));
    }
    Ok(u)
}

/// A movement card: shaken units try to rally first (Stand and Fight, −1); routed units may not
/// move; a unit without leaders tests To Close to move (decision 42); then the movement dice.
pub(super) fn move_unit(
    st: &State,
    th: Thresholds,
    unit: &str,
    ground: [bool; 4],
    (dismount, order): (bool, Option<Order>),
) -> Result<Plan<Out>, Rejection> {
    need_phase(st, Phase::Movement, "move")?;
    let mut u = activated(st, unit)?.clone();
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
            Some("unit"),
            msg("refuse.unknown-type", &[("field", "unit".into())]),
        )
    })?;
    if !can_move(&u) {
        return Err(reject(
            "heavy-guns-do-not-move",
            Some("unit"),
            k("refuse.heavy-guns-do-not-move"),
        ));
    }
    if ground[3] && matches!(t.kind, tables::Kind::Gun | tables::Kind::Train) {
        return Err(reject("no-woods", Some("woods"), k("refuse.woods")));
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
        return Ok(Plan::Done(acc.finish("move")));
    }
    // A brigade moves on one card, all at the same rate: its steady members go with the unit
    // named (001, OPTIONAL RULES, BRIGADE MOVEMENT; design 8.1).
    let brigade: Vec<UnitState> = match (&u.brigade, st.options.brigade_movement) {
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
    };
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
            let mut acc = acc.clone().with(o);
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
    }
    .map(|a| a.finish("move")))
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
                msg("refuse.unknown-officer", &[("officer", id.to_string())]),
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
                        &[("field", "unit".into()), ("unit", id.to_string())],
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
