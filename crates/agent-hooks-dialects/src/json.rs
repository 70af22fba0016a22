//! Reading an agent's JSON as leniently as the agent's own parser writes it (`docs/json.md`):
//! lone UTF-16 surrogates (`"\ud800"`, as `JSON.stringify` and Python's `json.dumps` write
//! them) become U+FFFD, numbers too large for a double become `null` (what `JSON.parse` then
//! `JSON.stringify` make of them), and nesting deeper than serde_json's own limit of 128 is
//! read in full up to [`MAX_DEPTH`]. Python's reading (`NaN`, `Infinity`) and Python's
//! writing (`json.dumps` with its default separators and ASCII escapes) are here too, for the
//! hosts whose hooks expect Python's bytes, and the exact numbers of Python's JSON (integers of
//! any size, `NaN`, the infinities), which a JSON value cannot hold, carried through as
//! [`exact_number`] marks and written back by [`python_dumps`] and [`restore_numbers`].

use std::borrow::Cow;

use serde_json::Value;

/// The deepest nesting read. JavaScript's and Python's parsers stop somewhere in the
/// thousands; past this depth the input is refused (a lapse the user is told about) rather
/// than risk the stack of the process that must answer.
pub const MAX_DEPTH: usize = 1024;

/// What reading the input changed to make it readable, for the user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repairs {
    /// Lone surrogate escapes replaced by U+FFFD.
    pub lone_surrogates: usize,
    /// Numbers out of a double's range, read as `null`.
    pub huge_numbers: usize,
    /// Bytes that were not UTF-8, read as U+FFFD.
    pub invalid_utf8: bool,
    /// `NaN`, `Infinity` or a number beyond a double's range read by Python's rules: `NaN` as
    /// `null`, an infinity as the largest double of its sign.
    pub non_finite: usize,
}

impl Repairs {
    /// Whether the input was read exactly as sent.
    pub fn is_empty(&self) -> bool {
        *self == Repairs::default()
    }

