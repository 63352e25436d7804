# The example system of examples/python (join.py, with or without --data)
# with one bug a real engineer makes: the operator sizes its time buckets by
# D, dividing by it, so a config with D = 0 (which J0 allows) raises at
# `init`, and the example answers internal_error. Every trace with D = 0
# fails at its first step, never sent in a session
# (conformance/kill/killRun.e2e.test.ts); no other config is touched.
# With --die (before --data) the process exits with code 3 there instead, as
# an uncaught error would end it: every trace with D = 0 still fails at its
# first step, its death coming back in a fresh process (PROTOCOL.md).
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import interval_join  # noqa: E402
import join  # noqa: E402

correct_init = interval_join.Operator.__init__


DIE = len(sys.argv) > 1 and sys.argv[1] == "--die"
if DIE:
    del sys.argv[1]


def bucketed_init(self, lateness, max_length):
    correct_init(self, lateness, max_length)
    if DIE and max_length == 0:
        os._exit(3)
    self.bucket_width = 1000 // max_length  # D = 0: ZeroDivisionError


interval_join.Operator.__init__ = bucketed_init
join.main()
