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
        r.push(m(
            "ecw.deck.reshuffled",
            &[
                ("count", self.deck.len().to_string()),
                ("n", self.shuffles.to_string()),
            ],
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
    /// An empty Chaunce pack takes its discards back, shuffled (decision 7).
    fn refill_pack(&mut self, r: &mut Vec<String>) {
        if self.pack.is_empty() {
            let mut all = std::mem::take(&mut self.pack_discard);
            all.sort_unstable();
            self.shuffles += 1;
            self.pack = shuffled(self.salt, self.shuffles, all);
            r.push(m(
                "ecw.deck.pack-reshuffled",
                &[("count", self.pack.len().to_string())],
            ));
        }
    }
    /// The top Chaunce card: the draw of the game, from the pack shuffled at the deal
    /// (decision 58).
    pub(super) fn draw_chaunce_card(&mut self, r: &mut Vec<String>) -> Option<u8> {
        self.refill_pack(r);
        let c = self.pack.pop();
        self.pack_count = self.pack.len() as u32;
        c
    }
    /// Chaunce card `c` taken from the pack wherever it lies: the draw as the odds deal it, from
    /// the cards not yet seen (decision 58).
    pub(super) fn take_chaunce_card(&mut self, c: u8, r: &mut Vec<String>) -> Option<u8> {
        self.refill_pack(r);
        let p = self.pack.iter().position(|&x| x == c)?;
        let c = self.pack.remove(p);
        self.pack_count = self.pack.len() as u32;
        Some(c)
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

/// The Chaunce cards the next draw may give, from what is public (decision 58): the pack's
/// composition (the house rules' False Alarums included) less the face-up discards; when they
/// are all face up, the draw reshuffles them and the whole pack may come. Never the pack's order.
pub fn unseen_chaunce(st: &State) -> Vec<u8> {
    let all = pack_size(&st.cfg);
    let left: Vec<u8> = (0..all).filter(|c| !st.pack_discard.contains(c)).collect();
    if left.is_empty() {
        (0..all).collect()
    } else {
        left
    }
}

pub(super) fn pack_size(cfg: &Cfg) -> u8 {
    let singles = CHAUNCE_CARDS.iter().filter(|c| c.count == 1).count() as u8;
    singles + cfg.false_alarums
}

pub fn card_name(n: u8) -> &'static str {
    command_kind(n).name
}
