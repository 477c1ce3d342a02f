//! The host's pages: the games list and a new game (with the host key), the landing page for
//! everyone else, and archiving, restoring and deleting games.

use std::sync::Arc;

use axum::extract::{Form, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use tercio_i18n::keys;
use tercio_rules::registry;

use super::{error_page, esc, not_found_page, page};
use crate::api;
use crate::lang::Ui;
use crate::{scenarios, AppState};

#[derive(Deserialize)]
pub(super) struct KeyQuery {
    key: Option<String>,
}

/// The host's page (all games, a new game) with the host key; without it, a page telling players
/// to use their own link. `/?key=KEY` (the address `tercio serve` prints) sets the key as a
/// cookie, strict to this site, and drops it from the address bar.
pub(super) async fn home(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    headers: HeaderMap,
    crate::api::Params(q): crate::api::Params<KeyQuery>,
) -> Response {
    if let Some(k) = q.key {
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            format!("Bearer {k}")
                .parse()
                .unwrap_or(header::HeaderValue::from_static("")),
        );
        if api::is_host(&st, &h) {
            return (
                [(
                    header::SET_COOKIE,
                    format!(
                        "{}={k}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000{}",
                        api::HOST_COOKIE,
                        crate::guard::cookie_suffix(&st)
                    ),
                )],
                Redirect::to("/"),
            )
                .into_response();
        }
        return landing(
            &ui,
            StatusCode::UNAUTHORIZED,
            Some(keys::WEB_LANDING_BAD_KEY),
        );
    }
    if !api::is_host(&st, &headers) {
        return landing(&ui, StatusCode::OK, None);
    }
    home_with(&st, &ui, None, "").await
}

fn landing(ui: &Ui, status: StatusCode, problem: Option<&str>) -> Response {
    let problem = problem.map_or(String::new(), |k| {
        format!("<p class=\"error\">{}</p>", ui.h(k, &[]))
    });
    (
        status,
        page(
            ui,
            &ui.t(keys::WEB_LANDING_TITLE, &[]),
            &format!(
                "<h1>Tercio</h1>{problem}<p>{}</p><p>{}</p>",
                ui.h(keys::WEB_LANDING_PLAYERS, &[]),
                ui.html(keys::WEB_LANDING_GAME_MASTER_HTML, &[])
            ),
        ),
    )
        .into_response()
}

/// Only the host (with the host key) reaches the routes under this guard: making, opening,
/// archiving and deleting games.
pub(super) async fn host_only(
    State(st): State<Arc<AppState>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let ui = Ui::from_parts(req.uri(), req.headers());
    if api::is_host(&st, req.headers()) {
        return next.run(req).await;
    }
    landing(
        &ui,
        StatusCode::UNAUTHORIZED,
        Some(keys::WEB_LANDING_HOST_ONLY),
    )
}

/// The game master's link of a game, for the host.
pub(super) async fn game_master_of(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(id): Path<String>,
) -> Response {
    match on_store(&st, move |s| s.seats(&id)).await {
        Ok(seats) => match seats.into_iter().next() {
            Some(gm) => Redirect::to(&format!("/s/{}", gm.token)).into_response(),
            None => not_found_page(&ui),
        },
        Err(e) => error_page(&ui, StatusCode::SERVICE_UNAVAILABLE, &e),
    }
}

/// Run `f` on the store in the blocking pool: a store may block (PostgreSQL's client must not
/// run on the async runtime's threads).
async fn on_store<T: Send + 'static>(
    st: &Arc<AppState>,
    f: impl FnOnce(&dyn tercio_store::Store) -> Result<T, tercio_store::StoreError> + Send + 'static,
) -> Result<T, api::ApiError> {
    let st = st.clone();
    api::blocking(move || f(st.store.as_ref()).map_err(Into::into)).await
}

