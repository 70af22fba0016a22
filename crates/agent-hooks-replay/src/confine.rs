//! Whether the command hooks a replay runs are confined: they get no network where this
//! machine can take it from them (`agent_hooks_transports::netns`); where it cannot, the replay
//! is refused, unless the user chose to run them with this machine's network.

use agent_hooks_runtime::Network;
use agent_hooks_runtime::netns::Unavailable;

use crate::error::ReplayError;

/// What a replay asks of its command hooks' network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum HookNetwork {
    /// None: each runs in a network namespace of its own (the default).
    #[default]
    Confined,
    /// This machine's (`--run-hooks-unconfined`).
    Unconfined,
}

/// The network the replayed command hooks get. `run_hooks`: whether they run at all;
/// `commands`: the command hooks of both policies; `probe`: whether a process can be confined
/// here (asked only when one would be).
pub(crate) fn network(
    run_hooks: bool,
    asked: HookNetwork,
    commands: &[&str],
    probe: impl FnOnce() -> Result<(), Unavailable>,
) -> Result<Network, ReplayError> {
    if !run_hooks || commands.is_empty() {
        // Nothing is spawned: the default, were anything to be, is none.
        return Ok(Network::Isolated);
    }
    if asked == HookNetwork::Unconfined {
        return Ok(Network::Host);
    }
    match probe() {
        Ok(()) => Ok(Network::Isolated),
        Err(why) => Err(ReplayError::Unconfinable {
            hooks: commands.join(", "),
            why: why.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_hooks_runtime::netns::{Knobs, Step, explain};

    /// Linux's ENOSPC: what `unshare` says where `user.max_user_namespaces` is 0.
    const ENOSPC: i32 = 28;

    fn refused() -> Result<(), Unavailable> {
        let knobs = Knobs {
            max_user_namespaces: Some("0".to_owned()),
            ..Knobs::default()
        };
        Err(Unavailable {
            step: Step::Unshare,
            errno: ENOSPC,
            cause: explain(Step::Unshare, ENOSPC, &knobs),
        })
    }

    #[test]
    fn command_hooks_are_confined_or_the_replay_is_refused_unless_the_user_chose_otherwise() {
        let hooks = ["mark", "lint"];
        let confined = HookNetwork::Confined;
        // Confinement works: confined.
        assert_eq!(
            network(true, confined, &hooks, || Ok(())).ok(),
            Some(Network::Isolated)
        );
        // It does not: refused, naming the hooks and why.
        let err = network(true, confined, &hooks, refused).expect_err("refused");
        let said = err.to_string();
        assert!(
            said.contains("mark, lint")
                && said.contains("user.max_user_namespaces = 0")
                && said.contains("--run-hooks-unconfined"),
            "{said}"
        );
        // The user chose this machine's network: the probe is not even asked.
        assert_eq!(
            network(true, HookNetwork::Unconfined, &hooks, || panic!("probed")).ok(),
            Some(Network::Host)
        );
        // Nothing to confine: no command hook, or none run.
        assert_eq!(
            network(true, confined, &[], || panic!("probed")).ok(),
            Some(Network::Isolated)
        );
        assert_eq!(
            network(false, confined, &hooks, || panic!("probed")).ok(),
            Some(Network::Isolated)
        );
    }
}