    /// What was changed, as a clause for a message; `None` when nothing was.
    pub fn describe(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.lone_surrogates > 0 {
            parts.push(format!(
                "{} lone UTF-16 surrogate escape(s) read as U+FFFD",
                self.lone_surrogates
            ));
        }
        if self.huge_numbers > 0 {
            parts.push(format!(
                "{} number(s) beyond a double's range read as null",
                self.huge_numbers
            ));
        }
        if self.non_finite > 0 {
            parts.push(format!(
                "{} NaN or infinite number(s) read as null or the largest double",
                self.non_finite
            ));
        }
        if self.invalid_utf8 {
            parts.push("bytes that are not UTF-8 read as U+FFFD".to_owned());
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// Why the input could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("the input is nested {0} levels deep; agent-hooks reads at most {MAX_DEPTH}")]
    TooDeep(usize),
    /// Not JSON, even read leniently.
    #[error("the input is not JSON: {0}")]
    NotJson(String),
}

/// Reads `bytes` as one JSON value with the repairs above.
///
/// # Errors
///
/// [`Unreadable`] when the text is not JSON or is nested deeper than [`MAX_DEPTH`].
pub fn read(bytes: &[u8]) -> Result<(Value, Repairs), Unreadable> {
    read_with(bytes, Rules::JavaScript)
}

/// Reads `bytes` as Python's `json.loads` does: besides [`read`]'s repairs, `NaN`,
/// `Infinity` and `-Infinity` are accepted, and a number beyond a double's range is an
/// infinity (Python reads `1e400` as `inf`). A JSON value cannot hold either, so `NaN` is
/// read as `null` and an infinity as the largest double of its sign (`Repairs::non_finite`).
///
/// # Errors
///
/// [`Unreadable`] when the text is not JSON even by Python's rules, or is nested too deep.
pub fn read_python(bytes: &[u8]) -> Result<(Value, Repairs), Unreadable> {
    read_with(bytes, Rules::Python)
}

/// Reads `bytes` as Python's `json.loads` does and keeps what a JSON value cannot hold exactly
/// — an integer beyond 64 bits, `NaN`, `Infinity`, `-Infinity` (and `1e400`, which Python reads
/// as `inf`) — as the text Python would write for it, marked (see [`exact_number`]): a hook
/// gets it back as those bytes ([`python_dumps`], [`restore_numbers`]), so a tool's big-integer
/// argument or a `NaN` reaches the hooks and the host unchanged. For payloads and answers; a
/// configuration file is read with [`read_python`], whose values are plain numbers.
///
/// # Errors
///
/// [`Unreadable`] when the text is not JSON even by Python's rules, or is nested too deep.
pub fn read_python_exact(bytes: &[u8]) -> Result<(Value, Repairs), Unreadable> {
    read_with(bytes, Rules::PythonExact)
}

/// Whose parser the input was written for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rules {
    /// `JSON.parse`: a number beyond a double is `null` once written back.
    JavaScript,
    /// `json.loads`: `NaN` and the infinities are numbers.
    Python,
    /// `json.loads`, with what a JSON value cannot hold kept as marked text.
    PythonExact,
}

/// What starts a string that stands for a number a JSON value cannot hold: NUL, SOH, then
/// `number:` and the number as Python writes it. A string of the input that starts with one or
/// more NULs and then the rest of this is read with one NUL more, and written back with one
/// less, so no text of the input can pass for a number.
const MARK: &str = "\u{0}\u{1}number:";
/// [`MARK`] after its leading NUL, for the escaping of look-alike strings.
const MARK_TAIL: &str = "\u{1}number:";

/// The number a marked string stands for ([`read_python_exact`]): `NaN`, `Infinity`,
/// `-Infinity` or an integer beyond 64 bits, as Python writes it; `None` for any other value.
/// A Rust host that reads an outcome's payload sees such a value as this string.
pub fn exact_number(value: &Value) -> Option<&str> {
    match value {
        Value::String(s) => s.strip_prefix(MARK).filter(|t| is_exact_token(t)),
        _ => None,
    }
}

/// Whether `token` is something [`read_python_exact`] marks: Python's non-finite words, or an
/// integer.
fn is_exact_token(token: &str) -> bool {
    matches!(token, "NaN" | "Infinity" | "-Infinity")
        || token
            .strip_prefix('-')
            .unwrap_or(token)
            .bytes()
            .all(|b| b.is_ascii_digit())
            && !token.trim_start_matches('-').is_empty()
}

/// A marked number as the JSON string text written into the rewritten input.
fn marked(token: &str) -> String {
    format!("\"\\u0000\\u0001number:{token}\"")
}

/// The text of `value` (a string) with a look-alike of [`MARK`] escaped or unescaped: one NUL
/// more when reading, one less when writing. `None` when `s` is no look-alike.
fn look_alike(s: &str) -> Option<usize> {
    let nuls = s.bytes().take_while(|b| *b == 0).count();
    (nuls > 0 && s[nuls..].starts_with(MARK_TAIL)).then_some(nuls)
}

/// The text a double beyond range or an infinity is read as under Python's rules.
const PY_INF: &str = "1.7976931348623157e308";
const PY_NEG_INF: &str = "-1.7976931348623157e308";

fn read_with(bytes: &[u8], rules: Rules) -> Result<(Value, Repairs), Unreadable> {
    let mut repairs = Repairs::default();
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => {
            repairs.invalid_utf8 = true;
            String::from_utf8_lossy(bytes)
        }
    };
    let scanned = scan(&text, rules, &mut repairs);
    let text: &str = scanned.as_deref().unwrap_or(&text);
    let depth = depth(text);
    if depth > MAX_DEPTH {
        return Err(Unreadable::TooDeep(depth));
    }
    let value = if depth < 128 {
        serde_json::from_str(text).map_err(|e| Unreadable::NotJson(e.to_string()))?
    } else {
        deep(text)?
    };
    Ok((value, repairs))
}

