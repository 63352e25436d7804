"""ledger: a streamjoin system under test written from SPEC.md and PROTOCOL.md alone.

Run as `python3 conformance/independent/ledger/main.py`; it speaks protocol 2
on stdin/stdout at the levels operator, cluster and faults. `SJ_BUG=NAME`
injects one of the bugs of bugs.py.
"""

import json
import sys
import traceback

# Run as a script, Python puts this file's folder first on sys.path: the sibling modules import as they are.
from bugs import ACTIVE
from cluster import Cluster, NotEnabled
from join import TIME_LIMIT, JoinState, step

LEVELS = ["operator", "cluster", "faults"]
FAULTS = {"crash", "restart", "pause", "resume", "failover", "duplicateInstall", "duplicateRelease"}
CLUSTER = {"freeze", "persist", "install", "commit", "release", "abort", "checkpoint", "inspect"}
# The body of each request type: field -> (check, required)
STRING, BOOLEAN = "string", "boolean"
BODIES = {
    "init": {"protocol": ("protocol", True), "level": ("level", True), "config": ("object", True)},
    "record": {"record": ("record", True)},
    "freeze": {"key": (STRING, True), "to": (STRING, True)},
    "persist": {"key": (STRING, True)},
    "install": {"key": (STRING, True)},
    "release": {"key": (STRING, True)},
    "abort": {"key": (STRING, True)},
    "duplicateInstall": {"key": (STRING, True)},
    "duplicateRelease": {"key": (STRING, True)},
    "commit": {"key": (STRING, True), "crashAfterFence": (BOOLEAN, False)},
    "failover": {"key": (STRING, True), "to": (STRING, True), "crashAfterFence": (BOOLEAN, False)},
    "checkpoint": {"worker": (STRING, True), "key": (STRING, True)},
    "crash": {"node": (STRING, True)},
    "restart": {"node": (STRING, True)},
    "pause": {"worker": (STRING, True)},
    "resume": {"worker": (STRING, True)},
    "inspect": {},
}


class ProtocolError(Exception):
    def __init__(self, code, text):
        super().__init__(text)
        self.code = code


def integral(value):
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def exact_fields(where, obj, required, optional=()):
    if not isinstance(obj, dict):
        raise ProtocolError(12, f"{where} must be an object")
    for name in required:
        if name not in obj:
            raise ProtocolError(12, f"{where} must have required property {name!r}")
    for name in obj:
        if name not in required and name not in optional:
            raise ProtocolError(12, f"{where} has an unknown property {name!r}")


def normalize_record(record):
    """Shape of J1 (record.schema.json); validity is the join's business."""
    if not isinstance(record, dict) or record.get("kind") not in ("insert", "retract", "watermark"):
        raise ProtocolError(12, "/record/kind must be insert, retract or watermark")
    if record["kind"] == "watermark":
        exact_fields("/record", record, ("kind", "side", "wm"))
        strings, times = ("side",), ("wm",)
    else:
        exact_fields("/record", record, ("kind", "key", "side", "id", "ts", "start", "end"))
        strings, times = ("key", "side", "id"), ("ts", "start", "end")
    for name in strings:
        if not isinstance(record[name], str):
            raise ProtocolError(12, f"/record/{name} must be a string")
    for name in times:
        if not integral(record[name]):
            raise ProtocolError(12, f"/record/{name} must be an integer")
        record[name] = int(record[name])
    return record


def join_config(config, where):
    exact_fields(where, config, ("allowedLateness", "maxIntervalLength"))
    for name in ("allowedLateness", "maxIntervalLength"):
        if not integral(config[name]) or not 0 <= config[name] <= TIME_LIMIT:
            raise ProtocolError(12, f"{where}/{name} must be an integer in [0, 2^50]")
    return {name: int(config[name]) for name in ("allowedLateness", "maxIntervalLength")}


def cluster_config(config):
    exact_fields("/config", config, ("join", "workers", "keys"))
    join = join_config(config["join"], "/config/join")
    workers, keys = config["workers"], config["keys"]
    if not isinstance(workers, list) or not workers or not all(isinstance(w, str) and w for w in workers):
        raise ProtocolError(12, "/config/workers must be a non-empty list of non-empty strings")
    if not isinstance(keys, list) or not keys:
        raise ProtocolError(12, "/config/keys must be a non-empty list")
    for index, placement in enumerate(keys):
        exact_fields(f"/config/keys/{index}", placement, ("key", "owner"))
        if not all(isinstance(placement[n], str) and placement[n] for n in ("key", "owner")):
            raise ProtocolError(12, f"/config/keys/{index}: key and owner must be non-empty strings")
    if len(set(workers)) != len(workers) or "coordinator" in workers:
        raise ProtocolError(1001, "/config/workers: worker ids are unique and not 'coordinator'")
    declared = set()
    for index, placement in enumerate(keys):
        if placement["owner"] not in workers:
            raise ProtocolError(1001, f"/config/keys/{index}/owner: {placement['owner']!r} is not a listed worker")
        if placement["key"] in declared:
            raise ProtocolError(1001, f"/config/keys/{index}/key: {placement['key']!r} is declared twice")
        declared.add(placement["key"])
    return {"join": join, "workers": list(workers), "keys": [dict(p) for p in keys]}


