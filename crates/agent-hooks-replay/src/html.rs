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
    // `</` cannot close the script element from inside the JSON: `<\\/` is the same string.
    let data = report.to_json().to_string().replace("</", "<\\/");
    PAGE.replacen(DATA, &data, 1)
}
