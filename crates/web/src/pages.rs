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
use tercio_core::Resolution;
use tercio_rules::{registry, report};
use tercio_store::{Role, SideRights};

use crate::api::{self, ApiError};
use crate::seat::{self, SeatCtx};
use crate::{scenarios, AppState};

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

const CSS: &str = include_str!("../assets/app.css");
const JS: &str = include_str!("../assets/game.js");

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
        .route("/s/{token}/dice", get(dice_page))
        .route("/s/{token}/report.md", get(report_md))
        .route("/rules/{id}", get(rules_page))
        .route(
            "/static/app.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], CSS) }),
        )
        .route(
            "/static/game.js",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                    JS,
                )
            }),
        )
}

fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{} — Tercio</title><link rel=\"stylesheet\" href=\"/static/app.css\"></head><body><header class=\"top\"><a href=\"/\" class=\"brand\">Tercio</a></header><main>{body}</main></body></html>",
        esc(title)
    ))
}

/// A seat's page: the header carries the live-connection indicator.
fn page_live(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{} — Tercio</title><link rel=\"stylesheet\" href=\"/static/app.css\"></head><body><header class=\"top\"><span class=\"brand\">Tercio</span><span id=\"live\" class=\"live\" role=\"status\">connecting…</span></header><main>{body}</main></body></html>",
        esc(title)
    ))
}

pub async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        page(
            "Not found",
            "<h1>Not found</h1><p><a href=\"/\">Back to the games</a></p>",
        ),
    )
        .into_response()
}

fn error_page(status: StatusCode, e: &ApiError) -> Response {
    (status, page("Problem", &format!("<h1>That did not work</h1><pre class=\"error\">{}</pre><p><a href=\"/\">Back to the games</a></p>", esc(e.message())))).into_response()
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
            StatusCode::UNAUTHORIZED,
            "That key does not open this server.",
        );
    }
    if !api::is_host(&st, &headers) {
        return landing(StatusCode::OK, "");
    }
    home_with(&st, None, "").await
}

fn landing(status: StatusCode, problem: &str) -> Response {
    let problem = if problem.is_empty() {
        String::new()
    } else {
        format!("<p class=\"error\">{}</p>", esc(problem))
    };
    (status, page("Welcome", &format!("<h1>Tercio</h1>{problem}<p>Players: open the link (or scan the code) your game master gave you; it opens your seat at the game.</p><p>Game master: open the address <code>tercio serve</code> printed when it started (it ends in <code>?key=…</code>); it opens the list of games on this server.</p>"))).into_response()
}

/// Only the host (with the host key) reaches the routes under this guard: making, opening,
/// archiving and deleting games.
async fn host_only(
    State(st): State<Arc<AppState>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if api::is_host(&st, req.headers()) {
        return next.run(req).await;
    }
    landing(
        StatusCode::UNAUTHORIZED,
        "Only the host may do this: open the address `tercio serve` printed.",
    )
}

/// The game master's link of a game, for the host.
async fn game_master_of(State(st): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    match st.store.seats(&id) {
        Ok(seats) => match seats.into_iter().next() {
            Some(gm) => Redirect::to(&format!("/s/{}", gm.token)).into_response(),
            None => not_found().await,
        },
        Err(e) => error_page(StatusCode::SERVICE_UNAVAILABLE, &e.into()),
    }
}

