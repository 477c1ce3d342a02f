//! The scenario's notes on every seat's game page, and the battle report in the reader's
//! language: its own headings from the `report.*` catalogue and the rules' messages rendered, in
//! Italian and in English, against the real server on port 0.

use serde_json::{json, Value};
use tercio_i18n::{keys, Lang};
use tercio_web::client::Reply;
use tercio_web::pages::esc;

mod common;

use common::{server, token, Server};

const ITALIAN: (&str, &str) = ("Accept-Language", "it-IT,it;q=0.9");
const ENGLISH: (&str, &str) = ("Accept-Language", "en");
const PAVIA: &str = "callan-renaissance/pavia-1525";

fn call(s: &Server, method: &str, path: &str, lang: (&str, &str), body: Option<&str>) -> Reply {
    s.request(method, path, &[lang], body)
}

/// A new game's seat tokens (game master first, then each side, then spectators).
fn seats(s: &Server, scenario: &str, seed: u64) -> Vec<String> {
    s.create(&json!({"scenario": scenario, "seed": seed}))["links"]
        .as_array()
        .expect("links")
        .iter()
        .map(|l| token(&l["url"]))
        .collect()
}

/// The shipped scenario as the app reads it.
fn shipped(id: &str) -> tercio_rules::scenario::Scenario {
    let sh = tercio_web::scenarios::find(id).expect("shipped");
    tercio_rules::scenario::parse(sh.id, sh.toml).expect("valid")
}

