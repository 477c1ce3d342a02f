//! The JSON API. Every error is a 4xx with `{"error": {"code", "field", "message"}}`; nothing a
//! client sends makes the server answer 500 or panic (a storage failure is a 503).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use tercio_rules::game::{Game, GameError};
use tercio_rules::{odds, registry, scenario};

use crate::{scenarios, AppState};

pub struct ApiError {
    status: StatusCode,
    code: String,
    field: Option<String>,
    message: String,
}

impl ApiError {
    pub fn new(
        status: StatusCode,
        code: &str,
        field: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        ApiError {
            status,
            code: code.into(),
            field: field.map(str::to_string),
            message: message.into(),
        }
    }
    pub fn not_found(what: &str) -> Self {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not-found",
            None,
            format!("no such {what}"),
        )
    }
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body =
            json!({"error": {"code": self.code, "field": self.field, "message": self.message}});
        (self.status, Json(body)).into_response()
    }
}

impl From<tercio_store::StoreError> for ApiError {
    fn from(e: tercio_store::StoreError) -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "storage",
            None,
            e.to_string(),
        )
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> Self {
        match e {
            GameError::Rejected(r) => {
                let status = if r.code == "question" {
                    StatusCode::CONFLICT
                } else {
                    StatusCode::UNPROCESSABLE_ENTITY
                };
                ApiError {
                    status,
                    code: r.code,
                    field: r.field,
                    message: r.message,
                }
            }
            GameError::Rules(m) => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "rules", None, m)
            }
            GameError::Corrupt(m) => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "corrupt", None, m)
            }
        }
    }
}

/// Parse a JSON body, naming line and column on error.
pub fn parse_body(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "malformed-json",
            Some("body"),
            format!("body:{}:{}: {e}", e.line(), e.column()),
        )
    })
}

/// Under `/api`, every error has the one JSON shape, including those axum answers by itself
/// (a body too large, a method not allowed, a malformed path, an unknown route).
pub async fn json_errors(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let res = next.run(req).await;
    let status = res.status();
    if !api || !(status.is_client_error() || status.is_server_error()) {
        return res;
    }
    let is_json = res
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return res;
    }
    let bytes = axum::body::to_bytes(res.into_body(), 64 * 1024)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let message = if text.trim().is_empty() || text.contains("<html") {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text.trim().to_string()
    };
    let code = match status.as_u16() {
        404 => "not-found".to_string(),
        405 => "method-not-allowed".to_string(),
        413 => "body-too-large".to_string(),
        n => format!("http-{n}"),
    };
    ApiError {
        status,
        code,
        field: None,
        message,
    }
    .into_response()
}

pub async fn healthz() -> Json<Value> {
    Json(json!({"ok": true}))
}

pub async fn rulesets() -> Json<Value> {
    Json(Value::Array(
        registry::all()
            .iter()
            .map(|r| json!({"id": r.id(), "alias": r.alias(), "name": r.name(), "available": r.available()}))
            .collect(),
    ))
}

pub async fn scenarios_list() -> Json<Value> {
    Json(Value::Array(
        scenarios::SHIPPED
            .iter()
            .filter_map(|s| scenario::parse(s.id, s.toml).ok().map(|sc| (s, sc)))
            .map(|(s, sc)| json!({"id": s.id, "rule_set": sc.ruleset, "title": sc.title, "date": sc.date, "place": sc.place}))
            .collect(),
    ))
}

/// Make a game from a shipped scenario id or a scenario's TOML text.
pub fn new_game(
    st: &AppState,
    scenario_field: &str,
    seed: Option<u64>,
) -> Result<String, ApiError> {
    let (shipped_id, name, text) = match scenarios::find(scenario_field) {
        Some(s) => (Some(s.id), s.id.to_string(), s.toml.to_string()),
        None if scenario_field.contains('=') || scenario_field.contains('\n') => {
            (None, "scenario".to_string(), scenario_field.to_string())
        }
        None => {
            let ids: Vec<&str> = scenarios::SHIPPED.iter().map(|s| s.id).collect();
            return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "unknown-scenario", Some("scenario"), format!("no shipped scenario \"{scenario_field}\"; shipped: {}; or send the scenario's TOML text", ids.join(", "))));
        }
    };
    let sc = scenario::parse(&name, &text).map_err(|d| {
        let list: Vec<String> = d.iter().map(|x| x.to_string()).collect();
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-scenario",
            Some("scenario"),
            list.join("\n"),
        )
    })?;
    let seed = seed.unwrap_or_else(getrandom_seed);
    let game = Game::new(sc, seed)?;
    Ok(st.store.create(&game, shipped_id)?)
}

fn getrandom_seed() -> u64 {
    // The seed stays on the server; the clock is only a fallback for a machine without entropy.
    getrandom::u64().unwrap_or_else(|_| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    })
}

