//! The automatic player of the app-driven rule sets (A Bloody Dismal Fight, El Gran Capitán).
//! It plays through [`Game`], so it sits above the game layer, not inside a rule set.
//!
//! Plays a game by itself, choosing among legal actions with a stream of choices: for tests
//! (random games must always replay exactly; no seat may see what it must not) and for rules
//! designers who want to watch their tables play out.

use serde_json::{json, Value};

use crate::app_driven::model::{GameState, Phase};
use crate::game::{Game, GameError};

fn state(g: &Game) -> Result<GameState, GameError> {
    serde_json::from_value(g.state.clone()).map_err(|e| GameError::Corrupt(e.to_string()))
}

/// Take an initiative and give it to the first eligible leader of the winning side.
fn take_initiative(g: &mut Game) -> Result<Option<String>, GameError> {
    if g.act(json!({"action": "initiative"})).is_err() {
        return Ok(None);
    }
    let st = state(g)?;
    let Some(side) = st.initiative_side.clone() else {
        return Ok(None);
    };
    let Some(leader) = st
        .leaders
        .values()
        .find(|l| l.side == side && l.fate.is_none() && !l.had_initiative && !l.caught_up)
        .map(|l| l.id.clone())
    else {
        return Ok(None);
    };
    g.act(json!({"action": "command", "leader": leader}))?;
    Ok(Some(leader))
}

/// Play up to `steps` turn steps of an A Bloody Dismal Fight or El Gran Capitán game, choosing
/// with `choices` (cycled), with an occasional undo.
pub fn play(g: &mut Game, choices: &[u8], steps: usize) -> Result<(), GameError> {
    let egc = g.ruleset == "el-gran-capitan";
    let mut c = choices.iter().cycle();
    let mut next = move || *c.next().unwrap_or(&0) as usize;
    let mut undos = 0;
    for _ in 0..steps {
        let st = state(g)?;
        match st.phase {
            Phase::Over => break,
            Phase::EndOfTurn => {
                // Ferocious Swiss Charges first; a Swiss unit whose charge is refused has no target.
                let mut no_target: Vec<String> = Vec::new();
                let swiss: Vec<String> = crate::app_driven::game::swiss_to_charge(&st)
                    .iter()
                    .map(|u| u.id.clone())
                    .collect();
                for s in swiss {
                    let side = st.units[s.as_str()].side.clone();
                    let target = st
                        .units
                        .values()
                        .find(|t| t.side != side && !t.destroyed)
                        .map(|t| t.id.clone());
                    let charged = target.is_some_and(|t| g.act(json!({"action": "charge", "actor": s, "target": t, "ground": "open", "ferocious": true, "crosses_arc_of_fire": false})).is_ok());
                    if !charged {
                        no_target.push(s);
                    }
                }
                let st = state(g)?;
                // Simultaneous fire by the first shooter that has not acted, at the first enemy.
                let shooter = st.units.values().find(|u| {
                    !u.destroyed
                        && !u.acted
                        && u.in_combat_with.is_empty()
                        && matches!(
                            u.troop.as_str(),
                            "archers" | "arquebusiers" | "crossbowmen" | "cannon" | "medium-cannon"
                        )
                });
                let fires: Vec<Value> = shooter
                    .and_then(|s| st.units.values().find(|t| t.side != s.side && !t.destroyed).map(|t| json!({"action": "fire", "actor": s.id, "target": t.id, "ground": "open"})))
                    .into_iter()
                    .collect();
                let mut end_fire = json!({"action": "end-fire", "fires": fires});
                if egc {
                    end_fire["swiss_without_targets"] = json!(no_target);
                }
                g.act(end_fire)?;
                g.act(json!({"action": "end-turn"}))?;
            }
            Phase::Command => {
                let Some(leader) = take_initiative(g)? else {
                    g.act(json!({"action": "end-initiatives"}))?;
                    continue;
                };
                for _ in 0..12 {
                    let st = state(g)?;
                    let Some(cur) = st.current.clone() else { break };
                    if cur.activations_left == 0 {
                        break;
                    }
                    let l = &st.leaders[leader.as_str()];
                    let mine: Vec<_> = st
                        .units
                        .values()
                        .filter(|u| {
                            !u.destroyed && !u.acted && crate::app_driven::game::commands(&st, l, u)
                        })
                        .collect();
                    if mine.is_empty() {
                        break;
                    }
                    let u = mine[next() % mine.len()];
                    let action = if let Some(enemy) = u.in_combat_with.iter().next() {
                        json!({"action": "melee", "actor": u.id, "target": enemy, "ground": "open"})
                    } else {
                        let enemies: Vec<_> = st
                            .units
                            .values()
                            .filter(|t| t.side != u.side && !t.destroyed)
                            .collect();
                        let t = enemies[next() % enemies.len()];
                        json!({"action": "charge", "actor": u.id, "target": t.id, "ground": "open", "crosses_arc_of_fire": true, "target_evades": next() % 2 == 0, "contact_after_evade": true})
                    };
                    let fallback = json!({"action": "advance", "actor": u.id});
                    if g.act(action).is_err() && g.act(fallback).is_err() {
                        g.act(json!({"action": "regroup", "actor": u.id}))?;
                    }
                    if next() % 7 == 0 && undos < 6 {
                        undos += 1;
                        g.undo()?;
                    }
                }
            }
        }
    }
    Ok(())
}
