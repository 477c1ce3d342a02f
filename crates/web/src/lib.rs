//! Tercio's HTTP server: the JSON API and the server-rendered pages, on any [`Store`].
//!
//! [`app`] builds the router; [`serve`] runs it on a listener, so tests spawn the real server on
//! port 0.

pub mod api;
pub mod client;
pub mod pages;
pub mod scenarios;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::routing::{get, post};
use axum::Router;
use tercio_store::Store;

pub struct AppState {
    pub store: Arc<dyn Store>,
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl AppState {
    pub fn new(store: Arc<dyn Store>) -> Arc<AppState> {
        Arc::new(AppState {
            store,
            locks: Mutex::new(HashMap::new()),
        })
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
        .route("/api/games/{id}/actions", post(api::act))
        .route("/api/games/{id}/odds", post(api::odds_for))
        .route("/api/games/{id}/undo", post(api::undo))
        .route("/api/games/{id}/log", get(api::get_log))
        .merge(pages::routes())
        .fallback(pages::not_found)
        .layer(axum::middleware::from_fn(api::json_errors))
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

/// Make sure there is a game to open: a demo El Gran Capitán game on an empty database.
pub fn ensure_demo_game(state: &AppState) -> Result<Option<String>, String> {
    let games = state.store.list(false).map_err(|e| e.to_string())?;
    if !games.is_empty() {
        return Ok(None);
    }
    api::new_game(state, "el-gran-capitan/cerignola-1503", None)
        .map(Some)
        .map_err(|e| e.message().to_string())
}
