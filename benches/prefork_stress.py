"""A storm of `agent-hooks fire` calls of `prefork: true` hooks, several at once, on a loaded
machine, with hooks that end every way a hook ends; then what must hold afterwards.
Run through benches/prefork_stress.sh, which says what each phase does.

Usage: prefork_stress.py BIN PHASE CALLS CONCURRENCY
"""
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

BIN, PHASE, CALLS, CONCURRENCY = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
PY = sys.executable
# How long past its timeout a call may take to return, on a loaded machine: the kill grace
# (0.3 s), the pipe grace (0.5 s), a debug build's start-up and the load's share.
BOUND = float(os.environ.get("BOUND", "5"))
IDLE = 4  # the forkers' idle timeout in this run, seconds
MARK = "%d%d" % (os.getpid(), random.randrange(10**6))  # tells this run's sleepers apart

# name -> (script, timeout, how the outcome is checked)
HOOKS = {
    "fast": (
        "import json, sys\nd = json.load(sys.stdin)\nprint(d['tool_input']['n'], file=sys.stderr)\nsys.exit(2)\n",
        5,
    ),
    "json": (
        "import json, sys\nd = json.load(sys.stdin)\nprint(json.dumps({'decision': 'block', 'reason': d['tool_input']['n']}))\n",
        5,
    ),
    "chatty": (
        # Far more than the stderr cap on stderr, then the answer on stdout.
        "import json, sys\nd = json.load(sys.stdin)\nfor i in range(4000):\n    sys.stderr.write('noise %06d ' % i * 8 + '\\n')\n"
        "print(json.dumps({'decision': 'block', 'reason': d['tool_input']['n'], 'pad': 'x' * 200000}))\n",
        5,
    ),
    "flood": (
        # More than the stdout cap: the answer is refused, the hook is not blocked on its pipe.
        "import sys\nsys.stdin.read()\nchunk = 'y' * 65536\nfor _ in range(40):\n    sys.stdout.write(chunk)\n",
        5,
    ),
    "slow": (
        "import sys, time\nsys.stdin.read()\ntime.sleep(30)\n",
        1,
    ),
    "nonzero": (
        "import json, sys\nd = json.load(sys.stdin)\nprint(d['tool_input']['n'], file=sys.stderr)\nsys.exit(3)\n",
        5,
    ),
    "raises": (
        "import json, sys\nd = json.load(sys.stdin)\nraise ValueError(d['tool_input']['n'])\n",
        5,
    ),
    "sysexit": (
        "import json, sys\nd = json.load(sys.stdin)\nsys.exit(d['tool_input']['n'])\n",
        5,
    ),
    "grandchild": (
        # A process left in the hook's group: killed when the hook exits.
        "import json, subprocess, sys\nd = json.load(sys.stdin)\n"
        "subprocess.Popen(['sleep', '61.%s'], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(d['tool_input']['n'], file=sys.stderr)\nsys.exit(2)\n" % MARK,
        5,
    ),
    "holder": (
        # A forked helper keeps stdout open after the hook exits: the answer printed before is
        # kept at the timeout, and the helper is killed.
        "import json, os, sys, time\nd = json.load(sys.stdin)\nprint(json.dumps({'decision': 'block', 'reason': d['tool_input']['n']}))\n"
        "sys.stdout.flush()\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\n",
        3,
    ),
    "closeout": (
        "import json, os, sys\nd = json.load(sys.stdin)\nos.close(1)\nprint(d['tool_input']['n'], file=sys.stderr)\nsys.exit(2)\n",
        5,
    ),
    "selfkill": (
        "import os, signal, sys\nsys.stdin.read()\nos.kill(os.getpid(), signal.SIGKILL)\n",
        5,
    ),
    "noread": (
        # Never reads its input, which is larger than a pipe holds.
        "import json, sys\nprint(json.dumps({'decision': 'block', 'reason': 'noread'}))\n",
        5,
    ),
}


def check(name, nonce, out):
    """What is wrong with the outcome of one call of hook `name`, or None."""
    hooks = [h for h in out["hooks"] if h["hook"] == name]
    if len(hooks) != 1:
        return "ran %d times" % len(hooks)
    status = hooks[0]["status"]
    stderr = " ".join(d.get("detail") or "" for d in out.get("diagnostics", []) if d.get("type") == "hook_stderr")
    want = {
        "fast": ("blocked", nonce),
        "json": ("blocked", nonce),
        "chatty": ("blocked", nonce),
        "flood": ("invalid_output", None),
        "slow": ("timeout", None),
        "nonzero": ("error", None),
        "raises": ("error", None),
        "sysexit": ("error", None),
        "grandchild": ("blocked", nonce),
        "holder": ("blocked", nonce),
        "closeout": ("blocked", nonce),
        "selfkill": ("error", None),
        "noread": ("blocked", "noread"),
    }[name]
    if status != want[0]:
        return "status %s, expected %s: %s" % (status, want[0], json.dumps([h for h in out["hooks"] if h["status"] != "skipped"])[:600])
    if want[1] is not None and out.get("reason") != want[1]:
        return "reason %r, expected %r" % (out.get("reason"), want[1])
    if name in ("nonzero", "raises", "sysexit") and nonce not in stderr:
        return "stderr lacks %s: %r" % (nonce, stderr[:300])
    if name == "raises" and "Traceback" not in stderr:
        return "no traceback: %r" % stderr[:300]
    return None


