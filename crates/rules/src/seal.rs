//! How a game is sealed: the commitment every seat sees from the start, and the log's
//! fingerprint (the head of a hash chain over its entries) that every page shows.
//!
//! Two versions, recorded per game ([`ChainVersion`]); a game keeps the one it was made with, and
//! `tercio verify` knows both:
//!
//! - **1** (games made before the keyed chain): the commitment is SHA-256 of the seed and the
//!   nonce; the chain is SHA-256 of the previous value and the entry's whole text. Every seat saw
//!   the fingerprint, so a seat shown less of an entry than was recorded (a hand of cards, a
//!   deck's order) could guess the hidden part, hash, and compare: an oracle.
//! - **2**: the commitment also binds what identifies the game (its id, rule set, rules version,
//!   and the scenario's digest), so an export whose identity was edited fails it; the chain
//!   starts from the commitment and each link is HMAC-SHA-256 of the previous value and the
//!   entry's whole text, keyed by a per-game key derived from the seed and the nonce. The key is
//!   secret exactly as long as the seed is (revealed with it when the game ends), so before the
//!   end no seat can compute a link, and no guess of a hidden part can be confirmed; after the
//!   end `tercio verify` recomputes every link from the whole entries, hidden parts included.
//!
//! The nonce is 128 random bits, so neither the commitment nor the key can be found by trying
//! seeds.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tercio_core::hex;

use crate::scenario::Scenario;

/// The version of a game's commitment and log chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub enum ChainVersion {
    /// Plain SHA-256 chain, commitment to the seed and nonce alone (games made before version 2).
    #[default]
    V1,
    /// Keyed chain, commitment binding the game's identity.
    V2,
}

/// The version new games are made with.
pub const CHAIN_VERSION: ChainVersion = ChainVersion::V2;

impl ChainVersion {
    pub fn number(self) -> u32 {
        match self {
            ChainVersion::V1 => 1,
            ChainVersion::V2 => 2,
        }
    }

    /// Whether the fingerprint can be computed only with the game's secret key: a seat may see
    /// it whatever is hidden from it.
    pub fn keyed(self) -> bool {
        self == ChainVersion::V2
    }

    /// Whether this is version 1 (for `skip_serializing_if`: a game file of version 1 is written
    /// as it always was).
    pub fn is_v1(&self) -> bool {
        *self == ChainVersion::V1
    }
}

impl TryFrom<u32> for ChainVersion {
    type Error = String;
    fn try_from(n: u32) -> Result<Self, String> {
        match n {
            1 => Ok(ChainVersion::V1),
            2 => Ok(ChainVersion::V2),
            _ => Err(format!(
                "chain version {n} is not one this build knows (1 or 2)"
            )),
        }
    }
}

impl From<ChainVersion> for u32 {
    fn from(v: ChainVersion) -> u32 {
        v.number()
    }
}

/// What identifies a game, bound into a version-2 commitment.
#[derive(Debug, Clone, Copy)]
pub struct Identity<'a> {
    /// The store's id of the game (empty for a game file made on the command line).
    pub game_id: &'a str,
    pub ruleset: &'a str,
    pub rules_version: u32,
    pub scenario: &'a Scenario,
}

/// A game's commitment and the means to extend its log's chain.
#[derive(Clone, PartialEq, Eq)]
pub struct Seal {
    version: ChainVersion,
    commitment: String,
    /// The chain's key (version 2): secret until the seed is revealed.
    key: Option<[u8; 32]>,
}

impl std::fmt::Debug for Seal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key: a debug line may reach a log.
        f.debug_struct("Seal")
            .field("version", &self.version)
            .field("commitment", &self.commitment)
            .finish_non_exhaustive()
    }
}

impl Seal {
    pub fn new(version: ChainVersion, seed: u64, nonce: &str, id: Identity<'_>) -> Seal {
        match version {
            ChainVersion::V1 => Seal {
                version,
                commitment: commitment_v1(seed, nonce),
                key: None,
            },
            ChainVersion::V2 => {
                let commitment = sha256_hex(
                    format!(
                        "tercio-seed-commitment/2\n{seed}\n{nonce}\n{}\n{}\n{}\n{}",
                        id.game_id,
                        id.ruleset,
                        id.rules_version,
                        scenario_digest(id.scenario)
                    )
                    .as_bytes(),
                );
                let mut key = [0u8; 32];
                key.copy_from_slice(&Sha256::digest(
                    format!("tercio-log-key/2\n{seed}\n{nonce}").as_bytes(),
                ));
                Seal {
                    version,
                    commitment,
                    key: Some(key),
                }
            }
        }
    }

