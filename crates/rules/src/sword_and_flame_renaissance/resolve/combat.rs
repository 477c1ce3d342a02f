//! A whole close combat (design 6.1-6.5): the queues of fighters, bout after bout, breaking
//! off, and the loser's test.

use super::*;

// ---- A whole close combat ----

/// One fighter in a queue and the figures it stands for (1 in the figure version; the company's
/// men; a field officer 1).
#[derive(Debug, Clone)]
pub(super) struct Queued {
    name: String,
    fighter: Fighter,
    men: u8,
}

pub(super) fn queue(
    side: &CombatSide,
    version: Version,
    field: &str,
) -> Result<(&'static Troop, Vec<Queued>), Rejection> {
    let base = Fighter {
        troop: side.troop.clone(),
        order: side.order,
        officer: false,
        shaken: side.shaken,
        lance: side.lance,
        missing: 0,
        climbing: side.climbing,
        across_wall: side.across_wall,
        attacked_in_rear: side.attacked_in_rear,
        square: side.square,
        broken_ground: side.broken_ground,
    };
    let (t, base) = checked(&base, field)?;
    if side.figures == 0 {
        return Err(reject(
            "no-fighters",
            &format!("{field}.figures"),
            k("refuse.no-fighters"),
        ));
    }
    if side.leaders > side.figures {
        return Err(reject(
            "bad-leaders",
            &format!("{field}.leaders"),
            k("refuse.bad-leaders"),
        ));
    }
    let mut q = Vec::new();
    match version {
        Version::Figure => {
            for i in 0..side.figures {
                let officer = i >= side.figures - side.leaders;
                q.push(Queued {
                    name: if officer {
                        k("fighter.leader")
                    } else {
                        msg("fighter.figure", &[("n", (i + 1).to_string())])
                    },
                    fighter: Fighter {
                        officer,
                        ..base.clone()
                    },
                    men: 1,
                });
            }
        }
        Version::Company => {
            // Full companies and one short company with the rest (decision 24); the short one
            // fights first, the leaders' companies last.
            let c = t.company.max(1);
            let mut sizes: Vec<u8> = Vec::new();
            if !side.figures.is_multiple_of(c) {
                sizes.push(side.figures % c);
            }
            sizes.extend(std::iter::repeat_n(c, usize::from(side.figures / c)));
            let n = sizes.len();
            let with_officer = usize::from(side.leaders).min(n);
            for (i, men) in sizes.into_iter().enumerate() {
                let officer = i >= n - with_officer;
                q.push(Queued {
                    name: msg(
                        if officer {
                            "fighter.company-leader"
                        } else {
                            "fighter.company"
                        },
                        &[("n", (i + 1).to_string())],
                    ),
                    fighter: Fighter {
                        officer,
                        missing: c - men,
                        ..base.clone()
                    },
                    men,
                });
            }
        }
    }
    if side.field_officer {
        // "fights last of all, by himself with the force of an entire company, +1 because he is
        // an officer" (001, CLOSE COMBAT - Modifed Version); in the figure version, a figure +1.
        q.push(Queued {
            name: k("fighter.field-officer"),
            fighter: Fighter {
                officer: true,
                ..base.clone()
            },
            men: 1,
        });
    }
    Ok((t, q))
}

/// The whole close combat: bouts until one side's queue is empty, or until the side breaking off
/// may do so (001, BREAKING OFF; design 6.5), with the exact odds of who wins and what each side
/// loses, from the same bouts that are rolled. Each state (who fights next, losses so far) is
/// worked out once, and each bout's factors once per pair of fighters.
pub(super) fn close_combat(c: &CombatRequest, th: &Thresholds) -> Result<Plan<Outcome>, Rejection> {
    let (ta, qa) = queue(&c.a, c.version, "a")?;
    let (tb, qb) = queue(&c.b, c.version, "b")?;
    let breaking = match &c.break_off {
        None => None,
        Some(b) => Some(breaking(b, c, (ta, tb), th)?),
    };
    let fight = Rc::new(Fight {
        ta,
        tb,
        qa,
        qb,
        version: c.version,
        breaking,
        bouts: RefCell::new(HashMap::new()),
        field_officers: (c.a.field_officer, c.b.field_officer),
    });
    Ok(fight.from((0, 0), (0, 0), None))
}

/// A side that will break off as soon as it may, and its Stand and Fight test.
pub(super) struct Breaking {
    side: BreakSide,
    /// Bouts fought in this combat before it breaks off.
    after: usize,
    test: Plan<Outcome>,
}

