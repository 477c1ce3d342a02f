//! The generic seat page, for rule sets that describe their game as data
//! ([`tercio_rules::Engine::board`] and [`tercio_rules::Engine::forms`]): the board's headline and
//! notes, each action that can be taken now as a form, and the board's tables. The shell knows
//! nothing of the rule set: every label, option and cell comes from the engine and goes through
//! [`Ui::e`] (its language-neutral messages rendered in the page's language, then escaped); only
//! values sent back to the engine (actions, field names, option values) stay as the engine wrote
//! them.
//!
//! A form is `<form class="action-form" data-action="…" data-odds="1|0">` with one input per
//! field, named by the field's name; the page's script builds the action's JSON from it as the
//! engine describes (`{"action": …, field: value…}`) and sends it, showing the exact odds as the
//! fields change when the form asks for them.

use std::collections::HashSet;

use serde_json::Value;
use tercio_i18n::keys;
use tercio_rules::{ActionForm, Board, BoardTable, FieldKind, FormField};

use crate::lang::Ui;
use crate::pages::{esc, game_over};
use crate::seat::SeatCtx;

/// The board and the forms: the part of the page between the heading and the dice.
pub(crate) fn board_main(ctx: &SeatCtx, ui: &Ui, state: &Value, board: &Board) -> String {
    let mut b = String::from("<section class=\"turn\" id=\"turn\" data-panel=\"play\">");
    if ctx.game.engine.is_over(state) {
        // A decided battle's headline is its verdict (the older rule sets' headlines already
        // say "Game over" in English).
        let headline = ui.loc(&board.headline);
        let verdict = if board.headline.starts_with("Game over") {
            headline
        } else {
            ui.t(keys::WEB_GAME_OVER, &[("verdict", &headline)])
        };
        b.push_str(&game_over(ctx, ui, &verdict));
    } else {
        b.push_str(&format!(
            "<strong id=\"headline\">{}</strong>",
            ui.e(&board.headline)
        ));
    }
    if !board.notes.is_empty() {
        b.push_str("<ul class=\"notes\" id=\"notes\">");
        for n in &board.notes {
            b.push_str(&format!("<li>{}</li>", ui.e(n)));
        }
        b.push_str("</ul>");
    }
    b.push_str("</section>");
    // The secret tables are drawn with the forms, behind their prompts.
    // Each list of choices sent once ([`crate::lists`]).
    b.push_str(&crate::lists::shared(&forms_html(
        ui,
        &seat_forms(ctx, state),
        &board.tables,
    )));
    b.push_str("<section class=\"state board\" id=\"board\" data-panel=\"armies\">");
    for (i, t) in board
        .tables
        .iter()
        .filter(|t| t.reveal.is_none())
        .enumerate()
    {
        b.push_str(&table_html(ui, t, &format!("board-t{i}")));
    }
    b.push_str("</section>");
    b
}

/// One table of the board or of a rule set's reference, its title as a heading. Its body's id is
/// `id` and each row's is `id` and the row's first cell (as the engine wrote it, hashed: a unit's
/// name, the same from one turn to the next), so a live patch replaces only the rows that change.
pub(crate) fn table_html(ui: &Ui, t: &BoardTable, id: &str) -> String {
    // The title, the table and its columns carry ids, so that a live patch changes them alone
    // (an army's losses in its title, a table added) rather than every table beside them.
    let id = esc(id);
    let mut b = format!(
        "<h3 id=\"{id}-h\">{}</h3><div class=\"scroll\" id=\"{id}-s\"><table class=\"board\"><thead><tr id=\"{id}-c\">",
        ui.e(&t.title)
    );
    for c in &t.columns {
        b.push_str(&format!("<th>{}</th>", ui.e(c)));
    }
    b.push_str(&format!("</tr></thead><tbody id=\"{id}\">"));
    let mut used = HashSet::new();
    for row in &t.rows {
        let key = row.first().map_or("", String::as_str);
        let mut row_id = format!("{id}-{:08x}", fnv(key));
        let mut n = 1;
        while !used.insert(row_id.clone()) {
            n += 1;
            row_id = format!("{id}-{:08x}-{n}", fnv(key));
        }
        b.push_str(&format!("<tr id=\"{row_id}\">"));
        // Each cell but the first names its column, for a phone's card layout (app.css).
        for (i, cell) in row.iter().enumerate() {
            match t.columns.get(i).filter(|_| i > 0) {
                Some(c) => b.push_str(&format!(
                    "<td data-label=\"{}\">{}</td>",
                    ui.e(c),
                    ui.e(cell)
                )),
                None => b.push_str(&format!("<td>{}</td>", ui.e(cell))),
            }
        }
        b.push_str("</tr>");
    }
    b.push_str("</tbody></table></div>");
    b
}

/// A short, stable hash of a text (32-bit FNV-1a), for ids made from engine text.
fn fnv(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// A number in base 36 (digits and lower-case letters): a short id.
fn base36(mut n: u32) -> String {
    let mut d = Vec::new();
    loop {
        d.push(char::from_digit(n % 36, 36).unwrap_or('0'));
        n /= 36;
        if n == 0 {
            break;
        }
    }
    d.iter().rev().collect()
}

/// The actions this seat may take now: every action for the game master, a side's own for a
/// side allowed to resolve them, none for a spectator, a watching side, or once the game has
/// ended.
pub(crate) fn seat_forms(ctx: &SeatCtx, state: &Value) -> Vec<ActionForm> {
    if !ctx.may_act() {
        return Vec::new();
    }
    let mut forms = if ctx.is_gm() {
        ctx.game.forms(state, None)
    } else {
        match ctx.side() {
            Some(side) => ctx.game.forms(state, Some(side)),
            None => Vec::new(),
        }
    };
    // A step the page takes by itself (issue 43) waits after an undo: the undone step is back,
    // and taking it again at once would leave the undo nothing to do. The next action taken by
    // hand lets the page go on by itself.
    if ctx.game.seq > 0 && ctx.game.live.last() != Some(&ctx.game.seq) {
        for f in &mut forms {
            f.auto = false;
        }
    }
    forms
}

/// An id fragment from engine text: letters, digits, `-` and `_`; anything else becomes `-`.
fn id_part(s: &str) -> String {
    let p: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if p.is_empty() {
        "x".into()
    } else {
        p
    }
}

/// The ids of the forms on a page, each unique (`f-<action>-<field>`), so a live redraw keeps
/// what the user was choosing.
#[derive(Default)]
struct FormIds {
    used: HashSet<String>,
}

impl FormIds {
    /// The id prefix of form `f`'s fields (its own id is `form-<prefix>`).
    fn prefix(&mut self, f: &ActionForm) -> String {
        // The same action offered twice (or two actions alike once made ids) gets a number.
        let base = format!("f-{}", id_part(&f.action));
        let mut prefix = base.clone();
        let mut n = 1;
        let ids = |prefix: &str| -> Vec<String> {
            std::iter::once(format!("form-{prefix}"))
                .chain(
                    f.fields
                        .iter()
                        .map(|x| format!("{prefix}-{}", id_part(&x.name))),
                )
                .collect()
        };
        while ids(&prefix).iter().any(|id| self.used.contains(id)) {
            n += 1;
            prefix = format!("{base}-{n}");
        }
        self.used.extend(ids(&prefix));
        prefix
    }
}

/// The secrets' prompts, each once, in the order they first appear.
fn first_seen<'a>(prompts: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for p in prompts {
        if !seen.contains(&p) {
            seen.push(p);
        }
    }
    seen
}

