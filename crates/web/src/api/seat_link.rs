//! What a seat's link can do (`/api/s/{token}…`): read the game as that seat may see it, act, undo,
//! ask the odds and the dice, export, and (the game master) manage seats, settings and the end.

use super::*;

/// Open a seat, its game shared with other readers.
async fn open_seat(st: &Arc<AppState>, token: String) -> Result<SeatCtx, ApiError> {
    seat::open(st, &token).await
}

/// How many times a change is tried again after another server's write came first (each time
/// on the game as the store has it then).
const CONFLICT_RETRIES: u32 = 4;

/// Run `f` on a seat's game under the game's lock alone (other games do not wait), then tell
/// the game's live pages. Everything that records goes through here, so concurrent seats are
/// serialised. Should the store find that another writer came first (another server on the
/// same database), the game is read again and `f` runs again (a few times at most): its checks
/// then see the newer game (a client that sent `If-Match` is told its view is stale). `check`
/// says whether `f` may first run on the copy in memory ([`seat::Check`]); if that run is
/// refused, it runs again checked against the store.
async fn locked<T: Send + 'static>(
    st: &Arc<AppState>,
    token: String,
    check: seat::Check,
    f: impl Fn(&AppState, SeatCtx) -> Result<T, ApiError> + Send + Sync + 'static,
) -> Result<T, ApiError> {
    let f = Arc::new(f);
    let (mut tries, mut check) = (0, check);
    loop {
        let (st2, f2) = (st.clone(), f.clone());
        let out = seat::with_write(st, &token, check, move |ctx| {
            let id = ctx.seat.game_id.clone();
            Ok((f2(&st2, ctx), id))
        })
        .await?;
        match out {
            (Err(e), _) if e.code() == "conflict" && tries < CONFLICT_RETRIES => tries += 1,
            // Refused on the copy in memory, without asking the store: asked again against
            // the store (the copy may be behind another server's writes) before it is final.
            // Not a storage error: the append may have been committed with its answer lost,
            // and running the change again would record it twice.
            (Err(e), _) if check == seat::Check::AtAppend && e.code() != "storage" => {
                check = seat::Check::Store
            }
            (out, id) => {
                if out.is_ok() {
                    st.notify(&id);
                }
                return out;
            }
        }
    }
}

/// Make an appended entry durable and the live game's revision the store's. Anything but
/// success leaves the live game to be read again from the store.
pub(super) fn commit(st: &AppState, ctx: &mut SeatCtx, a: &Appended) -> Result<(), ApiError> {
    let id = ctx.seat.game_id.clone();
    let g = ctx.game_mut()?;
    let out = row_of(g, a).and_then(|row| st.store.append(&id, row));
    committed(g, out)
}

/// The row that appends `a`, acted on the copy in memory (perhaps without asking the store:
/// [`seat::with_write`]), so the store refuses it if anything was written to the game since.
fn row_of(g: &LiveGame, a: &Appended) -> Result<tercio_store::Row, tercio_store::StoreError> {
    tercio_store::Row::of(a, &g.head).map(|mut row| {
        row.rev = Some(g.rev);
        row
    })
}

/// Take the store's answer to an append into the live game: its revision, or, on anything but
/// success, the mark that makes it be read again from the store.
fn committed(g: &mut LiveGame, out: Result<u64, tercio_store::StoreError>) -> Result<(), ApiError> {
    match out {
        Ok(rev) => {
            g.rev = rev;
            g.stale = false;
            Ok(())
        }
        Err(e) => {
            g.stale = true;
            Err(match e {
                tercio_store::StoreError::Conflict(m) => {
                    ApiError::new(StatusCode::CONFLICT, "conflict", None, m)
                }
                e => e.into(),
            })
        }
    }
}

/// A change made on a game's copy in memory and not yet recorded: its entry, and what makes
/// the answer once the entry is durable.
pub(super) struct Pending {
    appended: Appended,
    answer: AnswerOf,
}

/// What makes a change's answer from its recorded entry.
type AnswerOf = Box<dyn FnOnce(&mut SeatCtx, Appended) -> Result<Answer, ApiError> + Send>;

impl Pending {
    /// Record the change (durable on return), then answer.
    fn record(self, st: &AppState, ctx: &mut SeatCtx) -> Result<Answer, ApiError> {
        commit(st, ctx, &self.appended)?;
        (self.answer)(ctx, self.appended)
    }
}

