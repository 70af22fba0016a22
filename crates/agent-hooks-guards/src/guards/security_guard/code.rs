//! Code given to an interpreter (`python -c`, `node -e`, a heredoc fed to `perl`): a small
//! tokenizer shared by Python, JavaScript, Ruby, Perl and PHP finds the calls that matter
//! and turns them into what they run. A call that shells out with literal text becomes
//! that command text; a recursive delete of a literal path becomes `rm -rf -- <path>`, so
//! the shell rules decide both. Printing or storing such text is not a call and passes.

use std::borrow::Cow;

use serde::Deserialize;

use crate::rules::Text;

/// An interpreter as the rules file spells it.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct LanguageRaw {
    pub(crate) program: Text,
    #[serde(default)]
    pub(crate) code_options: Vec<Text>,
    #[serde(default)]
    pub(crate) code_subcommands: Vec<Text>,
    #[serde(default)]
    pub(crate) options_with_value: Vec<Text>,
    #[serde(default)]
    pub(crate) script_options: Vec<Text>,
    #[serde(default)]
    pub(crate) comments: Vec<Text>,
    #[serde(default)]
    pub(crate) backticks_run: bool,
    #[serde(default)]
    pub(crate) string_prefixes: bool,
    #[serde(default)]
    pub(crate) quote_operators: bool,
    #[serde(default)]
    pub(crate) shell_calls: Vec<Text>,
    #[serde(default)]
    pub(crate) delete_tree_calls: Vec<Text>,
    #[serde(default)]
    pub(crate) delete_calls: Vec<Text>,
    pub(crate) recursive_flag: Option<Text>,
}

/// The names every language's code is read for.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct CodeNames {
    #[serde(default)]
    pub(crate) read_calls: Vec<Text>,
    #[serde(default)]
    pub(crate) network_names: Vec<Text>,
    #[serde(default)]
    pub(crate) socket_names: Vec<Text>,
    #[serde(default)]
    pub(crate) fork_names: Vec<Text>,
    /// Expressions that name the user's home directory (`os.homedir()`, `Path.home()`),
    /// written without spaces: a delete of one of them is a delete of `~`.
    #[serde(default)]
    pub(crate) home_expressions: Vec<Text>,
}

