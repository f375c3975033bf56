// Workload and target identities: the keys and JSON of the tuning records.
#include "compiler/tune/space.h"

#include "hardware/isa/errors.h"

namespace weft::compiler::tune {

using nlohmann::json;

std::string Workload::key() const {
  std::string s = op + "(";
  bool first = true;
  for (auto it = shape.begin(); it != shape.end(); ++it) {  // nlohmann::json sorts its keys
    s += (first ? "" : ",") + it.key() + "=" +
         (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    first = false;
  }
  return s + ")";
}

json Workload::to_json() const { return {{"op", op}, {"shape", shape}}; }

Workload Workload::from_json(const json& j) {
  if (!j.is_object() || !j.contains("op") || !j["op"].is_string() || !j.contains("shape") ||
      !j["shape"].is_object())
    throw UserError("workload: expected {\"op\": string, \"shape\": object}");
  return {j["op"].get<std::string>(), j["shape"]};
}

std::string Target::key() const { return kind + "/" + config + "/" + platform; }

json Target::to_json() const {
  return {{"kind", kind}, {"config", config}, {"platform", platform}};
}

Target Target::from_json(const json& j) {
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string())
    throw UserError("target: expected {\"kind\": string, \"config\", \"platform\"}");
  for (const char* f : {"config", "platform"})
    if (j.contains(f) && !j[f].is_string())
      throw UserError(std::string("target: '") + f + "' is not a string");
  Target t;
  t.kind = j["kind"];
  t.config = j.value("config", "");
  t.platform = j.value("platform", "");
  return t;
}

}  // namespace weft::compiler::tune
