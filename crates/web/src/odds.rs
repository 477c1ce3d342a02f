//! The odds of an action as the game page shows them (issue 43, item 3): an HTML fragment the
//! odds route renders on the server (`POST /api/s/{token}/odds?view=html`), which the page's
//! script only inserts. The final outcome first, as a bar with its legend (each outcome told by
//! the facets that decide it, with its probability), one bar per target of a split fire; then,
//! behind one tap, what is expected on each outcome (levels or bases lost, a rarer mishap) and
//! every step's odds (each facet's marginals).
//! Every word comes from the catalogues or from the engine's messages, rendered in the page's
//! language and escaped; the bar is inline SVG (no style attribute: the CSP allows none).

use tercio_i18n::keys;
use tercio_rules::odds::{Final, OddsReport, NOT_REACHED};

use crate::lang::Ui;
use crate::pages::esc;

/// Fill opacities of the bar's segments, in turn, so neighbours are told apart in one colour.
const SHADES: [&str; 4] = ["1", "0.55", "0.8", "0.35"];

fn pct(ui: &Ui, p: f64) -> String {
    tercio_i18n::fmt_pct(ui.lang, p, 1)
}

/// One outcome's words: its headline values, each alone when it says itself (a word of the
/// rules: "actor ahead") or when the legend names the one facet (`alone`), after its facet's name
/// otherwise ("charge goes in: no", "bases lost: 1", "round won by: Swiss pikes").
fn says(ui: &Ui, values: &[(String, String)], alone: bool) -> String {
    values
        .iter()
        .filter(|(_, v)| v != NOT_REACHED)
        .map(|(f, raw)| {
            let v = ui.loc(raw);
            let word = raw.starts_with(tercio_i18n::OPEN)
                && v.chars().count() > 3
                && v.parse::<f64>().is_err();
            if alone || word {
                return v;
            }
            ui.t(keys::ODDS_VALUE, &[("facet", &ui.loc(f)), ("value", &v)])
        })
        .reduce(|a, b| ui.t(keys::ODDS_AND, &[("a", &a), ("b", &b)]))
        .unwrap_or_default()
}

/// The bar and the legend of one final outcome, in one paragraph (a phone's form keeps its
/// button close); what is expected on each outcome (the losses, a rarer mishap) is written to
/// `steps`, the rows shown one tap away.
fn final_html(ui: &Ui, fin: &Final, title: &str, out: &mut String, steps: &mut String) {
    let mut segments: Vec<f64> = fin.groups.iter().map(|g| g.p).collect();
    if fin.other > 0.0 {
        segments.push(fin.other);
    }
    // The bar opens the legend's paragraph (no margin of its own).
    out.push_str(&format!(
        "<p class=\"outcomes\"><svg class=\"odds-bar\" viewBox=\"0 0 100 10\" preserveAspectRatio=\"none\" width=\"100%\" height=\"12\" role=\"img\" aria-label=\"{}\">",
        esc(title)
    ));
    // The legend says each segment's words and number, in the bar's order: the bar is only seen.
    let mut x = 0.0;
    for (i, p) in segments.iter().enumerate() {
        let w = p * 100.0;
        out.push_str(&format!(
            "<rect x=\"{x:.1}\" width=\"{:.1}\" height=\"10\" fill=\"currentColor\" fill-opacity=\"{}\"/>",
            (w - 0.4).max(0.0),
            SHADES[i % SHADES.len()],
        ));
        x += w;
    }
    out.push_str("</svg><br>");
    // One facet tells every outcome apart with short words ("holds", "shaken"): named once,
    // before the legend. Longer values ("actor ahead") say themselves, and a phone's form keeps
    // its button close.
    let one = fin.groups.first().and_then(|g| match g.values.as_slice() {
        [(f, _)] => Some(f.clone()),
        _ => None,
    });
    let one = one.filter(|f| {
        fin.groups.iter().all(|g| {
            g.values.len() == 1
                && &g.values[0].0 == f
                && ui.loc(&g.values[0].1).chars().count() <= 12
        })
    });
    if let Some(f) = &one {
        out.push_str(&esc(&ui.t(keys::ODDS_ABOUT, &[("facet", &ui.loc(f))])));
        out.push(' ');
    }
    let mut legend: Vec<String> = Vec::new();
    for g in &fin.groups {
        let words = says(ui, &g.values, one.is_some());
        let share = format!("<strong>{}</strong> {}", esc(&pct(ui, g.p)), esc(&words));
        let mut more: Vec<String> = g
            .expected
            .iter()
            .map(|(f, m)| {
                ui.t(
                    keys::ODDS_EXPECTED,
                    &[("facet", &ui.loc(f)), ("mean", &ui.num(*m, 1))],
                )
            })
            .collect();
        more.extend(g.chances.iter().map(|(f, v, p)| {
            ui.t(
                keys::ODDS_CHANCE,
                &[
                    ("facet", &ui.loc(f)),
                    ("value", &ui.loc(v)),
                    ("p", &pct(ui, *p)),
                ],
            )
        }));
        if !more.is_empty() {
            steps.push_str(&format!(
                "<tr><th>{share}</th><td>{}</td></tr>",
                esc(&more.join(" · "))
            ));
        }
        legend.push(format!("<span>{share}</span>"));
    }
    if fin.other > 0.0 {
        legend.push(format!(
            "<span><strong>{}</strong> {}</span>",
            esc(&pct(ui, fin.other)),
            ui.h(keys::ODDS_OTHER, &[])
        ));
    }
    out.push_str(&legend.join(" · "));
}

