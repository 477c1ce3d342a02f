//! One reading of an action's fields, the same for every rule set.
//!
//! An action arrives as JSON: from the API as typed values, from a page's form as text. Each rule
//! set's `Action` is a typed enum whose fields use the readers here, so `"3"` and `3`, `"on"` and
//! `true` mean the same everywhere:
//!
//! - **flag** ([`flag`]): `true`/`false`; the texts `"true"`, `"on"`, `"yes"`, `"1"` and
//!   `"false"`, `"off"`, `"no"`, `"0"`, `""` (any case, spaces around ignored); the numbers 1 and
//!   0; `null` or a missing field is `false`. Anything else is refused at the field.
//! - **number** ([`number`], [`opt_number`], [`number_or_default`]): a whole number, or a text
//!   holding one (spaces around ignored). `null`, `""` or a missing field is absent: refused as
//!   missing, `None`, or the field's default.
//!   Fractions and other texts are refused at the field. Ranges are the rule set's to check,
//!   with [`in_range`].
//! - **text** ([`opt_text`], [`text`]): a string, spaces around removed; an empty one is absent.
//! - **choice** ([`opt_choice`]): one of a field's names (serde's own reading of the enum); an
//!   empty one is absent.
//! - **list of ids** ([`ids`]): an array of texts, or one text with the ids separated by commas;
//!   empty entries are dropped.
//!
//! [`read_action`] turns what serde refuses into a [`Rejection`] naming the field: a missing or
//! unknown field, an unknown action, or the field whose value cannot be read.

use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde::Deserialize;
use serde_json::Value;
use tercio_i18n::{clip, msg, plain};

use super::Rejection;

/// A text as the error's problem, escaped into a message argument, quoted at most
/// [`tercio_i18n::QUOTED_MOST`] characters of it ([`clip`]).
fn problem<E: serde::de::Error>(key: &str, value: &str) -> E {
    E::custom(msg(key, &[("value", plain(&clip(value)).as_ref())]))
}

fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A flag, read as the module's documentation says.
pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let v = Value::deserialize(d)?;
    match &v {
        Value::Null => Ok(false),
        Value::Bool(b) => Ok(*b),
        Value::Number(n) if n.as_i64() == Some(1) => Ok(true),
        Value::Number(n) if n.as_i64() == Some(0) => Ok(false),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "on" | "yes" | "1" => Ok(true),
            "false" | "off" | "no" | "0" | "" => Ok(false),
            _ => Err(problem("input.flag-expected", s)),
        },
        other => Err(problem("input.flag-expected", &shown(other))),
    }
}

fn whole(v: &Value) -> Result<Option<i64>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => n.as_i64().map(Some).ok_or_else(|| n.to_string()),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => s.trim().parse::<i64>().map(Some).map_err(|_| s.clone()),
        other => Err(shown(other)),
    }
}

/// A whole number that may be absent, read as the module's documentation says.
pub fn opt_number<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64>,
{
    let v = Value::deserialize(d)?;
    match whole(&v) {
        Ok(None) => Ok(None),
        Ok(Some(n)) => T::try_from(n)
            .map(Some)
            .map_err(|_| problem("input.number-expected", &n.to_string())),
        Err(s) => Err(problem("input.number-expected", &s)),
    }
}

/// A whole number; absent (with `#[serde(default)]`, the field's default) is refused here as
/// missing.
pub fn number<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64>,
{
    opt_number(d)?.ok_or_else(|| D::Error::custom(msg("input.required", &[])))
}

/// A whole number whose absence means the field's default (0 for a count).
pub fn number_or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64> + Default,
{
    Ok(opt_number(d)?.unwrap_or_default())
}

/// One of a field's named choices that may be left empty: `""` or `null` is `None`.
pub fn opt_choice<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => T::deserialize(Value::String(s.trim().to_string()))
            .map(Some)
            .map_err(D::Error::custom),
        other => T::deserialize(other).map(Some).map_err(D::Error::custom),
    }
}

/// A text that may be absent, trimmed.
pub fn opt_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => Ok(Some(s.trim().to_string())),
        Value::Number(n) => Ok(Some(n.to_string())),
        other => Err(problem("input.text-expected", &shown(&other))),
    }
}

/// A text that must be given, trimmed.
pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    opt_text(d)?.ok_or_else(|| D::Error::custom(msg("input.required", &[])))
}

/// A list of ids: an array of texts or one text separated by commas.
pub fn ids<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let keep = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
    match Value::deserialize(d)? {
        Value::Null => Ok(Vec::new()),
        Value::String(s) => Ok(s.split(',').filter_map(keep).collect()),
        Value::Array(items) => items
            .iter()
            .map(|x| match x {
                Value::String(s) => Ok(keep(s)),
                other => Err(problem("input.text-expected", &shown(other))),
            })
            .filter_map(Result::transpose)
            .collect(),
        other => Err(problem("input.text-expected", &shown(&other))),
    }
}

