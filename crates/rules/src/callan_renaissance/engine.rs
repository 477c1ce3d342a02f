//! The `RuleSet` and `Engine` binding: scenario checks, views (the deck's order is secret),
//! the board, the forms and the reference tables (design §14).

use serde_json::{json, Value};
use tercio_core::{Plan, Resolution};

use super::game::{self, CardPhase, Phase, State, Status, UnitState};
use super::tables::{self, card_colour, Quality, Troop, TROOPS};
use super::{k, m, term};
use crate::registry::{
    ActionForm, Board, BoardTable, Choice, Engine, FormField, Outcome, Rejection, RuleSet,
    SideScore, Viewer,
};
use crate::scenario::{Leader, Rank, Role, Scenario, ScenarioFile, Side, Unit};

pub struct CallanRenaissance;

pub static RULESET: CallanRenaissance = CallanRenaissance;

impl RuleSet for CallanRenaissance {
    fn id(&self) -> &'static str {
        super::RULESET_ID
    }
    fn alias(&self) -> &'static str {
        "callan"
    }
    fn name(&self) -> &'static str {
        "The Renaissance (Andy Callan), Italian Wars edition"
    }
    fn seed(&self) -> &'static str {
        "003_f05e8e49e76e1302.txt"
    }
    fn available(&self) -> bool {
        true
    }
    fn troop_types(&self) -> Vec<&'static str> {
        TROOPS.iter().map(|t| t.id()).collect()
    }
    fn allowed_flags(&self, troop: &str) -> Vec<&'static str> {
        Troop::from_id(troop)
            .map(game::flags_for)
            .unwrap_or_default()
    }
    fn unit_size(&self) -> (&'static str, i64, i64) {
        ("bases", 1, 16)
    }
    fn sides_act_by_default(&self) -> bool {
        false
    }
    fn house_rule_keys(&self) -> Vec<String> {
        tables::HOUSE_RULES
            .iter()
            .map(|(k, _)| k.to_string())
            .collect()
    }
    fn check_units(&self, sc: &Scenario) -> Vec<(usize, String, String)> {
        check_units(sc)
    }
    fn house_rule_range(&self, key: &str) -> (i64, i64) {
        tables::house_rule_range(key)
    }
    fn reference(&self) -> Value {
        json!({
            "troops": TROOPS.iter().map(|t| json!({
                "type": t.id(),
                "hits_per_base": t.hits_per_base(),
                "melee_dice_vs_foot": f64::from(t.melee_half_dice(false)) / 2.0,
                "melee_dice_vs_cavalry": f64::from(t.melee_half_dice(true)) / 2.0,
                "move_bw": t.move_bw().0,
                "charge_bw": t.move_bw().1,
                "sizes": t.sizes(false),
            })).collect::<Vec<_>>(),
            "house_rules": tables::HOUSE_RULES.iter().map(|(k, v)| json!({"key": k, "default": v})).collect::<Vec<_>>(),
        })
    }
    fn reference_tables(&self) -> Vec<BoardTable> {
        reference_tables()
    }
    fn engine(&self, scenario: Option<&Scenario>) -> Result<Box<dyn Engine>, String> {
        Ok(Box::new(CallanEngine {
            scenario: scenario.cloned(),
        }))
    }
}

/// The text's unit sizes and classes (D2–D4), each at the unit's field.
pub fn check_units(sc: &Scenario) -> Vec<(usize, String, String)> {
    let free = game::house(sc, "callan.free_sizes") != 0;
    let mut out = Vec::new();
    for (i, u) in sc.units.iter().enumerate() {
        let Some(t) = Troop::from_id(&u.troop) else {
            continue;
        };
        let has = |f: &str| u.flags.iter().any(|x| x == f);
        let german = u.nationality.as_deref() == Some("tedeschi");
        let bases = u32::from(u.bases);
        let tercio = has("tercio") || has("colunella");
        let screen = u
            .flags
            .iter()
            .find_map(|f| {
                f.strip_prefix("schermo-")
                    .and_then(|n| n.parse::<u32>().ok())
            })
            .unwrap_or(0);
        let total = bases
            + screen
            + u32::from(has("doppelsoldner") || has("rodeleros"))
            + u32::from(has("alabardieri"));
        if !free {
            if tercio && has("tercio") && total < 12 {
                out.push((
                    i,
                    "bases".into(),
                    m("callan.check.tercio", &[("n", total.to_string())]),
                ));
            } else if !tercio && !t.sizes(german).contains(&bases) {
                out.push((
                    i,
                    "bases".into(),
                    m(
                        "callan.check.size",
                        &[
                            ("type", term(t.id())),
                            ("n", bases.to_string()),
                            (
                                "allowed",
                                t.sizes(german)
                                    .iter()
                                    .map(u32::to_string)
                                    .collect::<Vec<_>>()
                                    .join(", "),
                            ),
                        ],
                    ),
                ));
            }
        }
        if t.is_cavalry() && has("reclute") {
            out.push((i, "flags".into(), k("callan.check.raw-cavalry")));
        }
        if t == Troop::ContadiniArmati && has("veterani") {
            out.push((i, "flags".into(), k("callan.check.peasants")));
        }
        if t.is_gun() && (has("veterani") || has("reclute")) {
            out.push((i, "flags".into(), k("callan.check.gun-quality")));
        }
        if has("veterani") && has("reclute") {
            out.push((i, "flags".into(), k("callan.check.two-classes")));
        }
        if t == Troop::CavalleriaLeggera {
            let w = ["giavellotti", "balestre", "archibugi"]
                .iter()
                .filter(|f| has(f))
                .count();
            if w > 1 {
                out.push((i, "flags".into(), k("callan.check.one-weapon")));
            }
        }
        if t == Troop::Picchieri {
            if has("doppelsoldner") && has("rodeleros") {
                out.push((i, "flags".into(), k("callan.check.one-special")));
            }
            let width = if bases >= 16 { 4 } else { 3 };
            if !tercio && screen > width {
                out.push((
                    i,
                    "flags".into(),
                    m(
                        "callan.check.screen",
                        &[("n", screen.to_string()), ("max", width.to_string())],
                    ),
                ));
            }
        }
    }
    out
}

