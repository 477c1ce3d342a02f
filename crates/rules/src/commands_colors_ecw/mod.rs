//! Commands & Colors: Napoleonics, English Civil War variant (seed `004_87c88ceb03e2b5f8.txt`).
//! Design and citations: `docs/rules/commands-colors-ecw.md`.
//!
//! The charts (`tables`); battle rolls with their exact odds (`resolve`); the game as a fold of
//! JSON-pointer patches, one file per section of the rules (`game`), its typed actions
//! (`game::Action`) and the Chaunce cards one function each (`game::chaunce`); and the binding
//! to the typed `Rules` trait, with the board, the forms and each seat's view (`engine`).

pub mod engine;
pub mod game;
pub mod resolve;
pub mod tables;

pub const RULESET_ID: &str = "commands-colors-ecw";
