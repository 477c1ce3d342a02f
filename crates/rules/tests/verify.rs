//! Verifiable dice: the commitment, verification event by event, faces thrown at the table, and
//! the dice and battle reports computed from the same plans.

mod common;
use common::root;
use serde_json::json;
use tercio_i18n::Lang;
use tercio_rules::game::{commitment, Game, GameError};
use tercio_rules::report::{battle_report, dice_report, scores_by_turn, Reveal};
use tercio_rules::scenario::parse;
use tercio_rules::Viewer;

fn game(seed: u64) -> Game {
    let p = root().join("scenarios/el-gran-capitan/cerignola-1503.toml");
    let sc = parse("cerignola", &std::fs::read_to_string(p).expect("read")).expect("valid");
    let mut g = Game::new(sc, seed).expect("game");
    g.nonce = "00112233445566778899aabbccddeeff".into();
    g
}

fn played(seed: u64) -> Game {
    let mut g = game(seed);
    tercio_rules::autoplay::play(&mut g, &[3, 1, 4, 1, 5, 9, 2, 6], 30).expect("play");
    g
}

#[test]
fn the_commitment_binds_seed_and_nonce() {
    use sha2::{Digest, Sha256};
    use tercio_rules::game::ChainVersion;
    use tercio_rules::seal::scenario_digest;
    let mut g = game(7);
    g.game_id = "0123456789abcdef".into();
    let c = g.commitment();
    assert_eq!(c.len(), 64);
    // Version 2: the seed, the nonce and what identifies the game, each on its line.
    let text = format!(
        "tercio-seed-commitment/2\n7\n{}\n0123456789abcdef\nel-gran-capitan\n{}\n{}",
        g.nonce,
        g.rules_version,
        scenario_digest(&g.scenario)
    );
    assert_eq!(c, tercio_core::hex(&Sha256::digest(text.as_bytes())));
    let changed = |f: &dyn Fn(&mut Game)| {
        let mut h = g.clone();
        f(&mut h);
        h.commitment()
    };
    for (what, other) in [
        ("seed", changed(&|h| h.seed = 8)),
        ("nonce", changed(&|h| h.nonce = "other".into())),
        (
            "game id",
            changed(&|h| h.game_id = "fedcba9876543210".into()),
        ),
        (
            "rule set",
            changed(&|h| h.ruleset = "bloody-dismal-fight".into()),
        ),
        ("rules version", changed(&|h| h.rules_version += 1)),
        (
            "scenario",
            changed(&|h| {
                let mut raw = serde_json::to_value(&h.scenario).expect("scenario");
                raw["title"] = json!("Another battle");
                h.scenario = tercio_rules::scenario::Scenario::recorded(
                    serde_json::from_value(raw).expect("scenario file"),
                    &tercio_rules::scenario::Source {
                        file: "t",
                        text: "",
                        path: "scenario",
                    },
                );
            }),
        ),
    ] {
        assert_ne!(other, c, "the commitment binds the {what}");
    }
    // Version 1, a game recorded before: the seed and the nonce alone.
    g.chain_version = ChainVersion::V1;
    assert_eq!(g.commitment(), commitment(7, &g.nonce));
    assert_ne!(g.commitment(), commitment(8, &g.nonce));
    assert_ne!(g.commitment(), commitment(7, "other"));
    // Pinned (computed independently: Python's hashlib over the same text): the commitment
    // published for a game must never change with a code change.
    assert_eq!(
        commitment(1, ""),
        "ed10b67396a75717e64ad1ad1c75b8ac7a032b9e1fa860d6c25573ee0b10886e"
    );
}

