//! security_guard: keeps credentials from leaking and stops irreversible data loss.
//! Shell commands are tokenized so that only words in command position count (`scan`);
//! each rule of the rule packs (`rule`) answers block, ask or warn; path operands are
//! judged against the payload's `cwd` (`paths`); interpreter one-liners are read for the
//! commands they run (`code`). Text channels (user messages, replies, outbound messages,
//! message tools) are scanned for secrets.

mod code;
mod effects;
mod packs;
mod paths;
mod rule;
mod scan;
mod trace;
mod unwrap;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Display;

use crate::rules::LazyRegex as Regex;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::answer::{self, fill};
use crate::context::GuardContext;
use crate::rules::{self, Origin, RulesError, Text, pick};
use crate::secrets::{CredentialRule, MaskRules, Scanner, WalletRules};
use crate::shell::{self, Prefix, PrefixList, SimpleCommand};
use code::{CodeNames, LanguageRaw};
use effects::{FileTool, FileTools};
pub use packs::RulePacks;
use paths::Cwd;
use rule::{Answer, Rule, RuleRaw};
pub use scan::explain_command;
use scan::{Finding, Scan};
pub use trace::{ExplainedCommand, ExplainedRule, Explanation};

use crate::rules::SECURITY_GUARD_OPT_IN_BLOB as DEFAULT_OPT_IN_BLOB;
use crate::rules::SECURITY_GUARD_RULES_BLOB as DEFAULT_RULES_BLOB;

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/security_guard.yaml");

/// How much of an offending command a reason quotes.
const QUOTE_CHARS: usize = 200;

#[derive(Debug, Default, PartialEq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
struct Raw {
    shell_tools: Option<Vec<Text>>,
    command_keys: Option<Vec<Text>>,
    message_tools: Option<Vec<Text>>,
    message_text_keys: Option<Vec<Text>>,
    command_prefixes: Option<HashMap<Text, Prefix>>,
    nested_shells: Option<Vec<Text>>,
    code_options: Option<HashMap<Text, Vec<Text>>>,
    command_runners: Option<HashMap<Text, unwrap::Runner>>,
    remote_shells: Option<HashMap<Text, Vec<Text>>>,
    remote_execs: Option<HashMap<Text, Vec<Text>>>,
    subcommand_options: Option<HashMap<Text, Vec<Text>>>,
    interpreters: Option<BTreeMap<Text, LanguageRaw>>,
    interpreter_code: Option<CodeNames>,
    packs: Option<BTreeMap<Text, Vec<RuleRaw>>>,
    /// The opt-in packs the user turns on by name.
    enable: Option<Vec<Text>>,
    /// Packs that are off unless `enable` names them; the user's are added to the defaults'
    /// (one of the same name replaces the default one).
    opt_in_packs: Option<BTreeMap<Text, Vec<RuleRaw>>>,
    /// Opt-in packs that turning another on turns on too (`strict: [system, ...]`).
    pack_includes: Option<BTreeMap<Text, Vec<Text>>>,
    /// Tools that act on files, and which of their input keys name the files.
    file_tools: Option<BTreeMap<Text, FileTool>>,
    /// Rules from before packs existed: an extra pack of the user's own.
    destructive: Option<Vec<RuleRaw>>,
    answers: Option<HashMap<Text, Answer>>,
    exfiltration: Option<ExfiltrationRaw>,
    credentials: Option<Vec<CredentialRule>>,
    wallet: Option<WalletRules>,
    mask: Option<MaskRules>,
    messages: Option<Messages>,
}

#[derive(Debug, Default, PartialEq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
struct ExfiltrationRaw {
    network_programs: Option<Text>,
    credential_files: Option<Text>,
    env_dump_programs: Option<Text>,
    #[serde(default)]
    env_dump_args: Vec<Text>,
    #[serde(default)]
    output_options: Vec<Text>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields, default)]
