#!/usr/bin/env python3
"""Turns the public test suites of three peer command guards into data files of facts:
one JSON object a line, {id, command, expect, file, ...}, for the `peers` measurement
(crates/agent-hooks-guards/tests/peers.rs). Only cases the peer checks in its default
configuration are kept; the rest are counted as skipped with a reason.

    python3 benches/peers/convert.py safety-net   <checkout> [out.jsonl]
    python3 benches/peers/convert.py dcg          <checkout> [out.jsonl]
    python3 benches/peers/convert.py agentshield  <checkout> [out.jsonl]

<checkout> is a working tree of the peer's repository at the commit named in
crates/agent-hooks-guards/tests/peers/README.md. The summary goes to stderr.
"""

import collections
import json
import re
import sys
import tomllib
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parents[2] / "crates/agent-hooks-guards/tests/peers"


class Collector:
    def __init__(self, peer):
        self.peer = peer
        self.cases = []
        self.seen = set()
        self.skipped = collections.Counter()

    def add(self, case_id, command, expect, file, **extra):
        if expect not in ("block", "allow", "ask", "audit"):
            raise SystemExit(f"{file}: {case_id}: unknown verdict {expect!r}")
        key = (command, expect)
        if key in self.seen:
            self.skipped["duplicate of an earlier case (same command, same verdict)"] += 1
            return
        self.seen.add(key)
        row = {"id": case_id, "command": command, "expect": expect, "file": file}
        row.update(extra)
        self.cases.append(row)

    def skip(self, why, n=1):
        self.skipped[why] += n

    def write(self, out):
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", encoding="utf-8") as f:
            for row in self.cases:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        verdicts = collections.Counter(c["expect"] for c in self.cases)
        print(f"{self.peer}: {len(self.cases)} cases {dict(verdicts)} -> {out}", file=sys.stderr)
        for why, n in sorted(self.skipped.items()):
            print(f"  skipped {n}: {why}", file=sys.stderr)


# ---------------------------------------------------------------- TypeScript (safety-net)

JS_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f", "v": "\v"}


