//! `tercio simulate --report`: the battles of a run as a page of its own (no script, no file to
//! fetch), with SVG plots: each side's win rate as the battles add up, the break points lost turn
//! by turn, how long battles last; and the tables by troop type and chart. Names no rule set.

use tercio_i18n::{keys, Lang};
use tercio_rules::interface::simulate::Summary;
use tercio_rules::RuleSet;

use super::esc;
use crate::lang::Ui;

/// What a run was: the scenario's title, its sides (id, name) and their policies, the seed, the
/// turn limit and the armies' distance.
pub struct SimulationRun {
    pub title: String,
    pub sides: Vec<(String, String)>,
    pub policies: Vec<String>,
    pub seed: u64,
    pub turns: u32,
    /// How far apart the armies deploy, in inches.
    pub gap: u32,
}

/// Colours of the sides' lines, in the scenario's order, and their names.
const COLOURS: [&str; 4] = ["#b2182b", "#2166ac", "#1b7837", "#762a83"];
const COLOUR_NAMES: [&str; 4] = [
    keys::WEB_SIMULATION_COLOUR_0,
    keys::WEB_SIMULATION_COLOUR_1,
    keys::WEB_SIMULATION_COLOUR_2,
    keys::WEB_SIMULATION_COLOUR_3,
];

fn pct(ui: &Ui, p: f64) -> String {
    format!("{}%", ui.num(p * 100.0, 1))
}

/// A line plot: `series` of (colour, points), x and y from 0 to `x_max` / `y_max`, with
/// `hlines` (colour, y) dashed across, and a band from y `band.0` to `band.1` if given.
struct Plot<'a> {
    id: &'a str,
    x_label: String,
    y_label: String,
    x_max: f64,
    y_max: f64,
    series: Vec<(&'a str, Vec<(f64, f64)>)>,
    hlines: Vec<(&'a str, f64)>,
    band: Option<(&'a str, f64, f64)>,
    y_is_share: bool,
}

fn plot(ui: &Ui, p: &Plot) -> String {
    let (w, h, l, b, t, r) = (640.0, 300.0, 56.0, 40.0, 12.0, 16.0);
    let sx = |x: f64| l + (w - l - r) * x / p.x_max.max(1e-9);
    let sy = |y: f64| h - b - (h - b - t) * y / p.y_max.max(1e-9);
    let mut s = format!(
        "<div class=\"scroll\"><svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"{}\">",
        p.id,
        esc(&format!("{} / {}", p.y_label, p.x_label))
    );
    if let Some((c, lo, hi)) = p.band {
        s.push_str(&format!(
            "<rect x=\"{l}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{c}\" opacity=\"0.15\"/>",
            sy(hi),
            w - l - r,
            (sy(lo) - sy(hi)).max(0.5)
        ));
    }
    // Axes and their ticks: five on each.
    s.push_str(&format!(
        "<path d=\"M{l} {t}V{} H{}\" stroke=\"#333\" fill=\"none\"/>",
        h - b,
        w - r
    ));
    for i in 0..=4 {
        let y = p.y_max * f64::from(i) / 4.0;
        let label = if p.y_is_share {
            pct(ui, y)
        } else {
            ui.num(y, 1)
        };
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            l - 4.0,
            sy(y) + 4.0,
            esc(&label)
        ));
        let x = p.x_max * f64::from(i) / 4.0;
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            sx(x),
            h - b + 16.0,
            esc(&ui.num(x, 0))
        ));
    }
    s.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        l + (w - l - r) / 2.0,
        h - 4.0,
        esc(&p.x_label)
    ));
    for (c, y) in &p.hlines {
        s.push_str(&format!(
            "<line x1=\"{l}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"{c}\" stroke-dasharray=\"5 4\"/>",
            w - r,
            sy(*y),
            sy(*y)
        ));
    }
    for (c, pts) in &p.series {
        let d: Vec<String> = pts
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y)))
            .collect();
        s.push_str(&format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{c}\" stroke-width=\"2\"/>",
            d.join(" ")
        ));
    }
    s.push_str("</svg></div>");
    s
}

