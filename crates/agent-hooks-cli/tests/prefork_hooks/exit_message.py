# sys.exit with a message: exit status 1, the message on stderr; atexit still runs.
import atexit
import sys

atexit.register(lambda: sys.stderr.write("atexit: cleaning up\n"))
sys.stdin.read()
sys.exit("refusing: policy file missing")
