//! Seats, live updates, concurrency and verifiable dice, against the real server on port 0.

use std::time::Duration;

use proptest::prelude::*;
use serde_json::{json, Value};
use tercio_store::Store;
use tercio_web::client::{
    caught_up, read_events, read_events_until, request_with, EventStream, Reply,
};

mod common;

use common::{server, token, Server, PATIENCE};

/// A game's links, by role.
struct Links {
    id: String,
    gm: String,
    /// (side id, token)
    sides: Vec<(String, String)>,
    spectator: String,
}

impl Links {
    fn all(&self) -> Vec<(String, String)> {
        let mut v = vec![("game-master".to_string(), self.gm.clone())];
        v.extend(
            self.sides
                .iter()
                .map(|(s, t)| (format!("side:{s}"), t.clone())),
        );
        v.push(("spectator".into(), self.spectator.clone()));
        v
    }
}

impl Server {
    fn get(&self, path: &str) -> Reply {
        self.request("GET", path, &[], None)
    }
    fn post(&self, path: &str, body: &Value) -> Reply {
        self.request("POST", path, &[], Some(&body.to_string()))
    }
    fn new_game(&self, scenario: &str, seed: u64) -> Links {
        let v = self.create(&json!({"scenario": scenario, "seed": seed}));
        let links = v["links"].as_array().expect("links");
        Links {
            id: v["id"].as_str().expect("id").to_string(),
            gm: token(&links[0]["url"]),
            sides: links
                .iter()
                .filter(|l| l["role"] == "side")
                .map(|l| {
                    (
                        l["side"].as_str().expect("side").to_string(),
                        token(&l["url"]),
                    )
                })
                .collect(),
            spectator: token(&links.last().expect("spectator")["url"]),
        }
    }
}

/// Everything a seat can be sent: its pages, its API answers, its live stream, its errors.
fn everything_for(s: &Server, t: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for path in [
        format!("/s/{t}"),
        format!("/s/{t}?part=main"),
        format!("/s/{t}/log"),
        format!("/s/{t}/dice"),
        format!("/s/{t}/report.md"),
        format!("/api/s/{t}"),
        format!("/api/s/{t}/log"),
        format!("/api/s/{t}/dice"),
        format!("/api/s/{t}/export"),
        format!("/api/s/{t}/seats"),
    ] {
        let r = s.get(&path);
        out.push((path, r.body));
    }
    for (path, body) in [
        ("actions", json!({"action": "initiative", "bogus": true})),
        ("actions", json!({"action": "charge", "actor": "nobody"})),
        ("odds", json!({"action": "fire", "actor": "nobody"})),
        ("undo", json!(null)),
        ("settings", json!({"side_rights": "everything"})),
        ("seats/reissue", json!({"role": "nobody"})),
        (
            "dice-needed",
            json!({"action": {"action": "initiative"}, "faces": [9]}),
        ),
        (
            "actions/entered",
            json!({"action": {"action": "initiative"}, "faces": [1, 1]}),
        ),
    ] {
        let path = format!("/api/s/{t}/{path}");
        let r = s.post(&path, &body);
        out.push((path, r.body));
    }
    // The stream sends the whole log at once: read until it has.
    let n = s.get(&format!("/api/s/{t}/log")).json()["entries"]
        .as_array()
        .map_or(0, Vec::len);
    let path = format!("/api/s/{t}/events");
    let (_, events, raw) =
        read_events_until(&s.addr, &path, &[], PATIENCE, |e, raw| caught_up(e, raw, n))
            .expect("events");
    assert!(caught_up(&events, &raw, n), "{path}: {raw}");
    out.push((path, raw));
    // A page's stream, from a version it does not have: its `#main` comes whole.
    let path = format!("/api/s/{t}/events?etag=none&brief=1");
    let replaced = |raw: &str| raw.contains("\"op\":\"replace\"");
    let (_, _, raw) =
        read_events_until(&s.addr, &path, &[], PATIENCE, |_, raw| replaced(raw)).expect("events");
    assert!(replaced(&raw), "{path}: {raw}");
    out.push((path, raw));
    out
}

/// Play a random game on the server: the store's copy is played by the autoplayer, as a game
/// master would through the game master's link.
fn play_on_server(s: &Server, l: &Links, choices: &[u8], steps: usize) {
    let mut g = s.store.load(&l.id).expect("load").expect("game");
    tercio_rules::autoplay::play(&mut g, choices, steps).expect("play");
    s.store.save(&l.id, &g).expect("save");
}

