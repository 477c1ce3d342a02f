//! Start, cards, end of turn (§4).

use super::*;

pub(super) fn start(st: &State) -> P {
    let st = st.clone();
    throw(8, 255, "Shuffle key", Depends::Nothing).and_then(move |faces| {
        let mut r = Res::new(&st);
        r.st.salt = faces
            .iter()
            .fold(0u64, |k, &f| k.wrapping_mul(257).wrapping_add(u64::from(f)));
        r.st.phase = Phase::Cards;
        let fog = r.st.cfg.fog;
        let then: K = Rc::new(niente_soldi);
        match fog {
            1 => {
                r.st.joker = true;
                r.step(k("callan.step.fog"), k("callan.fog.fixed-on"));
                then(r)
            }
            -1 => {
                r.step(k("callan.step.fog"), k("callan.fog.fixed-off"));
                then(r)
            }
            _ => Plan::die(Die::d6(k("callan.die.fog")), move |f| {
                let mut r = r.clone();
                r.st.fog_roll = Some(f);
                r.st.joker = f == 1;
                r.facet(k("callan.facet.fog"), yes_no(f == 1));
                r.step(
                    k("callan.step.fog"),
                    m(
                        if f == 1 {
                            "callan.fog.joker"
                        } else {
                            "callan.fog.none"
                        },
                        &[("face", f.to_string())],
                    ),
                );
                then(r)
            }),
        }
    })
}

/// "Niente soldi, niente svizzeri": one die per Swiss or Landsknecht heavy-foot unit (D59).
pub(super) fn niente_soldi(r: Res) -> P {
    let ids: Vec<String> = if r.st.cfg.niente_soldi {
        r.st.units
            .iter()
            .filter(|u| {
                u.troop.is_heavy_foot()
                    && matches!(
                        u.nationality.as_deref(),
                        Some("svizzeri") | Some("lanzichenecchi")
                    )
            })
            .map(|u| u.id.clone())
            .collect()
    } else {
        Vec::new()
    };
    niente_soldi_from(r, Rc::new(ids), 0)
}

pub(super) fn niente_soldi_from(r: Res, ids: Rc<Vec<String>>, i: usize) -> P {
    let Some(id) = ids.get(i).cloned() else {
        let mut r = r;
        tally_strength(&mut r.st);
        begin_turn(&mut r);
        let s: Vec<String> =
            r.st.sides
                .iter()
                .map(|s| {
                    m(
                        "callan.strength",
                        &[
                            ("side", s.name.clone()),
                            ("points", s.points.to_string()),
                            ("strength", halves(s.strength)),
                        ],
                    )
                })
                .collect();
        for line in s {
            r.step(k("callan.step.strength"), line);
        }
        r.say(k("callan.said.started"));
        return Plan::Done(r);
    };
    let name = r.st.unit(&id).map(|u| u.name.clone()).unwrap_or_default();
    Plan::die(
        Die::d6(m("callan.die.niente-soldi", &[("unit", name.clone())])),
        move |f| {
            let mut r = r.clone();
            let swiss =
                r.st.unit(&id)
                    .is_some_and(|u| u.nationality.as_deref() == Some("svizzeri"));
            let enemy_lanz = r.st.units.iter().any(|u| {
                Some(u.side) != r.st.unit(&id).map(|x| x.side)
                    && u.nationality.as_deref() == Some("lanzichenecchi")
            });
            let key = if f == 1 {
                if let Some(u) = r.st.unit_mut(&id) {
                    u.status = Status::Withdrawn;
                }
                "callan.niente.withdraws"
            } else if f >= 5 && swiss && enemy_lanz {
                if let Some(u) = r.st.unit_mut(&id) {
                    u.fixated = true;
                }
                "callan.niente.fixated"
            } else {
                "callan.niente.stays"
            };
            r.facet(
                m("callan.facet.niente", &[("unit", name.clone())]),
                k(&key.replace("callan.niente.", "callan.niente-short.")),
            );
            r.step(
                k("callan.step.niente"),
                m(key, &[("unit", name.clone()), ("face", f.to_string())]),
            );
            if f == 1 {
                r.note(m(
                    "callan.niente.withdraws",
                    &[("unit", name.clone()), ("face", f.to_string())],
                ));
            }
            niente_soldi_from(r, ids.clone(), i + 1)
        },
    )
}

