#!/usr/bin/env python3
"""Checks kernel.xml against the kernel top's real port list, taken from Verilator's XML dump
of hardware/fpga/weft_kernel.sv: every port belongs to ap_clk, ap_rst_n, interrupt or one of
the bus interfaces kernel.xml declares; each interface has every AXI4 / AXI4-Lite signal with
the right direction; data widths are kernel.xml's; the control address space covers every
argument. Usage: check_kernel_ports.py KERNEL_XML VERILATOR FILE... (prints what differs)."""
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

kernel_xml, verilator, files = sys.argv[1], sys.argv[2], sys.argv[3:]
with tempfile.TemporaryDirectory() as tmp:
    out = f"{tmp}/weft_kernel.xml"
    subprocess.run([verilator, "--xml-only", "--top-module", "weft_kernel", "--xml-output", out,
                    "-Mdir", tmp] + files, check=True)
    vroot = ET.parse(out).getroot()

widths = {}
for dt in vroot.iter():
    if dt.get("id") and dt.tag.endswith("dtype"):
        left, right = dt.get("left"), dt.get("right")
        widths[dt.get("id")] = (abs(int(left) - int(right)) + 1) if left is not None else 1
top = next(m for m in vroot.iter("module") if m.get("topModule") == "1")
ports = {v.get("name"): (v.get("dir"), widths.get(v.get("dtype_id"), 1))
         for v in top.findall("var") if v.get("dir")}

k = ET.parse(kernel_xml).getroot().find("kernel")
kports = {p.get("name"): p for p in k.find("ports")}
errors = []
if k.get("hwControlProtocol") != "ap_ctrl_hs":
    errors.append("kernel.xml: hwControlProtocol is not ap_ctrl_hs")
for name in ports:
    if name in ("ap_clk", "ap_rst_n", "interrupt"):
        continue
    if not any(name.startswith(p + "_") for p in kports):
        errors.append(f"port {name} belongs to no interface of kernel.xml (debug ports stay inside)")

lite = {"awvalid": "input", "awready": "output", "awaddr": "input", "wvalid": "input",
        "wready": "output", "wdata": "input", "wstrb": "input", "bvalid": "output",
        "bready": "input", "bresp": "output", "arvalid": "input", "arready": "output",
        "araddr": "input", "rvalid": "output", "rready": "input", "rdata": "output",
        "rresp": "output"}
full = {}
for ch in ("aw", "ar"):
    full.update({f"{ch}{s}": "output" for s in
                 ("valid", "addr", "id", "len", "size", "burst", "lock", "cache", "prot", "qos")})
    full[f"{ch}ready"] = "input"
full.update({"wvalid": "output", "wready": "input", "wdata": "output", "wstrb": "output",
             "wlast": "output", "bvalid": "input", "bready": "output", "bresp": "input",
             "bid": "input", "rvalid": "input", "rready": "output", "rdata": "input",
             "rlast": "input", "rid": "input", "rresp": "input"})
for pname, p in kports.items():
    sigs = lite if p.get("mode") == "slave" else full
    for s, d in sigs.items():
        n = f"{pname}_{s}"
        if n not in ports:
            errors.append(f"interface {pname}: no port {n}")
        elif ports[n][0] != d:
            errors.append(f"interface {pname}: {n} is an {ports[n][0]}, AXI wants an {d}")
    dw = int(p.get("dataWidth"))
    for s in ("wdata", "rdata"):
        n = f"{pname}_{s}"
        if n in ports and ports[n][1] != dw:
            errors.append(f"{n} is {ports[n][1]} bits, kernel.xml says dataWidth {dw}")
    if p.get("mode") == "slave":
        rng = int(p.get("range"), 0)
        aw = ports.get(f"{pname}_awaddr", (None, 0))[1]
        if (1 << aw) < rng:
            errors.append(f"{pname}: {aw} address bits cannot reach its range {rng:#x}")
        for a in k.find("args"):
            end = int(a.get("offset"), 0) + int(a.get("size"), 0)
            if end > rng:
                errors.append(f"argument {a.get('name')} ends at {end:#x}, beyond {pname}'s range")
            if a.get("addressQualifier") == "1" and a.get("port") not in kports:
                errors.append(f"argument {a.get('name')} is on port {a.get('port')}, not an interface")
for req in ("ap_clk", "ap_rst_n", "interrupt"):
    if req not in ports:
        errors.append(f"no port {req}")

for e in errors:
    print("MISMATCH:", e)
print(f"{len(ports)} ports, {len(k.find('args'))} arguments checked: "
      + ("kernel.xml matches the kernel top" if not errors else f"{len(errors)} mismatch(es)"))
sys.exit(1 if errors else 0)
