# The low level from Python: configurations as objects (shipped or from a file), and the
# assembler and disassembler, with the same bytes and listings as `weft asm` / `weft disasm`.
import json

import numpy as np
import pytest

import weft

PROGRAM = """# a load, a GEMM and a store, with dependency tokens
LOAD INP sram_base=0 dram_base=64 y_size=1 x_size=8 x_stride=8 push_next_dep
GEMM pop_prev_dep uop_bgn=0 uop_end=1 iter_out=1 iter_in=1
FINISH
"""


def test_config_fields_as_attributes_and_keys():
    c = weft.config("vta")
    assert isinstance(c, weft.Config) and c == "vta" and repr(c) == "weft.config('vta')"
    assert (c.batch, c.block_in, c.block_out) == (1, 16, 16)
    assert c["acc_buf_bytes"] == 131072 and "inp_bits" in c.keys()
    assert c.to_dict()["name"] == "vta"
    assert c.layout["buffers"]["acc"]["depth"] == 2048
    assert c.describe().startswith("vta: ")
    assert set(weft.configs()) >= {"gemm8x8", "vta", "tiny"}
    assert weft.config().name == "gemm8x8"


def test_config_from_a_file_goes_where_a_name_goes(tmp_path):
    fields = weft.config("vta").to_dict()
    fields.update(name="vta_small_acc", acc_buf_bytes=65536)
    path = tmp_path / "small.json"
    path.write_text(json.dumps(fields))
    c = weft.config(path)
    assert c.name == "vta_small_acc" and c.acc_buf_bytes == 65536
    assert c.layout["buffers"]["acc"]["depth"] == 1024
    c.save(tmp_path / "again.json")
    assert weft.config(str(tmp_path / "again.json")).to_dict() == c.to_dict()
    x = np.ones((4, 32), np.int8)
    r = weft.ops.dense(x, np.ones((16, 32), np.int8), config=c, engine="functional", shift=0)
    assert r.stats["config"] == "vta_small_acc" and (r.output == 32).all()


def test_assemble_and_disassemble_equal_the_cli(tmp_path, weft_cli_text):
    src = tmp_path / "p.s"
    src.write_text(PROGRAM)
    weft_cli_text("asm", "--config", "vta", str(src), "-o", str(tmp_path / "p.bin"))
    want = (tmp_path / "p.bin").read_bytes()
    b = weft.assemble(PROGRAM, config="vta")
    assert isinstance(b, bytes) and len(b) == 3 * 16 and b == want
    listing = weft.disassemble(b, config="vta")
    assert listing == weft_cli_text("disasm", "--config", "vta", str(tmp_path / "p.bin"))
    assert weft.assemble(listing, config="vta") == b  # the listing assembles back
    lines = weft.disassemble(bytearray(b), config="vta", json=True).splitlines()
    assert json.loads(lines[0])["opcode"] == "LOAD"
    assert weft.assemble("\n".join(lines), config="vta") == b
    assert weft.disassemble(np.frombuffer(b, np.uint8), config="vta") == listing


def test_micro_ops_round_trip():
    b = weft.assemble("UOP dst=1 src=2 wgt=3\nUOP dst=4\n", config="vta", uops=True)
    assert len(b) == 8
    assert weft.disassemble(b, config="vta", uops=True) == (
        "0: UOP dst=1 src=2 wgt=3\n1: UOP dst=4 src=0 wgt=0\n")


def test_bad_inputs_are_errors(tmp_path):
    with pytest.raises(weft.Error, match="nosuch"):
        weft.config("nosuch")
    (tmp_path / "bad.json").write_text('{"name": "x"}')
    with pytest.raises(weft.Error, match="bad.json"):
        weft.config(str(tmp_path / "bad.json"))
    with pytest.raises(weft.Error, match="not int"):
        weft.config(3)
    with pytest.raises(AttributeError, match="no field 'colour'"):
        weft.config("vta").colour
    with pytest.raises(weft.Error, match="assemble:2"):
        weft.assemble("FINISH\nJUMP far\n")
    with pytest.raises(weft.Error, match="NUL byte at offset 6"):
        weft.assemble("FINISH\0")
    with pytest.raises(weft.Error, match="text must be a str"):
        weft.assemble(b"FINISH")
    with pytest.raises(weft.Error, match="15 bytes are not a whole number of 16-byte"):
        weft.disassemble(bytes(15))
    with pytest.raises(weft.Error, match="instruction 0"):
        weft.disassemble(b"\xff" * 16)
    with pytest.raises(weft.Error, match="bytes-like, not list"):
        weft.disassemble([1, 2])
