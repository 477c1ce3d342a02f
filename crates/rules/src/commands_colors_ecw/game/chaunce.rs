//! What each Chaunce card does (design 5.2): one function per card, or per group of cards that
//! do the same, chosen by an exhaustive match on the card's [`Chaunce`] name, so that a card
//! added to the pack without its effect does not compile.

use super::*;

/// What a card's function is given besides the result so far: the card, the side that drew it
/// and its opponent, the state before the card, and the table's answers.
pub(super) struct Drawn {
    card: &'static ChaunceCard,
    side: usize,
    opp: usize,
    st: State,
    cands: Vec<String>,
    second: Vec<String>,
}

/// How most cards end: ignored if they found no target (decision 3); else the victory check,
/// then the turn goes on or is replaced.
fn finisher(card: &'static ChaunceCard) -> impl Fn(Res, bool) -> P + Copy + 'static {
    let replaced = card.turn != Turn::GoesOn;
    move |mut r: Res, applied: bool| -> P {
        if !applied {
            return done(card_ignored(r, card, "ecw.chaunce.no-target"));
        }
        check_victory(&mut r);
        if r.st.phase == Phase::Over {
            return done(r);
        }
        if replaced {
            chaunce_turn_over(&mut r, card.turn == Turn::Replaced);
        } else {
            next_after_chaunce(&mut r);
        }
        done(r)
    }
}

/// A Chaunce card's name, a message.
fn ct(id: &str) -> String {
    chaunce_card(id).map_or(id.to_string(), |c| c.title())
}

fn name_of(st: &State, id: &str) -> String {
    st.unit(id).map_or(id.to_string(), |u| u.name.clone())
}

pub(super) fn chaunce_effect(
    r: Res,
    card: &'static ChaunceCard,
    cands: Vec<String>,
    second: Vec<String>,
) -> P {
    let d = Drawn {
        card,
        side: r.st.active,
        opp: 1 - r.st.active,
        st: r.st.clone(),
        cands,
        second,
    };
    match card.card {
        Chaunce::PrinceAmongSarjeants => prince_among_sarjeants(r, d),
        Chaunce::StSwithun => st_swithun(r, d),
        Chaunce::ArtilleryHorses => artillery_horses(r, d),
        Chaunce::BadPowder => bad_powder(r, d),
        Chaunce::Chickweed => chickweed(r, d),
        Chaunce::DamnedTurncotes => damned_turncotes(r, d),
        Chaunce::ExceedingNervose => exceeding_nervose(r, d),
        Chaunce::FalseAlarum => false_alarum(r, d),
        Chaunce::FriendlyFire => friendly_fire(r, d),
        Chaunce::Fumblethumbs => fumblethumbs(r, d),
        Chaunce::GoingForIt => going_for_it(r, d),
        Chaunce::GrimmeReaper => grimme_reaper(r, d),
        Chaunce::HotForRevenge => hot_for_revenge(r, d),
        Chaunce::NeverTouchTheStuff => combat_die(r, d, -1),
        Chaunce::LayDownYourArmes => lay_down_your_armes(r, d),
        Chaunce::MyLordYouArePayle => my_lord_you_are_payle(r, d),
        Chaunce::NoOrders => no_orders(r, d),
        Chaunce::OBuggerIt => o_bugger_it(r, d),
        Chaunce::OldDavey => old_davey(r, d),
        Chaunce::TwoInchesDepe => two_inches_depe(r, d),
        Chaunce::Rabbits => rabbits(r, d),
        Chaunce::SoftGoing => soft_going(r, d),
        Chaunce::CoronelsTrubble => coronels_trubble(r, d),
        Chaunce::TheDizziness => the_dizziness(r, d),
        Chaunce::FoggeOfWar => fogge_of_war(r, d),
        Chaunce::InspiredWorde => combat_die(r, d, 1),
        Chaunce::GoldInTheBaggage => combat_die(r, d, 1),
        Chaunce::TwasButAMistake => twas_but_a_mistake(r, d),
        Chaunce::BiterBit => biter_bit(r, d),
        Chaunce::DevilsMatch => devils_match(r, d),
        Chaunce::VictoryeIsOurs => victorye_is_ours(r, d),
        Chaunce::WeakBridge => weak_bridge(r, d),
        Chaunce::WereBack => were_back(r, d),
        Chaunce::WhatWasInThatBarn => what_was_in_that_barn(r, d),
        Chaunce::WhoDrewThisMappe => who_drew_this_mappe(r, d),
    }
}

/// False Alarum.
fn false_alarum(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    r.say(k("ecw.chaunce.false-alarum"));
    finish(r, true)
}

/// All Hail St. Swithun.
fn st_swithun(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    r.st.rain = 4;
    lasting(
        &mut r,
        k("ecw.chaunce.rain-note"),
        k("ecw.chaunce.rain-said"),
    );
    finish(r, true)
}

/// Artillery Horses.
fn artillery_horses(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { side, st, .. } = d;
    r.st.sides[side].artillery_horses = true;
    lasting(
        &mut r,
        m("ecw.chaunce.horses-note", &[("side", st.side_name(side))]),
        k("ecw.chaunce.horses-said"),
    );
    finish(r, true)
}

/// Chickweed.
fn chickweed(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { side, st, .. } = d;
    r.st.sides[side].chickweed = true;
    lasting(
        &mut r,
        m(
            "ecw.chaunce.chickweed-note",
            &[("side", st.side_name(side))],
        ),
        k("ecw.chaunce.chickweed-said"),
    );
    finish(r, true)
}

/// Soft Going.
fn soft_going(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    r.st.soft_going = true;
    lasting(
        &mut r,
        k("ecw.chaunce.soft-going-note"),
        k("ecw.chaunce.soft-going-said"),
    );
    finish(r, true)
}

/// The Biter Bit.
fn biter_bit(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { opp, st, .. } = d;
    r.st.sides[opp].chaunce_due += 1;
    r.say(m("ecw.chaunce.biter-bit", &[("side", st.side_name(opp))]));
    finish(r, true)
}

/// The Fogge of War.
fn fogge_of_war(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { side, .. } = d;
    let mut notes = Vec::new();
    let hand = std::mem::take(&mut r.st.sides[side].hand);
    let n = hand.len();
    r.st.discard.extend(hand);
    for _ in 0..n {
        if let Some(c) = r.st.draw_command(&mut notes) {
            r.st.sides[side].hand.push(c);
        }
    }
    r.st.reshuffle_commands(&mut notes);
    let mut said = vec![m("ecw.chaunce.fogge", &[("count", n.to_string())])];
    said.extend(notes);
    r.say(join(&said));
    finish(r, true)
}

/// The Dizziness.
fn the_dizziness(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { side, opp, st, .. } = d;
    if r.st.sides[side].hand.is_empty() {
        return finish(r, false);
    }
    r.st.phase = Phase::Dizziness;
    r.say(m("ecw.chaunce.dizziness", &[("side", st.side_name(opp))]));
    done(r)
}

/// No Orders.
fn no_orders(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { side, .. } = d;
    let mut any = false;
    for l in
        r.st.leaders
            .iter_mut()
            .filter(|l| l.side == side && l.gone.is_none() && l.unit.is_some())
    {
        l.unit = None;
        any = true;
    }
    if any {
        r.say(k("ecw.chaunce.no-orders"));
    }
    finish(r, any)
}

/// Hot for Revenge.
fn hot_for_revenge(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { side, st, .. } = d;
    let from = own(&st, side, |_| true);
    if from.is_empty() {
        return finish(r, false);
    }
    pick_one(
        r,
        from.clone(),
        &m("ecw.pick.first-unit", &[("card", ct("hot-for-revenge"))]),
        move |r, first| {
            let rest: Vec<String> = from.iter().filter(|x| **x != first).cloned().collect();
            let give = move |mut r: Res, u: &str| {
                let name = name_of(&r.st, u);
                r.st.unit_mut(u).expect("picked").chaunce_bonus += 1;
                r.st.chronicle.push(m(
                    "ecw.chaunce.die-note",
                    &[
                        ("unit", name.clone()),
                        ("dice", "+1".into()),
                        ("card", ct("hot-for-revenge")),
                    ],
                ));
                r.say(m("ecw.chaunce.revenge-said", &[("unit", name)]));
                r
            };
            let r = give(r, &first);
            if rest.is_empty() {
                return finish(r, true);
            }
            let label = m("ecw.pick.second-unit", &[("card", ct("hot-for-revenge"))]);
            pick_one(r, rest, &label, move |r, second| {
                finish(give(r, &second), true)
            })
        },
    )
}

/// Bad Powder.
fn bad_powder(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { card, side, st, .. } = d;
    let from = own(&st, side, |u| {
        matches!(u.class, Class::Foot | Class::Dragoons)
    });
    if from.is_empty() {
        return finish(r, false);
    }
    pick_one(r, from, &card.title(), move |mut r, u| {
        let name = name_of(&r.st, &u);
        r.st.unit_mut(&u).expect("picked").no_fire_turns = 1;
        r.say(m("ecw.chaunce.bad-powder", &[("unit", name)]));
        finish(r, true)
    })
}

/// O Bugger It.
fn o_bugger_it(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { card, side, st, .. } = d;
    let from = own(&st, side, |u| {
        matches!(u.training, Training::Raw | Training::Militia)
    });
    if from.is_empty() {
        return finish(r, false);
    }
    pick_one(r, from, &card.title(), move |mut r, u| {
        if let Some(l) = r.st.leader_of(&u).map(|l| l.id.clone()) {
            if let Some(l) = r.st.leader_mut(&l) {
                l.unit = None;
            }
        }
        let b = r.st.unit(&u).map_or(0, |x| u32::from(x.blocks));
        lose_blocks(
            &mut r,
            &u,
            b,
            &m("ecw.cause.went-home", &[("card", ct("o-bugger-it"))]),
        );
        finish(r, true)
    })
}

/// Rabbits!.
fn rabbits(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { card, side, st, .. } = d;
    let from = own(&st, side, is_mounted);
    if from.is_empty() {
        return finish(r, false);
    }
    pick_one(r, from, &card.title(), move |mut r, u| {
        let name = name_of(&r.st, &u);
        r.st.unit_mut(&u).expect("picked").no_move_turns = 1;
        r.say(m("ecw.chaunce.rabbits", &[("unit", name)]));
        lose_blocks(&mut r, &u, 1, &ct("rabbits"));
        finish(r, true)
    })
}

/// Victorye Is Ours.
fn victorye_is_ours(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { card, side, st, .. } = d;
    let from = own(&st, side, is_horse);
    if from.is_empty() {
        return finish(r, false);
    }
    pick_one(r, from, &card.title(), move |mut r, u| {
        let x = r.st.unit_mut(&u).expect("picked");
        let name = x.name.clone();
        if x.rash {
            r.say(m("ecw.chaunce.already-rash", &[("unit", name)]));
        } else {
            x.rash = true;
            r.say(m("ecw.chaunce.become-rash", &[("unit", name)]));
        }
        finish(r, true)
    })
}

/// My Lord, You Are Payle.
fn my_lord_you_are_payle(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { card, side, st, .. } = d;
    let from = leaders_of(&st, side, false);
    if from.is_empty() {
        return finish(r, false);
    }
    pick_one(r, from, &card.title(), move |r, l| {
        let name = r.st.leader(&l).map_or(String::new(), |x| x.name.clone());
        Plan::die(Die::d6(k("ecw.die.severity")), move |f| {
            let mut r = r.clone();
            let what = k([
                "ecw.wound.unhurt",
                "ecw.wound.scratch",
                "ecw.wound.flesh",
                "ecw.wound.severe",
                "ecw.wound.mortal",
                "ecw.wound.dead",
            ][usize::from(f - 1)]);
            let result = m(
                "ecw.chaunce.wound",
                &[("leader", name.clone()), ("what", what.clone())],
            );
            r.steps.push(Step {
                title: m(
                    "ecw.step.payle",
                    &[
                        ("card", ct("my-lord-you-are-payle")),
                        ("leader", name.clone()),
                    ],
                ),
                dice: vec![tercio_core::RolledDie {
                    label: k("ecw.die.severity"),
                    sides: 6,
                    face: f,
                }],
                modifiers: Vec::new(),
                totals: Vec::new(),
                result: result.clone(),
            });
            r.facets.push((
                m("ecw.facet.leader-lost", &[("leader", name.clone())]),
                k(if f >= 4 { "ecw.ref.yes" } else { "ecw.ref.no" }),
            ));
            if f >= 4 {
                lose_leader(&mut r, &l, &what);
            } else {
                r.say(result);
            }
            finish(r, true)
        })
    })
}

/// T'was But a Mistake.
fn twas_but_a_mistake(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn {
        card,
        side,
        opp,
        st,
        ..
    } = d;
    let from = leaders_of(&st, side, true);
    if from.is_empty() {
        return finish(r, false);
    }
    pick_one(r, from, &card.title(), move |mut r, l| {
        let name = r.st.leader(&l).map_or(String::new(), |x| x.name.clone());
        if let Some(x) = r.st.leader_mut(&l) {
            x.gone = None;
            x.unit = None;
        }
        r.st.sides[opp].banners = r.st.sides[opp].banners.saturating_sub(1);
        let said = m(
            "ecw.chaunce.twas-mistake",
            &[("leader", name), ("side", r.st.side_name(opp))],
        );
        r.st.chronicle.push(said.clone());
        r.say(said);
        finish(r, true)
    })
}

/// We're Back.
fn were_back(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { side, .. } = d;
    let classes = FaceClasses::of(&[0, 0, 1, 2, 3, 4]);
    throw(1, 6, &k("ecw.die.were-back"), Depends::Classes(classes)).and_then(move |f| {
        let mut r = r.clone();
        let s = tables::symbol(f[0]);
        let t = match s {
            Symbol::Infantry => Some(0),
            Symbol::Cavalry => Some(1),
            Symbol::Artillery => Some(2),
            _ => None,
        };
        let spare = t.and_then(|t| {
            r.st.units
                .iter()
                .find(|u| u.side == side && u.spare && u.gone.is_none() && type_of(u) == t)
                .map(|u| u.id.clone())
        });
        let result = match (s, &spare) {
            (Symbol::Sabre, _) => k("ecw.chaunce.rumour"),
            (Symbol::Flag, _) => k("ecw.chaunce.no-spare-leader"),
            (_, None) => m("ecw.chaunce.no-spare", &[("symbol", s.term())]),
            (_, Some(u)) => m("ecw.chaunce.spare-returns", &[("unit", name_of(&r.st, u))]),
        };
        if let Some(u) = &spare {
            r.st.unit_mut(u).expect("spare").spare = false;
        }
        r.steps.push(Step {
            title: m("ecw.step.were-back", &[("card", ct("were-back"))]),
            dice: vec![tercio_core::RolledDie {
                label: m(
                    "ecw.die.one",
                    &[("label", k("ecw.die.were-back")), ("symbol", s.term())],
                ),
                sides: 6,
                face: f[0],
            }],
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: result.clone(),
        });
        r.say(result);
        finish(r, true)
    })
}

/// Fumblethumbs.
fn fumblethumbs(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { st, cands, .. } = d;
    let Some(u) = st
        .last_foot_fired
        .clone()
        .filter(|u| st.unit(u).is_some_and(|x| x.gone.is_none()))
    else {
        return finish(r, false);
    };
    let room: Option<u32> = cands.first().and_then(|x| x.parse().ok());
    let classes = FaceClasses::of(&[0, 0, 2, 2, 2, 1]);
    let name = name_of(&st, &u);
    let label = m("ecw.die.card-die", &[("card", ct("fumblethumbs"))]);
    throw(1, 6, &label.clone(), Depends::Classes(classes)).and_then(move |f| {
        let mut r = r.clone();
        let c = classes.class(f[0]);
        let mut result = k("ecw.chaunce.no-effect");
        if c == 0 {
            lose_blocks(&mut r, &u, 1, &ct("fumblethumbs"));
            result = m("ecw.chaunce.loses-block", &[("unit", name.clone())]);
        } else if c == 1 {
            let lost = room.map_or(0, |room| 2u32.saturating_sub(room));
            lose_blocks(&mut r, &u, lost, &ct("fumblethumbs"));
            result = if lost > 0 {
                m(
                    "ecw.chaunce.retreats-2-losing",
                    &[("unit", name.clone()), ("count", lost.to_string())],
                )
            } else {
                m("ecw.chaunce.retreats-2", &[("unit", name.clone())])
            };
        }
        r.steps.push(Step {
            title: m(
                "ecw.step.fumblethumbs",
                &[("card", ct("fumblethumbs")), ("unit", name.clone())],
            ),
            dice: symbol_dice(&label, &f),
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: result.clone(),
        });
        r.say(result);
        finish(r, true)
    })
}

/// The Devil's Match.
fn devils_match(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn {
        card,
        side,
        st,
        second,
        ..
    } = d;
    let pending = st.pending.clone();
    if let Some(gun) = pending {
        // The second step: the adjacent units roll.
        r.st.pending = None;
        return devils_neighbours(r, gun, second, finish);
    }
    let from = own(&st, side, |u| u.class == Class::Artillery);
    if from.is_empty() {
        return finish(r, false);
    }
    pick_one(r, from, &card.title(), move |r, gun| {
        let classes = FaceClasses::of(&[2, 2, 2, 0, 1, 2]);
        let name = name_of(&r.st, &gun);
        let label = m("ecw.die.card-die", &[("card", ct("devils-match"))]);
        throw(1, 6, &label.clone(), Depends::Classes(classes)).and_then(move |f| {
            let mut r = r.clone();
            let c = classes.class(f[0]);
            r.steps.push(Step {
                title: m(
                    "ecw.step.devils-match",
                    &[("card", ct("devils-match")), ("unit", name.clone())],
                ),
                dice: symbol_dice(&label, &f),
                modifiers: Vec::new(),
                totals: Vec::new(),
                result: match c {
                    0 => m("ecw.chaunce.loses-block", &[("unit", name.clone())]),
                    1 => m("ecw.chaunce.blast", &[("unit", name.clone())]),
                    _ => k("ecw.chaunce.no-explosion"),
                },
            });
            if c <= 1 {
                lose_blocks(&mut r, &gun, 1, &ct("devils-match"));
            }
            if c == 1 {
                r.st.pending = Some(gun.clone());
                r.st.phase = Phase::ChaunceResolve;
                r.say(k("ecw.chaunce.name-neighbours"));
                return done(r);
            }
            finish(r, true)
        })
    })
}

/// Friendly Fire.
fn friendly_fire(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn { st, cands, .. } = d;
    let gun = st.pending.clone();
    if gun.is_some() {
        r.st.pending = None;
    }
    let (Some(gun), Some(target)) = (gun, cands.first().cloned()) else {
        return finish(r, false);
    };
    let (Some(g), Some(_)) = (st.unit(&gun), st.unit(&target)) else {
        return finish(r, false);
    };
    let (n, mods) = match resolve::dice(
        &roller_of(&st, g, Kind::Ranged, false, true),
        Kind::Ranged,
        0,
    ) {
        Ok(x) => x,
        Err(_) => return finish(r, false),
    };
    hit_unit(
        r,
        Hit {
            roller: gun,
            target,
            kind: Kind::Ranged,
            n,
            mods,
            room: None,
            ignores: 0,
            retiring: false,
            label: ct("friendly-fire"),
        },
        move |r, _| finish(r, true),
    )
}

/// Going For It Bald-Headed.
fn going_for_it(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn {
        card,
        opp,
        st,
        cands,
        second,
        ..
    } = d;
    let pending = st.pending.clone();
    if let Some(unit) = pending {
        r.st.pending = None;
        let Some(t) = second
            .first()
            .and_then(|t| st.unit(t))
            .filter(|t| t.side == opp && t.gone.is_none() && !t.spare)
        else {
            return finish(r, false);
        };
        let tid = t.id.clone();
        r.st.window = Some(Window {
            attacker: unit.clone(),
            target: tid,
            terrain: 0,
            battle_back_terrain: 0,
            target_room: None,
            attacker_room: None,
            target_ignores: 0,
            bonus: false,
            chaunce: true,
        });
        r.st.phase = Phase::Window;
        r.st.chaunce = None;
        r.say(m(
            "ecw.chaunce.charges",
            &[
                ("unit", name_of(&st, &unit)),
                ("target", t.name.clone()),
                ("side", st.side_name(opp)),
            ],
        ));
        return done(r);
    }
    if cands.is_empty() {
        return finish(r, false);
    }
    pick_one(r, cands, &card.title(), move |mut r, u| {
        r.st.pending = Some(u.clone());
        r.say(m(
            "ecw.chaunce.charges-name",
            &[("unit", name_of(&r.st, &u))],
        ));
        done(r)
    })
}

/// Lay Down Your Armes.
fn lay_down_your_armes(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn {
        card,
        opp,
        st,
        cands,
        second,
        ..
    } = d;
    let pending = st.pending.clone();
    if pending.is_some() {
        r.st.pending = None;
        let captors: Vec<String> = second
            .iter()
            .filter(|t| {
                st.unit(t)
                    .is_some_and(|x| x.side == opp && x.gone.is_none() && !x.spare)
            })
            .cloned()
            .collect();
        if captors.is_empty() {
            return finish(r, true);
        }
        return pick_one(
            r,
            captors,
            &m("ecw.pick.captor", &[("card", ct("lay-down-your-armes"))]),
            move |mut r, c| {
                let x = r.st.unit(&c).expect("captor");
                let name = x.name.clone();
                if x.blocks > 1 {
                    lose_blocks(&mut r, &c, 1, &k("ecw.cause.prisoner-guards"));
                    r.say(m("ecw.chaunce.guards", &[("unit", name)]));
                } else {
                    r.say(m("ecw.chaunce.keeps-last-block", &[("unit", name)]));
                }
                finish(r, true)
            },
        );
    }
    if cands.is_empty() {
        return finish(r, false);
    }
    pick_one(r, cands, &card.title(), move |mut r, u| {
        let b = r.st.unit(&u).map_or(0, |x| u32::from(x.blocks));
        if let Some(l) = r.st.leader_of(&u).map(|l| l.id.clone()) {
            if let Some(l) = r.st.leader_mut(&l) {
                l.unit = None;
            }
        }
        lose_blocks(
            &mut r,
            &u,
            b,
            &m(
                "ecw.cause.surrendered",
                &[("card", ct("lay-down-your-armes"))],
            ),
        );
        r.st.pending = Some(u.clone());
        r.st.phase = Phase::ChaunceResolve;
        r.say(k("ecw.chaunce.name-captors"));
        check_victory(&mut r);
        done(r)
    })
}

/// Damned Turncotes.
fn damned_turncotes(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn {
        card, opp, cands, ..
    } = d;
    if cands.is_empty() {
        return finish(r, false);
    }
    pick_one(r, cands, &card.title(), move |mut r, u| {
        let name = name_of(&r.st, &u);
        let leader = r.st.leader_of(&u).map(|l| l.id.clone());
        leave_stand(&mut r.st, &u);
        if let Some(x) = r.st.unit_mut(&u) {
            x.side = opp;
        }
        banner(
            &mut r,
            opp,
            m(
                "ecw.chaunce.changes-sides",
                &[("unit", name.clone()), ("card", ct("damned-turncotes"))],
            ),
        );
        if let Some(l) = leader {
            let lname = r.st.leader(&l).map_or(String::new(), |x| x.name.clone());
            if let Some(x) = r.st.leader_mut(&l) {
                x.side = opp;
            }
            banner(&mut r, opp, m("ecw.chaunce.defects", &[("leader", lname)]));
        }
        r.say(m("ecw.chaunce.new-comrades", &[("unit", name)]));
        finish(r, true)
    })
}

/// Weak Bridge.
fn weak_bridge(mut r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    let Drawn {
        card,
        st,
        cands,
        second,
        ..
    } = d;
    let pending = st.pending.clone();
    if pending.is_some() {
        r.st.pending = None;
        for u in &second {
            if let Some(x) = st.unit(u).filter(|x| x.gone.is_none() && !x.spare) {
                let b = u32::from(x.blocks);
                lose_blocks(&mut r, u, b, &k("ecw.cause.bridge"));
            }
        }
        return finish(r, true);
    }
    if cands.is_empty() {
        return finish(r, false);
    }
    pick_one(r, cands, &card.title(), move |mut r, b| {
        r.st.chronicle.push(m(
            "ecw.chaunce.bridge-note",
            &[("card", ct("weak-bridge")), ("bridge", b.clone())],
        ));
        r.st.pending = Some("bridge".into());
        r.st.phase = Phase::ChaunceResolve;
        r.say(m("ecw.chaunce.bridge-said", &[("bridge", b)]));
        done(r)
    })
}

/// A random unit of the drawing side (decision 5), given to `then`; no unit: no effect.
fn random_unit(r: Res, d: Drawn, then: impl Fn(Res, String) -> P + 'static) -> P {
    let from = own(&d.st, d.side, |_| true);
    if from.is_empty() {
        return finisher(d.card)(r, false);
    }
    pick_one(r, from, &d.card.title(), then)
}

/// A Prince Among Sarjeants.
fn prince_among_sarjeants(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    random_unit(r, d, move |mut r, u| {
        let name = name_of(&r.st, &u);
        let x = r.st.unit_mut(&u).expect("picked");
        let up = match (x.class, x.training) {
            (Class::Artillery, _) => None,
            (_, Training::Raw) => Some(Training::Trained),
            (_, Training::Trained) => Some(Training::Veteran),
            _ => None,
        };
        match up {
            Some(t) => {
                x.training = t;
                r.say(m(
                    "ecw.chaunce.becomes",
                    &[("unit", name), ("training", t.term())],
                ));
            }
            None => r.say(m("ecw.chaunce.prince-no-effect", &[("unit", name)])),
        }
        finish(r, true)
    })
}

/// Grimme Reaper.
fn grimme_reaper(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    random_unit(r, d, move |r, u| {
        let x = r.st.unit(&u).expect("picked").clone();
        let classes = FaceClasses::of(
            &(1..=6)
                .map(|f| u8::from(!symbol_hits(&x, f)))
                .collect::<Vec<_>>(),
        );
        let label = m("ecw.die.card-die", &[("card", ct("grimme-reaper"))]);
        throw(
            usize::from(x.blocks),
            6,
            &label.clone(),
            Depends::Classes(classes),
        )
        .and_then(move |faces| {
            let mut r = r.clone();
            let n = faces.iter().filter(|&&f| classes.class(f) == 0).count() as u32;
            let desert = m("ecw.chaunce.desert", &[("count", n.to_string())]);
            r.steps.push(Step {
                title: m(
                    "ecw.step.grimme-reaper",
                    &[
                        ("card", ct("grimme-reaper")),
                        ("unit", x.name.clone()),
                        ("symbol", x.class.hit_by().term()),
                    ],
                ),
                dice: symbol_dice(&label, &faces),
                modifiers: Vec::new(),
                totals: vec![(k("ecw.total.deserters"), n as i32)],
                result: desert.clone(),
            });
            r.facets.push((k("ecw.facet.blocks-lost"), n.to_string()));
            lose_blocks(&mut r, &x.id, n, &ct("grimme-reaper"));
            r.say(m(
                "ecw.chaunce.unit-desert",
                &[("unit", x.name.clone()), ("count", n.to_string())],
            ));
            finish(r, true)
        })
    })
}

/// The Coronel's Trubble Again.
fn coronels_trubble(r: Res, d: Drawn) -> P {
    let finish = finisher(d.card);
    random_unit(r, d, move |mut r, u| {
        let name = name_of(&r.st, &u);
        r.st.unit_mut(&u).expect("picked").no_orders_until_leader = true;
        r.say(m("ecw.chaunce.coronel", &[("unit", name)]));
        finish(r, true)
    })
}

/// A die more or less in all combat for the rest of the day: I Shall Never Touch the Stuff
/// Againe (-1), The Inspired Worde and They Say There Is Gold in the Baggage (+1).
fn combat_die(r: Res, d: Drawn, die: i32) -> P {
    let card = d.card;
    let finish = finisher(card);
    random_unit(r, d, move |mut r, u| {
        let name = name_of(&r.st, &u);
        r.st.unit_mut(&u).expect("picked").chaunce_bonus += die;
        r.st.chronicle.push(m(
            "ecw.chaunce.die-note",
            &[
                ("unit", name.clone()),
                ("dice", format!("{die:+}")),
                ("card", card.title()),
            ],
        ));
        r.say(m(
            "ecw.chaunce.die-said",
            &[("unit", name), ("dice", format!("{die:+}"))],
        ));
        finish(r, true)
    })
}

/// One of the candidates the table listed, drawn at random (decision 5), and what befalls it;
/// `chronicled`: it lasts the day, and the board's chronicle keeps it.
fn random_candidate(
    r: Res,
    d: Drawn,
    chronicled: bool,
    what: impl Fn(&State, &str) -> String + 'static,
) -> P {
    let card = d.card;
    let finish = finisher(card);
    if d.cands.is_empty() {
        return finish(r, false);
    }
    pick_one(r, d.cands, &card.title(), move |mut r, x| {
        let what = what(&r.st, &x);
        if chronicled {
            r.st.chronicle.push(m(
                "ecw.chaunce.card-note",
                &[("card", card.title()), ("what", what.clone())],
            ));
        }
        r.say(what);
        finish(r, true)
    })
}

/// Exceeding Nervose.
fn exceeding_nervose(r: Res, d: Drawn) -> P {
    random_candidate(r, d, false, |st, x| {
        m("ecw.chaunce.nervose", &[("unit", name_of(st, x))])
    })
}

/// Who Drew This Mappe?
fn who_drew_this_mappe(r: Res, d: Drawn) -> P {
    random_candidate(r, d, true, |st, x| {
        m("ecw.chaunce.marsh", &[("unit", name_of(st, x))])
    })
}

/// Old Davey Findes a Crossing.
fn old_davey(r: Res, d: Drawn) -> P {
    random_candidate(r, d, true, |_, x| {
        m("ecw.chaunce.fordable", &[("river", x.into())])
    })
}

/// Only 2 Inches Depe on the Ducks.
fn two_inches_depe(r: Res, d: Drawn) -> P {
    random_candidate(r, d, true, |_, x| {
        m("ecw.chaunce.unfordable", &[("river", x.into())])
    })
}

/// What Was In That Barn?
fn what_was_in_that_barn(r: Res, d: Drawn) -> P {
    random_candidate(r, d, true, |_, x| {
        m("ecw.chaunce.burns", &[("hex", x.into())])
    })
}

pub(super) fn devils_neighbours(
    r: Res,
    _gun: String,
    units: Vec<String>,
    finish: impl Fn(Res, bool) -> P + Clone + 'static,
) -> P {
    let st = r.st.clone();
    let victims: Vec<UnitState> = units
        .iter()
        .filter_map(|u| st.unit(u))
        .filter(|u| u.gone.is_none() && !u.spare)
        .cloned()
        .collect();
    fn next(r: Res, mut left: Vec<UnitState>, finish: std::rc::Rc<dyn Fn(Res, bool) -> P>) -> P {
        let Some(u) = left.pop() else {
            return finish(r, true);
        };
        let label = m(
            "ecw.die.card-unit",
            &[("card", ct("devils-match")), ("unit", u.name.clone())],
        );
        Plan::die(Die::d6(label.clone()), move |f| {
            let mut r = r.clone();
            let s = tables::symbol(f);
            let result = if s == u.class.hit_by() {
                lose_blocks(&mut r, &u.id, 1, &ct("devils-match"));
                m("ecw.chaunce.loses-block", &[("unit", u.name.clone())])
            } else if s == Symbol::Flag {
                match r.st.leader_of(&u.id).map(|l| l.id.clone()) {
                    Some(l) => {
                        lose_leader(&mut r, &l, &ct("devils-match"));
                        m("ecw.chaunce.leader-with-lost", &[("unit", u.name.clone())])
                    }
                    None => m("ecw.chaunce.flag-no-leader", &[("unit", u.name.clone())]),
                }
            } else {
                m("ecw.chaunce.unharmed", &[("unit", u.name.clone())])
            };
            r.steps.push(Step {
                title: label.clone(),
                dice: vec![tercio_core::RolledDie {
                    label: m(
                        "ecw.die.one",
                        &[("label", ct("devils-match")), ("symbol", s.term())],
                    ),
                    sides: 6,
                    face: f,
                }],
                modifiers: Vec::new(),
                totals: Vec::new(),
                result: result.clone(),
            });
            r.say(result);
            next(r, left.clone(), finish.clone())
        })
    }
    next(r, victims, std::rc::Rc::new(finish))
}
