#pragma once
// Where the DNS filter sends the questions it forwards (allowed names, types other than
// A/AAAA, or A/AAAA in real mode). Small on purpose so tests use a hand-written fake.
#include <cstdint>
#include <functional>
#include <system_error>
#include <vector>

namespace halo::dns {

class Upstream {
 public:
  using Callback = std::function<void(std::error_code, std::vector<std::uint8_t> answer)>;
  virtual ~Upstream() = default;
  // Sends one query (a complete DNS message). `done` is called exactly once, on any
  // thread, with the raw answer or an error; the implementation bounds the wait
  // (a deadline per try, a number of tries) and calls `done` with an error when it ends.
  virtual void send(std::vector<std::uint8_t> query, Callback done) = 0;
};

}  // namespace halo::dns
