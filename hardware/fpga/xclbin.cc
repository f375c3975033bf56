// The axlf reader and writer; see xclbin.h. Offsets follow XRT's public xclbin.h (axlf 496
// bytes with its first section header, axlf_header 152 at 304, section headers 40 bytes).
#include "hardware/fpga/xclbin.h"

#include <cstring>
#include <ctime>
#include <regex>

#include "hardware/fpga/fpga_files.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"

namespace weft::fpga {

namespace reg = isa::reg;

namespace {

// axlf layout (byte offsets)
constexpr size_t kMagic = 0, kSigLen = 8, kUniqueId = 296, kHeader = 304;
constexpr size_t kHdrLength = kHeader + 0, kHdrTime = kHeader + 8, kHdrVersionPatch = kHeader + 24;
constexpr size_t kHdrVersionMajor = kHeader + 26, kHdrVbnv = kHeader + 48, kHdrUuid = kHeader + 112;
constexpr size_t kHdrNumSections = kHeader + 144, kSections = 456, kSectionHeader = 40;
constexpr uint32_t kEmbeddedMetadata = 2, kMemTopology = 6, kConnectivity = 7, kIpLayout = 8;
constexpr size_t kMemData = 40, kIpData = 80, kConnection = 12;

template <class T>
T get(const std::vector<uint8_t>& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}
template <class T>
void put(std::vector<uint8_t>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}
std::string cstr(const std::vector<uint8_t>& b, size_t off, size_t max) {
  std::string s;
  for (size_t i = 0; i < max && b[off + i] != 0; ++i) s += static_cast<char>(b[off + i]);
  return s;
}
void put_str(std::vector<uint8_t>& b, size_t off, const std::string& s, size_t max) {
  std::memcpy(b.data() + off, s.data(), std::min(s.size(), max - 1));
}
uint64_t parse_num(const std::string& s) { return std::stoull(s, nullptr, 0); }

}  // namespace

std::string section_name(uint32_t kind) {
  static const char* names[] = {"BITSTREAM", "CLEARING_BITSTREAM", "EMBEDDED_METADATA",
                                "FIRMWARE", "DEBUG_DATA", "SCHED_FIRMWARE", "MEM_TOPOLOGY",
                                "CONNECTIVITY", "IP_LAYOUT", "DEBUG_IP_LAYOUT",
                                "DESIGN_CHECK_POINT", "CLOCK_FREQ_TOPOLOGY", "MCS", "BMC",
                                "BUILD_METADATA", "KEYVALUE_METADATA", "USER_METADATA",
                                "DNA_CERTIFICATE", "PDI", "BITSTREAM_PARTIAL_PDI",
                                "PARTITION_METADATA", "EMULATION_DATA", "SYSTEM_METADATA",
                                "SOFT_KERNEL", "ASK_FLASH", "AIE_METADATA",
                                "ASK_GROUP_TOPOLOGY", "ASK_GROUP_CONNECTIVITY", "SMARTNIC",
                                "AIE_RESOURCES", "OVERLAY", "VENDER_METADATA"};
  if (kind < sizeof(names) / sizeof(names[0])) return names[kind];
  return "kind " + std::to_string(kind);
}

void parse_kernel_xml(const std::string& xml, XclbinInfo& info, const std::string& file) {
  const std::regex kernel_re("<kernel\\s([^>]*)>");
  const std::regex arg_re("<arg\\s([^>]*)/?>");
  const std::regex attr_re("([A-Za-z_]+)=\"([^\"]*)\"");
  auto attrs = [&](const std::string& s) {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto it = std::sregex_iterator(s.begin(), s.end(), attr_re); it != std::sregex_iterator();
         ++it)
      out.emplace_back((*it)[1], (*it)[2]);
    return out;
  };
  std::smatch m;
  if (!std::regex_search(xml, m, kernel_re)) {
    throw UserError("'" + file + "': its kernel metadata (EMBEDDED_METADATA) names no kernel");
  }
  for (const auto& [k, v] : attrs(m[1])) {
    if (k == "name") info.kernel = v;
    if (k == "hwControlProtocol") info.control_protocol = v;
  }
  // the arguments of that first kernel: up to its closing tag
  const size_t from = static_cast<size_t>(m.position(0));
  const size_t to = xml.find("</kernel>", from);
  const std::string body = xml.substr(from, to == std::string::npos ? std::string::npos : to - from);
  for (auto it = std::sregex_iterator(body.begin(), body.end(), arg_re);
       it != std::sregex_iterator(); ++it) {
    XclbinArg a;
    try {
      for (const auto& [k, v] : attrs((*it)[1])) {
        if (k == "name") a.name = v;
        else if (k == "port") a.port = v;
        else if (k == "type") a.type = v;
        else if (k == "id") a.index = static_cast<int>(parse_num(v));
        else if (k == "offset") a.offset = static_cast<uint32_t>(parse_num(v));
        else if (k == "size") a.size = static_cast<uint32_t>(parse_num(v));
        else if (k == "addressQualifier") a.address_qualifier = static_cast<int>(parse_num(v));
      }
    } catch (const std::exception&) {
      throw UserError("'" + file + "': kernel.xml argument '" + a.name + "' has a bad number");
    }
    info.args.push_back(a);
  }
}