#[test]
fn a_played_game_verifies_and_one_altered_face_is_caught() {
    let g = played(11);
    let checked = g.verify().expect("verifies");
    assert!(checked.len() > 5);
    let events = g
        .log
        .entries()
        .iter()
        .filter(|e| matches!(e, tercio_core::LogEntry::Event { .. }))
        .count();
    assert_eq!(checked.len(), events, "every event, voided ones too");
    assert_eq!(
        checked.iter().filter(|c| !c.voided).count(),
        g.log.live().count()
    );
    let mut tampered = g.clone();
    let mut entries = g.log.entries().to_vec();
    let face = entries
        .iter_mut()
        .find_map(|e| match e {
            tercio_core::LogEntry::Event { event, .. } if !event.draws.is_empty() => {
                event.draws.last_mut()
            }
            _ => None,
        })
        .expect("an event with dice");
    face.face = face.face % 6 + 1;
    tampered.log = tercio_core::EventLog::from_entries(entries).expect("numbered");
    let err = tampered.verify().expect_err("an altered face is detected");
    assert!(
        err.contains("dice differ") || err.contains("different outcome"),
        "{err}"
    );
    // A different seed does not verify the same log either.
    let mut reseeded = g.clone();
    reseeded.seed ^= 1;
    assert!(reseeded.verify().is_err());
}

#[test]
fn faces_thrown_at_the_table_are_checked_recorded_and_verified() {
    let mut g = game(3);
    let before = g.clone();
    let init = json!({"action": "initiative"});
    let need = g.needed(&init, &[]).expect("needed").expect("dice");
    assert_eq!(need.len(), 2, "one die per side: {need:?}");
    // Out of range, too few and too many are refused naming the faces field; nothing changes.
    for bad in [&[7u8, 2][..], &[3][..], &[3, 2, 1][..], &[0, 1][..]] {
        match g.act_entered(init.clone(), bad) {
            Err(GameError::Rejected(r)) => {
                assert_eq!(r.code, "bad-faces");
                assert_eq!(r.field.as_deref(), Some("faces"));
            }
            other => panic!("{bad:?}: {other:?}"),
        }
        assert_eq!(g, before);
    }
    let ev = g
        .act_entered(init.clone(), &[6, 1])
        .expect("entered")
        .clone();
    assert!(ev.entered);
    assert_eq!(ev.draws.iter().map(|d| d.face).collect::<Vec<_>>(), [6, 1]);
    assert_eq!(ev.stream_pos, 0, "the seed's stream did not move");
    // Then a seeded roll continues the stream from where it was.
    let side = g.state["initiative_side"]
        .as_str()
        .expect("side")
        .to_string();
    let leader = g.state["leaders"]
        .as_object()
        .and_then(|l| l.values().find(|l| l["side"] == side.as_str()))
        .and_then(|l| l["id"].as_str())
        .expect("leader")
        .to_string();
    g.act(json!({"action": "command", "leader": leader}))
        .expect("command");
    let checked = g.verify().expect("verifies");
    assert!(checked[0].entered && !checked[1].entered);
    assert_eq!(checked[1].faces.len(), 1);
    // An entered face altered afterwards gives a different outcome, or different effects.
    // (The log is written only by appending: the tampering is done to a copy of its entries.)
    let mut t = g.clone();
    let mut entries = t.log.entries().to_vec();
    if let tercio_core::LogEntry::Event { event, .. } = &mut entries[0] {
        event.draws[0].face = 1;
        event.draws[1].face = 6;
    }
    t.log = tercio_core::EventLog::from_entries(entries).expect("numbered");
    assert!(t.verify().is_err());
}

#[test]
fn the_dice_report_counts_every_face_and_expects_every_outcome() {
    let g = played(5);
    let r = dice_report(&g, &Viewer::Spectator).expect("report");
    let draws: usize = g
        .log
        .entries()
        .iter()
        .filter_map(|e| match e {
            tercio_core::LogEntry::Event { event, .. } => Some(event.draws.len()),
            _ => None,
        })
        .sum();
    assert_eq!(
        r.faces.iter().map(|t| t.thrown).sum::<u64>() as usize,
        draws
    );
    for t in &r.faces {
        assert_eq!(t.counts.iter().sum::<u64>(), t.thrown);
        assert!((0.0..=1.0).contains(&t.p_value));
        assert_eq!(t.source, "seed");
    }
    // For each (action, facet), expected counts sum to the number of times it was asked, and so
    // do the observed ones.
    let mut groups: std::collections::BTreeMap<(String, String), (f64, u64)> = Default::default();
    for row in &r.outcomes {
        let e = groups
            .entry((row.action.clone(), row.facet.clone()))
            .or_default();
        e.0 += row.expected;
        e.1 += row.observed;
    }
    assert!(!groups.is_empty());
    for ((a, f), (exp, obs)) in groups {
        assert!(
            (exp - obs as f64).abs() < 1e-6,
            "{a}/{f}: expected {exp}, observed {obs}"
        );
    }
}

