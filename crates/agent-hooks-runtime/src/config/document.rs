//! Reading a configuration file into one JSON document for a source to walk: missing is
//! nothing, unreadable or unparsable is a broken file with the error located, and the document
//! must be an object.

use serde_json::Value;

use super::{ConfigError, FileLoad, FileState};
use agent_hooks_core::config_error::Location;
use agent_hooks_core::wording::kind_of as json_kind;

/// Reads and parses `load`'s file; `None` when it is missing or broken (recorded in `load`).
pub(crate) fn read(
    load: &mut FileLoad,
    parse: fn(&str) -> Result<Value, Located>,
) -> Option<Value> {
    let text = match agent_hooks_core::store::read_optional(&load.path) {
        Ok(None) => return None,
        Ok(Some(text)) => text,
        Err(e) => {
            load.state = FileState::Broken;
            let error = ConfigError::whole_file(&load.display, format!("cannot read: {e}"));
            load.errors.push(error);
            return None;
        }
    };
    match parse(&text) {
        Ok(doc @ Value::Object(_)) => {
            load.state = FileState::Loaded;
            Some(doc)
        }
        Ok(other) => {
            load.state = FileState::Broken;
            let error = ConfigError::whole_file(
                &load.display,
                format!("must be one JSON object, found {}", json_kind(&other)),
            );
            load.errors.push(error);
            None
        }
        Err(Located {
            line,
            column,
            message,
        }) => {
            load.state = FileState::Broken;
            let error =
                ConfigError::located(&load.display, Location::from_parser(line, column), message);
            load.errors.push(error);
            None
        }
    }
}

/// Where a file failed to parse, and why.
pub(crate) struct Located {
    pub(crate) line: u64,
    pub(crate) column: u64,
    pub(crate) message: String,
}

pub(crate) fn parse_json(text: &str) -> Result<Value, Located> {
    serde_json::from_str(text).map_err(|e| Located {
        line: e.line() as u64,
        column: e.column() as u64,
        message: format!("not valid JSON: {e}"),
    })
}
