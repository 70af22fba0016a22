//! security_guard: keeps credentials from leaking and stops irreversible data loss.
//! Shell commands are tokenized so that only words in command position count; text
//! channels (user messages, replies, outbound messages, message tools) are scanned for secrets.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::rules::LazyRegex as Regex;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::answer::{self, fill};
use crate::context::GuardContext;
use crate::rules::{self, RulesError, pick};
use crate::secrets::{CredentialRule, MaskRules, Scanner, WalletRules};
use crate::shell::{self, Prefix, PrefixList, SimpleCommand};

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/security_guard.yaml");

/// `DEFAULT_RULES` as JSON, which parses in a fraction of the YAML's time: the guard is
/// built for every `agent-hooks guard security_guard` process. A test keeps the two equal
/// (`UPDATE_DEFAULTS=1 cargo test -p agent-hooks-guards defaults_json` rewrites this file).
const DEFAULT_RULES_JSON: &str = include_str!("security_guard.defaults.json");

/// How deep `bash -c "..."`, `$(...)` and heredocs fed to a shell are followed.
const MAX_NESTING: usize = 4;
/// How much of an offending command a reason quotes.
const QUOTE_CHARS: usize = 200;

#[derive(Debug, Default, PartialEq, Deserialize)]
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

#[derive(Debug, Default, PartialEq, Deserialize)]
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

#[derive(Debug, Default, PartialEq, Deserialize)]
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

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
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
    prefixes: PrefixList,
    nested_shells: Vec<String>,
    /// Every program regex of `destructive`, then the network-program regex last. Each
    /// distinct program name of a command text is matched once (`Programs`); a pattern
    /// whose literal bytes the name lacks is not even compiled.
    programs: Vec<Regex>,
    network_index: Option<usize>,
    destructive: Vec<Destructive>,
    exfiltration: Exfiltration,
    scanner: Scanner,
    messages: Messages,
}

