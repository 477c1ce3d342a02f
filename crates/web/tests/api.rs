//! The JSON API against the real server on port 0 with a temporary SQLite database.

mod common;

use common::{server, token, Server};
use serde_json::{json, Value};
use tercio_web::client::{request, request_with, Reply};

impl Server {
    /// A new game from a shipped scenario; its game master's token.
    fn new_game(&self, scenario: &str, seed: u64) -> String {
        token(&self.create(&json!({"scenario": scenario, "seed": seed}))["links"][0]["url"])
    }

    /// Agincourt with its initiatives ended, at the end-of-turn fire; its game master's token.
    fn agincourt_at_its_end_fire(&self) -> String {
        let id = self.new_game("bloody-dismal-fight/agincourt-1415", 1);
        let r = self.post(
            &format!("/api/s/{id}/actions"),
            &json!({"action": "end-initiatives"}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        id
    }

    /// Requests as the host (with the host key); seat routes ignore it.
    fn get(&self, path: &str) -> Reply {
        let auth = format!("Bearer {}", self.key);
        request_with(&self.addr, "GET", path, &[("Authorization", &auth)], None).expect("request")
    }
    fn post(&self, path: &str, body: &Value) -> Reply {
        self.post_raw(path, &body.to_string())
    }
    fn post_raw(&self, path: &str, body: &str) -> Reply {
        let auth = format!("Bearer {}", self.key);
        request_with(
            &self.addr,
            "POST",
            path,
            &[("Authorization", &auth)],
            Some(body),
        )
        .expect("request")
    }
}

#[test]
fn health_rulesets_scenarios() {
    let s = server();
    assert_eq!(s.get("/healthz").json(), json!({"ok": true}));
    let r = s.get("/api/rulesets").json();
    assert_eq!(r.as_array().map(Vec::len), Some(5));
    let sc = s.get("/api/scenarios").json();
    let first = &sc[0];
    assert!(
        first["id"].is_string() && first["rule_set"].is_string() && first["title"].is_string(),
        "{sc}"
    );
    assert!(sc
        .as_array()
        .expect("list")
        .iter()
        .any(|x| x["id"] == "el-gran-capitan/cerignola-1503"));
}

#[test]
fn play_undo_and_log_through_the_api() {
    let s = server();
    let created = s.post(
        "/api/games",
        &json!({"scenario": "el-gran-capitan/cerignola-1503", "seed": 5}),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let id = token(&created.json()["links"][0]["url"]);
    assert!(
        !created.body.contains("\"seed\""),
        "the seed stays on the server"
    );
    let base = format!("/api/s/{id}");
    for a in [
        json!({"action": "initiative"}),
        json!({"action": "command", "leader": "chandieu"}),
    ] {
        let r = s.post(&format!("{base}/actions"), &a);
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let charge = json!({"action": "charge", "actor": "swiss-first-block", "target": "spanish-pike-left", "ground": "obstacle"});
    let odds = s.post(&format!("{base}/odds"), &charge).json();
    let total: f64 = odds["total"].as_f64().unwrap_or(0.0);
    assert!((total - 1.0).abs() < 1e-9, "{odds}");
    let r = s.post(&format!("{base}/actions"), &charge);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["resolution"]["steps"]
        .as_array()
        .is_some_and(|x| x.len() >= 2));
    let undo = s.post(&format!("{base}/undo"), &json!(null));
    assert_eq!(undo.status, 200, "{}", undo.body);
    assert_eq!(undo.json()["voided"], 3);
    let log = s.get(&format!("{base}/log")).json();
    assert_eq!(log["entries"].as_array().map(Vec::len), Some(4));
    assert_eq!(log["entries"][2]["voided"], true);
    assert_eq!(log["entries"][3]["voids"], 3);
    let g = s.get(&base).json();
    assert_eq!(g["events"], 4);
    assert_eq!(g["state"]["units"]["swiss-first-block"]["acted"], false);
}

#[test]
fn bad_input_is_a_named_4xx_never_a_500() {
    let s = server();
    let r = s.post_raw("/api/games", "{\"scenario\": ");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], "malformed-json");
    assert!(r.json()["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("body:1:")));
    let r = s.post("/api/games", &json!({"scenario": "nowhere"}));
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["error"]["field"], "scenario");
    let r = s.post(
        "/api/games",
        &json!({"scenario": "ruleset = \"egc\"\ntitle = \"x\"\n"}),
    );
    assert_eq!(r.status, 422);
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("scenario:3:1") || m.contains("sides: missing")),
        "{}",
        r.body
    );
    let r = s.post(
        "/api/games",
        &json!({"scenario": "el-gran-capitan/pavia-1525", "seed": -1}),
    );
    assert_eq!(
        (r.status, r.json()["error"]["field"].clone()),
        (422, json!("seed"))
    );
    assert_eq!(s.get("/api/games/nope").status, 404);
    let id = token(
        &s.post(
            "/api/games",
            &json!({"scenario": "bloody-dismal-fight/agincourt-1415"}),
        )
        .json()["links"][0]["url"],
    );
    for body in [
        json!({"action": "fly"}),
        json!({"action": "charge", "actor": "nobody"}),
        json!([1, 2]),
        json!({"action": "initiative", "bogus": 1}),
    ] {
        let r = s.post(&format!("/api/s/{id}/actions"), &body);
        assert!(
            (400..500).contains(&r.status),
            "{body} -> {} {}",
            r.status,
            r.body
        );
        assert!(r.json()["error"]["message"].is_string());
    }
    assert_eq!(
        s.post(&format!("/api/s/{id}/undo"), &json!(null)).status,
        409
    );
    assert_eq!(s.get("/no/such/page").status, 404);
}

