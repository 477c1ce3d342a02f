//! Plain words in both languages (issue 43, item 6): the scenario's texts on every page in the
//! page's language, and no id, citation, option key or script residue in anything a player reads.

use serde_json::json;
use tercio_i18n::Lang;
use tercio_rules::scenario::{self, Text};

mod common;

use common::{server, Server};

const ITALIAN: (&str, &str) = ("Accept-Language", "it-IT,it;q=0.9");
const ENGLISH: (&str, &str) = ("Accept-Language", "en-GB,en;q=0.9");

fn header(lang: Lang) -> (&'static str, &'static str) {
    match lang {
        Lang::It => ITALIAN,
        Lang::En => ENGLISH,
    }
}

/// A page's visible text: no scripts, no tags, entities decoded, and without the modifiers'
/// citations behind their "sources" disclosure (`<details class="sources">`), which is where
/// citations belong.
fn visible_text(page: &str) -> String {
    common::text_without(
        page,
        &[
            ("<script", "</script>"),
            ("<details class=\"sources\">", "</details>"),
        ],
    )
}

/// A rule set's example game, started, and played through the game master's link in `lang`: its
/// links (game master first, spectators last) and its scenario as the shipped file gives it.
fn played(s: &Server, rules: &str, lang: Lang) -> (Vec<String>, scenario::Scenario) {
    let (id, seed, mut steps) = common::example_game(rules);
    common::on_one_device(&mut steps);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = format!("scenarios/{id}.toml");
    let sc = scenario::parse(
        &path,
        &std::fs::read_to_string(root.join(&path)).expect("scenario"),
    )
    .unwrap_or_else(|d| panic!("{d:?}"));
    let links = common::tokens(&s.create(&json!({"scenario": id, "seed": seed})));
    for (_, a) in &steps {
        s.request(
            "POST",
            &format!("/api/s/{}/actions", links[0]),
            &[header(lang)],
            Some(&a.to_string()),
        );
    }
    (links, sc)
}

/// Every text a player reads in the scenario, each with its name in the file.
fn texts(sc: &scenario::Scenario) -> Vec<(String, &Text)> {
    let mut out: Vec<(String, &Text)> = vec![("title".into(), &sc.title)];
    out.extend(sc.place.iter().map(|p| ("place".to_string(), p)));
    out.extend(sc.notes.iter().map(|n| ("notes".to_string(), n)));
    out.extend(sc.sides.iter().map(|x| (format!("side {}", x.id), &x.name)));
    out.extend(
        sc.leaders
            .iter()
            .map(|x| (format!("leader {}", x.id), &x.name)),
    );
    out.extend(sc.units.iter().map(|x| (format!("unit {}", x.id), &x.name)));
    out
}

/// The phrases of a text in one language that the other language does not share: a name whole,
/// the notes line by line (short lines, which may be a number or a heading, left out). A phrase
/// that a text of the other language also holds (a proper name: "Azincourt" in the place of both)
/// is not one.
fn phrases(t: &Text, lang: Lang, others: &str) -> Vec<String> {
    let (mine, other) = match lang {
        Lang::En => (t.get(Lang::En), t.get(Lang::It)),
        Lang::It => (t.get(Lang::It), t.get(Lang::En)),
    };
    if mine == other {
        return Vec::new();
    }
    mine.lines()
        .map(str::trim)
        .filter(|l| l.chars().count() > 12 || !l.contains(' ') && l.len() > 3)
        .filter(|l| !other.contains(l) && !others.contains(l))
        .map(String::from)
        .collect()
}

