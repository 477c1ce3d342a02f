//! Tercio's HTTP server: the JSON API and the server-rendered pages, on any [`Store`].
//!
//! [`app`] builds the router; [`serve`] runs it on a listener, within the connection limits of
//! [`conn`], so tests spawn the real server on port 0.
//!
//! Access is by capability: the host key opens the games list and makes games; each game has a
//! link per seat (game master, each side, spectator) whose token is the only credential, and
//! everything a seat receives is built by [`seat::SeatCtx`] for that seat.
//!
//! Every page and answer speaks Italian or English ([`lang`]): the shell's words come from the
//! catalogues of `tercio-i18n`, and the engines' language-neutral messages are rendered in the
//! reader's language where they are shown.

pub mod api;
pub mod assets;
pub mod board;
pub mod cache;
pub mod client;
pub mod conn;
pub mod guard;
pub mod lang;
pub mod lists;
pub mod live;
pub mod odds;
pub mod pages;
pub mod patch;
pub mod qr;
pub mod simulations;

/// A balance sheet as a self-contained HTML page (`tercio matchup --report`).
pub use pages::balance_report;
/// A run of simulated battles as a self-contained HTML page (`tercio simulate --report`).
pub use pages::{simulation_report, SimulationRun};
pub mod scenarios;
pub mod seat;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::RwLock;

use axum::routing::{get, post};
use axum::Router;
use tercio_rules::game::Head;
use tercio_rules::Engine;
use tercio_store::{Meta, Seat, Store};
use tower_http::compression::{CompressionLayer, CompressionLevel};

pub struct AppState {
    pub store: Arc<dyn Store>,
    games: Mutex<cache::Lru<Arc<RwLock<LiveGame>>>>,
    changes: Mutex<HashMap<String, tokio::sync::watch::Sender<u64>>>,
    /// How many live pages are open here, by game: while any shows a game, the store listens
    /// for other servers' writes to it ([`Store::attend`]).
    pages: Arc<Mutex<HashMap<String, usize>>>,
    /// Which game each token used for a change opened ([`seat::with_write`]): a change takes
    /// its game's lock before its one trip to the store, which checks the token is still
    /// current. Only a hint: a token is always checked against the store.
    tokens: Mutex<HashMap<String, String>>,
    /// The address players reach the server by (`--public-url`), for the links and QR codes;
    /// without it, the address the game master's browser used.
    pub public_url: Option<String>,
    /// The host key, read once: it is made with the database and never changes.
    host_key: std::sync::OnceLock<String>,
    /// The host's runs of simulated battles.
    pub simulations: simulations::Jobs,
    /// The deadlines and the bound on connections [`serve`] keeps to; a live stream sends its
    /// keep-alives often enough for the idle timeout ([`conn::keep_alive_every`]).
    pub limits: conn::Limits,
}

/// One live page open on this server ([`AppState::subscribe`]). The first of a game makes the
/// store listen for other servers' writes to it; when the last is dropped, it stops: a server is
/// woken only by the games its pages show.
pub struct Attending {
    store: Arc<dyn Store>,
    pages: Arc<Mutex<HashMap<String, usize>>>,
    game: String,
}

impl Attending {
    fn new(
        store: Arc<dyn Store>,
        pages: Arc<Mutex<HashMap<String, usize>>>,
        game: &str,
    ) -> Attending {
        let mut m = pages.lock().unwrap_or_else(|e| e.into_inner());
        let n = m.entry(game.to_string()).or_insert(0);
        *n += 1;
        if *n == 1 {
            store.attend(game, true);
        }
        drop(m);
        Attending {
            store,
            pages,
            game: game.to_string(),
        }
    }
}

impl Drop for Attending {
    fn drop(&mut self) {
        let mut m = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = m.get_mut(&self.game) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                m.remove(&self.game);
                self.store.attend(&self.game, false);
            }
        }
    }
}

