//! Loading a guard's rules file: the user's YAML over the built-in defaults.
//! Every top-level key the user leaves out takes its default value, so a rules file
//! may hold only the tables the user changed; a wrong key or type is an error with a position.

use std::borrow::Cow;
use std::fmt::Display;

use serde::de::DeserializeOwned;

/// Why a guard could not be built from its name and rules file.
///
/// Messages read after "failed to load guard rules: ...".
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// The name is not one of [`crate::GUARDS`].
    #[error("unknown guard {name:?} (known guards: {known})")]
    UnknownGuard {
        /// The name that was asked for.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// The YAML does not parse, or a key or value has the wrong shape.
    #[error("{line}:{column}: {message}")]
    Syntax {
        /// 1-based line in the rules file (0 when the parser could not tell).
        line: u64,
        /// 1-based column in the rules file (0 when the parser could not tell).
        column: u64,
        /// What was expected.
        message: String,
    },
    /// The YAML is well-formed but a value cannot be used (an invalid regex, say).
    #[error("{field}: {message}")]
    Invalid {
        /// The rules key, dotted for nested ones (`destructive[2].args`).
        field: String,
        /// What is wrong with it.
        message: String,
    },
}

/// Parses the user's rules (if any) and the defaults into the same raw shape.
///
/// Raw shapes have only `Option` fields so that "absent" can be told from "empty";
/// the guard's compile step picks the user's value, else the default.
pub(crate) fn load<T: DeserializeOwned + Default>(
    defaults_yaml: &str,
    user_yaml: Option<&str>,
) -> Result<(T, T), RulesError> {
    // The defaults ship in the binary and a test parses each one; should that ever
    // fail anyway, empty tables are the fail-open answer rather than a panic.
    let defaults = parse::<T>(defaults_yaml).unwrap_or_default();
    let user = match user_yaml {
        Some(text) => parse::<T>(text)?,
        None => T::default(),
    };
    Ok((user, defaults))
}

/// Parses one YAML document; an empty or comment-only document is "nothing set".
pub(crate) fn parse<T: DeserializeOwned + Default>(text: &str) -> Result<T, RulesError> {
    let has_content = text.lines().any(|line| {
        let line = line.trim();
        !line.is_empty() && !line.starts_with('#') && line != "---"
    });
    if !has_content {
        return Ok(T::default());
    }
    serde_saphyr::from_str::<T>(text).map_err(|error| {
        let (line, column) = error
            .location()
            .map(|loc| (loc.line(), loc.column()))
            .unwrap_or((0, 0));
        let message = first_line(&error.without_snippet().to_string());
        RulesError::Syntax {
            line,
            column,
            message,
        }
    })
}

/// The parser's rendering may carry a position suffix and a snippet; the position is
/// reported separately, so keep only the first line of the message.
fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or(message).trim().to_owned()
}

/// A regex from the rules, checked when the rules load and compiled on first use.
///
/// Compiling every pattern of a guard costs milliseconds (Unicode classes make large
/// automata), and one event uses only a few of them; `agent-hooks guard` is a new process
/// per event, so it pays only for the patterns that event needs.
pub(crate) struct LazyRegex {
    pattern: String,
    compiled: std::sync::OnceLock<regex::Regex>,
    /// What the pattern's syntax tells, found on the first `is_match`.
    facts: std::sync::OnceLock<Facts>,
}

type Bytes = Cow<'static, [u8]>;
type ByteStrings = Cow<'static, [Bytes]>;

/// What a pattern's syntax tells without compiling it.
#[derive(Debug, Default, Clone, PartialEq)]
struct Facts {
    /// Bytes every match contains (see [`required_bytes`]).
    required: Bytes,
    /// For a pattern anchored at both ends over a finite set of strings (`^(?:nc|ncat)$`),
    /// those strings: matching is then a comparison, with no automaton at all.
    exact: Option<ByteStrings>,
    /// For a pattern anchored at the start, strings one of which every match starts with
    /// (`^python[0-9.]*$`: `python`).
    prefixes: Option<ByteStrings>,
    /// Strings of two bytes or more every match contains (`do\s+...done`: `do`, `done`).
    words: Option<ByteStrings>,
}

