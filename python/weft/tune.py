"""weft.tune: the schedule search of `weft tune` (docs/tuning.md) from Python, with the same
tasks, database and summary."""
from . import _weft
from .report import Report

__all__ = ["tune"]


def tune(what, target="accel", trials=64, db="", strategy="evolutionary", seed=1, **options):
    """Tunes `what` ("dense", "conv2d", "resnet18" or the path of an ONNX model) on target "accel" (the cycle model; config,
    platform) or "llvm" (the host CPU; dtype float32 or int8) with `trials` measured trials and
    returns the summary `weft tune` prints (a Report). Every trial is recorded in the JSON-lines
    database `db` when given, which `weft run --tune-db`, weft.ops and weft.compile read.

    Shapes: dense m, n, k; conv2d batch, h, w, ic, oc, kernel, stride, pad, or layer="C1".."C12";
    resnet18 layers=["C1", ...]; a model (PATH.onnx, as `weft tune PATH.onnx`) its conv2d and dense
    layers, one task per distinct shape weighted by its work times its count. Search: per_round, population, workers, early_stop; quiet=False
    prints a progress line per batch on stderr. Ctrl-C stops after the batch in flight (the
    database keeps what was measured) and raises KeyboardInterrupt."""
    return Report(_weft.tune(what, target=target, trials=trials, db=db, strategy=strategy,
                             seed=seed, **options))