/// An action or an undo run on the copy in memory of a game this server keeps, on the async
/// thread, and recorded by the store's own committer while the thread goes on to other
/// requests: no trip to the blocking pool and back, and the game's lock held across the
/// commit. `prepare` checks and makes the change, or says (`None`) that it needs the store.
///
/// `Err(check)`: not done, and how [`locked`] is to run the change instead: as before when
/// the store does not commit for its callers or the game is not in memory (or `prepare`
/// needs the store), against the store when the copy in memory refused it or another
/// server's write came first.
async fn in_memory(
    st: &Arc<AppState>,
    token: &str,
    prepare: impl FnOnce(&mut SeatCtx) -> Result<Option<Pending>, ApiError>,
) -> Result<Result<Answer, ApiError>, seat::Check> {
    if !st.store.commits_for_callers() {
        return Err(seat::Check::AtAppend);
    }
    let Some(mut ctx) = seat::in_memory_for_change(st, token).await else {
        return Err(seat::Check::AtAppend);
    };
    let pending = match prepare(&mut ctx) {
        Ok(Some(p)) => p,
        Ok(None) => return Err(seat::Check::AtAppend),
        Err(e) if e.code() == "storage" => return Ok(Err(e)),
        Err(_) => return Err(seat::Check::Store),
    };
    let id = ctx.seat.game_id.clone();
    let Ok(g) = ctx.game_mut() else {
        return Err(seat::Check::Store);
    };
    let row = match row_of(g, &pending.appended) {
        Ok(row) => row,
        Err(e) => {
            g.stale = true;
            return Ok(Err(e.into()));
        }
    };
    // Until the store answers, the copy is ahead of it: should this request be dropped while
    // it waits, the next one reads the game again.
    g.stale = true;
    let (tx, rx) = tokio::sync::oneshot::channel();
    st.store.append_then(
        &id,
        row,
        Box::new(move |out| {
            let _ = tx.send(out);
        }),
    );
    let out = rx.await.unwrap_or_else(|_| {
        Err(tercio_store::StoreError::Db(
            "the write was lost: its commit stopped".into(),
        ))
    });
    let Ok(g) = ctx.game_mut() else {
        return Err(seat::Check::Store);
    };
    match committed(g, out) {
        Ok(()) => {}
        Err(e) if e.code() == "conflict" => return Err(seat::Check::Store),
        Err(e) => return Ok(Err(e)),
    }
    let answer = (pending.answer)(&mut ctx, pending.appended);
    // The live pages are told once the game's lock is let go, as [`locked`] does.
    drop(ctx);
    st.notify(&id);
    Ok(answer)
}

/// The seat's whole view, with an `ETag` over what it shows: a client that has it gets `304`.
pub async fn seat_game(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Result<Response, ApiError> {
    let lang = crate::lang::of_request(uri.query(), &headers);
    let ctx = open_seat(&st, token).await?;
    let etag = format!("\"{}\"", ctx.etag(lang));
    let seen = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim().trim_start_matches("W/") == etag)
        });
    let tag = [
        (header::ETAG, etag),
        (header::CACHE_CONTROL, "no-cache".to_string()),
    ];
    if seen {
        return Ok((StatusCode::NOT_MODIFIED, tag).into_response());
    }
    let view = ctx.view();
    drop(ctx);
    Ok((tag, Json(view)).into_response())
}

/// `?brief=1` of [`choices`].
#[derive(Deserialize)]
pub struct Brief {
    brief: Option<String>,
}

/// What the rules would refuse of each choice of what acts on the seat's forms, in the page's
/// language ([`crate::board::choices_json`]), with `seq`, the entries it reflects: game.js asks
/// for it whenever it draws the forms, so the page and its live patches carry none of it.
pub async fn choices(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    Params(q): Params<Brief>,
) -> Result<Json<Value>, ApiError> {
    let brief = q.brief.as_deref().is_some_and(|b| b == "1" || b == "true");
    let ui = crate::lang::Ui::from_parts(&uri, &headers);
    let ctx = open_seat(&st, token).await?;
    blocking(move || {
        let state = ctx.state();
        let forms = crate::board::seat_forms(&ctx, &state);
        Ok(Json(json!({
            "seq": ctx.seq(),
            "etag": ctx.etag(ui.lang),
            "choices": crate::board::choices_json(&ui, &forms, brief),
        })))
    })
    .await
}

/// `?id=` of [`form`].
#[derive(Deserialize)]
pub struct FormOf {
    id: Option<String>,
}

