//! Live updates by Server-Sent Events. Each log entry is sent once, with the entry's sequence
//! number as the event id; a client that reconnects sends `Last-Event-ID` (or `?after=`) and gets
//! exactly the entries after it. A withdrawn link gets `revoked` and the stream ends. Every
//! message is in the language of the request that opened the stream (`?lang=`, the page's cookie
//! or `Accept-Language`).
//!
//! A seat's page opens the stream with the version of the `#main` it has (`?etag=`, its
//! `data-etag`), and the stream keeps that page up to date without the page fetching itself
//! again: it knows the page's `#main` ([`pages::seat_main`], drawn for this seat in the stream's
//! language) and, on every change, draws the new one and sends the difference ([`patch::diff`]),
//! with the last new entry, or as `changed` when nothing was added to the log (settings, links,
//! the end of the game) and the page changed. Each patch names the version it applies to
//! (`base`) and the one it makes (`etag`, [`crate::seat::SeatCtx::etag`]). A page whose version
//! is the current one when it connects is sent nothing more; another (one cut off while things
//! changed) is sent its `#main` whole, once, in the first patch. A stream opened without `etag`
//! (a script, `curl`) carries no patches; a change that adds no entry is `changed` with `{}`.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream};
use serde::Deserialize;
use serde_json::{json, Value};
use tercio_i18n::Lang;

use crate::api::{blocking, After, ApiError, Params};
use crate::lang::Ui;
use crate::patch::{self, Op};
use crate::{pages, seat, AppState};

/// How soon a browser retries after losing the stream, and the stream after failing to read the
/// game.
const RETRY: Duration = Duration::from_millis(500);

/// How many times in a row the stream tries to read a change it could not.
const MAX_RETRIES: u32 = 5;

/// The element a page's live part is, and a patch's root.
pub const MAIN: &str = "main";

/// What a page says of itself when it opens the stream: the version of the `#main` it has
/// (`?etag=`, its `data-etag`: without it the stream sends no patches), and `?brief=1` when it
/// needs of each entry only what it is, not its resolution, dice and effects (the patch's log
/// entry shows them: [`brief`]).
#[derive(Deserialize)]
pub struct Baseline {
    etag: Option<String>,
    brief: Option<String>,
}

struct Feed {
    st: Arc<AppState>,
    token: String,
    rx: tokio::sync::watch::Receiver<u64>,
    /// This page counted among the server's live pages while the stream lasts.
    _attending: crate::Attending,
    /// The last entry sent (or known to the client).
    last: u64,
    queue: VecDeque<Event>,
    done: bool,
    lang: Lang,
    /// The page the stream keeps up to date, when the client said which it has.
    page: Option<Page>,
    /// Entries without their resolution's steps, dice and effects (`?brief=1`).
    brief: bool,
    /// How many times in a row the view could not be read (a passing storage error).
    retries: u32,
}

/// A live page as the stream knows it.
struct Page {
    /// Where the links on the page point (the address the page was reached by).
    base: String,
    /// Its `#main`, once the stream knows it (not at connect).
    html: Option<String>,
    /// Its version.
    etag: String,
}

/// A seat's view now, and (for a live page whose links point at `base`) its `#main` in `lang`
/// with that view's etag, and the log entries after `after` as the seat sees them.
async fn view(
    st: &Arc<AppState>,
    token: &str,
    lang: Lang,
    base: Option<String>,
    after: u64,
) -> Result<View, ApiError> {
    let ctx = seat::open(st, token).await?;
    let token = token.to_string();
    blocking(move || {
        let main = base.map(|base| live_main(&ctx, lang, &token, &base));
        // A page far behind gets every entry it missed, read a page at a time.
        let mut entries = Vec::new();
        loop {
            let last = entries
                .last()
                .and_then(|e: &Value| e["seq"].as_u64())
                .unwrap_or(after);
            let more = ctx.entries_after(last, CATCH_UP)?;
            let n = more.len() as u64;
            entries.extend(more);
            if n < CATCH_UP {
                break;
            }
        }
        Ok(View {
            seq: ctx.seq(),
            main,
            entries,
        })
    })
    .await
}

