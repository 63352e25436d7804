# The example system of examples/python (join.py, with or without --data)
# with one bug a real engineer makes: the operator sizes its time buckets by
# D, dividing by it, so a config with D = 0 (which J0 allows) raises at
# `init`, and the example answers internal_error. Every trace with D = 0
# fails at its first step, never sent in a session
# (conformance/kill/killRun.e2e.test.ts); no other config is touched.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import interval_join  # noqa: E402
import join  # noqa: E402

correct_init = interval_join.Operator.__init__


def bucketed_init(self, lateness, max_length):
    correct_init(self, lateness, max_length)
    self.bucket_width = 1000 // max_length  # D = 0: ZeroDivisionError


interval_join.Operator.__init__ = bucketed_init
join.main()
