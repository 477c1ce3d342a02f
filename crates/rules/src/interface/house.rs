//! House rules as data: each rule set's table of the numbers a scenario's `[house_rules]` may
//! change, each with its default, the values it may take and where they come from.
//!
//! The scenario check ([`crate::interface::scenario`]) refuses a key that is not in the table and a value
//! outside its range, at its line and column. Engines read a value with [`value`], never with a
//! clamp of their own. A scenario recorded before a range existed (a game file, the database, an
//! export) still loads, with the check's warning, and [`HouseRule::read`] reads its value the way
//! the release that recorded it did: the nearest allowed value, and any non-zero value of a flag
//! as on.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;
use tercio_i18n::msg;

use super::BoardTable;

/// One number a scenario may change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HouseRule {
    /// The key under `[house_rules]`, dotted (`callan.fog`, `troops.pike.impact`).
    pub key: Cow<'static, str>,
    /// The value when the scenario does not set it.
    pub default: i64,
    /// The smallest and largest values allowed, both included.
    pub min: i64,
    pub max: i64,
    /// An on/off rule: 0 is off, 1 is on.
    pub flag: bool,
    /// Where the key and its default come from: the section of the rule set's design document
    /// (`§14.4, D12`), which also says where a range is project design and why.
    pub source: Cow<'static, str>,
}

impl HouseRule {
    /// A number from `min` to `max`.
    pub const fn number(
        key: &'static str,
        default: i64,
        min: i64,
        max: i64,
        source: &'static str,
    ) -> HouseRule {
        HouseRule {
            key: Cow::Borrowed(key),
            default,
            min,
            max,
            flag: false,
            source: Cow::Borrowed(source),
        }
    }

    /// An on/off rule (0 or 1).
    pub const fn flag(key: &'static str, on: bool, source: &'static str) -> HouseRule {
        HouseRule {
            key: Cow::Borrowed(key),
            default: on as i64,
            min: 0,
            max: 1,
            flag: true,
            source: Cow::Borrowed(source),
        }
    }

    /// Whether a scenario may set `v`.
    pub fn allows(&self, v: i64) -> bool {
        (self.min..=self.max).contains(&v)
    }

    /// The value an engine uses for `v`: `v` itself when allowed; for a recorded scenario that
    /// holds a value outside the range (accepted before the range existed, and reported as a
    /// warning when it loads), the value that release used: any non-zero value of a flag is on,
    /// a number is brought to the nearest end of its range.
    pub fn read(&self, v: i64) -> i64 {
        if self.flag {
            i64::from(v != 0)
        } else {
            v.clamp(self.min, self.max)
        }
    }
}

/// The value of `key` for a scenario whose `[house_rules]` are `set`: its own (read by
/// [`HouseRule::read`]) or the table's default. A key missing from `table` is a mistake in the
/// engine, caught by each rule set's tests; it reads as 0.
pub fn value(table: &[HouseRule], set: &BTreeMap<String, i64>, key: &str) -> i64 {
    let Some(rule) = table.iter().find(|r| r.key == key) else {
        debug_assert!(false, "{key} is not in the house-rule table");
        return 0;
    };
    set.get(key).map_or(rule.default, |&v| rule.read(v))
}

/// The table of house rules shown with a rule set's charts (`tercio reference`, the rules page):
/// one row per key, the troop entries of chart-driven rule sets (`troops.<type>.<entry>`) one row
/// per entry, since their defaults are the troop charts shown above them.
pub fn table(rules: &[HouseRule]) -> BoardTable {
    let values = |r: &HouseRule| {
        if r.flag {
            msg("house.switch", &[])
        } else {
            msg(
                "house.range",
                &[("min", &r.min.to_string()), ("max", &r.max.to_string())],
            )
        }
    };
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut entries: Vec<&str> = Vec::new();
    for r in rules {
        if let Some((_, entry)) = r
            .key
            .strip_prefix("troops.")
            .and_then(|k| k.split_once('.'))
        {
            if entries.contains(&entry) {
                continue;
            }
            entries.push(entry);
            rows.push(vec![
                format!("troops.<type>.{entry}"),
                msg("house.per-type", &[]),
                values(r),
                r.source.to_string(),
            ]);
            continue;
        }
        let default = match (r.flag, r.default != 0) {
            (true, true) => msg("house.on", &[]),
            (true, false) => msg("house.off", &[]),
            (false, _) => r.default.to_string(),
        };
        rows.push(vec![
            r.key.to_string(),
            default,
            values(r),
            r.source.to_string(),
        ]);
    }
    BoardTable::new(
        &msg("house.title", &[]),
        &[
            &msg("house.key", &[]),
            &msg("house.default", &[]),
            &msg("house.values", &[]),
            &msg("house.source", &[]),
        ],
        rows,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &[HouseRule] = &[
        HouseRule::number("a.size", 4, 3, 4, "test"),
        HouseRule::flag("a.on", true, "test"),
    ];

    #[test]
    fn a_value_is_the_scenarios_own_or_the_default() {
        let mut set = BTreeMap::new();
        assert_eq!(value(TABLE, &set, "a.size"), 4);
        assert_eq!(value(TABLE, &set, "a.on"), 1);
        set.insert("a.size".to_string(), 3);
        set.insert("a.on".to_string(), 0);
        assert_eq!(value(TABLE, &set, "a.size"), 3);
        assert_eq!(value(TABLE, &set, "a.on"), 0);
    }

    #[test]
    fn a_recorded_value_out_of_range_reads_as_its_release_read_it() {
        let mut set = BTreeMap::new();
        set.insert("a.size".to_string(), 9);
        set.insert("a.on".to_string(), -3);
        assert_eq!(value(TABLE, &set, "a.size"), 4);
        assert_eq!(value(TABLE, &set, "a.on"), 1);
        set.insert("a.size".to_string(), -9);
        assert_eq!(value(TABLE, &set, "a.size"), 3);
        assert!(!TABLE[0].allows(9) && TABLE[0].allows(3) && !TABLE[1].allows(-3));
    }
}
