// `weft bench resnet18`: every ResNet-18 convolution layer on the accelerator's cycle model,
// with latency hiding (virtual threads) and without (one thread), each with knobs chosen by
// searching with the cycle model (cached), checked against the CPU reference, next to the
// platform's roofline. Writes DIR/results.json, DIR/roofline.svg and a timeline per layer.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "hardware/isa/errors.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/cli/commands.h"
#include "runtime/io/files.h"
#include "runtime/io/report_json.h"

namespace weft::cli {

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// The largest stall of the compute module, named: why a layer falls short of its bound.
std::string main_stall(const nlohmann::ordered_json& modules) {
  const auto& c = modules["compute"];
  std::string best = "none";
  uint64_t most = 0;
  for (const char* k : {"stall_token", "stall_dram", "stall_cmd_empty", "stall_hazard"}) {
    if (!c.contains(k)) continue;
    const uint64_t v = c[k].get<uint64_t>();
    if (v > most) {
      most = v;
      best = k;
    }
  }
  return best;
}

}  // namespace

void add_bench_command(CLI::App& app) {
  struct Opts {
    std::string config = "gemm8x8", platform = "sim", engine = "cycle", layers, out;
    std::string cache = rt::default_knob_cache_path();
    int64_t vthreads = 2;
    size_t search = 4;
    int shift = 8;
    bool no_cache = false, no_check = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* bench = app.add_subcommand("bench", "Benchmark studies on the accelerator.");
  bench->require_subcommand(1);
  CLI::App* cmd = bench->add_subcommand(
      "resnet18",
      "ResNet-18's convolution layers C1-C12 (batch = the configuration's GEMM batch: 1 on vta,\n"
      "8 on gemm8x8) on the cycle model, with --vthreads virtual threads and with one, each\n"
      "with knobs searched on the cycle model and checked against the CPU reference.\n"
      "Prints a table; writes DIR/results.json, DIR/roofline.svg and DIR/<layer>.trace.json.");
  cmd->add_option("--config", o->config, "hardware configuration: gemm8x8, vta, tiny or a configuration file (*.json)")
      ->capture_default_str();
  cmd->add_option("--platform", o->platform, "memory platform (sim, pynq, zcu104)")
      ->capture_default_str();
  cmd->add_option("--engine", o->engine, "simulation engine (cycle)")->capture_default_str();
  cmd->add_option("--layers", o->layers, "comma-separated layers, e.g. C2,C5 (default: all)");
  cmd->add_option("--save", o->out,
                  "write results.json, roofline.svg and the timelines into this directory "
                  "(default: resnet18-CONFIG; was --out, which weft sim uses for a file)");
  cmd->add_option("--vthreads", o->vthreads, "virtual threads of the latency-hiding runs")
      ->capture_default_str();
  cmd->add_option("--search", o->search,
                  "knob candidates to try on the cycle model per layer and thread count")
      ->capture_default_str();
  cmd->add_option("--shift", o->shift, "epilogue shift")->capture_default_str();
  cmd->add_option("--knob-cache", o->cache, "file remembering the knobs chosen")
      ->capture_default_str();
  cmd->add_flag("--no-knob-cache", o->no_cache, "search again and remember nothing");
  cmd->add_flag("--no-check", o->no_check, "skip the CPU reference check");
  cmd->callback([o, cmd] {
    if (o->engine != "cycle") {
      throw UserError("weft bench resnet18 needs --engine cycle (cycles and stalls); '" +
                      o->engine + "' has no timing");
    }
    const isa::Layout& l = isa::layout_for(o->config);
    const isa::Platform& p = isa::find_platform(o->platform);
    if (o->vthreads < 2) throw UserError("--vthreads must be at least 2 to hide latency");
    std::vector<rt::LayerSpec> layers;
    const auto& all = rt::resnet18_layers();
    if (cmd->count("--layers") == 0) {
      layers = all;
    } else {
      const std::vector<std::string> names = split_list(o->layers);
      if (names.empty()) throw UserError("--layers '" + o->layers + "' names no layer (give C2,C5,...)");
      for (const std::string& name : names) {
        auto it = std::find_if(all.begin(), all.end(), [&](const auto& x) { return x.name == name; });
        if (it == all.end()) throw UserError("--layers: no layer '" + name + "' (C1 to C12)");
        layers.push_back(*it);
      }
    }
    const std::string out = o->out.empty() ? "resnet18-" + o->config : o->out;
    if (o->no_cache && cmd->count("--knob-cache"))
      throw UserError("--knob-cache and --no-knob-cache contradict each other; give one");
    rt::check_output_dir(out, "--save");
    if (cmd->count("--knob-cache")) rt::check_output_file(o->cache, "--knob-cache");
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) throw UserError("--save: cannot create directory '" + out + "': " + ec.message());
    rt::KnobCache cache(o->no_cache ? "" : o->cache);
    const compiler::ops::Conv2dEpilogue epilogue{o->shift, true, true};

    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    std::vector<rt::RooflinePoint> points;
    rt::Roofline roof_any;
    rt::OutputSet outputs;
    std::printf("%-4s %7s %12s %7s %7s %7s %9s %6s %12s %7s %9s %-20s %s\n", "layer", "GMACs",
                "cycles", "GOPS", "util", "bound", "of bound", "ALU", "1-thr cycles", "1-thr",
                "speedup", "knobs (h,w,ic,oc,vt)", "correct");
    for (const rt::LayerSpec& spec : layers) {
      compiler::ops::Conv2dShape s = spec.shape;
      s.n = l.config.batch();
      auto note = [&](const std::string& m) { std::cerr << "  " << spec.name << ": " << m << "\n"; };
      std::cerr << spec.name << ": " << s.describe() << ", choosing knobs...\n";
      const auto k_hidden =
          rt::search_knobs(l, p, s, o->vthreads, o->search, o->no_cache ? nullptr : &cache, note)
              .best;
      const auto k_serial =
          rt::search_knobs(l, p, s, 1, o->search, o->no_cache ? nullptr : &cache, note).best;
      // One data set and one CPU reference for both runs of the layer.
      const rt::Conv2dData data = rt::random_conv2d_data(s, 1);
      std::vector<int8_t> expect;
      if (!o->no_check) expect = rt::conv2d_reference(s, data, epilogue);
      const std::vector<int8_t>* check = o->no_check ? nullptr : &expect;
      driver::Timeline trace;
      const rt::LayerRun hidden =
          rt::run_layer(l, p, "cycle", s, k_hidden, epilogue, data, check, &trace);
      const rt::LayerRun serial = rt::run_layer(l, p, "cycle", s, k_serial, epilogue, data, check);
      const rt::Roofline roof = rt::conv2d_roofline(l, p, s);
      roof_any = roof;
      const double frac = hidden.utilization / roof.bound_utilization;
      const bool correct = o->no_check || (hidden.correct && serial.correct);
      nlohmann::ordered_json row;
      row["layer"] = spec.name;
      row["shape"] = rt::conv2d_shape_json(s.n, s.h, s.w, s.ic, s.oc, s.k, s.k, s.stride, s.pad);
      row["macs"] = s.macs();
      row["cycles"] = hidden.cycles;
      row["gops"] = hidden.gops;
      row["utilization"] = hidden.utilization;
      row["useful_utilization"] =
          double(s.macs()) / (double(hidden.cycles) * double(l.macs_per_uop()));
      row["roofline"] = roof.to_json();
      row["fraction_of_bound"] = frac;
      row["knobs"] = rt::knobs_to_json(k_hidden);
      row["instructions"] = hidden.instructions;
      row["modules"] = hidden.details["modules"];
      row["main_compute_stall"] = main_stall(hidden.details["modules"]);
      // Compute time the ALU epilogue takes, and DRAM traffic against the compulsory bytes:
      // what keeps a layer under its roofline bound when compute is never starved.
      const double alu_share =
          hidden.details["alu_uops"].get<double>() / double(std::max<uint64_t>(1, hidden.cycles));
      row["alu_share"] = alu_share;
      double moved = 0;
      for (const char* k : {"inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes",
                            "uop_load_nbytes", "out_store_nbytes"}) {
        moved += hidden.details[k].get<double>();
      }
      row["dram_bytes"] = moved;
      row["dram_traffic_over_compulsory"] = moved / roof.dram_bytes;
      row["one_thread"] = {{"cycles", serial.cycles},
                           {"gops", serial.gops},
                           {"utilization", serial.utilization},
                           {"knobs", rt::knobs_to_json(k_serial)},
                           {"modules", serial.details["modules"]}};
      row["speedup_over_one_thread"] = double(serial.cycles) / double(hidden.cycles);
      row["checked"] = !o->no_check;
      row["correct"] = correct;
      row["trace"] = spec.name + ".trace.json";
      rows.push_back(row);
      points.push_back({spec.name, roof.intensity, hidden.gops, serial.gops});
      outputs.add_text((std::filesystem::path(out) / (spec.name + ".trace.json")).string(),
                       trace.to_json().dump() + "\n");
      char knobs[64];
      std::snprintf(knobs, sizeof knobs, "%lld,%lld,%lld,%lld,%lld%c",
                    static_cast<long long>(k_hidden.tile_h), static_cast<long long>(k_hidden.tile_w),
                    static_cast<long long>(k_hidden.tile_ic), static_cast<long long>(k_hidden.tile_oc),
                    static_cast<long long>(k_hidden.vthreads), k_hidden.vthread_axis);
      std::printf(
          "%-5s %7.3f %12llu %7.1f %6.1f%% %6.1f%% %8.1f%% %5.1f%% %12llu %6.1f%% %8.2fx %-20s %s\n",
                  spec.name.c_str(), double(s.macs()) / 1e9,
                  static_cast<unsigned long long>(hidden.cycles), hidden.gops,
                  100 * hidden.utilization, 100 * roof.bound_utilization, 100 * frac, 100 * alu_share,
                  static_cast<unsigned long long>(serial.cycles), 100 * serial.utilization,
                  double(serial.cycles) / double(hidden.cycles), knobs,
                  o->no_check ? "unchecked" : correct ? "yes" : "NO");
      std::fflush(stdout);
    }
    nlohmann::ordered_json results;
    results["config"] = l.config.name;
    results["platform"] = p.name;
    results["clock_mhz"] = p.clock_mhz;
    results["engine"] = "cycle";
    results["vthreads"] = o->vthreads;
    results["layers"] = rows;
    outputs.add_text((std::filesystem::path(out) / "results.json").string(), results.dump(2) + "\n");
    outputs.add_text((std::filesystem::path(out) / "roofline.svg").string(),
                     rt::roofline_svg(roof_any, points,
                                      "ResNet-18 conv layers on " + o->config + " / " + p.name));
    outputs.commit();
    std::cerr << "results: " << out << "/results.json, " << out << "/roofline.svg\n";
    bool all_correct = true;
    for (const auto& r : rows) all_correct &= r["correct"].get<bool>();
    if (!all_correct) throw UserError("some layers differ from the CPU reference (see results.json)");
  });
}

}  // namespace weft::cli
