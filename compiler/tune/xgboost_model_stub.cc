// The cost model in a build without XGBoost: a clear error for `--strategy model`.
#include "compiler/tune/cost_model.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::tune {

bool xgboost_available() { return false; }

std::unique_ptr<CostModel> make_xgboost_model(int, uint64_t, int) {
  throw UserError("--strategy model needs the XGBoost cost model, and this build has no "
                  "XGBoost (install libxgboost-dev and reconfigure)");
}

}  // namespace weft::compiler::tune
