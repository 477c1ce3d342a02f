//! The turn of The Sword and the Flame, Renaissance adaptation, as a game state folded from
//! absolute effects (design section 3): the spent units' test, the movement and fire steps driven
//! by the activation deck, the fire morale tests, charges with their close combats, and the end of
//! the turn (rallying the routed, reload markers, the spirit of each army); evasion, breaking off,
//! field officers, reiters' volleys as a charge closes, the optional rules and the weather.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use tercio_core::{Plan, Step};

use super::resolve::{self, MoraleRequest, MoveRequest, Thresholds};
use super::tables::{self, Order, Test};
use super::{facet, k, msg, yes_no};
use crate::interface::scenario::Scenario;
use crate::interface::{input, Outcome, Rejection};

mod charge;
mod fire;
mod movement;
mod state;
mod turn;
use charge::*;
pub use fire::*;
use movement::*;
pub use state::*;
use turn::*;

/// The actions of the turn so far.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Action {
    /// Step 1, then on to the movement cards.
    StartTurn {},
    /// Draw the next activation card (or, when one side is done, give the other its turn).
    Draw {},
    /// The side whose card it is moves one unit.
    Move {
        #[serde(deserialize_with = "input::text")]
        unit: String,
        #[serde(default, deserialize_with = "input::flag")]
        uphill: bool,
        #[serde(default, deserialize_with = "input::flag")]
        downhill: bool,
        #[serde(default, deserialize_with = "input::flag")]
        obstacle: bool,
        #[serde(default, deserialize_with = "input::flag")]
        woods: bool,
        /// Mount or dismount in this move (optional rule; mounted arquebusiers and crossbowmen).
        #[serde(default, deserialize_with = "input::flag")]
        dismount: bool,
        /// Change to this order first (decision 60): the move is rolled in the new order.
        #[serde(default, deserialize_with = "input::opt_choice")]
        order: Option<Order>,
        /// More units of the side on the same card, when Quicker Movement's D4 allows them
        /// (design 8.4, decision 67): each rolls its own move over the same ground; the order
        /// change and dismounting are the first unit's.
        #[serde(default, deserialize_with = "input::opt_text")]
        unit_2: Option<String>,
        #[serde(default, deserialize_with = "input::opt_text")]
        unit_3: Option<String>,
        #[serde(default, deserialize_with = "input::opt_text")]
        unit_4: Option<String>,
        /// Name the odds' facets by unit, as a move of several units does: set only for the
        /// parts whose odds are shown one by one (`odds_parts`), never read from an action.
        #[serde(skip)]
        by_unit: bool,
    },
    /// The side whose card it is fires one unit (the game master gives what the table shows:
    /// range band, target class, figures that may fire).
    Fire {
        #[serde(deserialize_with = "input::text")]
        unit: String,
        #[serde(deserialize_with = "input::text")]
        target: String,
        #[serde(default, deserialize_with = "input::opt_choice")]
        range: Option<tables::Range>,
        /// Default: from the target's order (closed I, open II, skirmishers and gun crews III);
        /// the game master raises it for cover.
        #[serde(default, deserialize_with = "input::opt_number")]
        target_class: Option<u8>,
        /// Default: every figure of the unit carrying the weapon (the crew for a gun); the game
        /// master lowers it for figures out of range or beyond the ranks that shoot.
        #[serde(default, deserialize_with = "input::opt_number")]
        firers: Option<u8>,
        /// Reiters firing both pistols.
        #[serde(default, deserialize_with = "input::flag")]
        double: bool,
        /// A field officer within 12" in the cone of fire: the first ace hits him (decision 15).
        #[serde(default, deserialize_with = "input::opt_text")]
        officer: Option<String>,
    },
    /// The unit lets its chance pass.
    Pass {
        #[serde(deserialize_with = "input::text")]
        unit: String,
    },
    /// Step 4: every unit that took fire casualties tests (decision 8).
    FireMorale {},
    /// Steps 5-7 for one charge: To Close, To Stand, the close combat, the loser's test.
    Charge {
        #[serde(deserialize_with = "input::text")]
        charger: String,
        #[serde(deserialize_with = "input::text")]
        target: String,
        /// The charger started its move behind the target (decision 27).
        #[serde(default, deserialize_with = "input::flag")]
        rear: bool,
        #[serde(default, deserialize_with = "input::flag")]
        across_wall: bool,
        #[serde(default, deserialize_with = "input::flag")]
        climbing: bool,
        /// The target is a pike square.
        #[serde(default, deserialize_with = "input::flag")]
        square: bool,
        /// Pikes on either side fight in broken ground or built-up areas.
        #[serde(default, deserialize_with = "input::flag")]
        broken_ground: bool,
        /// The target evades (its player's choice; 001, EVASION).
        #[serde(default, deserialize_with = "input::flag")]
        target_evades: bool,
        /// Inches of room the evader has behind it, away from the charge and from other enemies:
        /// a roll beyond it disperses the unit. Default: room enough.
        #[serde(default, deserialize_with = "input::opt_number")]
        evade_room: Option<u8>,
        /// Figures of the evader the charger still touches: destroyed.
        #[serde(default, deserialize_with = "input::number_or_default")]
        touched: u8,
        /// Which unit breaks off as soon as it may, if the combat is still undecided after 6
        /// bouts (3 in the company version): `charger` or `target` (001, BREAKING OFF).
        #[serde(default, deserialize_with = "input::opt_choice")]
        break_off: Option<Breaker>,
    },
    /// Steps 8-10: rally the routed, remove a reload marker, each army's spirit.
    EndTurn {},
    /// The weather changes (light rain: +2 to every fire die).
    Weather {
        #[serde(default, deserialize_with = "input::flag")]
        light_rain: bool,
    },
    /// A field officer attaches to a unit ("visibly touching the unit"), or leaves it.
    Attach {
        #[serde(deserialize_with = "input::text")]
        officer: String,
        #[serde(default, deserialize_with = "input::opt_text")]
        unit: Option<String>,
    },
    /// A field officer moves 6D6 in the movement step (decision 19).
    OfficerMove {
        #[serde(deserialize_with = "input::text")]
        officer: String,
    },
    /// A field officer killed or captured at the table (e.g. caught alone by the enemy).
    OfficerDown {
        #[serde(deserialize_with = "input::text")]
        officer: String,
    },
    /// Wounded parties (optional rule, variant 2) move 3D6 on a movement card of their side.
    WoundedMove {
        #[serde(deserialize_with = "input::text")]
        side: String,
    },
    /// Wounded parties (optional rule, variant 2): how many figures reached the base line or were
    /// captured.
    WoundedParties {
        #[serde(deserialize_with = "input::text")]
        side: String,
        #[serde(default, deserialize_with = "input::number_or_default")]
        saved: u32,
        #[serde(default, deserialize_with = "input::number_or_default")]
        captured: u32,
    },
}

