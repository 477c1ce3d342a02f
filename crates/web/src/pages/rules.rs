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
        "<h1>{}</h1><p class=\"muted\">{intro}</p><details class=\"sources\" id=\"rules-source\"><summary>{}</summary><p class=\"muted\">{source}</p></details>",
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
        b.push_str(&crate::board::table_html(&ui, t, &format!("ref-t{i}")));
    }
    let house = tercio_rules::interface::house::table(&r.house_rules());
    b.push_str(&crate::board::table_html(&ui, &house, "ref-house"));
    page(&ui, &title, &b).into_response()
}
