# weft.build(..., target="accel"): a schedule written for the accelerator in Python (VTA's
# style: blocked tensors, tiles cached into the inp/wgt/acc buffers, the block loop
# tensorized) runs on the engines on NumPy arrays, equals NumPy, and equals `weft sim` running
# the same image; weft.run_image runs a program image; misuse is weft.Error.
import json

import numpy as np
import pytest

import weft
from weft import te

from conftest import vta_dense


def reference(a, w, shift):
    """D in the blocked layout from blocked A (mb, kb, batch, bi) and W (nb, kb, bo, bi)."""
    mb, kb, batch, bi = a.shape
    nb, _, bo, _ = w.shape
    am = a.transpose(0, 2, 1, 3).reshape(mb * batch, kb * bi).astype(np.int32)
    wm = w.transpose(0, 2, 1, 3).reshape(nb * bo, kb * bi).astype(np.int32)
    d = np.clip((am @ wm.T) >> shift, -128, 127).astype(np.int8)
    return d.reshape(mb, batch, nb, bo).transpose(0, 2, 1, 3).copy()


@pytest.fixture(scope="module")
def dense():
    s, A, W, _, D = vta_dense()
    f = weft.build(s, [A, W, D], target="accel", config="vta")
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, A.shape, dtype=np.int8)
    w = rng.integers(-128, 128, W.shape, dtype=np.int8)
    return f, a, w, (A, W, D)


def test_functional_call_equals_numpy(dense):
    f, a, w, (A, W, D) = dense
    d = np.zeros(D.shape, np.int8)
    f(a, w, d)
    np.testing.assert_array_equal(d, reference(a, w, 8))
    assert f.config == "vta" and f.name == "default_function"


def test_every_engine_gives_the_same_output_and_cycle_statistics(dense):
    f, a, w, (A, W, D) = dense
    want = reference(a, w, 8)
    outs = {}
    for engine in ("functional", "cycle"):
        d = np.zeros(D.shape, np.int8)
        r = f.run(a, w, d, engine=engine)
        np.testing.assert_array_equal(d, want)
        outs[engine] = r
    func, cyc = outs["functional"], outs["cycle"]
    assert func.timeline is None and "cycles" not in func.stats
    st = cyc.stats
    assert st["config"] == "vta" and st["platform"] == "sim"
    assert st["cycles"] > 0 and 0 < st["utilization"] <= 1
    assert {"fetch", "load", "compute", "store"} <= set(st["modules"])
    assert st["modules"]["compute"]["busy"] > 0
    # DRAM traffic: A and W loaded once per output tile (2 x 2 tiles), D stored once.
    assert st["inp_load_nbytes"] == a.nbytes * 2 and st["wgt_load_nbytes"] == w.nbytes * 2
    assert st["out_store_nbytes"] == want.nbytes
    assert st["gemm_counter"] > 0 and st["insn_count"] == func.stats["insn_count"]
    assert cyc.timeline is not None and cyc.timeline.doc["traceEvents"]
    assert cyc.timeline.svg().startswith("<svg")
    # Deterministic: the same run again gives the same cycles.
    d = np.zeros(D.shape, np.int8)
    assert f.run(a, w, d, engine="cycle", trace=False).stats["cycles"] == st["cycles"]


def test_asm_ir_and_program(dense):
    f = dense[0]
    listing = f.asm()
    head, *insns = listing.splitlines()
    assert head.startswith("// %d instructions;" % len(insns))
    assert " A at byte " in head and " D at byte " in head
    assert any("GEMM" in l for l in insns) and "FINISH" in insns[-1]
    assert "// after fold_uops\n" in f.ir() and "weft.gemm" in f.ir()
    assert "GEMM" in f.program()
    # The listing assembles back to the image's instructions.
    image, count, at = f.image()
    assert count == len(insns) and at["A"] < at["W"] < at["D"]
    assert weft.assemble("\n".join(insns), config="vta") == image[:16 * count]


