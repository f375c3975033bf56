// The sweep's picture (see dse_svg.h).
#include "runtime/dse/dse_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "runtime/dse/dse_report.h"

namespace weft::rt::dse {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

// An axis: linear, or logarithmic when the values span a factor of 8 or more.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  Axis(double mn, double mx) {
    log = mn > 0 && mx / mn >= 8;
    if (log) {
      lo = std::log10(mn) - 0.05;
      hi = std::log10(mx) + 0.05;
    } else {
      const double pad = mx > mn ? (mx - mn) * 0.08 : std::max(1.0, std::abs(mx) * 0.1);
      lo = std::max(0.0, mn - pad);
      hi = mx + pad;
    }
  }
  double frac(double v) const { return ((log ? std::log10(v) : v) - lo) / (hi - lo); }
  double at(double f) const { return log ? std::pow(10.0, lo + f * (hi - lo)) : lo + f * (hi - lo); }
};

const char* axis_label(const std::string& m) {
  if (m == "macs") return "MACs per cycle (about one DSP48E2 each)";
  if (m == "bram36") return "BRAM36 (buffers, estimated)";
  if (m == "lut") return "LUT (yosys)";
  if (m == "dsp") return "DSP48E2 (yosys)";
  return "energy per inference (uJ)";
}

}  // namespace

std::string dse_svg(const nlohmann::ordered_json& summary, const std::string& title) {
  std::vector<nlohmann::json> records(summary["points"].begin(), summary["points"].end());
  std::vector<std::string> panels;
  std::set<std::string> have;
  for (const auto& f : front_names(records)) have.insert(f);
  panels.push_back(have.count("dsp") ? "dsp" : "macs");
  panels.push_back(have.count("lut") ? "lut" : "bram36");
  panels.push_back("energy_uj");
  panels.erase(std::remove_if(panels.begin(), panels.end(),
                              [&](const std::string& p) { return !have.count(p); }),
               panels.end());
  const int pw = 420, ph = 360, ml = 70, mt = 50, gap = 30;
  const int width = ml + int(panels.size()) * (pw + gap + 40) + 10, height = mt + ph + 70;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
                  "\" height=\"" + std::to_string(height) +
                  "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"10\" y=\"20\" font-size=\"14\">" + escape(title) + "</text>\n";
  s += "<text x=\"10\" y=\"36\" fill=\"#555\">grey: every point that ran; red: the Pareto front "
       "of latency against the panel's axis (lower left is better)</text>\n";
  for (size_t p = 0; p < panels.size(); ++p) {
    const std::string& m = panels[p];
    std::vector<std::pair<double, double>> xy;
    std::vector<std::string> names;
    for (const auto& r : records) {
      double x, y;
      if (r.value("status", "") == "ok" && record_metric(r, m, &x) &&
          record_metric(r, "latency_us", &y)) {
        xy.emplace_back(x, y);
        names.push_back(r["name"]);
      }
    }
    if (xy.empty()) continue;
    double x0 = xy[0].first, x1 = x0, y0 = xy[0].second, y1 = y0;
    for (auto [x, y] : xy) {
      x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    }
    const Axis ax(x0, x1), ay(y0, y1);
    const int ox = ml + int(p) * (pw + gap + 40), oy = mt;
    auto px = [&](double x) { return ox + ax.frac(x) * pw; };
    auto py = [&](double y) { return oy + ph - ay.frac(y) * ph; };
    s += "<g>\n<rect x=\"" + std::to_string(ox) + "\" y=\"" + std::to_string(oy) + "\" width=\"" +
         std::to_string(pw) + "\" height=\"" + std::to_string(ph) +
         "\" fill=\"none\" stroke=\"#333\"/>\n";
    for (int t = 0; t <= 4; ++t) {
      const double f = t / 4.0;
      s += "<text x=\"" + fmt("%.1f", ox + f * pw) + "\" y=\"" + std::to_string(oy + ph + 15) +
           "\" text-anchor=\"middle\">" + fmt("%.3g", ax.at(f)) + "</text>\n";
      s += "<text x=\"" + std::to_string(ox - 5) + "\" y=\"" + fmt("%.1f", oy + ph - f * ph + 4) +
           "\" text-anchor=\"end\">" + fmt("%.3g", ay.at(f)) + "</text>\n";
      s += "<line x1=\"" + fmt("%.1f", ox + f * pw) + "\" y1=\"" + std::to_string(oy) +
           "\" x2=\"" + fmt("%.1f", ox + f * pw) + "\" y2=\"" + std::to_string(oy + ph) +
           "\" stroke=\"#eee\"/>\n";
    }
    s += "<text x=\"" + std::to_string(ox + pw / 2) + "\" y=\"" + std::to_string(oy + ph + 32) +
         "\" text-anchor=\"middle\">" + escape(axis_label(m)) + (ax.log ? " (log)" : "") +
         "</text>\n";
    s += "<text transform=\"translate(" + std::to_string(ox - 50) + "," +
         std::to_string(oy + ph / 2) + ") rotate(-90)\" text-anchor=\"middle\">latency (us)" +
         (ay.log ? " (log)" : "") + "</text>\n";
    for (size_t i = 0; i < xy.size(); ++i)
      s += "<circle cx=\"" + fmt("%.1f", px(xy[i].first)) + "\" cy=\"" +
           fmt("%.1f", py(xy[i].second)) + "\" r=\"3\" fill=\"#999\"><title>" +
           escape(names[i]) + "</title></circle>\n";
    // The front, in order of the panel's axis, joined by steps.
    const std::vector<std::string> front = front_of(records, m);
    std::vector<std::pair<double, double>> fxy;
    for (const auto& n : front)
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == n) fxy.push_back(xy[i]);
    std::string path;
    for (size_t i = 0; i < fxy.size(); ++i) {
      path += (i ? " L" : "M") + fmt("%.1f", px(fxy[i].first)) + "," + fmt("%.1f", py(fxy[i].second));
    }
    if (!path.empty())
      s += "<path d=\"" + path + "\" fill=\"none\" stroke=\"#d22\" stroke-width=\"1.5\"/>\n";
    for (size_t i = 0; i < fxy.size(); ++i) {
      s += "<circle cx=\"" + fmt("%.1f", px(fxy[i].first)) + "\" cy=\"" +
           fmt("%.1f", py(fxy[i].second)) + "\" r=\"4.5\" fill=\"#d22\"><title>" +
           escape(front[i]) + "</title></circle>\n";
      s += "<text x=\"" + fmt("%.1f", px(fxy[i].first) + 6) + "\" y=\"" +
           fmt("%.1f", py(fxy[i].second) - 6) + "\" fill=\"#a00\" font-size=\"9\">" +
           escape(front[i]) + "</text>\n";
    }
    s += "</g>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace weft::rt::dse
