// The wire-format scanner of set_aside_weights.h. Field numbers are onnx.proto's:
// ModelProto.graph = 7, GraphProto.initializer = 5; TensorProto: dims = 1, data_type = 2,
// segment = 3, the typed value fields 4-7 and 10-11, name = 8, raw_data = 9,
// external_data = 13, data_location = 14.
#include "compiler/graph/onnx/set_aside_weights.h"

#include <limits>

namespace weft::compiler::onnx_import {
namespace {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorDims = 1, kTensorDataType = 2, kTensorName = 8, kTensorRawData = 9;

// TensorProto element types set aside, with their sizes: the weights' types. Integer shape
// data (int32, int64), which shape inference reads, always stays in the skeleton.
size_t set_aside_element_bytes(int64_t type) {
  switch (type) {
    case 1:
      return 4;  // FLOAT
    case 2:
    case 3:
      return 1;  // UINT8, INT8
    default:
      return 0;
  }
}

// A cursor over [p, end); every read checks the bounds and says false at a malformed byte.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;

  bool varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end) return false;
      const uint8_t b = *p++;
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }

  // One field: its number, wire type and, for a LEN field, its payload [*body, *body_end).
  bool field(uint32_t* number, uint32_t* wire, const uint8_t** body, const uint8_t** body_end) {
    uint64_t tag;
    if (!varint(&tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return false;
    *number = static_cast<uint32_t>(tag >> 3);
    *wire = static_cast<uint32_t>(tag & 7);
    uint64_t v;
    switch (*wire) {
      case kVarint:
        return varint(&v);
      case kFixed64:
        return skip(8);
      case kFixed32:
        return skip(4);
      case kLen:
        if (!varint(&v) || v > static_cast<uint64_t>(end - p)) return false;
        *body = p;
        p += v;
        *body_end = p;
        return true;
      default:
        return false;  // groups (deprecated) and undefined wire types
    }
  }

  bool skip(size_t n) {
    if (static_cast<size_t>(end - p) < n) return false;
    p += n;
    return true;
  }
};

void put_varint(uint64_t v, std::vector<uint8_t>* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

void put_len_field(uint32_t number, const std::vector<uint8_t>& body, std::vector<uint8_t>* out) {
  put_varint(static_cast<uint64_t>(number) << 3 | kLen, out);
  put_varint(body.size(), out);
  out->insert(out->end(), body.begin(), body.end());
}

// The initializer in [p, end) as a weight to set aside; false when it is not one (it has
// fields other than its name, shape, type and one raw_data, or its bytes do not fill its shape
// exactly: the loader's own checks then name it) or is malformed.
bool as_weight(const uint8_t* p, const uint8_t* end, SetAsideWeight* w) {
  Reader r{p, end};
  int raw_fields = 0;
  int64_t type = 0;
  while (r.p != r.end) {
    const uint8_t* start = r.p;
    uint32_t number, wire;
    const uint8_t *body = nullptr, *body_end = nullptr;
    if (!r.field(&number, &wire, &body, &body_end)) return false;
    if (number == kTensorDims && wire == kVarint) {
      Reader v{start, r.p};
      uint64_t tag, d;
      v.varint(&tag);
      v.varint(&d);
      w->dims.push_back(static_cast<int64_t>(d));
    } else if (number == kTensorDims && wire == kLen) {  // packed
      Reader v{body, body_end};
      uint64_t d;
      while (v.p != v.end) {
        if (!v.varint(&d)) return false;
        w->dims.push_back(static_cast<int64_t>(d));
      }
    } else if (number == kTensorDataType && wire == kVarint) {
      Reader v{start, r.p};
      uint64_t tag, t;
      v.varint(&tag);
      v.varint(&t);
      type = static_cast<int64_t>(t);
    } else if (number == kTensorName && wire == kLen) {
      w->name.assign(reinterpret_cast<const char*>(body), body_end - body);
    } else if (number == kTensorRawData && wire == kLen) {
      ++raw_fields;
      w->data = body;
      w->size = static_cast<size_t>(body_end - body);
    } else {
      return false;  // doc_string, segment, typed values, external data: parsed as they are
    }
  }
  const size_t eb = set_aside_element_bytes(type);
  if (raw_fields != 1 || eb == 0 || w->size < kSetAsideMinBytes) return false;
  size_t want = eb;
  for (int64_t d : w->dims) {
    if (d <= 0 || want > std::numeric_limits<size_t>::max() / static_cast<size_t>(d)) return false;
    want *= static_cast<size_t>(d);
  }
  w->data_type = static_cast<int32_t>(type);
  w->element_bytes = eb;
  return want == w->size;
}

// The graph in [p, end) without its weights, appended to `out`; the weights to `weights`.
bool strip_graph(const uint8_t* p, const uint8_t* end, std::vector<uint8_t>* out,
                 std::vector<SetAsideWeight>* weights) {
  Reader r{p, end};
  while (r.p != r.end) {
    const uint8_t* start = r.p;
    uint32_t number, wire;
    const uint8_t *body = nullptr, *body_end = nullptr;
    if (!r.field(&number, &wire, &body, &body_end)) return false;
    SetAsideWeight w;
    if (number == kGraphInitializer && wire == kLen && as_weight(body, body_end, &w)) {
      weights->push_back(std::move(w));
      continue;
    }
    out->insert(out->end(), start, r.p);
  }
  return true;
}

}  // namespace

bool set_aside_weights(const uint8_t* data, size_t size, SetAside* out) {
  if (data == nullptr || size == 0) return false;
  SetAside result;
  Reader r{data, data + size};
  while (r.p != r.end) {
    const uint8_t* start = r.p;
    uint32_t number, wire;
    const uint8_t *body = nullptr, *body_end = nullptr;
    if (!r.field(&number, &wire, &body, &body_end)) return false;
    if (number == kModelGraph && wire == kLen) {
      std::vector<uint8_t> graph;
      if (!strip_graph(body, body_end, &graph, &result.weights)) return false;
      put_len_field(kModelGraph, graph, &result.skeleton);
    } else {
      result.skeleton.insert(result.skeleton.end(), start, r.p);
    }
  }
  if (result.weights.empty()) return false;
  *out = std::move(result);
  return true;
}

}  // namespace weft::compiler::onnx_import