/// The host's page; `error`: why the last new game was not made (then `toml` is what was sent).
/// Drawn in answer to a form's POST too, so its language switch points at `/`.
async fn home_with(st: &Arc<AppState>, ui: &Ui, error: Option<&str>, toml: &str) -> Response {
    let ui = &ui.at("/");
    let (games, archived) = match on_store(st, |s| Ok((s.list(false)?, s.list(true)))).await {
        Ok(g) => g,
        Err(e) => return error_page(ui, StatusCode::SERVICE_UNAVAILABLE, &e),
    };
    let mut b = format!("<h1>{}</h1>", ui.h(keys::WEB_GAMES_TITLE, &[]));
    if games.is_empty() {
        b.push_str(&format!("<p>{}</p>", ui.h(keys::WEB_GAMES_NONE, &[])));
    } else {
        b.push_str("<ul class=\"games\">");
        for g in &games {
            let scenario = match g.scenario.as_deref() {
                Some(s) => s.to_string(),
                None => ui.t(keys::WEB_GAMES_OWN_SCENARIO, &[]),
            };
            let meta = ui.h(
                keys::WEB_GAMES_META,
                &[
                    ("scenario", &scenario),
                    ("rules", &g.rule_set),
                    (
                        "turn",
                        &ui.t(keys::WEB_GAMES_TURN, &[("turn", &g.turn.to_string())]),
                    ),
                    (
                        "over",
                        &if g.over {
                            ui.t(keys::WEB_GAMES_OVER, &[])
                        } else {
                            String::new()
                        },
                    ),
                    (
                        "events",
                        &ui.t(keys::WEB_GAMES_EVENTS, &[("count", &g.events.to_string())]),
                    ),
                    ("when", &utc(g.updated_at)),
                ],
            );
            b.push_str(&format!(
                "<li><a href=\"/games/{id}\"><strong>{title}</strong></a> <span class=\"muted\">{meta}</span>
                 <form method=\"post\" action=\"/games/{id}/archive\" class=\"inline\"><button class=\"small\">{archive}</button></form>
                 <form method=\"post\" action=\"/games/{id}/delete\" class=\"inline\" data-confirm=\"{confirm}\" data-confirm-yes=\"{delete_yes}\" data-confirm-no=\"{keep}\"><button class=\"small danger\">{delete}</button></form></li>",
                id = esc(&g.id),
                title = esc(&g.title),
                archive = ui.h(keys::WEB_GAMES_ARCHIVE, &[]),
                confirm = ui.h(keys::WEB_GAMES_DELETE_CONFIRM, &[]),
                delete = ui.h(keys::WEB_GAMES_DELETE, &[]),
                delete_yes = ui.h(keys::SHELL_JS_DELETE_YES, &[]),
                keep = ui.h(keys::SHELL_JS_KEEP, &[]),
            ));
        }
        b.push_str("</ul>");
    }
    if let Ok(archived) = archived {
        if !archived.is_empty() {
            b.push_str(&format!(
                "<details><summary>{}</summary><ul class=\"games\">",
                ui.h(keys::WEB_GAMES_ARCHIVED, &[])
            ));
            for g in &archived {
                b.push_str(&format!("<li><a href=\"/games/{id}\">{}</a> <form method=\"post\" action=\"/games/{id}/restore\" class=\"inline\"><button class=\"small\">{}</button></form></li>", esc(&g.title), ui.h(keys::WEB_GAMES_RESTORE, &[]), id = esc(&g.id)));
            }
            b.push_str("</ul></details>");
        }
    }
    b.push_str(&format!(
        "<h2>{}</h2><form method=\"post\" action=\"/games\" class=\"stack\"><label>{} <select name=\"scenario\">",
        ui.h(keys::WEB_GAMES_NEW, &[]),
        ui.h(keys::WEB_GAMES_SHIPPED, &[])
    ));
    // By rule set, each by its title and date (issue 17, item 13: no file ids to read).
    for (rules, list) in &scenarios::by_rule_set(ui.lang) {
        b.push_str(&format!("<optgroup label=\"{}\">", ui.e(rules)));
        for (id, label) in list {
            b.push_str(&format!(
                "<option value=\"{}\">{}</option>",
                esc(id),
                esc(label)
            ));
        }
        b.push_str("</optgroup>");
    }
    b.push_str(&format!(
        "<option value=\"\">{}</option></select></label>",
        ui.h(keys::WEB_GAMES_OWN_FILE, &[])
    ));
    b.push_str(&format!(
        "<label>{} <input type=\"file\" id=\"scenario-file\" accept=\".toml,text/plain\"></label><label>{}<textarea name=\"toml\" id=\"scenario-text\" rows=\"6\" placeholder=\"ruleset = &quot;{}&quot;&#10;title = ...\">{}</textarea></label><button class=\"primary\">{}</button></form>",
        ui.h(keys::WEB_GAMES_UPLOAD, &[]),
        ui.h(keys::WEB_GAMES_PASTE, &[]),
        esc(registry::all()[0].alias()),
        esc(toml),
        ui.h(keys::WEB_GAMES_START, &[])
    ));
    if let Some(e) = error {
        b.push_str(&format!(
            "<pre class=\"error\" id=\"scenario-errors\">{}</pre>",
            ui.e(e)
        ));
    }
    // Simulated battles of a shipped scenario whose rule set plays itself.
    let simulable: Vec<(&str, String)> = scenarios::parsed()
        .iter()
        .filter(|(_, sc)| registry::lookup(&sc.ruleset).is_ok_and(|r| r.simulator().is_some()))
        .map(|(s, sc)| (s.id, sc.title.get(ui.lang).to_string()))
        .collect();
    if !simulable.is_empty() {
        b.push_str(&format!(
            "<h2>{}</h2><p class=\"muted\">{}</p><form method=\"post\" action=\"/simulations?lang={}\" class=\"stack\" id=\"simulate\"><select name=\"scenario\">",
            ui.h(keys::WEB_SIM_JOB_HEADING, &[]),
            ui.h(keys::WEB_SIM_JOB_INTRO, &[]),
            ui.lang.code()
        ));
        for (id, title) in &simulable {
            b.push_str(&format!(
                "<option value=\"{}\">{}</option>",
                esc(id),
                esc(title)
            ));
        }
        b.push_str(&format!(
            "</select><button>{}</button></form>",
            ui.h(keys::WEB_SIM_JOB_START, &[])
        ));
    }
    b.push_str(&format!(
        "<h2>{}</h2><ul>",
        ui.h(keys::WEB_GAMES_RULES, &[])
    ));
    for r in registry::all().iter().filter(|r| r.available()) {
        b.push_str(&format!(
            "<li><a href=\"/rules/{}\">{}</a></li>",
            esc(r.id()),
            ui.e(&r.title())
        ));
    }
    b.push_str("</ul>");
    let status = if error.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    (status, page(ui, &ui.t(keys::WEB_GAMES_TITLE, &[]), &b)).into_response()
}

