//! Starting `tercio serve` as users do, for the tests that run it as a separate process.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Start `tercio serve` on any free port with `args` (its database) and environment `env`;
/// returns the child, its address, the host key and (when `demo`: a new database) the demo
/// game's game-master token.
pub fn serve(
    args: &[&str],
    env: &[(&str, &str)],
    demo: bool,
) -> (Child, String, String, Option<String>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tercio"));
    cmd.args(["serve", "--addr", "127.0.0.1:0"]).args(args);
    started(cmd, env, demo)
}

/// [`serve`] with the server's open-files limit set to `nofile` first (`ulimit -n` in a shell
/// that then becomes the server: the child is the server itself), as systemd's default soft
/// limit of 1,024 would.
#[cfg(unix)]
#[allow(dead_code)] // Not every test program that shares this module uses it.
pub fn serve_with_nofile(
    nofile: u64,
    args: &[&str],
    env: &[(&str, &str)],
    demo: bool,
) -> (Child, String, String, Option<String>) {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -n {nofile} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_tercio"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args);
    started(cmd, env, demo)
}

/// Run a `tercio serve` command and read its address, host key and demo game from its output.
fn started(
    mut cmd: Command,
    env: &[(&str, &str)],
    demo: bool,
) -> (Child, String, String, Option<String>) {
    let mut child = cmd
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn tercio serve");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let first = lines.next().and_then(Result::ok).expect("serving line");
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|x| x.split('/').next())
        .expect("address")
        .to_string();
    let key = first
        .split("?key=")
        .nth(1)
        .and_then(|x| x.split_whitespace().next())
        .expect("host key")
        .to_string();
    // The demo line is printed only for a new database.
    let demo = if demo {
        lines
            .next()
            .and_then(Result::ok)
            .and_then(|l| l.split("/s/").nth(1).map(str::to_string))
    } else {
        None
    };
    (child, addr, key, demo)
}

/// The host's list of games on a server, with its host key.
pub fn games(addr: &str, key: &str) -> serde_json::Value {
    let auth = format!("Bearer {key}");
    tercio_web::client::request_with(addr, "GET", "/api/games", &[("Authorization", &auth)], None)
        .expect("games")
        .json()
}
