//! Finding secrets in text: vendor credentials (masked, keeping a head and tail) and
//! wallet secrets (never masked, only blocked or withheld): BIP-39 mnemonics checked
//! against the English word list and checksum, Solana byte arrays, base58 keys by a keyword.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::rules::LazyRegex as Regex;
use sha2::{Digest, Sha256};

use crate::rules::{self, Origin, RulesError};

/// The BIP-39 English word list (2048 words, SHA-256 2f5eed53…24dbda), a standard
/// rather than a tunable table, so it ships as data beside the code instead of in the rules.
const BIP39_ENGLISH: &str = include_str!("../data/bip39_english.txt");

fn bip39_index() -> &'static HashMap<&'static str, u16> {
    static INDEX: OnceLock<HashMap<&'static str, u16>> = OnceLock::new();
    INDEX.get_or_init(|| {
        BIP39_ENGLISH
            .lines()
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .zip(0u16..)
            .collect()
    })
}

/// One credential pattern from the rules.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct CredentialRule {
    pub(crate) name: String,
    pub(crate) regex: String,
}

/// The wallet-secret settings from the rules.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct WalletRules {
    #[serde(default)]
    pub(crate) mnemonic_lengths: Vec<usize>,
    #[serde(default)]
    pub(crate) solana_array_length: usize,
    #[serde(default)]
    pub(crate) base58_min_length: usize,
    #[serde(default)]
    pub(crate) base58_max_length: usize,
    #[serde(default)]
    pub(crate) keywords: Vec<String>,
    #[serde(default)]
    pub(crate) keyword_window: usize,
}

/// The masking settings from the rules.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct MaskRules {
    #[serde(default)]
    pub(crate) keep_head: usize,
    #[serde(default)]
    pub(crate) keep_tail: usize,
    #[serde(default)]
    pub(crate) marker: String,
    #[serde(default)]
    pub(crate) withheld: String,
}

#[derive(Debug)]
struct Credential {
    name: String,
    regex: Regex,
}

impl Credential {
    /// Index of the `secret` capture group, when only part of the match is the secret.
    /// Asked of the compiled regex, so that building the guard compiles nothing.
    fn group(&self) -> Option<usize> {
        self.regex.capture_names().position(|n| n == Some("secret"))
    }
}

/// What was found and where (byte offsets of the secret itself).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Finding {
    pub(crate) name: String,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// The compiled scanner.
#[derive(Debug)]
pub(crate) struct Scanner {
    credentials: Vec<Credential>,
    mnemonic_lengths: Vec<usize>,
    solana_array: Option<Regex>,
    /// How many integers make the Solana array (what `solana_array` counts).
    solana_array_length: usize,
    base58: Option<Regex>,
    /// The shortest base58 run that counts (what `base58` counts).
    base58_min_length: usize,
    keywords: Option<Regex>,
    keyword_window: usize,
    mask: MaskRules,
}