impl SecurityGuard {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        // The defaults ship in the binary and a test parses them; should that ever fail
        // anyway, empty tables are the fail-open answer rather than a panic.
        let def: Raw = serde_json::from_str(DEFAULT_RULES_JSON).unwrap_or_default();
        let user: Raw = match user_yaml {
            Some(text) => rules::parse(text)?,
            None => Raw::default(),
        };
        // The defaults' regexes are tested, so only the user's are syntax-checked at load.
        let (destructive_raw, destructive_origin): (Vec<DestructiveRaw>, _) =
            rules::pick_from(user.destructive, def.destructive);
        let (exfil, exfil_origin): (ExfiltrationRaw, _) =
            rules::pick_from(user.exfiltration, def.exfiltration);
        let origin = destructive_origin;
        let mut programs = Vec::new();
        let mut destructive = Vec::new();
        for (i, rule) in destructive_raw.iter().enumerate() {
            let field = format!("destructive[{i}]");
            let program = match &rule.program {
                Some(p) => {
                    programs.push(rules::regex_from(origin, &format!("{field}.program"), p)?);
                    Some(programs.len() - 1)
                }
                None => None,
            };
            destructive.push(Destructive {
                name: rule.name.clone(),
                program,
                args_all: rules::regexes_from(
                    origin,
                    &format!("{field}.args_all"),
                    &rule.args_all,
                )?,
                args_none: rules::regexes_from(
                    origin,
                    &format!("{field}.args_none"),
                    &rule.args_none,
                )?,
                redirect: rules::optional_regex_from(
                    origin,
                    &format!("{field}.redirect"),
                    rule.redirect.as_deref(),
                )?,
                code: rules::optional_regex_from(
                    origin,
                    &format!("{field}.code"),
                    rule.code.as_deref(),
                )?,
            });
        }
        let network_index = match exfil.network_programs.as_deref() {
            Some(p) if !p.is_empty() => {
                programs.push(rules::regex_from(
                    exfil_origin,
                    "exfiltration.network_programs",
                    p,
                )?);
                Some(programs.len() - 1)
            }
            _ => None,
        };
        let wallet: (WalletRules, _) = rules::pick_from(user.wallet, def.wallet);
        let credentials: (Vec<CredentialRule>, _) =
            rules::pick_from(user.credentials, def.credentials);
        let mask: MaskRules = pick(user.mask, def.mask);
        Ok(Self {
            shell_tools: pick(user.shell_tools, def.shell_tools),
            command_keys: pick(user.command_keys, def.command_keys),
            message_tools: pick(user.message_tools, def.message_tools),
            message_text_keys: pick(user.message_text_keys, def.message_text_keys),
            prefixes: shell::prefix_list(pick(user.command_prefixes, def.command_prefixes)),
            nested_shells: pick(user.nested_shells, def.nested_shells),
            programs,
            network_index,
            destructive,
            exfiltration: Exfiltration {
                credential_files: rules::optional_regex_from(
                    exfil_origin,
                    "exfiltration.credential_files",
                    exfil.credential_files.as_deref(),
                )?,
                env_dump_programs: rules::optional_regex_from(
                    exfil_origin,
                    "exfiltration.env_dump_programs",
                    exfil.env_dump_programs.as_deref(),
                )?,
                env_dump_args: exfil.env_dump_args,
                output_options: exfil.output_options,
            },
            scanner: Scanner::new(credentials, wallet, mask)?,
            messages: pick(user.messages, def.messages),
        })
    }

    /// The credential and wallet-secret scanner, for guards that redact what they keep.
    pub(crate) fn scanner(&self) -> &Scanner {
        &self.scanner
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, _ctx: &mut GuardContext) -> Value {
        match event {
            "on_user_message" => self.user_message(answer::str_field(payload, "message")),
            "pre_tool_call" => self.pre_tool_call(payload),
            "transform_tool_result" => {
                let text = answer::result_text(payload);
                match self.scanner.first_secret(&text) {
                    // `add_warning`: the user is told (a Starchild host shows only this
                    // field), and on this event the runtime appends it to the result too.
                    Some(found) => answer::field(
                        "add_warning",
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
        self.check(text, depth, &mut Programs::default())
    }

    fn check(&self, text: &str, depth: usize, programs: &mut Programs) -> Option<String> {
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
        let mut runs = Vec::new();
        for pipeline in script.pipelines() {
            runs.clear();
            runs.extend(pipeline.map(|command| {
                let argv = command.argv(&self.prefixes);
                // Which program rules this program matches; `None` when nothing runs.
                let matched = argv.map(|(program, _)| programs.lookup(self, program));
                (command, argv, matched)
            }));
            let is_network = |matched: Option<usize>, programs: &Programs| {
                self.network_index
                    .zip(matched)
                    .is_some_and(|(network, m)| programs.matched(m, network))
            };
            // Reading a credential only matters upstream of a network tool; most pipelines
            // have none, and checking every word of every command is the costly part.
            let last_network = runs
                .iter()
                .rposition(|(_, _, matched)| is_network(*matched, programs));
            let mut leaked_before = false;
            for (position, (command, argv, matched)) in runs.iter().enumerate() {
                let args = argv.map_or(&[][..], |(_, args)| args);
                if let Some(rule) = self.destructive_match(command, args, *matched, programs) {
                    return Some(self.destructive_reason(rule, &display(command)));
                }
                if is_network(*matched, programs)
                    && (leaked_before || self.network_leaks(command, depth))
                {
                    return Some(fill(
                        &self.messages.exfiltration,
                        &[("command", &quote(text))],
                    ));
                }
                if last_network.is_some_and(|last| position < last) {
                    leaked_before = leaked_before || self.leaks(command);
                }
                let shell = matched.is_some_and(|m| programs.is_shell(m));
                if let Some(reason) = self.nested(command, *argv, shell, depth, programs) {
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

    /// The destructive rule this command matches. `matched` is the program's entry in
    /// `programs`, `None` when the command runs nothing.
    fn destructive_match(
        &self,
        command: &SimpleCommand,
        args: &[Cow<'_, str>],
        matched: Option<usize>,
        programs: &Programs,
    ) -> Option<&str> {
        // Every rule that can match here names a program or a redirection target.
        let any_program = matched.is_some_and(|m| programs.matched_any(m));
        if !any_program && command.redirects.is_empty() {
            return None;
        }
        let mut joined: Option<String> = None;
        for rule in &self.destructive {
            if rule.code.is_some() && rule.program.is_none() && rule.redirect.is_none() {
                continue;
            }
            if let Some(index) = rule.program
                && !matched.is_some_and(|m| programs.matched(m, index))
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
            && args
                .iter()
                .all(|a| exfil.env_dump_args.iter().any(|d| d == a))
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
                if exfil.output_options.iter().any(|o| o == word) {
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
                inner.commands().any(|c| self.leaks(&c))
            })
    }

    /// Code nested inside this command: `$(...)`, `bash -c`, `eval`, a heredoc or
    /// here-string fed to a shell (`shell`: the program is one of `nested_shells`).
    fn nested(
        &self,
        command: &SimpleCommand,
        argv: Option<(&str, &[Cow<'_, str>])>,
        shell: bool,
        depth: usize,
        programs: &mut Programs,
    ) -> Option<String> {
        for sub in command.substitutions {
            if let Some(reason) = self.check(sub, depth + 1, programs) {
                return Some(reason);
            }
        }
        let (program, args) = argv?;
        if !shell {
            return None;
        }
        if program == "eval" {
            return self.check(&args.join(" "), depth + 1, programs);
        }
        let mut words = args.iter();
        while let Some(word) = words.next() {
            let is_c = word.starts_with('-') && !word.starts_with("--") && word.contains('c');
            if is_c {
                if let Some(script) = words.next() {
                    return self.check(script, depth + 1, programs);
                }
            } else if !word.starts_with('-') {
                // The first operand is a script file; its contents are not ours to read.
                break;
            }
        }
        for body in command.heredocs {
            if let Some(reason) = self.check(body, depth + 1, programs) {
                return Some(reason);
            }
        }
        command
            .redirects
            .iter()
            .filter(|r| r.op == "<<<")
            .find_map(|r| self.check(&r.target, depth + 1, programs))
    }
}

/// The program rules each program name matched, for one command text: a script runs the
/// same few programs over and over, and a name is looked up once instead of per command.
#[derive(Debug, Default)]
struct Programs {
    seen: Vec<Program>,
}

#[derive(Debug)]
struct Program {
    name: String,
    /// Which of `SecurityGuard::programs` it matches.
    matched: Vec<bool>,
    /// Whether it is one of `nested_shells`.
    shell: bool,
}

impl Programs {
    /// The entry for `program`, matching it against the rules on first sight.
    fn lookup(&mut self, guard: &SecurityGuard, program: &str) -> usize {
        if let Some(index) = self.seen.iter().position(|p| shell::same(&p.name, program)) {
            return index;
        }
        self.seen.push(Program {
            name: program.to_owned(),
            matched: guard
                .programs
                .iter()
                .map(|re| re.is_match(program))
                .collect(),
            shell: guard.nested_shells.iter().any(|s| s == program),
        });
        self.seen.len() - 1
    }

    /// Whether the program of entry `entry` matches program rule `rule`.
    fn matched(&self, entry: usize, rule: usize) -> bool {
        self.seen
            .get(entry)
            .is_some_and(|p| p.matched.get(rule).copied().unwrap_or(false))
    }

    /// Whether the program of entry `entry` matches any program rule.
    fn matched_any(&self, entry: usize) -> bool {
        self.seen
            .get(entry)
            .is_some_and(|p| p.matched.iter().any(|&m| m))
    }

    /// Whether the program of entry `entry` is a shell whose code is checked too.
    fn is_shell(&self, entry: usize) -> bool {
        self.seen.get(entry).is_some_and(|p| p.shell)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_json_is_the_yaml() {
        let yaml: Value = serde_saphyr::from_str(DEFAULT_RULES).expect("the default rules parse");
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/guards/security_guard.defaults.json"
        );
        if std::env::var_os("UPDATE_DEFAULTS").is_some() {
            let text = serde_json::to_string_pretty(&yaml).expect("JSON serializes") + "\n";
            std::fs::write(path, text).expect("the defaults JSON is writable");
            return;
        }
        let json: Value = serde_json::from_str(DEFAULT_RULES_JSON).expect("the JSON parses");
        assert_eq!(json, yaml, "rerun with UPDATE_DEFAULTS=1 to refresh {path}");
        let typed_yaml: Raw = rules::parse(DEFAULT_RULES).expect("the YAML has the rules' shape");
        let typed_json: Raw = serde_json::from_str(DEFAULT_RULES_JSON).expect("so has the JSON");
        assert_eq!(typed_json, typed_yaml);
    }
}
