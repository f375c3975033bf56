# Ctrl-C during a network run: the run goes on with the GIL released while the caller polls for
# signals, so SIGINT raises KeyboardInterrupt within moments (the executor cancels the kernel in
# flight), and the network stays usable afterwards.
import os
import signal
import threading
import time

import numpy as np
import pytest

import weft


@pytest.fixture(autouse=True)
def sigint_raises():
    # A test runner may start us with SIGINT ignored; Python's own handler raises.
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


@pytest.fixture(scope="module")
def resnet18():
    net = weft.compile(weft.models.resnet18(), config="vta", tune=1, knob_cache="")
    return net, np.random.default_rng(0).random((1, 3, 224, 224), dtype=np.float32)


def interrupt_after(seconds):
    """Sends SIGINT to this process after `seconds`; returns a list that gets the time sent."""
    sent = []

    def fire():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
    t = threading.Timer(seconds, fire)
    t.daemon = True
    t.start()
    return sent


def runs_until_interrupted(net, x, engine, limit_s):
    """Runs until KeyboardInterrupt (True) or `limit_s` passes (False); the seconds from the
    signal to the exception."""
    sent = interrupt_after(0.3)
    start = time.monotonic()
    try:
        while time.monotonic() - start < limit_s:
            net.run(x, engine=engine)
    except KeyboardInterrupt:
        return True, time.monotonic() - sent[0]
    return False, None


def test_ctrl_c_stops_a_cycle_run(resnet18):
    net, x = resnet18
    interrupted, after = runs_until_interrupted(net, x, "cycle", 60)
    assert interrupted and after < 5
    y, report = net.run(x, engine="cycle")  # still usable, and complete
    assert y.shape == (1, 1000) and report["accel_cycles"] > 1_000_000


def test_ctrl_c_stops_one_long_rtl_run(resnet18):
    # One run on the Verilated RTL takes about ten seconds (more on a loaded machine): only the
    # polling can end it within moments of the signal.
    net, x = resnet18
    one_long_run_is_interrupted(lambda: net.run(x, engine="rtl"), after_s=1.0, latency_s=3)

def one_long_run_is_interrupted(run, after_s=0.5, latency_s=2):
    """Sends SIGINT `after_s` into `run()` (which takes several seconds uninterrupted) and checks
    that KeyboardInterrupt comes within `latency_s` of it (skips when the rtl engine is not
    built)."""
    sent = interrupt_after(after_s)
    start = time.monotonic()
    try:
        run()
    except KeyboardInterrupt:
        assert time.monotonic() - sent[0] < latency_s
        return
    except weft.Error as e:
        if "engine is not built" in str(e) or "has no RTL for configuration" in str(e):
            pytest.skip("the rtl engine is not built: %s" % e)
        raise
    pytest.fail("the run ended after %.1f s without KeyboardInterrupt" %
                (time.monotonic() - start))


def test_ctrl_c_stops_an_operator_run():
    # weft.ops.dense and conv2d on the Verilated RTL (compiling takes a fraction of a second,
    # the device run several seconds): the run is aborted (RunCanceller), not waited for, and
    # the operators work again afterwards.
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (1024, 512), dtype=np.int8)
    w = rng.integers(-128, 128, (1024, 512), dtype=np.int8)
    one_long_run_is_interrupted(lambda: weft.ops.dense(x, w, engine="rtl"))
    xc = rng.integers(-128, 128, (1, 128, 28, 28), dtype=np.int8)
    wc = rng.integers(-128, 128, (128, 128, 3, 3), dtype=np.int8)
    one_long_run_is_interrupted(lambda: weft.ops.conv2d(xc, wc, pad=1, engine="rtl"))
    r = weft.ops.dense(x[:16, :64].copy(), w[:16, :64].copy(), engine="rtl")
    assert r.stats["correct"]


def test_ctrl_c_stops_a_built_schedule_run():
    # weft.build(target="accel"): a dense of 1024 output blocks, about four seconds on the
    # Verilated RTL; the run stops at once, and the module runs again afterwards.
    from conftest import vta_dense
    s, A, W, _, D = vta_dense(mb=64, nb=16, kb=16)
    f = weft.build(s, [A, W, D], target="accel", config="vta")
    a = np.ones(A.shape, np.int8)
    w = np.ones(W.shape, np.int8)
    d = np.zeros(D.shape, np.int8)
    one_long_run_is_interrupted(lambda: f.run(a, w, d, engine="rtl"))
    f(a, w, d)
    assert (d == 1).all()  # 256 products of 1 x 1, shifted right by 8


def test_ctrl_c_stops_a_cpu_network_run():
    # weft.compile(target="llvm"): the float32 ResNet-18 on the host CPU. Its first run
    # JIT-compiles the kernels node by node (seconds); the run stops before its next node, and
    # the network runs again afterwards, to the same outputs as a network never interrupted.
    x = np.random.default_rng(0).random((1, 3, 224, 224), dtype=np.float32)
    net = weft.compile(weft.models.resnet18(), target="llvm")
    one_long_run_is_interrupted(lambda: net.run(x), after_s=0.2, latency_s=1.5)
    y, report = net.run(x)
    assert y.shape == (1, 1000) and len(report["nodes"]) > 20
    y2, _ = weft.compile(weft.models.resnet18(), target="llvm").run(x)
    np.testing.assert_array_equal(y, y2)
