//! `tercio`: the command line of the game-master companion.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::{json, Value};
use tercio_core::DiceStream;
use tercio_i18n::Lang;
use tercio_rules::game::Game;
use tercio_rules::{odds, registry, scenario};

#[derive(Parser)]
#[command(
    name = "tercio",
    version,
    about = "Game-master companion for pike-and-shot miniature wargames: rolls every die, applies every modifier by name, tracks every unit, and shows the exact odds."
)]
struct Cli {
    /// The language of the rules' messages in the output: it or en (default: $TERCIO_LANG, then
    /// $LANG, then en). The command line's own words are English.
    #[arg(long, global = true, value_parser = ["it", "en"])]
    lang: Option<String>,
    #[command(subcommand)]
    cmd: Cmd,
}

/// The language of the output, chosen once at the start.
static LANG: std::sync::OnceLock<Lang> = std::sync::OnceLock::new();

/// `--lang`, then `TERCIO_LANG`, then `LANG` (`it_IT.UTF-8` is Italian), then English. A
/// variable naming another language is passed over.
fn choose_lang(flag: Option<&str>, tercio_lang: Option<&str>, lang: Option<&str>) -> Lang {
    [flag, tercio_lang, lang]
        .into_iter()
        .flatten()
        .find_map(Lang::from_code)
        .unwrap_or_default()
}

/// Engine text in the output's language: its language-neutral messages rendered, plain text as is.
fn loc(text: &str) -> String {
    tercio_i18n::localize(LANG.get().copied().unwrap_or_default(), text)
}

/// A line of output, its messages in the output's language.
macro_rules! say {
    () => { println!() };
    ($($t:tt)*) => { println!("{}", loc(&format!($($t)*))) };
}

/// Output without a line end, its messages in the output's language.
macro_rules! say_inline {
    ($($t:tt)*) => { print!("{}", loc(&format!($($t)*))) };
}

mod fuzz;
mod verify;

/// JSON output, every string's messages in the output's language (the files Tercio writes keep
/// the messages as recorded).
fn print_json<T: serde::Serialize>(v: &T) {
    let mut v = serde_json::to_value(v).unwrap_or(Value::Null);
    tercio_i18n::localize_json(LANG.get().copied().unwrap_or_default(), &mut v);
    println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
}

