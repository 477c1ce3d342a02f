//! The game page of the app-driven rule sets, as data the shell draws: the board (the turn and
//! whose initiative it is, each army's units and break points, the leaders), the forms of the
//! actions that can be taken now (the turn's steps, the app's fields for each unit action, the
//! end of the turn with a field per firing unit and per camp), and the verdict.
//!
//! Every word is a catalogue message (`app_driven.*`); names are the scenario's.

use tercio_i18n::{keys, msg};

use super::game::{break_points, commands, eligible_leaders, swiss_to_charge};
use super::model::{Fate, GameState, Ground, Phase, Status, UnitState};
use super::AppEngine;
use crate::interface::{ActionForm, Board, BoardTable, Choice, FieldKind, FormField};

fn m(key: &str) -> String {
    msg(key, &[])
}

fn side_name(st: &GameState, id: &str) -> String {
    st.sides
        .iter()
        .find(|s| s.id == id)
        .map_or(id.to_string(), |s| s.name.clone())
}

/// The result once the battle is over: who won, or a draw.
pub fn verdict(st: &GameState) -> Option<String> {
    if st.phase != Phase::Over {
        return None;
    }
    if st.broken.len() > 1 {
        return Some(m(keys::APP_DRIVEN_VERDICT_DRAW));
    }
    let winner: Vec<&str> = st
        .sides
        .iter()
        .filter(|s| !st.broken.contains(&s.id))
        .map(|s| s.name.as_str())
        .collect();
    let broken: Vec<String> = st.broken.iter().map(|b| side_name(st, b)).collect();
    Some(msg(
        keys::APP_DRIVEN_VERDICT_WINS,
        &[
            ("winner", &winner.join(", ")),
            ("broken", &broken.join(", ")),
        ],
    ))
}

fn status_key(s: Status) -> &'static str {
    match s {
        Status::Ok => keys::APP_DRIVEN_STATUS_OK,
        Status::Disordered => keys::APP_DRIVEN_STATUS_DISORDERED,
        Status::Demoralized => keys::APP_DRIVEN_STATUS_DEMORALIZED,
    }
}

/// The units the current leader may still activate.
fn activatable(st: &GameState) -> Vec<&UnitState> {
    let Some(l) = st.current.as_ref().and_then(|c| st.leader(&c.leader)) else {
        return Vec::new();
    };
    st.units
        .values()
        .map(|u| &**u)
        .filter(|u| !u.destroyed && !u.acted && commands(st, l, u))
        .collect()
}

/// The turn, each army's units, the leaders.
pub fn board(e: &AppEngine, st: &GameState) -> Board {
    let turn = st.turn.to_string();
    let headline = match st.phase {
        Phase::Over => verdict(st).unwrap_or_default(),
        Phase::EndOfTurn => msg(keys::APP_DRIVEN_HEADLINE_END, &[("turn", &turn)]),
        Phase::Command => match (&st.initiative_side, &st.current) {
            (Some(side), Some(cur)) => msg(
                keys::APP_DRIVEN_HEADLINE_ACTIVATIONS,
                &[
                    ("turn", &turn),
                    ("side", &side_name(st, side)),
                    (
                        "leader",
                        st.leader(&cur.leader).map_or("", |l| l.name.as_str()),
                    ),
                    ("count", &cur.activations_left.to_string()),
                ],
            ),
            (Some(side), None) => msg(
                keys::APP_DRIVEN_HEADLINE_INITIATIVE,
                &[("turn", &turn), ("side", &side_name(st, side))],
            ),
            _ => msg(keys::APP_DRIVEN_HEADLINE_COMMAND, &[("turn", &turn)]),
        },
    };
    let mut notes = Vec::new();
    match st.phase {
        Phase::Command => match (&st.initiative_side, &st.current) {
            (Some(side), None) => notes.push(msg(
                keys::APP_DRIVEN_NOTE_COMMAND,
                &[("side", &side_name(st, side))],
            )),
            (Some(_), Some(cur)) if cur.activations_left > 0 => {
                let units: Vec<&str> = activatable(st).iter().map(|u| u.name.as_str()).collect();
                if !units.is_empty() {
                    let leader = st.leader(&cur.leader).map_or("", |l| l.name.as_str());
                    notes.push(msg(
                        keys::APP_DRIVEN_NOTE_ACTIVATE,
                        &[("leader", leader), ("units", &units.join(", "))],
                    ));
                }
            }
            _ => notes.push(m(keys::APP_DRIVEN_NOTE_INITIATIVE)),
        },
        Phase::EndOfTurn if st.end_fire_done => notes.push(m(keys::APP_DRIVEN_NOTE_BREAK_CHECK)),
        Phase::EndOfTurn => {
            let swiss: Vec<&str> = swiss_to_charge(st)
                .iter()
                .map(|u| u.name.as_str())
                .collect();
            if e.egc && !swiss.is_empty() {
                notes.push(msg(
                    keys::APP_DRIVEN_NOTE_SWISS,
                    &[("units", &swiss.join(", "))],
                ));
            }
            notes.push(m(keys::APP_DRIVEN_NOTE_END_FIRE));
            if shooters(e, st).is_empty() {
                notes.push(m(keys::APP_DRIVEN_NOTE_NO_FIRE));
            }
        }
        Phase::Over => {}
    }
    let mut tables = Vec::new();
    for side in &st.sides {
        let (lost, bp) = break_points(&e.charts, st, &side.id);
        let role = if side.attacker {
            keys::APP_DRIVEN_BOARD_ATTACKER
        } else {
            keys::APP_DRIVEN_BOARD_DEFENDER
        };
        let rows = st
            .units
            .values()
            .filter(|u| u.side == side.id)
            .map(|u| unit_row(e, st, u))
            .collect();
        // The camp, where the side has one: standing, or sacked (a break point more).
        let title = match (side.camp, side.camp_sacked) {
            (true, true) => keys::APP_DRIVEN_BOARD_SIDE_CAMP_SACKED,
            (true, false) => keys::APP_DRIVEN_BOARD_SIDE_CAMP,
            _ => keys::APP_DRIVEN_BOARD_SIDE,
        };
        tables.push(BoardTable::new(
            &msg(
                title,
                &[
                    ("side", &side.name),
                    ("role", &format!("@{role}")),
                    ("lost", &lost.to_string()),
                    ("bp", &bp.to_string()),
                ],
            ),
            &[
                &m(keys::APP_DRIVEN_BOARD_UNIT),
                &m(keys::APP_DRIVEN_BOARD_TYPE),
                &m(keys::APP_DRIVEN_BOARD_STATUS),
                &m(keys::APP_DRIVEN_BOARD_BASES),
                &m(keys::APP_DRIVEN_BOARD_NOTES),
            ],
            rows,
        ));
    }
    let leaders = st
        .leaders
        .values()
        .map(|l| {
            let mut notes = Vec::new();
            if l.army {
                notes.push(m(keys::APP_DRIVEN_BOARD_ARMY_COMMANDER));
            }
            match l.fate {
                Some(Fate::Killed) => notes.push(m(keys::APP_DRIVEN_BOARD_KILLED)),
                Some(Fate::Captured) => notes.push(m(keys::APP_DRIVEN_BOARD_CAPTURED)),
                None => {}
            }
            if let Some(to) = st.leaders.values().find(|o| o.inherited.contains(&l.id)) {
                notes.push(msg(
                    keys::APP_DRIVEN_BOARD_COMMAND_TO,
                    &[("name", &to.name)],
                ));
            }
            if l.had_initiative {
                notes.push(m(keys::APP_DRIVEN_BOARD_HAD_INITIATIVE));
            }
            if l.caught_up {
                notes.push(m(keys::APP_DRIVEN_BOARD_CAUGHT_UP));
            }
            let with = match l.attached_to.as_ref().and_then(|u| st.unit(u)) {
                Some(u) if l.fate.is_none() => {
                    msg(keys::APP_DRIVEN_BOARD_WITH, &[("name", &u.name)])
                }
                _ if l.fate.is_none() => m(keys::APP_DRIVEN_BOARD_STANDS_ALONE),
                _ => String::new(),
            };
            if !with.is_empty() {
                notes.push(with);
            }
            vec![l.name.clone(), side_name(st, &l.side), notes.join("; ")]
        })
        .collect();
    tables.push(BoardTable::new(
        &m(keys::APP_DRIVEN_BOARD_LEADERS),
        &[
            &m(keys::APP_DRIVEN_BOARD_LEADER),
            &m(keys::APP_DRIVEN_BOARD_ARMY),
            &m(keys::APP_DRIVEN_BOARD_NOTES),
        ],
        leaders,
    ));
    Board {
        headline,
        notes,
        tables,
    }
}

