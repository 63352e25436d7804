# A system under test whose stdout is block-buffered, as Python's is without
# -u (or flush=True) when it writes to a pipe. Its replies are right, but
# they wait in its buffer, so the harness sees nothing: exactly like a hung
# system (conformance/hostile.e2e.test.ts).
import json
import sys
import time

sys.stderr.write(f"noflush: started (t={int(time.time() * 1000)})\n")
sys.stderr.flush()

# Block-buffered whatever the environment says (PYTHONUNBUFFERED, -u).
out = open(sys.stdout.fileno(), "w", buffering=8192, closefd=False)

for line in sys.stdin:
    request = json.loads(line)
    sys.stderr.write(f"noflush: request {request['id']}\n")
    sys.stderr.flush()
    if request.get("type") == "init":
        reply = {
            "in_reply_to": request["id"],
            "type": "init_ok",
            "protocol": 1,
            "implementation": {"name": "noflush", "version": "0"},
            "levels": ["operator"],
        }
    else:
        reply = {"in_reply_to": request["id"], "type": "error", "code": 12, "text": "not supported"}
    print(json.dumps(reply), file=out)