pub struct CallanEngine {
    scenario: Option<Scenario>,
}

fn state_of(v: &Value) -> Result<State, Rejection> {
    serde::Deserialize::deserialize(v).map_err(|e| {
        Rejection::new(
            "bad-state",
            None,
            m("callan.reject.bad-state", &[("error", e.to_string())]),
        )
    })
}

fn action_name(a: &Value) -> String {
    a.get("action")
        .and_then(Value::as_str)
        .unwrap_or("action")
        .to_string()
}

fn outcome(name: &str, before: Option<&Value>, r: game::Res) -> Outcome {
    let effects = match before {
        Some(b) => crate::effects::diff(b, &serde_json::to_value(&r.st).unwrap_or(Value::Null)),
        None => Value::Null,
    };
    Outcome {
        resolution: Resolution {
            action: m(
                "callan.action-title",
                &[("action", format!("@callan.action.{name}"))],
            ),
            summary: r.summary.join("; "),
            steps: r.steps,
        },
        effects,
        facets: r.facets,
    }
}

impl Engine for CallanEngine {
    fn initial_state(&self) -> Result<Value, String> {
        let sc = self.scenario.as_ref().ok_or("no scenario")?;
        serde_json::to_value(game::initial(sc)?).map_err(|e| e.to_string())
    }

