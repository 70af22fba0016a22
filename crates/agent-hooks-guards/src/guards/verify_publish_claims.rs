//! verify_publish_claims: catches "published! <link>" claims that no tool backs up, by
//! checking every cited link or id against the registries the publishing tools write, and
//! "the task is scheduled" claims against the scheduling tools and the host's job records.
//! Blocks (redo) on on_stop / on_completion_claim, appends a note on on_response_end.

use std::sync::LazyLock;

use crate::rules::LazyRegex as Regex;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::answer::{self, fill};
use crate::context::GuardContext;
use crate::records;
use crate::rules::{self, RulesError, pick};

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/verify_publish_claims.yaml");
const NAME: &str = "verify_publish_claims";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    claim_patterns: Option<Vec<String>>,
    offer_patterns: Option<Vec<String>>,
    reference_patterns: Option<Vec<String>>,
    shared_reference_patterns: Option<Vec<String>>,
    shared_reference_tools: Option<Vec<String>>,
    ignore_hosts: Option<Vec<String>>,
    evidence_files: Option<Vec<String>>,
    unpublished_fields: Option<Vec<String>>,
    schedule_claim_patterns: Option<Vec<String>>,
    schedule_tools: Option<Vec<String>>,
    schedule_files: Option<Vec<String>>,
    schedule_recent_seconds: Option<u64>,
    max_blocks_per_session: Option<u64>,
    session_ttl_seconds: Option<u64>,
    block_reason: Option<String>,
    schedule_block_reason: Option<String>,
    unverified_note: Option<String>,
    schedule_note: Option<String>,
    cap_warning: Option<String>,
}

#[derive(Debug)]
pub(crate) struct VerifyPublishClaims {
    claims: Vec<Regex>,
    offers: Vec<Regex>,
    references: Vec<Regex>,
    shared_references: Vec<Regex>,
    shared_tools: Vec<String>,
    ignore_hosts: Vec<String>,
    evidence_files: Vec<String>,
    unpublished_fields: Vec<String>,
    schedule_claims: Vec<Regex>,
    schedule_tools: Vec<String>,
    schedule_files: Vec<String>,
    schedule_recent: f64,
    max_blocks: u64,
    ttl: u64,
    block_reason: String,
    schedule_block_reason: String,
    unverified_note: String,
    schedule_note: String,
    cap_warning: String,
}

/// What a reply claims that nothing backs.
enum Unbacked {
    /// Links or ids cited by a publish claim.
    References(Vec<String>),
    /// A sentence saying a task is scheduled.
    Schedule(String),
}

/// The evidence files' text: every record, and only the records that are public.
struct Evidence {
    all: String,
    public: String,
}