/// How many tokens' games [`AppState::remember_token`] keeps (a few per live game).
const TOKENS_REMEMBERED: usize = 20_000;

/// How many games the server keeps in memory by default (least recently used evicted).
pub const LIVE_GAMES: usize = 1000;

/// A game as the server keeps it in memory between requests: its head (dereferenced: the
/// scenario, the state, the sequence, the chain), its settings and seats, its engine, and the
/// store's revision it reflects. Written through: a change is in the store before it is here.
pub struct LiveGame {
    pub head: Head,
    pub meta: Meta,
    pub seats: Vec<Seat>,
    pub engine: Box<dyn Engine>,
    pub rev: u64,
    /// Something went wrong mid-change (a failed commit): reload from the store before use.
    pub stale: bool,
    /// What undoing the latest entry puts back ([`tercio_rules::game::Appended::restore`]), with
    /// that entry's sequence number: good only while it is still the latest entry.
    pub restore: Option<(u64, serde_json::Value)>,
    /// The forms of the latest entry's state, per seat kind (the game master, each side): drawn
    /// for every page a live event redraws, and worked out once, since marking what the rules
    /// would refuse plans each choice ([`tercio_rules::interface::forms::mark_refusals`]).
    forms: std::sync::Mutex<Vec<SeatForms>>,
}

/// The forms one seat kind (`None`: the game master) sees after the entry `.0`.
type SeatForms = (u64, Option<String>, Vec<tercio_rules::ActionForm>);

impl std::ops::Deref for LiveGame {
    type Target = Head;
    fn deref(&self) -> &Head {
        &self.head
    }
}

impl LiveGame {
    /// Load a game from the store, without reading its log. A check its stored scenario fails
    /// (one added since the game was created) does not stop it: the game was played with that
    /// scenario. The server's log says which, each at its field, line and column.
    pub fn load(store: &dyn Store, id: &str) -> Result<Option<LiveGame>, api::ApiError> {
        store.live(id)?.map(LiveGame::of).transpose()
    }

    /// A game as the store gave it ([`LiveGame::load`]).
    pub fn of(l: tercio_store::Live) -> Result<LiveGame, api::ApiError> {
        for d in l.head.scenario.warnings() {
            eprintln!("warning: {d} (the game is read as it was recorded)");
        }
        let engine = l.head.engine()?;
        Ok(LiveGame {
            head: l.head,
            meta: l.meta,
            seats: l.seats,
            engine,
            rev: l.rev,
            stale: false,
            restore: None,
            forms: Default::default(),
        })
    }

    /// The actions `side` (`None`: the game master) may take in `state`, the state after the
    /// latest entry as that seat sees it: the engine's forms ([`tercio_rules::Engine::seat_forms`],
    /// their refusals found against the whole state), kept until the next entry.
    pub fn forms(
        &self,
        state: &serde_json::Value,
        side: Option<&str>,
    ) -> Vec<tercio_rules::ActionForm> {
        let seq = self.head.seq;
        let mut memo = self.forms.lock().unwrap_or_else(|p| p.into_inner());
        memo.retain(|(s, _, _)| *s == seq);
        if let Some((_, _, f)) = memo.iter().find(|(_, x, _)| x.as_deref() == side) {
            return f.clone();
        }
        let f = self.engine.seat_forms(state, &self.head.state, side);
        memo.push((seq, side.map(str::to_string), f.clone()));
        f
    }

    /// Whether this copy reflects the store at revision `rev`.
    pub fn fresh(&self, rev: u64) -> bool {
        !self.stale && self.rev >= rev
    }
}

impl AppState {
    pub fn new(store: Arc<dyn Store>) -> Arc<AppState> {
        Self::with_public_url(store, None)
    }

    pub fn with_public_url(store: Arc<dyn Store>, public_url: Option<String>) -> Arc<AppState> {
        Self::with_cache(store, public_url, LIVE_GAMES)
    }

