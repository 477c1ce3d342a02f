//! The forms of the actions that can be taken now.

use super::*;
use crate::FieldKind;

// ------------------------------------------------------------------------------------------------
// Forms.

pub(super) fn primary(f: ActionForm) -> ActionForm {
    f.primary()
}

/// An action's name, as its form and its results' titles show it (the catalogue's
/// `ecw.action.*`, [`crate::interface::typed::Rules::ACTION_TITLES`]).
fn title(action: &str) -> String {
    tercio_i18n::msg(&format!("ecw.action.{action}"), &[])
}

/// A text of the forms, from the catalogue (`ecw.<key>`), in the reader's language.
fn t(key: &str) -> String {
    tercio_i18n::msg(&format!("ecw.{key}"), &[])
}

pub(super) fn numbers(name: &str, label: &str, lo: u32, hi: u32) -> FormField {
    FormField::choice(
        name,
        label,
        (lo..=hi)
            .map(|n| Choice::new(n.to_string(), n.to_string()))
            .collect(),
        true,
    )
}

/// The same choice with an empty first choice: no default (a target the table names).
fn optional(mut f: FormField) -> FormField {
    if let FieldKind::Choice { optional, .. } = &mut f.kind {
        *optional = true;
    }
    f
}

pub fn forms(st: &State, side: Option<&str>) -> Vec<ActionForm> {
    let mut out = turn_forms(st, side);
    // The end of a turn with nothing left to order, move, fire or fight: the page takes it by
    // itself (issue 43). An objective is the game master's whatever the step.
    crate::interface::forms::mark_auto(&mut out, &["objective"]);
    out
}

