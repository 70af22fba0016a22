//! The ready-made hooks of agent-hooks as pure functions: a canonical payload in, a
//! decision-protocol answer out. No processes, no I/O beyond what a guard's rules name.
