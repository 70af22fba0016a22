//! The program an approval pins, and the hash that pins a file: what the trust gate verifies
//! and what a transport then starts.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

/// The program an approval pins, as the gate verified it.
#[derive(Debug, Clone)]
pub struct Pinned {
    /// The program's path, as resolved at approval.
    pub path: PathBuf,
    /// A compiled program, opened once and verified through this descriptor: the process is
    /// started from it, so a file swapped in after the check is never what runs. `None` for a
    /// `#!` script, which its interpreter opens again by path.
    pub file: Option<Arc<fs::File>>,
    /// For a command hook, each file of the approval with the SHA-256 this check verified: the
    /// process runs from sealed copies of bytes of that hash ([`crate::sealed`]), and a
    /// `prefork` forker compiles the script only from such bytes.
    pub approved: Vec<(PathBuf, String)>,
}

/// SHA-256 of a file, as lowercase hex.
pub fn hash_file(path: &Path) -> io::Result<String> {
    hash_reader(&mut fs::File::open(path)?)
}

/// SHA-256 of what `file` reads to its end, as lowercase hex.
pub fn hash_reader(file: &mut impl Read) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// `bytes` as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
