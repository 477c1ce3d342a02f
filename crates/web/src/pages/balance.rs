//! A rule set's Balance page, and the same sheet as a self-contained HTML report
//! (`tercio matchup --report`): every troop type against every troop type as two heatmaps drawn
//! in SVG, one action and the fight to the finish it opens, from
//! [`tercio_rules::interface::balance`]. Names no rule set.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tercio_i18n::{keys, Lang};
use tercio_rules::interface::balance::{self, End, Sheet};
use tercio_rules::{registry, RuleSet};

use super::{esc, not_found_page, page};
use crate::api::{ApiError, Params};
use crate::lang::Ui;

/// The Balance page's query: the opening action and the units' size.
#[derive(Deserialize)]
pub(super) struct Query {
    action: Option<String>,
    size: Option<u8>,
    /// One pair in detail: the acting troop type and its target.
    actor: Option<String>,
    target: Option<String>,
}

/// Sheets already worked out, by rule set, action and size: a sheet depends on nothing else,
/// and working one out plans a few thousand actions.
type Sheets = Mutex<BTreeMap<(&'static str, String, u8), Arc<Sheet>>>;

fn cached(r: &dyn RuleSet, action: &str, size: u8) -> Result<Arc<Sheet>, ApiError> {
    static SHEETS: OnceLock<Sheets> = OnceLock::new();
    let key = (r.id(), action.to_string(), size);
    let sheets = SHEETS.get_or_init(Sheets::default);
    if let Some(s) = sheets.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(s);
    }
    let b = r.balance().ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no-balance",
            None,
            r.id().to_string(),
        )
    })?;
    let sheet = balance::sheet(r.id(), &*b, action, size).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            &e.code,
            e.field.as_deref(),
            e.message,
        )
    })?;
    let sheet = Arc::new(sheet);
    if let Ok(mut m) = sheets.lock() {
        m.insert(key, sheet.clone());
    }
    Ok(sheet)
}

pub(super) async fn balance_page(
    ui: Ui,
    Path(id): Path<String>,
    Params(q): Params<Query>,
) -> Response {
    let Ok(r) = registry::lookup(&id) else {
        return not_found_page(&ui);
    };
    let Some(b) = r.balance().filter(|_| r.available()) else {
        return not_found_page(&ui);
    };
    let action = q.action.unwrap_or_else(|| b.actions()[0].id.to_string());
    let size = q.size.unwrap_or(b.default_size());
    let (unit, lo, hi) = r.unit_size();
    if !(lo..=hi).contains(&i64::from(size)) {
        let e = ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad-size",
            Some("size"),
            ui.t(
                keys::WEB_BALANCE_BAD_SIZE,
                &[
                    ("size", &size.to_string()),
                    ("unit", &unit_word(&ui, unit)),
                    ("lo", &lo.to_string()),
                    ("hi", &hi.to_string()),
                ],
            ),
        );
        return super::error_page(&ui, StatusCode::BAD_REQUEST, &e);
    }
    // Worked out off the server's request threads: a sheet takes a moment the first time.
    let sheet = {
        let action = action.clone();
        let id = r.id();
        tokio::task::spawn_blocking(move || {
            let r = registry::lookup(id).map_err(|e| {
                ApiError::new(
                    StatusCode::NOT_FOUND,
                    "unknown-ruleset",
                    None,
                    e.to_string(),
                )
            })?;
            cached(r, &action, size)
        })
        .await
    };
    let sheet = match sheet {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return super::error_page(&ui, StatusCode::BAD_REQUEST, &e),
        Err(_) => {
            let e = ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "balance-failed",
                None,
                ui.t(keys::WEB_BALANCE_FAILED, &[]),
            );
            return super::error_page(&ui, StatusCode::SERVICE_UNAVAILABLE, &e);
        }
    };
    let name = ui.loc(&r.title());
    let title = ui.t(keys::WEB_BALANCE_TITLE, &[("name", &name)]);
    let mut body = format!("<h1>{}</h1>", esc(&title));
    body.push_str(&choose_form(&ui, r, &*b, &sheet));
    if let (Some(a), Some(t)) = (&q.actor, &q.target) {
        match pair_html(&ui, &sheet, a, t) {
            Some(html) => body.push_str(&html),
            None => {
                let field = if sheet.fighters.iter().any(|f| f.id == a) {
                    "target"
                } else {
                    "actor"
                };
                let e = ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "unknown-troop-type",
                    Some(field),
                    ui.t(
                        keys::WEB_BALANCE_UNKNOWN_TROOP,
                        &[
                            ("field", field),
                            (
                                "troop",
                                &tercio_i18n::clip(if field == "actor" { a } else { t }),
                            ),
                        ],
                    ),
                );
                return super::error_page(&ui, StatusCode::BAD_REQUEST, &e);
            }
        }
    }
    body.push_str(&sheet_html(&ui, r, &sheet, true));
    page(&ui, &title, &body).into_response()
}

