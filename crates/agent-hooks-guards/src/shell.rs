//! A small POSIX-shell tokenizer: enough to know which words are programs that actually
//! run. It understands quotes, escapes, comments, heredocs, redirections, `$(...)` and
//! backticks, and the separators `; && || | & ( )` and newlines. It never fails: odd
//! input (an unclosed quote) just ends the current word at the end of the text.
//!
//! Words, heredoc bodies and substitutions borrow from the command text; only a word that
//! unquoting changes (`'a'b`, `d\ e`) is copied. A guard runs this on every shell call.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

/// A parsed command text: pipelines of simple commands in order, plus the text with every
/// quoted part, comment and heredoc body blanked out (for patterns that need the raw code
/// shape). The words of all commands share one list, so a command costs no allocation of
/// its own.
#[derive(Debug, Default)]
pub(crate) struct Script<'a> {
    words: Vec<Cow<'a, str>>,
    commands: Vec<Parsed<'a>>,
    /// Each pipeline's range in `commands`.
    pipelines: Vec<Range<usize>>,
    pub(crate) code: String,
}

/// A simple command as stored: its range in `Script::words` and what else it carries.
#[derive(Debug, Default)]
struct Parsed<'a> {
    words: Range<usize>,
    redirects: Vec<Redirect<'a>>,
    heredocs: Vec<Cow<'a, str>>,
    substitutions: Vec<Cow<'a, str>>,
}

/// One simple command: its words (quotes removed, nothing expanded), its redirections,
/// the bodies of its heredocs, and the command texts of its `$(...)`/backtick parts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SimpleCommand<'s, 'a> {
    pub(crate) words: &'s [Cow<'a, str>],
    pub(crate) redirects: &'s [Redirect<'a>],
    pub(crate) heredocs: &'s [Cow<'a, str>],
    pub(crate) substitutions: &'s [Cow<'a, str>],
}

/// A redirection such as `> file` (op `>`, target `file`).
#[derive(Debug, Clone)]
pub(crate) struct Redirect<'a> {
    pub(crate) op: &'static str,
    pub(crate) target: Cow<'a, str>,
}

impl Redirect<'_> {
    /// Whether this redirection writes to its target (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`,
    /// and `>&` onto a file rather than a descriptor).
    pub(crate) fn writes(&self) -> bool {
        self.op.contains('>')
            && !(self.op.ends_with('&')
                && (self.target == "-" || self.target.bytes().all(|b| b.is_ascii_digit())))
    }

    /// Whether this redirection reads a file (`<`, `<>`).
    pub(crate) fn reads(&self) -> bool {
        self.op == "<" || self.op == "<>"
    }
}

/// Prefix commands that run the command after them (`sudo`, `env`, ...), by name.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Prefix {
    /// Options that take a value as the next word (`sudo -u root`).
    #[serde(default)]
    pub(crate) options_with_value: Vec<String>,
    /// Options that make the prefix run nothing (`command -v rm` only looks rm up).
    #[serde(default)]
    pub(crate) query_options: Vec<String>,
    /// How many operands come before the command (`timeout 5 rm ...`: one).
    #[serde(default)]
    pub(crate) operands: usize,
}

/// The prefix table as the rules file spells it.
pub(crate) type Prefixes = HashMap<String, Prefix>;

/// The prefix table as the tokenizer looks it up: a handful of names, where comparing
/// strings beats hashing every command's program name, and a table of their first bytes
/// that lets most program names skip the comparisons altogether.
#[derive(Debug, Clone)]
pub(crate) struct PrefixList {
    entries: Vec<(String, Prefix)>,
    first_bytes: [bool; 256],
}

impl PrefixList {
    fn find(&self, name: &str) -> Option<&Prefix> {
        let first = *name.as_bytes().first()?;
        if !self.first_bytes[usize::from(first)] {
            return None;
        }
        self.entries
            .iter()
            .find(|(n, _)| same(n, name))
            .map(|(_, prefix)| prefix)
    }
}

/// The rules' prefix table in lookup form.
pub(crate) fn prefix_list(prefixes: Prefixes) -> PrefixList {
    let mut first_bytes = [false; 256];
    for name in prefixes.keys() {
        if let Some(&b) = name.as_bytes().first() {
            first_bytes[usize::from(b)] = true;
        }
    }
    PrefixList {
        entries: prefixes.into_iter().collect(),
        first_bytes,
    }
}

/// Shell grammar words that can stand where a program would.
fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "if" | "then"
            | "else"
            | "elif"
            | "fi"
            | "do"
            | "done"
            | "while"
            | "until"
            | "for"
            | "in"
            | "case"
            | "esac"
            | "{"
            | "}"
            | "!"
            | "function"
            | "select"
    )
}

