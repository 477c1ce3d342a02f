//! The scenario a rule set is given: the types every rule set reads ([`ScenarioFile`] as
//! written, [`Scenario`] once checked), without the reader that checks them
//! ([`crate::scenario`], which finds each scenario's rule set in the registry and so sits above
//! the rule sets).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tercio_i18n::Lang;

use crate::diag::Diagnostic;

/// A text a scenario gives a player to read (its title, place and notes, the names of its sides,
/// leaders and units): written either as one string, as every scenario was before (and so every
/// recorded game's), or as an object with the text in each language, `{"en": "…", "it": "…"}`
/// (in TOML, `name = { en = "…", it = "…" }`). A page shows the viewer's language, or the other
/// when that one is missing ([`Text::get`]); an engine is given it as message text
/// ([`Text::message`]), which [`tercio_i18n::localize`] renders for each viewer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Text {
    /// One string, in whatever language it was written (a proper name, an older scenario).
    Plain(String),
    /// The text by language; at least one of the two (the reader refuses an empty object).
    Langs {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        en: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        it: Option<String>,
    },
}

impl Default for Text {
    fn default() -> Self {
        Text::Plain(String::new())
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text::Plain(s)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text::Plain(s.to_string())
    }
}

/// One string equals the same string; a text in both languages equals no single string.
impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        matches!(self, Text::Plain(s) if s == other)
    }
}

