//! Reports on a finished or running game: the dice report (faces and outcomes against their
//! expected frequencies) and the battle report (Markdown, with the break-point chart per turn).
//! Both are computed from the log with the same plans that rolled it.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use tercio_core::stats::{chi_square, chi_square_p};
use tercio_core::LogEntry;
use tercio_i18n::{keys, localize, Lang};

use crate::game::Game;
use crate::interface::{SideScore, Viewer};
use crate::odds;

/// Beyond this many joint outcomes an event's expected outcomes are not tabulated (a simultaneous
/// fire by many units); its faces still count.
const OUTCOME_BUDGET: usize = 100_000;

/// The faces of one kind of die, from one source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FaceTally {
    pub sides: u8,
    /// `seed` (drawn from the game's committed stream) or `entered` (real dice typed in).
    pub source: &'static str,
    pub thrown: u64,
    /// Count per face, index 0 is face 1.
    pub counts: Vec<u64>,
    /// Expected count per face for fair dice.
    pub expected: f64,
    pub chi_square: f64,
    pub degrees_of_freedom: u32,
    /// Chance that fair dice stray at least this far from the expected counts.
    pub p_value: f64,
}

/// One outcome of one kind of action: how often it was expected and how often it came.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutcomeRow {
    pub action: String,
    pub facet: String,
    pub value: String,
    pub expected: f64,
    pub observed: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiceReport {
    pub events: usize,
    pub faces: Vec<FaceTally>,
    pub outcomes: Vec<OutcomeRow>,
    /// Events whose outcomes were too many to tabulate.
    pub not_tabulated: usize,
}

/// (value, expected count, observed count).
type Tally = (String, f64, u64);

/// Every die ever thrown in the game (voided events too: they were thrown), and every outcome
/// against its exact expectation at the moment it was rolled — of the events `viewer` may see
/// with their dice (a rule set's secret draws stay out of a seat's report).
pub fn dice_report(game: &Game, viewer: &Viewer) -> Result<DiceReport, String> {
    let engine = game.engine().map_err(|e| e.to_string())?;
    let mut tallies: BTreeMap<(u8, bool), Vec<u64>> = BTreeMap::new();
    // (action, facet) -> value -> (expected, observed), in first-seen order of values.
    let mut rows: BTreeMap<(String, String), Vec<Tally>> = BTreeMap::new();
    let mut events = 0;
    let mut not_tabulated = 0;
    game.walk(|_seq, event, _state, plan, pos| {
        let next = if event.entered { pos } else { event.stream_pos };
        let raw = serde_json::to_value(event).unwrap_or(Value::Null);
        let shown = engine.view_event(&raw, viewer);
        if shown.as_ref().map(|v| &v["draws"]) != Some(&raw["draws"]) {
            return Ok(next);
        }
        events += 1;
        for d in event.draws.iter().filter(|d| !d.card) {
            let counts = tallies
                .entry((d.sides, event.entered))
                .or_insert_with(|| vec![0; usize::from(d.sides)]);
            if let Some(c) = counts.get_mut(usize::from(d.face).wrapping_sub(1)) {
                *c += 1;
            }
        }
        // Its outcome, against today's rules: an event they refuse (a game played under older
        // rules) is not tabulated; its dice are, above.
        let Ok(plan) = plan else {
            not_tabulated += 1;
            return Ok(next);
        };
        let faces: Vec<u8> = event.draws.iter().map(|d| d.face).collect();
        // Faces today's plan does not take (older rules) leave the event untabulated too.
        let Ok(observed) = plan.clone().roll_with(&faces).map(|(o, _)| o.facets) else {
            not_tabulated += 1;
            return Ok(next);
        };
        if plan.within(OUTCOME_BUDGET) {
            let report = odds::odds(&plan);
            for f in &report.facets {
                if f.values.len() < 2 {
                    continue;
                }
                let seen = observed
                    .iter()
                    .find(|(k, _)| *k == f.facet)
                    .map_or(crate::odds::NOT_REACHED, |(_, v)| v.as_str());
                let row = rows
                    .entry((event.resolution.action.clone(), f.facet.clone()))
                    .or_default();
                for (v, p) in &f.values {
                    let hit = u64::from(v == seen);
                    match row.iter_mut().find(|(x, _, _)| x == v) {
                        Some(r) => {
                            r.1 += p;
                            r.2 += hit;
                        }
                        None => row.push((v.clone(), *p, hit)),
                    }
                }
            }
        } else {
            not_tabulated += 1;
        }
        Ok(next)
    })?;
    let faces = tallies
        .into_iter()
        .map(|((sides, entered), counts)| {
            let thrown: u64 = counts.iter().sum();
            let expected = thrown as f64 / f64::from(sides);
            let chi = chi_square(&counts, &vec![expected; counts.len()]);
            let df = u32::from(sides) - 1;
            FaceTally {
                sides,
                source: if entered { "entered" } else { "seed" },
                thrown,
                counts,
                expected,
                chi_square: chi,
                degrees_of_freedom: df,
                p_value: chi_square_p(chi, df),
            }
        })
        .collect();
    let outcomes = rows
        .into_iter()
        .flat_map(|((action, facet), values)| {
            values
                .into_iter()
                .map(move |(value, expected, observed)| OutcomeRow {
                    action: action.clone(),
                    facet: facet.clone(),
                    value,
                    expected,
                    observed,
                })
        })
        .collect();
    Ok(DiceReport {
        events,
        faces,
        outcomes,
        not_tabulated,
    })
}

