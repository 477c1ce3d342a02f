//! Commands & Colors ECW as a game: the decks and hands, the turn, the seats' views, the
//! defender's answers, and the decisions of section 11 of `docs/rules/commands-colors-ecw.md`
//! pinned through `Game` (each test is named after the decision or section it pins).

use std::collections::BTreeMap;

use serde_json::{json, Value};
use tercio_core::{LogEntry, Step};
use tercio_i18n::{localize, localize_json, Lang};
use tercio_rules::commands_colors_ecw::game::chaunce_of;
use tercio_rules::commands_colors_ecw::tables::{command_deck_size, command_kind, COMMAND_CARDS};
use tercio_rules::game::{Game, GameError, GameEvent};
use tercio_rules::interface::RejectKind;
use tercio_rules::odds::odds;
use tercio_rules::scenario::parse;
use tercio_rules::Outcome;
use tercio_rules::{Engine, Viewer};

const ROYAL: usize = 0;
const PARL: usize = 1;

/// Two sides: the Royalists (first) with six foot in the centre, two on the left and four
/// gallopers on the right (one rash); Parliament with foot in every section and one trotter unit.
fn source(house_rules: &str) -> String {
    let mut s = String::from(
        r#"
ruleset = "commands-colors-ecw"
title = "Test"

[[sides]]
id = "royal"
name = "Royalists"
role = "attacker"
colour = "crimson"

[[sides]]
id = "parl"
name = "Parliament"
role = "defender"
colour = "orange"

[[leaders]]
id = "king"
name = "The King"
side = "royal"
rank = "army"

[[leaders]]
id = "essex"
name = "Essex"
side = "parl"
rank = "army"
"#,
    );
    let units: [(&str, &str, &str, u8, &str); 20] = [
        ("c1", "royal", "foot", 4, r#""centre""#),
        ("c2", "royal", "foot", 4, r#""centre""#),
        ("c3", "royal", "foot", 3, r#""centre""#),
        ("c4", "royal", "foot", 3, r#""centre""#),
        ("c5", "royal", "foot", 3, r#""centre""#),
        ("c6", "royal", "foot", 3, r#""centre""#),
        ("l1", "royal", "foot", 3, r#""left""#),
        ("l2", "royal", "foot", 3, r#""left""#),
        ("ga1", "royal", "gallopers", 3, r#""right", "rash""#),
        ("ga2", "royal", "gallopers", 3, r#""right""#),
        ("ga3", "royal", "gallopers", 3, r#""right""#),
        ("ga4", "royal", "gallopers", 3, r#""right""#),
        ("p1", "parl", "foot", 4, r#""centre""#),
        ("p2", "parl", "foot", 4, r#""centre""#),
        ("p3", "parl", "foot", 3, r#""centre""#),
        ("p4", "parl", "trotters", 3, r#""right""#),
        ("p5", "parl", "foot", 3, r#""right""#),
        ("p8", "parl", "foot", 3, r#""right""#),
        ("p6", "parl", "foot", 3, r#""left""#),
        ("p7", "parl", "foot", 3, r#""left""#),
    ];
    for (id, side, troop, blocks, flags) in units {
        let leader = if side == "royal" { "king" } else { "essex" };
        s.push_str(&format!(
            "\n[[units]]\nid = \"{id}\"\nname = \"Unit {id}\"\nside = \"{side}\"\ntype = \"{troop}\"\nblocks = {blocks}\nleader = \"{leader}\"\nflags = [{flags}]\n"
        ));
    }
    s.push_str(&format!("\n[house_rules]\n{house_rules}\n"));
    s
}

fn new_game(house_rules: &str, seed: u64) -> Game {
    let src = source(house_rules);
    let sc = parse("test.toml", &src).unwrap_or_else(|d| panic!("{d:?}"));
    Game::new(sc, seed).expect("game")
}

/// A dealt game, each side on its own link; the Royalists hold 6 cards, Parliament 4.
fn dealt(seed: u64) -> Game {
    let mut g = new_game("ecw.hand_first = 6\necw.hand_second = 4", seed);
    g.act(json!({"action": "deal"})).expect("deal");
    g
}

fn engine(g: &Game) -> Box<dyn Engine> {
    g.engine().expect("engine")
}

fn act(g: &mut Game, a: Value) {
    if let Err(e) = g.act(a.clone()) {
        panic!("{a}: {e}");
    }
}

fn act_entered(g: &mut Game, a: Value, faces: &[u8]) {
    if let Err(e) = g.act_entered(a.clone(), faces) {
        panic!("{a} with {faces:?}: {e}");
    }
}

/// The code and field of a refusal; panics if the action went through.
fn refused(g: &mut Game, a: Value) -> (String, Option<String>) {
    let before = g.log.entries().len();
    let state = g.state.clone();
    let out = match g.act(a.clone()) {
        Err(GameError::Rejected(r)) => (r.code, r.field),
        Err(e) => panic!("{a}: not a rejection: {e}"),
        Ok(_) => panic!("{a}: accepted, a refusal was expected"),
    };
    assert_eq!(g.log.entries().len(), before, "a refusal records nothing");
    assert_eq!(g.state, state, "a refusal changes nothing");
    out
}

/// The last event, its texts rendered in English (the engine records messages).
fn last_event(g: &Game) -> GameEvent {
    match g.log.entries().last() {
        Some(LogEntry::Event { event, .. }) => english(event),
        other => panic!("no event last: {other:?}"),
    }
}

/// An event with its texts rendered in English.
fn english(event: &GameEvent) -> GameEvent {
    let mut v = serde_json::to_value(event).expect("an event serialises");
    localize_json(Lang::En, &mut v);
    serde_json::from_value(v).expect("an event reads back")
}

fn nums(v: &Value) -> Vec<u8> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|c| c.as_u64().expect("a card number") as u8)
        .collect()
}

fn hand(g: &Game, side: usize) -> Vec<u8> {
    nums(&g.state["sides"][side]["hand"])
}

fn kinds(cards: &[u8]) -> Vec<&'static str> {
    cards.iter().map(|&c| command_kind(c).id).collect()
}

fn unit(g: &Game, id: &str) -> Value {
    g.state["units"]
        .as_array()
        .expect("units")
        .iter()
        .find(|u| u["id"] == id)
        .unwrap_or_else(|| panic!("no unit {id}"))
        .clone()
}

fn unit_index(g: &Game, id: &str) -> usize {
    g.state["units"]
        .as_array()
        .expect("units")
        .iter()
        .position(|u| u["id"] == id)
        .unwrap_or_else(|| panic!("no unit {id}"))
}

fn leader_index(g: &Game, id: &str) -> usize {
    g.state["leaders"]
        .as_array()
        .expect("leaders")
        .iter()
        .position(|u| u["id"] == id)
        .unwrap_or_else(|| panic!("no leader {id}"))
}

/// Give `side` a hand of the named kinds. The old hand goes to the bottom of the deck; each card
/// comes from the deck, else the discards, else the other hand (which takes the deck's bottom
/// card instead), so that the 72 cards stay accounted for.
fn give(g: &mut Game, side: usize, want: &[&str]) {
    let st = &mut g.state;
    let mut deck = nums(&st["deck"]);
    let mut discard = nums(&st["discard"]);
    let mut other = nums(&st["sides"][1 - side]["hand"]);
    let old = nums(&st["sides"][side]["hand"]);
    for c in old {
        deck.insert(0, c);
    }
    let mut new = Vec::new();
    for k in want {
        let is = |c: &u8| command_kind(*c).id == *k;
        if let Some(p) = deck.iter().position(is) {
            new.push(deck.remove(p));
        } else if let Some(p) = discard.iter().position(is) {
            new.push(discard.remove(p));
        } else if let Some(p) = other.iter().position(is) {
            new.push(other.remove(p));
            other.insert(p, deck.remove(0));
        } else {
            panic!("no {k} card left");
        }
    }
    st["deck"] = json!(deck);
    st["deck_count"] = json!(deck.len());
    st["discard"] = json!(discard);
    st["sides"][1 - side]["hand"] = json!(other);
    st["sides"][side]["hand"] = json!(new);
}

/// Give `side` a full hand (its limit): the cards named, then plain section cards.
fn deal_hand(g: &mut Game, side: usize, first: &[&str]) {
    const FILL: [&str; 6] = [
        "attack-left",
        "attack-right",
        "probe-left",
        "probe-right",
        "attack-centre",
        "probe-centre",
    ];
    let limit = g.state["sides"][side]["hand_limit"]
        .as_u64()
        .expect("hand limit") as usize;
    let mut want = first.to_vec();
    for k in FILL.iter().cycle() {
        if want.len() >= limit {
            break;
        }
        want.push(k);
    }
    give(g, side, &want);
}

/// Put a Chaunce card of kind `id` on top of the pack.
fn pack_top(g: &mut Game, id: &str) {
    let mut pack = nums(&g.state["pack"]);
    let p = pack
        .iter()
        .position(|&n| chaunce_of(n).id == id)
        .unwrap_or_else(|| panic!("no {id} in the pack"));
    let c = pack.remove(p);
    pack.push(c);
    g.state["pack"] = json!(pack);
}

/// Every command card is in exactly one place (design 4.3's invariant).
fn cards_accounted(st: &Value) {
    let mut seen = [0u32; 72];
    let mut all = nums(&st["deck"]);
    all.extend(nums(&st["discard"]));
    for s in st["sides"].as_array().expect("sides") {
        all.extend(nums(&s["hand"]));
        all.extend(nums(&s["scout"]));
        for t in s["track"].as_array().expect("track") {
            all.push(t[0].as_u64().expect("a card") as u8);
        }
    }
    for c in all {
        seen[usize::from(c)] += 1;
    }
    assert!(seen.iter().all(|&n| n == 1), "cards: {seen:?}");
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

fn preview_p(g: &Game, a: Value, st: &Value, facet: &str, value: &str) -> f64 {
    let plan = engine(g)
        .preview(Some(st), &a)
        .unwrap_or_else(|r| panic!("{a}: {r}"));
    let mut o = odds(&plan);
    close(o.total, 1.0);
    for f in &mut o.facets {
        f.facet = localize(Lang::En, &f.facet);
        for v in &mut f.values {
            v.0 = localize(Lang::En, &v.0);
        }
    }
    o.p(facet, value)
}

// ------------------------------------------------------------------------------------------------

#[test]
fn decision_1_fresh_pack_45_chaunce_11_false_alarums_35_titles_and_a_72_card_deck() {
    let g = dealt(1);
    let pack = nums(&g.state["pack"]);
    assert_eq!(pack.len(), 45);
    assert_eq!(g.state["pack_count"], 45);
    let ids: Vec<&str> = pack.iter().map(|&n| chaunce_of(n).id).collect();
    assert_eq!(ids.iter().filter(|&&i| i == "false-alarum").count(), 11);
    let distinct: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(distinct.len(), 35);
    // Each pack number once.
    let numbers: std::collections::BTreeSet<u8> = pack.iter().copied().collect();
    assert_eq!(numbers.len(), 45);
    // The command deck: 48 section cards and 24 tactic cards.
    let section: u32 = COMMAND_CARDS
        .iter()
        .filter(|c| c.sections.is_some())
        .map(|c| u32::from(c.count))
        .sum();
    let tactic: u32 = COMMAND_CARDS
        .iter()
        .filter(|c| c.sections.is_none())
        .map(|c| u32::from(c.count))
        .sum();
    assert_eq!((section, tactic), (48, 24));
    assert_eq!(command_deck_size(), 72);
    let sections = (0..72u8)
        .filter(|&n| command_kind(n).sections.is_some())
        .count();
    assert_eq!(sections, 48);
}

#[test]
fn deal_hands_per_scenario_and_each_seat_sees_only_its_own() {
    let g = dealt(2);
    assert_eq!(hand(&g, ROYAL).len(), 6);
    assert_eq!(hand(&g, PARL).len(), 4);
    assert_eq!(g.state["sides"][ROYAL]["hand_limit"], 6);
    assert_eq!(g.state["sides"][PARL]["hand_limit"], 4);
    let deck = nums(&g.state["deck"]);
    assert_eq!(deck.len() + 6 + 4, 72);
    assert_eq!(g.state["deck_count"], 62);
    assert_eq!(g.state["phase"], "command");
    assert_eq!(g.state["active"], ROYAL);
    cards_accounted(&g.state);

    let e = engine(&g);
    let v = e.view_state(&g.state, &Viewer::Side("royal".into()));
    assert_eq!(nums(&v["sides"][ROYAL]["hand"]), hand(&g, ROYAL));
    assert!(v["sides"][ROYAL]["hidden"].is_null());
    assert_eq!(nums(&v["sides"][PARL]["hand"]), Vec::<u8>::new());
    assert_eq!(v["sides"][PARL]["hidden"], 4);
    assert_eq!(nums(&v["deck"]), Vec::<u8>::new());
    assert_eq!(nums(&v["pack"]), Vec::<u8>::new());
    assert_eq!(v["salt"], 0);
    assert_ne!(g.state["salt"], 0);
    let v = e.view_state(&g.state, &Viewer::Side("parl".into()));
    assert_eq!(nums(&v["sides"][ROYAL]["hand"]), Vec::<u8>::new());
    assert_eq!(v["sides"][ROYAL]["hidden"], 6);
    assert_eq!(nums(&v["sides"][PARL]["hand"]), hand(&g, PARL));
    // The game master, per seat: both hands hidden (decision 44).
    for viewer in [Viewer::GameMaster, Viewer::Spectator] {
        let v = e.view_state(&g.state, &viewer);
        for (i, n) in [(ROYAL, 6), (PARL, 4)] {
            assert_eq!(nums(&v["sides"][i]["hand"]), Vec::<u8>::new(), "{viewer:?}");
            assert_eq!(v["sides"][i]["hidden"], n, "{viewer:?}");
        }
        assert_eq!(v["salt"], 0);
    }

    // One device for both: the game master's view shows both hands.
    let mut g = new_game("ecw.hand_first = 6\necw.hand_second = 4", 2);
    act(&mut g, json!({"action": "deal", "hands": "single-device"}));
    assert_eq!(g.state["settings"]["single_device"], true);
    let v = engine(&g).view_state(&g.state, &Viewer::GameMaster);
    assert_eq!(nums(&v["sides"][ROYAL]["hand"]), hand(&g, ROYAL));
    assert_eq!(nums(&v["sides"][PARL]["hand"]), hand(&g, PARL));
    assert_eq!(hand(&g, ROYAL).len(), 6);
    assert!(v["sides"][ROYAL]["hidden"].is_null());
    assert!(v["sides"][PARL]["hidden"].is_null());
    assert_eq!(nums(&v["deck"]), Vec::<u8>::new());
    // Spectators still see no hand.
    let v = engine(&g).view_state(&g.state, &Viewer::Spectator);
    assert_eq!(v["sides"][ROYAL]["hidden"], 6);
}

/// Checks that no effect of `event`, as `viewer` sees it, shows another side's hand, scout pair
/// or track card, or the decks; returns the paths it shows.
fn seen_paths(e: &dyn Engine, event: &GameEvent, viewer: &Viewer) -> Vec<String> {
    let ev = serde_json::to_value(event).expect("event");
    let v = e.view_event(&ev, viewer).expect("shown");
    let own = match viewer {
        Viewer::Side(s) => Some(if s == "royal" { ROYAL } else { PARL }),
        _ => None,
    };
    let mut out = Vec::new();
    for op in v["effects"].as_array().into_iter().flatten() {
        let p = op["p"].as_str().unwrap_or("").to_string();
        assert!(
            !(p == "/deck" || p.starts_with("/deck/") || p == "/pack" || p.starts_with("/pack/")),
            "{viewer:?} sees {p}"
        );
        assert!(p != "/salt", "{viewer:?} sees the shuffle key");
        let seg: Vec<&str> = p.split('/').collect();
        if seg.len() >= 4 && seg[1] == "sides" && matches!(seg[3], "hand" | "scout" | "track") {
            let i: usize = seg[2].parse().expect("side index");
            assert_eq!(Some(i), own, "{viewer:?} sees {p}");
        }
        out.push(p);
    }
    out
}

#[test]
fn view_event_hides_the_other_sides_hand_and_the_deal_draws() {
    let mut g = dealt(3);
    let e = engine(&g);
    let deal = last_event(&g);
    assert!(!deal.draws.is_empty(), "the deal draws the shuffle key");
    let viewers = [
        Viewer::Side("royal".into()),
        Viewer::Side("parl".into()),
        Viewer::GameMaster,
        Viewer::Spectator,
    ];
    for viewer in &viewers {
        let v = e
            .view_event(&serde_json::to_value(&deal).expect("event"), viewer)
            .expect("shown");
        assert_eq!(v["draws"], json!([]), "{viewer:?}");
        seen_paths(e.as_ref(), &deal, viewer);
    }
    // Each side sees its own hand dealt, and only its own.
    let royal = seen_paths(e.as_ref(), &deal, &Viewer::Side("royal".into()));
    assert!(
        royal.iter().any(|p| p.starts_with("/sides/0/hand")),
        "{royal:?}"
    );
    let parl = seen_paths(e.as_ref(), &deal, &Viewer::Side("parl".into()));
    assert!(
        parl.iter().any(|p| p.starts_with("/sides/1/hand")),
        "{parl:?}"
    );
    let gm = seen_paths(e.as_ref(), &deal, &Viewer::GameMaster);
    assert!(!gm.iter().any(|p| p.contains("/hand")), "{gm:?}");

    // A card played and the draw at the end of the turn.
    deal_hand(&mut g, ROYAL, &["probe-centre"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    let play = last_event(&g);
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(&mut g, json!({"action": "end_turn"}));
    let draw = last_event(&g);
    for ev in [&play, &draw] {
        for viewer in &viewers {
            seen_paths(e.as_ref(), ev, viewer);
        }
    }
    let royal = seen_paths(e.as_ref(), &draw, &Viewer::Side("royal".into()));
    assert!(
        royal.iter().any(|p| p.starts_with("/sides/0/hand")),
        "{royal:?}"
    );
    let parl = seen_paths(e.as_ref(), &draw, &Viewer::Side("parl".into()));
    assert!(
        !parl.iter().any(|p| p.starts_with("/sides/0/hand")),
        "{parl:?}"
    );
}

#[test]
fn decisions_55_and_47_command_excludes_the_track_and_section_limits_hold() {
    let mut g = dealt(4);
    give(
        &mut g,
        ROYAL,
        &[
            "assault-centre",
            "probe-left",
            "probe-right",
            "attack-left",
            "attack-right",
        ],
    );
    // One card on the Stand of Pikes track, held by c6.
    let mut deck = nums(&g.state["deck"]);
    let t = deck.remove(0);
    g.state["deck"] = json!(deck);
    g.state["deck_count"] = json!(deck.len());
    g.state["sides"][ROYAL]["track"] = json!([[t, "c6"]]);
    let i = unit_index(&g, "c6");
    g.state["units"][i]["stand"] = json!(true);
    cards_accounted(&g.state);
    act(&mut g, json!({"action": "play", "card": "assault-centre"}));
    assert_eq!(g.state["phase"], "orders");
    assert_eq!(g.state["card"]["limits"], json!([null, 5, null]));
    for u in ["c1", "c2", "c3", "c4", "c5"] {
        act(&mut g, json!({"action": "order", "unit": u}));
    }
    let (code, field) = refused(&mut g, json!({"action": "order", "unit": "c6"}));
    assert_eq!(code, "card-limit");
    assert_eq!(field.as_deref(), Some("unit"));
    // A unit outside the centre is not this card's.
    let (code, _) = refused(&mut g, json!({"action": "order", "unit": "l1"}));
    assert_eq!(code, "wrong-section");

    // Probe Center: two in the centre, a third refused (decision 47).
    let mut g = dealt(4);
    deal_hand(&mut g, ROYAL, &["probe-centre"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(&mut g, json!({"action": "order", "unit": "c2"}));
    let (code, field) = refused(&mut g, json!({"action": "order", "unit": "c3"}));
    assert_eq!(code, "card-limit");
    assert_eq!(field.as_deref(), Some("unit"));
    // One order per unit.
    let mut g = dealt(4);
    deal_hand(&mut g, ROYAL, &["attack-centre"]);
    act(&mut g, json!({"action": "play", "card": "attack-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    let (code, _) = refused(&mut g, json!({"action": "order", "unit": "c1"}));
    assert_eq!(code, "already-ordered");
}

#[test]
fn decision_9_counter_attack_copies_with_flanks_swapped_or_orders_one_unit() {
    let mut g = dealt(5);
    deal_hand(&mut g, ROYAL, &["probe-left"]);
    act(&mut g, json!({"action": "play", "card": "probe-left"}));
    act(&mut g, json!({"action": "order", "unit": "l1"}));
    act(&mut g, json!({"action": "end_turn"}));
    assert_eq!(g.state["sides"][ROYAL]["last_card"], "probe-left");
    assert_eq!(g.state["active"], PARL);
    deal_hand(&mut g, PARL, &["counter-attack"]);
    act(&mut g, json!({"action": "play", "card": "counter-attack"}));
    assert_eq!(g.state["card"]["effective"], "probe-left");
    assert_eq!(g.state["card"]["limits"], json!([null, null, 2]));
    let (code, _) = refused(&mut g, json!({"action": "order", "unit": "p6"}));
    assert_eq!(
        code, "wrong-section",
        "the copier's left flank orders nothing"
    );
    act(&mut g, json!({"action": "order", "unit": "p4"}));
    act(&mut g, json!({"action": "order", "unit": "p5"}));
    let (code, _) = refused(&mut g, json!({"action": "order", "unit": "p8"}));
    assert_eq!(code, "card-limit");

    // Nothing to copy (the game's first turn): 1 unit or leader of the player's choice.
    let mut g = dealt(5);
    deal_hand(&mut g, ROYAL, &["counter-attack"]);
    act(&mut g, json!({"action": "play", "card": "counter-attack"}));
    assert!(g.state["card"]["limits"].is_null());
    act(&mut g, json!({"action": "order", "unit": "ga1"}));
    let (code, _) = refused(&mut g, json!({"action": "order", "unit": "c1"}));
    assert_eq!(code, "card-limit");

    // Copying a Hazzard a Chaunce used to order: 1 unit of choice too.
    let mut g = dealt(5);
    deal_hand(&mut g, ROYAL, &["hazzard-a-chaunce"]);
    act(
        &mut g,
        json!({"action": "play", "card": "hazzard-a-chaunce", "mode": "order"}),
    );
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(&mut g, json!({"action": "end_turn"}));
    deal_hand(&mut g, PARL, &["counter-attack"]);
    act(&mut g, json!({"action": "play", "card": "counter-attack"}));
    assert!(g.state["card"]["limits"].is_null());
    act(&mut g, json!({"action": "order", "unit": "p6"}));
    let (code, _) = refused(&mut g, json!({"action": "order", "unit": "p1"}));
    assert_eq!(code, "card-limit");
}

#[test]
fn decision_2_presented_chaunce_is_taken_before_any_card_and_decision_13_presenter_draws() {
    let mut g = dealt(6);
    deal_hand(&mut g, ROYAL, &["hazzard-a-chaunce"]);
    pack_top(&mut g, "false-alarum");
    let parl_before = hand(&g, PARL);
    act(
        &mut g,
        json!({"action": "play", "card": "hazzard-a-chaunce", "mode": "present"}),
    );
    assert_eq!(g.state["active"], PARL);
    assert_eq!(g.state["phase"], "chaunce");
    assert_eq!(g.state["sides"][PARL]["chaunce_due"], 1);
    // The presenter still draws his card (decision 13).
    assert_eq!(hand(&g, ROYAL).len(), 6);
    let card = command_kind(parl_before[0]).id;
    let (code, field) = refused(&mut g, json!({"action": "play", "card": card}));
    assert_eq!(code, "out-of-phase");
    assert_eq!(field.as_deref(), Some("action"));
    let (code, _) = refused(&mut g, json!({"action": "end_turn"}));
    assert_eq!(code, "out-of-phase");
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["sides"][PARL]["chaunce_due"], 0);
    assert_eq!(
        g.state["phase"], "command",
        "False Alarum: the turn goes on"
    );
    let pd = nums(&g.state["pack_discard"]);
    assert_eq!(pd.len(), 1);
    assert_eq!(chaunce_of(pd[0]).id, "false-alarum");
    assert_eq!(g.state["pack_count"], 44);
    assert_eq!(
        hand(&g, PARL),
        parl_before,
        "taking a Chaunce card leaves the hand"
    );
    act(&mut g, json!({"action": "play", "card": card}));
    assert_ne!(g.state["phase"], "chaunce");
    cards_accounted(&g.state);
}

#[test]
fn decision_10_scout_draws_a_secret_pair_and_keeps_one() {
    let mut g = dealt(7);
    deal_hand(&mut g, ROYAL, &["scout-centre"]);
    let discard_before = nums(&g.state["discard"]).len();
    act(&mut g, json!({"action": "play", "card": "scout-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(&mut g, json!({"action": "end_turn"}));
    assert_eq!(g.state["phase"], "scout");
    assert_eq!(g.state["active"], ROYAL);
    let pair = nums(&g.state["sides"][ROYAL]["scout"]);
    assert_eq!(pair.len(), 2);
    assert_eq!(hand(&g, ROYAL).len(), 5);
    cards_accounted(&g.state);
    // The pair is secret to its side.
    let v = engine(&g).view_state(&g.state, &Viewer::Side("parl".into()));
    assert_eq!(nums(&v["sides"][ROYAL]["scout"]), vec![255, 255]);
    let v = engine(&g).view_state(&g.state, &Viewer::Side("royal".into()));
    assert_eq!(nums(&v["sides"][ROYAL]["scout"]), pair);
    // Keep the second.
    let keep = command_kind(pair[1]).id;
    act(&mut g, json!({"action": "keep", "card": keep}));
    let h = hand(&g, ROYAL);
    assert_eq!(h.len(), 6, "back to the hand limit");
    let discard = nums(&g.state["discard"]);
    assert_eq!(
        discard.len(),
        discard_before + 2,
        "the Scout and the card not kept"
    );
    assert_eq!(command_kind(discard[discard.len() - 2]).id, "scout-centre");
    // The card dropped is the one not kept (or, when both are the same kind, the second).
    let kept_first = command_kind(pair[0]).id == keep;
    let (kept, dropped) = if kept_first {
        (pair[0], pair[1])
    } else {
        (pair[1], pair[0])
    };
    assert!(h.contains(&kept));
    assert_eq!(*discard.last().expect("discard"), dropped);
    assert_eq!(nums(&g.state["sides"][ROYAL]["scout"]), Vec::<u8>::new());
    assert_eq!(g.state["active"], PARL);
    assert_eq!(g.state["phase"], "command");
    // Another side's view of the keep hides which card was kept.
    let ev = serde_json::to_value(last_event(&g)).expect("event");
    let v = engine(&g)
        .view_event(&ev, &Viewer::Side("parl".into()))
        .expect("shown");
    assert_eq!(v["action"]["card"], "(hidden)");
    cards_accounted(&g.state);
}

#[test]
fn decisions_11_and_12_undo_of_a_draw_then_the_same_draw_again() {
    // No state edited by hand here: the undo refolds the log.
    let mut g = dealt(8);
    let avoid = [
        "evade",
        "scout-left",
        "scout-centre",
        "scout-right",
        "rallye",
        "lord-is-with-us",
    ];
    let card = kinds(&hand(&g, ROYAL))
        .into_iter()
        .find(|k| !avoid.contains(k))
        .expect("a playable card");
    act(&mut g, json!({"action": "play", "card": card}));
    assert_eq!(g.state["phase"], "orders", "{card}");
    let before = hand(&g, ROYAL);
    act(&mut g, json!({"action": "end_turn"}));
    let drawn = hand(&g, ROYAL);
    let deck = nums(&g.state["deck"]);
    assert_eq!(drawn.len(), 6);
    assert_eq!(&drawn[..5], &before[..]);
    g.undo().expect("undo");
    assert_eq!(hand(&g, ROYAL), before);
    assert_eq!(g.state["phase"], "orders");
    act(&mut g, json!({"action": "end_turn"}));
    assert_eq!(hand(&g, ROYAL), drawn, "the redo draws the same card");
    assert_eq!(nums(&g.state["deck"]), deck);
    g.replay().expect("the log replays");
}

#[test]
fn evade_no_dice_card_discarded_and_the_defender_draws_first() {
    let mut g = dealt(9);
    deal_hand(&mut g, ROYAL, &["probe-centre"]);
    deal_hand(&mut g, PARL, &["evade"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
    );
    assert_eq!(g.state["phase"], "window");
    let evade = hand(&g, PARL)[0];
    act(&mut g, json!({"action": "respond", "response": "evade"}));
    let ev = last_event(&g);
    assert!(
        ev.draws.is_empty(),
        "the attacker rolls no dice: {:?}",
        ev.draws
    );
    assert_eq!(g.state["phase"], "orders");
    assert_eq!(*nums(&g.state["discard"]).last().expect("discard"), evade);
    assert_eq!(hand(&g, PARL).len(), 3);
    assert!(!hand(&g, PARL).contains(&evade));
    assert_eq!(unit(&g, "p1")["blocks"], 4);
    assert_eq!(unit(&g, "c1")["blocks"], 4, "no battle back");
    assert_eq!(g.state["sides"][PARL]["evade_draw"], 1);
    // The draw: the defender first (the deck's top card), then the active side.
    let deck = nums(&g.state["deck"]);
    let (top, next) = (deck[deck.len() - 1], deck[deck.len() - 2]);
    act(&mut g, json!({"action": "end_turn"}));
    let p = hand(&g, PARL);
    let r = hand(&g, ROYAL);
    assert_eq!(p.len(), 4, "back to its limit");
    assert_eq!(r.len(), 6);
    assert_eq!(*p.last().expect("hand"), top, "the defender draws first");
    assert_eq!(*r.last().expect("hand"), next);
    assert_eq!(g.state["sides"][PARL]["evade_draw"], 0);
    cards_accounted(&g.state);
}

#[test]
fn decision_26_stand_of_pikes_takes_a_card_caps_the_dice_and_returns_the_card() {
    let mut g = dealt(10);
    deal_hand(&mut g, ROYAL, &["probe-right"]);
    deal_hand(&mut g, PARL, &["probe-centre"]);
    let parl_hand = hand(&g, PARL);
    act(&mut g, json!({"action": "play", "card": "probe-right"}));
    act(&mut g, json!({"action": "order", "unit": "ga2"}));
    act(&mut g, json!({"action": "order", "unit": "ga3"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga2", "target": "p1"}),
    );
    assert_eq!(g.state["phase"], "window");
    // The odds: a galloper (3 + 1 dice) against the Stand rolls 1 die; a hit or a flag that
    // cannot be taken costs a block: 4/6 (design 9.2, example 8).
    let respond = json!({"action": "respond", "response": "stand-of-pikes"});
    close(
        preview_p(&g, respond.clone(), &g.state, "Melee: blocks lost", "1"),
        4.0 / 6.0,
    );
    close(
        preview_p(&g, respond.clone(), &g.state, "Melee: blocks lost", "0"),
        2.0 / 6.0,
    );
    // The card goes to the track by the game's own dice: faces typed at the table are refused
    // (they would let the defender choose the card).
    let e = g
        .act_entered(respond.clone(), &[2, 3, 1])
        .expect_err("typed faces refused");
    assert!(e.to_string().contains("seeded-only"), "{e}");
    act(&mut g, respond);
    let ev = last_event(&g);
    let melee = ev
        .resolution
        .steps
        .iter()
        .find(|s| s.title.starts_with("Melee:"))
        .expect("the melee step");
    assert_eq!(
        melee.dice.len(),
        1,
        "at most 1 die against a Stand of Pikes"
    );
    let back = ev
        .resolution
        .steps
        .iter()
        .find(|s| s.title.starts_with("Battle back:"))
        .expect("the battle back step");
    assert_eq!(
        back.dice.len(),
        1,
        "a Stand of Pikes battles back with 1 die"
    );
    assert_eq!(unit(&g, "p1")["stand"], true);
    // One die can cost one block at most (a hit, or a flag it cannot retreat).
    let b = unit(&g, "p1")["blocks"].as_u64().expect("blocks");
    assert!((3..=4).contains(&b), "{b}");
    let track = g.state["sides"][PARL]["track"].clone();
    let on_track = track[0][0].as_u64().expect("a card") as u8;
    assert_eq!(track[0][1], "p1");
    assert_eq!(track.as_array().map(Vec::len), Some(1));
    let at = parl_hand
        .iter()
        .position(|&c| c == on_track)
        .expect("from the hand");
    let mut left = parl_hand.clone();
    left.remove(at);
    assert_eq!(hand(&g, PARL), left);
    cards_accounted(&g.state);

    // The second galloper attacks the Stand, now 1 block: 1 die; a Sabre (trained horse score
    // sabres) eliminates it, and the track's card returns to the hand.
    let i = unit_index(&g, "p1");
    g.state["units"][i]["blocks"] = json!(1);
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga3", "target": "p1"}),
    );
    let none = json!({"action": "respond", "response": "none"});
    close(
        preview_p(&g, none.clone(), &g.state, "Melee: eliminated", "yes"),
        4.0 / 6.0,
    );
    act_entered(&mut g, none, &[5]);
    let ev = last_event(&g);
    let melee = ev
        .resolution
        .steps
        .iter()
        .find(|s| s.title.starts_with("Melee:"))
        .expect("the melee step");
    assert_eq!(melee.dice.len(), 1);
    assert!(unit(&g, "p1")["gone"].is_string(), "{}", unit(&g, "p1"));
    assert_eq!(unit(&g, "p1")["stand"], false);
    assert_eq!(g.state["sides"][PARL]["track"], json!([]));
    let mut back = hand(&g, PARL);
    back.sort_unstable();
    let mut all = parl_hand.clone();
    all.sort_unstable();
    assert_eq!(back, all, "the card returns to the hand");
    assert_eq!(g.state["sides"][ROYAL]["banners"], 1);
    cards_accounted(&g.state);
}

#[test]
fn design_9_2_example_1_through_the_game() {
    let mut g = dealt(11);
    deal_hand(&mut g, ROYAL, &["probe-centre"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    let melee = json!({"action": "melee", "unit": "c1", "target": "p1"});
    let p = |facet: &str, v: &str| preview_p(&g, melee.clone(), &g.state, facet, v);
    close(p("Melee: eliminated", "yes"), 3.0 / 16.0);
    close(p("Melee: blocks lost", "0"), 1.0 / 32.0);
    close(p("Melee: blocks lost", "2"), 10.0 / 32.0);
    // 1c: the battle back when the defender holds: the attacker loses at least one block 53/243.
    let bb: f64 = ["1", "2", "3", "4", "5"]
        .iter()
        .map(|v| p("Battle back: blocks lost", v))
        .sum();
    close(bb, 53.0 / 243.0);
    // The preview records nothing.
    assert_eq!(g.state["phase"], "orders");
}

#[test]
fn decision_23_control_roll_one_third_alone_one_half_with_a_leader() {
    let mut g = dealt(12);
    deal_hand(&mut g, ROYAL, &["probe-right"]);
    act(&mut g, json!({"action": "play", "card": "probe-right"}));
    act(&mut g, json!({"action": "order", "unit": "ga1"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga1", "target": "p1"}),
    );
    let none = json!({"action": "respond", "response": "none"});
    // A rash galloper: 3 blocks + 1 first round + 1 rash = 5 dice.
    let dice = g
        .needed(&none, &[])
        .expect("dice")
        .expect("some dice")
        .len();
    assert_eq!(dice, 5);
    // One flag and four Cavalry faces (misses on foot): the foot retreats, a melee victory.
    act_entered(&mut g, none, &flag_then_misses(dice, 3));
    assert_eq!(unit(&g, "p1")["blocks"], 4);
    assert_eq!(g.state["chase"]["unit"], "ga1");
    assert_eq!(g.state["chase"]["compelled"], true);
    // Out of control: the turn cannot end before the bonus melee, a control roll or a stop.
    let (code, _) = refused(&mut g, json!({"action": "end_turn"}));
    assert_eq!(code, "rash-compelled");
    let control = json!({"action": "control", "unit": "ga1"});
    close(
        preview_p(&g, control.clone(), &g.state, "control gained", "yes"),
        1.0 / 3.0,
    );
    let mut led = g.state.clone();
    let k = leader_index(&g, "king");
    led["leaders"][k]["unit"] = json!("ga1");
    close(
        preview_p(&g, control.clone(), &led, "control gained", "yes"),
        1.0 / 2.0,
    );
    // Roll it: a Flag brings it under control.
    act_entered(&mut g, control, &[6]);
    assert_eq!(g.state["chase"]["compelled"], false);
    act(&mut g, json!({"action": "end_turn"}));
}

#[test]
fn decision_33_st_swithun_stops_fire_for_four_player_turns() {
    let mut g = dealt(13);
    deal_hand(&mut g, ROYAL, &["hazzard-a-chaunce"]);
    pack_top(&mut g, "st-swithun");
    act(
        &mut g,
        json!({"action": "play", "card": "hazzard-a-chaunce", "mode": "present"}),
    );
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["rain"], 4);
    assert_eq!(g.state["phase"], "command");
    // Turns t (Parliament, drawing) to t+3: no ranged combat; t+4: fire again.
    for k in 0..5 {
        let side = g.state["active"].as_u64().expect("active") as usize;
        assert_eq!(side, if k % 2 == 0 { PARL } else { ROYAL });
        let (shooter, target) = if side == PARL {
            ("p1", "c1")
        } else {
            ("c1", "p1")
        };
        deal_hand(&mut g, side, &["probe-centre"]);
        act(&mut g, json!({"action": "play", "card": "probe-centre"}));
        act(&mut g, json!({"action": "order", "unit": shooter}));
        let fire = json!({"action": "fire", "unit": shooter, "target": target, "range": 2});
        if k < 4 {
            let (code, _) = refused(&mut g, fire);
            assert_eq!(code, "rain", "player-turn t+{k}");
        } else {
            act(&mut g, fire);
            assert!(
                last_event(&g).draws.len() == 3,
                "{:?}",
                last_event(&g).draws
            );
        }
        act(&mut g, json!({"action": "end_turn"}));
    }
    assert_eq!(g.state["rain"], 0);

    // And directly: any rain left refuses fire.
    let mut g = dealt(13);
    deal_hand(&mut g, ROYAL, &["probe-centre"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    g.state["rain"] = json!(1);
    let (code, field) = refused(
        &mut g,
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2}),
    );
    assert_eq!(code, "rain");
    assert_eq!(field.as_deref(), Some("action"));
}

#[test]
fn decision_44_the_game_master_plays_no_card_per_seat() {
    let g = dealt(14);
    let e = engine(&g);
    let play = json!({"action": "play", "card": "probe-centre"});
    let r = e.game_master_may(&g.state, &play).expect_err("per seat");
    assert_eq!(r.code, "hand-is-secret");
    for a in [
        json!({"action": "end_turn"}),
        json!({"action": "objective", "side": "royal"}),
    ] {
        assert!(e.game_master_may(&g.state, &a).is_ok(), "{a}");
    }
    let mut g = new_game("", 14);
    act(&mut g, json!({"action": "deal", "hands": "single-device"}));
    assert!(engine(&g).game_master_may(&g.state, &play).is_ok());
    let mut g = new_game("", 14);
    act(
        &mut g,
        json!({"action": "deal", "referee_sees_hands": true}),
    );
    assert!(engine(&g).game_master_may(&g.state, &play).is_ok());
    let v = engine(&g).view_state(&g.state, &Viewer::GameMaster);
    assert_eq!(nums(&v["sides"][PARL]["hand"]).len(), 5);
}

#[test]
fn decision_42_too_many_veterans_rejected_at_the_flags() {
    let src = r#"ruleset = "commands-colors-ecw"
title = "Too many veterans"

[[sides]]
id = "royal"
name = "Royalists"
role = "attacker"

[[sides]]
id = "parl"
name = "Parliament"
role = "defender"

[[leaders]]
id = "king"
name = "The King"
side = "royal"
rank = "army"

[[leaders]]
id = "essex"
name = "Essex"
side = "parl"
rank = "army"

[[units]]
id = "f1"
name = "F1"
side = "royal"
type = "foot"
blocks = 3
leader = "king"
flags = ["centre", "veteran"]

[[units]]
id = "f2"
name = "F2"
side = "royal"
type = "foot"
blocks = 3
leader = "king"
flags = ["centre"]

[[units]]
id = "f3"
name = "F3"
side = "royal"
type = "foot"
blocks = 3
leader = "king"
flags = ["left"]

[[units]]
id = "f4"
name = "F4"
side = "royal"
type = "foot"
blocks = 3
leader = "king"
flags = ["right"]

[[units]]
id = "f5"
name = "F5"
side = "royal"
type = "foot"
blocks = 3
leader = "king"
   flags = ["right", "veteran"]

[[units]]
id = "p1"
name = "P1"
side = "parl"
type = "foot"
blocks = 3
leader = "essex"
flags = ["centre"]
"#;
    let d = parse("vets.toml", src).expect_err("two veterans of five foot");
    assert_eq!(d.len(), 1, "{d:?}");
    let x = &d[0];
    assert!(x.field.ends_with(".flags"), "{}", x.field);
    assert!(x.field.starts_with("units[4]"), "{}", x.field);
    let message = localize(Lang::En, &x.message);
    assert!(message.contains("veteran foot units"), "{message}");
    // The fifth unit's flags: line of `   flags = ["right", "veteran"]`, column of its `[`.
    let line = src
        .lines()
        .position(|l| l.contains(r#"["right", "veteran"]"#))
        .expect("line")
        + 1;
    assert_eq!(x.line, line);
    assert_eq!(x.column, 12);
    // One veteran of five is within the cap.
    let ok = src.replace(r#"["right", "veteran"]"#, r#"["right"]"#);
    assert!(parse("vets.toml", &ok).is_ok());
}

#[test]
fn victory_by_objective_banners_ends_the_game() {
    let mut g = dealt(16);
    act(
        &mut g,
        json!({"action": "objective", "side": "royal", "banners": 3, "hex": "Kineton"}),
    );
    assert_eq!(g.state["sides"][ROYAL]["banners"], 3);
    assert_ne!(g.state["phase"], "over");
    assert!(g.state["winner"].is_null());
    act(
        &mut g,
        json!({"action": "objective", "side": "royal", "banners": 3, "hex": "Kineton"}),
    );
    assert_eq!(g.state["sides"][ROYAL]["banners"], 6);
    assert_eq!(g.state["phase"], "over");
    assert_eq!(g.state["winner"], ROYAL);
    for a in [
        json!({"action": "end_turn"}),
        json!({"action": "play", "card": "probe-centre"}),
        json!({"action": "draw_chaunce"}),
    ] {
        let (code, field) = refused(&mut g, a);
        assert_eq!(code, "game-over");
        assert_eq!(field.as_deref(), Some("action"));
    }
    // A decided battle keeps its secrets until the game master ends the game (an undo could
    // take the last banner back); the shell then shows everything with the seed.
    let v = engine(&g).view_state(&g.state, &Viewer::Spectator);
    assert!(nums(&v["sides"][PARL]["hand"]).is_empty());
    assert_eq!(v["sides"][PARL]["hidden"], 4);
    assert_eq!(v["salt"], 0);
}

#[test]
fn a_refused_action_records_nothing_and_names_its_field() {
    let mut g = new_game("", 17);
    let (code, field) = refused(&mut g, json!({"action": "play", "card": "probe-centre"}));
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("not-dealt", Some("action"))
    );
    act(&mut g, json!({"action": "deal"}));
    deal_hand(&mut g, ROYAL, &["probe-centre"]);
    for (a, code, field) in [
        (
            json!({"action": "play", "card": "push"}),
            "not-in-hand",
            "card",
        ),
        (
            json!({"action": "play", "card": "no-such-card"}),
            "unknown-card",
            "card",
        ),
        (json!({"action": "play"}), "missing-field", "card"),
        (
            json!({"action": "order", "unit": "c1"}),
            "out-of-phase",
            "action",
        ),
        (json!({"action": "deal"}), "out-of-phase", "action"),
        (json!({"action": "fly"}), "unknown-action", "action"),
        (
            json!({"action": "deal", "hands": "telepathy"}),
            "out-of-phase",
            "action",
        ),
    ] {
        let (c, f) = refused(&mut g, a.clone());
        assert_eq!((c.as_str(), f.as_deref()), (code, Some(field)), "{a}");
    }
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    for (a, code, field) in [
        (
            json!({"action": "order", "unit": "nobody"}),
            "no-such-unit",
            "unit",
        ),
        (
            json!({"action": "order", "unit": "p1"}),
            "not-yours",
            "unit",
        ),
        (
            json!({"action": "order", "unit": "c2", "section": "middle"}),
            "bad-choice",
            "section",
        ),
        (
            json!({"action": "fire", "unit": "c1", "target": "p1"}),
            "missing-field",
            "range",
        ),
        (
            json!({"action": "fire", "unit": "c1", "target": "p1", "range": 3}),
            "out-of-range",
            "range",
        ),
        (
            json!({"action": "fire", "unit": "c1", "target": "nobody", "range": 2}),
            "no-such-target",
            "target",
        ),
        (
            json!({"action": "fire", "unit": "c2", "target": "p1", "range": 2}),
            "not-ordered",
            "unit",
        ),
        (
            json!({"action": "move", "unit": "c1", "hexes": 2}),
            "too-far",
            "hexes",
        ),
        (
            json!({"action": "melee", "unit": "c1", "target": "p1", "terrain": 9}),
            "bad-number",
            "terrain",
        ),
        (
            json!({"action": "respond", "response": "evade"}),
            "out-of-phase",
            "action",
        ),
    ] {
        let (c, f) = refused(&mut g, a.clone());
        assert_eq!((c.as_str(), f.as_deref()), (code, Some(field)), "{a}");
    }
    // The deal with an unknown hands mode, before the deal.
    let mut g = new_game("", 17);
    let (c, f) = refused(&mut g, json!({"action": "deal", "hands": "telepathy"}));
    assert_eq!((c.as_str(), f.as_deref()), ("bad-choice", Some("hands")));
    assert!(g.log.entries().is_empty());
}

/// The number of battle dice the next throw of `a` needs.
fn dice_needed(g: &Game, a: &Value) -> usize {
    g.needed(a, &[])
        .unwrap_or_else(|e| panic!("{a}: {e}"))
        .map_or(0, |d| d.len())
}

/// A victory for the attacker: one Flag, the rest `miss` faces.
fn flag_then_misses(n: usize, miss: u8) -> Vec<u8> {
    let mut f = vec![6u8];
    f.extend(std::iter::repeat_n(miss, n.saturating_sub(1)));
    f
}

#[test]
fn design_6_2_push_adds_one_die_to_the_first_melee() {
    let mut g = dealt(18);
    deal_hand(&mut g, ROYAL, &["push"]);
    act(&mut g, json!({"action": "play", "card": "push"}));
    act(
        &mut g,
        json!({"action": "order", "unit": "c1", "adjacent_enemy": true}),
    );
    act(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
    );
    // Trained foot with pikes, 4 blocks: 4 + 1 (pikes) + 1 (Push!) = 6 dice.
    let none = json!({"action": "respond", "response": "none"});
    assert_eq!(
        dice_needed(&g, &none),
        6,
        "Push!: melee with 1 additional die (004)"
    );
}

#[test]
fn decision_24_bonus_melee_keeps_charge_of_horse_and_not_push() {
    // Charge of Horse: +1 on every melee of the turn, the bonus melee included.
    let mut g = dealt(19);
    deal_hand(&mut g, ROYAL, &["charge-of-horse"]);
    act(&mut g, json!({"action": "play", "card": "charge-of-horse"}));
    act(&mut g, json!({"action": "order", "unit": "ga2"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga2", "target": "p4"}),
    );
    let none = json!({"action": "respond", "response": "none"});
    let n = dice_needed(&g, &none);
    assert_eq!(n, 5, "3 blocks + 1 galloper + 1 Charge of Horse");
    act_entered(&mut g, none.clone(), &flag_then_misses(n, 1));
    assert_eq!(g.state["chase"]["unit"], "ga2");
    assert_eq!(g.state["chase"]["compelled"], false, "not rash");
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga2", "target": "p5"}),
    );
    assert_eq!(
        dice_needed(&g, &none),
        5,
        "the bonus melee keeps the card's +1"
    );

    // Push!: the bonus melee with its standard number of dice (3 + 1 galloper).
    let mut g = dealt(19);
    deal_hand(&mut g, ROYAL, &["push"]);
    act(&mut g, json!({"action": "play", "card": "push"}));
    act(
        &mut g,
        json!({"action": "order", "unit": "ga2", "adjacent_enemy": true}),
    );
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga2", "target": "p4"}),
    );
    let n = dice_needed(&g, &none);
    act_entered(&mut g, none.clone(), &flag_then_misses(n, 1));
    assert_eq!(g.state["chase"]["unit"], "ga2");
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga2", "target": "p5"}),
    );
    assert_eq!(
        dice_needed(&g, &none),
        4,
        "Push!'s bonus melee: standard dice"
    );
}

/// The Royalists present Hazzard a Chaunce; Parliament takes `card` from the top of the pack.
fn parliament_takes(seed: u64, card: &str) -> Game {
    let mut g = dealt(seed);
    deal_hand(&mut g, ROYAL, &["hazzard-a-chaunce"]);
    pack_top(&mut g, card);
    act(
        &mut g,
        json!({"action": "play", "card": "hazzard-a-chaunce", "mode": "present"}),
    );
    assert_eq!(g.state["phase"], "chaunce");
    g
}

#[test]
fn decision_8_biter_bit_sends_a_chaunce_card_back_and_decision_13_nobody_draws() {
    let mut g = parliament_takes(20, "biter-bit");
    let parl = hand(&g, PARL);
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["phase"], "swap", "replaced, with the swap");
    assert_eq!(g.state["sides"][ROYAL]["chaunce_due"], 1);
    act(&mut g, json!({"action": "swap"}));
    assert_eq!(
        hand(&g, PARL),
        parl,
        "a Chaunce-replaced turn draws nothing"
    );
    assert_eq!(g.state["active"], ROYAL);
    assert_eq!(
        g.state["phase"], "chaunce",
        "the presenter's turn opens with draw_chaunce"
    );
    let (code, _) = refused(&mut g, json!({"action": "play", "card": "attack-centre"}));
    assert_eq!(code, "out-of-phase");
    cards_accounted(&g.state);
}

#[test]
fn decision_3_devils_match_without_artillery_leaves_the_turn_open() {
    let mut g = parliament_takes(21, "devils-match");
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["active"], PARL);
    assert_eq!(g.state["phase"], "command");
    assert!(g.state["chaunce"].is_null());
}

#[test]
fn decision_4_fogge_of_war_new_hand_reshuffle_and_no_swap() {
    let mut g = parliament_takes(22, "fogge-of-war");
    let old = hand(&g, PARL);
    assert!(!nums(&g.state["discard"]).is_empty());
    act(&mut g, json!({"action": "draw_chaunce"}));
    let new = hand(&g, PARL);
    assert_eq!(new.len(), old.len());
    assert!(new.iter().all(|c| !old.contains(c)), "{old:?} {new:?}");
    assert_eq!(
        nums(&g.state["discard"]),
        Vec::<u8>::new(),
        "discards shuffled in"
    );
    assert_eq!(nums(&g.state["deck"]).len(), 72 - 6 - 4);
    assert_eq!(g.state["active"], ROYAL, "no swap: the turn is over");
    assert_eq!(g.state["phase"], "command");
    let (code, _) = refused(&mut g, json!({"action": "swap"}));
    assert_eq!(code, "out-of-phase");
    cards_accounted(&g.state);
}

#[test]
fn decision_7_an_empty_pack_reshuffles_its_discards() {
    let mut g = parliament_takes(23, "false-alarum");
    let all = nums(&g.state["pack"]);
    g.state["pack"] = json!([]);
    g.state["pack_count"] = json!(0);
    g.state["pack_discard"] = json!(all);
    let shuffles = g.state["shuffles"].as_u64().expect("shuffles");
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(nums(&g.state["pack"]).len(), 44);
    assert_eq!(g.state["pack_count"], 44);
    assert_eq!(nums(&g.state["pack_discard"]).len(), 1);
    assert_eq!(g.state["shuffles"].as_u64(), Some(shuffles + 1));
}

#[test]
fn decision_22_rash_galloper_battles_back_with_one_more_and_its_bonus_melee_with_two() {
    // Parliament's foot attacks the rash galloper: its battle back is 3 blocks + 1 rash, no
    // galloper's first-round die.
    let mut g = dealt(24);
    deal_hand(&mut g, ROYAL, &["probe-centre"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(&mut g, json!({"action": "end_turn"}));
    deal_hand(&mut g, PARL, &["probe-right"]);
    act(&mut g, json!({"action": "play", "card": "probe-right"}));
    act(&mut g, json!({"action": "order", "unit": "p5"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "p5", "target": "ga1"}),
    );
    let none = json!({"action": "respond", "response": "none"});
    let n = dice_needed(&g, &none);
    assert_eq!(n, 4, "foot with pikes, 3 blocks: 3 + 1");
    // Infantry faces miss horse: the galloper holds and battles back.
    let misses = vec![1u8; n];
    let back = g
        .needed(&none, &misses)
        .expect("dice")
        .expect("the battle back");
    assert_eq!(back.len(), 4, "rash galloper battle back: blocks + 1");

    // The rash galloper's bonus melee: 3 + 1 galloper + 1 rash.
    let mut g = dealt(24);
    deal_hand(&mut g, ROYAL, &["probe-right"]);
    act(&mut g, json!({"action": "play", "card": "probe-right"}));
    act(&mut g, json!({"action": "order", "unit": "ga1"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga1", "target": "p4"}),
    );
    let n = dice_needed(&g, &none);
    assert_eq!(n, 5);
    act_entered(&mut g, none.clone(), &flag_then_misses(n, 1));
    assert_eq!(g.state["chase"]["compelled"], true);
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga1", "target": "p5"}),
    );
    assert_eq!(dice_needed(&g, &none), 5, "its bonus melee = blocks + 2");
}

#[test]
fn decision_29_the_dizziness_costs_a_card_for_the_rest_of_the_day() {
    let mut g = parliament_takes(25, "the-dizziness");
    let before = hand(&g, PARL);
    assert_eq!(before.len(), 4);
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["phase"], "dizziness");
    // The Royalists pick, unseen.
    let e = engine(&g);
    assert_eq!(
        e.acting_side(&g.state, &json!({"action": "dizzy_pick", "position": 1})),
        Some("royal".to_string())
    );
    let (code, field) = refused(&mut g, json!({"action": "dizzy_pick", "position": 5}));
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("bad-number", Some("position"))
    );
    act(&mut g, json!({"action": "dizzy_pick", "position": 2}));
    let after = hand(&g, PARL);
    assert_eq!(after.len(), 3);
    let gone = *nums(&g.state["discard"]).last().expect("discard");
    assert!(before.contains(&gone) && !after.contains(&gone));
    assert_eq!(g.state["sides"][PARL]["hand_limit"], 3);
    assert_eq!(g.state["phase"], "command", "the turn goes on");
    assert_eq!(g.state["active"], PARL);
    cards_accounted(&g.state);
    // Its next draw brings it back to 3, not 4.
    deal_hand(&mut g, PARL, &["probe-centre"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "p1"}));
    act(&mut g, json!({"action": "end_turn"}));
    assert_eq!(hand(&g, PARL).len(), 3);
    cards_accounted(&g.state);
}

#[test]
fn decision_38_lay_down_your_armes_captor_with_one_block_keeps_it() {
    let mut g = parliament_takes(26, "lay-down-your-armes");
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["phase"], "chaunce-resolve");
    let (code, field) = refused(
        &mut g,
        json!({"action": "resolve_chaunce", "candidates": "c1"}),
    );
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("bad-candidate", Some("candidates"))
    );
    act(
        &mut g,
        json!({"action": "resolve_chaunce", "candidates": "p2"}),
    );
    assert!(unit(&g, "p2")["gone"].is_string());
    assert_eq!(g.state["sides"][ROYAL]["banners"], 1, "decision 28");
    assert_eq!(g.state["phase"], "chaunce-resolve", "the captor next");
    let i = unit_index(&g, "c3");
    g.state["units"][i]["blocks"] = json!(1);
    act(&mut g, json!({"action": "resolve_chaunce", "target": "c3"}));
    assert_eq!(
        unit(&g, "c3")["blocks"],
        1,
        "a 1-block captor keeps its block"
    );
    assert!(unit(&g, "c3")["gone"].is_null());
    assert_eq!(
        g.state["phase"], "swap",
        "the card replaces the turn, with the swap"
    );
    // A 3-block captor loses one.
    let mut g = parliament_takes(26, "lay-down-your-armes");
    act(&mut g, json!({"action": "draw_chaunce"}));
    act(
        &mut g,
        json!({"action": "resolve_chaunce", "candidates": "p2"}),
    );
    act(&mut g, json!({"action": "resolve_chaunce", "target": "c3"}));
    assert_eq!(unit(&g, "c3")["blocks"], 2);
}

#[test]
fn decision_43_the_game_master_may_only_close_a_window_unanswered() {
    let mut g = dealt(21);
    deal_hand(&mut g, ROYAL, &["probe-centre"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
    );
    let e = engine(&g);
    // The game master's view holds no hand: its respond form offers `none` and is not the
    // highlighted step; the defender's own form is.
    let gm_view = e.view_state(&g.state, &Viewer::GameMaster);
    let gm = e.forms(&gm_view, None);
    let f = gm.iter().find(|f| f.action == "respond").expect("respond");
    assert!(!f.primary);
    let opts = match &f.fields[0].kind {
        tercio_rules::FieldKind::Choice { options, .. } => {
            options.iter().map(|o| o.value.clone()).collect::<Vec<_>>()
        }
        _ => Vec::new(),
    };
    assert_eq!(opts, vec!["none".to_string()]);
    let parl_view = e.view_state(&g.state, &Viewer::Side("parl".into()));
    let mine = e.forms(&parl_view, Some("parl"));
    assert!(mine.iter().any(|f| f.action == "respond" && f.primary));
    // The attacker's link has nothing to answer.
    let royal_view = e.view_state(&g.state, &Viewer::Side("royal".into()));
    assert!(!e
        .forms(&royal_view, Some("royal"))
        .iter()
        .any(|f| f.action == "respond"));
    let ok = e.game_master_may(&g.state, &json!({"action": "respond", "response": "none"}));
    assert!(ok.is_ok());
    let no = e.game_master_may(&g.state, &json!({"action": "respond", "response": "evade"}));
    assert_eq!(no.expect_err("hand").code, "hand-is-secret");
}

#[test]
fn a_misspelt_field_is_refused_not_taken_as_no_answer() {
    let mut g = dealt(22);
    deal_hand(&mut g, ROYAL, &["probe-centre"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
    );
    let (code, field) = refused(&mut g, json!({"action": "respond", "evade": true}));
    assert_eq!(code, "unknown-field");
    assert_eq!(field.as_deref(), Some("evade"));
    assert_eq!(g.state["phase"], "window");
}

#[test]
fn hazzard_a_chaunce_must_say_present_or_order() {
    let mut g = dealt(23);
    deal_hand(&mut g, ROYAL, &["hazzard-a-chaunce", "probe-centre"]);
    let (code, field) = refused(
        &mut g,
        json!({"action": "play", "card": "hazzard-a-chaunce"}),
    );
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("bad-choice", Some("mode"))
    );
    let (code, _) = refused(
        &mut g,
        json!({"action": "play", "card": "probe-centre", "mode": "present"}),
    );
    assert_eq!(code, "bad-choice");
    act(
        &mut g,
        json!({"action": "play", "card": "hazzard-a-chaunce", "mode": "order"}),
    );
    assert_eq!(g.state["card"]["effective"], "any-1");
}

#[test]
fn a_form_choice_of_a_number_arrives_as_text_and_is_read() {
    let mut g = dealt(24);
    deal_hand(&mut g, ROYAL, &["probe-centre"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    // "0" as the form sends it: no room, so every flag costs a block.
    let melee = json!({"action": "melee", "unit": "c1", "target": "p1", "target_room": "0"});
    let lost4 = preview_p(&g, melee.clone(), &g.state, "Melee: eliminated", "yes");
    // 5 dice at 1/2 hit, 1/6 flag; a block for each hit or flag: eliminated at 4 or more of
    // 5 dice showing a hit or a flag (2/3 each).
    let p = |k: u32| {
        let c = [1.0, 5.0, 10.0, 10.0, 5.0, 1.0][k as usize];
        c * (2.0f64 / 3.0).powi(k as i32) * (1.0f64 / 3.0).powi(5 - k as i32)
    };
    // The leader-free trained defender ignores no flag.
    close(lost4, p(4) + p(5));
    let (code, field) = refused(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1", "target_room": "lots"}),
    );
    // Not a number at all: refused by the one reading of fields (input.rs), naming the field.
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("bad-field", Some("target_room"))
    );
}

// ------------------------------------------------------------------------------------------------
// Decisions of section 11 through the game: the table's situations, the dice typed at the table
// (faces 1, 2 Infantry, 3 Cavalry, 4 Artillery, 5 Sabre, 6 Flag) or, for the seeded Chaunce
// draws, every outcome of the plan with its exact probability.

/// Every outcome of `a` from the game's state, from the plan's exact leaves: its explanation, the
/// state it leads to, and its probability.
fn leaves(g: &Game, a: &Value) -> Vec<(Outcome, Value, f64)> {
    let e = engine(g);
    let plan = e
        .plan(Some(&g.state), a)
        .unwrap_or_else(|r| panic!("{a}: {r}"));
    let out: Vec<(Outcome, Value, f64)> = plan
        .leaves()
        .into_iter()
        .map(|(o, p)| {
            let mut st = g.state.clone();
            e.apply(&mut st, &o.effects).expect("the effects fold");
            let mut o = o;
            let mut r = serde_json::to_value(&o.resolution).expect("a resolution serialises");
            localize_json(Lang::En, &mut r);
            o.resolution = serde_json::from_value(r).expect("a resolution reads back");
            (o, st, p)
        })
        .collect();
    close(out.iter().map(|x| x.2).sum(), 1.0);
    out
}

/// Set fields of a unit in the state (a test's own army).
fn set(g: &mut Game, id: &str, fields: Value) {
    let i = unit_index(g, id);
    for (k, v) in fields.as_object().expect("fields") {
        assert!(
            g.state["units"][i].get(k).is_some(),
            "no field {k} on a unit"
        );
        g.state["units"][i][k] = v.clone();
    }
}

/// Take every unit of `side` but `keep` off the table.
fn only(g: &mut Game, side: usize, keep: &[&str]) {
    for u in g.state["units"].as_array_mut().expect("units") {
        let id = u["id"].as_str().expect("id").to_string();
        if u["side"] == side && !keep.contains(&id.as_str()) {
            u["gone"] = json!("off the table for the test");
        }
    }
}

/// Attach a leader to a unit.
fn attach(g: &mut Game, leader: &str, unit: &str) {
    let k = leader_index(g, leader);
    g.state["leaders"][k]["unit"] = json!(unit);
}

/// `first`, then `fill` for every further die the action asks for.
fn faces_for(g: &Game, a: &Value, first: &[u8], fill: u8) -> Vec<u8> {
    let mut f = first.to_vec();
    while let Some(more) = g.needed(a, &f).unwrap_or_else(|e| panic!("{a}: {e}")) {
        f.extend(std::iter::repeat_n(fill, more.len()));
    }
    f
}

/// The step of the last event whose title starts with `prefix`.
fn step_of(g: &Game, prefix: &str) -> Option<Step> {
    last_event(g)
        .resolution
        .steps
        .iter()
        .find(|s| s.title.starts_with(prefix))
        .cloned()
}

fn total(s: &Step, name: &str) -> i32 {
    s.totals
        .iter()
        .find(|(k, _)| k == name)
        .unwrap_or_else(|| panic!("no total {name} in {s:?}"))
        .1
}

/// The ids of the units with a Chaunce die bonus in `st`.
fn bonused(st: &Value) -> Vec<String> {
    st["units"]
        .as_array()
        .expect("units")
        .iter()
        .filter(|u| u["chaunce_bonus"] != 0)
        .map(|u| u["id"].as_str().expect("id").to_string())
        .collect()
}

/// The Royalists play a Probe Center and order `units`.
fn probe_centre(g: &mut Game, units: &[&str]) {
    deal_hand(g, ROYAL, &["probe-centre"]);
    act(g, json!({"action": "play", "card": "probe-centre"}));
    for u in units {
        act(g, json!({"action": "order", "unit": u}));
    }
}

/// Put a card from the deck on `side`'s Stand of Pikes track for `unit`, in formation.
fn in_stand(g: &mut Game, side: usize, unit: &str) -> u8 {
    let mut deck = nums(&g.state["deck"]);
    let t = deck.remove(0);
    g.state["deck"] = json!(deck);
    g.state["deck_count"] = json!(deck.len());
    g.state["sides"][side]["track"] = json!([[t, unit]]);
    set(g, unit, json!({"stand": true}));
    cards_accounted(&g.state);
    t
}

const NONE: &str = r#"{"action": "respond", "response": "none"}"#;

fn none() -> Value {
    serde_json::from_str(NONE).expect("json")
}

#[test]
fn decision_5_hot_for_revenge_draws_two_distinct_units_each_pair_one_sixth() {
    let mut g = parliament_takes(30, "hot-for-revenge");
    only(&mut g, PARL, &["p1", "p2", "p3", "p4"]);
    let draw = json!({"action": "draw_chaunce"});
    let mut pairs: BTreeMap<Vec<String>, f64> = BTreeMap::new();
    for (_, st, p) in leaves(&g, &draw) {
        let up = bonused(&st);
        assert_eq!(up.len(), 2, "two distinct units: {up:?}");
        for u in &up {
            assert!(["p1", "p2", "p3", "p4"].contains(&u.as_str()), "{up:?}");
        }
        *pairs.entry(up).or_default() += p;
    }
    assert_eq!(pairs.len(), 6, "{pairs:?}");
    for p in pairs.values() {
        close(*p, 1.0 / 6.0);
    }
    // The seeded draw: two units of the four, +1 each; the turn goes on.
    act(&mut g, draw);
    let up = bonused(&g.state);
    assert_eq!(up.len(), 2, "{up:?}");
    for u in &up {
        assert_eq!(unit(&g, u)["chaunce_bonus"], 1);
    }
    assert_eq!(g.state["phase"], "command");
    assert_eq!(g.state["active"], PARL);
}

#[test]
fn decision_6_exceeding_nervose_draws_uniformly_among_the_tied_units() {
    let mut g = parliament_takes(31, "exceeding-nervose");
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["phase"], "chaunce-resolve");
    for cands in [vec!["p1", "p2"], vec!["p1", "p2", "p3"]] {
        let a = json!({"action": "resolve_chaunce", "candidates": cands.join(", ")});
        let mut by: BTreeMap<String, f64> = BTreeMap::new();
        for (o, st, p) in leaves(&g, &a) {
            let who: Vec<&&str> = cands
                .iter()
                .filter(|x| {
                    o.resolution
                        .summary
                        .contains(&format!("Unit {x} retires 3 hexes"))
                })
                .collect();
            assert_eq!(who.len(), 1, "{}", o.resolution.summary);
            assert_eq!(st["phase"], "swap", "the card replaces the turn");
            *by.entry(who[0].to_string()).or_default() += p;
        }
        assert_eq!(by.len(), cands.len(), "{by:?}");
        for p in by.values() {
            close(*p, 1.0 / cands.len() as f64);
        }
    }
}

#[test]
fn decision_14_raw_foot_with_a_leader_ignores_one_flag_then_doubles_the_rest() {
    let setup = |melee: Value| {
        let mut g = dealt(32);
        set(&mut g, "p1", json!({"training": "raw"}));
        attach(&mut g, "essex", "p1");
        probe_centre(&mut g, &["c1"]);
        act(&mut g, melee);
        g
    };
    let melee = json!({"action": "melee", "unit": "c1", "target": "p1"});
    // Odd hexes never: one flag is ignored, each other flag is 2 hexes.
    let mut before = dealt(32);
    set(&mut before, "p1", json!({"training": "raw"}));
    attach(&mut before, "essex", "p1");
    probe_centre(&mut before, &["c1"]);
    let p = |v: &str| {
        preview_p(
            &before,
            melee.clone(),
            &before.state,
            "Melee: retreat hexes",
            v,
        )
    };
    close(p("1"), 0.0);
    close(p("3"), 0.0);
    assert!(p("2") > 0.0 && p("4") > 0.0);
    let mut g = setup(melee.clone());
    assert_eq!(dice_needed(&g, &none()), 5, "4 blocks + pikes");
    // Two flags (Artillery faces miss foot): one ignored, the other doubled: 2 hexes.
    act_entered(&mut g, none(), &[6, 6, 4, 4, 4]);
    let m = step_of(&g, "Melee:").expect("the melee");
    assert_eq!(total(&m, "flags"), 2);
    assert_eq!(m.result, "0 block(s) lost, 2 hex(es) to retreat");
    assert!(step_of(&g, "Battle back:").is_none(), "it left its hex");
    assert_eq!(unit(&g, "p1")["blocks"], 4);
    // No room: the two hexes cost two blocks.
    let mut g = setup(json!({"action": "melee", "unit": "c1", "target": "p1", "target_room": 0}));
    let f = faces_for(&g, &none(), &[6, 6, 4, 4, 4], 4);
    act_entered(&mut g, none(), &f);
    assert_eq!(unit(&g, "p1")["blocks"], 2);
    // One flag: ignored for the leader; nothing to double: it holds and battles back.
    let mut g = setup(melee);
    let f = faces_for(&g, &none(), &[6, 4, 4, 4, 4], 4);
    act_entered(&mut g, none(), &f);
    let m = step_of(&g, "Melee:").expect("the melee");
    assert_eq!(m.result, "0 block(s) lost, 0 hex(es) to retreat");
    assert!(step_of(&g, "Battle back:").is_some());
}

#[test]
fn decision_15_veteran_with_a_leader_ignores_two_flags_by_default() {
    let mut g = dealt(33);
    set(&mut g, "p1", json!({"training": "veteran"}));
    attach(&mut g, "essex", "p1");
    probe_centre(&mut g, &["c1"]);
    act(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
    );
    let f = faces_for(&g, &none(), &[6, 6, 4, 4, 4], 4);
    assert_eq!(
        f.len(),
        5 + 6,
        "the battle back: 4 blocks + pikes + veteran"
    );
    act_entered(&mut g, none(), &f);
    let m = step_of(&g, "Melee:").expect("the melee");
    assert_eq!(total(&m, "flags"), 2);
    assert_eq!(m.result, "0 block(s) lost, 0 hex(es) to retreat");
    let back = step_of(&g, "Battle back:").expect("it holds and battles back");
    assert_eq!(back.dice.len(), 6);
    assert_eq!(unit(&g, "p1")["blocks"], 4);
    // Three flags: the third one moves it 1 hex.
    let mut g = dealt(33);
    set(&mut g, "p1", json!({"training": "veteran"}));
    attach(&mut g, "essex", "p1");
    probe_centre(&mut g, &["c1"]);
    act(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
    );
    act_entered(&mut g, none(), &[6, 6, 6, 4, 4]);
    let m = step_of(&g, "Melee:").expect("the melee");
    assert_eq!(m.result, "0 block(s) lost, 1 hex(es) to retreat");
    assert!(step_of(&g, "Battle back:").is_none());
}

#[test]
fn decision_16_sabres_never_hit_in_ranged_combat() {
    let mut g = dealt(34);
    probe_centre(&mut g, &["c1", "c2"]);
    let fire = json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2});
    assert_eq!(dice_needed(&g, &fire), 3, "4 blocks − 1 for pikes");
    // Only the Infantry faces (2 of 6) hit foot at range: P(no block lost) = (4/6)^3.
    close(
        preview_p(
            &g,
            fire.clone(),
            &g.state,
            "Ranged combat: blocks lost",
            "0",
        ),
        (4.0f64 / 6.0).powi(3),
    );
    act_entered(&mut g, fire, &[5, 5, 5]);
    let s = step_of(&g, "Ranged combat:").expect("the fire");
    assert_eq!(total(&s, "hits"), 0);
    assert_eq!(unit(&g, "p1")["blocks"], 4);
    // In melee a trained unit's sabre hits foot.
    act(
        &mut g,
        json!({"action": "melee", "unit": "c2", "target": "p1"}),
    );
    let f = faces_for(&g, &none(), &[5, 4, 4, 4, 4], 4);
    act_entered(&mut g, none(), &f);
    let s = step_of(&g, "Melee:").expect("the melee");
    assert_eq!(total(&s, "hits"), 1);
    assert_eq!(unit(&g, "p1")["blocks"], 3);
}

#[test]
fn decision_17_dismounted_dragoons_are_hit_by_cavalry_not_infantry_at_range() {
    let mut g = dealt(35);
    set(
        &mut g,
        "p1",
        json!({"class": "dragoons", "mounted": false, "pikes": false, "blocks": 3, "start_blocks": 3}),
    );
    probe_centre(&mut g, &["c1", "c2"]);
    let fire = json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2});
    // Only the Cavalry face (1 of 6) hits.
    close(
        preview_p(
            &g,
            fire.clone(),
            &g.state,
            "Ranged combat: blocks lost",
            "0",
        ),
        (5.0f64 / 6.0).powi(3),
    );
    act_entered(&mut g, fire, &[1, 2, 1]);
    assert_eq!(unit(&g, "p1")["blocks"], 3, "Infantry faces miss dragoons");
    act_entered(
        &mut g,
        json!({"action": "fire", "unit": "c2", "target": "p1", "range": 2}),
        &[3, 1, 2],
    );
    assert_eq!(unit(&g, "p1")["blocks"], 2, "a Cavalry face hits");
}

#[test]
fn decision_18_veteran_dragoons_halve_then_add() {
    let mut g = dealt(36);
    set(
        &mut g,
        "c1",
        json!({"class": "dragoons", "training": "veteran", "mounted": true, "pikes": false, "blocks": 3, "start_blocks": 3}),
    );
    probe_centre(&mut g, &["c1"]);
    act(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
    );
    assert_eq!(dice_needed(&g, &none()), 3, "ceil(3 / 2) + 1 veteran");
    let f = faces_for(&g, &none(), &[4, 4, 4], 4);
    act_entered(&mut g, none(), &f);
    let m = step_of(&g, "Melee:").expect("the melee");
    assert_eq!(m.dice.len(), 3);
    let mods: Vec<(String, i32)> = m
        .modifiers
        .iter()
        .map(|x| (x.name.clone(), x.value))
        .collect();
    assert_eq!(
        mods,
        vec![
            ("half of 3 blocks, rounded up".to_string(), 2),
            ("veteran".to_string(), 1)
        ]
    );
}

#[test]
fn decision_19_raw_dragoons_retreat_two_hexes_a_flag_and_artillery_takes_no_training() {
    let mut g = dealt(37);
    set(
        &mut g,
        "p1",
        json!({"class": "dragoons", "training": "raw", "mounted": false, "pikes": false, "blocks": 3, "start_blocks": 3}),
    );
    probe_centre(&mut g, &["c1"]);
    act(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
    );
    // One Flag; Infantry faces miss dragoons.
    act_entered(&mut g, none(), &[6, 1, 1, 1, 1]);
    let m = step_of(&g, "Melee:").expect("the melee");
    assert_eq!(m.result, "0 block(s) lost, 2 hex(es) to retreat");
    assert_eq!(unit(&g, "p1")["blocks"], 3);

    // An artillery entry with a training flag is refused at the scenario check.
    let gun = |flags: &str| {
        format!(
            "{}\n[[units]]\nid = \"g1\"\nname = \"Gun\"\nside = \"royal\"\ntype = \"artillery\"\nblocks = 2\nleader = \"king\"\nflags = [{flags}]\n",
            source("")
        )
    };
    for t in ["veteran", "raw", "militia"] {
        let d = parse("gun.toml", &gun(&format!(r#""centre", "{t}""#)))
            .expect_err("artillery takes no training");
        assert!(
            d.iter()
                .any(|x| x.field.starts_with("units[20].flags") && x.message.contains("artillery")),
            "{t}: {d:?}"
        );
    }
    let sc = parse("gun.toml", &gun(r#""centre""#)).unwrap_or_else(|d| panic!("{d:?}"));
    let g = Game::new(sc, 37).expect("game");
    assert_eq!(unit(&g, "g1")["training"], "trained");
}

#[test]
fn decision_20_artillery_fires_a_die_a_block_at_two_to_five_hexes() {
    let mut g = dealt(38);
    set(
        &mut g,
        "c1",
        json!({"class": "artillery", "pikes": false, "blocks": 2, "start_blocks": 2}),
    );
    probe_centre(&mut g, &["c1"]);
    let (code, field) = refused(
        &mut g,
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 1}),
    );
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("out-of-range", Some("range"))
    );
    let (code, _) = refused(
        &mut g,
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 6}),
    );
    assert_eq!(code, "bad-number");
    let (code, _) = refused(
        &mut g,
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
    );
    assert_eq!(code, "no-melee");
    let fire = json!({"action": "fire", "unit": "c1", "target": "p1", "range": 3});
    assert_eq!(dice_needed(&g, &fire), 2);
    act_entered(&mut g, fire, &[1, 4]);
    let s = step_of(&g, "Ranged combat:").expect("the fire");
    assert_eq!(s.dice.len(), 2);
    assert_eq!(unit(&g, "p1")["blocks"], 3);
}

#[test]
fn decision_21_foot_fires_at_one_hex_and_only_at_an_adjacent_enemy_when_adjacent() {
    let mut g = dealt(39);
    probe_centre(&mut g, &["c1", "c2"]);
    let (code, field) = refused(
        &mut g,
        json!({"action": "fire", "unit": "c2", "target": "p1", "range": 2, "adjacent_enemy": true}),
    );
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("adjacent", Some("range"))
    );
    let fire = json!({"action": "fire", "unit": "c1", "target": "p1", "range": 1});
    assert_eq!(dice_needed(&g, &fire), 3);
    act_entered(&mut g, fire, &[1, 4, 4]);
    assert_eq!(unit(&g, "p1")["blocks"], 3);
    act_entered(
        &mut g,
        json!({"action": "fire", "unit": "c2", "target": "p2", "range": 1, "adjacent_enemy": true}),
        &[4, 4, 4],
    );
    assert_eq!(unit(&g, "c2")["fired"], true);
}

#[test]
fn decision_25_raw_trotters_retire_two_hexes_and_dismounted_dragoons_cannot() {
    let setup = |p4: Value| {
        let mut g = dealt(40);
        set(&mut g, "p4", p4);
        probe_centre(&mut g, &["c1"]);
        act(
            &mut g,
            json!({"action": "melee", "unit": "c1", "target": "p4"}),
        );
        g
    };
    let mut g = setup(json!({"training": "raw"}));
    let retire = json!({"action": "respond", "response": "retire"});
    // Only Cavalry faces hit; flags are ignored: never a retreat by flags, never doubled.
    close(
        preview_p(&g, retire.clone(), &g.state, "Melee: blocks lost", "0"),
        (5.0f64 / 6.0).powi(5),
    );
    // Exactly 2 hexes back, not doubled for raw, unless eliminated (0 hexes then).
    let two = preview_p(&g, retire.clone(), &g.state, "Melee: retreat hexes", "2");
    let gone = preview_p(&g, retire.clone(), &g.state, "Melee: eliminated", "yes");
    close(two + gone, 1.0);
    close(
        preview_p(&g, retire.clone(), &g.state, "Melee: retreat hexes", "4"),
        0.0,
    );
    act_entered(&mut g, retire, &[6, 6, 5, 1, 3]);
    let m = step_of(&g, "Melee:").expect("the melee");
    assert_eq!(m.result, "1 block(s) lost; it retires and reforms 2 hexes");
    assert!(step_of(&g, "Battle back:").is_none(), "no battle back");
    assert_eq!(unit(&g, "p4")["blocks"], 2);
    assert!(g.state["chase"].is_null());

    // Dismounted dragoons cannot retire and reform; mounted ones can.
    let mut g = setup(json!({"class": "dragoons", "mounted": false}));
    let (code, field) = refused(&mut g, json!({"action": "respond", "response": "retire"}));
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("bad-response", Some("response"))
    );
    let mut g = setup(json!({"class": "dragoons", "mounted": true}));
    act_entered(
        &mut g,
        json!({"action": "respond", "response": "retire"}),
        &[4, 4, 4, 4, 4],
    );
    assert_eq!(unit(&g, "p4")["blocks"], 3);
}

#[test]
fn decision_27_grimme_reaper_on_a_led_unit_rolls_no_leader_check() {
    let mut g = parliament_takes(41, "grimme-reaper");
    only(&mut g, PARL, &["p1"]);
    attach(&mut g, "essex", "p1");
    let draw = json!({"action": "draw_chaunce"});
    let mut p_kept = 0.0;
    let mut p_gone = 0.0;
    for (o, st, p) in leaves(&g, &draw) {
        assert!(
            !o.resolution
                .steps
                .iter()
                .any(|s| s.title.contains("Leader casualty")),
            "{:?}",
            o.resolution.steps
        );
        let k = leader_index(&g, "essex");
        assert!(st["leaders"][k]["gone"].is_null(), "the leader stays");
        let p1 = st["units"][unit_index(&g, "p1")].clone();
        if p1["blocks"] == 4 {
            p_kept += p;
        }
        if p1["gone"].is_string() {
            p_gone += p;
            assert_eq!(st["sides"][ROYAL]["banners"], 1);
        }
    }
    // One die per block, each Infantry face (2 of 6) a deserter.
    close(p_kept, (2.0f64 / 3.0).powi(4));
    close(p_gone, (1.0f64 / 3.0).powi(4));
    act(&mut g, draw);
    assert!(step_of(&g, "Grimme Reaper:").is_some());
    assert!(step_of(&g, "Leader casualty").is_none());
    assert_eq!(g.state["phase"], "command", "the turn goes on");
}

#[test]
fn decision_27_a_leader_whose_unit_deserts_to_the_last_block_is_left_alone() {
    // Design 13.3: "a surviving leader of an eliminated unit is left alone for the players to
    // place"; O Bugger It and Lay Down Your Armes detach him, and so must Grimme Reaper.
    let mut g = parliament_takes(41, "grimme-reaper");
    only(&mut g, PARL, &["p1"]);
    attach(&mut g, "essex", "p1");
    set(&mut g, "p1", json!({"blocks": 1}));
    let k = leader_index(&g, "essex");
    let mut seen = false;
    for (_, st, _) in leaves(&g, &json!({"action": "draw_chaunce"})) {
        if st["units"][unit_index(&g, "p1")]["gone"].is_string() {
            seen = true;
            assert!(st["leaders"][k]["gone"].is_null());
            assert!(
                st["leaders"][k]["unit"].is_null(),
                "the leader of a unit gone is alone: {}",
                st["leaders"][k]
            );
        }
    }
    assert!(seen);
}

#[test]
fn decision_28_o_bugger_it_gives_the_opponent_a_banner() {
    let mut g = parliament_takes(42, "o-bugger-it");
    set(&mut g, "p3", json!({"training": "raw"}));
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert!(unit(&g, "p3")["gone"].is_string(), "{}", unit(&g, "p3"));
    assert_eq!(g.state["sides"][ROYAL]["banners"], 1);
    assert_eq!(g.state["sides"][PARL]["banners"], 0);
    for u in ["p1", "p2", "p4", "p5"] {
        assert!(unit(&g, u)["gone"].is_null(), "only the raw unit goes home");
    }
    assert_eq!(g.state["phase"], "command", "the turn goes on");
    assert_eq!(g.state["active"], PARL);
}

#[test]
fn decision_30_rallye_returns_no_more_than_the_unit_started_with() {
    let mut g = dealt(43);
    set(&mut g, "c1", json!({"blocks": 3}));
    deal_hand(&mut g, ROYAL, &["rallye"]);
    let play = json!({"action": "play", "card": "rallye"});
    assert_eq!(dice_needed(&g, &play), 6, "dice equal to command");
    act_entered(&mut g, play, &[1, 1, 2, 2, 1, 2]);
    assert_eq!(g.state["card"]["rally"], json!([6, 0, 0]));
    act(&mut g, json!({"action": "rally", "unit": "c1"}));
    assert_eq!(unit(&g, "c1")["blocks"], 4);
    assert_eq!(unit(&g, "c1")["ordered"], true);
    let (code, field) = refused(&mut g, json!({"action": "rally", "unit": "c1"}));
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("full-strength", Some("unit"))
    );
    let (code, _) = refused(&mut g, json!({"action": "rally", "unit": "c3"}));
    assert_eq!(code, "full-strength", "a 3-block unit at 3");
    assert_eq!(g.state["card"]["rally"], json!([5, 0, 0]));
    // An eliminated unit is not rallied.
    set(&mut g, "c2", json!({"blocks": 0, "gone": "eliminated"}));
    let (code, _) = refused(&mut g, json!({"action": "rally", "unit": "c2"}));
    assert_eq!(code, "no-such-unit");
}

#[test]
fn decision_31_a_horse_symbol_rallies_and_orders_dragoons() {
    let mut g = dealt(44);
    set(
        &mut g,
        "ga2",
        json!({"class": "dragoons", "mounted": true, "blocks": 2}),
    );
    set(&mut g, "c1", json!({"blocks": 3}));
    deal_hand(&mut g, ROYAL, &["rallye"]);
    act_entered(
        &mut g,
        json!({"action": "play", "card": "rallye"}),
        &[3, 5, 5, 5, 5, 5],
    );
    assert_eq!(g.state["card"]["rally"], json!([0, 1, 0]));
    let (code, _) = refused(&mut g, json!({"action": "rally", "unit": "c1"}));
    assert_eq!(code, "no-symbol", "a Horse symbol is not a Foot block");
    act(&mut g, json!({"action": "rally", "unit": "ga2"}));
    assert_eq!(unit(&g, "ga2")["blocks"], 3);

    // The Lord Is With Us: a Horse symbol orders the dragoons.
    let mut g = dealt(44);
    set(&mut g, "ga2", json!({"class": "dragoons", "mounted": true}));
    deal_hand(&mut g, ROYAL, &["lord-is-with-us"]);
    act_entered(
        &mut g,
        json!({"action": "play", "card": "lord-is-with-us"}),
        &[3, 5, 5, 5, 5, 5],
    );
    let (code, _) = refused(&mut g, json!({"action": "order", "unit": "c1"}));
    assert_eq!(code, "card-limit");
    act(&mut g, json!({"action": "order", "unit": "ga2"}));
    assert_eq!(unit(&g, "ga2")["ordered"], true);
    assert_eq!(unit(&g, "ga2")["card_bonus"], 1);
}

#[test]
fn decision_32_cuirassiers_under_chickweed_and_soft_going_move_one() {
    let mut g = parliament_takes(45, "chickweed");
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["sides"][PARL]["chickweed"], true);
    assert_eq!(g.state["sides"][ROYAL]["chickweed"], false);
    assert_eq!(g.state["phase"], "command");
    g.state["soft_going"] = json!(true);
    set(&mut g, "p4", json!({"class": "cuirassiers"}));
    deal_hand(&mut g, PARL, &["probe-right"]);
    act(&mut g, json!({"action": "play", "card": "probe-right"}));
    act(&mut g, json!({"action": "order", "unit": "p4"}));
    act(&mut g, json!({"action": "order", "unit": "p5"}));
    let (code, field) = refused(&mut g, json!({"action": "move", "unit": "p4", "hexes": 2}));
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("too-far", Some("hexes"))
    );
    act(&mut g, json!({"action": "move", "unit": "p4", "hexes": 1}));
    assert_eq!(unit(&g, "p4")["moved"], 1);
    // Foot are not mounted: their 1 hex stands.
    act(&mut g, json!({"action": "move", "unit": "p5", "hexes": 1}));
}

#[test]
fn decision_34_bad_powder_without_foot_that_fire_is_ignored() {
    let clubmen = |g: &mut Game, but: &[&str]| {
        for u in ["p1", "p2", "p3", "p5", "p8", "p6", "p7"] {
            if !but.contains(&u) {
                set(
                    g,
                    u,
                    json!({"class": "clubmen", "training": "militia", "pikes": false}),
                );
            }
        }
    };
    let mut g = parliament_takes(46, "bad-powder");
    clubmen(&mut g, &[]);
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert!(
        last_event(&g).resolution.summary.contains("no effect"),
        "{}",
        last_event(&g).resolution.summary
    );
    assert!(g.state["units"]
        .as_array()
        .expect("units")
        .iter()
        .all(|u| u["no_fire_turns"] == 0));
    assert_eq!(g.state["phase"], "command");
    assert_eq!(g.state["active"], PARL);
    // One foot unit left with powder: it is the one.
    let mut g = parliament_takes(46, "bad-powder");
    clubmen(&mut g, &["p5"]);
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(unit(&g, "p5")["no_fire_turns"], 1);
}

#[test]
fn decision_35_going_for_it_with_only_dragoons_is_ignored() {
    let mut g = parliament_takes(47, "going-for-it");
    set(&mut g, "p4", json!({"class": "dragoons", "mounted": true}));
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["phase"], "command", "ignored: the turn goes on");
    assert_eq!(g.state["active"], PARL);
    assert!(g.state["chaunce"].is_null());
    // With a trotter unit it asks for the candidates.
    let mut g = parliament_takes(47, "going-for-it");
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["phase"], "chaunce-resolve");
    let (code, _) = refused(
        &mut g,
        json!({"action": "resolve_chaunce", "candidates": "p5"}),
    );
    assert_eq!(code, "bad-candidate", "foot do not charge");
}

#[test]
fn decision_36_victorye_is_ours_makes_a_cuirassier_rash() {
    let mut g = parliament_takes(48, "victorye-is-ours");
    set(&mut g, "p4", json!({"class": "cuirassiers"}));
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(unit(&g, "p4")["rash"], true);
    assert_eq!(unit(&g, "p4")["class"], "cuirassiers");
    assert_eq!(g.state["phase"], "command");
    deal_hand(&mut g, PARL, &["probe-right"]);
    act(&mut g, json!({"action": "play", "card": "probe-right"}));
    act(&mut g, json!({"action": "order", "unit": "p4"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "p4", "target": "ga2"}),
    );
    assert_eq!(dice_needed(&g, &none()), 4, "3 blocks + 1 rash");
    // A Flag: the galloper retreats; the rash cuirassiers must break through or be controlled.
    act_entered(&mut g, none(), &[6, 1, 1, 1]);
    assert_eq!(g.state["chase"]["unit"], "p4");
    assert_eq!(g.state["chase"]["compelled"], true);
    let (code, _) = refused(&mut g, json!({"action": "end_turn"}));
    assert_eq!(code, "rash-compelled");
}

#[test]
fn decision_37_a_prince_among_sarjeants_on_militia_changes_nothing() {
    let mut g = parliament_takes(49, "prince-among-sarjeants");
    only(&mut g, PARL, &["p1"]);
    set(&mut g, "p1", json!({"training": "militia"}));
    let units = g.state["units"].clone();
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["units"], units);
    assert_eq!(g.state["phase"], "command");
    // A raw unit goes up a step.
    let mut g = parliament_takes(49, "prince-among-sarjeants");
    only(&mut g, PARL, &["p1"]);
    set(&mut g, "p1", json!({"training": "raw"}));
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(unit(&g, "p1")["training"], "trained");
}

#[test]
fn decision_39_friendly_fire_one_block_gun_rolls_one_die_at_the_friend() {
    let mut g = parliament_takes(50, "friendly-fire");
    set(
        &mut g,
        "p3",
        json!({"class": "artillery", "pikes": false, "blocks": 1, "start_blocks": 1}),
    );
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["phase"], "chaunce-resolve");
    let a = json!({"action": "resolve_chaunce", "candidates": "p1"});
    // One die at the foot: an Infantry face (2 of 6) a hit, a Flag a retreat.
    let st = g.state.clone();
    close(
        preview_p(&g, a.clone(), &st, "Friendly Fire: blocks lost", "1"),
        1.0 / 3.0,
    );
    close(
        preview_p(&g, a.clone(), &st, "Friendly Fire: retreat hexes", "1"),
        1.0 / 6.0,
    );
    act(&mut g, a);
    let s = step_of(&g, "Friendly Fire:").expect("the fire");
    assert_eq!(s.dice.len(), 1);
    assert!(
        s.title.contains("Unit p3 rolls 1 dice against Unit p1"),
        "{}",
        s.title
    );
    assert_eq!(g.state["phase"], "swap", "the card replaces the turn");

    // No friendly unit within 5 hexes: the card does not apply; the turn goes on.
    let mut g = parliament_takes(50, "friendly-fire");
    set(
        &mut g,
        "p3",
        json!({"class": "artillery", "pikes": false, "blocks": 1, "start_blocks": 1}),
    );
    act(&mut g, json!({"action": "draw_chaunce"}));
    let units = g.state["units"].clone();
    act(
        &mut g,
        json!({"action": "resolve_chaunce", "candidates": ""}),
    );
    assert_eq!(g.state["units"], units);
    assert_eq!(g.state["phase"], "command");
    assert_eq!(g.state["active"], PARL);
}

#[test]
fn decision_40_fumblethumbs_flag_is_two_hexes_not_ignored_by_a_veteran() {
    let mut g = parliament_takes(51, "fumblethumbs");
    set(&mut g, "p1", json!({"training": "veteran"}));
    g.state["last_foot_fired"] = json!("p1");
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["phase"], "chaunce-resolve");
    let blocks = |a: Value| {
        let mut by: BTreeMap<u64, f64> = BTreeMap::new();
        let mut retreat = 0.0;
        for (o, st, p) in leaves(&g, &a) {
            *by.entry(
                st["units"][unit_index(&g, "p1")]["blocks"]
                    .as_u64()
                    .expect("blocks"),
            )
            .or_default() += p;
            if o.resolution.summary.contains("retreats 2 hexes") {
                retreat += p;
            }
            assert_eq!(st["phase"], "swap");
        }
        close(retreat, 1.0 / 6.0);
        by
    };
    // Room enough: a flag moves it 2 hexes and costs nothing; an Infantry face a block.
    let by = blocks(json!({"action": "resolve_chaunce"}));
    close(by[&4], 4.0 / 6.0);
    close(by[&3], 2.0 / 6.0);
    // No room: the flag's 2 hexes cost 2 blocks.
    let by = blocks(json!({"action": "resolve_chaunce", "room": 0}));
    close(by[&4], 3.0 / 6.0);
    close(by[&3], 2.0 / 6.0);
    close(by[&2], 1.0 / 6.0);
}

#[test]
fn decision_41_fumblethumbs_after_only_dragoons_fired_is_ignored() {
    let run = |c1: Value| {
        let mut g = dealt(52);
        set(&mut g, "c1", c1);
        probe_centre(&mut g, &["c1"]);
        act(
            &mut g,
            json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2}),
        );
        act(&mut g, json!({"action": "end_turn"}));
        deal_hand(&mut g, PARL, &["hazzard-a-chaunce"]);
        pack_top(&mut g, "fumblethumbs");
        act(
            &mut g,
            json!({"action": "play", "card": "hazzard-a-chaunce", "mode": "present"}),
        );
        assert_eq!(g.state["active"], ROYAL);
        assert_eq!(g.state["phase"], "chaunce");
        act(&mut g, json!({"action": "draw_chaunce"}));
        g
    };
    let g = run(json!({"class": "dragoons", "mounted": false, "pikes": false, "blocks": 3}));
    assert!(g.state["last_foot_fired"].is_null());
    assert_eq!(g.state["phase"], "command", "ignored: the turn goes on");
    assert_eq!(g.state["active"], ROYAL);
    let pd = nums(&g.state["pack_discard"]);
    assert_eq!(chaunce_of(*pd.last().expect("drawn")).id, "fumblethumbs");
    // Foot fired: the card applies.
    let g = run(json!({}));
    assert_eq!(g.state["last_foot_fired"], "c1");
    assert_eq!(g.state["phase"], "chaunce-resolve");
}

#[test]
fn decision_49_bombard_without_artillery_orders_one_unit_and_an_empty_scout_draws() {
    let mut g = dealt(53);
    deal_hand(&mut g, ROYAL, &["bombard"]);
    act(&mut g, json!({"action": "play", "card": "bombard"}));
    assert_eq!(g.state["card"]["effective"], "any-1");
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    let (code, _) = refused(&mut g, json!({"action": "order", "unit": "c2"}));
    assert_eq!(code, "card-limit");
    // With a gun, Bombard orders artillery only.
    let mut g = dealt(53);
    set(
        &mut g,
        "c1",
        json!({"class": "artillery", "pikes": false, "blocks": 2}),
    );
    deal_hand(&mut g, ROYAL, &["bombard"]);
    act(&mut g, json!({"action": "play", "card": "bombard"}));
    assert_eq!(g.state["card"]["effective"], "bombard");
    let (code, _) = refused(&mut g, json!({"action": "order", "unit": "c2"}));
    assert_eq!(code, "card-type");
    // Scout Left with nobody on the left: straight to the draw (the Scout's pair).
    let mut g = dealt(53);
    only(
        &mut g,
        ROYAL,
        &[
            "c1", "c2", "c3", "c4", "c5", "c6", "ga1", "ga2", "ga3", "ga4",
        ],
    );
    deal_hand(&mut g, ROYAL, &["scout-left"]);
    act(&mut g, json!({"action": "play", "card": "scout-left"}));
    assert_eq!(g.state["phase"], "scout");
    assert_eq!(nums(&g.state["sides"][ROYAL]["scout"]).len(), 2);
    cards_accounted(&g.state);
}

#[test]
fn decision_50_march_to_victorye_refuses_combat_and_fire_and_hold_leaves_the_stand() {
    let mut g = dealt(54);
    in_stand(&mut g, ROYAL, "c1");
    deal_hand(&mut g, ROYAL, &["march-to-victorye"]);
    act(
        &mut g,
        json!({"action": "play", "card": "march-to-victorye"}),
    );
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(&mut g, json!({"action": "order", "unit": "c2"}));
    let (code, field) = refused(
        &mut g,
        json!({"action": "move", "unit": "c1", "hexes": 0, "leave_stand": true}),
    );
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("march", Some("leave_stand"))
    );
    for a in [
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2}),
        json!({"action": "fire", "unit": "c2", "target": "p1", "range": 2}),
        json!({"action": "melee", "unit": "c2", "target": "p1"}),
    ] {
        let (code, _) = refused(&mut g, a.clone());
        assert_eq!(code, "march", "{a}");
    }

    let mut g = dealt(54);
    let card = in_stand(&mut g, ROYAL, "c1");
    deal_hand(&mut g, ROYAL, &["fire-and-hold"]);
    act(&mut g, json!({"action": "play", "card": "fire-and-hold"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    let fire = json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2});
    assert_eq!(dice_needed(&g, &fire), 1, "in the Stand: 1 die at most");
    act(
        &mut g,
        json!({"action": "move", "unit": "c1", "hexes": 0, "leave_stand": true}),
    );
    assert_eq!(unit(&g, "c1")["stand"], false);
    assert_eq!(g.state["sides"][ROYAL]["track"], json!([]));
    assert!(hand(&g, ROYAL).contains(&card), "the card returns");
    cards_accounted(&g.state);
    assert_eq!(
        dice_needed(&g, &fire),
        4,
        "4 blocks − 1 pikes + 1 Fire and Hold"
    );
    act_entered(&mut g, fire, &[4, 4, 4, 4]);
    assert_eq!(unit(&g, "c1")["fired"], true);
}

#[test]
fn decision_51_a_gun_that_moved_under_bombard_may_not_fire() {
    let mut g = dealt(55);
    for u in ["c1", "c2"] {
        set(
            &mut g,
            u,
            json!({"class": "artillery", "pikes": false, "blocks": 2, "start_blocks": 2}),
        );
    }
    deal_hand(&mut g, ROYAL, &["bombard"]);
    act(&mut g, json!({"action": "play", "card": "bombard"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(&mut g, json!({"action": "order", "unit": "c2"}));
    act(&mut g, json!({"action": "move", "unit": "c1", "hexes": 2}));
    assert_eq!(unit(&g, "c1")["bombard"], "move");
    let (code, field) = refused(
        &mut g,
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 3}),
    );
    assert_eq!((code.as_str(), field.as_deref()), ("bombard", Some("unit")));
    // The gun that stood fires with 1 more die.
    let fire = json!({"action": "fire", "unit": "c2", "target": "p1", "range": 3});
    assert_eq!(dice_needed(&g, &fire), 3);
}

#[test]
fn decision_52_artillery_horses_refuses_the_bombard_move_not_its_fire() {
    let mut g = parliament_takes(56, "artillery-horses");
    set(
        &mut g,
        "p3",
        json!({"class": "artillery", "pikes": false, "blocks": 2, "start_blocks": 2}),
    );
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["sides"][PARL]["artillery_horses"], true);
    assert_eq!(g.state["phase"], "command");
    deal_hand(&mut g, PARL, &["bombard"]);
    act(&mut g, json!({"action": "play", "card": "bombard"}));
    act(&mut g, json!({"action": "order", "unit": "p3"}));
    for h in [1, 2] {
        let (code, field) = refused(&mut g, json!({"action": "move", "unit": "p3", "hexes": h}));
        assert_eq!(
            (code.as_str(), field.as_deref()),
            ("artillery-horses", Some("hexes"))
        );
    }
    let fire = json!({"action": "fire", "unit": "p3", "target": "c1", "range": 3});
    assert_eq!(dice_needed(&g, &fire), 3, "2 blocks + 1 Bombard");
    act_entered(&mut g, fire, &[4, 4, 4]);
    assert_eq!(unit(&g, "p3")["bombard"], "fire");
}

#[test]
fn decision_53_hot_for_revenge_with_a_single_unit_gives_it_one_die() {
    let mut g = parliament_takes(57, "hot-for-revenge");
    only(&mut g, PARL, &["p1"]);
    let draw = json!({"action": "draw_chaunce"});
    let all = leaves(&g, &draw);
    assert_eq!(all.len(), 1, "nothing to draw");
    act(&mut g, draw);
    assert_eq!(bonused(&g.state), vec!["p1".to_string()]);
    assert_eq!(unit(&g, "p1")["chaunce_bonus"], 1);
    deal_hand(&mut g, PARL, &["probe-centre"]);
    act(&mut g, json!({"action": "play", "card": "probe-centre"}));
    act(&mut g, json!({"action": "order", "unit": "p1"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "p1", "target": "c1"}),
    );
    assert_eq!(
        dice_needed(&g, &none()),
        6,
        "4 blocks + pikes + Hot for Revenge"
    );
}

#[test]
fn decision_54_leadership_a_leader_who_leaves_a_unit_for_another_orders_neither() {
    let mut g = dealt(58);
    attach(&mut g, "king", "c1");
    deal_hand(&mut g, ROYAL, &["leadership"]);
    act(&mut g, json!({"action": "play", "card": "leadership"}));
    act(&mut g, json!({"action": "order", "unit": "king"}));
    assert_eq!(unit(&g, "c1")["ordered"], true);
    assert_eq!(unit(&g, "c1")["card_bonus"], 1);
    assert_eq!(unit(&g, "c2")["ordered"], false);
    act(
        &mut g,
        json!({"action": "move", "unit": "king", "hexes": 1, "join": "c2"}),
    );
    let k = leader_index(&g, "king");
    assert_eq!(g.state["leaders"][k]["unit"], "c2");
    assert_eq!(unit(&g, "c1")["ordered"], false);
    assert_eq!(unit(&g, "c1")["card_bonus"], 0);
    assert_eq!(unit(&g, "c2")["ordered"], false);
    for a in [
        json!({"action": "move", "unit": "c1", "hexes": 1}),
        json!({"action": "move", "unit": "c2", "hexes": 1}),
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2}),
        json!({"action": "fire", "unit": "c2", "target": "p1", "range": 2}),
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
        json!({"action": "melee", "unit": "c2", "target": "p1"}),
    ] {
        let (code, field) = refused(&mut g, a.clone());
        assert_eq!(
            (code.as_str(), field.as_deref()),
            ("not-ordered", Some("unit")),
            "{a}"
        );
    }
}

#[test]
fn decision_56_dragoons_fire_on_foot_never_with_melee_and_bold_dragooneers_move_once_more() {
    let dragoons = json!({"class": "dragoons", "mounted": false, "pikes": false, "blocks": 3, "start_blocks": 3});
    let mut g = dealt(59);
    set(&mut g, "c1", dragoons.clone());
    set(&mut g, "c2", dragoons.clone());
    probe_centre(&mut g, &["c1", "c2"]);
    act(
        &mut g,
        json!({"action": "move", "unit": "c1", "hexes": 1, "mount": true}),
    );
    assert_eq!(unit(&g, "c1")["mounted"], true);
    let (code, field) = refused(
        &mut g,
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2}),
    );
    assert_eq!((code.as_str(), field.as_deref()), ("mounted", Some("unit")));
    let fire = json!({"action": "fire", "unit": "c2", "target": "p1", "range": 2});
    assert_eq!(dice_needed(&g, &fire), 2, "ceil(3 / 2)");
    act_entered(&mut g, fire, &[4, 4]);
    let (code, _) = refused(
        &mut g,
        json!({"action": "melee", "unit": "c2", "target": "p1"}),
    );
    assert_eq!(code, "already-battled");

    // Bold Dragooneers: move, fire, a further move; no second fire, no third move.
    let mut g = dealt(59);
    set(&mut g, "c1", dragoons.clone());
    deal_hand(&mut g, ROYAL, &["bold-dragooneers"]);
    act(
        &mut g,
        json!({"action": "play", "card": "bold-dragooneers"}),
    );
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(&mut g, json!({"action": "move", "unit": "c1", "hexes": 1}));
    act_entered(
        &mut g,
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2}),
        &[4, 4],
    );
    act(
        &mut g,
        json!({"action": "move", "unit": "c1", "hexes": 2, "mount": true}),
    );
    assert_eq!(unit(&g, "c1")["moved"], 3);
    let (code, _) = refused(
        &mut g,
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2}),
    );
    assert_eq!(code, "already-battled");
    let (code, _) = refused(&mut g, json!({"action": "move", "unit": "c1", "hexes": 1}));
    assert_eq!(code, "moves-closed");
}

#[test]
fn decision_56_bold_dragooneers_gives_one_further_move_when_none_came_before_the_fire() {
    let mut g = dealt(60);
    set(
        &mut g,
        "c1",
        json!({"class": "dragoons", "mounted": false, "pikes": false, "blocks": 3, "start_blocks": 3}),
    );
    deal_hand(&mut g, ROYAL, &["bold-dragooneers"]);
    act(
        &mut g,
        json!({"action": "play", "card": "bold-dragooneers"}),
    );
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act_entered(
        &mut g,
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 2}),
        &[4, 4],
    );
    act(&mut g, json!({"action": "move", "unit": "c1", "hexes": 1}));
    // "a further complete move" is one move.
    let (code, field) = refused(&mut g, json!({"action": "move", "unit": "c1", "hexes": 1}));
    assert_eq!(field.as_deref(), Some("unit"), "{code}");
}

// ------------------------------------------------------------------------------------------------
// Issue 16: the Chaunce pack's odds, the control roll that failed, and three contradictions of
// the seed (decisions 58 to 63).

/// Move the first `n` cards of kind `id` still in the pack onto the face-up Chaunce discards.
fn pack_discard(st: &mut Value, id: &str, n: usize) {
    let mut pack = nums(&st["pack"]);
    let mut discard = nums(&st["pack_discard"]);
    for _ in 0..n {
        let p = pack
            .iter()
            .position(|&c| chaunce_of(c).id == id)
            .unwrap_or_else(|| panic!("no {id} left in the pack"));
        discard.push(pack.remove(p));
    }
    st["pack_count"] = json!(pack.len());
    st["pack"] = json!(pack);
    st["pack_discard"] = json!(discard);
}

#[test]
fn decision_58_chaunce_odds_come_from_the_public_pack_never_its_hidden_order() {
    let draw = json!({"action": "draw_chaunce"});
    let chance =
        |g: &Game, st: &Value, title: &str| preview_p(g, draw.clone(), st, "Chaunce card", title);
    // A default game's first draw: 11 False Alarums among 45 cards, every other title 1 in 45.
    let mut g = parliament_takes(61, "grimme-reaper");
    let st = g.state.clone();
    close(chance(&g, &st, "False Alarum"), 11.0 / 45.0);
    close(chance(&g, &st, "Grimme Reaper"), 1.0 / 45.0);
    close(chance(&g, &st, "We're Back"), 1.0 / 45.0);
    // The hidden order gives nothing away: another card on top, the same odds.
    let mut other = st.clone();
    let mut pack = nums(&other["pack"]);
    pack.reverse();
    other["pack"] = json!(pack);
    close(chance(&g, &other, "False Alarum"), 11.0 / 45.0);
    close(chance(&g, &other, "Grimme Reaper"), 1.0 / 45.0);
    // The face-up discards are public: 3 False Alarums and We're Back drawn, 8 in 41 left.
    let mut drawn = st.clone();
    pack_discard(&mut drawn, "false-alarum", 3);
    pack_discard(&mut drawn, "were-back", 1);
    close(chance(&g, &drawn, "False Alarum"), 8.0 / 41.0);
    close(chance(&g, &drawn, "We're Back"), 0.0);
    close(chance(&g, &drawn, "Grimme Reaper"), 1.0 / 41.0);
    // An empty pack is reshuffled for the draw: the whole pack again (decision 7).
    let mut empty = st.clone();
    let all = nums(&empty["pack"]);
    empty["pack"] = json!([]);
    empty["pack_count"] = json!(0);
    empty["pack_discard"] = json!(all);
    close(chance(&g, &empty, "False Alarum"), 11.0 / 45.0);
    // What follows the card is in the same plan: Grimme Reaper's deserters with it.
    let plan = engine(&g)
        .preview(Some(&st), &draw)
        .unwrap_or_else(|r| panic!("{r}"));
    let o = odds(&plan);
    close(o.total, 1.0);
    assert!(
        o.facets
            .iter()
            .any(|f| localize(Lang::En, &f.facet) == "blocks lost"),
        "{o:?}"
    );
    // The draw itself takes the top of the pack shuffled at the deal, as recorded games drew
    // it: no card is drawn from the game's stream (only Grimme Reaper's own dice).
    act(&mut g, json!({"action": "draw_chaunce"}));
    let e = last_event(&g);
    assert!(
        e.resolution.summary.contains("Grimme Reaper"),
        "{}",
        e.resolution.summary
    );
    assert!(e.draws.iter().all(|d| !d.card), "{:?}", e.draws);
    // A house rule's count: 5 False Alarums, a pack of 39.
    let mut g = new_game("ecw.false_alarums = 5", 62);
    act(&mut g, json!({"action": "deal"}));
    deal_hand(&mut g, ROYAL, &["hazzard-a-chaunce"]);
    act(
        &mut g,
        json!({"action": "play", "card": "hazzard-a-chaunce", "mode": "present"}),
    );
    let st = g.state.clone();
    close(chance(&g, &st, "False Alarum"), 5.0 / 39.0);
    close(chance(&g, &st, "The Biter Bit"), 1.0 / 39.0);
    // The largest army shipped (Edgehill, 19 Royalist units): every card and what follows it
    // stays within the 5,000 outcomes the app tabulates for a page.
    let path = format!(
        "{}/../../scenarios/commands-colors-ecw/edgehill-1642.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let sc = parse(
        "edgehill",
        &std::fs::read_to_string(path).expect("edgehill"),
    )
    .unwrap_or_else(|d| panic!("{d:?}"));
    let mut e = Game::new(sc, 64).expect("game");
    act(&mut e, json!({"action": "deal"}));
    e.state["phase"] = json!("chaunce");
    let plan = engine(&e)
        .preview(Some(&e.state), &draw)
        .unwrap_or_else(|r| panic!("{r}"));
    assert!(plan.within(5_000));
    close(
        odds(&plan).p(
            "⟦ecw.facet.chaunce-card⟧",
            "⟦ecw_cards.chaunce.false-alarum.name⟧",
        ),
        11.0 / 45.0,
    );
    // Out of its phase the draw has no odds: it is not the action of the moment.
    let mut g = dealt(63);
    let (code, _) = refused(&mut g, draw.clone());
    assert_eq!(code, "out-of-phase");
    assert!(engine(&g).preview(Some(&g.state), &draw).is_err());
}

#[test]
fn decision_58_the_draw_of_a_game_recorded_before_it_is_unchanged() {
    // Games played through their own actions alone, as recorded before decision 58: the same
    // logs, to the last die, effect and stream position (the head of each log's hash chain).
    let recorded: Vec<(u64, String)> = (1..400u64)
        .map(dealt)
        .filter(|g| kinds(&hand(g, ROYAL)).contains(&"hazzard-a-chaunce"))
        .take(6)
        .map(|mut g| {
            act(
                &mut g,
                json!({"action": "play", "card": "hazzard-a-chaunce", "mode": "present"}),
            );
            act(&mut g, json!({"action": "draw_chaunce"}));
            assert_eq!(g.replay(), Ok(g.log.entries().len()));
            // The pins are the plain hash of each whole log (chain version 1), whatever seals
            // new games.
            g.chain_version = tercio_rules::game::ChainVersion::V1;
            (g.seed, g.log_digest())
        })
        .collect();
    // Fumblethumbs (ignored), False Alarum twice, The Inspired Worde (a random unit), Bad
    // Powder (a random unit), Who Drew This Mappe? (waiting for the table). Re-pinned at rules
    // version 3, whose recorded texts are messages: the same dice, cards and stream positions
    // (the examples' re-blessing shows only texts changed).
    let before: [(u64, &str); 6] = [
        (
            9,
            "ad804f379f15834130a8f1470415e20a8888725e26c684b64ee25bdae788566d",
        ),
        (
            10,
            "320268c20751c6c09f228376e766340da40d59fa696404010525d03bb6f71c91",
        ),
        (
            15,
            "bbf36e587f6bf75c80ad9144a66879f87c31e3d3fd44391f70d322cf4b59b24f",
        ),
        (
            22,
            "fb1749577ee2295a415f5e61a119e3c5d594135573d83ee6e63e66913ea63650",
        ),
        (
            30,
            "6a29d5ab5f4c6ab5f4a8a0658f476cb24d601b6933c57be54d68aa570a789d30",
        ),
        (
            40,
            "2f97a610e9c1d804f2d04381501cbbceb369af4cdae802f07451c329c05a52f3",
        ),
    ];
    let before: Vec<(u64, String)> = before.iter().map(|(s, d)| (*s, d.to_string())).collect();
    assert_eq!(recorded, before);
}

/// The refusal of `a`, whole; panics if the action went through.
fn refusal(g: &mut Game, a: Value) -> tercio_rules::Rejection {
    let before = g.log.entries().len();
    let out = match g.act(a.clone()) {
        Err(GameError::Rejected(r)) => r,
        Err(e) => panic!("{a}: not a rejection: {e}"),
        Ok(_) => panic!("{a}: accepted, a refusal was expected"),
    };
    assert_eq!(g.log.entries().len(), before, "a refusal records nothing");
    out
}

fn offers(g: &Game, side: &str, action: &str) -> bool {
    engine(g)
        .forms(&g.state, Some(side))
        .iter()
        .any(|f| f.action == action)
}

/// Royalist horse (`ga1`) ordered by Probe Right wins its melee against `p1` and must chase:
/// the rash unit a control roll may bring back (decision 59).
fn rash_after_a_victory() -> Game {
    let mut g = dealt(12);
    deal_hand(&mut g, ROYAL, &["probe-right"]);
    act(&mut g, json!({"action": "play", "card": "probe-right"}));
    act(&mut g, json!({"action": "order", "unit": "ga1"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga1", "target": "p1"}),
    );
    let n = dice_needed(&g, &none());
    act_entered(&mut g, none(), &flag_then_misses(n, 3));
    g
}

#[test]
fn decision_59_a_failed_control_roll_holds_for_the_rest_of_the_turn() {
    let mut g = rash_after_a_victory();
    assert_eq!(g.state["chase"]["compelled"], true);
    assert!(
        offers(&g, "royal", "control"),
        "the first victory: control may be rolled"
    );
    // The roll fails: an Infantry face.
    let control = json!({"action": "control", "unit": "ga1"});
    act_entered(&mut g, control.clone(), &[1]);
    assert_eq!(g.state["chase"]["compelled"], true);
    assert!(!offers(&g, "royal", "control"));
    let board = engine(&g).board(&g.state).expect("a board");
    assert!(
        board.notes.iter().all(|n| !n.contains("`control`")),
        "{:?}",
        board.notes
    );
    let r = refusal(&mut g, control.clone());
    assert_eq!(
        (r.code.as_str(), r.field.as_deref(), r.kind),
        ("control-failed", Some("unit"), RejectKind::NotNow),
        "{r}"
    );
    // Its compulsory bonus melee is another victory: still out of control, no second roll.
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga1", "target": "p2"}),
    );
    let n = dice_needed(&g, &none());
    act_entered(&mut g, none(), &flag_then_misses(n, 3));
    assert_eq!(g.state["chase"]["unit"], "ga1");
    assert_eq!(g.state["chase"]["compelled"], true);
    assert!(!offers(&g, "royal", "control"));
    let board = engine(&g).board(&g.state).expect("a board");
    assert!(
        board.notes.iter().all(|n| !n.contains("`control`")),
        "{:?}",
        board.notes
    );
    let r = refusal(&mut g, control);
    assert_eq!(
        (r.code.as_str(), r.field.as_deref(), r.kind),
        ("control-failed", Some("unit"), RejectKind::NotNow),
        "{r}"
    );
    // With no enemy in reach it stops, and the turn ends.
    act(&mut g, json!({"action": "stop", "no_target": true}));
    act(&mut g, json!({"action": "end_turn"}));
}

#[test]
fn decision_59_a_roll_that_succeeds_leaves_the_next_victory_its_own_roll() {
    let mut g = rash_after_a_victory();
    // Under control (a Flag), the player chooses to break through and wins again.
    act_entered(&mut g, json!({"action": "control", "unit": "ga1"}), &[6]);
    assert_eq!(g.state["chase"]["compelled"], false);
    let r = refusal(&mut g, json!({"action": "control", "unit": "ga1"}));
    assert_eq!(
        (r.code.as_str(), r.kind),
        ("rolled", RejectKind::NotNow),
        "{r}"
    );
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga1", "target": "p2"}),
    );
    let n = dice_needed(&g, &none());
    act_entered(&mut g, none(), &flag_then_misses(n, 3));
    assert_eq!(g.state["chase"]["compelled"], true);
    assert!(offers(&g, "royal", "control"));
}

#[test]
fn decision_61_chickweed_slows_dragoons_on_horse_and_not_on_foot() {
    let mut g = parliament_takes(64, "chickweed");
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(g.state["sides"][PARL]["chickweed"], true);
    set(&mut g, "p4", json!({"class": "dragoons", "mounted": true}));
    set(
        &mut g,
        "p5",
        json!({"class": "dragoons", "mounted": false, "pikes": false}),
    );
    set(
        &mut g,
        "p8",
        json!({"class": "dragoons", "mounted": false, "pikes": false}),
    );
    deal_hand(&mut g, PARL, &["attack-right"]);
    act(&mut g, json!({"action": "play", "card": "attack-right"}));
    for u in ["p4", "p5", "p8"] {
        act(&mut g, json!({"action": "order", "unit": u}));
    }
    // On horseback: 3 hexes less one.
    let (code, field) = refused(&mut g, json!({"action": "move", "unit": "p4", "hexes": 3}));
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("too-far", Some("hexes"))
    );
    act(&mut g, json!({"action": "move", "unit": "p4", "hexes": 2}));
    // Mounting to ride: 2 hexes less one.
    let (code, _) = refused(
        &mut g,
        json!({"action": "move", "unit": "p5", "hexes": 2, "mount": true}),
    );
    assert_eq!(code, "too-far");
    act(
        &mut g,
        json!({"action": "move", "unit": "p5", "hexes": 1, "mount": true}),
    );
    // On foot the horses' colic does not matter: 1 hex.
    act(&mut g, json!({"action": "move", "unit": "p8", "hexes": 1}));
    assert_eq!(unit(&g, "p8")["moved"], 1);
}

#[test]
fn decision_62_going_for_it_charges_from_four_hexes_whatever_the_move() {
    let mut g = parliament_takes(65, "going-for-it");
    // Cuirassiers (2 hexes) under Chickweed and Soft Going (1 hex) still charge.
    set(&mut g, "p4", json!({"class": "cuirassiers"}));
    g.state["sides"][PARL]["chickweed"] = json!(true);
    g.state["soft_going"] = json!(true);
    act(&mut g, json!({"action": "draw_chaunce"}));
    act(
        &mut g,
        json!({"action": "resolve_chaunce", "candidates": "p4"}),
    );
    act(
        &mut g,
        json!({"action": "resolve_chaunce", "target": "ga2"}),
    );
    assert_eq!(g.state["phase"], "window");
    assert_eq!(g.state["window"]["attacker"], "p4");
    assert_eq!(g.state["window"]["target"], "ga2");
    // Its normal melee dice: 3 blocks, nothing taken off for the distance.
    assert_eq!(dice_needed(&g, &none()), 3);
}

#[test]
fn decision_63_victorye_is_ours_makes_parliament_horse_rash_with_its_own_control_roll() {
    let mut g = parliament_takes(66, "victorye-is-ours");
    act(&mut g, json!({"action": "draw_chaunce"}));
    assert_eq!(unit(&g, "p4")["rash"], true);
    assert_eq!(unit(&g, "p4")["class"], "trotters", "its class stays");
    deal_hand(&mut g, PARL, &["probe-right"]);
    act(&mut g, json!({"action": "play", "card": "probe-right"}));
    act(&mut g, json!({"action": "order", "unit": "p4"}));
    act(
        &mut g,
        json!({"action": "melee", "unit": "p4", "target": "ga2"}),
    );
    assert_eq!(
        dice_needed(&g, &none()),
        4,
        "3 blocks + 1 rash, no galloper's first-round die"
    );
    act_entered(&mut g, none(), &[6, 1, 1, 1]);
    assert_eq!(g.state["chase"]["unit"], "p4");
    assert_eq!(g.state["chase"]["compelled"], true);
    assert!(offers(&g, "parl", "control"));
    let control = json!({"action": "control", "unit": "p4"});
    close(
        preview_p(&g, control.clone(), &g.state, "control gained", "yes"),
        1.0 / 3.0,
    );
    act_entered(&mut g, control, &[3]);
    assert_eq!(g.state["chase"]["compelled"], false);
}

/// The attack on the log's fingerprint that a spectator could make on a game sealed with chain
/// version 1: note the fingerprint before and after the Royalists' play, take the entry as the
/// spectator sees it, put a guessed hand back into it, hash, and compare. On version 1 the true
/// hand is confirmed; on version 2 (every game made now) no candidate is, the true one included,
/// until the seed and nonce are revealed at the end, when the fingerprint is seen to cover the
/// hidden part: any change to it gives another fingerprint.
#[test]
fn the_fingerprint_confirms_no_guess_of_a_hidden_hand_until_the_end() {
    use tercio_rules::game::{chain_next, entry_text, ChainVersion};
    let mut confirmed = BTreeMap::new();
    for version in [ChainVersion::V1, ChainVersion::V2] {
        let mut g = dealt(11);
        g.nonce = "5f1d3a0c9b7e4d2a8c6b0e1f3a5d7c9b".into();
        g.chain_version = version;
        let e = engine(&g);
        deal_hand(&mut g, ROYAL, &["probe-centre"]);
        let before = g.log_digest();
        act(&mut g, json!({"action": "play", "card": "probe-centre"}));
        let after = g.log_digest();
        let (seq, event) = match g.log.entries().last() {
            Some(LogEntry::Event { seq, event }) => (*seq, event.clone()),
            other => panic!("no event last: {other:?}"),
        };
        // What the spectator receives of the play: the hand is not in it.
        let seen = e
            .view_event(
                &serde_json::to_value(&event).expect("event"),
                &Viewer::Spectator,
            )
            .expect("shown");
        let hand_op = |ops: &Value| {
            ops.as_array()
                .into_iter()
                .flatten()
                .position(|op| op["p"] == "/sides/0/hand")
        };
        assert_eq!(
            hand_op(&seen["effects"]),
            None,
            "the spectator sees no hand"
        );
        let whole = serde_json::to_value(&event).expect("event");
        let at = hand_op(&whole["effects"]).expect("the play changes the Royalists' hand");
        let truth = whole["effects"][at]["v"].clone();
        // Candidates: the true remaining hand, and others of the same size.
        let mut candidates = vec![truth.clone()];
        for shift in 1..40u64 {
            let guess: Vec<u64> = nums(&truth)
                .iter()
                .map(|&c| (u64::from(c) + shift) % 60 + 1)
                .collect();
            candidates.push(json!(guess));
        }
        let hits: Vec<Value> = candidates
            .iter()
            .filter(|c| {
                let mut guessed = whole.clone();
                guessed["effects"][at]["v"] = (*c).clone();
                let ev: GameEvent = serde_json::from_value(guessed).expect("an event");
                let text = entry_text(&LogEntry::Event { seq, event: ev });
                // The attack as it worked on version 1, and the chain's own step computed
                // with every value a seat knows before the end (not the seed's nonce).
                let mut guessed_seal = g.clone();
                guessed_seal.nonce = String::new();
                chain_next(&before, &text) == after
                    || guessed_seal.seal().next(&before, &text) == after
            })
            .cloned()
            .collect();
        confirmed.insert(version.number(), hits.clone());
        if version == ChainVersion::V2 {
            // After the end, with the seed and nonce revealed, the fingerprint covers the hidden
            // hand: the true one gives it, any other does not.
            let seal = g.seal();
            let mut edited = whole.clone();
            for (i, c) in candidates.iter().enumerate() {
                edited["effects"][at]["v"] = c.clone();
                let ev: GameEvent = serde_json::from_value(edited.clone()).expect("an event");
                let link = seal.next(&before, &entry_text(&LogEntry::Event { seq, event: ev }));
                assert_eq!(link == after, i == 0, "candidate {i}");
            }
        }
    }
    assert_eq!(
        confirmed[&1],
        vec![confirmed[&1][0].clone()],
        "on version 1 the attack confirms the true hand (the test can fail)"
    );
    assert!(
        confirmed[&2].is_empty(),
        "version 2 confirms {:?}",
        confirmed[&2]
    );
}

/// The unit choices of `form`'s field `field` in `side`'s forms: each id with the reason the
/// rules would refuse it (`None`: legal), the reasons in English.
fn choices(g: &Game, side: &str, form: &str, field: &str) -> Vec<(String, Option<String>)> {
    let forms = engine(g).forms(&g.state, Some(side));
    let f = forms
        .iter()
        .find(|f| f.action == form)
        .unwrap_or_else(|| panic!("no {form} form"));
    let x = f
        .fields
        .iter()
        .find(|x| x.name == field)
        .unwrap_or_else(|| panic!("no {field} field"));
    let v = serde_json::to_value(x).expect("a field serialises");
    v["options"]
        .as_array()
        .expect("a choice")
        .iter()
        .map(|o| {
            (
                o["value"].as_str().unwrap_or_default().to_string(),
                o["refused"].as_str().map(|r| localize(Lang::En, r)),
            )
        })
        .collect()
}

/// Decision 64: CCN's "A unit may not battle the turn it moves onto a Forest hex" and "a
/// Town/Windmill hex", with 004, Dragoons: "Unlike Foot units, Dragoons can fight as soon as
/// they arrive, whatever the terrain." Fails on the old code, which had no such field (a move
/// naming it was refused as an unknown field) and let every unit battle after any move.
#[test]
fn decision_64_a_unit_that_enters_woods_or_a_town_may_not_battle_that_turn_dragoons_may() {
    let mut g = dealt(4);
    // c3 are dragoons on horse for this test.
    let i = unit_index(&g, "c3");
    g.state["units"][i]["class"] = json!("dragoons");
    g.state["units"][i]["mounted"] = json!(true);
    deal_hand(&mut g, ROYAL, &["attack-centre"]);
    act(&mut g, json!({"action": "play", "card": "attack-centre"}));
    act(&mut g, json!({"action": "order", "unit": "c1"}));
    act(&mut g, json!({"action": "order", "unit": "c3"}));
    act(
        &mut g,
        json!({"action": "order", "unit": "king", "section": "centre"}),
    );
    // The move form asks it of the units it would stop: not the dragoons, not the leader.
    let forms = engine(&g).forms(&g.state, Some("royal"));
    let mv = forms
        .iter()
        .find(|f| f.action == "move")
        .expect("move form");
    let q = mv
        .fields
        .iter()
        .find(|x| x.name == "into_woods_or_town")
        .expect("the question");
    assert_eq!(q.only_for, vec!["c1".to_string()]);
    // Refused, naming the field: a unit that does not move, a leader alone.
    let (code, field) = refused(
        &mut g,
        json!({"action": "move", "unit": "c1", "hexes": 0, "into_woods_or_town": true}),
    );
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("no-move", Some("into_woods_or_town"))
    );
    let (code, field) = refused(
        &mut g,
        json!({"action": "move", "unit": "king", "hexes": 1, "into_woods_or_town": true}),
    );
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("leader-terrain", Some("into_woods_or_town"))
    );
    // The foot move into a wood; the dragoons ride into a village.
    act(
        &mut g,
        json!({"action": "move", "unit": "c1", "hexes": 1, "into_woods_or_town": "on"}),
    );
    assert!(
        last_event(&g)
            .resolution
            .summary
            .contains("may not battle this turn"),
        "{}",
        last_event(&g).resolution.summary
    );
    assert_eq!(unit(&g, "c1")["entered_woods_or_town"], true);
    act(
        &mut g,
        json!({"action": "move", "unit": "c3", "hexes": 2, "into_woods_or_town": true}),
    );
    assert!(
        last_event(&g)
            .resolution
            .summary
            .contains("dragoons fight as soon as they arrive"),
        "{}",
        last_event(&g).resolution.summary
    );
    assert!(unit(&g, "c3").get("entered_woods_or_town").is_none());
    // The melee form marks the foot with the refusal's reason; the dragoons may attack.
    let attackers = choices(&g, "royal", "melee", "unit");
    let c1 = attackers.iter().find(|(id, _)| id == "c1").expect("c1");
    assert!(
        c1.1.as_deref().is_some_and(|r| r.contains("wood")),
        "{attackers:?}"
    );
    let c3 = attackers.iter().find(|(id, _)| id == "c3").expect("c3");
    assert_eq!(c3.1, None, "{attackers:?}");
    // Pressed anyway, the field refuses it: melee or fire alike ("may not battle").
    for a in [
        json!({"action": "melee", "unit": "c1", "target": "p1"}),
        json!({"action": "fire", "unit": "c1", "target": "p1", "range": 1}),
    ] {
        let (code, field) = refused(&mut g, a);
        assert_eq!(
            (code.as_str(), field.as_deref()),
            ("entered-woods-or-town", Some("unit"))
        );
    }
    engine(&g)
        .plan(
            Some(&g.state),
            &json!({"action": "melee", "unit": "c3", "target": "p1"}),
        )
        .unwrap_or_else(|r| panic!("{r}"));
    // The next player-turn clears the mark.
    act(&mut g, json!({"action": "end-turn"}));
    assert!(unit(&g, "c1").get("entered_woods_or_town").is_none());
}