/// The run as a page of its own.
pub fn report(lang: Lang, r: &dyn RuleSet, run: &SimulationRun, sum: &Summary) -> String {
    let ui = Ui::new(lang, "/");
    let title = ui.t(keys::WEB_SIMULATION_TITLE, &[("title", &run.title)]);
    format!(
        "<!doctype html><html lang=\"{lang}\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{t}</title><style>body{{font-family:sans-serif;margin:1rem;max-width:60rem}}.muted{{color:#555}}.scroll{{overflow-x:auto}}table{{border-collapse:collapse}}td,th{{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}}</style></head><body><h1>{t}</h1>{b}</body></html>",
        lang = lang.code(),
        t = esc(&title),
        b = body(&ui, r, run, sum),
    )
}

/// What a run found: its settings, who wins, the plots and the tables (the report's body, and
/// the host's page of a run once it is over).
pub(crate) fn body(ui: &Ui, r: &dyn RuleSet, run: &SimulationRun, sum: &Summary) -> String {
    let lang = ui.lang;
    let name_of = |id: &str| {
        run.sides
            .iter()
            .find(|(s, _)| s == id)
            .map_or(id.to_string(), |(_, n)| n.clone())
    };
    let n = f64::from(sum.battles.max(1));
    let mut b = format!(
        "<p class=\"muted\">{}</p><ul>",
        ui.h(
            if run.gap == 0 {
                keys::WEB_SIMULATION_INTRO_FORMS
            } else {
                keys::WEB_SIMULATION_INTRO
            },
            &[
                ("ruleset", &ui.loc(&r.title())),
                ("battles", &sum.battles.to_string()),
                ("seed", &run.seed.to_string()),
                ("turns", &run.turns.to_string()),
                ("gap", &run.gap.to_string()),
            ]
        )
    );
    let policy_name = |id: &str| {
        r.simulator()
            .and_then(|sim| sim.policies().into_iter().find(|p| p.id == id))
            .map_or_else(|| id.to_string(), |p| ui.loc(&p.name))
    };
    for ((id, name), policy) in run.sides.iter().zip(&run.policies) {
        b.push_str(&format!(
            "<li>{}</li>",
            ui.h(
                keys::WEB_SIMULATION_POLICY,
                &[("side", name), ("id", id), ("policy", &policy_name(policy))]
            )
        ));
    }
    b.push_str("</ul>");
    // Who wins.
    b.push_str(&format!(
        "<h2>{}</h2><table id=\"sim-results\"><thead><tr><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>",
        ui.h(keys::WEB_SIMULATION_RESULT, &[]),
        ui.h(keys::WEB_SIMULATION_OUTCOME, &[]),
        ui.h(keys::WEB_SIMULATION_SHARE, &[]),
        ui.h(keys::WEB_SIMULATION_INTERVAL, &[]),
    ));
    let rows = sum
        .wins
        .iter()
        .map(|(s, w)| (ui.t(keys::WEB_SIMULATION_WINS, &[("side", &name_of(s))]), w))
        .chain([
            (ui.t(keys::WEB_SIMULATION_DRAW, &[]), &sum.draws),
            (ui.t(keys::WEB_SIMULATION_AT_LIMIT, &[]), &sum.at_turn_limit),
        ]);
    for (label, w) in rows {
        b.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{} – {}</td></tr>",
            esc(&label),
            pct(ui, w.p),
            pct(ui, w.low),
            pct(ui, w.high)
        ));
    }
    b.push_str("</tbody></table>");
    // The first side's win rate as the battles add up, with the final interval.
    if let (Some((first, w)), Some(_)) = (sum.wins.first(), sum.first_side_win_rate.last()) {
        let pts: Vec<(f64, f64)> = sum
            .first_side_win_rate
            .iter()
            .enumerate()
            .map(|(i, p)| ((i + 1) as f64, *p))
            .collect();
        b.push_str(&format!(
            "<h2>{}</h2>",
            ui.h(keys::WEB_SIMULATION_OVER_N, &[("side", &name_of(first))])
        ));
        b.push_str(&plot(
            ui,
            &Plot {
                id: "sim-over-n",
                x_label: ui.t(keys::WEB_SIMULATION_BATTLES, &[]),
                y_label: ui.t(keys::WEB_SIMULATION_SHARE, &[]),
                x_max: n,
                y_max: 1.0,
                series: vec![(COLOURS[0], pts)],
                hlines: vec![],
                band: Some((COLOURS[0], w.low, w.high)),
                y_is_share: true,
            },
        ));
    }
    // Break points lost, turn by turn.
    let turns = sum.lost_by_turn.len();
    if turns > 0 {
        let y_max = sum
            .break_points
            .iter()
            .map(|x| f64::from(*x))
            .chain(sum.lost_by_turn.iter().flatten().copied())
            .fold(1.0, f64::max);
        let series =
            (0..sum.break_points.len())
                .map(|i| {
                    (
                        COLOURS[i % COLOURS.len()],
                        std::iter::once((0.0, 0.0))
                            .chain(sum.lost_by_turn.iter().enumerate().map(|(t, row)| {
                                ((t + 1) as f64, row.get(i).copied().unwrap_or(0.0))
                            }))
                            .collect(),
                    )
                })
                .collect();
        let hlines = sum
            .break_points
            .iter()
            .enumerate()
            .map(|(i, bp)| (COLOURS[i % COLOURS.len()], f64::from(*bp)))
            .collect();
        b.push_str(&format!(
            "<h2>{}</h2><p class=\"muted\">{}</p>",
            ui.h(keys::WEB_SIMULATION_LOSSES_TITLE, &[]),
            esc(&run
                .sides
                .iter()
                .enumerate()
                .map(|(i, (_, name))| ui.t(
                    keys::WEB_SIMULATION_LINE,
                    &[
                        ("colour", &ui.t(COLOUR_NAMES[i % COLOUR_NAMES.len()], &[])),
                        ("side", name)
                    ]
                ))
                .collect::<Vec<_>>()
                .join("; "))
        ));
        b.push_str(&plot(
            ui,
            &Plot {
                id: "sim-losses",
                x_label: ui.t(keys::WEB_SIMULATION_TURN, &[]),
                y_label: ui.t(keys::WEB_SIMULATION_LOST, &[]),
                x_max: turns as f64,
                y_max: y_max * 1.05,
                series,
                hlines,
                band: None,
                y_is_share: false,
            },
        ));
    }
    // How long battles last.
    b.push_str(&format!(
        "<h2>{}</h2><p>{}</p><table id=\"sim-length\"><thead><tr><th>{}</th><th>{}</th></tr></thead><tbody>",
        ui.h(keys::WEB_SIMULATION_LENGTH, &[]),
        ui.h(
            keys::WEB_SIMULATION_MEAN_LENGTH,
            &[("turns", &ui.num(sum.turns_mean, 2)), ("actions", &ui.num(sum.actions_mean, 1))]
        ),
        ui.h(keys::WEB_SIMULATION_TURN, &[]),
        ui.h(keys::WEB_SIMULATION_SHARE, &[]),
    ));
    for (t, c) in &sum.turns {
        b.push_str(&format!(
            "<tr><td>{t}</td><td>{}</td></tr>",
            pct(ui, f64::from(*c) / n)
        ));
    }
    b.push_str("</tbody></table>");
    // By troop type.
    b.push_str(&format!(
        "<h2>{}</h2><div class=\"scroll\"><table id=\"sim-troops\"><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>",
        ui.h(keys::WEB_SIMULATION_TROOPS, &[]),
        ui.h(keys::WEB_SIMULATION_SIDE, &[]),
        ui.h(keys::WEB_SIMULATION_TROOP, &[]),
        ui.h(keys::WEB_SIMULATION_FIELDED, &[]),
        ui.h(keys::WEB_SIMULATION_BASES_LOST, &[]),
        ui.h(keys::WEB_SIMULATION_DESTROYED, &[]),
        ui.h(keys::WEB_SIMULATION_INFLICTED, &[]),
    ));
    let troop_name = |troop: &str| {
        r.balance()
            .and_then(|bal| bal.fighters().into_iter().find(|f| f.id == troop))
            .map_or_else(|| troop.to_string(), |f| ui.loc(&f.name))
    };
    for l in &sum.losses {
        b.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&name_of(&l.side)),
            esc(&troop_name(&l.troop)),
            ui.num(f64::from(l.units) / n, 2),
            ui.num(f64::from(l.lost) / n, 2),
            ui.num(f64::from(l.destroyed) / n, 2),
            ui.num(f64::from(l.inflicted) / n, 2),
        ));
    }
    b.push_str("</tbody></table></div>");
    // Actions taken, and rules and charts used.
    for (id, title, column, counts) in [
        (
            "sim-actions",
            keys::WEB_SIMULATION_ACTIONS,
            keys::WEB_SIMULATION_ACTION,
            &sum.actions_taken,
        ),
        (
            "sim-usage",
            keys::WEB_SIMULATION_USAGE,
            keys::WEB_SIMULATION_RULE,
            &sum.usage,
        ),
    ] {
        let mut rows: Vec<(&String, &u32)> = counts.iter().collect();
        rows.sort_by_key(|(k, v)| (std::cmp::Reverse(**v), (*k).clone()));
        b.push_str(&format!(
            "<h2>{}</h2><table id=\"{id}\"><thead><tr><th>{}</th><th>{}</th></tr></thead><tbody>",
            ui.h(title, &[]),
            ui.h(column, &[]),
            ui.h(keys::WEB_SIMULATION_PER_BATTLE, &[]),
        ));
        for (k, v) in rows {
            b.push_str(&format!(
                "<tr><td>{}</td><td>{}</td></tr>",
                esc(&tercio_i18n::outline(lang, k)),
                ui.num(f64::from(*v) / n, 2)
            ));
        }
        b.push_str("</tbody></table>");
    }
    b
}