/// One pair in detail, above the maps: the one action's chances and the fight's ends.
/// `None`: a troop type the sheet does not have.
fn pair_html(ui: &Ui, sheet: &Sheet, actor: &str, target: &str) -> Option<String> {
    let i = sheet.fighters.iter().position(|f| f.id == actor)?;
    let j = sheet.fighters.iter().position(|f| f.id == target)?;
    let (a, t) = (
        ui.loc(&sheet.fighters[i].name),
        ui.loc(&sheet.fighters[j].name),
    );
    let mut h = format!(
        "<section id=\"pair\" class=\"balance-pair\"><h2>{}</h2>",
        ui.h(keys::WEB_BALANCE_PAIR, &[("actor", &a), ("target", &t)])
    );
    match (&sheet.cells[i][j], &sheet.finish[i][j]) {
        (Some(c), f) => {
            h.push_str(&format!("<p>{}</p>", esc(&cell_text(ui, &a, &t, c))));
            if let Some(f) = f {
                h.push_str(&format!("<p>{}</p>", esc(&finish_text(ui, &a, &t, f))));
            }
        }
        (None, _) => h.push_str(&format!(
            "<p>{}</p>",
            ui.h(
                keys::WEB_BALANCE_FORBIDDEN,
                &[("actor", &a), ("target", &t)]
            )
        )),
    }
    h.push_str("</section>");
    Some(h)
}

fn cell_text(ui: &Ui, a: &str, t: &str, c: &balance::Cell) -> String {
    ui.t(
        keys::WEB_BALANCE_CELL,
        &[
            ("actor", a),
            ("target", t),
            ("ahead", &pct(ui, c.actor_ahead)),
            ("tie", &pct(ui, c.tie)),
            ("behind", &pct(ui, c.target_ahead)),
            ("actor_loss", &ui.num(c.actor_loss, 2)),
            ("target_loss", &ui.num(c.target_loss, 2)),
        ],
    )
}

fn finish_text(ui: &Ui, a: &str, t: &str, f: &balance::Finish) -> String {
    let apart = f.p(End::TargetBack) + f.p(End::ActorBack);
    ui.t(
        keys::WEB_BALANCE_CELL_FINISH,
        &[
            ("actor", a),
            ("target", t),
            ("win", &pct(ui, f.p(End::TargetDestroyed))),
            ("lose", &pct(ui, f.p(End::ActorDestroyed))),
            ("both", &pct(ui, f.p(End::BothDestroyed))),
            ("apart", &pct(ui, apart)),
            ("rounds", &ui.num(f.rounds, 2)),
        ],
    )
}