/// The form of a folded action (`?id=act-…`), drawn for the state as it is now in the request's
/// language: a page carries only the actions' titles and the lists they are picked from
/// ([`crate::board::folded_form`]), and its script fetches an action's form when it is opened.
/// `form` is the hash the folded action carries on a page of the same state (`data-form`): a
/// live patch that changes it tells an opened copy to fetch it again. 404 `gone`: no such
/// action now (the page has moved on; its next patch says so).
pub async fn form(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    Params(q): Params<FormOf>,
) -> Result<Json<Value>, ApiError> {
    let ui = crate::lang::Ui::from_parts(&uri, &headers);
    let id = q.id.unwrap_or_default();
    if id.trim().is_empty() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad-field",
            Some("id"),
            msg(keys::WEB_ERR_FORM_ID, &[]),
        ));
    }
    let ctx = open_seat(&st, token).await?;
    blocking(move || {
        let state = ctx.state();
        let forms = crate::board::seat_forms(&ctx, &state);
        let Some((html, hash)) = crate::board::folded_form(&ui, &forms, &id) else {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                "gone",
                Some("id"),
                msg(
                    keys::WEB_ERR_FORM_GONE,
                    &[("id", &plain(&tercio_i18n::clip(&id)))],
                ),
            ));
        };
        Ok(Json(json!({
            "seq": ctx.seq(),
            "etag": ctx.etag(ui.lang),
            "id": id,
            "form": hash,
            "html": html,
        })))
    })
    .await
}

/// `?seq=` of [`entry`].
#[derive(Deserialize)]
pub struct EntryOf {
    seq: Option<String>,
}

/// The steps and modifiers of log entry `?seq=N` as this seat may see them, drawn in the
/// request's language ([`crate::pages::entry_steps`]): the log and the newest result carry an
/// entry's line, and the page's script fetches the rest when it is opened. 404 `gone`: no entry
/// of that number with steps this seat may read.
pub async fn entry(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    Params(q): Params<EntryOf>,
) -> Result<Json<Value>, ApiError> {
    let ui = crate::lang::Ui::from_parts(&uri, &headers);
    let seq: u64 = q
        .seq
        .as_deref()
        .and_then(|s| s.trim().parse().ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad-field",
                Some("seq"),
                msg(keys::WEB_ERR_ENTRY_SEQ, &[]),
            )
        })?;
    let ctx = open_seat(&st, token).await?;
    blocking(move || {
        let html = ctx
            .entry_at(seq)?
            .and_then(|e| crate::pages::entry_steps(&ctx, &ui, &e))
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::NOT_FOUND,
                    "gone",
                    Some("seq"),
                    msg(keys::WEB_ERR_ENTRY_GONE, &[("seq", &seq.to_string())]),
                )
            })?;
        Ok(Json(json!({"seq": seq, "html": html})))
    })
    .await
}

/// The scenario's notes and sources, drawn in the request's language: the page carries their
/// title, and its script fetches them when it is opened. 404 `gone`: the scenario has none.
pub async fn notes(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Result<Json<Value>, ApiError> {
    let ui = crate::lang::Ui::from_parts(&uri, &headers);
    let ctx = open_seat(&st, token).await?;
    blocking(move || {
        let html = crate::pages::scenario_notes_body(&ctx, &ui).ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "gone",
                None,
                msg(keys::WEB_ERR_NOTES_NONE, &[]),
            )
        })?;
        Ok(Json(json!({"html": html})))
    })
    .await
}

/// `?etag=` and `?ids=` of [`parts`].
#[derive(Deserialize)]
pub struct PartsOf {
    etag: Option<String>,
    ids: Option<String>,
}

