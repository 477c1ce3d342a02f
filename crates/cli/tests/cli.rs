//! The command line, as a user runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tercio(args: &[&str]) -> Output {
    // The output's language is pinned: the machine's own LANG must not change what is read.
    Command::new(env!("CARGO_BIN_EXE_tercio"))
        .env("TERCIO_LANG", "en")
        .args(args)
        .current_dir(root())
        .output()
        .expect("run tercio")
}

fn ok(args: &[&str]) -> String {
    let o = tercio(args);
    assert!(
        o.status.success(),
        "tercio {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn err(args: &[&str]) -> String {
    let o = tercio(args);
    assert!(!o.status.success(), "tercio {args:?} should fail");
    assert!(o.stdout.is_empty() || !String::from_utf8_lossy(&o.stderr).is_empty());
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn rulesets_lists_the_five() {
    let v: serde_json::Value = serde_json::from_str(&ok(&["rulesets", "--json"])).expect("json");
    let ids: Vec<(&str, bool)> = v
        .as_array()
        .expect("list")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or(""),
                r["available"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        ids,
        vec![
            ("bloody-dismal-fight", true),
            ("el-gran-capitan", true),
            ("sword-and-flame-renaissance", true),
            ("callan-renaissance", true),
            ("commands-colors-ecw", true)
        ]
    );
    // A rule set refuses another rule set's action, naming the field.
    let e = err(&[
        "resolve",
        "--rules",
        "callan",
        "examples/el-gran-capitan/advance.json",
    ]);
    assert!(e.contains("action"), "{e}");
    let e = err(&[
        "odds",
        "--rules",
        "dba",
        "examples/el-gran-capitan/advance.json",
    ]);
    assert!(e.contains("unknown rule set \"dba\""), "{e}");
}

#[test]
fn resolve_is_reproducible_and_explains_itself() {
    let args = [
        "resolve",
        "--rules",
        "egc",
        "--seed",
        "42",
        "--odds",
        "examples/el-gran-capitan/charge-through-defensive-fire.json",
    ];
    let a = ok(&args);
    assert_eq!(a, ok(&args), "same seed, same output");
    assert!(
        a.contains("Defensive fire")
            && a.contains("Gendarmes as a target")
            && a.contains("Exact odds"),
        "{a}"
    );
    let j: serde_json::Value = serde_json::from_str(&ok(&[
        "resolve",
        "--rules",
        "egc",
        "--seed",
        "42",
        "--json",
        "examples/el-gran-capitan/fire-arquebusiers-at-swiss.json",
    ]))
    .expect("json");
    assert_eq!(j["draws"].as_array().map(Vec::len), Some(2));
    assert_eq!(j["seed"], 42);
    let odds: serde_json::Value = serde_json::from_str(&ok(&[
        "odds",
        "--rules",
        "egc",
        "--json",
        "examples/el-gran-capitan/fire-arquebusiers-at-swiss.json",
    ]))
    .expect("json");
    assert!((odds["total"].as_f64().unwrap_or(0.0) - 1.0).abs() < 1e-9);
}

/// The odds say the final outcome first (issue 43, item 3): a charge through defensive fire is
/// told by its melee's result, not by its first stage; the stages follow. The JSON carries it as
/// `final`, the parts' outcomes, as the odds route does.
#[test]
fn odds_tell_the_final_outcome_first() {
    let file = "examples/el-gran-capitan/charge-through-defensive-fire.json";
    let text = ok(&["odds", "--rules", "egc", file]);
    let fin = text.find("Final outcome:").expect("a final outcome");
    let steps = text.find("Each step:").expect("the steps");
    assert!(fin < steps, "{text}");
    let told = &text[fin..steps];
    for said in [
        "melee: actor ahead",
        "melee: tie",
        "melee: target ahead",
        "stopped by fire",
    ] {
        assert!(told.contains(said), "{said}: {text}");
    }
    let j: serde_json::Value =
        serde_json::from_str(&ok(&["odds", "--rules", "egc", "--json", file])).expect("json");
    let groups = j["final"][0]["groups"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let total: f64 = groups.iter().filter_map(|g| g["p"].as_f64()).sum::<f64>()
        + j["final"][0]["other"].as_f64().unwrap_or(0.0);
    assert!((total - 1.0).abs() < 1e-9, "{j}");
    assert!(
        groups
            .iter()
            .any(|g| g["values"].to_string().contains("actor ahead")),
        "{j}"
    );
}

#[test]
fn bad_input_names_file_line_column_and_field() {
    let dir = tempfile::tempdir().expect("tmp");
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\n  \"action\": \"fire\",\n  \"actor\": {\"type\": \"arquebusiers\" \"bases\": 2}\n}\n",
    )
    .expect("write");
    let e = err(&[
        "resolve",
        "--rules",
        "egc",
        bad.to_str().unwrap_or_default(),
    ]);
    assert!(e.contains("bad.json:3:"), "{e}");
    // A flag the troop type cannot have, where it can have none: the list says so.
    let flag = dir.path().join("flag.json");
    std::fs::write(
        &flag,
        r#"{"action": "charge", "actor": {"type": "gendarmes", "bases": 4, "flags": ["zzz"]},
            "target": {"type": "footmen", "bases": 4}}"#,
    )
    .expect("write");
    let e = err(&["odds", "--rules", "egc", flag.to_str().unwrap_or_default()]);
    assert!(
        e.contains("actor.flags: unknown flag \"zzz\" for Gendarmes; allowed: none"),
        "{e}"
    );
    let e = err(&[
        "resolve",
        "--rules",
        "egc",
        "examples/el-gran-capitan/rejected-march-formation-charge.json",
    ]);
    assert!(
        e.contains("actor:") && e.contains("march-formation-cannot-charge"),
        "{e}"
    );
    let e = err(&[
        "odds",
        "--rules",
        "egc",
        "examples/bloody-dismal-fight/charge-knights-downhill-vs-knights.json",
    ]);
    assert!(e.contains("unknown troop type \"mounted-knights\""), "{e}");
    let unasked = dir.path().join("q.json");
    std::fs::write(&unasked, r#"{"action":"charge","actor":{"type":"gendarmes","bases":4},"target":{"type":"arquebusiers","bases":4}}"#).expect("write");
    let e = err(&[
        "odds",
        "--rules",
        "egc",
        unasked.to_str().unwrap_or_default(),
    ]);
    assert!(
        e.contains("crosses_arc_of_fire") && e.contains("[question]"),
        "{e}"
    );
}

#[test]
fn scenario_check_reports_all_problems() {
    let mut args = vec!["scenario", "check"];
    let files: Vec<String> = [
        "bloody-dismal-fight/agincourt-1415",
        "bloody-dismal-fight/brustem-1467",
        "el-gran-capitan/cerignola-1503",
        "el-gran-capitan/pavia-1525",
    ]
    .iter()
    .map(|f| format!("scenarios/{f}.toml"))
    .collect();
    args.extend(files.iter().map(String::as_str));
    let out = ok(&args);
    assert_eq!(out.matches(": ok").count(), 4, "{out}");
    let dir = tempfile::tempdir().expect("tmp");
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "ruleset = \"abdf\"\ntitle = \"t\"\n[[sides]]\nid = \"a\"\nname = \"A\"\nrole = \"attacker\"\n[[sides]]\nid = \"b\"\nname = \"B\"\nrole = \"attacker\"\n").expect("write");
    let e = err(&["scenario", "check", bad.to_str().unwrap_or_default()]);
    assert!(
        e.contains("bad.toml:10:8: sides[1].role: one side must be the attacker"),
        "{e}"
    );
    assert!(e.contains("leaders: missing"), "{e}");
    assert!(e.contains("units: missing"), "{e}");
}

/// A text a player reads that a scenario gives in one language only is a warning at its line and
/// column, and the file is still accepted (exit status 0); the twelve shipped scenarios give every
/// such text in both languages, so they print none. (Fails on a reader that refuses the
/// two-language form, or on one that says nothing of the missing translations.)
#[test]
fn scenario_check_warns_of_each_missing_translation_at_its_line_and_column() {
    let mut shipped: Vec<String> = std::fs::read_dir(root().join("scenarios"))
        .expect("scenarios")
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).expect("dir").flatten())
        .map(|f| f.path().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".toml"))
        .collect();
    shipped.sort();
    assert_eq!(shipped.len(), 12, "{shipped:?}");
    let mut args = vec!["scenario", "check"];
    args.extend(shipped.iter().map(String::as_str));
    let o = tercio(&args);
    let (out, e) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{e}");
    assert_eq!(out.matches(": ok").count(), 12, "{out}");
    assert!(
        !e.contains("warning"),
        "every shipped text in both languages: {e}"
    );

    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("half.toml");
    let path = file.to_str().unwrap_or_default();
    std::fs::write(
        &file,
        r#"ruleset = "el-gran-capitan"
title = { en = "Cerignola", it = "Cerignola" }
place = "Cerignola, Apulia"
notes.it = """
Solo in italiano.
"""

[[sides]]
id = "spanish"
name = { en = "Spanish army", it = "Esercito spagnolo" }
role = "defender"

[[sides]]
id = "french"
name = { it = "Esercito francese" }
role = "attacker"

[[leaders]]
id = "gonzalo"
name = { en = "Gonzalo", it = "Gonzalo" }
side = "spanish"
rank = "army"

[[leaders]]
id = "nemours"
name = { en = "Nemours", it = "" }
side = "french"
rank = "army"

[[units]]
id = "swiss"
name = { en = "Swiss pikes (first block)" }
side = "french"
type = "swiss-pike"
bases = 4
leader = "nemours"

[[units]]
id = "arquebusiers"
name = { en = "Arquebusiers", it = "Archibugieri" }
side = "spanish"
type = "arquebusiers"
bases = 2
leader = "gonzalo"
"#,
    )
    .expect("write");
    let o = tercio(&["scenario", "check", path]);
    let (out, e) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "warnings only: exit 0: {e}");
    assert!(
        out.contains("half.toml: ok") && out.contains("5 texts to translate"),
        "{out}"
    );
    for line in [
        format!("{path}:3:9: warning: place = \"Cerignola, Apulia\": in one language only"),
        format!("{path}:4:1: warning: notes = \"Solo in italiano.\": no English (en) text"),
        format!("{path}:15:8: warning: sides[1].name = \"Esercito francese\": no English (en) text"),
        format!("{path}:26:8: warning: leaders[1].name = \"Nemours\": no Italian (it) text"),
        format!("{path}:32:8: warning: units[0].name = \"Swiss pikes (first block)\": no Italian (it) text"),
    ] {
        assert!(e.contains(&line), "{line}\nin\n{e}");
    }
    assert_eq!(e.matches("warning:").count(), 5, "{e}");
}

