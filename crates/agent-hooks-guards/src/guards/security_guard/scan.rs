//! Walking a command text: every simple command where a program runs is matched against
//! the rule packs, and code that runs inside it is walked too — `$(...)`, `bash -c`,
//! `source <(...)`, `trap`, heredocs and piped text fed to a shell or an interpreter
//! (decoded first when it goes through `base64 -d`, `rev`, `tr`...), interpreter one-liners,
//! the commands that runners build (`xargs`, `parallel`, `find -exec`) and those that
//! programs such as awk, sed, vim, gdb, git and make run (`unwrap.rs`). Before a command is
//! judged, what bash would make of it is worked out where the text shows it: aliases,
//! `set --`, variables split on `IFS`, brace expansion. `cd` moves the directory that later
//! path operands are judged against. The strongest answer wins; a block ends the walk,
//! except while tracing for `explain` (`trace.rs`).
//!
//! Why one file of this size: the walk is one recursion — a command's words, the code that
//! runs inside them, the commands runners build — and each of its steps calls back into the
//! others with the same walking state (variables, aliases, the directory, the trace).

use std::borrow::Cow;
use std::collections::HashMap;

use super::code::{self, Action};
use super::paths::Cwd;
use super::rule::{Answer, Rule, subcommand_start};
use super::trace::{Explanation, Trace, answer_word};
use super::unwrap::{self, Filtered, Runner};
use super::{SecurityGuard, quote};
use crate::answer::fill;
use crate::rules::RulesError;
use crate::rules::Text;
use crate::shell::{self, Body, Script, SimpleCommand, quote_words};

/// How deep `bash -c "..."`, `$(...)`, interpreter code and runners are followed.
const MAX_NESTING: usize = 5;

/// Stands for input a runner gets that the text does not show (`cat list | xargs rm -rf`).
/// As a path it is unknown; as shell code it is code nobody has seen.
const PIPED_INPUT: &str = "$piped_input";

/// What the guard found: the strongest answer and its reason.
#[derive(Debug)]
pub(crate) struct Finding {
    pub(crate) answer: Answer,
    pub(crate) reason: String,
    /// The answer is the guard's own limit (code nested past [`MAX_NESTING`]), not a rule's:
    /// the guard could not read all of the command, so it asks rather than allows.
    pub(crate) limit: bool,
}

/// One walk over one command text.
pub(crate) struct Scan<'g> {
    guard: &'g SecurityGuard,
    programs: Programs,
    cwd: Cwd,
    pub(crate) found: Option<Finding>,
    /// A descriptor of this text is open onto a network socket (`exec 3<>/dev/tcp/h/p`).
    socket_open: bool,
    /// Variables the text set to literal values (`RM=rm`, `x=/`), in order of setting;
    /// `set -- a b` sets the positional ones (`1`, `2`, `@`, `*`, `#`).
    vars: HashMap<String, String>,
    /// How many positional parameters `set --` set last (`1`..`n`), to unset them at the next.
    positional: usize,
    /// Aliases the text defined (`alias x='rm -rf'`), by name.
    aliases: HashMap<String, String>,
    /// Whether the code of the body being walked has an unquoted `{` (only then can a
    /// word brace-expand; quoted braces do not).
    braces: bool,
    /// When explaining: what the walk reads, and every rule that fired or nearly did.
    /// The walk then goes on past a block, to show all of them.
    pub(crate) trace: Option<Trace>,
}

/// What a command before a reader in its pipeline prints, as far as the text shows it.
enum Piped {
    /// This text.
    Text(String),
    /// A decoder's output whose input the text does not show (`base64 -d f | sh`).
    Hidden,
    /// Nothing the guard reads (no command before, or one whose output is not known).
    Unknown,
}