/// The host's "simulate 1,000 battles" form: which shipped scenario.
#[derive(serde::Deserialize)]
pub(super) struct StartForm {
    scenario: String,
}

fn job_url(ui: &Ui, id: &str) -> String {
    format!("/simulations/{id}?lang={}", ui.lang.code())
}

/// Start a run and go to its page.
pub(super) async fn start(
    axum::extract::State(st): axum::extract::State<std::sync::Arc<crate::AppState>>,
    ui: Ui,
    axum::Form(f): axum::Form<StartForm>,
) -> axum::response::Response {
    use crate::simulations::StartError;
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    let mut b = [0u8; 8];
    let seed = getrandom::fill(&mut b).map_or(0, |_| u64::from_le_bytes(b));
    match st.simulations.start(&f.scenario, seed) {
        Ok(job) => axum::response::Redirect::to(&job_url(&ui, &job.id)).into_response(),
        Err(e) => {
            let message = match e {
                StartError::Unknown(id) => ui.t(
                    keys::WEB_SIM_JOB_UNKNOWN_SCENARIO,
                    &[("scenario", &tercio_i18n::clip(&id))],
                ),
                StartError::NotSimulable(rules) => {
                    ui.t(keys::WEB_SIM_JOB_NOT_SIMULABLE, &[("ruleset", &rules)])
                }
            };
            let e = crate::api::ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad-scenario",
                Some("scenario"),
                message,
            );
            super::error_page(&ui, StatusCode::BAD_REQUEST, &e)
        }
    }
}

