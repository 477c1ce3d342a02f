//! The JSON API. Every error is a 4xx with `{"error": {"code", "field", "message"}}` (a rule
//! set's refusal adds its `kind`: `invalid`, `not-now`, or `question`, answered with a 409);
//! nothing a client sends makes the server answer 500 or panic (a storage failure is a 503).
//!
//! `/api/games…` is the host's (the host key, by cookie or `Authorization: Bearer`);
//! `/api/s/{token}…` is a seat's, and answers only with what that seat may see.
//!
//! Messages are built as language-neutral markers ([`tercio_i18n::msg`]); [`localize_json`]
//! renders every string of a JSON answer in the request's language (`?lang=`, the cookie,
//! `Accept-Language`, English). The export is the game's record and is sent as recorded.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use tercio_i18n::{clip, clip_quoted, keys, msg, plain};
use tercio_rules::game::{Appended, Game, GameError};
use tercio_rules::interface::RejectKind;
use tercio_rules::{odds, registry, report, scenario};
use tercio_store::{Role, Settings, SideRights};

use crate::seat::{self, SeatCtx};
use crate::{scenarios, AppState, LiveGame};

mod host;
mod seat_link;
pub use host::*;
pub use seat_link::*;

/// A request's query parameters read as `T` (in place of axum's `Query`): a parameter given
/// twice, or one that cannot be read, is a 400 naming it (`bad-query`), never a bare serde
/// message; as JSON from the API, as a page in the request's language elsewhere.
pub struct Params<T>(pub T);

/// Why [`Params`] refused a query, and whether to answer with a page (and in which language).
pub struct BadQuery(ApiError, Option<crate::lang::Ui>);

impl IntoResponse for BadQuery {
    fn into_response(self) -> Response {
        match self.1 {
            Some(ui) => crate::pages::error_page(&ui, StatusCode::BAD_REQUEST, &self.0),
            None => self.0.into_response(),
        }
    }
}

impl<T: serde::de::DeserializeOwned, S: Send + Sync> axum::extract::FromRequestParts<S>
    for Params<T>
{
    type Rejection = BadQuery;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, BadQuery> {
        let page = (!parts.uri.path().starts_with("/api/"))
            .then(|| crate::lang::Ui::from_parts(&parts.uri, &parts.headers));
        let bad = |field: &str, m: String| {
            BadQuery(
                ApiError::new(StatusCode::BAD_REQUEST, "bad-query", Some(field), m),
                page.clone(),
            )
        };
        let Query(pairs) =
            Query::<Vec<(String, String)>>::try_from_uri(&parts.uri).map_err(|e| {
                bad(
                    "query",
                    msg(
                        keys::WEB_ERR_QUERY_BAD,
                        &[("field", "query"), ("error", &clip_quoted(&e.body_text()))],
                    ),
                )
            })?;
        let mut seen = std::collections::BTreeSet::new();
        if let Some((k, _)) = pairs.iter().find(|(k, _)| !seen.insert(k.as_str())) {
            let k = plain(&clip(k)).into_owned();
            return Err(bad(&k, msg(keys::WEB_ERR_QUERY_TWICE, &[("field", &k)])));
        }
        Query::<T>::try_from_uri(&parts.uri)
            .map(|Query(t)| Params(t))
            .map_err(|e| {
                let text = e.body_text();
                let detail = text
                    .strip_prefix("Failed to deserialize query string: ")
                    .unwrap_or(&text);
                let field = detail
                    .split('`')
                    .nth(1)
                    .filter(|f| !f.is_empty())
                    .unwrap_or("query")
                    .to_string();
                bad(
                    &field,
                    msg(
                        keys::WEB_ERR_QUERY_BAD,
                        &[
                            ("field", plain(&clip(&field)).as_ref()),
                            ("error", &clip_quoted(detail)),
                        ],
                    ),
                )
            })
    }
}

