//! The round (§7.14): the duel, the dice and what follows.

use super::*;

/// The Doppelsöldner duel before the first round between pike blocks (D33), then the round.
pub(super) fn duel_then_round(r: Res, rd: Round) -> P {
    let Some(c) = r.st.combats.iter().find(|c| c.id == rd.combat).cloned() else {
        return Plan::Done(r);
    };
    let (Some(x), Some(y)) = (
        r.st.unit(&c.units[0]).cloned(),
        r.st.unit(&c.units[1]).cloned(),
    ) else {
        return Plan::Done(r);
    };
    let pikes = x.troop == Troop::Picchieri && y.troop == Troop::Picchieri;
    let has = [x.special.is_some(), y.special.is_some()];
    if c.rounds > 0 || !pikes || !(has[0] || has[1]) {
        return round(r, rd, [false, false]);
    }
    if has[0] != has[1] {
        let mut r = r;
        let loser = if has[0] { &y } else { &x };
        r.step(
            k("callan.step.duel"),
            m("callan.duel.without", &[("unit", loser.name.clone())]),
        );
        return round(r, rd, [!has[0], !has[1]]);
    }
    let label = k("callan.die.duel");
    throw(2, 6, &label, Depends::Difference).and_then(move |f| {
        let mut r = r.clone();
        let lost = [f[0] < f[1], f[1] < f[0]];
        let text = if f[0] == f[1] {
            k("callan.duel.tie")
        } else {
            let l = if lost[0] { &x } else { &y };
            m("callan.duel.loses", &[("unit", l.name.clone())])
        };
        r.steps.push(Step {
            title: k("callan.step.duel"),
            dice: vec![
                tercio_core::RolledDie {
                    label: x.name.clone(),
                    sides: 6,
                    face: f[0],
                },
                tercio_core::RolledDie {
                    label: y.name.clone(),
                    sides: 6,
                    face: f[1],
                },
            ],
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: text,
        });
        r.facet(
            k("callan.facet.duel"),
            if f[0] == f[1] {
                k("callan.duel.tie-short")
            } else if lost[1] {
                x.name.clone()
            } else {
                y.name.clone()
            },
        );
        round(r, rd.clone(), lost)
    })
}

