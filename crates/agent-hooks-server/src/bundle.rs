//! Policy bundles: a workspace's policy (configuration, hook scripts, rules, approvals) as one
//! signed file, `tar` compressed with zstd. `MANIFEST.json` lists every file with its SHA-256,
//! size and executable bit; `MANIFEST.sig` holds ed25519 signatures of the manifest's bytes.
//! Verifying checks a signature by a trusted key, then every file against the manifest, so one
//! changed byte anywhere is refused with the file named.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The manifest's name inside a bundle.
pub const MANIFEST: &str = "MANIFEST.json";
/// The signatures' name inside a bundle.
pub const SIGNATURES: &str = "MANIFEST.sig";
/// What the manifest says it is.
const FORMAT: &str = "agent-hooks-bundle/1";
/// Top-level directories of a workspace that are its runtime's, not its policy.
const NOT_POLICY: [&str; 3] = ["state", "logs", ".git"];
/// The largest bundle read (compressed or not): policies are kilobytes.
const MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Why a bundle could not be built, signed, verified or unpacked; the file concerned is named.
#[derive(Debug, thiserror::Error)]
#[error("{}: {why}", place.display())]
pub struct BundleError {
    place: PathBuf,
    why: String,
}

/// A [`BundleError`] about `place`, for the policy that follows a bundle.
pub(crate) fn error(place: impl AsRef<Path>, why: impl std::fmt::Display) -> BundleError {
    err(place, why)
}

fn err(place: impl AsRef<Path>, why: impl std::fmt::Display) -> BundleError {
    BundleError {
        place: place.as_ref().to_path_buf(),
        why: why.to_string(),
    }
}

