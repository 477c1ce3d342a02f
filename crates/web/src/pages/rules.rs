//! A rule set's reference page: the charts its engine uses, as the tables it describes.

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use tercio_i18n::keys;
use tercio_rules::registry;

use super::{esc, not_found_page, page};
use crate::lang::Ui;

pub(super) async fn rules_page(ui: Ui, Path(id): Path<String>) -> Response {
    let Ok(r) = registry::lookup(&id) else {
        return not_found_page(&ui);
    };
    let name = ui.loc(&r.title());
    if !r.available() {
        return (
            StatusCode::NOT_FOUND,
            page(
                &ui,
                &name,
                &format!(
                    "<h1>{}</h1><p>{}</p>",
                    esc(&name),
                    ui.e(&registry::not_available(r))
                ),
            ),
        )
            .into_response();
    }
    let title = ui.t(keys::WEB_RULES_TITLE, &[("name", &name)]);
    // The seed's file and the design document are for whoever checks a figure: behind a
    // "source" disclosure, never in the text a player reads first.
    let intro = ui.h(keys::WEB_RULES_INTRO, &[]);
    let source = ui.h(
        keys::WEB_RULES_SOURCE,
        &[("seed", &ui.loc(r.seed())), ("id", r.id())],
    );
    let mut b = format!(
        "<h1>{}</h1><p class=\"muted\">{intro}</p><details class=\"sources\"><summary>{}</summary><p class=\"muted\">{source}</p></details>",
        esc(&title),
        ui.h(keys::WEB_RULES_SOURCE_TITLE, &[])
    );
    if r.balance().is_some() {
        b.push_str(&format!(
            "<p><a href=\"/rules/{}/balance?lang={}\" id=\"balance-link\">{}</a></p>",
            esc(r.id()),
            ui.lang.code(),
            ui.h(keys::WEB_BALANCE_LINK, &[])
        ));
    }
    for (i, t) in r.reference_tables().iter().enumerate() {
        b.push_str(&with_sources(&ui, t, &format!("ref-t{i}")));
    }
    let house = tercio_rules::interface::house::table(&r.house_rules());
    b.push_str(&with_sources(&ui, &house, "ref-house"));
    page(&ui, &title, &b).into_response()
}

/// A reference table with its citations one tap away: the column of sources and a citation in
/// the title (`Troop types (001, TROOP TYPES…)`) are taken out of the table and listed, row by
/// row, in a "source" disclosure under it, so the charts read in plain words and every figure
/// can still be traced to the seed's text.
fn with_sources(ui: &Ui, t: &tercio_rules::BoardTable, id: &str) -> String {
    let source_names: Vec<String> = [
        "sword_and_flame.ref.col.source",
        "ecw.ref.source",
        "house.source",
    ]
    .iter()
    .map(|k| tercio_i18n::t(ui.lang, k, &[]))
    .collect();
    let column = t
        .columns
        .iter()
        .position(|c| source_names.contains(&ui.loc(c)));
    let (title, cited) = citations_out(&ui.loc(&t.title));
    if column.is_none() && cited.is_empty() {
        return crate::board::table_html(ui, t, id);
    }
    let mut plain = t.clone();
    plain.title = tercio_i18n::plain(&title).into_owned();
    let mut items = Vec::new();
    items.extend(cited.iter().map(|c| format!("<li>{}</li>", esc(c))));
    if let Some(c) = column {
        plain.columns.remove(c);
        for row in &mut plain.rows {
            if c < row.len() {
                let source = ui.loc(&row.remove(c));
                let name = row.first().map(|n| ui.loc(n)).unwrap_or_default();
                if !source.trim().is_empty() {
                    items.push(format!("<li>{}: {}</li>", esc(&name), esc(&source)));
                }
            }
        }
    }
    let mut b = crate::board::table_html(ui, &plain, id);
    if !items.is_empty() {
        b.push_str(&format!(
            "<details class=\"sources\"><summary>{}</summary><ul>{}</ul></details>",
            ui.h(keys::WEB_RULES_SOURCE_TITLE, &[]),
            items.concat()
        ));
    }
    b
}

/// A text without the seed's citations in brackets (" (001, FIRE)"), and those citations.
fn citations_out(text: &str) -> (String, Vec<String>) {
    let mut kept = String::with_capacity(text.len());
    let mut cited = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(" (00") {
        // The bracket's close, counting any bracket inside it.
        let mut depth = 0;
        let close = rest[i + 1..].char_indices().find_map(|(j, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i + 1 + j)
        });
        let Some(close) = close else { break };
        kept.push_str(&rest[..i]);
        cited.push(rest[i + 2..close].to_string());
        rest = &rest[close + 1..];
    }
    kept.push_str(rest);
    (kept, cited)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_citation_in_brackets_is_taken_out_of_a_title() {
        assert_eq!(
            super::citations_out("Fire: hits on a D20 (001, FIRE); +1 shaken (001, SHAKEN (x))"),
            (
                "Fire: hits on a D20; +1 shaken".to_string(),
                vec!["001, FIRE".to_string(), "001, SHAKEN (x)".to_string()]
            )
        );
        assert_eq!(
            super::citations_out("Troop types"),
            ("Troop types".to_string(), Vec::new())
        );
    }
}
