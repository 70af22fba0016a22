//! Who may drive the sidecar, and the files that say so. Over the Unix socket the kernel names
//! the peer's uid (`SO_PEERCRED`): the owner's, or one the allow list names. Over TCP the caller
//! shows the bearer token. The token, the allow list and the default socket live in the user's
//! agent-hooks state directory, outside every workspace, so an agent that can write only its
//! workspace can change none of them (`docs/sidecar.md`).

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use subtle::ConstantTimeEq;

/// Names the state directory instead of `$XDG_STATE_HOME/agent-hooks`.
pub const STATE_DIR_ENV: &str = agent_hooks_core::workspace::STATE_DIR_ENV;

/// The bearer token's file in the state directory.
pub const TOKEN_FILE: &str = "sidecar.token";

/// The allow list's file in the state directory: other users who may use the socket.
pub const ALLOW_FILE: &str = "sidecar.allow";

/// Random bytes in a token (written as twice as many hex digits).
const TOKEN_BYTES: usize = 32;

/// The longest path a Unix socket address holds (`sun_path`, less its terminating NUL).
const MAX_SOCKET_PATH: usize = 107;

/// Why the sidecar's credentials or socket place cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OwnerError {
    /// Neither `AGENT_HOOKS_STATE_DIR`, `XDG_STATE_HOME` nor `HOME` is set.
    #[error(
        "cannot find the sidecar's state directory: set HOME, XDG_STATE_HOME or AGENT_HOOKS_STATE_DIR"
    )]
    NoStateDir,
    /// A file or directory that guards the sidecar could be read or changed by someone else.
    #[error("refusing {}: {why}", path.display())]
    Unsafe {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong with it and what to do.
        why: String,
    },
    /// A line of the allow list names no user.
    #[error("{}:{line}: {why}", path.display())]
    AllowList {
        /// The allow list.
        path: PathBuf,
        /// Its 1-based line.
        line: usize,
        /// What is wrong with the line.
        why: String,
    },
    /// Reading or writing failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying failure.
        source: std::io::Error,
    },
}

pub(crate) fn io<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> OwnerError + 'a {
    move |source| OwnerError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

pub(crate) fn unsafe_path(path: &Path, why: String) -> OwnerError {
    OwnerError::Unsafe {
        path: path.to_path_buf(),
        why,
    }
}

/// This process's effective uid.
pub(crate) fn my_uid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// The user's agent-hooks state directory: `$AGENT_HOOKS_STATE_DIR`, else
/// `$XDG_STATE_HOME/agent-hooks`, else `~/.local/state/agent-hooks`. Not created here.
///
/// # Errors
///
/// [`OwnerError::NoStateDir`] when none of the three variables is set.
pub fn state_dir() -> Result<PathBuf, OwnerError> {
    // The runtime keeps its per-workspace bookkeeping in the same directory.
    agent_hooks_core::workspace::user_state_dir().ok_or(OwnerError::NoStateDir)
}

