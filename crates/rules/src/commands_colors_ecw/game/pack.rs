//! The Chaunce pack (design 5): drawing and resolving a card, and the steps that follow one
//! (the swap, The Dizziness).

use super::*;

// ------------------------------------------------------------------------------------------------
// The Chaunce pack (design 5).

/// Cards whose resolution needs the table's answer (which units are within 4 hexes, which river
/// sections...): the side lists the candidates and Tercio draws among them (decision 5). The
/// question is a catalogue key.
pub fn needs_candidates(id: &str) -> Option<&'static str> {
    Some(match id {
        "damned-turncotes" => "ecw.ask.damned-turncotes",
        "exceeding-nervose" => "ecw.ask.exceeding-nervose",
        "friendly-fire" => "ecw.ask.friendly-fire",
        "fumblethumbs" => "ecw.ask.fumblethumbs",
        "going-for-it" => "ecw.ask.going-for-it",
        "lay-down-your-armes" => "ecw.ask.lay-down-your-armes",
        "old-davey" => "ecw.ask.old-davey",
        "two-inches-depe" => "ecw.ask.two-inches-depe",
        "weak-bridge" => "ecw.ask.weak-bridge",
        "what-was-in-that-barn" => "ecw.ask.what-was-in-that-barn",
        "who-drew-this-mappe" => "ecw.ask.who-drew-this-mappe",
        _ => return None,
    })
}

/// A card with a second question once the first draw is made (a catalogue key).
pub fn second_question(id: &str) -> Option<&'static str> {
    Some(match id {
        "going-for-it" => "ecw.ask2.going-for-it",
        "lay-down-your-armes" => "ecw.ask2.lay-down-your-armes",
        "weak-bridge" => "ecw.ask2.weak-bridge",
        "devils-match" => "ecw.ask2.devils-match",
        _ => return None,
    })
}

/// The Chaunce draw of the game: the top card of the pack shuffled at the deal (decision 58).
pub(super) fn draw_chaunce(st: &State) -> Result<P, Rejection> {
    let mut r = Res::new(st);
    let mut notes = Vec::new();
    let Some(c) = r.st.draw_chaunce_card(&mut notes) else {
        return Err(reject("empty-pack", None, k("ecw.reject.empty-pack")));
    };
    Ok(chaunce_drawn(st, r, c, notes))
}

/// The odds of the Chaunce draw, from what is public (decision 58): a card dealt from the cards
/// not yet seen, each title its own class, and then the same resolution as the draw's.
pub fn chaunce_odds(st: &State) -> Result<P, Rejection> {
    let left: Vec<u8> = unseen_chaunce(st).iter().map(|&c| c + 1).collect();
    if !st.cfg.chaunce || left.is_empty() {
        return Err(reject("empty-pack", None, k("ecw.reject.no-pack")));
    }
    let title = |n: u8| {
        let id = chaunce_of(n - 1).id;
        CHAUNCE_CARDS.iter().position(|c| c.id == id).unwrap_or(0) as u8
    };
    let st = st.clone();
    Ok(Plan::card(
        k("ecw.facet.chaunce-card"),
        pack_size(&st.cfg),
        left,
        title,
        move |n| {
            let mut r = Res::new(&st);
            let mut notes = Vec::new();
            match r.st.take_chaunce_card(n - 1, &mut notes) {
                Some(c) => chaunce_drawn(&st, r, c, notes),
                None => done(r),
            }
        },
    ))
}

/// A Chaunce card drawn (`c`, already off the pack): face up, and resolved at once when it needs
/// no answer from the table.
fn chaunce_drawn(st: &State, mut r: Res, c: u8, mut notes: Vec<String>) -> P {
    let side = st.active;
    r.st.sides[side].chaunce_due = r.st.sides[side].chaunce_due.saturating_sub(1);
    r.st.pack_discard.push(c);
    r.st.chaunce = Some(c);
    let card = chaunce_of(c);
    r.facet(k("ecw.facet.chaunce-card"), card.title());
    notes.push(m(
        "ecw.chaunce.drawn",
        &[
            ("side", st.side_name(side)),
            ("card", card.title()),
            ("text", card.rules()),
        ],
    ));
    r.step(
        m("ecw.step.chaunce", &[("card", card.title())]),
        join(&notes),
    );
    r.say(join(&notes));
    if needs_candidates(card.id).is_some() {
        // A card with nothing on the table to act on is ignored at once (decision 3).
        let applies = match card.id {
            "fumblethumbs" => st
                .last_foot_fired
                .as_ref()
                .is_some_and(|u| st.unit(u).is_some_and(|x| x.gone.is_none())),
            "going-for-it" => !own(st, side, is_horse).is_empty(),
            "damned-turncotes"
            | "exceeding-nervose"
            | "lay-down-your-armes"
            | "who-drew-this-mappe" => !own(st, side, |_| true).is_empty(),
            _ => true,
        };
        if !applies {
            return done(card_ignored(r, card, "ecw.chaunce.no-target"));
        }
        r.st.phase = Phase::ChaunceResolve;
        // Friendly Fire draws its gun first; the table then names the nearest friendly unit.
        if card.id == "friendly-fire" {
            let guns: Vec<String> = st
                .live_units(side)
                .filter(|u| u.class == Class::Artillery)
                .map(|u| u.id.clone())
                .collect();
            if guns.is_empty() {
                return done(card_ignored(r, card, "ecw.chaunce.no-artillery"));
            }
            return pick_one(r, guns, &k("ecw.pick.friendly-fire-gun"), |mut r, gun| {
                let name = r.st.unit(&gun).map_or(String::new(), |u| u.name.clone());
                r.say(m("ecw.chaunce.gun-drawn", &[("unit", name)]));
                r.st.pending = Some(gun.clone());
                done(r)
            });
        }
        return done(r);
    }
    chaunce_effect(r, card, Vec::new(), Vec::new())
}

