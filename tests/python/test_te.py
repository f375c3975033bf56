# weft.te and weft.build on the LLVM target: compute definitions, schedules and their results
# against NumPy, the lowered IR text, and the errors bad inputs raise.
import numpy as np
import pytest

import weft
from weft import te

from conftest import vta_dense


def matmul_nt(n, m, k_ext, dtype="float32"):
    A = te.placeholder((n, k_ext), dtype, name="A")
    B = te.placeholder((m, k_ext), dtype, name="B")
    k = te.reduce_axis((0, k_ext), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    return A, B, C


def test_issue_snippet_tiled_vectorized_matmul():
    n = 256
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    s = te.create_schedule(C)
    io, jo, ii, ji = s[C].tile(C.axis[0], C.axis[1], 32, 32)
    s[C].vectorize(ji)
    f = weft.build(s, [A, B, C], target="llvm")
    a = np.random.rand(n, n).astype("float32")
    b = np.random.rand(n, n).astype("float32")
    c = np.zeros((n, n), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4)


def test_lower_shows_the_scheduled_loops():
    A, B, C = matmul_nt(64, 48, 32)
    s = te.create_schedule(C)
    io, ii = s[C].split(C.axis[0], factor=16)
    s[C].parallel(io)
    text = weft.lower(s, [A, B, C])
    assert text.startswith("func default_function(A: float32[64, 32], B: float32[48, 32], "
                           "C: float32[64, 48])")
    assert "i.outer" in text and "i.inner" in text and "parallel" in text
    assert "C[" in text and "A[" in text


def test_split_reorder_fuse_unroll_parallel_give_the_same_result():
    A, B, C = matmul_nt(40, 24, 20)
    s = te.create_schedule(C)
    io, ii = s[C].split(C.axis[0], factor=8)
    jo, ji = s[C].split(C.axis[1], nparts=3)
    s[C].reorder(io, jo, C.reduce_axis[0], ii, ji)
    f = s[C].fuse(io, jo)
    s[C].parallel(f)
    s[C].unroll(ji)
    mod = weft.build(s, [A, B, C], threads=2)
    a = np.random.rand(40, 20).astype("float32")
    b = np.random.rand(24, 20).astype("float32")
    c = np.zeros((40, 24), "float32")
    mod(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5)
    assert "define" in mod.llvm_ir()
    assert "i.outer" in mod.ir() and "unrolled" in mod.ir()


def test_int8_dense_with_casts_shift_and_clip():
    n, m, kk = 16, 32, 64
    A = te.placeholder((n, kk), "int8", name="A")
    W = te.placeholder((m, kk), "int8", name="W")
    k = te.reduce_axis((0, kk), name="k")
    acc = te.compute((n, m), lambda i, j: te.sum(A[i, k].astype("int32") * W[j, k].astype("int32"),
                                                 axis=k), name="acc")
    out = te.compute((n, m), lambda i, j: te.min(te.max(acc[i, j] >> 6, -128), 127).astype("int8"),
                     name="out")
    assert acc.dtype == "int32" and out.dtype == "int8"
    s = te.create_schedule(out)
    f = weft.build(s, [A, W, out])
    a = np.random.randint(-128, 128, (n, kk), dtype=np.int8)
    w = np.random.randint(-128, 128, (m, kk), dtype=np.int8)
    o = np.zeros((n, m), np.int8)
    f(a, w, o)
    want = np.clip((a.astype(np.int32) @ w.astype(np.int32).T) >> 6, -128, 127).astype(np.int8)
    np.testing.assert_array_equal(o, want)


def test_max_reduction_select_and_compute_inline():
    # 2x2 max pooling of a ReLU'd, padded input: the padding and the ReLU are inlined.
    X = te.placeholder((8, 8), "float32", name="X")
    P = te.compute((10, 10), lambda i, j: te.select((i >= 1) & (i < 9) & (j >= 1) & (j < 9),
                                                    X[i - 1, j - 1], 0.0), name="P")
    R = te.compute((10, 10), lambda i, j: te.max(P[i, j], 0.0), name="R")
    ry = te.reduce_axis((0, 2), name="ry")
    rx = te.reduce_axis((0, 2), name="rx")
    Y = te.compute((5, 5), lambda i, j: te.max(R[i * 2 + ry, j * 2 + rx], axis=[ry, rx]), name="Y")
    s = te.create_schedule(Y)
    # Consumers first: te::Schedule::compute_inline substitutes a tensor's definition as it
    # stands, so R is inlined into Y before P into (what is now) Y.
    s[R].compute_inline()
    s[P].compute_inline()
    text = weft.lower(s, [X, Y])
    assert "P[" not in text and "R[" not in text
    f = weft.build(s, [X, Y])
    x = np.random.randn(8, 8).astype("float32")
    y = np.zeros((5, 5), "float32")
    f(x, y)
    p = np.maximum(np.pad(x, 1), 0)
    np.testing.assert_allclose(y, p.reshape(5, 2, 5, 2).max(axis=(1, 3)))


def test_cache_write_local_compute_at():
    A, B, C = matmul_nt(32, 32, 16)
    s = te.create_schedule(C)
    CL = s.cache_write(C, "local")
    io, jo, ii, ji = s[C].tile(C.axis[0], C.axis[1], 8, 8)
    s[CL].compute_at(s[C], jo)
    s[C].vectorize(ji)
    text = weft.lower(s, [A, B, C])
    assert "local" in text
    f = weft.build(s, [A, B, C])
    a = np.random.rand(32, 16).astype("float32")
    b = np.random.rand(32, 16).astype("float32")
    c = np.zeros((32, 32), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5)


def test_two_outputs_in_any_argument_order():
    X = te.placeholder((16,), "float32", name="X")
    Y = te.compute((16,), lambda i: X[i] * 2.0, name="Y")
    Z = te.compute((16,), lambda i: Y[i] + 1.0, name="Z")
    s = te.create_schedule(Z)
    f = weft.build(s, [Z, X, Y])
    x = np.arange(16, dtype="float32")
    y = np.zeros(16, "float32")
    z = np.zeros(16, "float32")
    f(z, x, y)
    np.testing.assert_array_equal(y, x * 2)
    np.testing.assert_array_equal(z, x * 2 + 1)


@pytest.fixture
def built():
    A, B, C = matmul_nt(8, 8, 8)
    s = te.create_schedule(C)
    return weft.build(s, [A, B, C])


def ok_arrays():
    return [np.zeros((8, 8), "float32") for _ in range(3)]


def test_wrong_dtype_is_an_error(built):
    a, b, c = ok_arrays()
    with pytest.raises(weft.Error, match=r"argument 0 \(A\): dtype float64, expected float32"):
        built(a.astype("float64"), b, c)


def test_wrong_shape_is_an_error(built):
    a, b, c = ok_arrays()
    with pytest.raises(weft.Error, match=r"argument 2 \(C\): shape \(8, 4\), expected \(8, 8\)"):
        built(a, b, np.zeros((8, 4), "float32"))


def test_wrong_count_non_array_and_non_contiguous_are_errors(built):
    a, b, c = ok_arrays()
    with pytest.raises(weft.Error, match="takes 3 arrays"):
        built(a, b)
    with pytest.raises(weft.Error, match="expected a numpy.ndarray, got list"):
        built(a, [[0.0] * 8] * 8, c)
    with pytest.raises(weft.Error, match="not C-contiguous"):
        built(np.zeros((8, 16), "float32")[:, ::2], b, c)
    assert issubclass(weft.Error, ValueError)


def test_schedule_errors_name_the_stage_and_loop():
    A, B, C = matmul_nt(8, 8, 8)
    s = te.create_schedule(C)
    with pytest.raises(weft.Error, match="reduction loop 'k'"):
        s[C].bind(C.reduce_axis[0], "threadIdx.x")
    with pytest.raises(weft.Error, match="placeholder"):
        s[A]
    other = te.reduce_axis((0, 4), name="other")
    with pytest.raises(weft.Error, match="other"):
        s[C].split(other, factor=2)
    with pytest.raises(weft.Error, match="unknown scope 'sram'"):
        s.cache_write(C, "sram")
    with pytest.raises(weft.Error, match="unknown thread axis"):
        s[C].bind(C.axis[0], "warp.x")


def test_build_errors():
    A, B, C = matmul_nt(8, 8, 8)
    s = te.create_schedule(C)
    with pytest.raises(weft.Error, match="placeholder 'B' is read by 'C' but not listed"):
        weft.build(s, [A, C])
    with pytest.raises(weft.Error, match="unknown target 'opencl'"):
        weft.build(s, [A, B, C], target="opencl")
    # A GPU build needs bound loops (the CUDA code generator says so before any GPU is asked).
    with pytest.raises(weft.Error, match="no loop is bound to blockIdx or threadIdx"):
        weft.build(s, [A, B, C], target="cuda")
    with pytest.raises(weft.Error, match="pass 'nonesuch' is not a pass of the pipeline"):
        weft.lower(s, [A, B, C], target="accel", pass_="nonesuch")
    with pytest.raises(weft.Error, match="pass goes with target='accel'"):
        weft.lower(s, [A, B, C], pass_="lower")
    with pytest.raises(weft.Error, match="listed twice"):
        weft.build(s, [A, B, C, A])
    with pytest.raises(weft.Error, match="unknown dtype 'float8'"):
        te.placeholder((4,), "float8", name="bad")
    with pytest.raises(weft.Error, match="'/' is not in Weft's IR"):
        te.compute((8,), lambda i: A[i, 0] / 2.0)
    with pytest.raises(weft.Error, match="has 2 dimensions, indexed with 1"):
        te.compute((8,), lambda i: A[i])


def test_vta_style_dense_schedule_lowers_through_the_accelerator_passes():
    g = te.gemm_intrinsic("vta")
    assert (g.batch, g.block_in, g.block_out) == (1, 16, 16)
    s, A, W, C, D = vta_dense("vta", mb=1, nb=2, kb=2)
    ax = C.axis
    text = weft.lower(s, [A, W, D], target="accel", config="vta")
    for p in ("lower", "detect_dma", "allocate_onchip", "fold_uops", "assign_queues"):
        assert "// after " + p + "\n" in text
    assert "weft.gemm" in text
    with pytest.raises(weft.Error, match="tensorize"):
        s[C].tensorize(ax[1], g)
