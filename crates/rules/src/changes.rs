//! What a typed state changed in its recorded JSON, found without writing the state out.
//!
//! [`changes`] gives exactly [`crate::effects::diff`]`(before, &serde_json::to_value(after))`, but
//! walks `after` through serde beside `before` instead of building its JSON tree: only the values
//! that differ are built. Writing a whole state out, comparing it and dropping the old tree was
//! about two fifths of an action's instructions (`docs/performance.md`). A change of shape the
//! walk cannot follow (a map whose keys change but not their number) makes it give up, and the
//! caller compares whole trees as before.

use std::borrow::Cow;

use serde::ser::{self, Serialize, Serializer};
use serde_json::{json, Value};

/// One step of a path: a key of an object (a struct's field names are borrowed) or an index of an
/// array. Ordered as the diff walks: keys as sorted maps sort them, items by index.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Seg {
    Key(Cow<'static, str>),
    Index(usize),
}

type Out = Vec<(Vec<Seg>, Value)>;

/// Parts of a typed state that one fold left as they were, which the walk passes over without
/// writing them out: entries of maps that are fields of the state's root (`units/a`). A rule set
/// names them by comparing its typed states before and after ([`crate::Rules::same_parts`]);
/// they are used only when the recorded state is known to be the typed state before, written out
/// (then a part equal before and after is equal to what is recorded). Walking the units an
/// action did not touch was most of the walk (`docs/performance.md`).
#[derive(Default)]
pub struct Same<'s> {
    /// A field of the root, and the keys of its entries passed over, sorted.
    maps: Vec<(&'s str, Vec<&'s str>)>,
}

impl<'s> Same<'s> {
    /// The entries of the map at `field` (a field of the state's root) whose values are equal
    /// before and after.
    pub fn entries<K: Ord + std::borrow::Borrow<str>, V: PartialEq>(
        mut self,
        field: &'s str,
        before: &std::collections::BTreeMap<K, V>,
        after: &'s std::collections::BTreeMap<K, V>,
    ) -> Self {
        // Both maps are in key order, and nearly always have the same keys: walked side by side.
        // A copied map shares its keys, so a key is first told by its address: the bytes of
        // the keys, cold in the memory of a server with many games, are read only for keys
        // that are not shared.
        let same_key = |o: &K, k: &K| std::ptr::eq::<str>(o.borrow(), k.borrow()) || o == k;
        let mut old = before.iter().peekable();
        let mut keys = Vec::with_capacity(after.len());
        for (k, v) in after {
            while old.next_if(|(o, _)| !same_key(o, k) && *o < k).is_some() {}
            if old.next_if(|(o, w)| same_key(o, k) && *w == v).is_some() {
                keys.push(k.borrow());
            }
        }
        self.maps.push((field, keys));
        self
    }

    /// The keys passed over in the map at `path`, sorted: none unless `path` is a field of the
    /// root that [`Same::entries`] named.
    fn keys_at(&self, path: &[Seg]) -> &[&'s str] {
        let [Seg::Key(field)] = path else {
            return &[];
        };
        self.maps
            .iter()
            .find(|(f, _)| f == field)
            .map_or(&[], |(_, keys)| keys.as_slice())
    }
}

/// Whether `k`, the next key of a map, is one of `skip`, the sorted keys passed over, looked for
/// from `*at` on. A sorted map's keys come in order, so each is found at or just after the last;
/// and as they are the typed state's own keys, each is met as the very same text, told by its
/// address before its bytes are compared. Keys that come in another order are only walked,
/// never wrongly passed over.
fn passed_over(skip: &[&str], at: &mut usize, k: &str) -> bool {
    while let Some(&s) = skip.get(*at) {
        if std::ptr::eq(s, k) {
            *at += 1;
            return true;
        }
        match s.cmp(k) {
            std::cmp::Ordering::Less => *at += 1,
            std::cmp::Ordering::Equal => {
                *at += 1;
                return true;
            }
            std::cmp::Ordering::Greater => return false,
        }
    }
    false
}

/// The changes from `before` to `after` written out, as [`crate::effects::diff`] gives them (the
/// same paths, values and order), or `None` when the walk gave up.
#[cfg(test)]
fn changes<S: Serialize + ?Sized>(before: &Value, after: &S) -> Option<Value> {
    changes_but(before, after, Same::default())
}

