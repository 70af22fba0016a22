//! A small POSIX-shell tokenizer: enough to know which words are programs that actually
//! run. It understands quotes, escapes, comments, heredocs, redirections, `$(...)` and
//! backticks, and the separators `; && || | & ( )` and newlines. It never fails: odd
//! input (an unclosed quote) just ends the current word at the end of the text.
//!
//! Words, heredoc bodies and substitutions borrow from the command text; only a word that
//! unquoting changes (`'a'b`, `d\ e`) is copied. The body of each `$(...)` and backtick
//! part is parsed once, after the text around it, into the same lists: a command's parts
//! are ranges of those lists, so a guard that runs this on every shell call allocates a
//! handful of lists per text, not a few per command.
//!
//! ANSI-C quotes (`$'\x72\x6d'`) are decoded as bash decodes them, and `<(...)`/`>(...)`
//! are words whose bodies are parsed like `$(...)`.
//!
//! Why hand-written, not a complete grammar: `brush-parser` and `yash-syntax` were measured
//! against it (figures in the crate's README, "The shell grammar"). Either takes 2.4–5.4 ms
//! to parse the 10 KB dense script that the whole guard answers in well under 0.1 ms, and
//! either rejects texts a guard must still read (an unterminated quote, a heredoc at the end
//! of the text, process substitution for yash); this tokenizer never fails. What a grammar
//! would add for a guard (expansions, aliases, `set --`, `IFS`) is resolved in the walk.
//!
//! Why one file of this size: the tokenizer is one state machine over the text, and its
//! states (quotes, heredocs, substitutions, the ranges into the shared lists) read each
//! other's fields at every step; split by state, each part would need the whole.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use crate::rules::{Text, same_bytes};

/// How deep substitutions inside substitutions are parsed (`$(a $(b $(c)))`: three).
/// Deeper bodies keep their text but no commands ([`Body::parsed`]), so that a text made
/// of nothing but `$(` costs time in proportion to its length.
const MAX_BODY_DEPTH: usize = 8;

/// A parsed command text: its body (pipelines of simple commands in order) and the bodies
/// of its substitutions, plus the text with every quoted part, comment and heredoc body
/// blanked out (for patterns that need the raw code shape).
#[derive(Debug, Default)]
pub(crate) struct Script<'a> {
    words: Vec<Cow<'a, str>>,
    redirects: Vec<Redirect<'a>>,
    heredocs: Vec<Cow<'a, str>>,
    /// The whole text first, then every substitution body in the order it was found.
    bodies: Vec<Body<'a>>,
    commands: Vec<Parsed>,
    /// Each pipeline's range in `commands`.
    pipelines: Vec<Range<usize>>,
    code: String,
}

/// A command text inside a script: the script's own, or the inside of a `$(...)` or
/// backtick part.
#[derive(Debug)]
pub(crate) struct Body<'a> {
    /// The text as written (for a substitution, without `$(` and `)`).
    pub(crate) text: Cow<'a, str>,
    /// Where the text is in the source, to parse it once its surroundings are done.
    span: Range<usize>,
    /// How many substitutions it is nested in.
    depth: usize,
    /// Whether its commands were parsed (all but those nested beyond [`MAX_BODY_DEPTH`]).
    pub(crate) parsed: bool,
    /// Its range in `Script::pipelines`.
    pipelines: Range<usize>,
    /// Its range in `Script::code`.
    code: Range<usize>,
}

/// A simple command as stored: its parts as ranges of the script's lists.
#[derive(Debug, Default, Clone)]
struct Parsed {
    words: Range<usize>,
    redirects: Range<usize>,
    heredocs: Range<usize>,
    substitutions: Range<usize>,
}

/// One simple command: its words (quotes removed, nothing expanded), its redirections,
/// the bodies of its heredocs, and its `$(...)`/backtick parts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SimpleCommand<'s, 'a> {
    pub(crate) words: &'s [Cow<'a, str>],
    pub(crate) redirects: &'s [Redirect<'a>],
    pub(crate) heredocs: &'s [Cow<'a, str>],
    pub(crate) substitutions: &'s [Body<'a>],
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

    /// Whether this redirection only points a descriptor at a standard stream or closes it
    /// (`2>&1`, `>&2`, `<&-`): it touches no file.
    pub(crate) fn joins_standard(&self) -> bool {
        self.op.ends_with('&') && matches!(self.target.as_ref(), "0" | "1" | "2" | "-")
    }

    /// Whether this redirection reads a file (`<`, `<>`).
    pub(crate) fn reads(&self) -> bool {
        self.op == "<" || self.op == "<>"
    }
}

