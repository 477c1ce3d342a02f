//! The server's connections: its own accept loop over hyper's HTTP/1, with a deadline on every
//! stage of a connection and a bound on how many are open.
//!
//! `axum::serve` set no deadline: partial headers, a body shorter than its `Content-Length` or a
//! connection that sent nothing stayed open for good, each holding a file descriptor, and 1,100
//! of them from anyone on the network used up the usual 1,024 and stopped the server answering.
//! Here every connection is watched ([`Track`]: the I/O records its last byte read or written,
//! the service when a request is being answered) and closed when it overstays:
//!
//! - **headers** ([`Limits::header_timeout`]): a request's head must be complete within this
//!   time of its first byte, and a new connection must send its first head within this time of
//!   being accepted. Trickling a byte at a time does not extend it.
//! - **body** ([`Limits::body_timeout`]): a request's body must be complete within this time of
//!   its head; trickling does not extend it either. The connection is closed without an answer:
//!   nobody is reading one.
//! - **idle** ([`Limits::idle_timeout`]): a kept-alive connection waiting for its next request,
//!   or an answer nobody reads (no byte written), is closed after this long without a byte either
//!   way. A live page's event stream that is only waiting for news is not idle: it sends a
//!   keep-alive comment at least three times per idle timeout ([`keep_alive_every`]). A handler
//!   still working on its answer is never timed out.
//! - **how many** ([`Limits::max_connections`], below the process's open-files limit): at the
//!   bound, a new connection closes another: first one that never completed a request, the
//!   oldest; then the longest idle between requests; then the longest idle of the answers being
//!   streamed (a live page's stream reconnects and catches up by itself). Never one whose
//!   handler is at work or whose body is coming in. With none to close, the new connection is
//!   closed.
//!
//! hyper's own `header_read_timeout` is not used: it starts when hyper begins to wait for a head,
//! not at its first byte, and it runs while a kept-alive connection waits for its next request,
//! so it would cut kept-alive connections at the header timeout.
//!
//! The accept loop never ends on an error: out of descriptors (`EMFILE`), it closes the
//! longest-idle connection, waits a little (10 ms, doubling to 1 s) and accepts again.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes, HttpBody};
use axum::Router;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tower::ServiceExt;

/// How long a request's head may take from its first byte, and a new connection to send its
/// first one: a phone on a club's crowded Wi-Fi sends a head (a few hundred bytes to a few KB) in
/// well under a second, and 10 s still covers three lost packets in a row (TCP waits 1, 2 and
/// 4 s before resending). hyper's default is 30 s, nginx's 60 s; both leave a connection that
/// sends nothing open three to six times as long.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request's body may take once its head is in: bodies here are actions, settings
/// and scenarios, a few KB; the largest allowed (2 MB) arrives in 30 s at 70 KB/s.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a connection may stay without a byte either way: longer than the 60 s after which
/// nginx closes its own idle connections to a server (its `keepalive_timeout`), so behind nginx
/// the proxy, not Tercio, closes them and never sends a request on one being closed; well over
/// the live streams' keep-alive ([`KEEP_ALIVE`]); and well under the minutes browsers keep an
/// idle connection (they open another as needed).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(75);

/// How often a live stream that has nothing to say sends a comment, at most: it keeps the stream
/// from looking idle, here and to a proxy ([`keep_alive_every`]).
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The file descriptors kept back from connections by default: the database (SQLite's file and
/// write-ahead log for its writer and each of 16 readers, or 17 PostgreSQL connections), the
/// listener, the runtime's own (epoll, wake-ups), standard streams, and slack for the blocking
/// pool's work (a game file read, a DNS lookup) — about 50 in use, 128 kept.
pub const RESERVED_FILES: u64 = 128;

/// The fewest connections the default allows, however low the open-files limit.
pub const MIN_CONNECTIONS: usize = 64;

/// The most connections the default allows, however high the open-files limit: past this many,
/// memory (each connection's buffers) is the limit, not descriptors.
pub const MAX_CONNECTIONS: usize = 65_536;

/// The deadlines and the bound on connections ([module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
}

impl Default for Limits {
    /// The constants above, and as many connections as the open-files limit allows
    /// ([`default_max_connections`]).
    fn default() -> Limits {
        Limits {
            header_timeout: HEADER_TIMEOUT,
            body_timeout: BODY_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            max_connections: default_max_connections(),
        }
    }
}