impl Scanner {
    /// Each table comes with its [`Origin`]: only the user's regexes are syntax-checked.
    pub(crate) fn new(
        (credentials, credentials_origin): (Vec<CredentialRule>, Origin),
        (wallet, wallet_origin): (WalletRules, Origin),
        mask: MaskRules,
    ) -> Result<Self, RulesError> {
        let credentials = credentials
            .iter()
            .enumerate()
            .map(|(i, rule)| {
                Ok(Credential {
                    name: rule.name.clone(),
                    regex: rules::regex_from(
                        credentials_origin,
                        &format_args!("credentials[{i}].regex"),
                        &rule.regex,
                    )?,
                })
            })
            .collect::<Result<Vec<_>, RulesError>>()?;
        let solana_array = match wallet.solana_array_length {
            0 => None,
            n => Some(rules::regex_from(
                wallet_origin,
                &"wallet.solana_array_length",
                format!(r"\[\s*\d{{1,3}}(?:\s*,\s*\d{{1,3}}){{{}}}\s*,?\s*\]", n - 1),
            )?),
        };
        let base58 = if wallet.base58_min_length == 0 {
            None
        } else {
            Some(rules::regex_from(
                wallet_origin,
                &"wallet.base58_min_length",
                format!(
                    "[1-9A-HJ-NP-Za-km-z]{{{},{}}}",
                    wallet.base58_min_length,
                    wallet.base58_max_length.max(wallet.base58_min_length)
                ),
            )?)
        };
        let keywords = if wallet.keywords.is_empty() {
            None
        } else {
            let alternation = wallet
                .keywords
                .iter()
                .map(|k| {
                    regex::escape(k)
                        .replace(r"\ ", r"[\s_-]*")
                        .replace(' ', r"[\s_-]*")
                })
                .collect::<Vec<_>>()
                .join("|");
            Some(rules::regex_from(
                wallet_origin,
                &"wallet.keywords",
                format!("(?i)(?:{alternation})"),
            )?)
        };
        Ok(Self {
            credentials,
            mnemonic_lengths: wallet.mnemonic_lengths.clone(),
            solana_array,
            solana_array_length: wallet.solana_array_length,
            base58,
            base58_min_length: wallet.base58_min_length,
            keywords,
            keyword_window: wallet.keyword_window,
            mask,
        })
    }

    /// Every credential in `text`, sorted, without overlaps (the earlier, longer one wins).
    pub(crate) fn credentials(&self, text: &str) -> Vec<Finding> {
        let mut found = Vec::new();
        for credential in &self.credentials {
            // Most text holds no credential's telltale bytes (`sk-`, `AKIA`, `-----BEGIN`):
            // ruled out here, its automaton is never built.
            if !credential.regex.may_match(text) {
                continue;
            }
            match credential.group() {
                Some(group) => {
                    for caps in credential.regex.captures_iter(text) {
                        if let Some(m) = caps.get(group) {
                            found.push(finding(&credential.name, m.start(), m.end()));
                        }
                    }
                }
                None => {
                    for m in credential.regex.find_iter(text) {
                        found.push(finding(&credential.name, m.start(), m.end()));
                    }
                }
            }
        }
        found.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        let mut kept: Vec<Finding> = Vec::with_capacity(found.len());
        for f in found {
            if kept.last().is_none_or(|last| f.start >= last.end) {
                kept.push(f);
            }
        }
        kept
    }

    /// Every wallet secret in `text` (mnemonics, Solana arrays, base58 keys by a keyword).
    pub(crate) fn wallet_secrets(&self, text: &str) -> Vec<Finding> {
        let mut found = self.mnemonics(text);
        // The two shapes below are large automata (a repetition counted in the tens); text
        // that cannot hold one is ruled out by counting first, so it never builds them.
        if let Some(array) = &self.solana_array
            && text.contains('[')
            && text.bytes().filter(|&b| b == b',').count() + 1 >= self.solana_array_length
        {
            for m in array.find_iter(text) {
                let all_bytes = m
                    .as_str()
                    .split(|c: char| !c.is_ascii_digit())
                    .filter(|s| !s.is_empty())
                    .all(|n| n.parse::<u16>().is_ok_and(|v| v <= 255));
                if all_bytes {
                    found.push(finding(
                        "Solana secret key (byte array)",
                        m.start(),
                        m.end(),
                    ));
                }
            }
        }
        if let (Some(base58), Some(keywords)) = (&self.base58, &self.keywords)
            && longest_run(text, is_base58) >= self.base58_min_length
        {
            let mut runs: Vec<(usize, usize)> = base58
                .find_iter(text)
                .filter(|m| standalone(text, m.start(), m.end()))
                .map(|m| (m.start(), m.end()))
                .collect();
            // A run counts next to a keyword, or next to a wallet secret that counts: a key
            // beside a key is a key too (and the marker withholding one names its kind, so a
            // second scan of the redacted text would find it anyway).
            if !runs.is_empty() {
                let anchors: Vec<(usize, usize)> = keywords
                    .find_iter(text)
                    .map(|k| (k.start(), k.end()))
                    .chain(found.iter().map(|f| (f.start, f.end)))
                    .collect();
                for (start, end) in reached(&mut runs, anchors, self.keyword_window) {
                    found.push(finding("base58 private key", start, end));
                }
            }
        }
        found.sort_by_key(|f| f.start);
        found
    }