/// [`changes`], passing over the parts `same` names, which the caller knows are as recorded.
pub(crate) fn changes_but<S: Serialize + ?Sized>(
    before: &Value,
    after: &S,
    same: Same<'_>,
) -> Option<Value> {
    let mut path = Vec::new();
    let mut out = Vec::new();
    after
        .serialize(Walk {
            old: before,
            path: &mut path,
            out: &mut out,
            same: &same,
        })
        .ok()?;
    // The walk follows the fields in their declared order; the diff, the keys in sorted order
    // (objects are sorted maps) and the items by index.
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Some(Value::Array(
        out.into_iter()
            .map(|(p, v)| json!({"p": pointer(&p), "v": v}))
            .collect(),
    ))
}

fn pointer(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        s.push('/');
        match seg {
            Seg::Key(k) if k.contains(['~', '/']) => {
                s.push_str(&k.replace('~', "~0").replace('/', "~1"));
            }
            Seg::Key(k) => s.push_str(k),
            Seg::Index(i) => s.push_str(&i.to_string()),
        }
    }
    s
}

/// The walk gave up: the caller compares whole trees.
#[derive(Debug)]
struct GiveUp;

impl std::fmt::Display for GiveUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the walk cannot follow this change of shape")
    }
}

impl std::error::Error for GiveUp {}

impl ser::Error for GiveUp {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        GiveUp
    }
}

/// Serde's own writer of JSON values, for what is built whole.
fn whole<T: Serialize + ?Sized>(v: &T) -> Result<Value, GiveUp> {
    serde_json::to_value(v).map_err(|_| GiveUp)
}

/// A value built whole, compared once with its recorded counterpart: a change when it differs.
fn leaf(old: &Value, path: &[Seg], out: &mut Out, new: Value) -> Result<(), GiveUp> {
    if *old != new {
        out.push((path.to_vec(), new));
    }
    Ok(())
}

/// Walks one value of `after` beside `old`, its recorded counterpart at `path`.
struct Walk<'a> {
    old: &'a Value,
    path: &'a mut Vec<Seg>,
    out: &'a mut Out,
    same: &'a Same<'a>,
}

impl Walk<'_> {
    fn leaf(self, new: Value) -> Result<(), GiveUp> {
        leaf(self.old, self.path, self.out, new)
    }
}

/// The recorded entry named `k`, looked for from just after the last one found (`at`): a map's
/// keys come in their recorded, sorted order, and a struct's fields often nearly so; lengths are
/// compared before bytes. A search of the sorted map compares the bytes of every key it passes,
/// and those searches were a sixth of an action's instructions (`docs/performance.md`).
fn find<'a>(entries: &[(&'a str, &'a Value)], at: &mut usize, k: &str) -> Option<&'a Value> {
    let from = (*at).min(entries.len());
    let (after, before) = (&entries[from..], &entries[..from]);
    let hit = |part: &[(&'a str, &'a Value)]| {
        part.iter()
            .position(|(key, _)| key.len() == k.len() && *key == k)
    };
    let i = match hit(after) {
        Some(i) => from + i,
        None => hit(before)?,
    };
    *at = i + 1;
    Some(entries[i].1)
}

/// A container being walked. `Same`: its recorded counterpart has its shape, and its entries
/// are walked beside theirs (`len` `None`: a length serde did not say, checked at the end).
/// `Built`: the shape changed, so it is built whole and is one change (as the diff replaces a
/// container whose length changed).
enum Body<'a> {
    Same {
        old: &'a Value,
        path: &'a mut Vec<Seg>,
        out: &'a mut Out,
        same: &'a Same<'a>,
        seen: usize,
        /// The recorded object's entries in their (sorted) order, and where the last key was
        /// found ([`find`]).
        entries: Vec<(&'a str, &'a Value)>,
        at: usize,
        /// For a map the caller named unchanged parts of: their keys, sorted, and how many of
        /// them the walk has passed ([`passed_over`]).
        skip: &'a [&'a str],
        skipped: usize,
        /// The recorded entry the last key or field named, and the path's step to it; `None`
        /// inside when it is one of the parts passed over.
        next: Option<Option<(Cow<'static, str>, &'a Value)>>,
        /// `{"variant": …}` entered: one more step of the path to leave at the end.
        variant: bool,
    },
    Built {
        old: &'a Value,
        path: &'a mut Vec<Seg>,
        out: &'a mut Out,
        items: Vec<Value>,
        map: serde_json::Map<String, Value>,
        key: Option<String>,
        /// Written as `{"variant": …}` (the recorded value was another variant).
        wrap: Option<&'static str>,
        variant: bool,
        is_map: bool,
    },
}

