//! The read-only tools an agent hook's subagent may call — `Read`, `Grep` and `Glob`, as Claude
//! Code names them — confined to one directory (the workspace, the hook's working directory).
//!
//! Every path is resolved (symlinks included) before it is touched, and one that lands outside
//! the directory is refused with a message the model can read; walks never follow symlinks.
//! Everything is capped — lines, bytes, files visited, matches — so a model cannot make a hook
//! read a whole disk or send a whole repository back to its server.

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use agent_hooks_core::glob::PathGlob;
use regex::Regex;
use serde_json::{Value, json};

/// Lines `Read` returns when the model gives no `limit` (Claude Code's Read default).
const READ_LINES: usize = 2000;
/// `Read` reads no further into a file than this.
const READ_BYTES: u64 = 16 * 1024 * 1024;
/// A longer line is cut here.
const LINE_CHARS: usize = 2000;
/// The most text one tool call returns; past it the output is cut with a note.
const OUTPUT_BYTES: usize = 64 * 1024;
/// Files and directories a `Grep` or `Glob` walk visits at most.
const WALK_ENTRIES: usize = 20_000;
/// `Grep` skips files larger than this.
const GREP_FILE_BYTES: u64 = 1024 * 1024;
/// Matching lines (`Grep`) or paths (`Glob`) returned at most.
const MATCHES: usize = 200;

/// The tools as both APIs describe them: name, what it does, and its input's JSON Schema.
pub(super) fn definitions() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        (
            "Read",
            "Read a text file of the project. Returns its lines numbered from 1 (at most 2000 \
             unless `limit` says fewer). Paths are relative to the project directory.",
            json!({"type": "object",
                   "properties": {
                       "file_path": {"type": "string", "description": "the file, relative to the project directory"},
                       "offset": {"type": "integer", "description": "the first line to read, from 1"},
                       "limit": {"type": "integer", "description": "how many lines to read"}},
                   "required": ["file_path"]}),
        ),
        (
            "Grep",
            "Search the project's files for a regular expression. Returns `path:line:text` for \
             each matching line (at most 200).",
            json!({"type": "object",
                   "properties": {
                       "pattern": {"type": "string", "description": "a regular expression (Rust regex syntax)"},
                       "path": {"type": "string", "description": "a file or directory to search, relative to the project directory (default: all of it)"},
                       "glob": {"type": "string", "description": "only files whose path matches this glob, such as `**/*.rs`"}},
                   "required": ["pattern"]}),
        ),
        (
            "Glob",
            "List the project's files whose path matches a glob (`**` any depth, `*` within one \
             path segment), relative to the project directory (at most 200).",
            json!({"type": "object",
                   "properties": {
                       "pattern": {"type": "string", "description": "a glob such as `src/**/*.rs`"},
                       "path": {"type": "string", "description": "a directory to list under, relative to the project directory"}},
                   "required": ["pattern"]}),
        ),
    ]
}

/// The directory the tools may see, resolved once.
#[derive(Debug)]
pub(super) struct Confined {
    root: PathBuf,
}

impl Confined {
    /// Tools over `root`, which must exist.
    pub(super) fn new(root: &Path) -> Result<Confined, String> {
        let root = root
            .canonicalize()
            .map_err(|e| format!("the project directory {}: {e}", root.display()))?;
        Ok(Confined { root })
    }

