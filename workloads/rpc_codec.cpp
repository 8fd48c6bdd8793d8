// --protocol rpc: refserver's framed request/response (core/rpc_protocol.hpp).
#include "core/rpc_protocol.hpp"
#include "workloads/codec.hpp"

namespace wb {
namespace {

rpc::Op to_rpc(OpKind k) {
  switch (k) {
    case OpKind::kRead: return rpc::Op::kRead;
    case OpKind::kWrite: return rpc::Op::kWrite;
    case OpKind::kMetadata: return rpc::Op::kMetadata;
    default: return rpc::Op::kNoop;
  }
}

class RpcCodec final : public Codec {
 public:
  void encode(const Operation& op, std::uint64_t id, std::string& out) const override {
    rpc::Request r;
    r.op = to_rpc(op.kind);
    r.flags = op.sequential ? rpc::kFlagSequential : 0;
    r.size = op.size;
    r.id = id;
    r.file = op.key;
    r.offset = op.offset;
    auto head = rpc::encode_request(r);
    out.append(reinterpret_cast<const char*>(head.data()), head.size());
    if (r.op == rpc::Op::kWrite) out.append(r.size, '\0');
  }

  Parsed parse(std::string_view in, std::uint64_t id) const override {
    Parsed p;
    if (in.size() < rpc::kLengthSize) return p;
    const auto* b = reinterpret_cast<const std::uint8_t*>(in.data());
    std::uint32_t len = rpc::get_u32(b);
    if (len < rpc::kResponseHeaderSize || len > rpc::kMaxFrame) return parse_protocol_error();
    std::size_t total = rpc::kLengthSize + len;
    if (in.size() < total) {
      p.length = total;
      return p;
    }
    if (rpc::get_u64(b + rpc::kLengthSize) != id) return parse_protocol_error();
    p.done = true;
    p.length = total;
    auto status = static_cast<rpc::Status>(b[rpc::kLengthSize + 8]);
    if (status != rpc::Status::kOk) {
      p.ok = false;
      p.error = ErrorKind::kServer;
    }
    return p;
  }
};

}  // namespace

std::unique_ptr<Codec> make_rpc_codec() { return std::make_unique<RpcCodec>(); }

}  // namespace wb
