//! Movement (§5).

use super::*;

pub(super) fn move_unit(st: &State, a: &Action) -> Result<P, Rejection> {
    let Action::Move {
        unit,
        kind,
        formation,
        steep_hill,
        difficult_terrain,
        low_hill,
        obstacle,
        cross_next_turn,
        finish_crossing,
        defended,
        pass_through,
        ..
    } = a
    else {
        return Err(wrong());
    };
    let u = unit_at(st, "unit", unit.as_str())?;
    let kind = kind.as_deref().unwrap_or("move");
    if !matches!(
        kind,
        "move" | "charge" | "reform" | "formation" | "retire" | "flee"
    ) {
        return Err(reject(
            "bad-choice",
            Some("kind"),
            m(
                "callan.reject.choice",
                &[
                    ("field", "kind".into()),
                    (
                        "allowed",
                        "move, charge, reform, formation, retire, flee".into(),
                    ),
                ],
            ),
        ));
    }
    let phase = if u.troop.is_cavalry() {
        CardPhase::Cavalry
    } else {
        CardPhase::Infantry
    };
    if !card_is(st, u.side, phase) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            m(
                "callan.reject.move-when",
                &[
                    ("unit", u.name.clone()),
                    ("phase", format!("@callan.phase.{}", phase.id())),
                    ("now", phase_name(st)),
                ],
            ),
        )
        .not_now());
    }
    let joker = joker_open(st);
    if joker {
        if st.open.as_ref().is_some_and(|o| o.joker_used) {
            return Err(refuse("joker-used", "unit", "callan.reject.joker-used", u).not_now());
        }
        if !u.moved || !u.fought_with.is_empty() {
            return Err(refuse("joker-unit", "unit", "callan.reject.joker-unit", u).not_now());
        }
    } else if u.activated {
        return Err(refuse("activated", "unit", "callan.reject.activated", u).not_now());
    }
    if u.orders_failed {
        return Err(refuse("orders-failed", "unit", "callan.reject.orders-failed", u).not_now());
    }
    match u.status {
        Status::Ok => {}
        Status::Retiring if kind == "retire" => {}
        Status::Fleeing if kind == "flee" => {}
        Status::Retiring => {
            return Err(refuse(
                "must-retire",
                "kind",
                "callan.reject.must-retire",
                u,
            ))
        }
        Status::Fleeing => return Err(refuse("must-flee", "kind", "callan.reject.must-flee", u)),
        _ => {
            return Err(refuse(
                "not-on-table",
                "unit",
                "callan.reject.not-on-table",
                u,
            ))
        }
    }
    if in_combat(st, &u.id) {
        return Err(refuse("in-melee", "unit", "callan.reject.in-melee", u));
    }
    if u.troop == Troop::ArtiglieriaPesante {
        return Err(refuse(
            "immobile",
            "unit",
            "callan.reject.heavy-gun-moves",
            u,
        ));
    }
    // "A meno che non abbiano perso una base a causa del tiro nemico all'inizio del turno …, le
    // truppe in disordine possono riformare i loro ranghi" (003, Disordine; D72).
    if kind == "reform" && u.lost_to_fire {
        return Err(refuse("lost-to-fire", "kind", "callan.reject.reform-after-fire", u).not_now());
    }
    if u.riccio && kind == "move" {
        return Err(refuse("riccio", "kind", "callan.reject.riccio-moves", u));
    }
    if fixated_now(st, u) && kind == "retire" {
        // The field at fault is the kind: the same unit may still move or change formation
        // (found by `tercio fuzz`: the refusal named the unit).
        return Err(refuse("fixated", "kind", "callan.reject.fixated", u));
    }
    let formation = formation.as_deref();
    // A riccio cannot move nor attack: not for Swiss bent on the Landsknechts (D59).
    if fixated_now(st, u) && kind == "formation" && formation == Some("riccio") {
        return Err(refuse(
            "fixated",
            "formation",
            "callan.reject.fixated-riccio",
            u,
        ));
    }
    // A gun limbers and unlimbers within its 2 BW: it has no formation to change (D66).
    if u.troop.is_gun() && kind == "formation" {
        return Err(refuse(
            "gun-formation",
            "kind",
            "callan.reject.gun-formation",
            u,
        ));
    }
    if kind == "formation" {
        match formation {
            Some("riccio") if u.troop == Troop::Picchieri => {}
            Some("line") => {}
            Some("open") if u.troop.is_shot() => {}
            Some("close") => {}
            _ => {
                return Err(reject(
                    "bad-choice",
                    Some("formation"),
                    m("callan.reject.formation", &[("unit", u.name.clone())]),
                ))
            }
        }
    }
    if kind == "charge" && !u.troop.is_cavalry() && u.troop.is_shot() {
        return Err(refuse(
            "shot-charge",
            "kind",
            "callan.reject.shot-charge",
            u,
        ));
    }
    // "Le colline basse non influenzano il movimento, ma nessuna truppa può caricarle" (D73).
    if kind == "charge" && *low_hill {
        return Err(refuse("low-hill", "low_hill", "callan.reject.low-hill", u));
    }
    if kind == "charge" && u.half() {
        return Err(refuse("half-lost", "kind", "callan.reject.half-lost", u));
    }
    if *difficult_terrain && u.troop.is_cavalry() {
        return Err(refuse(
            "no-cavalry",
            "difficult_terrain",
            "callan.reject.cavalry-terrain",
            u,
        ));
    }
    let passing = passing_through(st, u, pass_through.as_deref())?;
    // Obstacles are named by the players: one name, whatever the case or spaces (D58).
    let obstacle = obstacle
        .as_deref()
        .map(|o| o.trim().to_lowercase())
        .filter(|o| !o.is_empty());
    let finishing = finishing_crossing(st, u, obstacle.as_deref(), *finish_crossing)?;
    // Finishing a crossing is this move: it crosses no other obstacle (D74).
    let obstacle = obstacle.filter(|_| finishing.is_none());
    // The allowance, in BW and cm (§3.1).
    let (mv, ch) = u.troop.move_bw();
    let swiss_charge = kind == "charge"
        && u.troop == Troop::Picchieri
        && u.nationality.as_deref() == Some("svizzeri");
    let mut bw = match kind {
        "charge" if swiss_charge => 6,
        "charge" => ch,
        "retire" | "flee" => st.cfg.retire_bw,
        "reform" | "formation" => mv.div_ceil(2),
        _ => mv,
    };
    if u.fired && u.troop.is_shot() && kind == "move" {
        bw = 4;
    }
    if *difficult_terrain && kind == "move" {
        bw = if u.open_order { 4 } else { 2 };
    }
    let uid = u.id.clone();
    let name = u.name.clone();
    let mut r = Res::new(st);
    if let Some(o) = r.st.open.as_mut() {
        if joker {
            o.joker_used = true;
        } else {
            o.troops_moved = true;
        }
    }
    {
        let me = r.st.unit_mut(&uid).expect("unit");
        me.moved = true;
        me.charge_moved |= kind == "charge";
        me.activated = true;
        match (kind, formation) {
            ("formation", Some("riccio")) => me.riccio = true,
            ("formation", Some("line")) => me.riccio = false,
            ("formation", Some("open")) => me.open_order = true,
            ("formation", Some("close")) => me.open_order = false,
            ("reform", _) => me.disordered = false,
            _ => {}
        }
        if *difficult_terrain && !me.open_order && me.troop.is_foot() {
            me.disordered = true;
        }
        if kind == "flee" || kind == "retire" {
            me.riccio = false;
        }
    }
    let allowance = m(
        "callan.move.allowance",
        &[
            ("unit", name.clone()),
            ("kind", format!("@callan.move.{kind}")),
            ("bw", bw.to_string()),
            ("cm", st.cm(bw).to_string()),
        ],
    );
    r.step(k("callan.step.move"), allowance.clone());
    r.say(allowance);
    let turn = st.turn;
    if let Some(c) = &u.crossing {
        if let Some(me) = r.st.unit_mut(&uid) {
            me.crossing = None;
        }
        match &finishing {
            Some(_) => finish(&mut r, &uid, c, *defended, *cross_next_turn, turn),
            None => r.step(
                k("callan.step.obstacle"),
                m(
                    "callan.obstacle.gives-up",
                    &[
                        ("unit", name.clone()),
                        ("id", obstacle_name(st, &c.obstacle)),
                    ],
                ),
            ),
        }
    }
    if let Some((fid, disorders)) = &passing {
        let fname = st.unit(fid).map(|f| f.name.clone()).unwrap_or_default();
        if *disorders {
            if let Some(f) = r.st.unit_mut(fid) {
                f.disordered = true;
            }
        }
        r.step(
            k("callan.step.move"),
            m(
                if *disorders {
                    "callan.move.through-disorders"
                } else {
                    "callan.move.through-skirmishers"
                },
                &[("unit", name.clone()), ("friend", fname)],
            ),
        );
    }
    // Dice that may stop or disorder the move: orders (D57), the steep hill, the obstacle (D58).
    let exempt_orders = u.open_order
        || st.commander_of(&uid).is_some()
        || (kind == "charge"
            && (u.troop == Troop::Gendarmi
                || (u.troop == Troop::Picchieri && u.nationality.as_deref() == Some("svizzeri"))))
        || matches!(kind, "retire" | "flee");
    let orders = st.cfg.orders && !exempt_orders;
    let hill = *steep_hill && !u.open_order;
    let known = obstacle.as_ref().and_then(|o| st.obstacles.get(o).cloned());
    if let (Some(_), Some(d)) = (&obstacle, &known) {
        if d == "molto-difficile" && u.troop.is_cavalry() {
            return Err(refuse(
                "impassable",
                "obstacle",
                "callan.reject.impassable",
                u,
            ));
        }
    }
    let cavalry = u.troop.is_cavalry();
    let wait = *cross_next_turn;
    // "Qualsiasi ostacolo è "facile da attraversare" per la fanteria in ordine sparso, quindi
    // non tirare" (003, Preparazione del gioco): foot in open order, whatever the obstacle (D74).
    let open_foot = u.open_order && u.troop.is_foot();
    if let (Some(o), true) = (&obstacle, open_foot) {
        r.step(
            k("callan.step.obstacle"),
            m(
                "callan.obstacle.open-order",
                &[("id", obstacle_name(st, o))],
            ),
        );
    } else if let (Some(o), Some(d)) = (&obstacle, &known) {
        apply_obstacle(&mut r, &uid, o, d, cavalry, wait, turn);
    }
    let roll_obstacle = obstacle.is_some() && known.is_none() && !open_foot;
    if !orders && !hill && !roll_obstacle {
        return Ok(Plan::Done(r));
    }
    let uid2 = uid.clone();
    let name2 = name.clone();
    // Orders refused: nothing happens to the unit (D57), nor to a friend it would have passed
    // through (D71).
    let before = u.clone();
    let friend_before = passing.as_ref().and_then(|(fid, _)| st.unit(fid)).cloned();
    let after_orders: K = Rc::new(move |r: Res| {
        let Some(o) = obstacle.clone().filter(|_| roll_obstacle) else {
            return Plan::Done(r);
        };
        let uid = uid2.clone();
        let on = obstacle_name(&r.st, &o);
        Plan::die(
            Die::d6(m("callan.die.obstacle", &[("id", on.clone())])),
            move |f| {
                let mut r = r.clone();
                let d = match f {
                    4..=6 => "facile",
                    2 | 3 => "difficile",
                    _ => "molto-difficile",
                };
                r.st.obstacles.insert(o.clone(), d.to_string());
                r.facet(
                    k("callan.facet.obstacle"),
                    k(&format!("callan.obstacle.{d}")),
                );
                r.step(
                    k("callan.step.obstacle"),
                    m(
                        "callan.obstacle.rolled",
                        &[
                            ("id", on.clone()),
                            ("face", f.to_string()),
                            ("difficulty", format!("@callan.obstacle.{d}")),
                        ],
                    ),
                );
                apply_obstacle(&mut r, &uid, &o, d, cavalry, wait, turn);
                Plan::Done(r)
            },
        )
    });
    if !orders && !hill {
        return Ok(after_orders(r));
    }
    Ok(Plan::die(
        Die::d6(m("callan.die.orders", &[("unit", name2.clone())])),
        move |f| {
            let mut r = r.clone();
            if orders && f == 1 {
                // The unit does not move: it is not activated, and it may not try again this
                // turn (D57).
                if let Some(me) = r.st.unit_mut(&uid) {
                    *me = before.clone();
                    me.orders_failed = true;
                }
                if let Some(f) = &friend_before {
                    if let Some(x) = r.st.unit_mut(&f.id) {
                        *x = f.clone();
                    }
                }
                r.summary.clear();
                r.facet(k("callan.facet.obeys"), yes_no(false));
                let msg = m("callan.orders.refused", &[("unit", name.clone())]);
                r.step(k("callan.step.orders"), msg.clone());
                r.say(msg);
                return Plan::Done(r);
            }
            if orders {
                r.facet(k("callan.facet.obeys"), yes_no(true));
            }
            if hill && f == 2 {
                if let Some(me) = r.st.unit_mut(&uid) {
                    me.disordered = true;
                }
                r.facet(k("callan.facet.disordered"), yes_no(true));
                r.step(
                    k(if orders {
                        "callan.step.orders"
                    } else {
                        "callan.step.hill"
                    }),
                    m("callan.orders.hill-disorder", &[("unit", name.clone())]),
                );
            } else {
                if hill {
                    r.facet(k("callan.facet.disordered"), yes_no(false));
                }
                r.step(
                    k(if orders {
                        "callan.step.orders"
                    } else {
                        "callan.step.hill"
                    }),
                    m(
                        if orders {
                            "callan.orders.obeys"
                        } else {
                            "callan.orders.hill-safe"
                        },
                        &[("unit", name.clone()), ("face", f.to_string())],
                    ),
                );
            }
            after_orders(r)
        },
    ))
}