/// The outer HTML of elements of the seat's page by id (`?ids=a,b`): its `#main` as the live
/// stream draws it (in the request's language, its links at this server's address), at the
/// version `?etag=` a live patch made. A patch too big for one live message names these parts
/// instead of carrying them ([`crate::patch::defer`]). A page that has moved on since is
/// answered 412 `stale`: the page then fetches its `#main` whole.
pub async fn parts(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    Params(q): Params<PartsOf>,
) -> Result<Json<Value>, ApiError> {
    let lang = crate::lang::of_request(uri.query(), &headers);
    let base = base_url(&st, &headers);
    let ids: Vec<String> = q
        .ids
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(String::from)
        .collect();
    if ids.is_empty() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad-field",
            Some("ids"),
            msg(keys::WEB_ERR_PARTS_IDS, &[]),
        ));
    }
    let ctx = open_seat(&st, token.clone()).await?;
    blocking(move || {
        // The version first: a page that has moved on is not drawn for nothing.
        let now = ctx.etag(lang);
        if q.etag.as_deref() != Some(now.as_str()) {
            return Err(ApiError::new(
                StatusCode::PRECONDITION_FAILED,
                "stale",
                Some("etag"),
                msg(keys::WEB_ERR_PARTS_STALE, &[("now", &now)]),
            ));
        }
        let (main, etag) = crate::live::live_main(&ctx, lang, &token, &base);
        let parts = crate::patch::parts(&main, &ids).map_err(|e| match e {
            crate::patch::PartsError::Missing(id) => ApiError::new(
                StatusCode::NOT_FOUND,
                "bad-field",
                Some("ids"),
                msg(
                    keys::WEB_ERR_PARTS_MISSING,
                    &[("id", &plain(&tercio_i18n::clip(&id)))],
                ),
            ),
            // Our own page, unreadable as patches read it: the page is to fetch it whole.
            crate::patch::PartsError::Unreadable => ApiError::new(
                StatusCode::PRECONDITION_FAILED,
                "stale",
                Some("etag"),
                msg(keys::WEB_ERR_PARTS_STALE, &[("now", &etag)]),
            ),
        })?;
        Ok(Json(json!({"etag": etag, "parts": parts})))
    })
    .await
}

#[derive(Deserialize)]
pub struct After {
    after: Option<String>,
}

impl After {
    /// `?after=N`: the last log entry the client has.
    pub fn after(&self) -> Result<Option<u64>, ApiError> {
        self.after
            .as_deref()
            .map(|a| {
                a.trim().parse().map_err(|_| {
                    ApiError::new(
                        StatusCode::BAD_REQUEST,
                        "bad-field",
                        Some("after"),
                        msg(keys::WEB_ERR_AFTER, &[]),
                    )
                })
            })
            .transpose()
    }
}

/// How many log entries one `/log` answer carries at most; `after` pages through the rest.
pub const LOG_PAGE: u64 = 500;

pub async fn seat_log(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    Params(q): Params<After>,
) -> Result<Json<Value>, ApiError> {
    let after = q.after()?.unwrap_or(0);
    let ctx = open_seat(&st, token).await?;
    blocking(move || {
        let entries = ctx.entries_after(after, LOG_PAGE)?;
        Ok(Json(json!({"events": ctx.seq(), "entries": entries})))
    })
    .await
}

/// `If-Match: "N"`: the number of log entries the client's view was drawn from. When the game
/// has moved on, nothing is recorded and the client is told its view was stale.
pub(super) fn expected_seq(headers: &HeaderMap) -> Result<Option<u64>, ApiError> {
    let Some(v) = headers.get(header::IF_MATCH) else {
        return Ok(None);
    };
    if v.as_bytes() == b"*" {
        return Ok(None);
    }
    v.to_str()
        .ok()
        .map(|s| s.trim().trim_start_matches("W/").trim_matches('"'))
        .and_then(|s| s.parse().ok())
        .map(Some)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad-if-match",
                Some("if-match"),
                msg(keys::WEB_ERR_IF_MATCH, &[]),
            )
        })
}

pub(super) fn check_fresh(ctx: &SeatCtx, expect: Option<u64>) -> Result<(), ApiError> {
    match expect {
        Some(n) if n != ctx.seq() => Err(ApiError::new(
            StatusCode::PRECONDITION_FAILED,
            "stale",
            None,
            msg(
                keys::WEB_ERR_STALE,
                &[("seen", &n.to_string()), ("now", &ctx.seq().to_string())],
            ),
        )),
        _ => Ok(()),
    }
}

/// A JSON object of `fields`, each value moved in (`json!` would copy every value it is given
/// by writing it out again: the answer's resolution, its largest part).
fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// The field `k` of the object `v`, taken out of it (null if it has none).
fn take(v: &mut Value, k: &str) -> Value {
    v.get_mut(k).map(Value::take).unwrap_or_default()
}

/// The parts of the seat's view an entry changed: from its view before (`view_before`), or,
/// when the seat sees the whole state, the entry's own changes to it ([`Appended::changes`]).
pub(super) fn changed(ctx: &SeatCtx, view_before: Option<Value>, changes: Option<Value>) -> Value {
    match view_before {
        Some(b) => tercio_rules::effects::diff(&b, &ctx.state()),
        None => changes.unwrap_or_else(|| Value::Array(Vec::new())),
    }
}

