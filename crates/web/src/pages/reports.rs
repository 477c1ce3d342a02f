//! A seat's reports: the battle report (Markdown) and the dice report (faces against their
//! expectations, as tables and charts).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use tercio_i18n::keys;
use tercio_rules::report;

use super::seat::link_problem;
use super::{esc, page};
use crate::api::{self, ApiError};
use crate::lang::Ui;
use crate::seat;
use crate::AppState;

/// The battle report, as this seat may see it, in the reader's language: its words and the
/// rules' messages.
pub(super) async fn report_md(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(token): Path<String>,
) -> Response {
    let lang = ui.lang;
    let ctx = match seat::open(&st, &token).await {
        Ok(c) => c,
        Err(e) => return link_problem(&ui, &e),
    };
    let out = api::blocking(move || {
        let c = ctx.game.commitment();
        let game = ctx.full_game()?;
        let md = report::battle_report(
            &game,
            &ctx.viewer(),
            &report::Reveal {
                commitment: &c,
                seed: ctx.revealed_seed(),
                concluded: ctx.ended(),
                fingerprint: ctx.fingerprint(),
            },
            lang,
        )
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "corrupt", None, e))?;
        Ok((md, api::slug(ctx.game.scenario.title.en())))
    })
    .await;
    match out {
        Ok((md, name)) => (
            [
                (
                    header::CONTENT_TYPE,
                    "text/markdown; charset=utf-8".to_string(),
                ),
                (
                    header::CONTENT_DISPOSITION,
                    format!("inline; filename=\"{name}.md\""),
                ),
                (header::CONTENT_LANGUAGE, ui.lang.code().to_string()),
            ],
            md,
        )
            .into_response(),
        Err(e) => link_problem(&ui, &e),
    }
}

