//! The runtime against hostile or unlucky input: symlink loops, redo counts that are no
//! counts, payloads of any shape (a watcher under churn is in the server crate's tests; files that are not files and
//! configuration caught mid-write are unit tests in `src/config/tests/`). Each module pins one way
//! the runtime used to hang, disarm a guard or loop, through real files and real hooks.

mod properties;
mod redo_cap;
mod skill_links;