/// Resolve an action (`faces`: thrown at the table) on the game in memory, signed by the seat,
/// to be recorded. The answer carries the new entry as the seat sees it (with its dice) and
/// the parts of the seat's view of the state that changed, never the whole state.
pub(super) fn act_on(
    ctx: &mut SeatCtx,
    action: Value,
    faces: Option<&[u8]>,
) -> Result<Pending, ApiError> {
    // What the answer's `changed` is measured from: the seat's view before the action, or, when
    // the seat sees the whole state, the fold's own comparison of the old state with the new
    // (which also keeps what an undo of this action puts back).
    let whole = ctx.sees_whole_state();
    let view_before = if whole { None } else { Some(ctx.state()) };
    let by = ctx.signature();
    let g = ctx.game_mut()?;
    let LiveGame { head, engine, .. } = &mut *g;
    let appended = match head.act(engine.as_ref(), action, faces, Some(by), whole) {
        Ok(a) => a,
        Err(e) => {
            if matches!(e, GameError::Corrupt(_)) {
                g.stale = true;
            }
            return Err(e.into());
        }
    };
    Ok(Pending {
        appended,
        answer: Box::new(move |ctx, appended| {
            let Appended {
                entry,
                changes,
                restore,
                ..
            } = appended;
            ctx.game_mut()?.restore = restore.map(|r| (entry.seq(), r));
            let changed = changed(ctx, view_before, changes);
            let mut v = ctx.answer_entry(&entry);
            let mut ev = take(&mut v, "event");
            Ok(Answer(object([
                ("seq", entry.seq().into()),
                ("events", ctx.seq().into()),
                ("entry", take(&mut v, "entry")),
                ("voided", take(&mut v, "voided")),
                ("resolution", take(&mut ev, "resolution")),
                ("draws", take(&mut ev, "draws")),
                ("entered", (ev["entered"] == true).into()),
                ("by", take(&mut ev, "by")),
                ("changed", changed),
                ("chain", ctx.fingerprint().into()),
            ])))
        }),
    })
}

/// Run a change on the game in memory when it can be ([`in_memory`]), else under [`locked`].
async fn change(
    st: &Arc<AppState>,
    token: String,
    f: impl Fn(Option<&AppState>, &mut SeatCtx) -> Result<Option<Pending>, ApiError>
        + Send
        + Sync
        + 'static,
) -> Result<Answer, ApiError> {
    let check = match in_memory(st, &token, |ctx| f(None, ctx)).await {
        Ok(done) => return done,
        Err(check) => check,
    };
    locked(st, token, check, move |st, mut ctx| {
        let p = f(Some(st), &mut ctx)?.ok_or_else(|| {
            ApiError::from(GameError::Corrupt("the change needs the store".into()))
        })?;
        p.record(st, &mut ctx)
    })
    .await
}

/// Resolve and record an action; durably stored before the answer.
pub async fn act(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Answer, ApiError> {
    let action = parse_body(&body)?;
    let expect = expected_seq(&headers)?;
    change(&st, token, move |_, ctx| {
        ctx.refuse_if_ended()?;
        ctx.may(&action)?;
        check_fresh(ctx, expect)?;
        act_on(ctx, action.clone(), None).map(Some)
    })
    .await
}

/// `{"action": {...}, "faces": [..]}` for faces thrown at the table.
pub(super) fn action_and_faces(v: &Value) -> Result<(Value, Vec<u8>), ApiError> {
    let bad = |field: &str, m: String| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad-field",
            Some(field),
            m,
        )
    };
    if let Some(k) = v
        .as_object()
        .and_then(|o| o.keys().find(|k| *k != "action" && *k != "faces"))
    {
        return Err(bad(
            k,
            msg(keys::WEB_ERR_ALLOWED_FIELDS, &[("fields", "action, faces")]),
        ));
    }
    let action = v
        .get("action")
        .filter(|a| a.is_object())
        .cloned()
        .ok_or_else(|| bad("action", msg(keys::WEB_ERR_ACTION_OBJECT, &[])))?;
    let faces = match v.get("faces") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, f)| {
                f.as_u64()
                    .and_then(|x| u8::try_from(x).ok())
                    .ok_or_else(|| bad(&format!("faces[{i}]"), msg(keys::WEB_ERR_FACE, &[])))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(bad("faces", msg(keys::WEB_ERR_FACES, &[]))),
    };
    Ok((action, faces))
}

