//! The board: the game at a glance, the hands a view holds and the odds of the next draw.

use super::*;

// ------------------------------------------------------------------------------------------------
// The board.

/// A training's name, a glossary term argument.
pub(super) fn training_name(t: Training) -> String {
    term(match t {
        Training::Veteran => "training-veteran",
        Training::Trained => "training-trained",
        Training::Raw => "training-raw",
        Training::Militia => "training-militia",
    })
}

/// A catalogue term argument as a message of its own, for a table cell.
fn cell(term_arg: &str) -> String {
    k(term_arg.trim_start_matches('@'))
}

/// A unit's troop type: its class, then shot, mounted or on foot, rash (a message).
pub(super) fn unit_label(u: &UnitState) -> String {
    let mut k = vec![cell(&crate::commands_colors_ecw::resolve::class_term(
        u.class,
    ))];
    if u.class == Class::Foot && !u.pikes {
        k.push(cell(&term("shot")));
    }
    if u.class == Class::Dragoons {
        k.push(cell(&term(if u.mounted { "mounted" } else { "on-foot" })));
    }
    if u.rash {
        k.push(cell(&term("rash")));
    }
    k.join(" ")
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
    st.settings
        .single_device
        .then(|| m("ecw.board.reveal", &[("side", st.sides[side].name.clone())]))
}

/// A board table whose column headers are messages.
fn table(title: &str, cols: &[String], rows: Vec<Vec<String>>) -> BoardTable {
    let c: Vec<&str> = cols.iter().map(String::as_str).collect();
    BoardTable::new(title, &c, rows)
}

