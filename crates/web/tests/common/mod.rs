//! What the web tests share: the real server on port 0 over a temporary SQLite database, with
//! its host key, and reading a seat's token from its link.
#![allow(dead_code)]

use std::sync::Arc;

use serde_json::{json, Value};
use tercio_store::{SqliteStore, Store};
use tercio_web::client::request_with;

/// How long a test waits for what it checks before it fails: long, as it waits for the thing
/// itself, and only a failing test waits it out (the machine may be loaded).
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

pub struct Server {
    pub addr: String,
    pub key: String,
    pub store: Arc<SqliteStore>,
    /// The database file.
    pub path: std::path::PathBuf,
    _running: tercio_web::Running,
    _dir: tempfile::TempDir,
}

pub fn server() -> Server {
    server_with(tercio_web::conn::Limits::default())
}

/// [`server`] with its connections' deadlines and bound set to `limits`.
pub fn server_with(limits: tercio_web::conn::Limits) -> Server {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("t.db");
    let store = Arc::new(SqliteStore::open(&path).expect("db"));
    let key = store.host_key().expect("key");
    let state =
        tercio_web::AppState::with_limits(store.clone(), None, tercio_web::LIVE_GAMES, limits);
    let running = tercio_web::spawn(state).expect("server");
    Server {
        addr: running.addr.clone(),
        key,
        store,
        path,
        _running: running,
        _dir: dir,
    }
}

impl Server {
    /// One request to the server, with headers; a 5xx fails the test, whatever the request.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> tercio_web::client::Reply {
        let r = request_with(&self.addr, method, path, headers, body).expect("request");
        assert!(r.status < 500, "{method} {path} -> {} {}", r.status, r.body);
        r
    }
}

/// The token in a seat's link.
pub fn token(url: &Value) -> String {
    url.as_str()
        .and_then(|u| u.rsplit('/').next())
        .expect("link")
        .to_string()
}

impl Server {
    /// Make a game as the host (`body`: `{"scenario": ..., "seed": ...}`); the answer's JSON,
    /// with a link per seat: game master first, then each side, then spectators.
    pub fn create(&self, body: &Value) -> Value {
        let auth = format!("Bearer {}", self.key);
        let r = request_with(
            &self.addr,
            "POST",
            "/api/games",
            &[("Authorization", &auth)],
            Some(&body.to_string()),
        )
        .expect("create");
        assert_eq!(r.status, 201, "{}", r.body);
        r.json()
    }

    /// A new game's seat tokens, in the order of its links.
    pub fn links(&self, scenario: &str) -> Vec<String> {
        self.create(&json!({"scenario": scenario}))["links"]
            .as_array()
            .expect("links")
            .iter()
            .map(|l| token(&l["url"]))
            .collect()
    }
}

/// A TSATF skirmish: French gendarmes against Imperial arquebusiers and pikes, each side with a
/// field officer. `evil` names the gendarmes
/// (to check the page escapes it).
pub fn tsatf_skirmish(evil: &str) -> String {
    format!(
        r#"ruleset = "tsatf"
title = "Skirmish"
[[sides]]
id = "french"
name = "French"
role = "attacker"
colour = "blue"
camp = false
[[sides]]
id = "imperial"
name = "Imperial"
role = "defender"
colour = "red"
camp = false
[[leaders]]
id = "gen-f"
name = "General F"
side = "french"
bonus = 0
rank = "army"
[[leaders]]
id = "gen-i"
name = "General I"
side = "imperial"
bonus = 0
rank = "army"
[[units]]
id = "gd"
name = "{evil}"
side = "french"
type = "gendarmes"
figures = 12
leader = "gen-f"
[[units]]
id = "arq"
name = "Arquebusiers"
side = "imperial"
type = "arquebusiers"
figures = 20
leader = "gen-i"
[[units]]
id = "pk"
name = "Pikes"
side = "imperial"
type = "pikemen"
figures = 20
leader = "gen-i"
"#
    )
}

/// A rule set's example game (`examples/<rules>/game/`, its scenario and seed beside it): the
/// scenario's id, the seed, and the steps' actions in order.
pub fn example_game(rules: &str) -> (String, u64, Vec<(String, Value)>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let expect: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(format!("examples/{rules}/game.expect.json")))
            .expect("game.expect.json"),
    )
    .expect("json");
    let scenario = expect["scenario"]
        .as_str()
        .and_then(|s| s.strip_prefix("scenarios/"))
        .and_then(|s| s.strip_suffix(".toml"))
        .expect("scenario")
        .to_string();
    let mut files: Vec<_> = std::fs::read_dir(root.join(format!("examples/{rules}/game")))
        .expect("game folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with(|c: char| c.is_ascii_digit()) && n.ends_with(".json")
            })
        })
        .collect();
    files.sort();
    let steps = files
        .iter()
        .map(|p| {
            let name = p
                .file_stem()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_string();
            let v: Value = serde_json::from_str(&std::fs::read_to_string(p).expect("step"))
                .expect("step json");
            (name, v)
        })
        .collect();
    (scenario, expect["seed"].as_u64().expect("seed"), steps)
}

/// The five rule sets, by id, in the order the tests walk them.
pub const RULE_SETS: [&str; 5] = [
    "el-gran-capitan",
    "bloody-dismal-fight",
    "callan-renaissance",
    "sword-and-flame-renaissance",
    "commands-colors-ecw",
];

/// The seat tokens of a new game's answer, in the order of its links (game master first).
pub fn tokens(created: &Value) -> Vec<String> {
    created["links"]
        .as_array()
        .expect("links")
        .iter()
        .map(|l| token(&l["url"]))
        .collect()
}

/// ECW's hands dealt to the game master's one device, so that one page plays every card.
pub fn on_one_device(steps: &mut [(String, Value)]) {
    for (_, a) in steps {
        if a["action"] == "deal" {
            a["hands"] = json!("single-device");
        }
    }
}

/// A page's visible text: each part from an `open` to its `close` cut out (scripts, disclosures
/// a test leaves aside), no tags (each one a line break), entities decoded.
pub fn text_without(page: &str, cut: &[(&str, &str)]) -> String {
    let mut page = page.to_string();
    for (open, close) in cut {
        while let Some(i) = page.find(open) {
            let end = page[i..]
                .find(close)
                .map_or(page.len(), |j| i + j + close.len());
            page.replace_range(i..end, " ");
        }
    }
    let mut text = String::new();
    let mut in_tag = false;
    for c in page.chars() {
        match c {
            '<' => {
                in_tag = true;
                text.push('\n');
            }
            '>' => in_tag = false,
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}
