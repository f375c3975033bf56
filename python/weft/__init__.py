"""Weft from Python: tensor expressions and schedules built for the host CPU, the accelerator
or a GPU, the accelerator's operators on its engines, whole networks and schedule search, with
NumPy arrays in and out.

    import numpy as np, weft
    from weft import te

Build it with CMake (it is built when python3-dev and pybind11-dev are installed) and import
it with PYTHONPATH=build/python; docs/python.md says what is bound and what is not yet.
"""
from . import _weft
from ._weft import (Error, lower, from_onnx, graph_pass_names, CpuModule, GpuModule, Graph,
                    Network, CpuNetwork)
from . import te, ops, models
from .report import Report, Timeline
from .network import compile, CompiledNetwork
from .isa import Config, config, configs, assemble, disassemble
from .modules import build, AccelModule, RunResult, run_image
from .tune import tune

__all__ = ["Error", "te", "ops", "models", "lower", "build", "compile", "from_onnx", "graph_pass_names",
           "CpuModule", "GpuModule", "AccelModule", "RunResult", "Graph", "Network", "CpuNetwork",
           "CompiledNetwork", "Report", "Timeline", "Config", "config", "configs", "assemble",
           "disassemble", "run_image", "tune"]
