//! Forms.

use super::*;
use std::collections::BTreeMap;

pub(super) fn unit_choices(
    st: &State,
    side: Option<usize>,
    p: impl Fn(&UnitState) -> bool,
) -> Vec<Choice> {
    st.units
        .iter()
        .filter(|u| side.is_none_or(|s| u.side == s) && p(u))
        .map(|u| {
            Choice::new(
                u.id.clone(),
                format!("{} ({}/{})", u.name, u.bases, u.bases_start),
            )
        })
        .collect()
}

pub(super) fn choices(list: &[(&str, &str)]) -> Vec<Choice> {
    list.iter().map(|(v, l)| Choice::new(*v, k(l))).collect()
}

/// A form for the action of canonical name `action`, titled from its catalogue key.
pub(super) fn form(action: &str, fields: Vec<FormField>, odds: bool) -> ActionForm {
    let key = action_key(action);
    ActionForm::new(
        action,
        &k(&format!("callan.action.{key}")),
        &k(&format!("callan.hint.{key}")),
        fields,
        odds,
    )
}

pub(super) fn f_choice(name: &str, options: Vec<Choice>, optional: bool) -> FormField {
    let f = FormField::choice(name, &k(&format!("callan.field.{name}")), options, optional);
    // What acts: choosing another starts the form afresh.
    if matches!(name, "unit" | "attacker") {
        f.resets()
    } else {
        f
    }
}

pub(super) fn f_flag(name: &str) -> FormField {
    FormField::flag(name, &k(&format!("callan.field.{name}")))
}

pub(super) fn f_num(name: &str, max: i64, value: i64) -> FormField {
    FormField::number(name, &k(&format!("callan.field.{name}")), 0, max, value)
}

pub fn forms(st: &State, side: Option<&str>) -> Vec<ActionForm> {
    let mut out = turn_forms(st, side);
    // The start, a card drawn with nothing to act at the last one, the end of a turn with
    // nothing left: the page takes them by itself (issue 43). A panic test, a rally, a unit
    // off the table, an obstacle and a unit's state are the game master's whatever the step.
    crate::interface::forms::mark_auto(
        &mut out,
        &["panic-test", "rally", "off-table", "obstacle", "state"],
    );
    out
}