/// The facts of every regex in the guards' default rules, sorted by pattern, so that a
/// guard process does not parse its default patterns again to learn them (parsing them
/// cost more than everything else `agent-hooks guard` does). A test keeps the table equal
/// to what [`Facts::of`] finds (`UPDATE_DEFAULTS=1 cargo test -p agent-hooks-guards
/// known_facts` rewrites it); a pattern missing from it is parsed as before.
static KNOWN_FACTS: &[(&str, Facts)] = include!("rules.facts.rs");

impl Facts {
    /// The facts of `pattern`: from [`KNOWN_FACTS`], else from its syntax.
    fn find(pattern: &str) -> Facts {
        match KNOWN_FACTS.binary_search_by(|(known, _)| (*known).cmp(pattern)) {
            Ok(at) => KNOWN_FACTS[at].1.clone(),
            Err(_) => Facts::of(pattern),
        }
    }

    fn of(pattern: &str) -> Facts {
        // Literals are all this needs; without Unicode, `\s` and `\w` stay small classes.
        regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(pattern)
            .map(|hir| {
                let (exact, prefixes) = anchored_literals(&hir);
                let words = required_words(&hir);
                Facts {
                    words: (!words.is_empty()).then(|| owned_strings(words)),
                    required: required_bytes(&hir).into(),
                    exact: exact.map(owned_strings),
                    prefixes: prefixes.map(owned_strings),
                }
            })
            .unwrap_or_default()
    }
}

fn owned_strings(strings: Vec<Vec<u8>>) -> ByteStrings {
    strings
        .into_iter()
        .map(Bytes::Owned)
        .collect::<Vec<_>>()
        .into()
}

impl LazyRegex {
    /// `Regex::is_match`, answering `false` at once when the text lacks a byte that every
    /// match contains. Most patterns look for something rare (`) {` of a fork bomb, say);
    /// a byte search over a long command is far cheaper than running the automaton on it.
    pub(crate) fn is_match(&self, haystack: &str) -> bool {
        let facts = self.facts.get_or_init(|| Facts::find(&self.pattern));
        let bytes = haystack.as_bytes();
        if let Some(exact) = &facts.exact {
            return exact
                .iter()
                .any(|s| crate::shell::same_bytes(s.as_ref(), bytes));
        }
        if let Some(prefixes) = &facts.prefixes
            && !prefixes.iter().any(|p| {
                bytes
                    .get(..p.len())
                    .is_some_and(|start| crate::shell::same_bytes(start, p))
            })
        {
            return false;
        }
        facts
            .required
            .iter()
            .all(|&b| memchr::memchr(b, bytes).is_some())
            && facts.words.iter().flat_map(|w| w.iter()).all(|word| {
                // A word that is not text cannot be looked for in text: it rules nothing out.
                std::str::from_utf8(word).is_err() || memchr::memmem::find(bytes, word).is_some()
            })
            && (**self).is_match(haystack)
    }
}

/// For a pattern anchored with `^`: the strings it matches when it is also anchored with `$`
/// and they are few and known, else the literal prefixes every match starts with.
type AnchoredLiterals = (Option<Vec<Vec<u8>>>, Option<Vec<Vec<u8>>>);