/// What a piece of interpreter code does that the guard judges.
#[derive(Debug, PartialEq)]
pub(crate) enum Action {
    /// Runs this shell command text.
    Shell(String),
    /// Runs this program with these arguments.
    Argv(Vec<String>),
    /// Forks in an endless loop.
    ForkBomb,
    /// Connects a socket and runs a shell.
    ReverseShell,
    /// Reads a credential file and talks to the network (the file named).
    Exfiltration(String),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    /// An identifier with its dotted (`a.b`, `A::B`, `$o->m`) qualifiers.
    Name(&'a str),
    /// A string literal, escapes kept as written.
    Str(Cow<'a, str>),
    /// A backtick or `qx`/`%x` literal that the language runs as a shell command.
    Run(Cow<'a, str>),
    Num(&'a str),
    Punct(u8),
}

/// Reads `code` as `lang` and lists what it runs. `is_credential` says whether a string
/// names a credential file; `shells` are the shell program names.
pub(crate) fn actions(
    code: &str,
    lang: &LanguageRaw,
    names: &CodeNames,
    is_credential: &dyn Fn(&str) -> bool,
    shells: &[Text],
) -> Vec<Action> {
    let toks = tokenize(code, lang);
    let aliases = import_aliases(&toks);
    let mut out = Vec::new();
    let mut runs_shell = false;
    let mut credential: Option<String> = None;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Run(text) => {
                runs_shell |= starts_shell(text, shells);
                out.push(Action::Shell(text.to_string()));
            }
            Tok::Name(name) => {
                // `getattr(os, 'system')(...)` calls `system`.
                let (name, call) = match getattr_call(&toks, i) {
                    Some((attribute, after)) => (Cow::Borrowed(attribute), call_args(&toks, after)),
                    None => (resolve(name, &aliases), call_args(&toks, i + 1)),
                };
                let name: &str = &name;
                if let Some(call) = call {
                    if listed(name, &lang.shell_calls) {
                        if let Some(action) = shell_action(&call) {
                            runs_shell |= match &action {
                                Action::Shell(text) => starts_shell(text, shells),
                                Action::Argv(argv) => argv
                                    .first()
                                    .is_some_and(|p| shells.iter().any(|s| s == basename(p))),
                                _ => false,
                            };
                            out.push(action);
                        }
                    } else if listed(name, &lang.delete_tree_calls) {
                        if let Some(path) = call.path(names) {
                            out.push(delete(path, true));
                        }
                    } else if listed(name, &lang.delete_calls) {
                        if let Some(path) = call.path(names) {
                            let recursive = lang
                                .recursive_flag
                                .as_deref()
                                .is_some_and(|flag| call.names.contains(&flag));
                            out.push(delete(path, recursive));
                        }
                    } else if credential.is_none() && listed(name, &names.read_calls) {
                        credential = call
                            .strs
                            .iter()
                            .find(|s| is_credential(s))
                            .map(|s| s.to_string());
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    let has_name = |list: &[Text]| {
        toks.iter()
            .any(|t| matches!(t, Tok::Name(n) if mentions(n, list)))
    };
    if runs_shell && has_name(&names.socket_names) {
        out.push(Action::ReverseShell);
    }
    if let Some(file) = credential
        && has_name(&names.network_names)
    {
        out.push(Action::Exfiltration(file));
    }
    if has_name(&names.fork_names) && endless_loop(&toks) {
        out.push(Action::ForkBomb);
    }
    out
}

/// The names an import binds to a module or one of its members: `import subprocess as sp`
/// (`sp` is `subprocess`), `from subprocess import call` (`call` is `subprocess.call`),
/// `from os import system as run`.
fn import_aliases<'a>(toks: &[Tok<'a>]) -> Vec<(&'a str, String)> {
    let mut aliases = Vec::new();
    let name = |i: usize| match toks.get(i) {
        Some(Tok::Name(n)) => Some(*n),
        _ => None,
    };
    let mut i = 0;
    while i < toks.len() {
        match (name(i), name(i + 1), name(i + 2), name(i + 3)) {
            (Some("import"), Some(module), Some("as"), Some(alias)) => {
                aliases.push((alias, module.to_owned()));
                i += 4;
                continue;
            }
            (Some("from"), Some(module), Some("import"), _) => {
                let mut j = i + 3;
                while let Some(member) = name(j) {
                    match (name(j + 1), name(j + 2)) {
                        (Some("as"), Some(alias)) => {
                            aliases.push((alias, format!("{module}.{member}")));
                            j += 3;
                        }
                        _ => {
                            aliases.push((member, format!("{module}.{member}")));
                            j += 1;
                        }
                    }
                    if matches!(toks.get(j), Some(Tok::Punct(b','))) {
                        j += 1;
                    }
                }
                i = j.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    aliases
}

/// `name` with an import alias at its start replaced by what it stands for.
fn resolve<'n>(name: &'n str, aliases: &[(&str, String)]) -> Cow<'n, str> {
    for (alias, target) in aliases {
        if name == *alias {
            return Cow::Owned(target.clone());
        }
        if let Some(rest) = name.strip_prefix(alias)
            && rest.starts_with('.')
        {
            return Cow::Owned(format!("{target}{rest}"));
        }
    }
    Cow::Borrowed(name)
}

/// At `getattr(obj, 'attr')` followed by a call: the attribute's name and where the call's
/// arguments start.
fn getattr_call<'t>(toks: &'t [Tok<'_>], at: usize) -> Option<(&'t str, usize)> {
    if !matches!(toks.get(at), Some(Tok::Name("getattr"))) {
        return None;
    }
    if !matches!(toks.get(at + 1), Some(Tok::Punct(b'('))) {
        return None;
    }
    let mut depth = 0usize;
    let mut attribute = None;
    for (j, tok) in toks.iter().enumerate().skip(at + 1) {
        match tok {
            Tok::Punct(b'(') => depth += 1,
            Tok::Punct(b')') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let next = matches!(toks.get(j + 1), Some(Tok::Punct(b'(')));
                    return attribute.filter(|_| next).map(|a| (a, j + 1));
                }
            }
            Tok::Str(text) if depth == 1 => attribute = Some(text.as_ref()),
            _ => {}
        }
    }
    None
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether a shell command text starts by running one of `shells`.
fn starts_shell(text: &str, shells: &[Text]) -> bool {
    text.split_whitespace()
        .next()
        .is_some_and(|p| shells.iter().any(|s| s == basename(p)))
}

fn delete(path: &str, recursive: bool) -> Action {
    let flags = if recursive { "-rf" } else { "-f" };
    Action::Argv(vec![
        "rm".to_owned(),
        flags.to_owned(),
        "--".to_owned(),
        path.to_owned(),
    ])
}

/// A single string (or one with spaces first) is a command text; several strings are an
/// argv (`subprocess.run(["rm", "-rf", "/"])`, `system("rm", "-rf", "/")`).
fn shell_action(call: &Call<'_>) -> Option<Action> {
    if let Some(first) = call.first_str
        && (call.strs.len() == 1 || first.contains(char::is_whitespace))
    {
        return Some(Action::Shell(first.to_owned()));
    }
    if call.strs.is_empty() {
        return None;
    }
    Some(Action::Argv(
        call.strs.iter().map(|s| s.to_string()).collect(),
    ))
}

/// A call's arguments as far as the guard reads them.
struct Call<'t> {
    /// The first argument, when it is one string literal.
    first_str: Option<&'t str>,
    /// Every string literal inside the call, in order.
    strs: Vec<&'t str>,
    /// Every name inside the call.
    names: Vec<&'t str>,
    /// The first argument's tokens as text without spaces (`os.path.expanduser('~')`).
    first_text: String,
}

impl<'t> Call<'t> {
    /// The path the first argument names: a string literal, or `~` for an expression of
    /// the home directory.
    fn path(&self, names: &CodeNames) -> Option<&'t str> {
        self.first_str.or_else(|| {
            names
                .home_expressions
                .iter()
                .any(|expression| *expression == *self.first_text)
                .then_some("~")
        })
    }
}

/// The arguments of a call whose name ends just before `at`: `(…)`, or (Ruby, Perl, and
/// JavaScript tagged templates) string literals straight after the name.
fn call_args<'t>(toks: &'t [Tok<'_>], at: usize) -> Option<Call<'t>> {
    let mut call = Call {
        first_str: None,
        strs: Vec::new(),
        names: Vec::new(),
        first_text: String::new(),
    };
    match toks.get(at)? {
        // `exec sprintf("...", ...)`: the text is the inner call's.
        Tok::Name(_) if toks.get(at + 1) == Some(&Tok::Punct(b'(')) => {
            return call_args(toks, at + 1);
        }
        Tok::Punct(b'(') => {
            let mut depth = 0usize;
            let mut arg_index = 0;
            let mut first_arg_tokens = 0;
            let mut first: Option<&str> = None;
            for tok in &toks[at..] {
                // The call's own parentheses and commas are not part of its first argument.
                let inside = match tok {
                    Tok::Punct(b'(' | b'[' | b'{') => depth >= 1,
                    Tok::Punct(b')' | b']' | b'}' | b',') => depth >= 2,
                    _ => depth >= 1,
                };
                if arg_index == 0 && inside {
                    match tok {
                        Tok::Name(n) | Tok::Num(n) => call.first_text.push_str(n),
                        Tok::Str(s) => {
                            call.first_text.push('\'');
                            call.first_text.push_str(s);
                            call.first_text.push('\'');
                        }
                        Tok::Punct(c) if *c != b'\n' => call.first_text.push(char::from(*c)),
                        _ => {}
                    }
                }
                match tok {
                    Tok::Punct(b'(' | b'[' | b'{') => {
                        depth += 1;
                        if depth > 1 && arg_index == 0 {
                            first_arg_tokens += 1;
                        }
                        continue;
                    }
                    Tok::Punct(b')' | b']' | b'}') => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    Tok::Punct(b',') if depth == 1 => {
                        arg_index += 1;
                        continue;
                    }
                    Tok::Punct(b'\n') => continue,
                    Tok::Str(s) => {
                        call.strs.push(s);
                        if arg_index == 0 && depth == 1 {
                            first = Some(s);
                        }
                    }
                    Tok::Name(n) => call.names.push(n),
                    _ => {}
                }
                if arg_index == 0 {
                    first_arg_tokens += 1;
                }
            }
            if first_arg_tokens == 1 {
                call.first_str = first;
            }
        }
        Tok::Str(_) | Tok::Run(_) => {
            let mut expect_str = true;
            for tok in &toks[at..] {
                match tok {
                    Tok::Str(s) | Tok::Run(s) if expect_str => {
                        call.strs.push(s);
                        expect_str = false;
                    }
                    Tok::Punct(b',') if !expect_str => expect_str = true,
                    _ => break,
                }
            }
            call.first_str = call.strs.first().copied();
        }
        _ => return None,
    }
    Some(call)
}

/// Whether a call name is one of `list`: equal, or ending in `.<name>`, `::<name>`,
/// `-><name>` (a listed name with qualifiers must match them too).
fn listed(name: &str, list: &[Text]) -> bool {
    list.iter().any(|entry| ends_with_part(name, entry))
}

fn ends_with_part(name: &str, part: &str) -> bool {
    let Some(head) = name.strip_suffix(part) else {
        return false;
    };
    head.is_empty() || head.ends_with('.') || head.ends_with("::") || head.ends_with("->")
}

/// Whether a name mentions one of `list` as a whole part (`requests.post` mentions
/// `requests`; `os.fork` mentions `fork`).
fn mentions(name: &str, list: &[Text]) -> bool {
    list.iter().any(|entry| {
        ends_with_part(name, entry)
            || name.strip_prefix(entry.as_str()).is_some_and(|rest| {
                rest.starts_with('.') || rest.starts_with("::") || rest.starts_with("->")
            })
    })
}

/// `while 1`, `while True`, `while(true)`, `while fork`, `loop`, `for(;;)`.
fn endless_loop(toks: &[Tok<'_>]) -> bool {
    toks.iter().enumerate().any(|(i, tok)| match tok {
        Tok::Name("while") | Tok::Name("until") => {
            let mut next = toks[i + 1..]
                .iter()
                .filter(|t| !matches!(t, Tok::Punct(b'(')));
            match next.next() {
                Some(Tok::Num(n)) => *n != "0",
                Some(Tok::Name(n)) => {
                    matches!(*n, "True" | "true" | "fork") || n.ends_with(".fork")
                }
                Some(Tok::Punct(b':')) => true,
                _ => false,
            }
        }
        Tok::Name("loop") => true,
        // Python's endless iterables: `for _ in iter(int, 1)`, `itertools.count()`.
        Tok::Name("iter") => matches!(
            (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)),
            (
                Some(Tok::Punct(b'(')),
                Some(Tok::Name("int")),
                Some(Tok::Punct(b','))
            )
        ),
        Tok::Name("itertools.count" | "count") => {
            matches!(toks.get(i + 1), Some(Tok::Punct(b'(')))
                && i.checked_sub(1)
                    .and_then(|p| toks.get(p))
                    .is_some_and(|t| matches!(t, Tok::Name("in")))
        }
        Tok::Name("for") => matches!(
            (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)),
            (
                Some(Tok::Punct(b'(')),
                Some(Tok::Punct(b';')),
                Some(Tok::Punct(b';'))
            )
        ),
        _ => false,
    })
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'@'
}

fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

fn tokenize<'a>(code: &'a str, lang: &LanguageRaw) -> Vec<Tok<'a>> {
    let src = code.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while let Some(&c) = src.get(i) {
        if c == b'\n' {
            toks.push(Tok::Punct(b'\n'));
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if lang
            .comments
            .iter()
            .any(|m| src[i..].starts_with(m.as_bytes()))
        {
            i += src[i..]
                .iter()
                .position(|&b| b == b'\n')
                .unwrap_or(src.len() - i);
            continue;
        }
        match c {
            b'\'' | b'"' => {
                let (text, end) = string_literal(code, i, lang.string_prefixes);
                toks.push(Tok::Str(text));
                i = end;
            }
            b'`' => {
                let (text, end) = delimited(code, i + 1, b'`');
                toks.push(if lang.backticks_run {
                    Tok::Run(text)
                } else {
                    Tok::Str(text)
                });
                i = end;
            }
            b'%' if lang.quote_operators
                && matches!(src.get(i + 1), Some(b'x' | b'q' | b'Q' | b'w'))
                && src.get(i + 2).is_some_and(|d| is_open_delimiter(*d)) =>
            {
                let runs = src.get(i + 1) == Some(&b'x');
                let (text, end) = quote_operator(code, i + 2);
                toks.push(if runs { Tok::Run(text) } else { Tok::Str(text) });
                i = end;
            }
            c if is_name_start(c) => {
                let start = i;
                i = name_end(src, start);
                let name = &code[start..i];
                let next = src.get(i).copied();
                if lang.string_prefixes
                    && name.len() <= 2
                    && name.bytes().all(|b| b"rbfuRBFU".contains(&b))
                    && matches!(next, Some(b'\'' | b'"'))
                {
                    continue;
                }
                if lang.quote_operators
                    && matches!(name, "q" | "qq" | "qx" | "qw")
                    && next.is_some_and(is_open_delimiter)
                {
                    let (text, end) = quote_operator(code, i);
                    toks.push(if name == "qx" {
                        Tok::Run(text)
                    } else {
                        Tok::Str(text)
                    });
                    i = end;
                    continue;
                }
                toks.push(Tok::Name(name));
            }
            c if c.is_ascii_digit() => {
                let start = i;
                while src
                    .get(i)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'.')
                {
                    i += 1;
                }
                toks.push(Tok::Num(&code[start..i]));
            }
            _ => {
                toks.push(Tok::Punct(c));
                i += 1;
            }
        }
    }
    toks
}

/// Where the name starting at `start` ends: parts joined by `.`, `::` or `->` (`os.system`,
/// `File::open`, `$obj->run`) are one name.
fn name_end(src: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    loop {
        while src.get(i).is_some_and(|&b| is_name_byte(b)) {
            i += 1;
        }
        let joiner = if src.get(i) == Some(&b'.') {
            1
        } else if src[i..].starts_with(b"::") || src[i..].starts_with(b"->") {
            2
        } else {
            0
        };
        if joiner > 0 && src.get(i + joiner).is_some_and(|&b| is_name_start(b)) {
            i += joiner;
        } else {
            return i;
        }
    }
}

fn is_open_delimiter(c: u8) -> bool {
    matches!(c, b'{' | b'(' | b'[' | b'<' | b'|' | b'/' | b'!' | b'#')
}

/// A `q{...}`-style literal starting at its delimiter; brackets nest.
fn quote_operator(code: &str, open_at: usize) -> (Cow<'_, str>, usize) {
    let src = code.as_bytes();
    let open = src[open_at];
    let close = match open {
        b'{' => b'}',
        b'(' => b')',
        b'[' => b']',
        b'<' => b'>',
        other => other,
    };
    let mut depth = 0usize;
    let mut i = open_at + 1;
    while let Some(&c) = src.get(i) {
        if c == b'\\' {
            i += 2;
            continue;
        }
        if c == open && open != close {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return (slice(code, open_at + 1, i), i + 1);
            }
            depth -= 1;
        }
        i += 1;
    }
    (slice(code, open_at + 1, src.len()), src.len())
}

