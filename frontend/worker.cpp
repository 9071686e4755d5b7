#include "frontend/worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <utility>

#include "frontend/wire.h"

extern char** environ;

namespace tsocheck::frontend {

namespace {

// The lowered module of a big file is a few MiB; a result above this is not
// from a sane worker.
constexpr size_t kMaxResultBytes = size_t(1) << 30;
std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

FrontendResult stoppedResult(const std::string& path, FrontendStop why, const FrontendProcess& p) {
  std::string msg;
  switch (why) {
    case FrontendStop::TimeLimit: {
      char limit[64] = "the time limit";
      if (p.timeLimitSeconds > 0) std::snprintf(limit, sizeof limit, "the time limit (%g s)", p.timeLimitSeconds);
      msg = std::string("the compiler did not finish within ") + limit +
            "; raise --time-limit (tsocheck.timeLimit in the editor)";
      break;
    }
    case FrontendStop::MemoryLimit:
      msg = "the compiler used more than " + mib(p.memoryBytes) +
            " of memory; raise --memory-limit (tsocheck.memoryLimit in the editor)";
      break;
    case FrontendStop::Cancelled:
      msg = "the check was cancelled while the file was being compiled";
      break;
    case FrontendStop::None:
      break;
  }
  FrontendResult res = fileErrorResult(path, msg);
  res.stopped = why;
  return res;
}

FrontendResult crashedResult(const std::string& path, const std::string& why) {
  return fileErrorResult(path, "the compiler crashed on this file (" + why + "); it was not checked");
}

// Resident memory of the worker that is its own: anonymous pages (resident
// minus file-backed shared pages, which are mostly the LLVM/Clang libraries).
uint64_t residentBytes(pid_t pid) {
  char name[64];
  std::snprintf(name, sizeof name, "/proc/%d/statm", int(pid));
  std::ifstream f(name);
  uint64_t size = 0, resident = 0, shared = 0;
  if (!(f >> size >> resident >> shared) || shared > resident) return 0;
  return (resident - shared) * uint64_t(sysconf(_SC_PAGESIZE));
}

struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return pipe2(fd, O_CLOEXEC) == 0; }
  void close(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  ~Pipe() {
    close(0);
    close(1);
  }
};

// A started worker: its pid and the parent's ends of its stdin, stdout and
// stderr pipes (non-blocking).
struct Started {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
  std::string worker;
};

// Starts `worker __lower PID` (PID: this process, which the worker checks
// is still its parent and dies with); on failure returns the posix_spawn error, or the
// pipe error as a negative errno.
int start(const std::string& worker, Started& w) {
  Pipe in, out, err;
  if (!in.open() || !out.open() || !err.open()) return -errno;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err.fd[1], 2);
  std::string cmd = "__lower";
  std::string parent = std::to_string(getpid());
  char* argv[] = {const_cast<char*>(worker.c_str()), cmd.data(), parent.data(), nullptr};
  const int rc = posix_spawn(&w.pid, worker.c_str(), &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return rc;
  for (int fd : {in.fd[1], out.fd[0], err.fd[0]}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  w.in = std::exchange(in.fd[1], -1);
  w.out = std::exchange(out.fd[0], -1);
  w.err = std::exchange(err.fd[0], -1);
  w.worker = worker;
  return 0;
}

// The spare worker (FrontendProcess::keepSpare): started ahead, it has
// loaded its libraries and waits for a request on its stdin.
std::mutex spareMutex;
std::optional<Started> spare;
bool spareStarting = false;

// Starts a spare unless there is one (or one is being started).
void startSpare(const std::string& worker) {
  {
    std::lock_guard<std::mutex> l(spareMutex);
    if (spare || spareStarting) return;
    spareStarting = true;
  }
  Started next;
  const bool ok = start(worker, next) == 0;
  std::lock_guard<std::mutex> l(spareMutex);
  if (ok) spare = next;
  spareStarting = false;
}

// A worker for one lowering: the spare when there is a live one for this
// executable (and another spare started behind it), else a new one.
int obtain(const FrontendProcess& p, Started& w) {
  bool got = false;
  if (p.keepSpare) {
    std::lock_guard<std::mutex> l(spareMutex);
    if (spare && spare->worker == p.worker) {
      w = *spare;
      spare.reset();
      int status = 0;
      got = waitpid(w.pid, &status, WNOHANG) == 0;  // still waiting (not ended meanwhile)
      if (!got)
        for (int fd : {w.in, w.out, w.err}) ::close(fd);
    }
  }
  const int rc = got ? 0 : start(p.worker, w);
  if (p.keepSpare) startSpare(p.worker);
  return rc;
}

}  // namespace

void startSpareWorker(const std::string& worker) { startSpare(worker); }

FrontendResult lowerInWorker(const std::string& path, const std::string* contents,
                             const std::map<std::string, std::string>& others, const FrontendOptions& opts) {
  const FrontendProcess& p = opts.process;
  LoweringRequest q;
  q.path = path;
  q.hasContents = contents != nullptr;
  if (contents) q.contents = *contents;
  q.others = others;
  q.options = opts;
  q.options.process = FrontendProcess();
  q.memoryBytes = p.memoryBytes;
  if (p.deadline != std::chrono::steady_clock::time_point::max())
    q.secondsLeft = std::max(0.001, std::chrono::duration<double>(p.deadline - std::chrono::steady_clock::now()).count());
  const std::string request = encodeRequest(q);

  Started w;
  const int rc = obtain(p, w);
  if (rc < 0) return crashedResult(path, std::string("cannot create pipes: ") + std::strerror(-rc));
  if (rc > 0)
    return fileErrorResult(path, "cannot start the frontend worker " + p.worker + ": " + std::strerror(rc) +
                                     " (it is built beside the tsocheck binary; install both)");
  const pid_t pid = w.pid;
  Pipe in, out, err;  // (only the parent's ends: in.fd[1], out.fd[0], err.fd[0])
  in.fd[1] = w.in;
  out.fd[0] = w.out;
  err.fd[0] = w.err;

  std::string result, errText;
  size_t sent = 0;
  FrontendStop stop = FrontendStop::None;
  bool tooBig = false;
  char buf[1 << 16];
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    if (p.cancel && p.cancel->load(std::memory_order_relaxed)) stop = FrontendStop::Cancelled;
    else if (std::chrono::steady_clock::now() >= p.deadline) stop = FrontendStop::TimeLimit;
    else if (p.memoryBytes && residentBytes(pid) > p.memoryBytes) stop = FrontendStop::MemoryLimit;
    if (stop != FrontendStop::None || tooBig) break;
    pollfd fds[3] = {{in.fd[1], POLLOUT, 0}, {out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
    if (poll(fds, 3, 10) < 0 && errno != EINTR) break;
    if (in.fd[1] >= 0 && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = write(in.fd[1], request.data() + sent, request.size() - sent);
      if (n > 0) sent += size_t(n);
      if (sent == request.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) in.close(1);
    }
    for (int i : {1, 2}) {
      Pipe& pp = i == 1 ? out : err;
      if (pp.fd[0] < 0 || !(fds[i].revents & (POLLIN | POLLERR | POLLHUP))) continue;
      const ssize_t n = read(pp.fd[0], buf, sizeof buf);
      if (n > 0) {
        std::string& into = i == 1 ? result : errText;
        into.append(buf, size_t(n));
        if (i == 1 && result.size() > kMaxResultBytes) tooBig = true;
        if (i == 2 && errText.size() > 8192) errText.erase(0, errText.size() - 4096);  // keep the end
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        pp.close(0);
      }
    }
  }
  in.close(1);
  if (stop != FrontendStop::None || tooBig) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (stop != FrontendStop::None) return stoppedResult(path, stop, p);
  if (tooBig) return crashedResult(path, "its output exceeded " + mib(kMaxResultBytes));
  if (WIFEXITED(status) && WEXITSTATUS(status) == kWorkerOutOfMemory)
    return stoppedResult(path, FrontendStop::MemoryLimit, p);
  if (WIFSIGNALED(status)) return crashedResult(path, std::string("signal ") + strsignal(WTERMSIG(status)));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return crashedResult(path, "the frontend worker exited with code " + std::to_string(WEXITSTATUS(status)));
  try {
    return decodeResult(result);
  } catch (const WireError& e) {
    return crashedResult(path, std::string("the frontend worker's answer was unreadable: ") + e.what());
  }
}

}  // namespace tsocheck::frontend
