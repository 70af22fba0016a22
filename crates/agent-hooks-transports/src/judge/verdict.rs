//! The one reading of a judge's text as a verdict object: the whole text is exactly one JSON
//! object, or exactly one fenced code block holding one, and no object in it names a key twice.
//! Anything else is invalid, so no sentence around the object and no second `"ok"` can turn
//! the model's answer into something it did not say.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Why a judge's text is not a verdict object, for the hook's report and the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAVerdict(pub String);

impl fmt::Display for NotAVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads `text` as the judge's verdict object (see the module's doc for the rules).
pub fn verdict_object(text: &str) -> Result<Map<String, Value>, NotAVerdict> {
    let body = unfenced(text.trim())?;
    let body = body.trim();
    if !body.starts_with('{') {
        return Err(NotAVerdict(
            "the answer must be exactly one JSON object (alone, or alone in one ``` fence), but it does not start with {".to_owned(),
        ));
    }
    let mut de = serde_json::Deserializer::from_str(body);
    let value = Unique
        .deserialize(&mut de)
        .map_err(|e| NotAVerdict(format!("the answer is not one valid JSON object: {e}")))?;
    de.end().map_err(|_| {
        NotAVerdict(
            "the answer has more after its JSON object; it must be exactly one object".to_owned(),
        )
    })?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(NotAVerdict("the answer is not a JSON object".to_owned())),
    }
}

/// The inside of one Markdown fence when `text` is exactly that (an info string such as
/// `json` allowed), else `text` itself.
fn unfenced(text: &str) -> Result<&str, NotAVerdict> {
    let Some(rest) = text.strip_prefix("```") else {
        return Ok(text);
    };
    let Some((info, inside)) = rest.split_once('\n') else {
        return Err(NotAVerdict(
            "the answer's ``` fence is never closed".to_owned(),
        ));
    };
    if !info.trim().chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(NotAVerdict(format!(
            "the answer's ``` fence has an unexpected info string \"{}\"",
            info.trim()
        )));
    }
    let Some(inside) = inside.trim_end().strip_suffix("```") else {
        return Err(NotAVerdict(
            "the answer opens a ``` fence and has more after it closes; it must be exactly one fenced object".to_owned(),
        ));
    };
    if inside.contains("```") {
        return Err(NotAVerdict(
            "the answer has more than one ``` fence; it must be exactly one fenced object"
                .to_owned(),
        ));
    }
    Ok(inside)
}

/// A JSON value read with every object's keys checked for repeats (serde_json keeps the last
/// one silently).
struct Unique;

impl<'de> DeserializeSeed<'de> for Unique {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Unique)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "the key \"{key}\" appears twice in one object"
                )));
            }
            let value = map.next_value_seed(Unique)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(text: &str) -> bool {
        verdict_object(text).is_ok()
    }

    #[test]
    fn one_object_alone_or_in_one_fence_is_read() {
        assert_eq!(
            verdict_object(" {\"ok\": false, \"reason\": \"no\"}\n").unwrap()["ok"],
            false
        );
        assert!(reads("```json\n{\"ok\": true}\n```"));
        assert!(reads("```\n{\"ok\": true}\n```\n"));
    }

    #[test]
    fn prose_a_second_object_or_a_repeated_key_is_not_a_verdict() {
        assert!(!reads("Here is my verdict: {\"ok\": true}"));
        assert!(!reads("I {might} say {\"ok\": false, \"reason\": \"x\"}"));
        assert!(!reads("{\"ok\": false} {\"ok\": true}"));
        assert!(!reads(
            "{\"ok\": false, \"reason\": \"x\"} and that is final"
        ));
        let repeated = verdict_object("{\"ok\": false, \"reason\": \"x\", \"ok\": true}");
        assert!(
            repeated
                .as_ref()
                .is_err_and(|e| e.0.contains("\"ok\" appears twice")),
            "{repeated:?}"
        );
        assert!(!reads("{\"ok\": true, \"x\": {\"a\": 1, \"a\": 2}}"));
        assert!(!reads(
            "```json\n{\"ok\": true}\n```\n```json\n{\"ok\": false}\n```"
        ));
        assert!(!reads("```json\n{\"ok\": true}\n``` trailing"));
        assert!(!reads("[{\"ok\": true}]"));
        assert!(!reads(""));
    }
}