    pub fn version(&self) -> ChainVersion {
        self.version
    }

    /// The published commitment (hex SHA-256).
    pub fn commitment(&self) -> &str {
        &self.commitment
    }

    /// The chain's value before the first entry.
    pub fn start(&self) -> String {
        match self.key {
            None => chain_start(),
            Some(_) => sha256_hex(format!("tercio-log-chain/2\n{}", self.commitment).as_bytes()),
        }
    }

    /// The chain's value after one more entry (its JSON text, as stored).
    pub fn next(&self, prev: &str, entry_text: &str) -> String {
        match &self.key {
            None => chain_next(prev, entry_text),
            Some(key) => hex(&hmac_sha256(
                key,
                &[prev.as_bytes(), b"\n", entry_text.as_bytes()],
            )),
        }
    }

    /// The chain's value after each of `texts` in turn, from the start.
    pub fn links<'a>(&self, texts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut h = self.start();
        texts
            .into_iter()
            .map(|t| {
                h = self.next(&h, t);
                h.clone()
            })
            .collect()
    }
}

/// The version-1 commitment: SHA-256 over the seed and nonce, hex.
pub fn commitment_v1(seed: u64, nonce: &str) -> String {
    sha256_hex(format!("tercio-seed-commitment/1\n{seed}\n{nonce}").as_bytes())
}

/// The version-1 chain's value before the first entry.
pub fn chain_start() -> String {
    sha256_hex(b"tercio-log-chain/1")
}

/// The version-1 chain's value after one more entry: SHA-256 of the previous value and the
/// entry's text, so each entry's hash covers every entry before it.
pub fn chain_next(prev: &str, entry_text: &str) -> String {
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(b"\n");
    h.update(entry_text.as_bytes());
    hex(&h.finalize())
}

/// SHA-256 of the scenario as a game records it, in canonical JSON (keys in order): the same
/// for the scenario a game was made with, the one the store reads back and the one an export
/// carries.
pub fn scenario_digest(scenario: &Scenario) -> String {
    let text = serde_json::to_value(scenario)
        .and_then(|v| serde_json::to_string(&v))
        .unwrap_or_default();
    sha256_hex(text.as_bytes())
}

fn sha256_hex(b: &[u8]) -> String {
    hex(&Sha256::digest(b))
}

/// HMAC-SHA-256 (RFC 2104) of the concatenated `parts` under `key` (at most one block long).
fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut k = [0u8; BLOCK];
    if key.len() > BLOCK {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let (mut ipad, mut opad) = ([0x36u8; BLOCK], [0x5cu8; BLOCK]);
    for i in 0..BLOCK {
        ipad[i] ^= k[i];
        opad[i] ^= k[i];
    }
    let mut inner = Sha256::new();
    inner.update(ipad);
    for p in parts {
        inner.update(p);
    }
    let inner = inner.finalize();
    let mut outer = Sha256::new();
    outer.update(opad);
    outer.update(inner);
    let mut out = [0u8; 32];
    out.copy_from_slice(&outer.finalize());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test case 2: key "Jefe".
        assert_eq!(
            hex(&hmac_sha256(
                b"Jefe",
                &[b"what do ya want ", b"for nothing?"]
            )),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than a block is hashed first.
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                &[b"Test Using Larger Than Block-Size Key - Hash Key First"]
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn versions_read_as_numbers_and_refuse_others() {
        assert_eq!(serde_json::to_string(&ChainVersion::V2).unwrap(), "2");
        assert_eq!(
            serde_json::from_str::<ChainVersion>("1").unwrap(),
            ChainVersion::V1
        );
        let e = serde_json::from_str::<ChainVersion>("3").unwrap_err();
        assert!(e.to_string().contains("chain version 3"), "{e}");
    }
}