/// A skirmisher: a unit in open order, foot or light horse (D6, D71).
fn skirmisher(u: &UnitState) -> bool {
    u.open_order
}

/// The friend a move passes through and whether it is disordered (D71): "Gli schermagliatori
/// possono attraversare qualsiasi altra truppa (e viceversa). Altrimenti, le truppe non possono
/// attraversarsi tra loro" (003, Movimento), except that "la fanteria veterana può sempre
/// attraversare con successo qualsiasi truppa amica, ma solo disordinando l'altra unità" (003,
/// Qualità delle truppe). Refused otherwise, at `pass_through`.
fn passing_through(
    st: &State,
    u: &UnitState,
    friend: Option<&str>,
) -> Result<Option<(String, bool)>, Rejection> {
    let Some(fid) = friend else {
        return Ok(None);
    };
    let f = unit_at(st, "pass_through", fid)?;
    if f.side != u.side || f.id == u.id || !f.on_table() {
        return Err(refuse(
            "not-a-friend",
            "pass_through",
            "callan.reject.pass-friend",
            f,
        ));
    }
    if skirmisher(u) || skirmisher(f) {
        return Ok(Some((f.id.clone(), false)));
    }
    if u.quality == Quality::Veterani && u.troop.is_foot() {
        return Ok(Some((f.id.clone(), true)));
    }
    Err(reject(
        "no-passing",
        Some("pass_through"),
        m(
            "callan.reject.pass-through",
            &[("unit", u.name.clone()), ("friend", f.name.clone())],
        ),
    ))
}