/// `value` if it lies from `min` to `max`, else the rejection naming `field` and the range.
pub fn in_range<T: PartialOrd + std::fmt::Display>(
    field: &str,
    value: T,
    min: T,
    max: T,
) -> Result<T, Rejection> {
    if value >= min && value <= max {
        return Ok(value);
    }
    Err(Rejection::new(
        "bad-number",
        Some(field),
        msg(
            "input.out-of-range",
            &[
                ("field", field),
                ("min", &min.to_string()),
                ("max", &max.to_string()),
            ],
        ),
    ))
}

/// The name between the first pair of backticks of serde's message after `prefix`.
fn quoted<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = &text[text.find(prefix)? + prefix.len()..];
    let rest = rest.strip_prefix('`')?;
    Some(&rest[..rest.find('`')?])
}

/// The names serde lists after "expected one of" (the variants or fields allowed).
fn listed(text: &str) -> String {
    text.split_once("expected one of ")
        .map(|(_, l)| l.replace('`', ""))
        .unwrap_or_default()
}

/// Where a name or value serde quotes sits: the action's own fields first, then one level down
/// (a fighter's `a.order`). `key`: look for a field of that name, else for a field holding
/// that value.
fn locate(action: &Value, quoted: &str, key: bool) -> Option<String> {
    let obj = action.as_object()?;
    let mut places: Vec<(String, &serde_json::Map<String, Value>)> = vec![(String::new(), obj)];
    for (k, v) in obj {
        if let Some(inner) = v.as_object() {
            places.push((format!("{k}."), inner));
        }
    }
    places.iter().find_map(|(prefix, map)| {
        let hit = if key {
            map.contains_key(quoted).then(|| quoted.to_string())
        } else {
            map.iter()
                .find(|(k, v)| {
                    k.as_str() != "action"
                        && (v.as_str() == Some(quoted)
                            || (v.is_number() && v.to_string().as_str() == quoted))
                })
                .map(|(k, _)| k.clone())
        };
        hit.map(|k| format!("{prefix}{k}"))
    })
}

/// Read a typed action from its JSON, every refusal a [`Rejection`] naming its field.
///
/// Every variant of an action enum must be a struct variant (`Draw {}`, not `Draw`): serde
/// checks unknown fields only there, and the test of every rule set's actions holds them to it.
pub fn read_action<A: DeserializeOwned>(action: &Value) -> Result<A, Rejection> {
    let name = match action.get("action") {
        Some(Value::String(s)) if action.is_object() => s.as_str(),
        _ => {
            return Err(Rejection::new(
                "bad-action",
                Some("action"),
                msg("input.bad-action", &[]),
            ))
        }
    };
    let err = match A::deserialize(action) {
        Ok(a) => return Ok(a),
        Err(e) => e.to_string(),
    };
    if let Some(v) = quoted(&err, "unknown variant ") {
        if v == name {
            return Err(Rejection::new(
                "unknown-action",
                Some("action"),
                msg(
                    "input.unknown-action",
                    &[
                        ("action", plain(&clip(v)).as_ref()),
                        ("allowed", &listed(&err)),
                    ],
                ),
            ));
        }
    }
    if let Some(f) = quoted(&err, "missing field ") {
        return Err(missing(f));
    }
    if let Some(f) = quoted(&err, "unknown field ") {
        let at = locate(action, f, true).unwrap_or_else(|| f.to_string());
        return Err(Rejection::new(
            "unknown-field",
            Some(&at),
            msg(
                "input.unknown-field",
                &[
                    ("field", plain(&clip(&at)).as_ref()),
                    ("action", name),
                    ("allowed", &or_none(listed(&err))),
                ],
            ),
        ));
    }
    // A value that cannot be read: the field holding the value serde quotes, else the field
    // whose leaving out changes the answer.
    let by_value = err.split('`').nth(1).and_then(|v| locate(action, v, false));
    let field = by_value.or_else(|| {
        let obj = action.as_object()?;
        obj.keys()
            .filter(|k| k.as_str() != "action")
            .find(|k| {
                let mut without = action.clone();
                without.as_object_mut().map(|m| m.remove(k.as_str()));
                match A::deserialize(&without) {
                    Ok(_) => true,
                    Err(e) => quoted(&e.to_string(), "missing field ") == Some(k.as_str()),
                }
            })
            .cloned()
    });
    let field = field.unwrap_or_else(|| "action".to_string());
    if err.contains("input.required") {
        return Err(missing(&field));
    }
    let problem = if err.contains(tercio_i18n::OPEN) {
        err
    } else if let Some(p) = wrong_type(&err, action.get(&field)) {
        p
    } else {
        msg(
            "input.unreadable",
            &[("detail", &tercio_i18n::clip_quoted(&err))],
        )
    };
    Err(Rejection::new(
        "bad-field",
        Some(&field),
        msg(
            "input.bad-field",
            &[
                ("field", plain(&clip(&field)).as_ref()),
                ("problem", &problem),
            ],
        ),
    ))
}

