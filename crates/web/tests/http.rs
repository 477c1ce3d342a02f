//! HTTP as browsers expect it: answers compressed when the client accepts it (and the live
//! stream never), static files under content-hashed names cached for a year, and an icon; and
//! connections kept within their deadlines and their bound (`conn.rs`), live streams included.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{server, server_with, token, Server, PATIENCE};
use serde_json::json;
use tercio_web::assets;
use tercio_web::client::{EventStream, Reply};
use tercio_web::conn::Limits;

impl Server {
    /// A Cerignola game at seed 5; its game master's token.
    fn game(&self) -> String {
        token(
            &self.create(&json!({"scenario": "el-gran-capitan/cerignola-1503", "seed": 5}))
                ["links"][0]["url"],
        )
    }

    fn get(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.request("GET", path, headers, None)
    }
}

fn header<'a>(r: &'a Reply, name: &str) -> Option<&'a str> {
    r.headers(name).first().copied()
}

fn decode(encoding: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match encoding {
        "gzip" => flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut out)
            .expect("gzip"),
        "br" => brotli_decompressor::Decompressor::new(bytes, 4096)
            .read_to_end(&mut out)
            .expect("brotli"),
        e => panic!("unexpected encoding {e}"),
    };
    out
}

#[test]
fn pages_json_and_assets_come_compressed_when_asked_and_decode_to_the_plain_answer() {
    let s = server();
    let gm = s.game();
    s.request(
        "POST",
        &format!("/api/s/{gm}/actions"),
        &[],
        Some(r#"{"action": "initiative"}"#),
    );
    for path in [
        format!("/s/{gm}"),
        format!("/api/s/{gm}"),
        format!("/api/s/{gm}/log"),
        assets::css().to_string(),
        assets::js().to_string(),
    ] {
        let plain = s.get(&path, &[]);
        assert_eq!(plain.status, 200, "{path}");
        assert_eq!(
            header(&plain, "content-encoding"),
            None,
            "{path}: nothing asked, nothing compressed"
        );
        assert!(
            plain.bytes.len() > 500,
            "{path}: {} bytes",
            plain.bytes.len()
        );
        for encoding in ["gzip", "br"] {
            let r = s.get(&path, &[("Accept-Encoding", encoding)]);
            assert_eq!(r.status, 200, "{path}");
            assert_eq!(header(&r, "content-encoding"), Some(encoding), "{path}");
            assert!(
                r.headers("vary")
                    .iter()
                    .any(|v| v.to_ascii_lowercase().contains("accept-encoding")),
                "{path}: {}",
                r.head
            );
            assert_eq!(
                header(&r, "content-type"),
                header(&plain, "content-type"),
                "{path}"
            );
            assert!(
                r.bytes.len() < plain.bytes.len(),
                "{path} {encoding}: {} of {} bytes",
                r.bytes.len(),
                plain.bytes.len()
            );
            let back = decode(encoding, &r.bytes);
            assert!(
                back == plain.bytes,
                "{path} {encoding}: decoded answer differs from the plain one"
            );
        }
    }
    // JSON answers are compressed after they are rendered in the request's language.
    let it = s.get(
        &format!("/api/s/{gm}/log?lang=it"),
        &[("Accept-Encoding", "gzip")],
    );
    let plain = s.get(&format!("/api/s/{gm}/log?lang=it"), &[]);
    assert_eq!(decode("gzip", &it.bytes), plain.bytes);
    assert!(!plain.body.contains('⟦'), "{}", plain.body);
}

#[test]
fn the_live_stream_is_never_compressed_and_arrives_at_once() {
    let s = server();
    let gm = s.game();
    let path = format!("/api/s/{gm}/events");
    let started = Instant::now();
    // Open (the server has answered and sent its first message) before the action.
    let mut es = EventStream::open(&s.addr, &path, &[("Accept-Encoding", "gzip, deflate, br")])
        .expect("stream");
    let acted = Instant::now();
    let r = s.request(
        "POST",
        &format!("/api/s/{gm}/actions"),
        &[],
        Some(r#"{"action": "initiative"}"#),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let events = es
        .until(Duration::from_secs(20), |e| e.event == "entry")
        .expect("read");
    let open_for = started.elapsed();
    let head = es.head().to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    assert!(!head.contains("content-encoding"), "{head}");
    // And a reverse proxy in front (docs/deploy.md) is told not to hold it back either.
    assert!(head.contains("x-accel-buffering: no"), "{head}");
    let entries: Vec<_> = events.iter().filter(|e| e.event == "entry").collect();
    assert_eq!(entries.len(), 1, "{events:?}");
    assert_eq!(entries[0].id.as_deref(), Some("1"));
    // The entry came as it was recorded, not when a buffer filled or the stream ended.
    assert!(
        open_for < Duration::from_secs(10) && acted.elapsed() < Duration::from_secs(10),
        "the entry took {open_for:?}"
    );
}

/// The values of `attr="…"` in `html` on tags that contain `marker`.
fn links(html: &str, marker: &str, attr: &str) -> Vec<String> {
    html.split('<')
        .filter(|tag| tag.contains(marker))
        .filter_map(|tag| {
            let start = tag.find(&format!("{attr}=\""))? + attr.len() + 2;
            tag[start..].split('"').next().map(str::to_string)
        })
        .collect()
}

#[test]
fn pages_link_the_hashed_assets_which_are_immutable() {
    let s = server();
    let gm = s.game();
    let host = format!("Bearer {}", s.key);
    let pages = [
        ("/".to_string(), None),
        ("/".to_string(), Some(("Authorization", host.as_str()))),
        (format!("/s/{gm}"), None),
        (format!("/s/{gm}/log"), None),
        (format!("/s/{gm}/dice"), None),
        ("/rules/el-gran-capitan".to_string(), None),
        ("/no-such-page".to_string(), None),
    ];
    for (p, auth) in &pages {
        let r = s.get(p, auth.as_slice());
        assert!(r.body.contains("<main>"), "{p}: {}", r.body);
        assert_eq!(
            links(&r.body, "rel=\"stylesheet\"", "href"),
            [assets::css()],
            "{p}"
        );
        assert_eq!(
            links(&r.body, "rel=\"icon\"", "href"),
            [assets::icon()],
            "{p}"
        );
        assert!(!r.body.contains("/static/app.css"), "{p}");
    }
    let seat = s.get(&format!("/s/{gm}"), &[]);
    assert_eq!(
        links(&seat.body, "script src", "src"),
        [assets::page_js(), assets::js()]
    );
    assert!(!seat.body.contains("/static/game.js"));

    for (path, plain, kind) in [
        (assets::css(), "/static/app.css", "text/css"),
        (assets::js(), "/static/game.js", "text/javascript"),
        (assets::icon(), "/static/icon.svg", "image/svg+xml"),
    ] {
        let name = path.rsplit('/').next().unwrap_or_default();
        let hash = name.split('.').nth(1).unwrap_or_default();
        assert!(
            hash.len() >= 12 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
            "{path}"
        );
        let r = s.get(path, &[]);
        assert_eq!(r.status, 200, "{path}");
        assert!(
            header(&r, "content-type").is_some_and(|t| t.starts_with(kind)),
            "{path}: {}",
            r.head
        );
        assert_eq!(
            header(&r, "cache-control"),
            Some("public, max-age=31536000, immutable"),
            "{path}"
        );
        let etag = header(&r, "etag").expect("etag").to_string();
        assert!(etag.contains(hash), "{path}: {etag}");
        // A browser that asks again with the tag gets no body.
        let again = s.get(path, &[("If-None-Match", &etag)]);
        assert_eq!(again.status, 304, "{path}");
        assert!(again.bytes.is_empty(), "{path}");
        // The plain name still answers, the same file, revalidated every time.
        let old = s.get(plain, &[]);
        assert_eq!(old.status, 200, "{plain}");
        assert_eq!(old.bytes, r.bytes, "{plain}");
        assert_eq!(header(&old, "cache-control"), Some("no-cache"), "{plain}");
        assert_eq!(header(&old, "etag"), Some(etag.as_str()), "{plain}");
        assert_eq!(s.get(plain, &[("If-None-Match", &etag)]).status, 304);
    }
    // A page from another build links another hash: it gets today's file, never cached as that
    // name for good.
    let stale = if assets::css().contains("0123456789abcdef") {
        "/static/app.fedcba9876543210.css"
    } else {
        "/static/app.0123456789abcdef.css"
    };
    let r = s.get(stale, &[]);
    assert_eq!(r.status, 200);
    assert_eq!(header(&r, "cache-control"), Some("no-cache"));
    for missing in [
        "/static/nothing.css",
        "/static/app.js",
        "/static/app.x.css",
        "/static/app",
    ] {
        assert_eq!(s.get(missing, &[]).status, 404, "{missing}");
    }
}

#[test]
fn the_favicon_is_there() {
    let s = server();
    let r = s.get("/favicon.ico", &[]);
    assert_eq!(r.status, 200);
    assert_eq!(header(&r, "content-type"), Some("image/svg+xml"));
    assert!(r.body.starts_with("<svg"), "{}", r.body);
    assert_eq!(r.bytes, s.get(assets::icon(), &[]).bytes);
}

/// Deadlines of `header`, `body` and `idle` milliseconds, and at most `max` connections.
fn limits(header: u64, body: u64, idle: u64, max: usize) -> Limits {
    Limits {
        header_timeout: Duration::from_millis(header),
        body_timeout: Duration::from_millis(body),
        idle_timeout: Duration::from_millis(idle),
        max_connections: max,
    }
}

/// Whether the server closes `c` within `wait` (what it sends meanwhile is passed over).
fn closed_within(c: &mut TcpStream, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        c.set_read_timeout(Some(left)).expect("read timeout");
        match c.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
}

/// Read one answer with a `Content-Length` from a kept-alive connection: its head and body.
fn answer(c: &mut TcpStream) -> String {
    c.set_read_timeout(Some(PATIENCE)).expect("read timeout");
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&raw).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .to_ascii_lowercase()
                .lines()
                .find_map(|l| {
                    l.strip_prefix("content-length:")
                        .map(|v| v.trim().to_string())
                })
                .and_then(|v| v.parse::<usize>().ok())
                .expect("content-length");
            if body.len() >= length {
                return text;
            }
        }
        let n = c.read(&mut buf).expect("read");
        assert!(n > 0, "closed before its answer: {text}");
        raw.extend_from_slice(&buf[..n]);
    }
}

