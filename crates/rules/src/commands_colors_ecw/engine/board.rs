//! The board: the game at a glance, the hands a view holds and the odds of the next draw.

use super::*;

// ------------------------------------------------------------------------------------------------
// The board.

pub(super) fn class_name(c: Class) -> &'static str {
    match c {
        Class::Foot => "FT",
        Class::Clubmen => "CL",
        Class::Cuirassiers => "CU",
        Class::Trotters => "TR",
        Class::Gallopers => "GA",
        Class::Dragoons => "DR",
        Class::Artillery => "AR",
    }
}

pub(super) fn training_name(t: Training) -> &'static str {
    match t {
        Training::Veteran => "veteran",
        Training::Trained => "trained",
        Training::Raw => "raw",
        Training::Militia => "militia",
    }
}

pub(super) fn unit_label(u: &UnitState) -> String {
    let mut k = class_name(u.class).to_string();
    if u.class == Class::Foot && !u.pikes {
        k.push_str(" shot");
    }
    if u.class == Class::Dragoons {
        k.push_str(if u.mounted { " mounted" } else { " on foot" });
    }
    if u.rash {
        k.push_str(" rash");
    }
    k
}

/// The side whose hand the shared device shows now: the defender in a window, the opponent
/// picking for The Dizziness, else the side to play.
pub(super) fn hand_owner(st: &State) -> usize {
    match st.phase {
        Phase::Window => st
            .window
            .as_ref()
            .and_then(|w| st.units.iter().find(|u| u.id == w.target))
            .map_or(st.active, |u| u.side),
        Phase::Dizziness => 1 - st.active,
        _ => st.active,
    }
}

pub(super) fn reveal_prompt(st: &State, side: usize) -> Option<String> {
    st.settings.single_device.then(|| {
        format!(
            "{} — pass the device; tap to reveal your hand",
            st.sides[side].name
        )
    })
}

