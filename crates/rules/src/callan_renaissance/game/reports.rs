//! The players' reports.

use super::*;

pub(super) fn panic_action(st: &State, unit: &str, reason: Option<&str>) -> Result<P, Rejection> {
    let u = unit_at(st, "unit", unit)?;
    let reason = reason.unwrap_or("friends_fleeing");
    let trigger = match reason {
        "friends_fleeing" => Trigger::FriendsFleeing,
        "rout_seen" => Trigger::RoutSeen,
        _ => {
            return Err(reject(
                "bad-choice",
                Some("reason"),
                m(
                    "callan.reject.choice",
                    &[
                        ("field", "reason".into()),
                        ("allowed", "friends_fleeing, rout_seen".into()),
                    ],
                ),
            ))
        }
    };
    if trigger == Trigger::RoutSeen && u.quality != Quality::Reclute {
        return Err(refuse("not-raw", "reason", "callan.reject.rout-seen", u));
    }
    // "i Picchieri ignorano tutti" (003, Disciplina 2 b); raw pike still test on a rout, the
    // trigger of their class (D69).
    if trigger == Trigger::FriendsFleeing && u.troop == Troop::Picchieri {
        return Err(refuse(
            "pike-ignore",
            "reason",
            "callan.reject.pike-ignore",
            u,
        ));
    }
    if !matches!(u.status, Status::Ok | Status::Retiring) {
        return Err(refuse(
            "not-on-table",
            "unit",
            "callan.reject.not-on-table",
            u,
        ));
    }
    let r = Res::new(st);
    let id = u.id.clone();
    Ok(panic_test(
        r,
        "report",
        &id,
        trigger,
        None,
        false,
        Rc::new(|r, _| Plan::Done(r)),
    ))
}

