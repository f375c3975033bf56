#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a working Weft:
#   scripts/quickstart.sh demo   installs the Debian packages, builds, runs the demo
#   scripts/quickstart.sh test   installs the Debian packages, builds, runs the whole test suite
# Packages are installed with apt-get (through sudo when not root) only when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
case "$mode" in
  demo|test) ;;
  *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac

# Optional parts are found when present and skipped with one line when not; they are listed
# here so that a new user gets all of them: the benchmark baselines (oneDNN, whose CMake config
# needs the OpenCL headers that Debian only recommends, and OpenBLAS), the SystemC model, ONNX
# import, the XRT engine, the XGBoost cost model and MPI.
packages=(build-essential cmake ninja-build ccache pkg-config git
          libgtest-dev libgmock-dev nlohmann-json3-dev libcli11-dev
          llvm-16-dev libzstd-dev
          libdnnl-dev ocl-icd-opencl-dev libopenblas-dev
          libsystemc-dev
          verilator yosys zlib1g-dev
          # whole networks: ONNX import (compiler/graph), test models written with python3-onnx,
          # and the operator node test cases (docs/graph.md)
          libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx python3-numpy libonnx-testdata
          # FPGA deployment through XRT: the native C++ API and its noop device (XRT's headers call
          # libuuid, whose link library is in uuid-dev); tclsh checks
          # the packaging Tcl (docs/fpga.md)
          libxrt-dev uuid-dev tcl
          # schedule search: the XGBoost cost model and MPI distribution (docs/tuning.md)
          libxgboost-dev libopenmpi-dev openmpi-bin
          # the Python package (python/, docs/python.md) and its pytest suites
          python3-dev pybind11-dev python3-pytest
          # optional: fuzzing: the fuzz preset and scripts/fuzz/run.sh, see docs/reliability.md
          clang-16 libclang-rt-16-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "quickstart: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cd "$root"
jobs=$(nproc)
cmake --preset default
cmake --build --preset default -j "$jobs"
if [ "$mode" = demo ]; then
  exec "$root/scripts/demo.sh" "$root/build"
fi
ctest --preset default -j "$jobs"