fn unit_row(e: &AppEngine, st: &GameState, u: &UnitState) -> Vec<String> {
    let troop = e
        .charts
        .troop(&u.troop)
        .map_or(u.troop.clone(), |t| t.title());
    let status = if u.destroyed {
        m(keys::APP_DRIVEN_STATUS_DESTROYED)
    } else {
        m(status_key(u.status))
    };
    let mut notes = Vec::new();
    if u.acted && !u.destroyed {
        notes.push(m(keys::APP_DRIVEN_BOARD_ACTED));
    }
    if u.march {
        notes.push(m(keys::APP_DRIVEN_BOARD_MARCH));
    }
    if u.stakes_planted {
        notes.push(m(keys::APP_DRIVEN_BOARD_STAKES));
    }
    if let Some(l) = st
        .leaders
        .values()
        .find(|l| l.fate.is_none() && l.attached_to.as_deref() == Some(u.id.as_str()))
    {
        notes.push(msg(keys::APP_DRIVEN_BOARD_WITH, &[("name", &l.name)]));
    }
    if !u.in_combat_with.is_empty() {
        let names: Vec<&str> = u
            .in_combat_with
            .iter()
            .filter_map(|x| st.unit(x).map(|o| o.name.as_str()))
            .collect();
        notes.push(msg(
            keys::APP_DRIVEN_BOARD_FIGHTING,
            &[("names", &names.join(", "))],
        ));
    }
    vec![
        u.name.clone(),
        troop,
        status,
        format!("{}/{}", u.bases - u.lost.min(u.bases), u.bases),
        notes.join("; "),
    ]
}

/// Units that may take part in the simultaneous fire: not destroyed, not acted, not in a
/// combat, with a missile weapon they may use.
fn shooters<'a>(e: &AppEngine, st: &'a GameState) -> Vec<&'a UnitState> {
    st.units
        .values()
        .map(|u| &**u)
        .filter(|u| u.on_table(st.turn) && !u.acted && u.in_combat_with.is_empty())
        .filter(|u| {
            e.charts.troop(&u.troop).is_some_and(|t| {
                t.fire
                    .is_some_and(|f| f.needs_flag.is_none_or(|n| u.flags.iter().any(|x| x == n)))
            })
        })
        .collect()
}

/// The Cover/Ground list; `actor_side` adds the Actor's own obstacle or works, which only a
/// Melee uses (issue 17, item 11).
fn ground_choices(actor_side: bool) -> Vec<Choice> {
    let own = [
        (
            Ground::ActorObstacle,
            keys::APP_DRIVEN_GROUND_ACTOR_OBSTACLE,
        ),
        (
            Ground::ActorFortified,
            keys::APP_DRIVEN_GROUND_ACTOR_FORTIFIED,
        ),
    ];
    [
        (Ground::Open, keys::APP_DRIVEN_GROUND_OPEN),
        (Ground::Rough, keys::APP_DRIVEN_GROUND_ROUGH),
        (Ground::VeryRough, keys::APP_DRIVEN_GROUND_VERY_ROUGH),
        (Ground::RoughCover, keys::APP_DRIVEN_GROUND_ROUGH_COVER),
        (
            Ground::VeryRoughCover,
            keys::APP_DRIVEN_GROUND_VERY_ROUGH_COVER,
        ),
        (Ground::Obstacle, keys::APP_DRIVEN_GROUND_OBSTACLE),
        (Ground::Fortified, keys::APP_DRIVEN_GROUND_FORTIFIED),
        (Ground::ActorUphill, keys::APP_DRIVEN_GROUND_ACTOR_UPHILL),
        (Ground::TargetUphill, keys::APP_DRIVEN_GROUND_TARGET_UPHILL),
    ]
    .iter()
    .chain(own.iter().filter(|_| actor_side))
    .map(|(g, k)| Choice::new(serde_value(g), m(k)))
    .collect()
}

fn serde_value<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn status_choices() -> Vec<Choice> {
    [Status::Ok, Status::Disordered, Status::Demoralized]
        .iter()
        .map(|s| Choice::new(serde_value(s), m(status_key(*s))))
        .collect()
}

fn force_choices() -> Vec<Choice> {
    [
        (
            "badly-outnumbered",
            keys::APP_DRIVEN_FORCE_BADLY_OUTNUMBERED,
        ),
        ("outnumbered", keys::APP_DRIVEN_FORCE_OUTNUMBERED),
        ("even", keys::APP_DRIVEN_FORCE_EVEN),
        ("outnumbers", keys::APP_DRIVEN_FORCE_OUTNUMBERS),
        ("badly-outnumbers", keys::APP_DRIVEN_FORCE_BADLY_OUTNUMBERS),
    ]
    .iter()
    .map(|(v, k)| Choice::new(*v, m(k)))
    .collect()
}

