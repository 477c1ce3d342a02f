//! Commands & Colors: Napoleonics, English Civil War variant, bound to the [`RuleSet`] and
//! [`Engine`] traits: scenarios, the game's actions, each seat's view of the hands, and the board
//! and forms the app draws.

use serde_json::{json, Value};
use tercio_core::{Plan, Resolution};

use super::game::{self, Phase, Res, State, UnitState, HOUSE_RULES};
use super::resolve::{self, BattleRequest, MeleeRequest};
use super::tables::{self, command_kind, Class, Training, CHAUNCE_CARDS, COMMAND_CARDS};
use crate::interface::{
    ActionForm, Board, BoardTable, Choice, Engine, FormField, Outcome, Rejection, RuleSet,
    SideScore, Viewer,
};
use crate::scenario::Scenario;

pub struct CommandsColorsEcw;

pub static RULESET: CommandsColorsEcw = CommandsColorsEcw;

const TYPES: [&str; 7] = [
    "foot",
    "clubmen",
    "cuirassiers",
    "trotters",
    "gallopers",
    "dragoons",
    "artillery",
];

impl RuleSet for CommandsColorsEcw {
    fn id(&self) -> &'static str {
        super::RULESET_ID
    }
    fn alias(&self) -> &'static str {
        "ecw"
    }
    fn name(&self) -> &'static str {
        "Commands & Colors: Napoleonics, English Civil War variant"
    }
    fn seed(&self) -> &'static str {
        "004_87c88ceb03e2b5f8.txt"
    }
    fn available(&self) -> bool {
        true
    }
    fn troop_types(&self) -> Vec<&'static str> {
        TYPES.to_vec()
    }
    fn allowed_flags(&self, troop: &str) -> Vec<&'static str> {
        let mut f = vec!["left", "centre", "right", "attached", "spare"];
        match troop {
            "foot" => f.extend(["veteran", "raw", "militia", "no-pikes", "no-fire"]),
            "clubmen" => f.push("militia"),
            "gallopers" => f.extend(["veteran", "raw", "militia", "rash"]),
            "cuirassiers" | "trotters" => f.extend(["veteran", "raw", "militia"]),
            "dragoons" => f.extend(["veteran", "raw", "militia", "dismounted"]),
            _ => {}
        }
        f
    }
    fn unit_size(&self) -> (&'static str, i64, i64) {
        // Blocks: foot and clubmen 2-5, horse and dragoons 2-4, artillery 1-2 (decision 42);
        // the exact range per type is checked by `check_units`.
        ("blocks", 1, 5)
    }
    fn sides_act_by_default(&self) -> bool {
        // Only a side may play its hand.
        true
    }
    fn house_rule_keys(&self) -> Vec<String> {
        HOUSE_RULES.iter().map(|(k, _)| k.to_string()).collect()
    }
    fn check_units(&self, sc: &Scenario) -> Vec<(usize, String, String)> {
        check_units(sc)
    }
    fn reference(&self) -> Value {
        json!({
            "ruleset": self.id(),
            "seed": self.seed(),
            "design": "docs/rules/commands-colors-ecw.md",
            "command_cards": COMMAND_CARDS.iter().map(|c| json!({"id": c.id, "name": c.name, "count": c.count, "text": c.text})).collect::<Vec<_>>(),
            "chaunce_cards": CHAUNCE_CARDS.iter().map(|c| json!({"id": c.id, "name": c.name, "count": c.count, "turn": format!("{:?}", c.turn), "text": c.text})).collect::<Vec<_>>(),
            "battle_die": ["infantry", "infantry", "cavalry", "artillery", "sabre", "flag"],
            "house_rules": HOUSE_RULES.iter().map(|(k, v)| json!({"key": k, "default": v})).collect::<Vec<_>>(),
        })
    }
    fn reference_tables(&self) -> Vec<BoardTable> {
        reference_tables()
    }
    fn engine(&self, scenario: Option<&Scenario>) -> Result<Box<dyn Engine>, String> {
        Ok(Box::new(EcwEngine {
            scenario: scenario.cloned(),
        }))
    }
}