/// The break-off of a close combat: "Any unit may break off a close combat after 6 die rolls (3
/// Die rolls if using Modified Close combat system). The player tests "Stand and fight" morale for
/// the unit breaking off" (001, BREAKING OFF), counting the bouts the unit fought in this combat
/// (decision 28). The test takes the unit's situation as its side gives it: no leaders among its
/// figures and no field officer, spent, shaken, attacked in the rear (001, MORALE NOTES), and
/// "-2 Infantry attempting to break off from melee with cavalry" (001, BREAKING OFF).
pub(super) fn breaking(
    b: &BreakOff,
    c: &CombatRequest,
    (ta, tb): (&'static Troop, &'static Troop),
    th: &Thresholds,
) -> Result<Breaking, Rejection> {
    let least = match c.version {
        Version::Figure => tables::BREAK_OFF_BOUTS_FIGURE,
        Version::Company => tables::BREAK_OFF_BOUTS_COMPANY,
    };
    let after = b.after.map_or(least, u32::from);
    if after < least {
        return Err(reject(
            "too-soon-to-break-off",
            "break_off.after",
            msg(
                match c.version {
                    Version::Figure => "refuse.too-soon-figure",
                    Version::Company => "refuse.too-soon-company",
                },
                &[("least", least.to_string())],
            ),
        ));
    }
    let (me, mine, enemy) = match b.side {
        BreakSide::A => (&c.a, ta, tb),
        BreakSide::B => (&c.b, tb, ta),
    };
    let req = MoraleRequest {
        test: Test::StandAndFight,
        leaderless: me.leaders == 0,
        spent: me.spent,
        field_officer: me.field_officer,
        gendarmes_vs_lighter_cavalry: false,
        swiss_vs_pikes: false,
        attacked_in_rear: me.attacked_in_rear,
        shaken: me.shaken,
        infantry_breaking_off_from_cavalry: mine.kind == Kind::Foot && enemy.kind.mounted(),
        artillerists: false,
    };
    Ok(Breaking {
        side: b.side,
        after: usize::try_from(after).unwrap_or(usize::MAX),
        test: morale(&req, th),
    })
}

/// The bouts fought so far, newest first, shared between the branches that follow them (cloning
/// is a pointer copy however long the combat). A bout keeps its faces; its explanation is written
/// only when the combat's end is.
pub(super) type Trail = Option<Rc<Bout>>;

pub(super) struct Bout {
    desc: Rc<BoutDesc>,
    faces: [u8; 2],
    before: Trail,
}

pub(super) fn trail_steps(t: &Trail) -> Vec<Step> {
    let mut out = Vec::new();
    let mut at = t;
    while let Some(node) = at {
        out.push(node.desc.step(&node.faces));
        at = &node.before;
    }
    out.reverse();
    out
}

pub(super) struct Fight {
    ta: &'static Troop,
    tb: &'static Troop,
    qa: Vec<Queued>,
    qb: Vec<Queued>,
    version: Version,
    breaking: Option<Breaking>,
    /// The bout of each pair of fighters (by their places in the queues), built when first met.
    bouts: RefCell<HashMap<(usize, usize), Rc<BoutDesc>>>,
    /// Whether A and B have a field officer attached, fighting last of all.
    field_officers: (bool, bool),
}

impl Fight {
    /// A memo key of this combat: its states are its own, whatever else the plan holds.
    fn key(self: &Rc<Self>, state: std::fmt::Arguments) -> String {
        format!("combat {:p} {state}", Rc::as_ptr(self))
    }

    fn bout(&self, ia: usize, ib: usize) -> Rc<BoutDesc> {
        self.bouts
            .borrow_mut()
            .entry((ia, ib))
            .or_insert_with(|| {
                let (fa, fb) = (&self.qa[ia], &self.qb[ib]);
                Rc::new(BoutDesc::new(
                    (self.ta, &fa.fighter),
                    (self.tb, &fb.fighter),
                    self.version,
                    (&fa.name, &fb.name),
                    (fa.men, fb.men),
                ))
            })
            .clone()
    }

