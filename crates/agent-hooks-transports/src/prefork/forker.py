# The forker of agent-hooks (`prefork: true`): started as `<python> [flags] -c <this>` by the
# runtime, which then writes its configuration (the environment included, so never on the
# command line) to its stdin. It compiles one approved hook script, imports what the script
# imports, and then forks one child per call that runs the compiled script as
# `python3 script.py` would.
# See crates/agent-hooks-transports/src/prefork/mod.rs for the protocol and the guarantees.
import sys

# `-c` put the working directory ("") first on sys.path, where `python3 script.py` puts the
# script's directory. Taken out before anything is imported, so that no module of the working
# directory (the workspace) is ever imported, by the forker or by the script; the script's
# directory goes first once the forker has imported all it needs for itself (below, and `_Script`).
_PATH0 = bool(sys.path) and sys.path[0] == ""
if _PATH0:
    del sys.path[0]
import os


class _OwnImports:
    """The forker keeps the modules it imports for itself out of sys.modules, so that what the
    script imports is told apart from what the forker needs, and a child sees only the
    script's: what is imported inside `with _OwnImports():` is taken out again at its end."""

    def __enter__(self):
        self.before = set(sys.modules)

    def __exit__(self, *_):
        for name in set(sys.modules) - self.before:
            del sys.modules[name]


# Everything the forker itself uses, imported now, before the script's directory is on
# sys.path: a `socket.py` beside the script can shadow the script's own imports, as it would in
# a plain run, but never the forker's.
with _OwnImports():
    import array as _array
    import fcntl as _fcntl
    import json as _json  # the protocol's
    import mmap as _mmap
    import select as _select
    import signal as _signal
    import socket as _socket

    try:
        import ctypes as _ctypes
    except ImportError:
        _ctypes = None


class _Drifted(Exception):
    """The script on disk is no longer the content whose approval the runtime checked."""


