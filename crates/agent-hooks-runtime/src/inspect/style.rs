//! Presentation shared by the `/hooks` texts: colour and symbols only when the caller says the
//! output is a terminal (and `NO_COLOR` is unset), plain stable text otherwise, lines wrapped to
//! fit 80 columns with a hanging indent.

/// How text is decorated. The library never guesses: the CLI builds it from `IsTerminal`, and
/// hosts and pipes get [`Style::PLAIN`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// ANSI colour and symbols (✓ ✗ !).
    pub color: bool,
}

/// How a suggested command starts in a chat, and in a shell.
const CHAT_PREFIX: &str = "/hooks";
const SHELL_PREFIX: &str = "agent-hooks";

/// The width every line is wrapped to.
pub(crate) const WIDTH: usize = 80;

/// What a piece of text means, for its colour and symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    Good,
    Warn,
    Bad,
    Dim,
}

impl Style {
    /// No colour: for pipes, files and chat windows.
    pub const PLAIN: Style = Style { color: false };

    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty (no-color.org).
    pub fn for_terminal(is_terminal: bool) -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            color: is_terminal && !no_color,
        }
    }

    pub(crate) fn paint(self, tone: Tone, text: &str) -> String {
        if !self.color {
            return text.to_owned();
        }
        let code = match tone {
            Tone::Good => "32",
            Tone::Warn => "33",
            Tone::Bad => "31;1",
            Tone::Dim => "2",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }

    /// A symbol and a space before a name, or nothing in plain text.
    pub(crate) fn mark(self, tone: Tone) -> String {
        if !self.color {
            return String::new();
        }
        let symbol = match tone {
            Tone::Good => "✓",
            Tone::Warn => "!",
            Tone::Bad => "✗",
            Tone::Dim => "·",
        };
        format!("{} ", self.paint(tone, symbol))
    }
}

/// Appends `label value` to `out`, wrapped to [`WIDTH`]: `indent` spaces, the label padded to
/// `label_width`, continuation lines aligned under the value.
pub(crate) fn field(out: &mut String, indent: usize, label: &str, label_width: usize, value: &str) {
    let head = format!("{:indent$}{label:<label_width$} ", "");
    let hang = head.chars().count();
    wrap_into(out, &head, hang, value);
}

/// Appends `text` after `first` (already-indented), continuation lines indented by `hang`.
pub(crate) fn wrap_into(out: &mut String, first: &str, hang: usize, text: &str) {
    let room = WIDTH.saturating_sub(hang).max(20);
    // The first line starts after `first`, which may be wider than the hang.
    let mut line_room = WIDTH.saturating_sub(first.chars().count()).max(20);
    let mut line = first.to_owned();
    let mut used = 0;
    for word in text.split_whitespace() {
        for piece in split_long(word, room) {
            // `/hooks` is counted as wide as `agent-hooks`, its spelling in a shell (the CLI
            // respells it), so the text fits 80 columns in a chat and in a terminal alike.
            let len = if piece == CHAT_PREFIX {
                SHELL_PREFIX.len()
            } else {
                piece.chars().count()
            };
            if used > 0 && used + 1 + len > line_room {
                out.push_str(line.trim_end());
                out.push('\n');
                line = " ".repeat(hang);
                line_room = room;
                used = 0;
            }
            if used > 0 {
                line.push(' ');
                used += 1;
            }
            line.push_str(&piece);
            used += len;
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// Splits a word longer than `room` (a long path) into pieces that fit.
fn split_long(word: &str, room: usize) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    if chars.len() <= room {
        return vec![word.to_owned()];
    }
    chars.chunks(room).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_style_adds_nothing() {
        assert_eq!(Style::PLAIN.paint(Tone::Bad, "x"), "x");
        assert_eq!(Style::PLAIN.mark(Tone::Good), "");
    }

    #[test]
    fn long_values_wrap_under_the_value() {
        let mut out = String::new();
        let value = "word ".repeat(40);
        field(&mut out, 4, "why:", 8, &value);
        for line in out.lines() {
            assert!(line.chars().count() <= WIDTH, "{line:?}");
        }
        assert!(
            out.lines()
                .nth(1)
                .is_some_and(|l| l.starts_with(&" ".repeat(13)))
        );
    }

    #[test]
    fn an_overlong_path_is_split() {
        let mut out = String::new();
        field(&mut out, 2, "runs:", 6, &format!("/{}", "a".repeat(120)));
        assert!(out.lines().all(|l| l.chars().count() <= WIDTH), "{out}");
    }
}
