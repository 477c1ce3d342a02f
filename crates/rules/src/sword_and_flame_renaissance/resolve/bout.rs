//! One bout of close combat (design section 6): the fighters' orders and factors, the dice of
//! a single bout.

use super::*;

// ---- Close combat ----

/// An order's name ("closed", "open", "skirmish"), as a message.
pub fn order_name(o: Order) -> String {
    k(match o {
        Order::Closed => "choice.closed",
        Order::Open => "choice.open",
        Order::Skirmish => "choice.skirmish",
    })
}

/// A type's own order, and the orders the text allows it (design 2.1).
pub fn orders(t: &Troop) -> (Order, &'static [Order]) {
    match t.id {
        "pikemen" => (Order::Closed, &[Order::Closed, Order::Open]),
        "arquebusiers"
        | "crossbowmen"
        | "sword-and-buckler"
        | "light-horse-arquebus"
        | "light-horse-crossbow"
        | "light-horse-spear" => (Order::Open, &[Order::Open, Order::Skirmish]),
        "riflemen" => (Order::Skirmish, &[Order::Skirmish]),
        _ => (Order::Open, &[Order::Open]),
    }
}

pub(super) fn troop_at(id: &str, field: &str) -> Result<&'static Troop, Rejection> {
    tables::troop(id).ok_or_else(|| {
        let ids: Vec<&str> = tables::TROOPS.iter().map(|t| t.id).collect();
        reject(
            "unknown-troop-type",
            field,
            msg(
                "refuse.unknown-troop",
                &[("field", field.to_string()), ("ids", ids.join(", "))],
            ),
        )
    })
}

pub(super) fn order_of(given: Option<Order>, t: &Troop, field: &str) -> Result<Order, Rejection> {
    let (own, allowed) = orders(t);
    let o = given.unwrap_or(own);
    if !allowed.contains(&o) {
        let names: Vec<String> = allowed.iter().map(|o| order_name(*o)).collect();
        return Err(reject(
            "order-not-allowed",
            field,
            msg(
                "refuse.order-not-allowed",
                &[
                    ("field", field.to_string()),
                    ("troop", t.term()),
                    ("orders", names.join(" / ")),
                ],
            ),
        ));
    }
    Ok(o)
}

/// A fighter checked against the text: its type, its order (the type's own by default), and the
/// situations it may claim. Returns the troop type and the fighter with its order settled.
pub(super) fn checked(f: &Fighter, field: &str) -> Result<(&'static Troop, Fighter), Rejection> {
    let t = troop_at(&f.troop, &format!("{field}.type"))?;
    if matches!(t.kind, Kind::Gun | Kind::Train) || t.id == "riflemen" {
        return Err(reject(
            "does-not-fight",
            &format!("{field}.type"),
            msg(
                "refuse.type-does-not-fight",
                &[("field", field.to_string())],
            ),
        ));
    }
    let order = order_of(f.order, t, &format!("{field}.order"))?;
    if order == Order::Skirmish {
        return Err(reject(
            "does-not-fight",
            &format!("{field}.order"),
            msg(
                "refuse.skirmish-does-not-fight",
                &[("field", field.to_string())],
            ),
        ));
    }
    if f.lance && !matches!(t.id, "gendarmes" | "light-horse-spear") {
        return Err(reject(
            "no-lance",
            &format!("{field}.lance"),
            msg("refuse.no-lance", &[("field", field.to_string())]),
        ));
    }
    for (on, name) in [(f.square, "square"), (f.broken_ground, "broken_ground")] {
        if on && t.id != "pikemen" {
            return Err(reject(
                "pikes-only",
                &format!("{field}.{name}"),
                msg("refuse.pikes-only", &[("field", format!("{field}.{name}"))]),
            ));
        }
    }
    if f.square && f.attacked_in_rear {
        return Err(reject(
            "square-has-no-rear",
            &format!("{field}.attacked_in_rear"),
            msg("refuse.square-has-no-rear", &[("field", field.to_string())]),
        ));
    }
    let mut f = f.clone();
    f.order = Some(order);
    Ok((t, f))
}

/// Pikes facing this enemy with their pikes: to their front (not attacked in the rear), or in a
/// square, and not in broken ground.
pub(super) fn pikes_facing(f: &Fighter, t: &Troop) -> bool {
    t.id == "pikemen" && (f.square || !f.attacked_in_rear) && !f.broken_ground
}