def check_body(request):
    kind = request["type"]
    fields = BODIES[kind]
    required = [name for name, (_, needed) in fields.items() if needed]
    exact_fields("(document)", request, ["id", "type", *required], list(fields))
    for name, (check, _) in fields.items():
        if name not in request:
            continue
        value = request[name]
        if check == STRING and not (isinstance(value, str) and value):
            raise ProtocolError(12, f"/{name} must be a non-empty string")
        if check == BOOLEAN and not isinstance(value, bool):
            raise ProtocolError(12, f"/{name} must be a boolean")
        if check == "protocol" and not (integral(value) and value == 2):
            raise ProtocolError(12, "/protocol must be 2")
        if check == "level" and value not in LEVELS:
            raise ProtocolError(12, "/level must be operator, cluster or faults")
        if check == "record":
            normalize_record(value)


class Session:
    def __init__(self, level, config):
        self.level = level
        if level == "operator":
            self.join = join_config(config, "/config")
            self.state = JoinState()
        else:
            self.cluster = Cluster(cluster_config(config))

    def handle(self, request):
        kind = request["type"]
        if self.level == "operator":
            if kind != "record":
                raise ProtocolError(10, f"{kind} is not part of level operator")
            self.state, outcome, changes = step(self.state, request["record"], self.join)
            return {"type": "record_ok", "outcome": outcome, "changes": changes, "retained": self.state.retained(self.join)}
        crash_variant = kind in ("commit", "failover") and request.get("crashAfterFence") is True
        if self.level == "cluster" and (kind in FAULTS or crash_variant):
            raise ProtocolError(10, f"{kind} is not part of level cluster")
        cluster = self.cluster
        if kind == "inspect":
            return {"type": "inspect_ok", "observation": cluster.observe()}
        events = []
        crash_after_fence = request.get("crashAfterFence", False)
        try:
            if kind == "record":
                cluster.record(request["record"], events)
            elif kind == "commit":
                cluster.commit(request["key"], crash_after_fence, events)
            elif kind == "failover":
                cluster.failover(request["key"], request["to"], crash_after_fence, events)
            elif kind == "freeze":
                cluster.freeze(request["key"], request["to"], events)
            elif kind == "checkpoint":
                cluster.checkpoint(request["worker"], request["key"], events)
            elif kind in ("crash", "restart"):
                getattr(cluster, kind)(request["node"], events)
            elif kind in ("pause", "resume"):
                getattr(cluster, kind)(request["worker"], events)
            elif kind == "duplicateInstall":
                cluster.duplicate_install(request["key"], events)
            elif kind == "duplicateRelease":
                cluster.duplicate_release(request["key"], events)
            else:
                getattr(cluster, kind)(request["key"], events)
        except NotEnabled as refusal:
            raise ProtocolError(22, str(refusal)) from None
        cluster.run_eagerly(events)
        return {"type": kind + "_ok", "events": events}


class Server:
    def __init__(self):
        self.session = None

    def answer(self, line):
        request_id = None
        try:
            try:
                request = json.loads(line)
            except (ValueError, RecursionError) as error:
                raise ProtocolError(12, f"not JSON: {error}") from None
            if not isinstance(request, dict):
                raise ProtocolError(12, "a request is a JSON object")
            if integral(request.get("id")) and request["id"] >= 0:
                request_id = int(request["id"])
            else:
                raise ProtocolError(12, "/id must be a non-negative integer")
            kind = request.get("type")
            if not isinstance(kind, str):
                raise ProtocolError(12, "/type must be a string")
            if kind not in BODIES:
                raise ProtocolError(1000, f"unknown request type {kind!r}")
            check_body(request)
            if kind == "init":
                config = request["config"]
                self.session = Session(request["level"], config)
                return {"in_reply_to": request_id, "type": "init_ok", "protocol": 2,
                        "implementation": {"name": "ledger", "version": "1.0" + (f"+{ACTIVE}" if ACTIVE else "")},
                        "levels": LEVELS}
            if self.session is None:
                raise ProtocolError(1002, "no session: send init first")
            reply = self.session.handle(request)
            return {"in_reply_to": request_id, **reply}
        except ProtocolError as error:
            return {"in_reply_to": request_id, "type": "error", "code": error.code, "text": str(error)}
        except Exception as error:  # a bug of ours: say so, and keep serving
            traceback.print_exc(file=sys.stderr)
            return {"in_reply_to": request_id, "type": "error", "code": 1003, "text": f"internal error: {error!r}"}


def main():
    server = Server()
    stdin, stdout = sys.stdin.buffer, sys.stdout
    while True:
        raw = stdin.readline()
        if not raw:
            return
        try:
            line = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            line = None
        if line is not None and not line.strip():
            continue
        if line is None:
            reply = {"in_reply_to": None, "type": "error", "code": 12, "text": "the line is not UTF-8"}
        else:
            reply = server.answer(line)
        stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        stdout.flush()


if __name__ == "__main__":
    main()