fn turn_forms(st: &State, side: Option<&str>) -> Vec<ActionForm> {
    let mine = side.and_then(|s| st.sides.iter().position(|x| x.id == s));
    if side.is_some() && mine.is_none() {
        return Vec::new();
    }
    let gm = side.is_none();
    let mut out = Vec::new();
    match st.phase {
        Phase::Over => return out,
        Phase::Setup => {
            if gm {
                out.push(form("start", Vec::new(), false).primary());
                out.push(obstacle_form(st));
            }
            return out;
        }
        Phase::Cards => {}
    }
    if let Some(qs) = game::question_side(st) {
        if gm || mine == Some(qs) {
            out.push(
                form(
                    "answer",
                    vec![f_choice(
                        "choice",
                        choices(&[
                            ("stand", "callan.choice.stand"),
                            ("evade", "callan.choice.evade"),
                        ]),
                        false,
                    )],
                    false,
                )
                .primary(),
            );
        }
        return out;
    }
    let due: Vec<&game::Combat> = st.combats.iter().filter(|c| c.due).collect();
    if gm && due.is_empty() {
        if st.cards_left().is_empty() {
            out.push(form("end-turn", Vec::new(), false).primary());
        } else {
            out.push(form("draw", Vec::new(), false).primary());
        }
    }
    for c in &due {
        // A continuing combat is the table's step, the game master's (D14): a side's link that
        // was offered it was refused it when pressed (found by the rules fuzzer).
        if !gm {
            continue;
        }
        let (Some(a), Some(b)) = (st.unit(&c.units[0]), st.unit(&c.units[1])) else {
            continue;
        };
        let (fa, fb) = (a.fighting_bases(), b.fighting_bases());
        let last = c.bases.unwrap_or([3, 0, 3, 0]);
        let mut fields = vec![
            f_choice(
                "combat",
                vec![Choice::new(
                    format!("c{}", c.id),
                    format!("c{}: {} – {}", c.id, a.name, b.name),
                )],
                false,
            ),
            // The last round's bases, front first, as many as each unit still has (issue 17,
            // item 1); three in front and none behind for a combat that has not counted any yet.
            f_num("attacker_front", i64::from(fa), i64::from(last[0].min(fa))),
            f_num(
                "attacker_rear",
                i64::from(fa),
                i64::from(last[1].min(fa - last[0].min(fa))),
            ),
            f_num("defender_front", i64::from(fb), i64::from(last[2].min(fb))),
            f_num(
                "defender_rear",
                i64::from(fb),
                i64::from(last[3].min(fb - last[2].min(fb))),
            ),
            f_flag("attacker_emerge"),
            f_flag("defender_emerge"),
        ];
        // A squadron of either side may come up in support of a cavalry melee (D36).
        if c.cavalry {
            let helpers = unit_choices(st, None, |u| {
                u.troop.is_cavalry()
                    && u.status == Status::Ok
                    && !c.units.contains(&u.id)
                    && !st.combats.iter().any(|z| z.units.contains(&u.id))
                    && (u.side == a.side || u.side == b.side)
            });
            if !helpers.is_empty() {
                fields.push(f_choice("support", helpers, true));
                fields.push(f_num("support_front", 6, 0));
            }
        }
        let mut f = form("resolve-combat", fields, true);
        f.primary = true;
        out.push(f);
    }
    if !due.is_empty() {
        out.push(panic_form(st, mine));
        return out;
    }
    let open = st.open.clone();
    let on = |u: &UnitState| u.on_table();
    if let Some(o) = &open {
        let side_now = o.side;
        let acts = gm || (side_now.is_some() && side_now == mine);
        // A Joker repeats its card's action for one unit: once used, no unit acts at it (found
        // by `tercio fuzz`: its forms were still offered, and refused once filled).
        let phase = if o.phase == CardPhase::Joker {
            o.repeat.filter(|_| !o.joker_used)
        } else {
            Some(o.phase)
        };
        if acts {
            if let Some(s) = side_now {
                let enemies = unit_choices(st, Some(1 - s.min(1)), on);
                // A unit in a melee may not be shot at (issue 17, item 6).
                let marks = unit_choices(st, Some(1 - s.min(1)), |u| {
                    on(u) && !game::in_combat(st, &u.id)
                });
                match phase {
                    Some(CardPhase::Fire) => {
                        let firers = unit_choices(st, Some(s), |u| {
                            game::may_shoot(st, u)
                                && u.firing_bases() > 0
                                // At a Joker only a unit that fired at the previous card fires
                                // again, and not a heavy gun, still reloading (found by the
                                // issue's fuzz run at Pavia: offered, then refused).
                                && if o.phase == CardPhase::Joker {
                                    u.fired && u.weapon != Some(tables::Weapon::CannonePesante)
                                } else {
                                    !u.fired
                                }
                        });
                        if !firers.is_empty() && !marks.is_empty() {
                            out.push(fire_form(st, firers, marks.clone(), false));
                        }
                        let vets = unit_choices(st, Some(s), |u| {
                            u.quality == Quality::Veterani
                                && u.troop == Troop::Archibugieri
                                && !u.fired
                                && u.on_table()
                        });
                        if !vets.is_empty() {
                            out.push(form(
                                "hold-fire",
                                vec![f_choice("unit", vets, false)],
                                false,
                            ));
                        }
                    }
                    Some(p @ (CardPhase::Infantry | CardPhase::Cavalry)) => {
                        let cav = p == CardPhase::Cavalry;
                        // Only the units that may still act at this card are offered (the
                        // engine refuses the others with the reason).
                        let movers = unit_choices(st, Some(s), |u| {
                            u.on_table()
                                && u.troop.is_cavalry() == cav
                                && u.troop != Troop::ArtiglieriaPesante
                                && (!u.activated || o.phase == CardPhase::Joker)
                        });
                        let attackers = unit_choices(st, Some(s), |u| {
                            u.status == Status::Ok
                                && u.troop.is_cavalry() == cav
                                && !u.troop.is_gun()
                                && !u.riccio
                                && !u.half()
                                && (!u.activated || u.moved)
                                // A unit in a combat fights it on (`resolve-combat`), it does not
                                // attack (found by `tercio fuzz`: offered first, refused).
                                && !game::in_combat(st, &u.id)
                                // Nor one whose orders failed this turn: it does not move
                                // (found by the fuzz run at Fornovo).
                                && !u.orders_failed
                        });
                        if !movers.is_empty() {
                            out.push(move_form(st, movers, unit_choices(st, Some(s), on)));
                        }
                        if !attackers.is_empty() && o.phase != CardPhase::Joker {
                            // A unit that has just made its charge move attacks as a charge.
                            let charged = st
                                .units
                                .iter()
                                .filter(|u| u.charge_moved && u.side == s)
                                .map(|u| u.id.clone())
                                .collect();
                            // "Of which tercio arquebusiers": only for a defender with shot.
                            let shot = st
                                .units
                                .iter()
                                .filter(|u| u.side != s && u.shot > 0)
                                .map(|u| u.id.clone())
                                .collect();
                            // The Swiss pike, whose attack is a charge (D57, D73).
                            let swiss = st
                                .units
                                .iter()
                                .filter(|u| {
                                    u.side == s
                                        && u.troop == Troop::Picchieri
                                        && u.nationality.as_deref() == Some("svizzeri")
                                })
                                .map(|u| u.id.clone())
                                .collect();
                            out.push(attack_form(
                                st,
                                attackers,
                                enemies.clone(),
                                cav,
                                charged,
                                shot,
                                swiss,
                            ));
                        }
                        let skirmishers = unit_choices(st, Some(s), |u| {
                            game::may_shoot(st, u)
                                && !u.fired
                                && ((cav
                                    && u.troop == Troop::CavalleriaLeggera
                                    && u.weapon.is_some())
                                    || (!cav && u.troop.is_shot()))
                        });
                        if !skirmishers.is_empty() && !marks.is_empty() {
                            out.push(fire_form(st, skirmishers, marks.clone(), true));
                        }
                        // "Muovi sempre il Comandante prima di muovere qualsiasi tua truppa"
                        // (D13): once troops have moved the form is not offered (found by
                        // `tercio fuzz`: offered, and refused whichever commander).
                        if p == CardPhase::Infantry
                            && o.phase != CardPhase::Joker
                            && !o.troops_moved
                        {
                            let cmds: Vec<Choice> = st
                                .commanders
                                .iter()
                                .filter(|c| {
                                    c.side == s && c.status == game::CommanderStatus::Active
                                })
                                .map(|c| Choice::new(c.id.clone(), c.name.clone()))
                                .collect();
                            if !cmds.is_empty() {
                                out.push(form(
                                    "commander",
                                    vec![
                                        f_choice("commander", cmds, false),
                                        f_choice("join", unit_choices(st, Some(s), on), true),
                                    ],
                                    false,
                                ));
                            }
                        }
                        let pursuers = unit_choices(st, Some(s), |u| u.status == Status::Pursuing);
                        if !pursuers.is_empty() && cav {
                            out.push(form(
                                "pursuit",
                                vec![f_choice("unit", pursuers, false), f_flag("reached_edge")],
                                false,
                            ));
                        }
                    }
                    _ => {}
                }
            }
        }
        // The veteran volley answers the enemy's move (D24).
        if let Some(s) =
            side_now.filter(|_| matches!(phase, Some(CardPhase::Infantry | CardPhase::Cavalry)))
        {
            let other = 1 - s.min(1);
            if gm || mine == Some(other) {
                // Not a unit that has since fled or left the table: it may not fire (found by
                // `tercio fuzz`: the form offered it, the rules refused it).
                let held = unit_choices(st, Some(other), |u| {
                    u.held_fire && u.on_table() && u.status != Status::Fleeing
                });
                if !held.is_empty() {
                    out.push(form(
                        "volley",
                        vec![
                            f_choice("unit", held, false),
                            f_choice("target", unit_choices(st, Some(s), on), true),
                            f_num("short_bases", 16, 1),
                        ],
                        true,
                    ));
                }
            }
        }
    }
    out.push(panic_form(st, mine));
    if gm {
        let cmds: Vec<Choice> = st
            .commanders
            .iter()
            .filter(|c| c.status == game::CommanderStatus::Active && c.unit.is_some())
            .map(|c| Choice::new(c.id.clone(), c.name.clone()))
            .collect();
        if !cmds.is_empty() {
            let cav = unit_choices(st, None, |u| u.troop.is_cavalry() && u.status == Status::Ok);
            out.push(form(
                "rally",
                vec![
                    f_choice("commander", cmds, false),
                    f_choice("from", cav.clone(), false),
                    f_choice("to", cav, false),
                ],
                false,
            ));
        }
        out.push(form(
            "off-table",
            vec![f_choice("unit", unit_choices(st, None, on), false)],
            false,
        ));
        out.push(obstacle_form(st));
        out.push(form(
            "state",
            vec![
                f_choice("unit", unit_choices(st, None, on), false),
                f_flag("disordered"),
                f_flag("open_order"),
                f_flag("riccio"),
                f_choice(
                    "loses_first",
                    choices(&[
                        ("pike", "callan.lose.pike"),
                        ("screen", "callan.lose.screen"),
                        ("special", "callan.lose.special"),
                        ("halberd", "callan.lose.halberd"),
                        ("shot", "callan.lose.shot"),
                    ]),
                    true,
                ),
            ],
            false,
        ));
    }
    out
}

