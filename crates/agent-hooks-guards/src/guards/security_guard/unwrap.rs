//! Programs that are not shells but run commands all the same — awk's `system()` and pipes,
//! sed's `e`, an editor's `!`, gdb's `shell`, git's `!` aliases and configured commands,
//! make recipes — and the filters that turn literal text into other text (`base64 -d`,
//! `rev`, `tr`, `xxd -r -p`), so that a decoded command fed to a shell is read as what it is.

use std::borrow::Cow;

use serde::Deserialize;

use crate::rules::Text;

/// Which language a runner's command line speaks (the `command_runners` table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(rename_all = "lowercase")]
pub(crate) enum Runner {
    Awk,
    Sed,
    Vim,
    Gdb,
    Git,
    Make,
}

/// What a runner runs.
#[derive(Debug, PartialEq)]
pub(crate) enum Run {
    /// This shell command text.
    Shell(String),
    /// Shell code the command line does not show (its input, a computed string).
    Unseen,
}

/// Environment variables whose value a program runs as a command (`GIT_PAGER='...' git log`).
pub(crate) const CODE_VARIABLES: &[&str] = &[
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_SEQUENCE_EDITOR",
    "GIT_ASKPASS",
    "GIT_EXTERNAL_DIFF",
    "PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "SSH_ASKPASS",
    "LESSOPEN",
    "PROMPT_COMMAND",
];

/// What `runner` with arguments `args` runs; `input` is its standard input when the text
/// shows it. `shells` names the programs that read their input as code (`print | "sh"`).
pub(crate) fn runs(
    runner: Runner,
    args: &[Cow<'_, str>],
    input: Option<&str>,
    shells: &[Text],
) -> Vec<Run> {
    match runner {
        Runner::Awk => awk(args, shells),
        Runner::Sed => sed(args, input),
        Runner::Vim => vim(args),
        Runner::Gdb => gdb(args),
        Runner::Git => git(args),
        Runner::Make => make(args, input),
    }
}

/// The value of option `word` if it is one of `names`, as `--name=value`, `-nvalue` is not
/// taken (too many programs cluster flags): `Some(None)` when the value is the next word.
fn option_value<'w>(word: &'w str, names: &[&str]) -> Option<Option<&'w str>> {
    if names.contains(&word) {
        return Some(None);
    }
    let (name, value) = word.split_once('=')?;
    names.contains(&name).then_some(Some(value))
}

/// The values of the options in `names` (`-c X`, `--eval=X`), in order.
fn option_values<'a>(args: &'a [Cow<'_, str>], names: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        match option_value(word, names) {
            Some(Some(value)) => out.push(value),
            Some(None) => {
                if let Some(value) = args.get(i + 1) {
                    out.push(value.as_ref());
                }
                i += 1;
            }
            None => {}
        }
        i += 1;
    }
    out
}

fn is_shell(command: &str, shells: &[Text]) -> bool {
    let first = command.split_whitespace().next().unwrap_or("");
    let name = first.rsplit('/').next().unwrap_or(first);
    shells.iter().any(|s| s == name)
}

/// The program text of an awk command line: the first operand, unless `-f` names a file.
fn awk_program<'a>(args: &'a [Cow<'_, str>]) -> Option<&'a str> {
    const WITH_VALUE: &[&str] = &["-F", "-v", "-i", "-l", "--field-separator", "--assign"];
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let word = word.as_ref();
        if word == "--" {
            return args.get(i + 1).map(|w| w.as_ref());
        }
        if matches!(word, "-f" | "-E" | "--file" | "--exec") || word.starts_with("--file=") {
            return None;
        }
        if !word.starts_with('-') || word == "-" {
            return Some(word);
        }
        i += if WITH_VALUE.contains(&word) { 2 } else { 1 };
    }
    None
}

/// An awk token: a string literal, a name, or one punctuation byte (`|` doubled as `||`).
#[derive(Debug, PartialEq)]
enum AwkTok {
    Str(String),
    Name(String),
    Pipe,
    Punct(u8),
}

