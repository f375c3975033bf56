// The pieces that let measuring run on many workers without changing the search: the prefix
// dispatch (the same candidates compiled whatever order workers finish in), Runner::prepare's
// compile-and-measure pass (the same results on 1 and 3 threads as compiling and measuring
// one by one), the request/reply worker that MPI ranks and rank 0's measuring thread share
// (its results equal a direct measurement, it keeps a build for a later measure), and that
// thread itself. The MPI launches are CTest tests in tests/runtime/CMakeLists.txt.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "compiler/tune/accel_space.h"
#include "compiler/tune/rng.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/candidate_worker.h"
#include "runtime/tune/prefix_dispatch.h"
#include "runtime/tune/search.h"
#include "runtime/tune/thread_runner.h"
#include "runtime/tune/worker_thread.h"

namespace weft {
namespace {

using namespace compiler::tune;
using namespace rt::tune;

compiler::ops::Conv2dShape small_conv() { return {8, 14, 14, 64, 64, 3, 1, 1}; }
// ResNet-18's C9 on `vta`.
Task c9_vta() { return make_accel_conv2d_task("C9", "vta", "sim", {1, 14, 14, 256, 256, 3, 1, 1}); }

// Runs a PrefixDispatch over `valid` with `workers` workers finishing in a random order;
// returns how many were handed out (all of them come back).
size_t dispatch(const std::vector<bool>& valid, size_t want, int workers, unsigned seed) {
  PrefixDispatch d(valid.size(), want);
  std::mt19937 gen(seed);
  std::vector<size_t> busy;
  for (;;) {
    for (size_t j; static_cast<int>(busy.size()) < workers && d.next(&j);) busy.push_back(j);
    if (d.finished()) break;
    EXPECT_FALSE(busy.empty()) << "waiting with nothing in flight";
    if (busy.empty()) break;
    const size_t k = std::uniform_int_distribution<size_t>(0, busy.size() - 1)(gen);
    d.done(valid[busy[k]]);
    busy.erase(busy.begin() + k);
  }
  EXPECT_EQ(d.in_flight(), 0u);
  return d.handed();
}

TEST(PrefixDispatch, HandsOutTheShortestPrefixHoldingWhatIsWanted) {
  //                            0     1      2     3      4      5     6     7
  const std::vector<bool> v = {true, false, true, false, false, true, true, false};
  for (int workers : {1, 2, 3, 8})
    for (unsigned seed = 0; seed < 20; ++seed) {
      EXPECT_EQ(dispatch(v, 1, workers, seed), 1u);
      EXPECT_EQ(dispatch(v, 2, workers, seed), 3u);
      EXPECT_EQ(dispatch(v, 3, workers, seed), 6u);
      EXPECT_EQ(dispatch(v, 4, workers, seed), 7u);
      EXPECT_EQ(dispatch(v, 9, workers, seed), 8u);  // fewer valid than wanted: all of them
    }
  EXPECT_EQ(dispatch({}, 3, 2, 0), 0u);
}

// Candidates of a conv2d task's space in a fixed order, with invalid ones among them: its
// samples (which are all legal), every third one replaced by the whole layer in one tile, too
// large for the buffers (the sampler never proposes it, but a database or a user may hold it).
std::vector<Trace> sample_traces(const Task& t, int n) {
  const auto& space = dynamic_cast<const AccelConv2dSpace&>(*t.space);
  const auto& s = space.shape();
  const auto& c = isa::layout_for(t.target.config).config;
  const int64_t icb = (s.ic + c.block_in() - 1) / c.block_in();
  const int64_t ocb = (s.oc + c.block_out() - 1) / c.block_out();
  Rng rng(11);
  std::vector<Trace> out;
  for (int i = 0; i < n; ++i) {
    const int64_t vt = int64_t{1} << (i / 3 % 3);  // 1, 2, 4 threads
    out.push_back(i % 3 == 1 ? space.trace_of({s.out_h(), s.out_w(), icb, ocb, vt, 'o'})
                             : space.sample(rng));
  }
  return out;
}

TEST(Runner, CompileAndMeasureInOnePassMatchesOneByOne) {
  const Task t = c9_vta();
  const std::vector<Trace> traces = sample_traces(t, 24);
  // One by one: compile in order until 3 are valid, measuring each valid one.
  std::vector<std::string> errors;
  std::vector<double> values;
  size_t valid = 0;
  for (const Trace& tr : traces) {
    if (valid == 3) break;
    const Candidate c = t.space->apply(tr);
    errors.push_back(c.error);
    if (!c.ok()) continue;
    ++valid;
    values.push_back(t.measurer->measure(c, 1e9).value);
  }
  ASSERT_EQ(valid, 3u);
  ASSERT_GT(errors.size(), 3u) << "the sample should hold invalid schedules too";
  for (int workers : {1, 3}) {
    ThreadRunner runner(workers);
    PrepareSpec spec;
    spec.measure = true;
    spec.stop_above = 1e9;
    spec.want = 3;
    const Prepared p = runner.prepare(t, traces, spec);
    ASSERT_EQ(p.cands.size(), errors.size()) << workers << " workers";
    ASSERT_EQ(p.measured.size(), errors.size());
    std::vector<double> got;
    for (size_t i = 0; i < p.cands.size(); ++i) {
      EXPECT_EQ(p.cands[i].error, errors[i]);
      EXPECT_EQ(p.measured[i].has_value(), p.cands[i].ok());
      if (p.measured[i]) got.push_back(p.measured[i]->value);
    }
    EXPECT_EQ(got, values) << workers << " workers";
  }
}

TEST(CandidateWorker, MeasuresAsDirectlyAndKeepsTheBuildForLater) {
  const std::vector<Task> tasks = {c9_vta()};
  const Task& t = tasks[0];
  Trace valid_trace, invalid_trace;
  bool have_valid = false, have_invalid = false;
  for (const Trace& tr : sample_traces(t, 24)) {
    if (have_valid && have_invalid) break;
    const bool ok = t.space->apply(tr).ok();
    if (ok && !have_valid) valid_trace = tr, have_valid = true;
    if (!ok && !have_invalid) invalid_trace = tr, have_invalid = true;
  }
  ASSERT_TRUE(have_valid && have_invalid);
  const Candidate direct = t.space->apply(valid_trace);
  const MeasureResult m = t.measurer->measure(direct);
  const std::vector<float> x = t.features->extract(direct);

  CandidateWorker w(tasks);
  auto request = [](const Trace& tr, bool measure) {
    return nlohmann::json{{"task", 0}, {"i", 3}, {"trace", tr.to_json()}, {"features", true},
                          {"measure", measure}, {"stop", -1.0}};
  };
  nlohmann::json r = w.prepare(request(valid_trace, true));
  EXPECT_EQ(r.at("i"), 3);
  EXPECT_EQ(r.at("error"), "");
  EXPECT_EQ(r.at("features").get<std::vector<float>>(), x);
  EXPECT_EQ(r.at("describe"), direct.body->describe());
  EXPECT_EQ(result_from_json(r.at("result")).value, m.value);

  r = w.prepare(request(valid_trace, false));  // kept for a measure request
  EXPECT_TRUE(r.at("result").is_null());
  r = w.measure({{"task", 0}, {"i", 4}, {"trace", valid_trace.to_json()}, {"stop", -1.0}});
  EXPECT_EQ(r.at("i"), 4);
  EXPECT_EQ(result_from_json(r).value, m.value);

  r = w.prepare(request(invalid_trace, true));
  EXPECT_NE(r.at("error"), "");
  EXPECT_TRUE(r.at("result").is_null());
  r = w.prepare({{"task", 7}, {"i", 5}, {"trace", valid_trace.to_json()}, {"features", false},
                 {"measure", true}, {"stop", -1.0}});
  EXPECT_THAT(r.at("error").get<std::string>(), ::testing::HasSubstr("worker:"));
}

TEST(WorkerThread, AnswersInOrderAndWaitsWithATimeout) {
  const std::vector<Task> tasks = {make_accel_conv2d_task("c", "gemm8x8", "sim", small_conv())};
  const std::vector<Trace> traces = sample_traces(tasks[0], 3);
  WorkerThread w(tasks);
  nlohmann::json reply;
  EXPECT_FALSE(w.take(&reply, std::chrono::microseconds(100)));  // nothing asked yet
  for (size_t i = 0; i < traces.size(); ++i)
    w.post(WorkerThread::Kind::kPrepare,
           {{"task", 0}, {"i", i}, {"trace", traces[i].to_json()}, {"features", false},
            {"measure", true}, {"stop", -1.0}});
  w.post(WorkerThread::Kind::kClear, nullptr);
  for (size_t i = 0; i < traces.size(); ++i) {
    ASSERT_TRUE(w.take(&reply, std::chrono::microseconds(-1)));
    EXPECT_EQ(reply.at("i").get<size_t>(), i);
    const Candidate c = tasks[0].space->apply(traces[i]);
    EXPECT_EQ(reply.at("error"), c.error);
    if (c.ok()) {
      EXPECT_EQ(result_from_json(reply.at("result")).value, tasks[0].measurer->measure(c).value);
    }
  }
  EXPECT_FALSE(w.take(&reply, std::chrono::microseconds(1000)));  // a clear has no reply
}

}  // namespace
}  // namespace weft
