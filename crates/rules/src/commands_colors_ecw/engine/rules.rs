//! The engine of a game or of a stand-alone action: plans, the fold of effects, and each seat's
//! view of the hands and of the log.

use super::*;

pub struct EcwEngine {
    pub(super) scenario: Option<Scenario>,
}

/// The outcome of a resolution: its effects are the difference between the state before (when
/// the plan is to be applied) and the state after, as JSON-pointer patches ([`game::diff`]).
pub(super) fn outcome(name: String, before: Option<&Value>, r: Res) -> Outcome {
    let mut effects = crate::effects::since(before, &r.st);
    // Each change to a side's own values names the side, for the per-seat views.
    for op in effects.as_array_mut().into_iter().flatten() {
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

impl Rules for EcwEngine {
    /// A combat is decided by whether the target (then the attacker, battling back) is
    /// eliminated, then by the blocks it loses.
    const HEADLINE_FACETS: &'static [&'static str] = &[
        "ecw.facet.eliminated",
        "ecw.facet.defender-eliminated",
        "ecw.facet.blocks-lost",
        "ecw.facet.defender-blocks-lost",
    ];
    const LOSS_FACETS: &'static [&'static str] = &[
        "ecw.facet.blocks-lost",
        "ecw.facet.defender-blocks-lost",
        "ecw.facet.attacker-blocks-lost",
        "ecw.facet.retreat-hexes",
        "ecw.facet.defender-retreat-hexes",
        "ecw.facet.attacker-retreat-hexes",
    ];
    const ACTION_TITLES: Option<&'static str> = Some("ecw.action.");
    /// `phase` is `over` exactly when the battle is.
    const OVER_AT_PHASE: bool = true;
    type State = State;
    type Action = Sent;
    /// The recorded form: `[{"p": pointer, "v": value, "side"?: id}]` ([`game::diff`]).
    type Effect = Value;
    /// Stand-alone, `melee` and `battle` name their units inline ([`super::standalone`]).
    type Request = Sent;

    fn initial_state(&self) -> Result<State, String> {
        let sc = self.scenario.as_ref().ok_or("no scenario")?;
        game::initial(sc)
    }

    fn plan(&self, st: &State, a: &Sent) -> Result<Plan<Outcome>, Rejection> {
        let before = serde_json::to_value(st).ok();
        let name = a.name.clone();
        Ok(game::plan(st, &a.action)?.map(move |r| outcome(name.clone(), before.as_ref(), r)))
    }

    /// The plan's own refusal, without writing the state out for the outcome's changes.
    fn refusal(&self, st: &State, a: &Sent) -> Option<Rejection> {
        game::plan(st, &a.action).err()
    }

    fn standalone(&self, a: &Sent) -> Result<Plan<Outcome>, Rejection> {
        standalone(&a.action)
    }

    fn preview(&self, st: &State, a: &Sent) -> Result<Plan<Outcome>, Rejection> {
        let name = a.name.clone();
        match a.action {
            Action::Deal { .. } => {
                return Err(Rejection::new(
                    "no-odds",
                    Some("action"),
                    k("ecw.reject.deal-no-odds"),
                ))
            }
            Action::DrawChaunce {} => {
                // The turn's own refusals first (out of phase, not dealt, over); then the odds
                // from the public pack, never its hidden order (decision 58).
                game::plan(st, &a.action)?;
                let plan = game::chaunce_odds(st)?;
                return Ok(plan.map(move |r| outcome(name.clone(), None, r)));
            }
            _ => {}
        }
        let plan = game::plan(st, &a.action)?;
        // A melee announced: show the melee itself, with no answer from the defender.
        if let Action::Melee { .. } = a.action {
            if let Plan::Done(r) = &plan {
                if r.st.phase == Phase::Window {
                    let p = game::plan(&r.st, &Action::Respond { response: None })?;
                    return Ok(p.map(move |r| outcome(name.clone(), None, r)));
                }
            }
        }
        Ok(plan.map(move |r| outcome(name.clone(), None, r)))
    }

    fn apply(&self, state: &mut State, effects: &Value) -> Result<(), String> {
        // Not the path the shell takes (see `apply_recorded`): patch the state's JSON.
        crate::effects::apply_typed(state, effects)
    }

    /// The effects are patches of the recorded JSON: folded there, in place, as before the
    /// typed trait.
    const EFFECTS_ARE_PATCHES: bool = true;
    const EVENTS_DIFFER: bool = true;

    fn is_over(&self, st: &State) -> bool {
        st.phase == Phase::Over
    }

    fn acting_side(&self, st: &State, a: &Sent) -> Option<String> {
        game::acting_side(st, &a.action).map(|i| st.sides[i].id.clone())
    }

    fn scores(&self, st: &State) -> Vec<SideScore> {
        (0..st.sides.len().min(2))
            .map(|i| SideScore {
                side: st.sides[i].id.clone(),
                lost: st.sides[1 - i].banners,
                threshold: st.sides[1 - i].banners_to_win,
            })
            .collect()
    }

    fn forces(&self, st: &State) -> Option<Vec<(String, u32, u32)>> {
        // Each army as it took the field (decision 60): a unit held in reserve for We're Back
        // counts once it has come on, under the side that brought it (a turncoat included).
        let sc = self.scenario.as_ref()?;
        let fielded = |u: &&crate::interface::scenario::Unit| {
            st.units
                .iter()
                .find(|x| x.id == u.id)
                .is_some_and(|x| !x.spare)
        };
        Some(
            sc.sides
                .iter()
                .map(|s| {
                    let on: Vec<_> = sc
                        .units
                        .iter()
                        .filter(|u| u.side == s.id)
                        .filter(fielded)
                        .collect();
                    let bases = on.iter().map(|u| u32::from(u.bases)).sum();
                    (s.id.clone(), on.len() as u32, bases)
                })
                .collect(),
        )
    }

    fn views_differ(&self) -> bool {
        true
    }

    fn view_state(&self, st: &State, viewer: &Viewer) -> State {
        view(st, viewer)
    }

    fn view_event(&self, event: &Value, viewer: &Viewer) -> Option<Value> {
        let mut e = event.clone();
        let own = match viewer {
            Viewer::Side(s) => Some(s.clone()),
            _ => None,
        };
        // Recorded actions keep the spelling they were sent with (`end_turn` or `end-turn`).
        let action = game::canonical(e["action"]["action"].as_str().unwrap_or("")).to_string();
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
                let label = k("ecw.die.stand-card");
                d.retain(|x| x["label"] != label.as_str());
            }
        }
        Some(e)
    }

    fn board(&self, st: &State) -> Option<Board> {
        Some(board(st))
    }

    fn forms(&self, st: &State, side: Option<&str>) -> Vec<ActionForm> {
        forms(st, side)
    }

    fn seeded_only(&self, a: &Sent) -> bool {
        // Shuffles, Chaunce draws and random picks, and the Stand of Pikes card (design 13.1).
        match &a.action {
            Action::Deal { .. } | Action::DrawChaunce {} | Action::ResolveChaunce { .. } => true,
            Action::Respond { response } => response.as_deref() == Some("stand-of-pikes"),
            _ => false,
        }
    }

    fn verdict(&self, st: &State) -> Option<String> {
        st.winner.map(|_| game::verdict(st))
    }

    const GAME_MASTER_LIMITED: bool = true;
    fn game_master_may(&self, st: &State, a: &Sent) -> Result<(), Rejection> {
        if st.settings.single_device || st.settings.referee_sees_hands {
            return Ok(());
        }
        let hand = match &a.action {
            Action::Play { .. } | Action::Keep { .. } => true,
            // Keeping the hand after a replaced turn reveals nothing.
            Action::Swap { card } => card.is_some(),
            Action::Respond { response } => response.as_deref().is_some_and(|r| r != "none"),
            _ => false,
        };
        if hand {
            return Err(Rejection::new(
                "hand-is-secret",
                Some("action"),
                k("ecw.reject.hand-is-secret"),
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
pub(super) fn standalone(a: &Action) -> Result<Plan<Outcome>, Rejection> {
    match a {
        Action::Battle(req) => resolve::plan(req),
        Action::Melee {
            unit,
            target,
            terrain,
            battle_back_terrain,
            target_room,
            attacker_room,
            target_ignores,
            attacker,
            defender,
            stand_of_pikes,
        } => {
            // A game's fields are not the stand-alone melee's.
            let game_field = [
                ("unit", unit.is_some()),
                ("target", target.is_some()),
                ("target_room", target_room.is_some()),
                ("attacker_room", attacker_room.is_some()),
                ("target_ignores", target_ignores.is_some()),
            ]
            .into_iter()
            .find_map(|(k, given)| given.then_some(k));
            if let Some(k) = game_field {
                return Err(Rejection::new(
                    "unknown-field",
                    Some(k),
                    m(
                        "ecw.reject.standalone-field",
                        &[("field", crate::text::quoted(k))],
                    ),
                ));
            }
            let reduction = |field: &str, v: Option<i64>| -> Result<u8, Rejection> {
                let n = game::ranged(field, v, 0, i64::from(u8::MAX))?.unwrap_or(0);
                Ok(u8::try_from(n).unwrap_or(u8::MAX))
            };
            resolve::melee(&MeleeRequest {
                attacker: game::required("attacker", attacker.clone())?,
                defender: game::required("defender", defender.clone())?,
                stand_of_pikes: *stand_of_pikes,
                terrain: reduction("terrain", *terrain)?,
                battle_back_terrain: reduction("battle_back_terrain", *battle_back_terrain)?,
            })
        }
        _ => Err(Rejection::new(
            "needs-a-game",
            Some("action"),
            k("ecw.reject.needs-a-game"),
        )),
    }
}
