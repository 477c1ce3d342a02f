//! The turn's own steps: the spent units' test (step 1), the activation deck's draws, and the
//! end of the turn (rallying the routed, reload markers, the spirit of each army, routs).

use super::*;

/// Step 1: "Test ... morale for any unit which is "Spent" ... which does not have a field officer
/// attached to it ... If it fails, it is removed from the field immediately." (Stand and Fight,
/// decision 2.)
pub(super) fn start_turn(st: &State, th: Thresholds) -> Result<Plan<Out>, Rejection> {
    need_phase(st, Phase::Start, "start-turn")?;
    let spent: Vec<UnitState> = st
        .units
        .values()
        .filter(|u| u.on_table() && u.spent() && !u.field_officer && u.figures_start > 0)
        .cloned()
        .collect();
    let mut acc = Acc::default();
    acc.effects.push(Effect::Phase {
        turn: st.turn,
        phase: Phase::Movement,
    });
    acc.effects.push(Effect::NewPhase);
    acc.effects.push(Effect::FireMoraleDone { done: false });
    acc.summary.push(msg(
        "result.turn-start",
        &[
            ("turn", st.turn.to_string()),
            (
                "what",
                if spent.is_empty() {
                    k("result.no-spent")
                } else {
                    msg("result.spent-test", &[("count", spent.len().to_string())])
                },
            ),
        ],
    ));
    let each: std::rc::Rc<dyn Fn(Acc, UnitState) -> Plan<Acc>> = std::rc::Rc::new(move |acc, u| {
        match resolve::plan(
            &resolve::Request::Morale(morale_req(Test::StandAndFight, &u)),
            &th,
        ) {
            Ok(p) => p.map(move |o| {
                let stays = passed(&o);
                let mut acc = acc.clone().named(&u.name, o);
                acc.summary.pop();
                acc.summary.push(msg(
                    if stays {
                        "result.spent-stays"
                    } else {
                        "result.spent-leaves"
                    },
                    &[("unit", u.name.clone())],
                ));
                acc.facets.push((
                    u.name.clone(),
                    k(if stays { "value.stays" } else { "value.leaves" }),
                ));
                if !stays {
                    acc.effects.push(Effect::Unit(UnitState {
                        status: Status::Gone,
                        ..u.clone()
                    }));
                }
                acc
            }),
            Err(_) => Plan::Done(acc),
        }
    });
    Ok(chain(acc, spent, each).map(|a| a.finish("start-turn")))
}

