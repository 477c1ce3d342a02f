//! The Sword and the Flame, Renaissance adaptation, bound to the [`RuleSet`] and [`Rules`]
//! traits: scenarios, the game's actions, and the board and forms the app draws.

use serde_json::{json, Value};
use tercio_core::Plan;

use super::game::{self, Action, Phase, State, Status, UnitState};
use super::resolve::{self, Thresholds};
use super::tables::{self, Kind, Order, Test};
use super::{facet, k, msg};
use crate::interface::scenario::Scenario;
use crate::interface::{
    ActionForm, Board, BoardTable, Choice, Engine, FormField, HouseRule, Outcome, Rejection,
    RuleSet, Rules, SideScore, Typed,
};

pub struct SwordAndFlame;

pub static RULESET: SwordAndFlame = SwordAndFlame;

/// A house rule's value for this scenario (its own or the default of section 11).
pub fn house(sc: &Scenario, key: &str) -> i64 {
    crate::interface::house::value(tables::HOUSE_RULES, &sc.house_rules, key)
}

fn thresholds(sc: Option<&Scenario>) -> Thresholds {
    let mut th = Thresholds::default();
    if let Some(sc) = sc {
        // Within 2..=13 (`house`), so the conversion never falls back.
        let get = |t: Test| i32::try_from(house(sc, t.house_rule_key())).unwrap_or_default();
        th.to_close = get(Test::ToClose);
        th.to_stand = get(Test::ToStand);
        th.stand_and_fight = get(Test::StandAndFight);
    }
    th
}

impl RuleSet for SwordAndFlame {
    fn id(&self) -> &'static str {
        "sword-and-flame-renaissance"
    }
    fn alias(&self) -> &'static str {
        "tsatf"
    }
    fn name(&self) -> &'static str {
        "The Sword and the Flame, Renaissance adaptation"
    }
    fn seed(&self) -> &'static str {
        "001_165c2c49ebcfd77c.txt"
    }
    /// Section 12: version 2 counts only fire losses for fire morale, moves a permitted heavy
    /// gun as itself, refuses a range for one-band weapons and lets skirmishers and guns be
    /// charged. Version 3: every text of a result is a language-neutral message (outcomes
    /// unchanged). Version 4: a unit that fired this turn may not evade (decision 68), and a
    /// fire's effects mark the firer.
    fn rules_version(&self) -> u32 {
        4
    }
    fn balance(&self) -> Option<Box<dyn crate::interface::balance::Balance>> {
        Some(Box::new(
            crate::sword_and_flame_renaissance::balance::balance(),
        ))
    }
    fn simulator(&self) -> Option<Box<dyn crate::interface::simulate::Simulator>> {
        Some(Box::new(crate::interface::form_play::FormSimulator {
            rules: &RULESET,
            muster: crate::sword_and_flame_renaissance::play::SafMuster,
        }))
    }
    fn available(&self) -> bool {
        true
    }
    fn troop_types(&self) -> Vec<&'static str> {
        tables::TROOPS.iter().map(|t| t.id).collect()
    }
    fn allowed_flags(&self, troop: &str) -> Vec<&'static str> {
        let Some(t) = tables::troop(troop) else {
            return Vec::new();
        };
        let mut flags: Vec<&'static str> = Vec::new();
        // Orders other than the type's own (001, TROOP TYPES; ORDER).
        let (_, allowed) = resolve::orders(t);
        for o in allowed {
            flags.push(match o {
                Order::Closed => "closed",
                Order::Open => "open",
                Order::Skirmish => "skirmish",
            });
        }
        if t.id == "pikemen" {
            flags.extend(["swiss", "spanish"]);
            flags.extend(game::SUB_UNIT_FLAGS.iter().map(|(f, _)| *f));
        }
        if !matches!(t.kind, Kind::Gun | Kind::Train) && t.id != "riflemen" {
            flags.push("brigade");
        }
        if t.id == "heavy-gun" {
            flags.push("may-move");
        }
        flags
    }
    fn unit_size(&self) -> (&'static str, i64, i64) {
        // Figures: a unit of 20 foot or 12 horse, a sub-unit of 5, a gun's crew, a rifleman;
        // up to 40 for a pike formation with its sub-units (five each are added by the flags).
        ("figures", 1, 40)
    }
    fn house_rules(&self) -> Vec<HouseRule> {
        tables::HOUSE_RULES.to_vec()
    }
    fn reference(&self) -> Value {
        let th = Thresholds::default();
        json!({
            "ruleset": self.id(),
            "seed": self.seed(),
            "design": "docs/rules/sword-and-flame-renaissance.md",
            "charts": {
                "troops": tables::TROOPS.iter().map(|t| {
                    let (own, orders) = resolve::orders(t);
                    json!({
                        "id": t.id, "name": k(&format!("troop.{}", t.id)), "kind": t.kind,
                        "weapon": t.weapon,
                        "figures": t.figures, "company": t.company,
                        "shoot_ranks": t.shoot_ranks, "fight_ranks": t.fight_ranks,
                        "order": own, "orders": orders,
                        "movement_dice": tables::movement_dice(t, own),
                        "source": t.source,
                    })
                }).collect::<Vec<_>>(),
                "fire": tables::FIRE_TABLE.iter().map(|l| json!({
                    "weapon": l.weapon, "range": l.range, "inches": l.inches,
                    "hits_class_i_to_iv": l.hits, "source": l.source,
                })).collect::<Vec<_>>(),
                "morale": {
                    "dice": k("ref.morale-dice"),
                    "to_close": th.to_close,
                    "to_stand": th.to_stand,
                    "stand_and_fight": th.stand_and_fight,
                },
                "spirit": k("ref.spirit"),
            },
            "house_rules": tables::HOUSE_RULES,
        })
    }
    fn reference_tables(&self) -> Vec<BoardTable> {
        reference_tables()
    }
    fn engine(&self, scenario: Option<&Scenario>) -> Result<Box<dyn Engine>, String> {
        Ok(Box::new(Typed(TsatfEngine {
            th: thresholds(scenario),
            scenario: scenario.cloned(),
        })))
    }
}

