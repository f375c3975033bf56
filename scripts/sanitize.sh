#!/usr/bin/env bash
# The unit and end-to-end tests under AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer: CI's second step (.ci/run; docs/reliability.md, "Sanitizers").
# They are built in the `fuzz` preset's tree (build-fuzz/: clang-16, -fsanitize=address,undefined
# with libFuzzer's coverage instrumentation, RelWithDebInfo), which the fuzz targets share, so
# CI compiles the libraries once for both; with the RTL verilated for `tiny` only (the network
# fault tests run on it), and the test binaries listed below. Any sanitizer report fails the
# test that made it (halt_on_error; LeakSanitizer at each process's exit).
#   scripts/sanitize.sh [CTEST_ARGS...]      e.g. -R Fault
# Environment: JOBS (default: the cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
cd "$root"
# The test binaries run sanitized. Left out, each for its reason:
#  - the RTL's own testbenches and co-simulation (labels rtl, cosim): Verilated code checked by
#    Verilator's lint, tens of minutes under ASan, and not memory-handling code of Weft's;
#  - the GPU tests: CI has no GPU (they skip), and NVRTC/the driver are not instrumented;
#  - the SystemC model's tests: SystemC 2.3.4 keeps its simulation context until exit, which
#    LeakSanitizer reports as leaks of SystemC's own;
#  - the Python package's tests (python.*): an ASan-instrumented extension needs the sanitizer
#    runtime preloaded into CPython, and LeakSanitizer then reports the interpreter's own
#    allocations kept until exit; the bindings' C++ is the library code the tests here run;
#  - the CPU backend's operator and tuning tests (weft_cpu_tests, weft_cpu_tune_tests,
#    weft_graph_llvm_kernels_tests, weft_onnx_tests): minutes of LLVM JIT compilation whose
#    generated code is not instrumented; the LLVM path stays covered through cli_run_tests,
#    weft_cpu_cli_tests and the ONNX CLI tests, and by fuzz_graph's fp32 leg.
tests=(isa_tests weft_functional_sim_tests weft_cycle_sim_tests weft_driver_tests
       weft_xrt_emulated_tests weft_compiler_tests weft_graph_tests weft_stream_tests
       weft_io_tests weft_ops_tests weft_tune_tests weft_tune_distributed_tests
       weft_shape_generic_tests weft_graph_executor_tests weft_graph_packed_io_tests
       weft_network_fault_tests weft_cli_unit_tests weft_fpga_tests weft_xrt_noop_tests
       cli_tests cli_run_tests cli_audit_tests cli_tune_tests cli_shape_generic_tests
       weft_graph_cli_tests weft_cpu_cli_tests weft_onnx_cli_tests weft_onnx_cli_audit_tests
       cost_tests cli_energy_tests weft_dse_tests cli_dse_tests)
t0=$(date +%s)
cmake --preset fuzz >/dev/null
# Only the targets this build has (an optional library may be missing on this machine). The
# list is read once: `... | grep -q` would close the pipe early, and under pipefail the SIGPIPE
# of the writer would drop targets that exist.
targets_here=$(cmake --build build-fuzz --target help)
have=()
for t in "${tests[@]}" weft; do
  grep -q "^$t:" <<< "$targets_here" && have+=("$t")
done
cmake --build build-fuzz -j "$jobs" --target "${have[@]}"
t1=$(date +%s)
# halt_on_error: the first report fails the test; detect_leaks: LeakSanitizer at exit;
# abort_on_error=0 so that a report is an exit code ctest sees, not a core dump.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Left out by name: the rtl tests of other configurations than tiny (not verilated in this
# tree), the tests of binaries not built here, the Python tests (above), and
# CliRun.ALongRunShowsItsWorkAndProgressAndStopsOnCtrlC, which waits at most a minute for the
# engine phase of a 4096^3 dense whose compilation alone takes longer under ASan (its Ctrl-C
# path runs sanitized in CliNetworkFault.AnInterruptedRunWritesNothing).
# The MPI tests (tune.mpi_*, dse.mpi_*) run without LeakSanitizer: OpenMPI's plugins are
# dlopen'ed and closed at MPI_Finalize, and what they allocated for the process's life is then
# reported as leaked from an unknown module, which no suppression can name; ASan and UBSan stay on.
skip='_NOT_BUILT|^rtl\.|^xrt\.resnet18|systemc|^fpga\.(kernel|package)|^python\.'
skip+='|^CliRun\.ALongRunShowsItsWorkAndProgressAndStopsOnCtrlC$'
status=0
ctest --test-dir build-fuzz -L 'unit|e2e' -E "$skip|^(tune|dse)\.mpi_" \
      -j "$jobs" --output-on-failure --timeout 900 "$@" || status=$?
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
  ctest --test-dir build-fuzz -L 'unit|e2e' -R '^(tune|dse)\.mpi_' -E "$skip" \
      -j "$jobs" --output-on-failure --timeout 900 "$@" || status=$?
t2=$(date +%s)
echo "sanitize: build $((t1 - t0)) s, tests $((t2 - t1)) s, $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
