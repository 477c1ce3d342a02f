//! Seats: what a link's holder may see and do. Every seat page, API answer and live message is
//! built from a [`SeatCtx`], which holds the game and hands out only the seat's view of it: the
//! state through the engine's `view_state`, each event through `view_event`, the dice seed only
//! once the game has ended, and other seats' links only to the game master.

use std::sync::Arc;

use axum::http::StatusCode;
use serde_json::{json, Value};
use tercio_core::LogEntry;
use tercio_i18n::{keys, msg};
use tercio_rules::game::{Game, GameEvent};
use tercio_rules::Viewer;
use tercio_store::{Role, Seat, SideRights, Store};
use tokio::sync::{OwnedRwLockReadGuard, OwnedRwLockWriteGuard};

use crate::api::{self, ApiError};
use crate::guard::same_secret;
use crate::{AppState, LiveGame};

pub struct SeatCtx {
    pub seat: Seat,
    /// The seat's game, as the server keeps it in memory, under the game's lock (shared for
    /// reading, exclusive for a change).
    pub game: Guard,
    store: Arc<dyn Store>,
}

/// A live game held under its lock.
pub enum Guard {
    Read(OwnedRwLockReadGuard<LiveGame>),
    Write(OwnedRwLockWriteGuard<LiveGame>),
}

impl std::ops::Deref for Guard {
    type Target = LiveGame;
    fn deref(&self) -> &LiveGame {
        match self {
            Guard::Read(g) => g,
            Guard::Write(g) => g,
        }
    }
}

/// The answer to a token that opens nothing: the same for a mistyped, withdrawn or unknown link,
/// so a guess learns nothing.
pub fn no_such_link() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "no-such-link",
        Some("token"),
        msg(keys::WEB_ERR_NO_SUCH_LINK, &[]),
    )
}

/// The answer to a token the store could not be asked about (it cannot be reached): 503, code
/// `storage`. A seat is never served unconfirmed: the link may have been withdrawn since this
/// server last read the game (by another server, whose write this one may not have heard), so
/// its copy in memory cannot tell.
pub fn unconfirmed() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "storage",
        None,
        msg(keys::WEB_ERR_UNCONFIRMED, &[]),
    )
}

/// Open the seat a token names, with its game from memory (read from the store when it is not
/// there, or when the store has a newer revision of it), shared with other readers.
///
/// Every way a seat is served asks the store whether its token is current, and refuses it
/// ([`unconfirmed`]) when the store cannot answer:
/// - readers (the API's reads, every page, `/parts`, the dice, the export) open it here, with
///   the store's answer: never from the copy in memory alone;
/// - live streams look the token up in the store when they (re)connect (`Store::seat`) and
///   read every view after through [`open`]; while the store cannot be reached a stream sends
///   nothing and tries again (`live::events`);
/// - changes checked against the store ([`Check::Store`]) ask it first, in [`with_write`];
/// - an action or an undo checked at its append ([`Check::AtAppend`]: [`with_write`] for a
///   token known here, [`in_memory_for_change`]) runs on the copy in memory without asking
///   first, but answers only once its append is committed, and the store refuses the append if
///   anything was written to the game since the copy (a link withdrawn on another server
///   included); a refusal on the copy is asked again against the store (`api::locked`), and a
///   storage error is answered as one. Nothing of the seat's game is sent before the store has
///   confirmed it, then.
pub async fn open(st: &Arc<AppState>, token: &str) -> Result<SeatCtx, ApiError> {
    open_as(st, token, false).await
}

/// How a change is checked before it runs: its token, and whether the copy of the game in
/// memory is the store's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Against the store first: settings, links, the end, which the store writes whatever the
    /// copy in memory says.
    Store,
    /// Against the copy in memory, when it is not known to be stale and has the token among
    /// its seats: an action or an undo, which the store refuses at its append if anything was
    /// written to the game since that copy ([`tercio_store::Row::rev`]: another server's
    /// entry, a link withdrawn there); the change then runs again, checked against the store.
    AtAppend,
}

