//! A tiny blocking HTTP/1.1 client over loopback, for tests and scripts that talk to a running
//! Tercio server without pulling in a full HTTP client.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

pub struct Reply {
    pub status: u16,
    pub body: String,
}

impl Reply {
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
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
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
            None if chunked => {
                find(&rest, b"0\r\n\r\n").is_some_and(|p| p == 0 || rest[..p].ends_with(b"\r\n"))
            }
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
    let text = String::from_utf8_lossy(&rest).to_string();
    let body = if chunked { dechunk(&text) } else { text };
    Ok(Reply { status, body })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}
