//! The typed trait every rule set implements, and the one adapter that gives the shell its
//! object-safe [`Engine`].
//!
//! A rule set names its own types: the state of a game, the actions (a typed enum, read with
//! [`input`](super::input)'s one reading of fields), and the effects an outcome folds into the
//! state. The shell sees JSON only at the edge: [`Typed`] reads the recorded state and the
//! action into the rule set's types, calls it, and writes back what it returns.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tercio_core::Plan;

use super::input::{read_action, read_state};
use super::{ActionForm, Board, Engine, Kept, Outcome, Rejection, SideScore, Viewer};

/// A rule set's engine, typed. Implement it, wrap it in [`Typed`], and the shell can play it.
pub trait Rules: Send + Sync + 'static {
    /// A game's state, as recorded in checkpoints and exports.
    type State: Serialize + DeserializeOwned + Clone + Send + Sync + 'static;
    /// The actions, a typed enum tagged by `"action"`: canonical kebab-case names, older
    /// spellings as serde aliases, every variant a struct variant that refuses unknown fields.
    type Action: DeserializeOwned + 'static;
    /// What one outcome folds into the state, as recorded in the log.
    type Effect: Serialize + DeserializeOwned + Default + 'static;

    /// A stand-alone action: no game, everything it needs in the request (the app's single
    /// resolutions, the examples, `tercio resolve`). A rule set whose game actions read the same
    /// way names its `Action` again.
    type Request: DeserializeOwned + 'static;

    /// The state of a new game of the bound scenario.
    fn initial_state(&self) -> Result<Self::State, String>;
    /// Declare the dice plan of an action against a game state.
    fn plan(
        &self,
        state: &Self::State,
        action: &Self::Action,
    ) -> Result<Plan<Outcome<Self::Effect>>, Rejection>;
    /// Like [`Rules::plan`], for showing the odds of an action the turn does not allow yet:
    /// only the action's own rules are checked.
    fn preview(
        &self,
        state: &Self::State,
        action: &Self::Action,
    ) -> Result<Plan<Outcome<Self::Effect>>, Rejection> {
        self.plan(state, action)
    }
    /// Why [`Rules::plan`] would refuse `action` now, if it would: the forms mark what pressing
    /// would refuse with it ([`super::forms::mark_refusals`]). A rule set whose plan does costly
    /// work before its first die (writing the state out, say) answers without it.
    fn refusal(&self, state: &Self::State, action: &Self::Action) -> Option<Rejection> {
        self.plan(state, action).err()
    }
    /// The independent parts of an action whose odds are shown part by part, each previewed on
    /// its own: a simultaneous fire, target by target (the fires at one target decide nothing at
    /// another, and their product would be too many outcomes to enumerate). Empty: the action
    /// is shown whole.
    fn odds_parts(&self, _state: &Self::State, _action: &Self::Action) -> Vec<Self::Action> {
        Vec::new()
    }
    /// The message keys of the facets that decide an action's outcome, in order: the odds'
    /// final outcome tells its outcomes apart by them (a charge's contact and its melee's
    /// result, not the defensive fire on the way in; [`crate::odds::odds_and_final`]); the
    /// other facets are told as what is expected on each. Of them, those that vary and are
    /// reached at least half the time count; none: the first facet that varies.
    const HEADLINE_FACETS: &'static [&'static str] = &[];
    /// The message keys of the facets told as expected values on each final outcome: the
    /// losses (levels, bases, figures, blocks); none: every facet whose values are numbers.
    const LOSS_FACETS: &'static [&'static str] = &[];
    /// Declare the dice plan of a stand-alone action. Its outcomes change no game; their effects,
    /// if any, describe what befalls the units the request gives.
    fn standalone(&self, request: &Self::Request)
        -> Result<Plan<Outcome<Self::Effect>>, Rejection>;
    /// Fold one outcome's effects into the state.
    fn apply(&self, state: &mut Self::State, effects: &Self::Effect) -> Result<(), String>;
    /// Fold recorded effects into a recorded state in place (replays, undo's fold from a
    /// checkpoint): the state replaced by [`Rules::folded_recorded`]. A rule set whose effects
    /// are patches of the recorded JSON ([`crate::effects`]) sets [`Rules::EFFECTS_ARE_PATCHES`].
    fn apply_recorded(&self, state: &mut Value, effects: &Value) -> Result<(), String> {
        if Self::EFFECTS_ARE_PATCHES {
            return crate::effects::apply(state, effects);
        }
        *state = self.folded_recorded(state, effects)?;
        Ok(())
    }
    /// The rule set's effects are patches of the recorded JSON ([`crate::effects::diff`]):
    /// the three recorded folds patch it, in place, with no typed round trip.
    const EFFECTS_ARE_PATCHES: bool = false;
    /// The recorded state with recorded effects folded in, `state` left as it was (the next
    /// state of every action). The default reads both into their types, folds them and writes
    /// the state out: no copy of the recorded state is made (copying it cost a fifth of an
    /// action's instructions, `docs/performance.md`).
    fn folded_recorded(&self, state: &Value, effects: &Value) -> Result<Value, String> {
        if Self::EFFECTS_ARE_PATCHES {
            let mut s = state.clone();
            crate::effects::apply(&mut s, effects)?;
            return Ok(s);
        }
        let mut st: Self::State = read_state(state).map_err(|r| r.message)?;
        let eff: Self::Effect =
            serde::Deserialize::deserialize(effects).map_err(|e| e.to_string())?;
        self.apply(&mut st, &eff)?;
        serde_json::to_value(st).map_err(|e| e.to_string())
    }
    /// Fold recorded effects into a recorded state in place, and say what changed and what
    /// that replaced ([`Engine::fold_changes`]). The default folds the typed state and walks it
    /// beside the recorded one ([`crate::effects::diff_typed`]): only what changed is written
    /// out, and the old tree is patched, not rebuilt. A rule set whose effects are patches of the
    /// recorded JSON says so ([`Rules::EFFECTS_ARE_PATCHES`]) and takes them as the changes.
    fn fold_recorded_changes(
        &self,
        state: &mut Value,
        effects: &Value,
    ) -> Result<(Value, Value), String> {
        if Self::EFFECTS_ARE_PATCHES {
            return crate::effects::fold_patch(state, effects);
        }
        let st: Self::State = read_state(state).map_err(|r| r.message)?;
        fold_typed(self, st, None, state, effects).map(|(changes, restore, _)| (changes, restore))
    }
    /// The parts of the state that one fold left as they were, found by comparing the typed
    /// states before and after it: the walk that finds what the fold changed passes over them
    /// ([`crate::Same`]). The default names none, and the whole state is walked. Naming a part
    /// that changed would lose that change, so a rule set names only parts it compares whole
    /// (`tests/undo.rs` checks every example game's changes against the whole states' diff).
    fn same_parts<'s>(&self, _before: &Self::State, _after: &'s Self::State) -> crate::Same<'s> {
        crate::Same::default()
    }
    /// The catalogue's prefix of the actions' names (`"ecw.action."`): each key under it names
    /// the action whose id follows ([`Engine::action_titles`]). `None`: the resolutions name
    /// their actions as messages already.
    const ACTION_TITLES: Option<&'static str> = None;
    /// Whether the battle is over (then the seed is revealed).
    fn is_over(&self, state: &Self::State) -> bool;
    /// The state's `phase` is `"over"` exactly when [`Rules::is_over`] says so: the adapter then
    /// answers from the recorded JSON, which it asks after every action, without reading the
    /// whole state into its type (`tests/actions.rs` holds every registered rule set to it).
    const OVER_AT_PHASE: bool = false;
    /// The game at a glance: turn and step, whose move it is, tables of units.
    fn board(&self, _state: &Self::State) -> Option<Board> {
        None
    }
    /// The actions that can be taken now, as forms: every action for the game master
    /// (`side` = `None`), a side's own actions otherwise.
    fn forms(&self, _state: &Self::State, _side: Option<&str>) -> Vec<ActionForm> {
        Vec::new()
    }
    /// A plain-text picture of the state for `tercio game show`: the board as text.
    fn render_state(&self, state: &Self::State) -> String {
        match self.board(state) {
            Some(b) => b.render(),
            None => String::new(),
        }
    }
    /// The side an action belongs to, or `None` for the game master's own steps.
    fn acting_side(&self, _state: &Self::State, _action: &Self::Action) -> Option<String> {
        None
    }
    /// Fields of an action a side's seat may not set (they decide for the other side).
    fn reserved_to_game_master(&self) -> &'static [&'static str] {
        &[]
    }
    /// The fields of `action` a side's seat may not set ([`super::Engine::reserved_in`]).
    fn reserved_in(&self, _action: &Value) -> Vec<&'static str> {
        self.reserved_to_game_master().to_vec()
    }
    /// Each side's losses against its breaking point.
    fn scores(&self, _state: &Self::State) -> Vec<SideScore> {
        Vec::new()
    }
    /// Each side's forces for the battle report, as (side id, units, bases) ([`Engine::forces`]).
    fn forces(&self, _state: &Self::State) -> Option<Vec<(String, u32, u32)>> {
        None
    }
    /// Whether any viewer's [`Rules::view_state`] may differ from the state.
    fn views_differ(&self) -> bool {
        false
    }
    /// What `viewer` may see of the state (secrets hidden).
    fn view_state(&self, state: &Self::State, _viewer: &Viewer) -> Self::State {
        state.clone()
    }
    /// What `viewer` may see of one recorded event; `None` hides it altogether. A rule set that
    /// overrides it sets [`Rules::EVENTS_DIFFER`].
    fn view_event(&self, event: &Value, _viewer: &Viewer) -> Option<Value> {
        Some(event.clone())
    }
    /// [`Rules::view_event`] is overridden: some seat may see less of an event than was
    /// recorded. When not, the shell shows every seat the event as recorded, with no copy
    /// (`tests/layers.rs` holds every registered rule set to it).
    const EVENTS_DIFFER: bool = false;
    /// Whether [`Rules::game_master_may`] ever refuses (it is overridden): only then does the
    /// adapter read the state into its type before each of the game master's actions.
    const GAME_MASTER_LIMITED: bool = false;
    /// Whether the game master's seat may take `action` (set
    /// [`Rules::GAME_MASTER_LIMITED`] when overriding it).
    fn game_master_may(
        &self,
        _state: &Self::State,
        _action: &Self::Action,
    ) -> Result<(), Rejection> {
        Ok(())
    }
    /// Whether `action` must take its randomness from the seed even when the table throws its
    /// own dice (shuffles, draws, random picks).
    fn seeded_only(&self, _action: &Self::Action) -> bool {
        false
    }
    /// The result in a sentence once the battle is over.
    fn verdict(&self, _state: &Self::State) -> Option<String> {
        None
    }
}

