//! The command deck and the Chaunce pack: draws and reshuffles (decisions 7, 11, 12).

use super::*;

// ------------------------------------------------------------------------------------------------
// Decks.

impl State {
    pub(super) fn reshuffle_commands(&mut self, r: &mut Vec<String>) {
        let mut all = std::mem::take(&mut self.discard);
        all.append(&mut self.deck);
        all.sort_unstable();
        self.shuffles += 1;
        self.deck = shuffled(self.salt, self.shuffles, all);
        r.push(format!(
            "the command deck is reshuffled: {} cards (shuffle {})",
            self.deck.len(),
            self.shuffles
        ));
    }
    /// The top command card, reshuffling the discards when the deck is empty (CCM-end).
    pub(super) fn draw_command(&mut self, r: &mut Vec<String>) -> Option<u8> {
        if self.deck.is_empty() {
            self.reshuffle_commands(r);
        }
        let c = self.deck.pop();
        self.deck_count = self.deck.len() as u32;
        c
    }
    pub(super) fn draw_chaunce_card(&mut self, r: &mut Vec<String>) -> Option<u8> {
        if self.pack.is_empty() {
            let mut all = std::mem::take(&mut self.pack_discard);
            all.sort_unstable();
            self.shuffles += 1;
            self.pack = shuffled(self.salt, self.shuffles, all);
            r.push(format!(
                "the Chaunce pack is reshuffled: {} cards (decision 7)",
                self.pack.len()
            ));
        }
        let c = self.pack.pop();
        self.pack_count = self.pack.len() as u32;
        c
    }
    pub(super) fn sync_counts(&mut self) {
        self.deck_count = self.deck.len() as u32;
        self.pack_count = self.pack.len() as u32;
    }
}

/// The Chaunce card a pack number stands for: the 34 single titles in order, then the False
/// Alarums (decision 1).
pub fn chaunce_of(n: u8) -> &'static ChaunceCard {
    let singles: Vec<&ChaunceCard> = CHAUNCE_CARDS.iter().filter(|c| c.count == 1).collect();
    match singles.get(usize::from(n)) {
        Some(c) => c,
        None => chaunce_card("false-alarum").unwrap_or(&CHAUNCE_CARDS[7]),
    }
}

pub(super) fn pack_size(cfg: &Cfg) -> u8 {
    let singles = CHAUNCE_CARDS.iter().filter(|c| c.count == 1).count() as u8;
    singles + cfg.false_alarums
}

pub fn card_name(n: u8) -> &'static str {
    command_kind(n).name
}