pub fn board(st: &State) -> Board {
    let headline = if st.phase == Phase::Over {
        format!("Game over: {}", game::verdict(st))
    } else if st.phase == Phase::Deal {
        "Before the battle: the game master deals the cards".to_string()
    } else {
        format!("Turn {} — {} to play", st.turn, st.sides[st.active].name)
    };
    let mut notes = vec![game::waiting_for(st)];
    if let Some(c) = &st.card {
        let name = command_kind(c.card).name;
        let eff = tables::command_card(&c.effective)
            .map_or("1 unit or leader of your choice", |k| k.name);
        let orders: Vec<String> = c
            .orders
            .iter()
            .map(|(id, s)| {
                let n = st
                    .units
                    .iter()
                    .find(|u| &u.id == id)
                    .map(|u| u.name.clone())
                    .or_else(|| {
                        st.leaders
                            .iter()
                            .find(|l| &l.id == id)
                            .map(|l| l.name.clone())
                    })
                    .unwrap_or(id.clone());
                match s {
                    Some(s) => format!("{n} ({})", s.name()),
                    None => n,
                }
            })
            .collect();
        notes.push(format!(
            "Card in play: {name}{}. Ordered: {}",
            if eff != name {
                format!(" (as {eff})")
            } else {
                String::new()
            },
            if orders.is_empty() {
                "none yet".into()
            } else {
                orders.join(", ")
            }
        ));
        if let Some([f, h, a, fl]) = c.pool {
            notes.push(format!(
                "Still to order: {f} foot, {h} horse, {a} artillery, {fl} of your choice"
            ));
        }
        if let Some([f, h, a]) = c.rally {
            notes.push(format!(
                "Blocks still to return: {f} foot, {h} horse, {a} artillery"
            ));
        }
    }
    if let Some(w) = &st.window {
        let n = |id: &str| {
            st.units
                .iter()
                .find(|u| u.id == id)
                .map_or(id.to_string(), |u| u.name.clone())
        };
        notes.push(format!(
            "Melee announced: {} against {}",
            n(&w.attacker),
            n(&w.target)
        ));
    }
    if let Some(c) = &st.chase {
        let n = st
            .units
            .iter()
            .find(|u| u.id == c.unit)
            .map_or(c.unit.clone(), |u| u.name.clone());
        notes.push(format!(
            "Breakthrough: {n} may advance and make a bonus melee{}",
            if c.compelled {
                " — it is rash and out of control: it must if it can"
            } else {
                ""
            }
        ));
    }
    if st.rain > 0 {
        notes.push(format!(
            "St. Swithun's rain: no ranged combat for {} more player-turn(s)",
            st.rain
        ));
    }
    for c in st.chronicle.iter().rev().take(4) {
        notes.push(c.clone());
    }
    let mut tables = vec![BoardTable::new(
        "Sides",
        &[
            "Side",
            "Banners",
            "Cards in hand",
            "Stand of Pikes track",
            "Chaunce due",
            "Last card",
        ],
        st.sides
            .iter()
            .map(|s| {
                vec![
                    s.name.clone(),
                    format!("{} / {}", s.banners, s.banners_to_win),
                    format!(
                        "{} (limit {})",
                        s.hidden.unwrap_or(s.hand.len() as u32),
                        s.hand_limit
                    ),
                    s.track
                        .iter()
                        .map(|(_, u)| {
                            st.units
                                .iter()
                                .find(|x| &x.id == u)
                                .map_or(u.clone(), |x| x.name.clone())
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                    s.chaunce_due.to_string(),
                    s.last_card
                        .as_deref()
                        .and_then(tables::command_card)
                        .map_or("—".into(), |c| c.name.to_string()),
                ]
            })
            .collect(),
    )];
    // The hands this view holds.
    let shown: Vec<usize> = if st.settings.single_device {
        vec![hand_owner(st)]
    } else {
        (0..st.sides.len()).collect()
    };
    for i in shown {
        let s = &st.sides[i];
        if s.hidden.is_some() || st.phase == Phase::Deal {
            continue;
        }
        let mut rows: Vec<Vec<String>> = s
            .hand
            .iter()
            .map(|&c| {
                let k = command_kind(c);
                vec![k.name.to_string(), k.text.to_string()]
            })
            .collect();
        for (c, u) in &s.track {
            rows.push(vec![
                format!("{} (on the track)", command_kind(*c).name),
                format!(
                    "held by the Stand of Pikes of {}",
                    st.units
                        .iter()
                        .find(|x| &x.id == u)
                        .map_or(u.as_str(), |x| x.name.as_str())
                ),
            ]);
        }
        for &c in &s.scout {
            rows.push(vec![
                format!("{} (scouted)", command_kind(c).name),
                "keep one of the two".into(),
            ]);
        }
        let mut t = BoardTable::new(
            &format!("{}: hand", s.name),
            &["Card", "What it does"],
            rows,
        );
        t.reveal = reveal_prompt(st, i);
        tables.push(t);
        let mut odds = BoardTable::new(
            &format!(
                "{}: next draw (from the cards this side has not seen; decision 45)",
                s.name
            ),
            &["Card", "Chance"],
            next_draw(st, i),
        );
        odds.reveal = reveal_prompt(st, i);
        tables.push(odds);
    }
    for (i, s) in st.sides.iter().enumerate() {
        let rows = st
            .units
            .iter()
            .filter(|u| u.side == i)
            .map(|u| {
                let leader = st
                    .leaders
                    .iter()
                    .find(|l| l.gone.is_none() && l.unit.as_deref() == Some(&u.id))
                    .map_or(String::new(), |l| l.name.clone());
                let mut state = Vec::new();
                if let Some(g) = &u.gone {
                    state.push(format!("lost: {g}"));
                } else if u.spare {
                    state.push("in reserve (We're Back)".into());
                } else {
                    if u.stand {
                        state.push("Stand of Pikes".into());
                    }
                    if u.ordered {
                        state.push("ordered".into());
                    }
                    if u.moves > 0 {
                        state.push(format!("moved {}", u.moved));
                    }
                    if u.fired {
                        state.push("fired".into());
                    }
                    if u.meleed > 0 {
                        state.push("meleed".into());
                    }
                }
                let mut marks = Vec::new();
                if u.chaunce_bonus != 0 {
                    marks.push(format!("{:+} die (Chaunce)", u.chaunce_bonus));
                }
                if u.no_orders_until_leader {
                    marks.push("no orders until a leader joins".into());
                }
                if u.no_move_turns > 0 {
                    marks.push("cannot move this turn".into());
                }
                if u.no_fire_turns > 0 {
                    marks.push("cannot fire this turn".into());
                }
                if u.no_fire {
                    marks.push("no fire".into());
                }
                vec![
                    u.id.clone(),
                    u.name.clone(),
                    unit_label(u),
                    training_name(u.training).into(),
                    format!("{} / {}", u.blocks, u.start_blocks),
                    u.section.name().into(),
                    leader,
                    state.join(", "),
                    marks.join(", "),
                ]
            })
            .collect();
        tables.push(BoardTable::new(
            &format!("{} — units", s.name),
            &[
                "Id",
                "Unit",
                "Class",
                "Training",
                "Blocks",
                "Section",
                "Leader",
                "This turn",
                "Markers",
            ],
            rows,
        ));
    }
    tables.push(BoardTable::new(
        "Leaders",
        &["Id", "Leader", "Side", "With", "Status"],
        st.leaders
            .iter()
            .map(|l| {
                vec![
                    l.id.clone(),
                    l.name.clone(),
                    st.sides[l.side].name.clone(),
                    l.unit
                        .as_deref()
                        .and_then(|u| st.units.iter().find(|x| x.id == u))
                        .map_or("alone".into(), |u| u.name.clone()),
                    match &l.gone {
                        Some(g) => format!("lost: {g}"),
                        None if l.ordered => "ordered".into(),
                        None => String::new(),
                    },
                ]
            })
            .collect(),
    ));
    tables.push(BoardTable::new(
        "Decks",
        &["Pile", "Cards", "Top (newest first)"],
        vec![
            vec![
                "Command deck".into(),
                st.deck_count.to_string(),
                "face down".into(),
            ],
            vec![
                "Command discards".into(),
                st.discard.len().to_string(),
                st.discard
                    .iter()
                    .rev()
                    .take(5)
                    .map(|&c| command_kind(c).name)
                    .collect::<Vec<_>>()
                    .join(", "),
            ],
            vec![
                "Chaunce pack".into(),
                st.pack_count.to_string(),
                "face down".into(),
            ],
            vec![
                "Chaunce discards".into(),
                st.pack_discard.len().to_string(),
                st.pack_discard
                    .iter()
                    .rev()
                    .take(5)
                    .map(|&c| game::chaunce_of(c).name)
                    .collect::<Vec<_>>()
                    .join(", "),
            ],
        ],
    ));
    Board {
        headline,
        notes,
        tables,
    }
}

/// The chance of each kind of command card on the next draw, over the cards `side` has not seen:
/// the 72 less its hand, its track, its scouted pair and the face-up discards (decision 45).
pub(super) fn next_draw(st: &State, side: usize) -> Vec<Vec<String>> {
    let mut seen = vec![0u32; 72];
    let s = &st.sides[side];
    for &c in s
        .hand
        .iter()
        .chain(s.track.iter().map(|(c, _)| c))
        .chain(s.scout.iter())
        .chain(st.discard.iter())
    {
        if let Some(x) = seen.get_mut(usize::from(c)) {
            *x += 1;
        }
    }
    let unseen: Vec<u8> = (0..72u8).filter(|&c| seen[usize::from(c)] == 0).collect();
    let total = unseen.len().max(1) as f64;
    COMMAND_CARDS
        .iter()
        .filter_map(|k| {
            let n = unseen
                .iter()
                .filter(|&&c| command_kind(c).id == k.id)
                .count();
            (n > 0).then(|| {
                vec![
                    k.name.to_string(),
                    format!("{:.1}% ({n} of {})", 100.0 * n as f64 / total, unseen.len()),
                ]
            })
        })
        .collect()
}
