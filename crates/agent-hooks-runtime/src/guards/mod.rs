//! The ready-made hooks (`README.md`, issue 8) as this runtime offers them. The guards themselves
//! are pure functions in `agent-hooks-guards`; here they are numbered for `help`, wired into a
//! workspace by [`install`], and run as a plain command hook by [`command::run`]
//! (`agent-hooks guard <name>`). In-process they run through `transport::builtin`.

pub mod command;
mod install;

pub use agent_hooks_guards::{GUARDS, GuardInfo, default_rules, guard_info};
pub use install::{
    ApprovedStep, DeclaredStep, DoctorStep, DryRun, GuardSteps, InstallError, InstallReport,
    Master, RulesStep, install,
};

/// The guards' names, in `help` order.
pub fn names() -> Vec<&'static str> {
    GUARDS.iter().map(|g| g.name).collect()
}

/// The numbered list `help` shows and `install <number>` takes (1-based).
pub fn numbered_list() -> String {
    let mut text = String::new();
    for (i, guard) in GUARDS.iter().enumerate() {
        text.push_str(&format!(
            "  {:>2}. {:<22} {}\n",
            i + 1,
            guard.name,
            guard.summary
        ));
    }
    text
}

/// A guard by name or by its `help` number.
pub(crate) fn select(word: &str) -> Option<&'static GuardInfo> {
    match word.parse::<usize>() {
        Ok(n) => n.checked_sub(1).and_then(|i| GUARDS.get(i)),
        Err(_) => guard_info(word),
    }
}