/// A run's page: its progress while it plays (followed live, with a button to cancel it), what
/// it found once it is over.
pub(super) async fn job_page(
    axum::extract::State(st): axum::extract::State<std::sync::Arc<crate::AppState>>,
    ui: Ui,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> axum::response::Response {
    use crate::simulations::Status;
    use axum::response::IntoResponse;
    let Some(job) = st.simulations.get(&id) else {
        return super::not_found_page(&ui);
    };
    let Some((_, sc)) = crate::scenarios::parsed_one(job.scenario) else {
        return super::not_found_page(&ui);
    };
    let Ok(r) = tercio_rules::lookup(&sc.ruleset) else {
        return super::not_found_page(&ui);
    };
    let title = ui.t(
        keys::WEB_SIMULATION_TITLE,
        &[("title", sc.title.get(ui.lang))],
    );
    let mut b = format!("<h1>{}</h1>", esc(&title));
    let status = job.status();
    match &status {
        Status::Waiting | Status::Running => {
            let done = job.done();
            b.push_str(&format!(
                "<p id=\"sim-state\">{}</p><p><progress id=\"sim-progress\" max=\"{total}\" value=\"{done}\" data-events=\"/simulations/{id}/events\"></progress> {}</p><form method=\"post\" action=\"/simulations/{id}/cancel?lang={lang}\"><button id=\"sim-cancel\">{}</button></form>",
                ui.h(
                    if status == Status::Waiting {
                        keys::WEB_SIM_JOB_WAITING
                    } else {
                        keys::WEB_SIM_JOB_RUNNING
                    },
                    &[]
                ),
                ui.html(
                    keys::WEB_SIM_JOB_COUNT_HTML,
                    &[("done", &done.to_string()), ("total", &job.total.to_string())]
                ),
                ui.h(keys::WEB_SIM_JOB_CANCEL, &[]),
                total = job.total,
                id = esc(&job.id),
                lang = ui.lang.code(),
            ));
        }
        Status::Failed(e) => b.push_str(&format!(
            "<pre class=\"error\" id=\"sim-state\">{}</pre>",
            ui.e(e)
        )),
        Status::Done | Status::Cancelled(_) => {
            if let Status::Cancelled(n) = status {
                b.push_str(&format!(
                    "<p id=\"sim-state\">{}</p>",
                    ui.h(keys::WEB_SIM_JOB_CANCELLED, &[("done", &n.to_string())])
                ));
            }
            if let Some(sum) = job.summary() {
                let run = SimulationRun {
                    title: sc.title.get(ui.lang).to_string(),
                    sides: sc
                        .sides
                        .iter()
                        .map(|s| (s.id.clone(), s.name.get(ui.lang).to_string()))
                        .collect(),
                    policies: job.policies.clone(),
                    seed: job.seed,
                    turns: job.turns,
                    gap: job.gap,
                };
                b.push_str(&body(&ui, r, &run, &sum));
            }
        }
    }
    super::page(&ui, &title, &b).into_response()
}

/// Cancel a run (the battles played so far are kept), and back to its page.
pub(super) async fn cancel(
    axum::extract::State(st): axum::extract::State<std::sync::Arc<crate::AppState>>,
    ui: Ui,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match st.simulations.get(&id) {
        Some(job) => {
            job.cancel();
            axum::response::Redirect::to(&job_url(&ui, &job.id)).into_response()
        }
        None => super::not_found_page(&ui),
    }
}

/// A run's progress as server-sent events: `progress` with the battles played, as they go, and
/// `done` once it is over (the page then shows what it found).
pub(super) async fn job_events(
    axum::extract::State(st): axum::extract::State<std::sync::Arc<crate::AppState>>,
    ui: Ui,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> axum::response::Response {
    use crate::simulations::Status;
    use axum::response::sse::{Event, KeepAlive, Sse};
    use axum::response::IntoResponse;
    let Some(job) = st.simulations.get(&id) else {
        return super::not_found_page(&ui);
    };
    let rx = job.tick.subscribe();
    let keep_alive = crate::conn::keep_alive_every(st.limits.idle_timeout);
    let s = futures_util::stream::unfold((job, rx, false), |(job, mut rx, over)| async move {
        if over {
            return None;
        }
        // Each battle, or the end, wakes it; a page that misses some sees the latest count.
        let running = matches!(job.status(), Status::Waiting | Status::Running);
        if running && rx.changed().await.is_err() {
            return None;
        }
        let ev = if matches!(job.status(), Status::Waiting | Status::Running) {
            Event::default()
                .event("progress")
                .data(job.done().to_string())
        } else {
            Event::default().event("done").data(job.done().to_string())
        };
        let over = ev_is_done(&job);
        Some((Ok::<_, std::convert::Infallible>(ev), (job, rx, over)))
    });
    (
        [("x-accel-buffering", "no")],
        Sse::new(s).keep_alive(KeepAlive::new().interval(keep_alive)),
    )
        .into_response()
}

fn ev_is_done(job: &crate::simulations::Job) -> bool {
    !matches!(
        job.status(),
        crate::simulations::Status::Waiting | crate::simulations::Status::Running
    )
}
