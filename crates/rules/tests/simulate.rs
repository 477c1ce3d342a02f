//! The automatic players (`interface::simulate`): every shipped scenario of every rule set that
//! plays itself ends, with every policy; every action a player picked is one the app accepts,
//! and a battle played again as a recorded game, action by action from the same seed, comes out
//! exactly as the simulation said (the simulation is the game's own rules, not a second
//! implementation); runs repeat from their seed.

use std::path::PathBuf;

use tercio_rules::game::Game;
use tercio_rules::interface::simulate::{battle_seed, Ending, Summary};
use tercio_rules::{registry, scenario, FieldKind, RuleSet, Viewer};

fn scenarios_of(r: &dyn RuleSet) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(r.id());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|f| f.extension().is_some_and(|e| e == "toml"));
    files.sort();
    files
}

fn load(path: &PathBuf) -> tercio_rules::interface::scenario::Scenario {
    let src = std::fs::read_to_string(path).expect("read");
    scenario::parse(&path.display().to_string(), &src).expect("scenario")
}

#[test]
fn every_rule_set_plays_itself() {
    let ids: Vec<&str> = registry::all()
        .iter()
        .filter(|r| r.available() && r.simulator().is_none())
        .map(|r| r.id())
        .collect();
    assert!(ids.is_empty(), "these cannot play themselves: {ids:?}");
    assert_eq!(
        registry::all()
            .iter()
            .filter(|r| r.simulator().is_some())
            .count(),
        5
    );
}

#[test]
fn every_scenario_ends_with_every_policy_and_plays_again_as_a_game() {
    for r in registry::all().iter().filter(|r| r.simulator().is_some()) {
        let sim = r.simulator().expect("simulator");
        let files = scenarios_of(*r);
        assert!(!files.is_empty(), "{}: no scenarios", r.id());
        for file in files {
            let sc = load(&file);
            for policy in sim.policies() {
                let mut ended = 0;
                // The app-driven players are quick; the form players plan every form's
                // choices at each step, so fewer of their battles are played here.
                let games = if sim.gap() > 0 { 6 } else { 2 };
                let limit = sim.turn_limit() * 2;
                for i in 0..games {
                    let seed = battle_seed(11, i);
                    let at = format!("{} {} seed {seed}", file.display(), policy.id);
                    let b = sim
                        .play(&sc, seed, &[policy.id, policy.id], limit, true)
                        .unwrap_or_else(|e| panic!("{at}: {e}"));
                    assert!(b.actions > 0 && b.log.len() == b.actions as usize, "{at}");
                    if b.ending != Ending::TurnLimit {
                        ended += 1;
                    }
                    // The same battle as a recorded game: every action accepted, the same end.
                    let mut g = Game::new(sc.clone(), seed).expect("game");
                    for (k, action) in b.log.iter().enumerate() {
                        if let Err(e) = g.act(action.clone()) {
                            panic!("{at}: action {k} {action} refused by the game: {e}");
                        }
                    }
                    let engine = g.engine().expect("engine");
                    // Broken armies end the game; a turn limit is the simulation's, or the
                    // rules' own end without a loser.
                    let over = engine.is_over(&g.state);
                    assert!(
                        over || b.ending == Ending::TurnLimit,
                        "{at}: the game and the simulation disagree on the end"
                    );
                    assert!(
                        b.turns <= limit,
                        "{at}: {} turns played past the limit {limit}",
                        b.turns
                    );
                    let scores: Vec<u32> = engine.scores(&g.state).iter().map(|s| s.lost).collect();
                    assert_eq!(
                        Some(&scores),
                        b.lost_by_turn.last(),
                        "{at}: break points lost"
                    );
                    let bps: Vec<u32> = engine
                        .scores(&g.state)
                        .iter()
                        .map(|s| s.threshold)
                        .collect();
                    assert_eq!(bps, b.break_points, "{at}");
                    if b.ending == Ending::Broken {
                        let winner = b.winner.clone().expect("a winner");
                        let verdict = engine.verdict(&g.state).unwrap_or_default();
                        assert!(
                            engine
                                .scores(&g.state)
                                .iter()
                                .any(|s| s.side != winner && s.lost >= s.threshold),
                            "{at}: {winner} won but its enemy did not break: {verdict}"
                        );
                    }
                }
                assert!(
                    ended > 0,
                    "{} {}: no battle ended before turn {limit}",
                    file.display(),
                    policy.id
                );
            }
        }
    }
}