pub struct ApiError {
    status: StatusCode,
    code: String,
    field: Option<String>,
    message: String,
    /// What kind of refusal a rule set's is (`None`: the shell's own errors).
    kind: Option<RejectKind>,
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
            // The field may be a name the request gave (an unknown one): cut as any quoted
            // value is.
            field: field.map(|f| tercio_i18n::clip(f).into_owned()),
            message: message.into(),
            kind: None,
        }
    }
    /// No such game.
    pub fn no_game() -> Self {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not-found",
            None,
            msg(keys::WEB_ERR_NO_SUCH_GAME, &[]),
        )
    }
    pub fn message(&self) -> &str {
        &self.message
    }
    pub fn code(&self) -> &str {
        &self.code
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body =
            json!({"error": {"code": self.code, "field": self.field, "message": self.message}});
        if let Some(kind) = self.kind {
            body["error"]["kind"] = json!(kind);
        }
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
                let status = if r.kind == RejectKind::Question {
                    StatusCode::CONFLICT
                } else {
                    StatusCode::UNPROCESSABLE_ENTITY
                };
                ApiError {
                    status,
                    code: r.code,
                    field: r.field,
                    message: r.message,
                    kind: Some(r.kind),
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
            msg(
                keys::WEB_ERR_MALFORMED_JSON,
                &[
                    ("line", &e.line().to_string()),
                    ("column", &e.column().to_string()),
                    ("error", &clip_quoted(&e.to_string())),
                ],
            ),
        )
    })
}

/// Under `/api` (`api`: the request's path is there), every error has the one JSON shape,
/// including those axum answers by itself (a body too large, a method not allowed, a malformed
/// path, an unknown route) ([`crate::answer`]).
pub async fn json_errors(api: bool, res: Response) -> Response {
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
    let (code, key) = match status.as_u16() {
        404 => ("not-found".to_string(), keys::WEB_ERR_NOT_FOUND),
        405 => ("method-not-allowed".to_string(), keys::WEB_ERR_METHOD),
        413 => ("body-too-large".to_string(), keys::WEB_ERR_TOO_LARGE),
        n => (format!("http-{n}"), keys::WEB_ERR_HTTP),
    };
    // axum's own words (a malformed path, say) are kept; otherwise the status, in words.
    let message = if text.trim().is_empty() || text.contains("<html") {
        msg(key, &[("status", &status.as_u16().to_string())])
    } else {
        text.trim().to_string()
    };
    ApiError {
        status,
        code,
        field: None,
        message,
        kind: None,
    }
    .into_response()
}

/// A JSON answer handed to [`localize_json`] as a value: its messages are rendered in place and
/// it is written out once (an answer written as [`Json`] is read back to be rendered, and
/// written again). The answers of actions and undos, the server's busiest.
pub struct Answer(pub Value);

/// An [`Answer`]'s value, carried to [`localize_json`] in the response's extensions.
#[derive(Clone)]
struct Unwritten(Value);

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        let mut r = (
            [(header::CONTENT_TYPE, "application/json")],
            axum::body::Body::empty(),
        )
            .into_response();
        r.extensions_mut().insert(Unwritten(self.0));
        r
    }
}

/// Every JSON answer under `/api`, errors included, in the request's language: each string's
/// language-neutral messages rendered ([`tercio_i18n::localize_json`]). An answer sent as a file
/// (the export) is the game's record and goes out as recorded, markers and all
/// ([`crate::answer`]; `api`: the request's path is under `/api`).
pub async fn localize_json(lang: tercio_i18n::Lang, api: bool, mut res: Response) -> Response {
    if let Some(Unwritten(v)) = res.extensions_mut().remove::<Unwritten>() {
        let (parts, _) = res.into_parts();
        return Response::from_parts(
            parts,
            axum::body::Body::from(tercio_i18n::localized_json(lang, &v)),
        );
    }
    if !api {
        return res;
    }
    let headers = res.headers();
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let attachment = headers
        .get(header::CONTENT_DISPOSITION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("attachment"));
    if !json || attachment {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            None,
            tercio_i18n::t(lang, keys::WEB_ERR_BUSY, &[("error", "body")]),
        )
        .into_response();
    };
    // A marker's opening, or a backslash (written `\\` in JSON) that may be an escape of text
    // a person wrote ([`tercio_i18n::plain`]).
    let open = tercio_i18n::OPEN.to_string();
    let has_marker = bytes.windows(open.len()).any(|w| w == open.as_bytes())
        || bytes.windows(2).any(|w| w == b"\\\\");
    let localized = has_marker
        .then(|| serde_json::from_slice::<Value>(&bytes).ok())
        .flatten()
        .map(|v| tercio_i18n::localized_json(lang, &v));
    let out = match localized {
        Some(text) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            axum::body::Body::from(text)
        }
        None => axum::body::Body::from(bytes),
    };
    Response::from_parts(parts, out)
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
        scenarios::parsed()
            .iter()
            // Each text in the request's language (rendered with the answer).
            .map(|(s, sc)| json!({"id": s.id, "rule_set": sc.ruleset, "title": sc.title.plain(), "date": sc.date, "place": sc.place.as_ref().map(|p| p.plain())}))
            .collect(),
    ))
}

