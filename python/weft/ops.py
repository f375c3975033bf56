"""The accelerator's operators on NumPy arrays, with the knobs and the report of the weft CLI's
`weft run OP` (see `weft run dense --help`)."""
from . import _weft
from .report import Report, Timeline

__all__ = ["dense", "OpResult"]


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