impl<'a> Body<'a> {
    /// Open a container, inside `{"variant": …}` when `variant` is given (serde_json's writing of
    /// a tuple or struct variant).
    fn open(
        walk: Walk<'a>,
        len: Option<usize>,
        is_map: bool,
        variant: Option<&'static str>,
    ) -> Self {
        let Walk {
            old,
            path,
            out,
            same,
        } = walk;
        let (old, entered, wrap) = match variant {
            None => (old, false, None),
            Some(v) => match old {
                Value::Object(m) if m.len() == 1 && m.contains_key(v) => {
                    path.push(Seg::Key(Cow::Borrowed(v)));
                    (&m[v], true, None)
                }
                _ => (old, false, Some(v)),
            },
        };
        let same_shape = wrap.is_none()
            && match (old, len) {
                (Value::Object(m), n) => is_map && n.is_none_or(|n| m.len() == n),
                (Value::Array(a), n) => !is_map && n.is_none_or(|n| a.len() == n),
                _ => false,
            };
        if same_shape {
            let entries = match old {
                Value::Object(m) => m.iter().map(|(k, v)| (k.as_str(), v)).collect(),
                _ => Vec::new(),
            };
            let skip = if is_map { same.keys_at(path) } else { &[] };
            Body::Same {
                old,
                path,
                out,
                same,
                seen: 0,
                entries,
                at: 0,
                skip,
                skipped: 0,
                next: None,
                variant: entered,
            }
        } else {
            Body::Built {
                old,
                path,
                out,
                items: Vec::new(),
                map: serde_json::Map::new(),
                key: None,
                wrap,
                variant: entered,
                is_map,
            }
        }
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), GiveUp> {
        match self {
            Body::Same {
                old,
                path,
                out,
                same,
                seen,
                ..
            } => {
                let o = old.get(*seen).ok_or(GiveUp)?;
                path.push(Seg::Index(*seen));
                *seen += 1;
                let r = value.serialize(Walk {
                    old: o,
                    path,
                    out,
                    same,
                });
                path.pop();
                r
            }
            Body::Built { items, .. } => {
                items.push(whole(value)?);
                Ok(())
            }
        }
    }