fn act_all(game: &Path, dir: &str) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        })
        .collect();
    files.sort();
    for f in files {
        ok(&[
            "game",
            "act",
            game.to_str().unwrap_or_default(),
            f.to_str().unwrap_or_default(),
        ]);
    }
}

#[test]
fn a_game_starts_from_a_shipped_scenarios_id_as_from_its_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let by_id = dir.path().join("by-id.json");
    let by_file = dir.path().join("by-file.json");
    for (scenario, out) in [
        ("el-gran-capitan/cerignola-1503", &by_id),
        ("scenarios/el-gran-capitan/cerignola-1503.toml", &by_file),
    ] {
        ok(&[
            "game",
            "new",
            scenario,
            "--seed",
            "7",
            "--out",
            out.to_str().unwrap_or_default(),
        ]);
    }
    let game = |p: &PathBuf| -> serde_json::Value {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).expect("read")).expect("json");
        // Each game draws its own nonce.
        v.as_object_mut().map(|o| o.remove("nonce"));
        v
    };
    assert_eq!(game(&by_id), game(&by_file));
    let e = err(&[
        "game",
        "new",
        "el-gran-capitan/nowhere",
        "--out",
        dir.path().join("x.json").to_str().unwrap_or_default(),
    ]);
    assert!(
        e.contains("el-gran-capitan/nowhere: no such file, nor a shipped scenario's id")
            && e.contains("el-gran-capitan/cerignola-1503"),
        "{e}"
    );
}

