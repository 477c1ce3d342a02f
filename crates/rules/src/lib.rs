//! Tercio's rules: the [`registry::RuleSet`] trait and registry, scenarios, and one folder per
//! rule set. A Bloody Dismal Fight and El Gran Capitán share the app-driven engine in
//! [`app_driven`]; their charts live in their own folders.

pub mod app_driven;
pub mod bloody_dismal_fight;
pub mod diag;
pub mod el_gran_capitan;
pub mod game;
pub mod odds;
pub mod registry;
pub mod scenario;

pub use registry::{lookup, Engine, Outcome, Rejection, RuleSet};
