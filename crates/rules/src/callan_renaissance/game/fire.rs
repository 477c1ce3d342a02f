//! Fire (§6).

use super::*;

pub(super) fn refuse(code: &str, field: &str, key: &str, unit: &UnitState) -> Rejection {
    reject(code, Some(field), m(key, &[("unit", unit.name.clone())]))
}

/// A Swiss unit fixed on the Landsknechts by "Niente soldi" stays so while an enemy Landsknecht
/// unit is left in the battle (D59).
pub fn fixated_now(st: &State, u: &UnitState) -> bool {
    u.fixated
        && st.units.iter().any(|e| {
            e.side != u.side
                && is_landsknecht(e)
                && matches!(e.status, Status::Ok | Status::Retiring | Status::Waiting)
        })
}

/// Whether it is `side`'s card of `phase` now, or its Joker repeating it.
pub(super) fn card_is(st: &State, side: usize, phase: CardPhase) -> bool {
    st.open.as_ref().is_some_and(|o| {
        o.side == Some(side)
            && (o.phase == phase || (o.phase == CardPhase::Joker && o.repeat == Some(phase)))
    })
}

pub(super) fn joker_open(st: &State) -> bool {
    st.open
        .as_ref()
        .is_some_and(|o| o.phase == CardPhase::Joker && o.side.is_some())
}

pub(super) fn phase_name(st: &State) -> String {
    match &st.open {
        Some(o) => match o.side {
            Some(s) => m(
                "callan.card.phase",
                &[
                    ("side", st.sides[s].name.clone()),
                    ("phase", format!("@callan.phase.{}", o.phase.id())),
                ],
            ),
            None => k("callan.card.joker-ignored"),
        },
        None => k("callan.card.none"),
    }
}

/// A volley's fields: a `fire`'s, or a `volley`'s (short range only).
pub(super) struct Shot<'a> {
    unit: Option<&'a str>,
    target: Option<&'a str>,
    short_bases: Option<u32>,
    long_bases: Option<u32>,
    cover: Option<&'a str>,
    dense: bool,
    downhill: bool,
    over_friends: bool,
    nearest: bool,
    moved: bool,
}

impl<'a> Shot<'a> {
    fn of(a: &'a Action) -> Option<(Shot<'a>, bool)> {
        Some(match a {
            Action::Fire {
                unit,
                target,
                short_bases,
                long_bases,
                cover,
                dense,
                downhill,
                over_friends,
                nearest,
                moved,
                ..
            } => (
                Shot {
                    unit: unit.id(),
                    target: target.id(),
                    short_bases: *short_bases,
                    long_bases: *long_bases,
                    cover: cover.as_deref(),
                    dense: *dense,
                    downhill: *downhill,
                    over_friends: *over_friends,
                    nearest: nearest.unwrap_or(false),
                    moved: *moved,
                },
                false,
            ),
            Action::Volley {
                unit,
                target,
                short_bases,
                ..
            } => (
                Shot {
                    unit: Some(unit),
                    target: Some(target),
                    short_bases: *short_bases,
                    long_bases: None,
                    cover: None,
                    dense: false,
                    downhill: false,
                    over_friends: false,
                    nearest: false,
                    moved: false,
                },
                true,
            ),
            _ => return None,
        })
    }
}