/// One combat round (§7.14 steps 3–5).
pub(super) fn round(r: Res, rd: Round, duel_lost: [bool; 2]) -> P {
    // Everything before the dice (a duel, a raw unit's test) is in the key, so equal pools after
    // different beginnings are never confused.
    let base = Rc::new(state_digest(&round_site(&rd, duel_lost), &r));
    let Some(c) = r.st.combats.iter().find(|c| c.id == rd.combat).cloned() else {
        return Plan::Done(r);
    };
    let (Some(x), Some(y)) = (
        r.st.unit(&c.units[0]).cloned(),
        r.st.unit(&c.units[1]).cloned(),
    ) else {
        return Plan::Done(r);
    };
    let n = c.rounds + 1;
    let mk = |u: &UnitState, i: usize| SideIn {
        troop: u.troop,
        quality: u.quality,
        german: u.nationality.as_deref() == Some("tedeschi"),
        front: rd.counts.front[i],
        rear: rd.counts.rear[i],
        tercio_shot_front: rd.counts.shot[i],
        emerge: rd.counts.emerge[i],
        halberd: u.halberd,
        disordered: u.disordered,
        flanked: i == 1 && c.flanked,
        riccio: u.riccio,
        role: c.roles[i],
        charge_bonus: i == 0 && rd.bonus && n == 1,
        // After two charges the lances are broken: every round but the first of the charge
        // that was the second (D29).
        spent: u.troop.is_heavy_horse()
            && (u.charges > 2 || (u.charges == 2 && !(n == 1 && rd.charging[i]))),
        duel_lost: duel_lost[i],
        round: n,
    };
    let sa = mk(&x, 0);
    let sb = mk(&y, 1);
    let (na, ha, ma) = side_dice(&sa, &sb, &x.name);
    let (nb, hb, mb) = side_dice(&sb, &sa, &y.name);
    let cmd = [
        r.st.commander_of(&x.id).is_some(),
        r.st.commander_of(&y.id).is_some(),
    ];
    let support = rd
        .counts
        .support
        .clone()
        .and_then(|(sid, front)| r.st.unit(&sid).map(|s| (s.clone(), front)));
    let pool_a = pool_led(na, ha, &x.name, cmd[0]);
    let title = m(
        "callan.step.round",
        &[
            ("n", n.to_string()),
            ("a", x.name.clone()),
            ("b", y.name.clone()),
        ],
    );
    let ctx = Rc::new((x, y, c, title, ma, mb, ha, hb, support, rd));
    // Shared, not copied, by the thousands of classes of a big pool; copied once per outcome.
    let r = Rc::new(r);
    pool_a.and_then(move |pa| {
        let ctx = ctx.clone();
        let r = r.clone();
        let key = format!("{base}|b|{}", pa.hits);
        let base = base.clone();
        let (ref yb, nb, hb, cmdb) = (ctx.1.clone(), nb, hb, cmd[1]);
        let yname = yb.name.clone();
        Plan::memo(key, move || {
            let ctx = ctx.clone();
            let r = r.clone();
            let pa = pa.clone();
            let sup = ctx.8.clone();
            let base = base.clone();
            pool_led(nb, hb, &yname, cmdb).and_then(move |pb| {
                let ctx = ctx.clone();
                let r = r.clone();
                let pa = pa.clone();
                let base = base.clone();
                let sup_pool = match &sup {
                    Some((s, front)) => {
                        let (per, _) = (s.troop.melee_half_dice(false), 0);
                        resolve::pool(per * front / 2, HitOn::FiveSix, &s.name)
                    }
                    None => Plan::Done(Pool::default()),
                };
                sup_pool.and_then(move |ps| {
                    let key = format!("{base}|after|{}|{}|{}", pa.hits, pb.hits, ps.hits);
                    let ctx = ctx.clone();
                    let r = r.clone();
                    let pa = pa.clone();
                    let pb = pb.clone();
                    Plan::memo(key.clone(), move || {
                        after_round((*r).clone(), &key, &ctx, &pa, &pb, &ps)
                    })
                })
            })
        })
    })
}

pub(super) type Ctx = (
    UnitState,
    UnitState,
    Combat,
    String,
    Vec<Modifier>,
    Vec<Modifier>,
    HitOn,
    HitOn,
    Option<(UnitState, u32)>,
    Round,
);

/// What a round's continuation depends on besides the state: its counts, roles and the duel.
pub(super) fn round_site(rd: &Round, duel_lost: [bool; 2]) -> String {
    format!("round|{rd:?}|{duel_lost:?}")
}

