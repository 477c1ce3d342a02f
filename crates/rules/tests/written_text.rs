//! Text a person wrote (a battle's title, a unit's name) is never read as a message marker: a
//! unit named like a message is called exactly that, by every rule set, in its state, board,
//! forms and resolutions, in both languages; the scenario is kept as written.

use serde_json::{json, Value};
use tercio_i18n::{localize_json, Lang};
use tercio_rules::game::Game;
use tercio_rules::{registry, scenario};

/// A marker whose rendering ("turn 77.5", "turno 77,5") appears nowhere else.
const NAME: &str = "⟦web.games.turn|turn=#77.5⟧ \\⟦x⟧";

fn shown(mut v: Value, lang: Lang) -> String {
    localize_json(lang, &mut v);
    v.to_string()
}

/// `NAME` (JSON-escaped in `json`) is in the text as written, and never rendered.
fn as_written(json: &str, what: &str) {
    let written = serde_json::to_string(NAME).expect("json");
    let written = &written[1..written.len() - 1];
    assert!(json.contains(written), "{what}: {written} not in {json}");
    for rendered in ["turn 77.5", "turno 77,5"] {
        assert!(
            !json.contains(rendered),
            "{what}: rendered as a message: {json}"
        );
    }
}

fn scenarios() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).expect("scenarios") {
        let dir = dir.expect("dir").path();
        let f = std::fs::read_dir(&dir)
            .expect("dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "toml"))
            .expect("a scenario");
        out.push((
            f.display().to_string(),
            std::fs::read_to_string(&f).expect("read"),
        ));
    }
    out
}

#[test]
fn a_unit_named_like_a_message_is_called_that_by_every_rule_set() {
    let toml_name = NAME.replace('\\', "\\\\");
    let scenarios = scenarios();
    assert_eq!(scenarios.len(), registry::all().len());
    for (file, text) in scenarios {
        // The first unit and the title renamed.
        let at = text.find("[[units]]").expect("units");
        let (head, units) = text.split_at(at);
        // Each given as one string, as a scenario written before gave it (the shipped ones give
        // them in both languages): the rest of its line replaced.
        let name_at = units.find("\nname = ").expect("name") + "\nname = ".len();
        let end = name_at + units[name_at..].find('\n').expect("end");
        let units = format!("{}\"{toml_name}\"{}", &units[..name_at], &units[end..]);
        let title_at = head.find("\ntitle = ").expect("title") + "\ntitle = ".len();
        let title_end = title_at + head[title_at..].find('\n').expect("end");
        let text = format!(
            "{}\"{toml_name}\"{}{units}",
            &head[..title_at],
            &head[title_end..]
        );
        let sc = scenario::parse(&file, &text).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let g = Game::new(sc, 7).unwrap_or_else(|e| panic!("{file}: {e}"));
        // Stored as written: the scenario keeps the name, unescaped.
        assert_eq!(g.scenario.title, NAME, "{file}");
        assert!(g.scenario.units.iter().any(|u| u.name == NAME), "{file}");
        let engine = g.engine().expect("engine");
        let board = engine.board(&g.state);
        for lang in Lang::ALL {
            let state = shown(g.state.clone(), lang);
            as_written(&state, &format!("{file}: state"));
            if let Some(b) = &board {
                as_written(
                    &shown(serde_json::to_value(b).expect("board"), lang),
                    &format!("{file}: board"),
                );
            }
        }
    }
}

#[test]
fn a_unit_named_like_a_message_in_a_stand_alone_action_is_called_that() {
    for (id, action) in [
        (
            "el-gran-capitan",
            json!({"action": "charge", "actor": {"type": "gendarmes", "bases": 4, "name": NAME},
                   "target": {"type": "gendarmes", "bases": 4}, "ground": "open"}),
        ),
        (
            "callan-renaissance",
            json!({"action": "fire", "unit": {"type": "archibugieri", "bases": 5, "name": NAME},
                   "target": {"type": "gendarmi", "bases": 3, "name": "Gendarmi"}, "short_bases": 5}),
        ),
    ] {
        let engine = registry::lookup(id)
            .expect("rule set")
            .engine(None)
            .expect("engine");
        let plan = engine.plan(None, &action).expect("plan");
        let outcomes: Vec<Value> = plan
            .leaves()
            .into_iter()
            .map(|(o, _)| serde_json::to_value(o.resolution).expect("outcome"))
            .collect();
        for lang in Lang::ALL {
            as_written(&shown(Value::Array(outcomes.clone()), lang), id);
        }
    }
}
