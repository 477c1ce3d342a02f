//! A seat's game page: the heading (and the game master's panel), the scenario's notes, the board
//! and forms its engine describes, the dice and the log; the log's own page.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;
use tercio_core::{LogEntry, Resolution};
use tercio_i18n::keys;
use tercio_rules::game::GameEvent;
use tercio_rules::{registry, report};
use tercio_store::{Role, SideRights};

use super::{dom_id, esc, page, page_live};
use crate::api::{self, ApiError};
use crate::lang::Ui;
use crate::seat::{self, SeatCtx};
use crate::{assets, AppState};

/// A seat's `#main`, the element live updates patch: [`game_main`] in a `<div id="main">` that
/// says which view it is (`data-seq`, the log entries it was drawn from; `data-etag`, the view's
/// version, [`SeatCtx::etag`]).
pub fn seat_main(ctx: &SeatCtx, ui: &Ui, base: &str) -> String {
    format!(
        "<div id=\"main\" data-seq=\"{}\" data-etag=\"{}\">{}</div>",
        ctx.seq(),
        esc(&ctx.etag(ui.lang)),
        game_main(ctx, ui, base)
    )
}

/// The inner HTML of a seat's game page: everything live updates redraw. Every rule set
/// describes its board and actions as data, drawn by [`crate::board`]; around them, the heading,
/// the scenario's notes, the dice and the log.
///
/// Its parts are panels (`data-panel`) behind tabs, so a phone shows the step at hand on its
/// first screen and everything else one tap away: `play` (the turn, the newest result with the
/// game master's undo, the actions), `armies` (the board's tables), `log`, `info` (the
/// scenario's notes, the dice) and, for the game master, `links` (seats, codes, settings). The
/// page's script shows one panel at a time (`body[data-tab]`); without it, all show.
pub fn game_main(ctx: &SeatCtx, ui: &Ui, base: &str) -> String {
    let state = ctx.state();
    let entries = ctx.last_entries(LOG_ON_PAGE).unwrap_or_default();
    let mut b = heading(ctx, ui);
    b.push_str(&tabs(ctx, ui));
    b.push_str(&last_result(ctx, ui, &entries));
    if ctx.is_gm() {
        b.push_str(&seats_panel(ctx, ui, base));
    }
    b.push_str(&scenario_notes(ctx, ui));
    if let Some(board) = ctx.game.engine.board(&state) {
        b.push_str(&crate::board::board_main(ctx, ui, &state, &board));
    }
    b.push_str(&dice_and_log(ctx, ui, &entries));
    b
}

/// The tabs over the page's panels (see [`game_main`]).
fn tabs(ctx: &SeatCtx, ui: &Ui) -> String {
    let mut tabs = vec![
        ("play", keys::WEB_TABS_PLAY),
        ("armies", keys::WEB_TABS_ARMIES),
        ("log", keys::WEB_TABS_LOG),
        ("info", keys::WEB_TABS_INFO),
    ];
    if ctx.is_gm() {
        tabs.push(("links", keys::WEB_TABS_LINKS));
    }
    let mut b = String::from("<nav class=\"tabs\" id=\"tabs\">");
    for (tab, key) in tabs {
        b.push_str(&format!(
            "<button type=\"button\" data-tab=\"{tab}\">{}</button>",
            ui.h(key, &[])
        ));
    }
    b.push_str("</nav>");
    b
}

