#include <gtest/gtest.h>

#include <string>

#include "broker/proto/chunked.h"

namespace halo::broker::proto {
namespace {

TEST(Chunked, Rows) {
  struct Row {
    const char* name;
    std::string body;
    bool done;
    const char* error;  // nullptr: no error
    std::size_t consumed;
  };
  const Row rows[] = {
      {"simple", "5\r\nhello\r\n0\r\n\r\n", true, nullptr, 15},
      {"extension", "5;x=y\r\nhello\r\n0\r\n\r\n", true, nullptr, 19},
      {"trailer", "1\r\na\r\n0\r\nX-T: 1\r\n\r\n", true, nullptr, 19},
      {"pipelined rest", "0\r\n\r\nGET", true, nullptr, 5},
      {"upper hex", "A\r\n0123456789\r\n0\r\n\r\n", true, nullptr, 20},
      {"partial", "5\r\nhel", false, nullptr, 6},
      {"not hex", "g\r\n", false, "chunk size is not hex", 0},
      {"negative", "-1\r\n", false, "chunk size is not hex", 0},
      {"too large", "1000000000000000\r\n", false, "chunk size too large", 15},
      {"missing crlf after data", "1\r\nab\r\n", false, "chunk data not followed by CRLF", 4},
      {"bare lf size", "1\na\r\n", false, "invalid byte after chunk size", 1},
      {"bare lf in ext", "1;x\na\r\n", false, "bare LF in chunk size line", 3},
      {"bare cr", "1\rX", false, "bare CR in chunk size line", 2},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    ChunkedScanner s;
    auto step = s.feed(row.body);
    EXPECT_EQ(step.done, row.done);
    if (row.error) {
      ASSERT_NE(step.error, nullptr);
      EXPECT_STREQ(step.error, row.error);
    } else {
      EXPECT_EQ(step.error, nullptr) << step.error;
    }
    EXPECT_EQ(step.consumed, row.consumed);
  }
}

TEST(Chunked, ByteByByteEqualsWhole) {
  std::string body = "4\r\nwiki\r\n5;a=b\r\npedia\r\n0\r\nT: v\r\n\r\n";
  ChunkedScanner s;
  std::size_t total = 0;
  bool done = false;
  for (char c : body) {
    auto step = s.feed(std::string_view(&c, 1));
    ASSERT_EQ(step.error, nullptr);
    total += step.consumed;
    done = step.done;
    if (done) break;
  }
  EXPECT_TRUE(done);
  EXPECT_EQ(total, body.size());
}

TEST(Chunked, TrailerCap) {
  ChunkedScanner s(16);
  auto step = s.feed("0\r\nX-Long-Trailer: 0123456789\r\n\r\n");
  ASSERT_NE(step.error, nullptr);
  EXPECT_STREQ(step.error, "trailer section too long");
}

}  // namespace
}  // namespace halo::broker::proto