def workspace(root):
    os.makedirs(os.path.join(root, "config"))
    os.makedirs(os.path.join(root, "hooks"))
    lines = ["hooks:"]
    for name, (source, timeout) in HOOKS.items():
        with open(os.path.join(root, "hooks", "h_%s.py" % name), "w") as f:
            f.write(source)
        lines += [
            "  - name: %s" % name,
            "    event: pre_tool_call",
            '    matcher: "@%s@"' % name,
            "    command: %s hooks/h_%s.py" % (PY, name),
            "    prefork: true",
            "    timeout: %d" % timeout,
        ]
    with open(os.path.join(root, "config", "shell_hooks.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    run_cli(root, "on")
    for name in HOOKS:
        approve(root, name)


def run_cli(root, *args):
    subprocess.run([BIN, "--workspace", root, *args], check=True, capture_output=True)


def approve(root, name):
    run_cli(root, "approve", "%s hooks/h_%s.py" % (PY, name))


def procs():
    """pid -> (ppid, cmdline) of every process."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open("/proc/%s/stat" % entry) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found[int(entry)] = (ppid, cmd)
    return found


def forkers(root):
    """The workspace's forkers: pid -> their children."""
    all_ = procs()
    ours = {pid for pid, (_, cmd) in all_.items() if "The forker of agent-hooks" in cmd and root in cmd}
    tops = {pid for pid in ours if all_[pid][0] not in ours}
    return {top: [pid for pid, (ppid, _) in all_.items() if ppid == top] for top in tops}


def rss(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            return int(next(line for line in f if line.startswith("VmRSS:")).split()[1])
    except (OSError, StopIteration, ValueError):
        return None


def fd_count(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return None


def sidecar_token():
    """The token a `serve --listen` sidecar wants on every request, from its token file."""
    state = os.environ.get("AGENT_HOOKS_STATE_DIR") or os.path.join(
        os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state"), "agent-hooks")
    with open(os.path.join(state, "sidecar.token")) as f:
        return f.read().strip()


class Storm:
    def __init__(self, root, names):
        self.root = root
        self.names = names
        self.failures = []
        self.results = []  # (name, seconds, status)
        self.lock = threading.Lock()
        self.next = 0
        self.allow_fallback = False
        self.allow_skip = False
        self.fallbacks = {}  # why -> how many calls
        self.allow_orphan = False
        self.port = None  # the sidecar's, when calls go through one
        self.orphaned = 0

    def one(self, i):
        name = self.names[i % len(self.names)]
        nonce = "%s-%d-%s" % (name, i, MARK)
        payload = {"tool_name": "@%s@" % name, "tool_input": {"n": nonce}}
        if name == "noread":
            payload["tool_input"]["pad"] = "z" * 300000
        timeout = HOOKS[name][1]
        env = dict(os.environ, AGENT_HOOKS_PREFORK_IDLE=str(IDLE))
        start = time.monotonic()
        if self.port is not None:
            self.one_http(name, nonce, payload, timeout, start)
            return
        try:
            done = subprocess.run(
                [BIN, "--workspace", self.root, "fire", "pre_tool_call"],
                input=json.dumps(payload).encode(), capture_output=True, env=env,
                timeout=timeout + 60,
            )
        except subprocess.TimeoutExpired:
            self.fail(name, nonce, "HUNG: no answer %d s past its timeout" % 60)
            return
        took = time.monotonic() - start
        if took > timeout + BOUND:
            self.fail(name, nonce, "took %.1f s (timeout %d s)" % (took, timeout))
        try:
            out = json.loads(done.stdout)
        except ValueError:
            self.fail(name, nonce, "exit %d, no JSON: %r %r" % (done.returncode, done.stdout[:200], done.stderr[:300]))
            return
        self.judge(name, nonce, out, took)

    def one_http(self, name, nonce, payload, timeout, start):
        """The call through the sidecar: `POST /v1/events/pre_tool_call`."""
        import http.client

        body = json.dumps(payload).encode()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout + 60)
        try:
            conn.request("POST", "/v1/events/pre_tool_call", body=body,
                         headers={"Content-Type": "application/json", "Host": "127.0.0.1:%d" % self.port,
                                  "Authorization": "Bearer %s" % sidecar_token()})
            response = conn.getresponse()
            data = response.read()
        except OSError as e:
            self.fail(name, nonce, "HUNG or failed: %s" % e)
            return
        finally:
            conn.close()
        took = time.monotonic() - start
        if took > timeout + BOUND:
            self.fail(name, nonce, "took %.1f s (timeout %d s)" % (took, timeout))
        try:
            out = json.loads(data)
        except ValueError:
            self.fail(name, nonce, "HTTP %d, no JSON: %r" % (response.status, data[:300]))
            return
        self.judge(name, nonce, out, took)

    def judge(self, name, nonce, out, took):
        """Checks the outcome `out` of one call, which took `took` seconds."""
        hook = [h for h in out["hooks"] if h["hook"] == name]
        status = hook[0]["status"] if hook else "missing"
        fell_back = [w for w in out.get("warnings", []) if "prefork" in w]
        with self.lock:
            self.results.append((name, took, status, fell_back))
            for why in fell_back:
                self.fallbacks[why.replace(MARK, "")] = self.fallbacks.get(why.replace(MARK, ""), 0) + 1
        if fell_back and not self.allow_fallback:
            self.fail(name, nonce, "fell back: %s" % out["warnings"])
        if self.allow_orphan and status == "error" and "the forker ended before it reported" in (hook[0]["detail"] or ""):
            # Its forker was killed with the call under way: reported, the hook's group killed.
            with self.lock:
                self.orphaned += 1
            return
        if self.allow_skip and (status == "skipped" or (status == "error" and "changed after its approval was checked" in (hook[0]["detail"] or ""))):
            # Drifted when the gate looked, or edited between the gate's look and the forker's.
            return
        why = check(name, nonce, out)
        if why:
            self.fail(name, nonce, why)

    def fail(self, name, nonce, why):
        with self.lock:
            self.failures.append("%s: %s" % (nonce, why))
            print("FAIL %s: %s" % (nonce, why), flush=True)

    def worker(self, calls):
        while True:
            with self.lock:
                i = self.next
                self.next += 1
            if i >= calls:
                return
            self.one(i)

    def run(self, calls, concurrency, during=None):
        self.next = 0
        threads = [threading.Thread(target=self.worker, args=(calls,)) for _ in range(concurrency)]
        for t in threads:
            t.start()
        if during is not None:
            during(lambda: any(t.is_alive() for t in threads))
        for t in threads:
            t.join()


def summary(storm):
    by = {}
    for name, took, status, fell_back in storm.results:
        by.setdefault(name, []).append((took, status, fell_back))
    for name, rows in sorted(by.items()):
        times = sorted(t for t, _, _ in rows)
        statuses = sorted(set(s for _, s, _ in rows))
        fb = sum(1 for _, _, f in rows if f)
        print("  %-10s %4d calls, median %.2f s, max %.2f s, statuses %s%s" % (
            name, len(rows), times[len(times) // 2], times[-1], ",".join(statuses),
            ", %d fell back" % fb if fb else ""))


def after(root, storm, expect_forkers=None):
    if storm.orphaned:
        print("  calls whose forker was killed under them: %d (error, reported)" % storm.orphaned)
    for why, count in sorted(storm.fallbacks.items()):
        print("  fell back %d times: %s" % (count, why[:300]))
    """What must hold once the storm is over."""
    # Nothing of a hook outlives its call: no sleeper of this run, no child of a forker beside
    # its spares (children that took a call may still be being reaped: give them a moment).
    def leftovers():
        left = [pid for pid, (_, cmd) in procs().items() if ("61.%s" % MARK) in cmd]
        extra = {f: kids for f, kids in forkers(root).items() if len(kids) > 2}
        return left, extra

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(leftovers()):
        time.sleep(0.2)
    left, extra = leftovers()
    if left:
        storm.failures.append("hook processes outlived their calls: %s" % left)
    if extra:
        storm.failures.append("forkers with more than their two spares: %s" % extra)
    fds = {f: fd_count(f) for f in forkers(root)}
    print("  forkers %s, their descriptors %s, resident KiB %s" % (sorted(fds), fds, {f: rss(f) for f in fds}))
    for f, n in fds.items():
        if n is not None and n > 16:
            storm.failures.append("forker %d holds %d descriptors" % (f, n))
    if expect_forkers is not None and len(fds) > expect_forkers:
        storm.failures.append("%d forkers, expected at most %d" % (len(fds), expect_forkers))
    # The forkers leave after their idle time.
    deadline = time.monotonic() + IDLE + 10
    while time.monotonic() < deadline and forkers(root):
        time.sleep(0.5)
    if forkers(root):
        storm.failures.append("forkers still running %d s after the last call: %s" % (IDLE + 10, forkers(root)))
    events = os.path.join(root, "logs", "events.jsonl")
    fallbacks = 0
    if os.path.exists(events):
        with open(events) as f:
            fallbacks = sum('"hook_prefork_fallback"' in line for line in f)
    print("  hook_prefork_fallback records: %d" % fallbacks)
    if fallbacks and not storm.allow_fallback:
        storm.failures.append("%d hook_prefork_fallback records" % fallbacks)


def kill_one_every(running, interval, candidates, what):
    """SIGKILLs one of `candidates()`, at random, every `interval` seconds while calls run."""
    killed = 0
    while running():
        time.sleep(interval)
        pids = candidates()
        if pids:
            try:
                os.kill(random.choice(pids), signal.SIGKILL)
                killed += 1
            except OSError:
                pass
    print("  %s killed: %d" % (what, killed))


def chaos_spares(root, running):
    """SIGKILLs a spare of a random forker every 0.3 s, once the forkers are up (a forker that
    is starting has a child of its own for a moment, which is not a spare)."""
    time.sleep(3)
    # A spare holds the workspace's socket and its report channel beside its three streams; a
    # child running a call holds its three streams only.
    kill_one_every(
        running,
        0.3,
        lambda: [kid for kids in forkers(root).values() for kid in kids if (fd_count(kid) or 0) > 3],
        "spares",
    )


def chaos_forkers(root, running):
    """SIGKILLs a random forker every second."""
    kill_one_every(running, 1, lambda: list(forkers(root)), "forkers")


def chaos_edits(root, running):
    """Edits a script and approves it again, or revokes a hook and approves it again, in turn."""
    n = 0
    while running():
        time.sleep(0.7)
        name = random.choice(["fast", "json", "nonzero"])
        path = os.path.join(root, "hooks", "h_%s.py" % name)
        if n % 2 == 0:
            with open(path, "a") as f:
                f.write("# edit %d\n" % n)
        else:
            run_cli(root, "revoke", "%s hooks/h_%s.py" % (PY, name))
        time.sleep(0.2)
        approve(root, name)
        n += 1
    print("  edits and revokes: %d" % n)


def main():
    global CONCURRENCY
    root = tempfile.mkdtemp(prefix="pf-stress-")
    try:
        workspace(root)
        names = list(HOOKS)
        storm = Storm(root, names)
        chaos = None
        if PHASE == "spares":
            chaos = lambda running: chaos_spares(root, running)
            storm.names = ["fast", "json", "slow", "chatty"]
        elif PHASE == "forkers":
            chaos = lambda running: chaos_forkers(root, running)
            storm.names = ["fast", "json", "slow", "nonzero"]
            # A forker killed as a spare takes a call from it may leave it to a plain process.
            storm.allow_fallback = True
            storm.allow_orphan = True
        elif PHASE == "burst":
            # Twice as many calls at once as CONCURRENCY, all of one hook: far more than its
            # spares, so most wait in the socket's queue for the next spare.
            storm.names = ["fast"]
            CONCURRENCY *= 2
        elif PHASE == "edits":
            chaos = lambda running: chaos_edits(root, running)
            storm.names = ["fast", "json", "nonzero"]
            storm.allow_skip = True
        server = None
        if PHASE.startswith("sidecar"):
            # The calls go to `agent-hooks serve`, whose forkers are its children.
            server = subprocess.Popen(
                [BIN, "--workspace", root, "serve", "--listen", "127.0.0.1:0"],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
            storm.port = int(server.stdout.readline().rsplit(b":", 1)[1])
            if PHASE == "sidecar-kill":
                chaos = lambda running: chaos_forkers(root, running)
                storm.names = ["fast", "json", "slow", "nonzero"]
                storm.allow_orphan = True
        start = time.monotonic()
        try:
            storm.run(CALLS, CONCURRENCY, chaos)
        finally:
            if server is not None:
                # Its forkers go with it.
                server.terminate()
                server.wait()
        print("phase %s: %d calls, %d at once, %.1f s" % (PHASE, CALLS, CONCURRENCY, time.monotonic() - start))
        summary(storm)
        after(root, storm, expect_forkers=None if PHASE == "edits" else len(storm.names))
        if storm.failures:
            print("FAIL: %d problems" % len(storm.failures))
            for why in storm.failures[:40]:
                print("  " + why)
            return 1
        print("PASS")
        return 0
    finally:
        subprocess.run(["rm", "-rf", root])


sys.exit(main())
