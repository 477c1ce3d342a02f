//! The actions of the app-driven system, typed: one variant per action with the fields it uses
//! (any other field is refused by name), read with [`input`]'s one reading of form text, so the
//! API's `true` and a form's `"on"` mean the same. [`Action::request`] gives the app's fields
//! ([`ActionRequest`]) the planner works on.
//!
//! The end of the turn takes its fires and its sacked camps either as lists (`fires`,
//! `camps_sacked`, as the API and recorded games write them) or as fields per unit or camp, as
//! the page's form sends them: `fire.<unit>` (the target), `bases.<unit>` (its firing bases, the
//! front rank), `ground.<unit>`, the second target of a split fire `split.<unit>` with
//! `split-bases.<unit>` and `split-ground.<unit>`, `no-target.<unit>` (a Swiss block with no enemy
//! in reach) and `sack.<side>.<n>` (a looter). Each fire made from the form remembers its field
//! ([`FormSlot`]), so that a refusal names the form's field, not `fires[i]`.

use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde::Deserialize;
use serde_json::Value;
use tercio_i18n::msg;

use super::model::{
    ActionKind, ActionRequest, CampSack, Force, Ground, InlineUnit, LeaderField, Status, UnitRef,
};
use crate::interface::input;

/// A yes/no answer that may be absent (a question not answered yet, a default not overridden):
/// the flags of [`input::flag`], with `null` and `""` absent.
fn opt_flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    let v = Value::deserialize(d)?;
    match &v {
        Value::Null => Ok(None),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        _ => input::flag(v).map(Some).map_err(D::Error::custom),
    }
}

/// One of a list of names (a status, a ground, a force ratio); `null` and `""` absent.
fn opt_choice<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    let v = Value::deserialize(d)?;
    match &v {
        Value::Null => Ok(None),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => T::deserialize(Value::String(s.trim().to_string()))
            .map(Some)
            .map_err(|e| {
                D::Error::custom(msg(
                    "app_driven.input.bad-choice",
                    &[
                        ("value", tercio_i18n::plain(&tercio_i18n::clip(s)).as_ref()),
                        ("allowed", &choices(&e.to_string())),
                    ],
                ))
            }),
        other => {
            // A name none of the choices has, for serde to list them.
            let e = T::deserialize(Value::String(String::new()))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            Err(D::Error::custom(msg(
                "app_driven.input.bad-choice",
                &[
                    ("value", tercio_i18n::clip(&other.to_string()).as_ref()),
                    ("allowed", &choices(&e)),
                ],
            )))
        }
    }
}

/// The names serde lists after "expected one of" in its refusal of a name.
fn choices(serde_error: &str) -> String {
    serde_error
        .split_once("expected one of ")
        .map_or(String::new(), |(_, l)| l.replace('`', ""))
}

/// A unit: its id in a game (a text), or described inline (stand-alone); `null` and `""` absent.
fn opt_unit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<UnitRef>, D::Error> {
    let v = Value::deserialize(d)?;
    match v {
        Value::Object(_) => InlineUnit::deserialize(v)
            .map(|u| Some(UnitRef::Inline(u)))
            .map_err(D::Error::custom),
        other => Ok(input::opt_text(other)
            .map_err(D::Error::custom)?
            .map(UnitRef::Id)),
    }
}

/// The 'Leader with' box: `true`/`false` stand-alone, a leader's id in a game.
fn opt_leader<'de, D: Deserializer<'de>>(d: D) -> Result<Option<LeaderField>, D::Error> {
    let v = Value::deserialize(d)?;
    match v {
        Value::Bool(b) => Ok(Some(LeaderField::Flag(b))),
        other => Ok(input::opt_text(other)
            .map_err(D::Error::custom)?
            .map(LeaderField::Id)),
    }
}

/// A number of bases; absent when empty.
fn opt_bases<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
    input::opt_number(d)
}

/// Units by id: a list, or one text separated by commas; absent when empty.
fn opt_units<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    input::ids(d).map(|ids| (!ids.is_empty()).then_some(ids))
}

