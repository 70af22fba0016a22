#!/bin/sh
# pre_llm_call context injector: adds a project rule to every model call.
cat > /dev/null  # the payload is not needed
echo '{"context": "Project rule: run the tests before saying a change works."}'
