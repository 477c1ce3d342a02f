use super::*;

fn keys_of(lang: Lang) -> Vec<&'static str> {
    entries(lang).iter().map(|(k, _)| *k).collect()
}

#[test]
fn every_key_is_in_both_languages() {
    let it = keys_of(Lang::It);
    let en = keys_of(Lang::En);
    let only_it: Vec<_> = it.iter().filter(|k| !en.contains(k)).collect();
    let only_en: Vec<_> = en.iter().filter(|k| !it.contains(k)).collect();
    assert!(only_it.is_empty(), "only in Italian: {only_it:?}");
    assert!(only_en.is_empty(), "only in English: {only_en:?}");
    assert!(it.len() >= 5, "the catalogues are read: {} keys", it.len());
}

#[test]
fn every_key_has_the_same_placeholders_in_both_languages() {
    for (key, it) in entries(Lang::It) {
        let en = lookup(Lang::En, key).unwrap_or_else(|| panic!("{key} missing in en"));
        let mut a = placeholders(it);
        let mut b = placeholders(en);
        if key.ends_with(".one") || key.ends_with(".other") {
            // A plural's form may spell the number out; its other placeholders agree.
            a.retain(|p| *p != "count");
            b.retain(|p| *p != "count");
        }
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "{key}: placeholders differ between it and en");
    }
}

#[test]
fn catalogues_are_sorted_for_lookup_and_every_text_is_non_empty() {
    for lang in Lang::ALL {
        let e = entries(lang);
        assert!(e.windows(2).all(|w| w[0].0 < w[1].0), "{lang} is sorted");
        for (k, v) in e {
            assert!(!v.trim().is_empty(), "{lang} {k} is empty");
            assert!(k.contains('.'), "{lang} {k} has an area");
        }
    }
}

#[test]
fn key_constants_name_the_keys() {
    assert_eq!(keys::WEB_LANG_SWITCH, "web.lang.switch");
    // A plural's parent is a constant too.
    assert_eq!(keys::WEB_GAMES_EVENTS, "web.games.events");
    assert!(has(Lang::It, keys::WEB_GAMES_EVENTS));
    assert!(!has(Lang::It, "web.no.such.key"));
}

#[test]
fn rendering_with_placeholders() {
    assert_eq!(
        t(Lang::It, keys::WEB_GAMES_TURN, &[("turn", "3")]),
        "turno 3"
    );
    assert_eq!(
        t(Lang::En, keys::WEB_GAMES_TURN, &[("turn", "3")]),
        "turn 3"
    );
    assert_eq!(t(Lang::En, keys::WEB_LANG_SWITCH, &[]), "Language");
    assert_eq!(t(Lang::It, keys::WEB_LANG_SWITCH, &[]), "Lingua");
    // An argument the text does not use is ignored; a missing one leaves the placeholder.
    assert_eq!(
        t(Lang::En, keys::WEB_GAMES_TURN, &[("x", "1"), ("turn", "2")]),
        "turn 2"
    );
    assert_eq!(t(Lang::En, keys::WEB_GAMES_TURN, &[]), "turn {turn}");
    // A missing key renders as itself.
    assert_eq!(t(Lang::It, "web.no.such.key", &[]), "web.no.such.key");
}

#[test]
fn fill_leaves_braces_that_are_not_placeholders() {
    assert_eq!(fill("a {b c} {d", &[("d", "x")]), "a {b c} {d");
    assert_eq!(fill("{a}{b}", &[("a", "1"), ("b", "{a}")]), "1{a}");
    assert_eq!(fill("{}", &[]), "{}");
}