#[test]
fn user_text_is_shown_inert() {
    let s = server();
    let evil = "<script>alert(1)</script>";
    let toml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/el-gran-capitan/cerignola-1503.toml"
    ))
    .expect("read")
    .replace(
        "name = { en = \"Swiss pikes (first block)\", it = \"Picche svizzere (primo quadrato)\" }",
        &format!("name = \"{evil}\""),
    );
    assert!(toml.contains(evil));
    let r = s.post("/api/games", &json!({"scenario": toml}));
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_str().expect("id").to_string();
    let page = s.get(&format!("/s/{}", token(&r.json()["links"][0]["url"])));
    assert_eq!(page.status, 200);
    assert!(!page.body.contains(evil));
    assert!(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    // 107 KB since the melees' supporting units are listed (the game master's four forms of a
    // melee each list both armies twice, about 17 KB raw, 0.7 KB gzipped: docs/performance.md);
    // about 96 KB since the links' QR codes are fetched when their panel is shown; about 40 KB
    // since an action other than the next step is its title and list, its form fetched when it
    // is opened.
    assert!(
        page.body.len() < 60_000,
        "game page is {} bytes",
        page.body.len()
    );
    let home = s.get("/");
    assert!(home.body.contains("Cerignola") && home.body.contains(&id));
    // Without the host key the front page lists nothing.
    let anon = request(&s.addr, "GET", "/", None).expect("get");
    assert!(!anon.body.contains(&id) && !anon.body.contains("Cerignola"));
}

