//! The generic seat page of a rule set that describes its board and actions as data (The Sword
//! and the Flame, Renaissance): the board, the action forms each seat may use, and the action a
//! form describes, against the real server on port 0.

mod common;

use common::{server, token, tsatf_skirmish, Server};
use serde_json::{json, Map, Value};
use tercio_web::client::{request_with, Reply};

const FRENCH_UNITS: &[&str] = &["gd"];
const IMPERIAL_UNITS: &[&str] = &["arq", "pk"];

/// A TSATF game's seats: game master, French, Imperial, spectator.
struct Seats {
    gm: String,
    french: String,
    imperial: String,
    spectator: String,
}

fn new_game(s: &Server, name: &str) -> Seats {
    let v = s.create(&json!({"scenario": tsatf_skirmish(name), "seed": 11}));
    let links = v["links"].as_array().expect("links");
    let side = |id: &str| token(&links.iter().find(|l| l["side"] == id).expect("side link")["url"]);
    Seats {
        gm: token(&links[0]["url"]),
        french: side("french"),
        imperial: side("imperial"),
        spectator: token(&links.last().expect("spectator")["url"]),
    }
}

fn get(s: &Server, path: &str) -> Reply {
    let r = request_with(&s.addr, "GET", path, &[], None).expect("request");
    assert!(r.status < 500, "GET {path} -> {} {}", r.status, r.body);
    r
}

fn post(s: &Server, path: &str, body: &Value) -> Reply {
    let r = request_with(&s.addr, "POST", path, &[], Some(&body.to_string())).expect("request");
    assert!(r.status < 500, "POST {path} -> {} {}", r.status, r.body);
    r
}

/// A seat's page, followed by the forms of its folded actions as the page fetches them when one
/// is opened (`GET /api/s/{token}/form`): every form a user may reach from it.
fn page(s: &Server, t: &str) -> String {
    let r = get(s, &format!("/s/{t}"));
    assert_eq!(r.status, 200, "{}", r.body);
    let mut p = r.body.clone();
    let key = "<details class=\"act\" id=\"";
    for (at, _) in r.body.match_indices(key) {
        let rest = &r.body[at + key.len()..];
        let id = &rest[..rest.find('"').unwrap_or(0)];
        let f = get(s, &format!("/api/s/{t}/form?id={id}"));
        assert_eq!(f.status, 200, "{id}: {}", f.body);
        p.push_str(f.json()["html"].as_str().unwrap_or_default());
    }
    p
}

