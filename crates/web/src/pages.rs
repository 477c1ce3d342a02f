//! Server-rendered pages: the games list, the game page (the seeds' app, improved), the rules
//! reference. All user text goes through [`esc`]. The game page's script is small and embedded.

use std::sync::Arc;

use axum::extract::{Form, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use serde_json::Value;
use tercio_core::{LogEntry, Resolution};
use tercio_i18n::keys;
use tercio_rules::game::GameEvent;
use tercio_rules::{registry, report};
use tercio_store::{Role, SideRights};

use crate::api::{self, ApiError};
use crate::lang::Ui;
use crate::seat::{self, SeatCtx};
use crate::{assets, scenarios, AppState};

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
        .route("/games", post(create_from_form))
        .route("/games/{id}", get(game_master_of))
        .route("/games/{id}/archive", post(archive))
        .route("/games/{id}/restore", post(restore))
        .route("/games/{id}/delete", post(delete))
        .route_layer(axum::middleware::from_fn_with_state(state, host_only));
    Router::new()
        .merge(host)
        .route("/", get(home))
        .route("/s/{token}", get(seat_page))
        .route("/s/{token}/log", get(seat_log_page))
        .route("/s/{token}/unavailable", get(unavailable))
        .route("/s/{token}/dice", get(dice_page))
        .route("/s/{token}/report.md", get(report_md))
        .route("/rules/{id}", get(rules_page))
        .route("/static/{file}", get(assets::file))
        .route("/favicon.ico", get(assets::favicon))
}

/// A page in the request's language: `<html lang>`, the title, and the language switch in the
/// header.
fn page(ui: &Ui, title: &str, body: &str) -> Html<String> {
    shell(
        ui,
        title,
        "<a href=\"/\" class=\"brand\">Tercio</a>",
        "",
        body,
    )
}

/// A seat's page: the header carries the live-connection indicator.
fn page_live(ui: &Ui, title: &str, body: &str) -> Html<String> {
    let live = format!(
        "<span id=\"live\" class=\"live\" role=\"status\">{}</span>",
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
        "<!doctype html><html lang=\"{lang}\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title><link rel=\"stylesheet\" href=\"{css}\"><link rel=\"icon\" type=\"image/svg+xml\" href=\"{icon}\"></head><body><header class=\"top\">{brand}{switch}{extra}</header><main>{body}</main></body></html>",
        lang = ui.lang.code(),
        title = ui.h(keys::WEB_PAGE_TITLE, &[("title", title)]),
        switch = ui.switch(),
        css = assets::css(),
        icon = assets::icon()
    ))
}

pub async fn not_found(ui: Ui) -> Response {
    not_found_page(&ui)
}

