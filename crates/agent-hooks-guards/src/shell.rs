//! A small POSIX-shell tokenizer: enough to know which words are programs that actually
//! run. It understands quotes, escapes, comments, heredocs, redirections, `$(...)` and
//! backticks, and the separators `; && || | & ( )` and newlines. It never fails: odd
//! input (an unclosed quote) just ends the current word at the end of the text.

use std::collections::HashMap;

/// A parsed command text: pipelines in order, plus the text with every quoted part,
/// comment and heredoc body blanked out (for patterns that need the raw code shape).
#[derive(Debug, Default)]
pub(crate) struct Script {
    pub(crate) pipelines: Vec<Pipeline>,
    pub(crate) code: String,
}

/// Simple commands joined by `|`.
#[derive(Debug, Default)]
pub(crate) struct Pipeline {
    pub(crate) commands: Vec<SimpleCommand>,
}

/// One simple command: its words (quotes removed, nothing expanded), its redirections,
/// the bodies of its heredocs, and the command texts of its `$(...)`/backtick parts.
#[derive(Debug, Default)]
pub(crate) struct SimpleCommand {
    pub(crate) words: Vec<String>,
    pub(crate) redirects: Vec<Redirect>,
    pub(crate) heredocs: Vec<String>,
    pub(crate) substitutions: Vec<String>,
}

/// A redirection such as `> file` (op `>`, target `file`).
#[derive(Debug, Clone)]
pub(crate) struct Redirect {
    pub(crate) op: String,
    pub(crate) target: String,
}

impl Redirect {
    /// Whether this redirection writes to its target (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`).
    pub(crate) fn writes(&self) -> bool {
        self.op.contains('>') && !self.op.ends_with('&')
    }

    /// Whether this redirection reads a file (`<`, `<>`).
    pub(crate) fn reads(&self) -> bool {
        self.op == "<" || self.op == "<>"
    }
}

/// Prefix commands that run the command after them (`sudo`, `env`, ...), by name.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Prefix {
    /// Options that take a value as the next word (`sudo -u root`).
    #[serde(default)]
    pub(crate) options_with_value: Vec<String>,
    /// Options that make the prefix run nothing (`command -v rm` only looks rm up).
    #[serde(default)]
    pub(crate) query_options: Vec<String>,
}

pub(crate) type Prefixes = HashMap<String, Prefix>;

/// Shell grammar words that can stand where a program would.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "case",
    "esac", "{", "}", "!", "function", "select",
];

impl SimpleCommand {
    /// The index of the word that is the program actually run, looking past variable
    /// assignments, shell keywords and prefix commands; `None` when nothing runs.
    pub(crate) fn program_index(&self, prefixes: &Prefixes) -> Option<usize> {
        let words = &self.words;
        let mut i = 0;
        while i < words.len() {
            let word = words[i].as_str();
            if is_assignment(word) || KEYWORDS.contains(&word) {
                i += 1;
                continue;
            }
            let Some(prefix) = prefixes.get(basename(word)) else {
                return Some(i);
            };
            let prefix_at = i;
            i += 1;
            while let Some(option) = words.get(i) {
                if option == "--" {
                    i += 1;
                    break;
                }
                if !option.starts_with('-') || option.len() < 2 {
                    break;
                }
                if prefix.query_options.iter().any(|q| q == option) {
                    return None;
                }
                let takes_value = prefix.options_with_value.iter().any(|o| o == option);
                i += if takes_value { 2 } else { 1 };
            }
            // A prefix with nothing after it runs itself (`env` alone prints the environment).
            if i >= words.len() {
                return Some(prefix_at);
            }
        }
        None
    }

    /// The program's base name and its arguments, if a program runs.
    pub(crate) fn argv<'a>(&'a self, prefixes: &Prefixes) -> Option<(&'a str, &'a [String])> {
        let index = self.program_index(prefixes)?;
        let program = basename(self.words.get(index)?);
        Some((program, self.words.get(index + 1..).unwrap_or(&[])))
    }
}

/// `NAME=value` at command position sets a variable; it is not a program.
fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// `/usr/bin/rm` runs `rm`.
pub(crate) fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

impl Script {
    /// Every simple command, in order.
    pub(crate) fn commands(&self) -> impl Iterator<Item = &SimpleCommand> {
        self.pipelines.iter().flat_map(|p| p.commands.iter())
    }
}

