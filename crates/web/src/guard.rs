//! What every answer carries for the browser's protection, and the check that keeps other sites
//! from acting with the host's cookie.
//!
//! - **Headers** on every answer: a Content-Security-Policy that allows the app's own scripts,
//!   styles and connections only (no inline script: pages hand data to scripts as JSON), framed
//!   by no one (`frame-ancestors 'none'`, `X-Frame-Options: DENY`), `X-Content-Type-Options:
//!   nosniff`, and `Referrer-Policy: same-origin`: a seat's address is its key, so it never
//!   goes to another site as a referrer (`no-referrer` would make browsers send `Origin: null`
//!   with the app's own forms, which the same-origin check refuses).
//! - **Same origin** for a state-changing request that only the host's cookie authenticates (the
//!   host's forms, `POST /api/games`): its `Origin` must be the server's own — the public URL
//!   when `--public-url` is set, else the request's `Host` — since `SameSite` cookies still go
//!   with requests from another port of the same host. A browser that sends no `Origin` but
//!   `Sec-Fetch-Site` must say `same-origin`. Requests that carry a capability (a seat link's
//!   token in the path, the host key as `Authorization: Bearer`) cannot be forged this way and
//!   are not checked; any other `Authorization` header (another scheme, a wrong key: a page on
//!   another site can send one) is no capability, and the cookie's request is checked.
//! - Cookies are marked `Secure` when the public URL is `https` ([`cookie_suffix`]).

use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use tercio_i18n::{clip, keys, msg, plain};

use std::sync::Arc;

use crate::api::{bearer, bearer_is_host, cookie, ApiError, HOST_COOKIE};
use crate::lang::Ui;
use crate::AppState;

/// Whether a secret given (a seat's token, the host key) is the one expected, compared in
/// constant time: how long the comparison takes says nothing of how much of it matched. Every
/// comparison of a token or the key goes through here (a test checks the sources for `==`).
pub fn same_secret(given: &str, expected: &str) -> bool {
    let (a, b) = (given.as_bytes(), expected.as_bytes());
    let differ = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    // The length is no secret (every token has 32 digits); the bytes are.
    std::hint::black_box(differ) == 0 && a.len() == b.len()
}

/// The Content-Security-Policy of every answer.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The security headers, on every answer ([`crate::answer`]).
pub fn add_headers(res: &mut Response) {
    let h = res.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
}

/// `; Secure` when the server is reached over https (its public URL says so), else nothing: the
/// end of every `Set-Cookie`.
pub fn cookie_suffix(st: &AppState) -> &'static str {
    if st
        .public_url
        .as_deref()
        .is_some_and(|u| u.starts_with("https://"))
    {
        "; Secure"
    } else {
        ""
    }
}

/// The origin a request must come from: the public URL's scheme, host and port, or the scheme
/// the request's `Origin` names with the request's own `Host`.
fn expected(st: &AppState, headers: &HeaderMap) -> Option<String> {
    if let Some(u) = st.public_url.as_deref() {
        let (scheme, rest) = u.split_once("://")?;
        let authority = rest.split('/').next().unwrap_or(rest);
        return Some(format!("{scheme}://{authority}").to_ascii_lowercase());
    }
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|h| h.to_ascii_lowercase())
}

/// Why a request may not act with the host's cookie, if it may not: (what it came from, what was
/// expected).
fn foreign(st: &AppState, headers: &HeaderMap) -> Option<(String, String)> {
    let want = expected(st, headers).unwrap_or_default();
    match headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
        Some(origin) => {
            let origin = origin.trim_end_matches('/').to_ascii_lowercase();
            let ok = if st.public_url.is_some() {
                origin == want
            } else {
                origin
                    .split_once("://")
                    .is_some_and(|(_, authority)| authority == want)
            };
            (!ok).then_some((origin, want))
        }
        None => {
            let site = headers
                .get("sec-fetch-site")
                .and_then(|s| s.to_str().ok())
                .unwrap_or("same-origin");
            (!matches!(site, "same-origin" | "none"))
                .then(|| (format!("Sec-Fetch-Site: {site}"), want))
        }
    }
}

/// The refusal of a state-changing request that only the host's cookie authenticates when it
/// comes from another origin (403, `cross-site-request`, field `Origin`), before any handler
/// sees it ([`crate::answer`]); `None` lets it through.
pub async fn refused(
    st: &Arc<AppState>,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
) -> Option<Response> {
    let path = uri.path();
    let changes = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    let by_cookie = cookie(headers, HOST_COOKIE).is_some();
    let seat_link = path.starts_with("/api/s/") || path.starts_with("/s/");
    if !changes || !by_cookie || seat_link {
        return None;
    }
    let (origin, expected) = foreign(st, headers)?;
    // Only the host key itself as bearer stands in for the same origin (checked off the async
    // threads: the key may have to be read from the store).
    if bearer(headers).is_some() {
        let (st2, headers) = (st.clone(), headers.clone());
        let host = crate::api::blocking(move || Ok(bearer_is_host(&st2, &headers))).await;
        if host.unwrap_or(false) {
            return None;
        }
    }
    let e = ApiError::new(
        StatusCode::FORBIDDEN,
        "cross-site-request",
        Some("Origin"),
        msg(
            keys::WEB_ERR_CROSS_SITE,
            &[
                ("origin", plain(&clip(&origin)).as_ref()),
                ("expected", plain(&clip(&expected)).as_ref()),
            ],
        ),
    );
    // The API answers JSON; a form, a page in the request's language.
    if path.starts_with("/api/") {
        return Some(e.into_response());
    }
    let ui = Ui::from_parts(uri, headers);
    Some(crate::pages::error_page(&ui, StatusCode::FORBIDDEN, &e))
}

#[cfg(test)]
mod tests {
    use super::same_secret;

    #[test]
    fn a_secret_matches_itself_only() {
        let t = "0123456789abcdef0123456789abcdef";
        assert!(same_secret(t, t));
        assert!(same_secret("", ""));
        assert!(!same_secret(t, "0123456789abcdef0123456789abcdee"));
        assert!(!same_secret("1123456789abcdef0123456789abcdef", t));
        assert!(!same_secret(&t[..31], t));
        assert!(!same_secret(t, &t[..31]));
        assert!(!same_secret(&format!("{t}0"), t));
        assert!(!same_secret("", t));
    }

    /// Every seat token and host key is compared through [`same_secret`]: no `==` on one in the
    /// server's sources (the lookups of a token among a game's seats, the host key's checks).
    #[test]
    fn tokens_and_the_host_key_are_compared_only_in_constant_time() {
        let sources = [
            ("seat.rs", include_str!("seat.rs")),
            ("lib.rs", include_str!("lib.rs")),
            ("live.rs", include_str!("live.rs")),
            ("api/host.rs", include_str!("api/host.rs")),
            ("api/seat_link.rs", include_str!("api/seat_link.rs")),
            ("api/mod.rs", include_str!("api/mod.rs")),
        ];
        for (file, text) in sources {
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                for word in ["token", "key"] {
                    let compared = code.contains(&format!("{word} =="))
                        || code.contains(&format!("== {word}"));
                    assert!(!compared, "{file}:{}: {line}", n + 1);
                }
            }
        }
        let seat = include_str!("seat.rs");
        assert_eq!(seat.matches("same_secret(&s.token, token)").count(), 2);
        assert!(include_str!("api/host.rs").matches("same_secret(").count() >= 2);
    }
}