fn check_isolation(s: &Server, l: &Links, ended: bool) {
    let g = s.store.load(&l.id).expect("load").expect("game");
    let seed = g.seed.to_string();
    let all = l.all();
    // The checks below would see a leak: the game master's page carries every link, and each
    // seat's page its own.
    let gm_page = s.get(&format!("/s/{}", l.gm)).body;
    assert!(all.iter().all(|(_, t)| gm_page.contains(t.as_str())));
    for (role, t) in &all {
        assert!(
            s.get(&format!("/s/{t}")).body.contains(t.as_str()),
            "{role}"
        );
        for (path, body) in everything_for(s, t) {
            // Other seats' links: never.
            for (other, ot) in &all {
                if other != role && role != "game-master" {
                    assert!(
                        !body.contains(ot.as_str()),
                        "{role} got {other}'s link in {path}"
                    );
                }
            }
            assert!(!body.contains(&s.key), "{role} got the host key in {path}");
            if !ended {
                assert!(!body.contains(&g.nonce), "{role} got the nonce in {path}");
                assert!(
                    !body.contains(&format!("\"seed\":{seed}"))
                        && !body.contains(&format!(">{seed}<"))
                        && !body.contains(&format!("`{seed}`")),
                    "{role} got the seed in {path}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4))]

    /// Over randomly played games, no response for a seat contains what is reserved to another:
    /// other seats' links, the host key, and (before the end) the seed and its nonce.
    #[test]
    fn no_seat_sees_what_is_reserved_to_another(seed in any::<u64>(), choices in prop::collection::vec(any::<u8>(), 1..12), own in any::<bool>(), egc in any::<bool>()) {
        let s = server();
        let scenario = if egc { "el-gran-capitan/pavia-1525" } else { "bloody-dismal-fight/brustem-1467" };
        let l = s.new_game(scenario, seed);
        if own {
            let r = s.post(&format!("/api/s/{}/settings", l.gm), &json!({"side_rights": "own-units"}));
            prop_assert_eq!(r.status, 200);
        }
        play_on_server(&s, &l, &choices, 12);
        check_isolation(&s, &l, false);
        // A side may never act for the other side; a spectator never acts.
        let g = s.store.load(&l.id).expect("load").expect("game");
        let (side_a, tok_a) = &l.sides[0];
        let (_, tok_b) = &l.sides[1];
        if let Some(unit) = g.state["units"].as_object().and_then(|u| u.values().find(|u| u["side"] == side_a.as_str() && u["destroyed"] != true)) {
            let a = json!({"action": "regroup", "actor": unit["id"]});
            let r = s.post(&format!("/api/s/{tok_b}/actions"), &a);
            prop_assert_eq!((r.status, r.json()["error"]["code"].clone()), (403, json!("seat-may-not")));
            let r = s.post(&format!("/api/s/{}/actions", l.spectator), &a);
            prop_assert_eq!(r.status, 403);
            let r = s.post(&format!("/api/s/{tok_a}/actions"), &a);
            if own { prop_assert_ne!(r.status, 403, "{}", r.body); } else { prop_assert_eq!(r.status, 403); }
        }
        // After the end the seed is shown to all, links still are not.
        let r = s.post(&format!("/api/s/{}/conclude", l.gm), &json!(null));
        prop_assert_eq!(r.status, 200);
        check_isolation(&s, &l, true);
        let v = s.get(&format!("/api/s/{}", l.spectator)).json();
        prop_assert_eq!(v["dice"]["seed"].as_u64(), Some(g.seed));
        prop_assert_eq!(v["dice"]["commitment"].as_str().map(str::to_string), Some(g.commitment()));
    }
}

#[test]
fn only_the_game_master_manages_and_links_can_be_withdrawn() {
    let s = server();
    let l = s.new_game("el-gran-capitan/cerignola-1503", 3);
    for t in [&l.sides[0].1, &l.spectator] {
        for (path, body) in [
            ("seats", None),
            ("settings", Some(json!({"physical_dice": true}))),
            ("conclude", Some(json!(null))),
            ("undo", Some(json!(null))),
            ("seats/reissue", Some(json!({"role": "spectator"}))),
            ("qr?role=spectator", None),
        ] {
            let r = match body {
                None => s.get(&format!("/api/s/{t}/{path}")),
                Some(b) => s.post(&format!("/api/s/{t}/{path}"), &b),
            };
            assert_eq!(r.status, 403, "{path}: {}", r.body);
        }
    }
    // The game master's page draws each link's code from `qr`, fetched when its panel is first
    // shown, not in the page (issue 43, item 10): the code is the link's.
    let page = s.get(&format!("/s/{}", l.gm)).body;
    assert!(!page.contains("<svg xmlns"), "a code in the page");
    let (side, side_token) = &l.sides[0];
    let src = format!("/api/s/{}/qr?role=side&amp;side={side}&amp;v=", l.gm);
    assert!(page.contains(&format!("<img src=\"{src}")), "{page}");
    let r = s.get(&format!("/api/s/{}/qr?role=side&side={side}", l.gm));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.starts_with("<svg xmlns"), "{}", r.body);
    let link = format!("http://{}/s/{side_token}", s.addr);
    assert_eq!(r.body, tercio_web::qr::svg(&link), "not the side's link");
    let r = s.get(&format!("/api/s/{}/qr?role=side&side=nobody", l.gm));
    assert_eq!(r.status, 404, "{}", r.body);
    // Watch only by default: a side may not act even for its own units.
    let r = s.post(
        &format!("/api/s/{}/actions", l.sides[0].1),
        &json!({"action": "initiative"}),
    );
    assert_eq!(r.json()["error"]["code"], "seat-may-not");
    // A withdrawn link opens nothing, and its live stream is told so.
    let old = l.sides[1].1.clone();
    // The server has used the link for a change (refused: watch only), so it knows its game.
    let r = s.post(
        &format!("/api/s/{old}/actions"),
        &json!({"action": "initiative"}),
    );
    assert_eq!(r.json()["error"]["code"], "seat-may-not");
    // Open (the server has answered) before the link is withdrawn.
    let mut es = EventStream::open(&s.addr, &format!("/api/s/{old}/events"), &[]).expect("events");
    let r = s.post(
        &format!("/api/s/{}/seats/reissue", l.gm),
        &json!({"role": "side", "side": l.sides[1].0}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let new = token(&r.json()["url"]);
    assert_ne!(new, old);
    let events = es
        .until(Duration::from_secs(20), |e| e.event == "revoked")
        .expect("events");
    assert!(events.iter().any(|e| e.event == "revoked"), "{events:?}");
    assert_eq!(s.get(&format!("/api/s/{old}")).status, 404);
    // Nor does it change anything, though the server knew the game it opened.
    let before = s.get(&format!("/api/s/{}", l.gm)).json()["events"].clone();
    for path in ["actions", "undo"] {
        let r = s.post(
            &format!("/api/s/{old}/{path}"),
            &json!({"action": "initiative"}),
        );
        assert_eq!(r.status, 404, "{path}: {}", r.body);
    }
    assert_eq!(s.get(&format!("/api/s/{}", l.gm)).json()["events"], before);
    assert_eq!(s.get(&format!("/s/{old}")).status, 404);
    assert_eq!(s.get(&format!("/api/s/{new}")).status, 200);
    // The host API needs the key; a wrong key is refused; the right one becomes a cookie.
    assert_eq!(s.get("/api/games").status, 401);
    assert_eq!(s.get("/?key=0123").status, 401);
    let r = s.request("GET", &format!("/?key={}", s.key), &[], None);
    assert_eq!(r.status, 303);
    let cookie = format!("tercio_host={}", s.key);
    // The new-game list names each shipped scenario by its title and date, under its rule
    // set's name, not by its file's id (issue 17, item 13).
    let home = s.request("GET", "/", &[("Cookie", &cookie)], None);
    assert_eq!(home.status, 200, "{}", home.body);
    assert!(
        home.body.contains(
            "<option value=\"el-gran-capitan/cerignola-1503\">Cerignola (1503-04-28)</option>"
        ),
        "{}",
        home.body
    );
    assert!(
        home.body.contains("<optgroup label=\"El Gran Capit"),
        "{}",
        home.body
    );
    assert!(!home.body.contains(">el-gran-capitan/cerignola-1503<"));
    let r = s.request("GET", "/api/games", &[("Cookie", &cookie)], None);
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn the_live_stream_sends_each_entry_once_and_resumes_after_the_last_seen() {
    let s = server();
    let l = s.new_game("el-gran-capitan/cerignola-1503", 5);
    play_on_server(&s, &l, &[2, 7, 1, 8], 6);
    let n = s
        .store
        .load(&l.id)
        .expect("load")
        .expect("game")
        .log
        .entries()
        .len();
    assert!(n > 4);
    let seqs = |events: &[tercio_web::client::SseEvent]| -> Vec<u64> {
        events
            .iter()
            .filter(|e| e.event == "entry")
            .map(|e| e.id.as_deref().and_then(|x| x.parse().ok()).expect("id"))
            .collect()
    };
    let path = format!("/api/s/{}/events", l.spectator);
    let (status, all, _) =
        read_events(&s.addr, &path, &[], n, Duration::from_secs(5)).expect("sse");
    assert_eq!(status, 200);
    assert_eq!(seqs(&all), (1..=n as u64).collect::<Vec<_>>());
    // Reconnecting with the last id seen gets exactly the rest.
    let k = (n / 2).to_string();
    let (_, rest, _) = read_events(
        &s.addr,
        &path,
        &[("Last-Event-ID", &k)],
        n - n / 2,
        Duration::from_secs(5),
    )
    .expect("sse");
    assert_eq!(
        seqs(&rest),
        ((n / 2 + 1) as u64..=n as u64).collect::<Vec<_>>()
    );
    // An open stream gets a new action within a second.
    // Open (the server has answered) before the undo.
    let after = n.to_string();
    let mut es = EventStream::open(&s.addr, &path, &[("Last-Event-ID", &after)]).expect("sse");
    let acted = std::time::Instant::now();
    let r = s.post(&format!("/api/s/{}/undo", l.gm), &json!(null));
    assert_eq!(r.status, 200, "{}", r.body);
    let new = es
        .until(Duration::from_secs(20), |e| e.event == "entry")
        .expect("sse");
    eprintln!(
        "live: an undo reached an open stream in {:?}",
        acted.elapsed()
    );
    assert_eq!(seqs(&new), vec![n as u64 + 1]);
    let entry: Value =
        serde_json::from_str(&new.iter().find(|e| e.event == "entry").expect("entry").data)
            .expect("json");
    assert_eq!(entry["entry"]["entry"], "void");
}

#[test]
fn seats_acting_at_once_are_serialised_and_the_stale_are_told() {
    let s = server();
    let l = s.new_game("el-gran-capitan/cerignola-1503", 9);
    // Eight clients act on the same view (no entries yet): one wins, the rest are told stale.
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let addr = s.addr.clone();
            let gm = l.gm.clone();
            std::thread::spawn(move || {
                request_with(
                    &addr,
                    "POST",
                    &format!("/api/s/{gm}/actions"),
                    &[("If-Match", "\"0\"")],
                    Some(r#"{"action":"initiative"}"#),
                )
                .expect("post")
            })
        })
        .collect();
    let replies: Vec<Reply> = handles
        .into_iter()
        .map(|h| h.join().expect("thread"))
        .collect();
    let ok = replies.iter().filter(|r| r.status == 200).count();
    let stale = replies
        .iter()
        .filter(|r| r.status == 412 && r.json()["error"]["code"] == "stale")
        .count();
    assert_eq!(
        (ok, stale),
        (1, 7),
        "{:?}",
        replies
            .iter()
            .map(|r| (r.status, r.body.clone()))
            .collect::<Vec<_>>()
    );
    // Many clients acting at once without a view: the log stays one consistent sequence.
    let g = s.store.load(&l.id).expect("load").expect("game");
    let side = g.state["initiative_side"]
        .as_str()
        .expect("side")
        .to_string();
    let leader = g.state["leaders"]
        .as_object()
        .and_then(|m| m.values().find(|x| x["side"] == side.as_str()))
        .expect("leader")["id"]
        .clone();
    let r = s.post(
        &format!("/api/s/{}/actions", l.gm),
        &json!({"action": "command", "leader": leader}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let units: Vec<String> = g.state["units"]
        .as_object()
        .expect("units")
        .keys()
        .cloned()
        .collect();
    let handles: Vec<_> = (0..24)
        .map(|i| {
            let addr = s.addr.clone();
            let gm = l.gm.clone();
            let body = if i % 3 == 0 {
                json!({"action": "initiative"})
            } else {
                json!({"action": "regroup", "actor": units[i % units.len()]})
            };
            std::thread::spawn(move || {
                request_with(
                    &addr,
                    "POST",
                    &format!("/api/s/{gm}/actions"),
                    &[],
                    Some(&body.to_string()),
                )
                .expect("post")
            })
        })
        .collect();
    let replies: Vec<Reply> = handles
        .into_iter()
        .map(|h| h.join().expect("thread"))
        .collect();
    assert!(replies.iter().all(|r| r.status < 500));
    let accepted = replies.iter().filter(|r| r.status == 200).count();
    let g = s.store.load(&l.id).expect("load").expect("game");
    assert_eq!(g.log.entries().len(), 2 + accepted);
    for (i, e) in g.log.entries().iter().enumerate() {
        assert_eq!(e.seq(), i as u64 + 1, "sequence without gaps or repeats");
    }
    let mut seqs: Vec<u64> = replies
        .iter()
        .filter(|r| r.status == 200)
        .map(|r| r.json()["seq"].as_u64().expect("seq"))
        .collect();
    seqs.sort_unstable();
    assert_eq!(
        seqs,
        (3..=2 + accepted as u64).collect::<Vec<_>>(),
        "each acknowledged once, in order"
    );
    assert_eq!(g.verify().map(|v| v.len()), Ok(g.log.entries().len()));
}

#[test]
fn dice_thrown_at_the_table_are_checked_and_marked() {
    let s = server();
    let l = s.new_game("el-gran-capitan/cerignola-1503", 4);
    let need = json!({"action": {"action": "initiative"}, "faces": []});
    let r = s.post(&format!("/api/s/{}/dice-needed", l.gm), &need);
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (409, json!("physical-dice-off"))
    );
    let r = s.post(
        &format!("/api/s/{}/settings", l.gm),
        &json!({"physical_dice": true}),
    );
    assert_eq!(r.status, 200);
    let r = s.post(&format!("/api/s/{}/dice-needed", l.gm), &need);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["needed"].as_array().map(Vec::len), Some(2));
    assert_eq!(r.json()["needed"][0]["sides"], 6);
    let r = s.post(
        &format!("/api/s/{}/dice-needed", l.gm),
        &json!({"action": {"action": "initiative"}, "faces": [2, 5]}),
    );
    assert_eq!(r.json()["complete"], true);
    for (faces, field) in [
        (json!([2, 7]), "faces"),
        (json!([2]), "faces"),
        (json!([2, "x"]), "faces[1]"),
    ] {
        let r = s.post(
            &format!("/api/s/{}/actions/entered", l.gm),
            &json!({"action": {"action": "initiative"}, "faces": faces}),
        );
        assert_eq!(
            (r.status, r.json()["error"]["field"].clone()),
            (422, json!(field)),
            "{}",
            r.body
        );
    }
    let r = s.post(
        &format!("/api/s/{}/actions/entered", l.gm),
        &json!({"action": {"action": "initiative"}, "faces": [2, 5]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["entered"], true);
    let faces: Vec<u64> = r.json()["draws"]
        .as_array()
        .expect("draws")
        .iter()
        .filter_map(|d| d["face"].as_u64())
        .collect();
    assert_eq!(faces, [2, 5]);
    let page = s.get(&format!("/s/{}", l.gm)).body;
    assert!(page.contains("dice thrown at the table"));
    let dice = s.get(&format!("/api/s/{}/dice", l.gm)).json();
    assert_eq!(dice["faces"][0]["source"], "entered");
    // After the end nothing more is recorded.
    assert_eq!(
        s.post(&format!("/api/s/{}/conclude", l.gm), &json!(null))
            .status,
        200
    );
    let r = s.post(
        &format!("/api/s/{}/actions", l.gm),
        &json!({"action": "initiative"}),
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (409, json!("game-ended"))
    );
    assert_eq!(
        s.post(&format!("/api/s/{}/undo", l.gm), &json!(null))
            .status,
        409
    );
}

#[test]
fn the_export_reveals_the_seed_only_after_the_end_and_matches_the_commitment() {
    let s = server();
    let l = s.new_game("bloody-dismal-fight/agincourt-1415", 21);
    play_on_server(&s, &l, &[5, 3, 1], 8);
    let before = s.get(&format!("/api/s/{}/export", l.sides[0].1)).json();
    assert_eq!(before["format"], "tercio-export/3");
    assert_eq!(before["dice"]["revealed"], false);
    assert!(before["dice"].get("seed").is_none());
    assert!(
        before.get("game_id").is_none(),
        "a side's export has no host handle"
    );
    assert_eq!(
        s.post(&format!("/api/s/{}/conclude", l.gm), &json!(null))
            .status,
        200
    );
    let after = s.get(&format!("/api/s/{}/export", l.sides[0].1)).json();
    let g = s.store.load(&l.id).expect("load").expect("game");
    assert_eq!(after["dice"]["seed"].as_u64(), Some(g.seed));
    assert_eq!(after["dice"]["commitment"], before["dice"]["commitment"]);
    assert_eq!(
        after["dice"]["commitment"].as_str(),
        Some(g.commitment().as_str())
    );
    assert_eq!(
        after["game_id"].as_str(),
        Some(l.id.as_str()),
        "once ended every seat's export names the game its commitment binds"
    );
    assert_eq!(
        after["log"].as_array().map(Vec::len),
        Some(g.log.entries().len())
    );
    // The dice report: a chart and a table per die, every face thrown counted.
    let page = s.get(&format!("/s/{}/dice", l.spectator)).body;
    assert!(page.contains("<svg class=\"chart\"") && page.contains("<table class=\"faces\">"));
    let dice = s.get(&format!("/api/s/{}/dice", l.spectator)).json();
    let thrown: u64 = dice["faces"]
        .as_array()
        .expect("faces")
        .iter()
        .filter_map(|t| t["thrown"].as_u64())
        .sum();
    let drawn: usize = g
        .log
        .entries()
        .iter()
        .map(|e| match e {
            tercio_core::LogEntry::Event { event, .. } => event.draws.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(thrown as usize, drawn);
    let md = s.get(&format!("/s/{}/report.md", l.spectator)).body;
    assert!(
        md.contains("## Break points, turn by turn") && md.contains(&format!("Seed: `{}`", g.seed))
    );
}

/// A seat's `#main` as the page has it (`?part=main`, what a page fetches whole).
fn main_of(s: &Server, t: &str) -> String {
    let r = s.get(&format!("/s/{t}?part=main"));
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

/// An attribute of the first start tag of `html`.
fn attr_of(html: &str, name: &str) -> String {
    let tag = &html[..html.find('>').expect("a start tag")];
    let key = format!(" {name}=\"");
    let at = tag
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + key.len();
    tag[at..at + tag[at..].find('"').expect("closed")].to_string()
}

/// A seat's live stream, opened from its page as served (`?after=` its `data-seq`, `?etag=` its
/// `data-etag`), with that page.
fn open_live(s: &Server, t: &str) -> (EventStream, String) {
    let main = main_of(s, t);
    let path = format!(
        "/api/s/{t}/events?after={}&etag={}&brief=1",
        attr_of(&main, "data-seq"),
        attr_of(&main, "data-etag")
    );
    let es = EventStream::open(&s.addr, &path, &[]).expect("stream");
    (es, main)
}

/// What a live message's patch does to the page it was sent for: the patched `#main`, and the
/// patch's size in bytes.
fn patched(s: &Server, t: &str, data: &Value, before: &str) -> (String, usize) {
    let p = &data["patch"];
    assert_eq!(
        p["base"].as_str(),
        Some(attr_of(before, "data-etag").as_str()),
        "the patch is for the page the seat has"
    );
    let ops = ops_of(s, t, data);
    let after = tercio_web::patch::apply(before, &ops).unwrap_or_else(|e| panic!("{e}: {ops:?}"));
    (after, p["ops"].to_string().len())
}

/// A live message's ops, with the parts of the page they name (`fetch`, a patch too big for one
/// message) fetched as the page does (`GET /api/s/{t}/parts` for the version the patch makes).
fn ops_of(s: &Server, t: &str, data: &Value) -> Vec<tercio_web::patch::Op> {
    let p = &data["patch"];
    let mut ops: Vec<tercio_web::patch::Op> =
        serde_json::from_value(p["ops"].clone()).expect("the patch's ops");
    let ids: Vec<&str> = p["ops"]
        .as_array()
        .expect("ops")
        .iter()
        .flat_map(|o| o["fetch"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    if ids.is_empty() {
        return ops;
    }
    let r = s.get(&format!(
        "/api/s/{t}/parts?etag={}&ids={}",
        p["etag"].as_str().expect("etag"),
        ids.join(",")
    ));
    assert_eq!(r.status, 200, "{}", r.body);
    let parts: std::collections::BTreeMap<String, String> =
        serde_json::from_value(r.json()["parts"].clone()).expect("parts");
    for op in &mut ops {
        op.fill(&parts).expect("every part named");
    }
    ops
}

fn example(name: &str) -> Value {
    let path = format!(
        "{}/../../examples/el-gran-capitan/game/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).expect("example")).expect("json")
}

/// The Cerignola charge of the example turn, then its undo, as the game master's page and each
/// side's page see them: each seat is sent one `entry` of at most 4 KB whose patch turns the page
/// it had into exactly the page it would now be served, without sending the page whole. The
/// result every seat shows is the log entry the patch inserts: the entry itself comes brief.
#[test]
fn a_live_event_is_a_small_patch_that_makes_each_page_the_new_one() {
    let s = server();
    let l = s.new_game("el-gran-capitan/cerignola-1503", 5);
    for f in ["01-initiative", "02-command", "03-attach"] {
        let r = s.post(&format!("/api/s/{}/actions", l.gm), &example(f));
        assert_eq!(r.status, 200, "{f}: {}", r.body);
    }
    let mut seats = vec![("game master".to_string(), l.gm.clone())];
    seats.extend(l.sides.iter().map(|(side, t)| (side.clone(), t.clone())));
    seats.push(("spectator".into(), l.spectator.clone()));
    let mut too_big = Vec::new();
    for (what, path, body) in [
        ("the charge", "actions", Some(example("04-charge"))),
        ("its undo", "undo", None),
    ] {
        let mut open: Vec<_> = seats
            .iter()
            .map(|(who, t)| {
                let (es, main) = open_live(&s, t);
                (who, t, es, main)
            })
            .collect();
        let r = s.post(
            &format!("/api/s/{}/{path}", l.gm),
            &body.clone().unwrap_or(Value::Null),
        );
        assert_eq!(r.status, 200, "{what}: {}", r.body);
        for (who, t, es, before) in &mut open {
            let e = es
                .next(Duration::from_secs(20))
                .expect("read")
                .unwrap_or_else(|| panic!("{what}: nothing reached the {who}"));
            assert_eq!(e.event, "entry", "{what}, {who}: {e:?}");
            let data: Value = serde_json::from_str(&e.data).expect("json");
            let (patched, ops) = patched(&s, t, &data, before);
            let now = main_of(&s, t);
            eprintln!(
                "live: {what}, the {who}'s page: one message of {} bytes (patch {ops} bytes), where #main is {} bytes",
                e.data.len(),
                now.len()
            );
            assert_eq!(patched, now, "{what}, {who}: the patched page is the page");
            assert_eq!(
                data["patch"]["etag"].as_str(),
                Some(attr_of(&now, "data-etag").as_str())
            );
            // The result every seat shows: the entry's summary, and its text in the log's
            // entry the patch inserts (not sent twice: the resolution's steps stay out).
            if path != "undo" {
                let res = &data["entry"]["event"]["resolution"];
                assert!(
                    res["summary"]
                        .as_str()
                        .is_some_and(|s| s.contains("Disordered"))
                        && res["rolled"] == true
                        && res.get("steps").is_none(),
                    "{what}, {who}: {res}"
                );
                let li = patched
                    .split("<li ")
                    .find(|l| l.contains("id=\"e-4\""))
                    .unwrap_or_else(|| panic!("{what}, {who}: no entry #4"));
                // Its steps, fetched when it is opened, not carried by the patch.
                assert!(!li.contains("<pre>"), "{what}, {who}: {li}");
                let steps = s.get(&format!("/api/s/{t}/entry?seq=4"));
                assert_eq!(steps.status, 200, "{}", steps.body);
                let steps = steps.json()["html"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                assert!(
                    steps.contains("<pre>Charge: Swiss pikes (first block) at Spanish pikes")
                        && steps.contains("Leader with unit (+1)"),
                    "{what}, {who}: {steps}"
                );
            }
            if e.data.len() > 4096 {
                too_big.push(format!("{what}, {who}: {} bytes", e.data.len()));
            }
        }
    }
    assert!(too_big.is_empty(), "{too_big:?}");
}

/// A page that connects with the version it has is sent nothing until something changes; a page
/// whose version is not the current one (cut off while things changed) is sent its `#main` whole,
/// once, as the first message; a change that adds no entry comes as `changed` with its patch.
#[test]
fn a_page_behind_gets_its_main_once_and_changes_without_entries_come_patched() {
    let s = server();
    let l = s.new_game("el-gran-capitan/cerignola-1503", 5);
    let t = &l.sides[0].1;
    let (mut es, before) = open_live(&s, t);
    assert_eq!(es.next(Duration::from_millis(300)).expect("read"), None);
    // The game master lets the sides act: the side's page grows its action form.
    let r = s.post(
        &format!("/api/s/{}/settings", l.gm),
        &json!({"side_rights": "own-units"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let e = es
        .next(Duration::from_secs(20))
        .expect("read")
        .expect("changed");
    assert_eq!(e.event, "changed", "{e:?}");
    let data: Value = serde_json::from_str(&e.data).expect("json");
    let (patched, _) = patched(&s, t, &data, &before);
    let now = main_of(&s, t);
    assert_eq!(patched, now);
    assert!(
        patched.contains("class=\"action-form") || patched.contains("<details class=\"act\""),
        "the action forms"
    );
    assert!(
        !data["patch"]["ops"]
            .as_array()
            .expect("ops")
            .iter()
            .any(|o| o["id"] == "main" && o["op"] == "replace"),
        "a patch, not the page: {} bytes for a page of {}",
        e.data.len(),
        now.len()
    );
    // A page that missed changes: its version is not the current one.
    let r = s.post(
        &format!("/api/s/{}/actions", l.gm),
        &json!({"action": "initiative"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let stale = format!(
        "/api/s/{t}/events?after=0&etag={}",
        attr_of(&before, "data-etag")
    );
    let mut es = EventStream::open(&s.addr, &stale, &[]).expect("stream");
    let e = es
        .next(Duration::from_secs(20))
        .expect("read")
        .expect("entry");
    assert_eq!((e.event.as_str(), e.id.as_deref()), ("entry", Some("1")));
    let data: Value = serde_json::from_str(&e.data).expect("json");
    // Bigger than a live message: the page is told to fetch it (once).
    assert!(e.data.len() <= 4096, "{} bytes", e.data.len());
    assert_eq!(
        ops_of(&s, t, &data),
        vec![tercio_web::patch::Op::Replace {
            id: "main".into(),
            html: main_of(&s, t),
            fetch: Vec::new(),
        }],
        "one replace of #main"
    );
    assert_eq!(es.next(Duration::from_millis(300)).expect("read"), None);
}

/// Every seat's page of every shipped scenario, from the start and a few actions in, reads as
/// well-formed HTML with each id on one element; and from one action to the next the patch the
/// live stream would send turns the old `#main` into the new one.
#[test]
fn every_shipped_scenarios_pages_have_unique_ids_and_patch_from_one_action_to_the_next() {
    let s = server();
    for sc in tercio_web::scenarios::SHIPPED {
        let l = s.new_game(sc.id, 11);
        let all = l.all();
        let pages = |stage: &str| -> Vec<String> {
            all.iter()
                .map(|(role, t)| {
                    let page = s.get(&format!("/s/{t}")).body;
                    let ids = tercio_web::patch::ids(&page)
                        .unwrap_or_else(|e| panic!("{} {stage}, {role}: {e}", sc.id));
                    assert!(ids.len() > 10, "{} {stage}, {role}: {ids:?}", sc.id);
                    main_of(&s, t)
                })
                .collect()
        };
        let mut before = pages("at the start");
        for step in 0..4 {
            let acted = if sc.id.starts_with("el-gran-capitan") || sc.id.starts_with("bloody") {
                play_on_server(&s, &l, &[step, 3, 1], 1);
                true
            } else {
                let p = s.get(&format!("/s/{}", l.gm)).body;
                match p
                    .split("<form class=\"action-form primary bare\"")
                    .nth(1)
                    .and_then(|f| f.split_once("data-action=\""))
                    .and_then(|(_, r)| r.split_once('"'))
                {
                    Some((action, _)) => {
                        let r = s.post(
                            &format!("/api/s/{}/actions", l.gm),
                            &json!({ "action": action }),
                        );
                        r.status == 200
                    }
                    None => false,
                }
            };
            if !acted {
                break;
            }
            let after = pages(&format!("after step {step}"));
            for ((role, _), (old, new)) in all.iter().zip(before.iter().zip(&after)) {
                let ops = tercio_web::patch::diff(old, new);
                let got = tercio_web::patch::apply(old, &ops);
                assert_eq!(
                    got.as_deref(),
                    Ok(new.as_str()),
                    "{} step {step}, {role}: {ops:?}",
                    sc.id
                );
                assert!(
                    !ops.iter().any(
                        |o| matches!(o, tercio_web::patch::Op::Replace { id, .. } if id == "main")
                    ),
                    "{} step {step}, {role}: #main replaced whole",
                    sc.id
                );
            }
            before = after;
        }
    }
}

/// Every action of every rule set's example game reaches the game master's page and a side's
/// as one live message whose patch makes the page it had the page it would now be served, never
/// by sending `#main` whole; the largest message of each game is printed (`docs/performance.md`:
/// where a turn's phase brings a new form, the game master's is far above the 4 KB the charge
/// above keeps to).
#[test]
fn every_example_games_live_messages_patch_the_page() {
    let s = server();
    let mut worst = Vec::new();
    for rules in common::RULE_SETS {
        let (scenario, seed, mut steps) = common::example_game(rules);
        // The cards are played from the game master's link: one device for both sides.
        common::on_one_device(&mut steps);
        let l = s.new_game(&scenario, seed);
        let seats = [l.gm.clone(), l.sides[0].1.clone()];
        let mut most = (0, String::new());
        let (mut over, mut messages, mut fetching) = (0, 0, 0);
        for (step, action) in steps {
            let mut open: Vec<_> = seats.iter().map(|t| open_live(&s, t)).collect();
            let r = s.post(&format!("/api/s/{}/actions", l.gm), &action);
            assert_eq!(r.status, 200, "{step}: {}", r.body);
            for (i, (es, before)) in open.iter_mut().enumerate() {
                let e = es
                    .next(Duration::from_secs(20))
                    .expect("read")
                    .unwrap_or_else(|| panic!("{step}: no message"));
                let data: Value = serde_json::from_str(&e.data).expect("json");
                let (patched, _) = patched(&s, &seats[i], &data, before);
                assert_eq!(patched, main_of(&s, &seats[i]), "{step}");
                let ops = data["patch"]["ops"].as_array().cloned().unwrap_or_default();
                assert!(
                    !ops.iter()
                        .any(|o| o["id"] == "main" && o["op"] == "replace"),
                    "{step}, seat {i}: the page whole"
                );
                if e.data.len() > most.0 {
                    most = (e.data.len(), format!("{step}, seat {i}"));
                }
                if e.data.len() > 4096 {
                    over += 1;
                }
                if ops.iter().any(|o| o.get("fetch").is_some()) {
                    fetching += 1;
                }
                messages += 1;
            }
        }
        worst.push(format!(
            "{rules}: {over} of {messages} over 4 KB, the largest {} bytes ({}); {fetching} naming parts to fetch",
            most.0, most.1
        ));
    }
    eprintln!("live: each example game's messages: {worst:#?}");
    assert!(
        worst.iter().all(|w| w.contains(": 0 of ")),
        "messages over 4 KB: {worst:#?}"
    );
}

/// `GET /api/s/{token}/choices` (issue 14): what the rules would refuse of each choice of what
/// acts, apart from the page. At every step of El Gran Capitán's example game each seat is
/// answered for the lists its own page draws and the choices they hold, never a spectator; the
/// game master is told of choices refused for the turn only (`later`) and of others.
#[test]
fn each_seat_is_told_what_its_own_lists_would_refuse() {
    let s = server();
    let (scenario, seed, steps) = common::example_game("el-gran-capitan");
    let l = s.new_game(&scenario, seed);
    let (mut later, mut refused) = (0, 0);
    for (n, (step, action)) in steps.iter().enumerate() {
        for (role, t) in l.all() {
            let r = s.get(&format!("/api/s/{t}/choices"));
            assert_eq!(r.status, 200, "{role}: {}", r.body);
            let v = r.json();
            assert_eq!(v["seq"], json!(n), "{role}");
            let lists = v["choices"].as_object().expect("choices");
            // The page's own, brief: a choice to come later without its reason, a list marked
            // as another names it; the same marks otherwise.
            let brief = s.get(&format!("/api/s/{t}/choices?brief=1")).json();
            let brief = brief["choices"].as_object().expect("brief choices");
            assert_eq!(brief.len(), lists.len(), "{role}: {brief:?}");
            for (id, marks) in lists {
                let mut want = marks.clone();
                for m in want.as_object_mut().expect("marks").values_mut() {
                    if m["later"] == json!(true) {
                        m.as_object_mut().expect("mark").remove("why");
                    }
                }
                let got = match &brief[id] {
                    Value::String(same) => {
                        assert!(!brief[same].is_string(), "{role}: {id} names {same}");
                        &brief[same]
                    }
                    m => m,
                };
                assert_eq!(got, &want, "{role}: {id}");
            }
            if role == "spectator" {
                assert!(lists.is_empty(), "{role}: {v}");
            }
            let page = main_of(&s, &t);
            for (id, marks) in lists {
                // The form's own list, or (the action folded, its form not in the page) the
                // list its action is picked from, which takes its marks; a list sent empty takes
                // its options from the list it names.
                let at = page
                    .find(&format!(" id=\"{id}\""))
                    .or_else(|| page.find(&format!(" data-marks=\"{id}\"")))
                    .unwrap_or_else(|| panic!("{role}: no list {id} on the page"));
                let mut list = &page[at..at + page[at..].find("</select>").expect("its end")];
                if let Some(from) = list
                    .split_once(" data-options=\"")
                    .and_then(|(_, r)| r.split_once(':'))
                    .map(|(src, _)| src.to_string())
                {
                    let at = page
                        .find(&format!(" id=\"{from}\""))
                        .expect("the list named");
                    list = &page[at..at + page[at..].find("</select>").expect("its end")];
                }
                for (value, m) in marks.as_object().expect("marks") {
                    assert!(
                        list.contains(&format!("<option value=\"{value}\"")),
                        "{role}: {id} has no {value}"
                    );
                    assert!(m["why"].as_str().is_some_and(|w| !w.is_empty()), "{m}");
                    // The page itself says none of it.
                    assert!(!list.contains(m["why"].as_str().unwrap_or_default()));
                    if role == "game-master" {
                        if m["later"] == json!(true) {
                            later += 1;
                        } else {
                            refused += 1;
                        }
                    }
                }
            }
        }
        let r = s.post(&format!("/api/s/{}/actions", l.gm), action);
        assert_eq!(r.status, 200, "{step}: {}", r.body);
    }
    assert!(later > 0 && refused > 0, "later {later}, refused {refused}");
}

/// `GET /api/s/{token}/form` (issue 43, item 10): a page carries its folded actions' titles, not
/// their forms; the form of one is sent when it is opened, drawn for the state as it is, with
/// the hash the page's folded action carries; a seat with nothing to act on gets none; asked
/// wrongly, a clear refusal naming the field, in the page's language.
#[test]
fn a_folded_actions_form_is_sent_when_it_is_opened() {
    let s = server();
    let l = s.new_game("el-gran-capitan/cerignola-1503", 5);
    let main = main_of(&s, &l.gm);
    let at = main
        .find("id=\"act-f-charge\"")
        .expect("the charge, folded");
    assert!(
        !main.contains("id=\"form-f-charge\""),
        "the charge's form is in the page"
    );
    let hash = attr_of(&main[at..], "data-form");
    let r = s.get(&format!("/api/s/{}/form?id=act-f-charge&lang=it", l.gm));
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    let html = v["html"].as_str().expect("html");
    assert!(
        html.starts_with("<form class=\"action-form")
            && html.contains(" id=\"form-f-charge\"")
            && html.ends_with("</form>"),
        "{html}"
    );
    assert!(html.contains("<h3>Carica</h3>"), "{html}");
    // The page in Italian carries the same hash as the Italian form (the page above is English).
    let main_it = s.get(&format!("/s/{}?part=main&lang=it", l.gm)).body;
    let at_it = main_it.find("id=\"act-f-charge\"").expect("folded");
    assert_eq!(v["form"], json!(attr_of(&main_it[at_it..], "data-form")));
    assert_ne!(hash, "", "{main}");
    // A list repeated within the form is sent once, naming a list of the form itself.
    for (i, _) in html.match_indices("data-options=\"") {
        let source = &html[i + "data-options=\"".len()..];
        let source = &source[..source.find(':').expect("source:hash")];
        assert!(
            html.contains(&format!("id=\"{source}\"")),
            "{source} is not in the form"
        );
    }
    // The spectator acts on nothing: no form.
    let r = s.get(&format!("/api/s/{}/form?id=act-f-charge", l.spectator));
    assert_eq!(r.status, 404, "{}", r.body);
    for (query, status, code) in [
        ("id=act-f-nowhere&lang=it", 404, "gone"),
        ("id=form-f-charge", 404, "gone"),
        ("", 400, "bad-field"),
        ("id=%20", 400, "bad-field"),
    ] {
        let r = s.get(&format!("/api/s/{}/form?{query}", l.gm));
        assert_eq!(r.status, status, "{query}: {}", r.body);
        let e = &r.json()["error"];
        assert_eq!(
            (e["code"].as_str(), e["field"].as_str()),
            (Some(code), Some("id")),
            "{e}"
        );
    }
    let r = s.get(&format!("/api/s/{}/form?id=act-f-nowhere&lang=it", l.gm));
    assert_eq!(
        r.json()["error"]["message"],
        "id: nessuna azione act-f-nowhere da disegnare ora: la pagina è cambiata"
    );
}

/// `GET /api/s/{token}/parts` (issue 14): the parts of a seat's page a live patch names, for the
/// version it makes; asked wrongly, a clear refusal naming the field, in the page's language.
#[test]
fn the_parts_of_a_page_are_sent_for_its_version_only() {
    let s = server();
    let l = s.new_game("el-gran-capitan/cerignola-1503", 5);
    let main = main_of(&s, &l.gm);
    let etag = attr_of(&main, "data-etag");
    let r = s.get(&format!(
        "/api/s/{}/parts?etag={etag}&ids=forms,log-list",
        l.gm
    ));
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["etag"], json!(etag));
    for id in ["forms", "log-list"] {
        let part = v["parts"][id].as_str().expect("part");
        assert!(
            part.contains(&format!(" id=\"{id}\"")) && main.contains(part),
            "{id}: {part}"
        );
    }
    // The game moves on: that version's parts are no longer to be had.
    let r = s.post(
        &format!("/api/s/{}/actions", l.gm),
        &json!({"action": "initiative"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    for (query, status, code, field) in [
        (format!("etag={etag}&ids=forms"), 412, "stale", "etag"),
        ("ids=forms".to_string(), 412, "stale", "etag"),
        (format!("etag={etag}"), 400, "bad-field", "ids"),
        (format!("etag={etag}&ids=%20,"), 400, "bad-field", "ids"),
    ] {
        let r = s.get(&format!("/api/s/{}/parts?{query}", l.gm));
        assert_eq!(r.status, status, "{query}: {}", r.body);
        let e = &r.json()["error"];
        assert_eq!(
            (e["code"].as_str(), e["field"].as_str()),
            (Some(code), Some(field)),
            "{e}"
        );
    }
    // The version of the page in Italian.
    let now = attr_of(
        &s.get(&format!("/s/{}?part=main&lang=it", l.gm)).body,
        "data-etag",
    );
    let r = s.get(&format!(
        "/api/s/{}/parts?etag={now}&ids=forms,nowhere&lang=it",
        l.gm
    ));
    assert_eq!(r.status, 404, "{}", r.body);
    let e = &r.json()["error"];
    assert_eq!(e["field"], "ids", "{e}");
    assert_eq!(
        e["message"], "ids: la pagina non ha l'elemento nowhere",
        "{e}"
    );
}