/// String equality that rejects on length and first byte before comparing the rest: names
/// are short and mostly differ at once.
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().first() == b.as_bytes().first() && a == b
}

impl<'s, 'a> SimpleCommand<'s, 'a> {
    /// The index of the word that is the program actually run, looking past variable
    /// assignments, shell keywords and prefix commands; `None` when nothing runs.
    pub(crate) fn program_index(&self, prefixes: &PrefixList) -> Option<usize> {
        let words = &self.words;
        let mut i = 0;
        while i < words.len() {
            let word = words[i].as_ref();
            if is_assignment(word) || is_keyword(word) {
                i += 1;
                continue;
            }
            let name = basename(word);
            let Some(prefix) = prefixes.find(name) else {
                return Some(i);
            };
            let prefix_at = i;
            i += 1;
            while let Some(option) = words.get(i) {
                let option = option.as_ref();
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
            i += prefix.operands;
            // A prefix with nothing after it runs itself (`env` alone prints the environment).
            if i >= words.len() {
                return Some(prefix_at);
            }
        }
        None
    }

    /// The program's base name and its arguments, if a program runs.
    pub(crate) fn argv(&self, prefixes: &PrefixList) -> Option<(&'s str, &'s [Cow<'a, str>])> {
        let index = self.program_index(prefixes)?;
        let words: &'s [Cow<'a, str>] = self.words;
        let program = basename(words.get(index)?);
        Some((program, words.get(index + 1..).unwrap_or(&[])))
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

/// `/usr/bin/rm` runs `rm`, and so does `rm.exe`.
pub(crate) fn basename(word: &str) -> &str {
    let name = match word.as_bytes().iter().rposition(|&b| b == b'/') {
        Some(slash) => word.get(slash + 1..).unwrap_or(word),
        None => word,
    };
    name.strip_suffix(".exe").unwrap_or(name)
}

impl<'a> Script<'a> {
    /// Every simple command, in order.
    pub(crate) fn commands(&self) -> impl Iterator<Item = SimpleCommand<'_, 'a>> {
        self.pipelines().flatten()
    }

    /// The pipelines, each as its simple commands in order.
    pub(crate) fn pipelines(
        &self,
    ) -> impl Iterator<Item = impl Iterator<Item = SimpleCommand<'_, 'a>>> {
        self.pipelines.iter().map(|range| {
            self.commands
                .get(range.clone())
                .unwrap_or(&[])
                .iter()
                .map(|parsed| self.command(parsed))
        })
    }

    fn command<'s>(&'s self, parsed: &'s Parsed<'a>) -> SimpleCommand<'s, 'a> {
        SimpleCommand {
            words: self.words.get(parsed.words.clone()).unwrap_or(&[]),
            redirects: &parsed.redirects,
            heredocs: &parsed.heredocs,
            substitutions: &parsed.substitutions,
        }
    }
}

/// A byte that continues a word unquoted: anything but blanks, operators, quotes, `\\` and
/// `$`. (`#` starts a comment only at the start of a word.) A table, since the parser asks
/// for every byte of every word.
fn is_plain(c: u8) -> bool {
    PLAIN[usize::from(c)]
}

const PLAIN: [bool; 256] = {
    let mut table = [true; 256];
    let special = b" \t\r\n;()&|<>\\'\"`$";
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = false;
        i += 1;
    }
    table
};

/// Where a heredoc body goes once its line ends: (pipeline, command) indexes.
struct PendingHeredoc<'a> {
    delimiter: Cow<'a, str>,
    strip_tabs: bool,
    pipeline: usize,
    command: usize,
}

/// The word being read: a span of the source while the bytes taken are contiguous there,
/// a copy once unquoting skips a byte (`'a'b`, `d\ e`).
#[derive(Debug, Default)]
struct WordBuf {
    start: usize,
    end: usize,
    owned: Option<Vec<u8>>,
}

struct Parser<'a> {
    text: &'a str,
    src: &'a [u8],
    i: usize,
    word: WordBuf,
    in_word: bool,
    /// The command being read (its words go straight to `script.words`).
    command: Parsed<'a>,
    /// Where the pipeline being read starts in `script.commands`.
    pipeline_start: usize,
    script: Script<'a>,
    code: Vec<u8>,
    redirect_op: Option<&'static str>,
    pending: Vec<PendingHeredoc<'a>>,
}