#[test]
fn an_inline_plural_takes_the_word_of_its_own_number() {
    let text = "{bases} {bases|base|bases} at {per} {per|die|dice} each";
    assert_eq!(
        fill(text, &[("bases", "1"), ("per", "2")]),
        "1 base at 2 dice each"
    );
    assert_eq!(
        fill(text, &[("bases", "3"), ("per", "1")]),
        "3 bases at 1 die each"
    );
    // Without its number: the other word. Not three parts: braces as written.
    assert_eq!(fill("{n|a|b}", &[]), "b");
    assert_eq!(fill("{n|a}", &[("n", "1")]), "{n|a}");
    assert_eq!(placeholders(text), vec!["bases", "per"]);
    assert_eq!(
        crate::check::placeholders(text)
            .into_iter()
            .collect::<Vec<_>>(),
        vec!["bases".to_string(), "per".to_string()]
    );
}

#[test]
fn plurals_choose_one_for_one_and_other_for_anything_else() {
    let ev = |lang, n: &str| t(lang, keys::WEB_GAMES_EVENTS, &[("count", n)]);
    assert_eq!(ev(Lang::It, "1"), "1 evento");
    assert_eq!(ev(Lang::It, "0"), "0 eventi");
    assert_eq!(ev(Lang::It, "2"), "2 eventi");
    assert_eq!(ev(Lang::En, "1"), "1 event");
    assert_eq!(ev(Lang::En, "12"), "12 events");
    assert_eq!(ev(Lang::En, "1.0"), "1.0 event");
    // Without a count: the other form.
    assert_eq!(t(Lang::En, keys::WEB_GAMES_EVENTS, &[]), "{count} events");
    // The forms are keys of their own as well.
    assert_eq!(
        t(Lang::En, "web.games.events.one", &[("count", "1")]),
        "1 event"
    );
}

#[test]
fn a_message_renders_in_each_language() {
    let m = msg(keys::WEB_GAMES_TURN, &[("turn", "4")]);
    assert_eq!(m, "⟦web.games.turn|turn=4⟧");
    assert_eq!(localize(Lang::It, &m), "turno 4");
    assert_eq!(localize(Lang::En, &m), "turn 4");
    // Inside other text, several times.
    let s = format!("[{m}] and [{}]", msg(keys::WEB_LANG_SWITCH, &[]));
    assert_eq!(localize(Lang::It, &s), "[turno 4] and [Lingua]");
    // A plural inside a message.
    let p = msg(keys::WEB_GAMES_EVENTS, &[("count", "1")]);
    assert_eq!(localize(Lang::It, &p), "1 evento");
}

#[test]
fn plain_text_passes_through_untouched() {
    for s in [
        "",
        "Swiss pike charge: 2D6 + 3 = 11 (Disordered)",
        "back\\slash | pipe = equals {turn} @web.lang.it #12.5",
        "a lone ⟦ bracket",
        "a lone ⟧ bracket",
        "⟦unclosed|a=b",
        "⟦|a=b⟧ (no key)",
        "⟦k|noequals⟧",
        "⟦k|=v⟧",
        "⟦two words⟧",
        "⟦k|a b=c⟧",
    ] {
        assert_eq!(localize(Lang::It, s), s);
        assert_eq!(localize(Lang::En, s), s);
    }
    // A malformed marker is left alone, and a good one after it still renders.
    assert_eq!(
        localize(Lang::It, "⟦oops ⟦web.lang.switch⟧"),
        "⟦oops Lingua"
    );
}

#[test]
fn escapes_round_trip() {
    // Brackets that make no marker are plain text (a well-formed one would be a nested message).
    let nasty = "a|b=c\\d⟦e f⟧g {turn} ⟦|⟧";
    let m = msg(keys::WEB_GAMES_TURN, &[("turn", nasty)]);
    assert_eq!(localize(Lang::En, &m), format!("turn {nasty}"));
    assert_eq!(localize(Lang::It, &m), format!("turno {nasty}"));
    // Syntax characters in a key or a name are escaped, so the message stays one message (a
    // marker whose key or name is not made of key characters is not rendered).
    let odd = msg("k|x", &[("n=m", "v")]);
    assert_eq!(odd, "⟦k\\|x|n\\=m=v⟧");
    assert_eq!(localize(Lang::En, &odd), odd);
}