    /// The first secret of either class, credentials first.
    pub(crate) fn first_secret(&self, text: &str) -> Option<Finding> {
        self.wallet_secrets(text)
            .into_iter()
            .next()
            .or_else(|| self.credentials(text).into_iter().next())
    }

    /// `text` with credentials masked and wallet secrets withheld; `None` if unchanged.
    ///
    /// Redacting is idempotent: the result, redacted again, does not change. A mask's marker
    /// can end a run of letters that went on past the secret, leaving the rest of the run a
    /// standalone key-shaped word, so the result is scanned again until nothing more is
    /// found. With the default rules a second scan finds what there is; a user's rules whose
    /// marker matches their own patterns stop after [`RESCANS`].
    pub(crate) fn redact(&self, text: &str, withhold_wallet: bool) -> Option<String> {
        let mut redacted = self.redact_once(text, withhold_wallet)?;
        for _ in 0..RESCANS {
            match self.redact_once(&redacted, withhold_wallet) {
                Some(again) => redacted = again,
                None => break,
            }
        }
        Some(redacted)
    }

    fn redact_once(&self, text: &str, withhold_wallet: bool) -> Option<String> {
        let mut spans: Vec<(Finding, bool)> = self
            .credentials(text)
            .into_iter()
            .map(|f| (f, false))
            .collect();
        if withhold_wallet {
            spans.extend(self.wallet_secrets(text).into_iter().map(|f| (f, true)));
        }
        if spans.is_empty() {
            return None;
        }
        spans.sort_by_key(|(f, _)| f.start);
        // Findings that overlap (a key that begins inside a credential) are one span, withheld
        // if either is a wallet secret: masking one and skipping the other would leave the
        // rest of the other in the clear.
        let mut merged: Vec<(Finding, bool)> = Vec::with_capacity(spans.len());
        for (f, withheld) in spans {
            match merged.last_mut() {
                Some((last, last_withheld)) if f.start < last.end => {
                    last.end = last.end.max(f.end);
                    if withheld && !*last_withheld {
                        last.name = f.name;
                        *last_withheld = true;
                    }
                }
                _ => merged.push((f, withheld)),
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (f, withheld) in merged {
            out.push_str(&text[at..f.start]);
            let secret = &text[f.start..f.end];
            if withheld {
                out.push_str(&self.mask.withheld.replace("{kind}", &f.name));
            } else {
                out.push_str(&self.mask_one(secret));
            }
            at = f.end;
        }
        out.push_str(&text[at..]);
        Some(out)
    }

    /// Keeps the head and tail characters around the marker; a secret too short to keep
    /// anything safely is replaced by the marker alone.
    pub(crate) fn mask_one(&self, secret: &str) -> String {
        let chars: Vec<char> = secret.chars().collect();
        let (head, tail) = (self.mask.keep_head, self.mask.keep_tail);
        // Showing head+tail of a short secret would reveal most of it.
        if chars.len() < (head + tail) * 2 {
            return self.mask.marker.clone();
        }
        let start: String = chars.iter().take(head).collect();
        let end: String = chars.iter().skip(chars.len() - tail).collect();
        format!("{start}{}{end}", self.mask.marker)
    }

    fn mnemonics(&self, text: &str) -> Vec<Finding> {
        let Some(&shortest) = self.mnemonic_lengths.iter().min() else {
            return Vec::new();
        };
        // Fewer words than the shortest phrase: no phrase, and no word list to index.
        if tokens(text).nth(shortest.saturating_sub(1)).is_none() {
            return Vec::new();
        }
        let index = bip39_index();
        let mut found = Vec::new();
        // Runs of consecutive list words; numbering such as "1." or "(2)" is skipped.
        let mut run: Vec<(u16, usize, usize)> = Vec::new();
        let mut checks_left = MNEMONIC_CHECKS;
        let mut flush = |run: &mut Vec<(u16, usize, usize)>, found: &mut Vec<Finding>| {
            if run.len() >= shortest {
                for (start, end) in self.valid_spans(run, &mut checks_left) {
                    found.push(finding("BIP-39 mnemonic", start, end));
                }
            }
            run.clear();
        };
        for (start, token) in tokens(text) {
            let word = token.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            if !word.is_empty() && word.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            // List words are at most 8 ASCII letters: lowered on the stack.
            let mut lower = [0u8; 8];
            let listed = (word.len() <= lower.len())
                .then(|| {
                    lower[..word.len()].copy_from_slice(word.as_bytes());
                    lower[..word.len()].make_ascii_lowercase();
                    std::str::from_utf8(&lower[..word.len()]).ok()
                })
                .flatten()
                .and_then(|w| index.get(w));
            match listed {
                Some(&i) if !word.is_empty() => {
                    let offset = word.as_ptr() as usize - token.as_ptr() as usize;
                    run.push((i, start + offset, start + offset + word.len()));
                }
                _ => flush(&mut run, &mut found),
            }
        }
        flush(&mut run, &mut found);
        found
    }

    /// The byte spans of a run of list words that lie in some window of an allowed length
    /// whose checksum holds; overlapping or touching windows make one span. Every valid
    /// window counts, not only the first: two phrases written one after the other are one
    /// run, and a window across both may be valid too.
    ///
    /// Each window costs a SHA-256; `checks_left` is what the text has left of
    /// [`MNEMONIC_CHECKS`]. A run that would need more is withheld whole, unchecked: no prose
    /// holds that many list words in runs, so such a text is a dump of phrases or one made to
    /// be slow, and either way treating it as a secret is the safe answer in linear time.
    fn valid_spans(
        &self,
        run: &[(u16, usize, usize)],
        checks_left: &mut usize,
    ) -> Vec<(usize, usize)> {
        let windows: usize = self
            .mnemonic_lengths
            .iter()
            .filter(|&&length| length != 0 && length <= run.len())
            .map(|&length| run.len() - length + 1)
            .sum();
        match checks_left.checked_sub(windows) {
            Some(left) => *checks_left = left,
            None => {
                *checks_left = 0;
                return match (run.first(), run.last()) {
                    (Some(first), Some(last)) => vec![(first.1, last.2)],
                    _ => Vec::new(),
                };
            }
        }
        let indexes: Vec<u16> = run.iter().map(|w| w.0).collect();
        let mut covered = vec![false; run.len()];
        for &length in &self.mnemonic_lengths {
            if length == 0 || length > run.len() {
                continue;
            }
            for first in 0..=run.len() - length {
                if checksum_holds(&indexes[first..first + length]) {
                    covered[first..first + length].fill(true);
                }
            }
        }
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut previous = false;
        for (word, &inside) in run.iter().zip(&covered) {
            match spans.last_mut() {
                Some(span) if inside && previous => span.1 = word.2,
                _ if inside => spans.push((word.1, word.2)),
                _ => {}
            }
            previous = inside;
        }
        spans
    }
}

/// The runs (`runs`, sorted by start) that a chain of spans, each within `window` bytes of
/// the next, links to an anchor. One sweep in position order: the spans sorted by start fall
/// into groups where each span begins within `window` of the furthest end before it, and two
/// spans are linked by such a chain exactly when they share a group. Comparing every run
/// with every anchor instead cost time quadratic in the text (a tool result of key-shaped
/// runs beside keywords).
fn reached(
    runs: &mut [(usize, usize)],
    mut anchors: Vec<(usize, usize)>,
    window: usize,
) -> Vec<(usize, usize)> {
    anchors.sort_unstable();
    runs.sort_unstable();
    let mut kept = Vec::new();
    // The group under way: its furthest end, whether it holds an anchor, its runs.
    let mut group: Vec<(usize, usize)> = Vec::new();
    let mut reach: Option<usize> = None;
    let mut anchored = false;
    let (mut r, mut a) = (0, 0);
    while r < runs.len() || a < anchors.len() {
        let take_run = a >= anchors.len() || (r < runs.len() && runs[r].0 <= anchors[a].0);
        let span = if take_run { runs[r] } else { anchors[a] };
        if reach.is_none_or(|end| span.0 > end.saturating_add(window)) {
            if anchored {
                kept.append(&mut group);
            }
            group.clear();
            anchored = false;
            reach = Some(span.1);
        }
        reach = reach.map(|end| end.max(span.1));
        if take_run {
            group.push(span);
            r += 1;
        } else {
            anchored = true;
            a += 1;
        }
    }
    if anchored {
        kept.append(&mut group);
    }
    kept
}

/// How many windows of list words one scan checks against the BIP-39 checksum at most (each a
/// SHA-256, some 70 ns): a text needs this many only with over 50,000 list words in runs.
const MNEMONIC_CHECKS: usize = 1 << 18;

/// How many more times [`Scanner::redact`] scans its own result at most.
const RESCANS: usize = 4;

fn finding(name: &str, start: usize, end: usize) -> Finding {
    Finding {
        name: name.to_owned(),
        start,
        end,
    }
}

/// Whitespace-separated tokens with their byte offsets.
fn tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_whitespace().map(move |token| {
        let offset = token.as_ptr() as usize - text.as_ptr() as usize;
        (offset, token)
    })
}

/// Whether `c` is in the base58 alphabet (`[1-9A-HJ-NP-Za-km-z]`, as the `base58` pattern).
fn is_base58(c: u8) -> bool {
    matches!(c, b'1'..=b'9' | b'A'..=b'H' | b'J'..=b'N' | b'P'..=b'Z' | b'a'..=b'k' | b'm'..=b'z')
}

/// The length of the longest run of bytes of `text` that `class` accepts.
fn longest_run(text: &str, class: fn(u8) -> bool) -> usize {
    let (mut longest, mut run) = (0, 0);
    for &b in text.as_bytes() {
        run = if class(b) { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// Whether a match is a whole token (not the middle of a longer alphanumeric run).
fn standalone(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(|c| c.is_alphanumeric()) && !after.is_some_and(|c| c.is_alphanumeric())
}

/// BIP-39: the last `n/3` bits of the `11·n` index bits are the first bits of
/// SHA-256 over the entropy they follow.
pub(crate) fn checksum_holds(indexes: &[u16]) -> bool {
    let n = indexes.len();
    if n == 0 || !n.is_multiple_of(3) || n > 24 {
        return false;
    }
    // The 11-bit indexes packed into bytes, on the stack: this runs for every window of
    // every run of list words, so it allocates nothing. The entropy is `4n/3` whole bytes;
    // the `n/3` checksum bits open the byte after it.
    let mut bits = [0u8; 33];
    let (mut acc, mut held, mut at) = (0u32, 0u32, 0usize);
    for &index in indexes {
        acc = (acc << 11) | u32::from(index & 0x7ff);
        held += 11;
        while held >= 8 {
            held -= 8;
            bits[at] = (acc >> held) as u8;
            at += 1;
        }
        acc &= (1 << held) - 1;
    }
    if held > 0 {
        bits[at] = (acc << (8 - held)) as u8;
    }
    let entropy = n * 4 / 3;
    let checksum_bits = (n / 3) as u32;
    let hash = Sha256::digest(&bits[..entropy]);
    hash[0] >> (8 - checksum_bits) == bits[entropy] >> (8 - checksum_bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexes(phrase: &str) -> Vec<u16> {
        phrase
            .split_whitespace()
            .filter_map(|w| bip39_index().get(w).copied())
            .collect()
    }

    #[test]
    fn word_list_has_2048_distinct_words() {
        assert_eq!(bip39_index().len(), 2048);
        assert_eq!(bip39_index().get("abandon"), Some(&0));
        assert_eq!(bip39_index().get("zoo"), Some(&2047));
    }

    #[test]
    fn bip39_test_vectors_pass_the_checksum() {
        // Vectors from the BIP-39 reference test set.
        for phrase in [
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
            "legal winner thank year wave sausage worth useful legal winner thank yellow",
            "letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
            "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
            "scheme spot photo card baby mountain device kick cradle pact join borrow",
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art",
        ] {
            let ix = indexes(phrase);
            assert_eq!(ix.len(), phrase.split_whitespace().count(), "{phrase}");
            assert!(checksum_holds(&ix), "{phrase}");
        }
    }

    /// A scanner with security_guard's default wallet and mask settings and one credential
    /// whose secret is a capture group of fixed length.
    fn default_scanner() -> Scanner {
        let credentials = vec![CredentialRule {
            name: "AWS secret access key".into(),
            regex: r#"(?i)aws_?secret_?access_?key\s*[=:]\s*["']?(?P<secret>[A-Za-z0-9/+]{40})"#
                .into(),
        }];
        let wallet = WalletRules {
            mnemonic_lengths: vec![12, 15, 18, 21, 24],
            solana_array_length: 64,
            base58_min_length: 51,
            base58_max_length: 90,
            keywords: vec!["private key".into(), "secret key".into(), "mnemonic".into()],
            keyword_window: 80,
        };
        let mask = MaskRules {
            keep_head: 6,
            keep_tail: 4,
            marker: "…[REDACTED]…".into(),
            withheld: "[REDACTED {kind}]".into(),
        };
        Scanner::new((credentials, Origin::User), (wallet, Origin::User), mask)
            .expect("the rules compile")
    }

    /// A run of base58 letters of `len` characters (no 0, O, I or l), varied by `seed`.
    fn base58_run(len: usize, seed: u8) -> String {
        const ALPHABET: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
        (0..len)
            .map(|i| char::from(ALPHABET[(i * 7 + usize::from(seed)) % ALPHABET.len()]))
            .collect()
    }

    /// Redacts `text` as a reply is redacted and checks that redacting the result changes
    /// nothing: whatever the scanner calls a secret was withheld the first time.
    fn redacted_once_for_all(scanner: &Scanner, text: &str) -> String {
        let redacted = scanner.redact(text, true).expect("the text holds a secret");
        assert_eq!(
            scanner.redact(&redacted, true),
            None,
            "redacting again changes {redacted:?}"
        );
        redacted
    }

    #[test]
    fn a_key_brought_near_a_withheld_keys_marker_is_withheld_at_once() {
        // The second key is more than the keyword window (80 bytes) from "private key", but
        // within it of the marker that replaces the first key, which names its kind.
        let first = base58_run(64, 0);
        let second = base58_run(64, 3);
        let text = format!(
            "private key: {first} and here, after some more words of the reply, {second} too."
        );
        assert!(
            text.find(&second).expect("the second key") - "private key".len() > 80,
            "the second key starts outside the keyword's window"
        );
        let redacted = redacted_once_for_all(&default_scanner(), &text);
        assert!(!redacted.contains(&first), "{redacted}");
        assert!(!redacted.contains(&second), "{redacted}");
    }

    #[test]
    fn two_mnemonics_in_one_run_of_list_words_are_both_withheld() {
        let first = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
        let second = "legal winner thank year wave sausage worth useful legal winner thank yellow";
        let text = format!("my two wallets: {first} {second}");
        let redacted = redacted_once_for_all(&default_scanner(), &text);
        for word in ["about", "legal", "winner", "yellow"] {
            assert!(!redacted.contains(word), "{word} left in {redacted}");
        }
    }

    #[test]
    fn a_key_overlapping_a_credential_is_withheld_whole() {
        // The AWS secret's 40 characters end inside a base58 key that begins after the '/'.
        let key = base58_run(70, 5);
        let text = format!("private key below\naws_secret_access_key=abcd/{key}\n");
        let redacted = redacted_once_for_all(&default_scanner(), &text);
        let tail = &key[35..];
        assert!(
            !redacted.contains(tail),
            "the key's tail is left in {redacted}"
        );
    }

    #[test]
    fn what_a_mask_leaves_of_a_longer_run_is_judged_in_the_same_redaction() {
        // 100 letters: too long for a key until the credential's 40 are masked, which leaves
        // its last 4 and the 60 after them standing alone.
        let run = base58_run(100, 1);
        let text = format!("private key\naws_secret_access_key={run}\n");
        let redacted = redacted_once_for_all(&default_scanner(), &text);
        assert!(!redacted.contains(&run[40..]), "{redacted}");
    }

    #[test]
    fn a_changed_last_word_breaks_the_checksum() {
        let ix = indexes(
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon",
        );
        assert!(!checksum_holds(&ix));
    }

    /// The runs the pairwise rule reaches: near an anchor, or near a run reached before.
    fn reached_pairwise(
        runs: &[(usize, usize)],
        anchors: &[(usize, usize)],
        window: usize,
    ) -> Vec<(usize, usize)> {
        let near =
            |(a, b): (usize, usize), (s, e): (usize, usize)| b + window >= s && a <= e + window;
        let mut found: Vec<(usize, usize)> = Vec::new();
        let mut frontier: Vec<(usize, usize)> = anchors.to_vec();
        let mut left: Vec<(usize, usize)> = runs.to_vec();
        while !frontier.is_empty() {
            let (hit, miss): (Vec<_>, Vec<_>) = left
                .into_iter()
                .partition(|&run| frontier.iter().any(|&anchor| near(anchor, run)));
            found.extend(&hit);
            (frontier, left) = (hit, miss);
        }
        found.sort_unstable();
        found
    }

    #[test]
    fn the_sweep_reaches_exactly_the_runs_a_chain_of_neighbours_reaches() {
        // A small generator, so the cases are many and the same every run.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |below: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below as u64) as usize
        };
        for _ in 0..2000 {
            let span = |next: &mut dyn FnMut(usize) -> usize| {
                let start = next(2000);
                (start, start + 1 + next(90))
            };
            let runs: Vec<_> = (0..next(12)).map(|_| span(&mut next)).collect();
            let anchors: Vec<_> = (0..next(4)).map(|_| span(&mut next)).collect();
            let window = next(120);
            let mut swept = reached(&mut runs.clone(), anchors.clone(), window);
            swept.sort_unstable();
            assert_eq!(
                swept,
                reached_pairwise(&runs, &anchors, window),
                "runs {runs:?} anchors {anchors:?} window {window}"
            );
        }
    }

    #[test]
    fn a_text_past_the_checksum_budget_is_withheld_whole_without_checking() {
        // 60,000 list words in one run need 300,000 checks: more than the budget allows.
        let text = "abandon ability able about above absent ".repeat(10_000);
        let found = default_scanner().mnemonics(&text);
        assert_eq!(found.len(), 1, "one span: the whole run");
        assert_eq!((found[0].start, found[0].end), (0, text.trim_end().len()));
        // A short run is still checked: these six words are no phrase.
        assert!(
            default_scanner()
                .mnemonics("abandon ability able about above absent")
                .is_empty()
        );
    }

    #[test]
    fn a_whole_pem_key_with_dashed_headers_is_one_finding() {
        let scanner = Scanner::new(
            (
                vec![CredentialRule {
                    name: "PEM private key".into(),
                    regex: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:(?:[^-]|-{1,4}[^-])*-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?".into(),
                }],
                Origin::User,
            ),
            (WalletRules::default(), Origin::User),
            MaskRules::default(),
        )
        .expect("the rules compile");
        let key = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB12\n\nMIIEow--IBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n-----END RSA PRIVATE KEY-----";
        let text = format!("before\n{key}\nafter -----BEGIN PRIVATE KEY----- with no end\n");
        let found = scanner.credentials(&text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(&text[found[0].start..found[0].end], key);
        assert_eq!(
            &text[found[1].start..found[1].end],
            "-----BEGIN PRIVATE KEY-----"
        );
    }
}
