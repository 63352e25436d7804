# The example system of examples/python (join.py --data) with one durability
# bug: state.json is rewritten in place ("it is fsync'd, so it is safe")
# instead of through a temporary file and a rename, with a durable write
# point (PROTOCOL.md, "Kill mode": STREAMJOIN_KILL_AT_WRITE) between its two
# halves. A kill there leaves half a document, and the restarted system
# cannot read its directory back: its re-attach fails, which kill mode calls
# a divergence at the kill (conformance/kill/killRun.e2e.test.ts), never
# "cannot be judged".
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import disk  # noqa: E402
import join  # noqa: E402


class TornDirectory(disk.DataDirectory):
    def write_state(self, state):
        text = json.dumps(state, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        if text == self.written_state:
            return
        data = text.encode("utf-8")
        fd = os.open(self._file(disk.STATE_FILE), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, data[: len(data) // 2])
            self.hook.write_point()  # a kill here leaves half a document
            os.write(fd, data[len(data) // 2 :])
            os.fsync(fd)
        finally:
            os.close(fd)
        self.hook.write_point()
        self.written_state = text


join.DataDirectory = TornDirectory
join.main()
