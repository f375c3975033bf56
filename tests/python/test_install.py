# The install step the README gives: `cmake --install build --component python` puts the package
# (the .py files and the extension) in the interpreter's folder for local packages; installed
# under a staging root (DESTDIR) it imports and runs from there, without the build tree.
import os
import shutil
import subprocess
import sys

import pytest


def test_the_installed_package_imports_and_runs_without_the_build_tree(tmp_path):
    build = os.environ.get("WEFT_BUILD_DIR")
    dest = os.environ.get("WEFT_PYTHON_INSTALL_DIR")
    cmake = shutil.which("cmake")
    if not build or not dest or not cmake:
        pytest.skip("run by CTest (WEFT_BUILD_DIR, WEFT_PYTHON_INSTALL_DIR) with cmake on PATH")
    env = dict(os.environ, DESTDIR=str(tmp_path / "root"))
    subprocess.run([cmake, "--install", build, "--component", "python"], check=True, env=env,
                   capture_output=True)
    site = str(tmp_path / "root") + dest
    files = sorted(os.listdir(os.path.join(site, "weft")))
    assert "__init__.py" in files and any(f.startswith("_weft.") for f in files)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DESTDIR")}
    env["PYTHONPATH"] = site
    code = ("import weft, numpy as np; print(weft.__file__); "
            "r = weft.ops.dense(np.ones((16, 64), np.int8), np.ones((32, 64), np.int8), "
            "config='vta', engine='functional'); print(r.output[0, 0])")
    out = subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tmp_path,
                         capture_output=True, text=True).stdout.split()
    assert out[0].startswith(site) and out[1] == "0"