/// The odds fragment: each part's final outcome (a part per target of a split fire), the reason
/// the turn does not allow the action yet (`note`), and every step's odds behind one tap.
pub fn fragment(ui: &Ui, report: &OddsReport, finals: &[Final], note: Option<&str>) -> String {
    let mut out = String::from("<div class=\"odds-final\">");
    let mut steps = String::new();
    let mut told_note = false;
    let several = finals.len() > 1;
    for (i, fin) in finals.iter().enumerate() {
        if fin.groups.is_empty() && fin.other == 0.0 {
            continue;
        }
        // A heading only to tell the targets of a split fire apart: one outcome needs none (the
        // bar is named for readers that do not see it), so the form's button stays close.
        out.push_str("<section>");
        let title = if several {
            let t = ui.t(keys::ODDS_PART, &[("n", &(i + 1).to_string())]);
            out.push_str(&format!("<h4>{}</h4>", esc(&t)));
            t
        } else {
            ui.t(keys::ODDS_FINAL, &[])
        };
        final_html(ui, fin, &title, &mut out, &mut steps);
        // The reason the turn does not allow it yet, in the same paragraph (no margin of its
        // own: a phone's form keeps its button close).
        if let Some(n) = note.filter(|_| i + 1 == finals.len()) {
            out.push_str(&format!(
                "<br><span class=\"question\">{}</span>",
                ui.h(keys::ODDS_NOT_YET, &[("note", &ui.loc(n))])
            ));
            told_note = true;
        }
        out.push_str("</p></section>");
    }
    if let Some(n) = note.filter(|_| !told_note) {
        out.push_str(&format!(
            "<p class=\"question\">{}</p>",
            ui.h(keys::ODDS_NOT_YET, &[("note", &ui.loc(n))])
        ));
    }
    let facets: Vec<_> = report
        .facets
        .iter()
        .filter(|f| !f.values.is_empty())
        .collect();
    if !facets.is_empty() || !steps.is_empty() {
        out.push_str(&format!(
            "<details class=\"all-odds\"><summary>{}</summary><table>{steps}",
            ui.h(keys::ODDS_STEPS, &[])
        ));
        for f in facets {
            out.push_str(&format!("<tr><th>{}</th><td>", ui.e(&f.facet)));
            let lines: Vec<String> = f
                .values
                .iter()
                .map(|(v, p)| {
                    ui.t(
                        keys::ODDS_SHARE,
                        &[("value", &ui.loc(v)), ("p", &pct(ui, *p))],
                    )
                })
                .collect();
            out.push_str(&esc(&lines.join(" · ")));
            if let Some(m) = f.mean {
                out.push_str(&format!(
                    "<br><small>{}</small>",
                    ui.h(keys::ODDS_MEAN, &[("mean", &ui.num(m, 2))])
                ));
            }
            out.push_str("</td></tr>");
        }
        out.push_str("</table></details>");
    }
    out.push_str("</div>");
    out
}
