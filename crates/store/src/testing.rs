//! Throw-away PostgreSQL clusters for tests: Debian's `postgresql` package, started the way an
//! administrator would (`initdb`, then `pg_ctl`), in a temporary folder, reached by its Unix
//! socket only. Debian keeps `initdb` and `pg_ctl` off the PATH (`pg_config --bindir` names
//! their folder), and PostgreSQL refuses to run as root, so as root they run as the `postgres`
//! user.
//!
//! A cluster is stopped and its folder removed when dropped; [`shared`] gives every test of a
//! test binary one cluster (each test makes its own database in it), stopped when the binary
//! exits.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A running cluster.
pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    /// Run its programs as `postgres` (this process is root).
    as_postgres: bool,
}

/// How long a cluster may take to accept connections after it is started.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// The cluster every test of this binary shares.
pub fn shared() -> &'static Cluster {
    static SHARED: OnceLock<Cluster> = OnceLock::new();
    SHARED.get_or_init(|| {
        // Statics are not dropped: the watcher `start` leaves stops it once this process has
        // gone.
        Cluster::start().unwrap_or_else(|e| panic!("{e}"))
    })
}

fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what}: {}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Where the server's programs are: `pg_config --bindir`, or else the newest of Debian's
/// `/usr/lib/postgresql/VERSION/bin`.
fn bindir() -> Result<PathBuf, String> {
    if let Ok(b) = run(Command::new("pg_config").arg("--bindir"), "pg_config") {
        let b = PathBuf::from(b.trim());
        if b.join("initdb").exists() {
            return Ok(b);
        }
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| {
            d.filter_map(Result::ok)
                .filter_map(|e| {
                    let v = e.file_name().to_str()?.parse().ok()?;
                    Some((v, e.path().join("bin")))
                })
                .filter(|(_, b)| b.join("initdb").exists())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found.pop().map(|(_, b)| b).ok_or_else(|| {
        "no PostgreSQL server programs (initdb, pg_ctl): install Debian's postgresql package \
         (.ci/run does)"
            .to_string()
    })
}

impl Cluster {
    /// Make a new cluster in a temporary folder and start it.
    pub fn start() -> Result<Cluster, String> {
        let bin = bindir()?;
        let as_postgres = run(Command::new("id").arg("-u"), "id -u")?.trim() == "0";
        static N: AtomicU64 = AtomicU64::new(0);
        // As root, the cluster's folder must be reachable by `postgres`: under /tmp, whatever
        // TMPDIR says (a folder under /root is not). Short, too: its socket's path is capped.
        let base = if as_postgres {
            PathBuf::from("/tmp")
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!(
            "tercio-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let c = Cluster {
            dir,
            bin,
            as_postgres,
        };
        if as_postgres {
            run(
                Command::new("chown").arg("postgres:postgres").arg(&c.dir),
                "chown postgres",
            )?;
        }
        run(
            c.command("initdb")
                .args([
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-sync",
                    "-D",
                ])
                .arg(c.data()),
            "initdb",
        )?;
        c.up()?;
        // Stopped when dropped; and, should this process be killed first, once it is gone.
        c.stop_when_gone(std::process::id());
        Ok(c)
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// One of the cluster's programs, run as `postgres` when this process is root.
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        }
    }

    /// Start the cluster (again) and wait until it accepts connections. Tests do not need it
    /// to survive a power cut, so it does not flush to disk.
    pub fn up(&self) -> Result<(), String> {
        let opts = format!(
            "-k {} -c listen_addresses= -c fsync=off -c max_connections=200",
            self.dir.display()
        );
        run(
            self.command("pg_ctl")
                .arg("-D")
                .arg(self.data())
                .args(["-l"])
                .arg(self.dir.join("log"))
                .args(["-o", &opts, "-w", "-t", "60", "start"])
                .stdout(Stdio::null()),
            "pg_ctl start",
        )?;
        let t = Instant::now();
        loop {
            match ::postgres::Client::connect(&self.url("postgres"), ::postgres::NoTls) {
                Ok(_) => return Ok(()),
                Err(e) if t.elapsed() > READY_WITHIN => {
                    return Err(format!(
                        "the cluster in {} never answered: {e}",
                        self.dir.display()
                    ))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    /// Stop the cluster at once (as a crash would); [`Cluster::up`] starts it again.
    pub fn down(&self) -> Result<(), String> {
        run(
            self.command("pg_ctl").arg("-D").arg(self.data()).args([
                "-m",
                "immediate",
                "-w",
                "stop",
            ]),
            "pg_ctl stop",
        )
        .map(drop)
    }

    /// The address of database `db` in the cluster.
    pub fn url(&self, db: &str) -> String {
        format!(
            "host={} port=5432 user=postgres dbname={db}",
            self.dir.display()
        )
    }

    /// A new, empty database in the cluster; its address.
    pub fn database(&self) -> String {
        static N: AtomicU64 = AtomicU64::new(0);
        let name = format!("t{}", N.fetch_add(1, Ordering::Relaxed));
        let mut c = ::postgres::Client::connect(&self.url("postgres"), ::postgres::NoTls)
            .unwrap_or_else(|e| panic!("the test cluster: {e}"));
        c.batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap_or_else(|e| panic!("CREATE DATABASE {name}: {e}"));
        self.url(&name)
    }

    /// Wait until as many servers listen for other servers' writes on the database at `url`
    /// as `want` (connections named `tercio-listen`), for at most 30 s; `what` names the wait
    /// in the panic if they never do.
    pub fn until_listening(&self, url: &str, want: i64, what: &str) {
        let mut c = ::postgres::Client::connect(url, ::postgres::NoTls)
            .unwrap_or_else(|e| panic!("the test cluster: {e}"));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let n: i64 = c
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity \
                     WHERE application_name = 'tercio-listen' AND datname = current_database()",
                    &[],
                )
                .unwrap_or_else(|e| panic!("pg_stat_activity: {e}"))
                .get(0);
            if n == want {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{what}: {n} listening, not {want}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// The folder holding the cluster (its socket is there too).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stop the cluster and remove its folder once process `pid` has ended.
    fn stop_when_gone(&self, pid: u32) {
        let script = format!(
            "while [ -d /proc/{pid} ]; do sleep 1; done; {} -D {} -m immediate stop >/dev/null 2>&1; rm -rf {}",
            self.bin.join("pg_ctl").display(),
            self.data().display(),
            self.dir.display()
        );
        let mut c = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--", "sh", "-c", &script]);
            c
        } else {
            let mut c = Command::new("sh");
            c.args(["-c", &script]);
            c
        };
        let _ = c
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.down();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