#[test]
fn a_run_repeats_from_its_seed_and_another_seed_differs() {
    let r = registry::lookup("egc").expect("egc");
    let sim = r.simulator().expect("simulator");
    let sc = load(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenarios/el-gran-capitan/cerignola-1503.toml"),
    );
    let sides: Vec<String> = sc.sides.iter().map(|s| s.id.clone()).collect();
    let run = |seed: u64| {
        let battles: Vec<_> = (0..40)
            .map(|i| {
                sim.play(&sc, battle_seed(seed, i), &[], 20, false)
                    .expect("battle")
            })
            .collect();
        serde_json::to_string(&Summary::of(&sides, &battles)).expect("json")
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

#[test]
fn a_policy_that_is_not_one_is_refused_by_name() {
    let r = registry::lookup("abdf").expect("abdf");
    let sim = r.simulator().expect("simulator");
    let sc = load(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenarios/bloody-dismal-fight/agincourt-1415.toml"),
    );
    let e = sim.play(&sc, 1, &["bold"], 20, false).unwrap_err();
    assert!(e.starts_with("policy: \"bold\" is not a policy"), "{e}");
}

/// The card games' players see only their own side's view: every card a side plays is one its
/// own seat's forms offered (drawn from that side's view), and that view never shows the other
/// side's hand, which the game holds.
#[test]
fn a_card_player_plays_only_from_its_own_hand_and_never_sees_the_other() {
    let r = registry::lookup("ecw").expect("ecw");
    let sim = r.simulator().expect("simulator");
    let sc = load(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenarios/commands-colors-ecw/tibbermore-1644.toml"),
    );
    let sides: Vec<String> = sc.sides.iter().map(|s| s.id.clone()).collect();
    let mut plays = 0;
    // A few battles: one may end after a handful of cards.
    for battle in 0..3 {
        let seed = battle_seed(3, battle);
        let b = sim.play(&sc, seed, &[], 60, true).expect("battle");
        let mut g = Game::new(sc.clone(), seed).expect("game");
        let engine = g.engine().expect("engine");
        for action in &b.log {
            if action["action"] == "play" {
                let side = engine
                    .acting_side(&g.state, action)
                    .expect("a card is a side's");
                let i = sides.iter().position(|s| *s == side).expect("a side");
                let view = engine.view_state(&g.state, &Viewer::Side(side.clone()));
                let offered: Vec<String> = engine
                    .seat_forms(&view, &g.state, Some(&side))
                    .iter()
                    .filter(|f| f.action == "play")
                    .flat_map(|f| f.fields.iter().filter(|x| x.name == "card"))
                    .flat_map(|x| match &x.kind {
                        FieldKind::Choice { options, .. } => {
                            options.iter().map(|o| o.value.clone()).collect()
                        }
                        _ => Vec::new(),
                    })
                    .collect();
                let card = action["card"].as_str().expect("card").to_string();
                assert!(offered.contains(&card), "{card} not in {offered:?}");
                // The other side's hand: held by the game, hidden from this side.
                let other = 1 - i;
                let held = g.state["sides"][other]["hand"]
                    .as_array()
                    .map_or(0, Vec::len);
                let seen = view["sides"][other]["hand"].as_array().map_or(0, Vec::len);
                assert!(held > 0 && seen == 0, "held {held}, seen {seen}");
                plays += 1;
            }
            g.act(action.clone()).expect("accepted");
        }
    }
    assert!(plays > 10, "{plays} cards played");
}

/// The two battles that once stopped with no way on, played to their end (each failed before
/// its fix). El Gran Capitán, `tercio simulate el-gran-capitan/cerignola-1503 --seed 7 --policy
/// random`, battle 230: a Ferocious Swiss Charge destroyed a unit another Swiss unit was
/// fighting; the freed unit, which had not acted, must charge in turn, and the players had
/// listed the Swiss to charge once, before the first charge. Commands & Colors, `tercio simulate
/// commands-colors-ecw/edgehill-1642 --games 200 --seed 5 --policy royalists=random --policy
/// parliament=random`, battle 52: the Royalists' hand held only an Evade (four cards on their
/// Stand of Pikes track), which the rules refused as the turn's card (decision 66).
#[test]
fn the_two_battles_that_stalled_play_to_their_end() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    for (rules, file, seed, limit) in [
        (
            "egc",
            "el-gran-capitan/cerignola-1503.toml",
            battle_seed(7, 230),
            20,
        ),
        (
            "ecw",
            "commands-colors-ecw/edgehill-1642.toml",
            battle_seed(5, 52),
            60,
        ),
    ] {
        let sim = registry::lookup(rules)
            .expect("rules")
            .simulator()
            .expect("simulator");
        let sc = load(&dir.join(file));
        let b = sim
            .play(&sc, seed, &["random", "random"], limit, true)
            .unwrap_or_else(|e| panic!("{file} seed {seed}: {e}"));
        // Played again as a recorded game, every action is accepted.
        let mut g = Game::new(sc.clone(), seed).expect("game");
        for (k, action) in b.log.iter().enumerate() {
            if let Err(e) = g.act(action.clone()) {
                panic!("{file}: action {k} {action} refused by the game: {e}");
            }
        }
    }
}