/// Decision 65: the Stand of Pikes' bounce die, a house rule off by default. 004, Foot: "FT
/// units which have pikes may adopt Stand of Pikes formation against cavalry – the rules and
/// operation for this are exactly the same as for Squares in CCN."; the CCN player aid
/// (CCN-rem): "Infantry in Square attacked by Cavalry roll a 'bounce' die: If a flag is rolled,
/// the Cavalry unit must retreat 1 space and end its activation. Otherwise, Cavalry may attack,
/// but with only 1 die". Fails on the old code, whose scenario check refused the key.
#[test]
fn decision_65_the_bounce_die_is_a_house_rule_off_by_default() {
    /// A game with p1 already in its Stand of Pikes and gallopers ga2, ga3 ordered to attack.
    fn at_the_stand(house_rules: &str) -> Game {
        let mut g = new_game(
            &format!("ecw.hand_first = 6\necw.hand_second = 4\n{house_rules}"),
            10,
        );
        act(&mut g, json!({"action": "deal"}));
        deal_hand(&mut g, ROYAL, &["probe-right"]);
        deal_hand(&mut g, PARL, &["probe-centre"]);
        let mut parl = hand(&g, PARL);
        let card = parl.pop().expect("a card");
        g.state["sides"][PARL]["hand"] = json!(parl);
        g.state["sides"][PARL]["track"] = json!([[card, "p1"]]);
        let i = unit_index(&g, "p1");
        g.state["units"][i]["stand"] = json!(true);
        cards_accounted(&g.state);
        act(&mut g, json!({"action": "play", "card": "probe-right"}));
        act(&mut g, json!({"action": "order", "unit": "ga2"}));
        act(&mut g, json!({"action": "order", "unit": "ga3"}));
        g
    }
    let none = json!({"action": "respond", "response": "none"});

    // Off by default: the melee as before, 1 die, with no bounce die (design 9.2, example 8).
    let mut g = at_the_stand("");
    assert!(g.state["cfg"].get("bounce_die").is_none());
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga2", "target": "p1"}),
    );
    assert_eq!(dice_needed(&g, &none), 1);
    close(
        preview_p(&g, none.clone(), &g.state, "Melee: blocks lost", "1"),
        4.0 / 6.0,
    );

    // On: the pikes roll one die first; a flag (1/6) throws the horse back.
    let mut g = at_the_stand("ecw.bounce_die = 1");
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga2", "target": "p1"}),
    );
    assert_eq!(dice_needed(&g, &none), 1, "the bounce die comes first");
    close(
        preview_p(
            &g,
            none.clone(),
            &g.state,
            "thrown back by the pikes",
            "yes",
        ),
        1.0 / 6.0,
    );
    close(
        preview_p(&g, none.clone(), &g.state, "Melee: blocks lost", "1"),
        5.0 / 6.0 * 4.0 / 6.0,
    );
    // A flag: the galloper retreats 1 hex and its attack ends, no dice, no battle back.
    let blocks = (
        unit(&g, "ga2")["blocks"].clone(),
        unit(&g, "p1")["blocks"].clone(),
    );
    act_entered(&mut g, none.clone(), &[6]);
    let ev = last_event(&g);
    assert_eq!(ev.resolution.steps.len(), 1, "{:?}", ev.resolution.steps);
    assert!(
        ev.resolution
            .summary
            .contains("retreats 1 hex and its attack ends"),
        "{}",
        ev.resolution.summary
    );
    assert_eq!(
        (
            unit(&g, "ga2")["blocks"].clone(),
            unit(&g, "p1")["blocks"].clone()
        ),
        blocks
    );
    assert!(g.state["chase"].is_null(), "no breakthrough");
    assert_eq!(g.state["phase"], "orders");
    // With no hex to retreat into it loses a block instead.
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga3", "target": "p1", "attacker_room": 0}),
    );
    act_entered(&mut g, none.clone(), &[6]);
    assert_eq!(unit(&g, "ga3")["blocks"], 2);
    assert!(
        last_event(&g).resolution.summary.contains("loses 1 block"),
        "{}",
        last_event(&g).resolution.summary
    );

    // Any other face: the melee goes on, capped at 1 die, and the Stand battles back.
    let mut g = at_the_stand("ecw.bounce_die = 1");
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga2", "target": "p1"}),
    );
    act_entered(&mut g, none, &[3, 3, 4]);
    let ev = last_event(&g);
    let titles: Vec<&str> = ev
        .resolution
        .steps
        .iter()
        .map(|s| s.title.as_str())
        .collect();
    assert!(titles[0].contains("bounce die"), "{titles:?}");
    let melee = ev
        .resolution
        .steps
        .iter()
        .find(|s| s.title.starts_with("Melee:"))
        .expect("the melee step");
    assert_eq!(melee.dice.len(), 1);
    assert!(
        titles.iter().any(|t| t.starts_with("Battle back:")),
        "{titles:?}"
    );

    // Foot that forms its Stand as the horse comes on rolls it too; foot outside a Stand never.
    let mut g = at_the_stand("ecw.bounce_die = 1");
    let i = unit_index(&g, "p2");
    assert_eq!(g.state["units"][i]["stand"], false);
    act(
        &mut g,
        json!({"action": "melee", "unit": "ga2", "target": "p2"}),
    );
    let form = json!({"action": "respond", "response": "stand-of-pikes"});
    close(
        preview_p(&g, form, &g.state, "thrown back by the pikes", "yes"),
        1.0 / 6.0,
    );
    // A galloper of 3 blocks attacks with 3 + 1 dice (first round), no bounce die before them.
    assert_eq!(
        dice_needed(&g, &json!({"action": "respond", "response": "none"})),
        4
    );

    // A value outside the switch is refused at its line and column.
    let src = source("ecw.bounce_die = 2");
    let d = parse("test.toml", &src).expect_err("out of range");
    assert_eq!(d[0].field, "house_rules.ecw.bounce_die");
    let line = src
        .lines()
        .position(|l| l == "ecw.bounce_die = 2")
        .expect("the line")
        + 1;
    assert_eq!((d[0].line, d[0].column), (line, "ecw.bounce_die".len() + 4));
}