/// The scenario limits of decision 42, each reported against its unit.
pub fn check_units(sc: &Scenario) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let range = |t: &str| match t {
        "foot" | "clubmen" => (2, 5),
        "cuirassiers" | "trotters" | "gallopers" | "dragoons" => (2, 4),
        _ => (1, 2),
    };
    for (i, u) in sc.units.iter().enumerate() {
        let (lo, hi) = range(&u.troop);
        if !(lo..=hi).contains(&u.bases) {
            out.push((
                i,
                "blocks".into(),
                format!(
                    "{} has {lo} to {hi} blocks (decision 42); found {}",
                    u.troop, u.bases
                ),
            ));
        }
        let sections = u
            .flags
            .iter()
            .filter(|f| matches!(f.as_str(), "left" | "centre" | "right"))
            .count();
        if sections != 1 {
            out.push((
                i,
                "flags".into(),
                format!(
                    "exactly one section flag is needed: left, centre or right; found {sections}"
                ),
            ));
        }
        let trainings = u
            .flags
            .iter()
            .filter(|f| matches!(f.as_str(), "veteran" | "raw" | "militia"))
            .count();
        if trainings > 1 {
            out.push((
                i,
                "flags".into(),
                "at most one training flag: veteran, raw or militia (none: trained)".into(),
            ));
        }
        if u.troop == "clubmen" && !u.flags.iter().any(|f| f == "militia") {
            out.push((
                i,
                "flags".into(),
                "clubmen are always militia: add \"militia\" (004, Foot)".into(),
            ));
        }
    }
    let pct = |k: &str| game::house(sc, k).max(0) as usize;
    for (si, s) in sc.sides.iter().enumerate() {
        let on: Vec<(usize, &crate::scenario::Unit)> = sc
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.side == s.id && !u.flags.iter().any(|f| f == "spare"))
            .collect();
        let foot = on.iter().filter(|(_, u)| u.troop == "foot").count();
        let vets: Vec<usize> = on
            .iter()
            .filter(|(_, u)| u.troop == "foot" && u.flags.iter().any(|f| f == "veteran"))
            .map(|(i, _)| *i)
            .collect();
        let cap = foot * pct("ecw.veteran_cap_pct") / 100;
        if vets.len() > cap {
            out.push((vets[cap], "flags".into(), format!("side \"{}\" fields {} veteran foot units of {foot}: at most {cap} ({}% of its foot, 004, Foot; decision 42)", s.id, vets.len(), pct("ecw.veteran_cap_pct"))));
        }
        let horse = on
            .iter()
            .filter(|(_, u)| matches!(u.troop.as_str(), "cuirassiers" | "trotters" | "gallopers"))
            .count();
        let rash: Vec<usize> = on
            .iter()
            .filter(|(_, u)| u.flags.iter().any(|f| f == "rash"))
            .map(|(i, _)| *i)
            .collect();
        let rcap = horse * pct("ecw.rash_cap_pct") / 100;
        if rash.len() > rcap {
            out.push((rash[rcap], "flags".into(), format!("side \"{}\" fields {} rash units of {horse} horse: at most {rcap} ({}%, 004, Sub-classifications; decision 42)", s.id, rash.len(), pct("ecw.rash_cap_pct"))));
        }
        if si > 1 {
            break;
        }
    }
    for l in &sc.leaders {
        let n = sc
            .units
            .iter()
            .filter(|u| u.leader == l.id && u.flags.iter().any(|f| f == "attached"))
            .count();
        if n > 1 {
            if let Some(i) = sc
                .units
                .iter()
                .rposition(|u| u.leader == l.id && u.flags.iter().any(|f| f == "attached"))
            {
                out.push((i, "flags".into(), format!("leader \"{}\" is attached to {n} units; a leader is attached to one at most", l.id)));
            }
        }
    }
    out
}

pub struct EcwEngine {
    scenario: Option<Scenario>,
}

fn state_of(v: &Value) -> Result<State, Rejection> {
    serde::Deserialize::deserialize(v).map_err(|e| {
        Rejection::new(
            "bad-state",
            None,
            format!("the game state cannot be read: {e}"),
        )
    })
}

fn action_name(a: &Value) -> String {
    a.get("action")
        .and_then(Value::as_str)
        .unwrap_or("action")
        .to_string()
}

fn outcome(name: String, before: Option<Value>, r: Res) -> Outcome {
    let effects = match before {
        Some(b) => {
            let mut d = game::diff(&b, &serde_json::to_value(&r.st).unwrap_or(Value::Null));
            // Each change to a side's own values names the side, for the per-seat views.
            if let Some(ops) = d.as_array_mut() {
                for op in ops {
                    let side = op["p"]
                        .as_str()
                        .and_then(|p| p.strip_prefix("/sides/"))
                        .and_then(|p| p.split('/').next())
                        .and_then(|i| i.parse::<usize>().ok())
                        .and_then(|i| r.st.sides.get(i));
                    if let Some(s) = side {
                        op["side"] = json!(s.id);
                    }
                }
            }
            d
        }
        None => Value::Null,
    };
    Outcome {
        resolution: Resolution {
            action: name,
            summary: r
                .summary
                .iter()
                .map(|s| s.trim_end_matches('.'))
                .collect::<Vec<_>>()
                .join("; "),
            steps: r.steps,
        },
        effects,
        facets: r.facets,
    }
}

