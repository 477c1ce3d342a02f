//! The browser's protections: security headers on every answer; the host's cookie acts only from
//! the server's own pages (an `Origin` from elsewhere, another port of the same host included, is
//! refused), while a capability (a seat's token, the host key as `Authorization: Bearer`) is not
//! checked, and no other `Authorization` header passes for one; cookies are `Secure` behind an
//! https public URL.

mod common;

use std::sync::Arc;

use common::server;
use serde_json::json;
use tercio_store::{SqliteStore, Store};
use tercio_web::client::request_with;

const NEW_GAME: &str = r#"{"scenario": "el-gran-capitan/cerignola-1503", "seed": 5}"#;

#[test]
fn every_answer_carries_the_security_headers() {
    let s = server();
    for path in [
        "/",
        "/api/rulesets",
        "/no/such/page",
        tercio_web::assets::css(),
    ] {
        let r = s.request("GET", path, &[], None);
        let csp = r.headers("content-security-policy");
        assert_eq!(csp.len(), 1, "{path}");
        assert!(csp[0].contains("script-src 'self'") && csp[0].contains("frame-ancestors 'none'"));
        assert!(!csp[0].contains("unsafe-inline"), "{path}");
        assert_eq!(r.headers("x-content-type-options"), ["nosniff"], "{path}");
        assert_eq!(r.headers("referrer-policy"), ["same-origin"], "{path}");
        assert_eq!(r.headers("x-frame-options"), ["DENY"], "{path}");
    }
}

