# The example system of examples/python (join.py --data DIR) with one bug a
# real engineer makes: it answers each request first and makes it durable
# after (its journal line and state document written once the reply is
# out), so a kill between the two loses a step the harness was told of.
# Every write point of a request comes after its reply: a kill at one
# (STREAMJOIN_KILL_AT_WRITE) leaves an answered request lost, which
# PROTOCOL.md forbids ("What must be recovered": everything durable as it
# was when the last acknowledged request was answered; conformance/kill).
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import disk  # noqa: E402
import join  # noqa: E402

deferred = []
correct_append = disk.DataDirectory.append_record
correct_write = disk.DataDirectory.write_state


def append_later(self, record):
    deferred.append(lambda: correct_append(self, record))


def write_later(self, state):
    deferred.append(lambda: correct_write(self, state))


disk.DataDirectory.append_record = append_later
disk.DataDirectory.write_state = write_later


def main():
    data_dir = join.parse_arguments(sys.argv[1:])
    hook = disk.KillAtWrite(os.environ.get("STREAMJOIN_KILL_AT_WRITE"))
    server = join.Server(disk.DataDirectory(data_dir, hook) if data_dir else None)
    for line in sys.stdin:
        if line.strip() == "":
            continue
        hook.next_line()
        print(json.dumps(join.reply_to(server, line), ensure_ascii=False), flush=True)
        while deferred:
            deferred.pop(0)()


main()
