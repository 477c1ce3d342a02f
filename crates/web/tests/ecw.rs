//! Commands & Colors ECW through the web app, against the real server on port 0: each side holds
//! a secret hand of command cards, so its link acts from the start, each seat sees only its own
//! hand, the game master plays no card, the odds never look into a face-down pack, the table's
//! dice never deal the cards, and the end of the game reveals every card for `tercio verify`.

use serde_json::{json, Value};
use tercio_rules::commands_colors_ecw::tables::{command_card, command_kind, CommandCard};
use tercio_rules::game::Game;
use tercio_store::Store;
use tercio_web::client::{caught_up, read_events_until, request_with, Reply};

mod common;

use common::{server, token, Server, PATIENCE};

const EDGEHILL: &str = "commands-colors-ecw/edgehill-1642";
const TIBBERMORE: &str = "commands-colors-ecw/tibbermore-1644";

/// Text the pages and the log show whatever the hands hold: the melee's announcement and the
/// melee form's hint name the Evade response, not a card anyone holds.
const STATIC_MENTIONS: &[&str] = &["(Evade, Stand of Pikes, Retire and Reform"];

/// A game's links, by role.
struct Links {
    id: String,
    gm: String,
    /// (side id, token), in the scenario's order of sides (the state's `sides` index).
    sides: Vec<(String, String)>,
    spectator: String,
}

impl Links {
    /// Every seat: (the side index it sees as its own, a label, its token).
    fn seats(&self) -> Vec<(Option<usize>, String, String)> {
        let mut v = vec![(None, "game-master".to_string(), self.gm.clone())];
        v.extend(
            self.sides
                .iter()
                .enumerate()
                .map(|(i, (s, t))| (Some(i), format!("side:{s}"), t.clone())),
        );
        v.push((None, "spectator".into(), self.spectator.clone()));
        v
    }
}

impl Server {
    fn call(&self, method: &str, path: &str, body: Option<&str>) -> Reply {
        let r = request_with(&self.addr, method, path, &[], body).expect("request");
        assert!(r.status < 500, "{method} {path} -> {} {}", r.status, r.body);
        r
    }
    fn get(&self, path: &str) -> Reply {
        self.call("GET", path, None)
    }
    fn post(&self, path: &str, body: &Value) -> Reply {
        self.call("POST", path, Some(&body.to_string()))
    }
    fn new_game(&self, scenario: &str, seed: u64) -> Links {
        let v = self.create(&json!({"scenario": scenario, "seed": seed}));
        let links = v["links"].as_array().expect("links");
        assert_eq!(links[0]["role"], "game-master", "{v}");
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
    /// The game as stored: every card, the deck and the shuffle key.
    fn raw(&self, l: &Links) -> Game {
        self.store.load(&l.id).expect("load").expect("game")
    }
    /// A seat's view (`GET /api/s/{t}`).
    fn view(&self, t: &str) -> Value {
        let r = self.get(&format!("/api/s/{t}"));
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    }
    fn act(&self, t: &str, a: &Value) -> Reply {
        self.post(&format!("/api/s/{t}/actions"), a)
    }
    fn act_ok(&self, t: &str, a: &Value) -> Value {
        let r = self.act(t, a);
        assert_eq!(r.status, 200, "{a}: {}", r.body);
        r.json()
    }
    fn undo(&self, l: &Links) {
        let r = self.post(&format!("/api/s/{}/undo", l.gm), &json!(null));
        assert_eq!(r.status, 200, "undo: {}", r.body);
    }
    fn deal(&self, l: &Links) {
        self.act_ok(&l.gm, &json!({"action": "deal"}));
    }
}

/// The status and error code of a reply.
fn refusal(r: &Reply) -> (u16, Value) {
    (r.status, r.json()["error"]["code"].clone())
}

fn nums(v: &Value) -> Vec<u8> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list of cards: {v}"))
        .iter()
        .map(|c| c.as_u64().and_then(|c| u8::try_from(c).ok()).expect("card"))
        .collect()
}

fn kinds(cards: &[u8]) -> Vec<&'static str> {
    cards.iter().map(|&c| command_kind(c).id).collect()
}

/// Every card a side holds in the raw state: its hand, its scouted pair, its Stand of Pikes track.
fn held(st: &Value, side: usize) -> Vec<u8> {
    let s = &st["sides"][side];
    let mut v = nums(&s["hand"]);
    v.extend(nums(&s["scout"]));
    v.extend(
        s["track"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t[0].as_u64())
            .filter_map(|c| u8::try_from(c).ok()),
    );
    v
}

/// A side's units on the table that may melee (not artillery), and the other side's targets.
fn melee_units(st: &Value, side: usize) -> (Vec<String>, Vec<String>) {
    let live = |u: &&Value| u["gone"].is_null() && u["spare"] == false;
    let units = st["units"].as_array().expect("units");
    let own = units
        .iter()
        .filter(live)
        .filter(|u| u["side"] == side && u["class"] != "artillery")
        .map(|u| u["id"].as_str().expect("id").to_string())
        .collect();
    let enemies = units
        .iter()
        .filter(live)
        .filter(|u| u["side"] != side)
        .map(|u| u["id"].as_str().expect("id").to_string())
        .collect();
    (own, enemies)
}

/// The side plays a card from its hand, as its own link sees it, and orders a unit that may melee
/// under it: section cards first (a section holding one of its units), else any card; a card
/// that orders no such unit is taken back by the game master's undo. Returns the unit ordered.
fn play_and_order(s: &Server, l: &Links, side: usize) -> String {
    play_and_order_with(s, l, side, |_| true, |_| true)
}

