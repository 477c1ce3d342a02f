//! Tercio's pure core: no I/O, no clock, no async.
//!
//! * [`dice`]: a seeded ChaCha stream whose every draw is recorded.
//! * [`plan`]: a declared dice plan that is either rolled or turned into its exact distribution,
//!   from the same code, so odds and rolls never drift apart.
//! * [`log`]: the append-only event log; undo appends a void, nothing is ever removed.
//! * [`stats`]: chi-square figures for the dice report.
//! * [`explain`]: the shape in which every resolution shows its dice, modifiers and outcome.

pub mod dice;
pub mod explain;
pub mod log;
pub mod plan;
pub mod stats;

pub use dice::{DiceStream, Die, Draw};
pub use explain::{modifier_text, Modifier, Resolution, RolledDie, Step};
pub use log::{EventLog, LogEntry, Signed};
pub use plan::{Depends, Distribution, FaceClasses, Plan};
