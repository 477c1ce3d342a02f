//! The append-only event log. Entries are never removed or rewritten: undo appends a void entry
//! naming the entry it cancels, and the voided entry stays visible.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "entry", rename_all = "kebab-case")]
pub enum LogEntry<E> {
    Event {
        seq: u64,
        event: E,
    },
    Void {
        seq: u64,
        voids: u64,
        reason: String,
    },
}

impl<E> LogEntry<E> {
    pub fn seq(&self) -> u64 {
        match self {
            LogEntry::Event { seq, .. } | LogEntry::Void { seq, .. } => *seq,
        }
    }
}

/// Something a log records that names who recorded it: the log signs an entry as it appends
/// it, so an entry is never edited once it is in the log.
pub trait Signed {
    fn sign(&mut self, by: &str);
}

/// The log. Its entries are private: they are added only by [`EventLog::append`] and
/// [`EventLog::void_last`], read through [`EventLog::entries`], and a log read from a file or a
/// database ([`EventLog::from_entries`], or deserialised) must number its entries 1, 2, 3… with
/// every void naming an earlier event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "LogFile<E>")]
#[serde(bound(deserialize = "E: Deserialize<'de>"))]
pub struct EventLog<E> {
    entries: Vec<LogEntry<E>>,
}

/// The log as written: checked by [`EventLog::from_entries`] on the way in.
#[derive(Deserialize)]
struct LogFile<E> {
    entries: Vec<LogEntry<E>>,
}

impl<E> TryFrom<LogFile<E>> for EventLog<E> {
    type Error = String;
    fn try_from(f: LogFile<E>) -> Result<Self, String> {
        EventLog::from_entries(f.entries)
    }
}

impl<E> Default for EventLog<E> {
    fn default() -> Self {
        EventLog {
            entries: Vec::new(),
        }
    }
}

impl<E> EventLog<E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// A log read back (from a file, a database, an export): its entries must be numbered 1, 2,
    /// 3… in order, and a void must name an earlier event entry. Otherwise the entry at fault,
    /// as `entries[i]`, and why.
    pub fn from_entries(entries: Vec<LogEntry<E>>) -> Result<Self, String> {
        for (i, e) in entries.iter().enumerate() {
            let want = i as u64 + 1;
            if e.seq() != want {
                return Err(format!(
                    "entries[{i}].seq: {} where {want} was expected; a log numbers its entries 1, 2, 3…",
                    e.seq()
                ));
            }
            if let LogEntry::Void { voids, .. } = e {
                let target = (*voids as usize)
                    .checked_sub(1)
                    .filter(|t| *t < i)
                    .map(|t| &entries[t]);
                if !matches!(target, Some(LogEntry::Event { .. })) {
                    return Err(format!(
                        "entries[{i}].voids: {voids} is not an earlier event of the log"
                    ));
                }
            }
        }
        Ok(EventLog { entries })
    }

    /// Every entry, in order (entry `n` at index `n - 1`).
    pub fn entries(&self) -> &[LogEntry<E>] {
        &self.entries
    }

    pub fn iter(&self) -> std::slice::Iter<'_, LogEntry<E>> {
        self.entries.iter()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry with sequence number `seq`.
    pub fn get(&self, seq: u64) -> Option<&LogEntry<E>> {
        let i = usize::try_from(seq.checked_sub(1)?).ok()?;
        self.entries.get(i)
    }

    pub fn last(&self) -> Option<&LogEntry<E>> {
        self.entries.last()
    }

    fn next_seq(&self) -> u64 {
        self.entries.len() as u64 + 1
    }

    /// Append an event, signed by `by` (the seat that recorded it) when given. Returns its
    /// sequence number. The entry is final: nothing edits it afterwards.
    pub fn append(&mut self, mut event: E, by: Option<&str>) -> u64
    where
        E: Signed,
    {
        if let Some(by) = by {
            event.sign(by);
        }
        let seq = self.next_seq();
        self.entries.push(LogEntry::Event { seq, event });
        seq
    }

    pub fn is_voided(&self, seq: u64) -> bool {
        self.entries
            .iter()
            .any(|e| matches!(e, LogEntry::Void { voids, .. } if *voids == seq))
    }

    /// The events that count, in order, with their sequence numbers.
    pub fn live(&self) -> impl Iterator<Item = (u64, &E)> {
        let voided: std::collections::BTreeSet<u64> = self
            .entries
            .iter()
            .filter_map(|e| match e {
                LogEntry::Void { voids, .. } => Some(*voids),
                _ => None,
            })
            .collect();
        self.entries.iter().filter_map(move |e| match e {
            LogEntry::Event { seq, event } if !voided.contains(seq) => Some((*seq, event)),
            _ => None,
        })
    }

    /// Void the latest live event for which `undoable` holds. Returns its sequence number.
    pub fn void_last(&mut self, reason: &str, undoable: impl Fn(&E) -> bool) -> Option<u64> {
        let target = self
            .live()
            .filter(|(_, e)| undoable(e))
            .map(|(s, _)| s)
            .last()?;
        let seq = self.next_seq();
        self.entries.push(LogEntry::Void {
            seq,
            voids: target,
            reason: reason.to_string(),
        });
        Some(target)
    }
}

