//! Italian and English: the language of every page and answer, its switch and cookie, and that
//! no page in either language shows a message marker, a placeholder or a catalogue key.

use std::time::Duration;

use serde_json::{json, Value};
use tercio_web::client::{EventStream, Reply};

mod common;

use common::{server, token, Server};

const ITALIAN: (&str, &str) = ("Accept-Language", "it-IT,it;q=0.9");

impl Server {
    fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.request("GET", path, headers, None)
    }
    fn act(&self, t: &str, action: &Value) -> Reply {
        self.request(
            "POST",
            &format!("/api/s/{t}/actions"),
            &[],
            Some(&action.to_string()),
        )
    }
}

/// The `lang` of a page's `<html>` element.
fn html_lang(page: &str) -> &str {
    page.split_once("<html lang=\"")
        .and_then(|(_, r)| r.split_once('"'))
        .map_or("", |(l, _)| l)
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
            None => {
                rest = "";
            }
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

/// The start of a long page, for a failure's message.
fn short(page: &str) -> String {
    page.chars().take(3000).collect()
}

/// Nothing of the catalogue's machinery shows: no marker, no unfilled placeholder, no raw key.
fn assert_clean(body: &str, what: &str) {
    assert!(
        !body.contains('⟦') && !body.contains('⟧'),
        "{what}: a message marker reached the page: {}",
        short(body)
    );
    let visible = without_scripts(body);
    if let Some(p) = placeholder(&visible) {
        let at = visible.find(&p).unwrap_or(0);
        let around: String = visible[at.saturating_sub(300)..]
            .chars()
            .take(600)
            .collect();
        panic!("{what}: the placeholder {p} was not filled: …{around}…");
    }
    assert!(
        !visible.contains("web."),
        "{what}: a raw catalogue key: {}",
        short(&visible)
    );
}

#[test]
fn an_italian_browser_gets_italian_pages() {
    let s = server();
    let auth = format!("Bearer {}", s.key);
    let home = s.get_with("/", &[ITALIAN, ("Authorization", &auth)]);
    assert_eq!(home.status, 200);
    assert_eq!(html_lang(&home.body), "it", "{}", home.body);
    assert!(home.body.contains("<h1>Partite</h1>"), "{}", home.body);
    assert!(home.body.contains("Nuova partita"), "{}", home.body);
    // Without a preference: English, as before.
    let home = s.get_with("/", &[("Authorization", &auth)]);
    assert_eq!(html_lang(&home.body), "en");
    assert!(home.body.contains("<h1>Games</h1>"), "{}", home.body);
    // A seat's page, its live part and its dice report.
    let t = s.links("el-gran-capitan/cerignola-1503");
    let p = s.get_with(&format!("/s/{}", t[0]), &[ITALIAN]).body;
    assert_eq!(html_lang(&p), "it");
    assert!(p.contains("<h2>Dadi</h2>") && p.contains("Registro"), "{p}");
    // The charge, folded: its title on the page, its form in Italian when it is opened.
    assert!(
        p.contains("<summary>Carica</summary>"),
        "the app's actions: {p}"
    );
    let charge = s.get_with(&format!("/api/s/{}/form?id=act-f-charge", t[0]), &[ITALIAN]);
    assert_eq!(charge.status, 200, "{}", charge.body);
    let form = charge.json()["html"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(form.contains("<h3>Carica</h3>"), "the app's fields: {form}");
    let main = s
        .get_with(&format!("/s/{}?part=main", t[0]), &[ITALIAN])
        .body;
    assert!(main.contains("<th>Basette</th>"), "{main}");
    let dice = s.get_with(&format!("/s/{}/dice", t[0]), &[ITALIAN]).body;
    assert!(dice.contains("Nessun dado tirato finora."), "{dice}");
    // The script's own words come in the page's language.
    assert!(
        p.contains("\"thrown_so_far\":\"Tirati finora: {faces}\""),
        "{p}"
    );
}

#[test]
fn the_switch_sets_a_cookie_that_outranks_the_browser() {
    let s = server();
    let page = s.get_with("/rules/egc", &[ITALIAN]);
    assert_eq!(html_lang(&page.body), "it");
    assert!(page.headers("set-cookie").is_empty(), "nothing chosen yet");
    // The switch is on the page, to the same page.
    assert!(
        page.body
            .contains("href=\"/rules/egc?lang=en\" hreflang=\"en\" lang=\"en\""),
        "{}",
        page.body
    );
    let en = s.get_with("/rules/egc?lang=en", &[ITALIAN]);
    assert_eq!(en.status, 200);
    assert_eq!(html_lang(&en.body), "en");
    let cookie = en.headers("set-cookie");
    assert_eq!(
        cookie,
        vec!["tercio_lang=en; Path=/; Max-Age=31536000; SameSite=Lax"],
        "{}",
        en.head
    );
    // Remembered: the next page, with the cookie, stays English for an Italian browser.
    let next = s.get_with("/", &[ITALIAN, ("Cookie", "tercio_lang=en")]);
    assert_eq!(html_lang(&next.body), "en", "{}", next.body);
    assert!(next.headers("set-cookie").is_empty());
    // And back: the switch wins over the cookie.
    let it = s.get_with("/?lang=it", &[("Cookie", "tercio_lang=en")]);
    assert_eq!(html_lang(&it.body), "it");
    assert_eq!(
        it.headers("set-cookie"),
        vec!["tercio_lang=it; Path=/; Max-Age=31536000; SameSite=Lax"]
    );
    // The switch keeps the rest of the query, and replaces an earlier choice.
    let t = s.links("el-gran-capitan/cerignola-1503");
    let p = s.get_with(&format!("/s/{}?x=1&lang=it", t[0]), &[]).body;
    assert!(
        p.contains(&format!("href=\"/s/{}?x=1&amp;lang=en\"", t[0])),
        "{p}"
    );
    // An unknown language is ignored: no cookie, the browser's language, no error.
    let odd = s.get_with("/rules/egc?lang=xx", &[ITALIAN]);
    assert_eq!(odd.status, 200);
    assert_eq!(html_lang(&odd.body), "it");
    assert!(odd.headers("set-cookie").is_empty());
    let odd = s.get_with("/rules/egc", &[("Cookie", "tercio_lang=klingon")]);
    assert_eq!((odd.status, html_lang(&odd.body)), (200, "en"));
    // Live redraws read the same cookie.
    let main = s
        .get_with(
            &format!("/s/{}?part=main", t[0]),
            &[("Cookie", "tercio_lang=it")],
        )
        .body;
    assert!(main.contains("<th>Basette</th>"), "{main}");
}

/// Play a few steps of a game: the example turn for the app-driven rule sets, the first bare
/// forms (start, deal, draw…) for the others.
fn play(s: &Server, scenario: &str, gm: &str) {
    let examples = match scenario.split('/').next() {
        Some("el-gran-capitan") => Some("examples/el-gran-capitan/game"),
        Some("bloody-dismal-fight") if scenario.ends_with("agincourt-1415") => {
            Some("examples/bloody-dismal-fight/game")
        }
        _ => None,
    };
    if let Some(dir) = examples {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("examples")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("0"))
            })
            .collect();
        files.sort();
        for f in files {
            let a: Value =
                serde_json::from_str(&std::fs::read_to_string(&f).expect("read")).expect("json");
            let r = s.act(gm, &a);
            assert!(r.status < 500, "{}", r.body);
        }
        return;
    }
    for _ in 0..3 {
        let p = s.get_with(&format!("/s/{gm}"), &[]).body;
        let Some(action) = p
            .split("<form class=\"action-form primary bare\"")
            .nth(1)
            .and_then(|f| f.split_once("data-action=\""))
            .and_then(|(_, r)| r.split_once('"'))
            .map(|(a, _)| a.to_string())
        else {
            break;
        };
        let r = s.act(gm, &json!({"action": action}));
        assert!(r.status < 500, "{}", r.body);
    }
}