/// An event as a live page needs it (`?brief=1`): the patch's log entry shows its resolution,
/// dice and effects, so the event keeps only what the page does with it besides: the action and
/// who took it, and of the resolution its action, its summary and whether it rolled dice (a
/// result with dice opens in a box, the others are a line; the box shows the log entry's text).
fn brief(ev: &mut serde_json::Map<String, Value>) {
    for k in ["draws", "effects"] {
        ev.remove(k);
    }
    if let Some(r) = ev.get_mut("resolution").and_then(Value::as_object_mut) {
        let rolled = r.get("steps").and_then(Value::as_array).is_some_and(|s| {
            s.iter()
                .any(|st| st["dice"].as_array().is_some_and(|d| !d.is_empty()))
        });
        r.retain(|k, _| k == "action" || k == "summary");
        r.insert("rolled".into(), Value::Bool(rolled));
    }
}

/// A seat's `#main` as a live page has it (drawn in `lang`, its links at `base`), with its
/// version: what the stream patches, and what `/parts` takes a patch's parts from.
pub(crate) fn live_main(
    ctx: &seat::SeatCtx,
    lang: Lang,
    token: &str,
    base: &str,
) -> (String, String) {
    let ui = Ui::new(lang, &format!("/s/{token}"));
    (pages::seat_main(ctx, &ui, base), ctx.etag(lang))
}

/// How many entries one read of a catch-up takes.
const CATCH_UP: u64 = 200;

/// What the stream sends from: the log's length, the page's `#main` and etag (a live page), and
/// the entries the client has not had. Read under the game's lock, sent after it is released.
struct View {
    seq: u64,
    main: Option<(String, String)>,
    entries: Vec<Value>,
}

pub async fn events(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    Params(q): Params<After>,
    Params(b): Params<Baseline>,
) -> Result<
    (
        [(&'static str, &'static str); 1],
        Sse<impl Stream<Item = Result<Event, Infallible>>>,
    ),
    ApiError,
> {
    let lang = crate::lang::of_request(uri.query(), &headers);
    let keep_alive = crate::conn::keep_alive_every(st.limits.idle_timeout);
    let page = b.etag.map(|etag| Page {
        base: crate::api::base_url(&st, &headers),
        html: None,
        etag,
    });
    // Subscribe before reading the log: a change between the two is then either in the
    // catch-up or wakes the stream (never lost in between). The token is the store's to
    // confirm: a stream is not opened on one it cannot (it is reconnected once the store
    // answers), and every view after is read through `seat::open`, which asks it again.
    let seat = {
        let (st3, tok3) = (st.clone(), token.clone());
        blocking(move || st3.store.seat(&tok3).map_err(|_| seat::unconfirmed()))
            .await?
            .ok_or_else(seat::no_such_link)?
    };
    let (rx, attending) = st.subscribe(&seat.game_id);
    let from_header = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let last = from_header.or(q.after()?).unwrap_or(0);
    let v = view(
        &st,
        &token,
        lang,
        page.as_ref().map(|p| p.base.clone()),
        last,
    )
    .await?;
    let mut queue = VecDeque::new();
    queue.push_back(Event::default().retry(RETRY).comment("live"));
    let feed = Feed {
        st,
        token,
        rx,
        _attending: attending,
        last,
        queue,
        done: false,
        lang,
        page,
        brief: b.brief.as_deref() == Some("1"),
        retries: 0,
    };
    // Whatever happened since `last` goes out first.
    let feed = catch_up(feed, v, true);
    let s = stream::unfold(feed, |mut f| async move {
        loop {
            if let Some(e) = f.queue.pop_front() {
                return Some((Ok(e), f));
            }
            if f.done {
                return None;
            }
            if f.retries > 0 {
                tokio::time::sleep(RETRY).await;
            } else if f.rx.changed().await.is_err() {
                return None;
            }
            let base = f.page.as_ref().map(|p| p.base.clone());
            match view(&f.st, &f.token, f.lang, base, f.last).await {
                Ok(v) => {
                    f.retries = 0;
                    f = catch_up(f, v, false);
                }
                Err(e) if e.code() == "no-such-link" => {
                    f.queue.push_back(Event::default().event("revoked").data(
                        json!({"message": tercio_i18n::localize(f.lang, e.message())}).to_string(),
                    ));
                    f.done = true;
                }
                // A passing storage error: try again shortly (a page waits for this change:
                // it no longer fetches itself), a few times, then at the next change.
                Err(_) => {
                    f.retries = if f.retries >= MAX_RETRIES {
                        0
                    } else {
                        f.retries + 1
                    }
                }
            }
        }
    });
    // A reverse proxy (nginx) passes each message on as it comes, whatever its buffering. The
    // keep-alive comments keep a stream that waits for news from being closed as idle, here
    // and by a proxy.
    Ok((
        [("x-accel-buffering", "no")],
        Sse::new(s).keep_alive(KeepAlive::new().interval(keep_alive)),
    ))
}

