//! `/hooks list` (and bare `/hooks`): the master switch, the configuration files, and every hook
//! of every source with its one health word — reason first, then the evidence. The health itself
//! is computed in [`crate::inspect::health`]; this module only lays it out.

use super::CommandOutput;
use crate::engine::Engine;
use crate::inspect::health::{self, Health, HookHealth, Report};
use crate::inspect::render::{
    entry_errors, facts, files_section, has_entry_errors, header, other_findings, plural, reasons,
    tone_of,
};
use crate::inspect::style::{Style, wrap_into};

pub(crate) fn run(engine: &Engine, json: bool, style: Style) -> CommandOutput {
    let report = health::assess_engine(engine);
    if json {
        return CommandOutput::ok(super::to_json(&report));
    }
    let mut text = String::new();
    header(&mut text, &report, "list", style);
    files_section(&mut text, &report.files, style);
    text.push_str("\nHooks\n");
    if report.hooks.is_empty() && !has_entry_errors(&report.files) {
        // The seeds' empty `/hooks` offers the ready-made hooks: the shortest way to a first one.
        text.push_str(
            "  None declared. Install a ready-made one with /hooks install <name|number>,\n  or write your own (docs/writing-hooks.md):\n",
        );
        text.push_str(&crate::guards::numbered_list());
    }
    for hook in &report.hooks {
        hook_block(&mut text, hook, style);
    }
    entry_errors(&mut text, &report.files, style);
    text.push('\n');
    summary(&mut text, &report);
    CommandOutput::ok(text)
}

/// One hook: name and health word, the why and the fix, then what it is.
fn hook_block(out: &mut String, hook: &HookHealth, style: Style) {
    let tone = tone_of(hook.health);
    out.push_str(&format!(
        "\n  {}{}: {}\n",
        style.mark(tone),
        hook.name,
        style.paint(tone, hook.health.as_str())
    ));
    reasons(out, hook);
    facts(out, hook);
    if let Some(packs) = crate::inspect::listing::rule_packs_line(&hook.hook) {
        crate::inspect::style::field(
            out,
            crate::inspect::render::INDENT,
            "packs:",
            crate::inspect::render::LABEL,
            &packs,
        );
    }
    other_findings(out, hook);
}

fn summary(out: &mut String, report: &Report) {
    let mut counts: Vec<(Health, usize)> = Vec::new();
    for hook in &report.hooks {
        match counts.iter_mut().find(|(h, _)| *h == hook.health) {
            Some((_, n)) => *n += 1,
            None => counts.push((hook.health, 1)),
        }
    }
    counts.sort();
    let mut parts: Vec<String> = counts
        .iter()
        .map(|(h, n)| format!("{n} {}", h.as_str()))
        .collect();
    let config_errors = report.config_errors().count();
    if config_errors > 0 {
        parts.push(format!(
            "{config_errors} config error{}",
            plural(config_errors)
        ));
    }
    let n = report.hooks.len();
    let mut line = format!("{n} hook{}", plural(n));
    if !parts.is_empty() {
        line.push_str(&format!(": {}", parts.join(", ")));
    }
    line.push_str(". /hooks doctor runs each approved hook once to check it.");
    wrap_into(out, "", 0, &line);
}
