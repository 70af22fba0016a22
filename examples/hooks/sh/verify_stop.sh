#!/bin/sh
# on_stop verifier: refuses to stop when the reply claims passing tests that never ran.
jq -c 'if .stop_hook_active then empty
       elif ((.response // "") | ascii_downcase | contains("tests pass"))
            and ((.tool_names // []) | index("run_tests") | not)
       then {decision: "block",
             reason: "You said the tests pass but ran none this turn. Run them, then answer again."}
       else empty end'