/// Parses a command text. Linear in its length.
pub(crate) fn parse(text: &str) -> Script<'_> {
    let mut parser = Parser {
        text,
        src: text.as_bytes(),
        i: 0,
        word: WordBuf::default(),
        in_word: false,
        command: Parsed::default(),
        pipeline_start: 0,
        // Sized for a typical script (a word per 8 bytes, a command per 32) so that the
        // lists are rarely regrown and copied while a long command is read.
        script: Script {
            words: Vec::with_capacity(text.len() / 8 + 1),
            commands: Vec::with_capacity(text.len() / 32 + 1),
            ..Script::default()
        },
        code: Vec::with_capacity(text.len()),
        redirect_op: None,
        pending: Vec::new(),
    };
    parser.run();
    parser.end_pipeline();
    let mut script = parser.script;
    script.code = String::from_utf8(parser.code)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    script
}

impl<'a> Parser<'a> {
    fn peek(&self, offset: usize) -> Option<u8> {
        self.src.get(self.i + offset).copied()
    }

    /// `src[start..end]` as text: borrowed, as the cut points are ASCII bytes of a `str`.
    fn slice(&self, start: usize, end: usize) -> Cow<'a, str> {
        let end = end.min(self.src.len());
        let start = start.min(end);
        match self.text.get(start..end) {
            Some(text) => Cow::Borrowed(text),
            None => String::from_utf8_lossy(&self.src[start..end]),
        }
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
                            self.take(self.i + 1, self.i + 2);
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
                    // A run of ordinary bytes in one step: most of a script is plain words.
                    let start = self.i;
                    let rest = &self.src[start + 1..];
                    let len = 1 + rest
                        .iter()
                        .position(|&c| !is_plain(c))
                        .unwrap_or(rest.len());
                    self.take(start, start + len);
                    self.code.extend_from_slice(&self.src[start..start + len]);
                    self.i += len;
                }
            }
        }
    }

    /// Adds `src[start..end]` to the current word.
    fn take(&mut self, start: usize, end: usize) {
        let end = end.min(self.src.len());
        let start = start.min(end);
        self.in_word = true;
        if start == end {
            return;
        }
        let word = &mut self.word;
        if let Some(bytes) = &mut word.owned {
            bytes.extend_from_slice(&self.src[start..end]);
        } else if word.start == word.end {
            word.start = start;
            word.end = end;
        } else if word.end == start {
            word.end = end;
        } else {
            let mut bytes = Vec::with_capacity(word.end - word.start + end - start + 8);
            bytes.extend_from_slice(&self.src[word.start..word.end]);
            bytes.extend_from_slice(&self.src[start..end]);
            word.owned = Some(bytes);
        }
    }

    /// The bytes of the current word so far.
    fn word_bytes(&self) -> &[u8] {
        match &self.word.owned {
            Some(bytes) => bytes,
            None => &self.src[self.word.start..self.word.end],
        }
    }

    fn clear_word(&mut self) {
        self.word = WordBuf::default();
        self.in_word = false;
    }

    fn end_word(&mut self) {
        if !self.in_word {
            return;
        }
        let buf = std::mem::take(&mut self.word);
        self.in_word = false;
        // The common case, a plain word borrowed from the text, straight into the list.
        if buf.owned.is_none()
            && self.redirect_op.is_none()
            && let Some(text) = self.text.get(buf.start..buf.end)
        {
            self.script.words.push(Cow::Borrowed(text));
            return;
        }
        let word = match buf.owned {
            // Words split only at ASCII bytes, so they are valid UTF-8 whenever the input is.
            Some(bytes) => Cow::Owned(
                String::from_utf8(bytes)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            ),
            None => self.slice(buf.start, buf.end),
        };
        match self.redirect_op.take() {
            Some(op @ ("<<" | "<<-")) => {
                self.pending.push(PendingHeredoc {
                    delimiter: word.clone(),
                    strip_tabs: op == "<<-",
                    pipeline: self.script.pipelines.len(),
                    command: self.script.commands.len() - self.pipeline_start,
                });
                self.command.redirects.push(Redirect { op, target: word });
            }
            Some(op) => self.command.redirects.push(Redirect { op, target: word }),
            None => self.script.words.push(word),
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        self.redirect_op = None;
        let mut command = std::mem::take(&mut self.command);
        let words_end = self.script.words.len();
        command.words.end = words_end;
        if !command.words.is_empty() || !command.redirects.is_empty() {
            self.script.commands.push(command);
        } else {
            // Keep heredoc targets pointing at a real command even for `<<EOF` alone.
            let in_pipeline = self.script.commands.len() - self.pipeline_start;
            for pending in &mut self.pending {
                if pending.pipeline == self.script.pipelines.len() && pending.command >= in_pipeline
                {
                    pending.command = in_pipeline.saturating_sub(1);
                }
            }
        }
        self.command.words = words_end..words_end;
    }

    fn end_pipeline(&mut self) {
        self.end_command();
        let end = self.script.commands.len();
        if end > self.pipeline_start {
            self.script.pipelines.push(self.pipeline_start..end);
        }
        self.pipeline_start = end;
    }

    fn skip_comment(&mut self) {
        let rest = &self.src[self.i..];
        let len = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        self.code.resize(self.code.len() + len, b' ');
        self.i += len;
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
                self.redirect_op = Some(op);
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
        let bytes = self.word_bytes();
        if self.in_word && !bytes.is_empty() && bytes.iter().all(u8::is_ascii_digit) {
            self.clear_word();
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
        self.redirect_op = Some(op);
    }

    fn single_quoted(&mut self) {
        self.in_word = true;
        self.code.extend_from_slice(b"''");
        self.i += 1;
        let rest = &self.src[self.i..];
        match rest.iter().position(|&c| c == b'\'') {
            Some(len) => {
                self.take(self.i, self.i + len);
                self.i += len + 1;
            }
            None => {
                self.take(self.i, self.src.len());
                self.i = self.src.len();
            }
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
                        Some(b'"' | b'\\' | b'$' | b'`') => self.take(self.i + 1, self.i + 2),
                        Some(_) => self.take(self.i, self.i + 2),
                        None => self.take(self.i, self.i + 1),
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
                    let start = self.i;
                    let rest = &self.src[start + 1..];
                    let len = 1 + rest
                        .iter()
                        .position(|&c| matches!(c, b'"' | b'\\' | b'$' | b'`'))
                        .unwrap_or(rest.len());
                    self.take(start, start + len);
                    self.i += len;
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
    fn backtick_body(&mut self) -> Cow<'a, str> {
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
        self.take(start - 1, end);
        self.slice(start, body_end.max(start))
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
                            if self.peek(0).is_some() {
                                self.take(self.i, self.i + 1);
                                self.i += 1;
                            }
                        }
                        _ => self.take(self.i - 1, self.i),
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
                self.take(start, end);
                self.code.extend_from_slice(&self.src[start..end]);
            }
            _ => {
                self.take(self.i, self.i + 1);
                self.code.push(b'$');
                self.i += 1;
            }
        }
    }

    /// At `$(`: reads to the matching `)` (quotes inside respected), keeps the text in
    /// the current word and returns the inner command text.
    fn balanced_paren(&mut self) -> Cow<'a, str> {
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
        self.take(start, end);
        let body_end = body_end.min(self.src.len()).max(body_start.min(end));
        if body_start > body_end {
            return Cow::Borrowed("");
        }
        self.slice(body_start, body_end)
    }

    /// After a newline: the bodies of the heredocs opened on the line just ended.
    fn read_heredoc_bodies(&mut self) {
        for pending in std::mem::take(&mut self.pending) {
            let body_start = self.i;
            // A body is the source text up to its delimiter line, unless tabs are stripped
            // (`<<-`) or the text ends without a newline: then it is rebuilt line by line.
            let mut rebuilt: Option<String> = pending.strip_tabs.then(String::new);
            let mut body_end = body_start;
            while self.i < self.src.len() {
                let line_end = self.src[self.i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(self.src.len(), |p| self.i + p);
                let line = self.slice(self.i, line_end);
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
                match &mut rebuilt {
                    Some(body) => {
                        body.push_str(compared);
                        body.push('\n');
                    }
                    None if line_end < self.src.len() => body_end = line_end + 1,
                    None => {
                        let mut body = self.slice(body_start, line_end).into_owned();
                        body.push('\n');
                        rebuilt = Some(body);
                    }
                }
            }
            let body = match rebuilt {
                Some(body) => Cow::Owned(body),
                None => self.slice(body_start, body_end),
            };
            let target = self
                .script
                .pipelines
                .get(pending.pipeline)
                .filter(|range| pending.command < range.len())
                .map(|range| range.start + pending.command)
                .and_then(|index| self.script.commands.get_mut(index));
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
        parse(text)
            .commands()
            .map(|c| c.words.iter().map(|w| w.to_string()).collect())
            .collect()
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
            command.map(|c| c
                .substitutions
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()),
            Some(vec!["rm -rf /".to_owned(), "id".to_owned()])
        );
    }

    #[test]
    fn prefixes_are_skipped() {
        let prefixes = prefix_list(Prefixes::from([
            (
                "sudo".into(),
                Prefix {
                    options_with_value: vec!["-u".into()],
                    query_options: vec![],
                    operands: 0,
                },
            ),
            ("env".into(), Prefix::default()),
        ]));
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
