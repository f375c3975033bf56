// weft-isa-gen: writes the generated C++ header and SystemVerilog packages of the hardware
// spec into a folder (hardware/isa/generated/ by the `isa-regen` target).
#include <fstream>
#include <iostream>

#include "hardware/isa/codegen.h"
#include "hardware/isa/errors.h"

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) == "--help") {
    std::cerr << "usage: weft-isa-gen OUT_DIR\n"
                 "Writes weft_isa_generated.h and weft_pkg_<config>.sv for every shipped "
                 "configuration.\n";
    return argc == 2 ? 0 : 2;
  }
  try {
    for (const auto& [name, text] : weft::isa::generated_files()) {
      const std::string path = std::string(argv[1]) + "/" + name;
      std::ofstream out(path, std::ios::binary);
      out << text;
      if (!out) {
        std::cerr << "weft-isa-gen: error: cannot write " << path << "\n";
        return 1;
      }
      std::cout << "wrote " << path << "\n";
    }
  } catch (const weft::UserError& e) {
    std::cerr << "weft-isa-gen: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