pub(super) fn panic_form(st: &State, side: Option<usize>) -> ActionForm {
    form(
        "panic-test",
        vec![
            f_choice(
                "unit",
                // Not pike that is not raw: they ignore fleeing friends (003, Disciplina 2 b) and
                // only raw troops test on seeing a rout (D69), so no reason is theirs (found by
                // `tercio fuzz`: such a unit was offered and refused whatever the reason).
                unit_choices(st, side, |u| {
                    matches!(u.status, Status::Ok | Status::Retiring)
                        && !(u.troop == Troop::Picchieri && u.quality != Quality::Reclute)
                }),
                false,
            ),
            f_choice(
                "reason",
                choices(&[
                    ("friends_fleeing", "callan.trigger.friends-fleeing"),
                    ("rout_seen", "callan.trigger.rout-seen"),
                ]),
                false,
            ),
        ],
        true,
    )
}

/// The obstacles the table may name, for a scenario that lists its own (`[[obstacles]]`): each
/// by its name, the scenario's first, then the field works and any other whose difficulty is
/// known. `None` for a scenario that lists none: the table types the obstacle's name.
fn obstacle_choices(st: &State, unknown_only: bool) -> Option<Vec<Choice>> {
    if st.obstacle_names.is_empty() {
        return None;
    }
    let ids = st.obstacle_names.keys().chain(
        st.obstacles
            .keys()
            .filter(|id| !st.obstacle_names.contains_key(*id)),
    );
    Some(
        ids.filter(|id| !unknown_only || !st.obstacles.contains_key(*id))
            .map(|id| Choice::new(id.clone(), game::obstacle_name(st, id)))
            .collect(),
    )
}

