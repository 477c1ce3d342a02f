//! The board.

use super::*;

pub(super) fn quality_term(q: Quality) -> String {
    k(&format!("callan.term.{}", q.id()))
}

pub(super) fn unit_state_text(st: &State, u: &UnitState) -> String {
    let mut bits = vec![k(&format!("callan.status.{}", u.status.id()))];
    if u.status == Status::Ok && u.exhausted() {
        bits.push(k("callan.state.exhausted"));
    } else if u.status == Status::Ok && u.half() && u.lost_bases() > 0 {
        bits.push(k("callan.state.half"));
    }
    if u.disordered {
        bits.push(k("callan.state.disordered"));
    }
    if u.open_order {
        bits.push(k("callan.state.open-order"));
    }
    if u.riccio {
        bits.push(k("callan.state.riccio"));
    }
    if u.fired {
        bits.push(k("callan.state.smoke"));
    }
    if u.held_fire {
        bits.push(k("callan.state.held-fire"));
    }
    if u.lost_to_fire && u.status == Status::Ok {
        bits.push(k("callan.state.lost-to-fire"));
    }
    if let Some(c) = &u.crossing {
        bits.push(m(
            "callan.state.crossing",
            &[
                ("id", game::obstacle_name(st, &c.obstacle)),
                ("turn", (c.turn + 1).max(st.turn).to_string()),
            ],
        ));
    }
    if u.activated {
        bits.push(k("callan.state.activated"));
    }
    if u.exploded {
        bits.push(k("callan.state.exploded"));
    }
    if game::fixated_now(st, u) {
        bits.push(k("callan.state.fixated"));
    }
    if u.troop == Troop::ArtiglieriaPesante && u.fired_turn.is_some_and(|t| t + 1 >= st.turn) {
        bits.push(k("callan.state.reloading"));
    }
    if u.troop.is_heavy_horse() && u.charges > 0 {
        bits.push(m("callan.state.charges", &[("n", u.charges.to_string())]));
    }
    if u.status == Status::Waiting {
        bits.push(m("callan.state.enters", &[("turn", u.enters.to_string())]));
    }
    bits.join(", ")
}

pub(super) fn unit_type_text(u: &UnitState) -> String {
    let mut s = term(u.troop.id());
    s = k(s.trim_start_matches('@'));
    let mut extra = Vec::new();
    if u.screen > 0 {
        extra.push(m("callan.unit.screen", &[("n", u.screen.to_string())]));
    }
    if u.shot > 0 {
        extra.push(m("callan.unit.shot", &[("n", u.shot.to_string())]));
    }
    if let Some(sp) = u.special {
        extra.push(k(&format!("callan.term.{}", sp.id())));
    }
    if u.halberd {
        extra.push(k("callan.term.alabardieri"));
    }
    if let Some(n) = &u.nationality {
        extra.push(n.clone());
    }
    if extra.is_empty() {
        s
    } else {
        format!("{s} ({})", extra.join(", "))
    }
}

