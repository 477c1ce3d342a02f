//! The shipped scenarios of The Sword and the Flame, Renaissance adaptation (design section 10):
//! they parse, start a game, give each side the order of battle the notes describe, and play.

mod common;

use std::path::PathBuf;

use serde_json::{json, Value};
use tercio_rules::game::Game;
use tercio_rules::scenario::{parse, Role, Scenario};

const RULES: &str = "sword-and-flame-renaissance";

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(RULES)
}

fn scenario(file: &str) -> Scenario {
    let p = dir().join(file);
    let src = std::fs::read_to_string(&p).expect("read");
    parse(&p.display().to_string(), &src).unwrap_or_else(|d| {
        panic!(
            "{}",
            d.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

fn game(file: &str) -> Game {
    Game::new(scenario(file), 11).expect("game")
}

fn unit<'a>(g: &'a Game, id: &str) -> &'a Value {
    let u = &g.state["units"][id];
    assert!(u.is_object(), "no unit {id}");
    u
}

fn side<'a>(g: &'a Game, id: &str) -> &'a Value {
    g.state["sides"]
        .as_array()
        .expect("sides")
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no side {id}"))
}

/// (units, guns) of a side that count for the spirit of the army.
fn order_of_battle(g: &Game, side: &str) -> (usize, usize) {
    let units = g.state["units"].as_object().expect("units");
    let mine = units.values().filter(|u| u["side"] == side);
    let guns = mine
        .clone()
        .filter(|u| matches!(u["troop"].as_str(), Some("light-gun" | "heavy-gun")))
        .count();
    let all = mine
        .filter(|u| !matches!(u["troop"].as_str(), Some("riflemen" | "wagon")))
        .count();
    (all - guns, guns)
}

/// Draw cards, letting the other side's units pass, until `side` holds the card.
fn card_for(g: &mut Game, side: &str) {
    for _ in 0..60 {
        g.act(json!({"action": "draw"})).expect("draw");
        let current = g.state["current"].as_str().expect("a side holds the card");
        if current == side {
            return;
        }
        let unit = g.state["units"]
            .as_object()
            .expect("units")
            .values()
            .find(|u| {
                u["side"] == current
                    && !g.state["acted"]
                        .as_array()
                        .expect("acted")
                        .iter()
                        .any(|a| a == &u["id"])
            })
            .expect("a unit still to act")["id"]
            .as_str()
            .expect("id")
            .to_string();
        g.act(json!({"action": "pass", "unit": unit}))
            .expect("pass");
    }
    panic!("{side} never drew a card");
}

fn acted(g: &Game, id: &str) -> bool {
    g.state["acted"]
        .as_array()
        .expect("acted")
        .iter()
        .any(|a| a == id)
}

#[test]
fn every_shipped_scenario_is_valid_sourced_and_starts() {
    let mut files: Vec<String> = std::fs::read_dir(dir())
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".toml"))
        .collect();
    files.sort();
    assert_eq!(files, ["bicocca-1522.toml", "ravenna-1512.toml"]);
    for f in &files {
        let sc = scenario(f);
        assert_eq!(sc.ruleset, RULES);
        assert_eq!(sc.sides.len(), 2);
        assert!(sc.sources.len() >= 4, "{f}: sources");
        assert!(
            sc.sources.iter().all(|s| s.contains("http")),
            "{f}: every source has its address"
        );
        // Both use the company close combat; light rain off.
        assert_eq!(sc.house_rules.get("options.company_close_combat"), Some(&1));
        let g = Game::new(sc, 1).expect("game");
        assert_eq!(g.state["company_combat"], true, "{f}");
        assert_eq!(g.state["light_rain"], false, "{f}");
    }
}

