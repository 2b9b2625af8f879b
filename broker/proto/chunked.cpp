#include "broker/proto/chunked.h"

#include <algorithm>

namespace halo::broker::proto {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

ChunkedScanner::Step ChunkedScanner::feed(std::string_view data) {
  Step step;
  std::size_t i = 0;
  auto fail = [&](const char* why) {
    step.consumed = i;
    step.error = why;
    return step;
  };
  while (i < data.size() && state_ != State::done) {
    char c = data[i];
    switch (state_) {
      case State::size: {
        int h = hex_value(c);
        if (h >= 0) {
          if (++digits_ > 15) return fail("chunk size too large");
          remaining_ = remaining_ * 16 + static_cast<std::uint64_t>(h);
        } else if (digits_ == 0) {
          return fail("chunk size is not hex");
        } else if (c == ';' || c == ' ' || c == '\t') {
          state_ = State::ext;
        } else if (c == '\r') {
          state_ = State::size_lf;
        } else {
          return fail("invalid byte after chunk size");
        }
        if (++line_ > kMaxLineBytes) return fail("chunk size line too long");
        ++i;
        break;
      }
      case State::ext:
        if (c == '\n') return fail("bare LF in chunk size line");
        if (c == '\r') state_ = State::size_lf;
        if (++line_ > kMaxLineBytes) return fail("chunk size line too long");
        ++i;
        break;
      case State::size_lf:
        if (c != '\n') return fail("bare CR in chunk size line");
        ++i;
        line_ = 0;
        digits_ = 0;
        if (remaining_ == 0) {
          state_ = State::trailer_line;
        } else {
          state_ = State::data;
        }
        break;
      case State::data: {
        std::size_t n = static_cast<std::size_t>(
            std::min<std::uint64_t>(remaining_, data.size() - i));
        i += n;
        remaining_ -= n;
        if (remaining_ == 0) state_ = State::data_cr;
        break;
      }
      case State::data_cr:
        if (c != '\r') return fail("chunk data not followed by CRLF");
        state_ = State::data_lf;
        ++i;
        break;
      case State::data_lf:
        if (c != '\n') return fail("chunk data not followed by CRLF");
        state_ = State::size;
        ++i;
        break;
      case State::trailer_line:
        // At the start of a trailer line: CR here means the empty line ending the body.
        if (c == '\r' && line_ == 0) {
          state_ = State::last_lf;
        } else if (c == '\r') {
          state_ = State::trailer_lf;
        } else if (c == '\n') {
          return fail("bare LF in trailer");
        } else {
          ++line_;
        }
        if (++trailer_ > max_trailer_) return fail("trailer section too long");
        ++i;
        break;
      case State::trailer_lf:
        if (c != '\n') return fail("bare CR in trailer");
        state_ = State::trailer_line;
        line_ = 0;
        ++i;
        break;
      case State::last_lf:
        if (c != '\n') return fail("bare CR at end of chunked body");
        state_ = State::done;
        ++i;
        break;
      case State::done:
        break;
    }
  }
  step.consumed = i;
  step.done = state_ == State::done;
  return step;
}

}  // namespace halo::broker::proto