/// A weapon's name, as a table cell (a message).
fn weapon_name(w: tables::Weapon) -> String {
    let term = resolve::weapon_name(w);
    tercio_i18n::msg(term.trim_start_matches('@'), &[])
}

/// An order's name, as a table cell (a message).
fn order_cell(o: Order) -> String {
    resolve::order_name(o)
}

/// The charts at the table: troops, the fire table, the morale table with its pass odds.
fn reference_tables() -> Vec<BoardTable> {
    let th = Thresholds::default();
    let troops = tables::TROOPS
        .iter()
        .map(|t| {
            let (own, orders) = resolve::orders(t);
            let losses = tables::terrain_losses(t, own);
            vec![
                k(&format!("troop.{}", t.id)),
                match t.figures.checked_div(t.company) {
                    Some(1) => msg("ref.one-company", &[("figures", t.figures.to_string())]),
                    Some(n) => msg(
                        "ref.companies",
                        &[
                            ("figures", t.figures.to_string()),
                            ("count", n.to_string()),
                            ("company", t.company.to_string()),
                        ],
                    ),
                    None => t.figures.to_string(),
                },
                if matches!(t.kind, Kind::Gun | Kind::Train) {
                    "—".into()
                } else {
                    orders
                        .iter()
                        .map(|&o| order_cell(o))
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                match tables::movement_dice(t, own) {
                    0 => k("ref.no-move"),
                    n => orders
                        .iter()
                        .map(|&o| tables::movement_dice(t, o))
                        .filter(|&m| m != n)
                        .fold(format!("{n}D6"), |acc, m| {
                            format!(
                                "{acc} ({m}D6 {})",
                                order_cell(if m > n { Order::Open } else { Order::Closed })
                            )
                        }),
                },
                msg(
                    "ref.dice-lost",
                    &[
                        ("uphill", losses[0].to_string()),
                        ("downhill", losses[1].to_string()),
                        ("obstacle", losses[2].to_string()),
                        ("woods", losses[3].to_string()),
                    ],
                ),
                t.weapon.map_or("—".into(), weapon_name),
                t.source.to_string(),
            ]
        })
        .collect();
    let fire = tables::FIRE_TABLE
        .iter()
        .map(|l| {
            let mut r = vec![weapon_name(l.weapon), {
                let inches = ("inches", l.inches.to_string());
                if matches!(l.weapon, tables::Weapon::Pistol | tables::Weapon::Crossbow) {
                    msg("ref.one-band", &[inches])
                } else if l.range == tables::Range::Short {
                    msg("fire.band-short", &[inches])
                } else {
                    msg("fire.band-long", &[inches])
                }
            }];
            r.extend(l.hits.iter().map(|&h| match h {
                1 => "1".to_string(),
                h => format!("1-{h}"),
            }));
            r.push(l.source.to_string());
            r
        })
        .collect();
    // 2D6 at or above each threshold, for every modifier total from -4 to +2.
    let pass = |need: i32, m: i32| -> String {
        let n = (1..=6)
            .flat_map(|a| (1..=6).map(move |b| a + b))
            .filter(|s| s + m >= need)
            .count();
        msg("pct", &[("p", tercio_i18n::pct(n as f64 / 36.0, 1))])
    };
    let mods = [-4, -3, -2, -1, 0, 1, 2];
    let morale = [Test::ToClose, Test::ToStand, Test::StandAndFight]
        .iter()
        .map(|&t| {
            let need = match t {
                Test::ToClose => th.to_close,
                Test::ToStand => th.to_stand,
                Test::StandAndFight => th.stand_and_fight,
            };
            let mut r = vec![
                k(t.term().trim_start_matches("@sword_and_flame.")),
                msg("ref.roll", &[("need", need.to_string())]),
            ];
            r.extend(mods.iter().map(|&m| pass(need, m)));
            r
        })
        .collect();
    vec![
        table(
            "troops",
            &[
                k("ref.col.type"),
                k("ref.col.figures"),
                k("ref.col.orders"),
                k("ref.col.movement"),
                k("ref.col.dice-lost"),
                k("ref.col.weapon"),
                k("ref.col.source"),
            ],
            troops,
        ),
        table(
            "fire",
            &[
                k("ref.col.weapon"),
                k("ref.col.range"),
                msg("ref.col.class", &[("class", "I".into())]),
                msg("ref.col.class", &[("class", "II".into())]),
                msg("ref.col.class", &[("class", "III".into())]),
                msg("ref.col.class", &[("class", "IV".into())]),
                k("ref.col.source"),
            ],
            fire,
        ),
        table(
            "morale",
            &[
                k("ref.col.test"),
                k("ref.col.roll"),
                "−4".into(),
                "−3".into(),
                "−2".into(),
                "−1".into(),
                "0".into(),
                "+1".into(),
                "+2".into(),
            ],
            morale,
        ),
    ]
}

/// A reference table: its title `sword_and_flame.ref.<id>`, its columns (messages) and rows.
fn table(id: &str, cols: &[String], rows: Vec<Vec<String>>) -> BoardTable {
    let refs: Vec<&str> = cols.iter().map(String::as_str).collect();
    BoardTable::new(&k(&format!("ref.{id}")), &refs, rows)
}

pub struct TsatfEngine {
    th: Thresholds,
    scenario: Option<Scenario>,
}

impl Rules for TsatfEngine {
    /// A charge is decided by whether it goes in, then what the target does and who wins the
    /// melee; a fire by its target's morale at the end of the step (its hits expected on each;
    /// when no test can follow, by its hits); a test by whether it is passed.
    const HEADLINE_FACETS: &'static [&'static str] = &[
        "sword_and_flame.facet.charge-goes-in",
        "sword_and_flame.facet.evasion",
        "sword_and_flame.facet.target",
        "sword_and_flame.facet.winner",
        "sword_and_flame.facet.loser",
        "sword_and_flame.facet.passed",
        "sword_and_flame.facet.target-morale",
    ];
    const LOSS_FACETS: &'static [&'static str] = &[
        "sword_and_flame.facet.hits",
        "sword_and_flame.facet.figures-lost",
        "sword_and_flame.facet.side-figures-lost",
        "sword_and_flame.facet.figures-removed",
        "sword_and_flame.facet.officers-hit",
    ];
    const ACTION_TITLES: Option<&'static str> = Some("sword_and_flame.action.");
    /// `phase` is `over` exactly when the battle is.
    const OVER_AT_PHASE: bool = true;
    type State = State;
    type Action = Action;
    type Effect = Vec<game::Effect>;
    type Request = resolve::Request;

    fn initial_state(&self) -> Result<State, String> {
        let sc = self.scenario.as_ref().ok_or("no scenario")?;
        game::initial(sc)
    }

    /// An action touches a few units; the others are passed over whole.
    fn same_parts<'s>(&self, before: &State, after: &'s State) -> crate::Same<'s> {
        crate::Same::default().entries("units", &before.units, &after.units)
    }

    fn plan(&self, st: &State, a: &Action) -> Result<Plan<game::Out>, Rejection> {
        game::plan(st, self.th, a)
    }

    fn standalone(&self, request: &resolve::Request) -> Result<Plan<game::Out>, Rejection> {
        Ok(resolve::plan(request, &self.th)?.map(|o| Outcome {
            resolution: o.resolution,
            effects: Vec::new(),
            facets: o.facets,
        }))
    }

    /// The odds of a unit's action before its card or step comes: the action's own rules, on the
    /// state as if its step had come and its side held the card.
    fn preview(&self, st: &State, a: &Action) -> Result<Plan<game::Out>, Rejection> {
        let (phase, unit) = match a {
            Action::Move { unit, .. } => (Phase::Movement, unit),
            Action::Fire { unit, .. } => (Phase::Fire, unit),
            Action::Charge { charger, .. } => (Phase::Melee, charger),
            _ => return game::plan(st, self.th, a),
        };
        if st.phase == Phase::Over {
            return game::plan(st, self.th, a);
        }
        let mut st = st.clone();
        if let Some(u) = st.units.get(unit) {
            st.current = Some(u.side.clone());
            st.acted.remove(unit);
        }
        // A move of several units: as if its card allowed them all (decision 67).
        let named = game::named_units(a);
        if named.len() > 1 {
            for (_, id) in &named {
                st.acted.remove(id);
            }
            st.moves_left = st.moves_left.max(named.len() as u8);
        }
        st.phase = phase;
        st.fire_morale_done = true;
        let plan = game::plan(&st, self.th, a)?;
        let Action::Fire { target, .. } = a else {
            return Ok(plan);
        };
        // A fire, then its target's morale: the test it takes at the end of the fire step,
        // were nothing else to hit it, from the state the fire leaves (issue 43, item 3;
        // decision 69). The odds only: the fire's own plan is what pressing rolls.
        let (th, target) = (self.th, target.clone());
        Ok(plan.and_then(move |out| {
            let mut after = st.clone();
            for e in &out.effects {
                game::apply(&mut after, e);
            }
            game::morale_after_fire(&after, th, &target).map(move |v| {
                let mut o = out.clone();
                o.facets
                    .push((facet("target-morale"), k(&format!("value.{v}"))));
                o
            })
        }))
    }

    /// A move of several units, unit by unit: each unit's move is its own throw, so the odds of
    /// the whole are the product of the parts', and four cavalry moves together would be too
    /// many outcomes to enumerate (decision 67). Each part is named by its unit, as the whole's
    /// facets are.
    fn odds_parts(&self, _st: &State, a: &Action) -> Vec<Action> {
        let named = game::named_units(a);
        let Action::Move {
            uphill,
            downhill,
            obstacle,
            woods,
            dismount,
            order,
            ..
        } = a
        else {
            return Vec::new();
        };
        if named.len() < 2 {
            return Vec::new();
        }
        named
            .into_iter()
            .enumerate()
            .map(|(i, (_, unit))| Action::Move {
                unit,
                uphill: *uphill,
                downhill: *downhill,
                obstacle: *obstacle,
                woods: *woods,
                dismount: *dismount && i == 0,
                order: order.filter(|_| i == 0),
                unit_2: None,
                unit_3: None,
                unit_4: None,
                by_unit: true,
            })
            .collect()
    }

    fn apply(&self, st: &mut State, effects: &Vec<game::Effect>) -> Result<(), String> {
        for e in effects {
            game::apply(st, e);
        }
        Ok(())
    }

    fn is_over(&self, st: &State) -> bool {
        st.phase == Phase::Over
    }

    fn acting_side(&self, st: &State, a: &Action) -> Option<String> {
        let unit_side = |id: &str| st.units.get(id).map(|u| u.side.clone());
        match a {
            Action::Move { unit, .. } | Action::Fire { unit, .. } | Action::Pass { unit } => {
                unit_side(unit)
            }
            Action::Charge { charger, .. } => unit_side(charger),
            Action::Attach { officer, .. } | Action::OfficerMove { officer, .. } => {
                st.officers.get(officer).map(|o| o.side.clone())
            }
            _ => None,
        }
    }

    fn reserved_to_game_master(&self) -> &'static [&'static str] {
        // The target's choices and what the table shows of it: whether it evades and its room,
        // the figures still touched, a square, cover (the target class), an officer in the cone.
        &[
            "target_evades",
            "evade_room",
            "touched",
            "square",
            "target_class",
            "officer",
        ]
    }

    /// `officer` is the game master's in a fire (an officer in the cone), but names the side's
    /// own officer when he attaches or moves: a side's link could not attach or move its
    /// officers (found by the rules fuzzer, `crate::fuzz`).
    fn reserved_in(&self, action: &Value) -> Vec<&'static str> {
        let own = matches!(action["action"].as_str(), Some("attach" | "officer-move"));
        self.reserved_to_game_master()
            .iter()
            .copied()
            .filter(|f| !(own && *f == "officer"))
            .collect()
    }

    /// The battle report's chart in figures, the rule set's unit of size (decision 66): the
    /// figures each army has lost (killed, wounded, and those of units that left the field)
    /// against all it brought, which is the point at which it has nothing left on the table and
    /// the battle ends. The text has no fixed break point; the spirit of the army decides by the
    /// dice.
    fn scores(&self, st: &State) -> Vec<SideScore> {
        st.sides
            .iter()
            .map(|s| {
                let (lost, start) = st.units.values().filter(|u| u.side == s.id).fold(
                    (0u32, 0u32),
                    |(lost, start), u| {
                        let left = if u.on_table() { u.figures } else { 0 };
                        (
                            lost + u32::from(u.figures_start.saturating_sub(left)),
                            start + u32::from(u.figures_start),
                        )
                    },
                );
                SideScore {
                    side: s.id.clone(),
                    lost,
                    threshold: start,
                }
            })
            .collect()
    }

    fn board(&self, st: &State) -> Option<Board> {
        Some(board(st))
    }

    fn forms(&self, st: &State, side: Option<&str>) -> Vec<ActionForm> {
        forms(st, side)
    }
}

