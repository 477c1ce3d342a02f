//! The interface between the rule sets and everything else.
//!
//! - [`Rules`]: the typed trait each rule set implements, with its own state, action and effect
//!   types ([`typed`]).
//! - [`Engine`]: the object-safe face the shell holds (`Box<dyn Engine>`), JSON in and out; one
//!   adapter, [`Typed`], gives it for every [`Rules`].
//! - [`RuleSet`]: a rule set's name, scenario checks, house rules and charts, and the factory of
//!   its engine.
//! - [`house`]: the house rules as data, one table per rule set.
//! - [`balance`]: the designers' matchups, exact, from the same plans that roll.
//! - [`simulate`]: whole battles played by automatic players, and their sums; [`form_play`]:
//!   the automatic players of any rule set, through its seats' forms.
//! - [`forms`]: the board and action forms the shell draws; [`input`]: the one reading of
//!   form text ("3", "on") into typed fields.
//!
//! Nothing here names a rule set: the list of them is [`crate::registry`].

pub mod balance;
pub mod form_play;
pub mod forms;
pub mod house;
pub mod input;
pub mod scenario;
pub mod simulate;
pub mod typed;

use serde::Serialize;
use serde_json::Value;
use tercio_core::{Plan, Resolution};

use scenario::Scenario;

pub use forms::{ActionForm, Board, BoardTable, Choice, FieldKind, FormField};
pub use house::HouseRule;
pub use typed::{Rules, Typed};

/// An action Tercio will not resolve, with the reason, naming the field at fault where there is one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    /// Stable kebab-case code, e.g. `march-formation-cannot-charge`.
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
    /// Why: the action is wrong, or not allowed yet, or needs an answer first.
    pub kind: RejectKind,
}

/// What kind of refusal a [`Rejection`] is, for the shell to answer it without knowing codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RejectKind {
    /// The action is malformed or breaks the rules: as it stands it will never be resolved.
    #[default]
    Invalid,
    /// The action is sound but the turn does not allow it now (it is another leader's
    /// activation, the unit has acted, the step is another). Its odds can still be shown.
    NotNow,
    /// The rules need an answer the action does not give yet (does the target stand?): the
    /// table answers and sends it again.
    Question,
}

impl Rejection {
    /// A refusal; the field it names is a name the request may have given (an unknown one), so
    /// it is cut as any quoted value is ([`tercio_i18n::clip`]).
    pub fn new(code: &str, field: Option<&str>, message: impl Into<String>) -> Self {
        Rejection {
            code: code.to_string(),
            field: field.map(|f| tercio_i18n::clip(f).into_owned()),
            message: message.into(),
            kind: RejectKind::Invalid,
        }
    }

    /// The same refusal, as one the turn will lift ([`RejectKind::NotNow`]).
    pub fn not_now(mut self) -> Self {
        self.kind = RejectKind::NotNow;
        self
    }

    /// The same refusal, as a question the table must answer ([`RejectKind::Question`]).
    pub fn question(mut self) -> Self {
        self.kind = RejectKind::Question;
        self
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            // Messages that already start with their field are not prefixed twice.
            Some(field) if self.message.starts_with(&format!("{field}:")) => {
                write!(f, "{} [{}]", self.message, self.code)
            }
            Some(field) => write!(f, "{field}: {} [{}]", self.message, self.code),
            None => write!(f, "{} [{}]", self.message, self.code),
        }
    }
}

/// What a resolution produces: the explanation, the effects to fold into the game state (opaque
/// to the shell), and named facets of the outcome from which odds are tabulated.
#[derive(Debug, Clone)]
pub struct Outcome<E = Value> {
    pub resolution: Resolution,
    pub effects: E,
    pub facets: Vec<(String, String)>,
}