/// Where a heredoc body goes once its line ends: (pipeline, command) indexes.
struct PendingHeredoc {
    delimiter: String,
    strip_tabs: bool,
    pipeline: usize,
    command: usize,
}

struct Parser<'a> {
    src: &'a [u8],
    i: usize,
    word: Vec<u8>,
    in_word: bool,
    command: SimpleCommand,
    pipeline: Pipeline,
    script: Script,
    code: Vec<u8>,
    redirect_op: Option<String>,
    pending: Vec<PendingHeredoc>,
}

/// Parses a command text. Linear in its length.
pub(crate) fn parse(text: &str) -> Script {
    let mut parser = Parser {
        src: text.as_bytes(),
        i: 0,
        word: Vec::new(),
        in_word: false,
        command: SimpleCommand::default(),
        pipeline: Pipeline::default(),
        script: Script::default(),
        code: Vec::with_capacity(text.len()),
        redirect_op: None,
        pending: Vec::new(),
    };
    parser.run();
    parser.end_pipeline();
    let mut script = parser.script;
    script.code = String::from_utf8_lossy(&parser.code).into_owned();
    script
}

impl Parser<'_> {
    fn peek(&self, offset: usize) -> Option<u8> {
        self.src.get(self.i + offset).copied()
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            match c {
                b' ' | b'\t' | b'\r' => {
                    self.end_word();
                    self.code.push(c);
                    self.i += 1;
                }
                b'\n' => {
                    self.end_pipeline();
                    self.code.push(b'\n');
                    self.i += 1;
                    self.read_heredoc_bodies();
                }
                b'#' if !self.in_word => self.skip_comment(),
                b';' | b'(' | b')' => {
                    self.end_pipeline();
                    self.code.push(c);
                    self.i += 1;
                }
                b'&' => self.ampersand(),
                b'|' => self.bar(),
                b'<' | b'>' => self.redirection(),
                b'\\' => {
                    self.code.push(c);
                    if self.peek(1) == Some(b'\n') {
                        self.i += 2;
                    } else {
                        if let Some(next) = self.peek(1) {
                            self.push_word(next);
                            self.code.push(next);
                        }
                        self.i += 2;
                    }
                }
                b'\'' => self.single_quoted(),
                b'"' => self.double_quoted(),
                b'`' => self.backticks(),
                b'$' => self.dollar(),
                _ => {
                    self.push_word(c);
                    self.code.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn push_word(&mut self, byte: u8) {
        self.word.push(byte);
        self.in_word = true;
    }

    fn end_word(&mut self) {
        if !self.in_word {
            return;
        }
        // Words split only at ASCII bytes, so they are valid UTF-8 whenever the input is;
        // taking the buffer avoids a copy per word (the hot path on long commands).
        let word = String::from_utf8(std::mem::take(&mut self.word))
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        self.in_word = false;
        match self.redirect_op.take() {
            Some(op) if op == "<<" || op == "<<-" => {
                self.pending.push(PendingHeredoc {
                    delimiter: word.clone(),
                    strip_tabs: op == "<<-",
                    pipeline: self.script.pipelines.len(),
                    command: self.pipeline.commands.len(),
                });
                self.command.redirects.push(Redirect { op, target: word });
            }
            Some(op) => self.command.redirects.push(Redirect { op, target: word }),
            None => self.command.words.push(word),
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        self.redirect_op = None;
        let command = std::mem::take(&mut self.command);
        if !command.words.is_empty() || !command.redirects.is_empty() {
            self.pipeline.commands.push(command);
        } else {
            // Keep heredoc targets pointing at a real command even for `<<EOF` alone.
            for pending in &mut self.pending {
                if pending.pipeline == self.script.pipelines.len()
                    && pending.command >= self.pipeline.commands.len()
                {
                    pending.command = self.pipeline.commands.len().saturating_sub(1);
                }
            }
        }
    }

    fn end_pipeline(&mut self) {
        self.end_command();
        let pipeline = std::mem::take(&mut self.pipeline);
        if !pipeline.commands.is_empty() {
            self.script.pipelines.push(pipeline);
        }
    }

    fn skip_comment(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == b'\n' {
                break;
            }
            self.code.push(b' ');
            self.i += 1;
        }
    }

    fn ampersand(&mut self) {
        match self.peek(1) {
            Some(b'&') => {
                self.end_pipeline();
                self.code.extend_from_slice(b"&&");
                self.i += 2;
            }
            Some(b'>') => {
                self.end_word();
                let op = if self.peek(2) == Some(b'>') {
                    "&>>"
                } else {
                    "&>"
                };
                self.code.extend_from_slice(op.as_bytes());
                self.i += op.len();
                self.redirect_op = Some(op.to_owned());
            }
            _ => {
                self.end_pipeline();
                self.code.push(b'&');
                self.i += 1;
            }
        }
    }

    fn bar(&mut self) {
        match self.peek(1) {
            Some(b'|') => {
                self.end_pipeline();
                self.code.extend_from_slice(b"||");
                self.i += 2;
            }
            next => {
                self.end_command();
                self.code.push(b'|');
                self.i += if next == Some(b'&') { 2 } else { 1 };
            }
        }
    }

    fn redirection(&mut self) {
        // A word made only of digits right before the operator is a file descriptor.
        if self.in_word && !self.word.is_empty() && self.word.iter().all(u8::is_ascii_digit) {
            self.word.clear();
            self.in_word = false;
        } else {
            self.end_word();
        }
        let rest = &self.src[self.i..];
        let op = ["<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">"]
            .into_iter()
            .find(|op| rest.starts_with(op.as_bytes()))
            .unwrap_or(">");
        self.code.extend_from_slice(op.as_bytes());
        self.i += op.len();
        self.redirect_op = Some(op.to_owned());
    }

    fn single_quoted(&mut self) {
        self.in_word = true;
        self.code.extend_from_slice(b"''");
        self.i += 1;
        while let Some(c) = self.peek(0) {
            self.i += 1;
            if c == b'\'' {
                return;
            }
            self.word.push(c);
        }
    }

    fn double_quoted(&mut self) {
        self.in_word = true;
        self.code.extend_from_slice(b"\"\"");
        self.i += 1;
        while let Some(c) = self.peek(0) {
            match c {
                b'"' => {
                    self.i += 1;
                    return;
                }
                b'\\' => {
                    match self.peek(1) {
                        Some(b'\n') => {}
                        Some(next @ (b'"' | b'\\' | b'$' | b'`')) => self.word.push(next),
                        Some(next) => {
                            self.word.push(b'\\');
                            self.word.push(next);
                        }
                        None => self.word.push(b'\\'),
                    }
                    self.i += 2;
                }
                b'$' if self.peek(1) == Some(b'(') => {
                    let inner = self.balanced_paren();
                    self.command.substitutions.push(inner);
                }
                b'`' => {
                    let inner = self.backtick_body();
                    self.command.substitutions.push(inner);
                }
                _ => {
                    self.word.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn backticks(&mut self) {
        self.in_word = true;
        self.code.push(b'`');
        let inner = self.backtick_body();
        self.command.substitutions.push(inner);
    }

    /// At a backtick: reads to the closing one, keeps the text in the word, returns the body.
    fn backtick_body(&mut self) -> String {
        let start = self.i + 1;
        self.i += 1;
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'`' => break,
                _ => {}
            }
        }
        let end = self.i.min(self.src.len());
        let body_end = if end > start && self.src.get(end - 1) == Some(&b'`') {
            end - 1
        } else {
            end
        };
        self.word.extend_from_slice(&self.src[start - 1..end]);
        String::from_utf8_lossy(&self.src[start..body_end.max(start)]).into_owned()
    }

    fn dollar(&mut self) {
        match self.peek(1) {
            Some(b'(') => {
                self.in_word = true;
                self.code.extend_from_slice(b"$(");
                let inner = self.balanced_paren();
                self.command.substitutions.push(inner);
            }
            Some(b'\'') => {
                // ANSI-C quoting: like single quotes, with backslash escapes.
                self.in_word = true;
                self.code.extend_from_slice(b"''");
                self.i += 2;
                while let Some(c) = self.peek(0) {
                    self.i += 1;
                    match c {
                        b'\'' => return,
                        b'\\' => {
                            if let Some(next) = self.peek(0) {
                                self.word.push(next);
                                self.i += 1;
                            }
                        }
                        _ => self.word.push(c),
                    }
                }
            }
            Some(b'{') => {
                let start = self.i;
                while let Some(c) = self.peek(0) {
                    self.i += 1;
                    if c == b'}' {
                        break;
                    }
                }
                let end = self.i.min(self.src.len());
                self.word.extend_from_slice(&self.src[start..end]);
                self.code.extend_from_slice(&self.src[start..end]);
                self.in_word = true;
            }
            _ => {
                self.push_word(b'$');
                self.code.push(b'$');
                self.i += 1;
            }
        }
    }

    /// At `$(`: reads to the matching `)` (quotes inside respected), keeps the text in
    /// the current word and returns the inner command text.
    fn balanced_paren(&mut self) -> String {
        let start = self.i;
        let body_start = self.i + 2;
        let mut depth = 0usize;
        let mut j = self.i + 1;
        let mut body_end = self.src.len();
        while let Some(&c) = self.src.get(j) {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        body_end = j;
                        j += 1;
                        break;
                    }
                }
                b'\\' => j += 1,
                b'\'' | b'"' => {
                    j += 1;
                    while let Some(&q) = self.src.get(j) {
                        if q == b'\\' && c == b'"' {
                            j += 1;
                        } else if q == c {
                            break;
                        }
                        j += 1;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        let end = j.min(self.src.len());
        self.i = end;
        self.word.extend_from_slice(&self.src[start..end]);
        let body_end = body_end.min(self.src.len()).max(body_start.min(end));
        String::from_utf8_lossy(self.src.get(body_start..body_end).unwrap_or(&[])).into_owned()
    }

    /// After a newline: the bodies of the heredocs opened on the line just ended.
    fn read_heredoc_bodies(&mut self) {
        for pending in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.i < self.src.len() {
                let line_end = self.src[self.i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(self.src.len(), |p| self.i + p);
                let line = String::from_utf8_lossy(&self.src[self.i..line_end]);
                let next = (line_end + 1).min(self.src.len());
                // Heredoc bodies are data: blank them in `code` like quoted text.
                self.code.push(b'\n');
                self.i = next;
                let compared = if pending.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if compared.trim_end_matches('\r') == pending.delimiter {
                    break;
                }
                body.push_str(compared);
                body.push('\n');
            }
            let target = self
                .script
                .pipelines
                .get_mut(pending.pipeline)
                .and_then(|p| p.commands.get_mut(pending.command));
            if let Some(command) = target {
                command.heredocs.push(body);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Vec<String>> {
        parse(text).commands().map(|c| c.words.clone()).collect()
    }

    #[test]
    fn separators_split_commands() {
        assert_eq!(
            words("a 1; b 2 && c || d | e & f\ng"),
            vec![
                vec!["a", "1"],
                vec!["b", "2"],
                vec!["c"],
                vec!["d"],
                vec!["e"],
                vec!["f"],
                vec!["g"]
            ]
        );
    }

    #[test]
    fn quotes_are_removed_and_keep_separators_inside() {
        assert_eq!(
            words(r#"echo "a; rm -rf /" 'b && c' d\ e"#),
            vec![vec!["echo", "a; rm -rf /", "b && c", "d e"]]
        );
    }

    #[test]
    fn comments_are_dropped() {
        assert_eq!(words("ls # rm -rf /\npwd"), vec![vec!["ls"], vec!["pwd"]]);
    }

    #[test]
    fn heredoc_bodies_are_not_commands() {
        let script = parse("cat > a.py <<'EOF'\nrm -rf /\nEOF\necho done");
        let all: Vec<_> = script.commands().collect();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].heredocs, vec!["rm -rf /\n".to_owned()]);
        assert_eq!(all[0].redirects[0].target, "a.py");
        assert_eq!(all[1].words, vec!["echo", "done"]);
    }

    #[test]
    fn substitutions_are_collected() {
        let script = parse("echo \"$(rm -rf /)\" `id`");
        let command = script.commands().next();
        assert_eq!(
            command.map(|c| c.substitutions.clone()),
            Some(vec!["rm -rf /".to_owned(), "id".to_owned()])
        );
    }

    #[test]
    fn prefixes_are_skipped() {
        let mut prefixes = Prefixes::new();
        prefixes.insert(
            "sudo".into(),
            Prefix {
                options_with_value: vec!["-u".into()],
                query_options: vec![],
            },
        );
        prefixes.insert("env".into(), Prefix::default());
        let script = parse("sudo -u root env A=1 /bin/rm -rf /");
        let argv = script.commands().next().and_then(|c| c.argv(&prefixes));
        assert_eq!(argv.map(|(p, a)| (p, a.len())), Some(("rm", 2)));
    }

    #[test]
    fn unclosed_quote_does_not_panic() {
        let _ = parse("echo \"abc $(ls");
        let _ = parse("echo 'abc");
        let _ = parse("cat <<EOF\nno end");
        let _ = parse("`");
        let _ = parse("$(");
        let _ = parse("${");
    }
}