impl Engine for EcwEngine {
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
        Ok(game::plan(&st, action)?.map(move |r| outcome(name.clone(), before.clone(), r)))
    }

    fn preview(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection> {
        let Some(v) = state else {
            return standalone(action);
        };
        let st = state_of(v)?;
        let name = action_name(action);
        match name.as_str() {
            "deal" => {
                return Err(Rejection::new("no-odds", Some("action"), "the deal shuffles the decks: it has no odds to show"))
            }
            "draw_chaunce" => {
                return Err(Rejection::new("no-odds", Some("action"), "the Chaunce pack is face down: its odds are the cards not yet drawn (see the board)"))
            }
            _ => {}
        }
        let plan = game::plan(&st, action)?;
        // A melee announced: show the melee itself, with no answer from the defender.
        if name == "melee" {
            if let Plan::Done(r) = &plan {
                if r.st.phase == Phase::Window {
                    let p = game::plan(&r.st, &json!({"action": "respond", "response": "none"}))?;
                    return Ok(p.map(move |r| outcome(name.clone(), None, r)));
                }
            }
        }
        Ok(plan.map(move |r| outcome(name.clone(), None, r)))
    }

    fn apply(&self, state: &mut Value, effects: &Value) -> Result<(), String> {
        game::apply(state, effects)
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
            Err(e) => format!("unreadable state: {}", e.message),
        }
    }

    fn acting_side(&self, state: &Value, action: &Value) -> Option<String> {
        let st = state_of(state).ok()?;
        game::acting_side(&st, action).map(|i| st.sides[i].id.clone())
    }

    fn scores(&self, state: &Value) -> Vec<SideScore> {
        let Ok(st) = state_of(state) else {
            return Vec::new();
        };
        (0..st.sides.len().min(2))
            .map(|i| SideScore {
                side: st.sides[i].id.clone(),
                lost: st.sides[1 - i].banners,
                threshold: st.sides[1 - i].banners_to_win,
            })
            .collect()
    }

    fn views_differ(&self) -> bool {
        true
    }

    fn view_state(&self, state: &Value, viewer: &Viewer) -> Value {
        let Ok(st) = state_of(state) else {
            return Value::Null;
        };
        serde_json::to_value(view(&st, viewer)).unwrap_or(Value::Null)
    }

    fn view_event(&self, event: &Value, viewer: &Viewer) -> Option<Value> {
        let mut e = event.clone();
        let own = match viewer {
            Viewer::Side(s) => Some(s.clone()),
            _ => None,
        };
        let action = e["action"]["action"].as_str().unwrap_or("").to_string();
        if action == "deal" {
            // The shuffle key's dice would give away every card.
            e["draws"] = json!([]);
        }
        let mine = |op: &Value| own.is_some() && op["side"].as_str() == own.as_deref();
        let keeper = e["effects"].as_array().is_some_and(|ops| {
            ops.iter()
                .any(|op| mine(op) && game::secret_path(op["p"].as_str().unwrap_or("")).is_some())
        });
        if let Some(ops) = e["effects"].as_array_mut() {
            // Secret values: the hands, tracks and scouted pairs to their side only (each
            // effect names the side it belongs to); the decks' order and the key to nobody.
            ops.retain(
                |op| match game::secret_path(op["p"].as_str().unwrap_or("")) {
                    None => true,
                    Some(None) => false,
                    Some(Some(_)) => mine(op),
                },
            );
        }
        // The scouted card kept is secret; the one discarded shows in the discards.
        if action == "keep" && !keeper {
            e["action"]["card"] = json!("(hidden)");
        }
        // Which of the hand's cards went onto the Stand of Pikes track is the defender's.
        if !keeper {
            if let Some(d) = e["draws"].as_array_mut() {
                d.retain(|x| x["label"] != "Stand of Pikes card");
            }
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
        // Shuffles, Chaunce draws and random picks, and the Stand of Pikes card (design 13.1).
        match action["action"].as_str().unwrap_or("") {
            "deal" | "draw_chaunce" | "resolve_chaunce" => true,
            "respond" => action["response"] == "stand-of-pikes",
            _ => false,
        }
    }

    fn verdict(&self, state: &Value) -> Option<String> {
        let st = state_of(state).ok()?;
        st.winner.map(|_| game::verdict(&st))
    }

    fn game_master_may(&self, state: &Value, action: &Value) -> Result<(), Rejection> {
        let Ok(st) = state_of(state) else {
            return Ok(());
        };
        if st.settings.single_device || st.settings.referee_sees_hands {
            return Ok(());
        }
        let name = action_name(action);
        let hand = match name.as_str() {
            "play" | "keep" => true,
            // Keeping the hand after a replaced turn reveals nothing.
            "swap" => action.get("card").is_some_and(|c| !c.is_null() && c != ""),
            "respond" => action
                .get("response")
                .and_then(Value::as_str)
                .is_some_and(|r| r != "none"),
            _ => false,
        };
        if hand {
            return Err(Rejection::new(
                "hand-is-secret",
                Some("action"),
                "the game master does not see the hands (decision 44): each side plays its own cards on its own link; deal with hands = single-device, or referee_sees_hands, to play them from this link",
            ));
        }
        Ok(())
    }
}

/// What a viewer may see of the state (design 10).
pub fn view(st: &State, viewer: &Viewer) -> State {
    // Even a decided battle keeps its secrets until the game master ends the game (an undo can
    // take the last banner back); the shell then shows everything with the seed.
    let mut v = st.clone();
    v.deck = Vec::new();
    v.pack = Vec::new();
    v.salt = 0;
    for (i, s) in v.sides.iter_mut().enumerate() {
        let sees = match viewer {
            Viewer::GameMaster => st.settings.single_device || st.settings.referee_sees_hands,
            Viewer::Side(x) => *x == st.sides[i].id,
            Viewer::Spectator => false,
        };
        if !sees {
            s.hidden = Some(s.hand.len() as u32);
            s.hand = Vec::new();
            for t in &mut s.track {
                t.0 = u8::MAX;
            }
            if !s.scout.is_empty() {
                s.scout = vec![u8::MAX; s.scout.len()];
            }
        }
    }
    v
}

/// The stand-alone actions: one battle roll, or one melee with its battle back (design 9).
fn standalone(action: &Value) -> Result<Plan<Outcome>, Rejection> {
    let name = action_name(action);
    let mut a = action.clone();
    if let Some(o) = a.as_object_mut() {
        o.remove("action");
    }
    let bad = |e: serde_json::Error| Rejection::new("bad-action", None, e.to_string());
    match name.as_str() {
        "battle" => resolve::plan(&serde_json::from_value::<BattleRequest>(a).map_err(bad)?),
        "melee" => resolve::melee(&serde_json::from_value::<MeleeRequest>(a).map_err(bad)?),
        _ => Err(Rejection::new(
            "needs-a-game",
            Some("action"),
            "without a game only `battle` and `melee` can be resolved; the rest needs a game",
        )),
    }
}

// ------------------------------------------------------------------------------------------------
// The board.

fn class_name(c: Class) -> &'static str {
    match c {
        Class::Foot => "FT",
        Class::Clubmen => "CL",
        Class::Cuirassiers => "CU",
        Class::Trotters => "TR",
        Class::Gallopers => "GA",
        Class::Dragoons => "DR",
        Class::Artillery => "AR",
    }
}

