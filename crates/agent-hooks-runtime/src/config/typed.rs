//! Building blocks of the typed config structs: a field whose wrong type is kept for a message
//! in our words (rather than failing the whole file with the parser's), an ordered mapping, a
//! scalar written as text, and the list of a struct's declared fields for unknown-key warnings.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};
use serde_json::Value;

use agent_hooks_core::wording::kind_of;

/// A field's value: of the type the field declares, or, when written with another type, what
/// was written instead, so the reader can say what it expected and what it found.
#[derive(Debug, Clone)]
pub(crate) enum Typed<T> {
    /// The value, of the declared type.
    Valid(T),
    /// The value written instead.
    Wrong(Value),
}

impl<T> Typed<T> {
    /// The value, or the kind of what was written instead (`"a list"`, `"null"` ...), as
    /// [`kind_of`] words it.
    pub(crate) fn get(&self) -> Result<&T, &'static str> {
        match self {
            Typed::Valid(value) => Ok(value),
            Typed::Wrong(found) => Err(kind_of(found)),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Typed<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(match T::deserialize(&value) {
            Ok(typed) => Typed::Valid(typed),
            Err(_) => Typed::Wrong(value),
        })
    }
}

/// A key that may be left out. Unlike `Option`, a key written with `null` or nothing after it
/// is there (its value then says "found null"): an empty `matcher:` must not read as no
/// matcher. Fields of this type take `#[serde(default)]`.
#[derive(Debug, Clone)]
pub(crate) struct Given<T>(pub(crate) Option<T>);

impl<T> Default for Given<T> {
    fn default() -> Self {
        Given(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Given<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(|value| Given(Some(value)))
    }
}

/// A mapping in the order it was written, its values read as `T`.
#[derive(Debug, Clone)]
pub(crate) struct Entries<T>(pub(crate) Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Entries<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for EntriesVisitor<T> {
            type Value = Entries<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<T>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor(PhantomData))
    }
}

/// A scalar written as text: a string as is, a number or a boolean as it prints (`3`, `true`).
#[derive(Debug, Clone)]
pub(crate) struct Scalar(pub(crate) String);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) => Ok(Scalar(s)),
            Value::Number(n) => Ok(Scalar(n.to_string())),
            Value::Bool(b) => Ok(Scalar(b.to_string())),
            other => Err(de::Error::invalid_type(
                de::Unexpected::Other(kind_of(&other)),
                &"a string",
            )),
        }
    }
}

/// A struct written as a JSON object. A derived struct alone would also read a list, by
/// position, which no config file means; anything but an object is refused instead (and then
/// kept by [`Typed`] for the message).
#[derive(Debug, Clone, Default)]
pub(crate) struct Object<T>(pub(crate) T);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            value @ Value::Object(_) => {
                T::deserialize(value).map(Object).map_err(de::Error::custom)
            }
            other => Err(de::Error::invalid_type(
                de::Unexpected::Other(kind_of(&other)),
                &"an object",
            )),
        }
    }
}

/// `value` read as the struct `T` when it is a JSON object; `None` for anything else. The
/// fields of the structs read this way accept any value, so an object always reads.
pub(crate) fn from_object<T: DeserializeOwned>(value: &Value) -> Option<T> {
    Object::<T>::deserialize(value)
        .ok()
        .map(|Object(read)| read)
}

/// The keys written in `value`, an object, that the struct `T` does not declare, in the order
/// they were written.
pub(crate) fn unknown_keys<T: DeserializeOwned>(value: &Value) -> Vec<String> {
    let known = field_names::<T>();
    Entries::<de::IgnoredAny>::deserialize(value)
        .map(|Entries(written)| written)
        .unwrap_or_default()
        .into_iter()
        .map(|(key, _)| key)
        .filter(|key| !known.contains(&key.as_str()))
        .collect()
}

/// The keys a `#[derive(Deserialize)]` struct declares, as its derive names them: what a key
/// of the file is checked against before it is called unknown.
pub(crate) fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    // The derive hands its field list to `deserialize_struct`; the deserializer keeps it and
    // stops there, so the error below is the expected way out.
    let _ = T::deserialize(FieldNames(&mut names));
    names
}

/// A deserializer that only records the field names a struct asks for.
struct FieldNames<'a>(&'a mut &'static [&'static str]);

/// Why [`FieldNames`] stops: it never produces a value.
#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field names recorded")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<M: fmt::Display>(_: M) -> Self {
        Stop
    }
}

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        *self.0 = fields;
        Err(Stop)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    #[expect(dead_code, reason = "only the field names are read")]
    struct Example {
        event: String,
        #[serde(rename = "type")]
        kind: String,
    }

    #[test]
    fn field_names_are_the_keys_as_written() {
        assert_eq!(field_names::<Example>(), ["event", "type"]);
    }

    #[test]
    fn a_wrongly_typed_field_keeps_what_was_found() {
        let typed: Typed<String> = serde_json::from_str("[1]").expect("any value");
        assert_eq!(typed.get().err(), Some("a list"));
    }

    #[test]
    fn entries_keep_their_order() {
        let Entries(entries) =
            serde_json::from_str::<Entries<Scalar>>(r#"{"b": 1, "a": true}"#).expect("a mapping");
        let keys: Vec<_> = entries
            .iter()
            .map(|(k, v)| (k.as_str(), v.0.as_str()))
            .collect();
        assert_eq!(keys, [("b", "1"), ("a", "true")]);
    }
}
