//! Tercio's HTTP server: the JSON API and the server-rendered pages, on any [`Store`].
//!
//! [`app`] builds the router; [`serve`] runs it on a listener, so tests spawn the real server on
//! port 0.
//!
//! Access is by capability: the host key opens the games list and makes games; each game has a
//! link per seat (game master, each side, spectator) whose token is the only credential, and
//! everything a seat receives is built by [`seat::SeatCtx`] for that seat.
//!
//! Every page and answer speaks Italian or English ([`lang`]): the shell's words come from the
//! catalogues of `tercio-i18n`, and the engines' language-neutral messages are rendered in the
//! reader's language where they are shown.

pub mod api;
pub mod board;
pub mod client;
pub mod lang;
pub mod live;
pub mod pages;
pub mod patch;
pub mod scenarios;
pub mod seat;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::routing::{get, post};
use axum::Router;
use tercio_store::Store;

pub struct AppState {
    pub store: Arc<dyn Store>,
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    changes: Mutex<HashMap<String, tokio::sync::watch::Sender<u64>>>,
    /// The address players reach the server by (`--public-url`), for the links and QR codes;
    /// without it, the address the game master's browser used.
    pub public_url: Option<String>,
}

impl AppState {
    pub fn new(store: Arc<dyn Store>) -> Arc<AppState> {
        Self::with_public_url(store, None)
    }

    pub fn with_public_url(store: Arc<dyn Store>, public_url: Option<String>) -> Arc<AppState> {
        Arc::new(AppState {
            store,
            locks: Mutex::new(HashMap::new()),
            changes: Mutex::new(HashMap::new()),
            public_url: public_url.map(|u| u.trim_end_matches('/').to_string()),
        })
    }

    /// Tell every live page of a game that it changed (a new event, an undo, new settings or
    /// links, the end of the game).
    pub fn notify(&self, game_id: &str) {
        let m = self.changes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = m.get(game_id) {
            tx.send_modify(|v| *v += 1);
        }
    }

    /// Wait for changes to a game.
    pub fn subscribe(&self, game_id: &str) -> tokio::sync::watch::Receiver<u64> {
        let mut m = self.changes.lock().unwrap_or_else(|e| e.into_inner());
        m.entry(game_id.to_string())
            .or_insert_with(|| tokio::sync::watch::channel(0).0)
            .subscribe()
    }

    /// One lock per game: actions on a game are applied one at a time, in arrival order.
    pub fn game_lock(&self, id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut m = self.locks.lock().unwrap_or_else(|e| e.into_inner());
        m.entry(id.to_string()).or_default().clone()
    }
}

pub fn app(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/healthz", get(api::healthz))
        .route("/api/rulesets", get(api::rulesets))
        .route("/api/scenarios", get(api::scenarios_list))
        .route("/api/games", get(api::list_games).post(api::create_game))
        .route("/api/games/{id}", get(api::get_game))
        .route("/api/s/{token}", get(api::seat_game))
        .route("/api/s/{token}/log", get(api::seat_log))
        .route("/api/s/{token}/events", get(live::events))
        .route("/api/s/{token}/actions", post(api::act))
        .route("/api/s/{token}/actions/entered", post(api::act_entered))
        .route("/api/s/{token}/dice-needed", post(api::dice_needed))
        .route("/api/s/{token}/odds", post(api::odds_for))
        .route("/api/s/{token}/undo", post(api::undo))
        .route("/api/s/{token}/dice", get(api::dice))
        .route("/api/s/{token}/export", get(api::export))
        .route("/api/s/{token}/seats", get(api::seats))
        .route("/api/s/{token}/seats/reissue", post(api::reissue))
        .route("/api/s/{token}/settings", post(api::settings))
        .route("/api/s/{token}/conclude", post(api::conclude))
        .merge(pages::routes(state.clone()))
        .fallback(pages::not_found)
        .layer(axum::middleware::from_fn(api::json_errors))
        .layer(axum::middleware::from_fn(api::localize_json))
        .layer(axum::middleware::from_fn(lang::remember))
        .with_state(state)
}

/// Serve on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<AppState>) -> std::io::Result<()> {
    axum::serve(listener, app(state)).await
}

/// A server running on an ephemeral loopback port, on its own runtime (tests and demos). It stops
/// when dropped.
pub struct Running {
    pub addr: String,
    _rt: tokio::runtime::Runtime,
}

pub fn spawn(state: Arc<AppState>) -> std::io::Result<Running> {
    let rt = tokio::runtime::Runtime::new()?;
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let addr = listener.local_addr()?.to_string();
    rt.spawn(serve(listener, state));
    Ok(Running { addr, _rt: rt })
}

/// Make sure there is a game to open: a demo El Gran Capitán game on an empty database. Returns
/// its game master's token when one was made.
pub fn ensure_demo_game(state: &AppState) -> Result<Option<String>, String> {
    let games = state.store.list(false).map_err(|e| e.to_string())?;
    if !games.is_empty() {
        return Ok(None);
    }
    let id = api::new_game(state, "el-gran-capitan/cerignola-1503", None)
        .map_err(|e| e.message().to_string())?;
    let seats = state.store.seats(&id).map_err(|e| e.to_string())?;
    Ok(seats.into_iter().next().map(|s| s.token))
}