/// One action of A Bloody Dismal Fight or El Gran Capitán.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Action {
    /// The initiative roll.
    Initiative {},
    /// The leader given the initiative rolls for his activations.
    Command {
        #[serde(default, deserialize_with = "input::opt_text")]
        leader: Option<String>,
    },
    /// The game master ends the initiatives: the end of the turn follows.
    #[serde(alias = "end_initiatives")]
    EndInitiatives {},
    Rest(Regroup),
    Regroup(Regroup),
    Advance(Move),
    March(Move),
    Retire(Retire),
    Charge(Charge),
    Fire(Fire),
    Melee(Melee),
    /// A leader joins a unit (`unit` absent: he stands alone).
    Attach {
        #[serde(default, deserialize_with = "input::opt_text")]
        leader: Option<String>,
        #[serde(default, deserialize_with = "input::opt_text")]
        unit: Option<String>,
    },
    /// A fallen leader's command passes to a surviving one.
    #[serde(alias = "assign_command")]
    AssignCommand {
        #[serde(default, deserialize_with = "input::opt_text")]
        leader: Option<String>,
        #[serde(default, deserialize_with = "input::opt_text")]
        to: Option<String>,
    },
    /// The game master takes a unit off the table without counting it as lost (a unit that leaves
    /// the battle by a scenario's rule or the table's decision).
    Remove {
        #[serde(default, deserialize_with = "input::opt_text")]
        unit: Option<String>,
    },
    #[serde(alias = "end_fire")]
    EndFire(EndFire),
    #[serde(alias = "end_turn")]
    EndTurn(EndTurn),
}

/// Rest or Regroup: a unit recovers (in an ongoing combat, the Melee follows).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Regroup {
    #[serde(default, deserialize_with = "opt_unit")]
    pub actor: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_leader")]
    pub leader_with_actor: Option<LeaderField>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub plant_stakes: Option<bool>,
    #[serde(default, deserialize_with = "opt_unit")]
    pub target: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub target_status: Option<Status>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub ground: Option<Ground>,
    #[serde(default, deserialize_with = "opt_leader")]
    pub leader_with_target: Option<LeaderField>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub actor_in_flank: Option<bool>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub target_in_flank: Option<bool>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub force: Option<Force>,
    #[serde(default, deserialize_with = "opt_bases")]
    pub supporting_actor_bases: Option<u8>,
    #[serde(default, deserialize_with = "opt_bases")]
    pub supporting_target_bases: Option<u8>,
    #[serde(default, deserialize_with = "opt_units")]
    pub supporting_actor_units: Option<Vec<String>>,
    #[serde(default, deserialize_with = "opt_units")]
    pub supporting_target_units: Option<Vec<String>>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub actor_status: Option<Status>,
}

/// Advance or March.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Move {
    #[serde(default, deserialize_with = "opt_unit")]
    pub actor: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_leader")]
    pub leader_with_actor: Option<LeaderField>,
}

/// Retire from an ongoing combat.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retire {
    #[serde(default, deserialize_with = "opt_unit")]
    pub actor: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_leader")]
    pub leader_with_actor: Option<LeaderField>,
    #[serde(default, deserialize_with = "opt_unit")]
    pub target: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub target_status: Option<Status>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub ground: Option<Ground>,
    #[serde(default, deserialize_with = "opt_leader")]
    pub leader_with_target: Option<LeaderField>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub actor_in_flank: Option<bool>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub target_in_flank: Option<bool>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub force: Option<Force>,
    #[serde(default, deserialize_with = "opt_bases")]
    pub supporting_actor_bases: Option<u8>,
    #[serde(default, deserialize_with = "opt_bases")]
    pub supporting_target_bases: Option<u8>,
    #[serde(default, deserialize_with = "opt_units")]
    pub supporting_actor_units: Option<Vec<String>>,
    #[serde(default, deserialize_with = "opt_units")]
    pub supporting_target_units: Option<Vec<String>>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub actor_status: Option<Status>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub contacted_on_several_faces: Option<bool>,
}

