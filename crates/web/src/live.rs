//! Live updates by Server-Sent Events. Each log entry is sent once, with the entry's sequence
//! number as the event id; a browser that reconnects sends `Last-Event-ID` and gets exactly the
//! entries after it. Changes that add no entry (settings, links, the end of the game) are sent as
//! `changed`. A withdrawn link gets `revoked` and the stream ends. Every message is in the
//! language of the request that opened the stream (the page's cookie or `Accept-Language`).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream};
use serde_json::json;
use tercio_i18n::Lang;

use crate::api::{blocking, After, ApiError};
use crate::{seat, AppState};

/// How soon a browser retries after losing the stream.
const RETRY: Duration = Duration::from_millis(500);

struct Feed {
    st: Arc<AppState>,
    token: String,
    rx: tokio::sync::watch::Receiver<u64>,
    /// The last entry sent (or known to the client).
    last: u64,
    queue: VecDeque<Event>,
    done: bool,
    lang: Lang,
}

pub async fn events(
    State(st): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    Query(q): Query<After>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let lang = crate::lang::of_request(uri.query(), &headers);
    let st2 = st.clone();
    let tok = token.clone();
    // Subscribe before reading the log: a change between the two is then either in the
    // catch-up or wakes the stream (never lost in between).
    let seat = {
        let (st3, tok3) = (st.clone(), token.clone());
        blocking(move || st3.store.seat(&tok3).map_err(ApiError::from))
            .await?
            .ok_or_else(seat::no_such_link)?
    };
    let rx = st.subscribe(&seat.game_id);
    let ctx = seat::open(&st2, &tok).await?;
    let from_header = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let last = from_header.or(q.after()?).unwrap_or(0);
    let mut queue = VecDeque::new();
    queue.push_back(Event::default().retry(RETRY).comment("live"));
    let feed = Feed {
        st,
        token,
        rx,
        last,
        queue,
        done: false,
        lang,
    };
    // Whatever happened since `last` goes out first.
    let feed = blocking(move || Ok(catch_up(feed, ctx))).await?;
    let s = stream::unfold(feed, |mut f| async move {
        loop {
            if let Some(e) = f.queue.pop_front() {
                return Some((Ok(e), f));
            }
            if f.done {
                return None;
            }
            if f.rx.changed().await.is_err() {
                return None;
            }
            let st = f.st.clone();
            let token = f.token.clone();
            match seat::open(&st, &token).await {
                Ok(ctx) => {
                    // A change that adds no entry (settings, links, the end of the game).
                    let before = f.last;
                    f = match blocking(move || Ok(catch_up(f, ctx))).await {
                        Ok(f) => f,
                        Err(_) => return None,
                    };
                    if f.last == before {
                        f.queue
                            .push_back(Event::default().event("changed").data("{}"));
                    }
                }
                Err(e) if e.code() == "no-such-link" => {
                    f.queue.push_back(Event::default().event("revoked").data(
                        json!({"message": tercio_i18n::localize(f.lang, e.message())}).to_string(),
                    ));
                    f.done = true;
                }
                // A passing storage error: the next change retries.
                Err(_) => {}
            }
        }
    });
    Ok(Sse::new(s).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// How many entries one read of a catch-up takes: a page far behind gets every entry it
/// missed, read this many at a time.
const CATCH_UP: u64 = 200;

fn catch_up(mut f: Feed, ctx: seat::SeatCtx) -> Feed {
    loop {
        let entries = match ctx.entries_after(f.last, CATCH_UP) {
            Ok(e) => e,
            // A passing storage error: the next change retries.
            Err(_) => return f,
        };
        let n = entries.len() as u64;
        for e in entries {
            let seq = e["seq"].as_u64().unwrap_or(0);
            let mut data = json!({"seq": seq, "events": ctx.seq(), "entry": e});
            tercio_i18n::localize_json(f.lang, &mut data);
            f.queue.push_back(
                Event::default()
                    .id(seq.to_string())
                    .event("entry")
                    .data(data.to_string()),
            );
            f.last = seq;
        }
        if n < CATCH_UP {
            return f;
        }
    }
}
