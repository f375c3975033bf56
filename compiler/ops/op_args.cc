// Operator argument checks; see op_args.h.
#include "compiler/ops/op_args.h"

#include <algorithm>

#include "hardware/isa/errors.h"

namespace weft::compiler::ops {

ir::DType parse_dtype(const std::string& name, const std::string& where,
                      const std::vector<ir::DType>& allowed) {
  std::string listed;
  for (size_t i = 0; i < allowed.size(); ++i) {
    const std::string n = ir::dtype_name(allowed[i]);
    if (n == name) return allowed[i];
    listed += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + n;
  }
  throw UserError(where + ": unknown dtype '" + name + "' (" + listed + ")");
}

void check_dtype(ir::DType t, const char* op, const std::vector<ir::DType>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
    throw UserError(std::string(op) + ": dtype " + ir::dtype_name(t) +
                    " is not supported (float32 or int8)");
  }
}

void check_positive(const char* op, const char* what, int64_t v) {
  if (v <= 0) {
    throw UserError(std::string(op) + ": " + what + " is " + std::to_string(v) +
                    ", must be positive");
  }
}

ir::DType accumulator_of(ir::DType in) {
  return in == ir::DType::kInt8 ? ir::DType::kInt32 : ir::DType::kFloat32;
}

}  // namespace weft::compiler::ops