XclbinInfo parse_xclbin(const std::vector<uint8_t>& b, const std::string& file) {
  if (b.size() < kSections || std::memcmp(b.data() + kMagic, "xclbin2", 8) != 0) {
    throw UserError("'" + file + "' is not an .xclbin (no \"xclbin2\" magic in its first " +
                    std::to_string(kSections) + " bytes)");
  }
  XclbinInfo info;
  info.length = get<uint64_t>(b, kHdrLength);
  if (info.length > b.size()) {
    throw UserError("'" + file + "' is truncated: its header says " + std::to_string(info.length) +
                    " bytes, the file has " + std::to_string(b.size()));
  }
  info.platform = cstr(b, kHdrVbnv, 64);
  static const char* hexd = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    info.uuid += hexd[b[kHdrUuid + i] >> 4];
    info.uuid += hexd[b[kHdrUuid + i] & 15];
  }
  const uint32_t n = get<uint32_t>(b, kHdrNumSections);
  if (n > 0x10000 || kSections + uint64_t{n} * kSectionHeader > b.size()) {
    throw UserError("'" + file + "': " + std::to_string(n) + " section headers do not fit in the file");
  }
  bool have_meta = false;
  for (uint32_t s = 0; s < n; ++s) {
    const size_t h = kSections + s * kSectionHeader;
    const uint32_t kind = get<uint32_t>(b, h);
    const uint64_t off = get<uint64_t>(b, h + 24), size = get<uint64_t>(b, h + 32);
    if (off > b.size() || size > b.size() - off) {
      throw UserError("'" + file + "': section " + section_name(kind) + " [" + std::to_string(off) +
                      ", +" + std::to_string(size) + ") lies beyond the end of the file");
    }
    info.sections.emplace_back(kind, size);
    auto need = [&](uint64_t bytes) {
      if (bytes > size)
        throw UserError("'" + file + "': section " + section_name(kind) + " is truncated");
    };
    if (kind == kEmbeddedMetadata) {
      have_meta = true;
      parse_kernel_xml(std::string(b.begin() + off, b.begin() + off + size), info, file);
    } else if (kind == kMemTopology) {
      need(8);
      const int32_t c = get<int32_t>(b, off);
      need(8 + uint64_t(c < 0 ? 0 : c) * kMemData);
      for (int32_t i = 0; i < c; ++i) {
        const size_t e = off + 8 + i * kMemData;
        info.banks.push_back({cstr(b, e + 24, 16), b[e], b[e + 1] != 0, get<uint64_t>(b, e + 16),
                              get<uint64_t>(b, e + 8)});
      }
    } else if (kind == kIpLayout) {
      need(8);
      const int32_t c = get<int32_t>(b, off);
      need(8 + uint64_t(c < 0 ? 0 : c) * kIpData);
      for (int32_t i = 0; i < c; ++i) {
        const size_t e = off + 8 + i * kIpData;
        if (get<uint32_t>(b, e) != 1) continue;  // IP_KERNEL only
        const uint32_t props = get<uint32_t>(b, e + 4);
        info.cus.push_back({cstr(b, e + 16, 64), get<uint64_t>(b, e + 8),
                            static_cast<int>((props & 0xFF00) >> 8), (props & 1) != 0});
      }
    } else if (kind == kConnectivity) {
      need(4);
      const int32_t c = get<int32_t>(b, off);
      need(4 + uint64_t(c < 0 ? 0 : c) * kConnection);
      for (int32_t i = 0; i < c; ++i) {
        const size_t e = off + 4 + i * kConnection;
        info.connections.emplace_back(get<int32_t>(b, e), get<int32_t>(b, e + 8));
      }
    }
  }
  if (!have_meta) {
    throw UserError("'" + file + "' has no EMBEDDED_METADATA section (kernel.xml): it cannot "
                    "be checked against Weft's register map");
  }
  return info;
}

