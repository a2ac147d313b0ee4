#!/usr/bin/env python3
"""Writes the small SimKube traces the tests read (Python's standard library only).

SimKube's tracer exports a trace as msgpack with named fields (rmp_serde's to_vec_named of
sk-core's Trace): version, config, events, index, pod_lifecycles. This script writes such files
itself, with a msgpack encoder of its own, so that no trace is downloaded:

  tests/golden/convert-simkube/trace.sktrace     the main trace (converted, then replayed)
  tests/golden/convert-simkube-errors/*.sktrace  broken traces, one fault each
  tests/fuzz/corpus/simkube/                     seeds for the fuzz target

Run from the repository's root: python3 tests/simkube/gen_traces.py
"""
import os
import struct

T0 = 1767225600  # 2026-01-01T00:00:00Z


class Map(list):
    """A msgpack map as (key, value) pairs, for keys that are not strings or a fixed order."""


def enc(v):
    if v is None:
        return b"\xc0"
    if v is True:
        return b"\xc3"
    if v is False:
        return b"\xc2"
    if isinstance(v, int):
        if 0 <= v <= 0x7F:
            return bytes([v])
        if -32 <= v < 0:
            return struct.pack(">b", v)
        if v >= 0:
            for code, fmt, top in ((0xCC, ">B", 0xFF), (0xCD, ">H", 0xFFFF),
                                   (0xCE, ">I", 0xFFFFFFFF), (0xCF, ">Q", 1 << 64)):
                if v <= top:
                    return bytes([code]) + struct.pack(fmt, v)
        for code, fmt, lim in ((0xD0, ">b", 1 << 7), (0xD1, ">h", 1 << 15),
                               (0xD2, ">i", 1 << 31), (0xD3, ">q", 1 << 63)):
            if -lim <= v:
                return bytes([code]) + struct.pack(fmt, v)
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str):
        return enc_str(v.encode())
    if isinstance(v, bytes):  # msgpack bin
        return head(len(v), None, 0xC4, 0xC5, 0xC6) + v
    if isinstance(v, Map):
        return head(len(v), 0x80, None, 0xDE, 0xDF) + b"".join(enc(k) + enc(x) for k, x in v)
    if isinstance(v, dict):
        return enc(Map(v.items()))
    if isinstance(v, (list, tuple)):
        return head(len(v), 0x90, None, 0xDC, 0xDD) + b"".join(enc(x) for x in v)
    raise TypeError(v)


class Raw(bytes):
    """Bytes written as a msgpack str whatever they hold (a string that is not UTF-8)."""


def enc_str(b):
    return head(len(b), 0xA0, 0xD9, 0xDA, 0xDB, fix=32) + b


def head(n, fix_code, c8, c16, c32, fix=16):
    if fix_code is not None and n < fix:
        return bytes([fix_code | n])
    if c8 is not None and n <= 0xFF:
        return bytes([c8, n])
    if n <= 0xFFFF:
        return bytes([c16]) + struct.pack(">H", n)
    return bytes([c32]) + struct.pack(">I", n)


def enc_any(v):
    if isinstance(v, Raw):
        return enc_str(bytes(v))
    return enc(v)


# ------------------------------------------------------------------ the objects


def container(cpu, mem):
    return {"name": "main", "image": "registry.example/app:1",
            "resources": {"requests": {"cpu": cpu, "memory": mem}}}


def deployment(name, replicas, cpu):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"annotations": {}, "name": name, "namespace": "shop"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"creationTimestamp": None, "labels": {"app": name}},
                                  "spec": {"containers": [container(cpu, "256Mi")],
                                           "terminationGracePeriodSeconds": 30}}}}


def pod(name, cpu, pclass=None):
    spec = {"containers": [container(cpu, "512Mi")], "restartPolicy": "Never",
            "schedulerName": "default-scheduler", "terminationGracePeriodSeconds": 30}
    if pclass:
        spec["priorityClassName"] = pclass
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"annotations": {}, "name": name, "namespace": "batch"}, "spec": spec}


def event(ts, applied=(), deleted=()):
    return {"ts": ts, "applied_objs": list(applied), "deleted_objs": list(deleted)}


CONFIG = {"trackedObjects": {
    "apps/v1.Deployment": {"podSpecTemplatePaths": ["/spec/template"]},
    "v1.Pod": {"podSpecTemplatePaths": [""], "trackLifecycle": True, "skipOwned": True}}}


