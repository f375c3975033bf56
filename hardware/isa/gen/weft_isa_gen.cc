// weft-isa-gen: writes the generated C++ header and SystemVerilog packages of the shipped
// configurations into a folder (hardware/isa/generated/ by the `isa-regen` target), or prints
// the SystemVerilog package of any configuration (a shipped name or a configuration file;
// scripts/synth/synth.sh uses it for files).
#include <fstream>
#include <iostream>

#include "hardware/isa/codegen.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"

int main(int argc, char** argv) {
  const std::string a1 = argc > 1 ? argv[1] : "";
  if (argc < 2 || argc > 3 || a1 == "--help" || (a1 == "--sv") != (argc == 3)) {
    std::cerr << "usage: weft-isa-gen OUT_DIR\n"
                 "       weft-isa-gen --sv CONFIG\n"
                 "Writes weft_isa_generated.h and weft_pkg_<config>.sv for every shipped "
                 "configuration, or prints the\nSystemVerilog package of CONFIG (a shipped "
                 "name or a configuration file).\n";
    return a1 == "--help" ? 0 : 2;
  }
  try {
    if (a1 == "--sv") {
      std::cout << weft::isa::sv_package(weft::isa::layout_for(argv[2]));
      return 0;
    }
    for (const auto& [name, text] : weft::isa::generated_files()) {
      const std::string path = a1 + "/" + name;
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
