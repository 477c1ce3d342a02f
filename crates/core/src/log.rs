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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventLog<E> {
    pub entries: Vec<LogEntry<E>>,
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

    fn next_seq(&self) -> u64 {
        self.entries.len() as u64 + 1
    }

    pub fn append(&mut self, event: E) -> u64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn void_keeps_history() {
        let mut log = EventLog::new();
        log.append("a");
        log.append("b");
        assert_eq!(log.void_last("undo", |_| true), Some(2));
        assert_eq!(log.entries.len(), 3);
        let live: Vec<_> = log.live().map(|(_, e)| *e).collect();
        assert_eq!(live, vec!["a"]);
        assert!(log.is_voided(2));
        assert_eq!(log.void_last("undo", |_| true), Some(1));
        assert_eq!(log.live().count(), 0);
        assert_eq!(log.void_last("undo", |_| true), None);
        assert_eq!(log.entries.len(), 4);
    }
}