fn side_name(st: &State, id: &str) -> String {
    st.sides
        .iter()
        .find(|s| s.id == id)
        .map_or(id.to_string(), |s| s.name.clone())
}

/// A troop type's name as players read it (the glossary of the design document, section 13;
/// an unknown id as it is).
fn troop_name(id: &str) -> String {
    match tables::troop(id) {
        Some(troop) => t(&format!("troop.{}", troop.id)),
        None => id.to_string(),
    }
}

/// Fresh, worn or spent (design 7.3).
fn condition(u: &UnitState) -> String {
    let gun = tables::troop(&u.troop).is_some_and(|t| t.kind == Kind::Gun);
    t(if u.figures == u.figures_start {
        "board.fresh"
    } else if gun || !u.spent() {
        "board.worn"
    } else {
        "board.spent"
    })
}

/// A board text with its values, from the catalogue (`sword_and_flame.<key>`).
fn tw(key: &str, args: &[(&str, &str)]) -> String {
    tercio_i18n::msg(&format!("sword_and_flame.{key}"), args)
}

/// The step of the turn as the headline names it.
fn step_title(p: Phase) -> String {
    t(match p {
        Phase::Start => "step.start",
        Phase::Movement => "step.movement",
        Phase::Fire => "step.fire",
        Phase::Melee => "step.melee",
        Phase::Over => "step.over",
    })
}

