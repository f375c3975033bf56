"""The accelerator's operators on NumPy arrays, with the knobs and the report of the weft CLI's
`weft run OP` (see `weft run dense --help`)."""
from . import _weft
from .report import Report, Timeline

__all__ = ["dense", "conv2d", "OpResult"]


class OpResult:
    """An operator run: output (NumPy), stats (the CLI's JSON report as a Report: cycles,
    utilization, roofline, per-module busy/stall, ...) and timeline (with trace=True)."""

    def __init__(self, output, stats, timeline):
        self.output = output
        self.stats = Report(stats)
        self.timeline = Timeline(timeline) if timeline is not None else None

    def __repr__(self):
        return "OpResult(output=%s %s, cycles=%s)" % (
            self.output.dtype, self.output.shape, self.stats.get("cycles"))

    def _repr_html_(self):
        return self.stats._repr_html_()


def dense(x, w, config="gemm8x8", engine="cycle", shift=8, relu=False, platform="sim",
          vthreads=None, vthread_axis=None, tile_m=None, tile_n=None, tile_k=None, tune_db="",
          no_records=False, timeout=3600.0, trace=False):
    """int8 dense on an accelerator engine (functional, cycle, rtl, xrt):
    clip((x . w^T) >> shift) as int8, x M x K, w N x K, checked against the CPU reference.
    Knobs left out are chosen as `weft run dense` chooses them (tuning records, then the
    analytic chooser)."""
    r = _weft.ops.dense(x, w, config, engine, shift, relu, platform, vthreads, vthread_axis,
                        tile_m, tile_n, tile_k, tune_db, no_records, timeout, trace)
    return OpResult(r["output"], r["stats"], r["timeline"])


def conv2d(x, w, bias=None, stride=1, pad=0, config="gemm8x8", engine="cycle", shift=8,
           no_relu=False, platform="sim", vthreads=None, vthread_axis=None, tile_h=None,
           tile_w=None, tile_ic=None, tile_oc=None, search=1, tune_db="", no_records=False,
           timeout=3600.0, trace=False):
    """int8 2D convolution on an accelerator engine, as `weft run conv2d`:
    clip(((conv(x, w) >> shift) + bias), 0, 127) as int8 (-128..127 with no_relu), x N x IC x
    H x W, w OC x IC x K x K, bias int32 OC (None: no bias), zero padding `pad` on each side.
    Knobs left out are chosen as the CLI chooses them (tuning records, then the analytic
    chooser; search=N tries N candidates on the cycle model)."""
    r = _weft.ops.conv2d(x, w, bias, stride, pad, config, engine, shift, no_relu, platform,
                         vthreads, vthread_axis, tile_h, tile_w, tile_ic, tile_oc, search,
                         tune_db, no_records, timeout, trace)
    return OpResult(r["output"], r["stats"], r["timeline"])
