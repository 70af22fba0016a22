"""Patterns compiled at import the ways scripts write them: literals, module constants joined
with `+`, flags, `re.search` on a literal, and one pattern the interpreter warns about (a
possible nested set), whose warning is part of what the script prints on stderr."""
import json
import re
import sys

WORD = r"\bdeploy"
TARGET = WORD + r"\s+(prod|production)\b"
PROD = re.compile(TARGET, re.IGNORECASE)
# Python reads this as the set "[:alph" and then "]+", and warns that it may mean a nested set.
NESTED = re.compile(r"[[:alpha:]]+")

data = json.load(sys.stdin)
message = data.get("message", "")
if PROD.search(message):
    print(json.dumps({"context": "production deploy mentioned"}))
elif re.search(r"^\s*hotfix\b", message):
    print(json.dumps({"context": "hotfix"}))
elif NESTED.fullmatch(message):
    print(json.dumps({"context": "one of the set, then brackets"}))
