//! Tercio's pure core: no I/O, no clock, no async.
//!
//! * [`dice`]: a seeded ChaCha stream whose every draw is recorded.
//! * [`plan`]: a declared dice plan that is either rolled or turned into its exact distribution,
//!   from the same code, so odds and rolls never drift apart.
//! * [`log`]: the append-only event log; undo appends a void, nothing is ever removed.
//! * [`stats`]: chi-square figures for the dice report.
//! * [`explain`]: the shape in which every resolution shows its dice, modifiers and outcome.

pub mod dice;
pub mod explain;
pub mod log;
pub mod plan;
pub mod stats;

pub use dice::{DiceStream, Die, Draw};
pub use explain::{modifier_text, Modifier, Resolution, RolledDie, Step};
pub use log::{EventLog, LogEntry, Signed};
pub use plan::{Depends, Distribution, FaceClasses, Plan};

/// Bytes as lowercase hexadecimal, two digits a byte: how the log's chain, the dice's
/// commitment, a game's nonce, seat tokens and the assets' hashes are written. From a table:
/// formatting each byte with `{:02x}` took about 7,500 instructions a hash, and a move hashes
/// twice.
pub fn hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push(char::from(DIGITS[usize::from(x >> 4)]));
        s.push(char::from(DIGITS[usize::from(x & 0x0f)]));
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_writes_each_byte_as_two_lowercase_digits() {
        for b in 0..=255u8 {
            assert_eq!(super::hex(&[b]), format!("{b:02x}"));
        }
        assert_eq!(super::hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(super::hex(&[]), "");
    }
}
