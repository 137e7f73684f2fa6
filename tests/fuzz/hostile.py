"""A kit of hostile inputs: named bad files, doctored traces, hostile claim files and bad
options, each with what the CLI must do with it.

``build(root)`` writes every file under ``root`` and returns the cases.  A case is
``(name, argv, expect)`` where ``expect`` is one of

``("input", path, line)``
    exit 2, one line on stderr naming ``path`` (and ``path:line`` when line is given);
``("usage", option)``
    exit 2, one line on stderr naming the option;
``("reject", t)``
    a doctored trace: ``check`` exits 1 saying INCONSISTENT at visit ``t`` (``t`` None: the
    end record), or exits 2 with one line naming the trace file (a structural fault);
``("limit",)``
    the command finishes (exit 0 or 1) and says it reached a limit or is unknown;
``("ok",)``
    the command succeeds (exit 0).
"""

from __future__ import annotations

import json
import os
import zipfile

import numpy as np

from perceptron import Params, from_rows, train
from perceptron.datasets import write_csv
from perceptron.trace_writers import open_writer

#: 12 points in 2-D, separable through the origin, two of them needing several updates.
POINTS = [((2, 1), 1), ((1, 3), 1), ((3, -1), 1), ((-1, -2), -1), ((-2, 1), -1), ((-3, -1), -1),
          ((1, 1), 1), ((-1, 2), -1), ((4, 1), 1), ((-2, -2), -1), ((2, -1), 1), ((-1, -1), -1)]


def _primes(k):
    out, n = [], 2
    while len(out) < k:
        if all(n % p for p in out if p * p <= n):
            out.append(n)
        n += 1
    return out


def _write(path, text, mode="w"):
    with open(path, mode) as fh:
        fh.write(text)
    return path


