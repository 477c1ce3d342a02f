//! Tests of the web crate's HTML patches (`patch.rs`).

use super::*;
use proptest::prelude::*;

fn check(old: &str, new: &str) -> Vec<Op> {
    let ops = diff(old, new);
    let got = apply(old, &ops).unwrap_or_else(|e| panic!("{e}: {ops:?}"));
    assert_eq!(got, new, "ops: {ops:?}");
    ops
}

#[test]
fn nothing_changed_nothing_sent() {
    let h = r#"<div id="main"><p id="a">x</p></div>"#;
    assert!(check(h, h).is_empty());
}

#[test]
fn a_changed_element_is_replaced_alone() {
    let old = r#"<div id="main" data-seq="1"><h1>A title long enough to be worth keeping</h1><p id="a">x</p><p id="b">y</p></div>"#;
    let new = r#"<div id="main" data-seq="2"><h1>A title long enough to be worth keeping</h1><p id="a">x</p><p id="b">z</p></div>"#;
    let ops = check(old, new);
    assert_eq!(
        ops,
        vec![
            Op::Attrs {
                id: "main".into(),
                tag: r#"<div id="main" data-seq="2">"#.into()
            },
            Op::Replace {
                id: "b".into(),
                html: r#"<p id="b">z</p>"#.into(),
                fetch: Vec::new(),
            }
        ]
    );
}