impl<'a, E> IntoIterator for &'a EventLog<E> {
    type Item = &'a LogEntry<E>;
    type IntoIter = std::slice::Iter<'a, LogEntry<E>>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Ev {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    }

    impl Signed for Ev {
        fn sign(&mut self, by: &str) {
            self.by = Some(by.to_string());
        }
    }

    fn ev(name: &str) -> Ev {
        Ev {
            name: name.into(),
            by: None,
        }
    }

    fn names(log: &EventLog<Ev>) -> Vec<&str> {
        log.live().map(|(_, e)| e.name.as_str()).collect()
    }

    #[test]
    fn void_keeps_history() {
        let mut log = EventLog::new();
        log.append(ev("a"), None);
        log.append(ev("b"), None);
        assert_eq!(log.void_last("undo", |_| true), Some(2));
        assert_eq!(log.len(), 3);
        assert_eq!(names(&log), vec!["a"]);
        assert!(log.is_voided(2));
        assert_eq!(log.void_last("undo", |_| true), Some(1));
        assert_eq!(log.live().count(), 0);
        assert_eq!(log.void_last("undo", |_| true), None);
        assert_eq!(log.len(), 4);
        assert!(matches!(log.get(4), Some(LogEntry::Void { voids: 1, .. })));
        assert_eq!(log.get(0), None);
        assert_eq!(log.get(5), None);
        assert_eq!(log.last(), log.get(4));
    }

    #[test]
    fn append_signs_and_the_form_is_unchanged() {
        let mut log = EventLog::new();
        log.append(ev("a"), Some("side:french"));
        log.append(ev("b"), None);
        let text = serde_json::to_string(&log).expect("json");
        assert_eq!(
            text,
            r#"{"entries":[{"entry":"event","seq":1,"event":{"name":"a","by":"side:french"}},{"entry":"event","seq":2,"event":{"name":"b"}}]}"#
        );
        let back: EventLog<Ev> = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, log);
        assert_eq!(serde_json::to_string(&back).expect("json"), text);
    }

    #[test]
    fn a_log_read_back_is_numbered_and_voids_earlier_events() {
        let gap = r#"{"entries":[{"entry":"event","seq":1,"event":{"name":"a"}},{"entry":"event","seq":3,"event":{"name":"b"}}]}"#;
        let e = serde_json::from_str::<EventLog<Ev>>(gap).expect_err("a gap");
        assert!(e.to_string().contains("entries[1].seq: 3 where 2"), "{e}");
        let ahead = r#"{"entries":[{"entry":"event","seq":1,"event":{"name":"a"}},{"entry":"void","seq":2,"voids":2,"reason":"undo"}]}"#;
        let e = serde_json::from_str::<EventLog<Ev>>(ahead).expect_err("a void of itself");
        assert!(e.to_string().contains("entries[1].voids: 2"), "{e}");
        let of_void = r#"{"entries":[{"entry":"event","seq":1,"event":{"name":"a"}},{"entry":"void","seq":2,"voids":1,"reason":"undo"},{"entry":"void","seq":3,"voids":2,"reason":"undo"}]}"#;
        assert!(serde_json::from_str::<EventLog<Ev>>(of_void).is_err());
        let none = r#"{"entries":[{"entry":"void","seq":1,"voids":0,"reason":"undo"}]}"#;
        assert!(serde_json::from_str::<EventLog<Ev>>(none).is_err());
        let fine = r#"{"entries":[{"entry":"event","seq":1,"event":{"name":"a"}},{"entry":"void","seq":2,"voids":1,"reason":"undo"}]}"#;
        let log: EventLog<Ev> = serde_json::from_str(fine).expect("a good log");
        assert_eq!(log.len(), 2);
        assert_eq!(EventLog::from_entries(log.entries().to_vec()), Ok(log));
    }
}