def trace(events, lifecycles=None, version=2, config=CONFIG):
    return {"version": version, "config": config, "events": events,
            "index": {"apps/v1.Deployment": {"shop/web": 11400714819323198485,
                                             "shop/api": 7046029254386353131}},
            "pod_lifecycles": lifecycles if lifecycles is not None else Map()}


def main_trace():
    events = [
        # SimKube's export starts with the objects present at the start, then what happened
        event(T0, [deployment("web", 2, "500m"), pod("report-1", "1")]),
        event(T0, [deployment("api", 1, "250m")]),
        event(T0 + 60, [deployment("web", 4, "500m")]),  # scaled up
        event(T0 + 90, [pod("urgent", "1500m", "high")]),
        event(T0 + 120, [], [deployment("api", 1, "250m")]),
        event(T0 + 150, [deployment("web", 4, "250m")]),  # a new pod template
        event(T0 + 240, [pod("report-2", "500m")]),
    ]
    lc = Map([
        (["v1.Pod", "batch/report-1"], Map([(2151974655102796215, [{"Finished": [T0 + 5, T0 + 100]}])])),
        (["v1.Pod", "batch/urgent"], Map([(2151974655102796215, [{"Running": T0 + 91}])])),
        (["apps/v1.Deployment", "shop/web"],
         Map([(10855072724872030168, [{"Finished": [T0 + 2, T0 + 30]}, "Empty"])])),
    ])
    return trace(events, lc)


def bad_traces():
    ok = [event(T0, [deployment("web", 1, "500m")])]
    bad_name = deployment("web", 1, "500m")
    bad_name["metadata"]["name"] = "../../etc/passwd\n"
    no_kind = deployment("web", 1, "500m")
    del no_kind["kind"]
    binary = deployment("web", 1, "500m")
    binary["spec"]["template"]["spec"]["containers"][0]["image"] = b"\x00\x01"
    not_utf8 = deployment("web", 1, "500m")
    not_utf8["metadata"]["labels"] = Map([("team", Raw(b"caf\xe9"))])
    deep = deployment("web", 1, "500m")
    nest = "x"
    for _ in range(40):
        nest = [nest]
    deep["spec"]["deep"] = nest
    full = enc(main_trace())
    absurd = (b"\x85" + enc("version") + enc(2) + enc("config") + enc(CONFIG) + enc("events")
              + b"\xdd\xff\xff\xff\xff" + enc(event(T0)))
    return {
        "truncated": full[: len(full) // 2],
        "version-1": enc(trace(ok, version=1)),
        "ts-string": enc(trace(ok + [event("soon")])),
        "ts-backwards": enc(trace(ok + [event(T0 + 60), event(T0 + 30)])),
        "absurd-count": absurd,
        "hostile-name": enc(trace([event(T0, [bad_name])])),
        "no-kind": enc(trace(ok + [event(T0 + 5, [no_kind])])),
        "binary-value": enc(trace([event(T0, [binary])])),
        "not-utf8": encode_raw(trace([event(T0, [not_utf8])])),
        "too-deep": enc(trace([event(T0, [deep])])),
        "not-msgpack": b"\xc1",
        "trailing-bytes": enc(trace(ok)) + b"\x00",
        "not-a-trace": enc(["version", 2]),
        "bad-lifecycle": enc(trace(ok, Map([(["v1.Pod", "batch/x"],
                                             Map([(1, [{"Finished": [T0]}])]))]))),
        "empty": b"",
    }


def encode_raw(v):
    """enc, with Raw strings written as they are."""
    if isinstance(v, Raw):
        return enc_any(v)
    if isinstance(v, Map):
        return head(len(v), 0x80, None, 0xDE, 0xDF) + b"".join(
            encode_raw(k) + encode_raw(x) for k, x in v)
    if isinstance(v, dict):
        return encode_raw(Map(v.items()))
    if isinstance(v, list):
        return head(len(v), 0x90, None, 0xDC, 0xDD) + b"".join(encode_raw(x) for x in v)
    return enc(v)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    main_bytes = enc(main_trace())
    write("tests/golden/convert-simkube/trace.sktrace", main_bytes)
    write("tests/fuzz/corpus/simkube/main.sktrace", main_bytes)
    for name, data in bad_traces().items():
        write("tests/golden/convert-simkube-errors/%s.sktrace" % name, data)
        if name != "absurd-count" and data:
            write("tests/fuzz/corpus/simkube/%s.sktrace" % name, data[:4096])


if __name__ == "__main__":
    main()