/// An obstacle's difficulty agreed before the battle: one of the scenario's still unknown, by
/// name, or (a scenario listing none) the name typed.
pub(super) fn obstacle_form(st: &State) -> ActionForm {
    let id = match obstacle_choices(st, true) {
        Some(choices) => FormField::choice("id", &k("callan.field.id"), choices, false),
        None => FormField::text("id", &k("callan.field.id"), "fosso"),
    };
    form(
        "obstacle",
        vec![
            id,
            f_choice(
                "difficulty",
                choices(&[
                    ("facile", "callan.obstacle.facile"),
                    ("difficile", "callan.obstacle.difficile"),
                    ("molto-difficile", "callan.obstacle.molto-difficile"),
                ]),
                false,
            ),
        ],
        false,
    )
}

pub(super) fn fire_form(
    st: &State,
    firers: Vec<Choice>,
    targets: Vec<Choice>,
    moved: bool,
) -> ActionForm {
    // A gun without a commander fires only at the nearest enemy (C13, decision 20): the table
    // names that enemy, and the box starts ticked for such a gun (unticked, the fire is
    // refused), so nothing is spent saying what the rules require (issue 43, item 2).
    let at_nearest: Vec<String> = firers
        .iter()
        .filter(|c| {
            st.unit(&c.value)
                .is_some_and(|u| u.weapon.is_some_and(|w| w.is_gun()))
                && st.commander_of(&c.value).is_none()
        })
        .map(|c| c.value.clone())
        .collect();
    // Every base of the unit fires, at long range until the table says some are at short
    // range: the count starts at the unit's own firing bases (one for a gun, as before), one
    // field for each count the firers have (issue 43: a default the table need not correct).
    let mut by_bases: Vec<(u32, Vec<String>)> = Vec::new();
    for c in &firers {
        let n = st.unit(&c.value).map_or(1, |u| u.firing_bases().max(1));
        match by_bases.iter_mut().find(|(m, _)| *m == n) {
            Some((_, ids)) => ids.push(c.value.clone()),
            None => by_bases.push((n, vec![c.value.clone()])),
        }
    }
    let one = by_bases.len() == 1;
    let long: Vec<FormField> = by_bases
        .into_iter()
        .map(|(n, ids)| {
            let f = f_num("long_bases", 16, i64::from(n.min(16)));
            if one {
                f
            } else {
                f.only_for(ids)
            }
        })
        .collect();
    let mut fields = vec![
        f_choice("unit", firers, false),
        // No default: the table says which enemy (issue 43, item 2).
        f_choice("target", targets, true),
        f_num("short_bases", 16, 0),
    ];
    fields.extend(long);
    fields.extend([
        f_choice(
            "cover",
            choices(&[
                ("none", "callan.cover.none"),
                ("wall", "callan.cover.wall"),
                ("fortification", "callan.cover.fortification"),
                ("wood_edge", "callan.cover.wood-edge"),
            ]),
            false,
        ),
        f_flag("dense"),
        f_flag("downhill"),
        f_flag("nearest").checked_for(at_nearest),
        f_flag("over_friends"),
    ]);
    let mut f = form("fire", fields, true);
    // Move and fire: the unit moves as part of the action, so the action says so itself.
    if moved {
        f = f.with_fixed("moved", serde_json::Value::Bool(true));
        f.label = k("callan.action.move-fire");
        f.hint = k("callan.hint.move-fire");
    }
    f
}

