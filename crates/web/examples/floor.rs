//! The floor under Tercio's CPU per move: a server on Tercio's own stack (axum on tokio, on the
//! runtime `tercio serve` runs on) that answers `../shared/bench`'s load
//! harness and does nothing else, or, with `--durable DB`, also appends each action to SQLite
//! before answering it, as Tercio's store does at its barest: one row a request of the size of
//! Tercio's average log entry, in WAL mode with `synchronous = FULL`, the waiting requests
//! committed together by one thread (group commit), each answered after its own commit. It keeps
//! no head, no checkpoint, no rules and no answer beyond a constant: whatever it costs, Tercio
//! cannot cost less while every action is durable before its answer. `bench/floor.sh` runs it.
//!
//! Usage: `floor PORT [--durable DB] [--entry BYTES]`
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::Router;
use rusqlite::{params, Connection};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// One append: the game, its sequence number, and whom to answer once it is committed.
type Append = (String, u64, oneshot::Sender<()>);

struct Floor {
    games: AtomicU64,
    /// The next sequence number of each game (the harness's token names the game).
    seqs: Mutex<HashMap<String, u64>>,
    /// The committer's queue, with `--durable`.
    commits: Option<Mutex<mpsc::Sender<Append>>>,
}

/// Commit every append waiting in `rx` in one transaction, then answer each; again while more
/// wait, and block for the next when none does.
fn committer(mut db: Connection, rx: mpsc::Receiver<Append>, entry: String) {
    while let Ok(first) = rx.recv() {
        let mut group = vec![first];
        group.extend(rx.try_iter());
        let tx = db.transaction().expect("begin");
        {
            let mut ins = tx
                .prepare_cached("INSERT INTO log (game_id, seq, entry) VALUES (?1, ?2, ?3)")
                .expect("prepare");
            for (game, seq, _) in &group {
                ins.execute(params![game, *seq as i64, entry])
                    .expect("insert");
            }
        }
        tx.commit().expect("commit");
        for (_, _, done) in group {
            let _ = done.send(());
        }
    }
}

const JSON: [(&str, &str); 1] = [("content-type", "application/json")];

async fn act(
    State(f): State<Arc<Floor>>,
    Path(token): Path<String>,
) -> ([(&'static str, &'static str); 1], &'static str) {
    if let Some(q) = &f.commits {
        let seq = {
            let mut seqs = f.seqs.lock().expect("seqs");
            let s = seqs.entry(token.clone()).or_insert(0);
            *s += 1;
            *s
        };
        let (done, committed) = oneshot::channel();
        q.lock()
            .expect("queue")
            .send((token, seq, done))
            .expect("committer");
        let _ = committed.await;
    }
    (JSON, "{\"draws\":[{\"face\":3}],\"event\":{\"seq\":1}}")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let Some(port) = args.get(1).and_then(|p| p.parse::<u16>().ok()) else {
        eprintln!("usage: floor PORT [--durable DB] [--entry BYTES]");
        std::process::exit(2);
    };
    let entry = "x".repeat(arg("--entry").and_then(|b| b.parse().ok()).unwrap_or(1462));
    let commits = arg("--durable").map(|path| {
        let db = Connection::open(path).expect("open the database");
        db.pragma_update(None, "journal_mode", "WAL").expect("WAL");
        db.pragma_update(None, "synchronous", "FULL").expect("FULL");
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS log (game_id TEXT NOT NULL, seq INTEGER NOT NULL,
             entry TEXT NOT NULL, PRIMARY KEY (game_id, seq))",
        )
        .expect("schema");
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("floor-commit".into())
            .spawn(move || committer(db, rx, entry))
            .expect("the committer");
        Mutex::new(tx)
    });
    let floor = Arc::new(Floor {
        games: AtomicU64::new(0),
        seqs: Mutex::new(HashMap::new()),
        commits,
    });
    let app = Router::new()
        .route("/healthz", get(|| async { "{}" }))
        .route(
            "/api/games",
            post(|State(f): State<Arc<Floor>>| async move {
                let n = f.games.fetch_add(1, Ordering::Relaxed) + 1;
                let links = format!(
                    "{{\"id\":\"g{n}\",\"links\":[{{\"role\":\"game-master\",\"url\":\"http://x/s/t{n}\"}}]}}"
                );
                (StatusCode::CREATED, JSON, links)
            }),
        )
        .route("/api/s/{token}/actions", post(act))
        .route("/api/s/{token}/undo", post(act))
        .with_state(floor);
    // The runtime `tercio serve` runs on: the same request threads.
    let rt = tercio_web::runtime().expect("runtime");
    rt.block_on(async move {
        let l = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind");
        axum::serve(l, app).await.expect("serve");
    });
}
