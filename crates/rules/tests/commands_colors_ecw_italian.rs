//! Commands & Colors ECW in Italian (issue 17, items 3 and 16): the example game of
//! `examples/commands-colors-ecw/game/`, played with both hands on one device so that the hands
//! show, rendered in Italian — every result, the odds of every step (facets and values) or its
//! refusal, the board, every seat's forms, and the rules page's tables — carries no English word
//! of the engine's once the scenario's own names (sides, units, leaders) and the Chaunce cards'
//! printed titles are taken out.

use serde_json::{json, Value};
use tercio_i18n::{localize, Lang};
use tercio_rules::commands_colors_ecw::engine::RULESET;
use tercio_rules::commands_colors_ecw::tables::CHAUNCE_CARDS;
use tercio_rules::game::Game;
use tercio_rules::odds::odds;
use tercio_rules::scenario::parse;
use tercio_rules::RuleSet;

const ENGLISH: [&str; 24] = [
    "the", "of", "and", "card", "cards", "play", "unit", "units", "turn", "hits", "retreat",
    "deck", "hand", "side", "fire", "melee", "leader", "blocks", "lost", "draw", "order",
    "ordered", "dice", "none",
];

/// Every text of `v` a person reads: its strings, less ids, citations and the action's values.
fn texts(v: &Value, key: &str, out: &mut Vec<String>) {
    match v {
        Value::String(s)
            if !matches!(
                key,
                "id" | "source" | "action" | "value" | "name" | "p" | "chain"
            ) =>
        {
            out.push(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|x| texts(x, key, out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| texts(x, k, out)),
        _ => {}
    }
}

#[test]
fn a_played_game_in_italian_has_no_english_engine_text() {
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let expect: Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{root}/examples/commands-colors-ecw/game.expect.json"
        ))
        .expect("expect"),
    )
    .expect("json");
    let path = format!("{root}/{}", expect["scenario"].as_str().expect("scenario"));
    let sc = parse(&path, &std::fs::read_to_string(&path).expect("scenario"))
        .unwrap_or_else(|d| panic!("{d:?}"));
    let mut g = Game::new(sc, expect["seed"].as_u64().expect("seed")).expect("game");
    let mut files: Vec<_> = std::fs::read_dir(format!("{root}/examples/commands-colors-ecw/game"))
        .expect("game")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    // The scenario's names are proper names, shown as written.
    let mut names: Vec<String> = vec![g.state["title"].as_str().unwrap_or("").to_string()];
    for list in ["sides", "units", "leaders"] {
        for x in g.state[list].as_array().into_iter().flatten() {
            names.push(x["name"].as_str().unwrap_or("").to_string());
            names.push(x["id"].as_str().unwrap_or("").to_string());
        }
    }
    names.extend(CHAUNCE_CARDS.iter().map(|c| localize(Lang::It, &c.title())));
    names.retain(|n| !n.is_empty());
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));

    let mut all = Vec::new();
    let look = |g: &Game, all: &mut Vec<String>| {
        let e = g.engine().expect("engine");
        texts(&json!(e.board(&g.state)), "", all);
        let sides = [
            None,
            g.state["sides"][0]["id"].as_str(),
            g.state["sides"][1]["id"].as_str(),
        ];
        for side in sides {
            texts(&json!(e.forms(&g.state, side)), "", all);
        }
    };
    for f in &files {
        let mut a: Value =
            serde_json::from_str(&std::fs::read_to_string(f).expect("action")).expect("json");
        if a["action"] == "deal" {
            a["hands"] = json!("single-device");
        }
        look(&g, &mut all);
        match g.engine().expect("engine").preview(Some(&g.state), &a) {
            Ok(plan) => {
                for facet in odds(&plan).facets {
                    all.push(facet.facet);
                    all.extend(facet.values.into_iter().map(|v| v.0));
                }
            }
            Err(r) => all.push(r.message),
        }
        let event = g.act(a.clone()).unwrap_or_else(|e| panic!("{a}: {e}"));
        texts(&json!(event.resolution), "", &mut all);
    }
    look(&g, &mut all);
    // A refusal of the moment, and the rules page.
    if let Err(tercio_rules::game::GameError::Rejected(r)) =
        g.act(json!({"action": "move", "unit": "nobody", "hexes": 1}))
    {
        all.push(r.message);
    }
    texts(&json!(RULESET.reference_tables()), "", &mut all);

    let mut english = Vec::new();
    for t in &all {
        let mut it = localize(Lang::It, t);
        for n in &names {
            it = it.replace(n.as_str(), " ");
        }
        let hit: Vec<&str> = it
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| ENGLISH.contains(&w.to_lowercase().as_str()))
            .collect();
        if !hit.is_empty() {
            english.push(format!("{hit:?} in {it}"));
        }
    }
    english.sort();
    english.dedup();
    assert!(
        english.is_empty(),
        "English in Italian:\n{}",
        english.join("\n")
    );
    assert!(all.len() > 500, "the game shows its texts: {}", all.len());
}