/// The newest entry of the log, at a glance, above the turn (issue 43, item 5): its outcome in
/// one sentence in large type, the dice drawn as dice, and the steps and modifiers one tap away
/// (the same server rendering as the log's entry, [`render_resolution`]). Nothing to dismiss:
/// every seat's page shows the newest result here, and the next replaces it. A tap on the
/// sentence leads to the entry in the log. `data-undo` says whether the game master's undo (in
/// the page's header, outside the live part) applies now.
fn last_result(ctx: &SeatCtx, ui: &Ui, entries: &[LogEntry<GameEvent>]) -> String {
    let Some(e) = entries.last() else {
        return String::new();
    };
    let undo = ctx.is_gm() && !ctx.ended();
    let v = ctx.entry(e);
    let seq = e.seq();
    let mut b = format!(
        "<section class=\"result\" id=\"last\" data-panel=\"play\" data-seq=\"{seq}\"{}>",
        if undo { " data-undo=\"1\"" } else { "" }
    );
    match v["entry"].as_str() {
        Some("event") => {
            let titles = ctx.game.engine.action_titles();
            let res: Option<Resolution> =
                serde_json::from_value(v["event"]["resolution"].clone()).ok();
            let voided = v["voided"] == true;
            let title = res
                .as_ref()
                .map_or_else(String::new, |r| super::action_title(&titles, &r.action));
            b.push_str(&format!(
                "<a class=\"to-log{}\" href=\"#e-{seq}\" id=\"last-line\"><span class=\"what\">{}</span><strong class=\"outcome\">{}</strong>{}</a>",
                if voided { " voided" } else { "" },
                ui.e(&title),
                ui.e(res.as_ref().map_or("", |r| r.summary.as_str())),
                if voided {
                    format!(
                        "<span class=\"what\">{}</span>",
                        ui.h(keys::WEB_LOG_VOIDED, &[])
                    )
                } else {
                    String::new()
                }
            ));
            let rolled = |r: &Resolution| r.steps.iter().any(|s| !s.dice.is_empty());
            // A step that rolled nothing (a card the page drew by itself after a move) does not
            // hide the result before it: that one's outcome stays in a line under it, the
            // sentence the table acts on (issue 43, item 5).
            if !voided && res.as_ref().is_some_and(|r| !rolled(r)) {
                if let Some(p) = entries.len().checked_sub(2).map(|i| &entries[i]) {
                    let pv = ctx.entry(p);
                    let before: Option<Resolution> =
                        serde_json::from_value(pv["event"]["resolution"].clone()).ok();
                    if let Some(r) = before
                        .as_ref()
                        .filter(|r| pv["voided"] != true && rolled(r))
                    {
                        b.push_str(&format!(
                            "<a class=\"to-log before\" href=\"#e-{}\" id=\"last-before\"><span class=\"what\">{}</span><span class=\"outcome-before\">{}</span></a>",
                            p.seq(),
                            ui.e(&super::action_title(&titles, &r.action)),
                            ui.e(&r.summary)
                        ));
                    }
                }
            }
            if let Some(r) = res.as_ref().filter(|r| rolled(r)) {
                b.push_str(&dice_row(ui, r));
                // The steps and modifiers, one tap away, fetched when opened ([`entry_steps`]).
                b.push_str(&format!(
                    "<details class=\"steps\" id=\"last-steps\" data-entry=\"{seq}\"><summary>{}</summary></details>",
                    ui.h(keys::SHELL_RESULT_DETAILS, &[])
                ));
            }
        }
        Some("void") => b.push_str(&format!(
            "<a class=\"to-log\" href=\"#e-{seq}\" id=\"last-line\"><strong class=\"outcome\">{}</strong></a>",
            ui.h(keys::WEB_LOG_VOID, &[("seq", &v["voids"].to_string())])
        )),
        _ => b.push_str(&format!(
            "<a class=\"to-log\" href=\"#e-{seq}\" id=\"last-line\"><strong class=\"outcome\">{}</strong></a>",
            ui.h(keys::WEB_LOG_HIDDEN, &[])
        )),
    }
    b.push_str("</section>");
    b
}

/// The most dice the newest result draws (two rows of a phone's width, with their labels).
const DICE_SHOWN: usize = 8;

