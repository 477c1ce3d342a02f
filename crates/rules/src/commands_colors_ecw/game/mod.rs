//! A game of the English Civil War variant as a fold over the event log (design 3-8, 10 and 13 of
//! `docs/rules/commands-colors-ecw.md`).
//!
//! Every action is resolved against the state into a new state: the plan's leaves carry the whole
//! next state, and the event's effects are the difference between the two, as absolute values at
//! JSON pointers ([`diff`]), so folding an event is setting values ([`apply`]). Secret values (the
//! hands, the Stand of Pikes tracks, a Scout's pair, the order of the decks) live at known paths,
//! which the per-seat views strip ([`secret_path`]).
//!
//! The decks: the `deal` draws a shuffle key from the seeded stream; every shuffle of the game
//! (the first one and each reshuffle) is a deterministic function of that key and the shuffle's
//! number, so voiding an action never buys a new order (decisions 11 and 12).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tercio_core::plan::throw;
use tercio_core::{Depends, Die, FaceClasses, Modifier, Plan, Step};

use super::resolve::{self, Roller, Target};
use super::tables::{
    self, chaunce_card, command_card, command_kind, Chaunce, ChaunceCard, Class, CommandCard,
    Count, Kind, Section, Symbol, Training, Turn, CHAUNCE_CARDS,
};
use crate::effects::shuffled;
pub use crate::effects::{apply, diff};
use crate::interface::scenario::Scenario;
use crate::interface::Rejection;

use super::{join, k, m, term};

mod action;
mod chaunce;
mod combat;
mod config;
mod decks;
mod fire;
mod melee;
mod moves;
mod orders;
mod pack;
mod state;
mod turn;

pub use action::*;
use chaunce::*;
use combat::*;
pub use config::*;
pub use decks::*;
use fire::*;
pub use melee::*;
use moves::*;
use orders::*;
pub use pack::*;
pub use state::*;
use turn::*;

// ------------------------------------------------------------------------------------------------
// The result of a resolution: the next state with its explanation.

/// The result of a resolution: the next state with its explanation (shared with Callan).
pub type Res = crate::effects::Res<State>;

pub(super) type P = Plan<Res>;

pub(super) fn done(r: Res) -> P {
    Plan::Done(r)
}

/// Battle dice as rolled, each labelled with its symbol: "Label 2 (Flag)", or "Label (Flag)"
/// for a single die (`label` a message).
pub(crate) fn symbol_dice(label: &str, faces: &[u8]) -> Vec<tercio_core::RolledDie> {
    faces
        .iter()
        .enumerate()
        .map(|(i, &f)| tercio_core::RolledDie {
            label: if faces.len() == 1 {
                m(
                    "ecw.die.one",
                    &[
                        ("label", label.into()),
                        ("symbol", tables::symbol(f).term()),
                    ],
                )
            } else {
                m(
                    "ecw.die.nth",
                    &[
                        ("label", label.into()),
                        ("n", (i + 1).to_string()),
                        ("symbol", tables::symbol(f).term()),
                    ],
                )
            },
            sides: 6,
            face: f,
        })
        .collect()
}

// ------------------------------------------------------------------------------------------------
// Every action's plan.

/// The side an action belongs to (design 13.3): the game master's own steps give `None`.
pub fn acting_side(st: &State, a: &Action) -> Option<usize> {
    match a {
        Action::Deal { .. } | Action::Objective { .. } => None,
        Action::Respond { .. } => st.window.as_ref().and_then(|w| target_side(st, &w.target)),
        Action::DizzyPick { .. } => Some(1 - st.active),
        _ => Some(st.active),
    }
}

pub(super) fn target_side(st: &State, id: &str) -> Option<usize> {
    st.unit(id)
        .map(|u| u.side)
        .or_else(|| st.leader(id).map(|l| l.side))
}

