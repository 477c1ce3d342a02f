//! Tercio's rules: the [`interface`] every rule set implements (the typed [`Rules`] trait and the
//! [`Engine`] the shell holds), the [`registry`] that lists them, scenarios, and one folder per
//! rule set. A Bloody Dismal Fight and El Gran Capitán share the app-driven engine in
//! [`app_driven`]; their charts live in their own folders.
//!
//! ```
//! use serde_json::json;
//! use tercio_core::DiceStream;
//!
//! let rules = tercio_rules::lookup("egc").unwrap();
//! let engine = rules.engine(None).unwrap();
//! let charge = json!({
//!     "action": "charge",
//!     "actor": {"type": "swiss-pike", "bases": 4},
//!     "target": {"type": "french-italian-pike", "bases": 4},
//!     "ground": "open"
//! });
//! let plan = engine.plan(None, &charge).unwrap();
//! // The exact odds, from the same plan that rolls.
//! let odds = tercio_rules::odds::odds(&plan);
//! assert!((odds.total - 1.0).abs() < 1e-9);
//! assert!((odds.p("melee", "actor ahead") - 21.0 / 36.0).abs() < 1e-9);
//! // The roll: the same seed gives the same faces.
//! let (outcome, draws) = plan.roll(&mut DiceStream::from_seed(42));
//! assert_eq!(draws.len(), 2);
//! // Its texts are language-neutral messages, read in the reader's language.
//! let text = tercio_i18n::localize(tercio_i18n::Lang::It, &outcome.resolution.render());
//! assert!(text.contains("Picchieri svizzeri contro fanti"));
//! ```

pub mod app_driven;
pub mod autoplay;
pub mod bloody_dismal_fight;
pub mod callan_renaissance;
mod changes;
pub mod commands_colors_ecw;
pub mod diag;
pub mod effects;
pub mod el_gran_capitan;
pub mod fuzz;
pub mod game;
pub mod interface;
pub mod odds;
pub mod registry;
pub mod report;
pub mod scenario;
pub mod seal;
pub mod sword_and_flame_renaissance;
pub mod text;

pub use changes::Same;
pub use interface::{
    ActionForm, Board, BoardTable, Choice, Engine, FieldKind, FormField, Kept, Outcome, Rejection,
    RuleSet, Rules, SideScore, Typed, Viewer,
};
pub use registry::lookup;