/// Step 2/3: the next card. When both sides have units waiting, a card of the activation deck
/// decides (reshuffled full when empty, decision 16); when one side is done the other goes on
/// without cards; when both are done the phase ends.
pub(super) fn draw(st: &State) -> Result<Plan<Out>, Rejection> {
    if !matches!(st.phase, Phase::Movement | Phase::Fire) {
        return Err(reject("wrong-phase", None, k("refuse.draw-when")));
    }
    if st.current.is_some() {
        return Err(reject("unit-to-name", None, k("refuse.unit-to-name")));
    }
    let (red, black) = match (
        st.sides.iter().find(|s| s.red),
        st.sides.iter().find(|s| !s.red),
    ) {
        (Some(r), Some(b)) => (r.clone(), b.clone()),
        _ => return Err(reject("bad-sides", None, k("refuse.bad-sides"))),
    };
    let red_waiting = waiting(st, &red.id).count();
    let black_waiting = waiting(st, &black.id).count();
    let phase_name = k(if st.phase == Phase::Movement {
        "phase.movement"
    } else {
        "phase.fire"
    });
    let quicker = st.options.quicker_movement && st.phase == Phase::Movement;
    let mut acc = Acc::default();
    match (red_waiting > 0, black_waiting > 0) {
        (false, false) => {
            let next = if st.phase == Phase::Movement {
                Phase::Fire
            } else {
                Phase::Melee
            };
            acc.effects.push(Effect::Phase {
                turn: st.turn,
                phase: next,
            });
            acc.effects.push(Effect::NewPhase);
            acc.summary
                .push(msg("result.step-done", &[("phase", phase_name)]));
            Ok(Plan::Done(acc.finish("draw")))
        }
        (true, false) | (false, true) => {
            let side = if red_waiting > 0 { &red } else { &black };
            acc.effects.push(Effect::Current {
                side: Some(side.id.clone()),
            });
            acc.summary
                .push(msg("result.names-next", &[("side", side.name.clone())]));
            Ok(Plan::Done(acc.finish("draw")))
        }
        (true, true) => {
            let deck = if st.deck.red + st.deck.black == 0 {
                Deck::FULL
            } else {
                st.deck
            };
            // Cards numbered 1-52: 1-26 red, 27-52 black; only the colours left matter.
            let left: Vec<u8> = (1..=deck.red).chain(27..27 + deck.black).collect();
            Ok(Plan::card(
                k("die.activation-card"),
                52,
                left,
                |c| u8::from(c <= 26),
                move |c| {
                    let is_red = c <= 26;
                    let side = if is_red { &red } else { &black };
                    let mut acc = acc.clone();
                    let colour = ("colour", k(if is_red { "card.red" } else { "card.black" }));
                    let who = ("side", side.name.clone());
                    acc.steps.push(Step {
                        title: msg(
                            "title.activation-card",
                            &[
                                ("phase", phase_name.clone()),
                                ("red", deck.red.to_string()),
                                ("black", deck.black.to_string()),
                            ],
                        ),
                        dice: Vec::new(),
                        modifiers: Vec::new(),
                        totals: Vec::new(),
                        result: msg("result.card-names", &[colour.clone(), who.clone()]),
                    });
                    acc.effects.push(Effect::Deck(Deck {
                        red: deck.red - u8::from(is_red),
                        black: deck.black - u8::from(!is_red),
                    }));
                    acc.effects.push(Effect::Current {
                        side: Some(side.id.clone()),
                    });
                    acc.summary.push(msg("result.card", &[colour.clone(), who]));
                    acc.facets.push((facet("card"), colour.1));
                    let waiting = if is_red { red_waiting } else { black_waiting };
                    if !quicker {
                        return Plan::Done(acc.finish("draw"));
                    }
                    // Quicker Movement: "each time a movement card is drawn ... roll a D4. That
                    // player may move the D4 number of units instead of just one" (001,
                    // OPTIONAL RULES), capped at the units the side has left (design 8.4).
                    let name = side.name.clone();
                    let label = k("die.quicker");
                    tercio_core::plan::dice(1, 4, &label).map(move |f| {
                        let n = f[0].min(waiting as u8);
                        let mut acc = acc.clone();
                        acc.steps.push(Step {
                            title: k("title.quicker"),
                            dice: vec![tercio_core::RolledDie {
                                label: label.clone(),
                                sides: 4,
                                face: f[0],
                            }],
                            modifiers: Vec::new(),
                            totals: vec![(facet("units"), i32::from(n))],
                            result: msg(
                                "result.quicker-moves",
                                &[("side", name.clone()), ("count", n.to_string())],
                            ),
                        });
                        acc.effects.push(Effect::MovesLeft { moves: n });
                        acc.summary
                            .push(msg("result.quicker-units", &[("count", n.to_string())]));
                        acc.facets.push((facet("units"), n.to_string()));
                        acc.finish("draw")
                    })
                },
            ))
        }
    }
}

/// Steps 8-10: routed units that routed in an earlier turn rally or leave; one reload marker comes
/// off every unit (reiters' pistols are reloaded by a motionless turn, decision 12); each army
/// rolls its spirit; then the next turn.
pub(super) fn end_turn(st: &State, th: Thresholds) -> Result<Plan<Out>, Rejection> {
    need_phase(st, Phase::Melee, "end-turn")?;
    let turn = st.turn;
    let routed: Vec<UnitState> = st
        .units
        .values()
        .filter(|u| u.status == Status::Routed && u.routed_turn.is_some_and(|t| t < turn))
        .cloned()
        .collect();
    let rally: std::rc::Rc<dyn Fn(Acc, UnitState) -> Plan<Acc>> =
        std::rc::Rc::new(move |acc, u| {
            match resolve::plan(
                &resolve::Request::Morale(morale_req(Test::StandAndFight, &u)),
                &th,
            ) {
                Ok(p) => p.map(move |o| {
                    let pass = passed(&o);
                    let mut acc = acc.clone().named(&u.name, o);
                    acc.summary.pop();
                    let what = k(if pass {
                        "value.rallies"
                    } else {
                        "value.leaves"
                    });
                    acc.summary.push(msg(
                        "result.unit-does",
                        &[("unit", u.name.clone()), ("what", what.clone())],
                    ));
                    acc.facets.push((u.name.clone(), what));
                    acc.effects.push(Effect::Unit(UnitState {
                        status: if pass { Status::Shaken } else { Status::Gone },
                        routed_turn: None,
                        ..u.clone()
                    }));
                    acc
                }),
                Err(_) => Plan::Done(acc),
            }
        });
    let st2 = st.clone();
    Ok(chain(Acc::default(), routed, rally)
        .and_then(move |acc| {
            // The state as it stands after the rallies.
            let mut now = st2.clone();
            for e in &acc.effects {
                apply(&mut now, e);
            }
            spirit_rolls(acc, now, th)
        })
        .map(|a| a.finish("end-turn")))
}