/// The form that picks the action and the size (a GET, so each sheet has its address).
fn choose_form(ui: &Ui, r: &dyn RuleSet, b: &dyn balance::Balance, sheet: &Sheet) -> String {
    let (unit, lo, hi) = r.unit_size();
    let options: String = b
        .actions()
        .iter()
        .map(|a| {
            format!(
                "<option value=\"{}\"{}>{}</option>",
                esc(a.id),
                if a.id == sheet.action {
                    " selected"
                } else {
                    ""
                },
                ui.e(&a.name)
            )
        })
        .collect();
    format!(
        "<form method=\"get\" class=\"balance-choose\"><input type=\"hidden\" name=\"lang\" value=\"{lang}\"><label>{action} <select name=\"action\" id=\"balance-action\">{options}</select></label> <label>{size} <input type=\"number\" name=\"size\" id=\"balance-size\" min=\"{lo}\" max=\"{hi}\" value=\"{value}\"></label> <button type=\"submit\">{show}</button></form>",
        lang = ui.lang.code(),
        action = ui.h(keys::WEB_BALANCE_ACTION, &[]),
        size = ui.h(keys::WEB_BALANCE_SIZE, &[("unit", &unit_word(ui, unit))]),
        value = sheet.size,
        show = ui.h(keys::WEB_BALANCE_SHOW, &[]),
    )
}

/// The word for a rule set's unit of size (`bases`, `figures`, `blocks`), in the page's
/// language.
fn unit_word(ui: &Ui, unit: &str) -> String {
    match unit {
        "figures" => ui.t(keys::WEB_BALANCE_UNIT_FIGURES, &[]),
        "blocks" => ui.t(keys::WEB_BALANCE_UNIT_BLOCKS, &[]),
        _ => ui.t(keys::WEB_BALANCE_UNIT_BASES, &[]),
    }
}

fn pct(ui: &Ui, p: f64) -> String {
    format!("{}%", ui.num(p * 100.0, 1))
}

/// The sheet: what it shows, then its two heatmaps. With `links`, each cell leads to its pair
/// in detail (a tap on a phone, where a tooltip never shows).
fn sheet_html(ui: &Ui, r: &dyn RuleSet, sheet: &Sheet, links: bool) -> String {
    let action = r
        .balance()
        .and_then(|b| b.actions().into_iter().find(|a| a.id == sheet.action))
        .map_or_else(|| sheet.action.clone(), |a| ui.loc(&a.name));
    let (unit, _, _) = r.unit_size();
    let names: Vec<String> = sheet.fighters.iter().map(|f| ui.loc(&f.name)).collect();
    let n = names.len();
    let mut ahead = vec![vec![None; n]; n];
    let mut fight = vec![vec![None; n]; n];
    for i in 0..n {
        for j in 0..n {
            if let Some(c) = &sheet.cells[i][j] {
                ahead[i][j] = Some((c.actor_ahead, cell_text(ui, &names[i], &names[j], c)));
            }
            if let Some(f) = &sheet.finish[i][j] {
                let tip = finish_text(ui, &names[i], &names[j], f);
                // Carrying the field: the column's unit destroyed or driven off.
                fight[i][j] = Some((f.p(End::TargetDestroyed) + f.p(End::TargetBack), tip));
            }
        }
    }
    format!(
        "<p class=\"muted\" id=\"balance-intro\">{intro}</p><h2 id=\"balance-ahead-h\">{h_ahead}</h2>{map_ahead}<h2 id=\"balance-finish-h\">{h_finish}</h2><p class=\"muted\">{note}</p>{map_finish}",
        intro = ui.h(
            keys::WEB_BALANCE_INTRO,
            &[("size", &sheet.size.to_string()), ("unit", &unit_word(ui, unit))]
        ),
        h_ahead = ui.h(keys::WEB_BALANCE_AHEAD_TITLE, &[("action", &action)]),
        map_ahead = heatmap(ui, "balance-ahead", &names, &ahead, links.then_some(sheet)),
        h_finish = ui.h(keys::WEB_BALANCE_FINISH_TITLE, &[]),
        note = ui.h(keys::WEB_BALANCE_FINISH_NOTE, &[("action", &action)]),
        map_finish = heatmap(ui, "balance-finish", &names, &fight, links.then_some(sheet)),
    )
}

/// The colour of a chance: red at 0, pale at one half, blue at 1.
fn colour(p: f64) -> String {
    let p = p.clamp(0.0, 1.0);
    let (r, g, b) = if p < 0.5 {
        let k = p / 0.5;
        (200.0 + 45.0 * k, 60.0 + 180.0 * k, 50.0 + 180.0 * k)
    } else {
        let k = (p - 0.5) / 0.5;
        (245.0 - 205.0 * k, 240.0 - 130.0 * k, 230.0 - 10.0 * k)
    };
    format!("#{:02x}{:02x}{:02x}", r as u8, g as u8, b as u8)
}

