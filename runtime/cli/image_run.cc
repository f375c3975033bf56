// Raw runs of a DRAM image; see image_run.h.
#include "runtime/cli/image_run.h"

#include "driver/launch.h"
#include "hardware/isa/errors.h"

namespace weft::cli {

nlohmann::ordered_json raw_run_stats(const isa::Layout& layout, const isa::Platform& platform,
                                     const std::string& engine, const std::string& device_name,
                                     const nlohmann::ordered_json& details, double seconds) {
  nlohmann::ordered_json stats;
  stats["config"] = layout.config.name;
  stats["engine"] = device_name;
  if (engine == "cycle" || engine == "rtl") stats["platform"] = platform.name;
  for (const auto& [k, v] : details.items()) stats[k] = v;
  stats["wall_seconds"] = seconds;
  if (stats.contains("cycles") && seconds > 0)
    stats["simulated_cycles_per_second"] = stats["cycles"].get<double>() / seconds;
  return stats;
}

nlohmann::ordered_json run_program_image(const DeviceRunOptions& o, const isa::Layout& layout,
                                         const isa::Platform& platform,
                                         std::vector<uint8_t>& image, uint64_t insn_offset,
                                         uint64_t insn_count, driver::Timeline* trace) {
  if (image.empty()) throw UserError("the DRAM image is empty: no program to run");
  if (insn_count == 0) throw UserError("the program has no instructions (instruction count 0)");
  if (insn_offset > image.size() || insn_count > (image.size() - insn_offset) / 16)
    throw UserError("instructions [" + std::to_string(insn_offset) + ", " +
                    std::to_string(insn_offset) + " + 16 x " + std::to_string(insn_count) +
                    ") do not fit in the " + std::to_string(image.size()) + "-byte image");
  const DeviceRunResult r = run_on_device(
      o, layout, platform, image.size(), "weft run image", trace,
      [&](driver::Device& dev, std::chrono::milliseconds timeout) {
        // The image is the whole device memory, so the one allocation starts at address 0 and
        // the program's absolute dram_base fields address it directly.
        const uint64_t base = dev.alloc(image.size());
        if (base != 0) throw InternalError("first device allocation is not at address 0");
        dev.copy_to_device(0, image.data(), image.size());
        driver::run(dev, insn_offset, insn_count, timeout);
        dev.copy_from_device(0, image.data(), image.size());
      });
  return raw_run_stats(layout, platform, o.engine, r.engine, r.details, r.seconds);
}

}  // namespace weft::cli