pub fn board(st: &State) -> Board {
    let headline = match st.phase {
        Phase::Setup => k("callan.board.setup"),
        Phase::Over => game::verdict(st).unwrap_or_else(|| k("callan.wait.over")),
        Phase::Cards => m(
            "callan.board.turn",
            &[
                ("turn", st.turn.to_string()),
                ("wait", game::waiting_for(st)),
            ],
        ),
    };
    let mut notes = Vec::new();
    if st.phase == Phase::Cards {
        let drawn: Vec<String> = st.drawn.iter().map(|&c| game::card_text(c)).collect();
        notes.push(m(
            "callan.board.drawn",
            &[(
                "cards",
                if drawn.is_empty() {
                    k("callan.board.none")
                } else {
                    drawn.join(", ")
                },
            )],
        ));
        // The next card's odds, from the cards not yet drawn (the same for every seat, §14.5).
        let cards = st.cards_left();
        let left = cards.len() as u32;
        if left > 0 {
            let red = cards.iter().filter(|&&c| card_colour(c) == Some(0)).count();
            let black = cards.iter().filter(|&&c| card_colour(c) == Some(1)).count();
            let joker = cards.len() - red - black;
            notes.push(m(
                "callan.board.next",
                &[
                    ("red", st.sides[0].name.clone()),
                    ("pr", format!("{red}/{left}")),
                    (
                        "black",
                        st.sides.get(1).map(|s| s.name.clone()).unwrap_or_default(),
                    ),
                    ("pb", format!("{black}/{left}")),
                    ("pj", format!("{joker}/{left}")),
                ],
            ));
        }
        if st.joker {
            notes.push(k("callan.board.joker-in"));
        }
    }
    for line in st.chronicle.iter().rev().take(5) {
        notes.push(line.clone());
    }
    let mut tables_out = Vec::new();
    let side_rows: Vec<Vec<String>> = st
        .sides
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (lost, total) = game::measure(st, i);
            vec![
                s.name.clone(),
                k(if i == 0 {
                    "callan.colour.red"
                } else {
                    "callan.colour.black"
                }),
                m(
                    "callan.board.points",
                    &[
                        ("points", s.points.to_string()),
                        ("half", {
                            let t = f64::from(s.points * st.cfg.threshold_pct) / 100.0;
                            tercio_i18n::num(t, if t.fract() == 0.0 { 0 } else { 1 })
                        }),
                    ],
                ),
                total,
                lost,
                threshold_text(st, i),
                if s.camp {
                    m(
                        if s.camp_looted {
                            "callan.camp.looted"
                        } else {
                            "callan.camp.value"
                        },
                        &[("n", s.camp_value.to_string())],
                    )
                } else {
                    k("callan.camp.none")
                },
            ]
        })
        .collect();
    tables_out.push(table(
        "callan.board.armies",
        &[
            "callan.col.side",
            "callan.col.colour",
            "callan.col.points",
            "callan.col.strength",
            "callan.col.lost",
            "callan.col.threshold",
            "callan.col.camp",
        ],
        side_rows,
    ));
    for (i, s) in st.sides.iter().enumerate() {
        let rows = st
            .units
            .iter()
            .filter(|u| u.side == i)
            .map(|u| {
                vec![
                    u.name.clone(),
                    unit_type_text(u),
                    quality_term(u.quality),
                    format!("{}/{}", u.bases, u.bases_start),
                    format!("{}/{}", u.hits, u.troop.hits_per_base()),
                    unit_state_text(st, u),
                    st.commander_of(&u.id)
                        .map(|c| c.name.clone())
                        .unwrap_or_default(),
                ]
            })
            .collect();
        let mut t = table(
            "callan.board.units",
            &[
                "callan.col.name",
                "callan.col.type",
                "callan.col.quality",
                "callan.col.bases",
                "callan.col.hits",
                "callan.col.state",
                "callan.col.commander",
            ],
            rows,
        );
        t.title = m("callan.board.units", &[("side", s.name.clone())]);
        tables_out.push(t);
    }
    let cmd_rows = st
        .commanders
        .iter()
        .map(|c| {
            vec![
                c.name.clone(),
                st.sides[c.side].name.clone(),
                k(if c.army {
                    "callan.rank.army"
                } else {
                    "callan.rank.battle"
                }),
                c.unit
                    .as_ref()
                    .and_then(|u| st.unit(u))
                    .map(|u| u.name.clone())
                    .unwrap_or_else(|| k("callan.commander.alone-short")),
                k(match c.status {
                    game::CommanderStatus::Active => "callan.commander.active",
                    game::CommanderStatus::Wounded => "callan.commander.wounded-short",
                    game::CommanderStatus::Fled => "callan.commander.fled-short",
                }),
            ]
        })
        .collect();
    tables_out.push(table(
        "callan.board.commanders",
        &[
            "callan.col.name",
            "callan.col.side",
            "callan.col.rank",
            "callan.col.leads",
            "callan.col.state",
        ],
        cmd_rows,
    ));
    if !st.combats.is_empty() {
        let rows = st
            .combats
            .iter()
            .map(|c| {
                let n = |i: usize| {
                    st.unit(&c.units[i])
                        .map(|u| u.name.clone())
                        .unwrap_or_default()
                };
                let role = |r: super::resolve::Role| {
                    k(match r {
                        super::resolve::Role::Attacker => "callan.role.attacker",
                        super::resolve::Role::Defender => "callan.role.defender",
                    })
                };
                vec![
                    format!("{} ({})", n(0), role(c.roles[0])),
                    format!("{} ({})", n(1), role(c.roles[1])),
                    c.rounds.to_string(),
                    k(if c.cavalry {
                        "callan.combat.kind-cavalry"
                    } else {
                        "callan.combat.kind-infantry"
                    }),
                    yes_no(c.due),
                ]
            })
            .collect();
        tables_out.push(table(
            "callan.board.combats",
            &[
                "callan.col.a",
                "callan.col.b",
                "callan.col.rounds",
                "callan.col.kind",
                "callan.col.due",
            ],
            rows,
        ));
    }
    if !st.obstacles.is_empty() {
        let rows = st
            .obstacles
            .iter()
            .map(|(id, d)| {
                vec![
                    game::obstacle_name(st, id),
                    k(&format!("callan.obstacle.{d}")),
                ]
            })
            .collect();
        tables_out.push(table(
            "callan.board.obstacles",
            &["callan.col.obstacle", "callan.col.difficulty"],
            rows,
        ));
    }
    Board {
        headline,
        notes,
        tables: tables_out,
    }
}

/// A side is beaten when its losses exceed this (D61, D63): half bases, or points.
pub(super) fn threshold_text(st: &State, i: usize) -> String {
    let s = &st.sides[i];
    let pct = st.cfg.threshold_pct;
    if st.cfg.victory_points {
        let t = f64::from(s.points * pct) / 100.0;
        let text = if t.fract() == 0.0 {
            format!("{t:.0}")
        } else {
            format!("{t}")
        };
        m(
            "callan.board.threshold",
            &[("n", text), ("pct", pct.to_string())],
        )
    } else {
        m(
            "callan.board.threshold",
            &[
                ("n", tables::halves_text(s.strength * pct / 100)),
                ("pct", pct.to_string()),
            ],
        )
    }
}

pub(super) fn yes_no(b: bool) -> String {
    k(if b { "callan.yes" } else { "callan.no" })
}

pub(super) fn table(title: &str, cols: &[&str], rows: Vec<Vec<String>>) -> BoardTable {
    let cols: Vec<String> = cols.iter().map(|c| k(c)).collect();
    let refs: Vec<&str> = cols.iter().map(String::as_str).collect();
    BoardTable::new(&k(title), &refs, rows)
}