/// The game master's page of each rule set's example game, played, in Italian shows none of the
/// English texts of its scenario (its names, title, place and notes), and in English none of the
/// Italian; the JSON view gives the names in the request's language. (Fails on the scenarios as
/// they were, English only but for Callan's, and on a page that shows a text in one language
/// whatever the request's.)
#[test]
fn every_game_masters_page_gives_the_scenarios_texts_in_its_own_language() {
    let s = server();
    for rules in common::RULE_SETS {
        let (links, sc) = played(&s, rules, Lang::It);
        let gm = &links[0];
        let mut problems = Vec::new();
        let mut translated = 0;
        for lang in Lang::ALL {
            let other = match lang {
                Lang::It => Lang::En,
                Lang::En => Lang::It,
            };
            // The sources (books, with their titles) are given as written, in no language.
            let mut page = s
                .request("GET", &format!("/s/{gm}"), &[header(lang)], None)
                .body;
            if let Some(i) = page.find("<ul class=\"sources\">") {
                let end = page[i..].find("</ul>").map_or(page.len(), |j| i + j);
                page.replace_range(i..end, " ");
            }
            let page = visible_text(&page);
            let own: String = texts(&sc)
                .iter()
                .map(|(_, t)| t.get(lang))
                .collect::<Vec<_>>()
                .join("\n");
            let view = s
                .request("GET", &format!("/api/s/{gm}"), &[header(lang)], None)
                .json();
            for (what, t) in texts(&sc) {
                for p in phrases(t, other, &own) {
                    translated += 1;
                    if page.contains(&p) {
                        problems.push(format!("{lang:?} page shows the {other:?} {what}: {p}"));
                    }
                }
            }
            // The view's names: each side's in the request's language.
            for (i, side) in sc.sides.iter().enumerate() {
                let name = &view["scenario"]["sides"][i]["name"];
                if name != &json!(side.name.get(lang)) {
                    problems.push(format!("{lang:?} view: side {}: {name}", side.id));
                }
            }
            if view["title"] != json!(sc.title.get(lang)) {
                problems.push(format!("{lang:?} view: title {}", view["title"]));
            }
            // And the page names the units it lists, in its language.
            let named = sc
                .units
                .iter()
                .filter(|u| page.contains(u.name.get(lang)))
                .count();
            if named * 2 < sc.units.len() {
                problems.push(format!(
                    "{lang:?} page names {named} of {} units in its language",
                    sc.units.len()
                ));
            }
        }
        assert!(translated > 20, "{rules}: {translated} texts compared");
        assert!(problems.is_empty(), "{rules}:\n{}", problems.join("\n"));
    }
}

/// Whether `text` holds `word` as a whole token (not inside a longer id or word).
fn has_token(text: &str, word: &str) -> bool {
    let ok = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'));
    text.match_indices(word).any(|(i, _)| {
        ok(text[..i].chars().next_back()) && ok(text[i + word.len()..].chars().next())
    })
}

/// What a player must never read: the marks of an internal word, each with the line it is in.
fn internal_words(text: &str, ids: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let mut why = Vec::new();
        for mark in ["⟦", "§", "undefined", "NaN"] {
            if line.contains(mark) {
                why.push(mark.to_string());
            }
        }
        // A seed's citation: "001, FIRE", "(003, Tiro".
        let b = line.as_bytes();
        for i in 0..b.len().saturating_sub(4) {
            // Not the end of a number ("5.000, ", "7,000, ").
            let after_number = i > 1 && b".,".contains(&b[i - 1]) && b[i - 2].is_ascii_digit();
            let start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || after_number);
            if start
                && b[i..i + 3].iter().all(u8::is_ascii_digit)
                && b[i] == b'0'
                && &b[i + 3..i + 5] == b", "
            {
                why.push("a citation".into());
                break;
            }
        }
        // A dotted option key or field name: `callan.fog`, `options.company_close_combat`.
        for prefix in [
            "callan.",
            "options.",
            "ecw.",
            "sword_and_flame.",
            "app_driven.",
            "house_rules.",
        ] {
            if line.match_indices(prefix).any(|(i, _)| {
                line[..i]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric())
                    && line[i + prefix.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_lowercase())
            }) {
                why.push(prefix.to_string());
            }
        }
        for id in ids {
            if has_token(line, id) {
                why.push(format!("the id {id}"));
            }
        }
        if !why.is_empty() {
            found.push(format!("{} in: {line}", why.join(", ")));
        }
    }
    found
}