/// The game at a glance: the turn and step, whose card it is, the deck, and each side's units.
pub fn board(st: &State) -> Board {
    let mut headline = tw(
        "board.headline",
        &[
            ("turn", &st.turn.to_string()),
            ("step", &step_title(st.phase)),
        ],
    );
    if st.phase == Phase::Over {
        let standing: Vec<String> = st
            .sides
            .iter()
            .filter(|s| !st.broken.contains(&s.id))
            .map(|s| s.name.clone())
            .collect();
        headline = if standing.is_empty() {
            t("board.over-draw")
        } else {
            let broken: Vec<String> = st.broken.iter().map(|b| side_name(st, b)).collect();
            tw(
                "board.over-wins",
                &[
                    ("winner", &standing.join(", ")),
                    ("broken", &broken.join(", ")),
                ],
            )
        };
    } else if let Some(side) = game::to_act(st).as_ref() {
        headline.push_str(&tw(
            if st.moves_left > 1 {
                "board.names.other"
            } else {
                "board.names.one"
            },
            &[
                ("side", &side_name(st, side)),
                ("count", &st.moves_left.to_string()),
            ],
        ));
    }
    let mut notes = Vec::new();
    match st.phase {
        Phase::Start => notes.push(t("board.note.start")),
        Phase::Movement | Phase::Fire if game::step_done(st) => {
            notes.push(t("board.note.step-done"))
        }
        Phase::Movement | Phase::Fire if st.current.is_none() && game::to_act(st).is_some() => {
            let side = game::to_act(st).unwrap_or_default();
            notes.push(tw("board.note.no-card", &[("side", &side_name(st, &side))]));
        }
        Phase::Movement | Phase::Fire if st.current.is_none() => notes.push(tw(
            "board.note.draw",
            &[
                (
                    "red",
                    st.sides
                        .iter()
                        .find(|s| s.red)
                        .map_or("", |s| s.name.as_str()),
                ),
                (
                    "black",
                    st.sides
                        .iter()
                        .find(|s| !s.red)
                        .map_or("", |s| s.name.as_str()),
                ),
                ("red_left", &st.deck.red.to_string()),
                ("black_left", &st.deck.black.to_string()),
            ],
        )),
        Phase::Movement | Phase::Fire => {}
        Phase::Melee if !st.fire_morale_done => notes.push(t("board.note.fire-morale")),
        Phase::Melee => notes.push(t("board.note.melee")),
        Phase::Over => {}
    }
    if st.light_rain {
        notes.push(t("hint.weather"));
    }
    for (side, w) in &st.wounded {
        notes.push(tw(
            "board.note.wounded",
            &[
                ("side", &side_name(st, side)),
                ("marching", &w.marching.to_string()),
                ("saved", &w.saved.to_string()),
                ("captured", &w.captured.to_string()),
                ("ransom", &(w.captured * 10).to_string()),
            ],
        ));
    }
    let mut tables = Vec::new();
    for s in &st.sides {
        let rows = game::roster(st)
            .filter(|u| u.side == s.id)
            .map(|u| {
                let mut marks = Vec::new();
                if u.reload > 0 {
                    marks.push(tw("board.mark.reload", &[("count", &u.reload.to_string())]));
                }
                if u.pistols_empty {
                    marks.push(t("board.mark.pistols-empty"));
                }
                if u.moved {
                    marks.push(t("board.mark.moved"));
                }
                if st.acted.contains(&u.id) {
                    marks.push(t("board.mark.acted"));
                }
                if u.field_officer {
                    marks.push(t("board.mark.officer"));
                }
                if u.dismounted {
                    marks.push(t("board.mark.dismounted"));
                }
                if u.wounded > 0 {
                    marks.push(tw(
                        "board.mark.wounded",
                        &[("count", &u.wounded.to_string())],
                    ));
                }
                if u.lance_used {
                    marks.push(t("board.mark.lances"));
                }
                if let Some(col) = u.brigade.as_ref().and_then(|c| st.officers.get(c)) {
                    marks.push(tw("board.mark.brigade", &[("officer", &col.name)]));
                }
                let mut troop = troop_name(&u.troop);
                for sub in &u.sub_units {
                    troop.push_str(&format!(" + {}", troop_name(sub)));
                }
                // A unit is named, never shown by its id: its name titles its row.
                vec![
                    u.name.clone(),
                    troop,
                    if tables::troop(&u.troop)
                        .is_some_and(|t| matches!(t.kind, Kind::Gun | Kind::Train))
                    {
                        "—".into()
                    } else {
                        t(&format!(
                            "choice.{}",
                            format!("{:?}", u.order).to_lowercase()
                        ))
                    },
                    format!("{}/{}", u.figures, u.figures_start),
                    u.leaders.to_string(),
                    t(match u.status {
                        Status::Steady => "board.steady",
                        Status::Shaken => "board.shaken",
                        Status::Routed => "board.routed",
                        Status::Gone => "board.gone",
                    }),
                    if u.on_table() {
                        condition(u)
                    } else {
                        "—".into()
                    },
                    marks.join(", "),
                ]
            })
            .collect();
        tables.push(BoardTable {
            title: tw(
                if s.red {
                    "board.side-red"
                } else {
                    "board.side-black"
                },
                &[("side", &s.name)],
            ),
            columns: [
                "unit", "type", "order", "figures", "leaders", "status", "state", "markers",
            ]
            .map(|c| t(&format!("board.col.{c}")))
            .to_vec(),
            rows,
            reveal: None,
        });
    }
    if !st.officers.is_empty() {
        tables.push(BoardTable {
            reveal: None,
            title: t("board.officers"),
            columns: ["officer", "side", "rank", "with", "status"]
                .map(|c| t(&format!("board.col.{c}")))
                .to_vec(),
            rows: st
                .officers
                .values()
                .map(|o| {
                    vec![
                        o.name.clone(),
                        side_name(st, &o.side),
                        t(&format!("rank.{}", format!("{:?}", o.rank).to_lowercase())),
                        o.attached
                            .as_ref()
                            .and_then(|u| st.units.get(u))
                            .map_or_else(|| t("board.alone"), |u| u.name.clone()),
                        if o.down {
                            t("board.down")
                        } else if o.moved {
                            t("board.mark.moved")
                        } else {
                            String::new()
                        },
                    ]
                })
                .collect(),
        });
    }
    Board {
        headline,
        notes,
        tables,
    }
}