/// One file of a bundle, as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// Its path in the workspace, `/`-separated, relative.
    pub path: String,
    /// The SHA-256 of its bytes, as hex digits.
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
    /// Whether it is executable (a hook script run as a program).
    pub executable: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    format: String,
    files: Vec<ManifestFile>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Signatures {
    signatures: Vec<Signature>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Signature {
    /// The signer's public key, as hex digits.
    key: String,
    /// The signature of the manifest's bytes, as hex digits.
    signature: String,
}

/// A bundle verified whole: the files, each checked against the signed manifest, and the
/// manifest's digest, which names this version of the policy.
#[derive(Debug)]
pub struct Verified {
    files: BTreeMap<String, (Vec<u8>, bool)>,
    /// The SHA-256 of the manifest, as hex digits.
    pub digest: String,
    /// The public key (hex) whose signature was accepted; empty when none was checked.
    pub signer: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A relative path of plain components, `/`-separated; `None` for anything else.
fn clean(path: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for part in path.components() {
        match part {
            Component::Normal(name) => parts.push(name.to_str()?.to_owned()),
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Every policy file of `workspace`, sorted: all regular files but those under `state/`, `logs/`
/// and `.git/`. A symbolic link is refused: a bundle carries the bytes that run.
fn policy_files(workspace: &Path) -> Result<Vec<(String, PathBuf)>, BundleError> {
    let mut found = Vec::new();
    let mut pending = vec![workspace.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| err(&dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| err(&dir, e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| err(&path, e))?;
            let rel = path.strip_prefix(workspace).unwrap_or(&path);
            let Some(name) = clean(rel) else {
                return Err(err(&path, "not a plain relative path"));
            };
            if dir == workspace && NOT_POLICY.contains(&name.as_str()) {
                continue;
            }
            if kind.is_symlink() {
                return Err(err(
                    &path,
                    "a symbolic link; a bundle carries files, so copy what it points to",
                ));
            }
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() {
                found.push((name, path));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Packs `workspace`'s policy into `out` (tar + zstd), with its manifest and no signature.
/// The archive is the same bytes for the same files (sorted, no times, no owners).
///
/// # Errors
///
/// A file that cannot be read, a symbolic link, or `out` that cannot be written.
pub fn build(workspace: &Path, out: &Path) -> Result<Vec<ManifestFile>, BundleError> {
    let mut files = BTreeMap::new();
    let mut listed = Vec::new();
    for (name, path) in policy_files(workspace)? {
        let bytes = std::fs::read(&path).map_err(|e| err(&path, e))?;
        let meta = std::fs::metadata(&path).map_err(|e| err(&path, e))?;
        let executable = meta.permissions().mode() & 0o111 != 0;
        listed.push(ManifestFile {
            path: name.clone(),
            sha256: hex(&Sha256::digest(&bytes)),
            size: bytes.len() as u64,
            executable,
        });
        files.insert(name, (bytes, executable));
    }
    let manifest = Manifest {
        format: FORMAT.to_owned(),
        files: listed.clone(),
    };
    let manifest = serde_json::to_vec_pretty(&manifest).map_err(|e| err(out, e))?;
    write_archive(out, &manifest, None, &files)?;
    Ok(listed)
}

/// Writes an archive: the manifest, the signatures if any, then the files in order; into a
/// temporary file renamed over `out`, so a service watching `out` never reads half of it.
fn write_archive(
    out: &Path,
    manifest: &[u8],
    signatures: Option<&[u8]>,
    files: &BTreeMap<String, (Vec<u8>, bool)>,
) -> Result<(), BundleError> {
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| err(dir, e))?;
    let encoder = zstd::Encoder::new(tmp.as_file(), 19).map_err(|e| err(out, e))?;
    let mut tar = tar::Builder::new(encoder);
    let mut add = |name: &str, bytes: &[u8], executable: bool| -> Result<(), BundleError> {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(if executable { 0o755 } else { 0o644 });
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut header, name, bytes)
            .map_err(|e| err(out, e))
    };
    add(MANIFEST, manifest, false)?;
    if let Some(signatures) = signatures {
        add(SIGNATURES, signatures, false)?;
    }
    for (name, (bytes, executable)) in files {
        add(name, bytes, *executable)?;
    }
    let encoder = tar.into_inner().map_err(|e| err(out, e))?;
    let file = encoder.finish().map_err(|e| err(out, e))?;
    file.sync_all().map_err(|e| err(out, e))?;
    tmp.persist(out).map_err(|e| err(out, e.error))?;
    Ok(())
}

/// The entries of the archive at `path`: the manifest's bytes, the signatures' bytes, and the
/// files with their executable bit. Refuses anything but regular files at plain paths, and a
/// path twice.
#[allow(clippy::type_complexity)]
fn read_archive(
    path: &Path,
) -> Result<(Vec<u8>, Option<Vec<u8>>, BTreeMap<String, (Vec<u8>, bool)>), BundleError> {
    let file = std::fs::File::open(path).map_err(|e| err(path, e))?;
    let decoder = zstd::Decoder::new(file.take(MAX_BYTES))
        .map_err(|e| err(path, format!("not a zstd-compressed bundle: {e}")))?;
    let mut archive = tar::Archive::new(decoder.take(MAX_BYTES));
    let (mut manifest, mut signatures, mut files) = (None, None, BTreeMap::new());
    let entries = archive
        .entries()
        .map_err(|e| err(path, format!("not a bundle: {e}")))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| err(path, format!("not a bundle: {e}")))?;
        let inner = entry.path().map_err(|e| err(path, e))?.into_owned();
        let Some(name) = clean(&inner) else {
            return Err(err(path.join(&inner), "not a plain relative path"));
        };
        if entry.header().entry_type() != tar::EntryType::Regular {
            return Err(err(path.join(&name), "not a regular file"));
        }
        let executable = entry.header().mode().is_ok_and(|m| m & 0o111 != 0);
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| err(path.join(&name), e))?;
        match name.as_str() {
            MANIFEST => manifest = Some(bytes),
            SIGNATURES => signatures = Some(bytes),
            _ => {
                if files.insert(name.clone(), (bytes, executable)).is_some() {
                    return Err(err(path.join(&name), "in the bundle twice"));
                }
            }
        }
    }
    let manifest = manifest.ok_or_else(|| err(path, format!("no {MANIFEST} in it")))?;
    Ok((manifest, signatures, files))
}

/// Adds `key`'s signature of the manifest to the bundle at `bundle`, in place.
///
/// # Errors
///
/// A key that is not an ed25519 private key in PEM, or a bundle that cannot be read or whose
/// files do not match its manifest (a bundle is signed only as built).
pub fn sign(bundle: &Path, key: &Path) -> Result<String, BundleError> {
    let signing = read_private_key(key)?;
    let (manifest, signatures, files) = read_archive(bundle)?;
    check_files(bundle, &manifest, &files, true)?;
    let mut all: Signatures = match &signatures {
        Some(bytes) => {
            serde_json::from_slice(bytes).map_err(|e| err(bundle.join(SIGNATURES), e))?
        }
        None => Signatures::default(),
    };
    let public = hex(signing.verifying_key().as_bytes());
    all.signatures.retain(|s| s.key != public);
    all.signatures.push(Signature {
        key: public.clone(),
        signature: hex(&signing.sign(&manifest).to_bytes()),
    });
    let signatures = serde_json::to_vec_pretty(&all).map_err(|e| err(bundle, e))?;
    write_archive(bundle, &manifest, Some(&signatures), &files)?;
    Ok(public)
}

/// The files against the manifest: each listed once, each present with its hash, size and
/// executable bit, and (`exact`, an archive) nothing else.
fn check_files(
    place: &Path,
    manifest: &[u8],
    files: &BTreeMap<String, (Vec<u8>, bool)>,
    exact: bool,
) -> Result<Vec<ManifestFile>, BundleError> {
    let manifest: Manifest = serde_json::from_slice(manifest)
        .map_err(|e| err(place.join(MANIFEST), format!("not a manifest: {e}")))?;
    if manifest.format != FORMAT {
        return Err(err(
            place.join(MANIFEST),
            format!("format \"{}\", expected \"{FORMAT}\"", manifest.format),
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for listed in &manifest.files {
        let name = clean(Path::new(&listed.path))
            .filter(|n| *n == listed.path && n != MANIFEST && n != SIGNATURES)
            .ok_or_else(|| {
                err(
                    place.join(MANIFEST),
                    format!("\"{}\" is not a plain relative path", listed.path),
                )
            })?;
        if !seen.insert(name.clone()) {
            return Err(err(place.join(&name), "listed in the manifest twice"));
        }
        let Some((bytes, executable)) = files.get(&name) else {
            return Err(err(place.join(&name), "listed in the manifest but missing"));
        };
        if hex(&Sha256::digest(bytes)) != listed.sha256 || bytes.len() as u64 != listed.size {
            return Err(err(
                place.join(&name),
                "its bytes are not the ones the manifest signs (SHA-256 differs): the file was changed after the bundle was built",
            ));
        }
        if *executable != listed.executable {
            return Err(err(
                place.join(&name),
                "its executable bit is not the one the manifest signs",
            ));
        }
    }
    if exact && let Some(extra) = files.keys().find(|name| !seen.contains(*name)) {
        return Err(err(
            place.join(extra),
            "in the bundle but not in its manifest",
        ));
    }
    Ok(manifest.files)
}

/// Whether one of the signatures is a valid one of the manifest by one of `keys`; the key's hex.
fn check_signature(
    place: &Path,
    manifest: &[u8],
    signatures: Option<&[u8]>,
    keys: &[VerifyingKey],
) -> Result<String, BundleError> {
    let Some(signatures) = signatures else {
        return Err(err(place, "it is not signed (agent-hooks bundle sign)"));
    };
    let all: Signatures = serde_json::from_slice(signatures)
        .map_err(|e| err(place.join(SIGNATURES), format!("not signatures: {e}")))?;
    for key in keys {
        let public = hex(key.as_bytes());
        if let Some(sig) = all.signatures.iter().find(|s| s.key == public) {
            let bytes = unhex(&sig.signature)
                .and_then(|b| <[u8; 64]>::try_from(b).ok())
                .ok_or_else(|| err(place.join(SIGNATURES), "a signature is not 64 bytes of hex"))?;
            let signature = ed25519_dalek::Signature::from_bytes(&bytes);
            if key.verify(manifest, &signature).is_ok() {
                return Ok(public);
            }
            return Err(err(
                place.join(SIGNATURES),
                format!(
                    "the signature by {} does not match the manifest",
                    &public[..16]
                ),
            ));
        }
    }
    Err(err(
        place.join(SIGNATURES),
        "signed by no trusted key (serve --policy-key, bundle verify --key)",
    ))
}

/// Reads and verifies the bundle at `path` (a `.tar.zst` file, or a directory holding an
/// unpacked one) against `keys`: a valid signature of the manifest by one of them, then every
/// file the manifest lists with its hash. Nothing is written.
///
/// # Errors
///
/// The first thing wrong, naming the file: no trusted signature, a file changed, missing or
/// extra.
pub fn verify(path: &Path, keys: &[VerifyingKey]) -> Result<Verified, BundleError> {
    verify_with(path, Some(keys))
}

/// Reads the bundle at `path` and checks every file against its manifest, as [`verify`] does,
/// but no signature: for a bundle tried locally (`agent-hooks replay`) when no key is given.
/// The [`Verified::signer`] is empty.
///
/// # Errors
///
/// The first file changed, missing or extra, named.
pub fn verify_unsigned(path: &Path) -> Result<Verified, BundleError> {
    verify_with(path, None)
}

fn verify_with(path: &Path, keys: Option<&[VerifyingKey]>) -> Result<Verified, BundleError> {
    let (manifest, signatures, files, exact) = if path.is_dir() {
        let manifest =
            std::fs::read(path.join(MANIFEST)).map_err(|e| err(path.join(MANIFEST), e))?;
        let signatures = match std::fs::read(path.join(SIGNATURES)) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(err(path.join(SIGNATURES), e)),
        };
        (manifest, signatures, BTreeMap::new(), false)
    } else {
        let (manifest, signatures, files) = read_archive(path)?;
        (manifest, signatures, files, true)
    };
    let signer = match keys {
        Some(keys) => check_signature(path, &manifest, signatures.as_deref(), keys)?,
        None => String::new(),
    };
    let files = if exact {
        files
    } else {
        // A directory: the files the signed manifest lists, read now; others are not policy.
        let listed: Manifest = serde_json::from_slice(&manifest)
            .map_err(|e| err(path.join(MANIFEST), format!("not a manifest: {e}")))?;
        let mut read = BTreeMap::new();
        for file in listed.files {
            let Some(name) = clean(Path::new(&file.path)) else {
                return Err(err(
                    path.join(MANIFEST),
                    format!("\"{}\" is not a plain relative path", file.path),
                ));
            };
            let on_disk = path.join(&name);
            let meta = std::fs::symlink_metadata(&on_disk).map_err(|e| err(&on_disk, e))?;
            if !meta.is_file() {
                return Err(err(&on_disk, "not a regular file"));
            }
            let bytes = std::fs::read(&on_disk).map_err(|e| err(&on_disk, e))?;
            read.insert(name, (bytes, meta.permissions().mode() & 0o111 != 0));
        }
        read
    };
    check_files(path, &manifest, &files, exact)?;
    Ok(Verified {
        files,
        digest: hex(&Sha256::digest(&manifest)),
        signer,
    })
}

impl Verified {
    /// Writes the verified files into `dir`, which must not exist yet (made 0700), with their
    /// executable bits.
    ///
    /// # Errors
    ///
    /// When `dir` exists or a file cannot be written.
    pub fn unpack(&self, dir: &Path) -> Result<(), BundleError> {
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(dir)
            .map_err(|e| err(dir, e))?;
        for (name, (bytes, executable)) in &self.files {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| err(parent, e))?;
            }
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(if *executable { 0o755 } else { 0o644 })
                .open(&path)
                .map_err(|e| err(&path, e))?;
            file.write_all(bytes).map_err(|e| err(&path, e))?;
        }
        Ok(())
    }

    /// How many files the bundle holds.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the bundle holds no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Makes an ed25519 key pair: the private key in `private` (PKCS#8 PEM, mode 0600, refused if
/// it exists) and the public key in `public` (SPKI PEM, as `openssl pkey -pubout` writes).
///
/// # Errors
///
/// When the random source fails or a file cannot be written.
pub fn keygen(private: &Path, public: &Path) -> Result<String, BundleError> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| err(private, format!("the random source failed: {e}")))?;
    let key = SigningKey::from_bytes(&seed);
    let pem = key
        .to_pkcs8_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
        .map_err(|e| err(private, e))?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(private)
        .map_err(|e| err(private, e))?;
    file.write_all(pem.as_bytes())
        .map_err(|e| err(private, e))?;
    let public_pem = key
        .verifying_key()
        .to_public_key_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
        .map_err(|e| err(public, e))?;
    std::fs::write(public, public_pem).map_err(|e| err(public, e))?;
    Ok(hex(key.verifying_key().as_bytes()))
}

fn read_private_key(path: &Path) -> Result<SigningKey, BundleError> {
    let text = std::fs::read_to_string(path).map_err(|e| err(path, e))?;
    SigningKey::from_pkcs8_pem(&text).map_err(|e| {
        err(
            path,
            format!("not an ed25519 private key in PKCS#8 PEM ({e})"),
        )
    })
}

/// Reads an ed25519 public key (SPKI PEM, as `bundle keygen` or `openssl pkey -pubout` write).
///
/// # Errors
///
/// When the file cannot be read or holds no ed25519 public key.
pub fn read_public_key(path: &Path) -> Result<VerifyingKey, BundleError> {
    let text = std::fs::read_to_string(path).map_err(|e| err(path, e))?;
    VerifyingKey::from_public_key_pem(&text)
        .map_err(|e| err(path, format!("not an ed25519 public key in PEM ({e})")))
}
