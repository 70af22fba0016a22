//! The switches of Claude Code's settings files that apply to all hooks at once
//! (`disableAllHooks`, `allowedHttpHookUrls`, `httpHookAllowedEnvVars`), read across the files
//! as Claude Code reads them.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use super::typed::{Given, Typed, from_object};

/// The parts of a Claude Code settings file this source reads; the rest is Claude Code's.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Settings {
    disable_all_hooks: Option<Typed<bool>>,
    /// Written at all (even as null, which lists nothing), the URLs an HTTP hook may post to.
    allowed_http_hook_urls: Given<Typed<Vec<Typed<String>>>>,
    /// Written at all (even as null, which lists nothing), the variables HTTP hooks may send.
    http_hook_allowed_env_vars: Given<Typed<Vec<Typed<String>>>>,
    /// Event name → matcher groups: the event names are data, so [`load_hooks`] walks the map.
    pub(super) hooks: Option<Value>,
}

/// The strings of a list as written; nothing when it is no list.
fn strings(list: &Typed<Vec<Typed<String>>>) -> impl Iterator<Item = String> + '_ {
    list.get()
        .into_iter()
        .flatten()
        .filter_map(|item| item.get().ok())
        .cloned()
}

/// What the settings files say about all hooks at once, read across them as Claude Code
/// reads them: the last file that sets a switch wins, lists merge.
#[derive(Debug, Default)]
pub(crate) struct HookSettings {
    /// `disableAllHooks`, with the file whose value holds.
    pub(super) disable_all: Option<(bool, PathBuf)>,
    /// `allowedHttpHookUrls`: when some file sets it, an HTTP hook runs only if its URL
    /// matches one of these patterns (`*` is any text).
    pub(super) http_urls: Option<Vec<String>>,
    /// `httpHookAllowedEnvVars`: when some file sets it, an outer limit on every HTTP hook's
    /// `allowedEnvVars`.
    pub(super) http_env: Option<Vec<String>>,
}

impl HookSettings {
    pub(super) fn read(docs: &[(PathBuf, Value)]) -> HookSettings {
        let mut out = HookSettings::default();
        for (file, doc) in docs {
            let read = from_object::<Settings>(doc).unwrap_or_default();
            if let Some(Ok(off)) = read.disable_all_hooks.as_ref().map(Typed::get) {
                out.disable_all = Some((*off, file.clone()));
            }
            if let Given(Some(urls)) = &read.allowed_http_hook_urls {
                out.http_urls.get_or_insert_default().extend(strings(urls));
            }
            if let Given(Some(names)) = &read.http_hook_allowed_env_vars {
                out.http_env.get_or_insert_default().extend(strings(names));
            }
        }
        out
    }

    /// Whether `allowedHttpHookUrls` lets an HTTP hook POST to `url`. Scheme and host compare
    /// without case, and a host's trailing dot is ignored, as in Claude Code.
    pub(super) fn allows_url(&self, url: &str) -> bool {
        let Some(patterns) = &self.http_urls else {
            return true;
        };
        let url = normalized_origin(url);
        patterns.iter().any(|pattern| {
            let regex = format!(
                "^{}$",
                normalized_origin(pattern)
                    .split('*')
                    .map(regex::escape)
                    .collect::<Vec<_>>()
                    .join(".*")
            );
            regex::Regex::new(&regex).is_ok_and(|r| r.is_match(&url))
        })
    }
}

/// `url` with its scheme and host lowercased and a trailing dot of the host dropped.
fn normalized_origin(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = authority.to_ascii_lowercase();
    let authority = match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit() || c == '*') => {
            format!("{}:{port}", host.trim_end_matches('.'))
        }
        _ => authority.trim_end_matches('.').to_owned(),
    };
    format!("{}://{authority}{tail}", scheme.to_ascii_lowercase())
}