/// The game master's, a side's and a spectator's page of every rule set, in both languages, at
/// the start and after its example game, show no id of the scenario (the ids with a dash or an
/// underscore: a plain word may also be a word of the text), no seed citation (`001, `), no `§`,
/// no dotted option key, no `⟦`, `undefined` or `NaN`. (Fails on the pages as they were: the
/// Sword and Flame and ECW armies titled each unit by its id, Callan showed "Id" rows, and Sword and
/// Flame's refusals cited the seed.)
#[test]
fn no_page_a_player_reads_shows_an_id_citation_or_option_key() {
    let s = server();
    let mut problems = Vec::new();
    for rules in common::RULE_SETS {
        for lang in Lang::ALL {
            let (id, seed, _) = common::example_game(rules);
            let fresh = common::tokens(&s.create(&json!({"scenario": id, "seed": seed})));
            let (links, sc) = played(&s, rules, lang);
            let ids: Vec<String> = sc
                .sides
                .iter()
                .map(|x| x.id.clone())
                .chain(sc.leaders.iter().map(|x| x.id.clone()))
                .chain(sc.units.iter().map(|x| x.id.clone()))
                .filter(|id| id.contains(['-', '_']))
                .collect();
            for (when, links) in [("at the start", &fresh), ("after the game", &links)] {
                let seats = [
                    ("game master", &links[0]),
                    ("a side", &links[1]),
                    ("a spectator", &links[links.len() - 1]),
                ];
                for (seat, t) in seats {
                    let page = s.request("GET", &format!("/s/{t}"), &[header(lang)], None);
                    assert_eq!(page.status, 200, "{rules} {seat}");
                    for p in internal_words(&visible_text(&page.body), &ids) {
                        problems.push(format!("{rules}, {lang:?}, {seat} {when}: {p}"));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} internal words:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The matcher itself: each kind of internal word is found, and plain text is not.
#[test]
fn the_internal_words_are_told_apart_from_plain_text() {
    let ids = ["stein-swiss-first".to_string()];
    for bad in [
        "Svizzeri (stein-swiss-first)",
        "non evade (001, EVASION)",
        "003, Tiro › Qual è il danno? (§6.2)",
        "Nebbia: callan.fog = 1",
        "(options.company_close_combat)",
        "⟦web.x⟧",
        "NaN%",
        "undefined",
    ] {
        assert_eq!(internal_words(bad, &ids).len(), 1, "{bad}");
    }
    for good in [
        "Svizzeri della prima colonna (primo quadrato)",
        "circa 100, la batteria",
        "1,600 Irish, 800 Highlanders",
        "Elcho 7,000, 6,000 foot",
        "(Fleuranges 5.000, Montmorency 3.000)",
        "stein-swiss-firsts",
        "e.g. a note",
    ] {
        assert!(internal_words(good, &ids).is_empty(), "{good}");
    }
}

/// Each rule set's rules page, in both languages, reads in plain words: no seed file name, seed
/// citation or `§` outside its "source" disclosures, where every citation still is. (Fails on the
/// page as it was, with the seed's file name in its introduction and a column of citations in
/// each chart.)
#[test]
fn the_rules_pages_keep_their_citations_one_tap_away() {
    let s = server();
    for rules in common::RULE_SETS {
        for lang in Lang::ALL {
            let page = s
                .request("GET", &format!("/rules/{rules}"), &[header(lang)], None)
                .body;
            // The house rules' table names the keys a scenario's author writes: that is its use.
            let mut charts = page.clone();
            if let Some(i) = charts.find("<tbody id=\"ref-house\">") {
                let end = charts[i..].find("</tbody>").map_or(charts.len(), |j| i + j);
                charts.replace_range(i..end, " ");
            }
            let shown = visible_text(&charts);
            let mut problems = internal_words(&shown, &[]);
            if shown.contains(".txt") {
                problems.push("the seed's file name".into());
            }
            assert!(
                problems.is_empty(),
                "{rules} {lang:?}:\n{}",
                problems.join("\n")
            );
            assert!(
                page.contains("<details class=\"sources\"") && page.contains(".txt"),
                "{rules} {lang:?}: the sources one tap away"
            );
        }
    }
}
