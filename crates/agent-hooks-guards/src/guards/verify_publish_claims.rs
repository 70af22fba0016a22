//! verify_publish_claims: catches "published! <link>" claims that no tool backs up, by
//! checking every cited link or id against the registries the publishing tools write.
//! Blocks (redo) on on_stop / on_completion_claim, appends a note on on_response_end.

use crate::rules::LazyRegex as Regex;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::answer::{self, fill};
use crate::context::GuardContext;
use crate::rules::{self, RulesError, pick};

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/verify_publish_claims.yaml");
const NAME: &str = "verify_publish_claims";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    claim_patterns: Option<Vec<String>>,
    offer_patterns: Option<Vec<String>>,
    reference_patterns: Option<Vec<String>>,
    ignore_hosts: Option<Vec<String>>,
    evidence_files: Option<Vec<String>>,
    max_blocks_per_session: Option<u64>,
    session_ttl_seconds: Option<u64>,
    block_reason: Option<String>,
    unverified_note: Option<String>,
}

#[derive(Debug)]
pub(crate) struct VerifyPublishClaims {
    claims: Vec<Regex>,
    offers: Vec<Regex>,
    references: Vec<Regex>,
    ignore_hosts: Vec<String>,
    evidence_files: Vec<String>,
    max_blocks: u64,
    ttl: u64,
    block_reason: String,
    unverified_note: String,
}

impl VerifyPublishClaims {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let (user, def) = rules::load::<Raw>(DEFAULT_RULES, user_yaml)?;
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
            ignore_hosts: pick(user.ignore_hosts, def.ignore_hosts),
            evidence_files: pick(user.evidence_files, def.evidence_files),
            max_blocks: pick(user.max_blocks_per_session, def.max_blocks_per_session),
            ttl: pick(user.session_ttl_seconds, def.session_ttl_seconds),
            block_reason: pick(user.block_reason, def.block_reason),
            unverified_note: pick(user.unverified_note, def.unverified_note),
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, ctx: &mut GuardContext) -> Value {
        let mut text = answer::str_field(payload, "response").to_owned();
        if event == "on_completion_claim" {
            text.push('\n');
            text.push_str(answer::str_field(payload, "summary"));
        }
        let unbacked = self.unbacked_references(&text, ctx);
        if unbacked.is_empty() {
            return answer::noop();
        }
        let refs = unbacked.join(", ");
        match event {
            "on_stop" | "on_completion_claim" => {
                let session = answer::session(payload).to_owned();
                let state = ctx.load(NAME, &session);
                let blocks = state.get("blocks").and_then(Value::as_u64).unwrap_or(0);
                if blocks >= self.max_blocks {
                    return answer::noop();
                }
                ctx.save(NAME, &session, &json!({"blocks": blocks + 1}), self.ttl);
                answer::block(fill(&self.block_reason, &[("refs", &refs)]))
            }
            "on_response_end" => {
                let note = fill(&self.unverified_note, &[("refs", &refs)]);
                answer::field("response", format!("{}\n\n{note}", text.trim_end()))
            }
            _ => answer::noop(),
        }
    }

    /// The links and ids cited by past-tense claims that no evidence file contains.
    fn unbacked_references(&self, text: &str, ctx: &GuardContext) -> Vec<String> {
        let claimed = sentences(text).any(|s| {
            self.claims.iter().any(|re| re.is_match(s))
                && !self.offers.iter().any(|re| re.is_match(s))
        });
        if !claimed {
            return Vec::new();
        }
        let refs = self.references(text);
        if refs.is_empty() {
            return Vec::new();
        }
        let evidence = self.evidence(ctx);
        refs.into_iter().filter(|r| !backed(r, &evidence)).collect()
    }

    fn references(&self, text: &str) -> Vec<String> {
        let mut refs: Vec<String> = Vec::new();
        for re in &self.references {
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
        let host = url
            .split("://")
            .nth(1)
            .and_then(|rest| rest.split(['/', '?', '#']).next())
            .unwrap_or("")
            .rsplit('@')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        self.ignore_hosts
            .iter()
            .any(|h| host == *h || host.ends_with(&format!(".{h}")))
    }

    /// Every evidence file's text, with JSON's escaped slashes undone.
    fn evidence(&self, ctx: &GuardContext) -> String {
        let mut all = String::new();
        for file in &self.evidence_files {
            if let Ok(text) = std::fs::read_to_string(ctx.resolve(file)) {
                all.push_str(&text.replace("\\/", "/"));
                all.push('\n');
            }
        }
        all
    }
}

/// A reference is backed when the records hold it whole, or hold its path or its last
/// path segment (registries often store `/preview/abc123/` rather than the full URL).
fn backed(reference: &str, evidence: &str) -> bool {
    if evidence.contains(reference) {
        return true;
    }
    let Some(rest) = reference.split("://").nth(1) else {
        return false;
    };
    let path = rest.find('/').map(|at| &rest[at..]).unwrap_or("");
    let trimmed = path.trim_end_matches('/');
    if trimmed.len() > 1 && evidence.contains(trimmed) {
        return true;
    }
    let last = trimmed.rsplit('/').next().unwrap_or("");
    last.len() >= 6 && evidence.contains(last)
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