/// A square heatmap in SVG: rows act, columns are targets; each cell shows its chance in whole
/// percent, and its title (a tooltip, read aloud by screen readers) the details. A pair the
/// rules forbid is grey.
fn heatmap(
    ui: &Ui,
    id: &str,
    names: &[String],
    cells: &[Vec<Option<(f64, String)>>],
    links: Option<&Sheet>,
) -> String {
    const CELL: usize = 30;
    // Names run left of the rows, and up and to the right above the columns (at 60 degrees:
    // the height of a name is 0.87 of its length, its reach to the right a half).
    let label = names.iter().map(|s| s.chars().count()).max().unwrap_or(0) * 7 + 8;
    let top = label * 87 / 100 + 8;
    let n = names.len();
    let (w, h) = (label + n * CELL + label / 2, top + n * CELL + 4);
    let mut s = format!(
        "<div class=\"scroll\"><svg id=\"{id}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{aria}\" font-family=\"sans-serif\" font-size=\"12\">",
        aria = ui.h(keys::WEB_BALANCE_AXES, &[]),
    );
    for (i, name) in names.iter().enumerate() {
        let y = top + i * CELL + CELL / 2 + 4;
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{y}\" text-anchor=\"end\">{}</text>",
            label - 6,
            esc(name)
        ));
        let x = label + i * CELL + CELL / 2 + 4;
        s.push_str(&format!(
            "<text x=\"{x}\" y=\"{}\" transform=\"rotate(-60 {x} {})\">{}</text>",
            top - 6,
            top - 6,
            esc(name)
        ));
    }
    for (i, row) in cells.iter().enumerate() {
        for (j, cell) in row.iter().enumerate() {
            let (x, y) = (label + j * CELL, top + i * CELL);
            match cell {
                Some((p, tip)) => {
                    let cell = format!(
                        "<g class=\"cell\"><title>{}</title><rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{}\" stroke=\"#fff\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{}</text></g>",
                        esc(tip),
                        colour(*p),
                        x + CELL / 2,
                        y + CELL / 2 + 4,
                        (p * 100.0).round()
                    );
                    match links {
                        Some(sh) => s.push_str(&format!(
                            "<a href=\"?lang={}&amp;action={}&amp;size={}&amp;actor={}&amp;target={}#pair\">{cell}</a>",
                            ui.lang.code(),
                            esc(&sh.action),
                            sh.size,
                            sh.fighters[i].id,
                            sh.fighters[j].id
                        )),
                        None => s.push_str(&cell),
                    }
                }
                None => s.push_str(&format!(
                    "<g class=\"cell\"><title>{}</title><rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"#ddd\" stroke=\"#fff\"/></g>",
                    ui.h(
                        keys::WEB_BALANCE_FORBIDDEN,
                        &[("actor", &names[i]), ("target", &names[j])]
                    )
                )),
            }
        }
    }
    s.push_str("</svg></div>");
    s
}

/// The sheet as a page of its own: no script, no stylesheet to fetch, for `tercio matchup
/// --report` (a designer mails it, or opens it from disk).
pub fn report(lang: Lang, r: &dyn RuleSet, sheet: &Sheet) -> String {
    let ui = Ui::new(lang, "/");
    let name = ui.loc(&r.title());
    let title = ui.t(keys::WEB_BALANCE_TITLE, &[("name", &name)]);
    format!(
        "<!doctype html><html lang=\"{lang}\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{t}</title><style>body{{font-family:sans-serif;margin:1rem;max-width:70rem}}.muted{{color:#555}}.scroll{{overflow-x:auto}}</style></head><body><h1>{t}</h1>{body}</body></html>",
        lang = lang.code(),
        t = esc(&title),
        body = sheet_html(&ui, r, sheet, false),
    )
}
