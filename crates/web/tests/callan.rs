//! The Renaissance (Andy Callan) through the web app, against the real server on port 0: the game
//! master plays the scripted opening of Pavia (`examples/callan-renaissance/game/`) over the seat
//! API; every page and answer of every seat reads in Italian and in English with no message
//! marker, raw catalogue key or unfilled placeholder; the turn deck's order and its shuffle key
//! reach no seat; and a small battle posted as TOML is played to a victory the report names.

use std::path::PathBuf;

use serde_json::{json, Value};
use tercio_i18n::{localize, msg, Lang};
use tercio_rules::callan_renaissance::tables::{card_colour, card_rank};
use tercio_rules::game::Game;
use tercio_store::Store;
use tercio_web::client::{caught_up, read_events_until, request_with, Reply};

mod common;

use common::{server, token, Server, PATIENCE};

const PAVIA: &str = "callan-renaissance/pavia-1525";
/// The seed of the walkthrough in docs/cli.md ("The Renaissance (Callan), in Italian").
const PAVIA_SEED: u64 = 151;
const ITALIAN: (&str, &str) = ("Accept-Language", "it-IT,it;q=0.9");
const ENGLISH: (&str, &str) = ("Accept-Language", "en");

/// A game's links, by role.
struct Links {
    id: String,
    gm: String,
    sides: Vec<String>,
    spectator: String,
}

impl Links {
    /// Every seat: a label and its token.
    fn seats(&self) -> Vec<(String, String)> {
        let mut v = vec![("game master".to_string(), self.gm.clone())];
        v.extend(
            self.sides
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("side {i}"), t.clone())),
        );
        v.push(("spectator".into(), self.spectator.clone()));
        v
    }
}

impl Server {
    fn get_in(&self, path: &str, lang: (&str, &str)) -> Reply {
        self.request("GET", path, &[lang], None)
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
                .map(|l| token(&l["url"]))
                .collect(),
            spectator: token(&links.last().expect("spectator")["url"]),
        }
    }
    /// The game as stored: the deck in its order and the shuffle key.
    fn raw(&self, l: &Links) -> Game {
        self.store.load(&l.id).expect("load").expect("game")
    }
    /// An action on a seat's link, answered in `lang`; it must be recorded.
    fn act_ok(&self, t: &str, a: &Value, lang: (&str, &str)) -> Value {
        let r = self.request(
            "POST",
            &format!("/api/s/{t}/actions"),
            &[lang],
            Some(&a.to_string()),
        );
        assert_eq!(r.status, 200, "{a}: {}", r.body);
        r.json()
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The walkthrough's action files, in order.
fn walkthrough() -> Vec<(String, Value)> {
    let dir = root().join("examples/callan-renaissance/game");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/callan-renaissance/game")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            let a =
                serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json");
            (name, a)
        })
        .collect()
}