/// The crossing a move finishes, if it finishes one (D74): a unit that reached an obstacle on an
/// earlier turn crosses it when the move says so (`finish_crossing`, or the obstacle named
/// again); any other move gives the crossing up. Refused: finishing with no crossing begun, in
/// the turn it was begun, or with another obstacle named.
fn finishing_crossing(
    st: &State,
    u: &UnitState,
    obstacle: Option<&str>,
    finish: bool,
) -> Result<Option<Crossing>, Rejection> {
    let Some(c) = &u.crossing else {
        if finish {
            return Err(refuse(
                "no-crossing",
                "finish_crossing",
                "callan.reject.no-crossing",
                u,
            ));
        }
        return Ok(None);
    };
    let names_it = obstacle == Some(c.obstacle.as_str());
    if finish && obstacle.is_some() && !names_it {
        return Err(reject(
            "one-obstacle",
            Some("obstacle"),
            m(
                "callan.reject.one-obstacle",
                &[
                    ("unit", u.name.clone()),
                    ("id", obstacle_name(st, &c.obstacle)),
                ],
            ),
        ));
    }
    if !finish && !names_it {
        return Ok(None);
    }
    if st.turn <= c.turn {
        let field = if finish {
            "finish_crossing"
        } else {
            "obstacle"
        };
        return Err(reject(
            "next-turn",
            Some(field),
            m(
                "callan.reject.cross-next-turn",
                &[
                    ("unit", u.name.clone()),
                    ("id", obstacle_name(st, &c.obstacle)),
                ],
            ),
        )
        .not_now());
    }
    Ok(Some(c.clone()))
}