/// A fighter's factors against its enemy (design 6.2): modifiers, and whether it wins ties. Both
/// fighters have been `checked`.
pub fn factors(
    me: &Fighter,
    t: &Troop,
    enemy: &Fighter,
    et: &Troop,
    version: Version,
) -> (Vec<Modifier>, bool) {
    let ord = |f: &Fighter| f.order.unwrap_or(Order::Open);
    let src = "001, CLOSE COMBAT, Close Combat Factors";
    let mut m = Vec::new();
    let mut wt = false;
    let mut add = |name: String, v: i32, src: &str| m.push(modifier("", name, v, src));
    // Pikes in broken ground or built-up areas fight with the bare die: no type factor, no
    // officer, no win-ties; what befalls them (shaken, rear, men missing) still counts
    // (decision 25).
    if t.id == "pikemen" && me.broken_ground {
        add(k("mod.pikes-broken-ground"), 0, "001, CLOSE COMBAT, 'Pikes in broken terrain or urban areas other than in the streets= die number'; decision 25");
    } else {
        match t.id {
            "gendarmes" => {
                add(k("mod.gendarmes"), 2, src);
                wt = true;
            }
            "great-swordsmen" | "halberdiers" => {
                if et.kind.mounted() {
                    add(
                        k("mod.against-cavalry"),
                        1,
                        "001, CLOSE COMBAT, '(only +1 vs Cavalry)'; decision 21",
                    );
                } else {
                    add(msg("mod.type-win-ties", &[("troop", t.term())]), 2, src);
                }
                wt = true;
            }
            "reiters" if et.id != "gendarmes" => add(k("mod.medium-cavalry"), 1, src),
            id if id.starts_with("light-horse") && et.kind == Kind::Foot => {
                add(k("mod.light-vs-infantry"), 1, src);
                wt = true;
            }
            _ => {}
        }
        if ord(me) == Order::Closed && pikes_facing(me, t) {
            add(k("mod.pikes-front"), 2, src);
            wt = true;
        }
        if me.officer {
            add(
                k(if version == Version::Company {
                    "mod.company-officer"
                } else {
                    "mod.officer"
                }),
                1,
                "001, CLOSE COMBAT; UNIT LEADERS & OFFICERS",
            );
        }
    }
    // "All other units fighting pikes to front -2", whatever the pikes' order (decision 48).
    if pikes_facing(enemy, et) && t.id != "pikemen" {
        add(
            k("mod.fighting-pikes"),
            -2,
            "001, CLOSE COMBAT, 'All other units fighting pikes to front -2'; decision 48",
        );
    }
    if me.lance {
        add(k("mod.lance"), 1, "001, CLOSE COMBAT, 'Cavalry with lance +1 first close combat of the game'; decision 26");
    }
    if ord(me) == Order::Open && ord(enemy) == Order::Closed {
        add(k("mod.open-vs-closed"), -1, "001, CLOSE COMBAT, 'Units in open order are -1 when fighting closed order troops'; decision 47");
    }
    if me.climbing {
        add(k("field.climbing"), -1, src);
    }
    if me.across_wall {
        add(k("field.across-wall"), -1, src);
    }
    if me.shaken {
        add(k("mod.shaken-falling-back"), -1, src);
    }
    if me.attacked_in_rear {
        add(
            k("mod.attacked-in-rear"),
            -1,
            "001, CLOSE COMBAT, 'Attacked in rear -1 ,Enemy must START to rear'; decision 27",
        );
    }
    if version == Version::Company && me.missing > 0 {
        add(
            k("mod.men-missing"),
            -i32::from(me.missing),
            "001, CLOSE COMBAT - Modifed Version, 'For each man missing from company ... -1'",
        );
    }
    (m, wt)
}

/// One bout between two checked fighters, worked out before any die is thrown: their factors,
/// who wins ties, and the explanation's title. A whole close combat builds one per pair of
/// fighters that may meet and shares it between every state where they meet.
pub(super) struct BoutDesc {
    version: Version,
    /// The two totals' factors, and whether each side wins ties.
    sa: i32,
    sb: i32,
    wta: bool,
    wtb: bool,
    /// The men of each company: a company loses at most its men.
    men: (u8, u8),
    dice: Vec<Die>,
    title: String,
    modifiers: Vec<Modifier>,
}

