//! The rules files: every default parses, user files override key by key, and a bad
//! file is an error that says where and what.

use agent_hooks_guards::{GUARDS, Guard, RulesError, default_rules, guard_info};

#[test]
fn guards_are_listed_in_help_order() {
    let names: Vec<_> = GUARDS.iter().map(|g| g.name).collect();
    assert_eq!(
        names,
        [
            "security_guard",
            "verify_publish_claims",
            "verify_code_changes",
            "verify_commitments",
            "runtime_footer",
            "pii_redactor",
            "tool_audit_log",
            "budget_alert",
            "inject_reminder"
        ]
    );
}

#[test]
fn every_default_rules_file_compiles_as_a_user_file() {
    for info in GUARDS {
        let rules = default_rules(info.name);
        assert!(rules.is_some(), "{} has no default rules", info.name);
        if let Err(e) = Guard::new(info.name, rules) {
            panic!("{}: {e}", info.name);
        }
    }
}

#[test]
fn suggested_matchers_are_valid_regexes() {
    for info in GUARDS {
        for event in info.events {
            if let Some(m) = event.matcher {
                assert!(regex::Regex::new(m).is_ok(), "{}: {m}", info.name);
            }
        }
    }
}

#[test]
fn unknown_guard_is_an_error_naming_the_known_ones() {
    let err = Guard::with_defaults("secutiry_guard").err();
    assert!(
        matches!(&err, Some(RulesError::UnknownGuard { known, .. }) if known.contains("security_guard"))
    );
    assert!(guard_info("nope").is_none());
}

#[test]
fn yaml_syntax_error_has_line_and_column() {
    let err = Guard::new(
        "budget_alert",
        Some("threshold_usd: 1\nmessage: [unclosed\n"),
    )
    .err();
    match err {
        Some(RulesError::Syntax { line, .. }) => assert!(line >= 2, "line {line}"),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn unknown_key_is_an_error_with_its_position() {
    let err = Guard::new("budget_alert", Some("threshold_usd: 1\nthreshhold: 2\n")).err();
    match err {
        Some(RulesError::Syntax { line, message, .. }) => {
            assert_eq!(line, 2);
            assert!(message.contains("threshhold"), "{message}");
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn wrong_type_is_an_error() {
    let err = Guard::new("budget_alert", Some("threshold_usd: lots\n")).err();
    assert!(
        matches!(err, Some(RulesError::Syntax { line: 1, .. })),
        "{err:?}"
    );
}

#[test]
fn invalid_regex_names_the_key() {
    let err = Guard::new("pii_redactor", Some("phone_patterns: ['(unclosed']\n")).err();
    assert!(
        matches!(&err, Some(RulesError::Invalid { field, .. }) if field == "phone_patterns[0]"),
        "{err:?}"
    );
}

#[test]
fn comment_only_file_means_defaults() {
    assert!(Guard::new("security_guard", Some("# nothing changed\n")).is_ok());
}