/// Fold `effects` into `st`, the typed reading of the recorded `state`, and patch `state` in
/// place with what changed (found by walking `st` beside it, [`crate::effects::diff_typed`]):
/// the changes, the values they replaced, and the folded typed state.
///
/// `before`: the typed state before, when `state` is known to be it written out; the parts the
/// rule set finds unchanged are then passed over ([`Rules::same_parts`]).
fn fold_typed<R: Rules + ?Sized>(
    rules: &R,
    mut st: R::State,
    before: Option<&R::State>,
    state: &mut Value,
    effects: &Value,
) -> Result<(Value, Value, R::State), String> {
    let eff: R::Effect = serde::Deserialize::deserialize(effects).map_err(|e| e.to_string())?;
    rules.apply(&mut st, &eff)?;
    let same = match before {
        Some(b) => rules.same_parts(b, &st),
        None => crate::Same::default(),
    };
    let changes = crate::effects::diff_typed_but(state, &st, same);
    let restore = crate::effects::apply_reversing(state, &changes)?;
    Ok((changes, restore, st))
}

impl Board {
    /// The board as plain text: headline, notes, then each table.
    pub fn render(&self) -> String {
        let mut s = format!("{}\n", self.headline);
        for n in &self.notes {
            s.push_str(&format!("  {n}\n"));
        }
        for t in &self.tables {
            s.push('\n');
            s.push_str(&t.render());
        }
        s
    }
}

