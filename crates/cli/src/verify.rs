//! `tercio verify` (and the reading of an app export that `tercio report` shares): what an export
//! claims, checked against its seed, its commitment and its log's fingerprint, with every check
//! that could not be made said as plainly as those that were.

use std::path::Path;

use serde_json::Value;
use tercio_rules::game::{ChainVersion, Game, Seal};
use tercio_rules::{registry, scenario};

use crate::{fail, load_game, loc, read, rules_changed, warn_scenario, Failure, Res};

/// What the player saw during the game, to hold the export to (`--commitment`,
/// `--fingerprint`).
#[derive(Default)]
pub struct Seen {
    pub commitment: Option<String>,
    pub fingerprint: Option<String>,
    /// Accept a `tercio-export/1`, which carries no fingerprint of its log.
    pub without_fingerprint: bool,
}

/// What an app export says beside its log.
pub struct Export {
    /// 1, 2 or 3 (`tercio-export/N`).
    pub format: u32,
    /// The commitment the export says was published at the start.
    pub commitment: String,
    /// The log's fingerprint the export records (`chain`; absent from `/1`).
    pub chain: Option<String>,
    /// The fingerprint published with the seed (`dice.chain`), once revealed.
    pub published_chain: Option<String>,
    pub exported_for: String,
    /// Each event's `voided` flag as the export gives it: (index in the log, seq, flag).
    voided: Vec<(usize, u64, bool)>,
    pub revealed: bool,
}

fn at(path: &Path, field: &str, m: &str) -> Failure {
    fail(format!("{}: {field}: {m}", path.display()))
}

/// A game from a game file, or from an app export with what it says beside its log (`None` for
/// a game file); `need_seed`: the export's seed must have been revealed (for `verify`; a report
/// does without it). An export's header is checked here: its format, its rule set against its
/// scenario's, a rules version and chain version this build knows.
pub fn game_for_verify(
    path: &Path,
    need_seed: bool,
    without_fingerprint: bool,
) -> Result<(Game, Option<Export>), Failure> {
    let text = read(path)?;
    let name = path.display().to_string();
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| fail(format!("{name}:{}:{}: not JSON: {e}", e.line(), e.column())))?;
    let format = match v["format"].as_str() {
        Some("tercio-export/1") => 1,
        Some("tercio-export/2") => 2,
        Some("tercio-export/3") => 3,
        Some(f) if f.starts_with("tercio-export/") => {
            return Err(at(
                path,
                "format",
                &format!("\"{}\" is not an export format this build knows (tercio-export/1 to /3); a newer tercio may read it", clip(f)),
            ))
        }
        _ => return Ok((load_game(path)?, None)),
    };
    if format == 1 && !without_fingerprint {
        return Err(at(
            path,
            "format",
            "tercio-export/1 was made before the log's fingerprint was exported: in it a change to who recorded an entry, or an undo removed with the event it voided, cannot be detected. Pass --without-fingerprint to verify the rest of it",
        ));
    }
    let chain_version = match (format, v.get("chain_version")) {
        (3, Some(c)) => c
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| format!("{} is not a version number", clip(&c.to_string())))
            .and_then(ChainVersion::try_from)
            .map_err(|e| at(path, "chain_version", &e))?,
        (3, None) => return Err(at(path, "chain_version", "missing")),
        // Before `/3` every game was sealed with version 1.
        (_, None) => ChainVersion::V1,
        (_, Some(_)) => {
            return Err(at(
                path,
                "chain_version",
                "only a tercio-export/3 carries one",
            ))
        }
    };
    let chain = match v.get("chain") {
        None if format == 1 => None,
        None => return Err(at(path, "chain", "missing")),
        Some(c) => Some(
            c.as_str()
                .ok_or_else(|| at(path, "chain", "not text"))?
                .to_string(),
        ),
    };
    let dice = &v["dice"];
    let commitment = dice["commitment"]
        .as_str()
        .ok_or_else(|| at(path, "dice.commitment", "missing"))?
        .to_string();
    let seed = dice["seed"].as_u64();
    let Some(seed) = seed.or((!need_seed).then_some(0)) else {
        return Err(Failure {
            msg: format!(
                "{}: the seed is not revealed yet (it is when the game ends); the dice are committed to SHA-256 {commitment}",
                path.display()
            ),
            code: 3,
        });
    };
    let nonce = dice["nonce"].as_str().unwrap_or("").to_string();
    let mut entries = Vec::new();
    let mut voided = Vec::new();
    for (i, e) in v["log"].as_array().into_iter().flatten().enumerate() {
        if e["entry"] == "hidden" {
            return Err(at(
                path,
                &format!("log[{i}]"),
                "this event is hidden from the seat the export was made for; verify an export made once the game has ended",
            ));
        }
        if e["entry"] == "event" {
            let flag = e.get("voided").map_or(Some(false), Value::as_bool);
            let flag =
                flag.ok_or_else(|| at(path, &format!("log[{i}].voided"), "not yes or no"))?;
            voided.push((i, e["seq"].as_u64().unwrap_or(0), flag));
        }
        entries.push(
            serde_json::from_value(e.clone())
                .map_err(|x| at(path, &format!("log[{i}]"), &x.to_string()))?,
        );
    }
    let raw: scenario::ScenarioFile = serde_json::from_value(v["scenario"].clone())
        .map_err(|x| at(path, "scenario", &x.to_string()))?;
    let sc = scenario::Scenario::recorded(
        raw,
        &scenario::Source {
            file: &name,
            text: &text,
            path: "scenario",
        },
    );
    warn_scenario(&name, &sc);
    let ruleset = v["rule_set"]
        .as_str()
        .ok_or_else(|| at(path, "rule_set", "missing"))?
        .to_string();
    let rules = registry::lookup(&ruleset).map_err(|e| at(path, "rule_set", &e.to_string()))?;
    if registry::lookup(&sc.ruleset).map(|r| r.id()).ok() != Some(rules.id()) {
        return Err(at(
            path,
            "rule_set",
            &format!(
                "\"{}\", but the scenario is for \"{}\"",
                clip(&ruleset),
                clip(&sc.ruleset)
            ),
        ));
    }
    // An export made before games recorded their rules version was played under version 1.
    let rules_version = match v.get("rules_version") {
        None => 1,
        Some(n) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| at(path, "rules_version", "a small whole number"))?,
    };
    if rules_version == 0 || rules_version > rules.rules_version() {
        return Err(at(
            path,
            "rules_version",
            &format!(
                "{rules_version} is not a version of {} this build knows (1 to {}); a newer tercio may verify it",
                rules.id(),
                rules.rules_version()
            ),
        ));
    }
    let game_id = match (chain_version, v.get("game_id")) {
        (_, Some(id)) => id
            .as_str()
            .ok_or_else(|| at(path, "game_id", "not text"))?
            .to_string(),
        (ChainVersion::V2, None) if need_seed => {
            return Err(at(
                path,
                "game_id",
                "missing: the commitment binds the game's id (every export made once the game has ended carries it)",
            ))
        }
        (_, None) => String::new(),
    };
    let export = Export {
        format,
        commitment,
        chain,
        published_chain: dice["chain"].as_str().map(str::to_string),
        exported_for: v["exported_for"].as_str().unwrap_or("").to_string(),
        voided,
        revealed: dice["revealed"] == true,
    };
    let g = Game {
        format: tercio_rules::game::FORMAT.to_string(),
        ruleset: rules.id().to_string(),
        seed,
        nonce,
        scenario: sc,
        rules_version,
        log: tercio_core::EventLog::from_entries(entries).map_err(|e| at(path, "log", &e))?,
        state: v["state"].clone(),
        game_id,
        chain_version,
    };
    Ok((g, Some(export)))
}