fn unesc(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The value of attribute `name` in the tag at the start of `tag`.
fn attr(tag: &str, name: &str) -> Option<String> {
    let head = &tag[..tag.find('>')?];
    let start = head.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = head[start..].find('"')?;
    Some(unesc(&head[start..start + len]))
}

/// One action form as drawn: its action, whether it shows odds, whether it is the turn's next
/// step, and its HTML.
struct Form {
    action: String,
    odds: bool,
    primary: bool,
    html: String,
}

fn forms(page: &str) -> Vec<Form> {
    page.match_indices("<form class=\"action-form")
        .map(|(i, _)| {
            let rest = &page[i..];
            let html = rest[..rest.find("</form>").expect("form closed")].to_string();
            let class = attr(&html, "class").unwrap_or_default();
            Form {
                action: attr(&html, "data-action").expect("data-action"),
                odds: attr(&html, "data-odds").as_deref() == Some("1"),
                primary: class.split(' ').any(|c| c == "primary"),
                html,
            }
        })
        .collect()
}

/// The option values of the select named `name` in a form.
fn options(form: &str, name: &str) -> Vec<String> {
    let Some(i) = form.find(&format!("<select name=\"{name}\"")) else {
        return Vec::new();
    };
    let select = &form[i..i + form[i..].find("</select>").expect("select closed")];
    select
        .match_indices("<option ")
        .filter_map(|(j, _)| attr(&select[j..], "value"))
        .collect()
}

/// The action JSON a form describes with its fields as drawn (what the page's script sends when
/// the button is pressed without changing anything): a choice's first option unless empty, no
/// unticked flag, each number's starting value.
fn action_of(form: &Form) -> Value {
    let mut a = Map::new();
    a.insert("action".into(), json!(form.action));
    for (i, _) in form.html.match_indices("<select ") {
        let tag = &form.html[i..];
        let name = attr(tag, "name").expect("name");
        if let Some(first) = options(tag, &name).into_iter().next() {
            if !first.is_empty() {
                a.insert(name, json!(first));
            }
        }
    }
    for (i, _) in form.html.match_indices("<input ") {
        let tag = &form.html[i..];
        if attr(tag, "type").as_deref() == Some("number") {
            let n: i64 = attr(tag, "value")
                .and_then(|v| v.parse().ok())
                .expect("a number's value");
            a.insert(attr(tag, "name").expect("name"), json!(n));
        }
    }
    Value::Object(a)
}

fn headline(page: &str) -> String {
    let start = page.find("<strong id=\"headline\">").expect("a headline")
        + "<strong id=\"headline\">".len();
    unesc(&page[start..start + page[start..].find("</strong>").expect("closed")])
}

/// Every unit a page's forms offer (units, chargers).
fn units_offered(forms: &[Form]) -> Vec<String> {
    forms
        .iter()
        .flat_map(|f| {
            let mut v = options(&f.html, "unit");
            v.extend(options(&f.html, "charger"));
            v
        })
        .filter(|u| !u.is_empty())
        .collect()
}

/// The game master acts through the first form for `action` on their page.
fn gm_acts(s: &Server, seats: &Seats, action: &str) -> Reply {
    let p = page(s, &seats.gm);
    let all = forms(&p);
    let f = all
        .iter()
        .find(|f| f.action == action)
        .unwrap_or_else(|| panic!("no {action} form on the game master's page: {p}"));
    post(s, &format!("/api/s/{}/actions", seats.gm), &action_of(f))
}

#[test]
fn the_game_masters_page_draws_the_board_and_the_forms() {
    let s = server();
    let evil = "<script>alert('x')</script> & co";
    let seats = new_game(&s, evil);
    for part in ["", "?part=main"] {
        let p = if part.is_empty() {
            page(&s, &seats.gm)
        } else {
            get(&s, &format!("/s/{}{part}", seats.gm)).body
        };
        // The board: headline, tables of units, names escaped.
        assert!(headline(&p).contains("Turn 1"), "{p}");
        assert!(p.contains("<table class=\"board\">"), "{p}");
        assert!(p.contains("Arquebusiers") && p.contains("Pikes"), "{p}");
        assert!(!p.contains(evil), "a name reached the page unescaped");
        assert!(
            p.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co"),
            "{p}"
        );
        // The forms, the turn's next step first and highlighted.
        let all = forms(&p);
        assert!(!all.is_empty(), "no forms: {p}");
        assert_eq!(all[0].action, "start-turn", "{p}");
        assert!(all[0].primary);
        assert!(all[0]
            .html
            .contains("<button type=\"submit\" id=\"go-f-start-turn\" class=\"primary\">"));
        let firsts: Vec<bool> = all.iter().map(|f| f.primary).collect();
        assert!(
            firsts.windows(2).all(|w| w[0] >= w[1]),
            "primary forms first: {firsts:?}"
        );
        // Around the board: seats and dice; no undo before there is anything to undo (the
        // header's undo shows while the newest result says it applies, `data-undo`).
        assert!(p.contains("id=\"seats\""));
        assert!(!p.contains("data-undo=\"1\""));
        assert!(p.contains("id=\"commitment\""), "{p}");
    }
    // The app-driven rule sets are drawn the same way: the initiative first, then the app's
    // fields as a form per unit action.
    let egc = s.links("el-gran-capitan/cerignola-1503");
    let p = page(&s, &egc[0]);
    let all = forms(&p);
    assert_eq!(
        all.first().map(|f| f.action.as_str()),
        Some("initiative"),
        "{p}"
    );
    assert!(all[0].primary);
    assert!(all.iter().any(|f| f.action == "charge"), "{p}");
    assert!(headline(&p).contains("Turn 1"), "{p}");
}

#[test]
fn a_side_sees_forms_for_its_own_units_only_and_a_spectator_none() {
    let s = server();
    let seats = new_game(&s, "Gendarmes");
    // Watching sides and spectators get no forms.
    for t in [&seats.french, &seats.imperial, &seats.spectator] {
        let p = page(&s, t);
        assert!(forms(&p).is_empty(), "{p}");
        assert!(headline(&p).contains("Turn 1"), "the board is shown: {p}");
    }
    let r = post(
        &s,
        &format!("/api/s/{}/settings", seats.gm),
        &json!({"side_rights": "own-units"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(forms(&page(&s, &seats.spectator)).is_empty());
    // The turn starts and a card is drawn: the side whose card it is names one of its units.
    assert_eq!(gm_acts(&s, &seats, "start-turn").status, 200);
    let r = gm_acts(&s, &seats, "draw");
    assert_eq!(r.status, 200, "{}", r.body);
    let mut moving = None;
    for (t, own, other) in [
        (&seats.french, FRENCH_UNITS, IMPERIAL_UNITS),
        (&seats.imperial, IMPERIAL_UNITS, FRENCH_UNITS),
    ] {
        let p = page(&s, t);
        let all = forms(&p);
        // No game master's steps on a side's page.
        assert!(
            all.iter()
                .all(|f| !["start-turn", "draw", "end-turn", "fire-morale"]
                    .contains(&f.action.as_str())),
            "{p}"
        );
        let offered = units_offered(&all);
        assert!(
            offered.iter().all(|u| own.contains(&u.as_str())),
            "a side is offered another side's unit: {offered:?}"
        );
        assert!(offered.iter().all(|u| !other.contains(&u.as_str())));
        if let Some(mv) = all.iter().find(|f| f.action == "move") {
            assert!(moving.is_none(), "both sides may move on one card");
            assert!(!options(&mv.html, "unit").is_empty());
            moving = Some((t.clone(), action_of(mv)));
        }
    }
    let (t, action) = moving.expect("the side whose card was drawn has a move form");
    assert!(forms(&page(&s, &seats.spectator)).is_empty());
    // A fire sent with no target yet (the page leaves it to the table) is refused at the
    // target, not as the game master's step (found by `tercio fuzz`).
    let r = post(
        &s,
        &format!("/api/s/{t}/actions"),
        &json!({"action": "fire", "unit": action["unit"]}),
    );
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.json()["error"]["field"], "target", "{}", r.body);
    // The side moves its own unit, with the action its form describes.
    let r = post(&s, &format!("/api/s/{t}/actions"), &action);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["resolution"]["summary"].is_string(), "{}", r.body);
}

#[test]
fn a_forms_action_is_accepted_and_changes_the_headline() {
    let s = server();
    let seats = new_game(&s, "Gendarmes");
    let before = headline(&page(&s, &seats.gm));
    let r = gm_acts(&s, &seats, "start-turn");
    assert_eq!(r.status, 200, "{}", r.body);
    let started = page(&s, &seats.gm);
    assert_ne!(headline(&started), before, "{started}");
    assert!(
        forms(&started).iter().all(|f| f.action != "start-turn"),
        "the turn has started"
    );
    let r = gm_acts(&s, &seats, "draw");
    assert_eq!(r.status, 200, "{}", r.body);
    let drawn = page(&s, &seats.gm);
    assert_ne!(headline(&drawn), headline(&started), "{drawn}");
    // A form with odds: the odds of the action it describes, exactly.
    let all = forms(&drawn);
    let mv = all
        .iter()
        .find(|f| f.action == "move")
        .expect("a move form after the draw");
    assert!(mv.odds && mv.html.contains("class=\"odds\""), "{}", mv.html);
    let r = post(&s, &format!("/api/s/{}/odds", seats.gm), &action_of(mv));
    assert_eq!(r.status, 200, "{}", r.body);
    let total = r.json()["total"].as_f64().unwrap_or(0.0);
    assert!((total - 1.0).abs() < 1e-9, "{}", r.body);
    // A field the form does not have is refused, naming the field.
    let mut bad = action_of(mv);
    bad["bogus"] = json!(true);
    let r = post(&s, &format!("/api/s/{}/actions", seats.gm), &bad);
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.json()["error"]["field"], "bogus", "{}", r.body);
    // Once the game has ended, no forms.
    let r = post(&s, &format!("/api/s/{}/conclude", seats.gm), &json!({}));
    assert_eq!(r.status, 200, "{}", r.body);
    let ended = page(&s, &seats.gm);
    assert!(forms(&ended).is_empty(), "{ended}");
    assert!(!ended.contains("data-undo=\"1\""));
}

#[test]
fn the_shipped_tsatf_scenarios_draw_their_board() {
    let s = server();
    let shipped: Vec<String> = get(&s, "/api/scenarios")
        .json()
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|x| x["rule_set"] == "sword-and-flame-renaissance")
        .filter_map(|x| x["id"].as_str().map(str::to_string))
        .collect();
    assert!(!shipped.is_empty(), "no TSATF scenario is shipped");
    for id in shipped {
        let links = s.links(&id);
        let gm = page(&s, &links[0]);
        assert!(headline(&gm).contains("Turn 1"), "{id}: {gm}");
        assert!(gm.contains("<table class=\"board\">"), "{id}");
        assert_eq!(
            forms(&gm).first().map(|f| f.action.as_str()),
            Some("start-turn"),
            "{id}"
        );
        let spectator = page(&s, links.last().expect("spectator"));
        assert!(forms(&spectator).is_empty(), "{id}");
    }
}