fn not_found_page(ui: &Ui) -> Response {
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

fn error_page(ui: &Ui, status: StatusCode, e: &ApiError) -> Response {
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

#[derive(Deserialize)]
struct KeyQuery {
    key: Option<String>,
}

/// The host's page (all games, a new game) with the host key; without it, a page telling players
/// to use their own link. `/?key=KEY` (the address `tercio serve` prints) sets the key as a
/// cookie, strict to this site, and drops it from the address bar.
async fn home(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    headers: HeaderMap,
    Query(q): Query<KeyQuery>,
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
                        "{}={k}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000",
                        api::HOST_COOKIE
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
async fn host_only(
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
async fn game_master_of(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(id): Path<String>,
) -> Response {
    match st.store.seats(&id) {
        Ok(seats) => match seats.into_iter().next() {
            Some(gm) => Redirect::to(&format!("/s/{}", gm.token)).into_response(),
            None => not_found_page(&ui),
        },
        Err(e) => error_page(&ui, StatusCode::SERVICE_UNAVAILABLE, &e.into()),
    }
}

/// The host's page; `error`: why the last new game was not made (then `toml` is what was sent).
/// Drawn in answer to a form's POST too, so its language switch points at `/`.
async fn home_with(st: &AppState, ui: &Ui, error: Option<&str>, toml: &str) -> Response {
    let ui = &ui.at("/");
    let games = match st.store.list(false) {
        Ok(g) => g,
        Err(e) => return error_page(ui, StatusCode::SERVICE_UNAVAILABLE, &e.into()),
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
                 <form method=\"post\" action=\"/games/{id}/delete\" class=\"inline\" data-confirm=\"{confirm}\" onsubmit=\"return confirm(this.dataset.confirm)\"><button class=\"small danger\">{delete}</button></form></li>",
                id = esc(&g.id),
                title = esc(&g.title),
                archive = ui.h(keys::WEB_GAMES_ARCHIVE, &[]),
                confirm = ui.h(keys::WEB_GAMES_DELETE_CONFIRM, &[]),
                delete = ui.h(keys::WEB_GAMES_DELETE, &[]),
            ));
        }
        b.push_str("</ul>");
    }
    if let Ok(archived) = st.store.list(true) {
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
    for s in scenarios::SHIPPED {
        b.push_str(&format!("<option value=\"{0}\">{0}</option>", esc(s.id)));
    }
    b.push_str(&format!(
        "<option value=\"\">{}</option></select></label>",
        ui.h(keys::WEB_GAMES_OWN_FILE, &[])
    ));
    b.push_str(&format!(
        "<label>{} <input type=\"file\" id=\"scenario-file\" accept=\".toml,text/plain\"></label><label>{}<textarea name=\"toml\" id=\"scenario-text\" rows=\"6\" placeholder=\"ruleset = &quot;egc&quot;&#10;title = ...\">{}</textarea></label><button class=\"primary\">{}</button></form>",
        ui.h(keys::WEB_GAMES_UPLOAD, &[]),
        ui.h(keys::WEB_GAMES_PASTE, &[]),
        esc(toml),
        ui.h(keys::WEB_GAMES_START, &[])
    ));
    if let Some(e) = error {
        b.push_str(&format!(
            "<pre class=\"error\" id=\"scenario-errors\">{}</pre>",
            ui.e(e)
        ));
    }
    b.push_str("<script>document.getElementById('scenario-file').addEventListener('change', e => { const f = e.target.files[0]; if (f) f.text().then(t => { document.getElementById('scenario-text').value = t; }); });</script>");
    b.push_str(&format!(
        "<h2>{}</h2><ul>",
        ui.h(keys::WEB_GAMES_RULES, &[])
    ));
    for r in registry::all().iter().filter(|r| r.available()) {
        b.push_str(&format!(
            "<li><a href=\"/rules/{}\">{}</a></li>",
            esc(r.id()),
            ui.e(r.name())
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
    #[test]
    fn escaping() {
        assert_eq!(
            super::esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}

#[derive(Deserialize)]
struct NewGameForm {
    scenario: String,
    #[serde(default)]
    toml: String,
}

async fn create_from_form(
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
    let created = tokio::task::spawn_blocking(move || api::new_game(&st2, &source, None)).await;
    match created {
        Ok(Ok(id)) => match st.store.seats(&id).map(|s| s.into_iter().next()) {
            Ok(Some(gm)) => Redirect::to(&format!("/s/{}", gm.token)).into_response(),
            _ => Redirect::to("/").into_response(),
        },
        Ok(Err(e)) => home_with(&st, &ui, Some(e.message()), &f.toml).await,
        Err(e) => home_with(&st, &ui, Some(&e.to_string()), &f.toml).await,
    }
}

async fn archive(State(st): State<Arc<AppState>>, ui: Ui, Path(id): Path<String>) -> Response {
    set_archived(&st, &ui, &id, true)
}

async fn restore(State(st): State<Arc<AppState>>, ui: Ui, Path(id): Path<String>) -> Response {
    set_archived(&st, &ui, &id, false)
}

fn set_archived(st: &AppState, ui: &Ui, id: &str, archived: bool) -> Response {
    match st.store.set_archived(id, archived) {
        Ok(true) => Redirect::to("/").into_response(),
        Ok(false) => not_found_page(&ui.at("/")),
        Err(e) => error_page(&ui.at("/"), StatusCode::SERVICE_UNAVAILABLE, &e.into()),
    }
}

async fn delete(State(st): State<Arc<AppState>>, ui: Ui, Path(id): Path<String>) -> Response {
    match st.store.delete(&id) {
        Ok(true) => {
            st.forget(&id);
            st.notify(&id);
            Redirect::to("/").into_response()
        }
        Ok(false) => not_found_page(&ui.at("/")),
        Err(e) => error_page(&ui.at("/"), StatusCode::SERVICE_UNAVAILABLE, &e.into()),
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

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or("")
}

/// A seat's `#main`, the element live updates patch: [`game_main`] in a `<div id="main">` that
/// says which view it is (`data-seq`, the log entries it was drawn from; `data-etag`, the view's
/// version, [`SeatCtx::etag`]).
pub fn seat_main(ctx: &SeatCtx, ui: &Ui, base: &str) -> String {
    format!(
        "<div id=\"main\" data-seq=\"{}\" data-etag=\"{}\">{}</div>",
        ctx.seq(),
        esc(&ctx.etag(ui.lang)),
        game_main(ctx, ui, base)
    )
}

/// The inner HTML of a seat's game page: everything live updates redraw. A rule set that
/// describes its board and actions as data gets the generic page ([`crate::board`]); the
/// app-driven rule sets (A Bloody Dismal Fight, El Gran Capitán) their own app. Both share the
/// heading, the game-over verdict, the dice and the log.
pub fn game_main(ctx: &SeatCtx, ui: &Ui, base: &str) -> String {
    let state = ctx.state();
    let mut b = heading(ctx, ui, base);
    b.push_str(&scenario_notes(ctx, ui));
    match ctx.game.engine.board(&state) {
        Some(board) => b.push_str(&crate::board::board_main(ctx, ui, &state, &board)),
        None => b.push_str(&app_main(ctx, ui, &state)),
    }
    b.push_str(&dice_and_log(ctx, ui));
    b
}

/// The top of every seat's page: the title line (rule set, its reference, who you are) and, for
/// the game master, the players' links and the settings.
fn heading(ctx: &SeatCtx, ui: &Ui, base: &str) -> String {
    let g = &ctx.game;
    let rules = registry::lookup(&g.ruleset).ok();
    let mut b = format!(
        "<h1 id=\"title\">{}</h1><p class=\"muted\" id=\"subtitle\">{} · <a href=\"/rules/{}\">{}</a> · <span class=\"seat\">{}</span></p>",
        esc(&g.scenario.title),
        ui.e(rules.map_or(g.ruleset.as_str(), |r| r.name())),
        esc(&g.ruleset),
        ui.h(keys::WEB_GAME_RULES_LINK, &[]),
        ui.html(
            keys::WEB_GAME_YOU_ARE_HTML,
            &[("seat", &ui.loc(&ctx.seat_label()))]
        )
    );
    if ctx.is_gm() {
        b.push_str(&seats_panel(ctx, ui, base));
    }
    b
}

/// The scenario's notes (deployment, terrain, obstacles, special rules) and its sources, for
/// every seat, closed until opened (the page's script keeps it open across live redraws). The
/// notes are the scenario's own text, escaped: a paragraph per blank-line-separated block, its
/// lines (a "- " list) kept as written.
fn scenario_notes(ctx: &SeatCtx, ui: &Ui) -> String {
    let sc = &ctx.game.scenario;
    let mut paragraphs: Vec<Vec<&str>> = vec![Vec::new()];
    for line in sc.notes.as_deref().unwrap_or("").lines() {
        if line.trim().is_empty() {
            paragraphs.push(Vec::new());
        } else if let Some(p) = paragraphs.last_mut() {
            p.push(line.trim_end());
        }
    }
    paragraphs.retain(|p| !p.is_empty());
    let sources: Vec<&String> = sc.sources.iter().filter(|s| !s.trim().is_empty()).collect();
    if paragraphs.is_empty() && sources.is_empty() {
        return String::new();
    }
    let mut b = format!(
        "<section class=\"scenario-notes\" id=\"scenario-notes\"><details><summary><h2>{}</h2></summary>",
        ui.h(keys::WEB_GAME_NOTES, &[])
    );
    for p in &paragraphs {
        b.push_str(&format!("<p>{}</p>", esc(&p.join("\n"))));
    }
    if !sources.is_empty() {
        b.push_str(&format!(
            "<h3>{}</h3><ul class=\"sources\">",
            ui.h(keys::WEB_GAME_SOURCES, &[])
        ));
        for s in sources {
            b.push_str(&format!("<li>{}</li>", esc(s)));
        }
        b.push_str("</ul>");
    }
    b.push_str("</details></section>");
    b
}

/// The verdict of a decided battle ("Game over. …", in the page's language) and, until the game
/// master has ended the game, what happens next: the game master is asked to end it (or undo a
/// mistaken last action), the others are told it is coming.
pub(crate) fn game_over(ctx: &SeatCtx, ui: &Ui, verdict: &str) -> String {
    let mut b = format!("<span class=\"verdict\">{}</span>", esc(verdict));
    if !ctx.ended() {
        if ctx.is_gm() {
            b.push_str(&format!(
                "<p id=\"decided\" class=\"notice\">{}</p>",
                ui.html(keys::WEB_GAME_DECIDED_GM_HTML, &[])
            ));
        } else {
            b.push_str(&format!(
                "<p id=\"decided\" class=\"muted\">{}</p>",
                ui.h(keys::WEB_GAME_DECIDED_OTHER, &[])
            ));
        }
    }
    b
}

/// A unit's status as the app-driven page shows it.
fn status_key(status: &str) -> Option<&'static str> {
    Some(match status {
        "ok" => keys::WEB_APP_STATUSES_OK,
        "disordered" => keys::WEB_APP_STATUSES_DISORDERED,
        "demoralized" => keys::WEB_APP_STATUSES_DEMORALIZED,
        "destroyed" => keys::WEB_APP_STATUSES_DESTROYED,
        _ => return None,
    })
}

/// The Cover/Ground options, by the ids the engine takes.
fn ground_key(ground: &str) -> Option<&'static str> {
    Some(match ground {
        "open" => keys::WEB_APP_GROUNDS_OPEN,
        "rough" => keys::WEB_APP_GROUNDS_ROUGH,
        "very-rough" => keys::WEB_APP_GROUNDS_VERY_ROUGH,
        "rough-cover" => keys::WEB_APP_GROUNDS_ROUGH_COVER,
        "very-rough-cover" => keys::WEB_APP_GROUNDS_VERY_ROUGH_COVER,
        "obstacle" => keys::WEB_APP_GROUNDS_OBSTACLE,
        "fortified" => keys::WEB_APP_GROUNDS_FORTIFIED,
        "actor-uphill" => keys::WEB_APP_GROUNDS_ACTOR_UPHILL,
        "target-uphill" => keys::WEB_APP_GROUNDS_TARGET_UPHILL,
        _ => return None,
    })
}

/// The Cover/Ground options: the engine's ids as values, the page's words as labels.
fn ground_options(ui: &Ui) -> String {
    let mut b = String::new();
    for gr in tercio_rules::app_driven::model::Ground::ALL {
        let label = ground_key(gr).map_or_else(|| ui.e(gr), |k| ui.h(k, &[]));
        b.push_str(&format!("<option value=\"{}\">{label}</option>", esc(gr)));
    }
    b
}

/// The status choices of the app's fields ("as tracked", then each status).
fn status_options(ui: &Ui) -> String {
    let mut b = format!(
        "<option value=\"\">{}</option>",
        ui.h(keys::WEB_APP_AS_TRACKED, &[])
    );
    for (v, k) in [
        ("ok", keys::WEB_APP_STATUSES_OK),
        ("disordered", keys::WEB_APP_STATUSES_DISORDERED),
        ("demoralized", keys::WEB_APP_STATUSES_DEMORALIZED),
    ] {
        b.push_str(&format!("<option value=\"{v}\">{}</option>", ui.h(k, &[])));
    }
    b
}

/// The app-driven rule sets' page: the turn and initiative, the turn's controls, the app's
/// action fields, the armies.
fn app_main(ctx: &SeatCtx, ui: &Ui, state: &Value) -> String {
    let g = &ctx.game;
    let engine = &ctx.game.engine;
    let gm = ctx.is_gm();
    let acts = ctx.may_act();
    let my_side = ctx.side().map(str::to_string);
    // Units and leaders this seat may act with: all for the game master, its own for a side.
    let mine = |side: &str| gm || my_side.as_deref() == Some(side);
    let rules = registry::lookup(&g.ruleset).ok();
    let reference = rules.map(|r| r.reference()).unwrap_or(Value::Null);
    let troop_name = |t: &str| -> String {
        reference["charts"]["troops"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["id"] == t))
            .map_or(t.to_string(), |x| s(x, "name").to_string())
    };
    let side_name = |sid: &str| -> String {
        g.scenario
            .side(sid)
            .map_or(sid.to_string(), |x| x.name.clone())
    };
    let phase = s(state, "phase");
    // Turn and initiative.
    let mut b = String::new();
    b.push_str(&format!(
        "<section class=\"turn\" id=\"turn\"><strong>{}</strong> — ",
        ui.h(keys::WEB_APP_TURN, &[("turn", &state["turn"].to_string())])
    ));
    match phase {
        "over" => {
            let broken: Vec<String> = state["broken"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(&side_name)
                .collect();
            let winner: Vec<String> = g
                .scenario
                .sides
                .iter()
                .filter(|x| {
                    !state["broken"]
                        .as_array()
                        .is_some_and(|b| b.iter().any(|y| y == x.id.as_str()))
                })
                .map(|x| x.name.clone())
                .collect();
            let verdict = if broken.len() > 1 {
                ui.t(keys::WEB_APP_DRAW, &[])
            } else {
                ui.t(
                    keys::WEB_APP_WINS,
                    &[("winner", &winner.join("")), ("broken", &broken.join(""))],
                )
            };
            b.push_str(&game_over(
                ctx,
                ui,
                &ui.t(keys::WEB_GAME_OVER, &[("verdict", &verdict)]),
            ));
        }
        "end-of-turn" => b.push_str(&ui.h(keys::WEB_APP_END_OF_TURN_PHASE, &[])),
        _ => {
            b.push_str(&ui.h(keys::WEB_APP_INITIATIVES_PHASE, &[]));
            if let Some(side) = state["initiative_side"].as_str() {
                b.push_str(&ui.html(keys::WEB_APP_INITIATIVE_HTML, &[("side", &side_name(side))]));
                if let Some(cur) = state["current"].as_object() {
                    let l = cur.get("leader").and_then(Value::as_str).unwrap_or("");
                    let lname = s(&state["leaders"][l], "name");
                    let left = cur
                        .get("activations_left")
                        .cloned()
                        .unwrap_or(Value::Null)
                        .to_string();
                    b.push_str(&ui.html(
                        keys::WEB_APP_ACTIVATIONS_LEFT_HTML,
                        &[("leader", lname), ("count", &left)],
                    ));
                }
            }
        }
    }
    b.push_str("</section>");

    // Turn controls.
    let leaders = state["leaders"].as_object().cloned().unwrap_or_default();
    let units = state["units"].as_object().cloned().unwrap_or_default();
    b.push_str("<section class=\"controls\" id=\"controls\">");
    match phase {
        _ if ctx.ended() => {}
        "command" => {
            if gm {
                b.push_str(&format!(
                    "<button class=\"primary\" data-turn='{{\"action\":\"initiative\"}}'>{}</button>",
                    ui.h(keys::WEB_APP_INITIATIVE_BUTTON, &[])
                ));
            }
            if let Some(side) = state["initiative_side"]
                .as_str()
                .filter(|sd| acts && mine(sd))
            {
                if state["current"].is_null() {
                    b.push_str("<span class=\"group\"><select id=\"command-leader\">");
                    for l in leaders.values().filter(|l| {
                        s(l, "side") == side
                            && l["fate"].is_null()
                            && l["had_initiative"] != true
                            && l["caught_up"] != true
                    }) {
                        b.push_str(&format!(
                            "<option value=\"{}\">{}</option>",
                            esc(s(l, "id")),
                            esc(s(l, "name"))
                        ));
                    }
                    b.push_str(&format!(
                        "</select><button class=\"primary\" id=\"command\">{}</button></span>",
                        ui.h(keys::WEB_APP_COMMAND_BUTTON, &[])
                    ));
                }
            }
            if gm {
                b.push_str(&format!(
                    "<button data-turn='{{\"action\":\"end-initiatives\"}}'>{}</button>",
                    ui.h(keys::WEB_APP_END_INITIATIVES, &[])
                ));
            }
        }
        "end-of-turn" if !gm => {
            b.push_str(&format!(
                "<p class=\"muted\">{}</p>",
                ui.h(keys::WEB_APP_GM_RESOLVING, &[])
            ));
        }
        "end-of-turn" => {
            b.push_str(&format!(
                "<div class=\"endturn\"><h3>{}</h3><ol>",
                ui.h(keys::WEB_APP_END_OF_TURN, &[])
            ));
            let tracked: Option<tercio_rules::app_driven::model::GameState> =
                serde_json::from_value(state.clone()).ok();
            let swiss: Vec<(String, String)> = tracked
                .as_ref()
                .map(|st| {
                    tercio_rules::app_driven::game::swiss_to_charge(st)
                        .iter()
                        .map(|u| (u.id.clone(), u.name.clone()))
                        .collect()
                })
                .unwrap_or_default();
            if g.ruleset == "el-gran-capitan" && !swiss.is_empty() {
                b.push_str(&format!("<li>{}", ui.html(keys::WEB_APP_SWISS_HTML, &[])));
                b.push_str(&format!("{}<br>", ui.h(keys::WEB_APP_SWISS_STILL, &[])));
                for (id, name) in &swiss {
                    b.push_str(&format!("<label class=\"check\"><input type=\"checkbox\" class=\"no-target\" id=\"no-target-{0}\" value=\"{0}\"> {1}</label>", esc(id), ui.h(keys::WEB_APP_SWISS_NONE, &[("unit", name)])));
                }
                b.push_str("</li>");
            }
            b.push_str(&format!(
                "<li>{}<div id=\"end-fires\">",
                ui.h(keys::WEB_APP_END_FIRE, &[])
            ));
            let shooters: Vec<&Value> = units
                .values()
                .filter(|u| {
                    u["destroyed"] != true
                        && u["acted"] != true
                        && u["in_combat_with"].as_array().is_none_or(Vec::is_empty)
                        && reference["charts"]["troops"]
                            .as_array()
                            .and_then(|a| a.iter().find(|x| x["id"] == u["type"]))
                            .is_some_and(|t| !t["fire"].is_null())
                })
                .collect();
            if shooters.is_empty() {
                b.push_str(&format!(
                    "<p class=\"muted\">{}</p>",
                    ui.h(keys::WEB_APP_NO_FIRE, &[])
                ));
            }
            for u in shooters {
                b.push_str(&format!("<div class=\"fire-row\" data-actor=\"{0}\"><span>{1}</span> <select class=\"fire-target\" id=\"fire-target-{0}\"><option value=\"\">{2}</option>", esc(s(u, "id")), esc(s(u, "name")), ui.h(keys::WEB_APP_HOLDS_FIRE, &[])));
                for t in units
                    .values()
                    .filter(|t| t["side"] != u["side"] && t["destroyed"] != true)
                {
                    b.push_str(&format!(
                        "<option value=\"{}\">{}</option>",
                        esc(s(t, "id")),
                        esc(s(t, "name"))
                    ));
                }
                b.push_str(&format!(
                    "</select> <select class=\"fire-ground\" id=\"fire-ground-{}\">",
                    esc(s(u, "id"))
                ));
                b.push_str(&ground_options(ui));
                b.push_str("</select></div>");
            }
            b.push_str(&format!(
                "</div><button class=\"primary\" id=\"end-fire\">{}</button></li><li>{}",
                ui.h(keys::WEB_APP_FIRE_BUTTON, &[]),
                ui.h(keys::WEB_APP_CAMPS, &[])
            ));
            for sd in &g.scenario.sides {
                if sd.camp {
                    b.push_str(&format!("<label class=\"check\"><input type=\"checkbox\" class=\"camp\" id=\"camp-{0}\" value=\"{0}\"> {1} <select class=\"looters\" id=\"looters-{0}\" data-side=\"{0}\" multiple>", esc(&sd.id), ui.h(keys::WEB_APP_CAMP_BY, &[("side", &sd.name)])));
                    for u in units
                        .values()
                        .filter(|u| s(u, "side") != sd.id && u["destroyed"] != true)
                    {
                        b.push_str(&format!(
                            "<option value=\"{}\">{}</option>",
                            esc(s(u, "id")),
                            esc(s(u, "name"))
                        ));
                    }
                    b.push_str("</select></label>");
                }
            }
            b.push_str(&format!(
                "</li><li><button class=\"primary\" id=\"end-turn\">{}</button></li></ol></div>",
                ui.h(keys::WEB_APP_NEXT_TURN, &[])
            ));
        }
        _ => {}
    }
    b.push_str("</section>");

    // The action form: the app's fields.
    if phase != "over" && acts {
        b.push_str(&format!(
            "<section class=\"app\" id=\"app\"><h2>{}</h2><div class=\"fields\">",
            ui.h(keys::WEB_APP_ACTION, &[])
        ));
        b.push_str(&format!(
            "<label>{} <select id=\"f-actor\">",
            ui.h(keys::WEB_APP_UNIT, &[])
        ));
        // The units the current leader may activate come first.
        let current = state["current"]["leader"].as_str().and_then(|l| {
            serde_json::from_value::<tercio_rules::app_driven::model::GameState>(state.clone())
                .ok()
                .map(|st| (l.to_string(), st))
        });
        let mut ordered: Vec<&Value> = units
            .values()
            .filter(|u| u["destroyed"] != true && mine(s(u, "side")))
            .collect();
        ordered.sort_by_key(|u| s(u, "side").to_string());
        if let Some((l, st)) = &current {
            let commanded = |u: &Value| {
                st.leaders
                    .get(l)
                    .zip(st.units.get(s(u, "id")))
                    .is_some_and(|(l, u)| {
                        tercio_rules::app_driven::game::commands(st, l, u) && !u.acted
                    })
            };
            ordered.sort_by_key(|u| (!commanded(u), s(u, "side").to_string()));
        }
        let lname = current
            .as_ref()
            .map(|(l, st)| st.leaders.get(l).map_or(String::new(), |x| x.name.clone()))
            .unwrap_or_default();
        let commanded_by = |u: &Value| {
            current.as_ref().is_some_and(|(l, st)| {
                st.leaders
                    .get(l)
                    .zip(st.units.get(s(u, "id")))
                    .is_some_and(|(l, u)| {
                        tercio_rules::app_driven::game::commands(st, l, u) && !u.acted
                    })
            })
        };
        let mut group = String::new();
        for u in ordered {
            let (g, gid) = if commanded_by(u) {
                (
                    ui.t(keys::WEB_APP_MAY_ACTIVATE, &[("leader", &lname)]),
                    "og-actor".to_string(),
                )
            } else {
                (side_name(s(u, "side")), dom_id("og-actor", s(u, "side")))
            };
            if g != group {
                if !group.is_empty() {
                    b.push_str("</optgroup>");
                }
                b.push_str(&format!(
                    "<optgroup id=\"{}\" label=\"{}\">",
                    esc(&gid),
                    esc(&g)
                ));
                group = g;
            }
            b.push_str(&format!(
                "<option id=\"{}\" value=\"{}\" data-side=\"{}\">{}{}</option>",
                esc(&dom_id("o-actor", s(u, "id"))),
                esc(s(u, "id")),
                esc(s(u, "side")),
                esc(s(u, "name")),
                if u["acted"] == true {
                    ui.h(keys::WEB_APP_ACTED_SUFFIX, &[])
                } else {
                    String::new()
                }
            ));
        }
        if !group.is_empty() {
            b.push_str("</optgroup>");
        }
        b.push_str(&format!(
            "</select></label><label>{} <select id=\"f-action\">",
            ui.h(keys::WEB_APP_ACTION, &[])
        ));
        for (v, label) in [
            ("charge", keys::WEB_APP_ACTIONS_CHARGE),
            ("fire", keys::WEB_APP_ACTIONS_FIRE),
            ("melee", keys::WEB_APP_ACTIONS_MELEE),
            ("advance", keys::WEB_APP_ACTIONS_ADVANCE),
            ("march", keys::WEB_APP_ACTIONS_MARCH),
            ("retire", keys::WEB_APP_ACTIONS_RETIRE),
            ("regroup", keys::WEB_APP_ACTIONS_REGROUP),
        ] {
            b.push_str(&format!(
                "<option value=\"{v}\">{}</option>",
                ui.h(label, &[])
            ));
        }
        b.push_str(&format!(
            "</select></label><p id=\"unavailable\" class=\"muted\"></p><label data-for=\"charge fire melee retire regroup\">{} <select id=\"f-astatus\">{}</select></label>",
            ui.h(keys::WEB_APP_ACTOR_STATUS, &[]),
            status_options(ui)
        ));
        b.push_str(&format!(
            "<label data-for=\"charge fire melee retire regroup\">{} <select id=\"f-target\"><option id=\"o-target\" value=\"\">—</option>",
            ui.h(keys::WEB_APP_TARGET, &[])
        ));
        for u in units.values().filter(|u| u["destroyed"] != true) {
            b.push_str(&format!(
                "<option id=\"{}\" value=\"{}\" data-side=\"{}\">{}</option>",
                esc(&dom_id("o-target", s(u, "id"))),
                esc(s(u, "id")),
                esc(s(u, "side")),
                esc(s(u, "name"))
            ));
        }
        b.push_str(&format!(
            "</select></label><label data-for=\"charge fire melee retire regroup\">{} <select id=\"f-tstatus\">{}</select></label><label data-for=\"charge fire melee retire regroup\">{} <select id=\"f-ground\">{}</select></label>",
            ui.h(keys::WEB_APP_TARGET_STATUS, &[]),
            status_options(ui),
            ui.h(keys::WEB_APP_GROUND, &[]),
            ground_options(ui)
        ));
        b.push_str(&format!(
            "<label data-for=\"charge fire melee retire\">{} <select id=\"f-force\"><option value=\"\">{}</option>",
            ui.h(keys::WEB_APP_FORCE, &[]),
            ui.h(keys::WEB_APP_FORCE_AUTO, &[])
        ));
        for (v, l) in [
            ("badly-outnumbered", keys::WEB_APP_FORCES_BADLY_OUTNUMBERED),
            ("outnumbered", keys::WEB_APP_FORCES_OUTNUMBERED),
            ("even", keys::WEB_APP_FORCES_EVEN),
            ("outnumbers", keys::WEB_APP_FORCES_OUTNUMBERS),
            ("badly-outnumbers", keys::WEB_APP_FORCES_BADLY_OUTNUMBERS),
        ] {
            b.push_str(&format!("<option value=\"{v}\">{}</option>", ui.h(l, &[])));
        }
        b.push_str("</select></label>");
        b.push_str(&format!("<label data-for=\"charge melee retire regroup\">{} <input id=\"f-sup-a\" type=\"number\" min=\"0\" max=\"30\" value=\"0\"></label>", ui.h(keys::WEB_APP_SUPPORTING_ACTOR, &[])));
        b.push_str(&format!("<label data-for=\"charge melee retire regroup\">{} <input id=\"f-sup-t\" type=\"number\" min=\"0\" max=\"30\" value=\"0\"></label>", ui.h(keys::WEB_APP_SUPPORTING_TARGET, &[])));
        b.push_str(&format!("<label data-for=\"charge melee retire regroup advance march\">{} <select id=\"f-leader\"><option value=\"\">{}</option>", ui.h(keys::WEB_APP_LEADER_WITH_ACTOR, &[]), ui.h(keys::WEB_APP_AS_ATTACHED, &[])));
        for l in leaders.values().filter(|l| l["fate"].is_null()) {
            b.push_str(&format!(
                "<option value=\"{}\" data-side=\"{}\">{}</option>",
                esc(s(l, "id")),
                esc(s(l, "side")),
                esc(s(l, "name"))
            ));
        }
        b.push_str("</select></label>");
        for (id, label, for_) in [
            ("f-charging", keys::WEB_APP_FLAGS_CHARGING, "melee"),
            (
                "f-aflank",
                keys::WEB_APP_FLAGS_ACTOR_FLANK,
                "melee retire regroup",
            ),
            (
                "f-tflank",
                keys::WEB_APP_FLAGS_TARGET_FLANK,
                "melee retire regroup",
            ),
            ("f-flankcharge", keys::WEB_APP_FLAGS_FLANK_CHARGE, "charge"),
            ("f-ferocious", keys::WEB_APP_FLAGS_FEROCIOUS, "charge"),
            ("f-stakes", keys::WEB_APP_FLAGS_STAKES, "regroup"),
        ] {
            let wanted = match id {
                "f-ferocious" => g.ruleset == "el-gran-capitan",
                "f-stakes" => g.ruleset == "bloody-dismal-fight",
                _ => true,
            };
            if !wanted {
                continue;
            }
            b.push_str(&format!(
                "<label class=\"check\" data-for=\"{for_}\"><input type=\"checkbox\" id=\"{id}\"> {}</label>",
                ui.h(label, &[])
            ));
        }
        b.push_str(&format!("</div><div class=\"odds\" id=\"odds\" aria-live=\"polite\"></div><button class=\"primary big\" id=\"result\">{}</button></section>", ui.h(keys::WEB_APP_RESULT, &[])));
    }

    // State panel.
    let scores = engine.scores(state);
    b.push_str(&format!(
        "<section class=\"state\" id=\"state\"><h2>{}</h2>",
        ui.h(keys::WEB_APP_ARMIES, &[])
    ));
    for side in &g.scenario.sides {
        let (lost, bp) = scores
            .iter()
            .find(|x| x.side == side.id)
            .map_or((0, 0), |x| (x.lost, x.threshold));
        let role = if side.role == tercio_rules::scenario::Role::Attacker {
            keys::WEB_APP_ATTACKER
        } else {
            keys::WEB_APP_DEFENDER
        };
        b.push_str(&format!(
            "<h3 style=\"border-color:{}\">{} <span class=\"muted\">({})</span> <span class=\"bp\" id=\"{}\">{}</span></h3><table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th></th></tr></thead><tbody>",
            esc(&side.colour),
            esc(&side.name),
            ui.h(role, &[]),
            esc(&dom_id("bp", &side.id)),
            ui.h(
                keys::WEB_APP_LOST_OF,
                &[("lost", &lost.to_string()), ("bp", &bp.to_string())]
            ),
            ui.h(keys::WEB_APP_UNIT, &[]),
            ui.h(keys::WEB_APP_STATUS, &[]),
            ui.h(keys::WEB_APP_BASES, &[])
        ));
        for u in units.values().filter(|u| s(u, "side") == side.id) {
            let bases = u["bases"].as_u64().unwrap_or(0);
            let left = bases - u["lost"].as_u64().unwrap_or(0);
            let status = if u["destroyed"] == true {
                "destroyed".to_string()
            } else {
                s(u, "status").to_string()
            };
            let status_text = status_key(&status).map_or_else(|| ui.loc(&status), |k| ui.t(k, &[]));
            let mut notes = vec![];
            if u["acted"] == true && u["destroyed"] != true {
                notes.push(ui.t(keys::WEB_APP_ACTED, &[]));
            }
            if u["march"] == true {
                notes.push(ui.t(keys::WEB_APP_MARCH, &[]));
            }
            if u["stakes_planted"] == true {
                notes.push(ui.t(keys::WEB_APP_STAKES, &[]));
            }
            if let Some(l) = leaders.values().find(|l| l["attached_to"] == u["id"]) {
                notes.push(ui.t(keys::WEB_APP_WITH, &[("name", s(l, "name"))]));
            }
            if let Some(c) = u["in_combat_with"].as_array().filter(|c| !c.is_empty()) {
                let names: Vec<&str> = c
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|x| s(&units[x], "name"))
                    .collect();
                notes.push(ui.t(keys::WEB_APP_FIGHTING, &[("names", &names.join(", "))]));
            }
            b.push_str(&format!(
                "<tr class=\"{}\" id=\"{}\" data-unit=\"{}\" data-status=\"{}\" data-bases=\"{left}\"><td>{}<br><span class=\"muted\">{}</span></td><td class=\"status\">{}</td><td>{left}/{bases}</td><td>{}</td></tr>",
                esc(&status),
                esc(&dom_id("u", s(u, "id"))),
                esc(s(u, "id")),
                esc(&status_key(s(u, "status")).map_or_else(|| ui.loc(s(u, "status")), |k| ui.t(k, &[]))),
                esc(s(u, "name")),
                ui.e(&troop_name(s(u, "type"))),
                esc(&status_text),
                esc(&notes.join("; "))
            ));
        }
        b.push_str("</tbody></table><ul class=\"leaders\">");
        for l in leaders.values().filter(|l| s(l, "side") == side.id) {
            let mut t = vec![];
            if l["army"] == true {
                t.push(ui.t(keys::WEB_APP_ARMY_COMMANDER, &[]));
            }
            if let Some(f) = l["fate"].as_str() {
                t.push(ui.loc(f).to_uppercase());
            }
            if l["had_initiative"] == true {
                t.push(ui.t(keys::WEB_APP_HAD_INITIATIVE, &[]));
            }
            if l["caught_up"] == true {
                t.push(ui.t(keys::WEB_APP_CAUGHT_UP, &[]));
            }
            b.push_str(&format!(
                "<li id=\"{}\">{} <span class=\"muted\">{}</span>",
                esc(&dom_id("l", s(l, "id"))),
                esc(s(l, "name")),
                esc(&t.join(", "))
            ));
            if phase != "over" && acts && mine(s(l, "side")) && l["fate"].is_null() {
                b.push_str(&format!(
                    "<select class=\"attach\" data-leader=\"{}\" aria-label=\"{}\"><option value=\"\">{}</option>",
                    esc(s(l, "id")),
                    ui.h(keys::WEB_APP_ATTACH_LABEL, &[("leader", s(l, "name"))]),
                    ui.h(keys::WEB_APP_STANDS_ALONE, &[])
                ));
                for u in units
                    .values()
                    .filter(|u| u["side"] == l["side"] && u["destroyed"] != true)
                {
                    let sel = if l["attached_to"] == u["id"] {
                        " selected"
                    } else {
                        ""
                    };
                    b.push_str(&format!(
                        "<option value=\"{}\"{sel}>{}</option>",
                        esc(s(u, "id")),
                        ui.h(keys::WEB_APP_WITH, &[("name", s(u, "name"))])
                    ));
                }
                b.push_str("</select>");
            }
            let assigned = leaders.values().any(|o| {
                o["inherited"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|x| x == &l["id"]))
            });
            if phase != "over" && acts && mine(s(l, "side")) && !l["fate"].is_null() && !assigned {
                b.push_str(&format!(
                    "<select class=\"assign\" data-leader=\"{}\"><option value=\"\">{}</option>",
                    esc(s(l, "id")),
                    ui.h(keys::WEB_APP_GIVE_COMMAND, &[])
                ));
                for o in leaders
                    .values()
                    .filter(|o| o["side"] == l["side"] && o["fate"].is_null())
                {
                    b.push_str(&format!(
                        "<option value=\"{}\">{}</option>",
                        esc(s(o, "id")),
                        esc(s(o, "name"))
                    ));
                }
                b.push_str("</select>");
            }
            b.push_str("</li>");
        }
        b.push_str("</ul>");
    }
    b.push_str("</section>");

    b
}

/// The app-driven actions a unit may not take now, each with the reason, in `ui`'s language
/// (an action it may take, or one that only lacks a field or an answer, is left out).
fn unavailable_reasons(
    engine: &dyn tercio_rules::Engine,
    ui: &Ui,
    state: &Value,
    unit: &str,
) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    for kind in [
        "charge", "fire", "melee", "advance", "march", "retire", "regroup",
    ] {
        let probe = serde_json::json!({"action": kind, "actor": unit});
        if let Err(r) = engine.preview(Some(state), &probe) {
            if r.code != "missing-field" && r.code != "question" {
                m.insert(kind.to_string(), Value::String(ui.loc(&r.message)));
            }
        }
    }
    m
}

/// Why the unit `?actor=` may not take each of the app's actions now, as JSON in the page's
/// language: `{"charge": "…", …}`. The action form asks for the unit chosen rather than carrying
/// every unit's reasons: they are long, and a live patch would send a unit's again each time
/// it changes. Only for the app-driven rule sets (`{}` for the others).
async fn unavailable(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(token): Path<String>,
    Query(q): Query<ActorQuery>,
) -> Response {
    let ui2 = ui.clone();
    let ctx = seat::open(&st, &token).await;
    let answer = api::blocking(move || {
        let ctx = ctx?;
        let state = ctx.state();
        if ctx.game.engine.board(&state).is_some() {
            return Ok(serde_json::Map::new());
        }
        Ok(unavailable_reasons(
            ctx.game.engine.as_ref(),
            &ui2,
            &state,
            q.actor.as_deref().unwrap_or(""),
        ))
    })
    .await;
    match answer {
        Ok(m) => (
            [(header::CACHE_CONTROL, "no-store")],
            axum::Json(Value::Object(m)),
        )
            .into_response(),
        Err(e) => {
            let status = if e.code() == "no-such-link" {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            (
                status,
                axum::Json(serde_json::json!({"error": {"code": e.code(), "message": ui.loc(e.message())}})),
            )
                .into_response()
        }
    }
}

#[derive(Deserialize)]
struct ActorQuery {
    actor: Option<String>,
}

/// The bottom of every seat's page: the dice (commitment, the seed once revealed, the reports)
/// and the log with the game master's undo.
fn dice_and_log(ctx: &SeatCtx, ui: &Ui) -> String {
    let g = &ctx.game;
    let gm = ctx.is_gm();
    let mut b = String::new();
    // Dice: the commitment, the seed once the game has ended, the reports.
    let dice = ctx.dice_json();
    b.push_str(&format!(
        "<section class=\"dice\" id=\"dice\"><h2>{}</h2><p>{}</p>",
        ui.h(keys::WEB_DICE_HEADING, &[]),
        ui.html(
            keys::WEB_DICE_COMMITMENT_HTML,
            &[("commitment", dice["commitment"].as_str().unwrap_or(""))]
        )
    ));
    match ctx.revealed_seed() {
        Some((seed, nonce)) => b.push_str(&format!(
            "<p id=\"revealed\">{}</p>",
            ui.html(
                keys::WEB_DICE_REVEALED_HTML,
                &[("seed", &seed.to_string()), ("nonce", nonce)]
            )
        )),
        None => b.push_str(&format!(
            "<p class=\"muted\">{}</p>",
            ui.h(keys::WEB_DICE_HIDDEN, &[])
        )),
    }
    b.push_str(&format!(
        "<p class=\"muted\" id=\"fingerprint\">{}</p>",
        ui.html(
            keys::WEB_DICE_FINGERPRINT_HTML,
            &[("count", &ctx.seq().to_string()), ("digest", &g.chain)]
        )
    ));
    if ctx.game.meta.settings.physical_dice {
        b.push_str(&format!(
            "<p class=\"muted\"><span id=\"physical\" hidden></span>{}</p>",
            ui.h(keys::WEB_DICE_PHYSICAL, &[])
        ));
    }
    b.push_str(&format!(
        "<p><a href=\"/s/{t}/dice\">{}</a> · <a href=\"/s/{t}/report.md\">{}</a> · <a href=\"/api/s/{t}/export\" download>{}</a></p></section>",
        ui.h(keys::WEB_DICE_REPORT, &[]),
        ui.h(keys::WEB_DICE_BATTLE_REPORT, &[]),
        ui.h(keys::WEB_DICE_EXPORT, &[]),
        t = esc(&ctx.seat.token)
    ));

    // Log.
    b.push_str(&format!(
        "<section class=\"log\" id=\"log\"><h2>{}{}</h2>{}</section>",
        ui.h(keys::WEB_LOG_HEADING, &[]),
        if gm && !ctx.ended() {
            format!(
                " <button id=\"undo\" class=\"small\">{}</button>",
                ui.h(keys::WEB_LOG_UNDO, &[])
            )
        } else {
            String::new()
        },
        log_html(ctx, ui, &ctx.last_entries(LOG_ON_PAGE).unwrap_or_default())
    ));
    if g.seq > LOG_ON_PAGE {
        b.push_str(&format!(
            "<p id=\"log-whole\"><a href=\"/s/{}/log\">{}</a></p>",
            esc(&ctx.seat.token),
            ui.h(keys::WEB_LOG_WHOLE, &[("count", &g.seq.to_string())])
        ));
    }
    b
}

/// The game master's panel: each seat's link with its QR code, new links, the settings, ending
/// the game.
fn seats_panel(ctx: &SeatCtx, ui: &Ui, base: &str) -> String {
    let links = ctx.seats().iter().map(|seat| {
        let (role, side, name) = match &seat.role {
            Role::GameMaster => (
                "game-master",
                "",
                ui.t(keys::WEB_SEATS_GAME_MASTER_YOU, &[]),
            ),
            Role::Side(id) => (
                "side",
                id.as_str(),
                ctx.game
                    .scenario
                    .side(id)
                    .map_or(id.clone(), |x| x.name.clone()),
            ),
            Role::Spectator => ("spectator", "", ui.t(keys::WEB_SEATS_SPECTATORS, &[])),
        };
        (role, side, name, format!("{base}/s/{}", seat.token))
    });
    let open = if ctx.game.seq == 0 || ctx.decided() {
        " open"
    } else {
        ""
    };
    let mut b = format!(
        "<section class=\"seats\" id=\"seats\"><details id=\"seats-details\"{open}><summary><h2>{}</h2></summary><p class=\"muted\">{}</p><div class=\"links\">",
        ui.h(keys::WEB_SEATS_HEADING, &[]),
        ui.html(keys::WEB_SEATS_INTRO_HTML, &[])
    );
    let mut own = String::new();
    for (role, side, name, url) in links {
        let field = format!(
            "<input class=\"url\" readonly value=\"{}\" aria-label=\"{}\" onclick=\"this.select()\"><button class=\"small reissue\" data-role=\"{role}\" data-side=\"{}\">{}</button>",
            esc(&url),
            ui.h(keys::WEB_SEATS_LINK_FOR, &[("name", &name)]),
            esc(side),
            ui.h(keys::WEB_SEATS_NEW_LINK, &[])
        );
        if role == "game-master" {
            // No code for the game master's own link: a player scanning the screen would get
            // the game master's controls.
            own = format!(
                "<details class=\"own\"><summary>{}</summary><div class=\"link\" id=\"link-game-master\" data-role=\"game-master\">{field}</div></details>",
                ui.h(keys::WEB_SEATS_OWN_LINK, &[])
            );
            continue;
        }
        let qr = qrcode::QrCode::new(url.as_bytes())
            .map(|c| {
                c.render::<qrcode::render::svg::Color>()
                    .min_dimensions(148, 148)
                    .quiet_zone(true)
                    .build()
            })
            .unwrap_or_default();
        b.push_str(&format!(
            "<div class=\"link\" id=\"{}\" data-role=\"{role}\" data-side=\"{}\"><h3>{}</h3><div class=\"qr\">{qr}</div>{field}</div>",
            esc(&if side.is_empty() {
                format!("link-{role}")
            } else {
                dom_id("link-side", side)
            }),
            esc(side),
            esc(&name)
        ));
    }
    b.push_str("</div>");
    b.push_str(&own);
    let st = &ctx.game.meta.settings;
    let sel = |on: bool| if on { " selected" } else { "" };
    b.push_str(&format!(
        "<h3>{}</h3><div class=\"fields\"><label>{} <select id=\"side-rights\" data-server><option value=\"watch\"{}>{}</option><option value=\"own-units\"{}>{}</option></select></label><label class=\"check\"><input type=\"checkbox\" id=\"physical-dice\" data-server{}> {}</label></div>",
        ui.h(keys::WEB_SEATS_SETTINGS, &[]),
        ui.h(keys::WEB_SEATS_RIGHTS, &[]),
        sel(st.side_rights == SideRights::Watch),
        ui.h(keys::WEB_SEATS_WATCH, &[]),
        sel(st.side_rights == SideRights::OwnUnits),
        ui.h(keys::WEB_SEATS_OWN_UNITS, &[]),
        if st.physical_dice { " checked" } else { "" },
        ui.h(keys::WEB_SEATS_PHYSICAL, &[])
    ));
    if !ctx.ended() {
        b.push_str(&format!(
            "<p><button class=\"danger\" id=\"conclude\">{}</button> <span class=\"muted\">{}</span></p>",
            ui.h(keys::WEB_SEATS_CONCLUDE, &[]),
            ui.h(keys::WEB_SEATS_CONCLUDE_NOTE, &[])
        ));
    }
    b.push_str("</details></section>");
    b
}

/// How many log entries the game page shows (newest first); the rest are on the log page, so the
/// game page stays small however long the battle.
const LOG_ON_PAGE: u64 = 25;

/// A resolution as the log shows it, in the page's language: the action, each step with its
/// dice, modifiers (with their sources), totals and result, then the outcome. The words are the
/// catalogue's; everything the engine wrote goes through [`Ui::loc`].
fn render_resolution(ui: &Ui, r: &Resolution) -> String {
    let mut s = format!("{}\n", ui.loc(&r.action));
    for step in &r.steps {
        s.push_str(&format!("\n  {}\n", ui.loc(&step.title)));
        if !step.dice.is_empty() {
            let dice: Vec<String> = step
                .dice
                .iter()
                .map(|d| format!("{} d{} = {}", ui.loc(&d.label), d.sides, d.face))
                .collect();
            s.push_str(&format!(
                "    {:<10} {}\n",
                ui.t(keys::WEB_LOG_DICE, &[]),
                dice.join(", ")
            ));
        }
        for m in &step.modifiers {
            s.push_str(&format!(
                "    {:<9} {:+} {}  [{}]\n",
                format!("{}:", ui.loc(&m.side)),
                m.value,
                ui.loc(&m.name),
                ui.loc(&m.source)
            ));
        }
        if !step.totals.is_empty() {
            let t: Vec<String> = step
                .totals
                .iter()
                .map(|(n, v)| format!("{} {v}", ui.loc(n)))
                .collect();
            s.push_str(&format!(
                "    {:<10} {}\n",
                ui.t(keys::WEB_LOG_TOTALS, &[]),
                t.join(", ")
            ));
        }
        s.push_str(&format!(
            "    {:<10} {}\n",
            ui.t(keys::WEB_LOG_RESULT, &[]),
            ui.loc(&step.result)
        ));
    }
    s.push_str(&format!(
        "\n{}\n",
        ui.t(keys::WEB_LOG_OUTCOME, &[("summary", &ui.loc(&r.summary))])
    ));
    s
}

/// The log entries `entries` (oldest first), newest first, as the seat may see them.
fn log_html(ctx: &SeatCtx, ui: &Ui, entries: &[LogEntry<GameEvent>]) -> String {
    let mut b = String::from("<ul id=\"log-list\">");
    for e in entries.iter().rev() {
        let v = ctx.entry(e);
        let seq = e.seq();
        match v["entry"].as_str() {
            Some("event") => {
                let voided = v["voided"] == true;
                let res: Option<Resolution> =
                    serde_json::from_value(v["event"]["resolution"].clone()).ok();
                let mut entered = if v["event"]["entered"] == true {
                    format!(
                        " <span class=\"muted\">{}</span>",
                        ui.h(keys::WEB_LOG_AT_TABLE, &[])
                    )
                } else {
                    String::new()
                };
                if let Some(by) = v["event"]["by"].as_str().filter(|b| *b != "game-master") {
                    entered.push_str(&format!(
                        " <span class=\"muted\">{}</span>",
                        ui.h(
                            keys::WEB_LOG_BY,
                            &[(
                                "seat",
                                &ui.loc(&report::seat_name(&ctx.game.scenario, by))
                            )]
                        )
                    ));
                }
                b.push_str(&format!(
                    "<li class=\"{}\" id=\"e-{seq}\" data-seq=\"{seq}\"><details><summary id=\"e-{seq}-s\"><span class=\"seq\">#{seq}</span> {}: {}{}{entered}</summary><pre>{}</pre></details></li>",
                    if voided { "voided" } else { "" },
                    ui.e(res.as_ref().map_or("", |r| r.action.as_str())),
                    ui.e(res.as_ref().map_or("", |r| r.summary.as_str())),
                    if voided {
                        ui.h(keys::WEB_LOG_VOIDED, &[])
                    } else {
                        String::new()
                    },
                    esc(&res.map(|r| render_resolution(ui, &r)).unwrap_or_default())
                ));
            }
            Some("void") => b.push_str(&format!(
                "<li class=\"void muted\" id=\"e-{seq}\" data-seq=\"{seq}\"><span class=\"seq\">#{seq}</span> {}</li>",
                ui.h(keys::WEB_LOG_VOID, &[("seq", &v["voids"].to_string())])
            )),
            _ => b.push_str(&format!(
                "<li class=\"muted\" id=\"e-{seq}\" data-seq=\"{seq}\"><span class=\"seq\">#{seq}</span> {}</li>",
                ui.h(keys::WEB_LOG_HIDDEN, &[])
            )),
        }
    }
    b.push_str("</ul>");
    b
}

/// A seat's page, or (`?part=main`) just the part live updates redraw.
async fn seat_page(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(token): Path<String>,
    Query(q): Query<PartQuery>,
    headers: HeaderMap,
) -> Response {
    let base = api::base_url(&st, &headers);
    let ctx = match seat::open(&st, &token).await {
        Ok(c) => c,
        Err(e) => return link_problem(&ui, &e),
    };
    let ui2 = ui.clone();
    let (ctx, main) = match api::blocking(move || {
        let main = seat_main(&ctx, &ui2, &base);
        Ok((ctx, main))
    })
    .await
    {
        Ok(x) => x,
        Err(e) => return link_problem(&ui, &e),
    };
    if q.part.as_deref() == Some("main") {
        return ([(header::CACHE_CONTROL, "no-store")], Html(main)).into_response();
    }
    let body = format!(
        "<p id=\"notice\" class=\"notice\" role=\"status\" hidden></p>{main}<dialog id=\"result-box\"><pre id=\"result-text\"></pre><form method=\"dialog\"><button class=\"primary\">{ok}</button></form></dialog><dialog id=\"dice-box\"><form id=\"dice-form\"><h3>{throw}</h3><p class=\"muted\" id=\"dice-so-far\"></p><div id=\"dice-inputs\"></div><p class=\"error\" id=\"dice-error\"></p><button class=\"primary\" id=\"dice-ok\">{next}</button> <button type=\"button\" id=\"dice-cancel\">{cancel}</button></form></dialog><script type=\"application/json\" id=\"tercio-i18n\">{strings}</script><script>window.TERCIO_SEAT = \"{tok}\"; window.TERCIO_PHYSICAL = {phys};</script><script src=\"{js}\"></script>",
        ok = ui.h(keys::WEB_DIALOG_OK, &[]),
        throw = ui.h(keys::WEB_DIALOG_THROW, &[]),
        next = ui.h(keys::WEB_DIALOG_NEXT, &[]),
        cancel = ui.h(keys::WEB_DIALOG_CANCEL, &[]),
        strings = ui.script_strings(),
        tok = esc(&ctx.seat.token),
        phys = ctx.game.meta.settings.physical_dice,
        js = assets::js()
    );
    (
        [(header::CACHE_CONTROL, "no-store")],
        page_live(&ui, &ctx.game.scenario.title, &body),
    )
        .into_response()
}

#[derive(Deserialize)]
struct PartQuery {
    part: Option<String>,
}

fn link_problem(ui: &Ui, e: &ApiError) -> Response {
    let status = if e.code() == "no-such-link" {
        StatusCode::NOT_FOUND
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        page(
            ui,
            &ui.t(keys::WEB_SEAT_LINK_TITLE, &[]),
            &format!(
                "<h1>{}</h1><p>{}</p>",
                ui.h(keys::WEB_SEAT_NO_GAME, &[]),
                ui.e(e.message())
            ),
        ),
    )
        .into_response()
}

async fn seat_log_page(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(token): Path<String>,
) -> Response {
    let ctx = match seat::open(&st, &token).await {
        Ok(c) => c,
        Err(e) => return link_problem(&ui, &e),
    };
    let (ctx, game) = match api::blocking(move || {
        let g = ctx.full_game()?;
        Ok((ctx, g))
    })
    .await
    {
        Ok(x) => x,
        Err(e) => return link_problem(&ui, &e),
    };
    let body = format!(
        "<h1>{}</h1><p><a href=\"/s/{}\">{}</a></p><section class=\"log\">{}</section>",
        ui.h(
            keys::WEB_LOG_PAGE_TITLE,
            &[("title", &ctx.game.scenario.title)]
        ),
        esc(&ctx.seat.token),
        ui.h(keys::WEB_NAV_BACK_TO_GAME, &[]),
        log_html(&ctx, &ui, game.log.entries())
    );
    page(&ui, &ctx.game.scenario.title, &body).into_response()
}

/// The battle report, as this seat may see it, in the reader's language: its words and the
/// rules' messages.
async fn report_md(State(st): State<Arc<AppState>>, ui: Ui, Path(token): Path<String>) -> Response {
    let lang = ui.lang;
    let ctx = match seat::open(&st, &token).await {
        Ok(c) => c,
        Err(e) => return link_problem(&ui, &e),
    };
    let out = api::blocking(move || {
        let c = ctx.game.commitment();
        let game = ctx.full_game()?;
        let md = report::battle_report(
            &game,
            &ctx.viewer(),
            &report::Reveal {
                commitment: &c,
                seed: ctx.revealed_seed(),
                concluded: ctx.ended(),
            },
            lang,
        )
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "corrupt", None, e))?;
        Ok((md, api::slug(&ctx.game.scenario.title)))
    })
    .await;
    match out {
        Ok((md, name)) => (
            [
                (
                    header::CONTENT_TYPE,
                    "text/markdown; charset=utf-8".to_string(),
                ),
                (
                    header::CONTENT_DISPOSITION,
                    format!("inline; filename=\"{name}.md\""),
                ),
                (header::CONTENT_LANGUAGE, ui.lang.code().to_string()),
            ],
            md,
        )
            .into_response(),
        Err(e) => link_problem(&ui, &e),
    }
}

/// The dice report: faces against their expected counts (table and chart), outcomes against
/// their exact expectations.
async fn dice_page(State(st): State<Arc<AppState>>, ui: Ui, Path(token): Path<String>) -> Response {
    let ctx = match seat::open(&st, &token).await {
        Ok(c) => c,
        Err(e) => return link_problem(&ui, &e),
    };
    let out = api::blocking(move || {
        let game = ctx.full_game()?;
        let r = report::dice_report(&game, &ctx.viewer())
            .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "corrupt", None, e))?;
        Ok((ctx, r))
    })
    .await;
    let (ctx, r) = match out {
        Ok(x) => x,
        Err(e) => return link_problem(&ui, &e),
    };
    let mut b = format!(
        "<h1>{}</h1><p><a href=\"/s/{}\">{}</a></p><p>{}</p>",
        ui.h(
            keys::WEB_REPORT_TITLE,
            &[("title", &ctx.game.scenario.title)]
        ),
        esc(&ctx.seat.token),
        ui.h(keys::WEB_NAV_BACK_TO_GAME, &[]),
        ui.html(
            keys::WEB_REPORT_INTRO_HTML,
            &[
                ("events", &r.events.to_string()),
                ("threshold", &ui.num(0.01, 2))
            ]
        )
    );
    if r.faces.is_empty() {
        b.push_str(&format!(
            "<p class=\"muted\">{}</p>",
            ui.h(keys::WEB_REPORT_NONE, &[])
        ));
    }
    for t in &r.faces {
        b.push_str(&format!(
            "<h2>{} <span class=\"muted\">({})</span></h2><p>{}</p>",
            ui.h(
                keys::WEB_REPORT_DIE_HEADING,
                &[("sides", &t.sides.to_string())]
            ),
            ui.h(
                if t.source == "entered" {
                    keys::WEB_REPORT_AT_TABLE
                } else {
                    keys::WEB_REPORT_FROM_SEED
                },
                &[]
            ),
            ui.html(
                keys::WEB_REPORT_DIE_LINE_HTML,
                &[
                    ("thrown", &t.thrown.to_string()),
                    ("chi", &ui.num(t.chi_square, 2)),
                    ("df", &t.degrees_of_freedom.to_string()),
                    ("p", &ui.num(t.p_value, 3))
                ]
            )
        ));
        b.push_str(&face_chart(&ui, t));
        b.push_str(&format!(
            "<table class=\"faces\"><thead><tr><th>{}</th>",
            ui.h(keys::WEB_REPORT_FACE, &[])
        ));
        for f in 1..=t.sides {
            b.push_str(&format!("<th>{f}</th>"));
        }
        b.push_str(&format!(
            "</tr></thead><tbody><tr><th>{}</th>",
            ui.h(keys::WEB_REPORT_SEEN, &[])
        ));
        for c in &t.counts {
            b.push_str(&format!("<td>{c}</td>"));
        }
        b.push_str(&format!(
            "</tr><tr><th>{}</th>",
            ui.h(keys::WEB_REPORT_EXPECTED, &[])
        ));
        for _ in &t.counts {
            b.push_str(&format!("<td>{}</td>", ui.num(t.expected, 1)));
        }
        b.push_str("</tr></tbody></table>");
    }
    if !r.outcomes.is_empty() {
        b.push_str(&format!(
            "<h2>{}</h2><p>{}</p><div class=\"scroll\"><table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>",
            ui.h(keys::WEB_REPORT_OUTCOMES, &[]),
            ui.h(keys::WEB_REPORT_OUTCOMES_INTRO, &[]),
            ui.h(keys::WEB_REPORT_ACTION, &[]),
            ui.h(keys::WEB_REPORT_QUESTION, &[]),
            ui.h(keys::WEB_REPORT_RESULT, &[]),
            ui.h(keys::WEB_REPORT_EXPECTED, &[]),
            ui.h(keys::WEB_REPORT_SEEN, &[])
        ));
        for o in &r.outcomes {
            b.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                ui.e(&o.action),
                ui.e(&o.facet),
                ui.e(&o.value),
                ui.num(o.expected, 2),
                o.observed
            ));
        }
        b.push_str("</tbody></table></div>");
    }
    if r.not_tabulated > 0 {
        b.push_str(&format!(
            "<p class=\"muted\">{}</p>",
            ui.h(
                keys::WEB_REPORT_NOT_TABULATED,
                &[("count", &r.not_tabulated.to_string())]
            )
        ));
    }
    page(&ui, &ctx.game.scenario.title, &b).into_response()
}

