//! Opt-in rule packs: the packs under `opt_in_packs` are off until the rules file's `enable`
//! list names them. Here an `enable` list is checked against the packs that exist (a misspelt
//! name is an error with the nearest name, never a pack silently left off) and the packs it
//! turns on are picked for compiling.

use std::collections::BTreeMap;

use super::rule::RuleRaw;
use crate::rules::{Origin, RulesError, Text};

/// The rule packs of a security_guard rules file: what is always on, what the file turns on,
/// and what else it could turn on (`security_guard::rule_packs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RulePacks {
    /// The packs that are always on (`packs:`).
    pub always_on: Vec<String>,
    /// The packs the file's `enable:` list names, as it names them.
    pub named: Vec<String>,
    /// The opt-in packs that are on: those named and those they include (`pack_includes`).
    pub enabled: Vec<String>,
    /// Every opt-in pack there is (`opt_in_packs:`, the defaults' and the file's).
    pub available: Vec<String>,
}

/// `enable` with the packs each of its names includes (`pack_includes`) after it, each
/// name once, in order; an include of an include counts too.
pub(crate) fn with_includes(enable: Vec<Text>, includes: &BTreeMap<Text, Vec<Text>>) -> Vec<Text> {
    let mut out: Vec<Text> = Vec::with_capacity(enable.len());
    let mut queue: std::collections::VecDeque<Text> = enable.into();
    while let Some(name) = queue.pop_front() {
        if out.contains(&name) {
            continue;
        }
        if let Some(more) = includes.get(name.as_str()) {
            for (at, included) in more.iter().enumerate() {
                queue.insert(at, included.clone());
            }
        }
        out.push(name);
    }
    out
}

/// The opt-in packs `enable` turns on, each with its rules and whose they are (the user's
/// pack of a name replaces the default one). A name of an always-on pack is accepted and
/// adds nothing; a name of no pack at all is an error naming the nearest one.
pub(crate) fn enabled(
    always_on: &BTreeMap<Text, Vec<RuleRaw>>,
    enable: Vec<Text>,
    mut defaults: BTreeMap<Text, Vec<RuleRaw>>,
    mut mine: BTreeMap<Text, Vec<RuleRaw>>,
) -> Result<Vec<(Text, Vec<RuleRaw>, Origin)>, RulesError> {
    let known: std::collections::BTreeSet<&str> = defaults
        .keys()
        .chain(mine.keys())
        .map(Text::as_str)
        .collect();
    let known = known.into_iter().map(str::to_owned).collect::<Vec<_>>();
    let mut out: Vec<(Text, Vec<RuleRaw>, Origin)> = Vec::new();
    for (at, name) in enable.into_iter().enumerate() {
        if out.iter().any(|(n, _, _)| *n == name) || always_on.contains_key(name.as_str()) {
            continue;
        }
        if let Some(rules) = mine.remove(name.as_str()) {
            defaults.remove(name.as_str());
            out.push((name, rules, Origin::User));
        } else if let Some(rules) = defaults.remove(name.as_str()) {
            out.push((name, rules, Origin::Default));
        } else {
            let names: Vec<&str> = known.iter().map(String::as_str).collect();
            let hint = nearest(&name, &names)
                .map(|n| format!(" (did you mean \"{n}\"?)"))
                .unwrap_or_default();
            return Err(RulesError::Invalid {
                field: format!("enable[{at}]"),
                message: format!(
                    "unknown pack \"{name}\"{hint}; the opt-in packs are: {}",
                    names.join(", ")
                ),
            });
        }
    }
    Ok(out)
}

/// The known name nearest to a misspelt one, if it is near enough to be what was meant.
fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edit_distance(name, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over characters (pack names are short).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::super::rule_packs;
    use super::*;

    #[test]
    fn a_misspelt_pack_is_an_error_with_the_nearest_name() {
        let error = rule_packs(Some("enable: [strcit]")).expect_err("unknown pack");
        let text = error.to_string();
        assert!(
            text.starts_with("enable[0]: unknown pack \"strcit\""),
            "{text}"
        );
        assert!(text.contains("did you mean \"strict\""), "{text}");
        let far = rule_packs(Some("enable: [strict, zzzzzzzz]")).expect_err("unknown pack");
        assert!(!far.to_string().contains("did you mean"), "{far}");
    }

    #[test]
    fn the_defaults_turn_no_opt_in_pack_on() {
        let packs = rule_packs(None).expect("the defaults load");
        assert!(packs.enabled.is_empty());
        for name in [
            "strict",
            "database",
            "kubernetes",
            "cloud",
            "terraform",
            "system",
        ] {
            assert!(packs.available.iter().any(|p| p == name), "{name}");
        }
        assert!(packs.always_on.iter().any(|p| p == "filesystem"));
    }

    #[test]
    fn a_users_pack_is_added_and_can_be_turned_on() {
        let yaml = "enable: [mine, strict]\nopt_in_packs:\n  mine:\n    - {name: no-make, program: '^make$'}\n";
        let packs = rule_packs(Some(yaml)).expect("loads");
        assert_eq!(packs.enabled[..2], ["mine", "strict"]);
        assert!(packs.available.iter().any(|p| p == "mine"));
    }

    #[test]
    fn strict_turns_on_the_packs_it_includes() {
        let packs = rule_packs(Some("enable: [strict]")).expect("loads");
        assert_eq!(
            packs.enabled,
            [
                "strict",
                "system",
                "database",
                "kubernetes",
                "cloud",
                "terraform"
            ]
        );
        let mine = rule_packs(Some("enable: [strict]\npack_includes: {}\n")).expect("loads");
        assert_eq!(mine.enabled, ["strict"]);
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(edit_distance("strict", "strict"), 0);
        assert_eq!(edit_distance("strcit", "strict"), 2);
        assert_eq!(edit_distance("databse", "database"), 1);
    }
}
