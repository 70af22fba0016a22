#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/<target>/seed-* from the test suite's own inputs
(the guards' case tables, the default rules files, the library's test fixtures). Run from the
repository root; a second run writes the same files."""
import glob, hashlib, json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
CORPUS = "fuzz/corpus"
# Enough inputs to reach every rule and branch the tables pin, small enough to commit.
MAX_SEEDS = 300
MAX_BYTES = 4096


def write(target, data, limit=MAX_BYTES):
    if isinstance(data, str):
        data = data.encode()
    if not data or len(data) > limit:
        return
    os.makedirs(f"{CORPUS}/{target}", exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(f"{CORPUS}/{target}/seed-{name}", "wb") as f:
        f.write(data)


def cases():
    for path in sorted(glob.glob("crates/agent-hooks-guards/tests/cases/*.json")):
        yield from json.load(open(path))["cases"]


def guards_seeds():
    commands, texts = [], []
    for case in cases():
        payload = case["payload"]
        command = payload.get("tool_input", {}).get("command")
        if case["guard"] == "security_guard" and isinstance(command, str):
            commands.append(command)
        for key in ("message", "response", "notification", "tool_result"):
            if isinstance(payload.get(key), str):
                texts.append(payload[key])
    # Every n-th command, so the seeds span every table.
    step = -(-len(commands) // MAX_SEEDS)
    for command in commands[::step]:
        write("shell_tokenizer", command)
    for text in texts:
        write("secret_scanner", text)
    names = [os.path.basename(p)[:-5] for p in sorted(glob.glob("crates/agent-hooks-guards/rules/*.yaml"))]
    order = guard_order()
    for name in names:
        if name in order:
            text = open(f"crates/agent-hooks-guards/rules/{name}.yaml").read()
            write("guard_rules", bytes([order.index(name)]) + text.encode(), limit=64 * 1024)


def guard_order():
    """The guards in the order of agent_hooks_guards::GUARDS (the target picks by index)."""
    src = open("crates/agent-hooks-guards/src/lib.rs").read()
    start = src.index("pub const GUARDS")
    names = []
    for line in src[start:].splitlines():
        line = line.strip()
        if line.startswith('name: "'):
            names.append(line.split('"')[1])
    return names


if __name__ == "__main__":
    guards_seeds()