/// A rule set's own reading of a game's recorded state, kept beside it between actions so that
/// the next action is planned and folded without reading the JSON into the rule set's types
/// again (two readings were a tenth of an action's instructions, `docs/performance.md`).
///
/// It holds the state of one log position (`at`, the number of entries the state is after) and
/// is good only there: any change of the recorded state that does not go through
/// [`Engine::fold_changes_kept`] moves the position on (an undo appends a void) or drops the
/// holder (a copy, a reload), so a stale reading is never used. Beside it, the reading before
/// the latest event, which an undo of that event puts back ([`Kept::undone`]). Not part of a
/// head's value: a copy holds nothing, and two holders compare equal.
///
/// Each reading says whether it is exact: whether the recorded state is that reading written out
/// (a reading made by folding is; one read from a recorded state may not write back the same).
#[derive(Default)]
pub struct Kept {
    now: Option<Reading>,
    /// The reading before the event with this sequence number.
    before: Option<Reading>,
}

/// A typed state kept at a position, and whether it is exact ([`Kept`]).
type Reading = (u64, Box<dyn std::any::Any + Send + Sync>, bool);

impl Kept {
    /// The state kept for position `at`, if it is of type `S`.
    pub fn get<S: 'static>(&self, at: u64) -> Option<&S> {
        match &self.now {
            Some((p, s, _)) if *p == at => s.downcast_ref(),
            _ => None,
        }
    }
    /// Take the state kept for position `at` out, and whether it is exact, leaving nothing.
    pub fn take<S: 'static>(&mut self, at: u64) -> Option<(S, bool)> {
        self.before = None;
        match self.now.take() {
            Some((p, s, exact)) if p == at => s.downcast().ok().map(|b| (*b, exact)),
            _ => None,
        }
    }
    /// Keep `state`, made by folding the entry `at` (so exact), as the reading of position `at`,
    /// and `before` as the reading before that entry, exact or not.
    pub fn put<S: Send + Sync + 'static>(&mut self, at: u64, state: S, before: S, exact: bool) {
        self.now = Some((at, Box::new(state), true));
        self.before = Some((at, Box::new(before), exact));
    }
    /// The event `target`, the latest entry, was undone by putting back what it replaced, and
    /// the void made the log `at` entries long: the reading before it is the reading now.
    pub fn undone(&mut self, target: u64, at: u64) {
        self.now = match self.before.take() {
            Some((t, s, exact)) if t == target => Some((at, s, exact)),
            _ => None,
        };
    }
    /// Keep nothing.
    pub fn clear(&mut self) {
        self.now = None;
        self.before = None;
    }
    /// The position held, if any.
    pub fn at(&self) -> Option<u64> {
        self.now.as_ref().map(|(p, _, _)| *p)
    }
}

impl Clone for Kept {
    fn clone(&self) -> Kept {
        Kept::default()
    }
}

impl PartialEq for Kept {
    fn eq(&self, _: &Kept) -> bool {
        true
    }
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Kept({:?})", self.at())
    }
}