    /// A server that keeps at most `live_games` games in memory.
    pub fn with_cache(
        store: Arc<dyn Store>,
        public_url: Option<String>,
        live_games: usize,
    ) -> Arc<AppState> {
        Self::with_limits(store, public_url, live_games, conn::Limits::default())
    }

    /// A server that keeps at most `live_games` games in memory and serves its connections
    /// within `limits`.
    pub fn with_limits(
        store: Arc<dyn Store>,
        public_url: Option<String>,
        live_games: usize,
        limits: conn::Limits,
    ) -> Arc<AppState> {
        let st = Arc::new(AppState {
            store,
            games: Mutex::new(cache::Lru::new(live_games.max(1))),
            changes: Mutex::new(HashMap::new()),
            pages: Arc::new(Mutex::new(HashMap::new())),
            tokens: Mutex::new(HashMap::new()),
            public_url: public_url.map(|u| u.trim_end_matches('/').to_string()),
            host_key: std::sync::OnceLock::new(),
            simulations: simulations::Jobs::default(),
            limits,
        });
        // Read now, outside any request: a store that blocks (PostgreSQL's client) must not be
        // called on the async runtime's threads.
        if let Ok(k) = st.store.host_key() {
            let _ = st.host_key.set(k);
        }
        // Writes by other servers on the same database reach this one's live pages.
        let weak = Arc::downgrade(&st);
        let watched = st.store.watch(Box::new(move |heard| {
            if let Some(st) = weak.upgrade() {
                st.heard(heard);
            }
        }));
        if let Err(e) = watched {
            eprintln!("warning: {e}: pages on this server will not hear of other servers' actions");
        }
        st
    }

    /// The host key (read from the store only if it could not be at start).
    pub fn host_key(&self) -> Result<String, tercio_store::StoreError> {
        if let Some(k) = self.host_key.get() {
            return Ok(k.clone());
        }
        let k = self.store.host_key()?;
        Ok(self.host_key.get_or_init(|| k).clone())
    }

    /// Another server wrote to a game this server's pages show (with its revision now), or may
    /// have (listening for it has just begun): its live pages here are told, unless this
    /// server's copy already has that revision (its own write, heard back). A page told reads
    /// the game again, with its revision, and sends only what it has not.
    fn heard(&self, what: tercio_store::Heard<'_>) {
        match what {
            tercio_store::Heard::Wrote(id, rev) => {
                let known = self
                    .cached(id)
                    .and_then(|slot| slot.try_read().ok().map(|g| g.fresh(rev)));
                if known != Some(true) {
                    self.notify(id);
                }
            }
            tercio_store::Heard::Missed(id) => self.notify(id),
        }
    }

    /// Tell every live page of a game that it changed (a new event, an undo, new settings or
    /// links, the end of the game).
    pub fn notify(&self, game_id: &str) {
        let m = self.changes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = m.get(game_id) {
            tx.send_modify(|v| *v += 1);
        }
    }

    /// Wait for changes to a game, as a live page does: while the page is kept (the
    /// [`Attending`] with it), this server hears of other servers' writes.
    pub fn subscribe(&self, game_id: &str) -> (tokio::sync::watch::Receiver<u64>, Attending) {
        let page = Attending::new(self.store.clone(), self.pages.clone(), game_id);
        let mut m = self.changes.lock().unwrap_or_else(|e| e.into_inner());
        m.retain(|_, tx| tx.receiver_count() > 0);
        let rx = m
            .entry(game_id.to_string())
            .or_insert_with(|| tokio::sync::watch::channel(0).0)
            .subscribe();
        (rx, page)
    }

    /// The game's place in memory, if it is there. Each game has one lock: actions on a game
    /// are applied one at a time, in arrival order; games never wait on each other.
    pub fn cached(&self, id: &str) -> Option<Arc<RwLock<LiveGame>>> {
        let mut m = self.games.lock().unwrap_or_else(|e| e.into_inner());
        m.get(id).cloned()
    }