/// Parses input nested deeper than serde_json's default limit on a thread of its own with
/// room for the recursion; the value it returns is at most [`MAX_DEPTH`] deep, which the
/// ordinary stack clones, writes and drops.
fn deep(text: &str) -> Result<Value, Unreadable> {
    const STACK: usize = 64 * 1024 * 1024;
    std::thread::scope(|scope| {
        let parser = std::thread::Builder::new()
            .name("agent-hooks-json".into())
            .stack_size(STACK)
            .spawn_scoped(scope, || {
                let mut de = serde_json::Deserializer::from_str(text);
                de.disable_recursion_limit();
                let mut values = de.into_iter::<Value>();
                let first = values.next();
                let rest = values.next();
                match (first, rest) {
                    (Some(Ok(value)), None) => Ok(value),
                    (Some(Err(e)), _) => Err(Unreadable::NotJson(e.to_string())),
                    (None, _) => Err(Unreadable::NotJson("no value".into())),
                    (Some(Ok(_)), Some(_)) => Err(Unreadable::NotJson(
                        "trailing characters after the value".into(),
                    )),
                }
            });
        match parser {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(Unreadable::NotJson(
                    "the parser stopped unexpectedly".into(),
                ))
            }),
            Err(e) => Err(Unreadable::NotJson(format!(
                "cannot start the parser for deeply nested input: {e}"
            ))),
        }
    })
}