/// A resolution's dice drawn as dice: each step's faces as squares, a step's dice together, its
/// label (the unit, or the step) before them; a die other than a six-sided one says its sides.
/// A die whose label ends with what its face shows ("Battle die 2 (Sabres)", a symbol die) has
/// that under it, so that a row of symbol dice shares one label and fits a phone's width.
/// At most [`DICE_SHOWN`] dice are drawn, then how many more ("+12"): the dice of a big volley
/// are in the steps, one tap away, and the next step stays on a phone's first screen.
fn dice_row(ui: &Ui, r: &Resolution) -> String {
    let mut b = String::from("<div class=\"dice-row\">");
    let mut shown = 0;
    let total: usize = r.steps.iter().map(|s| s.dice.len()).sum();
    for step in r.steps.iter().filter(|s| !s.dice.is_empty()) {
        let mut label = String::new();
        for d in &step.dice {
            if shown == DICE_SHOWN {
                break;
            }
            shown += 1;
            let whole = ui.loc(&d.label);
            let (l, shows) = match whole.strip_suffix(')').and_then(|x| x.rsplit_once(" (")) {
                Some((l, shows)) if !shows.is_empty() => (l.to_string(), Some(shows.to_string())),
                _ => (whole, None),
            };
            let stem = match l.rsplit_once(' ') {
                Some((s, n)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => {
                    s.to_string()
                }
                _ => l,
            };
            if stem != label {
                b.push_str(&format!(
                    "<span class=\"die-label\">{}</span>",
                    esc(if stem.is_empty() { "" } else { &stem })
                ));
                label = stem;
            }
            let die = format!(
                "<span class=\"die d{sides}\" title=\"d{sides}\">{}</span>",
                d.face,
                sides = d.sides
            );
            match shows {
                Some(shows) => b.push_str(&format!(
                    "<span class=\"die-shows\">{die}<small>{}</small></span>",
                    esc(&shows)
                )),
                None => b.push_str(&die),
            }
        }
    }
    if total > shown {
        b.push_str(&format!(
            "<span class=\"more-dice\">+{}</span>",
            total - shown
        ));
    }
    b.push_str("</div>");
    b
}

/// The top of every seat's page: the title line (rule set, who you are) and what this seat may
/// do. (The rule set's reference is linked from the `info` panel, [`dice_and_log`].)
fn heading(ctx: &SeatCtx, ui: &Ui) -> String {
    let g = &ctx.game;
    let rules = registry::lookup(&g.ruleset).ok();
    let b = format!(
        "<h1 id=\"title\">{}</h1><p class=\"muted\" id=\"subtitle\">{} · <span class=\"seat\">{}</span></p>",
        esc(g.scenario.title.get(ui.lang)),
        ui.e(&rules.map_or_else(|| g.ruleset.clone(), |r| r.title())),
        ui.html(
            keys::WEB_GAME_YOU_ARE_HTML,
            &[("seat", &ui.loc(&ctx.seat_label()))]
        )
    );
    format!(
        "{b}<p id=\"part\" class=\"part\">{}</p>",
        ui.h(part_key(ctx), &[])
    )
}

/// What this seat may do (issue 43, item 8): the game master resolves every action; a side
/// watches, or resolves its own units' actions when the game master allows it; a spectator
/// watches.
fn part_key(ctx: &SeatCtx) -> &'static str {
    match &ctx.seat.role {
        Role::GameMaster => keys::SHELL_PART_GAME_MASTER,
        Role::Side(_) if ctx.game.meta.settings.side_rights == SideRights::OwnUnits => {
            keys::SHELL_PART_OWN_UNITS
        }
        Role::Side(_) => keys::SHELL_PART_WATCH,
        Role::Spectator => keys::SHELL_PART_SPECTATOR,
    }
}

/// The scenario's notes (deployment, terrain, obstacles, special rules) and its sources, for
/// every seat, in the page's `info` panel. The
/// notes are the scenario's own text, escaped: a paragraph per blank-line-separated block, its
/// lines (a "- " list) kept as written.
pub(crate) fn scenario_notes_body(ctx: &SeatCtx, ui: &Ui) -> Option<String> {
    let sc = &ctx.game.scenario;
    let mut paragraphs: Vec<Vec<&str>> = vec![Vec::new()];
    for line in sc.notes.as_ref().map_or("", |n| n.get(ui.lang)).lines() {
        if line.trim().is_empty() {
            paragraphs.push(Vec::new());
        } else if let Some(p) = paragraphs.last_mut() {
            p.push(line.trim_end());
        }
    }
    paragraphs.retain(|p| !p.is_empty());
    let sources: Vec<&String> = sc.sources.iter().filter(|s| !s.trim().is_empty()).collect();
    if paragraphs.is_empty() && sources.is_empty() {
        return None;
    }
    let mut b = String::new();
    for p in &paragraphs {
        b.push_str(&format!("<p>{}</p>", esc(&p.join("\n"))));
    }
    if !sources.is_empty() {
        b.push_str(&format!(
            "<h3>{}</h3><ul class=\"sources\">",
            ui.h(keys::WEB_GAME_SOURCES, &[])
        ));
        for s in sources {
            b.push_str(&format!("<li>{}</li>", esc(s)));
        }
        b.push_str("</ul>");
    }
    Some(b)
}

/// The scenario's notes on the page: their title, the notes fetched when it is opened
/// ([`scenario_notes_body`], `GET /api/s/{token}/notes`): they never change, and were a tenth of
/// a page.
fn scenario_notes(ctx: &SeatCtx, ui: &Ui) -> String {
    if scenario_notes_body(ctx, ui).is_none() {
        return String::new();
    }
    format!(
        "<section class=\"scenario-notes\" id=\"scenario-notes\" data-panel=\"info\"><details data-notes=\"1\"><summary><h2>{}</h2></summary></details></section>",
        ui.h(keys::WEB_GAME_NOTES, &[])
    )
}