fn training_name(t: Training) -> &'static str {
    match t {
        Training::Veteran => "veteran",
        Training::Trained => "trained",
        Training::Raw => "raw",
        Training::Militia => "militia",
    }
}

fn unit_label(u: &UnitState) -> String {
    let mut k = class_name(u.class).to_string();
    if u.class == Class::Foot && !u.pikes {
        k.push_str(" shot");
    }
    if u.class == Class::Dragoons {
        k.push_str(if u.mounted { " mounted" } else { " on foot" });
    }
    if u.rash {
        k.push_str(" rash");
    }
    k
}

/// The side whose hand the shared device shows now: the defender in a window, the opponent
/// picking for The Dizziness, else the side to play.
fn hand_owner(st: &State) -> usize {
    match st.phase {
        Phase::Window => st
            .window
            .as_ref()
            .and_then(|w| st.units.iter().find(|u| u.id == w.target))
            .map_or(st.active, |u| u.side),
        Phase::Dizziness => 1 - st.active,
        _ => st.active,
    }
}

fn reveal_prompt(st: &State, side: usize) -> Option<String> {
    st.settings.single_device.then(|| {
        format!(
            "{} — pass the device; tap to reveal your hand",
            st.sides[side].name
        )
    })
}

pub fn board(st: &State) -> Board {
    let headline = if st.phase == Phase::Over {
        format!("Game over: {}", game::verdict(st))
    } else if st.phase == Phase::Deal {
        "Before the battle: the game master deals the cards".to_string()
    } else {
        format!("Turn {} — {} to play", st.turn, st.sides[st.active].name)
    };
    let mut notes = vec![game::waiting_for(st)];
    if let Some(c) = &st.card {
        let name = command_kind(c.card).name;
        let eff = tables::command_card(&c.effective)
            .map_or("1 unit or leader of your choice", |k| k.name);
        let orders: Vec<String> = c
            .orders
            .iter()
            .map(|(id, s)| {
                let n = st
                    .units
                    .iter()
                    .find(|u| &u.id == id)
                    .map(|u| u.name.clone())
                    .or_else(|| {
                        st.leaders
                            .iter()
                            .find(|l| &l.id == id)
                            .map(|l| l.name.clone())
                    })
                    .unwrap_or(id.clone());
                match s {
                    Some(s) => format!("{n} ({})", s.name()),
                    None => n,
                }
            })
            .collect();
        notes.push(format!(
            "Card in play: {name}{}. Ordered: {}",
            if eff != name {
                format!(" (as {eff})")
            } else {
                String::new()
            },
            if orders.is_empty() {
                "none yet".into()
            } else {
                orders.join(", ")
            }
        ));
        if let Some([f, h, a, fl]) = c.pool {
            notes.push(format!(
                "Still to order: {f} foot, {h} horse, {a} artillery, {fl} of your choice"
            ));
        }
        if let Some([f, h, a]) = c.rally {
            notes.push(format!(
                "Blocks still to return: {f} foot, {h} horse, {a} artillery"
            ));
        }
    }
    if let Some(w) = &st.window {
        let n = |id: &str| {
            st.units
                .iter()
                .find(|u| u.id == id)
                .map_or(id.to_string(), |u| u.name.clone())
        };
        notes.push(format!(
            "Melee announced: {} against {}",
            n(&w.attacker),
            n(&w.target)
        ));
    }
    if let Some(c) = &st.chase {
        let n = st
            .units
            .iter()
            .find(|u| u.id == c.unit)
            .map_or(c.unit.clone(), |u| u.name.clone());
        notes.push(format!(
            "Breakthrough: {n} may advance and make a bonus melee{}",
            if c.compelled {
                " — it is rash and out of control: it must if it can"
            } else {
                ""
            }
        ));
    }
    if st.rain > 0 {
        notes.push(format!(
            "St. Swithun's rain: no ranged combat for {} more player-turn(s)",
            st.rain
        ));
    }
    for c in st.chronicle.iter().rev().take(4) {
        notes.push(c.clone());
    }
    let mut tables = vec![BoardTable::new(
        "Sides",
        &[
            "Side",
            "Banners",
            "Cards in hand",
            "Stand of Pikes track",
            "Chaunce due",
            "Last card",
        ],
        st.sides
            .iter()
            .map(|s| {
                vec![
                    s.name.clone(),
                    format!("{} / {}", s.banners, s.banners_to_win),
                    format!(
                        "{} (limit {})",
                        s.hidden.unwrap_or(s.hand.len() as u32),
                        s.hand_limit
                    ),
                    s.track
                        .iter()
                        .map(|(_, u)| {
                            st.units
                                .iter()
                                .find(|x| &x.id == u)
                                .map_or(u.clone(), |x| x.name.clone())
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                    s.chaunce_due.to_string(),
                    s.last_card
                        .as_deref()
                        .and_then(tables::command_card)
                        .map_or("—".into(), |c| c.name.to_string()),
                ]
            })
            .collect(),
    )];
    // The hands this view holds.
    let shown: Vec<usize> = if st.settings.single_device {
        vec![hand_owner(st)]
    } else {
        (0..st.sides.len()).collect()
    };
    for i in shown {
        let s = &st.sides[i];
        if s.hidden.is_some() || st.phase == Phase::Deal {
            continue;
        }
        let mut rows: Vec<Vec<String>> = s
            .hand
            .iter()
            .map(|&c| {
                let k = command_kind(c);
                vec![k.name.to_string(), k.text.to_string()]
            })
            .collect();
        for (c, u) in &s.track {
            rows.push(vec![
                format!("{} (on the track)", command_kind(*c).name),
                format!(
                    "held by the Stand of Pikes of {}",
                    st.units
                        .iter()
                        .find(|x| &x.id == u)
                        .map_or(u.as_str(), |x| x.name.as_str())
                ),
            ]);
        }
        for &c in &s.scout {
            rows.push(vec![
                format!("{} (scouted)", command_kind(c).name),
                "keep one of the two".into(),
            ]);
        }
        let mut t = BoardTable::new(
            &format!("{}: hand", s.name),
            &["Card", "What it does"],
            rows,
        );
        t.reveal = reveal_prompt(st, i);
        tables.push(t);
        let mut odds = BoardTable::new(
            &format!(
                "{}: next draw (from the cards this side has not seen; decision 45)",
                s.name
            ),
            &["Card", "Chance"],
            next_draw(st, i),
        );
        odds.reveal = reveal_prompt(st, i);
        tables.push(odds);
    }
    for (i, s) in st.sides.iter().enumerate() {
        let rows = st
            .units
            .iter()
            .filter(|u| u.side == i)
            .map(|u| {
                let leader = st
                    .leaders
                    .iter()
                    .find(|l| l.gone.is_none() && l.unit.as_deref() == Some(&u.id))
                    .map_or(String::new(), |l| l.name.clone());
                let mut state = Vec::new();
                if let Some(g) = &u.gone {
                    state.push(format!("lost: {g}"));
                } else if u.spare {
                    state.push("in reserve (We're Back)".into());
                } else {
                    if u.stand {
                        state.push("Stand of Pikes".into());
                    }
                    if u.ordered {
                        state.push("ordered".into());
                    }
                    if u.moves > 0 {
                        state.push(format!("moved {}", u.moved));
                    }
                    if u.fired {
                        state.push("fired".into());
                    }
                    if u.meleed > 0 {
                        state.push("meleed".into());
                    }
                }
                let mut marks = Vec::new();
                if u.chaunce_bonus != 0 {
                    marks.push(format!("{:+} die (Chaunce)", u.chaunce_bonus));
                }
                if u.no_orders_until_leader {
                    marks.push("no orders until a leader joins".into());
                }
                if u.no_move_turns > 0 {
                    marks.push("cannot move this turn".into());
                }
                if u.no_fire_turns > 0 {
                    marks.push("cannot fire this turn".into());
                }
                if u.no_fire {
                    marks.push("no fire".into());
                }
                vec![
                    u.id.clone(),
                    u.name.clone(),
                    unit_label(u),
                    training_name(u.training).into(),
                    format!("{} / {}", u.blocks, u.start_blocks),
                    u.section.name().into(),
                    leader,
                    state.join(", "),
                    marks.join(", "),
                ]
            })
            .collect();
        tables.push(BoardTable::new(
            &format!("{} — units", s.name),
            &[
                "Id",
                "Unit",
                "Class",
                "Training",
                "Blocks",
                "Section",
                "Leader",
                "This turn",
                "Markers",
            ],
            rows,
        ));
    }
    tables.push(BoardTable::new(
        "Leaders",
        &["Id", "Leader", "Side", "With", "Status"],
        st.leaders
            .iter()
            .map(|l| {
                vec![
                    l.id.clone(),
                    l.name.clone(),
                    st.sides[l.side].name.clone(),
                    l.unit
                        .as_deref()
                        .and_then(|u| st.units.iter().find(|x| x.id == u))
                        .map_or("alone".into(), |u| u.name.clone()),
                    match &l.gone {
                        Some(g) => format!("lost: {g}"),
                        None if l.ordered => "ordered".into(),
                        None => String::new(),
                    },
                ]
            })
            .collect(),
    ));
    tables.push(BoardTable::new(
        "Decks",
        &["Pile", "Cards", "Top (newest first)"],
        vec![
            vec![
                "Command deck".into(),
                st.deck_count.to_string(),
                "face down".into(),
            ],
            vec![
                "Command discards".into(),
                st.discard.len().to_string(),
                st.discard
                    .iter()
                    .rev()
                    .take(5)
                    .map(|&c| command_kind(c).name)
                    .collect::<Vec<_>>()
                    .join(", "),
            ],
            vec![
                "Chaunce pack".into(),
                st.pack_count.to_string(),
                "face down".into(),
            ],
            vec![
                "Chaunce discards".into(),
                st.pack_discard.len().to_string(),
                st.pack_discard
                    .iter()
                    .rev()
                    .take(5)
                    .map(|&c| game::chaunce_of(c).name)
                    .collect::<Vec<_>>()
                    .join(", "),
            ],
        ],
    ));
    Board {
        headline,
        notes,
        tables,
    }
}

/// The chance of each kind of command card on the next draw, over the cards `side` has not seen:
/// the 72 less its hand, its track, its scouted pair and the face-up discards (decision 45).
fn next_draw(st: &State, side: usize) -> Vec<Vec<String>> {
    let mut seen = vec![0u32; 72];
    let s = &st.sides[side];
    for &c in s
        .hand
        .iter()
        .chain(s.track.iter().map(|(c, _)| c))
        .chain(s.scout.iter())
        .chain(st.discard.iter())
    {
        if let Some(x) = seen.get_mut(usize::from(c)) {
            *x += 1;
        }
    }
    let unseen: Vec<u8> = (0..72u8).filter(|&c| seen[usize::from(c)] == 0).collect();
    let total = unseen.len().max(1) as f64;
    COMMAND_CARDS
        .iter()
        .filter_map(|k| {
            let n = unseen
                .iter()
                .filter(|&&c| command_kind(c).id == k.id)
                .count();
            (n > 0).then(|| {
                vec![
                    k.name.to_string(),
                    format!("{:.1}% ({n} of {})", 100.0 * n as f64 / total, unseen.len()),
                ]
            })
        })
        .collect()
}

// ------------------------------------------------------------------------------------------------
// Forms.

fn primary(f: ActionForm) -> ActionForm {
    f.primary()
}

fn numbers(name: &str, label: &str, lo: u32, hi: u32) -> FormField {
    FormField::choice(
        name,
        label,
        (lo..=hi)
            .map(|n| Choice::new(n.to_string(), n.to_string()))
            .collect(),
        true,
    )
}

pub fn forms(st: &State, side: Option<&str>) -> Vec<ActionForm> {
    let gm = side.is_none();
    let mut out = Vec::new();
    if st.phase == Phase::Deal {
        if gm {
            out.push(primary(ActionForm::new(
                "deal",
                "Deal the cards",
                "Shuffles the command deck and the Chaunce pack from the game's dice and deals each side its hand.",
                vec![
                    FormField::choice("hands", "Hands", vec![Choice::new("per-seat", "each player on their own link"), Choice::new("single-device", "one device for both (hands behind a tap)")], false),
                    FormField::flag("referee_sees_hands", "a neutral game master sees the hands"),
                ],
                false,
            )));
        }
        return out;
    }
    if st.phase == Phase::Over {
        return out;
    }
    let idx = |id: &str| st.sides.iter().position(|s| s.id == id);
    let me = side.and_then(idx);
    let acting = match st.phase {
        Phase::Window => hand_owner(st),
        Phase::Dizziness => 1 - st.active,
        _ => st.active,
    };
    if gm {
        out.push(ActionForm::new(
            "objective",
            "Objective banner",
            "A scenario objective gained (+1) or lost (-1) by a side (design 8).",
            vec![
                FormField::choice(
                    "side",
                    "Side",
                    st.sides
                        .iter()
                        .map(|s| Choice::new(s.id.clone(), s.name.clone()))
                        .collect(),
                    false,
                ),
                FormField::choice(
                    "banners",
                    "Banners",
                    vec![Choice::new("1", "+1"), Choice::new("-1", "-1")],
                    false,
                ),
                FormField::text("hex", "Objective", "the hex's name"),
            ],
            false,
        ));
    }
    if !(gm || me == Some(acting)) {
        return out;
    }
    let s = &st.sides[acting];
    let hand_seen = s.hidden.is_none();
    let secret = |mut f: ActionForm| {
        f.reveal = reveal_prompt(st, acting);
        f
    };
    let own_units: Vec<&UnitState> = st
        .units
        .iter()
        .filter(|u| u.side == acting && u.gone.is_none() && !u.spare)
        .collect();
    let unit_choice = |name: &str, label: &str, us: &[&UnitState]| {
        FormField::choice(
            name,
            label,
            us.iter()
                .map(|u| {
                    Choice::new(
                        u.id.clone(),
                        format!("{} ({}, {} blocks)", u.name, unit_label(u), u.blocks),
                    )
                })
                .collect(),
            false,
        )
    };
    let enemies: Vec<&UnitState> = st
        .units
        .iter()
        .filter(|u| u.side != acting && u.gone.is_none() && !u.spare)
        .collect();
    match st.phase {
        Phase::Chaunce => out.push(primary(ActionForm::new(
            "draw_chaunce",
            "Take the Chaunce card",
            "The top card of the Chaunce pack, presented by the opponent.",
            vec![],
            false,
        ))),
        Phase::ChaunceResolve => {
            let card = st.chaunce.map(game::chaunce_of);
            let pending = st.pending.is_some();
            let id = card.map_or("", |c| c.id);
            let mut fields = Vec::new();
            if id == "fumblethumbs" {
                fields.push(numbers(
                    "room",
                    "Hexes the foot can retreat (empty: room enough)",
                    0,
                    6,
                ));
            } else if pending {
                let q = game::second_question(id).unwrap_or("the answer");
                fields.push(FormField::text(
                    "target",
                    &format!("Name {q}"),
                    "ids separated by commas",
                ));
            } else {
                let q = game::needs_candidates(id).unwrap_or("the candidates");
                fields.push(FormField::text(
                    "candidates",
                    &format!("List {q}"),
                    "ids or names separated by commas",
                ));
            }
            out.push(primary(ActionForm::new(
                "resolve_chaunce",
                &format!("Resolve {}", card.map_or("the Chaunce card", |c| c.name)),
                card.map_or("", |c| c.text),
                fields,
                true,
            )));
        }
        Phase::Swap if hand_seen => {
            out.push(secret(primary(ActionForm::new(
                "swap",
                "Swap a command card (or keep the hand)",
                "After a Chaunce card that replaced the turn you may discard one command card and draw another (004).",
                vec![FormField::choice("card", "Discard", hand_choices(&s.hand), true)],
                false,
            ))));
        }
        Phase::Swap => out.push(primary(ActionForm::new(
            "swap",
            "Keep the hand",
            "No swap: the other side's turn.",
            vec![],
            false,
        ))),
        Phase::Command if hand_seen => {
            // Evade answers a melee; it is not played on one's own turn.
            let playable: Vec<u8> = s
                .hand
                .iter()
                .copied()
                .filter(|&c| command_kind(c).id != "evade")
                .collect();
            let mut fields = vec![FormField::choice(
                "card",
                "Card",
                hand_choices(&playable),
                false,
            )];
            if s.hand
                .iter()
                .any(|&c| command_kind(c).id == "hazzard-a-chaunce")
            {
                fields.push(FormField::choice(
                    "mode",
                    "Hazzard a Chaunce",
                    vec![
                        Choice::new("order", "order 1 unit or leader"),
                        Choice::new("present", "present it: the opponent takes a Chaunce card"),
                    ],
                    true,
                ));
            }
            out.push(secret(primary(ActionForm::new(
                "play",
                "Play a command card",
                "Played face up; it orders the units it names (004, COMMAND CARDS).",
                fields,
                true,
            ))));
        }
        Phase::Orders => {
            let c = st.card.as_ref();
            let open = c.is_some_and(|c| !c.moving && !c.combat);
            if open && c.is_some_and(|c| c.rally.is_none() || c.pool.is_some()) {
                // Only what the card can order now (in a section it names, of a type it takes).
                let may = |id: &str| {
                    let probe = |extra: Value| {
                        let mut a = json!({"action": "order", "unit": id});
                        if let (Some(o), Some(x)) = (a.as_object_mut(), extra.as_object()) {
                            o.extend(x.clone());
                        }
                        game::plan(st, &a).is_ok()
                    };
                    probe(json!({}))
                        || probe(json!({"adjacent_enemy": true}))
                        || ["left", "centre", "right"]
                            .iter()
                            .any(|s| probe(json!({"section": s})))
                };
                let mut choices: Vec<Choice> = own_units
                    .iter()
                    .filter(|u| !u.ordered && may(&u.id))
                    .map(|u| {
                        Choice::new(
                            u.id.clone(),
                            format!("{} ({}, {})", u.name, unit_label(u), u.section.name()),
                        )
                    })
                    .collect();
                choices.extend(
                    st.leaders
                        .iter()
                        .filter(|l| {
                            l.side == acting && l.gone.is_none() && !l.ordered && may(&l.id)
                        })
                        .map(|l| Choice::new(l.id.clone(), format!("{} (leader)", l.name))),
                );
                out.push(ActionForm::new(
                    "order",
                    "Order a unit or leader",
                    "One at a time, before any move or battle.",
                    vec![
                        FormField::choice("unit", "Unit or leader", choices, false),
                        FormField::choice(
                            "section",
                            "Section (on a section line)",
                            ["left", "centre", "right"]
                                .iter()
                                .map(|x| Choice::new(*x, *x))
                                .collect(),
                            true,
                        ),
                        FormField::flag("adjacent_enemy", "adjacent to the enemy"),
                    ],
                    false,
                ));
            }
            if c.is_some_and(|c| c.rally.is_some_and(|r| r.iter().any(|&n| n > 0))) {
                let under: Vec<&UnitState> = own_units
                    .iter()
                    .copied()
                    .filter(|u| u.blocks < u.start_blocks)
                    .collect();
                out.push(ActionForm::new(
                    "rally",
                    "Rallye: return a block",
                    "One block of the symbol's type to an under-strength unit, which is ordered.",
                    vec![unit_choice("unit", "Unit", &under)],
                    false,
                ));
            }
            let ordered: Vec<&UnitState> =
                own_units.iter().copied().filter(|u| u.ordered).collect();
            let combat = c.is_some_and(|c| c.combat);
            let second_move = c.is_some_and(|c| c.effective == "bold-dragooneers")
                && ordered
                    .iter()
                    .any(|u| u.class == Class::Dragoons && u.fired && u.moves < 2);
            if (!combat || second_move)
                && (!ordered.is_empty() || st.leaders.iter().any(|l| l.side == acting && l.ordered))
            {
                let mut movers: Vec<Choice> = ordered
                    .iter()
                    .map(|u| Choice::new(u.id.clone(), format!("{} ({})", u.name, unit_label(u))))
                    .collect();
                movers.extend(
                    st.leaders
                        .iter()
                        .filter(|l| l.side == acting && l.ordered && l.gone.is_none())
                        .map(|l| Choice::new(l.id.clone(), format!("{} (leader)", l.name))),
                );
                out.push(ActionForm::new(
                    "move",
                    "Move",
                    "The hexes moved on the mat; Tercio checks the allowance.",
                    vec![
                        FormField::choice("unit", "Unit or leader", movers, false),
                        FormField::number("hexes", "Hexes", 0, 3, 1),
                        FormField::flag("mount", "mount (dragoons)"),
                        FormField::flag("dismount", "dismount (dragoons)"),
                        FormField::flag("leave_stand", "leave Stand of Pikes"),
                        FormField::choice(
                            "join",
                            "Leader joins",
                            own_units
                                .iter()
                                .map(|u| Choice::new(u.id.clone(), u.name.clone()))
                                .collect(),
                            true,
                        ),
                    ],
                    false,
                ));
                let mut fighters: Vec<&UnitState> = ordered.clone();
                if let Some(ch) = &st.chase {
                    if let Some(u) = st.units.iter().find(|u| u.id == ch.unit) {
                        if !fighters.iter().any(|x| x.id == u.id) {
                            fighters.push(u);
                        }
                    }
                }
                let shooters: Vec<&UnitState> = ordered
                    .iter()
                    .copied()
                    .filter(|u| {
                        matches!(u.class, Class::Foot | Class::Dragoons | Class::Artillery)
                            && !u.fired
                            && u.meleed == 0
                    })
                    .collect();
                if !shooters.is_empty() {
                    out.push(ActionForm::new(
                        "fire",
                        "Ranged combat",
                        "Foot and dismounted dragoons at 1-2 hexes, artillery at 2-5.",
                        vec![
                            unit_choice("unit", "Unit", &shooters),
                            unit_choice("target", "Target", &enemies),
                            FormField::number("range", "Range (hexes)", 1, 5, 2),
                            FormField::number("terrain", "Terrain dice reduction", 0, 3, 0),
                            numbers("target_room", "Hexes the target can retreat", 0, 6),
                            FormField::number(
                                "target_ignores",
                                "Flags its terrain lets it ignore",
                                0,
                                2,
                                0,
                            ),
                            FormField::flag("adjacent_enemy", "the firer is adjacent to an enemy"),
                        ],
                        true,
                    ));
                }
                let attackers: Vec<&UnitState> = fighters
                    .iter()
                    .copied()
                    .filter(|u| u.class != Class::Artillery)
                    .collect();
                if !attackers.is_empty() {
                    let mut targets: Vec<Choice> = enemies
                        .iter()
                        .map(|u| {
                            Choice::new(
                                u.id.clone(),
                                format!("{} ({}, {} blocks)", u.name, unit_label(u), u.blocks),
                            )
                        })
                        .collect();
                    targets.extend(
                        st.leaders
                            .iter()
                            .filter(|l| l.side != acting && l.gone.is_none() && l.unit.is_none())
                            .map(|l| {
                                Choice::new(l.id.clone(), format!("{} (leader alone)", l.name))
                            }),
                    );
                    out.push(ActionForm::new(
                        "melee",
                        "Melee",
                        "Announces the attack: the defender answers first (Evade, Stand of Pikes, Retire and Reform).",
                        vec![
                            unit_choice("unit", "Attacker", &attackers),
                            FormField::choice("target", "Target", targets, false),
                            FormField::number("terrain", "Terrain dice reduction", 0, 3, 0),
                            FormField::number("battle_back_terrain", "Terrain reduction of the battle back", 0, 3, 0),
                            numbers("target_room", "Hexes the target can retreat", 0, 6),
                            numbers("attacker_room", "Hexes the attacker can retreat", 0, 6),
                            FormField::number("target_ignores", "Flags its terrain lets it ignore", 0, 2, 0),
                        ],
                        true,
                    ));
                }
            }
            if let Some(ch) = &st.chase {
                let u = st.units.iter().find(|u| u.id == ch.unit);
                if u.is_some_and(|u| u.rash) && !ch.control_rolled {
                    out.push(ActionForm::new("control", "Control the rash unit", "One die: Cavalry or Flag (Sabres too with a leader) brings it under control (004, Horse).", vec![FormField::choice("unit", "Unit", vec![Choice::new(ch.unit.clone(), u.map_or(ch.unit.clone(), |u| u.name.clone()))], false)], true));
                }
                out.push(ActionForm::new(
                    "stop",
                    "End the breakthrough",
                    "No (further) bonus melee.",
                    vec![FormField::flag(
                        "no_target",
                        "no enemy in reach outside villages, woods and earthworks",
                    )],
                    false,
                ));
            }
            if !st.chase.as_ref().is_some_and(|c| c.compelled) {
                out.push(ActionForm::new(
                    "end_turn",
                    "End the turn",
                    "The draw phase, then the other side plays.",
                    vec![],
                    false,
                ));
            }
        }
        Phase::Window => {
            let mut opts = game::responses(st);
            if !hand_seen {
                opts.retain(|o| *o == "none");
            }
            let label = |o: &str| match o {
                "evade" => "Evade (play the card)",
                "stand-of-pikes" => "Form a Stand of Pikes",
                "retire" => "Retire and Reform",
                _ => "No response: fight",
            };
            let f = ActionForm::new(
                "respond",
                "Answer the melee",
                "Before any die is rolled (decision 43).",
                vec![FormField::choice(
                    "response",
                    "Response",
                    opts.iter().map(|o| Choice::new(*o, label(o))).collect(),
                    false,
                )],
                true,
            );
            if hand_seen {
                out.push(secret(primary(f)));
            } else {
                // The game master cannot see the defender's hand: he may only close a window the
                // defender leaves unanswered.
                out.push(ActionForm::new(
                    "respond",
                    "Close the window: the defender did not answer",
                    "The defender answers on its own link; use this only if it does not.",
                    vec![FormField::choice(
                        "response",
                        "Response",
                        vec![Choice::new("none", label("none"))],
                        false,
                    )],
                    true,
                ));
            }
        }
        Phase::Scout if hand_seen => {
            out.push(secret(primary(ActionForm::new(
                "keep",
                "Keep one scouted card",
                "The other goes face up to the discards.",
                vec![FormField::choice(
                    "card",
                    "Keep",
                    hand_choices(&s.scout),
                    false,
                )],
                false,
            ))));
        }
        Phase::Dizziness => {
            let n = st.sides[st.active]
                .hidden
                .unwrap_or(st.sides[st.active].hand.len() as u32);
            out.push(primary(ActionForm::new(
                "dizzy_pick",
                "Pick one of the opponent's cards, unseen",
                "It goes face up to the discards; they hold one card less from now on.",
                vec![FormField::number(
                    "position",
                    "Card (from the left)",
                    1,
                    i64::from(n.max(1)),
                    1,
                )],
                false,
            )));
        }
        _ => {}
    }
    out
}

fn hand_choices(hand: &[u8]) -> Vec<Choice> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for &c in hand {
        let k = command_kind(c);
        if !seen.contains(&k.id) {
            seen.push(k.id);
            out.push(Choice::new(k.id, k.name));
        }
    }
    out
}

// ------------------------------------------------------------------------------------------------
// The charts as tables.

fn reference_tables() -> Vec<BoardTable> {
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
