#!/usr/bin/env bash
# A Python security guard through `agent-hooks fire`, run with `prefork: true` against the same
# hook run as a plain process, in the same run. The guard is the project's own Python
# security_guard (crates/agent-hooks-guards/benches/python/security_guard.py: json, re, hashlib,
# a shell tokenizer and ~60 compiled patterns, the shape of Starchild's template), unmodified;
# GUARD=/path/to/security_guard.py runs another script instead, e.g. Starchild's own template
# (agent-hooks/templates/security_guard.py of github.com/Starchild-ai-agent/official-skills).
# Issue 19 asks for at most 3 ms a call with prefork, and at least 15x faster than plain.
# A third workspace adds a warm-up run (`prefork: {warmup: ...}`): it runs the script once when
# the forker starts, so what the script loads or compiles lazily is ready too. (Patterns the
# script compiles from literals are compiled by the forker either way.)
#
# Wall time needs a quiet machine. Beside it the script prints the CPU time per call — the
# `fire` process, plus the forker and its children for the pre-forked hooks (from
# /proc/<forker>/stat) — which a busy machine inflates far less.
#
# Usage: benches/prefork.sh            (builds the release binary first; RUNS=200 rounds)
#        GUARD=/abs/path/security_guard.py RUNS=100 benches/prefork.sh   (no spaces in the path)
# Needs: python3 (3.9 or later).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -q -p agent-hooks-cli
BIN="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release/agent-hooks"
# The interpreter itself, not a version manager's shim (which would add a process to both).
PY="$(python3 -c 'import sys; print(sys.executable)')"
GUARD_PY="${GUARD:-$PWD/crates/agent-hooks-guards/benches/python/security_guard.py}"
if [ ! -f "$GUARD_PY" ]; then
  echo "benches/prefork.sh: GUARD=$GUARD_PY: no such file" >&2
  exit 2
fi
GUARD_PY="$(cd "$(dirname "$GUARD_PY")" && pwd)/$(basename "$GUARD_PY")"
echo "guard: $GUARD_PY"
TMP="$(mktemp -d)"
# Removing the workspaces takes their approvals away: the forker leaves within a second.
trap 'rm -rf "$TMP"' EXIT

# A typical tool call: a shell command with a pipe and a redirection.
cat > "$TMP/payload.json" <<'JSON'
{"session_id": "bench", "tool_name": "bash", "tool_input": {"command": "cd app && grep -rn 'def handler' src | sort | head -50 > /tmp/handlers.txt && python3 -m pytest -q tests/"}}
JSON

for mode in plain prefork warm; do
  ws="$TMP/$mode"
  mkdir -p "$ws/config"
  {
    echo "hooks:"
    echo "  - name: security_guard"
    echo "    event: pre_tool_call"
    echo "    command: $PY $GUARD_PY"
    if [ "$mode" = prefork ]; then echo "    prefork: true"; fi
    if [ "$mode" = warm ]; then
      echo "    prefork:"
      echo '      warmup: {"event": "pre_tool_call", "tool_name": "bash", "tool_input": {"command": "ls -la"}}'
    fi
  } > "$ws/config/shell_hooks.yaml"
  "$BIN" --workspace "$ws" on > /dev/null
  "$BIN" --workspace "$ws" approve "$PY $GUARD_PY" > /dev/null
  # Both must run the hook (status noop: the command is allowed) and agree; the first
  # pre-forked call also starts the forker, which later calls find warm.
  "$BIN" --workspace "$ws" fire pre_tool_call < "$TMP/payload.json" > "$TMP/$mode.out"
  python3 - "$TMP/$mode.out" <<'PY'
import json, sys
out = json.load(open(sys.argv[1]))
hook = out["hooks"][0]
assert hook["status"] == "noop" and not out["warnings"], out
PY
done

# Rounds alternate the three modes (benches/alternate.py: no shell, spawn to reaped exit), so a
# change of load hits each alike; between two calls of one mode the others run, as other work
# runs between an agent's tool calls.
python3 benches/alternate.py "${RUNS:-200}" "$TMP/payload.json" \
  "$BIN --workspace $TMP/plain fire pre_tool_call" \
  "$BIN --workspace $TMP/prefork fire pre_tool_call" \
  "$BIN --workspace $TMP/warm fire pre_tool_call" | tee "$TMP/result"

python3 - "$BIN" "$TMP" "${RUNS:-200}" <<'PY'
import glob, os, resource, subprocess, sys
bin_, tmp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
payload = open(f"{tmp}/payload.json", "rb").read()

def forker_ticks(ws):
    """CPU ticks of the workspace's forkers and their reaped children."""
    total = 0
    for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            cmd = open(cmdline, "rb").read()
            if b"The forker of agent-hooks" not in cmd or ws.encode() not in cmd:
                continue
            fields = open(cmdline[:-7] + "stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total

def cpu_per_call(mode):
    ws = f"{tmp}/{mode}"
    t0, r0 = forker_ticks(ws), resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(runs):
        subprocess.run([bin_, "--workspace", ws, "fire", "pre_tool_call"], input=payload,
                       capture_output=True, check=True)
    t1, r1 = forker_ticks(ws), resource.getrusage(resource.RUSAGE_CHILDREN)
    fire = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000 / runs
    return fire + (t1 - t0) * 1000 / os.sysconf("SC_CLK_TCK") / runs

plain, prefork, warm = (float(line.split()[0]) for line in open(f"{tmp}/result"))
print(f"median per fire: prefork {prefork:.2f} ms, prefork+warmup {warm:.2f} ms, plain {plain:.2f} ms;"
      f" ratio {plain / prefork:.1f}x, {plain / warm:.1f}x with warm-up")
cpu = {mode: cpu_per_call(mode) for mode in ("prefork", "warm", "plain")}
print(f"CPU per call: prefork {cpu['prefork']:.2f} ms, prefork+warmup {cpu['warm']:.2f} ms,"
      f" plain {cpu['plain']:.2f} ms; ratio {cpu['plain'] / cpu['prefork']:.1f}x,"
      f" {cpu['plain'] / cpu['warm']:.1f}x with warm-up")
for mode in ("prefork", "warm"):
    log = f"{tmp}/{mode}/logs/events.jsonl"
    fallbacks = sum('"hook_prefork_fallback"' in l for l in open(log)) if os.path.exists(log) else 0
    if fallbacks:
        print(f"FAIL: {fallbacks} calls of {mode} fell back to a plain process")
        sys.exit(1)
ok = prefork <= 3 and plain / prefork >= 15
print("PASS" if ok else "FAIL", "(target for prefork: true: <= 3 ms and >= 15x)")
warm_ok = warm <= 3 and plain / warm >= 15
print("PASS" if warm_ok else "FAIL", "(the same target with a warm-up run: prefork: {warmup: ...})")
print(f"load average: {os.getloadavg()[0]:.1f}")
sys.exit(0 if ok else 1)
PY