impl Text {
    /// The text in `lang`, or in the other language when it has none in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        match self {
            Text::Plain(s) => s,
            Text::Langs { en, it } => {
                let (first, second) = match lang {
                    Lang::En => (en, it),
                    Lang::It => (it, en),
                };
                [first, second]
                    .into_iter()
                    .flatten()
                    .find(|t| !t.trim().is_empty())
                    .map_or("", String::as_str)
            }
        }
    }

    /// The English text (or the only one): for what reads one language only (a file's name,
    /// the log of a command line tool).
    pub fn en(&self) -> &str {
        self.get(Lang::En)
    }

    /// The text as an engine is given it and states, events and forms carry it: one string as
    /// it is (the caller has made it message text, [`Scenario::as_message_text`]); both
    /// languages as one message ([`tercio_i18n::both`]), which [`tercio_i18n::localize`] shows
    /// in each viewer's language.
    pub fn message(&self) -> Cow<'_, str> {
        match self {
            Text::Plain(s) => Cow::Borrowed(s),
            // A proper name written the same in both: one text.
            Text::Langs { .. } if self.get(Lang::En) == self.get(Lang::It) => {
                tercio_i18n::plain(self.get(Lang::En))
            }
            Text::Langs { .. } => {
                Cow::Owned(tercio_i18n::both(self.get(Lang::En), self.get(Lang::It)))
            }
        }
    }

    /// The text as message text for any reader ([`tercio_i18n::plain`] for one string, the
    /// message of both languages otherwise): what the shell puts beside engine text in a JSON
    /// answer, which is then rendered in the request's language.
    pub fn plain(&self) -> Cow<'_, str> {
        match self {
            Text::Plain(s) => tercio_i18n::plain(s),
            Text::Langs { .. } => self.message(),
        }
    }

    /// Whether it is empty (or blank) in every language.
    pub fn is_blank(&self) -> bool {
        match self {
            Text::Plain(s) => s.trim().is_empty(),
            Text::Langs { en, it } => [en, it].into_iter().flatten().all(|t| t.trim().is_empty()),
        }
    }

    /// The language missing from a text given in both (`None` for one string, which is not
    /// asked to be in two languages here: [`crate::scenario::translations`] says so).
    pub fn missing(&self) -> Option<Lang> {
        match self {
            Text::Plain(_) => None,
            Text::Langs { en, it } => {
                let blank = |t: &Option<String>| t.as_deref().is_none_or(|t| t.trim().is_empty());
                if blank(en) {
                    Some(Lang::En)
                } else if blank(it) {
                    Some(Lang::It)
                } else {
                    None
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Attacker,
    Defender,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rank {
    /// The army commander: commands every unit of the army.
    Army,
    /// A battle or wing commander: commands the units that name them.
    Battle,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side {
    pub id: String,
    pub name: Text,
    pub role: Role,
    pub colour: String,
    pub camp: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leader {
    pub id: String,
    pub name: Text,
    pub side: String,
    pub bonus: u8,
    pub rank: Rank,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub id: String,
    pub name: Text,
    pub side: String,
    #[serde(rename = "type")]
    pub troop: String,
    pub bases: u8,
    pub leader: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nationality: Option<String>,
}

/// A scenario as written (in a game file, an export, the database), not checked: anything of
/// the right shape. [`Scenario::check`] or [`Scenario::recorded`] turn it into a [`Scenario`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioFile {
    pub ruleset: String,
    pub title: Text,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub place: Option<Text>,
    #[serde(default)]
    pub notes: Option<Text>,
    #[serde(default)]
    pub sources: Vec<String>,
    pub sides: Vec<Side>,
    pub leaders: Vec<Leader>,
    pub units: Vec<Unit>,
    /// House-rule overrides of chart entries, by dotted key (`fire_one`, `troops.gendarmes.impact`).
    #[serde(default)]
    pub house_rules: BTreeMap<String, i64>,
    /// The obstacles on the table that units cross (a stream, a ditch), for a rule set that
    /// tracks them ([`crate::RuleSet::obstacle_difficulties`]): offered by name where the table
    /// says which one a unit crosses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub obstacles: Vec<Obstacle>,
}

/// An obstacle on the table: its id (what actions name), its name as players read it, and its
/// difficulty when agreed before the battle (none: found by the first unit to cross it, as the
/// rule set says).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Obstacle {
    pub id: String,
    pub name: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<String>,
}

impl ScenarioFile {
    pub fn side(&self, id: &str) -> Option<&Side> {
        self.sides.iter().find(|s| s.id == id)
    }
}

/// A checked scenario: read-only (its fields through `Deref` to [`ScenarioFile`]), made only by
/// the reader, [`crate::scenario`]: `parse`, `Scenario::check` and `Scenario::recorded`.
/// Serialised exactly as its [`ScenarioFile`]; deliberately not `Deserialize`, so nothing reads
/// one without the checks.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct Scenario {
    pub(crate) file: ScenarioFile,
    /// The checks it failed when it was accepted as recorded ([`Scenario::recorded`]).
    #[serde(skip)]
    pub(crate) warnings: Vec<Diagnostic>,
}

impl PartialEq for Scenario {
    fn eq(&self, other: &Self) -> bool {
        self.file == other.file
    }
}

impl Eq for Scenario {}

impl std::ops::Deref for Scenario {
    type Target = ScenarioFile;
    fn deref(&self) -> &ScenarioFile {
        &self.file
    }
}

/// Where a scenario read as data comes from, so that its problems are reported at their line
/// and column: the file's name, its JSON text, and the scenario's path in it (`scenario` in a game
/// file or an export, empty when the text is the scenario itself).
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub path: &'a str,
}

impl Scenario {
    /// A scenario a rule set builds for itself (a stand-alone action's two units), not read from
    /// anywhere a person wrote.
    pub(crate) fn built(file: ScenarioFile) -> Scenario {
        Scenario {
            file,
            warnings: Vec::new(),
        }
    }

    /// The checks a recorded scenario fails (empty for one that passed them all).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The scenario as written.
    pub fn file(&self) -> &ScenarioFile {
        &self.file
    }

    pub fn into_file(self) -> ScenarioFile {
        self.file
    }

    /// The scenario as its engine is given it: every text a person wrote (title, date, place,
    /// notes, sources, the names of sides, leaders and units, nationalities) as message text
    /// ([`tercio_i18n::plain`]), so that the engine's states and messages never read a name as
    /// a marker; the scenario itself when there is nothing to escape (nearly always). Ids and
    /// troop types are not text (the check allows only key characters in them).
    pub fn as_message_text(&self) -> Cow<'_, Scenario> {
        let f = &self.file;
        // A text in both languages is made message text by `Text::message`; one string needs
        // escaping only when it holds a marker's characters.
        let needs = |t: &str| matches!(tercio_i18n::plain(t), Cow::Owned(_));
        let needs_text = |t: &Text| matches!(t, Text::Plain(s) if needs(s));
        let any = needs_text(&f.title)
            || f.date.as_deref().is_some_and(needs)
            || [&f.place, &f.notes].into_iter().flatten().any(needs_text)
            || f.sources.iter().any(|t| needs(t))
            || f.sides.iter().any(|s| needs_text(&s.name))
            || f.leaders.iter().any(|l| needs_text(&l.name))
            || f.units
                .iter()
                .any(|u| needs_text(&u.name) || u.nationality.as_deref().is_some_and(needs))
            || f.obstacles.iter().any(|o| needs_text(&o.name));
        if !any {
            return Cow::Borrowed(self);
        }
        let text = |t: &mut String| *t = tercio_i18n::plain(t).into_owned();
        let written = |t: &mut Text| {
            if let Text::Plain(s) = t {
                text(s)
            }
        };
        let mut sc = self.clone();
        let f = &mut sc.file;
        written(&mut f.title);
        if let Some(d) = &mut f.date {
            text(d);
        }
        for t in [&mut f.place, &mut f.notes].into_iter().flatten() {
            written(t);
        }
        f.sources.iter_mut().for_each(text);
        f.sides.iter_mut().for_each(|s| written(&mut s.name));
        f.leaders.iter_mut().for_each(|l| written(&mut l.name));
        for u in &mut f.units {
            written(&mut u.name);
            if let Some(n) = &mut u.nationality {
                text(n);
            }
        }
        f.obstacles.iter_mut().for_each(|o| written(&mut o.name));
        Cow::Owned(sc)
    }
}