#[derive(Subcommand)]
enum Cmd {
    /// List the rule sets, their aliases and whether they are available.
    Rulesets {
        #[arg(long)]
        json: bool,
    },
    /// Print a rule set's charts (troop types, capabilities, movement, tables) as reference.
    Reference {
        #[arg(long)]
        rules: String,
        #[arg(long)]
        json: bool,
    },
    /// Scenarios.
    Scenario {
        #[command(subcommand)]
        cmd: ScenarioCmd,
    },
    /// Roll one action described in a JSON file (units inline) and explain it.
    Resolve {
        #[arg(long)]
        rules: String,
        /// Seed of the dice stream (default: fresh from the operating system).
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long)]
        json: bool,
        /// Also print the exact odds of the action.
        #[arg(long)]
        odds: bool,
        action: PathBuf,
    },
    /// The exact distribution of an action's outcomes.
    Odds {
        #[arg(long)]
        rules: String,
        #[arg(long)]
        json: bool,
        action: PathBuf,
    },
    /// A designer's balance sheet: every troop type against every troop type, exact odds of
    /// one action and of the fight to the finish it opens (no sampling).
    Matchup {
        /// The rule set (id or alias).
        #[arg(long)]
        rules: String,
        /// The action that opens each matchup: charge, melee or fire (default: the rule set's
        /// first).
        #[arg(long)]
        action: Option<String>,
        /// The units' size (bases, figures or blocks as the rule set counts; default: the rule
        /// set's usual unit).
        #[arg(long)]
        size: Option<u8>,
        /// Only one pair, in detail: the actor's and the target's troop types.
        #[arg(long, num_args = 2, value_names = ["ACTOR", "TARGET"])]
        fight: Option<Vec<String>>,
        #[arg(long)]
        json: bool,
        /// Also write a self-contained HTML page with the heatmaps to this file.
        #[arg(long)]
        report: Option<PathBuf>,
    },
    /// Play whole battles of a scenario with automatic players for both sides, on every core,
    /// and say who wins, how often, how long it takes and which troop types do the work.
    Simulate {
        /// A scenario file, or a shipped scenario's id (`el-gran-capitan/cerignola-1503`).
        scenario: PathBuf,
        /// How many battles.
        #[arg(long, default_value_t = 1000)]
        games: u32,
        /// The seed of the run (default: fresh from the operating system, and printed): the same
        /// seed gives the same battles, however many threads play them.
        #[arg(long)]
        seed: Option<u64>,
        /// The players' policy: one for both sides (aggressive, cautious, random), or one side's
        /// as SIDE=POLICY, given once per side.
        #[arg(long)]
        policy: Vec<String>,
        /// The turn after which a battle stops if no army has broken: the side that has lost the
        /// smaller share of its break point wins (default: the rule set's, 20; 60 for Commands &
        /// Colors, whose turn is one side's card).
        #[arg(long)]
        turns: Option<u32>,
        /// Threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        #[arg(long)]
        json: bool,
        /// Also write a self-contained HTML page with the plots and tables to this file.
        #[arg(long)]
        report: Option<PathBuf>,
    },
    /// Play random games of scenarios through every seat's forms (every action, choice, answer,
    /// dice typed at the table, undos), checking the rules after every step: no panic, no dead
    /// end, no refusal of what a form offers, undo and replay, each seat's view, the odds.
    Fuzz {
        /// Scenario files or shipped scenarios' ids (default: every shipped scenario).
        scenarios: Vec<PathBuf>,
        /// Games of each scenario.
        #[arg(long, default_value_t = 200)]
        games: u32,
        /// The seed of the run (default: fresh, and printed): game i of a scenario is seeded
        /// from it as `tercio simulate` seeds battle i.
        #[arg(long)]
        seed: Option<u64>,
        /// The turn after which a game stops (default: the rule set's `tercio simulate` limit).
        #[arg(long)]
        turns: Option<u32>,
        /// Threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// How many replays to spend shrinking each failure to its shortest list of moves.
        #[arg(long, default_value_t = 300)]
        shrink: u32,
        /// Write each failure found, shrunk, as a JSON file to this folder (a regression case).
        #[arg(long)]
        save: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Games: an append-only event log on file.
    Game {
        #[command(subcommand)]
        cmd: GameCmd,
    },
    /// Re-fold a game's log from its seed and check every roll and the stored state.
    Replay { game: PathBuf },
    /// Check that every roll of a finished game came from its committed seed: reads a game file
    /// or a game exported from the app, checks the seed against the published SHA-256
    /// commitment, and re-runs every roll.
    Verify {
        /// A game file, or an export (`tercio-export/3` or `/2`) downloaded from a game's page.
        file: PathBuf,
        /// The commitment the game's pages showed (its dice section): the export must be that
        /// game's, with its seed, nonce and identity unchanged.
        #[arg(long)]
        commitment: Option<String>,
        /// A log fingerprint the game's pages showed at some point: the export's log must pass
        /// through it (the entries up to it are the ones you saw).
        #[arg(long)]
        fingerprint: Option<String>,
        /// Accept a `tercio-export/1`, made before the log's fingerprint was exported: who
        /// recorded each entry, and an undo removed with the event it voided, cannot be checked
        /// in it.
        #[arg(long)]
        without_fingerprint: bool,
    },
    /// A readable battle report in Markdown: the result, the break points turn by turn, the log
    /// and the dice.
    Report { game: PathBuf },
    /// Run the game app: pages for the browser and the JSON API, on an embedded SQLite database
    /// (or a PostgreSQL one that several servers share).
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: String,
        /// The database: a file (or sqlite:FILE; default: tercio.db in the platform's data
        /// directory), or postgres://USER@HOST/DB for PostgreSQL, which several servers can
        /// share. TERCIO_DB keeps a password out of the process list.
        #[arg(long, env = "TERCIO_DB", hide_env_values = true)]
        db: Option<String>,
        /// The address players' phones reach this server by, for their links and QR codes
        /// (e.g. http://192.168.1.20:8080 with --addr 0.0.0.0:8080). Default: the address the
        /// game master's browser used.
        #[arg(long)]
        public_url: Option<String>,
        /// How many games to keep in memory between requests (least recently used dropped
        /// first; a dropped game is read again from the database when it is next used).
        #[arg(long, default_value_t = tercio_web::LIVE_GAMES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
        live_games: usize,
        /// Seconds a client has to send a request's headers, from their first byte (a new
        /// connection: from being accepted); past that its connection is closed.
        #[arg(long, env = "TERCIO_HEADER_TIMEOUT", value_name = "SECONDS", default_value_t = tercio_web::conn::HEADER_TIMEOUT.as_secs(), value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=3600))]
        header_timeout: u64,
        /// Seconds a client has to send a request's body, from its headers; past that its
        /// connection is closed.
        #[arg(long, env = "TERCIO_BODY_TIMEOUT", value_name = "SECONDS", default_value_t = tercio_web::conn::BODY_TIMEOUT.as_secs(), value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=3600))]
        body_timeout: u64,
        /// Seconds a connection may stay without a byte either way (waiting for its next
        /// request, or not reading its answer) before it is closed. Live pages send a keep-alive
        /// at least three times as often.
        #[arg(long, env = "TERCIO_IDLE_TIMEOUT", value_name = "SECONDS", default_value_t = tercio_web::conn::IDLE_TIMEOUT.as_secs(), value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=86_400))]
        idle_timeout: u64,
        /// How many connections may be open at once; at the bound a new one closes the
        /// longest-idle. Default: the open-files limit (ulimit -n) less 128, at least 64 and at
        /// most 65536.
        #[arg(long, env = "TERCIO_MAX_CONNECTIONS", value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000_000))]
        max_connections: Option<usize>,
    },
    /// Copy every game, with its log and its seats' links, from one database to another (e.g.
    /// from a club's SQLite file to the PostgreSQL database its servers will share). Games the
    /// target already has are left alone, so it can be run again; the target keeps its own
    /// host key.
    Migrate {
        /// Where the games are: a file, sqlite:FILE or postgres://USER@HOST/DB.
        #[arg(long)]
        from: String,
        /// Where they go (same forms). TERCIO_DB names it when this is not given, which keeps a
        /// password out of the process list.
        #[arg(long, env = "TERCIO_DB", hide_env_values = true)]
        to: String,
    },
}

#[derive(Subcommand)]
enum ScenarioCmd {
    /// Validate scenario files; reports every problem as file:line:col.
    Check { files: Vec<PathBuf> },
}

#[derive(Subcommand)]
enum GameCmd {
    /// Start a game from a scenario.
    New {
        /// A scenario file, or a shipped scenario's id (`el-gran-capitan/cerignola-1503`).
        scenario: PathBuf,
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Resolve an action (units by id) in the game and record it.
    Act {
        game: PathBuf,
        action: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// The exact odds of an action in the game as it stands, before anyone rolls (nothing is
    /// recorded).
    Odds {
        game: PathBuf,
        action: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Void the last event (it stays in the log; the dice do not rewind).
    Undo { game: PathBuf },
    /// Show the state: units, leaders, break points, whose turn.
    Show {
        game: PathBuf,
        #[arg(long)]
        json: bool,
        /// Also list the event log.
        #[arg(long)]
        log: bool,
    },
}

/// An error for the user: what, where, and the exit code.
struct Failure {
    msg: String,
    code: u8,
}

fn fail(msg: impl Into<String>) -> Failure {
    Failure {
        msg: msg.into(),
        code: 1,
    }
}

type Res = Result<(), Failure>;

/// The server allocates and frees many small JSON trees per action: glibc's allocator spent about
/// a third of an action's instructions in `malloc` and `free` (`docs/performance.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Output piped into a reader that stops early (`| head`) ends the program quietly, as other
    // command-line tools do, rather than with a panic message.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        default_hook(info);
    }));
    let cli = Cli::parse();
    let env = |k: &str| std::env::var(k).ok();
    let _ = LANG.set(choose_lang(
        cli.lang.as_deref(),
        env("TERCIO_LANG").as_deref(),
        env("LANG").as_deref(),
    ));
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("{}", loc(&f.msg));
            ExitCode::from(f.code)
        }
    }
}