/// Every action's plan (design 13.3).
pub fn plan(st: &State, a: &Action) -> Result<P, Rejection> {
    if let Action::Melee {
        attacker,
        defender,
        stand_of_pikes,
        ..
    } = a
    {
        // The stand-alone melee's fields are not a game's.
        let k = [
            ("attacker", attacker.is_some()),
            ("defender", defender.is_some()),
            ("stand_of_pikes", *stand_of_pikes),
        ]
        .into_iter()
        .find_map(|(k, given)| given.then_some(k));
        if let Some(k) = k {
            return Err(reject(
                "unknown-field",
                Some(k),
                m(
                    "ecw.reject.melee-field",
                    &[("field", crate::text::quoted(k))],
                ),
            ));
        }
    }
    if st.phase == Phase::Over && !matches!(a, Action::Objective { .. }) {
        return Err(reject(
            "game-over",
            Some("action"),
            m("ecw.reject.game-over", &[("verdict", verdict(st))]),
        ));
    }
    if st.phase == Phase::Deal && !matches!(a, Action::Deal { .. }) {
        return Err(reject("not-dealt", Some("action"), k("ecw.reject.not-dealt")).not_now());
    }
    let phase_is = |ps: &[Phase], what: &str| -> Result<(), Rejection> {
        if ps.contains(&st.phase) {
            Ok(())
        } else {
            Err(reject(
                "out-of-phase",
                Some("action"),
                m(
                    "ecw.reject.out-of-phase",
                    &[
                        ("what", format!("@ecw.what.{what}")),
                        ("waiting", waiting_for(st)),
                    ],
                ),
            )
            .not_now())
        }
    };
    match a {
        Action::Deal {
            hands,
            referee_sees_hands,
        } => {
            phase_is(&[Phase::Deal], "dealing")?;
            deal(st, hands.as_deref(), *referee_sees_hands)
        }
        Action::DrawChaunce {} => {
            phase_is(&[Phase::Chaunce], "draw-chaunce")?;
            draw_chaunce(st)
        }
        Action::ResolveChaunce {
            candidates,
            target,
            room,
        } => {
            phase_is(&[Phase::ChaunceResolve], "resolve-chaunce")?;
            resolve_chaunce(st, candidates, target, *room)
        }
        Action::Swap { card } => {
            phase_is(&[Phase::Swap], "swap")?;
            swap(st, card.as_deref())
        }
        Action::Play { card, mode } => {
            phase_is(&[Phase::Command], "play")?;
            play(st, card, mode.as_deref())
        }
        Action::Order {
            unit,
            section,
            adjacent_enemy,
        } => {
            phase_is(&[Phase::Orders], "order")?;
            order(st, unit, section.as_deref(), *adjacent_enemy)
        }
        Action::Rally { unit } => {
            phase_is(&[Phase::Orders], "rally")?;
            rally(st, unit)
        }
        Action::Move {
            unit,
            hexes,
            mount,
            dismount,
            leave_stand,
            into_woods_or_town,
            join,
        } => {
            phase_is(&[Phase::Orders], "move")?;
            move_unit(
                st,
                unit,
                &Movement {
                    hexes: *hexes,
                    mount: *mount,
                    dismount: *dismount,
                    leave_stand: *leave_stand,
                    into_woods_or_town: *into_woods_or_town,
                    join: join.as_deref(),
                },
            )
        }
        Action::Fire {
            unit,
            target,
            range,
            terrain,
            target_room,
            target_ignores,
            adjacent_enemy,
        } => {
            phase_is(&[Phase::Orders], "fire")?;
            fire(
                st,
                &Shot {
                    unit,
                    target,
                    range: *range,
                    terrain: *terrain,
                    target_room: *target_room,
                    target_ignores: *target_ignores,
                    adjacent_enemy: *adjacent_enemy,
                },
            )
        }
        Action::Melee {
            unit,
            target,
            terrain,
            battle_back_terrain,
            target_room,
            attacker_room,
            target_ignores,
            ..
        } => {
            phase_is(&[Phase::Orders], "melee")?;
            melee(
                st,
                &Attack {
                    unit: unit.as_deref(),
                    target: target.as_deref(),
                    terrain: *terrain,
                    battle_back_terrain: *battle_back_terrain,
                    target_room: *target_room,
                    attacker_room: *attacker_room,
                    target_ignores: *target_ignores,
                },
            )
        }
        Action::Respond { response } => {
            phase_is(&[Phase::Window], "respond")?;
            respond(st, response.as_deref())
        }
        Action::Control { unit } => {
            phase_is(&[Phase::Orders], "control")?;
            control(st, unit)
        }
        Action::Stop { no_target } => {
            phase_is(&[Phase::Orders], "stop")?;
            stop(st, *no_target)
        }
        Action::EndTurn {} => {
            phase_is(&[Phase::Orders, Phase::Command], "end-turn")?;
            end_turn_action(st)
        }
        Action::Keep { card } => {
            phase_is(&[Phase::Scout], "keep")?;
            keep(st, card)
        }
        Action::DizzyPick { position } => {
            phase_is(&[Phase::Dizziness], "dizzy-pick")?;
            dizzy_pick(st, *position)
        }
        Action::Objective { side, banners, hex } => objective(st, side, *banners, hex.as_deref()),
        Action::Battle(_) => Err(reject(
            "unknown-action",
            Some("action"),
            k("ecw.reject.battle-in-game"),
        )),
    }
}