/// A charge, with its questions (the arc of fire, the evasion) and the Melee it leads to.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Charge {
    #[serde(default, deserialize_with = "opt_bases")]
    pub defensive_firing_bases: Option<u8>,
    #[serde(default, deserialize_with = "opt_unit")]
    pub actor: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_unit")]
    pub target: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub target_status: Option<Status>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub ground: Option<Ground>,
    #[serde(default, deserialize_with = "opt_leader")]
    pub leader_with_actor: Option<LeaderField>,
    #[serde(default, deserialize_with = "opt_leader")]
    pub leader_with_target: Option<LeaderField>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub actor_status: Option<Status>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub frontal: Option<bool>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub crosses_arc_of_fire: Option<bool>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub target_evades: Option<bool>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub contact_after_evade: Option<bool>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub ferocious: Option<bool>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub force: Option<Force>,
    #[serde(default, deserialize_with = "opt_bases")]
    pub supporting_actor_bases: Option<u8>,
    #[serde(default, deserialize_with = "opt_bases")]
    pub supporting_target_bases: Option<u8>,
    #[serde(default, deserialize_with = "opt_units")]
    pub supporting_actor_units: Option<Vec<String>>,
    #[serde(default, deserialize_with = "opt_units")]
    pub supporting_target_units: Option<Vec<String>>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub actor_in_flank: Option<bool>,
}

/// Fire at a target.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fire {
    #[serde(default, deserialize_with = "opt_unit")]
    pub actor: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_unit")]
    pub target: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub target_status: Option<Status>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub ground: Option<Ground>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub actor_status: Option<Status>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub force: Option<Force>,
    #[serde(default, deserialize_with = "opt_bases")]
    pub firing_bases: Option<u8>,
    /// A second target of the same Fire action, with the bases firing at it and its cover.
    #[serde(default, deserialize_with = "opt_unit")]
    pub second_target: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_bases")]
    pub second_firing_bases: Option<u8>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub second_ground: Option<Ground>,
    /// The end-of-turn form's fields this fire was made from; never read from JSON.
    #[serde(skip)]
    pub slot: Option<FormSlot>,
}

/// Which of the end-of-turn form's fields made a fire: a unit's first target (`fire.<unit>`,
/// `bases.<unit>`, `ground.<unit>`) or its second (`split.<unit>`, `split-bases.<unit>`,
/// `split-ground.<unit>`).
#[derive(Debug, Clone, PartialEq)]
pub struct FormSlot {
    pub unit: String,
    pub split: bool,
}

/// A Melee (an ongoing combat, or one the page resolves by itself).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Melee {
    #[serde(default, deserialize_with = "opt_unit")]
    pub actor: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_unit")]
    pub target: Option<UnitRef>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub target_status: Option<Status>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub ground: Option<Ground>,
    #[serde(default, deserialize_with = "opt_leader")]
    pub leader_with_actor: Option<LeaderField>,
    #[serde(default, deserialize_with = "opt_leader")]
    pub leader_with_target: Option<LeaderField>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub actor_status: Option<Status>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub actor_charging: Option<bool>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub actor_in_flank: Option<bool>,
    #[serde(default, deserialize_with = "opt_flag")]
    pub target_in_flank: Option<bool>,
    /// The two units touch on the table without a Charge (a second enemy in contact, contact
    /// after an occupying move): the Melee starts a combat between them.
    #[serde(default, deserialize_with = "opt_flag")]
    pub in_contact: Option<bool>,
    #[serde(default, deserialize_with = "opt_choice")]
    pub force: Option<Force>,
    #[serde(default, deserialize_with = "opt_bases")]
    pub supporting_actor_bases: Option<u8>,
    #[serde(default, deserialize_with = "opt_bases")]
    pub supporting_target_bases: Option<u8>,
    #[serde(default, deserialize_with = "opt_units")]
    pub supporting_actor_units: Option<Vec<String>>,
    #[serde(default, deserialize_with = "opt_units")]
    pub supporting_target_units: Option<Vec<String>>,
}

/// The simultaneous fire at the end of the turn.
#[derive(Debug, Clone, Default)]
pub struct EndFire {
    /// Each fire, as a `fire` action.
    pub fires: Vec<Action>,
    /// Swiss Pikemen with no eligible enemy within 9" (El Gran Capitán).
    pub swiss_without_targets: Option<Vec<String>>,
    /// What the page's form gave, unit by unit, checked as a whole before the fire is planned
    /// (a second target needs a first, and its own bases).
    pub form: Vec<FormFire>,
}

