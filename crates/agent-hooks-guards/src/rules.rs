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
    pattern: Text,
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
    /// ASCII letters, lowercase, every match contains in one case or the other (`(?i)bearer`:
    /// `a b e r`): what a case-insensitive pattern requires, which `required` cannot say.
    folded: Bytes,
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
                    folded: required_folded(&hir).into(),
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
        if let Some(exact) = &facts.exact {
            return exact
                .iter()
                .any(|s| same_bytes(s.as_ref(), haystack.as_bytes()));
        }
        self.may_match(haystack) && (**self).is_match(haystack)
    }

    /// Whether `haystack` holds everything every match needs (a byte, a word, a prefix of an
    /// anchored pattern): `false` means no match, found without compiling the pattern. A
    /// scan that wants the matches themselves (`find_iter`) asks this first, so text without
    /// a credential's telltale bytes never pays for building its automaton.
    pub(crate) fn may_match(&self, haystack: &str) -> bool {
        let facts = self.facts.get_or_init(|| Facts::find(&self.pattern));
        let bytes = haystack.as_bytes();
        if let Some(exact) = &facts.exact {
            return exact.iter().any(|s| same_bytes(s.as_ref(), bytes));
        }
        if let Some(prefixes) = &facts.prefixes
            && !prefixes.iter().any(|p| {
                bytes
                    .get(..p.len())
                    .is_some_and(|start| same_bytes(start, p))
            })
        {
            return false;
        }
        facts
            .required
            .iter()
            .all(|&b| memchr::memchr(b, bytes).is_some())
            // With Unicode case folding a letter has non-ASCII forms too (`k`, KELVIN SIGN):
            // only ASCII text can lack all of a letter's forms.
            && (facts.folded.is_empty()
                || !bytes.is_ascii()
                || facts.folded.iter().all(|&b| {
                    memchr::memchr2(b, b.to_ascii_uppercase(), bytes).is_some()
                }))
            && facts.words.iter().flat_map(|w| w.iter()).all(|word| {
                // A word that is not text cannot be looked for in text: it rules nothing out.
                std::str::from_utf8(word).is_err() || memchr::memmem::find(bytes, word).is_some()
            })
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

/// The ASCII letters (lowercase) that every match of `hir` contains in either case: a class
/// of exactly one letter's two cases (what `(?i)` makes of a letter), all of those of a
/// concatenation, those common to every branch of an alternation.
fn required_folded(hir: &regex_syntax::hir::Hir) -> Vec<u8> {
    use regex_syntax::hir::{Class, HirKind};
    let mut letters = match hir.kind() {
        HirKind::Class(Class::Bytes(class)) => {
            let ranges = class.ranges();
            match ranges {
                [a, b] if a.start() == a.end() && b.start() == b.end() => {
                    let (upper, lower) = (a.start(), b.start());
                    if upper.is_ascii_uppercase() && lower == upper.to_ascii_lowercase() {
                        vec![lower]
                    } else {
                        Vec::new()
                    }
                }
                _ => Vec::new(),
            }
        }
        HirKind::Capture(capture) => required_folded(&capture.sub),
        HirKind::Repetition(rep) if rep.min > 0 => required_folded(&rep.sub),
        HirKind::Concat(subs) => subs.iter().flat_map(required_folded).collect(),
        HirKind::Alternation(subs) => {
            let mut branches = subs.iter().map(required_folded);
            let first = branches.next().unwrap_or_default();
            branches.fold(first, |common, branch| {
                common.into_iter().filter(|b| branch.contains(b)).collect()
            })
        }
        _ => Vec::new(),
    };
    letters.sort_unstable();
    letters.dedup();
    letters
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
    pattern: impl AsRef<str> + Into<Text>,
) -> Result<LazyRegex, RulesError> {
    if origin == Origin::User {
        regex_syntax::Parser::new()
            .parse(pattern.as_ref())
            .map_err(|error| RulesError::Invalid {
                field: field.to_string(),
                message: format!("invalid regex: {error}"),
            })?;
    }
    #[cfg(test)]
    tests::record(pattern.as_ref());
    Ok(LazyRegex {
        pattern: pattern.into(),
        compiled: std::sync::OnceLock::new(),
        facts: std::sync::OnceLock::new(),
    })
}

/// Compiles a list of regexes (`field[i]` in errors).
pub(crate) fn regexes(field: &str, patterns: &[String]) -> Result<Vec<LazyRegex>, RulesError> {
    patterns
        .iter()
        .enumerate()
        .map(|(index, pattern)| {
            regex_from(
                Origin::User,
                &format_args!("{field}[{index}]"),
                pattern.as_str(),
            )
        })
        .collect()
}

/// [`regexes`], skipping the syntax check for a built-in default.
pub(crate) fn regexes_from(
    origin: Origin,
    field: &dyn Display,
    patterns: &[Text],
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
    pattern: Option<impl AsRef<str> + Into<Text>>,
) -> Result<Option<LazyRegex>, RulesError> {
    match pattern {
        Some(pattern) if !pattern.as_ref().is_empty() => {
            regex_from(origin, field, pattern).map(Some)
        }
        _ => Ok(None),
    }
}

/// The user's value if set, else the default's, else the type's empty value.
pub(crate) fn pick<T: Default>(user: Option<T>, default: Option<T>) -> T {
    user.or(default).unwrap_or_default()
}

/// A string of a rules file. A string of the built-in rules' binary form
/// ([`built_in_blobs`]) is borrowed from it rather than copied: a guard process builds its
/// rules for one event, and copying a thousand small strings out of the blob, one allocation
/// each, was the larger part of that. A user's rules file gives owned strings.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Text(Cow<'static, str>);

impl Text {
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the text is borrowed from a built-in blob rather than owned.
    #[cfg(test)]
    pub(crate) fn is_borrowed(&self) -> bool {
        matches!(self.0, Cow::Borrowed(_))
    }

    /// The text's words (split at whitespace), each borrowed where the text is.
    pub(crate) fn words(&self) -> Vec<Text> {
        match &self.0 {
            Cow::Borrowed(text) => text
                .split_whitespace()
                .map(|word| Text(Cow::Borrowed(word)))
                .collect(),
            Cow::Owned(text) => text.split_whitespace().map(Text::from).collect(),
        }
    }

    /// The string whose UTF-8 bytes are `bytes`: borrowed when they lie inside a built-in
    /// rules blob (whose deserializer hands out slices of it), else copied; `None` when they
    /// are not UTF-8.
    fn from_bytes(bytes: &[u8]) -> Option<Text> {
        let start = bytes.as_ptr() as usize;
        for blob in built_in_blobs() {
            let inside = start
                .checked_sub(blob.as_ptr() as usize)
                .and_then(|offset| blob.get(offset..offset.checked_add(bytes.len())?));
            if let Some(inside) = inside {
                return std::str::from_utf8(inside)
                    .ok()
                    .map(|text| Text(Cow::Borrowed(text)));
            }
        }
        std::str::from_utf8(bytes).ok().map(Text::from)
    }
}

/// security_guard's default rules (`rules/security_guard.yaml`) already parsed, in postcard's compact binary form: the guard is built for
/// every `agent-hooks guard security_guard` process, and decoding this costs a fraction of
/// parsing the same rules as JSON (0.75 million instructions, a third of the whole process),
/// let alone as YAML. A test keeps it equal to the YAML
/// (`UPDATE_DEFAULTS=1 cargo test -p agent-hooks-guards default_rules_blob` rewrites it).
/// A `static`, not a `const`: its strings are borrowed where they lie ([`Text`]), which
/// takes one copy of the bytes at one address.
pub(crate) static SECURITY_GUARD_RULES_BLOB: &[u8] =
    include_bytes!("guards/security_guard.defaults.postcard");

/// security_guard's opt-in packs (`opt_in_packs` of the same YAML), in a blob of their own:
/// decoding them is most of what building the guard costs, and a process that turns none
/// on (the default) never does (same test, same `UPDATE_DEFAULTS=1`).
pub(crate) static SECURITY_GUARD_OPT_IN_BLOB: &[u8] =
    include_bytes!("guards/security_guard.opt_in.postcard");

/// Whether two byte strings are equal (`shell::same` for bytes).
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The built-in rules kept in a binary form whose strings [`Text`] borrows.
fn built_in_blobs() -> [&'static [u8]; 2] {
    [SECURITY_GUARD_RULES_BLOB, SECURITY_GUARD_OPT_IN_BLOB]
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text(Cow::Owned(text.to_owned()))
    }
}

