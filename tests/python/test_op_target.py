# weft.ops.dense / conv2d with target="llvm" (the host CPU) and "cuda": the runner of `weft run
# OP --target llvm|cuda` on the caller's arrays. Outputs equal the CLI's for the same inputs
# (its --save files), the report is the CLI's, bad inputs and options are weft.Error, target
# "cuda" without a GPU fails with the CLI's message, and Ctrl-C stops the timed runs.
import os
import shutil
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import weft


def cli_path():
    path = os.environ.get("WEFT_CLI") or shutil.which("weft")
    if not path or not os.path.exists(path):
        pytest.skip("the weft CLI is not built (set WEFT_CLI)")
    return path


def cli_saved(tmp_path, *args):
    """Runs `weft run ARGS --save DIR`; its report and its input, weight and output arrays."""
    import json
    out = tmp_path / "saved"
    r = subprocess.run([cli_path(), "run", *args, "--save", str(out)], capture_output=True,
                       text=True, check=True)
    load = lambda n: np.load(out / n)
    return json.loads(r.stdout), load("input.npy"), load("weight.npy"), load("output.npy")


def test_dense_on_llvm_equals_the_cli(tmp_path):
    cli, x, w, y = cli_saved(tmp_path, "dense", "--target", "llvm", "--M", "16", "--N", "24",
                             "--K", "40", "--seed", "3", "--repeats", "2")
    r = weft.ops.dense(x, w, target="llvm", repeats=2)
    assert r.output.dtype == np.float32 and r.output.shape == (16, 24)
    np.testing.assert_array_equal(r.output, y)
    np.testing.assert_allclose(r.output, x @ w.T, rtol=1e-5, atol=1e-5)
    for key in ("op", "shape", "target", "dtype", "output_dtype", "threads", "schedule"):
        assert r.stats[key] == cli[key], key
    assert r.stats["correct"] and r.stats["timed_runs"] == 2 and r.stats["wall_seconds"] > 0


def test_int8_dense_on_llvm_has_an_int32_output(tmp_path):
    cli, x, w, y = cli_saved(tmp_path, "dense", "--target", "llvm", "--dtype", "int8", "--M",
                             "8", "--N", "16", "--K", "64", "--repeats", "1")
    r = weft.ops.dense(x, w, target="llvm", repeats=1)
    assert r.output.dtype == np.int32 and cli["output_dtype"] == "int32"
    np.testing.assert_array_equal(r.output, y)
    np.testing.assert_array_equal(r.output, x.astype(np.int32) @ w.astype(np.int32).T)


def test_conv2d_on_llvm_equals_the_cli(tmp_path):
    cli, x, w, y = cli_saved(tmp_path, "conv2d", "--target", "llvm", "--N", "1", "--IC", "8",
                             "--H", "10", "--W", "10", "--OC", "16", "--K", "3", "--stride",
                             "2", "--pad", "1", "--repeats", "1")
    r = weft.ops.conv2d(x, w, stride=2, pad=1, target="llvm", repeats=1)
    assert r.output.shape == (1, 16, 5, 5) == y.shape
    np.testing.assert_array_equal(r.output, y)
    assert r.stats["shape"] == cli["shape"] and r.stats["correct"]


def test_inputs_beyond_the_unit_range_are_checked_to_scale():
    # The reference check's tolerance was set for inputs in [-1, 1]; large values still pass.
    rng = np.random.default_rng(1)
    x = (rng.random((4, 256), dtype=np.float32) - 0.5) * 2000
    w = (rng.random((8, 256), dtype=np.float32) - 0.5) * 2000
    r = weft.ops.dense(x, w, target="llvm", repeats=1)
    np.testing.assert_allclose(r.output, x.astype(np.float64) @ w.T.astype(np.float64),
                               rtol=1e-4, atol=1)