#[derive(Deserialize)]
pub(super) struct NewGameForm {
    scenario: String,
    #[serde(default)]
    toml: String,
}

pub(super) async fn create_from_form(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Form(f): Form<NewGameForm>,
) -> Response {
    let source = if f.toml.trim().is_empty() {
        f.scenario.clone()
    } else {
        f.toml.clone()
    };
    if source.trim().is_empty() {
        let choose = ui.t(keys::WEB_GAMES_CHOOSE, &[]);
        return home_with(&st, &ui, Some(&choose), &f.toml).await;
    }
    let st2 = st.clone();
    let created = tokio::task::spawn_blocking(move || {
        let (id, g) = api::new_game(&st2, &source, None)?;
        let gm = g.seats.first().map(|s| s.token.clone());
        // Kept so that its page does not read it again; a copy that cannot be kept is read
        // there, where what fails is shown.
        api::keep_live(&st2, &id, g).ok();
        Ok::<_, api::ApiError>(gm)
    })
    .await;
    match created {
        Ok(Ok(Some(gm))) => Redirect::to(&format!("/s/{gm}")).into_response(),
        Ok(Ok(None)) => Redirect::to("/").into_response(),
        Ok(Err(e)) => home_with(&st, &ui, Some(e.message()), &f.toml).await,
        Err(e) => home_with(&st, &ui, Some(&e.to_string()), &f.toml).await,
    }
}

pub(super) async fn archive(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(id): Path<String>,
) -> Response {
    set_archived(&st, &ui, id, true).await
}

pub(super) async fn restore(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(id): Path<String>,
) -> Response {
    set_archived(&st, &ui, id, false).await
}

async fn set_archived(st: &Arc<AppState>, ui: &Ui, id: String, archived: bool) -> Response {
    match on_store(st, move |s| s.set_archived(&id, archived)).await {
        Ok(true) => Redirect::to("/").into_response(),
        Ok(false) => not_found_page(&ui.at("/")),
        Err(e) => error_page(&ui.at("/"), StatusCode::SERVICE_UNAVAILABLE, &e),
    }
}

pub(super) async fn delete(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(id): Path<String>,
) -> Response {
    let gone = id.clone();
    match on_store(&st, move |s| s.delete(&gone)).await {
        Ok(true) => {
            st.forget(&id);
            st.notify(&id);
            Redirect::to("/").into_response()
        }
        Ok(false) => not_found_page(&ui.at("/")),
        Err(e) => error_page(&ui.at("/"), StatusCode::SERVICE_UNAVAILABLE, &e),
    }
}

/// Seconds since 1970 as `YYYY-MM-DD HH:MM` (UTC), without a date library.
fn utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970 (the proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_dates() {
        assert_eq!(super::utc(0), "1970-01-01 00:00");
        assert_eq!(
            super::utc(1_795_910_400 + 19 * 3600 + 5 * 60),
            "2026-11-29 19:05"
        );
        assert_eq!(super::utc(951_782_400), "2000-02-29 00:00");
    }
}