pub(super) fn require_physical(ctx: &SeatCtx) -> Result<(), ApiError> {
    if ctx.game.meta.settings.physical_dice {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::CONFLICT,
        "physical-dice-off",
        Some("faces"),
        msg(keys::WEB_ERR_PHYSICAL_OFF, &[]),
    ))
}

/// Record an action with faces thrown on real dice.
pub async fn act_entered(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Answer, ApiError> {
    let (action, faces) = action_and_faces(&parse_body(&body)?)?;
    let expect = expected_seq(&headers)?;
    change(&st, token, move |_, ctx| {
        ctx.refuse_if_ended()?;
        ctx.may(&action)?;
        require_physical(ctx)?;
        check_fresh(ctx, expect)?;
        act_on(ctx, action.clone(), Some(&faces)).map(Some)
    })
    .await
}

/// Which dice to throw next for an action, given the faces thrown so far.
pub async fn dice_needed(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let (action, faces) = action_and_faces(&parse_body(&body)?)?;
    let ctx = open_seat(&st, token).await?;
    blocking(move || {
        ctx.refuse_if_ended()?;
        ctx.may(&action)?;
        require_physical(&ctx)?;
        let needed =
            tercio_rules::game::needed(ctx.game.engine.as_ref(), &ctx.game.state, &action, &faces)?;
        Ok(Json(match needed {
            None => json!({"complete": true, "needed": []}),
            Some(dice) => json!({"complete": false, "needed": dice}),
        }))
    })
    .await
}

/// The most outcomes whose exact odds are computed for a page: enumerating more (simultaneous
/// fires multiply theirs) would keep a request busy for long; such an action's odds are refused.
pub(super) const ODDS_BUDGET: usize = 5_000;

pub async fn odds_for(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let action = parse_body(&body)?;
    // `?view=html`: the page's fragment (`crate::odds`), rendered in the request's language.
    let html = query
        .as_deref()
        .is_some_and(|q| q.split('&').any(|kv| kv == "view=html"));
    let lang = crate::lang::of_request(query.as_deref(), &headers);
    let ctx = open_seat(&st, token).await?;
    blocking(move || -> Result<Json<Value>, ApiError> {
        ctx.may(&action)?;
        let engine = &ctx.game.engine;
        let g = &ctx.game;
        // The odds of an action the turn does not allow yet are still shown, with the reason.
        // They always come from the engine's preview: an action that only opens a step (a
        // melee waiting for the defender's answer) previews the whole exchange.
        let note = match engine.plan(Some(&g.state), &action) {
            Ok(_) => None,
            Err(r) if r.kind == RejectKind::NotNow => Some(r.message),
            Err(r) => return Err(GameError::Rejected(r).into()),
        };
        // An action of independent parts (a simultaneous fire) shows each part's odds (each
        // target's), not those of every combination.
        let mut plans = engine
            .preview_parts(Some(&g.state), &action)
            .map_err(|r| ApiError::from(GameError::Rejected(r)))?;
        if plans.is_empty() {
            plans.push(
                engine
                    .preview(Some(&g.state), &action)
                    .map_err(|r| ApiError::from(GameError::Rejected(r)))?,
            );
        }
        if plans.iter().any(|p| !p.within(ODDS_BUDGET)) {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "too-many-outcomes-for-odds",
                None,
                msg(
                    keys::WEB_ERR_TOO_MANY_OUTCOMES,
                    &[("max", &ODDS_BUDGET.to_string())],
                ),
            ));
        }
        // Each part's final outcome (every target of a split fire its own), told by the facets
        // that decide it, beside every facet's marginals (the stages).
        let (report, finals) = odds::of_plans(engine.as_ref(), &plans);
        if html {
            let ui = crate::lang::Ui::new(lang, "");
            let h = crate::odds::fragment(&ui, &report, &finals, note.as_deref());
            // Rendered already: kept as it is by the answer's rendering of messages.
            return Ok(Json(json!({ "html": tercio_i18n::plain(&h) })));
        }
        let mut v = serde_json::to_value(report).unwrap_or(Value::Null);
        v["note"] = note.map_or(Value::Null, Value::String);
        v["final"] = serde_json::to_value(&finals).unwrap_or(Value::Null);
        Ok(Json(v))
    })
    .await
}

pub(super) fn require_gm(ctx: &SeatCtx) -> Result<(), ApiError> {
    if ctx.is_gm() {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::FORBIDDEN,
        "seat-may-not",
        None,
        msg(keys::WEB_ERR_GM_ONLY, &[]),
    ))
}

