# The example system of examples/python (join.py --data) with one durability
# bug: a request that sends an install or release message (C6, C7) saves its
# durable effect in two writes instead of one, so that a kill between them
# (PROTOCOL.md, "Kill mode": STREAMJOIN_KILL_AT_WRITE) keeps one half.
#
#   splitMessages.py phase-first --data DIR    the phase (and everything else) first, the message second:
#                                              a kill between loses the message a duplicate delivers (C11)
#   splitMessages.py message-first --data DIR  the message first, the rest second: a kill between keeps a
#                                              message whose step never happened
#
# The observation (SPEC §7) shows neither message; kill mode must still
# catch both (conformance/kill/lastMessages.e2e.test.ts).
import copy
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import disk  # noqa: E402
import join  # noqa: E402

MESSAGES = ("lastInstall", "lastRelease")
ORDERS = ("phase-first", "message-first")

if len(sys.argv) < 2 or sys.argv[1] not in ORDERS:
    print(f"usage: splitMessages.py {{{'|'.join(ORDERS)}}} --data DIR", file=sys.stderr)
    sys.exit(254)
ORDER = sys.argv.pop(1)


class SplitDirectory(disk.DataDirectory):
    def write_state(self, state):
        if self.written_state is not None:
            before = json.loads(self.written_state)
            old, new = before["durable"], state["durable"]
            if any(old[m] != new[m] for m in MESSAGES):
                if ORDER == "phase-first":
                    half = copy.deepcopy(state)
                    for m in MESSAGES:
                        half["durable"][m] = old[m]
                else:
                    half = copy.deepcopy(before)
                    for m in MESSAGES:
                        half["durable"][m] = new[m]
                super().write_state(half)
        super().write_state(state)


join.DataDirectory = SplitDirectory
join.main()