    /// Keep a freshly loaded game in memory, unless another request already did: the one kept
    /// is returned.
    pub fn keep(&self, id: &str, game: LiveGame) -> Arc<RwLock<LiveGame>> {
        let mut m = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(g) = m.get(id) {
            return g.clone();
        }
        let g = Arc::new(RwLock::new(game));
        m.put(id.to_string(), g.clone());
        g
    }

    /// The game a token opened for an earlier change, if this server remembers it.
    pub fn token_game(&self, token: &str) -> Option<String> {
        let m = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        m.get(token).cloned()
    }

    /// Remember the game a token opens. At most [`TOKENS_REMEMBERED`] are kept: past that they
    /// are all forgotten and found again.
    pub fn remember_token(&self, token: &str, game_id: &str) {
        let mut m = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        if m.len() >= TOKENS_REMEMBERED {
            m.clear();
        }
        m.insert(token.to_string(), game_id.to_string());
    }

    /// Forget the game a token opened (it no longer opens it).
    pub fn forget_token(&self, token: &str) {
        let mut m = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        m.remove(token);
    }

    /// Forget a game (deleted): the next request reads the store.
    pub fn forget(&self, id: &str) {
        let mut m = self.games.lock().unwrap_or_else(|e| e.into_inner());
        m.remove(id);
    }

    /// How many games are in memory.
    pub fn live_games(&self) -> usize {
        self.games.lock().unwrap_or_else(|e| e.into_inner()).len()
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
        .route("/api/s/{token}/choices", get(api::choices))
        .route("/api/s/{token}/parts", get(api::parts))
        .route("/api/s/{token}/form", get(api::form))
        .route("/api/s/{token}/entry", get(api::entry))
        .route("/api/s/{token}/notes", get(api::notes))
        .route("/api/s/{token}/undo", post(api::undo))
        .route("/api/s/{token}/dice", get(api::dice))
        .route("/api/s/{token}/export", get(api::export))
        .route("/api/s/{token}/seats", get(api::seats))
        .route("/api/s/{token}/seats/reissue", post(api::reissue))
        .route("/api/s/{token}/qr", get(api::qr))
        .route("/api/s/{token}/settings", post(api::settings))
        .route("/api/s/{token}/conclude", post(api::conclude))
        .merge(pages::routes(state.clone()))
        .fallback(pages::not_found)
        .layer(axum::middleware::from_fn_with_state(state.clone(), answer))
        // Added last, so outermost: the middleware above sees (and `localize_json` rewrites)
        // plain bodies, compressed only on the way out.
        // tower-http's default predicate leaves out `text/event-stream` (live updates go out as
        // they happen, never held back in a compressor's buffer), images and tiny answers.
        // One quality for both encodings: 4. Brotli's default (11) is meant for files compressed
        // once ahead of time and is far too slow per request; at 4 it compresses a page about as
        // well as gzip's default, as fast, and gzip at 4 loses little against its own default.
        .layer(
            CompressionLayer::new()
                .gzip(true)
                .br(true)
                .quality(CompressionLevel::Precise(4)),
        )
        .with_state(state)
}

/// What every request goes through around its handler, in one middleware (each `from_fn`
/// layer boxes the rest of the stack and a future per request: one in place of five saved 2.5%
/// of a charge and its undo's instructions). On the way in: a cross-site request made with the
/// host's cookie is refused ([`guard::refused`]). On the way out, in this order: an API error
/// takes the one JSON shape ([`api::json_errors`]); a JSON answer's messages are rendered in the
/// request's language ([`api::localize_json`]); a page that chose a language remembers it in a
/// cookie ([`lang::remember`]); and every answer carries the security headers
/// ([`guard::add_headers`]).
pub async fn answer(
    axum::extract::State(st): axum::extract::State<Arc<AppState>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let chosen = lang::chosen(&req);
    let language = lang::of_request(req.uri().query(), req.headers());
    let api = req.uri().path().starts_with("/api/");
    let refusal = guard::refused(&st, req.method(), req.uri(), req.headers()).await;
    let res = match refusal {
        Some(refusal) => refusal,
        None => next.run(req).await,
    };
    let res = api::json_errors(api, res).await;
    let mut res = api::localize_json(language, api, res).await;
    lang::remember(&st, chosen, &mut res);
    guard::add_headers(&mut res);
    res
}

/// Serve on `listener` until the process ends, within the state's connection limits
/// ([`conn`]: deadlines on headers, bodies and idle connections, and a bound on their number).
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<AppState>) -> std::io::Result<()> {
    let limits = state.limits;
    conn::serve(listener, app(state), limits).await
}

