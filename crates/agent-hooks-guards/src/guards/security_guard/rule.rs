//! One rule of a pack, compiled, and how it reads a command's arguments: the subcommand
//! after a program's global options (`git -C repo reset`), options with short clusters
//! expanded (`-rf` is `-r -f`, unless a letter takes a value as in `-bfix`), operands
//! (everything after `--`), and where path operands point.

use std::borrow::Cow;

use serde::Deserialize;

use super::paths::{Cwd, Place};
use crate::rules::LazyRegex as Regex;
use crate::rules::Text;

/// What the guard answers when a rule matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(rename_all = "lowercase")]
pub(crate) enum Answer {
    /// The rule is switched off.
    Off,
    /// Continue, with a warning shown to the user.
    Warn,
    /// Let the user decide (Claude Code shows its permission prompt).
    Ask,
    /// Deny the call.
    #[default]
    Block,
}

/// Which path operands a rule is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(rename_all = "snake_case")]
pub(crate) enum PathScope {
    /// Outside the working directory and the temp dirs, or unknown.
    Outside,
    /// As `outside`, and also the working directory itself (`.`, `*`).
    OutsideOrWorkdir,
}

/// A rule as the rules file spells it.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct RuleRaw {
    pub(crate) name: Text,
    pub(crate) why: Option<Text>,
    pub(crate) answer: Option<Answer>,
    pub(crate) program: Option<Text>,
    #[serde(default)]
    pub(crate) subcommand: Vec<Text>,
    #[serde(default)]
    pub(crate) options: Vec<Vec<Text>>,
    #[serde(default)]
    pub(crate) options_none: Vec<Text>,
    #[serde(default)]
    pub(crate) value_options: Vec<Text>,
    pub(crate) operands_any: Option<Text>,
    pub(crate) operands_min: Option<usize>,
    #[serde(default)]
    pub(crate) after_dashdash: bool,
    pub(crate) paths: Option<PathScope>,
    #[serde(default)]
    pub(crate) leading_operands: bool,
    pub(crate) pipeline_program: Option<Text>,
    #[serde(default)]
    pub(crate) args_all: Vec<Text>,
    #[serde(default)]
    pub(crate) args_none: Vec<Text>,
    pub(crate) redirect: Option<Text>,
    pub(crate) code: Option<Text>,
}

/// A compiled rule. `program` and `pipeline_program` index the guard's program regexes,
/// which are matched once per distinct program name.
#[derive(Debug)]
pub(crate) struct Rule {
    pub(crate) name: Text,
    /// The pack the rule comes from (shown by `explain`).
    pub(crate) pack: Text,
    pub(crate) why: Text,
    pub(crate) answer: Answer,
    pub(crate) program: Option<usize>,
    pub(crate) pipeline_program: Option<usize>,
    pub(crate) subcommand: Vec<Vec<Text>>,
    pub(crate) options: Vec<Vec<Text>>,
    pub(crate) options_none: Vec<Text>,
    pub(crate) value_options: Vec<Text>,
    pub(crate) operands_any: Option<Regex>,
    pub(crate) operands_min: Option<usize>,
    pub(crate) after_dashdash: bool,
    pub(crate) paths: Option<PathScope>,
    pub(crate) leading_operands: bool,
    pub(crate) args_all: Vec<Regex>,
    pub(crate) args_none: Vec<Regex>,
    pub(crate) redirect: Option<Regex>,
    pub(crate) code: Option<Regex>,
}

impl Rule {
    /// Whether the rule's subcommand could start with `word` (always, without one).
    pub(crate) fn may_start(&self, word: Option<&str>) -> bool {
        self.subcommand.is_empty()
            || word.is_some_and(|word| {
                self.subcommand.iter().any(|alt| {
                    alt.first()
                        .is_some_and(|first| crate::shell::same(first, word))
                })
            })
    }

