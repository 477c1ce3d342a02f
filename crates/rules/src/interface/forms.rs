//! What a rule set describes for the shell to draw without knowing it: the board (headline,
//! notes, tables of units) and the forms of the actions that can be taken now.

use serde::Serialize;

/// The game at a glance: a headline (turn, step, whose move it is), notes (what the table must do
/// now), and tables (each side's units with their tracked state).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Board {
    pub headline: String,
    pub notes: Vec<String>,
    pub tables: Vec<BoardTable>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoardTable {
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Secret on a shared device: drawn hidden behind this prompt ("Royalists: tap to reveal your
    /// hand") until tapped. `None`: always shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reveal: Option<String>,
}

impl BoardTable {
    /// A table always shown.
    pub fn new(title: &str, columns: &[&str], rows: Vec<Vec<String>>) -> Self {
        BoardTable {
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows,
            reveal: None,
        }
    }

    /// The table as aligned plain text (CLI), its title on the first line.
    pub fn render(&self) -> String {
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                self.rows
                    .iter()
                    .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                    .chain([self.columns[i].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            let mut l = String::from(" ");
            for (c, w) in cells.iter().zip(&widths) {
                l.push_str(&format!(" {c:<w$}"));
            }
            l.trim_end().to_string() + "\n"
        };
        let mut s = format!("{}\n", self.title);
        s.push_str(&line(&self.columns));
        for r in &self.rows {
            s.push_str(&line(r));
        }
        s
    }
}

/// One action that can be taken now, with its fields. The shell builds the action's JSON as
/// `{"action": action, field name: value...}`: a choice gives its option's value (an optional
/// choice left empty leaves the field out), a choice of several the list of the values chosen
/// (none chosen leaves it out), a flag `true` when ticked (left out otherwise), a number an
/// integer. A form may hold two fields of one name when each is shown only for other values of
/// what acts ([`FormField::only_for`]): the shell sends the one shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionForm {
    pub action: String,
    pub label: String,
    /// What it does, in a line.
    pub hint: String,
    pub fields: Vec<FormField>,
    /// Show the exact odds as the fields change (the action rolls dice).
    pub odds: bool,
    /// The turn's next step: drawn first and highlighted.
    pub primary: bool,
    /// Secret on a shared device (it names cards of a hand): drawn behind this prompt, with the
    /// tables of the same prompt, until tapped. `None`: always shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reveal: Option<String>,
    /// Fields the action itself says, sent as they are with the others and never asked (Move
    /// and fire: `moved`, since the unit moves as part of it).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub fixed: serde_json::Map<String, serde_json::Value>,
    /// Taken many times in a row with nothing to decide (a card drawn): its result shows as a
    /// line at the foot of the page, not in a box to dismiss; it is logged like any other.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quiet: bool,
    /// The page may take it by itself (issue 43): the rules leave it the one step of the turn,
    /// with nothing for the table to tell, and taking it now takes nothing away (every other
    /// action offered now, a game master's correction, is offered after it as well). It shows
    /// in the turn line, is logged as any other and can be undone ([`mark_auto`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auto: bool,
    /// Why pressing it as it stands would be refused now (the rules' own refusal, found by
    /// [`mark_refusals`]): the shell draws it without the highlight of the turn's next step, with
    /// the reason beside its button. `None`: it would go through (or needs the table's answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormField {
    pub name: String,
    pub label: String,
    #[serde(flatten)]
    pub kind: FieldKind,
    /// What acts (the unit, the attacker): choosing another puts every field after it back where
    /// it started, so nothing set for one unit carries over to the next (a field before it, the
    /// leader to attach, was chosen first and stays).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resets: bool,
    /// Shown only when what acts (the form's `resets` field) is one of these values: a field that
    /// applies to some units only (a reiter's second pistol). Empty: always shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only_for: Vec<String>,
    /// The field whose value `only_for` lists (a defender's, say); none: the form's `resets`
    /// field, what acts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_with: Option<String>,
    /// Seldom changed: a correction of what the game already knows (a status, a force ratio, a
    /// leader), whose default the state gives, or a condition that seldom applies (a firing
    /// unit's target in cover). Drawn one tap away, so the fields of every turn fit a phone's
    /// screen with the button.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub more: bool,
    /// The last field of an action that rolls nothing, drawn as a button per choice, each the
    /// action with it chosen (the unit a leader joins): the choice is the tap that acts, no
    /// button after it (issue 43: every interaction tells the game something).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub buttons: bool,
    /// What choosing none of an optional choice drawn as buttons means (a leader standing
    /// alone): its own button, which sends the field left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub none: Option<String>,
    /// A tick box that starts ticked when what acts (the form's `resets` field) is one of these
    /// values: a default the state gives per unit (a unit that has just made a charge move
    /// attacks as a charge). Empty: it starts unticked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checked_for: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FieldKind {
    /// One of `options`; when `optional`, an empty first choice leaves the field out.
    Choice {
        options: Vec<Choice>,
        optional: bool,
    },
    /// Any number of `options`, sent as the list of the values chosen; none chosen leaves the
    /// field out (the supporting units of a melee).
    Choices { options: Vec<Choice> },
    /// A tick box.
    Flag,
    /// A whole number from `min` to `max`, starting at `value`.
    Number { min: i64, max: i64, value: i64 },
    /// Free text (a list of ids separated by commas, a hex's name); left out when empty.
    Text { placeholder: String },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    pub value: String,
    pub label: String,
    /// Why the action would be refused with this choice for what acts (the rules' own refusal,
    /// found by [`mark_refusals`]): the shell offers it after the others, with the reason (still
    /// open to choose: another field may lift the refusal). `None`: a legal choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Refused only for the turn while another choice may act ([`super::RejectKind::NotNow`]: a
    /// unit outside the activation, one that has acted): its turn will come, so the shell does
    /// not offer it now.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub later: bool,
}

impl ActionForm {
    /// A form, not the turn's next step, always shown.
    pub fn new(action: &str, label: &str, hint: &str, fields: Vec<FormField>, odds: bool) -> Self {
        ActionForm {
            action: action.into(),
            label: label.into(),
            hint: hint.into(),
            fields,
            odds,
            primary: false,
            reveal: None,
            fixed: serde_json::Map::new(),
            quiet: false,
            auto: false,
            refused: None,
        }
    }

    /// The same form, its result shown as a line rather than a box to dismiss.
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    /// The same form, sending `name: value` as the action itself says it.
    pub fn with_fixed(mut self, name: &str, value: serde_json::Value) -> Self {
        self.fixed.insert(name.into(), value);
        self
    }

    /// The same form as the turn's next step.
    pub fn primary(mut self) -> Self {
        self.primary = true;
        self
    }
}

/// Marks the turn's next step as one the page may take by itself ([`ActionForm::auto`]) when it
/// is the only form offered but for `anytime` (actions offered whatever the step, which taking
/// it does not take away: a game master's corrections) and it has no field: nothing for the
/// table to tell. It is then the turn's next step (`primary`) as well. A form the rules would refuse is never taken ([`mark_refusals`] runs after).
pub fn mark_auto(forms: &mut [ActionForm], anytime: &[&str]) {
    let mut steps = forms
        .iter_mut()
        .filter(|f| !anytime.contains(&f.action.as_str()));
    if let (Some(only), None) = (steps.next(), steps.next()) {
        if only.fields.is_empty() && only.reveal.is_none() {
            // The one step of the turn is its next step, drawn first should the page not take
            // it (after an undo).
            only.auto = true;
            only.primary = true;
        }
    }
}

impl ActionForm {
    /// The field that says what acts (the unit, the attacker): a required choice that resets the
    /// others ([`FormField::resets`]).
    pub fn actor_field(&self) -> Option<&FormField> {
        self.fields.iter().find(|f| {
            f.resets
                && matches!(
                    f.kind,
                    FieldKind::Choice {
                        optional: false,
                        ..
                    }
                )
        })
    }

    /// The field `name` as it is shown for `action` (of two fields of one name, a list of
    /// targets per side or a count of bases per unit, the one whose [`FormField::only_for`] holds
    /// for the action's values), else the first of that name.
    pub fn field_for(&self, name: &str, action: &serde_json::Value) -> Option<&FormField> {
        let acting = self
            .fields
            .iter()
            .find(|f| f.resets)
            .map(|f| f.name.as_str());
        let holds = |f: &FormField| {
            f.only_for.is_empty() || {
                let by = f.only_with.as_deref().or(acting);
                by.and_then(|b| action.get(b))
                    .and_then(|v| v.as_str())
                    .is_some_and(|v| f.only_for.iter().any(|o| o == v))
            }
        };
        let mut named = self.fields.iter().filter(|f| f.name == name);
        let first = named.clone().next();
        named.find(|f| holds(f)).or(first)
    }

    /// Whether a choice the action needs (a required one, always shown) has nothing to offer:
    /// such a form is not offered ([`mark_refusals`] leaves it out).
    pub fn nothing_to_choose(&self) -> bool {
        self.fields.iter().any(|f| {
            f.only_for.is_empty()
                && matches!(&f.kind, FieldKind::Choice { options, optional: false } if options.is_empty())
        })
    }

    /// The action the page sends when nothing but what acts is touched, as `game.js`'s
    /// `formAction` builds it: a required choice gives its first option (what acts: `actor`, when
    /// given), an optional one or an empty text nothing, a tick box `true` when it starts ticked
    /// for what acts ([`FormField::checked_for`]), a number its value; a field that does not
    /// apply ([`FormField::only_for`]) is left out; the form's `fixed` fields go as they are.
    pub fn default_action(&self, actor: Option<&str>) -> serde_json::Value {
        let mut a = serde_json::Map::new();
        a.insert("action".into(), self.action.clone().into());
        for (k, v) in &self.fixed {
            a.insert(k.clone(), v.clone());
        }
        let first = |f: &FormField| match &f.kind {
            FieldKind::Choice {
                options,
                optional: false,
            } => options
                .iter()
                .find(|o| o.refused.is_none())
                .or(options.first())
                .map(|o| o.value.clone()),
            _ => None,
        };
        let value = |f: &FormField| -> Option<String> {
            if f.resets && actor.is_some() {
                actor.map(str::to_string)
            } else {
                first(f)
            }
        };
        let acting = self.fields.iter().find(|f| f.resets).and_then(value);
        // Of two fields of one name (a list of targets per side), the one shown for what acts.
        let applies = |f: &FormField| {
            f.only_with.is_some()
                || f.only_for.is_empty()
                || acting.as_ref().is_some_and(|v| f.only_for.contains(v))
        };
        for f in &self.fields {
            if !f.only_for.is_empty() {
                let by = match &f.only_with {
                    Some(name) => self
                        .fields
                        .iter()
                        .find(|x| &x.name == name && applies(x))
                        .and_then(value),
                    None => acting.clone(),
                };
                if !by.is_some_and(|v| f.only_for.contains(&v)) {
                    continue;
                }
            }
            match &f.kind {
                FieldKind::Choice { .. } => {
                    if let Some(v) = value(f) {
                        a.insert(f.name.clone(), v.into());
                    }
                }
                FieldKind::Flag => {
                    if acting.as_ref().is_some_and(|v| f.checked_for.contains(v)) {
                        a.insert(f.name.clone(), true.into());
                    }
                }
                FieldKind::Number { value, .. } => {
                    a.insert(f.name.clone(), (*value).into());
                }
                FieldKind::Text { .. } | FieldKind::Choices { .. } => {}
            }
        }
        serde_json::Value::Object(a)
    }
}

/// Mark what the rules would refuse, from the same code that resolves (issue 17, items 6 and 15),
/// leaving out a form with nothing to choose ([`ActionForm::nothing_to_choose`]):
/// `refusal` answers for an action as [`ActionForm::default_action`] builds it. For a form with
/// what acts ([`ActionForm::actor_field`]), a choice whose action is refused for that choice (a
/// refusal naming that field, the action, or none) is left out when the refusal is the turn's
/// ([`super::RejectKind::NotNow`]: its turn will come) and another choice is legal (marked
/// [`Choice::later`]); otherwise it carries its reason. The choices keep their order (the shell
/// offers the legal ones first): a page patched as units act then changes no choice, only what
/// the shell asks for when drawing them. When none is legal (with one reason for all,
/// only the form carries it), or for a form without one whose action is refused outright (naming
/// no field, or the action), the form carries the reason and is no longer the turn's highlighted
/// step. A form with a required choice that has nothing to choose from carries the rules'
/// refusal of it as it stands, whatever field that names. Otherwise a refusal naming another
/// field (a default the table changes) or a question to answer marks nothing.
pub fn mark_refusals(
    forms: Vec<ActionForm>,
    refusal: impl Fn(&serde_json::Value) -> Option<super::Rejection>,
) -> Vec<ActionForm> {
    let blocking = |r: &super::Rejection, actor: Option<&str>| {
        r.kind != super::RejectKind::Question
            && (r.field.is_none()
                || r.field.as_deref() == Some("action")
                || r.field.as_deref() == actor)
    };
    forms
        .into_iter()
        // A form with nothing to choose is not offered (issue 43, item 2: an order form with no
        // orders left drew an empty list and a live button).
        .filter(|f| !f.nothing_to_choose())
        .map(|mut f| {
            let actor = f.actor_field().map(|a| a.name.clone());
            // A required choice with nothing to choose (no unit the card can still order, no
            // card in hand): the form cannot be sent as it stands, whatever acts, and carries the
            // rules' refusal of it (found by the rules fuzzer, `crate::fuzz`: such forms were
            // offered as legal and refused when pressed).
            let unfillable = f.fields.iter().any(|x| {
                x.only_for.is_empty()
                    && matches!(&x.kind, FieldKind::Choice { options, optional: false } if options.is_empty())
            });
            let reason = match actor {
                _ if unfillable => refusal(&f.default_action(None))
                    .filter(|r| r.kind != super::RejectKind::Question)
                    .map(|r| r.message),
                Some(name) => {
                    let fi = f.fields.iter().position(|x| x.name == name);
                    let refusals: Vec<Option<super::Rejection>> =
                        match fi.map(|i| &f.fields[i].kind) {
                            Some(FieldKind::Choice { options, .. }) => options
                                .iter()
                                .map(|o| {
                                    refusal(&f.default_action(Some(&o.value)))
                                        .filter(|r| blocking(r, Some(&name)))
                                })
                                .collect(),
                            _ => Vec::new(),
                        };
                    let legal = refusals.iter().filter(|r| r.is_none()).count();
                    let first = refusals
                        .first()
                        .and_then(|r| r.as_ref().map(|r| &r.message));
                    let same = refusals
                        .iter()
                        .all(|r| r.as_ref().map(|r| &r.message) == first);
                    if let Some(FieldKind::Choice { options, .. }) =
                        fi.map(|i| &mut f.fields[i].kind)
                    {
                        // One reason for every choice (no leader has the initiative) is the
                        // form's, not repeated on each choice.
                        if !(legal == 0 && same) {
                            for (o, r) in options.iter_mut().zip(&refusals) {
                                if let Some(r) = r {
                                    o.refused = Some(r.message.clone());
                                    // Its turn will come (a unit outside the activation, one
                                    // that has acted): not offered while another may act.
                                    o.later = r.kind == super::RejectKind::NotNow && legal > 0;
                                }
                            }
                        }
                    }
                    match first {
                        Some(why) if legal == 0 && same => Some(why.clone()),
                        Some(_) if legal == 0 => Some(tercio_i18n::msg(
                            tercio_i18n::keys::INPUT_NO_LEGAL_CHOICE,
                            &[],
                        )),
                        _ => None,
                    }
                }
                None => refusal(&f.default_action(None))
                    .filter(|r| blocking(r, None))
                    .map(|r| r.message),
            };
            if reason.is_some() {
                f.primary = false;
                f.refused = reason;
            }
            f
        })
        .collect()
}

impl FormField {
    /// A field of `kind`, always shown, resetting nothing.
    fn of(name: &str, label: &str, kind: FieldKind) -> Self {
        FormField {
            name: name.into(),
            label: label.into(),
            kind,
            resets: false,
            only_for: Vec::new(),
            only_with: None,
            more: false,
            buttons: false,
            none: None,
            checked_for: Vec::new(),
        }
    }
    pub fn choice(name: &str, label: &str, options: Vec<Choice>, optional: bool) -> Self {
        FormField::of(name, label, FieldKind::Choice { options, optional })
    }
    /// Any number of `options` (none chosen: left out).
    pub fn choices(name: &str, label: &str, options: Vec<Choice>) -> Self {
        FormField::of(name, label, FieldKind::Choices { options })
    }
    pub fn flag(name: &str, label: &str) -> Self {
        FormField::of(name, label, FieldKind::Flag)
    }
    pub fn text(name: &str, label: &str, placeholder: &str) -> Self {
        let placeholder = placeholder.into();
        FormField::of(name, label, FieldKind::Text { placeholder })
    }
    pub fn number(name: &str, label: &str, min: i64, max: i64, value: i64) -> Self {
        FormField::of(name, label, FieldKind::Number { min, max, value })
    }

    /// The same field as what acts: choosing another value resets the form's other fields.
    pub fn resets(mut self) -> Self {
        self.resets = true;
        self
    }

    /// The same field, shown only when what acts is one of `values` (and then never empty: a
    /// field that applies to no unit on offer is better left out of the form).
    pub fn only_for(mut self, values: Vec<String>) -> Self {
        self.only_for = values;
        self
    }

    /// The same field, shown only when the form's field `field` is one of `values` (a field
    /// that applies to some targets only).
    pub fn only_when(mut self, field: &str, values: Vec<String>) -> Self {
        self.only_with = Some(field.into());
        self.only_for = values;
        self
    }

    /// The same tick box, ticked at first for what acts when it is one of `values`
    /// ([`FormField::checked_for`]).
    pub fn checked_for(mut self, values: Vec<String>) -> Self {
        self.checked_for = values;
        self
    }

    /// The same field, seldom changed: drawn one tap away ([`FormField::more`]).
    pub fn more(mut self) -> Self {
        self.more = true;
        self
    }

    /// The same field drawn as a button per choice, each acting ([`FormField::buttons`]); for an
    /// optional choice, `none` is the button that leaves it out ([`FormField::none`]).
    pub fn buttons(mut self, none: Option<&str>) -> Self {
        self.buttons = true;
        self.none = none.map(str::to_string);
        self
    }
}

impl Choice {
    pub fn new(value: impl Into<String>, label: impl Into<String>) -> Self {
        Choice {
            value: value.into(),
            label: label.into(),
            refused: None,
            later: false,
        }
    }
}
