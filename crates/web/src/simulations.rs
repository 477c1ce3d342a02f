//! The host's "simulate 1,000 battles" of a shipped scenario: a job on a thread of its own, at
//! the lowest priority (SCHED_IDLE on Linux) and one at a time (so a run takes at most one core, and live games keep
//! their latency), whose progress the page follows live and which the host can cancel. The
//! battles are the rule set's own [`tercio_rules::interface::simulate::Simulator`]; a cancelled
//! run keeps the battles it played.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use tercio_rules::interface::simulate::{battle_seed, Battle, Summary};

use crate::scenarios;

/// How many battles a host's run plays.
pub const BATTLES: u32 = 1000;
/// How many runs the server remembers (the oldest finished forgotten first).
const KEPT: usize = 20;

/// How a run stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Waiting for the run before it to finish.
    Waiting,
    Running,
    Done,
    /// Cancelled after this many battles.
    Cancelled(u32),
    Failed(String),
}

/// One run of simulated battles.
pub struct Job {
    pub id: String,
    /// The shipped scenario's id.
    pub scenario: &'static str,
    pub seed: u64,
    pub policies: Vec<String>,
    pub total: u32,
    pub gap: u32,
    /// The turn after which a battle stops: the simulator's own.
    pub turns: u32,
    done: AtomicU32,
    cancelled: AtomicBool,
    /// The worker's scheduling policy and nice value once it lowered its priority (read from
    /// `/proc`: policy 5 is SCHED_IDLE), if it could read them.
    pub priority: Mutex<Option<(u32, i32)>>,
    status: Mutex<Status>,
    summary: Mutex<Option<Summary>>,
    /// The battles played so far, sent to the page as they go.
    pub tick: tokio::sync::watch::Sender<u32>,
}

impl Job {
    pub fn done(&self) -> u32 {
        self.done.load(Ordering::Relaxed)
    }
    pub fn status(&self) -> Status {
        self.status
            .lock()
            .map(|s| s.clone())
            .unwrap_or(Status::Running)
    }
    pub fn summary(&self) -> Option<Summary> {
        self.summary.lock().ok().and_then(|s| s.clone())
    }
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
    fn set(&self, s: Status) {
        if let Ok(mut st) = self.status.lock() {
            *st = s;
        }
        // Wake the pages following it, even when no battle was added.
        self.tick.send_modify(|_| {});
    }
}

/// The runs a server knows.
#[derive(Default)]
pub struct Jobs {
    map: Mutex<Vec<Arc<Job>>>,
    /// The queue of runs: one plays at a time, in the order they were started.
    queue: Arc<Queue>,
}

/// Tickets in the order runs start; the run holding `serving` plays.
#[derive(Default)]
struct Queue {
    next: Mutex<u64>,
    serving: Mutex<u64>,
    /// Tickets whose run never started (its thread could not be made): passed over.
    skipped: Mutex<std::collections::BTreeSet<u64>>,
    turn: std::sync::Condvar,
}