#[test]
fn the_hosts_cookie_acts_only_from_the_servers_own_pages() {
    let s = server();
    let cookie = format!("tercio_host={}", s.key);
    let own = format!("http://{}", s.addr);
    // Another port of the same host is another origin, though the same site for cookies.
    let port = s.addr.rsplit(':').next().unwrap_or("1");
    let other_port = s.addr.replace(port, "9");
    let neighbour = format!("http://{other_port}");
    for (origin, fetch_site, allowed) in [
        (Some(own.as_str()), None, true),
        (None, None, true),
        (None, Some("same-origin"), true),
        (Some("http://evil.example"), None, false),
        (Some(neighbour.as_str()), None, false),
        (Some("null"), None, false),
        (None, Some("same-site"), false),
        (None, Some("cross-site"), false),
    ] {
        let mut headers = vec![("Cookie", cookie.as_str())];
        if let Some(o) = origin {
            headers.push(("Origin", o));
        }
        if let Some(f) = fetch_site {
            headers.push(("Sec-Fetch-Site", f));
        }
        let api = s.request("POST", "/api/games", &headers, Some(NEW_GAME));
        let mut form_headers = headers.clone();
        form_headers.push(("Content-Type", "application/x-www-form-urlencoded"));
        let form = s.request(
            "POST",
            "/games",
            &form_headers,
            Some("scenario=el-gran-capitan%2Fcerignola-1503"),
        );
        if allowed {
            assert_eq!(api.status, 201, "{origin:?} {fetch_site:?}: {}", api.body);
            assert_ne!(form.status, 403, "{origin:?} {fetch_site:?}: {}", form.body);
        } else {
            assert_eq!(api.status, 403, "{origin:?} {fetch_site:?}: {}", api.body);
            let e = &api.json()["error"];
            assert_eq!(e["code"], "cross-site-request");
            assert_eq!(e["field"], "Origin");
            assert!(
                e["message"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with("Origin: this request comes from another site"),
                "{e}"
            );
            // A form is answered with a page, in words.
            assert_eq!(form.status, 403, "{origin:?} {fetch_site:?}: {}", form.body);
            assert!(
                form.body.contains("this request comes from another site"),
                "{}",
                form.body
            );
        }
    }
    // Nothing refused was recorded: one game per allowed request, API and form.
    assert_eq!(s.store.list(false).expect("list").len(), 6);
    // A capability is not forgeable from another site: the bearer key and a seat's token act.
    let bearer = format!("Bearer {}", s.key);
    let r = s.request(
        "POST",
        "/api/games",
        &[
            ("Authorization", &bearer),
            ("Origin", "http://evil.example"),
        ],
        Some(NEW_GAME),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let gm = common::token(&r.json()["links"][0]["url"]);
    let r = s.request(
        "POST",
        &format!("/api/s/{gm}/actions"),
        &[("Cookie", &cookie), ("Origin", "http://evil.example")],
        Some(&json!({"action": "initiative"}).to_string()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // Reading is not acting: a page asked for from elsewhere still answers.
    let r = s.request(
        "GET",
        "/",
        &[("Cookie", &cookie), ("Origin", "http://evil.example")],
        None,
    );
    assert_eq!(r.status, 200);
}

#[test]
fn behind_an_https_public_url_cookies_are_secure_and_the_origin_is_the_public_one() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Arc::new(SqliteStore::open(&dir.path().join("t.db")).expect("db"));
    let key = store.host_key().expect("key");
    let public = "https://tercio.example.org";
    let running = tercio_web::spawn(tercio_web::AppState::with_public_url(
        store,
        Some(public.to_string()),
    ))
    .expect("server");
    let addr = running.addr.clone();
    let r = request_with(&addr, "GET", &format!("/?key={key}&lang=it"), &[], None).expect("get");
    let cookies = r.headers("set-cookie");
    assert_eq!(cookies.len(), 2, "{cookies:?}");
    for c in cookies {
        assert!(c.ends_with("; Secure"), "{c}");
    }
    let cookie = format!("tercio_host={key}");
    let post = |origin: &str| {
        request_with(
            &addr,
            "POST",
            "/api/games",
            &[("Cookie", &cookie), ("Origin", origin)],
            Some(NEW_GAME),
        )
        .expect("post")
        .status
    };
    assert_eq!(post(public), 201);
    assert_eq!(post(&format!("http://{addr}")), 403);
    // Without a public URL, nothing is marked Secure.
    let s = server();
    let r = s.request("GET", &format!("/?key={}", s.key), &[], None);
    assert!(r
        .headers("set-cookie")
        .iter()
        .all(|c| !c.contains("Secure")));
}

#[test]
fn only_the_host_key_as_bearer_stands_in_for_the_same_origin_check() {
    let s = server();
    let cookie = format!("tercio_host={}", s.key);
    let evil = "http://evil.example";
    let valid = format!("Bearer {}", s.key);
    // Any other `Authorization` is no capability: the host's cookie from another site is still
    // refused as cross-site, whatever the header says (the API and the host's form alike).
    for auth in [
        "Basic Zm9vOmJhcg==",
        "Bearer 0123456789abcdef0123456789abcdef",
        "Bearer",
        "",
        "whatever",
    ] {
        let headers = [
            ("Cookie", cookie.as_str()),
            ("Authorization", auth),
            ("Origin", evil),
        ];
        let api = s.request("POST", "/api/games", &headers, Some(NEW_GAME));
        assert_eq!(api.status, 403, "{auth:?}: {}", api.body);
        assert_eq!(
            api.json()["error"]["code"],
            "cross-site-request",
            "{auth:?}"
        );
        let mut form_headers = headers.to_vec();
        form_headers.push(("Content-Type", "application/x-www-form-urlencoded"));
        let form = s.request(
            "POST",
            "/games",
            &form_headers,
            Some("scenario=el-gran-capitan%2Fcerignola-1503"),
        );
        assert_eq!(form.status, 403, "{auth:?}: {}", form.body);
    }
    assert!(s.store.list(false).expect("list").is_empty());
    // The host key as bearer acts from anywhere, with the cookie or without.
    for headers in [
        vec![("Authorization", valid.as_str()), ("Origin", evil)],
        vec![
            ("Cookie", cookie.as_str()),
            ("Authorization", valid.as_str()),
            ("Origin", evil),
        ],
    ] {
        let r = s.request("POST", "/api/games", &headers, Some(NEW_GAME));
        assert_eq!(r.status, 201, "{}", r.body);
    }
    assert_eq!(s.store.list(false).expect("list").len(), 2);
}
