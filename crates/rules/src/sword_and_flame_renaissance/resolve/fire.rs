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
        return Err(reject("bad-target-class", "target_class", "target_class: 1 (pikes, base to base), 2 (open order, all horse), 3 (skirmishers, artillerists, foot in light cover) or 4 (foot in walls, buildings, works)"));
    }
    if f.double && f.weapon != Weapon::Pistol {
        return Err(reject(
            "double-fire-pistols-only",
            "double",
            "only reiters' pistols fire twice a turn (001, FIRE, note on Reiters)",
        ));
    }
    let one_range = matches!(f.weapon, Weapon::Pistol | Weapon::Crossbow);
    if one_range && f.range.is_some() {
        return Err(reject(
            "one-range-only",
            "range",
            format!(
                "range: the {} has one range band, to {}\", so it takes no range (001, FIRE, Weapon Ranges, 'No short range')",
                weapon_name(f.weapon),
                tables::fire_line(f.weapon, Range::Short).inches
            ),
        ));
    }
    if f.firers == 0 || f.firers > max_firers(f.weapon) {
        return Err(reject(
            "bad-firers",
            "firers",
            format!(
                "firers: 1 to {} (the figures that may fire, or the gunners)",
                max_firers(f.weapon)
            ),
        ));
    }
    let range = f.range.unwrap_or(Range::Short);
    let line = tables::fire_line(f.weapon, range);
    let printed = i32::from(line.hits[usize::from(f.target_class - 1)]);
    let mut mods = Vec::new();
    if f.shaken {
        mods.push(modifier(
            "each die",
            "firer shaken",
            tables::FIRE_SHAKEN,
            tables::FIRE_SOURCE_SHAKEN,
        ));
    }
    if f.light_rain {
        mods.push(modifier(
            "each die",
            "light rain",
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
    let how = match (f.weapon, f.double) {
        (Weapon::HeavyCannon | Weapon::LightCannon, _) => "3 D20 per gunner",
        (_, true) => "2 D20 per figure (both pistols)",
        _ => "a D20 per figure",
    };
    let band = if one_range {
        format!("to {}\"", line.inches)
    } else {
        format!(
            "{} range, to {}\"",
            if range == Range::Short {
                "short"
            } else {
                "long"
            },
            line.inches
        )
    };
    let title = format!(
        "Fire: {} ({band}) at Class {class}: {how}; the table hits on 1-{printed}{} [{}]",
        weapon_name(f.weapon),
        if added > 0 {
            format!(", so 1-{need} after modifiers")
        } else {
            String::new()
        },
        line.source
    );
    let cap = f.target_figures;
    let wounded = f.wounded;
    Ok(
        throw(n, 20, "Fire D20", Depends::CountAtMost(need)).and_then(move |faces| {
            let hits = faces.iter().filter(|&&x| x <= need).count();
            let step = Step {
                title: title.clone(),
                dice: rolled(&labelled(faces.len(), 20, "Fire D20"), &faces),
                modifiers: mods.clone(),
                totals: vec![("hits".into(), hits as i32)],
                result: format!("{hits} hit(s)"),
            };
            let cards = cap.map_or(hits, |c| hits.min(usize::from(c)));
            casualty_cards(cards.min(52), hits, step, wounded)
        }),
    )
}

pub(super) fn weapon_name(w: Weapon) -> &'static str {
    match w {
        Weapon::Arquebus => "arquebus",
        Weapon::Pistol => "pistol",
        Weapon::Crossbow => "crossbow",
        Weapon::HeavyCannon => "heavy cannon",
        Weapon::LightCannon => "light cannon",
        Weapon::Rifle => "rifle",
    }
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

/// One casualty card per hit from a full, shuffled casualty deck (decision 14): an ace hits an
/// officer or unit leader instead of a figure (001, OFFICERS). Cards are drawn as cards: the odds
/// depend only on whether each is an ace.
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
                    ("figures".into(), figures as i32),
                    ("officers".into(), officers as i32),
                ];
                if wounded {
                    totals.push(("wounded".into(), hurt as i32));
                }
                steps.push(Step {
                    title: if wounded {
                        "Casualty cards: one per hit; an ace hits an officer or unit leader instead; a heart kills, other suits wound [001, OFFICERS; OPTIONAL RULES, WOUNDED AND DEAD; decision 14]".into()
                    } else {
                        "Casualty cards: one per hit; an ace hits an officer or unit leader instead [001, OFFICERS; decision 14]".into()
                    },
                    dice: Vec::new(),
                    modifiers: Vec::new(),
                    totals,
                    result: format!("cards {}", names.join(" ")),
                });
            }
            let summary = if hits == 0 {
                "No hits".to_string()
            } else if officers > 0 {
                format!("{hits} hit(s): {figures} figure(s) and {officers} officer(s) — the game master names the officer (the target's leader, or a field officer within 12\" in the cone of fire; none: a figure)")
            } else {
                format!("{hits} hit(s): remove {figures} figure(s)")
            };
            let summary = if wounded && hurt > 0 {
                format!("{summary}; {hurt} of the figures wounded, not killed")
            } else {
                summary
            };
            let mut facets = vec![
                ("hits", hits.to_string()),
                ("officers hit", officers.to_string()),
            ];
            if wounded {
                facets.push(("wounded", hurt.to_string()));
            }
            return Plan::Done(outcome("fire", summary, steps, facets));
        }
        let label = format!("Casualty card {}", drawn.len() + 1);
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
