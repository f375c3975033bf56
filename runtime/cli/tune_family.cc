// `weft tune dense|conv2d --family SPEC` (see tune_family.h): parses the family, checks the
// target, tunes, writes the dispatch table next to the database (or to --dispatch) atomically
// and prints a JSON summary (trials, the micro-kernels with their fitted costs, and how many
// members each one serves).
#include "runtime/cli/tune_family.h"

#include <iostream>

#include "hardware/isa/errors.h"
#include "runtime/io/files.h"
#include "runtime/tune/database.h"

namespace weft::cli {

void run_tune_family(const TuneFamilyRequest& r) {
  namespace tn = rt::tune;
  if (r.target != "accel")
    throw UserError("--family: shape-generic tuning is built for --target accel only (got '" +
                    r.target + "')");
  const tn::ShapeFamily fam = tn::ShapeFamily::parse(r.op, r.spec, r.dense, r.conv);
  if (r.opts.trials < 1)
    throw UserError("--trials must be at least 1 (got " + std::to_string(r.opts.trials) + ")");
  if (r.opts.reps < 1) throw UserError("--reps must be at least 1");
  std::string out = r.dispatch;
  if (out.empty() && !r.db.empty()) out = tn::dispatch_path(r.db);
  if (out.empty())
    throw UserError("--family needs --db FILE (the table goes to FILE.dispatch.json) or "
                    "--dispatch FILE");
  tn::Database db(r.db);  // a corrupt database stops here, untouched
  auto progress = [&](const std::string& line) {
    if (!r.quiet) std::cerr << line << std::endl;
  };
  tn::DispatchTable table = tn::tune_family(fam, r.config, r.platform, r.opts,
                                            r.db.empty() ? nullptr : &db, progress);
  db.commit();
  table.save(out);
  std::vector<int64_t> serves(table.kernels.size(), 0);
  for (const auto& [v, i] : table.kernel_of) ++serves[i];
  nlohmann::json j = {{"family", fam.to_json()}, {"target", table.target.to_json()},
                      {"trials", table.trials}, {"members", table.kernel_of.size()},
                      {"dispatch", out}, {"db", r.db}, {"kernels", nlohmann::json::array()}};
  for (size_t i = 0; i < table.kernels.size(); ++i) {
    nlohmann::json k = table.kernels[i].to_json();
    k["serves"] = serves[i];
    j["kernels"].push_back(k);
  }
  const std::string text = j.dump(2) + "\n";
  if (r.summary.empty())
    std::cout << text;
  else
    rt::write_text_file(r.summary, text);
}

}  // namespace weft::cli
