//! Where a path operand points, relative to the directory the command runs in: inside the
//! working directory, the working directory itself, a temp dir, somewhere else, or unknown.
//! Only the text is read (no filesystem access): `.` and `..` are resolved lexically, and
//! `cd` in the script moves the directory later commands run in.

/// The working directory (the payload's `cwd`, the user's project) and the directory a
/// command runs in, which a `cd` in the script moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cwd {
    /// The payload's `cwd`, normalized; `None` when it is missing or not absolute.
    root: Option<String>,
    here: Here,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Here {
    /// An absolute path a `cd` went to.
    Absolute(String),
    /// A path relative to the working directory (`""`: the working directory itself).
    /// Without a known `cwd`, a relative operand without `..` still stays inside it.
    Relative(String),
    /// A `cd` went somewhere the text does not say (`cd "$DIR"`, `cd -`, `cd` alone).
    Lost,
}

/// Where an operand points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Under a temp dir (`/tmp`, `/var/tmp`, `$TMPDIR`, ...): ephemeral by design.
    Temp,
    /// Strictly inside the working directory.
    Inside,
    /// The working directory itself, or everything in it (`.`, `*`, `./*`).
    WorkDir,
    /// Outside the working directory.
    Outside,
    /// Cannot be told from the text (a variable, `~`, a lost `cd`, no `cwd` for an
    /// absolute path).
    Unknown,
}

/// Absolute temp dirs; paths under them (and the dirs themselves) are [`Place::Temp`].
const TEMP_DIRS: &[&str] = &[
    "/tmp",
    "/var/tmp",
    "/private/tmp",
    "/private/var/tmp",
    "/dev/shm",
    "/var/folders",
    "/private/var/folders",
];

/// Variables that name the temp dir.
const TEMP_VARS: &[&str] = &["TMPDIR", "TMP", "TEMP", "RUNNER_TEMP"];

impl Cwd {
    /// The working directory from the payload's `cwd` (absolute, else unknown).
    pub(crate) fn from_payload(cwd: &str) -> Cwd {
        Cwd {
            root: cwd.starts_with('/').then(|| normalize(cwd)),
            here: Here::Relative(String::new()),
        }
    }

    /// A directory the text does not show (another machine's, say).
    pub(crate) fn unknown() -> Cwd {
        Cwd {
            root: None,
            here: Here::Lost,
        }
    }

    /// The absolute path a relative `operand` names when a command runs here, if the text
    /// shows where that is (`cd / && rm -rf *` deletes `/*`).
    pub(crate) fn resolve(&self, operand: &str) -> Option<String> {
        if operand.is_empty() || operand.starts_with(['/', '~']) || operand.contains(['$', '`']) {
            return None;
        }
        // Built in one string: this runs for every operand a path rule looks at.
        let mut path = String::new();
        match &self.here {
            Here::Absolute(dir) => push_normalized(&mut path, dir),
            Here::Relative(dir) => {
                push_normalized(&mut path, self.root.as_deref()?);
                push_normalized(&mut path, dir);
            }
            Here::Lost => return None,
        }
        push_normalized(&mut path, operand);
        if path.is_empty() {
            path.push('/');
        }
        Some(path)
    }

    /// The directories after `cd <target>` (`None`: `cd` with no operand, which goes home).
    pub(crate) fn cd(&self, target: Option<&str>) -> Cwd {
        let here = match target {
            None => Here::Lost,
            Some(target) if target == "-" || target.starts_with('~') => Here::Lost,
            Some(target) => match temp_var_rest(target) {
                Some(rest) if rest.split('/').any(|c| c == "..") => Here::Lost,
                Some(rest) => Here::Absolute(format!("/tmp/{}", rest.trim_start_matches('/'))),
                None if target.contains(['$', '`']) => Here::Lost,
                None if target.starts_with('/') => Here::Absolute(normalize(target)),
                None => match &self.here {
                    Here::Absolute(dir) => Here::Absolute(normalize(&format!("{dir}/{target}"))),
                    Here::Relative(dir) => Here::Relative(join_relative(dir, target)),
                    Here::Lost => Here::Lost,
                },
            },
        };
        Cwd {
            root: self.root.clone(),
            here,
        }
    }

    /// Where `operand` points when a command runs here.
    pub(crate) fn place(&self, operand: &str) -> Place {
        if let Some(rest) = temp_var_rest(operand) {
            return if rest.split('/').any(|c| c == "..") {
                Place::Unknown
            } else {
                Place::Temp
            };
        }
        if operand.is_empty() || operand.starts_with('~') || operand.contains(['$', '`']) {
            return Place::Unknown;
        }
        let root = self.root.as_deref();
        if operand.starts_with('/') {
            return place_absolute(&normalize(operand), root);
        }
        match &self.here {
            Here::Absolute(dir) => place_absolute(&normalize(&format!("{dir}/{operand}")), root),
            Here::Relative(dir) => {
                let joined = join_relative(dir, operand);
                match root {
                    Some(root) => {
                        place_absolute(&normalize(&format!("{root}/{joined}")), Some(root))
                    }
                    None if joined == ".." || joined.starts_with("../") => Place::Outside,
                    None if everything(&joined) => Place::WorkDir,
                    None => Place::Inside,
                }
            }
            Here::Lost => Place::Unknown,
        }
    }
}

