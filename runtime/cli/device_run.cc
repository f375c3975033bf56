// Shared parts of `weft run OP`; see device_run.h.
#include "runtime/cli/device_run.h"

#include "hardware/cost/energy.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/checks.h"
#include "runtime/cli/progress.h"
#include "runtime/io/files.h"

namespace weft::cli {

void DeviceRunOptions::add_to(CLI::App& cmd, const std::string& save_help) {
  this->cmd = &cmd;
  cmd.add_option("--engine", engine,
                 "functional, cycle, rtl, or xrt (a board, or --xrt-emulate; docs/fpga.md)")
      ->capture_default_str();
  add_xrt_options(cmd, xclbin, xrt_device, xrt_emulate, xrt_bank);
  cmd.add_option("--save", save, save_help);
  cmd.add_option("--trace", trace, "cycle engine: write a Perfetto timeline (JSON) here");
  cmd.add_option("--seed", seed, "random data seed")->capture_default_str();
  cmd.add_option("--timeout", timeout_s, "seconds to wait for the device")->capture_default_str();
  cmd.add_flag("--progress", progress, "show progress on stderr even when not a terminal");
  add_energy_option(cmd, energy);
}

void add_energy_option(CLI::App& cmd, std::string& energy) {
  cmd.add_option("--energy", energy,
                 "cycle, rtl: the per-action energy table that prices the run, a shipped "
                 "table's name or a JSON file (default: the shipped horowitz45; "
                 "docs/codesign.md, Energy)");
}

void check_energy_option(const std::string& energy, const std::string& engine) {
  if (energy.empty()) return;
  if (engine == "functional")
    throw UserError("--energy needs an engine that counts what the hardware does (cycle, rtl), "
                    "not functional");
  cost::energy_table_for(energy);
}

void add_energy(nlohmann::ordered_json& j, const nlohmann::ordered_json& details,
                const std::string& energy, const isa::Layout& layout,
                const isa::Platform& platform, int64_t useful_macs) {
  if (!details.contains("activity") || !details.contains("cycles")) return;
  const cost::EnergyTable t = cost::energy_table_for(energy);
  const cost::Energy e = cost::energy_of(t, layout, sim::activity_from_json(details["activity"]),
                                         details["cycles"].get<uint64_t>());
  j["energy"] = cost::to_json(e, t, platform.clock_mhz, useful_macs);
}

void add_xrt_options(CLI::App& cmd, std::string& xclbin, int& device, std::string& emulate,
                     int& bank) {
  cmd.add_option("--xclbin", xclbin, "xrt engine: the .xclbin to load onto the board");
  cmd.add_option("--device", device, "xrt engine: the XRT device index")->capture_default_str();
  cmd.add_option("--xrt-emulate", emulate,
                 "xrt engine without a board: run the same host code on the emulated board, "
                 "backed by 'rtl' (the Verilated RTL) or 'cycle' (the cycle model)");
  cmd.add_option("--xrt-bank", bank,
                 "xrt engine: the memory bank (XRT group id) for buffers; default: the bank "
                 "the kernel's m_axi_gmem is connected to");
}

void check_xrt_options(const CLI::App& cmd, const std::string& engine) {
  if (engine != "xrt") {
    forbid(cmd, {"--xclbin", "--device", "--xrt-emulate", "--xrt-bank"},
           "with --engine xrt (not " + engine + ")");
    return;
  }
  const CLI::Option* xclbin = cmd.get_option_no_throw("--xclbin");
  const CLI::Option* emulate = cmd.get_option_no_throw("--xrt-emulate");
  if (xclbin && emulate && xclbin->count() == 0 && emulate->count() == 0) {
    throw UserError("--engine xrt needs --xclbin FILE (a board) or --xrt-emulate rtl|cycle (the "
                    "emulated board; docs/fpga.md)");
  }
}

void DeviceRunOptions::check() const {
  check_engine(engine);
  if (!trace.empty() && engine != "cycle") {
    throw UserError("--trace needs --engine cycle (the " + engine + " engine has no timing)");
  }
  if (cmd) check_xrt_options(*cmd, engine);
  if (!(timeout_s > 0)) {
    throw UserError("--timeout " + std::to_string(timeout_s) + " is out of range (seconds, above 0)");
  }
  if (!save.empty()) rt::check_output_dir(save, "--save");
  if (!trace.empty()) rt::check_output_file(trace, "--trace");
  check_energy_option(energy, engine);
}

DeviceRunOptions DeviceRunOptions::checked_for_run(bool keep_timeline) const {
  check();
  if (keep_timeline && engine != "cycle")
    throw UserError("a timeline needs the cycle engine (the " + engine + " engine has no timing)");
  DeviceRunOptions o = *this;
  if (keep_timeline && o.trace.empty()) o.trace = "(kept in memory)";  // records it
  return o;
}

void NetworkDeviceOptions::add_to(CLI::App& c, const std::string& engine_help) {
  cmd = &c;
  c.add_option("--engine", engine, engine_help)->capture_default_str();
  add_xrt_options(c, xclbin, xrt_device, xrt_emulate, xrt_bank);
  c.add_option("--timeout", timeout_s, "seconds each accelerator kernel may take")
      ->capture_default_str();
  c.add_option("--inject-fault", inject_fault,
               "cycle, rtl, xrt: AXI faults for the memory system, as for weft sim, e.g. "
               "read:slverr@0x1000 (the addresses of each kernel: --listing; "
               "docs/reliability.md)");
  add_energy_option(c, energy);
}

void NetworkDeviceOptions::check() const {
  check_engine(engine);
  if (cmd) check_xrt_options(*cmd, engine);
  if (!(timeout_s > 0)) {
    throw UserError("--timeout " + std::to_string(timeout_s) + " is out of range (seconds, above 0)");
  }
  if (!inject_fault.empty()) {
    check_fault_engine(engine, xrt_emulate);
    driver::parse_fault_plan(inject_fault);
  }
  check_energy_option(energy, engine);
}

void check_fault_engine(const std::string& engine, const std::string& xrt_emulate) {
  if (engine == "cycle" || engine == "rtl" || (engine == "xrt" && !xrt_emulate.empty())) return;
  throw UserError("--inject-fault needs --engine cycle or rtl, or xrt with --xrt-emulate (the " +
                  engine + " engine" + (engine == "xrt" ? " on a board" : "") +
                  " has no simulated memory system to inject into)");
}

driver::DeviceOptions NetworkDeviceOptions::device_options(driver::FaultPlan& plan) const {
  driver::DeviceOptions o;
  if (!inject_fault.empty()) {
    plan = driver::parse_fault_plan(inject_fault);
    o.faults = &plan;
  }
  o.xclbin = xclbin;
  o.xrt_device = xrt_device;
  o.xrt_emulate = xrt_emulate;
  o.xrt_bank = xrt_bank;
  return o;
}

DeviceRunResult run_on_device(
    const DeviceRunOptions& o, const isa::Layout& layout, const isa::Platform& platform,
    uint64_t bytes, const std::string& who, driver::Timeline* trace,
    const std::function<void(driver::Device&, std::chrono::milliseconds)>& body) {
  Progress progress(who, o.progress);
  driver::DeviceOptions opts;
  opts.layout = &layout;
  opts.platform = &platform;
  opts.memory_bytes = bytes;
  opts.trace = o.trace.empty() ? nullptr : trace;
  opts.progress = [&progress](uint64_t c, uint64_t d, uint64_t t) { progress(c, d, t); };
  opts.xclbin = o.xclbin;
  opts.xrt_device = o.xrt_device;
  opts.xrt_emulate = o.xrt_emulate;
  opts.xrt_bank = o.xrt_bank;
  auto dev = driver::open_device(o.engine, opts);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    RunCanceller::Running running(o.canceller, *dev);
    body(*dev, std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000)));
  } catch (...) {
    progress.finish();
    throw;
  }
  progress.finish();
  DeviceRunResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.engine = dev->name();
  r.details = dev->run_details();
  return r;
}

void add_timing(nlohmann::ordered_json& j, const nlohmann::ordered_json& details,
                const nlohmann::ordered_json& roofline, double ops,
                const isa::Platform& platform) {
  if (!details.contains("cycles")) return;
  const double cycles = details["cycles"].get<double>();
  j["cycles"] = details["cycles"];
  j["utilization"] = details["utilization"];
  j["roofline"] = roofline;
  j["fraction_of_roofline"] =
      details["utilization"].get<double>() / roofline["bound_utilization"].get<double>();
  j["gops"] = ops / (cycles / (platform.clock_mhz * 1e6)) / 1e9;
  j["modules"] = details["modules"];
}

Mismatches compare(const std::vector<int8_t>& out, const std::vector<int8_t>& expect) {
  Mismatches m;
  for (size_t i = 0; i < out.size() && i < expect.size(); ++i) {
    if (out[i] == expect[i]) continue;
    if (m.first < 0) m.first = static_cast<int64_t>(i);
    ++m.count;
  }
  if (out.size() != expect.size()) m.count += 1;
  return m;
}

std::filesystem::path save_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UserError("--save: cannot create directory '" + dir + "': " + ec.message());
  return std::filesystem::path(dir);
}

}  // namespace weft::cli