    fn plan(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection> {
        let Some(v) = state else {
            return standalone(action);
        };
        let st = state_of(v)?;
        let before = serde_json::to_value(&st).ok();
        let name = action_name(action);
        Ok(game::plan(&st, action)?.map(move |r| outcome(&name, before.as_ref(), r)))
    }

    fn preview(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection> {
        let Some(v) = state else {
            return standalone(action);
        };
        let st = state_of(v)?;
        let name = action_name(action);
        // An attack the defender may still evade: its odds are the fight's, if it stands.
        if name == "attack" && action.get("evade").is_none() {
            let mut a = action.clone();
            a["evade"] = json!(false);
            return Ok(game::plan(&st, &a)?.map(move |r| outcome(&name, None, r)));
        }
        if name == "start" || name == "draw" {
            return Err(Rejection::new(
                "no-odds",
                Some("action"),
                k("callan.reject.no-odds"),
            ));
        }
        Ok(game::plan(&st, action)?.map(move |r| outcome(&name, None, r)))
    }

    fn apply(&self, state: &mut Value, effects: &Value) -> Result<(), String> {
        crate::effects::apply(state, effects)
    }

    fn render_state(&self, state: &Value) -> String {
        match state_of(state) {
            Ok(st) => {
                let b = board(&st);
                let mut s = format!("{}\n", b.headline);
                for n in &b.notes {
                    s.push_str(&format!("  {n}\n"));
                }
                for t in &b.tables {
                    s.push('\n');
                    s.push_str(&t.render());
                }
                s
            }
            Err(e) => e.message,
        }
    }

    fn acting_side(&self, state: &Value, action: &Value) -> Option<String> {
        let st = state_of(state).ok()?;
        game::acting_side(&st, action).map(|i| st.sides[i].id.clone())
    }

    fn reserved_to_game_master(&self) -> &'static [&'static str] {
        // The defender's choice to evade is the other side's; the GM records it.
        &["evade"]
    }

    fn scores(&self, state: &Value) -> Vec<SideScore> {
        let Ok(st) = state_of(state) else {
            return Vec::new();
        };
        st.sides
            .iter()
            .map(|s| {
                let (lost, total) = if st.cfg.victory_points {
                    (s.lost_points, s.points)
                } else {
                    (s.lost / 2, s.strength / 2)
                };
                SideScore {
                    side: s.id.clone(),
                    lost,
                    threshold: total * st.cfg.threshold_pct / 100,
                }
            })
            .collect()
    }

    fn views_differ(&self) -> bool {
        true
    }

    fn view_state(&self, state: &Value, _viewer: &Viewer) -> Value {
        let Ok(mut st) = state_of(state) else {
            return Value::Null;
        };
        st.deck = Vec::new();
        st.salt = 0;
        serde_json::to_value(st).unwrap_or(Value::Null)
    }

    fn view_event(&self, event: &Value, _viewer: &Viewer) -> Option<Value> {
        let mut e = event.clone();
        if e["action"]["action"] == "start" {
            // The shuffle key's dice would give away every turn's cards.
            if let Some(d) = e["draws"].as_array_mut() {
                d.retain(|x| {
                    !x["label"]
                        .as_str()
                        .is_some_and(|l| l.starts_with("Shuffle key"))
                });
            }
        }
        if let Some(ops) = e["effects"].as_array_mut() {
            ops.retain(|op| {
                let p = op["p"].as_str().unwrap_or("");
                !(p == "/deck" || p.starts_with("/deck/") || p == "/salt" || p.is_empty())
            });
        }
        Some(e)
    }

    fn board(&self, state: &Value) -> Option<Board> {
        state_of(state).ok().map(|st| board(&st))
    }

    fn forms(&self, state: &Value, side: Option<&str>) -> Vec<ActionForm> {
        state_of(state)
            .map(|st| forms(&st, side))
            .unwrap_or_default()
    }

    fn seeded_only(&self, _state: &Value, action: &Value) -> bool {
        action["action"] == "start"
    }

    fn verdict(&self, state: &Value) -> Option<String> {
        state_of(state).ok().and_then(|st| game::verdict(&st))
    }
}

// ------------------------------------------------------------------------------------------------
// Stand-alone resolutions: one volley or one first round between inline units (§14.2).

fn inline_unit(v: &Value, field: &str, side: &str) -> Result<Unit, Rejection> {
    let t = v.get("type").and_then(Value::as_str).ok_or_else(|| {
        Rejection::new(
            "missing-field",
            Some(&format!("{field}.type")),
            m(
                "callan.reject.missing",
                &[("field", format!("{field}.type"))],
            ),
        )
    })?;
    if Troop::from_id(t).is_none() {
        return Err(Rejection::new(
            "unknown-type",
            Some(&format!("{field}.type")),
            m(
                "callan.reject.unknown-type",
                &[
                    ("type", t.to_string()),
                    (
                        "allowed",
                        TROOPS.iter().map(|t| t.id()).collect::<Vec<_>>().join(", "),
                    ),
                ],
            ),
        ));
    }
    let bases = v.get("bases").and_then(Value::as_u64).unwrap_or(0);
    if !(1..=16).contains(&bases) {
        return Err(Rejection::new(
            "bad-number",
            Some(&format!("{field}.bases")),
            m(
                "callan.reject.range",
                &[
                    ("field", format!("{field}.bases")),
                    ("min", "1".into()),
                    ("max", "16".into()),
                ],
            ),
        ));
    }
    let flags: Vec<String> = v
        .get("flags")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let allowed = game::flags_for(Troop::from_id(t).expect("checked"));
    if let Some(bad) = flags.iter().find(|f| !allowed.contains(&f.as_str())) {
        return Err(Rejection::new(
            "bad-flag",
            Some(&format!("{field}.flags")),
            m(
                "callan.reject.flag",
                &[("flag", bad.clone()), ("allowed", allowed.join(", "))],
            ),
        ));
    }
    let mut flags = flags;
    if v.get("commander").and_then(Value::as_bool) == Some(true) {
        flags.push("comandante".into());
    }
    Ok(Unit {
        id: field.to_string(),
        name: v
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or(t)
            .to_string(),
        side: side.to_string(),
        troop: t.to_string(),
        bases: u8::try_from(bases).unwrap_or(1),
        leader: format!("{side}-cmd"),
        flags,
        nationality: v
            .get("nationality")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

fn standalone(action: &Value) -> Result<Plan<Outcome>, Rejection> {
    let name = action_name(action);
    let (fa, fb) = match name.as_str() {
        "fire" => ("unit", "target"),
        "attack" => ("attacker", "defender"),
        _ => {
            return Err(Rejection::new(
                "unknown-action",
                Some("action"),
                k("callan.reject.standalone"),
            ))
        }
    };
    let ua = inline_unit(&action[fa], fa, "a")?;
    let ub = inline_unit(&action[fb], fb, "b")?;
    let side = |id: &str| Side {
        id: id.into(),
        name: id.into(),
        role: Role::Attacker,
        colour: "red".into(),
        camp: false,
    };
    let names = [ua.name.clone(), ub.name.clone()];
    let leader = |side: &str| Leader {
        id: format!("{side}-cmd"),
        name: m(
            "callan.commander.of",
            &[("unit", names[usize::from(side == "b")].clone())],
        ),
        side: side.into(),
        bonus: 0,
        rank: Rank::Army,
    };
    let sc = Scenario::built(ScenarioFile {
        ruleset: super::RULESET_ID.into(),
        title: String::new(),
        date: None,
        place: None,
        notes: None,
        sources: Vec::new(),
        sides: vec![side("a"), side("b")],
        leaders: vec![leader("a"), leader("b")],
        units: vec![ua, ub],
        house_rules: Default::default(),
    });
    let mut st = game::initial(&sc).map_err(|e| Rejection::new("bad-unit", None, e))?;
    st.phase = Phase::Cards;
    st.turn = 1;
    for u in st.units.iter_mut() {
        u.status = Status::Ok;
    }
    // Commanders only where the request says so.
    for c in st.commanders.iter_mut() {
        let side = c.side;
        let led = st
            .units
            .iter()
            .find(|u| u.side == side)
            .map(|u| u.id.clone());
        let wants = action[if side == 0 { fa } else { fb }]
            .get("commander")
            .and_then(Value::as_bool)
            == Some(true);
        c.unit = if wants { led } else { None };
    }
    let attacker_cav = st.units[0].troop.is_cavalry();
    st.open = Some(game::Open {
        side: Some(0),
        phase: if name == "fire" {
            CardPhase::Fire
        } else if attacker_cav {
            CardPhase::Cavalry
        } else {
            CardPhase::Infantry
        },
        repeat: None,
        joker_used: false,
        troops_moved: false,
    });
    let mut a = action.clone();
    a[fa] = json!(fa);
    a[fb] = json!(fb);
    if name == "fire" && st.units[0].troop.is_gun() && a.get("nearest").is_none() {
        a["nearest"] = json!(true);
    }
    Ok(game::plan(&st, &a)?.map(move |r| outcome(&name, None, r)))
}

// ------------------------------------------------------------------------------------------------
// The board.

fn quality_term(q: Quality) -> String {
    k(&format!("callan.term.{}", q.id()))
}

fn unit_state_text(st: &State, u: &UnitState) -> String {
    let mut bits = vec![k(&format!("callan.status.{}", u.status.id()))];
    if u.status == Status::Ok && u.exhausted() {
        bits.push(k("callan.state.exhausted"));
    } else if u.status == Status::Ok && u.half() && u.lost_bases() > 0 {
        bits.push(k("callan.state.half"));
    }
    if u.disordered {
        bits.push(k("callan.state.disordered"));
    }
    if u.open_order {
        bits.push(k("callan.state.open-order"));
    }
    if u.riccio {
        bits.push(k("callan.state.riccio"));
    }
    if u.fired {
        bits.push(k("callan.state.smoke"));
    }
    if u.held_fire {
        bits.push(k("callan.state.held-fire"));
    }
    if u.activated {
        bits.push(k("callan.state.activated"));
    }
    if u.exploded {
        bits.push(k("callan.state.exploded"));
    }
    if game::fixated_now(st, u) {
        bits.push(k("callan.state.fixated"));
    }
    if u.troop == Troop::ArtiglieriaPesante && u.fired_turn.is_some_and(|t| t + 1 >= st.turn) {
        bits.push(k("callan.state.reloading"));
    }
    if u.troop.is_heavy_horse() && u.charges > 0 {
        bits.push(m("callan.state.charges", &[("n", u.charges.to_string())]));
    }
    if u.status == Status::Waiting {
        bits.push(m("callan.state.enters", &[("turn", u.enters.to_string())]));
    }
    bits.join(", ")
}

fn unit_type_text(u: &UnitState) -> String {
    let mut s = term(u.troop.id());
    s = k(s.trim_start_matches('@'));
    let mut extra = Vec::new();
    if u.screen > 0 {
        extra.push(m("callan.unit.screen", &[("n", u.screen.to_string())]));
    }
    if u.shot > 0 {
        extra.push(m("callan.unit.shot", &[("n", u.shot.to_string())]));
    }
    if let Some(sp) = u.special {
        extra.push(k(&format!("callan.term.{}", sp.id())));
    }
    if u.halberd {
        extra.push(k("callan.term.alabardieri"));
    }
    if let Some(n) = &u.nationality {
        extra.push(n.clone());
    }
    if extra.is_empty() {
        s
    } else {
        format!("{s} ({})", extra.join(", "))
    }
}

pub fn board(st: &State) -> Board {
    let headline = match st.phase {
        Phase::Setup => k("callan.board.setup"),
        Phase::Over => game::verdict(st).unwrap_or_else(|| k("callan.wait.over")),
        Phase::Cards => m(
            "callan.board.turn",
            &[
                ("turn", st.turn.to_string()),
                ("wait", game::waiting_for(st)),
            ],
        ),
    };
    let mut notes = Vec::new();
    if st.phase == Phase::Cards {
        let drawn: Vec<String> = st.drawn.iter().map(|&c| game::card_text(c)).collect();
        notes.push(m(
            "callan.board.drawn",
            &[(
                "cards",
                if drawn.is_empty() {
                    k("callan.board.none")
                } else {
                    drawn.join(", ")
                },
            )],
        ));
        // The next card's odds, from the cards not yet drawn (the same for every seat, §14.5).
        let cards = st.cards_left();
        let left = cards.len() as u32;
        if left > 0 {
            let red = cards.iter().filter(|&&c| card_colour(c) == Some(0)).count();
            let black = cards.iter().filter(|&&c| card_colour(c) == Some(1)).count();
            let joker = cards.len() - red - black;
            notes.push(m(
                "callan.board.next",
                &[
                    ("red", st.sides[0].name.clone()),
                    ("pr", format!("{red}/{left}")),
                    (
                        "black",
                        st.sides.get(1).map(|s| s.name.clone()).unwrap_or_default(),
                    ),
                    ("pb", format!("{black}/{left}")),
                    ("pj", format!("{joker}/{left}")),
                ],
            ));
        }
        if st.joker {
            notes.push(k("callan.board.joker-in"));
        }
    }
    for line in st.chronicle.iter().rev().take(5) {
        notes.push(line.clone());
    }
    let mut tables_out = Vec::new();
    let side_rows: Vec<Vec<String>> = st
        .sides
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (lost, total) = game::measure(st, i);
            vec![
                s.name.clone(),
                k(if i == 0 {
                    "callan.colour.red"
                } else {
                    "callan.colour.black"
                }),
                m(
                    "callan.board.points",
                    &[
                        ("points", s.points.to_string()),
                        ("half", {
                            let t = f64::from(s.points * st.cfg.threshold_pct) / 100.0;
                            tercio_i18n::num(t, if t.fract() == 0.0 { 0 } else { 1 })
                        }),
                    ],
                ),
                total,
                lost,
                threshold_text(st, i),
                if s.camp {
                    m(
                        if s.camp_looted {
                            "callan.camp.looted"
                        } else {
                            "callan.camp.value"
                        },
                        &[("n", s.camp_value.to_string())],
                    )
                } else {
                    k("callan.camp.none")
                },
            ]
        })
        .collect();
    tables_out.push(table(
        "callan.board.armies",
        &[
            "callan.col.side",
            "callan.col.colour",
            "callan.col.points",
            "callan.col.strength",
            "callan.col.lost",
            "callan.col.threshold",
            "callan.col.camp",
        ],
        side_rows,
    ));
    for (i, s) in st.sides.iter().enumerate() {
        let rows = st
            .units
            .iter()
            .filter(|u| u.side == i)
            .map(|u| {
                vec![
                    u.name.clone(),
                    unit_type_text(u),
                    quality_term(u.quality),
                    format!("{}/{}", u.bases, u.bases_start),
                    format!("{}/{}", u.hits, u.troop.hits_per_base()),
                    unit_state_text(st, u),
                    st.commander_of(&u.id)
                        .map(|c| c.name.clone())
                        .unwrap_or_default(),
                    u.id.clone(),
                ]
            })
            .collect();
        let mut t = table(
            "callan.board.units",
            &[
                "callan.col.name",
                "callan.col.type",
                "callan.col.quality",
                "callan.col.bases",
                "callan.col.hits",
                "callan.col.state",
                "callan.col.commander",
                "callan.col.id",
            ],
            rows,
        );
        t.title = m("callan.board.units", &[("side", s.name.clone())]);
        tables_out.push(t);
    }
    let cmd_rows = st
        .commanders
        .iter()
        .map(|c| {
            vec![
                c.id.clone(),
                c.name.clone(),
                st.sides[c.side].name.clone(),
                k(if c.army {
                    "callan.rank.army"
                } else {
                    "callan.rank.battle"
                }),
                c.unit
                    .as_ref()
                    .and_then(|u| st.unit(u))
                    .map(|u| u.name.clone())
                    .unwrap_or_else(|| k("callan.commander.alone-short")),
                k(match c.status {
                    game::CommanderStatus::Active => "callan.commander.active",
                    game::CommanderStatus::Wounded => "callan.commander.wounded-short",
                    game::CommanderStatus::Fled => "callan.commander.fled-short",
                }),
            ]
        })
        .collect();
    tables_out.push(table(
        "callan.board.commanders",
        &[
            "callan.col.id",
            "callan.col.name",
            "callan.col.side",
            "callan.col.rank",
            "callan.col.leads",
            "callan.col.state",
        ],
        cmd_rows,
    ));
    if !st.combats.is_empty() {
        let rows = st
            .combats
            .iter()
            .map(|c| {
                let n = |i: usize| {
                    st.unit(&c.units[i])
                        .map(|u| u.name.clone())
                        .unwrap_or_default()
                };
                let role = |r: super::resolve::Role| {
                    k(match r {
                        super::resolve::Role::Attacker => "callan.role.attacker",
                        super::resolve::Role::Defender => "callan.role.defender",
                    })
                };
                vec![
                    format!("c{}", c.id),
                    format!("{} ({})", n(0), role(c.roles[0])),
                    format!("{} ({})", n(1), role(c.roles[1])),
                    c.rounds.to_string(),
                    k(if c.cavalry {
                        "callan.combat.kind-cavalry"
                    } else {
                        "callan.combat.kind-infantry"
                    }),
                    yes_no(c.due),
                ]
            })
            .collect();
        tables_out.push(table(
            "callan.board.combats",
            &[
                "callan.col.id",
                "callan.col.a",
                "callan.col.b",
                "callan.col.rounds",
                "callan.col.kind",
                "callan.col.due",
            ],
            rows,
        ));
    }
    if !st.obstacles.is_empty() {
        let rows = st
            .obstacles
            .iter()
            .map(|(id, d)| vec![id.clone(), k(&format!("callan.obstacle.{d}"))])
            .collect();
        tables_out.push(table(
            "callan.board.obstacles",
            &["callan.col.id", "callan.col.difficulty"],
            rows,
        ));
    }
    Board {
        headline,
        notes,
        tables: tables_out,
    }
}

/// A side is beaten when its losses exceed this (D61, D63): half bases, or points.
fn threshold_text(st: &State, i: usize) -> String {
    let s = &st.sides[i];
    let pct = st.cfg.threshold_pct;
    if st.cfg.victory_points {
        let t = f64::from(s.points * pct) / 100.0;
        let text = if t.fract() == 0.0 {
            format!("{t:.0}")
        } else {
            format!("{t}")
        };
        m(
            "callan.board.threshold",
            &[("n", text), ("pct", pct.to_string())],
        )
    } else {
        m(
            "callan.board.threshold",
            &[
                ("n", tables::halves_text(s.strength * pct / 100)),
                ("pct", pct.to_string()),
            ],
        )
    }
}

fn yes_no(b: bool) -> String {
    k(if b { "callan.yes" } else { "callan.no" })
}

fn table(title: &str, cols: &[&str], rows: Vec<Vec<String>>) -> BoardTable {
    let cols: Vec<String> = cols.iter().map(|c| k(c)).collect();
    let refs: Vec<&str> = cols.iter().map(String::as_str).collect();
    BoardTable::new(&k(title), &refs, rows)
}

// ------------------------------------------------------------------------------------------------
// Forms.

fn unit_choices(st: &State, side: Option<usize>, p: impl Fn(&UnitState) -> bool) -> Vec<Choice> {
    st.units
        .iter()
        .filter(|u| side.is_none_or(|s| u.side == s) && p(u))
        .map(|u| {
            Choice::new(
                u.id.clone(),
                format!("{} ({}/{})", u.name, u.bases, u.bases_start),
            )
        })
        .collect()
}

fn choices(list: &[(&str, &str)]) -> Vec<Choice> {
    list.iter().map(|(v, l)| Choice::new(*v, k(l))).collect()
}

fn form(action: &str, fields: Vec<FormField>, odds: bool) -> ActionForm {
    ActionForm::new(
        action,
        &k(&format!("callan.action.{action}")),
        &k(&format!("callan.hint.{action}")),
        fields,
        odds,
    )
}

fn f_choice(name: &str, options: Vec<Choice>, optional: bool) -> FormField {
    FormField::choice(name, &k(&format!("callan.field.{name}")), options, optional)
}

fn f_flag(name: &str) -> FormField {
    FormField::flag(name, &k(&format!("callan.field.{name}")))
}

fn f_num(name: &str, max: i64, value: i64) -> FormField {
    FormField::number(name, &k(&format!("callan.field.{name}")), 0, max, value)
}

pub fn forms(st: &State, side: Option<&str>) -> Vec<ActionForm> {
    let mine = side.and_then(|s| st.sides.iter().position(|x| x.id == s));
    if side.is_some() && mine.is_none() {
        return Vec::new();
    }
    let gm = side.is_none();
    let mut out = Vec::new();
    match st.phase {
        Phase::Over => return out,
        Phase::Setup => {
            if gm {
                out.push(form("start", Vec::new(), false).primary());
                out.push(obstacle_form());
            }
            return out;
        }
        Phase::Cards => {}
    }
    if let Some(qs) = game::question_side(st) {
        if gm || mine == Some(qs) {
            out.push(
                form(
                    "answer",
                    vec![f_choice(
                        "choice",
                        choices(&[
                            ("stand", "callan.choice.stand"),
                            ("evade", "callan.choice.evade"),
                        ]),
                        false,
                    )],
                    false,
                )
                .primary(),
            );
        }
        return out;
    }
    let due: Vec<&game::Combat> = st.combats.iter().filter(|c| c.due).collect();
    if gm && due.is_empty() {
        if st.cards_left().is_empty() {
            out.push(form("end_turn", Vec::new(), false).primary());
        } else {
            out.push(form("draw", Vec::new(), false).primary());
        }
    }
    for c in &due {
        let side_of = st.unit(&c.units[0]).map(|u| u.side);
        if !gm && side_of != mine && st.unit(&c.units[1]).map(|u| u.side) != mine {
            continue;
        }
        let (Some(a), Some(b)) = (st.unit(&c.units[0]), st.unit(&c.units[1])) else {
            continue;
        };
        let mut fields = vec![
            f_choice(
                "combat",
                vec![Choice::new(
                    format!("c{}", c.id),
                    format!("c{}: {} – {}", c.id, a.name, b.name),
                )],
                false,
            ),
            f_num(
                "attacker_front",
                i64::from(a.fighting_bases()),
                i64::from(a.fighting_bases().min(3)),
            ),
            f_num("attacker_rear", i64::from(a.fighting_bases()), 0),
            f_num(
                "defender_front",
                i64::from(b.fighting_bases()),
                i64::from(b.fighting_bases().min(3)),
            ),
            f_num("defender_rear", i64::from(b.fighting_bases()), 0),
            f_flag("attacker_emerge"),
            f_flag("defender_emerge"),
        ];
        // A squadron of either side may come up in support of a cavalry melee (D36).
        if c.cavalry {
            let helpers = unit_choices(st, None, |u| {
                u.troop.is_cavalry()
                    && u.status == Status::Ok
                    && !c.units.contains(&u.id)
                    && !st.combats.iter().any(|z| z.units.contains(&u.id))
                    && (u.side == a.side || u.side == b.side)
            });
            if !helpers.is_empty() {
                fields.push(f_choice("support", helpers, true));
                fields.push(f_num("support_front", 6, 0));
            }
        }
        let mut f = form("resolve_combat", fields, true);
        f.primary = true;
        out.push(f);
    }
    if !due.is_empty() {
        out.push(panic_form(st, mine));
        return out;
    }
    let open = st.open.clone();
    let on = |u: &UnitState| u.on_table();
    if let Some(o) = &open {
        let side_now = o.side;
        let acts = gm || (side_now.is_some() && side_now == mine);
        let phase = if o.phase == CardPhase::Joker {
            o.repeat
        } else {
            Some(o.phase)
        };
        if acts {
            if let Some(s) = side_now {
                let enemies = unit_choices(st, Some(1 - s.min(1)), on);
                match phase {
                    Some(CardPhase::Fire) => {
                        let firers = unit_choices(st, Some(s), |u| {
                            u.on_table()
                                && u.firing_bases() > 0
                                && !u.exploded
                                && (!u.fired || o.phase == CardPhase::Joker)
                        });
                        if !firers.is_empty() {
                            out.push(fire_form(firers, enemies.clone(), false));
                        }
                        let vets = unit_choices(st, Some(s), |u| {
                            u.quality == Quality::Veterani
                                && u.troop == Troop::Archibugieri
                                && !u.fired
                                && u.on_table()
                        });
                        if !vets.is_empty() {
                            out.push(form(
                                "hold_fire",
                                vec![f_choice("unit", vets, false)],
                                false,
                            ));
                        }
                    }
                    Some(p @ (CardPhase::Infantry | CardPhase::Cavalry)) => {
                        let cav = p == CardPhase::Cavalry;
                        // Only the units that may still act at this card are offered (the
                        // engine refuses the others with the reason).
                        let movers = unit_choices(st, Some(s), |u| {
                            u.on_table()
                                && u.troop.is_cavalry() == cav
                                && u.troop != Troop::ArtiglieriaPesante
                                && (!u.activated || o.phase == CardPhase::Joker)
                        });
                        let attackers = unit_choices(st, Some(s), |u| {
                            u.status == Status::Ok
                                && u.troop.is_cavalry() == cav
                                && !u.troop.is_gun()
                                && !u.riccio
                                && !u.half()
                                && (!u.activated || u.moved)
                        });
                        if !movers.is_empty() {
                            out.push(move_form(movers));
                        }
                        if !attackers.is_empty() && o.phase != CardPhase::Joker {
                            out.push(attack_form(attackers, enemies.clone(), cav));
                        }
                        let skirmishers = unit_choices(st, Some(s), |u| {
                            u.on_table()
                                && !u.fired
                                && ((cav
                                    && u.troop == Troop::CavalleriaLeggera
                                    && u.weapon.is_some())
                                    || (!cav && u.troop.is_shot()))
                        });
                        if !skirmishers.is_empty() {
                            out.push(fire_form(skirmishers, enemies.clone(), true));
                        }
                        if p == CardPhase::Infantry && o.phase != CardPhase::Joker {
                            let cmds: Vec<Choice> = st
                                .commanders
                                .iter()
                                .filter(|c| {
                                    c.side == s && c.status == game::CommanderStatus::Active
                                })
                                .map(|c| Choice::new(c.id.clone(), c.name.clone()))
                                .collect();
                            if !cmds.is_empty() {
                                out.push(form(
                                    "commander",
                                    vec![
                                        f_choice("commander", cmds, false),
                                        f_choice("join", unit_choices(st, Some(s), on), true),
                                    ],
                                    false,
                                ));
                            }
                        }
                        let pursuers = unit_choices(st, Some(s), |u| u.status == Status::Pursuing);
                        if !pursuers.is_empty() && cav {
                            out.push(form(
                                "pursuit",
                                vec![f_choice("unit", pursuers, false), f_flag("reached_edge")],
                                false,
                            ));
                        }
                    }
                    _ => {}
                }
            }
        }
        // The veteran volley answers the enemy's move (D24).
        if let Some(s) =
            side_now.filter(|_| matches!(phase, Some(CardPhase::Infantry | CardPhase::Cavalry)))
        {
            let other = 1 - s.min(1);
            if gm || mine == Some(other) {
                let held = unit_choices(st, Some(other), |u| u.held_fire);
                if !held.is_empty() {
                    out.push(form(
                        "volley",
                        vec![
                            f_choice("unit", held, false),
                            f_choice("target", unit_choices(st, Some(s), on), false),
                            f_num("short_bases", 16, 1),
                        ],
                        true,
                    ));
                }
            }
        }
    }
    out.push(panic_form(st, mine));
    if gm {
        let cmds: Vec<Choice> = st
            .commanders
            .iter()
            .filter(|c| c.status == game::CommanderStatus::Active && c.unit.is_some())
            .map(|c| Choice::new(c.id.clone(), c.name.clone()))
            .collect();
        if !cmds.is_empty() {
            let cav = unit_choices(st, None, |u| u.troop.is_cavalry() && u.status == Status::Ok);
            out.push(form(
                "rally",
                vec![
                    f_choice("commander", cmds, false),
                    f_choice("from", cav.clone(), false),
                    f_choice("to", cav, false),
                ],
                false,
            ));
        }
        out.push(form(
            "off_table",
            vec![f_choice("unit", unit_choices(st, None, on), false)],
            false,
        ));
        out.push(obstacle_form());
        out.push(form(
            "state",
            vec![
                f_choice("unit", unit_choices(st, None, on), false),
                f_flag("disordered"),
                f_flag("open_order"),
                f_flag("riccio"),
                f_choice(
                    "loses_first",
                    choices(&[
                        ("pike", "callan.lose.pike"),
                        ("screen", "callan.lose.screen"),
                        ("special", "callan.lose.special"),
                        ("halberd", "callan.lose.halberd"),
                        ("shot", "callan.lose.shot"),
                    ]),
                    true,
                ),
            ],
            false,
        ));
    }
    out
}

fn panic_form(st: &State, side: Option<usize>) -> ActionForm {
    form(
        "panic_test",
        vec![
            f_choice(
                "unit",
                unit_choices(st, side, |u| {
                    matches!(u.status, Status::Ok | Status::Retiring)
                }),
                false,
            ),
            f_choice(
                "reason",
                choices(&[
                    ("friends_fleeing", "callan.trigger.friends-fleeing"),
                    ("rout_seen", "callan.trigger.rout-seen"),
                ]),
                false,
            ),
        ],
        true,
    )
}

fn obstacle_form() -> ActionForm {
    form(
        "obstacle",
        vec![
            FormField::text("id", &k("callan.field.id"), "fosso"),
            f_choice(
                "difficulty",
                choices(&[
                    ("facile", "callan.obstacle.facile"),
                    ("difficile", "callan.obstacle.difficile"),
                    ("molto-difficile", "callan.obstacle.molto-difficile"),
                ]),
                false,
            ),
        ],
        false,
    )
}

fn fire_form(firers: Vec<Choice>, targets: Vec<Choice>, moved: bool) -> ActionForm {
    let mut fields = vec![
        f_choice("unit", firers, false),
        f_choice("target", targets, false),
        f_num("short_bases", 16, 0),
        f_num("long_bases", 16, 1),
        f_choice(
            "cover",
            choices(&[
                ("none", "callan.cover.none"),
                ("wall", "callan.cover.wall"),
                ("fortification", "callan.cover.fortification"),
                ("wood_edge", "callan.cover.wood-edge"),
            ]),
            false,
        ),
        f_flag("dense"),
        f_flag("downhill"),
        f_flag("nearest"),
        f_flag("over_friends"),
    ];
    if moved {
        fields.push(f_flag("moved"));
    }
    let mut f = form("fire", fields, true);
    if moved {
        f.label = k("callan.action.move-fire");
        f.hint = k("callan.hint.move-fire");
    }
    f
}

fn move_form(units: Vec<Choice>) -> ActionForm {
    form(
        "move",
        vec![
            f_choice("unit", units, false),
            f_choice(
                "kind",
                choices(&[
                    ("move", "callan.move.move"),
                    ("charge", "callan.move.charge"),
                    ("reform", "callan.move.reform"),
                    ("formation", "callan.move.formation"),
                    ("retire", "callan.move.retire"),
                    ("flee", "callan.move.flee"),
                ]),
                false,
            ),
            f_choice(
                "formation",
                choices(&[
                    ("line", "callan.formation.line"),
                    ("riccio", "callan.formation.riccio"),
                    ("open", "callan.formation.open"),
                    ("close", "callan.formation.close"),
                ]),
                true,
            ),
            f_flag("steep_hill"),
            f_flag("difficult_terrain"),
            FormField::text("obstacle", &k("callan.field.obstacle"), ""),
        ],
        false,
    )
}

fn attack_form(units: Vec<Choice>, enemies: Vec<Choice>, cav: bool) -> ActionForm {
    let mut fields = vec![
        f_choice("attacker", units, false),
        f_choice("defender", enemies, false),
        f_num("attacker_front", 16, 3),
        f_num("attacker_rear", 16, 0),
        f_num("defender_front", 16, 3),
        f_num("defender_rear", 16, 0),
        f_num("defender_shot", 16, 0),
    ];
    if cav {
        fields.push(f_flag("charge"));
    }
    fields.push(f_flag("flank"));
    fields.push(f_choice(
        "evade",
        choices(&[
            ("false", "callan.choice.stand"),
            ("true", "callan.choice.evade"),
        ]),
        true,
    ));
    form("attack", fields, true)
}

// ------------------------------------------------------------------------------------------------
// Reference tables for the rules page.

/// A distance in BW with its cm at both scales: "4 BW (16 / 12 cm)" (§3.1).
fn bw_cm(bw: u32) -> String {
    format!("{bw} BW ({} / {} cm)", bw * 4, bw * 3)
}

/// The glossary of §2: the Italian term, and its English gloss (both languages show both).
const GLOSSARY: [&str; 17] = [
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

const GLOSSARY_RULES: [&str; 14] = [
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

fn reference_tables() -> Vec<BoardTable> {
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
