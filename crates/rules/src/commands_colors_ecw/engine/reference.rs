//! The charts as tables, for the app's rules page.

use super::*;

// ------------------------------------------------------------------------------------------------
// The charts as tables.

/// A table whose title and column headers are catalogue keys.
fn table(title: &str, cols: &[&str], rows: Vec<Vec<String>>) -> BoardTable {
    let c: Vec<String> = cols.iter().map(|c| k(c)).collect();
    let c: Vec<&str> = c.iter().map(String::as_str).collect();
    BoardTable::new(&k(title), &c, rows)
}

/// A row of messages, each cell a key of `ecw.ref.*` (or plain text when it is no key).
fn row(cells: &[&str]) -> Vec<String> {
    cells
        .iter()
        .map(|c| {
            if c.starts_with("ecw.") {
                k(c)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A source: the seed's section, with the design's decisions when there are any.
fn source(section: &str, decisions: &str) -> String {
    if decisions.is_empty() {
        section.to_string()
    } else {
        m(
            "ecw.ref.source-decisions",
            &[("section", section.into()), ("decisions", decisions.into())],
        )
    }
}

pub(super) fn reference_tables() -> Vec<BoardTable> {
    let cols = [
        "ecw.ref.class",
        "ecw.ref.melee",
        "ecw.ref.ranged",
        "ecw.ref.hit-by",
        "ecw.ref.source",
    ];
    let rows = [
        (
            "ecw.ref.ft-pikes",
            "ecw.ref.blocks-plus-1",
            "ecw.ref.blocks-minus-1-range",
            "ecw.ref.hit-infantry",
            source("004, Foot", ""),
        ),
        (
            "ecw.ref.ft-shot",
            "ecw.ref.blocks",
            "ecw.ref.blocks-range",
            "ecw.ref.hit-infantry",
            source("004, Foot", ""),
        ),
        (
            "ecw.ref.cl",
            "ecw.ref.blocks",
            "ecw.ref.none",
            "ecw.ref.hit-infantry",
            source("004, Foot", ""),
        ),
        (
            "ecw.ref.cu",
            "ecw.ref.blocks",
            "ecw.ref.none",
            "ecw.ref.hit-cavalry-only",
            source("004, Horse", ""),
        ),
        (
            "ecw.ref.tr",
            "ecw.ref.blocks",
            "ecw.ref.none",
            "ecw.ref.hit-cavalry",
            source("004, Horse", ""),
        ),
        (
            "ecw.ref.ga",
            "ecw.ref.ga-melee",
            "ecw.ref.none",
            "ecw.ref.hit-cavalry",
            source("004, Horse", "22"),
        ),
        (
            "ecw.ref.dr",
            "ecw.ref.half-blocks",
            "ecw.ref.half-blocks-on-foot",
            "ecw.ref.hit-cavalry",
            source("004, Dragoons", "17, 18"),
        ),
        (
            "ecw.ref.ar",
            "ecw.ref.ar-melee",
            "ecw.ref.ar-ranged",
            "ecw.ref.hit-artillery",
            source("004, Artillery", "20"),
        ),
    ];
    let dice = table(
        "ecw.ref.dice-title",
        &cols,
        rows.iter()
            .map(|(a, b, c, d, e)| {
                let mut r = row(&[a, b, c, d]);
                r.push(e.clone());
                r
            })
            .collect(),
    );
    let training = table(
        "ecw.ref.training-title",
        &[
            "ecw.ref.training",
            "ecw.ref.dice",
            "ecw.ref.scores-sabres",
            "ecw.ref.hexes-per-flag",
            "ecw.ref.flags-ignored",
        ],
        vec![
            row(&["ecw.term.training-veteran", "+1", "ecw.ref.yes", "1", "1"]),
            row(&["ecw.term.training-trained", "—", "ecw.ref.yes", "1", "0"]),
            row(&["ecw.term.training-raw", "—", "ecw.ref.no", "2", "0"]),
            row(&["ecw.term.training-militia", "—", "ecw.ref.no", "3", "0"]),
        ],
    );
    let commands = table(
        "ecw.ref.commands-title",
        &["ecw.board.card", "ecw.ref.count", "ecw.board.what-it-does"],
        COMMAND_CARDS
            .iter()
            .map(|c| vec![c.title(), c.count.to_string(), c.rules()])
            .collect(),
    );
    let chaunce = table(
        "ecw.ref.chaunce-title",
        &[
            "ecw.board.card",
            "ecw.ref.count",
            "ecw.ref.turn",
            "ecw.board.what-it-does",
        ],
        CHAUNCE_CARDS
            .iter()
            .map(|c| {
                vec![
                    c.title(),
                    c.count.to_string(),
                    k(match c.turn {
                        tables::Turn::GoesOn => "ecw.ref.goes-on",
                        tables::Turn::Replaced => "ecw.ref.replaced",
                        tables::Turn::ReplacedNoSwap => "ecw.ref.replaced-no-swap",
                    }),
                    c.rules(),
                ]
            })
            .collect(),
    );
    vec![dice, training, commands, chaunce]
}
