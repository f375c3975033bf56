# Shared fixtures of the weft Python package's tests: the package is imported from the build
# tree (CTest sets PYTHONPATH=build/python); WEFT_CLI names the weft command for the tests
# that compare with it; the small ONNX models come from scripts/onnx/make_models.py.
import os
import shutil
import subprocess
import sys
import json

import pytest

SOURCE = os.environ.get("WEFT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def weft_cli_text():
    """Runs the weft command; its standard output as text."""
    path = os.environ.get("WEFT_CLI") or shutil.which("weft")
    if not path or not os.path.exists(path):
        pytest.skip("the weft CLI is not built (set WEFT_CLI)")

    def run(*args):
        return subprocess.run([path, *args], check=True, capture_output=True, text=True).stdout
    return run


@pytest.fixture(scope="session")
def weft_cli(weft_cli_text):
    """Runs the weft command; its standard output parsed as JSON."""
    return lambda *args: json.loads(weft_cli_text(*args))


def make_onnx_models(out, names):
    """Writes make_models.py's models `names` into `out`; None, or why they cannot be made."""
    script = os.path.join(SOURCE, "scripts", "onnx", "make_models.py")
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    r = subprocess.run([python, script, str(out), "--only", *names], capture_output=True,
                       text=True)
    if r.returncode == 77:
        return "python3-onnx is not installed: " + r.stderr.strip()
    assert r.returncode == 0, r.stderr
    return None


@pytest.fixture(scope="session")
def onnx_models(tmp_path_factory):
    """A folder of make_models.py's small models (NAME.onnx and NAME_input.npy)."""
    out = tmp_path_factory.mktemp("onnx_models")
    why = make_onnx_models(out, ["tiny_resnet", "small_cnn", "qdq_cnn", "qdq_zero_point",
                                 "unsupported"])
    if why:
        pytest.skip(why)
    return out
