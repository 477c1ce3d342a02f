//! A bounded map that evicts the least recently used entry: the server's live games.

use std::collections::HashMap;

pub struct Lru<V> {
    cap: usize,
    tick: u64,
    map: HashMap<String, (V, u64)>,
}

impl<V> Lru<V> {
    pub fn new(cap: usize) -> Self {
        Lru {
            cap,
            tick: 0,
            map: HashMap::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The value for `k`, marked as just used.
    pub fn get(&mut self, k: &str) -> Option<&V> {
        self.tick += 1;
        let t = self.tick;
        self.map.get_mut(k).map(|e| {
            e.1 = t;
            &e.0
        })
    }

    /// Insert, evicting the least recently used entry when full. Eviction scans the map: it
    /// happens only when a game is loaded, and costs microseconds for a thousand games.
    pub fn put(&mut self, k: String, v: V) {
        self.tick += 1;
        if !self.map.contains_key(&k) && self.map.len() >= self.cap {
            if let Some(old) = self
                .map
                .iter()
                .min_by_key(|(_, (_, t))| *t)
                .map(|(k, _)| k.clone())
            {
                self.map.remove(&old);
            }
        }
        self.map.insert(k, (v, self.tick));
    }

    /// Every value, in no order, none marked as used.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.map.values().map(|(v, _)| v)
    }

    pub fn remove(&mut self, k: &str) -> Option<V> {
        self.map.remove(k).map(|(v, _)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_goes_first() {
        let mut l = Lru::new(2);
        l.put("a".into(), 1);
        l.put("b".into(), 2);
        assert_eq!(l.get("a"), Some(&1));
        l.put("c".into(), 3);
        assert_eq!(l.get("b"), None, "b was used least recently");
        assert_eq!(l.get("a"), Some(&1));
        assert_eq!(l.get("c"), Some(&3));
        l.put("a".into(), 4);
        assert_eq!(l.len(), 2, "replacing does not evict");
        assert_eq!(l.remove("a"), Some(4));
        assert!(l.get("a").is_none());
        assert!(!l.is_empty());
    }
}