async fn home_with(st: &AppState, error: Option<&str>, toml: &str) -> Response {
    let games = match st.store.list(false) {
        Ok(g) => g,
        Err(e) => return error_page(StatusCode::SERVICE_UNAVAILABLE, &e.into()),
    };
    let mut b = String::from("<h1>Games</h1>");
    if games.is_empty() {
        b.push_str("<p>No games yet.</p>");
    } else {
        b.push_str("<ul class=\"games\">");
        for g in &games {
            b.push_str(&format!(
                "<li><a href=\"/games/{id}\"><strong>{title}</strong></a> <span class=\"muted\">{scenario} · {rules} · turn {turn}{over} · {events} events · last activity {when} UTC</span>
                 <form method=\"post\" action=\"/games/{id}/archive\" class=\"inline\"><button class=\"small\">Archive</button></form>
                 <form method=\"post\" action=\"/games/{id}/delete\" class=\"inline\" onsubmit=\"return confirm('Delete this game for good?')\"><button class=\"small danger\">Delete</button></form></li>",
                id = esc(&g.id),
                title = esc(&g.title),
                rules = esc(&g.rule_set),
                turn = g.turn,
                over = if g.over { " · over" } else { "" },
                events = g.events,
                scenario = esc(g.scenario.as_deref().unwrap_or("own scenario")),
                when = utc(g.updated_at)
            ));
        }
        b.push_str("</ul>");
    }
    if let Ok(archived) = st.store.list(true) {
        if !archived.is_empty() {
            b.push_str("<details><summary>Archived games</summary><ul class=\"games\">");
            for g in &archived {
                b.push_str(&format!("<li><a href=\"/games/{id}\">{}</a> <form method=\"post\" action=\"/games/{id}/restore\" class=\"inline\"><button class=\"small\">Restore</button></form></li>", esc(&g.title), id = esc(&g.id)));
            }
            b.push_str("</ul></details>");
        }
    }
    b.push_str("<h2>New game</h2><form method=\"post\" action=\"/games\" class=\"stack\"><label>Shipped scenario <select name=\"scenario\">");
    for s in scenarios::SHIPPED {
        b.push_str(&format!("<option value=\"{0}\">{0}</option>", esc(s.id)));
    }
    b.push_str("<option value=\"\">— my own scenario file (below) —</option></select></label>");
    b.push_str(&format!(
        "<label>Or upload a scenario file <input type=\"file\" id=\"scenario-file\" accept=\".toml,text/plain\"></label><label>or paste it (TOML)<textarea name=\"toml\" id=\"scenario-text\" rows=\"6\" placeholder=\"ruleset = &quot;egc&quot;&#10;title = ...\">{}</textarea></label><button class=\"primary\">Start the game</button></form>",
        esc(toml)
    ));
    if let Some(e) = error {
        b.push_str(&format!(
            "<pre class=\"error\" id=\"scenario-errors\">{}</pre>",
            esc(e)
        ));
    }
    b.push_str("<script>document.getElementById('scenario-file').addEventListener('change', e => { const f = e.target.files[0]; if (f) f.text().then(t => { document.getElementById('scenario-text').value = t; }); });</script>");
    b.push_str("<h2>Rules reference</h2><ul>");
    for r in registry::all().iter().filter(|r| r.available()) {
        b.push_str(&format!(
            "<li><a href=\"/rules/{}\">{}</a></li>",
            esc(r.id()),
            esc(r.name())
        ));
    }
    b.push_str("</ul>");
    let status = if error.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    (status, page("Games", &b)).into_response()
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

async fn create_from_form(State(st): State<Arc<AppState>>, Form(f): Form<NewGameForm>) -> Response {
    let source = if f.toml.trim().is_empty() {
        f.scenario.clone()
    } else {
        f.toml.clone()
    };
    if source.trim().is_empty() {
        return home_with(
            &st,
            Some("Choose a shipped scenario or paste a scenario file."),
            &f.toml,
        )
        .await;
    }
    let st2 = st.clone();
    let created = tokio::task::spawn_blocking(move || api::new_game(&st2, &source, None)).await;
    match created {
        Ok(Ok(id)) => match st.store.seats(&id).map(|s| s.into_iter().next()) {
            Ok(Some(gm)) => Redirect::to(&format!("/s/{}", gm.token)).into_response(),
            _ => Redirect::to("/").into_response(),
        },
        Ok(Err(e)) => home_with(&st, Some(e.message()), &f.toml).await,
        Err(e) => home_with(&st, Some(&e.to_string()), &f.toml).await,
    }
}

async fn archive(State(st): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    set_archived(&st, &id, true).await
}

async fn restore(State(st): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    set_archived(&st, &id, false).await
}

async fn set_archived(st: &AppState, id: &str, archived: bool) -> Response {
    match st.store.set_archived(id, archived) {
        Ok(true) => Redirect::to("/").into_response(),
        Ok(false) => not_found().await,
        Err(e) => error_page(StatusCode::SERVICE_UNAVAILABLE, &e.into()),
    }
}

async fn delete(State(st): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    match st.store.delete(&id) {
        Ok(true) => {
            st.notify(&id);
            Redirect::to("/").into_response()
        }
        Ok(false) => not_found().await,
        Err(e) => error_page(StatusCode::SERVICE_UNAVAILABLE, &e.into()),
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

/// The inner HTML of a seat's game page: everything live updates redraw. A rule set that
/// describes its board and actions as data gets the generic page ([`crate::board`]); the
/// app-driven rule sets (A Bloody Dismal Fight, El Gran Capitán) their own app. Both share the
/// heading, the game-over verdict, the dice and the log.
fn game_main(ctx: &SeatCtx, base: &str) -> String {
    let state = ctx.state();
    let mut b = heading(ctx, base);
    match ctx.engine.board(&state) {
        Some(board) => b.push_str(&crate::board::board_main(ctx, &state, &board)),
        None => b.push_str(&app_main(ctx, &state)),
    }
    b.push_str(&dice_and_log(ctx));
    b
}

/// The top of every seat's page: the title line (rule set, its reference, who you are) and, for
/// the game master, the players' links and the settings.
fn heading(ctx: &SeatCtx, base: &str) -> String {
    let g = &ctx.game;
    let rules = registry::lookup(&g.ruleset).ok();
    let mut b = format!(
        "<h1>{}</h1><p class=\"muted\">{} · <a href=\"/rules/{}\">rules reference</a> · <span class=\"seat\">you are: <strong>{}</strong></span></p>",
        esc(&g.scenario.title),
        esc(rules.map_or(g.ruleset.as_str(), |r| r.name())),
        esc(&g.ruleset),
        esc(&ctx.seat_label())
    );
    if ctx.is_gm() {
        b.push_str(&seats_panel(ctx, base));
    }
    b
}

/// The verdict of a decided battle ("Game over. …") and, until the game master has ended the
/// game, what happens next: the game master is asked to end it (or undo a mistaken last action),
/// the others are told it is coming.
pub(crate) fn game_over(ctx: &SeatCtx, verdict: &str) -> String {
    let mut b = format!("<span class=\"verdict\">{}</span>", esc(verdict));
    if !ctx.ended() {
        b.push_str(if ctx.is_gm() {
            "<p id=\"decided\" class=\"notice\">The battle is decided. <strong>End the game</strong> (players' links and settings, above) to reveal the dice seed to every seat — or, if the last action was a mistake, undo it first.</p>"
        } else {
            "<p id=\"decided\" class=\"muted\">The battle is decided; the game master will end the game and reveal the dice seed.</p>"
        });
    }
    b
}

/// The app-driven rule sets' page: the turn and initiative, the turn's controls, the app's
/// action fields, the armies.
fn app_main(ctx: &SeatCtx, state: &Value) -> String {
    let g = &ctx.game;
    let engine = &ctx.engine;
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
        "<section class=\"turn\" id=\"turn\"><strong>Turn {}</strong> — ",
        state["turn"]
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
                "Both armies broke in the same turn: a draw.".to_string()
            } else {
                format!("{} wins: {} is broken.", winner.join(""), broken.join(""))
            };
            b.push_str(&game_over(ctx, &format!("Game over. {verdict}")));
        }
        "end-of-turn" => b.push_str("end of the turn"),
        _ => {
            b.push_str("initiatives and activations");
            if let Some(side) = state["initiative_side"].as_str() {
                b.push_str(&format!(
                    " · initiative: <strong>{}</strong>",
                    esc(&side_name(side))
                ));
                if let Some(cur) = state["current"].as_object() {
                    let l = cur.get("leader").and_then(Value::as_str).unwrap_or("");
                    let lname = s(&state["leaders"][l], "name");
                    b.push_str(&format!(
                        " · {} has <strong>{}</strong> activation(s) left",
                        esc(lname),
                        cur.get("activations_left").cloned().unwrap_or(Value::Null)
                    ));
                }
            }
        }
    }
    b.push_str("</section>");

    // Turn controls.
    let leaders = state["leaders"].as_object().cloned().unwrap_or_default();
    let units = state["units"].as_object().cloned().unwrap_or_default();
    b.push_str("<section class=\"controls\">");
    match phase {
        _ if ctx.ended() => {}
        "command" => {
            if gm {
                b.push_str("<button class=\"primary\" data-turn='{\"action\":\"initiative\"}'>Initiative</button>");
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
                    b.push_str(
                        "</select><button class=\"primary\" id=\"command\">Command</button></span>",
                    );
                }
            }
            if gm {
                b.push_str(
                    "<button data-turn='{\"action\":\"end-initiatives\"}'>End of turn</button>",
                );
            }
        }
        "end-of-turn" if !gm => {
            b.push_str("<p class=\"muted\">The game master is resolving the end of the turn.</p>");
        }
        "end-of-turn" => {
            b.push_str("<div class=\"endturn\"><h3>End of the turn</h3><ol>");
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
                b.push_str("<li>Ferocious Swiss Charges: Swiss Pikemen that have not acted must charge an eligible enemy within 9\" (choose Charge below and tick <em>Ferocious</em>).");
                if !swiss.is_empty() {
                    b.push_str(" Still to charge, or tick if none is in reach:<br>");
                    for (id, name) in &swiss {
                        b.push_str(&format!("<label class=\"check\"><input type=\"checkbox\" class=\"no-target\" id=\"no-target-{0}\" value=\"{0}\"> {1} has no eligible enemy within 9\"</label>", esc(id), esc(name)));
                    }
                }
                b.push_str("</li>");
            }
            b.push_str("<li>Simultaneous fire by units that have not acted:<div id=\"end-fires\">");
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
                b.push_str("<p class=\"muted\">No unit can fire.</p>");
            }
            for u in shooters {
                b.push_str(&format!("<div class=\"fire-row\" data-actor=\"{0}\"><span>{1}</span> <select class=\"fire-target\" id=\"fire-target-{0}\"><option value=\"\">holds fire</option>", esc(s(u, "id")), esc(s(u, "name"))));
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
                for gr in tercio_rules::app_driven::model::Ground::ALL {
                    b.push_str(&format!("<option>{gr}</option>"));
                }
                b.push_str("</select></div>");
            }
            b.push_str("</div><button class=\"primary\" id=\"end-fire\">Fire</button></li><li>Camps sacked: ");
            for sd in &g.scenario.sides {
                if sd.camp {
                    b.push_str(&format!("<label class=\"check\"><input type=\"checkbox\" class=\"camp\" id=\"camp-{0}\" value=\"{0}\"> {1}'s camp, by <select class=\"looters\" id=\"looters-{0}\" data-side=\"{0}\" multiple>", esc(&sd.id), esc(&sd.name)));
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
            b.push_str("</li><li><button class=\"primary\" id=\"end-turn\">Break check and next turn</button></li></ol></div>");
        }
        _ => {}
    }
    b.push_str("</section>");

    // The action form: the app's fields.
    if phase != "over" && acts {
        b.push_str("<section class=\"app\" id=\"app\"><h2>Action</h2><div class=\"fields\">");
        b.push_str("<label>Unit <select id=\"f-actor\">");
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
            let g = if commanded_by(u) {
                format!("{lname} may activate")
            } else {
                side_name(s(u, "side"))
            };
            if g != group {
                if !group.is_empty() {
                    b.push_str("</optgroup>");
                }
                b.push_str(&format!("<optgroup label=\"{}\">", esc(&g)));
                group = g;
            }
            let mut unavailable = serde_json::Map::new();
            for kind in [
                "charge", "fire", "melee", "advance", "march", "retire", "regroup",
            ] {
                let probe = serde_json::json!({"action": kind, "actor": s(u, "id")});
                if let Err(r) = engine.preview(Some(state), &probe) {
                    if r.code != "missing-field" && r.code != "question" {
                        unavailable.insert(kind.to_string(), Value::String(r.message));
                    }
                }
            }
            b.push_str(&format!(
                "<option value=\"{}\" data-unavailable=\"{}\" data-side=\"{}\" data-status=\"{}\" data-bases=\"{}\">{}{}</option>",
                esc(s(u, "id")),
                esc(&Value::Object(unavailable).to_string()),
                esc(s(u, "side")),
                esc(s(u, "status")),
                u["bases"].as_u64().unwrap_or(0) - u["lost"].as_u64().unwrap_or(0),
                esc(s(u, "name")),
                if u["acted"] == true { " (acted)" } else { "" }
            ));
        }
        if !group.is_empty() {
            b.push_str("</optgroup>");
        }
        b.push_str("</select></label><label>Action <select id=\"f-action\">");
        for (v, label) in [
            ("charge", "Charge"),
            ("fire", "Fire"),
            ("melee", "Melee"),
            ("advance", "Advance"),
            ("march", "March"),
            ("retire", "Retire"),
            ("regroup", "Rest/Regroup"),
        ] {
            b.push_str(&format!("<option value=\"{v}\">{label}</option>"));
        }
        b.push_str("</select></label><p id=\"unavailable\" class=\"muted\"></p><label data-for=\"charge fire melee retire regroup\">Actor's status <select id=\"f-astatus\"><option value=\"\">as tracked</option><option value=\"ok\">OK</option><option value=\"disordered\">Disordered</option><option value=\"demoralized\">Demoralized</option></select></label>");
        b.push_str("<label data-for=\"charge fire melee retire regroup\">Target <select id=\"f-target\"><option value=\"\">—</option>");
        for u in units.values().filter(|u| u["destroyed"] != true) {
            b.push_str(&format!(
                "<option value=\"{}\" data-side=\"{}\" data-status=\"{}\" data-bases=\"{}\">{}</option>",
                esc(s(u, "id")),
                esc(s(u, "side")),
                esc(s(u, "status")),
                u["bases"].as_u64().unwrap_or(0) - u["lost"].as_u64().unwrap_or(0),
                esc(s(u, "name"))
            ));
        }
        b.push_str("</select></label><label data-for=\"charge fire melee retire regroup\">Target's status <select id=\"f-tstatus\"><option value=\"\">as tracked</option><option value=\"ok\">OK</option><option value=\"disordered\">Disordered</option><option value=\"demoralized\">Demoralized</option></select></label><label data-for=\"charge fire melee retire regroup\">Cover/Ground <select id=\"f-ground\">");
        for gr in tercio_rules::app_driven::model::Ground::ALL {
            b.push_str(&format!("<option>{gr}</option>"));
        }
        b.push_str("</select></label><label data-for=\"charge fire melee retire\">Force <select id=\"f-force\"><option value=\"\">from the bases (automatic)</option>");
        for (v, l) in [
            ("badly-outnumbered", "Actor Badly Outnumbered"),
            ("outnumbered", "Actor Outnumbered"),
            ("even", "Force Even"),
            ("outnumbers", "Actor Outnumbers"),
            ("badly-outnumbers", "Actor Badly Outnumbers"),
        ] {
            b.push_str(&format!("<option value=\"{v}\">{l}</option>"));
        }
        b.push_str("</select></label>");
        b.push_str("<label data-for=\"charge melee retire regroup\">Supporting bases, actor's side <input id=\"f-sup-a\" type=\"number\" min=\"0\" max=\"30\" value=\"0\"></label>");
        b.push_str("<label data-for=\"charge melee retire regroup\">Supporting bases, target's side <input id=\"f-sup-t\" type=\"number\" min=\"0\" max=\"30\" value=\"0\"></label>");
        b.push_str("<label data-for=\"charge melee retire regroup advance march\">Leader with Actor <select id=\"f-leader\"><option value=\"\">as attached</option>");
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
            ("f-charging", "Actor is Charging", "melee"),
            (
                "f-aflank",
                "Actor taken in flank/rear",
                "melee retire regroup",
            ),
            (
                "f-tflank",
                "Target taken in flank/rear",
                "melee retire regroup",
            ),
            (
                "f-flankcharge",
                "Charging the target's flank or rear",
                "charge",
            ),
            ("f-ferocious", "Ferocious Swiss Charge", "charge"),
            ("f-stakes", "Plant stakes", "regroup"),
        ] {
            let wanted = match id {
                "f-ferocious" => g.ruleset == "el-gran-capitan",
                "f-stakes" => g.ruleset == "bloody-dismal-fight",
                _ => true,
            };
            if !wanted {
                continue;
            }
            b.push_str(&format!("<label class=\"check\" data-for=\"{for_}\"><input type=\"checkbox\" id=\"{id}\"> {label}</label>"));
        }
        b.push_str("</div><div class=\"odds\" id=\"odds\" aria-live=\"polite\"></div><button class=\"primary big\" id=\"result\">Result</button></section>");
    }

    // State panel.
    let scores = engine.scores(state);
    b.push_str("<section class=\"state\" id=\"state\"><h2>Armies</h2>");
    for side in &g.scenario.sides {
        let (lost, bp) = scores
            .iter()
            .find(|x| x.side == side.id)
            .map_or((0, 0), |x| (x.lost, x.threshold));
        b.push_str(&format!("<h3 style=\"border-color:{}\">{} <span class=\"muted\">({})</span> <span class=\"bp\">lost {lost} of {bp}</span></h3><table><thead><tr><th>Unit</th><th>Status</th><th>Bases</th><th></th></tr></thead><tbody>", esc(&side.colour), esc(&side.name), if side.role == tercio_rules::scenario::Role::Attacker { "attacker" } else { "defender" }));
        for u in units.values().filter(|u| s(u, "side") == side.id) {
            let bases = u["bases"].as_u64().unwrap_or(0);
            let left = bases - u["lost"].as_u64().unwrap_or(0);
            let status = if u["destroyed"] == true {
                "destroyed".to_string()
            } else {
                s(u, "status").to_string()
            };
            let mut notes = vec![];
            if u["acted"] == true && u["destroyed"] != true {
                notes.push("acted".to_string());
            }
            if u["march"] == true {
                notes.push("march".to_string());
            }
            if u["stakes_planted"] == true {
                notes.push("stakes".to_string());
            }
            if let Some(l) = leaders.values().find(|l| l["attached_to"] == u["id"]) {
                notes.push(format!("with {}", s(l, "name")));
            }
            if let Some(c) = u["in_combat_with"].as_array().filter(|c| !c.is_empty()) {
                let names: Vec<&str> = c
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|x| s(&units[x], "name"))
                    .collect();
                notes.push(format!("fighting {}", names.join(", ")));
            }
            b.push_str(&format!(
                "<tr class=\"{status}\" data-unit=\"{}\"><td>{}<br><span class=\"muted\">{}</span></td><td class=\"status\">{status}</td><td>{left}/{bases}</td><td>{}</td></tr>",
                esc(s(u, "id")),
                esc(s(u, "name")),
                esc(&troop_name(s(u, "type"))),
                esc(&notes.join("; "))
            ));
        }
        b.push_str("</tbody></table><ul class=\"leaders\">");
        for l in leaders.values().filter(|l| s(l, "side") == side.id) {
            let mut t = vec![];
            if l["army"] == true {
                t.push("army commander".to_string());
            }
            if let Some(f) = l["fate"].as_str() {
                t.push(f.to_uppercase());
            }
            if l["had_initiative"] == true {
                t.push("had the initiative".into());
            }
            if l["caught_up"] == true {
                t.push("caught up in the struggle".into());
            }
            b.push_str(&format!(
                "<li>{} <span class=\"muted\">{}</span>",
                esc(s(l, "name")),
                esc(&t.join(", "))
            ));
            if phase != "over" && acts && mine(s(l, "side")) && l["fate"].is_null() {
                b.push_str(&format!("<select class=\"attach\" data-leader=\"{}\" aria-label=\"Attach {}\"><option value=\"\">stands alone</option>", esc(s(l, "id")), esc(s(l, "name"))));
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
                        "<option value=\"{}\"{sel}>with {}</option>",
                        esc(s(u, "id")),
                        esc(s(u, "name"))
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
                b.push_str(&format!("<select class=\"assign\" data-leader=\"{}\"><option value=\"\">give the command to…</option>", esc(s(l, "id"))));
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

/// The bottom of every seat's page: the dice (commitment, the seed once revealed, the reports)
/// and the log with the game master's undo.
fn dice_and_log(ctx: &SeatCtx) -> String {
    let g = &ctx.game;
    let gm = ctx.is_gm();
    let mut b = String::new();
    // Dice: the commitment, the seed once the game has ended, the reports.
    let dice = ctx.dice_json();
    b.push_str(&format!(
        "<section class=\"dice\" id=\"dice\"><h2>Dice</h2><p>Commitment (SHA-256 of the seed, fixed before the first roll): <code id=\"commitment\">{}</code></p>",
        esc(dice["commitment"].as_str().unwrap_or(""))
    ));
    match ctx.revealed_seed() {
        Some((seed, nonce)) => b.push_str(&format!(
            "<p id=\"revealed\">The game has ended and its seed is revealed: seed <code>{seed}</code>, nonce <code>{}</code>. Download the export and run <code>tercio verify</code> on it to re-run every roll.</p>",
            esc(nonce)
        )),
        None => b.push_str("<p class=\"muted\">The seed stays on the server until the game ends; then it is shown here, and anyone can check every roll against this commitment.</p>"),
    }
    b.push_str(&format!(
        "<p class=\"muted\">Log fingerprint after {} entries (SHA-256; note it at the end to check an export is the whole game): <code id=\"log-digest\">{}</code></p>",
        ctx.seq(),
        esc(&g.log_digest())
    ));
    if ctx.meta.settings.physical_dice {
        b.push_str("<p class=\"muted\"><span id=\"physical\" hidden></span>Dice are thrown at the table and typed in; the log marks those faces.</p>");
    }
    b.push_str(&format!(
        "<p><a href=\"/s/{t}/dice\">Dice report</a> · <a href=\"/s/{t}/report.md\">Battle report (Markdown)</a> · <a href=\"/api/s/{t}/export\" download>Export (JSON)</a></p></section>",
        t = esc(&ctx.seat.token)
    ));

    // Log.
    b.push_str(&format!(
        "<section class=\"log\" id=\"log\"><h2>Log{}</h2>{}</section>",
        if gm && !ctx.ended() {
            " <button id=\"undo\" class=\"small\">Undo last</button>"
        } else {
            ""
        },
        log_html(ctx, Some(LOG_ON_PAGE))
    ));
    if g.log.entries.len() > LOG_ON_PAGE {
        b.push_str(&format!(
            "<p><a href=\"/s/{}/log\">The whole log ({} entries)</a></p>",
            esc(&ctx.seat.token),
            g.log.entries.len()
        ));
    }
    b
}

/// The game master's panel: each seat's link with its QR code, new links, the settings, ending
/// the game.
fn seats_panel(ctx: &SeatCtx, base: &str) -> String {
    let links = ctx.seats.iter().map(|seat| {
        let (role, side, name) = match &seat.role {
            Role::GameMaster => ("game-master", "", "Game master (you)".to_string()),
            Role::Side(id) => (
                "side",
                id.as_str(),
                ctx.game
                    .scenario
                    .side(id)
                    .map_or(id.clone(), |x| x.name.clone()),
            ),
            Role::Spectator => ("spectator", "", "Spectators".to_string()),
        };
        (role, side, name, format!("{base}/s/{}", seat.token))
    });
    let open = if ctx.game.log.entries.is_empty() || ctx.decided() {
        " open"
    } else {
        ""
    };
    let mut b = format!("<section class=\"seats\" id=\"seats\"><details{open}><summary><h2>Players' links and settings</h2></summary><p class=\"muted\">Each link is the only key to its seat: give each player theirs (scan the code with a phone). <em>New link</em> withdraws the old one at once.</p><div class=\"links\">");
    let mut own = String::new();
    for (role, side, name, url) in links {
        let field = format!(
            "<input class=\"url\" readonly value=\"{}\" aria-label=\"Link for {}\" onclick=\"this.select()\"><button class=\"small reissue\" data-role=\"{role}\" data-side=\"{}\">New link</button>",
            esc(&url),
            esc(&name),
            esc(side)
        );
        if role == "game-master" {
            // No code for the game master's own link: a player scanning the screen would get
            // the game master's controls.
            own = format!("<details class=\"own\"><summary>Your own link (keep it to yourself; bookmark it)</summary><div class=\"link\" data-role=\"game-master\">{field}</div></details>");
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
            "<div class=\"link\" data-role=\"{role}\" data-side=\"{}\"><h3>{}</h3><div class=\"qr\">{qr}</div>{field}</div>",
            esc(side),
            esc(&name)
        ));
    }
    b.push_str("</div>");
    b.push_str(&own);
    let st = &ctx.meta.settings;
    let sel = |on: bool| if on { " selected" } else { "" };
    b.push_str(&format!(
        "<h3>Settings</h3><div class=\"fields\"><label>The sides' links may <select id=\"side-rights\" data-server><option value=\"watch\"{}>watch only</option><option value=\"own-units\"{}>resolve their own units' actions</option></select></label><label class=\"check\"><input type=\"checkbox\" id=\"physical-dice\" data-server{}> Dice thrown at the table (type in the faces)</label></div>",
        sel(st.side_rights == SideRights::Watch),
        sel(st.side_rights == SideRights::OwnUnits),
        if st.physical_dice { " checked" } else { "" }
    ));
    if !ctx.ended() {
        b.push_str("<p><button class=\"danger\" id=\"conclude\">End the game and reveal the seed</button> <span class=\"muted\">Nothing more can be recorded after this.</span></p>");
    }
    b.push_str("</details></section>");
    b
}

/// How many log entries the game page shows (newest first); the rest are on the log page, so the
/// game page stays small however long the battle.
const LOG_ON_PAGE: usize = 25;

fn log_html(ctx: &SeatCtx, limit: Option<usize>) -> String {
    let mut b = String::from("<ul>");
    for e in ctx
        .game
        .log
        .entries
        .iter()
        .rev()
        .take(limit.unwrap_or(usize::MAX))
    {
        let v = ctx.entry(e);
        let seq = e.seq();
        match v["entry"].as_str() {
            Some("event") => {
                let voided = v["voided"] == true;
                let res: Option<Resolution> =
                    serde_json::from_value(v["event"]["resolution"].clone()).ok();
                let mut entered = if v["event"]["entered"] == true {
                    " <span class=\"muted\">(dice thrown at the table)</span>".to_string()
                } else {
                    String::new()
                };
                if let Some(by) = v["event"]["by"].as_str().filter(|b| *b != "game-master") {
                    entered.push_str(&format!(
                        " <span class=\"muted\">(by {})</span>",
                        esc(&report::seat_name(&ctx.game.scenario, by))
                    ));
                }
                b.push_str(&format!(
                    "<li class=\"{}\" data-seq=\"{seq}\"><details><summary><span class=\"seq\">#{seq}</span> {}: {}{}{entered}</summary><pre>{}</pre></details></li>",
                    if voided { "voided" } else { "" },
                    esc(res.as_ref().map_or("", |r| r.action.as_str())),
                    esc(res.as_ref().map_or("", |r| r.summary.as_str())),
                    if voided { " (voided)" } else { "" },
                    esc(&res.map(|r| r.render()).unwrap_or_default())
                ));
            }
            Some("void") => b.push_str(&format!(
                "<li class=\"void muted\" data-seq=\"{seq}\"><span class=\"seq\">#{seq}</span> undo: #{} voided</li>",
                v["voids"]
            )),
            _ => b.push_str(&format!(
                "<li class=\"muted\" data-seq=\"{seq}\"><span class=\"seq\">#{seq}</span> (not shown to this seat)</li>"
            )),
        }
    }
    b.push_str("</ul>");
    b
}

/// A seat's page, or (`?part=main`) just the part live updates redraw.
async fn seat_page(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    Query(q): Query<PartQuery>,
    headers: HeaderMap,
) -> Response {
    let base = api::base_url(&st, &headers);
    let st2 = st.clone();
    let ctx = match api::blocking(move || seat::open(&st2, &token)).await {
        Ok(c) => c,
        Err(e) => return link_problem(&e),
    };
    let main = game_main(&ctx, &base);
    if q.part.as_deref() == Some("main") {
        return (
            [(header::CACHE_CONTROL, "no-store")],
            Html(format!(
                "<div id=\"main\" data-seq=\"{}\">{main}</div>",
                ctx.seq()
            )),
        )
            .into_response();
    }
    let body = format!(
        "<p id=\"notice\" class=\"notice\" role=\"status\" hidden></p><div id=\"main\" data-seq=\"{seq}\">{main}</div><dialog id=\"result-box\"><pre id=\"result-text\"></pre><form method=\"dialog\"><button class=\"primary\">OK</button></form></dialog><dialog id=\"dice-box\"><form id=\"dice-form\"><h3>Throw the dice</h3><p class=\"muted\" id=\"dice-so-far\"></p><div id=\"dice-inputs\"></div><p class=\"error\" id=\"dice-error\"></p><button class=\"primary\" id=\"dice-ok\">Next</button> <button type=\"button\" id=\"dice-cancel\">Cancel</button></form></dialog><script>window.TERCIO_SEAT = \"{tok}\"; window.TERCIO_PHYSICAL = {phys};</script><script src=\"/static/game.js\"></script>",
        seq = ctx.seq(),
        tok = esc(&ctx.seat.token),
        phys = ctx.meta.settings.physical_dice
    );
    (
        [(header::CACHE_CONTROL, "no-store")],
        page_live(&ctx.game.scenario.title, &body),
    )
        .into_response()
}

#[derive(Deserialize)]
struct PartQuery {
    part: Option<String>,
}

fn link_problem(e: &ApiError) -> Response {
    let status = if e.code() == "no-such-link" {
        StatusCode::NOT_FOUND
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        page(
            "Link",
            &format!(
                "<h1>This link opens no game</h1><p>{}</p>",
                esc(e.message())
            ),
        ),
    )
        .into_response()
}

async fn seat_log_page(State(st): State<Arc<AppState>>, Path(token): Path<String>) -> Response {
    let st2 = st.clone();
    let ctx = match api::blocking(move || seat::open(&st2, &token)).await {
        Ok(c) => c,
        Err(e) => return link_problem(&e),
    };
    let body = format!("<h1>{} — log</h1><p><a href=\"/s/{}\">Back to the game</a></p><section class=\"log\">{}</section>", esc(&ctx.game.scenario.title), esc(&ctx.seat.token), log_html(&ctx, None));
    page(&ctx.game.scenario.title, &body).into_response()
}

/// The battle report, as this seat may see it.
async fn report_md(State(st): State<Arc<AppState>>, Path(token): Path<String>) -> Response {
    let out = api::blocking(move || {
        let ctx = seat::open(&st, &token)?;
        let c = ctx.game.commitment();
        let md = report::battle_report(
            &ctx.game,
            &ctx.viewer(),
            &report::Reveal {
                commitment: &c,
                seed: ctx.revealed_seed(),
                concluded: ctx.ended(),
            },
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
            ],
            md,
        )
            .into_response(),
        Err(e) => link_problem(&e),
    }
}

/// The dice report: faces against their expected counts (table and chart), outcomes against
/// their exact expectations.
async fn dice_page(State(st): State<Arc<AppState>>, Path(token): Path<String>) -> Response {
    let out = api::blocking(move || {
        let ctx = seat::open(&st, &token)?;
        let r = report::dice_report(&ctx.game, &ctx.viewer())
            .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "corrupt", None, e))?;
        Ok((ctx, r))
    })
    .await;
    let (ctx, r) = match out {
        Ok(x) => x,
        Err(e) => return link_problem(&e),
    };
    let mut b = format!(
        "<h1>{} — dice</h1><p><a href=\"/s/{}\">Back to the game</a></p><p>{} events. Every die thrown is counted, voided events too (they were thrown). <em>p</em> is the chance that fair dice stray at least this far from the expected counts: only a very small <em>p</em> (below 0.01, say) over many throws is a reason for suspicion.</p>",
        esc(&ctx.game.scenario.title),
        esc(&ctx.seat.token),
        r.events
    );
    if r.faces.is_empty() {
        b.push_str("<p class=\"muted\">No dice thrown yet.</p>");
    }
    for t in &r.faces {
        b.push_str(&format!(
            "<h2>d{} <span class=\"muted\">({})</span></h2><p>{} thrown · χ² = {:.2} on {} degrees of freedom · <em>p</em> = {:.3}</p>",
            t.sides,
            if t.source == "entered" { "thrown at the table" } else { "from the committed seed" },
            t.thrown,
            t.chi_square,
            t.degrees_of_freedom,
            t.p_value
        ));
        b.push_str(&face_chart(t));
        b.push_str("<table class=\"faces\"><thead><tr><th>Face</th>");
        for f in 1..=t.sides {
            b.push_str(&format!("<th>{f}</th>"));
        }
        b.push_str("</tr></thead><tbody><tr><th>Seen</th>");
        for c in &t.counts {
            b.push_str(&format!("<td>{c}</td>"));
        }
        b.push_str("</tr><tr><th>Expected</th>");
        for _ in &t.counts {
            b.push_str(&format!("<td>{:.1}</td>", t.expected));
        }
        b.push_str("</tr></tbody></table>");
    }
    if !r.outcomes.is_empty() {
        b.push_str("<h2>Outcomes</h2><p>Each result against its exact expectation when it was rolled (the sum of its probabilities over the rolls).</p><div class=\"scroll\"><table><thead><tr><th>Action</th><th>Question</th><th>Result</th><th>Expected</th><th>Seen</th></tr></thead><tbody>");
        for o in &r.outcomes {
            b.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{}</td></tr>",
                esc(&o.action),
                esc(&o.facet),
                esc(&o.value),
                o.expected,
                o.observed
            ));
        }
        b.push_str("</tbody></table></div>");
    }
    if r.not_tabulated > 0 {
        b.push_str(&format!("<p class=\"muted\">{} events had too many possible outcomes to tabulate; their dice are counted above.</p>", r.not_tabulated));
    }
    page(&ctx.game.scenario.title, &b).into_response()
}