fn anchored_literals(hir: &regex_syntax::hir::Hir) -> AnchoredLiterals {
    use regex_syntax::hir::literal::Extractor;
    use regex_syntax::hir::{Hir, HirKind, Look};
    let HirKind::Concat(parts) = hir.kind() else {
        return (None, None);
    };
    let is = |part: &Hir, look: Look| matches!(part.kind(), HirKind::Look(l) if *l == look);
    let Some((first, rest)) = parts.split_first() else {
        return (None, None);
    };
    if !is(first, Look::Start) {
        return (None, None);
    }
    let strings = |seq: &regex_syntax::hir::literal::Seq| {
        seq.literals()
            .map(|literals| literals.iter().map(|l| l.as_bytes().to_vec()).collect())
    };
    if let Some((last, middle)) = rest.split_last()
        && is(last, Look::End)
    {
        let seq = Extractor::new().extract(&Hir::concat(middle.to_vec()));
        if seq.is_exact() {
            return (strings(&seq), None);
        }
    }
    let seq = Extractor::new().extract(&Hir::concat(rest.to_vec()));
    // An empty prefix would say nothing.
    let prefixes: Option<Vec<Vec<u8>>> = strings(&seq);
    (None, prefixes.filter(|p| p.iter().all(|p| !p.is_empty())))
}

/// The bytes that every match of `hir` contains: a literal's bytes, all of those of a
/// concatenation, those common to every branch of an alternation.
fn required_bytes(hir: &regex_syntax::hir::Hir) -> Vec<u8> {
    use regex_syntax::hir::HirKind;
    let mut bytes = match hir.kind() {
        HirKind::Literal(literal) => literal.0.to_vec(),
        HirKind::Capture(capture) => required_bytes(&capture.sub),
        HirKind::Repetition(rep) if rep.min > 0 => required_bytes(&rep.sub),
        HirKind::Concat(subs) => subs.iter().flat_map(required_bytes).collect(),
        HirKind::Alternation(subs) => {
            let mut branches = subs.iter().map(required_bytes);
            let first = branches.next().unwrap_or_default();
            branches.fold(first, |common, branch| {
                common.into_iter().filter(|b| branch.contains(b)).collect()
            })
        }
        _ => Vec::new(),
    };
    bytes.sort_unstable();
    bytes.dedup();
    bytes
}

/// Strings of two bytes or more that every match of `hir` contains: the runs of literals of a
/// concatenation and those of its required parts. An alternation requires none of its own.
fn required_words(hir: &regex_syntax::hir::Hir) -> Vec<Vec<u8>> {
    use regex_syntax::hir::HirKind;
    let mut words = match hir.kind() {
        HirKind::Literal(literal) => vec![literal.0.to_vec()],
        HirKind::Capture(capture) => required_words(&capture.sub),
        HirKind::Repetition(rep) if rep.min > 0 => required_words(&rep.sub),
        HirKind::Concat(subs) => {
            let mut words = Vec::new();
            let mut run: Vec<u8> = Vec::new();
            for sub in subs {
                if let HirKind::Literal(literal) = sub.kind() {
                    run.extend_from_slice(&literal.0);
                    continue;
                }
                if !run.is_empty() {
                    words.push(std::mem::take(&mut run));
                }
                words.extend(required_words(sub));
            }
            if !run.is_empty() {
                words.push(run);
            }
            words
        }
        _ => Vec::new(),
    };
    words.retain(|word| word.len() >= 2);
    words.sort();
    words.dedup();
    words
}

impl std::fmt::Debug for LazyRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("LazyRegex").field(&self.pattern).finish()
    }
}

impl std::ops::Deref for LazyRegex {
    type Target = regex::Regex;

    fn deref(&self) -> &regex::Regex {
        self.compiled.get_or_init(|| {
            // The syntax was checked at load; only a size limit could fail here, and then the
            // pattern matches nothing (fail-open) rather than panicking.
            regex::Regex::new(&self.pattern).unwrap_or_else(|_| never_matches())
        })
    }
}

fn never_matches() -> regex::Regex {
    static NEVER: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    NEVER
        .get_or_init(|| {
            regex::Regex::new(r"[^\s\S]").unwrap_or_else(|_| unreachable!("a fixed pattern"))
        })
        .clone()
}

/// Whose value a rules key holds: the user's file, or the built-in default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    User,
    /// Shipped in the binary and checked by the tests (every default rules file is also
    /// loaded as a user file there), so its regexes are not parsed again at load.
    Default,
}

