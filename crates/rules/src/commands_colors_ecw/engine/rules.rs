//! The engine of a game or of a stand-alone action: plans, the fold of effects, and each seat's
//! view of the hands and of the log.

use super::*;

pub struct EcwEngine {
    pub(super) scenario: Option<Scenario>,
}

pub(super) fn state_of(v: &Value) -> Result<State, Rejection> {
    serde::Deserialize::deserialize(v).map_err(|e| {
        Rejection::new(
            "bad-state",
            None,
            format!("the game state cannot be read: {e}"),
        )
    })
}

pub(super) fn action_name(a: &Value) -> String {
    a.get("action")
        .and_then(Value::as_str)
        .unwrap_or("action")
        .to_string()
}

pub(super) fn outcome(name: String, before: Option<Value>, r: Res) -> Outcome {
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
pub(super) fn standalone(action: &Value) -> Result<Plan<Outcome>, Rejection> {
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