#[test]
fn the_battle_report_charts_break_points_per_turn() {
    let g = played(9);
    let rows = scores_by_turn(&g).expect("rows");
    assert_eq!(rows.first().map(|r| r.0), Some(1));
    let last_turn = g.state["turn"].as_u64().expect("turn");
    assert_eq!(rows.last().map(|r| r.0), Some(last_turn));
    assert_eq!(rows.len() as u64, last_turn);
    let engine = g.engine().expect("engine");
    assert_eq!(
        rows.last().map(|r| r.1.clone()),
        Some(engine.scores(&g.state))
    );
    let c = g.commitment();
    let hidden = battle_report(
        &g,
        &Viewer::Spectator,
        &Reveal {
            commitment: &c,
            seed: None,
            concluded: false,
            fingerprint: None,
        },
        Lang::En,
    )
    .expect("md");
    assert!(hidden.contains("## Break points, turn by turn"));
    assert!(hidden.contains(&c));
    assert!(!hidden.contains(&format!("Seed: `{}`", g.seed)));
    for (t, _) in &rows {
        assert!(hidden.contains(&format!("\n| {t} |")), "turn {t} row");
    }
    let shown = battle_report(
        &g,
        &Viewer::GameMaster,
        &Reveal {
            commitment: &c,
            seed: Some((g.seed, &g.nonce)),
            concluded: true,
            fingerprint: Some(&g.log_digest()),
        },
        Lang::En,
    )
    .expect("md");
    assert!(shown.contains(&format!("Seed: `{}`", g.seed)));
    assert!(shown.contains(&g.log_digest()));
    if g.state["phase"] != "over" {
        assert!(shown.contains("The game master ended the game"));
    }
    // The same report in Italian: its own words from the catalogue, the same facts.
    let italian = battle_report(
        &g,
        &Viewer::GameMaster,
        &Reveal {
            commitment: &c,
            seed: Some((g.seed, &g.nonce)),
            concluded: true,
            fingerprint: Some(&g.log_digest()),
        },
        Lang::It,
    )
    .expect("md");
    for heading in [
        "## Risultato",
        "## Soglie di rotta, turno per turno",
        "## Registro",
        "## Dadi",
    ] {
        assert!(italian.contains(heading), "no {heading}: {italian}");
    }
    assert!(italian.contains(&format!("Seme: `{}`", g.seed)));
    assert!(italian.contains(&g.log_digest()));
    if g.state["phase"] != "over" {
        assert!(italian.contains("L'arbitro ha chiuso la partita"));
    }
    for (t, _) in &rows {
        assert!(italian.contains(&format!("\n| {t} |")), "turn {t} row");
    }
    assert!(!italian.contains("report.") && !italian.contains("Break points"));
}

#[test]
fn the_log_fingerprint_changes_with_any_entry() {
    let g = played(13);
    let d = g.log_digest();
    assert_eq!(d.len(), 64);
    let mut shorter = g.clone();
    let mut entries = g.log.entries().to_vec();
    entries.pop();
    shorter.log = tercio_core::EventLog::from_entries(entries).expect("numbered");
    assert_ne!(shorter.log_digest(), d, "a dropped entry shows");
    let mut entries = g.log.entries().to_vec();
    let last = entries
        .iter_mut()
        .rev()
        .find_map(|e| match e {
            tercio_core::LogEntry::Event { event, .. } => Some(event),
            _ => None,
        })
        .expect("an event");
    last.by = Some("side:french".into());
    let mut signed = g.clone();
    signed.log = tercio_core::EventLog::from_entries(entries).expect("numbered");
    assert_ne!(signed.log_digest(), d, "who recorded it is part of the log");
    assert_eq!(g.clone().log_digest(), d);
}