#[test]
fn key_and_number_arguments() {
    let m = msg(keys::WEB_GAMES_TURN, &[("turn", "@web.lang.it")]);
    assert_eq!(localize(Lang::En, &m), "turn Italiano");
    // A '@' value naming no key, a '#' value that is no number: as written.
    let m = msg(keys::WEB_GAMES_TURN, &[("turn", "@home")]);
    assert_eq!(localize(Lang::En, &m), "turn @home");
    let m = msg(keys::WEB_GAMES_TURN, &[("turn", "#3 Company")]);
    assert_eq!(localize(Lang::En, &m), "turn #3 Company");
    // Numbers take the language's separator, the places as written.
    let m = msg(keys::WEB_GAMES_TURN, &[("turn", &num(59.2912, 2))]);
    assert_eq!(localize(Lang::It, &m), "turno 59,29");
    assert_eq!(localize(Lang::En, &m), "turn 59.29");
    let m = msg(keys::WEB_GAMES_TURN, &[("turn", &pct(0.5929, 2))]);
    assert_eq!(localize(Lang::It, &m), "turno 59,29%");
    assert_eq!(localize(Lang::En, &m), "turn 59.29%");
    let m = msg(keys::WEB_GAMES_TURN, &[("turn", "#-3")]);
    assert_eq!(localize(Lang::It, &m), "turno -3");
    for bad in ["#", "#.5", "#5.", "#1.2.3", "#1e3", "#--1"] {
        let m = msg(keys::WEB_GAMES_TURN, &[("turn", bad)]);
        assert_eq!(localize(Lang::It, &m), format!("turno {bad}"), "{bad}");
    }
    // A number as a plural's count.
    let m = msg(keys::WEB_GAMES_EVENTS, &[("count", "#1")]);
    assert_eq!(localize(Lang::It, &m), "1 evento");
}

#[test]
fn nested_messages_render_inside_arguments() {
    let inner = msg(keys::WEB_GAMES_EVENTS, &[("count", "3")]);
    let outer = msg(keys::WEB_GAMES_TURN, &[("turn", &format!("({inner}) a|b"))]);
    // The nested marker is kept whole, the text around it escaped.
    assert_eq!(
        outer,
        "⟦web.games.turn|turn=(⟦web.games.events|count=3⟧) a\\|b⟧"
    );
    assert_eq!(localize(Lang::It, &outer), "turno (3 eventi) a|b");
    assert_eq!(localize(Lang::En, &outer), "turn (3 events) a|b");
    // Three levels deep, with escapes at each.
    let l3 = msg(keys::WEB_GAMES_TURN, &[("turn", "x=y")]);
    let l2 = msg(keys::WEB_GAMES_TURN, &[("turn", &l3)]);
    let l1 = msg(keys::WEB_GAMES_TURN, &[("turn", &format!("{l2}|{l2}"))]);
    assert_eq!(localize(Lang::En, &l1), "turn turn turn x=y|turn turn x=y");
    // A value that is only a nested message, and one whose key is an '@' reference.
    let l = msg(
        keys::WEB_GAMES_TURN,
        &[("turn", &msg(keys::WEB_LANG_SWITCH, &[]))],
    );
    assert_eq!(localize(Lang::It, &l), "turno Lingua");
}

#[test]
fn a_missing_key_in_a_message_renders_as_the_key() {
    let m = msg("web.no.such", &[("a", "b")]);
    assert_eq!(localize(Lang::En, &m), "web.no.such");
}

#[test]
fn json_strings_are_localized_and_keys_left_alone() {
    let m = msg(keys::WEB_GAMES_TURN, &[("turn", "2")]);
    let mut v = serde_json::json!({
        m.clone(): m.clone(),
        "list": [m.clone(), 3, null, true, {"deep": format!("x {m}")}],
        "plain": "Swiss pike",
    });
    localize_json(Lang::It, &mut v);
    assert_eq!(v[&m], "turno 2");
    assert_eq!(v["list"][0], "turno 2");
    assert_eq!(v["list"][1], 3);
    assert_eq!(v["list"][4]["deep"], "x turno 2");
    assert_eq!(v["plain"], "Swiss pike");
}

