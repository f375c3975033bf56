"""The low level: hardware configurations as objects, and the instruction assembler and
disassembler (`weft config show`, `weft asm`, `weft disasm`)."""
import json
import os

from . import _weft

__all__ = ["Config", "config", "configs", "assemble", "disassemble"]


class Config(str):
    """A hardware configuration: a shipped one by name or a configuration file (*.json).

    It is the name (or path) itself, so it goes wherever a configuration is asked for
    (config=weft.config("vta")); its fields (the configuration file's) read as attributes or
    by key (cfg.block_in, cfg["acc_buf_bytes"]), to_dict() gives them all, .layout the
    derived depths and instruction fields, describe() the text `weft config show` prints.
    """

    def __new__(cls, name_or_path):
        if isinstance(name_or_path, os.PathLike):
            name_or_path = os.fspath(name_or_path)
        if not isinstance(name_or_path, str):
            raise _weft.Error("config: give a configuration name or a file path, not %s"
                              % type(name_or_path).__name__)
        self = super().__new__(cls, name_or_path)
        self._fields = _weft.config_fields(name_or_path)
        return self

    def __getattr__(self, key):
        if key.startswith("_"):
            raise AttributeError(key)
        try:
            return self._fields[key]
        except KeyError:
            raise AttributeError("configuration '%s' has no field '%s' (%s)" % (
                self._fields["name"], key, ", ".join(self._fields))) from None

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                return self._fields[key]
            except KeyError:
                raise KeyError(key) from None
        return str.__getitem__(self, key)

    def keys(self):
        return self._fields.keys()

    def to_dict(self):
        """The fields as a dict (the configuration file's format)."""
        return json.loads(json.dumps(self._fields))

    @property
    def layout(self):
        """The derived layout as a dict (`weft config show --json`)."""
        return _weft.config_layout(self)

    def describe(self):
        """The derived layout as text (`weft config show`)."""
        return _weft.config_text(self)

    def save(self, path):
        """Writes the configuration file (it reads back as the same configuration)."""
        with open(path, "w") as f:
            json.dump(self._fields, f, indent=2)
            f.write("\n")

    def __repr__(self):
        return "weft.config(%s)" % str.__repr__(self)


def config(name_or_path="gemm8x8"):
    """A hardware configuration by name (gemm8x8, vta, tiny, ...) or from a JSON file."""
    return Config(name_or_path)


def configs():
    """The shipped configurations' names."""
    return _weft.shipped_configs()


def assemble(text, config="gemm8x8", uops=False):
    """Assembly text ('LOAD INP sram_base=0 ...' lines, or the JSON lines of
    disassemble(json=True)) -> the program's bytes, 16 per instruction (4 per micro-op with
    uops=True), as `weft asm`."""
    if not isinstance(text, str):
        raise _weft.Error("assemble: text must be a str of assembly, not %s" % type(text).__name__)
    return _weft.assemble(text, config, uops)


def disassemble(data, config="gemm8x8", uops=False, json=False):
    """Program bytes (bytes, bytearray, memoryview or a NumPy array) -> the listing `weft
    disasm` prints ("I: LOAD ..." lines, valid assemble() input; JSON lines with json=True)."""
    try:
        raw = bytes(memoryview(data).cast("B"))
    except TypeError:
        raise _weft.Error("disassemble: data must be bytes-like, not %s"
                          % type(data).__name__) from None
    return _weft.disassemble(raw, config, uops, json)
