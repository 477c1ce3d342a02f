//! The deal, the turn and the draw; banners and losses.

use super::*;

// ------------------------------------------------------------------------------------------------
// The deal, the turn and the draw.

pub(super) fn deal(st: &State, hands: Option<&str>, referee: bool) -> Result<P, Rejection> {
    let mode = hands.unwrap_or("per-seat");
    let single = match mode {
        "per-seat" => false,
        "single-device" => true,
        _ => return Err(reject("bad-choice", Some("hands"), k("ecw.reject.hands"))),
    };
    let st = st.clone();
    // The shuffle key: eight dice of 255 faces from the seeded stream.
    Ok(
        throw(8, 255, &k("ecw.die.shuffle-key"), Depends::Nothing).map(move |faces| {
            let mut r = Res::new(&st);
            let salt = faces
                .iter()
                .fold(0u64, |k, &f| k.wrapping_mul(257).wrapping_add(u64::from(f)));
            let s = &mut r.st;
            s.settings = Settings {
                single_device: single,
                referee_sees_hands: referee,
            };
            s.salt = salt;
            s.deck = shuffled(salt, 0, (0..tables::command_deck_size()).collect());
            if s.cfg.chaunce {
                s.pack = shuffled(salt, 1, (0..pack_size(&s.cfg)).collect());
            }
            s.shuffles = 1;
            let mut notes = Vec::new();
            for i in 0..s.sides.len() {
                for _ in 0..s.sides[i].hand_limit {
                    if let Some(c) = s.draw_command(&mut notes) {
                        s.sides[i].hand.push(c);
                    }
                }
            }
            s.sync_counts();
            s.turn = 1;
            s.active = 0;
            start_turn(s);
            let hands: Vec<String> = s
                .sides
                .iter()
                .map(|x| {
                    m(
                        "ecw.deal.side-cards",
                        &[
                            ("side", x.name.clone()),
                            ("count", x.hand.len().to_string()),
                        ],
                    )
                })
                .collect();
            r.step(
                k("ecw.step.deal"),
                m(
                    "ecw.deal.shuffled",
                    &[
                        ("pack", r.st.pack.len().to_string()),
                        ("dealt", hands.join(", ")),
                    ],
                ),
            );
            r.say(m(
                if single {
                    "ecw.deal.dealt-single"
                } else {
                    "ecw.deal.dealt-per-seat"
                },
                &[("side", r.st.side_name(0))],
            ));
            r
        }),
    )
}

/// A player-turn begins: the turn's marks are cleared, and a presented Chaunce card comes first.
pub(super) fn start_turn(s: &mut State) {
    for u in &mut s.units {
        u.ordered = false;
        u.moved = 0;
        u.moves = 0;
        u.fired = false;
        u.meleed = 0;
        u.card_bonus = 0;
        u.push = false;
        u.bombard = None;
        u.moved_after_fire = false;
        u.entered_woods_or_town = false;
    }
    for l in &mut s.leaders {
        l.ordered = false;
    }
    s.card = None;
    s.window = None;
    s.chase = None;
    s.chaunce = None;
    s.pending = None;
    s.replaced = false;
    s.phase = if s.sides[s.active].chaunce_due > 0 {
        Phase::Chaunce
    } else {
        Phase::Command
    };
}

/// Draw command cards for `side` until its hand and track hold its limit.
pub(super) fn refill(s: &mut State, side: usize, notes: &mut Vec<String>) -> u32 {
    let mut n = 0;
    while (s.sides[side].hand.len() + s.sides[side].track.len()) < s.sides[side].hand_limit as usize
    {
        match s.draw_command(notes) {
            Some(c) => {
                s.sides[side].hand.push(c);
                n += 1;
            }
            None => break,
        }
    }
    n
}

pub(super) fn end_turn_action(st: &State) -> Result<P, Rejection> {
    if let Some(c) = st.chase.as_ref().filter(|c| c.compelled) {
        return Err(reject(
            "rash-compelled",
            None,
            m(
                if c.control_rolled {
                    "ecw.reject.rash-compelled-rolled"
                } else {
                    "ecw.reject.rash-compelled"
                },
                &[(
                    "unit",
                    st.unit(&c.unit).map_or(String::new(), |u| u.name.clone()),
                )],
            ),
        )
        .not_now());
    }
    if st.phase == Phase::Command && !st.sides[st.active].hand.is_empty() {
        return Err(reject("play-a-card", Some("action"), k("ecw.reject.play-a-card")).not_now());
    }
    let mut r = Res::new(st);
    if st.chase.as_ref().is_some_and(|c| c.chaunce) {
        // After a Chaunce charge no card was played: the turn is the card's.
        r.st.chase = None;
        chaunce_turn_over(&mut r, true);
        return Ok(done(r));
    }
    finish_turn(&mut r, true);
    Ok(done(r))
}