#[test]
fn json_written_localized_is_json_localized_then_written() {
    let m = msg(keys::WEB_GAMES_TURN, &[("turn", "2")]);
    let long = format!("{m} {}", "a".repeat(600));
    let v = serde_json::json!({
        m.clone(): m.clone(),
        "list": [m.clone(), 3, -1.5, null, true, {"deep": format!("x {m}"), "long": long}],
        "plain": "Swiss \"pike\"\n",
        "empty": {},
        "none": [],
    });
    for lang in Lang::ALL {
        // Twice: rendered, then found again where it is kept.
        for _ in 0..2 {
            let mut expected = v.clone();
            localize_json(lang, &mut expected);
            let written = localized_json(lang, &v);
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&expected).unwrap()
            );
        }
    }
    assert!(String::from_utf8(localized_json(Lang::It, &v))
        .unwrap()
        .contains("\"turno 2\""));
}

#[test]
fn language_codes() {
    assert_eq!(Lang::default(), Lang::En);
    assert_eq!(Lang::ALL, [Lang::It, Lang::En]);
    for l in Lang::ALL {
        assert_eq!(Lang::from_code(l.code()), Some(l));
        assert_eq!(l.to_string(), l.code());
    }
    assert_eq!(Lang::from_code("IT"), Some(Lang::It));
    assert_eq!(Lang::from_code(" it-IT "), Some(Lang::It));
    assert_eq!(Lang::from_code("it_IT.UTF-8"), Some(Lang::It));
    assert_eq!(Lang::from_code("en-GB"), Some(Lang::En));
    assert_eq!(Lang::from_code("en_US.UTF-8"), Some(Lang::En));
    for bad in ["", "xx", "fr", "italian", "i", "C", "POSIX"] {
        assert_eq!(Lang::from_code(bad), None, "{bad}");
    }
}

#[test]
fn negotiation_by_q_value() {
    let n = Lang::negotiate;
    assert_eq!(n("it-IT,it;q=0.9,en;q=0.8"), Some(Lang::It));
    assert_eq!(n("it-IT,it;q=0.9"), Some(Lang::It));
    assert_eq!(n("en-US,en;q=0.9,it;q=0.8"), Some(Lang::En));
    assert_eq!(n("fr-FR,fr;q=0.9,it;q=0.5,en;q=0.4"), Some(Lang::It));
    assert_eq!(n("fr-FR,fr;q=0.9,en;q=0.5,it;q=0.4"), Some(Lang::En));
    // Order by q, not by position.
    assert_eq!(n("en;q=0.2, it;q=0.7"), Some(Lang::It));
    // A tie keeps the earlier.
    assert_eq!(n("it, en"), Some(Lang::It));
    assert_eq!(n("en, it"), Some(Lang::En));
    // q=0 refuses.
    assert_eq!(n("it;q=0, en;q=0.1"), Some(Lang::En));
    assert_eq!(n("it;q=0"), None);
    // Neither language, nothing, or junk.
    assert_eq!(n("fr, de;q=0.5, *;q=0.1"), None);
    assert_eq!(n(""), None);
    assert_eq!(n(";;,,q=,=;"), None);
    // Spacing, case and a malformed q.
    assert_eq!(n("  IT-it ; Q=0.3 , en ; q=0.2 "), Some(Lang::It));
    assert_eq!(n("en;q=abc, it;q=0.9"), Some(Lang::En));
}

