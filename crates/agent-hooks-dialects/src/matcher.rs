//! Which payloads a hook runs on. A matcher is a regex compiled once at load; the shell and skill
//! dialects search it in the payload's *match text* (every string value, common fields left
//! out, one per line), Claude Code in the tool name ([`super::claude::match_target`]).

use regex::Regex;
use serde_json::{Map, Value};

use agent_hooks_core::event::COMMON_FIELDS;

/// A compiled matcher. Compiled once at load; a miss means the hook is not spawned.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// The pattern as written, for display.
    pub pattern: String,
    test: Test,
}

/// How a matcher decides.
#[derive(Debug, Clone)]
enum Test {
    /// The compiled pattern.
    Regex(Regex),
    /// A pattern that matches exactly these strings anywhere in the text (an alternation of
    /// plain words, such as the one `install` writes for a guard): found by a substring search,
    /// with no automaton built. A hook process pays for building a regex of a few hundred
    /// alternatives more than a built-in guard costs to run.
    Anywhere(Vec<String>),
}

impl Matcher {
    /// A matcher of `pattern`, compiled as `regex` (the dialect decides how it is anchored).
    pub fn new(pattern: String, regex: Regex) -> Matcher {
        Matcher {
            pattern,
            test: Test::Regex(regex),
        }
    }

    /// Whether the matcher selects `text` (the dialect decides what text that is).
    pub fn is_match(&self, text: &str) -> bool {
        match &self.test {
            Test::Regex(regex) => regex.is_match(text),
            Test::Anywhere(words) => words
                .iter()
                .any(|w| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some()),
        }
    }

    /// The regex as it is matched (with the dialect's anchoring), for comparing two matchers.
    pub fn regex_str(&self) -> &str {
        match &self.test {
            Test::Regex(regex) => regex.as_str(),
            Test::Anywhere(_) => &self.pattern,
        }
    }
}

/// The most strings a matcher is searched for one by one instead of compiled.
const MAX_WORDS: usize = 512;

/// Compiles a shell-hook matcher. The match text holds the payload's strings one per line, so
/// `^` and `$` mean the start and end of a value (`^rm` matches a command that starts with rm).
pub fn multi_line(pattern: String) -> Result<Matcher, regex::Error> {
    // A pattern that does not parse is left to the regex crate, which says what is wrong.
    let hir = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .build()
        .parse(&pattern);
    if let Some(words) = hir
        .ok()
        .and_then(|hir| words(&hir))
        .filter(|w| !w.iter().any(String::is_empty))
    {
        return Ok(Matcher {
            pattern,
            test: Test::Anywhere(words),
        });
    }
    let regex = regex::RegexBuilder::new(&pattern)
        .multi_line(true)
        .build()?;
    Ok(Matcher::new(pattern, regex))
}

/// The finite set of strings `hir` matches, when it is one of at most [`MAX_WORDS`] strings
/// with no anchor, class of many characters or repetition: then a match anywhere is one of
/// them as a substring.
fn words(hir: &regex_syntax::hir::Hir) -> Option<Vec<String>> {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Literal(literal) => Some(vec![String::from_utf8(literal.0.to_vec()).ok()?]),
        HirKind::Capture(capture) => words(&capture.sub),
        HirKind::Alternation(subs) => {
            let mut all = Vec::new();
            for sub in subs {
                all.extend(words(sub)?);
                if all.len() > MAX_WORDS {
                    return None;
                }
            }
            Some(all)
        }
        HirKind::Concat(subs) => {
            let mut all = vec![String::new()];
            for sub in subs {
                let next = words(sub)?;
                if all.len() * next.len() > MAX_WORDS {
                    return None;
                }
                all = all
                    .iter()
                    .flat_map(|a| next.iter().map(move |b| format!("{a}{b}")))
                    .collect();
            }
            Some(all)
        }
        HirKind::Class(Class::Unicode(class)) => {
            let mut all = Vec::new();
            for range in class.ranges() {
                for c in range.start()..=range.end() {
                    all.push(c.to_string());
                    if all.len() > 8 {
                        return None;
                    }
                }
            }
            Some(all)
        }
        _ => None,
    }
}

/// The payload's string values (nested ones too), common fields excluded, joined with newlines.
pub fn match_text(payload: &Map<String, Value>) -> String {
    let mut text = String::new();
    for (key, value) in payload {
        if COMMON_FIELDS.contains(&key.as_str()) {
            continue;
        }
        collect_strings(value, &mut text);
    }
    text
}

fn collect_strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(s);
        }
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The substring search answers as the compiled regex would, on words, escapes, factored
    /// alternatives and small classes; anything else is compiled.
    #[test]
    fn words_match_as_the_regex_does() {
        let texts = [
            "rm -rf /",
            "ls -la\ncat ~/.ssh/id_rsa",
            "echo hi",
            "git push",
            "a()b",
            "",
            "mkfs.ext4 /dev/sda",
            "DD if=x",
            "RM -RF",
            "\u{212A}S",
        ];
        for pattern in [
            r"rm|dd|mkfs|\(\)|/dev/|\.ssh|git",
            "foo(bar|baz)",
            "id_(rsa|ed)",
            "[ab]c|push",
            // Case folding is a small class per letter: every spelling is a word.
            "(?i)rm|ks",
        ] {
            let matcher = multi_line(pattern.to_owned()).expect("valid");
            assert!(matches!(matcher.test, Test::Anywhere(_)), "{pattern}");
            let regex = regex::RegexBuilder::new(pattern)
                .multi_line(true)
                .build()
                .expect("valid");
            for text in texts {
                assert_eq!(
                    matcher.is_match(text),
                    regex.is_match(text),
                    "{pattern} on {text:?}"
                );
            }
        }
        for pattern in ["^rm", "rm$", r"rm\s+-rf", "r.m", "a*", ""] {
            let matcher = multi_line(pattern.to_owned()).expect("valid");
            assert!(matches!(matcher.test, Test::Regex(_)), "{pattern}");
        }
        assert!(multi_line("rm(".to_owned()).is_err());
    }
}