#[test]
fn decision_66_a_hand_of_only_evade_plays_it_for_nothing_and_an_empty_hand_passes() {
    let mut g = dealt(64);
    // Evade with another card in hand: only an answer to a melee.
    give(&mut g, ROYAL, &["evade", "probe-centre"]);
    let (code, field) = refused(&mut g, json!({"action": "play", "card": "evade"}));
    assert_eq!(
        (code.as_str(), field.as_deref()),
        ("evade-is-a-response", Some("card"))
    );
    // Nothing but Evade: the form offers it, and played it orders no unit; the draw refills
    // the hand and the other side plays (before this decision the turn could not begin).
    give(&mut g, ROYAL, &["evade"]);
    let cards: Vec<String> = engine(&g)
        .forms(&g.state, Some("royal"))
        .iter()
        .filter(|f| f.action == "play" && f.refused.is_none())
        .flat_map(|f| f.fields.iter().filter(|x| x.name == "card"))
        .flat_map(|x| match &x.kind {
            tercio_rules::FieldKind::Choice { options, .. } => {
                options.iter().map(|o| o.value.clone()).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    assert_eq!(cards, vec!["evade".to_string()]);
    act(&mut g, json!({"action": "play", "card": "evade"}));
    assert_eq!(g.state["active"], PARL);
    assert_eq!(kinds(&nums(&g.state["discard"])).last(), Some(&"evade"));
    let limit = g.state["sides"][ROYAL]["hand_limit"]
        .as_u64()
        .expect("limit") as usize;
    assert_eq!(hand(&g, ROYAL).len(), limit, "the draw refills the hand");
    assert!(!kinds(&hand(&g, ROYAL)).is_empty());
    cards_accounted(&g.state);
    // An empty hand (every card on the Stand of Pikes track): the turn passes, and the side's
    // form says so rather than offering a card to play with none to choose.
    let mut g = dealt(65);
    give(&mut g, ROYAL, &[]);
    assert!(!offers(&g, "royal", "play"));
    let pass: Vec<_> = engine(&g)
        .forms(&g.state, Some("royal"))
        .into_iter()
        .filter(|f| f.action == "end-turn" && f.primary && f.refused.is_none())
        .collect();
    assert_eq!(pass.len(), 1, "the pass is the turn's next step");
    act(&mut g, json!({"action": "end-turn"}));
    assert_eq!(g.state["active"], PARL);
}