fn missing(field: &str) -> Rejection {
    Rejection::new(
        "missing-field",
        Some(field),
        msg(
            "input.missing-field",
            &[("field", plain(&clip(field)).as_ref())],
        ),
    )
}

/// The state a rule set records, read back; a state that cannot be read is refused.
pub fn read_state<S: DeserializeOwned>(state: &Value) -> Result<S, Rejection> {
    S::deserialize(state).map_err(|e| {
        Rejection::new(
            "bad-state",
            None,
            msg("input.bad-state", &[("error", &e.to_string())]),
        )
    })
}

/// serde's "invalid type: …, expected …" said in the reader's words: what kind of value the
/// field takes (an object, text, a list, a whole number, true or false) and the value the
/// request gave it. `None` for another error, a kind not named here, or a value serde refused
/// inside the field rather than the field's own (its refusal then keeps serde's detail).
fn wrong_type(err: &str, given: Option<&Value>) -> Option<String> {
    let rest = err.strip_prefix("invalid type: ")?;
    let (got, expected) = rest.rsplit_once(", expected ")?;
    // serde names the value it refused: it must be the field's own, not one inside it. A text,
    // number or flag serde quotes; a list or an object it names by kind alone, so one holding
    // another of its kind cannot be told from it.
    let given = given?;
    let own = match given {
        Value::String(t) => got == format!("string {t:?}"),
        Value::Number(n) => got.ends_with(&format!("`{n}`")),
        Value::Bool(b) => got == format!("boolean `{b}`"),
        Value::Array(a) => got == "sequence" && !a.iter().any(Value::is_array),
        Value::Object(o) => got == "map" && !o.values().any(Value::is_object),
        Value::Null => got == "null" || got == "unit value",
    };
    if !own {
        return None;
    }
    let expected = expected.split(" at line ").next().unwrap_or(expected);
    let kind = if expected.starts_with("struct ") || expected.contains("map") {
        "input.kind.object"
    } else if expected.contains("string") {
        "input.kind.text"
    } else if expected.contains("sequence") || expected.contains("list") {
        "input.kind.list"
    } else if expected.contains("bool") {
        "input.kind.flag"
    } else if [
        "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "usize", "integer",
    ]
    .iter()
    .any(|n| expected.contains(n))
    {
        "input.kind.number"
    } else {
        return None;
    };
    let value = clip(&given.to_string()).into_owned();
    Some(msg(
        "input.wrong-type",
        &[
            ("expected", &format!("@{kind}")),
            ("value", plain(&value).as_ref()),
        ],
    ))
}