/// A card without effect; `why` is a catalogue key.
pub(super) fn card_ignored(mut r: Res, card: &ChaunceCard, why: &str) -> Res {
    r.say(m(
        "ecw.chaunce.ignored",
        &[("card", card.title()), ("why", k(why))],
    ));
    r.st.chaunce = None;
    next_after_chaunce(&mut r);
    r
}

/// A uniform draw among candidates (decision 5).
pub(super) fn pick_one(
    r: Res,
    mut from: Vec<String>,
    label: &str,
    then: impl Fn(Res, String) -> P + 'static,
) -> P {
    from.sort();
    from.dedup();
    if from.len() == 1 {
        let only = from[0].clone();
        return then(r, only);
    }
    let n = from.len().min(255) as u8;
    let label = label.to_string();
    Plan::die(Die::new(n, label.clone()), move |f| {
        let mut r = r.clone();
        let chosen = from[usize::from(f - 1)].clone();
        r.steps.push(Step {
            title: m(
                "ecw.step.drawn-at-random",
                &[("label", label.clone()), ("n", n.to_string())],
            ),
            dice: vec![tercio_core::RolledDie {
                label: label.clone(),
                sides: n,
                face: f,
            }],
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: r
                .st
                .unit(&chosen)
                .map(|u| u.name.clone())
                .or_else(|| r.st.leader(&chosen).map(|l| l.name.clone()))
                .unwrap_or_else(|| chosen.clone()),
        });
        then(r, chosen)
    })
}

/// The turn goes on after a Chaunce card, or another presented card comes first.
pub(super) fn next_after_chaunce(r: &mut Res) {
    r.st.chaunce = None;
    r.st.phase = if r.st.sides[r.st.active].chaunce_due > 0 {
        Phase::Chaunce
    } else {
        Phase::Command
    };
}

/// A card that replaced the turn: the optional swap (not after The Fogge of War), then the other
/// side's turn.
pub(super) fn chaunce_turn_over(r: &mut Res, swap: bool) {
    r.st.chaunce = None;
    r.st.replaced = true;
    r.st.sides[r.st.active].last_card = None;
    if swap && !r.st.sides[r.st.active].hand.is_empty() {
        r.st.phase = Phase::Swap;
        r.say(k("ecw.chaunce.replaces-turn-swap"));
    } else {
        hand_over(r, vec![k("ecw.chaunce.replaces-turn")]);
    }
}

pub(super) fn resolve_chaunce(
    st: &State,
    candidates: &[String],
    target: &[String],
    room: Option<i64>,
) -> Result<P, Rejection> {
    let c = st
        .chaunce
        .ok_or_else(|| reject("no-chaunce", None, k("ecw.reject.no-chaunce")).not_now())?;
    let card = chaunce_of(c);
    let mut cands = candidates.to_vec();
    if let Some(n) = ranged("room", room, 0, 12)? {
        // Fumblethumbs: the hexes the foot can retreat.
        cands = vec![n.to_string()];
    }
    let second = target.to_vec();
    let r = Res::new(st);
    let side = st.active;
    // Check the candidates are what the card asks for.
    let own_units = |p: &dyn Fn(&UnitState) -> bool| -> Result<(), Rejection> {
        for x in &cands {
            match st.unit(x) {
                Some(u) if u.side == side && u.gone.is_none() && !u.spare && p(u) => {}
                _ => {
                    return Err(reject(
                        "bad-candidate",
                        Some("candidates"),
                        m(
                            "ecw.reject.bad-candidate",
                            &[
                                ("x", crate::text::quoted(x)),
                                (
                                    "asked",
                                    k(needs_candidates(card.id).unwrap_or("ecw.ask.units")),
                                ),
                            ],
                        ),
                    ));
                }
            }
        }
        Ok(())
    };
    match card.id {
        "damned-turncotes"
        | "exceeding-nervose"
        | "lay-down-your-armes"
        | "who-drew-this-mappe" => own_units(&|_| true)?,
        "going-for-it" => own_units(&is_horse)?,
        "friendly-fire" => {
            // A friendly unit on the table other than the gun: never one held in reserve
            // (decision 60).
            let gun = st.pending.as_deref();
            for x in &cands {
                if !st.unit(x).is_some_and(|u| {
                    u.side == side && u.gone.is_none() && !u.spare && Some(x.as_str()) != gun
                }) {
                    return Err(reject(
                        "bad-candidate",
                        Some("candidates"),
                        m("ecw.reject.bad-friendly", &[("x", crate::text::quoted(x))]),
                    ));
                }
            }
            if cands.len() > 1 {
                return Err(reject(
                    "one-target",
                    Some("candidates"),
                    k("ecw.reject.one-target"),
                ));
            }
        }
        "fumblethumbs" => {
            if let Some(x) = cands.first() {
                if x.parse::<u32>().is_err() {
                    return Err(reject(
                        "bad-number",
                        Some("candidates"),
                        k("ecw.reject.room-number"),
                    ));
                }
            }
        }
        _ => {}
    }
    Ok(chaunce_effect(r, card, cands, second))
}

