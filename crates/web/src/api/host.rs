//! The host's routes (`/api/games…`, the host key by cookie or bearer): make, list and read games.

use super::*;
use crate::guard::same_secret;

pub const HOST_COOKIE: &str = "tercio_host";

/// Does the request carry the host key (cookie or bearer)? Compared in constant time.
pub fn is_host(st: &AppState, headers: &HeaderMap) -> bool {
    let Ok(key) = st.host_key() else {
        return false;
    };
    let from_cookie = cookie(headers, HOST_COOKIE);
    let matches = |given: &str| same_secret(given.trim(), &key);
    bearer(headers).is_some_and(matches) || from_cookie.as_deref().is_some_and(matches)
}

/// Does the request carry the host key as its bearer (`Authorization: Bearer KEY`)? Only that
/// is a capability another site cannot forge: any other `Authorization` (another scheme, a
/// wrong key) is not, and leaves a request made with the host's cookie to the same-origin
/// check ([`crate::guard::refused`]). May read the store (the key, when it could not be read
/// at start): call it off the async threads.
pub fn bearer_is_host(st: &AppState, headers: &HeaderMap) -> bool {
    let Some(given) = bearer(headers) else {
        return false;
    };
    st.host_key()
        .is_ok_and(|key| same_secret(given.trim(), &key))
}

/// The bearer an `Authorization` header gives, if it gives one.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

pub(super) fn require_host(st: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    if is_host(st, headers) {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::UNAUTHORIZED,
        "host-key-required",
        Some("authorization"),
        msg(keys::WEB_ERR_HOST_KEY, &[]),
    ))
}

/// The address links are made with: `--public-url`, else the one this request came to.
pub fn base_url(st: &AppState, headers: &HeaderMap) -> String {
    if let Some(u) = &st.public_url {
        return u.clone();
    }
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| {
            h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("127.0.0.1:8080");
    format!("http://{host}")
}

/// Each seat's link, for the game master and the host.
pub fn links(
    base: &str,
    scenario: &scenario::Scenario,
    seats: &[tercio_store::Seat],
) -> Vec<Value> {
    seats
        .iter()
        .map(|s| {
            let (role, side, name) = match &s.role {
                Role::GameMaster => ("game-master", None, msg(keys::WEB_SEATS_GAME_MASTER, &[])),
                Role::Side(id) => (
                    "side",
                    Some(id.clone()),
                    scenario.side(id).map_or(id.clone(), |x| x.name.plain().into_owned()),
                ),
                Role::Spectator => ("spectator", None, msg(keys::WEB_SEATS_SPECTATORS, &[])),
            };
            json!({"role": role, "side": side, "name": name, "url": format!("{base}/s/{}", s.token)})
        })
        .collect()
}

pub async fn create_game(
    State(st): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let st2 = st.clone();
    let h2 = headers.clone();
    blocking(move || require_host(&st2, &h2)).await?;
    let v = parse_body(&body)?;
    let Some(scen) = v.get("scenario").and_then(Value::as_str) else {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "missing-field",
            Some("scenario"),
            msg(keys::WEB_ERR_SCENARIO_REQUIRED, &[]),
        ));
    };
    let seed = match v.get("seed") {
        None | Some(Value::Null) => None,
        Some(s) => Some(s.as_u64().ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "bad-seed",
                Some("seed"),
                msg(keys::WEB_ERR_BAD_SEED, &[]),
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
            msg(
                keys::WEB_ERR_ALLOWED_FIELDS,
                &[("fields", "scenario, seed")],
            ),
        ));
    }
    let scen = scen.to_string();
    let base = base_url(&st, &headers);
    let st2 = st.clone();
    let out = blocking(move || {
        let (id, g) = new_game(&st2, &scen, seed)?;
        host_json(&st2, &base, &id, g)
    })
    .await?;
    Ok((StatusCode::CREATED, Json(out)).into_response())
}

/// A game as the host sees it: its links, never its seed. Read without its log.
pub(super) fn host_game_json(st: &AppState, base: &str, id: &str) -> Result<Value, ApiError> {
    let g = st.store.live(id)?.ok_or_else(ApiError::no_game)?;
    host_json(st, base, id, g)
}

/// [`host_game_json`] of a game already read (or just made).
fn host_json(
    st: &AppState,
    base: &str,
    id: &str,
    g: tercio_store::Live,
) -> Result<Value, ApiError> {
    let out = json!({
        "id": id,
        "rule_set": g.head.ruleset,
        "title": g.head.scenario.title.plain(),
        "events": g.head.seq,
        "settings": g.meta.settings,
        "dice": {"commitment": g.head.commitment()},
        "links": links(base, &g.head.scenario, &g.seats),
    });
    // A game the host has just made or looked up is about to be played.
    keep_live(st, id, g)?;
    Ok(out)
}

pub async fn list_games(
    State(st): State<Arc<AppState>>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let base = base_url(&st, &headers);
    blocking(move || {
        require_host(&st, &headers)?;
        let mut out = Vec::new();
        for g in st.store.list(false)? {
            let mut v = serde_json::to_value(&g).unwrap_or(Value::Null);
            v["title"] = json!(plain(&g.title));
            if let Some(gm) = st.store.seats(&g.id)?.into_iter().next() {
                v["game_master"] = json!(format!("{base}/s/{}", gm.token));
            }
            out.push(v);
        }
        Ok(Json(Value::Array(out)))
    })
    .await
}

pub async fn get_game(
    State(st): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let base = base_url(&st, &headers);
    blocking(move || {
        require_host(&st, &headers)?;
        host_game_json(&st, &base, &id).map(Json)
    })
    .await
}
