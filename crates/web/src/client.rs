//! A tiny blocking HTTP/1.1 client over loopback, for tests and scripts that talk to a running
//! Tercio server without pulling in a full HTTP client.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

pub struct Reply {
    pub status: u16,
    /// The body as text (invalid UTF-8 replaced): what JSON and pages are read from.
    pub body: String,
    /// The body's bytes exactly as sent (chunked transfer undone, content encoding kept): a
    /// compressed answer is read from these.
    pub bytes: Vec<u8>,
    /// The response's header lines (`name: value`), as sent.
    pub head: String,
}

impl Reply {
    /// The values of every header named `name` (case-insensitive), in order.
    pub fn headers(&self, name: &str) -> Vec<&str> {
        self.head
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once(':'))
            .filter(|(k, _)| k.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
            .collect()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// Send one JSON request (`Connection: close`) and read the whole reply.
pub fn request(addr: &str, method: &str, path: &str, body: Option<&str>) -> std::io::Result<Reply> {
    request_as(addr, method, path, "application/json", body)
}

/// Send one request with the given content type.
pub fn request_as(
    addr: &str,
    method: &str,
    path: &str,
    content_type: &str,
    body: Option<&str>,
) -> std::io::Result<Reply> {
    request_with(addr, method, path, &[("Content-Type", content_type)], body)
}

/// Send one request with extra headers (`Authorization`, `If-Match`, `Cookie`...).
pub fn request_with(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> std::io::Result<Reply> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    let body = body.unwrap_or("");
    let mut extra = String::new();
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        extra.push_str("Content-Type: application/json\r\n");
    }
    for (k, v) in headers {
        extra.push_str(&format!("{k}: {v}\r\n"));
    }
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    // Read the head, then exactly the body the head announces: some servers keep the
    // connection open despite `Connection: close`.
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(p) = find(&raw, b"\r\n\r\n") {
            break p;
        }
        let n = s.read(&mut buf)?;
        if n == 0 {
            break raw.len();
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).to_string();
    let lower = head.to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(0);
    let mut rest: Vec<u8> = raw
        .get(head_end + 4..)
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    let length = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let chunked = lower.contains("transfer-encoding: chunked");
    loop {
        let done = match length {
            Some(n) => rest.len() >= n,
            // Walk the chunks by their sizes: a compressed body may hold any bytes, `0\r\n\r\n`
            // included.
            None if chunked => dechunk(&rest).1,
            None => false,
        };
        if done {
            break;
        }
        let n = s.read(&mut buf)?;
        if n == 0 {
            break;
        }
        rest.extend_from_slice(&buf[..n]);
    }
    let bytes = if chunked { dechunk(&rest).0 } else { rest };
    let body = String::from_utf8_lossy(&bytes).to_string();
    Ok(Reply {
        status,
        body,
        bytes,
        head,
    })
}

/// One Server-Sent Event: its id, its type and its data.
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    pub id: Option<String>,
    pub event: String,
    pub data: String,
}

/// Connect and ask for an event stream; reads time out after `poll`.
fn open_stream(
    addr: &str,
    path: &str,
    headers: &[(&str, &str)],
    poll: Duration,
) -> std::io::Result<TcpStream> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(poll))?;
    let mut extra = String::new();
    for (k, v) in headers {
        extra.push_str(&format!("{k}: {v}\r\n"));
    }
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n{extra}\r\n"
    )?;
    Ok(s)
}

/// Open an event stream and read events until `want` of type `entry` (or any `revoked`) arrived,
/// or `wait` passed. Also returns the stream's raw text, for checks on everything sent.
pub fn read_events(
    addr: &str,
    path: &str,
    headers: &[(&str, &str)],
    want: usize,
    wait: Duration,
) -> std::io::Result<(u16, Vec<SseEvent>, String)> {
    read_events_until(addr, path, headers, wait, |events, _| {
        let entries = events.iter().filter(|e| e.event == "entry").count();
        entries >= want && want > 0 || events.iter().any(|e| e.event == "revoked")
    })
}

/// Open an event stream and read it until `done` holds of the events and the raw text read so
/// far (checked after every read), the server refuses the stream, or `wait` passed: a test
/// waits for what it checks, and only a failing one waits the whole time. Returns the status,
/// the events and the raw text.
pub fn read_events_until(
    addr: &str,
    path: &str,
    headers: &[(&str, &str)],
    wait: Duration,
    done: impl Fn(&[SseEvent], &str) -> bool,
) -> std::io::Result<(u16, Vec<SseEvent>, String)> {
    let mut s = open_stream(addr, path, headers, Duration::from_millis(200))?;
    let deadline = std::time::Instant::now() + wait;
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let mut events = Vec::new();
    while std::time::Instant::now() < deadline {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
        }
        let text = String::from_utf8_lossy(&raw).to_string();
        events = parse_events(&text);
        if done(&events, &text) {
            break;
        }
        if text.starts_with("HTTP/1.1 4") && find(&raw, b"\r\n\r\n").is_some() {
            break;
        }
    }
    let text = String::from_utf8_lossy(&raw).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(0);
    Ok((status, events, text))
}