/// The deepest nesting of arrays and objects in `text`, strings skipped.
fn depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Rewrites what serde_json refuses but the agents' own parsers accept: a `\uD800`–`\uDFFF`
/// escape not part of a high-low pair becomes `\uFFFD`, and a number a double cannot hold
/// becomes `null` (Python's rules: `NaN` is `null`, an infinity the largest double of its
/// sign). Escaped backslashes are consumed as pairs, so `\\ud800` (a backslash
/// followed by the text `ud800`) is left alone. `None` when nothing needed rewriting.
fn scan(text: &str, rules: Rules, repairs: &mut Repairs) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    // Everything before `copied` is in `out` (once there is one).
    let mut copied = 0;
    let mut i = 0;
    let mut in_string = false;
    let replace =
        |out: &mut Option<String>, copied: &mut usize, from: usize, to: usize, with: &str| {
            let buffer = out.get_or_insert_with(|| String::with_capacity(text.len()));
            buffer.push_str(&text[*copied..from]);
            buffer.push_str(with);
            *copied = to;
        };
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'"' => {
                    in_string = false;
                    i += 1;
                }
                b'\\' if bytes.get(i + 1) == Some(&b'u') => {
                    let unit = hex4(bytes, i + 2);
                    match unit {
                        Some(0xD800..=0xDBFF) => {
                            let low = (bytes.get(i + 6) == Some(&b'\\')
                                && bytes.get(i + 7) == Some(&b'u'))
                            .then(|| hex4(bytes, i + 8))
                            .flatten();
                            if matches!(low, Some(0xDC00..=0xDFFF)) {
                                i += 12;
                            } else {
                                repairs.lone_surrogates += 1;
                                replace(&mut out, &mut copied, i, i + 6, "\\uFFFD");
                                i += 6;
                            }
                        }
                        Some(0xDC00..=0xDFFF) => {
                            repairs.lone_surrogates += 1;
                            replace(&mut out, &mut copied, i, i + 6, "\\uFFFD");
                            i += 6;
                        }
                        _ => i += 2,
                    }
                }
                b'\\' => i += 2,
                _ => i += 1,
            }
            continue;
        }
        match b {
            b'"' if rules == Rules::PythonExact && starts_with_nul(bytes, i + 1) => {
                // A string that could pass for a marked number gets one NUL more.
                let end = string_end(bytes, i + 1);
                let escaped = serde_json::from_str::<String>(&text[i..end])
                    .ok()
                    .filter(|s| look_alike(s).is_some())
                    .and_then(|s| serde_json::to_string(&format!("\0{s}")).ok());
                match escaped {
                    Some(with) => {
                        replace(&mut out, &mut copied, i, end, &with);
                        i = end;
                    }
                    None => {
                        in_string = true;
                        i += 1;
                    }
                }
            }
            b'"' => {
                in_string = true;
                i += 1;
            }
            b'N' | b'I' | b'-'
                if rules != Rules::JavaScript && non_finite_at(&text[i..]).is_some() =>
            {
                let (len, word, with) = non_finite_at(&text[i..]).unwrap_or((1, "NaN", "null"));
                if rules == Rules::PythonExact {
                    replace(&mut out, &mut copied, i, i + len, &marked(word));
                } else {
                    repairs.non_finite += 1;
                    replace(&mut out, &mut copied, i, i + len, with);
                }
                i += len;
            }
            b'-' | b'0'..=b'9' => {
                let end = bytes[i..]
                    .iter()
                    .position(|c| !matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .map_or(bytes.len(), |n| i + n);
                let token = &text[i..end];
                let integer = !token.contains(['.', 'e', 'E']);
                if rules == Rules::PythonExact
                    && integer
                    && is_exact_token(token)
                    && token.parse::<i64>().is_err()
                    && token.parse::<u64>().is_err()
                {
                    // Python's integers have no size limit; a double would round this one.
                    replace(&mut out, &mut copied, i, end, &marked(token));
                } else if token.parse::<f64>().is_ok_and(f64::is_infinite) {
                    let infinity = if token.starts_with('-') {
                        "-Infinity"
                    } else {
                        "Infinity"
                    };
                    let with = match rules {
                        Rules::JavaScript => {
                            repairs.huge_numbers += 1;
                            "null".to_owned()
                        }
                        Rules::Python => {
                            repairs.non_finite += 1;
                            if token.starts_with('-') {
                                PY_NEG_INF
                            } else {
                                PY_INF
                            }
                            .to_owned()
                        }
                        Rules::PythonExact => marked(infinity),
                    };
                    replace(&mut out, &mut copied, i, end, &with);
                }
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    out.map(|mut buffer| {
        buffer.push_str(&text[copied..]);
        buffer
    })
}

/// Python's non-finite literal at the start of `text`: its length, the word, and what the lossy
/// rules read it as.
fn non_finite_at(text: &str) -> Option<(usize, &'static str, &'static str)> {
    [
        ("NaN", "null"),
        ("Infinity", PY_INF),
        ("-Infinity", PY_NEG_INF),
    ]
    .into_iter()
    .find(|(word, _)| text.starts_with(word))
    .map(|(word, with)| (word.len(), word, with))
}

/// Whether the string literal whose text starts at `at` starts with an escaped NUL (`\u0000`,
/// any case of hex), the one way a JSON string can start with one.
fn starts_with_nul(bytes: &[u8], at: usize) -> bool {
    bytes.get(at) == Some(&b'\\')
        && bytes.get(at + 1) == Some(&b'u')
        && hex4(bytes, at + 2) == Some(0)
}

/// Where the string literal whose text starts at `at` ends (after its closing quote), or the
/// end of the input.
fn string_end(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// `json` (as serde_json writes it) with every marked number ([`read_python_exact`]) written
/// as the number itself, and every escaped look-alike string back as it was read: the bytes a
/// host or a hook gets, so what a Python host sent comes back unchanged. Returns `json` as it
/// is when it holds no mark.
pub fn restore_numbers(json: Vec<u8>) -> Vec<u8> {
    const NEEDLE: &[u8] = b"\\u0001number:";
    // Every hook's input passes here: the common case is one vectorised search.
    if memchr::memmem::find(&json, NEEDLE).is_none() {
        return json;
    }
    let mut out = Vec::with_capacity(json.len());
    let mut i = 0;
    while i < json.len() {
        if json[i] != b'"' {
            out.push(json[i]);
            i += 1;
            continue;
        }
        let end = string_end(&json, i + 1);
        let literal = &json[i..end];
        let decoded = std::str::from_utf8(literal)
            .ok()
            .filter(|l| l.starts_with("\"\\u0000"))
            .and_then(|l| serde_json::from_str::<String>(l).ok());
        match decoded {
            Some(s) if exact_number(&Value::String(s.clone())).is_some() => {
                out.extend_from_slice(&s.as_bytes()[MARK.len()..]);
            }
            Some(s) if look_alike(&s).is_some_and(|nuls| nuls > 1) => {
                match serde_json::to_vec(&s[1..]) {
                    Ok(bytes) => out.extend_from_slice(&bytes),
                    Err(_) => out.extend_from_slice(literal),
                }
            }
            _ => out.extend_from_slice(literal),
        }
        i = end;
    }
    out
}

/// `value` as Python's `json.dumps(value)` writes it (`ensure_ascii=True`, separators `", "`
/// and `": "`, floats as `repr()` writes them), keys in the map's order: the bytes a hook
/// written for a Python host reads on stdin, so that a hook matching `"tool": "x"` in its raw
/// input matches here too.
pub fn python_dumps(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.extend_from_slice(i.to_string().as_bytes());
            } else if let Some(u) = n.as_u64() {
                out.extend_from_slice(u.to_string().as_bytes());
            } else {
                out.extend_from_slice(python_float(n.as_f64().unwrap_or(f64::NAN)).as_bytes());
            }
        }
        Value::String(s) => match exact_number(value) {
            Some(token) => out.extend_from_slice(token.as_bytes()),
            None => match look_alike(s) {
                Some(nuls) if nuls > 1 => python_string(&s[1..], out),
                _ => python_string(s, out),
            },
        },
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                python_dumps(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                python_string(key, out);
                out.extend_from_slice(b": ");
                python_dumps(item, out);
            }
            out.push(b'}');
        }
    }
}

