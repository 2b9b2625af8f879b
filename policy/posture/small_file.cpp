// read_small_file (small_file.h).
#include "policy/posture/small_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace halo::posture {

SmallFile read_small_file(const std::string& path, std::size_t cap) {
  SmallFile out;
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0) {
    out.status = errno == ENOENT || errno == ENOTDIR ? SmallFile::Status::absent
                                                     : SmallFile::Status::unreadable;
    return out;
  }
  out.symlink = S_ISLNK(lst.st_mode);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    out.status = errno == ENOENT ? SmallFile::Status::absent : SmallFile::Status::unreadable;
    return out;  // e.g. a dangling symlink or a loop
  }
  if (!S_ISREG(st.st_mode)) {
    out.status = SmallFile::Status::not_regular;
    return out;
  }
  if (static_cast<std::size_t>(st.st_size) > cap) {
    out.status = SmallFile::Status::too_large;
    return out;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    out.status = SmallFile::Status::unreadable;
    return out;
  }
  struct stat fst {};
  if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
    ::close(fd);
    out.status = SmallFile::Status::not_regular;
    return out;
  }
  std::string buf(cap + 1, '\0');
  std::size_t got = 0;
  while (got < buf.size()) {
    const ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      out.status = SmallFile::Status::unreadable;
      return out;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (got > cap) {
    out.status = SmallFile::Status::too_large;
    return out;
  }
  buf.resize(got);
  out.content = std::move(buf);
  out.status = SmallFile::Status::read;
  return out;
}

const char* describe(SmallFile::Status s) {
  switch (s) {
    case SmallFile::Status::read: return "read";
    case SmallFile::Status::absent: return "absent";
    case SmallFile::Status::not_regular: return "skipped: not a regular file";
    case SmallFile::Status::too_large: return "skipped: larger than 1 MiB";
    case SmallFile::Status::unreadable: return "skipped: cannot be read";
  }
  return "?";
}

}  // namespace halo::posture