/// A bar per face (seen) with a line at the expected count, as inline SVG.
fn face_chart(t: &report::FaceTally) -> String {
    let n = t.counts.len() as f64;
    let (w, h) = (320.0, 120.0);
    let max = t
        .counts
        .iter()
        .map(|&c| c as f64)
        .fold(t.expected, f64::max)
        .max(1.0);
    let bw = w / n;
    let mut svg = format!("<svg class=\"chart\" viewBox=\"0 0 {w} {}\" role=\"img\" aria-label=\"faces of the d{} seen against expected\">", h + 16.0, t.sides);
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
        "<line x1=\"0\" x2=\"{w}\" y1=\"{ey:.1}\" y2=\"{ey:.1}\" class=\"expected\"><title>expected {:.1}</title></line></svg>",
        t.expected
    ));
    svg
}

async fn rules_page(Path(id): Path<String>) -> Response {
    let Ok(r) = registry::lookup(&id) else {
        return not_found().await;
    };
    if !r.available() {
        return (
            StatusCode::NOT_FOUND,
            page(
                r.name(),
                &format!(
                    "<h1>{}</h1><p>{}</p>",
                    esc(r.name()),
                    esc(&registry::not_available(r))
                ),
            ),
        )
            .into_response();
    }
    let tables = r.reference_tables();
    if !tables.is_empty() {
        let mut b = format!(
            "<h1>{} — reference</h1><p class=\"muted\">Rendered from the charts the engine uses. Seed: {}. Every entry is explained in docs/rules/{}.md.</p>",
            esc(r.name()),
            esc(r.seed()),
            esc(r.id())
        );
        for t in &tables {
            b.push_str(&crate::board::table_html(t));
        }
        return page(&format!("{} — reference", r.name()), &b).into_response();
    }
    let v = r.reference();
    let mut b = format!("<h1>{} — reference</h1><p class=\"muted\">Rendered from the charts the engine uses. Seed: {}. Every entry is explained in docs/rules/{}.md.</p>", esc(r.name()), esc(r.seed()), esc(r.id()));
    b.push_str("<div class=\"scroll\"><table><thead><tr><th>Troop type</th><th>vs foot</th><th>vs mounted</th><th>impact</th><th>fire</th><th>target</th><th>advance</th><th>march</th><th>charge</th><th>retire</th><th>evades</th><th>charges</th><th>friends pass</th><th>BP</th></tr></thead><tbody>");
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
        b.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(s(t, "name")), n("melee_vs_foot"), n("melee_vs_mounted"), n("impact"), esc(&fire), n("fire_target"), n("advance"), n("march"), n("charge_move"), n("retire_move"),
if t["may_evade"] == true { "yes" } else { "no" }, esc(s(t, "charge")), esc(s(t, "interpenetration")), n("break_points")
        ));
    }
    b.push_str("</tbody></table></div><h2>Movement factors</h2><table><tbody>");
    for row in v["charts"]["terrain"].as_array().into_iter().flatten() {
        b.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(s(row, "factor")),
            esc(s(row, "cost")),
            esc(s(row, "notes"))
        ));
    }
    b.push_str(&format!(
        "</tbody></table><h2>Charts</h2><ul><li>Melee: {}</li><li>Fire: 2D6 + modifiers; {}+ one level, {}+ two levels (devastating).</li><li>Regroup: D6 + modifiers; {}+ one level, {}+ two.</li><li>Retire: D6 + modifiers; {}+ succeeds.</li><li>Command: a D6 gives {} activations (faces 1-6) plus the leader's bonus.</li><li>Leaders move {}\"; command radius {}\".</li></ul>",
        esc(s(&v, "melee_chart")), v["charts"]["fire_one"], v["charts"]["fire_two"], v["charts"]["regroup_one"], v["charts"]["regroup_two"], v["charts"]["retire_success"], v["charts"]["activations"], v["charts"]["leader_move"], v["charts"]["command_radius"]
    ));
    page(r.name(), &b).into_response()
}
