//! The language of a request, and the page helpers that speak it.
//!
//! A request's language is, in this order: `?lang=it|en` (the switch on every page; a page
//! request with it also sets the cookie, see [`remember`]), the `tercio_lang` cookie, the
//! browser's `Accept-Language`, then English. Anything else (`?lang=xx`, a cookie naming another
//! language) is ignored.
//!
//! [`Ui`] carries the language and the address of the page being drawn (for the switch links);
//! every text of a page comes from the catalogues through it, and every engine-provided text goes
//! through [`Ui::loc`] (language-neutral messages rendered; plain text unchanged).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, Uri};
use axum::response::Response;
use tercio_i18n::{keys, Lang};

use crate::pages::esc;

/// The cookie that remembers the chosen language.
pub const COOKIE: &str = "tercio_lang";

/// The `lang` parameter of a query string, when it names a language of the app.
pub fn from_query(query: Option<&str>) -> Option<Lang> {
    query?
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .filter(|(k, _)| *k == "lang")
        .find_map(|(_, v)| code(v))
}

/// A language from a `?lang=` value or the cookie: exactly a code of the app (`it`, `en`).
fn code(v: &str) -> Option<Lang> {
    Lang::ALL.into_iter().find(|l| l.code() == v.trim())
}

/// The language of a request: `?lang=`, the cookie, `Accept-Language`, English.
pub fn of_request(query: Option<&str>, headers: &HeaderMap) -> Lang {
    from_query(query)
        .or_else(|| crate::api::cookie(headers, COOKIE).and_then(|c| code(&c)))
        .or_else(|| {
            headers
                .get_all(header::ACCEPT_LANGUAGE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .find_map(Lang::negotiate)
        })
        .unwrap_or_default()
}

/// A page request's language and where the page is, for its texts and its language switch.
#[derive(Clone, Debug)]
pub struct Ui {
    pub lang: Lang,
    /// The page's path and query, without `lang`: the switch links add their own.
    here: String,
}

impl<S: Send + Sync> FromRequestParts<S> for Ui {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Ui::from_parts(&parts.uri, &parts.headers))
    }
}

impl Ui {
    pub fn new(lang: Lang, here: &str) -> Ui {
        Ui {
            lang,
            here: without_lang(here),
        }
    }

    pub fn from_parts(uri: &Uri, headers: &HeaderMap) -> Ui {
        let lang = of_request(uri.query(), headers);
        let here = uri
            .path_and_query()
            .map_or_else(|| uri.path().to_string(), |p| p.as_str().to_string());
        Ui::new(lang, &here)
    }

    /// The same language, the switch pointing at another page (a page drawn in answer to a
    /// form's POST switches on the page the form came from).
    pub fn at(&self, here: &str) -> Ui {
        Ui::new(self.lang, here)
    }

    /// A catalogue text, as is (for JSON, attributes via [`esc`], or further formatting).
    pub fn t(&self, key: &str, args: &[(&str, &str)]) -> String {
        tercio_i18n::t(self.lang, key, args)
    }

    /// A catalogue text escaped for HTML: for every key not ending in `_html`.
    pub fn h(&self, key: &str, args: &[(&str, &str)]) -> String {
        esc(&self.t(key, args))
    }

    /// A catalogue text holding markup (a key ending in `_html`): the arguments are escaped, the
    /// text is not.
    pub fn html(&self, key: &str, args: &[(&str, &str)]) -> String {
        debug_assert!(
            key.ends_with("_html"),
            "{key}: only _html keys carry markup"
        );
        let escaped: Vec<String> = args.iter().map(|(_, v)| esc(v)).collect();
        let args: Vec<(&str, &str)> = args
            .iter()
            .zip(&escaped)
            .map(|((n, _), v)| (*n, v.as_str()))
            .collect();
        self.t(key, &args)
    }

    /// Engine-provided text in this language: its messages rendered, plain text unchanged.
    pub fn loc(&self, text: &str) -> String {
        tercio_i18n::localize(self.lang, text)
    }

    /// Engine-provided text in this language, escaped for HTML.
    pub fn e(&self, text: &str) -> String {
        esc(&self.loc(text))
    }

    /// A number with the language's decimal separator.
    pub fn num(&self, x: f64, places: usize) -> String {
        tercio_i18n::fmt_decimal(self.lang, x, places)
    }

    /// The address of this page in another language.
    pub fn link_to(&self, lang: Lang) -> String {
        let sep = if self.here.contains('?') { '&' } else { '?' };
        format!("{}{sep}lang={}", self.here, lang.code())
    }

    /// The language switch: each language by its own name, the current one marked.
    pub fn switch(&self) -> String {
        let mut b = format!(
            "<nav class=\"langs\" aria-label=\"{}\">",
            self.h(keys::WEB_LANG_SWITCH, &[])
        );
        for (i, l) in Lang::ALL.into_iter().enumerate() {
            if i > 0 {
                b.push_str(" · ");
            }
            let name = self.h(lang_key(l), &[]);
            if l == self.lang {
                b.push_str(&format!(
                    "<strong lang=\"{0}\" aria-current=\"true\">{name}</strong>",
                    l.code()
                ));
            } else {
                b.push_str(&format!(
                    "<a href=\"{}\" hreflang=\"{1}\" lang=\"{1}\" class=\"lang-switch\" data-lang=\"{1}\">{name}</a>",
                    esc(&self.link_to(l)),
                    l.code()
                ));
            }
        }
        b.push_str("</nav>");
        b
    }

