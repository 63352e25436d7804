# The example system of examples/python with one bug that takes the whole
# process down: retracting a row that is in an active match ends it with
# SystemExit (which the example's catch-all, `except Exception`, lets
# through), as a library that exits on an inconsistency it did not expect
# would. The death comes back whenever the trace is run up to that
# retraction again: lockstep calls it a failure at that step, with a short
# counterexample, never "cannot be judged" (conformance/lockstep/deaths.ts,
# cli/deaths.e2e.test.ts).
#
# With SJ_CRASH_ONCE=FILE it dies only if FILE does not exist yet, and
# creates it first: a death that does not come back (as one from outside the
# system would not), which stays "cannot be judged".
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import interval_join  # noqa: E402
import join  # noqa: E402

retract = interval_join.Operator.retract


def retract_or_die(self, identity):
    key, side, row_id = identity
    once = os.environ.get("SJ_CRASH_ONCE")
    if once and os.path.exists(once):
        return retract(self, identity)
    if any(m[0] == key and m[1 if side == "L" else 2] == row_id for m in self.matches):
        if once:
            open(once, "w").close()
        raise SystemExit(f"fatal: retracting {row_id}, which is matched: the index is inconsistent")
    return retract(self, identity)


interval_join.Operator.retract = retract_or_die

if __name__ == "__main__":
    join.main()