#[test]
fn number_formats() {
    assert_eq!(fmt_decimal(Lang::It, 59.2912, 2), "59,29");
    assert_eq!(fmt_decimal(Lang::En, 59.2912, 2), "59.29");
    assert_eq!(fmt_decimal(Lang::It, 3.0, 0), "3");
    assert_eq!(fmt_decimal(Lang::It, 1234.5, 1), "1234,5");
    assert_eq!(fmt_decimal(Lang::En, -0.001, 2), "0.00");
    assert_eq!(fmt_decimal(Lang::It, -2.5, 1), "-2,5");
    assert_eq!(fmt_pct(Lang::It, 0.5929, 2), "59,29%");
    assert_eq!(fmt_pct(Lang::En, 0.5929, 2), "59.29%");
    assert_eq!(fmt_pct(Lang::En, 1.0, 0), "100%");
    assert_eq!(num(2.0 / 3.0, 3), "#0.667");
    assert_eq!(pct(0.5, 1), "#50.0%");
}

/// The checks the build runs on the catalogues: each problem fails the build, naming the file,
/// the key and the reason.
mod build_checks {
    use crate::check::{add_file, check_languages, constants, Catalogue};

    /// Two languages from (file, text) pairs, and the problems found.
    fn run(it: &[(&str, &str)], en: &[(&str, &str)]) -> Vec<String> {
        let mut problems = Vec::new();
        let mut cats = Vec::new();
        for (lang, files) in [("it", it), ("en", en)] {
            let mut cat = Catalogue::new();
            for (name, text) in files {
                let shown = format!("locales/{lang}/{name}.toml");
                add_file(&mut cat, &shown, name, text, &mut problems);
            }
            cats.push(cat);
        }
        check_languages(&cats, &mut problems);
        if let Err(clash) = constants(&cats) {
            problems.extend(clash);
        }
        problems
    }

    #[test]
    fn matching_catalogues_pass_and_nest() {
        let it =
            "[web.a]\nb = \"ciao {name}\"\nn.one = \"un pezzo\"\nn.other = \"{count} pezzi\"\n";
        let en = "web.a.b = \"hello {name}\"\n[web.a.n]\none = \"{count} piece\"\nother = \"{count} pieces\"\n";
        assert_eq!(run(&[("web", it)], &[("web", en)]), Vec::<String>::new());
        // Several areas, each in its own file.
        let p = run(
            &[("web", "web.x = \"a\""), ("callan", "callan.y = \"b\"")],
            &[("callan", "callan.y = \"B\""), ("web", "web.x = \"A\"")],
        );
        assert!(p.is_empty(), "{p:?}");
    }

    #[test]
    fn a_key_missing_in_one_language_is_named_with_its_file() {
        let p = run(
            &[("web", "web.a = \"x\"\nweb.b = \"y\"")],
            &[("web", "web.a = \"X\"")],
        );
        assert_eq!(
            p,
            vec!["locales/en/web.toml: key web.b: missing in en (present in it)".to_string()]
        );
        let p = run(
            &[("web", "web.a = \"x\"")],
            &[("web", "web.a = \"X\"\nweb.c = \"Z\"")],
        );
        assert_eq!(
            p,
            vec!["locales/it/web.toml: key web.c: missing in it (present in en)".to_string()]
        );
    }