/// A string as `json.dumps` escapes it with `ensure_ascii=True`: everything outside `' '..='~'`
/// as `\uXXXX` (lowercase, astral characters as a surrogate pair) but for the short escapes.
fn python_string(s: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            ' '..='~' => out.push(c as u8),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.extend_from_slice(b"\\u");
                    for shift in [12, 8, 4, 0] {
                        out.push(HEX[usize::from((*unit >> shift) & 0xf)]);
                    }
                }
            }
        }
    }
    out.push(b'"');
}

/// `repr(x)` of a Python float: the shortest digits that read back as `x`, positional when
/// the decimal exponent is in -4..16 (with `.0` when whole), else `d.ddde+XX`.
pub fn python_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    // `{:e}` gives the shortest round-trip digits: `-1.2345e-7`.
    let sci = format!("{x:e}");
    let (sign, rest) = match sci.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", sci.as_str()),
    };
    let (mantissa, exp) = rest.split_once('e').unwrap_or((rest, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let n = digits.len() as i32;
    // The decimal point sits after `decpt` digits.
    let decpt = exp + 1;
    let body = if !(-4 < decpt && decpt <= 16) {
        let (first, tail) = digits.split_at(1);
        let point = if tail.is_empty() { "" } else { "." };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{first}{point}{tail}e{esign}{:02}", exp.abs())
    } else if decpt <= 0 {
        format!("0.{}{digits}", "0".repeat(decpt.unsigned_abs() as usize))
    } else if decpt < n {
        let (int, frac) = digits.split_at(decpt as usize);
        format!("{int}.{frac}")
    } else {
        format!("{digits}{}.0", "0".repeat((decpt - n) as usize))
    };
    format!("{sign}{body}")
}

/// The value of four hex digits at `at`, if there are four.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_ok(text: &str) -> (Value, Repairs) {
        read(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn a_lone_surrogate_is_u_fffd_and_the_rest_of_the_string_is_kept() {
        let (v, r) = read_ok(r#"{"command": "rm -rf ~ \ud800 && echo done"}"#);
        assert_eq!(v["command"], "rm -rf ~ \u{FFFD} && echo done");
        assert_eq!(r.lone_surrogates, 1);
        let (v, r) = read_ok(r#"["\udc00x", "\ud83d\ude00", "\ud83d"]"#);
        assert_eq!(v, json!(["\u{FFFD}x", "😀", "\u{FFFD}"]));
        assert_eq!(r.lone_surrogates, 2);
    }

    #[test]
    fn an_escaped_backslash_before_u_is_text_not_an_escape() {
        let (v, r) = read_ok(r#"{"a": "\\ud800", "b": "\\\ud800"}"#);
        assert_eq!(v["a"], "\\ud800");
        assert_eq!(v["b"], "\\\u{FFFD}");
        assert_eq!(r.lone_surrogates, 1);
    }

    #[test]
    fn valid_input_is_read_as_serde_json_reads_it() {
        for text in [
            r#"{"a": [1, 2.5, -3e2, "x\"y", {"b": null}], "c": "\u00e9\ud83d\ude00"}"#,
            r#""just a string""#,
            "[]",
            r#"{"n": 1e308, "m": -0.0, "big": 123456789012345678901234567890}"#,
        ] {
            let (v, r) = read_ok(text);
            assert_eq!(
                v,
                serde_json::from_str::<Value>(text).unwrap_or_default(),
                "{text}"
            );
            assert!(r.is_empty(), "{text}");
        }
    }

    #[test]
    fn numbers_beyond_a_double_are_null() {
        let (v, r) = read_ok(r#"{"x": 1e400, "y": -2E999, "z": 5}"#);
        assert_eq!(v, json!({"x": null, "y": null, "z": 5}));
        assert_eq!(r.huge_numbers, 2);
    }

    #[test]
    fn nesting_past_128_is_read_in_full_and_past_the_limit_is_refused() {
        let deep = |n: usize| format!("{}\"rm -rf /\"{}", "[".repeat(n), "]".repeat(n));
        let (v, _) = read_ok(&format!(
            r#"{{"tool_input": {{"command": "x", "deep": {}}}}}"#,
            deep(500)
        ));
        let mut inner = &v["tool_input"]["deep"];
        for _ in 0..500 {
            inner = &inner[0];
        }
        assert_eq!(inner, "rm -rf /");
        let copy = v.clone();
        // The value is cloned, written and dropped on this thread's ordinary stack.
        let written = serde_json::to_string(&copy).unwrap_or_default();
        assert!(written.len() > 1000 && written.contains("rm -rf /"));
        assert!(matches!(
            read(deep(MAX_DEPTH + 1).as_bytes()),
            Err(Unreadable::TooDeep(n)) if n == MAX_DEPTH + 1
        ));
        assert!(matches!(read(b"{not json"), Err(Unreadable::NotJson(_))));
    }

    #[test]
    fn invalid_utf8_is_read_lossily() {
        let (v, r) = read(b"{\"a\": \"x\xff\"}").unwrap_or_default();
        assert_eq!(v["a"], "x\u{FFFD}");
        assert!(r.invalid_utf8);
    }

    /// Strings built from random pieces — escapes, surrogates, backslashes, quotes — read
    /// the same as Python's lenient reading would: every lone surrogate one U+FFFD, every
    /// pair its character, everything else itself.
    #[test]
    fn random_strings_of_escapes_read_as_their_expected_text() {
        let pieces: [(&str, &str); 9] = [
            ("\\ud800x", "\u{FFFD}x"),
            ("\\udfff", "\u{FFFD}"),
            ("\\ud83d\\ude00", "😀"),
            ("\\\\", "\\"),
            ("\\\\ud800", "\\ud800"),
            ("\\\"", "\""),
            ("\\u0041", "A"),
            ("x", "x"),
            ("\\n", "\n"),
        ];
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..2000 {
            let mut json_text = String::from("\"");
            let mut expected = String::new();
            for _ in 0..(seed % 9) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let (raw, read_as) = pieces[(seed % pieces.len() as u64) as usize];
                json_text.push_str(raw);
                expected.push_str(read_as);
            }
            json_text.push('"');
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let (v, _) = read_ok(&json_text);
            assert_eq!(v, Value::String(expected), "{json_text}");
        }
    }

    /// Expected texts are what CPython 3 prints for `json.dumps` of the same values.
    #[test]
    fn python_dumps_writes_python_bytes() {
        let floats: [(f64, &str); 15] = [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345.6, "123456789012345.6"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e300, "1.5e+300"),
            (-2.5e-7, "-2.5e-07"),
            (0.1, "0.1"),
            (1.0 / 3.0, "0.3333333333333333"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (100.0, "100.0"),
            (12345678901234567.0, "1.2345678901234568e+16"),
        ];
        for (x, expected) in floats {
            assert_eq!(python_float(x), expected, "{x:e}");
        }
        let value = json!({"tool": "send_message", "args": {
            "text": "h\u{e9}llo \u{2028} \u{1F600} \u{7f} \u{0} \"q\" \\ \n\t\u{8}\u{c}/",
            "n": [1, 2.5, null, true, {}], "e": []}});
        let mut out = Vec::new();
        python_dumps(&value, &mut out);
        assert_eq!(
            String::from_utf8_lossy(&out),
            r#"{"tool": "send_message", "args": {"text": "h\u00e9llo \u2028 \ud83d\ude00 \u007f \u0000 \"q\" \\ \n\t\b\f/", "n": [1, 2.5, null, true, {}], "e": []}}"#
        );
    }

    #[test]
    fn python_rules_read_nan_and_the_infinities() {
        let (v, r) = read_python(br#"{"a": NaN, "b": Infinity, "c": [-Infinity, 1e400, "NaN"]}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            v,
            json!({"a": null, "b": f64::MAX, "c": [f64::MIN, f64::MAX, "NaN"]})
        );
        assert_eq!(r.non_finite, 4);
        assert!(r.describe().is_some_and(|d| d.contains("NaN")));
        // JavaScript's rules still refuse them.
        assert!(read(br#"{"a": NaN}"#).is_err());
        assert!(read_python(br#"{"a": Nonsense}"#).is_err());
    }

    #[test]
    fn exact_python_rules_keep_big_integers_nan_and_the_infinities_as_python_writes_them() {
        let text = r#"{"id": 123456789012345678901234567890, "neg": -98765432109876543210, "max": 18446744073709551615, "x": NaN, "up": Infinity, "down": -Infinity, "huge": 1e400, "tiny": -1e400, "f": 2.5, "s": "NaN"}"#;
        let (v, r) = read_python_exact(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        assert!(r.is_empty(), "{r:?}");
        let exact = |key: &str| exact_number(&v[key]);
        assert_eq!(exact("id"), Some("123456789012345678901234567890"));
        assert_eq!(exact("neg"), Some("-98765432109876543210"));
        assert_eq!(
            v["max"],
            json!(u64::MAX),
            "what fits 64 bits stays a number"
        );
        assert_eq!(exact("x"), Some("NaN"));
        assert_eq!(exact("up"), Some("Infinity"));
        assert_eq!(exact("down"), Some("-Infinity"));
        assert_eq!(exact("huge"), Some("Infinity"), "Python reads 1e400 as inf");
        assert_eq!(exact("tiny"), Some("-Infinity"));
        assert_eq!(v["f"], json!(2.5));
        assert_eq!(v["s"], "NaN", "a string stays a string");
        let mut dumped = Vec::new();
        python_dumps(&v, &mut dumped);
        assert_eq!(
            String::from_utf8_lossy(&dumped),
            r#"{"id": 123456789012345678901234567890, "neg": -98765432109876543210, "max": 18446744073709551615, "x": NaN, "up": Infinity, "down": -Infinity, "huge": Infinity, "tiny": -Infinity, "f": 2.5, "s": "NaN"}"#
        );
        let restored = restore_numbers(serde_json::to_vec(&v).unwrap_or_default());
        assert_eq!(
            String::from_utf8_lossy(&restored),
            r#"{"id":123456789012345678901234567890,"neg":-98765432109876543210,"max":18446744073709551615,"x":NaN,"up":Infinity,"down":-Infinity,"huge":Infinity,"tiny":-Infinity,"f":2.5,"s":"NaN"}"#
        );
        // The lossy rules, for configuration files, are unchanged.
        let (lossy, _) = read_python(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lossy["x"], Value::Null);
    }

    #[test]
    fn no_string_of_the_input_passes_for_a_marked_number() {
        // Strings that look like the mark, with one NUL or more, come back as they were sent.
        let text = r#"{"a": "\u0000\u0001number:5", "b": "\u0000\u0000\u0001number:NaN", "c": "\u0000x", "d": "\u0000\u0001number:5 or so"}"#;
        let (v, _) = read_python_exact(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        for key in ["a", "b", "c", "d"] {
            assert_eq!(exact_number(&v[key]), None, "{key}");
        }
        let sent: Value = serde_json::from_str(text).unwrap_or_default();
        let restored = restore_numbers(serde_json::to_vec(&v).unwrap_or_default());
        let back: Value = serde_json::from_slice(&restored).unwrap_or_default();
        assert_eq!(back, sent);
        let mut dumped = Vec::new();
        python_dumps(&v, &mut dumped);
        let back: Value = serde_json::from_slice(&dumped).unwrap_or_default();
        assert_eq!(back, sent);
        // Without a mark, the bytes are returned as they are.
        let plain = br#"{"a":"\u0000"}"#.to_vec();
        assert_eq!(restore_numbers(plain.clone()), plain);
    }
}