/// What the game waits for, in a sentence.
pub fn waiting_for(st: &State) -> String {
    let a = st.side_name(st.active);
    match st.phase {
        Phase::Deal => k("ecw.wait.deal"),
        Phase::Chaunce => m("ecw.wait.chaunce", &[("side", a)]),
        Phase::ChaunceResolve => m(
            "ecw.wait.resolve-chaunce",
            &[
                ("side", a),
                (
                    "card",
                    st.chaunce.map_or(String::new(), |c| chaunce_of(c).title()),
                ),
            ],
        ),
        Phase::Swap => m("ecw.wait.swap", &[("side", a)]),
        Phase::Command => m("ecw.wait.play", &[("side", a)]),
        Phase::Orders => {
            if let Some(c) = st
                .chase
                .as_ref()
                .filter(|c| c.compelled && c.control_rolled)
            {
                m(
                    "ecw.wait.rash-failed",
                    &[
                        ("side", a),
                        (
                            "unit",
                            st.unit(&c.unit).map_or(String::new(), |u| u.name.clone()),
                        ),
                    ],
                )
            } else if let Some(c) = st.chase.as_ref().filter(|c| c.compelled) {
                m(
                    "ecw.wait.rash",
                    &[
                        ("side", a),
                        (
                            "unit",
                            st.unit(&c.unit).map_or(String::new(), |u| u.name.clone()),
                        ),
                    ],
                )
            } else {
                m("ecw.wait.orders", &[("side", a)])
            }
        }
        Phase::Window => {
            let d = st
                .window
                .as_ref()
                .and_then(|w| target_side(st, &w.target))
                .map_or(String::new(), |s| st.side_name(s));
            m("ecw.wait.respond", &[("side", d)])
        }
        Phase::Scout => m("ecw.wait.keep", &[("side", a)]),
        Phase::Dizziness => m(
            "ecw.wait.dizzy-pick",
            &[("side", st.side_name(1 - st.active)), ("other", a)],
        ),
        Phase::Over => verdict(st),
    }
}

pub fn verdict(st: &State) -> String {
    match st.winner {
        Some(w) => m(
            "ecw.verdict.win",
            &[
                ("side", st.side_name(w)),
                ("banners", st.sides[w].banners.to_string()),
                ("needed", st.sides[w].banners_to_win.to_string()),
                ("other", st.side_name(1 - w)),
                ("other_banners", st.sides[1 - w].banners.to_string()),
            ],
        ),
        None => k("ecw.verdict.over"),
    }
}