pub(super) fn fire(st: &State, a: &Action) -> Result<P, Rejection> {
    let (a, volley) = Shot::of(a).ok_or_else(wrong)?;
    let u = unit_at(st, "unit", a.unit)?;
    let t = unit_at(st, "target", a.target)?;
    if t.side == u.side {
        return Err(refuse("same-side", "target", "callan.reject.own-side", t));
    }
    // A pursuer is still on the table until it leaves it.
    if !t.on_table() && t.status != Status::Pursuing {
        return Err(refuse(
            "not-on-table",
            "target",
            "callan.reject.not-on-table",
            t,
        ));
    }
    if !u.on_table() || u.status == Status::Fleeing {
        return Err(refuse("cannot-fire", "unit", "callan.reject.cannot-act", u));
    }
    let Some(weapon) = u.weapon else {
        return Err(refuse(
            "no-missiles",
            "unit",
            "callan.reject.no-missiles",
            u,
        ));
    };
    let firing = u.firing_bases();
    let short = count("short_bases", a.short_bases, firing)?;
    let long = count("long_bases", a.long_bases, firing)?;
    if short + long == 0 {
        return Err(reject(
            "no-bases",
            Some("short_bases"),
            m("callan.reject.no-bases", &[("max", firing.to_string())]),
        ));
    }
    if short + long > firing {
        return Err(reject(
            "too-many-bases",
            Some("short_bases"),
            m(
                "callan.reject.too-many-bases",
                &[("unit", u.name.clone()), ("max", firing.to_string())],
            ),
        ));
    }
    if weapon == Weapon::Giavellotti && long > 0 {
        return Err(refuse(
            "out-of-range",
            "long_bases",
            "callan.reject.javelins-short",
            u,
        ));
    }
    if u.exploded {
        return Err(refuse("exploded", "unit", "callan.reject.exploded", u));
    }
    if u.troop == Troop::CavalleriaLeggera && u.attacked {
        return Err(refuse("attacked", "unit", "callan.reject.attacked-no-fire", u).not_now());
    }
    if in_combat(st, &t.id) {
        return Err(refuse(
            "target-in-melee",
            "target",
            "callan.reject.target-in-melee",
            t,
        ));
    }
    if in_combat(st, &u.id) {
        return Err(refuse("in-melee", "unit", "callan.reject.in-melee", u));
    }
    let moved_fire = a.moved;
    let joker = joker_open(st) && card_is(st, u.side, CardPhase::Fire);
    if volley {
        // The veteran volley (D24): held at the fire card, fired at short range in the enemy's move.
        if !u.held_fire {
            return Err(refuse("no-held-fire", "unit", "callan.reject.no-held-fire", u).not_now());
        }
        let enemy_moving = st.open.as_ref().is_some_and(|o| {
            o.side == Some(t.side) && matches!(o.phase, CardPhase::Infantry | CardPhase::Cavalry)
        });
        if !enemy_moving {
            return Err(refuse("out-of-phase", "unit", "callan.reject.volley-when", u).not_now());
        }
        if long > 0 {
            return Err(refuse(
                "short-only",
                "long_bases",
                "callan.reject.volley-short",
                u,
            ));
        }
    } else if moved_fire {
        // Move and fire: arquebusiers and crossbowmen at their infantry card; light horse on
        // their cavalry move (003, Movimento; D17).
        let phase = if u.troop.is_cavalry() {
            CardPhase::Cavalry
        } else {
            CardPhase::Infantry
        };
        if !card_is(st, u.side, phase) {
            return Err(reject(
                "out-of-phase",
                Some("moved"),
                m("callan.reject.not-now", &[("now", phase_name(st))]),
            )
            .not_now());
        }
        if !(u.troop.is_shot() || u.troop == Troop::CavalleriaLeggera) {
            return Err(refuse(
                "cannot-move-fire",
                "moved",
                "callan.reject.move-fire",
                u,
            ));
        }
        if u.fired {
            return Err(refuse("fired", "unit", "callan.reject.fired", u).not_now());
        }
    } else {
        if !card_is(st, u.side, CardPhase::Fire) {
            return Err(reject(
                "out-of-phase",
                Some("action"),
                m("callan.reject.not-now", &[("now", phase_name(st))]),
            )
            .not_now());
        }
        if u.fired && !joker {
            return Err(refuse("fired", "unit", "callan.reject.fired", u).not_now());
        }
        if joker {
            if st.open.as_ref().is_some_and(|o| o.joker_used) {
                return Err(refuse("joker-used", "unit", "callan.reject.joker-used", u).not_now());
            }
            if !u.fired {
                return Err(refuse("joker-unit", "unit", "callan.reject.joker-unit", u).not_now());
            }
            if weapon == Weapon::CannonePesante {
                return Err(refuse("reloading", "unit", "callan.reject.reloading", u).not_now());
            }
        }
    }
    if weapon == Weapon::CannonePesante {
        if let Some(tf) = u.fired_turn {
            if tf + 1 >= st.turn && !(tf == st.turn && joker) {
                return Err(refuse("reloading", "unit", "callan.reject.reloading", u).not_now());
            }
        }
    }
    if weapon.is_gun() && !a.nearest && st.commander_of(&u.id).is_none() {
        return Err(refuse(
            "nearest-enemy",
            "nearest",
            "callan.reject.nearest",
            u,
        ));
    }
    if a.over_friends && !(weapon.is_gun() || u.troop == Troop::Arcieri) {
        return Err(refuse(
            "over-friends",
            "over_friends",
            "callan.reject.over-friends",
            u,
        ));
    }
    let cover = match a.cover {
        None => Cover::None,
        Some(c) => Cover::from_id(c).ok_or_else(|| {
            reject(
                "bad-choice",
                Some("cover"),
                m(
                    "callan.reject.choice",
                    &[
                        ("field", "cover".into()),
                        ("allowed", "none, wall, fortification, wood_edge".into()),
                    ],
                ),
            )
        })?,
    };
    let v = VolleyIn {
        weapon,
        short_bases: short,
        long_bases: long,
        moved: moved_fire && !u.troop.is_cavalry(),
        disordered: u.disordered,
        dispersed: (t.open_order && t.troop.is_foot()) || t.troop.is_gun(),
        target_on_foot: t.troop.is_foot(),
        cover,
        screen: t.screen > 0,
        riccio: t.riccio,
        dense: a.dense,
        downhill: a.downhill,
        javelin_hit: st.cfg.javelin_hit,
    };
    let groups = volley_groups(&v);
    let commander = st.commander_of(&u.id).is_some();
    let uid = u.id.clone();
    let tid = t.id.clone();
    let uname = u.name.clone();
    let tname = t.name.clone();
    let mut r0 = Res::new(st);
    {
        let me = r0.st.unit_mut(&uid).expect("firer");
        if volley {
            me.held_fire = false;
        } else {
            me.fired = true;
            if moved_fire {
                me.moved = true;
                me.activated = true;
            }
            if weapon == Weapon::CannonePesante {
                me.fired_turn = Some(st.turn);
            }
        }
    }
    if let Some(o) = r0.st.open.as_mut() {
        if joker {
            o.joker_used = true;
        } else if moved_fire && !volley {
            o.troops_moved = true;
        }
    }
    let is_gun = weapon.is_gun();
    let title = m(
        "callan.step.fire",
        &[("unit", uname.clone()), ("target", tname.clone())],
    );
    // Roll each group, the commander's re-roll on the first group with a miss (D22).
    let g = Rc::new(groups);
    Ok(
        roll_groups(g.clone(), 0, Vec::new(), is_gun, commander, uname.clone()).and_then(
            move |pools| {
                let mut r = r0.clone();
                let mut hits = 0;
                let mut ones = 0;
                let mut dice = Vec::new();
                let mut mods: Vec<Modifier> = Vec::new();
                for (grp, p) in g.iter().zip(&pools) {
                    hits += p.hits;
                    ones += p.ones;
                    dice.extend(p.dice());
                    mods.extend(grp.mods.iter().cloned());
                }
                let exploded = is_gun && ones >= 2;
                let hit_names: Vec<String> = g
                    .iter()
                    .map(|x| {
                        m(
                            "callan.fire.group",
                            &[
                                (
                                    "range",
                                    k(if x.short {
                                        "callan.range.short"
                                    } else {
                                        "callan.range.long"
                                    }),
                                ),
                                ("dice", x.dice.to_string()),
                                ("hit", x.hit.name()),
                            ],
                        )
                    })
                    .collect();
                let mut result_bits = vec![m("callan.fire.hits", &[("n", hits.to_string())])];
                r.facet(k("callan.facet.hits"), hits.to_string());
                if volley {
                    if let Some(t) = r.st.unit_mut(&tid) {
                        t.volley_hits += hits;
                    }
                }
                let lost = add_hits(&mut r, &tid, hits);
                if lost > 0 {
                    // "A meno che non abbiano perso una base a causa del tiro nemico" (D72).
                    if let Some(t) = r.st.unit_mut(&tid) {
                        t.lost_to_fire = true;
                    }
                }
                r.facet(k("callan.facet.bases-lost"), lost.to_string());
                result_bits.push(m(
                    "callan.fire.lost",
                    &[("unit", tname.clone()), ("n", lost.to_string())],
                ));
                if is_gun {
                    r.facet(k("callan.facet.exploded"), yes_no(exploded));
                    if exploded {
                        if let Some(me) = r.st.unit_mut(&uid) {
                            me.exploded = true;
                        }
                        result_bits.push(k("callan.fire.exploded"));
                        r.note(m("callan.fire.exploded-note", &[("unit", uname.clone())]));
                    }
                }
                r.steps.push(Step {
                    title: title.clone(),
                    dice,
                    modifiers: mods,
                    totals: vec![(k("callan.facet.hits"), hits as i32)],
                    result: format!("{} — {}", hit_names.join("; "), result_bits.join("; ")),
                });
                r.say(m(
                    "callan.said.fire",
                    &[
                        ("unit", uname.clone()),
                        ("target", tname.clone()),
                        ("hits", hits.to_string()),
                        ("lost", lost.to_string()),
                    ],
                ));
                heavy_losses(&mut r, &tid, After::Retire);
                let tid2 = tid.clone();
                wound_check(
                    r,
                    "fire",
                    &tid,
                    lost,
                    Rc::new(move |r| {
                        let _ = &tid2;
                        Plan::Done(r)
                    }),
                )
            },
        ),
    )
}