/// The forms of the actions `side` may take now (`None`: the game master, every action).
pub fn forms(e: &AppEngine, st: &GameState, side: Option<&str>) -> Vec<ActionForm> {
    let gm = side.is_none();
    let mine = |s: &str| side.is_none_or(|x| x == s);
    let mut out = Vec::new();
    if st.phase == Phase::Over {
        return out;
    }
    let form = |action: &str, fields: Vec<FormField>, odds: bool| {
        ActionForm::new(
            action,
            &m(&format!("app_driven.action.{action}")),
            &m(&format!("app_driven.hint.{action}")),
            fields,
            odds,
        )
    };
    // The turn's steps.
    match st.phase {
        Phase::Command => {
            let spent = st.current.as_ref().is_some_and(|c| c.activations_left == 0)
                || (st.current.is_some() && activatable(st).is_empty());
            if gm {
                // The initiative and the command roll dice: their odds show too.
                let f = form("initiative", vec![], true);
                let next = st.initiative_side.is_none() || spent;
                out.push(if next { f.primary() } else { f });
            }
            if let (Some(s), None) = (&st.initiative_side, &st.current) {
                if mine(s) {
                    let leaders = eligible_leaders(st, s)
                        .iter()
                        .map(|l| Choice::new(l.id.clone(), l.name.clone()))
                        .collect();
                    out.push(
                        form(
                            "command",
                            vec![FormField::choice(
                                "leader",
                                &m(keys::APP_DRIVEN_FIELD_LEADER),
                                leaders,
                                false,
                            )],
                            true,
                        )
                        .primary(),
                    );
                }
            }
            if gm {
                out.push(form("end-initiatives", vec![], false));
            }
        }
        Phase::EndOfTurn if gm => {
            if !st.end_fire_done {
                // Its odds target by target (`Rules::odds_parts`).
                out.push(form("end-fire", end_fire_fields(e, st), true).primary());
            }
            let f = form("end-turn", end_turn_fields(st), false);
            out.push(if st.end_fire_done { f.primary() } else { f });
        }
        _ => {}
    }
    // The app's fields, one form per unit action.
    let units: Vec<&UnitState> = st
        .units
        .values()
        .map(|u| &**u)
        .filter(|u| !u.destroyed && mine(&u.side))
        .collect();
    // Every phase offers them (the rules refuse them at the turn's end but for El Gran
    // Capitán's Ferocious Charge, and `mark_refusals` says so on each form): a page that keeps
    // its forms from turn to turn is patched where they changed, not sent them whole again.
    if !units.is_empty() {
        for kind in [
            "charge", "fire", "melee", "advance", "march", "retire", "regroup",
        ] {
            let fields = unit_fields(e, st, side, kind);
            // No form for an action none of the seat's units may take (no one may fire).
            let none = matches!(
                fields.first().map(|f| &f.kind),
                Some(FieldKind::Choice { options, .. }) if options.is_empty()
            );
            if none {
                continue;
            }
            // A Swiss charge is ferocious at the end of the turn and only then (section 4.15):
            // the game knows which, so the form says it itself instead of asking (issue 43,
            // item 2: what the game knows is not asked).
            if kind == "charge" && fields.iter().any(|f| f.name == "ferocious") {
                let fields = fields
                    .into_iter()
                    .filter(|f| f.name != "ferocious")
                    .collect();
                let f = form(kind, fields, true);
                out.push(if st.phase == Phase::EndOfTurn {
                    f.with_fixed("ferocious", serde_json::Value::Bool(true))
                } else {
                    f
                });
                continue;
            }
            out.push(form(kind, fields, true));
        }
    }
    // The leaders.
    if st.phase != Phase::Over {
        let alive: Vec<Choice> = st
            .leaders
            .values()
            .filter(|l| l.fate.is_none() && mine(&l.side))
            .map(|l| Choice::new(l.id.clone(), l.name.clone()))
            .collect();
        // Only the leaders who may move now: one that fought in a Melee this turn, or whose
        // unit is still in combat, stays where it is (found by `tercio fuzz`: the form's first
        // leader was one the rules refused).
        let movable: Vec<Choice> = st
            .leaders
            .values()
            .filter(|l| l.fate.is_none() && mine(&l.side))
            .filter(|l| super::game::leader_may_leave(st, l).is_ok())
            .map(|l| Choice::new(l.id.clone(), l.name.clone()))
            .collect();
        if !movable.is_empty() {
            let units: Vec<Choice> = units
                .iter()
                .map(|u| Choice::new(u.id.clone(), u.name.clone()))
                .collect();
            out.push(form(
                "attach",
                vec![
                    FormField::choice("leader", &m(keys::APP_DRIVEN_FIELD_LEADER), movable, false),
                    FormField::choice("unit", &m(keys::APP_DRIVEN_FIELD_UNIT), units, true)
                        .resets()
                        .buttons(Some(&m(keys::APP_DRIVEN_BOARD_STANDS_ALONE))),
                ],
                false,
            ));
        }
        let fallen: Vec<Choice> = st
            .leaders
            .values()
            .filter(|l| l.fate.is_some() && mine(&l.side))
            .filter(|l| !st.leaders.values().any(|o| o.inherited.contains(&l.id)))
            .map(|l| Choice::new(l.id.clone(), l.name.clone()))
            .collect();
        if !fallen.is_empty() && !alive.is_empty() {
            out.push(form(
                "assign-command",
                vec![
                    FormField::choice("leader", &m(keys::APP_DRIVEN_FIELD_FALLEN), fallen, false),
                    FormField::choice("to", &m(keys::APP_DRIVEN_FIELD_TO), alive, false),
                ],
                false,
            ));
        }
    }
    // The game master takes a unit off the table, uncounted (issue 17, item 12).
    if gm {
        let on_table: Vec<Choice> = st
            .units
            .values()
            .filter(|u| !u.destroyed)
            .map(|u| Choice::new(u.id.clone(), u.name.clone()))
            .collect();
        if !on_table.is_empty() {
            out.push(form(
                "remove",
                vec![FormField::choice(
                    "unit",
                    &m(keys::APP_DRIVEN_FIELD_REMOVE_UNIT),
                    on_table,
                    false,
                )],
                false,
            ));
        }
    }
    out
}

/// The app's fields an action of `kind` uses, for this seat (a side's seat does not set the
/// fields reserved to the game master).
fn unit_fields(e: &AppEngine, st: &GameState, side: Option<&str>, kind: &str) -> Vec<FormField> {
    let gm = side.is_none();
    let mine = |s: &str| side.is_none_or(|x| x == s);
    let uses = |kinds: &str| kinds.split(' ').any(|k| k == kind);
    // Plain names in a fixed order (side by side, as the board lists them): an action changes
    // no form, so a live page is sent only what changed on the board. Who may be activated now
    // is the board's note.
    let mut actors: Vec<&UnitState> = st
        .units
        .values()
        .map(|u| &**u)
        .filter(|u| u.on_table(st.turn) && mine(&u.side))
        // Only units that may fire are offered to Fire (issue 17, item 6).
        .filter(|u| {
            kind != "fire"
                || e.charts
                    .troop(&u.troop)
                    .is_some_and(|t| t.can_fire(&u.flags))
        })
        .collect();
    actors.sort_by_key(|u| st.sides.iter().position(|s| s.id == u.side));
    let actor_choices = actors
        .iter()
        .map(|u| Choice::new(u.id.clone(), u.name.clone()))
        .collect();
    let mut f = vec![FormField::choice(
        "actor",
        &m(keys::APP_DRIVEN_FIELD_ACTOR),
        actor_choices,
        false,
    )
    .resets()];
    if uses("charge fire melee retire regroup") {
        // The other side's units, never the actor's own (issue 43, item 2).
        f.extend(per_side(st, &actors, |side| {
            FormField::choice(
                "target",
                &m(keys::APP_DRIVEN_FIELD_TARGET),
                enemies(st, side),
                true,
            )
        }));
        f.push(FormField::choice(
            "ground",
            &m(keys::APP_DRIVEN_FIELD_GROUND),
            ground_choices(uses("melee retire regroup")),
            kind == "regroup",
        ));
    }
    if kind == "fire" {
        f.extend(second_target_fields(st, &actors));
    }
    if gm && uses("charge fire melee retire regroup") {
        f.push(
            FormField::choice(
                "actor_status",
                &m(keys::APP_DRIVEN_FIELD_ACTOR_STATUS),
                status_choices(),
                true,
            )
            .more(),
        );
        f.push(
            FormField::choice(
                "target_status",
                &m(keys::APP_DRIVEN_FIELD_TARGET_STATUS),
                status_choices(),
                true,
            )
            .more(),
        );
    }
    if gm && uses("charge fire melee retire") {
        f.push(
            FormField::choice(
                "force",
                &m(keys::APP_DRIVEN_FIELD_FORCE),
                force_choices(),
                true,
            )
            .more(),
        );
    }
    if uses("charge melee retire regroup") {
        f.extend(supporting_fields(st, &actors, gm));
    }
    if uses("charge melee retire regroup advance march") {
        let leaders = st
            .leaders
            .values()
            .filter(|l| l.fate.is_none() && mine(&l.side))
            .map(|l| Choice::new(l.id.clone(), l.name.clone()))
            .collect();
        f.push(
            FormField::choice(
                "leader_with_actor",
                &m(keys::APP_DRIVEN_FIELD_LEADER_WITH_ACTOR),
                leaders,
                true,
            )
            .more(),
        );
    }
    if kind == "melee" {
        f.push(FormField::flag(
            "actor_charging",
            &m(keys::APP_DRIVEN_FIELD_CHARGING),
        ));
        f.push(FormField::flag(
            "in_contact",
            &m(keys::APP_DRIVEN_FIELD_IN_CONTACT),
        ));
    }
    if uses("melee retire regroup") {
        f.push(FormField::flag(
            "actor_in_flank",
            &m(keys::APP_DRIVEN_FIELD_ACTOR_FLANK),
        ));
        if gm {
            f.push(FormField::flag(
                "target_in_flank",
                &m(keys::APP_DRIVEN_FIELD_TARGET_FLANK),
            ));
        }
    }
    if kind == "charge" {
        f.push(FormField::choice(
            "frontal",
            &m(keys::APP_DRIVEN_FIELD_FRONTAL),
            vec![
                Choice::new("true", m(keys::APP_DRIVEN_FIELD_FRONT)),
                Choice::new("false", m(keys::APP_DRIVEN_FIELD_FLANK)),
            ],
            false,
        ));
        // Only the Swiss may make a Ferocious Charge (issue 17, item 15).
        let swiss: Vec<String> = actors
            .iter()
            .filter(|u| u.troop == "swiss-pike")
            .map(|u| u.id.clone())
            .collect();
        if e.egc && !swiss.is_empty() {
            f.push(
                FormField::flag("ferocious", &m(keys::APP_DRIVEN_FIELD_FEROCIOUS)).only_for(swiss),
            );
        }
    }
    if kind == "regroup" && !e.egc {
        f.push(FormField::flag(
            "plant_stakes",
            &m(keys::APP_DRIVEN_FIELD_STAKES),
        ));
    }
    f
}