fn turn_forms(st: &State, side: Option<&str>) -> Vec<ActionForm> {
    let gm = side.is_none();
    let mut out = Vec::new();
    if st.phase == Phase::Deal {
        if gm {
            out.push(primary(ActionForm::new(
                "deal",
                &title("deal"),
                &t("hint.deal"),
                vec![
                    FormField::choice(
                        "hands",
                        &t("field.hands"),
                        vec![
                            Choice::new("per-seat", t("choice.per-seat")),
                            Choice::new("single-device", t("choice.single-device")),
                        ],
                        false,
                    ),
                    FormField::flag("referee_sees_hands", &t("field.referee-sees-hands")),
                ],
                false,
            )));
        }
        return out;
    }
    if st.phase == Phase::Over {
        return out;
    }
    let idx = |id: &str| st.sides.iter().position(|s| s.id == id);
    let me = side.and_then(idx);
    let acting = match st.phase {
        Phase::Window => hand_owner(st),
        Phase::Dizziness => 1 - st.active,
        _ => st.active,
    };
    if gm {
        out.push(ActionForm::new(
            "objective",
            &title("objective"),
            &t("hint.objective"),
            vec![
                FormField::choice(
                    "side",
                    &t("field.side"),
                    st.sides
                        .iter()
                        .map(|s| Choice::new(s.id.clone(), s.name.clone()))
                        .collect(),
                    false,
                ),
                FormField::choice(
                    "banners",
                    &t("field.banners"),
                    vec![Choice::new("1", "+1"), Choice::new("-1", "-1")],
                    false,
                ),
                FormField::text("hex", &t("field.objective"), &t("field.hex-placeholder")),
            ],
            false,
        ));
    }
    if !(gm || me == Some(acting)) {
        return out;
    }
    let s = &st.sides[acting];
    let hand_seen = s.hidden.is_none();
    let secret = |mut f: ActionForm| {
        f.reveal = reveal_prompt(st, acting);
        f
    };
    let own_units: Vec<&UnitState> = st
        .units
        .iter()
        .filter(|u| u.side == acting && u.gone.is_none() && !u.spare)
        .collect();
    let unit_choice = |name: &str, label: &str, us: &[&UnitState]| {
        FormField::choice(
            name,
            label,
            us.iter()
                .map(|u| {
                    Choice::new(
                        u.id.clone(),
                        m(
                            "ecw.form.unit-blocks",
                            &[
                                ("unit", u.name.clone()),
                                ("type", unit_label(u)),
                                ("count", u.blocks.to_string()),
                            ],
                        ),
                    )
                })
                .collect(),
            false,
        )
    };
    let enemies: Vec<&UnitState> = st
        .units
        .iter()
        .filter(|u| u.side != acting && u.gone.is_none() && !u.spare)
        .collect();
    match st.phase {
        Phase::Chaunce => out.push(primary(ActionForm::new(
            "draw-chaunce",
            &title("draw-chaunce"),
            &t("hint.draw-chaunce"),
            vec![],
            true,
        ))),
        Phase::ChaunceResolve => {
            let card = st.chaunce.map(game::chaunce_of);
            let pending = st.pending.is_some();
            let id = card.map_or("", |c| c.id);
            let mut fields = Vec::new();
            if id == "fumblethumbs" {
                fields.push(numbers("room", &t("field.foot-room"), 0, 6));
            } else if pending {
                let q = k(game::second_question(id).unwrap_or("ecw.ask2.answer"));
                fields.push(FormField::text(
                    "target",
                    &m("ecw.form.name-answer", &[("q", q)]),
                    &t("field.ids"),
                ));
            } else {
                let q = k(game::needs_candidates(id).unwrap_or("ecw.ask.candidates"));
                fields.push(FormField::text(
                    "candidates",
                    &m("ecw.form.list-candidates", &[("q", q)]),
                    &t("field.ids-or-names"),
                ));
            }
            out.push(primary(ActionForm::new(
                "resolve-chaunce",
                &card.map_or_else(
                    || title("resolve-chaunce"),
                    |c| {
                        tercio_i18n::msg(
                            tercio_i18n::keys::ECW_FORM_RESOLVE_CARD,
                            &[("card", &c.title())],
                        )
                    },
                ),
                &card.map_or(String::new(), |c| c.rules()),
                fields,
                true,
            )));
        }
        Phase::Swap if hand_seen => {
            out.push(secret(primary(ActionForm::new(
                "swap",
                &title("swap"),
                &t("hint.swap"),
                vec![FormField::choice(
                    "card",
                    &t("field.discard"),
                    hand_choices(&s.hand),
                    true,
                )],
                false,
            ))));
        }
        Phase::Swap => out.push(primary(ActionForm::new(
            "swap",
            &tercio_i18n::msg(tercio_i18n::keys::ECW_FORM_KEEP_HAND, &[]),
            &t("hint.keep-hand"),
            vec![],
            false,
        ))),
        Phase::Command if hand_seen => {
            // Evade answers a melee; it is not played on one's own turn, unless the hand holds
            // nothing else (decision 66).
            let mut playable: Vec<u8> = s
                .hand
                .iter()
                .copied()
                .filter(|&c| command_kind(c).id != "evade")
                .collect();
            if playable.is_empty() {
                playable = s.hand.clone();
            }
            if playable.is_empty() {
                // Every card on the Stand of Pikes track: the turn passes (decision 66).
                out.push(primary(ActionForm::new(
                    "end-turn",
                    &title("end-turn"),
                    &t("hint.pass"),
                    vec![],
                    false,
                )));
                return out;
            }
            let mut fields = vec![FormField::choice(
                "card",
                &t("field.card"),
                hand_choices(&playable),
                false,
            )];
            if s.hand
                .iter()
                .any(|&c| command_kind(c).id == "hazzard-a-chaunce")
            {
                fields.push(FormField::choice(
                    "mode",
                    &t("field.hazzard"),
                    vec![
                        Choice::new("order", t("choice.order-one")),
                        Choice::new("present", t("choice.present")),
                    ],
                    true,
                ));
            }
            out.push(secret(primary(ActionForm::new(
                "play",
                &title("play"),
                &t("hint.play"),
                fields,
                true,
            ))));
        }
        Phase::Orders => {
            let c = st.card.as_ref();
            let open = c.is_some_and(|c| !c.moving && !c.combat);
            if open && c.is_some_and(|c| c.rally.is_none() || c.pool.is_some()) {
                // Only what the card can order now (in a section it names, of a type it takes).
                let may = |id: &str| {
                    let probe = |section: Option<&str>, adjacent_enemy: bool| {
                        let a = Action::Order {
                            unit: id.to_string(),
                            section: section.map(str::to_string),
                            adjacent_enemy,
                        };
                        game::plan(st, &a).is_ok()
                    };
                    probe(None, false)
                        || probe(None, true)
                        || ["left", "centre", "right"]
                            .iter()
                            .any(|s| probe(Some(s), false))
                };
                // First the units the form orders as it starts (no section named, no enemy
                // adjacent): the list's first choice is one the card allows (issue 43, item 2).
                let as_sent = |id: &str| {
                    let a = Action::Order {
                        unit: id.to_string(),
                        section: None,
                        adjacent_enemy: false,
                    };
                    game::plan(st, &a).is_ok()
                };
                let mut orderable: Vec<&&UnitState> = own_units
                    .iter()
                    .filter(|u| !u.ordered && may(&u.id))
                    .collect();
                orderable.sort_by_key(|u| !as_sent(&u.id));
                let mut choices: Vec<Choice> = orderable
                    .into_iter()
                    .map(|u| {
                        Choice::new(
                            u.id.clone(),
                            m(
                                "ecw.form.unit-section",
                                &[
                                    ("unit", u.name.clone()),
                                    ("type", unit_label(u)),
                                    ("section", u.section.term()),
                                ],
                            ),
                        )
                    })
                    .collect();
                choices.extend(
                    st.leaders
                        .iter()
                        .filter(|l| {
                            l.side == acting && l.gone.is_none() && !l.ordered && may(&l.id)
                        })
                        .map(|l| {
                            Choice::new(
                                l.id.clone(),
                                m("ecw.form.leader", &[("leader", l.name.clone())]),
                            )
                        }),
                );
                out.push(ActionForm::new(
                    "order",
                    &title("order"),
                    &t("hint.order"),
                    vec![
                        FormField::choice("unit", &t("field.unit-or-leader"), choices, false)
                            .resets(),
                        FormField::choice(
                            "section",
                            &t("field.section"),
                            tables::Section::ALL
                                .iter()
                                .map(|x| Choice::new(x.name(), k(x.term().trim_start_matches('@'))))
                                .collect(),
                            true,
                        ),
                        FormField::flag("adjacent_enemy", &t("field.adjacent-enemy")),
                    ],
                    false,
                ));
            }
            if c.is_some_and(|c| c.rally.is_some_and(|r| r.iter().any(|&n| n > 0))) {
                let under: Vec<&UnitState> = own_units
                    .iter()
                    .copied()
                    .filter(|u| u.blocks < u.start_blocks)
                    .collect();
                out.push(ActionForm::new(
                    "rally",
                    &title("rally"),
                    &t("hint.rally"),
                    vec![unit_choice("unit", &t("field.unit"), &under).resets()],
                    false,
                ));
            }
            let ordered: Vec<&UnitState> =
                own_units.iter().copied().filter(|u| u.ordered).collect();
            let combat = c.is_some_and(|c| c.combat);
            let second_move = c.is_some_and(|c| c.effective == "bold-dragooneers")
                && ordered
                    .iter()
                    .any(|u| u.class == Class::Dragoons && u.fired && u.moves < 2);
            if (!combat || second_move)
                && (!ordered.is_empty() || st.leaders.iter().any(|l| l.side == acting && l.ordered))
            {
                let mut movers: Vec<Choice> = ordered
                    .iter()
                    .map(|u| {
                        Choice::new(
                            u.id.clone(),
                            m(
                                "ecw.form.unit-type",
                                &[("unit", u.name.clone()), ("type", unit_label(u))],
                            ),
                        )
                    })
                    .collect();
                movers.extend(
                    st.leaders
                        .iter()
                        .filter(|l| l.side == acting && l.ordered && l.gone.is_none())
                        .map(|l| {
                            Choice::new(
                                l.id.clone(),
                                m("ecw.form.leader", &[("leader", l.name.clone())]),
                            )
                        }),
                );
                let mut fields = vec![
                    FormField::choice("unit", &t("field.unit-or-leader"), movers, false).resets(),
                    FormField::number("hexes", &t("field.hexes"), 0, 3, 1),
                    FormField::flag("mount", &t("field.mount")),
                    FormField::flag("dismount", &t("field.dismount")),
                    FormField::flag("leave_stand", &t("field.leave-stand")),
                ];
                // Asked of the units it stops from battling: not leaders, not dragoons, who
                // "can fight as soon as they arrive, whatever the terrain" (decision 64).
                let held: Vec<String> = ordered
                    .iter()
                    .filter(|u| u.class != Class::Dragoons)
                    .map(|u| u.id.clone())
                    .collect();
                if !held.is_empty() {
                    fields.push(
                        FormField::flag("into_woods_or_town", &t("field.into-woods-or-town"))
                            .only_for(held),
                    );
                }
                fields.push(FormField::choice(
                    "join",
                    &t("field.leader-joins"),
                    own_units
                        .iter()
                        .map(|u| Choice::new(u.id.clone(), u.name.clone()))
                        .collect(),
                    true,
                ));
                out.push(ActionForm::new(
                    "move",
                    &title("move"),
                    &t("hint.move"),
                    fields,
                    false,
                ));
            }
            // Combat goes on, unit by unit, once it has begun: only moves end (CCN sequence of
            // play; found by the example game of Tibbermore played by taps: a second ordered
            // unit could not battle from the page).
            if !ordered.is_empty() || st.chase.is_some() {
                let mut fighters: Vec<&UnitState> = ordered.clone();
                if let Some(ch) = &st.chase {
                    if let Some(u) = st.units.iter().find(|u| u.id == ch.unit) {
                        if !fighters.iter().any(|x| x.id == u.id) {
                            fighters.push(u);
                        }
                    }
                }
                let shooters: Vec<&UnitState> = ordered
                    .iter()
                    .copied()
                    .filter(|u| {
                        matches!(u.class, Class::Foot | Class::Dragoons | Class::Artillery)
                            && !u.fired
                            && u.meleed == 0
                    })
                    .collect();
                if !shooters.is_empty() {
                    out.push(ActionForm::new(
                        "fire",
                        &title("fire"),
                        &t("hint.fire"),
                        vec![
                            unit_choice("unit", &t("field.unit"), &shooters).resets(),
                            // No default: the table says which enemy (issue 43, item 2).
                            optional(unit_choice("target", &t("field.target"), &enemies)),
                            FormField::number("range", &t("field.range"), 1, 5, 2),
                            FormField::number("terrain", &t("field.terrain"), 0, 3, 0),
                            numbers("target_room", &t("field.target-room"), 0, 6),
                            FormField::number(
                                "target_ignores",
                                &t("field.target-ignores"),
                                0,
                                2,
                                0,
                            ),
                            FormField::flag("adjacent_enemy", &t("field.firer-adjacent")),
                        ],
                        true,
                    ));
                }
                // Not a unit that has battled (but the one taking ground, whose bonus melee it
                // is): a form with nothing to choose is not shown. (One that entered woods or a
                // town stays, marked with the reason it may not battle: decision 64.)
                let chasing = |u: &UnitState| st.chase.as_ref().is_some_and(|c| c.unit == u.id);
                let attackers: Vec<&UnitState> = fighters
                    .iter()
                    .copied()
                    .filter(|u| u.class != Class::Artillery)
                    .filter(|u| chasing(u) || (!u.fired && u.meleed == 0))
                    .collect();
                if !attackers.is_empty() {
                    let mut targets: Vec<Choice> = enemies
                        .iter()
                        .map(|u| {
                            Choice::new(
                                u.id.clone(),
                                m(
                                    "ecw.form.unit-blocks",
                                    &[
                                        ("unit", u.name.clone()),
                                        ("type", unit_label(u)),
                                        ("count", u.blocks.to_string()),
                                    ],
                                ),
                            )
                        })
                        .collect();
                    targets.extend(
                        st.leaders
                            .iter()
                            .filter(|l| l.side != acting && l.gone.is_none() && l.unit.is_none())
                            .map(|l| {
                                Choice::new(
                                    l.id.clone(),
                                    m("ecw.form.leader-alone", &[("leader", l.name.clone())]),
                                )
                            }),
                    );
                    out.push(ActionForm::new(
                        "melee",
                        &title("melee"),
                        &t("hint.melee"),
                        vec![
                            unit_choice("unit", &t("field.attacker"), &attackers).resets(),
                            FormField::choice("target", &t("field.target"), targets, true),
                            FormField::number("terrain", &t("field.terrain"), 0, 3, 0),
                            FormField::number(
                                "battle_back_terrain",
                                &t("field.battle-back-terrain"),
                                0,
                                3,
                                0,
                            ),
                            numbers("target_room", &t("field.target-room"), 0, 6),
                            numbers("attacker_room", &t("field.attacker-room"), 0, 6),
                            FormField::number(
                                "target_ignores",
                                &t("field.target-ignores"),
                                0,
                                2,
                                0,
                            ),
                        ],
                        true,
                    ));
                }
            }
            if let Some(ch) = &st.chase {
                let u = st.units.iter().find(|u| u.id == ch.unit);
                if u.is_some_and(|u| u.rash) && !ch.control_rolled {
                    out.push(ActionForm::new(
                        "control",
                        &title("control"),
                        &t("hint.control"),
                        vec![FormField::choice(
                            "unit",
                            &t("field.unit"),
                            vec![Choice::new(
                                ch.unit.clone(),
                                u.map_or(ch.unit.clone(), |u| u.name.clone()),
                            )],
                            false,
                        )],
                        true,
                    ));
                }
                out.push(ActionForm::new(
                    "stop",
                    &title("stop"),
                    &t("hint.stop"),
                    vec![FormField::flag("no_target", &t("field.no-enemy"))],
                    false,
                ));
            }
            if !st.chase.as_ref().is_some_and(|c| c.compelled) {
                out.push(ActionForm::new(
                    "end-turn",
                    &title("end-turn"),
                    &t("hint.end-turn"),
                    vec![],
                    false,
                ));
            }
        }
        Phase::Window => {
            let mut opts = game::responses(st);
            if !hand_seen {
                opts.retain(|o| *o == "none");
            }
            let label = |o: &str| {
                t(match o {
                    "evade" => "choice.evade",
                    "stand-of-pikes" => "choice.stand-of-pikes",
                    "retire" => "choice.retire",
                    _ => "choice.none",
                })
            };
            let f = ActionForm::new(
                "respond",
                &title("respond"),
                &t("hint.respond"),
                vec![FormField::choice(
                    "response",
                    &t("field.response"),
                    opts.iter().map(|o| Choice::new(*o, label(o))).collect(),
                    false,
                )],
                true,
            );
            if hand_seen {
                out.push(secret(primary(f)));
            } else {
                // The game master cannot see the defender's hand: he may only close a window the
                // defender leaves unanswered.
                out.push(ActionForm::new(
                    "respond",
                    &tercio_i18n::msg(tercio_i18n::keys::ECW_FORM_CLOSE_WINDOW, &[]),
                    &t("hint.close-window"),
                    vec![FormField::choice(
                        "response",
                        &t("field.response"),
                        vec![Choice::new("none", label("none"))],
                        false,
                    )],
                    true,
                ));
            }
        }
        Phase::Scout if hand_seen => {
            out.push(secret(primary(ActionForm::new(
                "keep",
                &title("keep"),
                &t("hint.keep"),
                vec![FormField::choice(
                    "card",
                    &t("field.keep"),
                    hand_choices(&s.scout),
                    false,
                )],
                false,
            ))));
        }
        Phase::Dizziness => {
            let n = st.sides[st.active]
                .hidden
                .unwrap_or(st.sides[st.active].hand.len() as u32);
            out.push(primary(ActionForm::new(
                "dizzy-pick",
                &title("dizzy-pick"),
                &t("hint.dizzy-pick"),
                vec![FormField::number(
                    "position",
                    &t("field.position"),
                    1,
                    i64::from(n.max(1)),
                    1,
                )],
                false,
            )));
        }
        _ => {}
    }
    out
}

pub(super) fn hand_choices(hand: &[u8]) -> Vec<Choice> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for &c in hand {
        let k = command_kind(c);
        if !seen.contains(&k.id) {
            seen.push(k.id);
            out.push(Choice::new(k.id, k.title()));
        }
    }
    out
}