impl From<&Text> for Text {
    fn from(text: &Text) -> Text {
        text.clone()
    }
}

impl From<&String> for Text {
    fn from(text: &String) -> Text {
        Text::from(text.as_str())
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text(Cow::Owned(text))
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Cow<'_, str>> for Text {
    fn eq(&self, other: &Cow<'_, str>) -> bool {
        *self.0 == **other
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&*self.0, f)
    }
}

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Text, D::Error> {
        struct Visitor;

        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Text;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }

            fn visit_str<E>(self, text: &str) -> Result<Text, E> {
                Ok(Text::from(text))
            }

            fn visit_string<E>(self, text: String) -> Result<Text, E> {
                Ok(Text::from(text))
            }

            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Text, E> {
                Text::from_bytes(bytes)
                    .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Bytes(bytes), &self))
            }
        }

        // In the binary form (postcard, the one format here that is not human-readable) a
        // string is its length and its bytes, as a byte string is. Asked for bytes, postcard
        // hands out a slice of the blob, checked here as UTF-8 once and borrowed; asked for a
        // string, it would check the bytes itself, and borrowing them would check them again.
        if deserializer.is_human_readable() {
            deserializer.deserialize_str(Visitor)
        } else {
            deserializer.deserialize_bytes(Visitor)
        }
    }
}

