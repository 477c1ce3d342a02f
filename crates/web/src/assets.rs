//! The static files — the stylesheet, the game page's script, every page's script, the icon —
//! embedded in the binary
//! and served under names that carry a hash of their content (`/static/app.<hash>.css`), with
//! `Cache-Control: public, max-age=31536000, immutable`: a browser keeps them for a year without
//! asking again, and a build that changes a file changes its name, so no page ever runs with a
//! stale copy. Every page links the hashed names ([`css`], [`js`], [`icon`]).
//!
//! The plain names (`/static/app.css`, `/static/game.js`, `/static/icon.svg`) keep answering, as
//! does a hashed name whose hash is not the current one (a page rendered by an earlier build), with
//! the current file and `Cache-Control: no-cache`: revalidated every time against the `ETag`, so an
//! old page still works and never pins an old file. `/favicon.ico`, which browsers ask for on their
//! own, answers the icon the same way.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::lang::Ui;

/// How long a hashed name may be kept: a year, never revalidated.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// A plain name: kept, but checked against its `ETag` before every use.
pub const REVALIDATE: &str = "no-cache";

struct Asset {
    stem: &'static str,
    ext: &'static str,
    content_type: &'static str,
    body: &'static str,
    /// The first 16 hex digits of the content's SHA-256.
    hash: String,
    /// `/static/<stem>.<hash>.<ext>`: the name pages link.
    path: String,
    /// A weak validator: the same content is sent identity-, gzip- or brotli-encoded, which a
    /// strong `ETag` would have to tell apart.
    etag: HeaderValue,
}

impl Asset {
    fn new(
        stem: &'static str,
        ext: &'static str,
        content_type: &'static str,
        body: &'static str,
    ) -> Asset {
        let hash = tercio_core::hex(&Sha256::digest(body.as_bytes())[..8]);
        let etag = HeaderValue::from_str(&format!("W/\"{hash}\""))
            .unwrap_or_else(|_| HeaderValue::from_static("W/\"0\""));
        Asset {
            path: format!("/static/{stem}.{hash}.{ext}"),
            stem,
            ext,
            content_type,
            body,
            hash,
            etag,
        }
    }

    /// The file, or `304 Not Modified` when the request already holds this version.
    fn answer(&self, headers: &HeaderMap, cache: &'static str) -> Response {
        let fresh = [
            (header::ETAG, self.etag.clone()),
            (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
        ];
        if holds(headers, &self.hash) {
            return (StatusCode::NOT_MODIFIED, fresh).into_response();
        }
        (
            fresh,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static(self.content_type),
            )],
            self.body,
        )
            .into_response()
    }
}

static ASSETS: LazyLock<[Asset; 4]> = LazyLock::new(|| {
    [
        Asset::new(
            "app",
            "css",
            "text/css; charset=utf-8",
            include_str!("../assets/app.css"),
        ),
        Asset::new(
            "game",
            "js",
            "text/javascript; charset=utf-8",
            include_str!("../assets/game.js"),
        ),
        Asset::new(
            "icon",
            "svg",
            "image/svg+xml",
            include_str!("../assets/icon.svg"),
        ),
        Asset::new(
            "page",
            "js",
            "text/javascript; charset=utf-8",
            include_str!("../assets/page.js"),
        ),
    ]
});

/// The stylesheet's hashed path, for `<link rel="stylesheet">`.
pub fn css() -> &'static str {
    &ASSETS[0].path
}

/// The game page's script's hashed path.
pub fn js() -> &'static str {
    &ASSETS[1].path
}

/// The icon's hashed path, for `<link rel="icon">`.
pub fn icon() -> &'static str {
    &ASSETS[2].path
}

/// The script every page loads (confirmations, link fields, the scenario file), hashed path.
pub fn page_js() -> &'static str {
    &ASSETS[3].path
}

/// Whether `If-None-Match` names this version (weak comparison, as RFC 9110 asks for it).
fn holds(headers: &HeaderMap, hash: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim())
        .any(|tag| tag == "*" || tag.trim_start_matches("W/").trim_matches('"') == hash)
}