/// [`play_and_order`] with the cards of kinds `allowed` only, ordering a unit `unit_ok` takes.
fn play_and_order_with(
    s: &Server,
    l: &Links,
    side: usize,
    allowed: impl Fn(&str) -> bool,
    unit_ok: impl Fn(&Value) -> bool,
) -> String {
    let tok = &l.sides[side].1;
    let st = s.view(tok)["state"].clone();
    assert_eq!(st["phase"], "command", "{}", st["phase"]);
    let hand = nums(&st["sides"][side]["hand"]);
    assert!(!hand.is_empty(), "the side sees its own hand");
    let mut cards: Vec<&CommandCard> = Vec::new();
    for &c in &hand {
        let k = command_kind(c);
        if allowed(k.id) && !cards.iter().any(|x| x.id == k.id) {
            cards.push(k);
        }
    }
    cards.sort_by_key(|k| k.sections.is_none());
    let (own, _) = melee_units(&st, side);
    let own: Vec<String> = own
        .into_iter()
        .filter(|id| {
            st["units"]
                .as_array()
                .expect("units")
                .iter()
                .any(|u| u["id"] == id.as_str() && unit_ok(u))
        })
        .collect();
    for k in cards {
        if k.id == "evade" {
            continue;
        }
        let mut a = json!({"action": "play", "card": k.id});
        if k.id == "hazzard-a-chaunce" {
            a["mode"] = json!("order");
        }
        let r = s.act(tok, &a);
        assert_ne!(r.status, 403, "a side plays its own hand: {}", r.body);
        if r.status != 200 {
            continue;
        }
        if s.raw(l).state["phase"] != "orders" {
            s.undo(l);
            continue;
        }
        let ordered = own
            .iter()
            .find(|u| s.act(tok, &json!({"action": "order", "unit": u})).status == 200);
        let effective = s.raw(l).state["card"]["effective"].clone();
        match ordered {
            Some(u) if effective != "march-to-victorye" && effective != "fire-and-hold" => {
                return u.clone();
            }
            Some(_) => {
                s.undo(l);
                s.undo(l);
            }
            None => s.undo(l),
        }
    }
    panic!("no card of {:?} orders a unit that may melee", kinds(&hand));
}

/// The side ends its turn (stopping a compelled breakthrough first, keeping the first scouted
/// card after a Scout), through its own link.
fn end_turn(s: &Server, l: &Links, side: usize) {
    let tok = &l.sides[side].1;
    let mut r = s.act(tok, &json!({"action": "end_turn"}));
    if r.status != 200 && r.json()["error"]["code"] == "rash-compelled" {
        s.act_ok(tok, &json!({"action": "stop", "no_target": true}));
        r = s.act(tok, &json!({"action": "end_turn"}));
    }
    assert_eq!(r.status, 200, "end_turn: {}", r.body);
    let st = s.view(tok)["state"].clone();
    if st["phase"] == "scout" {
        let pair = nums(&st["sides"][side]["scout"]);
        assert_eq!(pair.len(), 2, "the drawer sees its scouted pair");
        s.act_ok(
            tok,
            &json!({"action": "keep", "card": command_kind(pair[0]).id}),
        );
    }
}

/// The first seed whose deal gives `side` a card of a kind in `wanted`.
fn seed_dealing(scenario: &str, side: usize, wanted: &[&str]) -> u64 {
    let shipped = tercio_web::scenarios::find(scenario).expect("shipped");
    let sc = tercio_rules::scenario::parse(shipped.id, shipped.toml).expect("scenario");
    (0..500u64)
        .find(|&seed| {
            let mut g = Game::new(sc.clone(), seed).expect("game");
            g.act(json!({"action": "deal"})).expect("deal");
            kinds(&nums(&g.state["sides"][side]["hand"]))
                .iter()
                .any(|k| wanted.contains(k))
        })
        .unwrap_or_else(|| panic!("no seed deals {wanted:?}"))
}

/// Every `"salt"` key in a body, with its value, in JSON (compact or pretty) or any text.
fn salts(body: &str) -> Vec<String> {
    body.match_indices("\"salt\"")
        .map(|(i, k)| {
            body[i + k.len()..]
                .trim_start()
                .trim_start_matches(':')
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect()
        })
        .collect()
}

/// Every value of the key `salt` anywhere in a JSON value.
fn salt_values(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "salt" {
                    out.push(x.clone());
                }
                salt_values(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| salt_values(x, out)),
        _ => {}
    }
}

/// Every string anywhere in a JSON value.
fn string_values<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(x) => out.push(x),
        Value::Object(m) => m.values().for_each(|x| string_values(x, out)),
        Value::Array(a) => a.iter().for_each(|x| string_values(x, out)),
        _ => {}
    }
}

/// A page without its "next draw" table: the chance of each kind of card the side has not
/// seen lists every kind still unseen (the other side's among them, as it must: they might be in
/// the deck), which is no leak.
fn without_next_draw(html: &str) -> String {
    let mut h = html.to_string();
    while let Some(i) = h.find(": next draw") {
        let start = h[..i].rfind("<h3").expect("the table's title");
        let end = i + h[i..].find("</table>").expect("the table's end") + "</table>".len();
        h.replace_range(start..end, "");
    }
    h
}

fn without_static_mentions(body: &str) -> String {
    STATIC_MENTIONS
        .iter()
        .fold(body.to_string(), |b, m| b.replace(m, ""))
}

/// The `<details class="reveal"…>` blocks of a page: each from its opening tag to its
/// `</details>` (a reveal block holds forms and tables, no other details).
fn reveal_blocks(h: &str) -> Vec<&str> {
    h.match_indices("<details class=\"reveal\"")
        .map(|(i, _)| &h[i..i + h[i..].find("</details>").expect("details closed")])
        .collect()
}

