// Reading and expanding a sweep (see sweep.h).
#include "runtime/dse/sweep.h"

#include <algorithm>
#include <map>
#include <set>

#include "hardware/isa/config_file.h"
#include "hardware/isa/describe.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"

namespace weft::rt::dse {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

// Fields of the file formats that identify a configuration or platform, never swept.
bool identity_field(const std::string& k) {
  return k == "name" || k == "description" || k == "platform";
}

// A flag's value: an integer, a number, true/false, or a name.
json parse_value(const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  try {
    size_t used = 0;
    const long long i = std::stoll(v, &used);
    if (used == v.size()) return i;
    const double d = std::stod(v, &used);
    if (used == v.size()) return d;
  } catch (const std::exception&) {
  }
  return v;
}

// A short piece of a point's name for one value (names take letters, digits, '_' and '-').
std::string name_part(const std::string& param, const json& v) {
  static const std::map<std::string, std::string> kShort = {
      {"batch", "b"},          {"block_in", "i"},        {"block_out", "o"},
      {"uop_buf_bytes", "uop"}, {"inp_buf_bytes", "inp"}, {"wgt_buf_bytes", "wgt"},
      {"acc_buf_bytes", "acc"}, {"axi_data_bits", "bus"}, {"clock_mhz", "mhz"},
      {"token_queue_depth", "tq"}};
  auto it = kShort.find(param);
  std::string key = it != kShort.end() ? it->second : param;
  std::string val;
  if (v.is_number_integer()) {
    const long long n = v.get<long long>();
    val = n >= 1024 && n % 1024 == 0 ? std::to_string(n / 1024) + "k" : std::to_string(n);
  } else if (v.is_number()) {
    val = v.dump();
  } else if (v.is_boolean()) {
    val = v.get<bool>() ? "on" : "off";
  } else if (v.is_string()) {
    val = v.get<std::string>();
  } else if (v.is_object()) {
    // "options": the names of the options turned on ({} is "none")
    for (const auto& [name, on] : v.items())
      if (on.is_boolean() && on.get<bool>()) val += (val.empty() ? "" : "_") + name;
    if (val.empty()) val = "none";
    if (param == "options") key = "opt-";
  } else {
    val = "x";  // anything else: the name is made unique below
  }
  std::string out = key + val;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = 'p';
  return out;
}

}  // namespace

Sweep read_sweep_file(const std::string& path) {
  const json j = isa::read_json_file(path, "sweep file");
  const std::string at = "sweep file '" + path + "'";
  if (!j.is_object()) throw UserError(at + ": must be a JSON object");
  Sweep s;
  for (const auto& [k, v] : j.items()) {
    if (k == "base" || k == "platform") {
      if (!v.is_string()) throw UserError(at + ": \"" + k + "\" must be a name or a file");
      (k == "base" ? s.base : s.platform) = v.get<std::string>();
    } else if (k == "params") {
      if (!v.is_object())
        throw UserError(at + ": \"params\" must be an object {\"NAME\": [values]}");
      for (const auto& [name, values] : v.items()) {
        if (!values.is_array())
          throw UserError(at + ": params \"" + name + "\" must be a list of values");
        s.params.emplace_back(name, std::vector<json>(values.begin(), values.end()));
      }
    } else if (k == "points") {
      if (!v.is_array()) throw UserError(at + ": \"points\" must be a list of objects");
      for (const auto& p : v) {
        if (!p.is_object() || p.empty())
          throw UserError(at + ": each of \"points\" must be a non-empty object {\"NAME\": value}");
        s.points.push_back(p);
      }
    } else if (k != "description") {
      throw UserError(at + ": unknown key '" + k + "' (known: base, platform, params, points, "
                      "description)");
    }
  }
  return s;
}