struct Messages {
    user_message: Text,
    wallet_secret: Text,
    destructive: Text,
    ask: Text,
    warn: Text,
    exfiltration: Text,
    tool_result_note: Text,
    /// The answer past a limit of the guard's own (`{why}`, `{command}`).
    limit: Text,
}

impl Messages {
    /// The user's templates, with the defaults for the ones they left out.
    fn or(mut self, default: &Messages) -> Messages {
        for (mine, theirs) in [
            (&mut self.user_message, &default.user_message),
            (&mut self.wallet_secret, &default.wallet_secret),
            (&mut self.destructive, &default.destructive),
            (&mut self.ask, &default.ask),
            (&mut self.warn, &default.warn),
            (&mut self.exfiltration, &default.exfiltration),
            (&mut self.tool_result_note, &default.tool_result_note),
            (&mut self.limit, &default.limit),
        ] {
            if mine.is_empty() {
                mine.clone_from(theirs);
            }
        }
        self
    }
}

#[derive(Debug)]
struct Exfiltration {
    credential_files: Option<Regex>,
    env_dump_programs: Option<Regex>,
    env_dump_args: Vec<Text>,
    output_options: Vec<Text>,
}

/// The compiled guard.
#[derive(Debug)]
pub(crate) struct SecurityGuard {
    shell_tools: Vec<Text>,
    command_keys: Vec<Text>,
    message_tools: Vec<Text>,
    message_text_keys: Vec<Text>,
    prefixes: PrefixList,
    nested_shells: Vec<Text>,
    /// Programs whose option values are shell code (`su -c`, `env -S`).
    code_options: HashMap<Text, Vec<Text>>,
    command_runners: HashMap<Text, unwrap::Runner>,
    /// Programs that run their operands after a host as a command there (`ssh host cmd`),
    /// with their options that take a value.
    remote_shells: HashMap<Text, Vec<Text>>,
    /// `program subcommand` that runs the argv after a target inside it (`docker exec c
    /// cmd`, `kubectl exec pod -- cmd`), with its options that take a value.
    remote_execs: HashMap<Text, Vec<Text>>,
    /// Per program, its options before the subcommand that take a value (`git -C dir`).
    /// A list: it holds a name or two, and each command's program is found in it once
    /// per command text (`scan::Programs`).
    subcommand_options: Vec<(Text, Vec<Text>)>,
    /// Each interpreter with the index of its program regex in `programs`.
    interpreters: Vec<(usize, LanguageRaw)>,
    code_names: CodeNames,
    /// Every distinct program regex of the rules, the interpreters' and the network
    /// programs'. Each distinct program name of a command text is matched once against
    /// them (`scan::Programs`); a pattern whose literal bytes the name lacks is not run.
    programs: Vec<Regex>,
    network_index: Option<usize>,
    rules: Vec<Rule>,
    /// Which rules each program regex (by index in `programs`) belongs to, so that a
    /// command is checked against its program's rules only.
    program_rules: Vec<Vec<usize>>,
    /// Rules that look at output redirections without naming a program.
    redirect_rules: Vec<usize>,
    /// Rules that look only at the code's shape (`code` without program or redirect).
    code_rules: Vec<usize>,
    exfiltration: Exfiltration,
    scanner: Scanner,
    messages: Messages,
    /// What file tools do, judged by the same rules as the shell commands with that effect.
    file_tools: FileTools,
}

/// Program regexes, each distinct pattern compiled once.
#[derive(Default)]
struct ProgramSet {
    patterns: Vec<Text>,
    regexes: Vec<Regex>,
}

impl ProgramSet {
    fn index(
        &mut self,
        origin: Origin,
        field: &dyn Display,
        pattern: &Text,
    ) -> Result<usize, RulesError> {
        if let Some(at) = self.patterns.iter().position(|p| p == pattern) {
            return Ok(at);
        }
        self.regexes
            .push(rules::regex_from(origin, field, pattern)?);
        self.patterns.push(pattern.clone());
        Ok(self.regexes.len() - 1)
    }
}