def js_string(src, i):
    """Reads a JS string literal starting at src[i]; returns (value or None, end).
    None means a template literal with `${}` (not a fact we can know statically)."""
    quote = src[i]
    out = []
    j = i + 1
    dynamic = False
    while j < len(src):
        c = src[j]
        if c == "\\":
            n = src[j + 1]
            if n == "x":
                out.append(chr(int(src[j + 2 : j + 4], 16)))
                j += 4
                continue
            if n == "u":
                if src[j + 2] == "{":
                    end = src.index("}", j)
                    out.append(chr(int(src[j + 3 : end], 16)))
                    j = end + 1
                else:
                    out.append(chr(int(src[j + 2 : j + 6], 16)))
                    j += 6
                continue
            if n == "\n":
                j += 2
                continue
            out.append(JS_ESCAPES.get(n, n))
            j += 2
            continue
        if quote == "`" and c == "$" and src[j + 1] == "{":
            dynamic = True
            depth = 0
            while True:
                if src[j] == "{":
                    depth += 1
                elif src[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            j += 1
            continue
        if c == quote:
            return (None if dynamic else "".join(out)), j + 1
        out.append(c)
        j += 1
    raise SystemExit("unterminated string literal")


def js_tokens(src):
    """Yields (kind, value, pos) with kind in ident, string, punct; skips comments."""
    i = 0
    n = len(src)
    prev = None
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
        elif src.startswith("//", i):
            i = src.find("\n", i)
            i = n if i < 0 else i
        elif src.startswith("/*", i):
            i = src.index("*/", i) + 2
        elif c in "'\"`":
            value, end = js_string(src, i)
            prev = ("string", value, i)
            yield prev
            i = end
        elif c == "/" and prev is not None and prev[0] == "punct" and prev[1] in "(,=:[!&|?;{}":
            # a regular expression literal
            j = i + 1
            in_class = False
            while src[j] != "/" or in_class:
                if src[j] == "\\":
                    j += 1
                elif src[j] == "[":
                    in_class = True
                elif src[j] == "]":
                    in_class = False
                j += 1
            j += 1
            while j < n and src[j].isalpha():
                j += 1
            prev = ("regex", src[i:j], i)
            yield prev
            i = j
        elif c.isalnum() or c in "_$":
            j = i
            while j < n and (src[j].isalnum() or src[j] in "_$"):
                j += 1
            prev = ("ident", src[i:j], i)
            yield prev
            i = j
        else:
            prev = ("punct", c, i)
            yield prev
            i += 1


def safety_net(root, col):
    tests = root / "tests"
    for path in sorted(tests.rglob("*.test.ts")):
        rel = path.relative_to(root).as_posix()
        src = path.read_text(encoding="utf-8")
        if "assertBlocked(" not in src and "assertAllowed(" not in src:
            continue
        if re.search(r"^function assert(Blocked|Allowed)", src, re.M):
            # The file defines its own helper that loads a custom rules file.
            n = len(re.findall(r"\bassert(?:Blocked|Allowed)\(", src)) - 2
            col.skip(f"{rel}: local helper with custom rules (non-default configuration)", n)
            continue
        safety_net_file(rel, src, col)


def safety_net_file(rel, src, col):
    toks = list(js_tokens(src))
    # Each open bracket remembers the call it belongs to and, for test()/it(), the name.
    stack = []
    names = []
    i = 0
    while i < len(toks):
        kind, value, _ = toks[i]
        if kind == "punct" and value in "([{":
            callee = toks[i - 1][1] if value == "(" and i and toks[i - 1][0] == "ident" else None
            label = None
            if callee in ("test", "it", "describe") and toks[i + 1][0] == "string":
                label = toks[i + 1][1]
            stack.append((callee, label))
            i += 1
            continue
        if kind == "punct" and value in ")]}":
            stack.pop()
            i += 1
            continue
        if kind == "ident" and value in ("assertBlocked", "assertAllowed") and toks[i + 1][1] == "(":
            args, end = call_args(toks, i + 1)
            i = end
            blocked = value == "assertBlocked"
            callees = [c for c, _ in stack]
            label = " > ".join(l for _, l in stack if l)
            if "withEnv" in callees:
                col.skip("set in a non-default mode through withEnv (strict/paranoid/worktree)")
                continue
            literal = [len(a) == 1 and a[0][0] == "string" and a[0][1] is not None for a in args]
            if not args or not literal[0]:
                col.skip("command is computed (loop variable, template or helper), not a literal")
                continue
            extra_args = len(args) - (2 if blocked else 1)
            if extra_args > 0:
                col.skip("runs in a prepared working directory (cwd argument)")
                continue
            col.add(
                label or f"{rel}:{toks[i][2]}",
                args[0][0][1],
                "block" if blocked else "allow",
                rel,
            )
            continue
        i += 1


def call_args(toks, open_idx):
    """Splits the tokens of a call's arguments at top-level commas."""
    depth = 0
    args = [[]]
    i = open_idx
    while True:
        kind, value, _ = toks[i]
        if kind == "punct" and value in "([{":
            depth += 1
            if depth > 1:
                args[-1].append(toks[i])
        elif kind == "punct" and value in ")]}":
            depth -= 1
            if depth == 0:
                return [a for a in args if a], i + 1
            args[-1].append(toks[i])
        elif kind == "punct" and value == "," and depth == 1:
            args.append([])
        else:
            args[-1].append(toks[i])
        i += 1


# ---------------------------------------------------------------- TOML (destructive_command_guard)

DCG_VERDICT = {"deny": "block", "allow": "allow"}


def dcg(root, col):
    corpus = root / "tests/corpus"
    files = sorted(p for p in corpus.rglob("*.toml"))
    for path in files:
        rel = path.relative_to(root).as_posix()
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for n, case in enumerate(data.get("case", []), 1):
            if "expected_decision" in case:  # canonical.toml schema
                if case.get("input_kind", "command") != "command":
                    col.skip("input is not a shell command (canonical input_kind)")
                    continue
                expected = case["expected_decision"]
                case_id = case.get("id") or f"{rel}#{n}"
            else:
                expected = case.get("expected")
                case_id = case.get("description") or f"{rel}#{n}"
            if expected not in DCG_VERDICT:
                col.skip(f"verdict {expected!r} is not a default-mode allow/deny")
                continue
            col.add(case_id, case["command"], DCG_VERDICT[expected], rel)
    # The end-to-end fixtures are piped to `dcg check` without a configuration file.
    for path in sorted((root / "tests/e2e/fixtures/commands").glob("*.txt")):
        rel = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        n = 0
        while n < len(lines):
            line = lines[n]
            n += 1
            line_no = n
            if not line.strip() or line.startswith("#"):
                continue
            m = re.match(r"(BLOCK|ALLOW|WARN):(.*)", line)
            if m:
                expected, command = m.group(1), m.group(2)
            else:
                expected, command = ("BLOCK" if path.stem == "dangerous" else "ALLOW"), line
            # A here-document written over several lines is one command; the body lines
            # are its text, not commands of their own.
            opener = re.search(r"<<-?\s*(['\"]?)(\w+)\1\s*$", command)
            if opener:
                body = []
                while n < len(lines) and lines[n].strip() != opener.group(2):
                    body.append(lines[n])
                    n += 1
                if n < len(lines):
                    body.append(lines[n])
                    n += 1
                    command = "\n".join([command, *body])
                    col.skip("here-document body line (joined into its command)", len(body))
            else:
                # The fixture line is pasted into a JSON string, so JSON escapes in it
                # (a written `\n`, `\t`) reach the guard decoded.
                try:
                    command = json.loads('"' + command + '"')
                except json.JSONDecodeError:
                    if path.stem == "heredocs":
                        # That file's stated convention: `\n` stands for a line break.
                        command = command.replace("\\n", "\n").replace("\\t", "\t")
            if not command.strip():
                col.skip("empty command")
                continue
            if expected == "WARN":
                col.skip("WARN verdict (allowed with a warning) in the end-to-end fixtures")
                continue
            col.add(f"{rel}:{line_no}", command, expected.lower(), rel)


# ---------------------------------------------------------------- Go + YAML (AI-Agentic-Shield)

GO_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a",
              "b": "\b", "f": "\f", "v": "\v"}


