// Pass fold_batch_norm: every batch norm after a conv folds into its weights and bias, and the
// fp32 network computes the same within 1e-3.
#include "compiler/graph/passes/fold_batch_norm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "compiler/graph/interpret.h"
#include "compiler/graph/models/resnet.h"
#include "compiler/graph/verify.h"

namespace weft::compiler::graph {
namespace {

TEST(FoldBatchNorm, KeepsTheFunction) {
  models::ResNetOptions small_net;
  small_net.image = 32;
  small_net.width = 16;
  small_net.classes = 10;
  small_net.stages = 2;
  Graph g = models::resnet18(small_net);
  verify(g);
  auto x = models::synthetic_input(g.value(g.inputs()[0]).type, 3);
  auto before = interpret<float>(g, {x})[0];
  Graph f = g;
  EXPECT_EQ(passes::fold_batch_norm(f), 1 + 2 * 2 * 2 + 1);
  verify(f);
  EXPECT_EQ(f.count(OpKind::BatchNormalization), 0);
  auto after = interpret<float>(f, {x})[0];
  for (size_t i = 0; i < before.size(); ++i)
    EXPECT_NEAR(before[i], after[i], 1e-3 * (1 + std::fabs(before[i])));
}

}  // namespace
}  // namespace weft::compiler::graph