/// The forms in the order a page draws them, each with the prefix of its ids: the secrets on a
/// shared device first (by prompt, in the order the prompts first appear), then the others; the
/// turn's next steps first among each, then the actions with something to choose (what a unit
/// may do, tiles two to a row), then those with nothing to fill in (a phase's end, a roll whose
/// odds make it tall: below the choices of the step at hand).
fn drawn_forms(forms: &[ActionForm]) -> Vec<(&ActionForm, String)> {
    let mut ordered: Vec<&ActionForm> = forms.iter().collect();
    ordered.sort_by_key(|f| (!f.primary, f.fields.is_empty()));
    let prompts = first_seen(ordered.iter().filter_map(|f| f.reveal.as_deref()));
    let mut ids = FormIds::default();
    let mut drawn = Vec::new();
    for p in prompts {
        for f in ordered.iter().filter(|f| f.reveal.as_deref() == Some(p)) {
            drawn.push((*f, ids.prefix(f)));
        }
    }
    for f in ordered.iter().filter(|f| f.reveal.is_none()) {
        drawn.push((*f, ids.prefix(f)));
    }
    drawn
}

/// What the rules would refuse of each choice of what acts on the page's forms, by the id of
/// its list (`<select>`) and the choice's value: `why` in the page's language, and `later` when
/// it is refused only until its turn comes while another choice may act (not offered now).
/// The legal choices are not named. game.js draws them (the legal ones first, each refused one
/// with its reason) when the page is drawn or patched: they change as units act, and carried in
/// each choice they made a live patch as big as every list on the page.
///
/// `brief` (the page's own request): a choice whose turn is to come says only `later`, its
/// reason unread (the page hides it), and a list marked as an earlier one is is that list's id
/// (a turn's actions share their list of units): Cerignola's page fetched 19–25 KB of it before
/// its first tap, most of it the same reasons over again.
pub(crate) fn choices_json(ui: &Ui, forms: &[ActionForm], brief: bool) -> Value {
    let mut lists = serde_json::Map::new();
    let mut first: Vec<(String, Value)> = Vec::new();
    for (f, prefix) in drawn_forms(forms) {
        let Some(field) = f.actor_field() else {
            continue;
        };
        let FieldKind::Choice { options, .. } = &field.kind else {
            continue;
        };
        let marked: serde_json::Map<String, Value> = options
            .iter()
            .filter_map(|o| {
                let why = o.refused.as_deref()?;
                let mut m = if brief && o.later {
                    serde_json::json!({})
                } else {
                    serde_json::json!({"why": ui.loc(why)})
                };
                if o.later {
                    m["later"] = Value::Bool(true);
                }
                Some((o.value.clone(), m))
            })
            .collect();
        if !marked.is_empty() {
            let id = format!("{prefix}-{}", id_part(&field.name));
            let marked = Value::Object(marked);
            match first.iter().find(|(_, m)| brief && *m == marked) {
                Some((same, _)) => {
                    lists.insert(id, Value::String(same.clone()));
                }
                None => {
                    first.push((id.clone(), marked.clone()));
                    lists.insert(id, marked);
                }
            }
        }
    }
    Value::Object(lists)
}

/// Every form, the turn's next steps first, each with ids unique on the page. Secrets on a shared
/// device come first: the forms and the tables (of `tables`, those with a `reveal` prompt; the
/// others are the caller's) sharing a prompt are drawn together in one `<details class="reveal">`,
/// closed until tapped, with a button to hide them again. Empty when there is nothing to draw;
/// with secret tables and no form, just the secrets.
pub(crate) fn forms_html(ui: &Ui, forms: &[ActionForm], tables: &[BoardTable]) -> String {
    let secret_tables: Vec<&BoardTable> = tables.iter().filter(|t| t.reveal.is_some()).collect();
    if forms.is_empty() && secret_tables.is_empty() {
        return String::new();
    }
    let drawn = drawn_forms(forms);
    let prompts = first_seen(
        drawn
            .iter()
            .filter_map(|(f, _)| f.reveal.as_deref())
            .chain(secret_tables.iter().filter_map(|t| t.reveal.as_deref())),
    );
    let mut b = if forms.is_empty() {
        "<section class=\"forms secret\" id=\"forms\" data-panel=\"play\">".to_string()
    } else {
        format!(
            "<section class=\"forms\" id=\"forms\" data-panel=\"play\"><h2 id=\"forms-h\">{}</h2>",
            ui.h(keys::WEB_GAME_ACTIONS, &[])
        )
    };
    // Every child of the section has an id, so that a live patch of it is a keyed list: the
    // forms added and dropped, the others patched where they changed (`patch::diff`).
    for (n, p) in prompts.into_iter().enumerate() {
        b.push_str(&format!(
            "<details class=\"reveal\" id=\"reveal-{n}\"><summary>{}</summary>",
            ui.e(p)
        ));
        for (f, prefix) in drawn.iter().filter(|(f, _)| f.reveal.as_deref() == Some(p)) {
            b.push_str(&form_html(ui, f, prefix, true));
        }
        for (i, t) in secret_tables
            .iter()
            .enumerate()
            .filter(|(_, t)| t.reveal.as_deref() == Some(p))
        {
            b.push_str(&table_html(ui, t, &format!("secret-t{i}")));
        }
        b.push_str(&format!(
            "<button type=\"button\" class=\"hide-reveal\">{}</button></details>",
            ui.h(keys::WEB_GAME_HIDE, &[])
        ));
    }
    // The turn's next step drawn open; any other action with fields is folded, one tap from its
    // fields (one open at a time), so the step at hand is on the first screen of a phone. A
    // folded action's form is not in the page (issue 43, item 10: they were two thirds of it):
    // the page's script fetches it when it is opened ([`folded_form`]), and the hash of its
    // HTML (`data-form`) changes with it, so a live patch tells an opened copy it is stale.
    for (f, prefix) in drawn.iter().filter(|(f, _)| f.reveal.is_none()) {
        if !folds(f) {
            b.push_str(&form_html(ui, f, prefix, true));
            continue;
        }
        let fixed = fixed_attr(f);
        let act = format!(
            "<details class=\"act\" id=\"act-{prefix}\" name=\"acts\" data-action=\"{}\"{fixed} data-form=\"{:08x}\"><summary>{}</summary></details>",
            esc(&f.action),
            fnv(&form_html(ui, f, prefix, false)),
            ui.e(&f.label)
        );
        match pick_field(f) {
            // An action whose first field is a choice is that list, closed: choosing a unit opens
            // the action with it chosen, in one tap (issue 43: no tap spent only to open a
            // form). What the rules refuse of each is drawn into it as into the form's list of
            // what acts (`data-marks`: that list's id in `/choices`).
            Some(pick) => {
                let marks = f
                    .actor_field()
                    .filter(|a| a.name == pick.name)
                    .map_or(String::new(), |a| {
                        format!(" data-marks=\"{prefix}-{}\"", id_part(&a.name))
                    });
                let FieldKind::Choice { options, .. } = &pick.kind else {
                    continue;
                };
                b.push_str(&format!(
                    "<div class=\"tile\" id=\"tile-{prefix}\"><span class=\"pick-face\" aria-hidden=\"true\">{label}</span><select class=\"pick\" id=\"pick-{prefix}\" data-form=\"form-{prefix}\" data-field=\"{}\"{marks} aria-label=\"{label}\"><option value=\"\"></option>",
                    esc(&pick.name),
                    label = ui.e(&f.label),
                ));
                for o in options {
                    b.push_str(&format!(
                        "<option value=\"{}\">{}</option>",
                        esc(&o.value),
                        ui.e(&o.label)
                    ));
                }
                b.push_str(&format!("</select>{act}</div>"));
            }
            None => b.push_str(&act),
        }
    }
    b.push_str("</section>");
    b
}