#[test]
fn a_keyed_list_gets_its_new_children_only() {
    let li = |n: u32, t: &str| {
        format!(
            r#"<li id="e-{n}" class="{t}"><details><summary>#{n}</summary><pre>a < b &amp; {n}</pre></details></li>"#
        )
    };
    let old = format!(
        r#"<div id="main"><section id="log"><h2>Log</h2><ul id="log-list">{}{}</ul></section></div>"#,
        li(2, "x"),
        li(1, "y")
    );
    let new = format!(
        r#"<div id="main"><section id="log"><h2>Log</h2><ul id="log-list">{}{}{}</ul></section></div>"#,
        li(3, "z"),
        li(2, "x"),
        li(1, "voided")
    );
    let ops = check(&old, &new);
    assert_eq!(
        ops,
        vec![
            Op::Insert {
                id: "log-list".into(),
                before: Some("e-2".into()),
                html: li(3, "z"),
                fetch: Vec::new(),
            },
            Op::Attrs {
                id: "e-1".into(),
                tag: r#"<li id="e-1" class="voided">"#.into()
            }
        ]
    );
    // The oldest entry drops off the end as a new one comes in; reordered, the list gets
    // its whole new order, its new children made from their HTML.
    let list = |items: &[(u32, &str)]| {
        format!(
            r#"<div id="main"><ul id="log-list">{}</ul></div>"#,
            items.iter().map(|(n, t)| li(*n, t)).collect::<String>()
        )
    };
    let ops = check(&list(&[(2, "x"), (1, "y")]), &list(&[(3, "z"), (2, "x")]));
    assert!(
        matches!(&ops[..], [Op::Remove { ids, .. }, Op::Insert { before: Some(b), .. }] if ids == &["e-1"] && b == "e-2"),
        "{ops:?}"
    );
    let ops = check(
        &list(&[(2, "x"), (1, "y")]),
        &list(&[(1, "y"), (3, "z"), (2, "x")]),
    );
    match &ops[..] {
        [Op::Children { order, add, .. }] => {
            assert_eq!(order, &["e-1", "e-3", "e-2"]);
            assert_eq!(add.keys().collect::<Vec<_>>(), ["e-3"]);
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn the_oldest_entry_drops_off_and_moves_between_lists() {
    let old = r#"<div id="main"><ul id="a"><li id="x">1</li><li id="y">2</li></ul><ul id="b"><li id="z">3</li></ul></div>"#;
    let new = r#"<div id="main"><ul id="a"><li id="y">2</li></ul><ul id="b"><li id="z">3</li><li id="x">1</li></ul></div>"#;
    check(old, new);
    // Towards an earlier list: added there before it leaves the later one.
    let old = r#"<div id="main"><ul id="a"><li id="y">2</li></ul><ul id="b"><li id="z">3</li><li id="x">1<b id="w">!</b></li></ul></div>"#;
    let new = r#"<div id="main"><ul id="a"><li id="x">1<b id="w">!</b></li><li id="y">2</li></ul><ul id="b"><li id="z">3</li></ul></div>"#;
    let ops = check(old, new);
    assert!(
        ops.iter()
            .all(|o| matches!(o, Op::Remove { .. } | Op::Insert { .. })),
        "{ops:?}"
    );
}

#[test]
fn markup_around_ids_changing_replaces_the_parent() {
    let old = r#"<div id="main"><section id="s"><h2>A</h2><p id="a">x</p></section></div>"#;
    let new = r#"<div id="main"><section id="s"><h2>B</h2><p id="a">x</p></section></div>"#;
    let ops = check(old, new);
    assert!(
        matches!(&ops[..], [Op::Replace { id, .. }] if id == "s"),
        "{ops:?}"
    );
    // An id'ed element wrapped in markup without an id is no keyed list.
    let old = r#"<div id="main"><ul id="l"><li><b id="p">1</b></li></ul></div>"#;
    let new =
        r#"<div id="main"><ul id="l"><li><b id="q">1</b></li><li><b id="p">1</b></li></ul></div>"#;
    let ops = check(old, new);
    assert!(
        matches!(&ops[..], [Op::Replace { id, .. }] if id == "l"),
        "{ops:?}"
    );
}

#[test]
fn form_controls_are_replaced_not_given_attributes() {
    let old = r#"<div id="main"><input type="checkbox" id="c" data-server><select id="s"><option value="a">A</option></select></div>"#;
    let new = r#"<div id="main"><input type="checkbox" id="c" data-server checked><select id="s" multiple><option value="a">A</option></select></div>"#;
    let ops = check(old, new);
    assert!(
        ops.iter().all(|o| matches!(o, Op::Replace { .. })),
        "{ops:?}"
    );
}

#[test]
fn svg_comments_raw_text_and_odd_quotes_are_read() {
    let old = r#"<div id="main"><!-- <p id="fake"> --><div class="qr" id="qr"><?xml version="1.0" standalone="yes"?><svg xmlns="x"><rect x="0"/><path d="M0 0"/></svg></div><button data-turn='{"action":"go"}' id="t">Go</button><pre id="p"><b id="no"></pre><textarea id="ta"></textarea><br><input id="i" value="a>b"></div>"#;
    let new = old.replace("Go<", "Went<").replace("M0 0", "M1 1");
    let ops = check(old, &new);
    assert!(ops.iter().any(|o| o.id() == "t"), "{ops:?}");
    assert_eq!(
        ids(old).expect("ids"),
        ["main", "qr", "t", "p", "ta", "i"],
        "ids inside <pre> and comments are text"
    );
}

#[test]
fn unreadable_or_ambiguous_html_replaces_the_root() {
    let old = r#"<div id="main"><p id="a">x</p></div>"#;
    for new in [
        r#"<div id="main"><p id="a">x</p><p id="a">y</p></div>"#,
        r#"<div id="main"><p id="a">x</div>"#,
        r#"<div id="main"><p id="a">x</p></div><p>after</p>"#,
    ] {
        let ops = diff(old, new);
        assert_eq!(
            ops,
            vec![Op::Replace {
                id: "main".into(),
                html: new.into(),
                fetch: Vec::new(),
            }],
            "{new}"
        );
    }
    // A renamed root is replaced as a whole.
    let ops = check(old, r#"<div id="other"><p id="a">x</p></div>"#);
    assert!(matches!(&ops[..], [Op::Replace { id, .. }] if id == "main"));
}

#[test]
fn apply_refuses_what_the_document_could_not_do() {
    let h = r#"<div id="main"><ul id="l"><li id="a">1</li></ul></div>"#;
    let bad = [
        Op::Replace {
            id: "nope".into(),
            html: String::new(),
            fetch: Vec::new(),
        },
        Op::Children {
            id: "l".into(),
            order: vec!["b".into()],
            add: BTreeMap::new(),
            fetch: Vec::new(),
        },
        Op::Children {
            id: "l".into(),
            order: vec![],
            add: BTreeMap::from([("b".into(), "<li id=\"b\"></li>".into())]),
            fetch: Vec::new(),
        },
        Op::Attrs {
            id: "l".into(),
            tag: "<ol id=\"l\">".into(),
        },
        Op::Remove {
            id: "l".into(),
            ids: vec!["b".into()],
        },
        Op::Insert {
            id: "l".into(),
            before: Some("main".into()),
            html: String::new(),
            fetch: Vec::new(),
        },
        Op::Insert {
            id: "l".into(),
            before: None,
            html: "<li id=\"a\"></li>".into(),
            fetch: Vec::new(),
        },
        // Parts named and not put in.
        Op::Replace {
            id: "a".into(),
            html: String::new(),
            fetch: vec!["a".into()],
        },
    ];
    for op in bad {
        assert!(apply(h, std::slice::from_ref(&op)).is_err(), "{op:?}");
    }
}

#[test]
fn entities_in_ids_are_the_documents_ids() {
    assert_eq!(unescape("a&amp;b&#39;c&#x41;&bogus;&"), "a&b'cA&bogus;&");
    assert_eq!(ids(r#"<p id="u-a&amp;b"></p>"#).expect("ids"), ["u-a&b"]);
}

// ---- Random trees and edits ----

/// A tree to render: an element with an optional id, a class, and content.
#[derive(Debug, Clone)]
enum H {
    El {
        tag: &'static str,
        id: Option<u32>,
        class: u8,
        kids: Vec<H>,
    },
    Text(u8),
}

const TAGS: [&str; 6] = ["div", "ul", "li", "span", "section", "p"];

fn render(h: &H, out: &mut String) {
    match h {
        H::Text(t) => out.push_str(&format!("t{t}&amp;")),
        H::El {
            tag,
            id,
            class,
            kids,
        } => {
            out.push('<');
            out.push_str(tag);
            if let Some(id) = id {
                out.push_str(&format!(" id=\"n{id}\""));
            }
            if *class > 0 {
                out.push_str(&format!(" class=\"c{class}\""));
            }
            out.push('>');
            if *class == 3 {
                // Some void and raw elements along the way.
                out.push_str("<br><input type=\"number\" value=\"1\"><pre>1 <2></pre>");
            }
            for k in kids {
                render(k, out);
            }
            out.push_str(&format!("</{tag}>"));
        }
    }
}

fn tree() -> impl Strategy<Value = H> {
    let leaf = prop_oneof![
        (0u8..4).prop_map(H::Text),
        (0usize..TAGS.len(), prop::option::of(0u32..40), 0u8..4).prop_map(|(t, id, class)| {
            H::El {
                tag: TAGS[t],
                id,
                class,
                kids: vec![],
            }
        }),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        (
            0usize..TAGS.len(),
            prop::option::of(0u32..40),
            0u8..4,
            prop::collection::vec(inner, 0..5),
        )
            .prop_map(|(t, id, class, kids)| H::El {
                tag: TAGS[t],
                id,
                class,
                kids,
            })
    })
}

/// Drop ids already used, so each id is on one element.
fn unique(h: &mut H, seen: &mut HashSet<u32>) {
    if let H::El { id, kids, .. } = h {
        if let Some(i) = *id {
            if !seen.insert(i) {
                *id = None;
            }
        }
        for k in kids {
            unique(k, seen);
        }
    }
}

/// Edit a tree as the choices say: change a class or a text, drop, add, move or swap
/// children, change an id.
fn edit(h: &mut H, choices: &mut impl Iterator<Item = u8>) {
    let Some(c) = choices.next() else { return };
    match h {
        H::Text(t) => {
            if c % 3 == 0 {
                *t = t.wrapping_add(1) % 4;
            }
        }
        H::El {
            id, class, kids, ..
        } => {
            match c % 9 {
                0 => *class = (*class + 1) % 4,
                1 if !kids.is_empty() => {
                    let i = usize::from(c) % kids.len();
                    kids.remove(i);
                }
                2 => kids.insert(
                    usize::from(c) % (kids.len() + 1),
                    H::El {
                        tag: "li",
                        id: Some(40 + u32::from(c)),
                        class: c % 4,
                        kids: vec![H::Text(c % 4)],
                    },
                ),
                3 if kids.len() > 1 => {
                    let k = kids.remove(0);
                    kids.push(k);
                }
                4 if kids.len() > 1 => {
                    let last = kids.len() - 1;
                    kids.swap(0, last);
                }
                5 => *id = id.map(|i| (i + 1) % 60),
                6 => *id = None,
                _ => {}
            }
            for k in kids.iter_mut() {
                edit(k, choices);
            }
        }
    }
}

fn page(kids: Vec<H>) -> String {
    let mut root = H::El {
        tag: "div",
        id: Some(1000),
        class: 0,
        kids,
    };
    unique(&mut root, &mut HashSet::new());
    let mut s = String::new();
    render(&root, &mut s);
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn applying_the_diff_gives_the_new_html(kids in prop::collection::vec(tree(), 0..6), choices in prop::collection::vec(any::<u8>(), 0..60)) {
        let old = page(kids.clone());
        let mut edited = kids;
        let mut it = choices.into_iter();
        for k in edited.iter_mut() {
            edit(k, &mut it);
        }
        let new = page(edited);
        let ops = diff(&old, &new);
        let got = apply(&old, &ops);
        prop_assert_eq!(got.as_deref(), Ok(new.as_str()), "ops: {:?}", ops);
        // Never more than replacing the whole.
        let weight: usize = ops.iter().map(Op::weight).sum();
        prop_assert!(weight <= new.len() + 64, "{} ops weigh {}", ops.len(), weight);
        // Deferred to fit nothing, the ops carry no HTML but name its parts of the new page;
        // filled from them, they make the same page.
        let mut deferred = ops.clone();
        defer(&mut deferred, 0);
        let json = serde_json::to_string(&deferred).expect("json");
        prop_assert!(!json.contains("\"html\""), "{}", json);
        if deferred.iter().any(Op::waits) {
            prop_assert!(apply(&old, &deferred).is_err());
        }
        let named: Vec<String> = deferred
            .iter()
            .flat_map(|o| match o {
                Op::Replace { fetch, .. } | Op::Insert { fetch, .. } | Op::Children { fetch, .. } => fetch.clone(),
                _ => Vec::new(),
            })
            .collect();
        let got_parts = parts(&new, &named).expect("parts");
        for o in &mut deferred {
            o.fill(&got_parts).expect("filled");
        }
        prop_assert_eq!(&deferred, &ops);
    }

    #[test]
    fn a_keyed_list_reordered_is_patched_in_place(n in 1usize..12, perm in prop::collection::vec(any::<u16>(), 1..12), drop in prop::collection::vec(any::<bool>(), 12), fresh in 0usize..4) {
        let li = |i: usize| format!("<li id=\"e-{i}\"><details><summary>#{i}</summary><pre>long text of entry {i} with &lt;tags&gt;</pre></details></li>");
        let old_ids: Vec<usize> = (0..n).collect();
        let mut new_ids: Vec<usize> = old_ids.iter().copied().filter(|i| !drop[*i]).collect();
        for (k, p) in perm.iter().enumerate() {
            if !new_ids.is_empty() {
                let a = usize::from(*p) % new_ids.len();
                let b = k % new_ids.len();
                new_ids.swap(a, b);
            }
        }
        new_ids.extend(100..100 + fresh);
        let list = |ids: &[usize]| format!("<div id=\"main\"><ul id=\"log-list\">{}</ul></div>", ids.iter().map(|&i| li(i)).collect::<String>());
        let (old, new) = (list(&old_ids), list(&new_ids));
        let ops = check(&old, &new);
        // Only the new entries' HTML is sent, unless the whole list is smaller.
        if !ops.iter().any(|o| matches!(o, Op::Replace { .. })) {
            let sent: usize = ops
                .iter()
                .map(|o| match o {
                    Op::Children { add, .. } => add.len(),
                    Op::Insert { html, .. } => html.matches("<li ").count(),
                    _ => 0,
                })
                .sum();
            prop_assert_eq!(sent, fresh, "{:?}", ops);
        }
    }
}

#[test]
fn parts_are_elements_by_id_the_first_of_an_id_used_twice() {
    let page =
        r#"<div id="main"><p id="a">1</p><p id="a">2</p><ul id="l"><li id="x">x</li></ul></div>"#;
    let got = parts(page, &["a".into(), "x".into(), "main".into()]).expect("parts");
    assert_eq!(got["a"], r#"<p id="a">1</p>"#);
    assert_eq!(got["x"], r#"<li id="x">x</li>"#);
    assert_eq!(got["main"], page);
    assert_eq!(
        parts(page, &["nowhere".into()]),
        Err(PartsError::Missing("nowhere".into()))
    );
    assert_eq!(
        parts(r#"<div id="main"><p id="a">"#, &["a".into()]),
        Err(PartsError::Unreadable)
    );
}