/// The adapter: any [`Rules`] as the shell's [`Engine`].
pub struct Typed<R>(pub R);

impl<R: Rules> Typed<R> {
    /// The rule set inside, typed.
    pub fn rules(&self) -> &R {
        &self.0
    }

    fn both(&self, state: &Value, action: &Value) -> Option<(R::State, R::Action)> {
        Some((read_state(state).ok()?, read_action(action).ok()?))
    }

    fn to_json(outcome: Outcome<R::Effect>) -> Outcome {
        Outcome {
            resolution: outcome.resolution,
            effects: serde_json::to_value(&outcome.effects).unwrap_or(Value::Null),
            facets: outcome.facets,
        }
    }

    fn planned(
        &self,
        state: Option<&Value>,
        action: &Value,
        preview: bool,
    ) -> Result<Plan<Outcome>, Rejection> {
        let plan = match state {
            // A stand-alone resolution changes no game: its effects describe the units given.
            None => self.0.standalone(&read_action(action)?)?,
            Some(state) => {
                let action: R::Action = read_action(action)?;
                let st: R::State = read_state(state)?;
                if preview {
                    self.0.preview(&st, &action)?
                } else {
                    self.0.plan(&st, &action)?
                }
            }
        };
        Ok(plan.map(Self::to_json))
    }
}