fn unit_choices<'a>(units: impl Iterator<Item = &'a UnitState>) -> Vec<Choice> {
    units
        .map(|u| {
            Choice::new(
                u.id.clone(),
                tw(
                    "choice.unit",
                    &[
                        ("unit", &u.name),
                        ("troop", &troop_name(&u.troop)),
                        ("figures", &u.figures.to_string()),
                    ],
                ),
            )
        })
        .collect()
}

fn primary(f: ActionForm) -> ActionForm {
    f.primary()
}

/// An action's name, as its form and its results' titles show it (the catalogue's
/// `sword_and_flame.action.*`, [`crate::interface::typed::Rules::ACTION_TITLES`]).
fn title(action: &str) -> String {
    tercio_i18n::msg(&format!("sword_and_flame.action.{action}"), &[])
}

/// A text of the forms, from the catalogue (`sword_and_flame.<key>`), in the reader's language.
fn t(key: &str) -> String {
    tercio_i18n::msg(&format!("sword_and_flame.{key}"), &[])
}

/// What can be done now: the game master's turn steps and every side's actions, or one side's
/// own actions (`side`).
pub fn forms(st: &State, side: Option<&str>) -> Vec<ActionForm> {
    let gm = side.is_none();
    let mine = |s: &str| side.is_none_or(|x| x == s);
    let mut out = Vec::new();
    if st.phase == Phase::Over {
        return out;
    }
    let on_table = |u: &&UnitState| u.on_table();
    match st.phase {
        Phase::Start if gm => out.push(primary(ActionForm::new(
            "start-turn",
            &title("start-turn"),
            &t("hint.start-turn"),
            Vec::new(),
            true,
        ))),
        Phase::Movement | Phase::Fire => match game::to_act(st).as_ref() {
            // Every unit has had its chance: the same action ends the step.
            None if gm && game::step_done(st) => {
                let next = if st.phase == Phase::Movement {
                    "to-fire"
                } else {
                    "to-melee"
                };
                out.push(primary(
                    ActionForm::new(
                        "draw",
                        &t(&format!("form.{next}")),
                        &t("hint.step-done"),
                        Vec::new(),
                        false,
                    )
                    .quiet(),
                ))
            }
            // Drawn some thirty times a turn: its result is a line, not a box to dismiss (issue
            // 17, item 5); asked for only while a card decides between the sides.
            None if gm => out.push(primary(
                ActionForm::new("draw", &title("draw"), &t("hint.draw"), Vec::new(), true).quiet(),
            )),
            Some(cur) if mine(cur) => {
                let waiting: Vec<&UnitState> = st
                    .units
                    .values()
                    .filter(on_table)
                    .filter(|u| &u.side == cur && !st.acted.contains(&u.id))
                    .filter(|u| st.phase != Phase::Fire || game::can_fire(u))
                    .collect();
                // Only the units that may move are offered to Move (a heavy gun without the
                // scenario's permission may not: it lets its chance pass; issue 17, item 6).
                let movers: Vec<&UnitState> = waiting
                    .iter()
                    .copied()
                    .filter(|u| game::can_move(u))
                    .collect();
                if st.phase == Phase::Movement && !movers.is_empty() {
                    let mut fields = vec![FormField::choice(
                        "unit",
                        &t("field.unit"),
                        unit_choices(movers.iter().copied()),
                        false,
                    )
                    .resets()];
                    // A Quicker Movement card allowing several units: the others on the same
                    // form, as many as the card still allows (decision 67).
                    let several = usize::from(st.moves_left).min(movers.len()).min(4);
                    for n in 2..=several {
                        fields.push(FormField::choice(
                            &format!("unit_{n}"),
                            &tw(
                                "field.unit-more",
                                &[("n", &n.to_string()), ("count", &several.to_string())],
                            ),
                            unit_choices(movers.iter().copied()),
                            true,
                        ));
                    }
                    fields.extend([
                        FormField::flag("uphill", &t("field.uphill")),
                        FormField::flag("downhill", &t("field.downhill")),
                        FormField::flag("obstacle", &t("field.obstacle")),
                        FormField::flag("woods", &t("field.woods")),
                    ]);
                    fields.push(FormField::choice(
                        "order",
                        &t("field.order"),
                        ["closed", "open", "skirmish"]
                            .map(|o| Choice::new(o, t(&format!("choice.{o}"))))
                            .to_vec(),
                        true,
                    ));
                    if st.options.dismounting {
                        fields.push(FormField::flag("dismount", &t("field.dismount")));
                    }
                    let hint = if several > 1 {
                        tw("hint.move-several", &[("count", &several.to_string())])
                    } else {
                        t("hint.move")
                    };
                    out.push(primary(ActionForm::new(
                        "move",
                        &title("move"),
                        &hint,
                        fields,
                        true,
                    )));
                } else if st.phase == Phase::Fire {
                    let enemies = unit_choices(
                        st.units
                            .values()
                            .filter(on_table)
                            .filter(|u| &u.side != cur),
                    );
                    let mut fields = vec![
                        FormField::choice(
                            "unit",
                            &t("field.unit"),
                            unit_choices(waiting.iter().copied()),
                            false,
                        )
                        .resets(),
                        // No default: the table says which enemy is fired at (issue 43,
                        // item 2), and the range it measures.
                        FormField::choice("target", &t("field.target"), enemies, true),
                        FormField::choice(
                            "range",
                            &t("field.range"),
                            vec![
                                Choice::new("short", t("choice.short")),
                                Choice::new("long", t("choice.long")),
                            ],
                            true,
                        ),
                        FormField::number("firers", &t("field.firers"), 0, 40, 0),
                    ];
                    // Both pistols: only for the units that carry them (issue 17, item 6).
                    let pistols: Vec<String> = waiting
                        .iter()
                        .filter(|u| matches!(game::weapon_of(u), Some((tables::Weapon::Pistol, _))))
                        .map(|u| u.id.clone())
                        .collect();
                    if !pistols.is_empty() {
                        fields
                            .push(FormField::flag("double", &t("field.double")).only_for(pistols));
                    }
                    if gm {
                        fields.push(FormField::number(
                            "target_class",
                            &t("field.target-class"),
                            0,
                            4,
                            0,
                        ));
                        fields.push(FormField::choice(
                            "officer",
                            &t("field.officer-in-cone"),
                            officer_choices(st, |o| &o.side != cur),
                            true,
                        ));
                    }
                    out.push(primary(ActionForm::new(
                        "fire",
                        &title("fire"),
                        &t("hint.fire"),
                        fields,
                        true,
                    )));
                }
                let pass = ActionForm::new(
                    "pass",
                    &title("pass"),
                    &t("hint.pass"),
                    vec![FormField::choice(
                        "unit",
                        &t("field.unit"),
                        unit_choices(waiting.iter().copied()),
                        false,
                    )
                    .resets()],
                    false,
                );
                // With none of the side's units able to move (its heavy guns), letting the
                // chance pass is the card's step.
                out.push(if st.phase == Phase::Movement && movers.is_empty() {
                    primary(pass)
                } else {
                    pass
                });
            }
            _ => {}
        },
        Phase::Melee if !st.fire_morale_done && gm => out.push(primary(ActionForm::new(
            "fire-morale",
            &title("fire-morale"),
            &t("hint.fire-morale"),
            Vec::new(),
            true,
        ))),
        Phase::Melee if !st.fire_morale_done => {}
        Phase::Melee => {
            let chargers: Vec<&UnitState> = st
                .units
                .values()
                .filter(on_table)
                .filter(|u| mine(&u.side))
                .filter(|u| !matches!(u.status, Status::Shaken | Status::Routed))
                // One charge a turn (decision 62; found by `tercio fuzz`: offered, refused).
                .filter(|u| !u.charged)
                .filter(|u| {
                    tables::troop(&u.troop)
                        .is_some_and(|t| !matches!(t.kind, Kind::Gun | Kind::Train))
                        && u.order != Order::Skirmish
                })
                .collect();
            if !chargers.is_empty() {
                // The other side's units, never the charger's own, and none chosen at first
                // (issue 43, item 2): for the game master, whose chargers are of both sides, a
                // list per side, shown for that side's chargers.
                let sides: Vec<&str> = st
                    .sides
                    .iter()
                    .map(|s| s.id.as_str())
                    .filter(|s| chargers.iter().any(|u| u.side == *s))
                    .collect();
                let targets: Vec<FormField> = sides
                    .iter()
                    .map(|s| {
                        let f = FormField::choice(
                            "target",
                            &t("field.target"),
                            unit_choices(
                                st.units.values().filter(on_table).filter(|u| u.side != *s),
                            ),
                            true,
                        );
                        if sides.len() > 1 {
                            f.only_for(
                                chargers
                                    .iter()
                                    .filter(|u| u.side == *s)
                                    .map(|u| u.id.clone())
                                    .collect(),
                            )
                        } else {
                            f
                        }
                    })
                    .collect();
                let mut fields = vec![FormField::choice(
                    "charger",
                    &t("field.charger"),
                    unit_choices(chargers.into_iter()),
                    false,
                )
                .resets()];
                fields.extend(targets);
                fields.extend([
                    FormField::flag("rear", &t("field.rear")),
                    FormField::flag("across_wall", &t("field.across-wall")),
                    FormField::flag("climbing", &t("field.climbing")),
                    FormField::flag("broken_ground", &t("field.broken-ground")),
                    FormField::choice(
                        "break_off",
                        &t("field.break-off"),
                        vec![
                            Choice::new("charger", t("choice.charger")),
                            Choice::new("target", t("choice.target")),
                        ],
                        true,
                    ),
                ]);
                if gm {
                    fields.push(FormField::flag("square", &t("field.square")));
                    // Evasion is asked only of targets that have not fired this turn: one that
                    // has stood its ground (decision 68; the charge refuses it as well).
                    let may_evade: Vec<String> = st
                        .units
                        .values()
                        .filter(on_table)
                        .filter(|u| side.is_none_or(|s| u.side != s) && !u.fired)
                        .map(|u| u.id.clone())
                        .collect();
                    if !may_evade.is_empty() {
                        fields.push(
                            FormField::flag("target_evades", &t("field.target-evades"))
                                .only_when("target", may_evade.clone()),
                        );
                        fields.push(
                            FormField::number("evade_room", &t("field.evade-room"), 0, 99, 0)
                                .only_when("target", may_evade.clone()),
                        );
                        fields.push(
                            FormField::number("touched", &t("field.touched"), 0, 40, 0)
                                .only_when("target", may_evade),
                        );
                    }
                }
                out.push(ActionForm::new(
                    "charge",
                    &title("charge"),
                    &t("hint.charge"),
                    fields,
                    true,
                ));
            }
            if gm {
                out.push(primary(ActionForm::new(
                    "end-turn",
                    &title("end-turn"),
                    &t("hint.end-turn"),
                    Vec::new(),
                    true,
                )));
            }
        }
        _ => {}
    }
    // Field officers: their own move in the movement step, attaching at any time.
    let officers = officer_choices(st, |o| mine(&o.side));
    if !officers.is_empty() {
        if st.phase == Phase::Movement {
            let unmoved = officer_choices(st, |o| mine(&o.side) && !o.moved);
            if !unmoved.is_empty() {
                out.push(ActionForm::new(
                    "officer-move",
                    &title("officer-move"),
                    &t("hint.officer-move"),
                    vec![FormField::choice(
                        "officer",
                        &t("field.officer"),
                        unmoved,
                        false,
                    )],
                    true,
                ));
            }
        }
        out.push(ActionForm::new(
            "attach",
            &title("attach"),
            &t("hint.attach"),
            vec![
                FormField::choice("officer", &t("field.officer"), officers, false),
                FormField::choice(
                    "unit",
                    &t("field.unit"),
                    unit_choices(st.units.values().filter(on_table).filter(|u| mine(&u.side))),
                    true,
                ),
            ],
            false,
        ));
    }
    if gm {
        out.push(ActionForm::new(
            "weather",
            &title("weather"),
            &t("hint.weather"),
            vec![FormField::flag("light_rain", &t("field.light-rain"))],
            false,
        ));
        let marching: Vec<Choice> = st
            .sides
            .iter()
            .filter(|s| st.wounded.get(&s.id).is_some_and(|w| w.marching > 0))
            .map(|s| Choice::new(s.id.clone(), s.name.clone()))
            .collect();
        if st.options.wounded == 2 && st.phase == Phase::Movement && !marching.is_empty() {
            out.push(ActionForm::new(
                "wounded-move",
                &title("wounded-move"),
                &t("hint.wounded-move"),
                vec![FormField::choice("side", &t("field.side"), marching, false)],
                true,
            ));
        }
        if st.options.wounded == 2 {
            out.push(ActionForm::new(
                "wounded-parties",
                &title("wounded-parties"),
                &t("hint.wounded-parties"),
                vec![
                    FormField::choice(
                        "side",
                        &t("field.side"),
                        st.sides
                            .iter()
                            .map(|s| Choice::new(s.id.clone(), s.name.clone()))
                            .collect(),
                        false,
                    ),
                    FormField::number("saved", &t("field.saved"), 0, 99, 0),
                    FormField::number("captured", &t("field.captured"), 0, 99, 0),
                ],
                false,
            ));
        }
    }
    // The turn's next step first.
    out.sort_by_key(|f| !f.primary);
    // A card drawn, the turn started, the fire's morale tests: the page takes them by itself
    // when nothing else of the turn is offered (issue 43). The draw that ends the movement step
    // is asked while an officer or the wounded may still make their own move: it takes that
    // away. Attaching and the weather are the game master's at any time.
    let ends_step = matches!(st.phase, Phase::Movement | Phase::Fire)
        && game::to_act(st).is_none()
        && game::step_done(st);
    crate::interface::forms::mark_auto(
        &mut out,
        if ends_step {
            &["attach", "weather", "wounded-parties"]
        } else {
            &[
                "attach",
                "weather",
                "wounded-parties",
                "officer-move",
                "wounded-move",
            ]
        },
    );
    out
}

fn officer_choices(st: &State, keep: impl Fn(&game::Officer) -> bool) -> Vec<Choice> {
    st.officers
        .values()
        .filter(|o| !o.down && keep(o))
        .map(|o| Choice::new(o.id.clone(), o.name.clone()))
        .collect()
}