pub(super) fn roll_groups(
    g: Rc<Vec<resolve::Group>>,
    i: usize,
    done: Vec<Pool>,
    gun: bool,
    commander: bool,
    label: String,
) -> Plan<Vec<Pool>> {
    if i == g.len() {
        // The commander's one re-roll: the first group with a miss, best chance first.
        if commander {
            let pick = g
                .iter()
                .zip(&done)
                .enumerate()
                .filter(|(_, (grp, p))| p.hits < grp.dice)
                .max_by_key(|(_, (grp, _))| {
                    let (n, d) = grp.hit.chance();
                    n * 36 / d
                })
                .map(|(j, (grp, _))| (j, grp.hit));
            if let Some((j, hit)) = pick {
                let lbl = m("callan.die.commander", &[("who", label.clone())]);
                return resolve::pool(1, hit, &lbl).map(move |q| {
                    let mut d = done.clone();
                    d[j].hits += q.hits;
                    d[j].throws.extend(q.throws.iter().cloned());
                    d
                });
            }
        }
        return Plan::Done(done);
    }
    let grp = &g[i];
    let p = if gun {
        gun_throw(grp.dice, grp.hit, &label)
    } else {
        resolve::pool(grp.dice, grp.hit, &label)
    };
    let g2 = g.clone();
    p.and_then(move |pool| {
        let mut d = done.clone();
        d.push(pool);
        roll_groups(g2.clone(), i + 1, d, gun, commander, label.clone())
    })
}