impl BoutDesc {
    pub(super) fn new(
        (ta, fa): (&'static Troop, &Fighter),
        (tb, fb): (&'static Troop, &Fighter),
        version: Version,
        names: (&str, &str),
        men: (u8, u8),
    ) -> Self {
        let (mut ma, wta) = factors(fa, ta, fb, tb, version);
        let (mut mb, wtb) = factors(fb, tb, fa, ta, version);
        for m in &mut ma {
            m.side = format!("A {}", names.0);
        }
        for m in &mut mb {
            m.side = format!("B {}", names.1);
        }
        let (sa, sb): (i32, i32) = (
            ma.iter().map(|m| m.value).sum(),
            mb.iter().map(|m| m.value).sum(),
        );
        let tie = k(match (wta, wtb) {
            (true, false) => "bout.a-wins-ties",
            (false, true) => "bout.b-wins-ties",
            _ => "bout.rethrow",
        });
        let how = k(match version {
            Version::Figure => "bout.how-figure",
            Version::Company => "bout.how-company",
        });
        BoutDesc {
            version,
            sa,
            sb,
            wta,
            wtb,
            men,
            dice: labelled(2, 6, &k("die.close-combat")),
            title: msg(
                "title.bout",
                &[
                    ("a", names.0.to_string()),
                    ("b", names.1.to_string()),
                    ("tie", tie),
                    ("how", how),
                ],
            ),
            modifiers: ma.into_iter().chain(mb).collect(),
        }
    }

    /// Equal totals are thrown again unless exactly one side wins ties (decision 20).
    fn accepts(&self, f: &[u8]) -> bool {
        i32::from(f[0]) + self.sa != i32::from(f[1]) + self.sb || self.wta != self.wtb
    }

    /// An accepted throw: whether A wins, and the figures the loser loses (killed in the figure
    /// version, the company's casualties in the company version).
    pub(super) fn decide(&self, f: &[u8]) -> (bool, u8) {
        let (x, y) = (i32::from(f[0]) + self.sa, i32::from(f[1]) + self.sb);
        let a_wins = x > y || (x == y && self.wta);
        let (w_total, w_face, loser_men) = if a_wins {
            (x, f[0], self.men.1)
        } else {
            (y, f[1], self.men.0)
        };
        let lost = match self.version {
            Version::Figure => u8::from(w_face >= tables::KILL_ON_NATURAL),
            Version::Company => tables::company_losses(w_total).min(loser_men),
        };
        (a_wins, lost)
    }

    /// What the odds of a bout depend on: the winner and the loser's losses (at most 2).
    fn class(&self, f: &[u8]) -> u32 {
        let (a_wins, lost) = self.decide(f);
        u32::from(a_wins) * 4 + u32::from(lost)
    }

    /// The explanation of an accepted throw.
    pub(super) fn step(&self, f: &[u8]) -> Step {
        let (x, y) = (i32::from(f[0]) + self.sa, i32::from(f[1]) + self.sb);
        let (a_wins, lost) = self.decide(f);
        let (w_total, w_face) = if a_wins { (x, f[0]) } else { (y, f[1]) };
        let (winner, loser) = if a_wins { ("A", "B") } else { ("B", "A") };
        let (w, l) = (("winner", winner.to_string()), ("loser", loser.to_string()));
        let result = match self.version {
            Version::Figure if lost > 0 => {
                msg("bout.killed", &[w, l, ("face", w_face.to_string())])
            }
            Version::Figure => msg("bout.falls-back", &[w, l]),
            Version::Company => msg(
                "bout.company",
                &[
                    w,
                    l,
                    ("total", w_total.to_string()),
                    ("lost", lost.to_string()),
                ],
            ),
        };
        Step {
            title: self.title.clone(),
            dice: rolled(&self.dice, f),
            modifiers: self.modifiers.clone(),
            totals: vec![("A".into(), x), ("B".into(), y)],
            result,
        }
    }
}

/// One bout: a D6 each plus factors; equal totals go to the side that wins ties, else are thrown
/// again. `then` gets the accepted faces; what it makes of them must depend on the faces only
/// through [`BoutDesc::decide`] (the exact odds visit one throw per winner and loss).
pub(super) fn bout_plan<T: 'static>(
    desc: Rc<BoutDesc>,
    then: impl Fn(&[u8]) -> Plan<T> + 'static,
) -> Plan<T> {
    let (accept, class) = (desc.clone(), desc.clone());
    Plan::rethrow_classed(
        desc.dice.clone(),
        move |f| accept.accepts(f),
        move |f| class.class(f),
        then,
    )
}

pub(super) fn bout(b: &BoutRequest) -> Result<Plan<Outcome>, Rejection> {
    let (ta, fa) = checked(&b.a, "a")?;
    let (tb, fb) = checked(&b.b, "b")?;
    for (f, t, field) in [(&fa, ta, "a.missing"), (&fb, tb, "b.missing")] {
        let max = t.company.saturating_sub(1);
        if f.missing > max {
            return Err(reject(
                "bad-missing",
                field,
                msg(
                    "refuse.bad-missing",
                    &[
                        ("field", field.to_string()),
                        ("max", max.to_string()),
                        ("company", t.company.to_string()),
                    ],
                ),
            ));
        }
    }
    let version = b.version;
    let men = (ta.company - fa.missing, tb.company - fb.missing);
    let desc = Rc::new(BoutDesc::new(
        (ta, &fa),
        (tb, &fb),
        version,
        (
            &k(&format!("troop.{}", ta.id)),
            &k(&format!("troop.{}", tb.id)),
        ),
        men,
    ));
    Ok(bout_plan(desc.clone(), move |f| {
        let (a_wins, lost) = desc.decide(f);
        let lost_facet = match version {
            Version::Figure => (facet("loser-killed"), yes_no(lost > 0)),
            Version::Company => (facet("figures-lost"), lost.to_string()),
        };
        let step = desc.step(f);
        Plan::Done(outcome(
            "bout",
            step.result.clone(),
            vec![step],
            vec![
                (facet("winner"), if a_wins { "A" } else { "B" }.into()),
                lost_facet,
            ],
        ))
    }))
}