/// security_guard's default credential and wallet-secret tables, built once, for whatever must
/// keep text without the secrets in it (an audit log, the runtime's decision log).
pub(crate) fn default_scanner() -> Option<&'static Scanner> {
    static GUARD: std::sync::OnceLock<Option<SecurityGuard>> = std::sync::OnceLock::new();
    GUARD
        .get_or_init(|| SecurityGuard::new(None).ok())
        .as_ref()
        .map(SecurityGuard::scanner)
}

impl SecurityGuard {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let def = default_rules();
        let user: Raw = match user_yaml {
            // `install` writes the defaults as they are, for the user to tune: until they
            // are tuned they are the defaults, already parsed, and not parsed again.
            Some(text) if text == DEFAULT_RULES => Raw::default(),
            Some(text) => rules::parse(text)?,
            None => Raw::default(),
        };
        // The defaults' regexes are tested, so only the user's are syntax-checked at load.
        let (packs, packs_origin): (BTreeMap<Text, Vec<RuleRaw>>, _) =
            rules::pick_from(user.packs, def.packs);
        let (exfil, exfil_origin): (ExfiltrationRaw, _) =
            rules::pick_from(user.exfiltration, def.exfiltration);
        let (interpreters_raw, interpreters_origin): (BTreeMap<Text, LanguageRaw>, _) =
            rules::pick_from(user.interpreters, def.interpreters);
        let answers: HashMap<Text, Answer> = pick(user.answers, def.answers);
        let mut programs = ProgramSet::default();
        let own = user
            .destructive
            .map(|rules| (Text::from("destructive"), rules));
        let enable = packs::with_includes(
            user.enable.or(def.enable).unwrap_or_default(),
            &pick(user.pack_includes, def.pack_includes),
        );
        // The shipped opt-in packs are decoded only when some pack is turned on.
        let shipped = if enable.is_empty() {
            BTreeMap::new()
        } else {
            default_opt_in_packs()
        };
        let enabled = packs::enabled(
            &packs,
            enable,
            shipped,
            user.opt_in_packs.unwrap_or_default(),
        )?;
        let rules = compile_packs(packs, packs_origin, enabled, own, &answers, &mut programs)?;
        let mut interpreters = Vec::new();
        for (name, lang) in interpreters_raw {
            let field = format_args!("interpreters.{name}.program");
            let index = programs.index(interpreters_origin, &field, &lang.program)?;
            interpreters.push((index, lang));
        }
        let (program_rules, redirect_rules, code_rules) =
            rule_indexes(&rules, programs.regexes.len());
        let network_index = match &exfil.network_programs {
            Some(p) if !p.is_empty() => {
                Some(programs.index(exfil_origin, &"exfiltration.network_programs", p)?)
            }
            _ => None,
        };
        let wallet: (WalletRules, _) = rules::pick_from(user.wallet, def.wallet);
        let credentials: (Vec<CredentialRule>, _) =
            rules::pick_from(user.credentials, def.credentials);
        let mask: MaskRules = pick(user.mask, def.mask);
        let default_messages = def.messages.unwrap_or_default();
        let messages = match user.messages {
            Some(mine) => mine.or(&default_messages),
            None => default_messages,
        };
        Ok(Self {
            shell_tools: pick(user.shell_tools, def.shell_tools),
            command_keys: pick(user.command_keys, def.command_keys),
            message_tools: pick(user.message_tools, def.message_tools),
            message_text_keys: pick(user.message_text_keys, def.message_text_keys),
            prefixes: shell::prefix_list(pick(user.command_prefixes, def.command_prefixes)),
            nested_shells: pick(user.nested_shells, def.nested_shells),
            code_options: pick(user.code_options, def.code_options),
            command_runners: pick(user.command_runners, def.command_runners),
            remote_shells: pick(user.remote_shells, def.remote_shells),
            remote_execs: pick(user.remote_execs, def.remote_execs),
            subcommand_options: pick(user.subcommand_options, def.subcommand_options)
                .into_iter()
                .collect(),
            interpreters,
            code_names: pick(user.interpreter_code, def.interpreter_code),
            programs: programs.regexes,
            network_index,
            rules,
            program_rules,
            redirect_rules,
            code_rules,
            exfiltration: Exfiltration::compile(exfil, exfil_origin)?,
            scanner: Scanner::new(credentials, wallet, mask)?,
            messages,
            file_tools: FileTools::new(user.file_tools, default_file_tools),
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
        let Some(input) = payload.get("tool_input").and_then(Value::as_object) else {
            return answer::noop();
        };
        let shell = answer::tool_is(&self.shell_tools, payload);
        if shell {
            let cwd = answer::str_field(payload, "cwd");
            for key in &self.command_keys {
                if let Some(command) = input.get(key.as_str()).and_then(Value::as_str)
                    && let Some(found) = self.check_command(command, cwd)
                {
                    return found.into_answer();
                }
            }
        }
        if answer::tool_is(&self.message_tools, payload) {
            return self.message_tool(input);
        }
        // A shell call's effects are its commands'; the file tools' map is not even read.
        if !shell && let Some(found) = self.file_tool(payload, input) {
            return found.into_answer();
        }
        answer::noop()
    }

    fn message_tool(&self, input: &Map<String, Value>) -> Value {
        let mut rewritten = Map::new();
        for (key, value) in input {
            let Some(text) = value.as_str() else { continue };
            if !self.message_text_keys.is_empty()
                && !self.message_text_keys.iter().any(|k| k == key)
            {
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

    /// The finding for this command text run in `cwd`, if any part of it that runs is
    /// dangerous.
    pub(crate) fn check_command(&self, text: &str, cwd: &str) -> Option<Finding> {
        let mut scan = Scan::new(self, Cwd::from_payload(cwd));
        scan.check(text, 0);
        scan.found
    }

    /// A rule's reason in the shape its answer calls for.
    fn rule_reason(&self, answer: Answer, why: &str, command: &str) -> String {
        let template = match answer {
            Answer::Ask => &self.messages.ask,
            Answer::Warn => &self.messages.warn,
            Answer::Block | Answer::Off => &self.messages.destructive,
        };
        fill(
            template,
            &[("why", why), ("rule", why), ("command", &quote(command))],
        )
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
    /// redirection, or, with `substitutions`, a `$(...)` that reads one).
    fn network_leaks(&self, command: &SimpleCommand, substitutions: bool) -> bool {
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
        substitutions
            && command.substitutions.iter().any(|sub| {
                let inner = shell::parse(&sub.text);
                inner.commands().any(|c| self.leaks(&c))
            })
    }
}

impl SecurityGuard {
    /// The finding for a file tool's call, if what it does is something a rule answers: each
    /// file it touches is judged as the shell command with the same effect.
    fn file_tool(&self, payload: &Value, input: &Map<String, Value>) -> Option<Finding> {
        let stands = self.file_tools.stands(payload, input);
        if stands.is_empty() {
            return None;
        }
        let cwd = Cwd::from_payload(answer::str_field(payload, "cwd"));
        let mut found: Option<Finding> = None;
        for stand in stands {
            let mut text = shell::quote_words(&stand.words);
            if let Some(target) = &stand.redirect_to {
                text.push_str(" > ");
                text.push_str(&shell::quote_words(std::slice::from_ref(target)));
            }
            let mut scan = Scan::new(self, cwd.clone());
            scan.check(&text, 0);
            let Some(mut finding) = scan.found else {
                continue;
            };
            // The rule quotes the command that stands for the call; the user sees the call.
            let quoted = quote(&stand.words.join(" "));
            if let Some(head) = finding.reason.strip_suffix(quoted.as_str()) {
                finding.reason = format!("{head}{}", quote(&stand.shown));
            }
            if found.as_ref().is_none_or(|f| finding.answer > f.answer) {
                found = Some(finding);
            }
        }
        found
    }
}

impl Finding {
    /// The answer a finding gives a tool call.
    fn into_answer(self) -> Value {
        match self.answer {
            Answer::Block | Answer::Off => answer::block(self.reason),
            Answer::Ask if self.limit => answer::limit(self.reason),
            Answer::Ask => answer::ask(self.reason),
            Answer::Warn => answer::field("add_warning", self.reason),
        }
    }
}

/// The packs of security_guard with the rules file `rules_yaml` (`None`: the defaults).
/// An unknown name in `enable` is the same error the guard gives when it loads.
pub fn rule_packs(rules_yaml: Option<&str>) -> Result<RulePacks, RulesError> {
    let def = default_rules();
    let user: Raw = match rules_yaml {
        Some(text) => rules::parse(text)?,
        None => Raw::default(),
    };
    let packs = rules::pick(user.packs, def.packs);
    let defaults = default_opt_in_packs();
    let mine = user.opt_in_packs.unwrap_or_default();
    let available: Vec<String> = defaults
        .keys()
        .chain(mine.keys())
        .map(ToString::to_string)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let named = user.enable.or(def.enable).unwrap_or_default();
    let enable = packs::with_includes(named.clone(), &pick(user.pack_includes, def.pack_includes));
    let enabled = packs::enabled(&packs, enable, defaults, mine)?
        .into_iter()
        .map(|(name, _, _)| name.to_string())
        .collect();
    Ok(RulePacks {
        always_on: packs.keys().map(ToString::to_string).collect(),
        named: named.iter().map(ToString::to_string).collect(),
        enabled,
        available,
    })
}

/// The default rules, from their binary form. A test keeps that equal to `DEFAULT_RULES`;
/// should it ever not decode anyway, the YAML is parsed instead, and should that fail too,
/// empty tables are the fail-open answer rather than a panic.
fn default_rules() -> Raw {
    postcard::from_bytes(DEFAULT_RULES_BLOB)
        .or_else(|_| rules::parse(DEFAULT_RULES))
        .unwrap_or_default()
}

/// The default tables a guard may never need, kept out of the main blob so that building the
/// guard does not decode them: the opt-in packs (needed when one is turned on) and the file
/// tools (needed when a tool other than a shell is called).
#[derive(Debug, Default, PartialEq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
struct Deferred {
    opt_in_packs: Option<BTreeMap<Text, Vec<RuleRaw>>>,
    file_tools: Option<BTreeMap<Text, FileTool>>,
}

/// The deferred defaults, from their own binary form (the YAML's should it not decode).
fn deferred_defaults() -> Deferred {
    postcard::from_bytes(DEFAULT_OPT_IN_BLOB)
        .ok()
        .or_else(|| {
            rules::parse::<Raw>(DEFAULT_RULES).ok().map(|raw| Deferred {
                opt_in_packs: raw.opt_in_packs,
                file_tools: raw.file_tools,
            })
        })
        .unwrap_or_default()
}

/// The shipped opt-in packs.
fn default_opt_in_packs() -> BTreeMap<Text, Vec<RuleRaw>> {
    deferred_defaults().opt_in_packs.unwrap_or_default()
}

/// The shipped file tools.
fn default_file_tools() -> BTreeMap<Text, FileTool> {
    deferred_defaults().file_tools.unwrap_or_default()
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

/// Compiles one pack rule. Its answer is, in order: `answers` for the rule's name, `answers`
/// for its pack, the rule's own `answer`, block.
/// Every rule of the packs, then the user's own `destructive` rules, compiled in that order
/// (the order their indexes keep).
fn compile_packs(
    packs: BTreeMap<Text, Vec<RuleRaw>>,
    packs_origin: Origin,
    enabled: Vec<(Text, Vec<RuleRaw>, Origin)>,
    own: Option<(Text, Vec<RuleRaw>)>,
    answers: &HashMap<Text, Answer>,
    programs: &mut ProgramSet,
) -> Result<Vec<Rule>, RulesError> {
    // Sized once: a compiled rule is large, and growing the list rule by rule copied and
    // touched twice the memory, in a process that builds it for one event.
    let count = packs
        .values()
        .chain(enabled.iter().map(|(_, r, _)| r))
        .chain(own.as_ref().map(|(_, r)| r))
        .map(Vec::len)
        .sum();
    let mut rules = Vec::with_capacity(count);
    let packs = packs
        .into_iter()
        .map(|(name, raws)| ("packs", name, raws, packs_origin))
        .chain(
            enabled
                .into_iter()
                .map(|(name, raws, origin)| ("opt_in_packs", name, raws, origin)),
        )
        .chain(own.map(|(name, raws)| ("packs", name, raws, Origin::User)));
    for (key, pack, raws, origin) in packs {
        for (i, raw) in raws.into_iter().enumerate() {
            rules.push(compile_rule(
                raw,
                &pack,
                &format_args!("{key}.{pack}[{i}]"),
                origin,
                answers,
                programs,
            )?);
        }
    }
    Ok(rules)
}

/// Which rules (by index) a command can meet: per program regex, on an output redirection
/// alone, and on the code's shape alone. Rules answered `off` are in none.
fn rule_indexes(rules: &[Rule], programs: usize) -> (Vec<Vec<usize>>, Vec<usize>, Vec<usize>) {
    let mut program_rules = vec![Vec::new(); programs];
    let (mut redirect_rules, mut code_rules) = (Vec::new(), Vec::new());
    for (index, rule) in rules.iter().enumerate() {
        if rule.answer == Answer::Off {
            continue;
        }
        match (rule.program, &rule.redirect, &rule.code) {
            (Some(program), _, _) => {
                if let Some(list) = program_rules.get_mut(program) {
                    list.push(index);
                }
            }
            (None, Some(_), _) => redirect_rules.push(index),
            (None, None, Some(_)) => code_rules.push(index),
            (None, None, None) => {}
        }
    }
    (program_rules, redirect_rules, code_rules)
}

impl Exfiltration {
    /// The exfiltration rules with their regexes compiled; `origin` says whose they are.
    fn compile(exfil: ExfiltrationRaw, origin: Origin) -> Result<Exfiltration, RulesError> {
        Ok(Exfiltration {
            credential_files: rules::optional_regex_from(
                origin,
                &"exfiltration.credential_files",
                exfil.credential_files.as_ref(),
            )?,
            env_dump_programs: rules::optional_regex_from(
                origin,
                &"exfiltration.env_dump_programs",
                exfil.env_dump_programs.as_ref(),
            )?,
            env_dump_args: exfil.env_dump_args,
            output_options: exfil.output_options,
        })
    }
}

fn compile_rule(
    raw: RuleRaw,
    pack: &Text,
    field: &dyn Display,
    origin: Origin,
    answers: &HashMap<Text, Answer>,
    programs: &mut ProgramSet,
) -> Result<Rule, RulesError> {
    let program = match &raw.program {
        Some(p) => Some(programs.index(origin, &format_args!("{field}.program"), p)?),
        None => None,
    };
    let pipeline_program = match &raw.pipeline_program {
        Some(p) => Some(programs.index(origin, &format_args!("{field}.pipeline_program"), p)?),
        None => None,
    };
    let answer = answers
        .get(raw.name.as_str())
        .or_else(|| answers.get(pack))
        .copied()
        .or(raw.answer)
        .unwrap_or_default();
    let subcommand: Vec<Vec<Text>> = raw.subcommand.iter().map(Text::words).collect();
    Ok(Rule {
        // A clone of the pack's name as the rules file gave it: borrowed from the compiled
        // defaults, so no allocation per rule at start-up.
        pack: pack.clone(),
        why: raw.why.clone().unwrap_or_else(|| raw.name.clone()),
        answer,
        program,
        pipeline_program,
        subcommand,
        options: raw.options,
        options_none: raw.options_none,
        value_options: raw.value_options,
        operands_any: rules::optional_regex_from(
            origin,
            &format_args!("{field}.operands_any"),
            raw.operands_any.as_ref(),
        )?,
        operands_min: raw.operands_min,
        after_dashdash: raw.after_dashdash,
        paths: raw.paths,
        leading_operands: raw.leading_operands,
        args_all: rules::regexes_from(origin, &format_args!("{field}.args_all"), &raw.args_all)?,
        args_none: rules::regexes_from(origin, &format_args!("{field}.args_none"), &raw.args_none)?,
        redirect: rules::optional_regex_from(
            origin,
            &format_args!("{field}.redirect"),
            raw.redirect.as_ref(),
        )?,
        code: rules::optional_regex_from(origin, &format_args!("{field}.code"), raw.code.as_ref())?,
        name: raw.name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_rules_blob_is_the_yaml() {
        let mut yaml: Raw = rules::parse(DEFAULT_RULES).expect("the default rules parse");
        let opt_in = Deferred {
            opt_in_packs: yaml.opt_in_packs.take(),
            file_tools: yaml.file_tools.take(),
        };
        assert!(opt_in.opt_in_packs.is_some() && opt_in.file_tools.is_some());
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/guards/");
        let opt_in_path = format!("{dir}security_guard.opt_in.postcard");
        let opt_in_blob: Result<Deferred, _> = postcard::from_bytes(DEFAULT_OPT_IN_BLOB);
        let updating = std::env::var_os("UPDATE_DEFAULTS").is_some();
        if updating && opt_in_blob.as_ref().ok() != Some(&opt_in) {
            let bytes = postcard::to_allocvec(&opt_in).expect("the packs serialize");
            std::fs::write(&opt_in_path, bytes).expect("the opt-in blob is writable");
        } else {
            let blob = opt_in_blob.expect("the opt-in blob decodes; rerun with UPDATE_DEFAULTS=1");
            assert!(
                blob == opt_in,
                "rerun with UPDATE_DEFAULTS=1 to refresh {opt_in_path}"
            );
            assert_eq!(deferred_defaults(), opt_in);
        }
        let path = format!("{dir}security_guard.defaults.postcard");
        let blob: Result<Raw, _> = postcard::from_bytes(DEFAULT_RULES_BLOB);
        // The maps' order is random, so the bytes are rewritten only when their meaning differs.
        if updating && blob.as_ref().ok() != Some(&yaml) {
            let bytes = postcard::to_allocvec(&yaml).expect("the rules serialize");
            std::fs::write(&path, bytes).expect("the defaults blob is writable");
            return;
        }
        let blob = blob.expect("the blob decodes; rerun with UPDATE_DEFAULTS=1 to refresh it");
        assert!(
            blob == yaml,
            "rerun with UPDATE_DEFAULTS=1 to refresh {path}"
        );
        // Every table of the rules file is in it, and the guard builds on it.
        assert_eq!(default_rules(), yaml);
        assert!(yaml.packs.as_ref().is_some_and(|p| !p.is_empty()));
    }

    #[test]
    fn the_compiled_default_rules_borrow_their_strings_from_the_blob() {
        let guard = SecurityGuard::new(None).expect("the defaults build");
        let texts: Vec<&Text> = guard
            .rules
            .iter()
            .flat_map(|rule| {
                [&rule.name, &rule.why]
                    .into_iter()
                    .chain(rule.subcommand.iter().flatten())
                    .chain(rule.options.iter().flatten())
                    .chain(&rule.value_options)
            })
            .chain(&guard.shell_tools)
            .chain(
                guard
                    .interpreters
                    .iter()
                    .flat_map(|(_, lang)| &lang.shell_calls),
            )
            .chain(&guard.code_names.network_names)
            .collect();
        assert!(texts.len() > 300, "only {} strings", texts.len());
        let copied: Vec<&&Text> = texts.iter().filter(|t| !t.is_borrowed()).collect();
        assert!(copied.is_empty(), "copied out of the blob: {copied:?}");
        // A user's rules are their own.
        let user = SecurityGuard::new(Some("shell_tools: [bash]")).expect("builds");
        assert!(user.shell_tools.iter().all(|t| !t.is_borrowed()));
    }
}
