#!/usr/bin/env python3
"""A starter implementation of the streamjoin conformance protocol, every level.

Copy this folder to begin an implementation of your own in Python (standard
library only, Python 3.8 or later), then check it against the reference model:

    npx streamjoin conform --sut "python3 join.py" --exhaustive
    npx streamjoin conform --kill --sut "python3 join.py --data {data}"

The protocol is spec/PROTOCOL.md (version 2): one JSON request per line on
stdin, one JSON reply per line on stdout, each reply flushed at once. This
file is the protocol loop and the sessions; the semantics live beside it:

- interval_join.py: the single-partition operator, SPEC §1-§3 (level `operator`);
- cluster.py: the fenced cluster, SPEC §5 and §7 (levels `cluster` and `faults`);
- disk.py: the on-disk mode (`--data DIR`): SPEC C2's durable parts written
  crash-safely, and read back when `init` carries `"recover": true`
  (PROTOCOL.md, "Kill mode").

Without `--data` every part is in memory: a correct system at every level,
but one that forgets everything when its process is killed.
"""

import json
import os
import sys

from cluster import Cluster, Refused, bad_config
from disk import DataDirectory, KillAtWrite
from interval_join import TIME_MAX, Operator

PROTOCOL = 2
LEVELS = ["operator", "cluster", "faults"]
IMPLEMENTATION = {"name": "streamjoin-python-starter", "version": "0.2.0"}

# Error codes (PROTOCOL.md, "Errors"): Maelstrom's numbers below 1000.
NOT_SUPPORTED = 10
MALFORMED_REQUEST = 12
UNKNOWN_TYPE = 1000
BAD_CONFIG = 1001
NO_SESSION = 1002
INTERNAL_ERROR = 1003

# Every request type of the protocol: the ones above a session's level are
# answered with NOT_SUPPORTED, anything else with UNKNOWN_TYPE.
REQUEST_TYPES = {
    "init", "record", "freeze", "persist", "install", "commit", "release", "abort", "checkpoint",
    "crash", "restart", "pause", "resume", "failover", "duplicateInstall", "duplicateRelease", "inspect",
}


class ProtocolError(Exception):
    def __init__(self, code, text):
        super().__init__(text)
        self.code = code


def valid_config(config):
    """J0: both bounds integers in [0, 2^50]."""
    return isinstance(config, dict) and all(
        isinstance(config.get(k), int) and 0 <= config[k] <= TIME_MAX for k in ("allowedLateness", "maxIntervalLength")
    )


