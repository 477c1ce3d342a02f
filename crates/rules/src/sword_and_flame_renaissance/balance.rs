//! The balance sheets of The Sword and the Flame (Renaissance) (`tercio matchup`, the Balance
//! page): the stand-alone close combat between two units of a troop type, fought to its winner,
//! read from its facets ([`StandAlone`]). Project design: design document, section "Balance
//! sheets".

use serde_json::{json, Value};
use tercio_i18n::msg;

use super::tables::TROOPS;
use crate::interface::balance::{facet_is, facet_number, Named, Round, StandAlone};

fn request(_action: &str, actor: &str, target: &str, a: u8, t: u8) -> Value {
    json!({"action": "close-combat", "version": "company",
           "a": {"type": actor, "figures": a}, "b": {"type": target, "figures": t}})
}

fn read(_action: &str, f: &[(String, String)]) -> Round {
    let lost = |side: &str| {
        facet_number(
            f,
            &msg("sword_and_flame.facet.side-figures-lost", &[("side", side)]),
        )
    };
    let winner = msg("sword_and_flame.facet.winner", &[]);
    Round {
        actor_loss: lost("A"),
        target_loss: lost("B"),
        actor_back: facet_is(f, &winner, "B"),
        target_back: facet_is(f, &winner, "A"),
    }
}

/// Units of twelve figures, in their own order, with no officer; the close combat a charge
/// that goes home leads to, in the company version (as both shipped scenarios play it, and
/// about four times quicker to enumerate than figure against figure), fought until one side
/// wins or breaks off.
pub fn balance() -> StandAlone {
    StandAlone {
        rules: &super::engine::RULESET,
        actions: Named::keyed(&[("close-combat", "sword_and_flame.action.charge")]),
        fighters: TROOPS
            .iter()
            .map(|t| Named {
                id: t.id,
                name: msg(&format!("sword_and_flame.troop.{}", t.id), &[]),
            })
            .collect(),
        size: 12,
        request,
        read,
        whole: &["close-combat"],
    }
}