#[test]
fn a_game_from_the_command_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let game = dir.path().join("agincourt.json");
    let g = game.to_str().unwrap_or_default();
    let out = ok(&[
        "game",
        "new",
        "scenarios/bloody-dismal-fight/agincourt-1415.toml",
        "--seed",
        "1",
        "--out",
        g,
    ]);
    assert!(
        out.contains("English army of Henry V (defender): lost 0 of 12"),
        "{out}"
    );
    let e = err(&[
        "game",
        "new",
        "scenarios/bloody-dismal-fight/agincourt-1415.toml",
        "--out",
        g,
    ]);
    assert!(e.contains("already exists"), "{e}");
    act_all(&game, "examples/bloody-dismal-fight/game");
    let shown = ok(&["game", "show", g]);
    assert!(
        shown.contains("Turn 2") && shown.contains("camp sacked") && shown.contains("stakes"),
        "{shown}"
    );
    let before = std::fs::read_to_string(&game).expect("read");
    let e = err(&[
        "game",
        "act",
        g,
        "examples/bloody-dismal-fight/game/07-end-turn.json",
    ]);
    assert!(e.contains("wrong-phase"), "{e}");
    assert_eq!(
        before,
        std::fs::read_to_string(&game).expect("read"),
        "a rejected action changes nothing on file"
    );
    ok(&["game", "undo", g]);
    let shown = ok(&["game", "show", "--log", g]);
    assert!(
        shown.contains("[VOIDED]") && shown.contains("void of event 12"),
        "{shown}"
    );
    assert!(ok(&["replay", g]).contains("replay ok — 12 events"));
    // Tamper with a recorded face: replay must notice.
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&game).expect("read")).expect("json");
    let draws = v["log"]["entries"][0]["event"]["draws"]
        .as_array_mut()
        .expect("draws");
    let f = draws[0]["face"].as_u64().unwrap_or(1);
    draws[0]["face"] = serde_json::json!(if f == 6 { 1 } else { f + 1 });
    std::fs::write(&game, serde_json::to_string(&v).expect("json")).expect("write");
    assert!(err(&["replay", g]).contains("replay FAILED"));
    std::fs::write(&game, "{ not a game").expect("write");
    assert!(err(&["game", "show", g]).contains(":1:3: not a Tercio game file"));
}

#[test]
fn the_egc_example_turn() {
    let dir = tempfile::tempdir().expect("tmp");
    let game = dir.path().join("cerignola.json");
    let g = game.to_str().unwrap_or_default();
    ok(&[
        "game",
        "new",
        "scenarios/el-gran-capitan/cerignola-1503.toml",
        "--seed",
        "5",
        "--out",
        g,
    ]);
    act_all(&game, "examples/el-gran-capitan/game");
    assert!(ok(&["game", "show", g]).contains("Turn 2"));
    assert!(ok(&["replay", g]).contains("replay ok — 13 events"));
    let reference = ok(&["reference", "--rules", "egc"]);
    assert!(reference.contains("Heavy Cannon") && reference.contains("Very Rough Terrain"));
    assert!(reference.contains("troops.<type>.impact") && reference.contains("bp_camp"));
}

/// A new game of TSATF's Bicocca in a temporary directory.
fn bicocca(seed: u64) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tmp");
    let game = dir.path().join("bicocca.json");
    ok(&[
        "game",
        "new",
        "scenarios/sword-and-flame-renaissance/bicocca-1522.toml",
        "--seed",
        &seed.to_string(),
        "--out",
        game.to_str().unwrap_or_default(),
    ]);
    (dir, game)
}