fn run(cli: Cli) -> Res {
    match cli.cmd {
        Cmd::Rulesets { json } => rulesets(json),
        Cmd::Reference { rules, json } => reference(&rules, json),
        Cmd::Scenario {
            cmd: ScenarioCmd::Check { files },
        } => scenario_check(&files),
        Cmd::Resolve {
            rules,
            seed,
            json,
            odds,
            action,
        } => resolve(&rules, seed, json, odds, &action),
        Cmd::Odds {
            rules,
            json,
            action,
        } => odds_cmd(&rules, json, &action),
        Cmd::Matchup {
            rules,
            action,
            size,
            fight,
            json,
            report,
        } => matchup(&rules, action, size, fight, json, report.as_deref()),
        Cmd::Simulate {
            scenario,
            games,
            seed,
            policy,
            turns,
            threads,
            json,
            report,
        } => simulate(&Simulation {
            scenario: &scenario,
            games,
            seed,
            policy: &policy,
            turns,
            threads,
            json,
            report: report.as_deref(),
        }),
        Cmd::Fuzz {
            scenarios,
            games,
            seed,
            turns,
            threads,
            shrink,
            save,
            json,
        } => fuzz::run(&fuzz::Args {
            scenarios: &scenarios,
            games,
            seed,
            turns,
            threads,
            shrink,
            save: save.as_deref(),
            json,
        }),
        Cmd::Game { cmd } => match cmd {
            GameCmd::New {
                scenario,
                seed,
                out,
            } => game_new(&scenario, seed, &out),
            GameCmd::Act { game, action, json } => game_act(&game, &action, json),
            GameCmd::Odds { game, action, json } => game_odds(&game, &action, json),
            GameCmd::Undo { game } => game_undo(&game),
            GameCmd::Show { game, json, log } => game_show(&game, json, log),
        },
        Cmd::Replay { game } => replay(&game),
        Cmd::Verify {
            file,
            commitment,
            fingerprint,
            without_fingerprint,
        } => verify::verify(
            &file,
            &verify::Seen {
                commitment,
                fingerprint,
                without_fingerprint,
            },
        ),
        Cmd::Report { game } => report_cmd(&game),
        Cmd::Migrate { from, to } => migrate(&from, &to),
        Cmd::Serve {
            addr,
            db,
            public_url,
            live_games,
            header_timeout,
            body_timeout,
            idle_timeout,
            max_connections,
        } => {
            let secs = std::time::Duration::from_secs;
            let limits = tercio_web::conn::Limits {
                header_timeout: secs(header_timeout),
                body_timeout: secs(body_timeout),
                idle_timeout: secs(idle_timeout),
                max_connections: max_connections
                    .unwrap_or_else(tercio_web::conn::default_max_connections),
            };
            serve(&addr, db, public_url, live_games, limits)
        }
    }
}

fn rulesets(json: bool) -> Res {
    let list: Vec<Value> = registry::all()
        .iter()
        .map(|r| json!({"id": r.id(), "alias": r.alias(), "name": r.name(), "seed": r.seed(), "available": r.available()}))
        .collect();
    if json {
        print_json(&list);
    } else {
        for r in registry::all() {
            say!(
                "{:<30} {:<7} {}{}",
                r.id(),
                r.alias(),
                r.name(),
                if r.available() {
                    ""
                } else {
                    "  (not yet available)"
                }
            );
        }
    }
    Ok(())
}

fn matchup(
    id: &str,
    action: Option<String>,
    size: Option<u8>,
    fight: Option<Vec<String>>,
    json: bool,
    report: Option<&Path>,
) -> Res {
    use tercio_rules::interface::balance;
    let r = rules(id)?;
    let b = r.balance().ok_or_else(|| {
        fail(format!(
            "--rules: {} has no balance sheets yet; these have: {}",
            r.id(),
            rule_sets_that(|r| r.balance().is_some())
        ))
    })?;
    let action = action.unwrap_or_else(|| b.actions()[0].id.to_string());
    let (unit, lo, hi) = r.unit_size();
    let size = size.unwrap_or(b.default_size());
    if !(lo..=hi).contains(&i64::from(size)) {
        return Err(fail(format!("--size: {size} {unit}: allowed {lo} to {hi}")));
    }
    let refused = |e: tercio_rules::Rejection| {
        let field = match e.field.as_deref() {
            Some("action") | None => "--action",
            Some(f) if f.starts_with("actor") => "--fight ACTOR",
            Some(f) if f.starts_with("target") => "--fight TARGET",
            Some(_) => "--fight",
        };
        fail(format!("{field}: {}", e.message))
    };
    if let Some(pair) = fight {
        let (a, t) = (&pair[0], &pair[1]);
        let cell = balance::Cell::of(
            "actor",
            "target",
            &b.exchange(&action, a, t, size).map_err(refused)?,
        );
        let f = b.finish(&action, a, t, size).map_err(refused)?;
        if json {
            print_json(
                &json!({"ruleset": r.id(), "action": action, "size": size, "actor": a, "target": t, "exchange": cell, "finish": f}),
            );
            return Ok(());
        }
        say!(
            "{} — {action}, {a} against {t}, {size} {unit} each",
            r.title()
        );
        say!("One {action}: actor ahead {:.2}%, tie {:.2}%, target ahead {:.2}%; levels lost: actor {:.3}, target {:.3}",
            cell.actor_ahead * 100.0, cell.tie * 100.0, cell.target_ahead * 100.0, cell.actor_loss, cell.target_loss);
        say!(
            "Fight to the finish ({} states, {:.3} rounds expected):",
            f.states,
            f.rounds
        );
        for (e, p) in &f.ends {
            say!(
                "  {:<18} {:>7.2}%",
                serde_json::to_value(e)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                p * 100.0
            );
        }
        return Ok(());
    }
    let sheet = balance::sheet(r.id(), &*b, &action, size).map_err(refused)?;
    if let Some(path) = report {
        let lang = LANG.get().copied().unwrap_or_default();
        let html = tercio_web::balance_report(lang, r, &sheet);
        std::fs::write(path, html)
            .map_err(|e| fail(format!("--report: {}: {e}", path.display())))?;
    }
    if json {
        print_json(&sheet);
        return Ok(());
    }
    say!("{} — {action}, {size} {unit} each", r.title());
    say!("Each cell, in percent: the chance that the row's unit comes out ahead of the column's (loses less: status levels, or bases, figures or blocks) / that it carries the field in a fight to the finish (destroys the column's or drives it off); - where the rules forbid it.");
    let w = sheet.fighters.iter().map(|f| f.id.len()).max().unwrap_or(0);
    for (i, (a, row)) in sheet.fighters.iter().zip(&sheet.cells).enumerate() {
        say_inline!("{:<w$} ", a.id);
        for (j, cell) in row.iter().enumerate() {
            match (cell, &sheet.finish[i][j]) {
                (Some(c), Some(f)) => say_inline!(
                    " {:>3.0}/{:<3.0}",
                    c.actor_ahead * 100.0,
                    (f.p(balance::End::TargetDestroyed) + f.p(balance::End::TargetBack)) * 100.0
                ),
                (Some(c), None) => say_inline!(" {:>3.0}/-  ", c.actor_ahead * 100.0),
                _ => say_inline!("    -    "),
            }
        }
        say!();
    }
    say!(
        "Columns, in order: {}",
        sheet
            .fighters
            .iter()
            .map(|f| f.id)
            .collect::<Vec<_>>()
            .join(", ")
    );
    if let Some(path) = report {
        say!("Report written to {}", path.display());
    }
    Ok(())
}