/// The verdict of a decided battle ("Game over. …", in the page's language) and, until the game
/// master has ended the game, what happens next: the game master is asked to end it (or undo a
/// mistaken last action), the others are told it is coming.
pub(crate) fn game_over(ctx: &SeatCtx, ui: &Ui, verdict: &str) -> String {
    let mut b = format!("<span class=\"verdict\">{}</span>", esc(verdict));
    if !ctx.ended() {
        if ctx.is_gm() {
            b.push_str(&format!(
                "<p id=\"decided\" class=\"notice\">{}</p>",
                ui.html(keys::WEB_GAME_DECIDED_GM_HTML, &[])
            ));
        } else {
            b.push_str(&format!(
                "<p id=\"decided\" class=\"muted\">{}</p>",
                ui.h(keys::WEB_GAME_DECIDED_OTHER, &[])
            ));
        }
    }
    b
}

/// The bottom of every seat's page: the dice (commitment, the seed once revealed, the reports)
/// and the log with the game master's undo.
fn dice_and_log(ctx: &SeatCtx, ui: &Ui, entries: &[LogEntry<GameEvent>]) -> String {
    let g = &ctx.game;
    let mut b = String::new();
    // Dice: the commitment, the seed once the game has ended, the reports.
    let dice = ctx.dice_json();
    b.push_str(&format!(
        "<section class=\"dice\" id=\"dice\" data-panel=\"info\"><h2>{}</h2><p>{}</p>",
        ui.h(keys::WEB_DICE_HEADING, &[]),
        ui.html(
            keys::WEB_DICE_COMMITMENT_HTML,
            &[("commitment", dice["commitment"].as_str().unwrap_or(""))]
        )
    ));
    match ctx.revealed_seed() {
        Some((seed, nonce)) => b.push_str(&format!(
            "<p id=\"revealed\">{}</p>",
            ui.html(
                keys::WEB_DICE_REVEALED_HTML,
                &[("seed", &seed.to_string()), ("nonce", nonce)]
            )
        )),
        None => b.push_str(&format!(
            "<p class=\"muted\">{}</p>",
            ui.h(keys::WEB_DICE_HIDDEN, &[])
        )),
    }
    let fingerprint = match ctx.fingerprint() {
        Some(digest) => ui.html(
            keys::WEB_DICE_FINGERPRINT_HTML,
            &[("count", &ctx.seq().to_string()), ("digest", digest)],
        ),
        None => ui.h(keys::WEB_DICE_FINGERPRINT_LATER, &[]),
    };
    b.push_str(&format!(
        "<p class=\"muted\" id=\"fingerprint\">{fingerprint}</p>"
    ));
    if ctx.game.meta.settings.physical_dice {
        b.push_str(&format!(
            "<p class=\"muted\"><span id=\"physical\" hidden></span>{}</p>",
            ui.h(keys::WEB_DICE_PHYSICAL, &[])
        ));
    }
    b.push_str(&format!(
        "<p><a href=\"/rules/{}\">{}</a></p>",
        esc(&g.ruleset),
        ui.h(keys::WEB_GAME_RULES_LINK, &[])
    ));
    b.push_str(&format!(
        "<p><a href=\"/s/{t}/dice\">{}</a> · <a href=\"/s/{t}/report.md\">{}</a> · <a href=\"/api/s/{t}/export\" download>{}</a></p></section>",
        ui.h(keys::WEB_DICE_REPORT, &[]),
        ui.h(keys::WEB_DICE_BATTLE_REPORT, &[]),
        ui.h(keys::WEB_DICE_EXPORT, &[]),
        t = esc(&ctx.seat.token)
    ));

    // Log.
    b.push_str(&format!(
        "<section class=\"log\" id=\"log\" data-panel=\"log\"><h2>{}</h2>{}</section>",
        ui.h(keys::WEB_LOG_HEADING, &[]),
        log_html(ctx, ui, entries)
    ));
    if g.seq > LOG_ON_PAGE {
        b.push_str(&format!(
            "<p id=\"log-whole\" data-panel=\"log\"><a href=\"/s/{}/log\">{}</a></p>",
            esc(&ctx.seat.token),
            ui.h(keys::WEB_LOG_WHOLE, &[("count", &g.seq.to_string())])
        ));
    }
    b
}