#[cfg(test)]
impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
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
                "    ({pattern:?}, Facts {{ required: {}, exact: {}, prefixes: {}, words: {}, folded: {} }}),",
                literal(&facts.required),
                strings(&facts.exact),
                strings(&facts.prefixes),
                strings(&facts.words),
                literal(&facts.folded)
            );
        }
        out.push_str("]\n");
        out
    }

    #[test]
    fn a_rules_file_reads_into_text_as_into_string() {
        #[derive(Debug, Default, serde::Deserialize)]
        struct Strings {
            list: Vec<String>,
            map: std::collections::BTreeMap<String, String>,
        }
        #[derive(Debug, Default, serde::Deserialize)]
        struct Texts {
            list: Vec<Text>,
            map: std::collections::BTreeMap<Text, Text>,
        }
        let yaml = "list: [plain, 'single', \"double\\t\", 12, true, ~x, '']\nmap: {a: 1, 2: b}\n";
        let strings: Strings = parse(yaml).expect("parses as strings");
        let texts: Texts = parse(yaml).expect("parses as texts");
        assert_eq!(format!("{:?}", strings.list), format!("{:?}", texts.list));
        assert_eq!(format!("{:?}", strings.map), format!("{:?}", texts.map));
        assert!(
            texts.list.iter().all(|t| !t.is_borrowed()),
            "a user's file is owned"
        );
        // A value that is not a string is refused by both, with the same message.
        let bad = "list: [[nested]]\nmap: {}\n";
        let (Err(string_error), Err(text_error)) = (parse::<Strings>(bad), parse::<Texts>(bad))
        else {
            panic!("a nested list is not a string");
        };
        assert_eq!(string_error.to_string(), text_error.to_string());
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

    #[test]
    fn a_case_insensitive_pattern_is_ruled_out_by_its_letters_without_compiling() {
        assert_eq!(&*Facts::of(r"(?i)\bbearer\s+\S+").folded, b"aber");
        // Common to both branches: only the letters both spell.
        assert_eq!(&*Facts::of(r"(?i)(?:seed|secret)").folded, b"es");
        let re = lazy(r"(?i)\bbearer\s+(?P<t>\S+)");
        assert!(!re.may_match("ls -la src/"));
        assert!(re.compiled.get().is_none(), "ruled out before compiling");
        assert!(re.may_match("Authorization: BEARER abc"));
        assert!(re.is_match("Authorization: BeArEr abc"));
        // KELVIN SIGN folds to k: text that is not ASCII is never ruled out by letters.
        let k = lazy(r"(?i)key");
        assert!(k.may_match("\u{212A}ey"));
        assert!(k.is_match("\u{212A}ey"));
        assert!(!k.may_match("kex"));
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
