//! Server-rendered pages: the host's ([`host`]: the games list, a new game), a seat's game page
//! ([`seat`]), its reports ([`reports`]: the battle report, the dice), and each rule set's
//! reference ([`rules`]). All user text goes through [`esc`]. The game page's script is small
//! and embedded. Nothing here knows a rule set: every game page is drawn from the board and
//! forms its engine describes ([`crate::board`]).

mod balance;
pub use balance::report as balance_report;
mod simulation;
pub use simulation::{report as simulation_report, SimulationRun};
mod host;
mod reports;
mod rules;
mod seat;

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tercio_i18n::keys;

use crate::api::ApiError;
use crate::lang::Ui;
use crate::{assets, AppState};

pub(crate) use seat::{entry_steps, game_over, scenario_notes_body};
pub use seat::{game_main, seat_main};

/// Escape text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

/// An element id from a prefix and a key a scenario or an engine chose (a unit's id): the key's
/// ASCII letters, digits and `-` as they are, any other character as `_HEX_` (its code point), so
/// two keys never make one id and the id needs no escaping. The live patches address elements by
/// these ids ([`crate::patch`]), so they depend on nothing that changes while the element stays.
pub fn dom_id(prefix: &str, key: &str) -> String {
    let mut o = String::with_capacity(prefix.len() + 1 + key.len());
    o.push_str(prefix);
    o.push('-');
    for c in key.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            o.push(c);
        } else {
            o.push_str(&format!("_{:x}_", u32::from(c)));
        }
    }
    o
}

pub fn routes(state: Arc<AppState>) -> Router<Arc<AppState>> {
    let host = Router::new()
        .route("/games", post(host::create_from_form))
        .route("/games/{id}", get(host::game_master_of))
        .route("/games/{id}/archive", post(host::archive))
        .route("/games/{id}/restore", post(host::restore))
        .route("/games/{id}/delete", post(host::delete))
        .route("/simulations", post(simulation::start))
        .route("/simulations/{id}", get(simulation::job_page))
        .route("/simulations/{id}/events", get(simulation::job_events))
        .route("/simulations/{id}/cancel", post(simulation::cancel))
        .route_layer(axum::middleware::from_fn_with_state(state, host::host_only));
    Router::new()
        .merge(host)
        .route("/", get(host::home))
        .route("/s/{token}", get(seat::seat_page))
        .route("/s/{token}/log", get(seat::seat_log_page))
        .route("/s/{token}/dice", get(reports::dice_page))
        .route("/s/{token}/report.md", get(reports::report_md))
        .route("/rules/{id}", get(rules::rules_page))
        .route("/rules/{id}/balance", get(balance::balance_page))
        .route("/static/{file}", get(assets::file))
        .route("/favicon.ico", get(assets::favicon))
        .route("/manifest.webmanifest", get(assets::manifest))
        .route("/sw.js", get(assets::service_worker))
}

/// A page in the request's language: `<html lang>`, the title, and the language switch in the
/// header.
pub(super) fn page(ui: &Ui, title: &str, body: &str) -> Html<String> {
    shell(
        ui,
        title,
        "<a href=\"/\" class=\"brand\">Tercio</a>",
        "",
        body,
    )
}

/// A seat's page: the compact header, which stays at the top of the screen, carries the
/// live-connection indicator and, for the game master, the undo (the script shows it while the
/// newest entry may be undone: `#last[data-undo]` in the live part).
pub(super) fn page_live(ui: &Ui, title: &str, body: &str, undo: bool) -> Html<String> {
    let undo = if undo {
        format!(
            "<button type=\"button\" id=\"undo\" class=\"small\" hidden>{}</button>",
            ui.h(keys::WEB_LOG_UNDO, &[])
        )
    } else {
        String::new()
    };
    let live = format!(
        "<span id=\"live\" class=\"live\" role=\"status\">{}</span>{undo}",
        ui.h(keys::WEB_PAGE_CONNECTING, &[])
    );
    shell(
        ui,
        title,
        "<span class=\"brand\">Tercio</span>",
        &live,
        body,
    )
}

fn shell(ui: &Ui, title: &str, brand: &str, extra: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html lang=\"{lang}\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title><link rel=\"stylesheet\" href=\"{css}\"><link rel=\"icon\" type=\"image/svg+xml\" href=\"{icon}\"><link rel=\"manifest\" href=\"/manifest.webmanifest?lang={lang}\"><meta name=\"theme-color\" content=\"#8a1c1c\"><meta name=\"color-scheme\" content=\"light dark\"><script src=\"{page_js}\" defer></script></head><body><header class=\"top\">{brand}{switch}{extra}</header><main>{body}</main></body></html>",
        lang = ui.lang.code(),
        title = ui.h(keys::WEB_PAGE_TITLE, &[("title", title)]),
        switch = ui.switch(),
        css = assets::css(),
        icon = assets::icon(),
        page_js = assets::page_js()
    ))
}

pub async fn not_found(ui: Ui) -> Response {
    not_found_page(&ui)
}

pub(super) fn not_found_page(ui: &Ui) -> Response {
    (
        StatusCode::NOT_FOUND,
        page(
            ui,
            &ui.t(keys::WEB_NOTFOUND_TITLE, &[]),
            &format!(
                "<h1>{}</h1><p><a href=\"/\">{}</a></p>",
                ui.h(keys::WEB_NOTFOUND_HEADING, &[]),
                ui.h(keys::WEB_NAV_BACK_TO_GAMES, &[])
            ),
        ),
    )
        .into_response()
}

pub(crate) fn error_page(ui: &Ui, status: StatusCode, e: &ApiError) -> Response {
    (
        status,
        page(
            ui,
            &ui.t(keys::WEB_PROBLEM_TITLE, &[]),
            &format!(
                "<h1>{}</h1><pre class=\"error\">{}</pre><p><a href=\"/\">{}</a></p>",
                ui.h(keys::WEB_PROBLEM_HEADING, &[]),
                ui.e(e.message()),
                ui.h(keys::WEB_NAV_BACK_TO_GAMES, &[])
            ),
        ),
    )
        .into_response()
}

/// The name players read for a resolution's action: a message as it is; an id by the rule set's
/// titles ([`tercio_rules::Engine::action_titles`]; an id written with `_` is also looked up
/// with `-`), so no page shows "end_turn" or "start-turn".
pub(super) fn action_title(titles: &[(String, String)], action: &str) -> String {
    if tercio_i18n::needs_localize(action) {
        return action.to_string();
    }
    let dashed = action.replace('_', "-");
    titles
        .iter()
        .find(|(id, _)| *id == action || *id == dashed)
        .map_or_else(|| action.to_string(), |(_, t)| t.clone())
}

#[cfg(test)]
mod tests {
    #[test]
    fn escaping() {
        assert_eq!(
            super::esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