/// The game master's panel: each seat's link with its QR code, new links, the settings, ending
/// the game.
fn seats_panel(ctx: &SeatCtx, ui: &Ui, base: &str) -> String {
    let links = ctx.seats().iter().map(|seat| {
        let (role, side, name) = match &seat.role {
            Role::GameMaster => (
                "game-master",
                "",
                ui.t(keys::WEB_SEATS_GAME_MASTER_YOU, &[]),
            ),
            Role::Side(id) => (
                "side",
                id.as_str(),
                ctx.game
                    .scenario
                    .side(id)
                    .map_or(id.clone(), |x| x.name.get(ui.lang).to_string()),
            ),
            Role::Spectator => ("spectator", "", ui.t(keys::WEB_SEATS_SPECTATORS, &[])),
        };
        (role, side, name, format!("{base}/s/{}", seat.token))
    });
    let mut b = format!(
        "<section class=\"seats\" id=\"seats\" data-panel=\"links\"><h2>{}</h2><p class=\"muted\">{}</p><div class=\"links\">",
        ui.h(keys::WEB_SEATS_HEADING, &[]),
        ui.html(keys::WEB_SEATS_INTRO_HTML, &[])
    );
    let mut own = String::new();
    for (role, side, name, url) in links {
        let field = format!(
            "<input class=\"url\" readonly value=\"{}\" aria-label=\"{}\"><button class=\"small reissue\" data-role=\"{role}\" data-side=\"{}\">{}</button>",
            esc(&url),
            ui.h(keys::WEB_SEATS_LINK_FOR, &[("name", &name)]),
            esc(side),
            ui.h(keys::WEB_SEATS_NEW_LINK, &[])
        );
        if role == "game-master" {
            // No code for the game master's own link: a player scanning the screen would get
            // the game master's controls.
            own = format!(
                "<details class=\"own\" id=\"own-link\"><summary>{}</summary><div class=\"link\" id=\"link-game-master\" data-role=\"game-master\">{field}</div></details>",
                ui.h(keys::WEB_SEATS_OWN_LINK, &[])
            );
            continue;
        }
        // The code is an image fetched when the panel is first shown (`loading="lazy"` in a
        // hidden panel): about 4 KB a link, a third of the game master's page weight at
        // Cerignola, not sent with every page (issue 43, item 10). Its address changes with the
        // link, so a new link's code is fetched anew.
        let mut q = format!("role={role}");
        if !side.is_empty() {
            q.push_str(&format!("&side={side}"));
        }
        let n = crate::qr::side(&url);
        let src = format!(
            "/api/s/{}/qr?{q}&v={:08x}",
            ctx.seat.token,
            crate::lists::fnv(&url)
        );
        let qr = format!(
            "<img src=\"{}\" width=\"{n}\" height=\"{n}\" loading=\"lazy\" alt=\"\">",
            esc(&src)
        );
        b.push_str(&format!(
            "<div class=\"link\" id=\"{}\" data-role=\"{role}\" data-side=\"{}\"><h3>{}</h3><div class=\"qr\">{qr}</div>{field}</div>",
            esc(&if side.is_empty() {
                format!("link-{role}")
            } else {
                dom_id("link-side", side)
            }),
            esc(side),
            esc(&name)
        ));
    }
    b.push_str("</div>");
    b.push_str(&own);
    let st = &ctx.game.meta.settings;
    let sel = |on: bool| if on { " selected" } else { "" };
    b.push_str(&format!(
        "<h3>{}</h3><div class=\"fields\"><label>{} <select id=\"side-rights\" data-server><option value=\"watch\"{}>{}</option><option value=\"own-units\"{}>{}</option></select></label><label class=\"check\"><input type=\"checkbox\" id=\"physical-dice\" data-server{}> {}</label></div>",
        ui.h(keys::WEB_SEATS_SETTINGS, &[]),
        ui.h(keys::WEB_SEATS_RIGHTS, &[]),
        sel(st.side_rights == SideRights::Watch),
        ui.h(keys::WEB_SEATS_WATCH, &[]),
        sel(st.side_rights == SideRights::OwnUnits),
        ui.h(keys::WEB_SEATS_OWN_UNITS, &[]),
        if st.physical_dice { " checked" } else { "" },
        ui.h(keys::WEB_SEATS_PHYSICAL, &[])
    ));
    if !ctx.ended() {
        b.push_str(&format!(
            "<p><button class=\"danger\" id=\"conclude\">{}</button> <span class=\"muted\">{}</span></p>",
            ui.h(keys::WEB_SEATS_CONCLUDE, &[]),
            ui.h(keys::WEB_SEATS_CONCLUDE_NOTE, &[])
        ));
    }
    b.push_str("</section>");
    b
}

/// How many log entries the game page shows (newest first); the rest are on the log page, so the
/// game page stays small however long the battle.
const LOG_ON_PAGE: u64 = 25;