/// The draw phase and the hand-over to the other side (design 3, step 5).
pub(super) fn finish_turn(r: &mut Res, draw: bool) {
    let s = &mut r.st;
    let a = s.active;
    let o = 1 - a;
    let mut notes = Vec::new();
    if draw {
        // A defender who played Evade draws first (004, Evade).
        if s.sides[o].evade_draw > 0 {
            let n = refill(s, o, &mut notes);
            notes.push(m(
                "ecw.draw.evade-first",
                &[("side", s.side_name(o)), ("count", n.to_string())],
            ));
        }
        let scout = s.card.as_ref().is_some_and(|c| c.scout);
        if scout {
            let mut pair = Vec::new();
            for _ in 0..2 {
                if let Some(c) = s.draw_command(&mut notes) {
                    pair.push(c);
                }
            }
            s.sides[a].scout = pair;
            notes.push(m("ecw.draw.scout", &[("side", s.side_name(a))]));
        } else {
            let n = refill(s, a, &mut notes);
            notes.push(m(
                "ecw.draw.cards",
                &[("side", s.side_name(a)), ("count", n.to_string())],
            ));
        }
    }
    for side in &mut s.sides {
        side.evade_draw = 0;
    }
    if let Some(c) = s.card.take() {
        s.sides[a].last_card = Some(c.effective.clone());
    }
    s.sync_counts();
    if !s.sides[a].scout.is_empty() {
        s.phase = Phase::Scout;
        r.step(k("ecw.step.draw"), join(&notes));
        r.say(join(&notes));
        return;
    }
    hand_over(r, notes);
}

pub(super) fn hand_over(r: &mut Res, mut notes: Vec<String>) {
    let s = &mut r.st;
    let a = s.active;
    for u in s.units.iter_mut().filter(|u| u.side == a) {
        u.no_move_turns = u.no_move_turns.saturating_sub(1);
        u.no_fire_turns = u.no_fire_turns.saturating_sub(1);
    }
    if s.rain > 0 {
        s.rain -= 1;
        if s.rain == 0 {
            notes.push(k("ecw.draw.rain-passed"));
        }
    }
    s.active = 1 - a;
    s.turn += 1;
    start_turn(s);
    notes.push(m(
        if s.phase == Phase::Chaunce {
            "ecw.draw.next-turn-chaunce"
        } else {
            "ecw.draw.next-turn"
        },
        &[
            ("turn", s.turn.to_string()),
            ("side", s.side_name(s.active)),
        ],
    ));
    r.step(k("ecw.step.end-turn"), join(&notes));
    r.say(join(&notes));
}

pub(super) fn keep(st: &State, id: &str) -> Result<P, Rejection> {
    let side = &st.sides[st.active];
    let Some(pos) = side.scout.iter().position(|&c| command_kind(c).id == id) else {
        return Err(reject(
            "not-scouted",
            Some("card"),
            m(
                "ecw.reject.not-scouted",
                &[(
                    "cards",
                    side.scout
                        .iter()
                        .map(|&c| command_kind(c).id)
                        .collect::<Vec<_>>()
                        .join(", "),
                )],
            ),
        ));
    };
    let mut r = Res::new(st);
    let s = &mut r.st;
    let pair = std::mem::take(&mut s.sides[s.active].scout);
    let mut dropped = String::new();
    for (i, c) in pair.into_iter().enumerate() {
        if i == pos {
            s.sides[s.active].hand.push(c);
        } else {
            dropped = command_kind(c).title();
            s.discard.push(c);
        }
    }
    let msg = m(
        "ecw.draw.keep-scouted",
        &[("side", s.side_name(s.active)), ("card", dropped)],
    );
    hand_over(&mut r, vec![msg]);
    Ok(done(r))
}