    /// A key or field named `k`. Walking the recorded state beside: its entry is found now, and
    /// the value that follows is walked beside it, or passed over when it is one of the parts
    /// `same` names; `step` gives the path's step, built only for a value walked.
    fn named(&mut self, k: &str, step: impl FnOnce() -> Cow<'static, str>) -> Result<(), GiveUp> {
        match self {
            Body::Same {
                seen,
                entries,
                at,
                skip,
                skipped,
                next,
                ..
            } => {
                *seen += 1;
                if passed_over(skip, skipped, k) {
                    // A part the caller knows is as recorded (and so recorded): its entry is
                    // not looked for, so its key's bytes are not read; the cursor moves on to
                    // where the next key should be.
                    *at += 1;
                    *next = Some(None);
                } else {
                    // As many keys as recorded, and this one is not among them: the keys
                    // changed. The diff replaces such a map whole, which the walk did not
                    // keep: give up.
                    let o = find(entries, at, k).ok_or(GiveUp)?;
                    *next = Some(Some((step(), o)));
                }
            }
            Body::Built { key, .. } => *key = Some(k.to_string()),
        }
        Ok(())
    }

    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), GiveUp> {
        // A key serde gives as text is looked up as it is: a map of units names each unit, and
        // most are passed over. Another key (a number, a bool) is written out as JSON writes it.
        match key.serialize(KeyText(|k: &str| {
            self.named(k, || Cow::Owned(k.to_string()))
        })) {
            Err(KeyErr::NotText) => {}
            r => return r.map_err(|_| GiveUp),
        }
        let k = match whole(key)? {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => return Err(GiveUp),
        };
        self.named(&k, || Cow::Owned(k.clone()))
    }

    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), GiveUp> {
        match self {
            Body::Same {
                path,
                out,
                same,
                next,
                ..
            } => {
                let Some((k, o)) = next.take().ok_or(GiveUp)? else {
                    return Ok(());
                };
                path.push(Seg::Key(k));
                let r = value.serialize(Walk {
                    old: o,
                    path,
                    out,
                    same,
                });
                path.pop();
                r
            }
            Body::Built { map, key, .. } => {
                let k = key.take().ok_or(GiveUp)?;
                map.insert(k, whole(value)?);
                Ok(())
            }
        }
    }

    fn field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), GiveUp> {
        self.named(name, || Cow::Borrowed(name))?;
        self.value(value)
    }

    fn end(self) -> Result<(), GiveUp> {
        match self {
            Body::Same {
                old,
                path,
                seen,
                variant,
                ..
            } => {
                // A length serde did not say: every recorded entry must have been met.
                let n = match old {
                    Value::Object(m) => m.len(),
                    Value::Array(a) => a.len(),
                    _ => 0,
                };
                if seen != n {
                    return Err(GiveUp);
                }
                if variant {
                    path.pop();
                }
                Ok(())
            }
            Body::Built {
                old,
                path,
                out,
                items,
                map,
                wrap,
                variant,
                is_map,
                ..
            } => {
                let v = if is_map {
                    Value::Object(map)
                } else {
                    Value::Array(items)
                };
                let v = match wrap {
                    Some(name) => json!({ name: v }),
                    None => v,
                };
                leaf(old, path, out, v)?;
                if variant {
                    path.pop();
                }
                Ok(())
            }
        }
    }
}

/// A map's key, handed to `F` as text when serde gives it as text (a string, a unit variant),
/// without building it; any other key is [`KeyErr::NotText`].
struct KeyText<F>(F);

#[derive(Debug)]
enum KeyErr {
    NotText,
    GiveUp,
}

impl std::fmt::Display for KeyErr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a key that is not text")
    }
}

impl std::error::Error for KeyErr {}

impl ser::Error for KeyErr {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        KeyErr::GiveUp
    }
}

macro_rules! not_text {
    ($($name:ident($($t:ty),*)),*) => {$(
        fn $name(self, $(_: $t),*) -> Result<Self::Ok, KeyErr> {
            Err(KeyErr::NotText)
        }
    )*};
}

type NoKey = ser::Impossible<(), KeyErr>;

impl<F: FnOnce(&str) -> Result<(), GiveUp>> Serializer for KeyText<F> {
    type Ok = ();
    type Error = KeyErr;
    type SerializeSeq = NoKey;
    type SerializeTuple = NoKey;
    type SerializeTupleStruct = NoKey;
    type SerializeTupleVariant = NoKey;
    type SerializeMap = NoKey;
    type SerializeStruct = NoKey;
    type SerializeStructVariant = NoKey;

    fn serialize_str(self, v: &str) -> Result<(), KeyErr> {
        (self.0)(v).map_err(|GiveUp| KeyErr::GiveUp)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        v: &'static str,
    ) -> Result<(), KeyErr> {
        self.serialize_str(v)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), KeyErr> {
        value.serialize(self)
    }
    not_text!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str)
    );
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), KeyErr> {
        Err(KeyErr::NotText)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), KeyErr> {
        Err(KeyErr::NotText)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<NoKey, KeyErr> {
        Err(KeyErr::NotText)
    }
    fn serialize_tuple(self, _: usize) -> Result<NoKey, KeyErr> {
        Err(KeyErr::NotText)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<NoKey, KeyErr> {
        Err(KeyErr::NotText)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<NoKey, KeyErr> {
        Err(KeyErr::NotText)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<NoKey, KeyErr> {
        Err(KeyErr::NotText)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<NoKey, KeyErr> {
        Err(KeyErr::NotText)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<NoKey, KeyErr> {
        Err(KeyErr::NotText)
    }
}

macro_rules! body_impl {
    ($($tr:ident :: $m:ident),*) => {$(
        impl ser::$tr for Body<'_> {
            type Ok = ();
            type Error = GiveUp;
            fn $m<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), GiveUp> {
                self.item(value)
            }
            fn end(self) -> Result<(), GiveUp> {
                Body::end(self)
            }
        }
    )*};
}

body_impl!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Body<'_> {
    type Ok = ();
    type Error = GiveUp;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), GiveUp> {
        self.key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), GiveUp> {
        self.value(value)
    }
    fn end(self) -> Result<(), GiveUp> {
        Body::end(self)
    }
}

macro_rules! fields_impl {
    ($($tr:ident),*) => {$(
        impl ser::$tr for Body<'_> {
            type Ok = ();
            type Error = GiveUp;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), GiveUp> {
                self.field(key, value)
            }
            fn end(self) -> Result<(), GiveUp> {
                Body::end(self)
            }
        }
    )*};
}