/// A game played under older rules is held to the seed and its log, not to today's rules: an
/// event today's rules resolve differently is listed as "rules changed since", while a die that is
/// not the seed's still fails. A game of today's rules version fails on the same difference.
#[test]
fn a_game_of_older_rules_lists_what_changed_and_still_checks_every_die() {
    let g = played(11);
    assert!(g
        .verify()
        .expect("verifies")
        .iter()
        .all(|c| c.changed.is_none()));
    assert_eq!(
        g.rules_version,
        tercio_rules::lookup("egc").expect("egc").rules_version()
    );
    // Today's rules resolving an event differently: its recorded explanation is not today's.
    let (seq, index) = g
        .log
        .iter()
        .enumerate()
        .find_map(|(i, e)| match e {
            tercio_core::LogEntry::Event { seq, event } if !event.draws.is_empty() => {
                Some((*seq, i))
            }
            _ => None,
        })
        .expect("an event with dice");
    let mut v = serde_json::to_value(&g).expect("json");
    v["log"]["entries"][index]["event"]["resolution"]["summary"] = json!("as the old rules had it");
    let current = Game::from_json("g.json", &v.to_string()).expect("game");
    let e = current
        .verify()
        .expect_err("today's rules: a different outcome");
    assert_eq!(
        e,
        format!("event {seq}: the same dice give a different outcome")
    );
    // The same game, recorded under an older version of the rules.
    v["rules_version"] = json!(0);
    let older = Game::from_json("g.json", &v.to_string()).expect("game");
    let checked = older.verify().expect("verifies against the seed");
    let changed: Vec<_> = checked
        .iter()
        .filter_map(|c| c.changed.as_ref().map(|e| (c.seq, e)))
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0].0, seq);
    // A die that is not the seed's fails, whatever the rules version.
    let face = v["log"]["entries"][index]["event"]["draws"][0]["face"]
        .as_u64()
        .expect("face");
    v["log"]["entries"][index]["event"]["draws"][0]["face"] = json!(face % 6 + 1);
    let tampered = Game::from_json("g.json", &v.to_string()).expect("game");
    let e = tampered.verify().expect_err("a die not the seed's");
    assert!(e.starts_with(&format!("event {seq}: die 1 ")), "{e}");
    assert!(e.contains("not the seed's"), "{e}");
    // A game file written before games recorded their rules version reads as version 1.
    v.as_object_mut().expect("object").remove("rules_version");
    assert_eq!(
        Game::from_json("g.json", &v.to_string())
            .expect("game")
            .rules_version,
        1
    );
}

/// Names in the battle report are text: HTML and Markdown in a scenario's title or a side's name
/// are written escaped, never as markup.
#[test]
fn the_battle_report_writes_names_as_text() {
    let evil = "<script>alert(1)</script> **bold** [link](http://x) | cell";
    let p = root().join("scenarios/el-gran-capitan/cerignola-1503.toml");
    let src = std::fs::read_to_string(p)
        .expect("read")
        .replacen(
            "title = { en = \"Cerignola\", it = \"Cerignola\" }",
            &format!("title = \"{evil}\""),
            1,
        )
        // The side's English name (the report is in English; the scenario gives both).
        .replacen(
            "name = { en = \"Spanish army of Gonzalo Fernandez de Cordoba\",",
            &format!("name = {{ en = \"{evil}\","),
            1,
        );
    assert!(src.matches(evil).count() == 2, "{src}");
    let sc = parse("cerignola", &src).expect("valid");
    let g = Game::new(sc, 3).expect("game");
    let md = battle_report(
        &g,
        &Viewer::GameMaster,
        &Reveal {
            commitment: &g.commitment(),
            seed: None,
            concluded: false,
            fingerprint: None,
        },
        Lang::En,
    )
    .expect("report");
    assert!(!md.contains("<script>"), "{md}");
    assert!(
        !md.contains("**bold**") && !md.contains("[link](http://x)"),
        "{md}"
    );
    assert!(md.contains("\\<script\\>alert(1)\\</script\\>"), "{md}");
    assert!(md.starts_with("# \\<script\\>"), "{md}");
    // The break-point table keeps its columns: a | in a name does not open a new one.
    assert!(md.contains("\\| cell |"), "{md}");
}