fn awk_tokens(code: &str) -> Vec<AwkTok> {
    let bytes = code.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        match c {
            b'"' => {
                let mut text = Vec::new();
                i += 1;
                while let Some(&b) = bytes.get(i) {
                    i += 1;
                    match b {
                        b'"' => break,
                        b'\\' => {
                            let escaped = bytes.get(i).copied().unwrap_or(b'\\');
                            text.push(match escaped {
                                b'n' => b'\n',
                                b't' => b'\t',
                                other => other,
                            });
                            i += 1;
                        }
                        _ => text.push(b),
                    }
                }
                toks.push(AwkTok::Str(String::from_utf8_lossy(&text).into_owned()));
            }
            b'#' => {
                while bytes.get(i).is_some_and(|&b| b != b'\n') {
                    i += 1;
                }
            }
            b'|' if bytes.get(i + 1) == Some(&b'|') => {
                toks.push(AwkTok::Punct(b'|'));
                i += 2;
            }
            b'|' => {
                toks.push(AwkTok::Pipe);
                i += 1;
            }
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while bytes
                    .get(i)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                {
                    i += 1;
                }
                toks.push(AwkTok::Name(code[start..i].to_owned()));
            }
            _ if c.is_ascii_whitespace() => i += 1,
            _ => {
                toks.push(AwkTok::Punct(c));
                i += 1;
            }
        }
    }
    toks
}

/// `system("...")`, `print ... | "cmd"` and `"cmd" | getline` in an awk program.
fn awk(args: &[Cow<'_, str>], shells: &[Text]) -> Vec<Run> {
    let Some(program) = awk_program(args) else {
        return Vec::new();
    };
    let toks = awk_tokens(program);
    let mut out = Vec::new();
    for (i, tok) in toks.iter().enumerate() {
        match tok {
            AwkTok::Name(name) if name == "system" => {
                match (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)) {
                    (
                        Some(AwkTok::Punct(b'(')),
                        Some(AwkTok::Str(cmd)),
                        Some(AwkTok::Punct(b')')),
                    ) => {
                        out.push(Run::Shell(cmd.clone()));
                    }
                    (Some(AwkTok::Punct(b'(')), _, _) => out.push(Run::Unseen),
                    _ => {}
                }
            }
            AwkTok::Pipe => {
                let after = toks.get(i + 1);
                let before = i.checked_sub(1).and_then(|b| toks.get(b));
                if matches!(after, Some(AwkTok::Name(n)) if n == "getline") {
                    // `"cmd" | getline`: the string before the pipe runs.
                    match before {
                        Some(AwkTok::Str(cmd)) => out.push(Run::Shell(cmd.clone())),
                        _ => out.push(Run::Unseen),
                    }
                    continue;
                }
                match after {
                    Some(AwkTok::Str(cmd)) => {
                        out.push(Run::Shell(cmd.clone()));
                        if is_shell(cmd, shells) {
                            // What is printed into a shell is code: the literals of the
                            // print statement before the pipe, or code not shown.
                            let start = toks[..i]
                                .iter()
                                .rposition(|t| {
                                    matches!(t, AwkTok::Name(n) if n == "print" || n == "printf")
                                })
                                .unwrap_or(i);
                            let printed: Vec<&str> = toks[start..i]
                                .iter()
                                .filter_map(|t| match t {
                                    AwkTok::Str(s) => Some(s.as_str()),
                                    _ => None,
                                })
                                .collect();
                            let only_literals = toks[start..i].iter().skip(1).all(|t| {
                                matches!(t, AwkTok::Str(_) | AwkTok::Punct(b'(' | b')' | b','))
                            });
                            if printed.is_empty() || !only_literals {
                                out.push(Run::Unseen);
                            } else {
                                out.push(Run::Shell(printed.join(" ")));
                            }
                        }
                    }
                    Some(_) => out.push(Run::Unseen),
                    None => {}
                }
            }
            _ => {}
        }
    }
    out
}