/// The user's value if set, else the default's, with where it came from.
pub(crate) fn pick_from<T: Default>(user: Option<T>, default: Option<T>) -> (T, Origin) {
    match user {
        Some(value) => (value, Origin::User),
        None => (default.unwrap_or_default(), Origin::Default),
    }
}

/// Checks a regex from the rules (syntax only; it compiles on first use), naming the key
/// when it is invalid. A built-in default is not checked. The key is written out only for
/// an error: building a guard's rules is on every `agent-hooks guard` process's path.
pub(crate) fn regex_from(
    origin: Origin,
    field: &dyn Display,
    pattern: &str,
) -> Result<LazyRegex, RulesError> {
    if origin == Origin::User {
        regex_syntax::Parser::new()
            .parse(pattern)
            .map_err(|error| RulesError::Invalid {
                field: field.to_string(),
                message: format!("invalid regex: {error}"),
            })?;
    }
    #[cfg(test)]
    tests::record(pattern);
    Ok(LazyRegex {
        pattern: pattern.to_owned(),
        compiled: std::sync::OnceLock::new(),
        facts: std::sync::OnceLock::new(),
    })
}

/// Compiles a list of regexes (`field[i]` in errors).
pub(crate) fn regexes(field: &str, patterns: &[String]) -> Result<Vec<LazyRegex>, RulesError> {
    regexes_from(Origin::User, &field, patterns)
}

/// [`regexes`], skipping the syntax check for a built-in default.
pub(crate) fn regexes_from(
    origin: Origin,
    field: &dyn Display,
    patterns: &[String],
) -> Result<Vec<LazyRegex>, RulesError> {
    patterns
        .iter()
        .enumerate()
        .map(|(index, pattern)| regex_from(origin, &format_args!("{field}[{index}]"), pattern))
        .collect()
}

/// Compiles an optional regex; `None` and `""` both mean "no pattern".
pub(crate) fn optional_regex(
    field: &str,
    pattern: Option<&str>,
) -> Result<Option<LazyRegex>, RulesError> {
    optional_regex_from(Origin::User, &field, pattern)
}

/// [`optional_regex`], skipping the syntax check for a built-in default.
pub(crate) fn optional_regex_from(
    origin: Origin,
    field: &dyn Display,
    pattern: Option<&str>,
) -> Result<Option<LazyRegex>, RulesError> {
    match pattern {
        Some(pattern) if !pattern.is_empty() => regex_from(origin, field, pattern).map(Some),
        _ => Ok(None),
    }
}