/// The process's soft limit on open files (`ulimit -n`, systemd's `LimitNOFILE`), `None` when
/// there is none (or the system has no such limit).
pub fn open_files_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        rustix::process::getrlimit(rustix::process::Resource::Nofile).current
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// How many connections to allow by default: the open-files limit less [`RESERVED_FILES`].
pub fn default_max_connections() -> usize {
    connections_for(open_files_limit())
}

/// How many connections an open-files limit of `limit` allows: the limit less
/// [`RESERVED_FILES`], between [`MIN_CONNECTIONS`] and [`MAX_CONNECTIONS`].
pub fn connections_for(limit: Option<u64>) -> usize {
    let n = limit.map_or(u64::MAX, |l| l.saturating_sub(RESERVED_FILES));
    usize::try_from(n)
        .unwrap_or(usize::MAX)
        .clamp(MIN_CONNECTIONS, MAX_CONNECTIONS)
}

/// How often a live stream sends a keep-alive comment when the idle timeout is `idle`:
/// [`KEEP_ALIVE`], or a third of the idle timeout if that is shorter, so a stream waiting for news
/// is never taken for an idle connection.
pub fn keep_alive_every(idle: Duration) -> Duration {
    KEEP_ALIVE.min(idle / 3).max(Duration::from_millis(50))
}

/// "Not set", in [`Track`]'s times.
const NONE: u64 = u64::MAX;

/// What the server knows of one connection: times are milliseconds since the server started.
pub(crate) struct Track {
    epoch: Instant,
    /// The last byte read or written, or the last request begun or answered.
    last: AtomicU64,
    /// When the head being read began (the connection's accept for its first), or [`NONE`].
    head_since: AtomicU64,
    /// When a request whose body is still coming in began, or [`NONE`].
    body_since: AtomicU64,
    /// Requests taken and not yet answered to their last byte.
    requests: AtomicU32,
    /// Of those, the ones whose handler is still working.
    handlers: AtomicU32,
    /// Whether a request was ever taken.
    served: AtomicBool,
    /// Told to close (under the registry's lock).
    closing: AtomicBool,
    close: Notify,
}

impl Track {
    fn new(epoch: Instant) -> Track {
        let now = ms(epoch.elapsed());
        Track {
            epoch,
            last: AtomicU64::new(now),
            head_since: AtomicU64::new(now),
            body_since: AtomicU64::new(NONE),
            requests: AtomicU32::new(0),
            handlers: AtomicU32::new(0),
            served: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            close: Notify::new(),
        }
    }

    fn now(&self) -> u64 {
        ms(self.epoch.elapsed())
    }

    /// Bytes came in: between requests, the first of a head.
    fn read(&self) {
        let now = self.now();
        self.last.store(now, Relaxed);
        if self.requests.load(Relaxed) == 0 {
            let _ = self
                .head_since
                .compare_exchange(NONE, now, Relaxed, Relaxed);
        }
    }

    fn wrote(&self) {
        self.last.store(self.now(), Relaxed);
    }

    /// A request's head is in (its body still to come when `body`).
    fn begin(self: &Arc<Self>, body: bool) -> (Handling, Answering) {
        let now = self.now();
        self.requests.fetch_add(1, Relaxed);
        self.handlers.fetch_add(1, Relaxed);
        self.served.store(true, Relaxed);
        self.head_since.store(NONE, Relaxed);
        self.body_since
            .store(if body { now } else { NONE }, Relaxed);
        self.last.store(now, Relaxed);
        (Handling(self.clone()), Answering(self.clone()))
    }

    /// Whether the connection has overstayed at `now`.
    fn expired(&self, now: u64, l: &Limits) -> bool {
        let past =
            |since: u64, limit: Duration| since != NONE && now.saturating_sub(since) >= ms(limit);
        if self.body_since.load(Relaxed) != NONE {
            return past(self.body_since.load(Relaxed), l.body_timeout);
        }
        if self.handlers.load(Relaxed) > 0 {
            return false;
        }
        let head = self.head_since.load(Relaxed);
        if self.requests.load(Relaxed) == 0 && head != NONE {
            return past(head, l.header_timeout);
        }
        past(self.last.load(Relaxed), l.idle_timeout)
    }