/// Each side's losses at the end of each turn, from the live events: (turn, scores).
pub fn scores_by_turn(game: &Game) -> Result<Vec<(u64, Vec<SideScore>)>, String> {
    let engine = game.engine().map_err(|e| e.to_string())?;
    let mut state = engine.initial_state()?;
    let mut rows: Vec<(u64, Vec<SideScore>)> = Vec::new();
    let mut put = |state: &Value| {
        let turn = state["turn"].as_u64().unwrap_or(0);
        let scores = engine.scores(state);
        match rows.last_mut() {
            Some((t, s)) if *t == turn => *s = scores,
            _ => rows.push((turn, scores)),
        }
    };
    put(&state);
    for (_, e) in game.log.live() {
        engine.apply(&mut state, &e.effects)?;
        put(&state);
    }
    Ok(rows)
}

/// What the battle report may show of the dice: the commitment always, the seed once revealed;
/// and whether the game master ended the game.
pub struct Reveal<'a> {
    pub commitment: &'a str,
    pub seed: Option<(u64, &'a str)>,
    pub concluded: bool,
    /// The log's fingerprint, when the reader may see it (a game recorded before the keyed chain
    /// hides it until the end from every seat of a rule set with secrets).
    pub fingerprint: Option<&'a str>,
}

/// A readable battle report in Markdown, as `viewer` may see it, in `lang`: its own words from
/// the `report.*` catalogue, the rules' messages (actions, summaries, the verdict) rendered in
/// the same language before they are escaped for Markdown.
pub fn battle_report(
    game: &Game,
    viewer: &Viewer,
    reveal: &Reveal,
    lang: Lang,
) -> Result<String, String> {
    let engine = game.engine().map_err(|e| e.to_string())?;
    let tr = |key: &str, args: &[(&str, &str)]| tercio_i18n::t(lang, key, args);
    let sc = &game.scenario;
    // Every name is written as text, never as Markdown or HTML (`md_text`).
    let side_name = |id: &str| md_text(sc.side(id).map_or(id, |s| s.name.get(lang)));
    let rules = crate::registry::lookup(&game.ruleset)
        .map(|r| r.name())
        .unwrap_or(game.ruleset.as_str());
    // An army's size in the rule set's own unit: the scenario key of a unit's size.
    let size = match crate::registry::lookup(&game.ruleset).map(|r| r.unit_size().0) {
        Ok("figures") => keys::REPORT_FIGURES,
        Ok("blocks") => keys::REPORT_BLOCKS,
        _ => keys::REPORT_BASES,
    };
    let mut md = format!("# {}\n\n", md_text(sc.title.get(lang)));
    let mut facts = vec![tr(
        keys::REPORT_RULE_SET,
        &[("name", &localize(lang, rules))],
    )];
    if let Some(d) = &sc.date {
        facts.push(tr(keys::REPORT_DATE, &[("date", &md_text(d))]));
    }
    if let Some(p) = &sc.place {
        facts.push(tr(keys::REPORT_PLACE, &[("place", &md_text(p.get(lang)))]));
    }
    md.push_str(&facts.join(" · "));
    md.push_str("\n\n");
    let state = engine.view_state(&game.state, viewer);
    // The units that took the field, where the rules hold some in reserve; else the scenario's.
    let fielded = engine.forces(&state);
    for s in &sc.sides {
        let (units, bases) = match fielded.iter().flatten().find(|f| f.0 == s.id) {
            Some((_, units, bases)) => (*units as usize, *bases),
            None => (
                sc.units.iter().filter(|u| u.side == s.id).count(),
                sc.units
                    .iter()
                    .filter(|u| u.side == s.id)
                    .map(|u| u32::from(u.bases))
                    .sum(),
            ),
        };
        let forces = tr(
            keys::REPORT_FORCES,
            &[
                (
                    "units",
                    &tr(keys::REPORT_UNITS, &[("count", &units.to_string())]),
                ),
                ("bases", &tr(size, &[("count", &bases.to_string())])),
            ],
        );
        md.push_str(&format!("- **{}**: {forces}\n", md_text(s.name.get(lang))));
    }
    let turn = state["turn"].as_u64().unwrap_or(0).to_string();
    let turn = turn.as_str();
    md.push_str(&format!("\n## {}\n\n", tr(keys::REPORT_RESULT, &[])));
    let result = if let Some(v) = engine
        .is_over(&state)
        .then(|| engine.verdict(&state))
        .flatten()
    {
        tr(
            keys::REPORT_VERDICT,
            &[("verdict", &localize(lang, &v)), ("turn", turn)],
        )
    } else if engine.is_over(&state) {
        let broken: Vec<String> = state["broken"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(side_name)
            .collect();
        if broken.len() > 1 {
            tr(
                keys::REPORT_DRAW,
                &[("turn", turn), ("sides", &broken.join(", "))],
            )
        } else {
            let winners: Vec<String> = sc
                .sides
                .iter()
                .map(|s| md_text(s.name.get(lang)))
                .filter(|name| !broken.contains(name))
                .collect();
            tr(
                keys::REPORT_WON,
                &[
                    ("winners", &winners.join(", ")),
                    ("turn", turn),
                    ("broken", &broken.join(", ")),
                ],
            )
        }
    } else if reveal.concluded {
        tr(keys::REPORT_ENDED, &[("turn", turn)])
    } else {
        tr(keys::REPORT_UNDECIDED, &[("turn", turn)])
    };
    md.push_str(&result);
    md.push('\n');
    md.push_str(&format!(
        "\n## {}\n\n{}\n\n| {} |",
        tr(keys::REPORT_BREAK_POINTS, &[]),
        tr(keys::REPORT_BREAK_POINTS_INTRO, &[]),
        tr(keys::REPORT_TURN, &[])
    ));
    for s in &sc.sides {
        md.push_str(&format!(" {} |", md_text(s.name.get(lang))));
    }
    md.push_str("\n|---:|");
    for _ in &sc.sides {
        md.push_str("---|");
    }
    md.push('\n');
    for (t, scores) in scores_by_turn(game)? {
        md.push_str(&format!("| {t} |"));
        for s in &sc.sides {
            match scores.iter().find(|x| x.side == s.id) {
                Some(x) => md.push_str(&format!(" `{}` {}/{} |", bar(x), x.lost, x.threshold)),
                None => md.push_str(" — |"),
            }
        }
        md.push('\n');
    }
    md.push_str(&format!("\n## {}\n\n", tr(keys::REPORT_LOG, &[])));
    for e in &game.log {
        match e {
            LogEntry::Event { seq, event } => {
                let Some(v) = serde_json::to_value(event)
                    .ok()
                    .and_then(|v| engine.view_event(&v, viewer))
                else {
                    md.push_str(&format!("{seq}. {}\n", tr(keys::REPORT_HIDDEN, &[])));
                    continue;
                };
                let action = localize(lang, v["resolution"]["action"].as_str().unwrap_or(""));
                let summary = localize(lang, v["resolution"]["summary"].as_str().unwrap_or(""));
                let faces: Vec<String> = v["draws"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|d| d["face"].as_u64())
                    .map(|f| f.to_string())
                    .collect();
                let dice = if faces.is_empty() {
                    String::new()
                } else {
                    let key = if event.entered {
                        keys::REPORT_DICE_FACES_AT_TABLE
                    } else {
                        keys::REPORT_DICE_FACES
                    };
                    format!(" — {}", tr(key, &[("faces", &faces.join(" "))]))
                };
                let line = format!("**{}**: {}{dice}", md_text(&action), md_text(&summary));
                if game.log.is_voided(*seq) {
                    md.push_str(&format!(
                        "{seq}. ~~{line}~~ {}\n",
                        tr(keys::REPORT_VOIDED, &[])
                    ));
                } else {
                    md.push_str(&format!("{seq}. {line}\n"));
                }
            }
            LogEntry::Void { seq, voids, .. } => {
                md.push_str(&format!(
                    "{seq}. {}\n",
                    tr(keys::REPORT_UNDO, &[("voids", &voids.to_string())])
                ));
            }
        }
    }
    md.push_str(&format!("\n## {}\n\n", tr(keys::REPORT_DICE, &[])));
    md.push_str(&tr(
        keys::REPORT_COMMITMENT,
        &[("commitment", &format!("`{}`", reveal.commitment))],
    ));
    md.push_str("\n\n");
    match reveal.seed {
        Some((seed, nonce)) => md.push_str(&tr(
            keys::REPORT_SEED,
            &[
                ("seed", &format!("`{seed}`")),
                ("nonce", &format!("`{nonce}`")),
            ],
        )),
        None => md.push_str(&tr(keys::REPORT_SEED_HIDDEN, &[])),
    }
    md.push('\n');
    match reveal.fingerprint {
        Some(digest) => md.push_str(&tr(
            keys::REPORT_FINGERPRINT,
            &[("digest", &format!("`{digest}`"))],
        )),
        None => md.push_str(&tr(keys::REPORT_FINGERPRINT_LATER, &[])),
    }
    md.push('\n');
    let dr = dice_report(game, viewer)?;
    if !dr.faces.is_empty() {
        md.push_str(&format!(
            "\n| {} | {} | {} | {} | χ² | p |\n|---|---|---:|---|---:|---:|\n",
            tr(keys::REPORT_TABLE_DICE, &[]),
            tr(keys::REPORT_TABLE_SOURCE, &[]),
            tr(keys::REPORT_TABLE_THROWN, &[]),
            tr(keys::REPORT_TABLE_FACES, &[])
        ));
        for t in &dr.faces {
            let counts: Vec<String> = t.counts.iter().map(u64::to_string).collect();
            let source = if t.source == "entered" {
                keys::REPORT_SOURCE_ENTERED
            } else {
                keys::REPORT_SOURCE_SEED
            };
            md.push_str(&format!(
                "| d{} | {} | {} | {} | {} | {} |\n",
                t.sides,
                tr(source, &[]),
                t.thrown,
                counts.join(" "),
                tercio_i18n::fmt_decimal(lang, t.chi_square, 2),
                tercio_i18n::fmt_decimal(lang, t.p_value, 3)
            ));
        }
    }
    Ok(md)
}

/// A seat by name: `game-master`, or `side:ID` as the side's name.
pub fn seat_name(sc: &crate::scenario::Scenario, by: &str) -> String {
    match by.strip_prefix("side:") {
        Some(id) => sc
            .side(id)
            .map_or(id.to_string(), |s| s.name.plain().into_owned()),
        None if by == "game-master" => "the game master".to_string(),
        None => by.to_string(),
    }
}

/// Ten cells, filled in proportion to losses over the breaking point.
fn bar(s: &SideScore) -> String {
    let filled = (s.lost.min(s.threshold) * 10 + s.threshold / 2)
        .checked_div(s.threshold)
        .unwrap_or(0) as usize;
    format!("{}{}", "█".repeat(filled), "·".repeat(10 - filled))
}

/// User text inside Markdown: characters that would start markup are escaped.
fn md_text(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#' | '|' | '~'
        ) {
            o.push('\\');
        }
        o.push(if c == '\n' { ' ' } else { c });
    }
    o
}