/// Run `f` on the seat a token opens, holding its game's lock alone: for a change. Changes to
/// one game are applied one at a time, in arrival order; other games do not wait.
///
/// A token this server has used for a change before is known to open its game: the game's
/// lock is taken first, and the token is checked against the store (still current? the game's
/// revision?) in the same trip to the blocking pool as `f`, so a change costs one trip, not two.
/// A token not known, or no longer current, goes the way [`open`] does.
pub async fn with_write<T: Send + 'static>(
    st: &Arc<AppState>,
    token: &str,
    check: Check,
    f: impl FnOnce(SeatCtx) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let known = st
        .token_game(token)
        .and_then(|id| Some((st.cached(&id)?, id)));
    let Some((slot, id)) = known else {
        let ctx = open_as(st, token, true).await?;
        st.remember_token(token, &ctx.seat.game_id);
        return api::blocking(move || f(ctx)).await;
    };
    let mut g = slot.write_owned().await;
    if check == Check::AtAppend && !g.stale {
        if let Some(seat) = g
            .seats
            .iter()
            .find(|s| same_secret(&s.token, token))
            .cloned()
        {
            let store = st.store.clone();
            return api::blocking(move || {
                f(SeatCtx {
                    seat,
                    game: Guard::Write(g),
                    store,
                })
            })
            .await;
        }
    }
    let (st2, tok) = (st.clone(), token.to_string());
    api::blocking(move || {
        let at = st2.store.seat_at(&tok).map_err(|_| unconfirmed())?;
        let Some((seat, rev)) = at.filter(|(s, _)| s.game_id == id) else {
            st2.forget_token(&tok);
            return Err(no_such_link());
        };
        if !g.fresh(rev) {
            *g = LiveGame::load(st2.store.as_ref(), &id)?.ok_or_else(no_such_link)?;
        }
        f(SeatCtx {
            seat,
            game: Guard::Write(g),
            store: st2.store.clone(),
        })
    })
    .await
}

/// The seat a token this server has used for a change opens, with its game's copy in memory
/// under the game's lock alone, when a change may run on that copy without asking the store
/// first ([`Check::AtAppend`]); `None` when it may not (the token not known here, the game not
/// in memory or to be read again, the token not among its seats).
pub async fn in_memory_for_change(st: &Arc<AppState>, token: &str) -> Option<SeatCtx> {
    let slot = st.cached(&st.token_game(token)?)?;
    let g = slot.write_owned().await;
    if g.stale {
        return None;
    }
    let seat = g
        .seats
        .iter()
        .find(|s| same_secret(&s.token, token))
        .cloned()?;
    Some(SeatCtx {
        seat,
        game: Guard::Write(g),
        store: st.store.clone(),
    })
}

async fn open_as(st: &Arc<AppState>, token: &str, write: bool) -> Result<SeatCtx, ApiError> {
    // Tokens are 32 hex digits; anything else is not looked up at all.
    if token.len() != 32 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(no_such_link());
    }
    let (st2, tok) = (st.clone(), token.to_string());
    let at = api::blocking(move || st2.store.seat_at(&tok).map_err(ApiError::from)).await;
    let (seat, rev) = match at {
        Ok(at) => at.ok_or_else(no_such_link)?,
        // The store cannot be reached: the seat cannot be confirmed, so it is refused, never
        // read from the copy in memory (which may list a link withdrawn on another server).
        Err(e) if e.code() == "storage" => return Err(unconfirmed()),
        Err(e) => return Err(e),
    };
    let load = |st: &Arc<AppState>, id: &str| {
        let (st, id) = (st.clone(), id.to_string());
        api::blocking(move || LiveGame::load(st.store.as_ref(), &id))
    };
    let slot = match st.cached(&seat.game_id) {
        Some(s) => s,
        None => {
            let g = load(st, &seat.game_id).await?.ok_or_else(no_such_link)?;
            st.keep(&seat.game_id, g)
        }
    };
    if !write {
        let g = slot.clone().read_owned().await;
        if g.fresh(rev) {
            return Ok(SeatCtx {
                seat,
                game: Guard::Read(g),
                store: st.store.clone(),
            });
        }
    }
    let mut g = slot.write_owned().await;
    if !g.fresh(rev) {
        *g = load(st, &seat.game_id).await?.ok_or_else(no_such_link)?;
    }
    Ok(SeatCtx {
        seat,
        game: if write {
            Guard::Write(g)
        } else {
            Guard::Read(g.downgrade())
        },
        store: st.store.clone(),
    })
}

pub fn role_name(r: &Role) -> &'static str {
    match r {
        Role::GameMaster => "game-master",
        Role::Side(_) => "side",
        Role::Spectator => "spectator",
    }
}

impl SeatCtx {
    pub fn viewer(&self) -> Viewer {
        match &self.seat.role {
            Role::GameMaster => Viewer::GameMaster,
            Role::Side(s) => Viewer::Side(s.clone()),
            Role::Spectator => Viewer::Spectator,
        }
    }

    pub fn is_gm(&self) -> bool {
        self.seat.role == Role::GameMaster
    }

    pub fn side(&self) -> Option<&str> {
        match &self.seat.role {
            Role::Side(s) => Some(s),
            _ => None,
        }
    }

