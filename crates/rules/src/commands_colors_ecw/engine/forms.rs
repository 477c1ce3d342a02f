//! The forms of the actions that can be taken now.

use super::*;

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

pub fn forms(st: &State, side: Option<&str>) -> Vec<ActionForm> {
    let gm = side.is_none();
    let mut out = Vec::new();
    if st.phase == Phase::Deal {
        if gm {
            out.push(primary(ActionForm::new(
                "deal",
                &title("deal"),
                "Shuffles the command deck and the Chaunce pack from the game's dice and deals each side its hand.",
                vec![
                    FormField::choice("hands", "Hands", vec![Choice::new("per-seat", "each player on their own link"), Choice::new("single-device", "one device for both (hands behind a tap)")], false),
                    FormField::flag("referee_sees_hands", "a neutral game master sees the hands"),
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
            "A scenario objective gained (+1) or lost (-1) by a side (design 8).",
            vec![
                FormField::choice(
                    "side",
                    "Side",
                    st.sides
                        .iter()
                        .map(|s| Choice::new(s.id.clone(), s.name.clone()))
                        .collect(),
                    false,
                ),
                FormField::choice(
                    "banners",
                    "Banners",
                    vec![Choice::new("1", "+1"), Choice::new("-1", "-1")],
                    false,
                ),
                FormField::text("hex", "Objective", "the hex's name"),
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
                        format!("{} ({}, {} blocks)", u.name, unit_label(u), u.blocks),
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
            "The top card of the Chaunce pack, presented by the opponent. Its odds: the cards not yet seen (decision 58).",
            vec![],
            true,
        ))),
        Phase::ChaunceResolve => {
            let card = st.chaunce.map(game::chaunce_of);
            let pending = st.pending.is_some();
            let id = card.map_or("", |c| c.id);
            let mut fields = Vec::new();
            if id == "fumblethumbs" {
                fields.push(numbers(
                    "room",
                    "Hexes the foot can retreat (empty: room enough)",
                    0,
                    6,
                ));
            } else if pending {
                let q = game::second_question(id).unwrap_or("the answer");
                fields.push(FormField::text(
                    "target",
                    &format!("Name {q}"),
                    "ids separated by commas",
                ));
            } else {
                let q = game::needs_candidates(id).unwrap_or("the candidates");
                fields.push(FormField::text(
                    "candidates",
                    &format!("List {q}"),
                    "ids or names separated by commas",
                ));
            }
            out.push(primary(ActionForm::new(
                "resolve-chaunce",
                &card.map_or_else(
                    || title("resolve-chaunce"),
                    |c| tercio_i18n::msg(tercio_i18n::keys::ECW_FORM_RESOLVE_CARD, &[("card", &tercio_i18n::plain(c.name))]),
                ),
                card.map_or("", |c| c.text),
                fields,
                true,
            )));
        }
        Phase::Swap if hand_seen => {
            out.push(secret(primary(ActionForm::new(
                "swap",
                &title("swap"),
                "After a Chaunce card that replaced the turn you may discard one command card and draw another (004).",
                vec![FormField::choice("card", "Discard", hand_choices(&s.hand), true)],
                false,
            ))));
        }
        Phase::Swap => out.push(primary(ActionForm::new(
            "swap",
            &tercio_i18n::msg(tercio_i18n::keys::ECW_FORM_KEEP_HAND, &[]),
            "No swap: the other side's turn.",
            vec![],
            false,
        ))),
        Phase::Command if hand_seen => {
            // Evade answers a melee; it is not played on one's own turn.
            let playable: Vec<u8> = s
                .hand
                .iter()
                .copied()
                .filter(|&c| command_kind(c).id != "evade")
                .collect();
            let mut fields = vec![FormField::choice(
                "card",
                "Card",
                hand_choices(&playable),
                false,
            )];
            if s.hand
                .iter()
                .any(|&c| command_kind(c).id == "hazzard-a-chaunce")
            {
                fields.push(FormField::choice(
                    "mode",
                    "Hazzard a Chaunce",
                    vec![
                        Choice::new("order", "order 1 unit or leader"),
                        Choice::new("present", "present it: the opponent takes a Chaunce card"),
                    ],
                    true,
                ));
            }
            out.push(secret(primary(ActionForm::new(
                "play",
                &title("play"),
                "Played face up; it orders the units it names (004, COMMAND CARDS).",
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
                let mut choices: Vec<Choice> = own_units
                    .iter()
                    .filter(|u| !u.ordered && may(&u.id))
                    .map(|u| {
                        Choice::new(
                            u.id.clone(),
                            format!("{} ({}, {})", u.name, unit_label(u), u.section.name()),
                        )
                    })
                    .collect();
                choices.extend(
                    st.leaders
                        .iter()
                        .filter(|l| {
                            l.side == acting && l.gone.is_none() && !l.ordered && may(&l.id)
                        })
                        .map(|l| Choice::new(l.id.clone(), format!("{} (leader)", l.name))),
                );
                out.push(ActionForm::new(
                    "order",
                    &title("order"),
                    "One at a time, before any move or battle.",
                    vec![
                        FormField::choice("unit", "Unit or leader", choices, false).resets(),
                        FormField::choice(
                            "section",
                            "Section (on a section line)",
                            ["left", "centre", "right"]
                                .iter()
                                .map(|x| Choice::new(*x, *x))
                                .collect(),
                            true,
                        ),
                        FormField::flag("adjacent_enemy", "adjacent to the enemy"),
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
                    "One block of the symbol's type to an under-strength unit, which is ordered.",
                    vec![unit_choice("unit", "Unit", &under).resets()],
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
                    .map(|u| Choice::new(u.id.clone(), format!("{} ({})", u.name, unit_label(u))))
                    .collect();
                movers.extend(
                    st.leaders
                        .iter()
                        .filter(|l| l.side == acting && l.ordered && l.gone.is_none())
                        .map(|l| Choice::new(l.id.clone(), format!("{} (leader)", l.name))),
                );
                out.push(ActionForm::new(
                    "move",
                    &title("move"),
                    "The hexes moved on the mat; Tercio checks the allowance.",
                    vec![
                        FormField::choice("unit", "Unit or leader", movers, false).resets(),
                        FormField::number("hexes", "Hexes", 0, 3, 1),
                        FormField::flag("mount", "mount (dragoons)"),
                        FormField::flag("dismount", "dismount (dragoons)"),
                        FormField::flag("leave_stand", "leave Stand of Pikes"),
                        FormField::choice(
                            "join",
                            "Leader joins",
                            own_units
                                .iter()
                                .map(|u| Choice::new(u.id.clone(), u.name.clone()))
                                .collect(),
                            true,
                        ),
                    ],
                    false,
                ));
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
                        "Foot and dismounted dragoons at 1-2 hexes, artillery at 2-5.",
                        vec![
                            unit_choice("unit", "Unit", &shooters).resets(),
                            unit_choice("target", "Target", &enemies),
                            FormField::number("range", "Range (hexes)", 1, 5, 2),
                            FormField::number("terrain", "Terrain dice reduction", 0, 3, 0),
                            numbers("target_room", "Hexes the target can retreat", 0, 6),
                            FormField::number(
                                "target_ignores",
                                "Flags its terrain lets it ignore",
                                0,
                                2,
                                0,
                            ),
                            FormField::flag("adjacent_enemy", "the firer is adjacent to an enemy"),
                        ],
                        true,
                    ));
                }
                let attackers: Vec<&UnitState> = fighters
                    .iter()
                    .copied()
                    .filter(|u| u.class != Class::Artillery)
                    .collect();
                if !attackers.is_empty() {
                    let mut targets: Vec<Choice> = enemies
                        .iter()
                        .map(|u| {
                            Choice::new(
                                u.id.clone(),
                                format!("{} ({}, {} blocks)", u.name, unit_label(u), u.blocks),
                            )
                        })
                        .collect();
                    targets.extend(
                        st.leaders
                            .iter()
                            .filter(|l| l.side != acting && l.gone.is_none() && l.unit.is_none())
                            .map(|l| {
                                Choice::new(l.id.clone(), format!("{} (leader alone)", l.name))
                            }),
                    );
                    out.push(ActionForm::new(
                        "melee",
                        &title("melee"),
                        "Announces the attack: the defender answers first (Evade, Stand of Pikes, Retire and Reform).",
                        vec![
                            unit_choice("unit", "Attacker", &attackers).resets(),
                            FormField::choice("target", "Target", targets, false),
                            FormField::number("terrain", "Terrain dice reduction", 0, 3, 0),
                            FormField::number("battle_back_terrain", "Terrain reduction of the battle back", 0, 3, 0),
                            numbers("target_room", "Hexes the target can retreat", 0, 6),
                            numbers("attacker_room", "Hexes the attacker can retreat", 0, 6),
                            FormField::number("target_ignores", "Flags its terrain lets it ignore", 0, 2, 0),
                        ],
                        true,
                    ));
                }
            }
            if let Some(ch) = &st.chase {
                let u = st.units.iter().find(|u| u.id == ch.unit);
                if u.is_some_and(|u| u.rash) && !ch.control_rolled {
                    out.push(ActionForm::new("control", &title("control"), "One die: Cavalry or Flag (Sabres too with a leader) brings it under control (004, Horse).", vec![FormField::choice("unit", "Unit", vec![Choice::new(ch.unit.clone(), u.map_or(ch.unit.clone(), |u| u.name.clone()))], false)], true));
                }
                out.push(ActionForm::new(
                    "stop",
                    &title("stop"),
                    "No (further) bonus melee.",
                    vec![FormField::flag(
                        "no_target",
                        "no enemy in reach outside villages, woods and earthworks",
                    )],
                    false,
                ));
            }
            if !st.chase.as_ref().is_some_and(|c| c.compelled) {
                out.push(ActionForm::new(
                    "end-turn",
                    &title("end-turn"),
                    "The draw phase, then the other side plays.",
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
            let label = |o: &str| match o {
                "evade" => "Evade (play the card)",
                "stand-of-pikes" => "Form a Stand of Pikes",
                "retire" => "Retire and Reform",
                _ => "No response: fight",
            };
            let f = ActionForm::new(
                "respond",
                &title("respond"),
                "Before any die is rolled (decision 43).",
                vec![FormField::choice(
                    "response",
                    "Response",
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
                    "The defender answers on its own link; use this only if it does not.",
                    vec![FormField::choice(
                        "response",
                        "Response",
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
                "The other goes face up to the discards.",
                vec![FormField::choice(
                    "card",
                    "Keep",
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
                "It goes face up to the discards; they hold one card less from now on.",
                vec![FormField::number(
                    "position",
                    "Card (from the left)",
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
            out.push(Choice::new(k.id, k.name));
        }
    }
    out
}