/// The unit of a charge that breaks off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Breaker {
    Charger,
    Target,
}

/// An outcome of a game action: its effects typed.
pub type Out = Outcome<Vec<Effect>>;

/// What a resolution has gathered so far.
#[derive(Debug, Clone, Default)]
struct Acc {
    steps: Vec<Step>,
    effects: Vec<Effect>,
    summary: Vec<String>,
    facets: Vec<(String, String)>,
}

impl Acc {
    fn with<E>(mut self, o: Outcome<E>) -> Self {
        self.steps.extend(o.resolution.steps);
        self.summary.push(o.resolution.summary);
        // A test's "passed" and a rout's "figures lost" say nothing once several are chained:
        // the callers name what followed (decision 61).
        let (passed, lost) = (facet("passed"), facet("figures-lost"));
        self.facets.extend(
            o.facets
                .into_iter()
                .filter(|(f, _)| *f != passed && *f != lost),
        );
        self
    }
    /// This accumulation followed by `next`: its steps, effects, summary and facets after ours.
    fn then(mut self, next: Acc) -> Self {
        self.steps.extend(next.steps);
        self.effects.extend(next.effects);
        self.summary.extend(next.summary);
        self.facets.extend(next.facets);
        self
    }
    /// Like [`Acc::with`], the steps headed by the unit (or army) they are about.
    fn named<E>(self, who: &str, mut o: Outcome<E>) -> Self {
        for st in &mut o.resolution.steps {
            st.title = format!("{who}: {}", st.title);
        }
        self.with(o)
    }
    fn finish(self, action: &str) -> Out {
        Outcome {
            resolution: tercio_core::Resolution {
                action: action.into(),
                summary: if self.summary.is_empty() {
                    k("result.done")
                } else {
                    self.summary.join(". ")
                },
                steps: self.steps,
            },
            effects: self.effects,
            facets: self.facets,
        }
    }
}

fn passed<E>(o: &Outcome<E>) -> bool {
    resolve::passed_test(o)
}

fn reject(code: &str, field: Option<&str>, m: impl Into<String>) -> Rejection {
    Rejection::new(code, field, m)
}

/// The units of `side` still to have their chance in this phase.
fn waiting<'a>(st: &'a State, side: &'a str) -> impl Iterator<Item = &'a UnitState> + 'a {
    st.units.values().filter(move |u| {
        u.side == side
            && u.on_table()
            && !st.acted.contains(&u.id)
            && (st.phase != Phase::Fire || can_fire(u))
    })
}