    #[test]
    fn different_placeholders_are_named() {
        let p = run(
            &[("web", "web.a = \"{x} e {y}\"")],
            &[("web", "web.a = \"{x} and {z}\"")],
        );
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("locales/it/web.toml: key web.a: placeholders")
                && p[0].contains("\"y\"")
                && p[0].contains("\"z\""),
            "{p:?}"
        );
        // A plural's forms together, `count` aside: one form may spell the number out.
        let it = "web.n.one = \"uno\"\nweb.n.other = \"{count} in {place}\"";
        let en = "web.n.one = \"{count} in {place}\"\nweb.n.other = \"{count} in {place}\"";
        assert!(run(&[("web", it)], &[("web", en)]).is_empty());
        let en = "web.n.one = \"one\"\nweb.n.other = \"{count}\"";
        let p = run(&[("web", it)], &[("web", en)]);
        assert!(
            p.len() == 1 && p[0].contains("key web.n.other: placeholders"),
            "{p:?}"
        );
    }

    #[test]
    fn bad_files_keys_and_values_are_named() {
        let p = run(&[("web", "web.a = ")], &[("web", "")]);
        assert!(
            p[0].starts_with("locales/it/web.toml: not valid TOML"),
            "{p:?}"
        );
        let p = run(&[("web", "web.a = 3")], &[("web", "web.a = 3")]);
        assert!(
            p.contains(
                &"locales/it/web.toml: key web.a: must be a string, found integer".to_string()
            ),
            "{p:?}"
        );
        let p = run(
            &[("web", "callan.a = \"x\"")],
            &[("web", "callan.a = \"x\"")],
        );
        assert!(
            p[0].contains("key callan.a: outside this file's area"),
            "{p:?}"
        );
        let p = run(&[("web", "web.\"A b\" = \"x\"")], &[("web", "")]);
        assert!(
            p[0].contains("a key's parts are lower-case letters"),
            "{p:?}"
        );
        let p = run(
            &[("web", "web.a = \"x\""), ("web2", "web.a = \"y\"")],
            &[("web", "web.a = \"x\"")],
        );
        assert!(
            p.iter().any(|x| x.contains("outside this file's area")),
            "a key in another area's file: {p:?}"
        );
        // Two keys that would make one constant.
        let p = run(
            &[("web", "web.a-b = \"x\"\nweb.a_b = \"y\"")],
            &[("web", "web.a-b = \"x\"\nweb.a_b = \"y\"")],
        );
        assert!(
            p.iter()
                .any(|x| x.contains("both make the constant WEB_A_B")),
            "{p:?}"
        );
    }
}

#[test]
fn text_a_person_wrote_is_never_read_as_a_marker() {
    // A unit named like a message, a backslash, a lone bracket: shown as written, alone, as an
    // argument, nested two deep, and inside JSON.
    for written in [
        "⟦web.page.connecting⟧",
        "⟦web.games.turn|turn=4⟧ Landsknechts",
        "C:\\tercio\\⟦x⟧ \\⟦",
        "ends in a backslash \\",
        "lone ⟧ and ⟦",
    ] {
        let text = plain(written);
        assert_eq!(localize(Lang::En, &text), written, "{written}");
        assert_eq!(localize(Lang::It, &text), written, "{written}");
        let m = msg(keys::WEB_GAMES_TURN, &[("turn", &text)]);
        assert_eq!(localize(Lang::En, &m), format!("turn {written}"));
        let outer = msg(keys::WEB_GAMES_TURN, &[("turn", &format!("[{m}] {text}"))]);
        assert_eq!(
            localize(Lang::It, &outer),
            format!("turno [turno {written}] {written}")
        );
        let mut v = serde_json::json!({"name": text, "list": [m]});
        localize_json(Lang::En, &mut v);
        assert_eq!(v["name"], written);
        assert_eq!(v["list"][0], format!("turn {written}"));
    }
    // Nothing to escape: the text itself, not a copy.
    assert!(matches!(
        plain("Swiss pike"),
        std::borrow::Cow::Borrowed("Swiss pike")
    ));
    // Unescaped, the same text is a marker: what plain() is for.
    assert_eq!(localize(Lang::En, "⟦web.games.turn|turn=4⟧"), "turn 4");
}

