//! Fire (001, FIRE; design section 4): hits by weapon, range and target class, and the casualty
//! cards that say who falls.

use super::*;

// ---- Fire ----

/// The most dice one fire may throw: two ranks of a 20-figure unit, or a reiter unit's four
/// ranks with both pistols; gun crews as the text gives them (001, FIRE).
pub(super) fn max_firers(w: Weapon) -> u8 {
    match w {
        Weapon::HeavyCannon => 4,
        Weapon::LightCannon => 2,
        Weapon::Rifle => 1,
        _ => 20,
    }
}

pub(super) fn fire(f: &FireRequest) -> Result<Plan<Outcome>, Rejection> {
    if !(1..=4).contains(&f.target_class) {
        return Err(reject(
            "bad-target-class",
            "target_class",
            k("refuse.bad-target-class"),
        ));
    }
    if f.double && f.weapon != Weapon::Pistol {
        return Err(reject(
            "double-fire-pistols-only",
            "double",
            k("refuse.double-pistols-only"),
        ));
    }
    let one_range = matches!(f.weapon, Weapon::Pistol | Weapon::Crossbow);
    if one_range && f.range.is_some() {
        return Err(reject(
            "one-range-only",
            "range",
            msg(
                "refuse.one-range-only",
                &[
                    ("weapon", weapon_name(f.weapon)),
                    (
                        "inches",
                        tables::fire_line(f.weapon, Range::Short).inches.to_string(),
                    ),
                ],
            ),
        ));
    }
    if f.firers == 0 || f.firers > max_firers(f.weapon) {
        return Err(reject(
            "bad-firers",
            "firers",
            msg(
                "refuse.bad-firers",
                &[("max", max_firers(f.weapon).to_string())],
            ),
        ));
    }
    let range = f.range.unwrap_or(Range::Short);
    let line = tables::fire_line(f.weapon, range);
    let printed = i32::from(line.hits[usize::from(f.target_class - 1)]);
    let mut mods = Vec::new();
    if f.shaken {
        mods.push(modifier(
            k("side.each-die"),
            k("mod.firer-shaken"),
            tables::FIRE_SHAKEN,
            tables::FIRE_SOURCE_SHAKEN,
        ));
    }
    if f.light_rain {
        mods.push(modifier(
            k("side.each-die"),
            k("mod.light-rain"),
            tables::FIRE_LIGHT_RAIN,
            tables::FIRE_SOURCE_RAIN,
        ));
    }
    let added: i32 = mods.iter().map(|m| m.value).sum();
    // A modified die at or below the printed number hits; modifiers add to the die (decision 36:
    // no automatic hits).
    let need = (printed - added).clamp(0, 20) as u8;
    let per = tables::dice_per_firer(f.weapon) * if f.double { 2 } else { 1 };
    let n = usize::from(f.firers) * usize::from(per);
    let class = ["I", "II", "III", "IV"][usize::from(f.target_class - 1)];
    let how = k(match (f.weapon, f.double) {
        (Weapon::HeavyCannon | Weapon::LightCannon, _) => "fire.per-gunner",
        (_, true) => "fire.both-pistols",
        _ => "fire.per-figure",
    });
    let inches = ("inches", line.inches.to_string());
    let band = if one_range {
        msg("fire.band-one", &[inches])
    } else if range == Range::Short {
        msg("fire.band-short", &[inches])
    } else {
        msg("fire.band-long", &[inches])
    };
    let title = msg(
        "title.fire",
        &[
            ("weapon", weapon_name(f.weapon)),
            ("band", band),
            ("class", class.to_string()),
            ("how", how),
            ("printed", printed.to_string()),
            (
                "after",
                if added > 0 {
                    msg("fire.after-modifiers", &[("need", need.to_string())])
                } else {
                    String::new()
                },
            ),
        ],
    );
    let cap = f.target_figures;
    let wounded = f.wounded;
    let label = k("die.fire");
    Ok(
        throw(n, 20, &label, Depends::CountAtMost(need)).and_then(move |faces| {
            let hits = faces.iter().filter(|&&x| x <= need).count();
            let step = Step {
                title: title.clone(),
                dice: rolled(&labelled(faces.len(), 20, &label), &faces),
                modifiers: mods.clone(),
                totals: vec![(facet("hits"), hits as i32)],
                result: msg("result.hits", &[("count", hits.to_string())]),
            };
            let cards = cap.map_or(hits, |c| hits.min(usize::from(c)));
            casualty_cards(cards.min(52), hits, step, wounded)
        }),
    )
}

/// A weapon's name, as a message argument (`@sword_and_flame.weapon.<id>`).
pub fn weapon_name(w: Weapon) -> String {
    term(match w {
        Weapon::Arquebus => "weapon.arquebus",
        Weapon::Pistol => "weapon.pistol",
        Weapon::Crossbow => "weapon.crossbow",
        Weapon::HeavyCannon => "weapon.heavy-cannon",
        Weapon::LightCannon => "weapon.light-cannon",
        Weapon::Rifle => "weapon.rifle",
    })
}