/// `tercio simulate`'s arguments.
struct Simulation<'a> {
    scenario: &'a Path,
    games: u32,
    seed: Option<u64>,
    policy: &'a [String],
    turns: Option<u32>,
    threads: Option<usize>,
    json: bool,
    report: Option<&'a Path>,
}

fn simulate(a: &Simulation) -> Res {
    use rayon::prelude::*;
    use tercio_rules::interface::simulate::{battle_seed, Summary};
    let sc = read_scenario(a.scenario)?;
    let r = rules(&sc.ruleset)?;
    let sim = r.simulator().ok_or_else(|| {
        fail(format!(
            "{}: {} cannot play itself yet; these can: {}",
            a.scenario.display(),
            r.id(),
            rule_sets_that(|r| r.simulator().is_some())
        ))
    })?;
    if a.games == 0 {
        return Err(fail("--games: 0: give at least 1"));
    }
    let turns = a.turns.unwrap_or_else(|| sim.turn_limit());
    if turns == 0 {
        return Err(fail("--turns: 0: give at least 1"));
    }
    let sides: Vec<String> = sc.sides.iter().map(|s| s.id.clone()).collect();
    let known: Vec<&str> = sim.policies().iter().map(|p| p.id).collect();
    let mut policies: Vec<&str> = (0..sides.len())
        .map(|i| sim.default_policy(&sc, i))
        .collect();
    let mut both: Option<&str> = None;
    for p in a.policy {
        let (side, name) = match p.split_once('=') {
            Some((s, n)) => (Some(s), n),
            None => (None, p.as_str()),
        };
        if !known.contains(&name) {
            return Err(fail(format!(
                "--policy: \"{name}\" is not a policy; allowed: {}",
                known.join(", ")
            )));
        }
        match side {
            Some(s) => {
                let i = sides.iter().position(|x| x == s).ok_or_else(|| {
                    fail(format!(
                        "--policy: no side \"{s}\" in {}; its sides: {}",
                        a.scenario.display(),
                        sides.join(", ")
                    ))
                })?;
                policies[i] = name;
            }
            None => both = Some(name),
        }
    }
    if let Some(b) = both {
        for (i, p) in policies.iter_mut().enumerate() {
            if !a
                .policy
                .iter()
                .any(|x| x.starts_with(&format!("{}=", sides[i])))
            {
                *p = b;
            }
        }
    }
    let seed = a.seed.unwrap_or_else(fresh_seed);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .map_err(|e| fail(format!("--threads: {e}")))?;
    let bar = indicatif::ProgressBar::new(u64::from(a.games));
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} battles, {per_sec}, about {eta} left",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let started = std::time::Instant::now();
    let results: Vec<Result<tercio_rules::interface::simulate::Battle, String>> =
        pool.install(|| {
            (0..a.games)
                .into_par_iter()
                .map(|i| {
                    let b = sim.play(
                        &sc,
                        battle_seed(seed, u64::from(i)),
                        &policies,
                        turns,
                        false,
                    );
                    bar.inc(1);
                    b
                })
                .collect()
        });
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    let mut battles = Vec::with_capacity(results.len());
    for (i, b) in results.into_iter().enumerate() {
        battles.push(b.map_err(|e| {
            fail(format!(
                "battle {i} (seed {}): {e}",
                battle_seed(seed, i as u64)
            ))
        })?);
    }
    let summary = Summary::of(&sides, &battles);
    let meta = json!({
        "scenario": a.scenario.display().to_string(),
        "title": sc.title,
        "ruleset": r.id(),
        "games": a.games,
        "seed": seed,
        "policies": sides.iter().zip(&policies).map(|(s, p)| json!({"side": s, "policy": p})).collect::<Vec<_>>(),
        "turns": turns,
    });
    if let Some(path) = a.report {
        let lang = LANG.get().copied().unwrap_or_default();
        let names: Vec<(String, String)> = sc
            .sides
            .iter()
            .map(|s| (s.id.clone(), s.name.plain().into_owned()))
            .collect();
        let html = tercio_web::simulation_report(
            lang,
            r,
            &tercio_web::SimulationRun {
                title: sc.title.plain().into_owned(),
                sides: names,
                policies: policies.iter().map(|p| p.to_string()).collect(),
                seed,
                turns,
                gap: sim.gap(),
            },
            &summary,
        );
        std::fs::write(path, html)
            .map_err(|e| fail(format!("--report: {}: {e}", path.display())))?;
    }
    if a.json {
        print_json(&json!({"run": meta, "summary": summary}));
        return Ok(());
    }
    let n = f64::from(summary.battles);
    let apart = match sim.gap() {
        0 => "the players declaring contact (no table is kept)".to_string(),
        gap => format!("the armies {gap} inches apart"),
    };
    say!(
        "{}: {} battles, seed {seed}, at most {} turns, {apart} ({:.0} battles/s on {} threads)",
        sc.title.plain(),
        summary.battles,
        turns,
        n / secs.max(1e-9),
        pool.current_num_threads()
    );
    for (s, p) in sc.sides.iter().zip(&policies) {
        say!("  {} ({}): {p}", s.name.plain(), s.id);
    }
    say!("Result (95% intervals):");
    for (side, w) in &summary.wins {
        say!(
            "  {side:<12} wins {:>6.1}%  [{:.1}%, {:.1}%]",
            w.p * 100.0,
            w.low * 100.0,
            w.high * 100.0
        );
    }
    let d = summary.draws;
    say!(
        "  {:<12}      {:>6.1}%  [{:.1}%, {:.1}%]",
        "draw",
        d.p * 100.0,
        d.low * 100.0,
        d.high * 100.0
    );
    say!(
        "  decided at the turn limit: {:.1}%",
        summary.at_turn_limit.p * 100.0
    );
    say!(
        "Length: {:.2} turns on average, {:.1} actions",
        summary.turns_mean,
        summary.actions_mean
    );
    say!("Losses per battle, by side and troop type: units fielded, bases lost, units destroyed, bases inflicted");
    for l in &summary.losses {
        say!(
            "  {:<10} {:<26} {:>5.2} {:>6.2} {:>6.2} {:>6.2}",
            l.side,
            l.troop,
            f64::from(l.units) / n,
            f64::from(l.lost) / n,
            f64::from(l.destroyed) / n,
            f64::from(l.inflicted) / n
        );
    }
    let lang = LANG.get().copied().unwrap_or_default();
    for (title, counts) in [
        ("Actions taken, per battle:", &summary.actions_taken),
        (
            "Rules and charts used (the steps of the results), per battle:",
            &summary.usage,
        ),
    ] {
        say!("{title}");
        let mut rows: Vec<(&String, &u32)> = counts.iter().collect();
        rows.sort_by_key(|(k, v)| (std::cmp::Reverse(**v), (*k).clone()));
        for (k, v) in rows {
            say!(
                "  {:<44} {:>8.2}",
                tercio_i18n::outline(lang, k),
                f64::from(*v) / n
            );
        }
    }
    if let Some(path) = a.report {
        say!("Report written to {}", path.display());
    }
    Ok(())
}