#[test]
fn every_page_in_both_languages_shows_no_marker_placeholder_or_key() {
    let s = server();
    let auth = format!("Bearer {}", s.key);
    let langs = [
        ("Accept-Language", "it-IT,it;q=0.9"),
        ("Accept-Language", "en"),
    ];
    let mut pages: Vec<(String, Vec<(&str, String)>)> = Vec::new();
    let host = |path: &str| (path.to_string(), vec![("Authorization", auth.clone())]);
    pages.push(host("/"));
    pages.push(("/".into(), vec![]));
    pages.push(("/?key=wrong".into(), vec![]));
    pages.push(("/no/such/page".into(), vec![]));
    pages.push((format!("/s/{}", "0".repeat(32)), vec![]));
    pages.push(("/rules/no-such-rules".into(), vec![]));
    for r in tercio_rules::registry::all() {
        pages.push((format!("/rules/{}", r.id()), vec![]));
    }
    // One game of each rule set, a few steps in; one with dice at the table, one ended.
    let scenarios = [
        "bloody-dismal-fight/agincourt-1415",
        "el-gran-capitan/cerignola-1503",
        "sword-and-flame-renaissance/bicocca-1522",
        "commands-colors-ecw/edgehill-1642",
        "callan-renaissance/pavia-1525",
    ];
    for (i, sc) in scenarios.iter().enumerate() {
        let v = s.create(&json!({"scenario": sc, "seed": 7}));
        let links = common::tokens(&v);
        play(&s, sc, &links[0]);
        if i == 1 {
            let r = s.request(
                "POST",
                &format!("/api/s/{}/settings", links[0]),
                &[],
                Some(&json!({"physical_dice": true, "side_rights": "own-units"}).to_string()),
            );
            assert_eq!(r.status, 200, "{}", r.body);
        }
        if i == 0 {
            let r = s.request("POST", &format!("/api/s/{}/conclude", links[0]), &[], None);
            assert_eq!(r.status, 200, "{}", r.body);
        }
        pages.push(host(&format!("/games/{}", v["id"].as_str().unwrap_or(""))));
        for t in &links {
            for suffix in ["", "?part=main", "/log", "/dice", "/report.md"] {
                pages.push((format!("/s/{t}{suffix}"), vec![]));
            }
        }
    }
    // The host's page now lists games, and a new game's form answered with a problem.
    pages.push(host("/"));
    let mut checked = 0;
    for (lang, header) in ["it", "en"].iter().zip(langs) {
        for (path, extra) in &pages {
            let mut headers: Vec<(&str, &str)> = vec![header];
            headers.extend(extra.iter().map(|(k, v)| (*k, v.as_str())));
            let r = s.get_with(path, &headers);
            // A host's game link redirects to its game master's page.
            if r.status == 303 || r.status == 307 || r.status == 302 {
                continue;
            }
            let what = format!("{lang} {path} ({})", r.status);
            assert_clean(&r.body, &what);
            // The folded actions' forms, fetched when one is opened, are the page's words too.
            if let Some(token) = path
                .strip_prefix("/s/")
                .filter(|t| !t.contains('/') && !t.contains('?'))
            {
                for (at, _) in r.body.match_indices("<details class=\"act\" id=\"") {
                    let rest = &r.body[at + "<details class=\"act\" id=\"".len()..];
                    let id = &rest[..rest.find('"').unwrap_or(0)];
                    let f = s.get_with(&format!("/api/s/{token}/form?id={id}"), &headers);
                    assert_eq!(f.status, 200, "{what}: {id}: {}", f.body);
                    assert_clean(
                        f.json()["html"].as_str().unwrap_or_default(),
                        &format!("{what}: the form of {id}"),
                    );
                    checked += 1;
                }
            }
            // Whole pages (not the live part or the Markdown report) say their language and
            // carry the switch.
            if !path.ends_with(".md") && !path.ends_with("?part=main") {
                assert_eq!(html_lang(&r.body), *lang, "{what}: {}", short(&r.body));
                assert!(r.body.contains("<nav class=\"langs\""), "{what}: no switch");
            }
            checked += 1;
        }
        // A form's answer: the new-game form without a scenario.
        let r = s.request(
            "POST",
            "/games",
            &[
                header,
                ("Authorization", &auth),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            Some("scenario=&toml="),
        );
        assert_eq!(r.status, 422, "{}", r.body);
        assert_clean(&r.body, &format!("{lang} POST /games"));
        assert_eq!(html_lang(&r.body), *lang);
        assert!(
            r.body.contains("href=\"/?lang="),
            "the switch of a form's answer leads to a page: {}",
            r.body
        );
    }
    assert!(checked > 100, "{checked} pages checked");
}

#[test]
fn json_answers_render_messages_in_the_requests_language() {
    let s = server();
    let t = s.links("el-gran-capitan/cerignola-1503");
    let (gm, spectator) = (&t[0], &t[t.len() - 1]);
    let name = |r: Reply| r.json()["seat"]["name"].clone();
    assert_eq!(
        name(s.get_with(&format!("/api/s/{gm}"), &[])),
        "game master"
    );
    assert_eq!(
        name(s.get_with(&format!("/api/s/{gm}?lang=it"), &[])),
        "arbitro"
    );
    assert_eq!(
        name(s.get_with(&format!("/api/s/{gm}"), &[ITALIAN])),
        "arbitro"
    );
    assert_eq!(
        name(s.get_with(&format!("/api/s/{gm}"), &[("Cookie", "tercio_lang=it")])),
        "arbitro"
    );
    assert_eq!(
        name(s.get_with(&format!("/api/s/{gm}?lang=en"), &[ITALIAN])),
        "game master"
    );
    assert_eq!(
        name(s.get_with(&format!("/api/s/{gm}?lang=xx"), &[ITALIAN])),
        "arbitro",
        "an unknown ?lang= is ignored"
    );
    // The API sets no cookie.
    assert!(s
        .get_with(&format!("/api/s/{gm}?lang=it"), &[])
        .headers("set-cookie")
        .is_empty());
    // An action's answer, rendered as a value before it is written (`api::Answer`), reads as
    // the log, rendered from the written answer, does.
    let r = s.request(
        "POST",
        &format!("/api/s/{gm}/actions?lang=it"),
        &[],
        Some("{\"action\": \"initiative\"}"),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!r.body.contains(tercio_i18n::OPEN), "{}", r.body);
    let log = s.get_with(&format!("/api/s/{gm}/log?lang=it"), &[]);
    let last = log.json()["entries"]
        .as_array()
        .and_then(|e| e.last().cloned())
        .expect("an entry");
    assert_eq!(r.json()["resolution"], last["event"]["resolution"]);
    assert_ne!(
        r.json()["resolution"],
        s.get_with(&format!("/api/s/{gm}/log"), &[]).json()["entries"]
            .as_array()
            .and_then(|e| e.last().cloned())
            .expect("an entry")["event"]["resolution"],
        "Italian, not English"
    );
    // Errors the server writes.
    let r = s.request(
        "POST",
        &format!("/api/s/{spectator}/actions?lang=it"),
        &[],
        Some("{\"action\": \"initiative\"}"),
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(
        r.json()["error"]["message"],
        "il link di uno spettatore può solo guardare la partita"
    );
    let r = s.get_with(&format!("/api/s/{}", "0".repeat(32)), &[ITALIAN]);
    assert_eq!(r.status, 404);
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("questo link non apre nessuna partita")),
        "{}",
        r.body
    );
    let r = s.get_with("/api/nothing/here", &[ITALIAN]);
    assert_eq!(
        r.json()["error"]["message"],
        "indirizzo inesistente",
        "{}",
        r.body
    );
    let r = s.request(
        "POST",
        &format!("/api/s/{gm}/actions?lang=it"),
        &[],
        Some("{oops"),
    );
    assert_eq!(r.status, 400);
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("body:1:2: JSON non valido")),
        "{}",
        r.body
    );
    // The same in English, as it always read.
    let r = s.request(
        "POST",
        &format!("/api/s/{spectator}/actions"),
        &[],
        Some("{\"action\": \"initiative\"}"),
    );
    assert_eq!(
        r.json()["error"]["message"],
        "a spectator's link only watches the game"
    );
    // Host links.
    let v = s.get_with(&format!("/api/s/{gm}/seats?lang=it"), &[]);
    assert_eq!(v.json()[0]["name"], "Arbitro", "{}", v.body);
    assert_eq!(v.json()[t.len() - 1]["name"], "Spettatori", "{}", v.body);
}

