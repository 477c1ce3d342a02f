//! The engine: the typed rules of a battle or of a stand-alone resolution.

use super::*;

/// The engine of one battle (or of stand-alone resolutions), typed: the shell holds it as
/// [`Typed`]`<CallanEngine>`.
pub struct CallanEngine {
    pub(super) scenario: Option<Scenario>,
}

/// The catalogue key of an action's title and hint: its canonical name with `_` for `-`
/// (`callan.action.end_turn`), as titles were recorded before the names were kebab-case. Keys
/// with both spellings would make the same catalogue constant, so the recorded one stays.
pub(super) fn action_key(name: &str) -> String {
    name.replace('-', "_")
}

/// An outcome, titled from the action's name.
pub(super) fn outcome(name: &str, before: Option<&Value>, r: game::Res) -> Outcome<Value> {
    let effects = crate::effects::since(before, &r.st);
    Outcome {
        resolution: Resolution {
            action: m(
                "callan.action-title",
                &[("action", format!("@callan.action.{}", action_key(name)))],
            ),
            summary: r.summary.join("; "),
            steps: r.steps,
        },
        effects,
        facets: r.facets,
    }
}

impl Rules for CallanEngine {
    /// A round is decided by its winner and what befalls the loser; a volley by the bases it
    /// takes; a test by its result.
    const HEADLINE_FACETS: &'static [&'static str] = &[
        "callan.facet.winner",
        "callan.facet.loser",
        "callan.facet.duel",
        "callan.facet.loser-flees",
        "callan.facet.bases-lost",
        "callan.facet.panic",
        "callan.facet.obeys",
        "callan.facet.evades",
        "callan.facet.obstacle",
    ];
    const LOSS_FACETS: &'static [&'static str] =
        &["callan.facet.lost-of", "callan.facet.bases-lost"];
    /// `phase` is `over` exactly when the battle is.
    const OVER_AT_PHASE: bool = true;
    type State = State;
    type Action = Action;
    /// The changes to the recorded state, as [`crate::effects::diff`] writes them: folded into
    /// the JSON as recorded, with no typed round trip ([`Rules::apply_recorded`]).
    type Effect = Value;
    /// Stand-alone, a `fire` or an `attack` names its units inline ([`super::standalone`]).
    type Request = Action;

    fn initial_state(&self) -> Result<State, String> {
        let sc = self.scenario.as_ref().ok_or("no scenario")?;
        game::initial(sc)
    }

    fn plan(&self, st: &State, action: &Action) -> Result<Plan<Outcome<Value>>, Rejection> {
        let before = serde_json::to_value(st).ok();
        let name = action.name();
        Ok(game::plan(st, action)?.map(move |r| outcome(name, before.as_ref(), r)))
    }

    /// The plan's own refusal, without writing the state out for the outcome's changes.
    fn refusal(&self, st: &State, action: &Action) -> Option<Rejection> {
        game::plan(st, action).err()
    }

    fn standalone(&self, action: &Action) -> Result<Plan<Outcome<Value>>, Rejection> {
        standalone(action)
    }

    fn preview(&self, st: &State, action: &Action) -> Result<Plan<Outcome<Value>>, Rejection> {
        let name = action.name();
        match action {
            // An attack the defender may still evade: its odds are the fight's, if it stands,
            // and they say so (D70).
            Action::Attack { evade: None, .. } => match game::assuming_it_stands(st, action) {
                Some((a, who)) => Ok(game::plan(st, &a)?
                    .map(move |r| outcome(name, None, game::note_it_stands(r, &who)))),
                None => {
                    let mut a = action.clone();
                    if let Action::Attack { evade, .. } = &mut a {
                        *evade = Some(false);
                    }
                    Ok(game::plan(st, &a)?.map(move |r| outcome(name, None, r)))
                }
            },
            Action::Start { .. } | Action::Draw { .. } => Err(Rejection::new(
                "no-odds",
                Some("action"),
                k("callan.reject.no-odds"),
            )),
            _ => Ok(game::plan(st, action)?.map(move |r| outcome(name, None, r))),
        }
    }

    /// Folds typed: the state written out, patched and read back (the shell folds the recorded
    /// JSON with [`Rules::apply_recorded`] instead).
    fn apply(&self, state: &mut State, effects: &Value) -> Result<(), String> {
        crate::effects::apply_typed(state, effects)
    }

    /// The effects are patches of the recorded JSON: folded there, in place, as before the
    /// typed trait.
    const EFFECTS_ARE_PATCHES: bool = true;
    const EVENTS_DIFFER: bool = true;

    fn is_over(&self, state: &State) -> bool {
        state.phase == Phase::Over
    }

    fn render_state(&self, state: &State) -> String {
        board(state).render()
    }

    fn acting_side(&self, state: &State, action: &Action) -> Option<String> {
        game::acting_side(state, action).map(|i| state.sides[i].id.clone())
    }

    fn reserved_to_game_master(&self) -> &'static [&'static str] {
        // The defender's choice to evade is the other side's; the GM records it.
        &["evade"]
    }

    fn scores(&self, st: &State) -> Vec<SideScore> {
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

    fn view_state(&self, state: &State, _viewer: &Viewer) -> State {
        let mut st = state.clone();
        st.deck = Vec::new();
        st.salt = 0;
        st
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

    fn board(&self, state: &State) -> Option<Board> {
        Some(board(state))
    }

    fn forms(&self, state: &State, side: Option<&str>) -> Vec<ActionForm> {
        forms(state, side)
    }

    fn seeded_only(&self, action: &Action) -> bool {
        matches!(action, Action::Start { .. })
    }

    fn verdict(&self, state: &State) -> Option<String> {
        game::verdict(state)
    }
}