    /// Where the connection stands in the order of closing at the bound (the least first), if
    /// it may be closed: not while a handler works or a body comes in. First the connections
    /// that never completed a request, the one accepted first first (a byte trickled now and
    /// then does not keep a connection from its turn); then those between requests, and those
    /// streaming an answer, the longest idle first.
    fn rank(&self) -> Option<(bool, bool, u64)> {
        let busy = self.handlers.load(Relaxed) > 0 || self.body_since.load(Relaxed) != NONE;
        if busy || self.closing.load(Relaxed) {
            return None;
        }
        let answering = self.requests.load(Relaxed) > 0;
        let head = self.head_since.load(Relaxed);
        let since = if !answering && head != NONE {
            head
        } else {
            self.last.load(Relaxed)
        };
        Some((answering, self.served.load(Relaxed), since))
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(NONE - 1)
}

/// A handler at work on a request (until its answer's head is ready).
struct Handling(Arc<Track>);

impl Drop for Handling {
    fn drop(&mut self) {
        self.0.handlers.fetch_sub(1, Relaxed);
        self.0.wrote();
    }
}

/// A request not yet answered to its last byte.
struct Answering(Arc<Track>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.requests.fetch_sub(1, Relaxed);
        self.0.wrote();
    }
}

/// The open connections.
struct Registry {
    limits: Limits,
    epoch: Instant,
    conns: Mutex<Conns>,
    /// When the bound was last reported to the operator (ms + 1; 0: never).
    warned: AtomicU64,
}

#[derive(Default)]
struct Conns {
    next: u64,
    map: HashMap<u64, Arc<Track>>,
    /// How many of them are told to close (and will, at their task's next turn).
    closing: usize,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, Conns> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new connection's place, at the bound made by closing another; `None` if every one is
    /// at work.
    fn admit(&self) -> Option<(u64, Arc<Track>)> {
        let mut c = self.lock();
        if c.map.len() - c.closing >= self.limits.max_connections.max(1) {
            self.warn_bound(c.map.len() - c.closing);
            if !Self::close_one(&mut c) {
                return None;
            }
        }
        c.next += 1;
        let id = c.next;
        let t = Arc::new(Track::new(self.epoch));
        c.map.insert(id, t.clone());
        Some((id, t))
    }

    /// Close the connection first in the order of [`Track::rank`]; whether there was one.
    fn close_one(c: &mut Conns) -> bool {
        // Of two alike (idle since the same millisecond), the older connection.
        let victim = c
            .map
            .iter()
            .filter_map(|(id, t)| t.rank().map(|r| ((r, *id), t)))
            .min_by_key(|(r, _)| *r)
            .map(|(_, t)| t.clone());
        match victim {
            Some(t) => {
                Self::close(c, &t);
                true
            }
            None => false,
        }
    }

    fn close(c: &mut Conns, t: &Track) {
        if !t.closing.swap(true, Relaxed) {
            c.closing += 1;
            t.close.notify_one();
        }
    }

    fn remove(&self, id: u64) {
        let mut c = self.lock();
        if let Some(t) = c.map.remove(&id) {
            if t.closing.load(Relaxed) {
                c.closing -= 1;
            }
        }
    }

    /// Close every connection past its deadline.
    fn sweep(&self) {
        let now = ms(self.epoch.elapsed());
        let mut c = self.lock();
        let late: Vec<_> = c
            .map
            .values()
            .filter(|t| !t.closing.load(Relaxed) && t.expired(now, &self.limits))
            .cloned()
            .collect();
        for t in late {
            Self::close(&mut c, &t);
        }
    }

    /// Tell the operator the bound is reached, at most once a minute.
    fn warn_bound(&self, open: usize) {
        let now = ms(self.epoch.elapsed()) + 1;
        let last = self.warned.load(Relaxed);
        if (last == 0 || now.saturating_sub(last) >= 60_000)
            && self
                .warned
                .compare_exchange(last, now, Relaxed, Relaxed)
                .is_ok()
        {
            eprintln!(
                "warning: {open} connections open, the most allowed (--max-connections): the longest idle is closed for each new one"
            );
        }
    }
}