/// The 52 cards by number, aces first (1-4 are the aces), for naming a card drawn.
pub fn card_name(n: u8) -> String {
    let ranks = [
        "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2",
    ];
    let suits = ["♠", "♥", "♦", "♣"];
    let i = usize::from(n.clamp(1, 52) - 1);
    format!("{}{}", ranks[i / 4], suits[i % 4])
}

pub(super) fn is_ace(card: u8) -> bool {
    card <= 4
}

/// The casualty cards' step title (`sword_and_flame.<id>`), without and with Wounded and Dead.
pub const CASUALTY_CARDS: &str = "title.casualty-cards";
pub const CASUALTY_CARDS_WOUNDED: &str = "title.casualty-cards-wounded";

/// Whether a card is a heart (the cards by number, aces first, in the suits' order).
pub(super) fn is_heart(card: u8) -> bool {
    (card.clamp(1, 52) - 1) % 4 == 1
}

/// One casualty card per hit from a full, shuffled casualty deck (decision 14): an ace hits an
/// officer or unit leader instead of a figure (001, OFFICERS). With Wounded and Dead, a heart
/// kills and the other suits wound (001, OPTIONAL RULES; design 8.3). Cards are drawn as cards:
/// the odds depend only on whether each is an ace (and, with the option, a heart).
pub(super) fn casualty_cards(
    cards: usize,
    hits: usize,
    fire: Step,
    wounded: bool,
) -> Plan<Outcome> {
    fn draw(
        left: Vec<u8>,
        n: usize,
        drawn: Vec<u8>,
        fire: Step,
        (hits, wounded): (usize, bool),
    ) -> Plan<Outcome> {
        if n == 0 || left.is_empty() {
            let officers = drawn.iter().filter(|&&c| is_ace(c)).count();
            let figures = hits - officers;
            // Among the figures hit, those whose card is not a heart are wounded.
            let hurt = if wounded {
                drawn
                    .iter()
                    .filter(|&&c| !is_ace(c) && !is_heart(c))
                    .count()
            } else {
                0
            };
            let mut steps = vec![fire.clone()];
            if !drawn.is_empty() {
                let names: Vec<String> = drawn.iter().map(|&c| card_name(c)).collect();
                let mut totals = vec![
                    (facet("figures"), figures as i32),
                    (facet("officers"), officers as i32),
                ];
                if wounded {
                    totals.push((facet("wounded"), hurt as i32));
                }
                steps.push(Step {
                    title: k(if wounded {
                        CASUALTY_CARDS_WOUNDED
                    } else {
                        CASUALTY_CARDS
                    }),
                    dice: Vec::new(),
                    modifiers: Vec::new(),
                    totals,
                    result: msg("result.cards", &[("cards", names.join(" "))]),
                });
            }
            let (h, fg, of) = (
                ("hits", hits.to_string()),
                ("figures", figures.to_string()),
                ("officers", officers.to_string()),
            );
            let summary = if hits == 0 {
                k("result.no-hits")
            } else if officers > 0 {
                msg("result.hits-officers", &[h, fg, of])
            } else {
                msg("result.hits-remove", &[h, fg])
            };
            let summary = if wounded && hurt > 0 {
                msg(
                    "result.some-wounded",
                    &[("summary", summary), ("wounded", hurt.to_string())],
                )
            } else {
                summary
            };
            let mut facets = vec![
                (facet("hits"), hits.to_string()),
                (facet("officers-hit"), officers.to_string()),
            ];
            if wounded {
                facets.push((facet("wounded"), hurt.to_string()));
            }
            return Plan::Done(outcome("fire", summary, steps, facets));
        }
        let label = msg("die.casualty-card", &[("n", (drawn.len() + 1).to_string())]);
        // What follows depends only on the hits, the cards still to draw and the aces (and with
        // the option the wounds) already drawn: worked out once per such state.
        let aces = drawn.iter().filter(|&&c| is_ace(c)).count();
        let hurt = drawn
            .iter()
            .filter(|&&c| wounded && !is_ace(c) && !is_heart(c))
            .count();
        let key = format!("cards:{hits}:{n}:{aces}:{hurt}:{wounded}");
        Plan::memo(key, move || {
            let (rest, drawn, fire) = (left.clone(), drawn.clone(), fire.clone());
            Plan::card(
                label.clone(),
                52,
                left.clone(),
                move |c| u8::from(is_ace(c)) * 2 + u8::from(wounded && is_heart(c)),
                move |c| {
                    let next: Vec<u8> = rest.iter().copied().filter(|&x| x != c).collect();
                    let mut got = drawn.clone();
                    got.push(c);
                    draw(next, n - 1, got, fire.clone(), (hits, wounded))
                },
            )
        })
    }
    draw((1..=52).collect(), cards, Vec::new(), fire, (hits, wounded))
}