pub(super) fn halves(h: u32) -> String {
    tables::halves_text(h)
}

/// A turn begins: the deck shuffled, per-turn marks cleared, reinforcements in, pursuers and
/// guns counted down (§4.4 step 1).
pub(super) fn begin_turn(r: &mut Res) {
    let s = &mut r.st;
    s.turn += 1;
    let mut cards: Vec<u8> = (1..=6).collect();
    if s.joker {
        cards.push(JOKER);
    }
    s.deck = shuffled(s.salt, s.turn, cards);
    s.drawn.clear();
    s.open = None;
    let turn = s.turn;
    for u in s.units.iter_mut() {
        u.fired = false;
        u.held_fire = false;
        u.moved = false;
        u.charge_moved = false;
        u.activated = false;
        u.fought_with.clear();
        u.panic_passed = false;
        u.volley_hits = 0;
        u.orders_failed = false;
        u.attacked = false;
        u.lost_to_fire = false;
        if u.status == Status::Waiting && u.enters <= turn {
            u.status = Status::Ok;
        }
    }
    for c in s.commanders.iter_mut() {
        c.moved = false;
    }
    for c in s.combats.iter_mut() {
        c.due = false;
    }
}

pub(super) fn draw(st: &State) -> Result<P, Rejection> {
    let Some(&card) = st.deck.first() else {
        return Err(reject("deck-empty", Some("action"), k("callan.reject.deck-empty")).not_now());
    };
    let mut r = Res::new(st);
    r.st.deck.remove(0);
    let first = r.st.drawn.is_empty();
    let prev = r.st.open.clone();
    r.st.drawn.push(card);
    let open = match card_colour(card) {
        Some(side) => {
            let nth = r.st.cards_of(side);
            let phase = match nth {
                1 => CardPhase::Fire,
                2 => CardPhase::Infantry,
                _ => CardPhase::Cavalry,
            };
            Open {
                side: Some(side),
                phase,
                repeat: None,
                joker_used: false,
                troops_moved: false,
            }
        }
        None => Open {
            side: if first {
                None
            } else {
                prev.as_ref().and_then(|p| p.side)
            },
            phase: CardPhase::Joker,
            repeat: if first {
                None
            } else {
                prev.as_ref().map(|p| p.phase)
            },
            joker_used: false,
            troops_moved: false,
        },
    };
    // Continuing combats at the first 2nd card (foot) or 3rd card (cavalry) of either colour (D14).
    if let Some(side) = open.side.filter(|_| open.phase != CardPhase::Joker) {
        let nth = r.st.cards_of(side);
        let other = 1 - side.min(1);
        let first_of_rank = r.st.cards_of(other) < nth;
        let turn = r.st.turn;
        if first_of_rank && nth >= 2 {
            let cav = nth == 3;
            for c in r.st.combats.iter_mut() {
                if c.turn < turn && c.cavalry == cav {
                    c.due = true;
                }
            }
        }
    }
    let side_name = open
        .side
        .map(|s| r.st.sides[s].name.clone())
        .unwrap_or_default();
    let text = match open.phase {
        CardPhase::Joker if open.side.is_none() => k("callan.card.joker-ignored"),
        CardPhase::Joker => m("callan.card.joker", &[("side", side_name.clone())]),
        p => m(
            "callan.card.phase",
            &[
                ("side", side_name.clone()),
                ("phase", format!("@callan.phase.{}", p.id())),
            ],
        ),
    };
    r.step(
        m("callan.step.draw", &[("card", card_text(card))]),
        text.clone(),
    );
    let due: Vec<String> =
        r.st.combats
            .iter()
            .filter(|c| c.due)
            .map(|c| format!("c{}", c.id))
            .collect();
    if !due.is_empty() {
        r.step(
            k("callan.step.continuing"),
            m("callan.continuing.due", &[("combats", due.join(", "))]),
        );
    }
    r.st.open = Some(open);
    r.say(text);
    Ok(Plan::Done(r))
}

