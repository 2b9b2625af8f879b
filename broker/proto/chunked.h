#pragma once
// Follows a chunked body (RFC 9112 7.1) byte by byte without changing it, so the proxy
// can relay it verbatim and still know exactly where the message ends and whether its
// framing is sound. Pure; fuzzed with the head parser.
//
// Rejected ("bad chunking"): a size that is not hex or has more than 15 digits, a
// chunk-size line or trailer section longer than its cap, a bare LF or CR, data not
// followed by CRLF.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace halo::broker::proto {

class ChunkedScanner {
 public:
  static constexpr std::size_t kMaxLineBytes = 4096;
  explicit ChunkedScanner(std::size_t max_trailer_bytes = 64 * 1024)
      : max_trailer_(max_trailer_bytes) {}

  struct Step {
    std::size_t consumed = 0;  // bytes of `data` that belong to this body
    bool done = false;         // the body ended within `consumed`
    const char* error = nullptr;  // static text; the stream is unusable after
  };
  // Feeds the next bytes; stops at the end of the body (done) or on an error.
  Step feed(std::string_view data);
  bool done() const { return state_ == State::done; }

 private:
  enum class State : std::uint8_t {
    size, ext, size_lf, data, data_cr, data_lf, trailer_line, trailer_lf, last_lf, done
  };
  State state_ = State::size;
  std::uint64_t remaining_ = 0;
  std::size_t digits_ = 0;
  std::size_t line_ = 0;
  std::size_t trailer_ = 0;
  std::size_t max_trailer_;
};

}  // namespace halo::broker::proto
