"""weft.build: a schedule compiled into a callable module for the host CPU (target="llvm"),
the accelerator (target="accel": run on its functional, cycle, rtl or xrt engine, with the
statistics, the timeline and the instruction listing) or a GPU (target="cuda"); and
weft.run_image, a program held in a DRAM image run on an engine (as `weft sim` runs one)."""
from . import _weft
from .report import Report, Timeline

__all__ = ["build", "AccelModule", "RunResult", "run_image"]


class RunResult:
    """An accelerator run: stats (weft sim's statistics as a Report: cycles, utilization,
    per-module busy and stall cycles under "modules", DRAM bytes per memory type, ...),
    timeline (the cycle engine's, or None) and, for weft.run_image, image (the final bytes)."""

    def __init__(self, stats, timeline, image=None):
        self.stats = Report(stats)
        self.timeline = Timeline(timeline) if timeline is not None else None
        self.image = image

    def __repr__(self):
        return "RunResult(engine=%s, cycles=%s)" % (self.stats.get("engine"),
                                                   self.stats.get("cycles"))

    def _repr_html_(self):
        return self.stats._repr_html_()


class AccelModule:
    """A schedule built for the accelerator. f(*arrays) runs it on the functional engine (the
    golden model: results only, the fastest); f.run(*arrays, engine=...) on any engine, with
    the statistics. Arrays are NumPy arrays of the argument tensors' dtypes and shapes, in the
    order given to build; outputs are written in place."""

    def __init__(self, module):
        self._m = module

    def __call__(self, *arrays):
        self._m.run(*arrays, engine="functional", trace=False)

    def run(self, *arrays, engine="cycle", trace=None, timeout=3600.0, xclbin="",
            xrt_emulate=""):
        """Runs on engine functional, cycle (default), rtl or xrt (a board with xclbin, or
        the emulated board with xrt_emulate="rtl"|"cycle"); the cycle engine records the
        timeline unless trace=False. Ctrl-C stops the run (KeyboardInterrupt)."""
        r = self._m.run(*arrays, engine=engine, trace=trace, timeout=timeout, xclbin=xclbin,
                        xrt_emulate=xrt_emulate)
        return RunResult(r["stats"], r["timeline"])

    @property
    def name(self):
        return self._m.name

    @property
    def config(self):
        return self._m.config

    def asm(self):
        """The instruction listing, as `weft compile ... --emit asm` prints it."""
        return self._m.asm()

    def ir(self):
        """The IR after every accelerator pass (as weft.lower(..., target="accel"))."""
        return self._m.ir()

    def program(self):
        """The accelerator program (loads, GEMM and ALU kernels, stores, tokens), a line each."""
        return self._m.program()

    def image(self):
        """(image bytes with the tensors zeroed, instruction count, {tensor name: byte
        address}): what weft.run_image takes, for filling the tensors by hand."""
        return self._m.image()

    def __repr__(self):
        return "<weft.AccelModule %s config=%s>" % (self.name, self.config)


def build(schedule, args, target="llvm", name="default_function", threads=None, config=None,
          platform=None):
    """Compiles a schedule over its argument tensors (inputs and outputs, in call order).

    target="llvm": the host CPU through the LLVM JIT (threads: run the parallel loops on a
    pool); "accel": the accelerator (config: a configuration name or file, default gemm8x8;
    platform: the memory platform of the cycle and rtl engines, default sim); "cuda": a GPU
    (weft.Error without one). Returns a callable module."""
    m = _weft.build(schedule, args, target=target, name=name, threads=threads, config=config,
                    platform=platform)
    return AccelModule(m) if target == "accel" else m


def run_image(image, insn_count=None, insn_offset=0, config="gemm8x8", engine="cycle",
              platform="sim", size=None, trace=None, timeout=3600.0):
    """Runs a program held in a DRAM image (bytes, bytearray or a uint8 NumPy array; the
    device's memory from address 0) on an engine, as `weft sim` does: insn_count instructions
    at byte insn_offset (default: the whole image from insn_offset is the program, e.g.
    weft.assemble's bytes); size pads the image with zeros to that many bytes. Returns a
    RunResult whose image is the final image (bytes). Ctrl-C stops the run."""
    r = _weft.run_image(image, insn_count, insn_offset, config, engine, platform, size, trace,
                        timeout)
    return RunResult(r["stats"], r["timeline"], r["image"])