fields_impl!(SerializeStruct, SerializeStructVariant);

/// Scalars are built by serde_json's own writer, so they compare exactly as written out.
macro_rules! scalar {
    ($($name:ident: $t:ty),*) => {$(
        fn $name(self, v: $t) -> Result<(), GiveUp> {
            let new = serde_json::value::Serializer.$name(v).map_err(|_| GiveUp)?;
            self.leaf(new)
        }
    )*};
}

impl<'a> Serializer for Walk<'a> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Body<'a>;
    type SerializeTuple = Body<'a>;
    type SerializeTupleStruct = Body<'a>;
    type SerializeTupleVariant = Body<'a>;
    type SerializeMap = Body<'a>;
    type SerializeStruct = Body<'a>;
    type SerializeStructVariant = Body<'a>;

    scalar!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_bytes: &[u8]);

    fn serialize_str(self, v: &str) -> Result<(), GiveUp> {
        match self.old {
            Value::String(s) if s == v => Ok(()),
            _ => self.leaf(Value::String(v.to_string())),
        }
    }
    fn serialize_none(self) -> Result<(), GiveUp> {
        self.leaf(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), GiveUp> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), GiveUp> {
        self.leaf(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), GiveUp> {
        self.leaf(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), GiveUp> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), GiveUp> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), GiveUp> {
        match self.old {
            Value::Object(m) if m.len() == 1 && m.contains_key(variant) => {
                self.path.push(Seg::Key(Cow::Borrowed(variant)));
                let r = value.serialize(Walk {
                    old: &m[variant],
                    path: &mut *self.path,
                    out: &mut *self.out,
                    same: self.same,
                });
                self.path.pop();
                r
            }
            _ => {
                let v = whole(value)?;
                self.leaf(json!({ variant: v }))
            }
        }
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Body<'a>, GiveUp> {
        Ok(Body::open(self, len, false, None))
    }
    fn serialize_tuple(self, len: usize) -> Result<Body<'a>, GiveUp> {
        Ok(Body::open(self, Some(len), false, None))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Body<'a>, GiveUp> {
        Ok(Body::open(self, Some(len), false, None))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Body<'a>, GiveUp> {
        Ok(Body::open(self, Some(len), false, Some(variant)))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Body<'a>, GiveUp> {
        Ok(Body::open(self, len, true, None))
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Body<'a>, GiveUp> {
        Ok(Body::open(self, Some(len), true, None))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Body<'a>, GiveUp> {
        Ok(Body::open(self, Some(len), true, Some(variant)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    #[derive(Serialize, Deserialize, Clone, Debug)]
    enum Kind {
        Plain,
        Wrapped(u8),
        Pair(u8, String),
        Shaped { a: u8, b: Option<String> },
    }

    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    struct Extra {
        x: i32,
        #[serde(skip_serializing_if = "Option::is_none")]
        y: Option<bool>,
    }

    #[derive(Serialize, Deserialize, Clone, Debug)]
    struct Thing {
        n: u32,
        f: f64,
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe: Option<u8>,
        list: Vec<u8>,
        kinds: Vec<Kind>,
        map: BTreeMap<String, Extra>,
        by_number: BTreeMap<u8, bool>,
        tuple: (u8, bool),
        #[serde(flatten)]
        extra: Extra,
        #[serde(rename = "we/ird~key")]
        weird: u8,
    }

    fn kind() -> impl Strategy<Value = Kind> {
        prop_oneof![
            Just(Kind::Plain),
            any::<u8>().prop_map(Kind::Wrapped),
            (0u8..3, "[ab]{0,2}").prop_map(|(a, s)| Kind::Pair(a, s)),
            (0u8..3, proptest::option::of("[ab]{0,2}")).prop_map(|(a, b)| Kind::Shaped { a, b }),
        ]
    }

    fn extra() -> impl Strategy<Value = Extra> {
        (0i32..3, proptest::option::of(any::<bool>())).prop_map(|(x, y)| Extra { x, y })
    }

    fn thing() -> impl Strategy<Value = Thing> {
        (
            (
                0u32..3,
                prop_oneof![Just(1.0), Just(0.5), Just(-2.0)],
                "[ab]{0,2}",
            ),
            proptest::option::of(0u8..3),
            proptest::collection::vec(0u8..3, 0..3),
            proptest::collection::vec(kind(), 0..3),
            proptest::collection::btree_map("[abc]", extra(), 0..3),
            proptest::collection::btree_map(0u8..4, any::<bool>(), 0..3),
            (0u8..2, any::<bool>()),
            extra(),
            0u8..2,
        )
            .prop_map(
                |((n, f, name), maybe, list, kinds, map, by_number, tuple, extra, weird)| Thing {
                    n,
                    f,
                    name,
                    maybe,
                    list,
                    kinds,
                    map,
                    by_number,
                    tuple,
                    extra,
                    weird,
                },
            )
    }

    proptest! {
        /// The walk finds what the diff of the two trees finds, or gives up; and where it gives
        /// up, `diff_typed` still gives the diff.
        #[test]
        fn the_walk_agrees_with_the_diff(a in thing(), b in thing()) {
            let before = serde_json::to_value(&a).expect("json");
            let want = crate::effects::diff(&before, &serde_json::to_value(&b).expect("json"));
            if let Some(got) = changes(&before, &b) {
                prop_assert_eq!(&got, &want);
            }
            prop_assert_eq!(crate::effects::diff_typed(&before, &b), want.clone());
            // Passing over the entries of `map` equal before and after finds the same.
            let same = Same::default().entries("map", &a.map, &b.map);
            if let Some(got) = changes_but(&before, &b, same) {
                prop_assert_eq!(got, want);
            }
        }
    }

    /// The parts named are not walked: a change inside one is not found (which is why a rule
    /// set names only parts equal before and after).
    #[test]
    fn the_walk_passes_over_the_parts_named() {
        let extra = |x| Extra { x, y: None };
        let a = Thing {
            n: 1,
            f: 1.0,
            name: "a".into(),
            maybe: None,
            list: vec![],
            kinds: vec![],
            map: BTreeMap::from([("a".into(), extra(1)), ("b".into(), extra(2))]),
            by_number: BTreeMap::new(),
            tuple: (1, true),
            extra: extra(0),
            weird: 0,
        };
        let mut b = a.clone();
        b.map.get_mut("a").expect("a").x = 5;
        b.map.get_mut("b").expect("b").x = 6;
        let before = serde_json::to_value(&a).expect("json");
        let mut named = Same::default().entries("map", &a.map, &b.map);
        assert_eq!(named.maps, vec![("map", vec![])], "both entries changed");
        let mut c = a.clone();
        c.map.get_mut("a").expect("a").x = 5;
        c.map.insert("c".into(), extra(3));
        let found = Same::default().entries("map", &a.map, &c.map);
        assert_eq!(found.maps, vec![("map", vec!["b"])], "b is as it was");
        named.maps[0].1.push("b");
        assert_eq!(
            changes_but(&before, &b, named).expect("followed"),
            json!([{"p": "/map/a/x", "v": 5}])
        );
        // Only entries of the root's maps are passed over.
        let named = Same {
            maps: vec![("map", vec!["a"])],
        };
        assert_eq!(named.keys_at(&[Seg::Key("map".into())]), ["a"]);
        assert!(named.keys_at(&[Seg::Key("other".into())]).is_empty());
        assert!(named.keys_at(&[Seg::Index(0)]).is_empty());
        assert!(named
            .keys_at(&[Seg::Key("x".into()), Seg::Key("map".into())])
            .is_empty());
        // Keys in order are found by a cursor; one out of order is walked, never passed over
        // wrongly.
        let skip = ["b", "d", "e"];
        let mut at = 0;
        let met: Vec<bool> = ["a", "b", "c", "d", "f"]
            .iter()
            .map(|k| passed_over(&skip, &mut at, k))
            .collect();
        assert_eq!(met, [false, true, false, true, false]);
        let mut at = 0;
        assert!(passed_over(&skip, &mut at, "e"));
        assert!(!passed_over(&skip, &mut at, "b"), "behind the cursor");
        assert!(!passed_over(&skip, &mut at, "z"));
    }

    /// A map keyed by shared text, as the typed states keep their units: a copy shares its keys,
    /// which are told by their address; keys equal but not shared are compared by their bytes
    /// and name the same entries. The changed entries between those passed over are found and
    /// walked, and none passed over is looked for in the recorded map.
    #[test]
    fn shared_keys_name_the_same_entries_as_equal_ones() {
        use std::sync::Arc;
        #[derive(Serialize, Clone)]
        struct Units {
            units: BTreeMap<Arc<str>, Arc<Extra>>,
        }
        let extra = |x| Arc::new(Extra { x, y: None });
        let a = Units {
            units: ["a", "b", "c", "d", "e"]
                .iter()
                .zip(1..)
                .map(|(k, x)| (Arc::from(*k), extra(x)))
                .collect(),
        };
        let mut b = a.clone();
        *b.units.get_mut("b").expect("b") = extra(20);
        *b.units.get_mut("e").expect("e") = extra(50);
        let shared = Same::default().entries("units", &a.units, &b.units);
        assert_eq!(shared.maps, vec![("units", vec!["a", "c", "d"])]);
        // The same keys, each its own copy of the text.
        let unshared: BTreeMap<Arc<str>, Arc<Extra>> = b
            .units
            .iter()
            .map(|(k, v)| (Arc::from(k.to_string()), v.clone()))
            .collect();
        let equal = Same::default().entries("units", &a.units, &unshared);
        assert_eq!(equal.maps, shared.maps);
        let before = serde_json::to_value(&a).expect("json");
        assert_eq!(
            changes_but(&before, &b, shared).expect("followed"),
            json!([{"p": "/units/b/x", "v": 20}, {"p": "/units/e/x", "v": 50}])
        );
        // What is passed over is not looked for in the recorded map (its key's bytes are not
        // read): even a recorded key the caller vouched for wrongly, here `c` recorded as `c2`,
        // is not noticed, so a caller vouches only for parts recorded as they are.
        let mut recorded = before.clone();
        let units = recorded["units"].as_object_mut().expect("units");
        let c = units.remove("c").expect("c");
        units.insert("c2".into(), c);
        let vouched = Same::default().entries("units", &a.units, &b.units);
        assert_eq!(
            changes_but(&recorded, &b, vouched).expect("followed"),
            json!([{"p": "/units/b/x", "v": 20}, {"p": "/units/e/x", "v": 50}])
        );
    }

    #[test]
    fn the_walk_follows_a_typical_change_without_giving_up() {
        let a = Thing {
            n: 1,
            f: 1.0,
            name: "a".into(),
            maybe: None,
            list: vec![1, 2],
            kinds: vec![Kind::Plain, Kind::Shaped { a: 1, b: None }],
            map: BTreeMap::from([("a".into(), Extra { x: 1, y: None })]),
            by_number: BTreeMap::from([(1, true)]),
            tuple: (1, true),
            extra: Extra {
                x: 0,
                y: Some(true),
            },
            weird: 0,
        };
        let mut b = a.clone();
        b.n = 2;
        b.kinds[1] = Kind::Shaped { a: 2, b: None };
        b.map.get_mut("a").expect("a").x = 5;
        b.list.push(3);
        b.weird = 1;
        b.extra.x = 3;
        let before = serde_json::to_value(&a).expect("json");
        let got = changes(&before, &b).expect("followed");
        assert_eq!(
            got,
            json!([
                {"p": "/kinds/1/Shaped/a", "v": 2},
                {"p": "/list", "v": [1, 2, 3]},
                {"p": "/map/a/x", "v": 5},
                {"p": "/n", "v": 2},
                {"p": "/we~1ird~0key", "v": 1},
                {"p": "/x", "v": 3},
            ])
        );
        assert_eq!(
            got,
            crate::effects::diff(&before, &serde_json::to_value(&b).expect("json"))
        );
    }
}