std::vector<std::string> check_against_register_map(const XclbinInfo& info) {
  std::vector<std::string> p;
  if (info.kernel != reg::kKernelName) {
    p.push_back("kernel '" + info.kernel + "' is not Weft's '" + reg::kKernelName + "'");
    return p;
  }
  if (info.control_protocol != "ap_ctrl_hs") {
    p.push_back("control protocol '" + info.control_protocol + "', Weft's kernel uses ap_ctrl_hs");
  }
  for (const reg::KernelArg& a : reg::kKernelArgs) {
    const XclbinArg* f = nullptr;
    for (const XclbinArg& x : info.args) {
      if (x.index == a.index) f = &x;
    }
    auto hex = [](uint64_t v) {
      char s[24];
      std::snprintf(s, sizeof s, "0x%llx", static_cast<unsigned long long>(v));
      return std::string(s);
    };
    const std::string who = "argument " + std::to_string(a.index) + " (" + a.name + ")";
    if (f == nullptr) {
      p.push_back(who + " is missing");
      continue;
    }
    if (f->name != a.name) p.push_back(who + " is called '" + f->name + "'");
    if (f->offset != a.offset)
      p.push_back(who + " is at offset " + hex(f->offset) + ", the register map has " + hex(a.offset));
    if (f->size != a.size)
      p.push_back(who + " is " + std::to_string(f->size) + " bytes, the register map has " +
                  std::to_string(a.size));
    if ((f->address_qualifier == 1) != a.pointer)
      p.push_back(who + (a.pointer ? " must be a global memory pointer" : " must be a scalar"));
    if (a.pointer && !info.connections.empty()) {
      bool connected = false;
      for (const auto& [arg, bank] : info.connections) connected = connected || arg == a.index;
      if (!connected) p.push_back(who + " is connected to no memory bank");
    }
  }
  if (info.args.size() != static_cast<size_t>(reg::kNumKernelArgs))
    p.push_back("the kernel has " + std::to_string(info.args.size()) + " arguments, the register map " +
                std::to_string(reg::kNumKernelArgs));
  return p;
}

namespace {
// What v++ embeds after linking: kernel.xml's <kernel> inside project/platform/device/core,
// with the compute unit as an <instance> whose control slave is remapped to its base address.
std::string embedded_metadata(uint64_t cu_base) {
  const std::string k = kernel_xml();
  const size_t from = k.find("<kernel "), to = k.find("</kernel>");
  char base[32];
  std::snprintf(base, sizeof base, "0x%llX", static_cast<unsigned long long>(cu_base));
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<project name=\"weft_synthetic\">\n <platform vendor=\"weft\" boardid=\"synthetic\" "
       "name=\"noop\">\n  <device name=\"fpga0\" fpgaDevice=\"synthetic\">\n   <core name=\"OCL_REGION_0\" "
       "target=\"hw\" type=\"clc_region\">\n";
  // the linked form lists ports and args directly inside <kernel>
  std::string body = k.substr(from, to - from);
  for (const char* wrap : {"    <ports>\n", "    </ports>\n", "    <args>\n", "    </args>\n"}) {
    const size_t at = body.find(wrap);
    if (at != std::string::npos) body.erase(at, std::strlen(wrap));
  }
  s += body;
  s += std::string("      <instance name=\"") + reg::kKernelName + "_1\">\n        <addrRemap base=\"" +
       base + "\" range=\"0x1000\" port=\"s_axi_control\"/>\n      </instance>\n";
  s += "    </kernel>\n   </core>\n  </device>\n </platform>\n</project>\n";
  return s;
}
constexpr uint64_t kCuBase = 0x1800000;
}  // namespace

