// One operator on a target (CPU or GPU, target.h) from start to finish, for `weft run dense|conv2d
// --target llvm|cuda`: random inputs from a seed (float32 uniform in [-1, 1]; float16 in
// eighths of [-1, 1], exact in half precision; int8 any byte), compilation, a warm-up and
// timed runs, a check against the scalar reference (compiler/ops/reference.h: exact for int8
// and float16, within 1e-5 per accumulated product for float32), and the result as JSON. With
// a save directory it stages input.npy, weight.npy and output.npy in plain layouts (float16
// inputs as float32) on an OutputSet. A caller may give the inputs instead (the Python package's
// weft.ops), take the output back, and stop the runs between repeats (its Ctrl-C).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "runtime/io/files.h"
#include "runtime/target/target.h"

namespace weft::rt {

/// The plain shapes of a request's input, weight and output, and the products summed into each
/// output element.
struct OpShapes {
  std::vector<int64_t> x, w, y;
  double terms = 0;
};
OpShapes shapes_of(const OpRequest& r);

/// The reference output of `r` on plain inputs `x`, `w` of element type `in`: int8
/// accumulated in int32 (wrapping as the kernels do), floats in double.
std::vector<double> reference_output(const OpRequest& r, const std::vector<double>& x,
                                     const std::vector<double>& w, compiler::ir::DType in);

/// The elements of `got` that differ from `want`: float32 by more than 1e-5 per accumulated
/// product (`terms`; inputs in [-1, 1]), the exact types (int8, float16 in eighths) at all.
struct Mismatches {
  int64_t count = 0;
  double max_abs_error = 0;
};
Mismatches compare_output(const std::vector<double>& got, const std::vector<double>& want,
                          double terms, compiler::ir::DType in);

/// What a caller gives a run besides the request, and takes back.
struct OpIo {
  /// The plain input and weight (shapes_of's, as values of the request's dtype); null: random
  /// ones from the seed. Given inputs need not lie in [-1, 1]: the float tolerance scales with
  /// their largest magnitudes (and float16 ones are checked as float32 accumulations).
  const std::vector<double>* x = nullptr;
  const std::vector<double>* w = nullptr;
  /// Where the plain output goes (the output dtype's values), when set.
  std::vector<double>* y = nullptr;
  /// Called before the warm-up and before each timed run; it throws to stop the run.
  std::function<void()> before_run;
};

/// Runs `r` on `target`; the .npy files go to `outputs` (the caller commits). The JSON's
/// "correct" is false when the result differs from the reference (the caller decides the exit
/// code). UserError for a bad request, given inputs of the wrong size, or when the target
/// cannot run here.
nlohmann::ordered_json run_op(const Target& target, const OpRequest& r, OutputSet& outputs,
                              const OpIo& io = {});

}  // namespace weft::rt