/// For `$TMPDIR/x`, `${TMPDIR}/x`, `${TMPDIR:-/tmp}/x` (and the other temp variables), the
/// part after the variable.
fn temp_var_rest(word: &str) -> Option<&str> {
    let rest = word.strip_prefix('$')?;
    if let Some(braced) = rest.strip_prefix('{') {
        let close = braced.find('}')?;
        let inner = &braced[..close];
        let name = inner.split([':', '-', '=']).next().unwrap_or(inner);
        return TEMP_VARS
            .contains(&name)
            .then(|| &braced[close + 1..])
            .filter(|rest| rest.is_empty() || rest.starts_with('/'));
    }
    TEMP_VARS.iter().find_map(|var| {
        rest.strip_prefix(var)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// Whether a path relative to the working directory names all of it: `.`, `*`, `.*`.
fn everything(relative: &str) -> bool {
    relative.is_empty() || matches!(relative, "." | "*" | ".*" | "*.*" | ".[!.]*")
}

fn place_absolute(path: &str, cwd: Option<&str>) -> Place {
    // The project first: a project that lives under a temp dir is still the user's work,
    // and `rm -rf *` in it deletes all of it.
    if let Some(cwd) = cwd {
        if path == cwd {
            return Place::WorkDir;
        }
        if let Some(rest) = path.strip_prefix(cwd)
            && (cwd == "/" || rest.starts_with('/'))
        {
            return if everything(rest.trim_start_matches('/')) {
                Place::WorkDir
            } else {
                Place::Inside
            };
        }
    }
    for temp in TEMP_DIRS {
        if under_or_at(path, temp) {
            return Place::Temp;
        }
    }
    match cwd {
        Some(_) => Place::Outside,
        None => Place::Unknown,
    }
}

fn under_or_at(path: &str, dir: &str) -> bool {
    path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// `a/./b//c/../d/` → `/a/b/d` for an absolute path; `..` stops at the root.
fn normalize(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 1);
    push_normalized(&mut out, path);
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// Appends the parts of `path` to the absolute path `out` (`""` for `/`): `.` and empty
/// parts are dropped, `..` takes the last part off (none above `/`).
fn push_normalized(out: &mut String, path: &str) {
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => out.truncate(out.rfind('/').unwrap_or(0)),
            _ => {
                out.push('/');
                out.push_str(part);
            }
        }
    }
}

/// `dir` joined with `path`, both relative, `..` kept where it climbs above the start.
fn join_relative(dir: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in dir.split('/').chain(path.split('/')) {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|last| *last != "..") => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_operands_without_a_cwd_stay_inside_unless_they_climb() {
        let cwd = Cwd::from_payload("");
        assert_eq!(cwd.place("build"), Place::Inside);
        assert_eq!(cwd.place("./a/../b"), Place::Inside);
        assert_eq!(cwd.place("a/../../b"), Place::Outside);
        assert_eq!(cwd.place("."), Place::WorkDir);
        assert_eq!(cwd.place("*"), Place::WorkDir);
        assert_eq!(cwd.place("/etc"), Place::Unknown);
        assert_eq!(cwd.place("/tmp/x"), Place::Temp);
    }

    #[test]
    fn absolute_operands_are_judged_against_the_cwd() {
        let cwd = Cwd::from_payload("/home/u/project/");
        assert_eq!(cwd.place("/home/u/project/build"), Place::Inside);
        assert_eq!(cwd.place("/home/u/project"), Place::WorkDir);
        assert_eq!(cwd.place("/home/u/project/*"), Place::WorkDir);
        assert_eq!(cwd.place("/home/u/projectx"), Place::Outside);
        assert_eq!(cwd.place("../other"), Place::Outside);
        assert_eq!(cwd.place("/tmp/../etc"), Place::Outside);
    }

    #[test]
    fn a_project_under_a_temp_dir_is_the_project() {
        let cwd = Cwd::from_payload("/tmp/work/p");
        assert_eq!(cwd.place("*"), Place::WorkDir);
        assert_eq!(cwd.place("/tmp/work/p"), Place::WorkDir);
        assert_eq!(cwd.place("src"), Place::Inside);
        assert_eq!(cwd.place("/tmp/other"), Place::Temp);
        assert_eq!(cwd.place("/etc"), Place::Outside);
    }

    #[test]
    fn temp_variables_count_as_temp_unless_they_climb() {
        let cwd = Cwd::from_payload("/w");
        assert_eq!(cwd.place("$TMPDIR/x"), Place::Temp);
        assert_eq!(cwd.place("${TMPDIR:-/tmp}/x"), Place::Temp);
        assert_eq!(cwd.place("$TMPDIR/../x"), Place::Unknown);
        assert_eq!(cwd.place("$TMPDIRX/x"), Place::Unknown);
        assert_eq!(cwd.place("$OUT/x"), Place::Unknown);
    }

    #[test]
    fn cd_moves_the_directory() {
        let cwd = Cwd::from_payload("/w/p");
        assert_eq!(cwd.cd(Some("..")).place("build"), Place::Outside);
        assert_eq!(cwd.cd(Some("..")).place("p/x"), Place::Inside);
        assert_eq!(cwd.cd(Some("sub")).place("build"), Place::Inside);
        assert_eq!(cwd.cd(Some("sub")).place(".."), Place::WorkDir);
        assert_eq!(cwd.cd(Some("/tmp")).place("build"), Place::Temp);
        assert_eq!(cwd.cd(Some("$DIR")).place("build"), Place::Unknown);
        assert_eq!(cwd.cd(None).place("build"), Place::Unknown);
        let unknown = Cwd::from_payload("");
        assert_eq!(unknown.cd(Some("..")).place("build"), Place::Outside);
        assert_eq!(unknown.cd(Some("sub")).place("../x"), Place::Inside);
    }
}
