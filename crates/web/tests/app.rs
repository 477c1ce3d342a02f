//! The game page as a phone app (issue 43, items 4, 8 and 9): no browser dialog in any script,
//! the web manifest and the service worker, and what each seat's page says it may do.

mod common;

use serde_json::{json, Value};

/// No script of the pages asks through the browser's dialogs (`alert`, `confirm`, `prompt`):
/// every question and confirmation is in the page. (The game page confirmed undo with
/// `window.confirm`, and answered the rules' questions with it, "Cancel" rolling as a no.)
#[test]
fn no_script_opens_a_browser_dialog() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mut seen = 0;
    for entry in std::fs::read_dir(&root).expect("assets") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|x| x != "js") {
            continue;
        }
        seen += 1;
        let text = std::fs::read_to_string(&path).expect("read");
        for call in ["alert(", "confirm(", "prompt("] {
            for (i, _) in text.match_indices(call) {
                // A call, not a word ending in it (`confirmAt(`).
                let before = text[..i].chars().next_back().unwrap_or(' ');
                assert!(
                    before.is_alphanumeric() || before == '_',
                    "{} calls {call}",
                    path.display()
                );
            }
        }
    }
    assert!(seen >= 3, "the scripts are found");
}

/// The manifest names the app in the request's language, with its icon and theme colour; the
/// service worker is served at the root (its scope: the whole site), revalidated; every page
/// links the manifest.
#[test]
fn the_manifest_and_the_service_worker_are_served() {
    let s = common::server();
    for (lang, description) in [("it", "arbitro"), ("en", "game master")] {
        let r = s.request(
            "GET",
            &format!("/manifest.webmanifest?lang={lang}"),
            &[],
            None,
        );
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(r.headers("content-type")[0].starts_with("application/manifest+json"));
        let m: Value = serde_json::from_str(&r.body).expect("json");
        assert_eq!(m["name"], "Tercio");
        assert_eq!(m["lang"], lang);
        assert!(
            m["description"]
                .as_str()
                .is_some_and(|d| d.contains(description)),
            "{m}"
        );
        assert_eq!(m["display"], "standalone");
        assert_eq!(m["theme_color"], "#8a1c1c");
        let icon = m["icons"][0]["src"].as_str().expect("icon");
        assert_eq!(s.request("GET", icon, &[], None).status, 200, "{icon}");
    }
    let r = s.request("GET", "/sw.js", &[], None);
    assert_eq!(r.status, 200);
    assert!(r.headers("content-type")[0].starts_with("text/javascript"));
    assert_eq!(r.headers("cache-control"), vec!["no-cache"]);
    assert!(r.body.contains("addEventListener(\"fetch\""), "{}", r.body);
    let links = s.links("el-gran-capitan/cerignola-1503");
    let page = s
        .request("GET", &format!("/s/{}", links[0]), &[], None)
        .body;
    assert!(
        page.contains("<link rel=\"manifest\" href=\"/manifest.webmanifest?lang=")
            && page.contains("<meta name=\"theme-color\""),
        "{page}"
    );
    // No dialog element on the game page either: results are in the page, table dice in a
    // sheet at its foot (issue 43, items 4 and 5).
    assert!(!page.contains("<dialog"), "{page}");
}

/// Each seat's page says what it may do (issue 43, item 8), in both languages: the game master
/// resolves every action; a side watches, or resolves its own units' actions once the game
/// master allows it; a spectator watches.
#[test]
fn each_seat_says_what_it_may_do() {
    let s = common::server();
    let links = s.links("el-gran-capitan/cerignola-1503");
    let part = |token: &str, lang: &str| {
        let page = s
            .request("GET", &format!("/s/{token}?lang={lang}"), &[], None)
            .body;
        let at = page.find("<p id=\"part\" class=\"part\">").expect("part") + 26;
        page[at..at + page[at..].find("</p>").expect("end")].to_string()
    };
    let (gm, side, spectator) = (&links[0], &links[1], links.last().expect("spectator"));
    assert_eq!(part(gm, "en"), "You resolve every action.");
    assert_eq!(part(side, "en"), "You watch; the game master resolves.");
    assert_eq!(part(side, "it"), "Guardi; risolve l&#39;arbitro.");
    assert_eq!(part(spectator, "en"), "You watch.");
    assert_eq!(part(spectator, "it"), "Guardi.");
    let r = s.request(
        "POST",
        &format!("/api/s/{gm}/settings"),
        &[("content-type", "application/json")],
        Some(&json!({"side_rights": "own-units"}).to_string()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        part(side, "en"),
        "You resolve your own units&#39; actions; the game master resolves the rest."
    );
    assert_eq!(part(spectator, "en"), "You watch.");
}