def test_the_image_runs_the_same_in_weft_sim_and_run_image(dense, tmp_path, weft_cli):
    f, a, w, (A, W, D) = dense
    image, count, at = f.image()
    img = bytearray(image)
    img[at["A"]:at["A"] + a.nbytes] = a.tobytes()
    img[at["W"]:at["W"] + w.nbytes] = w.tobytes()
    (tmp_path / "img.bin").write_bytes(bytes(img))
    stats = weft_cli("sim", "--config", "vta", "--engine", "cycle", "--mem",
                     str(tmp_path / "img.bin"), "--insn-offset", "0", "--insn-count", str(count),
                     "--out", str(tmp_path / "out.bin"), "--json")
    out = (tmp_path / "out.bin").read_bytes()
    d_cli = np.frombuffer(out[at["D"]:at["D"] + int(np.prod(D.shape))], np.int8).reshape(D.shape)
    np.testing.assert_array_equal(d_cli, reference(a, w, 8))
    d = np.zeros(D.shape, np.int8)
    assert f.run(a, w, d, engine="cycle").stats["cycles"] == stats["cycles"]
    r = weft.run_image(bytes(img), insn_count=count, config="vta", engine="cycle")
    assert r.image == out and r.stats["cycles"] == stats["cycles"]
    for k in ("inp_load_nbytes", "wgt_load_nbytes", "out_store_nbytes", "gemm_counter",
              "modules", "utilization"):
        assert r.stats[k] == stats[k], k


def test_bad_arguments_and_options_are_errors(dense):
    f, a, w, (A, W, D) = dense
    d = np.zeros(D.shape, np.int8)
    with pytest.raises(weft.Error, match=r"argument 0 \(A\): dtype int32, expected int8"):
        f(a.astype(np.int32), w, d)
    with pytest.raises(weft.Error, match=r"argument 1 \(W\): shape"):
        f(a, w[:1], d)
    with pytest.raises(weft.Error, match="takes 3 arrays"):
        f(a, w)
    with pytest.raises(weft.Error, match="not C-contiguous"):
        f(a, w, np.zeros(D.shape[::-1], np.int8).T)
    with pytest.raises(weft.Error, match="read-only"):
        ro = np.zeros(D.shape, np.int8)
        ro.flags.writeable = False
        f(a, w, ro)
    with pytest.raises(weft.Error, match="unknown engine|engine"):
        f.run(a, w, d, engine="warp")
    with pytest.raises(weft.Error, match="timeline needs the cycle engine"):
        f.run(a, w, d, engine="functional", trace=True)
    with pytest.raises(weft.Error, match="go with engine='xrt'"):
        f.run(a, w, d, engine="cycle", xrt_emulate="rtl")
    with pytest.raises(weft.Error, match="timeout"):
        f.run(a, w, d, timeout=0)
    s, A2, W2, _, D2 = vta_dense()
    with pytest.raises(weft.Error, match="threads goes with target='llvm'"):
        weft.build(s, [A2, W2, D2], target="accel", threads=2)
    with pytest.raises(weft.Error, match="config goes with target='accel'"):
        weft.build(s, [A2, W2, D2], target="llvm", config="vta")
    with pytest.raises(weft.Error, match="unknown target 'tpu'"):
        weft.build(s, [A2, W2, D2], target="tpu")
    with pytest.raises(weft.Error, match="configuration|config"):
        weft.build(s, [A2, W2, D2], target="accel", config="nonesuch")
    with pytest.raises(weft.Error, match="platform"):
        weft.build(s, [A2, W2, D2], target="accel", config="vta", platform="nonesuch")


