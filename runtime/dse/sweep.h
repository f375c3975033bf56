// The sweep of a design-space exploration (`weft dse`, docs/codesign.md): a base configuration
// and platform and, for some of their fields, the values to try. Read from a JSON file and/or
// `--param NAME=V1,V2` flags, checked whole before any work (unknown parameter, empty list,
// wrong shape: a UserError naming the file or flag), and expanded into points: each point is
// the base's configuration and platform objects in the configuration-file format with the
// point's values put in. Whether a point is valid hardware is decided later, by the one reader
// of configuration files (isa::config_from_json, derive_layout), so nothing here parses
// configurations.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace weft::rt::dse {

/// What to sweep. Parameters are configuration-file fields (batch, block_in, block_out,
/// *_buf_bytes, token_queue_depth, ..., options) or platform fields (axi_data_bits,
/// clock_mhz, read_latency, ...).
struct Sweep {
  std::string base = "vta";       // a shipped configuration name or a configuration file
  std::string platform = "sim";   // a shipped platform name or a platform file
  /// Each parameter with its values, in the order given; the points are their product.
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> params;
  /// Points given one by one (parameter -> value), after the product's.
  std::vector<nlohmann::json> points;
};

/// Reads a sweep file: {"base": NAME|FILE, "platform": NAME|FILE, "params": {NAME: [V, ...]},
/// "points": [{NAME: V, ...}]} (every key optional, but some point must result). UserError
/// naming the file for an unreadable file, invalid JSON, an unknown key or a value of the
/// wrong type.
Sweep read_sweep_file(const std::string& path);

/// Adds (or replaces) a parameter from "NAME=V1,V2,..." (integers, numbers, true/false, or
/// names); UserError naming `flag` when it has no '=' or no values.
void add_param(Sweep& sweep, const std::string& spec, const std::string& flag = "--param");

/// One point: its name and the values that differ from the base, and the configuration and
/// platform objects (configuration-file format) it stands for.
struct PointSpec {
  std::string name;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  nlohmann::ordered_json config, platform;
};

/// The parameters a sweep may name: the base configuration's and platform's file fields.
std::vector<std::string> sweep_parameters(const std::string& base, const std::string& platform);

/// The points of a sweep (the product of its params, then its points), duplicates dropped.
/// UserError for an unknown parameter (listing the known ones), a parameter without values,
/// or a sweep with no point.
std::vector<PointSpec> expand_sweep(const Sweep& sweep);

}  // namespace weft::rt::dse