/// The side that names the next unit in the movement and fire steps: the side whose card was
/// drawn or, when only one side has units waiting, that side without a card ("when one side is
/// done the other goes on without cards", decision 16: no draw is asked for when no card is
/// needed, issue 17, item 5). `None`: a card decides, or the step is over.
pub fn to_act(st: &State) -> Option<String> {
    if let Some(side) = &st.current {
        return Some(side.clone());
    }
    if !matches!(st.phase, Phase::Movement | Phase::Fire) {
        return None;
    }
    let mut with = st
        .sides
        .iter()
        .filter(|s| waiting(st, &s.id).next().is_some());
    match (with.next(), with.next()) {
        (Some(one), None) => Some(one.id.clone()),
        _ => None,
    }
}

/// Whether every unit has had its chance in the movement or fire step: the next "draw" ends it.
pub fn step_done(st: &State) -> bool {
    matches!(st.phase, Phase::Movement | Phase::Fire)
        && st.current.is_none()
        && st.sides.iter().all(|s| waiting(st, &s.id).next().is_none())
}

/// Able to fire in the fire phase (design 3.1 step 3).
/// Whether a unit may take a movement card to move (a heavy gun only with the scenario's
/// permission, `may-move`: 001, MOVEMENT; decision 57). A routed unit may: it is told it stays.
pub fn can_move(u: &UnitState) -> bool {
    u.troop != "heavy-gun" || u.may_move
}

pub fn can_fire(u: &UnitState) -> bool {
    let weapon = weapon_of(u).map(|w| w.0);
    weapon.is_some()
        && u.status != Status::Routed
        && u.reload == 0
        && !u.pistols_empty
        && !(matches!(
            weapon,
            Some(tables::Weapon::LightCannon | tables::Weapon::HeavyCannon)
        ) && u.moved)
}

fn morale_req(test: Test, u: &UnitState) -> MoraleRequest {
    MoraleRequest {
        test,
        leaderless: u.leaders == 0 && !u.field_officer,
        spent: u.spent(),
        field_officer: u.field_officer,
        gendarmes_vs_lighter_cavalry: false,
        swiss_vs_pikes: false,
        attacked_in_rear: false,
        shaken: matches!(u.status, Status::Shaken | Status::Routed),
        infantry_breaking_off_from_cavalry: false,
        artillerists: false,
    }
}

/// Run `each` over `items` in order, gathering into one resolution.
fn chain<I: Clone + 'static>(
    acc: Acc,
    items: Vec<I>,
    each: std::rc::Rc<dyn Fn(Acc, I) -> Plan<Acc>>,
) -> Plan<Acc> {
    let mut items = items;
    if items.is_empty() {
        return Plan::Done(acc);
    }
    let first = items.remove(0);
    let rest = items;
    let each2 = each.clone();
    each(acc, first).and_then(move |a| chain(a, rest.clone(), each2.clone()))
}

/// The units a `move` names, each with its field: `unit`, then `unit_2` to `unit_4` as given
/// (empty for any other action).
pub fn named_units(action: &Action) -> Vec<(&'static str, String)> {
    match action {
        Action::Move {
            unit,
            unit_2,
            unit_3,
            unit_4,
            ..
        } => std::iter::once(("unit", Some(unit)))
            .chain([
                ("unit_2", unit_2.as_ref()),
                ("unit_3", unit_3.as_ref()),
                ("unit_4", unit_4.as_ref()),
            ])
            .filter_map(|(f, u)| u.map(|u| (f, u.clone())))
            .collect(),
        _ => Vec::new(),
    }
}