/// How many threads at most run the server's blocking work (store reads and writes, engines).
/// Tokio's default, 512, let a hundred busy games grow two hundred threads, and each keeps its
/// allocator's pages (`docs/performance.md`, Memory); writes are group-committed, so more
/// threads than this only wait for the same commit.
pub const BLOCKING_THREADS: usize = 32;

/// The runtime a server runs on: [`async_workers`] threads for the requests, unless
/// `TOKIO_WORKER_THREADS` says otherwise.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    let mut b = tokio::runtime::Builder::new_multi_thread();
    b.enable_all().max_blocking_threads(BLOCKING_THREADS);
    if std::env::var_os("TOKIO_WORKER_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        b.worker_threads(async_workers(cores));
    }
    b.build()
}

/// How many threads run the requests on a machine of `cores`: one core is left to the store's
/// committer thread, the stage every write waits for (`docs/performance.md`, "One core for the
/// commits"). Tokio's default, a thread a core, let two busy request threads crowd it out on a
/// 2-core machine: at 100 games, p99 and moves per second were worse.
pub fn async_workers(cores: usize) -> usize {
    cores.saturating_sub(1).max(1)
}

/// A server running on an ephemeral loopback port, on its own runtime (tests and demos). It stops
/// when dropped.
pub struct Running {
    pub addr: String,
    _rt: tokio::runtime::Runtime,
}

pub fn spawn(state: Arc<AppState>) -> std::io::Result<Running> {
    let rt = runtime()?;
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let addr = listener.local_addr()?.to_string();
    rt.spawn(serve(listener, state));
    Ok(Running { addr, _rt: rt })
}

/// Make sure there is a game to open: on an empty database (archived games aside), a demo game
/// of `scenario` (a shipped scenario's name, `rule-set/battle`; the caller chooses, since the
/// shell names no rule set). Returns its game master's token when one was made. Servers started
/// together on one empty database make one between them: the store decides, in the write's own
/// transaction, whether the database is empty ([`Store::create_live_if_empty`]).
pub fn ensure_demo_game(state: &AppState, scenario: &str) -> Result<Option<String>, String> {
    let (shipped_id, game, settings) =
        api::game_to_make(scenario, None).map_err(|e| e.message().to_string())?;
    let made = state
        .store
        .create_live_if_empty(&game, shipped_id, settings.as_ref())
        .map_err(|e| e.to_string())?;
    Ok(made.and_then(|(_, g)| g.seats.into_iter().next().map(|s| s.token)))
}

#[cfg(test)]
mod runtime_tests {
    use super::*;

    #[test]
    fn one_core_is_left_to_the_commits_and_one_thread_always_serves() {
        assert_eq!(async_workers(1), 1);
        assert_eq!(async_workers(2), 1);
        assert_eq!(async_workers(8), 7);
        assert_eq!(async_workers(0), 1);
    }

    #[test]
    fn the_runtime_has_that_many_request_threads() {
        let rt = runtime().expect("runtime");
        let want = match std::env::var("TOKIO_WORKER_THREADS") {
            Ok(n) => n.parse().expect("TOKIO_WORKER_THREADS is a number"),
            Err(_) => async_workers(std::thread::available_parallelism().map_or(1, |n| n.get())),
        };
        assert_eq!(rt.metrics().num_workers(), want);
    }
}