    /// Runs tool `name` with `input`. `Err` is a refusal or a failure, for the model to read
    /// as the tool's error; it never ends the hook.
    pub(super) fn call(&self, name: &str, input: &Value) -> Result<String, String> {
        let text = |key: &str| input.get(key).and_then(Value::as_str);
        let required =
            |key: &str| text(key).ok_or_else(|| format!("{name} needs \"{key}\", a string"));
        let count = |key: &str| -> Result<Option<usize>, String> {
            match input.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_u64()
                    .map(|n| Some(usize::try_from(n).unwrap_or(usize::MAX)))
                    .ok_or_else(|| format!("{name}'s \"{key}\" must be a non-negative integer")),
            }
        };
        let output = match name {
            "Read" => self.read(required("file_path")?, count("offset")?, count("limit")?),
            "Grep" => self.grep(required("pattern")?, text("path"), text("glob")),
            "Glob" => self.glob(required("pattern")?, text("path")),
            other => Err(format!(
                "there is no tool \"{other}\" (an agent hook may use Read, Grep and Glob)"
            )),
        }?;
        Ok(capped(output))
    }

    /// `given` resolved under the root; a path that resolves outside it (through `..`, an
    /// absolute path or a symlink) is refused.
    fn resolve(&self, given: &str) -> Result<PathBuf, String> {
        let path = Path::new(given);
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.root.join(path)
        };
        let real = joined.canonicalize().map_err(|e| format!("{given}: {e}"))?;
        if real.starts_with(&self.root) {
            Ok(real)
        } else {
            Err(format!(
                "{given} is outside the project directory {}: refused (only files under it can be read)",
                self.root.display()
            ))
        }
    }

    fn relative<'p>(&self, path: &'p Path) -> &'p Path {
        path.strip_prefix(&self.root).unwrap_or(path)
    }

    fn read(
        &self,
        given: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> Result<String, String> {
        let path = self.resolve(given)?;
        if path.is_dir() {
            return Err(format!("{given} is a directory (use Glob to list it)"));
        }
        let file = open_regular(&path, given)?;
        let mut reader = BufReader::new(file.take(READ_BYTES));
        if is_binary(reader.fill_buf().map_err(|e| format!("{given}: {e}"))?) {
            return Err(format!(
                "{given} is a binary file; only text files can be read"
            ));
        }
        let first = offset.unwrap_or(1).max(1);
        let limit = limit.unwrap_or(READ_LINES).min(READ_LINES);
        let mut out = String::new();
        let mut line = Vec::new();
        let mut number = 0usize;
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| format!("{given}: {e}"))?;
            if n == 0 {
                break;
            }
            number += 1;
            if number < first {
                continue;
            }
            if number >= first.saturating_add(limit) || out.len() > OUTPUT_BYTES {
                out.push_str(&format!("… (more lines; read on with offset {number})\n"));
                break;
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\n', '\r']);
            out.push_str(&format!("{number:>6}\t{}\n", cut(text, LINE_CHARS)));
        }
        if out.is_empty() {
            out = if number == 0 {
                "(the file is empty)".to_owned()
            } else {
                format!("(the file has {number} lines; none from line {first})")
            };
        }
        Ok(out)
    }

    fn grep(
        &self,
        pattern: &str,
        under: Option<&str>,
        glob: Option<&str>,
    ) -> Result<String, String> {
        let regex = Regex::new(pattern).map_err(|e| format!("pattern: {e}"))?;
        let filter = glob
            .map(PathGlob::new)
            .transpose()
            .map_err(|e| e.to_string())?;
        let start = self.resolve(under.unwrap_or("."))?;
        let mut out = Vec::new();
        let mut truncated = false;
        for file in self.walk(&start)? {
            let rel = self.relative(&file);
            if filter.as_ref().is_some_and(|f| !f.matches_file(rel)) {
                continue;
            }
            // What the walk saw may have been replaced since (by a FIFO, a link): the file is
            // opened under the same rules as `Read`'s, and skipped when it breaks one.
            let Ok(opened) = open_regular(&file, &rel.to_string_lossy()) else {
                continue;
            };
            let mut bytes = Vec::new();
            if opened
                .take(GREP_FILE_BYTES + 1)
                .read_to_end(&mut bytes)
                .is_err()
                || bytes.len() as u64 > GREP_FILE_BYTES
            {
                continue;
            }
            if is_binary(&bytes) {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            for (i, line) in text.lines().enumerate() {
                if regex.is_match(line) {
                    if out.len() == MATCHES {
                        truncated = true;
                        break;
                    }
                    out.push(format!(
                        "{}:{}:{}",
                        rel.display(),
                        i + 1,
                        cut(line, LINE_CHARS)
                    ));
                }
            }
            if truncated {
                break;
            }
        }
        Ok(listing(out, truncated, "no matches"))
    }

    fn glob(&self, pattern: &str, under: Option<&str>) -> Result<String, String> {
        let matcher = PathGlob::new(pattern).map_err(|e| e.to_string())?;
        let start = self.resolve(under.unwrap_or("."))?;
        let base = self.relative(&start).to_path_buf();
        let mut out = Vec::new();
        let mut truncated = false;
        for file in self.walk(&start)? {
            let rel = self.relative(&file);
            let from_base = rel.strip_prefix(&base).unwrap_or(rel);
            if matcher.matches_file(from_base) {
                if out.len() == MATCHES {
                    truncated = true;
                    break;
                }
                out.push(rel.display().to_string());
            }
        }
        Ok(listing(out, truncated, "no files match"))
    }

    /// The regular files under `start` (or `start` itself), in path order, not following
    /// symlinks and skipping `.git`; at most [`WALK_ENTRIES`] entries are visited.
    fn walk(&self, start: &Path) -> Result<Vec<PathBuf>, String> {
        if start.is_file() {
            return Ok(vec![start.to_path_buf()]);
        }
        let mut files = Vec::new();
        let mut pending = vec![start.to_path_buf()];
        let mut visited = 0usize;
        while let Some(dir) = pending.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
            entries.sort_by_key(|e| std::cmp::Reverse(e.file_name()));
            for entry in entries {
                visited += 1;
                if visited > WALK_ENTRIES {
                    return Err(format!(
                        "more than {WALK_ENTRIES} files and directories to search; narrow it with \"path\""
                    ));
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() && entry.file_name() != ".git" {
                    pending.push(entry.path());
                } else if kind.is_file() {
                    files.push(entry.path());
                }
            }
        }
        files.sort();
        Ok(files)
    }
}

