//! Several `tercio serve` processes on one PostgreSQL database (a throw-away cluster of
//! Debian's `postgresql`): every game on every server, live across servers, ordered by the
//! database; a server killed loses nothing acknowledged; the database restarting is survived.

mod common;

use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tercio_store::testing::{self, Cluster};
use tercio_web::client::{request, request_with, EventStream};

/// A running server, killed when dropped (so a failing test leaves none behind).
struct Server {
    child: Child,
    addr: String,
    key: String,
    demo: Option<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server on `url`, named by `--db` or, with `env`, by `TERCIO_DB` (as a password would be).
fn server(url: &str, env: bool, demo: bool) -> Server {
    let (child, addr, key, demo) = if env {
        common::serve(&[], &[("TERCIO_DB", url)], demo)
    } else {
        common::serve(&["--db", url], &[], demo)
    };
    Server {
        child,
        addr,
        key,
        demo,
    }
}

fn post(addr: &str, path: &str, body: &Value, headers: &[(&str, &str)]) -> (u16, Value) {
    let r = request_with(addr, "POST", path, headers, Some(&body.to_string())).expect("post");
    assert!(r.status != 500, "{path}: {}", r.body);
    let v = serde_json::from_str(&r.body).unwrap_or(Value::Null);
    (r.status, v)
}

/// An action through a server, which must accept it.
fn act(addr: &str, token: &str, action: &Value) {
    let (st, r) = post(addr, &format!("/api/s/{token}/actions"), action, &[]);
    assert_eq!(st, 200, "{r}");
}

fn view(addr: &str, token: &str) -> Value {
    let r = request(addr, "GET", &format!("/api/s/{token}"), None).expect("view");
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

/// The army commander of the side holding the initiative in the demo game (Cerignola).
fn commander(state: &Value) -> &'static str {
    match state["initiative_side"].as_str().expect("side") {
        "french" => "nemours",
        _ => "gonzalo",
    }
}

/// The sequence numbers in a game's log, as a server shows it.
fn log_seqs(addr: &str, token: &str) -> Vec<u64> {
    request(addr, "GET", &format!("/api/s/{token}/log"), None)
        .expect("log")
        .json()["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["seq"].as_u64())
        .collect()
}

/// Read `es` until an entry with sequence number `seq` comes, within `wait`; the time it took.
fn until_entry(es: &mut EventStream, seq: u64, wait: Duration) -> Duration {
    let t = Instant::now();
    while t.elapsed() < wait {
        if let Some(e) = es.next(Duration::from_millis(200)).expect("read") {
            if e.id.as_deref() == Some(&seq.to_string()) {
                return t.elapsed();
            }
        }
    }
    panic!("entry {seq} did not arrive within {wait:?}");
}

#[test]
fn two_servers_on_postgres_share_every_game_live_and_the_database_orders_them() {
    let url = testing::shared().database();
    let a = server(&url, false, true);
    let b = server(&url, true, false);
    assert_eq!(a.key, b.key, "one host key for every server");
    let gm = a.demo.clone().expect("a demo game on a new database");
    // The host's list and the seat links work on both.
    for s in [&a, &b] {
        let games = common::games(&s.addr, &s.key);
        assert_eq!(games.as_array().map(Vec::len), Some(1), "one demo game");
        assert_eq!(view(&s.addr, &gm)["events"], 0);
        // The host's pages too: the games list, by the key the server printed.
        let cookie = format!("tercio_host={}", s.key);
        let page = request_with(&s.addr, "GET", "/", &[("Cookie", &cookie)], None).expect("home");
        assert_eq!(page.status, 200, "{}", page.body);
        assert!(
            page.body.contains(&format!("/s/{gm}")) || page.body.contains("/games/"),
            "{}",
            page.body
        );
        let r = request(&s.addr, "GET", &format!("/?key={}", s.key), None).expect("key");
        assert!(r.status < 400, "{}", r.status);
    }
    // A server listens for the others' writes only while it has a live page open.
    let cluster = testing::shared();
    cluster.until_listening(&url, 0, "no server listens before a page is open");
    // An action through A reaches a live page on B.
    let mut live_b =
        EventStream::open(&b.addr, &format!("/api/s/{gm}/events?after=0"), &[]).expect("stream");
    cluster.until_listening(&url, 1, "B listens while its page is open");
    act(&a.addr, &gm, &json!({"action": "initiative"}));
    let took = until_entry(&mut live_b, 1, Duration::from_secs(10));
    println!("an action through A reached a live page on B in {took:?}");
    drop(live_b);
    cluster.until_listening(&url, 0, "B stops listening once its page is gone");
    assert_eq!(view(&b.addr, &gm)["events"], 1, "B reads what A wrote");
    // Two actions expecting the same sequence, through A and B: the second is stale.
    let leader = commander(&view(&b.addr, &gm)["state"]);
    let command = json!({"action": "command", "leader": leader});
    let expect = [("If-Match", "\"1\"")];
    let (st, r) = post(&a.addr, &format!("/api/s/{gm}/actions"), &command, &expect);
    assert_eq!(st, 200, "{r}");
    let (st, r) = post(&b.addr, &format!("/api/s/{gm}/actions"), &command, &expect);
    assert_eq!(st, 412, "{r}");
    assert_eq!(
        log_seqs(&b.addr, &gm),
        [1, 2],
        "nothing recorded by the stale one"
    );
    // Without an expected sequence, two undos at once through A and B both apply, in order.
    let undos: Vec<_> = [a.addr.clone(), b.addr.clone()]
        .into_iter()
        .map(|addr| {
            let gm = gm.clone();
            std::thread::spawn(move || post(&addr, &format!("/api/s/{gm}/undo"), &json!({}), &[]))
        })
        .collect();
    for u in undos {
        let (st, r) = u.join().expect("undo");
        assert_eq!(st, 200, "{r}");
    }
    let log = request(&a.addr, "GET", &format!("/api/s/{gm}/log"), None)
        .expect("log")
        .json();
    let entries = log["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 4);
    assert!(entries[..2].iter().all(|e| e["voided"] == true), "{log}");
    assert_eq!(view(&b.addr, &gm)["events"], 4);
    assert_eq!(view(&a.addr, &gm)["events"], 4);
}

#[test]
fn a_server_killed_under_load_loses_nothing_and_its_pages_catch_up_on_the_other() {
    let url = testing::shared().database();
    let mut a = server(&url, false, true);
    let b = server(&url, false, false);
    let gm = a.demo.clone().expect("demo");
    let mut live =
        EventStream::open(&a.addr, &format!("/api/s/{gm}/events?after=0"), &[]).expect("stream");
    act(&a.addr, &gm, &json!({"action": "initiative"}));
    let leader = commander(&view(&a.addr, &gm)["state"]);
    // Load: a command and its undo, again and again, until the server is gone.
    let (addr, token) = (a.addr.clone(), gm.clone());
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(1));
    let counted = count.clone();
    let load = std::thread::spawn(move || {
        let mut acked = vec![1];
        for i in 0.. {
            let (path, body) = if i % 2 == 0 {
                ("actions", json!({"action": "command", "leader": leader}))
            } else {
                ("undo", json!({}))
            };
            match request(
                &addr,
                "POST",
                &format!("/api/s/{token}/{path}"),
                Some(&body.to_string()),
            ) {
                Ok(r) if r.status == 200 => {
                    acked.push(r.json()["seq"].as_u64().expect("seq"));
                    counted.store(acked.len(), std::sync::atomic::Ordering::SeqCst);
                }
                // Cut off mid-answer by the kill: not acknowledged.
                Ok(r) if r.status == 0 => break,
                Ok(r) => panic!("{path}: {} {}", r.status, r.body),
                Err(_) => break,
            }
        }
        acked
    });
    // The page has seen the first entries, then loses its connection (a phone going to
    // sleep); the server is killed while the load goes on.
    let seen = 5;
    until_entry(&mut live, seen, Duration::from_secs(60));
    drop(live);
    let t = Instant::now();
    while count.load(std::sync::atomic::Ordering::SeqCst) < 20 {
        assert!(t.elapsed() < Duration::from_secs(60), "the load stalled");
        std::thread::sleep(Duration::from_millis(5));
    }
    a.child.kill().expect("kill -9");
    let acked = load.join().expect("load");
    // Every acknowledged action is on the other server.
    let on_b = log_seqs(&b.addr, &gm);
    for s in &acked {
        assert!(on_b.contains(s), "acknowledged entry {s} lost: {on_b:?}");
    }
    // The page reconnects to B from the last entry it had, and gets every one after it.
    let last_b = *on_b.last().expect("entries");
    let mut again = EventStream::open(
        &b.addr,
        &format!("/api/s/{gm}/events"),
        &[("Last-Event-ID", &seen.to_string())],
    )
    .expect("reconnect");
    let mut caught = Vec::new();
    let t = Instant::now();
    while caught.last() != Some(&last_b) && t.elapsed() < Duration::from_secs(30) {
        if let Some(e) = again.next(Duration::from_millis(200)).expect("read") {
            caught.extend(e.id.and_then(|i| i.parse::<u64>().ok()));
        }
    }
    assert_eq!(caught, ((seen + 1)..=last_b).collect::<Vec<_>>());
    println!(
        "{} actions acknowledged by the killed server, all on the other; its page caught up from {seen} to {last_b}",
        acked.len()
    );
}

#[test]
fn while_the_database_is_down_writes_answer_503_and_the_servers_recover_by_themselves() {
    let cluster = Cluster::start().unwrap_or_else(|e| panic!("{e}"));
    let url = cluster.database();
    let (a, b) = (server(&url, false, true), server(&url, false, false));
    let gm = a.demo.clone().expect("demo");
    let mut live_b =
        EventStream::open(&b.addr, &format!("/api/s/{gm}/events?after=0"), &[]).expect("stream");
    let initiative = json!({"action": "initiative"});
    // A second game, made through B: A has never read it.
    let auth = format!("Bearer {}", b.key);
    let other = request_with(
        &b.addr,
        "POST",
        "/api/games",
        &[("Authorization", &auth)],
        Some(&json!({"scenario": "el-gran-capitan/cerignola-1503"}).to_string()),
    )
    .expect("create")
    .json();
    let other = other["links"][0]["url"]
        .as_str()
        .and_then(|u| u.rsplit('/').next())
        .expect("link")
        .to_string();
    // A has acted for this link before: its next action runs on the game in memory, and only
    // its append meets the outage.
    act(&a.addr, &gm, &initiative);
    // B has read it too (its page was told).
    until_entry(&mut live_b, 1, Duration::from_secs(30));
    let leader = commander(&view(&a.addr, &gm)["state"]);
    let command = json!({"action": "command", "leader": leader});
    cluster.down().expect("stop the database");
    let (st, r) = post(&a.addr, &format!("/api/s/{gm}/actions"), &command, &[]);
    assert_eq!(st, 503, "{r}");
    assert_eq!(r["error"]["code"], "storage", "{r}");
    // No seat is shown that the store cannot confirm: not A's copy (whose change failed), not
    // B's (which was once shown as last stored: its link may have been withdrawn since, on a
    // server B does not hear while the database is down), nor a game never read.
    for (addr, token) in [(&a.addr, &gm), (&b.addr, &gm), (&a.addr, &other)] {
        let r = request(addr, "GET", &format!("/api/s/{token}"), None).expect("view");
        assert_eq!(r.status, 503, "{}", r.body);
        assert_eq!(r.json()["error"]["code"], "storage", "{}", r.body);
    }
    cluster.up().expect("start it again");
    // The next try succeeds once the server has reconnected, with no restart.
    let t = Instant::now();
    loop {
        let (st, r) = post(&a.addr, &format!("/api/s/{gm}/actions"), &command, &[]);
        if st == 200 {
            break;
        }
        assert_eq!(st, 503, "{r}");
        assert!(t.elapsed() < Duration::from_secs(60), "no recovery: {r}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // And B's page hears of it: its listener reconnected too.
    until_entry(&mut live_b, 2, Duration::from_secs(30));
    assert_eq!(
        log_seqs(&b.addr, &gm),
        [1, 2],
        "the refused command was never stored"
    );
}

/// Servers started together on an empty database make one demo game between them: two
/// servers' stores on one PostgreSQL database ask for it at the same moment, a few times over.
#[test]
fn servers_started_together_on_an_empty_database_make_one_demo_game() {
    for round in 0..3 {
        let url = testing::shared().database();
        let servers: Vec<_> = (0..2)
            .map(|_| {
                let store = tercio_store::open(&url).expect("connect");
                tercio_web::AppState::new(store)
            })
            .collect();
        let start = std::sync::Arc::new(std::sync::Barrier::new(servers.len()));
        let made: Vec<_> = servers
            .iter()
            .map(|st| {
                let (st, start) = (st.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    tercio_web::ensure_demo_game(&st, "el-gran-capitan/cerignola-1503")
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().expect("thread").expect("ensure_demo_game"))
            .collect();
        let games = servers[0].store.list(false).expect("list");
        assert_eq!(games.len(), 1, "round {round}: {games:?}");
        assert_eq!(
            made.iter().filter(|m| m.is_some()).count(),
            1,
            "round {round}: one server says it made it: {made:?}"
        );
    }
}

/// The names of the command cards a side's hand holds, as its view shows them.
fn card_names(hand: &Value) -> Vec<&'static str> {
    use tercio_rules::commands_colors_ecw::tables::{command_card, command_kind};
    hand.as_array()
        .expect("a hand")
        .iter()
        .filter_map(|c| c.as_u64().and_then(|c| u8::try_from(c).ok()))
        .filter_map(|c| command_card(command_kind(c).id).map(|k| k.name))
        .collect()
}

#[test]
fn while_the_database_is_down_a_link_withdrawn_on_another_server_is_refused_not_read_stale() {
    let cluster = Cluster::start().unwrap_or_else(|e| panic!("{e}"));
    let url = cluster.database();
    // A makes the demo game (and prints its line, read here), B finds it.
    let (a, b) = (server(&url, false, true), server(&url, false, false));
    // A game with secret hands, made and dealt through A.
    let auth = format!("Bearer {}", a.key);
    let made = request_with(
        &a.addr,
        "POST",
        "/api/games",
        &[("Authorization", &auth)],
        Some(&json!({"scenario": "commands-colors-ecw/edgehill-1642", "seed": 11}).to_string()),
    )
    .expect("create")
    .json();
    let link = |i: usize| {
        made["links"][i]["url"]
            .as_str()
            .and_then(|u| u.rsplit('/').next())
            .expect("link")
            .to_string()
    };
    let (gm, old) = (link(0), link(1));
    assert_eq!(made["links"][1]["role"], "side", "{made}");
    let side = made["links"][1]["side"].clone();
    act(&a.addr, &gm, &json!({"action": "deal"}));
    // B reads the game as the side, its page too: B has the game in memory, seats and all.
    let hand = view(&b.addr, &old)["state"]["sides"][0]["hand"].clone();
    let names = card_names(&hand);
    assert!(!names.is_empty(), "the side sees its hand: {hand}");
    let en = [("Accept-Language", "en")];
    let page = request_with(&b.addr, "GET", &format!("/s/{old}"), &en, None).expect("page");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        names.iter().any(|n| page.body.contains(n)),
        "the page names the hand"
    );
    // The game master withdraws the link on A; B asks the store, and refuses it.
    let (st, r) = post(
        &a.addr,
        &format!("/api/s/{gm}/seats/reissue"),
        &json!({"role": "side", "side": side}),
        &[],
    );
    assert_eq!(st, 200, "{r}");
    let new = r["url"]
        .as_str()
        .and_then(|u| u.rsplit('/').next())
        .expect("new link")
        .to_string();
    let r = request(&b.addr, "GET", &format!("/api/s/{old}"), None).expect("view");
    assert_eq!(r.status, 404, "{}", r.body);
    cluster.down().expect("stop the database");
    // B cannot ask the store whether a link is current: it refuses every one, the withdrawn
    // one (which its copy in memory still lists) as the new one, and shows nothing of the hand,
    // in the reader's language.
    for token in [&old, &new] {
        for (lang, says) in [("en", "cannot reach its database"), ("it", "database")] {
            let headers = [("Accept-Language", lang)];
            let r = request_with(&b.addr, "GET", &format!("/api/s/{token}"), &headers, None)
                .expect("view");
            assert_eq!(r.status, 503, "{}", r.body);
            let e = &r.json()["error"];
            assert_eq!(e["code"], "storage", "{}", r.body);
            let message = e["message"].as_str().expect("message");
            assert!(message.contains(says), "{lang}: {message}");
            let page =
                request_with(&b.addr, "GET", &format!("/s/{token}"), &headers, None).expect("page");
            assert_eq!(page.status, 503, "{}", page.body);
            assert!(page.body.contains(says), "{lang}: {}", page.body);
            for body in [&r.body, &page.body] {
                assert!(!body.contains("\"hand\""), "{body}");
                for n in &names {
                    assert!(!body.contains(n), "{n} shown: {body}");
                }
            }
        }
    }
    // The log and the live stream of the withdrawn link say nothing either.
    let r = request(&b.addr, "GET", &format!("/api/s/{old}/log"), None).expect("log");
    assert_eq!(r.status, 503, "{}", r.body);
    let r = request(&b.addr, "GET", &format!("/api/s/{old}/events"), None).expect("events");
    assert_eq!(r.status, 503, "{}", r.body);
}

/// `tercio migrate` moves a club's SQLite games to PostgreSQL: a server there opens them by the
/// same links, the exports taken on either side are the same and `tercio verify` passes on both,
/// and a second run copies nothing.
#[test]
fn migrate_moves_a_clubs_games_to_postgres_and_verify_passes_on_both_sides() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("club.db");
    let file_s = file.display().to_string();
    let s = server(&file_s, false, true);
    let gm = s.demo.clone().expect("demo");
    let (st, r) = post(
        &s.addr,
        &format!("/api/s/{gm}/actions"),
        &json!({"action": "initiative"}),
        &[],
    );
    assert_eq!(st, 200, "{r}");
    let leader = commander(&view(&s.addr, &gm)["state"]);
    let command = json!({"action": "command", "leader": leader});
    let (st, r) = post(&s.addr, &format!("/api/s/{gm}/actions"), &command, &[]);
    assert_eq!(st, 200, "{r}");
    let (st, r) = post(&s.addr, &format!("/api/s/{gm}/conclude"), &json!({}), &[]);
    assert_eq!(st, 200, "{r}");
    let export = |addr: &str, name: &str| {
        let r = request(addr, "GET", &format!("/api/s/{gm}/export"), None).expect("export");
        assert_eq!(r.status, 200, "{}", r.body);
        let p = dir.path().join(name);
        std::fs::write(&p, &r.body).expect("write");
        (p, r.json())
    };
    let (from_sqlite, a) = export(&s.addr, "sqlite.json");
    drop(s);
    let url = testing::shared().database();
    let migrate = || {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_tercio"))
            .args(["migrate", "--from", &file_s, "--to", &url])
            .output()
            .expect("tercio migrate");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let said = migrate();
    assert!(said.starts_with("1 game(s) copied"), "{said}");
    assert!(migrate().starts_with("0 game(s) copied"), "copied once");
    let p = server(&url, true, false);
    let (from_postgres, b) = export(&p.addr, "postgres.json");
    assert_eq!(a, b, "the same export from either side");
    for f in [&from_sqlite, &from_postgres] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_tercio"))
            .args(["verify"])
            .arg(f)
            .env("TERCIO_LANG", "en")
            .output()
            .expect("tercio verify");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && out.contains("verified"),
            "{}: {out}{}",
            f.display(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
