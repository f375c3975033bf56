// Layer studies on the accelerator; see conv2d_study.h.
#include "runtime/bench/conv2d_study.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "compiler/ops/tiling.h"
#include "hardware/isa/errors.h"

namespace weft::rt {

namespace {

using compiler::ops::Conv2dShape;

using compiler::ops::ceil_div;

}  // namespace

const std::vector<LayerSpec>& resnet18_layers() {
  // name, N, H, W, IC, OC, K, stride, pad
  static const std::vector<LayerSpec> layers = {
      {"C1", {1, 224, 224, 3, 64, 7, 2, 3}},    {"C2", {1, 56, 56, 64, 64, 3, 1, 1}},
      {"C3", {1, 56, 56, 64, 64, 1, 1, 0}},     {"C4", {1, 56, 56, 64, 128, 3, 2, 1}},
      {"C5", {1, 56, 56, 64, 128, 1, 2, 0}},    {"C6", {1, 28, 28, 128, 128, 3, 1, 1}},
      {"C7", {1, 28, 28, 128, 256, 3, 2, 1}},   {"C8", {1, 28, 28, 128, 256, 1, 2, 0}},
      {"C9", {1, 14, 14, 256, 256, 3, 1, 1}},   {"C10", {1, 14, 14, 256, 512, 3, 2, 1}},
      {"C11", {1, 14, 14, 256, 512, 1, 2, 0}},  {"C12", {1, 7, 7, 512, 512, 3, 1, 1}}};
  return layers;
}

nlohmann::ordered_json Roofline::to_json() const {
  return {{"compute_cycles", compute_cycles},   {"compulsory_dram_bytes", dram_bytes},
          {"memory_cycles", memory_cycles},     {"bound_cycles", bound_cycles},
          {"bound_utilization", bound_utilization}, {"intensity_ops_per_byte", intensity},
          {"peak_gops", peak_gops},             {"bandwidth_gbs", bandwidth_gbs}};
}

Roofline conv2d_roofline(const isa::Layout& l, const isa::Platform& p, const Conv2dShape& s) {
  const auto& c = l.config;
  const double nb = double(ceil_div(s.n, c.batch())), icb = double(ceil_div(s.ic, c.block_in())),
               ocb = double(ceil_div(s.oc, c.block_out()));
  const double oh = double(s.out_h()), ow = double(s.out_w()), k2 = double(s.k * s.k);
  const double bus = p.axi_data_bits / 8.0;
  Roofline r;
  r.compute_cycles = nb * ocb * oh * ow * icb * k2;
  r.dram_bytes = nb * icb * double(s.h * s.w) * l.inp_elem_bytes + ocb * icb * k2 * l.wgt_elem_bytes +
                 nb * ocb * oh * ow * l.out_elem_bytes + ocb * l.acc_elem_bytes;
  r.memory_cycles = r.dram_bytes / bus;
  r.bound_cycles = std::max(r.compute_cycles, r.memory_cycles);
  r.bound_utilization = r.compute_cycles / r.bound_cycles;
  r.intensity = 2.0 * double(s.macs()) / r.dram_bytes;
  r.peak_gops = 2.0 * double(l.macs_per_uop()) * p.clock_mhz * 1e6 / 1e9;
  r.bandwidth_gbs = bus * p.clock_mhz * 1e6 / 1e9;
  return r;
}

KnobSearch search_knobs(const isa::Layout& l, const isa::Platform& p, const Conv2dShape& s,
                        int64_t vthreads, size_t candidates, KnobCache* cache,
                        const std::function<void(const std::string&)>& note) {
  KnobSearch out;
  const std::string key = knob_key(l, p, s, vthreads);
  if (cache) {
    if (auto k = cache->find(key)) {
      try {
        compiler::ops::check_conv2d_knobs(l, s, *k);
        out.best = *k;
        out.cached = true;
        out.candidates = 1;
        return out;
      } catch (const UserError&) {
        // A stale entry (older rules): search again.
      }
    }
  }
  out = measure_knobs(l, p, s,
                      compiler::ops::conv2d_candidates(l, p, s, vthreads,
                                                       std::max<size_t>(1, candidates)),
                      note);
  if (cache) {
    cache->put(key, out.best);
    cache->save();
  }
  return out;
}

std::string roofline_svg(const Roofline& roof, const std::vector<RooflinePoint>& points,
                         const std::string& title) {
  // Log-log axes: intensity 1..10^4 ops/byte, performance from 1 GOPS to above the peak.
  const double W = 760, H = 480, L = 70, R = 170, T = 40, B = 50;
  const double x0 = 0, x1 = 4;  // log10 of ops/byte
  const double y0 = 0, y1 = std::ceil(std::log10(roof.peak_gops * 1.5));
  auto X = [&](double v) { return L + (std::log10(std::max(v, 1.0)) - x0) / (x1 - x0) * (W - L - R); };
  auto Y = [&](double v) {
    return T + (1 - (std::log10(std::max(v, 1.0)) - y0) / (y1 - y0)) * (H - T - B);
  };
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
       "fill=\"white\"/>\n<text x=\""
    << L << "\" y=\"22\" font-size=\"15\">" << title << "</text>\n";
  for (int e = int(x0); e <= int(x1); ++e) {
    const double x = X(std::pow(10.0, e));
    o << "<line x1=\"" << x << "\" y1=\"" << T << "\" x2=\"" << x << "\" y2=\"" << H - B
      << "\" stroke=\"#ddd\"/><text x=\"" << x - 10 << "\" y=\"" << H - B + 16 << "\">1e" << e
      << "</text>\n";
  }
  for (int e = int(y0); e <= int(y1); ++e) {
    const double y = Y(std::pow(10.0, e));
    o << "<line x1=\"" << L << "\" y1=\"" << y << "\" x2=\"" << W - R << "\" y2=\"" << y
      << "\" stroke=\"#ddd\"/><text x=\"" << L - 40 << "\" y=\"" << y + 4 << "\">1e" << e
      << "</text>\n";
  }
  o << "<text x=\"" << (L + W - R) / 2 - 90 << "\" y=\"" << H - 12
    << "\">operational intensity (ops / DRAM byte)</text>\n<text x=\"16\" y=\"" << (T + H - B) / 2
    << "\" transform=\"rotate(-90 16 " << (T + H - B) / 2 << ")\">GOPS</text>\n";
  // The roof: bandwidth slope up to the ridge, then the compute peak.
  const double ridge = roof.peak_gops / roof.bandwidth_gbs;
  o << "<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"2\" points=\"" << X(1) << ","
    << Y(roof.bandwidth_gbs) << " " << X(ridge) << "," << Y(roof.peak_gops) << " "
    << X(std::pow(10.0, x1)) << "," << Y(roof.peak_gops) << "\"/>\n<text x=\"" << X(ridge) + 6
    << "\" y=\"" << Y(roof.peak_gops) - 6 << "\">peak " << roof.peak_gops << " GOPS, "
    << roof.bandwidth_gbs << " GB/s</text>\n";
  for (const RooflinePoint& pt : points) {
    const double x = X(pt.intensity);
    o << "<line x1=\"" << x << "\" y1=\"" << Y(pt.gops_serial) << "\" x2=\"" << x << "\" y2=\""
      << Y(pt.gops_hidden) << "\" stroke=\"#bbb\"/>\n<circle cx=\"" << x << "\" cy=\""
      << Y(pt.gops_serial) << "\" r=\"4\" fill=\"#e07b39\"><title>" << pt.name
      << " one thread: " << pt.gops_serial << " GOPS</title></circle>\n<circle cx=\"" << x
      << "\" cy=\"" << Y(pt.gops_hidden) << "\" r=\"4\" fill=\"#2a6fdb\"><title>" << pt.name
      << " latency hiding: " << pt.gops_hidden << " GOPS</title></circle>\n<text x=\"" << x + 6
      << "\" y=\"" << Y(pt.gops_hidden) + 4 << "\" font-size=\"10\">" << pt.name << "</text>\n";
  }
  const double lx = W - R + 12;
  o << "<circle cx=\"" << lx << "\" cy=\"" << T + 10 << "\" r=\"4\" fill=\"#2a6fdb\"/><text x=\""
    << lx + 8 << "\" y=\"" << T + 14 << "\">latency hiding</text>\n<circle cx=\"" << lx
    << "\" cy=\"" << T + 30 << "\" r=\"4\" fill=\"#e07b39\"/><text x=\"" << lx + 8 << "\" y=\""
    << T + 34 << "\">one virtual thread</text>\n</svg>\n";
  return o.str();
}

}  // namespace weft::rt