/// Creates `dir` (mode 0700) when missing and checks that only this user can change what is in
/// it: owned by this uid and writable by nobody else.
///
/// # Errors
///
/// [`OwnerError::Unsafe`] for a directory someone else owns or may write, [`OwnerError::Io`]
/// when it cannot be created or read.
pub fn private_dir(dir: &Path) -> Result<(), OwnerError> {
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io("create", dir)(e)),
    }
    let meta = std::fs::symlink_metadata(dir).map_err(io("read", dir))?;
    if !meta.is_dir() {
        return Err(unsafe_path(
            dir,
            "it is not a directory (a symbolic link is not followed); remove it".into(),
        ));
    }
    if meta.uid() != my_uid() {
        return Err(unsafe_path(
            dir,
            format!(
                "it belongs to uid {}, not to you (uid {}): another user could replace the files in it",
                meta.uid(),
                my_uid()
            ),
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(unsafe_path(
            dir,
            format!(
                "other users may write into it (mode {mode:04o}); run: chmod 700 {}",
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// A stat of a file that changes whenever it is replaced or rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: i64,
    mtime_nsec: i64,
}

impl Fingerprint {
    pub(crate) fn of(meta: &std::fs::Metadata) -> Fingerprint {
        Fingerprint {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
        }
    }
}

/// The bearer token TCP callers must show, read from its file in the state directory. A file
/// replaced while the sidecar runs (`serve --rotate-token` elsewhere, or by hand) is read again
/// at the next request, so the old token stops working everywhere at once.
#[derive(Debug)]
pub struct TokenFile {
    path: PathBuf,
    current: Mutex<(Fingerprint, Vec<u8>)>,
}

impl TokenFile {
    /// The token of `dir` (the state directory, made private first), made from the operating
    /// system's random source on first use; with `rotate`, a new token replaces the old one.
    ///
    /// # Errors
    ///
    /// [`OwnerError::Unsafe`] for a token file others can read or that another user owns (the
    /// message says how to fix it), [`OwnerError::Io`] when it cannot be read or written.
    pub fn open(dir: &Path, rotate: bool) -> Result<TokenFile, OwnerError> {
        private_dir(dir)?;
        let path = dir.join(TOKEN_FILE);
        if rotate || !path.exists() {
            write_token(dir, &path, rotate)?;
        }
        let (fingerprint, token) = read_token(&path)?;
        Ok(TokenFile {
            path,
            current: Mutex::new((fingerprint, token)),
        })
    }

    /// Where the token is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `presented` is the token, compared in constant time. The file is looked at
    /// first (one `stat`): a rotated token takes over at once. A file that went missing or
    /// turned unsafe leaves the last good token in force, and says so.
    pub(crate) fn accepts(&self, presented: &[u8]) -> bool {
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        match std::fs::symlink_metadata(&self.path) {
            Ok(meta) if Fingerprint::of(&meta) != current.0 => match read_token(&self.path) {
                Ok(fresh) => *current = fresh,
                Err(e) => tracing::warn!("{e}; the sidecar keeps its previous token"),
            },
            Ok(_) => {}
            Err(e) => tracing::warn!(
                "cannot read {}: {e}; the sidecar keeps its previous token",
                self.path.display()
            ),
        }
        bool::from(current.1.as_slice().ct_eq(presented))
    }
}

/// Writes a fresh token to `path`, whole or not at all (see [`write_private`]).
fn write_token(dir: &Path, path: &Path, replace: bool) -> Result<(), OwnerError> {
    let token = random_hex(path)?;
    write_private(dir, path, format!("{token}\n").as_bytes(), replace)
}

/// [`TOKEN_BYTES`] bytes of the operating system's random source, as hex digits. `path` names
/// the file the secret is for, in the error.
pub(crate) fn random_hex(path: &Path) -> Result<String, OwnerError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| {
        io("make a token for", path)(std::io::Error::other(format!(
            "the operating system's random source failed: {e}"
        )))
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes `contents` to `path` (mode 0600), whole or not at all: into a private temporary file
/// of `dir` first, then renamed over the old one (`replace`) or linked into place only if no
/// other process made one first at the same moment.
pub(crate) fn write_private(
    dir: &Path,
    path: &Path,
    contents: &[u8],
    replace: bool,
) -> Result<(), OwnerError> {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io("create", &tmp))?;
    let written = file.write_all(contents).and_then(|()| file.sync_all());
    drop(file);
    let placed = written.and_then(|()| {
        if replace {
            std::fs::rename(&tmp, path)
        } else {
            match std::fs::hard_link(&tmp, path) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                other => other,
            }
        }
    });
    let _ = std::fs::remove_file(&tmp);
    placed.map_err(io("write", path))?;
    if let Ok(dir) = std::fs::File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Reads the token, refusing a file that is not a regular file of this user's, readable by
/// nobody else.
fn read_token(path: &Path) -> Result<(Fingerprint, Vec<u8>), OwnerError> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)
        .map_err(io("open", path))?;
    let meta = file.metadata().map_err(io("read", path))?;
    let remove = |why: String| {
        unsafe_path(
            path,
            format!(
                "{why}; delete it (rm {}) and the next `agent-hooks serve --listen` makes a new one",
                path.display()
            ),
        )
    };
    if !meta.is_file() {
        return Err(remove("it is not a regular file".into()));
    }
    if meta.uid() != my_uid() {
        return Err(remove(format!(
            "it belongs to uid {}, not to you (uid {}), so someone else chose the token",
            meta.uid(),
            my_uid()
        )));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(unsafe_path(
            path,
            format!(
                "other users may read it (mode {mode:04o}), so the token may be known; run: chmod 600 {0} && agent-hooks serve --rotate-token ...",
                path.display()
            ),
        ));
    }
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(io("read", path))?;
    let token = text.trim();
    if token.len() < TOKEN_BYTES || token.chars().any(char::is_whitespace) {
        return Err(remove(
            "it does not hold a token (one line of at least 32 characters)".into(),
        ));
    }
    Ok((Fingerprint::of(&meta), token.as_bytes().to_vec()))
}

/// The uids besides the owner's that may use the sidecar's socket: `sidecar.allow` in the state
/// directory, one user name or numeric uid a line (`#` starts a comment). Read at start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    uids: Vec<u32>,
}

impl AllowList {
    /// Reads `dir`'s allow list; a missing file allows no one else.
    ///
    /// # Errors
    ///
    /// [`OwnerError::Unsafe`] for a file someone else owns or may write,
    /// [`OwnerError::AllowList`] for a line that names no user.
    pub fn read(dir: &Path) -> Result<AllowList, OwnerError> {
        let path = dir.join(ALLOW_FILE);
        let file = match std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
            .open(&path)
        {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(AllowList::default());
            }
            Err(e) => return Err(io("open", &path)(e)),
        };
        let meta = file.metadata().map_err(io("read", &path))?;
        if !meta.is_file() || meta.uid() != my_uid() || meta.mode() & 0o022 != 0 {
            let shown = path.display().to_string();
            return Err(unsafe_path(
                &path,
                format!(
                    "the allow list must be a regular file of yours that no one else may write (it is uid {}, mode {:04o}); run: chown \"$(id -u)\" {shown} && chmod 600 {shown}",
                    meta.uid(),
                    meta.mode() & 0o7777,
                ),
            ));
        }
        let mut text = String::new();
        std::io::BufReader::new(file)
            .read_to_string(&mut text)
            .map_err(io("read", &path))?;
        let mut uids = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let entry = line.split('#').next().unwrap_or("").trim();
            if entry.is_empty() {
                continue;
            }
            let bad = |why: String| OwnerError::AllowList {
                path: path.clone(),
                line: n + 1,
                why,
            };
            let uid = match entry.parse::<u32>() {
                Ok(uid) => uid,
                Err(_) => match nix::unistd::User::from_name(entry) {
                    Ok(Some(user)) => user.uid.as_raw(),
                    Ok(None) => {
                        return Err(bad(format!(
                            "no user is named \"{entry}\" (write a user name or a numeric uid)"
                        )));
                    }
                    Err(e) => return Err(bad(format!("cannot look up user \"{entry}\": {e}"))),
                },
            };
            uids.push(uid);
        }
        Ok(AllowList { uids })
    }

    /// Whether `uid` may use the socket besides the owner.
    pub fn allows(&self, uid: u32) -> bool {
        self.uids.contains(&uid)
    }

    /// Whether the list names anyone.
    pub fn is_empty(&self) -> bool {
        self.uids.is_empty()
    }
}

