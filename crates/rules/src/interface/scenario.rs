//! The scenario a rule set is given: the types every rule set reads ([`ScenarioFile`] as
//! written, [`Scenario`] once checked), without the reader that checks them
//! ([`crate::scenario`], which finds each scenario's rule set in the registry and so sits above
//! the rule sets).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;

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
    pub name: String,
    pub role: Role,
    pub colour: String,
    pub camp: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leader {
    pub id: String,
    pub name: String,
    pub side: String,
    pub bonus: u8,
    pub rank: Rank,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub id: String,
    pub name: String,
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
    pub title: String,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub place: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
    pub sides: Vec<Side>,
    pub leaders: Vec<Leader>,
    pub units: Vec<Unit>,
    /// House-rule overrides of chart entries, by dotted key (`fire_one`, `troops.gendarmes.impact`).
    #[serde(default)]
    pub house_rules: BTreeMap<String, i64>,
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
        let needs = |t: &str| matches!(tercio_i18n::plain(t), Cow::Owned(_));
        let any = needs(&f.title)
            || [&f.date, &f.place, &f.notes]
                .into_iter()
                .flatten()
                .any(|t| needs(t))
            || f.sources.iter().any(|t| needs(t))
            || f.sides.iter().any(|s| needs(&s.name))
            || f.leaders.iter().any(|l| needs(&l.name))
            || f.units
                .iter()
                .any(|u| needs(&u.name) || u.nationality.as_deref().is_some_and(needs));
        if !any {
            return Cow::Borrowed(self);
        }
        let text = |t: &mut String| *t = tercio_i18n::plain(t).into_owned();
        let mut sc = self.clone();
        let f = &mut sc.file;
        text(&mut f.title);
        for t in [&mut f.date, &mut f.place, &mut f.notes]
            .into_iter()
            .flatten()
        {
            text(t);
        }
        f.sources.iter_mut().for_each(text);
        f.sides.iter_mut().for_each(|s| text(&mut s.name));
        f.leaders.iter_mut().for_each(|l| text(&mut l.name));
        for u in &mut f.units {
            text(&mut u.name);
            if let Some(n) = &mut u.nationality {
                text(n);
            }
        }
        Cow::Owned(sc)
    }
}