/// The dice report: faces against their expected counts (table and chart), outcomes against
/// their exact expectations.
pub(super) async fn dice_page(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(token): Path<String>,
) -> Response {
    let ctx = match seat::open(&st, &token).await {
        Ok(c) => c,
        Err(e) => return link_problem(&ui, &e),
    };
    let out = api::blocking(move || {
        let game = ctx.full_game()?;
        let r = report::dice_report(&game, &ctx.viewer())
            .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "corrupt", None, e))?;
        Ok((ctx, r))
    })
    .await;
    let (ctx, r) = match out {
        Ok(x) => x,
        Err(e) => return link_problem(&ui, &e),
    };
    let mut b = format!(
        "<h1>{}</h1><p><a href=\"/s/{}\">{}</a></p><p>{}</p>",
        ui.h(
            keys::WEB_REPORT_TITLE,
            &[("title", ctx.game.scenario.title.get(ui.lang))]
        ),
        esc(&ctx.seat.token),
        ui.h(keys::WEB_NAV_BACK_TO_GAME, &[]),
        ui.html(
            keys::WEB_REPORT_INTRO_HTML,
            &[
                ("events", &r.events.to_string()),
                ("threshold", &ui.num(0.01, 2))
            ]
        )
    );
    if r.faces.is_empty() {
        b.push_str(&format!(
            "<p class=\"muted\">{}</p>",
            ui.h(keys::WEB_REPORT_NONE, &[])
        ));
    }
    for t in &r.faces {
        b.push_str(&format!(
            "<h2>{} <span class=\"muted\">({})</span></h2><p>{}</p>",
            ui.h(
                keys::WEB_REPORT_DIE_HEADING,
                &[("sides", &t.sides.to_string())]
            ),
            ui.h(
                if t.source == "entered" {
                    keys::WEB_REPORT_AT_TABLE
                } else {
                    keys::WEB_REPORT_FROM_SEED
                },
                &[]
            ),
            ui.html(
                keys::WEB_REPORT_DIE_LINE_HTML,
                &[
                    ("thrown", &t.thrown.to_string()),
                    ("chi", &ui.num(t.chi_square, 2)),
                    ("df", &t.degrees_of_freedom.to_string()),
                    ("p", &ui.num(t.p_value, 3))
                ]
            )
        ));
        b.push_str(&face_chart(&ui, t));
        b.push_str(&format!(
            "<table class=\"faces\"><thead><tr><th>{}</th>",
            ui.h(keys::WEB_REPORT_FACE, &[])
        ));
        for f in 1..=t.sides {
            b.push_str(&format!("<th>{f}</th>"));
        }
        b.push_str(&format!(
            "</tr></thead><tbody><tr><th>{}</th>",
            ui.h(keys::WEB_REPORT_SEEN, &[])
        ));
        for c in &t.counts {
            b.push_str(&format!("<td>{c}</td>"));
        }
        b.push_str(&format!(
            "</tr><tr><th>{}</th>",
            ui.h(keys::WEB_REPORT_EXPECTED, &[])
        ));
        for _ in &t.counts {
            b.push_str(&format!("<td>{}</td>", ui.num(t.expected, 1)));
        }
        b.push_str("</tr></tbody></table>");
    }
    if !r.outcomes.is_empty() {
        b.push_str(&format!(
            "<h2>{}</h2><p>{}</p><div class=\"scroll\"><table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>",
            ui.h(keys::WEB_REPORT_OUTCOMES, &[]),
            ui.h(keys::WEB_REPORT_OUTCOMES_INTRO, &[]),
            ui.h(keys::WEB_REPORT_ACTION, &[]),
            ui.h(keys::WEB_REPORT_QUESTION, &[]),
            ui.h(keys::WEB_REPORT_RESULT, &[]),
            ui.h(keys::WEB_REPORT_EXPECTED, &[]),
            ui.h(keys::WEB_REPORT_SEEN, &[])
        ));
        let titles = ctx.game.engine.action_titles();
        for o in &r.outcomes {
            b.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                ui.e(&super::action_title(&titles, &o.action)),
                ui.e(&o.facet),
                ui.e(&o.value),
                ui.num(o.expected, 2),
                o.observed
            ));
        }
        b.push_str("</tbody></table></div>");
    }
    if r.not_tabulated > 0 {
        b.push_str(&format!(
            "<p class=\"muted\">{}</p>",
            ui.h(
                keys::WEB_REPORT_NOT_TABULATED,
                &[("count", &r.not_tabulated.to_string())]
            )
        ));
    }
    page(&ui, ctx.game.scenario.title.get(ui.lang), &b).into_response()
}

/// A bar per face (seen) with a line at the expected count, as inline SVG.
fn face_chart(ui: &Ui, t: &report::FaceTally) -> String {
    let n = t.counts.len() as f64;
    let (w, h) = (320.0, 120.0);
    let max = t
        .counts
        .iter()
        .map(|&c| c as f64)
        .fold(t.expected, f64::max)
        .max(1.0);
    let bw = w / n;
    let mut svg = format!(
        "<svg class=\"chart\" viewBox=\"0 0 {w} {}\" role=\"img\" aria-label=\"{}\">",
        h + 16.0,
        ui.h(
            keys::WEB_REPORT_CHART_LABEL,
            &[("sides", &t.sides.to_string())]
        )
    );
    for (i, &c) in t.counts.iter().enumerate() {
        let bh = c as f64 / max * h;
        svg.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bh:.1}\"><title>{}: {c}</title></rect><text x=\"{:.1}\" y=\"{}\">{}</text>",
            i as f64 * bw + 1.0,
            h - bh,
            bw - 2.0,
            i + 1,
            i as f64 * bw + bw / 2.0,
            h + 13.0,
            i + 1
        ));
    }
    let ey = h - t.expected / max * h;
    svg.push_str(&format!(
        "<line x1=\"0\" x2=\"{w}\" y1=\"{ey:.1}\" y2=\"{ey:.1}\" class=\"expected\"><title>{}</title></line></svg>",
        ui.h(
            keys::WEB_REPORT_CHART_EXPECTED,
            &[("expected", &ui.num(t.expected, 1))]
        )
    ));
    svg
}
