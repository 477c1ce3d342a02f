//! The balance sheets of Commands & Colors ECW (`tercio matchup`, the Balance page): the
//! stand-alone Melee and ranged combat between two trained units of a class, read from their
//! facets ([`StandAlone`]). Project design: design document, section "Balance sheets".

use serde_json::{json, Value};
use tercio_i18n::msg;

use crate::interface::balance::{facet_number, Named, Round, StandAlone};

fn unit(class: &str, blocks: u8) -> Value {
    json!({"class": class, "blocks": blocks, "training": "trained"})
}

fn request(action: &str, actor: &str, target: &str, a: u8, t: u8) -> Value {
    match action {
        "melee" => {
            json!({"action": "melee", "attacker": unit(actor, a), "defender": unit(target, t)})
        }
        _ => {
            json!({"action": "battle", "kind": "ranged", "roller": unit(actor, a), "target": unit(target, t)})
        }
    }
}

fn read(action: &str, f: &[(String, String)]) -> Round {
    let n = |key: &str| facet_number(f, &msg(key, &[]));
    match action {
        "melee" => Round {
            actor_loss: n("ecw.facet.attacker-blocks-lost"),
            target_loss: n("ecw.facet.defender-blocks-lost"),
            actor_back: n("ecw.facet.attacker-retreat-hexes") > 0,
            target_back: n("ecw.facet.defender-retreat-hexes") > 0,
        },
        _ => Round {
            target_loss: n("ecw.facet.blocks-lost"),
            target_back: n("ecw.facet.retreat-hexes") > 0,
            ..Round::default()
        },
    }
}

/// Units of three blocks (what every class may field), trained, foot with pikes; a Melee with
/// its battle back, a ranged combat at its best range, no terrain, no leader, no card's bonus.
pub fn balance() -> StandAlone {
    StandAlone {
        rules: &super::engine::RULESET,
        actions: Named::keyed(&[("melee", "ecw.action.melee"), ("ranged", "ecw.action.fire")]),
        fighters: Named::keyed(&[
            ("foot", "ecw.ref.ft-pikes"),
            ("clubmen", "ecw.ref.cl"),
            ("cuirassiers", "ecw.ref.cu"),
            ("trotters", "ecw.ref.tr"),
            ("gallopers", "ecw.ref.ga"),
            ("dragoons", "ecw.ref.dr"),
            ("artillery", "ecw.ref.ar"),
        ]),
        size: 3,
        request,
        read,
        whole: &[],
    }
}