def test_a_schedule_the_accelerator_cannot_run_is_an_error():
    # A plain (CPU-style) schedule: nothing is cached on chip or tensorized.
    A = te.placeholder((16, 16), "int8", name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] + 1, name="B")
    s = te.create_schedule(B)
    with pytest.raises(weft.Error):
        weft.build(s, [A, B], target="accel", config="vta")
    # The int32 sums stored as they are: a STORE narrows to int8, so the output must be int8.
    g = te.gemm_intrinsic("vta")
    A = te.placeholder((1, 2, 1, 16), "int8", name="A")
    W = te.placeholder((2, 2, 16, 16), "int8", name="W")
    k = te.reduce_axis((0, 2), name="k")
    kk = te.reduce_axis((0, 16), name="kk")
    acc = te.compute((1, 2, 1, 16), lambda i, j, b, o: te.sum(
        A[i, k, b, kk].astype("int32") * W[j, k, o, kk].astype("int32"), axis=[k, kk]), name="acc")
    out = te.compute(acc.shape, lambda *i: acc[i], name="out")
    s = te.create_schedule(out)
    s.set_scope(acc, "local.acc_buffer")
    Ai = s.cache_read(A, "local.inp_buffer", [acc])
    Wi = s.cache_read(W, "local.wgt_buffer", [acc])
    s[acc].compute_at(s[out], out.axis[1])
    s[acc].reorder(acc.reduce_axis[0], *acc.axis, acc.reduce_axis[1])
    s[acc].tensorize(acc.axis[2], g)
    s[Ai].compute_at(s[acc], acc.reduce_axis[0])
    s[Wi].compute_at(s[acc], acc.reduce_axis[0])
    s[Ai].pragma(Ai.axis[0], "dma_copy")
    s[Wi].pragma(Wi.axis[0], "dma_copy")
    s[out].pragma(out.axis[2], "dma_copy")
    with pytest.raises(weft.Error, match=r"'out' is int32 but the program moves it as OUT"):
        weft.build(s, [A, W, out], target="accel", config="vta")
    with pytest.raises(weft.Error, match="placeholder 'W' is read by"):
        weft.build(s, [A, out], target="accel", config="vta")


def test_cuda_needs_a_gpu_or_names_the_missing_part():
    n = 64
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B)
    bx, tx = s[B].split(B.axis[0], factor=32)
    s[B].bind(bx, "blockIdx.x")
    s[B].bind(tx, "threadIdx.x")
    src = weft.lower(s, [A, B], target="cuda")
    assert "__global__" in src and "threadIdx.x" in src
    try:
        f = weft.build(s, [A, B], target="cuda")
    except weft.Error as e:
        assert "target 'cuda'" in str(e) and ("CUDA" in str(e) or "GPU" in str(e))
        return
    # A GPU is here: the module runs.
    a = np.arange(n, dtype=np.float32)
    b = np.zeros(n, np.float32)
    f(a, b)
    np.testing.assert_array_equal(b, a * 2)
    assert "__global__" in f.cuda()


def test_run_image_runs_an_assembled_program_and_refuses_bad_images():
    vta = weft.config("vta")
    program = weft.assemble("LOAD INP sram_base=0 dram_base=4 y_size=1 x_size=2 x_stride=2 "
                            "push_next_dep\nFINISH pop_prev_dep", config=vta)
    r = weft.run_image(program, config=vta, size=4096)
    assert len(r.image) == 4096 and r.image[:len(program)] == program
    assert r.stats["insn_count"] == 2 and r.stats["inp_load_nbytes"] == 32
    assert r.stats["cycles"] > 0 and r.timeline is not None
    f = weft.run_image(np.frombuffer(program + bytes(4096 - 32), np.uint8), insn_count=2,
                       config=vta, engine="functional")
    assert f.timeline is None and f.stats["engine"] == "functional"
    with pytest.raises(weft.Error, match="bytes, bytearray or a uint8"):
        weft.run_image("LOAD", config=vta)
    with pytest.raises(weft.Error, match="uint8"):
        weft.run_image(np.zeros(64, np.int32), config=vta)
    with pytest.raises(weft.Error, match="empty|no instructions"):
        weft.run_image(b"", config=vta)
    with pytest.raises(weft.Error, match="do not fit"):
        weft.run_image(program, insn_count=5, config=vta)
    with pytest.raises(weft.Error, match="multiple of 16"):
        weft.run_image(program, insn_offset=3, config=vta)
    with pytest.raises(weft.Error, match="size"):
        weft.run_image(program, size=8, config=vta)
    # A load past the end of the image, or a program that breaks the token rules, is the
    # engine's error, not a crash.
    with pytest.raises(weft.Error):
        weft.run_image(program, config=vta)
    no_token = weft.assemble("LOAD INP sram_base=0 dram_base=4 y_size=1 x_size=2 x_stride=2\n"
                             "FINISH", config=vta)
    with pytest.raises(weft.Error, match="dependency token"):
        weft.run_image(no_token, config=vta, size=4096)