pub async fn undo(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> Result<Answer, ApiError> {
    let expect = expected_seq(&headers)?;
    change(&st, token, move |st, ctx| {
        require_gm(ctx)?;
        ctx.refuse_if_ended()?;
        check_fresh(ctx, expect)?;
        undo_on(st, ctx)
    })
    .await
}

/// Void the latest live event on the game in memory, to be recorded: put back what it
/// replaced, when this server appended it and kept that; otherwise fold from the nearest
/// checkpoint before it (never from the start), which needs the store (`None` without it).
fn undo_on(st: Option<&AppState>, ctx: &mut SeatCtx) -> Result<Option<Pending>, ApiError> {
    let view_before = (!ctx.sees_whole_state()).then(|| ctx.state());
    let id = ctx.seat.game_id.clone();
    let g = ctx.game_mut()?;
    let voided = g.undo_target().ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            "nothing-to-undo",
            None,
            msg(keys::WEB_ERR_NOTHING_TO_UNDO, &[]),
        )
    })?;
    let restore = match &g.restore {
        Some((seq, _)) if *seq == g.seq && g.can_restore(voided) => {
            g.restore.take().map(|(_, r)| r)
        }
        _ => None,
    };
    let LiveGame { head, engine, .. } = &mut *g;
    let undone = match (restore, st) {
        (Some(r), _) => head.undo_restoring(engine.as_ref(), r),
        (None, Some(st)) => {
            let base = st.store.fold_base(&id, voided, head.checkpoint)?;
            head.undo(engine.as_ref(), base.checkpoint, &base.effects)
        }
        (None, None) => return Ok(None),
    };
    let appended = match undone {
        Ok(Some(a)) => a,
        Ok(None) => return Err(GameError::Corrupt("nothing to undo".into()).into()),
        Err(e) => {
            g.stale = true;
            return Err(e.into());
        }
    };
    Ok(Some(Pending {
        appended,
        answer: Box::new(move |ctx, appended| {
            let changed = changed(ctx, view_before, appended.changes);
            Ok(Answer(object([
                ("voided", voided.into()),
                ("seq", ctx.seq().into()),
                ("events", ctx.seq().into()),
                ("changed", changed),
                ("chain", ctx.fingerprint().into()),
            ])))
        }),
    }))
}

pub async fn dice(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let ctx = open_seat(&st, token).await?;
    blocking(move || {
        let game = ctx.full_game()?;
        let r = report::dice_report(&game, &ctx.viewer())
            .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "corrupt", None, e))?;
        Ok(Json(serde_json::to_value(r).unwrap_or(Value::Null)))
    })
    .await
}

/// A file name from a title: letters, digits and dashes.
pub fn slug(title: &str) -> String {
    let s: String = title
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s
        .split('-')
        .filter(|x| !x.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if s.is_empty() {
        "game".into()
    } else {
        s
    }
}

pub async fn export(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
) -> Result<Response, ApiError> {
    let ctx = open_seat(&st, token).await?;
    let name = format!("tercio-{}.json", slug(ctx.game.scenario.title.en()));
    let export = blocking(move || ctx.export()).await?;
    let body = serde_json::to_string_pretty(&export).unwrap_or_default();
    Ok((
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response())
}

pub async fn seats(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let base = base_url(&st, &headers);
    let ctx = open_seat(&st, token).await?;
    require_gm(&ctx)?;
    Ok(Json(Value::Array(links(
        &base,
        &ctx.game.scenario,
        ctx.seats(),
    ))))
}

/// `GET /api/s/{token}/qr?role=side&side=french` (or `role=spectator`): a seat's link as a QR
/// code, an SVG image, for the game master only: the seats panel draws each code from here when
/// it is first shown, rather than in every page ([`crate::pages::seat`]).
pub async fn qr(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    Query(q): Query<std::collections::BTreeMap<String, String>>,
    headers: HeaderMap,
) -> Result<axum::response::Response, ApiError> {
    let base = base_url(&st, &headers);
    let ctx = open_seat(&st, token).await?;
    require_gm(&ctx)?;
    let want = match (q.get("role").map(String::as_str), q.get("side")) {
        (Some("spectator"), _) => Role::Spectator,
        (Some("side"), Some(s)) => Role::Side(s.clone()),
        _ => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "bad-field",
                Some("role"),
                msg(keys::WEB_ERR_REISSUE_ROLE, &[]),
            ))
        }
    };
    let Some(seat) = ctx.seats().iter().find(|s| s.role == want) else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "no-such-seat",
            Some("side"),
            msg(keys::WEB_ERR_REISSUE_SIDE, &[]),
        ));
    };
    let svg = crate::qr::svg(&format!("{base}/s/{}", seat.token));
    Ok((
        [
            (axum::http::header::CONTENT_TYPE, "image/svg+xml"),
            (axum::http::header::CACHE_CONTROL, "private, max-age=3600"),
        ],
        svg,
    )
        .into_response())
}