def test_bad_inputs_and_options_are_errors():
    x = np.ones((4, 8), np.float32)
    w = np.ones((6, 8), np.float32)
    bad = [
        (lambda: weft.ops.dense(x, w.astype(np.int8), target="llvm"), "x is float32 and w is int8"),
        (lambda: weft.ops.dense(x.astype(np.float64), w, target="llvm"), "dtype float64"),
        (lambda: weft.ops.dense(x, np.ones((6, 9), np.float32), target="llvm"), "differ"),
        (lambda: weft.ops.dense(x[None], w, target="llvm"), "3 dimensions, expected 2"),
        (lambda: weft.ops.dense([[1.0]], w, target="llvm"), "expected a numpy.ndarray"),
        (lambda: weft.ops.dense(x * np.nan, w, target="llvm"), "not finite"),
        (lambda: weft.ops.dense(x.astype(np.float16), w.astype(np.float16), target="llvm"),
         "unknown dtype 'float16'"),
        (lambda: weft.ops.dense(x, w, target="gpu"), "--target must be accel, llvm or cuda"),
        (lambda: weft.ops.dense(x, w, target="llvm", shift=4), "shift goes with target='accel'"),
        (lambda: weft.ops.dense(x, w, target="llvm", engine="rtl", tile_m=2),
         "engine, tile_m go with target='accel'"),
        (lambda: weft.ops.dense(x, w, target="llvm", gpu_path="simt"), "gpu_path goes with"),
        (lambda: weft.ops.dense(x, w, target="llvm", threads=0), "threads 0 is outside"),
        (lambda: weft.ops.dense(x, w, target="llvm", repeats=0), "--repeats 0 is outside"),
        (lambda: weft.ops.dense(x.astype(np.int8), w.astype(np.int8), repeats=3),
         "repeats goes with target='llvm' or 'cuda'"),
        (lambda: weft.ops.dense(x, w, target="cuda", threads=2), "threads, tune_db"),
        (lambda: weft.ops.conv2d(np.ones((1, 3, 8, 8), np.float32),
                                 np.ones((4, 3, 3, 3), np.float32), target="llvm",
                                 bias=np.zeros(4, np.int32)), "bias goes with"),
        (lambda: weft.ops.conv2d(np.ones((1, 3, 8, 8), np.float32),
                                 np.ones((4, 2, 3, 3), np.float32), target="llvm"),
         "input channels"),
        (lambda: weft.ops.conv2d(np.ones((1, 3, 2, 2), np.float32),
                                 np.ones((4, 3, 3, 3), np.float32), target="llvm"), "conv2d"),
    ]
    for call, msg in bad:
        with pytest.raises(weft.Error, match=msg):
            call()


def test_cuda_without_a_gpu_fails_as_the_cli_does():
    x = np.ones((16, 32), np.float32)
    w = np.ones((8, 32), np.float32)
    r = subprocess.run([cli_path(), "run", "dense", "--target", "cuda", "--M", "16", "--N", "8",
                        "--K", "32"], capture_output=True, text=True)
    if r.returncode == 0:
        out = weft.ops.dense(x, w, target="cuda")  # a GPU is here: it runs
        np.testing.assert_allclose(out.output, x @ w.T, rtol=1e-5)
        return
    assert r.returncode == 1
    with pytest.raises(weft.Error) as e:
        weft.ops.dense(x, w, target="cuda")
    assert str(e.value) and str(e.value) in r.stderr


def test_ctrl_c_stops_the_timed_runs():
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        x = np.ones((128, 256), np.float32)
        w = np.ones((128, 256), np.float32)
        sent = []

        def fire():
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
        threading.Timer(0.5, fire).start()
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            weft.ops.dense(x, w, target="llvm", repeats=100000)  # minutes uninterrupted
        assert time.monotonic() - sent[0] < 2, time.monotonic() - start
        r = weft.ops.dense(x, w, target="llvm", repeats=1)  # works again afterwards
        assert (r.output == 256).all()
    finally:
        signal.signal(signal.SIGINT, old)