void add_param(Sweep& sweep, const std::string& spec, const std::string& flag) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError(flag + " '" + spec + "' must be NAME=V1,V2,...");
  const std::string name = spec.substr(0, eq);
  std::vector<json> values;
  size_t from = eq + 1;
  while (from <= spec.size()) {
    const size_t comma = std::min(spec.find(',', from), spec.size());
    const std::string v = spec.substr(from, comma - from);
    if (v.empty()) throw UserError(flag + " '" + spec + "' has an empty value");
    values.push_back(parse_value(v));
    from = comma + 1;
  }
  for (auto& p : sweep.params)
    if (p.first == name) {
      p.second = values;
      return;
    }
  sweep.params.emplace_back(name, values);
}

std::vector<std::string> sweep_parameters(const std::string& base, const std::string& platform) {
  std::vector<std::string> out;
  const ojson config = isa::config_to_json(isa::layout_for(base).config);
  const ojson pf = isa::platform_to_json(isa::find_platform(platform));
  for (const auto& [k, v] : config.items())
    if (!identity_field(k)) out.push_back(k);
  for (const auto& [k, v] : pf.items())
    if (!identity_field(k)) out.push_back(k);
  return out;
}

std::vector<PointSpec> expand_sweep(const Sweep& sweep) {
  const isa::HwConfig& base = isa::layout_for(sweep.base).config;
  const ojson base_config = isa::config_to_json(base);
  const ojson base_platform = isa::platform_to_json(isa::find_platform(sweep.platform));
  auto is_config = [&](const std::string& k) { return base_config.contains(k) && !identity_field(k); };
  auto is_platform = [&](const std::string& k) {
    return base_platform.contains(k) && !identity_field(k);
  };
  auto check_name = [&](const std::string& k) {
    if (is_config(k) || is_platform(k)) return;
    std::string known;
    for (const auto& n : sweep_parameters(sweep.base, sweep.platform))
      known += (known.empty() ? "" : ", ") + n;
    throw UserError("dse: unknown parameter '" + k + "' (known: " + known + ")");
  };
  for (const auto& [k, values] : sweep.params) {
    check_name(k);
    if (values.empty()) throw UserError("dse: parameter '" + k + "' has no values");
  }
  for (const auto& p : sweep.points)
    for (const auto& [k, v] : p.items()) check_name(k);

  // The assignments: the product of the params (the first varies slowest), then the points.
  std::vector<ojson> assignments;
  if (!sweep.params.empty()) {
    std::vector<size_t> at(sweep.params.size(), 0);
    for (;;) {
      ojson a = ojson::object();
      for (size_t i = 0; i < at.size(); ++i) a[sweep.params[i].first] = sweep.params[i].second[at[i]];
      assignments.push_back(a);
      size_t i = at.size();
      while (i > 0 && ++at[i - 1] == sweep.params[i - 1].second.size()) at[--i] = 0;
      if (i == 0) break;
    }
  }
  for (const auto& p : sweep.points) assignments.push_back(ojson(p));
  if (assignments.empty())
    throw UserError("dse: the sweep has no point (give --param NAME=V1,V2 or a sweep file with "
                    "\"params\" or \"points\")");

  std::vector<PointSpec> out;
  std::set<std::string> seen, names;
  for (const ojson& a : assignments) {
    PointSpec p;
    p.config = base_config;
    p.platform = base_platform;
    std::string name = base.name;
    for (const auto& [k, v] : a.items()) {
      (is_config(k) ? p.config : p.platform)[k] = v;
      name += "-" + name_part(k, v);
    }
    const std::string identity = p.config.dump() + p.platform.dump();
    if (!seen.insert(identity).second) continue;  // the same hardware twice
    p.params = a;
    std::string unique = name;
    for (int n = 2; !names.insert(unique).second; ++n) unique = name + "-" + std::to_string(n);
    p.name = unique;
    p.config["name"] = unique;
    p.config["description"] = "weft dse point of " + base.name;
    p.platform["name"] = unique;
    p.platform["description"] = "weft dse point of " + sweep.platform;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace weft::rt::dse