/// Serve `router` on `listener` within `limits`, until the process ends.
pub async fn serve(listener: TcpListener, router: Router, limits: Limits) -> io::Result<()> {
    let epoch = Instant::now();
    let reg = Arc::new(Registry {
        limits,
        epoch,
        conns: Mutex::new(Conns::default()),
        warned: AtomicU64::new(0),
    });
    tokio::spawn(sweeper(Arc::downgrade(&reg)));
    let mut failures: u32 = 0;
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                if failures > 0 {
                    eprintln!("accepting connections again, after {failures} failed attempts");
                    failures = 0;
                }
                // None: every connection is at work; this one is closed as it is dropped.
                if let Some((id, track)) = reg.admit() {
                    tokio::spawn(connection(stream, router.clone(), id, track, reg.clone()));
                }
            }
            // The client gave up before it was accepted.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionRefused
                        | io::ErrorKind::ConnectionAborted
                        | io::ErrorKind::ConnectionReset
                ) => {}
            Err(e) => {
                // Out of descriptors, most likely (EMFILE, ENFILE): closing a connection frees
                // one. The connection that could not be accepted waits in the listen queue.
                failures = failures.saturating_add(1);
                if failures == 1 {
                    eprintln!(
                        "warning: accepting a connection: {e}; closing the longest-idle connection and trying again"
                    );
                }
                Registry::close_one(&mut reg.lock());
                let wait = 10u64 << failures.min(7).saturating_sub(1);
                tokio::time::sleep(Duration::from_millis(wait.min(1000))).await;
            }
        }
    }
}

/// Close the connections past their deadlines, a few times per shortest deadline; ends with the
/// server.
async fn sweeper(reg: Weak<Registry>) {
    let tick = match reg.upgrade() {
        Some(r) => {
            let l = r.limits;
            let shortest = l.header_timeout.min(l.body_timeout).min(l.idle_timeout);
            (shortest / 4).clamp(Duration::from_millis(10), Duration::from_secs(1))
        }
        None => return,
    };
    let mut every = tokio::time::interval(tick);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        match reg.upgrade() {
            Some(r) => r.sweep(),
            None => return,
        }
    }
}

/// One connection, served until it ends or is told to close (then dropped: the socket closes).
async fn connection(
    stream: TcpStream,
    router: Router,
    id: u64,
    track: Arc<Track>,
    reg: Arc<Registry>,
) {
    // Leaves the registry however the task ends (a handler's panic included).
    let _registered = Registered { reg, id };
    let io = TokioIo::new(Watched {
        io: stream,
        track: track.clone(),
    });
    let service = Answer {
        router,
        track: track.clone(),
    };
    // No upgrades (the app has no WebSocket) and no HTTP/2 (browsers speak it only over TLS,
    // which a proxy in front ends), as `axum::serve` with axum's default features.
    let conn = hyper::server::conn::http1::Builder::new()
        .header_read_timeout(None)
        .serve_connection(io, service);
    tokio::select! {
        _ = conn => {}
        _ = track.close.notified() => {}
    }
}

/// A connection's place in the registry, given up when its task ends.
struct Registered {
    reg: Arc<Registry>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.reg.remove(self.id);
    }
}

/// A connection's socket, recording each byte read or written on its [`Track`].
struct Watched {
    io: TcpStream,
    track: Arc<Track>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.track.read();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.io).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.track.wrote();
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.track.wrote();
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The router as hyper calls it, each request marked on the connection's [`Track`].
#[derive(Clone)]
struct Answer {
    router: Router,
    track: Arc<Track>,
}

impl hyper::service::Service<hyper::Request<Incoming>> for Answer {
    type Response = hyper::Response<Answered>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, req: hyper::Request<Incoming>) -> Self::Future {
        let coming = !req.body().is_end_stream();
        let (handling, answering) = self.track.begin(coming);
        let track = coming.then(|| self.track.clone());
        let req = req.map(|body| Body::new(Received { body, track }));
        let router = self.router.clone();
        Box::pin(async move {
            let res = match router.oneshot(req).await {
                Ok(res) => res,
                Err(never) => match never {},
            };
            drop(handling);
            Ok(res.map(|body| Answered {
                body,
                answering: Some(answering),
            }))
        })
    }
}

/// A request's body, its connection's body deadline lifted once it is all in (or dropped).
struct Received {
    body: Incoming,
    track: Option<Arc<Track>>,
}

impl Received {
    fn done(&mut self) {
        if let Some(t) = self.track.take() {
            t.body_since.store(NONE, Relaxed);
        }
    }
}

impl Drop for Received {
    fn drop(&mut self) {
        self.done();
    }
}

