"""Injected bugs, one at a time, named by the environment variable SJ_BUG.

Each is a one-line slip of the kind a real engineer makes; the standing test
(conformance/independent/independent.e2e.test.ts) measures which part of the
harness catches each. An unknown name is refused at start, so a typo never
runs the correct system under a bug's name.
"""

import os
import sys

BUGS = {
    "naive-match-id": "J3: active matches filed under 'L:'+left+'|R:'+right, not the escaped triple",
    "late-inclusive": "J5: an insert at exactly gw - L is called late",
    "retract-unbound-dropped": "J6: a retract that overtakes its insert binds no tombstone",
    "no-terminal-retract": "C9: the sink lets a replayed insert resurrect a retracted match",
    "checkpoint-coordinator-epoch": "C4: a checkpoint is stamped with the coordinator's epoch, not the copy's",
    "eager-string-order": "§7: eager processing orders copies by their ordinal as a string",
    "install-check-any-key": "C6: the install epoch check compares against every copy the destination holds",
    "install-fresh": "C6: install ignores the checkpoint and restores an empty copy at cursor 0",
}

ACTIVE = os.environ.get("SJ_BUG", "")
if ACTIVE and ACTIVE not in BUGS:
    sys.stderr.write(f"ledger: unknown SJ_BUG {ACTIVE!r}; known: {', '.join(sorted(BUGS))}\n")
    sys.exit(3)


def bug(name):
    if name not in BUGS:
        raise KeyError(name)
    return ACTIVE == name
