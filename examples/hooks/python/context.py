#!/usr/bin/env python3
"""pre_llm_call context injector: adds a project rule to every model call."""
import json
import sys

json.load(sys.stdin)  # the payload is not needed, but read it
print(json.dumps({"context": "Project rule: run the tests before saying a change works."}))