pub(super) fn objective(
    st: &State,
    side: &str,
    banners: Option<i64>,
    hex: Option<&str>,
) -> Result<P, Rejection> {
    let Some(i) = st.sides.iter().position(|s| s.id == side) else {
        return Err(reject(
            "no-such-side",
            Some("side"),
            m(
                "ecw.reject.no-such-side",
                &[(
                    "sides",
                    st.sides
                        .iter()
                        .map(|s| s.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                )],
            ),
        ));
    };
    let change = ranged("banners", banners, -3, 3)?.unwrap_or(1);
    if change == 0 {
        return Err(reject(
            "bad-number",
            Some("banners"),
            k("ecw.reject.banners-zero"),
        ));
    }
    let hex = hex.map_or_else(|| k("ecw.objective.an-objective"), str::to_string);
    let mut r = Res::new(st);
    let b = &mut r.st.sides[i].banners;
    *b = u32::try_from(i64::from(*b) + change).unwrap_or(0);
    let msg = m(
        if change > 0 {
            "ecw.objective.gain"
        } else {
            "ecw.objective.lose"
        },
        &[
            ("side", r.st.side_name(i)),
            ("count", change.abs().to_string()),
            ("hex", hex),
        ],
    );
    r.st.chronicle.push(msg.clone());
    r.say(msg.clone());
    r.step(k("ecw.step.objective"), msg);
    check_victory(&mut r);
    Ok(done(r))
}

/// A side gains a banner for an enemy unit or leader lost (design 8).
pub(super) fn banner(r: &mut Res, to: usize, why: String) {
    r.st.sides[to].banners += 1;
    let msg = m(
        "ecw.banner.gain",
        &[
            ("side", r.st.side_name(to)),
            ("banners", r.st.sides[to].banners.to_string()),
            ("needed", r.st.sides[to].banners_to_win.to_string()),
            ("why", why),
        ],
    );
    r.st.chronicle.push(msg.clone());
    r.say(msg);
}

pub(super) fn check_victory(r: &mut Res) {
    if r.st.phase == Phase::Over {
        return;
    }
    let a = r.st.active;
    for i in [a, 1 - a] {
        if r.st.sides[i].banners >= r.st.sides[i].banners_to_win {
            r.st.winner = Some(i);
            r.st.phase = Phase::Over;
            r.st.window = None;
            r.st.chase = None;
            let v = verdict(&r.st);
            r.say(m("ecw.victory.say", &[("verdict", v.clone())]));
            r.step(k("ecw.step.victory"), v);
            return;
        }
    }
}

/// Remove blocks from a unit; at none it is eliminated, its Stand of Pikes card returns, and the
/// enemy gains a banner. `cause` is a message.
pub(super) fn lose_blocks(r: &mut Res, unit: &str, n: u32, cause: &str) -> bool {
    let Some(u) = r.st.unit_mut(unit) else {
        return false;
    };
    let n = n.min(u32::from(u.blocks)) as u8;
    u.blocks -= n;
    if u.blocks > 0 || u.gone.is_some() {
        return false;
    }
    u.gone = Some(cause.to_string());
    let (side, name) = (u.side, u.name.clone());
    leave_stand(&mut r.st, unit);
    if r.st.chase.as_ref().is_some_and(|c| c.unit == unit) {
        r.st.chase = None;
    }
    // A leader outlives his unit, alone (a combat's casualty check may still take him).
    for l in r.st.leaders.iter_mut() {
        if l.unit.as_deref() == Some(unit) {
            l.unit = None;
        }
    }
    banner(
        r,
        1 - side,
        m(
            "ecw.banner.eliminated",
            &[("unit", name), ("cause", cause.into())],
        ),
    );
    true
}

/// A unit leaves its Stand of Pikes: its card returns to the hand (CCN-rem).
pub(super) fn leave_stand(s: &mut State, unit: &str) {
    let Some(u) = s.unit_mut(unit) else { return };
    if !u.stand {
        return;
    }
    u.stand = false;
    let side = u.side;
    if let Some(p) = s.sides[side].track.iter().position(|(_, x)| x == unit) {
        let (c, _) = s.sides[side].track.remove(p);
        s.sides[side].hand.push(c);
    }
}

pub(super) fn lose_leader(r: &mut Res, leader: &str, cause: &str) {
    let Some(l) = r.st.leader_mut(leader) else {
        return;
    };
    if l.gone.is_some() {
        return;
    }
    l.gone = Some(cause.to_string());
    l.unit = None;
    let (side, name) = (l.side, l.name.clone());
    banner(
        r,
        1 - side,
        m(
            "ecw.banner.leader-lost",
            &[("leader", name), ("cause", cause.into())],
        ),
    );
}