/// Whether a stream's raw text holds its first message (the server's `retry:`), and `n`
/// `entry` events among `events`: all a stream sends at once when it opens on a log of `n`
/// entries.
pub fn caught_up(events: &[SseEvent], raw: &str, n: usize) -> bool {
    raw.contains("retry:") && events.iter().filter(|e| e.event == "entry").count() >= n
}

/// An event stream read one event at a time: open it, do something, read what it sent.
pub struct EventStream {
    s: TcpStream,
    raw: Vec<u8>,
    /// Events already handed out.
    taken: usize,
}

impl EventStream {
    /// Open `path` and return once the server has answered and sent its first message, so a
    /// change made after this is one the stream reports.
    pub fn open(addr: &str, path: &str, headers: &[(&str, &str)]) -> std::io::Result<EventStream> {
        let s = open_stream(addr, path, headers, Duration::from_millis(100))?;
        let mut es = EventStream {
            s,
            raw: Vec::new(),
            taken: 0,
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let text = String::from_utf8_lossy(&es.raw).to_string();
            if text.starts_with("HTTP/1.1 200") && text.contains("\n\n") && text.contains("retry:")
            {
                return Ok(es);
            }
            if text.starts_with("HTTP/1.1") && !text.starts_with("HTTP/1.1 200") {
                return Err(std::io::Error::other(text));
            }
            if std::time::Instant::now() > deadline {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no first message: {text}"),
                ));
            }
            es.read_some()?;
        }
    }

    fn read_some(&mut self) -> std::io::Result<usize> {
        let mut buf = [0u8; 8192];
        match self.s.read(&mut buf) {
            Ok(n) => {
                self.raw.extend_from_slice(&buf[..n]);
                Ok(n)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Ok(0)
            }
            Err(e) => Err(e),
        }
    }

    /// The answer's status line and headers, as the server sent them.
    pub fn head(&self) -> String {
        let text = String::from_utf8_lossy(&self.raw);
        text.split("\r\n\r\n")
            .next()
            .unwrap_or_default()
            .to_string()
    }

    /// The events that come until one for which `last` holds (it included), or until `wait`
    /// passes.
    pub fn until(
        &mut self,
        wait: Duration,
        last: impl Fn(&SseEvent) -> bool,
    ) -> std::io::Result<Vec<SseEvent>> {
        let deadline = std::time::Instant::now() + wait;
        let mut out = Vec::new();
        while let Some(e) =
            self.next(deadline.saturating_duration_since(std::time::Instant::now()))?
        {
            let done = last(&e);
            out.push(e);
            if done {
                break;
            }
        }
        Ok(out)
    }

    /// The next event (comments are not events), or `None` if none came within `wait`.
    pub fn next(&mut self, wait: Duration) -> std::io::Result<Option<SseEvent>> {
        let deadline = std::time::Instant::now() + wait;
        loop {
            let events = parse_events(&String::from_utf8_lossy(&self.raw));
            if let Some(e) = events.get(self.taken) {
                self.taken += 1;
                return Ok(Some(e.clone()));
            }
            if std::time::Instant::now() > deadline {
                return Ok(None);
            }
            self.read_some()?;
        }
    }
}

/// Events in a (possibly chunked) event-stream response.
fn parse_events(text: &str) -> Vec<SseEvent> {
    let body = text.split_once("\r\n\r\n").map_or("", |x| x.1);
    let body = if text
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk_partial(body)
    } else {
        body.to_string()
    };
    // Only blocks already ended by a blank line are whole events.
    let complete = body.rfind("\n\n").map_or("", |i| &body[..i]);
    let mut out = Vec::new();
    for block in complete.split("\n\n") {
        let mut e = SseEvent {
            id: None,
            event: "message".into(),
            data: String::new(),
        };
        let mut any = false;
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id:") {
                e.id = Some(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("event:") {
                e.event = v.trim().to_string();
                any = true;
            } else if let Some(v) = line.strip_prefix("data:") {
                if !e.data.is_empty() {
                    e.data.push('\n');
                }
                e.data.push_str(v.strip_prefix(' ').unwrap_or(v));
                any = true;
            }
        }
        if any {
            out.push(e);
        }
    }
    out
}

/// Like `dechunk`, keeping a last chunk that has arrived only in part out.
fn dechunk_partial(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A chunked body's data so far, and whether its last (empty) chunk has arrived.
fn dechunk(mut s: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    while let Some(line) = find(s, b"\r\n") {
        let size = String::from_utf8_lossy(&s[..line]);
        // A size may carry extensions after `;`.
        let size = size.split(';').next().unwrap_or_default().trim();
        let Ok(n) = usize::from_str_radix(size, 16) else {
            break;
        };
        let rest = &s[line + 2..];
        if n == 0 {
            // Trailers, if any, end with an empty line.
            return (
                out,
                rest.starts_with(b"\r\n") || find(rest, b"\r\n\r\n").is_some(),
            );
        }
        if rest.len() < n {
            break;
        }
        out.extend_from_slice(&rest[..n]);
        s = rest[n..].strip_prefix(b"\r\n").unwrap_or(&rest[n..]);
    }
    (out, false)
}
