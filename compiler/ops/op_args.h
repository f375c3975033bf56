// Checking and parsing the arguments of the CPU and GPU operators: element types by name, the
// accumulator type of a GEMM-like operator, and sizes that must be positive. Errors are
// UserErrors naming the operator (or the option) and the bad value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::ops {

/// `name` ("float32", "float16", "int8", ...) as a dtype when it is one of `allowed`; otherwise
/// UserError "WHERE: unknown dtype 'NAME' (float32 or int8)" listing `allowed`.
ir::DType parse_dtype(const std::string& name, const std::string& where,
                      const std::vector<ir::DType>& allowed);

/// UserError "OP: dtype T is not supported (float32 or int8)" unless `t` is one of `allowed`.
void check_dtype(ir::DType t, const char* op, const std::vector<ir::DType>& allowed);

/// UserError "OP: WHAT is V, must be positive" unless v > 0.
void check_positive(const char* op, const char* what, int64_t v);

/// The accumulator type of a GEMM-like operator's inputs: int32 for int8, float32 otherwise.
ir::DType accumulator_of(ir::DType in);

}  // namespace weft::compiler::ops