/// The field a form other than the next step is drawn as, closed: its first, when that is a
/// required choice among several shown whatever else is chosen (what acts, the leader to
/// attach). Picking one opens the form with it chosen.
fn pick_field(f: &ActionForm) -> Option<&FormField> {
    f.fields.first().filter(|a| {
        a.only_for.is_empty()
            && matches!(&a.kind, FieldKind::Choice { options, optional: false } if options.len() > 1)
    })
}

/// Whether a form is drawn folded, its fields fetched when opened: an action other than the
/// turn's next step, with fields, not behind a secret's prompt.
fn folds(f: &ActionForm) -> bool {
    f.reveal.is_none() && !f.primary && !f.fields.is_empty()
}

/// The form of the folded action `id` (`act-<prefix>`) on a page of `forms`, as the page's
/// script fetches it when the action is opened: the form alone, a list that repeats one of its
/// own sent once ([`crate::lists`]), and the hash the folded action carries (`data-form`).
/// `None`: no such folded action now.
///
/// Or the corrections of a form drawn on the page (`more-<prefix>`), as their block of fields.
pub(crate) fn folded_form(ui: &Ui, forms: &[ActionForm], id: &str) -> Option<(String, String)> {
    let html = if let Some(prefix) = id.strip_prefix("act-") {
        drawn_forms(forms)
            .into_iter()
            .find(|(f, p)| p == prefix && folds(f))
            .map(|(f, p)| form_html(ui, f, &p, false))?
    } else {
        let prefix = id.strip_prefix("more-")?;
        drawn_forms(forms)
            .into_iter()
            .find(|(f, p)| p == prefix && !folds(f) && f.fields.iter().any(|x| x.more))
            .map(|(f, p)| corrections_html(ui, f, &p))?
    };
    Some((crate::lists::shared(&html), format!("{:08x}", fnv(&html))))
}

/// Field `i` of form `f` (its ids by `prefix`): two fields of one name (each shown for other
/// units) get ids of their own, the second and later ones by their place in the form.
fn field_at(ui: &Ui, f: &ActionForm, prefix: &str, i: usize, field: &FormField) -> String {
    // The value what acts starts with (its first choice).
    let first = f
        .fields
        .iter()
        .find(|x| x.resets)
        .and_then(|x| match &x.kind {
            FieldKind::Choice { options, optional } if !optional => {
                options.first().map(|o| o.value.as_str())
            }
            _ => None,
        });
    let again = f.fields[..i].iter().any(|x| x.name == field.name);
    let id = if again {
        format!("{prefix}-{}-{i}", id_part(&field.name))
    } else {
        format!("{prefix}-{}", id_part(&field.name))
    };
    if field.buttons {
        if let FieldKind::Choice { options, optional } = &field.kind {
            return buttons_html(ui, field, options, *optional);
        }
    }
    field_html(ui, field, &id, first, any_value(f, field))
}

/// A choice drawn as a button per option, each the action with it chosen
/// ([`FormField::buttons`]), an optional one's none first (`value=""`, the field left out): the
/// form's own button is not drawn.
fn buttons_html(
    ui: &Ui,
    field: &FormField,
    options: &[tercio_rules::Choice],
    optional: bool,
) -> String {
    let mut b = format!(
        "<div class=\"picks\" role=\"group\" aria-label=\"{label}\"><span class=\"picks-label\">{label}</span>",
        label = ui.e(&field.label)
    );
    if let Some(none) = field.none.as_deref().filter(|_| optional) {
        b.push_str(&format!(
            "<button type=\"submit\" name=\"{}\" value=\"\">{}</button>",
            esc(&field.name),
            ui.e(none)
        ));
    }
    for o in options {
        b.push_str(&format!(
            "<button type=\"submit\" name=\"{}\" value=\"{}\">{}</button>",
            esc(&field.name),
            esc(&o.value),
            ui.e(&o.label)
        ));
    }
    b.push_str("</div>");
    b
}

/// The corrections of form `f` ([`FormField::more`]), as their block of fields.
fn corrections_html(ui: &Ui, f: &ActionForm, prefix: &str) -> String {
    let mut b = String::from("<div class=\"fields\">");
    for (i, x) in f.fields.iter().enumerate().filter(|(_, x)| x.more) {
        b.push_str(&field_at(ui, f, prefix, i, x));
    }
    b.push_str("</div>");
    b
}