#[test]
fn app_driven_refusals_of_a_wrong_or_missing_name_speak_the_requests_language() {
    let s = server();
    let t = s.links("el-gran-capitan/cerignola-1503");
    let gm = &t[0];
    // Each names something the game does not have, or leaves out what the action needs; each
    // refusal's message read to an Italian and an English request.
    for (action, code) in [
        (
            json!({"action": "charge", "actor": "nobody", "target": "spanish-pike-left"}),
            "unknown-unit",
        ),
        (
            json!({"action": "charge", "target": "spanish-pike-left"}),
            "missing-field",
        ),
        (
            json!({"action": "attach", "leader": "nobody", "unit": "swiss-first-block"}),
            "unknown-leader",
        ),
        (
            json!({"action": "attach", "leader": "chandieu", "unit": "nobody"}),
            "unknown-unit",
        ),
    ] {
        let refusal = |lang: &str| {
            let r = s.request(
                "POST",
                &format!("/api/s/{gm}/actions?lang={lang}"),
                &[],
                Some(&action.to_string()),
            );
            assert_eq!(r.status, 422, "{action}: {}", r.body);
            let e = r.json()["error"].clone();
            assert_eq!(e["code"], code, "{action}: {}", r.body);
            let m = e["message"].as_str().unwrap_or_default().to_string();
            assert!(
                !m.is_empty() && !m.contains(tercio_i18n::OPEN),
                "{action}: {m}"
            );
            m
        };
        let (it, en) = (refusal("it"), refusal("en"));
        assert_ne!(
            it, en,
            "{action}: the Italian refusal reads as the English one"
        );
        for english in ["no unit", "no leader", "required", "this game"] {
            assert!(!it.contains(english), "{action}: English left in \"{it}\"");
        }
    }
    // A name written like a message is quoted as written, not read as one.
    let body =
        r#"{"action": "attach", "leader": "chandieu", "unit": "⟦app_driven.action.charge⟧"}"#;
    let r = s.request(
        "POST",
        &format!("/api/s/{gm}/actions?lang=it"),
        &[],
        Some(body),
    );
    assert_eq!(r.status, 422, "{}", r.body);
    let m = r.json()["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(m.contains("«⟦app_driven.action.charge⟧»"), "{m}");
}

#[test]
fn a_value_of_the_wrong_kind_is_refused_in_the_readers_words() {
    let s = server();
    let t = s.links("commands-colors-ecw/edgehill-1642");
    let gm = &t[0];
    let refusal = |lang: &str| {
        let r = s.request(
            "POST",
            &format!("/api/s/{gm}/actions?lang={lang}"),
            &[],
            Some(r#"{"action": "melee", "attacker": "x"}"#),
        );
        assert_eq!(r.status, 422, "{}", r.body);
        assert_eq!(r.json()["error"]["field"], "attacker", "{}", r.body);
        r.json()["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let (it, en) = (refusal("it"), refusal("en"));
    assert_eq!(
        en,
        "attacker: an object with its fields expected, not \"x\""
    );
    assert_eq!(it, "attacker: serve un oggetto con i suoi campi, non \"x\"");
}

#[test]
fn every_web_key_is_used_and_markup_only_in_html_keys() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut code = String::new();
    // Every file under src and assets, modules in folders (src/pages/) included.
    let mut dirs = vec![root.join("src"), root.join("assets")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).expect("dir").flatten() {
            if e.path().is_dir() {
                dirs.push(e.path());
            } else {
                code.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
    }
    for lang in tercio_i18n::Lang::ALL {
        for (key, text) in tercio_i18n::entries(lang) {
            let Some(rest) = key.strip_prefix("web.") else {
                continue;
            };
            // A plural is used by its parent key.
            let used_as = rest
                .strip_suffix(".one")
                .or_else(|| rest.strip_suffix(".other"))
                .unwrap_or(rest);
            let used = match used_as.strip_prefix("js.") {
                Some(js) => code.contains(&format!("\"{js}\"")),
                None => {
                    let konst: String = format!("WEB_{used_as}")
                        .chars()
                        .map(|c| match c {
                            '.' | '-' => '_',
                            c => c.to_ascii_uppercase(),
                        })
                        .collect();
                    code.contains(&format!("keys::{konst}"))
                }
            };
            assert!(used, "{lang} {key} is never used");
            let markup = text.contains('<') || text.contains('>');
            assert_eq!(
                markup,
                used_as.ends_with("_html"),
                "{lang} {key}: markup only, and always, in an _html key: {text}"
            );
        }
    }
}

#[test]
fn the_live_stream_speaks_the_language_of_the_page_that_opened_it() {
    let s = server();
    let v = s.create(&json!({"scenario": "el-gran-capitan/cerignola-1503", "seed": 5}));
    let links = v["links"].as_array().expect("links");
    let gm = token(&links[0]["url"]);
    let side = v["links"][1]["side"].as_str().expect("side").to_string();
    let mut streams = Vec::new();
    for (lang, header) in [
        ("it", ("Cookie", "tercio_lang=it")),
        ("en", ("Accept-Language", "en")),
    ] {
        // Each language watches its own side's link; both links are then withdrawn.
        let old = token(&links[if lang == "it" { 1 } else { 2 }]["url"]);
        // Open (the server has answered) before the links are withdrawn.
        let es =
            EventStream::open(&s.addr, &format!("/api/s/{old}/events"), &[header]).expect("events");
        streams.push((lang, es));
    }
    let other = v["links"][2]["side"].as_str().expect("side").to_string();
    for sd in [&side, &other] {
        let r = s.request(
            "POST",
            &format!("/api/s/{gm}/seats/reissue"),
            &[],
            Some(&json!({"role": "side", "side": sd}).to_string()),
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    for (lang, mut es) in streams {
        let events = es
            .until(Duration::from_secs(20), |e| e.event == "revoked")
            .expect("events");
        let revoked = events
            .iter()
            .find(|e| e.event == "revoked")
            .unwrap_or_else(|| panic!("{lang}: no revoked event: {events:?}"));
        let message: Value = serde_json::from_str(&revoked.data).expect("json");
        let want = if lang == "it" {
            "questo link non apre nessuna partita"
        } else {
            "this link opens no game"
        };
        assert!(
            message["message"]
                .as_str()
                .is_some_and(|m| m.starts_with(want)),
            "{lang}: {message}"
        );
    }
}

/// Text a person wrote is never read as a message (issue 16, item 14): a battle and a unit named
/// like a message marker are called exactly that on the page, in the JSON and in the export, in
/// both languages, while the engine's own messages around them render.
#[test]
fn a_name_written_like_a_message_is_shown_as_written() {
    let s = server();
    // Renders as "turno 77,5" / "turn 77.5" if it is ever read as a marker.
    let name = tercio_i18n::msg(tercio_i18n::keys::WEB_GAMES_TURN, &[("turn", "#77.5")]);
    let toml = common::tsatf_skirmish(&name).replacen(
        "title = \"Skirmish\"",
        &format!("title = \"{name}\""),
        1,
    );
    let t = s.links(&toml);
    let json_name = serde_json::to_string(&name).expect("json");
    for (header, rendered, lang) in [
        (ITALIAN, "turno 77,5", tercio_i18n::Lang::It),
        (
            ("Accept-Language", "en"),
            "turn 77.5",
            tercio_i18n::Lang::En,
        ),
    ] {
        let p = s.get_with(&format!("/s/{}", t[0]), &[header]).body;
        assert!(!p.contains(rendered), "{rendered}: {}", short(&p));
        // In the page's title and heading, and in the board's unit table.
        assert!(
            p.matches(name.as_str()).count() >= 3,
            "{name}: {}",
            short(&p)
        );
        // The page's own messages still render.
        let switch = tercio_i18n::t(lang, tercio_i18n::keys::WEB_LANG_SWITCH, &[]);
        assert!(p.contains(&switch), "{switch}: {}", short(&p));
        let v = s.get_with(&format!("/api/s/{}", t[0]), &[header]);
        assert!(!v.body.contains(rendered), "{}", v.body);
        assert!(
            v.body.contains(&format!("\"title\":{json_name}")),
            "{}",
            v.body
        );
        let view: Value = v.json();
        let units = view["state"].to_string();
        assert!(units.contains(&json_name), "{units}");
        // The host's answers too.
        let auth = format!("Bearer {}", s.key);
        let list = s.get_with("/api/games", &[header, ("Authorization", &auth)]);
        assert!(list.body.contains(&json_name), "{}", list.body);
    }
    // The export is the record: the scenario as written.
    let e = s.get_with(&format!("/api/s/{}/export", t[0]), &[ITALIAN]);
    assert_eq!(e.status, 200);
    let export: Value = e.json();
    assert_eq!(export["scenario"]["title"], json!(name), "{}", e.body);
}

/// A result is titled by its action's name in the page's language, never by its id
/// ("start-turn", "end_turn"): in the log of every rule set, and in the titles the page's script
/// gives the result boxes of the rule sets that record their actions by id.
#[test]
fn results_are_titled_by_the_actions_name_never_its_id() {
    let s = server();
    let id_like = |t: &str| {
        !t.is_empty()
            && t.chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c == '_')
    };
    for (sc, want) in [
        (
            "bloody-dismal-fight/agincourt-1415",
            Some(("initiative", "Iniziativa")),
        ),
        (
            "el-gran-capitan/cerignola-1503",
            Some(("end-turn", "Verifica della rotta e turno successivo")),
        ),
        (
            "sword-and-flame-renaissance/bicocca-1522",
            Some(("start-turn", "Inizia il turno")),
        ),
        (
            "commands-colors-ecw/edgehill-1642",
            Some(("deal", "Distribuisci le carte")),
        ),
        ("callan-renaissance/pavia-1525", None),
    ] {
        let gm = &s.links(sc)[0];
        play(&s, sc, gm);
        if sc.starts_with("commands-colors-ecw") {
            let r = s.act(gm, &json!({"action": "deal"}));
            assert_eq!(r.status, 200, "{}", r.body);
        }
        let page = s.get_with(&format!("/s/{gm}"), &[ITALIAN]).body;
        let titles: Vec<&str> = page
            .split("<span class=\"seq\">")
            .skip(1)
            .filter_map(|e| e.split_once("</span> ")?.1.split_once(':'))
            .map(|(t, _)| t)
            .collect();
        assert!(!titles.is_empty(), "{sc}: no result in the log");
        for t in &titles {
            assert!(
                !id_like(t),
                "{sc}: a result titled by its action's id: {t:?}"
            );
        }
        let seat: Value = serde_json::from_str(
            page.split("id=\"tercio-seat\">")
                .nth(1)
                .and_then(|r| r.split_once("</script>"))
                .map(|(j, _)| j)
                .expect("the seat's script data"),
        )
        .expect("json");
        match want {
            Some((id, name)) => {
                assert_eq!(seat["titles"][id], name, "{sc}: {}", seat["titles"]);
                assert!(
                    titles.iter().any(|t| t.trim() == name) || id == "end-turn",
                    "{sc}: {titles:?}"
                );
            }
            None => assert_eq!(seat["titles"], json!({}), "{sc}"),
        }
    }
}

/// The log reads as the result box does: dice a line per unit ("…: 3 dice → 3, 5, 6", never
/// "d6 = 3" per die), modifiers without their citations inline, and the citations one tap away
/// under the entry.
#[test]
fn the_log_groups_dice_and_keeps_citations_one_tap_away() {
    let s = server();
    let sc = "el-gran-capitan/cerignola-1503";
    let gm = &s.links(sc)[0];
    play(&s, sc, gm);
    // The log's entries, each with its steps and citations as the page fetches them when the
    // entry is opened.
    let mut page = s
        .get_with(&format!("/s/{gm}"), &[("Accept-Language", "en")])
        .body;
    let seqs: Vec<String> = page
        .match_indices("<details data-entry=\"")
        .map(|(i, k)| {
            let rest = &page[i + k.len()..];
            rest[..rest.find('"').unwrap_or(0)].to_string()
        })
        .collect();
    assert!(!seqs.is_empty(), "no entry: {page}");
    for seq in seqs {
        let r = s.get_with(
            &format!("/api/s/{gm}/entry?seq={seq}"),
            &[("Accept-Language", "en")],
        );
        assert_eq!(r.status, 200, "{seq}: {}", r.body);
        page.push_str(r.json()["html"].as_str().unwrap_or_default());
    }
    let pres: Vec<&str> = page
        .split("<pre>")
        .skip(1)
        .filter_map(|p| p.split_once("</pre>").map(|(t, _)| t))
        .collect();
    assert!(
        pres.iter()
            .any(|p| p.contains(" die → ") || p.contains(" dice → ")),
        "{pres:?}"
    );
    for p in &pres {
        assert!(!p.contains(" d6 = "), "a die per line: {p}");
        assert!(
            !p.contains("[project design]") && !p.contains("  ["),
            "a citation inline: {p}"
        );
    }
    let sources = page
        .split("<details class=\"sources\">")
        .nth(1)
        .expect("the citations under an entry");
    assert!(
        sources.contains("Where each modifier comes from"),
        "{sources}"
    );
    assert!(sources.contains("project design"), "{sources}");
}

/// Sword and Flame's forms and results speak Italian on an Italian page: the buttons, hints,
/// fields and choices of the turn's steps and of a unit's move, and the results in the log
/// (issue 17, item 3).
#[test]
fn sword_and_flame_forms_speak_italian() {
    let s = server();
    let gm = &s.links("sword-and-flame-renaissance/bicocca-1522")[0];
    let page = s.get_with(&format!("/s/{gm}"), &[ITALIAN]).body;
    assert!(page.contains("Inizia il turno"), "{}", short(&page));
    assert!(!page.contains("Start the turn") && !page.contains("Spent units"));
    for a in ["start-turn", "draw"] {
        let r = s.act(gm, &json!({"action": a}));
        assert_eq!(r.status, 200, "{}", r.body);
    }
    // The board, the forms, and the results in the log (the newest above the forms too).
    let page = s.get_with(&format!("/s/{gm}"), &[ITALIAN]).body;
    let page = page.as_str();
    assert!(
        page.contains("carta rossa: ") || page.contains("carta nera: "),
        "the card drawn: {}",
        short(page)
    );
    for it in [
        "Turno 1: nessuna unità esausta da mettere alla prova",
        "Muovi",
        "> in salita<",
        "Prima cambia ordine",
        "Lascia passare l'occasione",
        ">Unità ",
        "(carte rosse)",
        ">Figure<",
        ">Picchieri<",
    ] {
        assert!(page.contains(it), "{it}: {}", short(page));
    }
    for en in [
        "> uphill<",
        "Change order first",
        "Shaken units try",
        ">Unit ",
        "Let the chance pass",
        "names a unit",
        "red card: ",
        "black card: ",
        "no spent unit",
        "(red cards)",
        ">Figures<",
        ">Pikemen<",
    ] {
        assert!(!page.contains(en), "{en} on an Italian page");
    }
}

/// The app-driven refusals a form shows under its fields speak the page's language and name no
/// API field (issue 17, items 3 and 13): a unit that may not fire, an action before any
/// initiative, a melee with no combat.
#[test]
fn app_driven_refusals_under_a_form_speak_italian() {
    let s = server();
    let gm = &s.links("el-gran-capitan/cerignola-1503")[0];
    let odds = |lang: &str, a: Value| {
        let r = s.request(
            "POST",
            &format!("/api/s/{gm}/odds?lang={lang}"),
            &[],
            Some(&a.to_string()),
        );
        (r.status, r.json())
    };
    // Before any initiative: the odds of an advance, with why it waits.
    let advance = json!({"action": "advance", "actor": "colonna-men-at-arms"});
    let (status, v) = odds("it", advance.clone());
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["note"],
        "Nessun comandante ha l'iniziativa: tira l'Iniziativa, poi il Comando per un comandante."
    );
    let (_, v) = odds("en", advance);
    assert_eq!(
        v["note"],
        "No leader holds an initiative: roll the Initiative, then the Command for a leader."
    );
    // Gendarmes do not fire; a unit in no combat does not melee.
    let (status, v) = odds(
        "it",
        json!({"action": "fire", "actor": "colonna-men-at-arms", "target": "gascon-crossbowmen"}),
    );
    assert_eq!(status, 422, "{v}");
    let m = v["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(m.contains("non può tirare"), "{m}");
    let (_, v) = odds(
        "it",
        json!({"action": "melee", "actor": "colonna-men-at-arms", "target": "gascon-crossbowmen"}),
    );
    let m = v["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    // Refused at the tick that opens a combat ("A contatto senza Carica"), beside which it shows.
    assert!(
        m.contains("non è in una mischia: cominciatela con una Carica, o spuntate qui")
            && v["error"]["field"] == "in_contact",
        "{v}"
    );
    for en in [
        "may not fire",
        "ongoing combat",
        "\"initiative\"",
        "\"command\"",
    ] {
        assert!(!m.contains(en), "{en} in {m}");
    }
}

/// Every quoted string of a scenario file (basic, literal and multi-line): the proper names and
/// texts a scenario's author wrote, which stay as written in every language.
fn scenario_texts(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(i) = rest.find(['"', '\'']) {
        let q = &rest[i..];
        let (open, close) = if q.starts_with("\"\"\"") {
            ("\"\"\"", "\"\"\"")
        } else if q.starts_with("'''") {
            ("'''", "'''")
        } else if q.starts_with('"') {
            ("\"", "\"")
        } else {
            ("'", "'")
        };
        let body = &q[open.len()..];
        let mut end = None;
        let mut escaped = false;
        for (j, c) in body.char_indices() {
            if escaped {
                escaped = false;
            } else if c == '\\' && open.starts_with('"') {
                escaped = true;
            } else if body[j..].starts_with(close) {
                end = Some(j);
                break;
            } else if open.len() == 1 && c == '\n' {
                break;
            }
        }
        match end {
            Some(j) => {
                let text = body[..j].replace("\\\"", "\"").replace("\\\\", "\\");
                out.extend(text.lines().map(|l| l.trim().to_string()));
                rest = &body[j + close.len()..];
            }
            None => rest = &q[1..],
        }
    }
    out.retain(|s| s.chars().count() > 2);
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out
}

/// A page's visible text: no scripts, no tags, entities decoded; without the citations of the
/// modifiers (`class="sources"`), which quote each seed in its own language, and without the
/// rules page's house rules, whose first column is the key a scenario's author writes.
fn visible_text(page: &str) -> String {
    common::text_without(
        &without_scripts(page),
        &[
            ("<details class=\"sources\">", "</details>"),
            ("<ul class=\"sources\">", "</ul>"),
            ("<tbody id=\"ref-house\">", "</tbody>"),
        ],
    )
}

/// The texts of a JSON answer a page shows (every string but ids, paths and links).
fn shown_strings(v: &Value, key: &str, out: &mut Vec<String>) {
    // Ids, links, and the state's changes (`p`, `v`) a page patches in, not reads out.
    const NOT_SHOWN: [&str; 13] = [
        "id", "action", "rules", "ruleset", "url", "etag", "hash", "kind", "code", "field", "p",
        "v", "source",
    ];
    match v {
        Value::String(s) if !NOT_SHOWN.contains(&key) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| shown_strings(x, key, out)),
        // The state a page patches in is data, not text.
        Value::Object(_) if key == "v" || key == "state" => {}
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            // A facet's name is an object key in an odds answer.
            if key == "odds" || key == "facets" {
                out.push(k.clone());
            }
            shown_strings(x, k, out)
        }),
        _ => {}
    }
}

/// English words that are no Italian word, and the marks of an internal id or a citation.
const ENGLISH: [&str; 48] = [
    "the", "of", "and", "with", "from", "has", "have", "is", "are", "not", "each", "this", "that",
    "card", "cards", "fire", "fires", "unit", "units", "turn", "loses", "lost", "level", "levels",
    "charge", "charges", "melee", "roll", "rolls", "draw", "move", "moves", "target", "actor",
    "ahead", "tie", "hits", "wins", "breaks", "side", "deck", "hand", "play", "leader", "army",
    "none", "may", "must",
];
const INTERNAL: [&str; 12] = [
    "⟦",
    "app_driven.",
    "sword_and_flame.",
    "ecw.",
    "callan.",
    "[design",
    "[decision",
    "`",
    "project design",
    "[000",
    "[001",
    "[002",
];

/// A seed's citation: "001, FIRE, 'Pistol - To 4\"'", as the rules page's source column and its
/// notes give them, in the seed's own language.
fn is_citation(s: &str) -> bool {
    let s = s.trim_start_matches(['(', ' ']);
    s.len() > 4
        && s.as_bytes()[..3].iter().all(u8::is_ascii_digit)
        && s[3..].starts_with([',', ' ', '/'])
}

/// The English words and internal marks left in `text` once the scenario's own texts and the
/// citations of the seeds are taken out, with the line each sits in.
fn english_left(text: &str, allowed: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        if is_citation(line.trim()) {
            continue;
        }
        let mut kept = line.to_string();
        for a in allowed {
            if kept.contains(a.as_str()) {
                kept = kept.replace(a.as_str(), " ");
            }
        }
        // A citation in brackets inside a text ("... (001, FIRE); ...") reads as itself.
        let mut rest = String::new();
        let mut depth = 0;
        for (i, c) in kept.char_indices() {
            if c == '(' && (depth > 0 || is_citation(&kept[i..])) {
                depth += 1;
            } else if c == ')' && depth > 0 {
                depth -= 1;
            } else if depth == 0 {
                rest.push(c);
            }
        }
        let words: Vec<String> = rest
            .split(|c: char| !c.is_alphabetic())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        if let Some(w) = words.iter().find(|w| ENGLISH.contains(&w.as_str())) {
            found.push(format!("\"{w}\" in: {}", line.trim()));
        } else if let Some(m) = INTERNAL.iter().find(|m| rest.contains(*m)) {
            found.push(format!("\"{m}\" in: {}", line.trim()));
        }
    }
    found
}

/// Each rule set's example game, played in Italian through the API: at every step the game
/// master's page, the step's odds and its answer, and at the end every seat's page, the log, the
/// dice and the rules page, show no English engine text and no internal id or citation. The
/// scenario's own texts (unit, side and leader names, its notes) are proper names and stay.
#[test]
fn italian_pages_show_no_english_engine_text_or_internal_id() {
    let s = server();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for rules in common::RULE_SETS {
        let (scenario, seed, mut steps) = common::example_game(rules);
        common::on_one_device(&mut steps);
        // The games' printed titles are proper names too (item 16).
        let mut allowed = scenario_texts(
            &std::fs::read_to_string(root.join(format!("scenarios/{scenario}.toml")))
                .expect("scenario"),
        );
        allowed.extend(
            [
                "The Renaissance (Andy Callan)",
                "The Sword and the Flame",
                "Commands & Colors: Napoleonics",
                "A Bloody Dismal Fight",
            ]
            .map(String::from),
        );
        // ECW's Chaunce cards keep their printed, mock-archaic titles (item 16).
        allowed.extend(
            tercio_rules::commands_colors_ecw::tables::CHAUNCE_CARDS
                .iter()
                .map(|c| tercio_i18n::localize(tercio_i18n::Lang::It, &c.title())),
        );
        allowed.sort_by_key(|s| std::cmp::Reverse(s.len()));
        let v = s.create(&json!({"scenario": scenario, "seed": seed}));
        let links = common::tokens(&v);
        let gm = &links[0];
        let mut problems = Vec::new();
        let mut check = |what: &str, text: &str| {
            for p in english_left(text, &allowed) {
                problems.push(format!("{rules}, {what}: {p}"));
            }
        };
        for (name, a) in &steps {
            let page = s.get_with(&format!("/s/{gm}?part=main"), &[ITALIAN]).body;
            check(&format!("page before {name}"), &visible_text(&page));
            for (route, what) in [("odds", "odds"), ("actions", "answer")] {
                let r = s.request(
                    "POST",
                    &format!("/api/s/{gm}/{route}"),
                    &[ITALIAN],
                    Some(&a.to_string()),
                );
                let mut texts = Vec::new();
                shown_strings(&r.json(), "", &mut texts);
                check(&format!("{what} of {name}"), &texts.join("\n"));
            }
        }
        let mut pages: Vec<String> = links.iter().map(|t| format!("/s/{t}")).collect();
        pages.extend([
            format!("/s/{gm}/log"),
            format!("/s/{gm}/dice"),
            format!("/rules/{rules}"),
        ]);
        // A glossary (Callan's) gives each Italian term its English gloss on purpose.
        let gloss = format!(
            "<th>{}</th>",
            tercio_i18n::t(tercio_i18n::Lang::It, "callan.col.english", &[])
        );
        for p in pages {
            let mut page = s.get_with(&p, &[ITALIAN]).body;
            if let Some(i) = page.find(&gloss) {
                let end = page[i..].find("</tbody>").map_or(page.len(), |j| i + j);
                page.replace_range(i..end, " ");
            }
            check(&p, &visible_text(&page));
        }
        assert!(
            problems.is_empty(),
            "{} English or internal texts on Italian pages:\n{}",
            problems.len(),
            problems.join("\n")
        );
    }
}