/// The rule set's action titles in the page's language, for the script's result boxes.
fn titles_json(ctx: &SeatCtx, ui: &Ui) -> String {
    let m: serde_json::Map<String, serde_json::Value> = ctx
        .game
        .engine
        .action_titles()
        .into_iter()
        .map(|(id, t)| (id, serde_json::Value::String(ui.loc(&t))))
        .collect();
    serde_json::Value::Object(m)
        .to_string()
        .replace('<', "\\u003c")
}

/// A resolution as the log shows it under its entry's line (which says the action and the
/// outcome), in the page's language: each step with its dice, modifiers (their sources one tap
/// away, [`sources_html`]), totals and result. The words are the catalogue's; everything the
/// engine wrote goes through [`Ui::loc`].
fn render_resolution(ui: &Ui, r: &Resolution) -> String {
    let mut s = String::new();
    for (i, step) in r.steps.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str(&format!("{}\n", ui.loc(&step.title)));
        for line in dice_lines(ui, &step.dice, &step.title) {
            s.push_str(&format!("    {line}\n"));
        }
        for m in &step.modifiers {
            s.push_str(&format!(
                "    {:<9} {}\n",
                format!("{}:", ui.loc(&m.side)),
                tercio_core::modifier_text(&ui.loc(&m.name), m.value)
            ));
        }
        if !step.totals.is_empty() {
            let t: Vec<String> = step
                .totals
                .iter()
                .map(|(n, v)| format!("{} {v}", ui.loc(n)))
                .collect();
            s.push_str(&format!(
                "    {:<10} {}\n",
                ui.t(keys::SHELL_RESULT_TOTALS, &[]),
                t.join(", ")
            ));
        }
        s.push_str(&format!(
            "    {:<10} {}\n",
            ui.t(keys::SHELL_RESULT_RESULT, &[]),
            ui.loc(&step.result)
        ));
    }
    s
}

/// A step's dice, a line per unit (or purpose) rather than per die, as the result box shows
/// them (`game.js`'s `diceGroups`): consecutive dice with the same label, less a die's number
/// ("Swiss 2"), and the same sides go together ("Swiss: 3 dice → 3, 5, 6").
fn dice_lines(ui: &Ui, dice: &[tercio_core::RolledDie], title: &str) -> Vec<String> {
    let mut groups: Vec<(String, u8, Vec<String>)> = Vec::new();
    for d in dice {
        let label = ui.loc(&d.label);
        let stem = match label.rsplit_once(' ') {
            Some((s, n)) if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => s.to_string(),
            _ => label.clone(),
        };
        match groups.last_mut() {
            Some((st, sides, faces)) if *st == stem && *sides == d.sides => {
                faces.push(d.face.to_string())
            }
            _ => groups.push((stem, d.sides, vec![d.face.to_string()])),
        }
    }
    groups
        .into_iter()
        .map(|(stem, sides, faces)| {
            let key = if faces.len() == 1 {
                keys::SHELL_RESULT_DICE_GROUP_ONE
            } else {
                keys::SHELL_RESULT_DICE_GROUP_OTHER
            };
            let sides = if sides == 6 {
                String::new()
            } else {
                format!(" (d{sides})")
            };
            let label = if stem.is_empty() { ui.loc(title) } else { stem };
            ui.t(
                key,
                &[
                    ("label", &label),
                    ("count", &faces.len().to_string()),
                    ("sides", &sides),
                    ("faces", &faces.join(", ")),
                ],
            )
        })
        .collect()
}

/// Where each modifier of a resolution comes from, one tap away under its entry rather than
/// inline: each modifier's name once, with its rule's citation.
fn sources_html(ui: &Ui, r: &Resolution) -> String {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for m in r.steps.iter().flat_map(|s| &s.modifiers) {
        if !m.source.is_empty() && !seen.contains(&(m.name.as_str(), m.source.as_str())) {
            seen.push((&m.name, &m.source));
        }
    }
    if seen.is_empty() {
        return String::new();
    }
    let items: String = seen
        .iter()
        .map(|(n, src)| format!("<li>{}: {}</li>", ui.e(n), ui.e(src)))
        .collect();
    format!(
        "<details class=\"sources\"><summary>{}</summary><ul>{items}</ul></details>",
        ui.h(keys::WEB_LOG_SOURCES, &[])
    )
}

/// The steps and modifiers of log entry `e` as the seat may see it (its resolution as text, and
/// where each modifier comes from), which the log and the newest result show when opened: the
/// page's script fetches them then (`GET /api/s/{token}/entry`). `None`: an entry without a
/// resolution this seat may read (a void, a hidden entry).
pub(crate) fn entry_steps(ctx: &SeatCtx, ui: &Ui, e: &LogEntry<GameEvent>) -> Option<String> {
    let v = ctx.entry(e);
    if v["entry"].as_str() != Some("event") {
        return None;
    }
    let r: Resolution = serde_json::from_value(v["event"]["resolution"].clone()).ok()?;
    Some(format!(
        "<pre>{}</pre>{}",
        esc(&render_resolution(ui, &r)),
        sources_html(ui, &r)
    ))
}