    /// The game master has ended the game: the seed is revealed and nothing more may be recorded.
    /// (A decided battle is not yet ended: the game master confirms the end, and may still undo a
    /// mistaken last action before doing so.)
    pub fn ended(&self) -> bool {
        self.game.meta.concluded
    }

    /// The rules say the battle is decided (an army broke, or both).
    pub fn decided(&self) -> bool {
        self.game.engine.is_over(&self.game.state)
    }

    /// How the log names this seat (`game-master`, `side:ID`, `spectator`).
    pub fn signature(&self) -> String {
        match &self.seat.role {
            Role::GameMaster => "game-master".into(),
            Role::Side(s) => format!("side:{s}"),
            Role::Spectator => "spectator".into(),
        }
    }

    /// The version of this seat's view in `lang`: the log's length (the state is its fold), the
    /// settings, whether the game has ended, the seats' links (the game master's page shows
    /// them), the language, and this server process (whose code drew the page). A page drawn
    /// from a view with the same etag is the same page; a live page sends its etag when it
    /// (re)connects, so the stream knows whether it must send the page again.
    pub fn etag(&self, lang: tercio_i18n::Lang) -> String {
        use std::hash::{Hash, Hasher};
        static PROCESS: std::sync::OnceLock<u128> = std::sync::OnceLock::new();
        let process = PROCESS.get_or_init(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        });
        let mut h = std::collections::hash_map::DefaultHasher::new();
        process.hash(&mut h);
        lang.code().hash(&mut h);
        self.ended().hash(&mut h);
        serde_json::to_string(&self.game.meta.settings)
            .unwrap_or_default()
            .hash(&mut h);
        for s in self.seats() {
            s.token.hash(&mut h);
        }
        format!("{}-{:016x}", self.seq(), h.finish())
    }

    /// The number of log entries: what a page's view is "as of".
    pub fn seq(&self) -> u64 {
        self.game.seq
    }

    /// The game for a change: held alone under its lock (see [`open_write`]).
    pub fn game_mut(&mut self) -> Result<&mut LiveGame, ApiError> {
        match &mut self.game {
            Guard::Write(g) => Ok(g),
            Guard::Read(_) => Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "busy",
                None,
                msg(keys::WEB_ERR_BUSY, &[("error", "read lock")]),
            )),
        }
    }

    /// Every seat's link: for the game master's seat only, empty for any other.
    pub fn seats(&self) -> &[Seat] {
        if self.is_gm() {
            &self.game.seats
        } else {
            &[]
        }
    }

    /// The whole game, every entry read from the store: for exports and reports only.
    pub fn full_game(&self) -> Result<Game, ApiError> {
        self.store
            .load(&self.seat.game_id)?
            .ok_or_else(no_such_link)
    }

    /// The state as this seat may see it; once the game master has ended the game nothing is
    /// secret any more (the seed is revealed, every card can be checked).
    pub fn state(&self) -> Value {
        if self.ended() {
            return self.game.state.clone();
        }
        self.game
            .engine
            .view_state(&self.game.state, &self.viewer())
    }

    /// Whether this seat's view of the state is the whole state (no secret kept from it, or the
    /// game has ended): then answers compare states without copying a view of them.
    pub fn sees_whole_state(&self) -> bool {
        self.ended() || !self.game.engine.views_differ()
    }

    /// Who this seat is: its side's name, or a language-neutral message for the game master or
    /// a spectator (pages and JSON answers render it in the reader's language).
    pub fn seat_label(&self) -> String {
        match &self.seat.role {
            Role::GameMaster => msg(keys::WEB_SEAT_GAME_MASTER, &[]),
            Role::Side(s) => self
                .game
                .scenario
                .side(s)
                .map_or(s.clone(), |x| x.name.plain().into_owned()),
            Role::Spectator => msg(keys::WEB_SEAT_SPECTATOR, &[]),
        }
    }

    /// May this seat ask for the odds of, or resolve, `action`? The game master may do anything
    /// the rule set does not refuse it ([`Engine::game_master_may`]); a side may resolve its own
    /// units' actions when the game master allows it; a spectator only watches.
    pub fn may(&self, action: &Value) -> Result<(), ApiError> {
        let refuse = |m: String| {
            Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "seat-may-not",
                None,
                m,
            ))
        };
        match &self.seat.role {
            // Refused only what the rule set refuses it, e.g. a card from a hand hidden from it.
            Role::GameMaster => {
                // An action that cannot be read is not refused here: resolving it refuses it,
                // naming the field, as for any seat.
                self.game
                    .engine
                    .game_master_may(&self.game.state, action)
                    .map_err(|r| {
                        ApiError::new(
                            StatusCode::FORBIDDEN,
                            &r.code,
                            r.field.as_deref(),
                            r.message,
                        )
                    })
            }
            Role::Spectator => refuse(msg(keys::WEB_ERR_SPECTATOR, &[])),
            Role::Side(side) => {
                if self.game.meta.settings.side_rights == SideRights::Watch {
                    return refuse(msg(keys::WEB_ERR_WATCH_ONLY, &[]));
                }
                if let Some(f) = self
                    .game
                    .engine
                    .reserved_in(action)
                    .iter()
                    .find(|f| action.get(**f).is_some())
                {
                    return Err(ApiError::new(
                        StatusCode::FORBIDDEN,
                        "seat-may-not",
                        Some(f),
                        msg(keys::WEB_ERR_RESERVED, &[("field", f)]),
                    ));
                }
                match self.game.engine.acting_side(&self.game.state, action) {
                    Some(s) if &s == side => Ok(()),
                    Some(s) => {
                        let name = self
                            .game
                            .scenario
                            .side(&s)
                            .map_or(s.clone(), |x| x.name.plain().into_owned());
                        refuse(msg(keys::WEB_ERR_NOT_YOUR_TURN, &[("side", &name)]))
                    }
                    None => {
                        // An action not yet whole (a target the page leaves for the table to
                        // choose, issue 43) belongs to no side: say which field is missing, not
                        // whose step it is (found by `tercio fuzz`).
                        if let Some(r) = self.game.engine.incomplete(&self.game.state, action) {
                            return Err(tercio_rules::game::GameError::Rejected(r).into());
                        }
                        refuse(msg(keys::WEB_ERR_GM_STEP, &[]))
                    }
                }
            }
        }
    }

    /// Whether this seat may act at all (to show or hide the action form).
    pub fn may_act(&self) -> bool {
        !self.ended()
            && match &self.seat.role {
                Role::GameMaster => true,
                Role::Side(_) => self.game.meta.settings.side_rights == SideRights::OwnUnits,
                Role::Spectator => false,
            }
    }

    pub fn refuse_if_ended(&self) -> Result<(), ApiError> {
        if self.ended() {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "game-ended",
                None,
                msg(keys::WEB_ERR_ENDED, &[]),
            ));
        }
        Ok(())
    }

    /// Whether this seat sees every event as recorded: the game has ended, or the rule set
    /// hides nothing of its events from anyone ([`tercio_rules::Engine::events_differ`]).
    fn sees_events_whole(&self) -> bool {
        self.ended() || !self.game.engine.events_differ()
    }

    /// Of a new entry, what an action's answer carries: [`SeatCtx::entry`], whose event, when
    /// this seat sees events whole, holds only its resolution, dice, whether they were thrown at
    /// the table and who recorded it (its effects are not written out for nothing).
    pub fn answer_entry(&self, e: &LogEntry<GameEvent>) -> Value {
        match e {
            LogEntry::Event { seq, event } if self.sees_events_whole() => json!({
                "entry": "event",
                "seq": seq,
                "event": {
                    "resolution": event.resolution,
                    "draws": event.draws,
                    "entered": event.entered,
                    "by": event.by,
                },
                "voided": self.game.is_voided(*seq, true),
            }),
            _ => self.entry(e),
        }
    }

    /// One log entry as this seat may see it.
    pub fn entry(&self, e: &LogEntry<GameEvent>) -> Value {
        match e {
            LogEntry::Event { seq, event } => {
                let ev = serde_json::to_value(event).unwrap_or(Value::Null);
                let shown = if self.sees_events_whole() {
                    Some(ev)
                } else {
                    self.game.engine.view_event(&ev, &self.viewer())
                };
                match shown {
                    Some(v) => {
                        json!({"entry": "event", "seq": seq, "event": v, "voided": self.game.is_voided(*seq, true)})
                    }
                    None => {
                        json!({"entry": "hidden", "seq": seq, "voided": self.game.is_voided(*seq, true)})
                    }
                }
            }
            LogEntry::Void { seq, voids, reason } => {
                json!({"entry": "void", "seq": seq, "voids": voids, "reason": reason})
            }
        }
    }

    /// The log entries after `after` (at most `limit`), as this seat may see them: read from
    /// the store by sequence number, so a page that is one entry behind reads one entry.
    pub fn entries_after(&self, after: u64, limit: u64) -> Result<Vec<Value>, ApiError> {
        Ok(self
            .store
            .entries(&self.seat.game_id, after, limit)?
            .iter()
            .map(|e| self.entry(e))
            .collect())
    }

    /// Log entry `seq`, if there is one.
    pub fn entry_at(&self, seq: u64) -> Result<Option<LogEntry<GameEvent>>, ApiError> {
        if seq == 0 {
            return Ok(None);
        }
        Ok(self
            .store
            .entries(&self.seat.game_id, seq - 1, 1)?
            .into_iter()
            .find(|e| e.seq() == seq))
    }

    /// The last `n` log entries, newest last, as this seat may see them, with their entries.
    pub fn last_entries(&self, n: u64) -> Result<Vec<LogEntry<GameEvent>>, ApiError> {
        Ok(self.store.last_entries(&self.seat.game_id, n)?)
    }

    /// The dice seed and nonce, once the game has ended; never before.
    pub fn revealed_seed(&self) -> Option<(u64, &str)> {
        self.ended()
            .then_some((self.game.seed, self.game.nonce.as_str()))
    }

    /// The game as this seat sees it.
    pub fn view(&self) -> Value {
        // What a person wrote, as message text (`as_message_text`, then `Text::message`): the
        // answer's messages are rendered, never it; a text the scenario gives in both languages
        // is rendered in the request's.
        let sc = self.game.scenario.as_message_text();
        let sides: Vec<Value> = sc
            .sides
            .iter()
            .map(|s| {
                let mut v = json!(s);
                v["name"] = json!(s.name.message());
                v
            })
            .collect();
        let title = sc.title.message();
        let place = sc.place.as_ref().map(|p| p.message());
        let mut v = json!({
            "seat": {"role": role_name(&self.seat.role), "side": self.side(), "name": self.seat_label()},
            "rule_set": self.game.ruleset,
            "title": title,
            "scenario": {"title": title, "date": sc.date, "place": place, "sides": sides},
            "events": self.seq(),
            "chain": self.fingerprint(),
            "state": self.state(),
            "settings": self.game.meta.settings,
            "ended": self.ended(),
            "dice": self.dice_json(),
        });
        if self.is_gm() {
            v["game_id"] = json!(self.seat.game_id);
        }
        v
    }

    pub fn dice_json(&self) -> Value {
        match self.revealed_seed() {
            // The log's fingerprint is published with the seed, to compare with an export's.
            Some((seed, nonce)) => {
                json!({"commitment": self.game.commitment(), "revealed": true, "seed": seed, "nonce": nonce, "chain": self.game.chain})
            }
            None => json!({"commitment": self.game.commitment(), "revealed": false}),
        }
    }

    /// The log's fingerprint, when this seat may see it. A game sealed with the keyed chain
    /// ([`tercio_rules::seal`]) shows it to every seat: no seat can compute a link before the
    /// seed is revealed, so it confirms no guess of what is hidden. A game recorded before (chain
    /// version 1, a plain hash of every whole entry) shows it only once the game has ended when
    /// its rule set hides anything of its events from some seat: until then a seat could test
    /// guesses of a hidden hand against it.
    pub fn fingerprint(&self) -> Option<&str> {
        let oracle = !self.game.seal.version().keyed()
            && !self.ended()
            && (self.game.engine.events_differ() || self.game.engine.views_differ());
        (!oracle).then_some(self.game.chain.as_str())
    }

    /// The game's log and final state, as this seat may see them: what `tercio verify` reads.
    /// Once the game has ended every seat's export is the whole game, with the game's id, which
    /// the commitment binds.
    pub fn export(&self) -> Result<Value, ApiError> {
        let game = self.full_game()?;
        let entries: Vec<Value> = game.log.entries().iter().map(|e| self.entry(e)).collect();
        let mut v = json!({
            "format": EXPORT_FORMAT,
            "exported_for": role_name(&self.seat.role),
            "rule_set": self.game.ruleset,
            "rules_version": self.game.rules_version,
            "chain_version": self.game.seal.version(),
            "scenario": self.game.scenario,
            "dice": self.dice_json(),
            "log": entries,
            "state": self.state(),
        });
        if let Some(chain) = self.fingerprint() {
            v["chain"] = json!(chain);
        }
        if self.is_gm() || self.ended() {
            v["game_id"] = json!(self.seat.game_id);
        }
        Ok(v)
    }
}

/// The export's format: `/2` added `chain`, the head of the log's hash chain, so `tercio verify`
/// catches an entry changed, added or removed; `/3` adds `chain_version` (how the commitment and
/// the chain are formed: [`tercio_rules::seal`]) and, once the game has ended, the game's id in
/// every seat's export. `tercio verify` reads all three (`/1` only when asked to).
pub const EXPORT_FORMAT: &str = "tercio-export/3";
