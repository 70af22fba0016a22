#!/bin/sh
# on_user_message rewriter: replaces e-mail addresses before the model sees the message.
jq -c '(.message // "") as $m
       | ($m | gsub("[A-Za-z0-9._+-]+@[A-Za-z0-9-]+\\.[A-Za-z0-9.]+"; "[email]")) as $r
       | if $r != $m then {message: $r} else empty end'
