//! Effects as absolute values at JSON pointers, and seeded shuffles: shared by the rule sets
//! whose game state is a fold of state differences (Commands & Colors ECW, Callan).

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use tercio_core::{DiceStream, Step};

/// The result of a resolution: the next state `S` with its explanation — the steps, the summary
/// and the facets the odds are tabulated from.
#[derive(Clone)]
pub struct Res<S> {
    pub st: S,
    pub steps: Vec<Step>,
    pub summary: Vec<String>,
    pub facets: Vec<(String, String)>,
}

impl<S: Clone> Res<S> {
    pub(crate) fn new(st: &S) -> Self {
        Res {
            st: st.clone(),
            steps: Vec::new(),
            summary: Vec::new(),
            facets: Vec::new(),
        }
    }
    pub(crate) fn say(&mut self, s: impl Into<String>) {
        self.summary.push(s.into());
    }
    /// A step without dice.
    pub(crate) fn step(&mut self, title: impl Into<String>, result: impl Into<String>) {
        self.steps.push(Step {
            title: title.into(),
            dice: Vec::new(),
            modifiers: Vec::new(),
            totals: Vec::new(),
            result: result.into(),
        });
    }
    pub(crate) fn facet(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.facets.push((key.into(), value.into()));
    }
}

/// The changes from `a` to `b`: `[{"p": pointer, "v": value}]`. Objects are compared key by key;
/// arrays of equal length element by element; anything else is replaced whole.
pub fn diff(a: &Value, b: &Value) -> Value {
    let mut out = Vec::new();
    diff_at(&mut String::new(), a, b, &mut out);
    Value::Array(out)
}

/// One pass over both values: containers of the same shape are walked (the path grown and cut
/// back in one buffer), anything else compared once.
fn diff_at(path: &mut String, a: &Value, b: &Value, out: &mut Vec<Value>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() && x.keys().eq(y.keys()) => {
            for ((k, p), q) in x.iter().zip(y.values()) {
                let n = path.len();
                path.push('/');
                path.push_str(&escape(k));
                diff_at(path, p, q, out);
                path.truncate(n);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                let n = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                diff_at(path, p, q, out);
                path.truncate(n);
            }
        }
        _ if a == b => {}
        _ => out.push(json!({"p": path.as_str(), "v": b})),
    }
}

/// The changes that take `after` back to `before`, given `changes` = [`diff`]`(before, after)`:
/// each of their paths with its value in `before`. Every path [`diff`] gives is in both states
/// (it walks containers only while their shapes agree), so this is [`diff`]`(after, before)`
/// without walking the states again.
pub fn reverse(before: &Value, changes: &Value) -> Value {
    let ops = changes.as_array().map(Vec::as_slice).unwrap_or_default();
    Value::Array(
        ops.iter()
            .map(|op| {
                let p = op["p"].as_str().unwrap_or_default();
                let v = before.pointer(p).cloned().unwrap_or(Value::Null);
                json!({"p": p, "v": v})
            })
            .collect(),
    )
}

fn escape(k: &str) -> std::borrow::Cow<'_, str> {
    if k.contains(['~', '/']) {
        std::borrow::Cow::Owned(k.replace('~', "~0").replace('/', "~1"))
    } else {
        std::borrow::Cow::Borrowed(k)
    }
}

/// Fold effects made by [`diff`] into a state.
pub fn apply(state: &mut Value, effects: &Value) -> Result<(), String> {
    let ops = effects.as_array().ok_or("effects: not a list")?;
    for op in ops {
        let p = op["p"].as_str().ok_or("effects: an entry without a path")?;
        if p.is_empty() {
            *state = op["v"].clone();
            continue;
        }
        let slot = state
            .pointer_mut(p)
            .ok_or_else(|| format!("effects: no value at {p}"))?;
        *slot = op["v"].clone();
    }
    Ok(())
}

/// [`diff`]`(before, after written out)`, found without writing `after` out when it can be (it
/// is walked beside `before`, and only what differs is built).
pub fn diff_typed<S: Serialize + ?Sized>(before: &Value, after: &S) -> Value {
    crate::changes::changes(before, after)
        .unwrap_or_else(|| diff(before, &serde_json::to_value(after).unwrap_or(Value::Null)))
}

/// Fold effects made by [`diff`] into a state in place, and say what changed and what that
/// replaced ([`crate::Engine::fold_changes`]): the effects are the changes.
pub fn fold_patch(state: &mut Value, effects: &Value) -> Result<(Value, Value), String> {
    let restore = reverse(state, effects);
    apply(state, effects)?;
    let changes = effects
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|op| json!({"p": op["p"], "v": op["v"]}))
        .collect();
    Ok((Value::Array(changes), restore))
}

/// The effects of going from the recorded state `before` to `after` ([`diff`]); `Null` when
/// there is no state before (a stand-alone action).
pub fn since<S: Serialize>(before: Option<&Value>, after: &S) -> Value {
    match before {
        Some(b) => diff_typed(b, after),
        None => Value::Null,
    }
}

/// Fold effects into a typed state: written out, patched, read back (the shell patches the
/// recorded JSON instead, with [`apply`]).
pub fn apply_typed<S: Serialize + DeserializeOwned>(
    state: &mut S,
    effects: &Value,
) -> Result<(), String> {
    let mut v = serde_json::to_value(&*state).map_err(|e| e.to_string())?;
    apply(&mut v, effects)?;
    *state = S::deserialize(&v).map_err(|e| e.to_string())?;
    Ok(())
}

/// Deterministic shuffle number `k` of `cards` from the game's key.
pub fn shuffled(salt: u64, k: u32, mut cards: Vec<u8>) -> Vec<u8> {
    let mut s = DiceStream::at(salt, u128::from(k) << 32);
    for i in (1..cards.len()).rev() {
        let j = s.below(i as u32 + 1) as usize;
        cards.swap(i, j);
    }
    cards
}