#[test]
fn ravenna_order_of_battle() {
    let sc = scenario("ravenna-1512.toml");
    // The League is listed first: the red side, defending.
    assert_eq!(sc.sides[0].id, "league");
    assert_eq!(sc.sides[0].role, Role::Defender);
    let g = Game::new(sc, 3).expect("game");
    assert_eq!(side(&g, "league")["red"], true);
    assert_eq!(side(&g, "french")["red"], false);

    assert_eq!(order_of_battle(&g, "league"), (10, 5));
    assert_eq!(side(&g, "league")["start"], 15);
    assert_eq!(order_of_battle(&g, "french"), (14, 6));
    assert_eq!(side(&g, "french")["start"], 20);

    // Navarro's Spanish foot: two leaders, a shot and a sword-and-buckler sub-unit each.
    for id in [
        "spanish-foot-first",
        "spanish-foot-second",
        "spanish-foot-third",
    ] {
        let u = unit(&g, id);
        assert_eq!(u["leaders"], 2, "{id}");
        assert_eq!(u["figures"], 30, "{id}");
        assert_eq!(u["figures_start"], 30, "{id}");
        assert_eq!(
            u["sub_units"],
            json!(["arquebusiers", "sword-and-buckler"]),
            "{id}"
        );
    }
    // The Italian foot and the Landsknechts are ordinary pike: one leader.
    assert_eq!(unit(&g, "italian-foot")["leaders"], 1);
    assert_eq!(unit(&g, "italian-foot")["figures"], 20);
    // Two Landsknecht units with an arquebus sub-unit: 25 figures; the third 20.
    for id in ["empser-landsknechts", "landsknechts-second"] {
        assert_eq!(unit(&g, id)["figures"], 25, "{id}");
        assert_eq!(unit(&g, id)["leaders"], 1, "{id}");
    }
    assert_eq!(unit(&g, "landsknechts-third")["figures"], 20);
    // Guns: crews of 4 and 2, no unit leaders.
    assert_eq!(unit(&g, "ferrarese-heavy-gun")["figures"], 4);
    assert_eq!(unit(&g, "navarro-carts-river")["figures"], 2);
    assert_eq!(unit(&g, "navarro-carts-river")["leaders"], 0);
    // No brigades at Ravenna.
    assert_eq!(g.state["options"]["brigade_movement"], false);
}

#[test]
fn bicocca_order_of_battle() {
    let sc = scenario("bicocca-1522.toml");
    // The French are listed first: the red side, attacking.
    assert_eq!(sc.sides[0].id, "french");
    assert_eq!(sc.sides[0].role, Role::Attacker);
    let g = Game::new(sc, 3).expect("game");
    assert_eq!(side(&g, "french")["red"], true);
    assert_eq!(side(&g, "imperial")["red"], false);

    assert_eq!(order_of_battle(&g, "french"), (13, 3));
    assert_eq!(side(&g, "french")["start"], 16);
    assert_eq!(order_of_battle(&g, "imperial"), (11, 2));
    assert_eq!(side(&g, "imperial")["start"], 13);

    // Two Swiss columns, each a brigade of three pike units under its colonel, two leaders each.
    assert_eq!(g.state["options"]["brigade_movement"], true);
    for (colonel, ids) in [
        (
            "albert-von-stein",
            [
                "stein-swiss-first",
                "stein-swiss-second",
                "stein-swiss-third",
            ],
        ),
        (
            "arnold-winkelried",
            [
                "winkelried-swiss-first",
                "winkelried-swiss-second",
                "winkelried-swiss-third",
            ],
        ),
    ] {
        for id in ids {
            let u = unit(&g, id);
            assert_eq!(u["brigade"], colonel, "{id}");
            assert_eq!(u["swiss"], true, "{id}");
            assert_eq!(u["leaders"], 2, "{id}");
            assert_eq!(u["figures"], 20, "{id}");
        }
    }
    // Nobody else is in a brigade.
    let brigaded = g.state["units"]
        .as_object()
        .expect("units")
        .values()
        .filter(|u| !u["brigade"].is_null())
        .count();
    assert_eq!(brigaded, 6);
    // The Spanish pike has two leaders; Frundsberg's halberdiers make 25 figures.
    assert_eq!(unit(&g, "spanish-pikes")["leaders"], 2);
    assert_eq!(unit(&g, "frundsberg-landsknechts")["figures"], 25);
    assert_eq!(
        unit(&g, "frundsberg-landsknechts")["sub_units"],
        json!(["halberdiers"])
    );
    assert_eq!(unit(&g, "landsknechts-second")["leaders"], 1);
    assert_eq!(unit(&g, "spanish-shot-centre")["figures"], 20);
}

