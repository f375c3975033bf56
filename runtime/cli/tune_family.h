// `weft tune dense|conv2d --family SPEC`: shape-generic tuning of a family (see
// runtime/tune/shape_generic.h and docs/tuning.md "Shape-generic tuning").
#pragma once

#include <string>

#include "compiler/ops/conv2d.h"
#include "compiler/ops/dense.h"
#include "runtime/tune/shape_generic.h"

namespace weft::cli {

struct TuneFamilyRequest {
  std::string op, spec, target, config, platform, db, dispatch, summary;
  compiler::ops::DenseShape dense;
  compiler::ops::Conv2dShape conv;
  rt::tune::GenericOptions opts;
  bool quiet = false;
};

/// Tunes the family, writes the dispatch table (and the database when given) and prints or
/// writes the JSON summary. UserError for a bad family, target or budget.
void run_tune_family(const TuneFamilyRequest& r);

}  // namespace weft::cli