/// The script of a sed command line: the `-e` values, or the first operand.
fn sed_scripts<'a>(args: &'a [Cow<'_, str>]) -> Vec<&'a str> {
    let mut scripts = Vec::new();
    let mut file_script = false;
    let mut first_operand = None;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let word = word.as_ref();
        i += 1;
        if word == "--" {
            first_operand = first_operand.or(args.get(i).map(|w| w.as_ref()));
            break;
        }
        if let Some(value) = word.strip_prefix("--expression=") {
            scripts.push(value);
        } else if word == "--expression" {
            scripts.extend(args.get(i).map(|w| w.as_ref()));
            i += 1;
        } else if word == "-f" || word == "--file" || word.starts_with("--file=") {
            file_script = true;
            i += usize::from(word == "-f" || word == "--file");
        } else if word == "-l" || word == "--line-length" {
            i += 1;
        } else if word.starts_with('-') && !word.starts_with("--") && word.len() > 1 {
            // A short cluster: `-ne SCRIPT`, `-e SCRIPT`, `-i.bak`.
            let flags = &word[1..];
            if flags.starts_with('i') {
                continue;
            }
            if let Some(at) = flags.find(['e', 'f']) {
                let rest = &flags[at + 1..];
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i - 1).map(|w| w.as_ref())
                } else {
                    Some(rest)
                };
                if flags.as_bytes()[at] == b'e' {
                    scripts.extend(value);
                } else {
                    file_script = true;
                }
            }
        } else if !word.starts_with('-') && first_operand.is_none() {
            first_operand = Some(word);
        }
    }
    if scripts.is_empty() && !file_script {
        scripts.extend(first_operand);
    }
    scripts
}

/// sed's `e command` (or `e` alone: the pattern space runs) and `s///e`.
fn sed(args: &[Cow<'_, str>], input: Option<&str>) -> Vec<Run> {
    let mut out = Vec::new();
    let mut runs_input = false;
    for script in sed_scripts(args) {
        let bytes = script.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            // Separators and the address (`1`, `$`, `/re/`, `1,5`, `!`).
            while let Some(&c) = bytes.get(i) {
                match c {
                    b' ' | b'\t' | b'\n' | b';' | b'{' | b'}' | b',' | b'!' | b'$' | b'~'
                    | b'+' => i += 1,
                    b'0'..=b'9' => i += 1,
                    b'/' | b'\\' => {
                        let close = if c == b'\\' {
                            i += 1;
                            bytes.get(i).copied().unwrap_or(b'/')
                        } else {
                            b'/'
                        };
                        i = delimited_end(bytes, i + 1, close);
                        while bytes.get(i).is_some_and(|b| matches!(b, b'I' | b'M')) {
                            i += 1;
                        }
                    }
                    _ => break,
                }
            }
            let Some(&command) = bytes.get(i) else { break };
            i += 1;
            let line_end = |from: usize| {
                bytes[from.min(bytes.len())..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |p| from + p)
            };
            match command {
                b'e' => {
                    let end = line_end(i);
                    let cmd = script.get(i..end).unwrap_or("").trim();
                    if cmd.is_empty() {
                        runs_input = true;
                    } else {
                        out.push(Run::Shell(cmd.to_owned()));
                    }
                    i = end;
                }
                b's' | b'y' => {
                    let Some(&delim) = bytes.get(i) else { break };
                    i = delimited_end(bytes, i + 1, delim);
                    i = delimited_end(bytes, i, delim);
                    if command == b's' {
                        while let Some(&flag) = bytes.get(i) {
                            match flag {
                                b'e' => runs_input = true,
                                b'w' | b'W' => {
                                    i = line_end(i);
                                    break;
                                }
                                b'g' | b'p' | b'i' | b'I' | b'm' | b'M' | b'0'..=b'9' => {}
                                _ => break,
                            }
                            i += 1;
                        }
                    }
                }
                b'a' | b'i' | b'c' | b'r' | b'R' | b'w' | b'W' => i = line_end(i),
                b'b' | b't' | b'T' | b':' => {
                    // A label ends at `;` or the line's end.
                    i = bytes[i.min(bytes.len())..]
                        .iter()
                        .position(|&b| b == b'\n' || b == b';')
                        .map_or(bytes.len(), |p| i + p);
                }
                _ => {}
            }
        }
    }
    if runs_input {
        match input {
            Some(text) => out.extend(
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| Run::Shell(l.to_owned())),
            ),
            None => out.push(Run::Unseen),
        }
    }
    out
}

