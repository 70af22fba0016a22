//! `approve` by every spelling that names one declared hook: the command as declared, its path
//! absolute or with `./`, the hook's name, an event (any agent's name for it) before any of
//! those. A misspelt event is an error naming the events, never part of the command; a near
//! miss gets "did you mean"; a spelling naming two hooks names both.

use crate::support;

use support::{Entry, Ws};

/// The five-minute guide's workspace: one `guard` hook on `pre_tool_call`.
fn guide() -> Ws {
    Ws::new()
        .sh("hooks/guard.sh", "cat > /dev/null\n")
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
}

fn said(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The hook's health in `list --json`.
fn health(ws: &Ws) -> String {
    let out = ws.run(&["list", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("list --json");
    report["hooks"][0]["health"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn every_unambiguous_spelling_approves_the_declared_hook() {
    // `{abs}` is the script's absolute path in each fresh workspace.
    let spellings: [&[&str]; 7] = [
        &["{abs}"],
        &["./hooks/guard.sh"],
        &["guard"],
        &["pre_tool_call", "hooks/guard.sh"],
        &["pre_tool_call", "./hooks/guard.sh"],
        &["pre_tool_call", "guard"],
        &["PreToolUse", "{abs}"],
    ];
    for spelling in spellings {
        let ws = guide();
        let absolute = ws.path("hooks/guard.sh").display().to_string();
        let words: Vec<String> = spelling
            .iter()
            .map(|w| w.replace("{abs}", &absolute))
            .collect();
        assert_eq!(health(&ws), "not_approved");
        let args: Vec<&str> = std::iter::once("approve")
            .chain(words.iter().map(String::as_str))
            .collect();
        let out = ws.run(&args);
        let text = said(&out);
        assert!(out.status.success(), "{words:?}: {text}");
        assert!(
            text.starts_with("Approved hooks/guard.sh") && text.contains("for pre_tool_call."),
            "{words:?}: {text}"
        );
        assert_eq!(health(&ws), "approved", "{words:?}: {text}");
        // Revoking by the same spelling takes it back.
        let last = words.last().expect("a spelling");
        let out = ws.run(&["revoke", last]);
        assert!(
            said(&out).contains("Revoked hooks/guard.sh"),
            "{}",
            said(&out)
        );
        assert_eq!(health(&ws), "not_approved");
    }
}

#[test]
fn a_misspelt_event_is_an_error_naming_the_events_not_part_of_the_command() {
    let ws = guide();
    for (word, near) in [
        ("pre_tool_use", "pre_tool_call"),
        ("pre_tool_cal", "pre_tool_call"),
    ] {
        let out = ws.run(&["approve", word, "hooks/guard.sh"]);
        let text = said(&out);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            text.contains(&format!(
                "\"{word}\" is not an event (did you mean \"{near}\"?)"
            )) && text.contains("the events are on_user_message, pre_tool_call,"),
            "{text}"
        );
        assert_eq!(health(&ws), "not_approved", "{text}");
    }
}

#[test]
fn a_near_miss_gets_did_you_mean() {
    let ws = guide();
    for (spelling, near) in [("gaurd", "guard"), ("hooks/gaurd.sh", "hooks/guard.sh")] {
        let out = ws.run(&["approve", spelling]);
        let text = said(&out);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            text.contains(&format!(
                "\"{spelling}\" is not declared in any hook configuration (did you mean \"{near}\"?)"
            )),
            "{text}"
        );
    }
}

#[test]
fn a_spelling_that_names_two_declared_commands_names_both_and_approves_neither() {
    let ws = Ws::new()
        .sh("hooks/a.sh", "cat > /dev/null\n")
        .sh("hooks/b.sh", "cat > /dev/null\n")
        .hook(Entry::new("pre_tool_call", "hooks/a.sh").name("check"))
        .hook(Entry::new("on_stop", "hooks/b.sh").name("check"));
    let out = ws.run(&["approve", "check"]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("\"check\" names 2 declared commands; approve one of them by its command: hooks/a.sh, hooks/b.sh"),
        "{text}"
    );
}