pub fn board(st: &State) -> Board {
    let headline = if st.phase == Phase::Over {
        m("ecw.board.game-over", &[("verdict", game::verdict(st))])
    } else if st.phase == Phase::Deal {
        k("ecw.board.before-battle")
    } else {
        m(
            "ecw.board.turn",
            &[
                ("turn", st.turn.to_string()),
                ("side", st.sides[st.active].name.clone()),
            ],
        )
    };
    let mut notes = vec![game::waiting_for(st)];
    if let Some(c) = &st.card {
        let kind = command_kind(c.card);
        let name = kind.title();
        let same = kind.id == c.effective;
        let eff = tables::command_card(&c.effective)
            .map_or_else(|| k("ecw.board.one-of-your-choice"), |k| k.title());
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
                    Some(s) => m(
                        "ecw.board.ordered-in",
                        &[("name", n), ("section", s.term())],
                    ),
                    None => n,
                }
            })
            .collect();
        let ordered = if orders.is_empty() {
            k("ecw.board.none-yet")
        } else {
            orders.join(", ")
        };
        notes.push(if same {
            m(
                "ecw.board.card-in-play",
                &[("card", name), ("ordered", ordered)],
            )
        } else {
            m(
                "ecw.board.card-in-play-as",
                &[("card", name), ("as", eff), ("ordered", ordered)],
            )
        });
        if let Some([f, h, a, fl]) = c.pool {
            notes.push(m(
                "ecw.board.still-to-order",
                &[
                    ("foot", f.to_string()),
                    ("horse", h.to_string()),
                    ("artillery", a.to_string()),
                    ("choice", fl.to_string()),
                ],
            ));
        }
        if let Some([f, h, a]) = c.rally {
            notes.push(m(
                "ecw.board.blocks-to-return",
                &[
                    ("foot", f.to_string()),
                    ("horse", h.to_string()),
                    ("artillery", a.to_string()),
                ],
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
        notes.push(m(
            "ecw.board.melee-announced",
            &[("attacker", n(&w.attacker)), ("target", n(&w.target))],
        ));
    }
    if let Some(c) = &st.chase {
        let n = st
            .units
            .iter()
            .find(|u| u.id == c.unit)
            .map_or(c.unit.clone(), |u| u.name.clone());
        notes.push(m(
            if c.compelled {
                "ecw.board.breakthrough-rash"
            } else {
                "ecw.board.breakthrough"
            },
            &[("unit", n)],
        ));
    }
    if st.rain > 0 {
        notes.push(m("ecw.board.rain", &[("count", st.rain.to_string())]));
    }
    for c in st.chronicle.iter().rev().take(4) {
        notes.push(c.clone());
    }
    let mut tables = vec![table(
        &k("ecw.board.sides"),
        &[
            k("ecw.board.side"),
            k("ecw.board.banners"),
            k("ecw.board.cards-in-hand"),
            k("ecw.board.track"),
            k("ecw.board.chaunce-due"),
            k("ecw.board.last-card"),
        ],
        st.sides
            .iter()
            .map(|s| {
                vec![
                    s.name.clone(),
                    format!("{} / {}", s.banners, s.banners_to_win),
                    m(
                        "ecw.board.hand-limit",
                        &[
                            ("cards", s.hidden.unwrap_or(s.hand.len() as u32).to_string()),
                            ("limit", s.hand_limit.to_string()),
                        ],
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
                        .map_or("—".into(), |c| c.title()),
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
                vec![k.title(), k.rules()]
            })
            .collect();
        for (c, u) in &s.track {
            rows.push(vec![
                m("ecw.board.on-track", &[("card", command_kind(*c).title())]),
                m(
                    "ecw.board.held-by-stand",
                    &[(
                        "unit",
                        st.units
                            .iter()
                            .find(|x| &x.id == u)
                            .map_or(u.clone(), |x| x.name.clone()),
                    )],
                ),
            ]);
        }
        for &c in &s.scout {
            rows.push(vec![
                m("ecw.board.scouted", &[("card", command_kind(c).title())]),
                k("ecw.board.keep-one"),
            ]);
        }
        let mut t = table(
            &m("ecw.board.hand", &[("side", s.name.clone())]),
            &[k("ecw.board.card"), k("ecw.board.what-it-does")],
            rows,
        );
        t.reveal = reveal_prompt(st, i);
        tables.push(t);
        let mut odds = table(
            &m("ecw.board.next-draw", &[("side", s.name.clone())]),
            &[k("ecw.board.card"), k("ecw.board.chance")],
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
                    state.push(m("ecw.board.lost", &[("cause", g.clone())]));
                } else if u.spare {
                    state.push(k("ecw.board.in-reserve"));
                } else {
                    if u.stand {
                        state.push(k("ecw.board.stand"));
                    }
                    if u.ordered {
                        state.push(k("ecw.board.ordered"));
                    }
                    if u.moves > 0 {
                        state.push(m("ecw.board.moved", &[("count", u.moved.to_string())]));
                    }
                    if u.fired {
                        state.push(k("ecw.board.fired"));
                    }
                    if u.meleed > 0 {
                        state.push(k("ecw.board.meleed"));
                    }
                }
                let mut marks = Vec::new();
                if u.chaunce_bonus != 0 {
                    marks.push(m(
                        "ecw.board.chaunce-die",
                        &[("dice", format!("{:+}", u.chaunce_bonus))],
                    ));
                }
                if u.no_orders_until_leader {
                    marks.push(k("ecw.board.no-orders-until-leader"));
                }
                if u.no_move_turns > 0 {
                    marks.push(k("ecw.board.cannot-move"));
                }
                if u.no_fire_turns > 0 {
                    marks.push(k("ecw.board.cannot-fire"));
                }
                if u.no_fire {
                    marks.push(k("ecw.board.no-fire"));
                }
                // A unit is named, never shown by its id: its name titles its row.
                vec![
                    u.name.clone(),
                    unit_label(u),
                    cell(&training_name(u.training)),
                    format!("{} / {}", u.blocks, u.start_blocks),
                    cell(&u.section.term()),
                    leader,
                    state.join(", "),
                    marks.join(", "),
                ]
            })
            .collect();
        tables.push(table(
            &m("ecw.board.units", &[("side", s.name.clone())]),
            &[
                k("ecw.board.unit"),
                k("ecw.board.class"),
                k("ecw.board.training"),
                k("ecw.board.blocks"),
                k("ecw.board.section"),
                k("ecw.board.leader"),
                k("ecw.board.this-turn"),
                k("ecw.board.markers"),
            ],
            rows,
        ));
    }
    tables.push(table(
        &k("ecw.board.leaders"),
        &[
            k("ecw.board.leader"),
            k("ecw.board.side"),
            k("ecw.board.with"),
            k("ecw.board.status"),
        ],
        st.leaders
            .iter()
            .map(|l| {
                vec![
                    l.name.clone(),
                    st.sides[l.side].name.clone(),
                    l.unit
                        .as_deref()
                        .and_then(|u| st.units.iter().find(|x| x.id == u))
                        .map_or_else(|| k("ecw.board.alone"), |u| u.name.clone()),
                    match &l.gone {
                        Some(g) => m("ecw.board.lost", &[("cause", g.clone())]),
                        None if l.ordered => k("ecw.board.ordered"),
                        None => String::new(),
                    },
                ]
            })
            .collect(),
    ));
    tables.push(table(
        &k("ecw.board.decks"),
        &[
            k("ecw.board.pile"),
            k("ecw.board.cards"),
            k("ecw.board.top"),
        ],
        vec![
            vec![
                k("ecw.board.command-deck"),
                st.deck_count.to_string(),
                k("ecw.board.face-down"),
            ],
            vec![
                k("ecw.board.command-discards"),
                st.discard.len().to_string(),
                st.discard
                    .iter()
                    .rev()
                    .take(5)
                    .map(|&c| command_kind(c).title())
                    .collect::<Vec<_>>()
                    .join(", "),
            ],
            vec![
                k("ecw.board.chaunce-pack"),
                st.pack_count.to_string(),
                k("ecw.board.face-down"),
            ],
            vec![
                k("ecw.board.chaunce-discards"),
                st.pack_discard.len().to_string(),
                st.pack_discard
                    .iter()
                    .rev()
                    .take(5)
                    .map(|&c| game::chaunce_of(c).title())
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
                    k.title(),
                    m(
                        "ecw.board.chance-of",
                        &[
                            ("pct", tercio_i18n::pct(n as f64 / total, 1)),
                            ("n", n.to_string()),
                            ("of", unseen.len().to_string()),
                        ],
                    ),
                ]
            })
        })
        .collect()
}