/// The index just past the unescaped `close` at or after `from`.
fn delimited_end(bytes: &[u8], mut from: usize, close: u8) -> usize {
    while let Some(&b) = bytes.get(from) {
        from += 1;
        if b == b'\\' {
            from += 1;
        } else if b == close {
            break;
        }
    }
    from.min(bytes.len())
}

/// A vim ex command that runs a shell command: `!cmd`, `r !cmd`, `w !cmd`, `terminal cmd`,
/// and `system('...')` in an expression.
fn ex_command(command: &str, out: &mut Vec<Run>) {
    let mut text = command.trim_start_matches([':', ' ', '\t']);
    for prefix in ["silent!", "silent", "sil!", "sil", "exe", "execute"] {
        if let Some(rest) = text.strip_prefix(prefix)
            && rest.starts_with([' ', '!'])
        {
            text = rest.trim_start_matches([':', ' ', '\t']);
        }
    }
    if let Some(rest) = text.strip_prefix('!') {
        out.push(Run::Shell(rest.to_owned()));
        return;
    }
    let word_end = text
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let (name, rest) = text.split_at(word_end);
    let rest_trimmed = rest.trim_start();
    if matches!(
        name,
        "r" | "re" | "rea" | "read" | "w" | "wr" | "wri" | "writ" | "write"
    ) && let Some(cmd) = rest_trimmed.strip_prefix('!')
        && (name.starts_with('r') || rest.starts_with(' '))
    {
        out.push(Run::Shell(cmd.to_owned()));
        return;
    }
    if matches!(
        name,
        "ter" | "term" | "termi" | "termin" | "termina" | "terminal"
    ) {
        out.push(Run::Shell(rest_trimmed.to_owned()));
        return;
    }
    let mut search = text;
    while let Some(at) = search.find("system") {
        let after = search[at + 6..].trim_start_matches("list").trim_start();
        search = &search[at + 6..];
        let Some(arg) = after.strip_prefix('(') else {
            continue;
        };
        let arg = arg.trim_start();
        match arg.chars().next() {
            Some(quote @ ('\'' | '"')) => match arg[1..].find(quote) {
                Some(end) => out.push(Run::Shell(arg[1..1 + end].to_owned())),
                None => out.push(Run::Unseen),
            },
            _ => out.push(Run::Unseen),
        }
    }
}

fn vim(args: &[Cow<'_, str>]) -> Vec<Run> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let word = word.as_ref();
        if matches!(word, "-c" | "--cmd") {
            if let Some(command) = args.get(i + 1) {
                ex_command(command, &mut out);
            }
            i += 1;
        } else if let Some(command) = word.strip_prefix('+')
            && !command.is_empty()
            && !command.bytes().all(|b| b.is_ascii_digit())
            && !command.starts_with('/')
        {
            ex_command(command, &mut out);
        }
        i += 1;
    }
    out
}

