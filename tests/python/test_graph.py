# Networks from Python: the built-in ResNet-18 family compiled for the accelerator and run on
# its engines; the same logits and cycles as `weft run resnet18`; the errors.
import json
import os
import tempfile

import numpy as np
import pytest

import weft

SMALL = dict(image=32, width=16, stages=2, classes=10)


@pytest.fixture(scope="module")
def small_net():
    return weft.compile(weft.models.resnet18(**SMALL), config="vta", tune=1, knob_cache="")


def test_small_resnet_functional_and_cycle_agree(small_net):
    g = weft.models.resnet18(**SMALL)
    assert g.input_shapes == [(1, 3, 32, 32)] and g.output_shapes == [(1, 10)]
    x = weft.models.synthetic_input(g, 3)
    y_f, rep_f = small_net.run(x, engine="functional")
    y_c, rep_c = small_net.run(x, engine="cycle")
    assert y_c.shape == (1, 10) and y_c.dtype == np.float32
    np.testing.assert_array_equal(y_f, y_c)
    assert rep_c["accel_cycles"] > 0 and rep_f["accel_cycles"] == 0
    assert rep_c["engine"] == "cycle" and rep_c["nodes"]
    assert "<table>" in rep_c._repr_html_()


def test_network_timeline_shows_itself_as_svg_one_box_per_node(small_net):
    x = weft.models.synthetic_input(weft.models.resnet18(**SMALL), 3)
    _, rep = small_net.run(x, engine="cycle", trace=True)
    t = rep["timeline"]
    assert isinstance(t, weft.Timeline) and t.doc["otherData"] == {"time_unit": "us"}
    json.dumps(rep)  # still plain JSON
    svg = t._repr_svg_()
    assert svg.startswith("<svg") and "(µs 0-" in svg
    nodes = [e["name"] for e in t["traceEvents"] if e["ph"] == "X"]
    assert len(nodes) == len(rep["nodes"]) and svg.count("</title></rect>") == len(nodes)
    for name in nodes:
        assert "<title>%s (" % name in svg
    bad = weft.Timeline(dict(t, traceEvents=t["traceEvents"] + [
        {"ph": "X", "name": "late", "tid": 1, "ts": "soon", "dur": 1}]))
    with pytest.raises(weft.Error, match=r"traceEvents\[%d\] field 'ts' = \"soon\" is not a "
                       r"time in microseconds" % len(t["traceEvents"])):
        bad._repr_svg_()


def test_same_logits_and_cycles_as_the_cli(small_net, weft_cli):
    g = weft.models.resnet18(**SMALL)
    with tempfile.TemporaryDirectory() as d:
        weft_cli("run", "resnet18", "--config", "vta", "--image", "32", "--width", "16",
                 "--stages", "2", "--classes", "10", "--tune", "1", "--knob-cache", "",
                 "--seed", "4", "--json", "--save", d)
        want = np.load(os.path.join(d, "output.npy"))
        with open(os.path.join(d, "report.json")) as f:
            report = json.load(f)
    y, rep = small_net.run(weft.models.synthetic_input(g, 4), engine="cycle")
    np.testing.assert_array_equal(y, want)
    assert rep["accel_cycles"] == report["accel_cycles"]


def test_bad_inputs_are_errors(small_net):
    x = np.zeros((1, 3, 32, 32), np.float32)
    with pytest.raises(weft.Error, match=r"run: the input: shape \[1,3,16,16\], expected \[1,3,32,32\]"):
        small_net.run(np.zeros((1, 3, 16, 16), np.float32))
    with pytest.raises(weft.Error, match="dtype float64, expected float32"):
        small_net.run(x.astype(np.float64))
    with pytest.raises(weft.Error, match="warp"):
        small_net.run(x, engine="warp")
    bad = x.copy()
    bad[0, 0, 0, 0] = np.nan
    with pytest.raises(weft.Error, match="not finite"):
        small_net.run(bad)
    g = weft.models.resnet18(**SMALL)
    with pytest.raises(weft.Error, match="target 'cuda'"):
        weft.compile(g, target="cuda")
    with pytest.raises(weft.Error, match="calibrate: shape"):
        weft.compile(g, calibrate=np.zeros((3, 32, 32), np.float32))
    with pytest.raises(weft.Error):
        weft.models.resnet18(stages=9)


def test_issue_snippet_resnet18_on_vta_cycle():
    net = weft.compile(weft.models.resnet18(), target="accel", config="vta")
    y, report = net.run(np.random.rand(1, 3, 224, 224).astype("float32"), engine="cycle")
    assert y.shape == (1, 1000)
    assert report["accel_cycles"] > 1_000_000