pub(super) fn after_round(mut r: Res, site: &str, ctx: &Ctx, pa: &Pool, pb: &Pool, ps: &Pool) -> P {
    let (x, y, c, title, ma, mb, ha, hb, sup, _rd) = ctx;
    let n = c.rounds + 1;
    // The side a supporting squadron fights for (D36).
    let si = sup.as_ref().map(|(s, _)| usize::from(s.side != x.side));
    let sup_hits = |i: usize| if si == Some(i) { ps.hits } else { 0 };
    // A veteran volley's hits count for the defenders when the enemy crosses (D24).
    let inflicted_a = pa.hits + sup_hits(0);
    let inflicted_b = pb.hits + sup_hits(1) + x.volley_hits;
    let mut dice = pa.dice();
    dice.extend(pb.dice());
    dice.extend(ps.dice());
    let mut mods = ma.clone();
    mods.extend(mb.iter().cloned());
    let win = resolve::winner(inflicted_a, inflicted_b);
    // Hits suffered by the supported squadron and its supporter are shared, the odd one to the
    // squadron engaged first (D36). The volley's hits were applied when it was fired: only the
    // round's dice hurt now.
    let mut hits_x = pb.hits + sup_hits(1);
    let mut hits_y = inflicted_a;
    let mut hits_sup = 0;
    match si {
        Some(0) => {
            hits_sup = hits_x / 2;
            hits_x = hits_x.div_ceil(2);
        }
        Some(_) => {
            hits_sup = hits_y / 2;
            hits_y = hits_y.div_ceil(2);
        }
        None => {}
    }
    let who = match win {
        Some(true) => m("callan.round.wins", &[("unit", x.name.clone())]),
        Some(false) => m("callan.round.wins", &[("unit", y.name.clone())]),
        None => k("callan.round.draw"),
    };
    r.steps.push(Step {
        title: title.clone(),
        dice,
        modifiers: mods,
        totals: vec![
            (x.name.clone(), inflicted_a as i32),
            (y.name.clone(), inflicted_b as i32),
        ],
        result: m(
            "callan.round.result",
            &[
                ("a", x.name.clone()),
                ("ha", ha.name()),
                ("hits_a", inflicted_a.to_string()),
                ("b", y.name.clone()),
                ("hb", hb.name()),
                ("hits_b", inflicted_b.to_string()),
                ("who", who.clone()),
            ],
        ),
    });
    r.facet(
        m("callan.facet.hits-of", &[("unit", x.name.clone())]),
        inflicted_a.to_string(),
    );
    r.facet(
        m("callan.facet.hits-of", &[("unit", y.name.clone())]),
        inflicted_b.to_string(),
    );
    r.facet(
        k("callan.facet.winner"),
        match win {
            Some(true) => x.name.clone(),
            Some(false) => y.name.clone(),
            None => k("callan.round.draw-short"),
        },
    );
    for u in [&x.id, &y.id] {
        if let Some(me) = r.st.unit_mut(u) {
            me.volley_hits = 0;
        }
    }
    mark_fought(&mut r, &x.id, &y.id);
    let bases_before = [x.bases, y.bases];
    let lost_x = add_hits(&mut r, &x.id, hits_x);
    let lost_y = add_hits(&mut r, &y.id, hits_y);
    if let Some((s, _)) = sup {
        let l = add_hits(&mut r, &s.id, hits_sup);
        let _ = l;
    }
    r.facet(
        m("callan.facet.lost-of", &[("unit", x.name.clone())]),
        lost_x.to_string(),
    );
    r.facet(
        m("callan.facet.lost-of", &[("unit", y.name.clone())]),
        lost_y.to_string(),
    );
    if let Some(cc) = r.st.combats.iter_mut().find(|z| z.id == c.id) {
        cc.rounds = n;
        cc.bases = Some([
            _rd.counts.front[0],
            _rd.counts.rear[0],
            _rd.counts.front[1],
            _rd.counts.rear[1],
        ]);
        cc.turn = r.st.turn;
        cc.due = false;
        cc.roles = match win {
            None => [Role::Defender, Role::Defender],
            Some(true) => [Role::Attacker, Role::Defender],
            Some(false) => [Role::Defender, Role::Attacker],
        };
        // A flanked unit that wins or draws turns to face the enemy for the next round (D34).
        if win != Some(true) {
            cc.flanked = false;
        }
    }
    r.say(m(
        "callan.said.round",
        &[
            ("who", who),
            ("a", x.name.clone()),
            ("lost_a", lost_x.to_string()),
            ("b", y.name.clone()),
            ("lost_b", lost_y.to_string()),
        ],
    ));
    let ids = [x.id.clone(), y.id.clone()];
    let losts = [lost_x, lost_y];
    let hits_taken = [hits_x, hits_y];
    let mala = c.mala_guerra;
    let cid = c.id;
    // Consequences (§7.13, D39, D40): who withdraws, heavy losses, the loser's test, pursuit.
    let cav_vs_foot = [
        x.troop.is_cavalry() && y.troop.is_foot(),
        y.troop.is_cavalry() && x.troop.is_foot(),
    ];
    let loser = win.map(usize::from);
    let mut withdrew = [false, false];
    if !mala {
        for (i, id) in ids.iter().enumerate() {
            let lost_or_drew = loser.is_none_or(|l| l == i);
            // The facet is the rule's outcome (§11.3: draw + lose); the move, for a unit left.
            withdrew[i] = cav_vs_foot[i] && lost_or_drew;
            if withdrew[i] {
                r.st.combats.retain(|z| z.id != cid);
            }
            if withdrew[i] && r.st.unit(id).is_some_and(|u| u.status == Status::Ok) {
                let u = r.st.unit(id).expect("unit");
                let (bw, _) = u.troop.move_bw();
                let msg = m(
                    "callan.round.withdraws",
                    &[
                        ("unit", u.name.clone()),
                        ("bw", bw.to_string()),
                        ("cm", r.st.cm(bw).to_string()),
                    ],
                );
                r.step(k("callan.step.consequences"), msg.clone());
                r.say(msg);
            }
        }
    }
    r.facet(
        m("callan.facet.withdraws", &[("unit", x.name.clone())]),
        yes_no(withdrew[0]),
    );
    // Heavy losses: the winner holds, the loser flees, a draw retires (§8.1).
    if !mala {
        // A supporting squadron shares its friend's fate (D36).
        let supporter = sup.as_ref().zip(si).map(|((s, _), i)| (i, s.id.clone()));
        for (i, id) in ids
            .iter()
            .enumerate()
            .chain(supporter.iter().map(|(i, id)| (*i, id)))
        {
            let after = match loser {
                Some(l) if l == i => After::Lost,
                Some(_) => After::Won,
                None => After::Retire,
            };
            heavy_losses(&mut r, id, after);
        }
    }
    let enemy_bases = [
        r.st.unit(&ids[1]).map_or(0, |u| u.bases),
        r.st.unit(&ids[0]).map_or(0, |u| u.bases),
    ];
    let half_rule = r.st.cfg.half_hits_panic;
    let must_test = loser.filter(|&l| {
        !mala
            && r.st.unit(&ids[l]).is_some_and(|u| u.status == Status::Ok)
            && (losts[l] > 0 || (half_rule && 2 * hits_taken[l] >= bases_before[l]))
    });
    let winner_is_cav =
        loser.is_some_and(|l| r.st.unit(&ids[1 - l]).is_some_and(|u| u.troop.is_cavalry()));
    let loser_is_cav =
        loser.is_some_and(|l| r.st.unit(&ids[l]).is_some_and(|u| u.troop.is_cavalry()));
    let ids2 = ids.clone();
    let losts2 = losts;
    let site3 = site.to_string();
    let finish: Rc<dyn Fn(Res, bool) -> P> = Rc::new(move |r, _| {
        // Flight of the loser (by panic or exhaustion) lets cavalry pursue (D51).
        let fled = loser.is_some_and(|l| {
            r.st.unit(&ids2[l])
                .is_some_and(|u| u.status == Status::Fleeing)
        });
        let ids3 = ids2.clone();
        let site3 = site3.clone();
        // The loser's fate, once everything the round led to is settled (§11.3).
        let ids5 = ids2.clone();
        let fate: K = Rc::new(move |mut r: Res| {
            let value = match loser {
                None => "none",
                Some(l) => match r.st.unit(&ids5[l]) {
                    Some(u) if u.status == Status::Fleeing => "flees",
                    Some(u) if u.status == Status::Lost && u.bases == 0 => "destroyed",
                    // Pike never flee: they retire and are removed (D45).
                    Some(u) if u.status == Status::Lost => "removed",
                    _ => "stays",
                },
            };
            r.facet(k("callan.facet.loser"), k(&format!("callan.loser.{value}")));
            Plan::Done(r)
        });
        let wounds: K = Rc::new(move |r: Res| {
            let ids4 = ids3.clone();
            let site1 = format!("{site3}|w1");
            let fate = fate.clone();
            wound_check(
                r,
                &format!("{site3}|w0"),
                &ids3[0],
                losts2[0],
                Rc::new(move |r| wound_check(r, &site1, &ids4[1], losts2[1], fate.clone())),
            )
        });
        if let (Some(l), true, true, true) = (loser, fled, winner_is_cav, loser_is_cav) {
            return pursue(r, &ids2[1 - l], wounds);
        }
        wounds(r)
    });
    match must_test {
        Some(l) => panic_test(
            r,
            site,
            &ids[l],
            Trigger::LostCombat,
            Some(enemy_bases[l]),
            true,
            finish,
        ),
        None => finish(r, false),
    }
}