/// A bar per face (seen) with a line at the expected count, as inline SVG.
fn face_chart(ui: &Ui, t: &report::FaceTally) -> String {
    let n = t.counts.len() as f64;
    let (w, h) = (320.0, 120.0);
    let max = t
        .counts
        .iter()
        .map(|&c| c as f64)
        .fold(t.expected, f64::max)
        .max(1.0);
    let bw = w / n;
    let mut svg = format!(
        "<svg class=\"chart\" viewBox=\"0 0 {w} {}\" role=\"img\" aria-label=\"{}\">",
        h + 16.0,
        ui.h(
            keys::WEB_REPORT_CHART_LABEL,
            &[("sides", &t.sides.to_string())]
        )
    );
    for (i, &c) in t.counts.iter().enumerate() {
        let bh = c as f64 / max * h;
        svg.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bh:.1}\"><title>{}: {c}</title></rect><text x=\"{:.1}\" y=\"{}\">{}</text>",
            i as f64 * bw + 1.0,
            h - bh,
            bw - 2.0,
            i + 1,
            i as f64 * bw + bw / 2.0,
            h + 13.0,
            i + 1
        ));
    }
    let ey = h - t.expected / max * h;
    svg.push_str(&format!(
        "<line x1=\"0\" x2=\"{w}\" y1=\"{ey:.1}\" y2=\"{ey:.1}\" class=\"expected\"><title>{}</title></line></svg>",
        ui.h(
            keys::WEB_REPORT_CHART_EXPECTED,
            &[("expected", &ui.num(t.expected, 1))]
        )
    ));
    svg
}