def go_string(src, i):
    """Reads one or more Go string literals joined by `+` at src[i]; (value, end) or (None, i)."""
    parts = []
    j = i
    while True:
        while src[j] in " \t\n":
            j += 1
        if src[j] == "`":
            end = src.index("`", j + 1)
            parts.append(src[j + 1 : end])
            j = end + 1
        elif src[j] == '"':
            out = []
            k = j + 1
            while src[k] != '"':
                if src[k] == "\\":
                    e = src[k + 1]
                    if e == "x":
                        out.append(chr(int(src[k + 2 : k + 4], 16)))
                        k += 4
                    elif e in "uU":
                        width = 4 if e == "u" else 8
                        out.append(chr(int(src[k + 2 : k + 2 + width], 16)))
                        k += 2 + width
                    elif e in "01234567":
                        out.append(chr(int(src[k + 1 : k + 4], 8)))
                        k += 4
                    else:
                        out.append(GO_ESCAPES[e])
                        k += 2
                else:
                    out.append(src[k])
                    k += 1
            parts.append("".join(out))
            j = k + 1
        else:
            return (None, i) if not parts else ("".join(parts), j)
        k = j
        while src[k] in " \t":
            k += 1
        if src[k] != "+":
            return "".join(parts), j
        j = k + 1


AS_VERDICT = {"BLOCK": "block", "ALLOW": "allow", "AUDIT": "audit"}


def agentshield(root, col):
    testdata = root / "internal/analyzer/testdata"
    for path in sorted(testdata.glob("*_cases.go")):
        rel = path.relative_to(root).as_posix()
        src = path.read_text(encoding="utf-8")
        starts = [m.start() for m in re.finditer(r"\bID:\s*\"", src)]
        for k, start in enumerate(starts):
            block = src[start : starts[k + 1] if k + 1 < len(starts) else len(src)]
            case_id = re.match(r'ID:\s*"([^"]*)"', block).group(1)
            m = re.search(r"\bCommand:\s*", block)
            command, _ = go_string(block, m.end()) if m else (None, 0)
            decision = re.search(r'\bExpectedDecision:\s*"(\w+)"', block)
            cls = re.search(r'\bClassification:\s*"(\w+)"', block)
            if command is None or decision is None:
                col.skip("case without a literal command or expected decision")
                continue
            col.add(case_id, command, AS_VERDICT[decision.group(1)], rel,
                    classification=cls.group(1) if cls else None)
    # The red-team scenarios state the minimum decision of the full pipeline per command.
    yaml_path = root / "internal/guardian/testdata/redteam_cases.yaml"
    rel = yaml_path.relative_to(root).as_posix()
    for case_id, cmd, minimum in redteam_yaml(yaml_path.read_text(encoding="utf-8")):
        col.add(case_id, cmd, AS_VERDICT[minimum], rel, minimum=True)


def redteam_yaml(text):
    """The red-team file is plain YAML; read it with PyYAML when present, else the subset it uses."""
    try:
        import yaml  # noqa: PLC0415

        doc = yaml.safe_load(text)
        for case in doc["cases"]:
            for n, c in enumerate(case["commands"], 1):
                yield f"{case['id']}#{n}", c["cmd"], c["pipeline_min"]
        return
    except ImportError:
        pass
    case_id, n, cmd = None, 0, None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("- id:"):
            case_id, n = s[5:].strip(), 0
        elif s.startswith("- cmd:"):
            n += 1
            cmd = yaml_scalar(s[6:].strip())
        elif s.startswith("pipeline_min:") and cmd is not None:
            yield f"{case_id}#{n}", cmd, s.split(":", 1)[1].strip()
            cmd = None


def yaml_scalar(s):
    if s.startswith("'"):
        return s[1:-1].replace("''", "'")
    if s.startswith('"'):
        return json.loads(s)
    return s


PEERS = {
    "safety-net": ("claude-code-safety-net", safety_net),
    "dcg": ("destructive_command_guard", dcg),
    "agentshield": ("AI-Agentic-Shield", agentshield),
}


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in PEERS:
        raise SystemExit(__doc__)
    name, convert = PEERS[sys.argv[1]]
    root = Path(sys.argv[2])
    if not root.is_dir():
        raise SystemExit(f"{root}: not a directory")
    out = Path(sys.argv[3]) if len(sys.argv) == 4 else OUT_DIR / f"{name}.jsonl"
    col = Collector(name)
    convert(root, col)
    col.write(out)


if __name__ == "__main__":
    main()