    /// The combat from the state where A's fighter `ia` meets B's fighter `ib`, with `la` and `lb`
    /// figures lost so far. Every decided bout sends one fighter out of its queue, so `ia + ib`
    /// bouts have been fought.
    fn from(
        self: &Rc<Self>,
        (ia, ib): (usize, usize),
        (la, lb): (u32, u32),
        trail: Trail,
    ) -> Plan<Outcome> {
        let me = self.clone();
        if ia >= self.qa.len() || ib >= self.qb.len() {
            let a_wins = ib >= self.qb.len();
            // A loser's field officer fought its last bout: a loss there is his alone, not a
            // figure of the unit (001, CLOSE COMBAT - Modifed Version; decision 49).
            let last_lost = trail.as_ref().map_or(0, |b| b.desc.decide(&b.faces).1);
            let officer_down = last_lost > 0
                && if a_wins {
                    self.field_officers.1
                } else {
                    self.field_officers.0
                };
            let (la, lb) = match (officer_down, a_wins) {
                (true, true) => (la, lb - 1),
                (true, false) => (la - 1, lb),
                _ => (la, lb),
            };
            // The end states too: whatever follows a combat (the loser's test) is then worked
            // out once per result.
            let key = self.key(format_args!(
                "end:{}:{la}:{lb}:{officer_down}",
                if a_wins { "A" } else { "B" }
            ));
            return Plan::memo(key, move || {
                let mut o = me.ended(a_wins, (la, lb), &trail);
                let loser = if a_wins { "B" } else { "A" };
                for (side, has) in [("A", me.field_officers.0), ("B", me.field_officers.1)] {
                    if has {
                        let fate = k(if officer_down && side == loser {
                            "value.down"
                        } else {
                            "value.survives"
                        });
                        o.facets.push((side_facet("field-officer", side), fate));
                    }
                }
                if officer_down {
                    o.resolution.summary = msg(
                        "result.officer-falls",
                        &[
                            ("summary", o.resolution.summary.clone()),
                            ("side", loser.to_string()),
                        ],
                    );
                }
                Plan::Done(o)
            });
        }
        if self.breaking.as_ref().is_some_and(|b| ia + ib >= b.after) {
            // What follows depends only on the losses: the side breaking off and its test are
            // the combat's own.
            let key = self.key(format_args!("broke off:{la}:{lb}"));
            return Plan::memo(key, move || me.broke_off((la, lb), &trail));
        }
        let key = self.key(format_args!("{ia}:{ib}:{la}:{lb}"));
        Plan::memo(key, move || {
            let desc = me.bout(ia, ib);
            let (next, trail, d) = (me.clone(), trail.clone(), desc.clone());
            bout_plan(desc, move |f| {
                let (a_wins, lost) = d.decide(f);
                let trail = Some(Rc::new(Bout {
                    desc: d.clone(),
                    faces: [f[0], f[1]],
                    before: trail.clone(),
                }));
                let lost = u32::from(lost);
                if a_wins {
                    next.from((ia, ib + 1), (la, lb + lost), trail)
                } else {
                    next.from((ia + 1, ib), (la + lost, lb), trail)
                }
            })
        })
    }

    fn ended(&self, a_wins: bool, (la, lb): (u32, u32), trail: &Trail) -> Outcome {
        let steps = trail_steps(trail);
        let (w, l) = if a_wins { ("A", "B") } else { ("B", "A") };
        let summary = msg(
            "result.combat-won",
            &[
                ("winner", w.to_string()),
                ("loser", l.to_string()),
                ("bouts", steps.len().to_string()),
                ("a", la.to_string()),
                ("b", lb.to_string()),
            ],
        );
        outcome(
            "close-combat",
            summary,
            steps,
            vec![
                (facet("winner"), w.into()),
                (side_facet("figures-lost", "A"), la.to_string()),
                (side_facet("figures-lost", "B"), lb.to_string()),
            ],
        )
    }

    /// The combat still undecided when the side breaking off may do so: it ends, and that side
    /// tests Stand and Fight: "If the result is a "Pass" then the unit retires a normal move and
    /// is shaken. If the result is a fail, then the unit routs a normal move toward the rear"
    /// (001, BREAKING OFF); the rout's D4 casualties follow as for any rout (decision 28).
    fn broke_off(&self, (la, lb): (u32, u32), trail: &Trail) -> Plan<Outcome> {
        let Some(b) = &self.breaking else {
            return Plan::Done(self.ended(true, (la, lb), trail));
        };
        let mut steps = trail_steps(trail);
        let who = match b.side {
            BreakSide::A => "A",
            BreakSide::B => "B",
        };
        let n = steps.len();
        steps.push(Step {
            title: msg(
                "title.break-off",
                &[("side", who.to_string()), ("bouts", n.to_string())],
            ),
            dice: Vec::new(),
            modifiers: Vec::new(),
            totals: vec![(facet("bouts"), i32::try_from(n).unwrap_or(i32::MAX))],
            result: msg("result.break-off-test", &[("side", who.to_string())]),
        });
        b.test.clone().map(move |m| {
            let passed = passed_test(&m);
            let mut steps = steps.clone();
            steps.extend(m.resolution.steps);
            let (value, what) = if passed {
                ("value.retires-shaken", "result.break-off-passes")
            } else {
                ("value.routs", "result.break-off-fails")
            };
            outcome(
                "close-combat",
                msg(
                    "result.broke-off",
                    &[
                        ("side", who.to_string()),
                        ("bouts", n.to_string()),
                        ("a", la.to_string()),
                        ("b", lb.to_string()),
                        ("what", k(what)),
                    ],
                ),
                steps,
                vec![
                    (facet("winner"), k("value.broke-off")),
                    (side_facet("figures-lost", "A"), la.to_string()),
                    (side_facet("figures-lost", "B"), lb.to_string()),
                    (facet("break-off"), k(value)),
                ],
            )
        })
    }
}