/// A list for a message, or the catalogue's word for none when it is empty.
pub(crate) fn or_none(list: String) -> String {
    if list.is_empty() {
        "@input.none".to_string()
    } else {
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
    enum Act {
        Fire {
            #[serde(deserialize_with = "text")]
            unit: String,
            #[serde(default, deserialize_with = "flag")]
            cover: bool,
            #[serde(default, deserialize_with = "opt_number")]
            bases: Option<u32>,
            #[serde(default, deserialize_with = "ids")]
            targets: Vec<String>,
        },
        #[serde(alias = "end_turn")]
        EndTurn {},
    }

    fn read(v: Value) -> Result<Act, Rejection> {
        read_action(&v)
    }

    #[test]
    fn form_text_and_typed_values_read_the_same() {
        let typed = read(
            json!({"action": "fire", "unit": "a", "cover": true, "bases": 3,
            "targets": ["x", "y"]}),
        );
        let text = read(
            json!({"action": "fire", "unit": " a ", "cover": "on", "bases": " 3",
            "targets": "x, y,"}),
        );
        assert_eq!(typed, text);
        assert!(typed.is_ok());
        for (v, want) in [
            (json!("yes"), true),
            (json!("1"), true),
            (json!(1), true),
            (json!("OFF"), false),
            (json!(""), false),
            (json!(0), false),
            (Value::Null, false),
        ] {
            let a = read(json!({"action": "fire", "unit": "a", "cover": v})).unwrap();
            assert!(matches!(a, Act::Fire { cover, .. } if cover == want), "{v}");
        }
        let a = read(json!({"action": "fire", "unit": "a", "bases": ""})).unwrap();
        assert!(matches!(a, Act::Fire { bases: None, .. }));
    }

    #[test]
    fn a_refusal_quotes_a_long_name_clipped_and_says_when_an_action_has_no_fields() {
        let long = "a".repeat(10_000);
        let r = read(json!({"action": long})).unwrap_err();
        assert_eq!(r.code, "unknown-action");
        let m = tercio_i18n::localize(tercio_i18n::Lang::En, &r.message);
        assert!(m.contains(&format!("{}…", "a".repeat(60))), "{m}");
        assert!(m.len() < 400, "{} bytes: {m}", m.len());
        let r = read(json!({"action": "end-turn", "x": 1})).unwrap_err();
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("unknown-field", Some("x"))
        );
        let m = tercio_i18n::localize(tercio_i18n::Lang::En, &r.message);
        assert!(m.ends_with("its fields: none"), "{m}");
    }

    #[test]
    fn a_wrong_kind_is_said_only_of_the_fields_own_value() {
        let said = |err: &str, v: Value| {
            wrong_type(err, Some(&v)).map(|m| tercio_i18n::localize(tercio_i18n::Lang::En, &m))
        };
        let to_struct = "invalid type: string \"x\", expected struct Fighter";
        assert_eq!(
            said(to_struct, json!("x")).as_deref(),
            Some("an object with its fields expected, not \"x\"")
        );
        assert_eq!(
            said("invalid type: integer `5`, expected a string", json!(5)).as_deref(),
            Some("text expected, not 5")
        );
        assert_eq!(
            said(
                "invalid type: sequence, expected struct Fighter",
                json!([1, 2])
            )
            .as_deref(),
            Some("an object with its fields expected, not [1,2]")
        );
        // serde refused a value inside the field's: not said of the field.
        assert_eq!(
            said("invalid type: map, expected a string", json!({"unit": {}})),
            None
        );
        assert_eq!(said(to_struct, json!({"unit": "x"})), None);
        assert_eq!(
            said("invalid type: string \"y\", expected a boolean", json!("x")),
            None
        );
        // A text holding serde's own words is still read from the end.
        assert!(said(
            "invalid type: string \"a, expected b\", expected u32",
            json!("a, expected b")
        )
        .is_some());
        assert_eq!(said("missing field `unit`", json!("x")), None);
    }

    #[test]
    fn refusals_name_the_field() {
        let r = read(json!({"action": "fire", "unit": "a", "cover": "maybe"})).unwrap_err();
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("bad-field", Some("cover"))
        );
        assert!(r.message.contains("maybe"), "{}", r.message);
        let r = read(json!({"action": "fire", "unit": "a", "bases": "2.5"})).unwrap_err();
        assert_eq!(r.field.as_deref(), Some("bases"));
        let r = read(json!({"action": "fire", "unit": "a", "bases": -1})).unwrap_err();
        assert_eq!(r.field.as_deref(), Some("bases"));
        let r = read(json!({"action": "fire", "cover": true})).unwrap_err();
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("missing-field", Some("unit"))
        );
        let r = read(json!({"action": "fire", "unit": " "})).unwrap_err();
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("missing-field", Some("unit"))
        );
        let r = read(json!({"action": "fire", "unit": "a", "range": 3})).unwrap_err();
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("unknown-field", Some("range"))
        );
        let r = read(json!({"action": "fly"})).unwrap_err();
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("unknown-action", Some("action"))
        );
        assert!(r.message.contains("end-turn"), "{}", r.message);
        let r = read(json!({"unit": "a"})).unwrap_err();
        assert_eq!(r.code, "bad-action");
    }

    #[test]
    fn a_field_less_action_refuses_unknown_fields_and_keeps_its_old_spelling() {
        assert_eq!(read(json!({"action": "end_turn"})), Ok(Act::EndTurn {}));
        assert_eq!(read(json!({"action": "end-turn"})), Ok(Act::EndTurn {}));
        let r = read(json!({"action": "end-turn", "unit": "a"})).unwrap_err();
        assert_eq!(
            (r.code.as_str(), r.field.as_deref()),
            ("unknown-field", Some("unit"))
        );
    }

    #[test]
    fn ranges_are_checked_with_their_limits_named() {
        assert_eq!(in_range("bases", 3u32, 1, 6), Ok(3));
        let r = in_range("bases", 7u32, 1, 6).unwrap_err();
        assert_eq!(r.field.as_deref(), Some("bases"));
        let text = tercio_i18n::localize(tercio_i18n::Lang::En, &r.message);
        assert_eq!(text, "bases: a whole number from 1 to 6");
    }
}
