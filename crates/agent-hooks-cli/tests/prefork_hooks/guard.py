"""A guard in the shape of the security hooks agents ship: one script on several events,
dispatching on the event, with its patterns compiled at import."""
import json
import re
import sys

SECRET = [
    re.compile(r"sk-[A-Za-z0-9]{32,}"),
    re.compile(r"gh[pousr]_[A-Za-z0-9]{30,}"),
    re.compile(r"AKIA[0-9A-Z]{16}"),
    re.compile(r"-----BEGIN[ A-Z]*PRIVATE KEY-----"),
]
_CMD = r"(?:^|[\n;|&(){]|\$\(|`)\s*(?:(?:sudo|doas|time|nice|env)\s+)*"
DESTRUCTIVE = [
    (re.compile(_CMD + r"rm\s+-[a-z]*r[a-z]*f?\s+(/(?:\s|$)|/\*|~|\$HOME)"), "recursive delete of / or ~"),
    (re.compile(_CMD + r"mkfs(\.\w+)?\s"), "formatting a filesystem"),
    (re.compile(r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"), "fork bomb"),
]


def secret_in(text):
    return any(p.search(text or "") for p in SECRET)


def mask(text):
    for p in SECRET:
        text = p.sub("[REDACTED]", text)
    return text


def main():
    event = json.load(sys.stdin)
    kind = event.get("event")
    if kind == "pre_tool_call":
        command = (event.get("tool_input") or {}).get("command", "")
        for pattern, why in DESTRUCTIVE:
            if pattern.search(command):
                print(json.dumps({"decision": "block", "reason": f"[security_guard] {why}: {command}"}))
                return
    elif kind == "on_user_message" and secret_in(event.get("message")):
        print(json.dumps({"decision": "block", "reason": "[security_guard] a secret was pasted"}))
    elif kind == "transform_tool_result" and secret_in(str(event.get("tool_result"))):
        print(json.dumps({"note": "the tool's output holds a secret; do not repeat it"}))
    elif kind == "on_response_end" and secret_in(event.get("response")):
        print(json.dumps({"response": mask(event["response"])}))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a broken guard must not break the agent
        print(f"guard error: {e}", file=sys.stderr)
