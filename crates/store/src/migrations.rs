//! The SQLite schema's migrations, applied in order, each with an optional step in Rust.

use super::*;

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran. A migration
/// may also have a step in Rust ([`fixup`]) run in the same transaction.
pub(super) const MIGRATIONS: &[&str] = &[
    "CREATE TABLE games (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        rule_set TEXT NOT NULL,
        scenario_id TEXT,
        scenario TEXT NOT NULL,
        seed INTEGER NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE log_entries (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        entry TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );",
    "ALTER TABLE games ADD COLUMN nonce TEXT NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE games ADD COLUMN concluded_at INTEGER;
    CREATE TABLE seats (
        token TEXT PRIMARY KEY,
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        ord INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
    );
    CREATE INDEX seats_by_game ON seats(game_id);
    CREATE TABLE host (key TEXT NOT NULL);
    -- Games made before seats existed get theirs now, and a nonce, without which the seed could
    -- be found from its commitment by trying seeds (SQLite's randomblob is its CSPRNG).
    UPDATE games SET nonce = lower(hex(randomblob(16))) WHERE nonce = '';
    INSERT INTO seats (token, game_id, role, ord, created_at)
        SELECT lower(hex(randomblob(16))), id, 'game-master', 0, updated_at FROM games;
    INSERT INTO seats (token, game_id, role, ord, created_at)
        SELECT lower(hex(randomblob(16))), g.id, 'side:' || json_extract(s.value, '$.id'), s.key + 1, g.updated_at
        FROM games g, json_each(g.scenario, '$.sides') s;
    INSERT INTO seats (token, game_id, role, ord, created_at)
        SELECT lower(hex(randomblob(16))), g.id, 'spectator', 1 + json_array_length(g.scenario, '$.sides'), g.updated_at
        FROM games g;",
    // Events, not documents. Each game's head (revision, entry count, dice position, updated
    // time, what the games list shows, hash chain) in a narrow table of its own: every request
    // reads the revision, and an action rewrites the head, neither touching the scenario's
    // overflow pages. The state is not rewritten with each entry: it is the fold of the log from
    // the latest checkpoint, and a live server keeps it in memory. Voids findable without
    // parsing entries, each entry's chain hash, and the checkpoints.
    "CREATE TABLE heads (
        game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
        rev INTEGER NOT NULL DEFAULT 1,
        seq INTEGER NOT NULL DEFAULT 0,
        stream_pos INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL,
        turn INTEGER NOT NULL DEFAULT 0,
        over INTEGER NOT NULL DEFAULT 0,
        chain TEXT NOT NULL DEFAULT ''
    );
    INSERT INTO heads (game_id, updated_at, turn, over)
        SELECT id, updated_at, COALESCE(json_extract(state, '$.turn'), 0),
               COALESCE(json_extract(state, '$.phase') = 'over', 0)
        FROM games;
    ALTER TABLE games DROP COLUMN state;
    ALTER TABLE games DROP COLUMN updated_at;
    ALTER TABLE log_entries ADD COLUMN voids INTEGER;
    ALTER TABLE log_entries ADD COLUMN hash TEXT NOT NULL DEFAULT '';
    CREATE TABLE checkpoints (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    UPDATE log_entries SET voids = json_extract(entry, '$.voids')
        WHERE json_extract(entry, '$.entry') = 'void';
    CREATE INDEX log_voids ON log_entries(game_id, voids);",
    // Schema 4: the rules version each game was played under; every game stored
    // before was played under version 1 of its rule set.
    "ALTER TABLE games ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 1;",
    // Schema 5: the voids' index holds the voids alone (as PostgreSQL's always has). Every
    // other entry wrote a row of NULL into it, one more page in each commit's WAL frames; the
    // undo's queries ask for `voids > ?` and `voids IS NOT NULL`, which it still answers.
    "DROP INDEX log_voids;
    CREATE INDEX log_voids ON log_entries(game_id, voids) WHERE voids IS NOT NULL;",
    // Schema 6: no voids' index. Each undo wrote its game's own leaf of it, a page no other
    // game in the commit shares: 18.6–22.3% of the WAL's frames under load (docs/performance.md).
    // An undo's fold asks only for the voids after its checkpoint, which the log's key finds
    // among the entries after it (a void comes after what it voids); loading a game reads its
    // entries' sequence numbers and voids in one pass.
    "DROP INDEX log_voids;",
    // Schema 7: how each game's commitment and log fingerprint are formed. Games recorded
    // before keep version 1; new games are made with the keyed chain (`tercio_rules::seal`).
    "ALTER TABLE games ADD COLUMN chain_version INTEGER NOT NULL DEFAULT 1;",
];

/// The Rust side of migration `version` (1-based), in its transaction: for the event-shaped
/// schema, every game's head, entry hashes and checkpoints, computed once from its whole log.
pub(super) fn fixup(tx: &rusqlite::Transaction, version: usize) -> Result<(), StoreError> {
    if version != 3 {
        return Ok(());
    }
    let ids: Vec<String> = {
        let mut stmt = tx.prepare("SELECT id FROM games")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    for id in ids {
        // At schema 3 the games table has no rules version yet.
        let Some(game) = load_game_with(tx, &id, false)? else {
            continue;
        };
        let mut h = chain_start();
        for e in game.log.entries() {
            let text = entry_text(e);
            h = chain_next(&h, &text);
            tx.execute(
                "UPDATE log_entries SET hash = ?3, entry = ?4 WHERE game_id = ?1 AND seq = ?2",
                params![id, e.seq() as i64, h, text],
            )?;
        }
        tx.execute(
            "UPDATE heads SET seq = ?2, stream_pos = ?3, chain = ?4 WHERE game_id = ?1",
            params![
                id,
                game.log.entries().len() as i64,
                game.stream_pos() as i64,
                h
            ],
        )?;
        // A game whose rule set this build cannot fold keeps no checkpoints: its undo folds
        // from the start, as before.
        if let Ok(cps) = game.checkpoints() {
            for (seq, state) in cps {
                tx.execute(
                    "INSERT OR REPLACE INTO checkpoints (game_id, seq, state) VALUES (?1, ?2, ?3)",
                    params![id, seq as i64, json_text(&state)?],
                )?;
            }
        }
    }
    Ok(())
}