/// The socket a workspace's sidecar listens on unless `--socket` says otherwise:
/// `$XDG_RUNTIME_DIR/agent-hooks/<id>.sock`, or `<state dir>/run/<id>.sock` when
/// `AGENT_HOOKS_STATE_DIR` is set or there is no `XDG_RUNTIME_DIR`. `<id>` is the first 16 hex
/// digits of the SHA-256 of the workspace's absolute path, so each workspace has its own and a
/// client that knows the workspace finds it.
///
/// # Errors
///
/// [`OwnerError::NoStateDir`] when no directory for it can be found.
pub fn default_socket(workspace_root: &Path) -> Result<PathBuf, OwnerError> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute());
    let dir = match runtime {
        Some(dir) if std::env::var_os(STATE_DIR_ENV).is_none_or(|v| v.is_empty()) => {
            dir.join("agent-hooks")
        }
        _ => state_dir()?.join("run"),
    };
    let id = agent_hooks_core::workspace::workspace_id(workspace_root);
    Ok(dir.join(format!("{id}.sock")))
}

/// Checks that `path` can hold the socket and that no one else can swap it: the path fits a
/// socket address, its directory is this user's (or root's) and writable by no one else unless
/// sticky (as `/tmp` is), and what is at the path now is a stale socket of this user's (removed)
/// or nothing. The default directory is created private first.
///
/// # Errors
///
/// [`OwnerError::Unsafe`] naming what is wrong.
pub(crate) fn prepare_socket(path: &Path, is_default: bool) -> Result<(), OwnerError> {
    if path.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(unsafe_path(
            path,
            format!(
                "a socket path may be {MAX_SOCKET_PATH} bytes long at most; choose a shorter one with --socket"
            ),
        ));
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if is_default {
        private_dir(dir)?;
    } else {
        let meta = std::fs::metadata(dir).map_err(io("read", dir))?;
        let owner = meta.uid();
        let mode = meta.mode() & 0o7777;
        let sticky = mode & 0o1000 != 0;
        if (owner != my_uid() && owner != 0) || (mode & 0o022 != 0 && !sticky) {
            return Err(unsafe_path(
                dir,
                format!(
                    "another user could replace the socket in it (owner uid {owner}, mode {mode:04o}); choose a directory of yours that only you may write"
                ),
            ));
        }
    }
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io("read", path)(e)),
        Ok(meta) => {
            use std::os::unix::fs::FileTypeExt;
            if !meta.file_type().is_socket() || meta.uid() != my_uid() {
                return Err(unsafe_path(
                    path,
                    "something other than a socket of yours is there; remove it or choose another --socket".into(),
                ));
            }
            if std::os::unix::net::UnixStream::connect(path).is_ok() {
                return Err(unsafe_path(
                    path,
                    "another sidecar is listening on it; stop it, or choose another --socket"
                        .into(),
                ));
            }
            std::fs::remove_file(path).map_err(io("remove the stale socket", path))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn private() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
        dir
    }

    #[test]
    fn a_token_is_made_once_private_and_random_and_rotation_replaces_it() {
        let dir = private();
        let first = TokenFile::open(dir.path(), false).expect("a token");
        let meta = std::fs::metadata(first.path()).expect("stat");
        assert_eq!(meta.mode() & 0o777, 0o600);
        let text = std::fs::read_to_string(first.path()).expect("read");
        let token = text.trim();
        assert_eq!(token.len(), 64);
        assert!(token.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(first.accepts(token.as_bytes()));
        assert!(!first.accepts(&token.as_bytes()[1..]));
        assert!(!first.accepts(b""));
        // Opened again: the same token.
        let again = TokenFile::open(dir.path(), false).expect("the token");
        assert!(again.accepts(token.as_bytes()));
        // Rotated: the running one takes the new token, the old one is refused.
        let rotated = TokenFile::open(dir.path(), true).expect("a new token");
        let new = std::fs::read_to_string(rotated.path()).expect("read");
        assert_ne!(new.trim(), token);
        assert!(first.accepts(new.trim().as_bytes()));
        assert!(!first.accepts(token.as_bytes()));
    }

    #[test]
    fn the_allow_list_takes_names_and_uids_and_names_a_bad_line() {
        let dir = private();
        let path = dir.path().join(ALLOW_FILE);
        assert!(AllowList::read(dir.path()).expect("no file").is_empty());
        std::fs::write(&path, "# colleagues\nroot\n  4242   # the build user\n\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let list = AllowList::read(dir.path()).expect("a list");
        assert!(list.allows(0) && list.allows(4242) && !list.allows(4243));
        std::fs::write(&path, "root\nno-such-user-here\n").expect("write");
        let err = AllowList::read(dir.path()).expect_err("an unknown user");
        assert!(
            err.to_string().ends_with(
                ":2: no user is named \"no-such-user-here\" (write a user name or a numeric uid)"
            ),
            "{err}"
        );
        std::fs::write(&path, "4242\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).expect("chmod");
        let err = AllowList::read(dir.path()).expect_err("a list others may write");
        assert!(err.to_string().contains("no one else may write"), "{err}");
    }

    #[test]
    fn each_workspace_has_its_own_socket_name() {
        let a = default_socket(Path::new("/work/a")).expect("a socket");
        let b = default_socket(Path::new("/work/b")).expect("a socket");
        assert_ne!(a, b);
        let name = a
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        assert_eq!(name.len(), "0123456789abcdef.sock".len(), "{name}");
    }
}