pub(super) fn pursuit(st: &State, unit: &str, edge: bool) -> Result<P, Rejection> {
    let u = unit_at(st, "unit", unit)?;
    if u.status != Status::Pursuing {
        return Err(refuse(
            "not-pursuing",
            "unit",
            "callan.reject.not-pursuing",
            u,
        ));
    }
    let mut r = Res::new(st);
    let id = u.id.clone();
    let french = u.troop == Troop::Gendarmi && u.nationality.as_deref() == Some("francesi");
    let msg;
    if let Some(me) = r.st.unit_mut(&id) {
        me.activated = true;
        me.moved = true;
    }
    if edge && u.troop == Troop::CavalleriaLeggera {
        let enemy = 1 - u.side.min(1);
        let s = &r.st.sides[enemy];
        if s.camp && !s.camp_looted {
            let v = s.camp_value;
            let s = &mut r.st.sides[enemy];
            s.camp_looted = true;
            s.lost += 2 * v;
            s.lost_points += 3 * v;
            msg = m(
                "callan.pursuit.loot",
                &[("unit", u.name.clone()), ("value", v.to_string())],
            );
        } else {
            msg = m("callan.pursuit.no-camp", &[("unit", u.name.clone())]);
        }
        if let Some(me) = r.st.unit_mut(&id) {
            me.status = Status::Looting;
        }
    } else if edge && french {
        if let Some(me) = r.st.unit_mut(&id) {
            me.status = Status::Away;
        }
        msg = m("callan.pursuit.away", &[("unit", u.name.clone())]);
    } else if edge {
        // Off the table in pursuit is not lost (C9, D54): it comes back at the edge when its
        // turns of pursuit are over.
        msg = m(
            "callan.pursuit.off-returns",
            &[("unit", u.name.clone()), ("n", u.pursuit_turns.to_string())],
        );
    } else {
        msg = m(
            "callan.pursuit.moves",
            &[
                ("unit", u.name.clone()),
                ("bw", "10".into()),
                ("cm", st.cm(10).to_string()),
            ],
        );
    }
    r.note(msg.clone());
    r.step(k("callan.step.pursuit"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

pub(super) fn rally(st: &State, cid: &str, from: &str, to: &str) -> Result<P, Rejection> {
    let from = unit_at(st, "from", from)?;
    let to = unit_at(st, "to", to)?;
    let led = st.commander_of(&from.id).is_some_and(|c| c.id == cid);
    if !led {
        return Err(refuse(
            "not-led",
            "commander",
            "callan.reject.rally-led",
            from,
        ));
    }
    if !from.troop.is_cavalry() || !from.exhausted() {
        return Err(refuse(
            "not-exhausted",
            "from",
            "callan.reject.rally-exhausted",
            from,
        ));
    }
    if to.troop != from.troop || to.side != from.side || to.id == from.id || to.status != Status::Ok
    {
        return Err(refuse("bad-rally", "to", "callan.reject.rally-to", to));
    }
    if to.bases + from.bases > to.bases_start {
        return Err(refuse(
            "too-many-bases",
            "to",
            "callan.reject.rally-full",
            to,
        ));
    }
    let mut r = Res::new(st);
    let n = from.bases;
    if let Some(f) = r.st.unit_mut(&from.id) {
        f.bases = 0;
        f.status = Status::Lost;
        f.counted = true;
    }
    if let Some(t) = r.st.unit_mut(&to.id) {
        t.bases += n;
    }
    // The commander brought them: he now leads the reinforced squadron.
    if let Some(c) = r.st.commanders.iter_mut().find(|c| c.id == cid) {
        c.unit = Some(to.id.clone());
    }
    let msg = m(
        "callan.rally.done",
        &[
            ("from", from.name.clone()),
            ("to", to.name.clone()),
            ("n", n.to_string()),
        ],
    );
    r.note(msg.clone());
    r.step(k("callan.step.rally"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

pub(super) fn off_table(st: &State, unit: &str) -> Result<P, Rejection> {
    let u = unit_at(st, "unit", unit)?;
    if !u.on_table() {
        return Err(refuse(
            "not-on-table",
            "unit",
            "callan.reject.not-on-table",
            u,
        ));
    }
    let mut r = Res::new(st);
    let id = u.id.clone();
    let left = u.bases;
    count_loss(&mut r.st, &id, left);
    if let Some(me) = r.st.unit_mut(&id) {
        me.status = Status::Lost;
        me.counted = true;
    }
    r.st.combats.retain(|c| !c.units.contains(&id));
    let msg = m("callan.unit.off-table", &[("unit", u.name.clone())]);
    r.note(msg.clone());
    r.step(k("callan.step.off-table"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

pub(super) fn obstacle(st: &State, id: &str, d: Option<&str>) -> Result<P, Rejection> {
    let id = id.trim().to_lowercase();
    let id = id.as_str();
    if let Some(d) = d {
        if !matches!(d, "facile" | "difficile" | "molto-difficile") {
            return Err(reject(
                "bad-choice",
                Some("difficulty"),
                m(
                    "callan.reject.choice",
                    &[
                        ("field", "difficulty".into()),
                        ("allowed", "facile, difficile, molto-difficile".into()),
                    ],
                ),
            ));
        }
    }
    if st.obstacles.contains_key(id) {
        return Err(reject(
            "known-obstacle",
            Some("id"),
            m(
                "callan.reject.obstacle-known",
                &[("id", obstacle_name(st, id))],
            ),
        ));
    }
    let Some(d) = d else {
        return Err(reject(
            "missing-field",
            Some("difficulty"),
            field_msg("callan.reject.missing", "difficulty", &[]),
        ));
    };
    let mut r = Res::new(st);
    r.st.obstacles.insert(id.to_string(), d.to_string());
    let msg = m(
        "callan.obstacle.declared",
        &[
            ("id", obstacle_name(st, id)),
            ("difficulty", format!("@callan.obstacle.{d}")),
        ],
    );
    r.step(k("callan.step.obstacle"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

pub(super) fn set_state(st: &State, a: &Action) -> Result<P, Rejection> {
    let Action::SetState {
        unit,
        disordered: dis,
        open_order: open,
        riccio,
        loses_first,
        ..
    } = a
    else {
        return Err(wrong());
    };
    let (dis, open, riccio) = (*dis, *open, *riccio);
    let u = unit_at(st, "unit", unit.as_str())?;
    let mut r = Res::new(st);
    let id = u.id.clone();
    if riccio == Some(true) && u.troop != Troop::Picchieri {
        return Err(refuse("not-pike", "riccio", "callan.reject.formation", u));
    }
    // Only shot foot go in and out of open order; light horse are in it by the scenario (D6).
    if open.is_some_and(|o| o != u.open_order) && !u.troop.is_shot() {
        return Err(refuse(
            "no-open-order",
            "open_order",
            "callan.reject.open-order",
            u,
        ));
    }
    let lose_first = match loses_first.as_deref() {
        None => None,
        Some("pike") => Some(None),
        Some(kind) => {
            let has = match kind {
                "screen" => u.screen > 0,
                "special" => u.special.is_some(),
                "halberd" => u.halberd,
                "shot" => u.shot > 0,
                _ => false,
            };
            if !has {
                return Err(refuse(
                    "bad-choice",
                    "loses_first",
                    "callan.reject.loses-first",
                    u,
                ));
            }
            Some(Some(kind.to_string()))
        }
    };
    if let Some(me) = r.st.unit_mut(&id) {
        if let Some(d) = dis {
            me.disordered = d;
        }
        if let Some(o) = open {
            me.open_order = o;
        }
        if let Some(x) = riccio {
            me.riccio = x;
        }
        if let Some(l) = &lose_first {
            me.lose_first = l.clone();
        }
    }
    let now = r.st.unit(&id).expect("unit");
    let msg = m(
        "callan.state.set",
        &[
            ("unit", u.name.clone()),
            ("disordered", yes_no(now.disordered)),
            ("open", yes_no(now.open_order)),
            ("riccio", yes_no(now.riccio)),
        ],
    );
    r.step(k("callan.step.state"), msg.clone());
    r.say(msg);
    if let Some(l) = &lose_first {
        r.step(
            k("callan.step.state"),
            m(
                "callan.state.loses-first",
                &[
                    ("unit", u.name.clone()),
                    (
                        "kind",
                        format!("@callan.lose.{}", l.as_deref().unwrap_or("pike")),
                    ),
                ],
            ),
        );
    }
    Ok(Plan::Done(r))
}

/// What the game waits for, in a sentence.
/// A card by its rank and colour ("Q rossa"), or the Joker.
pub fn card_text(card: u8) -> String {
    match card_colour(card) {
        None => k("callan.card.joker-name"),
        Some(c) => m(
            "callan.card.name",
            &[
                ("rank", tables::card_rank(card).to_string()),
                (
                    "colour",
                    if c == 0 {
                        "@callan.colour.red".into()
                    } else {
                        "@callan.colour.black".into()
                    },
                ),
            ],
        ),
    }
}

pub fn waiting_for(st: &State) -> String {
    match st.phase {
        Phase::Setup => k("callan.wait.start"),
        Phase::Over => k("callan.wait.over"),
        Phase::Cards => {
            if let Some(side) = question_side(st) {
                return m(
                    "callan.wait.question",
                    &[("side", st.sides[side].name.clone())],
                );
            }
            let due: Vec<String> = st
                .combats
                .iter()
                .filter(|c| c.due)
                .map(|c| {
                    let n = |i: usize| {
                        st.unit(&c.units[i])
                            .map_or(String::new(), |u| u.name.clone())
                    };
                    m(
                        "callan.wait.combat",
                        &[("id", c.id.to_string()), ("a", n(0)), ("b", n(1))],
                    )
                })
                .collect();
            if !due.is_empty() {
                return m("callan.wait.combats", &[("combats", due.join("; "))]);
            }
            if st.cards_left().is_empty() {
                k("callan.wait.end-turn")
            } else {
                m("callan.wait.draw", &[("now", phase_name(st))])
            }
        }
    }
}

pub fn verdict(st: &State) -> Option<String> {
    if st.draw {
        return Some(k("callan.victory.draw"));
    }
    st.winner
        .map(|w| m("callan.victory.wins", &[("side", st.sides[w].name.clone())]))
}

pub fn term_of(t: Troop) -> String {
    term(t.id())
}
