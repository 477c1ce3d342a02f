//! Reference tables for the rules page.

use super::*;

/// A distance in BW with its cm at both scales: "4 BW (16 / 12 cm)" (§3.1).
pub(super) fn bw_cm(bw: u32) -> String {
    format!("{bw} BW ({} / {} cm)", bw * 4, bw * 3)
}

/// The glossary of §2: the Italian term, and its English gloss (both languages show both).
pub(super) const GLOSSARY: [&str; 17] = [
    "picchieri",
    "fanteria-da-mischia",
    "rodeleros",
    "alabardieri",
    "doppelsoldner",
    "contadini-armati",
    "archibugieri",
    "balestrieri",
    "arcieri",
    "gendarmi",
    "cavalleria-pesante",
    "cavalleria-leggera",
    "artiglieria-leggera",
    "artiglieria-pesante",
    "veterani",
    "addestrati",
    "reclute",
];

pub(super) const GLOSSARY_RULES: [&str; 14] = [
    "bw",
    "cinque-e-mezzo",
    "riccio",
    "ordine-aperto",
    "disordine",
    "perdite-gravi",
    "test-di-panico",
    "inseguimento",
    "nebbia-di-guerra",
    "schermo",
    "tiro-a-raffica",
    "mala-guerra",
    "niente-soldi",
    "accampamento",
];

pub(super) fn reference_tables() -> Vec<BoardTable> {
    let troops = TROOPS
        .iter()
        .map(|t| {
            let half = tables::halves_text;
            let (mv, ch) = t.move_bw();
            vec![
                k(&format!("callan.term.{}", t.id())),
                t.sizes(false)
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                if mv == ch {
                    bw_cm(mv)
                } else {
                    format!("{} / {}", bw_cm(mv), bw_cm(ch))
                },
                half(t.melee_half_dice(false)),
                half(t.melee_half_dice(true)),
                t.hits_per_base().to_string(),
                format!(
                    "{} / {} / {}",
                    t.points(Quality::Reclute, 5),
                    t.points(Quality::Addestrati, 5),
                    t.points(Quality::Veterani, 5)
                ),
            ]
        })
        .collect();
    let weapons = [
        tables::Weapon::Archibugio,
        tables::Weapon::Balestra,
        tables::Weapon::CavalloArmiDaTiro,
        tables::Weapon::Giavellotti,
        tables::Weapon::CannoneLeggero,
        tables::Weapon::CannonePesante,
    ]
    .iter()
    .map(|w| {
        let (s, l) = w.dice();
        vec![
            k(&format!("callan.weapon.{}", w.id())),
            format!("< {} BW", tables::SHORT_BW),
            format!("{} BW", w.long_bw()),
            format!("{s} / {l}"),
        ]
    })
    .collect();
    let hits = [
        super::resolve::HitOn::Six,
        super::resolve::HitOn::FiveSix,
        super::resolve::HitOn::FiveHalf,
        super::resolve::HitOn::RerollMisses,
        super::resolve::HitOn::RerollOnes,
    ]
    .iter()
    .map(|h| {
        let (n, d) = h.chance();
        vec![
            k(&format!("callan.hit.{}", h.id())),
            format!("{n}/{d}"),
            m(
                "callan.pct",
                &[("p", tercio_i18n::pct(f64::from(n) / f64::from(d), 2))],
            ),
        ]
    })
    .collect();
    let panic = (-5..=1)
        .rev()
        .map(|mo: i32| {
            let p = super::resolve::panic_sixths(mo);
            vec![format!("{mo:+}"), format!("{p}/6"), format!("{}/36", p * p)]
        })
        .collect();
    let glossary = GLOSSARY
        .iter()
        .map(|id| {
            vec![
                k(&format!("callan.gloss.it.{id}")),
                k(&format!("callan.gloss.en.{id}")),
            ]
        })
        .chain(GLOSSARY_RULES.iter().map(|id| {
            vec![
                k(&format!("callan.gloss.it.{id}")),
                k(&format!("callan.gloss.en.{id}")),
            ]
        }))
        .collect();
    vec![
        table(
            "callan.ref.glossary",
            &["callan.col.italian", "callan.col.english"],
            glossary,
        ),
        table(
            "callan.ref.troops",
            &[
                "callan.col.type",
                "callan.col.sizes",
                "callan.col.move",
                "callan.col.vs-foot",
                "callan.col.vs-cavalry",
                "callan.col.hits-per-base",
                "callan.col.points",
            ],
            troops,
        ),
        table(
            "callan.ref.fire",
            &[
                "callan.col.weapon",
                "callan.col.short",
                "callan.col.long",
                "callan.col.dice",
            ],
            weapons,
        ),
        table(
            "callan.ref.hits",
            &["callan.col.hit", "callan.col.chance", "callan.col.percent"],
            hits,
        ),
        table(
            "callan.ref.panic",
            &[
                "callan.col.modifier",
                "callan.col.panic",
                "callan.col.panic-commander",
            ],
            panic,
        ),
    ]
}