/// The user's value if set, else the default's, else the type's empty value.
pub(crate) fn pick<T: Default>(user: Option<T>, default: Option<T>) -> T {
    user.or(default).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::fmt::Write;

    use super::*;

    thread_local! {
        /// The patterns `regex_from` saw on this thread, while a test records them.
        static SEEN: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
    }

    pub(super) fn record(pattern: &str) {
        SEEN.with_borrow_mut(|seen| {
            if let Some(seen) = seen {
                seen.push(pattern.to_owned());
            }
        });
    }

    fn literal(bytes: &[u8]) -> String {
        let escaped: String = bytes
            .iter()
            .flat_map(|b| std::ascii::escape_default(*b))
            .map(char::from)
            .collect();
        format!("Cow::Borrowed(b\"{escaped}\")")
    }

    fn strings(list: &Option<ByteStrings>) -> String {
        match list {
            None => "None".to_owned(),
            Some(list) => {
                let items: Vec<String> = list.iter().map(|s| literal(s)).collect();
                format!("Some(Cow::Borrowed(&[{}]))", items.join(", "))
            }
        }
    }

    /// `rules.facts.rs` as it should be: the facts of every pattern the built-in guards
    /// load with their default rules.
    fn known_facts_source() -> String {
        SEEN.with_borrow_mut(|seen| *seen = Some(Vec::new()));
        for info in crate::GUARDS {
            crate::Guard::with_defaults(info.name).expect("the default rules load");
        }
        let mut patterns = SEEN.with_borrow_mut(Option::take).unwrap_or_default();
        patterns.sort();
        patterns.dedup();
        let mut out = String::from(
            "// Generated by `UPDATE_DEFAULTS=1 cargo test -p agent-hooks-guards known_facts`\n\
             // from the default rules of every guard: see `KNOWN_FACTS` in rules.rs.\n&[\n",
        );
        for pattern in &patterns {
            let facts = Facts::of(pattern);
            let _ = writeln!(
                out,
                "    ({pattern:?}, Facts {{ required: {}, exact: {}, prefixes: {}, words: {} }}),",
                literal(&facts.required),
                strings(&facts.exact),
                strings(&facts.prefixes),
                strings(&facts.words)
            );
        }
        out.push_str("]\n");
        out
    }

    #[test]
    fn known_facts_are_those_of_the_default_rules() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/rules.facts.rs");
        let expected = known_facts_source();
        if std::env::var_os("UPDATE_DEFAULTS").is_some() {
            std::fs::write(path, &expected).expect("rules.facts.rs is writable");
            return;
        }
        let actual = std::fs::read_to_string(path).expect("rules.facts.rs is readable");
        assert!(
            actual == expected,
            "rerun with UPDATE_DEFAULTS=1 to refresh {path}"
        );
        // The table is searched by binary search, and every entry is what parsing finds.
        assert!(KNOWN_FACTS.windows(2).all(|w| w[0].0 < w[1].0));
        for (pattern, facts) in KNOWN_FACTS {
            assert_eq!(*facts, Facts::of(pattern), "{pattern}");
        }
    }

    #[test]
    fn a_regex_is_not_run_over_text_lacking_a_word_every_match_contains() {
        let words = |pattern: &str| {
            Facts::of(pattern)
                .words
                .map(|w| w.iter().map(|b| b.to_vec()).collect::<Vec<_>>())
                .unwrap_or_default()
        };
        assert_eq!(
            words(r"while\s+true\s*;\s*do\s+x&\s*done"),
            [&b"do"[..], b"done", b"true", b"while", b"x&"]
        );
        // Alternatives require nothing of their own; case-insensitive letters are classes.
        assert!(words(r"(?:rm|del)ete").contains(&b"ete".to_vec()));
        assert!(!words(r"(?:rm|del)ete").contains(&b"rm".to_vec()));
        assert!(words(r"(?i)done").is_empty());
        let re = lazy(r"do\s+\S+\s+done");
        assert!(re.is_match("do  it  done"));
        assert!(!re.is_match("do it, then stop"));
    }

    fn lazy(pattern: &str) -> LazyRegex {
        regex_from(Origin::User, &"t", pattern).expect("a valid pattern")
    }

    #[test]
    fn anchored_literal_sets_match_by_comparison_like_the_regex() {
        for (pattern, yes, no) in [
            (
                r"^(?:nc|ncat|nc\.openbsd)$",
                ["ncat", "nc.openbsd"],
                ["nca", "ncx"],
            ),
            (r"^(?:ba|z)?sh$", ["sh", "bash"], ["ash", "shx"]),
            (
                r"^python[0-9.]*$",
                ["python3.12", "python"],
                ["pythonw", "xpython"],
            ),
        ] {
            let re = lazy(pattern);
            let exact = re.is_match(yes[0]) && re.facts.get().is_some_and(|f| f.exact.is_some());
            let prefixed = re.facts.get().is_some_and(|f| f.prefixes.is_some());
            assert_eq!(
                prefixed,
                pattern.contains('*'),
                "{pattern}: prefixes or not"
            );
            assert_eq!(exact, !pattern.contains('*'), "{pattern}: exact set or not");
            for word in yes {
                assert!(re.is_match(word), "{pattern} should match {word}");
            }
            for word in no {
                assert!(!re.is_match(word), "{pattern} should not match {word}");
            }
        }
    }
}
