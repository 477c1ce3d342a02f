//! The Renaissance (Andy Callan), Italian Wars edition (seed `003_f05e8e49e76e1302.txt`, in
//! Italian). Design and citations: `docs/rules/callan-renaissance.md` (sections cited as §n,
//! decisions as Dn).
//!
//! `tables` holds every number of the troop, fire, combat, discipline and points tables with its
//! citation; `resolve` the dice pools (6, 5–6, "5 e mezzo", the charge re-rolls, the commander's
//! re-roll) as declared plans, so odds and rolls come from one code path; `action` the typed
//! actions, read with the one reading of form fields; `game` the battle as a fold of absolute
//! effects (the turn deck, fire, combat, discipline, victory), a module a section; `engine` the
//! `RuleSet` and the typed `Rules` (the shell's `Engine` through `Typed`), the board, the forms
//! and the reference tables.
//!
//! Every text a person reads is a language-neutral message ([`m`]): a catalogue key with its
//! arguments, rendered in Italian or English by `tercio-i18n` where it is shown, so the event log
//! reads in each viewer's language.

pub mod action;
pub mod balance;
pub mod engine;
pub mod game;
pub mod play;
pub mod resolve;
pub mod tables;

pub const RULESET_ID: &str = "callan-renaissance";

/// Every text a player reads is a message of `callan.toml`: [`m`], [`k`].
pub use crate::text::{k, m};

/// An argument naming a catalogue term (`@callan.term.<id>`).
pub fn term(id: &str) -> String {
    format!("@callan.term.{id}")
}