/// A quoted string starting at `start` (Python triple quotes too). Common escapes are
/// resolved so that `"rm -rf \"/\""` reads as the command it runs.
fn string_literal(code: &str, start: usize, triple_quotes: bool) -> (Cow<'_, str>, usize) {
    let src = code.as_bytes();
    let quote = src[start];
    if triple_quotes && src[start..].starts_with(&[quote, quote, quote]) {
        let body = start + 3;
        let close = code[body..]
            .find(std::str::from_utf8(&[quote, quote, quote]).unwrap_or("'''"))
            .map_or(src.len(), |p| body + p);
        return (slice(code, body, close), (close + 3).min(src.len()));
    }
    delimited(code, start + 1, quote)
}

/// Text from `body` up to the unescaped `close` byte, and the index after it.
fn delimited(code: &str, body: usize, close: u8) -> (Cow<'_, str>, usize) {
    let src = code.as_bytes();
    let mut i = body;
    let mut escaped = false;
    while let Some(&c) = src.get(i) {
        if c == b'\\' {
            escaped = true;
            i += 2;
            continue;
        }
        if c == close {
            break;
        }
        i += 1;
    }
    let end = i.min(src.len());
    let text = slice(code, body, end);
    let text = if escaped {
        Cow::Owned(unescape(&text))
    } else {
        text
    };
    (text, (end + 1).min(src.len()))
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn slice(code: &str, start: usize, end: usize) -> Cow<'_, str> {
    let end = end.min(code.len());
    match code.get(start.min(end)..end) {
        Some(text) => Cow::Borrowed(text),
        None => String::from_utf8_lossy(&code.as_bytes()[start.min(end)..end]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn python() -> LanguageRaw {
        LanguageRaw {
            comments: vec!["#".into()],
            string_prefixes: true,
            shell_calls: vec!["os.system".into(), "subprocess.run".into()],
            delete_tree_calls: vec!["shutil.rmtree".into()],
            ..LanguageRaw::default()
        }
    }

    fn run(code: &str) -> Vec<Action> {
        let names = CodeNames {
            fork_names: vec!["fork".into()],
            ..CodeNames::default()
        };
        actions(code, &python(), &names, &|_| false, &["sh".into()])
    }

    #[test]
    fn shell_calls_become_commands() {
        assert_eq!(
            run("import os; os.system('rm -rf /')"),
            vec![Action::Shell("rm -rf /".into())]
        );
        assert_eq!(
            run("subprocess.run([\"rm\", \"-rf\", \"/\"], check=True)"),
            vec![Action::Argv(vec!["rm".into(), "-rf".into(), "/".into()])]
        );
    }

    #[test]
    fn a_delete_of_the_home_directory_is_a_delete_of_tilde() {
        let names = CodeNames {
            home_expressions: vec!["os.path.expanduser('~')".into(), "Path.home()".into()],
            ..CodeNames::default()
        };
        let lang = python();
        let run = |code: &str| actions(code, &lang, &names, &|_| false, &[]);
        let home = vec![Action::Argv(
            ["rm", "-rf", "--", "~"].map(String::from).to_vec(),
        )];
        assert_eq!(run("shutil.rmtree(os.path.expanduser('~'))"), home);
        assert_eq!(run("shutil.rmtree(Path.home(), ignore_errors=True)"), home);
        assert_eq!(run("shutil.rmtree(Path.home() / 'build')"), vec![]);
        assert_eq!(run("shutil.rmtree(os.path.expanduser('~/cache'))"), vec![]);
    }

    #[test]
    fn forks_over_endless_iterables_are_fork_bombs() {
        let names = CodeNames {
            fork_names: vec!["os.fork".into()],
            ..CodeNames::default()
        };
        let lang = python();
        let run = |code: &str| actions(code, &lang, &names, &|_| false, &[]);
        assert_eq!(
            run("import os; [os.fork() for _ in iter(int, 1)]"),
            vec![Action::ForkBomb]
        );
        assert_eq!(
            run("import os, itertools\nfor _ in itertools.count(): os.fork()"),
            vec![Action::ForkBomb]
        );
        assert_eq!(run("import os; [os.fork() for _ in range(2)]"), vec![]);
        assert_eq!(run("n = list(iter(input, ''))"), vec![]);
    }

    #[test]
    fn deletes_become_rm() {
        assert_eq!(
            run("import shutil; shutil.rmtree(r'/etc')"),
            vec![Action::Argv(vec![
                "rm".into(),
                "-rf".into(),
                "--".into(),
                "/etc".into()
            ])]
        );
    }

    #[test]
    fn printing_and_comments_run_nothing() {
        assert!(run("print('os.system(\"rm -rf /\")')  # os.system('rm -rf /')").is_empty());
    }

    #[test]
    fn fork_loops_are_found() {
        assert_eq!(
            run("import os\nwhile True:\n    os.fork()"),
            vec![Action::ForkBomb]
        );
        assert!(run("import os\nif os.fork() == 0: pass").is_empty());
    }
}