pub fn plan(st: &State, th: Thresholds, action: &Action) -> Result<Plan<Out>, Rejection> {
    if st.phase == Phase::Over {
        return Err(reject("game-over", None, k("step.over")));
    }
    match action {
        Action::StartTurn {} => start_turn(st, th),
        Action::Draw {} => draw(st),
        Action::Move {
            uphill,
            downhill,
            obstacle,
            woods,
            dismount,
            order,
            by_unit,
            ..
        } => move_units(
            st,
            th,
            &named_units(action),
            [*uphill, *downhill, *obstacle, *woods],
            (*dismount, *order),
            *by_unit,
        ),
        Action::Fire {
            unit,
            target,
            range,
            target_class,
            firers,
            double,
            officer,
        } => fire(
            st,
            th,
            FireOrder {
                unit,
                target,
                range: *range,
                // 0 from a form: the defaults.
                target_class: target_class.filter(|&c| c > 0),
                firers: firers.filter(|&n| n > 0),
                double: *double,
                officer: officer.as_deref(),
            },
        ),
        Action::Pass { unit } => {
            let u = activated(st, unit, "unit")?;
            let mut acc = Acc::default();
            acc.effects.push(Effect::Acted { unit: u.id.clone() });
            acc.summary
                .push(msg("result.passes", &[("unit", u.name.clone())]));
            Ok(Plan::Done(acc.finish("pass")))
        }
        Action::FireMorale {} => fire_morale(st, th),
        Action::Charge {
            charger,
            target,
            rear,
            across_wall,
            climbing,
            square,
            broken_ground,
            target_evades,
            evade_room,
            touched,
            break_off,
        } => charge(
            st,
            th,
            (charger, target),
            [*rear, *across_wall, *climbing, *square, *broken_ground],
            (*target_evades).then_some((evade_room.filter(|&r| r > 0), *touched)),
            *break_off,
        ),
        Action::EndTurn {} => end_turn(st, th),
        Action::Weather { light_rain } => {
            let mut acc = Acc::default();
            acc.effects.push(Effect::Weather {
                light_rain: *light_rain,
            });
            acc.summary.push(k(if *light_rain {
                "result.light-rain"
            } else {
                "result.rain-stops"
            }));
            Ok(Plan::Done(acc.finish("weather")))
        }
        Action::Attach { officer, unit } => attach(st, officer, unit.as_deref()),
        Action::OfficerMove { officer } => officer_move(st, officer),
        Action::OfficerDown { officer } => {
            let o = officer_of(st, officer)?;
            let mut acc = Acc::default();
            officer_falls(st, &mut acc, &o);
            Ok(Plan::Done(acc.finish("officer-down")))
        }
        Action::WoundedMove { side } => {
            need_phase(st, Phase::Movement, "wounded-move")?;
            let marching = st.wounded.get(side).map_or(0, |w| w.marching);
            if marching == 0 || st.options.wounded != 2 {
                return Err(reject("no-wounded", Some("side"), k("refuse.no-wounded")));
            }
            // "moving on any card of their side" (001, OPTIONAL RULES): 3D6, as foot in open
            // order (design 8.3).
            let mv = open_move("arquebusiers", Order::Open);
            let side = side.clone();
            Ok(
                resolve::plan(&resolve::Request::Move(mv), &th)?.map(move |o| {
                    let mut acc = Acc::default().with(o);
                    let inches = acc.summary.pop().unwrap_or_default();
                    acc.summary.push(msg(
                        "result.wounded-move",
                        &[
                            ("side", side.clone()),
                            ("count", marching.to_string()),
                            ("moves", inches),
                        ],
                    ));
                    acc.finish("wounded-move")
                }),
            )
        }
        Action::WoundedParties {
            side,
            saved,
            captured,
        } => {
            let s = st.sides.iter().find(|x| &x.id == side).ok_or_else(|| {
                reject(
                    "unknown-side",
                    Some("side"),
                    msg(
                        "refuse.unknown-side",
                        &[("side", crate::text::quoted(side))],
                    ),
                )
            })?;
            if st.options.wounded != 2 {
                return Err(reject("option-off", None, k("refuse.option-off")));
            }
            let w = st.wounded.get(side).copied().unwrap_or_default();
            if saved + captured > w.marching {
                return Err(reject(
                    "too-many",
                    Some("saved"),
                    msg(
                        "refuse.too-many-saved",
                        &[("side", s.name.clone()), ("count", w.marching.to_string())],
                    ),
                ));
            }
            let mut acc = Acc::default();
            acc.effects.push(Effect::Wounded {
                side: side.clone(),
                wounded: Wounded {
                    marching: w.marching - saved - captured,
                    saved: w.saved + saved,
                    captured: w.captured + captured,
                },
            });
            acc.summary.push(msg(
                "result.wounded-parties",
                &[
                    ("side", s.name.clone()),
                    ("saved", saved.to_string()),
                    ("captured", captured.to_string()),
                ],
            ));
            Ok(Plan::Done(acc.finish("wounded-parties")))
        }
    }
}

/// The steps of the turn, as the board and refusals name them (design 3.1), as messages.
pub fn step_name(p: Phase) -> String {
    k(match p {
        Phase::Start => "step.start",
        Phase::Movement => "step.movement",
        Phase::Fire => "step.fire",
        Phase::Melee => "step.melee",
        Phase::Over => "step.over",
    })
}

/// The units in the scenario's order (then any others by id).
pub fn roster(st: &State) -> impl Iterator<Item = &UnitState> {
    let listed = st.roster.iter().filter_map(|id| st.units.get(id));
    let others = st.units.values().filter(|u| !st.roster.contains(&u.id));
    listed.chain(others)
}

fn need_phase(st: &State, p: Phase, what: &str) -> Result<(), Rejection> {
    if st.phase != p {
        let when = match what {
            "fire-morale" => k("when.fire-morale"),
            "charge" => k("when.charge"),
            "end-turn" => k("when.end-turn"),
            _ => step_name(p),
        };
        return Err(reject(
            "wrong-phase",
            None,
            msg(
                "refuse.wrong-phase",
                &[
                    ("what", k(&format!("action.{what}"))),
                    ("when", when),
                    ("now", step_name(st.phase)),
                ],
            ),
        ));
    }
    Ok(())
}
