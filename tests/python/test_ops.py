# weft.ops.dense on the accelerator's engines: the output against NumPy, the statistics, the
# same output and cycles as `weft run dense` for the same inputs, and the errors.
import os
import tempfile

import numpy as np
import pytest

import weft


def reference(x, w, shift, relu=False):
    acc = x.astype(np.int32) @ w.astype(np.int32).T
    return np.clip(acc >> shift, 0 if relu else -128, 127).astype(np.int8)


def test_issue_snippet_dense_on_vta_cycle():
    rng = np.random.default_rng(1)
    x = rng.integers(-128, 128, (64, 512), dtype=np.int8)
    w = rng.integers(-128, 128, (128, 512), dtype=np.int8)
    r = weft.ops.dense(x, w, config="vta", engine="cycle", shift=10)
    assert r.output.dtype == np.int8 and r.output.shape == (64, 128)
    np.testing.assert_array_equal(r.output, reference(x, w, 10))
    s = r.stats
    assert s["correct"] and s["engine"] == "cycle" and s["config"] == "vta"
    assert s["cycles"] > 0 and 0 < s["utilization"] <= 1
    assert {"load", "compute", "store"} <= set(s["modules"])
    assert "<table>" in r._repr_html_()


def test_functional_engine_relu_and_knobs():
    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, (8, 40), dtype=np.int8)
    w = rng.integers(-128, 128, (24, 40), dtype=np.int8)
    r = weft.ops.dense(x, w, engine="functional", shift=7, relu=True, vthreads=1, tile_k=1)
    np.testing.assert_array_equal(r.output, reference(x, w, 7, relu=True))
    assert r.stats["knobs"]["vthreads"] == 1 and r.stats["knobs"]["tile_k"] == 1
    assert "cycles" not in r.stats  # the functional engine has no timing


def test_same_output_and_cycles_as_the_cli(weft_cli):
    with tempfile.TemporaryDirectory() as d:
        cli = weft_cli("run", "dense", "--M", "16", "--N", "48", "--K", "96", "--config", "vta",
                       "--shift", "9", "--engine", "cycle", "--seed", "5", "--save", d)
        x = np.load(os.path.join(d, "input.npy"))
        w = np.load(os.path.join(d, "weight.npy"))
        out = np.load(os.path.join(d, "output.npy"))
    r = weft.ops.dense(x, w, config="vta", shift=9, engine="cycle")
    np.testing.assert_array_equal(r.output, out)
    assert r.stats["cycles"] == cli["cycles"]
    assert r.stats["knobs"] == cli["knobs"]
    assert r.stats["modules"] == cli["modules"]


def test_timeline_is_returned_and_renders_as_svg():
    x = np.ones((4, 32), np.int8)
    w = np.ones((16, 32), np.int8)
    r = weft.ops.dense(x, w, config="vta", shift=0, trace=True)
    assert r.timeline is not None and r.timeline.doc["traceEvents"]
    assert r.timeline._repr_svg_().lstrip().startswith("<svg")


def test_bad_inputs_are_errors():
    x = np.zeros((4, 32), np.int8)
    w = np.zeros((16, 32), np.int8)
    with pytest.raises(weft.Error, match="dense: x: dtype float32, expected int8"):
        weft.ops.dense(x.astype(np.float32), w)
    with pytest.raises(weft.Error, match=r"second dimensions \(K\) differ"):
        weft.ops.dense(x, w[:, :16])
    with pytest.raises(weft.Error, match="dense: w: 1 dimensions, expected 2"):
        weft.ops.dense(x, w[0])
    with pytest.raises(weft.Error, match="warp"):
        weft.ops.dense(x, w, engine="warp")
    with pytest.raises(weft.Error, match="nosuch"):
        weft.ops.dense(x, w, config="nosuch")
    with pytest.raises(weft.Error, match="vthread-axis"):
        weft.ops.dense(x, w, vthread_axis="k")
    with pytest.raises(weft.Error, match="tile_m 0 is out of range"):
        weft.ops.dense(x, w, tile_m=0)
    with pytest.raises(weft.Error, match="timeout"):
        weft.ops.dense(x, w, timeout=0)
    with pytest.raises(weft.Error, match="a timeline needs the cycle engine"):
        weft.ops.dense(x, w, engine="functional", trace=True)