pub(super) fn spirit_rolls(acc: Acc, now: State, th: Thresholds) -> Plan<Acc> {
    let sides = now.sides.clone();
    let now2 = now.clone();
    let each: std::rc::Rc<dyn Fn(Acc, SideState) -> Plan<Acc>> =
        std::rc::Rc::new(move |acc, side| {
            let units: Vec<&UnitState> = now2
                .units
                .values()
                .filter(|u| u.side == side.id && u.on_table() && counts_for_spirit(&u.troop))
                .collect();
            let fresh = units
                .iter()
                .filter(|u| u.figures == u.figures_start)
                .count() as u32;
            let worn = units.iter().filter(|u| u.worn()).count() as u32;
            let req = resolve::SpiritRequest {
                fresh,
                worn: worn.min(side.start - fresh.min(side.start)),
                start: side.start.max(1),
            };
            let now3 = now2.clone();
            match resolve::plan(&resolve::Request::Spirit(req), &th) {
                Ok(p) => p.and_then(move |o| {
                    let (spirit, good_value) = (facet("spirit"), k("spirit.good"));
                    let good = o
                        .facets
                        .iter()
                        .any(|(f, v)| *f == spirit && *v == good_value);
                    let mut o = o;
                    // Each army's spirit is its own facet.
                    for f in o.facets.iter_mut().filter(|(f, _)| *f == spirit) {
                        f.0 = msg("facet.side-spirit", &[("side", side.name.clone())]);
                    }
                    let mut acc = acc.clone().named(&side.name, o);
                    acc.summary.pop();
                    acc.summary.push(msg(
                        "result.side-spirit",
                        &[
                            ("side", side.name.clone()),
                            ("spirit", resolve::spirit_term(good)),
                        ],
                    ));
                    if good {
                        return Plan::Done(acc);
                    }
                    // "1. All rounted units are removed from the field. 2. All spent units are
                    // removed from the field. 3. All shaken units rout" (001, THE SPIRIT OF THE ARMY).
                    let mut shaken = Vec::new();
                    for u in now3
                        .units
                        .values()
                        .filter(|u| u.side == side.id && u.on_table())
                    {
                        if u.status == Status::Routed || u.spent() {
                            acc.effects.push(Effect::Unit(UnitState {
                                status: Status::Gone,
                                ..u.clone()
                            }));
                        } else if u.status == Status::Shaken {
                            shaken.push(u.clone());
                        }
                    }
                    let turn = now3.turn;
                    let rout: std::rc::Rc<dyn Fn(Acc, UnitState) -> Plan<Acc>> =
                        std::rc::Rc::new(move |acc, u| rout_unit(acc, u, turn));
                    chain(acc, shaken, rout)
                }),
                Err(_) => Plan::Done(acc),
            }
        });
    chain(acc, sides, each).map(move |mut acc| {
        let mut next = now.clone();
        for e in &acc.effects {
            apply(&mut next, e);
        }
        for u in next.units.values().filter(|u| u.on_table()) {
            if u.reload > 0
                || u.moved
                || u.pistols_empty
                || u.fire_losses > 0
                || u.charged
                || u.fired
            {
                acc.effects.push(Effect::Unit(UnitState {
                    reload: u.reload.saturating_sub(1),
                    pistols_empty: u.pistols_empty && u.moved,
                    moved: false,
                    fire_losses: 0,
                    fire_losses_earlier: u.fire_losses_earlier.saturating_add(u.fire_losses),
                    charged: false,
                    fired: false,
                    ..u.clone()
                }));
            }
        }
        let empty: Vec<String> = next
            .sides
            .iter()
            .filter(|s| !next.units.values().any(|u| u.side == s.id && u.on_table()))
            .map(|s| s.id.clone())
            .collect();
        if empty.is_empty() {
            acc.effects.push(Effect::Phase {
                turn: now.turn + 1,
                phase: Phase::Start,
            });
            acc.summary.push(msg(
                "result.turn-begins",
                &[("turn", (now.turn + 1).to_string())],
            ));
        } else {
            acc.effects.push(Effect::Broken { sides: empty });
            acc.effects.push(Effect::Phase {
                turn: now.turn,
                phase: Phase::Over,
            });
            acc.summary.push(k("result.army-gone"));
        }
        acc
    })
}

