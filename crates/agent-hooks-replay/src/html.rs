//! `--html report.html`: one self-contained page (no network, no external file): the report's
//! JSON embedded, and a script that draws the flips table, each session's timeline with its
//! flips highlighted, filters by hook, decision and tool, and the exact input of each flipped
//! call. Every text from a transcript is set as text, never parsed as HTML.

use crate::report::Report;

/// The page, with [`DATA`] where the report's JSON goes.
const PAGE: &str = include_str!("page.html");

/// The place of the report's JSON in [`PAGE`].
const DATA: &str = "{{REPLAY_DATA}}";

/// The page for `report`.
pub fn render(report: &Report) -> String {
    // No `<` may reach the script element's text (`</script>`, `<!--` in a transcript would
    // end or bend it): in JSON, `<` stands only inside strings, where `\u003c` is the same.
    let data = report.to_json().to_string().replace('<', "\\u003c");
    PAGE.replacen(DATA, &data, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_text_of_a_transcript_can_end_the_data_script() {
        let report = Report {
            policy: "</script><script>alert(1)</script><!--".to_owned(),
            ..Report::default()
        };
        let page = render(&report);
        let data = page
            .split_once("type=\"application/json\">")
            .and_then(|(_, rest)| rest.split_once("</script>"))
            .map(|(data, _)| data)
            .expect("the data script");
        assert!(!data.contains('<'), "{data}");
        let parsed: serde_json::Value = serde_json::from_str(data).expect("the data is JSON");
        assert_eq!(parsed["policy"], report.policy);
    }
}