impl<R: Rules> Engine for Typed<R> {
    fn initial_state(&self) -> Result<Value, String> {
        serde_json::to_value(self.0.initial_state()?).map_err(|e| e.to_string())
    }
    fn plan(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection> {
        self.planned(state, action, false)
    }
    fn preview(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection> {
        self.planned(state, action, true)
    }
    fn headline_facets(&self) -> &'static [&'static str] {
        R::HEADLINE_FACETS
    }
    fn loss_facets(&self) -> &'static [&'static str] {
        R::LOSS_FACETS
    }
    fn preview_parts(
        &self,
        state: Option<&Value>,
        action: &Value,
    ) -> Result<Vec<Plan<Outcome>>, Rejection> {
        let Some(state) = state else {
            return Ok(vec![self.preview(None, action)?]);
        };
        let typed: R::Action = read_action(action)?;
        let st: R::State = read_state(state)?;
        let parts = self.0.odds_parts(&st, &typed);
        if parts.is_empty() {
            return Ok(vec![self.0.preview(&st, &typed)?.map(Self::to_json)]);
        }
        parts
            .iter()
            .map(|p| Ok(self.0.preview(&st, p)?.map(Self::to_json)))
            .collect()
    }
    fn apply(&self, state: &mut Value, effects: &Value) -> Result<(), String> {
        self.0.apply_recorded(state, effects)
    }
    fn folded(&self, state: &Value, effects: &Value) -> Result<Value, String> {
        self.0.folded_recorded(state, effects)
    }
    fn fold_changes(&self, state: &mut Value, effects: &Value) -> Result<(Value, Value), String> {
        self.0.fold_recorded_changes(state, effects)
    }
    fn plan_kept(
        &self,
        kept: &Kept,
        at: u64,
        state: &Value,
        action: &Value,
    ) -> Result<Plan<Outcome>, Rejection> {
        let Some(st) = kept.get::<R::State>(at) else {
            return self.plan(Some(state), action);
        };
        let action: R::Action = read_action(action)?;
        Ok(self.0.plan(st, &action)?.map(Self::to_json))
    }
    fn fold_changes_kept(
        &self,
        kept: &mut Kept,
        at: u64,
        state: &mut Value,
        effects: &Value,
    ) -> Result<(Value, Value), String> {
        let held = kept.take::<R::State>(at);
        if R::EFFECTS_ARE_PATCHES {
            return self.0.fold_recorded_changes(state, effects);
        }
        // A reading is exact when the recorded state is it written out, and then the walk may
        // pass over what the fold left as it was. A reading made by folding is; a state read
        // from its JSON may not write back the same (an older recording, a field's default), so
        // it is written out once and compared (only when nothing was kept: a reload, or an undo
        // that folded).
        let (st, exact) = match held {
            Some(held) => held,
            None => {
                let st: R::State = read_state(state).map_err(|r| r.message)?;
                let exact = serde_json::to_value(&st).is_ok_and(|v| v == *state);
                (st, exact)
            }
        };
        let before = st.clone();
        let (changes, restore, st) =
            fold_typed(&self.0, st, exact.then_some(&before), state, effects)?;
        kept.put(at + 1, st, before, exact);
        Ok((changes, restore))
    }
    fn action_titles(&self) -> Vec<(String, String)> {
        let Some(prefix) = R::ACTION_TITLES else {
            return Vec::new();
        };
        tercio_i18n::entries(tercio_i18n::Lang::En)
            .iter()
            .filter_map(|(k, _)| {
                let id = k.strip_prefix(prefix)?;
                Some((id.to_string(), tercio_i18n::msg(k, &[])))
            })
            .collect()
    }
    fn render_state(&self, state: &Value) -> String {
        match read_state(state) {
            Ok(st) => self.0.render_state(&st),
            Err(r) => r.message,
        }
    }
    fn acting_side(&self, state: &Value, action: &Value) -> Option<String> {
        let (st, a) = self.both(state, action)?;
        self.0.acting_side(&st, &a)
    }
    fn reserved_to_game_master(&self) -> &'static [&'static str] {
        self.0.reserved_to_game_master()
    }
    fn reserved_in(&self, action: &Value) -> Vec<&'static str> {
        self.0.reserved_in(action)
    }
    fn scores(&self, state: &Value) -> Vec<SideScore> {
        read_state(state)
            .map(|st| self.0.scores(&st))
            .unwrap_or_default()
    }
    fn forces(&self, state: &Value) -> Option<Vec<(String, u32, u32)>> {
        read_state(state).ok().and_then(|st| self.0.forces(&st))
    }
    fn is_over(&self, state: &Value) -> bool {
        if R::OVER_AT_PHASE {
            return state["phase"] == "over";
        }
        read_state(state).is_ok_and(|st| self.0.is_over(&st))
    }
    fn is_over_typed(&self, state: &Value) -> Option<bool> {
        read_state(state)
            .ok()
            .map(|st: R::State| self.0.is_over(&st))
    }
    fn view_state(&self, state: &Value, viewer: &Viewer) -> Value {
        if !self.0.views_differ() {
            return state.clone();
        }
        match read_state(state) {
            Ok(st) => serde_json::to_value(self.0.view_state(&st, viewer)).unwrap_or(Value::Null),
            Err(_) => Value::Null,
        }
    }
    fn views_differ(&self) -> bool {
        self.0.views_differ()
    }
    fn events_differ(&self) -> bool {
        R::EVENTS_DIFFER
    }
    fn view_event(&self, event: &Value, viewer: &Viewer) -> Option<Value> {
        self.0.view_event(event, viewer)
    }
    fn board(&self, state: &Value) -> Option<Board> {
        read_state(state).ok().and_then(|st| self.0.board(&st))
    }
    fn seat_forms(&self, view: &Value, state: &Value, side: Option<&str>) -> Vec<ActionForm> {
        let Ok(seen) = read_state::<R::State>(view) else {
            return Vec::new();
        };
        let forms = self.0.forms(&seen, side);
        let st = if std::ptr::eq(view, state) {
            seen
        } else {
            match read_state::<R::State>(state) {
                Ok(st) => st,
                Err(_) => return forms,
            }
        };
        // What pressing would refuse is found by planning it, as pressing does.
        super::forms::mark_refusals(forms, |a| match read_action::<R::Action>(a) {
            Ok(a) => self.0.refusal(&st, &a),
            Err(r) => Some(r),
        })
    }
    fn game_master_may(&self, state: &Value, action: &Value) -> Result<(), Rejection> {
        if !R::GAME_MASTER_LIMITED {
            return Ok(());
        }
        // An action (or state) that cannot be read is not the seat's fault: resolving it
        // refuses it, naming the field.
        let (Ok(st), Ok(a)) = (
            read_state::<R::State>(state),
            read_action::<R::Action>(action),
        ) else {
            return Ok(());
        };
        self.0.game_master_may(&st, &a)
    }
    fn seeded_only(&self, _state: &Value, action: &Value) -> bool {
        read_action(action).is_ok_and(|a| self.0.seeded_only(&a))
    }
    fn verdict(&self, state: &Value) -> Option<String> {
        read_state(state).ok().and_then(|st| self.0.verdict(&st))
    }
}