/// A unit routs: "a D4 of casualties when they rout" (plain figures, decision 29), then a normal
/// move to the rear (the players move it).
pub(super) fn rout_unit(acc: Acc, u: UnitState, turn: u32) -> Plan<Acc> {
    let d4 = resolve::plan(&resolve::Request::Rout {}, &Thresholds::default());
    match d4 {
        Ok(p) => p
            .map(move |o| {
                let lost_facet = facet("figures-lost");
                let lost: u8 = o
                    .facets
                    .iter()
                    .find(|(f, _)| *f == lost_facet)
                    .and_then(|(_, v)| v.parse().ok())
                    .unwrap_or(0);
                let figures = u.figures.saturating_sub(lost);
                let mut acc = acc.clone().with(o);
                acc.summary.pop();
                // The D4 takes no more than the unit has: the step says what it lost.
                if figures == 0 && lost > u.figures {
                    if let Some(step) = acc.steps.last_mut() {
                        step.result = msg(
                            "result.lost-all",
                            &[("count", u.figures.to_string()), ("face", lost.to_string())],
                        );
                    }
                }
                acc.summary.push(msg(
                    "result.unit-routs",
                    &[
                        ("unit", u.name.clone()),
                        ("count", (u.figures - figures).to_string()),
                    ],
                ));
                let routed = UnitState {
                    figures,
                    status: if figures == 0 {
                        Status::Gone
                    } else {
                        Status::Routed
                    },
                    routed_turn: Some(turn),
                    ..u.clone()
                };
                acc.effects.push(Effect::Unit(routed.clone()));
                (acc, routed)
            })
            .and_then(|(acc, routed)| {
                if routed.on_table() {
                    fall_back(acc, &routed, "fall.routs")
                } else {
                    Plan::Done(acc)
                }
            }),
        Err(_) => Plan::Done(acc),
    }
}

/// "A normal move to the rear" (001, SHAKEN UNITS; ROUTED UNITS; BREAKING OFF): a fresh roll of
/// the unit's movement dice (decision 46), for the players to move it. The distance changes
/// nothing Tercio tracks, so the odds take it as one outcome (`Depends::Nothing`). `what` is the
/// catalogue id of how it goes (`fall.*`).
pub(super) fn fall_back(acc: Acc, u: &UnitState, what: &'static str) -> Plan<Acc> {
    let (troop, order) = moving_as(u);
    // Heavy guns do not fall back: no roll.
    let n = match tables::troop(troop) {
        Some(t) if u.troop != "heavy-gun" => tables::movement_dice(t, order),
        _ => 0,
    };
    if n == 0 {
        return Plan::Done(acc);
    }
    let name = u.name.clone();
    let label = k("die.fall-back");
    tercio_core::plan::throw(usize::from(n), 6, &label, tercio_core::Depends::Nothing).map(
        move |f| {
            let inches: u32 = f.iter().map(|&x| u32::from(x)).sum();
            let mut acc = acc.clone();
            let (unit, how) = (("unit", name.clone()), ("what", k(what)));
            acc.steps.push(Step {
                title: msg(
                    "title.fall-back",
                    &[unit.clone(), how.clone(), ("dice", n.to_string())],
                ),
                dice: f
                    .iter()
                    .enumerate()
                    .map(|(i, &face)| tercio_core::RolledDie {
                        label: format!("{label} {}", i + 1),
                        sides: 6,
                        face,
                    })
                    .collect(),
                modifiers: Vec::new(),
                totals: vec![(facet("inches"), inches as i32)],
                result: format!("{inches}\""),
            });
            acc.summary.push(msg(
                "result.fall-back",
                &[unit, how, ("inches", inches.to_string())],
            ));
            acc
        },
    )
}