/// A crossing begun on an earlier turn, finished (D74): a very difficult obstacle is crossed
/// and the foot are disordered; a difficult one waited at is crossed as easy if undefended,
/// otherwise it is difficult again (disordered now, or wait again).
fn finish(r: &mut Res, uid: &str, c: &Crossing, defended: bool, wait: bool, turn: u32) {
    let name = r.st.unit(uid).map(|u| u.name.clone()).unwrap_or_default();
    let key = if c.difficulty == "molto-difficile" {
        if let Some(u) = r.st.unit_mut(uid) {
            u.disordered = true;
        }
        "callan.obstacle.crossed-very"
    } else if !defended {
        "callan.obstacle.crossed-undefended"
    } else if wait {
        if let Some(u) = r.st.unit_mut(uid) {
            u.crossing = Some(Crossing { turn, ..c.clone() });
        }
        "callan.obstacle.waits-defended"
    } else {
        if let Some(u) = r.st.unit_mut(uid) {
            u.disordered = true;
        }
        "callan.obstacle.crossed-defended"
    };
    r.step(
        k("callan.step.obstacle"),
        m(
            key,
            &[("unit", name), ("id", obstacle_name(&r.st, &c.obstacle))],
        ),
    );
}

/// A unit meets an obstacle of difficulty `d` (D58, D74): an easy one ends its move on the far
/// side; a difficult one is crossed now in disorder or, with `wait`, next turn as easy if
/// undefended; a very difficult one is crossed by foot only next turn, never by cavalry.
pub(super) fn apply_obstacle(
    r: &mut Res,
    uid: &str,
    id: &str,
    d: &str,
    cavalry: bool,
    wait: bool,
    turn: u32,
) {
    let name = r.st.unit(uid).map(|u| u.name.clone()).unwrap_or_default();
    let begin = |r: &mut Res| {
        if let Some(u) = r.st.unit_mut(uid) {
            u.crossing = Some(Crossing {
                obstacle: id.to_string(),
                difficulty: d.to_string(),
                turn,
            });
        }
    };
    let key = match d {
        "difficile" if wait => {
            begin(r);
            "callan.obstacle.wait-difficult"
        }
        "difficile" => {
            if let Some(u) = r.st.unit_mut(uid) {
                u.disordered = true;
            }
            "callan.obstacle.cross-difficult"
        }
        "molto-difficile" if cavalry => "callan.obstacle.cavalry-never",
        "molto-difficile" => {
            begin(r);
            "callan.obstacle.cross-very"
        }
        _ => "callan.obstacle.cross-easy",
    };
    r.step(
        k("callan.step.obstacle"),
        m(key, &[("unit", name), ("id", obstacle_name(&r.st, id))]),
    );
}

