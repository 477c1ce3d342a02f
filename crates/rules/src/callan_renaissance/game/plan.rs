//! Fields, and the plan of each action: the typed action's units, numbers and choices, checked
//! against the state.

use super::*;

/// The unit named at `field` (`None`: not named by an id), which must be one of the game's.
pub(super) fn unit_at<'a, 'b>(
    st: &'a State,
    f: &str,
    id: impl Into<Option<&'b str>>,
) -> Result<&'a UnitState, Rejection> {
    let id = id.into().ok_or_else(|| {
        reject(
            "missing-field",
            Some(f),
            field_msg("callan.reject.missing", f, &[]),
        )
    })?;
    st.unit(id).ok_or_else(|| {
        reject(
            "unknown-unit",
            Some(f),
            m(
                "callan.reject.unknown-unit",
                &[
                    ("field", f.to_string()),
                    ("id", crate::text::quoted(id)),
                    (
                        "allowed",
                        st.units
                            .iter()
                            .map(|u| u.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                ],
            ),
        )
    })
}

/// A count of bases at `field`, from 0 to `max` (absent: 0).
pub(super) fn count(f: &str, n: Option<u32>, max: u32) -> Result<u32, Rejection> {
    in_range(f, n.unwrap_or(0), 0, max)
}

/// The refusal of an action handed to the step of another.
pub(super) fn wrong() -> Rejection {
    reject("unknown-action", Some("action"), k("callan.reject.unknown"))
}

/// The side an action belongs to (its unit's or commander's side).
pub fn acting_side(st: &State, a: &Action) -> Option<usize> {
    let unit = match a {
        Action::Answer { .. } => return question_side(st),
        Action::Fire { unit, .. } => unit.id(),
        Action::Attack { attacker, .. } => attacker.id(),
        Action::HoldFire { unit, .. }
        | Action::Volley { unit, .. }
        | Action::Move { unit, .. }
        | Action::PanicTest { unit, .. }
        | Action::Pursuit { unit, .. }
        | Action::OffTable { unit, .. }
        | Action::SetState { unit, .. } => Some(unit.as_str()),
        Action::Commander { commander, .. } | Action::Rally { commander, .. } => {
            return st
                .commanders
                .iter()
                .find(|c| &c.id == commander)
                .map(|c| c.side)
        }
        // A continuing combat is the table's step, like a card: the game master's (D14).
        _ => None,
    };
    unit.and_then(|id| st.unit(id)).map(|u| u.side)
}

pub(super) fn combat_by<'a>(st: &'a State, id: &str) -> Option<&'a Combat> {
    let n: u32 = id.trim_start_matches('c').parse().ok()?;
    st.combats.iter().find(|c| c.id == n)
}

/// Plan one action against the state.
pub fn plan(st: &State, a: &Action) -> Result<P, Rejection> {
    if st.phase == Phase::Over {
        return Err(reject("game-over", Some("action"), k("callan.reject.over")));
    }
    if st.phase == Phase::Setup && !matches!(a, Action::Start { .. } | Action::Obstacle { .. }) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            k("callan.reject.start-first"),
        )
        .not_now());
    }
    if st.phase == Phase::Cards && matches!(a, Action::Start { .. }) {
        return Err(reject(
            "out-of-phase",
            Some("action"),
            k("callan.reject.started"),
        ));
    }
    let answering = matches!(a, Action::Answer { .. });
    // An attacked unit that may evade answers first (§5, Evasione).
    if st.question.is_some() && !answering {
        return Err(reject(
            "question-pending",
            Some("action"),
            k("callan.reject.question"),
        )
        .not_now());
    }
    if st.question.is_none() && answering {
        return Err(reject(
            "no-question",
            Some("action"),
            k("callan.reject.no-question"),
        )
        .not_now());
    }
    // Continuing combats come first at their card (D14).
    if st.combats.iter().any(|c| c.due)
        && !matches!(
            a,
            Action::ResolveCombat { .. }
                | Action::PanicTest { .. }
                | Action::SetState { .. }
                | Action::Obstacle { .. }
                | Action::OffTable { .. }
        )
    {
        let due: Vec<String> = st
            .combats
            .iter()
            .filter(|c| c.due)
            .map(|c| format!("c{}", c.id))
            .collect();
        return Err(reject(
            "combat-due",
            Some("action"),
            m("callan.reject.combat-due", &[("combats", due.join(", "))]),
        )
        .not_now());
    }
    match a {
        Action::Start { .. } => Ok(start(st)),
        Action::Draw { .. } => draw(st),
        Action::Fire { .. } | Action::Volley { .. } => fire(st, a),
        Action::HoldFire { unit, .. } => hold_fire(st, unit),
        Action::Move { .. } => move_unit(st, a),
        Action::Commander {
            commander: cid,
            join,
            ..
        } => commander(st, cid, join.as_deref()),
        Action::Attack { .. } => attack(st, a),
        Action::ResolveCombat { .. } => resolve_combat(st, a),
        Action::PanicTest { unit, reason, .. } => panic_action(st, unit, reason.as_deref()),
        Action::Pursuit {
            unit, reached_edge, ..
        } => pursuit(st, unit, *reached_edge),
        Action::Rally {
            commander: cid,
            from,
            to,
            ..
        } => rally(st, cid, from, to),
        Action::OffTable { unit, .. } => off_table(st, unit),
        Action::Obstacle { id, difficulty, .. } => obstacle(st, id, difficulty.as_deref()),
        Action::SetState { .. } => set_state(st, a),
        Action::EndTurn { .. } => end_turn(st),
        Action::Answer { choice, .. } => answer(st, choice.as_deref()),
    }
}