/// A rule set's engine, bound to a scenario (for games) or to none (for stand-alone actions).
pub trait Engine: Send + Sync {
    /// The state of a new game of the bound scenario.
    fn initial_state(&self) -> Result<Value, String>;
    /// Declare the dice plan of an action, against a game state or stand-alone.
    fn plan(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection>;
    /// Like [`Engine::plan`], but for showing the odds of an action the turn does not allow yet
    /// (a unit waiting for its activation): only the action's own rules are checked.
    fn preview(&self, state: Option<&Value>, action: &Value) -> Result<Plan<Outcome>, Rejection> {
        self.plan(state, action)
    }
    /// The message keys of the facets that decide an action's outcome, in order
    /// ([`Rules::HEADLINE_FACETS`](super::Rules::HEADLINE_FACETS)): the odds' final outcome is
    /// told by them ([`crate::odds::odds_and_final`]).
    fn headline_facets(&self) -> &'static [&'static str] {
        &[]
    }
    /// The message keys of the facets told as expected values on each final outcome
    /// ([`Rules::LOSS_FACETS`](super::Rules::LOSS_FACETS)).
    fn loss_facets(&self) -> &'static [&'static str] {
        &[]
    }
    /// The previews of an action's independent parts, whose odds are shown part by part
    /// (`Rules::odds_parts`: a simultaneous fire, target by target), or of the action whole.
    fn preview_parts(
        &self,
        state: Option<&Value>,
        action: &Value,
    ) -> Result<Vec<Plan<Outcome>>, Rejection> {
        Ok(vec![self.preview(state, action)?])
    }
    /// Fold one outcome's effects into the state.
    fn apply(&self, state: &mut Value, effects: &Value) -> Result<(), String>;
    /// The state with one outcome's effects folded in, `state` left as it was. The default copies
    /// the state and folds into the copy; a rule set whose fold builds a new state anyway (its
    /// typed state read from the JSON and written back) returns that, with no copy.
    fn folded(&self, state: &Value, effects: &Value) -> Result<Value, String> {
        let mut s = state.clone();
        self.apply(&mut s, effects)?;
        Ok(s)
    }
    /// Fold one outcome's effects into the state in place, and say what changed: the
    /// [`crate::effects::diff`] of the state before and after, and the values those changes
    /// replaced ([`crate::effects::reverse`]), which undo it. The default compares the two
    /// states whole; the typed rule sets walk the new state beside the old one instead.
    fn fold_changes(&self, state: &mut Value, effects: &Value) -> Result<(Value, Value), String> {
        let new = self.folded(state, effects)?;
        let before = std::mem::replace(state, new);
        let changes = crate::effects::diff(&before, state);
        let restore = crate::effects::reverse(&before, &changes);
        Ok((changes, restore))
    }
    /// [`Engine::plan`] of an action against the state after `at` entries, read from `kept`
    /// when it holds that position's reading ([`Kept`]), else from `state`.
    fn plan_kept(
        &self,
        _kept: &Kept,
        _at: u64,
        state: &Value,
        action: &Value,
    ) -> Result<Plan<Outcome>, Rejection> {
        self.plan(Some(state), action)
    }
    /// [`Engine::fold_changes`] of the state after `at` entries, which then is the state after
    /// `at + 1`: a typed rule set folds the reading `kept` holds for `at` (or reads `state`) and
    /// keeps the folded one for `at + 1`. On failure `kept` holds nothing.
    fn fold_changes_kept(
        &self,
        kept: &mut Kept,
        _at: u64,
        state: &mut Value,
        effects: &Value,
    ) -> Result<(Value, Value), String> {
        kept.clear();
        self.fold_changes(state, effects)
    }
    /// Each action's name as players read it (a message), by the action's id: the title of a
    /// result whose resolution names its action by id (a page shows the name, never the id).
    fn action_titles(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// A plain-text picture of the state for `tercio game show`.
    fn render_state(&self, state: &Value) -> String;
    /// The side an action belongs to (the side of the unit or leader it moves), or `None` for the
    /// game master's own steps (initiative, end of turn). Seats use it to let a side resolve its
    /// own units' actions and nothing else.
    fn acting_side(&self, _state: &Value, _action: &Value) -> Option<String> {
        None
    }
    /// Why an action that belongs to no side ([`Engine::acting_side`] `None`) is refused when it
    /// is not yet whole (a target the page leaves for the table to choose, issue 43): the rules'
    /// refusal naming the missing or wrong field, which a seat is told rather than "this step is
    /// the game master's". `None` for the game master's own steps. The server and `tercio fuzz`
    /// judge a side's action alike by it.
    fn incomplete(&self, state: &Value, action: &Value) -> Option<Rejection> {
        let r = self.plan(Some(state), action).err()?;
        let named = r.field.as_deref().is_some_and(|f| f != "action");
        (named && r.kind != RejectKind::Question).then_some(r)
    }
    /// Fields of an action that decide for the other side or override what Tercio tracks (the
    /// target's status, whether it evades, the force ratio...): a side's seat may not set them;
    /// the game master resolves such actions.
    fn reserved_to_game_master(&self) -> &'static [&'static str] {
        &[]
    }
    /// The fields of `action` a side's seat may not set: [`Engine::reserved_to_game_master`],
    /// which a rule set may narrow by action (a field that decides for the other side in one
    /// action and names the side's own officer in another). The seats' rights read this one.
    fn reserved_in(&self, _action: &Value) -> Vec<&'static str> {
        self.reserved_to_game_master().to_vec()
    }
    /// Each side's losses against its breaking point, for the battle report's chart.
    fn scores(&self, _state: &Value) -> Vec<SideScore> {
        Vec::new()
    }
    /// Each side's forces for the battle report, as (side id, units, bases): the units that have
    /// taken the field, for a rule set that holds some in reserve. `None`: every unit of the
    /// scenario.
    fn forces(&self, _state: &Value) -> Option<Vec<(String, u32, u32)>> {
        None
    }
    /// Whether the battle is over (then the seed is revealed).
    fn is_over(&self, state: &Value) -> bool;
    /// [`Engine::is_over`] from the state read into the rule set's own type, however the
    /// adapter answers the other (for the test that holds the two together); `None` when the
    /// state cannot be read.
    fn is_over_typed(&self, state: &Value) -> Option<bool> {
        Some(self.is_over(state))
    }
    /// What `viewer` may see of the state. Rule sets with secret information (a hand of cards)
    /// hide it here; every page, API answer and live message is built from this view.
    fn view_state(&self, state: &Value, _viewer: &Viewer) -> Value {
        state.clone()
    }
    /// Whether any seat's [`Engine::view_state`] may differ from the state (the rule set keeps
    /// secrets in it). When not, the shell compares states without copying a view of them.
    fn views_differ(&self) -> bool {
        false
    }
    /// Whether any seat's [`Engine::view_event`] may differ from the event (the rule set hides
    /// draws or effects). When not, the shell shows events as recorded without copying them.
    fn events_differ(&self) -> bool {
        true
    }
    /// What `viewer` may see of one recorded event (an event's secret draws, voided or not, are
    /// hidden here). `None` hides the event's content altogether.
    fn view_event(&self, event: &Value, _viewer: &Viewer) -> Option<Value> {
        Some(event.clone())
    }
    /// The game at a glance, for rule sets whose pages the shell draws from data: the turn and
    /// step, whose move it is, and tables of units. `None`: the shell has its own page for it.
    fn board(&self, _state: &Value) -> Option<Board> {
        None
    }
    /// The actions that can be taken now, as forms the shell draws without knowing the rule set:
    /// every action for the game master (`side` = `None`), a side's own actions otherwise.
    fn forms(&self, state: &Value, side: Option<&str>) -> Vec<ActionForm> {
        self.seat_forms(state, state, side)
    }
    /// [`Engine::forms`] for a seat that sees `view` of the game whose whole state is `state`:
    /// the forms are drawn from what the seat sees, and what pressing would refuse is found as
    /// pressing finds it, against the whole state (a deck's order hidden from the seat still
    /// holds the cards it has left).
    fn seat_forms(&self, _view: &Value, _state: &Value, _side: Option<&str>) -> Vec<ActionForm> {
        Vec::new()
    }
    /// Whether the game master's seat may take `action`: rule sets with secret hands refuse the
    /// game master a card from a hand it is not allowed to see.
    /// An action that cannot be read is not refused here: resolving it refuses it, naming the
    /// field.
    fn game_master_may(&self, _state: &Value, _action: &Value) -> Result<(), Rejection> {
        Ok(())
    }
    /// Whether `action` must take its randomness from the game's seed even when the table throws
    /// its own dice: card shuffles and draws, and random picks among cards or units, which no
    /// table die can make (and which typed faces would let a player choose).
    fn seeded_only(&self, _state: &Value, _action: &Value) -> bool {
        false
    }
    /// The result in a sentence once the battle is over (who won and why), for the battle
    /// report; `None` leaves the report to its break points.
    fn verdict(&self, _state: &Value) -> Option<String> {
        None
    }
}