#[test]
fn a_tsatf_game_shows_its_odds_before_the_roll() {
    let (dir, game) = bicocca(4);
    let g = game.to_str().unwrap_or_default();
    let action = |name: &str, v: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, v).expect("write");
        p.to_str().unwrap_or_default().to_string()
    };
    let start = action("start.json", r#"{"action": "start-turn"}"#);
    ok(&["game", "act", g, &start]);
    // The card's colour: as many red as black left.
    let draw = action("draw.json", r#"{"action": "draw"}"#);
    let odds = ok(&["game", "odds", g, &draw]);
    assert!(odds.contains("red                        50.00%"), "{odds}");
    // Nothing was recorded by asking.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&game).expect("read")).expect("json");
    assert_eq!(v["log"]["entries"].as_array().map(Vec::len), Some(1));
    // A unit's fire before the fire step: its own rules only.
    let fire = action(
        "fire.json",
        r#"{"action": "fire", "unit": "spanish-shot-left", "target": "stein-swiss-first", "range": "long"}"#,
    );
    let odds = ok(&["game", "odds", g, &fire]);
    assert!(odds.contains("hits"), "{odds}");
    let e = err(&["game", "act", g, &fire]);
    assert!(e.contains("wrong-phase"), "{e}");
}

#[test]
fn the_tsatf_example_turn_plays_through() {
    // The walkthrough of docs/cli.md: Bicocca, seed 10, every action file in order.
    let (_dir, game) = bicocca(10);
    let g = game.to_str().unwrap_or_default();
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(root().join("examples/sword-and-flame-renaissance/game"))
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
    files.sort();
    assert!(files.len() > 40, "the whole turn");
    for f in &files {
        ok(&["game", "act", g, f.to_str().unwrap_or_default()]);
    }
    let shown = ok(&["game", "show", g]);
    assert!(shown.contains("Turn 2"), "{shown}");
    ok(&["replay", g]);
}

#[test]
fn the_ecw_example_turns_play_through() {
    // The walkthrough of docs/cli.md: Tibbermore, seed 3, every action file in order.
    let dir = tempfile::tempdir().expect("tmp");
    let game = dir.path().join("tibbermore.game.json");
    let g = game.to_str().unwrap_or_default();
    let scenario = root().join("scenarios/commands-colors-ecw/tibbermore-1644.toml");
    ok(&[
        "game",
        "new",
        scenario.to_str().unwrap_or_default(),
        "--seed",
        "3",
        "--out",
        g,
    ]);
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(root().join("examples/commands-colors-ecw/game"))
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
    files.sort();
    assert_eq!(files.len(), 20, "two player-turns");
    let mut outcomes = Vec::new();
    for f in &files {
        let out = ok(&["game", "act", g, f.to_str().unwrap_or_default()]);
        outcomes.push(
            out.lines()
                .filter(|l| l.starts_with("Outcome:"))
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    // The figures docs/cli.md shows.
    assert!(
        outcomes[7].contains(
            "Covenanter levies (right of the foot) loses 1 block(s) and retreats 2 hex(es)"
        ),
        "{}",
        outcomes[7]
    );
    assert!(
        outcomes[18].contains("holds and battles back with 3 dice"),
        "{}",
        outcomes[18]
    );
    let shown = ok(&["game", "show", g]);
    assert!(shown.contains("Turn 3"), "{shown}");
    ok(&["replay", g]);
}

/// `tercio` with the given language variables (and no others).
fn tercio_env(args: &[&str], vars: &[(&str, &str)]) -> String {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tercio"));
    c.args(args).current_dir(root());
    c.env_remove("TERCIO_LANG").env_remove("LANG");
    for (k, v) in vars {
        c.env(k, v);
    }
    let o = c.output().expect("run tercio");
    assert!(
        o.status.success(),
        "tercio {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).to_string()
}

#[test]
fn engine_messages_print_in_the_chosen_language() {
    let dir = tempfile::tempdir().expect("tmp");
    let game = dir.path().join("g.json");
    let g = game.to_str().unwrap_or_default();
    ok(&[
        "game",
        "new",
        "scenarios/el-gran-capitan/cerignola-1503.toml",
        "--seed",
        "3",
        "--out",
        g,
    ]);
    // A language-neutral message where the rules would put one, in the state; the same text as
    // the battle's title, which a person wrote, is shown as written (issue 16, item 14).
    let marker = tercio_i18n::msg(tercio_i18n::keys::WEB_GAMES_TURN, &[("turn", "3")]);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&game).expect("read")).expect("json");
    v["scenario"]["title"] = serde_json::json!(marker);
    v["state"]["note"] = serde_json::json!(marker);
    std::fs::write(&game, serde_json::to_string(&v).expect("json")).expect("write");

    let show = |vars: &[(&str, &str)], lang: Option<&str>| {
        let mut args = vec!["game", "show", g];
        if let Some(l) = lang {
            args.splice(0..0, ["--lang", l]);
        }
        tercio_env(&args, vars)
    };
    // The title line as written, then the engine's headline in the chosen language.
    let italian = |out: String| {
        assert!(out.starts_with(&format!("{marker} (")), "{out}");
        out.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("Turno 1:"))
    };
    let english = |out: String| {
        assert!(out.starts_with(&format!("{marker} (")), "{out}");
        out.lines().nth(1).is_some_and(|l| l.starts_with("Turn 1:"))
    };
    assert!(english(show(&[], None)), "English by default");
    assert!(italian(show(&[], Some("it"))));
    assert!(italian(show(&[("TERCIO_LANG", "it")], None)));
    assert!(italian(show(&[("LANG", "it_IT.UTF-8")], None)));
    assert!(english(show(&[("LANG", "C.UTF-8")], None)));
    // The flag beats the variables; TERCIO_LANG beats LANG.
    assert!(english(show(&[("TERCIO_LANG", "it")], Some("en"))));
    assert!(english(show(
        &[("TERCIO_LANG", "en"), ("LANG", "it_IT.UTF-8")],
        None
    )));
    // JSON output too; the file keeps the message as recorded.
    let json = tercio_env(&["--lang", "it", "game", "show", "--json", g], &[]);
    let shown: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(shown["note"], "turno 3");
    assert!(std::fs::read_to_string(&game)
        .expect("read")
        .contains(&marker));
    // Only it and en.
    let e = err(&["--lang", "fr", "rulesets"]);
    assert!(
        e.contains("--lang") && e.contains("it") && e.contains("en"),
        "{e}"
    );
}

/// A rule set's message in `lang`, as the command line prints it.
fn said(lang: tercio_i18n::Lang, key: &str, args: &[(&str, &str)]) -> String {
    tercio_i18n::localize(lang, &tercio_i18n::msg(key, args))
}

#[test]
fn the_callan_example_turns_play_through_in_italian() {
    // The walkthrough of docs/cli.md: Pavia, seed 151, every action file in order, in Italian.
    use tercio_i18n::{keys, Lang};
    let dir = tempfile::tempdir().expect("tmp");
    let game = dir.path().join("pavia.game.json");
    let g = game.to_str().unwrap_or_default();
    let it = |args: &[&str]| {
        let mut a = vec!["--lang", "it"];
        a.extend_from_slice(args);
        let out = tercio_env(&a, &[]);
        assert!(
            !out.contains('⟦') && !out.contains('⟧'),
            "a message marker in tercio {args:?}: {out}"
        );
        out
    };
    let new = it(&[
        "game",
        "new",
        "scenarios/callan-renaissance/pavia-1525.toml",
        "--seed",
        "151",
        "--out",
        g,
    ]);
    assert!(
        new.contains(&said(Lang::It, keys::CALLAN_BOARD_SETUP, &[])),
        "{new}"
    );
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(root().join("examples/callan-renaissance/game"))
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
    files.sort();
    assert_eq!(files.len(), 33, "two turns");
    let mut out = std::collections::BTreeMap::new();
    for f in &files {
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let text = it(&["game", "act", g, f.to_str().unwrap_or_default()]);
        let outcome = text
            .lines()
            .find_map(|l| l.strip_prefix("Outcome:"))
            .unwrap_or_else(|| panic!("{name}: no outcome: {text}"));
        assert!(
            !outcome.trim().is_empty(),
            "{name}: the outcome says nothing: {text}"
        );
        out.insert(name, text);
    }
    let at = |file: &str| {
        out.iter()
            .find(|(n, _)| n.starts_with(file))
            .map(|(_, t)| t.as_str())
            .unwrap_or_else(|| panic!("no {file}"))
    };
    // The figures docs/cli.md shows. Niente soldi: Montmorency's Swiss go home before the battle.
    let start = at("01-");
    assert!(
        start.contains(&said(
            Lang::It,
            keys::CALLAN_NIENTE_WITHDRAWS,
            &[("unit", "Svizzeri di Montmorency"), ("face", "1")]
        )) && start.contains(&said(Lang::It, keys::CALLAN_SAID_STARTED, &[])),
        "{start}"
    );
    // The French guns open the battle: the heavy gun hits the dense Landsknecht block on 5-6.
    let gun = at("03-");
    assert!(
        gun.contains("Artiglieria pesante (Genouillac)")
            && gun.contains("Lanzichenecchi di Frundsberg")
            && gun.contains("d6 = 3")
            && gun.contains("d6 = 5")
            && gun.contains("d6 = 1"),
        "{gun}"
    );
    // The Joker: the Imperial gun fires again.
    assert!(at("07-").contains("Jolly"), "{}", at("07-"));
    assert!(at("08-").contains("Artiglieria imperiale"), "{}", at("08-"));
    // The Black Band rolls for the Vernavola: 3, difficult, for the whole battle (named as
    // the scenario's `[[obstacles]]` names it, in Italian).
    let vernavola = at("12-");
    assert!(
        vernavola.contains(&said(
            Lang::It,
            keys::CALLAN_OBSTACLE_ROLLED,
            &[
                ("id", "la Vernavola"),
                ("face", "3"),
                ("difficulty", "@callan.obstacle.difficile")
            ]
        )),
        "{vernavola}"
    );
    // The king's charge routs the Neapolitan light horse; Lannoy stops his gendarmes' panic.
    let charge = at("17-");
    assert!(
        charge.contains(&said(
            Lang::It,
            keys::CALLAN_ROUND_WINS,
            &[("unit", "Gendarmi del re (la guardia)")]
        )) && charge.contains("8 BW (32 cm)"),
        "{charge}"
    );
    let panic = at("18-");
    let rallied = said(
        Lang::It,
        keys::CALLAN_PANIC_RALLIED,
        &[("unit", "Gendarmi di Lannoy")],
    );
    assert!(
        panic.contains("d6 = 1") && panic.contains(&rallied),
        "{panic}"
    );
    // The outcome, which the log lists, is the test's result: the commander's re-roll held them.
    let outcome = panic
        .lines()
        .find(|l| l.starts_with("Outcome:"))
        .unwrap_or("");
    assert!(outcome.contains(&rallied), "{panic}");
    // Pescara's arquebusiers at the screened Swiss: one die fewer, and his re-roll of a miss.
    let volley = at("21-");
    assert!(
        volley.contains(&said(Lang::It, keys::CALLAN_MOD_SCREEN, &[]))
            && volley.contains("Archibugieri spagnoli di Pescara")
            && volley.contains("Svizzeri di Fleuranges"),
        "{volley}"
    );
    // Mala guerra: the Swiss attack Frundsberg's Landsknechts, lose the Doppelsöldner duel
    // by default and the round 3 hits to 8.
    let melee = at("29-");
    assert!(
        melee.contains(&said(Lang::It, keys::CALLAN_COMBAT_MALA_GUERRA, &[]))
            && melee.contains(&said(
                Lang::It,
                keys::CALLAN_ROUND_WINS,
                &[("unit", "Lanzichenecchi di Frundsberg")]
            )),
        "{melee}"
    );
    assert!(
        at("33-").contains(&said(
            Lang::It,
            keys::CALLAN_SAID_NEW_TURN,
            &[("turn", "3")]
        )),
        "{}",
        at("33-")
    );
    // The state in Italian: the rule set's own terms, no English gloss; in English, the gloss
    // beside the Italian term.
    let shown = it(&["game", "show", g]);
    for word in [
        "picchieri",
        "gendarmi",
        "archibugieri",
        "Gendarmi di Lannoy",
    ] {
        assert!(shown.contains(word), "{word}: {shown}");
    }
    assert!(!shown.contains("(pikemen)"), "{shown}");
    let en = tercio_env(&["--lang", "en", "game", "show", g], &[]);
    assert!(en.contains("picchieri (pikemen)"), "{en}");
    assert!(ok(&["replay", g]).contains("replay ok — 33 events"));
    // The seed's worked example: "il risultato più probabile è che i gendarmi debbano
    // ritirarsi", 59.29%.
    let odds = it(&[
        "odds",
        "--rules",
        "callan",
        "examples/callan-renaissance/round-example-gendarmi-lanzichenecchi.json",
    ]);
    let facet = said(
        Lang::It,
        keys::CALLAN_FACET_WITHDRAWS,
        &[("unit", "Gendarmi francesi")],
    );
    let after: Vec<&str> = odds
        .lines()
        .skip_while(|l| l.trim() != facet)
        .take(3)
        .collect();
    assert!(
        after.len() == 3 && after[2].contains("59.29%") && after[1].contains("40.71%"),
        "{odds}"
    );
}

/// A game recorded before a check was added, whose scenario fails it (a blank title, a colour
/// with a space): it still replays, verifies, shows and reports, and every command that reads it
/// warns, naming field, file, line and column.
#[test]
fn a_recorded_game_whose_scenario_fails_a_check_still_replays_and_verifies() {
    let f = "crates/cli/tests/fixtures/agincourt-fails-checks.game.json";
    let title = format!(
        "warning: {f}:8:14: scenario.title = \"\": must not be empty: the battle's name, shown on every page"
    );
    let colour = format!("warning: {f}:29:19: scenario.sides[1].colour = \"royal blue\": allowed:");
    for args in [
        vec!["replay", f],
        vec!["verify", f],
        vec!["game", "show", f],
        vec!["report", f],
    ] {
        let o = tercio(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{args:?}: {stderr}");
        assert!(stderr.contains(&title), "{args:?}: {stderr}");
        assert!(stderr.contains(&colour), "{args:?}: {stderr}");
        assert!(
            stderr.contains("the recorded scenario fails 2 checks"),
            "{args:?}: {stderr}"
        );
    }
    assert!(ok(&["replay", f]).contains("replay ok — 7 events"));
    assert!(ok(&["verify", f]).contains("verified — 7 events"));
    // A game whose scenario passes every check reads without a word of warning.
    let dir = tempfile::tempdir().expect("tmp");
    let game = dir.path().join("fine.game.json");
    let g = game.to_str().unwrap_or_default();
    ok(&[
        "game",
        "new",
        "scenarios/bloody-dismal-fight/agincourt-1415.toml",
        "--seed",
        "1",
        "--out",
        g,
    ]);
    let o = tercio(&["replay", g]);
    assert!(o.status.success());
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A game recorded when any house-rule value from -20 to 30 was accepted and the engine brought
/// it into range itself: the King's army dealt `ecw.hand_first = 20` cards was dealt 12. It still
/// replays and verifies, reading the value as 12, with a warning at its line and column.
#[test]
fn a_recorded_game_with_a_house_rule_out_of_range_replays_as_it_was_played() {
    let f = "crates/cli/tests/fixtures/edgehill-hand-out-of-range.game.json";
    let text = std::fs::read_to_string(root().join(f)).expect("fixture");
    let g: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(g["scenario"]["house_rules"]["ecw.hand_first"], 20);
    assert_eq!(
        g["state"]["sides"][0]["hand"].as_array().map(Vec::len),
        Some(12)
    );
    for args in [vec!["replay", f], vec!["verify", f]] {
        let o = tercio(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "warning: {f}:537:25: scenario.house_rules.ecw.hand_first = 20: allowed: an integer from 1 to 12"
            )),
            "{args:?}: {stderr}"
        );
    }
    assert!(ok(&["verify", f]).contains("verified — 1 events"));
    // A new game with the same value is refused, at its line and column.
    let dir = tempfile::tempdir().expect("tmp");
    let sc = dir.path().join("edgehill.toml");
    let src =
        std::fs::read_to_string(root().join("scenarios/commands-colors-ecw/edgehill-1642.toml"))
            .expect("scenario");
    std::fs::write(
        &sc,
        src.replacen("ecw.hand_first = 5", "ecw.hand_first = 20", 1),
    )
    .expect("write");
    let s = sc.to_str().unwrap_or_default();
    let e = err(&["scenario", "check", s]);
    // The value's line in the file (the notes above it run over several).
    let line = src
        .lines()
        .position(|l| l.starts_with("ecw.hand_first = 5"))
        .expect("the house rule")
        + 1;
    assert!(
        e.contains(&format!(
            "{s}:{line}:18: house_rules.ecw.hand_first = 20: allowed: an integer from 1 to 12"
        )),
        "{e}"
    );
}

#[test]
fn a_broken_game_file_is_refused_at_its_field_line_and_column() {
    let dir = tempfile::tempdir().expect("tmp");
    let text = std::fs::read_to_string(
        root().join("crates/cli/tests/fixtures/agincourt-fails-checks.game.json"),
    )
    .expect("fixture");
    let bad = dir.path().join("bad.game.json");
    std::fs::write(&bad, text.replacen("\"seq\": 3", "\"seq\": 4", 1)).expect("write");
    let b = bad.to_str().unwrap_or_default();
    for args in [vec!["replay", b], vec!["verify", b]] {
        let e = err(&args);
        assert!(
            e.contains(&format!("{b}:"))
                && e.contains(": log.entries[2].seq: not a Tercio game file: entries[2].seq: 4 where 3 was expected"),
            "{e}"
        );
    }
}

#[test]
fn matchup_prints_the_sheet_one_fight_and_writes_a_report() {
    // Every troop type against every other: one line per type, the forbidden pairs as "-".
    let out = ok(&["matchup", "--rules", "egc"]);
    assert!(
        out.starts_with("El Gran Capitán — charge, 4 bases each"),
        "{out}"
    );
    let cannon = out
        .lines()
        .find(|l| l.starts_with("heavy-cannon "))
        .expect("a cannon row");
    assert!(
        cannon.split_whitespace().skip(1).all(|c| c == "-"),
        "cannon never charge: {cannon}"
    );
    // One pair in detail, as JSON: the chances of each end sum to one.
    let v: serde_json::Value = serde_json::from_str(&ok(&[
        "matchup",
        "--rules",
        "egc",
        "--fight",
        "swiss-pike",
        "gendarmes",
        "--size",
        "6",
        "--json",
    ]))
    .expect("json");
    let sum: f64 = v["finish"]["ends"]
        .as_array()
        .expect("ends")
        .iter()
        .map(|e| e[1].as_f64().expect("p"))
        .sum();
    assert!((sum - 1.0).abs() < 1e-9, "{v}");
    assert!(v["finish"]["rounds"].as_f64().expect("rounds") > 1.0);
    // The report: a page of its own, in the language asked for.
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("balance.html");
    let out = ok(&[
        "matchup",
        "--rules",
        "abdf",
        "--action",
        "melee",
        "--lang",
        "it",
        "--report",
        file.to_str().expect("path"),
    ]);
    assert!(out.contains("balance.html"), "{out}");
    let html = std::fs::read_to_string(&file).expect("report");
    assert!(
        html.starts_with("<!doctype html><html lang=\"it\">"),
        "{html}"
    );
    assert!(
        html.contains("equilibrio") && html.contains("<svg"),
        "{html}"
    );
    assert!(!html.contains("<script"), "self-contained, no script");
}

#[test]
fn matchup_refuses_bad_input_by_name() {
    let e = err(&["matchup", "--rules", "egc", "--size", "9"]);
    assert!(e.contains("--size: 9 bases: allowed 1 to 6"), "{e}");
    let e = err(&["matchup", "--rules", "egc", "--action", "parley"]);
    assert!(e.contains("--action: \"parley\" is not an action"), "{e}");
    let e = err(&[
        "matchup",
        "--rules",
        "egc",
        "--fight",
        "gendarmes",
        "hussars",
    ]);
    assert!(
        e.contains("--fight TARGET: unknown troop type \"hussars\""),
        "{e}"
    );
    let e = err(&[
        "matchup",
        "--rules",
        "egc",
        "--fight",
        "heavy-cannon",
        "levy",
    ]);
    assert!(e.contains("--fight ACTOR:"), "{e}");
    // A card game's sheet, from its stand-alone actions, and its actions by name.
    let out = ok(&["matchup", "--rules", "ecw", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["action"], "melee", "{out}");
    assert_eq!(v["fighters"].as_array().map(Vec::len), Some(7), "{out}");
    let e = err(&["matchup", "--rules", "ecw", "--action", "charge"]);
    assert!(e.contains("allowed: melee, ranged"), "{e}");
}

#[test]
fn simulate_repeats_from_its_seed_whatever_the_threads_and_writes_a_report() {
    let run = |threads: &str| {
        ok(&[
            "simulate",
            "scenarios/el-gran-capitan/cerignola-1503.toml",
            "--games",
            "60",
            "--seed",
            "42",
            "--threads",
            threads,
            "--json",
        ])
    };
    let one = run("1");
    assert_eq!(one, run("2"), "the same battles on 1 and 2 threads");
    let v: serde_json::Value = serde_json::from_str(&one).expect("json");
    let s = &v["summary"];
    assert_eq!(s["battles"], 60);
    let wins: u64 = s["wins"]
        .as_array()
        .expect("wins")
        .iter()
        .map(|w| w[1]["count"].as_u64().expect("count"))
        .sum();
    assert_eq!(wins + s["draws"]["count"].as_u64().expect("draws"), 60);
    // Unless told, the attacker attacks and the defender is cautious.
    assert_eq!(
        v["run"]["policies"],
        serde_json::json!([{"side": "spanish", "policy": "cautious"}, {"side": "french", "policy": "aggressive"}])
    );
    // Text, with one side's policy given, and the report.
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("sim.html");
    let out = ok(&[
        "simulate",
        "scenarios/bloody-dismal-fight/agincourt-1415.toml",
        "--games",
        "20",
        "--seed",
        "3",
        "--policy",
        "english=random",
        "--report",
        file.to_str().expect("path"),
    ]);
    assert!(out.contains("Agincourt: 20 battles, seed 3"), "{out}");
    assert!(
        out.contains("(english): random") && out.contains("(french): aggressive"),
        "{out}"
    );
    assert!(
        out.contains("wins") && out.contains("[") && out.contains("Rules and charts used"),
        "{out}"
    );
    let html = std::fs::read_to_string(&file).expect("report");
    for id in [
        "sim-results",
        "sim-over-n",
        "sim-losses",
        "sim-troops",
        "sim-usage",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}: {html}");
    }
    assert!(!html.contains("<script"));
}

#[test]
fn simulate_refuses_bad_input_by_name() {
    let agincourt = "scenarios/bloody-dismal-fight/agincourt-1415.toml";
    let e = err(&["simulate", agincourt, "--policy", "bold"]);
    assert!(
        e.contains("--policy: \"bold\" is not a policy; allowed: aggressive, cautious, random"),
        "{e}"
    );
    let e = err(&["simulate", agincourt, "--policy", "scots=random"]);
    assert!(e.contains("--policy: no side \"scots\""), "{e}");
    let e = err(&["simulate", agincourt, "--games", "0"]);
    assert!(e.contains("--games: 0"), "{e}");
    // A card game plays itself through its seats' forms; its turn limit is its own.
    let out = ok(&[
        "simulate",
        "scenarios/commands-colors-ecw/tibbermore-1644.toml",
        "--games",
        "2",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["summary"]["battles"], 2, "{out}");
    assert_eq!(v["run"]["turns"], 60, "{out}");
    let e = err(&["simulate", "no/such.toml"]);
    assert!(e.contains("no/such.toml"), "{e}");
}

#[test]
fn callan_field_works_are_checked_at_their_line_and_column() {
    // Field works are declared in the house rules, BW by difficulty and army (Callan, D75).
    let dir = tempfile::tempdir().expect("tmp");
    let src =
        std::fs::read_to_string(root().join("scenarios/callan-renaissance/marignano-1515.toml"))
            .expect("scenario");
    let sc = dir.path().join("marignano.toml");
    let s = sc.to_str().unwrap_or_default();
    // The house rules' own line, not the notes' mention of it.
    let anchor = "callan.niente_soldi = 1\ncallan.camp_first = 10";
    assert_eq!(src.matches(anchor).count(), 1);
    let with = |line: &str| src.replacen(anchor, &format!("{anchor}\n{line}"), 1);
    std::fs::write(&sc, with("callan.works_first_difficult = 12")).expect("write");
    assert!(ok(&["scenario", "check", s]).contains(": ok"));
    std::fs::write(&sc, with("callan.works_first_difficult = 61")).expect("write");
    let e = err(&["scenario", "check", s]);
    // The line added, just below the anchor's last.
    let line = src
        .lines()
        .position(|l| l == "callan.camp_first = 10")
        .expect("the anchor")
        + 2;
    assert!(
        e.contains(&format!(
            "{s}:{line}:32: house_rules.callan.works_first_difficult = 61: allowed: an integer from 0 to 60"
        )),
        "{e}"
    );
}

/// `tercio fuzz --save DIR` makes the folder before it plays (a long run once ended without its
/// report for want of it), and a folder it cannot make is refused before any game is played.
#[test]
fn fuzz_makes_the_folder_it_saves_failures_to() {
    let tmp = std::env::temp_dir().join(format!("tercio-fuzz-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let dir = tmp.join("new").join("folder");
    let d = dir.display().to_string();
    let out = ok(&[
        "fuzz",
        "--games",
        "1",
        "--turns",
        "1",
        "--seed",
        "7",
        "--threads",
        "1",
        "--save",
        &d,
        "el-gran-capitan/cerignola-1503",
    ]);
    assert!(dir.is_dir(), "{out}");
    // A file where the folder should be: refused at the option, before any game.
    let file = tmp.join("a-file");
    std::fs::write(&file, "x").expect("write");
    let e = err(&[
        "fuzz",
        "--games",
        "1",
        "--save",
        &file.join("sub").display().to_string(),
        "el-gran-capitan/cerignola-1503",
    ]);
    assert!(e.contains("--save:"), "{e}");
    let _ = std::fs::remove_dir_all(&tmp);
}
