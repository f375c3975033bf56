// Reading energy tables; see energy_table.h and docs/codesign.md for the format.
#include "hardware/cost/energy_table.h"

#include <cmath>
#include <sstream>

#include "hardware/isa/config_file.h"
#include "hardware/isa/embedded.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/field_reader.h"
#include "hardware/isa/json_text.h"

namespace weft::embedded {
/// hardware/cost/tables/*.json (hardware/cost/CMakeLists.txt), the default first.
const std::vector<EmbeddedFile>& shipped_energy_tables();
}  // namespace weft::embedded

namespace weft::cost {

namespace {

constexpr double kMaxPj = 1e9;  // a nanojoule per action is far past any real figure

std::string fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// A figure that may not be negative; its message says so rather than give a range.
double energy(isa::FieldReader& r, const char* key, const std::string& at) {
  const double v = r.number(key, -kMaxPj, kMaxPj);
  if (v < 0) throw UserError(at + ": " + key + " = " + fmt(v) + " is negative");
  return v;
}

// Where a figure came from: required, so that no number stands without its provenance.
void source(isa::FieldReader& r, const std::string& at) {
  if (!r.has("source")) throw UserError(at + ": missing field 'source' (where the figure comes from)");
  if (r.string("source").empty()) throw UserError(at + ": source is empty");
}

// {"pj": ..., "source": "..."}
double action(isa::FieldReader& top, const char* key, const std::string& where) {
  const std::string at = where + ", " + key;
  isa::FieldReader r(top.object(key), at);
  const double pj = energy(r, "pj", at);
  source(r, at);
  r.finish();
  return pj;
}

std::vector<SramPoint> sram_points(isa::FieldReader& top, const std::string& where) {
  const std::string at = where + ", sram_byte";
  isa::FieldReader r(top.object("sram_byte"), at);
  const nlohmann::json& points = r.array("points");
  if (points.empty()) throw UserError(at + ": points is empty (give at least one size)");
  std::vector<SramPoint> out;
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string pat = at + ", points[" + std::to_string(i) + "]";
    isa::FieldReader p(points[i], pat);
    SramPoint s;
    s.bytes = static_cast<uint64_t>(p.integer("bytes", 1, int64_t{1} << 50));
    s.read_pj = energy(p, "read_pj", pat);
    s.write_pj = energy(p, "write_pj", pat);
    // Interpolation is on a log scale, where zero has no place.
    if (s.read_pj == 0 || s.write_pj == 0)
      throw UserError(pat + ": read_pj and write_pj must be positive (they are interpolated on a "
                            "log scale)");
    if (!out.empty() && s.bytes <= out.back().bytes)
      throw UserError(pat + ": bytes = " + std::to_string(s.bytes) + " must be larger than the "
                      "point before (" + std::to_string(out.back().bytes) + ")");
    p.finish();
    out.push_back(s);
  }
  source(r, at);
  r.finish();
  return out;
}

double log_interp(double x, double x0, double x1, double y0, double y1) {
  const double t = (std::log(x) - std::log(x0)) / (std::log(x1) - std::log(x0));
  return std::exp(std::log(y0) + t * (std::log(y1) - std::log(y0)));
}

}  // namespace

double EnergyTable::sram_byte_pj(uint64_t bytes, bool write) const {
  if (sram.empty()) throw InternalError("energy table '" + name + "' has no SRAM points");
  auto pj = [&](const SramPoint& p) { return (write ? p.write_pj : p.read_pj) * scale; };
  if (sram.size() == 1) return pj(sram[0]);
  size_t i = 1;  // the segment [i-1, i] that holds `bytes`, or the nearest end segment
  while (i + 1 < sram.size() && sram[i].bytes < bytes) ++i;
  return log_interp(double(bytes), double(sram[i - 1].bytes), double(sram[i].bytes),
                    pj(sram[i - 1]), pj(sram[i]));
}

double process_scale(double from_node_nm, double from_vdd, double node_nm, double vdd) {
  return (node_nm / from_node_nm) * (vdd / from_vdd) * (vdd / from_vdd);
}

EnergyTable energy_table_from_json(const nlohmann::json& j, const std::string& where) {
  // Messages name the table as soon as it has a name.
  std::string at = where;
  if (j.is_object() && j.contains("name") && j["name"].is_string())
    at += " ('" + j["name"].get<std::string>() + "')";
  isa::FieldReader r(j, at);
  EnergyTable t;
  t.name = r.string("name");
  if (t.name.empty()) throw UserError(where + ": name is empty");
  t.description = r.string("description", "");
  t.source_node_nm = r.number("node_nm", 1, 1e4);
  t.source_vdd = r.number("vdd", 0.05, 10);
  if (r.string("process_source").empty()) throw UserError(at + ": process_source is empty");
  t.node_nm = t.source_node_nm;
  t.vdd = t.source_vdd;
  if (r.has("scale_to")) {
    isa::FieldReader s(r.object("scale_to"), at + ", scale_to");
    t.node_nm = s.number("node_nm", 1, 1e4);
    t.vdd = s.number("vdd", 0.05, 10);
    s.finish();
  }
  t.scale = process_scale(t.source_node_nm, t.source_vdd, t.node_nm, t.vdd);
  t.mac_int8_pj = action(r, "mac_int8", at) * t.scale;
  t.acc_add_int32_pj = action(r, "acc_add_int32", at) * t.scale;
  t.alu_op_int32_pj = action(r, "alu_op_int32", at) * t.scale;
  t.alu_mul_int32_pj = action(r, "alu_mul_int32", at) * t.scale;
  t.register_byte_pj = action(r, "register_byte", at) * t.scale;
  t.sram = sram_points(r, at);  // scaled when read (sram_byte_pj)
  t.dram_byte_pj = action(r, "dram_byte", at);
  r.finish();
  return t;
}

const std::vector<EnergyTable>& shipped_energy_tables() {
  static const std::vector<EnergyTable> tables = [] {
    std::vector<EnergyTable> out;
    for (const EmbeddedFile& f : embedded::shipped_energy_tables()) {
      const std::string where = "shipped energy table " + f.name;
      out.push_back(energy_table_from_json(isa::parse_json_text(f.text, where), where));
    }
    return out;
  }();
  return tables;
}

EnergyTable energy_table_for(const std::string& arg) {
  if (arg.empty()) return shipped_energy_tables().front();
  if (isa::names_a_file(arg)) {
    return energy_table_from_json(isa::read_json_file(arg, "energy table"),
                                  "energy table '" + arg + "'");
  }
  std::string known;
  for (const EnergyTable& t : shipped_energy_tables()) {
    if (t.name == arg) return t;
    known += (known.empty() ? "" : ", ") + t.name;
  }
  throw UserError("unknown energy table '" + arg + "' (shipped: " + known +
                  "; a file must end in .json or contain '/')");
}

}  // namespace weft::cost