/// A kept-alive connection waiting for its next request is closed once idle, not at the header
/// timeout (hyper's own header timer would run from the end of the answer).
#[test]
fn a_kept_alive_connection_is_closed_once_idle_not_at_the_header_timeout() {
    let s = server_with(limits(1_000, 1_000, 4_000, 64));
    let mut c = TcpStream::connect(&s.addr).expect("connect");
    for _ in 0..2 {
        write!(c, "GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", s.addr).expect("write");
        let a = answer(&mut c);
        assert!(a.starts_with("HTTP/1.1 200"), "{a}");
    }
    let answered = Instant::now();
    assert!(closed_within(&mut c, PATIENCE), "still open");
    let after = answered.elapsed();
    assert!(
        after >= Duration::from_secs(2),
        "closed {after:?} after its answer: sooner than the idle timeout (4 s)"
    );
}

/// A live page's stream that waits for news outlasts the idle timeout many times over (it
/// sends keep-alive comments often enough), and still carries the next entry.
#[test]
fn a_live_stream_waiting_for_news_is_not_idle() {
    let s = server_with(limits(1_000, 1_000, 1_500, 64));
    let gm = s.game();
    let mut c = TcpStream::connect(&s.addr).expect("connect");
    write!(
        c,
        "GET /api/s/{gm}/events HTTP/1.1\r\nHost: {}\r\n\r\n",
        s.addr
    )
    .expect("write");
    c.set_read_timeout(Some(Duration::from_millis(100)))
        .expect("read timeout");
    let opened = Instant::now();
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    // Reads until `done` holds of what came, for at most PATIENCE; fails if the server closes.
    let mut read_until = |raw: &mut Vec<u8>, done: &dyn Fn(&str) -> bool| {
        let deadline = Instant::now() + PATIENCE;
        while !done(&String::from_utf8_lossy(raw)) {
            assert!(
                Instant::now() < deadline,
                "{}",
                String::from_utf8_lossy(raw)
            );
            match c.read(&mut buf) {
                Ok(0) => panic!(
                    "the server closed the stream after {:?}: {}",
                    opened.elapsed(),
                    String::from_utf8_lossy(raw)
                ),
                Ok(n) => raw.extend_from_slice(&buf[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => panic!("{e}"),
            }
        }
    };
    // A keep-alive every half second: seven are more than two idle timeouts.
    read_until(&mut raw, &|t| t.matches(":\n\n").count() >= 7);
    assert!(
        opened.elapsed() >= Duration::from_secs(3),
        "{:?}",
        opened.elapsed()
    );
    let r = s.request(
        "POST",
        &format!("/api/s/{gm}/actions"),
        &[],
        Some(r#"{"action": "initiative"}"#),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    read_until(&mut raw, &|t| t.contains("event: entry"));
}

/// At the bound, each new connection closes the one idle longest; /healthz is answered.
#[test]
fn at_the_bound_a_new_connection_closes_the_longest_idle() {
    let s = server_with(limits(60_000, 60_000, 60_000, 8));
    let mut held: Vec<TcpStream> = (0..9)
        .map(|_| TcpStream::connect(&s.addr).expect("connect"))
        .collect();
    let r = s.request("GET", "/healthz", &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
    // The ninth closed the first, /healthz the second; the others are left open.
    for (i, c) in held.iter_mut().enumerate().take(2) {
        assert!(closed_within(c, PATIENCE), "connection {i} still open");
    }
    for (i, c) in held.iter_mut().enumerate().skip(2) {
        assert!(
            !closed_within(c, Duration::from_millis(200)),
            "connection {i} closed"
        );
    }
}