/// A Fire's second target (both seeds, "If a Fire action has two Target units, then two
/// calculations are performed"), one tap away, for a firer with two bases or more; once chosen,
/// the bases firing at it (the others fire at the first target) and its cover.
fn second_target_fields(st: &GameState, actors: &[&UnitState]) -> Vec<FormField> {
    let firers: Vec<&UnitState> = actors
        .iter()
        .copied()
        .filter(|u| u.bases.saturating_sub(u.lost) >= 2)
        .collect();
    let mut ids: Vec<String> = Vec::new();
    for u in &firers {
        for c in enemies(st, &u.side) {
            if !ids.contains(&c.value) {
                ids.push(c.value);
            }
        }
    }
    if ids.is_empty() {
        return Vec::new();
    }
    let most = actors
        .iter()
        .map(|u| i64::from(u.bases.saturating_sub(u.lost)))
        .max()
        .unwrap_or(2);
    // Each side's firers the other side's units (issue 43, item 2).
    let mut f: Vec<FormField> = per_side(st, &firers, |side| {
        FormField::choice(
            "second_target",
            &m(keys::APP_DRIVEN_FIELD_SECOND_TARGET),
            enemies(st, side),
            true,
        )
        .more()
    })
    .into_iter()
    .map(|x| {
        // Shown for a firer of two bases or more only.
        let only: Vec<String> = if x.only_for.is_empty() {
            firers.iter().map(|u| u.id.clone()).collect()
        } else {
            x.only_for.clone()
        };
        x.only_for(only)
    })
    .collect();
    f.extend(vec![
        FormField::number(
            "second_firing_bases",
            &m(keys::APP_DRIVEN_FIELD_SECOND_BASES),
            1,
            most - 1,
            1,
        )
        .only_when("second_target", ids.clone())
        .more(),
        FormField::choice(
            "second_ground",
            &m(keys::APP_DRIVEN_FIELD_SECOND_GROUND),
            ground_choices(false),
            false,
        )
        .only_when("second_target", ids)
        .more(),
    ]);
    f
}

/// The units on the table of the sides other than `side`: the targets of its units.
fn enemies(st: &GameState, side: &str) -> Vec<Choice> {
    st.units
        .values()
        .filter(|u| u.on_table(st.turn) && u.side != side)
        .map(|u| Choice::new(u.id.clone(), u.name.clone()))
        .collect()
}

/// A field made per side of `actors` (`make(side)`): alone when they are of one side (a side's
/// seat), else one per side, each shown for that side's actors only (the game master's forms).
fn per_side(
    st: &GameState,
    actors: &[&UnitState],
    make: impl Fn(&str) -> FormField,
) -> Vec<FormField> {
    let sides: Vec<&str> = st
        .sides
        .iter()
        .map(|s| s.id.as_str())
        .filter(|s| actors.iter().any(|u| u.side == *s))
        .collect();
    if sides.len() == 1 {
        return vec![make(sides[0])];
    }
    sides
        .iter()
        .map(|side| {
            let ids = actors
                .iter()
                .filter(|u| u.side == *side)
                .map(|u| u.id.clone())
                .collect();
            make(side).only_for(ids)
        })
        .filter(|f| !matches!(&f.kind, FieldKind::Choice { options, .. } if options.is_empty()))
        .collect()
}

/// The Supporting units of a melee, named (both seeds, 'Supporting' units): for the actor's
/// side, its other units on the table, acted or not (both seeds, 'Units in the Melee on both
/// sides which have already acted may influence it as Supporting units'); for the target's, the
/// enemy's, given by the game master only (the opponent's supports, one tap away). A seat's actors are of one
/// side; the game master's are of both, so each side's actors have fields of their own, shown
/// for them alone (`only_for`). The actor and the target appear among their side's units, and
/// naming them is refused at the field.
fn supporting_fields(st: &GameState, actors: &[&UnitState], gm: bool) -> Vec<FormField> {
    let mut f = Vec::new();
    let sides: Vec<&str> = st
        .sides
        .iter()
        .map(|s| s.id.as_str())
        .filter(|s| actors.iter().any(|u| u.side == *s))
        .collect();
    let units = |pick: &dyn Fn(&UnitState) -> bool| -> Vec<Choice> {
        st.units
            .values()
            .filter(|u| u.on_table(st.turn) && pick(u))
            .map(|u| Choice::new(u.id.clone(), u.name.clone()))
            .collect()
    };
    for side in &sides {
        let only = |field: FormField| {
            if sides.len() > 1 {
                let ids = actors
                    .iter()
                    .filter(|u| u.side == *side)
                    .map(|u| u.id.clone())
                    .collect();
                field.only_for(ids)
            } else {
                field
            }
        };
        let own = units(&|u| u.side == *side);
        if own.len() > 1 {
            f.push(only(FormField::choices(
                "supporting_actor_units",
                &m(keys::APP_DRIVEN_FIELD_SUPPORTING_ACTOR),
                own,
            )));
        }
        // The opponent's supports, the game master's to give, beside the actor's: what the
        // table tells of a melee is on its form, not behind a tap among the corrections (issue
        // 43: no interaction spent on opening). A list of several is one line on a phone.
        let theirs = units(&|u| u.side != *side);
        if gm && theirs.len() > 1 {
            f.push(only(FormField::choices(
                "supporting_target_units",
                &m(keys::APP_DRIVEN_FIELD_SUPPORTING_TARGET),
                theirs,
            )));
        }
    }
    f
}