/// The move form: what moves, how, and the table's answers about the ground it crosses; the
/// friends it may pass through are its side's units on the table (D71).
pub(super) fn move_form(st: &State, units: Vec<Choice>, friends: Vec<Choice>) -> ActionForm {
    let offered: Vec<String> = units.iter().map(|c| c.value.clone()).collect();
    // A unit retiring may only retire, one fleeing only flee: its own list of kinds (found by
    // the issue 44 fuzz run at Marignano: a fleeing unit offered "move" first, and refused).
    let status_of = |id: &String| st.unit(id).map(|u| u.status);
    let only = |status: Status| -> Vec<String> {
        offered
            .iter()
            .filter(|id| status_of(id) == Some(status))
            .cloned()
            .collect()
    };
    let (retiring, fleeing) = (only(Status::Retiring), only(Status::Fleeing));
    let free: Vec<String> = offered
        .iter()
        .filter(|id| !retiring.contains(id) && !fleeing.contains(id))
        .cloned()
        .collect();
    let mut kinds = Vec::new();
    for (ids, list) in [
        (
            free,
            &[
                ("move", "callan.move.move"),
                ("charge", "callan.move.charge"),
                ("reform", "callan.move.reform"),
                ("formation", "callan.move.formation"),
                ("retire", "callan.move.retire"),
                ("flee", "callan.move.flee"),
            ][..],
        ),
        (retiring, &[("retire", "callan.move.retire")][..]),
        (fleeing, &[("flee", "callan.move.flee")][..]),
    ] {
        if ids.is_empty() {
            continue;
        }
        let f = f_choice("kind", choices(list), false);
        kinds.push(if ids.len() == offered.len() {
            f
        } else {
            f.only_for(ids)
        });
    }
    let mut fields = vec![f_choice("unit", units, false)];
    fields.extend(kinds);
    fields.extend([
        f_choice(
            "formation",
            choices(&[
                ("line", "callan.formation.line"),
                ("riccio", "callan.formation.riccio"),
                ("open", "callan.formation.open"),
                ("close", "callan.formation.close"),
            ]),
            true,
        ),
        f_flag("steep_hill"),
        // Asked of a charge, as the steep hill is of any move (D73).
        f_flag("low_hill").only_when("kind", vec!["charge".to_string()]),
        f_flag("difficult_terrain"),
        match obstacle_choices(st, false) {
            Some(choices) => {
                FormField::choice("obstacle", &k("callan.field.obstacle"), choices, true)
            }
            None => FormField::text("obstacle", &k("callan.field.obstacle"), ""),
        },
        f_flag("cross_next_turn").more(),
        f_choice("pass_through", friends, true).more(),
    ]);
    // A crossing begun on an earlier turn: finished by default, or given up by unticking it;
    // at a difficult obstacle waited at, the table says whether it is now defended (D74).
    let pending = |difficult: bool| -> Vec<String> {
        st.units
            .iter()
            .filter(|u| offered.contains(&u.id))
            .filter(|u| {
                u.crossing
                    .as_ref()
                    .is_some_and(|c| !difficult || c.difficulty == "difficile")
            })
            .map(|u| u.id.clone())
            .collect()
    };
    let crossing = pending(false);
    if !crossing.is_empty() {
        fields.push(
            f_flag("finish_crossing")
                .only_for(crossing.clone())
                .checked_for(crossing),
        );
        let waited = pending(true);
        if !waited.is_empty() {
            fields.push(f_flag("defended").only_for(waited));
        }
    }
    form("move", fields, false)
}

