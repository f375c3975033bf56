// `weft trace render`: draws a timeline as an SVG picture: one written by `weft sim --engine
// cycle --trace` (lanes per unit, instructions, stalls, token arrows; times in cycles) or by
// `weft run NETWORK --trace` (accelerator and CPU lanes, one box per node; microseconds).
#include <iostream>
#include <memory>

#include "driver/timeline.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/json_text.h"
#include "runtime/cli/commands.h"
#include "runtime/io/files.h"

namespace weft::cli {

void add_trace_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "trace", "Work with timelines written by `weft sim --trace` or `weft run --trace`.");
  cmd->require_subcommand(1);
  struct Opts {
    std::string input, output, from = "0", to, title;
    int width = 1200;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* render = cmd->add_subcommand(
      "render",
      "Render a timeline as an SVG picture: the cycle engine's (times in cycles) or a network\n"
      "run's (times in microseconds). Open the JSON itself in ui.perfetto.dev or\n"
      "chrome://tracing to zoom interactively.");
  render->add_option("input", o->input, "timeline JSON")->required();
  render->add_option("-o,--output", o->output, "SVG file to write")->required();
  render->add_option("--from", o->from, "first cycle shown (microsecond for a network's timeline)")
      ->capture_default_str();
  render->add_option("--to", o->to, "last cycle (microsecond) shown (default: the end)");
  render
      ->add_option("--pixels", o->width,
                   "picture width in pixels (was --width, which weft run resnet18 uses for "
                   "channels)")
      ->capture_default_str();
  render->add_option("--title", o->title, "title text");
  render->callback([o] {
    rt::check_output_file(o->output, "-o");
    const nlohmann::json doc =
        isa::parse_json_text(rt::read_text_file(o->input), "'" + o->input + "'");
    driver::TimelineSvgOptions so;
    so.from = rt::parse_size(o->from, "--from");
    if (!o->to.empty()) so.to = rt::parse_size(o->to, "--to");
    if (o->width < 300 || o->width > 20000) {
      throw UserError("--pixels " + std::to_string(o->width) + " is out of range (300 to 20000)");
    }
    so.width = o->width;
    so.title = o->title.empty() ? o->input : o->title;
    std::string svg;
    try {
      svg = driver::render_timeline_svg(doc, so);
    } catch (const nlohmann::json::exception& e) {  // a malformed document is the user's
      throw UserError("'" + o->input + "' is not a Weft timeline: " + e.what());
    }
    rt::write_text_file(o->output, svg);
    std::cerr << "weft trace: " << o->output << "\n";
  });
}

}  // namespace weft::cli
