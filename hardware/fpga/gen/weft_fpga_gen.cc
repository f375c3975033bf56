// weft-fpga-gen OUT_DIR CONFIG RTL_FILE...: writes kernel.xml, package_xo.tcl and the v++ link
// configurations of CONFIG into OUT_DIR (hardware/fpga/fpga_files.h).
// weft-fpga-gen --xclbin FILE: writes the synthetic .xclbin (hardware/fpga/xclbin.h).
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "hardware/fpga/fpga_files.h"
#include "hardware/fpga/xclbin.h"

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--xclbin") {
    const std::vector<uint8_t> b = weft::fpga::synthetic_xclbin();
    std::ofstream f(argv[2], std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    if (!f) {
      std::fprintf(stderr, "weft-fpga-gen: cannot write %s\n", argv[2]);
      return 1;
    }
    return 0;
  }
  if (argc < 4) {
    std::fprintf(stderr, "usage: weft-fpga-gen OUT_DIR CONFIG RTL_FILE...\n");
    return 1;
  }
  const std::string dir = argv[1];
  std::vector<std::string> files(argv + 3, argv + argc);
  for (const auto& [name, text] : weft::fpga::generated_files(argv[2], files)) {
    std::ofstream f(dir + "/" + name);
    f << text;
    if (!f) {
      std::fprintf(stderr, "weft-fpga-gen: cannot write %s/%s\n", dir.c_str(), name.c_str());
      return 1;
    }
  }
  return 0;
}
