# docs/python.md's examples cannot rot: every ```python block of the page runs, in order, in
# one namespace (as a reader pasting them into one session would), and a block followed by a
# plain ``` block must print what that block shows.
import contextlib
import io
import os
import re

import pytest

from conftest import make_onnx_models

DOC = os.path.join(os.environ.get("WEFT_SOURCE_DIR",
                                  os.path.join(os.path.dirname(__file__), "..", "..")),
                   "docs", "python.md")


def blocks():
    text = open(DOC).read()
    out = []
    for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S):
        out.append((m.group(1), m.group(2)))
    return out


def test_every_python_block_runs_and_prints_what_the_page_shows(tmp_path, monkeypatch):
    # The page's ONNX example reads models/ as its ```sh block writes it (make_models.py).
    no_onnx = make_onnx_models(tmp_path / "models", ["tiny_resnet"])
    monkeypatch.chdir(tmp_path)
    env = {}
    parts = blocks()
    ran = 0
    for n, (lang, code) in enumerate(parts):
        if lang != "python" or (no_onnx and "from_onnx" in code):
            continue
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "%s block %d" % (DOC, n), "exec"), env)
        ran += 1
        # The plain block right after shows what the code prints.
        if n + 1 < len(parts) and parts[n + 1][0] == "":
            shown = parts[n + 1][1].strip()
            assert shown in buf.getvalue(), "block %d should print %r, printed %r" % (
                n, shown, buf.getvalue()[:300])
    assert ran >= 5
