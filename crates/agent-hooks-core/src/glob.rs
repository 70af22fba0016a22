//! Path globs, read the way Claude Code's permission rules and its `Glob`/`Grep` tools read
//! them: `*` and `?` stay within one path segment, `**` crosses any number of them (none
//! included, so `src/**/*.rs` matches `src/lib.rs`), and `{a,b}` and `[ab]` work as in a shell.

use std::path::Path;

/// A glob that does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("glob \"{glob}\": {why}")]
#[non_exhaustive]
pub struct BadGlob {
    /// The glob, without a leading `./`.
    pub glob: String,
    /// What is wrong with it.
    pub why: String,
}

/// One compiled path glob.
#[derive(Debug, Clone)]
pub struct PathGlob {
    text: String,
    matcher: globset::GlobMatcher,
}

impl PathGlob {
    /// Compiles `glob` (a leading `./` is dropped).
    ///
    /// # Errors
    ///
    /// What is wrong with the glob, naming it.
    pub fn new(glob: &str) -> Result<PathGlob, BadGlob> {
        let text = glob.trim_start_matches("./");
        let matcher = globset::GlobBuilder::new(text)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| BadGlob {
                glob: text.to_owned(),
                why: e.kind().to_string(),
            })?
            .compile_matcher();
        Ok(PathGlob {
            text: text.to_owned(),
            matcher,
        })
    }

    /// The glob as written, without a leading `./`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the whole of `path` matches.
    pub fn is_match(&self, path: impl AsRef<Path>) -> bool {
        self.matcher.is_match(path)
    }

    /// As ripgrep's `--glob` reads a glob: one without `/` matches a file's name at any
    /// depth (`*.rs`); one with `/` matches the whole relative path.
    pub fn matches_file(&self, rel: &Path) -> bool {
        self.is_match(rel)
            || (!self.text.contains('/') && rel.file_name().is_some_and(|name| self.is_match(name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_star_crosses_zero_or_more_directories() {
        let glob = PathGlob::new("src/**/*.rs").expect("glob");
        assert!(glob.is_match("src/lib.rs"));
        assert!(glob.is_match("src/a/b/c.rs"));
        assert!(!glob.is_match("tests/a.rs"));
        assert!(PathGlob::new("src/**").expect("glob").is_match("src/a/b"));
    }

    #[test]
    fn single_star_and_question_mark_stay_in_one_segment() {
        let glob = PathGlob::new("src/*.rs").expect("glob");
        assert!(glob.is_match("src/lib.rs"));
        assert!(!glob.is_match("src/a/lib.rs"));
        assert!(PathGlob::new("a?.txt").expect("glob").is_match("ab.txt"));
        assert!(!PathGlob::new("a?.txt").expect("glob").is_match("a/.txt"));
    }

    #[test]
    fn a_bare_name_glob_matches_file_names_at_any_depth() {
        let glob = PathGlob::new("*.md").expect("glob");
        assert!(glob.matches_file(Path::new("docs/deep/x.md")));
        assert!(
            !PathGlob::new("docs/*.md")
                .expect("glob")
                .matches_file(Path::new("a/docs/x.md"))
        );
    }

    #[test]
    fn a_broken_glob_is_an_error_naming_it() {
        let err = PathGlob::new("src/[a").unwrap_err();
        assert!(err.to_string().starts_with("glob \"src/[a\""), "{err}");
    }
}