/// The notes' paragraphs as the page writes them: blank lines part them, their lines are kept.
fn paragraphs(notes: &str) -> Vec<String> {
    notes
        .split("\n\n")
        .map(|p| {
            p.lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::trim_end)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// The notes' section of a page, from its opening to its end.
fn notes_section(page: &str) -> &str {
    let at = page
        .find("<section class=\"scenario-notes\"")
        .unwrap_or_else(|| panic!("no scenario notes: {page}"));
    let len = page[at..].find("</section>").expect("section closed");
    &page[at..at + len]
}

#[test]
fn every_seat_reads_the_scenario_notes_and_sources_in_the_info_panel_in_both_languages() {
    let s = server();
    for id in ["el-gran-capitan/cerignola-1503", PAVIA] {
        let sc = shipped(id);
        let notes = sc.notes.clone().expect("the shipped scenario has notes");
        assert!(paragraphs(notes.en()).len() > 1, "{id}: several paragraphs");
        assert!(!sc.sources.is_empty(), "{id}: sources");
        for t in seats(&s, id, 3) {
            for (lang, header) in [(Lang::It, ITALIAN), (Lang::En, ENGLISH)] {
                let page = call(&s, "GET", &format!("/s/{t}"), header, None).body;
                // The section's title on the page; the notes fetched when it is opened.
                let body = call(&s, "GET", &format!("/api/s/{t}/notes"), header, None);
                assert_eq!(body.status, 200, "{}", body.body);
                let section = notes_section(&page).to_string()
                    + body.json()["html"].as_str().unwrap_or_default();
                let section = section.as_str();
                // The notes in the page's language (a scenario gives them in both).
                let paras = paragraphs(notes.get(lang));
                let title = tercio_i18n::t(lang, keys::WEB_GAME_NOTES, &[]);
                assert!(
                    section.starts_with(&format!(
                        "<section class=\"scenario-notes\" id=\"scenario-notes\" data-panel=\"info\"><details data-notes=\"1\"><summary><h2>{}</h2></summary>",
                        esc(&title)
                    )),
                    "{id} {lang:?}: a section of the info panel titled \"{title}\": {section}"
                );
                for p in &paras {
                    assert!(
                        section.contains(&format!("<p>{}</p>", esc(p))),
                        "{id} {lang:?}: the paragraph, escaped, lines kept: {p}"
                    );
                }
                assert!(section.contains(&format!(
                    "<h3>{}</h3>",
                    esc(&tercio_i18n::t(lang, keys::WEB_GAME_SOURCES, &[]))
                )));
                for src in &sc.sources {
                    assert!(
                        section.contains(&format!("<li>{}</li>", esc(src))),
                        "{id} {lang:?}: the source {src}"
                    );
                }
            }
        }
    }
    // The notes' list lines stay lines: Pavia's obstacles are a "- " list under their heading.
    let sc = shipped(PAVIA);
    let notes = sc.notes.clone().expect("notes");
    let vernavola = notes
        .get(Lang::It)
        .lines()
        .find(|l| l.starts_with("- La Vernavola"))
        .expect("the Vernavola's line");
    let t = &seats(&s, PAVIA, 4)[0];
    let notes = call(&s, "GET", &format!("/api/s/{t}/notes"), ITALIAN, None);
    assert_eq!(notes.status, 200, "{}", notes.body);
    assert!(
        notes.json()["html"]
            .as_str()
            .unwrap_or_default()
            .contains(&format!("\n{}\n", esc(vernavola))),
        "the list line on a line of its own"
    );
    // Markup in a pasted scenario's notes and sources is shown as text.
    let evil = "<script>alert(1)</script> & \"x\"";
    let toml = common::tsatf_skirmish("Gendarmes").replacen(
        "title = \"Skirmish\"\n",
        &format!(
            "title = \"Skirmish\"\nnotes = '''\nFirst {evil}\n- a line\n\nSecond'''\nsources = ['{evil}']\n"
        ),
        1,
    );
    let created = s.create(&json!({"scenario": toml, "seed": 1}));
    let t = token(&created["links"][0]["url"]);
    let page = call(&s, "GET", &format!("/s/{t}"), ENGLISH, None).body;
    let fetched = call(&s, "GET", &format!("/api/s/{t}/notes"), ENGLISH, None).json();
    let section = notes_section(&page).to_string() + fetched["html"].as_str().unwrap_or_default();
    let section = section.as_str();
    assert!(!section.contains("<script>"), "{section}");
    assert!(
        section.contains(&format!(
            "<p>First {}\n- a line</p><p>Second</p>",
            esc(evil)
        )),
        "{section}"
    );
    assert!(
        section.contains(&format!("<li>{}</li>", esc(evil))),
        "{section}"
    );
}

/// The game master starts Pavia, draws a card and fires a gun of the side whose card it is (a
/// Joker or a refused fire: another card).
fn pavia_with_a_volley(s: &Server) -> Vec<String> {
    let t = seats(s, PAVIA, 151);
    let act = |a: &Value| {
        call(
            s,
            "POST",
            &format!("/api/s/{}/actions", t[0]),
            ENGLISH,
            Some(&a.to_string()),
        )
    };
    let r = act(&json!({"action": "start"}));
    assert_eq!(r.status, 200, "start: {}", r.body);
    let fires = [
        json!({"action": "fire", "unit": "artiglieria-pesante", "target": "lanzi-frundsberg", "long_bases": 1, "dense": true, "nearest": true}),
        json!({"action": "fire", "unit": "artiglieria-imperiale", "target": "svizzeri-fleuranges", "long_bases": 1, "dense": true, "nearest": true}),
    ];
    for _ in 0..6 {
        let r = act(&json!({"action": "draw"}));
        assert_eq!(r.status, 200, "draw: {}", r.body);
        if fires.iter().any(|f| act(f).status == 200) {
            return t;
        }
    }
    panic!("no gun could fire after six cards");
}

#[test]
fn the_battle_report_of_a_callan_game_reads_in_italian_and_in_english() {
    let s = server();
    let t = pavia_with_a_volley(&s);
    let fire = |lang| tercio_i18n::t(lang, keys::CALLAN_ACTION_FIRE, &[]);
    assert_eq!(fire(Lang::It), "Tiro");
    for seat in &t {
        let r = call(&s, "GET", &format!("/s/{seat}/report.md"), ITALIAN, None);
        assert_eq!(r.status, 200, "{}", r.body);
        let md = r.body;
        for heading in [
            "## Risultato",
            "## Soglie di rotta, turno per turno",
            "## Registro",
            "## Dadi",
        ] {
            assert!(md.contains(heading), "Italian: no {heading}: {md}");
        }
        assert!(md.contains("Regolamento: "), "{md}");
        assert!(
            md.contains("Non ancora decisa: la partita è al turno 1."),
            "{md}"
        );
        assert!(md.contains("Il seme viene rivelato alla fine della partita."));
        assert!(md.contains(" unità, "), "the armies' line: {md}");
        assert!(md.contains(&format!("**{}**", fire(Lang::It))), "{md}");
        assert!(md.contains("**Inizia la battaglia**"), "{md}");
        assert!(md.contains("— dadi "), "the volley's dice: {md}");
        for raw in ['⟦', '⟧'] {
            assert!(!md.contains(raw), "a marker in the Italian report: {md}");
        }
        for raw in ["callan.", "report."] {
            assert!(!md.contains(raw), "{raw} in the Italian report: {md}");
        }
        for english in ["## Result", "## Log", "Break points", "Not decided"] {
            assert!(!md.contains(english), "{english} in Italian: {md}");
        }

        let md = call(&s, "GET", &format!("/s/{seat}/report.md"), ENGLISH, None).body;
        for heading in [
            "## Result",
            "## Break points, turn by turn",
            "## Log",
            "## Dice",
        ] {
            assert!(md.contains(heading), "English: no {heading}: {md}");
        }
        assert!(md.contains("Not decided: the game stands in turn 1."));
        assert!(md.contains("The seed is revealed when the game ends."));
        assert!(md.contains(&format!("**{}**", fire(Lang::En))), "{md}");
        assert!(md.contains("— dice "), "{md}");
        assert!(!md.contains('⟦') && !md.contains("callan.") && !md.contains("report."));
    }
}