def _npz(path, members: dict):
    """An NPZ written member by member (raw bytes where a member is bytes)."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, val in members.items():
            if not isinstance(val, bytes) and f"{name}.npy" in members:
                continue  # replaced by raw bytes
            if isinstance(val, bytes):
                zf.writestr(name, val)
            else:
                with zf.open(name + ".npy", "w") as out:
                    np.lib.format.write_array(out, np.asarray(val), allow_pickle=False)
    return path


def _npy_header_only(shape, dtype="<f8") -> bytes:
    import io

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue() + b"\0" * 64


def _lines(path):
    with open(path) as fh:
        return [json.loads(ln) for ln in fh if ln.strip()]


def _dump(path, objs):
    with open(path, "w") as fh:
        for o in objs:
            fh.write((o if isinstance(o, str) else json.dumps(o)) + "\n")
    return path


def _visits(objs):
    return [j for j, o in enumerate(objs) if o.get("type") == "visit"]


def build_base(root: str):
    """The valid files the cases are made from: sep.csv (also .svm, .dat), a trace of each
    kind (exact, float, novikoff, pocket, kernel; .jsonl and .npz) and a claim file."""
    from fractions import Fraction

    os.makedirs(root, exist_ok=True)
    ds = from_rows("sep", [p for p, _ in POINTS], [y for _, y in POINTS])
    write_csv(ds, os.path.join(root, "sep.csv"))
    _write(os.path.join(root, "sep.svm"), "".join(f"{y} 1:{p[0]} 2:{p[1]}\n" for p, y in POINTS))
    _write(os.path.join(root, "sep.dat"), f"{len(POINTS)}\n2\n" + "".join(
        f"{(y + 1) // 2}\n{p[0]}/1\n{p[1]} % 2\n" for p, y in POINTS))
    runs = {
        "exact": Params(order="cyclic"),
        "float": Params(order="cyclic", arithmetic="float"),
        "novikoff": Params(variant="novikoff", order="cyclic"),
        "pocket": Params(variant="pocket", order="cyclic", max_epochs=3, eta=Fraction(1, 2)),
        "kernel": Params(variant="kernel", order="cyclic"),
    }
    for key, prm in runs.items():
        for ext in ("jsonl", "npz"):
            train(ds, prm, open_writer(os.path.join(root, f"{key}.{ext}")))
    train(ds, runs["exact"], open_writer(os.path.join(root, "checkpoints.npz"), "checkpoints"))
    _write(os.path.join(root, "claims.toml"), '[document]\nfile = "n.md"\ntitle = "t"\n\n[[claim]]\nid = "a.b"\n'
           'section = "s"\nstatement = "s"\nexpr = "mistakes <= R2/gamma**2"\nvariants = ["rosenblatt"]\nwhen = "end"\n'
           'assume = ["separable", "w0_zero", "eta_one"]\nexpect = "holds"\n')
    return ds, runs


def build(root: str) -> list:
    os.makedirs(root, exist_ok=True)
    P = lambda name: os.path.join(root, name)  # noqa: E731
    cases = []

    def add(name, argv, *expect):
        cases.append((name, [str(a) for a in argv], expect))

    # ------------------------------------------------------------------ valid base
    ds, runs = build_base(root)
    data = P("sep.csv")
    for key in runs:
        add(f"valid {key} trace", ["check", "--data", data, "--trace", P(f"{key}.jsonl"), "--only", "000.converges"], "ok")

    # ------------------------------------------------------------------ doctored JSONL traces
    def doctor(key, name, fn, *expect):
        objs = _lines(P(f"{key}.jsonl"))
        out = fn(objs)
        path = _dump(P(f"doc-{key}-{len(cases)}.jsonl"), out if out is not None else objs)
        add(f"doctored {key}: {name}", ["check", "--data", data, "--trace", path], *expect)

    for key in ("exact", "float"):
        objs = _lines(P(f"{key}.jsonl"))
        vj = _visits(objs)
        n_vis = len(vj)

        def drop_after(o, m=5):
            v = _visits(o)
            return [x for j, x in enumerate(o) if j not in v[m:]]

        doctor(key, "visits after the 5th dropped", drop_after, "reject", 6)
        doctor(key, "cut to its first visit, end kept", lambda o: drop_after(o, 1), "reject", 2)
        doctor(key, "cut to its first visit, no end", lambda o: o[:2], "input", None, None)
        doctor(key, "no end record", lambda o: o[:-1], "input", None, None)
        doctor(key, "end: updates 99, converged false",
               lambda o: o[:-1] + [{**o[-1], "updates": 99, "converged": False}], "reject", None)
        doctor(key, "end: converged flipped", lambda o: o[:-1] + [{**o[-1], "converged": not o[-1]["converged"]}], "reject", None)
        doctor(key, "end: epochs + 1", lambda o: o[:-1] + [{**o[-1], "epochs": o[-1]["epochs"] + 1}], "reject", None)
        doctor(key, "end: visits - 1", lambda o: o[:-1] + [{**o[-1], "visits": o[-1]["visits"] - 1}], "reject", None)
        doctor(key, "end: stop max_epochs", lambda o: o[:-1] + [{**o[-1], "stop": "max_epochs"}], "reject", None)
        doctor(key, "end: w changed",
               lambda o: o[:-1] + [{**o[-1], "w": ["7", "7"] if key == "exact" else [7.0, 7.0]}], "reject", None)
        doctor(key, "end: updates as a string", lambda o: o[:-1] + [{**o[-1], "updates": str(o[-1]["updates"])}],
               "input", None, len(objs))
        doctor(key, "end: unknown field", lambda o: o[:-1] + [{**o[-1], "verified": True}], "input", None, len(objs))
        doctor(key, "header variant changed (params kept)", lambda o: [{**o[0], "variant": "novikoff"}] + o[1:],
               "input", None, 1)
        doctor(key, "params.arithmetic flipped",
               lambda o: [{**o[0], "params": {**o[0]["params"], "arithmetic": "float" if key == "exact" else "exact"}}] + o[1:],
               "input", None, 1)
        doctor(key, "header arithmetic flipped",
               lambda o: [{**o[0], "arithmetic": "float" if key == "exact" else "exact"}] + o[1:], "input", None, 1)
        doctor(key, "unknown variant", lambda o: [{**o[0], "variant": "margin", "params": {**o[0]["params"], "variant": "margin"}}] + o[1:],
               "input", None, 1)
        doctor(key, "params: order zigzag", lambda o: [{**o[0], "params": {**o[0]["params"], "order": "zigzag"}}] + o[1:],
               "input", None, 1)
        doctor(key, "params: patience -1", lambda o: [{**o[0], "params": {**o[0]["params"], "patience": -1}}] + o[1:],
               "input", None, 1)
        doctor(key, "params: max_epochs 1.5", lambda o: [{**o[0], "params": {**o[0]["params"], "max_epochs": 1.5}}] + o[1:],
               "input", None, 1)
        doctor(key, "params: extra field", lambda o: [{**o[0], "params": {**o[0]["params"], "mode": "x"}}] + o[1:],
               "input", None, 1)
        doctor(key, "params: missing eta", lambda o: [{**o[0], "params": {k: v for k, v in o[0]["params"].items() if k != "eta"}}] + o[1:],
               "input", None, 1)
        doctor(key, "params: eta 1e999999999", lambda o: [{**o[0], "params": {**o[0]["params"], "eta": "1e999999999"}}] + o[1:],
               "input", None, 1)
        doctor(key, "params: eta NaN", lambda o: [{**o[0], "params": {**o[0]["params"], "eta": "nan"}}] + o[1:],
               "input", None, 1)
        doctor(key, "params: a different eta", lambda o: [{**o[0], "params": {**o[0]["params"], "eta": "2" if key == "exact" else 2.0}}] + o[1:],
               "reject", "any")
        doctor(key, "params: max_updates 1", lambda o: [{**o[0], "params": {**o[0]["params"], "max_updates": 1}}] + o[1:],
               "reject", "any")
        doctor(key, "model_dim wrong", lambda o: [{**o[0], "model_dim": 3}] + o[1:], "input", None, 1)
        doctor(key, "dual true", lambda o: [{**o[0], "dual": True}] + o[1:], "input", None, 1)
        doctor(key, "record: updates", lambda o: [{**o[0], "record": "updates"}] + o[1:], "reject", "any")
        doctor(key, "record: sideways", lambda o: [{**o[0], "record": "sideways"}] + o[1:], "input", None, 1)
        doctor(key, "schema version 2", lambda o: [{**o[0], "version": 2}] + o[1:], "input", None, 1)
        doctor(key, "version true", lambda o: [{**o[0], "version": True}] + o[1:], "input", None, 1)
        doctor(key, "dataset sha changed", lambda o: [{**o[0], "dataset": {**o[0]["dataset"], "sha256": "0" * 64}}] + o[1:],
               "reject", None)
        doctor(key, "dataset sha not hex", lambda o: [{**o[0], "dataset": {**o[0]["dataset"], "sha256": "z" * 64}}] + o[1:],
               "input", None, 1)
        doctor(key, "dataset n changed", lambda o: [{**o[0], "dataset": {**o[0]["dataset"], "n": 13}}] + o[1:], "reject", "any")
        doctor(key, "dataset n = 10^15", lambda o: [{**o[0], "dataset": {**o[0]["dataset"], "n": 10**15}}] + o[1:],
               "input", None, 1)
        doctor(key, "dataset a list", lambda o: [{**o[0], "dataset": [1, 2]}] + o[1:], "input", None, 1)
        doctor(key, "header extra field", lambda o: [{**o[0], "trusted": True}] + o[1:], "input", None, 1)
        doctor(key, "no header", lambda o: o[1:], "input", None, 1)
        doctor(key, "two headers", lambda o: [o[0]] + o, "input", None, 2)
        doctor(key, "record after the end", lambda o: o + [o[1]], "input", None, len(objs) + 1)
        doctor(key, "unknown record type", lambda o: o[:2] + [{"type": "note"}] + o[2:], "input", None, 3)
        doctor(key, "a line that is not JSON", lambda o: o[:2] + ["{not json"] + o[2:], "input", None, 3)
        doctor(key, "a JSON array line", lambda o: o[:2] + ["[1, 2]"] + o[2:], "input", None, 3)
        doctor(key, "t of 100 000 digits", lambda o: o[:1] + ['{"type":"visit","t":' + "9" * 100_000 + "}"] + o[1:],
               "input", None, 2)
        doctor(key, "swapped visits 3 and 4", lambda o: o[:vj[2]] + [o[vj[3]], o[vj[2]]] + o[vj[3] + 1:], "reject", 3)
        doctor(key, "visit 4 duplicated", lambda o: o[:vj[4]] + [o[vj[3]]] + o[vj[4]:], "reject", 5)
        doctor(key, "an extra visit before the end", lambda o: o[:-1] + [{**o[vj[-1]], "t": n_vis + 1}] + o[-1:],
               "reject", n_vis + 1)

        def field(j, **kw):
            def fn(o):
                o = [dict(x) for x in o]
                o[vj[j]].update(kw)
                return o
            return fn

        doctor(key, "mistake 'false' (a string)", field(0, mistake="false"), "input", None, vj[0] + 1)
        doctor(key, "mistake 1 (an int)", field(1, mistake=1), "input", None, vj[1] + 1)
        doctor(key, "y 1.9", field(2, y=1.9), "input", None, vj[2] + 1)
        doctor(key, "y 2", field(2, y=2), "input", None, vj[2] + 1)
        doctor(key, "y true", field(2, y=True), "input", None, vj[2] + 1)
        doctor(key, "t true", field(2, t=True), "input", None, vj[2] + 1)
        doctor(key, "k 1.0", field(2, k=1.0), "input", None, vj[2] + 1)
        doctor(key, "i out of range", field(2, i=12), "input", None, vj[2] + 1)
        doctor(key, "i negative", field(2, i=-1), "input", None, vj[2] + 1)
        doctor(key, "an unknown visit field", field(2, note="x"), "input", None, vj[2] + 1)
        doctor(key, "alpha on a primal run", field(0, alpha=[1] * 12), "input", None, vj[0] + 1)
        doctor(key, "label flipped", field(3, y=-objs[vj[3]]["y"]), "reject", 4)
        doctor(key, "epoch wrong", field(3, epoch=2), "reject", 4)
        doctor(key, "k wrong", field(3, k=objs[vj[3]]["k"] + 1), "reject", 4)
        doctor(key, "point index changed", field(3, i=(objs[vj[3]]["i"] + 1) % 12), "reject", 4)
        doctor(key, "score a list", field(3, score=[1]), "input", None, vj[3] + 1)
        if key == "exact":
            doctor(key, "score changed", field(3, score="12345"), "reject", 4)
            doctor(key, "score not a multiple of the scale", field(3, score="1/3"), "input", None, vj[3] + 1)
            doctor(key, "score a float", field(3, score=1.5), "input", None, vj[3] + 1)
            doctor(key, "score 1e999999999", field(3, score="1e999999999"), "input", None, vj[3] + 1)
            doctor(key, "scale 0", lambda o: [{**o[0], "scale": {**o[0]["scale"], "score": "0"}}] + o[1:], "input", None, 1)
            doctor(key, "scale -1", lambda o: [{**o[0], "scale": {**o[0]["scale"], "w": "-1"}}] + o[1:], "input", None, 1)
            doctor(key, "scale abc", lambda o: [{**o[0], "scale": {**o[0]["scale"], "w": "abc"}}] + o[1:], "input", None, 1)
            doctor(key, "scale missing", lambda o: [{k: v for k, v in o[0].items() if k != "scale"}] + o[1:], "input", None, 1)
            doctor(key, "scale of 5000 digits", lambda o: [{**o[0], "scale": {**o[0]["scale"], "w": "7" * 5000}}] + o[1:],
                   "input", None, 1)
        else:
            doctor(key, "score changed", field(3, score=123.5), "reject", 4)
            doctor(key, "score NaN", lambda o: o[:vj[3]] + [json.dumps(o[vj[3]]).replace(
                f'"score": {json.dumps(o[vj[3]]["score"])}', '"score": NaN')] + o[vj[3] + 1:], "input", None, vj[3] + 1)
            doctor(key, "score Infinity", lambda o: o[:vj[3]] + [json.dumps(o[vj[3]]).replace(
                f'"score": {json.dumps(o[vj[3]]["score"])}', '"score": -Infinity')] + o[vj[3] + 1:], "input", None, vj[3] + 1)
            doctor(key, "score a string", field(3, score="1.5"), "input", None, vj[3] + 1)
            doctor(key, "a scale in a float header", lambda o: [{**o[0], "scale": {"score": "1"}}] + o[1:], "input", None, 1)
        upd = [j for j in vj if objs[j]["mistake"]]
        u1 = next(j for j in upd if objs[j]["t"] > 1)
        t_u1 = objs[u1]["t"]

        def set_at(j, **kw):
            def fn(o):
                o = [dict(x) for x in o]
                o[j].update(kw)
                return o
            return fn

        wlen = len(objs[u1]["w"])
        doctor(key, "w changed at an update", set_at(u1, w=(["99"] if key == "exact" else [99.0]) * wlen), "reject", t_u1)
        doctor(key, "w of the wrong length", set_at(u1, w=objs[u1]["w"] + objs[u1]["w"][:1]), "input", None, u1 + 1)
        doctor(key, "w missing at an update", lambda o: o[:u1] + [{k: v for k, v in o[u1].items() if k != "w"}] + o[u1 + 1:],
               "reject", t_u1)
        doctor(key, "mistake flag flipped to false at an update",
               lambda o: o[:u1] + [{k: v for k, v in o[u1].items() if k != "w"} | {"mistake": False}] + o[u1 + 1:],
               "reject", t_u1)
        qj = next(j for j in vj if not objs[j]["mistake"] and objs[j]["k"] > 0)
        doctor(key, "mistake true on a correct point", set_at(qj, mistake=True), "reject", objs[qj]["t"])
        doctor(key, "weights on a visit without an update", set_at(qj, w=objs[u1]["w"]), "reject", objs[qj]["t"])
        doctor(key, "pocket mark on a rosenblatt run", set_at(u1, pocket=True), "input", None, u1 + 1)

    # bias, pocket and kernel runs
    nov = _lines(P("novikoff.jsonl"))
    nu = next(j for j in _visits(nov) if nov[j]["mistake"])
    doctor("novikoff", "b changed", lambda o: o[:nu] + [{**o[nu], "b": "12345"}] + o[nu + 1:], "reject", nov[nu]["t"])
    doctor("novikoff", "b missing", lambda o: o[:nu] + [{k: v for k, v in o[nu].items() if k != "b"}] + o[nu + 1:],
           "input", None, nu + 1)
    doctor("novikoff", "end b changed", lambda o: o[:-1] + [{**o[-1], "b": "5"}], "reject", None)
    poc = _lines(P("pocket.jsonl"))
    pu = [j for j in _visits(poc) if poc[j]["mistake"]]
    marked = [j for j in pu if poc[j].get("pocket")]
    unmarked = [j for j in pu if not poc[j].get("pocket")]
    if marked:
        doctor("pocket", "a pocket mark removed", lambda o: o[:marked[0]] + [{k: v for k, v in o[marked[0]].items() if k != "pocket"}]
               + o[marked[0] + 1:], "reject", poc[marked[0]]["t"])
    if unmarked:
        doctor("pocket", "a pocket mark added", lambda o: o[:unmarked[0]] + [{**o[unmarked[0]], "pocket": True}] + o[unmarked[0] + 1:],
               "reject", poc[unmarked[0]]["t"])
    doctor("pocket", "end w_pocket changed", lambda o: o[:-1] + [{**o[-1], "w_pocket": ["3", "3"]}], "reject", None)
    doctor("pocket", "end run_pocket changed", lambda o: o[:-1] + [{**o[-1], "run_pocket": 999}], "reject", None)
    ker = _lines(P("kernel.jsonl"))
    ku = next(j for j in _visits(ker) if ker[j]["mistake"] and ker[j]["t"] > 1)
    doctor("kernel", "alpha changed", lambda o: o[:ku] + [{**o[ku], "alpha": [5] * 12}] + o[ku + 1:], "reject", ker[ku]["t"])
    doctor("kernel", "alpha negative", lambda o: o[:ku] + [{**o[ku], "alpha": [-1] * 12}] + o[ku + 1:], "input", None, ku + 1)
    doctor("kernel", "w on a kernel run", lambda o: o[:ku] + [{**o[ku], "w": ["1", "1"]}] + o[ku + 1:], "input", None, ku + 1)
    doctor("kernel", "end alpha changed", lambda o: o[:-1] + [{**o[-1], "alpha": [1] * 12}], "reject", None)

    # the trace is for another dataset / file problems
    other = from_rows("other", [p for p, _ in POINTS][:6], [y for _, y in POINTS][:6])
    odata = P("other.csv")
    write_csv(other, odata)
    add("trace of another dataset", ["check", "--data", odata, "--trace", P("exact.jsonl")], "reject", None)
    add("empty trace", ["check", "--data", data, "--trace", _write(P("empty.jsonl"), "")], "input", P("empty.jsonl"), None)
    add("binary trace", ["check", "--data", data, "--trace", _write(P("bin.jsonl"), b"\xff\xfe\x00\x01" * 100, "wb")],
        "input", P("bin.jsonl"), None)
    add("missing trace", ["check", "--data", data, "--trace", P("nope.jsonl")], "input", P("nope.jsonl"), None)
    add("trace is a directory", ["check", "--data", data, "--trace", root], "input", root, None)
    add("trace is /dev/zero", ["check", "--data", data, "--trace", "/dev/zero"], "input", "/dev/zero", None)
    sparse = P("huge.jsonl")
    with open(sparse, "wb") as fh:
        fh.truncate((1 << 30) + 10)
    add("trace of 1 GiB + 10 bytes (sparse)", ["check", "--data", data, "--trace", sparse], "input", sparse, None)
    deep = _write(P("deep.jsonl"), "[" * 200_000 + "\n")
    add("trace line nested 200 000 deep", ["check", "--data", data, "--trace", deep], "input", deep, 1)

    # ------------------------------------------------------------------ doctored NPZ traces
    def npz_doctor(key, name, fn, *expect):
        with np.load(P(f"{key}.npz"), allow_pickle=False) as z:
            members = {k: z[k] for k in z.files}
        out = fn(members)
        path = _npz(P(f"doc-{key}-{len(cases)}.npz"), out if out is not None else members)
        add(f"doctored {key}.npz: {name}", ["check", "--data", data, "--trace", path], *expect)

    def hdr(m, **kw):
        h = json.loads(str(m["header"]))
        h.update(kw)
        return {**m, "header": np.array(json.dumps(h))}

    def endrec(m, **kw):
        e = json.loads(str(m["end"]))
        e.update(kw)
        return {**m, "end": np.array(json.dumps(e))}

    for key in ("exact", "float"):
        npz_doctor(key, "header raw bytes", lambda m: {**{k: v for k, v in m.items() if k != "header"}, "header.npy": b"garbage"},
                   "input", None, None)
        npz_doctor(key, "header not JSON", lambda m: {**m, "header": np.array("{not json")}, "input", None, None)
        npz_doctor(key, "header a number", lambda m: {**m, "header": np.array(3.0)}, "input", None, None)
        npz_doctor(key, "no end", lambda m: {k: v for k, v in m.items() if k != "end"}, "input", None, None)
        npz_doctor(key, "end: updates 99", lambda m: endrec(m, updates=99, converged=False), "reject", None)
        npz_doctor(key, "header variant changed", lambda m: hdr(m, variant="sign"), "input", None, None)
        npz_doctor(key, "params arithmetic flipped", lambda m: hdr(m, params={**json.loads(str(m["header"]))["params"],
                   "arithmetic": "float" if key == "exact" else "exact"}), "input", None, None)
        npz_doctor(key, "column i dropped", lambda m: {k: v for k, v in m.items() if k != "i"}, "input", None, None)
        npz_doctor(key, "y as floats", lambda m: {**m, "y": m["y"].astype(float) * 0.95}, "input", None, None)
        npz_doctor(key, "y = 2", lambda m: {**m, "y": np.where(m["y"] > 0, 2, -1).astype(np.int8)}, "input", None, None)
        npz_doctor(key, "mistake flipped at visit 4", lambda m: {**m, "mistake": np.where(np.arange(len(m["mistake"])) == 3,
                   ~m["mistake"], m["mistake"])}, "reject", "any")
        npz_doctor(key, "visits after the 5th dropped", lambda m: {**m, "i": m["i"][:5], "mistake": m["mistake"][:5],
                   ("score_num" if key == "exact" else "score"): m["score_num" if key == "exact" else "score"][:5]}, "input", None, None)
        npz_doctor(key, "segment length negative", lambda m: {**m, "seg_len": -m["seg_len"]}, "input", None, None)
        npz_doctor(key, "segments mismatched", lambda m: {**m, "seg_t0": m["seg_t0"][:-1]}, "input", None, None)
        npz_doctor(key, "w of the wrong width", lambda m: {**m, ("w_num" if key == "exact" else "w"):
                   np.hstack([m["w_num" if key == "exact" else "w"]] * 2)}, "input", None, None)
        npz_doctor(key, "w rows dropped", lambda m: {**m, ("w_num" if key == "exact" else "w"):
                   m["w_num" if key == "exact" else "w"][:1]}, "reject", "any")
        npz_doctor(key, "a member claiming 10^12 rows", lambda m: {**m, "i.npy": _npy_header_only((10**12, 2))}, "input", None, None)
        npz_doctor(key, "an object member", lambda m: {**m, "i.npy": _npy_header_only((3,), "|O")}, "input", None, None)
        npz_doctor(key, "a member shorter than its header", lambda m: {**m, "i.npy": _npy_header_only((1000,), "<i8")},
                   "input", None, None)
        if key == "float":
            npz_doctor(key, "score NaN", lambda m: {**m, "score": np.where(np.arange(len(m["score"])) == 3, np.nan, m["score"])},
                       "input", None, None)
            npz_doctor(key, "w altered in its last bit", lambda m: {**m, "w": np.nextafter(m["w"], np.inf)}, "reject", "any")
        else:
            npz_doctor(key, "score numerators as text of letters", lambda m: {**m, "score_num": np.array(["x"] * len(m["score_num"]))},
                       "input", None, None)
    # a checkpoint trace (each update's visit and point, weights every checkpoint_every updates)
    add("valid checkpoint trace", ["check", "--data", data, "--trace", P("checkpoints.npz")], "ok")
    ck = "checkpoints"
    npz_doctor(ck, "upd_i out of range", lambda m: {**m, "upd_i": m["upd_i"] + 99}, "input", None, None)
    npz_doctor(ck, "upd_i negative", lambda m: {**m, "upd_i": -m["upd_i"] - 1}, "input", None, None)
    npz_doctor(ck, "upd_i another point", lambda m: {**m, "upd_i": (m["upd_i"] + 1) % 6}, "reject", "any")
    npz_doctor(ck, "upd_t as floats", lambda m: {**m, "upd_t": m["upd_t"].astype(float)}, "input", None, None)
    npz_doctor(ck, "upd_t not increasing", lambda m: {**m, "upd_t": m["upd_t"][::-1].copy()}, "input", None, None)
    npz_doctor(ck, "upd_t as int8 (wraps)", lambda m: {**m, "upd_t": (m["upd_t"] * 100).astype(np.int8)}, "input", None, None)
    npz_doctor(ck, "upd_t past the end's visits", lambda m: {**m, "upd_t": m["upd_t"] + 10**6}, "input", None, None)
    npz_doctor(ck, "an update dropped", lambda m: {**m, "upd_t": m["upd_t"][:-1], "upd_i": m["upd_i"][:-1]},
               "input", None, None)
    npz_doctor(ck, "upd_i column dropped", lambda m: {k: v for k, v in m.items() if k != "upd_i"}, "input", None, None)
    npz_doctor(ck, "a visit column added", lambda m: {**m, "i": np.zeros(3, dtype=np.int64)}, "input", None, None)
    npz_doctor(ck, "checkpoint of the wrong width", lambda m: {**m, "checkpoint_w_num": np.zeros((0, 3), dtype=np.int64)},
               "input", None, None)
    npz_doctor(ck, "checkpoint_every 0", lambda m: hdr(m, checkpoint_every=0), "input", None, None)
    npz_doctor(ck, "checkpoint_every 1 (rows missing)", lambda m: hdr(m, checkpoint_every=1), "input", None, None)
    npz_doctor(ck, "checkpoint_every dropped", lambda m: hdr(m, checkpoint_every=None), "input", None, None)
    npz_doctor(ck, "record checkpoints of a pocket run", lambda m: hdr(m, variant="pocket", params={
        **json.loads(str(m["header"]))["params"], "variant": "pocket"}), "input", None, None)
    npz_doctor(ck, "end: one more epoch", lambda m: endrec(m, epochs=json.loads(str(m["end"]))["epochs"] + 1), "reject", None)
    npz_doctor(ck, "end: w altered", lambda m: endrec(m, w=["7"] * len(json.loads(str(m["end"]))["w"])), "reject", None)
    npz_doctor(ck, "end: stopped by max_epochs", lambda m: endrec(m, stop="max_epochs", converged=False), "reject", None)
    # a doctored copy of a member before the genuine one (numpy would read the last: a clean run)
    import io as _io
    import warnings

    with np.load(P("checkpoints.npz"), allow_pickle=False) as z:
        members = {k: z[k] for k in z.files}
    dup = _npz(P("dup.npz"), {**members, "upd_i": (members["upd_i"] + 1) % 6})
    buf = _io.BytesIO()
    np.lib.format.write_array(buf, members["upd_i"], allow_pickle=False)
    with warnings.catch_warnings(), zipfile.ZipFile(dup, "a") as zf:
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name: that is the point
        zf.writestr("upd_i.npy", buf.getvalue())
    add("doctored checkpoints.npz: a member twice (doctored first)", ["check", "--data", data, "--trace", dup],
        "input", None, None)
    npz_doctor(ck, "a key twice in the end record", lambda m: {**m, "end": np.array(
        str(m["end"])[:-1] + ', "updates": 0}')}, "input", None, None)
    add("checkpoint trace as JSON Lines", ["check", "--data", data, "--trace", _dump(P("ck.jsonl"), [
        {"type": "header", **json.loads(str(np.load(P("checkpoints.npz"))["header"]))}])], "input", P("ck.jsonl"), None)
    add("empty NPZ trace", ["check", "--data", data, "--trace", _npz(P("empty.npz"), {})], "input", P("empty.npz"), None)
    add("NPZ trace that is not a zip", ["check", "--data", data, "--trace", _write(P("nozip.npz"), "hello")], "input", P("nozip.npz"), None)
    with open(P("exact.npz"), "rb") as fh:
        head = fh.read(300)
    add("truncated NPZ trace", ["check", "--data", data, "--trace", _write(P("trunc.npz"), head, "wb")], "input", P("trunc.npz"), None)

    # ------------------------------------------------------------------ bad dataset files
    def bad_data(name, fname, content, line=None, fmt=None, extra=()):
        path = P(fname)
        if isinstance(content, bytes):
            _write(path, content, "wb")
        elif content is not None:
            _write(path, content)
        argv = ["train", "--data", path, *(["--format", fmt] if fmt else []), *extra]
        add(f"data: {name}", argv, "input", path, line)

    good = "1,2,1\n-1,-2,-1\n"
    csv_cells = {"NaN": "nan", "inf": "inf", "-Infinity": "-Infinity", "1e999999999": "1e999999999", "1e5000": "1e5000",
                 "1/0": "1/0", "0x10": "0x10", "1_000": "1_000", "Arabic digits": "\u0661\u0662", "superscript two": "\u00b2",
                 "--3": "--3", "3/4/5": "3/4/5", "1e": "1e", "a word": "abc", "2000 digits": "7" * 2000,
                 "1/ 3 5": "1/ 3 5", "NUL": "1\x002", "p % 0": "3 % 0", "1.2.3": "1.2.3", "+-1": "+-1"}
    for j, (name, cell) in enumerate(csv_cells.items()):
        bad_data(f"CSV cell {name}", f"cell{j}.csv", good + f"{cell},1,1\n", 3)
        bad_data(f"CSV label {name}", f"lab{j}.csv", good + f"1,1,{cell}\n", 3)
    bad_data("CSV label 2", "l2.csv", good + "1,1,2\n", 3)
    bad_data("CSV label 1.9", "l19.csv", good + "1,1,1.9\n", 3)
    bad_data("CSV labels -1/0/1", "l3.csv", good + "1,1,0\n", 3)
    bad_data("CSV --labels 01 with -1", "l01.csv", good, 2, extra=("--labels", "01"))
    bad_data("CSV ragged row", "rag.csv", good + "1,1\n", 3)
    bad_data("CSV one column", "one.csv", "1\n-1\n", 1)
    bad_data("CSV empty", "empty.csv", "", None)
    bad_data("CSV header only", "hdr.csv", "a,b,label\n", None)
    bad_data("CSV not UTF-8", "latin.csv", good.encode() + b"\xe9,1,1\n", 3)
    bad_data("CSV 1200 rows of 1/p", "primes.csv", "".join(f"1/{p},1,{1 if j % 2 else -1}\n" for j, p in enumerate(_primes(1200))))
    bad_data("CSV a million features", "wide.csv", ",".join(["1"] * 1_000_001) + ",1\n", None)
    bad_data("LIBSVM index 10^9", "big.svm", "1 1000000000:1\n", 1)
    bad_data("LIBSVM negative index", "neg.svm", "1 -1:1\n-1 1:1\n", 1)  # index 0 is valid: zero-based files
    bad_data("LIBSVM index superscript", "sup.svm", "1 \u00b2:1\n", 1)
    bad_data("LIBSVM index Arabic", "ara.svm", "1 \u0661:1\n", 1)
    bad_data("LIBSVM value NaN", "nan.svm", "1 1:nan\n", 1)
    bad_data("LIBSVM value 1e999999999", "exp.svm", "1 1:1e999999999\n", 1)
    bad_data("LIBSVM index twice", "twice.svm", "1 1:1 1:2\n", 1)
    bad_data("LIBSVM no colon", "nocolon.svm", "1 1\n", 1)
    bad_data("LIBSVM label 3", "lab3.svm", "1 1:1\n-1 1:2\n3 1:1\n", 3)
    bad_data("LIBSVM 40 digit index", "long.svm", "1 " + "9" * 40 + ":1\n", 1)
    bad_data("NPZ X raw bytes", "raw.npz", None, fmt=None)
    _npz(P("raw.npz"), {"X.npy": b"not an array", "y": np.array([1, -1])})
    bad_data("NPZ X of shape (3, 0)", "empty_cols.npz", None)
    _npz(P("empty_cols.npz"), {"X": np.zeros((3, 0)), "y": np.array([1, -1, 1])})
    bad_data("NPZ header claiming (10^12, 2)", "claim.npz", None)
    _npz(P("claim.npz"), {"X.npy": _npy_header_only((10**12, 2)), "y": np.array([1, -1])})
    bad_data("NPZ object array", "obj.npz", None)
    _npz(P("obj.npz"), {"X.npy": _npy_header_only((2, 2), "|O"), "y": np.array([1, -1])})
    bad_data("NPZ X 1-D", "x1d.npz", None)
    _npz(P("x1d.npz"), {"X": np.array([1.0, 2.0]), "y": np.array([1, -1])})
    bad_data("NPZ y length mismatch", "ylen.npz", None)
    _npz(P("ylen.npz"), {"X": np.ones((3, 2)), "y": np.array([1, -1])})
    bad_data("NPZ NaN in X", "xnan.npz", None, 2)
    _npz(P("xnan.npz"), {"X": np.array([[1.0, 2.0], [np.nan, 1.0]]), "y": np.array([1, -1])})
    bad_data("NPZ strings in X", "xstr.npz", None)
    _npz(P("xstr.npz"), {"X": np.array([["a", "b"]]), "y": np.array([1])})
    bad_data("NPZ complex X", "xcplx.npz", None)
    _npz(P("xcplx.npz"), {"X": np.array([[1j, 2]]), "y": np.array([1])})
    bad_data("NPZ no X", "nox.npz", None)
    _npz(P("nox.npz"), {"Z": np.ones((2, 2)), "y": np.array([1, -1])})
    bad_data("NPZ not a zip", "nozip.npz", "just text\n")
    bad_data("NPZ truncated", "trunc_data.npz", None)
    _npz(P("full.npz"), {"X": np.ones((50, 3)), "y": np.ones(50)})
    with open(P("full.npz"), "rb") as fh:
        _write(P("trunc_data.npz"), fh.read(200), "wb")
    bad_data("NPZ 10^400 as float overflow", "f400.npz", None, None)
    _npz(P("f400.npz"), {"X": np.array([[np.inf, 1.0]]), "y": np.array([1])})
    bad_data("coq count not a number", "c1.dat", "abc\n2\n", 1)
    bad_data("coq count 10^12", "c2.dat", "1000000000000\n2\n1\n1\n1\n", None)
    bad_data("coq count negative", "c3.dat", "-1\n2\n", 1)
    bad_data("coq count mismatch", "c4.dat", "2\n2\n1\n1\n1\n", None)
    bad_data("coq count Arabic", "c5.dat", "\u0662\n2\n1\n1\n1\n0\n1\n1\n", 1)
    bad_data("coq cell 1/0", "c6.dat", "1\n2\n1\n1/0\n1\n", 4)
    bad_data("coq cell p % 0", "c7.dat", "1\n2\n1\n3 % 0\n1\n", 4)
    bad_data("coq label 5", "c8.dat", "2\n1\n5\n1\n0\n2\n", 3)
    bad_data("coq cell of 2000 digits", "c9.dat", "1\n1\n1\n" + "7" * 2000 + "\n", 4)
    bad_data("coq cell 1e999999999", "c10.dat", "1\n1\n1\n1e999999999\n", 4)
    bad_data("directory", "adir", None)
    os.makedirs(P("adir"), exist_ok=True)
    add("data: /dev/zero", ["train", "--data", "/dev/zero"], "input", "/dev/zero", None)
    add("data: /dev/zero as csv", ["train", "--data", "/dev/zero", "--format", "csv"], "input", "/dev/zero", None)
    add("data: missing file", ["train", "--data", P("missing.csv")], "input", P("missing.csv"), None)
    fifo = P("fifo.csv")
    if hasattr(os, "mkfifo") and not os.path.exists(fifo):
        os.mkfifo(fifo)
    add("data: a FIFO", ["train", "--data", fifo], "input", fifo, None)
    add("certify: a FIFO", ["certify", "--data", fifo], "input", fifo, None)
    sparse_data = P("huge.csv")
    with open(sparse_data, "wb") as fh:
        fh.truncate((256 << 20) + 1)
    add("data: 256 MiB + 1 (sparse)", ["train", "--data", sparse_data], "input", sparse_data, None)
    add("data: unknown builtin", ["train", "--data", "builtin:nope"], "input", "builtin:nope", None)

    # certify at the edges of the number range
    e400 = _write(P("e400.csv"), "1e400,1,1\n-1e400,-2,-1\n2,1e-400,1\n")
    add("certify 1e400", ["certify", "--data", e400], "ok")
    i400 = _write(P("i400.csv"), f"{10**400},1,1\n-{10**400},-2,-1\n")
    add("certify 10**400", ["certify", "--data", i400], "ok")
    tiny = _write(P("tiny.csv"), "1,1e-20,1\n1,-1e-20,-1\n")
    add("certify margin 1e-20", ["certify", "--data", tiny], "ok")
    add("train 1e400", ["train", "--data", e400], "ok")

    # ------------------------------------------------------------------ options
    def opt(name, argv, option):
        add(f"option: {name}", argv, "usage", option)

    T = ["train", "--data", data]
    for e in ("1e999999999", "nan", "0", "-1", "1/0", "inf", "abc", "7" * 2000):
        opt(f"--eta {e[:12]}", T + ["--eta", e], "--eta")
    opt("--patience -1", T + ["--variant", "slides", "--patience", "-1"], "patience")
    opt("--patience on rosenblatt", T + ["--patience", "3"], "patience")
    opt("--max-epochs -1", T + ["--max-epochs", "-1"], "max-epochs")
    opt("--max-updates -5", T + ["--max-updates", "-5"], "max-updates")
    opt("--max-visits -1", T + ["--max-visits", "-1"], "max-visits")
    opt("--degree -3", T + ["--variant", "kernel", "--kernel", "poly", "--degree", "-3"], "degree")
    opt("--degree 1000", T + ["--variant", "kernel", "--kernel", "poly", "--degree", "1000"], "degree")
    opt("--kernel poly on rosenblatt", T + ["--kernel", "poly"], "kernel")
    opt("--rbf-gamma 0", T + ["--variant", "kernel", "--kernel", "rbf", "--rbf-gamma", "0", "--float"], "rbf-gamma")
    opt("--w0 of the wrong length", T + ["--w0", "1,2,3"], "initial weights")
    opt("--w0 1e5000", T + ["--w0", "1e5000,1"], "--w0")
    opt("--w0 empty", T + ["--w0", ""], "--w0")
    opt("--b0 nan", T + ["--variant", "novikoff", "--b0", "nan"], "--b0")
    opt("--order random:x", T + ["--order", "random:x"], "random")
    opt("--order sequence:-1", T + ["--order", "sequence:-1"], "sequence")
    opt("--order sequence:99", T + ["--order", "sequence:99"], "sequence")
    opt("--order sequence:a", T + ["--order", "sequence:a"], "sequence")
    opt("--order zigzag", T + ["--order", "zigzag"], "order")
    opt("--sign0 5", T + ["--sign0", "5"], "--sign0")
    opt("--variant margin", T + ["--variant", "margin"], "--variant")
    opt("--eta 2 on slides", T + ["--variant", "slides", "--eta", "2"], "eta")
    opt("--form half on rosenblatt", T + ["--form", "half"], "form")
    # a trace's folder is made (a printed replay command's OUT/replays/ must work as printed)
    add("train --trace in a missing directory (made)", T + ["--trace", P("no/such/dir/t.jsonl")], "ok")
    opt("--max-epochs 1e3", T + ["--max-epochs", "1e3"], "--max-epochs")
    C = ["check", "--data", data, "--trace", P("exact.jsonl")]
    opt("check --separator of the wrong length", C + ["--separator", "1,2,3"], "separator")
    opt("check --separator nan", C + ["--separator", "nan,1"], "--separator")
    opt("check --only an unknown id", C + ["--only", "no.such"], "no.such")
    S = ["search", "000.iterations"]
    opt("search --box 1000000", S + ["--box", "1000000"], "--box")
    opt("search --dim 1000", S + ["--dim", "1000"], "--dim")
    opt("search --points 0", S + ["--points", "0"], "--points")
    opt("search --points 1000", S + ["--points", "1000"], "--points")
    opt("search --max-updates 100000", S + ["--max-updates", "100000"], "--max-updates")
    opt("search --timeout -1", S + ["--timeout", "-1"], "--timeout")
    opt("search --timeout nan", S + ["--timeout", "nan"], "--timeout")
    opt("search --timeout 1e9", S + ["--timeout", "1e9"], "--timeout")
    opt("search --eta 1e999999999", S + ["--eta", "1e999999999"], "--eta")
    opt("search --eta 0", S + ["--eta", "0"], "--eta")
    opt("search --w0-box 100000", S + ["--w0-box", "100000"], "--w0-box")
    opt("search --sep-box 1000000", S + ["--sep-box", "1000000"], "--sep-box")
    opt("search an unknown claim", ["search", "no.such.claim"], "no.such.claim")
    opt("run --jobs 0", ["run", "--jobs", "0"], "--jobs")
    opt("run --jobs 1000", ["run", "--jobs", "1000"], "--jobs")
    opt("run --out /", ["run", "--out", "/"], "--out")
    opt("run --out a file", ["run", "--out", data], "--out")
    opt("run --out uncreatable", ["run", "--out", "/proc/no/such"], "--out")
    opt("run --out a non-empty foreign directory", ["run", "--out", root], "--out")
    opt("search --out /", S + ["--out", "/"], "--out")
    opt("run --data a file", ["run", "--data", data], data)
    opt("unknown subcommand", ["frobnicate"], "frobnicate")
    opt("no subcommand", [], "COMMAND")

    # report
    rep = P("rep")
    os.makedirs(rep, exist_ok=True)
    _write(os.path.join(rep, "results.json"), json.dumps({"schema": "proof-audit/results", "version": 1}))
    add("report: results without claims", ["report", "--out", rep], "input", os.path.join(rep, "results.json"), None)
    rep2 = P("rep2")
    os.makedirs(rep2, exist_ok=True)
    _write(os.path.join(rep2, "results.json"), "[1, 2")
    add("report: results not JSON", ["report", "--out", rep2], "input", os.path.join(rep2, "results.json"), 1)
    rep3 = P("rep3")
    os.makedirs(rep3, exist_ok=True)
    _write(os.path.join(rep3, "results.json"), "[1, 2]")
    add("report: results a list", ["report", "--out", rep3], "input", os.path.join(rep3, "results.json"), None)
    rep4 = P("rep4")
    os.makedirs(rep4, exist_ok=True)
    _write(os.path.join(rep4, "results.json"), json.dumps({"schema": "proof-audit/results", "version": 1,
                                                         "claims": [{"id": "x"}], "summary": {}, "corpus": {}}))
    add("report: claims missing fields", ["report", "--out", rep4], "input", os.path.join(rep4, "results.json"), None)
    add("report: no results", ["report", "--out", P("norep")], "input", os.path.join(P("norep"), "results.json"), None)

    # ------------------------------------------------------------------ hostile claim files
    head = '[document]\nfile = "n.md"\ntitle = "t"\n\n'

    def claim_file(name, body, line=None, raw=None):
        path = P(f"claims-{len(cases)}.toml")
        if raw is not None:
            _write(path, raw, "wb" if isinstance(raw, bytes) else "w")
        else:
            _write(path, head + body)
        add(f"claims: {name}", ["claims", "lint", path], "input", path, line)

    def claim(expr, extra="", when="end"):
        return (f'[[claim]]\nid = "h.c"\nsection = "s"\nstatement = "s"\nexpr = "{expr}"\nvariants = ["rosenblatt"]\n'
                f'when = "{when}"\nexpect = "holds"\n{extra}')

    claim_file("TOML nested 200 000 deep", None, raw="a = " + "[" * 200_000 + "\n")
    claim_file("inline tables nested 100 000 deep", None, raw="a = " + "{b = " * 100_000 + "1" + "}" * 100_000 + "\n")
    claim_file("id with a trailing newline", claim("k <= 1").replace('id = "h.c"', 'id = "h.c\\n"'), 6)
    claim_file("id with a semicolon", claim("k <= 1").replace('id = "h.c"', 'id = "a;touch X"'), 6)
    claim_file("id of 500 characters", claim("k <= 1").replace('id = "h.c"', 'id = "' + "a" * 500 + '"'), 6)
    claim_file("eval injection", claim("__import__('os').system('touch X')"), 9)
    claim_file("attribute access", claim("k.__class__ <= 1"), 9)
    claim_file("lambda", claim("(lambda: 1)() <= 1"), 9)
    claim_file("f-string", claim("f'{k}' <= 1"), 9)
    claim_file("nested powers ((2**64)**64)**64", claim("((2**64)**64)**64 > 0"), 9)
    claim_file("power of a power of a variable", claim("(k**8)**9 > 0"), 9)
    claim_file("exponent 10**10", claim("2**(10**10) > 0"), 9)
    claim_file("exponent 65", claim("k**65 >= 0"), 9)
    claim_file("100-digit literal", claim("1" * 100 + " > k"), 9)
    claim_file("expression of 5000 characters", claim("+".join(["k"] * 2500) + " > 0"), 9)
    claim_file("brackets 100 deep", claim("(" * 100 + "k" + ")" * 100 + " > 0"), 9)
    claim_file("unknown variant", claim("k <= 1").replace('variants = ["rosenblatt"]', 'variants = ["margin"]'), 10)
    claim_file("unknown quantity", claim("kk <= 1"), 9)
    claim_file("unknown when", claim("k <= 1", when="sometimes"), 11)
    claim_file("unknown assumption", claim("k <= 1", 'assume = ["magic"]\n'), 13)
    claim_file("expr a number", claim("k <= 1").replace('expr = "k <= 1"', "expr = 3"), 9)
    claim_file("claims not tables", None, raw="claim = [1, 2]\n" + head)
    claim_file("no claims", None, raw=head)
    claim_file("unknown document field", None, raw=head.replace('title = "t"', 'title = "t"\nauthor = "x"') + claim("k <= 1"))
    claim_file("not TOML", None, raw="this is [not toml\n")
    claim_file("not UTF-8", None, raw=b"[document]\nfile = \"\xff\"\n")
    claim_file("empty file", None, raw="")
    claim_file("two MiB", None, raw="# " + "x" * (2 << 20) + "\n")
    claim_file("duplicate ids", claim("k <= 1") + "\n" + claim("k <= 2"), None)
    claim_file("symbolic step with exec", claim("", when="symbolic").replace('expr = ""\n', "") +
               'vectors = ["w"]\nscalars = []\nhypotheses = []\nsteps = ["exec(1) == 1"]\n', None)
    fifo_claims = P("fifo.toml")
    if hasattr(os, "mkfifo") and not os.path.exists(fifo_claims):
        os.mkfifo(fifo_claims)
    add("claims: a FIFO", ["claims", "lint", fifo_claims], "input", fifo_claims, None)
    add("claims: /dev/zero", ["claims", "lint", "/dev/zero"], "input", "/dev/zero", None)
    add("check --claims with a broken file", ["check", "--data", data, "--trace", P("exact.jsonl"), "--claims", P("nope.toml")],
        "input", P("nope.toml"), None)

    # claims whose evaluation explodes: unknown, limit reached
    limits = P("limits.toml")
    _write(limits, head + claim("(sqrt(2)+sqrt(3)+sqrt(5)+sqrt(7)+sqrt(11)+sqrt(13)+sqrt(17)+sqrt(19)+sqrt(23)+sqrt(29)"
                                "+sqrt(31)+sqrt(37)+sqrt(41)+sqrt(43)+sqrt(47)+sqrt(53))**64 >= k"))
    add("claims: sum of 16 square roots to the 64th", ["check", "--data", data, "--trace", P("exact.jsonl"), "--claims", limits],
        "limit")
    big = P("big.toml")
    _write(big, head + claim(" * ".join(["(" + "9" * 80 + "**64)"] * 20) + " > k"))
    add("claims: twenty 80-digit literals to the 64th", ["check", "--data", data, "--trace", P("exact.jsonl"), "--claims", big],
        "limit")
    symb = P("symbolic-expansion.toml")
    _write(symb, head + claim("", when="symbolic").replace('expr = ""\n', "") +
           'vectors = []\nscalars = ["a", "b", "c", "d", "e", "f"]\nhypotheses = []\nsteps = ["(a+b+c+d+e+f)**64 >= 0"]\n')
    add("symbolic: an 11-million-term expansion", ["run", "--claims", symb, "--out", P("symb-out"), "--quiet", "--jobs", "1"],
        "limit")
    round_two(root, data, add)
    return cases


def round_two(root: str, data: str, add) -> None:
    """The classes of the second adversarial round (issue 21): declarations that fault at run
    time, exact values that do not fit a float run or a trace, what one command writes that
    another would refuse, doctored record modes, valid input that crashed, options misattributed."""
    P = lambda name: os.path.join(root, name)  # noqa: E731
    base = 'state = { w = "w0" }\nscore = "dot(w, x)"\nmistake = "y * score <= 0"\n'

    def variant(name, body, *flags, line=1):
        path = P(f"v-{name}.toml")
        _write(path, f"[variants.{name}]\n" + body)
        for extra in ((), ("--float",)) if not flags else (flags,):
            add(f"declaration {name} {' '.join(extra)}", ["train", "--data", data, "--variants", path, "--variant", name,
                                                            *extra], "input", path, line)

    variant("divk", base + 'update = { w = "w + (1 / (k - k)) * y * x" }\n')
    variant("powneg", 'parameters = { h = "0" }\n' + base + 'update = { w = "w + h ** -1 * y * x" }\n')
    variant("bigpow", 'parameters = { h = "1e100" }\n' + base + 'update = { w = "w + h ** 4 * y * x" }\n', "--float")
    variant("bigconst", base + 'update = { w = "w + 1 / 1e-100 ** 4 * y * x" }\n', "--float")
    variant("hugeconst", base + 'update = { w = "w + 1e100 ** 4 * y * x" }\n', "--float")
    variant("vecdiv", base + 'update = { w = "w / (k - k)" }\n', "--float")
    variant("vec3", base + 'update = { w = "w + vec(1, 2, 3)" }\n')
    variant("vec1", base + 'update = { w = "w + vec(1)" }\n')
    variant("vecstate", 'state = { w = "vec(1, 2, 3)" }\nscore = "dot(w, x)"\nmistake = "y * score <= 0"\n'
                        'update = { w = "w + y * x" }\n')
    margin = P("v-margin.toml")
    _write(margin, '[variants.tau]\nparameters = { tau = "1" }\n' + base.replace("y * score <= 0", "y * score <= tau")
           + 'update = { w = "w + eta * y * x" }\n')
    T = ["train", "--data", data]
    for name, argv, option in (
            ("--set tau=1e1000 --float", T + ["--variants", margin, "--variant", "tau", "--set", "tau=1e1000", "--float"], "--set tau"),
            ("--set tau=1e-1000 exact (a p/q no trace holds)", T + ["--variants", margin, "--variant", "tau", "--set",
                                                                    "tau=1e-1000"], "--set tau"),
            ("--eta 1e400 --float", T + ["--eta", "1e400", "--float"], "--eta"),
            ("--w0 1e400 --float", T + ["--w0", "1e400,1", "--float"], "--w0"),
            ("--b0 1e400 --float", T + ["--variant", "novikoff", "--b0", "1e400", "--float"], "--b0"),
            ("search --results /dev/full", ["search", "000.iterations", "--points", "2", "--box", "2", "--max-updates", "3",
                                            "--results", "/dev/full", "--quiet"], "--results")):
        add(f"option: {name}", argv, "usage", option)
    for digits in (5000, 200_000):
        path = P(f"v-long{digits}.toml")
        _write(path, f"[variants.long]\nparameters = {{ tau = 1{'0' * digits} }}\n" + base.replace("<= 0", "<= tau")
               + 'update = { w = "w + y * x" }\n')
        add(f"declaration parameter of {digits} digits", T + ["--variants", path, "--variant", "long"], "input", path, None)
    # traces: counts past int64, and a header that says "updates" over doctored visits
    lines = _lines(P("exact.jsonl"))
    v = _visits(lines)
    for key in ("t", "k", "epoch"):
        for value in (10**30, 2**63):
            out = [dict(o) for o in lines]
            out[v[1]][key] = value
            path = _dump(P(f"count-{key}-{value % 1000}.jsonl"), out)
            add(f"trace {key} = {value}", ["check", "--data", data, "--trace", path], "input", path, v[1] + 1)
    out = [dict(o) for o in lines]
    out[0] = {**out[0], "record": "updates"}
    j = next(j for j in v if not out[j]["mistake"])
    out[j] = {**out[j], "score": "99", "y": -out[j]["y"]}
    path = _dump(P("updates-doctored.jsonl"), out)
    add("trace: record updates over a doctored non-update visit", ["check", "--data", data, "--trace", path], "reject", "any")

