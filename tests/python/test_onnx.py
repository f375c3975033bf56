# Networks from ONNX files: weft.from_onnx gives the same kind of graph as weft.models,
# weft.compile runs it on the host CPU (target="llvm") and on the accelerator, graph.dump
# prints it after a pass; each against `weft run|compile MODEL.onnx` on the same input.
import os
import tempfile

import numpy as np
import pytest

import weft


def model(d, name):
    return os.path.join(d, name + ".onnx"), np.load(os.path.join(d, name + "_input.npy"))


def cli_output(weft_cli, *args):
    with tempfile.TemporaryDirectory() as d:
        report = weft_cli(*args, "--save", d)
        return np.load(os.path.join(d, "output.npy")), report


def test_from_onnx_is_a_graph(onnx_models):
    path, x = model(onnx_models, "small_cnn")
    g = weft.from_onnx(path)
    assert isinstance(g, weft.Graph) and type(g) is type(weft.models.resnet18(stages=1, image=32))
    assert g.input_shapes == [x.shape]
    assert "Conv" in g.dump()


def test_llvm_target_equals_the_cli(onnx_models, weft_cli):
    path, x = model(onnx_models, "small_cnn")
    want, cli = cli_output(weft_cli, "run", path, "--input", path[:-5] + "_input.npy",
                           "--target", "llvm")
    net = weft.compile(weft.from_onnx(path), target="llvm")
    y, report = net.run(x)
    assert y.dtype == np.float32 and y.shape == want.shape
    np.testing.assert_array_equal(y, want)
    assert report["target"] == "llvm" and report["macs"] == cli["macs"]
    assert [n["name"] for n in report["nodes"]] == [n["name"] for n in cli["per_node"]]
    y2, _ = net.run(x)  # kernels compiled once, run again
    np.testing.assert_array_equal(y2, want)


def test_builtin_resnet_on_llvm_matches_the_accelerator_roughly():
    g = weft.models.resnet18(image=32, width=16, stages=2, classes=10)
    x = weft.models.synthetic_input(g, 2)
    y, _ = weft.compile(g, target="llvm", threads=2).run(x)
    q, _ = weft.compile(g, config="vta", tune=1, knob_cache="").run(x, engine="functional")
    assert y.shape == q.shape == (1, 10)
    cos = float(y.ravel() @ q.ravel() / np.linalg.norm(y) / np.linalg.norm(q))
    assert cos > 0.9  # int8 against float32


@pytest.mark.parametrize("name", ["tiny_resnet", "qdq_cnn"])
def test_accel_target_equals_the_cli(onnx_models, weft_cli, name):
    path, x = model(onnx_models, name)
    want, cli = cli_output(weft_cli, "run", path, "--input", path[:-5] + "_input.npy",
                           "--engine", "cycle")
    net = weft.compile(weft.from_onnx(path), tune=1, knob_cache="")
    y, report = net.run(x, engine="cycle")
    np.testing.assert_array_equal(y, want)
    assert report["accel_cycles"] == cli["report"]["accel_cycles"]


@pytest.mark.parametrize("pass_", ["import", "quantize", "plan_memory"])
def test_dump_after_a_pass_is_what_the_cli_prints(onnx_models, weft_cli_text, pass_):
    path, _ = model(onnx_models, "tiny_resnet")
    cli = weft_cli_text("compile", path, "--emit", "graph", "--pass", pass_, "--config", "vta")
    g = weft.from_onnx(path)
    text = g.dump(**{"pass": pass_}, config="vta")
    assert text == cli.split("\n", 1)[1]  # after the CLI's "// MODEL on CONFIG" line
    assert g.dump(pass_=pass_, config="vta") == text


def test_dump_all_passes(onnx_models, weft_cli_text):
    path, _ = model(onnx_models, "tiny_resnet")
    cli = weft_cli_text("compile", path, "--emit", "graph")
    assert weft.from_onnx(path).dump(pass_="all") == cli.split("\n", 1)[1]


def test_bad_inputs_are_errors(onnx_models, tmp_path):
    path, x = model(onnx_models, "small_cnn")
    with pytest.raises(weft.Error, match="nosuch.onnx"):
        weft.from_onnx(str(tmp_path / "nosuch.onnx"))
    (tmp_path / "junk.onnx").write_bytes(b"\x00not a model")
    with pytest.raises(weft.Error, match="junk.onnx"):
        weft.from_onnx(str(tmp_path / "junk.onnx"))
    with pytest.raises(weft.Error, match="LRN"):
        weft.from_onnx(os.path.join(onnx_models, "unsupported.onnx"))
    g = weft.from_onnx(path)
    with pytest.raises(weft.Error, match="pass 'nosuch' is not a pass of the graph pipeline"):
        g.dump(pass_="nosuch")
    with pytest.raises(weft.Error, match="unexpected keyword argument 'colour'"):
        g.dump(colour=1)
    with pytest.raises(weft.Error, match="not both"):
        g.dump(pass_="import", **{"pass": "quantize"})
    with pytest.raises(weft.Error, match="config goes with target=\"accel\""):
        weft.compile(g, target="llvm", config="vta")
    with pytest.raises(weft.Error, match="threads goes with target=\"llvm\""):
        weft.compile(g, threads=2)
    with pytest.raises(weft.Error, match="threads 0 is outside"):
        weft.compile(g, target="llvm", threads=0)
    net = weft.compile(g, target="llvm")
    with pytest.raises(weft.Error, match="engine and trace go with target=\"accel\""):
        net.run(x, engine="cycle")
    with pytest.raises(weft.Error, match=r"run: the input: shape \[1,3,8,8\]"):
        net.run(np.zeros((1, 3, 8, 8), np.float32))
    with pytest.raises(weft.Error, match="dtype int8, expected float32"):
        net.run(x.astype(np.int8))
    zp = weft.from_onnx(os.path.join(onnx_models, "qdq_zero_point.onnx"))
    with pytest.raises(weft.Error, match="zero point"):
        weft.compile(zp)
