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
    base58: Option<Regex>,
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
            base58,
            keywords,
            keyword_window: wallet.keyword_window,
            mask,
        })
    }

    /// Every credential in `text`, sorted, without overlaps (the earlier, longer one wins).
    pub(crate) fn credentials(&self, text: &str) -> Vec<Finding> {
        let mut found = Vec::new();
        for credential in &self.credentials {
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
        if let Some(array) = &self.solana_array {
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
        if let (Some(base58), Some(keywords)) = (&self.base58, &self.keywords) {
            let mut runs: Vec<(usize, usize)> = base58
                .find_iter(text)
                .filter(|m| standalone(text, m.start(), m.end()))
                .map(|m| (m.start(), m.end()))
                .collect();
            // A run counts next to a keyword, or next to a wallet secret that counts: a key
            // beside a key is a key too (and the marker withholding one names its kind, so a
            // second scan of the redacted text would find it anyway).
            let mut anchors: Vec<(usize, usize)> = if runs.is_empty() {
                Vec::new()
            } else {
                keywords
                    .find_iter(text)
                    .map(|k| (k.start(), k.end()))
                    .chain(found.iter().map(|f| (f.start, f.end)))
                    .collect()
            };
            let window = self.keyword_window;
            while !anchors.is_empty() {
                let (near, far): (Vec<_>, Vec<_>) = runs.into_iter().partition(|&(start, end)| {
                    anchors
                        .iter()
                        .any(|&(a, b)| b + window >= start && a <= end + window)
                });
                for &(start, end) in &near {
                    found.push(finding("base58 private key", start, end));
                }
                // A run far from every anchor so far can only be reached from a new one.
                (anchors, runs) = (near, far);
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
        let index = bip39_index();
        let mut found = Vec::new();
        // Runs of consecutive list words; numbering such as "1." or "(2)" is skipped.
        let mut run: Vec<(u16, usize, usize)> = Vec::new();
        let flush = |run: &mut Vec<(u16, usize, usize)>, found: &mut Vec<Finding>| {
            if run.len() >= shortest {
                for (start, end) in self.valid_spans(run) {
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
            let lower = word.to_ascii_lowercase();
            match index.get(lower.as_str()) {
                Some(&i) if !word.is_empty() => {
                    let offset = token.find(word).unwrap_or(0);
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
    fn valid_spans(&self, run: &[(u16, usize, usize)]) -> Vec<(usize, usize)> {
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
    let total_bits = n * 11;
    let checksum_bits = n / 3;
    let entropy_bits = total_bits - checksum_bits;
    let mut bits = Vec::with_capacity(total_bits);
    for &index in indexes {
        for shift in (0..11).rev() {
            bits.push((index >> shift) & 1 == 1);
        }
    }
    let entropy: Vec<u8> = bits[..entropy_bits]
        .chunks(8)
        .map(|byte| {
            byte.iter()
                .fold(0u8, |acc, &bit| (acc << 1) | u8::from(bit))
        })
        .collect();
    let hash = Sha256::digest(&entropy);
    (0..checksum_bits).all(|i| {
        let hash_bit = (hash[i / 8] >> (7 - (i % 8))) & 1 == 1;
        hash_bit == bits[entropy_bits + i]
    })
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
}