def _script_scan(source, sha256):
    """Checks the script's bytes against the approved hash, and lists the modules it imports and
    the regular expressions its code compiles from literals, in a throw-away child, so that
    neither `hashlib` nor `ast` is left in this process."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            import ast
            import hashlib

            if hashlib.sha256(source).hexdigest() != sha256:
                out = "!the script's content is not the approved content"
            else:
                tree = ast.parse(source)
                names = []
                for node in ast.walk(tree):
                    if isinstance(node, ast.Import):
                        names.extend(alias.name for alias in node.names)
                    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                        names.append(node.module)
                patterns = _regex_literals(ast, tree) if "re" in names else []
                out = _json.dumps({"imports": list(dict.fromkeys(names)), "patterns": patterns})
        except BaseException as e:  # a SyntaxError is reported by compile() below
            out = "?" + repr(e)
        data = out.encode()
        while data:
            data = data[os.write(w, data):]
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode()
    if text.startswith("!"):
        raise _Drifted(text[1:])
    if text.startswith("?"):
        return [], []
    found = _json.loads(text)
    return found["imports"], found["patterns"]


# Where each function of `re` takes its flags, positionally.
_RE_FLAGS_AT = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2,
                "finditer": 2, "split": 3, "sub": 4, "subn": 4}


def _regex_literals(ast, tree):
    """The (kind, pattern, flags) of each `re.compile(...)` (or `re.search(...)`, ..., or a
    name bound to `re.compile`) in the script whose pattern and flags are literals, or module
    constants and `+` of them. Only those that compile without an error or a warning: a call
    that warns or fails must do so in the run itself, as it would in a fresh interpreter."""
    import re
    import warnings

    modules, compilers, constants = {"re"}, set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(a.asname or a.name for a in node.names if a.name == "re")
        elif isinstance(node, ast.ImportFrom) and node.module == "re" and node.level == 0:
            compilers.update(a.asname or a.name for a in node.names if a.name == "compile")

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            return node.value
        if isinstance(node, ast.Name):
            return constants.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = value(node.left), value(node.right)
            if left is not None and type(left) is type(right):
                return left + right
        return None

    def flags(node):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            flag = getattr(re, node.attr, None)
            return int(flag) if isinstance(flag, re.RegexFlag) else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left, right = flags(node.left), flags(node.right)
            return None if left is None or right is None else left | right
        return None

    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name, bound = stmt.targets[0].id, stmt.value
            constants.pop(name, None)
            compilers.discard(name)
            if value(bound) is not None:
                constants[name] = value(bound)
            elif (isinstance(bound, ast.Attribute) and bound.attr == "compile"
                  and isinstance(bound.value, ast.Name) and bound.value.id in modules):
                compilers.add(name)

    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in compilers:
            at = 1
        elif (isinstance(func, ast.Attribute) and func.attr in _RE_FLAGS_AT
              and isinstance(func.value, ast.Name) and func.value.id in modules):
            at = _RE_FLAGS_AT[func.attr]
        else:
            continue
        pattern = value(node.args[0])
        flag_node = node.args[at] if len(node.args) > at else None
        for keyword in node.keywords:
            if keyword.arg == "flags":
                flag_node = keyword.value
        flag = 0 if flag_node is None else flags(flag_node)
        if pattern is None or flag is None:
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                re.compile(pattern, flag)
            except Exception:
                continue
        if caught:
            continue
        if isinstance(pattern, bytes):
            found.append(("b", pattern.decode("latin-1"), flag))
        else:
            found.append(("s", pattern, flag))
    # Well inside the interpreter's cache of compiled patterns (512 since 3.7), so that the
    # script's own first compilations do not push these out.
    return list(dict.fromkeys(map(tuple, found)))[:256]


def _stdio(fd, name, like, write):
    """A fresh `sys.std*` on `fd`, made the way the interpreter makes its own at start-up (the
    forker's own stream `like` carries the encoding, errors and buffering it chose)."""
    import io

    unbuffered = write and like.write_through
    buffered = io.open(fd, "wb" if write else "rb", buffering=0 if unbuffered else -1, closefd=False)
    raw = buffered if unbuffered else buffered.raw
    raw.name = name
    stream = io.TextIOWrapper(
        buffered,
        encoding=like.encoding,
        errors=like.errors,
        newline="\n",
        line_buffering=like.line_buffering,
        write_through=like.write_through,
    )
    stream.mode = "w" if write else "r"
    return stream


class _Script:
    """The approved script, compiled, with what a run needs."""

    def __init__(self, cfg):
        self.path = cfg["script"]
        with open(self.path, "rb") as f:
            source = f.read()
        self.imports, self.patterns = _script_scan(source, cfg["sha256"])
        self.code = compile(source, self.path, "exec", dont_inherit=True)
        self.argv0 = cfg["orig_argv"]
        # `python3 script.py` puts the script's directory first on sys.path where `-c` put ""
        # (taken out at the start); not before the scan above, whose child imports for the
        # forker.
        if _PATH0:
            sys.path.insert(0, os.path.dirname(os.path.realpath(self.path)))

    def preload(self):
        for name in self.imports:
            try:
                __import__(name)
            except BaseException:
                pass  # the run itself meets the same error where the script imports it
        # The script's literal patterns, compiled into `re`'s own cache: in a child the
        # script's `re.compile` of one is a cache hit, the same object a first compile makes.
        re = sys.modules.get("re")
        if re is not None:
            for kind, pattern, flags in self.patterns:
                try:
                    re.compile(pattern.encode("latin-1") if kind == "b" else pattern, flags)
                except Exception:
                    pass

    def enter(self, env, cwd, argv, hidden):
        """Makes this process look like a fresh `python3 script.py` about to run its body."""
        import atexit

        self.place(env, cwd, argv)
        for name in hidden:
            sys.modules.pop(name, None)
        atexit._clear()
        for fd, attr, write in ((0, "stdin", False), (1, "stdout", True), (2, "stderr", True)):
            stream = _stdio(fd, "<%s>" % attr, getattr(sys, "__%s__" % attr), write)
            setattr(sys, attr, stream)
            setattr(sys, "__%s__" % attr, stream)
        main = type(sys)("__main__")
        main.__file__ = self.path
        main.__cached__ = None
        main.__builtins__ = sys.modules["builtins"]
        main.__loader__ = sys.modules["_frozen_importlib_external"].SourceFileLoader(
            "__main__", self.path
        )
        sys.modules["__main__"] = main
        return main

    def place(self, env, cwd, argv):
        """The call's working directory, environment and `sys.argv`."""
        os.chdir(cwd)
        # Only what differs from the forker's own environment is set (each set is a putenv).
        for name in [n for n in os.environ if n not in env]:
            del os.environ[name]
        for name, value in env.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
        sys.argv = list(argv)
        sys.orig_argv = list(self.argv0) + list(argv[1:])


def _run(script, main, ending):
    """Runs the script's body and ends the process as the interpreter ends `python3 script.py`:
    the exit status of SystemExit or of an uncaught exception (its traceback on stderr), then
    non-daemon threads joined, atexit handlers, the script's globals released (so a file it
    left open is flushed), the standard streams flushed. The rest of the interpreter's
    teardown is skipped: it would touch every page the forker shares with this child.
    With nothing of the script left to run, the standard streams are closed and the status
    told on `ending` before the process exits."""
    interrupted = False
    try:
        exec(script.code, main.__dict__)
        status = 0
    except SystemExit as e:
        status = _exit_status(e.code)
    except BaseException:
        kind, value, tb = sys.exc_info()
        # The traceback starts at the script, as `python3 script.py` prints it.
        tb = tb.tb_next
        value.__traceback__ = tb
        sys.last_type, sys.last_value, sys.last_traceback = kind, value, tb
        try:
            sys.excepthook(kind, value, tb)
        except BaseException:
            pass
        interrupted = issubclass(kind, KeyboardInterrupt)
        del kind, value, tb
        status = 1
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException:
            pass
    import atexit

    atexit._run_exitfuncs()
    main.__dict__.clear()
    for name in ("last_type", "last_value", "last_traceback"):
        if hasattr(sys, name):
            delattr(sys, name)
    try:
        sys.stdout.flush()
    except BaseException:
        status = 120
    try:
        sys.stderr.flush()
    except BaseException:
        pass
    for fd in (0, 1, 2):
        try:
            os.close(fd)
        except OSError:
            pass
    # Nothing of the hook is left but the kernel's teardown of this process: it yields to the
    # runtime, which has the call's answer to finish.
    try:
        os.nice(19)
    except OSError:
        pass
    if interrupted:
        signal = _signal
        ending.tell(_Ending.SIGNAL, signal.SIGINT)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    ending.tell(_Ending.EXIT, status & 0xFF)
    os._exit(status & 0xFF)


class _Ending:
    """Memory shared by the forker and one child, on which the child tells how it ends just
    before it exits. The kernel takes a forked interpreter's address space apart before its
    parent can reap it (most of a millisecond here): told first, the forker answers the
    runtime while that goes on. Memory, not a descriptor: the hook sees no file of it.
    A child of the first calls also leaves there the pages it wrote (see `_Hot`)."""

    EXIT = 1
    SIGNAL = 2
    SIZE = 1 << 16

    def __init__(self, mmap, signal, hot):
        self.page = mmap.mmap(-1, _Ending.SIZE)
        self.forker = os.getpid()
        self.child = None
        self.notify = signal.SIGUSR1
        self.hot = hot
        self.learns = hot is not None and hot.wants_more()
        self.heard = False
        self.own = frozenset()  # the child's own pages before its call: not the call's doing

    def forked(self):
        """In the child: this process is the one whose end is told."""
        self.child = os.getpid()

    def tell(self, kind, value):
        # A process the script forked ends through here too: its end is not the hook's.
        if os.getpid() != self.child:
            return
        if self.learns:
            pages = [page for page in self.hot.written() if page not in self.own]
            pages = pages[: (_Ending.SIZE - 16) // 8]
            self.page[8:12] = len(pages).to_bytes(4, "little")
            self.page[16 : 16 + 8 * len(pages)] = self.hot.array.array("Q", pages).tobytes()
        self.page[0:2] = bytes((value, kind))
        if os.getppid() == self.forker:
            try:
                os.kill(self.forker, self.notify)
            except OSError:
                pass

    def told(self):
        """In the forker: {"exit": code} or {"signal": number}, once the child has told it."""
        value, kind = self.page[0], self.page[1]
        if kind == _Ending.EXIT:
            told = {"exit": value}
        elif kind == _Ending.SIGNAL:
            told = {"signal": value}
        else:
            return None
        if self.learns and not self.heard:
            self.heard = True
            count = int.from_bytes(self.page[8:12], "little")
            pages = self.hot.array.array("Q")
            pages.frombytes(self.page[16 : 16 + 8 * count])
            self.hot.learn(pages)
        return told


class _Hot:
    """The pages of the forker's memory that calls write to. Each such page is shared with the
    forker until a child writes to it, and the kernel then stops the child to copy it: a few
    microseconds a page, a hundred pages and more for a call of a small script (reference
    counts, allocations). The first calls' children list the pages they wrote (those that
    became their own during the call, from /proc/self/pagemap) before they tell their end;
    a spare then has those copied (MADV_POPULATE_WRITE, the contents unchanged) while it
    waits for its call.
    Needs Linux 5.14 or later and ctypes; without them, pages are copied as calls write them."""

    LEARN = 3  # calls whose children list the pages they wrote
    POPULATE_WRITE = 23  # MADV_POPULATE_WRITE
    PRESENT_OWN = (1 << 63) | (1 << 56)  # a pagemap entry's "present" and "exclusively mapped"

    @staticmethod
    def make(mmap):
        try:
            array, ctypes = _array, _ctypes
            madvise = ctypes.CDLL(None, use_errno=True).madvise
            madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
            madvise.restype = ctypes.c_int
            probe = ctypes.create_string_buffer(2 * mmap.PAGESIZE)
            start = -ctypes.addressof(probe) % mmap.PAGESIZE + ctypes.addressof(probe)
            if madvise(start, mmap.PAGESIZE, _Hot.POPULATE_WRITE) != 0:
                return None
            os.close(os.open("/proc/self/pagemap", os.O_RDONLY))
        except Exception:
            return None
        return _Hot(array, madvise, mmap.PAGESIZE)

    def __init__(self, array, madvise, size):
        self.array = array
        self.madvise = madvise
        self.size = size
        self.pages = set()
        self.runs = []  # [start, end) of the pages, merged
        self.learned = 0

    def wants_more(self):
        return self.learned < _Hot.LEARN

    def learn(self, pages):
        """In the forker: what a child wrote, for the spares forked from now on."""
        self.learned += 1
        self.pages.update(pages)
        runs = []
        for page in sorted(self.pages):
            if runs and runs[-1][1] == page:
                runs[-1][1] = page + self.size
            else:
                runs.append([page, page + self.size])
        self.runs = runs

    def written(self):
        """In a child: the pages of its private memory that are now its own."""
        found = []
        fd = os.open("/proc/self/pagemap", os.O_RDONLY)
        try:
            for start, end in _private_memory():
                entries = self.array.array("Q")
                entries.frombytes(os.pread(fd, (end - start) // self.size * 8, start // self.size * 8))
                for i, entry in enumerate(entries):
                    if entry & _Hot.PRESENT_OWN == _Hot.PRESENT_OWN:
                        found.append(start + i * self.size)
        finally:
            os.close(fd)
        return found

    def copy_ahead(self):
        """In a spare: has the learned pages copied, where they are still this process's
        private memory."""
        regions = _private_memory()
        i = 0
        for start, end in self.runs:
            while i < len(regions) and regions[i][1] <= start:
                i += 1
            j = i
            while j < len(regions) and regions[j][0] < end:
                low, high = max(start, regions[j][0]), min(end, regions[j][1])
                self.madvise(low, high - low, _Hot.POPULATE_WRITE)
                j += 1


def _private_memory():
    """The process's private, writable, anonymous memory (its heap), as sorted [start, end)."""
    regions = []
    with open("/proc/self/maps", "rb") as f:
        for line in f:
            fields = line.split()
            if fields[1] != b"rw-p" or fields[4] != b"0" or fields[5:] not in ([], [b"[heap]"]):
                continue
            start, end = fields[0].split(b"-")
            start, end = int(start, 16), int(end, 16)
            if end - start <= 1 << 28:
                regions.append((start, end))
    return regions


def _exit_status(code):
    """The exit status `SystemExit(code)` gives, as the interpreter maps it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    try:
        sys.stderr.write(str(code) + "\n")
    except BaseException:
        pass
    return 1


def _serve(cfg):
    """The forker's loop. Returns, in a forked child only, what that child does next: run the
    call it was forked for, or, serving the workspace, wait for the next call as the spare."""
    lock = None
    if cfg.get("listen"):
        # The runtime that started this forker may stop waiting for it (its call's time ran
        # out) and leave it starting for the next calls: a start-up that hangs (an import that
        # never returns) must not hold the socket's claim for ever.
        _alarm(cfg.get("start_seconds"))
        lock = _claim(cfg)
        if lock is None:
            _tell_started(b'{"ready": true, "already": true}\n')
            return None
    script = _Script(cfg)
    script.preload()
    warmup = cfg.get("warmup")
    if warmup is not None:
        _warm_up(script, cfg, warmup)
    import gc

    # Objects made so far are never collected in a child: its collections leave the pages it
    # shares with the forker alone.
    gc.freeze()
    # What the script loaded stays for its children; whatever the forker loads from here on is
    # taken out of a child's sys.modules, so the script's own `import socket` is a fresh one.
    loaded = set(sys.modules)
    import time

    mmap, select, signal, socket = _mmap, _select, _signal, _socket

    # Only spares, which wait for their calls, can take the time to copy pages ahead.
    hot = _Hot.make(mmap) if cfg.get("listen") else None

    listener = None
    control = None
    # Serving the workspace, the forker keeps SPARES children forked ahead of the next calls: a
    # spare accepts a call itself, so neither the fork nor a wake-up of the forker is part of
    # the call's time. A spare tells the forker which call it took on `report`.
    report = None
    spares_end = None
    if cfg.get("listen"):
        listener = _listen(cfg, socket, lock)
        report, spares_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        report.setblocking(False)
    else:
        control = socket.socket(fileno=os.dup(0))
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.close(null)

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGUSR1, lambda *_: None)  # a child told how it ends
    running = {}  # pid -> the call socket its status goes to
    endings = {}  # pid -> the page each child tells its end on
    watching = {}  # call socket's descriptor -> pid: its closing means the runtime gave up
    answered = {}  # call socket's descriptor -> socket, told the end before the runtime is done
    spares = set()  # the children waiting for the next calls
    spare_at = 0.0  # when a spare may be forked (later after one died without a call)
    source = report if report is not None else control
    poller = select.poll()
    poller.register(source.fileno(), select.POLLIN)
    poller.register(wake_r, select.POLLIN)
    if control is not None:
        control.send(_json.dumps({"ready": True}).encode())
    else:
        _tell_started(b'{"ready": true}\n')
        signal.alarm(0)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    def take_reports():
        """Registers the calls spares took since the last look."""
        nonlocal spare_at
        if report is None:
            return
        for pid, call in _reports(report, socket):
            running[pid] = call
            watching[call.fileno()] = pid
            poller.register(call.fileno(), select.POLLIN)
            _touch(cfg)
            if pid in spares:
                # Its replacement is forked when this call ends, or after SPARE_DELAY if it
                # runs on: a fork beside the call's own run would compete with it for the
                # CPU and the forker's memory, and calls mostly come one after another.
                spares.discard(pid)
                spare_at = max(spare_at, time.monotonic() + SPARE_DELAY)

    idle = cfg.get("idle_seconds") or 0
    draining = False
    watched = _watched(cfg)
    check_at = 0.0  # when the script and the approvals are looked at next
    while True:
        if spares_end is not None and len(spares) < SPARES and not draining and time.monotonic() >= spare_at:
            try:
                ending = _Ending(mmap, signal, hot)
                pid = os.fork()
            except OSError:
                pid = None  # tried again at the next turn
                spare_at = time.monotonic() + 1
            if pid == 0:
                _forked(ending)
                # Everything of the forker goes with this frame (its sockets close as it
                # unwinds); its raw descriptors are closed here.
                for fd in (wake_r, wake_w, cfg.pop("_lock_fd")):
                    os.close(fd)
                start = {key: cfg[key] for key in ("env", "cwd", "argv")}
                start["request"] = cfg["request"].encode() if "request" in cfg else None
                return ("spare", script, listener, spares_end, loaded, start, ending)
            if pid is not None:
                _own_group(pid)
                spares.add(pid)
                endings[pid] = ending
        wait = 1000
        if spares_end is not None and len(spares) < SPARES and not draining:
            wait = max(0, min(wait, int((spare_at - time.monotonic()) * 1000) + 1))
        events = poller.poll(wait)
        for fd, _ in events:
            if fd == wake_r:
                try:
                    os.read(wake_r, 512)
                except BlockingIOError:
                    pass
            elif fd in answered:
                # The runtime is done with a call its child told the end of: a spare forked
                # from now on no longer competes with it for the CPU.
                poller.unregister(fd)
                answered.pop(fd).close()
                spare_at = min(spare_at, time.monotonic())
            elif fd in watching:
                # The runtime sends nothing after the request: the call socket turning readable
                # means it closed its end, having stopped waiting (a deadline, a dead caller).
                # Nothing of a call outlives the runtime's wait for it.
                pid = watching.pop(fd)
                poller.unregister(fd)
                if pid in running:
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except OSError:
                        pass
        # Before reaping: a spare reports its call before it runs the script.
        take_reports()
        ended = len(running)
        told = [(p, c, endings[p].told()) for p, c in running.items() if p in endings]
        for pid, call, end in [t for t in told if t[2] is not None]:
            # Told before it exits: the runtime has its status now; it is reaped later.
            del running[pid]
            watching.pop(call.fileno(), None)
            _send(call, end)
            answered[call.fileno()] = call
            ended -= 1  # replaced once the runtime is done with it, unless no spare is left
        for pid in _reap(running, endings, poller, watching, take_reports):
            if pid in spares:
                # It took no call (told to stop, or killed): replaced a second later, not at
                # once (spares that cannot live must not make a fork loop).
                spares.discard(pid)
                spare_at = time.monotonic() + 1
        if len(running) < ended or (spares_end is not None and not spares and answered):
            spare_at = 0.0
        if draining:
            if not running and not spares:
                return None
            continue
        if listener is not None:
            # The script or the approvals changed: looked at twice a second, not at every
            # wake-up of a call.
            stale = False
            if time.monotonic() >= check_at:
                check_at = time.monotonic() + 0.5
                stale = _watched(cfg) != watched
            if stale or (not running and idle and not events and _idle_for(cfg) > idle):
                # No new calls; the ones under way are reported before the forker exits.
                _unlisten(cfg)
                listener.close()
                if spares:
                    try:
                        # One message wakes every waiting spare: each sees it and leaves.
                        report.send(b"stop")
                    except OSError:
                        pass
                draining = True
            continue
        if not any(fd == source.fileno() for fd, _ in events):
            continue
        try:
            message, fds, _, _ = socket.recv_fds(control, 1 << 20, 4)
            if not message:
                return None  # the runtime is gone
            call = socket.socket(fileno=fds[0])
        except OSError:
            continue
        if _abandoned(call, select):
            # Given up on while it waited (the runtime's deadline passed): not started now.
            for fd in fds[1:]:
                os.close(fd)
            call.close()
            continue
        try:
            request = _json.loads(message)
            ending = _Ending(mmap, signal, hot)
            pid = os.fork()
        except Exception as e:
            _send(call, {"error": "cannot fork: %s" % e})
            for fd in fds[1:]:
                os.close(fd)
            call.close()
            continue
        if pid == 0:
            _forked(ending)
            control.detach()
            call.detach()
            return ("call", script, request, fds, loaded, ending)
        _own_group(pid)
        for fd in fds[1:]:
            os.close(fd)
        running[pid] = call
        endings[pid] = ending
        watching[call.fileno()] = pid
        poller.register(call.fileno(), select.POLLIN)
        _send(call, {"pid": pid})


# How many children wait for calls: with two, calls one after another each find a spare ready
# while the one taken is replaced, and two calls at once start at once.
SPARES = 2
# How long after a spare took a call that is still running its replacement is forked.
SPARE_DELAY = 0.02


def _forked(ending):
    """A child's first steps: its own process group (the one a timeout kills), the forker's
    signal handling undone."""
    signal = _signal

    os.setpgid(0, 0)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    ending.forked()


def _own_group(pid):
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the child set it itself (or is already gone; its status says so)


def _take_call(script, listener, report, loaded, start, ending):
    """A spare's wait: accepts the next call on the workspace's socket, hands the call socket to
    the forker (which reports how this process ends), answers the runtime its pid, and returns
    what `_run` needs. Leaves when the forker tells it to or is gone.

    Everything that does not depend on the call is done before it comes, with the forker's own
    environment, working directory and arguments (a call's are nearly always the same): the
    descriptors closed, the standard streams made (on a pipe, as the call's are: a stream
    records what its descriptor is when it is made, and the call's pipes then take those
    descriptor numbers), `__main__` made."""
    select, socket = _select, _socket
    _close_above_stdio(keep=(listener.fileno(), report.fileno()))
    r, w = os.pipe()
    os.dup2(r, 0)
    os.dup2(w, 1)
    os.dup2(w, 2)
    os.close(r)
    os.close(w)
    main = script.enter(start["env"], start["cwd"], start["argv"], set(sys.modules) - loaded)
    if ending.hot is not None:
        ending.hot.copy_ahead()
        if ending.learns:
            # Its own already: written while it waited, or left to it by the forker's writes.
            ending.own = frozenset(ending.hot.written())
    # A call wakes one waiting spare (EPOLLEXCLUSIVE, Linux 4.5): the others would only compete
    # with it and with the runtime for the CPU, and lose the accept. Where that is not to be
    # had, every spare wakes and those that lose the accept wait again. The forker's "stop"
    # wakes them all.
    listener.setblocking(False)
    try:
        poller = select.epoll(2)
        poller.register(listener.fileno(), select.EPOLLIN | select.EPOLLEXCLUSIVE)
    except (AttributeError, OSError):
        poller = select.poll()
        poller.register(listener.fileno(), select.POLLIN)
    poller.register(report.fileno(), select.POLLIN)
    while True:
        events = poller.poll()
        if any(fd == report.fileno() for fd, _ in events):
            os._exit(0)
        try:
            call, _ = listener.accept()
        except OSError:
            continue
        if not _same_user(call, socket):
            call.close()
            continue
        try:
            message, fds = _receive(call, socket, 3)
        except OSError:
            call.close()
            continue
        if _abandoned(call, select):
            # The runtime gave up on this call while it waited in the queue (its deadline
            # passed on a busy machine) and has answered it: the hook must not start now.
            for fd in fds:
                os.close(fd)
            call.close()
            continue
        forker_gone = False
        try:
            # Nearly always the very request the forker was started with: nothing to read.
            request = start if message == start["request"] else _json.loads(message)
            socket.send_fds(report, [b"%d" % os.getpid()], [call.fileno()])
        except ValueError:
            request = None
        except OSError:
            request, forker_gone = None, True
        if request is None:
            # Unanswered, the runtime runs the hook as a plain process and says so.
            for fd in fds:
                os.close(fd)
            call.close()
            if forker_gone:
                os._exit(0)
            continue
        _send(call, {"pid": os.getpid()})
        for fd, target in zip(fds, (0, 1, 2)):
            os.dup2(fd, target)
        # Nothing but the call's own three streams crosses into the hook: these are all the
        # descriptors this process holds beside them.
        if hasattr(poller, "close"):
            poller.close()
        for fd in fds + [call.detach(), listener.detach(), report.detach()]:
            os.close(fd)
        if request is not start:
            placed = (request["env"], request["cwd"], request["argv"])
            if placed != (start["env"], start["cwd"], start["argv"]):
                script.place(*placed)
        return script, main, ending


def _abandoned(call, select):
    """Whether the runtime has closed its end of a call socket. It sends nothing after the
    request, so the socket turns readable only when it is closed."""
    poller = select.poll()
    poller.register(call.fileno(), select.POLLIN)
    return bool(poller.poll(0))


def _reports(report, socket):
    """The calls spares took since the last look: (pid, call socket)."""
    taken = []
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(report, 64, 1)
        except (BlockingIOError, InterruptedError):
            return taken
        if not fds:
            continue
        try:
            pid = int(message)
        except ValueError:
            os.close(fds[0])
            continue
        # What the socket is, said rather than asked of the kernel.
        taken.append((pid, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fds[0])))


def _send(call, message):
    try:
        call.sendall((_json.dumps(message) + "\n").encode())
    except OSError:
        pass  # the runtime stopped waiting; nothing more to tell


def _reap(running, endings, poller, watching, take_reports):
    """Reports how each ended call's process ended (as it told it, when it did); returns the
    other children that ended."""
    others = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return others
        if pid == 0:
            return others
        ending = endings.pop(pid, None)
        told = ending.told() if ending is not None else None
        if ending is not None:
            ending.page.close()
        if pid not in running:
            # A spare that took a call sent its report before it ran the script, so the report
            # is queued by now even if the last look at the reports came before it: an ended
            # child is matched with its call before it counts as a spare that took none.
            take_reports()
        call = running.pop(pid, None)
        if call is None:
            others.append(pid)
            continue
        if told is None:
            if os.WIFSIGNALED(status):
                told = {"signal": os.WTERMSIG(status)}
            else:
                told = {"exit": os.waitstatus_to_exitcode(status)}
        _answer_end(call, told, poller, watching)


def _answer_end(call, told, poller, watching):
    """Tells the runtime how its call's process ended; the call is over."""
    if watching.pop(call.fileno(), None) is not None:
        poller.unregister(call.fileno())
    _send(call, told)
    call.close()


def _receive(call, socket, maxfds):
    """One length-prefixed request and the descriptors that came with it."""
    data, fds, _, _ = socket.recv_fds(call, 1 << 16, maxfds)
    if len(data) < 4:
        raise OSError("short request")
    size = int.from_bytes(data[:4], "big")
    data = data[4:]
    while len(data) < size:
        more = call.recv(size - len(data))
        if not more:
            raise OSError("short request")
        data += more
    if len(fds) != maxfds:
        for fd in fds:
            os.close(fd)
        raise OSError("expected %d descriptors" % maxfds)
    return data, fds


def _same_user(call, socket):
    try:
        # struct ucred: pid, uid, gid, three C ints.
        creds = call.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    except (AttributeError, OSError):
        return True  # no SO_PEERCRED here: the socket's mode (0600, in a 0700 directory) decides
    return int.from_bytes(creds[4:8], sys.byteorder) == os.getuid()


def _alarm(seconds):
    """Ends this process (SIGALRM's default action) if it is still starting after `seconds`."""
    if not seconds:
        return
    _signal.alarm(max(1, int(seconds + 0.999)))


def _tell_started(line):
    """Tells the runtime that started this forker how its start went, if it still waits."""
    try:
        os.write(1, line)
    except OSError:
        pass  # it stopped waiting (its call's time ran out): the forker serves the next calls


def _claim(cfg):
    """The right to serve the workspace's socket for this script, taken before anything of the
    script is loaded: of several forkers started at once (the first calls of several processes),
    one loads the script and runs its warm-up, and the others wait until it listens and leave
    the calls to it. Returns the lock's descriptor, or None once another forker listens. A
    forker that fails to start lets go of the lock as it exits, and the next one takes it (the
    runtime stops waiting for a forker at its start-up timeout)."""
    with _OwnImports():
        import time

        fcntl, socket = _fcntl, _socket
        lock = os.open(cfg["lock"], os.O_RDWR | os.O_CREAT, 0o600)
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return lock
            except OSError:
                pass
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                _at_socket(cfg["listen"], probe.connect)
            except OSError:
                time.sleep(0.01)
                continue
            finally:
                probe.close()
            os.close(lock)
            return None


def _listen(cfg, socket, lock):
    """Binds the workspace's socket for this script; `lock` is the claim on it."""
    path = cfg["listen"]
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        _at_socket(path, listener.bind)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    cfg["_ino"] = os.stat(path).st_ino
    listener.listen(64)
    _touch(cfg)
    cfg["_lock_fd"] = lock
    return listener


def _at_socket(path, act):
    """`act` (bind, connect) on the socket file `path`, through its directory's descriptor when
    the path is longer than an AF_UNIX address holds (108 bytes; a deep workspace)."""
    if len(os.fsencode(path)) < 108:
        return act(path)
    directory = os.open(os.path.dirname(path), os.O_PATH | os.O_DIRECTORY)
    try:
        return act("/proc/self/fd/%d/%s" % (directory, os.path.basename(path)))
    finally:
        os.close(directory)


def _unlisten(cfg):
    """Takes this forker's socket away, unless a newer forker has bound the name already, and
    lets go of the name: while this forker finishes the calls under way, the next call starts
    a fresh one (one still holding the lock would make every call meanwhile a plain process)."""
    try:
        if os.stat(cfg["listen"]).st_ino == cfg.get("_ino"):
            os.unlink(cfg["listen"])
    except OSError:
        pass
    lock = cfg.pop("_lock_fd", None)
    if lock is not None:
        os.close(lock)


def _touch(cfg):
    import time

    cfg["_last"] = time.monotonic()


def _idle_for(cfg):
    import time

    return time.monotonic() - cfg.get("_last", 0)


def _watched(cfg):
    """What makes a listening forker stale: its script and the approvals file (any approve or
    revoke stops every forker of the workspace; the next call starts a fresh one)."""
    marks = []
    for path in (cfg["script"], cfg.get("approvals")):
        if not path:
            continue
        try:
            st = os.stat(path)
            marks.append((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
        except OSError:
            marks.append(None)
    return marks


def _warm_up(script, cfg, payload):
    """Runs the script once in this process on the chosen payload, output discarded, so that
    what it loads and caches on a run is loaded before the first fork."""
    import atexit

    saved = [os.dup(fd) for fd in (0, 1, 2)]
    saved_streams = (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__)
    saved_state = (list(sys.argv), sys.modules.get("__main__"), dict(os.environ), os.getcwd())
    r, w = os.pipe()
    data = payload.encode()
    pid = os.fork()
    if pid == 0:  # feeds the payload, whatever its size
        os.close(r)
        while data:
            data = data[os.write(w, data):]
        os._exit(0)
    os.close(w)
    os.dup2(r, 0)
    os.close(r)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    try:
        main = script.enter(cfg["env"], cfg["cwd"], cfg["argv"], [])
        try:
            exec(script.code, main.__dict__)
        except BaseException:
            pass
        del main
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
    finally:
        atexit._clear()
        for fd, copy in zip((0, 1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
        (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__) = saved_streams
        argv, main, env, cwd = saved_state
        sys.argv = argv
        sys.modules["__main__"] = main
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        os.waitpid(pid, 0)


def _close_above_stdio(keep=()):
    """Closes every descriptor but 0, 1 and 2 (and `keep`)."""
    try:
        open_fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        open_fds = range(3, 4096)
    for fd in open_fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _child(call):
    script, request, fds, loaded, ending = call
    hidden = set(sys.modules) - loaded
    for fd, target in zip(fds[1:], (0, 1, 2)):
        os.dup2(fd, target)
    # Nothing but the call's own three streams crosses into the hook.
    _close_above_stdio()
    main = script.enter(request["env"], request["cwd"], request["argv"], hidden)
    _run(script, main, ending)


if sys.version_info < (3, 9):
    os.write(1, b'{"error": "prefork needs Python 3.9 or later (socket.send_fds)"}\n')
    raise SystemExit(3)
def _read_config():
    """The configuration the runtime writes to stdin: its length (8 bytes, big-endian), then
    the bytes. Stdin may be a pipe or a SOCK_SEQPACKET socket sent in pieces of a message each:
    every read asks for all that is left, so it takes a whole piece."""

    def exactly(n):
        chunks = []
        while n:
            chunk = os.read(0, n)
            if not chunk:
                raise EOFError("the runtime closed stdin before the whole configuration came")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    size = int.from_bytes(exactly(8), "big")
    return _json.loads(exactly(size))


try:
    _CONFIG = _read_config()
except Exception as e:
    _tell_started(_json.dumps({"error": "cannot read the configuration: %s" % e}).encode() + b"\n")
    raise SystemExit(3)
if _CONFIG.get("listen"):
    # Stdin was the configuration's pipe; nothing more comes on it.
    _null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(_null, 0)
    os.close(_null)

# A forker may outlive the process that started it: it must not hold that process's
# descriptors (a pipe its caller waits on to close, say). Its own channel is on stdin.
_close_above_stdio()
try:
    _CALL = _serve(_CONFIG)
except Exception as e:
    if isinstance(e, _Drifted):
        # Edited between the runtime's check and this read: the runtime must not run it either.
        message = _json.dumps({"error": str(e), "drifted": True})
    else:
        message = _json.dumps({"error": "%s: %s" % (type(e).__name__, e)})
    if _CONFIG.get("listen"):
        _tell_started((message + "\n").encode())
    else:
        try:
            _socket.socket(fileno=0).send(message.encode())
        except OSError:
            pass
    raise SystemExit(3)
if _CALL is None:
    raise SystemExit(0)
del _CONFIG
if _CALL[0] == "spare":
    _run(*_take_call(*_CALL[1:]))
else:
    _child(_CALL[1:])
