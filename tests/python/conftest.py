# Shared fixtures of the weft Python package's tests: the package is imported from the build
# tree (CTest sets PYTHONPATH=build/python); WEFT_CLI names the weft command for the tests
# that compare with it.
import os
import shutil
import subprocess
import json

import pytest


@pytest.fixture(scope="session")
def weft_cli():
    path = os.environ.get("WEFT_CLI") or shutil.which("weft")
    if not path or not os.path.exists(path):
        pytest.skip("the weft CLI is not built (set WEFT_CLI)")

    def run(*args):
        out = subprocess.run([path, *args], check=True, capture_output=True, text=True)
        return json.loads(out.stdout)
    return run