/// The bases a unit counts in front and behind (`<who>_front`, `<who>_rear`), one pair of fields
/// per number of bases it fights with, shown for the units with that many (`with`: the field
/// naming the unit; none, what acts): a form never offers more bases than the unit has (found by
/// the issue 44 fuzz run at Fornovo: 0 to 16 offered, "a whole number from 0 to 2" refused).
/// Three in front at first, or all it has when fewer.
fn base_counts(st: &State, who: &str, units: &[Choice], with: Option<&str>) -> Vec<FormField> {
    let mut by: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for c in units {
        if let Some(u) = st.unit(&c.value) {
            by.entry(u.fighting_bases())
                .or_default()
                .push(c.value.clone());
        }
    }
    let mut out = Vec::new();
    for (n, ids) in by {
        let shown = |f: FormField| match with {
            Some(w) => f.only_when(w, ids.clone()),
            None => f.only_for(ids.clone()),
        };
        out.push(shown(f_num(
            &format!("{who}_front"),
            i64::from(n),
            i64::from(n.min(3)),
        )));
        out.push(shown(f_num(&format!("{who}_rear"), i64::from(n), 0)));
    }
    out
}

pub(super) fn attack_form(
    st: &State,
    units: Vec<Choice>,
    enemies: Vec<Choice>,
    cav: bool,
    charged: Vec<String>,
    shot: Vec<String>,
    swiss: Vec<String>,
) -> ActionForm {
    // Swiss bent on the Landsknechts by "Niente soldi" attack only them (D59): their own list of
    // defenders (found by the issue 44 fuzz run at Marignano: every enemy offered), and none at
    // all while the Landsknechts are not on the table (still to arrive: found by the same run).
    let landsknechts: Vec<Choice> = enemies
        .iter()
        .filter(|c| st.unit(&c.value).is_some_and(game::is_landsknecht))
        .cloned()
        .collect();
    let bent = |id: &str| st.unit(id).is_some_and(|u| game::fixated_now(st, u));
    // Each attacker's enemies: not one it has already fought this turn ("fought", found by the
    // issue 44 fuzz run at Marignano), only the Landsknechts for the Swiss bent on them. An
    // attacker with none is not offered; attackers with the same enemies share one list.
    let mut lists: Vec<(Vec<Choice>, Vec<String>)> = Vec::new();
    let mut kept = Vec::new();
    for c in units {
        let fought = st
            .unit(&c.value)
            .map(|u| u.fought_with.clone())
            .unwrap_or_default();
        let base = if bent(&c.value) {
            &landsknechts
        } else {
            &enemies
        };
        let theirs: Vec<Choice> = base
            .iter()
            .filter(|e| !fought.contains(&e.value))
            .cloned()
            .collect();
        if theirs.is_empty() {
            continue;
        }
        match lists.iter_mut().find(|(l, _)| *l == theirs) {
            Some((_, ids)) => ids.push(c.value.clone()),
            None => lists.push((theirs, vec![c.value.clone()])),
        }
        kept.push(c);
    }
    let units = kept;
    let offered: Vec<String> = units.iter().map(|c| c.value.clone()).collect();
    let mut fields = base_counts(st, "attacker", &units, None);
    fields.insert(0, f_choice("attacker", units, false));
    // No default: the table says which enemy is attacked (issue 43, item 2).
    let one = lists.len() == 1;
    for (i, (list, ids)) in lists.into_iter().enumerate() {
        let f = f_choice("defender", list, true);
        fields.insert(1 + i, if one { f } else { f.only_for(ids) });
    }
    let defenders = base_counts(st, "defender", &enemies, Some("defender"));
    fields.extend(defenders);
    // Only a defender with shot bases (a tercio, a colunella) counts them (issue 17, item 6).
    if !shot.is_empty() {
        fields.push(f_num("defender_shot", 16, 0).only_when("defender", shot));
    }
    if cav {
        fields.push(f_flag("charge").checked_for(charged));
        fields.push(f_flag("low_hill"));
    } else {
        // The Swiss pike's attack is a charge, unless the defender is on a low hill (D73).
        let swiss: Vec<String> = swiss
            .into_iter()
            .filter(|id| offered.contains(id))
            .collect();
        if !swiss.is_empty() {
            fields.push(f_flag("low_hill").only_for(swiss));
        }
    }
    fields.push(f_flag("flank"));
    fields.push(f_choice(
        "evade",
        choices(&[
            ("false", "callan.choice.stand"),
            ("true", "callan.choice.evade"),
        ]),
        true,
    ));
    form("attack", fields, true)
}
