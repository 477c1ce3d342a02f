//! Commands & Colors: Napoleonics, English Civil War variant (seed `004_87c88ceb03e2b5f8.txt`).
//! Design and citations: `docs/rules/commands-colors-ecw.md`.
//!
//! The charts (`tables`); battle rolls with their exact odds (`resolve`); the game as a fold of
//! JSON-pointer patches, one file per section of the rules (`game`), its typed actions
//! (`game::Action`) and the Chaunce cards one function each (`game::chaunce`); and the binding
//! to the typed `Rules` trait, with the board, the forms and each seat's view (`engine`).

pub mod balance;
pub mod engine;
pub mod game;
pub mod play;
pub mod resolve;
pub mod tables;

pub const RULESET_ID: &str = "commands-colors-ecw";

/// Every text a player reads is a message of `ecw.toml` (or `ecw_cards.toml`): [`m`], [`k`].
pub use crate::text::{k, m};

/// An argument naming a term of the glossary (`@ecw.term.<id>`).
pub fn term(id: &str) -> String {
    format!("@ecw.term.{id}")
}

/// Messages joined by "; " (a list of notes in one line).
pub fn join(parts: &[String]) -> String {
    parts.join("; ")
}

/// "1 block", "3 blocks": a count of blocks, a message.
pub fn blocks(n: impl ToString) -> String {
    m("ecw.n.blocks", &[("count", n.to_string())])
}

/// "1 hex", "2 hexes": a count of hexes, a message.
pub fn hexes(n: impl ToString) -> String {
    m("ecw.n.hexes", &[("count", n.to_string())])
}