pub(super) fn end_turn(st: &State) -> Result<P, Rejection> {
    if !st.cards_left().is_empty() {
        return Err(reject(
            "cards-left",
            Some("action"),
            m(
                "callan.reject.cards-left",
                &[("n", st.cards_left().len().to_string())],
            ),
        )
        .not_now());
    }
    let mut r = Res::new(st);
    // Smoke removed; a heavy gun keeps its mark one more turn through `fired_turn` (D20).
    victory_check(&mut r);
    if r.st.phase == Phase::Over {
        return Ok(Plan::Done(r));
    }
    if r.st.cfg.turns > 0 && r.st.turn >= r.st.cfg.turns {
        r.st.phase = Phase::Over;
        let msg = k("callan.victory.turn-limit");
        r.step(k("callan.step.victory"), msg.clone());
        r.say(msg);
        return Ok(Plan::Done(r));
    }
    begin_turn(&mut r);
    let turn = r.st.turn;
    r.say(m("callan.said.new-turn", &[("turn", turn.to_string())]));
    // Pursuers count down; French gendarmi away roll to come back (D51, D52).
    for u in r.st.units.iter_mut() {
        if u.status == Status::Pursuing && u.pursuit_turns > 0 {
            u.pursuit_turns -= 1;
            if u.pursuit_turns == 0 {
                u.status = Status::Ok;
            }
        }
    }
    let away: Vec<String> =
        r.st.units
            .iter()
            .filter(|u| u.status == Status::Away)
            .map(|u| u.id.clone())
            .collect();
    Ok(return_rolls(r, Rc::new(away), 0))
}

pub(super) fn return_rolls(r: Res, ids: Rc<Vec<String>>, i: usize) -> P {
    let Some(id) = ids.get(i).cloned() else {
        return Plan::Done(r);
    };
    let name = r.st.unit(&id).map(|u| u.name.clone()).unwrap_or_default();
    Plan::die(
        Die::d6(m("callan.die.return", &[("unit", name.clone())])),
        move |f| {
            let mut r = r.clone();
            let back = f >= 4;
            if back {
                if let Some(u) = r.st.unit_mut(&id) {
                    u.status = Status::Ok;
                    u.activated = false;
                }
            }
            r.facet(
                m("callan.facet.returns", &[("unit", name.clone())]),
                yes_no(back),
            );
            r.step(
                k("callan.step.return"),
                m(
                    if back {
                        "callan.return.back"
                    } else {
                        "callan.return.away"
                    },
                    &[("unit", name.clone()), ("face", f.to_string())],
                ),
            );
            return_rolls(r, ids.clone(), i + 1)
        },
    )
}

/// The end-of-turn check (§10.1, D61–D63).
pub(super) fn victory_check(r: &mut Res) {
    let beaten: Vec<bool> = (0..r.st.sides.len())
        .map(|i| side_beaten(&r.st, i))
        .collect();
    for (i, s) in r.st.sides.iter().enumerate() {
        let (lost, total) = measure(&r.st, i);
        let _ = s;
        r.steps.push(Step {
            title: k("callan.step.victory"),
            dice: Vec::new(),
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: m(
                "callan.victory.losses",
                &[
                    ("side", r.st.sides[i].name.clone()),
                    ("lost", lost.clone()),
                    ("total", total),
                    ("beaten", yes_no(beaten[i])),
                ],
            ),
        });
    }
    let msg = match (beaten.first().copied(), beaten.get(1).copied()) {
        (Some(true), Some(true)) => {
            r.st.draw = true;
            Some(k("callan.victory.draw"))
        }
        (Some(true), _) => {
            r.st.winner = Some(1);
            Some(m(
                "callan.victory.wins",
                &[("side", r.st.sides[1].name.clone())],
            ))
        }
        (_, Some(true)) => {
            r.st.winner = Some(0);
            Some(m(
                "callan.victory.wins",
                &[("side", r.st.sides[0].name.clone())],
            ))
        }
        _ => None,
    };
    if let Some(msg) = msg {
        r.st.phase = Phase::Over;
        r.st.open = None;
        r.note(msg.clone());
        r.say(msg);
    }
}

/// A side's losses and strength as shown (weighted bases, or points), as text.
pub fn measure(st: &State, i: usize) -> (String, String) {
    let s = &st.sides[i];
    if st.cfg.victory_points {
        (s.lost_points.to_string(), s.points.to_string())
    } else {
        (halves(s.lost), halves(s.strength))
    }
}

/// Beaten: losses strictly beyond the threshold (D63).
pub fn side_beaten(st: &State, i: usize) -> bool {
    let s = &st.sides[i];
    let pct = st.cfg.threshold_pct;
    if st.cfg.victory_points {
        s.lost_points * 100 > s.points * pct
    } else {
        s.lost * 100 > s.strength * pct
    }
}
