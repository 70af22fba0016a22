#!/bin/sh
# Blocks shell commands that destroy data irreversibly (a pre_tool_call guard). POSIX sh and
# grep only, so it runs wherever the demo does. The payload is JSON on stdin; the patterns are
# matched against the whole of it, where the command is one JSON string.
payload=$(cat)

block() {
    printf '{"decision": "block", "reason": "blocked: %s"}\n' "$1"
    exit 0
}

matches() {
    printf '%s' "$payload" | grep -Eq "$1"
}

# rm with both -r and -f, aimed at /, ~ or $HOME (the string ends, or a space follows).
if matches '(^|[^a-zA-Z_])rm[[:space:]]+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)[a-zA-Z]*[[:space:]]+(/|~|\$HOME)([[:space:]]|"|$)'; then
    block "recursive force-delete of / or the home directory"
fi
# Any other rm with both -r and -f: what it removes cannot be recovered, whatever the path.
if matches '(^|[^a-zA-Z_])rm[[:space:]]+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)'; then
    block "recursive force-delete (rm -rf); delete files one by one, or ask the user"
fi
if matches '(^|[^a-zA-Z_])dd[[:space:]].*of=/dev/(sd|nvme|hd|vd)'; then
    block "dd onto a block device"
fi
if matches '(^|[^a-zA-Z_])mkfs(\.[a-z0-9]+)?[[:space:]]'; then
    block "formatting a filesystem"
fi
# Empty stdout: continue, no change.