/// The ids of the rule sets that `can` something, for a refusal that names them.
fn rule_sets_that(can: impl Fn(&dyn tercio_rules::RuleSet) -> bool) -> String {
    registry::all()
        .iter()
        .filter(|r| can(**r))
        .map(|r| r.id())
        .collect::<Vec<_>>()
        .join(", ")
}

fn rules(id: &str) -> Result<&'static dyn tercio_rules::RuleSet, Failure> {
    let r = registry::lookup(id).map_err(|e| fail(format!("--rules: {e}")))?;
    if !r.available() {
        return Err(fail(format!("--rules: {}", registry::not_available(r))));
    }
    Ok(r)
}

fn reference(id: &str, json: bool) -> Res {
    let r = rules(id)?;
    if json {
        print_json(&r.reference());
        return Ok(());
    }
    say!("{} — charts (seed {})\n", r.name(), r.seed());
    // Every rule set describes its charts as tables; the house rules follow them.
    let house = tercio_rules::interface::house::table(&r.house_rules());
    for t in r.reference_tables().iter().chain([&house]) {
        say!("{}", localized_table(t).render());
    }
    Ok(())
}

fn read(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| fail(format!("{}: cannot read: {e}", path.display())))
}

fn scenario_check(files: &[PathBuf]) -> Res {
    if files.is_empty() {
        return Err(Failure {
            msg: "scenario check: give at least one FILE".into(),
            code: 2,
        });
    }
    let mut bad = 0;
    for f in files {
        let name = f.display().to_string();
        let src = match read(f) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{}", loc(&e.msg));
                bad += 1;
                continue;
            }
        };
        match scenario::parse(&name, &src) {
            Ok(sc) => {
                // A text a player reads in one language only: a warning, not a problem.
                let warnings = scenario::translations(&name, &src);
                for w in &warnings {
                    eprintln!(
                        "{}:{}:{}: warning: {} = {}: {}",
                        w.file,
                        w.line,
                        w.column,
                        w.field,
                        w.value.as_deref().unwrap_or(""),
                        w.message
                    );
                }
                say!(
                    "{name}: ok — {} ({}), {} units, {} leaders{}",
                    sc.title.plain(),
                    sc.ruleset,
                    sc.units.len(),
                    sc.leaders.len(),
                    match warnings.len() {
                        0 => String::new(),
                        1 => ", 1 text to translate".to_string(),
                        n => format!(", {n} texts to translate"),
                    }
                )
            }
            Err(diags) => {
                bad += 1;
                for d in &diags {
                    eprintln!("{}", loc(&d.to_string()));
                }
                eprintln!(
                    "{name}: {} problem{}",
                    diags.len(),
                    if diags.len() == 1 { "" } else { "s" }
                );
            }
        }
    }
    if bad > 0 {
        Err(fail(format!("{bad} file(s) with problems")))
    } else {
        Ok(())
    }
}