/// What the action itself says (`fixed`), as the ` data-fixed` attribute the page's script sends
/// with the fields (and the tap test matches an action by); empty when it says nothing.
fn fixed_attr(f: &ActionForm) -> String {
    if f.fixed.is_empty() {
        return String::new();
    }
    format!(
        " data-fixed=\"{}\"",
        esc(&serde_json::Value::Object(f.fixed.clone()).to_string())
    )
}

/// Form `f`, its ids by `prefix`; `lazy`: its corrections folded without their fields (the
/// page's own forms), else with them (a form fetched when opened).
fn form_html(ui: &Ui, f: &ActionForm, prefix: &str, lazy: bool) -> String {
    // What the action itself says (`fixed`) goes out with the fields, as data.
    let fixed = fixed_attr(f);
    let mut b = format!(
        "<form class=\"action-form{}{}{}\" id=\"form-{prefix}\" data-action=\"{}\" data-odds=\"{}\"{fixed}{}{} novalidate>",
        if f.primary { " primary" } else { "" },
        if f.fields.is_empty() { " bare" } else { "" },
        if f.refused.is_some() { " refused" } else { "" },
        esc(&f.action),
        if f.odds { "1" } else { "0" },
        if f.quiet { " data-quiet" } else { "" },
        // Taken by the page itself (issue 43): the one step the rules leave, nothing to tell.
        if f.auto && f.refused.is_none() { " data-auto" } else { "" }
    );
    if !f.fields.is_empty() {
        b.push_str(&format!(
            "<h3>{}</h3><div class=\"fields\">",
            ui.e(&f.label)
        ));
        for (i, x) in f.fields.iter().enumerate().filter(|(_, x)| !x.more) {
            b.push_str(&field_at(ui, f, prefix, i, x));
        }
        b.push_str("</div>");
        // Corrections of what the game knows: one tap away. On the page (`lazy`) their fields
        // are fetched when they are opened ([`folded_form`]): an action sent without them is
        // the action with them as they start (`an_action_without_its_corrections_is_the_action_with_them_untouched`,
        // rules crate, test `choices`), and a simultaneous fire's were a quarter of the page.
        if f.fields.iter().any(|x| x.more) {
            if lazy {
                b.push_str(&format!(
                    "<details class=\"more\" id=\"more-{prefix}\" data-form=\"{:08x}\"><summary>{}</summary></details>",
                    fnv(&corrections_html(ui, f, prefix)),
                    ui.h(keys::WEB_GAME_MORE, &[])
                ));
            } else {
                b.push_str(&format!(
                    "<details class=\"more\" id=\"more-{prefix}\"><summary>{}</summary>{}</details>",
                    ui.h(keys::WEB_GAME_MORE, &[]),
                    corrections_html(ui, f, prefix)
                ));
            }
        }
    }
    if f.odds {
        b.push_str("<div class=\"odds\" aria-live=\"polite\"></div>");
    }
    // The button and the line under it carry ids, so that a form becoming refused or the next
    // step (or no longer) is patched there, not sent whole with every choice.
    // (A choice drawn as buttons is the form's buttons: none after it.)
    if !f.fields.iter().any(|x| x.buttons) {
        b.push_str(&format!(
            "<button type=\"submit\" id=\"go-{prefix}\"{}>{}</button>",
            if f.primary { " class=\"primary\"" } else { "" },
            ui.e(&f.label)
        ));
    }
    // Pressing it now would be refused: why, beside the button (it is not highlighted).
    if let Some(why) = &f.refused {
        b.push_str(&format!(
            "<p class=\"hint why\" id=\"hint-{prefix}\">{}</p>",
            ui.e(why)
        ));
    } else if !f.hint.is_empty() {
        b.push_str(&format!(
            "<p class=\"hint\" id=\"hint-{prefix}\">{}</p>",
            ui.e(&f.hint)
        ));
    }
    b.push_str("</form>");
    b
}

/// Whether a field shown only for some values of another ([`FormField::only_for`]) is shown for
/// every value that one offers: its page says so in one character (`data-only-for="*"`, any
/// value chosen) instead of the list of them, which repeated a side's units for each of a
/// simultaneous fire's units and corrections (issue 43, item 10).
fn any_value(f: &ActionForm, field: &FormField) -> bool {
    if field.only_for.is_empty() {
        return false;
    }
    let by: Vec<&FormField> = match &field.only_with {
        Some(w) => f.fields.iter().filter(|x| &x.name == w).collect(),
        None => f.fields.iter().filter(|x| x.resets).collect(),
    };
    let mut offered: Vec<&str> = by
        .iter()
        .filter_map(|x| match &x.kind {
            FieldKind::Choice { options, .. } => Some(options),
            _ => None,
        })
        .flatten()
        .map(|o| o.value.as_str())
        .filter(|v| !v.is_empty())
        .collect();
    let mut only: Vec<&str> = field.only_for.iter().map(String::as_str).collect();
    offered.sort_unstable();
    offered.dedup();
    only.sort_unstable();
    only.dedup();
    !by.is_empty() && offered == only
}

fn field_html(ui: &Ui, field: &FormField, id: &str, first: Option<&str>, any: bool) -> String {
    let mut html = field_control_html(ui, field, id);
    if !field.checked_for.is_empty() {
        // Ticked at first for some of what acts (game.js ticks it as the choice changes): drawn
        // ticked when the choice the form starts with is one of them.
        let on = first.is_some_and(|v| field.checked_for.iter().any(|c| c == v));
        html = html.replacen(
            "<input type=\"checkbox\"",
            &format!(
                "<input type=\"checkbox\" data-checked-for=\"{}\"{}",
                esc(&field.checked_for.join(" ")),
                if on { " checked" } else { "" }
            ),
            1,
        );
    }
    if field.only_for.is_empty() {
        return html;
    }
    // Shown only for some of what acts, or of the values of the field it names (game.js hides
    // it, and leaves it out, for the others).
    let with = field
        .only_with
        .as_deref()
        .map_or(String::new(), |w| format!(" data-only-with=\"{}\"", esc(w)));
    html.replacen(
        "<label",
        &format!(
            "<label data-only-for=\"{}\"{with}",
            if any {
                "*".to_string()
            } else {
                esc(&field.only_for.join(" "))
            }
        ),
        1,
    )
}

/// The longest choice, in characters, that a phone's select shows whole beside its label (half
/// the width of a 360 px screen, at 16 px).
const BESIDE_ITS_LABEL: usize = 15;