/// The simultaneous fire: the Swiss with no enemy in reach (El Gran Capitán), then each unit
/// that may fire and its target; one tap away (so that a dozen shooters fit a phone), its firing
/// bases (the front rank: all of them at first), shown once a target is chosen, the target's
/// cover, and a second target to split the fire between, with its own bases and cover (a unit of
/// one base cannot split).
fn end_fire_fields(e: &AppEngine, st: &GameState) -> Vec<FormField> {
    let mut f = Vec::new();
    if e.egc {
        for u in swiss_to_charge(st) {
            f.push(FormField::flag(
                &format!("no-target.{}", u.id),
                &msg(keys::APP_DRIVEN_FIELD_NO_TARGET, &[("unit", &u.name)]),
            ));
        }
    }
    for u in shooters(e, st) {
        let targets: Vec<Choice> = st
            .units
            .values()
            .filter(|t| t.side != u.side && !t.destroyed)
            .map(|t| Choice::new(t.id.clone(), t.name.clone()))
            .collect();
        let ids: Vec<String> = targets.iter().map(|c| c.value.clone()).collect();
        let name =
            |key: &str, field: &str| (format!("{field}.{}", u.id), msg(key, &[("unit", &u.name)]));
        let bases = i64::from(u.bases.saturating_sub(u.lost));
        let (fire, label) = name(keys::APP_DRIVEN_FIELD_FIRES, "fire");
        f.push(FormField::choice(&fire, &label, targets.clone(), true));
        if !ids.is_empty() {
            let (field, label) = name(keys::APP_DRIVEN_FIELD_FIRE_BASES, "bases");
            f.push(
                FormField::number(&field, &label, 1, bases, bases)
                    .only_when(&fire, ids.clone())
                    .more(),
            );
        }
        let (field, label) = name(keys::APP_DRIVEN_FIELD_FIRE_GROUND, "ground");
        f.push(FormField::choice(&field, &label, ground_choices(false), false).more());
        if bases < 2 || ids.is_empty() {
            continue;
        }
        let (split, label) = name(keys::APP_DRIVEN_FIELD_SPLIT, "split");
        f.push(FormField::choice(&split, &label, targets, true).more());
        let (field, label) = name(keys::APP_DRIVEN_FIELD_SPLIT_BASES, "split-bases");
        f.push(
            FormField::number(&field, &label, 1, bases - 1, 1)
                .only_when(&split, ids.clone())
                .more(),
        );
        let (field, label) = name(keys::APP_DRIVEN_FIELD_SPLIT_GROUND, "split-ground");
        f.push(
            FormField::choice(&field, &label, ground_choices(false), false)
                .only_when(&split, ids)
                .more(),
        );
    }
    f
}

/// How many looters the page's form offers per camp (the API takes any number).
const LOOTERS_ON_FORM: usize = 3;