/// The log entries `entries` (oldest first), newest first, as the seat may see them.
/// The log's entries, newest first.
fn log_html(ctx: &SeatCtx, ui: &Ui, entries: &[LogEntry<GameEvent>]) -> String {
    let titles = ctx.game.engine.action_titles();
    let mut b = String::from("<ul id=\"log-list\">");
    for e in entries.iter().rev() {
        let v = ctx.entry(e);
        let seq = e.seq();
        match v["entry"].as_str() {
            Some("event") => {
                let voided = v["voided"] == true;
                let res: Option<Resolution> =
                    serde_json::from_value(v["event"]["resolution"].clone()).ok();
                let title = res
                    .as_ref()
                    .map_or_else(String::new, |r| super::action_title(&titles, &r.action));
                let mut entered = if v["event"]["entered"] == true {
                    format!(
                        " <span class=\"muted\">{}</span>",
                        ui.h(keys::WEB_LOG_AT_TABLE, &[])
                    )
                } else {
                    String::new()
                };
                if let Some(by) = v["event"]["by"].as_str().filter(|b| *b != "game-master") {
                    entered.push_str(&format!(
                        " <span class=\"muted\">{}</span>",
                        ui.h(
                            keys::WEB_LOG_BY,
                            &[(
                                "seat",
                                &ui.loc(&report::seat_name(&ctx.game.scenario, by))
                            )]
                        )
                    ));
                }
                let line = format!(
                    "<span class=\"seq\">#{seq}</span> {}: {}{}{entered}",
                    ui.e(&title),
                    ui.e(res.as_ref().map_or("", |r| r.summary.as_str())),
                    if voided {
                        ui.h(keys::WEB_LOG_VOIDED, &[])
                    } else {
                        String::new()
                    }
                );
                // Its steps and modifiers fetched when it is opened ([`entry_steps`]): they were
                // most of a page's log, which holds the last 25 entries.
                b.push_str(&format!(
                    "<li class=\"{}\" id=\"e-{seq}\" data-seq=\"{seq}\"><details data-entry=\"{seq}\"><summary id=\"e-{seq}-s\">{line}</summary></details></li>",
                    if voided { "voided" } else { "" },
                ));
            }
            Some("void") => b.push_str(&format!(
                "<li class=\"void muted\" id=\"e-{seq}\" data-seq=\"{seq}\"><span class=\"seq\">#{seq}</span> {}</li>",
                ui.h(keys::WEB_LOG_VOID, &[("seq", &v["voids"].to_string())])
            )),
            _ => b.push_str(&format!(
                "<li class=\"muted\" id=\"e-{seq}\" data-seq=\"{seq}\"><span class=\"seq\">#{seq}</span> {}</li>",
                ui.h(keys::WEB_LOG_HIDDEN, &[])
            )),
        }
    }
    b.push_str("</ul>");
    b
}

/// A seat's page, or (`?part=main`) just the part live updates redraw.
pub(super) async fn seat_page(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(token): Path<String>,
    crate::api::Params(q): crate::api::Params<PartQuery>,
    headers: HeaderMap,
) -> Response {
    let base = api::base_url(&st, &headers);
    let ctx = match seat::open(&st, &token).await {
        Ok(c) => c,
        Err(e) => return link_problem(&ui, &e),
    };
    let ui2 = ui.clone();
    let (ctx, main) = match api::blocking(move || {
        let main = seat_main(&ctx, &ui2, &base);
        Ok((ctx, main))
    })
    .await
    {
        Ok(x) => x,
        Err(e) => return link_problem(&ui, &e),
    };
    if q.part.as_deref() == Some("main") {
        return ([(header::CACHE_CONTROL, "no-store")], Html(main)).into_response();
    }
    let body = format!(
        "<p id=\"notice\" class=\"notice\" role=\"status\" hidden></p>{main}<div id=\"dice-box\" class=\"dice-sheet\" role=\"group\" hidden><form id=\"dice-form\"><h3>{throw}</h3><p class=\"muted\" id=\"dice-so-far\"></p><div id=\"dice-inputs\"></div><p class=\"error\" id=\"dice-error\"></p><button class=\"primary\" id=\"dice-ok\">{next}</button> <button type=\"button\" id=\"dice-cancel\">{cancel}</button></form></div><script type=\"application/json\" id=\"tercio-i18n\">{strings}</script><script type=\"application/json\" id=\"tercio-seat\">{{\"seat\": \"{tok}\", \"by\": \"{by}\", \"titles\": {titles}}}</script><script src=\"{js}\"></script>",
        throw = ui.h(keys::WEB_DIALOG_THROW, &[]),
        next = ui.h(keys::WEB_DIALOG_NEXT, &[]),
        cancel = ui.h(keys::WEB_DIALOG_CANCEL, &[]),
        strings = ui.script_strings(),
        tok = esc(&ctx.seat.token),
        by = esc(&ctx.signature()),
        titles = titles_json(&ctx, &ui),
        js = assets::js()
    );
    (
        [(header::CACHE_CONTROL, "no-store")],
        page_live(
            &ui,
            ctx.game.scenario.title.get(ui.lang),
            &body,
            ctx.is_gm(),
        ),
    )
        .into_response()
}

