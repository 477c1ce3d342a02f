//! The charts as tables, for the app's rules page.

use super::*;

// ------------------------------------------------------------------------------------------------
// The charts as tables.

pub(super) fn reference_tables() -> Vec<BoardTable> {
    let dice = BoardTable::new(
        "Battle dice by unit (design 2.1, 6.2)",
        &["Class", "Melee", "Ranged", "Hit by", "Source"],
        vec![
            vec![
                "FT with pikes".into(),
                "blocks + 1".into(),
                "blocks − 1, 1–2 hexes, not after moving".into(),
                "Infantry; Sabres in melee".into(),
                "004, Foot".into(),
            ],
            vec![
                "FT all shot".into(),
                "blocks".into(),
                "blocks, 1–2 hexes".into(),
                "Infantry; Sabres in melee".into(),
                "004, Foot".into(),
            ],
            vec![
                "CL clubmen (militia)".into(),
                "blocks".into(),
                "none".into(),
                "Infantry; Sabres in melee".into(),
                "004, Foot".into(),
            ],
            vec![
                "CU cuirassiers".into(),
                "blocks".into(),
                "none".into(),
                "Cavalry only".into(),
                "004, Horse".into(),
            ],
            vec![
                "TR trotters".into(),
                "blocks".into(),
                "none".into(),
                "Cavalry; Sabres in melee".into(),
                "004, Horse".into(),
            ],
            vec![
                "GA gallopers".into(),
                "blocks + 1 when attacking; rash + 1 more".into(),
                "none".into(),
                "Cavalry; Sabres in melee".into(),
                "004, Horse; decision 22".into(),
            ],
            vec![
                "DR dragoons".into(),
                "half the blocks, rounded up".into(),
                "half the blocks, on foot, 1–2 hexes".into(),
                "Cavalry; Sabres in melee".into(),
                "004, Dragoons; decisions 17, 18".into(),
            ],
            vec![
                "AR artillery".into(),
                "0 (battles back with 0)".into(),
                "1 per block, 2–5 hexes".into(),
                "Artillery; Sabres in melee".into(),
                "004, Artillery; decision 20".into(),
            ],
        ],
    );
    let training = BoardTable::new(
        "Training (004, Sub-classifications; design 2.2)",
        &[
            "Training",
            "Dice",
            "Scores sabres",
            "Hexes per flag",
            "Flags ignored",
        ],
        vec![
            vec![
                "veteran".into(),
                "+1".into(),
                "yes".into(),
                "1".into(),
                "1".into(),
            ],
            vec![
                "trained".into(),
                "—".into(),
                "yes".into(),
                "1".into(),
                "0".into(),
            ],
            vec![
                "raw".into(),
                "—".into(),
                "no".into(),
                "2".into(),
                "0".into(),
            ],
            vec![
                "militia".into(),
                "—".into(),
                "no".into(),
                "3".into(),
                "0".into(),
            ],
        ],
    );
    let commands = BoardTable::new(
        "Command cards: 72 (004, COMMAND CARDS; design 4)",
        &["Card", "Count", "What it does"],
        COMMAND_CARDS
            .iter()
            .map(|c| vec![c.name.to_string(), c.count.to_string(), c.text.to_string()])
            .collect(),
    );
    let chaunce = BoardTable::new(
        "Chaunce cards: 45 (004, CHAUNCE CARDS; design 5)",
        &["Card", "Count", "Turn", "What it does"],
        CHAUNCE_CARDS
            .iter()
            .map(|c| {
                vec![
                    c.name.to_string(),
                    c.count.to_string(),
                    match c.turn {
                        tables::Turn::GoesOn => "goes on",
                        tables::Turn::Replaced => "replaced (swap allowed)",
                        tables::Turn::ReplacedNoSwap => "replaced, no swap",
                    }
                    .to_string(),
                    c.text.to_string(),
                ]
            })
            .collect(),
    );
    vec![dice, training, commands, chaunce]
}