/// `GET /static/{file}`: `<stem>.<hash>.<ext>` with the current hash is immutable; the plain
/// `<stem>.<ext>` or another hash gets the current file, revalidated; anything else is a 404.
pub async fn file(ui: Ui, Path(file): Path<String>, headers: HeaderMap) -> Response {
    let (Some((stem, _)), Some((_, ext))) = (file.split_once('.'), file.rsplit_once('.')) else {
        return crate::pages::not_found(ui).await;
    };
    let middle = &file[stem.len()..file.len() - ext.len()];
    let Some(asset) = ASSETS.iter().find(|a| a.stem == stem && a.ext == ext) else {
        return crate::pages::not_found(ui).await;
    };
    let hash = middle.trim_matches('.');
    if hash == asset.hash {
        asset.answer(&headers, IMMUTABLE)
    } else if hash.is_empty() || (hash.len() >= 12 && hash.bytes().all(|b| b.is_ascii_hexdigit())) {
        asset.answer(&headers, REVALIDATE)
    } else {
        crate::pages::not_found(ui).await
    }
}

/// `GET /favicon.ico`: the icon (an SVG, said so by its content type), revalidated.
pub async fn favicon(headers: HeaderMap) -> Response {
    ASSETS[2].answer(&headers, REVALIDATE)
}

/// The service worker's script (`assets/sw.js`), served at the root so that its scope is the
/// whole site: it keeps the shell and the assets, and each seat's last known page, for a phone
/// that loses the connection (issue 43, item 9). The pages register it only in a secure context.
const SERVICE_WORKER: &str = include_str!("../assets/sw.js");

/// `GET /sw.js`: the service worker, revalidated every time (a new build's worker replaces the
/// old one at once).
pub async fn service_worker() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, REVALIDATE),
        ],
        SERVICE_WORKER,
    )
        .into_response()
}

/// `GET /manifest.webmanifest`: the web app manifest (name, icon, theme colour), in the
/// request's language, so a phone can install the game page as an app where the browser allows
/// it (a secure context).
pub async fn manifest(ui: Ui) -> Response {
    let body = serde_json::json!({
        "name": ui.t(tercio_i18n::keys::SHELL_APP_NAME, &[]),
        "short_name": ui.t(tercio_i18n::keys::SHELL_APP_NAME, &[]),
        "description": ui.t(tercio_i18n::keys::SHELL_APP_DESCRIPTION, &[]),
        "lang": ui.lang.code(),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#fbf8f1",
        "theme_color": "#8a1c1c",
        "icons": [
            {"src": icon(), "sizes": "any", "type": "image/svg+xml", "purpose": "any"},
            {"src": icon(), "sizes": "192x192", "type": "image/svg+xml"},
            {"src": icon(), "sizes": "512x512", "type": "image/svg+xml"}
        ]
    });
    (
        [
            (header::CONTENT_TYPE, "application/manifest+json"),
            (header::CACHE_CONTROL, REVALIDATE),
        ],
        body.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_content_hash() {
        for a in ASSETS.iter() {
            assert_eq!(a.hash.len(), 16);
            assert!(a.hash.bytes().all(|b| b.is_ascii_hexdigit()));
            assert_eq!(a.path, format!("/static/{}.{}.{}", a.stem, a.hash, a.ext));
        }
        assert!(css().ends_with(".css") && js().ends_with(".js") && icon().ends_with(".svg"));
    }

    #[test]
    fn if_none_match_is_compared_weakly() {
        let h = |v: &'static str| {
            let mut m = HeaderMap::new();
            m.insert(header::IF_NONE_MATCH, HeaderValue::from_static(v));
            m
        };
        assert!(holds(&h("W/\"abc\""), "abc"));
        assert!(holds(&h("\"abc\""), "abc"));
        assert!(holds(&h("\"x\", W/\"abc\""), "abc"));
        assert!(holds(&h("*"), "abc"));
        assert!(!holds(&h("W/\"abd\""), "abc"));
        assert!(!holds(&HeaderMap::new(), "abc"));
    }
}