async fn rules_page(ui: Ui, Path(id): Path<String>) -> Response {
    let Ok(r) = registry::lookup(&id) else {
        return not_found_page(&ui);
    };
    let name = ui.loc(r.name());
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
    let intro = ui.h(
        keys::WEB_RULES_INTRO,
        &[("seed", &ui.loc(r.seed())), ("id", r.id())],
    );
    let tables = r.reference_tables();
    if !tables.is_empty() {
        let mut b = format!("<h1>{}</h1><p class=\"muted\">{intro}</p>", esc(&title));
        for (i, t) in tables.iter().enumerate() {
            b.push_str(&crate::board::table_html(&ui, t, &format!("ref-t{i}")));
        }
        return page(&ui, &title, &b).into_response();
    }
    let v = r.reference();
    let mut b = format!("<h1>{}</h1><p class=\"muted\">{intro}</p>", esc(&title));
    b.push_str("<div class=\"scroll\"><table><thead><tr>");
    for k in [
        keys::WEB_RULES_TROOP,
        keys::WEB_RULES_VS_FOOT,
        keys::WEB_RULES_VS_MOUNTED,
        keys::WEB_RULES_IMPACT,
        keys::WEB_RULES_FIRE,
        keys::WEB_RULES_TARGET,
        keys::WEB_RULES_ADVANCE,
        keys::WEB_RULES_MARCH,
        keys::WEB_RULES_CHARGE,
        keys::WEB_RULES_RETIRE,
        keys::WEB_RULES_EVADES,
        keys::WEB_RULES_CHARGES,
        keys::WEB_RULES_FRIENDS_PASS,
        keys::WEB_RULES_BP,
    ] {
        b.push_str(&format!("<th>{}</th>", ui.h(k, &[])));
    }
    b.push_str("</tr></thead><tbody>");
    for t in v["charts"]["troops"].as_array().into_iter().flatten() {
        let n = |k: &str| t[k].as_i64().map_or("—".to_string(), |x| x.to_string());
        let fire = if t["fire"].is_null() {
            "—".to_string()
        } else {
            format!(
                "{}\" {:+}",
                t["fire"]["range"],
                t["fire"]["factor"].as_i64().unwrap_or(0)
            )
        };
        let evades = if t["may_evade"] == true {
            keys::WEB_RULES_YES
        } else {
            keys::WEB_RULES_NO
        };
        b.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            ui.e(s(t, "name")), n("melee_vs_foot"), n("melee_vs_mounted"), n("impact"), esc(&fire), n("fire_target"), n("advance"), n("march"), n("charge_move"), n("retire_move"),
            ui.h(evades, &[]), ui.e(s(t, "charge")), ui.e(s(t, "interpenetration")), n("break_points")
        ));
    }
    b.push_str(&format!(
        "</tbody></table></div><h2>{}</h2><table><tbody>",
        ui.h(keys::WEB_RULES_MOVEMENT, &[])
    ));
    for row in v["charts"]["terrain"].as_array().into_iter().flatten() {
        b.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            ui.e(s(row, "factor")),
            ui.e(s(row, "cost")),
            ui.e(s(row, "notes"))
        ));
    }
    let c = &v["charts"];
    let item = |key: &str, args: &[(&str, &str)]| format!("<li>{}</li>", ui.h(key, args));
    b.push_str(&format!(
        "</tbody></table><h2>{}</h2><ul>{}{}{}{}{}{}</ul>",
        ui.h(keys::WEB_RULES_CHARTS, &[]),
        item(
            keys::WEB_RULES_MELEE,
            &[("chart", &ui.loc(s(&v, "melee_chart")))]
        ),
        item(
            keys::WEB_RULES_FIRE_CHART,
            &[
                ("one", &c["fire_one"].to_string()),
                ("two", &c["fire_two"].to_string())
            ]
        ),
        item(
            keys::WEB_RULES_REGROUP_CHART,
            &[
                ("one", &c["regroup_one"].to_string()),
                ("two", &c["regroup_two"].to_string())
            ]
        ),
        item(
            keys::WEB_RULES_RETIRE_CHART,
            &[("success", &c["retire_success"].to_string())]
        ),
        item(
            keys::WEB_RULES_COMMAND_CHART,
            &[("activations", &c["activations"].to_string())]
        ),
        item(
            keys::WEB_RULES_LEADERS,
            &[
                ("move", &c["leader_move"].to_string()),
                ("radius", &c["command_radius"].to_string())
            ]
        ),
    ));
    page(&ui, &title, &b).into_response()
}