/// One unit's fields of the end-of-turn form, as given (absent: left out).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FormFire {
    pub unit: String,
    /// `fire.<unit>`: the first target.
    pub target: Option<String>,
    /// `bases.<unit>`: the bases firing at it (absent: all the unit's bases).
    pub bases: Option<u8>,
    /// `ground.<unit>`: its cover (absent: open).
    pub ground: Option<Ground>,
    /// `split.<unit>`: a second target, for a fire split between two.
    pub split: Option<String>,
    /// `split-bases.<unit>`: the bases firing at the second target.
    pub split_bases: Option<u8>,
    /// `split-ground.<unit>`: the second target's cover (absent: open).
    pub split_ground: Option<Ground>,
}

impl EndFire {
    /// The form's field behind a refusal of `fires[i]…` when fire `i` was made from the form
    /// (`fires[2].firing_bases` → `split-bases.<unit>`); any other field as it is.
    pub fn form_field(&self, field: &str) -> Option<String> {
        let (i, rest) = field.strip_prefix("fires[")?.split_once(']')?;
        let Action::Fire(Fire {
            slot: Some(slot), ..
        }) = self.fires.get(i.parse::<usize>().ok()?)?
        else {
            return None;
        };
        let name = match (slot.split, rest.trim_start_matches('.')) {
            (false, "firing_bases") => "bases",
            (false, "ground") => "ground",
            (false, _) => "fire",
            (true, "firing_bases") => "split-bases",
            (true, "ground") => "split-ground",
            (true, _) => "split",
        };
        Some(format!("{name}.{}", slot.unit))
    }
}

/// Camps sacked, and the break check.
#[derive(Debug, Clone, Default)]
pub struct EndTurn {
    pub camps_sacked: Vec<CampSack>,
}

/// A refusal of a field, worded as serde words it (`read_action` names the field from it).
fn unknown<E: serde::de::Error>(key: &str, allowed: &str) -> E {
    E::custom(format!("unknown field `{key}`, expected one of {allowed}"))
}

/// A field's value read by `reader`; its problem as text (`read_action` finds the field).
fn field<T>(
    v: Value,
    reader: impl FnOnce(Value) -> Result<T, serde_json::Error>,
) -> Result<T, String> {
    reader(v).map_err(|e| e.to_string())
}

impl<'de> Deserialize<'de> for EndFire {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const ALLOWED: &str = "`fires`, `swiss_without_targets`, `fire.<unit>`, `bases.<unit>`, \
            `ground.<unit>`, `split.<unit>`, `split-bases.<unit>`, `split-ground.<unit>`, \
            `no-target.<unit>`";
        let map = BTreeMap::<String, Value>::deserialize(d)?;
        let mut out = EndFire::default();
        // Per unit, in the order of the units' ids: its fields as given.
        let mut units: BTreeMap<String, FormFire> = BTreeMap::new();
        fn of<'a>(units: &'a mut BTreeMap<String, FormFire>, id: &str) -> &'a mut FormFire {
            units.entry(id.to_string()).or_insert_with(|| FormFire {
                unit: id.to_string(),
                ..FormFire::default()
            })
        }
        let mut swiss: Vec<String> = Vec::new();
        for (k, v) in map {
            let r = if k == "fires" {
                field(v, |v| {
                    Option::<Vec<Action>>::deserialize(v).map(|f| out.fires = f.unwrap_or_default())
                })
            } else if k == "swiss_without_targets" {
                field(v, |v| input::ids(v).map(|ids| swiss.extend(ids)))
            } else if let Some(id) = k.strip_prefix("fire.") {
                field(v, |v| {
                    input::opt_text(v).map(|t| of(&mut units, id).target = t)
                })
            } else if let Some(id) = k.strip_prefix("bases.") {
                field(v, |v| {
                    input::opt_number(v).map(|n| of(&mut units, id).bases = n)
                })
            } else if let Some(id) = k.strip_prefix("ground.") {
                field(v, |v| opt_choice(v).map(|g| of(&mut units, id).ground = g))
            } else if let Some(id) = k.strip_prefix("split.") {
                field(v, |v| {
                    input::opt_text(v).map(|t| of(&mut units, id).split = t)
                })
            } else if let Some(id) = k.strip_prefix("split-bases.") {
                field(v, |v| {
                    input::opt_number(v).map(|n| of(&mut units, id).split_bases = n)
                })
            } else if let Some(id) = k.strip_prefix("split-ground.") {
                field(v, |v| {
                    opt_choice(v).map(|g| of(&mut units, id).split_ground = g)
                })
            } else if let Some(id) = k.strip_prefix("no-target.") {
                field(v, |v| {
                    if input::flag(v)? {
                        swiss.push(id.to_string());
                    }
                    Ok(())
                })
            } else {
                return Err(unknown(&k, ALLOWED));
            };
            r.map_err(D::Error::custom)?;
        }
        // A unit's first target, then its second (a split needs a first target and another
        // one: `check_form` refuses the rest by field before anything is planned).
        let fire = |f: &FormFire, target: &str, ground: Option<Ground>, bases, split| {
            Action::Fire(Fire {
                actor: Some(UnitRef::Id(f.unit.clone())),
                target: Some(UnitRef::Id(target.to_string())),
                ground: Some(ground.unwrap_or_default()),
                firing_bases: bases,
                slot: Some(FormSlot {
                    unit: f.unit.clone(),
                    split,
                }),
                ..Fire::default()
            })
        };
        for f in units.values() {
            if let Some(target) = &f.target {
                out.fires.push(fire(f, target, f.ground, f.bases, false));
                if let Some(second) = f.split.as_ref().filter(|s| *s != target) {
                    out.fires
                        .push(fire(f, second, f.split_ground, f.split_bases, true));
                }
            }
        }
        out.form = units.into_values().collect();
        out.swiss_without_targets = (!swiss.is_empty()).then_some(swiss);
        Ok(out)
    }
}

