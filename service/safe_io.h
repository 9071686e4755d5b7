// Reading files a workspace controls (compile_commands.json, cache entries,
// source text: a checked file, a header a fence goes in, a `#line` path)
// without blocking or exhausting memory: only regular files are read (a FIFO,
// a device or a symlink to /dev/stdin is refused without blocking: the open is
// non-blocking and fstat decides), and only up to a size cap.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>

namespace tsocheck {

// The contents of `path`, or nullopt with *why set. noFollow refuses a
// symlink at the last component (O_NOFOLLOW).
inline std::optional<std::string> readRegularFile(const std::string& path, size_t maxBytes, std::string* why = nullptr,
                                                  bool noFollow = false) {
  auto fail = [&](const std::string& w) -> std::optional<std::string> {
    if (why) *why = w;
    return std::nullopt;
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (noFollow ? O_NOFOLLOW : 0));
  if (fd < 0) return fail(errno == ELOOP ? "is a symbolic link" : "cannot be opened");
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("is not a regular file");
  }
  if (size_t(st.st_size) > maxBytes) {
    ::close(fd);
    return fail("is larger than " + std::to_string(maxBytes >> 20) + " MiB");
  }
  std::string out;
  out.resize(size_t(st.st_size));
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, &out[got], out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the file shrank meanwhile: keep what was read
    got += size_t(n);
  }
  ::close(fd);
  out.resize(got);
  return out;
}

// Source text is read only through this: a `#line N "PATH"` directive can
// name any path (/dev/zero, /dev/stdin, a FIFO), and a header can be replaced
// by one after a check.
inline constexpr size_t kMaxSourceBytes = size_t(64) << 20;
inline std::optional<std::string> readSourceFile(const std::string& path, std::string* why = nullptr) {
  return readRegularFile(path, kMaxSourceBytes, why);
}

}  // namespace tsocheck
