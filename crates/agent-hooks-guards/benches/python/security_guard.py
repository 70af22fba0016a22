#!/usr/bin/env python3
"""security_guard as a standalone Python hook, for comparison with `agent-hooks guard
security_guard`: the same checks as the built-in guard's default rules (shell tokenizer
with command positions, destructive and exfiltration rules, credentials, BIP-39 with
checksum, Solana arrays, base58 by keyword), reading one payload on stdin.

Usage: python3 security_guard.py < payload.json   (the payload's `event` picks the branch)
The BIP-39 word list is read from ../../data/bip39_english.txt, as the Rust guard embeds it.
"""
import hashlib
import json
import os
import re
import sys

SHELL_TOOLS = {"bash", "shell", "sh", "run_command", "run_shell_command", "execute_command", "exec", "terminal"}
COMMAND_KEYS = ["command", "cmd", "script"]
MESSAGE_TOOLS = {"send_to_telegram", "send_to_wechat", "send_message", "send_telegram_message",
                 "send_email", "post_message", "slack_post_message", "notify_user"}
PREFIXES = {
    "sudo": ({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"}, {"-l", "-v", "-V", "-k", "-K"}),
    "doas": ({"-u", "-C"}, set()), "env": ({"-u", "-C", "-S", "--unset", "--chdir"}, set()),
    "nice": ({"-n", "--adjustment"}, set()), "nohup": (set(), set()), "time": ({"-f", "-o"}, set()),
    "command": (set(), {"-v", "-V"}),
}
NESTED = {"sh", "bash", "zsh", "dash", "ksh", "fish", "eval"}
KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "case",
            "esac", "{", "}", "!", "function", "select"}
R = re.compile
DESTRUCTIVE = [
    ("recursive force-delete of / or home", R(r"^rm$"), [
        R(r"(?:^|\s)(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(?:\s|$)"),
        R(r"(?:^|\s)(?:-[a-zA-Z]*f[a-zA-Z]*|--force)(?:\s|$)"),
        R(r"(?:^|\s)(?:/+\*?|/\*|~/?\*?|\$HOME/?\*?|\$\{HOME\}/?\*?|/home/?\*?|/root/?\*?|/Users/?\*?)(?:\s|$)")], None),
    ("dd onto a block device", R(r"^dd$"), [R(r"(?:^|\s)of=/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper/)")], None),
    ("write onto a block device", None, [], R(r"^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper/)")),
    ("format a filesystem", R(r"^(?:mkfs(?:\..+)?|mke2fs|newfs(?:_.+)?)$"), [], None),
    ("recursive chmod 777", R(r"^chmod$"), [R(r"(?:^|\s)(?:-[a-zA-Z]*R[a-zA-Z]*|--recursive)(?:\s|$)"),
                                             R(r"(?:^|\s)(?:0?777|[augo]*[+=]rwx)(?:\s|$)")], None),
    ("hard reset onto a remote", R(r"^git$"), [R(r"(?:^|\s)reset(?:\s|$)"), R(r"(?:^|\s)--hard(?:\s|$)"),
        R(r"(?:^|\s)(?:(?:origin|upstream|remotes/[\w.-]+)/\S+|\S*@\{u(?:pstream)?\}|FETCH_HEAD)(?:\s|$)")], None),
]
FORK_BOMB = R(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\b\w+\s*\(\s*\)\s*\{\s*\w+\s*\|\s*\w+\s*&\s*\}\s*;\s*\w+")
NETWORK = R(r"^(?:curl|wget|nc|ncat|netcat|socat|telnet|scp|sftp|rsync|ftp|http|https|xh)$")
CRED_FILES = R(r"(?:^|[/=@<:])(?:\.env(?:\.(?:local|prod|production|dev|development|staging|test))?|\.netrc|\.npmrc|\.pypirc|\.git-credentials|id_(?:rsa|dsa|ecdsa|ed25519)|\.ssh/\S*|\.aws/credentials|\.docker/config\.json|\.kube/config|\.gnupg/\S*|wallet\.dat|keystore/\S*|[\w.-]*\.key|/etc/shadow|/proc/\S+/environ)$")
ENV_DUMP = R(r"^(?:env|printenv|export|declare|set)$")
ENV_DUMP_ARGS = {"-p", "-x", "-0"}
OUTPUT_OPTIONS = {"-o", "-O", "--output", "--output-document"}
CREDENTIALS = [
    ("OpenRouter API key", R(r"sk-or-v1-[0-9a-fA-F]{32,}")),
    ("Anthropic API key", R(r"sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}")),
    ("OpenAI API key", R(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}")),
    ("GitHub token", R(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})")),
    ("AWS access key id", R(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("AWS secret access key", R(r"(?i)aws_?secret_?access_?key\s*[=:]\s*[\"']?(?P<secret>[A-Za-z0-9/+]{40})")),
    ("Slack token", R(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Google API key", R(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("Stripe key", R(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}")),
    ("Hugging Face token", R(r"\bhf_[A-Za-z0-9]{30,}")),
    ("PEM private key", R(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?")),
    ("EVM private key", R(r"\b0x[0-9a-fA-F]{64}\b")),
    ("Bearer token", R(r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{20,}=*)")),
]
SOLANA = R(r"\[\s*\d{1,3}(?:\s*,\s*\d{1,3}){63}\s*,?\s*\]")
BASE58 = R(r"[1-9A-HJ-NP-Za-km-z]{51,90}")
KEYWORDS_RE = R(r"(?i)private[\s_-]*key|secret[\s_-]*key|privkey|priv[\s_-]*key|wif|seed|mnemonic|recovery[\s_-]*phrase|secret[\s_-]*phrase|wallet[\s_-]*key|私钥|密钥|秘钥|助记词|种子|恢复短语")
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = {w: i for i, w in enumerate(open(os.path.join(HERE, "..", "..", "data", "bip39_english.txt")).read().split())}


class Cmd:
    def __init__(self):
        self.words, self.redirects, self.heredocs, self.subs = [], [], [], []


def parse(text):
    """Pipelines of simple commands, and the code with quotes/comments/heredocs blanked."""
    pipelines, pipe, cmd = [], [], Cmd()
    word, in_word, op, pending, code = [], False, None, [], []
    i, n = 0, len(text)

    def end_word():
        nonlocal word, in_word, op
        if not in_word:
            return
        w = "".join(word)
        word, in_word = [], False
        if op in ("<<", "<<-"):
            pending.append((w, op == "<<-", cmd))
            cmd.redirects.append((op, w))
        elif op:
            cmd.redirects.append((op, w))
        else:
            cmd.words.append(w)
        op = None

    def end_cmd():
        nonlocal cmd, op
        end_word()
        op = None
        if cmd.words or cmd.redirects:
            pipe.append(cmd)
        cmd = Cmd()

    def end_pipe():
        nonlocal pipe
        end_cmd()
        if pipe:
            pipelines.append(pipe)
        pipe = []

    def balanced(j):
        depth, k = 0, j + 1
        while k < n:
            c = text[k]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return k
            elif c == "\\":
                k += 1
            elif c in "'\"":
                q, k = c, k + 1
                while k < n and text[k] != q:
                    k += 2 if (text[k] == "\\" and q == '"') else 1
            k += 1
        return n

    while i < n:
        c = text[i]
        if c in " \t\r":
            end_word(); code.append(c); i += 1
        elif c == "\n":
            end_pipe(); code.append(c); i += 1
            for delim, strip, owner in pending:
                body = []
                while i < n:
                    e = text.find("\n", i)
                    e = n if e < 0 else e
                    line = text[i:e]
                    i = min(e + 1, n)
                    cmp = line.lstrip("\t") if strip else line
                    if cmp.rstrip("\r") == delim:
                        break
                    body.append(cmp + "\n")
                owner.heredocs.append("".join(body))
            pending.clear()
        elif c == "#" and not in_word:
            e = text.find("\n", i)
            i = n if e < 0 else e
        elif c in ";()":
            end_pipe(); code.append(c); i += 1
        elif c == "&":
            if text.startswith("&&", i):
                end_pipe(); i += 2
            elif text.startswith("&>", i):
                end_word(); o = "&>>" if text.startswith("&>>", i) else "&>"; op = o; i += len(o)
            else:
                end_pipe(); i += 1
            code.append("&")
        elif c == "|":
            if text.startswith("||", i):
                end_pipe(); i += 2
            else:
                end_cmd(); i += 2 if text.startswith("|&", i) else 1
            code.append("|")
        elif c in "<>":
            if in_word and word and "".join(word).isdigit():
                word, in_word = [], False
            else:
                end_word()
            for o in ("<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">"):
                if text.startswith(o, i):
                    break
            op = o; i += len(o); code.append(o)
        elif c == "\\":
            if i + 1 < n and text[i + 1] != "\n":
                word.append(text[i + 1]); in_word = True
            i += 2
        elif c == "'":
            in_word = True; e = text.find("'", i + 1); e = n if e < 0 else e
            word.append(text[i + 1:e]); i = e + 1; code.append("''")
        elif c == '"':
            in_word = True; i += 1; code.append('""')
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n:
                    word.append(text[i + 1] if text[i + 1] in '"\\$`' else text[i:i + 2]); i += 2
                elif text.startswith("$(", i):
                    e = balanced(i + 1); cmd.subs.append(text[i + 2:e]); word.append(text[i:e + 1]); i = e + 1
                elif text[i] == "`":
                    e = text.find("`", i + 1); e = n if e < 0 else e
                    cmd.subs.append(text[i + 1:e]); word.append(text[i:e + 1]); i = e + 1
                else:
                    word.append(text[i]); i += 1
            i += 1
        elif c == "`":
            in_word = True; e = text.find("`", i + 1); e = n if e < 0 else e
            cmd.subs.append(text[i + 1:e]); word.append(text[i:e + 1]); i = e + 1
        elif text.startswith("$(", i):
            in_word = True; e = balanced(i + 1); cmd.subs.append(text[i + 2:e]); word.append(text[i:e + 1]); i = e + 1
            code.append("$(")
        else:
            word.append(c); in_word = True; code.append(c); i += 1
    end_pipe()
    return pipelines, "".join(code)


def argv(cmd):
    w, i = cmd.words, 0
    while i < len(w):
        if re.match(r"^[A-Za-z_]\w*=", w[i]) or w[i] in KEYWORDS:
            i += 1
            continue
        base = w[i].rsplit("/", 1)[-1]
        if base not in PREFIXES:
            return base, w[i + 1:]
        with_value, query = PREFIXES[base]
        at = i
        i += 1
        while i < len(w) and w[i].startswith("-") and len(w[i]) > 1:
            if w[i] == "--":
                i += 1
                break
            if w[i] in query:
                return None
            i += 2 if w[i] in with_value else 1
        if i >= len(w):
            return base, []
    return None


def leaks(cmd):
    if any(CRED_FILES.search(x) for x in cmd.words[1:]) or any(
            o in ("<", "<>") and CRED_FILES.search(t) for o, t in cmd.redirects):
        return True
    a = argv(cmd)
    return bool(a and ENV_DUMP.search(a[0]) and all(x in ENV_DUMP_ARGS for x in a[1]))


def network_leaks(cmd):
    skip = False
    for x in cmd.words[1:]:
        if skip:
            skip = False
            continue
        if x in OUTPUT_OPTIONS:
            skip = True
            continue
        if CRED_FILES.search(x):
            return True
    if any(o in ("<", "<>") and CRED_FILES.search(t) for o, t in cmd.redirects):
        return True
    return any(leaks(c) for s in cmd.subs for p in parse(s)[0] for c in p)


def check_command(text, depth=0):
    if depth > 4 or not text.strip():
        return None
    pipelines, code = parse(text)
    if FORK_BOMB.search(code):
        return "Blocked (fork bomb): " + " ".join(text.split())[:200]
    for pipe in pipelines:
        leaked = False
        for cmd in pipe:
            a = argv(cmd)
            program, args = a if a else ("", [])
            joined = " ".join(args)
            for name, prog, all_args, redirect in DESTRUCTIVE:
                if prog is not None and (a is None or not prog.search(program)):
                    continue
                if redirect is not None and not any(">" in o and not o.endswith("&") and redirect.search(t)
                                                    for o, t in cmd.redirects):
                    continue
                if all(r.search(joined) for r in all_args):
                    return f"Blocked ({name}): " + " ".join(cmd.words)[:200]
            if a and NETWORK.search(program) and (leaked or network_leaks(cmd)):
                return "Blocked (credential exfiltration): " + " ".join(text.split())[:200]
            leaked = leaked or leaks(cmd)
            for s in cmd.subs:
                r = check_command(s, depth + 1)
                if r:
                    return r
            if a and program in NESTED:
                if program == "eval":
                    return check_command(" ".join(args), depth + 1)
                it = iter(args)
                for x in it:
                    if x.startswith("-") and not x.startswith("--") and "c" in x:
                        return check_command(next(it, ""), depth + 1)
                    if not x.startswith("-"):
                        break
                for body in cmd.heredocs:
                    r = check_command(body, depth + 1)
                    if r:
                        return r
                for o, t in cmd.redirects:
                    if o == "<<<":
                        r = check_command(t, depth + 1)
                        if r:
                            return r
    return None


def checksum_ok(ix):
    n = len(ix)
    bits = "".join(format(i, "011b") for i in ix)
    cs = n // 3
    ent = bits[:-cs]
    h = hashlib.sha256(int(ent, 2).to_bytes(len(ent) // 8, "big")).digest()
    return format(int.from_bytes(h, "big"), "0256b")[:cs] == bits[-cs:]


def wallet_secret(text):
    run = []
    tokens = text.split() + [""]
    for tok in tokens:
        w = re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", tok)
        if w.isdigit():
            continue
        if w and w.lower() in WORDS:
            run.append(WORDS[w.lower()])
            continue
        for length in (24, 21, 18, 15, 12):
            for s in range(0, len(run) - length + 1):
                if checksum_ok(run[s:s + length]):
                    return "BIP-39 mnemonic"
        run = []
    for m in SOLANA.finditer(text):
        if all(int(x) <= 255 for x in re.findall(r"\d+", m.group())):
            return "Solana secret key (byte array)"
    spots = None
    for m in BASE58.finditer(text):
        before = text[m.start() - 1] if m.start() else ""
        after = text[m.end()] if m.end() < len(text) else ""
        if before.isalnum() or after.isalnum():
            continue
        if spots is None:
            spots = [(k.start(), k.end()) for k in KEYWORDS_RE.finditer(text)]
        if any(ke + 80 >= m.start() and ks <= m.end() + 80 for ks, ke in spots):
            return "base58 private key"
    return None


def credentials(text):
    found = []
    for name, rx in CREDENTIALS:
        for m in rx.finditer(text):
            g = "secret" if "secret" in rx.groupindex else 0
            found.append((m.start(g), m.end(g), name))
    found.sort(key=lambda f: (f[0], -f[1]))
    kept = []
    for f in found:
        if not kept or f[0] >= kept[-1][1]:
            kept.append(f)
    return kept


def mask(text):
    spans = credentials(text)
    if not spans:
        return None
    out, at = [], 0
    for s, e, _ in spans:
        secret = text[s:e]
        out.append(text[at:s])
        out.append("…[REDACTED]…" if len(secret) < 20 else secret[:6] + "…[REDACTED]…" + secret[-4:])
        at = e
    out.append(text[at:])
    return "".join(out)


def main():
    try:
        ev = json.loads(sys.stdin.read() or "{}")
    except ValueError:
        return {}
    event = ev.get("event") or ev.get("hook_event_name") or ""
    if event == "on_user_message":
        msg = ev.get("message") or ""
        kind = wallet_secret(msg) or next((c[2] for c in credentials(msg)), None)
        if kind:
            return {"decision": "block", "reason": f"Blocked: message contains a credential ({kind}). Treat it as exposed and rotate it."}
    elif event == "pre_tool_call":
        tool, inp = ev.get("tool_name") or "", ev.get("tool_input") or {}
        if tool.lower() in SHELL_TOOLS:
            for k in COMMAND_KEYS:
                if isinstance(inp.get(k), str):
                    r = check_command(inp[k])
                    if r:
                        return {"decision": "block", "reason": r}
        if tool in MESSAGE_TOOLS:
            out = {}
            for k, v in inp.items():
                if isinstance(v, str):
                    kind = wallet_secret(v)
                    if kind:
                        return {"decision": "block", "reason": f"Blocked: message contains a wallet secret ({kind}). It was not sent."}
                    m = mask(v)
                    if m is not None:
                        out[k] = m
            if out:
                return {"tool_input": out}
    elif event == "transform_tool_result":
        r = ev.get("tool_result")
        text = r if isinstance(r, str) else json.dumps(r)
        kind = wallet_secret(text) or next((c[2] for c in credentials(text)), None)
        if kind:
            return {"note": f"[security] The tool output contains a credential ({kind}). Do not repeat it; tell the user to rotate it."}
    elif event == "on_response_end":
        m = mask(ev.get("response") or "")
        if m is not None:
            return {"response": m}
    elif event == "on_outbound_message":
        text = ev.get("notification") or ""
        kind = wallet_secret(text)
        if kind:
            return {"decision": "block", "reason": f"Blocked: message contains a wallet secret ({kind}). It was not sent."}
        m = mask(text)
        if m is not None:
            return {"notification": m}
    return {}


if __name__ == "__main__":
    try:
        answer = main()
    except Exception:  # fail-open, like the built-in guard
        answer = {}
    print(json.dumps(answer, ensure_ascii=False) if answer else "")
