"""The operators on NumPy arrays, with the knobs and the report of the weft CLI's `weft run OP`
(see `weft run dense --help`): on the accelerator's engines (target="accel", the default), the
host CPU (target="llvm") or an NVIDIA GPU (target="cuda")."""
from . import _weft
from .report import Report, Timeline

__all__ = ["dense", "conv2d", "OpResult"]


class OpResult:
    """An operator run: output (NumPy), stats (the CLI's JSON report as a Report: cycles,
    utilization, roofline, per-module busy/stall, ...) and timeline (with trace=True)."""

    def __init__(self, output, stats, timeline=None):
        self.output = output
        self.stats = Report(stats)
        self.timeline = Timeline(timeline) if timeline is not None else None

    def __repr__(self):
        return "OpResult(output=%s %s, cycles=%s)" % (
            self.output.dtype, self.output.shape, self.stats.get("cycles"))

    def _repr_html_(self):
        return self.stats._repr_html_()


# The accelerator's options and their defaults; target="llvm"|"cuda" refuses them when given
# otherwise, as the CLI does.
_ACCEL = dict(config="gemm8x8", engine="cycle", shift=8, relu=False, no_relu=False,
              platform="sim", vthreads=None, vthread_axis=None, tile_m=None, tile_n=None,
              tile_k=None, tile_h=None, tile_w=None, tile_ic=None, tile_oc=None, search=1,
              timeout=3600.0, trace=False)


def _on_target(op, x, w, target, stride, pad, tune_db, no_records, accel, on):
    """`weft run OP --target llvm|cuda` on x and w (their dtype: float32, int8 or, on cuda,
    float16)."""
    given = sorted(k for k, v in accel.items() if v != _ACCEL[k])
    if given:
        raise _weft.Error("%s: %s go%s with target='accel' (target='%s' runs on %s)" % (
            op, ", ".join(given), "es" if len(given) == 1 else "",
            target, "an NVIDIA GPU" if target == "cuda" else "the host CPU"))
    if target == "llvm" and on["gpu_path"] is not None:
        raise _weft.Error("%s: gpu_path goes with target='cuda'" % op)
    if target == "cuda" and (on["threads"] is not None or tune_db or no_records):
        raise _weft.Error("%s: threads, tune_db and no_records go with target='accel' or 'llvm' "
                          "(the GPU backend has no tuning records)" % op)
    r = _weft.ops.on_target(op, x, w, stride, pad, target,
                            1 if on["threads"] is None else on["threads"],
                            5 if on["repeats"] is None else on["repeats"],
                            on["gpu_path"] or "auto", tune_db, no_records)
    return OpResult(r["output"], r["stats"])


def _accel_only(op, on):
    """Refuses the CPU and GPU targets' options given with target="accel"."""
    given = sorted(k for k, v in on.items() if v is not None)
    if given:
        raise _weft.Error("%s: %s go%s with target='llvm' or 'cuda' (the accelerator runs the "
                          "operator once, on engine)" % (op, ", ".join(given),
                                                         "es" if len(given) == 1 else ""))


def dense(x, w, config="gemm8x8", engine="cycle", shift=8, relu=False, platform="sim",
          vthreads=None, vthread_axis=None, tile_m=None, tile_n=None, tile_k=None, tune_db="",
          no_records=False, timeout=3600.0, trace=False, target="accel", threads=None,
          repeats=None, gpu_path=None):
    """int8 dense on an accelerator engine (functional, cycle, rtl, xrt):
    clip((x . w^T) >> shift) as int8, x M x K, w N x K, checked against the CPU reference.
    Knobs left out are chosen as `weft run dense` chooses them (tuning records, then the
    analytic chooser).

    target="llvm" (the host CPU: `threads`, the tuned schedule from `tune_db` or the shipped
    records) or "cuda" (an NVIDIA GPU: `gpu_path` auto, simt, tensor-core or dp4a) runs
    x . w^T as `weft run dense --target llvm|cuda`: float32 (or int8 with an int32 output;
    float16 with a float32 output on cuda), a warm-up and `repeats` timed runs (default 5,
    the median reported in stats["wall_seconds"]), checked against the scalar reference."""
    on = dict(threads=threads, repeats=repeats, gpu_path=gpu_path)
    if target != "accel":
        accel = dict(config=config, engine=engine, shift=shift, relu=relu, platform=platform,
                     vthreads=vthreads, vthread_axis=vthread_axis, tile_m=tile_m, tile_n=tile_n,
                     tile_k=tile_k, timeout=timeout, trace=trace)
        return _on_target("dense", x, w, target, 1, 0, tune_db, no_records, accel, on)
    _accel_only("dense", on)
    r = _weft.ops.dense(x, w, config, engine, shift, relu, platform, vthreads, vthread_axis,
                        tile_m, tile_n, tile_k, tune_db, no_records, timeout, trace)
    return OpResult(r["output"], r["stats"], r["timeline"])


def conv2d(x, w, bias=None, stride=1, pad=0, config="gemm8x8", engine="cycle", shift=8,
           no_relu=False, platform="sim", vthreads=None, vthread_axis=None, tile_h=None,
           tile_w=None, tile_ic=None, tile_oc=None, search=1, tune_db="", no_records=False,
           timeout=3600.0, trace=False, target="accel", threads=None, repeats=None,
           gpu_path=None):
    """int8 2D convolution on an accelerator engine, as `weft run conv2d`:
    clip(((conv(x, w) >> shift) + bias), 0, 127) as int8 (-128..127 with no_relu), x N x IC x
    H x W, w OC x IC x K x K, bias int32 OC (None: no bias), zero padding `pad` on each side.
    Knobs left out are chosen as the CLI chooses them (tuning records, then the analytic
    chooser; search=N tries N candidates on the cycle model).

    target="llvm" or "cuda": the plain convolution conv(x, w) (no bias, shift or ReLU) as
    `weft run conv2d --target llvm|cuda`; see dense for the options and dtypes."""
    on = dict(threads=threads, repeats=repeats, gpu_path=gpu_path)
    if target != "accel":
        accel = dict(config=config, engine=engine, shift=shift, no_relu=no_relu,
                     platform=platform, vthreads=vthreads, vthread_axis=vthread_axis,
                     tile_h=tile_h, tile_w=tile_w, tile_ic=tile_ic, tile_oc=tile_oc,
                     search=search, timeout=timeout, trace=trace)
        if bias is not None:
            raise _weft.Error("conv2d: bias goes with target='accel' (target='%s' computes the "
                              "plain convolution)" % target)
        return _on_target("conv2d", x, w, target, stride, pad, tune_db, no_records, accel, on)
    _accel_only("conv2d", on)
    r = _weft.ops.conv2d(x, w, bias, stride, pad, config, engine, shift, no_relu, platform,
                         vthreads, vthread_axis, tile_h, tile_w, tile_ic, tile_oc, search,
                         tune_db, no_records, timeout, trace)
    return OpResult(r["output"], r["stats"], r["timeline"])
