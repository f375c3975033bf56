// Queue naming and the module/flag-to-queue mapping; see tokens.h.
#include "hardware/isa/tokens.h"

namespace weft::isa {

const char* queue_name(TokenQueue q) {
  switch (q) {
    case TokenQueue::kLoadToCompute:
      return "load->compute";
    case TokenQueue::kComputeToLoad:
      return "compute->load";
    case TokenQueue::kComputeToStore:
      return "compute->store";
    case TokenQueue::kStoreToCompute:
      return "store->compute";
  }
  return "?";
}

std::optional<TokenQueue> queue_between(Module from, Module to) {
  if (from == Module::kLoad && to == Module::kCompute) return TokenQueue::kLoadToCompute;
  if (from == Module::kCompute && to == Module::kLoad) return TokenQueue::kComputeToLoad;
  if (from == Module::kCompute && to == Module::kStore) return TokenQueue::kComputeToStore;
  if (from == Module::kStore && to == Module::kCompute) return TokenQueue::kStoreToCompute;
  return std::nullopt;
}

std::optional<TokenQueue> pop_queue(Module m, bool prev) {
  switch (m) {
    case Module::kLoad:
      if (prev) return std::nullopt;
      return TokenQueue::kComputeToLoad;
    case Module::kCompute:
      return prev ? TokenQueue::kLoadToCompute : TokenQueue::kStoreToCompute;
    case Module::kStore:
      if (!prev) return std::nullopt;
      return TokenQueue::kComputeToStore;
  }
  return std::nullopt;
}

std::optional<TokenQueue> push_queue(Module m, bool prev) {
  switch (m) {
    case Module::kLoad:
      if (prev) return std::nullopt;
      return TokenQueue::kLoadToCompute;
    case Module::kCompute:
      return prev ? TokenQueue::kComputeToLoad : TokenQueue::kComputeToStore;
    case Module::kStore:
      if (!prev) return std::nullopt;
      return TokenQueue::kStoreToCompute;
  }
  return std::nullopt;
}

Module producer(TokenQueue q) {
  switch (q) {
    case TokenQueue::kLoadToCompute:
      return Module::kLoad;
    case TokenQueue::kComputeToLoad:
    case TokenQueue::kComputeToStore:
      return Module::kCompute;
    case TokenQueue::kStoreToCompute:
      return Module::kStore;
  }
  return Module::kCompute;
}

Module consumer(TokenQueue q) {
  switch (q) {
    case TokenQueue::kComputeToLoad:
      return Module::kLoad;
    case TokenQueue::kLoadToCompute:
    case TokenQueue::kStoreToCompute:
      return Module::kCompute;
    case TokenQueue::kComputeToStore:
      return Module::kStore;
  }
  return Module::kCompute;
}

bool has_neighbour(Module m, bool prev) { return pop_queue(m, prev).has_value(); }

}  // namespace weft::isa