/// Pursuit by cavalry that beat fleeing cavalry (§8.4, D51–D53).
pub(super) fn pursue(r: Res, uid: &str, then: K) -> P {
    let Some(u) = r.st.unit(uid).cloned() else {
        return then(r);
    };
    if u.status != Status::Ok {
        return then(r);
    }
    let french = u.troop == Troop::Gendarmi && u.nationality.as_deref() == Some("francesi");
    if u.troop == Troop::CavalleriaLeggera || french {
        let mut r = r;
        if let Some(me) = r.st.unit_mut(uid) {
            me.status = Status::Pursuing;
            me.pursuit_turns = 0;
        }
        r.st.combats.retain(|c| !c.units.iter().any(|x| x == uid));
        let msg = m("callan.pursuit.always", &[("unit", u.name.clone())]);
        r.step(k("callan.step.pursuit"), msg.clone());
        r.say(msg);
        return then(r);
    }
    let uid = uid.to_string();
    let commander = r.st.commander_of(&uid).is_some();
    Plan::die(
        Die::d6(m("callan.die.pursuit", &[("unit", u.name.clone())])),
        move |f| {
            let r = r.clone();
            if f <= 4 && commander {
                // A commander with the unit has the die re-rolled, to keep it in the battle
                // (003, Inseguimento, "Un Comandante con l'unità può ripetere il tiro"; D51).
                let mut r = r;
                r.step(
                    k("callan.step.pursuit"),
                    m(
                        "callan.pursuit.commander-reroll",
                        &[("unit", u.name.clone()), ("face", f.to_string())],
                    ),
                );
                let (u, uid, then) = (u.clone(), uid.clone(), then.clone());
                return Plan::die(
                    Die::d6(m(
                        "callan.die.pursuit-commander",
                        &[("unit", u.name.clone())],
                    )),
                    move |g| pursuit_settles(r.clone(), &uid, &u, g, then.clone()),
                );
            }
            pursuit_settles(r, &uid, &u, f, then.clone())
        },
    )
}

/// The pursuit die's result: 1–4 pursue that many turns, 5–6 stop (D51).
pub(super) fn pursuit_settles(mut r: Res, uid: &str, u: &UnitState, f: u8, then: K) -> P {
    let turns = if f <= 4 { u32::from(f) } else { 0 };
    r.facet(
        m("callan.facet.pursuit", &[("unit", u.name.clone())]),
        turns.to_string(),
    );
    if turns > 0 {
        if let Some(me) = r.st.unit_mut(uid) {
            me.status = Status::Pursuing;
            me.pursuit_turns = turns;
        }
        r.st.combats.retain(|c| !c.units.iter().any(|x| x == uid));
    }
    let msg = m(
        if turns > 0 {
            "callan.pursuit.turns"
        } else {
            "callan.pursuit.stops"
        },
        &[("unit", u.name.clone()), ("n", turns.to_string())],
    );
    r.step(k("callan.step.pursuit"), msg.clone());
    r.say(msg);
    then(r)
}
