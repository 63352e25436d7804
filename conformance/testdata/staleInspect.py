# The example system of examples/python (join.py --data) with one bug that
# only a live observation shows: `inspect` answers with the cluster as it was
# before the last action (a cache refreshed one request late). What it
# writes to disk is right, so a recovery after a kill shows the right state:
# the bug is seen only where a step's own observation is judged. Kill mode
# judges the last step's observation before the kill it adds at a trace's
# end (ClusterKill.observed; conformance/kill/killRun.e2e.test.ts).
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import join  # noqa: E402


class StaleServer(join.Server):
    stale = None

    def handle(self, request):
        kind = request.get("type")
        if self.cluster is not None and kind == "inspect" and self.stale is not None:
            return self.stale
        if self.cluster is not None and kind not in ("init", "inspect"):
            self.stale = super().handle({"type": "inspect"})
        return super().handle(request)


join.Server = StaleServer
join.main()
