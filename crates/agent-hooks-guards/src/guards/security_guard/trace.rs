//! What `agent-hooks explain` shows: a walk of one command text that records every simple
//! command the guard reached (how it got there, the program that runs after unwrapping,
//! its arguments) and every rule that fired or nearly fired on it, with its pack.

use serde::Serialize;

use super::rule::{Answer, Rule};

/// The guard's reading of one command text.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// The command text explained.
    pub command: String,
    /// The answer the guard gives it: `block`, `ask`, `warn` or `allow`.
    pub decision: String,
    /// The reason the agent would be told, when the answer is not `allow`.
    pub reason: Option<String>,
    /// Each simple command reached, in the order the guard read them.
    pub commands: Vec<ExplainedCommand>,
    /// Findings on the text as a whole (its code shape, a limit of the guard's own).
    pub text_findings: Vec<ExplainedRule>,
}

/// One simple command as the guard read it.
#[derive(Debug, Clone, Serialize)]
pub struct ExplainedCommand {
    /// How deep in nested code it is (0: the text itself).
    pub depth: usize,
    /// What brought the guard to it: the program or construct whose code it is
    /// (`bash`, `$(…)`, `xargs`, `alias`, `expansion`...); `None` at the top.
    pub via: Option<String>,
    /// Its words as bash sees them (quotes removed, escapes decoded).
    pub words: Vec<String>,
    /// The program that runs after wrappers (`sudo`, `env`, `timeout`...) are unwrapped.
    pub program: Option<String>,
    /// That program's arguments.
    pub args: Vec<String>,
    /// What the rules that fired say it does.
    pub effects: Vec<String>,
    /// The rules that fired on it, and those that name its program but did not match.
    pub rules: Vec<ExplainedRule>,
}

/// A rule that fired or nearly fired.
#[derive(Debug, Clone, Serialize)]
pub struct ExplainedRule {
    /// The rule's name (what `answers:` in the rules file refers to).
    pub name: String,
    /// The pack it comes from (`filesystem`, `git`, ...; `guard` for the guard's own limits).
    pub pack: String,
    /// Its answer: `block`, `ask`, `warn` or `off`.
    pub answer: String,
    /// Its reason.
    pub why: String,
    /// Whether it matched (`false`: it names the program but its conditions did not hold).
    pub fired: bool,
}

/// What a walk records while tracing.
#[derive(Debug, Default)]
pub(crate) struct Trace {
    pub(crate) commands: Vec<ExplainedCommand>,
    pub(crate) text_findings: Vec<ExplainedRule>,
    /// The construct whose code is being walked (see [`ExplainedCommand::via`]).
    pub(crate) via: Option<String>,
}

pub(crate) fn answer_word(answer: Answer) -> &'static str {
    match answer {
        Answer::Block => "block",
        Answer::Ask => "ask",
        Answer::Warn => "warn",
        Answer::Off => "off",
    }
}

impl Trace {
    /// A command reached at `depth`.
    pub(crate) fn command(
        &mut self,
        depth: usize,
        words: &[impl AsRef<str>],
        argv: Option<(&str, &[impl AsRef<str>])>,
    ) {
        self.commands.push(ExplainedCommand {
            depth,
            via: self.via.clone(),
            words: words.iter().map(|w| w.as_ref().to_owned()).collect(),
            program: argv.map(|(p, _)| p.to_owned()),
            args: argv.map_or_else(Vec::new, |(_, a)| {
                a.iter().map(|w| w.as_ref().to_owned()).collect()
            }),
            effects: Vec::new(),
            rules: Vec::new(),
        });
    }

    /// A rule of the guard's that fired (or nearly) on the last command reached.
    pub(crate) fn rule(&mut self, rule: &Rule, fired: bool) {
        let entry = ExplainedRule {
            name: rule.name.to_string(),
            pack: rule.pack.to_string(),
            answer: answer_word(rule.answer).to_owned(),
            why: rule.why.to_string(),
            fired,
        };
        self.attach(entry);
    }

    /// A finding with no rule of its own behind it (a limit, a built-in check).
    pub(crate) fn finding(&mut self, name: &str, pack: &str, answer: Answer, why: &str) {
        let entry = ExplainedRule {
            name: name.to_owned(),
            pack: pack.to_owned(),
            answer: answer_word(answer).to_owned(),
            why: why.to_owned(),
            fired: true,
        };
        self.attach(entry);
    }

    /// A rule on the whole text's code shape.
    pub(crate) fn text_rule(&mut self, rule: &Rule) {
        self.text_findings.push(ExplainedRule {
            name: rule.name.to_string(),
            pack: rule.pack.to_string(),
            answer: answer_word(rule.answer).to_owned(),
            why: rule.why.to_string(),
            fired: true,
        });
    }

    fn attach(&mut self, entry: ExplainedRule) {
        match self.commands.last_mut() {
            Some(command) => {
                if entry.fired && !command.effects.contains(&entry.why) {
                    command.effects.push(entry.why.clone());
                }
                // A rule's name once: fired if any of its variants fired.
                if entry.fired {
                    command.rules.retain(|r| r.name != entry.name || r.fired);
                }
                if !command.rules.iter().any(|r| r.name == entry.name) {
                    command.rules.push(entry);
                }
            }
            None => self.text_findings.push(entry),
        }
    }
}
