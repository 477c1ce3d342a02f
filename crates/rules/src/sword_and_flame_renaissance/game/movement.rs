//! Moving a unit on its card (with brigades, Quicker Movement, orders and dismounting), and the
//! field officers: attaching, moving, falling.

use super::*;

/// The unit the current side names: its own, on the table, not yet activated this phase.
pub(super) fn activated<'a>(st: &'a State, unit: &str) -> Result<&'a UnitState, Rejection> {
    let u = st.units.get(unit).ok_or_else(|| {
        reject(
            "unknown-unit",
            Some("unit"),
            format!("unit: no unit \"{unit}\""),
        )
    })?;
    match to_act(st) {
        Some(side) if side == u.side => {}
        Some(_) => {
            return Err(reject(
                "not-your-card",
                Some("unit"),
                "unit: the card drawn is the other side's",
            ))
        }
        None => return Err(reject("no-card", None, "draw a card first")),
    }
    if !u.on_table() {
        return Err(reject(
            "unit-gone",
            Some("unit"),
            "unit: no longer on the table",
        ));
    }
    if st.acted.contains(&u.id) {
        return Err(reject(
            "already-acted",
            Some("unit"),
            "unit: has had its chance in this step",
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
                format!(
                    "order: {} may be in {} order (001, TROOP TYPES; ORDER)",
                    u.name,
                    allowed
                        .iter()
                        .map(|x| format!("{x:?}").to_lowercase())
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            ));
        }
        u.order = o;
    }
    let t = tables::troop(&u.troop)
        .ok_or_else(|| reject("unknown-type", Some("unit"), "unit: unknown type"))?;
    if !can_move(&u) {
        return Err(reject("heavy-guns-do-not-move", Some("unit"), "unit: heavy guns do not move without the game master's permission (the scenario flag may-move), but may pivot in place (001, MOVEMENT; FIRE; decision 57); let its chance pass"));
    }
    if ground[3] && matches!(t.kind, tables::Kind::Gun | tables::Kind::Train) {
        return Err(reject(
            "no-woods",
            Some("woods"),
            "woods: guns and wagons cannot enter woods except on roads (001, MOVEMENT)",
        ));
    }
    if dismount
        && !(st.options.dismounting
            && matches!(t.id, "light-horse-arquebus" | "light-horse-crossbow"))
    {
        return Err(reject("cannot-dismount", Some("dismount"), "dismount: only mounted arquebusiers and crossbowmen dismount, and only when the scenario turns on the optional rule (001, OPTIONAL RULES, DISMOUNTING)"));
    }
    let mut acc = Acc::default();
    acc.effects.push(Effect::Acted { unit: u.id.clone() });
    if u.status == Status::Routed {
        acc.summary.push(format!(
            "{} is routed and may not move (001, ROUTED UNITS)",
            u.name
        ));
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
            let inches: i32 = o
                .facets
                .iter()
                .find(|(k, _)| k == "inches")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let left = (inches - i32::from(wounded)).max(0);
            o.resolution.steps.push(Step {
                title: format!("Wounded carried: {wounded}\" less [001, OPTIONAL RULES, WOUNDED AND DEAD, 1; decision 43]"),
                dice: Vec::new(),
                modifiers: Vec::new(),
                totals: vec![("inches".into(), left)],
                result: format!("{left}\""),
            });
            o.resolution.summary = format!("moves up to {left}\"");
            for f in o.facets.iter_mut().filter(|(k, _)| k == "inches") {
                f.1 = left.to_string();
            }
        }
        o.resolution.summary = format!("{mover}: {}", o.resolution.summary);
        if !names.is_empty() {
            o.resolution.summary = format!(
                "{}; its brigade moves with it at the same rate: {}",
                o.resolution.summary,
                names.join(", ")
            );
        }
        o
    });
    let test = if u.status == Status::Shaken {
        Some((
            Test::StandAndFight,
            "rallies from shaken",
            "stays shaken and does not move",
        ))
    } else if u.leaders == 0
        && !u.field_officer
        && !matches!(t.kind, tables::Kind::Gun | tables::Kind::Train)
        && t.id != "riflemen"
    {
        Some((
            Test::ToClose,
            "moves (no leader: To Close to move)",
            "does not move (no leader)",
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
                acc.summary
                    .push(format!("{name} {}", if pass { yes } else { no }));
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
                format!("officer: no field officer \"{id}\" on the table"),
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
    acc.summary.push(format!("{} is down", o.name));
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
                    format!("unit: no unit \"{id}\" on the table"),
                )
            })?;
            if u.side != o.side {
                return Err(reject(
                    "own-side",
                    Some("unit"),
                    "unit: a unit of the officer's side",
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
        Some(id) => format!("{} attaches to {}", o.name, st.units[id].name),
        None => format!("{} rides alone", o.name),
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
            "officer: has moved in this step",
        ));
    }
    let mv = open_move("light-horse-spear", Order::Open);
    let dice = resolve::plan(&resolve::Request::Move(mv), &Thresholds::default())?;
    Ok(dice.map(move |out| {
        let mut acc = Acc::default().with(out);
        let inches = acc.summary.pop().unwrap_or_default();
        acc.summary.push(format!("{} {inches}", o.name));
        acc.effects.push(Effect::Officer(Officer {
            moved: true,
            ..o.clone()
        }));
        acc.finish("officer-move")
    }))
}
