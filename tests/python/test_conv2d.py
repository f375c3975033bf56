# weft.ops.conv2d on the accelerator's engines: the output against a NumPy reference, the same
# output, cycles and knobs as `weft run conv2d` for the same inputs and options, and the errors.
import os
import tempfile

import numpy as np
import pytest

import weft


def reference(x, w, bias, stride, pad, shift, relu=True):
    n, c, h, wd = x.shape
    o, _, k, _ = w.shape
    xp = np.pad(x.astype(np.int32), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1
    acc = np.zeros((n, o, oh, ow), np.int32)
    for i in range(k):
        for j in range(k):
            win = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            acc += np.einsum("nchw,oc->nohw", win, w[:, :, i, j].astype(np.int32))
    acc >>= shift
    if bias is not None:
        acc += bias.reshape(1, -1, 1, 1)
    return np.clip(acc, 0 if relu else -128, 127).astype(np.int8)


def data(seed, n, c, h, w, o, k):
    rng = np.random.default_rng(seed)
    return (rng.integers(-128, 128, (n, c, h, w), dtype=np.int8),
            rng.integers(-128, 128, (o, c, k, k), dtype=np.int8),
            rng.integers(-64, 64, o, dtype=np.int32))


def test_strided_conv_with_bias_against_numpy():
    x, w, b = data(1, 1, 16, 9, 9, 32, 3)
    r = weft.ops.conv2d(x, w, b, stride=2, pad=1, config="vta", shift=7)
    assert r.output.dtype == np.int8 and r.output.shape == (1, 32, 5, 5)
    np.testing.assert_array_equal(r.output, reference(x, w, b, 2, 1, 7))
    s = r.stats
    assert s["op"] == "conv2d" and s["correct"] and s["cycles"] > 0
    assert {"load", "compute", "store"} <= set(s["modules"])


def test_functional_engine_no_bias_no_relu_and_knobs():
    x, w, _ = data(2, 2, 8, 6, 6, 16, 1)
    r = weft.ops.conv2d(x, w, engine="functional", shift=5, no_relu=True, vthreads=1, tile_h=2)
    np.testing.assert_array_equal(r.output, reference(x, w, None, 1, 0, 5, relu=False))
    assert r.stats["knobs"]["vthreads"] == 1 and r.stats["knobs"]["tile_h"] == 2
    assert r.stats["epilogue"]["bias"] is False and "cycles" not in r.stats


@pytest.mark.parametrize("knobs", [[], ["--vthreads", "1", "--tile-oc", "2"], ["--search", "3"]])
def test_same_output_cycles_and_knobs_as_the_cli(weft_cli, knobs):
    args = ["--H", "14", "--W", "14", "--IC", "32", "--OC", "48", "--K", "3", "--pad", "1",
            "--config", "vta", "--shift", "9"]
    with tempfile.TemporaryDirectory() as d:
        cli = weft_cli("run", "conv2d", *args, *knobs, "--seed", "5", "--save", d)
        x, w, b, out = (np.load(os.path.join(d, f + ".npy"))
                        for f in ("input", "weight", "bias", "output"))
    py = {k.lstrip("-").replace("-", "_"): int(v) for k, v in zip(knobs[::2], knobs[1::2])}
    r = weft.ops.conv2d(x, w, b, pad=1, config="vta", shift=9, **py)
    np.testing.assert_array_equal(r.output, out)
    for key in ("cycles", "knobs", "modules", "instructions"):
        assert r.stats[key] == cli[key], key


def test_timeline():
    x, w, b = data(3, 1, 16, 4, 4, 16, 1)
    r = weft.ops.conv2d(x, w, b, config="vta", trace=True)
    assert r.timeline.doc["traceEvents"] and r.timeline.svg().lstrip().startswith("<svg")


def test_bad_inputs_are_errors():
    x, w, b = data(4, 1, 16, 8, 8, 16, 3)
    with pytest.raises(weft.Error, match="conv2d: x: dtype float32, expected int8"):
        weft.ops.conv2d(x.astype(np.float32), w)
    with pytest.raises(weft.Error, match="conv2d: w: 2 dimensions, expected 4"):
        weft.ops.conv2d(x, w[0, 0])
    with pytest.raises(weft.Error, match="x has 16 input channels .* and w 8"):
        weft.ops.conv2d(x, w[:, :8])
    with pytest.raises(weft.Error, match="the kernel must be square"):
        weft.ops.conv2d(x, w[:, :, :, :2])
    with pytest.raises(weft.Error, match=r"bias must be an int32 numpy.ndarray of shape \(16,\)"):
        weft.ops.conv2d(x, w, b[:8])
    with pytest.raises(weft.Error, match="bias must be an int32"):
        weft.ops.conv2d(x, w, b.astype(np.int64))
    with pytest.raises(weft.Error, match="warp"):
        weft.ops.conv2d(x, w, engine="warp")
    with pytest.raises(weft.Error, match="nosuch"):
        weft.ops.conv2d(x, w, config="nosuch")
    with pytest.raises(weft.Error, match="--vthread-axis must be o or h"):
        weft.ops.conv2d(x, w, vthread_axis="k")
    with pytest.raises(weft.Error, match="tile_oc 0 is out of range"):
        weft.ops.conv2d(x, w, tile_oc=0)
    with pytest.raises(weft.Error, match="search 0 is out of range"):
        weft.ops.conv2d(x, w, search=0)
    with pytest.raises(weft.Error, match="a timeline needs the cycle engine"):
        weft.ops.conv2d(x, w, engine="functional", trace=True)
    with pytest.raises(weft.Error, match="pad = -1 is out of range"):
        weft.ops.conv2d(x, w, pad=-1)
    with pytest.raises(weft.Error, match="stride = 0 is out of range"):
        weft.ops.conv2d(x, w, stride=0)
    with pytest.raises(weft.Error, match="3x3 kernel is larger than the padded 2x2 input"):
        weft.ops.conv2d(x[:, :, :2, :2], w)