/// What each seat is sent at one moment: its state, its log, its export, its pages and its dice
/// (and, with `live`, its live stream); checked for the names of cards only another side holds,
/// and for the shuffle key. Returns how many (seat, card, response) triples were checked.
fn check_no_leak(s: &Server, l: &Links, stage: &str, live: bool) -> usize {
    let g = s.raw(l);
    let st = &g.state;
    assert_ne!(
        st["salt"].as_u64(),
        Some(0),
        "{stage}: the stored game has its shuffle key"
    );
    // Cards anyone may name: the face-up discards, the card in play, each side's last card.
    let mut public: Vec<&str> = kinds(&nums(&st["discard"]));
    if let Some(c) = st["card"]["card"].as_u64() {
        public.push(command_kind(u8::try_from(c).expect("card")).id);
    }
    for side in st["sides"].as_array().expect("sides") {
        if let Some(c) = side["last_card"].as_str() {
            public.push(c);
        }
    }
    // A card played face up and taken back by an undo went back to the hand in full view.
    for e in g.log.entries() {
        if let tercio_core::LogEntry::Event { event, .. } = e {
            if event.action["action"] == "play" {
                if let Some(k) = event.action["card"].as_str().and_then(command_card) {
                    public.push(k.id);
                }
            }
        }
    }
    let n_sides = l.sides.len();
    let mut checked = 0;
    for (own, role, t) in l.seats() {
        let mine: Vec<&str> = own.map(|i| kinds(&held(st, i))).unwrap_or_default();
        let mut secret: Vec<&'static str> = Vec::new();
        for j in (0..n_sides).filter(|&j| Some(j) != own) {
            for k in kinds(&held(st, j)) {
                if !mine.contains(&k) && !public.contains(&k) && !secret.contains(&k) {
                    secret.push(k);
                }
            }
        }
        let names: Vec<&str> = secret
            .iter()
            .map(|k| command_card(k).expect("kind").name)
            .collect();
        let mut sent: Vec<(String, String)> = [
            format!("/api/s/{t}"),
            format!("/api/s/{t}/log"),
            format!("/api/s/{t}/export"),
            format!("/api/s/{t}/dice"),
            format!("/s/{t}"),
            format!("/s/{t}?part=main"),
            format!("/s/{t}/log"),
            format!("/s/{t}/report.md"),
        ]
        .into_iter()
        .map(|path| {
            let r = s.get(&path);
            assert_eq!(r.status, 200, "{stage}: {role} {path}: {}", r.body);
            (path, r.body)
        })
        .collect();
        if live {
            let path = format!("/api/s/{t}/events");
            let n = g.log.entries().len();
            let (status, events, raw) =
                read_events_until(&s.addr, &path, &[], PATIENCE, |e, raw| caught_up(e, raw, n))
                    .expect("events");
            assert_eq!(status, 200, "{stage}: {role} {path}");
            assert_eq!(
                events.iter().filter(|e| e.event == "entry").count(),
                g.log.entries().len(),
                "{stage}: {role}: every entry is streamed"
            );
            sent.push((path, raw));
        }
        for (path, sent_body) in &sent {
            let body = without_static_mentions(&without_next_draw(sent_body));
            for name in &names {
                if let Some(i) = body.find(name) {
                    let from = body[..i]
                        .char_indices()
                        .rev()
                        .nth(120)
                        .map_or(0, |(x, _)| x);
                    let to = (i + 160).min(body.len());
                    let to = (to..=body.len())
                        .find(|&x| body.is_char_boundary(x))
                        .unwrap_or(body.len());
                    panic!(
                        "{stage}: {role} is sent \"{name}\", a card only the other side holds, in {path}: …{}…",
                        &body[from..to]
                    );
                }
                checked += 1;
            }
            for v in salts(sent_body) {
                assert_eq!(v, "0", "{stage}: {role} is sent the shuffle key in {path}");
            }
            if path.starts_with("/api/") && !path.ends_with("/events") {
                let mut found = Vec::new();
                let v: Value = serde_json::from_str(sent_body).expect("json");
                // Nor any of those cards by id (an action's field, a choice).
                let mut strings = Vec::new();
                string_values(&v, &mut strings);
                for k in &secret {
                    assert!(
                        !strings.contains(k),
                        "{stage}: {role} is sent the id \"{k}\" of a card only the other side holds, in {path}"
                    );
                }
                salt_values(&v, &mut found);
                assert!(
                    found.iter().all(|x| x.as_u64() == Some(0)),
                    "{stage}: {role} is sent the shuffle key in {path}: {found:?}"
                );
            }
            if path.ends_with("/dice") {
                // The deal's eight dice of 255 faces are the shuffle key: never tallied.
                let v: Value = serde_json::from_str(sent_body).expect("json");
                assert!(
                    v["faces"]
                        .as_array()
                        .expect("faces")
                        .iter()
                        .all(|f| f["sides"] != 255),
                    "{stage}: {role} is sent the deal's dice in {path}: {v}"
                );
            }
        }
        // The state a seat is sent: the decks and the key are nobody's; a side sees its own hand.
        let v = s.view(&t)["state"].clone();
        assert_eq!(v["deck"], json!([]), "{stage}: {role}");
        assert_eq!(v["pack"], json!([]), "{stage}: {role}");
        assert_eq!(v["salt"], 0, "{stage}: {role}");
        for j in 0..n_sides {
            let seen = &v["sides"][j];
            if Some(j) == own {
                assert_eq!(
                    nums(&seen["hand"]),
                    nums(&st["sides"][j]["hand"]),
                    "{stage}"
                );
                assert!(seen["hidden"].is_null(), "{stage}: {role}");
            } else {
                assert_eq!(
                    seen["hand"],
                    json!([]),
                    "{stage}: {role} sees side {j}'s hand"
                );
                assert_eq!(
                    seen["hidden"].as_u64(),
                    st["sides"][j]["hand"].as_array().map(|h| h.len() as u64),
                    "{stage}: {role}"
                );
                assert!(
                    seen["scout"]
                        .as_array()
                        .expect("scout")
                        .iter()
                        .all(|c| c == 255),
                    "{stage}: {role} sees side {j}'s scouted cards"
                );
            }
        }
        // The check would see a card name: a side's page names the cards of its own hand.
        if let Some(i) = own {
            let page = without_next_draw(&s.get(&format!("/s/{t}")).body);
            for k in kinds(&nums(&st["sides"][i]["hand"])) {
                let name = command_card(k).expect("kind").name;
                assert!(
                    page.contains(name),
                    "{stage}: {role}'s page names its own {name}"
                );
            }
        }
    }
    checked
}

