//! The shared session store against a real `redis-server` on a free loopback port: many
//! threads, each with its own store as replicas would have, add one to the same session's count
//! under the load-then-save lock, and none of their updates is lost; a value expires with its
//! time to live. Where `redis-server` is not installed the test says so and passes (`.ci/run`
//! installs it).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use agent_hooks_transports::session_state;
use serde_json::json;

#[test]
fn concurrent_read_modify_writes_of_one_session_lose_no_update_and_values_expire() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let spawned = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut redis = match spawned {
        Ok(child) => child,
        Err(e) => {
            eprintln!("skipped: redis-server is not on PATH ({e}); .ci/run installs it");
            return;
        }
    };
    let mut lines = BufReader::new(redis.stdout.take().expect("piped")).lines();
    assert!(
        lines
            .by_ref()
            .map_while(Result::ok)
            .any(|l| l.contains("Ready to accept connections")),
        "redis-server ended before it was ready"
    );
    std::thread::spawn(move || lines.for_each(drop));

    session_state::share_sessions(&format!("redis://127.0.0.1:{port}/0")).expect("the store");
    session_state::check_shared().expect("it answers");
    let ws = Path::new("/srv/policy");
    let (threads, rounds) = (8, 25);
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            std::thread::spawn(move || {
                let mut store = session_state::store_for(ws, &ws.join("state/counter"));
                for _ in 0..rounds {
                    let now = SystemTime::now();
                    let seen = store
                        .load("count", "s1", now)
                        .and_then(|v| v.as_u64())
                        .unwrap_or(0);
                    store
                        .save(
                            "count",
                            "s1",
                            &json!(seen + 1),
                            Duration::from_secs(60),
                            now,
                        )
                        .expect("saved");
                    assert_eq!(store.take_failure(), None);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("a worker");
    }
    // Another replica serving the same workspace from another path reads the same session.
    let elsewhere = Path::new("/opt/other/checkout");
    let mut store = session_state::store_for(elsewhere, &elsewhere.join("state/counter"));
    let total = store.load("count", "s1", SystemTime::now());
    store.release();
    assert_eq!(total, Some(json!(threads * rounds)));

    // A value saved with a time to live of one second is gone after it.
    let now = SystemTime::now();
    store.load("short", "s1", now);
    store
        .save("short", "s1", &json!(1), Duration::from_secs(1), now)
        .expect("saved");
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(store.load("short", "s1", SystemTime::now()), None);
    store.release();
    let _ = redis.kill();
    let _ = redis.wait();
}
