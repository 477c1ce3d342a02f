//! The deal, the turn and the draw; banners and losses.

use super::*;

// ------------------------------------------------------------------------------------------------
// The deal, the turn and the draw.

pub(super) fn deal(st: &State, hands: Option<&str>, referee: bool) -> Result<P, Rejection> {
    let mode = hands.unwrap_or("per-seat");
    let single = match mode {
        "per-seat" => false,
        "single-device" => true,
        _ => {
            return Err(reject(
                "bad-choice",
                Some("hands"),
                "hands: per-seat (each player on their own link) or single-device (one device, hands behind a tap)",
            ))
        }
    };
    let st = st.clone();
    // The shuffle key: eight dice of 255 faces from the seeded stream.
    Ok(
        throw(8, 255, "Shuffle key", Depends::Nothing).map(move |faces| {
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
                .map(|x| format!("{} {} cards", x.name, x.hand.len()))
                .collect();
            r.step(
                "The deal [design 4.3]",
                format!(
                    "the command deck (72) and the Chaunce pack ({}) are shuffled; dealt: {}",
                    r.st.pack.len(),
                    hands.join(", ")
                ),
            );
            r.say(format!(
                "cards dealt ({}); {} play first",
                if single {
                    "one device: hands behind a tap"
                } else {
                    "each side on its own link"
                },
                r.st.side_name(0)
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
            format!(
                "the rash {} is out of control: it must break through and make its bonus melee if it can (004, Horse); `stop` with no_target if no enemy is in reach{}",
                st.unit(&c.unit).map_or("unit", |u| u.name.as_str()),
                if c.control_rolled { "" } else { ", or roll for control" }
            ),
        ).not_now());
    }
    if st.phase == Phase::Command && !st.sides[st.active].hand.is_empty() {
        return Err(reject(
            "play-a-card",
            Some("action"),
            "a turn begins by playing a command card (or presenting Hazzard a Chaunce)",
        )
        .not_now());
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
            notes.push(format!("{} draw {n} card(s) first (Evade)", s.side_name(o)));
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
            notes.push(format!(
                "{} draw two cards and keep one (Scout)",
                s.side_name(a)
            ));
        } else {
            let n = refill(s, a, &mut notes);
            notes.push(format!("{} draw {n} card(s)", s.side_name(a)));
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
        r.step("Draw [CCN sequence of play, draw phase]", notes.join("; "));
        r.say(notes.join("; "));
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
            notes.push("St. Swithun's rain has passed: ranged combat is possible again".into());
        }
    }
    s.active = 1 - a;
    s.turn += 1;
    start_turn(s);
    notes.push(format!(
        "turn {}: {} to play{}",
        s.turn,
        s.side_name(s.active),
        if s.phase == Phase::Chaunce {
            " (a Chaunce card first)"
        } else {
            ""
        }
    ));
    r.step("End of turn [CCN sequence of play]", notes.join("; "));
    r.say(notes.join("; "));
}

pub(super) fn keep(st: &State, id: &str) -> Result<P, Rejection> {
    let side = &st.sides[st.active];
    let Some(pos) = side.scout.iter().position(|&c| command_kind(c).id == id) else {
        return Err(reject(
            "not-scouted",
            Some("card"),
            format!(
                "card: keep one of the two scouted cards: {}",
                side.scout
                    .iter()
                    .map(|&c| command_kind(c).id)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    };
    let mut r = Res::new(st);
    let s = &mut r.st;
    let pair = std::mem::take(&mut s.sides[s.active].scout);
    let mut dropped = "";
    for (i, c) in pair.into_iter().enumerate() {
        if i == pos {
            s.sides[s.active].hand.push(c);
        } else {
            dropped = command_kind(c).name;
            s.discard.push(c);
        }
    }
    let msg = format!(
        "{} keep one scouted card and discard {dropped} face up (decision 10)",
        s.side_name(s.active)
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
            format!(
                "side: allowed: {}",
                st.sides
                    .iter()
                    .map(|s| s.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    };
    let change = ranged("banners", banners, -3, 3)?.unwrap_or(1);
    if change == 0 {
        return Err(reject(
            "bad-number",
            Some("banners"),
            "banners: +1 gained or -1 lost (not 0)",
        ));
    }
    let hex = hex.unwrap_or("an objective");
    let mut r = Res::new(st);
    let b = &mut r.st.sides[i].banners;
    *b = u32::try_from(i64::from(*b) + change).unwrap_or(0);
    let msg = format!(
        "{} {} {} banner(s) for {hex} (scenario objective, design 8)",
        r.st.side_name(i),
        if change > 0 { "gain" } else { "lose" },
        change.abs()
    );
    r.st.chronicle.push(msg.clone());
    r.say(msg.clone());
    r.step("Objective [CCN object of the game; design 8]", msg);
    check_victory(&mut r);
    Ok(done(r))
}

/// A side gains a banner for an enemy unit or leader lost (design 8).
pub(super) fn banner(r: &mut Res, to: usize, why: String) {
    r.st.sides[to].banners += 1;
    let msg = format!(
        "{} gain a victory banner ({}/{}): {why}",
        r.st.side_name(to),
        r.st.sides[to].banners,
        r.st.sides[to].banners_to_win
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
            r.say(format!("Victory: {v}"));
            r.step("Victory [CCN object of the game: 'Victory is achieved the instant the last Victory Banner required is gained']", v);
            return;
        }
    }
}

/// Remove blocks from a unit; at none it is eliminated, its Stand of Pikes card returns, and the
/// enemy gains a banner.
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
    banner(r, 1 - side, format!("{name} eliminated ({cause})"));
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
    banner(r, 1 - side, format!("{name} lost ({cause})"));
}