#[test]
fn a_card_games_side_links_act_from_the_start() {
    let s = server();
    for scenario in [EDGEHILL, TIBBERMORE] {
        let created = s.create(&json!({"scenario": scenario, "seed": 7}));
        assert_eq!(
            created["settings"]["side_rights"], "own-units",
            "{scenario}"
        );
        let l = s.new_game(scenario, 7);
        for (_, role, t) in l.seats() {
            assert_eq!(
                s.view(&t)["settings"]["side_rights"],
                "own-units",
                "{scenario}: {role}"
            );
        }
        // Before the deal the step is the game master's, not a matter of the side's rights.
        let r = s.act(&l.sides[0].1, &json!({"action": "deal"}));
        assert_eq!(refusal(&r), (403, json!("seat-may-not")), "{}", r.body);
        assert!(r.body.contains("game master"), "{}", r.body);
        s.deal(&l);
        // The side to play has the play form on its page and plays through its own link.
        let page = s.get(&format!("/s/{}", l.sides[0].1)).body;
        assert!(page.contains("data-action=\"play\""), "{scenario}: {page}");
        let before = s.raw(&l).log.entries().len();
        let unit = play_and_order(&s, &l, 0);
        let g = s.raw(&l);
        assert!(g.log.entries().len() >= before + 2);
        assert_eq!(g.state["phase"], "orders");
        assert!(g.state["card"]["orders"]
            .as_array()
            .expect("orders")
            .iter()
            .any(|o| o[0] == unit.as_str()));
        let by: Vec<Option<String>> = g
            .log
            .entries()
            .iter()
            .filter_map(|e| match e {
                tercio_core::LogEntry::Event { event, .. } => Some(event.by.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(by[0].as_deref(), Some("game-master"));
        assert_eq!(
            by.last().cloned().flatten(),
            Some(format!("side:{}", l.sides[0].0))
        );
        // The other side may not act for it.
        let r = s.act(&l.sides[1].1, &json!({"action": "end_turn"}));
        assert_eq!(refusal(&r), (403, json!("seat-may-not")), "{}", r.body);
    }
    // A game without hands keeps the sides watching until the game master allows more.
    let created = s.create(&json!({"scenario": "el-gran-capitan/cerignola-1503"}));
    assert_eq!(created["settings"]["side_rights"], "watch");
}

#[test]
fn after_a_per_seat_deal_each_side_sees_its_own_hand_only() {
    let s = server();
    let l = s.new_game(EDGEHILL, 11);
    s.deal(&l);
    let g = s.raw(&l);
    let raw = &g.state;
    assert_ne!(
        raw["salt"].as_u64(),
        Some(0),
        "the deal draws a shuffle key"
    );
    assert_eq!(
        raw["settings"]["single_device"], false,
        "per-seat by default"
    );
    assert!(!nums(&raw["deck"]).is_empty());
    let hands: Vec<Vec<u8>> = (0..2).map(|i| nums(&raw["sides"][i]["hand"])).collect();
    assert_eq!(hands[0].len(), 5, "Edgehill deals 5 cards a side");
    assert_eq!(hands[1].len(), 5);
    for (i, (_, t)) in l.sides.iter().enumerate() {
        let v = s.view(t)["state"].clone();
        let (me, other) = (&v["sides"][i], &v["sides"][1 - i]);
        assert_eq!(nums(&me["hand"]), hands[i], "side {i} sees its own hand");
        assert!(me["hidden"].is_null());
        assert_eq!(other["hand"], json!([]), "side {i} sees the other hand");
        assert_eq!(other["hidden"], 5);
        assert_eq!(v["deck"], json!([]));
        assert_eq!(v["pack"], json!([]));
        assert_eq!(v["salt"], 0);
        assert_eq!(v["deck_count"], raw["deck_count"]);
    }
    for t in [&l.gm, &l.spectator] {
        let v = s.view(t)["state"].clone();
        for i in 0..2 {
            assert_eq!(v["sides"][i]["hand"], json!([]), "{t}");
            assert_eq!(v["sides"][i]["hidden"], 5, "{t}");
        }
        assert_eq!(v["deck"], json!([]));
        assert_eq!(v["salt"], 0);
    }
}

#[test]
fn the_game_master_plays_no_card_and_may_only_close_a_window_with_none() {
    let s = server();
    let l = s.new_game(EDGEHILL, 12);
    s.deal(&l);
    let g = s.raw(&l);
    let card = command_kind(nums(&g.state["sides"][0]["hand"])[0]).id;
    let n = g.log.entries().len();
    let r = s.act(&l.gm, &json!({"action": "play", "card": card}));
    assert_eq!(refusal(&r), (403, json!("hand-is-secret")), "{}", r.body);
    assert_eq!(s.raw(&l).log.entries().len(), n, "nothing recorded");
    // Nor does its page offer a play form.
    let page = s.get(&format!("/s/{}", l.gm)).body;
    assert!(!page.contains("data-action=\"play\""), "{page}");
    // A melee announced by the Royalists: the game master may not answer for Parliament's hand.
    let unit = play_and_order(&s, &l, 0);
    let (_, enemies) = melee_units(&s.raw(&l).state, 0);
    s.act_ok(
        &l.sides[0].1,
        &json!({"action": "melee", "unit": unit, "target": enemies[0]}),
    );
    assert_eq!(s.raw(&l).state["phase"], "window");
    let n = s.raw(&l).log.entries().len();
    for response in ["evade", "stand-of-pikes", "retire"] {
        let r = s.act(&l.gm, &json!({"action": "respond", "response": response}));
        assert_eq!(
            refusal(&r),
            (403, json!("hand-is-secret")),
            "{response}: {}",
            r.body
        );
    }
    assert_eq!(s.raw(&l).log.entries().len(), n, "nothing recorded");
    // Its page offers only "none" for the window.
    let mut page = s.get(&format!("/s/{}", l.gm)).body;
    // Folded (another action is the next step): its form as the page fetches it when opened.
    if let Some(at) = page.find("<details class=\"act\" id=\"act-f-respond") {
        let rest = &page[at + "<details class=\"act\" id=\"".len()..];
        let id = rest[..rest.find('"').expect("id")].to_string();
        let r = s.get(&format!("/api/s/{}/form?id={id}", l.gm));
        assert_eq!(r.status, 200, "{}", r.body);
        page = r.json()["html"].as_str().unwrap_or_default().to_string();
    }
    let i = page
        .find("data-action=\"respond\"")
        .expect("a respond form");
    let form = &page[i..i + page[i..].find("</form>").expect("form end")];
    assert!(form.contains("value=\"none\""), "{form}");
    assert!(!form.contains("value=\"evade\""), "{form}");
    let v = s.act_ok(&l.gm, &json!({"action": "respond", "response": "none"}));
    assert!(
        v["changed"].as_array().is_some_and(|c| c
            .iter()
            .any(|op| op["p"] == "/phase" && op["v"] == "orders")),
        "{v}"
    );
    assert_eq!(s.view(&l.gm)["state"]["phase"], "orders");
    let g = s.raw(&l);
    assert_eq!(g.log.entries().len(), n + 1);
    match g.log.entries().last() {
        Some(tercio_core::LogEntry::Event { event, .. }) => {
            assert_eq!(event.action["response"], "none");
            assert_eq!(event.by.as_deref(), Some("game-master"));
            assert!(!event.draws.is_empty(), "the melee was rolled");
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn the_odds_show_a_melee_and_the_public_pack_never_its_order() {
    let s = server();
    let l = s.new_game(EDGEHILL, 13);
    s.deal(&l);
    let royal = &l.sides[0].1;
    // Out of its phase the Chaunce draw has no odds either.
    let r = s.post(
        &format!("/api/s/{royal}/odds"),
        &json!({"action": "draw_chaunce"}),
    );
    assert!(r.status >= 400, "{}", r.body);
    assert!(r.json().get("facets").is_none(), "{}", r.body);
    let unit = play_and_order(&s, &l, 0);
    let (_, enemies) = melee_units(&s.raw(&l).state, 0);
    let melee = json!({"action": "melee", "unit": unit, "target": enemies[0]});
    let n = s.raw(&l).log.entries().len();
    let r = s.post(&format!("/api/s/{royal}/odds"), &melee);
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert!(v["note"].is_null(), "{v}");
    let facets = v["facets"].as_array().expect("facets");
    assert!(!facets.is_empty(), "{v}");
    let elim = facets
        .iter()
        .find(|f| f["facet"] == "Melee: eliminated")
        .unwrap_or_else(|| panic!("no \"melee: eliminated\" facet: {v}"));
    let total: f64 = elim["values"]
        .as_array()
        .expect("values")
        .iter()
        .map(|x| x[1].as_f64().expect("p"))
        .sum();
    assert!((total - 1.0).abs() < 1e-9, "{elim}");
    assert!(
        facets.iter().any(|f| f["facet"] == "Melee: blocks lost"),
        "{v}"
    );
    assert_eq!(s.raw(&l).log.entries().len(), n, "odds record nothing");
    // The other side may not ask for the Royalists' melee.
    let r = s.post(&format!("/api/s/{}/odds", l.sides[1].1), &melee);
    assert_eq!(refusal(&r), (403, json!("seat-may-not")), "{}", r.body);

    // A Chaunce card presented: its odds come from the public pack (decision 58), never its hidden
    // order: 11 False Alarums in 45 cards at the start, for the taker and the game master alike.
    let seed = seed_dealing(EDGEHILL, 0, &["hazzard-a-chaunce"]);
    let l = s.new_game(EDGEHILL, seed);
    s.deal(&l);
    assert!(kinds(&nums(&s.raw(&l).state["sides"][0]["hand"])).contains(&"hazzard-a-chaunce"));
    s.act_ok(
        &l.sides[0].1,
        &json!({"action": "play", "card": "hazzard-a-chaunce", "mode": "present"}),
    );
    let g = s.raw(&l);
    assert_eq!(g.state["phase"], "chaunce");
    assert_eq!(g.state["active"], 1);
    assert!(!nums(&g.state["pack"]).is_empty());
    for t in [&l.sides[1].1, &l.gm] {
        let r = s.post(
            &format!("/api/s/{t}/odds"),
            &json!({"action": "draw_chaunce"}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        let v = r.json();
        let card = v["facets"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|f| f["facet"] == "Chaunce card")
            .unwrap_or_else(|| panic!("no Chaunce card facet: {v}"));
        let alarum = card["values"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|x| x[0] == "False Alarum")
            .and_then(|x| x[1].as_f64())
            .unwrap_or_else(|| panic!("no False Alarum: {card}"));
        assert!((alarum - 11.0 / 45.0).abs() < 1e-9, "{alarum}");
        // The odds do not tell the top card: every title the pack holds has a chance.
        assert!(card["values"].as_array().map_or(0, Vec::len) > 20, "{card}");
    }
    // And the draw itself goes through the taker's link.
    s.act_ok(&l.sides[1].1, &json!({"action": "draw_chaunce"}));
}

#[test]
fn no_seat_is_sent_another_sides_cards_or_the_shuffle_key() {
    let s = server();
    let l = s.new_game(EDGEHILL, 21);
    s.deal(&l);
    let mut checked = check_no_leak(&s, &l, "after the deal", false);
    // The Royalists play, order and announce a melee; Parliament answers on its own link.
    let unit = play_and_order(&s, &l, 0);
    checked += check_no_leak(&s, &l, "after the Royalists' orders", false);
    let (_, enemies) = melee_units(&s.raw(&l).state, 0);
    s.act_ok(
        &l.sides[0].1,
        &json!({"action": "melee", "unit": unit, "target": enemies[0]}),
    );
    checked += check_no_leak(&s, &l, "in the melee window", false);
    s.act_ok(
        &l.sides[1].1,
        &json!({"action": "respond", "response": "none"}),
    );
    end_turn(&s, &l, 0);
    checked += check_no_leak(&s, &l, "after the Royalists' turn", false);
    play_and_order(&s, &l, 1);
    checked += check_no_leak(&s, &l, "after Parliament's orders", false);
    end_turn(&s, &l, 1);
    checked += check_no_leak(&s, &l, "after Parliament's turn", false);
    play_and_order(&s, &l, 0);
    end_turn(&s, &l, 0);
    checked += check_no_leak(&s, &l, "after the Royalists' second turn", true);
    assert!(
        checked > 100,
        "the other side's cards were checked for: {checked}"
    );
    assert!(
        s.raw(&l).log.entries().len() >= 9,
        "the sequence was played"
    );
}

#[test]
fn a_scouted_pair_and_the_card_kept_are_the_drawers_alone() {
    let s = server();
    let scouts = ["scout-left", "scout-centre", "scout-right"];
    let l = s.new_game(EDGEHILL, seed_dealing(EDGEHILL, 0, &scouts));
    s.deal(&l);
    play_and_order_with(&s, &l, 0, |k| scouts.contains(&k), |_| true);
    let royal = &l.sides[0].1;
    s.act_ok(royal, &json!({"action": "end_turn"}));
    let g = s.raw(&l);
    assert_eq!(g.state["phase"], "scout");
    let pair = nums(&g.state["sides"][0]["scout"]);
    assert_eq!(pair.len(), 2);
    let checked = check_no_leak(&s, &l, "with a scouted pair", false);
    assert!(checked > 0);
    // Only the drawer keeps, through its own link; the game master may not choose for it.
    let keep = json!({"action": "keep", "card": command_kind(pair[0]).id});
    let r = s.act(&l.gm, &keep);
    assert_eq!(refusal(&r), (403, json!("hand-is-secret")), "{}", r.body);
    let r = s.act(&l.sides[1].1, &keep);
    assert_eq!(refusal(&r), (403, json!("seat-may-not")), "{}", r.body);
    s.act_ok(royal, &keep);
    let g = s.raw(&l);
    assert_eq!(g.state["phase"], "command");
    assert_eq!(g.state["active"], 1);
    assert!(nums(&g.state["sides"][0]["hand"]).contains(&pair[0]));
    assert_eq!(
        nums(&g.state["discard"]).last(),
        Some(&pair[1]),
        "the other is discarded face up"
    );
    check_no_leak(&s, &l, "after the scouted card is kept", true);
    // The card kept is named to the drawer only.
    let kept = |t: &str| -> Value {
        let log = s.get(&format!("/api/s/{t}/log")).json();
        log["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .rev()
            .find(|e| e["event"]["action"]["action"] == "keep")
            .expect("the keep")["event"]["action"]["card"]
            .clone()
    };
    assert_eq!(kept(royal), json!(command_kind(pair[0]).id));
    for t in [&l.sides[1].1, &l.gm, &l.spectator] {
        assert_eq!(kept(t), json!("(hidden)"));
    }
}

#[test]
fn the_card_under_a_stand_of_pikes_is_the_defenders_alone() {
    let s = server();
    let l = s.new_game(EDGEHILL, 61);
    s.deal(&l);
    // Royalist gallopers charge Parliament's foot with pikes, which forms a Stand of Pikes.
    let unit = play_and_order_with(&s, &l, 0, |_| true, |u| u["class"] == "gallopers");
    let g = s.raw(&l);
    let target = g.state["units"]
        .as_array()
        .expect("units")
        .iter()
        .find(|u| u["side"] == 1 && u["class"] == "foot" && u["pikes"] == true)
        .expect("foot with pikes")["id"]
        .clone();
    s.act_ok(
        &l.sides[0].1,
        &json!({"action": "melee", "unit": unit, "target": target}),
    );
    let pike = json!({"action": "respond", "response": "stand-of-pikes"});
    let r = s.act(&l.gm, &pike);
    assert_eq!(refusal(&r), (403, json!("hand-is-secret")), "{}", r.body);
    let before = nums(&s.raw(&l).state["sides"][1]["hand"]);
    s.act_ok(&l.sides[1].1, &pike);
    let g = s.raw(&l);
    let track = g.state["sides"][1]["track"]
        .as_array()
        .expect("track")
        .clone();
    assert_eq!(track.len(), 1, "a card of the hand is on the track");
    let card = u8::try_from(track[0][0].as_u64().expect("card")).expect("card");
    assert!(before.contains(&card));
    assert_eq!(track[0][1], target);
    // Which card went onto the track, and the die that chose it, are Parliament's.
    // The die's label as recorded: a message, rendered where it is shown.
    let label = tercio_i18n::msg(tercio_i18n::keys::ECW_DIE_STAND_CARD, &[]);
    let label = label.as_str();
    for (own, role, t) in l.seats() {
        let export = s.get(&format!("/api/s/{t}/export")).body;
        let state = s.view(&t)["state"].clone();
        if own == Some(1) {
            assert!(export.contains(label), "{role}");
            assert_eq!(state["sides"][1]["track"][0][0], card, "{role}");
        } else {
            assert!(!export.contains(label), "{role} is sent the die: {export}");
            assert_eq!(state["sides"][1]["track"][0][0], 255, "{role}");
            assert_eq!(state["sides"][1]["track"][0][1], target, "{role}");
        }
    }
    check_no_leak(&s, &l, "with a card on the track", false);
}

#[test]
fn dice_thrown_at_the_table_never_deal_the_cards() {
    let s = server();
    let l = s.new_game(TIBBERMORE, 31);
    let r = s.post(
        &format!("/api/s/{}/settings", l.gm),
        &json!({"physical_dice": true}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["physical_dice"], true);
    assert_eq!(
        s.view(&l.gm)["settings"]["side_rights"],
        "own-units",
        "the dice setting keeps the sides' rights"
    );
    let deal = json!({"action": "deal"});
    for faces in [json!([]), json!([1, 2, 3])] {
        let r = s.post(
            &format!("/api/s/{}/dice-needed", l.gm),
            &json!({"action": deal, "faces": faces}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(
            r.json(),
            json!({"complete": true, "needed": []}),
            "no die is thrown for the deal"
        );
    }
    let r = s.post(
        &format!("/api/s/{}/actions/entered", l.gm),
        &json!({"action": deal, "faces": [1, 2, 3]}),
    );
    assert_eq!(refusal(&r), (422, json!("seeded-only")), "{}", r.body);
    assert_eq!(r.json()["error"]["field"], "faces");
    assert!(s.raw(&l).log.entries().is_empty(), "nothing recorded");
    assert_eq!(s.raw(&l).state["phase"], "deal");
    let r = s.post(
        &format!("/api/s/{}/actions/entered", l.gm),
        &json!({"action": deal, "faces": []}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["entered"],
        false,
        "the deal's dice come from the seed"
    );
    assert_eq!(r.json()["draws"], json!([]), "and are not shown");
    let g = s.raw(&l);
    assert_eq!(g.log.entries().len(), 1);
    match &g.log.entries()[0] {
        tercio_core::LogEntry::Event { event, .. } => {
            assert!(!event.entered);
            assert_eq!(event.draws.len(), 8, "the shuffle key's eight dice");
            assert!(event.draws.iter().all(|d| d.sides == 255));
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(g.state["phase"], "command");
    for i in 0..2 {
        assert!(
            !nums(&g.state["sides"][i]["hand"]).is_empty(),
            "side {i} dealt"
        );
    }
    assert_eq!(g.verify().map(|v| v.len()), Ok(1));
    // The side's own view shows the hand dealt.
    let v = s.view(&l.sides[0].1)["state"].clone();
    assert_eq!(
        nums(&v["sides"][0]["hand"]),
        nums(&g.state["sides"][0]["hand"])
    );
}

#[test]
fn once_ended_every_hand_and_the_deal_dice_are_shown_and_the_export_verifies() {
    let s = server();
    let l = s.new_game(EDGEHILL, 41);
    s.deal(&l);
    play_and_order(&s, &l, 0);
    end_turn(&s, &l, 0);
    let before = s.view(&l.spectator)["state"].clone();
    for i in 0..2 {
        assert_eq!(before["sides"][i]["hand"], json!([]));
    }
    let export = s.get(&format!("/api/s/{}/export", l.spectator)).json();
    assert_eq!(export["log"][0]["event"]["action"]["action"], "deal");
    assert_eq!(export["log"][0]["event"]["draws"], json!([]));
    let r = s.post(&format!("/api/s/{}/conclude", l.gm), &json!(null));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["revealed"], true);
    let g = s.raw(&l);
    let after = s.view(&l.spectator)["state"].clone();
    for i in 0..2 {
        let hand = nums(&after["sides"][i]["hand"]);
        assert!(!hand.is_empty(), "side {i}'s hand is shown at the end");
        assert_eq!(hand, nums(&g.state["sides"][i]["hand"]));
    }
    assert_eq!(after["salt"], g.state["salt"]);
    // As every answer gives it: its messages (the scenario's names among them) rendered.
    let mut whole = g.state.clone();
    tercio_i18n::localize_json(tercio_i18n::Lang::En, &mut whole);
    assert_eq!(after, whole, "the whole state is shown at the end");
    for (_, role, t) in l.seats() {
        let export = s.get(&format!("/api/s/{t}/export")).json();
        let first = &export["log"][0];
        assert_eq!(first["entry"], "event", "{role}");
        assert_eq!(first["event"]["action"]["action"], "deal", "{role}");
        let draws = first["event"]["draws"].as_array().expect("draws");
        assert_eq!(
            draws.len(),
            8,
            "{role}: the deal's dice are shown at the end"
        );
        // What `tercio verify` does with an export: rebuild the game and re-run every roll.
        let dice = &export["dice"];
        let seed = dice["seed"].as_u64().expect("seed revealed");
        assert_eq!(seed, g.seed, "{role}");
        let rebuild = |export: &Value| Game {
            format: tercio_rules::game::FORMAT.to_string(),
            ruleset: export["rule_set"].as_str().expect("rule set").to_string(),
            seed,
            nonce: export["dice"]["nonce"].as_str().expect("nonce").to_string(),
            scenario: tercio_rules::scenario::Scenario::check(
                serde_json::from_value(export["scenario"].clone()).expect("scenario"),
                &tercio_rules::scenario::Source {
                    file: "export",
                    text: "",
                    path: "scenario",
                },
            )
            .expect("the exported scenario passes its checks"),
            rules_version: export["rules_version"]
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .expect("the export's rules version"),
            log: tercio_core::EventLog::from_entries(
                export["log"]
                    .as_array()
                    .expect("log")
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        assert_ne!(e["entry"], "hidden", "{role}: log[{i}] hidden");
                        serde_json::from_value(e.clone()).expect("entry")
                    })
                    .collect(),
            )
            .expect("numbered"),
            state: export["state"].clone(),
            game_id: export["game_id"]
                .as_str()
                .expect("every seat's export names the game once it has ended")
                .to_string(),
            chain_version: serde_json::from_value(export["chain_version"].clone())
                .expect("chain version"),
        };
        let rebuilt = rebuild(&export);
        assert_eq!(
            dice["commitment"].as_str(),
            Some(rebuilt.commitment().as_str()),
            "{role}: the commitment binds the seed, the nonce and the game's identity"
        );
        assert_eq!(
            rebuilt.verify().map(|v| v.len()),
            Ok(g.log.entries().len()),
            "{role}: the export verifies"
        );
        assert_eq!(
            export["chain"].as_str(),
            Some(rebuilt.log_digest().as_str()),
            "{role}: the log hashes to its fingerprint"
        );
        // A hidden part changed (a hand after the deal, which no seat saw before the end): the
        // fingerprint, which every seat saw during the game, no longer holds.
        let mut edited = export.clone();
        let ops = edited["log"][0]["event"]["effects"]
            .as_array_mut()
            .expect("the deal's effects");
        let hand = ops
            .iter_mut()
            .find(|op| {
                op["p"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("/sides/0/hand"))
            })
            .expect("the deal gives the Royalists their hand");
        let card = if hand["v"].is_array() {
            &mut hand["v"][0]
        } else {
            &mut hand["v"]
        };
        let first = card.as_u64().expect("a card");
        *card = json!(first % 60 + 1);
        assert_ne!(
            export["chain"].as_str(),
            Some(rebuild(&edited).log_digest().as_str()),
            "{role}: a changed hidden card fails the fingerprint"
        );
    }
}

#[test]
fn single_device_hands_are_behind_a_closed_tap() {
    let s = server();
    let l = s.new_game(TIBBERMORE, 51);
    s.act_ok(&l.gm, &json!({"action": "deal", "hands": "single-device"}));
    let g = s.raw(&l);
    assert_eq!(g.state["settings"]["single_device"], true);
    let page = s.get(&format!("/s/{}", l.gm)).body;
    let opening: Vec<&str> = page
        .match_indices("<details class=\"reveal\"")
        .map(|(i, _)| &page[i..i + page[i..].find('>').expect("tag end") + 1])
        .collect();
    assert_eq!(
        opening,
        ["<details class=\"reveal\" id=\"reveal-0\">"],
        "closed: {page}"
    );
    let blocks = reveal_blocks(&page);
    let block = blocks[0];
    assert!(block.contains("tap to reveal"), "{block}");
    let plays = block.matches("data-action=\"play\"").count();
    assert!(plays >= 1, "the play form is behind the tap: {block}");
    assert_eq!(
        page.matches("data-action=\"play\"").count(),
        plays,
        "no play form outside the tap"
    );
    // Outside the tap no card of either hand is named.
    let mut outside = page.clone();
    for b in &blocks {
        outside = outside.replace(b, "");
    }
    let outside = without_static_mentions(&outside);
    for i in 0..2 {
        for k in kinds(&nums(&g.state["sides"][i]["hand"])) {
            let name = command_card(k).expect("kind").name;
            assert!(!outside.contains(name), "{name} shown outside the tap");
            if i == 0 {
                assert!(
                    block.contains(name),
                    "{name} of the hand to play is behind the tap"
                );
            }
        }
    }
    // The game master of a shared device plays the card.
    let card = command_kind(nums(&g.state["sides"][0]["hand"])[0]).id;
    let r = s.act(&l.gm, &json!({"action": "play", "card": card}));
    assert_ne!(r.status, 403, "{}", r.body);
    // A spectator is never shown a hand.
    let spectator = s.get(&format!("/s/{}", l.spectator)).body;
    assert!(!spectator.contains("tap to reveal"), "{spectator}");
    assert!(!spectator.contains(": hand</h3>"), "{spectator}");
}

/// A game recorded before the keyed chain (chain version 1: a plain hash of every whole entry)
/// shows its fingerprint to no seat until it ends: any seat could otherwise test guesses of a
/// hand against it. Once ended, it is shown as it always was.
#[test]
fn a_game_recorded_before_the_keyed_chain_shows_its_fingerprint_only_at_the_end() {
    let s = server();
    let sc = tercio_web::scenarios::parsed_one(EDGEHILL)
        .map(|(_, sc)| sc.clone())
        .expect("the shipped scenario");
    let mut g = Game::new(sc, 7).expect("game");
    g.nonce = "00112233445566778899aabbccddeeff".into();
    g.chain_version = tercio_rules::game::ChainVersion::V1;
    let id = s.store.create(&g, Some(EDGEHILL)).expect("create");
    let seats = s.store.seats(&id).expect("seats");
    let gm = seats[0].token.clone();
    s.act_ok(&gm, &json!({"action": "deal"}));
    let stored = s.store.load(&id).expect("load").expect("game");
    assert_eq!(stored.chain_version, tercio_rules::game::ChainVersion::V1);
    let digest = stored.log_digest();
    for seat in &seats {
        let t = &seat.token;
        let v = s.view(t);
        assert_eq!(v["chain"], Value::Null, "{:?}", seat.role);
        let export = s.get(&format!("/api/s/{t}/export")).json();
        assert!(export.get("chain").is_none(), "{:?}", seat.role);
        assert_eq!(export["chain_version"], 1);
        let page = s.get(&format!("/s/{t}")).body;
        assert!(!page.contains(&digest), "{:?}", seat.role);
        assert!(
            page.contains("fingerprint is shown here when the game ends"),
            "{:?}",
            seat.role
        );
        let md = s.get(&format!("/s/{t}/report.md")).body;
        assert!(!md.contains(&digest), "{:?}: {md}", seat.role);
    }
    let r = s.post(&format!("/api/s/{gm}/conclude"), &json!(null));
    assert_eq!(r.status, 200, "{}", r.body);
    for seat in &seats {
        let v = s.view(&seat.token);
        assert_eq!(
            v["chain"].as_str(),
            Some(digest.as_str()),
            "{:?}",
            seat.role
        );
        assert_eq!(
            v["dice"]["commitment"].as_str(),
            Some(g.commitment().as_str())
        );
    }
}