/// Queue what takes the client from what it has to the view `ctx`: each entry after the last
/// sent; for a live page (`main`: the view's `#main` and etag), with the last of them the patch
/// from the page's `#main` to this one, or with no new entry the patch alone as `changed` when
/// the page changed at all; for a plain stream, `changed` (`{}`) when a change added no entry.
fn catch_up(mut f: Feed, v: View, connecting: bool) -> Feed {
    let patch = match (&mut f.page, v.main) {
        (Some(page), Some((html, etag))) => {
            let ops = match &page.html {
                // Connecting: a page whose version is the current one has this very `#main`;
                // any other is sent it whole.
                None if page.etag == etag => Vec::new(),
                None => vec![Op::Replace {
                    id: MAIN.into(),
                    html: html.clone(),
                    fetch: Vec::new(),
                }],
                Some(old) => patch::diff(old, &html),
            };
            let patch = (!ops.is_empty() || page.etag != etag)
                .then(|| (json!({"base": page.etag, "etag": etag, "seq": v.seq}), ops));
            page.html = Some(html);
            page.etag = etag;
            patch
        }
        _ => None,
    };
    let entries = v.entries;
    let n = entries.len();
    for (i, mut e) in entries.into_iter().enumerate() {
        let seq = e["seq"].as_u64().unwrap_or(0);
        if let (true, Some(ev)) = (f.brief, e.get_mut("event").and_then(Value::as_object_mut)) {
            brief(ev);
        }
        let mut data = json!({"seq": seq, "events": v.seq, "entry": e});
        tercio_i18n::localize_json(f.lang, &mut data);
        // The page was drawn in the stream's language already.
        if let (true, Some(p)) = (i + 1 == n, &patch) {
            data = with_patch(data, p);
        }
        f.queue.push_back(
            Event::default()
                .id(seq.to_string())
                .event("entry")
                .data(data.to_string()),
        );
        f.last = seq;
    }
    if n == 0 {
        match (&f.page, patch) {
            (Some(_), Some(p)) => f.queue.push_back(
                Event::default()
                    .event("changed")
                    .data(with_patch(json!({}), &p).to_string()),
            ),
            (None, _) if !connecting => f
                .queue
                .push_back(Event::default().event("changed").data("{}")),
            _ => {}
        }
    }
    f
}

/// The most a live message weighs, raw (issue 14's target for a live event per seat): a bigger
/// patch names the parts of the new page it needs instead of carrying them ([`patch::defer`]),
/// and the page fetches them (`GET /api/s/{token}/parts`, compressed like any answer; the
/// stream is not).
pub const MESSAGE_BUDGET: usize = 4096;

/// The message `data` with the patch `p` (its head and its ops), its ops deferred where the
/// whole would weigh more than [`MESSAGE_BUDGET`].
fn with_patch(mut data: Value, (head, ops): &(Value, Vec<Op>)) -> Value {
    let mut patch = head.clone();
    patch["ops"] = serde_json::to_value(ops).unwrap_or_default();
    data["patch"] = patch;
    let size = data.to_string().len();
    if size > MESSAGE_BUDGET {
        let rest = size - data["patch"]["ops"].to_string().len();
        let mut ops = ops.clone();
        patch::defer(&mut ops, MESSAGE_BUDGET.saturating_sub(rest));
        data["patch"]["ops"] = serde_json::to_value(ops).unwrap_or_default();
    }
    data
}