/// Prefix commands that run the command after them (`sudo`, `env`, ...), by name.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct Prefix {
    /// Options that take a value as the next word (`sudo -u root`).
    #[serde(default)]
    pub(crate) options_with_value: Vec<Text>,
    /// Options that make the prefix run nothing (`command -v rm` only looks rm up).
    #[serde(default)]
    pub(crate) query_options: Vec<Text>,
    /// How many operands come before the command (`timeout 5 rm ...`: one).
    #[serde(default)]
    pub(crate) operands: usize,
    /// For a tool that runs a command only through a subcommand (`uv run`, `npm exec`):
    /// those subcommands. With another first operand (`uv pip install`) the tool itself runs.
    #[serde(default)]
    pub(crate) subcommands: Vec<Text>,
}

/// The index of the first word from `i` on that is not an option, or the value of one of
/// `with_value` (`git -C dir reset`: the value is the next word); a `--` ends the options
/// and is stepped over.
pub(crate) fn past_options(words: &[Cow<'_, str>], mut i: usize, with_value: &[Text]) -> usize {
    while let Some(word) = words.get(i) {
        if word == "--" {
            return i + 1;
        }
        if !word.starts_with('-') || word.len() < 2 {
            break;
        }
        i += if with_value.iter().any(|o| o == word) {
            2
        } else {
            1
        };
    }
    i
}

impl Prefix {
    /// The index of the first word from `i` on that is not one of this prefix's options (or
    /// their values), past a `--`; `None` when an option makes the prefix run nothing.
    fn skip_options(&self, words: &[Cow<'_, str>], mut i: usize) -> Option<usize> {
        while let Some(option) = words.get(i) {
            let option = option.as_ref();
            if option == "--" {
                return Some(i + 1);
            }
            // A lone `-` is an option where a prefix takes one (`env -` is `env -i`), and no
            // program is called `-`.
            if option == "-" {
                i += 1;
                continue;
            }
            if !option.starts_with('-') {
                break;
            }
            if self.query_options.iter().any(|q| q == option) {
                return None;
            }
            let takes_value = self.options_with_value.iter().any(|o| o == option);
            i += if takes_value { 2 } else { 1 };
        }
        Some(i)
    }
}

/// The prefix table as the rules file spells it.
pub(crate) type Prefixes = HashMap<Text, Prefix>;

/// The prefix table as the tokenizer looks it up for every command: a couple of dozen
/// names sorted, and for each first byte where its names are, so that a program name is
/// compared with the two or three names that start like it, or with none.
#[derive(Debug, Clone)]
pub(crate) struct PrefixList {
    entries: Vec<(Text, Prefix)>,
    by_first_byte: Box<[Range<usize>; 256]>,
}

impl PrefixList {
    fn find(&self, name: &str) -> Option<&Prefix> {
        let first = *name.as_bytes().first()?;
        let range = self.by_first_byte[usize::from(first)].clone();
        self.entries
            .get(range)?
            .iter()
            .find(|(n, _)| same(n, name))
            .map(|(_, prefix)| prefix)
    }
}

/// The rules' prefix table in lookup form.
pub(crate) fn prefix_list(prefixes: Prefixes) -> PrefixList {
    let mut entries: Vec<(Text, Prefix)> = prefixes.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut by_first_byte = Box::new([const { 0..0 }; 256]);
    for (i, (name, _)) in entries.iter().enumerate() {
        let Some(&b) = name.as_bytes().first() else {
            continue;
        };
        let range = &mut by_first_byte[usize::from(b)];
        if range.start == range.end {
            *range = i..i;
        }
        range.end = i + 1;
    }
    PrefixList {
        entries,
        by_first_byte,
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

/// String equality for short names, which mostly differ at once: compared byte by byte,
/// without the call into `memcmp` that `==` makes.
pub(crate) fn same(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
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
            i = prefix.skip_options(words, i + 1)?;
            if !prefix.subcommands.is_empty() {
                // `uv run [options] cmd`: options may stand before and after the subcommand.
                match words.get(i) {
                    Some(sub) if prefix.subcommands.iter().any(|s| s == sub) => {
                        i = prefix.skip_options(words, i + 1)?;
                    }
                    _ => return Some(prefix_at),
                }
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

/// Whether `word`, first in a command, is the program that runs: not an assignment, a
/// keyword or a prefix command, and not a path (whose base name could be one).
pub(crate) fn runs_itself(word: &str, prefixes: &PrefixList) -> bool {
    !word.contains('/')
        && !word.ends_with(".exe")
        && !is_assignment(word)
        && !is_keyword(word)
        && prefixes.find(word).is_none()
}

/// `NAME=value` at command position sets a variable; it is not a program.
fn is_assignment(word: &str) -> bool {
    let bytes = word.as_bytes();
    if !bytes
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
    {
        return false;
    }
    // The name runs up to the first byte that cannot be in one, which must be `=`.
    bytes
        .iter()
        .find(|b| !(b.is_ascii_alphanumeric() || **b == b'_'))
        == Some(&b'=')
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
    /// Every simple command of the text itself (not those inside substitutions), in order.
    pub(crate) fn commands(&self) -> impl Iterator<Item = SimpleCommand<'_, 'a>> {
        self.pipelines().flatten()
    }

    /// The text itself as a body.
    pub(crate) fn root(&self) -> Option<&Body<'a>> {
        self.bodies.first()
    }

    /// The pipelines of the text itself, each as its simple commands in order.
    pub(crate) fn pipelines(
        &self,
    ) -> impl Iterator<Item = impl Iterator<Item = SimpleCommand<'_, 'a>>> {
        let range = self.root().map_or(0..0, |root| root.pipelines.clone());
        self.pipelines_in(range)
    }

    /// The pipelines of `body`, which must be one of this script's bodies.
    pub(crate) fn body_pipelines(
        &self,
        body: &Body<'a>,
    ) -> impl Iterator<Item = impl Iterator<Item = SimpleCommand<'_, 'a>>> {
        self.pipelines_in(body.pipelines.clone())
    }

    /// The blanked-out code of `body` (see [`Script`]).
    pub(crate) fn body_code(&self, body: &Body<'a>) -> &str {
        self.code.get(body.code.clone()).unwrap_or("")
    }

    fn pipelines_in(
        &self,
        range: Range<usize>,
    ) -> impl Iterator<Item = impl Iterator<Item = SimpleCommand<'_, 'a>>> {
        self.pipelines
            .get(range)
            .unwrap_or(&[])
            .iter()
            .map(|range| {
                self.commands
                    .get(range.clone())
                    .unwrap_or(&[])
                    .iter()
                    .map(|parsed| self.command(parsed))
            })
    }

    fn command<'s>(&'s self, parsed: &'s Parsed) -> SimpleCommand<'s, 'a> {
        SimpleCommand {
            words: self.words.get(parsed.words.clone()).unwrap_or(&[]),
            redirects: self.redirects.get(parsed.redirects.clone()).unwrap_or(&[]),
            heredocs: self.heredocs.get(parsed.heredocs.clone()).unwrap_or(&[]),
            substitutions: self.bodies.get(parsed.substitutions.clone()).unwrap_or(&[]),
        }
    }
}

/// A byte that continues a word unquoted: anything but blanks, operators, quotes, `\\` and
/// `$`. (`#` starts a comment only at the start of a word.) A table, since the parser asks
/// for every byte of every word.
fn is_plain(c: u8) -> bool {
    PLAIN[usize::from(c)]
}

/// How many bytes at the start of `bytes` are plain ([`is_plain`]), found eight at a time
/// without a branch per byte: where a word ends differs from word to word, so a branch per
/// byte is mispredicted at nearly every word's end.
fn plain_len(bytes: &[u8]) -> usize {
    let (chunks, rest) = bytes.as_chunks::<8>();
    let mut len = 0;
    for chunk in chunks {
        let mut stops = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            stops |= u32::from(!is_plain(c)) << k;
        }
        if stops != 0 {
            return len + stops.trailing_zeros() as usize;
        }
        len += 8;
    }
    len + rest
        .iter()
        .position(|&c| !is_plain(c))
        .unwrap_or(rest.len())
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

/// What the code shows in place of a part of the source.
#[derive(Debug, Clone, Copy)]
enum Blank {
    Text(&'static str),
    Repeat(u8, usize),
}

/// A byte after which a word is complete: a blank or an operator other than a redirection.
fn ends_word(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\r' | b'\n' | b';' | b'(' | b')' | b'&' | b'|'
    )
}

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
    /// The whole command text.
    full: &'a str,
    /// The text up to the end of the body being parsed, so that parsing stops there.
    text: &'a str,
    src: &'a [u8],
    i: usize,
    /// How deep the body being parsed is nested.
    depth: usize,
    word: WordBuf,
    in_word: bool,
    /// The command being read (its parts go straight to the script's lists).
    command: Parsed,
    /// Where the pipeline being read starts in `script.commands`.
    pipeline_start: usize,
    script: Script<'a>,
    /// The code of the bodies parsed so far: the source with quoted parts, comments and
    /// heredoc bodies blanked. It is copied in stretches: up to `copied`, then blanked
    /// text, then the source again.
    code: Vec<u8>,
    copied: usize,
    redirect_op: Option<&'static str>,
    pending: Vec<PendingHeredoc<'a>>,
}

/// Parses a command text and the bodies of its substitutions. Linear in its length (times
/// the nesting of substitutions, which is bounded).
pub(crate) fn parse(text: &str) -> Script<'_> {
    let mut parser = Parser {
        full: text,
        text,
        src: text.as_bytes(),
        i: 0,
        depth: 0,
        word: WordBuf::default(),
        in_word: false,
        command: Parsed::default(),
        pipeline_start: 0,
        // Sized for a typical script (a word per 8 bytes, a command per 32) so that the
        // lists are rarely regrown and copied while a long command is read.
        script: Script {
            words: Vec::with_capacity(text.len() / 8 + 1),
            commands: Vec::with_capacity(text.len() / 24 + 1),
            pipelines: Vec::with_capacity(text.len() / 24 + 1),
            redirects: Vec::with_capacity(text.len() / 128 + 1),
            bodies: Vec::with_capacity(text.len() / 128 + 1),
            ..Script::default()
        },
        code: Vec::with_capacity(text.len()),
        copied: 0,
        redirect_op: None,
        pending: Vec::new(),
    };
    parser.script.bodies.push(Body {
        text: Cow::Borrowed(text),
        span: 0..text.len(),
        depth: 0,
        parsed: false,
        pipelines: 0..0,
        code: 0..0,
    });
    // Bodies found while parsing one are pushed behind it, so this reaches them all.
    let mut next = 0;
    while next < parser.script.bodies.len() {
        parser.parse_body(next);
        next += 1;
    }
    let mut script = parser.script;
    script.code = String::from_utf8(parser.code)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    script
}

impl<'a> Parser<'a> {
    /// Parses body `index` of the script (its span of the text) into the script's lists.
    fn parse_body(&mut self, index: usize) {
        let Some(body) = self.script.bodies.get(index) else {
            return;
        };
        if body.depth > MAX_BODY_DEPTH {
            return;
        }
        let (span, depth) = (body.span.clone(), body.depth);
        let end = span.end.min(self.full.len());
        self.text = self.full.get(..end).unwrap_or(self.full);
        self.src = self.full.as_bytes().get(..end).unwrap_or(&[]);
        self.i = span.start;
        self.depth = depth;
        self.clear_word();
        self.redirect_op = None;
        self.pending.clear();
        self.start_command();
        self.pipeline_start = self.script.commands.len();
        let pipelines_start = self.script.pipelines.len();
        let code_start = self.code.len();
        self.copied = span.start;
        self.run();
        self.end_pipeline();
        self.blank(self.src.len(), self.src.len(), Blank::Text(""));
        let (pipelines_end, code_end) = (self.script.pipelines.len(), self.code.len());
        if let Some(body) = self.script.bodies.get_mut(index) {
            body.parsed = true;
            body.pipelines = pipelines_start..pipelines_end;
            body.code = code_start..code_end;
        }
    }

    /// Starts the next command: its parts begin at the ends of the script's lists.
    fn start_command(&mut self) {
        let script = &self.script;
        let (words, redirects) = (script.words.len(), script.redirects.len());
        let (heredocs, bodies) = (script.heredocs.len(), script.bodies.len());
        self.command = Parsed {
            words: words..words,
            redirects: redirects..redirects,
            heredocs: heredocs..heredocs,
            substitutions: bodies..bodies,
        };
    }

    /// Notes a `$(...)` or backtick part whose inside is `span`; it is parsed after the
    /// body being read.
    fn substitution(&mut self, span: Range<usize>) {
        let text = self.slice(span.start, span.end);
        self.script.bodies.push(Body {
            text,
            span,
            depth: self.depth + 1,
            parsed: false,
            pipelines: 0..0,
            code: 0..0,
        });
    }

    fn peek(&self, offset: usize) -> Option<u8> {
        self.src.get(self.i + offset).copied()
    }

    /// Puts `with` in the code where the source has `start..end`, after copying the source
    /// up to `start`.
    fn blank(&mut self, start: usize, end: usize, with: Blank) {
        let end = end.min(self.src.len());
        let start = start.min(end);
        if let Some(kept) = self.src.get(self.copied..start) {
            self.code.extend_from_slice(kept);
        }
        match with {
            Blank::Text(text) => self.code.extend_from_slice(text.as_bytes()),
            Blank::Repeat(byte, count) => self.code.resize(self.code.len() + count, byte),
        }
        self.copied = self.copied.max(end);
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
            // The two commonest cases first, each behind one well-predicted branch (the
            // `match` below compiles to a jump whose target changes at nearly every byte).
            if c != b'#' && is_plain(c) {
                self.plain_run();
                continue;
            }
            if c == b' ' {
                self.blanks();
                continue;
            }
            match c {
                b' ' | b'\t' | b'\r' => self.blanks(),
                b'\n' => {
                    self.end_pipeline();
                    self.i += 1;
                    self.read_heredoc_bodies();
                }
                b'#' if !self.in_word => self.skip_comment(),
                b';' | b'(' | b')' => {
                    self.end_pipeline();
                    self.i += 1;
                }
                b'&' => self.ampersand(),
                b'|' => self.bar(),
                b'<' | b'>' => self.redirection(),
                b'\\' => {
                    if self.peek(1) == Some(b'\n') {
                        // A line continuation: the code keeps the backslash only.
                        self.blank(self.i + 1, self.i + 2, Blank::Text(""));
                    } else if self.peek(1).is_some() {
                        self.take(self.i + 1, self.i + 2);
                    }
                    self.i += 2;
                }
                b'\'' => self.single_quoted(),
                b'"' => self.double_quoted(),
                b'`' => self.backticks(),
                b'$' => self.dollar(),
                _ => self.plain_run(),
            }
        }
    }

    /// At a blank: ends the word and steps over the run of blanks.
    fn blanks(&mut self) {
        self.end_word();
        self.skip_blanks();
    }

    /// Steps over the run of blanks at `i`.
    fn skip_blanks(&mut self) {
        let rest = self.src.get(self.i + 1..).unwrap_or(&[]);
        self.i += 1 + rest
            .iter()
            .position(|&c| !matches!(c, b' ' | b'\t' | b'\r'))
            .unwrap_or(rest.len());
    }

    /// At an ordinary byte: the run of them in one step, as most of a script is plain words.
    fn plain_run(&mut self) {
        let start = self.i;
        let end = start + 1 + plain_len(self.src.get(start + 1..).unwrap_or(&[]));
        self.i = end;
        // A whole word with nothing to unquote goes straight into the list
        // (digits before `<` or `>` may be a descriptor: the long way).
        if !self.in_word
            && self.redirect_op.is_none()
            && self.src.get(end).is_none_or(|&c| ends_word(c))
            && let Some(word) = self.text.get(start..end)
        {
            self.script.words.push(Cow::Borrowed(word));
            // The blanks after it, in the same step: a word is mostly followed by one.
            if self.src.get(end) == Some(&b' ') {
                self.skip_blanks();
            }
        } else {
            self.take(start, end);
        }
    }

    /// Adds `src[start..end]` to the current word.
    #[inline]
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

    /// Adds bytes that are not in the source (a decoded escape) to the current word.
    fn push_bytes(&mut self, bytes: &[u8]) {
        self.in_word = true;
        let (start, end) = (self.word.start, self.word.end);
        let src = self.src;
        let owned = self
            .word
            .owned
            .get_or_insert_with(|| src.get(start..end).unwrap_or(&[]).to_vec());
        owned.extend_from_slice(bytes);
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

    /// Ends the word being read, if one is: most calls find none (the word was pushed
    /// whole), so only this check is inlined.
    #[inline(always)]
    fn end_word(&mut self) {
        if self.in_word {
            self.finish_word();
        }
    }

    fn finish_word(&mut self) {
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
                self.script.redirects.push(Redirect { op, target: word });
            }
            Some(op) => self.script.redirects.push(Redirect { op, target: word }),
            None => self.script.words.push(word),
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        self.redirect_op = None;
        let mut command = std::mem::take(&mut self.command);
        command.words.end = self.script.words.len();
        command.redirects.end = self.script.redirects.len();
        command.substitutions.end = self.script.bodies.len();
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
        self.start_command();
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
        self.blank(self.i, self.i + len, Blank::Repeat(b' ', len));
        self.i += len;
    }

    fn ampersand(&mut self) {
        match self.peek(1) {
            Some(b'&') => {
                self.end_pipeline();
                self.i += 2;
            }
            Some(b'>') => {
                self.end_word();
                let op = if self.peek(2) == Some(b'>') {
                    "&>>"
                } else {
                    "&>"
                };
                self.i += op.len();
                self.redirect_op = Some(op);
            }
            _ => {
                self.end_pipeline();
                self.i += 1;
            }
        }
    }

    fn bar(&mut self) {
        match self.peek(1) {
            Some(b'|') => {
                self.end_pipeline();
                self.i += 2;
            }
            next => {
                self.end_command();
                if next == Some(b'&') {
                    // `|&` pipes stderr too; the code shows a plain `|`.
                    self.blank(self.i + 1, self.i + 2, Blank::Text(""));
                    self.i += 2;
                } else {
                    self.i += 1;
                }
            }
        }
    }

    fn redirection(&mut self) {
        // `<(cmd)` and `>(cmd)`: process substitution, a word naming a pipe to or from cmd.
        if self.peek(1) == Some(b'(') && !self.in_word {
            let start = self.i;
            let inner = self.balanced_paren();
            self.substitution(inner);
            self.blank(start + 2, self.i, Blank::Text(""));
            return;
        }
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
        self.i += op.len();
        self.redirect_op = Some(op);
    }

    fn single_quoted(&mut self) {
        self.in_word = true;
        let start = self.i;
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
        self.blank(start, self.i, Blank::Text("''"));
    }

    fn double_quoted(&mut self) {
        self.in_word = true;
        let start = self.i;
        self.i += 1;
        while let Some(c) = self.peek(0) {
            match c {
                b'"' => {
                    self.i += 1;
                    break;
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
                    if !self.is_arithmetic(&inner) {
                        self.substitution(inner);
                    }
                }
                b'`' => {
                    let inner = self.backtick_body();
                    self.substitution(inner);
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
        self.blank(start, self.i, Blank::Text("\"\""));
    }

    fn backticks(&mut self) {
        self.in_word = true;
        let start = self.i;
        let inner = self.backtick_body();
        self.substitution(inner);
        self.blank(start + 1, self.i, Blank::Text(""));
    }

    /// At a backtick: reads to the closing one, keeps the text in the word, returns where
    /// the body is.
    fn backtick_body(&mut self) -> Range<usize> {
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
        start..body_end.max(start)
    }

    fn dollar(&mut self) {
        match self.peek(1) {
            Some(b'(') => {
                self.in_word = true;
                let start = self.i;
                let inner = self.balanced_paren();
                if !self.is_arithmetic(&inner) {
                    self.substitution(inner);
                }
                self.blank(start + 2, self.i, Blank::Text(""));
            }
            Some(b'\'') => {
                // ANSI-C quoting: like single quotes, with backslash escapes decoded as
                // bash decodes them, so `$'\x72\x6d'` is the word `rm`.
                self.in_word = true;
                let start = self.i;
                self.i += 2;
                while let Some(c) = self.peek(0) {
                    self.i += 1;
                    match c {
                        b'\'' => break,
                        b'\\' => {
                            let rest = self.src.get(self.i..).unwrap_or(&[]);
                            let (decoded, used) = ansi_c_escape(rest);
                            self.push_bytes(&decoded);
                            self.i += used;
                        }
                        _ => self.take(self.i - 1, self.i),
                    }
                }
                self.blank(start, self.i, Blank::Text("''"));
            }
            Some(b'"') => {
                // `$"..."` is a translated string: double quotes for all the guard knows.
                self.i += 1;
                self.double_quoted();
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
            }
            _ => {
                self.take(self.i, self.i + 1);
                self.i += 1;
            }
        }
    }

    /// At `$(`: reads to the matching `)` (quotes inside respected), keeps the text in
    /// the current word and returns where the inner command text is.
    /// Whether the `$(…)` whose body is `body` is `$(( … ))`, arithmetic: its words are
    /// variables, not a command (`$(( rm -rf /x ))` runs nothing). One with a `$(…)` or a
    /// backtick inside is read as a command substitution still, the careful reading.
    fn is_arithmetic(&self, body: &Range<usize>) -> bool {
        let text = self.src.get(body.clone()).unwrap_or(&[]);
        text.first() == Some(&b'(')
            && text.last() == Some(&b')')
            && !text.windows(2).any(|w| w == b"$(")
            && !text.contains(&b'`')
    }

    fn balanced_paren(&mut self) -> Range<usize> {
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
            return end..end;
        }
        body_start..body_end
    }

    /// After a newline: the bodies of the heredocs opened on the line just ended.
    fn read_heredoc_bodies(&mut self) {
        for pending in std::mem::take(&mut self.pending) {
            let body_start = self.i;
            // A body is the source text up to its delimiter line, unless tabs are stripped
            // (`<<-`) or the text ends without a newline: then it is rebuilt line by line.
            let mut rebuilt: Option<String> = pending.strip_tabs.then(String::new);
            let mut body_end = body_start;
            let mut lines = 0;
            while self.i < self.src.len() {
                let line_end = self.src[self.i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(self.src.len(), |p| self.i + p);
                let line = self.slice(self.i, line_end);
                let next = (line_end + 1).min(self.src.len());
                lines += 1;
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
            // Heredoc bodies are data: the code keeps only their line breaks.
            self.blank(body_start, self.i, Blank::Repeat(b'\n', lines));
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
            // A command's heredocs all come from the line it ends on, in order, so they
            // are next to each other in the list.
            let at = self.script.heredocs.len();
            if let Some(command) = target {
                if command.heredocs.is_empty() {
                    command.heredocs = at..at;
                }
                command.heredocs.end = at + 1;
                self.script.heredocs.push(body);
            }
        }
    }
}

/// Words joined into a command text that parses back to the same words.
pub(crate) fn quote_words(words: &[String]) -> String {
    let mut out = String::new();
    for word in words {
        if !out.is_empty() {
            out.push(' ');
        }
        let plain = !word.is_empty()
            && word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_./@%+=:,{}-".contains(&b));
        if plain {
            out.push_str(word);
        } else {
            out.push('\'');
            out.push_str(&word.replace('\'', "'\\''"));
            out.push('\'');
        }
    }
    out
}

/// `text` with its backslash escapes decoded as `$'...'`, `echo -e` and `printf` decode
/// them (`\x72\x6d` is `rm`); bytes that are not UTF-8 are replaced.
pub(crate) fn decode_escapes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        if b == b'\\' {
            let (decoded, used) = ansi_c_escape(bytes.get(i..).unwrap_or(&[]));
            out.extend_from_slice(&decoded);
            i += used;
        } else {
            out.push(b);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The bytes one backslash escape of ANSI-C quoting stands for, and how many bytes of
/// `rest` (the text after the backslash) it uses: `\n`, `\x2f`, `\162`, `\u00e9`, `\cA`...
/// An escape bash does not know stands for itself, backslash included.
fn ansi_c_escape(rest: &[u8]) -> (Vec<u8>, usize) {
    let Some(&c) = rest.first() else {
        return (b"\\".to_vec(), 0);
    };
    let digits = |radix: u32, max: usize, from: usize| {
        let mut value = 0u32;
        let mut len = 0;
        while len < max
            && let Some(d) = rest
                .get(from + len)
                .and_then(|&b| char::from(b).to_digit(radix))
        {
            value = value * radix + d;
            len += 1;
        }
        (value, len)
    };
    let simple = match c {
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'e' | b'E' => Some(0x1b),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(0x0b),
        b'\\' | b'\'' | b'"' | b'?' => Some(c),
        _ => None,
    };
    if let Some(byte) = simple {
        return (vec![byte], 1);
    }
    match c {
        b'0'..=b'7' => {
            let (value, len) = digits(8, 3, 0);
            (vec![(value & 0xff) as u8], len)
        }
        b'x' => match digits(16, 2, 1) {
            (_, 0) => (b"\\x".to_vec(), 1),
            (value, len) => (vec![(value & 0xff) as u8], 1 + len),
        },
        b'u' | b'U' => {
            let max = if c == b'u' { 4 } else { 8 };
            match digits(16, max, 1) {
                (_, 0) => (vec![b'\\', c], 1),
                (value, len) => {
                    let ch = char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER);
                    (ch.to_string().into_bytes(), 1 + len)
                }
            }
        }
        b'c' => match rest.get(1) {
            Some(&control) => (vec![control.to_ascii_uppercase() & 0x1f], 2),
            None => (b"\\c".to_vec(), 1),
        },
        _ => (vec![b'\\', c], 1),
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
                .map(|s| s.text.to_string())
                .collect::<Vec<_>>()),
            Some(vec!["rm -rf /".to_owned(), "id".to_owned()])
        );
    }

    /// The substitutions of `text`'s first command, each with its own first command's
    /// words and the blanked code of its body.
    fn inner(text: &str) -> Vec<(String, Vec<String>, String)> {
        let script = parse(text);
        let Some(command) = script.commands().next() else {
            return Vec::new();
        };
        command
            .substitutions
            .iter()
            .map(|sub| {
                let words = script
                    .body_pipelines(sub)
                    .flatten()
                    .next()
                    .map(|c| c.words.iter().map(|w| w.to_string()).collect())
                    .unwrap_or_default();
                (
                    sub.text.to_string(),
                    words,
                    script.body_code(sub).to_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn substitution_bodies_are_parsed_with_the_text() {
        assert_eq!(
            inner("echo \"$(rm -rf '/x' | cat)\" `id -u`"),
            vec![
                (
                    "rm -rf '/x' | cat".to_owned(),
                    vec!["rm".to_owned(), "-rf".to_owned(), "/x".to_owned()],
                    "rm -rf '' | cat".to_owned()
                ),
                (
                    "id -u".to_owned(),
                    vec!["id".to_owned(), "-u".to_owned()],
                    "id -u".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn nested_substitutions_and_their_heredocs_are_parsed() {
        let text = "bash -c \"$(cat <<EOF\nrm -rf /\nEOF\n)\" $(a $(b `c`))";
        let script = parse(text);
        let subs: Vec<_> = script.commands().flat_map(|c| c.substitutions).collect();
        assert_eq!(subs.len(), 2);
        let heredoc: Vec<_> = script
            .body_pipelines(subs[0])
            .flatten()
            .flat_map(|c| c.heredocs.iter().map(|h| h.to_string()))
            .collect();
        assert_eq!(heredoc, vec!["rm -rf /\n".to_owned()]);
        // `a $(b `c`)` holds `b `c``, which holds `c`: each is parsed once, in its place.
        let mut body = subs[1];
        let mut texts = Vec::new();
        while let Some(next) = script
            .body_pipelines(body)
            .flatten()
            .next()
            .and_then(|c| c.substitutions.first())
        {
            texts.push(next.text.to_string());
            body = next;
        }
        assert_eq!(texts, vec!["b `c`".to_owned(), "c".to_owned()]);
        assert!(body.parsed);
    }

    #[test]
    fn deep_nesting_keeps_the_text_but_stops_parsing() {
        let depth = MAX_BODY_DEPTH + 3;
        let text = format!("{}rm -rf /{}", "echo $(".repeat(depth), ")".repeat(depth));
        let script = parse(&text);
        let mut body = script.root().expect("a text has a root body");
        let mut level = 0;
        while body.parsed {
            let Some(next) = script
                .body_pipelines(body)
                .flatten()
                .next()
                .and_then(|c| c.substitutions.first())
            else {
                break;
            };
            body = next;
            level += 1;
        }
        assert_eq!(level, MAX_BODY_DEPTH + 1);
        assert!(!body.parsed);
        assert!(body.text.starts_with("echo $("), "{}", body.text);
    }

    #[test]
    fn prefixes_are_skipped() {
        let prefixes = prefix_list(Prefixes::from([
            (
                "sudo".into(),
                Prefix {
                    options_with_value: vec!["-u".into()],
                    ..Prefix::default()
                },
            ),
            ("env".into(), Prefix::default()),
        ]));
        let script = parse("sudo -u root env A=1 /bin/rm -rf /");
        let argv = script.commands().next().and_then(|c| c.argv(&prefixes));
        assert_eq!(argv.map(|(p, a)| (p, a.len())), Some(("rm", 2)));
    }

    #[test]
    fn a_prefix_with_subcommands_runs_a_command_only_through_one() {
        let prefixes = prefix_list(Prefixes::from([(
            "uv".into(),
            Prefix {
                options_with_value: vec!["--with".into()],
                subcommands: vec!["run".into()],
                ..Prefix::default()
            },
        )]));
        let program = |text: &str| {
            let script = parse(text);
            let argv = script.commands().next().and_then(|c| c.argv(&prefixes));
            argv.map(|(p, a)| format!("{p} {}", a.join(" ")))
        };
        assert_eq!(
            program("uv run --with rich python -c 'x'").as_deref(),
            Some("python -c x")
        );
        assert_eq!(
            program("uv --with rich run -- rm -rf /").as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(
            program("uv pip install rich").as_deref(),
            Some("uv pip install rich")
        );
        assert_eq!(program("uv run").as_deref(), Some("uv run"));
    }

    #[test]
    fn ansi_c_quotes_are_decoded_as_bash_decodes_them() {
        assert_eq!(
            words(r#"$'\x72\x6d' -rf $'\057' $'r\u006d' $'a\tb' $'\q' $"t"x"#),
            vec![vec!["rm", "-rf", "/", "rm", "a\tb", "\\q", "tx"]]
        );
    }

    #[test]
    fn process_substitution_is_a_word_whose_body_is_parsed() {
        let script = parse("source <(echo 'rm -rf /') >(cat)");
        let command = script.commands().next().expect("one command");
        assert_eq!(
            command.words,
            vec!["source", "<(echo 'rm -rf /')", ">(cat)"]
        );
        let texts: Vec<String> = command
            .substitutions
            .iter()
            .map(|s| s.text.to_string())
            .collect();
        assert_eq!(texts, vec!["echo 'rm -rf /'".to_owned(), "cat".to_owned()]);
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