impl<'de> Deserialize<'de> for EndTurn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const ALLOWED: &str = "`camps_sacked`, `sack.<side>.<n>`";
        let map = BTreeMap::<String, Value>::deserialize(d)?;
        let mut out = EndTurn::default();
        let mut looters: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (k, v) in map {
            let r = if k == "camps_sacked" {
                field(v, |v| {
                    Option::<Vec<CampSack>>::deserialize(v)
                        .map(|c| out.camps_sacked = c.unwrap_or_default())
                })
            } else if let Some((side, _)) = k.strip_prefix("sack.").and_then(|r| r.rsplit_once('.'))
            {
                field(v, |v| {
                    input::opt_text(v).map(|u| {
                        let by = looters.entry(side.to_string()).or_default();
                        by.extend(u.filter(|u| !by.contains(u)));
                    })
                })
            } else {
                return Err(unknown(&k, ALLOWED));
            };
            r.map_err(D::Error::custom)?;
        }
        for (side, by) in looters {
            if !by.is_empty() {
                out.camps_sacked.push(CampSack { side, by });
            }
        }
        Ok(out)
    }
}

impl Action {
    /// The action's kind.
    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Initiative {} => ActionKind::Initiative,
            Action::Command { .. } => ActionKind::Command,
            Action::EndInitiatives {} => ActionKind::EndInitiatives,
            Action::Rest(_) => ActionKind::Rest,
            Action::Regroup(_) => ActionKind::Regroup,
            Action::Advance(_) => ActionKind::Advance,
            Action::March(_) => ActionKind::March,
            Action::Retire(_) => ActionKind::Retire,
            Action::Charge(_) => ActionKind::Charge,
            Action::Fire(_) => ActionKind::Fire,
            Action::Melee(_) => ActionKind::Melee,
            Action::Attach { .. } => ActionKind::Attach,
            Action::AssignCommand { .. } => ActionKind::AssignCommand,
            Action::Remove { .. } => ActionKind::Remove,
            Action::EndFire(_) => ActionKind::EndFire,
            Action::EndTurn(_) => ActionKind::EndTurn,
        }
    }

    /// The acting unit's id, for the actions of a unit in a game.
    pub fn actor(&self) -> Option<&str> {
        let r = match self {
            Action::Rest(a) | Action::Regroup(a) => a.actor.as_ref(),
            Action::Advance(a) | Action::March(a) => a.actor.as_ref(),
            Action::Retire(a) => a.actor.as_ref(),
            Action::Charge(a) => a.actor.as_ref(),
            Action::Fire(a) => a.actor.as_ref(),
            Action::Melee(a) => a.actor.as_ref(),
            _ => None,
        };
        match r {
            Some(UnitRef::Id(id)) => Some(id),
            _ => None,
        }
    }

    /// The leader a command action moves.
    pub fn leader(&self) -> Option<&str> {
        match self {
            Action::Command { leader }
            | Action::Attach { leader, .. }
            | Action::AssignCommand { leader, .. } => leader.as_deref(),
            _ => None,
        }
    }

    /// The app's fields, as the planner reads them.
    pub fn request(&self) -> ActionRequest {
        let mut r = ActionRequest::blank(self.kind());
        match self.clone() {
            Action::Initiative {} | Action::EndInitiatives {} => {}
            Action::Command { leader } => r.leader = leader,
            Action::Rest(a) | Action::Regroup(a) => {
                r.actor = a.actor;
                r.leader_with_actor = a.leader_with_actor;
                r.plant_stakes = a.plant_stakes;
                r.target = a.target;
                r.target_status = a.target_status;
                r.ground = a.ground;
                r.leader_with_target = a.leader_with_target;
                r.actor_in_flank = a.actor_in_flank;
                r.target_in_flank = a.target_in_flank;
                r.force = a.force;
                r.supporting_actor_bases = a.supporting_actor_bases;
                r.supporting_target_bases = a.supporting_target_bases;
                r.supporting_actor_units = a.supporting_actor_units;
                r.supporting_target_units = a.supporting_target_units;
                r.actor_status = a.actor_status;
            }
            Action::Advance(a) | Action::March(a) => {
                r.actor = a.actor;
                r.leader_with_actor = a.leader_with_actor;
            }
            Action::Retire(a) => {
                r.actor = a.actor;
                r.leader_with_actor = a.leader_with_actor;
                r.target = a.target;
                r.target_status = a.target_status;
                r.ground = a.ground;
                r.leader_with_target = a.leader_with_target;
                r.actor_in_flank = a.actor_in_flank;
                r.target_in_flank = a.target_in_flank;
                r.force = a.force;
                r.supporting_actor_bases = a.supporting_actor_bases;
                r.supporting_target_bases = a.supporting_target_bases;
                r.supporting_actor_units = a.supporting_actor_units;
                r.supporting_target_units = a.supporting_target_units;
                r.actor_status = a.actor_status;
                r.contacted_on_several_faces = a.contacted_on_several_faces;
            }
            Action::Charge(a) => {
                r.defensive_firing_bases = a.defensive_firing_bases;
                r.actor = a.actor;
                r.target = a.target;
                r.target_status = a.target_status;
                r.ground = a.ground;
                r.leader_with_actor = a.leader_with_actor;
                r.leader_with_target = a.leader_with_target;
                r.actor_status = a.actor_status;
                r.frontal = a.frontal;
                r.crosses_arc_of_fire = a.crosses_arc_of_fire;
                r.target_evades = a.target_evades;
                r.contact_after_evade = a.contact_after_evade;
                r.ferocious = a.ferocious;
                r.force = a.force;
                r.supporting_actor_bases = a.supporting_actor_bases;
                r.supporting_target_bases = a.supporting_target_bases;
                r.supporting_actor_units = a.supporting_actor_units;
                r.supporting_target_units = a.supporting_target_units;
                r.actor_in_flank = a.actor_in_flank;
            }
            Action::Fire(a) => {
                r.actor = a.actor;
                r.target = a.target;
                r.target_status = a.target_status;
                r.ground = a.ground;
                r.actor_status = a.actor_status;
                r.force = a.force;
                r.firing_bases = a.firing_bases;
                r.second_target = a.second_target;
                r.second_firing_bases = a.second_firing_bases;
                r.second_ground = a.second_ground;
            }
            Action::Melee(a) => {
                r.actor = a.actor;
                r.target = a.target;
                r.target_status = a.target_status;
                r.ground = a.ground;
                r.leader_with_actor = a.leader_with_actor;
                r.leader_with_target = a.leader_with_target;
                r.actor_status = a.actor_status;
                r.actor_charging = a.actor_charging;
                r.actor_in_flank = a.actor_in_flank;
                r.target_in_flank = a.target_in_flank;
                r.in_contact = a.in_contact;
                r.force = a.force;
                r.supporting_actor_bases = a.supporting_actor_bases;
                r.supporting_target_bases = a.supporting_target_bases;
                r.supporting_actor_units = a.supporting_actor_units;
                r.supporting_target_units = a.supporting_target_units;
            }
            Action::Attach { leader, unit } => {
                r.leader = leader;
                r.unit = unit;
            }
            Action::AssignCommand { leader, to } => {
                r.leader = leader;
                r.to = to;
            }
            Action::Remove { unit } => r.unit = unit,
            Action::EndFire(e) => {
                r.fires = Some(e.fires.iter().map(Action::request).collect());
                r.swiss_without_targets = e.swiss_without_targets;
            }
            Action::EndTurn(e) => r.camps_sacked = Some(e.camps_sacked),
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interface::input::read_action;
    use serde_json::json;

    fn read(v: Value) -> Result<Action, crate::interface::Rejection> {
        read_action(&v)
    }

    #[test]
    fn form_text_and_api_values_read_the_same() {
        let api = read(
            json!({"action": "charge", "actor": "a", "target": "b", "ground": "obstacle",
            "frontal": false, "supporting_actor_bases": 2, "force": "even"}),
        )
        .unwrap()
        .request();
        let form = read(
            json!({"action": "charge", "actor": " a", "target": "b ", "ground": "obstacle",
            "frontal": "off", "supporting_actor_bases": "2", "force": "even", "target_status": ""}),
        )
        .unwrap()
        .request();
        assert_eq!(api, form);
        assert_eq!(api.frontal, Some(false));
        assert_eq!(api.target_status, None);
        assert_eq!(api.supporting_actor_bases, Some(2));
        // Supporting units: a list, or the page's text separated by commas; none is left out.
        let listed = read(json!({"action": "melee", "actor": "a", "supporting_actor_units": ["b", "c"], "supporting_target_units": []}))
            .unwrap()
            .request();
        let typed = read(json!({"action": "melee", "actor": "a", "supporting_actor_units": " b, c ", "supporting_target_units": ""}))
            .unwrap()
            .request();
        assert_eq!(listed, typed);
        assert_eq!(
            listed.supporting_actor_units,
            Some(vec!["b".into(), "c".into()])
        );
        assert_eq!(listed.supporting_target_units, None);
        let r = read(json!({"action": "melee", "supporting_actor_units": [3]})).unwrap_err();
        assert_eq!(r.field.as_deref(), Some("supporting_actor_units"), "{r:?}");
    }

    #[test]
    fn every_action_refuses_a_field_it_does_not_use() {
        for name in [
            "initiative",
            "command",
            "end-initiatives",
            "rest",
            "regroup",
            "advance",
            "march",
            "retire",
            "charge",
            "fire",
            "melee",
            "attach",
            "assign-command",
            "remove",
            "end-fire",
            "end-turn",
        ] {
            let r = read(json!({"action": name, "bogus": 1})).unwrap_err();
            assert_eq!(
                (r.code.as_str(), r.field.as_deref()),
                ("unknown-field", Some("bogus")),
                "{name}: {r:?}"
            );
        }
        let r = read(json!({"action": "advance", "actor": "a", "target": "b"})).unwrap_err();
        assert_eq!(r.field.as_deref(), Some("target"), "{r:?}");
        let r = read(json!({"action": "fire", "actor": "a", "ground": "swamp"})).unwrap_err();
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("bad-field", Some("ground")),
            "{r:?}"
        );
    }

    #[test]
    fn old_spellings_still_read() {
        for (old, kind) in [
            ("end_initiatives", ActionKind::EndInitiatives),
            ("assign_command", ActionKind::AssignCommand),
            ("end_fire", ActionKind::EndFire),
            ("end_turn", ActionKind::EndTurn),
        ] {
            assert_eq!(read(json!({"action": old})).unwrap().kind(), kind, "{old}");
        }
    }

    /// A unit's bases and a second target from the form (issue 17, item 9) read into the
    /// same fires as the list, and a refusal of each fire names the form's field it came from.
    #[test]
    fn a_split_fire_reads_from_the_forms_fields_each_fire_with_its_field() {
        let fire = |a: &str, t: &str, bases: u8, ground: &str| json!({"action": "fire", "actor": a, "target": t, "firing_bases": bases, "ground": ground});
        let listed = read(json!({"action": "end-fire", "fires": [
            fire("a", "x", 2, "open"), fire("a", "y", 1, "rough"), fire("b", "y", 3, "open")]}))
        .unwrap()
        .request();
        let sent = json!({"action": "end-fire", "fire.a": "x", "bases.a": "2", "split.a": "y",
            "split-bases.a": 1, "split-ground.a": "rough", "fire.b": "y", "bases.b": 3,
            "ground.b": "open", "split.b": ""});
        assert_eq!(read(sent.clone()).unwrap().request(), listed);
        let Action::EndFire(end) = read(sent).unwrap() else {
            panic!("end-fire");
        };
        for (field, form) in [
            ("fires[0].firing_bases", "bases.a"),
            ("fires[0].ground", "ground.a"),
            ("fires[0].actor", "fire.a"),
            ("fires[1].firing_bases", "split-bases.a"),
            ("fires[1].ground", "split-ground.a"),
            ("fires[1].target", "split.a"),
            ("fires[1]", "split.a"),
            ("fires[2].target", "fire.b"),
        ] {
            assert_eq!(end.form_field(field).as_deref(), Some(form), "{field}");
        }
        assert_eq!(end.form_field("fires[3].target"), None);
        assert_eq!(end.form.len(), 2);
        // The list's own fires keep their place.
        let Action::EndFire(end) = read(json!({"action": "end-fire",
            "fires": [fire("c", "x", 1, "open")], "fire.a": "x"}))
        .unwrap() else {
            panic!("end-fire");
        };
        assert_eq!(end.form_field("fires[0].firing_bases"), None);
        assert_eq!(
            end.form_field("fires[1].firing_bases").as_deref(),
            Some("bases.a")
        );
        // A number that cannot be read is refused at its field.
        for bad in ["bases.a", "split-bases.a"] {
            let r = read(json!({"action": "end-fire", "fire.a": "x", "split.a": "y", bad: "two"}))
                .unwrap_err();
            assert_eq!(
                (r.code.as_str(), r.field.as_deref()),
                ("bad-field", Some(bad))
            );
        }
        let r = read(json!({"action": "end-fire", "split-ground.a": "swamp"})).unwrap_err();
        assert_eq!(r.field.as_deref(), Some("split-ground.a"), "{r:?}");
    }

    #[test]
    fn the_end_of_turn_reads_its_lists_or_one_field_per_unit() {
        let listed = read(json!({"action": "end-fire", "fires": [
            {"action": "fire", "actor": "a", "target": "x", "ground": "open"},
            {"action": "fire", "actor": "b", "target": "y", "ground": "rough"}],
            "swiss_without_targets": ["s"]}))
        .unwrap()
        .request();
        let form = read(json!({"action": "end-fire", "fire.b": "y", "ground.b": "rough",
            "fire.a": "x", "fire.c": "", "ground.c": "open", "no-target.s": "on", "no-target.t": ""}))
        .unwrap()
        .request();
        assert_eq!(listed, form);
        let r = read(json!({"action": "end-fire", "fire.a": "x", "aim.a": "y"})).unwrap_err();
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("unknown-field", Some("aim.a"))
        );
        let r = read(json!({"action": "end-fire", "ground.a": "swamp"})).unwrap_err();
        assert_eq!(r.field.as_deref(), Some("ground.a"), "{r:?}");

        let listed =
            read(json!({"action": "end-turn", "camps_sacked": [{"side": "f", "by": ["a", "b"]}]}))
                .unwrap()
                .request();
        let form = read(
            json!({"action": "end-turn", "sack.f.1": "a", "sack.f.2": "b", "sack.f.3": "",
            "sack.g.1": ""}),
        )
        .unwrap()
        .request();
        assert_eq!(listed, form);
        assert_eq!(
            read(json!({"action": "end-turn"}))
                .unwrap()
                .request()
                .camps_sacked,
            Some(vec![])
        );
    }
}
