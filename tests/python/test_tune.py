# weft.tune: the schedule search of `weft tune` from Python: the same tasks, database lines and
# summary as the CLI for the same options and seed; bad options are weft.Error; Ctrl-C stops
# it with KeyboardInterrupt and the database keeps what was measured.
import json
import os
import signal
import threading
import time

import pytest

import weft


def trials_of(summary):
    return [(t["task"], t["trials"], t["best"], t["best_trace"], t["value_of_trial"])
            for t in summary["tasks"]]


def test_dense_equals_the_cli(tmp_path, weft_cli_text):
    db = tmp_path / "py.jsonl"
    s = weft.tune("dense", m=16, n=32, k=64, config="vta", trials=6, seed=3, db=str(db))
    assert s["strategy"] == "evolutionary" and s["trials"] == 6 and s["db"] == str(db)
    (t,) = s["tasks"]
    assert t["task"] == "dense" and t["trials"] == 6 and t["best"] > 0
    cli_db = tmp_path / "cli.jsonl"
    out = tmp_path / "summary.json"
    weft_cli_text("tune", "dense", "--M", "16", "--N", "32", "--K", "64", "--config", "vta",
                  "--trials", "6", "--seed", "3", "--db", str(cli_db), "--summary", str(out),
                  "--quiet")
    cli = json.loads(out.read_text())
    assert trials_of(s) == trials_of(cli)
    strip = lambda lines: [{k: v for k, v in json.loads(l).items() if "second" not in k}
                           for l in lines]
    assert strip(db.read_text().splitlines()) == strip(cli_db.read_text().splitlines())
    # The database is resumed: a second run adds its trials to the same file.
    weft.tune("dense", m=16, n=32, k=64, config="vta", trials=2, seed=4, db=str(db))
    assert len(db.read_text().splitlines()) >= 8


def test_a_resnet18_layer_and_a_layer_subset(tmp_path):
    s = weft.tune("conv2d", layer="C12", config="vta", trials=3)
    assert [t["task"] for t in s["tasks"]] == ["C12"] and s["tasks"][0]["trials"] == 3
    s = weft.tune("resnet18", layers=["C11", "C12"], config="vta", trials=4)
    assert sorted(t["task"] for t in s["tasks"]) == ["C11", "C12"]
    assert sum(t["trials"] for t in s["tasks"]) == 4


def test_bad_options_are_errors(tmp_path):
    bad = [
        (dict(what="gemm"), "not dense, conv2d or resnet18"),
        (dict(what="dense", target="cuda"), "target 'cuda' is not accel or llvm"),
        (dict(what="dense", trials=0), "trials must be at least 1"),
        (dict(what="dense", h=8), "h goes with conv2d"),
        (dict(what="conv2d", m=8), "m goes with dense"),
        (dict(what="conv2d", layer="C99"), "'C99' is not a ResNet-18 layer"),
        (dict(what="conv2d", layer="C1", h=8), "h goes with a shape of your own"),
        (dict(what="resnet18", layers=["C1", "X"]), "'X' is not a ResNet-18 layer"),
        (dict(what="resnet18", layers=[]), "layers is empty"),
        (dict(what="resnet18", k=3), "k goes with dense or conv2d"),
        (dict(what="dense", strategy="greedy"), "'greedy' is not one of"),
        (dict(what="dense", target="llvm", config="vta"), "config and platform go with"),
        (dict(what="dense", dtype="int8"), "dtype goes with target='llvm'"),
        (dict(what="dense", per_round=0), "per_round"),
        (dict(what="dense", workers=0), "workers"),
        (dict(what="dense", early_stop=0.5), "early_stop"),
        (dict(what="dense", config="nonesuch"), "nonesuch"),
        (dict(what="dense", db="/proc/weft/db.jsonl"), "db"),
    ]
    for kw, msg in bad:
        what = kw.pop("what")
        with pytest.raises(weft.Error, match=msg):
            weft.tune(what, trials=kw.pop("trials", 1), **kw)
    corrupt = tmp_path / "bad.jsonl"
    corrupt.write_text("not json\n{}\n")
    with pytest.raises(weft.Error, match="bad.jsonl"):
        weft.tune("dense", trials=1, db=str(corrupt))
    assert corrupt.read_text() == "not json\n{}\n"


def test_ctrl_c_stops_tuning_and_keeps_the_database(tmp_path):
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        db = tmp_path / "db.jsonl"
        sent = []

        def fire():  # once a batch is in the database
            start = time.monotonic()
            while time.monotonic() - start < 120 and not (db.exists() and db.stat().st_size):
                time.sleep(0.05)
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
        threading.Thread(target=fire, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            weft.tune("resnet18", layers=["C11", "C12"], config="vta", trials=100000,
                      per_round=2, db=str(db))
        assert time.monotonic() - sent[0] < 10
        lines = db.read_text().splitlines()
        assert lines and all(json.loads(l)["workload"] for l in lines)
    finally:
        signal.signal(signal.SIGINT, old)


def test_an_onnx_model_equals_the_cli(tmp_path, onnx_models, weft_cli_text):
    # `weft tune MODEL.onnx`: the accelerator kernels of tiny_resnet (its two 3x3 stride-1
    # convolutions share one task weighted twice), with the CLI's trials and database lines.
    model = str(onnx_models / "tiny_resnet.onnx")
    db = tmp_path / "py.jsonl"
    s = weft.tune(model, config="vta", trials=4, per_round=2, seed=2, db=str(db))
    names = [t["task"] for t in s["tasks"]]
    assert "conv_11 (x2)" in names and "conv_28" in names
    cli_db = tmp_path / "cli.jsonl"
    out = tmp_path / "summary.json"
    weft_cli_text("tune", model, "--config", "vta", "--trials", "4", "--per-round", "2",
                  "--seed", "2", "--db", str(cli_db), "--summary", str(out), "--quiet")
    assert trials_of(s) == trials_of(json.loads(out.read_text()))
    strip = lambda lines: [{k: v for k, v in json.loads(l).items() if "second" not in k}
                           for l in lines]
    assert strip(db.read_text().splitlines()) == strip(cli_db.read_text().splitlines())
    with pytest.raises(weft.Error, match="no convolution or dense layer to tune"):
        weft.tune(model, config="gemm8x8", trials=1)
    with pytest.raises(weft.Error, match="h goes with dense, conv2d or resnet18"):
        weft.tune(model, h=8, trials=1)
    with pytest.raises(weft.Error, match="nonesuch.onnx"):
        weft.tune(str(tmp_path / "nonesuch.onnx"), trials=1)
