//! The balance sheets of The Renaissance (Callan) (`tercio matchup`, the Balance page): the
//! stand-alone Attack (a round of combat) and Fire between two units of a troop type, read from
//! their facets ([`StandAlone`]). Project design: design document, section "Balance sheets".

use serde_json::{json, Value};
use tercio_i18n::msg;

use super::tables::TROOPS;
use crate::interface::balance::{facet_is, facet_number, Named, Round, StandAlone};

/// A unit of `bases` of `troop`, named `name` (the facets name it).
fn unit(troop: &str, bases: u8, name: &str) -> Value {
    json!({"type": troop, "bases": bases, "name": name})
}

/// Up to three bases in front, up to three more behind them.
fn ranks(bases: u8) -> (u8, u8) {
    let front = bases.min(3);
    (front, (bases - front).min(3))
}

fn request(action: &str, actor: &str, target: &str, a: u8, t: u8) -> Value {
    match action {
        "attack" => {
            let (af, ar) = ranks(a);
            let (df, dr) = ranks(t);
            json!({"action": "attack", "attacker": unit(actor, a, "A"), "defender": unit(target, t, "B"),
                   "attacker_front": af, "attacker_rear": ar, "defender_front": df, "defender_rear": dr})
        }
        _ => {
            json!({"action": "fire", "unit": unit(actor, a, "A"), "target": unit(target, t, "B"), "short_bases": a})
        }
    }
}

fn read(action: &str, f: &[(String, String)]) -> Round {
    if action != "attack" {
        return Round {
            target_loss: facet_number(f, &msg("callan.facet.bases-lost", &[])),
            ..Round::default()
        };
    }
    let of = |key: &str, u: &str| msg(key, &[("unit", u)]);
    let winner = msg("callan.facet.winner", &[]);
    // An attack that is never fought names no winner: the target panicked at the charge and
    // flees, or it is a gun whose crew fled (the gun is lost).
    if !f.iter().any(|(k, _)| *k == winner) {
        let yes = msg("callan.yes", &[]);
        if facet_is(f, &of("callan.facet.panic", "B"), &yes) {
            return Round {
                target_back: true,
                ..Round::default()
            };
        }
        return Round {
            target_loss: u8::MAX,
            ..Round::default()
        };
    }
    let loser = msg("callan.facet.loser", &[]);
    // The loser leaves the fight when it flees or (pike) retires and is removed.
    let out = facet_is(f, &loser, &msg("callan.loser.flees", &[]))
        || facet_is(f, &loser, &msg("callan.loser.removed", &[]));
    let withdraws = facet_is(
        f,
        &of("callan.facet.withdraws", "A"),
        &msg("callan.yes", &[]),
    );
    Round {
        actor_loss: facet_number(f, &of("callan.facet.lost-of", "A")),
        target_loss: facet_number(f, &of("callan.facet.lost-of", "B")),
        actor_back: withdraws || (out && facet_is(f, &winner, "B")),
        target_back: out && facet_is(f, &winner, "A"),
    }
}

/// Units of four bases, trained, on open ground, no commander; an Attack as one round of
/// combat (three bases in front, the rest behind), a Fire at short range with every base.
pub fn balance() -> StandAlone {
    StandAlone {
        rules: &super::engine::RULESET,
        actions: Named::keyed(&[
            ("attack", "callan.action.attack"),
            ("fire", "callan.action.fire"),
        ]),
        fighters: TROOPS
            .iter()
            .map(|t| Named {
                id: t.id(),
                name: msg(&format!("callan.term.{}", t.id()), &[]),
            })
            .collect(),
        size: 4,
        request,
        read,
        whole: &[],
    }
}