    /// Whether the rule looks at arguments at all (beyond program, redirect and code).
    fn reads_args(&self) -> bool {
        !self.subcommand.is_empty()
            || !self.options.is_empty()
            || !self.options_none.is_empty()
            || self.operands_any.is_some()
            || self.operands_min.is_some()
            || self.after_dashdash
            || self.paths.is_some()
            || !self.args_all.is_empty()
            || !self.args_none.is_empty()
    }

    /// Whether the arguments `args` of the program (run in `cwd`) match; a subcommand
    /// starts at `args[sub_start]` ([`subcommand_start`]).
    pub(crate) fn matches_args(&self, args: &[Cow<'_, str>], sub_start: usize, cwd: &Cwd) -> bool {
        if !self.reads_args() {
            return true;
        }
        let mut rest = args;
        if !self.subcommand.is_empty() {
            let words = args.get(sub_start..).unwrap_or(&[]);
            let Some(len) = self.subcommand.iter().find_map(|alternative| {
                (words.len() >= alternative.len()
                    && alternative.iter().zip(words).all(|(a, w)| a == w))
                .then_some(alternative.len())
            }) else {
                return false;
            };
            rest = words.get(len..).unwrap_or(&[]);
        }
        let parsed = Parsed::new(rest, &self.value_options, self.leading_operands);
        if !self
            .options
            .iter()
            .all(|group| group.iter().any(|o| parsed.has(o)))
        {
            return false;
        }
        if self.options_none.iter().any(|o| parsed.has(o)) {
            return false;
        }
        if self
            .operands_min
            .is_some_and(|min| parsed.operand_count() < min)
        {
            return false;
        }
        if self.after_dashdash && !parsed.any_operand(|_, after| after) {
            return false;
        }
        // An operand matches as written or as the path it names here (`cd / && rm -rf *`).
        if let Some(re) = &self.operands_any
            && !parsed.any_operand(|o, _| {
                re.is_match(o) || cwd.resolve(o).is_some_and(|path| re.is_match(&path))
            })
        {
            return false;
        }
        if let Some(scope) = self.paths {
            let hit = parsed.any_operand(|o, _| match cwd.place(o) {
                Place::Outside | Place::Unknown => true,
                Place::WorkDir => scope == PathScope::OutsideOrWorkdir,
                Place::Temp | Place::Inside => false,
            });
            if !hit {
                return false;
            }
        }
        if !self.args_all.is_empty() || !self.args_none.is_empty() {
            let joined = rest.join(" ");
            if !self.args_all.iter().all(|re| re.is_match(&joined))
                || self.args_none.iter().any(|re| re.is_match(&joined))
            {
                return false;
            }
        }
        true
    }
}

/// Where a program's subcommand starts: past its global options (and their values);
/// `global` lists those that take a value.
pub(crate) fn subcommand_start(args: &[Cow<'_, str>], global: &[Text]) -> usize {
    crate::shell::past_options(args, 0, global)
}

/// One option as given: a long name (`--force`, value cut off) or a short letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt<'w> {
    Long(&'w str),
    Short(char),
}

/// One argument after the program (and subcommand), as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arg<'w> {
    Opt(Opt<'w>),
    /// An operand, and whether it came after `--`.
    Operand(&'w str, bool),
}

/// The arguments read as options and operands, without allocating: every question walks
/// them again, which for a handful of words is cheaper than building lists.
#[derive(Debug, Clone, Copy)]
struct Parsed<'w, 'r> {
    args: &'w [Cow<'w, str>],
    value_options: &'r [Text],
    /// Only the operands before the first option count (`find DIR... -expr`).
    leading: bool,
}

impl<'w, 'r> Parsed<'w, 'r> {
    fn new(args: &'w [Cow<'w, str>], value_options: &'r [Text], leading: bool) -> Self {
        Parsed {
            args,
            value_options,
            leading,
        }
    }

    /// Calls `visit` for each option and operand; stops when it returns `true`.
    fn walk(&self, mut visit: impl FnMut(Arg<'w>) -> bool) -> bool {
        let mut words = self.args.iter().map(|w| w.as_ref());
        let mut options_done = false;
        let mut seen_option = false;
        while let Some(word) = words.next() {
            if options_done || word == "-" || !word.starts_with('-') {
                if self.leading && seen_option {
                    continue;
                }
                if self.leading && (word == "(" || word == "!") {
                    seen_option = true;
                    continue;
                }
                if visit(Arg::Operand(word, options_done)) {
                    return true;
                }
                continue;
            }
            if word == "--" {
                options_done = true;
                continue;
            }
            seen_option = true;
            if let Some(long) = word.strip_prefix("--") {
                let name = &word[..2 + long.split('=').next().unwrap_or(long).len()];
                if visit(Arg::Opt(Opt::Long(name))) {
                    return true;
                }
                if !long.contains('=') && self.value_options.iter().any(|v| v == name) {
                    words.next();
                }
                continue;
            }
            if self.leading {
                // `find` predicates are single-dash words, not letter clusters.
                if visit(Arg::Opt(Opt::Long(word))) {
                    return true;
                }
                continue;
            }
            let letters = &word[1..];
            for (at, letter) in letters.char_indices() {
                if visit(Arg::Opt(Opt::Short(letter))) {
                    return true;
                }
                let takes_value = self.value_options.iter().any(|v| {
                    let mut chars = v.chars();
                    chars.next() == Some('-')
                        && chars.next() == Some(letter)
                        && chars.next().is_none()
                });
                if takes_value {
                    if at + letter.len_utf8() == letters.len() {
                        words.next();
                    }
                    break;
                }
            }
        }
        false
    }

    /// Whether option `name` (`-f`, `--force`, or a `find` predicate such as `-delete`)
    /// was given.
    fn has(&self, name: &str) -> bool {
        let mut chars = name.chars();
        let short = match (chars.next(), chars.next(), chars.next()) {
            (Some('-'), Some(letter), None) if letter != '-' => Some(letter),
            _ => None,
        };
        self.walk(|arg| match (arg, short) {
            (Arg::Opt(Opt::Short(letter)), Some(want)) => letter == want,
            (Arg::Opt(Opt::Long(long)), _) => long == name,
            _ => false,
        })
    }

    /// Whether some operand satisfies `test` (given the operand and whether it came
    /// after `--`).
    fn any_operand(&self, mut test: impl FnMut(&'w str, bool) -> bool) -> bool {
        self.walk(|arg| match arg {
            Arg::Operand(word, after) => test(word, after),
            Arg::Opt(_) => false,
        })
    }

    fn operand_count(&self) -> usize {
        let mut count = 0;
        self.any_operand(|_, _| {
            count += 1;
            false
        });
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Cow<'static, str>> {
        text.split_whitespace()
            .map(|w| Cow::Owned(w.to_owned()))
            .collect()
    }

    #[test]
    fn clusters_expand_until_a_letter_takes_a_value() {
        let args = words("-qf -bfix --force=yes -- -x y");
        let values = vec![Text::from("-b")];
        let parsed = Parsed::new(&args, &values, false);
        assert!(parsed.has("-q") && parsed.has("-f") && parsed.has("-b"));
        assert!(parsed.has("--force"));
        assert!(!parsed.has("-x") && !parsed.has("-i"));
        let mut operands = Vec::new();
        parsed.any_operand(|o, after| {
            operands.push((o, after));
            false
        });
        assert_eq!(operands, vec![("-x", true), ("y", true)]);
    }

    #[test]
    fn subcommands_start_after_global_options() {
        let global = vec![Text::from("-C"), Text::from("-c")];
        assert_eq!(subcommand_start(&words("-C repo reset --hard"), &global), 2);
        assert_eq!(
            subcommand_start(&words("-Crepo --no-pager reset"), &global),
            2
        );
        assert_eq!(subcommand_start(&words("-- reset"), &global), 1);
    }
}