/// Withdraw a seat's link and issue a new one: `{"role": "side", "side": "french"}`.
pub async fn reissue(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let v = parse_body(&body)?;
    let base = base_url(&st, &headers);
    locked(&st, token, seat::Check::Store, move |st, mut ctx| {
        require_gm(&ctx)?;
        if let Some(k) = v
            .as_object()
            .and_then(|o| o.keys().find(|k| *k != "role" && *k != "side"))
        {
            return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "unknown-field", Some(k), msg(keys::WEB_ERR_ALLOWED_FIELDS, &[("fields", "role, side")])));
        }
        let role = match (v["role"].as_str(), v["side"].as_str()) {
            (Some("game-master"), _) => Role::GameMaster,
            (Some("spectator"), _) => Role::Spectator,
            (Some("side"), Some(s)) => Role::Side(s.to_string()),
            (Some("side"), None) => {
                return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "missing-field", Some("side"), msg(keys::WEB_ERR_REISSUE_SIDE, &[])))
            }
            _ => {
                return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad-field", Some("role"), msg(keys::WEB_ERR_REISSUE_ROLE, &[])))
            }
        };
        let seat = st
            .store
            .reissue(&ctx.seat.game_id, &role)?
            .ok_or_else(|| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad-field", Some("side"), msg(keys::WEB_ERR_NO_SUCH_SIDE, &[])))?;
        let seats = st.store.seats(&ctx.seat.game_id)?;
        let g = ctx.game_mut()?;
        g.seats = seats;
        g.stale = true;
        Ok(Json(json!({"url": format!("{base}/s/{}", seat.token), "links": links(&base, &g.scenario, &g.seats)})))
    })
    .await
}

/// Change the game's settings: `{"side_rights": "watch" | "own-units", "physical_dice": bool}`.
pub async fn settings(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let v = parse_body(&body)?;
    locked(&st, token, seat::Check::Store, move |st, mut ctx| {
        require_gm(&ctx)?;
        let mut s: Settings = ctx.game.meta.settings;
        let obj = v.as_object().ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "bad-field",
                Some("body"),
                msg(keys::WEB_ERR_SETTINGS_OBJECT, &[]),
            )
        })?;
        for (k, x) in obj {
            match k.as_str() {
                "side_rights" => {
                    s.side_rights =
                        serde_json::from_value::<SideRights>(x.clone()).map_err(|_| {
                            ApiError::new(
                                StatusCode::UNPROCESSABLE_ENTITY,
                                "bad-field",
                                Some("side_rights"),
                                msg(keys::WEB_ERR_SIDE_RIGHTS, &[]),
                            )
                        })?
                }
                "physical_dice" => {
                    s.physical_dice = x.as_bool().ok_or_else(|| {
                        ApiError::new(
                            StatusCode::UNPROCESSABLE_ENTITY,
                            "bad-field",
                            Some("physical_dice"),
                            msg(keys::WEB_ERR_PHYSICAL_DICE, &[]),
                        )
                    })?
                }
                other => {
                    return Err(ApiError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "unknown-field",
                        Some(other),
                        msg(
                            keys::WEB_ERR_ALLOWED_FIELDS,
                            &[("fields", "side_rights, physical_dice")],
                        ),
                    ))
                }
            }
        }
        st.store.set_settings(&ctx.seat.game_id, &s)?;
        // The store's revision moved on: the next request reads the game again.
        ctx.game_mut()?.stale = true;
        Ok(Json(serde_json::to_value(s).unwrap_or(Value::Null)))
    })
    .await
}

/// End the game now: the seed is revealed and nothing more is recorded.
pub async fn conclude(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ApiError> {
    locked(&st, token, seat::Check::Store, move |st, mut ctx| {
        require_gm(&ctx)?;
        st.store.conclude(&ctx.seat.game_id)?;
        let g = ctx.game_mut()?;
        g.meta.concluded = true;
        g.stale = true;
        Ok(Json(ctx.dice_json()))
    })
    .await
}
