// Reading a JSON object a user wrote, field by field: each field is read once with its type and
// range checked, and a field nobody read is an error naming it and the known ones. Every data
// file Weft reads this way (configurations, platforms, energy tables) reports the same
// messages: "<where>: missing field 'x'", "<where>: unknown field 'y' (known: ...)",
// "<where>: x = 3 must be 1..2".
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "hardware/isa/errors.h"

namespace weft::isa {

/// Reads the fields of one JSON object, each once, and rejects the fields it did not read.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) throw UserError(where_ + ": expected a JSON object");
  }

  bool has(const char* key) const { return j_.contains(key); }

  int64_t integer(const char* key, int64_t min, int64_t max) {
    const nlohmann::json& v = get(key);
    if (!v.is_number_integer()) throw bad(key, "an integer");
    const int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(max)
                          ? max + (max < std::numeric_limits<int64_t>::max() ? 1 : 0)
                          : v.get<int64_t>();
    if (x < min || x > max) {
      throw UserError(where_ + ": " + key + " = " + v.dump() + " must be " +
                      std::to_string(min) + ".." + std::to_string(max));
    }
    return x;
  }
  int64_t integer(const char* key, int64_t min, int64_t max, int64_t fallback) {
    return has(key) ? integer(key, min, max) : (seen_.insert(key), fallback);
  }
  double number(const char* key, double min, double max) {
    const nlohmann::json& v = get(key);
    if (!v.is_number()) throw bad(key, "a number");
    const double x = v.get<double>();
    if (!(x >= min && x <= max)) {
      std::ostringstream os;
      os << where_ << ": " << key << " = " << v.dump() << " must be " << min << ".." << max;
      throw UserError(os.str());
    }
    return x;
  }
  std::string string(const char* key) {
    const nlohmann::json& v = get(key);
    if (!v.is_string()) throw bad(key, "a string");
    return v.get<std::string>();
  }
  std::string string(const char* key, const std::string& fallback) {
    return has(key) ? string(key) : (seen_.insert(key), fallback);
  }
  const nlohmann::json& object(const char* key) {
    const nlohmann::json& v = get(key);
    if (!v.is_object()) throw bad(key, "an object");
    return v;
  }
  const nlohmann::json& array(const char* key) {
    const nlohmann::json& v = get(key);
    if (!v.is_array()) throw bad(key, "an array");
    return v;
  }
  // Marks an optional field as read without reading it (its reader is elsewhere).
  void skip(const char* key) { seen_.insert(key); }

  // Every field must have been read.
  void finish() const {
    for (const auto& item : j_.items()) {
      if (seen_.count(item.key())) continue;
      std::string known;
      for (const std::string& k : seen_) known += (known.empty() ? "" : ", ") + k;
      throw UserError(where_ + ": unknown field '" + item.key() + "' (known: " + known + ")");
    }
  }

 private:
  const nlohmann::json& get(const char* key) {
    seen_.insert(key);
    if (!j_.contains(key)) throw UserError(where_ + ": missing field '" + key + "'");
    return j_.at(key);
  }
  UserError bad(const char* key, const char* type) const {
    return UserError(where_ + ": " + key + " = " + j_.at(key).dump() + " must be " + type);
  }

  const nlohmann::json& j_;
  std::string where_;
  std::set<std::string> seen_;
};

}  // namespace weft::isa