/// Parse a JSON file, reporting errors at file:line:col.
fn json_at<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T, Failure> {
    let src = read(path)?;
    serde_json::from_str(&src).map_err(|e| {
        fail(format!(
            "{}:{}:{}: {what}: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// Read an action file as JSON.
fn read_action(path: &Path) -> Result<Value, Failure> {
    json_at(path, "malformed JSON")
}

fn fresh_seed() -> u64 {
    getrandom::u64().unwrap_or_else(|_| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    })
}

fn resolve(id: &str, seed: Option<u64>, json: bool, with_odds: bool, path: &Path) -> Res {
    let r = rules(id)?;
    let action = read_action(path)?;
    let engine = r.engine(None).map_err(fail)?;
    let plan = engine
        .plan(None, &action)
        .map_err(|e| fail(format!("{}: {e}", path.display())))?;
    let report = with_odds.then(|| localized_odds(&plan));
    let seed = seed.unwrap_or_else(fresh_seed);
    let mut stream = DiceStream::from_seed(seed);
    let (outcome, draws) = plan.roll(&mut stream);
    if json {
        let mut v = json!({
            "ruleset": r.id(), "seed": seed, "resolution": outcome.resolution, "draws": draws,
            "facets": outcome.facets.iter().map(|(k, v)| json!({"facet": k, "value": v})).collect::<Vec<_>>(),
            "effects": outcome.effects,
        });
        if let Some(rep) = report {
            v["odds"] = serde_json::to_value(rep).unwrap_or(Value::Null);
        }
        print_json(&v);
    } else {
        say_inline!("{}", outcome.resolution.render());
        say!("(seed {seed})");
        if let Some(rep) = report {
            say!("\nExact odds of this action:");
            say_inline!("{}", rep.render());
        }
    }
    Ok(())
}

fn odds_cmd(id: &str, json: bool, path: &Path) -> Res {
    let r = rules(id)?;
    let action = read_action(path)?;
    let engine = r.engine(None).map_err(fail)?;
    let plan = engine
        .plan(None, &action)
        .map_err(|e| fail(format!("{}: {e}", path.display())))?;
    let (report, finals) = odds::of_plans(engine.as_ref(), std::slice::from_ref(&plan));
    print_odds(r.name(), report, &finals, json);
    Ok(())
}

/// The odds of an action against a game's state: the same plan `game act` would roll (or, for a
/// unit still waiting for its turn, the action's own rules only, as the app's odds do).
fn game_odds(path: &Path, action_path: &Path, json: bool) -> Res {
    let g = load_game(path)?;
    let action = read_action(action_path)?;
    let engine = g.engine().map_err(|e| fail(e.to_string()))?;
    // Each part (every target of a split fire) with its final outcome, as the page shows them.
    let (report, finals) = odds::of_action(engine.as_ref(), Some(&g.state), &action)
        .map_err(|e| fail(format!("{}: {e}", action_path.display())))?;
    let name = tercio_rules::lookup(&g.ruleset).map_or(g.ruleset.clone(), |r| r.name().into());
    print_odds(&name, report, &finals, json);
    Ok(())
}

/// A plan's odds with their names and values in the output's language, before the columns are
/// laid out.
fn localized_odds(plan: &tercio_core::Plan<tercio_rules::Outcome>) -> odds::OddsReport {
    localized_report(odds::odds(plan))
}

/// An odds report with its names and values in the output's language.
fn localized_report(mut rep: odds::OddsReport) -> odds::OddsReport {
    for f in rep.facets.iter_mut() {
        f.facet = loc(&f.facet);
        for (v, _) in f.values.iter_mut() {
            *v = loc(v);
        }
    }
    rep
}

/// A final outcome with its words in the output's language.
fn localized_final(f: &odds::Final) -> odds::Final {
    let mut f = f.clone();
    for g in f.groups.iter_mut() {
        for (k, v) in g.values.iter_mut() {
            (*k, *v) = (loc(k), loc(v));
        }
        for (k, _) in g.expected.iter_mut() {
            *k = loc(k);
        }
        for (k, v, _) in g.chances.iter_mut() {
            (*k, *v) = (loc(k), loc(v));
        }
    }
    f
}

/// A table with its cells in the output's language, so its columns line up.
fn localized_table(t: &tercio_rules::BoardTable) -> tercio_rules::BoardTable {
    let mut t = t.clone();
    t.title = loc(&t.title);
    for c in t.columns.iter_mut() {
        *c = loc(c);
    }
    for row in t.rows.iter_mut() {
        for c in row.iter_mut() {
            *c = loc(c);
        }
    }
    t
}

/// The state as `game show` prints it: a rule set with a board is laid out here, in the output's
/// language; the others render their own.
fn show_state(engine: &dyn tercio_rules::Engine, state: &Value) -> String {
    let Some(b) = engine.board(state) else {
        return engine.render_state(state);
    };
    let mut s = format!("{}\n", loc(&b.headline));
    for n in &b.notes {
        s.push_str(&format!("  {}\n", loc(n)));
    }
    for t in &b.tables {
        s.push('\n');
        s.push_str(&localized_table(t).render());
    }
    s
}

/// The odds of an action: its final outcome first (each part's, every target of a split fire
/// its own: issue 43, item 3), then every facet's marginals (the stages). JSON: the report with
/// `final`, a list of the parts' final outcomes, as the odds route answers.
fn print_odds(name: &str, report: odds::OddsReport, finals: &[odds::Final], json: bool) {
    let rep = localized_report(report);
    if json {
        let finals: Vec<odds::Final> = finals.iter().map(localized_final).collect();
        let mut v = serde_json::to_value(&rep).unwrap_or(Value::Null);
        v["final"] = serde_json::to_value(finals).unwrap_or(Value::Null);
        print_json(&v);
    } else {
        say!("Exact odds ({name}):");
        say!("Final outcome:");
        for (i, f) in finals.iter().enumerate() {
            if finals.len() > 1 {
                say!(" part {}:", i + 1);
            }
            say_inline!("{}", f.render(&|t| loc(t)));
        }
        say!("Each step:");
        say_inline!("{}", rep.render());
    }
}

/// A game file, its scenario checked: a check the recorded scenario fails is printed as a
/// warning, and the game still loads (it was played with that scenario; replay and verify must
/// still work).
fn load_game(path: &Path) -> Result<Game, Failure> {
    let name = path.display().to_string();
    let g = Game::from_json(&name, &read(path)?).map_err(|d| fail(d.to_string()))?;
    warn_scenario(&name, &g.scenario);
    Ok(g)
}

/// Print the checks a recorded scenario fails, each at its file:line:col.
fn warn_scenario(name: &str, sc: &scenario::Scenario) {
    let w = sc.warnings();
    if w.is_empty() {
        return;
    }
    for d in w {
        eprintln!("warning: {}", loc(&d.to_string()));
    }
    eprintln!(
        "warning: {name}: the recorded scenario fails {} check{}; the game is read as it was recorded",
        w.len(),
        if w.len() == 1 { "" } else { "s" }
    );
}

/// Write atomically: a crash mid-write never loses what was already recorded.
fn save_game(path: &Path, g: &Game) -> Res {
    let text = serde_json::to_string_pretty(g).map_err(|e| fail(e.to_string()))?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)
        .map_err(|e| fail(format!("{}: cannot write: {e}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(|e| fail(format!("{}: cannot write: {e}", path.display())))
}

/// A scenario file read and checked; every problem at its line and column.
/// A scenario from its file, or a shipped one by its id (`el-gran-capitan/cerignola-1503`, as
/// the app's list and API name them) when no such file is there.
fn read_scenario(path: &Path) -> Result<scenario::Scenario, Failure> {
    if !path.exists() {
        if let Some((_, sc)) = path.to_str().and_then(tercio_web::scenarios::parsed_one) {
            return Ok(sc.clone());
        }
        let ids: Vec<&str> = tercio_web::scenarios::SHIPPED
            .iter()
            .map(|s| s.id)
            .collect();
        return Err(fail(format!(
            "{}: no such file, nor a shipped scenario's id; shipped: {}",
            path.display(),
            ids.join(", ")
        )));
    }
    let src = read(path)?;
    scenario::parse(&path.display().to_string(), &src).map_err(|d| {
        fail(
            d.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        )
    })
}

fn game_new(scenario_path: &Path, seed: Option<u64>, out: &Path) -> Res {
    let sc = read_scenario(scenario_path)?;
    if out.exists() {
        return Err(fail(format!(
            "{}: already exists; not overwriting a recorded game",
            out.display()
        )));
    }
    let seed = seed.unwrap_or_else(fresh_seed);
    let mut g = Game::new(sc, seed).map_err(|e| fail(e.to_string()))?;
    g.nonce = format!("{:016x}{:016x}", fresh_seed(), fresh_seed());
    save_game(out, &g)?;
    say!(
        "New game: {} ({}) -> {}",
        g.scenario.title.plain(),
        g.ruleset,
        out.display()
    );
    let engine = g.engine().map_err(|e| fail(e.to_string()))?;
    say_inline!("{}", show_state(engine.as_ref(), &g.state));
    Ok(())
}

fn game_act(path: &Path, action_path: &Path, json: bool) -> Res {
    let mut g = load_game(path)?;
    let action = read_action(action_path)?;
    let event = g
        .act(action)
        .map_err(|e| fail(format!("{}: {e}", action_path.display())))?
        .clone();
    save_game(path, &g)?;
    if json {
        print_json(&event);
    } else {
        say_inline!("{}", event.resolution.render());
    }
    Ok(())
}

fn game_undo(path: &Path) -> Res {
    let mut g = load_game(path)?;
    match g.undo().map_err(|e| fail(e.to_string()))? {
        Some(seq) => {
            save_game(path, &g)?;
            say!(
                "Voided event {seq}; it stays in the log, struck through. The dice do not rewind."
            );
            Ok(())
        }
        None => Err(fail("nothing to undo")),
    }
}

fn game_show(path: &Path, json: bool, log: bool) -> Res {
    let g = load_game(path)?;
    if json {
        print_json(&g.state);
        return Ok(());
    }
    let engine = g.engine().map_err(|e| fail(e.to_string()))?;
    say!(
        "{} ({}) — {} events in the log",
        g.scenario.title.plain(),
        g.ruleset,
        g.log.entries().len()
    );
    say_inline!("{}", show_state(engine.as_ref(), &g.state));
    if log {
        say!("\nLog:");
        for e in g.log.entries() {
            match e {
                tercio_core::LogEntry::Event { seq, event } => {
                    let struck = if g.log.is_voided(*seq) {
                        " [VOIDED]"
                    } else {
                        ""
                    };
                    say!(
                        "  {seq:>3}. {}: {}{struck}",
                        event.resolution.action,
                        event.resolution.summary
                    );
                }
                tercio_core::LogEntry::Void { seq, voids, reason } => {
                    say!("  {seq:>3}. void of event {voids} ({reason})")
                }
            }
        }
    }
    Ok(())
}

fn replay(path: &Path) -> Res {
    let g = load_game(path)?;
    let checked = g
        .verify()
        .map_err(|e| fail(format!("{}: replay FAILED: {e}", path.display())))?;
    let n = checked.len();
    if rules_changed(&g, &checked) == 0 {
        say!("{}: replay ok — {n} events re-rolled from seed {}, every face and outcome matches, and the state is the fold of the log", path.display(), g.seed);
    } else {
        say!("{}: replay ok — {n} events re-rolled from seed {}, every face matches the seed and the state is the fold of the log; the outcomes listed above are today's rules, changed since the game was played", path.display(), g.seed);
    }
    Ok(())
}

/// Print the events today's rules resolve differently from the rules a game was played under
/// ("rules changed since", not tampering); how many there are.
fn rules_changed(g: &Game, checked: &[tercio_rules::game::Checked]) -> usize {
    let changed: Vec<_> = checked.iter().filter(|c| c.changed.is_some()).collect();
    if !changed.is_empty() {
        let today = registry::lookup(&g.ruleset).map_or(g.rules_version, |r| r.rules_version());
        say!(
            "rules changed since: the game was played under version {} of its rules, today's is {today}; {} event(s) would come out differently today (the game stands as it was played):",
            g.rules_version,
            changed.len()
        );
        for c in &changed {
            say!(
                "  #{:<4} {:<16} {}",
                c.seq,
                c.action,
                c.changed.as_deref().unwrap_or_default()
            );
        }
    }
    changed.len()
}

/// The platform's data directory for Tercio: `$XDG_DATA_HOME/tercio`, `~/.local/share/tercio`, or
/// `%APPDATA%\\tercio`; the current directory if none is known.
fn default_db() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("APPDATA").map(PathBuf::from))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")));
    base.map_or_else(
        || PathBuf::from("tercio.db"),
        |b| b.join("tercio").join("tercio.db"),
    )
}

/// The game `tercio serve` opens on an empty database: a short, well-known battle of the app's
/// own charts (El Gran Capitán's Cerignola), so a first look needs no set-up.
const DEMO_SCENARIO: &str = "el-gran-capitan/cerignola-1503";

fn serve(
    addr: &str,
    db: Option<String>,
    public_url: Option<String>,
    live_games: usize,
    limits: tercio_web::conn::Limits,
) -> Res {
    let db = db.unwrap_or_else(|| default_db().display().to_string());
    let shown = tercio_store::redact(&db);
    let store = tercio_store::open(&db).map_err(|e| fail(format!("--db {shown}: {e}")))?;
    if let Some(u) = &public_url {
        if !(u.starts_with("http://") || u.starts_with("https://")) {
            return Err(fail(format!(
                "--public-url {u}: an address starting with http:// or https://"
            )));
        }
    }
    let key = store
        .host_key()
        .map_err(|e| fail(format!("--db {shown}: {e}")))?;
    let described = store.describe();
    let state = tercio_web::AppState::with_limits(store, public_url, live_games, limits);
    let demo = tercio_web::ensure_demo_game(&state, DEMO_SCENARIO).map_err(fail)?;
    let rt = tercio_web::runtime().map_err(|e| fail(e.to_string()))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| fail(format!("--addr {addr}: {e}")))?;
        let local = listener.local_addr().map_err(|e| fail(e.to_string()))?;
        let base = state
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{local}"));
        say!("Tercio is serving on {base}/?key={key}  (open this to manage games; {described})");
        if let Some(token) = demo {
            say!("A demo game is ready; its game master's link: {base}/s/{token}");
        }
        let limit = tercio_web::conn::open_files_limit();
        let files = limit.map_or_else(|| "none".to_string(), |n| n.to_string());
        if limit.is_some_and(|n| {
            limits.max_connections as u64 + tercio_web::conn::RESERVED_FILES > n
        }) {
            eprintln!(
                "warning: --max-connections {} leaves fewer than {} of the {files} files this process may open to the database and the server itself; raise the limit (ulimit -n, systemd's LimitNOFILE) or lower --max-connections",
                limits.max_connections,
                tercio_web::conn::RESERVED_FILES
            );
        }
        eprintln!(
            "connections: at most {} (open-files limit: {files}); closed after {} s without complete headers, {} s without a complete body, {} s idle",
            limits.max_connections,
            limits.header_timeout.as_secs(),
            limits.body_timeout.as_secs(),
            limits.idle_timeout.as_secs()
        );
        tercio_web::serve(listener, state)
            .await
            .map_err(|e| fail(e.to_string()))
    })
}

/// `tercio migrate`: every game of `from` that `to` lacks, copied whole.
fn migrate(from: &str, to: &str) -> Res {
    let (from_shown, to_shown) = (tercio_store::redact(from), tercio_store::redact(to));
    if from == to {
        return Err(fail(format!(
            "--to {to_shown}: the same database as --from"
        )));
    }
    let source = tercio_store::open(from).map_err(|e| fail(format!("--from {from_shown}: {e}")))?;
    let target = tercio_store::open(to).map_err(|e| fail(format!("--to {to_shown}: {e}")))?;
    let (mut copied, mut there) = (0u64, 0u64);
    tercio_store::each_record(source.as_ref(), |r| {
        if target.import(&r)? {
            copied += 1;
        } else {
            there += 1;
        }
        Ok(())
    })
    .map_err(|e| fail(format!("{from_shown} -> {to_shown}: {e}")))?;
    say!(
        "{copied} game(s) copied from {} to {}; {there} already there, left alone",
        source.describe(),
        target.describe()
    );
    Ok(())
}

fn report_cmd(path: &Path) -> Res {
    let v: Value = json_at(path, "not JSON")?;
    let export = v["format"]
        .as_str()
        .is_some_and(|f| f.starts_with("tercio-export/"));
    let (g, _) = verify::game_for_verify(path, false, true)?;
    let c = g.commitment();
    // A game file holds its seed; an export shows it only once revealed.
    let revealed = !export || v["dice"]["seed"].is_u64();
    let commitment = if export {
        v["dice"]["commitment"].as_str().unwrap_or(&c).to_string()
    } else {
        c
    };
    let md = tercio_rules::report::battle_report(
        &g,
        &tercio_rules::Viewer::GameMaster,
        &tercio_rules::report::Reveal {
            commitment: &commitment,
            seed: revealed.then_some((g.seed, g.nonce.as_str())),
            concluded: export && v["dice"]["revealed"] == true && !g.is_over().unwrap_or(false),
            fingerprint: Some(&g.log_digest()),
        },
        LANG.get().copied().unwrap_or_default(),
    )
    .map_err(|e| fail(format!("{}: {e}", path.display())))?;
    // Written in the output's language, its words and the rules' messages alike.
    print!("{md}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_is_the_flag_then_tercio_lang_then_lang_then_english() {
        assert_eq!(choose_lang(None, None, None), Lang::En);
        assert_eq!(choose_lang(None, None, Some("it_IT.UTF-8")), Lang::It);
        assert_eq!(choose_lang(None, None, Some("C.UTF-8")), Lang::En);
        assert_eq!(choose_lang(None, Some("en"), Some("it_IT.UTF-8")), Lang::En);
        assert_eq!(
            choose_lang(Some("it"), Some("en"), Some("en_GB.UTF-8")),
            Lang::It
        );
        // A variable naming another language is passed over.
        assert_eq!(choose_lang(None, Some("fr"), Some("it_CH.UTF-8")), Lang::It);
        assert_eq!(choose_lang(None, Some(""), Some("POSIX")), Lang::En);
    }
}