impl HttpBody for Received {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let r = Pin::new(&mut self.body).poll_frame(cx);
        match &r {
            Poll::Ready(None | Some(Err(_))) => self.done(),
            Poll::Ready(Some(Ok(_))) if self.body.is_end_stream() => self.done(),
            _ => {}
        }
        r
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// An answer's body, its request counted as unanswered until its last byte is out (or it is
/// dropped).
struct Answered {
    body: Body,
    answering: Option<Answering>,
}

impl HttpBody for Answered {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let r = Pin::new(&mut self.body).poll_frame(cx);
        if matches!(r, Poll::Ready(None)) {
            self.answering = None;
        }
        r
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_the_open_files_limit_less_a_reserve_within_sane_bounds() {
        assert_eq!(connections_for(Some(1024)), 896);
        assert_eq!(connections_for(Some(65_536)), 65_408);
        assert_eq!(connections_for(Some(256)), 128);
        assert_eq!(connections_for(Some(100)), MIN_CONNECTIONS);
        assert_eq!(connections_for(Some(0)), MIN_CONNECTIONS);
        assert_eq!(connections_for(Some(1 << 40)), MAX_CONNECTIONS);
        assert_eq!(connections_for(None), MAX_CONNECTIONS);
    }

    #[test]
    fn a_live_stream_speaks_well_within_the_idle_timeout() {
        assert_eq!(keep_alive_every(IDLE_TIMEOUT), KEEP_ALIVE);
        assert_eq!(
            keep_alive_every(Duration::from_secs(3)),
            Duration::from_secs(1)
        );
        assert!(keep_alive_every(Duration::ZERO) > Duration::ZERO);
    }

    fn limits() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(75),
            max_connections: 2,
        }
    }

    /// A track made at the epoch, so its times read as milliseconds from 0.
    fn track() -> Arc<Track> {
        let t = Arc::new(Track::new(Instant::now()));
        for a in [&t.last, &t.head_since] {
            a.store(0, Relaxed);
        }
        t
    }

    #[test]
    fn each_stage_has_its_own_deadline() {
        let l = limits();
        // A new connection: its first head within the header timeout.
        let t = track();
        assert!(!t.expired(9_999, &l));
        assert!(t.expired(10_000, &l));
        // A request with a body to come: the body timeout from its head, whatever the reads.
        let (handling, answering) = t.begin(true);
        t.body_since.store(0, Relaxed);
        t.last.store(29_000, Relaxed);
        assert!(!t.expired(29_999, &l));
        assert!(t.expired(30_000, &l));
        // The body in, the handler at work: no deadline.
        t.body_since.store(NONE, Relaxed);
        assert!(!t.expired(1_000_000, &l));
        // The answer being written: the idle timeout from its last byte.
        drop(handling);
        t.last.store(100_000, Relaxed);
        assert!(!t.expired(174_999, &l));
        assert!(t.expired(175_000, &l));
        // Kept alive after the answer: the idle timeout; a byte of the next head: the header
        // timeout from it.
        drop(answering);
        t.last.store(200_000, Relaxed);
        assert!(!t.expired(274_999, &l));
        assert!(t.expired(275_000, &l));
        t.head_since.store(210_000, Relaxed);
        assert!(t.expired(220_000, &l));
    }

    #[test]
    fn at_the_bound_the_longest_idle_is_closed_never_one_at_work() {
        let mut c = Conns::default();
        let add = |c: &mut Conns, t: &Arc<Track>| {
            c.next += 1;
            c.map.insert(c.next, t.clone());
        };
        // Never served: accepted at 0, trickling a head (its last byte at 9), and accepted at 2;
        // served and kept alive since 5; streaming since 1; a handler at work; a body coming in.
        let trickling = track();
        trickling.last.store(9, Relaxed);
        let fresh = track();
        fresh.head_since.store(2, Relaxed);
        fresh.last.store(2, Relaxed);
        let kept = track();
        let (h, a) = kept.begin(false);
        drop((h, a));
        kept.last.store(5, Relaxed);
        let streaming = track();
        let (h, _streaming_answer) = streaming.begin(false);
        drop(h);
        streaming.last.store(1, Relaxed);
        let working = track();
        let _working = working.begin(false);
        let receiving = track();
        let _receiving = receiving.begin(true);
        for t in [&fresh, &kept, &streaming, &working, &receiving, &trickling] {
            add(&mut c, t);
        }
        let named = [
            ("trickling", &trickling),
            ("fresh", &fresh),
            ("kept", &kept),
            ("streaming", &streaming),
        ];
        let mut order = Vec::new();
        while Registry::close_one(&mut c) {
            for (name, t) in named {
                if t.closing.load(Relaxed) && !order.contains(&name) {
                    order.push(name);
                }
            }
        }
        assert_eq!(order, ["trickling", "fresh", "kept", "streaming"]);
        assert_eq!(c.closing, 4);
        assert!(!working.closing.load(Relaxed) && !receiving.closing.load(Relaxed));
    }
}