/// Every text of up to four characters from the syntax's own (and a plain one, a space and an
/// accented letter), written as [`plain`] text in a message's argument, renders as written: the
/// parser's runs of plain text (taken whole, not a character at a time) end exactly where a
/// character means something.
#[test]
fn every_short_text_of_syntax_characters_renders_as_written() {
    let alphabet = ['a', '|', '=', '\\', '⟦', '⟧', ' ', 'é'];
    let mut texts = vec![String::new()];
    let mut checked = 0;
    for _ in 0..4 {
        let mut longer = Vec::new();
        for t in &texts {
            for c in alphabet {
                let v = format!("{t}{c}");
                let m = msg(keys::WEB_GAMES_TURN, &[("turn", &plain(&v))]);
                assert_eq!(localize(Lang::En, &m), format!("turn {v}"), "{v:?}: {m:?}");
                checked += 1;
                longer.push(v);
            }
        }
        texts = longer;
    }
    assert_eq!(checked, 8 + 64 + 512 + 4096);
}

#[test]
fn an_outline_names_a_step_without_its_arguments() {
    assert_eq!(
        outline(Lang::En, "app_driven.step.melee"),
        "Melee: \u{2026} against \u{2026}"
    );
    assert_eq!(
        outline(Lang::En, "app_driven.step.regroup"),
        "Regroup: \u{2026}"
    );
    assert_eq!(outline(Lang::En, "no.such.key"), "no.such.key");
    assert_eq!(
        outline(Lang::En, "app_driven.step.bad-war"),
        "\u{2026} (Bad War: to the last base)"
    );
}