pub(super) fn commander(st: &State, cid: &str, join: Option<&str>) -> Result<P, Rejection> {
    let c = st.commanders.iter().find(|c| c.id == cid).ok_or_else(|| {
        reject(
            "unknown-commander",
            Some("commander"),
            m(
                "callan.reject.unknown-commander",
                &[("id", crate::text::quoted(cid))],
            ),
        )
    })?;
    if c.status != CommanderStatus::Active {
        return Err(reject(
            "commander-lost",
            Some("commander"),
            m("callan.reject.commander-lost", &[("name", c.name.clone())]),
        ));
    }
    if !card_is(st, c.side, CardPhase::Infantry) || joker_open(st) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            m("callan.reject.commander-when", &[("now", phase_name(st))]),
        )
        .not_now());
    }
    // "Muovi sempre il Comandante prima di muovere qualsiasi tua truppa" (003, Comandanti; D13).
    if st.open.as_ref().is_some_and(|o| o.troops_moved) {
        return Err(reject(
            "troops-moved",
            Some("commander"),
            m("callan.reject.commander-first", &[("name", c.name.clone())]),
        )
        .not_now());
    }
    let join = join.map(str::to_string);
    if let Some(j) = &join {
        let u = unit_at(st, "join", j.as_str())?;
        if u.side != c.side || !u.on_table() {
            return Err(reject(
                "bad-unit",
                Some("join"),
                m("callan.reject.join", &[("unit", u.name.clone())]),
            ));
        }
    }
    let mut r = Res::new(st);
    let name = c.name.clone();
    if let Some(me) = r.st.commanders.iter_mut().find(|x| x.id == cid) {
        me.unit = join.clone();
        me.moved = true;
    }
    let msg = match &join {
        Some(j) => m(
            "callan.commander.joins",
            &[
                ("name", name),
                (
                    "unit",
                    st.unit(j).map(|u| u.name.clone()).unwrap_or_default(),
                ),
            ],
        ),
        None => m(
            "callan.commander.alone",
            &[
                ("name", name),
                ("bw", "8".into()),
                ("cm", st.cm(8).to_string()),
            ],
        ),
    };
    r.step(k("callan.step.commander"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}