/// Each camp not yet sacked, and the enemy units that may sack it.
fn end_turn_fields(st: &GameState) -> Vec<FormField> {
    let mut f = Vec::new();
    for side in st.sides.iter().filter(|s| s.camp && !s.camp_sacked) {
        let looters: Vec<Choice> = st
            .units
            .values()
            .filter(|u| u.side != side.id && !u.destroyed && u.in_combat_with.is_empty())
            .map(|u| Choice::new(u.id.clone(), u.name.clone()))
            .collect();
        for n in 1..=LOOTERS_ON_FORM {
            let key = if n == 1 {
                keys::APP_DRIVEN_FIELD_SACKED_BY
            } else {
                keys::APP_DRIVEN_FIELD_SACKED_ALSO
            };
            f.push(FormField::choice(
                &format!("sack.{}.{n}", side.id),
                &msg(key, &[("side", &side.name)]),
                looters.clone(),
                true,
            ));
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interface::{input::read_action, FieldKind, Rules};
    use serde_json::{json, Value};
    use tercio_i18n::{localize, Lang};

    fn engine(rules: &str, scenario: &str) -> (AppEngine, GameState) {
        let text = std::fs::read_to_string(format!(
            "{}/../../scenarios/{rules}/{scenario}.toml",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("scenario");
        let sc = crate::scenario::parse(scenario, &text).expect("parse");
        let e = AppEngine {
            charts: std::sync::Arc::new(if rules == "el-gran-capitan" {
                crate::el_gran_capitan::CHARTS.clone()
            } else {
                crate::bloody_dismal_fight::CHARTS.clone()
            }),
            egc: rules == "el-gran-capitan",
            scenario: Some(sc),
        };
        let st = e.initial_state().expect("state");
        (e, st)
    }

    fn act(e: &AppEngine, st: &mut GameState, a: Value) {
        let a = read_action(&a).expect("read");
        let plan = e.plan(st, &a).expect("plan");
        let (o, _) = plan.roll(&mut tercio_core::DiceStream::from_seed(5));
        e.apply(st, &o.effects).expect("apply");
    }

    fn actions(fs: &[ActionForm]) -> Vec<&str> {
        fs.iter().map(|f| f.action.as_str()).collect()
    }

    /// The refusals of the turn's order speak the reader's language (issue 17, item 3): a unit
    /// under another leader's command, a leader with no activations left.
    #[test]
    fn refusals_of_the_turns_order_are_messages() {
        let (e, mut st) = engine("el-gran-capitan", "cerignola-1503");
        act(&e, &mut st, json!({"action": "initiative"}));
        let side = st.initiative_side.clone().expect("side");
        let leader = eligible_leaders(&st, &side)[0].id.clone();
        act(&e, &mut st, json!({"action": "command", "leader": leader}));
        let other = st
            .units
            .values()
            .find(|u| u.side != side)
            .expect("an enemy unit")
            .id
            .clone();
        let a = read_action(&json!({"action": "advance", "actor": other})).expect("read");
        let r = e.plan(&st, &a).err().expect("refused");
        assert_eq!(r.code, "not-under-command");
        let it = localize(Lang::It, &r.message);
        assert!(it.contains(" non è al comando di "), "{it}");
        assert!(localize(Lang::En, &r.message).contains(" is not under "));
    }

    /// Fire offers only the units that may fire; another action, every unit (issue 17, item 6).
    #[test]
    fn fire_offers_only_units_that_may_fire() {
        let (e, st) = engine("el-gran-capitan", "cerignola-1503");
        let fs = forms(&e, &st, None);
        let actors = |action: &str| -> Vec<String> {
            let f = fs.iter().find(|f| f.action == action).expect(action);
            match &f.fields[0].kind {
                FieldKind::Choice { options, .. } => {
                    options.iter().map(|o| o.value.clone()).collect()
                }
                other => panic!("{other:?}"),
            }
        };
        let firers = actors("fire");
        let all = actors("advance");
        assert!(!firers.is_empty() && firers.len() < all.len(), "{firers:?}");
        for u in &all {
            let unit = &st.units[u.as_str()];
            let may = e
                .charts
                .troop(&unit.troop)
                .is_some_and(|t| t.can_fire(&unit.flags));
            assert_eq!(firers.contains(u), may, "{u}");
        }
        // The gendarmes charge but do not fire.
        assert!(all
            .iter()
            .any(|u| st.units[u.as_str()].troop == "gendarmes"));
        assert!(!firers
            .iter()
            .any(|u| st.units[u.as_str()].troop == "gendarmes"));
    }

    #[test]
    fn the_board_tells_the_turn_and_each_armys_units() {
        let (e, mut st) = engine("el-gran-capitan", "cerignola-1503");
        let b = board(&e, &st);
        assert_eq!(
            localize(Lang::En, &b.headline),
            "Turn 1: initiatives and activations"
        );
        assert_eq!(b.tables.len(), st.sides.len() + 1);
        let units: usize = b.tables[..st.sides.len()]
            .iter()
            .map(|t| t.rows.len())
            .sum();
        assert_eq!(units, st.units.len());
        let title = localize(Lang::It, &b.tables[0].title);
        assert!(title.contains("perse 0 su"), "{title}");
        assert_eq!(localize(Lang::En, &b.tables[0].rows[0][2]), "OK");
        act(&e, &mut st, json!({"action": "initiative"}));
        let side = st.initiative_side.clone().expect("side");
        let b = board(&e, &st);
        assert!(
            localize(Lang::En, &b.headline).contains("initiative:"),
            "{}",
            b.headline
        );
        assert!(localize(Lang::En, &b.notes[0]).contains("(Command)"));
        // The side holding the initiative has the command form, first; the other side none.
        let fs = forms(&e, &st, Some(&side));
        assert_eq!(fs[0].action, "command");
        assert!(fs[0].primary);
        let other = st
            .sides
            .iter()
            .find(|s| s.id != side)
            .expect("other")
            .id
            .clone();
        assert!(!actions(&forms(&e, &st, Some(&other))).contains(&"command"));
        assert_eq!(verdict(&st), None);
    }

    /// Issue 17, item 15, and issue 43 (what the game knows is not asked): a Swiss charge is
    /// ferocious at the end of the turn and only then, so no form asks it; the end of the
    /// turn's charge form says it itself. The actor field starts the form afresh.
    #[test]
    fn a_swiss_charge_is_ferocious_at_the_end_of_the_turn_and_no_form_asks_it() {
        let (e, mut st) = engine("el-gran-capitan", "cerignola-1503");
        for side in st.sides.iter().map(|s| Some(s.id.as_str())).chain([None]) {
            let fs = forms(&e, &st, side);
            let charge = fs.iter().find(|f| f.action == "charge").expect("charge");
            assert!(charge.fields[0].resets && charge.fields[0].name == "actor");
            assert!(charge.fields.iter().all(|f| f.name != "ferocious"));
            assert!(charge.fixed.get("ferocious").is_none(), "{side:?}");
        }
        act(&e, &mut st, json!({"action": "end-initiatives"}));
        let fs = forms(&e, &st, None);
        let charge = fs.iter().find(|f| f.action == "charge").expect("charge");
        assert!(charge.fields.iter().all(|f| f.name != "ferocious"));
        assert_eq!(charge.fixed.get("ferocious"), Some(&json!(true)));
        // A Bloody Dismal Fight has no Ferocious Charge at all.
        let (e, st) = engine("bloody-dismal-fight", "agincourt-1415");
        let fs = forms(&e, &st, None);
        let charge = fs.iter().find(|f| f.action == "charge").expect("charge");
        assert!(charge.fields.iter().all(|f| f.name != "ferocious"));
    }

    /// The supporting units on the forms (item 1 of "The last rules the seeds describe"): a
    /// side names its own units, on the table, acted or not; the game master names each side's
    /// for that side's actors alone, and the enemy's, and no unit of the wrong side is offered.
    #[test]
    fn the_forms_offer_each_side_its_own_supporting_units() {
        let (e, mut st) = engine("el-gran-capitan", "cerignola-1503");
        act(
            &e,
            &mut st,
            json!({"action": "remove", "unit": "gascon-skirmishers"}),
        );
        let options = |f: &FormField| match &f.kind {
            FieldKind::Choices { options } => {
                options.iter().map(|o| o.value.clone()).collect::<Vec<_>>()
            }
            other => panic!("{other:?}"),
        };
        let on_table = |side: &str| -> Vec<String> {
            st.units
                .values()
                .filter(|u| u.side == side && u.on_table(st.turn))
                .map(|u| u.id.clone())
                .collect()
        };
        for side in ["french", "spanish"] {
            let fs = forms(&e, &st, Some(side));
            for kind in ["charge", "melee", "retire", "regroup"] {
                let f = fs.iter().find(|f| f.action == kind).expect(kind);
                let sup: Vec<&FormField> = f
                    .fields
                    .iter()
                    .filter(|x| x.name.starts_with("supporting_"))
                    .collect();
                assert_eq!(sup.len(), 1, "{side} {kind}");
                assert_eq!(sup[0].name, "supporting_actor_units");
                assert!(sup[0].only_for.is_empty());
                assert_eq!(options(sup[0]), on_table(side), "{side} {kind}");
            }
        }
        // Neither the removed unit nor the late French guns are offered.
        let french = on_table("french");
        assert!(!french.contains(&"gascon-skirmishers".to_string()));
        assert!(!french.contains(&"french-guns".to_string()));
        let fs = forms(&e, &st, None);
        let charge = fs.iter().find(|f| f.action == "charge").expect("charge");
        let actor_side = |id: &str| st.units[id].side.clone();
        for name in ["supporting_actor_units", "supporting_target_units"] {
            let fields: Vec<&FormField> = charge.fields.iter().filter(|f| f.name == name).collect();
            assert_eq!(fields.len(), 2, "{name}: one per side");
            for f in fields {
                let side = actor_side(&f.only_for[0]);
                assert!(f.only_for.iter().all(|a| actor_side(a) == side));
                let want = if name == "supporting_actor_units" {
                    on_table(&side)
                } else {
                    on_table(if side == "french" {
                        "spanish"
                    } else {
                        "french"
                    })
                };
                assert_eq!(options(f), want, "{name} for {side}");
            }
        }
    }

    /// The activated Fire's second target (item 2 of "The last rules the seeds describe"): one
    /// tap away, for a firer of two bases or more, its bases and cover shown once it is chosen;
    /// a side is offered only enemies. The form as it starts sends none of it.
    #[test]
    fn the_fire_form_offers_a_second_target_to_a_unit_of_two_bases() {
        let (e, st) = engine("el-gran-capitan", "cerignola-1503");
        for side in ["french", "spanish"] {
            let fs = forms(&e, &st, Some(side));
            let fire = fs.iter().find(|f| f.action == "fire").expect("fire");
            let field = |name: &str| {
                fire.fields
                    .iter()
                    .find(|f| f.name == name)
                    .unwrap_or_else(|| panic!("{name}"))
            };
            let second = field("second_target");
            assert!(second.more);
            let FieldKind::Choice { options, optional } = &second.kind else {
                panic!("a choice");
            };
            assert!(*optional);
            assert!(options
                .iter()
                .all(|o| st.units[o.value.as_str()].side != side));
            let FieldKind::Choice {
                options: firers, ..
            } = &fire.fields[0].kind
            else {
                panic!("the actor is a choice");
            };
            for u in firers.iter().map(|o| o.value.clone()) {
                let unit = &st.units[u.as_str()];
                assert_eq!(
                    second.only_for.contains(&u),
                    unit.bases - unit.lost >= 2,
                    "{u}"
                );
            }
            for name in ["second_firing_bases", "second_ground"] {
                assert_eq!(field(name).only_with.as_deref(), Some("second_target"));
            }
            let sent = fire.default_action(Some("gascon-crossbowmen"));
            assert!(
                sent.get("second_firing_bases").is_none() && sent.get("second_target").is_none(),
                "{sent}"
            );
        }
    }

    #[test]
    fn a_side_gets_its_own_units_and_none_of_the_game_masters_fields() {
        let (e, st) = engine("el-gran-capitan", "cerignola-1503");
        let side = st.sides[0].id.clone();
        let fs = forms(&e, &st, Some(&side));
        assert!(!actions(&fs).contains(&"initiative"), "{:?}", actions(&fs));
        let charge = fs.iter().find(|f| f.action == "charge").expect("charge");
        let names: Vec<&str> = charge.fields.iter().map(|f| f.name.as_str()).collect();
        for reserved in e.reserved_to_game_master() {
            assert!(!names.contains(reserved), "{reserved} in {names:?}");
        }
        let FieldKind::Choice { options, .. } = &charge.fields[0].kind else {
            panic!("actor is a choice");
        };
        assert!(options
            .iter()
            .all(|o| st.units[o.value.as_str()].side == side));
        let gm = forms(&e, &st, None);
        assert_eq!(gm[0].action, "initiative");
        assert!(gm[0].primary);
        let charge = gm.iter().find(|f| f.action == "charge").expect("charge");
        assert!(charge.fields.iter().any(|f| f.name == "target_status"));
    }

    #[test]
    fn the_end_of_the_turn_has_a_field_per_shooter_and_per_camp_and_its_answer_reads() {
        let (e, mut st) = engine("bloody-dismal-fight", "agincourt-1415");
        act(&e, &mut st, json!({"action": "end-initiatives"}));
        let fs = forms(&e, &st, None);
        assert_eq!(fs[0].action, "end-fire");
        let fire = fs[0]
            .fields
            .iter()
            .find(|f| f.name.starts_with("fire."))
            .expect("a shooter");
        let unit = fire.name.trim_start_matches("fire.").to_string();
        let FieldKind::Choice { options, optional } = &fire.kind else {
            panic!("a choice");
        };
        assert!(*optional, "a unit may hold its fire");
        assert!(options
            .iter()
            .all(|o| st.units[o.value.as_str()].side != st.units[unit.as_str()].side));
        let a = read_action::<super::super::action::Action>(&json!({"action": "end-fire",
            fire.name.clone(): options[0].value, format!("ground.{unit}"): "open"}))
        .expect("read");
        assert!(e.plan(&st, &a).is_ok());
        let turn = fs
            .iter()
            .find(|f| f.action == "end-turn")
            .expect("end-turn");
        assert!(
            turn.fields.iter().any(|f| f.name.starts_with("sack.")),
            "agincourt has camps"
        );
        // Only the game master resolves the end of the turn.
        assert!(forms(&e, &st, Some(&st.sides[0].id))
            .iter()
            .all(|f| f.action != "end-fire" && f.action != "end-turn"));
    }

    /// Agincourt at the end of turn 1: the end-of-turn form, one shooter of 4 bases and two of
    /// its targets.
    fn end_of_turn_1() -> (
        AppEngine,
        GameState,
        &'static str,
        &'static str,
        &'static str,
    ) {
        let (e, mut st) = engine("bloody-dismal-fight", "agincourt-1415");
        act(&e, &mut st, json!({"action": "end-initiatives"}));
        let u = "english-archers-right-outer";
        assert_eq!(st.units[u].bases, 4);
        (
            e,
            st,
            u,
            "french-vanguard-constable",
            "french-vanguard-boucicaut",
        )
    }

    fn end_fire_form(e: &AppEngine, st: &GameState) -> ActionForm {
        forms(e, st, None)
            .into_iter()
            .find(|f| f.action == "end-fire")
            .expect("end-fire")
    }

    /// The action the page sends: the fields in `set` as given, every other as drawn (a choice
    /// its first option, an optional one left out, a number its value, a tick box left out), and
    /// a field shown only for some values of another left out when that one holds none of them.
    fn as_sent(form: &ActionForm, set: &[(&str, Value)]) -> Value {
        let mut a = json!({"action": form.action});
        for f in &form.fields {
            let given = set
                .iter()
                .find(|(n, _)| *n == f.name)
                .map(|(_, v)| v.clone());
            let drawn = match &f.kind {
                FieldKind::Choice { options, optional } if !optional => {
                    Some(json!(options[0].value))
                }
                FieldKind::Number { value, .. } => Some(json!(value)),
                _ => None,
            };
            if let Some(v) = given.or(drawn) {
                a[&f.name] = v;
            }
        }
        for f in &form.fields {
            let Some(with) = &f.only_with else { continue };
            let by = a.get(with).and_then(Value::as_str).map(str::to_string);
            if !by.is_some_and(|b| f.only_for.contains(&b)) {
                a.as_object_mut().expect("object").remove(&f.name);
            }
        }
        a
    }

    /// Every outcome of an action with its chance: resolution, effects and facets.
    fn outcomes(e: &AppEngine, st: &GameState, a: &Value) -> Vec<(String, f64)> {
        let a = read_action(a).expect("read");
        let plan = e.plan(st, &a).expect("plan");
        plan.exact(|o| format!("{:?}", (&o.resolution, &o.effects, &o.facets)))
            .outcomes
            .into_iter()
            .collect()
    }

    /// Issue 17, item 9: per shooter, its firing bases (the front rank, all its bases at first)
    /// once a target is chosen, and one tap away a second target with its own bases and cover.
    #[test]
    fn each_shooter_has_its_firing_bases_and_may_split_its_fire() {
        let (e, mut st, u, _, _) = end_of_turn_1();
        st.unit_mut(u).expect("unit").lost = 1;
        let one = "english-archers-right-inner";
        st.unit_mut(one).expect("unit").lost = 3;
        let form = end_fire_form(&e, &st);
        let field = |name: String| {
            form.fields
                .iter()
                .find(|f| f.name == name)
                .unwrap_or_else(|| panic!("{name}"))
        };
        let fire = field(format!("fire.{u}"));
        let FieldKind::Choice { options, .. } = &fire.kind else {
            panic!("a choice");
        };
        let targets: Vec<String> = options.iter().map(|o| o.value.clone()).collect();
        let bases = field(format!("bases.{u}"));
        assert_eq!(
            bases.kind,
            FieldKind::Number {
                min: 1,
                max: 3,
                value: 3
            },
            "1 to the bases it has left, all of them at first"
        );
        assert_eq!(
            (bases.only_with.clone(), &bases.only_for, bases.more),
            (Some(fire.name.clone()), &targets, true)
        );
        let split = field(format!("split.{u}"));
        assert_eq!(
            split.kind,
            FieldKind::Choice {
                options: options.clone(),
                optional: true
            }
        );
        assert!(split.more && split.only_with.is_none());
        let split_bases = field(format!("split-bases.{u}"));
        assert_eq!(
            split_bases.kind,
            FieldKind::Number {
                min: 1,
                max: 2,
                value: 1
            }
        );
        let split_ground = field(format!("split-ground.{u}"));
        for f in [split_bases, split_ground] {
            assert!(f.more, "{}", f.name);
            assert_eq!(
                (f.only_with.clone(), &f.only_for),
                (Some(split.name.clone()), &targets),
                "{}",
                f.name
            );
        }
        // A unit with one base left fires it at one target.
        assert_eq!(
            field(format!("bases.{one}")).kind,
            FieldKind::Number {
                min: 1,
                max: 1,
                value: 1
            }
        );
        assert!(form
            .fields
            .iter()
            .all(|f| !f.name.starts_with("split") || !f.name.ends_with(one)));
        // Every label is a message in both languages.
        for f in &form.fields {
            assert_ne!(
                localize(Lang::En, &f.label),
                localize(Lang::It, &f.label),
                "{}",
                f.name
            );
        }
    }

    /// Nothing touched but the target: the page sends the unit's bases (all of them) with the
    /// open ground, and the fire comes out exactly as the form's action did before it asked for
    /// bases (the target and the ground only). Nothing touched at all: no unit fires.
    #[test]
    fn the_forms_defaults_fire_as_the_end_fire_did_before() {
        let (e, st, u, x, _) = end_of_turn_1();
        let form = end_fire_form(&e, &st);
        let a = as_sent(&form, &[(&format!("fire.{u}"), json!(x))]);
        assert_eq!(a[format!("bases.{u}")], json!(4), "{a}");
        assert!(
            a.as_object()
                .expect("object")
                .keys()
                .all(|k| !k.starts_with("split") && (!k.starts_with("bases.") || k.ends_with(u))),
            "no split, and no bases for a unit that holds its fire: {a}"
        );
        let before =
            json!({"action": "end-fire", format!("fire.{u}"): x, format!("ground.{u}"): "open"});
        let now = outcomes(&e, &st, &a);
        assert!(now.len() > 1, "the fire rolls");
        assert_eq!(now, outcomes(&e, &st, &before));
        let untouched = as_sent(&form, &[]);
        assert!(
            untouched
                .as_object()
                .expect("object")
                .keys()
                .all(|k| !k.starts_with("bases.") && !k.starts_with("split")),
            "{untouched}"
        );
        assert_eq!(
            outcomes(&e, &st, &untouched),
            outcomes(&e, &st, &json!({"action": "end-fire"}))
        );
    }

    /// A split from the form is two fires with their bases and covers, and its odds come target
    /// by target: each target's are those of the fire at it alone.
    #[test]
    fn a_split_fire_reads_from_the_form_and_its_odds_come_target_by_target() {
        let (e, st, u, x, y) = end_of_turn_1();
        let form = end_fire_form(&e, &st);
        let a = as_sent(
            &form,
            &[
                (&format!("fire.{u}"), json!(x)),
                (&format!("bases.{u}"), json!(3)),
                (&format!("split.{u}"), json!(y)),
                (&format!("split-bases.{u}"), json!(1)),
                (&format!("split-ground.{u}"), json!("rough")),
            ],
        );
        let fire = |t: &str, bases: u8, ground: &str| json!({"action": "fire", "actor": u, "target": t, "firing_bases": bases, "ground": ground});
        let listed =
            json!({"action": "end-fire", "fires": [fire(x, 3, "open"), fire(y, 1, "rough")]});
        let action: super::super::action::Action = read_action(&a).expect("read");
        let request = |v: &Value| {
            read_action::<super::super::action::Action>(v)
                .expect("read")
                .request()
        };
        assert_eq!(action.request(), request(&listed), "{a}");
        assert!(e.plan(&st, &action).is_ok());
        let parts = e.odds_parts(&st, &action);
        assert_eq!(parts.len(), 2, "one per target");
        let facets = |a: &super::super::action::Action| {
            e.plan(&st, a)
                .expect("plan")
                .exact(|o| o.facets.clone())
                .outcomes
        };
        let of_parts: Vec<_> = parts.iter().map(facets).collect();
        let alone = |f: Value| {
            facets(&read_action(&json!({"action": "end-fire", "fires": [f]})).expect("read"))
        };
        for f in [fire(x, 3, "open"), fire(y, 1, "rough")] {
            assert!(of_parts.contains(&alone(f.clone())), "{f}: {of_parts:?}");
        }
        // The bases reach the odds: three bases at the first target are not four.
        assert!(!of_parts.contains(&alone(fire(x, 4, "open"))));
    }

    /// A split that does not add up is refused at the form's field that is wrong, in both
    /// languages; the API's list keeps naming `fires[i]`.
    #[test]
    fn a_split_that_does_not_add_up_is_refused_at_the_forms_field() {
        let (e, st, u, x, y) = end_of_turn_1();
        let f = |name: &str| format!("{name}.{u}");
        let cases: Vec<(Value, &str, String)> = vec![
            (
                json!({f("fire"): x, f("split"): y, f("split-bases"): 1}),
                "bad-firing-bases",
                f("split-bases"),
            ),
            (
                json!({f("fire"): x, f("bases"): 3, f("split"): y, f("split-bases"): 2}),
                "bad-firing-bases",
                f("split-bases"),
            ),
            (
                json!({f("fire"): x, f("bases"): 5}),
                "bad-firing-bases",
                f("bases"),
            ),
            (
                json!({f("fire"): x, f("bases"): 0}),
                "bad-firing-bases",
                f("bases"),
            ),
            (
                json!({f("fire"): x, f("bases"): 2, f("split"): x, f("split-bases"): 2}),
                "duplicate-fire",
                f("split"),
            ),
            (
                json!({f("fire"): x, f("bases"): 2, f("split-bases"): 2}),
                "field-not-used",
                f("split-bases"),
            ),
            (
                json!({f("fire"): x, f("split-ground"): "rough"}),
                "field-not-used",
                f("split-ground"),
            ),
            (
                json!({f("fire"): x, f("bases"): 2, f("split"): y}),
                "missing-field",
                f("split-bases"),
            ),
            (json!({f("bases"): 2}), "field-not-used", f("bases")),
            (
                json!({f("split"): y, f("split-bases"): 1}),
                "field-not-used",
                f("split"),
            ),
            (
                json!({f("fire"): x, f("bases"): 2, f("split"): "nobody", f("split-bases"): 1}),
                "unknown-unit",
                f("split"),
            ),
        ];
        for (fields, code, field) in cases {
            let mut a = fields.clone();
            a["action"] = json!("end-fire");
            let r = e
                .plan(&st, &read_action(&a).expect("read"))
                .err()
                .unwrap_or_else(|| panic!("{a} is refused"));
            assert_eq!(
                (r.code.as_str(), r.field.as_deref()),
                (code, Some(field.as_str())),
                "{a}: {r:?}"
            );
            if code == "unknown-unit" {
                continue; // (its text is not a message yet)
            }
            let (en, it) = (
                localize(Lang::En, &r.message),
                localize(Lang::It, &r.message),
            );
            assert!(
                en != it && !en.contains('\u{27e6}') && !it.contains('\u{27e6}'),
                "{en} / {it}"
            );
        }
        let fire = |t: &str, bases: u8| json!({"action": "fire", "actor": u, "target": t, "firing_bases": bases});
        let listed = json!({"action": "end-fire", "fires": [fire(x, 3), fire(y, 2)]});
        let r = e
            .plan(&st, &read_action(&listed).expect("read"))
            .err()
            .expect("refused");
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("bad-firing-bases", Some("fires[1].firing_bases"))
        );
        assert!(
            localize(Lang::En, &r.message).contains("3 of them already fire"),
            "{}",
            localize(Lang::En, &r.message)
        );
    }

    #[test]
    fn a_broken_army_gives_the_verdict_and_no_forms() {
        let (e, mut st) = engine("el-gran-capitan", "cerignola-1503");
        st.phase = Phase::Over;
        st.broken = vec![st.sides[1].id.clone()];
        let v = verdict(&st).expect("verdict");
        let text = localize(Lang::En, &v);
        assert!(
            // The side's name as an English reader reads it (the scenario gives it in both).
            text.contains(&format!("{} wins", localize(Lang::En, &st.sides[0].name))),
            "{text}"
        );
        assert_eq!(board(&e, &st).headline, v);
        assert!(forms(&e, &st, None).is_empty());
        st.broken.push(st.sides[0].id.clone());
        assert!(localize(Lang::En, &verdict(&st).expect("draw")).contains("draw"));
    }
}
