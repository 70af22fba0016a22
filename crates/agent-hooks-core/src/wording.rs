//! Words shared by every error message: what a JSON value is called ("found a list"), and the
//! "did you mean" hint for a misspelt name. One place, so a YAML file, a JSON file, a hook's
//! answer and the CLI all describe the same mistake the same way.

use serde_json::Value;

/// What a JSON (or YAML) value is called in messages: "expected a string, found a list".
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The candidate nearest to a misspelt `name` (by Damerau–Levenshtein distance) that `close`
/// accepts, given the distance and the candidate; the first of equally near ones wins.
pub fn nearest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    close: impl Fn(usize, &str) -> bool,
) -> Option<&'a str> {
    ranked(name, candidates, close).into_iter().next()
}

/// Every candidate `close` accepts for a misspelt `name`, nearest first (equally near ones in
/// the order given), deduplicated: a hint that names several puts the best match first.
pub fn ranked<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    close: impl Fn(usize, &str) -> bool,
) -> Vec<&'a str> {
    let mut scored: Vec<(usize, &'a str)> = Vec::new();
    for candidate in candidates {
        let distance = strsim::damerau_levenshtein(name, candidate);
        if close(distance, candidate) && !scored.iter().any(|(_, c)| *c == candidate) {
            scored.push((distance, candidate));
        }
    }
    // A stable sort: equally near candidates keep the order they were given in.
    scored.sort_by_key(|(distance, _)| *distance);
    scored.into_iter().map(|(_, candidate)| candidate).collect()
}

/// ` (did you mean "x"?)` for a suggestion, nothing without one: ready to append to a message.
pub fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion
        .map(|s| format!(" (did you mean \"{s}\"?)"))
        .unwrap_or_default()
}

/// At most `max` characters of `text` on one line, for messages about what a hook printed.
pub fn preview(text: &str, max: usize) -> String {
    let flat: String = text
        .trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max).collect::<String>())
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_takes_the_closest_accepted_candidate() {
        let names = ["command", "matcher", "timeout"];
        assert_eq!(nearest("comand", names, |d, _| d <= 2), Some("command"));
        assert_eq!(nearest("zzzzzz", names, |d, _| d <= 2), None);
        assert_eq!(
            did_you_mean(nearest("timout", names, |d, _| d <= 2)),
            " (did you mean \"timeout\"?)"
        );
        assert_eq!(did_you_mean(None), "");
    }

    #[test]
    fn ranked_puts_the_best_match_first() {
        // Given worst first, as a parser's own hint lists them.
        let names = ["serve", "approve", "approved"];
        assert_eq!(
            ranked("aprove", names, |d, _| d <= 3),
            ["approve", "approved", "serve"]
        );
        assert_eq!(ranked("aprove", ["x", "x"], |_, _| true), ["x"]);
    }
}