pub async fn create_game(
    State(st): State<Arc<AppState>>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let v = parse_body(&body)?;
    let Some(scen) = v.get("scenario").and_then(Value::as_str) else {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "missing-field",
            Some("scenario"),
            "\"scenario\" is required: a shipped scenario id or a scenario's TOML text",
        ));
    };
    let seed = match v.get("seed") {
        None | Some(Value::Null) => None,
        Some(s) => Some(s.as_u64().ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "bad-seed",
                Some("seed"),
                "seed: a non-negative integer",
            )
        })?),
    };
    if let Some(k) = v
        .as_object()
        .and_then(|o| o.keys().find(|k| *k != "scenario" && *k != "seed"))
    {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown-field",
            Some(k),
            "allowed fields: scenario, seed",
        ));
    }
    let st2 = st.clone();
    let scen = scen.to_string();
    let id = tokio::task::spawn_blocking(move || new_game(&st2, &scen, seed))
        .await
        .map_err(|e| {
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", None, e.to_string())
        })??;
    let game = load(&st, &id)?;
    Ok((StatusCode::CREATED, Json(game_json(&id, &game))).into_response())
}

pub fn load(st: &AppState, id: &str) -> Result<Game, ApiError> {
    st.store
        .load(id)?
        .ok_or_else(|| ApiError::not_found("game"))
}

/// A game as the API shows it. The seed is not included: it stays on the server.
pub fn game_json(id: &str, g: &Game) -> Value {
    json!({
        "id": id,
        "rule_set": g.ruleset,
        "title": g.scenario.title,
        "scenario": {"title": g.scenario.title, "date": g.scenario.date, "place": g.scenario.place, "sides": g.scenario.sides},
        "events": g.log.entries.len(),
        "state": g.state,
    })
}

pub async fn list_games(State(st): State<Arc<AppState>>) -> Result<Json<Value>, ApiError> {
    Ok(Json(
        serde_json::to_value(st.store.list(false)?).unwrap_or(Value::Null),
    ))
}

pub async fn get_game(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let g = load(&st, &id)?;
    Ok(Json(game_json(&id, &g)))
}

pub async fn get_log(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let g = load(&st, &id)?;
    let voided: Vec<u64> = g
        .log
        .entries
        .iter()
        .filter_map(|e| match e {
            tercio_core::LogEntry::Void { voids, .. } => Some(*voids),
            _ => None,
        })
        .collect();
    Ok(Json(json!({"entries": g.log.entries, "voided": voided})))
}

/// Resolve and record an action; durably stored before the answer.
pub async fn act(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let action = parse_body(&body)?;
    let lock = st.game_lock(&id);
    let _guard = lock.lock().await;
    let st2 = st.clone();
    tokio::task::spawn_blocking(move || -> Result<Value, ApiError> {
        let mut g = load(&st2, &id)?;
        let event = g.act(action)?.clone();
        st2.store.save(&id, &g)?;
        let seq = g.log.entries.last().map_or(0, |e| e.seq());
        Ok(json!({"seq": seq, "resolution": event.resolution, "draws": event.draws, "state": g.state}))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", None, e.to_string()))?
    .map(Json)
}

/// Rejections about whose turn it is, not about the action itself.
const TURN_CODES: &[&str] = &[
    "no-activation",
    "not-under-command",
    "no-activations-left",
    "already-acted",
    "wrong-phase",
];

/// Exact odds of simultaneous fire grow elevenfold with each fire; beyond this many the page asks
/// for each fire's odds on its own.
const MAX_FIRES_FOR_ODDS: usize = 3;

pub async fn odds_for(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let action = parse_body(&body)?;
    if action["fires"]
        .as_array()
        .is_some_and(|f| f.len() > MAX_FIRES_FOR_ODDS)
    {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "too-many-fires-for-odds",
            Some("fires"),
            format!("the exact odds of more than {MAX_FIRES_FOR_ODDS} simultaneous fires are not computed: ask for each fire's odds"),
        ));
    }
    let st2 = st.clone();
    tokio::task::spawn_blocking(move || -> Result<Value, ApiError> {
        let g = load(&st2, &id)?;
        let engine = g.engine()?;
        // The odds of an action the turn does not allow yet are still shown, with the reason.
        let (plan, note) = match engine.plan(Some(&g.state), &action) {
            Ok(p) => (p, None),
            Err(r) if TURN_CODES.contains(&r.code.as_str()) => (
                engine
                    .preview(Some(&g.state), &action)
                    .map_err(|r| ApiError::from(GameError::Rejected(r)))?,
                Some(r.message),
            ),
            Err(r) => return Err(GameError::Rejected(r).into()),
        };
        let mut v = serde_json::to_value(odds::odds(&plan)).unwrap_or(Value::Null);
        v["note"] = note.map_or(Value::Null, Value::String);
        Ok(v)
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", None, e.to_string()))?
    .map(Json)
}

pub async fn undo(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let lock = st.game_lock(&id);
    let _guard = lock.lock().await;
    let st2 = st.clone();
    tokio::task::spawn_blocking(move || -> Result<Value, ApiError> {
        let mut g = load(&st2, &id)?;
        let voided = g.undo()?.ok_or_else(|| {
            ApiError::new(
                StatusCode::CONFLICT,
                "nothing-to-undo",
                None,
                "nothing to undo",
            )
        })?;
        st2.store.save(&id, &g)?;
        Ok(json!({"voided": voided, "state": g.state}))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", None, e.to_string()))?
    .map(Json)
}
