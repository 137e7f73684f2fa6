"""Checkpoint traces (record "checkpoints"): a run recorded by its updates, every visit re-derived
by the replay.  The replay must accept exactly the runs the visit-by-visit trace of the same run
is accepted for, with the same claim tallies; it must catch a doctored update, point,
checkpoint or end; and what train refuses to record this way it says in one line."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

import perceptron.trace as trace_mod
import verify.replay.checkpoints as ck
from perceptron import Params, builtin, open_writer, read_trace, train
from verify.language.claims import builtin_claim_files, load_claims
from verify.replay.dispatch import replay

from .test_round_trip_limits import cli

CLAIMS = [c for p in builtin_claim_files() for c in load_claims(p).claims]


def _both(tmp_path, name, params):
    """The run traced visit by visit and as checkpoints: (dataset, visits trace, checkpoint trace)."""
    ds = builtin(name)
    paths = {}
    for rec in ("visits", "checkpoints"):
        paths[rec] = tmp_path / f"{rec}.npz"
        train(ds, params, open_writer(str(paths[rec]), rec))
    return ds, read_trace(str(paths["visits"])), read_trace(str(paths["checkpoints"]))


def _tallies(ds, tr):
    ctx, bad, tallies = replay(ds, tr, CLAIMS)
    assert bad is None, bad
    return {cid: (t.evaluations, t.violation, t.not_applicable is None, t.unknown) for cid, t in tallies.items()
            if next(c for c in CLAIMS if c.id == cid).when in ("update", "end")}


@pytest.mark.parametrize("order", ["cyclic", "random:3"])
@pytest.mark.parametrize("name", ["separable-d3-g1_10", "xor-2", "separable-d5-g1_10"])
def test_a_checkpoint_trace_is_checked_as_the_visit_trace_of_the_same_run(tmp_path, monkeypatch, name, order):
    """Every update and end claim gets the same evaluations, violations and unknowns from the
    checkpoint trace as from the visit trace of the same run (converged, or cut by max_epochs on
    non-separable data); checkpoints every 3 updates, and chunks of a few epochs, so that both
    are crossed many times."""
    monkeypatch.setattr(trace_mod, "CHECKPOINT_EVERY", 3)
    monkeypatch.setattr(ck, "BLOCK_CELLS", 40)
    ds, tv, tc = _both(tmp_path, name, Params(order=order, augment="last", max_epochs=30))
    assert tc.header["checkpoint_every"] == 3 and len(tc.w) == len(tc.upd_t) // 3 >= 1
    assert np.array_equal(tc.upd_t, tv.upd_t)
    assert _tallies(ds, tc) == _tallies(ds, tv)


@pytest.mark.parametrize("name, params", [
    ("separable-d3-bias", Params(variant="novikoff", order="cyclic", max_epochs=30)),
    ("separable-d3-bias", Params(variant="novikoff", order="random:3", b0=1, eta="1/3")),
    ("xor-2", Params(variant="novikoff", order="cyclic", max_epochs=30)),
    ("xor-3", Params(variant="sklearn", order="cyclic", max_epochs=30, eta="2/3")),
    ("unit-d4-g1_8", Params(variant="unit", order="random:1")),
])
def test_a_bias_or_unit_variant_is_checked_from_its_checkpoints_as_from_its_visits(tmp_path, monkeypatch, name, params):
    """The variants with a bias of their own (b += eta y R^2, b += eta y) and the unit variant:
    the biases re-derived at every update and compared at every checkpoint, the claims' tallies
    (b among their quantities) those of the visit trace, in int64 and in Python integers."""
    monkeypatch.setattr(trace_mod, "CHECKPOINT_EVERY", 3)
    monkeypatch.setattr(ck, "BLOCK_CELLS", 40)
    ds, tv, tc = _both(tmp_path, name, params)
    assert (tc.b is not None) == (params.variant != "unit") and len(tc.w) == len(tc.upd_t) // 3 >= 1
    want = _tallies(ds, tv)
    assert _tallies(ds, tc) == want and (params.variant == "sklearn" or any(t[2] for t in want.values()))
    monkeypatch.setattr(ck, "INT64_SAFE", 1)
    assert _tallies(ds, tc) == want


def test_a_checkpoint_trace_is_checked_in_int64_and_in_python_integers_alike(tmp_path, monkeypatch):
    ds, _, tc = _both(tmp_path, "separable-d3-g1_10", Params(order="cyclic", augment="last"))
    fast = _tallies(ds, tc)
    monkeypatch.setattr(ck, "INT64_SAFE", 1)  # no bound proves int64 safe: every product in Python integers
    assert _tallies(ds, tc) == fast


def _doctor(path, **cols):
    """Rewrite the NPZ at ``path`` with columns replaced (header and end are JSON texts)."""
    with zipfile.ZipFile(path) as zf:
        arrays = {n[:-4]: np.lib.format.read_array(zf.open(n)) for n in zf.namelist()}
    for key, fn in cols.items():
        arrays[key] = fn(arrays[key])
    with zipfile.ZipFile(path, "w") as zf:
        for key, a in arrays.items():
            with zf.open(key + ".npy", "w") as out:
                np.lib.format.write_array(out, a, allow_pickle=False)


def _json_edit(fn):
    return lambda a: np.array(json.dumps(fn(json.loads(str(a))), sort_keys=True))


@pytest.mark.parametrize("doctor, message", [
    ({"upd_i": lambda a: np.where(np.arange(len(a)) == 1, (a + 1) % 20, a)}, "the order visits point"),
    ({"checkpoint_w_num": lambda a: a + (np.arange(a.size).reshape(a.shape) == 0)}, "checkpoint 1"),
    # the last update moved to the next visit, with that visit's point: the visit it left is a mistake
    ({"upd_t": lambda a: np.where(np.arange(len(a)) == len(a) - 1, a + 1, a),
      "upd_i": lambda a: np.where(np.arange(len(a)) == len(a) - 1, (a + 1) % 20, a)}, "recomputed from the data"),
    ({"end": _json_edit(lambda e: {**e, "epochs": e["epochs"] + 1})}, "epochs"),
    ({"end": _json_edit(lambda e: {**e, "w": ["0"] * len(e["w"])})}, "ends with w"),
])
def test_a_doctored_checkpoint_trace_is_inconsistent(tmp_path, monkeypatch, doctor, message):
    _doctored(tmp_path, monkeypatch, "rosenblatt", doctor, message)


@pytest.mark.parametrize("doctor, message", [
    ({"checkpoint_b_num": lambda a: a + (np.arange(a.size) == 1)}, "the re-run's b is"),
    ({"end": _json_edit(lambda e: {**e, "b": "7"})}, "ends with b"),
    ({"checkpoint_b_num": lambda a: a[:-1]}, "checkpoint_b_num must have shape"),
])
def test_a_doctored_bias_of_a_checkpoint_trace_is_caught(tmp_path, monkeypatch, doctor, message):
    _doctored(tmp_path, monkeypatch, "novikoff", doctor, message)


def _doctored(tmp_path, monkeypatch, variant, doctor, message):
    monkeypatch.setattr(trace_mod, "CHECKPOINT_EVERY", 2)
    path = tmp_path / "c.npz"
    rc, out, err = cli("train", "--data", "builtin:separable-d2-g1_20", "--exact", "--augment", "last",
                       "--variant", variant, "--record", "checkpoints", "--trace", path)
    assert rc == 0, err
    rc, out, err = cli("check", "--data", "builtin:separable-d2-g1_20", "--trace", path)
    assert rc == 0 and "consistent with" in out, out + err
    _doctor(path, **doctor)
    rc, out, err = cli("check", "--data", "builtin:separable-d2-g1_20", "--trace", path)
    if "shape" in message:  # a column of the wrong shape is not a trace: one line, exit 2
        assert rc == 2 and message in err and len(err.strip().splitlines()) == 1, out + err
    else:
        assert rc == 1 and "INCONSISTENT" in out and message in out, out + err


@pytest.mark.parametrize("args, message", [
    (["--exact", "--variant", "pocket"], "without a pocket"),
    (["--exact", "--variant", "kernel"], "primal variant"),
    (["--exact", "--order", "first"], "cyclic or a random order"),
    (["--float"], "exact run"),
])
def test_what_train_cannot_record_as_checkpoints_it_says_in_one_line(tmp_path, args, message):
    path = tmp_path / "c.npz"
    rc, out, err = cli("train", "--data", "builtin:separable-d2-g1_20", "--record", "checkpoints", "--trace", path, *args)
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1 and not path.exists(), err
    rc, out, err = cli("train", "--data", "builtin:separable-d2-g1_20", "--exact", "--record", "checkpoints", "--trace",
                       tmp_path / "c.jsonl")
    assert rc == 2 and "NPZ" in err, err


def test_a_checkpoint_header_is_read_strictly(tmp_path):
    path = tmp_path / "c.npz"
    assert cli("train", "--data", "builtin:separable-d2-g1_20", "--exact", "--record", "checkpoints", "--trace", path)[0] == 0
    _doctor(path, header=_json_edit(lambda h: {k: v for k, v in h.items() if k != "checkpoint_every"}))
    rc, out, err = cli("check", "--data", "builtin:separable-d2-g1_20", "--trace", path)
    assert rc == 2 and "checkpoint_every" in err and len(err.strip().splitlines()) == 1, err


def test_visit_claims_say_why_a_checkpoint_trace_does_not_evaluate_them(tmp_path):
    path, claims = tmp_path / "c.npz", tmp_path / "v.toml"
    claims.write_text('[document]\nfile = "n.md"\n\n[[claim]]\nid = "v.score"\nsection = "s"\nstatement = "s"\n'
                      'when = "visit"\nvariants = ["rosenblatt"]\nexpr = "score == dot(w, x)"\nexpect = "holds"\n')
    assert cli("train", "--data", "builtin:separable-d2-g1_20", "--exact", "--record", "checkpoints", "--trace", path)[0] == 0
    rc, out, err = cli("check", "--data", "builtin:separable-d2-g1_20", "--trace", path, "--claims", claims)
    assert rc == 0 and "v.score: not applicable" in out and "re-derived from the data and checked" in out, out + err


def test_update_visits_of_a_narrow_integer_type_cannot_wrap(tmp_path):
    """upd_t stored as int8 with a negative visit (int8 differences wrap: [100, -100, 20] looked
    increasing) is refused, not replayed at visit -100 (a reviewer's forgery)."""
    path = tmp_path / "c.npz"
    assert cli("train", "--data", "builtin:separable-d5-g1_10", "--exact", "--record", "checkpoints", "--trace", path)[0] == 0
    _doctor(path, upd_t=lambda a: np.concatenate([[100, -100], a[2:]]).astype(np.int8) if len(a) > 2 else a,
            upd_i=lambda a: a)
    rc, out, err = cli("check", "--data", "builtin:separable-d5-g1_10", "--trace", path)
    assert rc == 2 and "upd_t must increase strictly" in err, out + err


def test_an_update_claimed_in_a_far_epoch_is_refused_without_allocating_for_it(tmp_path):
    """An update at visit 10^12 n (the end record forged to match, max_epochs raised) is an epoch
    without an update before it: INCONSISTENT at once, with no array of 10^12 epochs."""
    path = tmp_path / "c.npz"
    assert cli("train", "--data", "builtin:separable-d2-g1_20", "--exact", "--record", "checkpoints", "--trace", path)[0] == 0
    far = 10**12 * 20
    _doctor(path, upd_t=lambda a: np.concatenate([a[:-1], [far]]),
            end=_json_edit(lambda e: {**e, "visits": far + 20}),
            header=_json_edit(lambda h: {**h, "params": {**h["params"], "max_epochs": 10**13}}))
    rc, out, err = cli("check", "--data", "builtin:separable-d2-g1_20", "--trace", path)
    assert rc == 1 and "records no update, so the run converges there" in out, out + err


def test_b0_and_a_huge_eta_are_replayed_as_the_visit_trace_does(tmp_path):
    """A run from b0 = 1 without a bias of its own keeps b = b0 at every state (as the visit trace's
    replay does); eta = 10^20 takes Python integers where int64 would overflow."""
    claims = tmp_path / "b.toml"
    claims.write_text('[document]\nfile = "n.md"\n\n[[claim]]\nid = "b.same"\nsection = "s"\nstatement = "s"\n'
                      'when = "update"\nvariants = ["rosenblatt"]\nexpr = "b == prev(b) and b == 1"\nexpect = "holds"\n')
    (claim,) = load_claims(str(claims)).claims
    for params in (Params(order="cyclic", b0=1), Params(order="random:2", eta=10**20)):
        ds, tv, tc = _both(tmp_path, "separable-d3-g1_10", params)
        for tr in (tv, tc):
            _, bad, tallies = replay(ds, tr, [claim] + CLAIMS)
            assert bad is None, bad
        if params.b0:
            assert tallies["b.same"].violation is None and tallies["b.same"].evaluations == len(tc.upd_t)
        assert _tallies(ds, tc) == _tallies(ds, tv)


def test_a_pair_claim_on_a_checkpoint_trace_says_why_it_does_not_apply(tmp_path):
    path, claims = tmp_path / "c.npz", tmp_path / "p.toml"
    claims.write_text('[document]\nfile = "n.md"\n\n[[claim]]\nid = "p.eta"\nsection = "s"\nstatement = "s"\n'
                      'when = "pair"\npair = "eta:c"\nat = "update"\nvariants = ["rosenblatt"]\nassume = ["w0_zero"]\n'
                      'expr = "other_w == c*w"\nexpect = "holds"\n')
    assert cli("train", "--data", "builtin:separable-d2-g1_20", "--exact", "--record", "checkpoints", "--trace", path)[0] == 0
    rc, out, err = cli("check", "--data", "builtin:separable-d2-g1_20", "--trace", path, "--claims", claims)
    assert rc == 0 and "p.eta: not applicable" in out and "checkpoint trace keeps neither" in out, out + err