/// ` class="wide"` for a list with a choice longer than [`BESIDE_ITS_LABEL`]: on a phone its
/// label goes above it and the list takes the whole width, so that a unit's name is read whole
/// (issue 43, item 2: "Swiss pikes (first" was cut at 151 px).
fn wide(ui: &Ui, options: &[tercio_rules::Choice]) -> &'static str {
    let longest = options
        .iter()
        .map(|o| ui.loc(&o.label).chars().count())
        .max()
        .unwrap_or(0);
    if longest > BESIDE_ITS_LABEL {
        " class=\"wide\""
    } else {
        ""
    }
}

fn field_control_html(ui: &Ui, field: &FormField, id: &str) -> String {
    let name = esc(&field.name);
    let label = ui.e(&field.label);
    match &field.kind {
        FieldKind::Choice { options, optional } => {
            // What acts: choosing another puts the form's other fields back (game.js).
            let resets = if field.resets { " data-resets" } else { "" };
            let mut b = format!(
                "<label{}>{label} <select name=\"{name}\" id=\"{id}\"{resets}>",
                wide(ui, options)
            );
            // What acts: the choices change as units act, so each carries an id and a live patch
            // adds or removes the ones that changed rather than the whole list.
            // (A short hash of the list's id and the value: a clash only makes a patch replace
            // more, never a wrong one, as the patch gives up on an id used twice.)
            let oid = |v: &str| {
                if field.resets {
                    format!(" id=\"o{}\"", base36(fnv(&format!("{id}\u{0}{v}"))))
                } else {
                    String::new()
                }
            };
            if *optional {
                b.push_str(&format!("<option value=\"\"{}>—</option>", oid("")));
            }
            // Every choice in the rules' order, as plain as the state leaves it: what the rules
            // would refuse for each, and so the order the list is offered in, changes as units
            // act, and the page asks for it apart (`GET /api/s/{token}/choices`, drawn by
            // game.js), so a live patch carries none of it.
            for o in options {
                b.push_str(&format!(
                    "<option value=\"{}\"{}>{}</option>",
                    esc(&o.value),
                    oid(&o.value),
                    ui.e(&o.label)
                ));
            }
            b.push_str("</select></label>");
            b
        }
        FieldKind::Choices { options } => {
            // Any number of them (none: the field is left out); game.js sends the list. Two
            // rows high, as tall as a field with its label on a phone (a phone's browser draws
            // it as one line that opens a picker).
            let mut b = format!(
                "<label{}>{label} <select name=\"{name}\" id=\"{id}\" multiple size=\"2\">",
                wide(ui, options)
            );
            for o in options {
                b.push_str(&format!(
                    "<option value=\"{}\">{}</option>",
                    esc(&o.value),
                    ui.e(&o.label)
                ));
            }
            b.push_str("</select></label>");
            b
        }
        FieldKind::Flag => format!(
            "<label class=\"check\"><input type=\"checkbox\" name=\"{name}\" id=\"{id}\"> {label}</label>"
        ),
        FieldKind::Number { min, max, value } => format!(
            "<label class=\"num\">{label} <input type=\"number\" name=\"{name}\" id=\"{id}\" min=\"{min}\" max=\"{max}\" step=\"1\" value=\"{value}\" inputmode=\"numeric\"></label>"
        ),
        FieldKind::Text { placeholder } => format!(
            "<label>{label} <input type=\"text\" name=\"{name}\" id=\"{id}\" placeholder=\"{}\" autocomplete=\"off\"></label>",
            ui.e(placeholder)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tercio_i18n::Lang;
    use tercio_rules::Choice;

    fn en() -> Ui {
        Ui::new(Lang::En, "/")
    }

    fn form(action: &str, primary: bool, fields: Vec<FormField>) -> ActionForm {
        ActionForm {
            action: action.into(),
            label: format!("Do {action}"),
            hint: "<hint>".into(),
            odds: !fields.is_empty(),
            fields,
            primary,
            reveal: None,
            fixed: Default::default(),
            quiet: false,
            auto: false,
            refused: None,
        }
    }

    /// A choice drawn as buttons (the unit a leader joins) is a button per choice, each the
    /// action with it chosen, an optional one's none first (the leader alone), and no other
    /// button (issue 43: the choice is the tap that acts).
    #[test]
    fn a_choice_drawn_as_buttons_is_a_button_per_choice_and_none_first() {
        let f = form(
            "attach",
            false,
            vec![FormField::choice(
                "unit",
                "With the unit",
                vec![Choice::new("a", "A <first>"), Choice::new("b", "B")],
                true,
            )
            .buttons(Some("stands alone"))],
        );
        let h = form_html(&en(), &f, "f-attach", false);
        let none = h.find("<button type=\"submit\" name=\"unit\" value=\"\">stands alone</button>");
        let a =
            h.find("<button type=\"submit\" name=\"unit\" value=\"a\">A &lt;first&gt;</button>");
        let b = h.find("<button type=\"submit\" name=\"unit\" value=\"b\">B</button>");
        assert!(none.is_some() && none < a && a < b, "{h}");
        assert!(
            !h.contains("id=\"go-f-attach\"") && !h.contains("<select"),
            "{h}"
        );
        // A required choice has no none.
        let mut g = f.clone();
        g.fields[0].kind = FieldKind::Choice {
            options: vec![Choice::new("a", "A")],
            optional: false,
        };
        assert!(!form_html(&en(), &g, "f-attach", false).contains("value=\"\""));
    }

    /// A choice of several (the supporting units of a melee) is a list the user picks any of,
    /// none chosen at first; two fields of one name, each for other units, get ids of their own.
    #[test]
    fn a_choice_of_several_and_two_fields_of_one_name_for_other_units() {
        let pick = |only: &str| {
            FormField::choices(
                "supporting_actor_units",
                "Supporting units",
                vec![Choice::new("x", "X"), Choice::new("y", "<Y>")],
            )
            .only_for(vec![only.into()])
        };
        let h = forms_html(
            &en(),
            &[form(
                "melee",
                true,
                vec![
                    FormField::choice(
                        "actor",
                        "Unit",
                        vec![Choice::new("a", "A"), Choice::new("b", "B")],
                        false,
                    )
                    .resets(),
                    pick("a"),
                    pick("b"),
                ],
            )],
            &[],
        );
        assert!(
            h.contains("<select name=\"supporting_actor_units\" id=\"f-melee-supporting_actor_units\" multiple size=\"2\"><option value=\"x\">X</option><option value=\"y\">&lt;Y&gt;</option></select>"),
            "{h}"
        );
        assert!(
            h.contains("id=\"f-melee-supporting_actor_units-2\" multiple"),
            "{h}"
        );
        assert!(!h.contains(" selected"), "{h}");
    }

    #[test]
    fn the_next_step_open_other_actions_one_tap_away_and_corrections_behind_a_tap() {
        let fields = || {
            vec![
                FormField::choice("unit", "Unit", vec![Choice::new("a", "A")], false).resets(),
                FormField::number("bases", "Bases", 0, 9, 0),
                FormField::choice("status", "Status", vec![Choice::new("ok", "OK")], true).more(),
            ]
        };
        let h = forms_html(
            &en(),
            &[
                form("melee", true, fields()),
                form("fire", false, fields()),
                form("end", false, vec![]),
            ],
            &[],
        );
        // The next step is drawn open, its correction behind its own tap, after the others.
        let melee = &h[h.find("id=\"form-f-melee\"").expect("melee")..];
        let melee = &melee[..melee.find("</form>").expect("end of melee")];
        assert!(
            !h[..h.find("id=\"form-f-melee\"").expect("melee")].contains("<details"),
            "{h}"
        );
        // The correction folded, its fields fetched when opened, the hash of them beside it.
        let forms = [form("melee", true, fields())];
        let (status, hash) = folded_form(&en(), &forms, "more-f-melee").expect("corrections");
        let more = melee
            .find(&format!(
                "<details class=\"more\" id=\"more-f-melee\" data-form=\"{hash}\"><summary>"
            ))
            .expect("more");
        assert!(
            melee.find("name=\"bases\"").expect("bases") < more,
            "{melee}"
        );
        assert!(!melee.contains("name=\"status\""), "{melee}");
        assert!(
            status.starts_with("<div class=\"fields\">") && status.contains("name=\"status\""),
            "{status}"
        );
        // A folded action's form, fetched whole, has its corrections in it.
        let (whole, _) =
            folded_form(&en(), &[form("fire", false, fields())], "act-f-fire").expect("fire");
        assert!(
            whole.contains("<details class=\"more\" id=\"more-f-fire\"><summary>")
                && whole.contains("name=\"status\""),
            "{whole}"
        );
        // No corrections of a folded form by themselves, nor of a form without any.
        assert!(folded_form(&en(), &[form("fire", false, fields())], "more-f-fire").is_none());
        assert!(folded_form(&en(), &[form("end", true, vec![])], "more-f-end").is_none());
        assert!(
            melee.contains("<label class=\"num\">Bases <input type=\"number\""),
            "{melee}"
        );
        // Another action with fields: its title, opening one action at a time, its form fetched
        // when it is opened (not in the page), the hash of that form beside the title.
        let (fire, hash) = folded_form(&en(), &[form("fire", false, fields())], "act-f-fire")
            .expect("the folded form");
        assert!(
            h.contains(&format!("<details class=\"act\" id=\"act-f-fire\" name=\"acts\" data-action=\"fire\" data-form=\"{hash}\"><summary>Do fire</summary></details>")),
            "{h}"
        );
        assert!(!h.contains("id=\"form-f-fire\""), "{h}");
        assert!(
            fire.starts_with("<form class=\"action-form\" id=\"form-f-fire\"")
                && fire.ends_with("</form>"),
            "{fire}"
        );
        assert_eq!(hash, format!("{:08x}", fnv(&fire)));
        // Not a folded action, or none by that name: nothing.
        assert!(folded_form(&en(), &[form("fire", false, fields())], "act-f-melee").is_none());
        assert!(folded_form(&en(), &[form("fire", true, fields())], "act-f-fire").is_none());
        // An action whose first field is a choice among several is that list, closed: picking
        // one opens it (one tap, not two), and it comes before the actions with nothing to fill
        // in.
        let two = || {
            vec![
                FormField::choice(
                    "unit",
                    "Unit",
                    vec![Choice::new("a", "A"), Choice::new("b", "B")],
                    false,
                )
                .resets(),
                FormField::number("bases", "Bases", 0, 9, 0),
            ]
        };
        let h2 = forms_html(
            &en(),
            &[form("end", false, vec![]), form("charge", false, two())],
            &[],
        );
        assert!(
            h2.contains("<div class=\"tile\" id=\"tile-f-charge\"><span class=\"pick-face\" aria-hidden=\"true\">Do charge</span><select class=\"pick\" id=\"pick-f-charge\" data-form=\"form-f-charge\" data-field=\"unit\" data-marks=\"f-charge-unit\" aria-label=\"Do charge\"><option value=\"\"></option><option value=\"a\">A</option><option value=\"b\">B</option></select><details class=\"act\" id=\"act-f-charge\" name=\"acts\" data-action=\"charge\" data-form=\""),
            "{h2}"
        );
        assert!(
            h2.find("id=\"tile-f-charge\"") < h2.find("id=\"form-f-end\""),
            "{h2}"
        );
        // With one choice only, its title.
        assert!(!h.contains("class=\"pick\""), "{h}");
        // An action without fields is its button.
        assert!(!h.contains("id=\"act-f-end\""), "{h}");
        assert!(
            h.contains("<form class=\"action-form bare\" id=\"form-f-end\""),
            "{h}"
        );
        // A tick box the state ticks for some units: drawn ticked when the first unit is one.
        let charge = |first: &str| {
            let f = form(
                "attack",
                true,
                vec![
                    FormField::choice(
                        "unit",
                        "Unit",
                        vec![Choice::new(first, "First"), Choice::new("z", "Z")],
                        false,
                    )
                    .resets(),
                    FormField::flag("charge", "Charge").checked_for(vec!["a".into(), "b\"".into()]),
                ],
            );
            forms_html(&en(), &[f], &[])
        };
        assert!(
            charge("a").contains(
                "<input type=\"checkbox\" data-checked-for=\"a b&quot;\" checked name=\"charge\""
            ),
            "{}",
            charge("a")
        );
        assert!(
            charge("c").contains(
                "<input type=\"checkbox\" data-checked-for=\"a b&quot;\" name=\"charge\""
            ),
            "{}",
            charge("c")
        );
        // No correction, no tap for it.
        let plain = forms_html(
            &en(),
            &[form("fire", true, vec![FormField::flag("x", "X")])],
            &[],
        );
        assert!(!plain.contains("details"), "{plain}");
    }

    /// A field shown for every value of the field it follows says so in one character; one
    /// shown for some of them lists them.
    #[test]
    fn a_field_for_every_value_of_another_says_so_without_listing_them() {
        let targets = || {
            FormField::choice(
                "fire.a",
                "A fires at",
                vec![Choice::new("x", "X"), Choice::new("y", "Y")],
                true,
            )
        };
        let bases = |only: &[&str]| {
            FormField::number("bases.a", "Bases", 1, 3, 3)
                .only_when("fire.a", only.iter().map(|v| v.to_string()).collect())
        };
        let all = forms_html(
            &en(),
            &[form("end-fire", true, vec![targets(), bases(&["y", "x"])])],
            &[],
        );
        assert!(
            all.contains("<label data-only-for=\"*\" data-only-with=\"fire.a\" class=\"num\">"),
            "{all}"
        );
        let some = forms_html(
            &en(),
            &[form("end-fire", true, vec![targets(), bases(&["y"])])],
            &[],
        );
        assert!(
            some.contains("<label data-only-for=\"y\" data-only-with=\"fire.a\" class=\"num\">"),
            "{some}"
        );
    }

    #[test]
    fn fixed_fields_and_what_acts_are_drawn_as_data_for_the_script() {
        let f = form(
            "fire",
            true,
            vec![
                FormField::choice("unit", "Unit", vec![Choice::new("a", "A")], false).resets(),
                FormField::flag("dense", "Dense"),
            ],
        )
        .with_fixed("moved", serde_json::json!(true))
        .with_fixed("why", serde_json::json!("<\"x\">"));
        let h = forms_html(&en(), &[f], &[]);
        assert!(
            h.contains(
                "data-fixed=\"{&quot;moved&quot;:true,&quot;why&quot;:&quot;&lt;\\&quot;x\\&quot;&gt;&quot;}\""
            ),
            "{h}"
        );
        assert!(
            h.contains("<select name=\"unit\" id=\"f-fire-unit\" data-resets>"),
            "{h}"
        );
        assert!(
            !h.contains("name=\"dense\" id=\"f-fire-dense\" data-resets"),
            "{h}"
        );
        // A field for some units only says which.
        let f = form(
            "fire",
            true,
            vec![FormField::flag("double", "Both pistols").only_for(vec!["r1".into(), "r2".into()])],
        );
        let h = forms_html(&en(), &[f], &[]);
        assert!(
            h.contains("<label data-only-for=\"r1 r2\" class=\"check\"><input type=\"checkbox\" name=\"double\""),
            "{h}"
        );
        // A form with nothing fixed says nothing of it.
        let plain = forms_html(&en(), &[form("end", false, vec![])], &[]);
        assert!(!plain.contains("data-fixed"), "{plain}");
    }

    #[test]
    fn what_the_rules_refuse_of_each_choice_goes_apart_from_the_lists_by_their_ids() {
        let choice = |v: &str, why: Option<&str>, later: bool| Choice {
            refused: why.map(str::to_string),
            later,
            ..Choice::new(v, v.to_uppercase())
        };
        let acting = |action: &str, primary: bool, shot: bool| {
            form(
                action,
                primary,
                vec![FormField::choice(
                    "unit",
                    "Unit",
                    vec![
                        choice("a", Some("<a> has acted"), true),
                        choice("b", None, false),
                        choice("c", (!shot).then_some("c has no shot"), false),
                    ],
                    false,
                )
                .resets()],
            )
        };
        // The same action twice, the second the turn's next step (drawn first), and one
        // without what acts.
        let forms = vec![
            acting("fire", false, false),
            acting("fire", true, true),
            form("end", false, vec![]),
        ];
        let page = forms_html(&en(), &forms, &[]);
        // The folded one's form is fetched when it is opened; its list to pick from names the
        // form's list of what acts, whose marks it takes.
        assert!(
            page.contains("data-field=\"unit\" data-marks=\"f-fire-2-unit\""),
            "{page}"
        );
        let (folded, _) = folded_form(&en(), &forms, "act-f-fire-2").expect("folded");
        let h = page.clone() + &folded;
        // The lists name every choice plainly, in the rules' order.
        for id in ["f-fire-unit", "f-fire-2-unit"] {
            assert!(
                h.contains(&format!("<select name=\"unit\" id=\"{id}\" data-resets>")),
                "{h}"
            );
        }
        assert!(!h.contains("has acted") && !h.contains("refused"), "{h}");
        let a = h.find(">A</option>").expect("a");
        assert!(a < h.find(">B</option>").expect("b"), "{h}");
        let c = choices_json(&en(), &forms, false);
        // The next step is drawn first: its list has the plain id, the other one numbered.
        let acted = serde_json::json!({"why": "<a> has acted", "later": true});
        assert_eq!(
            c,
            serde_json::json!({
                "f-fire-unit": {"a": acted},
                "f-fire-2-unit": {"a": acted, "c": {"why": "c has no shot"}},
            }),
            "{c}"
        );
        assert!(
            h.find("id=\"f-fire-unit\"") < h.find("id=\"f-fire-2-unit\""),
            "{h}"
        );
        // Nothing refused: nothing said.
        let legal = form(
            "fire",
            false,
            vec![FormField::choice("unit", "Unit", vec![Choice::new("b", "B")], false).resets()],
        );
        assert_eq!(choices_json(&en(), &[legal], false), serde_json::json!({}));
        // Brief, as the page asks: a choice to come later says only so, and a list marked as an
        // earlier one names it.
        let twice = vec![acting("fire", false, false), acting("melee", false, false)];
        assert_eq!(
            choices_json(&en(), &twice, true),
            serde_json::json!({
                "f-fire-unit": {"a": {"later": true}, "c": {"why": "c has no shot"}},
                "f-melee-unit": "f-fire-unit",
            })
        );
    }

    #[test]
    fn forms_in_order_with_unique_ids_and_escaped_text() {
        let forms = vec![
            form("end", false, vec![]),
            form(
                "fire",
                false,
                vec![
                    FormField::choice(
                        "unit",
                        "Unit",
                        vec![Choice::new("a\"b", "<Arquebusiers>")],
                        true,
                    ),
                    FormField::flag("double", "Double"),
                    FormField::number("firers", "Firers", 1, 20, 10),
                ],
            ),
            form("fire", false, vec![FormField::flag("double", "Double")]),
            form("start turn", true, vec![]),
        ];
        // The page, and the folded actions' forms it fetches when they are opened.
        let h = forms_html(&en(), &forms, &[])
            + &folded_form(&en(), &forms, "act-f-fire").expect("fire").0
            + &folded_form(&en(), &forms, "act-f-fire-2")
                .expect("fire 2")
                .0;
        let start = h.find("data-action=\"start turn\"").expect("start");
        let end = h.find("data-action=\"end\"").expect("end");
        assert!(start < end, "the primary form comes first: {h}");
        assert!(h.contains("id=\"form-f-start-turn\""), "{h}");
        assert!(h.contains("<button type=\"submit\" id=\"go-f-start-turn\" class=\"primary\">Do start turn</button>"));
        assert!(h.contains(
            "<select name=\"unit\" id=\"f-fire-unit\"><option value=\"\">—</option><option value=\"a&quot;b\">&lt;Arquebusiers&gt;</option></select>"
        ), "{h}");
        assert!(h.contains("<input type=\"checkbox\" name=\"double\" id=\"f-fire-double\">"));
        assert!(
            h.contains("id=\"f-fire-2-double\""),
            "a second fire form: {h}"
        );
        assert!(
            h.contains("min=\"1\" max=\"20\" step=\"1\" value=\"10\""),
            "{h}"
        );
        assert!(h.contains("data-odds=\"1\""), "{h}");
        assert!(h.contains("data-odds=\"0\""), "{h}");
        assert!(h.contains("&lt;hint&gt;") && !h.contains("<hint>"), "{h}");
        assert_eq!(h.matches("class=\"odds\"").count(), 2, "{h}");
    }

    #[test]
    fn a_text_field_is_a_labelled_text_input() {
        let forms = vec![form(
            "move",
            true,
            vec![FormField::text(
                "path",
                "Path <hexes>",
                "e.g. \"A1, B2\" & <C3>",
            )],
        )];
        let h = forms_html(&en(), &forms, &[]);
        assert!(
            h.contains(
                "<label>Path &lt;hexes&gt; <input type=\"text\" name=\"path\" id=\"f-move-path\" placeholder=\"e.g. &quot;A1, B2&quot; &amp; &lt;C3&gt;\""
            ),
            "{h}"
        );
        assert!(!h.contains("<C3>"), "{h}");
    }

    fn table(title: &str, reveal: Option<&str>) -> BoardTable {
        BoardTable {
            title: title.into(),
            columns: vec!["Card".into()],
            rows: vec![vec![format!("{title} card")]],
            reveal: reveal.map(str::to_string),
        }
    }

    /// The text between `open` and its matching `</details>` (no nesting in these pages).
    fn details_blocks(h: &str) -> Vec<&str> {
        h.match_indices("<details")
            .map(|(i, _)| &h[i..i + h[i..].find("</details>").expect("details closed")])
            .collect()
    }

    #[test]
    fn secrets_with_one_prompt_share_one_closed_details_before_the_other_forms() {
        let hand = "Royalists: tap to reveal <your> hand";
        let secret = |action: &str| ActionForm {
            reveal: Some(hand.into()),
            ..form(action, false, vec![FormField::flag("discard", "Discard")])
        };
        let forms = vec![
            form("end", false, vec![]),
            secret("play"),
            form("start turn", true, vec![]),
            secret("play"),
        ];
        let tables = vec![table("Units", None), table("Hand", Some(hand))];
        let h = forms_html(&en(), &forms, &tables);

        let blocks = details_blocks(&h);
        assert_eq!(blocks.len(), 1, "one block for one prompt: {h}");
        let block = blocks[0];
        assert!(
            block.starts_with(
                "<details class=\"reveal\" id=\"reveal-0\"><summary>Royalists: tap to reveal &lt;your&gt; hand</summary>"
            ),
            "closed, with the escaped prompt: {block}"
        );
        assert!(!h.contains(" open"), "no open attribute: {h}");
        assert_eq!(block.matches("data-action=\"play\"").count(), 2, "{block}");
        assert!(
            block.contains("<h3 id=\"secret-t0-h\">Hand</h3>") && block.contains("Hand card"),
            "{block}"
        );
        assert!(
            block.ends_with("<button type=\"button\" class=\"hide-reveal\">Hide</button>"),
            "{block}"
        );
        // Before the other forms, the turn's next step included; those and the open table stay out.
        let details = h.find("<details").expect("details");
        let start = h.find("data-action=\"start turn\"").expect("start");
        let end = h.find("data-action=\"end\"").expect("end");
        assert!(details < start && start < end, "{h}");
        assert!(
            h.starts_with("<section class=\"forms\" id=\"forms\" data-panel=\"play\"><h2 id=\"forms-h\">Actions</h2><details"),
            "{h}"
        );
        for outside in ["data-action=\"start turn\"", "data-action=\"end\""] {
            assert!(!block.contains(outside), "{outside} is not secret: {block}");
        }
        assert!(
            !h.contains("Units"),
            "the open tables are drawn with the board: {h}"
        );
        // The secret forms get ids from the same allocation as the others.
        assert!(
            h.contains("id=\"form-f-play\"") && h.contains("id=\"form-f-play-2\""),
            "{h}"
        );
        assert!(h.contains("id=\"f-play-2-discard\""), "{h}");
    }

    #[test]
    fn each_prompt_its_own_block_and_secret_tables_without_forms() {
        let forms = vec![
            ActionForm {
                reveal: Some("A".into()),
                ..form("play", false, vec![])
            },
            form("end", false, vec![]),
        ];
        let tables = vec![table("Hand B", Some("B")), table("Hand A", Some("A"))];
        let h = forms_html(&en(), &forms, &tables);
        let blocks = details_blocks(&h);
        assert_eq!(blocks.len(), 2, "{h}");
        assert!(blocks[0].contains("<summary>A</summary>") && blocks[0].contains("Hand A"));
        assert!(blocks[0].contains("data-action=\"play\"") && !blocks[0].contains("Hand B"));
        assert!(blocks[1].contains("<summary>B</summary>") && blocks[1].contains("Hand B"));
        assert!(!blocks[1].contains("data-action"), "{h}");

        // No form at all: the secret tables still come out, behind their prompt.
        let h = forms_html(&en(), &[], &tables);
        assert_eq!(details_blocks(&h).len(), 2, "{h}");
        assert!(
            !h.contains("<h2>Actions</h2>") && !h.contains(" open"),
            "{h}"
        );
        // Nothing secret and no form: nothing.
        assert_eq!(forms_html(&en(), &[], &[table("Units", None)]), "");
    }

    #[test]
    fn without_reveal_nothing_is_hidden() {
        let forms = vec![
            form("end", false, vec![]),
            form("fire", true, vec![FormField::flag("double", "Double")]),
        ];
        let h = forms_html(&en(), &forms, &[table("Units", None)]);
        assert!(!h.contains("<details") && !h.contains("hide-reveal"), "{h}");
        assert_eq!(h.matches("<form ").count(), 2, "{h}");
    }

    #[test]
    fn ids_from_odd_text() {
        assert_eq!(id_part("a b\"<c>"), "a-b--c-");
        assert_eq!(id_part(""), "x");
    }
}