pub(super) fn hold_fire(st: &State, unit: &str) -> Result<P, Rejection> {
    let u = unit_at(st, "unit", unit)?;
    if !card_is(st, u.side, CardPhase::Fire) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            m("callan.reject.not-now", &[("now", phase_name(st))]),
        )
        .not_now());
    }
    if !(u.quality == Quality::Veterani && u.troop == Troop::Archibugieri) {
        return Err(refuse(
            "not-veteran-arquebus",
            "unit",
            "callan.reject.hold-fire",
            u,
        ));
    }
    if u.fired {
        return Err(refuse("fired", "unit", "callan.reject.fired", u).not_now());
    }
    let mut r = Res::new(st);
    let id = u.id.clone();
    if let Some(me) = r.st.unit_mut(&id) {
        me.fired = true;
        me.held_fire = true;
    }
    let msg = m("callan.said.hold-fire", &[("unit", u.name.clone())]);
    r.step(k("callan.step.hold-fire"), msg.clone());
    r.say(msg);
    Ok(Plan::Done(r))
}

/// Whether a unit could shoot at all now, whatever its target and card: on the table, not
/// fleeing, with missiles, not exploded, not in a melee, light horse not having attacked. The
/// fire form offers only such units (issue 17, item 6); [`fire`] still checks everything.
pub fn may_shoot(st: &State, u: &UnitState) -> bool {
    u.on_table()
        && u.status != Status::Fleeing
        && u.weapon.is_some()
        && !u.exploded
        && !(u.troop == Troop::CavalleriaLeggera && u.attacked)
        && !in_combat(st, &u.id)
}

/// Whether a unit is in a melee (and so may not be shot at, nor shoot).
pub fn in_combat(st: &State, uid: &str) -> bool {
    st.combats.iter().any(|c| c.units.iter().any(|x| x == uid))
}
