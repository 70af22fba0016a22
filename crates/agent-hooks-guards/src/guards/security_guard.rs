//! security_guard: keeps credentials from leaking and stops irreversible data loss.
//! Shell commands are tokenized so that only words in command position count; text
//! channels (user messages, replies, outbound messages, message tools) are scanned for secrets.

use std::collections::HashMap;

use regex::RegexSet;

use crate::rules::LazyRegex as Regex;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::answer::{self, fill};
use crate::context::GuardContext;
use crate::rules::{self, RulesError, pick};
use crate::secrets::{CredentialRule, MaskRules, Scanner, WalletRules};
use crate::shell::{self, Prefix, Prefixes, SimpleCommand};

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/security_guard.yaml");

/// How deep `bash -c "..."`, `$(...)` and heredocs fed to a shell are followed.
const MAX_NESTING: usize = 4;
/// How much of an offending command a reason quotes.
const QUOTE_CHARS: usize = 200;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    shell_tools: Option<Vec<String>>,
    command_keys: Option<Vec<String>>,
    message_tools: Option<Vec<String>>,
    message_text_keys: Option<Vec<String>>,
    command_prefixes: Option<HashMap<String, Prefix>>,
    nested_shells: Option<Vec<String>>,
    destructive: Option<Vec<DestructiveRaw>>,
    exfiltration: Option<ExfiltrationRaw>,
    credentials: Option<Vec<CredentialRule>>,
    wallet: Option<WalletRules>,
    mask: Option<MaskRules>,
    messages: Option<Messages>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DestructiveRaw {
    name: String,
    program: Option<String>,
    #[serde(default)]
    args_all: Vec<String>,
    #[serde(default)]
    args_none: Vec<String>,
    redirect: Option<String>,
    code: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExfiltrationRaw {
    network_programs: Option<String>,
    credential_files: Option<String>,
    env_dump_programs: Option<String>,
    #[serde(default)]
    env_dump_args: Vec<String>,
    #[serde(default)]
    output_options: Vec<String>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Messages {
    user_message: String,
    wallet_secret: String,
    destructive: String,
    exfiltration: String,
    tool_result_note: String,
}

#[derive(Debug)]
struct Destructive {
    name: String,
    /// Index into `program_set`, when the rule names a program.
    program: Option<usize>,
    args_all: Vec<Regex>,
    args_none: Vec<Regex>,
    redirect: Option<Regex>,
    code: Option<Regex>,
}

#[derive(Debug)]
struct Exfiltration {
    credential_files: Option<Regex>,
    env_dump_programs: Option<Regex>,
    env_dump_args: Vec<String>,
    output_options: Vec<String>,
}

/// The compiled guard.
#[derive(Debug)]
pub(crate) struct SecurityGuard {
    shell_tools: Vec<String>,
    command_keys: Vec<String>,
    message_tools: Vec<String>,
    message_text_keys: Vec<String>,
    prefixes: Prefixes,
    nested_shells: Vec<String>,
    /// Every program regex of `destructive`, then the network-program regex last: one
    /// pass over a program name answers every rule (this runs for each command).
    program_set: RegexSet,
    network_index: Option<usize>,
    destructive: Vec<Destructive>,
    exfiltration: Exfiltration,
    scanner: Scanner,
    messages: Messages,
}

impl SecurityGuard {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let (user, def) = rules::load::<Raw>(DEFAULT_RULES, user_yaml)?;
        let destructive_raw: Vec<DestructiveRaw> = pick(user.destructive, def.destructive);
        let exfil: ExfiltrationRaw = pick(user.exfiltration, def.exfiltration);
        let mut programs = Vec::new();
        let mut destructive = Vec::new();
        for (i, rule) in destructive_raw.iter().enumerate() {
            let field = format!("destructive[{i}]");
            let program = match &rule.program {
                Some(p) => {
                    rules::regex(&format!("{field}.program"), p)?;
                    programs.push(p.clone());
                    Some(programs.len() - 1)
                }
                None => None,
            };
            destructive.push(Destructive {
                name: rule.name.clone(),
                program,
                args_all: rules::regexes(&format!("{field}.args_all"), &rule.args_all)?,
                args_none: rules::regexes(&format!("{field}.args_none"), &rule.args_none)?,
                redirect: rules::optional_regex(
                    &format!("{field}.redirect"),
                    rule.redirect.as_deref(),
                )?,
                code: rules::optional_regex(&format!("{field}.code"), rule.code.as_deref())?,
            });
        }
        let network_index = match exfil.network_programs.as_deref() {
            Some(p) if !p.is_empty() => {
                rules::regex("exfiltration.network_programs", p)?;
                programs.push(p.to_owned());
                Some(programs.len() - 1)
            }
            _ => None,
        };
        let program_set = RegexSet::new(&programs).map_err(|e| RulesError::Invalid {
            field: "destructive".into(),
            message: e.to_string(),
        })?;
        let wallet: WalletRules = pick(user.wallet, def.wallet);
        let credentials: Vec<CredentialRule> = pick(user.credentials, def.credentials);
        let mask: MaskRules = pick(user.mask, def.mask);
        Ok(Self {
            shell_tools: pick(user.shell_tools, def.shell_tools),
            command_keys: pick(user.command_keys, def.command_keys),
            message_tools: pick(user.message_tools, def.message_tools),
            message_text_keys: pick(user.message_text_keys, def.message_text_keys),
            prefixes: pick(user.command_prefixes, def.command_prefixes),
            nested_shells: pick(user.nested_shells, def.nested_shells),
            program_set,
            network_index,
            destructive,
            exfiltration: Exfiltration {
                credential_files: rules::optional_regex(
                    "exfiltration.credential_files",
                    exfil.credential_files.as_deref(),
                )?,
                env_dump_programs: rules::optional_regex(
                    "exfiltration.env_dump_programs",
                    exfil.env_dump_programs.as_deref(),
                )?,
                env_dump_args: exfil.env_dump_args,
                output_options: exfil.output_options,
            },
            scanner: Scanner::new(&credentials, &wallet, mask)?,
            messages: pick(user.messages, def.messages),
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, _ctx: &mut GuardContext) -> Value {
        match event {
            "on_user_message" => self.user_message(answer::str_field(payload, "message")),
            "pre_tool_call" => self.pre_tool_call(payload),
            "transform_tool_result" => {
                let text = answer::result_text(payload);
                match self.scanner.first_secret(&text) {
                    Some(found) => answer::field(
                        "note",
                        fill(&self.messages.tool_result_note, &[("kind", &found.name)]),
                    ),
                    None => answer::noop(),
                }
            }
            "on_response_end" => {
                match self
                    .scanner
                    .redact(answer::str_field(payload, "response"), true)
                {
                    Some(text) => answer::field("response", text),
                    None => answer::noop(),
                }
            }
            "on_outbound_message" => {
                let text = answer::str_field(payload, "notification");
                if let Some(found) = self.scanner.wallet_secrets(text).first() {
                    return answer::block(fill(
                        &self.messages.wallet_secret,
                        &[("kind", &found.name)],
                    ));
                }
                match self.scanner.redact(text, false) {
                    Some(text) => answer::field("notification", text),
                    None => answer::noop(),
                }
            }
            _ => answer::noop(),
        }
    }

    fn user_message(&self, text: &str) -> Value {
        if let Some(found) = self.scanner.wallet_secrets(text).first() {
            return answer::block(fill(&self.messages.wallet_secret, &[("kind", &found.name)]));
        }
        match self.scanner.credentials(text).first() {
            Some(found) => {
                answer::block(fill(&self.messages.user_message, &[("kind", &found.name)]))
            }
            None => answer::noop(),
        }
    }

    fn pre_tool_call(&self, payload: &Value) -> Value {
        let tool = answer::str_field(payload, "tool_name");
        let Some(input) = payload.get("tool_input").and_then(Value::as_object) else {
            return answer::noop();
        };
        if answer::tool_in(&self.shell_tools, tool) {
            for key in &self.command_keys {
                if let Some(command) = input.get(key).and_then(Value::as_str)
                    && let Some(reason) = self.check_command(command, 0)
                {
                    return answer::block(reason);
                }
            }
        }
        if answer::tool_in(&self.message_tools, tool) {
            return self.message_tool(input);
        }
        answer::noop()
    }

    fn message_tool(&self, input: &Map<String, Value>) -> Value {
        let mut rewritten = Map::new();
        for (key, value) in input {
            let Some(text) = value.as_str() else { continue };
            if !self.message_text_keys.is_empty() && !self.message_text_keys.contains(key) {
                continue;
            }
            if let Some(found) = self.scanner.wallet_secrets(text).first() {
                return answer::block(fill(&self.messages.wallet_secret, &[("kind", &found.name)]));
            }
            if let Some(masked) = self.scanner.redact(text, false) {
                rewritten.insert(key.clone(), Value::String(masked));
            }
        }
        if rewritten.is_empty() {
            answer::noop()
        } else {
            let mut out = Map::new();
            out.insert("tool_input".into(), Value::Object(rewritten));
            Value::Object(out)
        }
    }

    /// The reason to block this command text, if any part of it that runs is dangerous.
    pub(crate) fn check_command(&self, text: &str, depth: usize) -> Option<String> {
        if depth > MAX_NESTING || text.trim().is_empty() {
            return None;
        }
        let script = shell::parse(text);
        for rule in &self.destructive {
            if let Some(code) = &rule.code
                && code.is_match(&script.code)
            {
                return Some(self.destructive_reason(&rule.name, text));
            }
        }
        for pipeline in &script.pipelines {
            let runs: Vec<_> = pipeline
                .commands
                .iter()
                .map(|command| {
                    let argv = command.argv(&self.prefixes);
                    let matched = self
                        .program_set
                        .matches(argv.map_or("", |(program, _)| program));
                    (command, argv, matched)
                })
                .collect();
            // Reading a credential only matters upstream of a network tool; most pipelines
            // have none, and checking every word of every command is the costly part.
            let last_network = self.network_index.and_then(|network| {
                runs.iter()
                    .rposition(|(_, argv, matched)| argv.is_some() && matched.matched(network))
            });
            let mut leaked_before = false;
            for (position, (command, argv, matched)) in runs.iter().enumerate() {
                let args = argv.map_or(&[][..], |(_, args)| args);
                if let Some(rule) = self.destructive_match(command, argv.is_some(), args, matched) {
                    return Some(self.destructive_reason(rule, &display(command)));
                }
                let is_network = self
                    .network_index
                    .is_some_and(|network| argv.is_some() && matched.matched(network));
                if is_network && (leaked_before || self.network_leaks(command, depth)) {
                    return Some(fill(
                        &self.messages.exfiltration,
                        &[("command", &quote(text))],
                    ));
                }
                if last_network.is_some_and(|last| position < last) {
                    leaked_before = leaked_before || self.leaks(command);
                }
                if let Some(reason) = self.nested(command, *argv, depth) {
                    return Some(reason);
                }
            }
        }
        None
    }

    fn destructive_reason(&self, rule: &str, command: &str) -> String {
        fill(
            &self.messages.destructive,
            &[("rule", rule), ("command", &quote(command))],
        )
    }

    fn destructive_match(
        &self,
        command: &SimpleCommand,
        runs: bool,
        args: &[String],
        matched: &regex::SetMatches,
    ) -> Option<&str> {
        let mut joined: Option<String> = None;
        for rule in &self.destructive {
            if rule.code.is_some() && rule.program.is_none() && rule.redirect.is_none() {
                continue;
            }
            if let Some(index) = rule.program
                && (!runs || !matched.matched(index))
            {
                continue;
            }
            if rule.program.is_none() && rule.redirect.is_none() {
                continue;
            }
            if let Some(redirect) = &rule.redirect
                && !command
                    .redirects
                    .iter()
                    .any(|r| r.writes() && redirect.is_match(&r.target))
            {
                continue;
            }
            let joined = joined.get_or_insert_with(|| args.join(" "));
            if rule.args_all.iter().all(|re| re.is_match(joined))
                && !rule.args_none.iter().any(|re| re.is_match(joined))
            {
                return Some(&rule.name);
            }
        }
        None
    }

    /// Whether this command reads a credential file or dumps the environment.
    fn leaks(&self, command: &SimpleCommand) -> bool {
        let exfil = &self.exfiltration;
        let reads_file = exfil.credential_files.as_ref().is_some_and(|files| {
            command.words.iter().skip(1).any(|w| files.is_match(w))
                || command
                    .redirects
                    .iter()
                    .any(|r| r.reads() && files.is_match(&r.target))
        });
        if reads_file {
            return true;
        }
        let Some((program, args)) = command.argv(&self.prefixes) else {
            return false;
        };
        exfil
            .env_dump_programs
            .as_ref()
            .is_some_and(|re| re.is_match(program))
            && args.iter().all(|a| exfil.env_dump_args.contains(a))
    }

    /// Whether a network command sends a credential file itself (argument, input
    /// redirection, or a `$(...)` that reads one).
    fn network_leaks(&self, command: &SimpleCommand, depth: usize) -> bool {
        let exfil = &self.exfiltration;
        if let Some(files) = &exfil.credential_files {
            let mut skip_next = false;
            for word in command.words.iter().skip(1) {
                if skip_next {
                    skip_next = false;
                    continue;
                }
                if exfil.output_options.contains(word) {
                    skip_next = true;
                    continue;
                }
                if files.is_match(word) {
                    return true;
                }
            }
            if command
                .redirects
                .iter()
                .any(|r| r.reads() && files.is_match(&r.target))
            {
                return true;
            }
        }
        depth < MAX_NESTING
            && command.substitutions.iter().any(|sub| {
                let inner = shell::parse(sub);
                inner.commands().any(|c| self.leaks(c))
            })
    }

    /// Code nested inside this command: `$(...)`, `bash -c`, `eval`, a heredoc or
    /// here-string fed to a shell.
    fn nested(
        &self,
        command: &SimpleCommand,
        argv: Option<(&str, &[String])>,
        depth: usize,
    ) -> Option<String> {
        for sub in &command.substitutions {
            if let Some(reason) = self.check_command(sub, depth + 1) {
                return Some(reason);
            }
        }
        let (program, args) = argv?;
        if !self.nested_shells.iter().any(|s| s == program) {
            return None;
        }
        if program == "eval" {
            return self.check_command(&args.join(" "), depth + 1);
        }
        let mut words = args.iter();
        while let Some(word) = words.next() {
            let is_c = word.starts_with('-') && !word.starts_with("--") && word.contains('c');
            if is_c {
                if let Some(script) = words.next() {
                    return self.check_command(script, depth + 1);
                }
            } else if !word.starts_with('-') {
                // The first operand is a script file; its contents are not ours to read.
                break;
            }
        }
        for body in &command.heredocs {
            if let Some(reason) = self.check_command(body, depth + 1) {
                return Some(reason);
            }
        }
        command
            .redirects
            .iter()
            .filter(|r| r.op == "<<<")
            .find_map(|r| self.check_command(&r.target, depth + 1))
    }
}

fn display(command: &SimpleCommand) -> String {
    command.words.join(" ")
}

/// The offending command as a reason quotes it: one line, bounded.
fn quote(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > QUOTE_CHARS {
        let cut: String = one_line.chars().take(QUOTE_CHARS).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}