impl VerifyPublishClaims {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let (user, def) = rules::load::<Raw>(DEFAULT_RULES, user_yaml)?;
        let recent: u64 = pick(user.schedule_recent_seconds, def.schedule_recent_seconds);
        Ok(Self {
            claims: rules::regexes(
                "claim_patterns",
                &pick(user.claim_patterns, def.claim_patterns),
            )?,
            offers: rules::regexes(
                "offer_patterns",
                &pick(user.offer_patterns, def.offer_patterns),
            )?,
            references: rules::regexes(
                "reference_patterns",
                &pick(user.reference_patterns, def.reference_patterns),
            )?,
            shared_references: rules::regexes(
                "shared_reference_patterns",
                &pick(
                    user.shared_reference_patterns,
                    def.shared_reference_patterns,
                ),
            )?,
            shared_tools: pick(user.shared_reference_tools, def.shared_reference_tools),
            ignore_hosts: pick(user.ignore_hosts, def.ignore_hosts),
            evidence_files: pick(user.evidence_files, def.evidence_files),
            unpublished_fields: pick(user.unpublished_fields, def.unpublished_fields),
            schedule_claims: rules::regexes(
                "schedule_claim_patterns",
                &pick(user.schedule_claim_patterns, def.schedule_claim_patterns),
            )?,
            schedule_tools: pick(user.schedule_tools, def.schedule_tools),
            schedule_files: pick(user.schedule_files, def.schedule_files),
            schedule_recent: recent as f64,
            max_blocks: pick(user.max_blocks_per_session, def.max_blocks_per_session),
            ttl: pick(user.session_ttl_seconds, def.session_ttl_seconds),
            block_reason: pick(user.block_reason, def.block_reason),
            schedule_block_reason: pick(user.schedule_block_reason, def.schedule_block_reason),
            unverified_note: pick(user.unverified_note, def.unverified_note),
            schedule_note: pick(user.schedule_note, def.schedule_note),
            cap_warning: pick(user.cap_warning, def.cap_warning),
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, ctx: &mut GuardContext) -> Value {
        if !matches!(event, "on_stop" | "on_completion_claim" | "on_response_end") {
            return answer::noop();
        }
        let mut text = answer::str_field(payload, "response").to_owned();
        if event == "on_completion_claim" {
            text.push('\n');
            text.push_str(answer::str_field(payload, "summary"));
        }
        let tools = answer::tool_names(payload);
        let Some(unbacked) = self.unbacked(&text, &tools, ctx) else {
            return answer::noop();
        };
        let (reason, note) = match &unbacked {
            Unbacked::References(refs) => {
                let refs = refs.join(", ");
                (
                    fill(&self.block_reason, &[("refs", &refs)]),
                    fill(&self.unverified_note, &[("refs", &refs)]),
                )
            }
            Unbacked::Schedule(sentence) => (
                fill(&self.schedule_block_reason, &[("refs", sentence)]),
                fill(&self.schedule_note, &[("refs", sentence)]),
            ),
        };
        if event == "on_response_end" {
            return answer::field("response", format!("{}\n\n{note}", text.trim_end()));
        }
        let session = answer::session(payload).to_owned();
        let state = ctx.load(NAME, &session);
        let blocks = state.get("blocks").and_then(Value::as_u64).unwrap_or(0);
        if blocks >= self.max_blocks {
            // Never trap the agent: past the cap the user is told instead.
            return answer::field("add_warning", self.cap_warning.clone());
        }
        ctx.save(NAME, &session, &json!({"blocks": blocks + 1}), self.ttl);
        answer::block(reason)
    }

    fn unbacked(&self, text: &str, tools: &[&str], ctx: &GuardContext) -> Option<Unbacked> {
        // Claims are looked for only in what the reply asserts itself; links are looked for
        // in quotations too, since a real claim often quotes its link.
        let cited = without_examples(text);
        let asserted = without_quotations(&cited);
        let claims = |patterns: &[Regex]| {
            sentences(&asserted).find(|s| {
                patterns.iter().any(|re| re.is_match(s))
                    && !self.offers.iter().any(|re| re.is_match(s))
            })
        };
        if claims(&self.claims).is_some() {
            let refs = self.unbacked_references(&cited, tools, ctx);
            if !refs.is_empty() {
                return Some(Unbacked::References(refs));
            }
        }
        let sentence = claims(&self.schedule_claims)?;
        let ran = tools.iter().any(|t| contains_any(t, &self.schedule_tools));
        let recorded =
            || records::recent_live_record(ctx, &self.schedule_files, self.schedule_recent);
        (!ran && !recorded()).then(|| Unbacked::Schedule(sentence.trim().to_owned()))
    }

    /// The links and ids cited in `text` that no evidence file backs.
    fn unbacked_references(&self, text: &str, tools: &[&str], ctx: &GuardContext) -> Vec<String> {
        let refs = self.find(&self.references, text);
        let shared = self.find(&self.shared_references, text);
        if refs.is_empty() && shared.is_empty() {
            return Vec::new();
        }
        let evidence = self.evidence(ctx);
        let mut out: Vec<String> = refs.into_iter().filter(|r| !evidence.backs(r)).collect();
        let vouched = tools.iter().any(|t| contains_any(t, &self.shared_tools));
        if !vouched && !shared.iter().any(|r| evidence.backs(r)) {
            out.extend(shared);
        }
        out
    }

    fn find(&self, patterns: &[Regex], text: &str) -> Vec<String> {
        let mut refs: Vec<String> = Vec::new();
        for re in patterns {
            for caps in re.captures_iter(text) {
                let Some(m) = caps.get(1).or_else(|| caps.get(0)) else {
                    continue;
                };
                let r = m
                    .as_str()
                    .trim_end_matches(['.', ',', ';', ':', '!', '?', '。', '，']);
                if r.starts_with("http") && self.ignored_host(r) {
                    continue;
                }
                if !r.is_empty() && !refs.iter().any(|x| x == r) {
                    refs.push(r.to_owned());
                }
            }
        }
        refs
    }

    fn ignored_host(&self, url: &str) -> bool {
        let host = host(url);
        self.ignore_hosts
            .iter()
            .any(|h| host == *h || host.ends_with(&format!(".{h}")))
    }

    /// Every evidence file's text, with JSON's escaped slashes undone; `public` leaves out
    /// the records marked unpublished.
    fn evidence(&self, ctx: &GuardContext) -> Evidence {
        let mut evidence = Evidence {
            all: String::new(),
            public: String::new(),
        };
        for file in &self.evidence_files {
            let Ok(text) = std::fs::read_to_string(ctx.resolve(file)) else {
                continue;
            };
            let text = text.replace("\\/", "/");
            evidence.all.push_str(&text);
            evidence.all.push('\n');
            match serde_json::from_str::<Value>(&text) {
                Ok(data) => self.public_records(&data, &mut evidence.public),
                // JSONL, or text: line by line.
                Err(_) => {
                    for line in text.lines() {
                        match serde_json::from_str::<Value>(line) {
                            Ok(record) => self.public_records(&record, &mut evidence.public),
                            Err(_) => evidence.public.push_str(line),
                        }
                        evidence.public.push('\n');
                    }
                }
            }
        }
        evidence
    }

    /// Appends the records of `data` that are not marked unpublished.
    fn public_records(&self, data: &Value, out: &mut String) {
        match data {
            Value::Array(items) => items.iter().for_each(|v| self.public_records(v, out)),
            Value::Object(map) => {
                let unpublished = self
                    .unpublished_fields
                    .iter()
                    .any(|f| map.get(f) == Some(&Value::Bool(false)));
                if unpublished {
                    return;
                }
                if map.values().any(|v| v.is_array()) {
                    // A wrapper such as {"previews": [...]}: judge each record inside.
                    for value in map.values() {
                        match value {
                            Value::Array(_) => self.public_records(value, out),
                            other => out.push_str(&other.to_string()),
                        }
                        out.push('\n');
                    }
                } else {
                    out.push_str(&data.to_string());
                    out.push('\n');
                }
            }
            other => {
                out.push_str(&other.to_string());
                out.push('\n');
            }
        }
    }
}

impl Evidence {
    /// A reference is backed when the records hold it whole, or hold its path or its last
    /// path segment (registries often store `/preview/abc123/` or just `abc123` rather than
    /// the full URL), or, for a link whose page is a subdomain (`https://<id>.host.com`),
    /// that first label (when the link has no path). A full link needs a public record; a bare path any record.
    fn backs(&self, reference: &str) -> bool {
        let (records, path, label) = match reference.split_once("://") {
            Some((_, rest)) => {
                let path = rest
                    .find(['/', '?', '#'])
                    .map(|at| &rest[at..])
                    .unwrap_or("");
                // Only a link with no path names its page by the subdomain.
                let host = host(reference);
                let label = (path.trim_matches('/').is_empty() && host.split('.').count() >= 3)
                    .then(|| host.split('.').next().unwrap_or("").to_owned())
                    .filter(|l| l.len() >= 6);
                (&self.public, path, label)
            }
            None => (&self.all, reference, None),
        };
        if records.contains(reference) {
            return true;
        }
        let trimmed = path
            .split(['?', '#'])
            .next()
            .unwrap_or("")
            .trim_end_matches('/');
        if trimmed.len() > 1 && records.contains(trimmed) {
            return true;
        }
        let last = trimmed.rsplit('/').next().unwrap_or("");
        if last.len() >= 6 && records.contains(last) {
            return true;
        }
        label.is_some_and(|l| records.contains(&l))
    }
}

fn host(url: &str) -> String {
    url.split("://")
        .nth(1)
        .and_then(|rest| rest.split(['/', '?', '#']).next())
        .unwrap_or("")
        .rsplit('@')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn contains_any(tool: &str, words: &[String]) -> bool {
    let tool = tool.to_ascii_lowercase();
    words.iter().any(|w| tool.contains(&w.to_ascii_lowercase()))
}

/// The reply without what only shows examples: fenced code blocks, table rows, inline code.
fn without_examples(text: &str) -> String {
    static EXAMPLES: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?s)```.*?```|(?m)^[ \t]*\|.*$|`[^`\n]*`").expect("a constant pattern")
    });
    EXAMPLES.replace_all(text, " ").into_owned()
}

/// The text without quotations: "…", “…”, ‘…’, 「…」, and '…' opened at a word boundary
/// (so the apostrophe of "I've" opens nothing).
fn without_quotations(text: &str) -> String {
    static QUOTES: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r#""[^"\n]*"|“[^”\n]*”|‘[^’\n]*’|「[^」\n]*」|(?:^|[^\w])'[^'\n]*'"#)
            .expect("a constant pattern")
    });
    QUOTES.replace_all(text, " ").into_owned()
}

/// Sentences: split at . ! ? and their Chinese forms, and at line breaks — but not at a
/// dot inside a link or number.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut cuts = Vec::new();
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        let at_break = match c {
            '\n' | '!' | '?' | '。' | '！' | '？' => true,
            '.' => bytes.get(end).is_none_or(|b| b.is_ascii_whitespace()),
            _ => false,
        };
        if at_break {
            cuts.push(end);
        }
    }
    let mut start = 0;
    let mut parts = Vec::with_capacity(cuts.len() + 1);
    for cut in cuts {
        parts.push(&text[start..cut]);
        start = cut;
    }
    parts.push(&text[start..]);
    parts.into_iter().filter(|s| !s.trim().is_empty())
}
