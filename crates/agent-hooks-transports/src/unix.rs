//! Process-group signals, and the kill of a hook's whole process tree: every hook runs as the
//! leader of its own group, so one call takes down the hook and what it forked in its group; what
//! left the group (`setsid`, `setpgid`) is found by walking `/proc` from the hook's pid.

use std::collections::{HashMap, HashSet};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// Sends `signal` to the process group `pgid`. A group that is already gone is not an error.
pub(crate) fn signal_group(pgid: u32, signal: Signal) {
    let Ok(raw) = i32::try_from(pgid) else {
        return;
    };
    if raw <= 1 {
        // Never signal group 0 (our own) or 1 (init's): a pid we do not own.
        return;
    }
    match killpg(Pid::from_raw(raw), signal) {
        Ok(()) | Err(nix::errno::Errno::ESRCH) => {}
        Err(err) => tracing::warn!(pgid, %err, "cannot signal a hook's process group"),
    }
}

pub(crate) use nix::sys::signal::Signal::{SIGKILL, SIGTERM};

/// How many times the tree is walked again for processes forked while it was being stopped.
const WALKS: usize = 64;

/// Kills every live process below `root` that is outside the process group `root` leads (the
/// group itself is signalled with [`signal_group`]). Each one found is stopped first, so that it
/// cannot fork a process that escapes the walk, and the tree is walked again until a walk finds
/// nothing new; then all of them are killed. Returns how many were killed.
///
/// What this cannot find: a process whose parent in the tree has already exited (a daemon's
/// double fork), which the kernel has given to init or to the nearest subreaper.
pub(crate) fn kill_escaped(root: u32) -> usize {
    if root <= 1 {
        return 0;
    }
    let mut stopped: HashSet<u32> = HashSet::new();
    for _ in 0..WALKS {
        let tree = Tree::read();
        let fresh: Vec<u32> = tree
            .below(root)
            .into_iter()
            .filter(|pid| !stopped.contains(pid) && tree.group(*pid) != Some(root))
            .collect();
        if fresh.is_empty() {
            break;
        }
        for pid in fresh {
            send(pid, Signal::SIGSTOP);
            stopped.insert(pid);
        }
    }
    for pid in &stopped {
        send(*pid, Signal::SIGKILL);
    }
    stopped.len()
}

fn send(pid: u32, signal: Signal) {
    if let Ok(raw) = i32::try_from(pid)
        && raw > 1
    {
        // Gone meanwhile (ESRCH) is what the kill wanted anyway.
        let _ = kill(Pid::from_raw(raw), signal);
    }
}

/// The live processes of the machine: each one's parent and group, from `/proc/<pid>/stat`.
struct Tree {
    parent_group: HashMap<u32, (u32, u32)>,
}

impl Tree {
    fn read() -> Tree {
        let mut parent_group = HashMap::new();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Tree { parent_group };
        };
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // After the command name (which may hold spaces and parentheses): state, ppid, pgrp.
            let Some((_, rest)) = stat.rsplit_once(')') else {
                continue;
            };
            let mut fields = rest.split_whitespace();
            let state = fields.next();
            let ppid = fields.next().and_then(|f| f.parse::<u32>().ok());
            let pgrp = fields.next().and_then(|f| f.parse::<u32>().ok());
            if let (Some(state), Some(ppid), Some(pgrp)) = (state, ppid, pgrp)
                && state != "Z"
                && state != "X"
            {
                parent_group.insert(pid, (ppid, pgrp));
            }
        }
        Tree { parent_group }
    }

    fn group(&self, pid: u32) -> Option<u32> {
        self.parent_group.get(&pid).map(|(_, group)| *group)
    }

    /// Every process below `root`, however deep.
    fn below(&self, root: u32) -> Vec<u32> {
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for (&pid, &(ppid, _)) in &self.parent_group {
            children.entry(ppid).or_default().push(pid);
        }
        let mut found = Vec::new();
        let mut next = vec![root];
        while let Some(parent) = next.pop() {
            for &child in children.get(&parent).map(Vec::as_slice).unwrap_or_default() {
                if child != root && !found.contains(&child) {
                    found.push(child);
                    next.push(child);
                }
            }
        }
        found
    }
}