#[test]
fn random_bodies_never_make_a_500() {
    let s = server();
    let id = s.new_game("el-gran-capitan/cerignola-1503", 1);
    let actions = [
        "initiative",
        "command",
        "end-initiatives",
        "rest",
        "regroup",
        "advance",
        "march",
        "retire",
        "charge",
        "fire",
        "melee",
        "attach",
        "assign-command",
        "end-fire",
        "end-turn",
        "dance",
    ];
    let units = [
        "swiss-first-block",
        "spanish-pike-left",
        "gascon-crossbowmen",
        "nobody",
        "",
    ];
    let fields = [
        "target",
        "ground",
        "force",
        "leader",
        "unit",
        "to",
        "actor_status",
        "target_status",
        "frontal",
        "target_evades",
        "fires",
        "camps_sacked",
        "firing_bases",
        "bogus",
    ];
    let values = [
        json!(true),
        json!(-1),
        json!("open"),
        json!("nemours"),
        json!(null),
        json!([{"action": "fire"}]),
        json!({"side": "spanish"}),
        json!(1e300),
        json!("swiss-second-block"),
    ];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    for _ in 0..300 {
        let mut body =
            json!({"action": actions[next(actions.len())], "actor": units[next(units.len())]});
        for _ in 0..next(4) {
            body[fields[next(fields.len())]] = values[next(values.len())].clone();
        }
        for path in ["actions", "odds"] {
            let r = s.post(&format!("/api/s/{id}/{path}"), &body);
            assert!(r.status < 500, "{path} {body} -> {} {}", r.status, r.body);
            if r.status >= 400 {
                assert!(r.json()["error"]["message"].is_string(), "{}", r.body);
            }
        }
    }
    for raw in [
        "",
        "null",
        "[]",
        "\"x\"",
        "{\"action\": 7}",
        "\u{1F600}",
        "{\"action\": \"charge\", \"actor\": {\"type\": \"gendarmes\", \"bases\": 200}}",
    ] {
        let r = s.post_raw(&format!("/api/s/{id}/actions"), raw);
        assert!(
            (400..500).contains(&r.status),
            "{raw:?} -> {} {}",
            r.status,
            r.body
        );
    }
}

#[test]
fn the_new_game_form_shows_scenario_errors_and_creates_nothing() {
    let s = server();
    let enc = |t: &str| {
        t.bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect::<String>()
    };
    let bad = "ruleset = \"egc\"\ntitle = \"Broken\"\n[[sides]]\nid = \"a\"\n";
    let body = format!("scenario=&toml={}", enc(bad));
    let form = |body: &str| {
        let auth = format!("Bearer {}", s.key);
        request_with(
            &s.addr,
            "POST",
            "/games",
            &[
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Authorization", &auth),
            ],
            Some(body),
        )
        .expect("post")
    };
    // Without the host key nothing is made.
    let anon = tercio_web::client::request_as(
        &s.addr,
        "POST",
        "/games",
        "application/x-www-form-urlencoded",
        Some("scenario=el-gran-capitan%2Fpavia-1525&toml="),
    )
    .expect("post");
    assert_eq!(anon.status, 401);
    let r = form(&body);
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(
        r.body.contains("scenario:3:1") || r.body.contains("scenario:1:1"),
        "{}",
        r.body
    );
    assert!(r.body.contains("id=\"scenario-errors\""));
    assert_eq!(
        s.get("/api/games").json().as_array().map(Vec::len),
        Some(0),
        "nothing created"
    );
    let body = "scenario=el-gran-capitan%2Fpavia-1525&toml=";
    let r = form(body);
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(s.get("/api/games").json().as_array().map(Vec::len), Some(1));
}

#[test]
fn every_api_error_has_the_json_shape_and_names_the_field() {
    let s = server();
    let id = s.new_game("el-gran-capitan/cerignola-1503", 1);
    let r = s.post(&format!("/api/s/{id}/actions"), &json!({"action": "fire", "actor": "gascon-crossbowmen", "target": "spanish-pike-left", "ground": "lava"}));
    assert_eq!(
        (r.status, r.json()["error"]["field"].clone()),
        (422, json!("ground")),
        "{}",
        r.body
    );
    // A number where a name is wanted is refused with the names it may be, as a wrong name is.
    let r = s.post(&format!("/api/s/{id}/actions"), &json!({"action": "fire", "actor": "gascon-crossbowmen", "target": "spanish-pike-left", "ground": 99}));
    assert_eq!(r.json()["error"]["field"], "ground", "{}", r.body);
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("99") && m.contains("open, rough")),
        "{}",
        r.body
    );
    let r = s.post(
        &format!("/api/s/{id}/actions"),
        &json!({"action": "initiative", "foo": 1}),
    );
    assert_eq!(r.json()["error"]["field"], "foo", "{}", r.body);
    let r = s.post(&format!("/api/s/{id}/actions"), &json!({}));
    assert_eq!(r.json()["error"]["field"], "action", "{}", r.body);
    let r = request(&s.addr, "PUT", &format!("/api/s/{id}"), Some("{}")).expect("put");
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (405, json!("method-not-allowed")),
        "{}",
        r.body
    );
    let big = format!(
        "{{\"action\": \"initiative\", \"pad\": \"{}\"}}",
        "x".repeat(3 * 1024 * 1024)
    );
    let r = s.post_raw(&format!("/api/s/{id}/actions"), &big);
    assert_eq!(r.status, 413);
    assert_eq!(r.json()["error"]["code"], "body-too-large", "{}", r.body);
    let r = s.get("/api/games/%ff%fe");
    assert!(
        (400..500).contains(&r.status) && r.json()["error"]["message"].is_string(),
        "{} {}",
        r.status,
        r.body
    );
    let r = s.get("/api/nothing-here");
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (404, json!("not-found"))
    );
}