fn gdb(args: &[Cow<'_, str>]) -> Vec<Run> {
    const COMMANDS: &[&str] = &[
        "-ex",
        "--ex",
        "-eval-command",
        "--eval-command",
        "-iex",
        "--iex",
        "-init-eval-command",
        "--init-eval-command",
    ];
    let mut out = Vec::new();
    for command in option_values(args, COMMANDS) {
        let command = command.trim_start();
        if let Some(rest) = command.strip_prefix('!') {
            out.push(Run::Shell(rest.to_owned()));
        } else if let Some(rest) = command.strip_prefix("shell ") {
            out.push(Run::Shell(rest.to_owned()));
        } else if let Some(rest) = command.strip_prefix("pipe ")
            && let Some((_, shell)) = rest.split_once('|')
        {
            out.push(Run::Shell(shell.to_owned()));
        }
    }
    out
}

/// Whether git runs the value of configuration key `key` (lower-cased) as a command.
fn git_runs_key(key: &str) -> bool {
    const KEYS: &[&str] = &[
        "core.pager",
        "core.sshcommand",
        "core.editor",
        "sequence.editor",
        "core.fsmonitor",
        "core.askpass",
        "core.gitproxy",
        "diff.external",
        "gpg.program",
        "gpg.ssh.program",
        "uploadpack.packobjectshook",
        "credential.helper",
    ];
    if KEYS.contains(&key) || key.starts_with("pager.") {
        return true;
    }
    let Some((section, rest)) = key.split_once('.') else {
        return false;
    };
    let last = rest.rsplit('.').next().unwrap_or(rest);
    matches!(
        (section, last),
        ("filter", "clean" | "smudge" | "process")
            | ("diff", "textconv" | "command")
            | ("merge", "driver")
            | ("remote", "uploadpack" | "receivepack")
    )
}

/// `git -c alias.x='!cmd' x`, `git -c core.pager='cmd' log`, and the like.
fn git(args: &[Cow<'_, str>]) -> Vec<Run> {
    const GLOBAL_WITH_VALUE: &[&str] = &[
        "-C",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--exec-path",
        "--super-prefix",
        "--config-env",
    ];
    let mut config: Vec<(String, &str)> = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let word = word.as_ref();
        if word == "-c" {
            if let Some((key, value)) = args.get(i + 1).and_then(|kv| kv.split_once('=')) {
                config.push((key.to_ascii_lowercase(), value));
            }
            i += 2;
        } else if GLOBAL_WITH_VALUE.contains(&word) {
            i += 2;
        } else if word.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    if config.is_empty() {
        return Vec::new();
    }
    let sub = args.get(i).map(|w| w.as_ref());
    let rest: Vec<String> = args
        .get(i + 1..)
        .unwrap_or(&[])
        .iter()
        .map(|w| w.to_string())
        .collect();
    let mut out = Vec::new();
    for (key, value) in &config {
        if let Some(alias) = key.strip_prefix("alias.") {
            if Some(alias) != sub.map(str::to_ascii_lowercase).as_deref() {
                continue;
            }
            let mut text = match value.strip_prefix('!') {
                Some(shell) => shell.to_owned(),
                None => format!("git {value}"),
            };
            if !rest.is_empty() {
                text.push(' ');
                text.push_str(&crate::shell::quote_words(&rest));
            }
            out.push(Run::Shell(text));
        } else if git_runs_key(key) {
            let value = value.strip_prefix('!').unwrap_or(value);
            let is_flag = matches!(
                value.to_ascii_lowercase().as_str(),
                "" | "true" | "false" | "yes" | "no" | "on" | "off" | "0" | "1"
            );
            if !is_flag {
                out.push(Run::Shell(value.to_owned()));
            }
        }
    }
    out
}

/// The recipes of makefile text and its `$(shell ...)` calls, as shell commands.
fn makefile_commands(text: &str, out: &mut Vec<Run>) {
    let unescape = |line: &str| line.replace("$$", "$");
    for line in text.lines() {
        if let Some(recipe) = line.strip_prefix('\t') {
            let recipe = recipe.trim_start_matches(['@', '-', '+', ' ']);
            if !recipe.trim().is_empty() {
                out.push(Run::Shell(unescape(recipe)));
            }
        } else if let Some((head, recipe)) = line.split_once(';')
            && head.contains(':')
            && !head.contains('=')
        {
            let recipe = recipe.trim_start_matches(['@', '-', '+', ' ']);
            if !recipe.trim().is_empty() {
                out.push(Run::Shell(unescape(recipe)));
            }
        }
        let mut search = line;
        while let Some(at) = search.find("$(shell ") {
            let inner = &search[at + 8..];
            let end = inner.find(')').unwrap_or(inner.len());
            out.push(Run::Shell(unescape(&inner[..end])));
            search = &inner[end..];
        }
    }
}

fn make(args: &[Cow<'_, str>], input: Option<&str>) -> Vec<Run> {
    const STDIN: &[&str] = &["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];
    let mut out = Vec::new();
    for file in option_values(args, &["-f", "--file", "--makefile"]) {
        if STDIN.contains(&file) {
            match input {
                Some(text) => makefile_commands(text, &mut out),
                None => out.push(Run::Unseen),
            }
        }
    }
    for word in args {
        if let Some(file) = word.strip_prefix("-f")
            && STDIN.contains(&file)
        {
            match input {
                Some(text) => makefile_commands(text, &mut out),
                None => out.push(Run::Unseen),
            }
        }
    }
    for text in option_values(args, &["--eval", "-E"]) {
        makefile_commands(text, &mut out);
    }
    out
}

/// What a filter makes of its input, when it is one the guard reads.
#[derive(Debug, PartialEq)]
pub(crate) enum Filtered {
    /// Not a filter the guard knows.
    No,
    /// A decoder whose output is not known (its input is not shown, or is not text).
    Unknown,
    /// The output.
    Text(String),
}

/// The output of `program args` given `input` (`None`: not shown), for the decoders and
/// text filters an obfuscated command goes through.
pub(crate) fn filter(program: &str, args: &[Cow<'_, str>], input: Option<&str>) -> Filtered {
    let has = |flags: &[&str]| args.iter().any(|a| flags.contains(&a.as_ref()));
    let operands = || args.iter().filter(|a| !a.starts_with('-')).count();
    let decoded = |bytes: Option<Vec<u8>>| match bytes.and_then(|b| String::from_utf8(b).ok()) {
        Some(text) => Filtered::Text(text),
        None => Filtered::Unknown,
    };
    match program {
        "base64" | "basenc" | "openssl" | "gbase64" => {
            let decodes = has(&["-d", "--decode", "-D"])
                || args.iter().any(|a| {
                    a.starts_with('-') && !a.starts_with("--") && a.len() > 2 && a.contains('d')
                });
            // `openssl base64 -d` and `openssl enc -d -base64`.
            let openssl_ok = program != "openssl"
                || (args.first().is_some_and(|a| a == "base64" || a == "enc")
                    && has(&["base64", "-base64", "-a"]));
            if !decodes || !openssl_ok {
                return Filtered::No;
            }
            let file_operands = if program == "openssl" { 1 } else { 0 };
            if operands() > file_operands && !has(&["-"]) {
                return Filtered::Unknown;
            }
            decoded(input.and_then(base64_decode))
        }
        "xxd" if has(&["-r"]) || args.iter().any(|a| a == "-rp" || a == "-pr") => {
            let plain = has(&["-p", "-ps", "-plain", "-rp", "-pr", "-postscript"]);
            if !plain || operands() > 0 {
                return Filtered::Unknown;
            }
            decoded(input.and_then(hex_decode))
        }
        "rev" if operands() == 0 => match input {
            Some(text) => Filtered::Text(
                text.lines()
                    .map(|l| l.chars().rev().collect::<String>())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            None => Filtered::Unknown,
        },
        "tr" => {
            let sets: Vec<&str> = args
                .iter()
                .filter(|a| !a.starts_with('-') || a.len() == 1)
                .map(|a| a.as_ref())
                .collect();
            let flags: String = args
                .iter()
                .filter(|a| a.starts_with('-') && a.len() > 1)
                .flat_map(|a| a.chars().skip(1))
                .collect();
            if flags.contains('c') || flags.contains('C') {
                return Filtered::Unknown;
            }
            let Some(text) = input else {
                return Filtered::Unknown;
            };
            let (Some(from), Some(to)) = (
                tr_set(sets.first().copied().unwrap_or("")),
                tr_set(sets.get(1).copied().unwrap_or("")),
            ) else {
                return Filtered::Unknown;
            };
            if flags.contains('d') {
                return Filtered::Text(text.chars().filter(|c| !from.contains(c)).collect());
            }
            let Some(&last) = to.last() else {
                return Filtered::Unknown;
            };
            Filtered::Text(
                text.chars()
                    .map(|c| match from.iter().rposition(|f| *f == c) {
                        Some(at) => to.get(at).copied().unwrap_or(last),
                        None => c,
                    })
                    .collect(),
            )
        }
        "cat" if args.iter().all(|a| a == "-") => match input {
            Some(text) => Filtered::Text(text.to_owned()),
            None => Filtered::No,
        },
        "gunzip" | "zcat" | "gzip" | "bunzip2" | "xz" | "unxz" | "zstd"
            if program != "gzip" || has(&["-d", "--decompress"]) =>
        {
            Filtered::Unknown
        }
        _ => Filtered::No,
    }
}

/// How many characters a `tr` set may hold before the guard stops reading it: a set is
/// searched for every input character.
const MAX_TR_SET: usize = 512;

/// A `tr` set with its ranges (`a-z`), classes (`[:lower:]`) and escapes expanded; `None`
/// past [`MAX_TR_SET`] characters (the output is then unknown, which asks before a shell).
fn tr_set(spec: &str) -> Option<Vec<char>> {
    const CLASSES: &[(&str, &str)] = &[
        ("[:lower:]", "abcdefghijklmnopqrstuvwxyz"),
        ("[:upper:]", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
        ("[:digit:]", "0123456789"),
        ("[:space:]", " \t\n\r\x0b\x0c"),
        ("[:blank:]", " \t"),
    ];
    let mut out = Vec::new();
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '[' {
            let rest: String = chars[i..].iter().collect();
            if let Some((class, members)) = CLASSES.iter().find(|(c, _)| rest.starts_with(c)) {
                out.extend(members.chars());
                i += class.len();
                continue;
            }
        }
        let c = match chars[i] {
            '\\' => {
                i += 1;
                match chars.get(i) {
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some(&other) => other,
                    None => '\\',
                }
            }
            other => other,
        };
        if chars.get(i + 1) == Some(&'-')
            && let Some(&end) = chars.get(i + 2)
            && end >= c
        {
            if (end as usize).saturating_sub(c as usize) > MAX_TR_SET {
                return None;
            }
            out.extend(c..=end);
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
        if out.len() > MAX_TR_SET {
            return None;
        }
    }
    Some(out)
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for b in text.bytes() {
        let value = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn hex_decode(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|b| char::from(b).to_digit(16).map(|d| d as u8))
        .collect::<Option<_>>()?;
    Some(
        digits
            .chunks(2)
            .map(|p| (p[0] << 4) | p.get(1).copied().unwrap_or(0))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &[&str]) -> Vec<Cow<'static, str>> {
        text.iter().map(|w| Cow::Owned((*w).to_owned())).collect()
    }

    fn shells() -> Vec<Text> {
        vec!["sh".into(), "bash".into()]
    }

    #[test]
    fn awk_system_and_pipes_run_their_strings() {
        let run = |program: &str| awk(&words(&[program]), &shells());
        assert_eq!(
            run(r#"BEGIN{system("rm -rf /")}"#),
            vec![Run::Shell("rm -rf /".into())]
        );
        assert_eq!(
            run(r#"BEGIN{print "rm -rf /" | "sh"}"#),
            vec![Run::Shell("sh".into()), Run::Shell("rm -rf /".into())]
        );
        assert_eq!(run(r#"{system($0)}"#), vec![Run::Unseen]);
        assert!(run("{print $1 || $2}").is_empty());
    }

    #[test]
    fn sed_e_runs_its_command_or_its_input() {
        assert_eq!(
            sed(&words(&["1e rm -rf /"]), None),
            vec![Run::Shell("rm -rf /".into())]
        );
        assert_eq!(
            sed(&words(&["s/.*/&/e"]), Some("rm -rf /\n")),
            vec![Run::Shell("rm -rf /".into())]
        );
        assert!(sed(&words(&["-e", "s/e/x/g", "notes.txt"]), None).is_empty());
        assert!(sed(&words(&["-n", "/e/p", "file"]), None).is_empty());
        assert!(sed(&words(&["-i", "s/a/b/", "file"]), None).is_empty());
    }

    #[test]
    fn decoders_decode_literal_input() {
        assert_eq!(
            filter("base64", &words(&["-d"]), Some("cm0gLXJmIC8=\n")),
            Filtered::Text("rm -rf /".into())
        );
        assert_eq!(
            filter("tr", &words(&["a-z", "n-za-m"]), Some("ez -es /")),
            Filtered::Text("rm -rf /".into())
        );
        assert_eq!(
            filter("xxd", &words(&["-r", "-p"]), Some("726d202d7266202f")),
            Filtered::Text("rm -rf /".into())
        );
        assert_eq!(
            filter("base64", &words(&["-d", "f.b64"]), None),
            Filtered::Unknown
        );
        assert_eq!(filter("base64", &words(&[]), Some("x")), Filtered::No);
    }
}