/// Paths that name a process's own standard input.
fn is_stdin_path(path: &str) -> bool {
    matches!(path, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

/// Whether `program` is a builtin that sets the variables its arguments name.
fn declares(program: &str) -> bool {
    matches!(
        program,
        "export" | "declare" | "typeset" | "local" | "readonly"
    )
}

/// What a runner's input is, as far as the text shows.
enum Input {
    /// Text printed upstream (`echo / | xargs rm -rf`).
    Text(String),
    /// Paths found under these start directories (`find /etc | xargs rm -rf`).
    Under(Vec<String>),
    /// Not shown.
    Unknown,
}

/// The command before this one in its pipeline, with its program and arguments.
type Upstream<'r, 's, 'a> = (&'r SimpleCommand<'s, 'a>, Argv<'s, 'a>);

/// A program's base name and its arguments, when a program runs.
type Argv<'s, 'a> = Option<(&'s str, &'s [Cow<'a, str>])>;

type Run<'s, 'a> = (
    SimpleCommand<'s, 'a>,
    Option<(&'s str, &'s [Cow<'a, str>])>,
    Option<usize>,
);

impl<'g> Scan<'g> {
    pub(crate) fn new(guard: &'g SecurityGuard, cwd: Cwd) -> Self {
        Scan {
            guard,
            programs: Programs::default(),
            cwd,
            found: None,
            socket_open: false,
            vars: HashMap::new(),
            positional: 0,
            aliases: HashMap::new(),
            braces: false,
            trace: None,
        }
    }

    /// Records a finding; `true` when the walk can stop (a block).
    fn note(&mut self, answer: Answer, reason: String) -> bool {
        if answer == Answer::Off {
            return false;
        }
        if self.found.as_ref().is_none_or(|f| answer > f.answer) {
            self.found = Some(Finding {
                answer,
                reason,
                limit: false,
            });
        }
        answer == Answer::Block && self.trace.is_none()
    }

    /// Marks the code walked from here on as reached through `via` (for `explain`);
    /// returns what to restore afterwards.
    fn enter(&mut self, via: &str) -> Option<Option<String>> {
        let trace = self.trace.as_mut()?;
        Some(trace.via.replace(via.to_owned()))
    }

    fn leave(&mut self, saved: Option<Option<String>>) {
        if let (Some(trace), Some(saved)) = (self.trace.as_mut(), saved) {
            trace.via = saved;
        }
    }

    /// A finding of the guard's own (no rule of the packs behind it), for `explain`.
    fn trace_finding(&mut self, name: &str, answer: Answer, why: &str) {
        let pack = self
            .guard
            .rules
            .iter()
            .find(|r| r.name == name)
            .map_or_else(|| "guard".to_owned(), |r| r.pack.to_string());
        if let Some(trace) = self.trace.as_mut() {
            trace.finding(name, &pack, answer, why);
        }
    }

    /// Code nested deeper than the walk follows: it is never taken as harmless. The finding
    /// asks, unless a rule already found something as strong; it never ends the walk, so a
    /// block elsewhere in the text still wins.
    fn note_limit(&mut self, text: &str) -> bool {
        let why = format!("shell code nested more than {MAX_NESTING} levels deep");
        self.note_limit_why(text, &why)
    }

    /// A limit of the guard's own, with what it was: the finding asks (see [`Self::note_limit`]).
    fn note_limit_why(&mut self, text: &str, why: &str) -> bool {
        self.trace_finding("limit", Answer::Ask, why);
        if self.found.as_ref().is_none_or(|f| Answer::Ask > f.answer) {
            let reason = fill(
                &self.guard.messages.limit,
                &[("why", why), ("command", &quote(text))],
            );
            self.found = Some(Finding {
                answer: Answer::Ask,
                reason,
                limit: true,
            });
        }
        false
    }

    fn note_rule(&mut self, rule: &Rule, command: &str) -> bool {
        let reason = self.guard.rule_reason(rule.answer, &rule.why, command);
        self.note(rule.answer, reason)
    }

    /// A finding that code analysis makes (a fork bomb in Python, say), answered as the
    /// rule of that name says.
    fn note_named(&mut self, name: &str, fallback_why: &str, command: &str) -> bool {
        let (answer, why) = match self.guard.rules.iter().find(|r| r.name == name) {
            Some(rule) => (rule.answer, rule.why.to_string()),
            None => (Answer::Block, fallback_why.to_owned()),
        };
        self.trace_finding(name, answer, &why);
        let reason = self.guard.rule_reason(answer, &why, command);
        self.note(answer, reason)
    }

    /// Walks `text`; `true` when it is blocked.
    pub(crate) fn check(&mut self, text: &str, depth: usize) -> bool {
        if text.trim().is_empty() {
            return false;
        }
        if depth > MAX_NESTING {
            return self.note_limit(text);
        }
        let script = shell::parse(text);
        script
            .root()
            .is_some_and(|root| self.walk(&script, root, depth))
    }

    /// Walks one body of a parsed script (the text itself, or a substitution's inside,
    /// which the tokenizer has parsed already); `true` when it is blocked.
    fn walk(&mut self, script: &Script<'_>, body: &Body<'_>, depth: usize) -> bool {
        if body.text.trim().is_empty() {
            return false;
        }
        if depth > MAX_NESTING {
            return self.note_limit(&body.text);
        }
        if !body.parsed {
            return self.check(&body.text, depth);
        }
        let guard = self.guard;
        let text = body.text.as_ref();
        let code = script.body_code(body);
        for &index in &guard.code_rules {
            if let Some(rule) = guard.rules.get(index)
                && rule.code.as_ref().is_some_and(|re| re.is_match(code))
            {
                if let Some(trace) = self.trace.as_mut() {
                    trace.text_rule(rule);
                }
                if self.note_rule(rule, text) {
                    return true;
                }
            }
        }
        let braces = std::mem::replace(
            &mut self.braces,
            memchr::memchr(b'{', code.as_bytes()).is_some(),
        );
        let blocked = self.walk_pipelines(script, body, text, depth);
        self.braces = braces;
        blocked
    }

    fn walk_pipelines(
        &mut self,
        script: &Script<'_>,
        body: &Body<'_>,
        text: &str,
        depth: usize,
    ) -> bool {
        let guard = self.guard;
        let mut runs: Vec<Run<'_, '_>> = Vec::new();
        for pipeline in script.body_pipelines(body) {
            runs.clear();
            for command in pipeline {
                let (argv, matched) = self.programs.program_of(guard, &command);
                runs.push((command, argv, matched));
            }
            if self.pipeline(script, &runs, text, depth) {
                return true;
            }
        }
        false
    }

    fn pipeline(
        &mut self,
        script: &Script<'_>,
        runs: &[Run<'_, '_>],
        text: &str,
        depth: usize,
    ) -> bool {
        let guard = self.guard;
        let is_network = |matched: Option<usize>, programs: &Programs| {
            guard
                .network_index
                .zip(matched)
                .is_some_and(|(network, m)| programs.matched(m, network))
        };
        // Reading a credential only matters upstream of a network tool; most pipelines
        // have none, and checking every word of every command is the costly part.
        let last_network = runs
            .iter()
            .rposition(|(_, _, matched)| is_network(*matched, &self.programs));
        let mut leaked_before = false;
        // How many commands of this pipeline match each `pipeline_program` pattern, counted
        // once per pattern: a pipeline of many shells is not walked again for each of them.
        let mut counts: Vec<(usize, usize)> = Vec::new();
        for (position, (command, argv, matched)) in runs.iter().enumerate() {
            // Most commands of a long script run a program no rule names, with nothing
            // nested, expanded or redirected to a file (`2>&1` is fine): none of the checks
            // below can find anything.
            if last_network.is_none()
                && self.vars.is_empty()
                && self.aliases.is_empty()
                && command
                    .redirects
                    .iter()
                    .all(shell::Redirect::joins_standard)
                && command.substitutions.is_empty()
                && matched.is_some_and(|m| self.programs.inert(m))
                && self.trace.is_none()
            {
                continue;
            }
            if let Some(trace) = self.trace.as_mut() {
                trace.command(depth, command.words, *argv);
            }
            self.remember_assignments(command, *argv);
            if self.unwrapped(command, *argv, depth) {
                return true;
            }
            if self.substituted(script, command, depth) {
                return true;
            }
            if self.socket_shell(command, *argv, *matched) {
                return true;
            }
            if self.rules(command, *argv, *matched, runs, &mut counts) {
                return true;
            }
            if is_network(*matched, &self.programs)
                && (leaked_before || guard.network_leaks(command, depth < MAX_NESTING))
            {
                self.trace_finding(
                    "exfiltration",
                    Answer::Block,
                    "sends secrets off the machine",
                );
                let reason = fill(&guard.messages.exfiltration, &[("command", &quote(text))]);
                if self.note(Answer::Block, reason) {
                    return true;
                }
            }
            if last_network.is_some_and(|last| position < last) {
                leaked_before = leaked_before || guard.leaks(command);
            }
            if self.nested(script, command, *argv, *matched, runs, position, depth) {
                return true;
            }
            if let (Some((program, args)), Some(entry)) = (argv, matched)
                && self.programs.kind(*entry) == Kind::Cd
            {
                // `popd` goes back somewhere the text may not say, like `cd` alone.
                let target = match *program {
                    "popd" => None,
                    _ => args
                        .iter()
                        .find(|a| !a.starts_with('-'))
                        .map(|a| a.as_ref()),
                };
                self.cwd = self.cwd.cd(target);
            }
        }
        false
    }

    /// Notes the literal values a command that runs nothing sets (`RM=rm`, `x=/;`), and
    /// those `export` and `declare` set. `A=1 cmd` sets `A` for `cmd` only: not noted.
    fn remember_assignments(
        &mut self,
        command: &SimpleCommand<'_, '_>,
        argv: Option<(&str, &[Cow<'_, str>])>,
    ) {
        let words = match argv {
            None => command.words,
            Some((program, args)) if declares(program) => args,
            Some(("set", args)) => {
                self.set_positional(args);
                return;
            }
            Some(_) => return,
        };
        for word in words {
            let Some((name, value)) = word.split_once('=') else {
                continue;
            };
            let is_name = name
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !is_name {
                continue;
            }
            // No hashing while no variable is known (most scripts' `export X="$(...)"`).
            if !self.vars.is_empty() {
                self.vars.remove(name);
            }
            // A value made of other values or output is not known.
            if !value.contains(['$', '`']) {
                self.vars.insert(name.to_owned(), value.to_owned());
            }
        }
    }

    /// `set -- a b` (or `set a b`): the positional parameters become `a b`.
    fn set_positional(&mut self, args: &[Cow<'_, str>]) {
        let values = match args.iter().position(|a| a == "--") {
            Some(at) => &args[at + 1..],
            None if args.first().is_some_and(|a| !a.starts_with(['-', '+'])) => args,
            None => return,
        };
        for n in 1..=self.positional {
            self.vars.remove(&n.to_string());
        }
        let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        self.positional = values.len();
        self.vars.extend(positional(&values));
    }

    /// What bash makes of a command before it runs it, where that differs from its words:
    /// an alias the text defined, a program word with blanks (shell code, as `sudo -s`
    /// runs it), a variable whose value the program runs (`GIT_PAGER='...' git log`).
    fn unwrapped(
        &mut self,
        command: &SimpleCommand<'_, '_>,
        argv: Option<(&str, &[Cow<'_, str>])>,
        depth: usize,
    ) -> bool {
        let Some((program, args)) = argv else {
            return false;
        };
        let index = command.words.len().saturating_sub(args.len() + 1);
        if program == "alias" {
            for definition in args {
                if let Some((name, value)) = definition.split_once('=') {
                    self.aliases.insert(name.to_owned(), value.to_owned());
                }
            }
            return false;
        }
        let rest = || -> Vec<String> { args.iter().map(|w| w.to_string()).collect() };
        if !self.aliases.is_empty()
            && let Some(first) = command.words.first()
            && let Some((name, value)) = self.aliases.remove_entry(first.as_ref())
        {
            // bash does not expand an alias inside its own expansion (`alias ls='ls -la'`).
            let words: Vec<String> = command.words[1..].iter().map(|w| w.to_string()).collect();
            let code = format!("{value} {}", quote_words(&words));
            let saved = self.enter("alias");
            let stop = self.check(&code, depth + 1);
            self.leave(saved);
            self.aliases.insert(name, value);
            if stop {
                return true;
            }
        }
        if let Some(word) = command.words.get(index)
            && word
                .bytes()
                .any(|b| matches!(b, b' ' | b'\t' | b'\n' | b';' | b'|' | b'&'))
            // A substitution's text (`$(echo ls)`) is expanded, not run as it stands.
            && !word.contains("$(")
            && !word.contains('`')
        {
            let code = format!("{word} {}", quote_words(&rest()));
            let saved = self.enter("a program word read as shell code");
            let stop = self.code(&code, depth);
            self.leave(saved);
            if stop {
                return true;
            }
        }
        for word in command.words.get(..index).unwrap_or(&[]) {
            if let Some((name, value)) = word.split_once('=')
                && unwrap::CODE_VARIABLES.contains(&name)
            {
                let saved = self.enter(name);
                let stop = self.code(value, depth);
                self.leave(saved);
                if stop {
                    return true;
                }
            }
        }
        false
    }

    /// A command whose words hold a variable the text set, or a substitution whose output
    /// the text shows (`$RM -rf /`, `$(echo rm) -rf /`, `$(which rm)`, `rm -rf $x`): it is
    /// checked again with those words as they expand.
    fn substituted(
        &mut self,
        script: &Script<'_>,
        command: &SimpleCommand<'_, '_>,
        depth: usize,
    ) -> bool {
        // Without a variable set or a substitution whose output the text may show, there is
        // nothing to put in place (and most commands of a long script are such).
        let shown = |body: &Body<'_>| {
            let text = body.text.trim_start();
            ["echo", "printf", "cat", "which", "command", "type"]
                .iter()
                .any(|program| text.starts_with(program))
        };
        let braces = self.braces && command.words.iter().any(|w| has_braces(w));
        if self.vars.is_empty() && !braces && !command.substitutions.iter().any(shown) {
            return false;
        }
        let ifs = self
            .vars
            .get("IFS")
            .map_or(" \t\n".to_owned(), Clone::clone);
        let mut changed = false;
        let mut words = Vec::with_capacity(command.words.len());
        // The words as bash splits an unquoted expansion (the tokenizer keeps no quotes,
        // so both readings are checked: the split one is what `$cmd` runs).
        let mut split = Vec::with_capacity(command.words.len());
        for word in command.words {
            let expanded = self.expand(script, word, command.substitutions);
            let from_vars = expand_vars(&expanded, &self.vars);
            let expanded = from_vars.clone().unwrap_or(expanded.into_owned());
            changed |= expanded != word.as_ref();
            match from_vars {
                Some(value) => split.extend(
                    value
                        .split(|c: char| ifs.contains(c))
                        .filter(|part| !part.is_empty())
                        .map(str::to_owned),
                ),
                None => split.push(expanded.clone()),
            }
            words.push(expanded);
        }
        let split = match brace_expand(&split) {
            Ok(expanded) => expanded,
            Err(()) => {
                let text = command.words.join(" ");
                self.note_limit_why(&text, "brace expansion into too many words");
                return false;
            }
        };
        let saved = self.enter("expansion");
        let stop = (split != words && self.check(&quote_words(&split), depth + 1))
            || (changed && self.check(&quote_words(&words), depth + 1));
        self.leave(saved);
        stop
    }

    /// The reverse shell that opens its socket as a descriptor first, then runs a shell
    /// (or each line it reads, `$line`) on that descriptor: `exec 5<>/dev/tcp/h/p;
    /// sh <&5 >&5`. Opening the descriptor alone is a plain network client.
    fn socket_shell(
        &mut self,
        command: &SimpleCommand<'_, '_>,
        argv: Option<(&str, &[Cow<'_, str>])>,
        matched: Option<usize>,
    ) -> bool {
        let is_socket =
            |target: &str| target.starts_with("/dev/tcp/") || target.starts_with("/dev/udp/");
        let opens_only = argv.is_none_or(|(program, args)| program == "exec" && args.is_empty());
        if opens_only && command.redirects.iter().any(|r| is_socket(&r.target)) {
            self.socket_open = true;
            return false;
        }
        let Some((program, _)) = argv else {
            return false;
        };
        let runs_code = program.starts_with('$')
            || matched.is_some_and(|m| self.programs.kind(m) == Kind::Shell);
        // Descriptors 0-2 are the usual ones (`2>&1`); the socket is one opened by number.
        let on_descriptor = command.redirects.iter().any(|r| {
            r.op.ends_with('&')
                && !r.target.is_empty()
                && r.target.bytes().all(|b| b.is_ascii_digit())
                && !matches!(r.target.as_ref(), "0" | "1" | "2")
        });
        if self.socket_open && runs_code && on_descriptor {
            let text = command.words.join(" ");
            return self.note_named("reverse-shell", "reverse shell", &text);
        }
        false
    }

    /// The pack rules this command matches.
    fn rules(
        &mut self,
        command: &SimpleCommand<'_, '_>,
        argv: Option<(&str, &[Cow<'_, str>])>,
        matched: Option<usize>,
        runs: &[Run<'_, '_>],
        counts: &mut Vec<(usize, usize)>,
    ) -> bool {
        let guard = self.guard;
        let program_rules = matched.map_or(&[][..], |m| self.programs.rules(m));
        let redirect_rules = if command.redirects.is_empty() {
            &[][..]
        } else {
            guard.redirect_rules.as_slice()
        };
        if program_rules.is_empty() && redirect_rules.is_empty() {
            return false;
        }
        let args = argv.map_or(&[][..], |(_, args)| args);
        let global = matched.map_or(&[][..], |m| self.programs.subcommand_options(guard, m));
        let sub_start = subcommand_start(args, global);
        let sub_word = args.get(sub_start).map(|w| w.as_ref());
        // Most commands of a program with subcommand rules (`git`) run a subcommand none of
        // them names: one look at the program's list skips them all.
        let named = if self.trace.is_some()
            || matched.is_some_and(|m| self.programs.may_start(m, sub_word))
        {
            program_rules.len()
        } else {
            0
        };
        for k in 0..named + redirect_rules.len() {
            // By position: `self.programs` is read again below while `self` is noted to.
            let index = match k.checked_sub(named) {
                None => matched.and_then(|m| self.programs.rules(m).get(k).copied()),
                Some(r) => redirect_rules.get(r).copied(),
            };
            let Some(rule) = index.and_then(|i| guard.rules.get(i)) else {
                continue;
            };
            let fires = rule.may_start(sub_word)
                && rule.redirect.as_ref().is_none_or(|redirect| {
                    command
                        .redirects
                        .iter()
                        .any(|r| r.writes() && redirect.is_match(&r.target))
                })
                && rule.pipeline_program.is_none_or(|program| {
                    let count = match counts.iter().find(|(p, _)| *p == program) {
                        Some((_, count)) => *count,
                        None => {
                            let count = runs
                                .iter()
                                .filter(|(_, _, m)| {
                                    m.is_some_and(|m| self.programs.matched(m, program))
                                })
                                .count();
                            counts.push((program, count));
                            count
                        }
                    };
                    // Another command than this one runs it.
                    let this = matched.is_some_and(|m| self.programs.matched(m, program));
                    count > usize::from(this)
                })
                && rule.matches_args(args, sub_start, &self.cwd);
            // A near miss names the program (and its subcommand, if the rule has one) but
            // its other conditions do not hold: `rm -rf ./build` for `rm-root`.
            if let Some(trace) = self.trace.as_mut()
                && (fires || (rule.program.is_some() && rule.may_start(sub_word)))
            {
                trace.rule(rule, fires);
            }
            if fires && self.note_rule(rule, &command.words.join(" ")) {
                return true;
            }
        }
        false
    }

    /// Code nested inside this command.
    #[expect(clippy::too_many_arguments, reason = "one command and where it stands")]
    fn nested(
        &mut self,
        script: &Script<'_>,
        command: &SimpleCommand<'_, '_>,
        argv: Option<(&str, &[Cow<'_, str>])>,
        matched: Option<usize>,
        runs: &[Run<'_, '_>],
        position: usize,
        depth: usize,
    ) -> bool {
        for sub in command.substitutions {
            let saved = self.enter("$(…)");
            let stop = self.walk(script, sub, depth + 1);
            self.leave(saved);
            if stop {
                return true;
            }
        }
        let saved = argv.and_then(|(program, _)| self.enter(program));
        let stop = self.nested_code(script, command, argv, matched, runs, position, depth);
        self.leave(saved);
        stop
    }

    /// The code a command's program runs (a shell's `-c`, a runner's template, ...).
    #[expect(clippy::too_many_arguments, reason = "one command and where it stands")]
    fn nested_code(
        &mut self,
        script: &Script<'_>,
        command: &SimpleCommand<'_, '_>,
        argv: Option<(&str, &[Cow<'_, str>])>,
        matched: Option<usize>,
        runs: &[Run<'_, '_>],
        position: usize,
        depth: usize,
    ) -> bool {
        let (Some((program, args)), Some(entry)) = (argv, matched) else {
            return false;
        };
        let upstream = position
            .checked_sub(1)
            .and_then(|i| runs.get(i))
            .map(|(c, a, _)| (c, *a));
        let piped = |scan: &Self| match position.checked_sub(1) {
            Some(before) => scan.output_of(runs, before),
            None => Piped::Unknown,
        };
        match self.programs.kind(entry) {
            Kind::Shell => {
                let piped = piped(self);
                self.shell(script, command, program, args, piped, depth)
            }
            Kind::Source => {
                let piped = piped(self);
                self.run_file(
                    script,
                    command,
                    args.first().map(|w| w.as_ref()),
                    piped,
                    depth,
                )
            }
            Kind::Trap => {
                let args = match args.first() {
                    Some(first) if first == "--" => &args[1..],
                    _ => args,
                };
                match args {
                    [code, _, ..] if !matches!(code.as_ref(), "-" | "-l" | "-p" | "-P") => {
                        let code = self.expand(script, code, command.substitutions);
                        self.code(&code, depth)
                    }
                    _ => false,
                }
            }
            Kind::Runner(runner) => {
                // Only sed (`e`, `s///e`) and make (`-f -`) read their input as commands.
                let input = match runner {
                    Runner::Sed | Runner::Make => match self.stdin_text(command) {
                        Some(text) => Some(text),
                        None => match piped(self) {
                            Piped::Text(text) => Some(text),
                            _ => None,
                        },
                    },
                    _ => None,
                };
                let shells = &self.guard.nested_shells;
                for run in unwrap::runs(runner, args, input.as_deref(), shells) {
                    let stop = match run {
                        unwrap::Run::Shell(code) => self.code(&code, depth),
                        unwrap::Run::Unseen => {
                            let text = command.words.join(" ");
                            self.note_named(
                                "runs-piped-code",
                                "runs piped input as shell code",
                                &text,
                            )
                        }
                    };
                    if stop {
                        return true;
                    }
                }
                false
            }
            Kind::Interpreter(lang) => {
                let piped = piped(self);
                self.interpreter(script, lang, command, args, piped, depth)
            }
            Kind::Xargs => {
                let input = self.input(command, upstream);
                self.xargs(args, input, depth)
            }
            Kind::Parallel => {
                let input = self.input(command, upstream);
                self.parallel(args, input, depth)
            }
            Kind::Find => self.find_exec(args, depth),
            Kind::CodeOptions => {
                let options = self
                    .guard
                    .code_options
                    .get(program)
                    .map_or(&[][..], Vec::as_slice);
                let mut words = args.iter();
                while let Some(word) = words.next() {
                    // `-c CODE`, `--command=CODE`, and a short cluster ending in the
                    // option (`script -qc CODE`, `su -lc CODE`).
                    let inline = word.split_once('=').and_then(|(name, value)| {
                        options.iter().any(|o| o == name).then_some(value)
                    });
                    let clustered = !word.starts_with("--")
                        && word.len() > 2
                        && word.starts_with('-')
                        && options
                            .iter()
                            .any(|o| o.len() == 2 && o.starts_with('-') && word.ends_with(&o[1..]));
                    let code = match inline {
                        Some(value) => Some(value),
                        None if clustered || options.iter().any(|o| o == word) => {
                            words.next().map(|w| w.as_ref())
                        }
                        None => None,
                    };
                    if let Some(code) = code {
                        let code = self.expand(script, code, command.substitutions);
                        return self.code(&code, depth);
                    }
                }
                false
            }
            Kind::Remote => self.remote(script, command, program, args, depth),
            Kind::Cd | Kind::Other => false,
        }
    }

    /// `ssh [options] host command...`: the command runs on the host, in a directory the
    /// text does not show, so its paths are judged as unknown ones.
    fn remote(
        &mut self,
        script: &Script<'_>,
        command: &SimpleCommand<'_, '_>,
        program: &str,
        args: &[Cow<'_, str>],
        depth: usize,
    ) -> bool {
        let guard = self.guard;
        let code = if let Some(options) = guard.remote_shells.get(program) {
            // ssh joins the words after the host with spaces for the remote shell to read.
            let at = shell::past_options(args, 0, options);
            match args.get(at + 1..).filter(|rest| !rest.is_empty()) {
                Some(remote) => remote.join(" "),
                None => return false,
            }
        } else {
            // `docker exec [options] target argv...`: the argv runs as it is, no shell.
            let found = guard.remote_execs.iter().find_map(|(key, options)| {
                let (name, sub) = key.split_once(' ')?;
                let at = shell::past_options(args, 0, options);
                (name == program && args.get(at).is_some_and(|w| w == sub))
                    .then(|| shell::past_options(args, at + 1, options))
            });
            let Some(target) = found else {
                return false;
            };
            let mut argv = args.get(target + 1..).unwrap_or(&[]);
            if argv.first().is_some_and(|w| w == "--") {
                argv = &argv[1..];
            }
            if argv.is_empty() {
                return false;
            }
            let words: Vec<String> = argv.iter().map(|w| w.to_string()).collect();
            quote_words(&words)
        };
        let code = self
            .expand(script, &code, command.substitutions)
            .into_owned();
        let here = std::mem::replace(&mut self.cwd, Cwd::unknown());
        let blocked = self.code(&code, depth);
        self.cwd = here;
        blocked
    }

    /// Shell code handed over as text: `PIPED_INPUT` is code nobody has seen.
    fn code(&mut self, code: &str, depth: usize) -> bool {
        if code.trim_start().starts_with(PIPED_INPUT) {
            return self.note_named("runs-piped-code", "runs piped input as shell code", code);
        }
        self.check(code, depth + 1)
    }

    fn shell(
        &mut self,
        parsed: &Script<'_>,
        command: &SimpleCommand<'_, '_>,
        program: &str,
        args: &[Cow<'_, str>],
        piped: Piped,
        depth: usize,
    ) -> bool {
        if program == "eval" {
            let code = args.join(" ");
            let code = self.expand(parsed, &code, command.substitutions);
            return self.code(&code, depth);
        }
        // bash's own options: `-c` makes the first operand code, `-s` reads standard input
        // even with operands, `-o NAME`/`-O NAME`/`--rcfile FILE` take a value.
        let (mut code_flag, mut stdin_flag) = (false, false);
        let mut operand = None;
        let mut i = 0;
        while let Some(word) = args.get(i) {
            let word = word.as_ref();
            if word == "--" || word == "-" {
                operand = (i + 1 < args.len()).then_some(i + 1);
                break;
            }
            if matches!(word, "--rcfile" | "--init-file") {
                i += 2;
                continue;
            }
            if word.starts_with("--") {
                i += 1;
                continue;
            }
            if word.len() > 1 && (word.starts_with('-') || word.starts_with('+')) {
                let flags = &word[1..];
                code_flag |= word.starts_with('-') && flags.contains('c');
                stdin_flag |= word.starts_with('-') && flags.contains('s');
                i += if flags.ends_with(['o', 'O']) { 2 } else { 1 };
                continue;
            }
            operand = Some(i);
            break;
        }
        if code_flag {
            let Some(at) = operand else {
                return false;
            };
            let code = self.expand(parsed, &args[at], command.substitutions);
            let code = with_operands(&code, args.get(at + 1..).unwrap_or(&[]));
            return self.code(&code, depth);
        }
        if !stdin_flag && let Some(at) = operand {
            return self.run_file(
                parsed,
                command,
                args.get(at).map(|w| w.as_ref()),
                piped,
                depth,
            );
        }
        self.run_stdin(parsed, command, piped, depth)
    }

    /// A shell (or `source`) running the file `file`: its standard input, a process
    /// substitution whose output the text shows, or a file the guard cannot read.
    fn run_file(
        &mut self,
        parsed: &Script<'_>,
        command: &SimpleCommand<'_, '_>,
        file: Option<&str>,
        piped: Piped,
        depth: usize,
    ) -> bool {
        let Some(file) = file else {
            return false;
        };
        if is_stdin_path(file) {
            return self.run_stdin(parsed, command, piped, depth);
        }
        if let Some(inner) = file.strip_prefix("<(").and_then(|f| f.strip_suffix(')')) {
            let body = command.substitutions.iter().find(|b| b.text == inner);
            return match body.map(|b| self.body_output(parsed, b)) {
                Some(Piped::Text(code)) => self.code(&code, depth),
                Some(Piped::Hidden) => {
                    self.note_named("runs-piped-code", "runs piped input as shell code", file)
                }
                _ => false,
            };
        }
        false
    }

    /// Code a shell reads from its standard input: heredocs, here-strings, and what the
    /// command before it prints.
    fn run_stdin(
        &mut self,
        parsed: &Script<'_>,
        command: &SimpleCommand<'_, '_>,
        piped: Piped,
        depth: usize,
    ) -> bool {
        for body in command.heredocs {
            if self.check(body, depth + 1) {
                return true;
            }
        }
        for redirect in command.redirects.iter().filter(|r| r.op == "<<<") {
            let code = self.expand(parsed, &redirect.target, command.substitutions);
            if self.check(&code, depth + 1) {
                return true;
            }
        }
        match piped {
            Piped::Text(code) => self.code(&code, depth),
            Piped::Hidden => {
                let text = command.words.join(" ");
                self.note_named("runs-piped-code", "runs piped input as shell code", &text)
            }
            Piped::Unknown => false,
        }
    }

    /// A command's own standard input when the text shows it: a heredoc or here-string.
    fn stdin_text(&self, command: &SimpleCommand<'_, '_>) -> Option<String> {
        command.heredocs.first().map(|b| b.to_string()).or_else(|| {
            command
                .redirects
                .iter()
                .find(|r| r.op == "<<<")
                .map(|r| format!("{}\n", r.target))
        })
    }

    /// What command `at` of a pipeline prints: shown text (`echo`, `printf`, a heredoc),
    /// or what a chain of decoders makes of it. Worked out forward from where the chain of
    /// filters ending at `at` starts, so a long pipeline costs time in proportion to it.
    fn output_of(&self, runs: &[Run<'_, '_>], at: usize) -> Piped {
        let is_filter = |(command, argv, _): &Run<'_, '_>| {
            self.stdin_text(command).is_none()
                && argv.is_some_and(|(program, args)| {
                    unwrap::filter(program, args, Some("")) != Filtered::No
                })
                && self.static_output(command, *argv).is_none()
        };
        let mut start = at.min(runs.len().saturating_sub(1));
        while start > 0 && runs.get(start).is_some_and(is_filter) {
            start -= 1;
        }
        let mut piped = Piped::Unknown;
        for run in runs.get(start..=at).unwrap_or(&[]) {
            piped = self.filtered(run, piped);
        }
        piped
    }

    /// What one command of a pipeline prints, given what the command before it prints.
    fn filtered(&self, (command, argv, _): &Run<'_, '_>, input: Piped) -> Piped {
        if let Some(text) = self.static_output(command, *argv) {
            return Piped::Text(text);
        }
        let Some((program, args)) = argv else {
            return Piped::Unknown;
        };
        let input = match self.stdin_text(command) {
            Some(text) => Piped::Text(text),
            None => input,
        };
        let text = match &input {
            Piped::Text(text) => Some(text.as_str()),
            _ => None,
        };
        match unwrap::filter(program, args, text) {
            Filtered::Text(out) => Piped::Text(out),
            Filtered::Unknown => Piped::Hidden,
            Filtered::No => Piped::Unknown,
        }
    }

    /// What the last pipeline of a substitution's body prints.
    fn body_output(&mut self, script: &Script<'_>, body: &Body<'_>) -> Piped {
        let Some(pipeline) = script.body_pipelines(body).last() else {
            return Piped::Unknown;
        };
        let mut runs: Vec<Run<'_, '_>> = Vec::new();
        for command in pipeline {
            let (argv, matched) = self.programs.program_of(self.guard, &command);
            runs.push((command, argv, matched));
        }
        match runs.len().checked_sub(1) {
            Some(last) => self.output_of(&runs, last),
            None => Piped::Unknown,
        }
    }

    fn interpreter(
        &mut self,
        script: &Script<'_>,
        lang: usize,
        command: &SimpleCommand<'_, '_>,
        args: &[Cow<'_, str>],
        piped: Piped,
        depth: usize,
    ) -> bool {
        let guard = self.guard;
        let Some((_, language)) = guard.interpreters.get(lang) else {
            return false;
        };
        let mut codes: Vec<Cow<'_, str>> = Vec::new();
        match interpreter_code(language, args) {
            Some(CodeAt::Word(word)) => {
                codes.push(self.expand(script, word, command.substitutions))
            }
            Some(CodeAt::Stdin) => {
                codes.extend(command.heredocs.iter().map(|b| Cow::Borrowed(b.as_ref())));
                codes.extend(
                    command
                        .redirects
                        .iter()
                        .filter(|r| r.op == "<<<")
                        .map(|r| Cow::Borrowed(r.target.as_ref())),
                );
                if let Piped::Text(text) = piped {
                    codes.push(Cow::Owned(text));
                }
            }
            None => {}
        }
        let shells = &guard.nested_shells;
        let is_credential = |s: &str| {
            guard
                .exfiltration
                .credential_files
                .as_ref()
                .is_some_and(|re| s.split_whitespace().any(|w| re.is_match(w)))
        };
        for code in codes {
            let actions = code::actions(&code, language, &guard.code_names, &is_credential, shells);
            for action in actions {
                let stop = match action {
                    Action::Shell(text) => self.code(&text, depth),
                    Action::Argv(words) => self.check(&quote_words(&words), depth + 1),
                    Action::ForkBomb => self.note_named("fork-bomb", "fork bomb", &code),
                    Action::ReverseShell => {
                        self.note_named("reverse-shell", "reverse shell", &code)
                    }
                    Action::Exfiltration(_) => {
                        self.trace_finding(
                            "exfiltration",
                            Answer::Block,
                            "sends secrets off the machine",
                        );
                        let reason =
                            fill(&guard.messages.exfiltration, &[("command", &quote(&code))]);
                        self.note(Answer::Block, reason)
                    }
                };
                if stop {
                    return true;
                }
            }
        }
        false
    }

    /// `$(cat <<EOF ... EOF)` and `$(echo ...)` inside a word replaced by what they print,
    /// so that `bash -c "$(cat <<EOF ...)"` is read as the code it runs.
    fn expand<'w>(
        &mut self,
        script: &Script<'_>,
        word: &'w str,
        subs: &[Body<'_>],
    ) -> Cow<'w, str> {
        if subs.is_empty() || !(word.contains("$(") || word.contains('`')) {
            return Cow::Borrowed(word);
        }
        let mut out = word.to_owned();
        for sub in subs {
            let mut commands = script.body_pipelines(sub).flatten();
            let text = match (commands.next(), commands.next()) {
                (Some(only), None) => {
                    let argv = only.argv(&self.guard.prefixes);
                    self.static_output(&only, argv)
                        .or_else(|| looked_up(only.words))
                }
                // A pipeline that decodes literal text (`echo ... | base64 -d`).
                (Some(_), Some(_)) => match self.body_output(script, sub) {
                    Piped::Text(text) => Some(text),
                    _ => None,
                },
                _ => None,
            };
            if let Some(text) = text {
                let sub = &sub.text;
                out = out
                    .replace(&format!("$({sub})"), &text)
                    .replace(&format!("`{sub}`"), &text);
            }
        }
        Cow::Owned(out)
    }

    /// What a command prints, when the text shows it: `echo`, `printf`, `cat` of a heredoc
    /// or here-string.
    fn static_output(
        &self,
        command: &SimpleCommand<'_, '_>,
        argv: Option<(&str, &[Cow<'_, str>])>,
    ) -> Option<String> {
        let (program, args) = argv?;
        match program {
            "echo" => {
                let start = args
                    .iter()
                    .position(|a| {
                        !(a.starts_with('-')
                            && a.len() > 1
                            && a[1..].chars().all(|c| "neE".contains(c)))
                    })
                    .unwrap_or(args.len());
                let text = args[start..].join(" ");
                // `echo -e` decodes escapes (`\x72\x6d` is `rm`).
                let escapes = args[..start].iter().any(|a| a.contains('e'));
                Some(if escapes {
                    shell::decode_escapes(&text)
                } else {
                    text
                })
            }
            "printf" => printf(args),
            "cat" if args.iter().all(|a| a == "-") => {
                command.heredocs.first().map(|b| b.to_string()).or_else(|| {
                    command
                        .redirects
                        .iter()
                        .find(|r| r.op == "<<<")
                        .map(|r| r.target.to_string())
                })
            }
            _ => None,
        }
    }

    /// The input of a runner: a here-string, or what the command before it in the
    /// pipeline prints or finds.
    fn input(
        &self,
        command: &SimpleCommand<'_, '_>,
        upstream: Option<Upstream<'_, '_, '_>>,
    ) -> Input {
        if let Some(text) = command.redirects.iter().find(|r| r.op == "<<<") {
            return Input::Text(text.target.to_string());
        }
        let Some((upstream, argv)) = upstream else {
            return Input::Unknown;
        };
        if let Some(text) = self.static_output(upstream, argv) {
            return Input::Text(text);
        }
        if let Some(("find", args)) = argv {
            return Input::Under(find_starts(args));
        }
        Input::Unknown
    }

    /// Checks a command given as words.
    fn words(&mut self, words: &[String], depth: usize) -> bool {
        self.check(&quote_words(words), depth + 1)
    }

    fn xargs(&mut self, args: &[Cow<'_, str>], mut input: Input, depth: usize) -> bool {
        const WITH_VALUE: &[&str] = &[
            "-L",
            "-n",
            "-P",
            "-s",
            "-d",
            "-E",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-lines",
            "--max-chars",
            "--eof",
            "--process-slot-var",
        ];
        let mut replace: Option<String> = None;
        let mut i = 0;
        while let Some(word) = args.get(i) {
            let word = word.as_ref();
            if word == "--" {
                i += 1;
                break;
            }
            if !word.starts_with('-') || word == "-" {
                break;
            }
            i += 1;
            if word == "-I" || word == "-J" {
                replace = args.get(i).map(|r| r.to_string());
                i += 1;
            } else if let Some(r) = word.strip_prefix("-I").or_else(|| word.strip_prefix("-J")) {
                replace = Some(r.to_owned());
            } else if let Some(r) = word.strip_prefix("-i") {
                replace = Some(if r.is_empty() { "{}" } else { r }.to_owned());
            } else if let Some(r) = word.strip_prefix("--replace") {
                let r = r.trim_start_matches('=');
                replace = Some(if r.is_empty() { "{}" } else { r }.to_owned());
            } else if word == "-a" || word == "--arg-file" {
                input = Input::Unknown;
                i += 1;
            } else if word.starts_with("-a") || word.starts_with("--arg-file=") {
                input = Input::Unknown;
            } else if WITH_VALUE.contains(&word) {
                i += 1;
            }
        }
        let template: Vec<String> = args[i.min(args.len())..]
            .iter()
            .map(|w| w.to_string())
            .collect();
        if template.is_empty() {
            return false;
        }
        // With a replacement string xargs takes whole lines, else blank-separated words.
        let items = items(input, replace.is_some());
        match replace {
            Some(replace) => {
                for item in &items {
                    let words: Vec<String> =
                        template.iter().map(|w| w.replace(&replace, item)).collect();
                    if self.words(&words, depth) {
                        return true;
                    }
                }
                false
            }
            None => {
                let mut words = template;
                words.extend(items);
                self.words(&words, depth)
            }
        }
    }

    fn parallel(&mut self, args: &[Cow<'_, str>], input: Input, depth: usize) -> bool {
        const WITH_VALUE: &[&str] = &[
            "-j",
            "--jobs",
            "-S",
            "--sshlogin",
            "--results",
            "--res",
            "--joblog",
            "--colsep",
            "-C",
            "--delay",
            "--timeout",
            "--tmpdir",
            "--workdir",
            "--wd",
            "-N",
            "-n",
            "-L",
            "--halt",
            "--memfree",
            "--load",
            "--basefile",
            "--bf",
            "--env",
            "--tagstring",
            "--sshloginfile",
            "--slf",
            "-E",
            "-d",
            "--delimiter",
        ];
        let mut replace: Option<String> = None;
        let mut i = 0;
        while let Some(word) = args.get(i) {
            let word = word.as_ref();
            if !word.starts_with('-') || word.starts_with(":::") {
                break;
            }
            i += 1;
            if word == "--dry-run" {
                return false;
            }
            if word == "-I" {
                replace = args.get(i).map(|r| r.to_string());
                i += 1;
            } else if word == "-a" || word == "--arg-file" || WITH_VALUE.contains(&word) {
                i += 1;
            }
        }
        let rest = &args[i.min(args.len())..];
        let split = rest
            .iter()
            .position(|w| w.starts_with(":::"))
            .unwrap_or(rest.len());
        let template: Vec<String> = rest[..split].iter().map(|w| w.to_string()).collect();
        let mut values: Vec<String> = Vec::new();
        let mut unknown = false;
        let mut group_files = false;
        for word in &rest[split..] {
            if word.starts_with(":::") {
                group_files = word.starts_with("::::");
                unknown |= group_files;
                continue;
            }
            if !group_files {
                values.push(word.to_string());
            }
        }
        if split == rest.len() {
            values = items(input, true);
        } else if unknown {
            values.push(PIPED_INPUT.to_owned());
        }
        for value in &values {
            let stop = if template.is_empty() {
                self.code(value, depth)
            } else {
                let substituted = substitute(&template, value, replace.as_deref());
                self.words(&substituted, depth)
            };
            if stop {
                return true;
            }
        }
        false
    }

    /// `find ... -exec CMD {} ;` runs CMD on paths under the start directories.
    fn find_exec(&mut self, args: &[Cow<'_, str>], depth: usize) -> bool {
        let starts = find_starts(args);
        let mut words = args.iter();
        while let Some(word) = words.next() {
            if !matches!(word.as_ref(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                continue;
            }
            let template: Vec<String> = words
                .by_ref()
                .take_while(|w| *w != ";" && *w != "+")
                .map(|w| w.to_string())
                .collect();
            for start in &starts {
                let path = format!("{}/x", start.trim_end_matches('/'));
                let command: Vec<String> =
                    template.iter().map(|w| w.replace("{}", &path)).collect();
                if self.words(&command, depth) {
                    return true;
                }
            }
        }
        false
    }
}

impl SecurityGuard {
    /// Walks `text` as run in `cwd`, recording what it reads (see [`Explanation`]).
    pub(crate) fn explain(&self, text: &str, cwd: &str) -> Explanation {
        let mut scan = Scan::new(self, Cwd::from_payload(cwd));
        scan.trace = Some(Trace::default());
        scan.check(text, 0);
        let trace = scan.trace.take().unwrap_or_default();
        let (decision, reason) = match scan.found {
            Some(found) => (answer_word(found.answer), Some(found.reason)),
            None => ("allow", None),
        };
        Explanation {
            command: text.to_owned(),
            decision: decision.to_owned(),
            reason,
            commands: trace.commands,
            text_findings: trace.text_findings,
        }
    }
}

/// How `security_guard` with the rules `rules_yaml` (its defaults when `None`) reads the
/// shell command `command` run in directory `cwd`: every simple command it reaches, the
/// program that runs after unwrapping, and the rules that fired or nearly fired.
pub fn explain_command(
    rules_yaml: Option<&str>,
    command: &str,
    cwd: &str,
) -> Result<Explanation, RulesError> {
    let guard = SecurityGuard::new(rules_yaml)?;
    Ok(guard.explain(command, cwd))
}

/// Where an interpreter's code is.
enum CodeAt<'w> {
    /// In this argument (`-c CODE`).
    Word(&'w str),
    /// On standard input (no script operand, or `-`).
    Stdin,
}

fn interpreter_code<'w>(lang: &code::LanguageRaw, args: &'w [Cow<'_, str>]) -> Option<CodeAt<'w>> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let word = word.as_ref();
        let next = args.get(i + 1).map(|w| w.as_ref());
        if i == 0 && lang.code_subcommands.iter().any(|s| s == word) {
            return next.map(CodeAt::Word);
        }
        if word == "-" {
            return Some(CodeAt::Stdin);
        }
        if word == "--" || !word.starts_with('-') {
            return None;
        }
        if lang.code_options.iter().any(|o| o == word) {
            return next.map(CodeAt::Word);
        }
        if let Some((name, value)) = word.split_once('=')
            && lang.code_options.iter().any(|o| o == name)
        {
            return Some(CodeAt::Word(value));
        }
        if lang.script_options.iter().any(|o| o == word) {
            return None;
        }
        // A cluster of flags ending in a code option: `perl -ne`, `python -Bc`.
        if !word.starts_with("--")
            && word.len() > 2
            && word[1..].chars().all(|c| c.is_ascii_alphabetic())
            && lang
                .code_options
                .iter()
                .any(|o| o.len() == 2 && !o.starts_with("--") && word.ends_with(&o[1..]))
        {
            return next.map(CodeAt::Word);
        }
        i += if lang.options_with_value.iter().any(|o| o == word) {
            2
        } else {
            1
        };
    }
    Some(CodeAt::Stdin)
}

/// The start directories of a `find` (`.` when none is given).
fn find_starts(args: &[Cow<'_, str>]) -> Vec<String> {
    let mut starts: Vec<String> = args
        .iter()
        .skip_while(|w| matches!(w.as_ref(), "-H" | "-L" | "-P"))
        .take_while(|w| !w.starts_with('-') && *w != "(" && *w != "!")
        .map(|w| w.to_string())
        .collect();
    if starts.is_empty() {
        starts.push(".".to_owned());
    }
    starts
}

/// A runner's input items: lines, or blank-separated words.
fn items(input: Input, lines: bool) -> Vec<String> {
    match input {
        Input::Text(text) if lines => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
        Input::Text(text) => text.split_whitespace().map(str::to_owned).collect(),
        Input::Under(starts) => starts
            .iter()
            .map(|s| format!("{}/x", s.trim_end_matches('/')))
            .collect(),
        Input::Unknown => vec![PIPED_INPUT.to_owned()],
    }
}

/// A `parallel` template with its replacement strings (`{}`, `{.}`, `{1}`, ...) filled in,
/// or the value appended when it has none.
fn substitute(template: &[String], value: &str, replace: Option<&str>) -> Vec<String> {
    if let Some(replace) = replace {
        return template.iter().map(|w| w.replace(replace, value)).collect();
    }
    let mut replaced = false;
    let mut words: Vec<String> = template
        .iter()
        .map(|word| {
            let mut out = String::with_capacity(word.len());
            let mut rest = word.as_str();
            while let Some(open) = rest.find('{') {
                let after = &rest[open + 1..];
                match after.find('}') {
                    Some(close)
                        if after[..close]
                            .chars()
                            .all(|c| c.is_ascii_digit() || "./#%".contains(c)) =>
                    {
                        out.push_str(&rest[..open]);
                        out.push_str(value);
                        replaced = true;
                        rest = &after[close + 1..];
                    }
                    _ => {
                        out.push_str(&rest[..=open]);
                        rest = after;
                    }
                }
            }
            out.push_str(rest);
            out
        })
        .collect();
    if !replaced {
        words.push(value.to_owned());
    }
    words
}

/// What `printf FORMAT ARGS...` prints: the format's escapes and `%s`/`%b`/`%d`
/// conversions, repeated while arguments remain, as printf does.
fn printf(args: &[Cow<'_, str>]) -> Option<String> {
    let args = match args.first() {
        Some(first) if first == "--" => &args[1..],
        _ => args,
    };
    let (format, mut rest) = args.split_first()?;
    let mut out = String::new();
    loop {
        let mut chars = format.chars().peekable();
        let mut used = false;
        while let Some(c) = chars.next() {
            match c {
                '%' => {
                    // Flags and width are dropped: the guard wants the words.
                    while chars.peek().is_some_and(|c| "-+ #0123456789.".contains(*c)) {
                        chars.next();
                    }
                    match chars.next() {
                        Some('%') => out.push('%'),
                        Some(conversion) => {
                            used = true;
                            if let Some((value, after)) = rest.split_first() {
                                // `%b` decodes its argument's escapes, `%s` takes it as is.
                                let value = if conversion == 'b' {
                                    shell::decode_escapes(value)
                                } else {
                                    value.to_string()
                                };
                                // Kept apart from the format's own escapes, decoded below.
                                out.push_str(&value.replace('\\', "\u{0}"));
                                rest = after;
                            }
                        }
                        None => out.push('%'),
                    }
                }
                _ => out.push(c),
            }
        }
        if !used || rest.is_empty() {
            break;
        }
    }
    Some(shell::decode_escapes(&out).replace('\u{0}', "\\"))
}

/// What `which rm`, `command -v rm` and `type -P rm` print, as far as the guard needs it:
/// the program's name.
fn looked_up(words: &[Cow<'_, str>]) -> Option<String> {
    let words: Vec<&str> = words.iter().map(|w| w.as_ref()).collect();
    match words.as_slice() {
        ["which", name] | ["command", "-v", name] | ["type", "-P" | "-p", name] => {
            Some((*name).to_owned())
        }
        _ => None,
    }
}

/// `word` with each `$NAME` and `${NAME}` of `vars` replaced by its value; `None` when
/// it names none of them.
fn expand_vars(word: &str, vars: &HashMap<String, String>) -> Option<String> {
    if vars.is_empty() || !word.contains('$') {
        return None;
    }
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    let mut changed = false;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, len) = match after.strip_prefix('{') {
            Some(braced) => match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => ("", 0),
            },
            // `$1`, `$@`, `$*`, `$#`: one byte (`$10` is `$1` then `0`).
            None if after
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'@' | b'*' | b'#')) =>
            {
                (&after[..1], 1)
            }
            None => {
                let end = after
                    .bytes()
                    .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        match vars.get(name) {
            Some(value) if !name.is_empty() => {
                out.push_str(value);
                changed = true;
                rest = &after[len..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// The positional parameters `values` as variables: `1`, `2`..., `@`, `*` and `#`.
fn positional(values: &[String]) -> HashMap<String, String> {
    let mut vars: HashMap<String, String> = values
        .iter()
        .enumerate()
        .map(|(i, v)| ((i + 1).to_string(), v.clone()))
        .collect();
    let all = values.join(" ");
    vars.insert("@".to_owned(), all.clone());
    vars.insert("*".to_owned(), all);
    vars.insert("#".to_owned(), values.len().to_string());
    vars
}

/// `code` run by a shell with operands `operands` after it: `$0` is the first.
fn with_operands(code: &str, operands: &[Cow<'_, str>]) -> String {
    let Some((zero, rest)) = operands.split_first() else {
        return code.to_owned();
    };
    let rest: Vec<String> = rest.iter().map(|w| w.to_string()).collect();
    let mut vars = positional(&rest);
    vars.insert("0".to_owned(), zero.to_string());
    expand_vars(code, &vars).unwrap_or_else(|| code.to_owned())
}

/// Whether a word may brace-expand: `{a,b}` or `{1..3}`, with no blank (a quoted one).
fn has_braces(word: &str) -> bool {
    word.contains('{')
        && !word.contains([' ', '\t', '\n'])
        && word
            .find('{')
            .and_then(|open| {
                word[open..]
                    .find('}')
                    .map(|close| &word[open..open + close])
            })
            .is_some_and(|inside| inside.contains(',') || inside.contains(".."))
}

/// How many words brace expansion may make of one command before the guard stops.
const MAX_BRACE_WORDS: usize = 4096;

/// `words` with brace expansion applied (`{rm,-rf,/}` is three words, `a{1..3}` three);
/// `Err` past [`MAX_BRACE_WORDS`].
fn brace_expand(words: &[String]) -> Result<Vec<String>, ()> {
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        if has_braces(word) {
            out.extend(expand_one(word, 0)?);
        } else {
            out.push(word.clone());
        }
        if out.len() > MAX_BRACE_WORDS {
            return Err(());
        }
    }
    Ok(out)
}

fn expand_one(word: &str, nesting: usize) -> Result<Vec<String>, ()> {
    if nesting > 16 {
        return Err(());
    }
    let bytes = word.as_bytes();
    let Some(open) = word.find('{') else {
        return Ok(vec![word.to_owned()]);
    };
    // The matching close, and the top-level commas between.
    let mut level = 0;
    let mut commas = Vec::new();
    let mut close = None;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => level += 1,
            b'}' => {
                level -= 1;
                if level == 0 {
                    close = Some(i);
                    break;
                }
            }
            b',' if level == 1 => commas.push(i),
            _ => {}
        }
    }
    let Some(close) = close else {
        return Ok(vec![word.to_owned()]);
    };
    let (head, inside, tail) = (&word[..open], &word[open + 1..close], &word[close + 1..]);
    let mut alternatives: Vec<String> = Vec::new();
    if commas.is_empty() {
        match inside.split_once("..") {
            Some((from, to)) => {
                let range = |a: &str, b: &str| -> Option<Vec<String>> {
                    if let (Ok(a), Ok(b)) = (a.parse::<i64>(), b.parse::<i64>()) {
                        let (lo, hi) = (a.min(b), a.max(b));
                        if hi - lo > MAX_BRACE_WORDS as i64 {
                            return None;
                        }
                        return Some((lo..=hi).map(|n| n.to_string()).collect());
                    }
                    let (mut a, mut b) = (a.chars(), b.chars());
                    match (a.next(), a.next(), b.next(), b.next()) {
                        (Some(x), None, Some(y), None) => {
                            Some((x.min(y)..=x.max(y)).map(String::from).collect())
                        }
                        _ => Some(Vec::new()),
                    }
                };
                match range(from, to) {
                    Some(list) if !list.is_empty() => alternatives = list,
                    Some(_) => {
                        let rest = expand_one(tail, nesting + 1)?;
                        return Ok(rest
                            .into_iter()
                            .map(|t| format!("{head}{{{inside}}}{t}"))
                            .collect());
                    }
                    None => return Err(()),
                }
            }
            None => {
                let rest = expand_one(tail, nesting + 1)?;
                return Ok(rest
                    .into_iter()
                    .map(|t| format!("{head}{{{inside}}}{t}"))
                    .collect());
            }
        }
    } else {
        let mut start = open + 1;
        for &comma in commas.iter().chain(std::iter::once(&close)) {
            alternatives.push(word[start..comma].to_owned());
            start = comma + 1;
        }
    }
    let tails = expand_one(tail, nesting + 1)?;
    let mut out = Vec::new();
    for alternative in alternatives {
        for inner in expand_one(&alternative, nesting + 1)? {
            for t in &tails {
                out.push(format!("{head}{inner}{t}"));
                if out.len() > MAX_BRACE_WORDS {
                    return Err(());
                }
            }
        }
    }
    Ok(out)
}

/// What kind of program a name is, beyond the rules it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Shell,
    Interpreter(usize),
    Xargs,
    Parallel,
    Find,
    Cd,
    CodeOptions,
    Remote,
    /// Not a shell, but runs commands its arguments spell (`awk`, `sed`, `git`, ...).
    Runner(Runner),
    /// `source` and `.`: run a file's text as code in this shell.
    Source,
    /// `trap CODE SIGNAL...`: runs CODE later, in this shell.
    Trap,
    Other,
}

/// The program rules each program name matched, for one command text: a script runs the
/// same few programs over and over, and a name is looked up once instead of per command.
#[derive(Debug, Default)]
struct Programs {
    seen: Vec<Program>,
    /// `seen`'s index + 1 of the last name seen in each slot ([`slot`]), 0 for none: the
    /// next command's name is mostly found here at once, without a loop over `seen` whose
    /// end differs at every command.
    recent: [u16; SLOTS],
}

const SLOTS: usize = 32;

/// A name's slot in `Programs::recent`, from its length and its first and last bytes.
fn slot(name: &[u8]) -> usize {
    let (first, last) = (name.first().copied(), name.last().copied());
    let mixed =
        name.len() * 31 + usize::from(first.unwrap_or(0)) * 7 + usize::from(last.unwrap_or(0));
    mixed % SLOTS
}

#[derive(Debug)]
struct Program {
    name: String,
    /// Which of `SecurityGuard::programs` it matches.
    matched: Vec<bool>,
    /// The rules (indexes into `SecurityGuard::rules`) that name it, in rule order.
    rules: Vec<usize>,
    kind: Kind,
    /// Its entry in `SecurityGuard::subcommand_options`, if it has one (`git`).
    subcommand_options: Option<usize>,
    /// Whether the name, as a command's first word, is the program that runs (not an
    /// assignment, a shell keyword or a wrapper such as `sudo`).
    runs_itself: bool,
    /// Whether a command running it, with no redirection or substitution, can match
    /// nothing: no rule names it, it runs no code, moves no directory, reaches no network
    /// and sets no variable.
    inert: bool,
    /// The first words of its rules' subcommands, unless one of its rules has none.
    firsts: Option<Vec<Text>>,
}

impl Programs {
    /// The program a command runs, its arguments and its entry. A command whose first word
    /// is a name already seen to run itself skips the search past assignments and wrappers.
    // Inlined into the walk's loop, where it runs for every command of a script.
    #[inline(always)]
    fn program_of<'s, 'a>(
        &mut self,
        guard: &SecurityGuard,
        command: &SimpleCommand<'s, 'a>,
    ) -> (Argv<'s, 'a>, Option<usize>) {
        if let Some((first, args)) = command.words.split_first()
            && let Some(index) = self.find(first)
            && self.seen.get(index).is_some_and(|p| p.runs_itself)
        {
            return (Some((first.as_ref(), args)), Some(index));
        }
        let argv = command.argv(&guard.prefixes);
        let matched = argv.map(|(program, _)| self.lookup(guard, program));
        (argv, matched)
    }

    /// The entry for `program`, matching it against the rules on first sight.
    /// The entry of `name`, if it has been seen.
    fn find(&mut self, name: &str) -> Option<usize> {
        let at = slot(name.as_bytes());
        let recent = self.recent.get(at).copied().unwrap_or(0);
        if let Some(index) = usize::from(recent).checked_sub(1)
            && self
                .seen
                .get(index)
                .is_some_and(|p| shell::same(&p.name, name))
        {
            return Some(index);
        }
        let index = self.seen.iter().position(|p| shell::same(&p.name, name))?;
        self.remember(at, index);
        Some(index)
    }

    fn remember(&mut self, at: usize, index: usize) {
        if let (Some(recent), Ok(stored)) = (self.recent.get_mut(at), u16::try_from(index + 1)) {
            *recent = stored;
        }
    }

    fn lookup(&mut self, guard: &SecurityGuard, program: &str) -> usize {
        if let Some(index) = self.find(program) {
            return index;
        }
        let matched: Vec<bool> = guard
            .programs
            .iter()
            .map(|re| re.is_match(program))
            .collect();
        let kind = if guard.nested_shells.iter().any(|s| s == program) {
            Kind::Shell
        } else if let Some(lang) = guard
            .interpreters
            .iter()
            .position(|(index, _)| matched.get(*index).copied().unwrap_or(false))
        {
            Kind::Interpreter(lang)
        } else {
            match program {
                "xargs" => Kind::Xargs,
                "parallel" => Kind::Parallel,
                "find" => Kind::Find,
                "cd" | "pushd" | "popd" => Kind::Cd,
                "source" | "." => Kind::Source,
                "trap" => Kind::Trap,
                _ if guard.code_options.contains_key(program) => Kind::CodeOptions,
                _ if guard.command_runners.contains_key(program) => guard
                    .command_runners
                    .get(program)
                    .map_or(Kind::Other, |runner| Kind::Runner(*runner)),
                _ if guard.remote_shells.contains_key(program)
                    || guard
                        .remote_execs
                        .keys()
                        .any(|key| key.split(' ').next() == Some(program)) =>
                {
                    Kind::Remote
                }
                _ => Kind::Other,
            }
        };
        let mut rules: Vec<usize> = matched
            .iter()
            .enumerate()
            .filter(|(_, m)| **m)
            .filter_map(|(i, _)| guard.program_rules.get(i))
            .flatten()
            .copied()
            .collect();
        rules.sort_unstable();
        let subcommand_options = guard
            .subcommand_options
            .iter()
            .position(|(name, _)| name == program);
        let network = guard
            .network_index
            .is_some_and(|n| matched.get(n).copied().unwrap_or(false));
        let inert = rules.is_empty()
            && kind == Kind::Other
            && !network
            && program != "exec"
            && !declares(program)
            // `set --` and `alias` change what later commands run; a program word that
            // is empty, has blanks or braces is code or expands (`sudo -s 'a b'`, `{a,b}`).
            && !matches!(program, "set" | "alias")
            && !program.is_empty()
            && !program
                .bytes()
                .any(|b| matches!(b, b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'{' | b'}'));
        // `None` as soon as one rule has no subcommand: any command may match it.
        let firsts = rules.iter().filter_map(|&i| guard.rules.get(i)).try_fold(
            Vec::new(),
            |mut list: Vec<Text>, rule| {
                (!rule.subcommand.is_empty()).then(|| {
                    for first in rule.subcommand.iter().filter_map(|alt| alt.first()) {
                        if !list.contains(first) {
                            list.push(first.clone());
                        }
                    }
                    list
                })
            },
        );
        self.seen.push(Program {
            name: program.to_owned(),
            matched,
            rules,
            kind,
            subcommand_options,
            runs_itself: shell::runs_itself(program, &guard.prefixes),
            inert,
            firsts,
        });
        let index = self.seen.len() - 1;
        self.remember(slot(program.as_bytes()), index);
        index
    }

    /// Whether the program of entry `entry` matches program rule `rule`.
    fn matched(&self, entry: usize, rule: usize) -> bool {
        self.seen
            .get(entry)
            .is_some_and(|p| p.matched.get(rule).copied().unwrap_or(false))
    }

    /// The rules that name the program of entry `entry`.
    fn rules(&self, entry: usize) -> &[usize] {
        self.seen.get(entry).map_or(&[], |p| p.rules.as_slice())
    }

    /// The options before a subcommand that take a value, for the program of `entry`.
    fn subcommand_options<'g>(&self, guard: &'g SecurityGuard, entry: usize) -> &'g [Text] {
        self.seen
            .get(entry)
            .and_then(|p| p.subcommand_options)
            .and_then(|at| guard.subcommand_options.get(at))
            .map_or(&[], |(_, options)| options.as_slice())
    }

    /// Whether some rule naming `entry`'s program may match a command whose subcommand
    /// (the word after the program's global options) is `word`.
    fn may_start(&self, entry: usize, word: Option<&str>) -> bool {
        self.seen.get(entry).is_some_and(|p| match &p.firsts {
            None => true,
            Some(firsts) => word.is_some_and(|w| firsts.iter().any(|f| shell::same(f, w))),
        })
    }

    /// See [`Program::inert`].
    fn inert(&self, entry: usize) -> bool {
        self.seen.get(entry).is_some_and(|p| p.inert)
    }

    fn kind(&self, entry: usize) -> Kind {
        self.seen.get(entry).map_or(Kind::Other, |p| p.kind)
    }
}