#[test]
fn odds_of_many_simultaneous_fires_are_refused_not_hung() {
    let s = server();
    let id = s.agincourt_at_its_end_fire();
    let fire = |actor: &str| json!({"action": "fire", "actor": actor, "target": "french-vanguard-constable"});
    let archers = [
        "english-archers-right-outer",
        "english-archers-right-inner",
        "english-archers-right-third",
        "english-archers-centre",
    ];
    // Three fires: their odds are shown.
    let three: Vec<Value> = archers[..3].iter().map(|a| fire(a)).collect();
    let r = s.post(
        &format!("/api/s/{id}/odds"),
        &json!({"action": "end-fire", "fires": three}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // Four: too many outcomes to enumerate for a page.
    let four: Vec<Value> = archers.iter().map(|a| fire(a)).collect();
    let r = s.post(
        &format!("/api/s/{id}/odds"),
        &json!({"action": "end-fire", "fires": four}),
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (422, json!("too-many-outcomes-for-odds")),
        "{}",
        r.body
    );
    // Four split between two targets: each target's odds, from the fires at it alone (issue
    // 17, item 9), as the page's form sends them.
    let at = |a: &str, t: &str| json!({"action": "fire", "actor": a, "target": t});
    let (x, y) = ("french-vanguard-constable", "french-vanguard-boucicaut");
    let split = json!({"action": "end-fire", "fires": [
        at(archers[0], x), at(archers[1], x), at(archers[2], y), at(archers[3], y)]});
    let r = s.post(&format!("/api/s/{id}/odds"), &split);
    assert_eq!(r.status, 200, "{}", r.body);
    facets_are_the_targets_own(
        &s,
        &id,
        &r,
        [(x, [archers[0], archers[1]]), (y, [archers[2], archers[3]])].map(|(t, fires)| {
            (
                t,
                json!({"action": "end-fire", "fires": fires.map(|a| at(a, t))}),
            )
        }),
    );
}

/// The odds of a fire split between targets (`whole`, answered) are each target's own: every
/// facet of the whole is one of the facets of the fires at one target alone (`parts`, asked).
fn facets_are_the_targets_own<const N: usize>(
    s: &Server,
    id: &str,
    whole: &Reply,
    parts: [(&str, Value); N],
) {
    let facets = whole.json()["facets"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut count = 0;
    for (target, alone) in parts {
        let alone = s.post(&format!("/api/s/{id}/odds"), &alone);
        assert_eq!(alone.status, 200, "{}", alone.body);
        let own = alone.json()["facets"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(!own.is_empty());
        count += own.len();
        for f in &own {
            assert!(facets.contains(f), "{target}: {f} not among {facets:?}");
        }
    }
    assert_eq!(
        facets.len(),
        count,
        "every facet is one target's: {facets:?}"
    );
}

/// One unit's fire split between two targets by the page's form (its front rank's bases, a second
/// target with its own; issue 17, item 9): the odds come target by target, each those of the
/// fire at it alone, and a split over the unit's bases is refused at the form's field.
#[test]
fn a_split_fire_from_the_form_has_its_odds_per_target_and_its_refusal_at_its_field() {
    let s = server();
    let id = s.agincourt_at_its_end_fire();
    let u = "english-archers-right-outer";
    let (x, y) = ("french-vanguard-constable", "french-vanguard-boucicaut");
    let form = |bases: u8, split_bases: u8| {
        json!({"action": "end-fire", format!("fire.{u}"): x, format!("bases.{u}"): bases,
            format!("ground.{u}"): "open", format!("split.{u}"): y,
            format!("split-bases.{u}"): split_bases, format!("split-ground.{u}"): "open"})
    };
    let r = s.post(&format!("/api/s/{id}/odds"), &form(3, 1));
    assert_eq!(r.status, 200, "{}", r.body);
    facets_are_the_targets_own(
        &s,
        &id,
        &r,
        [(x, 3), (y, 1)].map(|(target, bases)| {
            (
                target,
                json!({"action": "end-fire", "fires": [{"action": "fire", "actor": u,
                    "target": target, "firing_bases": bases}]}),
            )
        }),
    );
    // Four bases at the first target and one more at the second: refused, at the second's bases.
    for path in ["odds", "actions"] {
        let r = s.post(&format!("/api/s/{id}/{path}"), &form(4, 1));
        assert_eq!(
            (r.status, r.json()["error"]["field"].clone()),
            (422, json!(format!("split-bases.{u}"))),
            "{path}: {}",
            r.body
        );
    }
}

/// A rule set's refusal says what kind it is: a question to answer (409), an action the turn does
/// not allow yet (its odds still shown, with the reason), or an invalid one.
#[test]
fn refusals_carry_their_kind() {
    let s = server();
    let id = s.new_game("el-gran-capitan/cerignola-1503", 5);
    // Nobody holds an initiative: the charge is not allowed now, its odds are shown with why.
    let charge = json!({"action": "charge", "actor": "colonna-men-at-arms", "target": "gascon-crossbowmen", "ground": "open"});
    let r = s.post(&format!("/api/s/{id}/actions"), &charge);
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.json()["error"]["kind"], json!("not-now"), "{}", r.body);
    // Odds: the charge across the crossbowmen's arc of fire is a question first.
    let r = s.post(&format!("/api/s/{id}/odds"), &charge);
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(
        (
            r.json()["error"]["kind"].clone(),
            r.json()["error"]["field"].clone()
        ),
        (json!("question"), json!("crosses_arc_of_fire")),
        "{}",
        r.body
    );
    let mut answered = charge.clone();
    answered["crosses_arc_of_fire"] = json!(false);
    let r = s.post(&format!("/api/s/{id}/odds"), &answered);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.json()["note"].is_string(),
        "the reason it must wait: {}",
        r.body
    );
    // An action that breaks the rules is invalid.
    let r = s.post(
        &format!("/api/s/{id}/odds"),
        &json!({"action": "charge", "actor": "spanish-guns", "target": "swiss-first-block"}),
    );
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.json()["error"]["kind"], json!("invalid"), "{}", r.body);
    // The shell's own errors have no kind.
    let r = s.post(&format!("/api/s/{id}/undo"), &json!(null));
    assert_eq!(r.status, 409);
    assert!(r.json()["error"].get("kind").is_none(), "{}", r.body);
}

/// Every refusal has the documented shape `{code, field, message}`, with the field: a query
/// parameter given twice or unreadable, and a body that is not an object, on every route that
/// takes one.
#[test]
fn every_refusal_names_its_field_in_the_documented_shape() {
    let s = server();
    let gm = s.new_game("el-gran-capitan/cerignola-1503", 5);
    let shape = |r: &Reply, field: &str| {
        assert!((400..500).contains(&r.status), "{} {}", r.status, r.body);
        let v = r.json();
        let e = &v["error"];
        assert!(e["code"].is_string() && e["message"].is_string(), "{v}");
        assert_eq!(e["field"], field, "{v}");
        assert!(
            !e["message"].as_str().unwrap_or("").contains("deserialize"),
            "{v}"
        );
        assert!(
            !r.body.contains("ActionRequest") && !r.body.contains("http-400"),
            "{v}"
        );
    };
    // A page answers with a page, in words.
    for path in [
        format!("/s/{gm}?part=main&part=main"),
        "/?key=a&key=b".to_string(),
    ] {
        let r = s.get(&path);
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        assert!(
            r.body.contains("given more than once"),
            "{path}: {}",
            r.body
        );
    }
    for (path, field) in [
        (format!("/api/s/{gm}/log?after=1&after=2"), "after"),
        (format!("/api/s/{gm}/events?after=1&after=2"), "after"),
    ] {
        let r = s.get(&path);
        shape(&r, field);
        assert_eq!(r.json()["error"]["code"], "bad-query", "{path}");
        assert!(
            r.json()["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("given more than once"),
            "{path}: {}",
            r.body
        );
    }
    shape(&s.get(&format!("/api/s/{gm}/log?after=x")), "after");
    for body in ["[1]", "\"x\"", "3", "null", "true"] {
        for (route, field) in [
            ("actions", "action"),
            ("odds", "action"),
            ("dice-needed", "action"),
            ("actions/entered", "action"),
            ("settings", "body"),
        ] {
            shape(&s.post_raw(&format!("/api/s/{gm}/{route}"), body), field);
        }
        shape(&s.post_raw("/api/games", body), "scenario");
    }
}

/// A refusal quotes the value it refused at most 60 characters long, in the API's answer as
/// anywhere: a unit's name of 1.9 MB in an action comes back in an error of a few hundred bytes
/// that still names the field (each rule set's own refusal of an unknown unit, and the shared
/// reading of a field whose value is of the wrong kind), and so does a field's name of that size
/// or a scenario's of that size.
#[test]
fn a_refusal_quotes_a_huge_value_cut_and_still_names_its_field() {
    let s = server();
    let huge = "x".repeat(1_900_000);
    let small = |r: &Reply, field: &str| {
        assert!(
            (400..500).contains(&r.status),
            "{}: {}",
            r.status,
            &r.body[..r.body.len().min(300)]
        );
        assert!(
            r.body.len() < 2_000,
            "{} bytes: {}…",
            r.body.len(),
            &r.body[..300]
        );
        let e = &r.json()["error"];
        assert_eq!(e["field"], field, "{e}");
        let m = e["message"].as_str().expect("message");
        assert!(
            m.contains("xxxxxxxxxx…") && !m.contains(&"x".repeat(61)),
            "{m}"
        );
    };
    for (scenario, action) in [
        (
            "el-gran-capitan/cerignola-1503",
            json!({"action": "charge", "actor": huge, "target": "x", "ground": "open"}),
        ),
        // A list where a unit's id is asked (read before the turn is asked about).
        (
            "commands-colors-ecw/edgehill-1642",
            json!({"action": "move", "unit": [huge]}),
        ),
        (
            "callan-renaissance/pavia-1525",
            json!({"action": "move", "unit": huge}),
        ),
        (
            "sword-and-flame-renaissance/bicocca-1522",
            json!({"action": "move", "unit": huge}),
        ),
    ] {
        let gm = s.new_game(scenario, 3);
        let path = format!("/api/s/{gm}/actions");
        let first = match scenario.split('/').next() {
            Some("callan-renaissance") => Some("start"),
            Some("sword-and-flame-renaissance") => Some("start-turn"),
            _ => None,
        };
        if let Some(a) = first {
            let r = s.post(&path, &json!({"action": a}));
            assert_eq!(r.status, 200, "{}", r.body);
        }
        let field = if action.get("actor").is_some() {
            "actor"
        } else {
            "unit"
        };
        let r = s.post(&path, &action);
        small(&r, field);
        // The same value where a yes or no is asked, and as a field's name.
        let r = s.post(&path, &json!({"action": "end-turn", "x": 1, "huge": huge}));
        assert!(r.body.len() < 2_000, "{scenario}: {} bytes", r.body.len());
        let mut keyed = json!({"action": "move"});
        keyed[huge.as_str()] = json!(1);
        let r = s.post(&path, &keyed);
        assert!(r.body.len() < 2_000, "{scenario}: {} bytes", r.body.len());
        let field = r.json()["error"]["field"]
            .as_str()
            .unwrap_or("")
            .chars()
            .count();
        assert!(field <= 61, "{scenario}: a field of {field} characters");
    }
    let r = s.post("/api/games", &json!({"scenario": huge}));
    small(&r, "scenario");
}
