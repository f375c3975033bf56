// AXI memory timing; see axi_memory.h.
#include "simulator/memory/axi_memory.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "hardware/isa/errors.h"

namespace weft::sim {

Burst first_burst(const isa::Platform& p, uint64_t addr, uint64_t end) {
  // The bus width is a power of two (AxiMemory checks it): masks and shifts, not divisions
  // (this runs once per burst, millions of times for a transformer).
  const uint64_t w = static_cast<uint64_t>(p.axi_data_bits / 8);
  const int w_log2 = __builtin_ctzll(w);
  const uint64_t max_bytes = w * static_cast<uint64_t>(p.max_burst_beats);
  const uint64_t aligned = addr & ~(w - 1);
  const uint64_t limit = std::min({aligned + max_bytes, (aligned | 4095) + 1, end});
  Burst b;
  b.aligned_addr = aligned;
  b.beats = static_cast<uint32_t>((limit - aligned + w - 1) >> w_log2);
  b.first_byte = addr;
  b.nbytes = limit - addr;
  return b;
}

void split_bursts(const isa::Platform& p, uint64_t addr, uint64_t nbytes, std::vector<Burst>& out) {
  const uint64_t end = addr + nbytes;
  for (uint64_t pos = addr; pos < end; pos += out.back().nbytes)
    out.push_back(first_burst(p, pos, end));
}

AxiMemory::AxiMemory(const isa::Platform& p) : p_(p) {
  if (p.axi_data_bits < 32 || (p.axi_data_bits & (p.axi_data_bits - 1)) != 0 ||
      p.axi_data_bits > 1024) {
    throw UserError("platform '" + p.name + "': axi_data_bits = " +
                    std::to_string(p.axi_data_bits) + " must be a power of two in 32..1024");
  }
  if (p.max_outstanding_reads < 1 || p.max_outstanding_writes < 1 || p.max_burst_beats < 1 ||
      p.max_burst_beats > 256 || p.read_latency < 1 || p.write_latency < 1 ||
      p.axi_data_bits / 8 * p.max_burst_beats < 16) {
    throw UserError("platform '" + p.name +
                    "': latencies and outstanding limits must be at least 1, bursts 1..256 beats "
                    "and at least one 16-byte instruction long");
  }
}

uint64_t AxiMemory::next_read_slot(uint64_t cycle) {
  read_last_beat_.drop_before(cycle);
  if (read_last_beat_.size() < static_cast<size_t>(p_.max_outstanding_reads)) return cycle;
  // Full: the oldest burst frees its slot the cycle after its last beat.
  return read_last_beat_[read_last_beat_.size() - p_.max_outstanding_reads] + 1;
}

uint64_t AxiMemory::accept_read(uint64_t cycle, uint32_t beats, const BurstSource& source) {
  if (next_read_slot(cycle) != cycle) throw InternalError("read burst accepted without a slot");
  const uint64_t first = std::max(cycle + static_cast<uint64_t>(p_.read_latency), r_free_);
  if (faults_) inject(AxiChannel::kRead, cycle, first, beats, read_bursts_, source);
  r_free_ = first + beats;
  read_last_beat_.push_back(first + beats - 1);
  ++read_bursts_;
  read_beats_ += beats;
  return first;
}

uint64_t AxiMemory::next_write_slot(uint64_t cycle) {
  write_resp_.drop_before(cycle);
  if (write_resp_.size() < static_cast<size_t>(p_.max_outstanding_writes)) return cycle;
  return write_resp_[write_resp_.size() - p_.max_outstanding_writes] + 1;
}

uint64_t AxiMemory::accept_write(uint64_t cycle, uint32_t beats, const BurstSource& source) {
  if (next_write_slot(cycle) != cycle) throw InternalError("write burst accepted without a slot");
  const uint64_t resp = cycle + beats - 1 + static_cast<uint64_t>(p_.write_latency);
  if (faults_) inject(AxiChannel::kWrite, cycle, resp, beats, write_bursts_, source);
  write_resp_.push_back(resp);
  ++write_bursts_;
  write_beats_ += beats;
  return resp;
}

void AxiMemory::inject(AxiChannel ch, uint64_t cycle, uint64_t answer, uint32_t beats,
                       uint64_t index, const BurstSource& source) const {
  const uint64_t bus = static_cast<uint64_t>(p_.axi_data_bits / 8);
  const uint64_t lo = source.addr, hi = source.addr / bus * bus + uint64_t{beats} * bus;
  for (const AxiFault& f : faults_->faults) {
    if (f.channel != ch || hi <= f.addr_lo || lo >= f.addr_hi) continue;
    if (f.burst >= 0 && static_cast<uint64_t>(f.burst) != index) continue;
    const bool read = ch == AxiChannel::kRead;
    char addr[32];
    std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(lo));
    std::string who = source.module
                          ? std::string("the ") + source.module +
                                (std::string(source.module) == "fetch" ? " unit" : " module")
                          : std::string("an unknown requester");
    if (source.insn >= 0) who += " (instruction " + std::to_string(source.insn) + ")";
    std::string msg = std::string("AXI ") + (read ? "read" : "write") + " burst " +
                      std::to_string(index) + " of " + who + " at address " + addr + " (" +
                      std::to_string(beats) + " beats, accepted at cycle " + std::to_string(cycle) +
                      ") ";
    switch (f.kind) {
      case AxiFaultKind::kSlvErr:
        msg += std::string("was answered SLVERR (slave error) on ") + (read ? "RRESP" : "BRESP") +
               " at cycle " + std::to_string(answer);
        break;
      case AxiFaultKind::kDecErr:
        msg += std::string("was answered DECERR (decode error: no slave at that address) on ") +
               (read ? "RRESP" : "BRESP") + " at cycle " + std::to_string(answer);
        break;
      case AxiFaultKind::kNoResponse:
        msg += "got no response within " + std::to_string(faults_->response_timeout) +
               " cycles (the memory system gave up at cycle " +
               std::to_string(cycle + faults_->response_timeout) + ")";
        break;
    }
    throw BusFault(source.insn, msg + "; the run stopped (injected fault)");
  }
}

}  // namespace weft::sim