#[test]
fn the_rules_page_draws_the_reference_tables() {
    let s = server();
    let r = get(&s, "/rules/tsatf");
    assert_eq!(r.status, 200);
    // The morale table's pass chances (design 5.2) and the fire table's light gun at 24".
    assert!(r.body.contains("Morale (project design"), "{}", r.body);
    assert!(r.body.contains(">72.2%</td>"), "{}", r.body);
    assert!(r.body.contains("light cannon"));
    // Not the app-driven layout.
    assert!(!r.body.contains("friends pass"));
    // The app-driven rule sets keep theirs.
    let r = get(&s, "/rules/egc");
    assert!(r.body.contains("friends pass"));
}

#[test]
fn the_balance_page_draws_both_heatmaps_and_refuses_bad_queries_by_name() {
    let s = server();
    // Linked from the rules page of a rule set that has one.
    let r = get(&s, "/rules/egc");
    assert!(
        r.body
            .contains("href=\"/rules/el-gran-capitan/balance?lang=en\""),
        "{}",
        r.body
    );
    // Every rule set has one, the card games too.
    assert!(get(&s, "/rules/tsatf")
        .body
        .contains("href=\"/rules/sword-and-flame-renaissance/balance?lang=en\""));
    let r = get(&s, "/rules/egc/balance?action=melee&size=6");
    assert_eq!(r.status, 200, "{}", r.body);
    for id in ["balance-ahead", "balance-finish"] {
        assert!(r.body.contains(&format!("<svg id=\"{id}\"")), "{id}");
    }
    // Each of 16 x 16 cells has its tooltip: a pair the rules allow gives its chances.
    assert_eq!(r.body.matches("<g class=\"cell\">").count(), 2 * 16 * 16);
    assert!(
        r.body.contains("<title>Swiss Pikemen against Levy: ahead "),
        "{}",
        r.body
    );
    assert!(r.body.contains("<option value=\"melee\" selected>"));
    // In Italian.
    let r = get(&s, "/rules/egc/balance?lang=it");
    assert!(r.body.contains("equilibrio"), "{}", r.body);
    // Bad queries: a 400 page naming the field, never a 500.
    for (q, field) in [
        ("size=9", "size"),
        ("size=many", "size"),
        ("action=parley", "action"),
    ] {
        let r = get(&s, &format!("/rules/egc/balance?{q}"));
        assert_eq!(r.status, 400, "{q}: {}", r.body);
        assert!(r.body.contains(field), "{q}: {}", r.body);
    }
    // A card game's sheet, read from its own stand-alone actions; a rule set that is not one:
    // not found.
    let r = get(&s, "/rules/ecw/balance?action=melee");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("<svg"), "{}", r.body);
    assert_eq!(get(&s, "/rules/nope/balance").status, 404);
}