/// A value quoted back in an error, cut to 60 characters (a hash to its 64 hex digits).
fn clip(s: &str) -> String {
    let keep = if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        64
    } else {
        60
    };
    match s.char_indices().nth(keep) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

pub fn verify(path: &Path, seen: &Seen) -> Res {
    let (g, export) = game_for_verify(path, true, seen.without_fingerprint)?;
    let failed = |m: String| fail(format!("{}: FAILED: {m}", path.display()));
    let seal: Seal = g.seal();
    let commitment = seal.commitment().to_string();
    let mut not_checked: Vec<String> = Vec::new();
    let identity = match g.chain_version {
        ChainVersion::V1 => "",
        ChainVersion::V2 => {
            " and what identifies the game (its id, rule set, rules version and scenario)"
        }
    };
    match &export {
        Some(x) if x.commitment != commitment => {
            return Err(failed(format!(
                "seed {} and nonce {}{identity} give the commitment {commitment}, not the published commitment {}",
                g.seed, g.nonce, x.commitment
            )))
        }
        Some(_) => say!(
            "commitment ok: seed {} and nonce {}{identity} give {commitment}, the commitment the export says was published",
            g.seed, g.nonce
        ),
        None => say!("commitment: {commitment} (seed {}, nonce {:?})", g.seed, g.nonce),
    }
    match &seen.commitment {
        Some(c) if !c.trim().eq_ignore_ascii_case(&commitment) => {
            return Err(failed(format!(
                "the commitment you gave, {}, is not this game's {commitment}: the export is not the game you saw, or its seed, nonce or identity was changed",
                clip(c.trim())
            )))
        }
        Some(_) => say!("commitment ok: it is the one you gave (--commitment), the one your page showed"),
        None => not_checked.push(
            "that this commitment is the one published at the start: compare it with the one the game's pages showed, or give it with --commitment".into(),
        ),
    }
    if g.chain_version == ChainVersion::V1 && export.is_some() {
        not_checked.push(
            "the game's id, rule set, rules version and scenario: a game recorded before chain version 2 does not bind them into its commitment (they were checked against each other only)".into(),
        );
    }
    let checked = g.verify().map_err(failed)?;
    // Then the derived flags, and the log's hash chain (after the dice, whose failures say
    // more): any entry changed (who acted, say), added or removed (an undo with the event it
    // voided) gives another head.
    if let Some(x) = &export {
        for &(i, seq, flag) in &x.voided {
            if flag != g.log.is_voided(seq) {
                return Err(failed(format!(
                    "log[{i}].voided is {flag}, but the log {} event {seq}",
                    if flag { "has no undo of" } else { "undoes" }
                )));
            }
        }
    }
    let links = g.log_links();
    let head = links.last().cloned().unwrap_or_else(|| seal.start());
    let recorded = export.as_ref().and_then(|x| x.chain.clone());
    if let Some(h) = &recorded {
        if *h != head {
            return Err(failed(format!(
                "the log's fingerprint is {head}, not the recorded {}: an entry was changed, added or removed",
                clip(h)
            )));
        }
    }
    if let Some(p) = export.as_ref().and_then(|x| x.published_chain.as_ref()) {
        if *p != head {
            return Err(failed(format!(
                "the fingerprint published with the seed (dice.chain) is {}, not the log's {head}",
                clip(p)
            )));
        }
    }
    if export.as_ref().is_some_and(|x| x.format == 1) {
        not_checked.push(
            "who recorded each entry, and whether an undo was removed with the event it voided: a tercio-export/1 carries no fingerprint of its log".into(),
        );
    }
    let fingerprint_line = match &seen.fingerprint {
        Some(f) => {
            let f = f.trim().to_ascii_lowercase();
            let at = if f == seal.start() {
                Some(0)
            } else {
                links.iter().position(|l| *l == f).map(|i| i + 1)
            };
            match at {
                Some(n) => format!(
                    "fingerprint ok: the one you gave (--fingerprint) is the log's after entry {n} of {}: those entries are the ones the pages showed{}",
                    links.len(),
                    if n == links.len() { "; this is the whole game" } else { "" }
                ),
                None => {
                    return Err(failed(format!(
                        "the fingerprint you gave, {}, is not this log's after any of its {} entries: the export is not the game you saw, or an entry was changed, added or removed",
                        clip(&f),
                        links.len()
                    )))
                }
            }
        }
        None => {
            not_checked.push(
                "that this is the log the game's pages showed: compare its fingerprint with one you noted, or give that with --fingerprint".into(),
            );
            String::new()
        }
    };
    if let Some(x) = &export {
        not_checked.push(format!(
            "who the export was downloaded by (exported_for: {}), which nothing binds; once the game has ended every seat's export holds the whole game",
            if x.exported_for.is_empty() { "none" } else { &x.exported_for }
        ));
        if !x.revealed {
            not_checked.push(
                "dice.revealed: the export does not say the seed was revealed by the game's end"
                    .into(),
            );
        }
    }
    let (mut seeded, mut entered) = (0usize, 0usize);
    for c in &checked {
        let faces: Vec<String> = c.faces.iter().map(u8::to_string).collect();
        let how = if c.faces.is_empty() {
            "no dice; the recorded result follows"
        } else if c.entered {
            entered += c.faces.len();
            "thrown at the table; faces fit the dice and give the recorded result"
        } else {
            seeded += c.faces.len();
            "the seed's next faces; the recorded result follows"
        };
        say!(
            "  #{:<4} {:<16} {:<24} ok ({how}){}",
            c.seq,
            c.action,
            if faces.is_empty() {
                "no dice".to_string()
            } else {
                faces.join(" ")
            },
            if c.voided { " [voided]" } else { "" }
        );
    }
    rules_changed(&g, &checked);
    say!(
        "{}: verified — {} events, {seeded} faces from the seed, {entered} thrown at the table; the state is the fold of the log",
        path.display(),
        checked.len()
    );
    say!(
        "log fingerprint after {} entries: {head}{}",
        g.log.entries().len(),
        if recorded.is_some() {
            ", as recorded in the export"
        } else {
            ""
        }
    );
    if !fingerprint_line.is_empty() {
        say!("{fingerprint_line}");
    }
    for n in &not_checked {
        say!("not checked: {n}");
    }
    Ok(())
}
