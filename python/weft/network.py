"""weft.compile: a network (weft.models.resnet18(), weft.from_onnx(path)) compiled for the
accelerator (quantized to int8, run on an engine) or for the host CPU (float32, LLVM), as
`weft run resnet18` and `weft run MODEL.onnx --target accel|llvm` run it."""
from . import _weft
from .report import Report

__all__ = ["compile", "CompiledNetwork"]

_UNSET = object()
# The accelerator target's options and their defaults (the CLI's).
_ACCEL = dict(config="gemm8x8", platform="sim", calibrate=1, per_channel=False, tune=6,
              knob_cache=None, tune_db="", no_records=False)


def compile(graph, target="accel", config=_UNSET, platform=_UNSET, calibrate=_UNSET,
            per_channel=_UNSET, tune=_UNSET, knob_cache=_UNSET, tune_db=_UNSET,
            no_records=_UNSET, threads=_UNSET):
    """Compiles a network; returns a CompiledNetwork whose run(x, ...) gives (outputs, report).

    target="accel": quantizes (calibrate: a number of synthetic samples, or float32 samples of
    the input's shape, one or several stacked on a leading axis) and compiles every kernel for
    `config` (default gemm8x8); tune: exact tilings measured on the cycle model per layer shape
    (1: the analytic choice). target="llvm": the float32 network on the host CPU with `threads`
    threads (the accelerator's options do not apply).
    """
    given = {k: v for k, v in dict(config=config, platform=platform, calibrate=calibrate,
                                   per_channel=per_channel, tune=tune, knob_cache=knob_cache,
                                   tune_db=tune_db, no_records=no_records).items()
             if v is not _UNSET}
    if target == "llvm":
        if given:
            raise _weft.Error("compile: %s go%s with target=\"accel\" (target=\"llvm\" runs the "
                              "float32 network on the host CPU)" % (
                                  ", ".join(sorted(given)), "es" if len(given) == 1 else ""))
        return CompiledNetwork(_weft.compile_llvm(graph, 1 if threads is _UNSET else threads),
                               "llvm")
    if target == "cuda":
        # Not a gap of the bindings: Weft runs networks on the accelerator or the host CPU only
        # (`weft run MODEL.onnx --target accel|llvm`); dense and conv2d run on a GPU.
        raise _weft.Error("compile: target 'cuda': Weft has no GPU network path (networks run on "
                          "target=\"accel\" or \"llvm\"; weft.ops.dense/conv2d and weft.build "
                          "take target=\"cuda\")")
    if target != "accel":
        raise _weft.Error("compile: target '%s' is not one of accel, llvm" % target)
    if threads is not _UNSET:
        raise _weft.Error("compile: threads goes with target=\"llvm\"")
    o = dict(_ACCEL, **given)
    return CompiledNetwork(_weft.compile_accel(graph, **o), "accel")


class CompiledNetwork:
    """A compiled network: run(x, engine=...) -> (outputs, Report). Outputs are NumPy arrays
    (a tuple for several); the report is the CLI's JSON report as a dict (per node in
    "nodes"), which shows itself as a table in Jupyter."""

    def __init__(self, net, target):
        self._net = net
        self.target = target

    def run(self, x, engine=None, trace=False):
        """Runs on the input(s) x (float32 NumPy arrays of the input's shape). On the
        accelerator, engine is functional, cycle (default) or rtl, and trace=True adds the
        run's timeline as report["timeline"] (a Timeline in microseconds: an SVG picture in
        Jupyter); Ctrl-C stops a run (KeyboardInterrupt)."""
        if self.target == "llvm":
            if engine is not None or trace:
                raise _weft.Error("run: engine and trace go with target=\"accel\" (this network "
                                  "runs on the host CPU)")
            y, report = self._net.run(x)
        else:
            y, report = self._net.run(x, "cycle" if engine is None else engine, trace)
        return y, Report(report)

    def listing(self):
        """The accelerator executor's steps (target="accel")."""
        if self.target == "llvm":
            raise _weft.Error("listing: the executor's steps go with target=\"accel\"")
        return self._net.listing()

    def dump(self):
        """The compiled graph as text."""
        return self._net.dump()

    def __repr__(self):
        return "<weft.CompiledNetwork target=%s>" % self.target