/// Make a game from a shipped scenario id or a scenario's TOML text, with its seats and first
/// settings, in one transaction; its id and the game as a live server keeps it. The seed and
/// the commitment's nonce come from the system's randomness unless a seed is given.
pub fn new_game(
    st: &AppState,
    scenario_field: &str,
    seed: Option<u64>,
) -> Result<(String, tercio_store::Live), ApiError> {
    let (shipped_id, game, settings) = game_to_make(scenario_field, seed)?;
    Ok(st.store.create_live(&game, shipped_id, settings.as_ref())?)
}

/// A game [`new_game`] would make, not yet stored: the shipped scenario's id (if it is one),
/// the game with its seed and nonce, and its first settings (`None`: the defaults).
pub(crate) fn game_to_make(
    scenario_field: &str,
    seed: Option<u64>,
) -> Result<(Option<&'static str>, Game, Option<Settings>), ApiError> {
    let (shipped_id, sc) = match scenarios::find(scenario_field) {
        // Read and checked once, when first listed or used (one that fails its check, which the
        // tests forbid, is read again here for its problems).
        Some(s) => (
            Some(s.id),
            match scenarios::parsed_one(s.id) {
                Some((_, sc)) => Ok(sc.clone()),
                None => scenario::parse(s.id, s.toml),
            },
        ),
        None if scenario_field.contains('=') || scenario_field.contains('\n') => {
            (None, scenario::parse("scenario", scenario_field))
        }
        None => {
            let ids: Vec<&str> = scenarios::SHIPPED.iter().map(|s| s.id).collect();
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "unknown-scenario",
                Some("scenario"),
                msg(
                    keys::WEB_ERR_UNKNOWN_SCENARIO,
                    &[
                        ("scenario", plain(&clip(scenario_field)).as_ref()),
                        ("shipped", &ids.join(", ")),
                    ],
                ),
            ));
        }
    };
    let sc = sc.map_err(|d| {
        let list: Vec<String> = d.iter().map(|x| x.to_string()).collect();
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-scenario",
            Some("scenario"),
            list.join("\n"),
        )
    })?;
    let seed = match seed {
        Some(s) => s,
        None => getrandom::u64().map_err(no_randomness)?,
    };
    let mut game = Game::new(sc, seed)?;
    let mut nonce = [0u8; 16];
    getrandom::fill(&mut nonce).map_err(no_randomness)?;
    game.nonce = tercio_core::hex(&nonce);
    // In a card game only a side may play its hand: its link acts from the start.
    let settings = tercio_rules::lookup(&game.ruleset)
        .is_ok_and(|r| r.sides_act_by_default())
        .then(|| Settings {
            side_rights: SideRights::OwnUnits,
            ..Settings::default()
        });
    Ok((shipped_id, game, settings))
}

/// Keep a game just made or read in memory, unless a request already did: it is about to be
/// played, and its first action then does not read it again.
pub(crate) fn keep_live(st: &AppState, id: &str, g: tercio_store::Live) -> Result<(), ApiError> {
    if st.cached(id).is_none() {
        st.keep(id, LiveGame::of(g)?);
    }
    Ok(())
}

fn no_randomness(e: getrandom::Error) -> ApiError {
    // Without the system's randomness neither the seed nor the links can be unpredictable.
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "no-randomness",
        None,
        msg(keys::WEB_ERR_NO_RANDOMNESS, &[("error", &e.to_string())]),
    )
}

/// Run blocking work (SQLite, exact odds) off the async threads.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            None,
            msg(keys::WEB_ERR_BUSY, &[("error", &e.to_string())]),
        )
    })?
}