/// A Chaunce card's effect for the rest of the day: kept in the chronicle the board shows, and
/// said in the result (both messages).
pub(super) fn lasting(r: &mut Res, note: String, said: String) {
    r.st.chronicle.push(note);
    r.say(said);
}

/// The leaders of `side` still on the field, or (`lost`) those lost.
pub(super) fn leaders_of(st: &State, side: usize, lost: bool) -> Vec<String> {
    st.leaders
        .iter()
        .filter(|l| l.side == side && l.gone.is_some() == lost)
        .map(|l| l.id.clone())
        .collect()
}

/// Units of `side` on the table matching `p`.
pub(super) fn own(st: &State, side: usize, p: impl Fn(&UnitState) -> bool) -> Vec<String> {
    st.live_units(side)
        .filter(|u| p(u))
        .map(|u| u.id.clone())
        .collect()
}

pub(super) fn symbol_hits(u: &UnitState, f: u8) -> bool {
    tables::symbol(f) == u.class.hit_by()
}

pub(super) fn swap(st: &State, card: Option<&str>) -> Result<P, Rejection> {
    let mut r = Res::new(st);
    let side = st.active;
    let mut notes = Vec::new();
    if let Some(id) = card {
        let Some(p) = st.sides[side]
            .hand
            .iter()
            .position(|&c| command_kind(c).id == id)
        else {
            return Err(reject(
                "not-in-hand",
                Some("card"),
                m(
                    "ecw.reject.not-in-hand",
                    &[("card", crate::text::quoted(id))],
                ),
            ));
        };
        let c = r.st.sides[side].hand.remove(p);
        r.st.discard.push(c);
        if let Some(n) = r.st.draw_command(&mut notes) {
            r.st.sides[side].hand.push(n);
        }
        notes.insert(
            0,
            m(
                "ecw.swap.discard",
                &[
                    ("side", st.side_name(side)),
                    ("card", command_kind(c).title()),
                ],
            ),
        );
    } else {
        notes.push(m("ecw.swap.keep", &[("side", st.side_name(side))]));
    }
    r.st.sync_counts();
    hand_over(&mut r, notes);
    Ok(done(r))
}

pub(super) fn dizzy_pick(st: &State, position: Option<i64>) -> Result<P, Rejection> {
    let side = st.active;
    let n = st.sides[side].hand.len() as i64;
    let p = ranged("position", position, 1, n.max(1))?.ok_or_else(|| {
        reject(
            "missing-field",
            Some("position"),
            m("ecw.reject.position", &[("n", n.to_string())]),
        )
    })?;
    let mut r = Res::new(st);
    // The backs are laid out in a fresh order of their own (decision 29).
    let order = shuffled(st.salt, 1000 + st.turn, (0..n as u8).collect());
    let i = usize::from(order[(p - 1) as usize]);
    let c = r.st.sides[side].hand.remove(i);
    r.st.discard.push(c);
    let lim = &mut r.st.sides[side].hand_limit;
    *lim = (*lim).saturating_sub(1).max(1);
    let msg = m(
        "ecw.chaunce.dizzy-picked",
        &[
            ("side", st.side_name(1 - side)),
            ("p", p.to_string()),
            ("card", command_kind(c).title()),
            ("other", st.side_name(side)),
            ("count", r.st.sides[side].hand_limit.to_string()),
        ],
    );
    r.step(card_step("the-dizziness"), msg.clone());
    r.say(msg);
    next_after_chaunce(&mut r);
    Ok(done(r))
}

/// A Chaunce card's step title: "Hazzard a Chaunce: <card>".
pub(super) fn card_step(id: &str) -> String {
    m(
        "ecw.step.chaunce",
        &[(
            "card",
            chaunce_card(id).map_or(id.to_string(), |c| c.title()),
        )],
    )
}
