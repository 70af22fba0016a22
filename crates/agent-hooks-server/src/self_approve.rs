//! The one rule every door of the sidecar asks before it changes what runs (approve, revoke,
//! the master switch): self-approval, as the configuration in force says it. The sidecar's
//! routes and its console ask the same question, so they can never disagree.

/// Why `door` (the sidecar, its console) may not `verb` hooks now, if it may not: the
/// snapshot in force turns self-approval off.
pub(crate) fn refusal(
    snapshot: &agent_hooks_runtime::Snapshot,
    door: &str,
    verb: &str,
) -> Option<String> {
    if snapshot.self_approve() {
        return None;
    }
    // With approvals outside the workspace, the file beside them decides.
    let setting = match snapshot.trust_file() {
        Some(file) => format!(
            "{} does not say self_approve: true, or shell_hooks.self_approve: false",
            file.display()
        ),
        None => "shell_hooks.self_approve: false".to_owned(),
    };
    Some(format!(
        "self-approve is turned off ({setting}), so {door} may not {verb} hooks; run `agent-hooks {verb}` in a terminal"
    ))
}