/// Who is looking: the game master, one side's player, or a spectator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "seat", content = "side", rename_all = "kebab-case")]
pub enum Viewer {
    GameMaster,
    Side(String),
    Spectator,
}

/// One side's losses and breaking point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SideScore {
    pub side: String,
    pub lost: u32,
    pub threshold: u32,
}

pub trait RuleSet: Sync {
    fn id(&self) -> &'static str;
    fn alias(&self) -> &'static str;
    fn name(&self) -> &'static str;
    /// The rule set's name as a reader sees it: the catalogue's `rulesets.<id>` as a
    /// language-neutral message ("The Renaissance (Andy Callan), edizione Guerre d'Italia" in
    /// Italian), or [`RuleSet::name`] as written when the catalogues do not name it.
    fn title(&self) -> String {
        let key = format!("rulesets.{}", self.id());
        if tercio_i18n::lookup(tercio_i18n::Lang::En, &key).is_some() {
            tercio_i18n::msg(&key, &[])
        } else {
            tercio_i18n::plain(self.name()).into_owned()
        }
    }
    /// The seed file of the rule text.
    fn seed(&self) -> &'static str;
    fn available(&self) -> bool;
    fn troop_types(&self) -> Vec<&'static str> {
        Vec::new()
    }
    fn allowed_flags(&self, _troop: &str) -> Vec<&'static str> {
        Vec::new()
    }
    fn required_nationality(&self, _troop: &str) -> Option<&'static [&'static str]> {
        None
    }
    /// The scenario key giving a unit's size and its range: `bases` (1 to 6) for the app-driven
    /// rule sets; rule sets that count figures name `figures`.
    fn unit_size(&self) -> (&'static str, i64, i64) {
        ("bases", 1, 6)
    }
    /// Rule-set limits on a scenario's units beyond the format's own (how many veterans, blocks
    /// by type...): each problem as (unit index, field, message), reported at that unit's field.
    fn check_units(&self, _scenario: &Scenario) -> Vec<(usize, String, String)> {
        Vec::new()
    }
    /// Whether the sides' links resolve their own actions from the start (a card game, where
    /// only a side may play its hand); otherwise they watch until the game master allows more.
    fn sides_act_by_default(&self) -> bool {
        false
    }
    /// The version of the rule set's outcomes: raised whenever a change makes an action come out
    /// differently with the same dice (or be refused), so that each game records the rules it was
    /// played under and a replay of an older game tells "rules changed since" from tampering.
    /// Each rule set's design document lists its versions.
    fn rules_version(&self) -> u32 {
        1
    }
    /// The difficulties a scenario's `[[obstacles]]` may agree before the battle (a stream, a
    /// ditch that units cross), in the rule set's own words; empty (the default) when the rule
    /// set tracks no obstacle, and a scenario giving one is refused at its line.
    fn obstacle_difficulties(&self) -> &'static [&'static str] {
        &[]
    }
    /// The numbers a scenario's `[house_rules]` may change, with their defaults, ranges and
    /// sources ([`house`]).
    fn house_rules(&self) -> Vec<HouseRule> {
        Vec::new()
    }
    /// The charts as data, for `tercio reference`.
    fn reference(&self) -> Value {
        Value::Null
    }
    /// The charts as tables for the app's rules page, for rule sets whose page the shell draws
    /// from data (empty: the shell has its own page for them).
    fn reference_tables(&self) -> Vec<BoardTable> {
        Vec::new()
    }
    /// The designers' balance sheets: troop type against troop type, and fights to the finish
    /// (`tercio matchup`, the Balance page). `None`: the rule set offers none yet.
    fn balance(&self) -> Option<Box<dyn balance::Balance>> {
        None
    }
    /// The automatic players that play whole battles of a scenario (`tercio simulate`).
    /// `None`: the rule set cannot play itself yet.
    fn simulator(&self) -> Option<Box<dyn simulate::Simulator>> {
        None
    }
    fn engine(&self, scenario: Option<&Scenario>) -> Result<Box<dyn Engine>, String>;
}
