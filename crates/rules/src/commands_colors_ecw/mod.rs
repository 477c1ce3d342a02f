//! Commands & Colors: Napoleonics, English Civil War variant (seed `004_87c88ceb03e2b5f8.txt`).
//! Design and citations: `docs/rules/commands-colors-ecw.md`.
//!
//! Built so far: the battle die and the combat charts (`tables`), and battle rolls with their
//! exact odds (`resolve`): dice by unit class, blocks, training and bonuses, what each symbol does
//! to each target, flags multiplied by training, ignored flags, blocks lost for retreats that
//! cannot be taken; a melee with its battle back, and horse against a Stand of Pikes. The decks,
//! the turn, seats' hands and the `Engine` binding are still to come; until then the rule set is
//! listed as not yet available.

pub mod engine;
pub mod game;
pub mod resolve;
pub mod tables;

pub const RULESET_ID: &str = "commands-colors-ecw";
