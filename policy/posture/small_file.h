#pragma once
// Reads a small regular file without ever blocking or reading more than a cap.
#include <cstddef>
#include <string>

namespace halo::posture {

struct SmallFile {
  enum class Status { read, absent, not_regular, too_large, unreadable };
  Status status = Status::absent;
  bool symlink = false;  // the path was a symlink (followed)
  std::string content;   // only when status == read
};

// stat first (a FIFO or device is never opened), then open O_RDONLY|O_NONBLOCK|O_NOCTTY,
// fstat the descriptor again (the path may have changed), and read at most `cap` bytes;
// a file that turns out longer is too_large.
SmallFile read_small_file(const std::string& path, std::size_t cap);

const char* describe(SmallFile::Status s);

}  // namespace halo::posture