/// A page's text without its scripts (the game page hands its script the catalogue's texts,
/// placeholders and all, as JSON).
fn without_scripts(page: &str) -> String {
    let mut out = String::new();
    let mut rest = page;
    while let Some(i) = rest.find("<script") {
        out.push_str(&rest[..i]);
        match rest[i..].find("</script>") {
            Some(j) => rest = &rest[i + j + "</script>".len()..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// The first `{name}` placeholder left in a text, if any.
fn placeholder(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        rest = &rest[i + 1..];
        if let Some(j) = rest.find('}') {
            let name = &rest[..j];
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Some(format!("{{{name}}}"));
            }
        }
    }
    None
}

/// A catalogue key of the rule set shown as it is: a key of the catalogue, or any dotted
/// `callan.x.y` name (a missing key renders as itself). The scenario notes name house rules,
/// `callan.fog`, which are two-part names and not catalogue keys.
fn raw_callan_key(text: &str) -> Option<String> {
    let keys: Vec<&str> = tercio_i18n::entries(Lang::It)
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| k.starts_with("callan."))
        .collect();
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    for (i, _) in text.match_indices("callan.") {
        if text[..i].chars().next_back().is_some_and(ok) {
            continue;
        }
        let token: String = text[i..].chars().take_while(|&c| ok(c)).collect();
        let token = token.trim_end_matches('.');
        let parent = token
            .strip_suffix(".one")
            .or_else(|| token.strip_suffix(".other"))
            .unwrap_or(token);
        if keys.contains(&token)
            || keys.iter().any(|k| k.strip_suffix(".one") == Some(parent))
            || token.matches('.').count() >= 2
        {
            let around: String = text[i.saturating_sub(200)..].chars().take(400).collect();
            return Some(format!("{token}: …{around}…"));
        }
    }
    None
}

/// Every string anywhere in a JSON value.
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(x) => out.push(x),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Nothing of the catalogues' machinery shows: no marker, no unfilled placeholder, no raw key.
fn assert_clean(body: &str, json: bool, what: &str) {
    if let Some(i) = body.find('⟦') {
        let around: String = body[i.saturating_sub(200)..].chars().take(500).collect();
        panic!("{what}: a message marker reached the reader: …{around}…");
    }
    assert!(!body.contains('⟧'), "{what}: a marker's end");
    let visible = if json {
        let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{what}: {e}"));
        let mut s = Vec::new();
        strings(&v, &mut s);
        s.join("\n")
    } else {
        without_scripts(body)
    };
    if let Some(p) = placeholder(&visible) {
        let at = visible.find(&p).unwrap_or(0);
        let around: String = visible[at.saturating_sub(200)..]
            .chars()
            .take(400)
            .collect();
        panic!("{what}: the placeholder {p} was not filled: …{around}…");
    }
    if let Some(k) = raw_callan_key(&visible) {
        panic!("{what}: a raw catalogue key: {k}");
    }
    assert!(!visible.contains("web."), "{what}: a raw web key");
}

/// What a seat reads, path by path: its page, its live part and its log, and its JSON view and
/// log. (The export is the record: it keeps the messages as recorded, and is checked for secrets
/// only.)
const FAST: [&str; 5] = ["", "?part=main", "/log", "@", "@/log"];
/// The dice report and the battle report, page and JSON: each works out the exact odds of every
/// event in the log again.
const SLOW: [&str; 3] = ["/dice", "/report.md", "@/dice"];

/// What would give the shuffle key's dice away: their label, a 255-sided die as the log shows one
/// (not "d255" alone, which a page's hex hashes may hold by chance), their 255 faces in the dice
/// report.
const SHUFFLE_KEY: [&str; 3] = ["Shuffle key", " d255 = ", "\"sides\":255"];

fn seat_path(t: &str, p: &str) -> String {
    match p.strip_prefix('@') {
        Some(rest) => format!("/api/s/{t}{rest}"),
        None => format!("/s/{t}{p}"),
    }
}

/// A seat's page or answer; a clear failure when it does not come within the client's 30 s.
fn read(s: &Server, path: &str, lang: (&str, &str), what: &str) -> Reply {
    let t = std::time::Instant::now();
    let r = request_with(&s.addr, "GET", path, &[lang], None).unwrap_or_else(|e| {
        panic!(
            "{what}: {path} did not answer within {:?} ({e}); a phone gives up long before",
            t.elapsed()
        )
    });
    assert_eq!(r.status, 200, "{what}: {path}: {}", r.body);
    r
}

/// Every page and answer of every seat in both languages is clean; returns how many.
fn sweep_clean(s: &Server, l: &Links, stage: &str, paths: &[&str]) -> usize {
    let mut n = 0;
    for (lang, header) in [("it", ITALIAN), ("en", ENGLISH)] {
        for (role, t) in l.seats() {
            for p in paths {
                let path = seat_path(&t, p);
                let what = format!("{stage}: {lang} {role}");
                let r = read(s, &path, header, &what);
                assert_clean(&r.body, p.starts_with('@'), &format!("{what} {path}"));
                for bad in SHUFFLE_KEY {
                    assert!(
                        !r.body.contains(bad),
                        "{what} {path}: \"{bad}\", the shuffle key's dice"
                    );
                }
                n += 1;
            }
        }
        let rules = s.get_in("/rules/callan-renaissance", header);
        assert_eq!(rules.status, 200);
        assert_clean(&rules.body, false, &format!("{stage}: {lang} rules page"));
        n += 1;
    }
    n
}

/// A card's name as the pages write it, in both languages.
fn card_names(card: u8) -> [String; 2] {
    let colour = match card_colour(card) {
        Some(0) => "@callan.colour.red",
        Some(_) => "@callan.colour.black",
        None => "@callan.colour.none",
    };
    let m = msg(
        "callan.card.name",
        &[("rank", card_rank(card)), ("colour", colour)],
    );
    [localize(Lang::It, &m), localize(Lang::En, &m)]
}

/// Where a JSON answer carries the deck, the shuffle key, the key's dice or an effect on them.
fn secrets_in(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{k}");
                match k.as_str() {
                    "deck" if x != &json!([]) => out.push(format!("{p} = {x}")),
                    "salt" if !(x == 0 || x.is_null()) => out.push(format!("{p} = {x}")),
                    "draws" | "dice" => {
                        for d in x.as_array().into_iter().flatten() {
                            let key_die = d["sides"] == 255
                                || d["label"]
                                    .as_str()
                                    .is_some_and(|l| l.starts_with("Shuffle key"));
                            if key_die {
                                out.push(format!("{p}: {d}"));
                            }
                        }
                    }
                    "effects" => {
                        for op in x.as_array().into_iter().flatten() {
                            let path = op["p"].as_str().unwrap_or("");
                            if path.starts_with("/deck") || path.starts_with("/salt") {
                                out.push(format!("{p}: {op}"));
                            }
                        }
                    }
                    _ => {}
                }
                secrets_in(x, &p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                secrets_in(x, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The deck's order and its shuffle key reach no seat: not in its state, log, export, dice
/// report or pages, and (with `live`) not in its live stream. `unseen`: the cards of this turn
/// not drawn yet, whose names no seat may read anywhere. Returns how many answers were checked.
fn check_secrets(
    s: &Server,
    l: &Links,
    stage: &str,
    unseen: &[u8],
    live: bool,
    paths: &[&str],
) -> usize {
    let g = s.raw(l);
    assert_ne!(
        g.state["salt"].as_u64(),
        Some(0),
        "{stage}: the stored game has its shuffle key"
    );
    let names: Vec<String> = unseen.iter().flat_map(|&c| card_names(c)).collect();
    let mut checked = 0;
    for (role, t) in l.seats() {
        let view = s.get_in(&format!("/api/s/{t}"), ITALIAN).json();
        assert_eq!(view["state"]["deck"], json!([]), "{stage}: {role}'s state");
        assert_eq!(view["state"]["salt"], json!(0), "{stage}: {role}'s state");
        let mut sent: Vec<(String, String)> = Vec::new();
        for (i, p) in paths.iter().copied().chain(["@/export"]).enumerate() {
            let path = seat_path(&t, p);
            let header = if i % 2 == 0 { ITALIAN } else { ENGLISH };
            let r = read(s, &path, header, &format!("{stage}: {role}"));
            sent.push((path, r.body));
        }
        if live {
            let path = format!("/api/s/{t}/events");
            let n = g.log.entries().len();
            let (status, events, raw) =
                read_events_until(&s.addr, &path, &[ITALIAN], PATIENCE, |e, raw| {
                    caught_up(e, raw, n)
                })
                .expect("events");
            assert_eq!(status, 200, "{stage}: {role} {path}");
            assert_eq!(
                events.iter().filter(|e| e.event == "entry").count(),
                g.log.entries().len(),
                "{stage}: {role}: every entry is streamed"
            );
            for e in events.iter().filter(|e| e.event == "entry") {
                let v: Value = serde_json::from_str(&e.data).expect("an entry's JSON");
                let mut found = Vec::new();
                secrets_in(&v, "", &mut found);
                assert!(
                    found.is_empty(),
                    "{stage}: {role}'s live stream carries the deck or its key: {found:?}"
                );
            }
            sent.push((path, raw));
        }
        for (path, body) in &sent {
            for bad in SHUFFLE_KEY {
                assert!(
                    !body.contains(bad),
                    "{stage}: {role} is sent \"{bad}\" (the shuffle key's dice) in {path}"
                );
            }
            for name in &names {
                if let Some(i) = body.find(name.as_str()) {
                    let around: String = body[i.saturating_sub(150)..].chars().take(300).collect();
                    panic!("{stage}: {role} is sent \"{name}\", a card not drawn yet, in {path}: …{around}…");
                }
            }
            if path.starts_with("/api/") && !path.ends_with("/events") {
                let v: Value = serde_json::from_str(body).expect("json");
                let mut found = Vec::new();
                secrets_in(&v, "", &mut found);
                assert!(
                    found.is_empty(),
                    "{stage}: {role} is sent the deck or its key in {path}: {found:?}"
                );
            }
            checked += 1;
        }
    }
    // The odds never look at the next card: a draw has none to show.
    let r = s.request(
        "POST",
        &format!("/api/s/{}/odds", l.gm),
        &[ITALIAN],
        Some(&json!({"action": "draw"}).to_string()),
    );
    assert!((400..500).contains(&r.status), "{stage}: {}", r.body);
    for name in &names {
        assert!(!r.body.contains(name.as_str()), "{stage}: {}", r.body);
    }
    checked
}

/// This turn's cards still in the stored deck.
fn undrawn(s: &Server, l: &Links) -> Vec<u8> {
    s.raw(l).state["deck"]
        .as_array()
        .expect("the stored deck")
        .iter()
        .map(|c| c.as_u64().and_then(|c| u8::try_from(c).ok()).expect("card"))
        .collect()
}

#[test]
fn the_opening_of_pavia_is_played_over_the_api_in_italian_and_english_and_the_deck_stays_secret() {
    let s = server();
    let l = s.new_game(PAVIA, PAVIA_SEED);
    assert_eq!(l.sides.len(), 2);
    let mut pages = sweep_clean(&s, &l, "before the start", &FAST);
    let mut secrets = 0;
    let mut turn = 0;
    let mut said: Vec<(String, String)> = Vec::new();
    for (i, (name, action)) in walkthrough().into_iter().enumerate() {
        let kind = action["action"].as_str().unwrap_or_default().to_string();
        if kind == "draw" && turn == 1 {
            // Before each card of the first turn: no seat can read the cards still face down.
            let unseen = undrawn(&s, &l);
            assert!(!unseen.is_empty(), "{name}: a card to draw");
            secrets += check_secrets(&s, &l, &format!("before {name}"), &unseen, false, &FAST);
        }
        if kind == "fire" || kind == "attack" {
            // The odds before the roll, in Italian, from the same plan.
            let r = s.request(
                "POST",
                &format!("/api/s/{}/odds", l.gm),
                &[ITALIAN],
                Some(&action.to_string()),
            );
            assert_eq!(r.status, 200, "{name}: {}", r.body);
            let odds = r.json();
            assert!(
                (odds["total"].as_f64().unwrap_or(0.0) - 1.0).abs() < 1e-9,
                "{name}: {odds}"
            );
            assert_clean(&r.body, true, &format!("{name}: its odds"));
        }
        if name.starts_with("10-") {
            // At the first infantry card the move form asks, in plain words in both languages,
            // which friend a unit passes through, and of a charge whether it goes up a low hill
            // (D71, D73).
            let move_form = |lang: (&str, &str)| {
                let mut page = s.get_in(&format!("/s/{}", l.gm), lang).body;
                // Folded (not the turn's next step): fetched as the page does when it is opened.
                if !page.contains("id=\"form-f-move\"") {
                    assert!(page.contains("id=\"act-f-move\""), "{name}: no move action");
                    let r = s.get_in(&format!("/api/s/{}/form?id=act-f-move", l.gm), lang);
                    assert_eq!(r.status, 200, "{name}: {}", r.body);
                    page = r.json()["html"].as_str().unwrap_or_default().to_string();
                }
                let at = page.find("id=\"form-f-move\"").expect("a move form");
                let end = page[at..].find("</form>").map_or(page.len(), |e| at + e);
                page[at..end].to_string()
            };
            for (lang, words) in [
                (ITALIAN, ["Passa attraverso un", "Collina bassa"]),
                (ENGLISH, ["Passes through a friendly unit", "Low hill"]),
            ] {
                let form = move_form(lang);
                for needle in ["name=\"pass_through\"", "name=\"low_hill\""]
                    .into_iter()
                    .chain(words)
                {
                    assert!(form.contains(needle), "{name}: {needle} in {form}");
                }
            }
        }
        // Alternate the answer's language: both render the same event.
        let lang = if i % 2 == 0 { ITALIAN } else { ENGLISH };
        let v = s.act_ok(&l.gm, &action, lang);
        assert_clean(&v.to_string(), true, &format!("{name}: the answer"));
        said.push((
            name.clone(),
            v["resolution"]["summary"]
                .as_str()
                .unwrap_or("")
                .to_string(),
        ));
        match kind.as_str() {
            "start" => {
                turn = 1;
                secrets += check_secrets(&s, &l, "after the start", &undrawn(&s, &l), true, &FAST);
                pages += sweep_clean(&s, &l, "after the start", &FAST);
            }
            "end_turn" => {
                turn += 1;
                pages += sweep_clean(&s, &l, &format!("turn {turn}"), &FAST);
                // The log names last turn's cards, which are back in the deck: only the key and
                // the deck's order are checked from here on.
                secrets += check_secrets(&s, &l, &format!("turn {turn}"), &[], true, &FAST);
            }
            _ => {}
        }
    }
    assert_eq!(turn, 3, "two whole turns");
    // The results the game master read, each in the language it asked for.
    let find = |file: &str| {
        said.iter()
            .find(|(n, _)| n.contains(file))
            .map(|(_, s)| s.clone())
            .unwrap_or_else(|| panic!("no {file}"))
    };
    let charge = find("charge-gendarmi-del-re");
    assert!(
        charge.contains("Gendarmi del re (la guardia)") && charge.contains("8 BW (32 cm)"),
        "{charge}"
    );
    let melee = find("attack-swiss-on-frundsberg");
    assert!(melee.contains("Lanzichenecchi di Frundsberg"), "{melee}");
    // The game master's board in Italian: the turn's next step and the rule set's own terms.
    let it = s.get_in(&format!("/s/{}", l.gm), ITALIAN).body;
    for word in [
        "<html lang=\"it\"",
        "Pesca una carta",
        "picchieri",
        "gendarmi",
        "archibugieri",
        "Eserciti",
        "Turno 3",
    ] {
        assert!(it.contains(word), "the Italian board lacks \"{word}\"");
    }
    assert!(
        !it.contains("picchieri (pikemen)"),
        "no English gloss in Italian"
    );
    // In English the Italian term comes first, the gloss beside it.
    let en = s.get_in(&format!("/s/{}", l.gm), ENGLISH).body;
    for word in ["<html lang=\"en\"", "picchieri (pikemen)", "Armies"] {
        assert!(en.contains(word), "the English board lacks \"{word}\"");
    }
    // A side's page reads the same game in its reader's language.
    let side = s.get_in(&format!("/s/{}", l.sides[1]), ITALIAN).body;
    assert!(
        side.contains("Lanzichenecchi di Frundsberg") && side.contains("picchieri"),
        "the side's page"
    );
    // The dice report and the battle report of the same game, for every seat: clean, without the
    // shuffle key's dice, and in time (each works out the exact odds of all 33 events again, so
    // they are read once, here).
    let t = std::time::Instant::now();
    pages += sweep_clean(&s, &l, "the reports at turn 3", &SLOW);
    eprintln!("callan: the reports of every seat in {:?}", t.elapsed());
    eprintln!("callan: {pages} pages and answers clean, {secrets} checked for the deck's secrets");
}

/// Two squadrons of French gendarmi against a company of Spanish arquebusiers: a battle small
/// enough to be decided in a turn or two.
const SKIRMISH: &str = r#"ruleset = "callan-renaissance"
title = "Scaramuccia nel parco"
notes = "I gendarmi del re caricano gli archibugieri spagnoli."

[house_rules]
callan.fog = -1
callan.niente_soldi = 0

[[sides]]
id = "francesi"
name = "Francesi del re"
role = "attacker"
colour = "red"
camp = false

[[sides]]
id = "imperiali"
name = "Imperiali di Pescara"
role = "defender"
colour = "black"
camp = false

[[leaders]]
id = "francesco-i"
name = "Francesco I"
side = "francesi"
rank = "army"
bonus = 0

[[leaders]]
id = "pescara"
name = "Pescara"
side = "imperiali"
rank = "army"
bonus = 0

[[units]]
id = "gendarmi-del-re"
name = "Gendarmi del re"
side = "francesi"
type = "gendarmi"
bases = 3
leader = "francesco-i"
flags = ["veterani"]
nationality = "francesi"

[[units]]
id = "gendarmi-compagnie"
name = "Gendarmi delle compagnie"
side = "francesi"
type = "gendarmi"
bases = 3
leader = "francesco-i"
flags = ["veterani"]
nationality = "francesi"

[[units]]
id = "archibugieri"
name = "Archibugieri spagnoli"
side = "imperiali"
type = "archibugieri"
bases = 5
leader = "pescara"
nationality = "spagnoli"
"#;

#[test]
fn a_small_battle_posted_as_toml_is_played_to_a_victory_the_report_names() {
    let s = server();
    let l = s.new_game(SKIRMISH, 2);
    let gm = l.gm.clone();
    let state = |s: &Server| s.raw(&l).state;
    s.act_ok(&gm, &json!({"action": "start"}), ITALIAN);
    let mut fired = false;
    let mut attacked = 0;
    for _ in 0..60 {
        let st = state(&s);
        if st["phase"] == "over" {
            break;
        }
        if st["deck"].as_array().is_some_and(Vec::is_empty) {
            s.act_ok(&gm, &json!({"action": "end_turn"}), ITALIAN);
            continue;
        }
        s.act_ok(&gm, &json!({"action": "draw"}), ENGLISH);
        let st = state(&s);
        let unit = |id: &str| {
            st["units"]
                .as_array()
                .and_then(|u| u.iter().find(|u| u["id"] == id))
                .cloned()
                .unwrap_or_else(|| panic!("no unit {id}"))
        };
        let bases = |id: &str| unit(id)["bases"].as_u64().unwrap_or(0);
        // A combat that goes on is fought first, at its card.
        for c in st["combats"].as_array().into_iter().flatten() {
            if c["due"] == true {
                let (a, d) = (
                    c["units"][0].as_str().unwrap_or_default(),
                    c["units"][1].as_str().unwrap_or_default(),
                );
                s.act_ok(
                    &gm,
                    &json!({"action": "resolve_combat", "combat": format!("c{}", c["id"]),
                            "attacker_front": bases(a).min(3), "defender_front": bases(d).min(5)}),
                    ITALIAN,
                );
            }
        }
        let st = state(&s);
        let unit = |id: &str| {
            st["units"]
                .as_array()
                .and_then(|u| u.iter().find(|u| u["id"] == id))
                .cloned()
                .unwrap_or_else(|| panic!("no unit {id}"))
        };
        let in_combat = |id: &str| {
            st["combats"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["units"][0] == id || c["units"][1] == id)
        };
        let open = &st["open"];
        let arq = unit("archibugieri");
        if open["side"] == 1 && open["phase"] == "fire" && arq["status"] == "ok" && !fired {
            // The arquebusiers fire at the gendarmi closing on them.
            s.act_ok(
                &gm,
                &json!({"action": "fire", "unit": "archibugieri", "target": "gendarmi-del-re", "long_bases": 5}),
                ITALIAN,
            );
            fired = true;
        }
        if open["side"] == 0 && open["phase"] == "cavalry" && arq["status"] == "ok" {
            // The first squadron able to charges the arquebusiers.
            let charger = ["gendarmi-del-re", "gendarmi-compagnie"]
                .into_iter()
                .find(|id| {
                    let u = unit(id);
                    u["status"] == "ok"
                        && u["activated"] == false
                        && !in_combat(id)
                        && u["bases"].as_u64().unwrap_or(0) * 2
                            > u["bases_start"].as_u64().unwrap_or(0)
                });
            if let (Some(c), false) = (charger, in_combat("archibugieri")) {
                let v = s.act_ok(
                    &gm,
                    &json!({"action": "attack", "attacker": c, "defender": "archibugieri", "charge": true,
                            "attacker_front": unit(c)["bases"].as_u64().unwrap_or(0).min(3),
                            "defender_front": arq["bases"].as_u64().unwrap_or(0).min(5)}),
                    ITALIAN,
                );
                assert_clean(&v.to_string(), true, "the charge's answer");
                attacked += 1;
            }
        }
    }
    let st = state(&s);
    assert_eq!(st["phase"], "over", "the battle is decided: {st}");
    assert!(attacked > 0, "the gendarmi charged");
    assert_eq!(st["winner"], 0, "the French win: {}", st["sides"]);
    // Every seat reads the verdict on its page and in its battle report, in both languages.
    for (role, t) in l.seats() {
        for (header, lang) in [(ITALIAN, Lang::It), (ENGLISH, Lang::En)] {
            let verdict =
                &tercio_i18n::t(lang, "callan.victory.wins", &[("side", "Francesi del re")]);
            let page = s.get_in(&format!("/s/{t}"), header).body;
            assert!(page.contains(verdict), "{role}'s page: no \"{verdict}\"");
            let report = s.get_in(&format!("/s/{t}/report.md"), header).body;
            let named = report
                .split_once("## ")
                .is_some_and(|(_, after)| after.lines().take(4).any(|x| x.contains(verdict)));
            assert!(named, "{role}'s report names no winner: {report}");
        }
    }
    // Every page of every seat, the reports among them, is clean in both languages, and no
    // seat was sent the deck or its key.
    let mut all = FAST.to_vec();
    all.extend(SLOW);
    sweep_clean(&s, &l, "the battle won", &all);
    check_secrets(&s, &l, "the battle won", &[], true, &all);
    // The game master ends the game; the seed is shown, and the record verifies.
    let r = s.request("POST", &format!("/api/s/{gm}/conclude"), &[ITALIAN], None);
    assert_eq!(r.status, 200, "{}", r.body);
    let view = s.get_in(&format!("/api/s/{}", l.spectator), ITALIAN).json();
    assert_eq!(view["dice"]["seed"], 2, "{}", view["dice"]);
    let export = s.get_in(&format!("/api/s/{}/export", l.spectator), ITALIAN);
    assert_eq!(export.status, 200);
    let g = s.raw(&l);
    g.replay().expect("the game replays from its seed");
}