    /// The strings of the game page's script (`web.js.*` and `shell.js.*`, without the prefix)
    /// and the language, as JSON safe to put inside a `<script>` element.
    pub fn script_strings(&self) -> String {
        let mut m = serde_json::Map::new();
        for (k, v) in tercio_i18n::entries(self.lang) {
            if let Some(name) = k
                .strip_prefix("web.js.")
                .or_else(|| k.strip_prefix("shell.js."))
            {
                m.insert(
                    name.to_string(),
                    serde_json::Value::String((*v).to_string()),
                );
            }
        }
        let v = serde_json::json!({"lang": self.lang.code(), "strings": m});
        v.to_string().replace('<', "\\u003c")
    }
}

fn lang_key(l: Lang) -> &'static str {
    match l {
        Lang::It => keys::WEB_LANG_IT,
        Lang::En => keys::WEB_LANG_EN,
    }
}

/// A path and query without its `lang` parameters.
fn without_lang(here: &str) -> String {
    let Some((path, query)) = here.split_once('?') else {
        return here.to_string();
    };
    let rest: Vec<&str> = query
        .split('&')
        .filter(|kv| !kv.is_empty() && kv.split('=').next() != Some("lang"))
        .collect();
    if rest.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", rest.join("&"))
    }
}

/// The language a page request chooses with `?lang=it|en`, to be remembered ([`remember`]).
/// The API and the static files choose none.
pub fn chosen(req: &axum::extract::Request) -> Option<Lang> {
    let path = req.uri().path();
    if path.starts_with("/api/") || path.starts_with("/static/") {
        None
    } else {
        from_query(req.uri().query())
    }
}

/// The answer to a page request that chose a language ([`chosen`]) carries the cookie that
/// remembers it (one year, `SameSite=Lax`, the whole site) ([`crate::answer`]).
pub fn remember(st: &crate::AppState, chosen: Option<Lang>, res: &mut Response) {
    if let Some(l) = chosen {
        if let Ok(v) = HeaderValue::from_str(&format!(
            "{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax{}",
            l.code(),
            crate::guard::cookie_suffix(st)
        )) {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn the_order_is_query_cookie_header_english() {
        let it_header = headers(&[("accept-language", "it-IT,it;q=0.9")]);
        let both = headers(&[
            ("accept-language", "it-IT,it;q=0.9"),
            ("cookie", "a=b; tercio_lang=en"),
        ]);
        assert_eq!(of_request(None, &HeaderMap::new()), Lang::En);
        assert_eq!(of_request(None, &it_header), Lang::It);
        assert_eq!(of_request(None, &both), Lang::En);
        assert_eq!(of_request(Some("x=1&lang=it"), &both), Lang::It);
        // Unknown values are ignored, falling back in order.
        assert_eq!(of_request(Some("lang=xx"), &it_header), Lang::It);
        assert_eq!(of_request(Some("lang="), &HeaderMap::new()), Lang::En);
        let bad_cookie = headers(&[("accept-language", "it"), ("cookie", "tercio_lang=klingon")]);
        assert_eq!(of_request(None, &bad_cookie), Lang::It);
        assert_eq!(
            of_request(None, &headers(&[("accept-language", "fr, de")])),
            Lang::En
        );
    }

    #[test]
    fn the_switch_keeps_the_path_and_the_rest_of_the_query() {
        let ui = Ui::new(Lang::En, "/s/abc?x=1&lang=en&y=2");
        assert_eq!(ui.link_to(Lang::It), "/s/abc?x=1&y=2&lang=it");
        let ui = Ui::new(Lang::It, "/rules/some-rules?lang=it");
        assert_eq!(ui.link_to(Lang::En), "/rules/some-rules?lang=en");
        let ui = Ui::new(Lang::It, "/");
        assert_eq!(ui.link_to(Lang::En), "/?lang=en");
        let s = Ui::new(Lang::It, "/a?b=\"<x>\"").switch();
        assert!(
            s.contains("href=\"/a?b=&quot;&lt;x&gt;&quot;&amp;lang=en\""),
            "{s}"
        );
        assert!(
            s.contains("<strong lang=\"it\" aria-current=\"true\">Italiano</strong>"),
            "{s}"
        );
        assert!(s.contains("aria-label=\"Lingua\""), "{s}");
    }

    #[test]
    fn script_strings_are_json_that_cannot_close_the_script() {
        let s = Ui::new(Lang::It, "/").script_strings();
        assert!(!s.contains('<'), "{s}");
        let v: serde_json::Value = serde_json::from_str(&s).expect("json");
        assert_eq!(v["lang"], "it");
        assert_eq!(v["strings"]["thrown_so_far"], "Tirati finora: {faces}");
    }

    #[test]
    fn html_keys_escape_their_arguments_only() {
        let ui = Ui::new(Lang::En, "/");
        assert_eq!(
            ui.html(keys::WEB_GAME_YOU_ARE_HTML, &[("seat", "<b>")]),
            "you are: <strong>&lt;b&gt;</strong>"
        );
        assert_eq!(
            ui.h(keys::WEB_SEATS_LINK_FOR, &[("name", "<b>")]),
            "Link for &lt;b&gt;"
        );
    }
}
