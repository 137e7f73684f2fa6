"""A trace written by an independent implementation: the margin perceptron of margin.toml in a
few lines of plain Python (no numpy, nothing from proof-audit), writing its dataset as CSV and
its run in the public trace schema (perceptron/trace.py, README "Traces from elsewhere").

    python examples/variants/write_trace.py data.csv trace.jsonl
    proof-audit check --data data.csv --trace trace.jsonl --variants examples/variants/margin.toml \
        --claims examples/variants/margin.toml
"""

import hashlib
import json
import struct
import sys

POINTS = [(1, 0), (0, 1), (-1, 0), (0, -1), (2, -1), (-1, 2)]
LABELS = [1, 1, -1, -1, 1, 1]
TAU, ETA, MAX_EPOCHS = 1, 1, 100


def dataset_sha256(points, labels):
    """The dataset's identity as proof-audit computes it: integer data (common denominator 1),
    coordinates as little-endian int64, labels as int8."""
    h = hashlib.sha256()
    h.update(f"proof-audit-dataset-v1 n={len(points)} d={len(points[0])}\n".encode())
    h.update(b"rational den=1\n")
    h.update(b"".join(struct.pack("<q", c) for p in points for c in p))
    h.update(b"".join(struct.pack("<b", y) for y in labels))
    return h.hexdigest()


def main(data_path, trace_path):
    with open(data_path, "w") as f:
        f.write("x1,x2,label\n" + "".join(f"{a},{b},{y}\n" for (a, b), y in zip(POINTS, LABELS)))
    sha = dataset_sha256(POINTS, LABELS)
    params = {"variant": "margin", "eta": str(ETA), "order": "cyclic", "augment": None, "sign0": 0, "form": "yx",
              "w0": None, "b0": None, "max_epochs": MAX_EPOCHS, "max_updates": 1000000, "max_visits": None,
              "patience": None, "ratchet": False, "kernel": "linear", "degree": 2, "offset": "1", "rbf_gamma": "1",
              "arithmetic": "exact", "declared": {"tau": str(TAU)}}
    header = {"type": "header", "schema": "proof-audit/trace", "version": 1, "variant": "margin", "params": params,
              "arithmetic": "exact", "dataset": {"sha256": sha, "name": data_path, "n": len(POINTS), "d": 2,
                                                 "label_map": {"-1": -1, "1": 1}},
              "model_dim": 2, "dual": False, "record": "visits"}
    records = [header]
    w, k, t, epoch, converged = [0, 0], 0, 0, 0, False
    while epoch < MAX_EPOCHS and not converged:
        epoch += 1
        converged = True
        for i, (x, y) in enumerate(zip(POINTS, LABELS)):
            t += 1
            score = w[0] * x[0] + w[1] * x[1]
            mistake = y * score <= TAU
            rec = {"type": "visit", "t": t, "epoch": epoch, "i": i, "y": y, "score": str(score), "mistake": mistake}
            if mistake:
                w = [w[0] + ETA * y * x[0], w[1] + ETA * y * x[1]]
                k += 1
                converged = False
                rec["w"] = [str(v) for v in w]
            rec["k"] = k
            records.append(rec)
    records.append({"type": "end", "variant": "margin", "arithmetic": "exact", "updates": k, "epochs": epoch,
                    "visits": t, "converged": converged, "stop": "converged" if converged else "max_epochs",
                    "w": [str(v) for v in w], "b": "0", "dataset_sha256": sha})
    with open(trace_path, "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
