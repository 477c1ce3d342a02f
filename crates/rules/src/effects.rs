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
                let v = at(before, p).cloned().unwrap_or(Value::Null);
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

/// The tokens of a JSON pointer (RFC 6901: `/a/b~1c` is `a`, `b/c`), or `None` when it does not
/// start with `/`. As `serde_json::Value::pointer` reads them, without its two replacements of
/// every token (a token is unescaped only when it holds a `~`): those were 3.6% of an action's
/// instructions.
fn tokens(p: &str) -> Option<impl Iterator<Item = std::borrow::Cow<'_, str>>> {
    let rest = p.strip_prefix('/')?;
    Some(rest.split('/').map(|t| {
        if t.contains('~') {
            std::borrow::Cow::Owned(t.replace("~1", "/").replace("~0", "~"))
        } else {
            std::borrow::Cow::Borrowed(t)
        }
    }))
}

/// An array index as a pointer writes it (no sign, no leading zero).
fn index(t: &str) -> Option<usize> {
    if t.starts_with('+') || (t.starts_with('0') && t.len() != 1) {
        return None;
    }
    t.parse().ok()
}

/// The value at the pointer `p` (`""`: the whole), as `serde_json::Value::pointer`.
fn at<'a>(v: &'a Value, p: &str) -> Option<&'a Value> {
    if p.is_empty() {
        return Some(v);
    }
    tokens(p)?.try_fold(v, |v, t| match v {
        Value::Object(m) => m.get(&*t),
        Value::Array(a) => index(&t).and_then(|i| a.get(i)),
        _ => None,
    })
}

/// The value at the pointer `p`, to change, as `serde_json::Value::pointer_mut`.
fn at_mut<'a>(v: &'a mut Value, p: &str) -> Option<&'a mut Value> {
    if p.is_empty() {
        return Some(v);
    }
    tokens(p)?.try_fold(v, |v, t| match v {
        Value::Object(m) => m.get_mut(&*t),
        Value::Array(a) => index(&t).and_then(|i| a.get_mut(i)),
        _ => None,
    })
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
        let slot = at_mut(state, p).ok_or_else(|| format!("effects: no value at {p}"))?;
        *slot = op["v"].clone();
    }
    Ok(())
}

/// [`reverse`] then [`apply`], finding each change's place once: the value replaced is moved
/// into the answer rather than copied. The changes must name distinct places, none inside
/// another, as [`diff`] and the typed walk write them.
pub fn apply_reversing(state: &mut Value, changes: &Value) -> Result<Value, String> {
    let ops = changes.as_array().ok_or("effects: not a list")?;
    let mut restore = Vec::with_capacity(ops.len());
    for op in ops {
        let p = op["p"].as_str().ok_or("effects: an entry without a path")?;
        let slot = at_mut(state, p).ok_or_else(|| format!("effects: no value at {p}"))?;
        let was = std::mem::replace(slot, op["v"].clone());
        restore.push(json!({"p": p, "v": was}));
    }
    Ok(Value::Array(restore))
}

/// [`diff`]`(before, after written out)`, found without writing `after` out when it can be (it
/// is walked beside `before`, and only what differs is built).
pub fn diff_typed<S: Serialize + ?Sized>(before: &Value, after: &S) -> Value {
    diff_typed_but(before, after, crate::Same::default())
}

/// [`diff_typed`], passing over the parts `same` names: the caller knows they are as recorded
/// in `before` (see [`crate::Same`]).
pub fn diff_typed_but<S: Serialize + ?Sized>(
    before: &Value,
    after: &S,
    same: crate::Same<'_>,
) -> Value {
    crate::changes::changes_but(before, after, same)
        .unwrap_or_else(|| diff(before, &serde_json::to_value(after).unwrap_or(Value::Null)))
}

/// Fold effects made by [`diff`] into a state in place, and say what changed and what that
/// replaced ([`crate::Engine::fold_changes`]): the effects are the changes.
pub fn fold_patch(state: &mut Value, effects: &Value) -> Result<(Value, Value), String> {
    let restore = apply_reversing(state, effects)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The pointers read as serde_json reads them: escapes, indices, missing steps, the root.
    #[test]
    fn pointers_read_as_serde_json_reads_them() {
        let mut v = json!({
            "a/b": {"c~d": [10, {"e": 1}]},
            "units": {"x": {"status": "OK"}, "0": "zero"},
            "list": [1, 2, 3],
            "": "empty key",
        });
        for p in [
            "",
            "/",
            "/a~1b",
            "/a~1b/c~0d",
            "/a~1b/c~0d/1/e",
            "/a~1b/c~0d/2",
            "/units/x/status",
            "/units/0",
            "/list/0",
            "/list/00",
            "/list/+1",
            "/list/-1",
            "/list/3",
            "/list/x",
            "/nope",
            "units",
            "/units/x/status/deeper",
            "/a~2b",
            "/a~1b/c~01d",
        ] {
            assert_eq!(at(&v, p), v.pointer(p), "{p}");
            let want = v.clone().pointer_mut(p).cloned();
            assert_eq!(at_mut(&mut v, p).map(|x| x.clone()), want, "{p}");
        }
    }

    /// One walk a change gives what [`reverse`] then [`apply`] give: the same state, the same
    /// values to put back, and the same refusal of a place that is not there.
    #[test]
    fn applying_while_reversing_is_reverse_then_apply() {
        let before = json!({
            "units": {"a": {"status": "ok", "lost": 0}, "b/c": {"status": "ok"}},
            "turn": 1,
            "list": [1, 2, 3],
        });
        let after = json!({
            "units": {"a": {"status": "disordered", "lost": 2}, "b/c": {"status": "routed"}},
            "turn": 2,
            "list": [1, 5, 3],
        });
        let changes = diff(&before, &after);
        assert_eq!(changes.as_array().map(Vec::len), Some(5), "{changes}");
        let mut one = before.clone();
        let restore = apply_reversing(&mut one, &changes).unwrap();
        let mut two = before.clone();
        let want = reverse(&two, &changes);
        apply(&mut two, &changes).unwrap();
        assert_eq!(one, after);
        assert_eq!(one, two);
        assert_eq!(restore, want);
        apply(&mut one, &restore).unwrap();
        assert_eq!(one, before);

        let whole = json!([{"p": "", "v": {"x": 1}}]);
        let mut root = before.clone();
        assert_eq!(
            apply_reversing(&mut root, &whole).unwrap(),
            json!([{"p": "", "v": before}])
        );
        assert_eq!(root, json!({"x": 1}));

        let missing = json!([{"p": "/units/z/status", "v": "ok"}]);
        let mut m = before.clone();
        let err = apply_reversing(&mut m, &missing).unwrap_err();
        assert_eq!(err, apply(&mut before.clone(), &missing).unwrap_err());
        assert!(err.contains("/units/z/status"), "{err}");
    }
}
