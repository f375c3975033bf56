# Shared fixtures of the weft Python package's tests: the package is imported from the build
# tree (CTest sets PYTHONPATH=build/python); WEFT_CLI names the weft command for the tests
# that compare with it; the small ONNX models come from scripts/onnx/make_models.py.
import os
import shutil
import subprocess
import sys
import json

from weft import te

import pytest

SOURCE = os.environ.get("WEFT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def weft_cli_text():
    """Runs the weft command; its standard output as text."""
    path = os.environ.get("WEFT_CLI") or shutil.which("weft")
    if not path or not os.path.exists(path):
        pytest.skip("the weft CLI is not built (set WEFT_CLI)")

    def run(*args):
        return subprocess.run([path, *args], check=True, capture_output=True, text=True).stdout
    return run


@pytest.fixture(scope="session")
def weft_cli(weft_cli_text):
    """Runs the weft command; its standard output parsed as JSON."""
    return lambda *args: json.loads(weft_cli_text(*args))


def make_onnx_models(out, names):
    """Writes make_models.py's models `names` into `out`; None, or why they cannot be made."""
    script = os.path.join(SOURCE, "scripts", "onnx", "make_models.py")
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    r = subprocess.run([python, script, str(out), "--only", *names], capture_output=True,
                       text=True)
    if r.returncode == 77:
        return "python3-onnx is not installed: " + r.stderr.strip()
    assert r.returncode == 0, r.stderr
    return None


@pytest.fixture(scope="session")
def onnx_models(tmp_path_factory):
    """A folder of make_models.py's small models (NAME.onnx and NAME_input.npy)."""
    out = tmp_path_factory.mktemp("onnx_models")
    why = make_onnx_models(out, ["tiny_resnet", "small_cnn", "qdq_cnn", "qdq_zero_point",
                                 "unsupported"])
    if why:
        pytest.skip(why)
    return out


def vta_dense(config="vta", mb=2, nb=2, kb=4, shift=8):
    """The schedule of compiler/ops/dense.cc written in Python (VTA's style): D = clip(A W^T >>
    shift) over blocks, the accumulator on chip, input and weight tiles cached into the inp/wgt
    buffers, the block loops tensorized. Returns (schedule, A, W, C, D), C the sums."""
    g = te.gemm_intrinsic(config)
    A = te.placeholder((mb, kb, g.batch, g.block_in), "int8", name="A")
    W = te.placeholder((nb, kb, g.block_out, g.block_in), "int8", name="W")
    ko = te.reduce_axis((0, kb), name="ko")
    ki = te.reduce_axis((0, g.block_in), name="ki")
    C = te.compute((mb, nb, g.batch, g.block_out),
                   lambda i, j, b, o: te.sum(A[i, ko, b, ki].astype("int32") *
                                             W[j, ko, o, ki].astype("int32"), axis=[ko, ki]),
                   name="C")
    D = te.compute(C.shape, lambda i, j, b, o: te.min(te.max(C[i, j, b, o] >> shift, -128), 127)
                   .astype("int8"), name="D")
    s = te.create_schedule(D)
    s.set_scope(C, "local.acc_buffer")
    Ai = s.cache_read(A, "local.inp_buffer", [C])
    Wi = s.cache_read(W, "local.wgt_buffer", [C])
    mo, mi = s[D].split(D.axis[0], factor=1)
    no, ni = s[D].split(D.axis[1], factor=1)
    s[D].reorder(mo, no, mi, ni)
    s[C].compute_at(s[D], no)
    koo, koi = s[C].split(C.reduce_axis[0], factor=1)
    ax = C.axis
    s[C].reorder(koo, koi, ax[0], ax[1], ax[2], ax[3], C.reduce_axis[1])
    s[C].tensorize(ax[2], g)
    s[Ai].compute_at(s[C], koo)
    s[Wi].compute_at(s[C], koo)
    s[Ai].pragma(Ai.axis[0], "dma_copy")
    s[Wi].pragma(Wi.axis[0], "dma_copy")
    s[D].pragma(mi, "dma_copy")
    return s, A, W, C, D