class Server:
    """One connection: `init` starts a session (an operator, or a cluster); the other requests go to it."""

    def __init__(self, data=None):
        self.data = data        # a DataDirectory (--data), or None: everything in memory
        self.operator = None    # the session at level operator
        self.cluster = None     # the session at levels cluster and faults
        self.level = self.config = None

    def handle(self, request):
        kind = request.get("type")
        if kind == "init":
            return self.init(request)
        if kind not in REQUEST_TYPES:
            raise ProtocolError(UNKNOWN_TYPE, f"unknown request type {json.dumps(kind)}")
        if self.cluster is not None:
            return self.cluster_request(request)
        if self.operator is None:
            raise ProtocolError(NO_SESSION, "no session: send init first")
        if kind != "record":
            raise ProtocolError(NOT_SUPPORTED, f"{kind} is not part of level operator")
        record = request.get("record")
        if not isinstance(record, dict) or record.get("kind") not in ("insert", "retract", "watermark"):
            raise ProtocolError(MALFORMED_REQUEST, "record must be an insert, a retract or a watermark")
        try:
            outcome, changes = self.operator.apply(record)
        except (KeyError, TypeError) as e:
            raise ProtocolError(MALFORMED_REQUEST, f"record is missing or mistypes a field: {e}") from e
        return {"type": "record_ok", "outcome": outcome, "changes": changes, "retained": self.operator.counts()}

    def init(self, request):
        """PROTOCOL.md, "Sessions and levels": discard any earlier session, start one at the level asked."""
        if request.get("protocol") != PROTOCOL:
            raise ProtocolError(NOT_SUPPORTED, f"protocol {request.get('protocol')} is not supported; this system speaks protocol {PROTOCOL}")
        level, config = request.get("level"), request.get("config")
        if level not in LEVELS:
            raise ProtocolError(NOT_SUPPORTED, f"level {level} is not supported")
        if level == "operator":
            if not valid_config(config):
                raise ProtocolError(BAD_CONFIG, "allowedLateness and maxIntervalLength must be integers in [0, 2^50]")
            self.operator, self.cluster = Operator(config["allowedLateness"], config["maxIntervalLength"]), None
        else:
            why = bad_config(config) or (None if valid_config(config.get("join")) else "join: J0 bounds must be integers in [0, 2^50]")
            if why is not None:
                raise ProtocolError(BAD_CONFIG, why)
            self.operator, self.cluster = None, self.start_cluster(level, config, request.get("recover") is True)
        return {"type": "init_ok", "protocol": PROTOCOL, "implementation": IMPLEMENTATION, "levels": LEVELS}

    def start_cluster(self, level, config, recover):
        """A fresh cluster (C1); or, in kill mode, the one the data directory holds, every node down (C10)."""
        faults = level == "faults"
        self.level, self.config = level, config
        if self.data is None:
            return Cluster(config, faults)  # in memory: `recover` cannot be honoured, so it is ignored
        if recover:
            stored, log = self.data.recover()
            if stored is not None:
                cluster = Cluster(config, faults, durable=stored["durable"], log=log, recovered=True)
            else:  # killed before the session was written: empty durable parts, every node down
                cluster = Cluster(config, faults, recovered=True)
                self.data.start_session(self.session(cluster, level, config))
        else:
            cluster = Cluster(config, faults)
            self.data.start_session(self.session(cluster, level, config))
        cluster.on_append = self.data.append_record  # C3: each appended record goes to the journal first
        return cluster

    @staticmethod
    def session(cluster, level, config):
        """What state.json holds: the session's level and config, and the durable parts but the log (C2)."""
        return {"level": level, "config": config, "durable": cluster.durable}

    def cluster_request(self, request):
        try:
            reply = self.cluster.handle(request)
        except Refused as e:
            raise ProtocolError(e.code, str(e)) from e
        if self.data is not None:
            # Durable before the reply: an acknowledged request is never lost (PROTOCOL.md, "Kill mode").
            self.data.write_state(self.session(self.cluster, self.level, self.config))
        return reply


def reply_to(server, line):
    """The reply line to one request line."""
    try:
        request = json.loads(line)
    except ValueError as e:
        return {"in_reply_to": None, "type": "error", "code": MALFORMED_REQUEST, "text": f"not JSON: {e}"}
    if not isinstance(request, dict) or not isinstance(request.get("id"), int):
        return {"in_reply_to": None, "type": "error", "code": MALFORMED_REQUEST, "text": "a request is an object with an integer id"}
    try:
        return {"in_reply_to": request["id"], **server.handle(request)}
    except ProtocolError as e:
        return {"in_reply_to": request["id"], "type": "error", "code": e.code, "text": str(e)}
    except Exception as e:  # a bug here: say so, and keep serving
        print(f"internal error: {e!r}", file=sys.stderr)
        return {"in_reply_to": request["id"], "type": "error", "code": INTERNAL_ERROR, "text": repr(e)}


def parse_arguments(argv):
    """`--data DIR` (the on-disk mode) is the only option."""
    if not argv:
        return None
    if len(argv) == 2 and argv[0] == "--data" and argv[1]:
        return argv[1]
    print("usage: join.py [--data DIR]", file=sys.stderr)
    sys.exit(254)


def main():
    data_dir = parse_arguments(sys.argv[1:])
    hook = KillAtWrite(os.environ.get("STREAMJOIN_KILL_AT_WRITE"))
    server = Server(DataDirectory(data_dir, hook) if data_dir else None)
    for line in sys.stdin:
        if line.strip() == "":
            continue
        hook.next_line()
        # Flush every reply (PROTOCOL.md, Transport): a buffered reply makes a correct system look hung.
        print(json.dumps(reply_to(server, line), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