impl Queue {
    fn ticket(&self) -> u64 {
        let mut n = self.next.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        *n - 1
    }
    fn wait_for(&self, ticket: u64) {
        let mut s = self.serving.lock().unwrap_or_else(|e| e.into_inner());
        while *s != ticket {
            s = self.turn.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
    fn done(&self) {
        let mut s = self.serving.lock().unwrap_or_else(|e| e.into_inner());
        *s += 1;
        self.pass_skipped(&mut s);
        self.turn.notify_all();
    }
    fn skip(&self, ticket: u64) {
        let mut s = self.serving.lock().unwrap_or_else(|e| e.into_inner());
        if let Ok(mut k) = self.skipped.lock() {
            k.insert(ticket);
        }
        self.pass_skipped(&mut s);
        self.turn.notify_all();
    }
    fn pass_skipped(&self, serving: &mut u64) {
        if let Ok(mut k) = self.skipped.lock() {
            while k.remove(serving) {
                *serving += 1;
            }
        }
    }
}

/// Passes the turn to the next run when the playing one ends, however it ends.
struct Turn(Arc<Queue>);

impl Drop for Turn {
    fn drop(&mut self) {
        self.0.done();
    }
}

/// Why a run could not start.
#[derive(Debug)]
pub enum StartError {
    /// No shipped scenario has this id.
    Unknown(String),
    /// Its rule set cannot play itself (its id).
    NotSimulable(String),
}

impl Jobs {
    pub fn get(&self, id: &str) -> Option<Arc<Job>> {
        self.map.lock().ok()?.iter().find(|j| j.id == id).cloned()
    }

    /// Start a run of [`BATTLES`] battles of the shipped scenario `scenario`, the sides following
    /// their default policies.
    pub fn start(&self, scenario: &str, seed: u64) -> Result<Arc<Job>, StartError> {
        let (shipped, sc) = scenarios::parsed_one(scenario)
            .ok_or_else(|| StartError::Unknown(scenario.to_string()))?;
        let rules = tercio_rules::lookup(&sc.ruleset)
            .map_err(|_| StartError::NotSimulable(sc.ruleset.clone()))?;
        let sim = rules
            .simulator()
            .ok_or_else(|| StartError::NotSimulable(rules.id().to_string()))?;
        let policies: Vec<&'static str> = (0..sc.sides.len())
            .map(|i| sim.default_policy(sc, i))
            .collect();
        let job = Arc::new(Job {
            id: format!("{seed:016x}"),
            scenario: shipped.id,
            seed,
            policies: policies.iter().map(|p| p.to_string()).collect(),
            total: BATTLES,
            gap: sim.gap(),
            turns: sim.turn_limit(),
            done: AtomicU32::new(0),
            cancelled: AtomicBool::new(false),
            priority: Mutex::new(None),
            status: Mutex::new(Status::Waiting),
            summary: Mutex::new(None),
            tick: tokio::sync::watch::channel(0).0,
        });
        if let Ok(mut m) = self.map.lock() {
            while m.len() >= KEPT {
                match m
                    .iter()
                    .position(|j| !matches!(j.status(), Status::Waiting | Status::Running))
                {
                    Some(i) => {
                        m.remove(i);
                    }
                    None => break,
                }
            }
            m.push(job.clone());
        }
        let queue = self.queue.clone();
        let ticket = queue.ticket();
        let worker = job.clone();
        let sides: Vec<String> = sc.sides.iter().map(|s| s.id.clone()).collect();
        let spawned = std::thread::Builder::new()
            .name("tercio-simulate".into())
            .spawn(move || {
                // The lowest priority there is, before waiting for the run ahead: Linux's
                // SCHED_IDLE (it runs only when nothing else would, and any request that wakes
                // takes its core at once); elsewhere, or if refused, the highest nice value.
                if lower_priority().is_err() {
                    let _ = thread_priority::set_current_thread_priority(
                        thread_priority::ThreadPriority::Min,
                    );
                }
                if let Ok(mut n) = worker.priority.lock() {
                    *n = own_priority();
                }
                queue.wait_for(ticket);
                let _turn = Turn(queue);
                worker.set(Status::Running);
                let mut battles: Vec<Battle> = Vec::with_capacity(worker.total as usize);
                for i in 0..worker.total {
                    if worker.cancelled.load(Ordering::Relaxed) {
                        break;
                    }
                    match sim.play(
                        sc,
                        battle_seed(worker.seed, u64::from(i)),
                        &policies,
                        worker.turns,
                        false,
                    ) {
                        Ok(b) => battles.push(b),
                        Err(e) => {
                            worker.set(Status::Failed(e));
                            return;
                        }
                    }
                    worker.done.store(i + 1, Ordering::Relaxed);
                    worker.tick.send_replace(i + 1);
                }
                if let Ok(mut s) = worker.summary.lock() {
                    *s = Some(Summary::of(&sides, &battles));
                }
                let n = battles.len() as u32;
                worker.set(if n < worker.total {
                    Status::Cancelled(n)
                } else {
                    Status::Done
                });
            });
        if let Err(e) = spawned {
            // Its ticket must not hold up the runs after it.
            self.queue.skip(ticket);
            job.set(Status::Failed(e.to_string()));
        }
        Ok(job)
    }
}

/// Put the calling thread in Linux's SCHED_IDLE class.
#[cfg(target_os = "linux")]
fn lower_priority() -> Result<(), thread_priority::Error> {
    use thread_priority::unix::{
        set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy,
        ThreadSchedulePolicy,
    };
    set_thread_priority_and_policy(
        thread_native_id(),
        thread_priority::ThreadPriority::Min,
        ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle),
    )
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() -> Result<(), thread_priority::Error> {
    Err(thread_priority::Error::Priority("SCHED_IDLE is Linux's"))
}

/// The calling thread's scheduling policy and nice value, from `/proc/thread-self/stat`
/// (Linux; `None` elsewhere).
fn own_priority() -> Option<(u32, i32)> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The fields after the command's closing bracket, from the 3rd (state): nice is the 19th,
    // the policy the 41st.
    let rest: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some((rest.get(38)?.parse().ok()?, rest.get(16)?.parse().ok()?))
}