/// Every text of up to four characters drawn from the syntax characters and a letter, written
/// as message text ([`plain`]) into an argument, renders as written: the runs [`msg`] and the
/// parser copy whole and the characters they escape fit together at every position.
#[test]
fn every_short_text_of_syntax_characters_round_trips() {
    let alphabet = ['a', '\\', '|', '=', OPEN, CLOSE, 'é'];
    let mut texts = vec![String::new()];
    let mut checked = 0;
    for _ in 0..4 {
        texts = texts
            .iter()
            .flat_map(|t| {
                alphabet.iter().map(move |c| {
                    let mut t = t.clone();
                    t.push(*c);
                    t
                })
            })
            .collect();
        for x in &texts {
            let m = msg(keys::WEB_GAMES_TURN, &[("turn", &plain(x))]);
            assert_eq!(
                localize(Lang::En, &m),
                format!("turn {x}"),
                "{x:?} as {m:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 7 + 49 + 343 + 2401);
}

/// Text made of the marker syntax's characters and their neighbours: other characters whose
/// UTF-8 starts with the brackets' first byte (`…`, `⟨`, `⟩`, `⟪`), one that ends with the
/// opening's last byte (`æ`), other multi-byte ones, ASCII.
fn tricky_text() -> impl proptest::strategy::Strategy<Value = String> {
    let chars = proptest::sample::select(vec![
        'a', 'Z', ' ', '\\', '|', '=', '{', '}', '@', '#', OPEN, CLOSE, '…', '⟨', '⟩', '⟪', '—',
        'è', 'æ', '€', '😀',
    ]);
    proptest::collection::vec(chars, 0..24).prop_map(|v| v.into_iter().collect())
}

use proptest::prelude::*;

proptest! {
    /// Each byte-wise search finds what the `char` pattern it stands for finds.
    #[test]
    fn the_bytewise_searches_find_what_char_patterns_find(s in tricky_text()) {
        prop_assert_eq!(SPECIAL.find(&s), s.find(['\\', '|', '=', OPEN, CLOSE]));
        prop_assert_eq!(VALUE_STOP.find(&s), s.find(['\\', '|', OPEN, CLOSE]));
        prop_assert_eq!(LOCALIZED.find(&s), s.find(['\\', OPEN]));
        prop_assert_eq!(PLAIN_ESCAPED.find(&s), s.find(['\\', OPEN, CLOSE]));
    }
}

/// Texts rendered again are rendered as the first time, in each language, also once more texts
/// than are remembered have gone by (the memory starts again) and for a text too long to keep.
#[test]
fn a_remembered_rendering_is_the_rendering() {
    let (key, text) = entries(Lang::En)
        .iter()
        .find(|(k, t)| placeholders(t).len() == 1 && lookup(Lang::It, k) != Some(t))
        .expect("a message with one placeholder, worded differently in each language");
    let name = placeholders(text)[0];
    let long = "x".repeat(REMEMBERED_LEN);
    let texts: Vec<String> = (0..REMEMBERED + 10)
        .map(|i| msg(key, &[(name, &format!("#{i}"))]))
        .chain([msg(key, &[(name, &long)])])
        .collect();
    for round in 0..2 {
        for t in &texts {
            for lang in Lang::ALL {
                let mut v = serde_json::json!([t]);
                localize_json(lang, &mut v);
                let want = localize(lang, t);
                assert!(!want.contains(OPEN), "{want}: rendered");
                assert_eq!(v[0], want, "{t} in {lang}, round {round}");
            }
        }
    }
}

#[test]
fn a_quoted_value_is_cut_at_sixty_characters() {
    assert!(matches!(clip("short"), Cow::Borrowed("short")));
    let sixty = "é".repeat(QUOTED_MOST);
    assert!(matches!(clip(&sixty), Cow::Borrowed(_)));
    let long = format!("{sixty}more");
    assert_eq!(clip(&long), format!("{sixty}…"));
    assert_eq!(
        clip(&"x".repeat(2_000_000)).chars().count(),
        QUOTED_MOST + 1
    );
    // A cut never leaves an escape open: `plain`'s `\⟦` is kept whole or dropped whole.
    let escaped = format!("{}\\⟦tail", "a".repeat(QUOTED_MOST - 1));
    let cut = clip(&escaped);
    assert_eq!(cut, format!("{}…", "a".repeat(QUOTED_MOST - 1)));
    assert_eq!(
        localize(Lang::En, &msg("input.text-expected", &[("value", &cut)])),
        format!("text expected, not {}…", "a".repeat(QUOTED_MOST - 1))
    );
}

#[test]
fn a_librarys_refusal_has_each_value_it_quotes_cut() {
    let long = "q".repeat(5_000);
    let said = format!("invalid type: string \"{long}\", expected struct Fighter");
    let cut = clip_quoted(&said);
    assert_eq!(
        cut,
        format!(
            "invalid type: string \"{}…\", expected struct Fighter",
            "q".repeat(QUOTED_MOST)
        )
    );
    let said = format!("unknown variant `{long}`, expected one of `a`, `b`");
    assert_eq!(
        clip_quoted(&said),
        format!(
            "unknown variant `{}…`, expected one of `a`, `b`",
            "q".repeat(QUOTED_MOST)
        )
    );
    // An escaped quote inside a text does not end it; a quote never closed is cut too.
    let inner = format!("a\\\"{long}");
    assert!(clip_quoted(&format!("string \"{inner}\" here")).ends_with("…\" here"));
    assert!(clip_quoted(&format!("string \"{long}")).len() < 100);
    assert_eq!(clip_quoted("no quotes at all"), "no quotes at all");
}

#[test]
fn a_text_in_both_languages_shows_the_viewers_or_else_the_other() {
    let t = both(
        "Swiss pikes (first block)",
        "Picche svizzere (primo quadrato)",
    );
    assert_eq!(localize(Lang::It, &t), "Picche svizzere (primo quadrato)");
    assert_eq!(localize(Lang::En, &t), "Swiss pikes (first block)");
    // Inside another message, as a unit's name is.
    let m = msg("no.such.key", &[("unit", &t)]);
    assert!(m.contains(&t), "{m}");
    // One language missing: the other is shown.
    assert_eq!(localize(Lang::It, &both("Pikes", "")), "Pikes");
    assert_eq!(localize(Lang::En, &both(" ", "Picche")), "Picche");
    // Text a person wrote is never read as a marker, in either language.
    let odd = both("a ⟦web.page.connecting⟧ | b = c \\", "x");
    assert_eq!(
        localize(Lang::En, &odd),
        "a ⟦web.page.connecting⟧ | b = c \\"
    );
}