std::vector<uint8_t> synthetic_xclbin(uint64_t bank_mb) {
  const std::string xml = embedded_metadata(kCuBase);
  struct Sec {
    uint32_t kind;
    std::string name;
    std::vector<uint8_t> data;
  };
  std::vector<Sec> secs;
  secs.push_back({kEmbeddedMetadata, "", std::vector<uint8_t>(xml.begin(), xml.end())});
  {
    std::vector<uint8_t> d(8 + kMemData, 0);
    put<int32_t>(d, 0, 1);
    d[8] = 1;  // MEM_DDR4
    d[9] = 1;  // used
    put<uint64_t>(d, 8 + 8, bank_mb * 1024);
    put<uint64_t>(d, 8 + 16, 0);
    put_str(d, 8 + 24, "bank0", 16);
    secs.push_back({kMemTopology, "", d});
  }
  {
    std::vector<uint8_t> d(8 + kIpData, 0);
    put<int32_t>(d, 0, 1);
    put<uint32_t>(d, 8, 1);                  // IP_KERNEL
    put<uint32_t>(d, 12, (0u << 8) | 1u);    // ap_ctrl_hs, interrupt enabled
    put<uint64_t>(d, 16, kCuBase);
    put_str(d, 24, std::string(reg::kKernelName) + ":" + reg::kKernelName + "_1", 64);
    secs.push_back({kIpLayout, "", d});
  }
  {
    std::vector<uint8_t> d(4, 0);
    int32_t c = 0;
    for (const reg::KernelArg& a : reg::kKernelArgs) {
      if (!a.pointer) continue;
      d.resize(d.size() + kConnection, 0);
      const size_t e = 4 + c * kConnection;
      put<int32_t>(d, e, a.index);
      put<int32_t>(d, e + 4, 0);
      put<int32_t>(d, e + 8, 0);
      ++c;
    }
    put<int32_t>(d, 0, c);
    secs.push_back({kConnectivity, "", d});
  }
  const size_t headers = kSections + secs.size() * kSectionHeader;
  size_t off = (headers + 7) / 8 * 8;
  std::vector<uint8_t> b(off, 0);
  std::memcpy(b.data() + kMagic, "xclbin2", 8);
  put<int32_t>(b, kSigLen, -1);
  std::memset(b.data() + 12, 0xFF, 28);
  put<uint64_t>(b, kUniqueId, 0);
  put<uint64_t>(b, kHdrTime, 0);
  put<uint16_t>(b, kHdrVersionPatch, 0);
  b[kHdrVersionMajor] = 2;
  put_str(b, kHdrVbnv, "weft:synthetic:noop:1.0", 64);
  // a fixed uuid derived from the register map, so that the file is reproducible
  uint64_t h = 1469598103934665603ull;
  for (char ch : xml) h = (h ^ static_cast<uint8_t>(ch)) * 1099511628211ull;
  put<uint64_t>(b, kHdrUuid, h);
  put<uint64_t>(b, kHdrUuid + 8, h * 31 + 7);
  put<uint32_t>(b, kHdrNumSections, static_cast<uint32_t>(secs.size()));
  for (size_t i = 0; i < secs.size(); ++i) {
    const size_t h0 = kSections + i * kSectionHeader;
    put<uint32_t>(b, h0, secs[i].kind);
    put_str(b, h0 + 4, section_name(secs[i].kind), 16);
    put<uint64_t>(b, h0 + 24, b.size());
    put<uint64_t>(b, h0 + 32, secs[i].data.size());
    b.insert(b.end(), secs[i].data.begin(), secs[i].data.end());
    b.resize((b.size() + 7) / 8 * 8, 0);
  }
  put<uint64_t>(b, kHdrLength, b.size());
  return b;
}

}  // namespace weft::fpga