#[derive(Deserialize)]
pub(super) struct PartQuery {
    part: Option<String>,
}

/// The page for a seat link that cannot be opened: 404 for a link that opens nothing; for
/// anything else (the store cannot be reached, or cannot confirm the link), 503 and the error
/// page.
pub(super) fn link_problem(ui: &Ui, e: &ApiError) -> Response {
    if e.code() != "no-such-link" {
        return super::error_page(ui, StatusCode::SERVICE_UNAVAILABLE, e);
    }
    (
        StatusCode::NOT_FOUND,
        page(
            ui,
            &ui.t(keys::WEB_SEAT_LINK_TITLE, &[]),
            &format!(
                "<h1>{}</h1><p>{}</p>",
                ui.h(keys::WEB_SEAT_NO_GAME, &[]),
                ui.e(e.message())
            ),
        ),
    )
        .into_response()
}

pub(super) async fn seat_log_page(
    State(st): State<Arc<AppState>>,
    ui: Ui,
    Path(token): Path<String>,
) -> Response {
    let ctx = match seat::open(&st, &token).await {
        Ok(c) => c,
        Err(e) => return link_problem(&ui, &e),
    };
    let (ctx, game) = match api::blocking(move || {
        let g = ctx.full_game()?;
        Ok((ctx, g))
    })
    .await
    {
        Ok(x) => x,
        Err(e) => return link_problem(&ui, &e),
    };
    let body = format!(
        "<h1>{}</h1><p><a href=\"/s/{}\">{}</a></p><section class=\"log\">{}</section>",
        ui.h(
            keys::WEB_LOG_PAGE_TITLE,
            &[("title", ctx.game.scenario.title.get(ui.lang))]
        ),
        esc(&ctx.seat.token),
        ui.h(keys::WEB_NAV_BACK_TO_GAME, &[]),
        log_html(&ctx, &ui, game.log.entries())
    );
    page(&ui, ctx.game.scenario.title.get(ui.lang), &body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Symbol dice share one label, each with what it shows under it; past [`DICE_SHOWN`], the
    /// row says how many more.
    #[test]
    fn the_newest_results_dice_share_a_label_and_say_how_many_more() {
        let die = |label: &str, face: u8| tercio_core::explain::RolledDie {
            label: label.into(),
            sides: 6,
            face,
        };
        let step = |dice: Vec<tercio_core::explain::RolledDie>| tercio_core::explain::Step {
            title: "Battle".into(),
            dice,
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: String::new(),
        };
        let r = Resolution {
            action: "battle".into(),
            summary: String::new(),
            steps: vec![
                step(vec![
                    die("Battle die 1 (Sabres)", 5),
                    die("Battle die 2 (Flag)", 6),
                ]),
                step((1..=9).map(|i| die(&format!("Fire die {i}"), 2)).collect()),
            ],
        };
        let h = dice_row(&Ui::new(tercio_i18n::Lang::En, "/"), &r);
        assert!(
            h.starts_with("<div class=\"dice-row\"><span class=\"die-label\">Battle die</span><span class=\"die-shows\"><span class=\"die d6\" title=\"d6\">5</span><small>Sabres</small></span><span class=\"die-shows\"><span class=\"die d6\" title=\"d6\">6</span><small>Flag</small></span><span class=\"die-label\">Fire die</span>"),
            "{h}"
        );
        assert_eq!(h.matches("class=\"die d6\"").count(), DICE_SHOWN, "{h}");
        assert!(
            h.ends_with("<span class=\"more-dice\">+3</span></div>"),
            "{h}"
        );
    }
}
