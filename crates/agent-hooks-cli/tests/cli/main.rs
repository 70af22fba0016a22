//! The `agent-hooks` binary end to end: one test binary, one module per area (so the binary
//! under test and the shared builder are compiled once, and a filter such as
//! `cargo test -p agent-hooks-cli --test cli serve::` runs one area).

mod support;

#[path = "../../../agent-hooks-transports/tests/loopback/mod.rs"]
mod loopback;

mod approve;
mod audit;
mod bridge_install;
mod bridge_sidecar;
mod bundle;
mod chaos;
mod checked_input;
mod claude;
mod clients;
mod codex;
mod console;
mod console_ask;
mod convert;
mod copilot;
mod cursor;
mod docs;
mod exec_attacks;
mod explain;
mod fire;
mod gemini;
mod guards;
mod http_hooks;
mod judge;
mod judge_attacks;
mod lapses;
mod log;
mod long_lived;
mod newcomer;
mod observability;
mod operator;
mod prefork;
mod relocate;
mod replay;
mod serve;
mod shared_state;
mod sidecar_owner;
mod skills;
mod standards;
mod startup;
mod team;
mod team_obs;
mod tls_rotation;
mod trial;
mod trust_settings;
mod uninstall;
mod usage;
mod windsurf;
