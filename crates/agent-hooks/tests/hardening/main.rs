//! The runtime against hostile or unlucky input: files that are not files, configuration
//! caught mid-write, symlink loops, redo counts that are no counts. Each module pins one way
//! the runtime used to hang, disarm a guard or loop, through real files and real hooks.

mod files;
mod mid_write;
mod properties;
mod redo_cap;
mod skill_links;
mod watcher;
