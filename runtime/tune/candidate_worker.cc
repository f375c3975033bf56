// A measuring worker's requests (see candidate_worker.h).
#include "runtime/tune/candidate_worker.h"

#include <limits>

namespace weft::rt::tune {

using nlohmann::json;

json result_to_json(const MeasureResult& r) {
  return {{"value", r.value}, {"error", r.error}, {"stopped_early", r.stopped_early},
          {"wall_s", r.wall_s}, {"details", r.details}};
}

MeasureResult result_from_json(const json& j) {
  MeasureResult r;
  r.value = j.at("value").get<double>();
  r.error = j.at("error").get<std::string>();
  r.stopped_early = j.at("stopped_early").get<bool>();
  r.wall_s = j.at("wall_s").get<double>();
  r.details = j.value("details", json::object());
  return r;
}

namespace {

double stop_of(const json& j) {
  const double stop = j.at("stop").get<double>();
  return stop < 0 ? std::numeric_limits<double>::infinity() : stop;
}

MeasureResult measure_one(const Task& t, const compiler::tune::Candidate& c, double stop) {
  if (!c.ok()) {
    MeasureResult r;
    r.error = c.error;
    return r;
  }
  return t.measurer->measure(c, stop);
}

}  // namespace

json CandidateWorker::prepare(const json& j) {
  try {
    const size_t ti = j.at("task").get<size_t>();
    const Task& t = tasks_.at(ti);
    auto c = t.space->apply(compiler::tune::Trace::from_json(j.at("trace")));
    json out = {{"i", j.at("i")}, {"error", c.ok() ? "" : c.error},
                {"features", std::vector<float>{}}, {"describe", nullptr}, {"result", nullptr}};
    if (!c.ok()) return out;
    if (j.at("features").get<bool>()) out["features"] = t.features->extract(c);
    out["describe"] = c.body->describe();
    if (j.at("measure").get<bool>())
      out["result"] = result_to_json(measure_one(t, c, stop_of(j)));
    else
      kept_[{ti, c.trace.key()}] = std::move(c);
    return out;
  } catch (const std::exception& e) {
    return {{"i", j.value("i", 0)}, {"error", std::string("worker: ") + e.what()},
            {"features", std::vector<float>{}}, {"describe", nullptr}, {"result", nullptr}};
  }
}

json CandidateWorker::measure(const json& j) {
  MeasureResult r;
  try {
    const size_t ti = j.at("task").get<size_t>();
    const Task& t = tasks_.at(ti);
    const auto trace = compiler::tune::Trace::from_json(j.at("trace"));
    auto k = kept_.find({ti, trace.key()});
    r = k != kept_.end() ? measure_one(t, k->second, stop_of(j))
                         : measure_one(t, t.space->apply(trace), stop_of(j));
  } catch (const std::exception& e) {
    r = MeasureResult{};
    r.error = std::string("worker: ") + e.what();
  }
  json out = result_to_json(r);
  out["i"] = j.value("i", 0);
  return out;
}

}  // namespace weft::rt::tune
