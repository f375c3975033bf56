// Fuzz target: the tuning files `weft tune` writes and `weft run --tune-db` reads
// (runtime/tune): the JSON-lines database (read from a file, as it is: the shared lock, the
// line-numbered errors, a last line cut short by an interrupted append) and the shape-generic
// dispatch table. The first byte picks the reader. The oracle for a database that loads: every
// record prints and reads back to the same JSON, and one more record appended and committed
// reloads as one more record, with nothing skipped (a cut last line was cut off, a complete one
// without its newline ended). A dispatch table that loads prints and reads back the same.
// Anything else must be a UserError.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "fuzz/fuzz_common.h"
#include "hardware/isa/errors.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/database.h"
#include "runtime/tune/shape_generic.h"

using namespace weft;
namespace tn = rt::tune;

namespace {

void database(const std::string& text) {
  static const std::string path = "/tmp/weft_fuzz_db_" + std::to_string(getpid()) + ".jsonl";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  size_t before = 0;
  try {
    tn::Database db(path);
    before = db.size();
    for (const tn::TuningRecord& r : db.all()) {
      const nlohmann::json j = r.to_json();
      fuzz::check(tn::TuningRecord::from_json(j).to_json() == j, "a record's JSON round trip");
    }
    tn::TuningRecord r;
    r.workload = tn::dense_workload({8, 8, 8});
    r.target = tn::accel_target("gemm8x8", "sim");
    r.value = 1;
    r.unit = "cycles";
    db.add(r);
    db.commit();
  } catch (const UserError&) {
    return;
  }
  const tn::Database again(path);
  fuzz::check(again.size() == before + 1, "a commit after a load: " + std::to_string(before) +
                                              " + 1 records, reloaded " +
                                              std::to_string(again.size()));
  fuzz::check(again.skipped_lines() == 0, "a line skipped after a commit");
}

void dispatch_table(const std::string& text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return;  // DispatchTable::load reports "not JSON"
  }
  try {
    const tn::DispatchTable t = tn::DispatchTable::from_json(doc);
    const nlohmann::json j = t.to_json();
    fuzz::check(tn::DispatchTable::from_json(j).to_json() == j, "a dispatch table's round trip");
  } catch (const UserError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 16384) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] & 1) {
    database(text);
  } else {
    dispatch_table(text);
  }
  return 0;
}
