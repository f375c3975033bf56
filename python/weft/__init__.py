"""Weft from Python: tensor expressions and schedules built for the host CPU, the
accelerator's operators on its engines, and whole networks, with NumPy arrays in and out.

    import numpy as np, weft
    from weft import te

Build it with CMake (it is built when python3-dev and pybind11-dev are installed) and import
it with PYTHONPATH=build/python; docs/python.md says what is bound and what is not yet.
"""
from . import _weft
from ._weft import Error, lower, build, CpuModule, Graph, Network
from . import te, ops, models
from .report import Report, Timeline

__all__ = ["Error", "te", "ops", "models", "lower", "build", "compile", "CpuModule", "Graph",
           "Network", "Report", "Timeline"]


def compile(graph, target="accel", config="gemm8x8", platform="sim", calibrate=1,
            per_channel=False, tune=6, knob_cache=None, tune_db="", no_records=False):
    """Quantizes and compiles a network for the accelerator (as `weft run resnet18` does).

    calibrate: a number of synthetic samples, or float32 samples of the input's shape (one,
    or several stacked on a leading axis). tune: exact tilings measured on the cycle model per
    layer shape (1: the analytic choice). Returns a Network whose run(x, engine=...) gives
    (outputs, report) with the report a dict (accel_cycles, per-node "nodes", "table", ...).
    """
    return _CompiledNetwork(_weft.compile(graph, target, config, platform, calibrate,
                                          per_channel, tune, knob_cache, tune_db, no_records))


class _CompiledNetwork:
    """A compiled network: run(x, engine="cycle") -> (outputs, Report)."""

    def __init__(self, net):
        self._net = net

    def run(self, x, engine="cycle", trace=False):
        y, report = self._net.run(x, engine, trace)
        return y, Report(report)

    def listing(self):
        return self._net.listing()

    def dump(self):
        return self._net.dump()