#[test]
fn bicocca_a_swiss_brigade_moves_on_one_card() {
    let mut g = game("bicocca-1522.toml");
    g.act(json!({"action": "start-turn"})).expect("start-turn");
    card_for(&mut g, "french");
    g.act(json!({"action": "move", "unit": "stein-swiss-first"}))
        .expect("move");
    for id in [
        "stein-swiss-first",
        "stein-swiss-second",
        "stein-swiss-third",
    ] {
        assert!(acted(&g, id), "{id} moved with its brigade");
    }
    assert!(
        !acted(&g, "winkelried-swiss-first"),
        "the other column waits"
    );
    // The card is spent: the next action is a draw.
    assert!(g.state["current"].is_null());
    g.act(json!({"action": "draw"})).expect("draw");
}

#[test]
fn ravenna_heavy_guns_pass_and_carts_move() {
    let mut g = game("ravenna-1512.toml");
    g.act(json!({"action": "start-turn"})).expect("start-turn");
    // The French centre's heavy guns do not move; the Ferrarese gun has the game master's
    // permission (flag may-move, decision 57) and moves 2D6.
    card_for(&mut g, "french");
    // Move offers the permitted gun and not the others, which may still let their chance pass
    // (issue 17, item 6).
    let forms = g.engine().expect("engine").forms(&g.state, None);
    let offered = |action: &str| -> Vec<String> {
        common::choices(
            forms.iter().find(|f| f.action == action).expect(action),
            "unit",
        )
    };
    assert!(!offered("move").contains(&"french-guns-centre".to_string()));
    assert!(offered("move").contains(&"ferrarese-heavy-gun".to_string()));
    assert!(offered("pass").contains(&"french-guns-centre".to_string()));
    let refused = g
        .act(json!({"action": "move", "unit": "french-guns-centre"}))
        .expect_err("heavy guns do not move");
    let refused = tercio_i18n::localize(tercio_i18n::Lang::En, &refused.to_string());
    assert!(refused.contains("heavy guns"), "{refused}");
    let ev = g
        .act(json!({"action": "move", "unit": "ferrarese-heavy-gun"}))
        .expect("the Ferrarese gun moves")
        .clone();
    assert_eq!(ev.draws.len(), 2, "2D6");
    assert!(acted(&g, "ferrarese-heavy-gun"));
    assert_eq!(unit(&g, "ferrarese-heavy-gun")["moved"], true);
    // Having moved, it may not fire this turn.
    let mut st = g.state.clone();
    st["phase"] = json!("fire");
    st["current"] = json!("french");
    st["acted"] = json!([]);
    let e = g.engine().expect("engine");
    let r = e
        .plan(
            Some(&st),
            &json!({"action": "fire", "unit": "ferrarese-heavy-gun", "target": "navarro-carts-centre", "range": "long"}),
        )
        .err()
        .expect("refused");
    assert_eq!(r.code, "cannot-fire");
    // Navarro's carts are light guns and move.
    card_for(&mut g, "league");
    g.act(json!({"action": "move", "unit": "navarro-carts-centre"}))
        .expect("carts move");
    assert!(acted(&g, "navarro-carts-centre"));
    // No brigade: one unit per card.
    assert!(!acted(&g, "navarro-carts-river"));
}