/// Opens `path` for reading only if it is a regular file with one name: never through a symlink
/// (`O_NOFOLLOW`, in case one was put in place since the path was resolved), never waiting on a
/// FIFO or a device (`O_NONBLOCK`: the open returns at once, and the type is then refused),
/// and never a hard link (`st_nlink > 1`), whose other name may lie outside the project.
fn open_regular(path: &Path, given: &str) -> Result<fs::File, String> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let flags = nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits())
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(code) if code == nix::errno::Errno::ELOOP as i32 => {
                format!("{given} is a symbolic link: refused (only regular files can be read)")
            }
            _ => format!("{given}: {e}"),
        })?;
    let meta = file.metadata().map_err(|e| format!("{given}: {e}"))?;
    if !meta.file_type().is_file() {
        return Err(format!(
            "{given} is not a regular file (a FIFO, socket or device): refused (only regular files can be read)"
        ));
    }
    if meta.nlink() > 1 {
        return Err(format!(
            "{given} has {} hard links: refused (a file with another name may be a file from outside the project)",
            meta.nlink()
        ));
    }
    Ok(file)
}

fn is_binary(head: &[u8]) -> bool {
    head[..head.len().min(8192)].contains(&0)
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

fn listing(lines: Vec<String>, truncated: bool, none: &str) -> String {
    if lines.is_empty() {
        return format!("({none})");
    }
    let mut out = lines.join("\n");
    if truncated {
        out.push_str(&format!("\n… (more than {MATCHES}; narrow the search)"));
    }
    out
}

fn capped(mut text: String) -> String {
    if text.len() > OUTPUT_BYTES {
        let mut end = OUTPUT_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("\n… (output cut at 64 KiB)");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, Confined) {
        let dir = tempfile::tempdir().expect("a temp dir");
        let root = dir.path().join("project");
        fs::create_dir_all(root.join("src/deep")).expect("dirs");
        fs::create_dir_all(root.join(".git")).expect("dirs");
        fs::write(
            root.join("src/lib.rs"),
            "fn one() {}\nfn two() {}\n// TODO later\n",
        )
        .expect("a file");
        fs::write(root.join("src/deep/mod.rs"), "// TODO deep\n").expect("a file");
        fs::write(root.join("README.md"), "# Title\n").expect("a file");
        fs::write(root.join(".git/config"), "TODO in git\n").expect("a file");
        fs::write(dir.path().join("secret.txt"), "outside the project\n").expect("a file");
        let tools = Confined::new(&root).expect("the root");
        (dir, tools)
    }

    fn call(tools: &Confined, name: &str, input: Value) -> Result<String, String> {
        tools.call(name, &input)
    }

    #[test]
    fn a_fifo_is_refused_at_once_and_never_blocks() {
        let (dir, tools) = project();
        let fifo = dir.path().join("project/pipe");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600))
            .expect("mkfifo");
        // Nobody writes the FIFO: a blocking open would wait for ever.
        let refused = call(&tools, "Read", json!({"file_path": "pipe"})).unwrap_err();
        assert!(refused.contains("not a regular file"), "{refused}");
        // A walk lists only regular files; Grep opens under the same rules.
        assert_eq!(
            call(&tools, "Grep", json!({"pattern": "x", "path": "pipe"})).unwrap(),
            "(no matches)"
        );
    }

    #[test]
    fn a_hard_link_to_a_file_outside_is_refused_by_read_and_skipped_by_grep() {
        let (dir, tools) = project();
        fs::hard_link(
            dir.path().join("secret.txt"),
            dir.path().join("project/innocent.txt"),
        )
        .expect("a hard link");
        let refused = call(&tools, "Read", json!({"file_path": "innocent.txt"})).unwrap_err();
        assert!(refused.contains("hard links: refused"), "{refused}");
        let grep = call(&tools, "Grep", json!({"pattern": "outside"})).unwrap();
        assert_eq!(grep, "(no matches)");
    }

    #[test]
    fn read_numbers_lines_and_honours_offset_and_limit() {
        let (_dir, tools) = project();
        let all = call(&tools, "Read", json!({"file_path": "src/lib.rs"})).expect("read");
        assert_eq!(
            all,
            "     1\tfn one() {}\n     2\tfn two() {}\n     3\t// TODO later\n"
        );
        let one = call(
            &tools,
            "Read",
            json!({"file_path": "src/lib.rs", "offset": 2, "limit": 1}),
        )
        .expect("read");
        assert_eq!(
            one,
            "     2\tfn two() {}\n… (more lines; read on with offset 3)\n"
        );
    }

    #[test]
    fn paths_escaping_the_project_are_refused() {
        let (dir, tools) = project();
        let up = call(&tools, "Read", json!({"file_path": "../secret.txt"})).unwrap_err();
        assert!(up.contains("outside the project directory"), "{up}");
        let absolute = dir.path().join("secret.txt");
        let abs = call(
            &tools,
            "Read",
            json!({"file_path": absolute.to_string_lossy()}),
        )
        .unwrap_err();
        assert!(abs.contains("outside the project directory"), "{abs}");
        let grep = call(&tools, "Grep", json!({"pattern": "outside", "path": ".."})).unwrap_err();
        assert!(grep.contains("outside the project directory"), "{grep}");
    }

    #[test]
    fn a_symlink_out_of_the_project_is_refused_and_never_walked() {
        let (dir, tools) = project();
        let link = tools.root.join("link.txt");
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), &link).expect("a symlink");
        let refused = call(&tools, "Read", json!({"file_path": "link.txt"})).unwrap_err();
        assert!(
            refused.contains("outside the project directory"),
            "{refused}"
        );
        let grep = call(&tools, "Grep", json!({"pattern": "outside"})).expect("grep");
        assert_eq!(grep, "(no matches)");
    }

    #[test]
    fn grep_lists_matching_lines_with_paths_and_skips_git() {
        let (_dir, tools) = project();
        let found = call(&tools, "Grep", json!({"pattern": "TODO"})).expect("grep");
        assert_eq!(
            found,
            "src/deep/mod.rs:1:// TODO deep\nsrc/lib.rs:3:// TODO later"
        );
        let narrowed = call(
            &tools,
            "Grep",
            json!({"pattern": "TODO", "glob": "src/*.rs"}),
        )
        .expect("grep");
        assert_eq!(narrowed, "src/lib.rs:3:// TODO later");
        let bad = call(&tools, "Grep", json!({"pattern": "("})).unwrap_err();
        assert!(bad.starts_with("pattern:"), "{bad}");
    }

    #[test]
    fn glob_matches_paths_and_bare_names_at_any_depth() {
        let (_dir, tools) = project();
        let rs = call(&tools, "Glob", json!({"pattern": "**/*.rs"})).expect("glob");
        assert_eq!(rs, "src/deep/mod.rs\nsrc/lib.rs");
        let by_name = call(&tools, "Glob", json!({"pattern": "*.md"})).expect("glob");
        assert_eq!(by_name, "README.md");
        let under = call(
            &tools,
            "Glob",
            json!({"pattern": "*.rs", "path": "src/deep"}),
        )
        .expect("glob");
        assert_eq!(under, "src/deep/mod.rs");
    }

    #[test]
    fn unknown_tools_and_missing_inputs_are_errors_for_the_model() {
        let (_dir, tools) = project();
        let bash = call(&tools, "Bash", json!({"command": "ls"})).unwrap_err();
        assert!(bash.contains("no tool \"Bash\""), "{bash}");
        let missing = call(&tools, "Read", json!({})).unwrap_err();
        assert_eq!(missing, "Read needs \"file_path\", a string");
    }
}
